/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

#ifndef VDXG_SHADER_H
#define VDXG_SHADER_H

#include "util/list.h"

#include "vdxg_tgsi.h"

struct nir_shader;
struct tgsi_token;
struct pipe_resource;
struct pipe_screen;
struct vdxg_context;

/* A program uploaded for SET_SHADER. */
struct vdxg_shader_code {
   struct pipe_resource *rsc;
   uint32_t offset;
   uint32_t size;
};

/* A fragment program compiled for depth textures on some units. */
struct vdxg_fs_variant {
   struct list_head link;
   uint16_t depth_units;
   struct vdxg_shader_code code;
};

struct vdxg_fs {
   struct vdxg_program prog;       /* for colour textures only */
   struct vdxg_shader_code code;
   const struct tgsi_token *tokens; /* for the variants */
   struct list_head variants;
};

/* A vertex program linked to the varyings of some fragment program. */
struct vdxg_vs_variant {
   struct list_head link;
   unsigned num_varyings;
   struct vdxg_semantic varyings[8];
   struct vdxg_shader_code code;
};

struct vdxg_vs {
   struct vdxg_program prog;
   struct list_head variants;
};

char *vdxg_finalize_nir(struct pipe_screen *pscreen, struct nir_shader *s);
const struct vdxg_shader_code *vdxg_fs_code(struct vdxg_context *ctx,
                                            struct vdxg_fs *fs,
                                            uint16_t depth_units);
const struct vdxg_shader_code *vdxg_vs_code(struct vdxg_context *ctx,
                                            struct vdxg_vs *vs,
                                            const struct vdxg_fs *fs);
void vdxg_shader_init(struct pipe_context *pctx);

#endif
