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
    vdxg_color_latch(c);
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

/* Where plane @pl meets frame row @y: its source row and columns */
typedef struct VdxgPlaneRow {
    uint64_t addr;              /* first source byte */
    int64_t dx0;                /* first frame column */
    int64_t n;                  /* pixels; 0 when the row misses the plane */
} VdxgPlaneRow;

static bool vdxg_plane_flip_x(const VdxgPlane *pl)
{
    return !!(pl->ctrl & VDXG_PLANE_CTRL_ROT_180) !=
           !!(pl->ctrl & VDXG_PLANE_CTRL_REFLECT_X);
}

static void vdxg_plane_row(const VdxgCrtc *c, const VdxgPlane *pl,
                           int64_t y, VdxgPlaneRow *r)
{
    int64_t w = vdxg_plane_w(pl), h = vdxg_plane_h(pl);
    int64_t x0 = (int16_t)extract32(pl->dst_pos, 0, 16);
    int64_t y0 = (int16_t)extract32(pl->dst_pos, 16, 16);
    int64_t dx1 = MIN(x0 + w, (int64_t)c->fw);
    bool rot = pl->ctrl & VDXG_PLANE_CTRL_ROT_180;
    bool flip_y = rot != !!(pl->ctrl & VDXG_PLANE_CTRL_REFLECT_Y);
    int64_t v, sv, su0;

    r->n = 0;
    r->dx0 = MAX(x0, 0);
    if (y < y0 || y >= y0 + h || r->dx0 >= dx1) {
        return;
    }
    r->n = dx1 - r->dx0;
    /* The first source column that a visible pixel shows */
    su0 = vdxg_plane_flip_x(pl) ? w - (dx1 - x0) : r->dx0 - x0;
    v = y - y0;
    sv = flip_y ? h - 1 - v : v;
    r->addr = pl->addr + (uint64_t)sv * pl->pitch +
              (uint64_t)su0 * vdxg_fourcc_cpp(pl->format);
}

/* Draw @n source pixels of latched plane @pl at @src over @out. */
static void vdxg_plane_draw_row(VdxgState *s, const VdxgPlane *pl,
                                const uint8_t *src, uint32_t *out, int64_t n)
{
    uint32_t mode = extract32(pl->ctrl, VDXG_PLANE_CTRL_BLEND_SHIFT, 2);
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

/* Does latched plane @pl cover the whole frame of @c, opaque? */
static bool vdxg_plane_covers(const VdxgCrtc *c, const VdxgPlane *pl)
{
    int64_t x0 = (int16_t)extract32(pl->dst_pos, 0, 16);
    int64_t y0 = (int16_t)extract32(pl->dst_pos, 16, 16);

    return vdxg_plane_opaque(pl) && x0 <= 0 && y0 <= 0 &&
           x0 + vdxg_plane_w(pl) >= c->fw && y0 + vdxg_plane_h(pl) >= c->fh;
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
    h |= 1;                     /* 0: never composed */
    if (c->row_hash[y] == h) {
        return true;
    }
    if (c->comp_fill) {
        for (k = 0; k < c->fw; k++) {
            out[k] = c->abg & 0xffffff;
        }
    }
    for (j = 0; j < c->comp_n; j++) {
        if (r[j].n) {
            vdxg_plane_draw_row(s, &c->cur[c->comp_order[j]], src[j],
                                out + r[j].dx0, r[j].n);
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
            } else if (c->composing) {
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

        if (c->pstatus[p] & VDXG_PLANE_STATUS_ACTIVE) {
            work += (uint64_t)vdxg_plane_w(pl) * vdxg_plane_h(pl) *
                    (vdxg_plane_opaque(pl) ? 1 : 8);
        }
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
