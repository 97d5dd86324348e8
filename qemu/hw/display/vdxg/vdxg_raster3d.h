/*
 * vdxg: the 3D pipeline's geometry and rasterizer: clipping, the
 * viewport and snapping, coverage of triangles, lines and points with
 * their 2x2 quads, and the fragment inputs of every lane, as
 * docs/hardware.md ("Geometry", "Rasterization") defines them.
 *
 * Pure functions, free of PCI and MMIO: each quad goes to a callback.
 * Include "qemu/osdep.h" first.
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_DISPLAY_VDXG_RASTER3D_H
#define HW_DISPLAY_VDXG_RASTER3D_H

#include "vdxg_raster.h"
#include "vdxg_shader.h"

#define VDXG_3D_VARY_COMPS      (VDXG_3D_NUM_VARYINGS * 4)
/* A clipped triangle: three vertices and one more a plane */
#define VDXG_3D_CLIP_MAX        9

/* A vertex after the vertex program: clip space */
typedef struct VdxgClipVert {
    float pos[4];
    float psize;
    float vary[VDXG_3D_VARY_COMPS];
} VdxgClipVert;

/* A vertex in window space */
typedef struct VdxgWinVert {
    int64_t x8, y8;             /* 8 subpixel bits */
    float iw;                   /* 1 / w */
    float z;                    /* window Z */
    float psize;
    float vary[VDXG_3D_VARY_COMPS];     /* a' = a / w; a for a point */
} VdxgWinVert;

typedef struct VdxgQuad VdxgQuad;

/* What the rasterizer draws into */
typedef struct VdxgRaster3d {
    /* Pixels it may cover: the framebuffer, and the scissor */
    int64_t x0, y0, x1, y1;
    float vp_scale[3], vp_trans[3];
    uint32_t raster;            /* the RASTER register */
    float po_factor, po_units, po_rd;
    uint64_t vary_mask;         /* the varying components computed */
    /* The lanes' inputs that each quad fills (VdxgShRun.in), the callback */
    VdxgShVec *in;
    VdxgRun (*quad)(void *opaque, const VdxgQuad *q);
    void *opaque;
    int64_t *budget;
} VdxgRaster3d;

/* A quad with a covered pixel: lane l is (qx + (l & 1), qy + (l >> 1)) */
struct VdxgQuad {
    int64_t qx, qy;
    uint32_t covered;
    bool front;
    float z[VDXG_SH_LANES];     /* fragment depth, polygon offset added */
};

/* Clipping: 0 when dropped, else the vertices of the polygon (or line) */
unsigned int vdxg_clip_tri(const VdxgClipVert *in, VdxgClipVert *out);
unsigned int vdxg_clip_line(const VdxgClipVert *in, VdxgClipVert *out);
bool vdxg_point_visible(const VdxgClipVert *v);
bool vdxg_pos_finite(const VdxgClipVert *v);

/* To window space; false when w <= 0 or not finite (dropped) */
bool vdxg_to_window(const VdxgRaster3d *ra, const VdxgClipVert *c,
                    VdxgWinVert *w, bool point);

/*
 * Culling and facing of a triangle: 0 when it draws nothing (no area or
 * culled), else 1, with *@front.
 */
bool vdxg_tri_face(const VdxgRaster3d *ra, const VdxgWinVert *v0,
                   const VdxgWinVert *v1, const VdxgWinVert *v2,
                   bool *front);

/*
 * Draw from quad *@progress on (the quads with a covered pixel counted in
 * the primitive's order); on VDXG_RUN_YIELD or a fault *@progress is
 * where to go on.
 */
VdxgRun vdxg_tri_raster(const VdxgRaster3d *ra, const VdxgWinVert *v0,
                        const VdxgWinVert *v1, const VdxgWinVert *v2,
                        uint64_t *progress);
VdxgRun vdxg_line_raster(const VdxgRaster3d *ra, const VdxgWinVert *a,
                         const VdxgWinVert *b, uint64_t *progress);
VdxgRun vdxg_point_raster(const VdxgRaster3d *ra, const VdxgWinVert *v,
                          uint64_t *progress);

#endif
