/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

#include "util/format/u_format.h"
#include "util/macros.h"

#include "vdxg_format.h"
#include "vdxg_hw_defs.h"
#include "vdxg_tgsi.h"

/*
 * The device's formats (docs/hardware.md, "Formats") as Gallium names
 * them: channel bits from the least significant up.
 */
#define FMT(pipe, fmt, tex, rt, zs, s)                                         \
   [PIPE_FORMAT_##pipe] = {                                                    \
      .hw = VDXG_FMT_##fmt, .tex_hw = VDXG_FMT_##fmt, .texture = tex,          \
      .render = rt, .depth = zs, .stencil = s,                                 \
   }

/*
 * Depth formats are sampled as the colour format of the same bytes, and
 * the fragment program rebuilds the depth (vdxg_tgsi_compile_depth).
 */
#define ZFMT(pipe, fmt, as, bits, s)                                           \
   [PIPE_FORMAT_##pipe] = {                                                    \
      .hw = VDXG_FMT_##fmt, .tex_hw = VDXG_FMT_##as,                           \
      .depth_tex = VDXG_TGSI_DEPTH##bits, .texture = true, .depth = true,      \
      .stencil = s,                                                            \
   }

static const struct vdxg_format vdxg_formats[PIPE_FORMAT_COUNT] = {
   FMT(B8G8R8X8_UNORM, XRGB8888, true, true, false, false),
   FMT(B8G8R8A8_UNORM, ARGB8888, true, true, false, false),
   FMT(B5G6R5_UNORM, RGB565, true, true, false, false),
   FMT(R8G8B8A8_UNORM, ABGR8888, true, true, false, false),
   FMT(A4B4G4R4_UNORM, RGBA4444, true, true, false, false),
   FMT(A1B5G5R5_UNORM, RGBA5551, true, true, false, false),
   FMT(L8_UNORM, L8, true, false, false, false),
   FMT(A8_UNORM, A8, true, false, false, false),
   FMT(L8A8_UNORM, L8A8, true, false, false, false),
   FMT(R8G8B8_UNORM, RGB888, true, false, false, false),
   ZFMT(Z16_UNORM, D16, L8A8, 16, false),
   ZFMT(Z24_UNORM_S8_UINT, D24S8, ARGB8888, 24, true),
   ZFMT(Z24X8_UNORM, D24S8, ARGB8888, 24, false),
};

const struct vdxg_format *
vdxg_format(enum pipe_format format)
{
   if (format >= PIPE_FORMAT_COUNT || !vdxg_formats[format].hw)
      return NULL;
   return &vdxg_formats[format];
}

uint32_t
vdxg_vertex_format(enum pipe_format format)
{
   const struct util_format_description *desc =
      util_format_description(format);
   unsigned n = desc->nr_channels, type;
   const struct util_format_channel_description *c = &desc->channel[0];

   if (desc->layout != UTIL_FORMAT_LAYOUT_PLAIN || n < 1 || n > 4)
      return 0;
   /* The components in memory order, each of the first's kind. */
   for (unsigned i = 0; i < n; i++) {
      if (desc->channel[i].type != c->type ||
          desc->channel[i].size != c->size ||
          desc->channel[i].normalized != c->normalized ||
          desc->channel[i].pure_integer != c->pure_integer ||
          desc->swizzle[i] != PIPE_SWIZZLE_X + i)
         return 0;
   }
   if (c->pure_integer)
      return 0;

   switch (c->type) {
   case UTIL_FORMAT_TYPE_FLOAT:
      if (c->size != 32)
         return 0;
      type = VDXG_VTYPE_FLOAT32;
      break;
   case UTIL_FORMAT_TYPE_UNSIGNED:
      if (c->size == 8)
         type = c->normalized ? VDXG_VTYPE_UNORM8 : VDXG_VTYPE_UINT8;
      else if (c->size == 16)
         type = c->normalized ? VDXG_VTYPE_UNORM16 : VDXG_VTYPE_UINT16;
      else
         return 0;
      break;
   case UTIL_FORMAT_TYPE_SIGNED:
      if (c->size == 8)
         type = c->normalized ? VDXG_VTYPE_SNORM8 : VDXG_VTYPE_SINT8;
      else if (c->size == 16)
         type = c->normalized ? VDXG_VTYPE_SNORM16 : VDXG_VTYPE_SINT16;
      else
         return 0;
      break;
   default:
      return 0;
   }
   return VDXG_VFMT(type, n);
}
