/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

/*
 * State objects: each CSO is turned into the device's register values
 * when it is created (docs/hardware.md, "State"), so that binding one is
 * a pointer and a dirty bit. Gallium's comparison functions, stencil
 * operations and blend equations have the device's numbering.
 */

#include "util/format/u_format.h"
#include "util/u_helpers.h"
#include "util/u_inlines.h"
#include "util/u_framebuffer.h"
#include "util/u_memory.h"

#include "vdxg_context.h"
#include "vdxg_format.h"
#include "vdxg_resource.h"
#include "vdxg_shader.h"

static_assert(PIPE_FUNC_LESS == VDXG_FUNC_LESS &&
              PIPE_FUNC_ALWAYS == VDXG_FUNC_ALWAYS,
              "comparison functions");
static_assert(PIPE_STENCIL_OP_INVERT == VDXG_SOP_INVERT &&
              PIPE_STENCIL_OP_INCR_WRAP == VDXG_SOP_INCR_WRAP,
              "stencil operations");
static_assert(PIPE_BLEND_MAX == VDXG_BLEQ_MAX, "blend equations");

static uint32_t
vdxg_blend_factor(enum pipe_blendfactor f)
{
   switch (f) {
   case PIPE_BLENDFACTOR_ONE: return VDXG_BLF_ONE;
   case PIPE_BLENDFACTOR_SRC_COLOR: return VDXG_BLF_SRC_COLOR;
   case PIPE_BLENDFACTOR_SRC_ALPHA: return VDXG_BLF_SRC_ALPHA;
   case PIPE_BLENDFACTOR_DST_ALPHA: return VDXG_BLF_DST_ALPHA;
   case PIPE_BLENDFACTOR_DST_COLOR: return VDXG_BLF_DST_COLOR;
   case PIPE_BLENDFACTOR_SRC_ALPHA_SATURATE:
      return VDXG_BLF_SRC_ALPHA_SATURATE;
   case PIPE_BLENDFACTOR_CONST_COLOR: return VDXG_BLF_CONST_COLOR;
   case PIPE_BLENDFACTOR_CONST_ALPHA: return VDXG_BLF_CONST_ALPHA;
   case PIPE_BLENDFACTOR_INV_SRC_COLOR: return VDXG_BLF_ONE_MINUS_SRC_COLOR;
   case PIPE_BLENDFACTOR_INV_SRC_ALPHA: return VDXG_BLF_ONE_MINUS_SRC_ALPHA;
   case PIPE_BLENDFACTOR_INV_DST_ALPHA: return VDXG_BLF_ONE_MINUS_DST_ALPHA;
   case PIPE_BLENDFACTOR_INV_DST_COLOR: return VDXG_BLF_ONE_MINUS_DST_COLOR;
   case PIPE_BLENDFACTOR_INV_CONST_COLOR:
      return VDXG_BLF_ONE_MINUS_CONST_COLOR;
   case PIPE_BLENDFACTOR_INV_CONST_ALPHA:
      return VDXG_BLF_ONE_MINUS_CONST_ALPHA;
   default: /* ZERO, and the dual-source factors the caps do not offer */
      return VDXG_BLF_ZERO;
   }
}

static void *
vdxg_create_blend_state(struct pipe_context *pctx,
                        const struct pipe_blend_state *cso)
{
   struct vdxg_blend_state *so = CALLOC_STRUCT(vdxg_blend_state);
   const struct pipe_rt_blend_state *rt = &cso->rt[0];
   uint32_t disable = 0;

   if (!so)
      return NULL;
   so->base = *cso;
   if (!(rt->colormask & PIPE_MASK_R))
      disable |= 1;
   if (!(rt->colormask & PIPE_MASK_G))
      disable |= 2;
   if (!(rt->colormask & PIPE_MASK_B))
      disable |= 4;
   if (!(rt->colormask & PIPE_MASK_A))
      disable |= 8;
   so->blend = VDXG_BLEND_WRITE_DISABLE(disable);
   if (rt->blend_enable)
      so->blend |= VDXG_BLEND_ENABLE | VDXG_BLEND_RGB_EQ(rt->rgb_func) |
                   VDXG_BLEND_RGB_SRC(vdxg_blend_factor(rt->rgb_src_factor)) |
                   VDXG_BLEND_RGB_DST(vdxg_blend_factor(rt->rgb_dst_factor)) |
                   VDXG_BLEND_A_EQ(rt->alpha_func) |
                   VDXG_BLEND_A_SRC(vdxg_blend_factor(rt->alpha_src_factor)) |
                   VDXG_BLEND_A_DST(vdxg_blend_factor(rt->alpha_dst_factor));
   return so;
}

static void
vdxg_bind_blend_state(struct pipe_context *pctx, void *hwcso)
{
   struct vdxg_context *ctx = vdxg_context(pctx);

   ctx->blend = hwcso;
   ctx->dirty |= VDXG_DIRTY_BLEND;
}

static void
vdxg_delete_state(struct pipe_context *pctx, void *hwcso)
{
   FREE(hwcso);
}

static void *
vdxg_create_rasterizer_state(struct pipe_context *pctx,
                             const struct pipe_rasterizer_state *cso)
{
   struct vdxg_rasterizer_state *so = CALLOC_STRUCT(vdxg_rasterizer_state);

   if (!so)
      return NULL;
   so->base = *cso;
   if (cso->cull_face & PIPE_FACE_FRONT)
      so->raster |= VDXG_RASTER_CULL_FRONT;
   if (cso->cull_face & PIPE_FACE_BACK)
      so->raster |= VDXG_RASTER_CULL_BACK;
   /*
    * The device calls a triangle counter-clockwise by its window
    * coordinates, y down, as Gallium does.
    */
   if (!cso->front_ccw)
      so->raster |= VDXG_RASTER_FRONT_CW;
   if (cso->scissor)
      so->raster |= VDXG_RASTER_SCISSOR;
   if (cso->offset_tri)
      so->raster |= VDXG_RASTER_POLY_OFFSET;
   if (cso->sprite_coord_mode == PIPE_SPRITE_COORD_LOWER_LEFT)
      so->raster |= VDXG_RASTER_SPRITE_LOWER_LEFT;
   so->point_size = vdxg_f32_bits(CLAMP(cso->point_size, 1.0f,
                                        VDXG_3D_POINT_SIZE_MAX));
   so->offset_factor = vdxg_f32_bits(cso->offset_scale);
   so->offset_units = vdxg_f32_bits(cso->offset_units);
   return so;
}

static void
vdxg_bind_rasterizer_state(struct pipe_context *pctx, void *hwcso)
{
   struct vdxg_context *ctx = vdxg_context(pctx);

   ctx->rast = hwcso;
   ctx->dirty |= VDXG_DIRTY_RASTER | VDXG_DIRTY_SCISSOR;
}

static uint32_t
vdxg_stencil(const struct pipe_stencil_state *s)
{
   if (!s->enabled)
      return 0;
   return VDXG_STENCIL_TEST | VDXG_STENCIL_FUNC(s->func) |
          VDXG_STENCIL_FAIL_OP(s->fail_op) |
          VDXG_STENCIL_ZFAIL_OP(s->zfail_op) |
          VDXG_STENCIL_ZPASS_OP(s->zpass_op) |
          VDXG_STENCIL_VALUE_MASK(s->valuemask) |
          VDXG_STENCIL_WRITE_MASK(s->writemask);
}

static void *
vdxg_create_zsa_state(struct pipe_context *pctx,
                      const struct pipe_depth_stencil_alpha_state *cso)
{
   struct vdxg_zsa_state *so = CALLOC_STRUCT(vdxg_zsa_state);

   if (!so)
      return NULL;
   so->base = *cso;
   if (cso->depth_enabled)
      so->regs[0] = VDXG_DEPTH_TEST | VDXG_DEPTH_FUNC(cso->depth_func) |
                    (cso->depth_writemask ? VDXG_DEPTH_WRITE : 0);
   so->regs[1] = vdxg_stencil(&cso->stencil[0]);
   /* TWO_SIDED is STENCIL_BACK's bit 0, which is also its TEST bit. */
   if (cso->stencil[0].enabled && cso->stencil[1].enabled)
      so->regs[2] = vdxg_stencil(&cso->stencil[1]);
   return so;
}

static void
vdxg_bind_zsa_state(struct pipe_context *pctx, void *hwcso)
{
   struct vdxg_context *ctx = vdxg_context(pctx);

   ctx->zsa = hwcso;
   ctx->dirty |= VDXG_DIRTY_ZSA;
}

static uint32_t
vdxg_wrap(enum pipe_tex_wrap wrap)
{
   switch (wrap) {
   case PIPE_TEX_WRAP_REPEAT:
      return VDXG_WRAP_REPEAT;
   case PIPE_TEX_WRAP_MIRROR_REPEAT:
      return VDXG_WRAP_MIRROR;
   default: /* the clamps: GLES 2.0 has clamp to edge only */
      return VDXG_WRAP_CLAMP;
   }
}

static void *
vdxg_create_sampler_state(struct pipe_context *pctx,
                          const struct pipe_sampler_state *cso)
{
   struct vdxg_sampler_state *so = CALLOC_STRUCT(vdxg_sampler_state);

   if (!so)
      return NULL;
   so->base = *cso;
   if (cso->mag_img_filter == PIPE_TEX_FILTER_LINEAR)
      so->reg |= VDXG_SAMPLER_MAG_LINEAR;
   if (cso->min_img_filter == PIPE_TEX_FILTER_LINEAR)
      so->reg |= VDXG_SAMPLER_MIN_LINEAR;
   switch (cso->min_mip_filter) {
   case PIPE_TEX_MIPFILTER_NEAREST:
      so->reg |= VDXG_SAMPLER_MIP(VDXG_MIP_NEAREST);
      break;
   case PIPE_TEX_MIPFILTER_LINEAR:
      so->reg |= VDXG_SAMPLER_MIP(VDXG_MIP_LINEAR);
      break;
   default:
      break;
   }
   so->reg |= VDXG_SAMPLER_WRAP_S(vdxg_wrap(cso->wrap_s)) |
              VDXG_SAMPLER_WRAP_T(vdxg_wrap(cso->wrap_t));
   return so;
}

static void
vdxg_bind_sampler_states(struct pipe_context *pctx,
                         enum pipe_shader_type shader, unsigned start,
                         unsigned num, void **hwcso)
{
   struct vdxg_context *ctx = vdxg_context(pctx);
   unsigned last = 0;

   if (shader != PIPE_SHADER_FRAGMENT)
      return;
   for (unsigned i = 0; i < num && start + i < VDXG_3D_NUM_UNITS; i++)
      ctx->samplers[start + i] = hwcso ? hwcso[i] : NULL;
   for (unsigned i = 0; i < VDXG_3D_NUM_UNITS; i++) {
      if (ctx->samplers[i])
         last = i + 1;
   }
   ctx->num_samplers = last;
   ctx->dirty |= VDXG_DIRTY_SAMPLERS;
}

static void *
vdxg_create_vertex_elements_state(struct pipe_context *pctx, unsigned num,
                                  const struct pipe_vertex_element *elements)
{
   struct vdxg_vertex_element_state *so =
      CALLOC_STRUCT(vdxg_vertex_element_state);

   if (!so)
      return NULL;
   so->num_elements = MIN2(num, VDXG_3D_NUM_ELEMENTS);
   for (unsigned i = 0; i < so->num_elements; i++) {
      so->pipe[i] = elements[i];
      /* is_format_supported() let u_vbuf translate the others. */
      so->format[i] = vdxg_vertex_format(elements[i].src_format);
   }
   return so;
}

static void
vdxg_bind_vertex_elements_state(struct pipe_context *pctx, void *hwcso)
{
   struct vdxg_context *ctx = vdxg_context(pctx);

   ctx->velems = hwcso;
   ctx->dirty |= VDXG_DIRTY_VERTEX_ELEMENTS | VDXG_DIRTY_VERTEX_BUFFERS;
}

static void
vdxg_set_vertex_buffers(struct pipe_context *pctx, unsigned count,
                        const struct pipe_vertex_buffer *vb)
{
   struct vdxg_context *ctx = vdxg_context(pctx);

   util_set_vertex_buffers_count(ctx->vertex_buffers, &ctx->num_vertex_buffers,
                                 vb, count, true);
   ctx->dirty |= VDXG_DIRTY_VERTEX_BUFFERS;
}

static void
vdxg_set_constant_buffer(struct pipe_context *pctx,
                         enum pipe_shader_type shader, uint index,
                         bool take_ownership,
                         const struct pipe_constant_buffer *cb)
{
   struct vdxg_context *ctx = vdxg_context(pctx);
   unsigned stage = shader == PIPE_SHADER_VERTEX ? 0 : 1;

   if (index || shader > PIPE_SHADER_FRAGMENT ||
       (shader != PIPE_SHADER_VERTEX && shader != PIPE_SHADER_FRAGMENT))
      return;
   util_copy_constant_buffer(&ctx->constbuf[stage], cb, take_ownership);
   ctx->dirty |= stage ? VDXG_DIRTY_FS_CONSTANTS : VDXG_DIRTY_VS_CONSTANTS;
}

static void
vdxg_set_framebuffer_state(struct pipe_context *pctx,
                           const struct pipe_framebuffer_state *fb)
{
   struct vdxg_context *ctx = vdxg_context(pctx);

   util_copy_framebuffer_state(&ctx->framebuffer, fb);
   ctx->dirty |= VDXG_DIRTY_FRAMEBUFFER | VDXG_DIRTY_ZSA;
}

static void
vdxg_set_viewport_states(struct pipe_context *pctx, unsigned start,
                         unsigned num, const struct pipe_viewport_state *vp)
{
   struct vdxg_context *ctx = vdxg_context(pctx);

   ctx->viewport = vp[0];
   ctx->dirty |= VDXG_DIRTY_VIEWPORT;
}

static void
vdxg_set_scissor_states(struct pipe_context *pctx, unsigned start,
                        unsigned num, const struct pipe_scissor_state *s)
{
   struct vdxg_context *ctx = vdxg_context(pctx);

   ctx->scissor = s[0];
   ctx->dirty |= VDXG_DIRTY_SCISSOR;
}

static void
vdxg_set_blend_color(struct pipe_context *pctx,
                     const struct pipe_blend_color *color)
{
   struct vdxg_context *ctx = vdxg_context(pctx);

   ctx->blend_color = *color;
   ctx->dirty |= VDXG_DIRTY_BLEND_COLOR;
}

static void
vdxg_set_stencil_ref(struct pipe_context *pctx,
                     const struct pipe_stencil_ref ref)
{
   struct vdxg_context *ctx = vdxg_context(pctx);

   ctx->stencil_ref = ref;
   ctx->dirty |= VDXG_DIRTY_STENCIL_REF;
}

static void
vdxg_set_sample_mask(struct pipe_context *pctx, unsigned mask)
{
}

static void
vdxg_set_clip_state(struct pipe_context *pctx,
                    const struct pipe_clip_state *clip)
{
}

static void
vdxg_set_polygon_stipple(struct pipe_context *pctx,
                         const struct pipe_poly_stipple *stipple)
{
}

static struct pipe_sampler_view *
vdxg_create_sampler_view(struct pipe_context *pctx, struct pipe_resource *prsc,
                         const struct pipe_sampler_view *templ)
{
   struct vdxg_sampler_view *so = CALLOC_STRUCT(vdxg_sampler_view);
   struct vdxg_resource *rsc = vdxg_resource(prsc);
   unsigned first = templ->u.tex.first_level;
   unsigned last = MIN2(templ->u.tex.last_level, prsc->last_level);
   const struct vdxg_format *f = vdxg_format(templ->format);

   if (!so)
      return NULL;
   so->base = *templ;
   so->base.texture = NULL;
   pipe_resource_reference(&so->base.texture, prsc);
   pipe_reference_init(&so->base.reference, 1);
   so->base.context = pctx;

   /*
    * SET_TEXTURE names the levels from FIRST on, which the device lays
    * out as a texture of their own would be; a view of a format the
    * device does not sample, or of an import with another pitch, binds
    * nothing (draws then skip: see vdxg_emit_textures).
    */
   if (f && f->texture && !rsc->foreign_pitch && last >= first &&
       prsc->target != PIPE_BUFFER) {
      so->width = u_minify(prsc->width0, first);
      so->height = u_minify(prsc->height0, first);
      so->desc = VDXG_TEX_DESC(f->tex_hw, last - first + 1,
                               prsc->target == PIPE_TEXTURE_CUBE);
      so->depth = f->depth_tex;
      so->offset = vdxg_resource_image_offset(rsc, first, 0);
      so->size = rsc->layout.size - rsc->layout.level[first].offset;
   }
   return &so->base;
}

static void
vdxg_sampler_view_destroy(struct pipe_context *pctx,
                          struct pipe_sampler_view *view)
{
   pipe_resource_reference(&view->texture, NULL);
   FREE(view);
}

static void
vdxg_set_sampler_views(struct pipe_context *pctx,
                       enum pipe_shader_type shader, unsigned start,
                       unsigned num, unsigned unbind_trailing,
                       bool take_ownership, struct pipe_sampler_view **views)
{
   struct vdxg_context *ctx = vdxg_context(pctx);
   unsigned last = 0;

   if (shader != PIPE_SHADER_FRAGMENT)
      return;
   for (unsigned i = 0; i < num + unbind_trailing; i++) {
      unsigned u = start + i;
      struct pipe_sampler_view *view = i < num && views ? views[i] : NULL;

      if (u >= VDXG_3D_NUM_UNITS)
         break;
      if (take_ownership) {
         pipe_sampler_view_reference(&ctx->views[u], NULL);
         ctx->views[u] = view;
      } else {
         pipe_sampler_view_reference(&ctx->views[u], view);
      }
   }
   for (unsigned i = 0; i < VDXG_3D_NUM_UNITS; i++) {
      if (ctx->views[i])
         last = i + 1;
   }
   ctx->num_views = last;
   ctx->dirty |= VDXG_DIRTY_TEXTURES;
}

void
vdxg_state_init(struct pipe_context *pctx)
{
   pctx->create_blend_state = vdxg_create_blend_state;
   pctx->bind_blend_state = vdxg_bind_blend_state;
   pctx->delete_blend_state = vdxg_delete_state;
   pctx->create_rasterizer_state = vdxg_create_rasterizer_state;
   pctx->bind_rasterizer_state = vdxg_bind_rasterizer_state;
   pctx->delete_rasterizer_state = vdxg_delete_state;
   pctx->create_depth_stencil_alpha_state = vdxg_create_zsa_state;
   pctx->bind_depth_stencil_alpha_state = vdxg_bind_zsa_state;
   pctx->delete_depth_stencil_alpha_state = vdxg_delete_state;
   pctx->create_sampler_state = vdxg_create_sampler_state;
   pctx->bind_sampler_states = vdxg_bind_sampler_states;
   pctx->delete_sampler_state = vdxg_delete_state;
   pctx->create_vertex_elements_state = vdxg_create_vertex_elements_state;
   pctx->bind_vertex_elements_state = vdxg_bind_vertex_elements_state;
   pctx->delete_vertex_elements_state = vdxg_delete_state;
   pctx->set_vertex_buffers = vdxg_set_vertex_buffers;
   pctx->set_constant_buffer = vdxg_set_constant_buffer;
   pctx->set_framebuffer_state = vdxg_set_framebuffer_state;
   pctx->set_viewport_states = vdxg_set_viewport_states;
   pctx->set_scissor_states = vdxg_set_scissor_states;
   pctx->set_blend_color = vdxg_set_blend_color;
   pctx->set_stencil_ref = vdxg_set_stencil_ref;
   pctx->set_sample_mask = vdxg_set_sample_mask;
   pctx->set_clip_state = vdxg_set_clip_state;
   pctx->set_polygon_stipple = vdxg_set_polygon_stipple;
   pctx->create_sampler_view = vdxg_create_sampler_view;
   pctx->sampler_view_destroy = vdxg_sampler_view_destroy;
   pctx->set_sampler_views = vdxg_set_sampler_views;
   vdxg_shader_init(pctx);
}
