/*
 * QTest testcases for the vdxg virtual GPU: plane composition and CRCs
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "vdxg-test.h"

/* CRCs: per frame, stable, sensitive, and what the contract says */
static void test_dp_crc(void)
{
    const DpMode *m = &dp_small;
    Dp *d = dp_start(NULL);
    DpPlane fb = dp_rand_plane(d, DP_FB(0), XR24, 160, 120, 0, 0, 7);
    g_autofree uint32_t *want = g_new(uint32_t, 160 * 120);
    uint8_t *data = (uint8_t *)fb.data;
    uint32_t crc, k, composes;
    int i;

    dp_plane(d, 0, PRIMARY, &fb);
    dp_enable(d, 0, m, 0);
    /* Off: no CRC is computed */
    dp_next_vblank(d, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CRC)), ==, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CRC_FRAME)), ==, 0);

    wr(d->v, CR(0, VDXG_CRTC_CTRL), VDXG_CRTC_CTRL_ENABLE |
       VDXG_CRTC_CTRL_CRC);
    ref_compose(m, 0, &fb, 1, want);
    crc = ref_frame_crc(want, 160 * 120);
    k = dp_next_vblank(d, 0);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_CRC_FRAME)), ==, k);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CRC)), ==, crc);
    /* CRC enable alone raises no interrupt */
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);

    /* Same content, same CRC, frame after frame, without composing */
    composes = dp_qom_u64(d, "x-disp-composes");
    for (i = 0; i < 30; i++) {
        k = dp_next_vblank(d, 0);
        g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_CRC_FRAME)), ==, k);
        g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CRC)), ==, crc);
    }
    g_assert_cmpuint(dp_qom_u64(d, "x-disp-composes"), ==, composes);

    /* One pixel, one bit: another CRC, the expected one */
    data[(57 * fb.pitch) + 99 * 4] ^= 0x01;
    vram_write(d->p, DP_FB(0) + 57 * fb.pitch + 99 * 4,
               data + 57 * fb.pitch + 99 * 4, 4);
    ref_compose(m, 0, &fb, 1, want);
    k = dp_next_vblank(d, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CRC)), !=, crc);
    crc = ref_frame_crc(want, 160 * 120);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CRC)), ==, crc);
    g_assert_cmpuint(dp_qom_u64(d, "x-disp-composes"), ==, composes + 1);

    /* The X byte does not count: changing it changes nothing */
    data[(3 * fb.pitch) + 5 * 4 + 3] ^= 0xff;
    vram_write(d->p, DP_FB(0) + 3 * fb.pitch + 5 * 4 + 3,
               data + 3 * fb.pitch + 5 * 4 + 3, 1);
    dp_next_vblank(d, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CRC)), ==, crc);

    /* A flip to other content: the CRC of the latched frame, that frame */
    {
        DpPlane fb2 = dp_rand_plane(d, DP_FB(1), RG16, 160, 120, 0, 0, 8);

        dp_plane(d, 0, PRIMARY, &fb2);
        ref_compose(m, 0, &fb2, 1, want);
        k = dp_flip(d, 0);
        g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_CRC_FRAME)), ==, k);
        g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CRC)), ==,
                        ref_frame_crc(want, 160 * 120));
        g_free((void *)fb2.data);
    }

    /* A known value: a black 160x120 frame */
    {
        g_autofree uint8_t *zero = g_malloc0(160 * 120 * 4);

        dp_plane(d, 0, PRIMARY, &(DpPlane){ 0 });
        dp_flip(d, 0);
        g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CRC)), ==,
                        ref_crc32(0, zero, 160 * 120 * 4));
    }
    /* CRC off again: CRC and CRC_FRAME keep the last values */
    wr(d->v, CR(0, VDXG_CRTC_CTRL), VDXG_CRTC_CTRL_ENABLE);
    k = rd(d->v, CR(0, VDXG_CRTC_CRC_FRAME));
    dp_next_vblank(d, 0);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_CRC_FRAME)), ==, k);
    dp_assert_no_fault(d);
    g_free(data);
    dp_stop(d);
}

/*
 * The dirty log of VRAM is looked at outside the device's re-entrancy
 * guard (vdxg_display_harvest() asserts it): under TCG its snapshot
 * releases the BQL, and a vCPU's register access meanwhile was refused as
 * re-entrant, so the guest lost interrupts and ring TAIL writes. The users
 * of the log still see a change made in VRAM without a flip: the CRC of
 * the next vblank, with the vblank interrupt on, and a writeback capture
 * without CRC.
 */
static void test_dp_dirty_unguarded(void)
{
    const DpMode *m = &dp_small;
    Dp *d = dp_start(NULL);
    DpPlane fb = dp_rand_plane(d, DP_FB(0), XR24, 160, 120, 0, 0, 11);
    g_autofree uint32_t *want = g_new(uint32_t, 160 * 120);
    uint8_t *data = (uint8_t *)fb.data;
    uint32_t off = 33 * fb.pitch + 44 * 4;

    dp_plane(d, 0, PRIMARY, &fb);
    dp_enable(d, 0, m, VDXG_CRTC_CTRL_CRC | VDXG_CRTC_CTRL_VBLANK_IRQ);
    ref_compose(m, 0, &fb, 1, want);
    dp_next_vblank(d, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CRC)), ==,
                    ref_frame_crc(want, 160 * 120));

    /* A change in VRAM, no flip: the next vblank's CRC has it */
    data[off] ^= 0xff;
    vram_write(d->p, DP_FB(0) + off, data + off, 1);
    ref_compose(m, 0, &fb, 1, want);
    dp_next_vblank(d, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CRC)), ==,
                    ref_frame_crc(want, 160 * 120));
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS) & VDXG_INT_VBLANK(0), ==,
                    VDXG_INT_VBLANK(0));

    /* CRC off: a writeback capture has the next change */
    wr(d->v, CR(0, VDXG_CRTC_CTRL), VDXG_CRTC_CTRL_ENABLE);
    dp_next_vblank(d, 0);
    data[off + 1] ^= 0xff;
    vram_write(d->p, DP_FB(0) + off + 1, data + off + 1, 1);
    dp_check_frame(d, 0, 0, &fb, 1);
    dp_assert_no_fault(d);
    g_free(data);
    dp_stop(d);
}

/* 1024x768@60 with CRC: static content is composed once. */
static void test_dp_crc_1024(void)
{
    const DpMode *m = &dp_1024;
    Dp *d = dp_start(NULL);
    DpPlane fb = dp_rand_plane(d, DP_BIG, XR24, 1024, 768, 0, 0, 3);
    g_autofree uint32_t *want = g_new(uint32_t, 1024 * 768);
    uint32_t crc;
    int i;

    g_assert_cmpuint(fb.pitch, ==, 4096);
    dp_plane(d, 0, PRIMARY, &fb);
    dp_enable(d, 0, m, VDXG_CRTC_CTRL_CRC | VDXG_CRTC_CTRL_VBLANK_IRQ);
    ref_compose(m, 0, &fb, 1, want);
    crc = ref_frame_crc(want, 1024 * 768);
    for (i = 0; i < 60; i++) {
        dp_next_vblank(d, 0);
        g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CRC)), ==, crc);
    }
    g_assert_cmpuint(dp_qom_u64(d, "x-disp-composes"), ==, 1);
    g_assert_cmpuint(dp_qom_u64(d, "x-disp-crcs"), ==, 1);

    /* The last pixel changes: composed again, another CRC */
    vram_writel(d->p, DP_BIG + 4096 * 768 - 4, 0x00abcdef);
    want[1024 * 768 - 1] = 0xabcdef;
    dp_next_vblank(d, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CRC)), ==,
                    ref_frame_crc(want, 1024 * 768));
    g_assert_cmpuint(dp_qom_u64(d, "x-disp-composes"), ==, 2);
    g_free((void *)fb.data);
    dp_stop(d);
}

/*
 * The worst case of composition: four 4096x4096 CRTCs, each with three
 * translucent aperture planes, CRC on. Composed in one go this held the
 * main loop 1.2-1.7 s per vblank. Now the device composes in slices of
 * about a millisecond from a bottom half and stores the CRC of a vblank
 * when its frame is done. Of the thousands of runs a frame takes, the
 * second longest in CPU time (x-next-slice-cpu-ns; real time also counts
 * the time the host runs others) must stay under DP_SLICE_MAX_NS,
 * generous for a loaded 2-core machine (vdxg-test.h), and the longest
 * under ten times that: a host without IRQ_TIME_ACCOUNTING charges its
 * interrupts to the thread they land on, and under two CPU hogs one of
 * twenty runs of this test measured a single run of 5.2 ms.
 */
#define DP_HUGE_GART        0x1800000ull    /* 128 KiB: a 64 MiB aperture */
#define DP_HUGE_PAGES       (64 * MiB / PG_PAGE)

void dp_qom_reset_max_slice(Dp *d)
{
    qobject_unref(qtest_qmp(d->qts, "{ 'execute': 'qom-set', 'arguments': "
                            "{ 'path': '/machine/peripheral/gpu', "
                            "'property': 'x-next-slice-cpu-ns', "
                            "'value': 0 } }"));
    qobject_unref(qtest_qmp(d->qts, "{ 'execute': 'qom-set', 'arguments': "
                            "{ 'path': '/machine/peripheral/gpu', "
                            "'property': 'x-max-slice-ns', 'value': 0 } }"));
    qobject_unref(qtest_qmp(d->qts, "{ 'execute': 'qom-set', 'arguments': "
                            "{ 'path': '/machine/peripheral/gpu', "
                            "'property': 'x-max-slice-cpu-ns', "
                            "'value': 0 } }"));
}

/* Wait for the CRCs of vblank @k; returns the longest qtest round trip. */
static int64_t dp_wait_crcs(Dp *d, uint32_t k, int n, uint32_t *crc)
{
    int64_t end = g_get_monotonic_time() + 300 * G_USEC_PER_SEC;
    int64_t t, rt = 0;
    int c, done;

    do {
        g_assert_cmpint(g_get_monotonic_time(), <, end);
        for (c = 0, done = 0; c < n; c++) {
            t = g_get_monotonic_time();
            done += rd(d->v, CR(c, VDXG_CRTC_CRC_FRAME)) == k;
            rt = MAX(rt, g_get_monotonic_time() - t);
        }
    } while (done < n);
    for (c = 0; c < n; c++) {
        crc[c] = rd(d->v, CR(c, VDXG_CRTC_CRC));
    }
    return rt;
}

/* The runs of a frame of test_dp_huge(): see above. */
static void dp_assert_huge_sliced(Dp *d)
{
    g_assert_cmpuint(dp_qom_u64(d, "x-next-slice-cpu-ns"), <,
                     DP_SLICE_MAX_NS);
    g_assert_cmpuint(dp_qom_u64(d, "x-max-slice-cpu-ns"), <,
                     10 * DP_SLICE_MAX_NS);
}

static void test_dp_huge(void)
{
    Dp *d = dp_start("outputs=4,aperture-size=64M");
    g_autofree uint64_t *gart = g_new(uint64_t, DP_HUGE_PAGES);
    g_autofree uint8_t *pages = g_malloc(16 * PG_PAGE);
    g_autofree uint8_t *mem = g_malloc(64 * MiB);
    g_autofree uint32_t *want = g_new(uint32_t, 4096 * 4096);
    g_autoptr(GRand) rnd = g_rand_new_with_seed(15);
    DpPlane pl[3];
    uint32_t crc[4], k, i, ref;
    int64_t t, step, rt, first, second;
    int c;

    /* 64 MiB of aperture over 16 system pages of random ARGB pixels */
    for (i = 0; i < 16 * PG_PAGE; i++) {
        pages[i] = g_rand_int(rnd);
    }
    qtest_bufwrite(d->qts, SYS_PAGE(DP_SYS_PAGE), pages, 16 * PG_PAGE);
    for (i = 0; i < DP_HUGE_PAGES; i++) {
        gart[i] = cpu_to_le64(SYS_PAGE(DP_SYS_PAGE + i % 16) |
                              VDXG_GART_PTE_VALID);
        memcpy(mem + (uint64_t)i * PG_PAGE, pages + (i % 16) * PG_PAGE,
               PG_PAGE);
    }
    qtest_bufwrite(d->qts, d->p->vram.addr + DP_HUGE_GART, gart,
                   DP_HUGE_PAGES * 8);
    wr(d->v, VDXG_REG_GART_CTRL, 0);
    wr64(d->v, VDXG_REG_GART_TABLE_LO, DP_HUGE_GART);
    wr(d->v, VDXG_REG_GART_CTRL, VDXG_GART_CTRL_ENABLE);
    wr(d->v, VDXG_REG_TLB_FLUSH, 1);

    for (i = 0; i < 3; i++) {
        pl[i] = (DpPlane) {
            .ctrl = PLANE_ON |
                    VDXG_BLEND_COVERAGE << VDXG_PLANE_CTRL_BLEND_SHIFT,
            .addr = APERTURE(i * 16), .fmt = AR24, .pitch = 4096 * 4,
            .w = i == CURSOR ? VDXG_CURSOR_MAX_DIM : 4096,
            .h = i == CURSOR ? VDXG_CURSOR_MAX_DIM : 4096 - i * 16,
            .x = i * 8, .y = i * 16, .alpha = 0x9000 - i * 0x1000,
            .zpos = i, .data = mem + i * 16 * PG_PAGE,
        };
    }
    ref_compose(&dp_4096, 0, pl, 3, want);
    ref = ref_frame_crc(want, 4096 * 4096);
    for (c = 0; c < 4; c++) {
        for (i = 0; i < 3; i++) {
            dp_plane(d, c, i, &pl[i]);
        }
        dp_enable(d, c, &dp_4096, VDXG_CRTC_CTRL_CRC);
    }
    dp_qom_reset_max_slice(d);

    /* The first frame: every row is blended */
    t = g_get_monotonic_time();
    k = dp_next_vblank(d, 0);
    step = g_get_monotonic_time() - t;
    rt = dp_wait_crcs(d, k, 4, crc);
    first = g_get_monotonic_time() - t;
    g_test_message("frame 1: vblank step %" PRId64 " us, longest round trip "
                   "%" PRId64 " us, composed in %" PRId64 " us, "
                   "x-max-slice-ns %" PRIu64 " x-max-slice-cpu-ns %" PRIu64
                   " x-next-slice-cpu-ns %" PRIu64,
                   step, rt, first, dp_qom_u64(d, "x-max-slice-ns"),
                   dp_qom_u64(d, "x-max-slice-cpu-ns"),
                   dp_qom_u64(d, "x-next-slice-cpu-ns"));
    for (c = 0; c < 4; c++) {
        g_assert_cmphex(crc[c], ==, ref);
    }
    dp_assert_huge_sliced(d);

    /* The same memory: the aperture is read, no row is blended again */
    dp_qom_reset_max_slice(d);
    t = g_get_monotonic_time();
    k = dp_next_vblank(d, 0);
    step = g_get_monotonic_time() - t;
    rt = dp_wait_crcs(d, k, 4, crc);
    second = g_get_monotonic_time() - t;
    g_test_message("frame 2: vblank step %" PRId64 " us, longest round trip "
                   "%" PRId64 " us, composed in %" PRId64 " us, "
                   "x-max-slice-ns %" PRIu64 " x-max-slice-cpu-ns %" PRIu64
                   " x-next-slice-cpu-ns %" PRIu64,
                   step, rt, second, dp_qom_u64(d, "x-max-slice-ns"),
                   dp_qom_u64(d, "x-max-slice-cpu-ns"),
                   dp_qom_u64(d, "x-next-slice-cpu-ns"));
    for (c = 0; c < 4; c++) {
        g_assert_cmphex(crc[c], ==, ref);
    }
    dp_assert_huge_sliced(d);

    /* One byte of one system page: another CRC, the expected one */
    pages[5] ^= 0x40;
    qtest_bufwrite(d->qts, SYS_PAGE(DP_SYS_PAGE), pages, 16);
    for (i = 0; i < DP_HUGE_PAGES; i += 16) {
        mem[(uint64_t)i * PG_PAGE + 5] ^= 0x40;
    }
    ref_compose(&dp_4096, 0, pl, 3, want);
    ref = ref_frame_crc(want, 4096 * 4096);
    k = dp_next_vblank(d, 0);
    dp_wait_crcs(d, k, 4, crc);
    for (c = 0; c < 4; c++) {
        g_assert_cmphex(crc[c], ==, ref);
    }
    dp_assert_huge_sliced(d);
    dp_stop(d);
}

/* ARGB pixels, premultiplied or not, with every alpha */
static uint8_t *dp_argb_pattern(uint32_t w, uint32_t h, uint32_t seed,
                                bool premultiplied)
{
    g_autoptr(GRand) rnd = g_rand_new_with_seed(seed);
    uint8_t *buf = g_malloc((size_t)w * h * 4);
    size_t i;

    for (i = 0; i < (size_t)w * h; i++) {
        uint32_t a = g_rand_int_range(rnd, 0, 4) == 0 ? 255 :
                     g_rand_int_range(rnd, 0, 4) == 0 ? 0 :
                     g_rand_int_range(rnd, 0, 256);
        uint32_t px = g_rand_int(rnd) & 0xffffff;
        int c;

        if (premultiplied) {
            for (c = 0; c < 24; c += 8) {
                px = (px & ~(0xffu << c)) |
                     ((((px >> c) & 0xff) * a / 255) << c);
            }
        }
        stl_le_p(buf + i * 4, a << 24 | px);
    }
    return buf;
}

DpPlane dp_cursor_plane(Dp *d, uint64_t addr, uint32_t size, int x,
                        int y, uint32_t blend, uint32_t seed)
{
    DpPlane pl = {
        .ctrl = PLANE_ON | BLEND(blend), .addr = addr, .fmt = AR24,
        .pitch = size * 4, .w = size, .h = size, .x = x, .y = y,
        .alpha = 0xffff, .zpos = 2,
    };

    dp_put(d, &pl, dp_argb_pattern(size, size, seed,
                                   blend == VDXG_BLEND_PREMULTI));
    return pl;
}

/* Cursor: immediate updates, sizes, clipping at every edge, alpha */
static void test_dp_cursor(void)
{
    static const struct {
        int x, y;
        uint32_t size;
    } spots[] = {
        { 50, 30, 64 }, { -20, -10, 64 }, { 130, 100, 64 }, { -64, 0, 64 },
        { 159, 119, 64 }, { -63, -63, 64 }, { 0, 120, 64 }, { 160, 0, 64 },
        { -100, -100, 256 }, { 100, 50, 128 }, { 3, 4, 1 }, { -30, 60, 37 },
    };
    const DpMode *m = &dp_small;
    Dp *d = dp_start(NULL);
    DpPlane pl[3] = { 0 };
    g_autofree uint32_t *want = g_new(uint32_t, 160 * 120);
    int i;

    pl[PRIMARY] = dp_rand_plane(d, DP_FB(0), XR24, 160, 120, 0, 0, 11);
    dp_plane(d, 0, PRIMARY, &pl[PRIMARY]);
    dp_enable(d, 0, m, 0);

    for (i = 0; i < ARRAY_SIZE(spots); i++) {
        uint32_t blend = i % 2 ? VDXG_BLEND_COVERAGE : VDXG_BLEND_PREMULTI;

        g_test_message("cursor %ux%u at (%d, %d)", spots[i].size,
                       spots[i].size, spots[i].x, spots[i].y);
        pl[CURSOR] = dp_cursor_plane(d, DP_FB(2 + i % 2), spots[i].size,
                                     spots[i].x, spots[i].y, blend, 100 + i);
        if (i == 9) {
            pl[CURSOR].alpha = 0x8000;
        }
        dp_plane(d, 0, CURSOR, &pl[CURSOR]);
        /* The fast path: visible at once, no interrupt, no vblank */
        wr(d->v, CR(0, VDXG_CRTC_CURSOR_UPDATE), 1);
        g_assert_cmphex(rd64(d->v, PL(0, CURSOR, VDXG_PLANE_CUR_ADDR_LO)), ==,
                        pl[CURSOR].addr);
        g_assert_cmphex(rd(d->v, PL(0, CURSOR, VDXG_PLANE_STATUS)), ==,
                        VDXG_PLANE_STATUS_ACTIVE);
        g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);
        ref_compose(m, 0, pl, 3, want);
        if (i % 4 == 0) {
            dp_check_screendump(d, NULL, 0, want, 160, 120);
        }
        dp_check_frame(d, 0, 0, pl, 3);
    }

    /* CURSOR_UPDATE latches the cursor only. */
    {
        DpPlane other = dp_rand_plane(d, DP_FB(4), XR24, 160, 120, 0, 0, 12);

        dp_plane(d, 0, PRIMARY, &other);
        pl[CURSOR].x = 10;
        dp_plane(d, 0, CURSOR, &pl[CURSOR]);
        wr(d->v, CR(0, VDXG_CRTC_CURSOR_UPDATE), 1);
        g_assert_cmphex(rd64(d->v, PL(0, PRIMARY, VDXG_PLANE_CUR_ADDR_LO)),
                        ==, DP_FB(0));
        dp_check_frame(d, 0, 0, pl, 3);
        /* ... and a FLIP takes the rest, cursor included */
        dp_flip(d, 0);
        pl[PRIMARY] = other;
        dp_check_frame(d, 0, 0, pl, 3);
    }

    /* Cursor off through the fast path */
    dp_plane(d, 0, CURSOR, &(DpPlane){ 0 });
    wr(d->v, CR(0, VDXG_CRTC_CURSOR_UPDATE), 1);
    g_assert_cmphex(rd(d->v, PL(0, CURSOR, VDXG_PLANE_STATUS)), ==, 0);
    dp_check_frame(d, 0, 0, pl, 1);
    /* The cursor cannot rotate: those bits read 0 */
    wr(d->v, PL(0, CURSOR, VDXG_PLANE_CTRL), VDXG_PLANE_CTRL_ROT_180 |
       VDXG_PLANE_CTRL_REFLECT_X | VDXG_PLANE_CTRL_REFLECT_Y | PLANE_ON);
    g_assert_cmphex(rd(d->v, PL(0, CURSOR, VDXG_PLANE_CTRL)), ==, PLANE_ON);
    dp_assert_no_fault(d);
    dp_stop(d);
}

/* One composed pixel: @fg (overlay) over an opaque @bg (primary) */
static uint32_t dp_blend_one(Dp *d, uint32_t fg, uint32_t bg, uint32_t blend,
                             uint32_t alpha)
{
    DpPlane pl[2];
    uint32_t frame[64 * 48];

    pl[0] = dp_solid_plane(d, DP_FB(0), XR24, bg, 64, 48, 0, 0);
    pl[1] = dp_solid_plane(d, DP_FB(1), AR24, fg, 8, 8, 4, 4);
    pl[1].ctrl |= BLEND(blend);
    pl[1].alpha = alpha;
    dp_plane(d, 0, PRIMARY, &pl[0]);
    dp_plane(d, 0, OVERLAY, &pl[1]);
    dp_flip(d, 0);
    dp_capture(d, 0, frame);
    g_assert_cmphex(frame[0], ==, bg & 0xffffff);
    g_free((void *)pl[0].data);
    g_free((void *)pl[1].data);
    return frame[5 * 64 + 5];
}

/* Overlay plane alpha and pixel blend modes, pixel-exact */
static void test_dp_blend(void)
{
    static const uint32_t alphas[] = { 0xffff, 0x8000, 0x1234, 0, 0xfffe };
    Dp *d = dp_start(NULL);
    DpPlane pl[2];
    int mode, i;

    dp_enable(d, 0, &dp_tiny, 0);
    /* Known values, worked out by hand from the formulas */
    g_assert_cmphex(dp_blend_one(d, 0x80ff0000, 0x0000ff, VDXG_BLEND_COVERAGE,
                                 0xffff), ==, 0x80007f);
    g_assert_cmphex(dp_blend_one(d, 0x80800000, 0x0000ff, VDXG_BLEND_PREMULTI,
                                 0xffff), ==, 0x80007f);
    g_assert_cmphex(dp_blend_one(d, 0x00ff0000, 0x0000ff, VDXG_BLEND_NONE,
                                 0x8000), ==, 0x80007f);
    /* Pre-multiplied adds and saturates */
    g_assert_cmphex(dp_blend_one(d, 0x80ff00ff, 0x0000ff, VDXG_BLEND_PREMULTI,
                                 0xffff), ==, 0xff00ff);
    g_assert_cmphex(dp_blend_one(d, 0x00204060, 0x102030, VDXG_BLEND_PREMULTI,
                                 0xffff), ==, 0x306090);
    /* Opaque pixels replace; transparent ones keep the background */
    g_assert_cmphex(dp_blend_one(d, 0xff123456, 0xabcdef, VDXG_BLEND_COVERAGE,
                                 0xffff), ==, 0x123456);
    g_assert_cmphex(dp_blend_one(d, 0x00123456, 0xabcdef, VDXG_BLEND_COVERAGE,
                                 0xffff), ==, 0xabcdef);
    g_assert_cmphex(dp_blend_one(d, 0x00123456, 0xabcdef, VDXG_BLEND_NONE,
                                 0xffff), ==, 0x123456);
    g_assert_cmphex(dp_blend_one(d, 0xff123456, 0xabcdef, VDXG_BLEND_NONE,
                                 0), ==, 0xabcdef);

    /* Random content, every mode and some plane alphas */
    wr(d->v, CR(0, VDXG_CRTC_CTRL), 0);
    dp_enable(d, 0, &dp_small, 0);
    pl[0] = dp_rand_plane(d, DP_FB(0), XR24, 160, 120, 0, 0, 21);
    for (mode = VDXG_BLEND_NONE; mode <= VDXG_BLEND_COVERAGE; mode++) {
        for (i = 0; i < ARRAY_SIZE(alphas); i++) {
            pl[1] = (DpPlane) {
                .ctrl = PLANE_ON | BLEND(mode), .addr = DP_FB(1),
                .fmt = AR24, .pitch = 104 * 4, .w = 100, .h = 80,
                .x = 30 + i, .y = 20 - 3 * i, .alpha = alphas[i], .zpos = 1,
            };
            dp_put(d, &pl[1], dp_argb_pattern(104, 80, 30 + mode * 10 + i,
                                              mode == VDXG_BLEND_PREMULTI));
            dp_plane(d, 0, PRIMARY, &pl[0]);
            dp_plane(d, 0, OVERLAY, &pl[1]);
            dp_flip(d, 0);
            dp_check_frame(d, 0, 0, pl, 2);
            g_free((void *)pl[1].data);
        }
    }
    /* The primary blends too: an ARGB primary over the background */
    pl[0] = dp_rand_plane(d, DP_FB(0), AR24, 120, 100, 20, 10, 22);
    pl[0].ctrl |= BLEND(VDXG_BLEND_COVERAGE);
    pl[0].alpha = 0xc000;
    dp_plane(d, 0, PRIMARY, &pl[0]);
    dp_plane(d, 0, OVERLAY, &(DpPlane){ 0 });
    wr(d->v, CR(0, VDXG_CRTC_BG_COLOR), 0xff405060);
    dp_flip(d, 0);
    dp_check_frame(d, 0, 0x405060, pl, 1);
    dp_assert_no_fault(d);
    dp_stop(d);
}

/* ZPOS orders the planes; equal values keep primary, overlay, cursor. */
static void test_dp_zpos(void)
{
    static const uint32_t orders[][3] = {
        { 0, 1, 2 }, { 2, 1, 0 }, { 0, 2, 1 }, { 1, 0, 2 }, { 1, 1, 1 },
        { 2, 0, 0 }, { 0, 0, 0 }, { 1, 2, 0 },
    };
    Dp *d = dp_start(NULL);
    DpPlane pl[3];
    int i, p;

    dp_enable(d, 0, &dp_small, 0);
    pl[PRIMARY] = dp_solid_plane(d, DP_FB(0), XR24, 0xff0000, 100, 100, 0, 0);
    pl[OVERLAY] = dp_solid_plane(d, DP_FB(1), AR24, 0x8000ff00, 60, 60, 20,
                                 20);
    pl[OVERLAY].ctrl |= BLEND(VDXG_BLEND_COVERAGE);
    pl[CURSOR] = dp_solid_plane(d, DP_FB(2), AR24, 0xff0000ff, 64, 64, 50,
                                50);
    for (i = 0; i < ARRAY_SIZE(orders); i++) {
        for (p = 0; p < 3; p++) {
            pl[p].zpos = orders[i][p];
            dp_plane(d, 0, p, &pl[p]);
        }
        dp_flip(d, 0);
        dp_check_frame(d, 0, 0, pl, 3);
    }
    /* A hand check: the cursor on top, then under the overlay */
    {
        uint32_t frame[160 * 120];

        pl[PRIMARY].zpos = 0;
        pl[OVERLAY].zpos = 1;
        pl[CURSOR].zpos = 2;
        for (p = 0; p < 3; p++) {
            dp_plane(d, 0, p, &pl[p]);
        }
        dp_flip(d, 0);
        dp_capture(d, 0, frame);
        g_assert_cmphex(frame[60 * 160 + 60], ==, 0x0000ff);
        g_assert_cmphex(frame[30 * 160 + 30], ==, 0x7f8000);
        wr(d->v, PL(0, CURSOR, VDXG_PLANE_ZPOS), 0);
        wr(d->v, PL(0, OVERLAY, VDXG_PLANE_ZPOS), 2);
        dp_flip(d, 0);
        dp_capture(d, 0, frame);
        g_assert_cmphex(frame[60 * 160 + 60], ==, 0x00807f);
        g_assert_cmphex(frame[110 * 160 + 110], ==, 0x0000ff);
    }
    dp_assert_no_fault(d);
    dp_stop(d);
}

/*
 * Show primary @pl[0] and overlay @pl[1] on CRTC 0 over black, check the
 * frame against the reference, free the overlay's data
 */
static void dp_show_two(Dp *d, DpPlane *pl)
{
    dp_plane(d, 0, PRIMARY, &pl[0]);
    dp_plane(d, 0, OVERLAY, &pl[1]);
    dp_flip(d, 0);
    dp_check_frame(d, 0, 0, pl, 2);
    g_free((void *)pl[1].data);
}

/* Rotation 180 and reflections on primary and overlay */
static void test_dp_rotation(void)
{
    static const uint32_t rots[] = {
        0, VDXG_PLANE_CTRL_ROT_180, VDXG_PLANE_CTRL_REFLECT_X,
        VDXG_PLANE_CTRL_REFLECT_Y,
        VDXG_PLANE_CTRL_ROT_180 | VDXG_PLANE_CTRL_REFLECT_X,
        VDXG_PLANE_CTRL_ROT_180 | VDXG_PLANE_CTRL_REFLECT_Y,
        VDXG_PLANE_CTRL_REFLECT_X | VDXG_PLANE_CTRL_REFLECT_Y,
        VDXG_PLANE_CTRL_ROT_180 | VDXG_PLANE_CTRL_REFLECT_X |
        VDXG_PLANE_CTRL_REFLECT_Y,
    };
    Dp *d = dp_start(NULL);
    DpPlane pl[2];
    uint32_t frame[64 * 48];
    uint8_t *src;
    int i;

    /* By hand: a 64x48 primary whose pixel (x, y) is y << 8 | x */
    dp_enable(d, 0, &dp_tiny, 0);
    src = g_malloc(64 * 48 * 4);
    for (i = 0; i < 64 * 48; i++) {
        stl_le_p(src + i * 4, (i / 64) << 8 | (i % 64));
    }
    pl[0] = (DpPlane) {
        .ctrl = PLANE_ON, .addr = DP_FB(0), .fmt = XR24, .pitch = 256,
        .w = 64, .h = 48, .alpha = 0xffff,
    };
    dp_put(d, &pl[0], src);
    for (i = 0; i < 4; i++) {
        pl[0].ctrl = PLANE_ON | rots[i];
        dp_plane(d, 0, PRIMARY, &pl[0]);
        dp_flip(d, 0);
        dp_capture(d, 0, frame);
        /* Output (3, 5) shows source ... */
        g_assert_cmphex(frame[5 * 64 + 3], ==,
                        i == 0 ? 0x0503 : i == 1 ? (42 << 8 | 60) :
                        i == 2 ? (5 << 8 | 60) : (42 << 8 | 3));
    }

    /* Every combination, against the reference, partly off-screen too */
    wr(d->v, CR(0, VDXG_CRTC_CTRL), 0);
    dp_enable(d, 0, &dp_small, 0);
    pl[0] = dp_rand_plane(d, DP_FB(1), RG16, 150, 110, 5, 7, 41);
    for (i = 0; i < ARRAY_SIZE(rots); i++) {
        pl[0].ctrl = PLANE_ON | rots[i];
        pl[1] = (DpPlane) {
            .ctrl = PLANE_ON | rots[(i + 3) % ARRAY_SIZE(rots)] |
                    BLEND(VDXG_BLEND_COVERAGE),
            .addr = DP_FB(2), .fmt = AR24, .pitch = 50 * 4, .w = 50, .h = 30,
            .x = i * 25 - 20, .y = 100 - i * 9, .alpha = 0xe000, .zpos = 1,
        };
        dp_put(d, &pl[1], dp_argb_pattern(50, 30, 50 + i, false));
        dp_show_two(d, pl);
    }
    dp_assert_no_fault(d);
    dp_stop(d);
}

/* Rotation by 90 and 270 degrees, with and without reflections */
static void test_dp_rotation_90(void)
{
    Dp *d = dp_start(NULL);
    DpPlane pl[2];
    uint32_t frame[64 * 48];
    uint8_t *src;
    int i, r;

    /* By hand: a 48x64 primary whose pixel (x, y) is y << 8 | x */
    dp_enable(d, 0, &dp_tiny, 0);
    src = g_malloc(48 * 64 * 4);
    for (i = 0; i < 48 * 64; i++) {
        stl_le_p(src + i * 4, (i / 48) << 8 | (i % 48));
    }
    pl[0] = (DpPlane) {
        .ctrl = PLANE_ON | VDXG_PLANE_CTRL_ROT_90, .addr = DP_FB(0),
        .fmt = XR24, .pitch = 48 * 4, .w = 48, .h = 64, .alpha = 0xffff,
    };
    dp_put(d, &pl[0], src);
    dp_plane(d, 0, PRIMARY, &pl[0]);
    dp_flip(d, 0);
    dp_capture(d, 0, frame);
    /*
     * Turned counter-clockwise: the top right source pixel (47, 0) is at
     * the top left, and output (3, 5) shows source (47 - 5, 3).
     */
    g_assert_cmphex(frame[0], ==, 0x002f);
    g_assert_cmphex(frame[5 * 64 + 3], ==, 3 << 8 | 42);
    /* 270: ROT_90 | ROT_180, the other way: (3, 5) shows (5, 63 - 3) */
    pl[0].ctrl = PLANE_ON | VDXG_PLANE_CTRL_ROT_90 | VDXG_PLANE_CTRL_ROT_180;
    dp_plane(d, 0, PRIMARY, &pl[0]);
    dp_flip(d, 0);
    dp_capture(d, 0, frame);
    g_assert_cmphex(frame[5 * 64 + 3], ==, 60 << 8 | 5);
    dp_check_frame(d, 0, 0, pl, 1);

    /* Every reflection, turned, against the reference, off-screen too */
    wr(d->v, CR(0, VDXG_CRTC_CTRL), 0);
    dp_enable(d, 0, &dp_small, 0);
    pl[0] = dp_rand_plane(d, DP_FB(1), RG16, 110, 150, 5, 7, 41);
    for (r = 0; r < 8; r++) {
        pl[0].ctrl = PLANE_ON | VDXG_PLANE_CTRL_ROT_90 | r << 1;
        pl[1] = (DpPlane) {
            .ctrl = PLANE_ON | VDXG_PLANE_CTRL_ROT_90 | (7 - r) << 1 |
                    BLEND(VDXG_BLEND_COVERAGE),
            .addr = DP_FB(2), .fmt = AR24, .pitch = 30 * 4, .w = 30,
            .h = 50, .x = r * 25 - 20, .y = 100 - r * 9, .alpha = 0xe000,
            .zpos = 1,
        };
        dp_put(d, &pl[1], dp_argb_pattern(30, 50, 50 + r, false));
        dp_show_two(d, pl);
    }
    dp_assert_no_fault(d);
    g_free(src);
    dp_stop(d);
}

/* Scaling, nearest and bilinear, up and down, with every rotation */
static void test_dp_scaling(void)
{
    static const struct {
        uint32_t w, h, dw, dh;
        int x, y;
    } cases[] = {
        { 20, 15, 160, 120, 0, 0 },     /* 8x up: the limit */
        { 37, 23, 101, 77, -9, 30 },    /* odd factors, off-screen */
        { 160, 120, 40, 30, 10, 10 },   /* 4x down: the limit */
        { 150, 100, 61, 133, 120, -20 },/* down one way, up the other */
        { 7, 5, 7, 5, 3, 3 },           /* unscaled, through DST_SIZE */
        { 1, 1, 8, 8, 60, 70 },         /* one pixel */
    };
    Dp *d = dp_start(NULL);
    DpPlane pl[2];
    int i, k;

    dp_enable(d, 0, &dp_small, 0);
    wr(d->v, CR(0, VDXG_CRTC_BG_COLOR), 0x304050);
    for (i = 0; i < ARRAY_SIZE(cases); i++) {
        for (k = 0; k < 4; k++) {
            bool rot90 = k & 2;
            uint32_t w = rot90 ? cases[i].h : cases[i].w;
            uint32_t h = rot90 ? cases[i].w : cases[i].h;

            pl[0] = dp_rand_plane(d, DP_FB(1), k & 1 ? RG16 : XR24, w, h,
                                  cases[i].x, cases[i].y, 10 * i + k);
            pl[0].ctrl |= (k & 1 ? VDXG_PLANE_CTRL_BILINEAR : 0) |
                          (rot90 ? VDXG_PLANE_CTRL_ROT_90 : 0) |
                          (i & 1 ? VDXG_PLANE_CTRL_REFLECT_X : 0);
            pl[0].dw = cases[i].dw;
            pl[0].dh = cases[i].dh;
            /* A translucent ARGB overlay scaled the other way over it */
            pl[1] = (DpPlane) {
                .ctrl = PLANE_ON | BLEND(VDXG_BLEND_PREMULTI) |
                        (k & 1 ? 0 : VDXG_PLANE_CTRL_BILINEAR) |
                        (i & 2 ? VDXG_PLANE_CTRL_ROT_180 : 0),
                .addr = DP_FB(2), .fmt = AR24, .pitch = 24 * 4, .w = 24,
                .h = 18, .x = 30 + 5 * i, .y = 20 + 3 * k, .alpha = 0xc000,
                .zpos = 1, .dw = 24 * (k + 1) + i, .dh = 18 * (i % 3 + 1) / 2,
            };
            dp_put(d, &pl[1], dp_argb_pattern(24, 18, 70 + i, true));
            dp_plane(d, 0, PRIMARY, &pl[0]);
            dp_plane(d, 0, OVERLAY, &pl[1]);
            dp_flip(d, 0);
            g_assert_cmphex(rd(d->v, PL(0, PRIMARY, VDXG_PLANE_DST_SIZE)),
                            ==, VDXG_PLANE_SIZE_WH(pl[0].dw, pl[0].dh));
            dp_check_frame(d, 0, 0x304050, pl, 2);
            g_free((void *)pl[0].data);
            g_free((void *)pl[1].data);
        }
    }
    /* The cursor does not scale: its DST_SIZE reads 0 */
    wr(d->v, PL(0, CURSOR, VDXG_PLANE_DST_SIZE), 0x00200020);
    g_assert_cmphex(rd(d->v, PL(0, CURSOR, VDXG_PLANE_DST_SIZE)), ==, 0);
    dp_assert_no_fault(d);
    dp_stop(d);
}

/* Every scanout format, and both writeback formats */
static void test_dp_formats(void)
{
    static const uint32_t fmts[] = { XR24, AR24, XB24, RG16 };
    const DpMode *m = &dp_small;
    Dp *d = dp_start(NULL);
    DpPlane pl;
    g_autofree uint32_t *want = g_new(uint32_t, 160 * 120);
    g_autofree uint8_t *buf = g_malloc(160 * 120 * 4);
    uint32_t frame[64 * 48];
    int i, f;

    /* By hand: one pixel of each format */
    dp_enable(d, 0, &dp_tiny, 0);
    {
        static const struct {
            uint32_t fmt, raw, argb;
        } px[] = {
            { XR24, 0x00123456, 0x123456 }, { XR24, 0xab123456, 0x123456 },
            { AR24, 0xff123456, 0x123456 }, { XB24, 0x00112233, 0x332211 },
            { RG16, 0xf800, 0xff0000 }, { RG16, 0x07e0, 0x00ff00 },
            { RG16, 0x001f, 0x0000ff }, { RG16, 0x8410, 0x848284 },
        };

        for (i = 0; i < ARRAY_SIZE(px); i++) {
            pl = (DpPlane) {
                .ctrl = PLANE_ON, .addr = DP_FB(0) + 4, .fmt = px[i].fmt,
                .pitch = 4, .w = 1, .h = 1, .x = 7, .y = 9, .alpha = 0xffff,
            };
            vram_writel(d->p, DP_FB(0) + 4, px[i].raw);
            dp_plane(d, 0, PRIMARY, &pl);
            dp_flip(d, 0);
            dp_capture(d, 0, frame);
            g_assert_cmphex(frame[9 * 64 + 7], ==, px[i].argb);
            g_assert_cmphex(frame[9 * 64 + 8], ==, 0);
        }
    }

    wr(d->v, CR(0, VDXG_CRTC_CTRL), 0);
    dp_enable(d, 0, m, 0);
    wr(d->v, CR(0, VDXG_CRTC_BG_COLOR), 0x203040);
    for (f = 0; f < ARRAY_SIZE(fmts); f++) {
        pl = dp_rand_plane(d, DP_FB(1 + f), fmts[f], 150 + f, 110, f, 2 * f,
                           60 + f);
        pl.ctrl |= BLEND(VDXG_BLEND_PREMULTI);
        dp_plane(d, 0, PRIMARY, &pl);
        dp_flip(d, 0);
        dp_check_frame(d, 0, 0x203040, &pl, 1);

        /* ARGB8888 writeback: the same, with A = 0xff */
        ref_compose(m, 0x203040, &pl, 1, want);
        dp_wb_run(d, 0, AR24, DP_WB, 160 * 4);
        vram_read(d->p, DP_WB, buf, 160 * 120 * 4);
        for (i = 0; i < 160 * 120; i++) {
            g_assert_cmphex((uint32_t)ldl_le_p(buf + i * 4), ==, 0xff000000u | want[i]);
        }
        g_free((void *)pl.data);
    }
    dp_assert_no_fault(d);
    dp_stop(d);
}

/*
 * A CRC that comes after the next vblank names that vblank: CRC_FIRST then
 * names the frame it began at, the latch that both frames show.
 */
static void test_dp_crc_first(void)
{
    const DpMode *m = &dp_1024;
    int64_t frame_ns = muldiv64((uint64_t)m->ht * m->vt, 1000000, m->clock);
    Dp *d = dp_start(NULL);
    g_autofree uint32_t *want = g_new(uint32_t, m->hd * m->vd);
    DpPlane pl[2];
    uint32_t k, crc;

    /* More than the device composes at once: translucent, 1024 x 512 */
    pl[0] = dp_rand_plane(d, DP_FB(0), XR24, m->hd, m->vd, 0, 0, 31);
    pl[1] = (DpPlane) {
        .ctrl = PLANE_ON | BLEND(VDXG_BLEND_COVERAGE), .addr = DP_FB(4),
        .fmt = AR24, .pitch = m->hd * 4, .w = m->hd, .h = 512, .x = 0,
        .y = 100, .alpha = 0x8000, .zpos = 1,
    };
    dp_put(d, &pl[1], dp_argb_pattern(m->hd, 512, 32, false));
    dp_plane(d, 0, PRIMARY, &pl[0]);
    dp_enable(d, 0, m, VDXG_CRTC_CTRL_CRC);
    k = dp_next_vblank(d, 0);
    dp_wait_crcs(d, k, 1, &crc);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_CRC_FIRST)), ==, 0);

    /* A flip latched at vblank k + 1, then k + 2 comes in the same step */
    dp_plane(d, 0, OVERLAY, &pl[1]);
    wr(d->v, CR(0, VDXG_CRTC_FLIP), 1);
    dp_step(d, 2 * frame_ns + frame_ns / 2);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT)), ==, k + 2);
    dp_wait_crcs(d, k + 2, 1, &crc);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_CRC_FIRST)), ==, k + 1);
    ref_compose(m, 0, pl, 2, want);
    g_assert_cmphex(crc, ==, ref_frame_crc(want, m->hd * m->vd));
    /* Nothing latched since: the next CRC describes the same frames on */
    dp_next_vblank(d, 0);
    dp_wait_crcs(d, k + 3, 1, &crc);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_CRC_FIRST)), ==, k + 1);
    g_assert_cmphex(crc, ==, ref_frame_crc(want, m->hd * m->vd));
    g_free((void *)pl[0].data);
    g_free((void *)pl[1].data);
    dp_stop(d);
}

/* FLIP with FLIP_DAMAGE for rows @y0 to @y1 - 1; returns the vblank */
static uint32_t dp_damage_flip(Dp *d, uint32_t y0, uint32_t y1)
{
    uint32_t k;

    wr(d->v, CR(0, VDXG_CRTC_DAMAGE), y1 << VDXG_CRTC_DAMAGE_Y1_SHIFT | y0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_DAMAGE)), ==,
                    y1 << VDXG_CRTC_DAMAGE_Y1_SHIFT | y0);
    wr(d->v, VDXG_REG_INT_ACK, VDXG_INT_FLIP_DONE(0));
    wr(d->v, CR(0, VDXG_CRTC_FLIP), 1 | VDXG_CRTC_FLIP_DAMAGE);
    k = dp_next_vblank(d, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS) & VDXG_INT_FLIP_DONE(0),
                    ==, VDXG_INT_FLIP_DONE(0));
    return k;
}

/* @out: @base with rows @y0 to @y1 - 1 (of @row pixels) of @rows */
static void dp_rows_of(uint32_t *out, const uint32_t *base,
                       const uint32_t *rows, size_t px, size_t row,
                       uint32_t y0, uint32_t y1)
{
    memcpy(out, base, px * 4);
    memcpy(out + y0 * row, rows + y0 * row, (y1 - y0) * row * 4);
}

/* The CRC of vblank @k is that of @want */
static void dp_assert_crc(Dp *d, uint32_t k, const uint32_t *want, size_t px)
{
    uint32_t crc;

    dp_wait_crcs(d, k, 1, &crc);
    g_assert_cmphex(crc, ==, ref_frame_crc(want, px));
}

/*
 * Damage: a FLIP with FLIP_DAMAGE composes its rows and keeps the others
 * until their memory changes; the frame tells, when the promise is broken
 * on purpose, which rows the device composed.
 */
static void test_dp_damage(void)
{
    const DpMode *m = &dp_640;
    size_t px = (size_t)m->hd * m->vd, row = m->hd;
    Dp *d = dp_start(NULL);
    g_autofree uint32_t *fa = g_new(uint32_t, px);
    g_autofree uint32_t *fb = g_new(uint32_t, px);
    g_autofree uint32_t *want = g_new(uint32_t, px);
    g_autofree uint8_t *a2 = NULL;
    g_autofree uint8_t *line = g_malloc(m->hd * 4);
    const uint8_t *a0;
    DpPlane a, b;
    uint64_t w0, w1;
    uint32_t k, y, i;

    a = dp_rand_plane(d, DP_FB(0), XR24, m->hd, m->vd, 0, 0, 1);
    b = dp_rand_plane(d, DP_FB(4), XR24, m->hd, m->vd, 0, 0, 2);
    ref_compose(m, 0, &a, 1, fa);
    ref_compose(m, 0, &b, 1, fb);
    dp_plane(d, 0, PRIMARY, &a);
    dp_enable(d, 0, m, VDXG_CRTC_CTRL_CRC);
    dp_assert_crc(d, dp_next_vblank(d, 0), fa, px);

    /* B, written before the flip: rows 100 to 199 at once, the rest next */
    dp_plane(d, 0, PRIMARY, &b);
    k = dp_damage_flip(d, 100, 200);
    dp_rows_of(want, fa, fb, px, row, 100, 200);
    dp_assert_crc(d, k, want, px);
    dp_assert_crc(d, dp_next_vblank(d, 0), fb, px);

    /* A, unchanged since the device last looked: the kept rows stay B */
    dp_plane(d, 0, PRIMARY, &a);
    dp_rows_of(want, fb, fa, px, row, 300, 310);
    dp_assert_crc(d, dp_damage_flip(d, 300, 310), want, px);
    dp_assert_crc(d, dp_next_vblank(d, 0), want, px);

    /* A write to A's row 50: the rows sharing its pages are A's again */
    a0 = a.data;
    a2 = g_memdup2(a.data, (size_t)a.pitch * a.h);
    for (i = 0; i < m->hd * 4; i++) {
        line[i] = a2[50 * a.pitch + i] ^ 0x5a;
    }
    memcpy(a2 + 50 * a.pitch, line, m->hd * 4);
    vram_write(d->p, a.addr + 50 * a.pitch, line, m->hd * 4);
    a.data = a2;
    ref_compose(m, 0, &a, 1, fa);
    w0 = (a.addr + 50 * a.pitch) & ~4095ull;
    w1 = (a.addr + 50 * a.pitch + m->hd * 4 + 4095) & ~4095ull;
    for (y = 0; y < m->vd; y++) {
        uint64_t r0 = a.addr + (uint64_t)y * a.pitch;

        if (r0 < w1 && r0 + m->hd * 4 > w0) {
            memcpy(want + y * row, fa + y * row, row * 4);
        }
    }
    dp_assert_crc(d, dp_next_vblank(d, 0), want, px);

    /* No rows: nothing changes; FLIP without FLIP_DAMAGE: all of them */
    dp_assert_crc(d, dp_damage_flip(d, 7, 7), want, px);
    dp_assert_crc(d, dp_flip(d, 0), fa, px);
    g_free((void *)a0);
    g_free((void *)b.data);
    dp_stop(d);
}

void vdxg_test_add_compose_tests(void)
{
    qtest_add_func("/vdxg/display/crc", test_dp_crc);
    qtest_add_func("/vdxg/display/crc-1024x768", test_dp_crc_1024);
    qtest_add_func("/vdxg/display/dirty-log-unguarded",
                   test_dp_dirty_unguarded);
    qtest_add_func("/vdxg/display/huge-sliced", test_dp_huge);
    qtest_add_func("/vdxg/display/crc-first", test_dp_crc_first);
    qtest_add_func("/vdxg/display/damage", test_dp_damage);
    qtest_add_func("/vdxg/display/cursor", test_dp_cursor);
    qtest_add_func("/vdxg/display/blend", test_dp_blend);
    qtest_add_func("/vdxg/display/zpos", test_dp_zpos);
    qtest_add_func("/vdxg/display/rotation", test_dp_rotation);
    qtest_add_func("/vdxg/display/rotation-90", test_dp_rotation_90);
    qtest_add_func("/vdxg/display/scaling", test_dp_scaling);
    qtest_add_func("/vdxg/display/formats", test_dp_formats);
}
