// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/bitops.h>
#include <linux/dma-resv.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>
#include <drm/ttm/ttm_bo.h>

#include "vdxg_drv.h"
#include "vdxg_paging.h"
#include "vdxg_trace.h"

/**
 * DOC: Paging queue
 *
 * Every paging operation the memory manager emits runs on the PAGING
 * engine through one kernel-priority scheduler entity, so its paging
 * buffers run in the order they were built. Each VM's binds have a
 * &struct vdxg_pg_queue of their own: a bind waiting for a client's
 * in-fence holds up only the later binds of that VM, never the moves or
 * the other clients' binds.
 *
 * A batch collects operations into a CPU staging copy of a paging buffer;
 * when it is full (the builder returns -ENOSPC, see "Paging buffers") or
 * the batch ends, the job takes a copy of what the buffer used and is
 * queued. Only once its dependencies have signalled and it is about to
 * run is the copy written to one of %VDXG_PG_SLOTS buffers in reserved
 * VRAM: the scheduler's credit limit is the number of buffers (one credit
 * a job), and a buffer is free again as soon as its job's hardware fence
 * signals, before the scheduler returns the credit. Jobs that wait thus
 * hold no buffer. The first job of a batch waits for every fence of the
 * reservation object it is given.
 *
 * The buffer size is the ``paging_buffer_size`` module parameter, so tests
 * can make it small and force multipass.
 */

static unsigned int vdxg_pg_buf_size = SZ_64K;
module_param_named(paging_buffer_size, vdxg_pg_buf_size, uint, 0444);
MODULE_PARM_DESC(paging_buffer_size,
		 "bytes per paging buffer, 4096 to 262144, a multiple of 4096 (default 65536)");

#define VDXG_PG_RING_SIZE	SZ_64K
#define VDXG_PG_TIMEOUT_MS	10000

/* Small buffers (a move of a few pages) are kept in the job itself. */
#define VDXG_PG_JOB_INLINE	32

struct vdxg_pg_job {
	struct drm_sched_job base;
	struct vdxg_paging *paging;
	struct vdxg_pg_queue *queue;
	struct vdxg_hw_fence *hw;
	struct dma_fence *hw_fence;
	u32 len;
	bool keyed;
	struct vdxg_as_vm *as_vm;
	u32 *cmd;
	u32 inline_cmd[VDXG_PG_JOB_INLINE];
};

static struct vdxg_pg_job *to_pg_job(struct drm_sched_job *job)
{
	return container_of(job, struct vdxg_pg_job, base);
}

static bool vdxg_pg_try_slot(struct vdxg_paging *paging, unsigned int *slot)
{
	unsigned int i;

	for (i = 0; i < VDXG_PG_SLOTS; i++) {
		if (!test_and_set_bit_lock(i, &paging->slot_busy)) {
			*slot = i;
			return true;
		}
	}
	return false;
}

/*
 * A paging job's hardware fence, with the paging buffer its signal gives
 * back. The callback lives in the fence, not in the job: whoever signals
 * the fence holds a reference to it, whatever became of the job.
 */
struct vdxg_pg_hw {
	struct vdxg_hw_fence f;		/* first: freed as the fence */
	struct dma_fence_cb slot_cb;
	struct vdxg_paging *paging;
	unsigned int slot;
};

static_assert(offsetof(struct vdxg_pg_hw, f.base) == 0);

static void vdxg_pg_slot_cb(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	struct vdxg_pg_hw *hw = container_of(cb, struct vdxg_pg_hw, slot_cb);

	clear_bit_unlock(hw->slot, &hw->paging->slot_busy);
}

static void vdxg_pg_job_free_cmd(struct vdxg_pg_job *job)
{
	if (job->cmd != job->inline_cmd)
		kvfree(job->cmd);
	job->cmd = NULL;
}

static struct dma_fence *vdxg_pg_run(struct drm_sched_job *sched_job)
{
	struct vdxg_pg_job *job = to_pg_job(sched_job);
	struct vdxg_paging *paging = job->paging;
	struct vdxg_pg_hw *hw;
	struct dma_fence *fence;
	unsigned int slot;
	int idx;

	/*
	 * Off its queue now. (Not at free_job: the queue's VM may be gone
	 * by then, once the job's fence has signalled.)
	 */
	if (job->queue) {
		atomic_dec(&job->queue->jobs);
		job->queue = NULL;
	}
	/* Run before a reset: failed itself, or written to the ring again. */
	if (job->hw_fence) {
		if (sched_job->s_fence->finished.error) {
			vdxg_engine_cancel_fence(&paging->engine, job->hw_fence,
						 -EIO);
			return NULL;
		}
		return vdxg_engine_resubmit(&paging->engine, job->hw_fence);
	}
	/* A failed dependency means the content is unknown: do not move it. */
	if (sched_job->s_fence->finished.error) {
		vdxg_pg_job_free_cmd(job);
		return NULL;
	}

	/* Unplugged: the buffers and the ring are gone with the BARs. */
	if (!drm_dev_enter(&paging->engine.vdxg->drm, &idx)) {
		vdxg_pg_job_free_cmd(job);
		return ERR_PTR(-ENODEV);
	}
	/*
	 * The credit limit keeps as many jobs on the ring as there are
	 * buffers, and a buffer is freed before its job's credit returns.
	 */
	if (WARN_ON_ONCE(!vdxg_pg_try_slot(paging, &slot))) {
		drm_dev_exit(idx);
		return ERR_PTR(-EBUSY);
	}
	hw = container_of(job->hw, struct vdxg_pg_hw, f);
	hw->paging = paging;
	hw->slot = slot;
	/* VMs named by key: the address spaces they have now, if any. */
	if (job->keyed)
		vdxg_as_patch(paging->engine.vdxg, job->cmd,
			      job->len / sizeof(u32),
			      &sched_job->s_fence->finished);
	memcpy_toio(paging->buf_cpu + slot * paging->buf_size, job->cmd,
		    job->len);
	vdxg_pg_job_free_cmd(job);

	fence = vdxg_engine_emit(&paging->engine, job->hw, sched_job,
				 paging->buf_gpu + slot * paging->buf_size,
				 job->len, 0);
	drm_dev_exit(idx);
	job->hw = NULL;
	job->hw_fence = dma_fence_get(fence);
	/* Before the scheduler's own callback, which returns the credit. */
	if (dma_fence_add_callback(fence, &hw->slot_cb, vdxg_pg_slot_cb))
		vdxg_pg_slot_cb(fence, &hw->slot_cb);
	return fence;
}

/* A job that reads or writes through a VM waits for an address space. */
static struct dma_fence *vdxg_pg_prepare_job(struct drm_sched_job *sched_job,
					     struct drm_sched_entity *entity)
{
	struct vdxg_pg_job *job = to_pg_job(sched_job);

	if (!job->as_vm)
		return NULL;
	return vdxg_as_grab(job->paging->engine.vdxg, job->as_vm,
			    VDXG_AS_PAGING, &sched_job->s_fence->finished);
}

/* In the fence-signalling path: lockdep reports a wait for a fence there. */
static struct dma_fence *vdxg_pg_run_job(struct drm_sched_job *sched_job)
{
	bool cookie = dma_fence_begin_signalling();
	struct dma_fence *fence = vdxg_pg_run(sched_job);

	dma_fence_end_signalling(cookie);
	return fence;
}

/*
 * Paging jobs share one entity, so the scheduler's per-context guilt would
 * cancel them all: only the job that hung or faulted fails. The others are
 * moves TTM already counts as done, and they run again.
 */
static void vdxg_pg_blame(struct vdxg_engine *engine,
			  struct drm_sched_job *sched_job)
{
	dma_fence_set_error(&sched_job->s_fence->finished, -EIO);
}

static enum drm_gpu_sched_stat
vdxg_pg_timedout_job(struct drm_sched_job *sched_job)
{
	return vdxg_engine_timedout(&to_pg_job(sched_job)->paging->engine,
				    sched_job);
}

/* Annotated as the render engine's (vdxg_render_free_job()). */
static void vdxg_pg_free_job(struct drm_sched_job *sched_job)
{
	struct vdxg_pg_job *job = to_pg_job(sched_job);
	bool cookie = dma_fence_begin_signalling();

	/* Its hardware fence signals first, or was failed by a recovery. */
	WARN_ON_ONCE(job->hw_fence && !dma_fence_is_signaled(job->hw_fence));
	drm_sched_job_cleanup(sched_job);
	dma_fence_put(job->hw_fence);
	vdxg_pg_job_free_cmd(job);
	kfree(job->hw);
	kfree(job);
	dma_fence_end_signalling(cookie);
}

static const struct drm_sched_backend_ops vdxg_pg_sched_ops = {
	.prepare_job = vdxg_pg_prepare_job,
	.run_job = vdxg_pg_run_job,
	.timedout_job = vdxg_pg_timedout_job,
	.free_job = vdxg_pg_free_job,
};

static const struct vdxg_engine_ops vdxg_pg_engine_ops = {
	.blame = vdxg_pg_blame,
	.max_jobs = VDXG_PG_SLOTS,
};

static u64 vdxg_get64(const u32 *cs)
{
	return cs[0] | (u64)cs[1] << 32;
}

/* Dwords each operation's decoder below reads, header included. */
static const u8 vdxg_pg_describe_len[VDXG_PG_NUM_OPS] = {
	[VDXG_PG_FENCE] = 3,
	[VDXG_PG_TRANSFER] = VDXG_PG_XFER_DW_DST + 2,
	[VDXG_PG_FILL] = 5,
	[VDXG_PG_DISCARD] = 4,
	[VDXG_PG_MAP_APERTURE] = 3,
	[VDXG_PG_UNMAP_APERTURE] = 3,
	[VDXG_PG_UPDATE_PAGE_TABLE] = VDXG_PG_UPT_DW_COUNT + 1,
	[VDXG_PG_COPY_PTES] = VDXG_PG_COPY_PTES_LEN,
	[VDXG_PG_FLUSH_VM_TLB] = VDXG_PG_FLUSH_VM_TLB_LEN,
	[VDXG_PG_TRANSFER_VIRTUAL] = VDXG_PG_XV_LEN,
	[VDXG_PG_FILL_VIRTUAL] = VDXG_PG_FILL_V_LEN,
	[VDXG_PG_UPDATE_CONTEXT_ALLOC] = VDXG_PG_UCA_LEN,
	[VDXG_PG_INIT_CONTEXT_RESOURCE] = VDXG_PG_ICR_LEN,
	[VDXG_PG_NOTIFY_RESIDENCY] = VDXG_PG_NOTIFY_RES_LEN,
};

/*
 * Address space, bytes and main address of the operation at @cs, of @len
 * dwords, for its trace event (see vdxg_trace.h). It reads only dwords
 * below @len: an operation too short for its operands reports nothing.
 */
static void vdxg_pg_describe(const u32 *cs, u32 len, int *as, u64 *bytes,
			     u64 *addr)
{
	u32 op = VDXG_PG_HDR_OP(cs[0]);

	*as = -1;
	*bytes = 0;
	*addr = 0;
	if (op >= VDXG_PG_NUM_OPS || !vdxg_pg_describe_len[op] ||
	    len < vdxg_pg_describe_len[op])
		return;

	switch (op) {
	case VDXG_PG_TRANSFER:
		*bytes = cs[VDXG_PG_XFER_DW_SIZE];
		*addr = vdxg_get64(cs + VDXG_PG_XFER_DW_DST);
		break;
	case VDXG_PG_FILL:
		*bytes = cs[2];
		*addr = vdxg_get64(cs + 3);
		break;
	case VDXG_PG_DISCARD:
		*bytes = cs[1];
		*addr = vdxg_get64(cs + 2);
		break;
	case VDXG_PG_MAP_APERTURE:
	case VDXG_PG_UNMAP_APERTURE:
		*bytes = (u64)cs[2] * VDXG_GPU_PAGE_SIZE;
		*addr = cs[1];
		break;
	case VDXG_PG_FENCE:
		*addr = vdxg_get64(cs + 1);
		break;
	case VDXG_PG_UPDATE_PAGE_TABLE:
		*bytes = (u64)cs[VDXG_PG_UPT_DW_COUNT] * sizeof(u64);
		*addr = vdxg_get64(cs + VDXG_PG_UPT_DW_TABLE) +
			(u64)cs[VDXG_PG_UPT_DW_FIRST] * sizeof(u64);
		break;
	case VDXG_PG_COPY_PTES:
		*bytes = (u64)cs[7] * sizeof(u64);
		*addr = vdxg_get64(cs + 4) + (u64)cs[6] * sizeof(u64);
		break;
	case VDXG_PG_FLUSH_VM_TLB:
		*as = cs[1] & INT_MAX;
		if (cs[2] & VDXG_PG_FLUSH_RANGE) {
			*addr = vdxg_get64(cs + 3);
			*bytes = vdxg_get64(cs + 5);
		}
		break;
	case VDXG_PG_TRANSFER_VIRTUAL:
		*as = cs[1] & INT_MAX;
		*bytes = cs[3];
		*addr = vdxg_get64(cs + 6);
		break;
	case VDXG_PG_FILL_VIRTUAL:
		*as = cs[1] & INT_MAX;
		*bytes = cs[3];
		*addr = vdxg_get64(cs + 4);
		break;
	case VDXG_PG_UPDATE_CONTEXT_ALLOC:
		*as = cs[1] & INT_MAX;
		*bytes = VDXG_VM_AS_ENTRY_SIZE;
		*addr = vdxg_get64(cs + 2);
		break;
	case VDXG_PG_INIT_CONTEXT_RESOURCE:
		*bytes = VDXG_CTX_STATE_SIZE;
		*addr = vdxg_get64(cs + 1);
		break;
	case VDXG_PG_NOTIFY_RESIDENCY:
		*as = cs[1] & INT_MAX;
		*addr = (u64)cs[2] << 32 | cs[3];
		break;
	}
}

static void vdxg_pg_trace(const struct vdxg_pagebuf *pb, u64 seqno)
{
	u32 pos, len;
	u64 bytes, addr;
	int as;

	if (!trace_vdxg_paging_op_enabled())
		return;
	for (pos = 0; pos < pb->used; pos += len) {
		const u32 *cs = pb->cmd + pos;

		/* At least the header, at most what the buffer holds. */
		len = clamp_t(u32, VDXG_PG_HDR_LEN(cs[0]), 1, pb->used - pos);
		vdxg_pg_describe(cs, len, &as, &bytes, &addr);
		trace_vdxg_paging_op(seqno, VDXG_PG_HDR_OP(cs[0]), len, as,
				     bytes, addr);
	}
}

/*
 * A batch is built in a CPU buffer as large as a paging buffer. The device
 * keeps a few for reuse: a small move then costs no allocation of its own.
 */
static u32 *vdxg_pg_staging_get(struct vdxg_paging *paging, int *slot)
{
	unsigned int i;

	for (i = 0; i < VDXG_PG_STAGING; i++) {
		if (paging->staging[i] &&
		    !test_and_set_bit_lock(i, &paging->staging_busy)) {
			*slot = i;
			return paging->staging[i];
		}
	}
	*slot = -1;
	return kvmalloc(paging->buf_size, GFP_KERNEL);
}

static void vdxg_pg_staging_put(struct vdxg_paging *paging, u32 *staging,
				int slot)
{
	if (slot < 0)
		kvfree(staging);
	else
		clear_bit_unlock(slot, &paging->staging_busy);
}

static void vdxg_pg_staging_fini(struct vdxg_paging *paging)
{
	unsigned int i;

	for (i = 0; i < VDXG_PG_STAGING; i++) {
		kvfree(paging->staging[i]);
		paging->staging[i] = NULL;
	}
}

/**
 * vdxg_pg_batch_begin - start a batch of paging operations
 * @b: the batch
 * @vdxg: the device
 * @resv: reservation object whose fences the batch waits for, or NULL
 *
 * Return: 0 or -ENOMEM.
 */
int vdxg_pg_batch_begin(struct vdxg_pg_batch *b, struct vdxg_device *vdxg,
			struct dma_resv *resv)
{
	memset(b, 0, sizeof(*b));
	b->vdxg = vdxg;
	b->entity = &vdxg->paging.entity;
	b->resv = resv;
	xa_init_flags(&b->deps, XA_FLAGS_ALLOC);
	INIT_LIST_HEAD(&b->deferred_tables);
	b->staging = vdxg_pg_staging_get(&vdxg->paging, &b->staging_slot);
	if (!b->staging)
		return -ENOMEM;
	vdxg_pagebuf_init(&b->pb, b->staging, vdxg->paging.buf_size);
	return 0;
}

/**
 * vdxg_pg_batch_begin_queue - start a batch of paging operations on a queue
 * @b: the batch
 * @vdxg: the device
 * @q: the queue its jobs go to, in order after the queue's earlier jobs
 *
 * Return: 0 or -ENOMEM.
 */
int vdxg_pg_batch_begin_queue(struct vdxg_pg_batch *b,
			      struct vdxg_device *vdxg,
			      struct vdxg_pg_queue *q)
{
	int ret = vdxg_pg_batch_begin(b, vdxg, NULL);

	b->entity = &q->entity;
	b->queue = q;
	return ret;
}

/**
 * vdxg_pg_batch_add_dep - make the next buffer submitted wait for a fence
 * @b: the batch
 * @fence: the fence, or NULL; the batch takes a reference of its own
 *
 * Later buffers wait too: a batch's buffers run in order.
 *
 * Return: 0 or -ENOMEM.
 */
int vdxg_pg_batch_add_dep(struct vdxg_pg_batch *b, struct dma_fence *fence)
{
	u32 id;
	int ret;

	if (!fence)
		return 0;
	ret = xa_alloc(&b->deps, &id, dma_fence_get(fence), xa_limit_32b,
		       GFP_KERNEL);
	if (ret)
		dma_fence_put(fence);
	return ret;
}

/*
 * What of @fence the kernel's paging queue would wait for, were it to run
 * after it: nothing once it signalled or when it is one of the queue's own
 * jobs (they run in order); for a scheduler's job, until it is handed to
 * its engine, where a timeout bounds it; else the fence itself (another
 * driver's, which may take any time).
 */
static struct dma_fence *vdxg_pg_gate(struct vdxg_paging *paging,
				      struct dma_fence *fence)
{
	struct drm_sched_fence *s_fence;

	if (dma_fence_is_signaled(fence) ||
	    fence->context == paging->entity.fence_context ||
	    fence->context == paging->entity.fence_context + 1)
		return NULL;
	s_fence = to_drm_sched_fence(fence);
	if (!s_fence)
		return fence;
	return dma_fence_is_signaled(&s_fence->scheduled) ? NULL :
	       &s_fence->scheduled;
}

/**
 * vdxg_pg_may_wait - may the kernel's paging queue wait for a fence now
 * @vdxg: the device
 * @fence: the fence, or NULL
 *
 * Return: true when @fence is NULL, signalled, one of the queue's own jobs
 * or a scheduler job already handed to its engine (a timeout bounds it);
 * false while it may still wait for anything a client holds up.
 */
bool vdxg_pg_may_wait(struct vdxg_device *vdxg, struct dma_fence *fence)
{
	return !fence || !vdxg_pg_gate(&vdxg->paging, fence);
}

/**
 * vdxg_pg_wait_queued - wait until the kernel's paging queue may wait for
 *	a fence
 * @vdxg: the device
 * @fence: the fence, or NULL
 * @ctx: interruptible, and no_wait_gpu for -EBUSY instead of a wait
 *
 * A job on the device's queue that waited for a client's job still waiting
 * itself (for an in-fence the client may never signal: a bind on its VM's
 * queue, a submission) would hold up every move after it. So the caller
 * that queues such a job waits, on the CPU, until the fence's job is on
 * its engine or the fence signalled.
 *
 * Return: 0, -EBUSY, or -ERESTARTSYS.
 */
int vdxg_pg_wait_queued(struct vdxg_device *vdxg, struct dma_fence *fence,
			struct ttm_operation_ctx *ctx)
{
	struct dma_fence *gate;
	long ret;

	if (!fence)
		return 0;
	gate = vdxg_pg_gate(&vdxg->paging, fence);
	if (!gate)
		return 0;
	if (ctx->no_wait_gpu)
		return -EBUSY;
	ret = dma_fence_wait(gate, ctx->interruptible);
	return ret < 0 ? ret : 0;
}

/**
 * vdxg_pg_wait_queued_resv - vdxg_pg_wait_queued() for a reservation's
 *	fences
 * @vdxg: the device
 * @resv: the reservation object, locked
 * @ctx: as for vdxg_pg_wait_queued()
 *
 * Return: 0, -EBUSY, or -ERESTARTSYS.
 */
int vdxg_pg_wait_queued_resv(struct vdxg_device *vdxg, struct dma_resv *resv,
			     struct ttm_operation_ctx *ctx)
{
	struct dma_resv_iter cursor;
	struct dma_fence *fence;
	int ret;

	dma_resv_assert_held(resv);
	dma_resv_for_each_fence(&cursor, resv, DMA_RESV_USAGE_BOOKKEEP, fence) {
		ret = vdxg_pg_wait_queued(vdxg, fence, ctx);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * vdxg_pg_bind_pending - is a fence a VM's bind not yet on the engine
 * @paging: the device's paging engine
 * @fence: the fence
 *
 * Return: true for a job of a VM's paging queue (a bind, or a VM's
 * destruction) not yet handed to the engine: it may wait for a client's
 * in-fence for as long as the client likes.
 */
bool vdxg_pg_bind_pending(struct vdxg_paging *paging, struct dma_fence *fence)
{
	struct drm_sched_fence *s_fence = to_drm_sched_fence(fence);

	return s_fence && s_fence->sched == &paging->engine.sched &&
	       fence->context != paging->entity.fence_context &&
	       fence->context != paging->entity.fence_context + 1 &&
	       !dma_fence_is_signaled(&s_fence->scheduled);
}

/**
 * vdxg_pg_batch_add_resv - make the batch's next buffer (and so the later
 *	ones) wait for a reservation's fences
 * @b: the batch
 * @resv: the reservation object, locked
 * @usage: the fences to wait for
 *
 * Return: 0 or -ENOMEM.
 */
int vdxg_pg_batch_add_resv(struct vdxg_pg_batch *b, struct dma_resv *resv,
			   enum dma_resv_usage usage)
{
	struct dma_resv_iter cursor;
	struct dma_fence *fence;
	int ret;

	dma_resv_for_each_fence(&cursor, resv, usage, fence) {
		ret = vdxg_pg_batch_add_dep(b, fence);
		if (ret)
			return ret;
	}
	return 0;
}

/* The first buffer waits for the reservation; each for the fences added. */
static int vdxg_pg_job_deps(struct vdxg_pg_batch *b, struct vdxg_pg_job *job)
{
	struct dma_fence *fence;
	unsigned long i;
	int ret;

	if (b->resv && !b->passes) {
		ret = drm_sched_job_add_resv_dependencies(&job->base, b->resv,
							  DMA_RESV_USAGE_BOOKKEEP);
		if (ret)
			return ret;
	}
	xa_for_each(&b->deps, i, fence) {
		xa_erase(&b->deps, i);
		/* Takes over the reference, also on error. */
		ret = drm_sched_job_add_dependency(&job->base, fence);
		if (ret)
			return ret;
	}
	return 0;
}

static int vdxg_pg_job_create(struct vdxg_pg_batch *b,
			      struct vdxg_pg_job **out)
{
	struct vdxg_paging *paging = &b->vdxg->paging;
	/* A VM's binds, queued for a client: charged to it. */
	gfp_t gfp = b->queue ? GFP_KERNEL_ACCOUNT : GFP_KERNEL;
	struct vdxg_pg_job *job;
	struct vdxg_pg_hw *hw;
	int ret;

	job = kmalloc(sizeof(*job), gfp);
	if (!job)
		return -ENOMEM;
	memset(job, 0, offsetof(struct vdxg_pg_job, inline_cmd));
	job->len = b->pb.used * sizeof(u32);
	job->cmd = job->inline_cmd;
	if (b->pb.used > VDXG_PG_JOB_INLINE) {
		job->cmd = kvmalloc(job->len, gfp);
		if (!job->cmd) {
			ret = -ENOMEM;
			goto err_free;
		}
	}
	memcpy(job->cmd, b->staging, job->len);
	job->keyed = b->pb.keyed;
	job->as_vm = b->as_vm;
	hw = kzalloc(sizeof(*hw), gfp);
	job->hw = hw ? &hw->f : NULL;
	if (!job->hw) {
		ret = -ENOMEM;
		goto err_free;
	}
	job->paging = paging;

	ret = drm_sched_job_init(&job->base, b->entity, 1, NULL, 0);
	if (ret)
		goto err_free;

	ret = vdxg_pg_job_deps(b, job);
	if (ret) {
		drm_sched_job_cleanup(&job->base);
		goto err_free;
	}
	*out = job;
	return 0;

err_free:
	kfree(job->hw);
	vdxg_pg_job_free_cmd(job);
	kfree(job);
	return ret;
}

/**
 * vdxg_pg_batch_flush - submit the buffer being filled, start a new one
 * @b: the batch
 *
 * The job takes a copy of the buffer: it gets a paging buffer in VRAM only
 * when it runs. Nothing here waits for the device.
 *
 * Return: 0 or a negative errno; on error the operations in the buffer are
 * dropped and the batch must end.
 */
int vdxg_pg_batch_flush(struct vdxg_pg_batch *b)
{
	struct vdxg_paging *paging = &b->vdxg->paging;
	bool shared = b->entity == &paging->entity;
	struct vdxg_pg_job *job;
	int ret;

	if (!b->pb.used)
		return 0;

	ret = vdxg_pg_job_create(b, &job);
	if (ret) {
		vdxg_pagebuf_init(&b->pb, b->staging, paging->buf_size);
		return ret;
	}
	if (b->queue) {
		job->queue = b->queue;
		atomic_inc(&b->queue->jobs);
	}

	/*
	 * Moves, swaps and binds of any number of threads share the
	 * kernel entity: a job must reach the entity's queue in the order
	 * of its fence's seqno, which arm gives. Else a later fence could
	 * signal first, and a job that depends on both (the scheduler keeps
	 * the later fence of a context only) could run before the earlier
	 * move is done. A VM's queue is only ever flushed with the VM's
	 * reservation held (binds, validation before EXEC, the VM's
	 * teardown), which orders its jobs already.
	 */
	if (shared)
		mutex_lock(&paging->push_lock);
	drm_sched_job_arm(&job->base);
	vdxg_pg_trace(&b->pb, job->base.s_fence->finished.seqno);
	dma_fence_put(b->fence);
	b->fence = dma_fence_get(&job->base.s_fence->finished);
	drm_sched_entity_push_job(&job->base);
	if (shared)
		mutex_unlock(&paging->push_lock);

	b->passes++;
	vdxg_pagebuf_init(&b->pb, b->staging, paging->buf_size);
	return 0;
}

static void vdxg_pg_account(struct vdxg_paging *paging,
			    const struct vdxg_pg_batch *b)
{
	unsigned int i;

	spin_lock(&paging->stats_lock);
	for (i = 0; i < ARRAY_SIZE(b->stats.ops); i++) {
		paging->stats.ops[i] += b->stats.ops[i];
		paging->stats.bytes[i] += b->stats.bytes[i];
	}
	paging->passes += b->passes;
	if (b->passes) {
		paging->batches++;
		paging->last_passes = b->passes;
		paging->max_passes = max(paging->max_passes, b->passes);
	}
	spin_unlock(&paging->stats_lock);
}

/**
 * vdxg_pg_batch_end - submit what is left and end the batch
 * @b: the batch
 *
 * On an error, buffers submitted before may still run: the batch waits
 * for them, but for a batch on a VM's queue, whose jobs may wait for a
 * client's in-fences: @b->fence then keeps the last one's fence, for the
 * caller to order its later work after and to put.
 *
 * Return: the finished fence of the batch's last buffer (the caller owns
 * the reference), NULL when nothing was submitted, or an ERR_PTR.
 */
struct dma_fence *vdxg_pg_batch_end(struct vdxg_pg_batch *b)
{
	int ret = vdxg_pg_batch_flush(b);
	struct dma_fence *dep;
	unsigned long i;

	xa_for_each(&b->deps, i, dep)
		dma_fence_put(dep);
	xa_destroy(&b->deps);
	vdxg_pg_account(&b->vdxg->paging, b);
	vdxg_pg_staging_put(&b->vdxg->paging, b->staging, b->staging_slot);
	b->staging = NULL;
	if (ret) {
		if (b->queue)
			return ERR_PTR(ret);
		if (b->fence)
			dma_fence_wait(b->fence, false);
		dma_fence_put(b->fence);
		b->fence = NULL;
		return ERR_PTR(ret);
	}
	return b->fence;
}

/**
 * vdxg_pg_batch_end_wait - end a batch and wait for its last job
 * @b: the batch
 * @ret: the caller's error so far
 *
 * For work the caller cannot go on without, on the device's queue (a
 * batch on a VM's queue ends with the VM's vdxg_vm_update_end()).
 *
 * Return: @ret, else the batch's error, else its job's.
 */
int vdxg_pg_batch_end_wait(struct vdxg_pg_batch *b, int ret)
{
	struct dma_fence *fence = vdxg_pg_batch_end(b);

	if (IS_ERR(fence))
		return ret ?: PTR_ERR(fence);
	if (fence) {
		dma_fence_wait(fence, false);
		ret = ret ?: fence->error;
		dma_fence_put(fence);
	}
	return ret;
}

static int vdxg_paging_check_param(struct vdxg_device *vdxg)
{
	u32 size = vdxg_pg_buf_size;

	if (size < SZ_4K || size > SZ_256K || size % SZ_4K) {
		drm_err(&vdxg->drm, "paging_buffer_size %u is not a multiple of 4096 in [4096, 262144]\n",
			size);
		return -EINVAL;
	}
	vdxg->paging.buf_size = size;
	return 0;
}

/*
 * Prove the engine works before the memory manager relies on it: fill a
 * reserved scratch area, copy it with a TRANSFER and read the copy back.
 */
static int vdxg_paging_selftest(struct vdxg_device *vdxg)
{
	struct vdxg_pg_loc src = {}, dst = {};
	void __iomem *a, *bcpu;
	struct vdxg_pg_batch b;
	struct dma_fence *fence;
	u64 done = 0, filled = 0;
	const u32 pattern = 0xa5c3e1f0;
	u32 i, bad = 0;
	long ret;

	ret = vdxg_kmem_alloc(vdxg, SZ_64K, &src.addr, &a);
	if (!ret)
		ret = vdxg_kmem_alloc(vdxg, SZ_64K, &dst.addr, &bcpu);
	if (ret)
		return ret;
	memset_io(bcpu, 0, SZ_64K);

	ret = vdxg_pg_batch_begin(&b, vdxg, NULL);
	if (ret)
		return ret;
	ret = vdxg_pg_emit(&b, vdxg_pg_fill(&b.pb, src.addr, SZ_64K, pattern,
					    &filled, &b.stats));
	if (!ret)
		ret = vdxg_pg_emit(&b, vdxg_pg_transfer(&b.pb, &src, &dst,
							SZ_64K, &done,
							&b.stats));
	fence = vdxg_pg_batch_end(&b);
	if (ret || IS_ERR_OR_NULL(fence)) {
		if (!IS_ERR_OR_NULL(fence))
			dma_fence_put(fence);
		return ret ?: (fence ? PTR_ERR(fence) : -EIO);
	}

	ret = dma_fence_wait_timeout(fence, false, msecs_to_jiffies(5000));
	if (ret > 0)
		ret = fence->error;
	else if (!ret)
		ret = -ETIMEDOUT;
	dma_fence_put(fence);
	if (ret < 0)
		return ret;

	for (i = 0; i < SZ_64K / 4; i++)
		bad += readl(bcpu + 4 * i) != pattern;
	if (bad) {
		drm_err(&vdxg->drm, "paging self-test: %u of %u dwords wrong\n",
			bad, SZ_64K / 4);
		return -EIO;
	}
	return 0;
}

/**
 * vdxg_paging_inject_fault - queue a paging job that faults (debugfs)
 * @vdxg: the device
 *
 * A paging buffer with one undefined operation, queued in order with the
 * moves around it, to test recovery: it alone fails.
 *
 * Return: 0 or a negative errno.
 */
int vdxg_paging_inject_fault(struct vdxg_device *vdxg)
{
	struct dma_fence *fence;
	struct vdxg_pg_batch b;
	int ret;

	ret = vdxg_pg_batch_begin(&b, vdxg, NULL);
	if (ret)
		return ret;
	b.pb.cmd[b.pb.used++] = VDXG_PG_HDR(VDXG_PG_NUM_OPS, 1);
	fence = vdxg_pg_batch_end(&b);
	if (IS_ERR(fence))
		return PTR_ERR(fence);
	dma_fence_put(fence);
	return 0;
}

/**
 * vdxg_paging_hold - pause or resume the paging engine (debugfs)
 * @vdxg: the device
 * @hold: pause (true) or resume
 *
 * A paused engine keeps its ring: jobs queue up behind the entry it was
 * on, which lets tests line moves up behind an injected fault. Keep it
 * short: the paging timeout still runs.
 */
void vdxg_paging_hold(struct vdxg_device *vdxg, bool hold)
{
	vdxg_wr(vdxg, VDXG_ENGINE_BASE(VDXG_ENGINE_PAGING) + VDXG_ENG_CTRL,
		hold ? 0 : VDXG_ENG_CTRL_ENABLE);
}

/**
 * vdxg_paging_irq - handle the paging engine's interrupt sources
 * @vdxg: the device
 * @pending: VDXG_INT_* bits raised
 */
void vdxg_paging_irq(struct vdxg_device *vdxg, u32 pending)
{
	if (pending & VDXG_INT_PAGING_FENCE)
		vdxg_engine_signal(&vdxg->paging.engine);
}

/* At the DRM device's release: the scheduler, without the hardware. */
static void vdxg_paging_release(struct drm_device *drm, void *arg)
{
	struct vdxg_paging *paging = arg;

	drm_sched_entity_destroy(&paging->entity);
	vdxg_engine_release(&paging->engine);
	vdxg_pg_staging_fini(paging);
}

/**
 * vdxg_paging_init - start the paging engine and its queue
 * @vdxg: the device
 *
 * Return: 0 or a negative errno.
 */
int vdxg_paging_init(struct vdxg_device *vdxg)
{
	struct vdxg_paging *paging = &vdxg->paging;
	struct drm_gpu_scheduler *sched = &paging->engine.sched;
	u64 ring_gpu, seqno_gpu;
	void __iomem *ring, *seqno;
	unsigned int i;
	int ret;

	ret = vdxg_paging_check_param(vdxg);
	if (ret)
		return ret;

	spin_lock_init(&paging->stats_lock);
	ret = drmm_mutex_init(&vdxg->drm, &paging->push_lock);
	if (ret)
		return ret;
	for (i = 0; i < VDXG_PG_STAGING; i++) {
		paging->staging[i] = kvmalloc(paging->buf_size, GFP_KERNEL);
		if (!paging->staging[i]) {
			ret = -ENOMEM;
			goto err_staging;
		}
	}

	ret = vdxg_kmem_alloc(vdxg, VDXG_PG_RING_SIZE, &ring_gpu, &ring);
	if (!ret)
		ret = vdxg_kmem_alloc(vdxg, SZ_4K, &seqno_gpu, &seqno);
	if (!ret)
		ret = vdxg_kmem_alloc(vdxg, VDXG_PG_SLOTS * paging->buf_size,
				      &paging->buf_gpu,
				      (void __iomem **)&paging->buf_cpu);
	if (ret)
		goto err_staging;

	ret = vdxg_engine_init(&paging->engine, vdxg, VDXG_ENGINE_PAGING,
			       ring_gpu, ring, VDXG_PG_RING_SIZE, seqno_gpu,
			       seqno, &vdxg_pg_sched_ops, &vdxg_pg_engine_ops,
			       msecs_to_jiffies(VDXG_PG_TIMEOUT_MS));
	if (ret)
		goto err_staging;

	ret = drm_sched_entity_init(&paging->entity, DRM_SCHED_PRIORITY_KERNEL,
				    &sched, 1, NULL);
	if (ret)
		goto err_engine;

	vdxg_irq_enable(vdxg, VDXG_INT_PAGING_FENCE | VDXG_INT_FAULT);
	ret = vdxg_paging_selftest(vdxg);
	if (ret) {
		drm_err(&vdxg->drm, "paging engine self-test failed (%d)\n", ret);
		goto err_entity;
	}
	drm_info(&vdxg->drm, "paging engine: %u x %u KiB paging buffers, self-test passed\n",
		 VDXG_PG_SLOTS, paging->buf_size / SZ_1K);
	ret = drmm_add_action(&vdxg->drm, vdxg_paging_release, paging);
	if (!ret)
		return 0;

err_entity:
	drm_sched_entity_destroy(&paging->entity);
err_engine:
	vdxg_engine_fini(&paging->engine);
err_staging:
	vdxg_pg_staging_fini(paging);
	return ret;
}

/**
 * vdxg_pg_queue_init - set up a queue of paging jobs
 * @vdxg: the device, with its paging engine running
 * @q: the queue
 *
 * Return: 0 or a negative errno.
 */
int vdxg_pg_queue_init(struct vdxg_device *vdxg, struct vdxg_pg_queue *q)
{
	struct drm_gpu_scheduler *sched = &vdxg->paging.engine.sched;

	atomic_set(&q->jobs, 0);
	return drm_sched_entity_init(&q->entity, DRM_SCHED_PRIORITY_NORMAL,
				     &sched, 1, NULL);
}

/**
 * vdxg_pg_queue_fini - tear a queue down
 * @q: the queue; the caller has waited for its last job's fence
 */
void vdxg_pg_queue_fini(struct vdxg_pg_queue *q)
{
	drm_sched_entity_destroy(&q->entity);
}

/**
 * vdxg_paging_unplug - stop the paging engine when the device goes away
 * @vdxg: the device
 *
 * What is on the ring fails with -ENODEV, and run_job queues nothing more
 * once drm_dev_unplug() has run. The scheduler, the device's queue and
 * the staging buffers stay until the DRM device is released: VMs of files
 * still open tear their own queues down on the scheduler when the files
 * close, and TTM's last moves and frees go through it too.
 */
void vdxg_paging_unplug(struct vdxg_device *vdxg)
{
	vdxg_engine_stop(&vdxg->paging.engine);
}
