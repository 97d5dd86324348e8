/*
 * vdxg: the GPU MMU's page-table walk, entry checks and TLB
 *
 * Pure functions, free of PCI and MMIO: the device model (vdxg_vm.c)
 * and the host unit test (tests/unit/test-vdxg-mmu.c) both use them. A
 * callback reads a qword of the function's VRAM; the result of a
 * translation is a page (segment, address, size, permissions) or a
 * VDXG_FAULT_VM_* reason.
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_DISPLAY_VDXG_MMU_H
#define HW_DISPLAY_VDXG_MMU_H

#include "qemu/bitops.h"
#include "hw/display/vdxg_hw.h"

/* Leaf translations a TLB caches, direct-mapped by virtual 4 KiB page */
#define VDXG_MMU_TLB_ENTRIES    64

#define VDXG_MMU_PAGE_SIZE      4096ull
#define VDXG_MMU_LARGE_SIZE     (1ull << VDXG_VM_LARGE_SHIFT)

/*
 * Read the little-endian qword at VRAM offset @off of the function (8
 * aligned, below the VRAM size); false when it cannot be read (a VF's
 * unbacked VRAM).
 */
typedef bool (*VdxgMmuReadFn)(void *opaque, uint64_t off, uint64_t *val);

/* What a walk needs: the function's VRAM and MMU registers */
typedef struct VdxgMmuCfg {
    VdxgMmuReadFn read;
    void *opaque;
    uint64_t vram_size;
    uint64_t table;             /* VM_TABLE */
    uint32_t entries;           /* VM_TABLE_ENTRIES */
    bool enabled;               /* VM_CTRL.ENABLE */
} VdxgMmuCfg;

/* A leaf translation: the page holding a virtual address */
typedef struct VdxgMmuXlate {
    bool vram;                  /* SEGMENT VRAM, else system memory */
    bool zero;                  /* null page: reads 0, writes dropped */
    bool read_only;
    bool no_exec;
    uint64_t page;              /* VRAM offset or bus address of the page */
    uint64_t size;              /* 4 KiB or 2 MiB */
} VdxgMmuXlate;

typedef struct VdxgMmuTlbEntry {
    bool valid;
    uint32_t as;
    uint64_t vpn;               /* virtual address >> 12 */
    VdxgMmuXlate x;
} VdxgMmuTlbEntry;

typedef struct VdxgMmuTlb {
    VdxgMmuTlbEntry e[VDXG_MMU_TLB_ENTRIES];
    uint64_t hits;              /* statistics */
    uint64_t misses;
} VdxgMmuTlb;

/*
 * Check qword 0 of an address-space entry: 0 when usable with its root
 * table in *@root, VDXG_FAULT_VM_NOT_PRESENT when not VALID,
 * VDXG_FAULT_VM_BAD_TABLE when malformed (reserved bits, a root table
 * not wholly inside VRAM).
 */
uint32_t vdxg_mmu_as_entry_check(uint64_t q0, uint64_t vram_size,
                                 uint64_t *root);

/* The root table of address space @as, or a fault reason. */
uint32_t vdxg_mmu_as_root(const VdxgMmuCfg *cfg, uint32_t as,
                          uint64_t *root);

/*
 * Walk the tables from @root for @va (below 2^48): at most one entry a
 * level. Returns 0 with the leaf in *@x, or a fault reason.
 */
uint32_t vdxg_mmu_walk(const VdxgMmuCfg *cfg, uint64_t root, uint64_t va,
                       VdxgMmuXlate *x);

/* The permission check of a leaf for a VDXG_ACCESS_* access. */
uint32_t vdxg_mmu_check_access(const VdxgMmuXlate *x, uint32_t access);

/*
 * Translate @va of address space @as for @access, through @tlb (NULL:
 * none): 0 with the page in *@x, or a fault reason.
 */
uint32_t vdxg_mmu_translate(const VdxgMmuCfg *cfg, VdxgMmuTlb *tlb,
                            uint32_t as, uint64_t va, uint32_t access,
                            VdxgMmuXlate *x);

/* Where @va's byte is: the page's address plus the offset in it. */
static inline uint64_t vdxg_mmu_addr(const VdxgMmuXlate *x, uint64_t va)
{
    return x->page + (va & (x->size - 1));
}

bool vdxg_mmu_tlb_lookup(VdxgMmuTlb *tlb, uint32_t as, uint64_t va,
                         VdxgMmuXlate *x);
void vdxg_mmu_tlb_insert(VdxgMmuTlb *tlb, uint32_t as, uint64_t va,
                         const VdxgMmuXlate *x);
void vdxg_mmu_tlb_flush_all(VdxgMmuTlb *tlb);
void vdxg_mmu_tlb_flush_as(VdxgMmuTlb *tlb, uint32_t as);
/* Drop @as's translations of the pages [@va, @va + @size) touches. */
void vdxg_mmu_tlb_flush_range(VdxgMmuTlb *tlb, uint32_t as, uint64_t va,
                              uint64_t size);

#endif
