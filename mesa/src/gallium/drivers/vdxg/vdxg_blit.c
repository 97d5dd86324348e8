/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

/*
 * Clears with the 3D pipeline's CLEAR; copies and unscaled blits between
 * colour surfaces with the 2D engine's COPY_RECT; everything else through
 * util_blitter's draws, and buffers by the CPU.
 */

#include "util/format/u_format.h"
#include "util/log.h"
#include "util/u_blitter.h"
#include "util/u_inlines.h"
#include "util/u_surface.h"

#include "vdxg_context.h"
#include "vdxg_format.h"
#include "vdxg_resource.h"
#include "vdxg_screen.h"

void
vdxg_blitter_save(struct vdxg_context *ctx)
{
   struct blitter_context *b = ctx->blitter;

   util_blitter_save_vertex_buffers(b, ctx->vertex_buffers,
                                    ctx->num_vertex_buffers);
   util_blitter_save_vertex_elements(b, ctx->velems);
   util_blitter_save_vertex_shader(b, ctx->vs);
   util_blitter_save_rasterizer(b, ctx->rast);
   util_blitter_save_viewport(b, &ctx->viewport);
   util_blitter_save_scissor(b, &ctx->scissor);
   util_blitter_save_fragment_shader(b, ctx->fs);
   util_blitter_save_blend(b, ctx->blend);
   util_blitter_save_depth_stencil_alpha(b, ctx->zsa);
   util_blitter_save_stencil_ref(b, &ctx->stencil_ref);
   util_blitter_save_fragment_constant_buffer_slot(b, ctx->constbuf);
   util_blitter_save_framebuffer(b, &ctx->framebuffer);
   util_blitter_save_fragment_sampler_states(b, ctx->num_samplers,
                                             (void **)ctx->samplers);
   util_blitter_save_fragment_sampler_views(b, ctx->num_views, ctx->views);
}

static void
vdxg_clear(struct pipe_context *pctx, unsigned buffers,
           const struct pipe_scissor_state *scissor,
           const union pipe_color_union *color, double depth,
           unsigned stencil)
{
   struct vdxg_context *ctx = vdxg_context(pctx);
   const struct pipe_framebuffer_state *fb = &ctx->framebuffer;
   uint32_t flags = 0, x = 0, y = 0, w = fb->width, h = fb->height;

   if (ctx->lost)
      return;
   vdxg_batch_reserve(ctx, 64, 4);
   /* The next draw binds the framebuffer again (and its tests). */
   if ((ctx->dirty & VDXG_DIRTY_FRAMEBUFFER) && !vdxg_emit_framebuffer(ctx))
      return;

   if ((buffers & PIPE_CLEAR_COLOR0) && !ctx->fb_scratch)
      flags |= VDXG_CLEAR_COLOR;
   if (fb->zsbuf) {
      const struct vdxg_format *f = vdxg_format(fb->zsbuf->format);

      if (buffers & PIPE_CLEAR_DEPTH)
         flags |= VDXG_CLEAR_DEPTH;
      if ((buffers & PIPE_CLEAR_STENCIL) && f && f->stencil)
         flags |= VDXG_CLEAR_STENCIL;
   }
   if (scissor) {
      x = scissor->minx;
      y = scissor->miny;
      w = scissor->maxx > x ? scissor->maxx - x : 0;
      h = scissor->maxy > y ? scissor->maxy - y : 0;
   }
   if (flags && w && h)
      vdxg_emit_clear(ctx, flags, x, y, w, h, color->f, depth,
                      stencil & 0xff);
}

/* Clear SURF alone: bind it, clear, and bind the framebuffer back later. */
static void
vdxg_clear_surface(struct vdxg_context *ctx, struct pipe_surface *surf,
                   uint32_t slot, uint32_t flags, const float *rgba,
                   double depth, unsigned stencil, unsigned x, unsigned y,
                   unsigned w, unsigned h)
{
   struct vdxg_resource *rsc = vdxg_resource(surf->texture);
   unsigned level = surf->u.tex.level;

   if (ctx->lost || !w || !h)
      return;
   vdxg_batch_reserve(ctx, 64, 4);
   vdxg_emit_set_surface(ctx, slot, rsc->buf,
                         vdxg_resource_image_offset(rsc, level,
                                                    surf->u.tex.first_layer),
                         true, vdxg_format_hw(surf->format), surf->width,
                         surf->height, vdxg_resource_pitch(rsc, level));
   vdxg_emit_clear(ctx, flags, x, y, w, h, rgba, depth, stencil & 0xff);
   ctx->dirty |= VDXG_DIRTY_FRAMEBUFFER;
}

static void
vdxg_clear_render_target(struct pipe_context *pctx, struct pipe_surface *dst,
                         const union pipe_color_union *color, unsigned x,
                         unsigned y, unsigned w, unsigned h,
                         bool render_condition_enabled)
{
   struct vdxg_context *ctx = vdxg_context(pctx);
   const struct vdxg_format *f = vdxg_format(dst->format);

   if (f && f->render)
      vdxg_clear_surface(ctx, dst, VDXG_SLOT_DST, VDXG_CLEAR_COLOR, color->f,
                         0, 0, x, y, w, h);
}

static void
vdxg_clear_depth_stencil(struct pipe_context *pctx, struct pipe_surface *dst,
                         unsigned buffers, double depth, unsigned stencil,
                         unsigned x, unsigned y, unsigned w, unsigned h,
                         bool render_condition_enabled)
{
   struct vdxg_context *ctx = vdxg_context(pctx);
   const struct vdxg_format *f = vdxg_format(dst->format);
   uint32_t flags = 0;

   if (!f || !f->depth)
      return;
   if (buffers & PIPE_CLEAR_DEPTH)
      flags |= VDXG_CLEAR_DEPTH;
   if ((buffers & PIPE_CLEAR_STENCIL) && f->stencil)
      flags |= VDXG_CLEAR_STENCIL;
   if (flags)
      vdxg_clear_surface(ctx, dst, VDXG_SLOT_DEPTH, flags, NULL, depth,
                         stencil, x, y, w, h);
}

/* Bind (level, layer) of RSC to SLOT as a SET_SURFACE colour surface. */
static void
vdxg_bind_copy_surface(struct vdxg_context *ctx, uint32_t slot,
                       struct pipe_resource *prsc, enum pipe_format format,
                       unsigned level, unsigned layer, bool write)
{
   struct vdxg_resource *rsc = vdxg_resource(prsc);

   vdxg_emit_set_surface(ctx, slot, rsc->buf,
                         vdxg_resource_image_offset(rsc, level, layer), write,
                         vdxg_format_hw(format), u_minify(prsc->width0, level),
                         u_minify(prsc->height0, level),
                         vdxg_resource_pitch(rsc, level));
}

static bool
vdxg_copy_rect_ok(struct pipe_resource *prsc, enum pipe_format format)
{
   const struct vdxg_format *f = vdxg_format(format);

   return prsc->target != PIPE_BUFFER && f && f->render &&
          !(vdxg_debug & VDXG_DEBUG_NOCOPY);
}

/* COPY_RECT of BOX's image in SRC to (DX, DY) in DST, layer by layer. */
void
vdxg_copy_rect(struct vdxg_context *ctx, struct pipe_resource *dst,
               enum pipe_format dst_format, unsigned dst_level, unsigned dx,
               unsigned dy, unsigned dz, struct pipe_resource *src,
               enum pipe_format src_format, unsigned src_level,
               const struct pipe_box *box)
{
   for (int z = 0; z < box->depth; z++) {
      vdxg_batch_reserve(ctx, 32, 2);
      vdxg_bind_copy_surface(ctx, VDXG_SLOT_SRC, src, src_format, src_level,
                             box->z + z, false);
      vdxg_bind_copy_surface(ctx, VDXG_SLOT_DST, dst, dst_format, dst_level,
                             dz + z, true);
      vdxg_emit_copy_rect(ctx, box->x, box->y, dx, dy, box->width,
                          box->height);
   }
   ctx->dirty |= VDXG_DIRTY_FRAMEBUFFER;
}

static void
vdxg_resource_copy_region(struct pipe_context *pctx, struct pipe_resource *dst,
                          unsigned dst_level, unsigned dstx, unsigned dsty,
                          unsigned dstz, struct pipe_resource *src,
                          unsigned src_level, const struct pipe_box *src_box)
{
   struct vdxg_context *ctx = vdxg_context(pctx);

   if (ctx->lost)
      return;
   /* A raw copy: COPY_RECT keeps the bits between surfaces of one format. */
   if (dst->format == src->format && vdxg_copy_rect_ok(dst, dst->format) &&
       vdxg_copy_rect_ok(src, src->format) &&
       !util_format_has_alpha(dst->format) == !util_format_has_alpha(src->format) &&
       dst->format != PIPE_FORMAT_B8G8R8X8_UNORM) {
      vdxg_copy_rect(ctx, dst, dst->format, dst_level, dstx, dsty, dstz, src,
                     src->format, src_level, src_box);
      return;
   }
   util_resource_copy_region(pctx, dst, dst_level, dstx, dsty, dstz, src,
                             src_level, src_box);
}

static bool
vdxg_blit_copy_rect(struct vdxg_context *ctx, const struct pipe_blit_info *b)
{
   if (b->mask != PIPE_MASK_RGBA || b->scissor_enable ||
       b->render_condition_enable || b->alpha_blend || b->swizzle_enable ||
       b->src.box.width != b->dst.box.width ||
       b->src.box.height != b->dst.box.height ||
       b->src.box.depth != b->dst.box.depth || b->src.box.width <= 0 ||
       b->src.box.height <= 0 || b->src.box.x < 0 || b->src.box.y < 0 ||
       b->dst.box.x < 0 || b->dst.box.y < 0 ||
       !vdxg_copy_rect_ok(b->src.resource, b->src.format) ||
       !vdxg_copy_rect_ok(b->dst.resource, b->dst.format))
      return false;
   vdxg_copy_rect(ctx, b->dst.resource, b->dst.format, b->dst.level,
                  b->dst.box.x, b->dst.box.y, b->dst.box.z, b->src.resource,
                  b->src.format, b->src.level, &b->src.box);
   return true;
}

static void
vdxg_blit(struct pipe_context *pctx, const struct pipe_blit_info *info)
{
   struct vdxg_context *ctx = vdxg_context(pctx);

   if (ctx->lost)
      return;
   if (vdxg_blit_copy_rect(ctx, info))
      return;
   if (!util_blitter_is_blit_supported(ctx->blitter, info)) {
      mesa_logw_once("vdxg: blit %s -> %s not supported",
                     util_format_short_name(info->src.format),
                     util_format_short_name(info->dst.format));
      return;
   }
   vdxg_blitter_save(ctx);
   util_blitter_blit(ctx->blitter, info, NULL);
}

void
vdxg_blit_init(struct pipe_context *pctx)
{
   pctx->clear = vdxg_clear;
   pctx->clear_render_target = vdxg_clear_render_target;
   pctx->clear_depth_stencil = vdxg_clear_depth_stencil;
   pctx->resource_copy_region = vdxg_resource_copy_region;
   pctx->blit = vdxg_blit;
}
