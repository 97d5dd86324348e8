/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */
#ifndef _VDXG_SYNC_H_
#define _VDXG_SYNC_H_

#include <linux/types.h>

struct dma_fence;
struct dma_fence_chain;
struct drm_file;
struct drm_sched_job;
struct drm_syncobj;
struct drm_vdxg_sync;
struct xarray;

/**
 * struct vdxg_sync_args - an ioctl's in- and out-syncobjs
 * @file: the file whose handles they are
 * @in: the in-syncobjs, copied
 * @out: the out-syncobjs, copied
 * @num_in: entries in @in
 * @num_out: entries in @out
 * @out_syncobjs: @out looked up
 * @chains: a timeline point preallocated for each @out with a point
 */
struct vdxg_sync_args {
	struct drm_file *file;
	struct drm_vdxg_sync *in;
	struct drm_vdxg_sync *out;
	u32 num_in;
	u32 num_out;
	struct drm_syncobj **out_syncobjs;
	struct dma_fence_chain **chains;
};

int vdxg_sync_args_copy(struct vdxg_sync_args *s, struct drm_file *file,
			u64 in, u32 num_in, u64 out, u32 num_out);
int vdxg_sync_prepare_out(struct vdxg_sync_args *s);
int vdxg_sync_args_init(struct vdxg_sync_args *s, struct drm_file *file,
			u64 in, u32 num_in, u64 out, u32 num_out);
int vdxg_sync_add_deps(struct vdxg_sync_args *s, struct drm_sched_job *job);
int vdxg_sync_in_fences(struct vdxg_sync_args *s, struct xarray *deps);
void vdxg_sync_signal(struct vdxg_sync_args *s, struct dma_fence *fence);
void vdxg_sync_args_fini(struct vdxg_sync_args *s);

#endif
