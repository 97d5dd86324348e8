/*
 * QTest testcases for the vdxg virtual GPU: the colour pipeline (degamma
 * LUT, CTM, gamma LUT), async flips and the link status of the outputs
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include <math.h>
#include "qobject/qdict.h"
#include "vdxg-test.h"

/* Write @col to CRTC @c's pending registers. */
void dp_color(Dp *d, int c, const DpColor *col)
{
    int l, i;

    for (l = 0; l < 2; l++) {
        wr(d->v, CR(c, VDXG_CRTC_LUT_INDEX), l ? VDXG_LUT_INDEX_GAMMA : 0);
        for (i = 0; i < VDXG_LUT_SIZE; i++) {
            wr(d->v, CR(c, VDXG_CRTC_LUT_DATA_LO),
               col->lut[l][i][0] | (uint32_t)col->lut[l][i][1] << 16);
            wr(d->v, CR(c, VDXG_CRTC_LUT_DATA_HI), col->lut[l][i][2]);
        }
    }
    for (i = 0; i < 9; i++) {
        wr(d->v, CR(c, VDXG_CRTC_CTM(i)), col->ctm[i]);
    }
    wr(d->v, CR(c, VDXG_CRTC_COLOR_CTRL), col->ctrl);
}

/* Reference model: the contract's pipeline, one channel value at a time */

static uint64_t ref_lut(const DpColor *col, int l, int ch, uint64_t v)
{
    uint64_t p = v * 255, i = p / 65535, f = p % 65535;

    if (i == 255) {
        return col->lut[l][255][ch];
    }
    return (col->lut[l][i][ch] * (65535 - f) +
            col->lut[l][i + 1][ch] * f + 32767) / 65535;
}

static uint32_t ref_color_px(const DpColor *col, uint32_t px)
{
    int64_t v[3], w[3];
    uint32_t out = 0;
    int i, j;

    for (i = 0; i < 3; i++) {
        v[i] = ((px >> (16 - 8 * i)) & 0xff) * 257;
        if (col->ctrl & VDXG_COLOR_DEGAMMA) {
            v[i] = ref_lut(col, 0, i, v[i]);
        }
    }
    for (i = 0; i < 3; i++) {
        w[i] = v[i];
        if (col->ctrl & VDXG_COLOR_CTM) {
            int64_t acc = 0, q;

            for (j = 0; j < 3; j++) {
                acc += (int64_t)col->ctm[3 * i + j] * v[j];
            }
            /* floor((acc + 32768) / 65536) without shifting negatives */
            q = (acc + 32768) / 65536;
            if ((acc + 32768) % 65536 < 0) {
                q--;
            }
            w[i] = q < 0 ? 0 : q > 65535 ? 65535 : q;
        }
    }
    for (i = 0; i < 3; i++) {
        if (col->ctrl & VDXG_COLOR_GAMMA) {
            w[i] = ref_lut(col, 1, i, w[i]);
        }
        out |= (uint32_t)((w[i] * 255 + 32767) / 65535) << (16 - 8 * i);
    }
    return out;
}

void ref_color_frame(const DpColor *col, uint32_t *frame, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        frame[i] = ref_color_px(col, frame[i]);
    }
}

void dp_color_identity(DpColor *col)
{
    int l, i, ch;

    memset(col, 0, sizeof(*col));
    for (l = 0; l < 2; l++) {
        for (i = 0; i < VDXG_LUT_SIZE; i++) {
            for (ch = 0; ch < 3; ch++) {
                col->lut[l][i][ch] = i * 257;
            }
        }
    }
    col->ctm[0] = col->ctm[4] = col->ctm[8] = 1 << VDXG_CTM_FRAC_BITS;
}

/* Random LUTs (some monotonic curves, some noise) and a random CTM */
void dp_color_random(DpColor *col, GRand *rnd)
{
    int l, i, ch;

    for (l = 0; l < 2; l++) {
        bool noise = g_rand_boolean(rnd);
        double gamma = g_rand_double_range(rnd, 0.3, 3.0);

        for (i = 0; i < VDXG_LUT_SIZE; i++) {
            for (ch = 0; ch < 3; ch++) {
                col->lut[l][i][ch] = noise ? g_rand_int_range(rnd, 0, 65536) :
                                     (uint16_t)(pow(i / 255.0, gamma) * 65535);
            }
        }
    }
    for (i = 0; i < 9; i++) {
        /* -2 to 2, and now and then something far out */
        col->ctm[i] = g_rand_int_range(rnd, 0, 8) ?
                      g_rand_int_range(rnd, -2 << 16, 2 << 16) :
                      (int32_t)g_rand_int(rnd);
    }
}

/*
 * A plane that shows every channel value: row y holds the pixels
 * (x, y, x ^ y) and the like, so all 256 values of each channel appear
 * next to many values of the others.
 */
static DpPlane dp_color_plane(Dp *d, uint64_t addr)
{
    uint8_t *buf = g_malloc(160 * 120 * 4);
    int x, y;
    DpPlane pl = {
        .ctrl = PLANE_ON, .addr = addr, .fmt = XR24, .pitch = 160 * 4,
        .w = 160, .h = 120, .alpha = 0xffff,
    };

    for (y = 0; y < 120; y++) {
        for (x = 0; x < 160; x++) {
            uint32_t r = (x + y * 160) & 0xff, g = (x * 7 + y * 3) & 0xff;
            uint32_t b = (r ^ g ^ y) & 0xff;

            stl_le_p(buf + (y * 160 + x) * 4, r << 16 | g << 8 | b);
        }
    }
    dp_put(d, &pl, buf);
    return pl;
}

/*
 * The frame of CRTC 0 (dp_small with @pl and a translucent overlay
 * @ov over background @bg) through @col: its writeback capture, its CRC
 * and its screendump all equal the reference.
 */
static void dp_color_check(Dp *d, const DpColor *col, uint32_t bg,
                           const DpPlane *planes, int n)
{
    size_t px = 160 * 120, i;
    g_autofree uint32_t *want = g_new(uint32_t, px);
    g_autofree uint32_t *got = g_new(uint32_t, px);
    uint32_t k;

    ref_compose(&dp_small, bg, planes, n, want);
    ref_color_frame(col, want, px);
    dp_capture(d, 0, got);
    for (i = 0; i < px; i++) {
        if (got[i] != want[i]) {
            g_test_message("ctrl %x pixel (%zu, %zu): got 0x%06x, want "
                           "0x%06x", col->ctrl, i % 160, i / 160, got[i],
                           want[i]);
        }
        g_assert_cmphex(got[i], ==, want[i]);
    }
    k = dp_next_vblank(d, 0);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_CRC_FRAME)), ==, k);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CRC)), ==,
                    ref_frame_crc(want, px));
    dp_check_screendump(d, NULL, 0, want, 160, 120);
}

/* The registers: reset values, LUT_INDEX stepping, masks, read-back */
static void test_dp_color_registers(void)
{
    Dp *d = dp_start(NULL);
    int i;

    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_COLOR_CTRL)), ==, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_LUT_INDEX)), ==, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_LUT_DATA_LO)), ==, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_LUT_DATA_HI)), ==, 0);
    for (i = 0; i < 9; i++) {
        g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CTM(i))), ==, 0);
    }
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_ASYNC_FLIP)), ==, 0);

    wr(d->v, CR(0, VDXG_CRTC_COLOR_CTRL), 0xffffffff);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_COLOR_CTRL)), ==,
                    VDXG_COLOR_CTRL_MASK);
    wr(d->v, CR(0, VDXG_CRTC_LUT_INDEX), 0xffffffff);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_LUT_INDEX)), ==,
                    VDXG_LUT_INDEX_MASK);
    for (i = 0; i < 9; i++) {
        wr(d->v, CR(0, VDXG_CRTC_CTM(i)), 0x80000001u + i);
        g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CTM(i))), ==,
                        0x80000001u + i);
    }

    /* Gamma entry 255: LO, HI; HI moves the index on to entry 0 */
    wr(d->v, CR(0, VDXG_CRTC_LUT_DATA_LO), 0x12345678);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_LUT_INDEX)), ==, 0x1ff);
    wr(d->v, CR(0, VDXG_CRTC_LUT_DATA_HI), 0xffff9abc);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_LUT_INDEX)), ==,
                    VDXG_LUT_INDEX_GAMMA);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_LUT_DATA_LO)), ==, 0);
    wr(d->v, CR(0, VDXG_CRTC_LUT_INDEX), 0x1ff);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_LUT_DATA_LO)), ==, 0x12345678);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_LUT_DATA_HI)), ==, 0x9abc);
    /* Reads move nothing; the degamma LUT is another one */
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_LUT_INDEX)), ==, 0x1ff);
    wr(d->v, CR(0, VDXG_CRTC_LUT_INDEX), 0xff);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_LUT_DATA_LO)), ==, 0);
    /* A run of entries */
    wr(d->v, CR(0, VDXG_CRTC_LUT_INDEX), 10);
    for (i = 0; i < 4; i++) {
        wr(d->v, CR(0, VDXG_CRTC_LUT_DATA_LO), i);
        wr(d->v, CR(0, VDXG_CRTC_LUT_DATA_HI), i + 100);
    }
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_LUT_INDEX)), ==, 14);
    wr(d->v, CR(0, VDXG_CRTC_LUT_INDEX), 12);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_LUT_DATA_LO)), ==, 2);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_LUT_DATA_HI)), ==, 102);

    /* A device reset clears all of it */
    wr(d->v, VDXG_REG_RESET, VDXG_RESET_MAGIC);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_COLOR_CTRL)), ==, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_LUT_INDEX)), ==, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CTM(8))), ==, 0);
    wr(d->v, CR(0, VDXG_CRTC_LUT_INDEX), 0x1ff);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_LUT_DATA_LO)), ==, 0);
    dp_stop(d);
}

/*
 * Each stage alone, then together, with identity, curved, noisy and
 * extreme values, against the reference: writeback, CRC and screendump.
 */
static void test_dp_color_pipeline(void)
{
    Dp *d = dp_start(NULL);
    g_autoptr(GRand) rnd = g_rand_new_with_seed(2911);
    DpPlane pl[2];
    DpColor col;
    uint32_t ctrl;
    int round;

    pl[0] = dp_color_plane(d, DP_FB(0));
    pl[1] = dp_rand_plane(d, DP_FB(1), AR24, 64, 48, 40, 30, 12);
    pl[1].ctrl |= BLEND(VDXG_BLEND_COVERAGE);
    pl[1].alpha = 0x9000;
    dp_plane(d, 0, PRIMARY, &pl[0]);
    dp_plane(d, 0, OVERLAY, &pl[1]);
    dp_enable(d, 0, &dp_small, VDXG_CRTC_CTRL_CRC);

    /* Off, and on with identity values: the frame is unchanged */
    dp_color_identity(&col);
    dp_color_check(d, &col, 0, pl, 2);
    col.ctrl = VDXG_COLOR_CTRL_MASK;
    dp_color(d, 0, &col);
    dp_flip(d, 0);
    dp_color_check(d, &col, 0, pl, 2);

    /* Every combination of stages, with random values */
    for (round = 0; round < 16; round++) {
        ctrl = round % 8 ? round % 8 : VDXG_COLOR_CTRL_MASK;
        dp_color_random(&col, rnd);
        col.ctrl = ctrl;
        dp_color(d, 0, &col);
        wr(d->v, CR(0, VDXG_CRTC_BG_COLOR), g_rand_int(rnd) & 0xffffff);
        dp_flip(d, 0);
        dp_color_check(d, &col, rd(d->v, CR(0, VDXG_CRTC_BG_COLOR)), pl, 2);
    }

    /* IGT's cases: a "max" table, red to blue, 0.25, negative */
    dp_color_identity(&col);
    memset(col.lut[1], 0xff, sizeof(col.lut[1]));
    memset(col.lut[1][0], 0, sizeof(col.lut[1][0]));
    col.ctrl = VDXG_COLOR_GAMMA;
    dp_color(d, 0, &col);
    dp_flip(d, 0);
    dp_color_check(d, &col, 0, pl, 2);
    dp_color_identity(&col);
    memset(col.ctm, 0, sizeof(col.ctm));
    col.ctm[6] = 1 << 16;               /* blue = red */
    col.ctm[1] = 1 << 14;               /* red = 0.25 green */
    col.ctm[4] = -(1 << 16);            /* green = -green */
    col.ctrl = VDXG_COLOR_CTM;
    dp_color(d, 0, &col);
    dp_flip(d, 0);
    dp_color_check(d, &col, 0x102030, pl, 2);
    dp_assert_no_fault(d);
    dp_stop(d);
}

/*
 * The pipeline is pending until a latch: FLIP at the vblank, or the
 * enable; ASYNC_FLIP and CURSOR_UPDATE leave it.
 */
static void test_dp_color_latch(void)
{
    Dp *d = dp_start(NULL);
    g_autoptr(GRand) rnd = g_rand_new_with_seed(77);
    DpPlane pl = dp_color_plane(d, DP_FB(0));
    DpColor off, col;

    dp_color_identity(&off);
    dp_color_random(&col, rnd);
    col.ctrl = VDXG_COLOR_CTRL_MASK;
    dp_plane(d, 0, PRIMARY, &pl);
    dp_enable(d, 0, &dp_small, VDXG_CRTC_CTRL_CRC);
    dp_color(d, 0, &col);
    /* Not latched: the frames stay as they were */
    dp_color_check(d, &off, 0, &pl, 1);
    wr(d->v, CR(0, VDXG_CRTC_ASYNC_FLIP), 1);
    wr(d->v, CR(0, VDXG_CRTC_CURSOR_UPDATE), 1);
    wr(d->v, VDXG_REG_INT_ACK, ~0u);
    dp_color_check(d, &off, 0, &pl, 1);
    /* FLIP latches it */
    dp_flip(d, 0);
    dp_color_check(d, &col, 0, &pl, 1);
    /* Pending changes wait again; turning it off takes a flip too */
    wr(d->v, CR(0, VDXG_CRTC_COLOR_CTRL), 0);
    dp_color_check(d, &col, 0, &pl, 1);
    dp_flip(d, 0);
    dp_color_check(d, &off, 0, &pl, 1);
    /* The enable latches it */
    wr(d->v, CR(0, VDXG_CRTC_COLOR_CTRL), VDXG_COLOR_CTRL_MASK);
    wr(d->v, CR(0, VDXG_CRTC_CTRL), 0);
    dp_enable(d, 0, &dp_small, VDXG_CRTC_CTRL_CRC);
    dp_color_check(d, &col, 0, &pl, 1);
    dp_stop(d);
}

/*
 * ASYNC_FLIP latches the primary plane at once, mid-frame, and raises
 * ASYNC_DONE at once; the other planes wait for their FLIP.
 */
static void test_dp_async_flip(void)
{
    Dp *d = dp_start(NULL);
    DpPlane red = dp_solid_plane(d, DP_FB(0), XR24, 0xff0000, 160, 120, 0, 0);
    DpPlane blue = dp_solid_plane(d, DP_FB(1), XR24, 0x0000ff, 160, 120, 0,
                                  0);
    DpPlane green = dp_solid_plane(d, DP_FB(2), XR24, 0x00ff00, 16, 16, 8, 8);
    DpPlane both[2] = { blue, green };
    g_autofree uint32_t *want = g_new(uint32_t, 160 * 120);
    uint32_t frame;

    wr(d->v, VDXG_REG_INT_MASK, VDXG_INT_VALID_MASK);
    /* Off: a guest error that does nothing */
    dp_plane(d, 0, PRIMARY, &red);
    wr(d->v, CR(0, VDXG_CRTC_ASYNC_FLIP), 1);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);
    g_assert_cmphex(rd(d->v, PL(0, PRIMARY, VDXG_PLANE_STATUS)), ==, 0);

    dp_enable(d, 0, &dp_small, VDXG_CRTC_CTRL_CRC);
    dp_next_vblank(d, 0);
    /* Half a frame on, in the active area */
    d->now = qtest_clock_step(d->qts, 4 * 1000 * 1000);
    frame = rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT));
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_STATUS)) &
                    VDXG_CRTC_STATUS_VBLANK, ==, 0);
    dp_plane(d, 0, PRIMARY, &blue);
    dp_plane(d, 0, OVERLAY, &green);
    msg_clear(d->v);
    wr(d->v, CR(0, VDXG_CRTC_ASYNC_FLIP), 1);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, VDXG_INT_ASYNC_DONE(0));
    assert_msix_messages(d->v, VDXG_MSIX_VEC_DISPLAY);
    g_assert_cmphex(rd64(d->v, PL(0, PRIMARY, VDXG_PLANE_CUR_ADDR_LO)), ==,
                    DP_FB(1));
    g_assert_cmphex(rd(d->v, PL(0, OVERLAY, VDXG_PLANE_STATUS)), ==, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_STATUS)) &
                    VDXG_CRTC_STATUS_FLIP_PENDING, ==, 0);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT)), ==, frame);
    /* On screen before the next vblank, without the overlay */
    ref_compose(&dp_small, 0, &blue, 1, want);
    dp_check_screendump(d, NULL, 0, want, 160, 120);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT)), ==, frame);
    wr(d->v, VDXG_REG_INT_ACK, ~0u);
    /* The next vblank's CRC is of that frame; no FLIP_DONE */
    dp_next_vblank(d, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CRC)), ==,
                    ref_frame_crc(want, 160 * 120));
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);

    /* A FLIP pending meanwhile stays pending and latches all of it. */
    wr(d->v, CR(0, VDXG_CRTC_FLIP), 1);
    dp_plane(d, 0, PRIMARY, &red);
    wr(d->v, CR(0, VDXG_CRTC_ASYNC_FLIP), 1);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_STATUS)) &
                    VDXG_CRTC_STATUS_FLIP_PENDING, ==,
                    VDXG_CRTC_STATUS_FLIP_PENDING);
    ref_compose(&dp_small, 0, &red, 1, want);
    dp_check_screendump(d, NULL, 0, want, 160, 120);
    dp_plane(d, 0, PRIMARY, &blue);
    dp_next_vblank(d, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==,
                    VDXG_INT_ASYNC_DONE(0) | VDXG_INT_FLIP_DONE(0));
    ref_compose(&dp_small, 0, both, 2, want);
    dp_check_screendump(d, NULL, 0, want, 160, 120);

    /* A bad plane faults as a FLIP's latch would. */
    blue.pitch = 3;
    dp_plane(d, 0, PRIMARY, &blue);
    wr(d->v, CR(0, VDXG_CRTC_ASYNC_FLIP), 1);
    dp_assert_fault(d, 0, VDXG_DISP_UNIT_PRIMARY, VDXG_FAULT_PARAM, DP_FB(1));
    g_assert_cmphex(rd(d->v, PL(0, PRIMARY, VDXG_PLANE_STATUS)), ==,
                    VDXG_PLANE_STATUS_FAULT);
    dp_stop(d);
}

static void dp_qom_set_link_bad(Dp *d, int output, bool ok_expected)
{
    g_autofree char *name = g_strdup_printf("link-bad%d", output);
    QDict *rsp = qtest_qmp(d->qts, "{ 'execute': 'qom-set', 'arguments': "
                           "{ 'path': '/machine/peripheral/gpu', "
                           "'property': %s, 'value': true } }", name);

    g_assert_cmpint(qdict_haskey(rsp, "error"), ==, !ok_expected);
    qobject_unref(rsp);
}

static bool dp_qom_get_link_bad(Dp *d, int output)
{
    g_autofree char *name = g_strdup_printf("link-bad%d", output);

    return dp_qom_get_bool(d, name);
}

/* LINK_BAD: set by link-bad<n>, a hotplug event, cleared by an enable */
static void test_dp_link_status(void)
{
    Dp *d = dp_start("outputs=2,connected1=false");

    dp_enable(d, 0, &dp_tiny, 0);
    g_assert_false(dp_qom_get_link_bad(d, 0));
    msg_clear(d->v);
    dp_qom_set_link_bad(d, 0, true);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CONN_STATUS)), ==,
                    VDXG_CONN_CONNECTED | VDXG_CONN_CHANGED |
                    VDXG_CONN_LINK_BAD);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, VDXG_INT_HOTPLUG);
    assert_msix_messages(d->v, VDXG_MSIX_VEC_MISC);
    g_assert_true(dp_qom_get_link_bad(d, 0));
    wr(d->v, CR(0, VDXG_CRTC_CONN_STATUS), VDXG_CONN_CHANGED |
       VDXG_CONN_LINK_BAD);
    wr(d->v, VDXG_REG_INT_ACK, ~0u);
    /* LINK_BAD is read-only; the pipe runs on */
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CONN_STATUS)), ==,
                    VDXG_CONN_CONNECTED | VDXG_CONN_LINK_BAD);
    dp_next_vblank(d, 0);
    /* A second failure while bad: nothing new */
    dp_qom_set_link_bad(d, 0, true);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);
    /* Turning the CRTC off does not train it; the enable does */
    wr(d->v, CR(0, VDXG_CRTC_CTRL), 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CONN_STATUS)), ==,
                    VDXG_CONN_CONNECTED | VDXG_CONN_LINK_BAD);
    dp_enable(d, 0, &dp_tiny, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CONN_STATUS)), ==,
                    VDXG_CONN_CONNECTED);
    g_assert_false(dp_qom_get_link_bad(d, 0));

    /* A disconnect clears it; no monitor, no link to fail */
    dp_qom_set_link_bad(d, 0, true);
    qtest_qmp_assert_success(d->qts, "{ 'execute': 'qom-set', 'arguments': "
                             "{ 'path': '/machine/peripheral/gpu', "
                             "'property': 'connected0', 'value': false } }");
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CONN_STATUS)), ==,
                    VDXG_CONN_CHANGED);
    dp_qom_set_link_bad(d, 1, false);
    dp_qom_set_link_bad(d, 2, false);
    g_assert_cmphex(rd(d->v, CR(1, VDXG_CRTC_CONN_STATUS)), ==, 0);

    /* A reset clears it */
    qtest_qmp_assert_success(d->qts, "{ 'execute': 'qom-set', 'arguments': "
                             "{ 'path': '/machine/peripheral/gpu', "
                             "'property': 'connected0', 'value': true } }");
    dp_qom_set_link_bad(d, 0, true);
    wr(d->v, VDXG_REG_RESET, VDXG_RESET_MAGIC);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CONN_STATUS)), ==,
                    VDXG_CONN_CONNECTED);
    dp_stop(d);
}

void vdxg_test_add_color_tests(void)
{
    qtest_add_func("/vdxg/display/color/registers", test_dp_color_registers);
    qtest_add_func("/vdxg/display/color/pipeline", test_dp_color_pipeline);
    qtest_add_func("/vdxg/display/color/latch", test_dp_color_latch);
    qtest_add_func("/vdxg/display/async-flip", test_dp_async_flip);
    qtest_add_func("/vdxg/display/link-status", test_dp_link_status);
}
