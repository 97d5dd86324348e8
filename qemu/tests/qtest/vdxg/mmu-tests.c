/*
 * QTest testcases for the vdxg virtual GPU: GPU virtual memory (the GPU
 * MMU, its registers and the paging operations 0x0a to 0x11)
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "vdxg-test.h"

/* VRAM layout, above the paging layout (below 1 MiB) and PG_DATA */
#define MM_AS_TABLE         0x200000ull
#define MM_TBL(n)           (0x210000ull + (uint64_t)(n) * PG_PAGE)
#define MM_PAGE(n)          (0x300000ull + (uint64_t)(n) * PG_PAGE)
#define MM_LARGE            0x400000ull     /* a 2 MiB page */
#define MM_BIG              0x1000000ull    /* 8 MiB behind 2048 pages */
#define MM_BIG_COPY         0x800000ull     /* 8 MiB */

/* The tables of address space @as: root MM_TBL(4 * as), then levels 2..0 */
#define MM_L(as, level)     MM_TBL(4 * (as) + 3 - (level))

/* Entries */
#define DIR(a)              ((uint64_t)(a) | VDXG_PTE_VALID)
#define VRAM_PTE(a)         ((uint64_t)(a) | VDXG_PTE_VALID | \
                             VDXG_PTE_SEGMENT(VDXG_PTE_SEGMENT_VRAM))
#define SYS_PTE(a)          ((uint64_t)(a) | VDXG_PTE_VALID | \
                             VDXG_PTE_SEGMENT(VDXG_PTE_SEGMENT_SYSTEM))
#define ZERO_PTE            (VDXG_PTE_VALID | VDXG_PTE_ZERO)

/* A virtual address with level-1 index @i1 and level-0 index @i0 */
#define VA(i1, i0)          (((uint64_t)(i1) << 21) | ((uint64_t)(i0) << 12))

static uint32_t le32(const uint8_t *b)
{
    return (uint32_t)ldl_le_p(b);
}

static void vram_writeq(Pg *p, uint64_t off, uint64_t val)
{
    qtest_writeq(p->v.qts, p->vram.addr + off, val);
}

/* Change a table entry and flush every cached translation */
static void mm_set(Pg *p, uint64_t off, uint64_t val)
{
    vram_writeq(p, off, val);
    wr(&p->v, VDXG_REG_VM_TLB_FLUSH, VDXG_VM_FLUSH_ALL);
}

/* Turn the MMU on with an AS table of @entries entries at MM_AS_TABLE. */
static void mm_enable(Pg *p, uint32_t entries)
{
    wr64(&p->v, VDXG_REG_VM_TABLE_LO, MM_AS_TABLE);
    wr(&p->v, VDXG_REG_VM_TABLE_ENTRIES, entries);
    wr(&p->v, VDXG_REG_VM_CTRL, VDXG_VM_CTRL_ENABLE);
}

/*
 * Address space @as, with the CPU: its AS entry and the directory entries
 * for level-3 and level-2 index 0, and level-1 index 0 to level 0.
 */
static void mm_as(Pg *p, uint32_t as)
{
    vram_writeq(p, MM_AS_TABLE + as * 16, MM_L(as, 3) | VDXG_VM_AS_VALID);
    vram_writeq(p, MM_AS_TABLE + as * 16 + 8, 0);
    vram_writeq(p, MM_L(as, 3), DIR(MM_L(as, 2)));
    vram_writeq(p, MM_L(as, 2), DIR(MM_L(as, 1)));
    vram_writeq(p, MM_L(as, 1), DIR(MM_L(as, 0)));
}

static Pg *mm_start(void)
{
    Pg *p = pg_start(NULL);

    mm_enable(p, 4);
    mm_as(p, 0);
    return p;
}

/* Read @len bytes at @va of @as, through TRANSFER_VIRTUAL to PG_PEEK. */
static void virt_peek(Pg *p, uint32_t as, uint64_t va, void *buf,
                      uint32_t len)
{
    pb_reset(p);
    emit_xfer_virt(p, as, VDXG_PG_XV_DST_PHYS, len, va, PG_PEEK);
    pb_run(p);
    vram_read(p, PG_PEEK, buf, len);
}

static uint32_t virt_peekl(Pg *p, uint32_t as, uint64_t va)
{
    uint32_t val;

    virt_peek(p, as, va, &val, 4);
    return le32_to_cpu(val);
}

/*
 * The buffer built so far, whose last operation starts at byte @op_off,
 * faults with @reason at @addr; for VM faults also with @as and @access.
 * The engine recovers (pg_expect_fault), and FAULT_CLEAR cleared
 * FAULT_VM and FAULT_ACCESS.
 */
static void mm_fault(Pg *p, uint32_t op_off, uint32_t reason, uint64_t addr,
                     uint32_t as, uint32_t access)
{
    uint32_t opcode = p->buf[op_off / 4] & 0xffff;
    uint64_t op_addr;

    pb_queue(p);
    op_addr = p->buf_gpu + op_off;
    ring_kick(p);
    g_assert_cmphex(pg_wait(p) & VDXG_ENG_STATUS_HALTED, !=, 0);
    g_assert_cmpuint(rd(&p->v, VDXG_REG_FAULT_REASON), ==, reason);
    if (reason >= VDXG_FAULT_VM_NOT_PRESENT) {
        g_assert_cmpuint(rd(&p->v, VDXG_REG_FAULT_VM), ==, as);
        g_assert_cmpuint(rd(&p->v, VDXG_REG_FAULT_ACCESS), ==, access);
    } else {
        g_assert_cmpuint(rd(&p->v, VDXG_REG_FAULT_VM), ==, 0);
        g_assert_cmpuint(rd(&p->v, VDXG_REG_FAULT_ACCESS), ==, 0);
    }
    pg_expect_fault(p, reason, opcode, addr == UINT64_MAX ? op_addr : addr,
                    PG_CONTEXT);
    g_assert_cmpuint(rd(&p->v, VDXG_REG_FAULT_VM), ==, 0);
    g_assert_cmpuint(rd(&p->v, VDXG_REG_FAULT_ACCESS), ==, 0);
    pb_reset(p);
}

/* The operation's own address as FAULT_ADDR */
#define AT_OP               UINT64_MAX

/*
 * address-spaces=8: VM_SPACES says 8, VM_TABLE_ENTRIES takes no more, and
 * address space 7 translates while 8 is not present.
 */
static void test_mmu_address_spaces(void)
{
    Pg *p = pg_start("address-spaces=8");

    g_assert_cmpuint(rd(&p->v, VDXG_REG_VM_SPACES), ==, 8);
    mm_enable(p, 9);
    g_assert_cmpuint(rd(&p->v, VDXG_REG_VM_TABLE_ENTRIES), ==, 0);
    mm_enable(p, 8);
    g_assert_cmpuint(rd(&p->v, VDXG_REG_VM_TABLE_ENTRIES), ==, 8);

    mm_as(p, 7);
    vram_writeq(p, MM_L(7, 0), VRAM_PTE(MM_PAGE(0)));
    emit_fill_virt(p, 7, 0x40, 16, 0x7a7a7a7a);
    pb_run(p);
    g_assert_cmphex(vram_readl(p, MM_PAGE(0) + 0x40), ==, 0x7a7a7a7a);
    g_assert_cmphex(virt_peekl(p, 7, 0x4c), ==, 0x7a7a7a7a);

    pb_reset(p);
    emit_fill_virt(p, 8, 0, 4, 0);
    mm_fault(p, 0, VDXG_FAULT_VM_NOT_PRESENT, 0, 8, VDXG_ACCESS_WRITE);
    pg_stop(p);
}

/* Registers */

static void test_mmu_registers(void)
{
    Pg *p = pg_start(NULL);
    Vdxg *v = &p->v;

    g_assert_cmphex(rd(v, VDXG_REG_CAPS) & VDXG_CAP_GPU_MMU, ==,
                    VDXG_CAP_GPU_MMU);
    g_assert_cmphex(rd64(v, VDXG_REG_VM_TABLE_LO), ==, 0);
    g_assert_cmpuint(rd(v, VDXG_REG_VM_TABLE_ENTRIES), ==, 0);
    g_assert_cmpuint(rd(v, VDXG_REG_VM_CTRL), ==, 0);

    wr64(v, VDXG_REG_VM_TABLE_LO, MM_AS_TABLE);
    g_assert_cmphex(rd64(v, VDXG_REG_VM_TABLE_LO), ==, MM_AS_TABLE);
    /* Not page aligned, or outside VRAM: ignored */
    wr(v, VDXG_REG_VM_TABLE_LO, MM_AS_TABLE + 0x10);
    wr(v, VDXG_REG_VM_TABLE_HI, 1);
    g_assert_cmphex(rd64(v, VDXG_REG_VM_TABLE_LO), ==, MM_AS_TABLE);
    g_assert_cmpuint(rd(v, VDXG_REG_VM_SPACES), ==, VDXG_VM_MAX_AS);
    wr(v, VDXG_REG_VM_SPACES, 8);
    g_assert_cmpuint(rd(v, VDXG_REG_VM_SPACES), ==, VDXG_VM_MAX_AS);
    wr(v, VDXG_REG_VM_TABLE_ENTRIES, VDXG_VM_MAX_AS);
    g_assert_cmpuint(rd(v, VDXG_REG_VM_TABLE_ENTRIES), ==, VDXG_VM_MAX_AS);
    wr(v, VDXG_REG_VM_TABLE_ENTRIES, VDXG_VM_MAX_AS + 1);
    g_assert_cmpuint(rd(v, VDXG_REG_VM_TABLE_ENTRIES), ==, VDXG_VM_MAX_AS);
    /* 256 entries fit in VRAM's last page, not one page further on */
    wr(v, VDXG_REG_VM_TABLE_LO, PG_VRAM_SIZE - PG_PAGE);
    g_assert_cmphex(rd64(v, VDXG_REG_VM_TABLE_LO), ==, PG_VRAM_SIZE - PG_PAGE);
    wr(v, VDXG_REG_VM_TABLE_LO, PG_VRAM_SIZE);
    g_assert_cmphex(rd64(v, VDXG_REG_VM_TABLE_LO), ==, PG_VRAM_SIZE - PG_PAGE);

    wr(v, VDXG_REG_VM_CTRL, 0xffffffff);
    g_assert_cmphex(rd(v, VDXG_REG_VM_CTRL), ==, VDXG_VM_CTRL_ENABLE);
    g_assert_cmphex(rd(v, VDXG_REG_VM_TLB_FLUSH), ==, 0);
    wr(v, VDXG_REG_VM_RES_SELECT, 255);
    g_assert_cmpuint(rd(v, VDXG_REG_VM_RES_SELECT), ==, 255);
    wr(v, VDXG_REG_VM_RES_SELECT, 256);
    g_assert_cmpuint(rd(v, VDXG_REG_VM_RES_SELECT), ==, 255);
    /* Read-only */
    wr(v, VDXG_REG_VM_RES_RESIDENT, 5);
    wr(v, VDXG_REG_VM_RES_EVICTED, 5);
    wr(v, VDXG_REG_FAULT_VM, 5);
    wr(v, VDXG_REG_FAULT_ACCESS, 1);
    g_assert_cmpuint(rd(v, VDXG_REG_VM_RES_RESIDENT), ==, 0);
    g_assert_cmpuint(rd(v, VDXG_REG_VM_RES_EVICTED), ==, 0);
    g_assert_cmpuint(rd(v, VDXG_REG_FAULT_VM), ==, 0);
    g_assert_cmpuint(rd(v, VDXG_REG_FAULT_ACCESS), ==, 0);

    /* Counters, and a soft reset clears everything */
    pb_reset(p);
    emit_notify_res(p, 255, 0, 7);
    pb_run(p);
    g_assert_cmpuint(rd(v, VDXG_REG_VM_RES_RESIDENT), ==, 7);
    wr(v, VDXG_REG_RESET, VDXG_RESET_MAGIC);
    g_assert_cmphex(rd64(v, VDXG_REG_VM_TABLE_LO), ==, 0);
    g_assert_cmpuint(rd(v, VDXG_REG_VM_TABLE_ENTRIES), ==, 0);
    g_assert_cmpuint(rd(v, VDXG_REG_VM_CTRL), ==, 0);
    g_assert_cmpuint(rd(v, VDXG_REG_VM_RES_SELECT), ==, 0);
    wr(v, VDXG_REG_VM_RES_SELECT, 255);
    g_assert_cmpuint(rd(v, VDXG_REG_VM_RES_RESIDENT), ==, 0);
    pg_stop(p);
}

/* UPDATE_PAGE_TABLE and COPY_PAGE_TABLE_ENTRIES */

static void test_mmu_update_page_table(void)
{
    Pg *p = pg_start(NULL);
    uint64_t ptes[512];
    uint32_t i, off;

    for (i = 0; i < ARRAY_SIZE(ptes); i++) {
        ptes[i] = VRAM_PTE(MM_PAGE(i)) ^ ((uint64_t)i << 48);
    }
    /* All 512, written as given (checked only by walks) */
    pb_reset(p);
    emit_upt(p, MM_TBL(0), 0, ptes, 512);
    pb_run(p);
    for (i = 0; i < 512; i += 37) {
        g_assert_cmphex(vram_readq(p, MM_TBL(0) + i * 8), ==, ptes[i]);
    }
    g_assert_cmphex(vram_readq(p, MM_TBL(0) + 511 * 8), ==, ptes[511]);
    g_assert_cmpuint(qom_get_u64(p, "x-pg-update-page-table-ops"), ==, 1);

    /* A few in the middle, count 0, and GENERATE */
    vram_writeq(p, MM_TBL(1) + 9 * 8, 0x1111);
    vram_writeq(p, MM_TBL(1) + 13 * 8, 0x2222);
    pb_reset(p);
    emit_upt(p, MM_TBL(1), 10, ptes, 3);
    emit_upt(p, MM_TBL(1), 0, NULL, 0);
    emit_upt_gen(p, MM_TBL(2), 500, 12, SYS_PTE(0x123456000ull), 0x3000);
    pb_run(p);
    g_assert_cmphex(vram_readq(p, MM_TBL(1) + 9 * 8), ==, 0x1111);
    g_assert_cmphex(vram_readq(p, MM_TBL(1) + 10 * 8), ==, ptes[0]);
    g_assert_cmphex(vram_readq(p, MM_TBL(1) + 12 * 8), ==, ptes[2]);
    g_assert_cmphex(vram_readq(p, MM_TBL(1) + 13 * 8), ==, 0x2222);
    g_assert_cmphex(vram_readq(p, MM_TBL(2) + 499 * 8), ==, 0);
    for (i = 0; i < 12; i++) {
        g_assert_cmphex(vram_readq(p, MM_TBL(2) + (500 + i) * 8), ==,
                        SYS_PTE(0x123456000ull + i * 0x3000ull));
    }

    /* COPY_PAGE_TABLE_ENTRIES, and overlapping both ways */
    pb_reset(p);
    emit_copy_ptes(p, MM_TBL(0), 100, MM_TBL(3), 0, 412);
    pb_run(p);
    g_assert_cmphex(vram_readq(p, MM_TBL(3)), ==, ptes[100]);
    g_assert_cmphex(vram_readq(p, MM_TBL(3) + 411 * 8), ==, ptes[511]);
    pb_reset(p);
    emit_copy_ptes(p, MM_TBL(0), 0, MM_TBL(0), 1, 511);
    pb_run(p);
    for (i = 1; i < 512; i += 51) {
        g_assert_cmphex(vram_readq(p, MM_TBL(0) + i * 8), ==, ptes[i - 1]);
    }
    pb_reset(p);
    emit_copy_ptes(p, MM_TBL(3), 1, MM_TBL(3), 0, 411);
    pb_run(p);
    g_assert_cmphex(vram_readq(p, MM_TBL(3)), ==, ptes[101]);
    g_assert_cmphex(vram_readq(p, MM_TBL(3) + 410 * 8), ==, ptes[511]);
    g_assert_cmphex(vram_readq(p, MM_TBL(3) + 411 * 8), ==, ptes[511]);
    g_assert_cmpuint(qom_get_u64(p, "x-pg-copy-page-table-entries-ops"), ==,
                     3);

    /* Errors: BOUNDS, PARAM, ADDRESS, LENGTH */
    pb_reset(p);
    emit_upt(p, MM_TBL(1), 510, ptes, 3);
    mm_fault(p, 0, VDXG_FAULT_BOUNDS, AT_OP, 0, 0);
    g_assert_cmphex(vram_readq(p, MM_TBL(1) + 510 * 8), ==, 0);
    emit_upt(p, MM_TBL(1) + 8, 0, ptes, 1);
    mm_fault(p, 0, VDXG_FAULT_PARAM, AT_OP, 0, 0);
    emit_upt(p, PG_VRAM_SIZE, 0, ptes, 1);
    mm_fault(p, 0, VDXG_FAULT_ADDRESS, PG_VRAM_SIZE, 0, 0);
    emit_upt_gen(p, MM_TBL(1), 0, 1, 0, 0x800);
    mm_fault(p, 0, VDXG_FAULT_PARAM, AT_OP, 0, 0);
    emit_upt(p, MM_TBL(1), 0, ptes, 1);
    p->buf[VDXG_PG_UPT_DW_FLAGS] = 2;
    mm_fault(p, 0, VDXG_FAULT_PARAM, AT_OP, 0, 0);
    emit_nop(p);
    off = pb_off(p);
    emit_upt(p, MM_TBL(1), 0, ptes, 2);
    p->buf[off / 4 + VDXG_PG_UPT_DW_COUNT] = 3;
    mm_fault(p, off, VDXG_FAULT_LENGTH, AT_OP, 0, 0);
    emit_upt_gen(p, MM_TBL(1), 0, 1, 0, 0x1000);
    p->buf[0] = VDXG_PG_HDR(VDXG_PG_UPDATE_PAGE_TABLE, 12);
    pb_dw(p, 0);
    pb_dw(p, 0);
    mm_fault(p, 0, VDXG_FAULT_LENGTH, AT_OP, 0, 0);
    emit_copy_ptes(p, MM_TBL(0), 1, MM_TBL(1), 0, 512);
    mm_fault(p, 0, VDXG_FAULT_BOUNDS, AT_OP, 0, 0);
    emit_copy_ptes(p, MM_TBL(0), 0, MM_TBL(1), 511, 2);
    mm_fault(p, 0, VDXG_FAULT_BOUNDS, AT_OP, 0, 0);
    emit_copy_ptes(p, MM_TBL(0) + 8, 0, MM_TBL(1), 0, 1);
    mm_fault(p, 0, VDXG_FAULT_PARAM, AT_OP, 0, 0);
    emit_copy_ptes(p, MM_TBL(0), 0, PG_VRAM_SIZE, 0, 1);
    mm_fault(p, 0, VDXG_FAULT_ADDRESS, PG_VRAM_SIZE, 0, 0);
    pg_stop(p);
}

/* Every entry kind, read and written through TRANSFER/FILL_VIRTUAL */
static void test_mmu_entry_kinds(void)
{
    Pg *p = mm_start();
    uint8_t a[PG_PAGE * 2], b[PG_PAGE * 2], z[PG_PAGE];
    uint64_t ptes[5] = {
        VRAM_PTE(MM_PAGE(0)),
        SYS_PTE(SYS_PAGE(10)),
        ZERO_PTE | MM_PAGE(2),
        VRAM_PTE(MM_PAGE(3)) | VDXG_PTE_READ_ONLY,
        VRAM_PTE(MM_PAGE(4)) | VDXG_PTE_NO_EXEC | VDXG_PTE_COHERENT,
    };
    uint64_t large = VRAM_PTE(MM_LARGE) | VDXG_PTE_LARGE;
    uint32_t i;

    pb_reset(p);
    emit_upt(p, MM_L(0, 0), 0, ptes, ARRAY_SIZE(ptes));
    emit_upt(p, MM_L(0, 1), 1, &large, 1);
    pb_run(p);

    fill_bytes(a, sizeof(a), 1);
    vram_write(p, MM_PAGE(0), a, PG_PAGE);
    sys_write(p, SYS_PAGE(10), a + PG_PAGE, PG_PAGE);
    fill_bytes(b, sizeof(b), 2);
    vram_write(p, MM_PAGE(2), b, PG_PAGE);      /* behind the null page */
    vram_write(p, MM_PAGE(3), b, PG_PAGE);
    vram_write(p, MM_PAGE(4), b + PG_PAGE, PG_PAGE);
    vram_write(p, MM_LARGE + 0x1ff000, b, PG_PAGE);

    /* Reads: a VRAM page and a system page in one transfer */
    memset(z, 0, sizeof(z));
    {
        uint8_t got[PG_PAGE * 2];

        virt_peek(p, 0, VA(0, 0), got, sizeof(got));
        assert_bytes(got, a, sizeof(got));
        virt_peek(p, 0, VA(0, 0) + 0xff8, got, 16);
        assert_bytes(got, a + 0xff8, 16);
        /* the null page reads zeros, not the page its address names */
        vram_write(p, PG_PEEK, b, PG_PAGE);
        virt_peek(p, 0, VA(0, 2), got, PG_PAGE);
        assert_bytes(got, z, PG_PAGE);
        /* read-only and no-exec pages read */
        virt_peek(p, 0, VA(0, 3), got, PG_PAGE);
        assert_bytes(got, b, PG_PAGE);
        virt_peek(p, 0, VA(0, 4), got, PG_PAGE);
        assert_bytes(got, b + PG_PAGE, PG_PAGE);
        /* the last page of the 2 MiB page */
        virt_peek(p, 0, VA(1, 511), got, PG_PAGE);
        assert_bytes(got, b, PG_PAGE);
    }

    /* Writes */
    pb_reset(p);
    emit_fill_virt(p, 0, VA(0, 0) + 0xffc, 8, 0x600dcafe);  /* VRAM, sys */
    emit_fill_virt(p, 0, VA(0, 2), PG_PAGE, 0xdeadbeef);    /* dropped */
    emit_fill_virt(p, 0, VA(0, 4) + 16, 16, 0x0e0e0e0e);    /* no-exec */
    emit_fill_virt(p, 0, VA(1, 5) + 0x10, 0x40, 0x12345678);
    emit_xfer_virt(p, 0, 0, 64, VA(0, 0), VA(1, 300));      /* virt-virt */
    emit_xfer_virt(p, 0, VDXG_PG_XV_SRC_PHYS, 8, PG_FENCE2, VA(0, 1) + 8);
    emit_xfer_virt(p, 0, 0, 32, VA(0, 2), VA(0, 0) + 64);   /* zeros */
    vram_writeq(p, PG_FENCE2, 0x0102030405060708ull);
    pb_run(p);
    g_assert_cmphex(vram_readl(p, MM_PAGE(0) + 0xffc), ==, 0x600dcafe);
    {
        uint32_t w;

        sys_read(p, SYS_PAGE(10), &w, 4);
        g_assert_cmphex(le32_to_cpu(w), ==, 0x600dcafe);
        sys_read(p, SYS_PAGE(10) + 4, &w, 4);
        g_assert_cmphex(le32_to_cpu(w), ==, le32(a + PG_PAGE + 4));
        sys_read(p, SYS_PAGE(10) + 8, &w, 4);
        g_assert_cmphex(le32_to_cpu(w), ==, 0x05060708);
    }
    for (i = 0; i < PG_PAGE; i += 4) {
        g_assert_cmphex(vram_readl(p, MM_PAGE(2) + i), ==, le32(b + i));
    }
    g_assert_cmphex(vram_readl(p, MM_PAGE(4) + 12), ==,
                    le32(b + PG_PAGE + 12));
    g_assert_cmphex(vram_readl(p, MM_PAGE(4) + 16), ==, 0x0e0e0e0e);
    g_assert_cmphex(vram_readl(p, MM_PAGE(4) + 28), ==, 0x0e0e0e0e);
    g_assert_cmphex(vram_readl(p, MM_PAGE(4) + 32), ==,
                    le32(b + PG_PAGE + 32));
    g_assert_cmphex(vram_readl(p, MM_LARGE + 5 * PG_PAGE + 0xc), !=,
                    0x12345678);
    g_assert_cmphex(vram_readl(p, MM_LARGE + 5 * PG_PAGE + 0x10), ==,
                    0x12345678);
    g_assert_cmphex(vram_readl(p, MM_LARGE + 5 * PG_PAGE + 0x4c), ==,
                    0x12345678);
    g_assert_cmphex(vram_readl(p, MM_LARGE + 5 * PG_PAGE + 0x50), ==, 0);
    g_assert_cmphex(vram_readl(p, MM_LARGE + 300 * PG_PAGE + 60), ==,
                    le32(a + 60));
    g_assert_cmphex(vram_readl(p, MM_PAGE(0) + 60), ==, le32(a + 60));
    g_assert_cmphex(vram_readl(p, MM_PAGE(0) + 64), ==, 0);
    g_assert_cmphex(vram_readl(p, MM_PAGE(0) + 92), ==, 0);
    g_assert_cmphex(vram_readl(p, MM_PAGE(0) + 96), ==, le32(a + 96));
    g_assert_cmpuint(qom_get_u64(p, "x-pg-fill-virtual-ops"), ==, 4);
    g_assert_cmpuint(qom_get_u64(p, "x-pg-transfer-virtual-ops"), >=, 3);
    pg_stop(p);
}

/* Each fault, with its address, address space and access */
static void test_mmu_faults(void)
{
    Pg *p = mm_start();
    uint64_t ptes[] = {
        VRAM_PTE(MM_PAGE(0)),
        VRAM_PTE(MM_PAGE(1)) | VDXG_PTE_READ_ONLY,
        VRAM_PTE(MM_PAGE(2)) | BIT_ULL(11),
        ZERO_PTE | VDXG_PTE_READ_ONLY,
        VRAM_PTE(MM_PAGE(4)),
        0,
        SYS_PTE(1ull << 47),            /* nothing decodes it */
    };
    uint32_t off;

    pb_reset(p);
    emit_upt(p, MM_L(0, 0), 0, ptes, ARRAY_SIZE(ptes));
    pb_run(p);
    /* AS 1: an invalid entry; AS 2: usable */
    mm_as(p, 2);
    vram_writeq(p, MM_L(2, 0), VRAM_PTE(MM_PAGE(0)));

    /* Not present: an invalid leaf, on a read */
    emit_nop(p);
    off = pb_off(p);
    emit_xfer_virt(p, 0, VDXG_PG_XV_DST_PHYS, 16, VA(0, 5) + 8, PG_PEEK);
    mm_fault(p, off, VDXG_FAULT_VM_NOT_PRESENT, VA(0, 5) + 8, 0,
             VDXG_ACCESS_READ);
    /* ... an invalid directory entry, on a write */
    emit_fill_virt(p, 0, VA(7, 0), 4, 0);
    mm_fault(p, 0, VDXG_FAULT_VM_NOT_PRESENT, VA(7, 0), 0,
             VDXG_ACCESS_WRITE);
    /* ... at or above 2^48 */
    emit_fill_virt(p, 0, 1ull << 48, 4, 0);
    mm_fault(p, 0, VDXG_FAULT_VM_NOT_PRESENT, 1ull << 48, 0,
             VDXG_ACCESS_WRITE);
    /* ... an address space whose entry is invalid, or past ENTRIES */
    emit_xfer_virt(p, 1, VDXG_PG_XV_DST_PHYS, 4, 0, PG_PEEK);
    mm_fault(p, 0, VDXG_FAULT_VM_NOT_PRESENT, 0, 1, VDXG_ACCESS_READ);
    emit_xfer_virt(p, 4, VDXG_PG_XV_DST_PHYS, 4, 0, PG_PEEK);
    mm_fault(p, 0, VDXG_FAULT_VM_NOT_PRESENT, 0, 4, VDXG_ACCESS_READ);
    /* ... or with the MMU off */
    wr(&p->v, VDXG_REG_VM_CTRL, 0);
    emit_xfer_virt(p, 2, VDXG_PG_XV_DST_PHYS, 4, 0, PG_PEEK);
    mm_fault(p, 0, VDXG_FAULT_VM_NOT_PRESENT, 0, 2, VDXG_ACCESS_READ);
    wr(&p->v, VDXG_REG_VM_CTRL, VDXG_VM_CTRL_ENABLE);
    g_assert_cmphex(virt_peekl(p, 2, 0), ==, vram_readl(p, MM_PAGE(0)));

    /* Read-only, as a TRANSFER's destination; a read-only null page */
    emit_xfer_virt(p, 0, VDXG_PG_XV_SRC_PHYS, 8, PG_DATA, VA(0, 1) + 0x20);
    mm_fault(p, 0, VDXG_FAULT_VM_READ_ONLY, VA(0, 1) + 0x20, 0,
             VDXG_ACCESS_WRITE);
    emit_fill_virt(p, 0, VA(0, 3), 4, 0);
    mm_fault(p, 0, VDXG_FAULT_VM_READ_ONLY, VA(0, 3), 0, VDXG_ACCESS_WRITE);
    /* Bad table: a reserved bit in the leaf */
    emit_xfer_virt(p, 0, VDXG_PG_XV_DST_PHYS, 4, VA(0, 2), PG_PEEK);
    mm_fault(p, 0, VDXG_FAULT_VM_BAD_TABLE, VA(0, 2), 0, VDXG_ACCESS_READ);

    /* The pages before the failing one are done */
    vram_writel(p, MM_PAGE(4) + 0x7fc, 0x5a5a5a5a);
    emit_fill_virt(p, 2, VA(0, 0) + 0x800, 0x1000, 0xaaaa5555);
    mm_fault(p, 0, VDXG_FAULT_VM_NOT_PRESENT, VA(0, 1), 2,
             VDXG_ACCESS_WRITE);
    g_assert_cmphex(vram_readl(p, MM_PAGE(0) + 0x800), ==, 0xaaaa5555);
    g_assert_cmphex(vram_readl(p, MM_PAGE(0) + 0xffc), ==, 0xaaaa5555);
    emit_fill_virt(p, 0, VA(0, 4) + 0x800, 0x1000, 0x33333333);
    mm_fault(p, 0, VDXG_FAULT_VM_NOT_PRESENT, VA(0, 5), 0,
             VDXG_ACCESS_WRITE);
    g_assert_cmphex(vram_readl(p, MM_PAGE(4) + 0x7fc), ==, 0x5a5a5a5a);
    g_assert_cmphex(vram_readl(p, MM_PAGE(4) + 0xffc), ==, 0x33333333);

    /* A system page the bus rejects: ADDRESS at the virtual address */
    emit_fill_virt(p, 0, VA(0, 6) + 4, 4, 0);
    mm_fault(p, 0, VDXG_FAULT_ADDRESS, VA(0, 6) + 4, 0, 0);

    /* Operands: address space past 255, flags, alignment */
    emit_fill_virt(p, 256, 0, 4, 0);
    mm_fault(p, 0, VDXG_FAULT_PARAM, AT_OP, 0, 0);
    emit_fill_virt(p, 0, 2, 4, 0);
    mm_fault(p, 0, VDXG_FAULT_PARAM, AT_OP, 0, 0);
    emit_fill_virt(p, 0, 0, 6, 0);
    mm_fault(p, 0, VDXG_FAULT_PARAM, AT_OP, 0, 0);
    emit_xfer_virt(p, 0, 4, 4, 0, 0);
    mm_fault(p, 0, VDXG_FAULT_PARAM, AT_OP, 0, 0);
    emit_xfer_virt(p, 0, VDXG_PG_XV_SRC_PHYS, 8, GPU_HOLE, 0);
    mm_fault(p, 0, VDXG_FAULT_ADDRESS, GPU_HOLE, 0, 0);
    emit_flush_vm(p, 0, 2, 0, 0);
    mm_fault(p, 0, VDXG_FAULT_PARAM, AT_OP, 0, 0);
    emit_flush_vm(p, 256, 0, 0, 0);
    mm_fault(p, 0, VDXG_FAULT_PARAM, AT_OP, 0, 0);
    emit_xfer_virt(p, 0, 0, 0, 0, 0);
    p->buf[0] = VDXG_PG_HDR(VDXG_PG_TRANSFER_VIRTUAL, 7);
    p->used--;
    mm_fault(p, 0, VDXG_FAULT_LENGTH, AT_OP, 0, 0);
    /* Opcode 0x12 is undefined */
    pb_dw(p, VDXG_PG_HDR(0x12, 1));
    mm_fault(p, 0, VDXG_FAULT_OPCODE, AT_OP, 0, 0);
    pg_stop(p);
}

/* The TLB: stale translations until a flush, per address space, by range */
static void test_mmu_tlb(void)
{
    Pg *p = mm_start();
    uint64_t hits, misses;
    uint32_t i;

    for (i = 0; i < 8; i++) {
        vram_writel(p, MM_PAGE(i), 0xa0 + i);
    }
    /* AS 0's page 0 (slot 0) and AS 1's page 1 (slot 1) */
    mm_as(p, 1);
    vram_writeq(p, MM_L(1, 0) + 8, VRAM_PTE(MM_PAGE(7)));
    vram_writeq(p, MM_L(0, 0), VRAM_PTE(MM_PAGE(0)));
    vram_writeq(p, MM_L(0, 0) + 64 * 8, VRAM_PTE(MM_PAGE(6)));

    misses = qom_get_u64(p, "x-vm-tlb-misses");
    g_assert_cmphex(virt_peekl(p, 0, 0), ==, 0xa0);
    g_assert_cmpuint(qom_get_u64(p, "x-vm-tlb-misses"), ==, misses + 1);
    /* Changed without a flush: the cached translation is used */
    vram_writeq(p, MM_L(0, 0), VRAM_PTE(MM_PAGE(1)));
    hits = qom_get_u64(p, "x-vm-tlb-hits");
    g_assert_cmphex(virt_peekl(p, 0, 0), ==, 0xa0);
    g_assert_cmpuint(qom_get_u64(p, "x-vm-tlb-hits"), ==, hits + 1);
    /* Another space's flush, ranges that miss the page: still cached */
    pb_reset(p);
    emit_flush_vm(p, 1, 0, 0, 0);
    emit_flush_vm(p, 0, VDXG_PG_FLUSH_RANGE, VA(0, 1), 0x100000);
    emit_flush_vm(p, 0, VDXG_PG_FLUSH_RANGE, 0, 0);
    pb_run(p);
    g_assert_cmphex(virt_peekl(p, 0, 0), ==, 0xa0);
    g_assert_cmphex(virt_peekl(p, 1, VA(0, 1)), ==, 0xa7);
    vram_writeq(p, MM_L(1, 0) + 8, VRAM_PTE(MM_PAGE(5)));
    /* A range whose last byte is in the page */
    pb_reset(p);
    emit_flush_vm(p, 0, VDXG_PG_FLUSH_RANGE, 0xfff, 1);
    pb_run(p);
    g_assert_cmphex(virt_peekl(p, 0, 0), ==, 0xa1);
    g_assert_cmphex(virt_peekl(p, 1, VA(0, 1)), ==, 0xa7);
    /* The whole space, and only it */
    vram_writeq(p, MM_L(0, 0), VRAM_PTE(MM_PAGE(2)));
    pb_reset(p);
    emit_flush_vm(p, 0, 0, 0, 0);
    pb_run(p);
    g_assert_cmphex(virt_peekl(p, 0, 0), ==, 0xa2);
    g_assert_cmphex(virt_peekl(p, 1, VA(0, 1)), ==, 0xa7);
    /* VM_TLB_FLUSH: one space, no space, all */
    vram_writeq(p, MM_L(0, 0), VRAM_PTE(MM_PAGE(3)));
    wr(&p->v, VDXG_REG_VM_TLB_FLUSH, 1);
    g_assert_cmphex(virt_peekl(p, 1, VA(0, 1)), ==, 0xa5);
    g_assert_cmphex(virt_peekl(p, 0, 0), ==, 0xa2);
    wr(&p->v, VDXG_REG_VM_TLB_FLUSH, 1000);
    g_assert_cmphex(virt_peekl(p, 0, 0), ==, 0xa2);
    wr(&p->v, VDXG_REG_VM_TLB_FLUSH, VDXG_VM_FLUSH_ALL);
    g_assert_cmphex(virt_peekl(p, 0, 0), ==, 0xa3);
    /* VM_CTRL and UPDATE_CONTEXT_ALLOCATION flush */
    vram_writeq(p, MM_L(0, 0), VRAM_PTE(MM_PAGE(0)));
    wr(&p->v, VDXG_REG_VM_CTRL, VDXG_VM_CTRL_ENABLE);
    g_assert_cmphex(virt_peekl(p, 0, 0), ==, 0xa0);
    vram_writeq(p, MM_L(0, 0), VRAM_PTE(MM_PAGE(1)));
    pb_reset(p);
    emit_uca(p, 0, MM_L(0, 3) | VDXG_VM_AS_VALID);
    pb_run(p);
    g_assert_cmphex(virt_peekl(p, 0, 0), ==, 0xa1);
    /* Direct-mapped: page 64 takes page 0's slot */
    vram_writeq(p, MM_L(0, 0), VRAM_PTE(MM_PAGE(2)));
    g_assert_cmphex(virt_peekl(p, 0, 0), ==, 0xa1);
    g_assert_cmphex(virt_peekl(p, 0, VA(0, 64)), ==, 0xa6);
    g_assert_cmphex(virt_peekl(p, 0, 0), ==, 0xa2);
    /* Directory entries are not cached: a new level-0 table is walked */
    vram_writeq(p, MM_TBL(20), VRAM_PTE(MM_PAGE(3)));
    vram_writeq(p, MM_TBL(20) + 5 * 8, VRAM_PTE(MM_PAGE(4)));
    vram_writeq(p, MM_L(0, 1), DIR(MM_TBL(20)));
    g_assert_cmphex(virt_peekl(p, 0, VA(0, 5)), ==, 0xa4);
    g_assert_cmphex(virt_peekl(p, 0, 0), ==, 0xa2);
    wr(&p->v, VDXG_REG_VM_TLB_FLUSH, 0);
    g_assert_cmphex(virt_peekl(p, 0, 0), ==, 0xa3);
    g_assert_cmpuint(qom_get_u64(p, "x-pg-flush-vm-tlb-ops"), ==, 5);
    pg_stop(p);
}

/* Two address spaces do not see each other's pages. */
static void test_mmu_isolation(void)
{
    Pg *p = mm_start();
    uint8_t got[64], want[64];

    mm_as(p, 1);
    vram_writeq(p, MM_L(0, 0), VRAM_PTE(MM_PAGE(0)));
    vram_writeq(p, MM_L(1, 0), VRAM_PTE(MM_PAGE(1)));
    vram_writeq(p, MM_L(1, 0) + 8, VRAM_PTE(MM_PAGE(2)));

    pb_reset(p);
    emit_fill_virt(p, 0, 0, PG_PAGE, 0x00000000);
    emit_fill_virt(p, 1, 0, PG_PAGE, 0x11111111);
    emit_fill_virt(p, 1, PG_PAGE, PG_PAGE, 0x22222222);
    pb_run(p);
    g_assert_cmphex(vram_readl(p, MM_PAGE(0) + 0xffc), ==, 0);
    g_assert_cmphex(vram_readl(p, MM_PAGE(1) + 0xffc), ==, 0x11111111);
    g_assert_cmphex(virt_peekl(p, 0, 0x40), ==, 0);
    g_assert_cmphex(virt_peekl(p, 1, 0x40), ==, 0x11111111);
    /* AS 0 has no second page: a fault in AS 0, AS 1's pages intact */
    pb_reset(p);
    emit_fill_virt(p, 0, PG_PAGE, 4, 0x99999999);
    mm_fault(p, 0, VDXG_FAULT_VM_NOT_PRESENT, PG_PAGE, 0, VDXG_ACCESS_WRITE);
    g_assert_cmphex(vram_readl(p, MM_PAGE(2)), ==, 0x22222222);
    /* A copy from AS 1 to AS 0 through a physical bounce */
    pb_reset(p);
    emit_xfer_virt(p, 1, VDXG_PG_XV_DST_PHYS, 64, PG_PAGE, PG_DATA);
    emit_xfer_virt(p, 0, VDXG_PG_XV_SRC_PHYS, 64, PG_DATA, 0x100);
    pb_run(p);
    memset(want, 0x22, sizeof(want));
    vram_read(p, MM_PAGE(0) + 0x100, got, sizeof(got));
    assert_bytes(got, want, sizeof(got));
    g_assert_cmphex(vram_readl(p, MM_PAGE(1) + 0x100), ==, 0x11111111);
    pg_stop(p);
}

/* Malicious tables fault or end, without hanging */
static void test_mmu_malicious(void)
{
    Pg *p = mm_start();
    uint8_t got[64], want[64];

    /* The root names itself: read as level 2, 1 and 0 it is a leaf */
    mm_set(p, MM_L(0, 3), DIR(MM_L(0, 3)));
    virt_peek(p, 0, 0x20, got, sizeof(got));
    sys_read(p, MM_L(0, 3) + 0x20, want, sizeof(want));
    assert_bytes(got, want, sizeof(got));
    /* Two tables naming each other */
    mm_set(p, MM_L(0, 3), DIR(MM_L(0, 2)));
    mm_set(p, MM_L(0, 2), DIR(MM_L(0, 3)));
    virt_peek(p, 0, 0, got, 4);
    /* A huge fill over such tables ends at the first page they lack */
    pb_reset(p);
    emit_fill_virt(p, 0, 0, 0xfffffffc, 0);
    mm_fault(p, 0, VDXG_FAULT_VM_NOT_PRESENT, VA(0, 1), 0,
             VDXG_ACCESS_WRITE);
    mm_set(p, MM_L(0, 2), DIR(MM_L(0, 1)));

    /* Out-of-range tables, reserved bits, LARGE outside level 1 */
    mm_set(p, MM_L(0, 2), DIR(0x7ffffffff000ull));
    pb_reset(p);
    emit_xfer_virt(p, 0, VDXG_PG_XV_DST_PHYS, 4, 0, PG_PEEK);
    mm_fault(p, 0, VDXG_FAULT_VM_BAD_TABLE, 0, 0, VDXG_ACCESS_READ);
    mm_set(p, MM_L(0, 2), DIR(PG_VRAM_SIZE));
    emit_xfer_virt(p, 0, VDXG_PG_XV_DST_PHYS, 4, 0, PG_PEEK);
    mm_fault(p, 0, VDXG_FAULT_VM_BAD_TABLE, 0, 0, VDXG_ACCESS_READ);
    mm_set(p, MM_L(0, 2), DIR(MM_L(0, 1)) | BIT_ULL(63));
    emit_xfer_virt(p, 0, VDXG_PG_XV_DST_PHYS, 4, 0, PG_PEEK);
    mm_fault(p, 0, VDXG_FAULT_VM_BAD_TABLE, 0, 0, VDXG_ACCESS_READ);
    mm_set(p, MM_L(0, 2), DIR(MM_L(0, 1)) | VDXG_PTE_LARGE);
    emit_xfer_virt(p, 0, VDXG_PG_XV_DST_PHYS, 4, 0, PG_PEEK);
    mm_fault(p, 0, VDXG_FAULT_VM_BAD_TABLE, 0, 0, VDXG_ACCESS_READ);
    mm_set(p, MM_L(0, 2), DIR(MM_L(0, 1)) | VDXG_PTE_READ_ONLY);
    emit_xfer_virt(p, 0, VDXG_PG_XV_DST_PHYS, 4, 0, PG_PEEK);
    mm_fault(p, 0, VDXG_FAULT_VM_BAD_TABLE, 0, 0, VDXG_ACCESS_READ);
    mm_set(p, MM_L(0, 2), DIR(MM_L(0, 1)));
    /* Leaves: a bad segment, a page past VRAM, a misaligned 2 MiB page */
    mm_set(p, MM_L(0, 0), VRAM_PTE(0) | VDXG_PTE_SEGMENT(3));
    emit_xfer_virt(p, 0, VDXG_PG_XV_DST_PHYS, 4, 0, PG_PEEK);
    mm_fault(p, 0, VDXG_FAULT_VM_BAD_TABLE, 0, 0, VDXG_ACCESS_READ);
    mm_set(p, MM_L(0, 0), VRAM_PTE(PG_VRAM_SIZE));
    emit_xfer_virt(p, 0, VDXG_PG_XV_DST_PHYS, 4, 0, PG_PEEK);
    mm_fault(p, 0, VDXG_FAULT_VM_BAD_TABLE, 0, 0, VDXG_ACCESS_READ);
    mm_set(p, MM_L(0, 1) + 8, VRAM_PTE(MM_LARGE + PG_PAGE) |
                VDXG_PTE_LARGE);
    emit_xfer_virt(p, 0, VDXG_PG_XV_DST_PHYS, 4, VA(1, 0), PG_PEEK);
    mm_fault(p, 0, VDXG_FAULT_VM_BAD_TABLE, VA(1, 0), 0, VDXG_ACCESS_READ);
    mm_set(p, MM_L(0, 1) + 8, VRAM_PTE(PG_VRAM_SIZE) | VDXG_PTE_LARGE);
    emit_xfer_virt(p, 0, VDXG_PG_XV_DST_PHYS, 4, VA(1, 0), PG_PEEK);
    mm_fault(p, 0, VDXG_FAULT_VM_BAD_TABLE, VA(1, 0), 0, VDXG_ACCESS_READ);
    /* A level-0 entry with LARGE */
    mm_set(p, MM_L(0, 0), VRAM_PTE(MM_LARGE) | VDXG_PTE_LARGE);
    emit_xfer_virt(p, 0, VDXG_PG_XV_DST_PHYS, 4, 0, PG_PEEK);
    mm_fault(p, 0, VDXG_FAULT_VM_BAD_TABLE, 0, 0, VDXG_ACCESS_READ);
    mm_set(p, MM_L(0, 0), VRAM_PTE(MM_PAGE(0)));

    /* Malformed AS entries: reserved bits, root past VRAM, qword 1 */
    mm_set(p, MM_AS_TABLE, MM_L(0, 3) | VDXG_VM_AS_VALID | 0x10);
    emit_xfer_virt(p, 0, VDXG_PG_XV_DST_PHYS, 4, 0, PG_PEEK);
    mm_fault(p, 0, VDXG_FAULT_VM_BAD_TABLE, 0, 0, VDXG_ACCESS_READ);
    mm_set(p, MM_AS_TABLE, PG_VRAM_SIZE | VDXG_VM_AS_VALID);
    emit_xfer_virt(p, 0, VDXG_PG_XV_DST_PHYS, 4, 0, PG_PEEK);
    mm_fault(p, 0, VDXG_FAULT_VM_BAD_TABLE, 0, 0, VDXG_ACCESS_READ);
    mm_set(p, MM_AS_TABLE, MM_L(0, 3) | VDXG_VM_AS_VALID);
    mm_set(p, MM_AS_TABLE + 8, 1);
    emit_xfer_virt(p, 0, VDXG_PG_XV_DST_PHYS, 4, 0, PG_PEEK);
    mm_fault(p, 0, VDXG_FAULT_VM_BAD_TABLE, 0, 0, VDXG_ACCESS_READ);
    mm_set(p, MM_AS_TABLE + 8, 0);
    vram_writel(p, MM_PAGE(0), 0x0c0ffee0);
    g_assert_cmphex(virt_peekl(p, 0, 0), ==, 0x0c0ffee0);
    pg_stop(p);
}

/* Long operations yield and resume: 8 MiB over 2048 pages */
static void test_mmu_long(void)
{
    Pg *p = mm_start();
    uint64_t runs;
    uint32_t i;

    /* Level-1 entries 0..3 to four level-0 tables, each GENERATEd */
    pb_reset(p);
    for (i = 0; i < 4; i++) {
        uint64_t dir = DIR(MM_TBL(8 + i));

        emit_upt(p, MM_L(0, 1), i, &dir, 1);
        emit_upt_gen(p, MM_TBL(8 + i), 0, 512,
                     VRAM_PTE(MM_BIG + i * 2 * MiB), PG_PAGE);
    }
    pb_run(p);
    runs = qom_get_u64(p, "x-pg-bh-runs");
    pb_reset(p);
    emit_fill_virt(p, 0, 0, 8 * MiB, 0x5eed5eed);
    emit_fill_virt(p, 0, 0x1234 * 4, 8, 0x77777777);
    emit_xfer_virt(p, 0, VDXG_PG_XV_DST_PHYS, 8 * MiB, 0, MM_BIG_COPY);
    pb_run(p);
    g_assert_cmpuint(qom_get_u64(p, "x-pg-bh-runs"), >=, runs + 3);
    for (i = 0; i < 8 * MiB; i += 0x7ff00) {
        g_assert_cmphex(vram_readl(p, MM_BIG + i), ==, 0x5eed5eed);
        g_assert_cmphex(vram_readl(p, MM_BIG_COPY + i), ==, 0x5eed5eed);
    }
    g_assert_cmphex(vram_readl(p, MM_BIG + 8 * MiB - 4), ==, 0x5eed5eed);
    g_assert_cmphex(vram_readl(p, MM_BIG + 8 * MiB), ==, 0);
    g_assert_cmphex(vram_readl(p, MM_BIG_COPY + 0x1234 * 4 + 4), ==,
                    0x77777777);
    g_assert_cmpuint(qom_get_u64(p, "x-pg-fill-virtual-bytes"), ==,
                     8 * MiB + 8);
    g_assert_cmpuint(qom_get_u64(p, "x-pg-transfer-virtual-bytes"), ==,
                     8 * MiB);
    pg_stop(p);
}

/* UPDATE_CONTEXT_ALLOCATION, INIT_CONTEXT_RESOURCE, NOTIFY_RESIDENCY */
static void test_mmu_context(void)
{
    Pg *p = pg_start(NULL);
    uint8_t page[PG_PAGE];
    uint32_t i;

    mm_enable(p, 4);
    vram_writeq(p, MM_L(1, 3), DIR(MM_L(1, 2)));
    vram_writeq(p, MM_L(1, 2), DIR(MM_L(1, 1)));
    vram_writeq(p, MM_L(1, 1), DIR(MM_L(1, 0)));
    vram_writeq(p, MM_L(1, 0), VRAM_PTE(MM_PAGE(9)));
    vram_writel(p, MM_PAGE(9), 0x99);
    vram_writeq(p, MM_AS_TABLE + 16 + 8, 0xbad);

    pb_reset(p);
    emit_uca(p, 1, MM_L(1, 3) | VDXG_VM_AS_VALID);
    pb_run(p);
    g_assert_cmphex(vram_readq(p, MM_AS_TABLE + 16), ==,
                    MM_L(1, 3) | VDXG_VM_AS_VALID);
    g_assert_cmphex(vram_readq(p, MM_AS_TABLE + 24), ==, 0);
    g_assert_cmphex(virt_peekl(p, 1, 0), ==, 0x99);
    /* VALID clear: the space is gone */
    pb_reset(p);
    emit_uca(p, 1, 0);
    emit_xfer_virt(p, 1, VDXG_PG_XV_DST_PHYS, 4, 0, PG_PEEK);
    mm_fault(p, pb_off(p) - VDXG_PG_XV_LEN * 4, VDXG_FAULT_VM_NOT_PRESENT, 0,
             1, VDXG_ACCESS_READ);
    /* Checked like a walk: PARAM; past ENTRIES: BOUNDS */
    emit_uca(p, 1, MM_L(1, 3) | VDXG_VM_AS_VALID | 2);
    mm_fault(p, 0, VDXG_FAULT_PARAM, AT_OP, 0, 0);
    emit_uca(p, 1, PG_VRAM_SIZE | VDXG_VM_AS_VALID);
    mm_fault(p, 0, VDXG_FAULT_PARAM, AT_OP, 0, 0);
    emit_uca(p, 1, MM_L(1, 3) | VDXG_VM_AS_VALID | BIT_ULL(48));
    mm_fault(p, 0, VDXG_FAULT_PARAM, AT_OP, 0, 0);
    emit_uca(p, 256, 0);
    mm_fault(p, 0, VDXG_FAULT_PARAM, AT_OP, 0, 0);
    emit_uca(p, 4, 0);
    mm_fault(p, 0, VDXG_FAULT_BOUNDS, AT_OP, 0, 0);
    g_assert_cmphex(vram_readq(p, MM_AS_TABLE + 16), ==, 0);

    /* INIT_CONTEXT_RESOURCE */
    memset(page, 0xee, sizeof(page));
    vram_write(p, MM_PAGE(20), page, sizeof(page));
    vram_writel(p, MM_PAGE(21), 0x21212121);
    pb_reset(p);
    emit_icr(p, MM_PAGE(20));
    pb_run(p);
    vram_read(p, MM_PAGE(20), page, sizeof(page));
    g_assert_cmphex(le32(page), ==, VDXG_CTX_STATE_MAGIC);
    g_assert_cmphex(le32(page + 4), ==, VDXG_CTX_STATE_VERSION);
    for (i = 8; i < PG_PAGE; i++) {
        g_assert_cmphex(page[i], ==, 0);
    }
    g_assert_cmphex(vram_readl(p, MM_PAGE(21)), ==, 0x21212121);
    emit_icr(p, MM_PAGE(20) + 0x800);
    mm_fault(p, 0, VDXG_FAULT_PARAM, AT_OP, 0, 0);
    emit_icr(p, PG_VRAM_SIZE);
    mm_fault(p, 0, VDXG_FAULT_ADDRESS, PG_VRAM_SIZE, 0, 0);

    /* NOTIFY_RESIDENCY */
    pb_reset(p);
    emit_notify_res(p, 3, 0, 5);
    emit_notify_res(p, 3, 0, 7);
    emit_notify_res(p, 3, VDXG_PG_RES_EVICTED, 2);
    emit_notify_res(p, 255, VDXG_PG_RES_EVICTED, 0xffffffff);
    emit_notify_res(p, 255, VDXG_PG_RES_EVICTED, 3);
    pb_run(p);
    wr(&p->v, VDXG_REG_VM_RES_SELECT, 3);
    g_assert_cmpuint(rd(&p->v, VDXG_REG_VM_RES_RESIDENT), ==, 12);
    g_assert_cmpuint(rd(&p->v, VDXG_REG_VM_RES_EVICTED), ==, 2);
    wr(&p->v, VDXG_REG_VM_RES_SELECT, 255);
    g_assert_cmpuint(rd(&p->v, VDXG_REG_VM_RES_RESIDENT), ==, 0);
    g_assert_cmpuint(rd(&p->v, VDXG_REG_VM_RES_EVICTED), ==, 2);
    wr(&p->v, VDXG_REG_VM_RES_SELECT, 0);
    g_assert_cmpuint(rd(&p->v, VDXG_REG_VM_RES_RESIDENT), ==, 0);
    emit_notify_res(p, 3, 2, 1);
    mm_fault(p, 0, VDXG_FAULT_PARAM, AT_OP, 0, 0);
    emit_notify_res(p, 256, 0, 1);
    mm_fault(p, 0, VDXG_FAULT_PARAM, AT_OP, 0, 0);
    wr(&p->v, VDXG_REG_VM_RES_SELECT, 3);
    g_assert_cmpuint(rd(&p->v, VDXG_REG_VM_RES_RESIDENT), ==, 12);
    g_assert_cmpuint(qom_get_u64(p, "x-pg-notify-residency-ops"), ==, 5);
    g_assert_cmpuint(qom_get_u64(p, "x-pg-init-context-resource-ops"), ==,
                     1);
    g_assert_cmpuint(qom_get_u64(p, "x-pg-update-context-allocation-ops"),
                     ==, 2);
    pg_stop(p);
}

void vdxg_test_add_mmu_tests(void)
{
    qtest_add_func("/vdxg/mmu/registers", test_mmu_registers);
    qtest_add_func("/vdxg/mmu/address-spaces", test_mmu_address_spaces);
    qtest_add_func("/vdxg/mmu/update-page-table",
                   test_mmu_update_page_table);
    qtest_add_func("/vdxg/mmu/entry-kinds", test_mmu_entry_kinds);
    qtest_add_func("/vdxg/mmu/faults", test_mmu_faults);
    qtest_add_func("/vdxg/mmu/tlb", test_mmu_tlb);
    qtest_add_func("/vdxg/mmu/isolation", test_mmu_isolation);
    qtest_add_func("/vdxg/mmu/malicious", test_mmu_malicious);
    qtest_add_func("/vdxg/mmu/long", test_mmu_long);
    qtest_add_func("/vdxg/mmu/context", test_mmu_context);
}
