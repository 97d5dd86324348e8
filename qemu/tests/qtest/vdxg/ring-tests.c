/*
 * QTest testcases for the vdxg virtual GPU: engine scheduling: ring progress
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "vdxg-test.h"

/*
 * Step until the engine of @p stalls in a WAIT, by a bounded number of
 * register reads (the engine runs in bottom halves between them).
 */
static void rd_wait_waiting(Pg *p)
{
    int i;

    for (i = 0; i < PG_WAIT_LOOPS; i++) {
        if (rd(&p->v, EREG(p, VDXG_ENG_STATUS)) & VDXG_ENG_STATUS_WAITING) {
            return;
        }
    }
    g_assert_not_reached();
}

/*
 * PROGRESS counts the slices of a long entry and its completed operations;
 * a WAIT whose value is not there adds nothing and shows STATUS.WAITING.
 * RESET zeroes both.
 */
static void test_engine_progress(void)
{
    Pg *p = pg_start(NULL);
    uint32_t last, held;
    RdSurf dst;
    uint64_t fence;
    int i;

    g_assert_cmphex(rd(&p->v, ENG(VDXG_ENG_PROGRESS)), ==, 0);
    /* 9 operations of 8 MiB each: several slices each */
    queue_big_work(p);
    ring_kick(p);
    pg_finish(p);
    g_assert_cmpuint(rd(&p->v, ENG(VDXG_ENG_PROGRESS)), >, 9);
    g_assert_cmphex(rd(&p->v, ENG(VDXG_ENG_STATUS)) &
                    VDXG_ENG_STATUS_WAITING, ==, 0);
    /* The next entry starts from 0: one FENCE is one operation. */
    pb_reset(p);
    emit_fence(p, PG_FENCE2, 5);
    pb_run(p);
    g_assert_cmpuint(rd(&p->v, ENG(VDXG_ENG_PROGRESS)), ==, 1);
    wr(&p->v, ENG(VDXG_ENG_PROGRESS), 77);
    g_assert_cmpuint(rd(&p->v, ENG(VDXG_ENG_PROGRESS)), ==, 1);
    pg_stop(p);

    /*
     * RENDER, held in a WAIT in the middle of a long entry: the entry has
     * not ended, and PROGRESS counts the two commands before the WAIT and
     * the slices of the 1024x1024 fill (4096 pixels each). While the WAIT
     * is unmet it adds nothing; once met, the WAIT, FILL and FENCE after
     * it count one each.
     */
    p = rd_start();
    qtest_writeq(p->v.qts, p->vram.addr + RD_SEM, 0);
    fence = p->seqno;
    pb_reset(p);
    rd_set_surface(p, VDXG_SLOT_DST, RD_VMEM, VDXG_FMT_ARGB8888, 1024, 1024,
                   4096);
    rd_fill(p, 0, 0, 1024, 1024, 0x66666666);
    rd_wait(p, RD_SEM, 1);
    rd_fill(p, 0, 0, 4, 4, 0x77777777);
    rd_fence(p, RD_FENCE2, 1);
    pb_queue(p);
    ring_kick(p);
    rd_wait_waiting(p);
    held = rd(&p->v, EREG(p, VDXG_ENG_PROGRESS));
    g_assert_cmpuint(held, >=, 2 + 1024 * 1024 / 4096 - 1);
    g_assert_cmphex(vram_readl(p, RD_VMEM + 1023 * 4096 + 1023 * 4), ==,
                    0x66666666);
    for (i = 0; i < 5; i++) {
        qtest_clock_step(p->v.qts, 1000000);
        g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_STATUS)), ==,
                        VDXG_ENG_STATUS_WAITING);
        g_assert_cmphex(rd64(&p->v, EREG(p, VDXG_ENG_FENCE_VALUE_LO)), ==,
                        fence);
        g_assert_cmpuint(rd(&p->v, EREG(p, VDXG_ENG_PROGRESS)), ==, held);
    }
    qtest_writeq(p->v.qts, p->vram.addr + RD_SEM, 1);
    qtest_clock_step(p->v.qts, 100 * 1000);
    pg_finish(p);
    g_assert_cmpuint(rd(&p->v, EREG(p, VDXG_ENG_PROGRESS)), ==, held + 3);
    g_assert_cmphex(vram_readl(p, RD_VMEM), ==, 0x77777777);
    g_assert_cmphex(vram_readq(p, RD_FENCE2), ==, 1);

    /* RENDER: work before an unmet WAIT counts; the WAIT does not. */
    rd_surf(p, &dst, RD_VMEM, VDXG_FMT_ARGB8888, 4, 4, 16);
    rd_clear(p, &dst, 0);
    fence = p->seqno;
    rd_queue_wait(p, RD_SEM, 9, &dst, 0x11111111);
    rd_wait_waiting(p);
    rd_assert_stuck(p, fence, 1000000);
    last = rd(&p->v, EREG(p, VDXG_ENG_PROGRESS));
    g_assert_cmpuint(last, ==, 1);
    for (i = 0; i < 5; i++) {
        qtest_clock_step(p->v.qts, 1000000);
        g_assert_cmpuint(rd(&p->v, EREG(p, VDXG_ENG_PROGRESS)), ==, last);
    }
    wr(&p->v, EREG(p, VDXG_ENG_RESET), 1);
    assert_engine_reset(p);
    g_assert_cmpuint(rd(&p->v, EREG(p, VDXG_ENG_PROGRESS)), ==, 0);
    g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_STATUS)), ==,
                    VDXG_ENG_STATUS_IDLE);
    rd_stop(p);
}

void vdxg_test_add_ring_tests(void)
{
    qtest_add_func("/vdxg/engine/progress", test_engine_progress);
}
