/*
 * vdxg: the 3D pipeline's textures: texel formats, the texture layout,
 * cube face selection, LOD, mipmap selection, wraps and filters, as
 * docs/hardware.md ("Textures") defines them.
 *
 * Pure functions, free of PCI and MMIO: texel bytes are read through a
 * callback, or straight from host memory when a level is there whole.
 * Include "qemu/osdep.h" first.
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_DISPLAY_VDXG_TEXTURE_H
#define HW_DISPLAY_VDXG_TEXTURE_H

#include "qemu/bitops.h"
#include "hw/display/vdxg_hw.h"

/* Bytes a pixel of each format (VDXG_FMT_*); 0 for none */
extern const uint8_t vdxg_fmt3d_cpp[VDXG_NUM_FMTS_3D];

/*
 * A colour pixel's stored value @raw in @format (a target or texture
 * format) as floats r, g, b, a (the n-bit conversion c / (2^n - 1)).
 */
void vdxg_texel_to_float(uint32_t format, uint32_t raw, float *rgba);
/* The n-bit conversion of a float channel: sat, then (v * max + 0.5) */
uint32_t vdxg_unorm(float x, uint32_t max);
/* Floats r, g, b, a to a colour format's stored value */
uint32_t vdxg_float_to_texel(uint32_t format, const float *rgba);
/* Read a stored value of @cpp bytes (1 to 4) at @p, little endian */
uint32_t vdxg_ld_px(const uint8_t *p, uint32_t cpp);

/* A bound texture (SET_TEXTURE) and where its images lie */
typedef struct VdxgTexture {
    uint32_t format;            /* 0: unbound */
    uint32_t levels;
    bool cube;
    uint32_t width, height;
    uint64_t addr;
    uint64_t size;
    uint32_t faces;
    /* Level l: w, h, row pitch, the image size, level's offset */
    uint32_t lw[VDXG_TEX_MAX_LEVELS];
    uint32_t lh[VDXG_TEX_MAX_LEVELS];
    uint32_t lpitch[VDXG_TEX_MAX_LEVELS];
    uint64_t limage[VDXG_TEX_MAX_LEVELS];
    uint64_t loff[VDXG_TEX_MAX_LEVELS];
} VdxgTexture;

/*
 * Set up @t from SET_TEXTURE's fields; false (PARAM) when they are not
 * valid: format, levels, size, or a layout larger than @size.
 */
bool vdxg_texture_setup(VdxgTexture *t, uint64_t addr, uint64_t size,
                        uint32_t desc, uint32_t wh);

/*
 * Read @cpp bytes of texel memory at byte offset @off of the texture
 * (inside its layout) into @raw; false on a memory fault.
 */
typedef bool (*VdxgTexReadFn)(void *opaque, uint64_t off, uint32_t cpp,
                              uint32_t *raw);

typedef struct VdxgTexSampler {
    const VdxgTexture *t;
    uint32_t sampler;           /* SAMPLER u */
    VdxgTexReadFn read;
    void *opaque;
    /*
     * The fast path: the whole layout as host memory, or NULL (then
     * every texel goes through @read).
     */
    const uint8_t *host;
} VdxgTexSampler;

/* Step 1 of sample(): the face and (s, t) of a cube map coordinate */
void vdxg_cube_coord(float x, float y, float z, unsigned int *face,
                     float *s, float *t);
/* Step 2: LOD from the derivatives (not TXL's), for level 0 of w x h */
float vdxg_tex_lod(float dsdx, float dtdx, float dsdy, float dtdy,
                   uint32_t w, uint32_t h);
/* Steps 3 to 5: sample face @face at (s, t) with LOD @lod */
bool vdxg_tex_sample(const VdxgTexSampler *ts, unsigned int face, float s,
                     float t, float lod, float *out);

#endif
