/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

/*
 * draw_vbo: the state a draw needs, emitted where it changed (the first
 * draw of a batch emits all of it), then DRAW or DRAW_INDEXED. Gallium's
 * primitive numbering is the device's for the seven primitives it draws.
 */

#include "util/format/u_format.h"
#include "util/log.h"
#include "util/u_helpers.h"
#include "util/u_inlines.h"
#include "util/u_memory.h"
#include "util/u_prim.h"
#include "util/u_upload_mgr.h"

#include "vdxg_context.h"
#include "vdxg_format.h"
#include "vdxg_resource.h"
#include "vdxg_screen.h"
#include "vdxg_shader.h"

static_assert(MESA_PRIM_TRIANGLE_FAN == VDXG_PRIM_TRIANGLE_FAN &&
              MESA_PRIM_LINE_LOOP == VDXG_PRIM_LINE_LOOP,
              "primitive numbering");

/* The most a draw emits, in dwords and in objects. */
#define VDXG_DRAW_DWORDS 400
#define VDXG_DRAW_BUFS   40

/* A 1x1 texture for units a program samples with nothing usable bound. */
static struct pipe_resource *
vdxg_dummy_texture(struct vdxg_context *ctx, bool cube)
{
   struct pipe_resource **slot = &ctx->dummy_texture[cube];
   struct pipe_resource templ = {
      .target = cube ? PIPE_TEXTURE_CUBE : PIPE_TEXTURE_2D,
      .format = PIPE_FORMAT_B8G8R8A8_UNORM,
      .width0 = 1,
      .height0 = 1,
      .depth0 = 1,
      .array_size = cube ? 6 : 1,
      .bind = PIPE_BIND_SAMPLER_VIEW,
   };

   if (!*slot)
      *slot = ctx->base.screen->resource_create(ctx->base.screen, &templ);
   return *slot;
}

/* The framebuffer's colour buffer, or a scratch one for depth-only. */
static struct pipe_surface *
vdxg_color_target(struct vdxg_context *ctx, bool *scratch)
{
   const struct pipe_framebuffer_state *fb = &ctx->framebuffer;
   struct pipe_resource templ = {
      .target = PIPE_TEXTURE_2D,
      .format = PIPE_FORMAT_B8G8R8X8_UNORM,
      .depth0 = 1,
      .array_size = 1,
      .bind = PIPE_BIND_RENDER_TARGET,
   };
   struct pipe_surface surf = {0};

   *scratch = false;
   if (fb->nr_cbufs && fb->cbufs[0])
      return fb->cbufs[0];
   if (!fb->zsbuf)
      return NULL;
   *scratch = true;
   if (ctx->scratch_rt && ctx->scratch_rt->width >= fb->width &&
       ctx->scratch_rt->height >= fb->height)
      return ctx->scratch_rt;
   pipe_surface_reference(&ctx->scratch_rt, NULL);
   templ.width0 = MAX2(fb->width, 1);
   templ.height0 = MAX2(fb->height, 1);
   struct pipe_resource *prsc =
      ctx->base.screen->resource_create(ctx->base.screen, &templ);
   if (!prsc)
      return NULL;
   surf.format = templ.format;
   ctx->scratch_rt = ctx->base.create_surface(&ctx->base, prsc, &surf);
   pipe_resource_reference(&prsc, NULL);
   return ctx->scratch_rt;
}

static void
vdxg_emit_surface(struct vdxg_context *ctx, uint32_t slot,
                  struct pipe_surface *psurf)
{
   struct vdxg_resource *rsc = vdxg_resource(psurf->texture);
   unsigned level = psurf->u.tex.level;

   vdxg_emit_set_surface(ctx, slot, rsc->buf,
                         vdxg_resource_image_offset(rsc, level,
                                                    psurf->u.tex.first_layer),
                         true, vdxg_format_hw(psurf->format), psurf->width,
                         psurf->height, vdxg_resource_pitch(rsc, level));
}

bool
vdxg_emit_framebuffer(struct vdxg_context *ctx)
{
   struct pipe_surface *cbuf = vdxg_color_target(ctx, &ctx->fb_scratch);

   if (!cbuf)
      return false;
   vdxg_emit_surface(ctx, VDXG_SLOT_DST, cbuf);
   if (ctx->framebuffer.zsbuf)
      vdxg_emit_surface(ctx, VDXG_SLOT_DEPTH, ctx->framebuffer.zsbuf);
   ctx->fb_has_depth = ctx->framebuffer.zsbuf != NULL;
   return true;
}

static uint32_t
vdxg_viewport_value(float v)
{
   return vdxg_f32_bits(CLAMP(v, -VDXG_3D_VIEWPORT_MAX,
                              VDXG_3D_VIEWPORT_MAX));
}

/* Registers 0x00 to 0x14: rasterizer, viewport, scissor, tests, blend. */
static void
vdxg_emit_fixed_state(struct vdxg_context *ctx)
{
   const struct vdxg_rasterizer_state *rast = ctx->rast;
   uint32_t regs[VDXG_3D_BLEND_COLOR(3) + 1] = {0};

   if (rast) {
      regs[VDXG_3D_RASTER] = rast->raster;
      regs[VDXG_3D_POINT_SIZE] = rast->point_size;
      regs[VDXG_3D_POLY_OFFSET_FACTOR] = rast->offset_factor;
      regs[VDXG_3D_POLY_OFFSET_UNITS] = rast->offset_units;
   } else {
      regs[VDXG_3D_POINT_SIZE] = vdxg_f32_bits(1.0f);
   }
   for (unsigned i = 0; i < 3; i++) {
      regs[VDXG_3D_VIEWPORT_SCALE(i)] =
         vdxg_viewport_value(ctx->viewport.scale[i]);
      regs[VDXG_3D_VIEWPORT_TRANSLATE(i)] =
         vdxg_viewport_value(ctx->viewport.translate[i]);
   }
   regs[VDXG_3D_SCISSOR_MIN] = VDXG_RD_XY(MIN2(ctx->scissor.minx, 8192),
                                          MIN2(ctx->scissor.miny, 8192));
   regs[VDXG_3D_SCISSOR_MAX] = VDXG_RD_XY(MIN2(ctx->scissor.maxx, 8192),
                                          MIN2(ctx->scissor.maxy, 8192));
   if (ctx->zsa && ctx->fb_has_depth) {
      regs[VDXG_3D_DEPTH] = ctx->zsa->regs[0];
      regs[VDXG_3D_STENCIL_FRONT] = ctx->zsa->regs[1];
      regs[VDXG_3D_STENCIL_BACK] = ctx->zsa->regs[2];
   }
   regs[VDXG_3D_STENCIL_REF] = ctx->stencil_ref.ref_value[0] |
                               ctx->stencil_ref.ref_value[1] << 8;
   if (ctx->fb_scratch)
      regs[VDXG_3D_BLEND] = VDXG_BLEND_WRITE_DISABLE(0xf);
   else if (ctx->blend)
      regs[VDXG_3D_BLEND] = ctx->blend->blend;
   for (unsigned i = 0; i < 4; i++)
      regs[VDXG_3D_BLEND_COLOR(i)] =
         vdxg_f32_bits(ctx->blend_color.color[i]);
   vdxg_emit_state(ctx, 0, regs, ARRAY_SIZE(regs));
}

/*
 * Vertex elements and buffers. Gallium gives each element its stride; the
 * device gives each buffer one: elements that read one buffer with two
 * strides get a buffer slot each.
 */
static void
vdxg_emit_vertex_input(struct vdxg_context *ctx)
{
   const struct vdxg_vertex_element_state *ve = ctx->velems;
   uint32_t regs[VDXG_3D_NUM_ELEMENTS] = {0};
   struct {
      unsigned vb;
      uint32_t stride;
   } slots[VDXG_3D_NUM_VBS];
   unsigned num_slots = 0;

   for (unsigned e = 0; ve && e < ve->num_elements; e++) {
      const struct pipe_vertex_element *pe = &ve->pipe[e];
      unsigned s;

      if (!ve->format[e] || pe->vertex_buffer_index >= ctx->num_vertex_buffers)
         continue;
      for (s = 0; s < num_slots; s++) {
         if (slots[s].vb == pe->vertex_buffer_index &&
             slots[s].stride == pe->src_stride)
            break;
      }
      if (s == num_slots) {
         if (num_slots == VDXG_3D_NUM_VBS || pe->src_stride >
             VDXG_3D_MAX_STRIDE)
            continue;
         slots[s].vb = pe->vertex_buffer_index;
         slots[s].stride = pe->src_stride;
         num_slots++;
      }
      regs[e] = VDXG_ELEMENT(ve->format[e], s, pe->src_offset);
   }
   vdxg_emit_state(ctx, VDXG_3D_ELEMENT(0), regs, ARRAY_SIZE(regs));

   for (unsigned s = 0; s < num_slots; s++) {
      const struct pipe_vertex_buffer *vb = &ctx->vertex_buffers[slots[s].vb];
      struct pipe_resource *prsc = vb->buffer.resource;

      if (!prsc || vb->is_user_buffer || vb->buffer_offset >= prsc->width0) {
         vdxg_emit_vertex_buffer(ctx, s, NULL, 0, 0, slots[s].stride);
         continue;
      }
      vdxg_emit_vertex_buffer(ctx, s, vdxg_resource(prsc)->buf,
                              vb->buffer_offset,
                              prsc->width0 - vb->buffer_offset,
                              slots[s].stride);
   }
}

static void
vdxg_emit_samplers(struct vdxg_context *ctx)
{
   uint32_t regs[VDXG_3D_NUM_UNITS] = {0};

   for (unsigned u = 0; u < ctx->num_samplers; u++) {
      if (ctx->samplers[u])
         regs[u] = ctx->samplers[u]->reg;
   }
   vdxg_emit_state(ctx, VDXG_3D_SAMPLER(0), regs, ARRAY_SIZE(regs));
}

/*
 * Every unit the fragment program samples gets a texture of its kind
 * (2D or cube), else DRAW faults: a view the device cannot sample is
 * replaced by a 1x1 texture.
 */
static void
vdxg_emit_textures(struct vdxg_context *ctx)
{
   const struct vdxg_program *fp = &ctx->fs->prog;

   for (unsigned u = 0; u < VDXG_3D_NUM_UNITS; u++) {
      struct vdxg_sampler_view *view =
         u < ctx->num_views ? vdxg_sampler_view(ctx->views[u]) : NULL;
      bool cube = fp->units_cube & (1 << u);
      struct pipe_resource *prsc;

      if (!(fp->units_used & (1 << u))) {
         if (view && view->desc)
            continue; /* left bound: the program does not read it */
         vdxg_emit_texture(ctx, u, NULL, 0, 0, 0, 0, 0);
         continue;
      }
      if (!view || !view->desc ||
          !!(view->desc & VDXG_TEX_CUBE) != cube) {
         prsc = vdxg_dummy_texture(ctx, cube);
         if (!prsc)
            continue;
         vdxg_emit_texture(ctx, u, vdxg_resource(prsc)->buf, 0,
                           vdxg_resource(prsc)->layout.size,
                           VDXG_TEX_DESC(VDXG_FMT_ARGB8888, 1, cube), 1, 1);
         continue;
      }
      prsc = view->base.texture;
      vdxg_emit_texture(ctx, u, vdxg_resource(prsc)->buf, view->offset,
                        view->size, view->desc, view->width, view->height);
   }
}

/*
 * A stage's constants: what its program reads (all of buffer 0 when it
 * indexes them), uploaded so that a short buffer reads as zeros.
 */
static void
vdxg_emit_stage_constants(struct vdxg_context *ctx, unsigned stage,
                          const struct vdxg_program *prog)
{
   const struct pipe_constant_buffer *cb = &ctx->constbuf[stage];
   unsigned have = cb->buffer_size / 16, count = prog->num_consts;
   struct pipe_resource *rsc = NULL;
   unsigned offset;
   void *ptr;

   if (prog->relative_consts)
      count = MAX2(count, have);
   count = MIN2(count, ctx->screen->max_constants);
   if (!count) {
      vdxg_emit_constants(ctx, stage, NULL, 0, 0);
      return;
   }
   if (cb->buffer && !cb->user_buffer && have >= count) {
      vdxg_emit_constants(ctx, stage, vdxg_resource(cb->buffer)->buf,
                          cb->buffer_offset, count);
      return;
   }
   u_upload_alloc(ctx->base.const_uploader, 0, count * 16, 16, &offset,
                  &rsc, &ptr);
   if (!rsc)
      return;
   memset(ptr, 0, count * 16);
   if (cb->user_buffer)
      memcpy(ptr, cb->user_buffer, MIN2(have, count) * 16);
   else if (cb->buffer)
      pipe_buffer_read(&ctx->base, cb->buffer, cb->buffer_offset,
                       MIN2(have, count) * 16, ptr);
   vdxg_emit_constants(ctx, stage, vdxg_resource(rsc)->buf, offset, count);
   pipe_resource_reference(&rsc, NULL);
}

/* What the units the fragment program samples hold: depth or colour. */
static uint16_t
vdxg_depth_units(struct vdxg_context *ctx)
{
   uint16_t key = 0;

   u_foreach_bit (u, ctx->fs->prog.units_used) {
      struct vdxg_sampler_view *view =
         u < ctx->num_views ? vdxg_sampler_view(ctx->views[u]) : NULL;

      if (view && view->desc)
         key |= view->depth << (2 * u);
   }
   return key;
}

static bool
vdxg_emit_programs(struct vdxg_context *ctx)
{
   const struct vdxg_shader_code *vs = vdxg_vs_code(ctx, ctx->vs, ctx->fs);
   const struct vdxg_shader_code *fs =
      vdxg_fs_code(ctx, ctx->fs, ctx->fs_depth_units);

   if (!vs || !fs)
      return false;
   vdxg_emit_shader(ctx, VDXG_3D_STAGE_VERTEX, vdxg_resource(vs->rsc)->buf,
                    vs->offset, vs->size);
   vdxg_emit_shader(ctx, VDXG_3D_STAGE_FRAGMENT,
                    vdxg_resource(fs->rsc)->buf, fs->offset, fs->size);
   return true;
}

/* Emit what changed; false when the draw cannot be made. */
static bool
vdxg_emit_draw_state(struct vdxg_context *ctx)
{
   uint32_t dirty = ctx->dirty;

   if ((dirty & VDXG_DIRTY_FRAMEBUFFER) && !vdxg_emit_framebuffer(ctx))
      return false;
   if (dirty & (VDXG_DIRTY_FRAMEBUFFER | VDXG_DIRTY_RASTER |
                VDXG_DIRTY_VIEWPORT | VDXG_DIRTY_SCISSOR | VDXG_DIRTY_ZSA |
                VDXG_DIRTY_STENCIL_REF | VDXG_DIRTY_BLEND |
                VDXG_DIRTY_BLEND_COLOR))
      vdxg_emit_fixed_state(ctx);
   if (dirty & (VDXG_DIRTY_VERTEX_ELEMENTS | VDXG_DIRTY_VERTEX_BUFFERS))
      vdxg_emit_vertex_input(ctx);
   if (dirty & VDXG_DIRTY_SAMPLERS)
      vdxg_emit_samplers(ctx);
   if (dirty & (VDXG_DIRTY_TEXTURES | VDXG_DIRTY_PROGRAMS)) {
      uint16_t depth_units = vdxg_depth_units(ctx);

      vdxg_emit_textures(ctx);
      if (depth_units != ctx->fs_depth_units) {
         ctx->fs_depth_units = depth_units;
         dirty |= VDXG_DIRTY_PROGRAMS;
      }
   }
   if ((dirty & VDXG_DIRTY_PROGRAMS) && !vdxg_emit_programs(ctx))
      return false;
   if (dirty & (VDXG_DIRTY_VS_CONSTANTS | VDXG_DIRTY_PROGRAMS))
      vdxg_emit_stage_constants(ctx, 0, &ctx->vs->prog);
   if (dirty & (VDXG_DIRTY_FS_CONSTANTS | VDXG_DIRTY_PROGRAMS))
      vdxg_emit_stage_constants(ctx, 1, &ctx->fs->prog);
   ctx->dirty = 0;
   return true;
}

static void
vdxg_draw_vbo(struct pipe_context *pctx, const struct pipe_draw_info *info,
              unsigned drawid_offset,
              const struct pipe_draw_indirect_info *indirect,
              const struct pipe_draw_start_count_bias *draws,
              unsigned num_draws)
{
   struct vdxg_context *ctx = vdxg_context(pctx);

   if (ctx->lost || indirect || !ctx->vs || !ctx->fs ||
       info->mode > MESA_PRIM_TRIANGLE_FAN)
      return;

   for (unsigned i = 0; i < num_draws; i++) {
      struct pipe_resource *index = NULL;
      unsigned count = draws[i].count, offset = 0, first = draws[i].start;

      if (!u_trim_pipe_prim(info->mode, &count))
         continue;
      if (info->index_size && info->has_user_indices) {
         /* Each draw's indices, uploaded from its first on. */
         if (!util_upload_index_buffer(pctx, info, &draws[i], &index,
                                       &offset, 4))
            return;
         first = 0;
      } else if (info->index_size) {
         pipe_resource_reference(&index, info->index.resource);
      }
      vdxg_batch_reserve(ctx, VDXG_DRAW_DWORDS, VDXG_DRAW_BUFS);
      if (!vdxg_emit_draw_state(ctx)) {
         pipe_resource_reference(&index, NULL);
         return;
      }
      if (info->index_size) {
         vdxg_emit_index_buffer(ctx, vdxg_resource(index)->buf, offset,
                                index->width0 - offset, info->index_size);
         vdxg_emit_draw_indexed(ctx, info->mode, first, count,
                                draws[i].index_bias);
      } else {
         vdxg_emit_draw(ctx, info->mode, first, count);
      }
      pipe_resource_reference(&index, NULL);
   }
}

void
vdxg_draw_init(struct pipe_context *pctx)
{
   pctx->draw_vbo = vdxg_draw_vbo;
}
