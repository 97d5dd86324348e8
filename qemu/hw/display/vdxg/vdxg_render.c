/*
 * vdxg: the RENDER engine's command set: pixel formats, SET_SURFACE,
 * FILL_RECT, COPY_RECT, BLEND, DRAW_TRIANGLES, FENCE and WAIT
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "qemu/log.h"
#include "vdxg_int.h"
#include "vdxg_texture.h"
#include "hw/display/trace.h"

/* Work charged besides the pixels (VDXG_COST_PIXEL, VDXG_COST_SHADE) */
#define VDXG_COST_BUS           32      /* an access through the aperture */
#define VDXG_COST_TRIANGLE      64      /* reading and setting one up */

/* COPY_RECT and BLEND phases of a band (VdxgRender.phase) */
#define VDXG_BAND_READ          0       /* the source rows go to the buffer */
#define VDXG_BAND_WRITE         1       /* the buffer goes to DST */

static const uint8_t vdxg_rd_lengths[VDXG_RD_NUM_OPS_3D] = {
    [VDXG_RD_NOP] = VDXG_RD_NOP_LEN,
    [VDXG_RD_FENCE] = VDXG_RD_FENCE_LEN,
    [VDXG_RD_WAIT] = VDXG_RD_WAIT_LEN,
    [VDXG_RD_SET_SURFACE] = VDXG_RD_SET_SURFACE_LEN,
    [VDXG_RD_FILL_RECT] = VDXG_RD_FILL_RECT_LEN,
    [VDXG_RD_COPY_RECT] = VDXG_RD_COPY_RECT_LEN,
    [VDXG_RD_BLEND] = VDXG_RD_BLEND_LEN,
    [VDXG_RD_DRAW_TRIANGLES] = VDXG_RD_DRAW_TRIANGLES_LEN,
    /* SET_STATE: 3 to VDXG_RD_CMD_MAX_LEN */
    [VDXG_RD_LOAD_STATE] = VDXG_RD_LOAD_STATE_LEN,
    [VDXG_RD_SET_SHADER] = VDXG_RD_SET_SHADER_LEN,
    [VDXG_RD_SET_CONSTANTS] = VDXG_RD_SET_CONSTANTS_LEN,
    [VDXG_RD_SET_VERTEX_BUFFER] = VDXG_RD_SET_VERTEX_BUFFER_LEN,
    [VDXG_RD_SET_INDEX_BUFFER] = VDXG_RD_SET_INDEX_BUFFER_LEN,
    [VDXG_RD_SET_TEXTURE] = VDXG_RD_SET_TEXTURE_LEN,
    [VDXG_RD_DRAW] = VDXG_RD_DRAW_LEN,
    [VDXG_RD_DRAW_INDEXED] = VDXG_RD_DRAW_INDEXED_LEN,
    [VDXG_RD_CLEAR] = VDXG_RD_CLEAR_LEN,
};

/* Is @len the length of command @op? */
static bool vdxg_rd_len_ok(uint32_t op, uint32_t len)
{
    if (op == VDXG_RD_SET_STATE) {
        return len >= VDXG_RD_SET_STATE_LEN(1) && len <= VDXG_RD_CMD_MAX_LEN;
    }
    return len == vdxg_rd_lengths[op];
}

/* Bytes per pixel of each format; 0 for the invalid ones */
#define vdxg_fmt_cpp vdxg_fmt3d_cpp

uint32_t vdxg_fmt_bpp(uint32_t format)
{
    return format < VDXG_NUM_FMTS_3D ? vdxg_fmt_cpp[format] : 0;
}

/* The formats SET_SURFACE takes in @slot */
static bool vdxg_surface_format_ok(VdxgCore *s, uint32_t slot,
                                   uint32_t format)
{
    bool depth = format == VDXG_FMT_D32 || format == VDXG_FMT_D16 ||
                 format == VDXG_FMT_D24S8;

    if (!(s->caps & VDXG_CAP_3D)) {
        return format && format < VDXG_NUM_FMTS &&
               (slot == VDXG_SLOT_DEPTH) == (format == VDXG_FMT_D32);
    }
    if (slot == VDXG_SLOT_DEPTH) {
        return depth;
    }
    return format == VDXG_FMT_XRGB8888 || format == VDXG_FMT_ARGB8888 ||
           format == VDXG_FMT_RGB565 || format == VDXG_FMT_ABGR8888 ||
           format == VDXG_FMT_RGBA4444 || format == VDXG_FMT_RGBA5551;
}

/* Bytes from a surface's address to the end of its last pixel */
static uint64_t vdxg_surface_span(const VdxgSurface *sf)
{
    return (uint64_t)sf->pitch * (sf->height - 1) +
           (uint64_t)sf->width * vdxg_fmt_cpp[sf->format];
}

/* The top of the GPU virtual address space */
#define VDXG_VA_LIMIT           (1ull << VDXG_VM_VA_BITS)

/*
 * Can @sf be bound to @slot? Returns VDXG_FAULT_NONE, or the reason of the
 * fault that SET_SURFACE raises. In virtual mode (@virt) the surface only
 * has to lie below 2^48: each page is checked when it is accessed.
 */
uint32_t vdxg_surface_check(VdxgCore *s, uint32_t slot,
                            const VdxgSurface *sf, bool virt)
{
    uint32_t cpp;

    if (slot >= VDXG_NUM_SLOTS ||
        !vdxg_surface_format_ok(s, slot, sf->format)) {
        return VDXG_FAULT_PARAM;
    }
    cpp = vdxg_fmt_cpp[sf->format];
    if (!sf->width || sf->width > VDXG_SURF_MAX_DIM ||
        !sf->height || sf->height > VDXG_SURF_MAX_DIM ||
        sf->pitch % 4 || sf->pitch < sf->width * cpp ||
        sf->pitch > VDXG_SURF_MAX_PITCH || sf->addr % cpp) {
        return VDXG_FAULT_PARAM;
    }
    if (virt) {
        if (sf->addr >= VDXG_VA_LIMIT ||
            vdxg_surface_span(sf) > VDXG_VA_LIMIT - sf->addr) {
            return VDXG_FAULT_ADDRESS;
        }
    } else if (!vdxg_gpu_range_ok(s, sf->addr, vdxg_surface_span(sf))) {
        return VDXG_FAULT_ADDRESS;
    }
    return VDXG_FAULT_NONE;
}

/*
 * Read, write or fetch (@access, VDXG_ACCESS_*) @len bytes at @addr for
 * the entry in progress: a GPU address, or in virtual mode a virtual
 * address of the entry's address space, page by page through the
 * engine's TLB (VDXG_COST_XLATE each, twice for a system page). A null
 * page reads zeros and drops what is written; a fault names the first
 * address that failed.
 */
bool vdxg_rd_rw(VdxgCore *s, VdxgEngine *e, uint64_t addr, void *buf,
                uint64_t len, uint32_t access, int64_t *budget,
                VdxgErr *err)
{
    bool is_write = access == VDXG_ACCESS_WRITE;
    uint8_t *p = buf;
    VdxgSeg seg;

    if (!e->virt) {
        return vdxg_gpu_rw(s, addr, buf, len, is_write, err);
    }
    while (len) {
        *budget -= VDXG_COST_XLATE;
        if (!vdxg_vm_seg(s, e, e->as, addr, len, access, &seg, err)) {
            return false;
        }
        if (seg.zero) {
            if (!is_write) {
                memset(p, 0, seg.len);
            }
        } else {
            if (!seg.vram) {
                /* A bus access costs as much again. */
                *budget -= VDXG_COST_XLATE;
            }
            if (is_write ? !vdxg_seg_write(s, &seg, p, seg.len, err) :
                           !vdxg_seg_read(s, &seg, p, seg.len, err)) {
                return false;
            }
        }
        addr += seg.len;
        p += seg.len;
        len -= seg.len;
    }
    return true;
}

/* The context state area: where a virtual-mode context keeps its slots */

#define VDXG_CTX_STATE_USED     (VDXG_CTX_STATE_DW_END * 4)
#define VDXG_CTX_SLOTS_BYTES    \
    (VDXG_NUM_SLOTS * VDXG_CTX_STATE_SLOT_DWORDS * 4)

/*
 * At the start of an EXEC_VIRTUAL entry with a state area: bind the slots
 * it holds. The area must lie inside VRAM and be readable (on a VF,
 * backed): else ADDRESS. A wrong magic or version, an unset slot with a
 * non-zero dword, a bound flag other than 0 or 1, a reserved dword set or
 * a bound slot that SET_SURFACE would reject: PARAM. FAULT_ADDR is the
 * area's VRAM offset, or for ADDRESS the byte that failed.
 */
bool vdxg_rd_state_load(VdxgCore *s, VdxgEngine *e, VdxgErr *err)
{
    uint8_t buf[VDXG_CTX_STATE_USED];
    uint32_t dw[VDXG_CTX_STATE_SLOT_DWORDS];
    VdxgSurface surf[VDXG_NUM_SLOTS] = { 0 };
    unsigned int i, j;
    uint64_t area = e->state_area;

    if (!vdxg_in_vram(s, area, VDXG_CTX_STATE_SIZE)) {
        return vdxg_set_err(err, VDXG_FAULT_ADDRESS, area);
    }
    if (!vdxg_vram_rw(s, area, buf, sizeof(buf), false, err)) {
        return false;
    }
    if (ldl_le_p(buf + VDXG_CTX_STATE_DW_MAGIC * 4) != VDXG_CTX_STATE_MAGIC ||
        ldl_le_p(buf + VDXG_CTX_STATE_DW_VERSION * 4) !=
        VDXG_CTX_STATE_VERSION) {
        return vdxg_set_err(err, VDXG_FAULT_PARAM, area);
    }
    for (i = 0; i < VDXG_NUM_SLOTS; i++) {
        for (j = 0; j < ARRAY_SIZE(dw); j++) {
            dw[j] = ldl_le_p(buf + (VDXG_CTX_STATE_SLOT(i) + j) * 4);
        }
        if (dw[VDXG_CTX_SLOT_DW_RSVD] || dw[VDXG_CTX_SLOT_DW_BOUND] > 1) {
            return vdxg_set_err(err, VDXG_FAULT_PARAM, area);
        }
        if (!dw[VDXG_CTX_SLOT_DW_BOUND]) {
            for (j = 0; j < ARRAY_SIZE(dw); j++) {
                if (dw[j]) {
                    return vdxg_set_err(err, VDXG_FAULT_PARAM, area);
                }
            }
            continue;
        }
        surf[i] = (VdxgSurface) {
            .addr = vdxg_dw64(dw, VDXG_CTX_SLOT_DW_ADDR),
            .format = dw[VDXG_CTX_SLOT_DW_FORMAT],
            .width = dw[VDXG_CTX_SLOT_DW_WIDTH],
            .height = dw[VDXG_CTX_SLOT_DW_HEIGHT],
            .pitch = dw[VDXG_CTX_SLOT_DW_PITCH],
        };
        if (vdxg_surface_check(s, i, &surf[i], true) != VDXG_FAULT_NONE) {
            return vdxg_set_err(err, VDXG_FAULT_PARAM, area);
        }
    }
    if (e->g3d && !vdxg_3d_state_load(s, e, buf, err)) {
        return false;
    }
    memcpy(e->rd.surf, surf, sizeof(surf));
    trace_vdxg_rd_state(e->as, area, false);
    return true;
}

/* When the entry completes, before its fence: store the slots back. */
bool vdxg_rd_state_store(VdxgCore *s, VdxgEngine *e, VdxgErr *err)
{
    uint8_t buf[VDXG_CTX_STATE_USED] = { 0 };
    uint8_t *slots = buf + VDXG_CTX_STATE_DW_SLOTS * 4;
    unsigned int i;
    uint8_t *p;

    for (i = 0; i < VDXG_NUM_SLOTS; i++) {
        const VdxgSurface *sf = &e->rd.surf[i];

        if (!sf->format) {
            continue;
        }
        p = slots + i * VDXG_CTX_STATE_SLOT_DWORDS * 4;
        stl_le_p(p + VDXG_CTX_SLOT_DW_BOUND * 4, 1);
        stq_le_p(p + VDXG_CTX_SLOT_DW_ADDR * 4, sf->addr);
        stl_le_p(p + VDXG_CTX_SLOT_DW_FORMAT * 4, sf->format);
        stl_le_p(p + VDXG_CTX_SLOT_DW_WIDTH * 4, sf->width);
        stl_le_p(p + VDXG_CTX_SLOT_DW_HEIGHT * 4, sf->height);
        stl_le_p(p + VDXG_CTX_SLOT_DW_PITCH * 4, sf->pitch);
    }
    trace_vdxg_rd_state(e->as, e->state_area, true);
    if (!vdxg_vram_rw(s, e->state_area + VDXG_CTX_STATE_DW_SLOTS * 4, slots,
                      VDXG_CTX_SLOTS_BYTES, true, err)) {
        return false;
    }
    if (!e->g3d) {
        return true;
    }
    vdxg_3d_state_store(e, buf);
    return vdxg_vram_rw(s, e->state_area + VDXG_CTX_STATE_DW_REGS * 4,
                        buf + VDXG_CTX_STATE_DW_REGS * 4,
                        (VDXG_CTX_STATE_DW_END - VDXG_CTX_STATE_DW_REGS) * 4,
                        true, err);
}

/* An n-bit channel widened to 8 bits */
static uint32_t vdxg_widen(uint32_t c, unsigned int n)
{
    uint32_t max = (1u << n) - 1;

    return (c * 255 + max / 2) / max;
}

/* A pixel (ARGB8888) from its stored form, and back */
static uint32_t vdxg_px_to_argb(uint32_t format, uint32_t raw)
{
    uint32_t r5, g6, b5;

    switch (format) {
    case VDXG_FMT_XRGB8888:
        return raw | 0xff000000u;
    case VDXG_FMT_ABGR8888:
        return (raw & 0xff00ff00u) | extract32(raw, 16, 8) |
               extract32(raw, 0, 8) << 16;
    case VDXG_FMT_RGBA4444:
        return vdxg_widen(extract32(raw, 0, 4), 4) << 24 |
               vdxg_widen(extract32(raw, 12, 4), 4) << 16 |
               vdxg_widen(extract32(raw, 8, 4), 4) << 8 |
               vdxg_widen(extract32(raw, 4, 4), 4);
    case VDXG_FMT_RGBA5551:
        return vdxg_widen(extract32(raw, 0, 1), 1) << 24 |
               vdxg_widen(extract32(raw, 11, 5), 5) << 16 |
               vdxg_widen(extract32(raw, 6, 5), 5) << 8 |
               vdxg_widen(extract32(raw, 1, 5), 5);
    case VDXG_FMT_RGB565:
        r5 = extract32(raw, 11, 5);
        g6 = extract32(raw, 5, 6);
        b5 = extract32(raw, 0, 5);
        return 0xff000000u | (r5 << 3 | r5 >> 2) << 16 |
               (g6 << 2 | g6 >> 4) << 8 | (b5 << 3 | b5 >> 2);
    default:
        return raw;
    }
}

static uint32_t vdxg_px_from_argb(uint32_t format, uint32_t argb)
{
    switch (format) {
    case VDXG_FMT_XRGB8888:
        return argb | 0xff000000u;
    case VDXG_FMT_RGB565:
        return extract32(argb, 19, 5) << 11 | extract32(argb, 10, 6) << 5 |
               extract32(argb, 3, 5);
    case VDXG_FMT_ABGR8888:
        return (argb & 0xff00ff00u) | extract32(argb, 16, 8) |
               extract32(argb, 0, 8) << 16;
    case VDXG_FMT_RGBA4444:
        return extract32(argb, 20, 4) << 12 | extract32(argb, 12, 4) << 8 |
               extract32(argb, 4, 4) << 4 | extract32(argb, 28, 4);
    case VDXG_FMT_RGBA5551:
        return extract32(argb, 19, 5) << 11 | extract32(argb, 11, 5) << 6 |
               extract32(argb, 3, 5) << 1 | extract32(argb, 31, 1);
    default:
        return argb;
    }
}

void vdxg_rd_run_init(VdxgRdRun *r, VdxgCore *s, VdxgEngine *e,
                      int64_t *budget, VdxgErr *err)
{
    unsigned int i;

    r->s = s;
    r->e = e;
    r->budget = budget;
    r->err = err;
    r->gen = s->reset_gen;
    if (!e->vrun) {
        vdxg_engine_new_run(e);
    }
    r->run = e->vrun;
    r->vp = e->rd_vp;
    for (i = 0; i < VDXG_NUM_SLOTS; i++) {
        r->dirty_lo[i] = UINT64_MAX;
        r->dirty_hi[i] = 0;
    }
}

/*
 * What the page caches of @e hold is forgotten: a slice of the engine
 * starts, or an entry (another address space, perhaps).
 */
void vdxg_engine_new_run(VdxgEngine *e)
{
    e->vrun = ++e->s->run_seq;
}

/* The slice of @e ends: the system pages it mapped are unmapped. */
void vdxg_engine_unmap(VdxgEngine *e)
{
    unsigned int i;

    for (i = 0; i < e->nmaps; i++) {
        vdxg_dma_unmap_page(e->s, e->map[i], e->map_write[i]);
    }
    e->nmaps = 0;
    vdxg_engine_new_run(e);
}

/* The run stops: the VRAM it wrote is dirty. */
void vdxg_rd_run_flush(VdxgRdRun *r)
{
    unsigned int i;

    for (i = 0; i < VDXG_NUM_SLOTS; i++) {
        if (r->dirty_hi[i] > r->dirty_lo[i]) {
            memory_region_set_dirty(r->s->vram_mr, r->dirty_lo[i],
                                    r->dirty_hi[i] - r->dirty_lo[i]);
        }
    }
}

/* Virtual mode: map the system page at bus address @addr for the slice */
static uint8_t *vdxg_rd_map(VdxgRdRun *r, uint64_t addr, bool write)
{
    VdxgEngine *e = r->e;
    void *p;

    if (e->nmaps == VDXG_ENGINE_MAPS) {
        return NULL;
    }
    p = vdxg_dma_map_page(r->s, addr, write);
    if (p) {
        e->map[e->nmaps] = p;
        e->map_write[e->nmaps++] = write;
    }
    return p;
}

/*
 * The slow half of vdxg_vpages_get(): a page the cache does not have
 * (translated; a VRAM page marked dirty as a whole for a write, a RAM page
 * mapped until the slice ends), one it knows is neither, or a cache of an
 * earlier run (emptied first).
 */
uint8_t *vdxg_vpages_miss(VdxgRdRun *r, VdxgVPages *vp, uint64_t va,
                          bool write)
{
    uint64_t vpn = va >> VDXG_GPU_PAGE_SHIFT;
    unsigned int i = vpn % VDXG_VPAGES, k;
    VdxgErr err = { 0 };
    VdxgSeg seg;

    if (r->s->reset_gen != r->gen) {
        return NULL;
    }
    if (vp->run != r->run) {
        for (k = 0; k < VDXG_VPAGES; k++) {
            vp->vpn[k] = UINT64_MAX;
        }
        vp->run = r->run;
    }
    if (vp->vpn[i] == vpn && !vp->ptr[i]) {
        /* Neither VRAM nor mapped: each access goes on its own. */
        return NULL;
    }
    vp->vpn[i] = vpn;
    vp->ptr[i] = NULL;
    *r->budget -= VDXG_COST_XLATE;
    if (!vdxg_vm_seg(r->s, r->e, r->e->as, va & ~(uint64_t)VDXG_PAGE_MASK,
                     VDXG_GPU_PAGE_SIZE,
                     write ? VDXG_ACCESS_WRITE : VDXG_ACCESS_READ, &seg,
                     &err) ||
        seg.zero || seg.len < VDXG_GPU_PAGE_SIZE) {
        if (err.vm && err.reason == VDXG_FAULT_VM_READ_ONLY) {
            /* A read-only page: its reads can still go the fast way. */
            vp->vpn[i] = UINT64_MAX;
        }
        return NULL;
    }
    if (!seg.vram) {
        /* System memory: as vdxg_rd_rw, a bus access costs as much again */
        *r->budget -= VDXG_COST_XLATE;
        vp->ptr[i] = vdxg_rd_map(r, seg.addr, write);
        vp->write[i] = write;
        return vp->ptr[i] ? vp->ptr[i] + (va & VDXG_PAGE_MASK) : NULL;
    }
    if (write) {
        memory_region_set_dirty(r->s->vram_mr, seg.addr, VDXG_GPU_PAGE_SIZE);
    }
    vp->ptr[i] = r->s->vram_ptr + seg.addr;
    vp->write[i] = write;
    return vp->ptr[i] + (va & VDXG_PAGE_MASK);
}

/*
 * Virtual mode: the host address of [@va, @va + @len) when it is all
 * readable VRAM, in one piece on the host (on a VF, of one backing
 * range), found in at most @max translations, each charged; else NULL.
 * Like the pages of VdxgVPages, the answer holds for the run only.
 */
const uint8_t *vdxg_rd_window(VdxgRdRun *r, uint64_t va, uint64_t len,
                              unsigned int max)
{
    uint64_t done = 0, base = 0;
    VdxgErr err = { 0 };
    VdxgSeg seg;

    if (!len || r->s->reset_gen != r->gen) {
        return NULL;
    }
    while (done < len) {
        if (!max--) {
            return NULL;
        }
        *r->budget -= VDXG_COST_XLATE;
        if (!vdxg_vm_seg(r->s, r->e, r->e->as, va + done, len - done,
                         VDXG_ACCESS_READ, &seg, &err) ||
            seg.zero || !seg.vram || (done && seg.addr != base + done)) {
            return NULL;
        }
        if (!done) {
            base = seg.addr;
        }
        done += seg.len;
    }
    return r->s->vram_ptr + base;
}

/*
 * The stored value of pixel (x, y) of the surface in @slot, which the
 * caller keeps inside the surface. A bound surface lies wholly in VRAM or
 * wholly in the aperture, where each pixel is in one page.
 */
bool vdxg_px_load(VdxgRdRun *r, unsigned int slot, uint32_t x,
                  uint32_t y, uint32_t *raw)
{
    const VdxgSurface *sf = &r->e->rd.surf[slot];
    uint32_t cpp = vdxg_fmt_cpp[sf->format];
    uint64_t gpu = sf->addr + (uint64_t)y * sf->pitch + (uint64_t)x * cpp;
    uint8_t buf[4];
    const uint8_t *p = buf;

    if (r->e->virt) {
        /* A pixel is aligned to its size: it is in one page. */
        p = vdxg_vpages_get(r, &r->vp[slot], gpu, false);
        if (!p) {
            p = buf;
            if (!vdxg_rd_rw(r->s, r->e, gpu, buf, cpp, VDXG_ACCESS_READ,
                            r->budget, r->err)) {
                return false;
            }
        }
    } else if (gpu < r->s->vram_size && !r->s->vf) {
        p = r->s->vram_ptr + gpu;
    } else {
        /* Through the aperture or a VF's backing table */
        *r->budget -= VDXG_COST_BUS;
        if (!vdxg_gpu_rw(r->s, gpu, buf, cpp, false, r->err)) {
            return false;
        }
    }
    *raw = cpp == 2 ? lduw_le_p(p) : ldl_le_p(p);
    return true;
}

bool vdxg_px_store(VdxgRdRun *r, unsigned int slot, uint32_t x,
                   uint32_t y, uint32_t raw)
{
    const VdxgSurface *sf = &r->e->rd.surf[slot];
    uint32_t cpp = vdxg_fmt_cpp[sf->format];
    uint64_t gpu = sf->addr + (uint64_t)y * sf->pitch + (uint64_t)x * cpp;
    uint8_t buf[4];

    if (cpp == 2) {
        stw_le_p(buf, raw);
    } else {
        stl_le_p(buf, raw);
    }
    if (r->e->virt) {
        uint8_t *p = vdxg_vpages_get(r, &r->vp[slot], gpu, true);

        if (p) {
            memcpy(p, buf, cpp);
            return true;
        }
        return vdxg_rd_rw(r->s, r->e, gpu, buf, cpp, VDXG_ACCESS_WRITE,
                          r->budget, r->err);
    }
    if (gpu < r->s->vram_size) {
        if (r->s->vf) {
            /* A VF's VRAM: through its backing table */
            *r->budget -= VDXG_COST_BUS;
            return vdxg_gpu_rw(r->s, gpu, buf, cpp, true, r->err);
        }
        memcpy(r->s->vram_ptr + gpu, buf, cpp);
        r->dirty_lo[slot] = MIN(r->dirty_lo[slot], gpu);
        r->dirty_hi[slot] = MAX(r->dirty_hi[slot], gpu + cpp);
        return true;
    }
    *r->budget -= VDXG_COST_BUS;
    return vdxg_gpu_rw(r->s, gpu, buf, cpp, true, r->err);
}

/*
 * The fast path of whole runs of pixels: @n pixels from (x, y) of the
 * surface in @slot, on one row, as a host pointer into VRAM, or NULL when
 * they are not plain VRAM of the PF (a VF's VRAM goes through its backing
 * table, the aperture through the GART: pixel by pixel). The run is checked
 * as a whole here; the caller keeps it inside the surface. A run to write
 * is marked dirty when the command stops.
 */
uint8_t *vdxg_px_run(VdxgRdRun *r, unsigned int slot, uint32_t x,
                     uint32_t y, uint32_t n, bool write)
{
    const VdxgSurface *sf = &r->e->rd.surf[slot];
    uint32_t cpp = vdxg_fmt_cpp[sf->format];
    uint64_t gpu = sf->addr + (uint64_t)y * sf->pitch + (uint64_t)x * cpp;
    uint64_t len = (uint64_t)n * cpp;
    VdxgSeg seg;
    VdxgErr err;

    if (r->e->virt) {
        /*
         * A run inside one page of VRAM (on a VF, one backing range): at
         * once. Anything else goes pixel by pixel, where a fault is
         * reported with the pixel's address.
         */
        if (!n) {
            return NULL;
        }
        *r->budget -= VDXG_COST_XLATE;
        if (!vdxg_vm_seg(r->s, r->e, r->e->as, gpu, len,
                         write ? VDXG_ACCESS_WRITE : VDXG_ACCESS_READ,
                         &seg, &err) ||
            seg.zero || !seg.vram || seg.len < len) {
            return NULL;
        }
        if (write) {
            memory_region_set_dirty(r->s->vram_mr, seg.addr, len);
        }
        return r->s->vram_ptr + seg.addr;
    }
    if (r->s->vf || !n || !vdxg_in_vram(r->s, gpu, len)) {
        return NULL;
    }
    if (write) {
        r->dirty_lo[slot] = MIN(r->dirty_lo[slot], gpu);
        r->dirty_hi[slot] = MAX(r->dirty_hi[slot], gpu + len);
    }
    return r->s->vram_ptr + gpu;
}

/*
 * Virtual mode: how many pixels of the row from (x, y) of the surface in
 * @slot lie in the 4 KiB page of (x, y), towards the row's end, or with
 * @backward towards its start (pixel (x, y) included). A run of them can
 * take the fast path of vdxg_px_run.
 */
uint32_t vdxg_px_page_left(VdxgRdRun *r, unsigned int slot, uint32_t x,
                           uint32_t y, bool backward)
{
    const VdxgSurface *sf = &r->e->rd.surf[slot];
    uint32_t cpp = vdxg_fmt_cpp[sf->format];
    uint64_t gpu = sf->addr + (uint64_t)y * sf->pitch + (uint64_t)x * cpp;
    uint32_t off = gpu & VDXG_PAGE_MASK;

    return backward ? off / cpp + 1 : (VDXG_GPU_PAGE_SIZE - off) / cpp;
}

/* How many pixels at VDXG_COST_PIXEL each a positive budget still covers */
static uint64_t vdxg_px_budget(const VdxgRdRun *r)
{
    return ((uint64_t)*r->budget + VDXG_COST_PIXEL - 1) / VDXG_COST_PIXEL;
}

/* Pixel (x, y) of the surface in @slot as ARGB8888 */
static bool vdxg_px_read(VdxgRdRun *r, unsigned int slot, uint32_t x,
                         uint32_t y, uint32_t *argb)
{
    uint32_t raw;

    if (!vdxg_px_load(r, slot, x, y, &raw)) {
        return false;
    }
    *argb = vdxg_px_to_argb(r->e->rd.surf[slot].format, raw);
    return true;
}

static bool vdxg_px_write(VdxgRdRun *r, unsigned int slot, uint32_t x,
                          uint32_t y, uint32_t argb)
{
    return vdxg_px_store(r, slot, x, y,
                         vdxg_px_from_argb(r->e->rd.surf[slot].format,
                                           argb));
}

VdxgRun vdxg_rd_fail(VdxgRdRun *r, uint32_t reason)
{
    vdxg_set_err(r->err, reason, 0);
    return VDXG_RUN_FAULT;
}

/* The rectangle at @xy of size @wh lies inside the surface in @slot. */
static bool vdxg_rect_inside(VdxgRdRun *r, unsigned int slot, uint32_t xy,
                             uint32_t wh)
{
    const VdxgSurface *sf = &r->e->rd.surf[slot];

    return VDXG_RD_X(xy) + VDXG_RD_X(wh) <= sf->width &&
           VDXG_RD_Y(xy) + VDXG_RD_Y(wh) <= sf->height;
}

/* FILL_RECT */
static VdxgRun vdxg_rd_fill(VdxgRdRun *r, const uint32_t *dw)
{
    VdxgEngine *e = r->e;
    uint32_t x0 = VDXG_RD_X(dw[VDXG_RD_FILL_DW_XY]);
    uint32_t y0 = VDXG_RD_Y(dw[VDXG_RD_FILL_DW_XY]);
    uint32_t w = VDXG_RD_X(dw[VDXG_RD_FILL_DW_WH]);
    uint32_t h = VDXG_RD_Y(dw[VDXG_RD_FILL_DW_WH]);
    uint64_t n = (uint64_t)w * h, k = e->op_progress, m;
    uint32_t raw, x, y, cpp, end;
    uint8_t pat[4], *row;

    if (!e->rd.surf[VDXG_SLOT_DST].format) {
        return vdxg_rd_fail(r, VDXG_FAULT_PARAM);
    }
    if (!vdxg_rect_inside(r, VDXG_SLOT_DST, dw[VDXG_RD_FILL_DW_XY],
                          dw[VDXG_RD_FILL_DW_WH])) {
        return vdxg_rd_fail(r, VDXG_FAULT_BOUNDS);
    }
    if (!k) {
        trace_vdxg_rd_fill(x0, y0, w, h, dw[VDXG_RD_FILL_DW_COLOR]);
    }
    raw = vdxg_px_from_argb(e->rd.surf[VDXG_SLOT_DST].format,
                            dw[VDXG_RD_FILL_DW_COLOR]);
    cpp = vdxg_fmt_cpp[e->rd.surf[VDXG_SLOT_DST].format];
    if (cpp == 2) {
        stw_le_p(pat, raw);
    } else {
        stl_le_p(pat, raw);
    }
    /* Row by row; k counts the pixels done */
    while (k < n) {
        y = y0 + k / w;
        x = x0 + k % w;
        end = x0 + w;
        /*
         * The rest of the row, or what the budget covers, at once; in
         * virtual mode the rest of the page, and else just those pixels
         * one by one.
         */
        if (*r->budget > 0) {
            m = MIN(x0 + w - x, vdxg_px_budget(r));
            if (e->virt) {
                m = MIN(m, vdxg_px_page_left(r, VDXG_SLOT_DST, x, y, false));
                end = x + m;
            }
            row = vdxg_px_run(r, VDXG_SLOT_DST, x, y, m, true);
            if (row) {
                vdxg_fill_pattern(row, m * cpp, pat, cpp);
                *r->budget -= (int64_t)m * VDXG_COST_PIXEL;
                k += m;
                continue;
            }
        }
        for (; x < end; x++) {
            if (*r->budget <= 0) {
                e->op_progress = k;
                return VDXG_RUN_YIELD;
            }
            if (!vdxg_px_store(r, VDXG_SLOT_DST, x, y, raw)) {
                e->op_progress = k;
                return VDXG_RUN_FAULT;
            }
            *r->budget -= VDXG_COST_PIXEL;
            k++;
        }
    }
    r->s->rd_pixels += n;
    return VDXG_RUN_DONE;
}

/* BLEND of source pixel @src over destination pixel @dst, both ARGB */
static uint32_t vdxg_blend_px(uint32_t src, uint32_t dst, uint32_t alpha)
{
    uint32_t a = vdxg_div255(vdxg_ch(src, 3) * alpha);
    uint32_t out = (a + vdxg_div255(vdxg_ch(dst, 3) * (255 - a))) << 24;
    unsigned int c;

    for (c = 0; c < 3; c++) {
        out |= vdxg_div255(vdxg_ch(src, c) * a +
                           vdxg_ch(dst, c) * (255 - a)) << (c * 8);
    }
    return out;
}

/* Write source pixel @argb (ARGB) to DST at (x, y), or blend it there. */
static bool vdxg_rd_put(VdxgRdRun *r, uint32_t x, uint32_t y, uint32_t argb,
                        bool blend, uint32_t alpha)
{
    uint32_t d;

    if (blend) {
        if (!vdxg_px_read(r, VDXG_SLOT_DST, x, y, &d)) {
            return false;
        }
        argb = vdxg_blend_px(argb, d, alpha);
    }
    return vdxg_px_write(r, VDXG_SLOT_DST, x, y, argb);
}

/*
 * How COPY_RECT and BLEND honour "the source is read in full before
 * anything is written" when the two rectangles share memory.
 */
typedef enum VdxgCopyOrder {
    VDXG_COPY_FORWARD,      /* no overlap, or DST below SRC in memory */
    VDXG_COPY_BACKWARD,     /* same layout, DST above SRC: last pixel first */
    VDXG_COPY_SNAPSHOT,     /* other overlaps: through the band buffer */
} VdxgCopyOrder;

static VdxgCopyOrder vdxg_copy_order(VdxgRdRun *r, uint32_t sx, uint32_t sy,
                                     uint32_t dx, uint32_t dy, uint32_t w,
                                     uint32_t h)
{
    const VdxgSurface *src = &r->e->rd.surf[VDXG_SLOT_SRC];
    const VdxgSurface *dst = &r->e->rd.surf[VDXG_SLOT_DST];
    uint32_t scpp = vdxg_fmt_cpp[src->format];
    uint32_t dcpp = vdxg_fmt_cpp[dst->format];
    uint64_t s0 = src->addr + (uint64_t)sy * src->pitch + sx * scpp;
    uint64_t s1 = src->addr + (uint64_t)(sy + h - 1) * src->pitch +
                  (uint64_t)(sx + w) * scpp;
    uint64_t d0 = dst->addr + (uint64_t)dy * dst->pitch + dx * dcpp;
    uint64_t d1 = dst->addr + (uint64_t)(dy + h - 1) * dst->pitch +
                  (uint64_t)(dx + w) * dcpp;

    if (s1 <= d0 || d1 <= s0) {
        return VDXG_COPY_FORWARD;
    }
    if (scpp == dcpp && src->pitch == dst->pitch) {
        /*
         * Each destination pixel is its source pixel moved by d0 - s0:
         * going away from the direction of the move, every source pixel
         * is read before a write reaches it.
         */
        return d0 > s0 ? VDXG_COPY_BACKWARD : VDXG_COPY_FORWARD;
    }
    return VDXG_COPY_SNAPSHOT;
}

void vdxg_rd_snap_free(VdxgEngine *e)
{
    g_free(e->rd.snap);
    e->rd.snap = NULL;
    e->rd.snap_len = 0;
}

/*
 * Pixels lo .. lo + m - 1 of row j of a COPY_RECT at once, when each side
 * is plain VRAM of the PF. The copy converts by setting alpha at most
 * (@or_alpha). The order of the rows and runs is the per-pixel order, and
 * memmove reads a run in full before writing it, so the result is the
 * same. False when a side needs the per-pixel path.
 */
static bool vdxg_copy_run(VdxgRdRun *r, uint32_t sx, uint32_t sy,
                          uint32_t dx, uint32_t dy, uint32_t j,
                          uint32_t lo, uint32_t m, bool or_alpha)
{
    VdxgEngine *e = r->e;
    uint32_t scpp = vdxg_fmt_cpp[e->rd.surf[VDXG_SLOT_SRC].format];
    uint8_t *sp, *dp;
    uint64_t i;

    sp = vdxg_px_run(r, VDXG_SLOT_SRC, sx + lo, sy + j, m, false);
    if (!sp) {
        return false;
    }
    dp = vdxg_px_run(r, VDXG_SLOT_DST, dx + lo, dy + j, m, true);
    if (!dp) {
        return false;
    }
    memmove(dp, sp, (uint64_t)m * scpp);
    if (or_alpha) {
        for (i = 0; i < m; i++) {
            dp[i * 4 + 3] = 0xff;
        }
    }
    return true;
}

/*
 * An overlapping COPY_RECT or BLEND that needs a copy of its source: in
 * bands of rows of at most VDXG_COPY_BAND_SIZE bytes of source, each read
 * in full into the band buffer before it is written, like memmove: the
 * bottom band first when DST starts above SRC in memory, the top band
 * first otherwise. A source that fits in one band is a full snapshot.
 */
static VdxgRun vdxg_rd_copy_bands(VdxgRdRun *r, uint32_t sx, uint32_t sy,
                                  uint32_t dx, uint32_t dy, uint32_t w,
                                  uint32_t h, bool blend, uint32_t alpha,
                                  bool up)
{
    VdxgEngine *e = r->e;
    VdxgRender *rd = &e->rd;
    uint32_t sfmt = rd->surf[VDXG_SLOT_SRC].format;
    uint32_t scpp = vdxg_fmt_cpp[sfmt];
    /* A row is at most VDXG_SURF_MAX_DIM * 4 bytes: a band has one. */
    uint32_t rows = MIN(MAX(VDXG_COPY_BAND_SIZE / (w * scpp), 1), h);
    uint32_t nbands = DIV_ROUND_UP(h, rows);
    uint32_t row0, nrows, i, j, raw;
    uint64_t npx, k = 0;
    uint8_t *px;

    while (rd->band < nbands) {
        if (up) {
            row0 = h - MIN(h, (rd->band + 1) * rows);
            nrows = h - rd->band * rows - row0;
        } else {
            row0 = rd->band * rows;
            nrows = MIN(rows, h - row0);
        }
        npx = (uint64_t)nrows * w;
        k = e->op_progress;
        if (rd->phase > VDXG_BAND_WRITE || k > npx ||
            (rd->phase == VDXG_BAND_WRITE &&
             (!rd->snap || rd->snap_len < npx * scpp))) {
            /* Not a state the engine leaves: from a migration stream */
            qemu_log_mask(LOG_GUEST_ERROR, "vdxg: inconsistent state of an "
                          "overlapping copy: band %" PRIu32 " phase %" PRIu32
                          "\n", rd->band, rd->phase);
            return vdxg_rd_fail(r, VDXG_FAULT_PARAM);
        }
        if (rd->phase == VDXG_BAND_READ &&
            (!rd->snap || rd->snap_len < npx * scpp)) {
            vdxg_rd_snap_free(e);
            rd->snap_len = rows * w * scpp;
            rd->snap = g_malloc(rd->snap_len);
            k = 0;
        }
        for (; k < npx; k++) {
            if (*r->budget <= 0) {
                e->op_progress = k;
                return VDXG_RUN_YIELD;
            }
            j = row0 + k / w;
            i = k % w;
            px = rd->snap + k * scpp;
            if (rd->phase == VDXG_BAND_READ) {
                if (!vdxg_px_load(r, VDXG_SLOT_SRC, sx + i, sy + j, &raw)) {
                    goto fault;
                }
                if (scpp == 2) {
                    stw_le_p(px, raw);
                } else {
                    stl_le_p(px, raw);
                }
            } else {
                raw = scpp == 2 ? lduw_le_p(px) : ldl_le_p(px);
                if (!vdxg_rd_put(r, dx + i, dy + j, vdxg_px_to_argb(sfmt, raw),
                                 blend, alpha)) {
                    goto fault;
                }
            }
            *r->budget -= VDXG_COST_PIXEL;
        }
        if (rd->phase == VDXG_BAND_READ) {
            rd->phase = VDXG_BAND_WRITE;
        } else {
            rd->phase = VDXG_BAND_READ;
            rd->band++;
        }
        e->op_progress = 0;
    }
    vdxg_rd_snap_free(e);
    return VDXG_RUN_DONE;

fault:
    e->op_progress = k;
    return VDXG_RUN_FAULT;
}

/* COPY_RECT and BLEND */
static VdxgRun vdxg_rd_copy(VdxgRdRun *r, const uint32_t *dw, bool blend)
{
    VdxgEngine *e = r->e;
    uint32_t src_xy = dw[VDXG_RD_COPY_DW_SRC_XY];
    uint32_t dst_xy = dw[VDXG_RD_COPY_DW_DST_XY];
    uint32_t wh = dw[VDXG_RD_COPY_DW_WH];
    uint32_t alpha = blend ? dw[VDXG_RD_BLEND_DW_ALPHA] : 255;
    uint32_t sx = VDXG_RD_X(src_xy), sy = VDXG_RD_Y(src_xy);
    uint32_t dx = VDXG_RD_X(dst_xy), dy = VDXG_RD_Y(dst_xy);
    uint32_t w = VDXG_RD_X(wh), h = VDXG_RD_Y(wh);
    uint64_t n = (uint64_t)w * h, k = e->op_progress, idx;
    uint32_t sfmt, dfmt, scpp, i, j, raw, argb, m, lo, solo = 0;
    VdxgCopyOrder order;
    VdxgRun run;
    bool backward, runs, or_alpha;

    if (!e->rd.surf[VDXG_SLOT_SRC].format ||
        !e->rd.surf[VDXG_SLOT_DST].format || alpha > 255) {
        return vdxg_rd_fail(r, VDXG_FAULT_PARAM);
    }
    if (!vdxg_rect_inside(r, VDXG_SLOT_SRC, src_xy, wh) ||
        !vdxg_rect_inside(r, VDXG_SLOT_DST, dst_xy, wh)) {
        return vdxg_rd_fail(r, VDXG_FAULT_BOUNDS);
    }
    if (!n) {
        return VDXG_RUN_DONE;
    }
    sfmt = e->rd.surf[VDXG_SLOT_SRC].format;
    scpp = vdxg_fmt_cpp[sfmt];
    order = vdxg_copy_order(r, sx, sy, dx, dy, w, h);
    if (!k && !e->rd.band && !e->rd.phase) {
        trace_vdxg_rd_copy(blend, sx, sy, dx, dy, w, h, alpha, order);
    }
    if (order == VDXG_COPY_SNAPSHOT) {
        const VdxgSurface *src = &e->rd.surf[VDXG_SLOT_SRC];
        const VdxgSurface *dst = &e->rd.surf[VDXG_SLOT_DST];
        uint64_t s0 = src->addr + (uint64_t)sy * src->pitch +
                      (uint64_t)sx * vdxg_fmt_cpp[sfmt];
        uint64_t d0 = dst->addr + (uint64_t)dy * dst->pitch +
                      (uint64_t)dx * vdxg_fmt_cpp[dst->format];

        run = vdxg_rd_copy_bands(r, sx, sy, dx, dy, w, h, blend, alpha,
                                 d0 > s0);
        if (run == VDXG_RUN_DONE) {
            r->s->rd_pixels += n;
        }
        return run;
    }
    backward = order == VDXG_COPY_BACKWARD;
    /*
     * Runs of pixels at once when the copy is a move of the stored values,
     * alpha set at most: a format to itself, or XRGB8888 and ARGB8888.
     */
    dfmt = e->rd.surf[VDXG_SLOT_DST].format;
    runs = !blend &&
           (sfmt == dfmt ||
            ((sfmt == VDXG_FMT_XRGB8888 || sfmt == VDXG_FMT_ARGB8888) &&
             (dfmt == VDXG_FMT_XRGB8888 || dfmt == VDXG_FMT_ARGB8888)));
    or_alpha = scpp == 4 &&
               (sfmt == VDXG_FMT_XRGB8888 || dfmt == VDXG_FMT_XRGB8888);

    while (k < n) {
        idx = backward ? n - 1 - k : k;
        j = idx / w;
        i = idx % w;
        /* The rest of row j, in the direction of the copy */
        for (;;) {
            if (*r->budget <= 0) {
                e->op_progress = k;
                return VDXG_RUN_YIELD;
            }
            if (runs && !solo) {
                m = MIN(backward ? i + 1 : w - i, vdxg_px_budget(r));
                if (e->virt) {
                    /* Both sides' runs inside their pages */
                    m = MIN(m, vdxg_px_page_left(r, VDXG_SLOT_SRC, sx + i,
                                                 sy + j, backward));
                    m = MIN(m, vdxg_px_page_left(r, VDXG_SLOT_DST, dx + i,
                                                 dy + j, backward));
                }
                lo = backward ? i + 1 - m : i;
                if (vdxg_copy_run(r, sx, sy, dx, dy, j, lo, m, or_alpha)) {
                    *r->budget -= (int64_t)m * VDXG_COST_PIXEL;
                    k += m;
                    if (backward ? lo == 0 : lo + m == w) {
                        break;
                    }
                    i = backward ? lo - 1 : lo + m;
                    continue;
                }
                /*
                 * Virtual mode: the run is not on VRAM pages. Its pixels
                 * go one by one before the next run is tried.
                 */
                solo = e->virt ? m : 0;
            }
            if (solo) {
                solo--;
            }
            if (!vdxg_px_load(r, VDXG_SLOT_SRC, sx + i, sy + j, &raw)) {
                goto fault;
            }
            argb = vdxg_px_to_argb(sfmt, raw);
            if (!vdxg_rd_put(r, dx + i, dy + j, argb, blend, alpha)) {
                goto fault;
            }
            *r->budget -= VDXG_COST_PIXEL;
            k++;
            if (backward ? i-- == 0 : ++i == w) {
                break;
            }
        }
    }
    r->s->rd_pixels += n;
    return VDXG_RUN_DONE;

fault:
    e->op_progress = k;
    return VDXG_RUN_FAULT;
}

/* The rasterizer's accesses, to the surfaces of the command at work */
static bool vdxg_rd_depth_load(void *opaque, uint32_t x, uint32_t y,
                               uint32_t *z)
{
    return vdxg_px_load(opaque, VDXG_SLOT_DEPTH, x, y, z);
}

static bool vdxg_rd_depth_store(void *opaque, uint32_t x, uint32_t y,
                                uint32_t z)
{
    return vdxg_px_store(opaque, VDXG_SLOT_DEPTH, x, y, z);
}

static bool vdxg_rd_texel(void *opaque, uint32_t x, uint32_t y,
                          uint32_t *argb)
{
    return vdxg_px_read(opaque, VDXG_SLOT_TEXTURE, x, y, argb);
}

static bool vdxg_rd_dst_write(void *opaque, uint32_t x, uint32_t y,
                              uint32_t argb)
{
    return vdxg_px_write(opaque, VDXG_SLOT_DST, x, y, argb);
}

static const VdxgRasterOps vdxg_rd_raster_ops = {
    .depth_load = vdxg_rd_depth_load,
    .depth_store = vdxg_rd_depth_store,
    .texel = vdxg_rd_texel,
    .dst_write = vdxg_rd_dst_write,
};

/* DRAW_TRIANGLES */
static VdxgRun vdxg_rd_draw(VdxgRdRun *r, const uint32_t *dw)
{
    VdxgEngine *e = r->e;
    const VdxgSurface *surf = e->rd.surf;
    uint32_t flags = dw[VDXG_RD_DRAW_DW_FLAGS];
    uint32_t count = dw[VDXG_RD_DRAW_DW_COUNT];
    uint64_t vb = vdxg_dw64(dw, VDXG_RD_DRAW_DW_VB);
    uint8_t buf[3 * VDXG_VERTEX_SIZE];
    uint32_t vdw[VDXG_VERTEX_SIZE / 4];
    VdxgRaster ra = {
        .ops = &vdxg_rd_raster_ops,
        .opaque = r,
        .tex_width = surf[VDXG_SLOT_TEXTURE].width,
        .tex_height = surf[VDXG_SLOT_TEXTURE].height,
        .budget = r->budget,
        .pixels = &r->s->rd_pixels,
    };
    VdxgTri t;
    VdxgRun run;
    unsigned int i, j;

    if ((flags & ~VDXG_DRAW_FLAGS_MASK) || !surf[VDXG_SLOT_DST].format ||
        ((flags & VDXG_DRAW_BILINEAR) && !(flags & VDXG_DRAW_TEXTURE)) ||
        ((flags & VDXG_DRAW_TEXTURE) && !surf[VDXG_SLOT_TEXTURE].format) ||
        ((flags & (VDXG_DRAW_DEPTH_TEST | VDXG_DRAW_DEPTH_WRITE)) &&
         surf[VDXG_SLOT_DEPTH].format != VDXG_FMT_D32) ||
        !count || count % 3 || count > VDXG_DRAW_MAX_VERTICES || vb % 4) {
        return vdxg_rd_fail(r, VDXG_FAULT_PARAM);
    }
    /* Depth is per DST pixel: DEPTH must cover DST. */
    if ((flags & (VDXG_DRAW_DEPTH_TEST | VDXG_DRAW_DEPTH_WRITE)) &&
        (surf[VDXG_SLOT_DEPTH].width < surf[VDXG_SLOT_DST].width ||
         surf[VDXG_SLOT_DEPTH].height < surf[VDXG_SLOT_DST].height)) {
        return vdxg_rd_fail(r, VDXG_FAULT_BOUNDS);
    }
    if (!e->virt &&
        !vdxg_gpu_range_ok(r->s, vb, (uint64_t)count * VDXG_VERTEX_SIZE)) {
        vdxg_set_err(r->err, VDXG_FAULT_ADDRESS, vb);
        return VDXG_RUN_FAULT;
    }
    if (!e->rd.item && !e->op_progress) {
        trace_vdxg_rd_draw(flags, count, vb);
    }

    for (; e->rd.item < count / 3; e->rd.item++, e->op_progress = 0) {
        if (*r->budget <= 0) {
            return VDXG_RUN_YIELD;
        }
        *r->budget -= VDXG_COST_TRIANGLE;
        if (!vdxg_rd_rw(r->s, e, vb + (uint64_t)e->rd.item * sizeof(buf),
                        buf, sizeof(buf), VDXG_ACCESS_READ, r->budget,
                        r->err)) {
            return VDXG_RUN_FAULT;
        }
        for (i = 0; i < 3; i++) {
            for (j = 0; j < ARRAY_SIZE(vdw); j++) {
                vdw[j] = ldl_le_p(buf + i * VDXG_VERTEX_SIZE + j * 4);
            }
            t.v[i] = (VdxgVertex) {
                .x = (int32_t)vdw[VDXG_VTX_DW_X],
                .y = (int32_t)vdw[VDXG_VTX_DW_Y],
                .z = vdw[VDXG_VTX_DW_Z],
                .color = vdw[VDXG_VTX_DW_COLOR],
                .u = (int32_t)vdw[VDXG_VTX_DW_U],
                .v = (int32_t)vdw[VDXG_VTX_DW_V],
            };
            if (t.v[i].x < -VDXG_VTX_COORD_MAX ||
                t.v[i].x > VDXG_VTX_COORD_MAX ||
                t.v[i].y < -VDXG_VTX_COORD_MAX ||
                t.v[i].y > VDXG_VTX_COORD_MAX) {
                return vdxg_rd_fail(r, VDXG_FAULT_PARAM);
            }
        }
        if (!vdxg_tri_setup(&t, surf[VDXG_SLOT_DST].width,
                            surf[VDXG_SLOT_DST].height)) {
            continue;
        }
        run = vdxg_tri_draw(&ra, &t, flags, &e->op_progress);
        if (run != VDXG_RUN_DONE) {
            return run;
        }
    }
    return VDXG_RUN_DONE;
}

/* SET_SURFACE */
static VdxgRun vdxg_rd_set_surface(VdxgRdRun *r, const uint32_t *dw)
{
    uint32_t slot = dw[VDXG_RD_SURF_DW_SLOT];
    VdxgSurface sf = {
        .addr = vdxg_dw64(dw, VDXG_RD_SURF_DW_ADDR),
        .format = dw[VDXG_RD_SURF_DW_FORMAT],
        .width = dw[VDXG_RD_SURF_DW_WIDTH],
        .height = dw[VDXG_RD_SURF_DW_HEIGHT],
        .pitch = dw[VDXG_RD_SURF_DW_PITCH],
    };
    uint32_t reason = vdxg_surface_check(r->s, slot, &sf, r->e->virt);

    trace_vdxg_rd_surface(slot, sf.addr, sf.format, sf.width, sf.height,
                          sf.pitch);
    if (reason != VDXG_FAULT_NONE) {
        vdxg_set_err(r->err, reason, sf.addr);
        return VDXG_RUN_FAULT;
    }
    r->e->rd.surf[slot] = sf;
    return VDXG_RUN_DONE;
}

/* FENCE and WAIT */
static VdxgRun vdxg_rd_mem(VdxgRdRun *r, const uint32_t *dw, bool wait)
{
    uint64_t addr = vdxg_dw64(dw, VDXG_RD_MEM_DW_ADDR);
    uint64_t value = vdxg_dw64(dw, VDXG_RD_MEM_DW_VALUE), cur;
    uint8_t buf[8];

    if (addr & 7) {
        return vdxg_rd_fail(r, VDXG_FAULT_PARAM);
    }
    if (!wait) {
        trace_vdxg_rd_fence(addr, value);
        stq_le_p(buf, value);
        return vdxg_rd_rw(r->s, r->e, addr, buf, 8, VDXG_ACCESS_WRITE,
                          r->budget, r->err) ?
               VDXG_RUN_DONE : VDXG_RUN_FAULT;
    }
    if (!vdxg_rd_rw(r->s, r->e, addr, buf, 8, VDXG_ACCESS_READ, r->budget,
                    r->err)) {
        return VDXG_RUN_FAULT;
    }
    cur = ldq_le_p(buf);
    trace_vdxg_rd_wait(addr, value, cur);
    return cur >= value ? VDXG_RUN_DONE : VDXG_RUN_WAIT;
}

/*
 * Run (or continue) the DMA buffer command at the engine's buffer offset.
 * On a fault, @err holds the reason and address; for reasons other than
 * ADDRESS the address is the command's.
 */
VdxgRun vdxg_rd_cmd(VdxgCore *s, VdxgEngine *e, int64_t *budget,
                    uint32_t *opcode, VdxgErr *err)
{
    uint64_t op_addr = e->buf_addr + e->buf_off;
    uint32_t *dw = e->rd.dw;
    uint8_t buf[sizeof(e->rd.dw)];
    uint32_t hdr, op, len, i;
    bool started = e->rd.dw_len != 0;
    VdxgRdRun run;
    VdxgRun r;

    *opcode = 0;
    *budget -= VDXG_COST_OP;
    /*
     * A command is read from memory once, when it starts; it continues
     * from the dwords latched then, whatever the buffer holds now.
     */
    if (started) {
        hdr = dw[0];
    } else {
        if (!vdxg_rd_rw(s, e, op_addr, buf, 4, VDXG_ACCESS_FETCH, budget,
                        err)) {
            return VDXG_RUN_FAULT;
        }
        hdr = ldl_le_p(buf);
    }
    op = VDXG_PG_HDR_OP(hdr);
    len = VDXG_PG_HDR_LEN(hdr);
    *opcode = hdr & 0xffff;
    if (!started) {
        trace_vdxg_rd_cmd(op_addr, hdr);
    }
    if ((hdr & 0xff00) ||
        op >= (s->caps & VDXG_CAP_3D ? VDXG_RD_NUM_OPS_3D : VDXG_RD_NUM_OPS)) {
        vdxg_set_err(err, VDXG_FAULT_OPCODE, op_addr);
        return VDXG_RUN_FAULT;
    }
    if (!vdxg_rd_len_ok(op, len) || len > (e->buf_len - e->buf_off) / 4 ||
        (started && len != e->rd.dw_len)) {
        vdxg_set_err(err, VDXG_FAULT_LENGTH, op_addr);
        return VDXG_RUN_FAULT;
    }
    if (!started) {
        if (!vdxg_rd_rw(s, e, op_addr, buf, len * 4, VDXG_ACCESS_FETCH,
                        budget, err)) {
            return VDXG_RUN_FAULT;
        }
        memset(e->rd.dw, 0, sizeof(e->rd.dw));
        for (i = 0; i < len; i++) {
            dw[i] = ldl_le_p(buf + i * 4);
        }
        e->rd.dw_len = len;
    }

    vdxg_rd_run_init(&run, s, e, budget, err);
    switch (op) {
    case VDXG_RD_NOP:
        r = VDXG_RUN_DONE;
        break;
    case VDXG_RD_FENCE:
    case VDXG_RD_WAIT:
        r = vdxg_rd_mem(&run, dw, op == VDXG_RD_WAIT);
        break;
    case VDXG_RD_SET_SURFACE:
        r = vdxg_rd_set_surface(&run, dw);
        break;
    case VDXG_RD_FILL_RECT:
        r = vdxg_rd_fill(&run, dw);
        break;
    case VDXG_RD_COPY_RECT:
    case VDXG_RD_BLEND:
        r = vdxg_rd_copy(&run, dw, op == VDXG_RD_BLEND);
        break;
    case VDXG_RD_DRAW_TRIANGLES:
        r = vdxg_rd_draw(&run, dw);
        break;
    default:
        r = vdxg_3d_cmd(&run, op, dw, len);
        break;
    }
    vdxg_rd_run_flush(&run);

    if (r == VDXG_RUN_DONE) {
        s->rd_ops[op]++;
        trace_vdxg_rd_cmd_done(op, s->rd_ops[op], s->rd_pixels);
        e->buf_off += len * 4;
        e->op_progress = 0;
        e->rd.item = 0;
        e->rd.dw_len = 0;
        e->rd.band = 0;
        e->rd.phase = 0;
        vdxg_rd_snap_free(e);
    } else if (r == VDXG_RUN_FAULT && err->reason != VDXG_FAULT_ADDRESS &&
               err->reason != VDXG_FAULT_SHADER &&
               !err->vm) {
        err->addr = op_addr;
    }
    return r;
}
