/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

#ifndef VDXG_FENCE_H
#define VDXG_FENCE_H

#include "pipe/p_state.h"
#include "util/u_inlines.h"

struct vdxg_screen;

/*
 * A fence is a sync_file: the export of the syncobj a submission
 * signalled, so that it is also the native fence fd EGL hands out
 * (EGL_ANDROID_native_fence_sync) and KMS takes as an IN_FENCE_FD. -1 is
 * a fence that has signalled (nothing was submitted).
 */
struct pipe_fence_handle {
   struct pipe_reference reference;
   int fd;
};

/*
 * A context's submissions in order: each also signals the next point of
 * a timeline syncobj of the context's, so that what a batch used records
 * a point, and whether it has signalled costs one query
 * (DRM_IOCTL_SYNCOBJ_QUERY), no wait and no file. A context's jobs run
 * in order: a point signals after every earlier one. The timeline
 * outlives its context while a buffer names one of its points.
 */
struct vdxg_timeline {
   struct pipe_reference reference;
   struct vdxg_screen *screen;
   uint32_t syncobj;
   uint64_t submitted; /* the last point a submission signals */
   uint64_t completed; /* a point seen signalled (every earlier one too) */
};

struct vdxg_timeline *vdxg_timeline_create(struct vdxg_screen *screen);
void vdxg_timeline_destroy(struct vdxg_timeline *tl);
bool vdxg_timeline_reached(struct vdxg_timeline *tl, uint64_t point,
                           int64_t timeout_ns);

static inline void
vdxg_timeline_reference(struct vdxg_timeline **dst, struct vdxg_timeline *src)
{
   struct vdxg_timeline *old = *dst;

   if (pipe_reference(old ? &old->reference : NULL,
                      src ? &src->reference : NULL))
      vdxg_timeline_destroy(old);
   *dst = src;
}

struct pipe_fence_handle *vdxg_fence_create(int fd);
void vdxg_fence_screen_init(struct pipe_screen *pscreen);
void vdxg_fence_context_init(struct pipe_context *pctx);

#endif
