// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/dma-fence-chain.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include <drm/drm_syncobj.h>
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
	u32 i;

	if (!n)
		return NULL;
	p = kvmalloc_array(n, sizeof(*p), GFP_KERNEL);
	if (!p) {
		*ret = -ENOMEM;
		return NULL;
	}
	if (copy_from_user(p, u64_to_user_ptr(uptr), (size_t)n * sizeof(*p))) {
		*ret = -EFAULT;
		goto err;
	}
	for (i = 0; i < n; i++) {
		if (p[i].flags) {
			*ret = -EINVAL;
			goto err;
		}
	}
	return p;
err:
	kvfree(p);
	return NULL;
}

/**
 * vdxg_sync_args_init - copy, check and look up an ioctl's syncobjs
 * @s: the arguments; vdxg_sync_args_fini() frees them, also on error
 * @file: the file
 * @in: user pointer to the in-syncobjs
 * @num_in: how many
 * @out: user pointer to the out-syncobjs
 * @num_out: how many
 *
 * Return: 0, -E2BIG for more than DRM_VDXG_MAX_SYNCS of either, -EFAULT,
 * -EINVAL for non-zero flags, -ENOENT for an unknown out-syncobj, or
 * -ENOMEM.
 */
int vdxg_sync_args_init(struct vdxg_sync_args *s, struct drm_file *file,
			u64 in, u32 num_in, u64 out, u32 num_out)
{
	int ret = 0;
	u32 i;

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
	if (!num_out)
		return 0;

	s->out_syncobjs = kcalloc(num_out, sizeof(*s->out_syncobjs),
				  GFP_KERNEL);
	s->chains = kcalloc(num_out, sizeof(*s->chains), GFP_KERNEL);
	if (!s->out_syncobjs || !s->chains)
		return -ENOMEM;
	for (i = 0; i < num_out; i++) {
		s->out_syncobjs[i] = drm_syncobj_find(file, s->out[i].handle);
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
 * vdxg_sync_in_fences - collect the in-syncobjs' fences
 * @s: the arguments
 * @deps: an allocating xarray that receives a reference to each fence
 *
 * Return: 0, -ENOENT for an unknown syncobj or a point with no fence, or
 * -ENOMEM.
 */
int vdxg_sync_in_fences(struct vdxg_sync_args *s, struct xarray *deps)
{
	struct dma_fence *fence;
	u32 i, id;
	int ret;

	for (i = 0; i < s->num_in; i++) {
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
