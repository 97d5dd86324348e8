/*
 * QTest testcases for the vdxg virtual GPU: the display engine: modes,
 * timing, vblank, flips, outputs
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "vdxg-test.h"

/* Display engine */

Dp *dp_start(const char *extra)
{
    Dp *d = g_new0(Dp, 1);

    d->p = pg_start(extra);
    d->v = &d->p->v;
    d->qts = d->v->qts;
    /* Start away from 0 so that offsets show up */
    d->now = qtest_clock_step(d->qts, 12345678);
    return d;
}

void dp_stop(Dp *d)
{
    if (d->tmpdir) {
        g_rmdir(d->tmpdir);
        g_free(d->tmpdir);
    }
    pg_stop(d->p);
    g_free(d);
}

/* The virtual clock, which qtest cannot read without moving it */
static int64_t dp_now(Dp *d)
{
    return d->now;
}

void dp_step(Dp *d, int64_t ns)
{
    if (ns > 0) {
        d->now = qtest_clock_step(d->qts, ns);
    }
}

static void dp_step_to(Dp *d, int64_t t)
{
    g_assert_cmpint(t, >=, d->now);
    dp_step(d, t - d->now);
    g_assert_cmpint(d->now, ==, t);
}

/* ns from the enable to the start of line @line, the contract's formula */
static uint64_t dp_line_ns(const DpMode *m, uint64_t line)
{
    return (unsigned __int128)line * m->ht * 1000000 / m->clock;
}

static uint64_t dp_frame_ns(const DpMode *m)
{
    return dp_line_ns(m, m->vt);
}

/* Virtual time of vblank k >= 1 of CRTC @c */
static int64_t dp_vblank_time(Dp *d, int c, uint64_t k)
{
    const DpMode *m = &d->mode[c];

    return d->t0[c] + dp_line_ns(m, (k - 1) * m->vt + m->vd);
}

static void dp_set_mode(Dp *d, int c, const DpMode *m)
{
    wr(d->v, CR(c, VDXG_CRTC_HDISPLAY), m->hd);
    wr(d->v, CR(c, VDXG_CRTC_HSYNC_START), m->hss);
    wr(d->v, CR(c, VDXG_CRTC_HSYNC_END), m->hse);
    wr(d->v, CR(c, VDXG_CRTC_HTOTAL), m->ht);
    wr(d->v, CR(c, VDXG_CRTC_VDISPLAY), m->vd);
    wr(d->v, CR(c, VDXG_CRTC_VSYNC_START), m->vss);
    wr(d->v, CR(c, VDXG_CRTC_VSYNC_END), m->vse);
    wr(d->v, CR(c, VDXG_CRTC_VTOTAL), m->vt);
    wr(d->v, CR(c, VDXG_CRTC_CLOCK_KHZ), m->clock);
}

/* Program @m and enable CRTC @c with the other CTRL bits @ctrl. */
void dp_enable(Dp *d, int c, const DpMode *m, uint32_t ctrl)
{
    dp_set_mode(d, c, m);
    d->mode[c] = *m;
    d->t0[c] = dp_now(d);
    wr(d->v, CR(c, VDXG_CRTC_CTRL), VDXG_CRTC_CTRL_ENABLE | ctrl);
    g_assert_cmphex(rd(d->v, CR(c, VDXG_CRTC_CTRL)), ==,
                    VDXG_CRTC_CTRL_ENABLE | ctrl);
    g_assert_cmphex(rd(d->v, CR(c, VDXG_CRTC_STATUS)) &
                    (VDXG_CRTC_STATUS_ACTIVE |
                     VDXG_CRTC_STATUS_MODE_INVALID), ==,
                    VDXG_CRTC_STATUS_ACTIVE);
    g_assert_cmpuint(rd(d->v, CR(c, VDXG_CRTC_FRAME_COUNT)), ==, 0);
}

/* Step the clock to CRTC @c's next vblank; returns its FRAME_COUNT. */
uint32_t dp_next_vblank(Dp *d, int c)
{
    uint32_t k = rd(d->v, CR(c, VDXG_CRTC_FRAME_COUNT)) + 1;

    dp_step_to(d, dp_vblank_time(d, c, k));
    g_assert_cmpuint(rd(d->v, CR(c, VDXG_CRTC_FRAME_COUNT)), ==, k);
    return k;
}

void dp_plane(Dp *d, int c, int p, const DpPlane *pl)
{
    wr(d->v, PL(c, p, VDXG_PLANE_CTRL), pl->ctrl);
    wr64(d->v, PL(c, p, VDXG_PLANE_ADDR_LO), pl->addr);
    wr(d->v, PL(c, p, VDXG_PLANE_FORMAT), pl->fmt);
    wr(d->v, PL(c, p, VDXG_PLANE_PITCH), pl->pitch);
    wr(d->v, PL(c, p, VDXG_PLANE_SRC_SIZE), VDXG_PLANE_SIZE_WH(pl->w, pl->h));
    wr(d->v, PL(c, p, VDXG_PLANE_DST_POS), VDXG_PLANE_POS_XY(pl->x, pl->y));
    wr(d->v, PL(c, p, VDXG_PLANE_ALPHA), pl->alpha);
    wr(d->v, PL(c, p, VDXG_PLANE_ZPOS), pl->zpos);
    if (p != VDXG_PLANE_IDX_CURSOR) {
        wr(d->v, PL(c, p, VDXG_PLANE_DST_SIZE),
           VDXG_PLANE_SIZE_WH(pl->dw, pl->dh));
    }
}

/* Write FLIP and step to the vblank that latches it: FLIP_DONE is raised. */
uint32_t dp_flip(Dp *d, int c)
{
    uint32_t k;

    wr(d->v, VDXG_REG_INT_ACK, VDXG_INT_FLIP_DONE(c));
    wr(d->v, CR(c, VDXG_CRTC_FLIP), 1);
    g_assert_cmphex(rd(d->v, CR(c, VDXG_CRTC_STATUS)) &
                    VDXG_CRTC_STATUS_FLIP_PENDING, ==,
                    VDXG_CRTC_STATUS_FLIP_PENDING);
    k = dp_next_vblank(d, c);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS) & VDXG_INT_FLIP_DONE(c),
                    ==, VDXG_INT_FLIP_DONE(c));
    g_assert_cmphex(rd(d->v, CR(c, VDXG_CRTC_STATUS)) &
                    VDXG_CRTC_STATUS_FLIP_PENDING, ==, 0);
    wr(d->v, VDXG_REG_INT_ACK, VDXG_INT_FLIP_DONE(c));
    return k;
}

static uint32_t dp_cpp(uint32_t fmt)
{
    return fmt == RG16 ? 2 : 4;
}

/* Deterministic pixels: @len bytes of stream @seed */
static uint8_t *dp_pattern(size_t len, uint32_t seed)
{
    g_autoptr(GRand) rnd = g_rand_new_with_seed(seed);
    uint8_t *buf = g_malloc(len);
    size_t i;

    for (i = 0; i < len; i++) {
        buf[i] = g_rand_int(rnd);
    }
    return buf;
}

/* Fill @pl's memory with @data (pitch * h bytes), in VRAM or the system */
void dp_put(Dp *d, DpPlane *pl, const uint8_t *data)
{
    pl->data = data;
    vram_write(d->p, pl->addr, data, (size_t)pl->pitch * pl->h);
}

/* A plane of @w x @h at (@x, @y) with random content */
DpPlane dp_rand_plane(Dp *d, uint64_t addr, uint32_t fmt, uint32_t w,
                      uint32_t h, int x, int y, uint32_t seed)
{
    DpPlane pl = {
        .ctrl = PLANE_ON, .addr = addr, .fmt = fmt,
        .pitch = w * dp_cpp(fmt) + 8 * (seed % 3), .w = w, .h = h,
        .x = x, .y = y, .alpha = 0xffff,
    };

    dp_put(d, &pl, dp_pattern((size_t)pl.pitch * h, seed));
    return pl;
}

/* A solid plane of one XRGB/ARGB value */
DpPlane dp_solid_plane(Dp *d, uint64_t addr, uint32_t fmt,
                       uint32_t argb, uint32_t w, uint32_t h, int x,
                       int y)
{
    DpPlane pl = {
        .ctrl = PLANE_ON, .addr = addr, .fmt = fmt, .pitch = w * 4,
        .w = w, .h = h, .x = x, .y = y, .alpha = 0xffff,
    };
    uint8_t *buf = g_malloc((size_t)w * h * 4);
    size_t i;

    for (i = 0; i < (size_t)w * h; i++) {
        stl_le_p(buf + i * 4, argb);
    }
    dp_put(d, &pl, buf);
    return pl;
}

/* Reference model: the contract's composition, pixel by pixel */

/* Destination pixel (@u, @v) of the plane, ARGB, by the reference */
static uint32_t ref_sample(const DpPlane *pl, uint32_t u, uint32_t v)
{
    const struct vdxg_ref_plane rp = {
        .data = pl->data, .pitch = pl->pitch, .fourcc = pl->fmt,
        .w = pl->w, .h = pl->h, .dw = pl->dw, .dh = pl->dh,
        .ctrl = pl->ctrl,
    };

    return vdxg_ref_plane_sample(&rp, u, v);
}

static uint32_t ref_round(uint64_t v)
{
    return (v + 32767) / 65535;
}

/* DRM's blend formulas with the contract's 16-bit rounding */
static uint32_t ref_blend(uint32_t fg, uint32_t bg, uint32_t mode,
                          uint32_t plane_alpha)
{
    uint64_t a16 = (uint64_t)(fg >> 24) * 257;
    uint64_t cov = ref_round(plane_alpha * a16);
    uint32_t out = 0;
    int shift;

    for (shift = 0; shift <= 16; shift += 8) {
        uint64_t f = (fg >> shift) & 0xff, b = (bg >> shift) & 0xff;
        uint64_t v;

        if (mode == VDXG_BLEND_NONE) {
            v = ref_round(f * plane_alpha + b * (65535 - plane_alpha));
        } else if (mode == VDXG_BLEND_PREMULTI) {
            v = ref_round(f * plane_alpha + b * (65535 - cov));
            v = v > 255 ? 255 : v;
        } else {
            v = ref_round(f * cov + b * (65535 - cov));
        }
        out |= v << shift;
    }
    return out;
}

/* Compose @n planes (in index order) over @bg into @out (w x h XRGB, X 0) */
void ref_compose(const DpMode *m, uint32_t bg, const DpPlane *planes,
                 int n, uint32_t *out)
{
    int order[3], i, j, x, y;

    for (i = 0; i < n; i++) {
        order[i] = i;
    }
    /* Stable: equal ZPOS keeps plane order */
    for (i = 1; i < n; i++) {
        for (j = i; j > 0 &&
             planes[order[j - 1]].zpos > planes[order[j]].zpos; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    }
    for (y = 0; y < m->vd; y++) {
        for (x = 0; x < m->hd; x++) {
            uint32_t px = bg & 0xffffff;

            for (i = 0; i < n; i++) {
                const DpPlane *pl = &planes[order[i]];
                bool rot90 = pl->ctrl & VDXG_PLANE_CTRL_ROT_90;
                int rw = rot90 ? pl->h : pl->w, rh = rot90 ? pl->w : pl->h;
                int dw = pl->dw ? pl->dw : rw, dh = pl->dh ? pl->dh : rh;
                int u = x - pl->x, v = y - pl->y;

                if (!(pl->ctrl & PLANE_ON) || u < 0 || v < 0 ||
                    u >= dw || v >= dh) {
                    continue;
                }
                px = ref_blend(ref_sample(pl, u, v), px, (pl->ctrl >> 4) & 3,
                               pl->alpha);
            }
            out[y * m->hd + x] = px;
        }
    }
}

/* CRC-32/ISO-HDLC, bit by bit */
uint32_t ref_crc32(uint32_t crc, const uint8_t *buf, size_t len)
{
    size_t i;
    int b;

    crc = ~crc;
    for (i = 0; i < len; i++) {
        crc ^= buf[i];
        for (b = 0; b < 8; b++) {
            crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
        }
    }
    return ~crc;
}

/* The contract's CRC of a composed frame: XRGB8888 LE with X = 0 */
uint32_t ref_frame_crc(const uint32_t *frame, size_t pixels)
{
    g_autofree uint8_t *bytes = g_malloc(pixels * 4);
    size_t i;

    for (i = 0; i < pixels; i++) {
        stl_le_p(bytes + i * 4, frame[i] & 0xffffff);
    }
    return ref_crc32(0, bytes, pixels * 4);
}

/*
 * Arm the writeback unit on CRTC @c (format @fmt, @pitch bytes, at
 * @addr), step to the next vblank and check the capture completed.
 */
void dp_wb_run(Dp *d, int c, uint32_t fmt, uint64_t addr,
               uint32_t pitch)
{
    uint32_t seqno = rd(d->v, VDXG_REG_WB_SEQNO), k;
    int i;

    wr64(d->v, VDXG_REG_WB_ADDR_LO, addr);
    wr(d->v, VDXG_REG_WB_FORMAT, fmt);
    wr(d->v, VDXG_REG_WB_PITCH, pitch);
    wr(d->v, VDXG_REG_INT_ACK, VDXG_INT_WRITEBACK);
    wr(d->v, VDXG_REG_WB_CTRL, VDXG_WB_CTRL_ENABLE |
       c << VDXG_WB_CTRL_CRTC_SHIFT);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_STATUS), ==, VDXG_WB_STATUS_BUSY);
    k = dp_next_vblank(d, c);
    /*
     * The capture runs in bottom halves of about a millisecond of host
     * time each: on a loaded host it may take a few main-loop iterations.
     */
    for (i = 0; i < PG_WAIT_LOOPS; i++) {
        if (!(rd(d->v, VDXG_REG_WB_STATUS) & VDXG_WB_STATUS_BUSY)) {
            break;
        }
    }
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_STATUS), ==, VDXG_WB_STATUS_DONE);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_CTRL), ==,
                    c << VDXG_WB_CTRL_CRTC_SHIFT);
    g_assert_cmpuint(rd(d->v, VDXG_REG_WB_SEQNO), ==, seqno + 1);
    g_assert_cmpuint(rd(d->v, VDXG_REG_WB_FRAME), ==, k);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS) & VDXG_INT_WRITEBACK, ==,
                    VDXG_INT_WRITEBACK);
    wr(d->v, VDXG_REG_INT_ACK, VDXG_INT_WRITEBACK);
}

/* Capture CRTC @c's next frame as XRGB8888 into @out (hd x vd) */
void dp_capture(Dp *d, int c, uint32_t *out)
{
    const DpMode *m = &d->mode[c];
    size_t n = (size_t)m->hd * m->vd, i;
    g_autofree uint8_t *buf = g_malloc(n * 4);

    dp_wb_run(d, c, XR24, DP_WB, m->hd * 4);
    vram_read(d->p, DP_WB, buf, n * 4);
    for (i = 0; i < n; i++) {
        out[i] = ldl_le_p(buf + i * 4);
        /* XRGB8888 writeback: the X byte is 0xff */
        g_assert_cmphex(out[i] >> 24, ==, 0xff);
        out[i] &= 0xffffff;
    }
}

/* The next frame of CRTC @c equals the reference composition */
void dp_check_frame(Dp *d, int c, uint32_t bg, const DpPlane *planes,
                    int n)
{
    const DpMode *m = &d->mode[c];
    size_t px = (size_t)m->hd * m->vd, i;
    g_autofree uint32_t *want = g_new(uint32_t, px);
    g_autofree uint32_t *got = g_new(uint32_t, px);

    ref_compose(m, bg, planes, n, want);
    dp_capture(d, c, got);
    for (i = 0; i < px; i++) {
        if (got[i] != want[i]) {
            g_test_message("pixel (%zu, %zu): got 0x%06x, want 0x%06x",
                           i % m->hd, i / m->hd, got[i], want[i]);
        }
        g_assert_cmphex(got[i], ==, want[i]);
    }
}

/* The display fault record, then clear it */
void dp_assert_fault(Dp *d, int c, uint32_t unit, uint32_t reason,
                     uint64_t addr)
{
    g_assert_cmphex(rd(d->v, VDXG_REG_FAULT_STATUS), ==,
                    VDXG_FAULT_STATUS_VALID);
    g_assert_cmphex(rd(d->v, VDXG_REG_FAULT_ENGINE), ==,
                    VDXG_FAULT_ENGINE_DISPLAY);
    g_assert_cmphex(rd(d->v, VDXG_REG_FAULT_REASON), ==, reason);
    g_assert_cmphex(rd(d->v, VDXG_REG_FAULT_OPCODE), ==,
                    VDXG_FAULT_OPCODE_DISPLAY(c, unit));
    g_assert_cmphex(rd64(d->v, VDXG_REG_FAULT_ADDR_LO), ==, addr);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS) & VDXG_INT_FAULT, ==,
                    VDXG_INT_FAULT);
    wr(d->v, VDXG_REG_FAULT_CLEAR, 1);
    wr(d->v, VDXG_REG_INT_ACK, VDXG_INT_FAULT);
}

void dp_assert_no_fault(Dp *d)
{
    g_assert_cmphex(rd(d->v, VDXG_REG_FAULT_STATUS), ==, 0);
}

uint64_t dp_qom_u64(Dp *d, const char *prop)
{
    return qom_get_u64(d->p, prop);
}

/* Registers: reset values, read-back, masks, the outputs property */
static void test_dp_registers(void)
{
    Dp *d = dp_start(NULL);
    int p;

    g_assert_cmpuint(rd(d->v, VDXG_REG_NUM_CRTCS), ==, 1);
    g_assert_cmphex(rd(d->v, VDXG_REG_CAPS) & (VDXG_CAP_DISPLAY |
                    VDXG_CAP_CRC | VDXG_CAP_WRITEBACK), ==,
                    VDXG_CAP_DISPLAY | VDXG_CAP_CRC | VDXG_CAP_WRITEBACK);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CTRL)), ==, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_STATUS)), ==, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT)), ==, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_SCANLINE)), ==, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CONN_STATUS)), ==,
                    VDXG_CONN_CONNECTED);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_EDID)), ==, 0xffffff00);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_STATUS), ==, 0);

    /* Mode and pending registers hold what is written. */
    dp_set_mode(d, 0, &dp_1024);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_HTOTAL)), ==, 1344);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_VSYNC_END)), ==, 777);
    wr(d->v, CR(0, VDXG_CRTC_BG_COLOR), 0xff123456);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_BG_COLOR)), ==, 0xff123456);
    for (p = 0; p < VDXG_NUM_PLANES; p++) {
        wr(d->v, PL(0, p, VDXG_PLANE_CTRL), 0xffffffff);
        g_assert_cmphex(rd(d->v, PL(0, p, VDXG_PLANE_CTRL)), ==,
                        p == CURSOR ? VDXG_PLANE_CTRL_CURSOR_MASK :
                                      VDXG_PLANE_CTRL_MASK);
        wr(d->v, PL(0, p, VDXG_PLANE_ALPHA), 0x12345678);
        g_assert_cmphex(rd(d->v, PL(0, p, VDXG_PLANE_ALPHA)), ==, 0x5678);
        wr64(d->v, PL(0, p, VDXG_PLANE_ADDR_LO), 0x123456789abcull + p);
        g_assert_cmphex(rd64(d->v, PL(0, p, VDXG_PLANE_ADDR_LO)), ==,
                        0x123456789abcull + p);
        wr(d->v, PL(0, p, VDXG_PLANE_ZPOS), 7);
        g_assert_cmpuint(rd(d->v, PL(0, p, VDXG_PLANE_ZPOS)), ==, 7);
        /* Nothing is latched until FLIP or an enable. */
        g_assert_cmphex(rd64(d->v, PL(0, p, VDXG_PLANE_CUR_ADDR_LO)), ==, 0);
        g_assert_cmphex(rd(d->v, PL(0, p, VDXG_PLANE_STATUS)), ==, 0);
        /* Read-only */
        wr(d->v, PL(0, p, VDXG_PLANE_STATUS), 3);
        wr(d->v, PL(0, p, VDXG_PLANE_CUR_ADDR_LO), 3);
        g_assert_cmphex(rd(d->v, PL(0, p, VDXG_PLANE_STATUS)), ==, 0);
        g_assert_cmphex(rd(d->v, PL(0, p, VDXG_PLANE_CUR_ADDR_LO)), ==, 0);
    }
    wr(d->v, CR(0, VDXG_CRTC_CTRL), 0xfffffff0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CTRL)), ==, 0);
    wr(d->v, CR(0, VDXG_CRTC_FRAME_COUNT), 5);
    wr(d->v, CR(0, VDXG_CRTC_CRC), 5);
    wr(d->v, CR(0, VDXG_CRTC_STATUS), 5);
    wr(d->v, CR(0, VDXG_CRTC_EDID), 5);
    wr(d->v, CR(0, VDXG_CRTC_CONN_STATUS), 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT)), ==, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CRC)), ==, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_STATUS)), ==, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_EDID)), ==, 0xffffff00);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CONN_STATUS)), ==,
                    VDXG_CONN_CONNECTED);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_FLIP)), ==, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CURSOR_UPDATE)), ==, 0);

    /* Writeback registers */
    wr64(d->v, VDXG_REG_WB_ADDR_LO, 0xabcdef012345ull);
    wr(d->v, VDXG_REG_WB_FORMAT, AR24);
    wr(d->v, VDXG_REG_WB_PITCH, 4096);
    wr(d->v, VDXG_REG_WB_CTRL, 0xffffff00);
    g_assert_cmphex(rd64(d->v, VDXG_REG_WB_ADDR_LO), ==, 0xabcdef012345ull);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_FORMAT), ==, AR24);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_PITCH), ==, 4096);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_CTRL), ==, 0);
    wr(d->v, VDXG_REG_WB_SEQNO, 9);
    wr(d->v, VDXG_REG_WB_STATUS, 9);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_SEQNO), ==, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_STATUS), ==, 0);

    /* The blocks of absent CRTCs decode to nothing. */
    wr(d->v, CR(1, VDXG_CRTC_HDISPLAY), 640);
    g_assert_cmphex(rd(d->v, CR(1, VDXG_CRTC_HDISPLAY)), ==, 0);
    g_assert_cmphex(rd(d->v, CR(1, VDXG_CRTC_CONN_STATUS)), ==, 0);
    g_assert_cmphex(rd(d->v, CR(3, VDXG_CRTC_EDID)), ==, 0);
    dp_assert_no_fault(d);
    dp_stop(d);
}

/* outputs=1..4 give that many pipes; other values refuse to start */
static void test_dp_outputs(void)
{
    static const char *const bad[] = { "0", "5", "100", "-1" };
    int n, c;

    for (n = 1; n <= VDXG_MAX_CRTCS; n++) {
        g_autofree char *props = g_strdup_printf("outputs=%d", n);
        Dp *d = dp_start(props);

        g_assert_cmpuint(rd(d->v, VDXG_REG_NUM_CRTCS), ==, n);
        for (c = 0; c < VDXG_MAX_CRTCS; c++) {
            wr(d->v, CR(c, VDXG_CRTC_HTOTAL), 100 + c);
            g_assert_cmpuint(rd(d->v, CR(c, VDXG_CRTC_HTOTAL)), ==,
                             c < n ? 100 + c : 0);
            g_assert_cmphex(rd(d->v, CR(c, VDXG_CRTC_CONN_STATUS)), ==,
                            c < n ? VDXG_CONN_CONNECTED : 0);
        }
        /* Each pipe runs on its own */
        for (c = 0; c < n; c++) {
            dp_enable(d, c, c & 1 ? &dp_640 : &dp_small, 0);
        }
        dp_step(d, 20 * 1000 * 1000);
        for (c = 0; c < n; c++) {
            g_assert_cmpuint(rd(d->v, CR(c, VDXG_CRTC_FRAME_COUNT)), ==, 1);
        }
        dp_stop(d);
    }
    for (n = 0; n < ARRAY_SIZE(bad); n++) {
        g_autofree char *props = g_strdup_printf("outputs=%s", bad[n]);

        assert_refuses(props, n == 3 ? "outputs" :
                       "outputs must be from 1 to 4");
    }
}

/* A bad mode leaves the CRTC off, says MODE_INVALID and faults. */
static void test_dp_mode_invalid(void)
{
    static const struct {
        const char *what;
        int field;              /* index into DpMode as uint32_t[] */
        uint32_t value;
    } cases[] = {
        { "hdisplay 0", 0, 0 },
        { "hdisplay too wide", 0, VDXG_MODE_MAX_DISPLAY + 1 },
        { "hsync_start < hdisplay", 1, 1023 },
        { "hsync_end < hsync_start", 2, 1047 },
        { "htotal < hsync_end", 3, 1183 },
        { "htotal too large", 3, VDXG_MODE_MAX_TOTAL + 1 },
        { "vdisplay 0", 4, 0 },
        { "vsync_start < vdisplay", 5, 700 },
        { "vsync_end < vsync_start", 6, 770 },
        { "vtotal < vsync_end", 7, 776 },
        { "clock 0", 8, 0 },
        { "clock above 1.2 GHz", 8, VDXG_MODE_MAX_CLOCK_KHZ + 1 },
        { "refresh above 1000 Hz", 8, 1100000 },
        { "refresh below 1 Hz", 8, 1000 },
    };
    Dp *d = dp_start(NULL);
    int i;

    wr(d->v, VDXG_REG_INT_MASK, VDXG_INT_VALID_MASK);
    for (i = 0; i < ARRAY_SIZE(cases); i++) {
        DpMode m = dp_1024;

        g_test_message("bad mode: %s", cases[i].what);
        ((uint32_t *)&m)[cases[i].field] = cases[i].value;
        dp_set_mode(d, 0, &m);
        wr(d->v, CR(0, VDXG_CRTC_CTRL), VDXG_CRTC_CTRL_ENABLE |
           VDXG_CRTC_CTRL_VBLANK_IRQ);
        g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CTRL)), ==,
                        VDXG_CRTC_CTRL_VBLANK_IRQ);
        g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_STATUS)), ==,
                        VDXG_CRTC_STATUS_MODE_INVALID);
        dp_assert_fault(d, 0, VDXG_DISP_UNIT_MODE, VDXG_FAULT_PARAM, 0);
        /* No vblank ever comes. */
        dp_step(d, 100 * 1000 * 1000);
        g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);
        g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT)), ==, 0);
        /* The next CTRL write clears MODE_INVALID. */
        wr(d->v, CR(0, VDXG_CRTC_CTRL), 0);
        g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_STATUS)), ==, 0);
    }
    /* Edge values that are fine: zero-length sync, 1 x 1 */
    {
        DpMode m = { 1, 1, 1, 1000, 1, 1, 1, 20, 1000 };

        dp_enable(d, 0, &m, 0);
        g_assert_cmpuint(dp_next_vblank(d, 0), ==, 1);
        g_assert_cmpuint(dp_next_vblank(d, 0), ==, 2);
    }
    dp_assert_no_fault(d);
    dp_stop(d);
}

/* Vblanks at the mode's refresh, in virtual time */
static void test_dp_vblank(void)
{
    const DpMode *m = &dp_1024;
    Dp *d = dp_start(NULL);
    int64_t t0, t;
    uint64_t line;
    uint32_t k, irqs = 0;

    dp_enable(d, 0, m, VDXG_CRTC_CTRL_VBLANK_IRQ);
    t0 = d->t0[0];
    g_assert_cmphex(rd64(d->v, CR(0, VDXG_CRTC_VBLANK_NS_LO)), ==, t0);

    /* Scanout position follows the clock, line by line. */
    for (line = 0; line < m->vd; line += 97) {
        dp_step_to(d, t0 + dp_line_ns(m, line) + 3);
        g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_SCANLINE)), ==, line);
        g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_STATUS)), ==,
                        VDXG_CRTC_STATUS_ACTIVE);
    }

    /* Up to 1 ns before the first vblank, nothing */
    t = dp_vblank_time(d, 0, 1);
    g_assert_cmpint(t, ==, t0 + 15879876);
    dp_step_to(d, t - 1);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT)), ==, 0);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_SCANLINE)), ==, 767);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);
    assert_msix_messages(d->v, -1);
    dp_step_to(d, t);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT)), ==, 1);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_SCANLINE)), ==, 768);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_STATUS)), ==,
                    VDXG_CRTC_STATUS_ACTIVE | VDXG_CRTC_STATUS_VBLANK);
    g_assert_cmphex(rd64(d->v, CR(0, VDXG_CRTC_VBLANK_NS_LO)), ==, t);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, VDXG_INT_VBLANK(0));
    assert_msix_messages(d->v, VDXG_MSIX_VEC_DISPLAY);
    /* The vblank lasts to the end of the frame */
    dp_step_to(d, t0 + dp_line_ns(m, m->vt) - 1);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_SCANLINE)), ==, m->vt - 1);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_STATUS)), ==,
                    VDXG_CRTC_STATUS_ACTIVE | VDXG_CRTC_STATUS_VBLANK);
    dp_step_to(d, t0 + dp_line_ns(m, m->vt));
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_SCANLINE)), ==, 0);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT)), ==, 1);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_STATUS)), ==,
                    VDXG_CRTC_STATUS_ACTIVE);

    /* Two seconds, one vblank after another: 120 of them at 60 Hz */
    for (k = 2; dp_vblank_time(d, 0, k) <= t + 2000000000ll; k++) {
        wr(d->v, VDXG_REG_INT_ACK, VDXG_INT_VBLANK(0));
        msg_clear(d->v);
        dp_step_to(d, dp_vblank_time(d, 0, k) - 1);
        g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);
        g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT)), ==, k - 1);
        dp_step_to(d, dp_vblank_time(d, 0, k));
        g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==,
                        VDXG_INT_VBLANK(0));
        assert_msix_messages(d->v, VDXG_MSIX_VEC_DISPLAY);
        g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT)), ==, k);
        g_assert_cmphex(rd64(d->v, CR(0, VDXG_CRTC_VBLANK_NS_LO)), ==,
                        dp_vblank_time(d, 0, k));
        /* The period is the mode's, to the nanosecond */
        g_assert_cmpint(dp_vblank_time(d, 0, k) - dp_vblank_time(d, 0, k - 1),
                        >=, dp_frame_ns(m));
        g_assert_cmpint(dp_vblank_time(d, 0, k) - dp_vblank_time(d, 0, k - 1),
                        <=, dp_frame_ns(m) + 1);
        irqs++;
    }
    g_assert_cmpuint(irqs, ==, 120);
    g_assert_cmpuint(k - 1, ==, 121);

    /* Without VBLANK_IRQ the count goes on, silently; a big step counts */
    wr(d->v, CR(0, VDXG_CRTC_CTRL), VDXG_CRTC_CTRL_ENABLE);
    wr(d->v, VDXG_REG_INT_ACK, ~0u);
    msg_clear(d->v);
    t = dp_now(d);
    dp_step(d, 10ll * 1000 * 1000 * 1000);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);
    assert_msix_messages(d->v, -1);
    k = rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT));
    g_assert_cmpint(dp_vblank_time(d, 0, k), <=, dp_now(d));
    g_assert_cmpint(dp_vblank_time(d, 0, k + 1), >, dp_now(d));
    g_assert_cmpuint(k, >=, 121 + 599);
    g_assert_cmpuint(k, <=, 121 + 601);
    g_assert_cmphex(rd64(d->v, CR(0, VDXG_CRTC_VBLANK_NS_LO)), ==,
                    dp_vblank_time(d, 0, k));

    /* Back on: the next vblank interrupts */
    wr(d->v, CR(0, VDXG_CRTC_CTRL), VDXG_CRTC_CTRL_ENABLE |
       VDXG_CRTC_CTRL_VBLANK_IRQ);
    dp_step_to(d, dp_vblank_time(d, 0, k + 1));
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, VDXG_INT_VBLANK(0));

    /* Disable freezes FRAME_COUNT and VBLANK_NS; enable starts over. */
    wr(d->v, CR(0, VDXG_CRTC_CTRL), 0);
    wr(d->v, VDXG_REG_INT_ACK, ~0u);
    dp_step(d, 100 * 1000 * 1000);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT)), ==, k + 1);
    g_assert_cmphex(rd64(d->v, CR(0, VDXG_CRTC_VBLANK_NS_LO)), ==,
                    dp_vblank_time(d, 0, k + 1));
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_SCANLINE)), ==, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);

    /* Another mode: 640x480@60 at 25.175 MHz */
    dp_enable(d, 0, &dp_640, VDXG_CRTC_CTRL_VBLANK_IRQ);
    g_assert_cmpint(dp_frame_ns(&dp_640), ==, 16683217);
    for (k = 1; k <= 5; k++) {
        g_assert_cmpuint(dp_next_vblank(d, 0), ==, k);
        g_assert_cmphex(rd64(d->v, CR(0, VDXG_CRTC_VBLANK_NS_LO)), ==,
                        d->t0[0] + dp_line_ns(&dp_640,
                                              (k - 1) * 525 + 480));
        g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==,
                        VDXG_INT_VBLANK(0));
        wr(d->v, VDXG_REG_INT_ACK, ~0u);
    }
    dp_assert_no_fault(d);
    dp_stop(d);
}

/* Four outputs with four refresh rates */
/* Enabling CRTC 0 with mode @m and VRR fails: a bad stretch */
static void dp_vrr_refused(Dp *d, const DpMode *m)
{
    dp_set_mode(d, 0, m);
    wr(d->v, CR(0, VDXG_CRTC_CTRL), VDXG_CRTC_CTRL_ENABLE |
       VDXG_CRTC_CTRL_VRR);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_STATUS)), ==,
                    VDXG_CRTC_STATUS_MODE_INVALID);
    dp_assert_fault(d, 0, VDXG_DISP_UNIT_MODE, VDXG_FAULT_PARAM, 0);
    wr(d->v, CR(0, VDXG_CRTC_CTRL), 0);
}

/* Step to @t: vblank @k starts there, with FLIP_DONE when @flip */
static void dp_vrr_expect(Dp *d, int64_t t, uint32_t k, bool flip)
{
    uint32_t irq = VDXG_INT_VBLANK(0) | (flip ? VDXG_INT_FLIP_DONE(0) : 0);

    wr(d->v, VDXG_REG_INT_ACK, ~0u);
    dp_step_to(d, t - 1);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT)), ==, k - 1);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);
    dp_step_to(d, t);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT)), ==, k);
    g_assert_cmphex(rd64(d->v, CR(0, VDXG_CRTC_VBLANK_NS_LO)), ==, t);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, irq);
}

/*
 * Variable refresh: without a FLIP the vblank stretches to VRR_VTOTAL_MAX
 * lines; a FLIP written during the stretch starts the next vblank at
 * once; one written earlier ends the frame at VTOTAL lines.
 */
static void test_dp_vrr(void)
{
    const DpMode *m = &dp_1024;
    uint32_t vmax = 2 * m->vt;
    Dp *d = dp_start(NULL);
    DpPlane a = dp_rand_plane(d, DP_FB(0), XR24, 64, 64, 0, 0, 5);
    DpPlane b = dp_rand_plane(d, DP_FB(1), XR24, 64, 64, 0, 0, 6);
    int64_t t0, t, base;

    /* Limits: 65535 lines, and no frame longer than a second */
    wr(d->v, CR(0, VDXG_CRTC_VRR_VTOTAL_MAX), VDXG_MODE_MAX_VRR_TOTAL + 1);
    dp_vrr_refused(d, m);
    wr(d->v, CR(0, VDXG_CRTC_VRR_VTOTAL_MAX), 48500);   /* 1.003 s */
    dp_vrr_refused(d, m);

    wr(d->v, CR(0, VDXG_CRTC_VRR_VTOTAL_MAX), vmax);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_VRR_VTOTAL_MAX)), ==, vmax);
    dp_plane(d, 0, PRIMARY, &a);
    dp_enable(d, 0, m, VDXG_CRTC_CTRL_VBLANK_IRQ | VDXG_CRTC_CTRL_VRR);
    t0 = d->t0[0];
    /* The first vblank as without VRR, the next one vmax lines on */
    dp_vrr_expect(d, t0 + dp_line_ns(m, m->vd), 1, false);
    dp_step_to(d, t0 + dp_line_ns(m, m->vt + 10));
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_SCANLINE)), ==, m->vt + 10);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_STATUS)), ==,
                    VDXG_CRTC_STATUS_ACTIVE | VDXG_CRTC_STATUS_VBLANK);
    dp_vrr_expect(d, t0 + dp_line_ns(m, vmax + m->vd), 2, false);

    /* A FLIP in the stretch: vblank 3 at once, latching it */
    t = t0 + dp_line_ns(m, vmax + m->vd + m->vt + 100);
    dp_step_to(d, t);
    wr(d->v, VDXG_REG_INT_ACK, ~0u);
    dp_plane(d, 0, PRIMARY, &b);
    wr(d->v, CR(0, VDXG_CRTC_FLIP), 1);
    dp_step_to(d, t);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT)), ==, 3);
    g_assert_cmphex(rd64(d->v, CR(0, VDXG_CRTC_VBLANK_NS_LO)), ==, t);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==,
                    VDXG_INT_VBLANK(0) | VDXG_INT_FLIP_DONE(0));
    g_assert_cmphex(rd64(d->v, PL(0, PRIMARY, VDXG_PLANE_CUR_ADDR_LO)), ==,
                    b.addr);
    /* Lines count from the frame of vblank 3 */
    base = t - dp_line_ns(m, m->vd);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_SCANLINE)), ==, m->vd);
    dp_vrr_expect(d, base + dp_line_ns(m, vmax + m->vd), 4, false);

    /* A FLIP before the frame may end: the frame is VTOTAL lines */
    dp_step_to(d, base + dp_line_ns(m, vmax + m->vd + 5));
    dp_plane(d, 0, PRIMARY, &a);
    wr(d->v, CR(0, VDXG_CRTC_FLIP), 1);
    dp_vrr_expect(d, base + dp_line_ns(m, vmax + m->vd + m->vt), 5, true);
    g_assert_cmphex(rd64(d->v, PL(0, PRIMARY, VDXG_PLANE_CUR_ADDR_LO)), ==,
                    a.addr);
    base = dp_now(d) - dp_line_ns(m, m->vd);

    /* VRR off: frames of VTOTAL lines from the last vblank on */
    wr(d->v, CR(0, VDXG_CRTC_CTRL),
       VDXG_CRTC_CTRL_ENABLE | VDXG_CRTC_CTRL_VBLANK_IRQ);
    dp_vrr_expect(d, base + dp_line_ns(m, m->vt + m->vd), 6, false);
    dp_vrr_expect(d, base + dp_line_ns(m, 2 * m->vt + m->vd), 7, false);
    /* and on again: the stretch follows the last vblank */
    dp_step_to(d, base + dp_line_ns(m, 2 * m->vt + m->vd + 3));
    wr(d->v, CR(0, VDXG_CRTC_CTRL), VDXG_CRTC_CTRL_ENABLE |
       VDXG_CRTC_CTRL_VBLANK_IRQ | VDXG_CRTC_CTRL_VRR);
    base += dp_line_ns(m, 2 * m->vt + m->vd) - dp_line_ns(m, m->vd);
    dp_vrr_expect(d, base + dp_line_ns(m, vmax + m->vd), 8, false);
    dp_assert_no_fault(d);
    g_free((void *)a.data);
    g_free((void *)b.data);
    dp_stop(d);
}

static void test_dp_multi_output(void)
{
    static const DpMode modes[4] = {
        { 64, 64, 64, 80, 48, 48, 48, 50, 240 },        /* 60 Hz */
        { 64, 64, 64, 80, 48, 48, 48, 50, 300 },        /* 75 Hz */
        { 64, 64, 64, 80, 48, 48, 48, 50, 200 },        /* 50 Hz */
        { 64, 64, 64, 100, 48, 48, 48, 60, 864 },       /* 144 Hz */
    };
    Dp *d = dp_start("outputs=4");
    uint32_t counts[4] = { 0 }, st;
    int64_t end;
    int c;

    for (c = 0; c < 4; c++) {
        dp_enable(d, c, &modes[c], VDXG_CRTC_CTRL_VBLANK_IRQ);
    }
    end = dp_now(d) + 1000ll * 1000 * 1000;
    while (dp_now(d) < end) {
        dp_step(d, 100 * 1000);
        st = rd(d->v, VDXG_REG_INT_STATUS);
        for (c = 0; c < 4; c++) {
            if (st & VDXG_INT_VBLANK(c)) {
                counts[c]++;
            }
        }
        g_assert_cmphex(st & ~0xf00u, ==, 0);
        wr(d->v, VDXG_REG_INT_ACK, st);
    }
    for (c = 0; c < 4; c++) {
        g_assert_cmpuint(counts[c], ==,
                         rd(d->v, CR(c, VDXG_CRTC_FRAME_COUNT)));
    }
    g_assert_cmpuint(counts[0], ==, 60);
    g_assert_cmpuint(counts[1], ==, 75);
    g_assert_cmpuint(counts[2], ==, 50);
    g_assert_cmpuint(counts[3], ==, 144);
    dp_stop(d);
}

/* FLIP latches pending registers at the next vblank only. */
static void test_dp_flip(void)
{
    Dp *d = dp_start(NULL);
    const DpMode *m = &dp_tiny;
    DpPlane red, blue, green;
    uint32_t k;

    red = dp_solid_plane(d, DP_FB(0), XR24, 0xff0000, 64, 48, 0, 0);
    blue = dp_solid_plane(d, DP_FB(1), XR24, 0x0000ff, 64, 48, 0, 0);
    green = dp_solid_plane(d, DP_FB(2), XR24, 0x00ff00, 16, 16, 8, 8);

    /* FLIP while off latches at once and signals at once. */
    dp_plane(d, 0, PRIMARY, &red);
    wr(d->v, CR(0, VDXG_CRTC_FLIP), 1);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, VDXG_INT_FLIP_DONE(0));
    assert_msix_messages(d->v, VDXG_MSIX_VEC_DISPLAY);
    g_assert_cmphex(rd64(d->v, PL(0, PRIMARY, VDXG_PLANE_CUR_ADDR_LO)), ==,
                    DP_FB(0));
    g_assert_cmphex(rd(d->v, PL(0, PRIMARY, VDXG_PLANE_STATUS)), ==,
                    VDXG_PLANE_STATUS_ACTIVE);
    wr(d->v, VDXG_REG_INT_ACK, ~0u);
    msg_clear(d->v);

    dp_enable(d, 0, m, 0);
    dp_check_frame(d, 0, 0, &red, 1);

    /* Pending writes without FLIP: nothing changes at the vblanks. */
    dp_plane(d, 0, PRIMARY, &blue);
    wr(d->v, CR(0, VDXG_CRTC_BG_COLOR), 0x777777);
    dp_next_vblank(d, 0);
    dp_next_vblank(d, 0);
    g_assert_cmphex(rd64(d->v, PL(0, PRIMARY, VDXG_PLANE_CUR_ADDR_LO)), ==,
                    DP_FB(0));
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);
    dp_check_frame(d, 0, 0, &red, 1);

    /* FLIP: still pending until the vblank, FLIP_DONE then, once */
    msg_clear(d->v);
    wr(d->v, CR(0, VDXG_CRTC_FLIP), 1);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_STATUS)) &
                    VDXG_CRTC_STATUS_FLIP_PENDING, ==,
                    VDXG_CRTC_STATUS_FLIP_PENDING);
    k = rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT));
    dp_step_to(d, dp_vblank_time(d, 0, k + 1) - 1);
    g_assert_cmphex(rd64(d->v, PL(0, PRIMARY, VDXG_PLANE_CUR_ADDR_LO)), ==,
                    DP_FB(0));
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);
    assert_msix_messages(d->v, -1);
    dp_step_to(d, dp_vblank_time(d, 0, k + 1));
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, VDXG_INT_FLIP_DONE(0));
    assert_msix_messages(d->v, VDXG_MSIX_VEC_DISPLAY);
    g_assert_cmphex(rd64(d->v, PL(0, PRIMARY, VDXG_PLANE_CUR_ADDR_LO)), ==,
                    DP_FB(1));
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_STATUS)) &
                    VDXG_CRTC_STATUS_FLIP_PENDING, ==, 0);
    wr(d->v, VDXG_REG_INT_ACK, ~0u);
    dp_next_vblank(d, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);
    dp_check_frame(d, 0, 0x777777, &blue, 1);

    /* Everything goes in one latch: an overlay and the background */
    dp_plane(d, 0, OVERLAY, &green);
    wr(d->v, CR(0, VDXG_CRTC_BG_COLOR), 0x123456);
    dp_plane(d, 0, PRIMARY, &(DpPlane){ 0 });
    dp_flip(d, 0);
    {
        DpPlane planes[2] = { { 0 }, green };

        dp_check_frame(d, 0, 0x123456, planes, 2);
    }

    /* FLIP written twice before the vblank: one latch, one FLIP_DONE */
    dp_plane(d, 0, PRIMARY, &red);
    wr(d->v, CR(0, VDXG_CRTC_FLIP), 1);
    wr(d->v, CR(0, VDXG_CRTC_FLIP), 1);
    dp_next_vblank(d, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, VDXG_INT_FLIP_DONE(0));
    wr(d->v, VDXG_REG_INT_ACK, ~0u);
    dp_next_vblank(d, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);

    /* Disabling with a flip pending latches it and signals it. */
    dp_plane(d, 0, OVERLAY, &(DpPlane){ 0 });
    wr(d->v, CR(0, VDXG_CRTC_FLIP), 1);
    wr(d->v, CR(0, VDXG_CRTC_CTRL), 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, VDXG_INT_FLIP_DONE(0));
    g_assert_cmphex(rd(d->v, PL(0, OVERLAY, VDXG_PLANE_STATUS)), ==, 0);
    wr(d->v, VDXG_REG_INT_ACK, ~0u);

    /* Enabling latches the pending state at once. */
    dp_plane(d, 0, PRIMARY, &blue);
    wr(d->v, CR(0, VDXG_CRTC_BG_COLOR), 0);
    dp_enable(d, 0, m, 0);
    g_assert_cmphex(rd64(d->v, PL(0, PRIMARY, VDXG_PLANE_CUR_ADDR_LO)), ==,
                    DP_FB(1));
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);
    dp_check_frame(d, 0, 0, &blue, 1);
    dp_assert_no_fault(d);
    dp_stop(d);
}

/* Screendump of a console as PPM: returns RGB bytes, sets *w and *h */
static uint8_t *dp_screendump(Dp *d, const char *device, int head, int *w,
                              int *h)
{
    g_autofree char *path = NULL;
    g_autofree char *contents = NULL;
    gsize len;
    int maxval, off = 0;
    uint8_t *rgb;

    if (!d->tmpdir) {
        d->tmpdir = g_dir_make_tmp("vdxg-dump-XXXXXX", NULL);
        g_assert_nonnull(d->tmpdir);
    }
    path = g_strdup_printf("%s/dump.ppm", d->tmpdir);
    if (device) {
        qtest_qmp_assert_success(d->qts, "{ 'execute': 'screendump', "
                                 "'arguments': { 'filename': %s, "
                                 "'device': %s, 'head': %d } }", path,
                                 device, head);
    } else {
        qtest_qmp_assert_success(d->qts, "{ 'execute': 'screendump', "
                                 "'arguments': { 'filename': %s, "
                                 "'format': 'ppm' } }", path);
    }
    g_assert_true(g_file_get_contents(path, &contents, &len, NULL));
    g_unlink(path);
    /* "P6\n<w> <h>\n255\n": one newline, pixels may look like spaces */
    g_assert_cmpint(sscanf(contents, "P6\n%d %d\n%d%n", w, h, &maxval,
                           &off), ==, 3);
    g_assert_cmpint(maxval, ==, 255);
    g_assert_cmpint(contents[off], ==, '\n');
    off++;
    g_assert_cmpuint(len, ==, off + (gsize)*w * *h * 3);
    rgb = g_malloc((gsize)*w * *h * 3);
    memcpy(rgb, contents + off, (gsize)*w * *h * 3);
    return rgb;
}

/* The console of @device/@head shows @want (w x h XRGB) */
void dp_check_screendump(Dp *d, const char *device, int head,
                         const uint32_t *want, int w, int h)
{
    int gw, gh, i;
    g_autofree uint8_t *rgb = dp_screendump(d, device, head, &gw, &gh);

    g_assert_cmpint(gw, ==, w);
    g_assert_cmpint(gh, ==, h);
    for (i = 0; i < w * h; i++) {
        uint32_t got = rgb[i * 3] << 16 | rgb[i * 3 + 1] << 8 | rgb[i * 3 + 2];

        if (got != (want[i] & 0xffffff)) {
            g_test_message("screendump pixel (%d, %d): got 0x%06x, want "
                           "0x%06x", i % w, i / w, got, want[i] & 0xffffff);
        }
        g_assert_cmphex(got, ==, want[i] & 0xffffff);
    }
}

/*
 * EDID (QEMU's generator): checksum, identity, detailed and standard
 * timings, name
 */
static void test_dp_edid(void)
{
    static const uint32_t pref[4][2] = {
        { 1024, 768 }, { 800, 600 }, { 1280, 720 }, { 1280, 1024 },
    };
    Dp *d = dp_start("outputs=4");
    uint8_t e[VDXG_EDID_SIZE];
    int c, i, sum, modes;
    uint32_t htotal, vtotal, clock, refresh;
    bool have_640 = false, have_1920x1200 = false;

    for (c = 0; c < 4; c++) {
        g_autofree char *name = g_strdup_printf("vdxg-%d\n", c);

        for (i = 0; i < VDXG_EDID_SIZE; i += 4) {
            stl_le_p(e + i, rd(d->v, CR(c, VDXG_CRTC_EDID + i)));
        }
        for (sum = 0, i = 0; i < VDXG_EDID_SIZE; i++) {
            sum += e[i];
        }
        g_assert_cmpint(sum % 256, ==, 0);
        g_assert_cmpmem(e, 8, "\0\xff\xff\xff\xff\xff\xff\0", 8);
        /* "VDX", serial number output + 1 */
        g_assert_cmphex(e[8], ==, 0x58);
        g_assert_cmphex(e[9], ==, 0x98);
        g_assert_cmphex(ldl_le_p(e + 12), ==, c + 1);
        g_assert_cmpuint(e[18], ==, 1);
        g_assert_cmpuint(e[19], ==, 4);
        g_assert_cmphex(e[20] & 0x80, ==, 0x80);     /* digital */
        g_assert_cmphex(e[24] & 0x02, ==, 0x02);     /* preferred is DTD 1 */
        g_assert_cmpuint(e[126], ==, 0);
        /* Established: 640x480, 800x600, 1024x768 @60 */
        g_assert_cmphex(e[35], ==, 0x21);
        g_assert_cmphex(e[36], ==, 0x08);
        if (e[35] & 0x20) {
            have_640 = true;
        }
        /* Standard timings (EDID 1.4: 00 is 16:10) */
        for (modes = 0, i = 38; i < 54; i += 2) {
            static const int num[4] = { 10, 3, 4, 9 }, den[4] = { 16, 4, 5, 16 };
            uint32_t hres = (e[i] + 31) * 8;
            uint32_t vres = hres * num[e[i + 1] >> 6] / den[e[i + 1] >> 6];

            if (e[i] == 1 && e[i + 1] == 1) {
                continue;
            }
            g_assert_cmpuint((e[i + 1] & 0x3f) + 60, ==, 60);
            if (hres == 1920 && vres == 1200) {
                have_1920x1200 = true;
            }
            g_assert_cmpuint(hres, >=, 1280);
            modes++;
        }
        g_assert_cmpuint(modes, ==, 8);
        /* Descriptor 1: preferred, each output its own size, at 60 Hz */
        clock = lduw_le_p(e + 54);
        htotal = pref[c][0] + (e[57] | (e[58] & 0x0f) << 8);
        vtotal = pref[c][1] + (e[60] | (e[61] & 0x0f) << 8);
        g_assert_cmpuint(e[56] | (e[58] & 0xf0) << 4, ==, pref[c][0]);
        g_assert_cmpuint(e[59] | (e[61] & 0xf0) << 4, ==, pref[c][1]);
        refresh = (uint64_t)clock * 10000 / htotal / vtotal;
        g_assert_cmpuint(refresh, >=, 59);
        g_assert_cmpuint(refresh, <=, 60);
        /* Descriptors 2-4: established timings III, range limits, name */
        g_assert_cmpmem(e + 72, 4, "\0\0\0\xf7", 4);
        g_assert_cmpmem(e + 90, 4, "\0\0\0\xfd", 4);
        g_assert_cmpmem(e + 108, 5, "\0\0\0\xfc\0", 5);
        g_assert_cmpmem(e + 113, strlen(name), name, strlen(name));
    }
    g_assert_true(have_640 && have_1920x1200);

    /* Disconnected: no EDID */
    qtest_qmp_assert_success(d->qts, "{ 'execute': 'qom-set', 'arguments': "
                             "{ 'path': '/machine/peripheral/gpu', "
                             "'property': 'connected1', 'value': false } }");
    for (i = 0; i < VDXG_EDID_SIZE; i += 4) {
        g_assert_cmphex(rd(d->v, CR(1, VDXG_CRTC_EDID + i)), ==, 0);
    }
    g_assert_cmphex(rd(d->v, CR(2, VDXG_CRTC_EDID)), ==, 0xffffff00);
    dp_stop(d);
}

static void dp_qom_set_connected(Dp *d, int output, bool value)
{
    g_autofree char *name = g_strdup_printf("connected%d", output);

    qtest_qmp_assert_success(d->qts, "{ 'execute': 'qom-set', 'arguments': "
                             "{ 'path': '/machine/peripheral/gpu', "
                             "'property': %s, 'value': %i } }", name, value);
}

/* The device's boolean QOM property @prop */
bool dp_qom_get_bool(Dp *d, const char *prop)
{
    QDict *rsp = qtest_qmp(d->qts, "{ 'execute': 'qom-get', 'arguments': "
                           "{ 'path': '/machine/peripheral/gpu', "
                           "'property': %s } }", prop);
    bool val;

    g_assert_true(qdict_haskey(rsp, "return"));
    val = qdict_get_bool(rsp, "return");
    qobject_unref(rsp);
    return val;
}

static bool dp_qom_get_connected(Dp *d, int output)
{
    g_autofree char *name = g_strdup_printf("connected%d", output);

    return dp_qom_get_bool(d, name);
}

/* Hotplug: the connected<n> properties, CHANGED and HOTPLUG */
static void test_dp_hotplug(void)
{
    Dp *d = dp_start("outputs=2,connected1=false");
    QDict *rsp;

    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CONN_STATUS)), ==,
                    VDXG_CONN_CONNECTED);
    g_assert_cmphex(rd(d->v, CR(1, VDXG_CRTC_CONN_STATUS)), ==, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);
    dp_enable(d, 0, &dp_tiny, VDXG_CRTC_CTRL_VBLANK_IRQ);

    /* Unplug output 0: CHANGED, HOTPLUG on the misc vector */
    msg_clear(d->v);
    dp_qom_set_connected(d, 0, false);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CONN_STATUS)), ==,
                    VDXG_CONN_CHANGED);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, VDXG_INT_HOTPLUG);
    assert_msix_messages(d->v, VDXG_MSIX_VEC_MISC);
    /* CHANGED is write-1-to-clear */
    wr(d->v, CR(0, VDXG_CRTC_CONN_STATUS), VDXG_CONN_CONNECTED);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CONN_STATUS)), ==,
                    VDXG_CONN_CHANGED);
    wr(d->v, CR(0, VDXG_CRTC_CONN_STATUS), VDXG_CONN_CHANGED);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CONN_STATUS)), ==, 0);
    wr(d->v, VDXG_REG_INT_ACK, VDXG_INT_HOTPLUG);

    /* The pipe runs on without a monitor. */
    dp_next_vblank(d, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, VDXG_INT_VBLANK(0));
    wr(d->v, VDXG_REG_INT_ACK, ~0u);

    /* The same value again: nothing */
    dp_qom_set_connected(d, 0, false);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);

    /* Plug output 1 */
    msg_clear(d->v);
    dp_qom_set_connected(d, 1, true);
    g_assert_cmphex(rd(d->v, CR(1, VDXG_CRTC_CONN_STATUS)), ==,
                    VDXG_CONN_CONNECTED | VDXG_CONN_CHANGED);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CONN_STATUS)), ==, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, VDXG_INT_HOTPLUG);
    assert_msix_messages(d->v, VDXG_MSIX_VEC_MISC);
    g_assert_cmphex(rd(d->v, CR(1, VDXG_CRTC_EDID)), ==, 0xffffff00);
    g_assert_true(dp_qom_get_connected(d, 1));
    g_assert_false(dp_qom_get_connected(d, 0));

    /* An output that does not exist */
    rsp = qtest_qmp(d->qts, "{ 'execute': 'qom-set', 'arguments': "
                    "{ 'path': '/machine/peripheral/gpu', "
                    "'property': 'connected2', 'value': false } }");
    g_assert_true(qdict_haskey(rsp, "error"));
    qobject_unref(rsp);
    dp_stop(d);
}

/* A plane fault case: what to break, and the fault it gives */
typedef struct DpFaultCase {
    const char *name;
    int plane;
    uint32_t reason;
    void (*breakit)(DpPlane *pl);
} DpFaultCase;

static void brk_fmt0(DpPlane *pl) { pl->fmt = 0; }
static void brk_fmt_yuyv(DpPlane *pl) { pl->fmt = VDXG_FOURCC('Y', 'U', 'Y', 'V'); }
static void brk_cursor_fmt(DpPlane *pl) { pl->fmt = XR24; }
static void brk_w0(DpPlane *pl) { pl->w = 0; }
static void brk_h0(DpPlane *pl) { pl->h = 0; }
static void brk_wide(DpPlane *pl) { pl->w = VDXG_PLANE_MAX_DIM + 1; pl->pitch = pl->w * 4; }
static void brk_cursor_big(DpPlane *pl) { pl->w = 257; pl->pitch = 257 * 4; }
static void brk_pitch_small(DpPlane *pl) { pl->pitch = pl->w * 4 - 4; }
static void brk_pitch_odd(DpPlane *pl) { pl->fmt = RG16; pl->pitch = pl->w * 2 + 1; }
static void brk_pitch_big(DpPlane *pl) { pl->pitch = VDXG_PLANE_MAX_PITCH + 4; }
static void brk_addr_align(DpPlane *pl) { pl->addr += 2; }
static void brk_blend(DpPlane *pl) { pl->ctrl |= BLEND(3); }
static void brk_zpos(DpPlane *pl) { pl->zpos = VDXG_ZPOS_MAX + 1; }
static void brk_hole(DpPlane *pl) { pl->addr = GPU_HOLE; }
static void brk_vram_end(DpPlane *pl) { pl->addr = PG_VRAM_SIZE - pl->pitch * (pl->h - 1); }
static void brk_ap_end(DpPlane *pl) { pl->addr = APERTURE(PG_GART_ENTRIES) - pl->pitch; }
static void brk_wrap(DpPlane *pl) { pl->addr = UINT64_MAX - 3; }
static void brk_dst_w0(DpPlane *pl) { pl->dw = 0; pl->dh = pl->h; }
static void brk_upscale(DpPlane *pl) { pl->dw = pl->w * 8 + 1; pl->dh = pl->h; }
static void brk_downscale(DpPlane *pl) { pl->dw = pl->w; pl->dh = pl->h / 4 - 1; }
/* Turned, the limits are those of the other side: h x w */
static void brk_rot90_upscale(DpPlane *pl)
{
    pl->ctrl |= VDXG_PLANE_CTRL_ROT_90;
    pl->dw = pl->h * 8 + 1;
    pl->dh = pl->w * 8;
}

static const DpFaultCase dp_fault_cases[] = {
    { "format-0", PRIMARY, VDXG_FAULT_PARAM, brk_fmt0 },
    { "format-yuyv", OVERLAY, VDXG_FAULT_PARAM, brk_fmt_yuyv },
    { "cursor-format", CURSOR, VDXG_FAULT_PARAM, brk_cursor_fmt },
    { "width-0", PRIMARY, VDXG_FAULT_PARAM, brk_w0 },
    { "height-0", CURSOR, VDXG_FAULT_PARAM, brk_h0 },
    { "too-wide", OVERLAY, VDXG_FAULT_PARAM, brk_wide },
    { "cursor-too-big", CURSOR, VDXG_FAULT_PARAM, brk_cursor_big },
    { "pitch-small", PRIMARY, VDXG_FAULT_PARAM, brk_pitch_small },
    { "pitch-odd", OVERLAY, VDXG_FAULT_PARAM, brk_pitch_odd },
    { "pitch-big", PRIMARY, VDXG_FAULT_PARAM, brk_pitch_big },
    { "addr-align", OVERLAY, VDXG_FAULT_PARAM, brk_addr_align },
    { "blend-3", CURSOR, VDXG_FAULT_PARAM, brk_blend },
    { "zpos-3", PRIMARY, VDXG_FAULT_PARAM, brk_zpos },
    { "addr-hole", OVERLAY, VDXG_FAULT_ADDRESS, brk_hole },
    { "addr-vram-end", PRIMARY, VDXG_FAULT_ADDRESS, brk_vram_end },
    { "addr-aperture-end", CURSOR, VDXG_FAULT_ADDRESS, brk_ap_end },
    { "addr-wrap", OVERLAY, VDXG_FAULT_ADDRESS, brk_wrap },
    { "dst-width-0", PRIMARY, VDXG_FAULT_PARAM, brk_dst_w0 },
    { "upscale-limit", OVERLAY, VDXG_FAULT_PARAM, brk_upscale },
    { "downscale-limit", PRIMARY, VDXG_FAULT_PARAM, brk_downscale },
    { "rot90-upscale-limit", PRIMARY, VDXG_FAULT_PARAM, brk_rot90_upscale },
};

/* A bad plane: a fault at latch time, the plane hidden, the rest shown */
static void test_dp_fault(const void *data)
{
    const DpFaultCase *fc = data;
    Dp *d = dp_start(NULL);
    DpPlane pl[3], bad;
    uint32_t k;
    int p;

    dp_enable(d, 0, &dp_small, 0);
    wr(d->v, CR(0, VDXG_CRTC_BG_COLOR), 0x102030);
    pl[PRIMARY] = dp_rand_plane(d, DP_FB(0), XR24, 100, 90, 0, 0, 80);
    pl[OVERLAY] = dp_rand_plane(d, DP_FB(1), XR24, 60, 50, 70, 50, 81);
    pl[OVERLAY].zpos = 1;
    pl[CURSOR] = dp_cursor_plane(d, DP_FB(2), 64, 90, 60,
                                 VDXG_BLEND_PREMULTI, 82);
    for (p = 0; p < 3; p++) {
        dp_plane(d, 0, p, &pl[p]);
    }
    dp_flip(d, 0);
    dp_check_frame(d, 0, 0x102030, pl, 3);

    bad = pl[fc->plane];
    fc->breakit(&bad);
    dp_plane(d, 0, fc->plane, &bad);
    msg_clear(d->v);
    if (fc->plane == CURSOR && fc->reason == VDXG_FAULT_PARAM) {
        /* Through the fast path: faults at once */
        k = rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT));
        wr(d->v, CR(0, VDXG_CRTC_CURSOR_UPDATE), 1);
    } else {
        k = dp_flip(d, 0);
    }
    g_assert_cmphex(rd(d->v, PL(0, fc->plane, VDXG_PLANE_STATUS)), ==,
                    VDXG_PLANE_STATUS_FAULT);
    g_assert_cmphex(rd64(d->v, PL(0, fc->plane, VDXG_PLANE_CUR_ADDR_LO)), ==,
                    bad.addr);
    g_assert_cmpuint(rd(d->v, VDXG_REG_FAULT_CONTEXT), ==, k);
    g_assert_cmpuint(rd(d->v, VDXG_REG_FAULT_COUNT), ==, 1);
    g_assert_true(msg_read(d->v, VDXG_MSIX_VEC_MISC) == MSIX_DATA(0));
    dp_assert_fault(d, 0, fc->plane, fc->reason, bad.addr);
    /* The others are shown, the bad one is not, and it does not fault on */
    pl[fc->plane].ctrl = 0;
    dp_check_frame(d, 0, 0x102030, pl, 3);
    dp_next_vblank(d, 0);
    dp_assert_no_fault(d);
    for (p = 0; p < 3; p++) {
        g_assert_cmphex(rd(d->v, PL(0, p, VDXG_PLANE_STATUS)), ==,
                        p == fc->plane ? VDXG_PLANE_STATUS_FAULT :
                        VDXG_PLANE_STATUS_ACTIVE);
    }
    /* A good latch brings it back. */
    pl[fc->plane].ctrl = bad.ctrl & ~VDXG_PLANE_CTRL_BLEND_MASK;
    if (fc->plane == CURSOR) {
        pl[fc->plane].ctrl |= BLEND(VDXG_BLEND_PREMULTI);
    }
    dp_plane(d, 0, fc->plane, &pl[fc->plane]);
    dp_flip(d, 0);
    dp_check_frame(d, 0, 0x102030, pl, 3);
    dp_assert_no_fault(d);
    g_assert_cmphex(rd(d->v, VDXG_REG_ID), ==, VDXG_ID_MAGIC);
    dp_stop(d);
}

/* Scanout from the aperture; a bus error there faults at composition. */
static void test_dp_aperture(void)
{
    const DpMode *m = &dp_small;
    Dp *d = dp_start(NULL);
    g_autofree uint8_t *dummy = dp_pattern(4096, 90);
    uint8_t *data = dp_pattern(160 * 120 * 4, 91);
    uint8_t *shown;
    DpPlane pl = {
        .ctrl = PLANE_ON, .addr = APERTURE(100), .fmt = XR24, .pitch = 640,
        .w = 160, .h = 120, .alpha = 0xffff,
    };
    uint32_t i, pages = 160 * 120 * 4 / 4096 + 1;

    /* Pages in reverse order; the last one unmapped (the dummy page) */
    for (i = 0; i < pages; i++) {
        qtest_writeq(d->qts, d->p->vram.addr + PG_GART + (100 + i) * 8,
                     i == pages - 1 ? 0 :
                     SYS_PAGE(DP_SYS_PAGE + pages - 1 - i) |
                     VDXG_GART_PTE_VALID);
        qtest_bufwrite(d->qts, SYS_PAGE(DP_SYS_PAGE + pages - 1 - i),
                       data + i * 4096,
                       MIN(4096, 160 * 120 * 4 - i * 4096));
    }
    qtest_bufwrite(d->qts, SYS_DUMMY, dummy, 4096);
    wr(d->v, VDXG_REG_TLB_FLUSH, 1);
    /* What the plane shows: the dummy page in the last page */
    shown = g_memdup2(data, 160 * 120 * 4);
    for (i = (pages - 1) * 4096; i < 160 * 120 * 4; i++) {
        shown[i] = dummy[i % 4096];
    }
    pl.data = shown;
    dp_plane(d, 0, PRIMARY, &pl);
    dp_enable(d, 0, m, VDXG_CRTC_CTRL_CRC);
    dp_check_frame(d, 0, 0, &pl, 1);

    /* Memory in the aperture is read again every frame. */
    data[5 * 640 + 8] ^= 0xff;
    shown[5 * 640 + 8] ^= 0xff;
    qtest_bufwrite(d->qts, SYS_PAGE(DP_SYS_PAGE + pages - 1), data, 4096);
    dp_check_frame(d, 0, 0, &pl, 1);

    /* A page that the bus rejects: ADDRESS fault, the plane hidden */
    qtest_writeq(d->qts, d->p->vram.addr + PG_GART + (100 + 3) * 8,
                 BUS_HOLE | VDXG_GART_PTE_VALID);
    wr(d->v, VDXG_REG_TLB_FLUSH, 1);
    dp_next_vblank(d, 0);
    /* The first access to page 3 */
    dp_assert_fault(d, 0, PRIMARY, VDXG_FAULT_ADDRESS, APERTURE(103));
    g_assert_cmphex(rd(d->v, PL(0, PRIMARY, VDXG_PLANE_STATUS)), ==,
                    VDXG_PLANE_STATUS_FAULT);
    pl.ctrl = 0;
    dp_check_frame(d, 0, 0, &pl, 1);
    dp_assert_no_fault(d);
    g_free(data);
    g_free(shown);
    dp_stop(d);
}

/*
 * A vCPU's register accesses while the vblank looks at the dirty log of
 * VRAM. Under TCG taking the log's snapshot waits for the vCPUs with the
 * BQL released (run_on_cpu()), and they run meanwhile. The vblank timer
 * used to do that under the device's re-entrancy guard: a register access
 * then was refused as re-entrant, the guest read 0 (an interrupt handler
 * found nothing pending and the source, left pending, raised no interrupt
 * again) and its writes were dropped (a ring's TAIL). Here the vCPU runs a
 * firmware of its own that reads INT_STATUS in a loop once the test gives
 * it the register BAR's address at 0x1000, after VBLANK(0) is raised and
 * left pending: every read must see it. 0x1004 counts reads without it,
 * 0x1008 all reads.
 */
#define VCPU_BAR        0x1000
#define VCPU_MISSED     0x1004
#define VCPU_READS      0x1008

static char *dp_vcpu_firmware(void)
{
    /* At 0xffff0000 + 0xf000, entered in real mode from the reset vector */
    static const uint8_t rm[] = {
        0xfa,                                   /* cli */
        0x66, 0x2e, 0x0f, 0x01, 0x16, 0x00, 0xf1, /* lgdt cs:[0xf100] */
        0x0f, 0x20, 0xc0,                       /* mov eax, cr0 */
        0x66, 0x83, 0xc8, 0x01,                 /* or eax, 1 */
        0x0f, 0x22, 0xc0,                       /* mov cr0, eax */
        0x66, 0xea, 0x40, 0xf0, 0xff, 0xff, 0x08, 0x00, /* jmp 8:pm */
    };
    /* pm: 0xfffff040, 32-bit, flat */
    static const uint8_t pm[] = {
        0x66, 0xb8, 0x10, 0x00,                 /* mov ax, 0x10 */
        0x8e, 0xd8, 0x8e, 0xc0, 0x8e, 0xd0,     /* mov ds/es/ss, ax */
        /* wait: */
        0x8b, 0x1d, 0x00, 0x10, 0x00, 0x00,     /* mov ebx, [0x1000] */
        0x85, 0xdb,                             /* test ebx, ebx */
        0x74, 0xf6,                             /* jz wait */
        /* loop: */
        0xff, 0x05, 0x08, 0x10, 0x00, 0x00,     /* inc dword [0x1008] */
        0x8b, 0x83, 0x00, 0x01, 0x00, 0x00,     /* mov eax, [ebx + 0x100] */
        0xa9, 0x00, 0x01, 0x00, 0x00,           /* test eax, VBLANK(0) */
        0x75, 0xed,                             /* jnz loop */
        0xff, 0x05, 0x04, 0x10, 0x00, 0x00,     /* inc dword [0x1004] */
        0xeb, 0xe5,                             /* jmp loop */
    };
    static const uint8_t gdt[] = {
        0x17, 0x00, 0x10, 0xf1, 0xff, 0xff,     /* 0xf100: limit, base */
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0,                 /* 0xf110: null */
        0xff, 0xff, 0x00, 0x00, 0x00, 0x9a, 0xcf, 0x00, /* code */
        0xff, 0xff, 0x00, 0x00, 0x00, 0x92, 0xcf, 0x00, /* data */
    };
    static const uint8_t reset[] = {
        0xe9, 0x0d, 0xf0,                       /* 0xfff0: jmp 0xf000 */
    };
    g_autofree uint8_t *rom = g_malloc0(0x10000);
    char *path;
    int fd;

    memcpy(rom + 0xf000, rm, sizeof(rm));
    memcpy(rom + 0xf040, pm, sizeof(pm));
    memcpy(rom + 0xf100, gdt, sizeof(gdt));
    memcpy(rom + 0xfff0, reset, sizeof(reset));
    fd = g_file_open_tmp("vdxg-fw-XXXXXX", &path, NULL);
    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(write(fd, rom, 0x10000), ==, 0x10000);
    close(fd);
    return path;
}

static void test_dp_vcpu_during_dirty_log(void)
{
    g_autofree char *fw = dp_vcpu_firmware();
    Vdxg v = {};
    Dp d = { .v = &v };
    DpPlane pl = {
        .ctrl = PLANE_ON, .addr = DP_FB(0), .fmt = XR24, .pitch = 640,
        .w = 160, .h = 120, .alpha = 0xffff,
    };
    uint32_t k0, reads;
    uint64_t size;
    int i;

    v.qts = qtest_initf("-machine q35 -nodefaults %s -accel tcg -bios %s "
                        "-device vdxg,addr=%02x.0", vdxg_qemu_args(), fw,
                        VDXG_SLOT);
    d.qts = v.qts;
    v.bus = qpci_new_pc(v.qts, NULL);
    v.dev = qpci_device_find(v.bus, VDXG_DEVFN);
    g_assert_nonnull(v.dev);
    qpci_device_enable(v.dev);
    v.mmio = qpci_iomap(v.dev, VDXG_BAR_MMIO, &size);
    g_assert_false(v.mmio.is_io);

    /* A VRAM plane (the dirty log is looked at) and CRC on */
    dp_set_mode(&d, 0, &dp_small);
    dp_plane(&d, 0, PRIMARY, &pl);
    wr(&v, CR(0, VDXG_CRTC_CTRL), VDXG_CRTC_CTRL_ENABLE |
       VDXG_CRTC_CTRL_CRC | VDXG_CRTC_CTRL_VBLANK_IRQ);
    /* The virtual clock runs: real vblanks, 60 a second */
    for (i = 0; i < 1000 && !(rd(&v, VDXG_REG_INT_STATUS) &
                              VDXG_INT_VBLANK(0)); i++) {
        g_usleep(10 * 1000);
    }
    g_assert_cmphex(rd(&v, VDXG_REG_INT_STATUS) & VDXG_INT_VBLANK(0), ==,
                    VDXG_INT_VBLANK(0));
    qtest_writel(v.qts, VCPU_BAR, v.mmio.addr);

    /* 30 vblanks with a CRC each, while the vCPU reads */
    k0 = rd(&v, CR(0, VDXG_CRTC_FRAME_COUNT));
    for (i = 0; i < 3000 &&
         rd(&v, CR(0, VDXG_CRTC_FRAME_COUNT)) - k0 < 30; i++) {
        g_usleep(10 * 1000);
    }
    g_assert_cmpuint(rd(&v, CR(0, VDXG_CRTC_FRAME_COUNT)) - k0, >=, 30);
    g_assert_cmpuint(rd(&v, CR(0, VDXG_CRTC_CRC_FRAME)), >, k0);
    reads = qtest_readl(v.qts, VCPU_READS);
    g_test_message("%u reads by the vCPU", reads);
    g_assert_cmpuint(reads, >, 0);
    g_assert_cmpuint(qtest_readl(v.qts, VCPU_MISSED), ==, 0);

    vdxg_stop(&v);
    unlink(fw);
}

/* QMP screendump shows each CRTC's frame, black while off */
static void test_dp_screendump(void)
{
    Dp *d = dp_start("outputs=2");
    DpPlane pl = dp_rand_plane(d, DP_FB(0), XR24, 160, 120, 0, 0, 95);
    DpPlane pl1 = dp_solid_plane(d, DP_FB(1), XR24, 0x4080c0, 64, 48, 0, 0);
    g_autofree uint32_t *want = g_new(uint32_t, 640 * 480);
    g_autofree uint8_t *png = NULL;
    g_autofree char *path = NULL;
    gsize len;

    /* Off: a black 640x480 surface */
    memset(want, 0, 640 * 480 * 4);
    dp_check_screendump(d, NULL, 0, want, 640, 480);
    dp_check_screendump(d, "gpu", 1, want, 640, 480);

    dp_plane(d, 0, PRIMARY, &pl);
    dp_enable(d, 0, &dp_small, 0);
    ref_compose(&dp_small, 0, &pl, 1, want);
    dp_check_screendump(d, NULL, 0, want, 160, 120);
    dp_check_screendump(d, "gpu", 0, want, 160, 120);

    dp_plane(d, 1, PRIMARY, &pl1);
    dp_enable(d, 1, &dp_tiny, 0);
    ref_compose(&dp_tiny, 0, &pl1, 1, want);
    dp_check_screendump(d, "gpu", 1, want, 64, 48);

    /* Changed memory shows at once, without a vblank. */
    vram_writel(d->p, DP_FB(1) + 10 * 256 + 20 * 4, 0x00ff00ff);
    want[10 * 64 + 20] = 0xff00ff;
    dp_check_screendump(d, "gpu", 1, want, 64, 48);

    /* PNG works as well */
    path = g_strdup_printf("%s/dump.png", d->tmpdir);
    qtest_qmp_assert_success(d->qts, "{ 'execute': 'screendump', "
                             "'arguments': { 'filename': %s, "
                             "'format': 'png' } }", path);
    g_assert_true(g_file_get_contents(path, (char **)&png, &len, NULL));
    g_unlink(path);
    g_assert_cmpuint(len, >, 24);
    g_assert_cmpmem(png, 8, "\x89PNG\r\n\x1a\n", 8);
    g_assert_cmpuint(ldl_be_p(png + 16), ==, 160);
    g_assert_cmpuint(ldl_be_p(png + 20), ==, 120);

    /* Off again: black, in the last size */
    wr(d->v, CR(0, VDXG_CRTC_CTRL), 0);
    memset(want, 0, 160 * 120 * 4);
    dp_check_screendump(d, NULL, 0, want, 160, 120);
    dp_stop(d);
}

/* Soft and device reset turn the display off and clear it. */
static void test_dp_reset(void)
{
    Dp *d = dp_start("outputs=2");
    DpPlane pl = dp_rand_plane(d, DP_FB(0), XR24, 64, 48, 0, 0, 96);
    int round, c, p;

    for (round = 0; round < 2; round++) {
        for (c = 0; c < 2; c++) {
            dp_plane(d, c, PRIMARY, &pl);
            dp_enable(d, c, &dp_tiny, VDXG_CRTC_CTRL_VBLANK_IRQ |
                      VDXG_CRTC_CTRL_CRC);
            wr(d->v, CR(c, VDXG_CRTC_BG_COLOR), 0x123456);
        }
        dp_next_vblank(d, 0);
        wr(d->v, CR(0, VDXG_CRTC_FLIP), 1);
        wr64(d->v, VDXG_REG_WB_ADDR_LO, DP_WB);
        wr(d->v, VDXG_REG_WB_FORMAT, XR24);
        wr(d->v, VDXG_REG_WB_PITCH, 256);
        wr(d->v, VDXG_REG_WB_CTRL, VDXG_WB_CTRL_ENABLE |
           1 << VDXG_WB_CTRL_CRTC_SHIFT);
        dp_qom_set_connected(d, 1, false);
        dp_qom_set_connected(d, 1, true);

        if (round == 0) {
            wr(d->v, VDXG_REG_RESET, VDXG_RESET_MAGIC);
        } else {
            qtest_qmp_assert_success(d->qts,
                                     "{ 'execute': 'system_reset' }");
            qtest_qmp_eventwait(d->qts, "RESET");
            qpci_device_enable(d->v->dev);
            d->v->mmio = qpci_iomap(d->v->dev, VDXG_BAR_MMIO, NULL);
            d->p->vram = qpci_iomap(d->v->dev, VDXG_BAR_VRAM, NULL);
            msix_setup(d->v);
        }
        wr(d->v, VDXG_REG_INT_MASK, VDXG_INT_VALID_MASK);
        for (c = 0; c < 2; c++) {
            g_assert_cmphex(rd(d->v, CR(c, VDXG_CRTC_CTRL)), ==, 0);
            g_assert_cmphex(rd(d->v, CR(c, VDXG_CRTC_STATUS)), ==, 0);
            g_assert_cmphex(rd(d->v, CR(c, VDXG_CRTC_HDISPLAY)), ==, 0);
            g_assert_cmphex(rd(d->v, CR(c, VDXG_CRTC_FRAME_COUNT)), ==, 0);
            g_assert_cmphex(rd(d->v, CR(c, VDXG_CRTC_CRC)), ==, 0);
            g_assert_cmphex(rd(d->v, CR(c, VDXG_CRTC_BG_COLOR)), ==, 0);
            g_assert_cmphex(rd(d->v, CR(c, VDXG_CRTC_CONN_STATUS)), ==,
                            VDXG_CONN_CONNECTED);
            for (p = 0; p < 3; p++) {
                g_assert_cmphex(rd(d->v, PL(c, p, VDXG_PLANE_CTRL)), ==, 0);
                g_assert_cmphex(rd(d->v, PL(c, p, VDXG_PLANE_STATUS)), ==, 0);
                g_assert_cmphex(rd64(d->v, PL(c, p,
                                              VDXG_PLANE_CUR_ADDR_LO)), ==, 0);
            }
        }
        g_assert_cmphex(rd(d->v, VDXG_REG_WB_CTRL), ==, 0);
        g_assert_cmphex(rd(d->v, VDXG_REG_WB_STATUS), ==, 0);
        g_assert_cmphex(rd(d->v, VDXG_REG_WB_SEQNO), ==, 0);
        g_assert_cmphex(rd64(d->v, VDXG_REG_WB_ADDR_LO), ==, 0);
        /* Nothing fires any more. */
        dp_step(d, 200 * 1000 * 1000);
        g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);
        {
            g_autofree uint32_t *black = g_new0(uint32_t, 640 * 480);

            dp_check_screendump(d, NULL, 0, black, 640, 480);
        }
    }
    dp_stop(d);
}

/* Migration with a flip, a CRC and a writeback under way */
static void test_dp_migration(void)
{
    g_autofree char *tmpdir = g_dir_make_tmp("vdxg-test-XXXXXX", NULL);
    g_autofree char *sock = g_strdup_printf("%s/migration", tmpdir);
    g_autofree char *uri = g_strdup_printf("unix:%s", sock);
    const DpMode *m = &dp_small;
    Dp *src = dp_start("outputs=2");
    Dp *dst = g_new0(Dp, 1);
    DpPlane a = dp_rand_plane(src, DP_FB(0), XR24, 80, 60, 0, 0, 97);
    DpPlane b = dp_rand_plane(src, DP_FB(1), AR24, 100, 100, 30, 10, 98);
    g_autofree uint32_t *want = g_new(uint32_t, 160 * 120);
    uint32_t regs[8], k, bar0, i;
    uint64_t bar2;
    int64_t now;

    g_autoptr(GRand) rnd = g_rand_new_with_seed(1511);
    DpColor ca, cb;

    b.ctrl |= BLEND(VDXG_BLEND_COVERAGE);
    b.zpos = 1;
    /* Scaled planes: DST_SIZE latched, and pending with ROT_90 */
    a.dw = 160;
    a.dh = 120;
    b.ctrl |= VDXG_PLANE_CTRL_ROT_90 | VDXG_PLANE_CTRL_BILINEAR;
    b.dw = 70;
    b.dh = 90;
    dp_plane(src, 0, PRIMARY, &a);
    /* A colour pipeline latched by the enable, another one pending */
    dp_color_random(&ca, rnd);
    ca.ctrl = VDXG_COLOR_DEGAMMA | VDXG_COLOR_GAMMA;
    dp_color(src, 0, &ca);
    dp_enable(src, 0, m, VDXG_CRTC_CTRL_VBLANK_IRQ | VDXG_CRTC_CTRL_CRC);
    dp_enable(src, 1, &dp_tiny, 0);
    for (i = 0; i < 4; i++) {
        dp_next_vblank(src, 0);
    }
    dp_step_to(src, dp_vblank_time(src, 0, 4) + 1000);
    wr(src->v, VDXG_REG_INT_ACK, ~0u);
    /* Pending: an overlay flip and a capture at the next vblank */
    dp_plane(src, 0, OVERLAY, &b);
    dp_color_random(&cb, rnd);
    cb.ctrl = VDXG_COLOR_CTRL_MASK;
    dp_color(src, 0, &cb);
    wr(src->v, CR(0, VDXG_CRTC_LUT_INDEX), VDXG_LUT_INDEX_GAMMA | 7);
    /* Rows 10 to 99 damaged, those the overlay covers, then all of them */
    wr(src->v, CR(0, VDXG_CRTC_DAMAGE), 100 << VDXG_CRTC_DAMAGE_Y1_SHIFT | 10);
    wr(src->v, CR(0, VDXG_CRTC_FLIP), 1 | VDXG_CRTC_FLIP_DAMAGE);
    wr(src->v, CR(0, VDXG_CRTC_FLIP), 1);
    wr64(src->v, VDXG_REG_WB_ADDR_LO, DP_WB);
    wr(src->v, VDXG_REG_WB_FORMAT, XR24);
    wr(src->v, VDXG_REG_WB_PITCH, 640);
    wr(src->v, VDXG_REG_WB_CTRL, VDXG_WB_CTRL_ENABLE);
    dp_qom_set_connected(src, 1, false);
    qtest_qmp_assert_success(src->qts, "{ 'execute': 'qom-set', 'arguments': "
                             "{ 'path': '/machine/peripheral/gpu', "
                             "'property': 'link-bad0', 'value': true } }");
    now = dp_now(src);
    regs[0] = rd(src->v, CR(0, VDXG_CRTC_FRAME_COUNT));
    regs[1] = rd(src->v, CR(0, VDXG_CRTC_CRC));
    regs[2] = rd(src->v, CR(0, VDXG_CRTC_CRC_FRAME));
    regs[3] = rd(src->v, CR(0, VDXG_CRTC_STATUS));
    regs[4] = rd(src->v, CR(1, VDXG_CRTC_FRAME_COUNT));
    regs[5] = rd(src->v, CR(1, VDXG_CRTC_CONN_STATUS));
    regs[6] = rd(src->v, VDXG_REG_WB_STATUS);
    regs[7] = rd(src->v, CR(0, VDXG_CRTC_SCANLINE));
    g_assert_cmphex(regs[3], ==, VDXG_CRTC_STATUS_ACTIVE |
                    VDXG_CRTC_STATUS_FLIP_PENDING | VDXG_CRTC_STATUS_VBLANK);
    g_assert_cmphex(regs[6], ==, VDXG_WB_STATUS_BUSY);
    bar0 = qpci_config_readl(src->v->dev, PCI_BASE_ADDRESS_0);
    bar2 = (qpci_config_readl(src->v->dev, PCI_BASE_ADDRESS_2) |
            (uint64_t)qpci_config_readl(src->v->dev, PCI_BASE_ADDRESS_3) << 32)
           & ~0xfull;

    dst->qts = qtest_initf("-machine q35 -nodefaults %s "
                           "-device vdxg,addr=%02x.0,%s,outputs=2 "
                           "-incoming %s", vdxg_qemu_args(), VDXG_SLOT,
                           PG_PROPS, uri);
    /*
     * The qtest clock is not migrated (an accelerator's virtual clock is,
     * before the devices): catch up with the source before the load,
     * whose checks compare frame numbers with FRAME_COUNT.
     */
    dst->now = qtest_clock_set(dst->qts, now);
    g_assert_cmpint(dst->now, ==, now);
    qtest_qmp_assert_success(src->qts, "{ 'execute': 'migrate', "
                             "'arguments': { 'uri': %s } }", uri);
    qtest_qmp_eventwait(dst->qts, "RESUME");

    dst->p = g_new0(Pg, 1);
    dst->v = &dst->p->v;
    dst->v->qts = dst->qts;
    dst->v->bus = qpci_new_pc(dst->qts, NULL);
    dst->v->dev = qpci_device_find(dst->v->bus, VDXG_DEVFN);
    g_assert_nonnull(dst->v->dev);
    dst->v->mmio = (QPCIBar) { .addr = bar0 & PCI_BASE_ADDRESS_MEM_MASK };
    dst->p->vram = (QPCIBar) { .addr = bar2 };
    memcpy(dst->t0, src->t0, sizeof(dst->t0));
    memcpy(dst->mode, src->mode, sizeof(dst->mode));

    g_assert_cmphex(rd(dst->v, CR(0, VDXG_CRTC_FRAME_COUNT)), ==, regs[0]);
    g_assert_cmphex(rd(dst->v, CR(0, VDXG_CRTC_CRC)), ==, regs[1]);
    g_assert_cmphex(rd(dst->v, CR(0, VDXG_CRTC_CRC_FRAME)), ==, regs[2]);
    g_assert_cmphex(rd(dst->v, CR(0, VDXG_CRTC_STATUS)), ==, regs[3]);
    g_assert_cmphex(rd(dst->v, CR(1, VDXG_CRTC_FRAME_COUNT)), ==, regs[4]);
    g_assert_cmphex(rd(dst->v, CR(1, VDXG_CRTC_CONN_STATUS)), ==, regs[5]);
    g_assert_cmphex(rd(dst->v, VDXG_REG_WB_STATUS), ==, regs[6]);
    g_assert_cmphex(rd(dst->v, CR(0, VDXG_CRTC_SCANLINE)), ==, regs[7]);
    g_assert_cmphex(rd(dst->v, VDXG_REG_INT_STATUS), ==, VDXG_INT_HOTPLUG);
    g_assert_cmphex(rd(dst->v, CR(0, VDXG_CRTC_CONN_STATUS)), ==,
                    VDXG_CONN_CONNECTED | VDXG_CONN_CHANGED |
                    VDXG_CONN_LINK_BAD);
    g_assert_cmphex(rd(dst->v, CR(0, VDXG_CRTC_DAMAGE)), ==,
                    100 << VDXG_CRTC_DAMAGE_Y1_SHIFT | 10);
    /* The pending colour registers came along. */
    g_assert_cmphex(rd(dst->v, CR(0, VDXG_CRTC_LUT_INDEX)), ==,
                    VDXG_LUT_INDEX_GAMMA | 7);
    g_assert_cmphex(rd(dst->v, CR(0, VDXG_CRTC_LUT_DATA_LO)), ==,
                    cb.lut[1][7][0] | (uint32_t)cb.lut[1][7][1] << 16);
    g_assert_cmphex(rd(dst->v, CR(0, VDXG_CRTC_CTM(5))), ==,
                    (uint32_t)cb.ctm[5]);
    /* The latched ones too: the console shows the frame through them */
    {
        DpPlane pls[1] = { a };

        ref_compose(m, 0, pls, 1, want);
        ref_color_frame(&ca, want, 160 * 120);
        dp_check_screendump(dst, NULL, 0, want, 160, 120);
    }

    /* The next vblank on the destination does what was pending. */
    k = dp_next_vblank(dst, 0);
    g_assert_cmphex(rd(dst->v, VDXG_REG_INT_STATUS), ==,
                    VDXG_INT_HOTPLUG | VDXG_INT_VBLANK(0) |
                    VDXG_INT_FLIP_DONE(0) | VDXG_INT_WRITEBACK);
    {
        DpPlane pls[2] = { a, b };

        ref_compose(m, 0, pls, 2, want);
        ref_color_frame(&cb, want, 160 * 120);
    }
    g_assert_cmpuint(rd(dst->v, CR(0, VDXG_CRTC_CRC_FRAME)), ==, k);
    g_assert_cmphex(rd(dst->v, CR(0, VDXG_CRTC_CRC)), ==,
                    ref_frame_crc(want, 160 * 120));
    g_assert_cmpuint(rd(dst->v, VDXG_REG_WB_FRAME), ==, k);
    {
        g_autofree uint8_t *buf = g_malloc(160 * 120 * 4);

        vram_read(dst->p, DP_WB, buf, 160 * 120 * 4);
        for (i = 0; i < 160 * 120; i++) {
            g_assert_cmphex((uint32_t)ldl_le_p(buf + i * 4), ==, 0xff000000u | want[i]);
        }
    }
    /* And the console shows it */
    dp_check_screendump(dst, NULL, 0, want, 160, 120);

    dp_stop(dst);
    dp_stop(src);
    g_unlink(sock);
    g_rmdir(tmpdir);
}

/* Random display programming: never a crash, faults are sane */
static void test_dp_fuzz(void)
{
    static const DpMode *const modes[] = { &dp_tiny, &dp_small, &dp_640 };
    static const uint32_t fmts[] = { XR24, AR24, XB24, RG16, 0, 0x12345678 };
    g_autoptr(GRand) rnd = g_rand_new_with_seed(4321);
    Dp *d = dp_start("outputs=2");
    g_autofree uint8_t *junk = dp_pattern(1 * MiB, 99);
    uint32_t round, faults = 0, reason;
    int w, h;

    vram_write(d->p, DP_FB(0), junk, 1 * MiB);
    for (round = 0; round < 400; round++) {
        uint32_t c = g_rand_int_range(rnd, 0, 2);
        uint32_t p = g_rand_int_range(rnd, 0, 3);
        uint32_t reg = g_rand_int_range(rnd, 0, 0x200) & ~3u;
        uint32_t val;

        switch (g_rand_int_range(rnd, 0, 12)) {
        case 0:
            if (!(rd(d->v, CR(c, VDXG_CRTC_STATUS)) &
                  VDXG_CRTC_STATUS_ACTIVE)) {
                dp_set_mode(d, c, modes[g_rand_int_range(rnd, 0, 3)]);
            }
            wr(d->v, CR(c, VDXG_CRTC_CTRL), g_rand_int_range(rnd, 0, 16));
            break;
        case 1:
            wr(d->v, CR(c, VDXG_CRTC_FLIP), 1);
            break;
        case 2:
            wr(d->v, CR(c, VDXG_CRTC_CURSOR_UPDATE), 1);
            break;
        case 3:
            wr(d->v, PL(c, p, VDXG_PLANE_FORMAT),
               fmts[g_rand_int_range(rnd, 0, ARRAY_SIZE(fmts))]);
            break;
        case 4:
            wr(d->v, PL(c, p, VDXG_PLANE_SRC_SIZE),
               VDXG_PLANE_SIZE_WH(g_rand_int_range(rnd, 0, 300),
                                  g_rand_int_range(rnd, 0, 300)));
            wr(d->v, PL(c, p, VDXG_PLANE_PITCH),
               g_rand_int_range(rnd, 0, 1300));
            break;
        case 5:
            wr64(d->v, PL(c, p, VDXG_PLANE_ADDR_LO),
                 g_rand_boolean(rnd) ? DP_FB(0) + g_rand_int_range(rnd, 0,
                                                                   4096) :
                 fuzz_value(d->p, false));
            break;
        case 6:
            wr(d->v, PL(c, p, VDXG_PLANE_DST_POS), g_rand_int(rnd));
            wr(d->v, PL(c, p, VDXG_PLANE_CTRL), g_rand_int(rnd));
            break;
        case 7:
            wr64(d->v, VDXG_REG_WB_ADDR_LO, g_rand_boolean(rnd) ? DP_WB :
                 fuzz_value(d->p, false));
            wr(d->v, VDXG_REG_WB_FORMAT, fmts[g_rand_int_range(rnd, 0, 3)]);
            wr(d->v, VDXG_REG_WB_PITCH, g_rand_int_range(rnd, 0, 4000));
            wr(d->v, VDXG_REG_WB_CTRL, g_rand_int_range(rnd, 0, 0x40));
            break;
        case 8:
            dp_step(d, g_rand_int_range(rnd, 0, 40000000));
            break;
        case 9:
            g_free(dp_screendump(d, "gpu", c, &w, &h));
            break;
        default:
            val = g_rand_int_range(rnd, 0, 3) ? g_rand_int_range(rnd, 0, 300)
                                              : g_rand_int(rnd);
            wr(d->v, CR(c, reg), val);
            break;
        }
        if (rd(d->v, VDXG_REG_FAULT_STATUS)) {
            faults++;
            g_assert_cmphex(rd(d->v, VDXG_REG_FAULT_ENGINE), ==,
                            VDXG_FAULT_ENGINE_DISPLAY);
            reason = rd(d->v, VDXG_REG_FAULT_REASON);
            g_assert_true(reason == VDXG_FAULT_PARAM ||
                          reason == VDXG_FAULT_ADDRESS);
            wr(d->v, VDXG_REG_FAULT_CLEAR, 1);
        }
        wr(d->v, VDXG_REG_INT_ACK, ~0u);
    }
    g_test_message("%u faults in 400 rounds", faults);
    g_assert_cmpuint(faults, >, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_ID), ==, VDXG_ID_MAGIC);

    /* After a reset the display works as ever. */
    wr(d->v, VDXG_REG_RESET, VDXG_RESET_MAGIC);
    wr(d->v, VDXG_REG_INT_MASK, VDXG_INT_VALID_MASK);
    {
        DpPlane pl = dp_rand_plane(d, DP_FB(3), XR24, 64, 48, 0, 0, 5);

        dp_plane(d, 0, PRIMARY, &pl);
        dp_enable(d, 0, &dp_tiny, 0);
        dp_check_frame(d, 0, 0, &pl, 1);
    }
    dp_stop(d);
}

void vdxg_test_add_display_tests(void)
{
    int i;

    qtest_add_func("/vdxg/display/registers", test_dp_registers);
    qtest_add_func("/vdxg/display/outputs", test_dp_outputs);
    qtest_add_func("/vdxg/display/mode-invalid", test_dp_mode_invalid);
    qtest_add_func("/vdxg/display/vblank", test_dp_vblank);
    qtest_add_func("/vdxg/display/vrr", test_dp_vrr);
    qtest_add_func("/vdxg/display/multi-output", test_dp_multi_output);
    qtest_add_func("/vdxg/display/flip", test_dp_flip);
    qtest_add_func("/vdxg/display/edid", test_dp_edid);
    qtest_add_func("/vdxg/display/hotplug", test_dp_hotplug);
    qtest_add_func("/vdxg/display/aperture", test_dp_aperture);
    qtest_add_func("/vdxg/display/vcpu-during-dirty-log",
                   test_dp_vcpu_during_dirty_log);
    qtest_add_func("/vdxg/display/screendump", test_dp_screendump);
    qtest_add_func("/vdxg/display/reset", test_dp_reset);
    qtest_add_func("/vdxg/display/migration", test_dp_migration);
    qtest_add_func("/vdxg/display/fuzz", test_dp_fuzz);
    for (i = 0; i < ARRAY_SIZE(dp_fault_cases); i++) {
        g_autofree char *path = g_strdup_printf("/vdxg/display/fault/%s",
                                                dp_fault_cases[i].name);
        qtest_add_data_func(path, &dp_fault_cases[i], test_dp_fault);
    }
}
