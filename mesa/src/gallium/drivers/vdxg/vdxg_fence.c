/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

#include <unistd.h>

#include "util/libsync.h"
#include "util/os_file.h"
#include "util/os_time.h"
#include "util/u_atomic.h"
#include "util/u_inlines.h"
#include "util/u_memory.h"

#include "vdxg_context.h"
#include "vdxg_fence.h"
#include "vdxg_screen.h"

struct pipe_fence_handle *
vdxg_fence_create(int fd)
{
   struct pipe_fence_handle *fence = CALLOC_STRUCT(pipe_fence_handle);

   if (!fence) {
      if (fd >= 0)
         close(fd);
      return NULL;
   }
   pipe_reference_init(&fence->reference, 1);
   fence->fd = fd;
   return fence;
}

static void
vdxg_fence_destroy(struct pipe_fence_handle *fence)
{
   if (fence->fd >= 0)
      close(fence->fd);
   FREE(fence);
}

static void
vdxg_fence_reference(struct pipe_screen *pscreen,
                     struct pipe_fence_handle **ptr,
                     struct pipe_fence_handle *fence)
{
   if (pipe_reference(*ptr ? &(*ptr)->reference : NULL,
                      fence ? &fence->reference : NULL))
      vdxg_fence_destroy(*ptr);
   *ptr = fence;
}

struct vdxg_timeline *
vdxg_timeline_create(struct vdxg_screen *screen)
{
   struct vdxg_timeline *tl = CALLOC_STRUCT(vdxg_timeline);

   if (!tl)
      return NULL;
   if (vdxg_syncobj_create(screen->dev, 0, &tl->syncobj)) {
      FREE(tl);
      return NULL;
   }
   pipe_reference_init(&tl->reference, 1);
   tl->screen = screen;
   return tl;
}

void
vdxg_timeline_destroy(struct vdxg_timeline *tl)
{
   vdxg_syncobj_destroy(tl->screen->dev, tl->syncobj);
   FREE(tl);
}

/*
 * Has POINT of TL signalled? TIMEOUT_NS 0 asks without waiting (a query,
 * unless a point as late was seen signalled before); else it waits that
 * long at most.
 */
bool
vdxg_timeline_reached(struct vdxg_timeline *tl, uint64_t point,
                      int64_t timeout_ns)
{
   uint64_t value;

   if (point <= p_atomic_read(&tl->completed))
      return true;
   if (!timeout_ns) {
      if (vdxg_syncobj_query(tl->screen->dev, tl->syncobj, &value))
         return false;
   } else {
      if (vdxg_syncobj_wait(tl->screen->dev, &tl->syncobj, &point, 1,
                            vdxg_timeout_abs(timeout_ns), 0, NULL))
         return false;
      value = point;
   }
   /* A racing update may store an earlier point: still a true one. */
   if (value > p_atomic_read(&tl->completed))
      p_atomic_set(&tl->completed, value);
   return point <= value;
}

static bool
vdxg_fence_finish(struct pipe_screen *pscreen, struct pipe_context *pctx,
                  struct pipe_fence_handle *fence, uint64_t timeout)
{
   int ms;

   if (fence->fd < 0)
      return true;
   if (timeout == OS_TIMEOUT_INFINITE)
      ms = -1;
   else
      ms = MIN2(DIV_ROUND_UP(timeout, 1000000), INT32_MAX);
   return !sync_wait(fence->fd, ms);
}

static int
vdxg_fence_get_fd(struct pipe_screen *pscreen, struct pipe_fence_handle *fence)
{
   if (fence->fd < 0)
      return -1;
   return os_dupfd_cloexec(fence->fd);
}

static void
vdxg_create_fence_fd(struct pipe_context *pctx,
                     struct pipe_fence_handle **fence, int fd,
                     enum pipe_fd_type type)
{
   *fence = type == PIPE_FD_TYPE_NATIVE_SYNC ?
            vdxg_fence_create(os_dupfd_cloexec(fd)) : NULL;
}

/* The next submission waits for FENCE. */
static void
vdxg_fence_server_sync(struct pipe_context *pctx,
                       struct pipe_fence_handle *fence)
{
   struct vdxg_context *ctx = vdxg_context(pctx);

   if (fence->fd >= 0)
      sync_accumulate("vdxg", &ctx->in_fence_fd, fence->fd);
}

void
vdxg_fence_screen_init(struct pipe_screen *pscreen)
{
   pscreen->fence_reference = vdxg_fence_reference;
   pscreen->fence_finish = vdxg_fence_finish;
   pscreen->fence_get_fd = vdxg_fence_get_fd;
}

void
vdxg_fence_context_init(struct pipe_context *pctx)
{
   pctx->create_fence_fd = vdxg_create_fence_fd;
   pctx->fence_server_sync = vdxg_fence_server_sync;
}
