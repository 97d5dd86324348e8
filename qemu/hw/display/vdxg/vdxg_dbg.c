/*
 * vdxg: register and command names for logs
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "vdxg_int.h"

const char *const vdxg_pg_op_names[VDXG_PG_NUM_OPS] = {
    [VDXG_PG_NOP]            = "nop",
    [VDXG_PG_FENCE]          = "fence",
    [VDXG_PG_TRANSFER]       = "transfer",
    [VDXG_PG_FILL]           = "fill",
    [VDXG_PG_DISCARD]        = "discard",
    [VDXG_PG_MAP_APERTURE]   = "map-aperture",
    [VDXG_PG_UNMAP_APERTURE] = "unmap-aperture",
    [VDXG_PG_FLUSH_TLB]      = "flush-tlb",
    [VDXG_PG_WRITE_PHYSICAL] = "write-physical",
    [VDXG_PG_READ_PHYSICAL]  = "read-physical",
    [VDXG_PG_UPDATE_PAGE_TABLE]     = "update-page-table",
    [VDXG_PG_COPY_PTES]             = "copy-page-table-entries",
    [VDXG_PG_FLUSH_VM_TLB]          = "flush-vm-tlb",
    [VDXG_PG_TRANSFER_VIRTUAL]      = "transfer-virtual",
    [VDXG_PG_FILL_VIRTUAL]          = "fill-virtual",
    [VDXG_PG_UPDATE_CONTEXT_ALLOC]  = "update-context-allocation",
    [VDXG_PG_INIT_CONTEXT_RESOURCE] = "init-context-resource",
    [VDXG_PG_NOTIFY_RESIDENCY]      = "notify-residency",
};

const char *const vdxg_rd_op_names[VDXG_RD_NUM_OPS_3D] = {
    [VDXG_RD_NOP]            = "nop",
    [VDXG_RD_FENCE]          = "fence",
    [VDXG_RD_WAIT]           = "wait",
    [VDXG_RD_SET_SURFACE]    = "set-surface",
    [VDXG_RD_FILL_RECT]      = "fill-rect",
    [VDXG_RD_COPY_RECT]      = "copy-rect",
    [VDXG_RD_BLEND]          = "blend",
    [VDXG_RD_DRAW_TRIANGLES] = "draw-triangles",
    [VDXG_RD_SET_STATE]      = "set-state",
    [VDXG_RD_LOAD_STATE]     = "load-state",
    [VDXG_RD_SET_SHADER]     = "set-shader",
    [VDXG_RD_SET_CONSTANTS]  = "set-constants",
    [VDXG_RD_SET_VERTEX_BUFFER] = "set-vertex-buffer",
    [VDXG_RD_SET_INDEX_BUFFER]  = "set-index-buffer",
    [VDXG_RD_SET_TEXTURE]    = "set-texture",
    [VDXG_RD_DRAW]           = "draw",
    [VDXG_RD_DRAW_INDEXED]   = "draw-indexed",
    [VDXG_RD_CLEAR]          = "clear",
};

#define VDXG_ENG_REG_NAMES(e) {                                            \
    [VDXG_ENG_RING_BASE_LO / 4]   = e " RING_BASE_LO",                     \
    [VDXG_ENG_RING_BASE_HI / 4]   = e " RING_BASE_HI",                     \
    [VDXG_ENG_RING_SIZE / 4]      = e " RING_SIZE",                        \
    [VDXG_ENG_RING_HEAD / 4]      = e " RING_HEAD",                        \
    [VDXG_ENG_RING_TAIL / 4]      = e " RING_TAIL",                        \
    [VDXG_ENG_DOORBELL / 4]       = e " DOORBELL",                         \
    [VDXG_ENG_CTRL / 4]           = e " CTRL",                             \
    [VDXG_ENG_STATUS / 4]         = e " STATUS",                           \
    [VDXG_ENG_FENCE_ADDR_LO / 4]  = e " FENCE_ADDR_LO",                    \
    [VDXG_ENG_FENCE_ADDR_HI / 4]  = e " FENCE_ADDR_HI",                    \
    [VDXG_ENG_FENCE_VALUE_LO / 4] = e " FENCE_VALUE_LO",                   \
    [VDXG_ENG_FENCE_VALUE_HI / 4] = e " FENCE_VALUE_HI",                   \
    [VDXG_ENG_RESET / 4]          = e " RESET",                            \
    [VDXG_ENG_PROGRESS / 4]       = e " PROGRESS",                         \
}

/* Names of the engine registers, by engine and offset / 4 */
static const char *const vdxg_eng_reg_names[VDXG_NUM_ENGINES][0x100 / 4] = {
    [VDXG_ENGINE_RENDER] = VDXG_ENG_REG_NAMES("RENDER"),
    [VDXG_ENGINE_PAGING] = VDXG_ENG_REG_NAMES("PAGING"),
};

const char *vdxg_reg_name(hwaddr addr)
{
    switch (addr) {
    case VDXG_REG_ID:
        return "ID";
    case VDXG_REG_VERSION:
        return "VERSION";
    case VDXG_REG_CAPS:
        return "CAPS";
    case VDXG_REG_VRAM_SIZE_LO:
        return "VRAM_SIZE_LO";
    case VDXG_REG_VRAM_SIZE_HI:
        return "VRAM_SIZE_HI";
    case VDXG_REG_APERTURE_BASE_LO:
        return "APERTURE_BASE_LO";
    case VDXG_REG_APERTURE_BASE_HI:
        return "APERTURE_BASE_HI";
    case VDXG_REG_APERTURE_SIZE_LO:
        return "APERTURE_SIZE_LO";
    case VDXG_REG_APERTURE_SIZE_HI:
        return "APERTURE_SIZE_HI";
    case VDXG_REG_ENGINES:
        return "ENGINES";
    case VDXG_REG_NUM_CRTCS:
        return "NUM_CRTCS";
    case VDXG_REG_RESET:
        return "RESET";
    case VDXG_REG_STATUS:
        return "STATUS";
    case VDXG_REG_SCRATCH:
        return "SCRATCH";
    case VDXG_REG_RESET_COUNT:
        return "RESET_COUNT";
    case VDXG_REG_FUNCTION:
        return "FUNCTION";
    case VDXG_REG_BACKING_SELECT:
        return "BACKING_SELECT";
    case VDXG_REG_BACKING_COMMIT:
        return "BACKING_COMMIT";
    case VDXG_REG_INT_STATUS:
        return "INT_STATUS";
    case VDXG_REG_INT_MASK:
        return "INT_MASK";
    case VDXG_REG_INT_ACK:
        return "INT_ACK";
    case VDXG_REG_INT_TRIGGER:
        return "INT_TRIGGER";
    case VDXG_REG_GART_TABLE_LO:
        return "GART_TABLE_LO";
    case VDXG_REG_GART_TABLE_HI:
        return "GART_TABLE_HI";
    case VDXG_REG_GART_ENTRIES:
        return "GART_ENTRIES";
    case VDXG_REG_GART_CTRL:
        return "GART_CTRL";
    case VDXG_REG_DUMMY_PAGE_LO:
        return "DUMMY_PAGE_LO";
    case VDXG_REG_DUMMY_PAGE_HI:
        return "DUMMY_PAGE_HI";
    case VDXG_REG_TLB_FLUSH:
        return "TLB_FLUSH";
    case VDXG_REG_FAULT_STATUS:
        return "FAULT_STATUS";
    case VDXG_REG_FAULT_ENGINE:
        return "FAULT_ENGINE";
    case VDXG_REG_FAULT_REASON:
        return "FAULT_REASON";
    case VDXG_REG_FAULT_OPCODE:
        return "FAULT_OPCODE";
    case VDXG_REG_FAULT_ADDR_LO:
        return "FAULT_ADDR_LO";
    case VDXG_REG_FAULT_ADDR_HI:
        return "FAULT_ADDR_HI";
    case VDXG_REG_FAULT_CONTEXT:
        return "FAULT_CONTEXT";
    case VDXG_REG_FAULT_COUNT:
        return "FAULT_COUNT";
    case VDXG_REG_FAULT_CLEAR:
        return "FAULT_CLEAR";
    case VDXG_REG_FAULT_VM:
        return "FAULT_VM";
    case VDXG_REG_FAULT_ACCESS:
        return "FAULT_ACCESS";
    case VDXG_REG_VM_TABLE_LO:
        return "VM_TABLE_LO";
    case VDXG_REG_VM_TABLE_HI:
        return "VM_TABLE_HI";
    case VDXG_REG_VM_TABLE_ENTRIES:
        return "VM_TABLE_ENTRIES";
    case VDXG_REG_VM_CTRL:
        return "VM_CTRL";
    case VDXG_REG_VM_TLB_FLUSH:
        return "VM_TLB_FLUSH";
    case VDXG_REG_VM_SPACES:
        return "VM_SPACES";
    case VDXG_REG_VM_RES_SELECT:
        return "VM_RES_SELECT";
    case VDXG_REG_VM_RES_RESIDENT:
        return "VM_RES_RESIDENT";
    case VDXG_REG_VM_RES_EVICTED:
        return "VM_RES_EVICTED";
    default:
        break;
    }

    if (addr >= VDXG_ENGINE_BASE(0) &&
        addr < VDXG_ENGINE_BASE(VDXG_NUM_ENGINES)) {
        return vdxg_eng_reg_names[(addr - VDXG_ENGINE_BASE(0)) / 0x100]
                                 [(addr & 0xff) / 4];
    }
    return NULL;
}
