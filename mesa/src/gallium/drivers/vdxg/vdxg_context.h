/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

#ifndef VDXG_CONTEXT_H
#define VDXG_CONTEXT_H

#include "pipe/p_context.h"
#include "pipe/p_state.h"
#include "util/list.h"
#include "util/set.h"
#include "util/slab.h"

#include "vdxg_hw_defs.h"

struct blitter_context;
struct vdxg_buf;
struct vdxg_fs;
struct vdxg_timeline;
struct vdxg_vs;

/* What a draw must emit again (vdxg_emit_state). */
enum vdxg_dirty {
   VDXG_DIRTY_FRAMEBUFFER = 1 << 0,
   VDXG_DIRTY_RASTER = 1 << 1,
   VDXG_DIRTY_VIEWPORT = 1 << 2,
   VDXG_DIRTY_SCISSOR = 1 << 3,
   VDXG_DIRTY_ZSA = 1 << 4,
   VDXG_DIRTY_STENCIL_REF = 1 << 5,
   VDXG_DIRTY_BLEND = 1 << 6,
   VDXG_DIRTY_BLEND_COLOR = 1 << 7,
   VDXG_DIRTY_VERTEX_ELEMENTS = 1 << 8,
   VDXG_DIRTY_VERTEX_BUFFERS = 1 << 9,
   VDXG_DIRTY_SAMPLERS = 1 << 10,
   VDXG_DIRTY_TEXTURES = 1 << 11,
   VDXG_DIRTY_PROGRAMS = 1 << 12,
   VDXG_DIRTY_VS_CONSTANTS = 1 << 13,
   VDXG_DIRTY_FS_CONSTANTS = 1 << 14,
   VDXG_DIRTY_ALL = (1 << 15) - 1,
};

struct vdxg_rasterizer_state {
   struct pipe_rasterizer_state base;
   uint32_t raster;        /* VDXG_3D_RASTER */
   uint32_t point_size;    /* f32 bits */
   uint32_t offset_factor; /* f32 bits */
   uint32_t offset_units;  /* f32 bits */
};

struct vdxg_zsa_state {
   struct pipe_depth_stencil_alpha_state base;
   uint32_t regs[3]; /* DEPTH, STENCIL_FRONT, STENCIL_BACK */
};

struct vdxg_blend_state {
   struct pipe_blend_state base;
   uint32_t blend; /* VDXG_3D_BLEND */
};

struct vdxg_sampler_state {
   struct pipe_sampler_state base;
   uint32_t reg; /* VDXG_3D_SAMPLER(u) */
};

struct vdxg_vertex_element_state {
   unsigned num_elements;
   struct pipe_vertex_element pipe[PIPE_MAX_ATTRIBS];
   uint32_t format[PIPE_MAX_ATTRIBS]; /* VDXG_VFMT */
   uint16_t strides[PIPE_MAX_ATTRIBS];
};

struct vdxg_sampler_view {
   struct pipe_sampler_view base;
   uint32_t desc; /* SET_TEXTURE's dword 5 */
   uint8_t depth; /* VDXG_TGSI_DEPTH*: a depth texture */
   uint32_t width, height;
   uint64_t offset, size; /* of the first level used, in its object */
};

static inline struct vdxg_sampler_view *
vdxg_sampler_view(struct pipe_sampler_view *pview)
{
   return (struct vdxg_sampler_view *)pview;
}

/*
 * One command buffer being recorded, by either model: in the EXEC model
 * straight into a GPU object the context's VM maps (vcs); in the patch
 * model into libvdxg's builder, which records the allocation list and the
 * patch locations (cs). bufs holds a reference to every object (or
 * suballocated entry: vdxg_suballoc.c) the commands name, until
 * submission.
 */
struct vdxg_batch {
   struct vdxg_cmd_buf *cmd; /* EXEC: the command buffer object */
   struct vdxg_vcs vcs;
   struct vdxg_cs *cs;   /* patch model */
   struct set *bufs;
   uint32_t capacity;    /* dwords */
   unsigned num_draws;
};

/*
 * A command buffer object of the EXEC model, kept for reuse once the
 * context's timeline has reached the point of its last submission (0:
 * none).
 */
struct vdxg_cmd_buf {
   struct list_head link;
   struct vdxg_buf *buf;
   uint64_t point;
};

struct vdxg_context {
   struct pipe_context base;
   struct vdxg_screen *screen;
   struct blitter_context *blitter;
   struct slab_child_pool transfer_pool;

   uint32_t ctx_id;          /* the kernel's context */
   uint32_t syncobj;         /* receives each submission's fence */
   struct vdxg_timeline *timeline; /* and its point: vdxg_fence.h */
   uint32_t in_syncobj;      /* holds in_fence_fd for a submission */
   int in_fence_fd;          /* fence_server_sync's, for the next batch */
   int last_fence_fd;        /* the last submission's sync file, or -1 */
   bool lost;                /* banned: every call is a no-op */
   struct pipe_device_reset_callback reset_callback;

   struct vdxg_batch batch;
   struct list_head cmd_bufs; /* free and busy command buffer objects */

   /* Bound state. */
   uint32_t dirty;
   struct pipe_framebuffer_state framebuffer;
   struct vdxg_rasterizer_state *rast;
   struct vdxg_zsa_state *zsa;
   struct vdxg_blend_state *blend;
   struct vdxg_vertex_element_state *velems;
   struct vdxg_vs *vs;
   struct vdxg_fs *fs;
   struct pipe_viewport_state viewport;
   struct pipe_scissor_state scissor;
   struct pipe_blend_color blend_color;
   struct pipe_stencil_ref stencil_ref;
   struct pipe_vertex_buffer vertex_buffers[PIPE_MAX_ATTRIBS];
   unsigned num_vertex_buffers;
   struct vdxg_sampler_state *samplers[VDXG_3D_NUM_UNITS];
   unsigned num_samplers;
   struct pipe_sampler_view *views[VDXG_3D_NUM_UNITS];
   unsigned num_views;
   struct pipe_constant_buffer constbuf[2]; /* vertex, fragment */

   /* Stand-ins: 1x1 textures (2D, cube), a colour buffer for depth-only. */
   struct pipe_resource *dummy_texture[2];
   struct pipe_surface *scratch_rt;
   bool fb_scratch;   /* DST is scratch_rt: colour writes are off */
   bool fb_has_depth;
   uint16_t fs_depth_units; /* the fragment code bound: vdxg_fs_code() */
};

static inline struct vdxg_context *
vdxg_context(struct pipe_context *pctx)
{
   return (struct vdxg_context *)pctx;
}

struct pipe_context *vdxg_create_context(struct pipe_screen *pscreen,
                                         void *priv, unsigned flags);

/* vdxg_batch.c */
bool vdxg_batch_init(struct vdxg_context *ctx);
void vdxg_batch_fini(struct vdxg_context *ctx);
void vdxg_batch_reserve(struct vdxg_context *ctx, uint32_t dwords,
                        unsigned bufs);
bool vdxg_batch_references(struct vdxg_context *ctx, struct vdxg_buf *buf);
void vdxg_flush(struct vdxg_context *ctx, struct pipe_fence_handle **fence,
                unsigned flags);
void vdxg_emit_set_surface(struct vdxg_context *ctx, uint32_t slot,
                           struct vdxg_buf *buf, uint64_t offset, bool write,
                           uint32_t format, uint32_t width, uint32_t height,
                           uint32_t pitch);
void vdxg_emit_state(struct vdxg_context *ctx, uint32_t first,
                     const uint32_t *values, uint32_t n);
void vdxg_emit_shader(struct vdxg_context *ctx, uint32_t stage,
                      struct vdxg_buf *buf, uint64_t offset, uint32_t size);
void vdxg_emit_constants(struct vdxg_context *ctx, uint32_t stage,
                         struct vdxg_buf *buf, uint64_t offset,
                         uint32_t count);
void vdxg_emit_vertex_buffer(struct vdxg_context *ctx, uint32_t index,
                             struct vdxg_buf *buf, uint64_t offset,
                             uint32_t size, uint32_t stride);
void vdxg_emit_index_buffer(struct vdxg_context *ctx, struct vdxg_buf *buf,
                            uint64_t offset, uint32_t size,
                            uint32_t index_size);
void vdxg_emit_texture(struct vdxg_context *ctx, uint32_t unit,
                       struct vdxg_buf *buf, uint64_t offset, uint32_t size,
                       uint32_t desc, uint32_t width, uint32_t height);
void vdxg_emit_draw(struct vdxg_context *ctx, uint32_t prim, uint32_t first,
                    uint32_t count);
void vdxg_emit_draw_indexed(struct vdxg_context *ctx, uint32_t prim,
                            uint32_t first, uint32_t count, int32_t bias);
void vdxg_emit_clear(struct vdxg_context *ctx, uint32_t flags, uint32_t x,
                     uint32_t y, uint32_t w, uint32_t h, const float *rgba,
                     float depth, uint32_t stencil);
void vdxg_emit_copy_rect(struct vdxg_context *ctx, uint32_t sx, uint32_t sy,
                         uint32_t dx, uint32_t dy, uint32_t w, uint32_t h);

/* vdxg_state.c, vdxg_draw.c, vdxg_blit.c, vdxg_query.c */
bool vdxg_emit_framebuffer(struct vdxg_context *ctx);
void vdxg_copy_rect(struct vdxg_context *ctx, struct pipe_resource *dst,
                    enum pipe_format dst_format, unsigned dst_level,
                    unsigned dx, unsigned dy, unsigned dz,
                    struct pipe_resource *src, enum pipe_format src_format,
                    unsigned src_level, const struct pipe_box *box);
void vdxg_state_init(struct pipe_context *pctx);
void vdxg_draw_init(struct pipe_context *pctx);
void vdxg_blit_init(struct pipe_context *pctx);
void vdxg_query_init(struct pipe_context *pctx);
void vdxg_blitter_save(struct vdxg_context *ctx);

#endif
