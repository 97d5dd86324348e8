/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

#ifndef VDXG_FENCE_H
#define VDXG_FENCE_H

#include "pipe/p_state.h"

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

struct pipe_fence_handle *vdxg_fence_create(int fd);
void vdxg_fence_screen_init(struct pipe_screen *pscreen);
void vdxg_fence_context_init(struct pipe_context *pctx);

#endif
