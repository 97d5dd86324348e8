/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

#include <errno.h>
#include <string.h>
#include <xf86drm.h>

#include "compiler/nir/nir.h"
#include "nir/nir_to_tgsi.h"
#include "util/hash_table.h"
#include "util/os_misc.h"
#include "util/u_debug.h"
#include "util/u_memory.h"
#include "util/u_screen.h"
#include "util/u_string.h"

#include "vdxg_context.h"
#include "vdxg_fence.h"
#include "vdxg_format.h"
#include "vdxg_resource.h"
#include "vdxg_screen.h"
#include "vdxg_shader.h"

static const struct debug_named_value vdxg_debug_options[] = {
   {"shaders", VDXG_DEBUG_SHADERS, "Print NIR, TGSI and vdxg code"},
   {"cmds", VDXG_DEBUG_CMDS, "Print each batch's size and model"},
   {"sync", VDXG_DEBUG_SYNC, "Wait for every batch to finish"},
   {"nocopy", VDXG_DEBUG_NOCOPY, "Blit and copy with the 3D pipeline only"},
   {"staging", VDXG_DEBUG_STAGING, "Map every texture through a copy"},
   {"nosuballoc", VDXG_DEBUG_NOSUBALLOC, "Give every buffer an object"},
   DEBUG_NAMED_VALUE_END
};

DEBUG_GET_ONCE_FLAGS_OPTION(vdxg_debug, "VDXG_DEBUG", vdxg_debug_options, 0)
uint32_t vdxg_debug;

/* VM addresses the driver hands out: the low 1 MiB stays unmapped. */
#define VDXG_VA_START (1ull << 20)
#define VDXG_VA_END   (1ull << 40)

static void
vdxg_screen_destroy(struct pipe_screen *pscreen)
{
   struct vdxg_screen *screen = vdxg_screen(pscreen);

   vdxg_suballoc_fini(screen);
   if (screen->vm_id) {
      vdxg_vm_destroy(screen->dev, screen->vm_id);
      util_vma_heap_finish(&screen->vma);
   }
   simple_mtx_destroy(&screen->vma_lock);
   simple_mtx_destroy(&screen->handles_lock);
   _mesa_hash_table_destroy(screen->handles, NULL);
   slab_destroy_parent(&screen->transfer_pool);
   vdxg_device_close(screen->dev);
   close(screen->fd);
   FREE(screen);
}

static const char *
vdxg_screen_get_name(struct pipe_screen *pscreen)
{
   return vdxg_screen(pscreen)->model == VDXG_SUBMIT_EXEC ? "vdxg (exec)"
                                                           : "vdxg (patch)";
}

static const char *
vdxg_screen_get_vendor(struct pipe_screen *pscreen)
{
   return "vdxg";
}

static int
vdxg_screen_get_fd(struct pipe_screen *pscreen)
{
   return vdxg_screen(pscreen)->fd;
}

static int
vdxg_screen_get_shader_param(struct pipe_screen *pscreen,
                             enum pipe_shader_type shader,
                             enum pipe_shader_cap param)
{
   struct vdxg_screen *screen = vdxg_screen(pscreen);

   if (shader != PIPE_SHADER_VERTEX && shader != PIPE_SHADER_FRAGMENT)
      return 0;

   switch (param) {
   case PIPE_SHADER_CAP_MAX_INSTRUCTIONS:
   case PIPE_SHADER_CAP_MAX_ALU_INSTRUCTIONS:
   case PIPE_SHADER_CAP_MAX_TEX_INSTRUCTIONS:
   case PIPE_SHADER_CAP_MAX_TEX_INDIRECTIONS:
      return VDXG_3D_MAX_INSTRUCTIONS;
   case PIPE_SHADER_CAP_MAX_CONTROL_FLOW_DEPTH:
      return VDXG_3D_MAX_NESTING;
   case PIPE_SHADER_CAP_MAX_INPUTS:
      return shader == PIPE_SHADER_VERTEX ? VDXG_3D_VS_INPUTS
                                          : VDXG_3D_NUM_VARYINGS;
   case PIPE_SHADER_CAP_MAX_OUTPUTS:
      return shader == PIPE_SHADER_VERTEX ? VDXG_3D_VS_OUTPUTS
                                          : VDXG_3D_FS_OUTPUTS;
   case PIPE_SHADER_CAP_MAX_CONST_BUFFER0_SIZE:
      return screen->max_constants * 16;
   case PIPE_SHADER_CAP_MAX_CONST_BUFFERS:
      return 1;
   case PIPE_SHADER_CAP_MAX_TEMPS:
      /* One is kept back for samples of depth textures (vdxg_tgsi.c). */
      return VDXG_3D_NUM_TEMPS - 1;
   case PIPE_SHADER_CAP_CONT_SUPPORTED:
   case PIPE_SHADER_CAP_TGSI_SQRT_SUPPORTED:
   case PIPE_SHADER_CAP_INDIRECT_CONST_ADDR:
      return 1;
   case PIPE_SHADER_CAP_MAX_TEXTURE_SAMPLERS:
   case PIPE_SHADER_CAP_MAX_SAMPLER_VIEWS:
      return VDXG_3D_NUM_UNITS;
   case PIPE_SHADER_CAP_SUPPORTED_IRS:
      return (1 << PIPE_SHADER_IR_NIR) | (1 << PIPE_SHADER_IR_TGSI);
   default:
      /* No integers, no indirect temporaries, no images or buffers. */
      return 0;
   }
}

static void
vdxg_init_screen_caps(struct vdxg_screen *screen)
{
   struct pipe_caps *caps = (struct pipe_caps *)&screen->base.caps;
   uint64_t mem;

   u_init_pipe_screen_caps(&screen->base, 1);

   caps->npot_textures = true;
   caps->blend_equation_separate = true;
   caps->fs_coord_origin_upper_left = true;
   caps->fs_coord_pixel_center_half_integer = true;
   caps->vertex_color_unclamped = true;
   caps->mixed_framebuffer_sizes = true;
   caps->mixed_color_depth_bits = true;
   caps->tgsi_div = true;
   caps->native_fence_fd = true;
   caps->device_reset_status_query = true;
   caps->robust_buffer_access_behavior = false;
   caps->shareable_shaders = false;
   caps->two_sided_color = false;
   caps->flatshade = false;
   caps->alpha_test = false;
   caps->clip_planes = 0;
   caps->texture_transfer_modes = 0;
   /* u_init_pipe_screen_caps' defaults the device does not have. */
   caps->texture_shadow_map = false;
   caps->texrect = false;
   caps->min_texel_offset = 0;
   caps->max_texel_offset = 0;
   caps->min_texture_gather_offset = 0;
   caps->max_texture_gather_offset = 0;
   caps->rasterizer_subpixel_bits = 8;

   caps->glsl_feature_level = 120;
   caps->glsl_feature_level_compatibility = 120;
   caps->essl_feature_level = 100;

   caps->max_render_targets = 1;
   caps->max_texture_2d_size = screen->max_texture_size;
   caps->max_texture_cube_levels = screen->max_texture_levels;
   caps->max_texture_3d_levels = 0;
   caps->max_texture_array_layers = 0;
   caps->max_viewports = 1;
   caps->max_vertex_attrib_stride = VDXG_3D_MAX_STRIDE;
   caps->max_varyings = VDXG_3D_NUM_VARYINGS;
   caps->constant_buffer_offset_alignment = 16;
   caps->min_map_buffer_alignment = 64;
   caps->endianness = PIPE_ENDIAN_LITTLE;
   caps->vendor_id = 0x1b36;
   caps->device_id = 0;
   caps->accelerated = 1;
   caps->uma = false;
   caps->video_memory = screen->vram_size >> 20;
   if (os_get_total_physical_memory(&mem) && !caps->video_memory)
      caps->video_memory = mem >> 20;

   caps->min_line_width = caps->min_line_width_aa = 1.0f;
   caps->max_line_width = caps->max_line_width_aa = 1.0f;
   caps->line_width_granularity = 1.0f;
   caps->min_point_size = caps->min_point_size_aa = 1.0f;
   caps->max_point_size = caps->max_point_size_aa = VDXG_3D_POINT_SIZE_MAX;
   caps->point_size_granularity = 0.1f;
   caps->max_texture_anisotropy = 1.0f;
   caps->max_texture_lod_bias = 0.0f;
}

static bool
vdxg_screen_is_format_supported(struct pipe_screen *pscreen,
                                enum pipe_format format,
                                enum pipe_texture_target target,
                                unsigned sample_count,
                                unsigned storage_sample_count, unsigned usage)
{
   const struct vdxg_format *f = vdxg_format(format);

   if (sample_count > 1 || storage_sample_count > 1)
      return false;

   switch (target) {
   case PIPE_BUFFER:
      /* Vertex and index data only: no texture buffers. */
      if (usage & ~(PIPE_BIND_VERTEX_BUFFER | PIPE_BIND_INDEX_BUFFER))
         return false;
      if ((usage & PIPE_BIND_VERTEX_BUFFER) && !vdxg_vertex_format(format))
         return false;
      return true;
   case PIPE_TEXTURE_2D:
   case PIPE_TEXTURE_RECT:
   case PIPE_TEXTURE_CUBE:
      break;
   default:
      return false;
   }

   if (!f)
      return false;
   if ((usage & PIPE_BIND_SAMPLER_VIEW) && !f->texture)
      return false;
   if ((usage & (PIPE_BIND_RENDER_TARGET | PIPE_BIND_DISPLAY_TARGET |
                 PIPE_BIND_SCANOUT | PIPE_BIND_SHARED)) &&
       !f->render)
      return false;
   if ((usage & PIPE_BIND_DEPTH_STENCIL) && !f->depth)
      return false;
   if (usage & (PIPE_BIND_SHADER_IMAGE | PIPE_BIND_SHADER_BUFFER))
      return false;
   return true;
}

static const nir_shader_compiler_options vdxg_compiler_options = {
   .fdot_replicates = true,
   .lower_bitops = true, /* required for !CAP_INTEGERS nir_to_tgsi */
   .lower_extract_byte = true,
   .lower_extract_word = true,
   .lower_fdph = true,
   .lower_flrp32 = true,
   .lower_fmod = true,
   .lower_ffma32 = true,
   .lower_ldexp = true,
   .lower_uniforms_to_ubo = true,
   .lower_vector_cmp = true,
   .force_indirect_unrolling = nir_var_function_temp,
   .force_indirect_unrolling_sampler = true,
   .max_unroll_iterations = 32,
   .no_integers = true,
   .has_fused_comp_and_csel = true,
};

static const void *
vdxg_screen_get_compiler_options(struct pipe_screen *pscreen,
                                 enum pipe_shader_ir ir,
                                 enum pipe_shader_type shader)
{
   assert(ir == PIPE_SHADER_IR_NIR);
   return &vdxg_compiler_options;
}

static uint64_t
vdxg_param(struct vdxg_screen *screen, uint32_t param, uint64_t fallback)
{
   uint64_t value;

   if (vdxg_get_param(screen->dev, param, &value) || !value)
      return fallback;
   return value;
}

static bool
vdxg_screen_init_vm(struct vdxg_screen *screen)
{
   if (vdxg_vm_create(screen->dev, 0, &screen->vm_id))
      return false;
   util_vma_heap_init(&screen->vma, VDXG_VA_START,
                      VDXG_VA_END - VDXG_VA_START);
   return true;
}

struct pipe_screen *
vdxg_screen_create(int fd, const struct pipe_screen_config *config,
                   struct renderonly *ro)
{
   struct vdxg_screen *screen = CALLOC_STRUCT(vdxg_screen);
   const char *model = debug_get_option("VDXG_SUBMIT", "exec");
   uint64_t has_3d = 0;

   if (!screen)
      return NULL;

   vdxg_debug = debug_get_option_vdxg_debug();
   screen->fd = fd;
   simple_mtx_init(&screen->vma_lock, mtx_plain);
   simple_mtx_init(&screen->handles_lock, mtx_plain);
   screen->handles = _mesa_pointer_hash_table_create(NULL);
   slab_create_parent(&screen->transfer_pool, sizeof(struct vdxg_transfer),
                      16);

   if (vdxg_device_open_fd(fd, &screen->dev))
      goto fail;
   if (vdxg_get_param(screen->dev, DRM_VDXG_PARAM_3D, &has_3d) || !has_3d) {
      mesa_loge("vdxg: the device has no 3D pipeline");
      goto fail;
   }

   if (!strcmp(model, "patch")) {
      screen->model = VDXG_SUBMIT_PATCH;
   } else if (!strcmp(model, "exec")) {
      screen->model = VDXG_SUBMIT_EXEC;
      if (!vdxg_screen_init_vm(screen)) {
         mesa_loge("vdxg: no GPU virtual memory; VDXG_SUBMIT=patch works "
                   "without it");
         goto fail;
      }
   } else {
      mesa_loge("vdxg: VDXG_SUBMIT=%s: want exec or patch", model);
      goto fail;
   }

   screen->max_texture_size =
      vdxg_param(screen, DRM_VDXG_PARAM_3D_MAX_TEXTURE_SIZE, 2048);
   screen->max_texture_levels =
      vdxg_param(screen, DRM_VDXG_PARAM_3D_MAX_TEXTURE_LEVELS, 12);
   screen->max_constants =
      MIN2(vdxg_param(screen, DRM_VDXG_PARAM_3D_MAX_CONSTANTS, 256),
           VDXG_3D_NUM_CONSTS);
   screen->max_command_size =
      vdxg_param(screen, DRM_VDXG_PARAM_MAX_COMMAND_SIZE, 65536);
   screen->max_allocations =
      vdxg_param(screen, DRM_VDXG_PARAM_MAX_ALLOCATIONS, 256);
   screen->vram_size = vdxg_param(screen, DRM_VDXG_PARAM_VRAM_SIZE, 0);
   screen->vram_visible_size =
      vdxg_param(screen, DRM_VDXG_PARAM_VRAM_VISIBLE_SIZE, 0);
   if (!vdxg_suballoc_init(screen))
      goto fail;

   screen->base.destroy = vdxg_screen_destroy;
   screen->base.get_name = vdxg_screen_get_name;
   screen->base.get_vendor = vdxg_screen_get_vendor;
   screen->base.get_device_vendor = vdxg_screen_get_vendor;
   screen->base.get_screen_fd = vdxg_screen_get_fd;
   screen->base.get_shader_param = vdxg_screen_get_shader_param;
   screen->base.is_format_supported = vdxg_screen_is_format_supported;
   screen->base.get_compiler_options = vdxg_screen_get_compiler_options;
   screen->base.finalize_nir = vdxg_finalize_nir;
   screen->base.context_create = vdxg_create_context;

   vdxg_resource_screen_init(&screen->base);
   vdxg_fence_screen_init(&screen->base);
   vdxg_init_screen_caps(screen);

   return &screen->base;

fail:
   if (screen->dev)
      vdxg_device_close(screen->dev);
   if (screen->vm_id)
      util_vma_heap_finish(&screen->vma);
   slab_destroy_parent(&screen->transfer_pool);
   simple_mtx_destroy(&screen->vma_lock);
   simple_mtx_destroy(&screen->handles_lock);
   _mesa_hash_table_destroy(screen->handles, NULL);
   FREE(screen);
   return NULL;
}
