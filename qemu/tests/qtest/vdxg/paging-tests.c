/*
 * QTest testcases for the vdxg virtual GPU: the PAGING engine, GART, DMA and faults
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "vdxg-test.h"

/*
 * The engine halted on a fault with the expected record; then recover it
 * with an engine reset and check that it runs again.
 */
void pg_expect_fault(Pg *p, uint32_t reason, uint32_t opcode,
                     uint64_t addr, uint32_t context)
{
    uint32_t head;
    uint64_t fence;

    g_assert_cmphex(pg_wait(p) & VDXG_ENG_STATUS_HALTED, ==,
                    VDXG_ENG_STATUS_HALTED);
    head = rd(&p->v, EREG(p, VDXG_ENG_RING_HEAD));
    fence = rd64(&p->v, EREG(p, VDXG_ENG_FENCE_VALUE_LO));
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==,
                    VDXG_FAULT_STATUS_VALID);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_ENGINE), ==, p->eng);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_REASON), ==, reason);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_OPCODE), ==, opcode);
    g_assert_cmphex(rd64(&p->v, VDXG_REG_FAULT_ADDR_LO), ==, addr);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_CONTEXT), ==, context);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_COUNT), ==, 1);
    g_assert_cmphex(rd(&p->v, VDXG_REG_INT_STATUS) & VDXG_INT_FAULT, ==,
                    VDXG_INT_FAULT);
    g_assert_cmphex(msg_read(&p->v, VDXG_MSIX_VEC_MISC), ==,
                    MSIX_DATA(VDXG_MSIX_VEC_MISC));

    /* Halted: a doorbell or enable does nothing. */
    wr(&p->v, EREG(p, VDXG_ENG_DOORBELL), 1);
    wr(&p->v, EREG(p, VDXG_ENG_CTRL), VDXG_ENG_CTRL_ENABLE);
    g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_RING_HEAD)), ==, head);
    g_assert_cmphex(rd64(&p->v, EREG(p, VDXG_ENG_FENCE_VALUE_LO)), ==,
                    fence);
    g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_STATUS)) &
                    VDXG_ENG_STATUS_HALTED, ==, VDXG_ENG_STATUS_HALTED);

    /* Engine reset and FAULT_CLEAR recover. */
    wr(&p->v, EREG(p, VDXG_ENG_RESET), 1);
    assert_engine_reset(p);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==,
                    VDXG_FAULT_STATUS_VALID);
    wr(&p->v, VDXG_REG_FAULT_CLEAR, 1);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==, 0);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_COUNT), ==, 0);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_REASON), ==, 0);
    g_assert_cmphex(rd64(&p->v, VDXG_REG_FAULT_ADDR_LO), ==, 0);
    wr(&p->v, VDXG_REG_INT_ACK, VDXG_INT_FAULT | VDXG_INT_PAGING_FENCE |
       VDXG_INT_RENDER_FENCE);
    msg_clear(&p->v);

    pg_engine_setup(p);
    p->seqno = 0;
    pb_reset(p);
    if (p->eng == VDXG_ENGINE_RENDER) {
        rd_recover_check(p);
        return;
    }
    emit_fill(p, PG_DATA, 64, 0x600df00d);
    emit_fence(p, PG_FENCE2, 0xcafe);
    pb_run(p);
    g_assert_cmphex(vram_readl(p, PG_DATA + 60), ==, 0x600df00d);
    g_assert_cmphex(vram_readq(p, PG_FENCE2), ==, 0xcafe);
}

/* Registers */

static void test_pg_registers(void)
{
    Vdxg v;

    vdxg_start(&v, PG_PROPS);
    g_assert_cmphex(rd(&v, VDXG_REG_CAPS) & (VDXG_CAP_PAGING | VDXG_CAP_GART),
                    ==, VDXG_CAP_PAGING | VDXG_CAP_GART);
    g_assert_cmphex(rd(&v, VDXG_REG_CAPS) & VDXG_CAP_RENDER, ==,
                    VDXG_CAP_RENDER);
    g_assert_cmphex(rd(&v, VDXG_REG_ENGINES), ==, ALL_ENGINES);
    g_assert_cmphex(rd(&v, VDXG_REG_GART_ENTRIES), ==, PG_GART_ENTRIES);

    /* Power-on values */
    g_assert_cmphex(rd(&v, ENG(VDXG_ENG_STATUS)), ==, VDXG_ENG_STATUS_IDLE);
    g_assert_cmphex(rd(&v, ENG(VDXG_ENG_CTRL)), ==, 0);
    g_assert_cmphex(rd64(&v, ENG(VDXG_ENG_RING_BASE_LO)), ==, 0);
    g_assert_cmphex(rd64(&v, VDXG_REG_GART_TABLE_LO), ==, 0);
    g_assert_cmphex(rd(&v, VDXG_REG_GART_CTRL), ==, 0);
    g_assert_cmphex(rd64(&v, VDXG_REG_DUMMY_PAGE_LO), ==, 0);
    g_assert_cmphex(rd(&v, VDXG_REG_FAULT_STATUS), ==, 0);

    /* Ring programming is stored as written; it is checked on a kick. */
    wr64(&v, ENG(VDXG_ENG_RING_BASE_LO), 0x123456789abcull);
    wr(&v, ENG(VDXG_ENG_RING_SIZE), 0x1801);
    wr(&v, ENG(VDXG_ENG_RING_TAIL), 0x44);
    wr64(&v, ENG(VDXG_ENG_FENCE_ADDR_LO), 0xfedcba9876543ull);
    g_assert_cmphex(rd64(&v, ENG(VDXG_ENG_RING_BASE_LO)), ==,
                    0x123456789abcull);
    g_assert_cmphex(rd(&v, ENG(VDXG_ENG_RING_SIZE)), ==, 0x1801);
    g_assert_cmphex(rd(&v, ENG(VDXG_ENG_RING_TAIL)), ==, 0x44);
    g_assert_cmphex(rd64(&v, ENG(VDXG_ENG_FENCE_ADDR_LO)), ==,
                    0xfedcba9876543ull);
    /* A doorbell while disabled does nothing, even with a bad ring. */
    wr(&v, ENG(VDXG_ENG_DOORBELL), 1);
    g_assert_cmphex(rd(&v, VDXG_REG_FAULT_STATUS), ==, 0);

    /* Read-only registers ignore writes; CTRL keeps only ENABLE. */
    wr(&v, ENG(VDXG_ENG_RING_HEAD), 0x20);
    wr(&v, ENG(VDXG_ENG_STATUS), 0xffffffff);
    wr(&v, ENG(VDXG_ENG_FENCE_VALUE_LO), 7);
    g_assert_cmphex(rd(&v, ENG(VDXG_ENG_RING_HEAD)), ==, 0);
    /* Not idle: HEAD != TAIL */
    g_assert_cmphex(rd(&v, ENG(VDXG_ENG_STATUS)), ==, 0);
    g_assert_cmphex(rd(&v, ENG(VDXG_ENG_FENCE_VALUE_LO)), ==, 0);

    /* Engine RESET: bit 0 returns every engine register to 0. */
    wr(&v, ENG(VDXG_ENG_RESET), 2);
    g_assert_cmphex(rd(&v, ENG(VDXG_ENG_RING_SIZE)), ==, 0x1801);
    wr(&v, ENG(VDXG_ENG_RESET), 1);
    g_assert_cmphex(rd64(&v, ENG(VDXG_ENG_RING_BASE_LO)), ==, 0);
    g_assert_cmphex(rd(&v, ENG(VDXG_ENG_RING_SIZE)), ==, 0);
    g_assert_cmphex(rd(&v, ENG(VDXG_ENG_RING_TAIL)), ==, 0);
    g_assert_cmphex(rd64(&v, ENG(VDXG_ENG_FENCE_ADDR_LO)), ==, 0);

    /* GART_TABLE: page aligned, and the whole table inside VRAM */
    wr64(&v, VDXG_REG_GART_TABLE_LO, 0x5000);
    g_assert_cmphex(rd64(&v, VDXG_REG_GART_TABLE_LO), ==, 0x5000);
    wr(&v, VDXG_REG_GART_TABLE_LO, 0x6800);
    g_assert_cmphex(rd64(&v, VDXG_REG_GART_TABLE_LO), ==, 0x5000);
    wr(&v, VDXG_REG_GART_TABLE_LO, PG_VRAM_SIZE - PG_GART_ENTRIES * 8);
    g_assert_cmphex(rd64(&v, VDXG_REG_GART_TABLE_LO), ==,
                    PG_VRAM_SIZE - PG_GART_ENTRIES * 8);
    wr(&v, VDXG_REG_GART_TABLE_LO, PG_VRAM_SIZE - PG_GART_ENTRIES * 8 +
       PG_PAGE);
    g_assert_cmphex(rd64(&v, VDXG_REG_GART_TABLE_LO), ==,
                    PG_VRAM_SIZE - PG_GART_ENTRIES * 8);
    wr(&v, VDXG_REG_GART_TABLE_HI, 1);
    g_assert_cmphex(rd(&v, VDXG_REG_GART_TABLE_HI), ==, 0);
    wr(&v, VDXG_REG_GART_ENTRIES, 1);
    g_assert_cmphex(rd(&v, VDXG_REG_GART_ENTRIES), ==, PG_GART_ENTRIES);

    wr(&v, VDXG_REG_GART_CTRL, 0xffffffff);
    g_assert_cmphex(rd(&v, VDXG_REG_GART_CTRL), ==, VDXG_GART_CTRL_ENABLE);

    /* DUMMY_PAGE: a page address */
    wr64(&v, VDXG_REG_DUMMY_PAGE_LO, 0x1234567000ull);
    g_assert_cmphex(rd64(&v, VDXG_REG_DUMMY_PAGE_LO), ==, 0x1234567000ull);
    wr(&v, VDXG_REG_DUMMY_PAGE_LO, 0x89ab0800);
    g_assert_cmphex(rd64(&v, VDXG_REG_DUMMY_PAGE_LO), ==, 0x1234567000ull);
    g_assert_cmphex(rd(&v, VDXG_REG_TLB_FLUSH), ==, 0);
    g_assert_cmphex(rd(&v, VDXG_REG_FAULT_CLEAR), ==, 0);

    /* The fault record is read-only. */
    wr(&v, VDXG_REG_FAULT_STATUS, 1);
    wr(&v, VDXG_REG_FAULT_COUNT, 5);
    wr(&v, VDXG_REG_FAULT_REASON, 5);
    g_assert_cmphex(rd(&v, VDXG_REG_FAULT_STATUS), ==, 0);
    g_assert_cmphex(rd(&v, VDXG_REG_FAULT_COUNT), ==, 0);
    g_assert_cmphex(rd(&v, VDXG_REG_FAULT_REASON), ==, 0);

    /* The RENDER engine's registers are its own. */
    wr(&v, VDXG_ENGINE_BASE(VDXG_ENGINE_RENDER) + VDXG_ENG_RING_SIZE,
       0x2000);
    g_assert_cmphex(rd(&v, VDXG_ENGINE_BASE(VDXG_ENGINE_RENDER) +
                       VDXG_ENG_RING_SIZE), ==, 0x2000);
    g_assert_cmphex(rd(&v, ENG(VDXG_ENG_RING_SIZE)), ==, 0);
    g_assert_cmphex(rd(&v, VDXG_ENGINE_BASE(VDXG_ENGINE_RENDER) +
                       VDXG_ENG_STATUS), ==, VDXG_ENG_STATUS_IDLE);

    /* A soft reset clears the GART registers. */
    wr(&v, VDXG_REG_RESET, VDXG_RESET_MAGIC);
    g_assert_cmphex(rd64(&v, VDXG_REG_GART_TABLE_LO), ==, 0);
    g_assert_cmphex(rd(&v, VDXG_REG_GART_CTRL), ==, 0);
    g_assert_cmphex(rd64(&v, VDXG_REG_DUMMY_PAGE_LO), ==, 0);
    g_assert_cmphex(rd(&v, VDXG_ENGINE_BASE(VDXG_ENGINE_RENDER) +
                       VDXG_ENG_RING_SIZE), ==, 0);
    g_assert_cmphex(rd(&v, VDXG_REG_ENGINES), ==, ALL_ENGINES);

    vdxg_stop(&v);
}

/* Ring entries, fences and interrupts */

static void test_pg_fence(void)
{
    Pg *p = pg_start(NULL);
    int i;

    /* NOP entries complete in order, each with a fence write-back. */
    for (i = 0; i < 3; i++) {
        ring_entry(p, VDXG_RING_CMD_NOP, 0, 0, 0x100000000ull + i, 7, 0);
    }
    p->seqno = 0x100000002ull;
    g_assert_cmphex(rd(&p->v, ENG(VDXG_ENG_STATUS)), ==,
                    VDXG_ENG_STATUS_IDLE);
    ring_kick(p);
    pg_finish(p);
    g_assert_cmphex(rd(&p->v, ENG(VDXG_ENG_RING_HEAD)), ==, 3 * 32);
    g_assert_cmphex(vram_readq(p, PG_FENCE), ==, 0x100000002ull);
    g_assert_cmphex(rd(&p->v, VDXG_REG_INT_STATUS), ==,
                    VDXG_INT_PAGING_FENCE);
    assert_msix_messages(&p->v, VDXG_MSIX_VEC_PAGING);

    /* An EXEC buffer with NOP and FENCE operations */
    wr(&p->v, VDXG_REG_INT_ACK, VDXG_INT_PAGING_FENCE);
    msg_clear(&p->v);
    pb_reset(p);
    emit_nop(p);
    emit_fence(p, PG_FENCE2, 0x1122334455667788ull);
    emit_nop(p);
    pb_run(p);
    g_assert_cmphex(vram_readq(p, PG_FENCE2), ==, 0x1122334455667788ull);
    g_assert_cmphex(vram_readq(p, PG_FENCE), ==, p->seqno);
    assert_msix_messages(&p->v, VDXG_MSIX_VEC_PAGING);

    /* A FENCE into the aperture lands in the mapped system page. */
    pb_reset(p);
    emit_map1(p, 3, SYS_PAGE(3));
    emit_fence(p, APERTURE(3) + 0x18, 0xa5a5a5a55a5a5a5aull);
    pb_run(p);
    g_assert_cmphex(qtest_readq(p->v.qts, SYS_PAGE(3) + 0x18), ==,
                    0xa5a5a5a55a5a5a5aull);

    /* FENCE_ADDR 0: no write-back, FENCE_VALUE still moves. */
    wr64(&p->v, ENG(VDXG_ENG_FENCE_ADDR_LO), 0);
    vram_writel(p, PG_FENCE, 0xdeadbeef);
    ring_entry(p, VDXG_RING_CMD_NOP, 0, 0, ++p->seqno, 0, 0);
    ring_kick(p);
    pg_finish(p);
    g_assert_cmphex(vram_readl(p, PG_FENCE), ==, 0xdeadbeef);

    /* The fence write-back slot may be in the aperture too. */
    wr64(&p->v, ENG(VDXG_ENG_FENCE_ADDR_LO), APERTURE(3) + 0x100);
    ring_entry(p, VDXG_RING_CMD_NOP, 0, 0, ++p->seqno, 0, 0);
    ring_kick(p);
    pg_finish(p);
    g_assert_cmphex(qtest_readq(p->v.qts, SYS_PAGE(3) + 0x100), ==,
                    p->seqno);

    /* A masked PAGING_FENCE sets its bit but sends no message. */
    wr(&p->v, VDXG_REG_INT_ACK, VDXG_INT_PAGING_FENCE);
    wr(&p->v, VDXG_REG_INT_MASK, VDXG_INT_VALID_MASK & ~VDXG_INT_PAGING_FENCE);
    msg_clear(&p->v);
    ring_entry(p, VDXG_RING_CMD_NOP, 0, 0, ++p->seqno, 0, 0);
    ring_kick(p);
    pg_finish(p);
    g_assert_cmphex(rd(&p->v, VDXG_REG_INT_STATUS), ==,
                    VDXG_INT_PAGING_FENCE);
    assert_msix_messages(&p->v, -1);

    pg_stop(p);
}

/* With MSI-X off and MSI off, PAGING_FENCE asserts INTx. */
static void test_pg_fence_intx(void)
{
    Vdxg v;
    int i;

    vdxg_start(&v, PG_PROPS ",msix=off,msi=off");
    wr(&v, VDXG_REG_INT_MASK, VDXG_INT_PAGING_FENCE);
    /* An empty ring in VRAM at 0: one NOP entry (all zero) */
    wr64(&v, ENG(VDXG_ENG_RING_BASE_LO), 0);
    wr(&v, ENG(VDXG_ENG_RING_SIZE), PG_RING_SIZE);
    wr(&v, ENG(VDXG_ENG_RING_TAIL), VDXG_RING_ENTRY_SIZE);
    g_assert_false(intx_asserted(&v));
    wr(&v, ENG(VDXG_ENG_CTRL), VDXG_ENG_CTRL_ENABLE);
    for (i = 0; i < PG_WAIT_LOOPS; i++) {
        if (rd(&v, ENG(VDXG_ENG_RING_HEAD)) == VDXG_RING_ENTRY_SIZE) {
            break;
        }
    }
    g_assert_cmphex(rd(&v, ENG(VDXG_ENG_RING_HEAD)), ==,
                    VDXG_RING_ENTRY_SIZE);
    g_assert_cmphex(rd(&v, VDXG_REG_INT_STATUS), ==, VDXG_INT_PAGING_FENCE);
    g_assert_true(intx_asserted(&v));
    wr(&v, VDXG_REG_INT_ACK, VDXG_INT_PAGING_FENCE);
    g_assert_false(intx_asserted(&v));
    vdxg_stop(&v);
}

/* TRANSFER */

static void test_pg_transfer_vram(void)
{
    Pg *p = pg_start(NULL);
    enum { SIZE = 0x1235, SRC = PG_DATA + 3, DST = PG_DATA + 0x10001 };
    g_autofree uint8_t *data = g_malloc(SIZE);
    g_autofree uint8_t *got = g_malloc(SIZE + 2);
    uint8_t guard[2] = { 0xee, 0xee };

    fill_bytes(data, SIZE, 1);
    vram_write(p, SRC, data, SIZE);
    vram_write(p, DST - 1, guard, 1);
    vram_write(p, DST + SIZE, guard, 1);

    pb_reset(p);
    emit_copy(p, SRC, DST, SIZE);
    emit_copy(p, SRC, DST + 0x8000, 0);     /* nothing to move */
    pb_run(p);
    vram_read(p, DST - 1, got, SIZE + 2);
    g_assert_cmphex(got[0], ==, 0xee);
    assert_bytes(got + 1, data, SIZE);
    g_assert_cmphex(got[SIZE + 1], ==, 0xee);
    g_assert_cmpuint(qom_get_u64(p, "x-pg-transfer-ops"), ==, 2);
    g_assert_cmpuint(qom_get_u64(p, "x-pg-transfer-bytes"), ==, SIZE);

    /* The last bytes of VRAM are reachable, the first past it are not. */
    pb_reset(p);
    emit_copy(p, SRC, PG_VRAM_SIZE - 16, 16);
    pb_run(p);
    vram_read(p, PG_VRAM_SIZE - 16, got, 16);
    assert_bytes(got, data, 16);

    pg_stop(p);
}

static void test_pg_transfer_pages(void)
{
    static const uint64_t src_pages[] = {
        SYS_PAGE(5), SYS_PAGE(2), SYS_PAGE(9),
    };
    static const uint64_t dst_pages[] = {
        SYS_PAGE(20), SYS_PAGE(17), SYS_PAGE(30),
    };
    enum { SIZE = 0x2000 + 0x234 };
    g_autofree uint8_t *data = g_malloc(3 * PG_PAGE);
    g_autofree uint8_t *got = g_malloc(3 * PG_PAGE);
    g_autofree uint8_t *zero = g_malloc0(3 * PG_PAGE);
    Pg *p = pg_start(NULL);
    int i;

    /* Source: three scattered system pages */
    fill_bytes(data, 3 * PG_PAGE, 2);
    for (i = 0; i < 3; i++) {
        sys_write(p, src_pages[i], data + i * PG_PAGE, PG_PAGE);
    }

    /* Page list -> VRAM, starting 0x100 into the first page */
    pb_reset(p);
    emit_transfer(p, SIZE, 0x100, src_pages, 3, PG_DATA, NULL, 0);
    pb_run(p);
    vram_read(p, PG_DATA, got, SIZE);
    assert_bytes(got, data + 0x100, SIZE);

    /* VRAM -> page list, starting 0x7fc into the first page */
    fill_bytes(data, 3 * PG_PAGE, 3);
    vram_write(p, PG_DATA, data, SIZE);
    for (i = 0; i < 3; i++) {
        sys_write(p, dst_pages[i], zero, PG_PAGE);
    }
    pb_reset(p);
    emit_transfer(p, SIZE, PG_DATA, NULL, 0, 0x7fc, dst_pages, 3);
    pb_run(p);
    for (i = 0; i < 3; i++) {
        sys_read(p, dst_pages[i], got + i * PG_PAGE, PG_PAGE);
    }
    assert_bytes(got, zero, 0x7fc);
    assert_bytes(got + 0x7fc, data, SIZE);
    assert_bytes(got + 0x7fc + SIZE, zero, 3 * PG_PAGE - 0x7fc - SIZE);

    /* Page list -> page list with different offsets */
    fill_bytes(data, 3 * PG_PAGE, 4);
    for (i = 0; i < 3; i++) {
        sys_write(p, src_pages[i], data + i * PG_PAGE, PG_PAGE);
        sys_write(p, dst_pages[i], zero, PG_PAGE);
    }
    pb_reset(p);
    emit_transfer(p, 0x1800, 0xc00, src_pages, 3, 0x10, dst_pages, 2);
    pb_run(p);
    for (i = 0; i < 2; i++) {
        sys_read(p, dst_pages[i], got + i * PG_PAGE, PG_PAGE);
    }
    assert_bytes(got, zero, 0x10);
    assert_bytes(got + 0x10, data + 0xc00, 0x1800);

    /* A longer page list than needed is fine. */
    pb_reset(p);
    emit_transfer(p, 16, 0, src_pages, 3, PG_DATA + 0x8000, NULL, 0);
    pb_run(p);
    vram_read(p, PG_DATA + 0x8000, got, 16);
    assert_bytes(got, data, 16);

    pg_stop(p);
}

/* Page lists with runs of contiguous pages, which the engine takes at once */
static void test_pg_transfer_page_runs(void)
{
    static const uint64_t pages[] = {
        SYS_PAGE(40), SYS_PAGE(41), SYS_PAGE(42), SYS_PAGE(50), SYS_PAGE(51),
    };
    static const uint64_t dst_pages[] = {
        SYS_PAGE(60), SYS_PAGE(61), SYS_PAGE(62), SYS_PAGE(63), SYS_PAGE(70),
    };
    enum { N = 5, SIZE = 4 * PG_PAGE + 0x123 };
    g_autofree uint8_t *data = g_malloc(N * PG_PAGE);
    g_autofree uint8_t *got = g_malloc(N * PG_PAGE);
    g_autofree uint8_t *zero = g_malloc0(N * PG_PAGE);
    Pg *p = pg_start(NULL);
    int i;

    /* Page list -> VRAM, 0x300 into the first page */
    fill_bytes(data, N * PG_PAGE, 5);
    for (i = 0; i < N; i++) {
        sys_write(p, pages[i], data + i * PG_PAGE, PG_PAGE);
    }
    pb_reset(p);
    emit_transfer(p, SIZE, 0x300, pages, N, PG_DATA, NULL, 0);
    pb_run(p);
    vram_read(p, PG_DATA, got, SIZE);
    assert_bytes(got, data + 0x300, SIZE);

    /* VRAM -> page list, and page list -> page list */
    fill_bytes(data, N * PG_PAGE, 6);
    vram_write(p, PG_DATA, data, N * PG_PAGE);
    for (i = 0; i < N; i++) {
        sys_write(p, pages[i], zero, PG_PAGE);
        sys_write(p, dst_pages[i], zero, PG_PAGE);
    }
    pb_reset(p);
    emit_transfer(p, SIZE, PG_DATA, NULL, 0, 0x300, pages, N);
    emit_transfer(p, SIZE, 0x300, pages, N, 0x20, dst_pages, N);
    pb_run(p);
    for (i = 0; i < N; i++) {
        sys_read(p, pages[i], got + i * PG_PAGE, PG_PAGE);
    }
    assert_bytes(got, zero, 0x300);
    assert_bytes(got + 0x300, data, SIZE);
    assert_bytes(got + 0x300 + SIZE, zero, N * PG_PAGE - 0x300 - SIZE);
    for (i = 0; i < N; i++) {
        sys_read(p, dst_pages[i], got + i * PG_PAGE, PG_PAGE);
    }
    assert_bytes(got, zero, 0x20);
    assert_bytes(got + 0x20, data, SIZE);
    assert_bytes(got + 0x20 + SIZE, zero, N * PG_PAGE - 0x20 - SIZE);

    pg_stop(p);
}

/* FILL, DISCARD, physical reads and writes */

static void test_pg_fill(void)
{
    Pg *p = pg_start(NULL);
    g_autofree uint32_t *got = g_malloc(0x3000);
    int i;

    vram_writel(p, PG_DATA, 0x11111111);
    vram_writel(p, PG_DATA + 4 + 0x2004, 0x22222222);
    pb_reset(p);
    emit_fill(p, PG_DATA + 4, 0x2004, 0xdeadbeef);
    emit_fill(p, PG_DATA + 0x8000, 0, 0x12345678);  /* nothing */
    pb_run(p);
    vram_read(p, PG_DATA, got, 0x200c);
    g_assert_cmphex(got[0], ==, 0x11111111);
    for (i = 1; i <= 0x2004 / 4; i++) {
        g_assert_cmphex(le32_to_cpu(got[i]), ==, 0xdeadbeef);
    }
    g_assert_cmphex(got[i], ==, 0x22222222);
    g_assert_cmphex(vram_readl(p, PG_DATA + 0x8000), ==, 0);

    /* Through the aperture, across a page boundary */
    qtest_memset(p->v.qts, SYS_PAGE(80), 0, 2 * PG_PAGE);
    pb_reset(p);
    emit_map1(p, 8, SYS_PAGE(80));
    emit_map1(p, 9, SYS_PAGE(81));
    emit_fill(p, APERTURE(8) + PG_PAGE - 8, 16, 0x0badcafe);
    pb_run(p);
    g_assert_cmphex(qtest_readl(p->v.qts, SYS_PAGE(80) + PG_PAGE - 12), ==,
                    0);
    g_assert_cmphex(qtest_readl(p->v.qts, SYS_PAGE(80) + PG_PAGE - 8), ==,
                    0x0badcafe);
    g_assert_cmphex(qtest_readl(p->v.qts, SYS_PAGE(81) + 4), ==,
                    0x0badcafe);
    g_assert_cmphex(qtest_readl(p->v.qts, SYS_PAGE(81) + 8), ==, 0);
    g_assert_cmpuint(qom_get_u64(p, "x-pg-fill-ops"), ==, 3);
    g_assert_cmpuint(qom_get_u64(p, "x-pg-fill-bytes"), ==, 0x2004 + 16);

    pg_stop(p);
}

static void test_pg_discard(void)
{
    Pg *p = pg_start(NULL);
    g_autofree uint8_t *data = g_malloc(0x3000);
    g_autofree uint8_t *got = g_malloc(0x3000);

    fill_bytes(data, 0x3000, 8);
    vram_write(p, PG_DATA, data, 0x3000);
    sys_write(p, SYS_PAGE(90), data, PG_PAGE);
    pb_reset(p);
    emit_map1(p, 11, SYS_PAGE(90));
    emit_discard(p, PG_DATA, 0x3000);
    emit_discard(p, APERTURE(11), PG_PAGE);
    emit_discard(p, PG_DATA, 0);
    pb_run(p);
    vram_read(p, PG_DATA, got, 0x3000);
    assert_bytes(got, data, 0x3000);
    sys_read(p, SYS_PAGE(90), got, PG_PAGE);
    assert_bytes(got, data, PG_PAGE);
    g_assert_cmpuint(qom_get_u64(p, "x-pg-discard-ops"), ==, 3);
    g_assert_cmpuint(qom_get_u64(p, "x-pg-discard-bytes"), ==,
                     0x3000 + PG_PAGE);
    g_assert_cmpuint(qom_get_u64(p, "x-pg-transfer-ops"), ==, 0);
    g_assert_cmpuint(qom_get_u64(p, "x-pg-fill-ops"), ==, 0);

    pg_stop(p);
}

static void test_pg_physical(void)
{
    static const uint32_t words[] = {
        0x03020100, 0x07060504, 0x0b0a0908, 0x0f0e0d0c, 0x13121110,
    };
    g_autofree uint8_t *data = g_malloc(0x1800);
    g_autofree uint8_t *got = g_malloc(0x1800);
    Pg *p = pg_start(NULL);
    int i;

    /* WRITE_PHYSICAL, at an unaligned bus address */
    qtest_memset(p->v.qts, SYS_PAGE(100), 0xff, 64);
    pb_reset(p);
    emit_write_phys(p, SYS_PAGE(100) + 2, words, ARRAY_SIZE(words));
    emit_write_phys(p, SYS_PAGE(100) + 40, NULL, 0);
    pb_run(p);
    qtest_memread(p->v.qts, SYS_PAGE(100), got, 64);
    g_assert_cmphex(got[0], ==, 0xff);
    g_assert_cmphex(got[1], ==, 0xff);
    for (i = 0; i < 20; i++) {
        g_assert_cmphex(got[2 + i], ==, i);
    }
    g_assert_cmphex(got[22], ==, 0xff);
    g_assert_cmphex(got[40], ==, 0xff);
    g_assert_cmpuint(qom_get_u64(p, "x-pg-write-physical-bytes"), ==, 20);

    /* READ_PHYSICAL into VRAM and into the aperture */
    fill_bytes(data, 0x1800, 9);
    sys_write(p, SYS_PAGE(102), data, 0x1800);
    qtest_memset(p->v.qts, SYS_PAGE(110), 0, 2 * PG_PAGE);
    pb_reset(p);
    emit_read_phys(p, SYS_PAGE(102) + 0x10, 0x1700, PG_DATA + 1);
    emit_map1(p, 12, SYS_PAGE(110));
    emit_map1(p, 13, SYS_PAGE(111));
    emit_read_phys(p, SYS_PAGE(102), 0x1800, APERTURE(12) + 0x400);
    pb_run(p);
    vram_read(p, PG_DATA + 1, got, 0x1700);
    assert_bytes(got, data + 0x10, 0x1700);
    sys_read(p, SYS_PAGE(110) + 0x400, got, 0x1800);
    assert_bytes(got, data, 0x1800);
    g_assert_cmpuint(qom_get_u64(p, "x-pg-read-physical-ops"), ==, 2);

    pg_stop(p);
}

/* Several buffers, a wrapping ring, and moves larger than one BH run */

static void test_pg_multipass(void)
{
    enum { CHUNK = 0x3000, PASSES = 6 };
    g_autofree uint8_t *data = g_malloc(CHUNK * PASSES);
    g_autofree uint8_t *got = g_malloc(CHUNK * PASSES);
    uint64_t runs;
    Pg *p = pg_start(NULL);
    int i, batch;

    /* One copy split in passes, one paging buffer per pass */
    fill_bytes(data, CHUNK * PASSES, 10);
    vram_write(p, PG_DATA, data, CHUNK * PASSES);
    for (i = 0; i < PASSES; i++) {
        pb_reset(p);
        emit_copy(p, PG_DATA + i * CHUNK, PG_DATA + 0x100000 + i * CHUNK,
                  CHUNK);
        pb_queue(p);
    }
    ring_kick(p);
    pg_finish(p);
    g_assert_cmphex(vram_readq(p, PG_FENCE), ==, PASSES);
    vram_read(p, PG_DATA + 0x100000, got, CHUNK * PASSES);
    assert_bytes(got, data, CHUNK * PASSES);

    /* 300 entries through a 128-entry ring: HEAD wraps. */
    for (batch = 0; batch < 3; batch++) {
        for (i = 0; i < 100; i++) {
            if (i % 2) {
                ring_entry(p, VDXG_RING_CMD_NOP, 0, 0, ++p->seqno, 0, 0);
            } else {
                pb_reset(p);
                emit_fence(p, PG_FENCE2, p->seqno + 1);
                pb_queue(p);
            }
        }
        ring_kick(p);
        pg_finish(p);
    }
    g_assert_cmphex(rd64(&p->v, ENG(VDXG_ENG_FENCE_VALUE_LO)), ==,
                    PASSES + 300);
    g_assert_cmphex(rd(&p->v, ENG(VDXG_ENG_RING_HEAD)), ==,
                    (PASSES + 300) * 32 % PG_RING_SIZE);
    g_assert_cmphex(vram_readq(p, PG_FENCE2), ==, PASSES + 299);

    /* 8 MiB fill and 8 MiB copy: several runs of the bottom half */
    runs = qom_get_u64(p, "x-pg-bh-runs");
    pb_reset(p);
    emit_fill(p, 0x800000, 0x800000, 0x3c3c5a5a);
    emit_copy(p, 0x800000, 0x1000000, 0x800000);
    pb_run(p);
    g_assert_cmpuint(qom_get_u64(p, "x-pg-bh-runs") - runs, >=, 4);
    for (i = 0; i < 8; i++) {
        g_assert_cmphex(vram_readl(p, 0x1000000 + i * 0x100000 + 0xffffc),
                        ==, 0x3c3c5a5a);
    }
    g_assert_cmphex(vram_readl(p, 0x1800000), ==, 0);

    pg_stop(p);
}

/*
 * The engine's first touch of VRAM fits its slices. A first write to a
 * transparent huge page allocates and clears all of its 2 MiB in one
 * page fault, which the slice's clock cannot cut short. A fill of the
 * 30 MiB of VRAM that nothing touched before, then a copy over it: the
 * longest run of device work in CPU time (x-max-slice-cpu-ns, which the
 * host's preemption does not lengthen) stays under PG_FIRST_TOUCH_MAX_NS,
 * three slices. (On huge pages the fill's longest was 4.5 to 7 ms.)
 */
#define PG_FIRST_TOUCH_MAX_NS   (3 * 1000 * 1000)

static void test_pg_first_touch(void)
{
    const uint64_t start = 2 * MiB, size = PG_VRAM_SIZE - start;
    Pg *p = pg_start(NULL);
    uint64_t fill_cpu;

    qom_set_u64(p, "x-max-slice-cpu-ns", 0);
    qom_set_u64(p, "x-max-slice-ns", 0);
    pb_reset(p);
    emit_fill(p, start, size, 0x5a5a5a5a);
    pb_run(p);
    fill_cpu = qom_get_u64(p, "x-max-slice-cpu-ns");
    g_test_message("fill of %" PRIu64 " MiB of fresh VRAM: x-max-slice-ns "
                   "%" PRIu64 " x-max-slice-cpu-ns %" PRIu64, size / MiB,
                   qom_get_u64(p, "x-max-slice-ns"), fill_cpu);
    g_assert_cmphex(vram_readl(p, start), ==, 0x5a5a5a5a);
    g_assert_cmphex(vram_readl(p, PG_VRAM_SIZE - 4), ==, 0x5a5a5a5a);
    g_assert_cmpuint(fill_cpu, <, PG_FIRST_TOUCH_MAX_NS);

    /* The same memory again: no first touch */
    qom_set_u64(p, "x-max-slice-cpu-ns", 0);
    emit_copy(p, start, start + size / 2, size / 2);
    pb_run(p);
    g_test_message("copy of %" PRIu64 " MiB: x-max-slice-cpu-ns %" PRIu64,
                   size / 2 / MiB, qom_get_u64(p, "x-max-slice-cpu-ns"));
    g_assert_cmpuint(qom_get_u64(p, "x-max-slice-cpu-ns"), <,
                     PG_FIRST_TOUCH_MAX_NS);
    pg_stop(p);
}

/*
 * Passes that leave work let the vCPUs in: after 4 ms of them back to
 * back, the next waits (x-pass-gaps). 2 GiB of fills are 512 runs of
 * 4 MiB, far more than 4 ms on any host; one of 64 KiB needs no gap.
 */
static void test_pg_pass_gaps(void)
{
    Pg *p = pg_start(NULL);
    uint64_t gaps, passes;
    int i;

    qom_set_u64(p, "x-pass-gaps", 0);
    pb_reset(p);
    emit_fill(p, 0x1000000, 64 * KiB, 0x11111111);
    pb_run(p);
    g_assert_cmpuint(qom_get_u64(p, "x-pass-gaps"), ==, 0);

    qom_set_u64(p, "x-passes", 0);
    pb_reset(p);
    for (i = 0; i < 256; i++) {
        emit_fill(p, 0x1000000, 0x800000, 0x00010101 * (i + 1));
    }
    pb_run(p);
    gaps = qom_get_u64(p, "x-pass-gaps");
    passes = qom_get_u64(p, "x-passes");
    g_test_message("2 GiB of fills: %" PRIu64 " passes, %" PRIu64 " gaps",
                   passes, gaps);
    g_assert_cmphex(vram_readl(p, 0x1000000), ==, 0x00010101 * 256);
    g_assert_cmpuint(gaps, >=, 1);
    g_assert_cmpuint(gaps, <, passes);
    pg_stop(p);
}

/* Queue a buffer with ~72 MiB of work. */
void queue_big_work(Pg *p)
{
    int i;

    pb_reset(p);
    for (i = 0; i < 8; i++) {
        emit_fill(p, 0x1000000, 0x800000, 0x01010101 * (i + 1));
    }
    emit_copy(p, 0x1000000, 0x800000, 0x800000);
    pb_queue(p);
}

/*
 * Clearing ENABLE pauses an entry in progress; setting it resumes it. The
 * engine is held 1 MiB into the 72 MiB (in the first fill) and paused
 * there, then let go: only ENABLE keeps it where it is.
 */
static void test_pg_pause(void)
{
    Pg *p = pg_start(NULL);
    int i;

    queue_big_work(p);
    pg_hold_after(p, MiB);
    ring_kick(p);
    pg_wait_held(p);
    wr(&p->v, ENG(VDXG_ENG_CTRL), 0);
    pg_hold_after(p, 0);
    for (i = 0; i < 20; i++) {
        g_assert_cmphex(rd(&p->v, ENG(VDXG_ENG_STATUS)), ==, 0);
    }
    g_assert_cmphex(rd(&p->v, ENG(VDXG_ENG_RING_HEAD)), ==, 0);
    g_assert_cmphex(rd64(&p->v, ENG(VDXG_ENG_FENCE_VALUE_LO)), ==, 0);
    /* The first fill begun, not ended; the copy not begun */
    g_assert_cmphex(vram_readl(p, 0x1000000), ==, 0x01010101);
    g_assert_cmphex(vram_readl(p, 0x17ffffc), ==, 0);
    g_assert_cmphex(vram_readl(p, 0x800000), ==, 0);

    wr(&p->v, ENG(VDXG_ENG_CTRL), VDXG_ENG_CTRL_ENABLE);
    pg_finish(p);
    g_assert_cmphex(vram_readl(p, 0x800000), ==, 0x08080808);
    g_assert_cmphex(vram_readl(p, 0xfffffc), ==, 0x08080808);

    pg_stop(p);
}

/* Engine reset in the middle of work, soft reset and device reset */
static void test_pg_reset(void)
{
    Pg *p = pg_start(NULL);
    int i;

    /* An engine reset drops the entry in progress: nothing more happens */
    queue_big_work(p);
    ring_kick(p);
    wr(&p->v, ENG(VDXG_ENG_RESET), 1);
    assert_engine_reset(p);
    wr(&p->v, VDXG_REG_INT_ACK, VDXG_INT_VALID_MASK);
    vram_writel(p, 0x800000, 0x12345678);
    for (i = 0; i < 20; i++) {
        g_assert_cmphex(rd(&p->v, ENG(VDXG_ENG_STATUS)), ==,
                        VDXG_ENG_STATUS_IDLE);
    }
    g_assert_cmphex(rd(&p->v, VDXG_REG_INT_STATUS), ==, 0);
    g_assert_cmphex(vram_readl(p, 0x800000), ==, 0x12345678);
    pg_engine_setup(p);
    p->seqno = 0;
    pb_reset(p);
    emit_fence(p, PG_FENCE2, 99);
    pb_run(p);

    /* A soft reset clears the halted engine, GART and fault record. */
    pb_reset(p);
    emit_nop(p);
    pb_dw(p, VDXG_PG_HDR(0x55, 1));
    pb_queue(p);
    ring_kick(p);
    g_assert_cmphex(pg_wait(p), ==, VDXG_ENG_STATUS_HALTED);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==,
                    VDXG_FAULT_STATUS_VALID);
    wr(&p->v, VDXG_REG_RESET, VDXG_RESET_MAGIC);
    assert_engine_reset(p);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==, 0);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_COUNT), ==, 0);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_OPCODE), ==, 0);
    g_assert_cmphex(rd64(&p->v, VDXG_REG_GART_TABLE_LO), ==, 0);
    g_assert_cmphex(rd(&p->v, VDXG_REG_GART_CTRL), ==, 0);
    g_assert_cmphex(rd(&p->v, VDXG_REG_INT_STATUS), ==, 0);
    wr(&p->v, VDXG_REG_INT_MASK, VDXG_INT_VALID_MASK);
    pg_gart_setup(p);
    pg_engine_setup(p);
    p->seqno = 0;
    pb_reset(p);
    emit_fence(p, PG_FENCE2, 100);
    pb_run(p);
    g_assert_cmphex(vram_readq(p, PG_FENCE2), ==, 100);

    /* A device reset stops the engine in the middle of work too. */
    queue_big_work(p);
    ring_kick(p);
    qtest_qmp_assert_success(p->v.qts, "{ 'execute': 'system_reset' }");
    qtest_qmp_eventwait(p->v.qts, "RESET");
    qpci_device_enable(p->v.dev);
    p->v.mmio = qpci_iomap(p->v.dev, VDXG_BAR_MMIO, NULL);
    p->v.dev->msix_enabled = false;
    assert_engine_reset(p);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==, 0);
    g_assert_cmphex(rd64(&p->v, VDXG_REG_GART_TABLE_LO), ==, 0);

    pg_stop(p);
}

/* Faults */

/* Queue the buffer built so far; the op at @off is expected to fault. */
static void fault_at_op(Pg *p, uint32_t off, uint32_t opcode)
{
    pb_queue(p);
    p->want_opcode = opcode;
    p->want_addr = p->buf_gpu + off;
    p->want_context = PG_CONTEXT;
}

static void fault_at_addr(Pg *p, uint32_t opcode, uint64_t addr)
{
    pb_queue(p);
    p->want_opcode = opcode;
    p->want_addr = addr;
    p->want_context = PG_CONTEXT;
}

static void build_bad_opcode(Pg *p)
{
    uint32_t off;

    emit_nop(p);
    off = pb_off(p);
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_NUM_OPS, 1));
    fault_at_op(p, off, VDXG_PG_NUM_OPS);
}

static void build_bad_opcode_ff(Pg *p)
{
    emit_fill(p, PG_DATA, 4, 1);
    pb_dw(p, VDXG_PG_HDR(0xff, 3));
    pb_dw(p, 0);
    pb_dw(p, 0);
    fault_at_op(p, 20, 0xff);
}

static void build_header_reserved(Pg *p)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_NOP | 0x100, 1));
    fault_at_op(p, 0, 0x100);
}

static void build_zero_length(Pg *p)
{
    emit_nop(p);
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_NOP, 0));
    fault_at_op(p, 4, VDXG_PG_NOP);
}

static void build_nop_length(Pg *p)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_NOP, 2));
    pb_dw(p, 0);
    fault_at_op(p, 0, VDXG_PG_NOP);
}

static void build_fence_length(Pg *p)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_FENCE, 4));
    pb_qw(p, PG_FENCE2);
    pb_dw(p, 1);
    fault_at_op(p, 0, VDXG_PG_FENCE);
}

static void build_transfer_length(Pg *p)
{
    uint64_t page = SYS_PAGE(0);

    emit_transfer(p, 16, 0, &page, 1, PG_DATA, NULL, 0);
    p->buf[0] = VDXG_PG_HDR(VDXG_PG_TRANSFER, VDXG_PG_XFER_LEN(0, 0));
    p->used = VDXG_PG_XFER_LEN(0, 0);
    emit_nop(p);
    emit_nop(p);
    fault_at_op(p, 0, VDXG_PG_TRANSFER);
}

static void build_map_length(Pg *p)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_MAP_APERTURE, VDXG_PG_MAP_LEN(1)));
    pb_dw(p, 0);
    pb_dw(p, 2);
    pb_qw(p, SYS_PAGE(0));
    fault_at_op(p, 0, VDXG_PG_MAP_APERTURE);
}

static void build_unmap_length(Pg *p)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_UNMAP_APERTURE, 4));
    pb_dw(p, 0);
    pb_dw(p, 1);
    pb_dw(p, 0);
    fault_at_op(p, 0, VDXG_PG_UNMAP_APERTURE);
}

static void build_past_end(Pg *p)
{
    emit_nop(p);
    emit_fill(p, PG_DATA, 4, 1);
    p->used -= 2;       /* the buffer ends inside the FILL */
    fault_at_op(p, 4, VDXG_PG_FILL);
}

static void build_write_phys_past_end(Pg *p)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_WRITE_PHYSICAL, 100));
    pb_qw(p, SYS_PAGE(0));
    fault_at_op(p, 0, VDXG_PG_WRITE_PHYSICAL);
}

static void build_fill_unaligned(Pg *p)
{
    emit_fill(p, PG_DATA + 2, 8, 1);
    fault_at_op(p, 0, VDXG_PG_FILL);
}

static void build_fill_size(Pg *p)
{
    emit_fill(p, PG_DATA, 6, 1);
    fault_at_op(p, 0, VDXG_PG_FILL);
}

static void build_fence_unaligned(Pg *p)
{
    emit_fence(p, PG_FENCE2 + 4, 1);
    fault_at_op(p, 0, VDXG_PG_FENCE);
}

static void build_transfer_flags(Pg *p)
{
    emit_copy(p, PG_DATA, PG_DATA + 0x1000, 16);
    p->buf[VDXG_PG_XFER_DW_FLAGS] = 4;
    fault_at_op(p, 0, VDXG_PG_TRANSFER);
}

static void build_transfer_pages_no_flag(Pg *p)
{
    uint64_t page = SYS_PAGE(0);

    emit_transfer(p, 16, 0, &page, 1, PG_DATA, NULL, 0);
    p->buf[VDXG_PG_XFER_DW_FLAGS] = 0;
    fault_at_op(p, 0, VDXG_PG_TRANSFER);
}

static void build_page_offset(Pg *p)
{
    uint64_t pages[2] = { SYS_PAGE(0), SYS_PAGE(1) };

    emit_transfer(p, 16, PG_PAGE, pages, 2, PG_DATA, NULL, 0);
    fault_at_op(p, 0, VDXG_PG_TRANSFER);
}

static void build_page_unaligned(Pg *p)
{
    uint64_t pages[2] = { SYS_PAGE(0), SYS_PAGE(1) + 8 };

    emit_nop(p);
    emit_transfer(p, 0x1000, 0x800, pages, 2, PG_DATA, NULL, 0);
    fault_at_op(p, 4, VDXG_PG_TRANSFER);
}

static void build_map_unaligned(Pg *p)
{
    uint64_t pages[2] = { SYS_PAGE(0), SYS_PAGE(1) | 0x10 };

    emit_map(p, 20, pages, 2);
    fault_at_op(p, 0, VDXG_PG_MAP_APERTURE);
}

static void build_short_page_list(Pg *p)
{
    uint64_t page = SYS_PAGE(0);

    emit_transfer(p, PG_PAGE, 0x800, &page, 1, PG_DATA, NULL, 0);
    fault_at_op(p, 0, VDXG_PG_TRANSFER);
}

static void build_short_dst_page_list(Pg *p)
{
    uint64_t pages[2] = { SYS_PAGE(0), SYS_PAGE(1) };

    emit_transfer(p, 2 * PG_PAGE + 4, PG_DATA, NULL, 0, 0, pages, 2);
    fault_at_op(p, 0, VDXG_PG_TRANSFER);
}

static void build_map_past_end(Pg *p)
{
    uint64_t pages[2] = { SYS_PAGE(0), SYS_PAGE(1) };

    emit_map(p, PG_GART_ENTRIES - 1, pages, 2);
    fault_at_op(p, 0, VDXG_PG_MAP_APERTURE);
}

static void build_unmap_past_end(Pg *p)
{
    emit_unmap(p, PG_GART_ENTRIES, 1);
    fault_at_op(p, 0, VDXG_PG_UNMAP_APERTURE);
}

static void build_unmap_wrap(Pg *p)
{
    emit_unmap(p, 0xffffffff, 2);
    fault_at_op(p, 0, VDXG_PG_UNMAP_APERTURE);
}

static void build_address_hole(Pg *p)
{
    emit_copy(p, PG_DATA, GPU_HOLE, 16);
    fault_at_addr(p, VDXG_PG_TRANSFER, GPU_HOLE);
}

static void build_address_src_hole(Pg *p)
{
    emit_copy(p, VDXG_APERTURE_BASE - 8, PG_DATA, 4);
    fault_at_addr(p, VDXG_PG_TRANSFER, VDXG_APERTURE_BASE - 8);
}

static void build_address_vram_end(Pg *p)
{
    emit_fill(p, PG_VRAM_SIZE - 4, 8, 1);
    fault_at_addr(p, VDXG_PG_FILL, PG_VRAM_SIZE - 4);
}

static void build_address_aperture_end(Pg *p)
{
    emit_copy(p, PG_DATA, APERTURE(PG_GART_ENTRIES) - 4, 8);
    fault_at_addr(p, VDXG_PG_TRANSFER, APERTURE(PG_GART_ENTRIES) - 4);
}

static void build_address_wrap(Pg *p)
{
    emit_copy(p, PG_DATA, UINT64_MAX - 3, 8);
    fault_at_addr(p, VDXG_PG_TRANSFER, UINT64_MAX - 3);
}

static void build_fence_hole(Pg *p)
{
    emit_fence(p, 1ull << 63, 1);
    fault_at_addr(p, VDXG_PG_FENCE, 1ull << 63);
}

static void build_discard_hole(Pg *p)
{
    emit_discard(p, APERTURE(PG_GART_ENTRIES), 4);
    fault_at_addr(p, VDXG_PG_DISCARD, APERTURE(PG_GART_ENTRIES));
}

static void build_read_phys_hole(Pg *p)
{
    emit_read_phys(p, SYS_PAGE(0), 16, GPU_HOLE);
    fault_at_addr(p, VDXG_PG_READ_PHYSICAL, GPU_HOLE);
}

static void build_bus_write_phys(Pg *p)
{
    uint32_t data = 1;

    emit_write_phys(p, BUS_HOLE + 4, &data, 1);
    fault_at_addr(p, VDXG_PG_WRITE_PHYSICAL, BUS_HOLE + 4);
}

static void build_bus_read_phys(Pg *p)
{
    emit_read_phys(p, BUS_HOLE, 16, PG_DATA);
    fault_at_addr(p, VDXG_PG_READ_PHYSICAL, BUS_HOLE);
}

static void build_bus_wrap(Pg *p)
{
    emit_read_phys(p, UINT64_MAX - 7, 16, PG_DATA);
    fault_at_addr(p, VDXG_PG_READ_PHYSICAL, UINT64_MAX - 7);
}

static void build_bus_page(Pg *p)
{
    uint64_t pages[2] = { SYS_PAGE(0), BUS_HOLE };

    emit_transfer(p, 0x1000, PG_DATA, NULL, 0, 0x800, pages, 2);
    fault_at_addr(p, VDXG_PG_TRANSFER, BUS_HOLE);
}

static void build_bus_aperture(Pg *p)
{
    emit_map1(p, 30, BUS_HOLE);
    emit_flush_tlb(p);
    emit_copy(p, APERTURE(30) + 0x10, PG_DATA, 16);
    fault_at_addr(p, VDXG_PG_TRANSFER, APERTURE(30) + 0x10);
}

/* DMA to the device's own registers is refused (re-entrancy guard). */
static void build_own_registers(Pg *p)
{
    uint32_t data = 0x5c5c5c5c;

    emit_write_phys(p, p->v.mmio.addr + VDXG_REG_SCRATCH, &data, 1);
    fault_at_addr(p, VDXG_PG_WRITE_PHYSICAL,
                  p->v.mmio.addr + VDXG_REG_SCRATCH);
}

/* Ring entries */

void fault_at_entry(Pg *p, uint32_t cmd, uint32_t len, uint64_t addr,
                    uint32_t rsvd)
{
    p->want_opcode = VDXG_FAULT_OPCODE_RING | (cmd & 0xffff);
    p->want_addr = p->ring + p->tail;
    p->want_context = 0x77;
    ring_entry(p, cmd, len, addr, ++p->seqno, 0x77, rsvd);
}

static void build_ring_cmd(Pg *p)
{
    ring_entry(p, VDXG_RING_CMD_NOP, 0, 0, ++p->seqno, 0, 0);
    fault_at_entry(p, 0xabcd0002, 4, PG_BUF, 0);
}

static void build_ring_reserved(Pg *p)
{
    emit_nop(p);
    vram_write(p, PG_BUF, p->buf, 4);
    fault_at_entry(p, VDXG_RING_CMD_EXEC, 4, PG_BUF, 1);
}

static void build_exec_zero(Pg *p)
{
    fault_at_entry(p, VDXG_RING_CMD_EXEC, 0, PG_BUF, 0);
}

static void build_exec_unaligned(Pg *p)
{
    fault_at_entry(p, VDXG_RING_CMD_EXEC, 6, PG_BUF, 0);
}

static void build_exec_too_long(Pg *p)
{
    fault_at_entry(p, VDXG_RING_CMD_EXEC, VDXG_RING_LENGTH_MAX + 4, PG_BUF,
                   0);
}

static void build_exec_outside(Pg *p)
{
    fault_at_entry(p, VDXG_RING_CMD_EXEC, 8, PG_VRAM_SIZE - 4, 0);
    p->want_addr = PG_VRAM_SIZE - 4;
}

/* The fence write-back of an entry fails: the entry does not complete. */
static void build_fence_writeback(Pg *p)
{
    emit_map1(p, 31, BUS_HOLE);
    pb_run(p);
    wr(&p->v, VDXG_REG_TLB_FLUSH, 1);
    wr64(&p->v, ENG(VDXG_ENG_FENCE_ADDR_LO), APERTURE(31) + 8);
    emit_nop(p);
    fault_at_addr(p, VDXG_FAULT_OPCODE_RING | VDXG_RING_CMD_EXEC,
                  APERTURE(31) + 8);
}

static const PgFaultCase pg_fault_cases[] = {
    { "bad-opcode", build_bad_opcode, VDXG_FAULT_OPCODE },
    { "bad-opcode-ff", build_bad_opcode_ff, VDXG_FAULT_OPCODE },
    { "header-reserved", build_header_reserved, VDXG_FAULT_OPCODE },
    { "zero-length", build_zero_length, VDXG_FAULT_LENGTH },
    { "nop-length", build_nop_length, VDXG_FAULT_LENGTH },
    { "fence-length", build_fence_length, VDXG_FAULT_LENGTH },
    { "transfer-length", build_transfer_length, VDXG_FAULT_LENGTH },
    { "map-length", build_map_length, VDXG_FAULT_LENGTH },
    { "unmap-length", build_unmap_length, VDXG_FAULT_LENGTH },
    { "past-end", build_past_end, VDXG_FAULT_LENGTH },
    { "write-physical-past-end", build_write_phys_past_end,
      VDXG_FAULT_LENGTH },
    { "fill-unaligned", build_fill_unaligned, VDXG_FAULT_PARAM },
    { "fill-size", build_fill_size, VDXG_FAULT_PARAM },
    { "fence-unaligned", build_fence_unaligned, VDXG_FAULT_PARAM },
    { "transfer-flags", build_transfer_flags, VDXG_FAULT_PARAM },
    { "transfer-pages-no-flag", build_transfer_pages_no_flag,
      VDXG_FAULT_PARAM },
    { "page-offset", build_page_offset, VDXG_FAULT_PARAM },
    { "page-unaligned", build_page_unaligned, VDXG_FAULT_PARAM },
    { "map-unaligned", build_map_unaligned, VDXG_FAULT_PARAM },
    { "short-page-list", build_short_page_list, VDXG_FAULT_BOUNDS },
    { "short-dst-page-list", build_short_dst_page_list, VDXG_FAULT_BOUNDS },
    { "map-past-end", build_map_past_end, VDXG_FAULT_BOUNDS },
    { "unmap-past-end", build_unmap_past_end, VDXG_FAULT_BOUNDS },
    { "unmap-wrap", build_unmap_wrap, VDXG_FAULT_BOUNDS },
    { "address-hole", build_address_hole, VDXG_FAULT_ADDRESS },
    { "address-src-hole", build_address_src_hole, VDXG_FAULT_ADDRESS },
    { "address-vram-end", build_address_vram_end, VDXG_FAULT_ADDRESS },
    { "address-aperture-end", build_address_aperture_end,
      VDXG_FAULT_ADDRESS },
    { "address-wrap", build_address_wrap, VDXG_FAULT_ADDRESS },
    { "fence-hole", build_fence_hole, VDXG_FAULT_ADDRESS },
    { "discard-hole", build_discard_hole, VDXG_FAULT_ADDRESS },
    { "read-physical-hole", build_read_phys_hole, VDXG_FAULT_ADDRESS },
    { "bus-write-physical", build_bus_write_phys, VDXG_FAULT_ADDRESS },
    { "bus-read-physical", build_bus_read_phys, VDXG_FAULT_ADDRESS },
    { "bus-wrap", build_bus_wrap, VDXG_FAULT_ADDRESS },
    { "bus-page", build_bus_page, VDXG_FAULT_ADDRESS },
    { "bus-aperture", build_bus_aperture, VDXG_FAULT_ADDRESS },
    { "own-registers", build_own_registers, VDXG_FAULT_ADDRESS },
    { "ring-cmd", build_ring_cmd, VDXG_FAULT_OPCODE },
    { "ring-reserved", build_ring_reserved, VDXG_FAULT_RING },
    { "exec-zero-length", build_exec_zero, VDXG_FAULT_LENGTH },
    { "exec-unaligned-length", build_exec_unaligned, VDXG_FAULT_LENGTH },
    { "exec-too-long", build_exec_too_long, VDXG_FAULT_LENGTH },
    { "exec-outside", build_exec_outside, VDXG_FAULT_ADDRESS },
    { "fence-writeback", build_fence_writeback, VDXG_FAULT_ADDRESS },
};

static void test_pg_fault(const void *data)
{
    const PgFaultCase *c = data;
    Pg *p = pg_start(NULL);
    uint32_t scratch = rd(&p->v, VDXG_REG_SCRATCH);

    /* Something completes first, so FENCE_VALUE is not 0. */
    pb_reset(p);
    emit_nop(p);
    pb_run(p);

    c->build(p);
    ring_kick(p);
    pg_expect_fault(p, c->reason, p->want_opcode, p->want_addr,
                    p->want_context);
    g_assert_cmphex(rd(&p->v, VDXG_REG_SCRATCH), ==, scratch);
    g_assert_cmphex(rd(&p->v, VDXG_REG_ID), ==, VDXG_ID_MAGIC);
    pg_stop(p);
}

/* Bad ring programming faults at once, when enabled or kicked. */
static void test_pg_bad_ring(void)
{
    static const struct {
        uint64_t base;
        uint32_t size, tail;
        uint64_t fence;
    } bad[] = {
        { 0x800, PG_RING_SIZE, 0, 0 },                   /* unaligned */
        { 0, 0x1800, 0, 0 },                             /* not 2^n */
        { 0, 0x800, 0, 0 },                              /* too small */
        { 0, 2 * VDXG_RING_SIZE_MAX, 0, 0 },             /* too large */
        { 0, 0, 0, 0 },
        { PG_VRAM_SIZE - 0x1000, 0x2000, 0, 0 },         /* past VRAM */
        { GPU_HOLE, PG_RING_SIZE, 0, 0 },                /* in no window */
        { APERTURE(PG_GART_ENTRIES - 1), 0x2000, 0, 0 }, /* past aperture */
        { 0, PG_RING_SIZE, 0x10, 0 },                    /* unaligned tail */
        { 0, PG_RING_SIZE, PG_RING_SIZE, 0 },            /* tail too big */
        { 0, PG_RING_SIZE, 0, PG_FENCE + 4 },            /* unaligned fence */
        { 0, PG_RING_SIZE, 0, GPU_HOLE },                /* fence outside */
    };
    Pg *p = pg_start(NULL);
    int i, kick;

    for (i = 0; i < ARRAY_SIZE(bad); i++) {
        for (kick = 0; kick < 2; kick++) {
            wr(&p->v, ENG(VDXG_ENG_RESET), 1);
            wr64(&p->v, ENG(VDXG_ENG_RING_BASE_LO), bad[i].base);
            wr(&p->v, ENG(VDXG_ENG_RING_SIZE), bad[i].size);
            wr(&p->v, ENG(VDXG_ENG_RING_TAIL), bad[i].tail);
            wr64(&p->v, ENG(VDXG_ENG_FENCE_ADDR_LO), bad[i].fence);
            if (kick) {
                /* Enabled with a good ring, then broken and kicked */
                wr(&p->v, ENG(VDXG_ENG_RING_SIZE), PG_RING_SIZE);
                wr64(&p->v, ENG(VDXG_ENG_RING_BASE_LO), 0);
                wr(&p->v, ENG(VDXG_ENG_RING_TAIL), 0);
                wr64(&p->v, ENG(VDXG_ENG_FENCE_ADDR_LO), 0);
                wr(&p->v, ENG(VDXG_ENG_CTRL), VDXG_ENG_CTRL_ENABLE);
                g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==, 0);
                wr64(&p->v, ENG(VDXG_ENG_RING_BASE_LO), bad[i].base);
                wr(&p->v, ENG(VDXG_ENG_RING_SIZE), bad[i].size);
                wr(&p->v, ENG(VDXG_ENG_RING_TAIL), bad[i].tail);
                wr64(&p->v, ENG(VDXG_ENG_FENCE_ADDR_LO), bad[i].fence);
                g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==, 0);
                wr(&p->v, ENG(VDXG_ENG_DOORBELL), 1);
            } else {
                wr(&p->v, ENG(VDXG_ENG_CTRL), VDXG_ENG_CTRL_ENABLE);
            }
            /* Synchronous: no need to wait */
            g_test_message("bad ring %d, kick %d", i, kick);
            g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==,
                            VDXG_FAULT_STATUS_VALID);
            g_assert_cmphex(rd(&p->v, ENG(VDXG_ENG_STATUS)) &
                            VDXG_ENG_STATUS_HALTED, ==,
                            VDXG_ENG_STATUS_HALTED);
            pg_expect_fault(p, VDXG_FAULT_RING, VDXG_FAULT_OPCODE_RING,
                            bad[i].base, 0);
        }
    }

    /* A ring at the end of VRAM, and one of 1 MiB, are fine. */
    wr(&p->v, ENG(VDXG_ENG_RESET), 1);
    wr64(&p->v, ENG(VDXG_ENG_RING_BASE_LO), PG_VRAM_SIZE - PG_RING_SIZE);
    wr(&p->v, ENG(VDXG_ENG_RING_SIZE), PG_RING_SIZE);
    wr(&p->v, ENG(VDXG_ENG_CTRL), VDXG_ENG_CTRL_ENABLE);
    wr64(&p->v, ENG(VDXG_ENG_RING_BASE_LO), 0x100000);
    wr(&p->v, ENG(VDXG_ENG_RING_SIZE), VDXG_RING_SIZE_MAX);
    wr(&p->v, ENG(VDXG_ENG_CTRL), VDXG_ENG_CTRL_ENABLE);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==, 0);

    pg_stop(p);
}

/* The first fault is latched; later ones only count. */
static void test_pg_fault_count(void)
{
    Pg *p = pg_start(NULL);

    pb_reset(p);
    emit_fill(p, PG_DATA + 1, 4, 0);
    pb_queue(p);
    ring_kick(p);
    g_assert_cmphex(pg_wait(p), ==, VDXG_ENG_STATUS_HALTED);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_REASON), ==, VDXG_FAULT_PARAM);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_COUNT), ==, 1);
    assert_msix_messages(&p->v, VDXG_MSIX_VEC_MISC);

    /* A second fault after an engine reset, the record not cleared */
    wr(&p->v, ENG(VDXG_ENG_RESET), 1);
    wr(&p->v, VDXG_REG_INT_ACK, VDXG_INT_FAULT);
    msg_clear(&p->v);
    pg_engine_setup(p);
    pb_reset(p);
    pb_dw(p, VDXG_PG_HDR(0x42, 1));
    pb_queue(p);
    ring_kick(p);
    g_assert_cmphex(pg_wait(p), ==, VDXG_ENG_STATUS_HALTED);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_REASON), ==, VDXG_FAULT_PARAM);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_OPCODE), ==, VDXG_PG_FILL);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_COUNT), ==, 2);
    g_assert_cmphex(rd(&p->v, VDXG_REG_INT_STATUS) & VDXG_INT_FAULT, ==,
                    VDXG_INT_FAULT);
    assert_msix_messages(&p->v, VDXG_MSIX_VEC_MISC);

    wr(&p->v, VDXG_REG_FAULT_CLEAR, 0);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==, 0);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_COUNT), ==, 0);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_OPCODE), ==, 0);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_CONTEXT), ==, 0);

    pg_stop(p);
}

/* Migration with an entry half done, a stale TLB entry and a fault record */
static void test_pg_migration(void)
{
    g_autofree char *tmpdir = g_dir_make_tmp("vdxg-test-XXXXXX", NULL);
    g_autofree char *sock = NULL;
    g_autofree char *uri = NULL;
    Pg *src = pg_start(NULL);
    Pg *dst = g_new0(Pg, 1);
    uint32_t bar0;
    uint64_t bar2;

    g_assert_nonnull(tmpdir);
    sock = g_strdup_printf("%s/migration", tmpdir);
    uri = g_strdup_printf("unix:%s", sock);

    /* A fault record, with the engine reset since */
    pb_reset(src);
    emit_fence(src, GPU_HOLE, 0);
    pb_queue(src);
    ring_kick(src);
    g_assert_cmphex(pg_wait(src), ==, VDXG_ENG_STATUS_HALTED);
    wr(&src->v, ENG(VDXG_ENG_RESET), 1);
    pg_engine_setup(src);
    src->seqno = 0;

    /* A stale TLB entry: page 6 cached as page 120, remapped to 121 */
    qtest_writel(src->v.qts, SYS_PAGE(120), 0x12000000);
    qtest_writel(src->v.qts, SYS_PAGE(121), 0x12100000);
    pb_reset(src);
    emit_map1(src, 6, SYS_PAGE(120));
    emit_flush_tlb(src);
    emit_copy(src, APERTURE(6), PG_PEEK, 4);
    emit_map1(src, 6, SYS_PAGE(121));
    pb_run(src);

    /*
     * Paused in the middle of a lot of work: held 1 MiB into it (in the
     * first fill) and paused there (the hold is not migrated).
     */
    queue_big_work(src);
    pg_hold_after(src, MiB);
    ring_kick(src);
    pg_wait_held(src);
    wr(&src->v, ENG(VDXG_ENG_CTRL), 0);
    pg_hold_after(src, 0);
    g_assert_cmphex(rd(&src->v, ENG(VDXG_ENG_STATUS)), ==, 0);
    g_assert_cmphex(vram_readl(src, 0x17ffffc), ==, 0);
    bar0 = qpci_config_readl(src->v.dev, PCI_BASE_ADDRESS_0);
    bar2 = (qpci_config_readl(src->v.dev, PCI_BASE_ADDRESS_2) |
            (uint64_t)qpci_config_readl(src->v.dev, PCI_BASE_ADDRESS_3) << 32)
           & ~0xfull;

    dst->v.qts = qtest_initf("-machine q35 -nodefaults %s "
                             "-device vdxg,addr=%02x.0,%s -incoming %s",
                             vdxg_qemu_args(), VDXG_SLOT, PG_PROPS, uri);
    qtest_qmp_assert_success(src->v.qts, "{ 'execute': 'migrate', "
                             "'arguments': { 'uri': %s } }", uri);
    qtest_qmp_eventwait(dst->v.qts, "RESUME");

    dst->v.bus = qpci_new_pc(dst->v.qts, NULL);
    dst->v.dev = qpci_device_find(dst->v.bus, VDXG_DEVFN);
    g_assert_nonnull(dst->v.dev);
    dst->v.mmio = (QPCIBar) { .addr = bar0 & PCI_BASE_ADDRESS_MEM_MASK };
    dst->vram = (QPCIBar) { .addr = bar2 };
    dst->eng = src->eng;
    dst->ring = src->ring;
    dst->fence = src->fence;
    dst->tail = src->tail;
    dst->seqno = src->seqno;
    dst->slot = src->slot;

    g_assert_cmphex(rd(&dst->v, VDXG_REG_FAULT_STATUS), ==,
                    VDXG_FAULT_STATUS_VALID);
    g_assert_cmphex(rd(&dst->v, VDXG_REG_FAULT_REASON), ==,
                    VDXG_FAULT_ADDRESS);
    g_assert_cmphex(rd64(&dst->v, VDXG_REG_FAULT_ADDR_LO), ==, GPU_HOLE);
    g_assert_cmphex(rd(&dst->v, VDXG_REG_FAULT_COUNT), ==, 1);
    g_assert_cmphex(rd64(&dst->v, VDXG_REG_GART_TABLE_LO), ==, PG_GART);
    g_assert_cmphex(rd64(&dst->v, VDXG_REG_DUMMY_PAGE_LO), ==, SYS_DUMMY);
    g_assert_cmphex(rd(&dst->v, VDXG_REG_GART_CTRL), ==,
                    VDXG_GART_CTRL_ENABLE);
    g_assert_cmphex(rd(&dst->v, ENG(VDXG_ENG_STATUS)), ==, 0);
    g_assert_cmphex(rd(&dst->v, ENG(VDXG_ENG_CTRL)), ==, 0);
    g_assert_cmphex(rd(&dst->v, ENG(VDXG_ENG_RING_TAIL)), ==, dst->tail);

    /* The entry resumes and completes on the destination. */
    wr(&dst->v, ENG(VDXG_ENG_CTRL), VDXG_ENG_CTRL_ENABLE);
    pg_finish(dst);
    g_assert_cmphex(vram_readl(dst, 0x800000), ==, 0x08080808);
    g_assert_cmphex(vram_readl(dst, 0xfffffc), ==, 0x08080808);

    /* The TLB came along: page 6 still goes to page 120. */
    g_assert_cmphex(gpu_peekl(dst, APERTURE(6)), ==, 0x12000000);
    wr(&dst->v, VDXG_REG_TLB_FLUSH, 1);
    g_assert_cmphex(gpu_peekl(dst, APERTURE(6)), ==, 0x12100000);

    vdxg_stop(&dst->v);
    g_free(dst);
    pg_stop(src);
    g_unlink(sock);
    g_rmdir(tmpdir);
}

/* Values that make interesting operands */
uint64_t fuzz_value(Pg *p, bool bus)
{
    static const uint64_t gpu[] = {
        0, 4, PG_DATA, PG_DATA + 3, PG_VRAM_SIZE - 4, PG_VRAM_SIZE,
        GPU_HOLE, VDXG_APERTURE_BASE, APERTURE(3) + 0x7fc,
        APERTURE(PG_GART_ENTRIES) - 4, UINT64_MAX, UINT64_MAX - 3,
        1ull << 63, PG_PAGE, PG_PAGE - 1,
    };
    static const uint64_t sys[] = {
        SYS_PAGE(0), SYS_PAGE(1) + 0x123, SYS_PAGE(200), SYS_DUMMY,
        BUS_HOLE, UINT64_MAX - 8, 0xfffffffffffff000ull, SYS_PAGE(7) + 1,
    };

    if (bus) {
        return sys[g_test_rand_int_range(0, ARRAY_SIZE(sys))];
    }
    switch (g_test_rand_int_range(0, 4)) {
    case 0:
        return g_test_rand_int();
    case 1:
        return g_test_rand_int_range(0, 0x10000);
    default:
        return gpu[g_test_rand_int_range(0, ARRAY_SIZE(gpu))];
    }
}

/* A random operation, well formed or not */
static void fuzz_op(Pg *p)
{
    uint32_t op = g_test_rand_int_range(0, VDXG_PG_NUM_OPS + 2);
    uint32_t i, n = g_test_rand_int_range(0, 6);
    bool sp = g_test_rand_bit(), dp = g_test_rand_bit();
    uint64_t pages[6];

    for (i = 0; i < n; i++) {
        pages[i] = fuzz_value(p, true) & ~0xfffull;
    }
    switch (op) {
    case VDXG_PG_NOP:
        emit_nop(p);
        break;
    case VDXG_PG_FENCE:
        emit_fence(p, fuzz_value(p, false) & ~7ull, g_test_rand_int());
        break;
    case VDXG_PG_TRANSFER:
        emit_transfer(p, g_test_rand_int_range(0, 3 * PG_PAGE),
                      sp ? g_test_rand_int_range(0, PG_PAGE + 1) :
                           fuzz_value(p, false),
                      sp ? pages : NULL, sp ? n / 2 : 0,
                      dp ? g_test_rand_int_range(0, PG_PAGE + 1) :
                           fuzz_value(p, false),
                      dp ? pages + n / 2 : NULL, dp ? n - n / 2 : 0);
        break;
    case VDXG_PG_FILL:
        emit_fill(p, fuzz_value(p, false), fuzz_value(p, false) & 0x3fff,
                  g_test_rand_int());
        break;
    case VDXG_PG_DISCARD:
        emit_discard(p, fuzz_value(p, false), fuzz_value(p, false));
        break;
    case VDXG_PG_MAP_APERTURE:
        emit_map(p, g_test_rand_int_range(0, PG_GART_ENTRIES + 8), pages, n);
        break;
    case VDXG_PG_UNMAP_APERTURE:
        emit_unmap(p, fuzz_value(p, false), fuzz_value(p, false));
        break;
    case VDXG_PG_FLUSH_TLB:
        emit_flush_tlb(p);
        break;
    case VDXG_PG_WRITE_PHYSICAL: {
        uint32_t data[4] = { 1, 2, 3, 4 };

        emit_write_phys(p, fuzz_value(p, true), data, n % 5);
        break;
    }
    case VDXG_PG_READ_PHYSICAL:
        emit_read_phys(p, fuzz_value(p, true),
                       g_test_rand_int_range(0, 2 * PG_PAGE),
                       fuzz_value(p, false));
        break;
    default:
        /* Random dwords */
        for (i = 0; i < n; i++) {
            pb_dw(p, g_test_rand_int());
        }
        break;
    }
    /* Now and then, damage a dword */
    if (g_test_rand_int_range(0, 8) == 0 && p->used) {
        p->buf[p->used - 1] ^= 1u << g_test_rand_int_range(0, 32);
    }
}

/* Random buffers, ring entries and ring programming: QEMU survives. */
static void test_pg_fuzz(void)
{
    Pg *p = pg_start(NULL);
    uint32_t status, faults = 0;
    bool reprogram;
    int round, i;

    for (round = 0; round < 300; round++) {
        /* Operands may hit the GART table: no PTE from a previous round */
        qtest_memset(p->v.qts, p->vram.addr + PG_GART, 0,
                     PG_GART_ENTRIES * 8);
        wr(&p->v, VDXG_REG_TLB_FLUSH, 1);
        pb_reset(p);
        for (i = g_test_rand_int_range(1, 8); i > 0; i--) {
            fuzz_op(p);
        }
        if (g_test_rand_int_range(0, 10) == 0) {
            /* A random ring entry */
            ring_entry(p, g_test_rand_int_range(0, 3),
                       g_test_rand_int_range(0, 2 * PG_BUF_SIZE),
                       fuzz_value(p, false), ++p->seqno, round,
                       g_test_rand_int_range(0, 8) == 0);
        } else {
            pb_queue_at(p, PG_BUF, round);
        }
        reprogram = g_test_rand_int_range(0, 20) == 0;
        if (reprogram) {
            /* Random ring programming */
            wr64(&p->v, ENG(VDXG_ENG_RING_BASE_LO), fuzz_value(p, false));
            wr(&p->v, ENG(VDXG_ENG_RING_SIZE), g_test_rand_int());
        }
        ring_kick(p);
        status = pg_wait(p);
        if (reprogram && !(status & VDXG_ENG_STATUS_HALTED)) {
            wr(&p->v, ENG(VDXG_ENG_RESET), 1);
            pg_engine_setup(p);
        } else if (status & VDXG_ENG_STATUS_HALTED) {
            faults++;
            g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==,
                            VDXG_FAULT_STATUS_VALID);
            g_assert_cmpuint(rd(&p->v, VDXG_REG_FAULT_REASON), >=,
                             VDXG_FAULT_ADDRESS);
            g_assert_cmpuint(rd(&p->v, VDXG_REG_FAULT_REASON), <=,
                             VDXG_FAULT_PARAM);
            wr(&p->v, ENG(VDXG_ENG_RESET), 1);
            wr(&p->v, VDXG_REG_FAULT_CLEAR, 1);
            pg_engine_setup(p);
        } else {
            g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==, 0);
            g_assert_cmphex(rd64(&p->v, ENG(VDXG_ENG_FENCE_VALUE_LO)), ==,
                            p->seqno);
        }
    }
    g_test_message("%u of 300 rounds faulted", faults);
    g_assert_cmpuint(faults, >, 0);
    g_assert_cmpuint(faults, <, 300);

    /* Still alive and working */
    g_assert_cmphex(rd(&p->v, VDXG_REG_ID), ==, VDXG_ID_MAGIC);
    pb_reset(p);
    emit_fence(p, PG_FENCE2, 0x5eed);
    pb_run(p);
    g_assert_cmphex(vram_readq(p, PG_FENCE2), ==, 0x5eed);

    pg_stop(p);
}

void vdxg_test_add_paging_tests(void)
{
    int i;

    qtest_add_func("/vdxg/paging/registers", test_pg_registers);
    qtest_add_func("/vdxg/paging/fence", test_pg_fence);
    qtest_add_func("/vdxg/paging/fence-intx", test_pg_fence_intx);
    qtest_add_func("/vdxg/paging/transfer-vram", test_pg_transfer_vram);
    qtest_add_func("/vdxg/paging/transfer-pages", test_pg_transfer_pages);
    qtest_add_func("/vdxg/paging/transfer-page-runs",
                   test_pg_transfer_page_runs);
    qtest_add_func("/vdxg/paging/fill", test_pg_fill);
    qtest_add_func("/vdxg/paging/discard", test_pg_discard);
    qtest_add_func("/vdxg/paging/physical", test_pg_physical);
    qtest_add_func("/vdxg/paging/multipass", test_pg_multipass);
    qtest_add_func("/vdxg/paging/first-touch", test_pg_first_touch);
    qtest_add_func("/vdxg/paging/pass-gaps", test_pg_pass_gaps);
    qtest_add_func("/vdxg/paging/pause", test_pg_pause);
    qtest_add_func("/vdxg/paging/reset", test_pg_reset);
    qtest_add_func("/vdxg/paging/bad-ring", test_pg_bad_ring);
    qtest_add_func("/vdxg/paging/fault-count", test_pg_fault_count);
    qtest_add_func("/vdxg/paging/migration", test_pg_migration);
    qtest_add_func("/vdxg/paging/fuzz", test_pg_fuzz);
    for (i = 0; i < ARRAY_SIZE(pg_fault_cases); i++) {
        g_autofree char *path = g_strdup_printf("/vdxg/paging/fault/%s",
                                                pg_fault_cases[i].name);
        qtest_add_data_func(path, &pg_fault_cases[i], test_pg_fault);
    }
}
