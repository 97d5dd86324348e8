/*
 * vdxg: the GPU MMU's page-table walk, entry checks and TLB (see
 * vdxg_mmu.h and docs/hardware.md, "GPU virtual memory")
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "vdxg_mmu.h"

#define VDXG_MMU_VA_LIMIT       (1ull << VDXG_VM_VA_BITS)

/* An AS entry's qword 0 bits besides VALID and the root address */
#define VDXG_MMU_AS_RSVD        (~(VDXG_VM_AS_ADDR_MASK | VDXG_VM_AS_VALID))

/* [addr, addr + len) lies inside the function's VRAM. */
static bool vdxg_mmu_in_vram(const VdxgMmuCfg *cfg, uint64_t addr,
                             uint64_t len)
{
    return addr <= cfg->vram_size && len <= cfg->vram_size - addr;
}

uint32_t vdxg_mmu_as_entry_check(uint64_t q0, uint64_t vram_size,
                                 uint64_t *root)
{
    uint64_t r = q0 & VDXG_VM_AS_ADDR_MASK;

    if (!(q0 & VDXG_VM_AS_VALID)) {
        return VDXG_FAULT_VM_NOT_PRESENT;
    }
    if ((q0 & VDXG_MMU_AS_RSVD) || r > vram_size ||
        VDXG_MMU_PAGE_SIZE > vram_size - r) {
        return VDXG_FAULT_VM_BAD_TABLE;
    }
    *root = r;
    return VDXG_FAULT_NONE;
}

uint32_t vdxg_mmu_as_root(const VdxgMmuCfg *cfg, uint32_t as,
                          uint64_t *root)
{
    uint64_t off = cfg->table + (uint64_t)as * VDXG_VM_AS_ENTRY_SIZE;
    uint64_t q0, q1;
    uint32_t r;

    if (!cfg->enabled || as >= cfg->entries ||
        as >= VDXG_VM_MAX_AS) {
        return VDXG_FAULT_VM_NOT_PRESENT;
    }
    if (!vdxg_mmu_in_vram(cfg, off, VDXG_VM_AS_ENTRY_SIZE) ||
        !cfg->read(cfg->opaque, off, &q0)) {
        return VDXG_FAULT_VM_BAD_TABLE;
    }
    r = vdxg_mmu_as_entry_check(q0, cfg->vram_size, root);
    if (r != VDXG_FAULT_NONE) {
        return r;
    }
    if (!cfg->read(cfg->opaque, off + 8, &q1) || q1) {
        return VDXG_FAULT_VM_BAD_TABLE;
    }
    return VDXG_FAULT_NONE;
}

/*
 * Check a leaf @pte of level @level and describe its page in *@x. A leaf
 * above level 0 is described as a 2 MiB page: for a null leaf at level 3
 * or 2, the one around the address (the TLB caches no larger page).
 */
static uint32_t vdxg_mmu_leaf(const VdxgMmuCfg *cfg, uint64_t pte,
                              unsigned int level, VdxgMmuXlate *x)
{
    uint64_t seg = (pte & VDXG_PTE_SEGMENT_MASK) >> VDXG_PTE_SEGMENT_SHIFT;

    x->size = level ? VDXG_MMU_LARGE_SIZE : VDXG_MMU_PAGE_SIZE;
    x->zero = pte & VDXG_PTE_ZERO;
    x->read_only = pte & VDXG_PTE_READ_ONLY;
    x->no_exec = pte & VDXG_PTE_NO_EXEC;
    if (seg != VDXG_PTE_SEGMENT_SYSTEM && seg != VDXG_PTE_SEGMENT_VRAM) {
        return VDXG_FAULT_VM_BAD_TABLE;
    }
    x->vram = seg == VDXG_PTE_SEGMENT_VRAM;
    if (x->zero) {
        /* A null page: the address is ignored. */
        x->page = 0;
        return VDXG_FAULT_NONE;
    }
    x->page = pte & VDXG_PTE_ADDR_MASK;
    if (x->page & (x->size - 1)) {
        return VDXG_FAULT_VM_BAD_TABLE;
    }
    if (x->vram && !vdxg_mmu_in_vram(cfg, x->page, x->size)) {
        return VDXG_FAULT_VM_BAD_TABLE;
    }
    return VDXG_FAULT_NONE;
}

uint32_t vdxg_mmu_walk(const VdxgMmuCfg *cfg, uint64_t root, uint64_t va,
                       VdxgMmuXlate *x)
{
    uint64_t table = root, pte;
    int level;

    if (va >= VDXG_MMU_VA_LIMIT) {
        return VDXG_FAULT_VM_NOT_PRESENT;
    }
    for (level = VDXG_VM_LEVELS - 1; level >= 0; level--) {
        uint64_t off = table + VDXG_VM_INDEX(va, level) * 8;

        if (!vdxg_mmu_in_vram(cfg, table, VDXG_MMU_PAGE_SIZE) ||
            !cfg->read(cfg->opaque, off, &pte)) {
            return VDXG_FAULT_VM_BAD_TABLE;
        }
        if (!(pte & VDXG_PTE_VALID)) {
            return VDXG_FAULT_VM_NOT_PRESENT;
        }
        if (pte & VDXG_PTE_RESERVED_MASK) {
            return VDXG_FAULT_VM_BAD_TABLE;
        }
        if (level == 0 || (level == 1 && (pte & VDXG_PTE_LARGE))) {
            if (level == 0 && (pte & VDXG_PTE_LARGE)) {
                return VDXG_FAULT_VM_BAD_TABLE;
            }
            return vdxg_mmu_leaf(cfg, pte, level, x);
        }
        /* A null leaf at level 3 or 2: its whole 512 GiB or 1 GiB */
        if (level >= 2 && (pte & VDXG_PTE_ZERO)) {
            if (pte & VDXG_PTE_LARGE) {
                return VDXG_FAULT_VM_BAD_TABLE;
            }
            return vdxg_mmu_leaf(cfg, pte, level, x);
        }
        /* A directory entry: only VALID and the next table's address */
        if (pte & ~(VDXG_PTE_VALID | VDXG_PTE_ADDR_MASK)) {
            return VDXG_FAULT_VM_BAD_TABLE;
        }
        table = pte & VDXG_PTE_ADDR_MASK;
    }
    g_assert_not_reached();
}

uint32_t vdxg_mmu_check_access(const VdxgMmuXlate *x, uint32_t access)
{
    if (access == VDXG_ACCESS_WRITE && x->read_only) {
        return VDXG_FAULT_VM_READ_ONLY;
    }
    if (access == VDXG_ACCESS_FETCH && x->no_exec) {
        return VDXG_FAULT_VM_NO_EXEC;
    }
    return VDXG_FAULT_NONE;
}

uint32_t vdxg_mmu_translate(const VdxgMmuCfg *cfg, VdxgMmuTlb *tlb,
                            uint32_t as, uint64_t va, uint32_t access,
                            VdxgMmuXlate *x)
{
    uint64_t root;
    uint32_t r;

    if (va >= VDXG_MMU_VA_LIMIT) {
        return VDXG_FAULT_VM_NOT_PRESENT;
    }
    if (!tlb || !vdxg_mmu_tlb_lookup(tlb, as, va, x)) {
        r = vdxg_mmu_as_root(cfg, as, &root);
        if (r == VDXG_FAULT_NONE) {
            r = vdxg_mmu_walk(cfg, root, va, x);
        }
        if (r != VDXG_FAULT_NONE) {
            return r;
        }
        if (tlb) {
            vdxg_mmu_tlb_insert(tlb, as, va, x);
        }
    }
    return vdxg_mmu_check_access(x, access);
}

/* TLB */

static unsigned int vdxg_mmu_tlb_slot(uint64_t vpn)
{
    return vpn % VDXG_MMU_TLB_ENTRIES;
}

bool vdxg_mmu_tlb_lookup(VdxgMmuTlb *tlb, uint32_t as, uint64_t va,
                         VdxgMmuXlate *x)
{
    uint64_t vpn = va >> 12;
    VdxgMmuTlbEntry *t = &tlb->e[vdxg_mmu_tlb_slot(vpn)];

    if (t->valid && t->as == as && t->vpn == vpn) {
        tlb->hits++;
        *x = t->x;
        return true;
    }
    tlb->misses++;
    return false;
}

void vdxg_mmu_tlb_insert(VdxgMmuTlb *tlb, uint32_t as, uint64_t va,
                         const VdxgMmuXlate *x)
{
    uint64_t vpn = va >> 12;
    VdxgMmuTlbEntry *t = &tlb->e[vdxg_mmu_tlb_slot(vpn)];

    t->valid = true;
    t->as = as;
    t->vpn = vpn;
    t->x = *x;
}

void vdxg_mmu_tlb_flush_all(VdxgMmuTlb *tlb)
{
    unsigned int i;

    for (i = 0; i < VDXG_MMU_TLB_ENTRIES; i++) {
        tlb->e[i].valid = false;
    }
}

void vdxg_mmu_tlb_flush_as(VdxgMmuTlb *tlb, uint32_t as)
{
    unsigned int i;

    for (i = 0; i < VDXG_MMU_TLB_ENTRIES; i++) {
        if (tlb->e[i].as == as) {
            tlb->e[i].valid = false;
        }
    }
}

void vdxg_mmu_tlb_flush_range(VdxgMmuTlb *tlb, uint32_t as, uint64_t va,
                              uint64_t size)
{
    uint64_t first, last;
    unsigned int i;

    if (!size) {
        return;
    }
    first = va >> 12;
    /* A range running past the top of the address space ends there. */
    last = (size - 1 > UINT64_MAX - va ? UINT64_MAX : va + (size - 1)) >> 12;
    for (i = 0; i < VDXG_MMU_TLB_ENTRIES; i++) {
        VdxgMmuTlbEntry *t = &tlb->e[i];

        if (t->as == as && t->vpn >= first && t->vpn <= last) {
            t->valid = false;
        }
    }
}
