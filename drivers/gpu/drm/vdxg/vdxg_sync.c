// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/dma-fence-chain.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include <drm/drm_syncobj.h>
#include <drm/gpu_scheduler.h>
#include <drm/vdxg_drm.h>

#include "vdxg_sync.h"

/**
 * DOC: syncobjs of an ioctl
 *
 * An ioctl that queues GPU work takes arrays of &struct drm_vdxg_sync: the
 * work waits for the in-syncobjs' fences and its fence goes into the
 * out-syncobjs, replacing a binary one's or added at a timeline point.
 * Everything that can fail is done before the work is queued: the arrays
 * are copied and checked, the out-syncobjs looked up and their timeline
 * points allocated.
 */

static void *vdxg_sync_copy(u64 uptr, u32 n, int *ret)
{
	struct drm_vdxg_sync *p;

	if (!n)
		return NULL;
	p = kvmalloc_array(n, sizeof(*p), GFP_KERNEL);
	if (!p) {
		*ret = -ENOMEM;
		return NULL;
	}
	if (copy_from_user(p, u64_to_user_ptr(uptr), (size_t)n * sizeof(*p))) {
		*ret = -EFAULT;
		kvfree(p);
		return NULL;
	}
	return p;
}

/**
 * vdxg_sync_args_copy - copy an ioctl's syncobj arrays
 * @s: the arguments; vdxg_sync_args_fini() frees them, also on error
 * @file: the file
 * @in: user pointer to the in-syncobjs
 * @num_in: how many
 * @out: user pointer to the out-syncobjs
 * @num_out: how many
 *
 * Return: 0, -E2BIG for more than DRM_VDXG_MAX_SYNCS of either, -EFAULT or
 * -ENOMEM.
 */
int vdxg_sync_args_copy(struct vdxg_sync_args *s, struct drm_file *file,
			u64 in, u32 num_in, u64 out, u32 num_out)
{
	int ret = 0;

	memset(s, 0, sizeof(*s));
	s->file = file;
	if (num_in > DRM_VDXG_MAX_SYNCS || num_out > DRM_VDXG_MAX_SYNCS)
		return -E2BIG;
	s->in = vdxg_sync_copy(in, num_in, &ret);
	if (ret)
		return ret;
	s->num_in = num_in;
	s->out = vdxg_sync_copy(out, num_out, &ret);
	if (ret)
		return ret;
	s->num_out = num_out;
	return 0;
}

/**
 * vdxg_sync_prepare_out - look up the out-syncobjs, allocate their points
 * @s: the arguments, with @s->out and @s->num_out set
 *
 * Return: 0, -EINVAL for non-zero flags, -ENOENT for an unknown syncobj,
 * or -ENOMEM.
 */
int vdxg_sync_prepare_out(struct vdxg_sync_args *s)
{
	u32 i;

	if (!s->num_out)
		return 0;
	s->out_syncobjs = kcalloc(s->num_out, sizeof(*s->out_syncobjs),
				  GFP_KERNEL);
	s->chains = kcalloc(s->num_out, sizeof(*s->chains), GFP_KERNEL);
	if (!s->out_syncobjs || !s->chains)
		return -ENOMEM;
	for (i = 0; i < s->num_out; i++) {
		if (s->out[i].flags)
			return -EINVAL;
		s->out_syncobjs[i] = drm_syncobj_find(s->file, s->out[i].handle);
		if (!s->out_syncobjs[i])
			return -ENOENT;
		if (s->out[i].point) {
			s->chains[i] = dma_fence_chain_alloc();
			if (!s->chains[i])
				return -ENOMEM;
		}
	}
	return 0;
}

/**
 * vdxg_sync_args_init - copy and check an ioctl's syncobjs, look up the
 * out-syncobjs
 * @s: the arguments; vdxg_sync_args_fini() frees them, also on error
 * @file: the file
 * @in: user pointer to the in-syncobjs
 * @num_in: how many
 * @out: user pointer to the out-syncobjs
 * @num_out: how many
 *
 * Return: 0, or an error of vdxg_sync_args_copy() or
 * vdxg_sync_prepare_out().
 */
int vdxg_sync_args_init(struct vdxg_sync_args *s, struct drm_file *file,
			u64 in, u32 num_in, u64 out, u32 num_out)
{
	return vdxg_sync_args_copy(s, file, in, num_in, out, num_out) ?:
	       vdxg_sync_prepare_out(s);
}

/**
 * vdxg_sync_add_deps - make a job wait for the in-syncobjs
 * @s: the arguments
 * @job: the job, initialised
 *
 * Return: 0, -EINVAL for non-zero flags, or the error of
 * drm_sched_job_add_syncobj_dependency().
 */
int vdxg_sync_add_deps(struct vdxg_sync_args *s, struct drm_sched_job *job)
{
	u32 i;
	int ret;

	for (i = 0; i < s->num_in; i++) {
		if (s->in[i].flags)
			return -EINVAL;
		ret = drm_sched_job_add_syncobj_dependency(job, s->file,
							   s->in[i].handle,
							   s->in[i].point);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * vdxg_sync_in_fences - collect the in-syncobjs' fences
 * @s: the arguments
 * @deps: an allocating xarray that receives a reference to each fence
 *
 * Return: 0, -EINVAL for non-zero flags, -ENOENT for an unknown syncobj
 * or a point with no fence, or -ENOMEM.
 */
int vdxg_sync_in_fences(struct vdxg_sync_args *s, struct xarray *deps)
{
	struct dma_fence *fence;
	u32 i, id;
	int ret;

	for (i = 0; i < s->num_in; i++) {
		if (s->in[i].flags)
			return -EINVAL;
		ret = drm_syncobj_find_fence(s->file, s->in[i].handle,
					     s->in[i].point, 0, &fence);
		if (ret)
			return ret;
		ret = xa_alloc(deps, &id, fence, xa_limit_32b, GFP_KERNEL);
		if (ret) {
			dma_fence_put(fence);
			return ret;
		}
	}
	return 0;
}

/**
 * vdxg_sync_signal - hand the work's fence to the out-syncobjs
 * @s: the arguments
 * @fence: the fence
 */
void vdxg_sync_signal(struct vdxg_sync_args *s, struct dma_fence *fence)
{
	u32 i;

	for (i = 0; i < s->num_out; i++) {
		if (s->chains[i]) {
			drm_syncobj_add_point(s->out_syncobjs[i], s->chains[i],
					      fence, s->out[i].point);
			s->chains[i] = NULL;
		} else {
			drm_syncobj_replace_fence(s->out_syncobjs[i], fence);
		}
	}
}

/**
 * vdxg_sync_args_fini - free what vdxg_sync_args_init() took
 * @s: the arguments
 */
void vdxg_sync_args_fini(struct vdxg_sync_args *s)
{
	u32 i;

	for (i = 0; s->out_syncobjs && i < s->num_out; i++)
		if (s->out_syncobjs[i])
			drm_syncobj_put(s->out_syncobjs[i]);
	for (i = 0; s->chains && i < s->num_out; i++)
		dma_fence_chain_free(s->chains[i]);
	kfree(s->chains);
	kfree(s->out_syncobjs);
	kvfree(s->out);
	kvfree(s->in);
}
