/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

#include <unistd.h>

#include "util/u_blitter.h"
#include "util/u_framebuffer.h"
#include "util/u_inlines.h"
#include "util/u_memory.h"
#include "util/u_upload_mgr.h"

#include "vdxg_context.h"
#include "vdxg_fence.h"
#include "vdxg_resource.h"
#include "vdxg_screen.h"

static void
vdxg_pipe_flush(struct pipe_context *pctx, struct pipe_fence_handle **fence,
                unsigned flags)
{
   vdxg_flush(vdxg_context(pctx), fence, flags);
}

static void
vdxg_pipe_context_destroy(struct pipe_context *pctx)
{
   struct vdxg_context *ctx = vdxg_context(pctx);
   struct vdxg_screen *screen = ctx->screen;

   if (ctx->blitter)
      util_blitter_destroy(ctx->blitter);
   if (pctx->stream_uploader)
      u_upload_destroy(pctx->stream_uploader);
   if (pctx->const_uploader && pctx->const_uploader != pctx->stream_uploader)
      u_upload_destroy(pctx->const_uploader);

   util_unreference_framebuffer_state(&ctx->framebuffer);
   for (unsigned i = 0; i < ARRAY_SIZE(ctx->vertex_buffers); i++)
      pipe_vertex_buffer_unreference(&ctx->vertex_buffers[i]);
   for (unsigned i = 0; i < ARRAY_SIZE(ctx->views); i++)
      pipe_sampler_view_reference(&ctx->views[i], NULL);
   for (unsigned i = 0; i < ARRAY_SIZE(ctx->constbuf); i++)
      pipe_resource_reference(&ctx->constbuf[i].buffer, NULL);
   for (unsigned i = 0; i < ARRAY_SIZE(ctx->dummy_texture); i++)
      pipe_resource_reference(&ctx->dummy_texture[i], NULL);
   pipe_surface_reference(&ctx->scratch_rt, NULL);

   vdxg_batch_fini(ctx);
   if (ctx->ctx_id)
      vdxg_context_destroy(screen->dev, ctx->ctx_id);
   if (ctx->syncobj)
      vdxg_syncobj_destroy(screen->dev, ctx->syncobj);
   if (ctx->in_syncobj)
      vdxg_syncobj_destroy(screen->dev, ctx->in_syncobj);
   vdxg_timeline_reference(&ctx->timeline, NULL);
   if (ctx->in_fence_fd >= 0)
      close(ctx->in_fence_fd);
   if (ctx->last_fence_fd >= 0)
      close(ctx->last_fence_fd);
   slab_destroy_child(&ctx->transfer_pool);
   FREE(ctx);
}

/* The robustness API's view of the kernel's ban (GET_RESET_STATUS). */
static enum pipe_reset_status
vdxg_get_device_reset_status(struct pipe_context *pctx)
{
   struct vdxg_context *ctx = vdxg_context(pctx);
   struct drm_vdxg_reset_status status;

   if (vdxg_context_reset_status(ctx->screen->dev, ctx->ctx_id, &status))
      return ctx->lost ? PIPE_UNKNOWN_CONTEXT_RESET : PIPE_NO_RESET;
   if (status.flags & DRM_VDXG_RESET_BANNED) {
      ctx->lost = true;
      return PIPE_GUILTY_CONTEXT_RESET;
   }
   if (status.innocent)
      return PIPE_INNOCENT_CONTEXT_RESET;
   return ctx->lost ? PIPE_UNKNOWN_CONTEXT_RESET : PIPE_NO_RESET;
}

static void
vdxg_set_device_reset_callback(struct pipe_context *pctx,
                               const struct pipe_device_reset_callback *cb)
{
   struct vdxg_context *ctx = vdxg_context(pctx);

   if (cb)
      ctx->reset_callback = *cb;
   else
      memset(&ctx->reset_callback, 0, sizeof(ctx->reset_callback));
}

static bool
vdxg_context_kernel_init(struct vdxg_context *ctx, unsigned flags)
{
   struct vdxg_screen *screen = ctx->screen;
   uint32_t prio = DRM_VDXG_PRIORITY_NORMAL;
   int ret;

   if (flags & PIPE_CONTEXT_LOW_PRIORITY)
      prio = DRM_VDXG_PRIORITY_LOW;
   if (screen->model == VDXG_SUBMIT_EXEC)
      ret = vdxg_context_create_vm(screen->dev, prio, screen->vm_id,
                                   &ctx->ctx_id);
   else
      ret = vdxg_context_create(screen->dev, DRM_VDXG_ENGINE_RENDER, prio,
                                0, &ctx->ctx_id);
   if (ret)
      return false;
   if (vdxg_syncobj_create(screen->dev, 0, &ctx->syncobj) ||
       vdxg_syncobj_create(screen->dev, 0, &ctx->in_syncobj))
      return false;
   ctx->timeline = vdxg_timeline_create(screen);
   return ctx->timeline != NULL;
}

struct pipe_context *
vdxg_create_context(struct pipe_screen *pscreen, void *priv, unsigned flags)
{
   struct vdxg_screen *screen = vdxg_screen(pscreen);
   struct vdxg_context *ctx = CALLOC_STRUCT(vdxg_context);

   if (!ctx)
      return NULL;
   ctx->base.screen = pscreen;
   ctx->base.priv = priv;
   ctx->screen = screen;
   ctx->in_fence_fd = -1;
   ctx->last_fence_fd = -1;
   slab_create_child(&ctx->transfer_pool, &screen->transfer_pool);
   /* vdxg_batch_fini() walks it even when creation fails early. */
   list_inithead(&ctx->cmd_bufs);

   ctx->base.destroy = vdxg_pipe_context_destroy;
   ctx->base.flush = vdxg_pipe_flush;
   ctx->base.get_device_reset_status = vdxg_get_device_reset_status;
   ctx->base.set_device_reset_callback = vdxg_set_device_reset_callback;

   if (!vdxg_context_kernel_init(ctx, flags))
      goto fail;
   if (!vdxg_batch_init(ctx))
      goto fail;

   vdxg_resource_context_init(&ctx->base);
   vdxg_fence_context_init(&ctx->base);
   vdxg_state_init(&ctx->base);
   vdxg_draw_init(&ctx->base);
   vdxg_blit_init(&ctx->base);
   vdxg_query_init(&ctx->base);

   ctx->base.stream_uploader = u_upload_create_default(&ctx->base);
   if (!ctx->base.stream_uploader)
      goto fail;
   ctx->base.const_uploader = ctx->base.stream_uploader;

   ctx->blitter = util_blitter_create(&ctx->base);
   if (!ctx->blitter)
      goto fail;

   return &ctx->base;

fail:
   vdxg_pipe_context_destroy(&ctx->base);
   return NULL;
}
