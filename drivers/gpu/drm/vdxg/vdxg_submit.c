// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/dma-resv.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_exec.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>
#include <drm/vdxg_drm.h>

#include "vdxg_bo.h"
#include "vdxg_cmdparse.h"
#include "vdxg_drv.h"
#include "vdxg_gate.h"
#include "vdxg_render.h"
#include "vdxg_split.h"
#include "vdxg_sync.h"

/**
 * DOC: Submission
 *
 * DRM_IOCTL_VDXG_SUBMIT is WDDM's render-and-patch flow for one command
 * buffer:
 *
 * 1. Build. The command buffer, allocation list and patch-location list
 *    are copied into kernel memory, the allocations looked up, and the
 *    buffer validated command by command against them (see "Command buffer
 *    validation"). Nothing userspace changes afterwards is seen.
 * 2. Residency. The objects are locked together with drm_exec and
 *    validated into a segment the engines reach (VRAM or the aperture),
 *    from their own preferred sets. Evictions this causes are paging jobs
 *    on the copy engine, like any other move.
 * 3. Patch. With the objects locked, their GPU addresses cannot change
 *    until the job's fence is in their reservations, so the addresses are
 *    written into the address fields now (DXGKDDI_PATCH). When every
 *    presumed address userspace passed is still right the buffer already
 *    holds them and nothing is written; otherwise the addresses used are
 *    written back to the allocation list. The result goes to a DMA buffer
 *    in reserved VRAM.
 * 4. Schedule. The job waits for its in-syncobjs and, unless
 *    DRM_VDXG_SUBMIT_NO_IMPLICIT, for the objects' other users (implicit
 *    sync, read or write per allocation). Its finished fence goes into
 *    every object's reservation and into the out-syncobjs.
 *
 * When the allocations cannot be resident together and the buffer has
 * split points, steps 2 to 4 run once a piece (see "Partial
 * submissions"): each piece is a job of the context, queued and run after
 * the previous one, with its own DMA buffer and its own objects made
 * resident, patched and fenced; the moves that make room for it are
 * ordered after the previous piece by the fences in the reservations, as
 * any move. Before the first piece is queued the ioctl waits,
 * interruptibly and with nothing queued, until no client's fence gates
 * the submission: not its first piece (the later ones evict what it
 * uses, and eviction passes gated work by) nor any piece's objects (a
 * later piece would wait for it holding split_lock). A later piece never
 * waits for a client, so it waits uninterruptibly (but for a fatal
 * signal): a signal does not cut the job short once it has begun. One
 * whose objects became gated meanwhile, or whose objects cannot be made
 * resident after all, or whose task is killed, fails the job through a
 * job that runs a NOP, with its error. Pieces are made resident one at a
 * time (split_lock).
 */

/**
 * struct vdxg_submit - the state of one SUBMIT ioctl
 * @vdxg: the device
 * @file: the submitting file
 * @args: the ioctl argument
 * @ctx: the context
 * @cmds: kernel copy of the command buffer
 * @allocs: kernel copy of the allocation list
 * @patches: kernel copy of the patch-location list
 * @objs: the allocations' objects
 * @cp: what the parser needs of each allocation
 * @gpu_addr: the allocations' GPU addresses, once resident
 * @sync: in- and out-syncobjs
 * @job: the job
 * @exec: the locking context
 * @splits: the buffer's split points
 * @plan: its pieces, when it has split points
 * @scratch: one allocation for @plan's pieces and marks, @where and @index
 * @where: what the partitioner knows of each allocation
 * @index: scratch: the allocations of one piece
 * @piece: scratch: one piece's commands, as it runs
 * @pieces: the jobs of the pieces not queued yet
 * @last: the finished fence of the last piece queued
 */
struct vdxg_submit {
	struct vdxg_device *vdxg;
	struct drm_file *file;
	struct drm_vdxg_submit *args;
	struct vdxg_context *ctx;
	u32 *cmds;
	struct drm_vdxg_allocation *allocs;
	struct drm_vdxg_patch_location *patches;
	struct drm_gem_object **objs;
	struct vdxg_cp_alloc *cp;
	u64 *gpu_addr;
	struct vdxg_sync_args sync;
	struct vdxg_job *job;
	struct drm_exec exec;
	struct vdxg_cp_splits splits;
	struct vdxg_split plan;
	void *scratch;
	struct vdxg_split_alloc *where;
	u32 *index;
	u32 *piece;
	struct vdxg_job *pieces[DRM_VDXG_SUBMIT_MAX_PIECES];
	struct dma_fence *last;
};

static void *vdxg_submit_copy(u64 uptr, u32 n, size_t size, int *ret)
{
	void *p;

	if (!n)
		return NULL;
	p = kvmalloc_array(n, size, GFP_KERNEL);
	if (!p) {
		*ret = -ENOMEM;
		return NULL;
	}
	if (copy_from_user(p, u64_to_user_ptr(uptr), (size_t)n * size)) {
		kvfree(p);
		*ret = -EFAULT;
		return NULL;
	}
	return p;
}

static int vdxg_submit_check_args(const struct drm_vdxg_submit *args)
{
	if (args->flags & ~DRM_VDXG_SUBMIT_FLAGS)
		return -EINVAL;
	if (!args->command_size || args->command_size % 4)
		return -EINVAL;
	if (args->command_size > VDXG_MAX_COMMAND_SIZE ||
	    args->num_allocations > VDXG_MAX_ALLOCATIONS ||
	    args->num_patches > VDXG_MAX_PATCHES ||
	    args->num_in_syncs > DRM_VDXG_MAX_SYNCS ||
	    args->num_out_syncs > DRM_VDXG_MAX_SYNCS)
		return -E2BIG;
	return 0;
}

static int vdxg_submit_copy_in(struct vdxg_submit *s)
{
	struct drm_vdxg_submit *args = s->args;
	int ret = 0;

	s->cmds = vdxg_submit_copy(args->commands, args->command_size / 4,
				   sizeof(u32), &ret);
	if (ret)
		return ret;
	s->allocs = vdxg_submit_copy(args->allocations, args->num_allocations,
				     sizeof(*s->allocs), &ret);
	if (ret)
		return ret;
	s->patches = vdxg_submit_copy(args->patches, args->num_patches,
				      sizeof(*s->patches), &ret);
	if (ret)
		return ret;
	return vdxg_sync_args_copy(&s->sync, s->file, args->in_syncs,
				   args->num_in_syncs, args->out_syncs,
				   args->num_out_syncs);
}

/* Has the object a segment the engines reach (VRAM, aperture)? */
static bool vdxg_submit_gpu_reachable(struct drm_gem_object *obj)
{
	struct ttm_buffer_object *tbo =
		container_of(obj, struct ttm_buffer_object, base);

	return to_vdxg_bo(tbo)->gpu_placement.num_placement;
}

/*
 * Look up every allocation's object. Each may be listed once: a single
 * job's drm_exec finds one listed twice, a split one vdxg_submit_plan().
 */
static int vdxg_submit_lookup(struct vdxg_submit *s)
{
	u32 n = s->args->num_allocations;
	u32 i;

	s->objs = kvcalloc(n, sizeof(*s->objs), GFP_KERNEL);
	s->cp = kvcalloc(n, sizeof(*s->cp), GFP_KERNEL);
	s->gpu_addr = kvcalloc(n, sizeof(*s->gpu_addr), GFP_KERNEL);
	if (n && (!s->objs || !s->cp || !s->gpu_addr))
		return -ENOMEM;

	for (i = 0; i < n; i++) {
		const struct drm_vdxg_allocation *a = &s->allocs[i];

		if (a->flags & ~DRM_VDXG_ALLOC_FLAGS)
			return -EINVAL;
		s->objs[i] = drm_gem_object_lookup(s->file, a->handle);
		if (!s->objs[i])
			return -ENOENT;
		if (!vdxg_submit_gpu_reachable(s->objs[i]))
			return -EINVAL;
		s->cp[i].size = s->objs[i]->size;
		s->cp[i].flags = a->flags;
	}
	return 0;
}

static int vdxg_submit_validate(struct vdxg_submit *s,
				struct vdxg_cp_splits *splits)
{
	struct vdxg_cp_error err = {};
	int ret;

	ret = vdxg_cmd_parse(s->cmds, s->args->command_size / 4, s->cp,
			     s->args->num_allocations, s->patches,
			     s->args->num_patches, splits,
			     s->vdxg->caps & VDXG_CAP_3D ? VDXG_CP_3D : 0, &err);
	if (ret) {
		atomic64_inc(&s->vdxg->render.stats.rejected);
		drm_dbg(&s->vdxg->drm, "submit refused at dword %u: %s (%d)\n",
			err.dword, err.what, ret);
	}
	return ret;
}

/*
 * Room for the split points the parser returns, when the buffer has any:
 * most have none, and the parser refuses a split offset without room.
 */
static int vdxg_submit_alloc_splits(struct vdxg_submit *s)
{
	u32 i, n = 0;

	for (i = 0; i < s->args->num_patches; i++)
		n += !!s->patches[i].split_offset;
	if (!n)
		return 0;
	s->splits.offsets = kvmalloc_array(n, sizeof(u32), GFP_KERNEL);
	return s->splits.offsets ? 0 : -ENOMEM;
}

/*
 * The segments the engines reach that an object may be resident in, and
 * whether the aperture comes first in its set.
 */
static u32 vdxg_submit_where(struct drm_gem_object *obj, bool *aperture_first)
{
	struct vdxg_bo *bo = to_vdxg_bo(container_of(obj,
						      struct ttm_buffer_object,
						      base));
	u32 i, where = 0;

	for (i = 0; i < bo->gpu_placement.num_placement; i++)
		where |= bo->gpu_places[i].mem_type == TTM_PL_VRAM ?
			 VDXG_SPLIT_VRAM : VDXG_SPLIT_APERTURE;
	*aperture_first = bo->gpu_placement.num_placement &&
			  bo->gpu_places[0].mem_type == TTM_PL_TT;
	return where;
}

/*
 * Do the allocations fit the engines' reach together, @vram and
 * @aperture bytes of room? The planner gives each allocation, in turn,
 * room in the first of its segments that has it, and plans one piece
 * when every one finds some. It surely does when those that may be in
 * VRAM add up to at most its room and those that may be in the aperture
 * to at most its own (whichever it tries first has room), or when all of
 * them may be in one segment and add up to at most its room (it tries
 * that one, first or last, and it has room). Then the buffer runs as it
 * is, and nothing is allocated to plan it. (The planner counts only the
 * allocations the address fields name, each once: these sums are never
 * smaller.)
 */
static bool vdxg_submit_fits(struct vdxg_submit *s, u64 vram, u64 aperture)
{
	u64 in_vram = 0, in_aperture = 0, total = 0;
	bool aperture_first;
	u32 i, where;

	for (i = 0; i < s->args->num_allocations; i++) {
		where = vdxg_submit_where(s->objs[i], &aperture_first);
		total += s->objs[i]->size;
		if (where & VDXG_SPLIT_VRAM)
			in_vram += s->objs[i]->size;
		if (where & VDXG_SPLIT_APERTURE)
			in_aperture += s->objs[i]->size;
	}
	return (in_vram <= vram && in_aperture <= aperture) ||
	       (in_vram == total && total <= vram) ||
	       (in_aperture == total && total <= aperture);
}

static int vdxg_submit_cmp_obj(const void *a, const void *b, const void *priv)
{
	struct drm_gem_object *const *objs = priv;
	uintptr_t x = (uintptr_t)objs[*(const u32 *)a];
	uintptr_t y = (uintptr_t)objs[*(const u32 *)b];

	return x < y ? -1 : x > y;
}

/*
 * An object listed twice (two handles of one object among them): -EINVAL,
 * as drm_exec's -EALREADY is for a single job. Pieces lock some of the
 * allocations each, so a split buffer is checked before it is planned,
 * with @s->index as scratch.
 */
static int vdxg_submit_check_once(struct vdxg_submit *s)
{
	u32 n = s->args->num_allocations, i;

	for (i = 0; i < n; i++)
		s->index[i] = i;
	sort_r(s->index, n, sizeof(*s->index), vdxg_submit_cmp_obj, NULL,
	       s->objs);
	for (i = 1; i < n; i++)
		if (s->objs[s->index[i]] == s->objs[s->index[i - 1]])
			return -EINVAL;
	return 0;
}

/*
 * A buffer with split points is cut into pieces when its allocations do
 * not fit the engines' reach together; one piece is the buffer as it is.
 */
static int vdxg_submit_plan(struct vdxg_submit *s)
{
	u32 n = s->args->num_allocations;
	struct vdxg_split *sp = &s->plan;
	u32 i, max = 0;
	u64 vram, aperture;
	int ret;

	if (!s->splits.count)
		return 0;
	vdxg_ttm_engine_room(s->vdxg, &vram, &aperture);
	if (vdxg_submit_fits(s, vram, aperture))
		return 0;

	/* The planner's scratch, in one allocation; the pieces first. */
	s->scratch = kvzalloc(DRM_VDXG_SUBMIT_MAX_PIECES * sizeof(*sp->pieces) +
			      n * (sizeof(*s->where) + 2 * sizeof(u32)),
			      GFP_KERNEL);
	if (!s->scratch)
		return -ENOMEM;
	sp->pieces = s->scratch;
	s->where = (struct vdxg_split_alloc *)(sp->pieces +
					       DRM_VDXG_SUBMIT_MAX_PIECES);
	sp->mark = (u32 *)(s->where + n);
	s->index = sp->mark + n;
	ret = vdxg_submit_check_once(s);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		s->where[i].size = s->objs[i]->size;
		s->where[i].where = vdxg_submit_where(s->objs[i],
						      &s->where[i].aperture_first);
	}
	sp->cmds = s->cmds;
	sp->ndw = s->args->command_size / 4;
	sp->patches = s->patches;
	sp->npatches = s->args->num_patches;
	sp->splits = &s->splits;
	sp->allocs = s->where;
	sp->nallocs = n;
	sp->max_pieces = DRM_VDXG_SUBMIT_MAX_PIECES;
	sp->vram = vram;
	sp->aperture = aperture;
	ret = vdxg_split_plan(sp);
	if (ret || sp->npieces < 2)
		return ret;

	for (i = 0; i < sp->npieces; i++)
		max = max(max, vdxg_split_piece_dwords(sp, &sp->pieces[i]));
	s->piece = kvmalloc_array(max, sizeof(u32), GFP_KERNEL);
	return s->piece ? 0 : -ENOMEM;
}

/* The @i-th allocation of @index, or allocation @i when @index is NULL. */
static u32 vdxg_submit_at(const u32 *index, u32 i)
{
	return index ? index[i] : i;
}

/*
 * Lock @n allocations (@index, or all of them when NULL), make them
 * resident and note their GPU addresses. Validation runs inside the
 * drm_exec loop: an eviction may lock another object with the loop's
 * ticket, which is only allowed before drm_exec marks the acquisition
 * done. TTM waits as @exec does (interruptibly or not). A piece of a
 * split submission does not wait for an object a client's fence holds
 * up (gated since the submission began): -EBUSY.
 */
static int vdxg_submit_resident(struct vdxg_submit *s, struct drm_exec *exec,
				const u32 *index, u32 n)
{
	struct ttm_operation_ctx tctx = {
		.interruptible = exec->flags & DRM_EXEC_INTERRUPTIBLE_WAIT,
		.gfp_retry_mayfail = true,
	};
	bool split = s->plan.npieces > 1;
	u32 i;
	int ret;

	drm_exec_until_all_locked(exec) {
		for (i = 0; i < n; i++) {
			ret = drm_exec_prepare_obj(exec,
						   s->objs[vdxg_submit_at(index, i)],
						   1);
			drm_exec_retry_on_contention(exec);
			if (ret)
				return ret == -EALREADY ? -EINVAL : ret;
		}
		for (i = 0; split && i < n; i++)
			if (vdxg_resv_gated(s->vdxg,
					    s->objs[vdxg_submit_at(index, i)]->resv))
				return -EBUSY;
		for (i = 0; i < n; i++) {
			u32 a = vdxg_submit_at(index, i);
			struct ttm_buffer_object *tbo =
				container_of(s->objs[a],
					     struct ttm_buffer_object, base);

			ret = ttm_bo_validate(tbo,
					      &to_vdxg_bo(tbo)->gpu_placement,
					      &tctx);
			/* A move may have used the slot drm_exec reserved. */
			if (!ret)
				ret = dma_resv_reserve_fences(tbo->base.resv,
							      1);
			if (ret)
				return ret;
			s->gpu_addr[a] = vdxg_ttm_gpu_addr(s->vdxg,
							   tbo->resource);
		}
	}
	return 0;
}

/*
 * A job's dependencies on @n allocations (@index, or all when NULL): their
 * other users (implicit sync), or their moves only.
 */
static int vdxg_submit_deps(struct vdxg_submit *s, struct vdxg_job *job,
			    const u32 *index, u32 n)
{
	bool implicit = !(s->args->flags & DRM_VDXG_SUBMIT_NO_IMPLICIT);
	u32 i;
	int ret;

	for (i = 0; i < n; i++) {
		u32 a = vdxg_submit_at(index, i);
		bool write = s->allocs[a].flags & DRM_VDXG_ALLOC_WRITE;

		if (implicit)
			ret = drm_sched_job_add_implicit_dependencies(&job->base,
								      s->objs[a],
								      write);
		else
			ret = drm_sched_job_add_resv_dependencies(&job->base,
								  s->objs[a]->resv,
								  DMA_RESV_USAGE_KERNEL);
		if (ret)
			return ret;
	}
	return 0;
}

/* Patch the addresses and move the buffer into the job's DMA buffer. */
static int vdxg_submit_patch(struct vdxg_submit *s)
{
	struct vdxg_render *render = &s->vdxg->render;
	u32 size = s->args->command_size;
	bool presumed = true;
	u32 written, i;
	int idx;

	for (i = 0; i < s->args->num_allocations; i++)
		if (s->allocs[i].presumed_gpu_addr != s->gpu_addr[i])
			presumed = false;

	written = vdxg_patch_apply(s->cmds, s->patches, s->args->num_patches,
				   s->gpu_addr);
	if (presumed && !written) {
		atomic64_inc(&render->stats.skipped);
	} else {
		atomic64_inc(&render->stats.patched);
		atomic64_add(written, &render->stats.fields);
		s->args->out_flags |= DRM_VDXG_SUBMIT_OUT_PATCHED;
	}

	if (!drm_dev_enter(&s->vdxg->drm, &idx))
		return -ENODEV;
	memcpy_toio(render->pool_cpu + s->job->buf.start,
		    s->cmds, size);
	drm_dev_exit(idx);
	return 0;
}

/* May the context take a job now? Under its lock. */
static int vdxg_submit_queueable(struct vdxg_context *ctx)
{
	lockdep_assert_held(&ctx->lock);
	if (ctx->closed)
		return -ENOENT;
	if (atomic_read(&ctx->guilty))
		return -EIO;
	return 0;
}

/*
 * Past the point of no return, under the context's lock: queue a job
 * whose @n allocations (@index, or all when NULL) are locked, with its
 * fence in their reservations.
 *
 * Return: the job's finished fence, with a reference.
 */
static struct dma_fence *vdxg_submit_push(struct vdxg_submit *s,
					  struct vdxg_job *job,
					  const u32 *index, u32 n)
{
	struct dma_fence *fence;
	u32 i;

	vdxg_job_gate(job);
	drm_sched_job_arm(&job->base);
	vdxg_job_gate_pushed(job);
	fence = dma_fence_get(&job->base.s_fence->finished);
	for (i = 0; i < n; i++) {
		u32 a = vdxg_submit_at(index, i);

		dma_resv_add_fence(s->objs[a]->resv, fence,
				   s->allocs[a].flags & DRM_VDXG_ALLOC_WRITE ?
				   DMA_RESV_USAGE_WRITE : DMA_RESV_USAGE_READ);
	}
	vdxg_job_push(job);
	return fence;
}

/* The addresses used, for the next submission's presumed addresses. */
static void vdxg_submit_write_back(struct vdxg_submit *s)
{
	struct drm_vdxg_allocation __user *ua =
		u64_to_user_ptr(s->args->allocations);
	u32 i;

	/* A split buffer's pieces had addresses of their own. */
	if (!(s->args->out_flags & DRM_VDXG_SUBMIT_OUT_PATCHED) ||
	    (s->args->out_flags & DRM_VDXG_SUBMIT_OUT_SPLIT) ||
	    !s->args->allocations)
		return;
	/* A failure here is not the job's: it is queued already. */
	for (i = 0; i < s->args->num_allocations; i++)
		if (put_user(s->gpu_addr[i], &ua[i].presumed_gpu_addr))
			break;
}

/* ------------------------------------------------------------ pieces */

/* The pieces' jobs, their dependencies on the in-syncobjs, their buffers. */
static int vdxg_submit_piece_jobs(struct vdxg_submit *s)
{
	u32 sizes[DRM_VDXG_SUBMIT_MAX_PIECES];
	struct vdxg_split *sp = &s->plan;
	u32 i, bytes = 0;
	int ret;

	for (i = 0; i < sp->npieces; i++) {
		struct vdxg_job *job = vdxg_job_alloc(s->ctx);

		if (!job)
			return -ENOMEM;
		ret = drm_sched_job_init(&job->base, &s->ctx->entity, 1, s->ctx,
					 s->file->client_id);
		if (ret) {
			vdxg_job_free(job);
			return ret;
		}
		job->null_rendering = s->args->flags &
				      DRM_VDXG_SUBMIT_NULL_RENDERING;
		s->pieces[i] = job;
		sizes[i] = vdxg_split_piece_dwords(sp, &sp->pieces[i]) * 4;
		bytes += sizes[i];
	}
	/* The others run after the first, in the context's order. */
	ret = vdxg_sync_add_deps(&s->sync, &s->pieces[0]->base);
	if (ret)
		return ret;

	ret = vdxg_file_queue_bytes(s->ctx->file, bytes);
	if (ret)
		return ret;
	/* All or none; from then on each job gives its share back. */
	ret = vdxg_job_alloc_bufs(s->pieces, sizes, sp->npieces);
	if (ret)
		vdxg_file_unqueue_bytes(s->ctx->file, bytes);
	return ret;
}

/*
 * What gates the submission: a dependency of the first piece, the
 * context's last gated job, or a fence a client holds up on one of the
 * objects a piece uses (a later piece would wait for it, holding
 * split_lock). NULL when nothing does.
 */
static struct dma_fence *vdxg_submit_gating_fence(struct vdxg_submit *s)
{
	struct dma_fence *fence;
	u32 i, a;

	mutex_lock(&s->ctx->lock);
	fence = vdxg_job_gating_fence(s->pieces[0]);
	mutex_unlock(&s->ctx->lock);
	/* Each allocation once. */
	s->plan.gen++;
	for (i = 0; !fence && i < s->args->num_patches; i++) {
		a = s->patches[i].allocation_index;
		if (s->plan.mark[a] == s->plan.gen)
			continue;
		s->plan.mark[a] = s->plan.gen;
		fence = vdxg_resv_gating_fence(s->vdxg, s->objs[a]->resv);
	}
	return fence;
}

/*
 * Wait, with no lock held, until nothing gates the submission: not its
 * first piece (later pieces evict what it uses, and eviction passes gated
 * work by), nor any piece's objects. Nothing is queued yet: interruptible.
 */
static int vdxg_submit_ungate(struct vdxg_submit *s)
{
	struct dma_fence *fence;
	long ret;

	while ((fence = vdxg_submit_gating_fence(s))) {
		ret = dma_fence_wait(fence, true);
		dma_fence_put(fence);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Write the piece, patched for where its objects are now. */
static int vdxg_submit_piece_write(struct vdxg_submit *s, struct vdxg_job *job,
				   const struct vdxg_piece *piece)
{
	struct vdxg_render *render = &s->vdxg->render;
	int idx;

	vdxg_split_piece_build(&s->plan, piece, s->gpu_addr, s->piece);
	atomic64_add(piece->end_patch - piece->first_patch,
		     &render->stats.fields);
	if (!drm_dev_enter(&s->vdxg->drm, &idx))
		return -ENODEV;
	memcpy_toio(render->pool_cpu + job->buf.start, s->piece, job->len);
	drm_dev_exit(idx);
	return 0;
}

/*
 * Lock and validate a piece's objects. TTM turns a lost ww race for an
 * object it evicts into -ENOMEM: with every lock dropped, the transaction
 * that won goes on, and the piece tries again, a few times. Pieces of
 * split submissions evict each other's objects at every turn: they are
 * made resident one at a time (@split_lock, held until the piece is
 * queued, when its fences are in the reservations).
 */
static int vdxg_submit_piece_lock(struct vdxg_submit *s, struct drm_exec *exec,
				  u32 flags, u32 n)
{
	int tries = 4, ret;

	for (;;) {
		drm_exec_init(exec, flags, n);
		ret = vdxg_submit_resident(s, exec, s->index, n);
		if (ret != -ENOMEM || !--tries)
			return ret;
		drm_exec_fini(exec);
	}
}

/*
 * Run piece @k: its objects resident, its buffer patched, its job queued.
 * A piece that a client's fence would gate (its dependencies, the
 * context's last gated job, its objects) is not queued: -EBUSY. The
 * first piece's caller then waits for that fence with no lock held
 * (vdxg_submit_ungate()); for a later one it is an error (its objects
 * are someone's since the submission began).
 */
static int vdxg_submit_piece(struct vdxg_submit *s, u32 k)
{
	struct mutex *split_lock = &s->vdxg->render.split_lock;
	const struct vdxg_piece *piece = &s->plan.pieces[k];
	struct vdxg_job *job = s->pieces[k];
	u32 n = vdxg_split_piece_allocs(&s->plan, piece, s->index);
	struct dma_fence *gate;
	struct drm_exec exec;
	int ret;

	/*
	 * Once the first piece is queued a signal must not cut the job
	 * short: the later ones wait for no client (they refuse gated
	 * objects), only for the device's work, which job timeouts bound.
	 */
	ret = k ? mutex_lock_killable(split_lock) :
		  mutex_lock_interruptible(split_lock);
	if (ret)
		return ret;
	ret = vdxg_submit_piece_lock(s, &exec,
				     k ? 0 : DRM_EXEC_INTERRUPTIBLE_WAIT, n);
	if (!ret)
		ret = vdxg_submit_deps(s, job, s->index, n);
	if (!ret)
		ret = vdxg_submit_piece_write(s, job, piece);
	if (ret)
		goto out;

	mutex_lock(&s->ctx->lock);
	ret = vdxg_submit_queueable(s->ctx);
	gate = ret ? NULL : vdxg_job_gating_fence(job);
	if (gate) {
		dma_fence_put(gate);
		ret = -EBUSY;
	} else if (!ret) {
		dma_fence_put(s->last);
		s->last = vdxg_submit_push(s, job, s->index, n);
		s->pieces[k] = NULL;
	}
	mutex_unlock(&s->ctx->lock);
out:
	drm_exec_fini(&exec);
	mutex_unlock(split_lock);
	return ret;
}

/*
 * A later piece could not be queued (killed, its objects gated or pinned
 * meanwhile, the context banned): the job fails with its error, by
 * a job that runs a NOP after the pieces queued. A context closed meanwhile
 * takes no more jobs: -ENOENT, and the out-syncobjs are left alone.
 */
static int vdxg_submit_fail_rest(struct vdxg_submit *s, u32 k, int error)
{
	struct vdxg_job *job = s->pieces[k];
	int ret = 0;

	job->error = error == -ERESTARTSYS ? -EINTR : error;
	mutex_lock(&s->ctx->lock);
	/* A banned context fails it all the same: no -EIO here. */
	if (vdxg_submit_queueable(s->ctx) == -ENOENT) {
		ret = -ENOENT;
	} else {
		dma_fence_put(s->last);
		s->last = vdxg_submit_push(s, job, NULL, 0);
		s->pieces[k] = NULL;
	}
	mutex_unlock(&s->ctx->lock);
	return ret;
}

/* The first piece waits, not queued, this many times for what gates it. */
#define VDXG_SUBMIT_UNGATE_TRIES	8

static int vdxg_submit_split(struct vdxg_submit *s)
{
	struct vdxg_render *render = &s->vdxg->render;
	int tries, ret;
	u32 k;

	ret = vdxg_submit_piece_jobs(s);
	if (ret)
		return ret;
	/* Gated again since the wait: wait again; -EBUSY past the last. */
	for (tries = VDXG_SUBMIT_UNGATE_TRIES; tries; tries--) {
		ret = vdxg_submit_ungate(s) ?: vdxg_submit_piece(s, 0);
		if (ret != -EBUSY)
			break;
	}
	if (ret)
		return ret;

	for (k = 1; k < s->plan.npieces; k++) {
		ret = vdxg_submit_piece(s, k);
		if (ret) {
			ret = vdxg_submit_fail_rest(s, k, ret);
			break;
		}
	}
	/* A context closed meanwhile: the submission failed, not counted. */
	if (ret)
		return ret;
	atomic64_inc(&render->stats.submits);
	atomic64_inc(&render->stats.split);
	atomic64_add(k, &render->stats.pieces);
	atomic64_inc(&render->stats.patched);
	if (s->args->flags & DRM_VDXG_SUBMIT_NULL_RENDERING)
		atomic64_inc(&render->stats.null_rendering);
	s->args->out_flags |= DRM_VDXG_SUBMIT_OUT_SPLIT |
			      DRM_VDXG_SUBMIT_OUT_PATCHED;
	vdxg_sync_signal(&s->sync, s->last);
	return 0;
}

/* ------------------------------------------------------------- one job */

static int vdxg_submit_job(struct vdxg_submit *s)
{
	u32 n = s->args->num_allocations;
	struct dma_fence *fence;
	int ret;

	if (s->plan.npieces > 1)
		return vdxg_submit_split(s);

	s->job = vdxg_job_alloc(s->ctx);
	if (!s->job)
		return -ENOMEM;
	s->job->null_rendering = s->args->flags &
				 DRM_VDXG_SUBMIT_NULL_RENDERING;
	/* The owner may become the gated mark (vdxg_job_gate()). */
	ret = drm_sched_job_init(&s->job->base, &s->ctx->entity, 1, s->ctx,
				 s->file->client_id);
	if (ret) {
		vdxg_job_free(s->job);
		s->job = NULL;
		return ret;
	}

	ret = vdxg_sync_add_deps(&s->sync, &s->job->base);
	if (ret)
		return ret;

	/*
	 * Waits for the file's own jobs when they hold their share of the
	 * pool, then for any job to free pool space: before any lock.
	 */
	ret = vdxg_file_queue_bytes(s->ctx->file, s->args->command_size);
	if (ret)
		return ret;
	ret = vdxg_job_alloc_buf(s->job, s->args->command_size);
	if (ret) {
		vdxg_file_unqueue_bytes(s->ctx->file, s->args->command_size);
		return ret;
	}

	drm_exec_init(&s->exec, DRM_EXEC_INTERRUPTIBLE_WAIT, n);
	ret = vdxg_submit_resident(s, &s->exec, NULL, n);
	if (!ret)
		ret = vdxg_submit_deps(s, s->job, NULL, n);
	if (!ret)
		ret = vdxg_submit_patch(s);
	if (!ret) {
		mutex_lock(&s->ctx->lock);
		ret = vdxg_submit_queueable(s->ctx);
		if (!ret) {
			fence = vdxg_submit_push(s, s->job, NULL, n);
			s->job = NULL;
		}
		mutex_unlock(&s->ctx->lock);
	}
	drm_exec_fini(&s->exec);
	if (ret)
		return ret;
	vdxg_sync_signal(&s->sync, fence);
	dma_fence_put(fence);
	/* Counted once queued: a submission that failed ran nothing. */
	atomic64_inc(&s->vdxg->render.stats.submits);
	if (s->args->flags & DRM_VDXG_SUBMIT_NULL_RENDERING)
		atomic64_inc(&s->vdxg->render.stats.null_rendering);
	return 0;
}

static void vdxg_submit_free_job(struct vdxg_job *job)
{
	if (!job)
		return;
	drm_sched_job_cleanup(&job->base);
	vdxg_job_free(job);
}

static void vdxg_submit_cleanup(struct vdxg_submit *s)
{
	u32 i;

	vdxg_submit_free_job(s->job);
	for (i = 0; i < ARRAY_SIZE(s->pieces); i++)
		vdxg_submit_free_job(s->pieces[i]);
	dma_fence_put(s->last);
	kvfree(s->piece);
	kvfree(s->scratch);
	kvfree(s->splits.offsets);
	vdxg_sync_args_fini(&s->sync);
	for (i = 0; s->objs && i < s->args->num_allocations; i++)
		if (s->objs[i])
			drm_gem_object_put(s->objs[i]);
	kvfree(s->gpu_addr);
	kvfree(s->cp);
	kvfree(s->objs);
	kvfree(s->patches);
	kvfree(s->allocs);
	kvfree(s->cmds);
	if (s->ctx)
		vdxg_context_put(s->ctx);
}

/**
 * vdxg_submit_kernel - run a command buffer the kernel built
 * @file: the file it runs for
 * @kb: the buffer, its objects and patches
 *
 * PRESENT's blits take the SUBMIT path from validation on: the same
 * parser, residency, patching and scheduling.
 *
 * Return: 0 once the job is queued, or a negative errno.
 */
int vdxg_submit_kernel(struct drm_file *file, const struct vdxg_kbuf *kb)
{
	struct drm_vdxg_sync out = { .handle = kb->out_syncobj };
	struct drm_vdxg_submit args = {
		.ctx_id = kb->ctx_id,
		.command_size = kb->ndw * 4,
		.num_allocations = kb->nobjs,
		.num_patches = kb->npatches,
		.num_out_syncs = kb->out_syncobj ? 1 : 0,
	};
	struct vdxg_submit s = {
		.vdxg = to_vdxg(file->minor->dev),
		.file = file,
		.args = &args,
	};
	u32 i;
	int ret = -ENOMEM;

	s.ctx = vdxg_context_get(file, args.ctx_id);
	if (!s.ctx)
		return -ENOENT;
	if (s.ctx->vm) {
		ret = -EINVAL;
		goto out;
	}
	if (atomic_read(&s.ctx->guilty)) {
		ret = -EIO;
		goto out;
	}

	s.cmds = kvmemdup(kb->cmds, args.command_size, GFP_KERNEL);
	s.patches = kvmemdup(kb->patches, kb->npatches * sizeof(*kb->patches),
			     GFP_KERNEL);
	s.allocs = kvcalloc(kb->nobjs, sizeof(*s.allocs), GFP_KERNEL);
	s.objs = kvcalloc(kb->nobjs, sizeof(*s.objs), GFP_KERNEL);
	s.cp = kvcalloc(kb->nobjs, sizeof(*s.cp), GFP_KERNEL);
	s.gpu_addr = kvcalloc(kb->nobjs, sizeof(*s.gpu_addr), GFP_KERNEL);
	s.sync.file = file;
	if (args.num_out_syncs) {
		s.sync.out = kvmemdup(&out, sizeof(out), GFP_KERNEL);
		s.sync.num_out = s.sync.out ? 1 : 0;
	}
	if (!s.cmds || !s.patches || !s.allocs || !s.objs || !s.cp ||
	    !s.gpu_addr || s.sync.num_out != args.num_out_syncs)
		goto out;

	for (i = 0; i < kb->nobjs; i++) {
		s.objs[i] = kb->objs[i];
		drm_gem_object_get(s.objs[i]);
		ret = -EINVAL;
		if (!vdxg_submit_gpu_reachable(s.objs[i]))
			goto out;
		s.allocs[i].flags = kb->flags[i];
		s.cp[i].size = s.objs[i]->size;
		s.cp[i].flags = kb->flags[i];
	}

	ret = vdxg_submit_validate(&s, NULL);
	if (!ret)
		ret = vdxg_sync_prepare_out(&s.sync);
	if (!ret)
		ret = vdxg_submit_job(&s);
out:
	vdxg_submit_cleanup(&s);
	return ret;
}

/**
 * vdxg_submit_ioctl - DRM_IOCTL_VDXG_SUBMIT
 * @drm: the device
 * @data: struct drm_vdxg_submit
 * @file: the file
 *
 * Return: 0 once the job is queued, or the errors listed with
 * &struct drm_vdxg_submit.
 */
int vdxg_submit_ioctl(struct drm_device *drm, void *data,
		      struct drm_file *file)
{
	struct vdxg_submit s = {
		.vdxg = to_vdxg(drm),
		.file = file,
		.args = data,
	};
	int ret;

	s.args->out_flags = 0;
	ret = vdxg_submit_check_args(s.args);
	if (ret)
		return ret;

	s.ctx = vdxg_context_get(file, s.args->ctx_id);
	if (!s.ctx)
		return -ENOENT;
	/* A virtual-mode context takes EXEC only. */
	ret = -EINVAL;
	if (s.ctx->vm)
		goto out;
	ret = -EIO;
	if (atomic_read(&s.ctx->guilty))
		goto out;

	ret = vdxg_submit_copy_in(&s);
	if (!ret)
		ret = vdxg_submit_lookup(&s);
	if (!ret)
		ret = vdxg_submit_alloc_splits(&s);
	if (!ret)
		ret = vdxg_submit_validate(&s, s.splits.offsets ? &s.splits :
					   NULL);
	if (!ret)
		ret = vdxg_submit_plan(&s);
	if (!ret)
		ret = vdxg_sync_prepare_out(&s.sync);
	if (!ret)
		ret = vdxg_submit_job(&s);
	if (!ret)
		vdxg_submit_write_back(&s);
out:
	vdxg_submit_cleanup(&s);
	return ret;
}
