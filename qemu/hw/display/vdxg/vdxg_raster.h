/*
 * vdxg: triangle setup, rasterization and shading
 *
 * Pure functions with no device state: what shading reads and writes goes
 * through VdxgRasterOps, so that they can be built and tested on the host.
 * Include "qemu/osdep.h" first.
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_DISPLAY_VDXG_RASTER_H
#define HW_DISPLAY_VDXG_RASTER_H

/* Work of the engines */

typedef enum VdxgRun {
    VDXG_RUN_DONE,      /* finished */
    VDXG_RUN_YIELD,     /* out of budget, to be continued */
    VDXG_RUN_FAULT,     /* stopped on a fault */
    VDXG_RUN_WAIT,      /* a WAIT not satisfied yet */
} VdxgRun;

/*
 * Work charged per pixel, in the bytes of VDXG_BH_BUDGET, so that one run
 * of the bottom half fills or copies about half a million pixels, or
 * shades about a hundred thousand.
 */
#define VDXG_COST_PIXEL         8       /* filled, copied or tried */
#define VDXG_COST_SHADE         32      /* a covered triangle pixel */

/* A vertex of DRAW_TRIANGLES */
typedef struct VdxgVertex {
    int64_t x, y;               /* 28.4 */
    uint32_t z;
    uint32_t color;             /* ARGB8888 */
    int64_t u, v;               /* 16.16 */
} VdxgVertex;

/* A triangle set up for drawing: vertices in counter-clockwise order */
typedef struct VdxgTri {
    VdxgVertex v[3];
    int64_t area;
    /* Edge i (0: v1 -> v2, 1: v2 -> v0, 2: v0 -> v1) */
    int64_t ex[3], ey[3];       /* b - a */
    bool owns[3];
    /* The pixels tried: [px0, px1] x [py0, py1] */
    int64_t px0, px1, py0, py1;
} VdxgTri;

/* The memory shading uses; each returns false on a fault. */
typedef struct VdxgRasterOps {
    /* DEPTH at (x, y) */
    bool (*depth_load)(void *opaque, uint32_t x, uint32_t y, uint32_t *z);
    bool (*depth_store)(void *opaque, uint32_t x, uint32_t y, uint32_t z);
    /* TEXTURE at (x, y), inside the texture, as ARGB8888 */
    bool (*texel)(void *opaque, uint32_t x, uint32_t y, uint32_t *argb);
    /* DST at (x, y): write pixel @argb (ARGB8888) */
    bool (*dst_write)(void *opaque, uint32_t x, uint32_t y, uint32_t argb);
} VdxgRasterOps;

/* What drawing a triangle uses besides the triangle */
typedef struct VdxgRaster {
    const VdxgRasterOps *ops;
    void *opaque;
    uint32_t tex_width, tex_height;
    int64_t *budget;            /* charged VDXG_COST_PIXEL, _SHADE */
    uint64_t *pixels;           /* counts the covered pixels shaded */
} VdxgRaster;

uint32_t vdxg_ch(uint32_t argb, unsigned int c);
uint32_t vdxg_div255(uint32_t v);
bool vdxg_tri_setup(VdxgTri *t, uint32_t width, uint32_t height);
VdxgRun vdxg_tri_draw(const VdxgRaster *ra, const VdxgTri *t, uint32_t flags,
                      uint64_t *progress);

#endif
