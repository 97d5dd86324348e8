/*
 * Unit tests of the vdxg GPU MMU's walk, entry checks and TLB
 * (hw/display/vdxg/vdxg_mmu.c), over a fake VRAM.
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/units.h"
#include "hw/display/vdxg/vdxg_mmu.h"

#define VRAM_SIZE   (8 * MiB)
#define AS_TABLE    0x1000ull
#define L3          0x10000ull
#define L2          0x11000ull
#define L1          0x12000ull
#define L0          0x13000ull
#define HOLE        0x7ff000ull     /* reads of this page fail */

#define VRAM_PTE(a) ((a) | VDXG_PTE_VALID | \
                     VDXG_PTE_SEGMENT(VDXG_PTE_SEGMENT_VRAM))
#define SYS_PTE(a)  ((a) | VDXG_PTE_VALID | \
                     VDXG_PTE_SEGMENT(VDXG_PTE_SEGMENT_SYSTEM))
#define DIR(a)      ((a) | VDXG_PTE_VALID)

/* A virtual address with these indices at levels 3 to 0 */
#define VA(i3, i2, i1, i0) (((uint64_t)(i3) << 39) | ((uint64_t)(i2) << 30) | \
                            ((uint64_t)(i1) << 21) | ((uint64_t)(i0) << 12))

typedef struct Fake {
    uint8_t *vram;
    unsigned int reads;
    VdxgMmuCfg cfg;
} Fake;

static bool fake_read(void *opaque, uint64_t off, uint64_t *val)
{
    Fake *f = opaque;

    g_assert_cmpuint(off % 8, ==, 0);
    g_assert_cmpuint(off, <, VRAM_SIZE);
    f->reads++;
    if (off >= HOLE && off < HOLE + 4096) {
        return false;
    }
    *val = ldq_le_p(f->vram + off);
    return true;
}

static void put(Fake *f, uint64_t off, uint64_t val)
{
    stq_le_p(f->vram + off, val);
}

/* AS 0 and 1 usable; AS 0's tables L3 -> L2 -> L1 -> L0 at index 0. */
static Fake *fake_new(void)
{
    Fake *f = g_new0(Fake, 1);

    f->vram = g_malloc0(VRAM_SIZE);
    f->cfg = (VdxgMmuCfg) {
        .read = fake_read, .opaque = f, .vram_size = VRAM_SIZE,
        .table = AS_TABLE, .entries = 4, .enabled = true,
    };
    put(f, AS_TABLE, L3 | VDXG_VM_AS_VALID);
    put(f, L3, DIR(L2));
    put(f, L2, DIR(L1));
    put(f, L1, DIR(L0));
    return f;
}

static void fake_free(Fake *f)
{
    g_free(f->vram);
    g_free(f);
}

static uint32_t xlate(Fake *f, uint32_t as, uint64_t va, uint32_t access,
                      VdxgMmuXlate *x)
{
    return vdxg_mmu_translate(&f->cfg, NULL, as, va, access, x);
}

static void test_leaf_kinds(void)
{
    Fake *f = fake_new();
    VdxgMmuXlate x;

    /* 4 KiB VRAM page */
    put(f, L0 + 5 * 8, VRAM_PTE(0x200000) | VDXG_PTE_COHERENT);
    g_assert_cmpuint(xlate(f, 0, VA(0, 0, 0, 5) + 0x123, VDXG_ACCESS_WRITE,
                           &x), ==, 0);
    g_assert_true(x.vram);
    g_assert_false(x.zero || x.read_only || x.no_exec);
    g_assert_cmphex(x.size, ==, 4096);
    g_assert_cmphex(vdxg_mmu_addr(&x, VA(0, 0, 0, 5) + 0x123), ==, 0x200123);

    /* system page by bus address, no-exec recorded */
    put(f, L0 + 6 * 8, SYS_PTE(0xabcdef000ull) | VDXG_PTE_NO_EXEC);
    g_assert_cmpuint(xlate(f, 0, VA(0, 0, 0, 6), VDXG_ACCESS_READ, &x), ==,
                     0);
    g_assert_false(x.vram);
    g_assert_true(x.no_exec);
    g_assert_cmphex(vdxg_mmu_addr(&x, VA(0, 0, 0, 6) + 8), ==,
                    0xabcdef008ull);
    g_assert_cmpuint(xlate(f, 0, VA(0, 0, 0, 6), VDXG_ACCESS_FETCH, &x), ==,
                     VDXG_FAULT_VM_NO_EXEC);

    /* read-only */
    put(f, L0 + 7 * 8, VRAM_PTE(0x300000) | VDXG_PTE_READ_ONLY);
    g_assert_cmpuint(xlate(f, 0, VA(0, 0, 0, 7), VDXG_ACCESS_READ, &x), ==,
                     0);
    g_assert_cmpuint(xlate(f, 0, VA(0, 0, 0, 7), VDXG_ACCESS_FETCH, &x), ==,
                     0);
    g_assert_cmpuint(xlate(f, 0, VA(0, 0, 0, 7), VDXG_ACCESS_WRITE, &x), ==,
                     VDXG_FAULT_VM_READ_ONLY);

    /* null page: any address, read-only null pages fault on writes */
    put(f, L0 + 8 * 8, VDXG_PTE_VALID | VDXG_PTE_ZERO | 0x7777000ull);
    g_assert_cmpuint(xlate(f, 0, VA(0, 0, 0, 8), VDXG_ACCESS_WRITE, &x), ==,
                     0);
    g_assert_true(x.zero);
    put(f, L0 + 8 * 8, VDXG_PTE_VALID | VDXG_PTE_ZERO | VDXG_PTE_READ_ONLY);
    g_assert_cmpuint(xlate(f, 0, VA(0, 0, 0, 8), VDXG_ACCESS_WRITE, &x), ==,
                     VDXG_FAULT_VM_READ_ONLY);

    /* null leaves at levels 2 and 3: a 2 MiB null page for the TLB */
    put(f, L2 + 5 * 8, VDXG_PTE_VALID | VDXG_PTE_ZERO | 0x7777000ull);
    g_assert_cmpuint(xlate(f, 0, VA(0, 5, 511, 3) + 8, VDXG_ACCESS_WRITE,
                           &x), ==, 0);
    g_assert_true(x.zero);
    g_assert_cmphex(x.size, ==, 2 * MiB);
    put(f, L3 + 9 * 8, VDXG_PTE_VALID | VDXG_PTE_ZERO | VDXG_PTE_NO_EXEC);
    g_assert_cmpuint(xlate(f, 0, VA(9, 100, 7, 0), VDXG_ACCESS_READ, &x),
                     ==, 0);
    g_assert_true(x.zero);
    g_assert_cmpuint(xlate(f, 0, VA(9, 0, 0, 0), VDXG_ACCESS_FETCH, &x),
                     ==, VDXG_FAULT_VM_NO_EXEC);
    g_assert_cmpuint(xlate(f, 0, VA(10, 0, 0, 0), VDXG_ACCESS_READ, &x),
                     ==, VDXG_FAULT_VM_NOT_PRESENT);

    /* 2 MiB page at level 1 */
    put(f, L1 + 3 * 8, VRAM_PTE(0x400000) | VDXG_PTE_LARGE);
    g_assert_cmpuint(xlate(f, 0, VA(0, 0, 3, 17) + 9, VDXG_ACCESS_READ, &x),
                     ==, 0);
    g_assert_cmphex(x.size, ==, 2 * MiB);
    g_assert_cmphex(vdxg_mmu_addr(&x, VA(0, 0, 3, 17) + 9), ==,
                    0x400000 + 17 * 4096 + 9);
    fake_free(f);
}

static void test_not_present(void)
{
    Fake *f = fake_new();
    VdxgMmuXlate x;

    put(f, L0, VRAM_PTE(0x200000));
    g_assert_cmpuint(xlate(f, 0, 0, VDXG_ACCESS_READ, &x), ==, 0);
    /* each level's entry invalid */
    g_assert_cmpuint(xlate(f, 0, VA(1, 0, 0, 0), 0, &x), ==,
                     VDXG_FAULT_VM_NOT_PRESENT);
    g_assert_cmpuint(xlate(f, 0, VA(0, 1, 0, 0), 0, &x), ==,
                     VDXG_FAULT_VM_NOT_PRESENT);
    g_assert_cmpuint(xlate(f, 0, VA(0, 0, 1, 0), 0, &x), ==,
                     VDXG_FAULT_VM_NOT_PRESENT);
    g_assert_cmpuint(xlate(f, 0, VA(0, 0, 0, 1), 0, &x), ==,
                     VDXG_FAULT_VM_NOT_PRESENT);
    /* an invalid entry with other bits set is still just not present */
    put(f, L0 + 8, 0xffff00000000fffeull);
    g_assert_cmpuint(xlate(f, 0, VA(0, 0, 0, 1), 0, &x), ==,
                     VDXG_FAULT_VM_NOT_PRESENT);
    /* beyond 48 bits */
    g_assert_cmpuint(xlate(f, 0, 1ull << 48, 0, &x), ==,
                     VDXG_FAULT_VM_NOT_PRESENT);
    /* address space not usable: invalid entry, past ENTRIES, disabled */
    g_assert_cmpuint(xlate(f, 1, 0, 0, &x), ==, VDXG_FAULT_VM_NOT_PRESENT);
    g_assert_cmpuint(xlate(f, 4, 0, 0, &x), ==, VDXG_FAULT_VM_NOT_PRESENT);
    g_assert_cmpuint(xlate(f, 300, 0, 0, &x), ==, VDXG_FAULT_VM_NOT_PRESENT);
    f->cfg.enabled = false;
    g_assert_cmpuint(xlate(f, 0, 0, 0, &x), ==, VDXG_FAULT_VM_NOT_PRESENT);
    fake_free(f);
}

static void test_bad_table(void)
{
    static const struct {
        uint64_t off, pte;
    } cases[] = {
        { L3, DIR(L2) | VDXG_PTE_READ_ONLY },       /* directory-only bits */
        { L3, DIR(L2) | BIT_ULL(11) },              /* reserved */
        { L3, DIR(L2) | BIT_ULL(48) },              /* reserved */
        { L3, DIR(L2) | VDXG_PTE_LARGE },           /* LARGE at level 3 */
        { L2, DIR(L1) | VDXG_PTE_LARGE },           /* LARGE at level 2 */
        { L3, DIR(L2) | VDXG_PTE_ZERO | VDXG_PTE_LARGE },  /* null, LARGE */
        { L2, VDXG_PTE_VALID | VDXG_PTE_ZERO | VDXG_PTE_SEGMENT(2) },
        { L1, DIR(L0) | VDXG_PTE_ZERO },            /* null without LARGE */
        { L2, DIR(VRAM_SIZE) },                     /* table outside VRAM */
        { L2, DIR(1ull << 40) },
        { L1, DIR(HOLE) },                          /* unreadable table */
        { L0, VRAM_PTE(0x200000) | VDXG_PTE_LARGE },    /* LARGE at level 0 */
        { L0, VRAM_PTE(0x200000) | VDXG_PTE_SEGMENT(2) },
        { L0, VRAM_PTE(VRAM_SIZE) },                /* page outside VRAM */
        { L1, VRAM_PTE(0x201000) | VDXG_PTE_LARGE },    /* misaligned 2 MiB */
        { L1, VRAM_PTE(VRAM_SIZE - 2 * MiB + 2 * MiB) | VDXG_PTE_LARGE },
    };
    VdxgMmuXlate x;
    unsigned int i;

    for (i = 0; i < ARRAY_SIZE(cases); i++) {
        Fake *f = fake_new();

        put(f, L0, VRAM_PTE(0x200000));
        put(f, cases[i].off, cases[i].pte);
        g_assert_cmpuint(xlate(f, 0, 0, VDXG_ACCESS_READ, &x), ==,
                         VDXG_FAULT_VM_BAD_TABLE);
        fake_free(f);
    }
}

static void test_as_entry(void)
{
    Fake *f = fake_new();
    VdxgMmuXlate x;
    uint64_t root;

    g_assert_cmpuint(vdxg_mmu_as_entry_check(0, VRAM_SIZE, &root), ==,
                     VDXG_FAULT_VM_NOT_PRESENT);
    g_assert_cmpuint(vdxg_mmu_as_entry_check(L3 | 1, VRAM_SIZE, &root), ==,
                     0);
    g_assert_cmphex(root, ==, L3);
    g_assert_cmpuint(vdxg_mmu_as_entry_check(L3 | 3, VRAM_SIZE, &root), ==,
                     VDXG_FAULT_VM_BAD_TABLE);
    g_assert_cmpuint(vdxg_mmu_as_entry_check(L3 | 1 | BIT_ULL(63),
                                             VRAM_SIZE, &root), ==,
                     VDXG_FAULT_VM_BAD_TABLE);
    g_assert_cmpuint(vdxg_mmu_as_entry_check(VRAM_SIZE | 1, VRAM_SIZE,
                                             &root), ==,
                     VDXG_FAULT_VM_BAD_TABLE);

    put(f, L0, VRAM_PTE(0x200000));
    /* qword 1 not zero */
    put(f, AS_TABLE + 8, 1);
    g_assert_cmpuint(xlate(f, 0, 0, 0, &x), ==, VDXG_FAULT_VM_BAD_TABLE);
    put(f, AS_TABLE + 8, 0);
    g_assert_cmpuint(xlate(f, 0, 0, 0, &x), ==, 0);
    /* the AS table itself unreadable */
    f->cfg.table = HOLE;
    g_assert_cmpuint(xlate(f, 0, 0, 0, &x), ==, VDXG_FAULT_VM_BAD_TABLE);
    fake_free(f);
}

/* Tables that point to themselves: a walk still reads four entries. */
static void test_cycle(void)
{
    Fake *f = fake_new();
    VdxgMmuXlate x;

    put(f, L3, DIR(L3));
    /*
     * L3[0] names L3 as level 2, level 1 and level 0: four reads, and the
     * last one, a leaf now, is a system page at L3.
     */
    f->reads = 0;
    g_assert_cmpuint(xlate(f, 0, 0, 0, &x), ==, 0);
    g_assert_false(x.vram);
    g_assert_cmphex(x.page, ==, L3);
    g_assert_cmpuint(f->reads, ==, 2 + VDXG_VM_LEVELS);
    /* the same loop with a reserved bit faults at the first read */
    put(f, L3, DIR(L3) | BIT_ULL(60));
    f->reads = 0;
    g_assert_cmpuint(xlate(f, 0, 0, 0, &x), ==, VDXG_FAULT_VM_BAD_TABLE);
    g_assert_cmpuint(f->reads, ==, 3);
    fake_free(f);
}

static void test_tlb(void)
{
    Fake *f = fake_new();
    VdxgMmuTlb tlb = { 0 };
    VdxgMmuXlate x;

    put(f, AS_TABLE + 16, L3 | VDXG_VM_AS_VALID);   /* AS 1 shares them */
    put(f, L0 + 2 * 8, VRAM_PTE(0x200000));
    g_assert_cmpuint(vdxg_mmu_translate(&f->cfg, &tlb, 0, VA(0, 0, 0, 2), 0,
                                        &x), ==, 0);
    g_assert_cmpuint(tlb.misses, ==, 1);
    /* stale translation until a flush */
    put(f, L0 + 2 * 8, VRAM_PTE(0x300000));
    f->reads = 0;
    g_assert_cmpuint(vdxg_mmu_translate(&f->cfg, &tlb, 0, VA(0, 0, 0, 2), 0,
                                        &x), ==, 0);
    g_assert_cmpuint(f->reads, ==, 0);
    g_assert_cmpuint(tlb.hits, ==, 1);
    g_assert_cmphex(x.page, ==, 0x200000);
    /* the permission check still applies to a cached leaf */
    put(f, L0 + 2 * 8, VRAM_PTE(0x300000) | VDXG_PTE_READ_ONLY);
    vdxg_mmu_tlb_flush_as(&tlb, 0);
    g_assert_cmpuint(vdxg_mmu_translate(&f->cfg, &tlb, 0, VA(0, 0, 0, 2), 0,
                                        &x), ==, 0);
    g_assert_cmphex(x.page, ==, 0x300000);
    g_assert_cmpuint(vdxg_mmu_translate(&f->cfg, &tlb, 0, VA(0, 0, 0, 2),
                                        VDXG_ACCESS_WRITE, &x), ==,
                     VDXG_FAULT_VM_READ_ONLY);

    /* tagged by address space: AS 1 misses, and its flush spares AS 0 */
    g_assert_false(vdxg_mmu_tlb_lookup(&tlb, 1, VA(0, 0, 0, 2), &x));
    put(f, L0 + 3 * 8, VRAM_PTE(0x500000));
    vdxg_mmu_translate(&f->cfg, &tlb, 1, VA(0, 0, 0, 3), 0, &x);
    g_assert_true(vdxg_mmu_tlb_lookup(&tlb, 1, VA(0, 0, 0, 3), &x));
    vdxg_mmu_tlb_flush_as(&tlb, 1);
    g_assert_false(vdxg_mmu_tlb_lookup(&tlb, 1, VA(0, 0, 0, 3), &x));
    g_assert_true(vdxg_mmu_tlb_lookup(&tlb, 0, VA(0, 0, 0, 2), &x));

    /* direct-mapped: page 2 + 64 evicts page 2 */
    vdxg_mmu_tlb_insert(&tlb, 0, VA(0, 0, 0, 66), &x);
    g_assert_false(vdxg_mmu_tlb_lookup(&tlb, 0, VA(0, 0, 0, 2), &x));
    g_assert_true(vdxg_mmu_tlb_lookup(&tlb, 0, VA(0, 0, 0, 66), &x));

    /* range flush: [page 10 + 1, page 12 + 1) drops pages 10 to 12 only */
    vdxg_mmu_tlb_flush_all(&tlb);
    for (unsigned int i = 9; i <= 13; i++) {
        vdxg_mmu_tlb_insert(&tlb, 0, VA(0, 0, 0, i), &x);
        vdxg_mmu_tlb_insert(&tlb, 1, VA(0, 0, 0, i + 32), &x);
    }
    vdxg_mmu_tlb_flush_range(&tlb, 0, VA(0, 0, 0, 10) + 1, 2 * 4096);
    g_assert_true(vdxg_mmu_tlb_lookup(&tlb, 0, VA(0, 0, 0, 9), &x));
    g_assert_false(vdxg_mmu_tlb_lookup(&tlb, 0, VA(0, 0, 0, 10), &x));
    g_assert_false(vdxg_mmu_tlb_lookup(&tlb, 0, VA(0, 0, 0, 11), &x));
    g_assert_false(vdxg_mmu_tlb_lookup(&tlb, 0, VA(0, 0, 0, 12), &x));
    g_assert_true(vdxg_mmu_tlb_lookup(&tlb, 0, VA(0, 0, 0, 13), &x));
    /* size 0 flushes nothing; a range past the top ends there */
    vdxg_mmu_tlb_flush_range(&tlb, 0, VA(0, 0, 0, 9), 0);
    g_assert_true(vdxg_mmu_tlb_lookup(&tlb, 0, VA(0, 0, 0, 9), &x));
    vdxg_mmu_tlb_flush_range(&tlb, 1, VA(0, 0, 0, 43), UINT64_MAX);
    g_assert_true(vdxg_mmu_tlb_lookup(&tlb, 1, VA(0, 0, 0, 42), &x));
    g_assert_false(vdxg_mmu_tlb_lookup(&tlb, 1, VA(0, 0, 0, 43), &x));
    g_assert_false(vdxg_mmu_tlb_lookup(&tlb, 1, VA(0, 0, 0, 45), &x));
    g_assert_true(vdxg_mmu_tlb_lookup(&tlb, 0, VA(0, 0, 0, 13), &x));
    vdxg_mmu_tlb_flush_all(&tlb);
    g_assert_false(vdxg_mmu_tlb_lookup(&tlb, 0, VA(0, 0, 0, 13), &x));
    fake_free(f);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/vdxg-mmu/leaf-kinds", test_leaf_kinds);
    g_test_add_func("/vdxg-mmu/not-present", test_not_present);
    g_test_add_func("/vdxg-mmu/bad-table", test_bad_table);
    g_test_add_func("/vdxg-mmu/as-entry", test_as_entry);
    g_test_add_func("/vdxg-mmu/cycle", test_cycle);
    g_test_add_func("/vdxg-mmu/tlb", test_tlb);
    return g_test_run();
}
