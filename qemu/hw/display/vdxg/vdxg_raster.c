/*
 * vdxg: triangle setup, rasterization and shading
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "hw/display/vdxg_hw.h"
#include "vdxg_raster.h"

/* Channel c (bits 8c + 7 .. 8c) of an ARGB8888 value */
uint32_t vdxg_ch(uint32_t argb, unsigned int c)
{
    return extract32(argb, c * 8, 8);
}

uint32_t vdxg_div255(uint32_t v)
{
    return (v + 127) / 255;
}

/*
 * interp(a0, a1, a2) with barycentrics @b (each in [0, 65536], summing to
 * 65536): a weighted mean of 32-bit values, well inside 64 bits.
 */
static int64_t vdxg_interp(int64_t a0, int64_t a1, int64_t a2,
                           const int64_t *b)
{
    return (a0 * b[0] + a1 * b[1] + a2 * b[2] + 32768) >> 16;
}

/* clamp(i, n): i limited to [0, n - 1] */
static uint32_t vdxg_clamp(int64_t i, uint32_t n)
{
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

static bool vdxg_texel(const VdxgRaster *ra, int64_t x, int64_t y,
                       uint32_t *argb)
{
    return ra->ops->texel(ra->opaque, vdxg_clamp(x, ra->tex_width),
                          vdxg_clamp(y, ra->tex_height), argb);
}

/* The texture at (u, v), 16.16 texels, nearest or bilinear */
static bool vdxg_sample(const VdxgRaster *ra, bool bilinear, int64_t u,
                        int64_t v, uint32_t *argb)
{
    int64_t uu, vv, x0, y0;
    uint32_t fx, fy, t[4], top, bot, c;

    if (!bilinear) {
        return vdxg_texel(ra, u >> 16, v >> 16, argb);
    }
    uu = u - 32768;
    vv = v - 32768;
    x0 = uu >> 16;
    y0 = vv >> 16;
    fx = (uu >> 8) & 255;
    fy = (vv >> 8) & 255;
    /* t00, t10, t01, t11 */
    if (!vdxg_texel(ra, x0, y0, &t[0]) ||
        !vdxg_texel(ra, x0 + 1, y0, &t[1]) ||
        !vdxg_texel(ra, x0, y0 + 1, &t[2]) ||
        !vdxg_texel(ra, x0 + 1, y0 + 1, &t[3])) {
        return false;
    }
    *argb = 0;
    for (c = 0; c < 4; c++) {
        top = vdxg_ch(t[0], c) * (256 - fx) + vdxg_ch(t[1], c) * fx;
        bot = vdxg_ch(t[2], c) * (256 - fx) + vdxg_ch(t[3], c) * fx;
        *argb |= ((top * (256 - fy) + bot * fy + 32768) >> 16) << (c * 8);
    }
    return true;
}

/*
 * Set a triangle up; false when it draws nothing (no area, or no pixel
 * centre of DST inside its bounding box).
 */
bool vdxg_tri_setup(VdxgTri *t, uint32_t width, uint32_t height)
{
    VdxgVertex tmp;
    int64_t minx, maxx, miny, maxy;
    unsigned int i;

    /* E(v0, v1, v2): twice the signed area, positive counter-clockwise */
    t->area = (t->v[1].x - t->v[0].x) * (t->v[2].y - t->v[0].y) -
              (t->v[1].y - t->v[0].y) * (t->v[2].x - t->v[0].x);
    if (!t->area) {
        return false;
    }
    if (t->area < 0) {
        tmp = t->v[1];
        t->v[1] = t->v[2];
        t->v[2] = tmp;
        t->area = -t->area;
    }
    minx = MIN(t->v[0].x, MIN(t->v[1].x, t->v[2].x));
    maxx = MAX(t->v[0].x, MAX(t->v[1].x, t->v[2].x));
    miny = MIN(t->v[0].y, MIN(t->v[1].y, t->v[2].y));
    maxy = MAX(t->v[0].y, MAX(t->v[1].y, t->v[2].y));
    /* 16 p + 8 in [min, max]: p from ceil((min - 8) / 16) */
    t->px0 = MAX((minx - 8 + 15) >> 4, 0);
    t->px1 = MIN((maxx - 8) >> 4, (int64_t)width - 1);
    t->py0 = MAX((miny - 8 + 15) >> 4, 0);
    t->py1 = MIN((maxy - 8) >> 4, (int64_t)height - 1);
    if (t->px0 > t->px1 || t->py0 > t->py1) {
        return false;
    }
    for (i = 0; i < 3; i++) {
        const VdxgVertex *a = &t->v[(i + 1) % 3];
        const VdxgVertex *b = &t->v[(i + 2) % 3];

        t->ex[i] = b->x - a->x;
        t->ey[i] = b->y - a->y;
        t->owns[i] = t->ey[i] < 0 || (t->ey[i] == 0 && t->ex[i] > 0);
    }
    return true;
}

/* Depth, texture and colour of covered pixel (px, py) with weights @w */
static bool vdxg_shade(const VdxgRaster *ra, const VdxgTri *t, uint32_t flags,
                       uint32_t px, uint32_t py, const int64_t *w)
{
    const VdxgVertex *v = t->v;
    int64_t b[3];
    uint32_t z, depth, col, tex, c;

    /*
     * Covered: 0 <= w[i] <= area. With |X|, |Y| <= VDXG_VTX_COORD_MAX
     * (2^20) the area is below 2^43, so w * 65536 fits in 64 bits.
     */
    b[1] = w[1] * 65536 / t->area;
    b[2] = w[2] * 65536 / t->area;
    b[0] = 65536 - b[1] - b[2];

    z = vdxg_interp(v[0].z, v[1].z, v[2].z, b);
    if (flags & VDXG_DRAW_DEPTH_TEST) {
        if (!ra->ops->depth_load(ra->opaque, px, py, &depth)) {
            return false;
        }
        if (!(z < depth)) {
            return true;
        }
    }
    if ((flags & VDXG_DRAW_DEPTH_WRITE) &&
        !ra->ops->depth_store(ra->opaque, px, py, z)) {
        return false;
    }

    col = 0;
    for (c = 0; c < 4; c++) {
        col |= vdxg_interp(vdxg_ch(v[0].color, c), vdxg_ch(v[1].color, c),
                           vdxg_ch(v[2].color, c), b) << (c * 8);
    }
    if (flags & VDXG_DRAW_TEXTURE) {
        if (!vdxg_sample(ra, flags & VDXG_DRAW_BILINEAR,
                         vdxg_interp(v[0].u, v[1].u, v[2].u, b),
                         vdxg_interp(v[0].v, v[1].v, v[2].v, b), &tex)) {
            return false;
        }
        for (c = 0; c < 4; c++) {
            col = deposit32(col, c * 8, 8,
                            vdxg_div255(vdxg_ch(tex, c) * vdxg_ch(col, c)));
        }
    }
    (*ra->pixels)++;
    return ra->ops->dst_write(ra->opaque, px, py, col);
}

/* floor(a / b) for b > 0 */
static int64_t vdxg_floordiv(int64_t a, int64_t b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/*
 * The span of a row the triangle covers, from the pixel whose edge values
 * are @w on: pixels [*lo, *hi] of the @n left (empty when *lo > *hi).
 * Pixel d is inside edge i when w[i] - 16 ey[i] d >= (owns[i] ? 0 : 1),
 * a bound on d for each edge, so the span is found, not searched.
 */
static void vdxg_tri_span(const VdxgTri *t, const int64_t *w, int64_t n,
                          int64_t *lo, int64_t *hi)
{
    unsigned int i;
    int64_t a, v;

    *lo = 0;
    *hi = n - 1;
    for (i = 0; i < 3; i++) {
        a = 16 * t->ey[i];
        v = w[i] - !t->owns[i];
        if (a > 0) {
            *hi = MIN(*hi, vdxg_floordiv(v, a));
        } else if (a < 0) {
            *lo = MAX(*lo, -vdxg_floordiv(v, -a));
        } else if (v < 0) {
            *lo = n;
        }
    }
}

/*
 * Rasterize a set-up triangle from pixel *@progress of its box (row-major)
 * on. The edge functions are evaluated at the start of each row and then
 * stepped by one pixel (16 units) at a time. The pixels of a row outside
 * the triangle's span are passed over at once, charged as if tried.
 */
VdxgRun vdxg_tri_draw(const VdxgRaster *ra, const VdxgTri *t, uint32_t flags,
                      uint64_t *progress)
{
    uint64_t bw = t->px1 - t->px0 + 1;
    uint64_t n = bw * (t->py1 - t->py0 + 1), k = *progress, m;
    int64_t px, py, cx, cy, w[3], lo, hi, end;
    unsigned int i;
    bool in;

    while (k < n) {
        py = t->py0 + k / bw;
        px = t->px0 + k % bw;
        cx = 16 * px + 8;
        cy = 16 * py + 8;
        for (i = 0; i < 3; i++) {
            const VdxgVertex *a = &t->v[(i + 1) % 3];

            w[i] = t->ex[i] * (cy - a->y) - t->ey[i] * (cx - a->x);
        }
        while (px <= t->px1) {
            if (*ra->budget <= 0) {
                *progress = k;
                return VDXG_RUN_YIELD;
            }
            vdxg_tri_span(t, w, t->px1 - px + 1, &lo, &hi);
            if (lo > hi) {
                lo = t->px1 - px + 1;
            }
            if (lo > 0) {
                /* Not covered: tried, all at once */
                /* As many as the budget covers */
                m = ((uint64_t)*ra->budget + VDXG_COST_PIXEL - 1) /
                    VDXG_COST_PIXEL;
                m = MIN((uint64_t)lo, m);
                *ra->budget -= (int64_t)m * VDXG_COST_PIXEL;
                px += m;
                k += m;
                for (i = 0; i < 3; i++) {
                    w[i] -= 16 * t->ey[i] * (int64_t)m;
                }
                continue;
            }
            /* The span, pixel by pixel, to its end or the budget's */
            for (end = px + hi; px <= end; px++, k++) {
                if (*ra->budget <= 0) {
                    *progress = k;
                    return VDXG_RUN_YIELD;
                }
                *ra->budget -= VDXG_COST_PIXEL;
                in = true;
                for (i = 0; i < 3; i++) {
                    in &= w[i] > 0 || (w[i] == 0 && t->owns[i]);
                }
                if (in) {
                    *ra->budget -= VDXG_COST_SHADE;
                    if (!vdxg_shade(ra, t, flags, px, py, w)) {
                        *progress = k;
                        return VDXG_RUN_FAULT;
                    }
                }
                for (i = 0; i < 3; i++) {
                    w[i] -= 16 * t->ey[i];
                }
            }
        }
    }
    *progress = k;
    return VDXG_RUN_DONE;
}
