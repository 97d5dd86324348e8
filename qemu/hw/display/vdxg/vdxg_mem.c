/*
 * vdxg: the GPU address space, the GART and its TLB, DMA and its
 * isolation checks
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "qemu/log.h"
#include "qemu/range.h"
#include "qemu/rcu.h"
#include "exec/address-spaces.h"
#include "hw/pci/pci_bus.h"
#include "hw/pci/pcie_host.h"
#include "hw/pci/pcie_sriov.h"
#include "vdxg_int.h"
#include "hw/display/trace.h"

/* GPU address space */

/* [addr, addr + len) lies inside [base, base + size). */
bool vdxg_in_window(uint64_t addr, uint64_t len, uint64_t base,
                    uint64_t size)
{
    return addr >= base && addr - base <= size &&
           len <= size - (addr - base);
}

bool vdxg_in_vram(VdxgCore *s, uint64_t addr, uint64_t len)
{
    return vdxg_in_window(addr, len, 0, s->vram_size);
}

static bool vdxg_in_aperture(VdxgCore *s, uint64_t addr, uint64_t len)
{
    return vdxg_in_window(addr, len, VDXG_APERTURE_BASE, s->aperture_size);
}

/* A GPU range is valid when it lies inside VRAM or inside the aperture. */
bool vdxg_gpu_range_ok(VdxgCore *s, uint64_t addr, uint64_t len)
{
    return vdxg_in_vram(s, addr, len) || vdxg_in_aperture(s, addr, len);
}

/* A GART table at VRAM offset @table fits in VRAM. */
bool vdxg_gart_table_ok(VdxgCore *s, uint64_t table)
{
    return !(table & VDXG_PAGE_MASK) &&
           vdxg_in_vram(s, table, (uint64_t)s->gart_entries * 8);
}

/*
 * VRAM offset @off of this function in PF VRAM: the PF's offset is the
 * same; a VF's goes through its applied backing table. Returns how many
 * bytes from @off (at most @len) are contiguous there, 0 when @off is
 * unbacked.
 */
static uint64_t vdxg_vram_xlate(VdxgCore *s, uint64_t off, uint64_t len,
                                uint64_t *pf_off)
{
    const VdxgRange *r;
    uint64_t base = 0;
    uint32_t i, n;

    if (likely(!s->vf)) {
        *pf_off = off;
        return len;
    }
    r = s->pf->backing[s->vf_index];
    n = s->pf->backing_n[s->vf_index];
    for (i = 0; i < n; i++) {
        s->access_cost += VDXG_COST_RANGE;
        if (off - base < r[i].len) {
            *pf_off = r[i].off + (off - base);
            return MIN(len, r[i].len - (off - base));
        }
        base += r[i].len;
    }
    return 0;
}

/*
 * Copy between @buf and this function's VRAM at @off, through the backing
 * table on a VF; an unbacked byte is an ADDRESS fault at its offset.
 */
bool vdxg_vram_rw(VdxgCore *s, uint64_t off, void *buf, uint64_t len,
                  bool is_write, VdxgErr *err)
{
    uint8_t *p = buf;
    uint64_t pf_off, n;

    while (len) {
        n = vdxg_vram_xlate(s, off, len, &pf_off);
        if (!n) {
            return vdxg_set_err(err, VDXG_FAULT_ADDRESS, off);
        }
        if (is_write) {
            memcpy(s->vram_ptr + pf_off, p, n);
            memory_region_set_dirty(s->vram_mr, pf_off, n);
        } else {
            memcpy(p, s->vram_ptr + pf_off, n);
        }
        off += n;
        p += n;
        len -= n;
    }
    return true;
}

/* [addr, addr + len) overlaps a mapped BAR of @d (of @s's function). */
static bool vdxg_hits_bars(VdxgCore *s, PCIDevice *d, uint64_t addr,
                           uint64_t len)
{
    unsigned int i;

    s->access_cost += PCI_NUM_REGIONS * VDXG_COST_RANGE;
    for (i = 0; i < PCI_NUM_REGIONS; i++) {
        const PCIIORegion *r = &d->io_regions[i];

        if (r->size && r->addr != PCI_BAR_UNMAPPED &&
            !(r->type & PCI_BASE_ADDRESS_SPACE_IO) &&
            addr <= r->addr + (r->size - 1) && r->addr <= addr + (len - 1)) {
            return true;
        }
    }
    return false;
}

/*
 * [addr, addr + len) overlaps the mapped MMCFG (ECAM) window of the PCI
 * Express host bridge above @d: configuration space of every function.
 */
static bool vdxg_hits_mmcfg(PCIDevice *d, uint64_t addr, uint64_t len)
{
    BusState *root = BUS(pci_device_root_bus(d));
    PCIExpressHost *e = (PCIExpressHost *)
        object_dynamic_cast(OBJECT(root->parent), TYPE_PCIE_HOST_BRIDGE);

    return e && e->base_addr != PCIE_BASE_ADDR_UNMAPPED && e->size &&
           ranges_overlap(addr, len, e->base_addr, e->size);
}

/*
 * The system (host bridge side) addresses [addr, addr + len) of a VF's bus
 * access must not reach a BAR of the PF or of any of its VFs, nor
 * configuration space through MMCFG.
 */
static bool vdxg_sys_allowed(VdxgCore *s, uint64_t addr, uint64_t len)
{
    PCIDevice *pf, *vf;
    int i;

    pf = PCI_DEVICE(s->pf);
    s->access_cost += VDXG_COST_RANGE;
    if (vdxg_hits_bars(s, pf, addr, len) || vdxg_hits_mmcfg(pf, addr, len)) {
        return false;
    }
    for (i = 0; (vf = pcie_sriov_get_vf_at_index(pf, i)); i++) {
        if (vdxg_hits_bars(s, vf, addr, len)) {
            return false;
        }
    }
    return true;
}

/*
 * A VF's bus access goes out as the VF and must not reach a BAR of the PF
 * or of any of its VFs, nor configuration space through MMCFG; the PF's
 * accesses are not restricted. The DMA goes through the VF's bus master
 * address space: behind an IOMMU, @addr is an I/O virtual address, and
 * what is checked is each page's translation, where the access lands
 * (a page the IOMMU does not map is left to the DMA, which fails there).
 */
static bool vdxg_dma_allowed(VdxgCore *s, uint64_t addr, uint64_t len,
                             DMADirection dir)
{
    AddressSpace *as;
    IOMMUTLBEntry tlb;
    uint64_t n, off;

    if (likely(!s->vf) || !len) {
        return true;
    }
    if (pci_device_iommu_address_space(s->pdev) == &address_space_memory) {
        /* No IOMMU: bus addresses are system addresses. */
        return vdxg_sys_allowed(s, addr, len);
    }
    as = pci_get_address_space(s->pdev);
    RCU_READ_LOCK_GUARD();
    while (len) {
        s->access_cost += VDXG_COST_XLATE;
        tlb = address_space_get_iotlb_entry(as, addr,
                                            dir == DMA_DIRECTION_FROM_DEVICE,
                                            MEMTXATTRS_UNSPECIFIED);
        if (tlb.perm == IOMMU_NONE) {
            /* Unmapped: the next page */
            n = VDXG_GPU_PAGE_SIZE - (addr & VDXG_PAGE_MASK);
        } else {
            off = addr & tlb.addr_mask;
            n = tlb.addr_mask - off + 1;
            if (n && n <= len &&
                !vdxg_sys_allowed(s, tlb.translated_addr + off, n)) {
                return false;
            }
            if ((!n || n > len) &&
                !vdxg_sys_allowed(s, tlb.translated_addr + off, len)) {
                return false;
            }
        }
        if (!n || n >= len) {
            break;
        }
        addr += n;
        len -= n;
    }
    return true;
}

/*
 * Bus DMA. One that reset the device (see VdxgCore.reset_gen) fails, so
 * that the loop doing it stops there.
 */
static MemTxResult vdxg_dma_rw(VdxgCore *s, uint64_t addr, void *buf,
                               uint64_t len, DMADirection dir)
{
    uint32_t gen = s->reset_gen;
    MemTxResult res;

    if (!vdxg_dma_allowed(s, addr, len, dir)) {
        qemu_log_mask(LOG_GUEST_ERROR, "vdxg: VF %u %s 0x%" PRIx64
                      " would reach a vdxg BAR or MMCFG\n", s->vf_index,
                      dir == DMA_DIRECTION_TO_DEVICE ? "read of" : "write to",
                      addr);
        return MEMTX_ACCESS_ERROR;
    }
    res = pci_dma_rw(s->pdev, addr, buf, len, dir,
                     MEMTXATTRS_UNSPECIFIED);
    return s->reset_gen == gen ? res : MEMTX_ERROR;
}

MemTxResult vdxg_dma_read(VdxgCore *s, uint64_t addr, void *buf,
                          uint64_t len)
{
    return vdxg_dma_rw(s, addr, buf, len, DMA_DIRECTION_TO_DEVICE);
}

static MemTxResult vdxg_dma_write(VdxgCore *s, uint64_t addr,
                                  const void *buf, uint64_t len)
{
    return vdxg_dma_rw(s, addr, (void *)buf, len,
                       DMA_DIRECTION_FROM_DEVICE);
}

/*
 * The host address of the page of guest memory at bus address @addr, for
 * reads, or for writes too if @write, when the function may reach it and
 * it is RAM: a mapping vdxg_dma_unmap_page() ends (which marks a page
 * mapped for writing dirty). NULL otherwise: the caller then goes through
 * vdxg_dma_read() and its write twin, access by access.
 */
void *vdxg_dma_map_page(VdxgCore *s, uint64_t addr, bool write)
{
    DMADirection dir = write ? DMA_DIRECTION_FROM_DEVICE :
                               DMA_DIRECTION_TO_DEVICE;
    dma_addr_t len = VDXG_GPU_PAGE_SIZE;
    MemoryRegion *mr;
    hwaddr xlat, l = len;
    void *p;

    if ((addr & VDXG_PAGE_MASK) || !vdxg_dma_allowed(s, addr, len, dir)) {
        return NULL;
    }
    WITH_RCU_READ_LOCK_GUARD() {
        mr = address_space_translate(pci_get_address_space(s->pdev), addr,
                                     &xlat, &l, write,
                                     MEMTXATTRS_UNSPECIFIED);
        if (l < len ||
            !memory_access_is_direct(mr, write, MEMTXATTRS_UNSPECIFIED)) {
            return NULL;
        }
    }
    p = pci_dma_map(s->pdev, addr, &len, dir);
    if (p && len != VDXG_GPU_PAGE_SIZE) {
        pci_dma_unmap(s->pdev, p, len, dir, 0);
        return NULL;
    }
    return p;
}

void vdxg_dma_unmap_page(VdxgCore *s, void *p, bool write)
{
    pci_dma_unmap(s->pdev, p, VDXG_GPU_PAGE_SIZE,
                  write ? DMA_DIRECTION_FROM_DEVICE : DMA_DIRECTION_TO_DEVICE,
                  write ? VDXG_GPU_PAGE_SIZE : 0);
}

void vdxg_tlb_flush(VdxgCore *s, const char *why)
{
    trace_vdxg_tlb_flush(why);
    s->tlb_valid = 0;
}

/*
 * The GART entry of aperture page @page, through the TLB: a direct-mapped
 * cache of VDXG_TLB_ENTRIES entries indexed by the page number. An entry
 * is kept until it is evicted by another page or the TLB is flushed, so a
 * GART entry changed without a flush may still translate to its old page.
 */
static uint64_t vdxg_gart_pte(VdxgCore *s, uint32_t page)
{
    unsigned int slot = page % VDXG_TLB_ENTRIES;
    uint64_t off = s->gart_table + (uint64_t)page * 8;
    uint64_t pte = 0;

    if ((s->tlb_valid & BIT_ULL(slot)) && s->tlb_page[slot] == page) {
        s->tlb_hits++;
        return s->tlb_pte[slot];
    }
    /*
     * GART_TABLE only takes values that keep the whole table in VRAM. On a
     * VF, an entry in an unbacked page reads as invalid.
     */
    if (vdxg_in_vram(s, off, 8) &&
        vdxg_vram_xlate(s, off, 8, &off) == 8) {
        pte = ldq_le_p(s->vram_ptr + off);
    }
    s->tlb_misses++;
    s->tlb_page[slot] = page;
    s->tlb_pte[slot] = pte;
    s->tlb_valid |= BIT_ULL(slot);
    trace_vdxg_tlb_fill(page, pte);
    return pte;
}

/* The bus address an aperture address goes to: its page or the dummy page */
static uint64_t vdxg_gart_translate(VdxgCore *s, uint64_t gpu)
{
    uint64_t page = (gpu - VDXG_APERTURE_BASE) >> VDXG_GPU_PAGE_SHIFT;
    uint64_t pte = 0;

    if (s->gart_ctrl & VDXG_GART_CTRL_ENABLE) {
        pte = vdxg_gart_pte(s, page);
    }
    if (pte & VDXG_GART_PTE_VALID) {
        return (pte & VDXG_GART_PTE_ADDR_MASK) | (gpu & VDXG_PAGE_MASK);
    }
    return s->dummy_page | (gpu & VDXG_PAGE_MASK);
}

/* The piece of at most @len bytes at GPU address @gpu. */
bool vdxg_gpu_seg(VdxgCore *s, uint64_t gpu, uint64_t len,
                  VdxgSeg *seg, VdxgErr *err)
{
    seg->zero = false;
    if (vdxg_in_vram(s, gpu, len)) {
        seg->vram = true;
        seg->len = vdxg_vram_xlate(s, gpu, len, &seg->addr);
        if (!seg->len) {
            return vdxg_set_err(err, VDXG_FAULT_ADDRESS, gpu);
        }
    } else if (vdxg_in_aperture(s, gpu, len)) {
        seg->vram = false;
        seg->addr = vdxg_gart_translate(s, gpu);
        seg->len = MIN(len, VDXG_GPU_PAGE_SIZE - (gpu & VDXG_PAGE_MASK));
    } else {
        return vdxg_set_err(err, VDXG_FAULT_ADDRESS, gpu);
    }
    seg->fault_addr = gpu;
    return true;
}

bool vdxg_seg_read(VdxgCore *s, const VdxgSeg *seg, void *buf,
                   uint64_t len, VdxgErr *err)
{
    if (seg->vram) {
        memcpy(buf, s->vram_ptr + seg->addr, len);
    } else if (vdxg_dma_read(s, seg->addr, buf, len) != MEMTX_OK) {
        trace_vdxg_dma_error(false, seg->addr, len);
        return vdxg_set_err(err, VDXG_FAULT_ADDRESS, seg->fault_addr);
    }
    return true;
}

bool vdxg_seg_write(VdxgCore *s, const VdxgSeg *seg, const void *buf,
                    uint64_t len, VdxgErr *err)
{
    if (seg->vram) {
        memcpy(s->vram_ptr + seg->addr, buf, len);
        memory_region_set_dirty(s->vram_mr, seg->addr, len);
    } else if (vdxg_dma_write(s, seg->addr, buf, len) != MEMTX_OK) {
        trace_vdxg_dma_error(true, seg->addr, len);
        return vdxg_set_err(err, VDXG_FAULT_ADDRESS, seg->fault_addr);
    }
    return true;
}

/* Read or write @len bytes at GPU address @gpu. */
bool vdxg_gpu_rw(VdxgCore *s, uint64_t gpu, void *buf, uint64_t len,
                 bool is_write, VdxgErr *err)
{
    uint8_t *p = buf;
    VdxgSeg seg;

    if (!vdxg_gpu_range_ok(s, gpu, len)) {
        return vdxg_set_err(err, VDXG_FAULT_ADDRESS, gpu);
    }
    while (len) {
        if (!vdxg_gpu_seg(s, gpu, len, &seg, err)) {
            return false;
        }
        if (is_write ? !vdxg_seg_write(s, &seg, p, seg.len, err) :
                       !vdxg_seg_read(s, &seg, p, seg.len, err)) {
            return false;
        }
        gpu += seg.len;
        p += seg.len;
        len -= seg.len;
    }
    return true;
}

/*
 * Fill @len bytes at @p with copies of the @unit bytes at @pat (@len a
 * multiple of @unit): the first copy, then memcpy of what is done, doubling,
 * so that a row or a run costs a few memcpy calls, not a store per pixel.
 */
void vdxg_fill_pattern(uint8_t *p, uint64_t len, const uint8_t *pat,
                       unsigned int unit)
{
    uint64_t done, n;

    if (len < unit) {
        return;
    }
    memcpy(p, pat, unit);
    if (unit == 4 && pat[0] == pat[1] && pat[0] == pat[2] &&
        pat[0] == pat[3]) {
        memset(p, pat[0], len);
        return;
    }
    for (done = unit; done < len; done += n) {
        /* At most 64 KiB at a time: the source stays in the cache. */
        n = MIN(MIN(done, len - done), 64 * KiB);
        memcpy(p + done, p, n);
    }
}
