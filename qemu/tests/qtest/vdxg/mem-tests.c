/*
 * QTest testcases for the vdxg virtual GPU: the GPU address space: GART, aperture and TLB
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "vdxg-test.h"

/* GART and aperture */

static void test_pg_gart(void)
{
    static const uint64_t pages[] = {
        SYS_PAGE(40), SYS_PAGE(33), SYS_PAGE(47), SYS_PAGE(35),
    };
    g_autofree uint8_t *data = g_malloc(4 * PG_PAGE);
    g_autofree uint8_t *got = g_malloc(4 * PG_PAGE);
    g_autofree uint8_t *dummy = g_malloc(PG_PAGE);
    Pg *p = pg_start(NULL);
    int i;

    fill_bytes(data, 4 * PG_PAGE, 5);
    for (i = 0; i < 4; i++) {
        sys_write(p, pages[i], data + i * PG_PAGE, PG_PAGE);
    }
    fill_bytes(dummy, PG_PAGE, 6);
    sys_write(p, SYS_DUMMY, dummy, PG_PAGE);

    /* MAP_APERTURE writes VALID | page into the GART table in VRAM. */
    pb_reset(p);
    emit_map(p, 0, pages, 4);
    pb_run(p);
    for (i = 0; i < 4; i++) {
        g_assert_cmphex(vram_readq(p, PG_GART + i * 8), ==,
                        pages[i] | VDXG_GART_PTE_VALID);
    }
    g_assert_cmphex(vram_readq(p, PG_GART + 4 * 8), ==, 0);
    g_assert_cmpuint(qom_get_u64(p, "x-pg-map-aperture-ops"), ==, 1);
    g_assert_cmpuint(qom_get_u64(p, "x-pg-map-aperture-bytes"), ==,
                     4 * PG_PAGE);

    /* What the CPU wrote to the system pages reads through the aperture */
    gpu_peek(p, APERTURE(0) + 0x800, got, 3 * PG_PAGE);
    assert_bytes(got, data + 0x800, 3 * PG_PAGE);

    /* ... and what the engine writes there lands in them. */
    fill_bytes(data, 2 * PG_PAGE, 7);
    vram_write(p, PG_DATA, data, 2 * PG_PAGE);
    pb_reset(p);
    emit_copy(p, PG_DATA, APERTURE(2), 2 * PG_PAGE);
    pb_run(p);
    sys_read(p, pages[2], got, PG_PAGE);
    sys_read(p, pages[3], got + PG_PAGE, PG_PAGE);
    assert_bytes(got, data, 2 * PG_PAGE);

    /* An unmapped page reads and writes the dummy page. */
    gpu_peek(p, APERTURE(10), got, PG_PAGE);
    assert_bytes(got, dummy, PG_PAGE);
    pb_reset(p);
    emit_fill(p, APERTURE(PG_GART_ENTRIES - 1) + 0x40, 8, 0x0d0d0d0d);
    pb_run(p);
    g_assert_cmphex(qtest_readl(p->v.qts, SYS_DUMMY + 0x44), ==, 0x0d0d0d0d);
    fill_bytes(dummy, PG_PAGE, 6);
    sys_write(p, SYS_DUMMY, dummy, PG_PAGE);

    /* UNMAP_APERTURE invalidates the entries: the dummy page again */
    pb_reset(p);
    emit_unmap(p, 1, 2);
    emit_flush_tlb(p);
    pb_run(p);
    g_assert_cmphex(vram_readq(p, PG_GART + 0 * 8), ==,
                    pages[0] | VDXG_GART_PTE_VALID);
    g_assert_cmphex(vram_readq(p, PG_GART + 1 * 8), ==, 0);
    g_assert_cmphex(vram_readq(p, PG_GART + 2 * 8), ==, 0);
    g_assert_cmphex(vram_readq(p, PG_GART + 3 * 8), ==,
                    pages[3] | VDXG_GART_PTE_VALID);
    gpu_peek(p, APERTURE(1), got, PG_PAGE);
    assert_bytes(got, dummy, PG_PAGE);
    g_assert_cmphex(gpu_peekl(p, APERTURE(0)), ==,
                    qtest_readl(p->v.qts, pages[0]));

    /* GART_CTRL off: every aperture page is the dummy page. */
    wr(&p->v, VDXG_REG_GART_CTRL, 0);
    gpu_peek(p, APERTURE(0), got, PG_PAGE);
    assert_bytes(got, dummy, PG_PAGE);
    wr(&p->v, VDXG_REG_GART_CTRL, VDXG_GART_CTRL_ENABLE);

    /* Entries the CPU writes directly to the table count too. */
    vram_writel(p, PG_GART + 7 * 8, SYS_PAGE(33) | VDXG_GART_PTE_VALID);
    vram_writel(p, PG_GART + 7 * 8 + 4, 0);
    wr(&p->v, VDXG_REG_TLB_FLUSH, 1);
    g_assert_cmphex(gpu_peekl(p, APERTURE(7) + 8), ==,
                    qtest_readl(p->v.qts, SYS_PAGE(33) + 8));

    /* The ring and the paging buffers may live in the aperture. */
    pb_reset(p);
    emit_map1(p, 100, SYS_PAGE(60));
    emit_map1(p, 101, SYS_PAGE(61));
    pb_run(p);
    qtest_memset(p->v.qts, SYS_PAGE(60), 0, PG_PAGE);
    wr(&p->v, ENG(VDXG_ENG_RESET), 1);
    wr64(&p->v, ENG(VDXG_ENG_RING_BASE_LO), APERTURE(100));
    wr(&p->v, ENG(VDXG_ENG_RING_SIZE), PG_RING_SIZE);
    wr64(&p->v, ENG(VDXG_ENG_FENCE_ADDR_LO), PG_FENCE);
    wr(&p->v, ENG(VDXG_ENG_CTRL), VDXG_ENG_CTRL_ENABLE);
    pb_reset(p);
    emit_fill(p, PG_DATA, 32, 0x77665544);
    sys_write(p, SYS_PAGE(61), p->buf, pb_off(p));
    {
        uint32_t e[8] = {
            VDXG_RING_CMD_EXEC, pb_off(p), (uint32_t)APERTURE(101),
            APERTURE(101) >> 32, 42, 0, 0, 0,
        };

        sys_write(p, SYS_PAGE(60), e, sizeof(e));
    }
    wr(&p->v, ENG(VDXG_ENG_RING_TAIL), VDXG_RING_ENTRY_SIZE);
    wr(&p->v, ENG(VDXG_ENG_DOORBELL), 1);
    g_assert_cmphex(pg_wait(p), ==, VDXG_ENG_STATUS_IDLE);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==, 0);
    g_assert_cmphex(rd64(&p->v, ENG(VDXG_ENG_FENCE_VALUE_LO)), ==, 42);
    g_assert_cmphex(vram_readl(p, PG_DATA + 28), ==, 0x77665544);

    pg_stop(p);
}

/* A GART entry changed without a TLB flush may keep its old translation */
static void test_pg_tlb(void)
{
    Pg *p = pg_start(NULL);
    uint64_t misses;

    qtest_writel(p->v.qts, SYS_PAGE(70), 0xaaaa0000);
    qtest_writel(p->v.qts, SYS_PAGE(71), 0xbbbb0000);
    qtest_writel(p->v.qts, SYS_PAGE(72), 0xcccc0000);

    pb_reset(p);
    emit_map1(p, 5, SYS_PAGE(70));
    emit_flush_tlb(p);
    pb_run(p);
    misses = qom_get_u64(p, "x-pg-tlb-misses");
    g_assert_cmphex(gpu_peekl(p, APERTURE(5)), ==, 0xaaaa0000);
    g_assert_cmpuint(qom_get_u64(p, "x-pg-tlb-misses"), ==, misses + 1);

    /* Remapped without a flush: the TLB still has the old page. */
    pb_reset(p);
    emit_map1(p, 5, SYS_PAGE(71));
    pb_run(p);
    g_assert_cmphex(vram_readq(p, PG_GART + 5 * 8), ==,
                    SYS_PAGE(71) | VDXG_GART_PTE_VALID);
    g_assert_cmphex(gpu_peekl(p, APERTURE(5)), ==, 0xaaaa0000);
    g_assert_cmpuint(qom_get_u64(p, "x-pg-tlb-misses"), ==, misses + 1);

    /* Writes go to the old page as well. */
    pb_reset(p);
    emit_fill(p, APERTURE(5) + 4, 4, 0x5555aaaa);
    pb_run(p);
    g_assert_cmphex(qtest_readl(p->v.qts, SYS_PAGE(70) + 4), ==, 0x5555aaaa);
    g_assert_cmphex(qtest_readl(p->v.qts, SYS_PAGE(71) + 4), ==, 0);

    /* FLUSH_TLB */
    pb_reset(p);
    emit_flush_tlb(p);
    pb_run(p);
    g_assert_cmphex(gpu_peekl(p, APERTURE(5)), ==, 0xbbbb0000);

    /* The TLB_FLUSH register */
    pb_reset(p);
    emit_map1(p, 5, SYS_PAGE(72));
    pb_run(p);
    g_assert_cmphex(gpu_peekl(p, APERTURE(5)), ==, 0xbbbb0000);
    wr(&p->v, VDXG_REG_TLB_FLUSH, 0);
    g_assert_cmphex(gpu_peekl(p, APERTURE(5)), ==, 0xcccc0000);

    /* Writing GART_CTRL flushes too. */
    pb_reset(p);
    emit_unmap(p, 5, 1);
    pb_run(p);
    g_assert_cmphex(gpu_peekl(p, APERTURE(5)), ==, 0xcccc0000);
    wr(&p->v, VDXG_REG_GART_CTRL, VDXG_GART_CTRL_ENABLE);
    qtest_writel(p->v.qts, SYS_DUMMY, 0xdddd0000);
    g_assert_cmphex(gpu_peekl(p, APERTURE(5)), ==, 0xdddd0000);

    /* A page sharing its TLB slot (64 slots, by page number) evicts it. */
    pb_reset(p);
    emit_map1(p, 5, SYS_PAGE(70));
    emit_map1(p, 5 + 64, SYS_PAGE(71));
    emit_flush_tlb(p);
    pb_run(p);
    g_assert_cmphex(gpu_peekl(p, APERTURE(5)), ==, 0xaaaa0000);
    pb_reset(p);
    emit_map1(p, 5, SYS_PAGE(72));
    pb_run(p);
    g_assert_cmphex(gpu_peekl(p, APERTURE(5)), ==, 0xaaaa0000);
    g_assert_cmphex(gpu_peekl(p, APERTURE(5 + 64)), ==, 0xbbbb0000);
    g_assert_cmphex(gpu_peekl(p, APERTURE(5)), ==, 0xcccc0000);
    g_assert_cmpuint(qom_get_u64(p, "x-pg-tlb-hits"), >, 0);

    /* Writing GART_TABLE flushes too. */
    pb_reset(p);
    emit_map1(p, 5, SYS_PAGE(71));
    pb_run(p);
    g_assert_cmphex(gpu_peekl(p, APERTURE(5)), ==, 0xcccc0000);
    wr64(&p->v, VDXG_REG_GART_TABLE_LO, PG_GART);
    g_assert_cmphex(gpu_peekl(p, APERTURE(5)), ==, 0xbbbb0000);

    pg_stop(p);
}

void vdxg_test_add_mem_tests(void)
{
    qtest_add_func("/vdxg/paging/gart", test_pg_gart);
    qtest_add_func("/vdxg/paging/tlb", test_pg_tlb);
}
