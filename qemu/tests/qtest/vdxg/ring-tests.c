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
 * PROGRESS counts the slices of a long entry and its completed operations;
 * a WAIT whose value is not there adds nothing and shows STATUS.WAITING.
 * RESET zeroes both.
 */
static void test_engine_progress(void)
{
    Pg *p = pg_start(NULL);
    uint32_t last = 0, now, seen = 0;
    RdSurf dst;
    uint64_t fence;
    int i;

    g_assert_cmphex(rd(&p->v, ENG(VDXG_ENG_PROGRESS)), ==, 0);
    /* 9 operations of 8 MiB each: several slices each */
    queue_big_work(p);
    ring_kick(p);
    for (i = 0; i < 10000 && !(rd(&p->v, ENG(VDXG_ENG_STATUS)) &
                                VDXG_ENG_STATUS_IDLE); i++) {
        now = rd(&p->v, ENG(VDXG_ENG_PROGRESS));
        g_assert_cmpuint(now, >=, last);
        seen += now != last;
        last = now;
        qtest_clock_step(p->v.qts, 1000);
    }
    pg_finish(p);
    now = rd(&p->v, ENG(VDXG_ENG_PROGRESS));
    g_assert_cmpuint(seen, >=, 2);
    g_assert_cmpuint(now, >, 9);
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

    /* RENDER: work before an unmet WAIT counts; the WAIT does not. */
    p = rd_start();
    rd_surf(p, &dst, RD_VMEM, VDXG_FMT_ARGB8888, 4, 4, 16);
    rd_clear(p, &dst, 0);
    qtest_writeq(p->v.qts, p->vram.addr + RD_SEM, 0);
    fence = p->seqno;
    rd_queue_wait(p, RD_SEM, 9, &dst, 0x11111111);
    rd_assert_stuck(p, fence, 1000000);
    last = rd(&p->v, EREG(p, VDXG_ENG_PROGRESS));
    for (i = 0; i < 5; i++) {
        qtest_clock_step(p->v.qts, 1000000);
        g_assert_cmpuint(rd(&p->v, EREG(p, VDXG_ENG_PROGRESS)), ==, last);
    }
    wr(&p->v, EREG(p, VDXG_ENG_RESET), 1);
    assert_engine_reset(p);
    g_assert_cmpuint(rd(&p->v, EREG(p, VDXG_ENG_PROGRESS)), ==, 0);
    g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_STATUS)), ==,
                    VDXG_ENG_STATUS_IDLE);
    pg_stop(p);
}

void vdxg_test_add_ring_tests(void)
{
    qtest_add_func("/vdxg/engine/progress", test_engine_progress);
}
