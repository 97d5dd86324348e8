/*
 * QTest testcases for the vdxg virtual GPU: writeback
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "vdxg-test.h"

/* Writeback: formats, pitch, one frame per arm, aperture, errors */
static void test_dp_writeback(void)
{
    const DpMode *m = &dp_tiny;
    Dp *d = dp_start("outputs=2");
    DpPlane pl = dp_rand_plane(d, DP_FB(0), XR24, 64, 48, 0, 0, 70);
    DpPlane pl1 = dp_rand_plane(d, DP_FB(1), XB24, 64, 48, 0, 0, 71);
    g_autofree uint32_t *want = g_new(uint32_t, 64 * 48);
    g_autofree uint8_t *buf = g_malloc(DP_WB_SIZE);
    uint32_t pitch = 64 * 4 + 64, seqno, x, y, i;

    dp_plane(d, 0, PRIMARY, &pl);
    dp_plane(d, 1, PRIMARY, &pl1);
    dp_enable(d, 0, m, 0);
    ref_compose(m, 0, &pl, 1, want);

    /* A wider pitch leaves the padding alone. */
    memset(buf, 0xaa, pitch * 48);
    vram_write(d->p, DP_WB, buf, pitch * 48);
    msg_clear(d->v);
    dp_wb_run(d, 0, AR24, DP_WB, pitch);
    assert_msix_messages(d->v, VDXG_MSIX_VEC_DISPLAY);
    vram_read(d->p, DP_WB, buf, pitch * 48);
    for (y = 0; y < 48; y++) {
        for (x = 0; x < 64; x++) {
            g_assert_cmphex((uint32_t)ldl_le_p(buf + y * pitch + x * 4), ==,
                            0xff000000u | want[y * 64 + x]);
        }
        for (x = 64 * 4; x < pitch; x++) {
            g_assert_cmphex(buf[y * pitch + x], ==, 0xaa);
        }
    }
    seqno = rd(d->v, VDXG_REG_WB_SEQNO);
    g_assert_cmpuint(seqno, ==, 1);

    /* One frame per arm: later vblanks write nothing. */
    memset(buf, 0x55, pitch * 48);
    vram_write(d->p, DP_WB, buf, pitch * 48);
    dp_next_vblank(d, 0);
    dp_next_vblank(d, 0);
    vram_read(d->p, DP_WB, buf, pitch * 48);
    for (i = 0; i < pitch * 48; i++) {
        g_assert_cmphex(buf[i], ==, 0x55);
    }
    g_assert_cmpuint(rd(d->v, VDXG_REG_WB_SEQNO), ==, seqno);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_STATUS), ==, VDXG_WB_STATUS_DONE);

    /* Disarmed before the vblank: nothing at all */
    wr(d->v, VDXG_REG_WB_CTRL, VDXG_WB_CTRL_ENABLE);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_STATUS), ==, VDXG_WB_STATUS_BUSY);
    /* Arming again while armed is ignored */
    wr(d->v, VDXG_REG_WB_CTRL, VDXG_WB_CTRL_ENABLE |
       1 << VDXG_WB_CTRL_CRTC_SHIFT);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_CTRL), ==, VDXG_WB_CTRL_ENABLE);
    wr(d->v, VDXG_REG_WB_CTRL, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_STATUS), ==, 0);
    dp_next_vblank(d, 0);
    g_assert_cmpuint(rd(d->v, VDXG_REG_WB_SEQNO), ==, seqno);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);

    /* The source is CRTC [7:4]: CRTC 1, XBGR8888 content */
    dp_enable(d, 1, m, 0);
    ref_compose(m, 0, &pl1, 1, want);
    dp_wb_run(d, 1, XR24, DP_WB, 256);
    vram_read(d->p, DP_WB, buf, 256 * 48);
    for (i = 0; i < 64 * 48; i++) {
        g_assert_cmphex((uint32_t)ldl_le_p(buf + i * 4), ==, 0xff000000u | want[i]);
    }

    /* Into the aperture, through scattered GART pages */
    for (i = 0; i < 12; i++) {
        qtest_writeq(d->qts, d->p->vram.addr + PG_GART + (40 + i) * 8,
                     SYS_PAGE(DP_SYS_PAGE + 11 - i) | VDXG_GART_PTE_VALID);
    }
    wr(d->v, VDXG_REG_TLB_FLUSH, 1);
    dp_wb_run(d, 1, XR24, APERTURE(40) + 256, 256);
    for (i = 0; i < 64 * 48; i++) {
        uint64_t off = 256 + i * 4;

        g_assert_cmphex(qtest_readl(d->qts, SYS_PAGE(DP_SYS_PAGE + 11 -
                                                     off / 4096) + off % 4096),
                        ==, 0xff000000u | want[i]);
    }
    dp_assert_no_fault(d);

    /* Bad programming: DONE | ERROR, a fault, nothing written */
    {
        static const struct {
            uint32_t fmt, pitch;
            uint64_t addr;
            uint32_t reason;
        } bad[] = {
            { RG16, 256, DP_WB, VDXG_FAULT_PARAM },
            { 0, 256, DP_WB, VDXG_FAULT_PARAM },
            { XR24, 252, DP_WB, VDXG_FAULT_PARAM },
            { XR24, 258, DP_WB, VDXG_FAULT_PARAM },
            { XR24, VDXG_PLANE_MAX_PITCH + 4, DP_WB, VDXG_FAULT_PARAM },
            { XR24, 256, DP_WB + 2, VDXG_FAULT_PARAM },
            { XR24, 256, PG_VRAM_SIZE - 256 * 47, VDXG_FAULT_ADDRESS },
            { AR24, 256, GPU_HOLE, VDXG_FAULT_ADDRESS },
            { AR24, 256, APERTURE(PG_GART_ENTRIES) - 4096,
              VDXG_FAULT_ADDRESS },
        };

        for (i = 0; i < ARRAY_SIZE(bad); i++) {
            wr64(d->v, VDXG_REG_WB_ADDR_LO, bad[i].addr);
            wr(d->v, VDXG_REG_WB_FORMAT, bad[i].fmt);
            wr(d->v, VDXG_REG_WB_PITCH, bad[i].pitch);
            wr(d->v, VDXG_REG_WB_CTRL, VDXG_WB_CTRL_ENABLE);
            dp_next_vblank(d, 0);
            g_assert_cmphex(rd(d->v, VDXG_REG_WB_STATUS), ==,
                            VDXG_WB_STATUS_DONE | VDXG_WB_STATUS_ERROR);
            g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS) &
                            VDXG_INT_WRITEBACK, ==, VDXG_INT_WRITEBACK);
            wr(d->v, VDXG_REG_INT_ACK, VDXG_INT_WRITEBACK);
            dp_assert_fault(d, 0, VDXG_DISP_UNIT_WRITEBACK, bad[i].reason,
                            bad[i].addr);
            g_assert_cmpuint(rd(d->v, VDXG_REG_WB_SEQNO), ==, seqno + 2);
        }
    }

    /* Armed on a CRTC that is off or absent: an error at once */
    wr(d->v, CR(1, VDXG_CRTC_CTRL), 0);
    wr64(d->v, VDXG_REG_WB_ADDR_LO, DP_WB);
    wr(d->v, VDXG_REG_WB_FORMAT, XR24);
    wr(d->v, VDXG_REG_WB_PITCH, 256);
    for (i = 1; i <= 3; i += 2) {
        wr(d->v, VDXG_REG_WB_CTRL, VDXG_WB_CTRL_ENABLE |
           i << VDXG_WB_CTRL_CRTC_SHIFT);
        g_assert_cmphex(rd(d->v, VDXG_REG_WB_STATUS), ==,
                        VDXG_WB_STATUS_DONE | VDXG_WB_STATUS_ERROR);
        g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS) & VDXG_INT_WRITEBACK,
                        ==, VDXG_INT_WRITEBACK);
        wr(d->v, VDXG_REG_INT_ACK, VDXG_INT_WRITEBACK);
        dp_assert_fault(d, i, VDXG_DISP_UNIT_WRITEBACK, VDXG_FAULT_PARAM,
                        DP_WB);
    }

    /* The source turned off while armed: DONE | ERROR, no fault */
    wr(d->v, VDXG_REG_WB_CTRL, VDXG_WB_CTRL_ENABLE);
    wr(d->v, CR(0, VDXG_CRTC_CTRL), 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_STATUS), ==,
                    VDXG_WB_STATUS_DONE | VDXG_WB_STATUS_ERROR);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, VDXG_INT_WRITEBACK);
    dp_assert_no_fault(d);
    g_assert_cmpuint(rd(d->v, VDXG_REG_WB_SEQNO), ==, seqno + 2);
    dp_stop(d);
}

/*
 * A 4096x4096 capture: 64 MiB through the aperture, over 16384 system
 * pages of their own (SYS_PAGE(DP_SYS_PAGE) on).
 */
#define WB_HUGE_GART        0x1800000ull    /* 128 KiB: a 64 MiB aperture */
#define WB_HUGE_PAGES       (64 * MiB / PG_PAGE)
#define WB_HUGE_PITCH       (4096 * 4)

static void wb_huge_setup(Dp *d)
{
    g_autofree uint64_t *gart = g_new(uint64_t, WB_HUGE_PAGES);
    uint32_t i;

    for (i = 0; i < WB_HUGE_PAGES; i++) {
        gart[i] = cpu_to_le64(SYS_PAGE(DP_SYS_PAGE + i) |
                              VDXG_GART_PTE_VALID);
    }
    qtest_bufwrite(d->qts, d->p->vram.addr + WB_HUGE_GART, gart,
                   WB_HUGE_PAGES * 8);
    wr(d->v, VDXG_REG_GART_CTRL, 0);
    wr64(d->v, VDXG_REG_GART_TABLE_LO, WB_HUGE_GART);
    wr(d->v, VDXG_REG_GART_CTRL, VDXG_GART_CTRL_ENABLE);
    wr(d->v, VDXG_REG_TLB_FLUSH, 1);
}

/*
 * Fill the target with 0xaa: nothing left of a capture before, and the
 * host's memory is in place (a first touch of fresh pages can cost the
 * host milliseconds, which are not the device's).
 */
static void wb_huge_clear(Dp *d)
{
    qtest_memset(d->qts, SYS_PAGE(DP_SYS_PAGE), 0xaa, 64 * MiB);
}

/* Arm a capture of CRTC 0 into the aperture and step to its vblank. */
static uint32_t wb_huge_arm(Dp *d)
{
    wb_huge_clear(d);
    wr64(d->v, VDXG_REG_WB_ADDR_LO, APERTURE(0));
    wr(d->v, VDXG_REG_WB_FORMAT, XR24);
    wr(d->v, VDXG_REG_WB_PITCH, WB_HUGE_PITCH);
    wr(d->v, VDXG_REG_INT_ACK, VDXG_INT_WRITEBACK);
    wr(d->v, VDXG_REG_WB_CTRL, VDXG_WB_CTRL_ENABLE);
    return dp_next_vblank(d, 0);
}

/*
 * Hold a capture after @lines more lines (x-wb-hold-after), so that it is
 * under way whatever the host's speed; 0 lets it go on.
 */
static void wb_hold_after(Dp *d, uint32_t lines)
{
    qom_set_u64(d->p, "x-wb-hold-after", lines);
}

/* Wait until the capture holds: started, and under way. */
static void wb_wait_held(Dp *d)
{
    int64_t end = g_get_monotonic_time() + 300 * G_USEC_PER_SEC;

    while (dp_qom_u64(d, "x-wb-hold-after")) {
        g_assert_cmpint(g_get_monotonic_time(), <, end);
    }
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_STATUS), ==, VDXG_WB_STATUS_BUSY);
}

/* Wait for the capture to end; returns WB_STATUS. */
static uint32_t wb_huge_wait(Dp *d, uint32_t *busy_reads)
{
    int64_t end = g_get_monotonic_time() + 300 * G_USEC_PER_SEC;
    uint32_t status;

    *busy_reads = 0;
    while ((status = rd(d->v, VDXG_REG_WB_STATUS)) & VDXG_WB_STATUS_BUSY) {
        g_assert_cmpint(g_get_monotonic_time(), <, end);
        (*busy_reads)++;
    }
    return status;
}

/* The capture's 64 MiB equal @want with the top byte 0xff. */
static void wb_huge_check(Dp *d, const uint32_t *want)
{
    g_autofree uint8_t *buf = g_malloc(64 * MiB);
    size_t i;

    /* By the MiB: libqtest finds the end of a reply in quadratic time */
    for (i = 0; i < 64; i++) {
        qtest_bufread(d->qts, SYS_PAGE(DP_SYS_PAGE) + i * MiB, buf + i * MiB,
                      MiB);
    }
    for (i = 0; i < 4096 * 4096; i++) {
        uint32_t got = ldl_le_p(buf + i * 4);

        if (got != (0xff000000u | want[i])) {
            g_test_message("pixel (%zu, %zu): got 0x%08x, want 0x%08x",
                           i % 4096, i / 4096, got, 0xff000000u | want[i]);
        }
        g_assert_cmphex(got, ==, 0xff000000u | want[i]);
    }
}

/*
 * The writeback of a 4096x4096 frame: 64 MiB written, which in one go
 * held the main loop about a second. The capture is written in slices of
 * about a millisecond from its bottom half, the frame composed before it
 * (in slices too) and not composed again until the last line is
 * written; the longest run of device work (x-max-slice-cpu-ns, the
 * writeback's bottom half included) stays under DP_SLICE_MAX_NS.
 */
static void test_dp_writeback_huge(void)
{
    Dp *d = dp_start("aperture-size=64M");
    g_autofree uint32_t *want_a = g_new(uint32_t, 4096 * 4096);
    g_autofree uint32_t *want_b = g_new(uint32_t, 4096 * 4096);
    DpPlane a = dp_rand_plane(d, DP_FB(0), XR24, 1024, 256, 1500, 2000, 80);
    DpPlane b = dp_rand_plane(d, DP_FB(4), XR24, 512, 512, 3800, 3700, 81);
    uint32_t k, status, busy, frame;
    int64_t t, us;

    wb_huge_setup(d);
    dp_plane(d, 0, PRIMARY, &a);
    wr(d->v, CR(0, VDXG_CRTC_BG_COLOR), 0x123456);
    dp_enable(d, 0, &dp_4096, 0);
    ref_compose(&dp_4096, 0x123456, &a, 1, want_a);
    ref_compose(&dp_4096, 0x123456, &b, 1, want_b);
    dp_qom_reset_max_slice(d);

    /* The first capture: composed, then written, in slices */
    t = g_get_monotonic_time();
    k = wb_huge_arm(d);
    status = wb_huge_wait(d, &busy);
    us = g_get_monotonic_time() - t;
    g_test_message("4096x4096 writeback: done in %" PRId64 " us, %u reads "
                   "saw BUSY, x-max-slice-ns %" PRIu64
                   " x-max-slice-cpu-ns %" PRIu64, us, busy,
                   dp_qom_u64(d, "x-max-slice-ns"),
                   dp_qom_u64(d, "x-max-slice-cpu-ns"));
    g_assert_cmphex(status, ==, VDXG_WB_STATUS_DONE);
    g_assert_cmpuint(rd(d->v, VDXG_REG_WB_FRAME), ==, k);
    g_assert_cmpuint(rd(d->v, VDXG_REG_WB_SEQNO), ==, 1);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS) & VDXG_INT_WRITEBACK, ==,
                    VDXG_INT_WRITEBACK);
    g_assert_cmpuint(dp_qom_u64(d, "x-max-slice-cpu-ns"), <,
                     DP_SLICE_MAX_NS);
    wb_huge_check(d, want_a);
    dp_assert_no_fault(d);

    /*
     * A flip latched while the capture is under way (held after its first
     * line, whatever the host's speed): the capture is one frame, the one
     * before the flip (WB_FRAME k).
     */
    wb_hold_after(d, 1);
    k = wb_huge_arm(d);
    wb_wait_held(d);
    dp_plane(d, 0, PRIMARY, &b);
    dp_flip(d, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_STATUS), ==, VDXG_WB_STATUS_BUSY);
    wb_hold_after(d, 0);
    status = wb_huge_wait(d, &busy);
    g_assert_cmphex(status, ==, VDXG_WB_STATUS_DONE);
    g_assert_cmpuint(rd(d->v, VDXG_REG_WB_SEQNO), ==, 2);
    frame = rd(d->v, VDXG_REG_WB_FRAME);
    g_assert_cmpuint(frame, ==, k);
    wb_huge_check(d, want_a);

    /* Disarmed while under way (held): no interrupt, no status */
    wr(d->v, VDXG_REG_INT_ACK, VDXG_INT_WRITEBACK);
    wb_hold_after(d, 1);
    wb_huge_arm(d);
    wb_wait_held(d);
    wr(d->v, VDXG_REG_WB_CTRL, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_STATUS), ==, 0);
    wb_hold_after(d, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_STATUS), ==, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS) & VDXG_INT_WRITEBACK, ==,
                    0);
    /* Armed again: the whole frame */
    k = wb_huge_arm(d);
    g_assert_cmphex(wb_huge_wait(d, &busy), ==, VDXG_WB_STATUS_DONE);
    g_assert_cmpuint(rd(d->v, VDXG_REG_WB_FRAME), ==, k);
    g_assert_cmpuint(rd(d->v, VDXG_REG_WB_SEQNO), ==, 3);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS) & VDXG_INT_WRITEBACK, ==,
                    VDXG_INT_WRITEBACK);
    wb_huge_check(d, want_b);

    /* The source turned off while under way (held): DONE | ERROR */
    wr(d->v, VDXG_REG_INT_ACK, VDXG_INT_WRITEBACK);
    wb_hold_after(d, 1);
    wb_huge_arm(d);
    wb_wait_held(d);
    wr(d->v, CR(0, VDXG_CRTC_CTRL), 0);
    wb_hold_after(d, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_STATUS), ==,
                    VDXG_WB_STATUS_DONE | VDXG_WB_STATUS_ERROR);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS) & VDXG_INT_WRITEBACK, ==,
                    VDXG_INT_WRITEBACK);
    g_assert_cmpuint(rd(d->v, VDXG_REG_WB_SEQNO), ==, 3);
    dp_assert_no_fault(d);
    g_assert_cmpuint(dp_qom_u64(d, "x-max-slice-cpu-ns"), <,
                     DP_SLICE_MAX_NS);
    g_free((void *)a.data);
    g_free((void *)b.data);
    dp_stop(d);
}

void vdxg_test_add_wb_tests(void)
{
    qtest_add_func("/vdxg/display/writeback", test_dp_writeback);
    qtest_add_func("/vdxg/display/writeback-huge-sliced",
                   test_dp_writeback_huge);
}
