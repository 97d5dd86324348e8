/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

/*
 * Shaders: NIR to TGSI (nir_to_tgsi, for a driver without integers), TGSI
 * to the device's ISA (vdxg_tgsi.c), uploaded once for SET_SHADER. A
 * vertex program's varyings are placed at link time, when it meets a
 * fragment program: each such pair has its own vertex code.
 */

#include <stdio.h>
#include <stdlib.h>

#include "compiler/nir/nir.h"
#include "nir/nir_to_tgsi.h"
#include "tgsi/tgsi_dump.h"
#include "tgsi/tgsi_parse.h"
#include "util/log.h"
#include "util/u_inlines.h"
#include "util/u_memory.h"
#include "util/u_upload_mgr.h"

#include "vdxg_context.h"
#include "vdxg_screen.h"
#include "vdxg_shader.h"

static void
vdxg_optimize_nir(struct nir_shader *s)
{
   bool progress;

   do {
      progress = false;
      NIR_PASS_V(s, nir_lower_vars_to_ssa);
      NIR_PASS(progress, s, nir_copy_prop);
      NIR_PASS(progress, s, nir_opt_algebraic);
      NIR_PASS(progress, s, nir_opt_constant_folding);
      NIR_PASS(progress, s, nir_opt_remove_phis);
      NIR_PASS(progress, s, nir_opt_dce);
      NIR_PASS(progress, s, nir_opt_dead_cf);
      NIR_PASS(progress, s, nir_opt_cse);
      NIR_PASS(progress, s, nir_opt_if, nir_opt_if_optimize_phi_true_false);
      NIR_PASS(progress, s, nir_opt_peephole_select, 8, true, true);
      NIR_PASS(progress, s, nir_opt_loop);
      NIR_PASS(progress, s, nir_opt_undef);
      NIR_PASS(progress, s, nir_opt_loop_unroll);
   } while (progress);
}

char *
vdxg_finalize_nir(struct pipe_screen *pscreen, struct nir_shader *s)
{
   vdxg_optimize_nir(s);
   NIR_PASS_V(s, nir_remove_dead_variables, nir_var_function_temp, NULL);

   /* As i915g: keep samplers, drop uniforms that hold storage. */
   nir_remove_dead_derefs(s);
   nir_foreach_uniform_variable_safe (var, s) {
      if (var->data.mode == nir_var_uniform &&
          (glsl_type_get_image_count(var->type) ||
           glsl_type_get_sampler_count(var->type)))
         continue;
      exec_node_remove(&var->node);
   }
   nir_sweep(s);
   return NULL;
}

static const struct nir_to_tgsi_options vdxg_ntt_options = {
   .lower_fabs = false,
};

/* TGSI from the CSO's NIR (consumed) or a copy of its tokens. */
static const struct tgsi_token *
vdxg_shader_tokens(struct pipe_context *pctx,
                   const struct pipe_shader_state *cso)
{
   if (cso->type == PIPE_SHADER_IR_NIR) {
      if (vdxg_debug & VDXG_DEBUG_SHADERS)
         nir_print_shader(cso->ir.nir, stderr);
      return nir_to_tgsi_options(cso->ir.nir, pctx->screen,
                                 &vdxg_ntt_options);
   }
   return tgsi_dup_tokens(cso->tokens);
}

static bool
vdxg_shader_upload(struct vdxg_context *ctx, const uint32_t *dw,
                   uint32_t size, struct vdxg_shader_code *code)
{
   unsigned offset;

   u_upload_data(ctx->base.stream_uploader, 0, size, 64, dw, &offset,
                 &code->rsc);
   if (!code->rsc)
      return false;
   code->offset = offset;
   code->size = size;
   return true;
}

static void
vdxg_shader_dump(const struct vdxg_program *prog, const uint32_t *dw)
{
   char *text = NULL;

   if (!vdxg_disasm(dw, prog->size, &text, NULL, 0) && text)
      fprintf(stderr, "vdxg code (%u bytes):\n%s\n", prog->size, text);
   free(text);
}

/*
 * The CSO's program, or false with the reason reported; *TOKENS_OUT, if
 * not NULL, keeps the TGSI for variants.
 */
static bool
vdxg_shader_compile(struct pipe_context *pctx,
                    const struct pipe_shader_state *cso,
                    struct vdxg_program *prog,
                    const struct tgsi_token **tokens_out)
{
   const struct tgsi_token *tokens = vdxg_shader_tokens(pctx, cso);
   char error[160];
   int ret;

   if (!tokens)
      return false;
   if (vdxg_debug & VDXG_DEBUG_SHADERS)
      tgsi_dump(tokens, 0);
   ret = vdxg_tgsi_compile(tokens, prog, error, sizeof(error));
   if (tokens_out && !ret)
      *tokens_out = tokens;
   else
      FREE((void *)tokens);
   if (ret) {
      mesa_loge("vdxg: shader not compiled: %s", error);
      if (cso->report_compile_error)
         ((struct pipe_shader_state *)cso)->error_message = strdup(error);
      return false;
   }
   if (vdxg_debug & VDXG_DEBUG_SHADERS)
      vdxg_shader_dump(prog, prog->dw);
   return true;
}

static void *
vdxg_create_fs_state(struct pipe_context *pctx,
                     const struct pipe_shader_state *cso)
{
   struct vdxg_fs *fs = CALLOC_STRUCT(vdxg_fs);

   if (!fs)
      return NULL;
   list_inithead(&fs->variants);
   if (!vdxg_shader_compile(pctx, cso, &fs->prog, &fs->tokens))
      goto fail;
   if (!vdxg_shader_upload(vdxg_context(pctx), fs->prog.dw, fs->prog.size,
                           &fs->code))
      goto fail;
   return fs;

fail:
   FREE((void *)fs->tokens);
   vdxg_program_fini(&fs->prog);
   FREE(fs);
   return NULL;
}

static void
vdxg_delete_fs_state(struct pipe_context *pctx, void *hwcso)
{
   struct vdxg_fs *fs = hwcso;

   list_for_each_entry_safe (struct vdxg_fs_variant, v, &fs->variants,
                             link) {
      pipe_resource_reference(&v->code.rsc, NULL);
      FREE(v);
   }
   FREE((void *)fs->tokens);
   pipe_resource_reference(&fs->code.rsc, NULL);
   vdxg_program_fini(&fs->prog);
   FREE(fs);
}

static void
vdxg_bind_fs_state(struct pipe_context *pctx, void *hwcso)
{
   struct vdxg_context *ctx = vdxg_context(pctx);

   ctx->fs = hwcso;
   ctx->dirty |= VDXG_DIRTY_PROGRAMS | VDXG_DIRTY_FS_CONSTANTS |
                 VDXG_DIRTY_TEXTURES;
}

static void *
vdxg_create_vs_state(struct pipe_context *pctx,
                     const struct pipe_shader_state *cso)
{
   struct vdxg_vs *vs = CALLOC_STRUCT(vdxg_vs);

   if (!vs)
      return NULL;
   list_inithead(&vs->variants);
   if (!vdxg_shader_compile(pctx, cso, &vs->prog, NULL)) {
      FREE(vs);
      return NULL;
   }
   return vs;
}

static void
vdxg_delete_vs_state(struct pipe_context *pctx, void *hwcso)
{
   struct vdxg_vs *vs = hwcso;

   list_for_each_entry_safe (struct vdxg_vs_variant, v, &vs->variants,
                             link) {
      pipe_resource_reference(&v->code.rsc, NULL);
      FREE(v);
   }
   vdxg_program_fini(&vs->prog);
   FREE(vs);
}

static void
vdxg_bind_vs_state(struct pipe_context *pctx, void *hwcso)
{
   struct vdxg_context *ctx = vdxg_context(pctx);

   ctx->vs = hwcso;
   ctx->dirty |= VDXG_DIRTY_PROGRAMS | VDXG_DIRTY_VS_CONSTANTS |
                 VDXG_DIRTY_RASTER;
}

/* FS's code with depth textures on DEPTH_UNITS: found, or compiled. */
const struct vdxg_shader_code *
vdxg_fs_code(struct vdxg_context *ctx, struct vdxg_fs *fs,
             uint16_t depth_units)
{
   struct vdxg_program prog;
   struct vdxg_fs_variant *v;
   char error[160];

   if (!depth_units)
      return &fs->code;
   list_for_each_entry (struct vdxg_fs_variant, it, &fs->variants, link) {
      if (it->depth_units == depth_units)
         return &it->code;
   }
   v = CALLOC_STRUCT(vdxg_fs_variant);
   if (!v)
      return NULL;
   if (vdxg_tgsi_compile_depth(fs->tokens, depth_units, &prog, error,
                               sizeof(error))) {
      mesa_loge("vdxg: shader not compiled for depth textures: %s", error);
      FREE(v);
      return NULL;
   }
   if (!vdxg_shader_upload(ctx, prog.dw, prog.size, &v->code)) {
      vdxg_program_fini(&prog);
      FREE(v);
      return NULL;
   }
   if (vdxg_debug & VDXG_DEBUG_SHADERS)
      vdxg_shader_dump(&prog, prog.dw);
   vdxg_program_fini(&prog);
   v->depth_units = depth_units;
   list_add(&v->link, &fs->variants);
   return &v->code;
}

/* VS's code linked to FS's varyings: found, or linked and uploaded. */
const struct vdxg_shader_code *
vdxg_vs_code(struct vdxg_context *ctx, struct vdxg_vs *vs,
             const struct vdxg_fs *fs)
{
   const struct vdxg_program *fp = &fs->prog;
   struct vdxg_vs_variant *v;
   uint32_t *dw;

   list_for_each_entry (struct vdxg_vs_variant, it, &vs->variants, link) {
      if (it->num_varyings == fp->num_varyings &&
          !memcmp(it->varyings, fp->varyings,
                  fp->num_varyings * sizeof(fp->varyings[0])))
         return &it->code;
   }

   v = CALLOC_STRUCT(vdxg_vs_variant);
   if (!v)
      return NULL;
   dw = vdxg_tgsi_link(&vs->prog, fp->varyings, fp->num_varyings);
   if (!dw || !vdxg_shader_upload(ctx, dw, vs->prog.size, &v->code)) {
      free(dw);
      FREE(v);
      return NULL;
   }
   if (vdxg_debug & VDXG_DEBUG_SHADERS)
      vdxg_shader_dump(&vs->prog, dw);
   free(dw);
   v->num_varyings = fp->num_varyings;
   memcpy(v->varyings, fp->varyings, sizeof(v->varyings));
   list_add(&v->link, &vs->variants);
   return &v->code;
}

void
vdxg_shader_init(struct pipe_context *pctx)
{
   pctx->create_fs_state = vdxg_create_fs_state;
   pctx->bind_fs_state = vdxg_bind_fs_state;
   pctx->delete_fs_state = vdxg_delete_fs_state;
   pctx->create_vs_state = vdxg_create_vs_state;
   pctx->bind_vs_state = vdxg_bind_vs_state;
   pctx->delete_vs_state = vdxg_delete_vs_state;
}
