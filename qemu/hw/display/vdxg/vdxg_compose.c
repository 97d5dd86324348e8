/*
 * vdxg: plane checks, blending and composition, dirty tracking, CRCs
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include <zlib.h>
#include "qemu/bitops.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"
#include "vdxg_int.h"
#include "hw/display/trace.h"

/* Planes */

/* Bytes per pixel of a scanout format; 0 for the others */
/* row_hash of a composed row whose pixels are kept (real hashes are odd) */
#define VDXG_ROW_KEPT   2

static uint32_t vdxg_fourcc_cpp(uint32_t fourcc)
{
    switch (fourcc) {
    case VDXG_FOURCC_XRGB8888:
    case VDXG_FOURCC_ARGB8888:
    case VDXG_FOURCC_XBGR8888:
        return 4;
    case VDXG_FOURCC_RGB565:
        return 2;
    default:
        return 0;
    }
}

static uint32_t vdxg_plane_w(const VdxgPlane *pl)
{
    return extract32(pl->src_size, 0, 16);
}

static uint32_t vdxg_plane_h(const VdxgPlane *pl)
{
    return extract32(pl->src_size, 16, 16);
}

/* The source as shown, after ROT_90: rw x rh */
static uint32_t vdxg_plane_rw(const VdxgPlane *pl)
{
    return pl->ctrl & VDXG_PLANE_CTRL_ROT_90 ? vdxg_plane_h(pl) :
                                               vdxg_plane_w(pl);
}

static uint32_t vdxg_plane_rh(const VdxgPlane *pl)
{
    return pl->ctrl & VDXG_PLANE_CTRL_ROT_90 ? vdxg_plane_w(pl) :
                                               vdxg_plane_h(pl);
}

/* The plane on the frame: dw x dh */
static uint32_t vdxg_plane_dw(const VdxgPlane *pl)
{
    return pl->dst_size ? extract32(pl->dst_size, 0, 16) : vdxg_plane_rw(pl);
}

static uint32_t vdxg_plane_dh(const VdxgPlane *pl)
{
    return pl->dst_size ? extract32(pl->dst_size, 16, 16) : vdxg_plane_rh(pl);
}

/* Does the plane scale or turn by 90 degrees, so that it is sampled? */
static bool vdxg_plane_sampled(const VdxgPlane *pl)
{
    return (pl->ctrl & VDXG_PLANE_CTRL_ROT_90) ||
           vdxg_plane_dw(pl) != vdxg_plane_rw(pl) ||
           vdxg_plane_dh(pl) != vdxg_plane_rh(pl);
}

/* Is @d within the scaling limits of @r? */
static bool vdxg_scale_ok(uint32_t r, uint32_t d)
{
    return d && d <= VDXG_PLANE_MAX_DIM &&
           d <= (uint64_t)r * VDXG_PLANE_MAX_UPSCALE &&
           (uint64_t)d * VDXG_PLANE_MAX_DOWNSCALE >= r;
}

static uint64_t vdxg_plane_span(const VdxgPlane *pl)
{
    return (uint64_t)pl->pitch * (vdxg_plane_h(pl) - 1) +
           (uint64_t)vdxg_plane_w(pl) * vdxg_fourcc_cpp(pl->format);
}

/*
 * Can plane @p show @pl? Returns VDXG_FAULT_NONE, or the reason of the
 * fault that latching it raises.
 */
uint32_t vdxg_plane_check(VdxgState *s, unsigned int p,
                          const VdxgPlane *pl)
{
    uint32_t cpp = vdxg_fourcc_cpp(pl->format);
    uint32_t w = vdxg_plane_w(pl), h = vdxg_plane_h(pl);
    uint32_t max = p == VDXG_PLANE_IDX_CURSOR ? VDXG_CURSOR_MAX_DIM :
                                                VDXG_PLANE_MAX_DIM;

    if (!cpp ||
        (p == VDXG_PLANE_IDX_CURSOR && pl->format != VDXG_FOURCC_ARGB8888)) {
        return VDXG_FAULT_PARAM;
    }
    if (!w || !h || w > max || h > max ||
        pl->pitch % cpp || pl->pitch < w * cpp ||
        pl->pitch > VDXG_PLANE_MAX_PITCH || pl->addr % cpp ||
        extract32(pl->ctrl, VDXG_PLANE_CTRL_BLEND_SHIFT, 2) >
        VDXG_BLEND_COVERAGE ||
        pl->zpos > VDXG_ZPOS_MAX) {
        return VDXG_FAULT_PARAM;
    }
    if (pl->dst_size &&
        (p == VDXG_PLANE_IDX_CURSOR ||
         !vdxg_scale_ok(vdxg_plane_rw(pl), vdxg_plane_dw(pl)) ||
         !vdxg_scale_ok(vdxg_plane_rh(pl), vdxg_plane_dh(pl)))) {
        return VDXG_FAULT_PARAM;
    }
    if (!vdxg_gpu_range_ok(&s->core, pl->addr, vdxg_plane_span(pl))) {
        return VDXG_FAULT_ADDRESS;
    }
    return VDXG_FAULT_NONE;
}

/* Latch plane @p's pending registers; a bad enabled plane faults. */
void vdxg_plane_latch(VdxgState *s, VdxgCrtc *c, unsigned int p)
{
    VdxgPlane *pl = &c->cur[p];
    uint32_t reason;

    *pl = c->pend[p];
    c->pstatus[p] = 0;
    c->state_frame = vdxg_crtc_frames(c);
    if (pl->ctrl & VDXG_PLANE_CTRL_ENABLE) {
        reason = vdxg_plane_check(s, p, pl);
        if (reason == VDXG_FAULT_NONE) {
            c->pstatus[p] = VDXG_PLANE_STATUS_ACTIVE;
        } else {
            c->pstatus[p] = VDXG_PLANE_STATUS_FAULT;
            vdxg_display_fault(s, c, p, reason, pl->addr);
        }
    }
    trace_vdxg_plane_latch(c->index, p, pl->ctrl, pl->addr, pl->format,
                           pl->src_size, pl->dst_pos, c->pstatus[p]);
    c->stale = true;
}

/*
 * Damage. Each latch says which frame rows it may change (c->upd_*), until
 * a composition begins: vdxg_compose_start() then keeps the pixels of the
 * other rows (VDXG_ROW_KEPT) instead of reading their planes again, and
 * a kept row is composed again when a later latch may change it or when
 * vdxg_display_harvest() sees the memory it shows change.
 */
static void vdxg_upd_rows(VdxgCrtc *c, uint32_t y0, uint32_t y1)
{
    if (!c->upd_latched) {
        c->upd_latched = true;
        c->upd_all = false;
        c->upd_y0 = c->upd_y1 = 0;
    }
    vdxg_rows_add(&c->upd_y0, &c->upd_y1, y0, y1);
}

/* The frame rows that latched plane @p of @c covers, if it is shown */
static void vdxg_plane_upd_rows(VdxgCrtc *c, unsigned int p)
{
    const VdxgPlane *pl = &c->cur[p];
    int64_t y0 = (int16_t)extract32(pl->dst_pos, 16, 16);
    int64_t y1 = y0 + vdxg_plane_dh(pl);

    if (!(c->pstatus[p] & VDXG_PLANE_STATUS_ACTIVE)) {
        return;
    }
    vdxg_upd_rows(c, MAX(y0, 0), MAX(MIN(y1, (int64_t)UINT16_MAX + 1), 0));
}

/*
 * Latch plane @p alone (CURSOR_UPDATE, ASYNC_FLIP): the rows it covered
 * and covers may change.
 */
void vdxg_plane_latch_alone(VdxgState *s, VdxgCrtc *c, unsigned int p)
{
    vdxg_plane_upd_rows(c, p);
    vdxg_plane_latch(s, c, p);
    vdxg_plane_upd_rows(c, p);
}

/*
 * Latch every pending register of @c. With @damage (a FLIP with
 * FLIP_DAMAGE), only rows flip_y0 to flip_y1 - 1 may change; the guest
 * promised that the latched state shows what the frame shows elsewhere.
 */
void vdxg_crtc_latch_all(VdxgState *s, VdxgCrtc *c, bool damage)
{
    unsigned int p;

    for (p = 0; p < VDXG_NUM_PLANES; p++) {
        vdxg_plane_latch(s, c, p);
    }
    c->abg = c->bg;
    vdxg_color_latch(c);
    if (damage) {
        vdxg_upd_rows(c, c->flip_y0, c->flip_y1);
    } else {
        c->upd_latched = true;
        c->upd_all = true;
    }
    c->flip_damage = false;
    c->stale = true;
}

/* Composition */

/* A scanout pixel as ARGB8888 */
static uint32_t vdxg_scan_px(uint32_t fourcc, const uint8_t *p)
{
    uint32_t v, r5, g6, b5;

    switch (fourcc) {
    case VDXG_FOURCC_XRGB8888:
        return ldl_le_p(p) | 0xff000000u;
    case VDXG_FOURCC_XBGR8888:
        v = ldl_le_p(p);
        return 0xff000000u | (v & 0xff) << 16 | (v & 0xff00) |
               extract32(v, 16, 8);
    case VDXG_FOURCC_RGB565:
        v = lduw_le_p(p);
        r5 = extract32(v, 11, 5);
        g6 = extract32(v, 5, 6);
        b5 = extract32(v, 0, 5);
        return 0xff000000u | (r5 << 3 | r5 >> 2) << 16 |
               (g6 << 2 | g6 >> 4) << 8 | (b5 << 3 | b5 >> 2);
    default:
        return ldl_le_p(p);
    }
}

static uint32_t vdxg_div65535(uint32_t v)
{
    return (v + 32767) / 65535;
}

/*
 * @fg (ARGB8888) over @bg (XRGB8888) with plane alpha @pa (0..0xffff) in
 * blend mode @mode; the result has X = 0. With A = fg.alpha * 257 and
 * cov = div65535(pa * A), per channel:
 *   NONE:     div65535(fg * pa  + bg * (65535 - pa))
 *   PREMULTI: min(255, div65535(fg * pa  + bg * (65535 - cov)))
 *   COVERAGE: div65535(fg * cov + bg * (65535 - cov))
 */
static uint32_t vdxg_scan_blend(uint32_t fg, uint32_t bg, uint32_t mode,
                              uint32_t pa)
{
    uint32_t cov, wf, wb, out = 0, ch, v;

    cov = vdxg_div65535(pa * (extract32(fg, 24, 8) * 257));
    switch (mode) {
    case VDXG_BLEND_NONE:
        wf = pa;
        wb = 65535 - pa;
        break;
    case VDXG_BLEND_PREMULTI:
        wf = pa;
        wb = 65535 - cov;
        break;
    default:
        wf = cov;
        wb = 65535 - cov;
        break;
    }
    for (ch = 0; ch < 24; ch += 8) {
        v = vdxg_div65535(extract32(fg, ch, 8) * wf +
                          extract32(bg, ch, 8) * wb);
        out |= MIN(v, 255u) << ch;
    }
    return out;
}

/* Read @n scanout pixels of format @fourcc at @src as ARGB8888 into @dst. */
static void vdxg_scan_row(uint32_t fourcc, const uint8_t *src, uint32_t *dst,
                          int64_t n)
{
    int64_t i;

    switch (fourcc) {
    case VDXG_FOURCC_XRGB8888:
        for (i = 0; i < n; i++) {
            dst[i] = ldl_le_p(src + i * 4) | 0xff000000u;
        }
        break;
    case VDXG_FOURCC_ARGB8888:
        for (i = 0; i < n; i++) {
            dst[i] = ldl_le_p(src + i * 4);
        }
        break;
    default:
        for (i = 0; i < n; i++) {
            dst[i] = vdxg_scan_px(fourcc, src + i * vdxg_fourcc_cpp(fourcc));
        }
        break;
    }
}

/* Are the pixels of plane @pl opaque, replacing what is under them? */
static bool vdxg_plane_opaque(const VdxgPlane *pl)
{
    uint32_t mode = extract32(pl->ctrl, VDXG_PLANE_CTRL_BLEND_SHIFT, 2);

    /* Formats without alpha read A = 255, which every mode treats alike */
    return pl->alpha == VDXG_ALPHA_OPAQUE &&
           (mode == VDXG_BLEND_NONE || pl->format != VDXG_FOURCC_ARGB8888);
}

/*
 * Where plane @pl meets frame row @y: its destination row and columns,
 * and for a plane that is not sampled, its source row
 */
typedef struct VdxgPlaneRow {
    uint64_t addr;              /* first source byte, if not sampled */
    int64_t dx0;                /* first frame column */
    int64_t n;                  /* pixels; 0 when the row misses the plane */
    int64_t u0;                 /* first destination column */
    int64_t v;                  /* destination row */
} VdxgPlaneRow;

static bool vdxg_plane_flip_x(const VdxgPlane *pl)
{
    return !!(pl->ctrl & VDXG_PLANE_CTRL_ROT_180) !=
           !!(pl->ctrl & VDXG_PLANE_CTRL_REFLECT_X);
}

static bool vdxg_plane_flip_y(const VdxgPlane *pl)
{
    return !!(pl->ctrl & VDXG_PLANE_CTRL_ROT_180) !=
           !!(pl->ctrl & VDXG_PLANE_CTRL_REFLECT_Y);
}

static void vdxg_plane_row(const VdxgCrtc *c, const VdxgPlane *pl,
                           int64_t y, VdxgPlaneRow *r)
{
    int64_t w = vdxg_plane_w(pl), h = vdxg_plane_h(pl);
    int64_t dw = vdxg_plane_dw(pl), dh = vdxg_plane_dh(pl);
    int64_t x0 = (int16_t)extract32(pl->dst_pos, 0, 16);
    int64_t y0 = (int16_t)extract32(pl->dst_pos, 16, 16);
    int64_t dx1 = MIN(x0 + dw, (int64_t)c->fw);
    int64_t v, sv, su0;

    r->n = 0;
    r->dx0 = MAX(x0, 0);
    if (y < y0 || y >= y0 + dh || r->dx0 >= dx1) {
        return;
    }
    r->n = dx1 - r->dx0;
    r->u0 = r->dx0 - x0;
    r->v = y - y0;
    if (vdxg_plane_sampled(pl)) {
        return;
    }
    /* The first source column that a visible pixel shows */
    su0 = vdxg_plane_flip_x(pl) ? w - (dx1 - x0) : r->dx0 - x0;
    v = y - y0;
    sv = vdxg_plane_flip_y(pl) ? h - 1 - v : v;
    r->addr = pl->addr + (uint64_t)sv * pl->pitch +
              (uint64_t)su0 * vdxg_fourcc_cpp(pl->format);
}

/* Blend @n pixels @px (ARGB) of latched plane @pl over @out. */
static void vdxg_plane_blend_row(const VdxgPlane *pl, const uint32_t *px,
                                 uint32_t *out, int64_t n)
{
    uint32_t mode = extract32(pl->ctrl, VDXG_PLANE_CTRL_BLEND_SHIFT, 2);
    int64_t i;

    if (vdxg_plane_opaque(pl)) {
        for (i = 0; i < n; i++) {
            out[i] = px[i] & 0xffffff;
        }
    } else {
        for (i = 0; i < n; i++) {
            out[i] = vdxg_scan_blend(px[i], out[i], mode, pl->alpha);
        }
    }
}

/*
 * Source pixel (@x, @y) of latched plane @pl as ARGB into @px; false after
 * an access fault, described in @err.
 */
static bool vdxg_plane_fetch(VdxgState *s, const VdxgPlane *pl, uint32_t x,
                             uint32_t y, uint32_t *px, VdxgErr *err)
{
    uint32_t cpp = vdxg_fourcc_cpp(pl->format);
    uint64_t a = pl->addr + (uint64_t)y * pl->pitch + (uint64_t)x * cpp;
    uint8_t b[4];

    if (vdxg_in_vram(&s->core, a, cpp)) {
        *px = vdxg_scan_px(pl->format, s->core.vram_ptr + a);
        return true;
    }
    if (!vdxg_gpu_rw(&s->core, a, b, cpp, false, err)) {
        return false;
    }
    *px = vdxg_scan_px(pl->format, b);
    return true;
}

/* Pixel (@ru, @rv) of the rotated source of @pl as ARGB into @px */
static bool vdxg_plane_fetch_rot(VdxgState *s, const VdxgPlane *pl,
                                 uint32_t ru, uint32_t rv, uint32_t *px,
                                 VdxgErr *err)
{
    uint32_t w = vdxg_plane_w(pl), h = vdxg_plane_h(pl), x, y;
    bool fx = vdxg_plane_flip_x(pl), fy = vdxg_plane_flip_y(pl);

    if (pl->ctrl & VDXG_PLANE_CTRL_ROT_90) {
        x = fx ? rv : w - 1 - rv;
        y = fy ? h - 1 - ru : ru;
    } else {
        x = fx ? w - 1 - ru : ru;
        y = fy ? h - 1 - rv : rv;
    }
    return vdxg_plane_fetch(s, pl, x, y, px, err);
}

/* Bilinear sampling: destination @u of @d on a source of @r, 16.16 */
static uint32_t vdxg_bilinear_pos(int64_t u, int64_t r, int64_t d)
{
    int64_t p = (2 * u + 1) * r * 65536 / (2 * d) - 32768;

    return MIN(MAX(p, 0), (r - 1) << 16);
}

/* The bilinear mix of four ARGB pixels at fractions @fu, @fv (0..255) */
static uint32_t vdxg_bilinear_mix(const uint32_t q[4], uint32_t fu,
                                  uint32_t fv)
{
    uint32_t w[4] = {
        (256 - fu) * (256 - fv), fu * (256 - fv), (256 - fu) * fv, fu * fv,
    };
    uint32_t out = 0, ch, sum;
    unsigned int i;

    for (ch = 0; ch < 32; ch += 8) {
        sum = 32768;
        for (i = 0; i < 4; i++) {
            sum += extract32(q[i], ch, 8) * w[i];
        }
        out |= (sum >> 16) << ch;
    }
    return out;
}

/*
 * Sample destination row @r->v of scaled or ROT_90 plane @pl, pixels
 * @r->u0 on, into @px (ARGB); false after an access fault.
 */
static bool vdxg_plane_sample_row(VdxgState *s, const VdxgPlane *pl,
                                  const VdxgPlaneRow *r, uint32_t *px,
                                  VdxgErr *err)
{
    int64_t rw = vdxg_plane_rw(pl), rh = vdxg_plane_rh(pl);
    int64_t dw = vdxg_plane_dw(pl), dh = vdxg_plane_dh(pl);
    uint32_t pu, pv, ru0, ru1, rv0, rv1, q[4];
    int64_t i, u;

    if (!(pl->ctrl & VDXG_PLANE_CTRL_BILINEAR)) {
        rv0 = (2 * r->v + 1) * rh / (2 * dh);
        for (i = 0; i < r->n; i++) {
            u = r->u0 + i;
            if (!vdxg_plane_fetch_rot(s, pl, (2 * u + 1) * rw / (2 * dw), rv0,
                                      &px[i], err)) {
                return false;
            }
        }
        return true;
    }
    pv = vdxg_bilinear_pos(r->v, rh, dh);
    rv0 = pv >> 16;
    rv1 = MIN(rv0 + 1, rh - 1);
    for (i = 0; i < r->n; i++) {
        pu = vdxg_bilinear_pos(r->u0 + i, rw, dw);
        ru0 = pu >> 16;
        ru1 = MIN(ru0 + 1, rw - 1);
        if (!vdxg_plane_fetch_rot(s, pl, ru0, rv0, &q[0], err) ||
            !vdxg_plane_fetch_rot(s, pl, ru1, rv0, &q[1], err) ||
            !vdxg_plane_fetch_rot(s, pl, ru0, rv1, &q[2], err) ||
            !vdxg_plane_fetch_rot(s, pl, ru1, rv1, &q[3], err)) {
            return false;
        }
        px[i] = vdxg_bilinear_mix(q, (pu >> 8) & 0xff, (pv >> 8) & 0xff);
    }
    return true;
}

/* Draw @n source pixels of latched plane @pl at @src over @out. */
static void vdxg_plane_draw_row(VdxgState *s, const VdxgPlane *pl,
                                const uint8_t *src, uint32_t *out, int64_t n)
{
    bool flip_x = vdxg_plane_flip_x(pl);
    bool opaque = vdxg_plane_opaque(pl);
    uint32_t *px = s->disp_px;
    int64_t i;

    if (opaque && !flip_x && pl->format == VDXG_FOURCC_XRGB8888) {
        /* The common case: a straight copy */
        for (i = 0; i < n; i++) {
            out[i] = ldl_le_p(src + i * 4) & 0xffffff;
        }
        return;
    }
    vdxg_scan_row(pl->format, src, px, n);
    if (flip_x) {
        for (i = 0; i < n / 2; i++) {
            uint32_t t = px[i];

            px[i] = px[n - 1 - i];
            px[n - 1 - i] = t;
        }
    }
    vdxg_plane_blend_row(pl, px, out, n);
}

/* Does latched plane @pl cover the whole frame of @c, opaque? */
static bool vdxg_plane_covers(const VdxgCrtc *c, const VdxgPlane *pl)
{
    int64_t x0 = (int16_t)extract32(pl->dst_pos, 0, 16);
    int64_t y0 = (int16_t)extract32(pl->dst_pos, 16, 16);

    return vdxg_plane_opaque(pl) && x0 <= 0 && y0 <= 0 &&
           x0 + vdxg_plane_dw(pl) >= c->fw && y0 + vdxg_plane_dh(pl) >= c->fh;
}

/*
 * A fast hash of what a frame row is composed from, to recompose only
 * the rows whose inputs changed. Not cryptographic: a guest that makes
 * two of its own rows collide only keeps its own display from updating.
 */
static uint64_t vdxg_hash(uint64_t h, const void *p, size_t len)
{
    const uint8_t *b = p;
    size_t i;

    for (i = 0; i + 8 <= len; i += 8) {
        h = (h ^ ldq_he_p(b + i)) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    for (; i < len; i++) {
        h = (h ^ b[i]) * 0x9e3779b97f4a7c15ull;
    }
    return h;
}

/*
 * The rows that the latches since the last composition may change are
 * composed; a composed row outside them keeps its pixels (if every latch
 * said which rows it changes).
 */
static void vdxg_compose_keep(VdxgCrtc *c)
{
    uint32_t y;

    if (!c->upd_latched) {
        return;
    }
    for (y = 0; y < c->fh; y++) {
        bool upd = c->upd_all || (y >= c->upd_y0 && y < c->upd_y1);

        if (upd && c->row_hash[y] == VDXG_ROW_KEPT) {
            c->row_hash[y] = 0;
        } else if (!upd && c->row_hash[y]) {
            c->row_hash[y] = VDXG_ROW_KEPT;
        }
    }
    c->upd_latched = false;
}

/* Start composing the latched state of active CRTC @c from the top. */
static void vdxg_compose_start(VdxgState *s, VdxgCrtc *c)
{
    unsigned int n = 0, i, p;
    uint64_t h;

    /* Shown planes, bottom first: by ZPOS, then primary, overlay, cursor */
    for (p = 0; p < VDXG_NUM_PLANES; p++) {
        if (!(c->pstatus[p] & VDXG_PLANE_STATUS_ACTIVE)) {
            continue;
        }
        for (i = n; i > 0 && c->cur[c->comp_order[i - 1]].zpos > c->cur[p].zpos;
             i--) {
            c->comp_order[i] = c->comp_order[i - 1];
        }
        c->comp_order[i] = p;
        n++;
    }
    c->comp_n = n;
    c->comp_fill = !n || !vdxg_plane_covers(c, &c->cur[c->comp_order[0]]);
    if (c->rows_invalid || c->row_hash_len != c->fh) {
        g_free(c->row_hash);
        c->row_hash = g_new0(uint64_t, c->fh);
        c->row_hash_len = c->fh;
        c->rows_invalid = false;
    }
    vdxg_compose_keep(c);
    h = vdxg_hash(c->fw, &c->abg, sizeof(c->abg));
    h = vdxg_hash(h, &c->comp_fill, sizeof(c->comp_fill));
    for (i = 0; i < n; i++) {
        h = vdxg_hash(h, &c->cur[c->comp_order[i]], sizeof(VdxgPlane));
    }
    if (vdxg_color_on(c)) {
        h = vdxg_hash(h, &c->acolor, sizeof(c->acolor));
    }
    c->comp_state = h;
    c->comp_row = 0;
    c->comp_crc = crc32(0, NULL, 0);
    c->comp_crc_on = c->ctrl & VDXG_CRTC_CTRL_CRC;
    c->comp_changed = false;
    c->composing = true;
    c->dirty_again = false;
    c->stale = false;
    c->crc_valid = false;
}

/*
 * Compose frame row @y of @c, unless its inputs are those it was last
 * composed from. Returns false after an access fault, which has hidden
 * the plane.
 */
static bool vdxg_compose_row(VdxgState *s, VdxgCrtc *c, uint32_t y)
{
    VdxgPlaneRow r[VDXG_NUM_PLANES];
    const uint8_t *src[VDXG_NUM_PLANES];
    uint64_t h = c->comp_state;
    uint32_t *out = c->frame + (size_t)y * c->fw;
    unsigned int j, p;
    uint32_t cpp;
    VdxgErr err;
    size_t k;

    if (c->row_hash[y] == VDXG_ROW_KEPT) {
        return true;
    }
    for (j = 0; j < c->comp_n; j++) {
        const VdxgPlane *pl;

        p = c->comp_order[j];
        pl = &c->cur[p];
        cpp = vdxg_fourcc_cpp(pl->format);
        src[j] = NULL;
        vdxg_plane_row(c, pl, y, &r[j]);
        if (!r[j].n) {
            continue;
        }
        if (vdxg_plane_sampled(pl)) {
            if (!vdxg_plane_sample_row(s, pl, &r[j], s->disp_smp[j], &err)) {
                c->pstatus[p] = VDXG_PLANE_STATUS_FAULT;
                vdxg_display_fault(s, c, p, err.reason, err.addr);
                return false;
            }
            h = vdxg_hash(h ^ j, s->disp_smp[j], r[j].n * 4);
            continue;
        }
        if (vdxg_in_vram(&s->core, r[j].addr, r[j].n * cpp)) {
            src[j] = s->core.vram_ptr + r[j].addr;
        } else {
            if (!vdxg_gpu_rw(&s->core, r[j].addr, s->disp_src[j], r[j].n * cpp,
                             false, &err)) {
                c->pstatus[p] = VDXG_PLANE_STATUS_FAULT;
                vdxg_display_fault(s, c, p, err.reason, err.addr);
                return false;
            }
            src[j] = s->disp_src[j];
        }
        h = vdxg_hash(h ^ j, src[j], r[j].n * cpp);
    }
    h |= 1;                     /* 0: never composed, 2: kept */
    if (c->row_hash[y] == h) {
        return true;
    }
    if (c->comp_fill) {
        for (k = 0; k < c->fw; k++) {
            out[k] = c->abg & 0xffffff;
        }
    }
    for (j = 0; j < c->comp_n; j++) {
        const VdxgPlane *pl = &c->cur[c->comp_order[j]];

        if (!r[j].n) {
            continue;
        }
        if (vdxg_plane_sampled(pl)) {
            vdxg_plane_blend_row(pl, s->disp_smp[j], out + r[j].dx0, r[j].n);
        } else {
            vdxg_plane_draw_row(s, pl, src[j], out + r[j].dx0, r[j].n);
        }
    }
    if (vdxg_color_on(c)) {
        vdxg_color_row(c, out, c->fw);
    }
    c->row_hash[y] = h;
    c->comp_changed = true;
    if (c->con_y0 < c->con_y1) {
        c->con_y0 = MIN(c->con_y0, y);
        c->con_y1 = MAX(c->con_y1, y + 1);
    } else if (!c->con_dirty) {
        c->con_y0 = y;
        c->con_y1 = y + 1;
    }
    return true;
}

/* Go on with the CRC of @c over its frame row @y. */
static void vdxg_crc_row(VdxgState *s, VdxgCrtc *c, uint32_t y)
{
    const uint32_t *row = c->frame + (size_t)y * c->fw;
#if HOST_BIG_ENDIAN
    uint32_t x;

    for (x = 0; x < c->fw; x++) {
        stl_le_p(s->disp_row + x * 4, row[x]);
    }
    c->comp_crc = crc32(c->comp_crc, s->disp_row, c->fw * 4);
#else
    c->comp_crc = crc32(c->comp_crc, (const Bytef *)row, c->fw * 4);
#endif
}

/* Pixels composed between two looks at the clock */
#define VDXG_COMPOSE_CHECK_PX   16384

/*
 * Compose the latched state of active CRTC @c into its frame, a row at
 * a time, until it is done (true) or get_clock() passes @deadline
 * (false: the next call goes on from there). A change of the latched
 * state (c->stale) starts again from the top.
 */
static bool vdxg_crtc_compose_step(VdxgState *s, VdxgCrtc *c, int64_t deadline)
{
    int64_t start = get_clock();
    uint32_t rows = 0, every;

    if (c->stale) {
        vdxg_compose_start(s, c);
    }
    if (!c->composing) {
        return true;
    }
    if (c->row_hash_len != c->fh || c->comp_row > c->fh) {
        /* The frame was resized under the composition */
        vdxg_compose_start(s, c);
    }
    every = MAX(1, VDXG_COMPOSE_CHECK_PX /
                   (c->fw * (c->comp_n + 1 + vdxg_color_weight(c))));
    while (c->comp_row < c->fh) {
        if (!vdxg_compose_row(s, c, c->comp_row)) {
            /* The plane is hidden now: draw the frame without it. */
            vdxg_compose_start(s, c);
            continue;
        }
        if (c->comp_crc_on) {
            vdxg_crc_row(s, c, c->comp_row);
        }
        c->comp_row++;
        if (++rows % every == 0 && c->comp_row < c->fh &&
            get_clock() >= deadline) {
            trace_vdxg_compose_slice(c->index, c->comp_row, c->fh,
                                     get_clock() - start);
            return false;
        }
    }
    c->composing = false;
    c->stale = c->dirty_again;
    if (c->comp_crc_on) {
        c->crc_cache = c->comp_crc;
        c->crc_valid = true;
        s->disp_crcs++;
    }
    if (c->comp_changed) {
        c->con_dirty = true;
    }
    s->disp_composes++;
    trace_vdxg_compose(c->index, c->fw, c->fh, c->comp_n,
                       get_clock() - start);
    return true;
}

/*
 * The kept rows of @c that latched plane @pl shows and whose memory
 * changed, as @snap says (without it, all of them), are composed again:
 * a plane row counts as changed when one of the pages its bytes are on
 * is dirty. Rows of a scaled or ROT_90 plane are not told apart.
 */
static void vdxg_plane_unkeep(VdxgState *s, VdxgCrtc *c, const VdxgPlane *pl,
                              DirtyBitmapSnapshot *snap)
{
    int64_t y0 = (int16_t)extract32(pl->dst_pos, 16, 16);
    int64_t y1 = MIN(y0 + vdxg_plane_dh(pl), (int64_t)c->row_hash_len);
    uint32_t cpp = vdxg_fourcc_cpp(pl->format);
    VdxgPlaneRow r;
    int64_t y;

    if (c->row_hash_len != c->fh) {
        return;
    }
    for (y = MAX(y0, 0); y < y1; y++) {
        if (c->row_hash[y] != VDXG_ROW_KEPT) {
            continue;
        }
        if (snap && !vdxg_plane_sampled(pl)) {
            vdxg_plane_row(c, pl, y, &r);
            if (!r.n || !memory_region_snapshot_get_dirty(&s->vram, snap,
                                                          r.addr,
                                                          r.n * cpp)) {
                continue;
            }
        }
        c->row_hash[y] = 0;
    }
}

/*
 * Mark the frames whose planes have changed in memory since the last
 * look: VRAM through the dirty log, the aperture always (its rows are
 * composed again only when their bytes changed). A frame being composed
 * goes on; it is composed again once done.
 *
 * Under TCG the dirty log's snapshot waits for every vCPU to leave the
 * code it runs (tcg_log_global_after_sync() calls run_on_cpu()), with the
 * BQL released: the vCPUs run meanwhile and may access the device's
 * registers. So this is called between two pieces of the device's work,
 * never under the re-entrancy guard, which would refuse those accesses as
 * re-entrant (the guest would read 0 from INT_STATUS and lose its
 * interrupt; its ring TAIL writes would be dropped), and the caller looks
 * at the device's state again afterwards.
 */
void vdxg_display_harvest(VdxgState *s)
{
    uint64_t lo = UINT64_MAX, hi = 0, span;
    DirtyBitmapSnapshot *snap = NULL;
    unsigned int ci, p;

    assert(!DEVICE(s)->mem_reentrancy_guard.engaged_in_io);
    for (ci = 0; ci < s->outputs; ci++) {
        VdxgCrtc *c = vdxg_crtc(s, ci);

        for (p = 0; vdxg_crtc_active(c) && p < VDXG_NUM_PLANES; p++) {
            const VdxgPlane *pl = &c->cur[p];

            if (!(c->pstatus[p] & VDXG_PLANE_STATUS_ACTIVE)) {
                continue;
            }
            span = vdxg_plane_span(pl);
            if (vdxg_in_vram(&s->core, pl->addr, span)) {
                lo = MIN(lo, pl->addr);
                hi = MAX(hi, pl->addr + span);
                continue;
            }
            vdxg_plane_unkeep(s, c, pl, NULL);
            if (c->composing) {
                c->dirty_again = true;
            } else {
                c->stale = true;
            }
        }
    }
    if (lo >= hi) {
        return;
    }
    snap = memory_region_snapshot_and_clear_dirty(&s->vram, lo, hi - lo,
                                                  DIRTY_MEMORY_VGA);
    for (ci = 0; ci < s->outputs; ci++) {
        VdxgCrtc *c = vdxg_crtc(s, ci);

        for (p = 0; vdxg_crtc_active(c) && p < VDXG_NUM_PLANES; p++) {
            const VdxgPlane *pl = &c->cur[p];

            span = vdxg_plane_span(pl);
            if ((c->pstatus[p] & VDXG_PLANE_STATUS_ACTIVE) &&
                vdxg_in_vram(&s->core, pl->addr, span) &&
                memory_region_snapshot_get_dirty(&s->vram, snap, pl->addr,
                                                 span)) {
                vdxg_plane_unkeep(s, c, pl, snap);
                if (c->composing) {
                    c->dirty_again = true;
                } else {
                    c->stale = true;
                }
            }
        }
    }
    g_free(snap);
}

/*
 * About the work of composing @c, in pixels (a translucent plane's count
 * eight times, and so does the frame's with the colour matrix on). Up to
 * VDXG_COMPOSE_SYNC_WORK a frame is composed when it is needed; above, in
 * slices of the compose bottom half.
 */
#define VDXG_COMPOSE_SYNC_WORK  (2 * 1024 * 1024)

static uint64_t vdxg_compose_work(const VdxgCrtc *c)
{
    uint64_t work = (uint64_t)c->fw * c->fh * (1 + vdxg_color_weight(c));
    unsigned int p;

    for (p = 0; p < VDXG_NUM_PLANES; p++) {
        const VdxgPlane *pl = &c->cur[p];

        uint64_t weight;

        if (!(c->pstatus[p] & VDXG_PLANE_STATUS_ACTIVE)) {
            continue;
        }
        weight = vdxg_plane_opaque(pl) ? 1 : 8;
        if (vdxg_plane_sampled(pl)) {
            /* A fetch per pixel, four when bilinear */
            weight += pl->ctrl & VDXG_PLANE_CTRL_BILINEAR ? 16 : 4;
        }
        work += (uint64_t)vdxg_plane_dw(pl) * vdxg_plane_dh(pl) * weight;
    }
    return work;
}

/*
 * Bring the frame of @c up to date if that is quick; otherwise let the
 * compose bottom half do it in slices and return false. A frame that a
 * writeback capture is reading is composed once the capture ends. What
 * changed in memory is what the caller's vdxg_display_harvest() saw.
 */
bool vdxg_crtc_refresh_sliced(VdxgState *s, VdxgCrtc *c)
{
    if (!vdxg_crtc_active(c)) {
        return true;
    }
    if (!c->stale && !c->composing) {
        return true;
    }
    if (vdxg_wb_holds(s, c)) {
        /* vdxg_wb_end_capture() schedules the compose bottom half */
        return false;
    }
    if (vdxg_compose_work(c) <= VDXG_COMPOSE_SYNC_WORK) {
        vdxg_crtc_compose_step(s, c, INT64_MAX);
        return true;
    }
    qemu_bh_schedule(s->compose_bh);
    return false;
}

/*
 * The compose bottom half: compose the frames that are wanted (a CRC,
 * the console, a writeback capture) for about VDXG_SLICE_NS, then let
 * the main loop run. A CRC that waited for its frame is stored when the
 * frame is done, and a capture that waited for it is started.
 */
void vdxg_compose_bh(void *opaque)
{
    VdxgState *s = opaque;
    int64_t start = get_clock(), cpu = vdxg_thread_ns();
    unsigned int ci;
    bool more = false;

    for (ci = 0; ci < s->outputs && !more; ci++) {
        VdxgCrtc *c = vdxg_crtc(s, ci);

        if (!vdxg_crtc_active(c)) {
            c->composing = false;
            c->crc_pending = false;
            continue;
        }
        if ((!c->composing && !c->stale && !c->crc_pending) ||
            vdxg_wb_holds(s, c)) {
            /* A capture reads the frame: composed when it ends */
            continue;
        }
        if (!vdxg_crtc_compose_step(s, c, start + VDXG_SLICE_NS)) {
            more = true;
            break;
        }
        if (vdxg_wb_busy(s) && vdxg_wb_crtc(s) == ci) {
            /* A capture waits for the frame. */
            qemu_bh_schedule(s->wb_bh);
        }
        if (c->crc_pending && (c->ctrl & VDXG_CRTC_CTRL_CRC)) {
            c->crc = vdxg_crtc_crc(s, c);
            c->crc_frame = c->crc_pending_frame;
            c->crc_first = MIN(c->state_frame, c->crc_pending_frame);
            trace_vdxg_crc_late(c->index, c->crc_pending_frame, c->crc);
        }
        c->crc_pending = false;
    }
    if (more) {
        qemu_bh_schedule(s->compose_bh);
    }
    cpu = vdxg_thread_ns() - cpu;
    trace_vdxg_compose_bh(get_clock() - start, cpu);
    vdxg_note_slice(&s->core, get_clock() - start, cpu);
}

/*
 * CRC-32/ISO-HDLC (zlib's crc32) of the frame's bytes: HDISPLAY x VDISPLAY
 * XRGB8888 pixels, little endian, X = 0, rows top to bottom, no padding.
 */
uint32_t vdxg_crtc_crc(VdxgState *s, VdxgCrtc *c)
{
    if (!c->crc_valid) {
#if HOST_BIG_ENDIAN
        uLong crc = crc32(0, NULL, 0);
        uint32_t y, x;

        for (y = 0; y < c->fh; y++) {
            for (x = 0; x < c->fw; x++) {
                stl_le_p(s->disp_row + x * 4, c->frame[y * c->fw + x]);
            }
            crc = crc32(crc, s->disp_row, c->fw * 4);
        }
        c->crc_cache = crc;
#else
        c->crc_cache = crc32(crc32(0, NULL, 0), (const Bytef *)c->frame,
                             c->fw * c->fh * 4);
#endif
        c->crc_valid = true;
        s->disp_crcs++;
    }
    return c->crc_cache;
}
