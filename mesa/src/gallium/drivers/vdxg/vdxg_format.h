/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

#ifndef VDXG_FORMAT_H
#define VDXG_FORMAT_H

#include <stdbool.h>
#include <stdint.h>

#include "util/format/u_formats.h"

struct vdxg_format {
   uint8_t hw;        /* VDXG_FMT_* */
   uint8_t tex_hw;    /* SET_TEXTURE's format for it: hw but for depth */
   uint8_t depth_tex; /* VDXG_TGSI_DEPTH*: sampled as tex_hw, rebuilt */
   bool texture : 1;  /* SET_TEXTURE samples it */
   bool render : 1;   /* DST of SET_SURFACE */
   bool depth : 1;    /* DEPTH of SET_SURFACE */
   bool stencil : 1;
};

const struct vdxg_format *vdxg_format(enum pipe_format format);

/* SET_SURFACE's format of a colour or depth resource, or 0. */
static inline uint32_t
vdxg_format_hw(enum pipe_format format)
{
   const struct vdxg_format *f = vdxg_format(format);

   return f ? f->hw : 0;
}

/* ELEMENT's vertex format (VDXG_VFMT) for a vertex buffer format, or 0. */
uint32_t vdxg_vertex_format(enum pipe_format format);

#endif
