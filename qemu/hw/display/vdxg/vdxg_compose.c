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
#include "vdxg_int.h"
#include "hw/display/trace.h"

/* Planes */

/* Bytes per pixel of a scanout format; 0 for the others */
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
    if (!vdxg_gpu_range_ok(s, pl->addr, vdxg_plane_span(pl))) {
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

void vdxg_crtc_latch_all(VdxgState *s, VdxgCrtc *c)
{
    unsigned int p;

    for (p = 0; p < VDXG_NUM_PLANES; p++) {
        vdxg_plane_latch(s, c, p);
    }
    c->abg = c->bg;
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
 * Draw latched plane @p of @c over the frame. Returns false after an
 * access fault, which has hidden the plane.
 */
static bool vdxg_plane_draw(VdxgState *s, VdxgCrtc *c, unsigned int p)
{
    const VdxgPlane *pl = &c->cur[p];
    int64_t w = vdxg_plane_w(pl), h = vdxg_plane_h(pl);
    int64_t x0 = (int16_t)extract32(pl->dst_pos, 0, 16);
    int64_t y0 = (int16_t)extract32(pl->dst_pos, 16, 16);
    int64_t fw = c->fw, fh = c->fh;
    int64_t dx0 = MAX(x0, 0), dx1 = MIN(x0 + w, fw);
    int64_t dy0 = MAX(y0, 0), dy1 = MIN(y0 + h, fh);
    bool rot = pl->ctrl & VDXG_PLANE_CTRL_ROT_180;
    bool flip_x = rot != !!(pl->ctrl & VDXG_PLANE_CTRL_REFLECT_X);
    bool flip_y = rot != !!(pl->ctrl & VDXG_PLANE_CTRL_REFLECT_Y);
    uint32_t mode = extract32(pl->ctrl, VDXG_PLANE_CTRL_BLEND_SHIFT, 2);
    uint32_t cpp = vdxg_fourcc_cpp(pl->format);
    bool in_vram = vdxg_in_vram(s, pl->addr, vdxg_plane_span(pl));
    bool opaque = vdxg_plane_opaque(pl);
    uint32_t *px = s->disp_px;
    int64_t n, su0, dy, i, v, sv;
    uint64_t row;
    const uint8_t *src;
    uint32_t *out;
    VdxgErr err;

    if (dx0 >= dx1 || dy0 >= dy1) {
        return true;
    }
    n = dx1 - dx0;
    /* The first source column that a visible pixel shows */
    su0 = flip_x ? w - (dx1 - x0) : dx0 - x0;
    for (dy = dy0; dy < dy1; dy++) {
        v = dy - y0;
        sv = flip_y ? h - 1 - v : v;
        row = pl->addr + (uint64_t)sv * pl->pitch + (uint64_t)su0 * cpp;
        if (in_vram) {
            src = s->vram_ptr + row;
        } else {
            if (!vdxg_gpu_rw(s, row, s->disp_row, n * cpp, false, &err)) {
                c->pstatus[p] = VDXG_PLANE_STATUS_FAULT;
                vdxg_display_fault(s, c, p, err.reason, err.addr);
                return false;
            }
            src = s->disp_row;
        }
        out = c->frame + dy * fw + dx0;
        if (opaque && !flip_x && pl->format == VDXG_FOURCC_XRGB8888) {
            /* The common case: a straight copy */
            for (i = 0; i < n; i++) {
                out[i] = ldl_le_p(src + i * 4) & 0xffffff;
            }
            continue;
        }
        vdxg_scan_row(pl->format, src, px, n);
        if (flip_x) {
            for (i = 0; i < n / 2; i++) {
                uint32_t t = px[i];

                px[i] = px[n - 1 - i];
                px[n - 1 - i] = t;
            }
        }
        if (opaque) {
            for (i = 0; i < n; i++) {
                out[i] = px[i] & 0xffffff;
            }
        } else {
            for (i = 0; i < n; i++) {
                out[i] = vdxg_scan_blend(px[i], out[i], mode, pl->alpha);
            }
        }
    }
    return true;
}

/* Does latched plane @pl cover the whole frame of @c, opaque? */
static bool vdxg_plane_covers(const VdxgCrtc *c, const VdxgPlane *pl)
{
    int64_t x0 = (int16_t)extract32(pl->dst_pos, 0, 16);
    int64_t y0 = (int16_t)extract32(pl->dst_pos, 16, 16);

    return vdxg_plane_opaque(pl) && x0 <= 0 && y0 <= 0 &&
           x0 + vdxg_plane_w(pl) >= c->fw && y0 + vdxg_plane_h(pl) >= c->fh;
}

/* Compose the latched state of active CRTC @c into its frame. */
static void vdxg_crtc_compose(VdxgState *s, VdxgCrtc *c)
{
    unsigned int order[VDXG_NUM_PLANES], n, i, j, p;
    uint32_t bg = c->abg & 0xffffff;
    size_t px = (size_t)c->fw * c->fh, k;
    int64_t start = get_clock();

retry:
    /* Shown planes, bottom first: by ZPOS, then primary, overlay, cursor */
    n = 0;
    for (p = 0; p < VDXG_NUM_PLANES; p++) {
        if (!(c->pstatus[p] & VDXG_PLANE_STATUS_ACTIVE)) {
            continue;
        }
        for (i = n; i > 0 && c->cur[order[i - 1]].zpos > c->cur[p].zpos;
             i--) {
            order[i] = order[i - 1];
        }
        order[i] = p;
        n++;
    }
    if (!n || !vdxg_plane_covers(c, &c->cur[order[0]])) {
        for (k = 0; k < px; k++) {
            c->frame[k] = bg;
        }
    }
    for (j = 0; j < n; j++) {
        if (!vdxg_plane_draw(s, c, order[j])) {
            /* The plane is hidden now: draw the frame without it. */
            goto retry;
        }
    }
    c->stale = false;
    c->crc_valid = false;
    c->con_dirty = true;
    s->disp_composes++;
    trace_vdxg_compose(c->index, c->fw, c->fh, n, get_clock() - start);
}

/*
 * Mark the frames whose planes have changed in memory since the last
 * look: VRAM through the dirty log, the aperture always.
 */
static void vdxg_display_harvest(VdxgState *s)
{
    uint64_t lo = UINT64_MAX, hi = 0, span;
    DirtyBitmapSnapshot *snap = NULL;
    unsigned int ci, p;

    for (ci = 0; ci < s->outputs; ci++) {
        VdxgCrtc *c = vdxg_crtc(s, ci);

        for (p = 0; vdxg_crtc_active(c) && p < VDXG_NUM_PLANES; p++) {
            const VdxgPlane *pl = &c->cur[p];

            if (!(c->pstatus[p] & VDXG_PLANE_STATUS_ACTIVE)) {
                continue;
            }
            span = vdxg_plane_span(pl);
            if (vdxg_in_vram(s, pl->addr, span)) {
                lo = MIN(lo, pl->addr);
                hi = MAX(hi, pl->addr + span);
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
                vdxg_in_vram(s, pl->addr, span) &&
                memory_region_snapshot_get_dirty(&s->vram, snap, pl->addr,
                                                 span)) {
                c->stale = true;
            }
        }
    }
    g_free(snap);
}

/* Bring the frame of @c up to date with its planes and memory. */
void vdxg_crtc_refresh(VdxgState *s, VdxgCrtc *c)
{
    if (!vdxg_crtc_active(c)) {
        return;
    }
    vdxg_display_harvest(s);
    if (c->stale) {
        vdxg_crtc_compose(s, c);
    }
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
