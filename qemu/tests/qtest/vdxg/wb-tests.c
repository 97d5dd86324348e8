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

void vdxg_test_add_wb_tests(void)
{
    qtest_add_func("/vdxg/display/writeback", test_dp_writeback);
}
