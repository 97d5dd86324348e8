/*
 * vdxg: the PAGING engine's command set
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "vdxg_int.h"
#include "hw/display/trace.h"

/* PAGING engine */

/* One side of a copy. */
typedef enum VdxgSideKind {
    VDXG_SIDE_GPU,      /* a GPU address */
    VDXG_SIDE_PAGES,    /* a page list and a byte offset into it */
    VDXG_SIDE_BUS,      /* a bus address */
    VDXG_SIDE_VIRT,     /* a virtual address of an address space */
} VdxgSideKind;

typedef struct VdxgSide {
    VdxgSideKind kind;
    uint64_t addr;      /* GPU, bus or virtual address, or page offset */
    uint64_t list;      /* GPU address of the page list */
    /* VIRT: the engine whose TLB translates, address space, access */
    VdxgEngine *e;
    uint32_t as;
    uint32_t access;
} VdxgSide;

/* Page list entries read at once to find a run of contiguous pages */
#define VDXG_PAGE_RUN           64

/*
 * Extend @seg, a piece of page list entry @idx at @page, over the entries
 * that follow it while they continue it in bus address, up to @len bytes:
 * one access for a run instead of one a page. Entries are only looked at
 * here; one that is not the next page (or is malformed) ends the run, and
 * is read and checked again when the copy reaches it.
 */
static void vdxg_side_run(VdxgCore *s, const VdxgSide *side, uint64_t idx,
                          uint64_t page, uint64_t len, VdxgSeg *seg)
{
    uint8_t buf[VDXG_PAGE_RUN * 8];
    uint64_t n, i, next;
    VdxgErr scratch;

    if (seg->len >= len) {
        return;
    }
    n = MIN(DIV_ROUND_UP(len - seg->len, VDXG_GPU_PAGE_SIZE), VDXG_PAGE_RUN);
    if (!vdxg_gpu_rw(s, side->list + (idx + 1) * 8, buf, n * 8, false,
                     &scratch)) {
        return;
    }
    for (i = 0; i < n; i++) {
        next = ldq_le_p(buf + i * 8);
        /* The next page, not wrapping around the top of the bus */
        if (next <= page || next != page + (i + 1) * VDXG_GPU_PAGE_SIZE) {
            break;
        }
    }
    seg->run = i > 0;
    seg->len = MIN(len, seg->len + i * VDXG_GPU_PAGE_SIZE);
}

/* The piece of at most @len bytes of @side at byte @pos. */
static bool vdxg_side_seg(VdxgCore *s, const VdxgSide *side, uint64_t pos,
                          uint64_t len, bool runs, VdxgSeg *seg, VdxgErr *err)
{
    uint64_t off, page;
    uint8_t buf[8];

    switch (side->kind) {
    case VDXG_SIDE_GPU:
        return vdxg_gpu_seg(s, side->addr + pos, len, seg, err);
    case VDXG_SIDE_PAGES:
        off = side->addr + pos;
        if (!vdxg_gpu_rw(s, side->list + (off >> VDXG_GPU_PAGE_SHIFT) * 8,
                         buf, sizeof(buf), false, err)) {
            return false;
        }
        page = ldq_le_p(buf);
        if (page & VDXG_PAGE_MASK) {
            return vdxg_set_err(err, VDXG_FAULT_PARAM, page);
        }
        seg->vram = false;
        seg->addr = page | (off & VDXG_PAGE_MASK);
        seg->len = MIN(len, VDXG_GPU_PAGE_SIZE - (off & VDXG_PAGE_MASK));
        seg->fault_addr = seg->addr;
        seg->run = false;
        if (runs) {
            vdxg_side_run(s, side, off >> VDXG_GPU_PAGE_SHIFT, page, len,
                          seg);
        }
        return true;
    case VDXG_SIDE_BUS:
        seg->vram = false;
        seg->addr = side->addr + pos;
        seg->len = len;
        seg->fault_addr = seg->addr;
        return true;
    case VDXG_SIDE_VIRT:
        return vdxg_vm_seg(s, side->e, side->as, side->addr + pos, len,
                           side->access, seg, err);
    }
    g_assert_not_reached();
}

/*
 * Copy *@len bytes from @sseg to @dseg, at most a bounce buffer's worth
 * between two bus pieces (*@len is then cut down to it).
 */
static bool vdxg_copy_seg(VdxgCore *s, const VdxgSeg *sseg,
                          const VdxgSeg *dseg, uint64_t *len, VdxgErr *err)
{
    uint64_t n = *len;

    if (dseg->zero) {
        /* A null page drops what is written to it. */
        return true;
    }
    if (sseg->zero) {
        if (dseg->vram) {
            memset(s->vram_ptr + dseg->addr, 0, n);
            memory_region_set_dirty(s->vram_mr, dseg->addr, n);
            return true;
        }
        *len = n = MIN(n, sizeof(s->bounce));
        memset(s->bounce, 0, n);
        return vdxg_seg_write(s, dseg, s->bounce, n, err);
    }
    if (sseg->vram && dseg->vram) {
        memmove(s->vram_ptr + dseg->addr, s->vram_ptr + sseg->addr, n);
        memory_region_set_dirty(s->vram_mr, dseg->addr, n);
    } else if (sseg->vram) {
        return vdxg_seg_write(s, dseg, s->vram_ptr + sseg->addr, n, err);
    } else if (dseg->vram) {
        if (vdxg_dma_read(s, sseg->addr, s->vram_ptr + dseg->addr,
                          n) != MEMTX_OK) {
            trace_vdxg_dma_error(false, sseg->addr, n);
            return vdxg_set_err(err, VDXG_FAULT_ADDRESS, sseg->fault_addr);
        }
        memory_region_set_dirty(s->vram_mr, dseg->addr, n);
    } else {
        *len = n = MIN(n, sizeof(s->bounce));
        return vdxg_seg_read(s, sseg, s->bounce, n, err) &&
               vdxg_seg_write(s, dseg, s->bounce, n, err);
    }
    return true;
}

/*
 * Copy @size bytes from @src to @dst, continuing at *@progress, until done
 * or out of budget. Overlapping sides give an undefined result.
 */
static VdxgRun vdxg_copy(VdxgCore *s, const VdxgSide *src,
                         const VdxgSide *dst, uint64_t size,
                         uint64_t *progress, int64_t *budget, VdxgErr *err)
{
    VdxgSeg sseg, dseg;
    uint64_t len;
    bool runs = true;

    while (*progress < size) {
        if (*budget <= 0) {
            return VDXG_RUN_YIELD;
        }
        len = MIN(size - *progress, (uint64_t)*budget);
        sseg = (VdxgSeg) { 0 };
        dseg = (VdxgSeg) { 0 };
        if (!vdxg_side_seg(s, src, *progress, len, runs, &sseg, err) ||
            !vdxg_side_seg(s, dst, *progress, sseg.len, runs, &dseg, err)) {
            return VDXG_RUN_FAULT;
        }
        len = dseg.len;
        if (!vdxg_copy_seg(s, &sseg, &dseg, &len, err)) {
            if (sseg.run || dseg.run) {
                /* Again page by page: the fault names its page. */
                runs = false;
                continue;
            }
            return VDXG_RUN_FAULT;
        }
        *progress += len;
        /* A translated page costs as much as a GART entry. */
        *budget -= len + (src->kind == VDXG_SIDE_VIRT ? VDXG_COST_ENTRY : 0) +
                   (dst->kind == VDXG_SIDE_VIRT ? VDXG_COST_ENTRY : 0);
    }
    return VDXG_RUN_DONE;
}

/*
 * Fill @size bytes at @addr with @pattern (4-aligned both): a GPU address,
 * or with @as >= 0 a virtual address of address space @as, page by page
 * through the engine's TLB (a translated page costs a GART entry's worth;
 * null pages drop the pattern).
 */
static VdxgRun vdxg_fill(VdxgCore *s, VdxgEngine *e, int64_t as,
                         uint64_t addr, uint64_t size, uint32_t pattern,
                         uint64_t *progress, int64_t *budget, VdxgErr *err)
{
    uint64_t len, i;
    VdxgSeg seg;
    bool ok;

    for (i = 0; i < sizeof(s->bounce); i += 4) {
        stl_le_p(s->bounce + i, pattern);
    }
    while (*progress < size) {
        if (*budget <= 0) {
            return VDXG_RUN_YIELD;
        }
        /* Whole dwords, so that the pattern stays in phase. */
        len = MIN(size - *progress, QEMU_ALIGN_UP((uint64_t)*budget, 4));
        ok = as < 0 ? vdxg_gpu_seg(s, addr + *progress, len, &seg, err) :
             vdxg_vm_seg(s, e, as, addr + *progress, len, VDXG_ACCESS_WRITE,
                         &seg, err);
        if (!ok) {
            return VDXG_RUN_FAULT;
        }
        len = seg.len;
        if (seg.zero) {
            /* a null page: dropped */
        } else if (seg.vram) {
            /* Whole dwords: s->bounce starts with the pattern. */
            vdxg_fill_pattern(s->vram_ptr + seg.addr, QEMU_ALIGN_DOWN(len, 4),
                              s->bounce, 4);
            memory_region_set_dirty(s->vram_mr, seg.addr, len);
        } else {
            len = MIN(len, sizeof(s->bounce));
            if (!vdxg_seg_write(s, &seg, s->bounce, len, err)) {
                return VDXG_RUN_FAULT;
            }
        }
        *progress += len;
        *budget -= len + (as < 0 ? 0 : VDXG_COST_ENTRY);
    }
    return VDXG_RUN_DONE;
}

/*
 * Write GART entries @first + *@progress up to @first + @count: the page
 * addresses listed at GPU address @list, or invalid entries when @list is
 * 0 (unmap).
 */
static VdxgRun vdxg_gart_write(VdxgCore *s, uint32_t first, uint32_t count,
                               uint64_t list, uint64_t *progress,
                               int64_t *budget, VdxgErr *err)
{
    uint64_t n, i, page, off;

    while (*progress < count) {
        if (*budget <= 0) {
            return VDXG_RUN_YIELD;
        }
        n = MIN(count - *progress, sizeof(s->bounce) / 8);
        n = MIN(n, (uint64_t)*budget / VDXG_COST_PTE + 1);
        off = s->gart_table + (first + *progress) * 8;
        if (!list) {
            memset(s->bounce, 0, n * 8);
        } else {
            if (!vdxg_gpu_rw(s, list + *progress * 8, s->bounce, n * 8,
                             false, err)) {
                return VDXG_RUN_FAULT;
            }
            for (i = 0; i < n; i++) {
                page = ldq_le_p(s->bounce + i * 8);
                if (page & VDXG_PAGE_MASK) {
                    /* The entries before it are written. */
                    if (!vdxg_vram_rw(s, off, s->bounce, i * 8, true, err)) {
                        return VDXG_RUN_FAULT;
                    }
                    *progress += i;
                    vdxg_set_err(err, VDXG_FAULT_PARAM, page);
                    return VDXG_RUN_FAULT;
                }
                stq_le_p(s->bounce + i * 8, page | VDXG_GART_PTE_VALID);
            }
        }
        if (!vdxg_vram_rw(s, off, s->bounce, n * 8, true, err)) {
            return VDXG_RUN_FAULT;
        }
        *progress += n;
        *budget -= n * VDXG_COST_PTE;
    }
    return VDXG_RUN_DONE;
}

/* GPU virtual memory */

/*
 * UPDATE_PAGE_TABLE: write entries @first + *@progress up to @first +
 * @count of the page table at VRAM offset @table: those listed at GPU
 * address @list, or with @gen, @base + i * @stride.
 */
static VdxgRun vdxg_upt_write(VdxgCore *s, uint64_t table, uint32_t first,
                              uint32_t count, uint64_t list, bool gen,
                              uint64_t base, uint64_t stride,
                              uint64_t *progress, int64_t *budget,
                              VdxgErr *err)
{
    uint64_t n, i;

    while (*progress < count) {
        if (*budget <= 0) {
            return VDXG_RUN_YIELD;
        }
        n = MIN(count - *progress, sizeof(s->bounce) / 8);
        n = MIN(n, (uint64_t)*budget / VDXG_COST_PTE + 1);
        if (gen) {
            for (i = 0; i < n; i++) {
                stq_le_p(s->bounce + i * 8, base + (*progress + i) * stride);
            }
        } else if (!vdxg_gpu_rw(s, list + *progress * 8, s->bounce, n * 8,
                                false, err)) {
            return VDXG_RUN_FAULT;
        }
        if (!vdxg_vram_rw(s, table + (first + *progress) * 8, s->bounce,
                          n * 8, true, err)) {
            return VDXG_RUN_FAULT;
        }
        *progress += n;
        *budget -= n * VDXG_COST_PTE;
    }
    return VDXG_RUN_DONE;
}

/* A page table operand: PARAM unless 4 KiB aligned, ADDRESS unless in VRAM */
static bool vdxg_pg_table_ok(VdxgCore *s, uint64_t table, VdxgErr *err)
{
    if (table & VDXG_PAGE_MASK) {
        return vdxg_set_err(err, VDXG_FAULT_PARAM, 0);
    }
    if (!vdxg_in_vram(s, table, VDXG_GPU_PAGE_SIZE)) {
        return vdxg_set_err(err, VDXG_FAULT_ADDRESS, table);
    }
    return true;
}

/* One side of TRANSFER_VIRTUAL: a GPU address with @phys, else virtual. */
static bool vdxg_pg_xv_side(VdxgCore *s, VdxgEngine *e, VdxgSide *side,
                            bool phys, uint32_t as, uint64_t addr,
                            uint32_t access, uint32_t size, VdxgErr *err)
{
    if (phys) {
        *side = (VdxgSide) { .kind = VDXG_SIDE_GPU, .addr = addr };
        if (!vdxg_gpu_range_ok(s, addr, size)) {
            return vdxg_set_err(err, VDXG_FAULT_ADDRESS, addr);
        }
        return true;
    }
    *side = (VdxgSide) {
        .kind = VDXG_SIDE_VIRT, .addr = addr, .e = e, .as = as,
        .access = access,
    };
    return true;
}

/*
 * Run (or continue) one of the GPU virtual memory's operations (0x0a to
 * 0x11), whose @len dwords start with @dw (the first ARRAY_SIZE of them).
 * The operation's bytes go to *@bytes for the statistics.
 */
static VdxgRun vdxg_pg_vm_op(VdxgCore *s, VdxgEngine *e, uint32_t op,
                             uint64_t op_addr, const uint32_t *dw,
                             uint32_t len, int64_t *budget, uint64_t *bytes,
                             VdxgErr *err)
{
    bool start = !e->op_progress;
    VdxgSide src, dst;
    uint64_t addr, q0;
    uint8_t buf[VDXG_VM_AS_ENTRY_SIZE];

    switch (op) {
    case VDXG_PG_UPDATE_PAGE_TABLE: {
        uint32_t flags = dw[VDXG_PG_UPT_DW_FLAGS];
        uint64_t table = vdxg_dw64(dw, VDXG_PG_UPT_DW_TABLE);
        uint32_t first = dw[VDXG_PG_UPT_DW_FIRST];
        uint32_t count = dw[VDXG_PG_UPT_DW_COUNT];
        bool gen = flags & VDXG_PG_UPT_GENERATE;
        uint64_t stride = 0;

        if (len < VDXG_PG_UPT_LEN(0)) {
            goto bad_length;
        }
        if (flags & ~VDXG_PG_UPT_GENERATE) {
            goto bad_param;
        }
        if (len != (gen ? VDXG_PG_UPT_GEN_LEN :
                    VDXG_PG_UPT_LEN((uint64_t)count))) {
            goto bad_length;
        }
        if (gen) {
            stride = vdxg_dw64(dw, VDXG_PG_UPT_DW_STRIDE);
            if (stride & VDXG_PAGE_MASK) {
                goto bad_param;
            }
        }
        if (start) {
            trace_vdxg_pg_vm_op(op, first, table, count);
        }
        if (!vdxg_pg_table_ok(s, table, err)) {
            return VDXG_RUN_FAULT;
        }
        if ((uint64_t)first + count > VDXG_VM_TABLE_ENTRIES) {
            goto bad_bounds;
        }
        *bytes = (uint64_t)count * 8;
        return vdxg_upt_write(s, table, first, count,
                              op_addr + VDXG_PG_UPT_DW_ENTRIES * 4, gen,
                              gen ? vdxg_dw64(dw, VDXG_PG_UPT_DW_BASE) : 0,
                              stride, &e->op_progress, budget, err);
    }

    case VDXG_PG_COPY_PTES: {
        uint64_t stab = vdxg_dw64(dw, 1), dtab = vdxg_dw64(dw, 4);
        uint32_t sidx = dw[3], didx = dw[6], count = dw[7];

        if (len != VDXG_PG_COPY_PTES_LEN) {
            goto bad_length;
        }
        trace_vdxg_pg_vm_op(op, count, stab + sidx * 8ull,
                            dtab + didx * 8ull);
        if (!vdxg_pg_table_ok(s, stab, err) ||
            !vdxg_pg_table_ok(s, dtab, err)) {
            return VDXG_RUN_FAULT;
        }
        if ((uint64_t)sidx + count > VDXG_VM_TABLE_ENTRIES ||
            (uint64_t)didx + count > VDXG_VM_TABLE_ENTRIES) {
            goto bad_bounds;
        }
        /* At most one table: through the bounce buffer, overlap or not */
        QEMU_BUILD_BUG_ON(sizeof(s->bounce) < VDXG_VM_TABLE_ENTRIES * 8);
        if (!vdxg_vram_rw(s, stab + sidx * 8ull, s->bounce, count * 8ull,
                          false, err) ||
            !vdxg_vram_rw(s, dtab + didx * 8ull, s->bounce, count * 8ull,
                          true, err)) {
            return VDXG_RUN_FAULT;
        }
        *budget -= count * VDXG_COST_PTE;
        *bytes = count * 8ull;
        return VDXG_RUN_DONE;
    }

    case VDXG_PG_FLUSH_VM_TLB:
        if (len != VDXG_PG_FLUSH_VM_TLB_LEN) {
            goto bad_length;
        }
        trace_vdxg_pg_vm_op(op, dw[1], vdxg_dw64(dw, 3), vdxg_dw64(dw, 5));
        if (dw[1] >= VDXG_VM_MAX_AS || (dw[2] & ~VDXG_PG_FLUSH_RANGE)) {
            goto bad_param;
        }
        if (dw[2] & VDXG_PG_FLUSH_RANGE) {
            vdxg_vm_flush_range(s, dw[1], vdxg_dw64(dw, 3), vdxg_dw64(dw, 5));
        } else {
            vdxg_vm_flush(s, dw[1], "FLUSH_VM_TLB");
        }
        return VDXG_RUN_DONE;

    case VDXG_PG_TRANSFER_VIRTUAL: {
        uint32_t as = dw[1], flags = dw[2], size = dw[3];

        if (len != VDXG_PG_XV_LEN) {
            goto bad_length;
        }
        if (start) {
            trace_vdxg_pg_vm_op(op, as, vdxg_dw64(dw, 4), vdxg_dw64(dw, 6));
        }
        if (as >= VDXG_VM_MAX_AS ||
            (flags & ~(VDXG_PG_XV_SRC_PHYS | VDXG_PG_XV_DST_PHYS))) {
            goto bad_param;
        }
        if (!vdxg_pg_xv_side(s, e, &src, flags & VDXG_PG_XV_SRC_PHYS, as,
                             vdxg_dw64(dw, 4), VDXG_ACCESS_READ, size, err) ||
            !vdxg_pg_xv_side(s, e, &dst, flags & VDXG_PG_XV_DST_PHYS, as,
                             vdxg_dw64(dw, 6), VDXG_ACCESS_WRITE, size,
                             err)) {
            return VDXG_RUN_FAULT;
        }
        *bytes = size;
        return vdxg_copy(s, &src, &dst, size, &e->op_progress, budget, err);
    }

    case VDXG_PG_FILL_VIRTUAL:
        if (len != VDXG_PG_FILL_V_LEN) {
            goto bad_length;
        }
        addr = vdxg_dw64(dw, 4);
        if (start) {
            trace_vdxg_pg_vm_op(op, dw[1], addr, dw[3]);
        }
        if (dw[1] >= VDXG_VM_MAX_AS || ((addr | dw[3] | e->op_progress) & 3)) {
            goto bad_param;
        }
        *bytes = dw[3];
        return vdxg_fill(s, e, dw[1], addr, dw[3], dw[2],
                         &e->op_progress, budget, err);

    case VDXG_PG_UPDATE_CONTEXT_ALLOC:
        if (len != VDXG_PG_UCA_LEN) {
            goto bad_length;
        }
        q0 = vdxg_dw64(dw, 2);
        trace_vdxg_pg_vm_op(op, dw[1], q0, 0);
        if (dw[1] >= VDXG_VM_MAX_AS || !vdxg_vm_as_entry_ok(s, q0)) {
            goto bad_param;
        }
        if (dw[1] >= s->mmu.entries) {
            goto bad_bounds;
        }
        memset(buf, 0, sizeof(buf));
        stq_le_p(buf, q0);
        if (!vdxg_vram_rw(s, s->mmu.table + dw[1] * VDXG_VM_AS_ENTRY_SIZE,
                          buf, sizeof(buf), true, err)) {
            return VDXG_RUN_FAULT;
        }
        vdxg_vm_flush(s, dw[1], "UPDATE_CONTEXT_ALLOCATION");
        return VDXG_RUN_DONE;

    case VDXG_PG_INIT_CONTEXT_RESOURCE:
        if (len != VDXG_PG_ICR_LEN) {
            goto bad_length;
        }
        addr = vdxg_dw64(dw, 1);
        trace_vdxg_pg_vm_op(op, 0, addr, 0);
        if (!vdxg_pg_table_ok(s, addr, err)) {
            return VDXG_RUN_FAULT;
        }
        QEMU_BUILD_BUG_ON(sizeof(s->bounce) < VDXG_CTX_STATE_SIZE);
        memset(s->bounce, 0, VDXG_CTX_STATE_SIZE);
        stl_le_p(s->bounce + VDXG_CTX_STATE_DW_MAGIC * 4,
                 VDXG_CTX_STATE_MAGIC);
        stl_le_p(s->bounce + VDXG_CTX_STATE_DW_VERSION * 4,
                 VDXG_CTX_STATE_VERSION);
        if (!vdxg_vram_rw(s, addr, s->bounce, VDXG_CTX_STATE_SIZE, true,
                          err)) {
            return VDXG_RUN_FAULT;
        }
        *budget -= VDXG_CTX_STATE_SIZE;
        *bytes = VDXG_CTX_STATE_SIZE;
        return VDXG_RUN_DONE;

    case VDXG_PG_NOTIFY_RESIDENCY:
        if (len != VDXG_PG_NOTIFY_RES_LEN) {
            goto bad_length;
        }
        trace_vdxg_pg_vm_op(op, dw[1], dw[2], dw[3]);
        if (dw[1] >= VDXG_VM_MAX_AS || (dw[2] & ~VDXG_PG_RES_EVICTED)) {
            goto bad_param;
        }
        if (dw[2] & VDXG_PG_RES_EVICTED) {
            s->mmu.res_evicted[dw[1]] += dw[3];
        } else {
            s->mmu.res_resident[dw[1]] += dw[3];
        }
        return VDXG_RUN_DONE;
    }
    g_assert_not_reached();

bad_length:
    vdxg_set_err(err, VDXG_FAULT_LENGTH, 0);
    return VDXG_RUN_FAULT;
bad_param:
    vdxg_set_err(err, VDXG_FAULT_PARAM, 0);
    return VDXG_RUN_FAULT;
bad_bounds:
    vdxg_set_err(err, VDXG_FAULT_BOUNDS, 0);
    return VDXG_RUN_FAULT;
}

uint64_t vdxg_dw64(const uint32_t *dw, unsigned int i)
{
    return dw[i] | (uint64_t)dw[i + 1] << 32;
}

/* A bus range that does not wrap around the top of the address space. */
static bool vdxg_bus_range_ok(uint64_t addr, uint64_t len)
{
    return !len || addr + (len - 1) >= addr;
}

static bool vdxg_pg_xfer_side(VdxgCore *s, VdxgSide *side, bool pages,
                              uint64_t addr, uint64_t list, uint32_t npages,
                              uint32_t size, VdxgErr *err)
{
    side->addr = addr;
    side->list = list;
    if (!pages) {
        side->kind = VDXG_SIDE_GPU;
        if (!vdxg_gpu_range_ok(s, addr, size)) {
            return vdxg_set_err(err, VDXG_FAULT_ADDRESS, addr);
        }
        return true;
    }
    side->kind = VDXG_SIDE_PAGES;
    if (addr >= VDXG_GPU_PAGE_SIZE) {
        return vdxg_set_err(err, VDXG_FAULT_PARAM, 0);
    }
    if (addr + size > (uint64_t)npages * VDXG_GPU_PAGE_SIZE) {
        return vdxg_set_err(err, VDXG_FAULT_BOUNDS, 0);
    }
    return true;
}

/*
 * Run (or continue) the paging operation at the engine's buffer offset.
 * On a fault, @err holds the reason and address; for reasons other than
 * ADDRESS the address is the operation's.
 */
VdxgRun vdxg_pg_op(VdxgCore *s, VdxgEngine *e, int64_t *budget,
                   uint32_t *opcode, VdxgErr *err)
{
    uint64_t op_addr = e->buf_addr + e->buf_off;
    /* The operands that any operation needs, at most */
    uint32_t dw[VDXG_PG_UPT_GEN_LEN] = { 0 };
    uint8_t buf[sizeof(dw)];
    uint64_t addr, bytes = 0;
    uint32_t hdr, op, len, i;
    VdxgSide src, dst;
    VdxgRun r = VDXG_RUN_DONE;
    bool start = !e->op_progress;

    QEMU_BUILD_BUG_ON(VDXG_PG_UPT_GEN_LEN < VDXG_PG_XFER_DW_PAGES);
    *opcode = 0;
    *budget -= VDXG_COST_OP;
    if (!vdxg_gpu_rw(s, op_addr, buf, 4, false, err)) {
        return VDXG_RUN_FAULT;
    }
    hdr = ldl_le_p(buf);
    op = VDXG_PG_HDR_OP(hdr);
    len = VDXG_PG_HDR_LEN(hdr);
    *opcode = hdr & 0xffff;
    if (start) {
        trace_vdxg_pg_op(op_addr, hdr);
    }
    if ((hdr & 0xff00) || op >= VDXG_PG_NUM_OPS ||
        (op >= VDXG_PG_UPDATE_PAGE_TABLE && !(s->caps & VDXG_CAP_GPU_MMU))) {
        vdxg_set_err(err, VDXG_FAULT_OPCODE, op_addr);
        return VDXG_RUN_FAULT;
    }
    if (!len || len > (e->buf_len - e->buf_off) / 4) {
        goto bad_length;
    }
    if (!vdxg_gpu_rw(s, op_addr, buf, MIN(len, ARRAY_SIZE(dw)) * 4, false,
                     err)) {
        return VDXG_RUN_FAULT;
    }
    for (i = 0; i < MIN(len, ARRAY_SIZE(dw)); i++) {
        dw[i] = ldl_le_p(buf + i * 4);
    }

    switch (op) {
    case VDXG_PG_NOP:
        if (len != VDXG_PG_NOP_LEN) {
            goto bad_length;
        }
        break;

    case VDXG_PG_FLUSH_TLB:
        if (len != VDXG_PG_FLUSH_TLB_LEN) {
            goto bad_length;
        }
        vdxg_tlb_flush(s, "FLUSH_TLB");
        break;

    case VDXG_PG_FENCE:
        if (len != VDXG_PG_FENCE_LEN) {
            goto bad_length;
        }
        addr = vdxg_dw64(dw, 1);
        trace_vdxg_pg_fence(addr, vdxg_dw64(dw, 3));
        if (addr & 7) {
            goto bad_param;
        }
        stq_le_p(buf, vdxg_dw64(dw, 3));
        if (!vdxg_gpu_rw(s, addr, buf, 8, true, err)) {
            return VDXG_RUN_FAULT;
        }
        break;

    case VDXG_PG_TRANSFER: {
        uint32_t flags = dw[VDXG_PG_XFER_DW_FLAGS];
        uint32_t size = dw[VDXG_PG_XFER_DW_SIZE];
        uint32_t ns = dw[VDXG_PG_XFER_DW_SRC_NPAGES];
        uint32_t nd = dw[VDXG_PG_XFER_DW_DST_NPAGES];
        uint64_t list = op_addr + VDXG_PG_XFER_DW_PAGES * 4;

        if (len < VDXG_PG_XFER_DW_PAGES) {
            goto bad_length;
        }
        if (start) {
            trace_vdxg_pg_transfer(flags, size,
                                   vdxg_dw64(dw, VDXG_PG_XFER_DW_SRC),
                                   vdxg_dw64(dw, VDXG_PG_XFER_DW_DST),
                                   ns, nd);
        }
        if ((flags & ~(VDXG_PG_XFER_SRC_PAGES | VDXG_PG_XFER_DST_PAGES)) ||
            (ns && !(flags & VDXG_PG_XFER_SRC_PAGES)) ||
            (nd && !(flags & VDXG_PG_XFER_DST_PAGES))) {
            goto bad_param;
        }
        if (len != VDXG_PG_XFER_LEN((uint64_t)ns, (uint64_t)nd)) {
            goto bad_length;
        }
        if (!vdxg_pg_xfer_side(s, &src, flags & VDXG_PG_XFER_SRC_PAGES,
                               vdxg_dw64(dw, VDXG_PG_XFER_DW_SRC), list, ns,
                               size, err) ||
            !vdxg_pg_xfer_side(s, &dst, flags & VDXG_PG_XFER_DST_PAGES,
                               vdxg_dw64(dw, VDXG_PG_XFER_DW_DST),
                               list + (uint64_t)ns * 8, nd, size, err)) {
            goto fault;
        }
        r = vdxg_copy(s, &src, &dst, size, &e->op_progress, budget, err);
        bytes = size;
        break;
    }

    case VDXG_PG_FILL:
        if (len != VDXG_PG_FILL_LEN) {
            goto bad_length;
        }
        addr = vdxg_dw64(dw, 3);
        if (start) {
            trace_vdxg_pg_fill(addr, dw[2], dw[1]);
        }
        /* op_progress is a multiple of 4 unless a bad stream set it. */
        if ((addr | dw[2] | e->op_progress) & 3) {
            goto bad_param;
        }
        if (!vdxg_gpu_range_ok(s, addr, dw[2])) {
            vdxg_set_err(err, VDXG_FAULT_ADDRESS, addr);
            goto fault;
        }
        r = vdxg_fill(s, e, -1, addr, dw[2], dw[1], &e->op_progress, budget,
                      err);
        bytes = dw[2];
        break;

    case VDXG_PG_DISCARD:
        if (len != VDXG_PG_DISCARD_LEN) {
            goto bad_length;
        }
        addr = vdxg_dw64(dw, 2);
        if (!vdxg_gpu_range_ok(s, addr, dw[1])) {
            vdxg_set_err(err, VDXG_FAULT_ADDRESS, addr);
            goto fault;
        }
        bytes = dw[1];
        trace_vdxg_pg_discard(addr, dw[1], s->pg_ops[op] + 1,
                              s->pg_bytes[op] + bytes);
        break;

    case VDXG_PG_MAP_APERTURE:
    case VDXG_PG_UNMAP_APERTURE:
        if (len < VDXG_PG_UNMAP_LEN ||
            len != (op == VDXG_PG_MAP_APERTURE ?
                    VDXG_PG_MAP_LEN((uint64_t)dw[2]) : VDXG_PG_UNMAP_LEN)) {
            goto bad_length;
        }
        if (start) {
            trace_vdxg_pg_gart(op == VDXG_PG_MAP_APERTURE, dw[1], dw[2]);
        }
        if ((uint64_t)dw[1] + dw[2] > s->gart_entries) {
            vdxg_set_err(err, VDXG_FAULT_BOUNDS, 0);
            goto fault;
        }
        r = vdxg_gart_write(s, dw[1], dw[2],
                            op == VDXG_PG_MAP_APERTURE ? op_addr + 12 : 0,
                            &e->op_progress, budget, err);
        bytes = (uint64_t)dw[2] * VDXG_GPU_PAGE_SIZE;
        break;

    case VDXG_PG_WRITE_PHYSICAL:
        if (len < VDXG_PG_WRITE_PHYS_LEN(0)) {
            goto bad_length;
        }
        addr = vdxg_dw64(dw, 1);
        bytes = (uint64_t)(len - VDXG_PG_WRITE_PHYS_LEN(0)) * 4;
        if (start) {
            trace_vdxg_pg_write_physical(addr, bytes);
        }
        if (!vdxg_bus_range_ok(addr, bytes)) {
            vdxg_set_err(err, VDXG_FAULT_ADDRESS, addr);
            goto fault;
        }
        src = (VdxgSide) { .kind = VDXG_SIDE_GPU, .addr = op_addr + 12 };
        dst = (VdxgSide) { .kind = VDXG_SIDE_BUS, .addr = addr };
        r = vdxg_copy(s, &src, &dst, bytes, &e->op_progress, budget, err);
        break;

    case VDXG_PG_READ_PHYSICAL:
        if (len != VDXG_PG_READ_PHYS_LEN) {
            goto bad_length;
        }
        addr = vdxg_dw64(dw, 1);
        bytes = dw[3];
        if (start) {
            trace_vdxg_pg_read_physical(addr, dw[3], vdxg_dw64(dw, 4));
        }
        if (!vdxg_bus_range_ok(addr, bytes)) {
            vdxg_set_err(err, VDXG_FAULT_ADDRESS, addr);
            goto fault;
        }
        if (!vdxg_gpu_range_ok(s, vdxg_dw64(dw, 4), bytes)) {
            vdxg_set_err(err, VDXG_FAULT_ADDRESS, vdxg_dw64(dw, 4));
            goto fault;
        }
        src = (VdxgSide) { .kind = VDXG_SIDE_BUS, .addr = addr };
        dst = (VdxgSide) { .kind = VDXG_SIDE_GPU, .addr = vdxg_dw64(dw, 4) };
        r = vdxg_copy(s, &src, &dst, bytes, &e->op_progress, budget, err);
        break;

    default:
        r = vdxg_pg_vm_op(s, e, op, op_addr, dw, len, budget, &bytes, err);
        break;
    }

    if (r == VDXG_RUN_FAULT) {
        goto fault;
    }
    if (r == VDXG_RUN_DONE) {
        s->pg_ops[op]++;
        s->pg_bytes[op] += bytes;
        trace_vdxg_pg_op_done(op, bytes, s->pg_ops[op], s->pg_bytes[op]);
        e->buf_off += len * 4;
        e->op_progress = 0;
    }
    return r;

bad_length:
    vdxg_set_err(err, VDXG_FAULT_LENGTH, 0);
    goto fault;
bad_param:
    vdxg_set_err(err, VDXG_FAULT_PARAM, 0);
fault:
    /* A virtual access's faults report its virtual address. */
    if (err->reason != VDXG_FAULT_ADDRESS && !err->vm) {
        err->addr = op_addr;
    }
    return VDXG_RUN_FAULT;
}
