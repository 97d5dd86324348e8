/*
 * vdxg: a virtual PCI Express GPU
 *
 * The register interface is defined in hw/display/vdxg_hw.h, a macro-only
 * header shared with the Linux driver. This model implements the global
 * and interrupt register blocks, the VRAM BAR, interrupt delivery over
 * MSI-X, MSI or INTx, the RENDER engine with its DMA buffers (2D commands
 * and a triangle rasterizer), the PAGING engine with its paging buffers,
 * the GART aperture with a TLB, fault reporting, and the display engine:
 * up to four CRTCs composing a background and three planes, vblank timing
 * in virtual time, double-buffered plane registers, CRCs, a writeback
 * unit, connectors with EDID and hotplug, and one graphic console per
 * CRTC. Both engines share one ring machinery.
 *
 * Behind a PCI Express port the device is an SR-IOV physical function: its
 * virtual functions (type vdxg-vf, created with the PF and enabled through
 * the SR-IOV capability) have their own register blocks, engines, GART and
 * MSI-X, and a VRAM BAR assembled from ranges of the PF's VRAM by the PF's
 * backing tables. On PCI Express the PF's VRAM BAR is resizable.
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include <zlib.h>
#include "qemu/bitops.h"
#include "qemu/cutils.h"
#include "qemu/host-utils.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"
#include "qemu/units.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "hw/pci/msi.h"
#include "hw/pci/msix.h"
#include "hw/pci/pci_device.h"
#include "hw/pci/pcie.h"
#include "hw/pci/pci_bus.h"
#include "hw/pci/pcie_sriov.h"
#include "hw/qdev-properties.h"
#include "hw/resettable.h"
#include "migration/vmstate.h"
#include "qom/object.h"
#include "system/runstate.h"
#include "ui/console.h"
#include "hw/display/vdxg_hw.h"
#include "trace.h"

#define TYPE_VDXG "vdxg"
OBJECT_DECLARE_SIMPLE_TYPE(VdxgState, VDXG)

/* A virtual function: a subtype sharing VdxgState, created by the PF. */
#define TYPE_VDXG_VF "vdxg-vf"

/* Limit of the total_vfs property */
#define VDXG_SRIOV_MAX_VFS      16

/* A VF's MSI-X BAR: the table at 0, the PBA at VDXG_VF_MSIX_PBA */
#define VDXG_VF_MSIX_BAR_SIZE   4096
#define VDXG_VF_MSIX_PBA        0x800

/* A range of PF VRAM backing part of a VF's VRAM BAR */
typedef struct VdxgRange {
    uint64_t off;
    uint64_t len;
} VdxgRange;

/* Where the PCI Express capability lives in configuration space. */
#define VDXG_PCIE_CAP_OFFSET    0x80

/* Limits of the aperture_size property. */
#define VDXG_APERTURE_SIZE_MIN  (1ull << 20)
#define VDXG_APERTURE_SIZE_MAX  (4ull << 30)

#define VDXG_PAGE_MASK          (VDXG_GPU_PAGE_SIZE - 1)

/* GART translations the TLB caches, direct-mapped by aperture page. */
#define VDXG_TLB_ENTRIES        64

/*
 * Work one run of the engine's bottom half does before it yields to the
 * main loop, in bytes moved; each operation, ring entry and GART entry is
 * charged as a number of bytes. 4 MiB is about a millisecond of copying.
 */
#define VDXG_BH_BUDGET          (4 * MiB)
#define VDXG_COST_OP            256
#define VDXG_COST_ENTRY         256
#define VDXG_COST_PTE           16

/* A surface bound to a slot of the RENDER engine; format 0 is unset. */
typedef struct VdxgSurface {
    uint64_t addr;
    uint32_t format;
    uint32_t width;
    uint32_t height;
    uint32_t pitch;
} VdxgSurface;

/* RENDER engine state besides the ring; cleared with each ring entry. */
typedef struct VdxgRender {
    VdxgSurface surf[VDXG_NUM_SLOTS];
    uint32_t item;              /* DRAW: triangle; COPY/BLEND: phase */
    uint32_t snap_len;
    uint8_t *snap;              /* COPY/BLEND: the source read in full */
} VdxgRender;

/* An engine's registers and the ring entry it is executing. */
typedef struct VdxgEngine {
    uint64_t ring_base;
    uint32_t ring_size;
    uint32_t head;
    uint32_t tail;
    uint32_t ctrl;
    bool halted;
    uint64_t fence_addr;
    uint64_t fence_value;

    /* The entry in progress (a NOP runs as an empty buffer) */
    bool busy;
    uint32_t cmd;
    uint32_t context;
    uint64_t seqno;
    uint64_t buf_addr;
    uint32_t buf_len;
    uint32_t buf_off;           /* byte offset of the current operation */
    uint64_t op_progress;       /* bytes, GART entries or pixels done */
    uint32_t progress;          /* PROGRESS: work done on the entry */
    bool waiting;               /* STATUS.WAITING: in an unmet WAIT */
    VdxgRender rd;              /* RENDER only */

    /* Fixed at realize, kept by an engine reset: from here on */
    unsigned int index;         /* VDXG_ENGINE_* */
    VdxgState *s;
    QEMUBH *bh;                 /* runs the ring in slices */
    QEMUTimer *wait_timer;      /* re-polls a WAIT */
} VdxgEngine;

static const char *const vdxg_pg_op_names[VDXG_PG_NUM_OPS] = {
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
};

static const char *const vdxg_rd_op_names[VDXG_RD_NUM_OPS] = {
    [VDXG_RD_NOP]            = "nop",
    [VDXG_RD_FENCE]          = "fence",
    [VDXG_RD_WAIT]           = "wait",
    [VDXG_RD_SET_SURFACE]    = "set-surface",
    [VDXG_RD_FILL_RECT]      = "fill-rect",
    [VDXG_RD_COPY_RECT]      = "copy-rect",
    [VDXG_RD_BLEND]          = "blend",
    [VDXG_RD_DRAW_TRIANGLES] = "draw-triangles",
};

/* Display engine */

/* The mode registers, in the order of VdxgCrtc.mode[] */
enum {
    VDXG_M_HDISPLAY,
    VDXG_M_VDISPLAY,
    VDXG_M_HTOTAL,
    VDXG_M_VTOTAL,
    VDXG_M_CLOCK,
    VDXG_M_HSYNC_START,
    VDXG_M_HSYNC_END,
    VDXG_M_VSYNC_START,
    VDXG_M_VSYNC_END,
    VDXG_NUM_MODE_REGS
};

/* What a CRTC shows while it is off: a black frame of this size */
#define VDXG_OFF_WIDTH          640
#define VDXG_OFF_HEIGHT         480

/* A plane's registers: the pending copy, or the latched one */
typedef struct VdxgPlane {
    uint32_t ctrl;
    uint64_t addr;
    uint32_t format;
    uint32_t pitch;
    uint32_t src_size;
    uint32_t dst_pos;
    uint32_t alpha;
    uint32_t zpos;
} VdxgPlane;

typedef struct VdxgCrtc {
    /* Registers as written */
    uint32_t ctrl;              /* ENABLE reads 1 only while active */
    uint32_t mode[VDXG_NUM_MODE_REGS];
    uint32_t bg;                /* pending BG_COLOR */
    VdxgPlane pend[VDXG_NUM_PLANES];
    bool conn_changed;          /* CONN_STATUS.CHANGED */

    /* Scanout: valid while ctrl has ENABLE */
    uint32_t amode[VDXG_NUM_MODE_REGS]; /* latched by the enable */
    int64_t t0;                 /* virtual ns of the enable */
    uint64_t event_frame;       /* the last vblank whose events ran */
    bool flip_pending;
    uint64_t flip_frame;        /* FRAME_COUNT when FLIP was written */
    bool mode_invalid;          /* STATUS.MODE_INVALID */
    uint32_t frame_off;         /* FRAME_COUNT and VBLANK_NS while off */
    int64_t vblank_ns_off;
    uint32_t crc;
    uint32_t crc_frame;
    uint32_t abg;               /* latched BG_COLOR */
    VdxgPlane cur[VDXG_NUM_PLANES];
    uint32_t pstatus[VDXG_NUM_PLANES];  /* VDXG_PLANE_STATUS_* */
    QEMUTimer *timer;           /* the next vblank with work to do */

    /* Fixed at realize, or derived; not migrated */
    unsigned int index;
    VdxgState *s;
    QemuConsole *con;
    uint8_t edid[VDXG_EDID_SIZE];
    uint32_t *frame;            /* composed XRGB8888, X = 0, fw x fh */
    uint32_t fw, fh;
    bool stale;                 /* frame must be composed again */
    bool crc_valid;             /* crc_cache is the CRC of frame */
    uint32_t crc_cache;
    bool con_dirty;             /* frame changed since the console copy */
} VdxgCrtc;

typedef struct VdxgWriteback {
    uint32_t ctrl;
    uint64_t addr;
    uint32_t format;
    uint32_t pitch;
    uint32_t status;            /* DONE, ERROR; BUSY is ctrl's ENABLE */
    uint32_t seqno;
    uint32_t frame;
    uint64_t arm_frame;         /* source FRAME_COUNT when armed */
} VdxgWriteback;

struct VdxgState {
    PCIDevice parent_obj;

    MemoryRegion mmio;
    MemoryRegion vram;          /* PF: the VRAM RAM block */
    MemoryRegion vram_bar;      /* PF on PCI Express: resizable window */
    MemoryRegion *vram_mr;      /* the RAM region VRAM accesses dirty */

    /* Properties */
    uint64_t vram_size;
    uint64_t aperture_size;
    bool use_msix;
    bool use_msi;
    bool use_rebar;                     /* offer the Resizable BAR cap */
    uint32_t outputs;
    bool connected[VDXG_MAX_CRTCS];     /* "connected<n>", hotplug */
    uint32_t total_vfs;
    uint64_t vf_vram_size;
    uint64_t vf_aperture_size;

    /* PF: SR-IOV, backing tables (per VF, of VDXG_BAR_VRAM) and REBAR */
    bool has_sriov;
    uint32_t backing_select;
    uint32_t backing_status;
    VdxgRange backing_pend[VDXG_SRIOV_MAX_VFS][VDXG_MAX_BACKING_RANGES];
    VdxgRange backing[VDXG_SRIOV_MAX_VFS][VDXG_MAX_BACKING_RANGES];
    uint32_t backing_n[VDXG_SRIOV_MAX_VFS];
    uint16_t rebar_cap;                 /* 0: the BAR is the whole VRAM */
    uint64_t vram_bar_size;

    /* VF: its PF, and its VRAM BAR built from the PF's backing table */
    VdxgState *pf;                      /* NULL on the PF */
    uint32_t vf_index;
    MemoryRegion vf_vram;
    MemoryRegion vf_unbacked;
    MemoryRegion vf_alias[VDXG_MAX_BACKING_RANGES];
    MemoryRegion vf_msix;

    /* VDXG_REG_CAPS, fixed at realize */
    uint32_t caps;

    /* Register state */
    uint32_t scratch;
    uint32_t reset_count;
    uint32_t int_status;
    uint32_t int_mask;

    /* Engines, indexed by VDXG_ENGINE_* */
    VdxgEngine engine[VDXG_NUM_ENGINES];
    VMChangeStateEntry *vmse;

    /* GART, and the TLB of GART entries */
    uint8_t *vram_ptr;
    uint32_t gart_entries;
    uint64_t gart_table;
    uint32_t gart_ctrl;
    uint64_t dummy_page;
    uint64_t tlb_valid;                 /* bitmap of TLB slots */
    uint32_t tlb_page[VDXG_TLB_ENTRIES];
    uint64_t tlb_pte[VDXG_TLB_ENTRIES];

    /* Fault record */
    uint32_t fault_status;
    uint32_t fault_engine;
    uint32_t fault_reason;
    uint32_t fault_opcode;
    uint64_t fault_addr;
    uint32_t fault_context;
    uint32_t fault_count;

    /* Statistics since realize, read-only QOM properties; not migrated */
    uint64_t pg_ops[VDXG_PG_NUM_OPS];
    uint64_t pg_bytes[VDXG_PG_NUM_OPS];
    uint64_t rd_ops[VDXG_RD_NUM_OPS];
    uint64_t rd_pixels;
    uint64_t tlb_hits;
    uint64_t tlb_misses;
    uint64_t bh_runs[VDXG_NUM_ENGINES];

    /* Display engine */
    VdxgCrtc crtc[VDXG_MAX_CRTCS];
    VdxgWriteback wb;
    uint64_t disp_composes;             /* statistics, not migrated */
    uint64_t disp_crcs;

    /* Staging for bus-to-bus copies, fill patterns and GART entries */
    uint8_t bounce[VDXG_GPU_PAGE_SIZE];
    /* A row of scanout or writeback pixels, as read and as ARGB */
    uint8_t disp_row[VDXG_MODE_MAX_DISPLAY * 4];
    uint32_t disp_px[VDXG_MODE_MAX_DISPLAY];
};

/* Interrupt sources signalled on each MSI-X vector. */
static const uint32_t vdxg_msix_vector_sources[VDXG_MSIX_VECTORS] = {
    [VDXG_MSIX_VEC_MISC]    = VDXG_INT_MISC_MASK,
    [VDXG_MSIX_VEC_RENDER]  = VDXG_INT_RENDER_FENCE,
    [VDXG_MSIX_VEC_PAGING]  = VDXG_INT_PAGING_FENCE,
    [VDXG_MSIX_VEC_DISPLAY] = VDXG_INT_DISPLAY_MASK,
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

static const char *vdxg_reg_name(hwaddr addr)
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

/* Interrupts */

/* INTx is used only while neither MSI-X nor MSI is enabled; not by a VF. */
static void vdxg_update_intx(VdxgState *s)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    bool level;

    if (s->pf) {
        return;
    }
    level = !msix_enabled(pdev) && !msi_enabled(pdev) &&
            (s->int_status & s->int_mask);
    trace_vdxg_irq_intx(level);
    pci_set_irq(pdev, level);
}

/*
 * Bring interrupt delivery up to date after INT_STATUS or INT_MASK changed.
 * @old_pending is INT_STATUS & INT_MASK before the change: a message is sent
 * for the sources that have become pending since, and the INTx level is
 * recomputed.
 */
static void vdxg_irq_update(VdxgState *s, uint32_t old_pending)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    uint32_t fired = s->int_status & s->int_mask & ~old_pending;
    unsigned int vector;

    if (fired) {
        if (msix_enabled(pdev)) {
            for (vector = 0; vector < VDXG_MSIX_VECTORS; vector++) {
                if (fired & vdxg_msix_vector_sources[vector]) {
                    trace_vdxg_irq_msix(vector, fired);
                    msix_notify(pdev, vector);
                }
            }
        } else if (!s->pf && msi_enabled(pdev)) {
            trace_vdxg_irq_msi(fired);
            msi_notify(pdev, 0);
        }
    }
    vdxg_update_intx(s);
}

static void vdxg_irq_raise(VdxgState *s, uint32_t sources)
{
    uint32_t old_pending = s->int_status & s->int_mask;

    s->int_status |= sources & VDXG_INT_VALID_MASK;
    trace_vdxg_irq_raise(sources, s->int_status, s->int_mask);
    vdxg_irq_update(s, old_pending);
}

/* Faults */

/*
 * Record a fault of @engine. The first one since FAULT_CLEAR latches the
 * record; later ones only count.
 */
static void vdxg_fault(VdxgState *s, uint32_t engine, uint32_t reason,
                       uint32_t opcode, uint64_t addr, uint32_t context)
{
    if (!(s->fault_status & VDXG_FAULT_STATUS_VALID)) {
        s->fault_status = VDXG_FAULT_STATUS_VALID;
        s->fault_engine = engine;
        s->fault_reason = reason;
        s->fault_opcode = opcode;
        s->fault_addr = addr;
        s->fault_context = context;
        s->fault_count = 1;
    } else if (s->fault_count != UINT32_MAX) {
        s->fault_count++;
    }
    trace_vdxg_fault(engine, reason, opcode, addr, context, s->fault_count);
    qemu_log_mask(LOG_GUEST_ERROR, "vdxg: engine %" PRIu32 " fault: reason %"
                  PRIu32 ", opcode 0x%" PRIx32 ", address 0x%" PRIx64
                  ", context %" PRIu32 "\n", engine, reason, opcode, addr,
                  context);
    vdxg_irq_raise(s, VDXG_INT_FAULT);
}

static void vdxg_fault_clear(VdxgState *s)
{
    s->fault_status = 0;
    s->fault_engine = 0;
    s->fault_reason = VDXG_FAULT_NONE;
    s->fault_opcode = 0;
    s->fault_addr = 0;
    s->fault_context = 0;
    s->fault_count = 0;
}

/* Why an access failed: a VDXG_FAULT_* reason and the address reported. */
typedef struct VdxgErr {
    uint32_t reason;
    uint64_t addr;
} VdxgErr;

static bool vdxg_set_err(VdxgErr *err, uint32_t reason, uint64_t addr)
{
    err->reason = reason;
    err->addr = addr;
    return false;
}

/* GPU address space */

/* [addr, addr + len) lies inside [base, base + size). */
static bool vdxg_in_window(uint64_t addr, uint64_t len, uint64_t base,
                           uint64_t size)
{
    return addr >= base && addr - base <= size &&
           len <= size - (addr - base);
}

static bool vdxg_in_vram(VdxgState *s, uint64_t addr, uint64_t len)
{
    return vdxg_in_window(addr, len, 0, s->vram_size);
}

static bool vdxg_in_aperture(VdxgState *s, uint64_t addr, uint64_t len)
{
    return vdxg_in_window(addr, len, VDXG_APERTURE_BASE, s->aperture_size);
}

/* A GPU range is valid when it lies inside VRAM or inside the aperture. */
static bool vdxg_gpu_range_ok(VdxgState *s, uint64_t addr, uint64_t len)
{
    return vdxg_in_vram(s, addr, len) || vdxg_in_aperture(s, addr, len);
}

/* A GART table at VRAM offset @table fits in VRAM. */
static bool vdxg_gart_table_ok(VdxgState *s, uint64_t table)
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
static uint64_t vdxg_vram_xlate(VdxgState *s, uint64_t off, uint64_t len,
                                uint64_t *pf_off)
{
    const VdxgRange *r;
    uint64_t base = 0;
    uint32_t i, n;

    if (likely(!s->pf)) {
        *pf_off = off;
        return len;
    }
    r = s->pf->backing[s->vf_index];
    n = s->pf->backing_n[s->vf_index];
    for (i = 0; i < n; i++) {
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
static bool vdxg_vram_rw(VdxgState *s, uint64_t off, void *buf, uint64_t len,
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

/* [addr, addr + len) overlaps a mapped BAR of @d. */
static bool vdxg_hits_bars(PCIDevice *d, uint64_t addr, uint64_t len)
{
    unsigned int i;

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
 * A VF's bus access goes out as the VF and must not reach a BAR of the PF
 * or of any of its VFs; the PF's accesses are not restricted.
 */
static bool vdxg_dma_allowed(VdxgState *s, uint64_t addr, uint64_t len)
{
    PCIDevice *pf;
    unsigned int i;

    if (likely(!s->pf) || !len) {
        return true;
    }
    pf = PCI_DEVICE(s->pf);
    if (vdxg_hits_bars(pf, addr, len)) {
        return false;
    }
    for (i = 0; i < s->pf->total_vfs && pf->exp.sriov_pf.vf; i++) {
        if (vdxg_hits_bars(pf->exp.sriov_pf.vf[i], addr, len)) {
            return false;
        }
    }
    return true;
}

static MemTxResult vdxg_dma_read(VdxgState *s, uint64_t addr, void *buf,
                                 uint64_t len)
{
    if (!vdxg_dma_allowed(s, addr, len)) {
        qemu_log_mask(LOG_GUEST_ERROR, "vdxg: VF %u read of 0x%" PRIx64
                      " would reach a vdxg BAR\n", s->vf_index, addr);
        return MEMTX_ACCESS_ERROR;
    }
    return pci_dma_read(PCI_DEVICE(s), addr, buf, len);
}

static MemTxResult vdxg_dma_write(VdxgState *s, uint64_t addr,
                                  const void *buf, uint64_t len)
{
    if (!vdxg_dma_allowed(s, addr, len)) {
        qemu_log_mask(LOG_GUEST_ERROR, "vdxg: VF %u write to 0x%" PRIx64
                      " would reach a vdxg BAR\n", s->vf_index, addr);
        return MEMTX_ACCESS_ERROR;
    }
    return pci_dma_write(PCI_DEVICE(s), addr, buf, len);
}

static void vdxg_tlb_flush(VdxgState *s, const char *why)
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
static uint64_t vdxg_gart_pte(VdxgState *s, uint32_t page)
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
static uint64_t vdxg_gart_translate(VdxgState *s, uint64_t gpu)
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

/*
 * A contiguous piece of memory an engine accesses: a range of VRAM, used
 * through the RAM pointer, or a range of bus addresses, used with DMA.
 */
typedef struct VdxgSeg {
    bool vram;
    uint64_t addr;          /* VRAM offset or bus address */
    uint64_t len;
    uint64_t fault_addr;    /* what a failed access reports */
} VdxgSeg;

/* The piece of at most @len bytes at GPU address @gpu. */
static bool vdxg_gpu_seg(VdxgState *s, uint64_t gpu, uint64_t len,
                         VdxgSeg *seg, VdxgErr *err)
{
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

static bool vdxg_seg_read(VdxgState *s, const VdxgSeg *seg, void *buf,
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

static bool vdxg_seg_write(VdxgState *s, const VdxgSeg *seg, const void *buf,
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
static bool vdxg_gpu_rw(VdxgState *s, uint64_t gpu, void *buf, uint64_t len,
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

/* Work of the engines */

typedef enum VdxgRun {
    VDXG_RUN_DONE,      /* finished */
    VDXG_RUN_YIELD,     /* out of budget, to be continued */
    VDXG_RUN_FAULT,     /* stopped on a fault */
    VDXG_RUN_WAIT,      /* a WAIT not satisfied yet */
} VdxgRun;

/* PAGING engine */

/* One side of a copy. */
typedef enum VdxgSideKind {
    VDXG_SIDE_GPU,      /* a GPU address */
    VDXG_SIDE_PAGES,    /* a page list and a byte offset into it */
    VDXG_SIDE_BUS,      /* a bus address */
} VdxgSideKind;

typedef struct VdxgSide {
    VdxgSideKind kind;
    uint64_t addr;      /* GPU or bus address, or offset into the pages */
    uint64_t list;      /* GPU address of the page list */
} VdxgSide;

/* The piece of at most @len bytes of @side at byte @pos. */
static bool vdxg_side_seg(VdxgState *s, const VdxgSide *side, uint64_t pos,
                          uint64_t len, VdxgSeg *seg, VdxgErr *err)
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
        return true;
    case VDXG_SIDE_BUS:
        seg->vram = false;
        seg->addr = side->addr + pos;
        seg->len = len;
        seg->fault_addr = seg->addr;
        return true;
    }
    g_assert_not_reached();
}

/*
 * Copy @size bytes from @src to @dst, continuing at *@progress, until done
 * or out of budget. Overlapping sides give an undefined result.
 */
static VdxgRun vdxg_copy(VdxgState *s, const VdxgSide *src,
                         const VdxgSide *dst, uint64_t size,
                         uint64_t *progress, int64_t *budget, VdxgErr *err)
{
    VdxgSeg sseg, dseg;
    uint64_t len;

    while (*progress < size) {
        if (*budget <= 0) {
            return VDXG_RUN_YIELD;
        }
        len = MIN(size - *progress, (uint64_t)*budget);
        if (!vdxg_side_seg(s, src, *progress, len, &sseg, err) ||
            !vdxg_side_seg(s, dst, *progress, sseg.len, &dseg, err)) {
            return VDXG_RUN_FAULT;
        }
        len = dseg.len;
        if (sseg.vram && dseg.vram) {
            memmove(s->vram_ptr + dseg.addr, s->vram_ptr + sseg.addr, len);
            memory_region_set_dirty(s->vram_mr, dseg.addr, len);
        } else if (sseg.vram) {
            if (!vdxg_seg_write(s, &dseg, s->vram_ptr + sseg.addr, len,
                                err)) {
                return VDXG_RUN_FAULT;
            }
        } else if (dseg.vram) {
            if (vdxg_dma_read(s, sseg.addr, s->vram_ptr + dseg.addr,
                              len) != MEMTX_OK) {
                trace_vdxg_dma_error(false, sseg.addr, len);
                vdxg_set_err(err, VDXG_FAULT_ADDRESS, sseg.fault_addr);
                return VDXG_RUN_FAULT;
            }
            memory_region_set_dirty(s->vram_mr, dseg.addr, len);
        } else {
            len = MIN(len, sizeof(s->bounce));
            if (!vdxg_seg_read(s, &sseg, s->bounce, len, err) ||
                !vdxg_seg_write(s, &dseg, s->bounce, len, err)) {
                return VDXG_RUN_FAULT;
            }
        }
        *progress += len;
        *budget -= len;
    }
    return VDXG_RUN_DONE;
}

/* Fill @size bytes at GPU address @addr with @pattern; both 4-aligned. */
static VdxgRun vdxg_fill(VdxgState *s, uint64_t addr, uint64_t size,
                         uint32_t pattern, uint64_t *progress,
                         int64_t *budget, VdxgErr *err)
{
    uint64_t len, i;
    VdxgSeg seg;

    for (i = 0; i < sizeof(s->bounce); i += 4) {
        stl_le_p(s->bounce + i, pattern);
    }
    while (*progress < size) {
        if (*budget <= 0) {
            return VDXG_RUN_YIELD;
        }
        /* Whole dwords, so that the pattern stays in phase. */
        len = MIN(size - *progress, QEMU_ALIGN_UP((uint64_t)*budget, 4));
        if (!vdxg_gpu_seg(s, addr + *progress, len, &seg, err)) {
            return VDXG_RUN_FAULT;
        }
        len = seg.len;
        if (seg.vram) {
            for (i = 0; i + 4 <= len; i += 4) {
                stl_le_p(s->vram_ptr + seg.addr + i, pattern);
            }
            memory_region_set_dirty(s->vram_mr, seg.addr, len);
        } else {
            len = MIN(len, sizeof(s->bounce));
            if (!vdxg_seg_write(s, &seg, s->bounce, len, err)) {
                return VDXG_RUN_FAULT;
            }
        }
        *progress += len;
        *budget -= len;
    }
    return VDXG_RUN_DONE;
}

/*
 * Write GART entries @first + *@progress up to @first + @count: the page
 * addresses listed at GPU address @list, or invalid entries when @list is
 * 0 (unmap).
 */
static VdxgRun vdxg_gart_write(VdxgState *s, uint32_t first, uint32_t count,
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

static uint64_t vdxg_dw64(const uint32_t *dw, unsigned int i)
{
    return dw[i] | (uint64_t)dw[i + 1] << 32;
}

/* A bus range that does not wrap around the top of the address space. */
static bool vdxg_bus_range_ok(uint64_t addr, uint64_t len)
{
    return !len || addr + (len - 1) >= addr;
}

static bool vdxg_pg_xfer_side(VdxgState *s, VdxgSide *side, bool pages,
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
static VdxgRun vdxg_pg_op(VdxgState *s, VdxgEngine *e, int64_t *budget,
                          uint32_t *opcode, VdxgErr *err)
{
    uint64_t op_addr = e->buf_addr + e->buf_off;
    uint32_t dw[VDXG_PG_XFER_DW_PAGES] = { 0 };
    uint8_t buf[sizeof(dw)];
    uint64_t addr, bytes = 0;
    uint32_t hdr, op, len, i;
    VdxgSide src, dst;
    VdxgRun r = VDXG_RUN_DONE;
    bool start = !e->op_progress;

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
    if ((hdr & 0xff00) || op >= VDXG_PG_NUM_OPS) {
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
        r = vdxg_fill(s, addr, dw[2], dw[1], &e->op_progress, budget, err);
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
        g_assert_not_reached();
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
    if (err->reason != VDXG_FAULT_ADDRESS) {
        err->addr = op_addr;
    }
    return VDXG_RUN_FAULT;
}

/* RENDER engine */

/*
 * Work charged per pixel, in the bytes of VDXG_BH_BUDGET, so that one run
 * of the bottom half fills or copies about half a million pixels, or
 * shades about a hundred thousand.
 */
#define VDXG_COST_PIXEL         8       /* filled, copied or tried */
#define VDXG_COST_SHADE         32      /* a covered triangle pixel */
#define VDXG_COST_BUS           32      /* an access through the aperture */
#define VDXG_COST_TRIANGLE      64      /* reading and setting one up */

/* How often a WAIT looks at its address again */
#define VDXG_WAIT_POLL_NS       (100 * SCALE_US)

/* COPY_RECT and BLEND phases (VdxgRender.item) with a source snapshot */
#define VDXG_SNAP_READ          0       /* the source goes to the snapshot */
#define VDXG_SNAP_WRITE         1       /* the snapshot goes to DST */
#define VDXG_SNAP_NONE          2       /* no memory for it: direct */

static const uint8_t vdxg_rd_lengths[VDXG_RD_NUM_OPS] = {
    [VDXG_RD_NOP]            = VDXG_RD_NOP_LEN,
    [VDXG_RD_FENCE]          = VDXG_RD_FENCE_LEN,
    [VDXG_RD_WAIT]           = VDXG_RD_WAIT_LEN,
    [VDXG_RD_SET_SURFACE]    = VDXG_RD_SET_SURFACE_LEN,
    [VDXG_RD_FILL_RECT]      = VDXG_RD_FILL_RECT_LEN,
    [VDXG_RD_COPY_RECT]      = VDXG_RD_COPY_RECT_LEN,
    [VDXG_RD_BLEND]          = VDXG_RD_BLEND_LEN,
    [VDXG_RD_DRAW_TRIANGLES] = VDXG_RD_DRAW_TRIANGLES_LEN,
};

/* Bytes per pixel of each format; 0 for the invalid ones */
static const uint8_t vdxg_fmt_cpp[VDXG_NUM_FMTS] = {
    [VDXG_FMT_XRGB8888] = 4,
    [VDXG_FMT_ARGB8888] = 4,
    [VDXG_FMT_RGB565]   = 2,
    [VDXG_FMT_D32]      = 4,
};

/* Bytes from a surface's address to the end of its last pixel */
static uint64_t vdxg_surface_span(const VdxgSurface *sf)
{
    return (uint64_t)sf->pitch * (sf->height - 1) +
           (uint64_t)sf->width * vdxg_fmt_cpp[sf->format];
}

/*
 * Can @sf be bound to @slot? Returns VDXG_FAULT_NONE, or the reason of the
 * fault that SET_SURFACE raises.
 */
static uint32_t vdxg_surface_check(VdxgState *s, uint32_t slot,
                                   const VdxgSurface *sf)
{
    uint32_t cpp;

    if (slot >= VDXG_NUM_SLOTS || !sf->format ||
        sf->format >= VDXG_NUM_FMTS ||
        (slot == VDXG_SLOT_DEPTH) != (sf->format == VDXG_FMT_D32)) {
        return VDXG_FAULT_PARAM;
    }
    cpp = vdxg_fmt_cpp[sf->format];
    if (!sf->width || sf->width > VDXG_SURF_MAX_DIM ||
        !sf->height || sf->height > VDXG_SURF_MAX_DIM ||
        sf->pitch % 4 || sf->pitch < sf->width * cpp ||
        sf->pitch > VDXG_SURF_MAX_PITCH || sf->addr % cpp) {
        return VDXG_FAULT_PARAM;
    }
    if (!vdxg_gpu_range_ok(s, sf->addr, vdxg_surface_span(sf))) {
        return VDXG_FAULT_ADDRESS;
    }
    return VDXG_FAULT_NONE;
}

/* A pixel (ARGB8888) from its stored form, and back */
static uint32_t vdxg_px_to_argb(uint32_t format, uint32_t raw)
{
    uint32_t r5, g6, b5;

    switch (format) {
    case VDXG_FMT_XRGB8888:
        return raw | 0xff000000u;
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
    default:
        return argb;
    }
}

/* Channel c (bits 8c + 7 .. 8c) of an ARGB8888 value */
static uint32_t vdxg_ch(uint32_t argb, unsigned int c)
{
    return extract32(argb, c * 8, 8);
}

static uint32_t vdxg_div255(uint32_t v)
{
    return (v + 127) / 255;
}

/*
 * A command at work: where it charges its work, what it reports on a
 * fault, and the VRAM it wrote (by slot), marked dirty when it stops.
 */
typedef struct VdxgRdRun {
    VdxgState *s;
    VdxgEngine *e;
    int64_t *budget;
    VdxgErr *err;
    uint64_t dirty_lo[VDXG_NUM_SLOTS];
    uint64_t dirty_hi[VDXG_NUM_SLOTS];
} VdxgRdRun;

static void vdxg_rd_run_init(VdxgRdRun *r, VdxgState *s, VdxgEngine *e,
                             int64_t *budget, VdxgErr *err)
{
    unsigned int i;

    r->s = s;
    r->e = e;
    r->budget = budget;
    r->err = err;
    for (i = 0; i < VDXG_NUM_SLOTS; i++) {
        r->dirty_lo[i] = UINT64_MAX;
        r->dirty_hi[i] = 0;
    }
}

static void vdxg_rd_run_flush(VdxgRdRun *r)
{
    unsigned int i;

    for (i = 0; i < VDXG_NUM_SLOTS; i++) {
        if (r->dirty_hi[i] > r->dirty_lo[i]) {
            memory_region_set_dirty(r->s->vram_mr, r->dirty_lo[i],
                                    r->dirty_hi[i] - r->dirty_lo[i]);
        }
    }
}

/*
 * The stored value of pixel (x, y) of the surface in @slot, which the
 * caller keeps inside the surface. A bound surface lies wholly in VRAM or
 * wholly in the aperture, where each pixel is in one page.
 */
static bool vdxg_px_load(VdxgRdRun *r, unsigned int slot, uint32_t x,
                         uint32_t y, uint32_t *raw)
{
    const VdxgSurface *sf = &r->e->rd.surf[slot];
    uint32_t cpp = vdxg_fmt_cpp[sf->format];
    uint64_t gpu = sf->addr + (uint64_t)y * sf->pitch + (uint64_t)x * cpp;
    uint8_t buf[4];
    const uint8_t *p = buf;

    if (gpu < r->s->vram_size && !r->s->pf) {
        p = r->s->vram_ptr + gpu;
    } else {
        if (gpu >= r->s->vram_size) {
            *r->budget -= VDXG_COST_BUS;
        }
        if (!vdxg_gpu_rw(r->s, gpu, buf, cpp, false, r->err)) {
            return false;
        }
    }
    *raw = cpp == 2 ? lduw_le_p(p) : ldl_le_p(p);
    return true;
}

static bool vdxg_px_store(VdxgRdRun *r, unsigned int slot, uint32_t x,
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
    if (gpu < r->s->vram_size) {
        if (r->s->pf) {
            /* A VF's VRAM: through its backing table */
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

static VdxgRun vdxg_rd_fail(VdxgRdRun *r, uint32_t reason)
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
    uint64_t n = (uint64_t)w * h, k = e->op_progress;
    uint32_t raw, x, y;

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
    /* Row by row; k counts the pixels done */
    while (k < n) {
        y = y0 + k / w;
        for (x = x0 + k % w; x < x0 + w; x++) {
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
    VDXG_COPY_SNAPSHOT,     /* other overlaps: through a copy of SRC */
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

static void vdxg_rd_snap_free(VdxgEngine *e)
{
    g_free(e->rd.snap);
    e->rd.snap = NULL;
    e->rd.snap_len = 0;
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
    uint32_t sfmt, scpp, i, j, raw, argb;
    VdxgCopyOrder order;
    bool backward, reading = false;
    uint32_t needed;
    uint8_t *snap;

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
    needed = n * scpp;          /* at most 8192 * 8192 * 4 */
    order = vdxg_copy_order(r, sx, sy, dx, dy, w, h);
    if (!k && !e->rd.item) {
        trace_vdxg_rd_copy(blend, sx, sy, dx, dy, w, h, alpha, order);
    }

    if (order != VDXG_COPY_SNAPSHOT) {
        vdxg_rd_snap_free(e);
    } else if (e->rd.item != VDXG_SNAP_NONE) {
        /* A snapshot that does not fit the command (changed?): start over */
        if (e->rd.item > VDXG_SNAP_NONE ||
            (e->rd.snap ? e->rd.snap_len != needed : e->rd.item || k)) {
            vdxg_rd_snap_free(e);
            e->rd.item = VDXG_SNAP_READ;
            k = 0;
        }
        if (!e->rd.snap) {
            e->rd.snap = g_try_malloc(needed);
            if (e->rd.snap) {
                e->rd.snap_len = needed;
            } else {
                qemu_log_mask(LOG_GUEST_ERROR, "vdxg: no memory for a %"
                              PRIu32 "-byte snapshot of an overlapping "
                              "copy: copying in place\n", needed);
                e->rd.item = VDXG_SNAP_NONE;
            }
        }
        reading = e->rd.item == VDXG_SNAP_READ;
    }
    backward = order == VDXG_COPY_BACKWARD;

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
            /* The snapshot holds the source rectangle row by row. */
            snap = e->rd.snap ? e->rd.snap + ((uint64_t)j * w + i) * scpp :
                                NULL;
            if (reading) {
                if (!vdxg_px_load(r, VDXG_SLOT_SRC, sx + i, sy + j, &raw)) {
                    goto fault;
                }
                if (scpp == 2) {
                    stw_le_p(snap, raw);
                } else {
                    stl_le_p(snap, raw);
                }
            } else {
                if (e->rd.snap) {
                    raw = scpp == 2 ? lduw_le_p(snap) : ldl_le_p(snap);
                } else if (!vdxg_px_load(r, VDXG_SLOT_SRC, sx + i, sy + j,
                                         &raw)) {
                    goto fault;
                }
                argb = vdxg_px_to_argb(sfmt, raw);
                if (!vdxg_rd_put(r, dx + i, dy + j, argb, blend, alpha)) {
                    goto fault;
                }
            }
            *r->budget -= VDXG_COST_PIXEL;
            k++;
            if (backward ? i-- == 0 : ++i == w) {
                break;
            }
        }
        if (reading && k == n) {
            /* The whole source is read: now write it. */
            e->rd.item = VDXG_SNAP_WRITE;
            reading = false;
            k = 0;
        }
    }
    r->s->rd_pixels += n;
    return VDXG_RUN_DONE;

fault:
    e->op_progress = k;
    return VDXG_RUN_FAULT;
}

/* A vertex of DRAW_TRIANGLES */
typedef struct VdxgVertex {
    int64_t x, y;               /* 28.4 */
    uint32_t z;
    uint32_t color;             /* ARGB8888 */
    int64_t u, v;               /* 16.16 */
} VdxgVertex;

/*
 * interp(a0, a1, a2) with barycentrics @b (each in [0, 65536], summing to
 * 65536): a weighted mean of 32-bit values, well inside 64 bits.
 */
static int64_t vdxg_interp(int64_t a0, int64_t a1, int64_t a2,
                           const int64_t *b)
{
    return (a0 * b[0] + a1 * b[1] + a2 * b[2] + 32768) >> 16;
}

/* clamp(i, n): i limited to [0, n - 1] */
static uint32_t vdxg_clamp(int64_t i, uint32_t n)
{
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

static bool vdxg_texel(VdxgRdRun *r, int64_t x, int64_t y, uint32_t *argb)
{
    const VdxgSurface *tex = &r->e->rd.surf[VDXG_SLOT_TEXTURE];

    return vdxg_px_read(r, VDXG_SLOT_TEXTURE, vdxg_clamp(x, tex->width),
                        vdxg_clamp(y, tex->height), argb);
}

/* The texture at (u, v), 16.16 texels, nearest or bilinear */
static bool vdxg_sample(VdxgRdRun *r, bool bilinear, int64_t u, int64_t v,
                        uint32_t *argb)
{
    int64_t uu, vv, x0, y0;
    uint32_t fx, fy, t[4], top, bot, c;

    if (!bilinear) {
        return vdxg_texel(r, u >> 16, v >> 16, argb);
    }
    uu = u - 32768;
    vv = v - 32768;
    x0 = uu >> 16;
    y0 = vv >> 16;
    fx = (uu >> 8) & 255;
    fy = (vv >> 8) & 255;
    /* t00, t10, t01, t11 */
    if (!vdxg_texel(r, x0, y0, &t[0]) ||
        !vdxg_texel(r, x0 + 1, y0, &t[1]) ||
        !vdxg_texel(r, x0, y0 + 1, &t[2]) ||
        !vdxg_texel(r, x0 + 1, y0 + 1, &t[3])) {
        return false;
    }
    *argb = 0;
    for (c = 0; c < 4; c++) {
        top = vdxg_ch(t[0], c) * (256 - fx) + vdxg_ch(t[1], c) * fx;
        bot = vdxg_ch(t[2], c) * (256 - fx) + vdxg_ch(t[3], c) * fx;
        *argb |= ((top * (256 - fy) + bot * fy + 32768) >> 16) << (c * 8);
    }
    return true;
}

/* A triangle set up for drawing: vertices in counter-clockwise order */
typedef struct VdxgTri {
    VdxgVertex v[3];
    int64_t area;
    /* Edge i (0: v1 -> v2, 1: v2 -> v0, 2: v0 -> v1) */
    int64_t ex[3], ey[3];       /* b - a */
    bool owns[3];
    /* The pixels tried: [px0, px1] x [py0, py1] */
    int64_t px0, px1, py0, py1;
} VdxgTri;

/*
 * Set a triangle up; false when it draws nothing (no area, or no pixel
 * centre of DST inside its bounding box).
 */
static bool vdxg_tri_setup(VdxgTri *t, const VdxgSurface *dst)
{
    VdxgVertex tmp;
    int64_t minx, maxx, miny, maxy;
    unsigned int i;

    /* E(v0, v1, v2): twice the signed area, positive counter-clockwise */
    t->area = (t->v[1].x - t->v[0].x) * (t->v[2].y - t->v[0].y) -
              (t->v[1].y - t->v[0].y) * (t->v[2].x - t->v[0].x);
    if (!t->area) {
        return false;
    }
    if (t->area < 0) {
        tmp = t->v[1];
        t->v[1] = t->v[2];
        t->v[2] = tmp;
        t->area = -t->area;
    }
    minx = MIN(t->v[0].x, MIN(t->v[1].x, t->v[2].x));
    maxx = MAX(t->v[0].x, MAX(t->v[1].x, t->v[2].x));
    miny = MIN(t->v[0].y, MIN(t->v[1].y, t->v[2].y));
    maxy = MAX(t->v[0].y, MAX(t->v[1].y, t->v[2].y));
    /* 16 p + 8 in [min, max]: p from ceil((min - 8) / 16) */
    t->px0 = MAX((minx - 8 + 15) >> 4, 0);
    t->px1 = MIN((maxx - 8) >> 4, (int64_t)dst->width - 1);
    t->py0 = MAX((miny - 8 + 15) >> 4, 0);
    t->py1 = MIN((maxy - 8) >> 4, (int64_t)dst->height - 1);
    if (t->px0 > t->px1 || t->py0 > t->py1) {
        return false;
    }
    for (i = 0; i < 3; i++) {
        const VdxgVertex *a = &t->v[(i + 1) % 3];
        const VdxgVertex *b = &t->v[(i + 2) % 3];

        t->ex[i] = b->x - a->x;
        t->ey[i] = b->y - a->y;
        t->owns[i] = t->ey[i] < 0 || (t->ey[i] == 0 && t->ex[i] > 0);
    }
    return true;
}

/* Depth, texture and colour of covered pixel (px, py) with weights @w */
static bool vdxg_shade(VdxgRdRun *r, const VdxgTri *t, uint32_t flags,
                       uint32_t px, uint32_t py, const int64_t *w)
{
    const VdxgVertex *v = t->v;
    int64_t b[3];
    uint32_t z, depth, col, tex, c;

    /*
     * Covered: 0 <= w[i] <= area. With |X|, |Y| <= VDXG_VTX_COORD_MAX
     * (2^20) the area is below 2^43, so w * 65536 fits in 64 bits.
     */
    b[1] = w[1] * 65536 / t->area;
    b[2] = w[2] * 65536 / t->area;
    b[0] = 65536 - b[1] - b[2];

    z = vdxg_interp(v[0].z, v[1].z, v[2].z, b);
    if (flags & VDXG_DRAW_DEPTH_TEST) {
        if (!vdxg_px_load(r, VDXG_SLOT_DEPTH, px, py, &depth)) {
            return false;
        }
        if (!(z < depth)) {
            return true;
        }
    }
    if ((flags & VDXG_DRAW_DEPTH_WRITE) &&
        !vdxg_px_store(r, VDXG_SLOT_DEPTH, px, py, z)) {
        return false;
    }

    col = 0;
    for (c = 0; c < 4; c++) {
        col |= vdxg_interp(vdxg_ch(v[0].color, c), vdxg_ch(v[1].color, c),
                           vdxg_ch(v[2].color, c), b) << (c * 8);
    }
    if (flags & VDXG_DRAW_TEXTURE) {
        if (!vdxg_sample(r, flags & VDXG_DRAW_BILINEAR,
                         vdxg_interp(v[0].u, v[1].u, v[2].u, b),
                         vdxg_interp(v[0].v, v[1].v, v[2].v, b), &tex)) {
            return false;
        }
        for (c = 0; c < 4; c++) {
            col = deposit32(col, c * 8, 8,
                            vdxg_div255(vdxg_ch(tex, c) * vdxg_ch(col, c)));
        }
    }
    r->s->rd_pixels++;
    return vdxg_px_write(r, VDXG_SLOT_DST, px, py, col);
}

/*
 * Rasterize a set-up triangle from pixel *@progress of its box (row-major)
 * on. The edge functions are evaluated at the start of each row and then
 * stepped by one pixel (16 units) at a time.
 */
static VdxgRun vdxg_tri_draw(VdxgRdRun *r, const VdxgTri *t, uint32_t flags,
                             uint64_t *progress)
{
    uint64_t bw = t->px1 - t->px0 + 1;
    uint64_t n = bw * (t->py1 - t->py0 + 1), k = *progress;
    int64_t px, py, cx, cy, w[3];
    unsigned int i;
    bool in;

    while (k < n) {
        py = t->py0 + k / bw;
        px = t->px0 + k % bw;
        cx = 16 * px + 8;
        cy = 16 * py + 8;
        for (i = 0; i < 3; i++) {
            const VdxgVertex *a = &t->v[(i + 1) % 3];

            w[i] = t->ex[i] * (cy - a->y) - t->ey[i] * (cx - a->x);
        }
        for (; px <= t->px1; px++, k++) {
            if (*r->budget <= 0) {
                *progress = k;
                return VDXG_RUN_YIELD;
            }
            *r->budget -= VDXG_COST_PIXEL;
            in = true;
            for (i = 0; i < 3; i++) {
                in &= w[i] > 0 || (w[i] == 0 && t->owns[i]);
            }
            if (in) {
                *r->budget -= VDXG_COST_SHADE;
                if (!vdxg_shade(r, t, flags, px, py, w)) {
                    *progress = k;
                    return VDXG_RUN_FAULT;
                }
            }
            for (i = 0; i < 3; i++) {
                w[i] -= 16 * t->ey[i];
            }
        }
    }
    *progress = k;
    return VDXG_RUN_DONE;
}

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
    VdxgTri t;
    VdxgRun run;
    unsigned int i, j;

    if ((flags & ~VDXG_DRAW_FLAGS_MASK) || !surf[VDXG_SLOT_DST].format ||
        ((flags & VDXG_DRAW_BILINEAR) && !(flags & VDXG_DRAW_TEXTURE)) ||
        ((flags & VDXG_DRAW_TEXTURE) && !surf[VDXG_SLOT_TEXTURE].format) ||
        ((flags & (VDXG_DRAW_DEPTH_TEST | VDXG_DRAW_DEPTH_WRITE)) &&
         !surf[VDXG_SLOT_DEPTH].format) ||
        !count || count % 3 || count > VDXG_DRAW_MAX_VERTICES || vb % 4) {
        return vdxg_rd_fail(r, VDXG_FAULT_PARAM);
    }
    /* Depth is per DST pixel: DEPTH must cover DST. */
    if ((flags & (VDXG_DRAW_DEPTH_TEST | VDXG_DRAW_DEPTH_WRITE)) &&
        (surf[VDXG_SLOT_DEPTH].width < surf[VDXG_SLOT_DST].width ||
         surf[VDXG_SLOT_DEPTH].height < surf[VDXG_SLOT_DST].height)) {
        return vdxg_rd_fail(r, VDXG_FAULT_BOUNDS);
    }
    if (!vdxg_gpu_range_ok(r->s, vb, (uint64_t)count * VDXG_VERTEX_SIZE)) {
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
        if (!vdxg_gpu_rw(r->s, vb + (uint64_t)e->rd.item * sizeof(buf), buf,
                         sizeof(buf), false, r->err)) {
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
        if (!vdxg_tri_setup(&t, &surf[VDXG_SLOT_DST])) {
            continue;
        }
        run = vdxg_tri_draw(r, &t, flags, &e->op_progress);
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
    uint32_t reason = vdxg_surface_check(r->s, slot, &sf);

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
        return vdxg_gpu_rw(r->s, addr, buf, 8, true, r->err) ?
               VDXG_RUN_DONE : VDXG_RUN_FAULT;
    }
    if (!vdxg_gpu_rw(r->s, addr, buf, 8, false, r->err)) {
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
static VdxgRun vdxg_rd_cmd(VdxgState *s, VdxgEngine *e, int64_t *budget,
                           uint32_t *opcode, VdxgErr *err)
{
    uint64_t op_addr = e->buf_addr + e->buf_off;
    uint32_t dw[VDXG_RD_SET_SURFACE_LEN] = { 0 };
    uint8_t buf[sizeof(dw)];
    uint32_t hdr, op, len, i;
    VdxgRdRun run;
    VdxgRun r;

    *opcode = 0;
    *budget -= VDXG_COST_OP;
    if (!vdxg_gpu_rw(s, op_addr, buf, 4, false, err)) {
        return VDXG_RUN_FAULT;
    }
    hdr = ldl_le_p(buf);
    op = VDXG_PG_HDR_OP(hdr);
    len = VDXG_PG_HDR_LEN(hdr);
    *opcode = hdr & 0xffff;
    if (!e->op_progress && !e->rd.item) {
        trace_vdxg_rd_cmd(op_addr, hdr);
    }
    if ((hdr & 0xff00) || op >= VDXG_RD_NUM_OPS) {
        vdxg_set_err(err, VDXG_FAULT_OPCODE, op_addr);
        return VDXG_RUN_FAULT;
    }
    if (len != vdxg_rd_lengths[op] || len > (e->buf_len - e->buf_off) / 4) {
        vdxg_set_err(err, VDXG_FAULT_LENGTH, op_addr);
        return VDXG_RUN_FAULT;
    }
    if (!vdxg_gpu_rw(s, op_addr, buf, len * 4, false, err)) {
        return VDXG_RUN_FAULT;
    }
    for (i = 0; i < len; i++) {
        dw[i] = ldl_le_p(buf + i * 4);
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
        g_assert_not_reached();
    }
    vdxg_rd_run_flush(&run);

    if (r == VDXG_RUN_DONE) {
        s->rd_ops[op]++;
        trace_vdxg_rd_cmd_done(op, s->rd_ops[op], s->rd_pixels);
        e->buf_off += len * 4;
        e->op_progress = 0;
        e->rd.item = 0;
        vdxg_rd_snap_free(e);
    } else if (r == VDXG_RUN_FAULT && err->reason != VDXG_FAULT_ADDRESS) {
        err->addr = op_addr;
    }
    return r;
}

/* Rings: the machinery both engines share */

/* Run (or continue) the operation at the engine's buffer offset. */
static VdxgRun vdxg_engine_op(VdxgState *s, VdxgEngine *e, int64_t *budget,
                              uint32_t *opcode, VdxgErr *err)
{
    if (e->index == VDXG_ENGINE_RENDER) {
        return vdxg_rd_cmd(s, e, budget, opcode, err);
    }
    return vdxg_pg_op(s, e, budget, opcode, err);
}

/* Check the ring programming before the engine uses it. */
static bool vdxg_ring_check(VdxgState *s, VdxgEngine *e, VdxgErr *err)
{
    if ((e->ring_base & VDXG_PAGE_MASK) || !is_power_of_2(e->ring_size) ||
        e->ring_size < VDXG_RING_SIZE_MIN ||
        e->ring_size > VDXG_RING_SIZE_MAX ||
        !vdxg_gpu_range_ok(s, e->ring_base, e->ring_size) ||
        e->tail % VDXG_RING_ENTRY_SIZE || e->tail >= e->ring_size ||
        e->head >= e->ring_size ||
        (e->fence_addr & 7) ||
        (e->fence_addr && !vdxg_gpu_range_ok(s, e->fence_addr, 8))) {
        return vdxg_set_err(err, VDXG_FAULT_RING, e->ring_base);
    }
    return true;
}

/* Forget the operation in progress and the RENDER state of the entry. */
static void vdxg_engine_drop_entry(VdxgEngine *e)
{
    e->busy = false;
    e->buf_off = 0;
    e->op_progress = 0;
    vdxg_rd_snap_free(e);
    memset(&e->rd, 0, sizeof(e->rd));
    if (e->wait_timer) {
        timer_del(e->wait_timer);
    }
}

/* Halt @e on a fault. The entry in progress is abandoned. */
static void vdxg_engine_fault(VdxgState *s, VdxgEngine *e, const VdxgErr *err,
                              uint32_t opcode, uint32_t context)
{
    e->halted = true;
    vdxg_engine_drop_entry(e);
    vdxg_fault(s, e->index, err->reason, opcode, err->addr, context);
}

/*
 * Fetch the ring entry at HEAD. A NOP becomes an empty buffer to run, so
 * that every entry completes the same way.
 */
static bool vdxg_engine_fetch(VdxgState *s, VdxgEngine *e, int64_t *budget,
                              uint32_t *opcode, uint32_t *context,
                              VdxgErr *err)
{
    uint8_t buf[VDXG_RING_ENTRY_SIZE];
    uint32_t dw[VDXG_RING_ENTRY_SIZE / 4];
    uint64_t entry_addr, addr;
    unsigned int i;

    *opcode = VDXG_FAULT_OPCODE_RING;
    *context = 0;
    *budget -= VDXG_COST_ENTRY;
    if (!vdxg_ring_check(s, e, err)) {
        return false;
    }
    entry_addr = e->ring_base + e->head;
    if (!vdxg_gpu_rw(s, entry_addr, buf, sizeof(buf), false, err)) {
        return false;
    }
    for (i = 0; i < ARRAY_SIZE(dw); i++) {
        dw[i] = ldl_le_p(buf + i * 4);
    }
    addr = vdxg_dw64(dw, VDXG_RING_DW_ADDR_LO);
    *opcode = VDXG_FAULT_OPCODE_RING | (dw[VDXG_RING_DW_CMD] & 0xffff);
    *context = dw[VDXG_RING_DW_CONTEXT];
    trace_vdxg_engine_entry(e->index, e->head, dw[VDXG_RING_DW_CMD],
                            dw[VDXG_RING_DW_LENGTH], addr,
                            vdxg_dw64(dw, VDXG_RING_DW_SEQNO_LO),
                            dw[VDXG_RING_DW_CONTEXT]);

    if (dw[VDXG_RING_DW_RSVD]) {
        return vdxg_set_err(err, VDXG_FAULT_RING, entry_addr);
    }
    switch (dw[VDXG_RING_DW_CMD]) {
    case VDXG_RING_CMD_NOP:
        e->buf_len = 0;
        e->buf_addr = 0;
        break;
    case VDXG_RING_CMD_EXEC:
        e->buf_len = dw[VDXG_RING_DW_LENGTH];
        e->buf_addr = addr;
        if (!e->buf_len || e->buf_len % 4 ||
            e->buf_len > VDXG_RING_LENGTH_MAX) {
            return vdxg_set_err(err, VDXG_FAULT_LENGTH, entry_addr);
        }
        if (!vdxg_gpu_range_ok(s, addr, e->buf_len)) {
            return vdxg_set_err(err, VDXG_FAULT_ADDRESS, addr);
        }
        break;
    default:
        return vdxg_set_err(err, VDXG_FAULT_OPCODE, entry_addr);
    }
    /* Each entry starts with no surface bound. */
    vdxg_engine_drop_entry(e);
    e->progress = 0;
    e->busy = true;
    e->cmd = dw[VDXG_RING_DW_CMD];
    e->seqno = vdxg_dw64(dw, VDXG_RING_DW_SEQNO_LO);
    e->context = dw[VDXG_RING_DW_CONTEXT];
    return true;
}

/* The entry in progress is done: write its fence back, then signal. */
static bool vdxg_engine_complete(VdxgState *s, VdxgEngine *e, VdxgErr *err)
{
    uint8_t buf[8];

    if (e->fence_addr) {
        stq_le_p(buf, e->seqno);
        if (!vdxg_gpu_rw(s, e->fence_addr, buf, sizeof(buf), true, err)) {
            return false;
        }
    }
    e->fence_value = e->seqno;
    e->head = (e->head + VDXG_RING_ENTRY_SIZE) & (e->ring_size - 1);
    vdxg_engine_drop_entry(e);
    trace_vdxg_engine_done(e->index, e->seqno, e->head);
    vdxg_irq_raise(s, e->index == VDXG_ENGINE_RENDER ?
                      VDXG_INT_RENDER_FENCE : VDXG_INT_PAGING_FENCE);
    return true;
}

static bool vdxg_engine_runnable(VdxgEngine *e)
{
    return (e->ctrl & VDXG_ENG_CTRL_ENABLE) && !e->halted &&
           runstate_is_running();
}

/*
 * An engine's bottom half: run entries from HEAD to TAIL. One run does at
 * most VDXG_BH_BUDGET of work, then schedules the next run and returns to
 * the main loop, so that a large move or draw does not hold the BQL (and
 * stall the vCPUs) for long. An operation stopped half-way continues where
 * it stopped (op_progress). A WAIT that is not satisfied yet stops the run
 * and looks again when the wait timer fires.
 */
static void vdxg_engine_bh(void *opaque)
{
    VdxgEngine *e = opaque;
    VdxgState *s = e->s;
    int64_t budget = VDXG_BH_BUDGET;
    uint32_t opcode, context;
    VdxgErr err = { 0 };
    VdxgRun r;

    s->bh_runs[e->index]++;
    while (vdxg_engine_runnable(e)) {
        if (budget <= 0) {
            trace_vdxg_engine_yield(e->index, e->head, e->buf_off,
                                    e->op_progress);
            qemu_bh_schedule(e->bh);
            return;
        }
        if (!e->busy) {
            if (e->head == e->tail) {
                break;
            }
            if (!vdxg_engine_fetch(s, e, &budget, &opcode, &context, &err)) {
                vdxg_engine_fault(s, e, &err, opcode, context);
                break;
            }
        }
        r = VDXG_RUN_DONE;
        e->waiting = false;
        while (r == VDXG_RUN_DONE && e->buf_off < e->buf_len) {
            if (budget <= 0) {
                r = VDXG_RUN_YIELD;
                break;
            }
            r = vdxg_engine_op(s, e, &budget, &opcode, &err);
            if (r == VDXG_RUN_DONE || r == VDXG_RUN_YIELD) {
                e->progress++;
            }
        }
        switch (r) {
        case VDXG_RUN_FAULT:
            vdxg_engine_fault(s, e, &err, opcode, e->context);
            return;
        case VDXG_RUN_WAIT:
            e->waiting = true;
            trace_vdxg_engine_wait(e->index, e->head, e->buf_off);
            timer_mod(e->wait_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                                     VDXG_WAIT_POLL_NS);
            return;
        case VDXG_RUN_YIELD:
            trace_vdxg_engine_yield(e->index, e->head, e->buf_off,
                                    e->op_progress);
            qemu_bh_schedule(e->bh);
            return;
        case VDXG_RUN_DONE:
            if (!vdxg_engine_complete(s, e, &err)) {
                vdxg_engine_fault(s, e, &err,
                                  VDXG_FAULT_OPCODE_RING | (e->cmd & 0xffff),
                                  e->context);
                return;
            }
            break;
        }
    }
}

/* The wait timer: look at the WAIT's address again. */
static void vdxg_engine_wait_timer(void *opaque)
{
    VdxgEngine *e = opaque;

    qemu_bh_schedule(e->bh);
}

/* ENABLE or DOORBELL: check the ring, then let the bottom half run it. */
static void vdxg_engine_kick(VdxgState *s, VdxgEngine *e)
{
    VdxgErr err;

    if (!(e->ctrl & VDXG_ENG_CTRL_ENABLE) || e->halted) {
        trace_vdxg_engine_kick_ignored(e->index, e->ctrl, e->halted);
        return;
    }
    if (!vdxg_ring_check(s, e, &err)) {
        vdxg_engine_fault(s, e, &err, VDXG_FAULT_OPCODE_RING, 0);
        return;
    }
    trace_vdxg_engine_kick(e->index, e->head, e->tail);
    qemu_bh_schedule(e->bh);
}

/*
 * Engine RESET: every register to 0, the entry in progress (a WAIT
 * included) dropped. What follows rd in VdxgEngine stays.
 */
static void vdxg_engine_reset(VdxgState *s, VdxgEngine *e)
{
    trace_vdxg_engine_reset(e->index, e->head, e->tail, e->halted);
    vdxg_engine_drop_entry(e);
    memset(e, 0, offsetof(VdxgEngine, index));
    if (e->bh) {
        qemu_bh_cancel(e->bh);
    }
}

static void vdxg_vm_state_change(void *opaque, bool running, RunState state)
{
    VdxgState *s = opaque;
    unsigned int i;

    /* The engines do not run while the VM is stopped; catch up now. */
    if (running) {
        for (i = 0; i < VDXG_NUM_ENGINES; i++) {
            qemu_bh_schedule(s->engine[i].bh);
        }
    }
}

static uint32_t vdxg_engine_status(VdxgEngine *e)
{
    uint32_t status = 0;

    if (!e->busy && e->head == e->tail) {
        status |= VDXG_ENG_STATUS_IDLE;
    }
    if (e->halted) {
        status |= VDXG_ENG_STATUS_HALTED;
    }
    if (e->busy && e->waiting) {
        status |= VDXG_ENG_STATUS_WAITING;
    }
    return status;
}

/* Display engine */

static void vdxg_guest_error(const char *what, hwaddr addr, uint32_t val);

static VdxgCrtc *vdxg_crtc(VdxgState *s, unsigned int index)
{
    return &s->crtc[index];
}

static bool vdxg_crtc_active(const VdxgCrtc *c)
{
    return c->ctrl & VDXG_CRTC_CTRL_ENABLE;
}

/*
 * Why the mode registers @m cannot be scanned out, or NULL when they can.
 * The frame period is floor(HTOTAL * VTOTAL * 10^6 / CLOCK_KHZ) ns.
 */
static const char *vdxg_mode_check(const uint32_t *m)
{
    uint64_t frame_ns;

    if (!m[VDXG_M_HDISPLAY] || m[VDXG_M_HDISPLAY] > VDXG_MODE_MAX_DISPLAY ||
        !m[VDXG_M_VDISPLAY] || m[VDXG_M_VDISPLAY] > VDXG_MODE_MAX_DISPLAY) {
        return "display size";
    }
    if (m[VDXG_M_HSYNC_START] < m[VDXG_M_HDISPLAY] ||
        m[VDXG_M_HSYNC_END] < m[VDXG_M_HSYNC_START] ||
        m[VDXG_M_HTOTAL] < m[VDXG_M_HSYNC_END] ||
        m[VDXG_M_HTOTAL] > VDXG_MODE_MAX_TOTAL) {
        return "horizontal timing";
    }
    if (m[VDXG_M_VSYNC_START] < m[VDXG_M_VDISPLAY] ||
        m[VDXG_M_VSYNC_END] < m[VDXG_M_VSYNC_START] ||
        m[VDXG_M_VTOTAL] < m[VDXG_M_VSYNC_END] ||
        m[VDXG_M_VTOTAL] > VDXG_MODE_MAX_TOTAL) {
        return "vertical timing";
    }
    if (!m[VDXG_M_CLOCK]) {
        return "pixel clock";
    }
    frame_ns = muldiv64((uint64_t)m[VDXG_M_HTOTAL] * m[VDXG_M_VTOTAL],
                        1000000, m[VDXG_M_CLOCK]);
    if (frame_ns < VDXG_MODE_MIN_FRAME_NS ||
        frame_ns > VDXG_MODE_MAX_FRAME_NS) {
        return "refresh rate";
    }
    return NULL;
}

/* Timing, all derived from the virtual clock and the latched mode */

/* ns from the enable to the start of line @line (counted over frames) */
static uint64_t vdxg_line_ns(const VdxgCrtc *c, uint64_t line)
{
    return muldiv64(line * c->amode[VDXG_M_HTOTAL], 1000000,
                    c->amode[VDXG_M_CLOCK]);
}

/* The line (counted over frames) being scanned at virtual time @now */
static uint64_t vdxg_line_at(const VdxgCrtc *c, int64_t now)
{
    uint64_t dt, line;

    if (now <= c->t0) {
        return 0;
    }
    dt = now - c->t0;
    line = muldiv64(dt, c->amode[VDXG_M_CLOCK], 1000000) /
           c->amode[VDXG_M_HTOTAL];
    /* The division above may be one line off; line starts are the rule. */
    while (vdxg_line_ns(c, line + 1) <= dt) {
        line++;
    }
    while (line && vdxg_line_ns(c, line) > dt) {
        line--;
    }
    return line;
}

/* Vblanks since the enable up to virtual time @now */
static uint64_t vdxg_frames_at(const VdxgCrtc *c, int64_t now)
{
    uint64_t line = vdxg_line_at(c, now);

    if (line < c->amode[VDXG_M_VDISPLAY]) {
        return 0;
    }
    return (line - c->amode[VDXG_M_VDISPLAY]) / c->amode[VDXG_M_VTOTAL] + 1;
}

/* Virtual time of vblank @k (k >= 1) */
static int64_t vdxg_vblank_time(const VdxgCrtc *c, uint64_t k)
{
    return c->t0 + vdxg_line_ns(c, (k - 1) * c->amode[VDXG_M_VTOTAL] +
                                   c->amode[VDXG_M_VDISPLAY]);
}

static int64_t vdxg_now(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

/* FRAME_COUNT as a 64-bit number */
static uint64_t vdxg_crtc_frames(const VdxgCrtc *c)
{
    return vdxg_crtc_active(c) ? vdxg_frames_at(c, vdxg_now()) : c->frame_off;
}

static int64_t vdxg_crtc_vblank_ns(const VdxgCrtc *c)
{
    uint64_t k;

    if (!vdxg_crtc_active(c)) {
        return c->vblank_ns_off;
    }
    k = vdxg_frames_at(c, vdxg_now());
    return k ? vdxg_vblank_time(c, k) : c->t0;
}

static uint32_t vdxg_crtc_scanline(const VdxgCrtc *c)
{
    if (!vdxg_crtc_active(c)) {
        return 0;
    }
    return vdxg_line_at(c, vdxg_now()) % c->amode[VDXG_M_VTOTAL];
}

static uint32_t vdxg_crtc_status(const VdxgCrtc *c)
{
    uint32_t status = 0;

    if (vdxg_crtc_active(c)) {
        status |= VDXG_CRTC_STATUS_ACTIVE;
        if (vdxg_crtc_scanline(c) >= c->amode[VDXG_M_VDISPLAY]) {
            status |= VDXG_CRTC_STATUS_VBLANK;
        }
    }
    if (c->mode_invalid) {
        status |= VDXG_CRTC_STATUS_MODE_INVALID;
    }
    if (c->flip_pending) {
        status |= VDXG_CRTC_STATUS_FLIP_PENDING;
    }
    return status;
}

static bool vdxg_wb_busy(VdxgState *s)
{
    return s->wb.ctrl & VDXG_WB_CTRL_ENABLE;
}

static unsigned int vdxg_wb_crtc(VdxgState *s)
{
    return extract32(s->wb.ctrl, VDXG_WB_CTRL_CRTC_SHIFT, 4);
}

/*
 * The vblank timer runs only while a vblank has work: an interrupt, a
 * flip, a CRC or a writeback capture. Everything else is derived from
 * the clock when it is read.
 */
static void vdxg_crtc_arm(VdxgState *s, VdxgCrtc *c)
{
    bool needed = vdxg_crtc_active(c) &&
                  ((c->ctrl & (VDXG_CRTC_CTRL_VBLANK_IRQ |
                               VDXG_CRTC_CTRL_CRC)) ||
                   c->flip_pending ||
                   (vdxg_wb_busy(s) && vdxg_wb_crtc(s) == c->index));

    if (needed) {
        timer_mod_ns(c->timer,
                     vdxg_vblank_time(c, vdxg_frames_at(c, vdxg_now()) + 1));
    } else {
        timer_del(c->timer);
    }
}

/* Faults */

static void vdxg_display_fault(VdxgState *s, VdxgCrtc *c, unsigned int unit,
                               uint32_t reason, uint64_t addr)
{
    trace_vdxg_display_fault(c->index, unit, reason, addr);
    vdxg_fault(s, VDXG_FAULT_ENGINE_DISPLAY, reason,
               VDXG_FAULT_OPCODE_DISPLAY(c->index, unit), addr,
               vdxg_crtc_frames(c));
}

/* Planes */

/* Bytes per pixel of a scanout format; 0 for the others */
static uint32_t vdxg_fourcc_cpp(uint32_t fourcc)
{
    switch (fourcc) {
    case VDXG_FOURCC_XRGB8888:
    case VDXG_FOURCC_ARGB8888:
    case VDXG_FOURCC_XBGR8888:
        return 4;
    case VDXG_FOURCC_RGB565:
        return 2;
    default:
        return 0;
    }
}

static uint32_t vdxg_plane_w(const VdxgPlane *pl)
{
    return extract32(pl->src_size, 0, 16);
}

static uint32_t vdxg_plane_h(const VdxgPlane *pl)
{
    return extract32(pl->src_size, 16, 16);
}

static uint64_t vdxg_plane_span(const VdxgPlane *pl)
{
    return (uint64_t)pl->pitch * (vdxg_plane_h(pl) - 1) +
           (uint64_t)vdxg_plane_w(pl) * vdxg_fourcc_cpp(pl->format);
}

/*
 * Can plane @p show @pl? Returns VDXG_FAULT_NONE, or the reason of the
 * fault that latching it raises.
 */
static uint32_t vdxg_plane_check(VdxgState *s, unsigned int p,
                                 const VdxgPlane *pl)
{
    uint32_t cpp = vdxg_fourcc_cpp(pl->format);
    uint32_t w = vdxg_plane_w(pl), h = vdxg_plane_h(pl);
    uint32_t max = p == VDXG_PLANE_IDX_CURSOR ? VDXG_CURSOR_MAX_DIM :
                                                VDXG_PLANE_MAX_DIM;

    if (!cpp ||
        (p == VDXG_PLANE_IDX_CURSOR && pl->format != VDXG_FOURCC_ARGB8888)) {
        return VDXG_FAULT_PARAM;
    }
    if (!w || !h || w > max || h > max ||
        pl->pitch % cpp || pl->pitch < w * cpp ||
        pl->pitch > VDXG_PLANE_MAX_PITCH || pl->addr % cpp ||
        extract32(pl->ctrl, VDXG_PLANE_CTRL_BLEND_SHIFT, 2) >
        VDXG_BLEND_COVERAGE ||
        pl->zpos > VDXG_ZPOS_MAX) {
        return VDXG_FAULT_PARAM;
    }
    if (!vdxg_gpu_range_ok(s, pl->addr, vdxg_plane_span(pl))) {
        return VDXG_FAULT_ADDRESS;
    }
    return VDXG_FAULT_NONE;
}

/* Latch plane @p's pending registers; a bad enabled plane faults. */
static void vdxg_plane_latch(VdxgState *s, VdxgCrtc *c, unsigned int p)
{
    VdxgPlane *pl = &c->cur[p];
    uint32_t reason;

    *pl = c->pend[p];
    c->pstatus[p] = 0;
    if (pl->ctrl & VDXG_PLANE_CTRL_ENABLE) {
        reason = vdxg_plane_check(s, p, pl);
        if (reason == VDXG_FAULT_NONE) {
            c->pstatus[p] = VDXG_PLANE_STATUS_ACTIVE;
        } else {
            c->pstatus[p] = VDXG_PLANE_STATUS_FAULT;
            vdxg_display_fault(s, c, p, reason, pl->addr);
        }
    }
    trace_vdxg_plane_latch(c->index, p, pl->ctrl, pl->addr, pl->format,
                           pl->src_size, pl->dst_pos, c->pstatus[p]);
    c->stale = true;
}

static void vdxg_crtc_latch_all(VdxgState *s, VdxgCrtc *c)
{
    unsigned int p;

    for (p = 0; p < VDXG_NUM_PLANES; p++) {
        vdxg_plane_latch(s, c, p);
    }
    c->abg = c->bg;
    c->stale = true;
}

/* Composition */

/* A scanout pixel as ARGB8888 */
static uint32_t vdxg_scan_px(uint32_t fourcc, const uint8_t *p)
{
    uint32_t v, r5, g6, b5;

    switch (fourcc) {
    case VDXG_FOURCC_XRGB8888:
        return ldl_le_p(p) | 0xff000000u;
    case VDXG_FOURCC_XBGR8888:
        v = ldl_le_p(p);
        return 0xff000000u | (v & 0xff) << 16 | (v & 0xff00) |
               extract32(v, 16, 8);
    case VDXG_FOURCC_RGB565:
        v = lduw_le_p(p);
        r5 = extract32(v, 11, 5);
        g6 = extract32(v, 5, 6);
        b5 = extract32(v, 0, 5);
        return 0xff000000u | (r5 << 3 | r5 >> 2) << 16 |
               (g6 << 2 | g6 >> 4) << 8 | (b5 << 3 | b5 >> 2);
    default:
        return ldl_le_p(p);
    }
}

static uint32_t vdxg_div65535(uint32_t v)
{
    return (v + 32767) / 65535;
}

/*
 * @fg (ARGB8888) over @bg (XRGB8888) with plane alpha @pa (0..0xffff) in
 * blend mode @mode; the result has X = 0. With A = fg.alpha * 257 and
 * cov = div65535(pa * A), per channel:
 *   NONE:     div65535(fg * pa  + bg * (65535 - pa))
 *   PREMULTI: min(255, div65535(fg * pa  + bg * (65535 - cov)))
 *   COVERAGE: div65535(fg * cov + bg * (65535 - cov))
 */
static uint32_t vdxg_scan_blend(uint32_t fg, uint32_t bg, uint32_t mode,
                              uint32_t pa)
{
    uint32_t cov, wf, wb, out = 0, ch, v;

    cov = vdxg_div65535(pa * (extract32(fg, 24, 8) * 257));
    switch (mode) {
    case VDXG_BLEND_NONE:
        wf = pa;
        wb = 65535 - pa;
        break;
    case VDXG_BLEND_PREMULTI:
        wf = pa;
        wb = 65535 - cov;
        break;
    default:
        wf = cov;
        wb = 65535 - cov;
        break;
    }
    for (ch = 0; ch < 24; ch += 8) {
        v = vdxg_div65535(extract32(fg, ch, 8) * wf +
                          extract32(bg, ch, 8) * wb);
        out |= MIN(v, 255u) << ch;
    }
    return out;
}

/* Read @n scanout pixels of format @fourcc at @src as ARGB8888 into @dst. */
static void vdxg_scan_row(uint32_t fourcc, const uint8_t *src, uint32_t *dst,
                          int64_t n)
{
    int64_t i;

    switch (fourcc) {
    case VDXG_FOURCC_XRGB8888:
        for (i = 0; i < n; i++) {
            dst[i] = ldl_le_p(src + i * 4) | 0xff000000u;
        }
        break;
    case VDXG_FOURCC_ARGB8888:
        for (i = 0; i < n; i++) {
            dst[i] = ldl_le_p(src + i * 4);
        }
        break;
    default:
        for (i = 0; i < n; i++) {
            dst[i] = vdxg_scan_px(fourcc, src + i * vdxg_fourcc_cpp(fourcc));
        }
        break;
    }
}

/* Are the pixels of plane @pl opaque, replacing what is under them? */
static bool vdxg_plane_opaque(const VdxgPlane *pl)
{
    uint32_t mode = extract32(pl->ctrl, VDXG_PLANE_CTRL_BLEND_SHIFT, 2);

    /* Formats without alpha read A = 255, which every mode treats alike */
    return pl->alpha == VDXG_ALPHA_OPAQUE &&
           (mode == VDXG_BLEND_NONE || pl->format != VDXG_FOURCC_ARGB8888);
}

/*
 * Draw latched plane @p of @c over the frame. Returns false after an
 * access fault, which has hidden the plane.
 */
static bool vdxg_plane_draw(VdxgState *s, VdxgCrtc *c, unsigned int p)
{
    const VdxgPlane *pl = &c->cur[p];
    int64_t w = vdxg_plane_w(pl), h = vdxg_plane_h(pl);
    int64_t x0 = (int16_t)extract32(pl->dst_pos, 0, 16);
    int64_t y0 = (int16_t)extract32(pl->dst_pos, 16, 16);
    int64_t fw = c->fw, fh = c->fh;
    int64_t dx0 = MAX(x0, 0), dx1 = MIN(x0 + w, fw);
    int64_t dy0 = MAX(y0, 0), dy1 = MIN(y0 + h, fh);
    bool rot = pl->ctrl & VDXG_PLANE_CTRL_ROT_180;
    bool flip_x = rot != !!(pl->ctrl & VDXG_PLANE_CTRL_REFLECT_X);
    bool flip_y = rot != !!(pl->ctrl & VDXG_PLANE_CTRL_REFLECT_Y);
    uint32_t mode = extract32(pl->ctrl, VDXG_PLANE_CTRL_BLEND_SHIFT, 2);
    uint32_t cpp = vdxg_fourcc_cpp(pl->format);
    bool in_vram = vdxg_in_vram(s, pl->addr, vdxg_plane_span(pl));
    bool opaque = vdxg_plane_opaque(pl);
    uint32_t *px = s->disp_px;
    int64_t n, su0, dy, i, v, sv;
    uint64_t row;
    const uint8_t *src;
    uint32_t *out;
    VdxgErr err;

    if (dx0 >= dx1 || dy0 >= dy1) {
        return true;
    }
    n = dx1 - dx0;
    /* The first source column that a visible pixel shows */
    su0 = flip_x ? w - (dx1 - x0) : dx0 - x0;
    for (dy = dy0; dy < dy1; dy++) {
        v = dy - y0;
        sv = flip_y ? h - 1 - v : v;
        row = pl->addr + (uint64_t)sv * pl->pitch + (uint64_t)su0 * cpp;
        if (in_vram) {
            src = s->vram_ptr + row;
        } else {
            if (!vdxg_gpu_rw(s, row, s->disp_row, n * cpp, false, &err)) {
                c->pstatus[p] = VDXG_PLANE_STATUS_FAULT;
                vdxg_display_fault(s, c, p, err.reason, err.addr);
                return false;
            }
            src = s->disp_row;
        }
        out = c->frame + dy * fw + dx0;
        if (opaque && !flip_x && pl->format == VDXG_FOURCC_XRGB8888) {
            /* The common case: a straight copy */
            for (i = 0; i < n; i++) {
                out[i] = ldl_le_p(src + i * 4) & 0xffffff;
            }
            continue;
        }
        vdxg_scan_row(pl->format, src, px, n);
        if (flip_x) {
            for (i = 0; i < n / 2; i++) {
                uint32_t t = px[i];

                px[i] = px[n - 1 - i];
                px[n - 1 - i] = t;
            }
        }
        if (opaque) {
            for (i = 0; i < n; i++) {
                out[i] = px[i] & 0xffffff;
            }
        } else {
            for (i = 0; i < n; i++) {
                out[i] = vdxg_scan_blend(px[i], out[i], mode, pl->alpha);
            }
        }
    }
    return true;
}

/* Does latched plane @pl cover the whole frame of @c, opaque? */
static bool vdxg_plane_covers(const VdxgCrtc *c, const VdxgPlane *pl)
{
    int64_t x0 = (int16_t)extract32(pl->dst_pos, 0, 16);
    int64_t y0 = (int16_t)extract32(pl->dst_pos, 16, 16);

    return vdxg_plane_opaque(pl) && x0 <= 0 && y0 <= 0 &&
           x0 + vdxg_plane_w(pl) >= c->fw && y0 + vdxg_plane_h(pl) >= c->fh;
}

/* Compose the latched state of active CRTC @c into its frame. */
static void vdxg_crtc_compose(VdxgState *s, VdxgCrtc *c)
{
    unsigned int order[VDXG_NUM_PLANES], n, i, j, p;
    uint32_t bg = c->abg & 0xffffff;
    size_t px = (size_t)c->fw * c->fh, k;
    int64_t start = get_clock();

retry:
    /* Shown planes, bottom first: by ZPOS, then primary, overlay, cursor */
    n = 0;
    for (p = 0; p < VDXG_NUM_PLANES; p++) {
        if (!(c->pstatus[p] & VDXG_PLANE_STATUS_ACTIVE)) {
            continue;
        }
        for (i = n; i > 0 && c->cur[order[i - 1]].zpos > c->cur[p].zpos;
             i--) {
            order[i] = order[i - 1];
        }
        order[i] = p;
        n++;
    }
    if (!n || !vdxg_plane_covers(c, &c->cur[order[0]])) {
        for (k = 0; k < px; k++) {
            c->frame[k] = bg;
        }
    }
    for (j = 0; j < n; j++) {
        if (!vdxg_plane_draw(s, c, order[j])) {
            /* The plane is hidden now: draw the frame without it. */
            goto retry;
        }
    }
    c->stale = false;
    c->crc_valid = false;
    c->con_dirty = true;
    s->disp_composes++;
    trace_vdxg_compose(c->index, c->fw, c->fh, n, get_clock() - start);
}

/*
 * Mark the frames whose planes have changed in memory since the last
 * look: VRAM through the dirty log, the aperture always.
 */
static void vdxg_display_harvest(VdxgState *s)
{
    uint64_t lo = UINT64_MAX, hi = 0, span;
    DirtyBitmapSnapshot *snap = NULL;
    unsigned int ci, p;

    for (ci = 0; ci < s->outputs; ci++) {
        VdxgCrtc *c = vdxg_crtc(s, ci);

        for (p = 0; vdxg_crtc_active(c) && p < VDXG_NUM_PLANES; p++) {
            const VdxgPlane *pl = &c->cur[p];

            if (!(c->pstatus[p] & VDXG_PLANE_STATUS_ACTIVE)) {
                continue;
            }
            span = vdxg_plane_span(pl);
            if (vdxg_in_vram(s, pl->addr, span)) {
                lo = MIN(lo, pl->addr);
                hi = MAX(hi, pl->addr + span);
            } else {
                c->stale = true;
            }
        }
    }
    if (lo >= hi) {
        return;
    }
    snap = memory_region_snapshot_and_clear_dirty(&s->vram, lo, hi - lo,
                                                  DIRTY_MEMORY_VGA);
    for (ci = 0; ci < s->outputs; ci++) {
        VdxgCrtc *c = vdxg_crtc(s, ci);

        for (p = 0; vdxg_crtc_active(c) && p < VDXG_NUM_PLANES; p++) {
            const VdxgPlane *pl = &c->cur[p];

            span = vdxg_plane_span(pl);
            if ((c->pstatus[p] & VDXG_PLANE_STATUS_ACTIVE) &&
                vdxg_in_vram(s, pl->addr, span) &&
                memory_region_snapshot_get_dirty(&s->vram, snap, pl->addr,
                                                 span)) {
                c->stale = true;
            }
        }
    }
    g_free(snap);
}

/* Bring the frame of @c up to date with its planes and memory. */
static void vdxg_crtc_refresh(VdxgState *s, VdxgCrtc *c)
{
    if (!vdxg_crtc_active(c)) {
        return;
    }
    vdxg_display_harvest(s);
    if (c->stale) {
        vdxg_crtc_compose(s, c);
    }
}

/*
 * CRC-32/ISO-HDLC (zlib's crc32) of the frame's bytes: HDISPLAY x VDISPLAY
 * XRGB8888 pixels, little endian, X = 0, rows top to bottom, no padding.
 */
static uint32_t vdxg_crtc_crc(VdxgState *s, VdxgCrtc *c)
{
    if (!c->crc_valid) {
#if HOST_BIG_ENDIAN
        uLong crc = crc32(0, NULL, 0);
        uint32_t y, x;

        for (y = 0; y < c->fh; y++) {
            for (x = 0; x < c->fw; x++) {
                stl_le_p(s->disp_row + x * 4, c->frame[y * c->fw + x]);
            }
            crc = crc32(crc, s->disp_row, c->fw * 4);
        }
        c->crc_cache = crc;
#else
        c->crc_cache = crc32(crc32(0, NULL, 0), (const Bytef *)c->frame,
                             c->fw * c->fh * 4);
#endif
        c->crc_valid = true;
        s->disp_crcs++;
    }
    return c->crc_cache;
}

/* Resize the frame of @c (black); the console follows on its update. */
static void vdxg_crtc_set_frame(VdxgCrtc *c, uint32_t w, uint32_t h)
{
    if (!c->frame || c->fw != w || c->fh != h) {
        g_free(c->frame);
        c->frame = g_new0(uint32_t, (size_t)w * h);
        c->fw = w;
        c->fh = h;
    } else {
        memset(c->frame, 0, (size_t)w * h * 4);
    }
    c->stale = true;
    c->crc_valid = false;
    c->con_dirty = true;
}

/* Writeback */

static void vdxg_wb_finish(VdxgState *s, uint32_t status, uint64_t frame)
{
    VdxgWriteback *wb = &s->wb;

    wb->ctrl &= ~VDXG_WB_CTRL_ENABLE;
    wb->status = status;
    wb->frame = frame;
    trace_vdxg_wb_done(vdxg_wb_crtc(s), frame, wb->addr, status, wb->seqno);
}

/* Write the composed frame of @c to the writeback target. */
static void vdxg_wb_capture(VdxgState *s, VdxgCrtc *c, uint64_t frame)
{
    VdxgWriteback *wb = &s->wb;
    uint32_t w = c->fw, h = c->fh, x, y, reason = VDXG_FAULT_NONE;
    uint32_t alpha = 0xff000000u;
    VdxgErr err;

    if (wb->format != VDXG_FOURCC_XRGB8888 &&
        wb->format != VDXG_FOURCC_ARGB8888) {
        reason = VDXG_FAULT_PARAM;
    } else if (wb->pitch % 4 || wb->pitch < w * 4 ||
               wb->pitch > VDXG_PLANE_MAX_PITCH || wb->addr % 4) {
        reason = VDXG_FAULT_PARAM;
    } else if (!vdxg_gpu_range_ok(s, wb->addr, (uint64_t)wb->pitch * (h - 1) +
                                  w * 4)) {
        reason = VDXG_FAULT_ADDRESS;
    }
    if (reason != VDXG_FAULT_NONE) {
        vdxg_display_fault(s, c, VDXG_DISP_UNIT_WRITEBACK, reason, wb->addr);
        vdxg_wb_finish(s, VDXG_WB_STATUS_DONE | VDXG_WB_STATUS_ERROR, frame);
        return;
    }
    vdxg_crtc_refresh(s, c);
    for (y = 0; y < h; y++) {
        for (x = 0; x < w; x++) {
            stl_le_p(s->disp_row + x * 4, c->frame[y * w + x] | alpha);
        }
        if (!vdxg_gpu_rw(s, wb->addr + (uint64_t)y * wb->pitch, s->disp_row,
                         w * 4, true, &err)) {
            vdxg_display_fault(s, c, VDXG_DISP_UNIT_WRITEBACK, err.reason,
                               err.addr);
            vdxg_wb_finish(s, VDXG_WB_STATUS_DONE | VDXG_WB_STATUS_ERROR,
                           frame);
            return;
        }
    }
    wb->seqno++;
    vdxg_wb_finish(s, VDXG_WB_STATUS_DONE, frame);
}

/* Vblank */

/* The events of vblank @frame of active CRTC @c */
static void vdxg_crtc_vblank(VdxgState *s, VdxgCrtc *c, uint64_t frame)
{
    uint32_t irq = 0;

    c->event_frame = frame;
    if (c->flip_pending && frame > c->flip_frame) {
        c->flip_pending = false;
        vdxg_crtc_latch_all(s, c);
        irq |= VDXG_INT_FLIP_DONE(c->index);
    }
    if (vdxg_wb_busy(s) && vdxg_wb_crtc(s) == c->index &&
        frame > s->wb.arm_frame) {
        vdxg_wb_capture(s, c, frame);
        irq |= VDXG_INT_WRITEBACK;
    }
    if (c->ctrl & VDXG_CRTC_CTRL_CRC) {
        vdxg_crtc_refresh(s, c);
        c->crc = vdxg_crtc_crc(s, c);
        c->crc_frame = frame;
    }
    if (c->ctrl & VDXG_CRTC_CTRL_VBLANK_IRQ) {
        irq |= VDXG_INT_VBLANK(c->index);
    }
    trace_vdxg_vblank(c->index, frame, irq, c->crc);
    if (irq) {
        vdxg_irq_raise(s, irq);
    }
}

static void vdxg_crtc_timer(void *opaque)
{
    VdxgCrtc *c = opaque;
    VdxgState *s = c->s;
    uint64_t frame;

    if (!vdxg_crtc_active(c)) {
        return;
    }
    frame = vdxg_frames_at(c, vdxg_now());
    if (frame > c->event_frame) {
        vdxg_crtc_vblank(s, c, frame);
    }
    vdxg_crtc_arm(s, c);
}

/* Enable and disable */

static bool vdxg_crtc_enable(VdxgState *s, VdxgCrtc *c)
{
    const char *why = vdxg_mode_check(c->mode);

    if (why) {
        trace_vdxg_crtc_mode_invalid(c->index, why);
        qemu_log_mask(LOG_GUEST_ERROR, "vdxg: CRTC %u: bad mode (%s)\n",
                      c->index, why);
        c->mode_invalid = true;
        vdxg_display_fault(s, c, VDXG_DISP_UNIT_MODE, VDXG_FAULT_PARAM, 0);
        return false;
    }
    memcpy(c->amode, c->mode, sizeof(c->amode));
    c->mode_invalid = false;
    c->t0 = vdxg_now();
    c->event_frame = 0;
    c->flip_pending = false;
    c->crc = 0;
    c->crc_frame = 0;
    c->ctrl |= VDXG_CRTC_CTRL_ENABLE;
    vdxg_crtc_set_frame(c, c->amode[VDXG_M_HDISPLAY],
                        c->amode[VDXG_M_VDISPLAY]);
    vdxg_crtc_latch_all(s, c);
    trace_vdxg_crtc_enable(c->index, c->amode[VDXG_M_HDISPLAY],
                           c->amode[VDXG_M_VDISPLAY],
                           c->amode[VDXG_M_HTOTAL], c->amode[VDXG_M_VTOTAL],
                           c->amode[VDXG_M_CLOCK], vdxg_line_ns(c,
                           c->amode[VDXG_M_VTOTAL]));
    return true;
}

/* Turn active CRTC @c off: pending work ends now. Returns interrupts. */
static uint32_t vdxg_crtc_disable(VdxgState *s, VdxgCrtc *c)
{
    uint32_t irq = 0;

    c->frame_off = vdxg_crtc_frames(c);
    c->vblank_ns_off = vdxg_crtc_vblank_ns(c);
    c->ctrl &= ~VDXG_CRTC_CTRL_ENABLE;
    timer_del(c->timer);
    trace_vdxg_crtc_disable(c->index, c->frame_off);
    if (c->flip_pending) {
        c->flip_pending = false;
        vdxg_crtc_latch_all(s, c);
        irq |= VDXG_INT_FLIP_DONE(c->index);
    }
    if (vdxg_wb_busy(s) && vdxg_wb_crtc(s) == c->index) {
        vdxg_wb_finish(s, VDXG_WB_STATUS_DONE | VDXG_WB_STATUS_ERROR,
                       c->frame_off);
        irq |= VDXG_INT_WRITEBACK;
    }
    vdxg_crtc_set_frame(c, c->fw, c->fh);
    return irq;
}

/* Connectors */

/*
 * The EDID of connector @index: EDID 1.4, digital; preferred mode
 * 1024x768@60 (DMT), a second detailed timing 2560x1600@60 (CVT reduced
 * blanking), established 640x480, 800x600, 1024x768 and standard timings
 * from 1280x720 to 1920x1200, a range limits descriptor and the name
 * "vdxg-<index>".
 */
static void vdxg_edid_build(uint8_t *e, unsigned int index)
{
    static const uint8_t header[8] = { 0, 0xff, 0xff, 0xff, 0xff, 0xff,
                                       0xff, 0 };
    /* 1024x768@60: 65 MHz, 1344 x 806, sync -/- */
    static const uint8_t dtd_1024[18] = {
        0x64, 0x19, 0x00, 0x40, 0x41, 0x00, 0x26, 0x30, 0x18, 0x88,
        0x36, 0x00, 0x90, 0x2c, 0x11, 0x00, 0x00, 0x18,
    };
    /* 2560x1600@60 RB: 268.5 MHz, 2720 x 1646, sync +/- */
    static const uint8_t dtd_2560[18] = {
        0xe2, 0x68, 0x00, 0xa0, 0xa0, 0x40, 0x2e, 0x60, 0x30, 0x20,
        0x36, 0x00, 0x90, 0x2c, 0x11, 0x00, 0x00, 0x1a,
    };
    /* Range limits: 50-75 Hz, 30-100 kHz, 270 MHz, no timing formula */
    static const uint8_t ranges[18] = {
        0x00, 0x00, 0x00, 0xfd, 0x00, 50, 75, 30, 100, 27, 0x01, 0x0a,
        0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    };
    /* 1280x1024, 1280x800, 1440x900, 1600x1200, 1680x1050, 1920x1080,
     * 1920x1200, 1280x720, all @60 */
    static const uint8_t std[16] = {
        0x81, 0x80, 0x81, 0x00, 0x95, 0x00, 0xa9, 0x40,
        0xb3, 0x00, 0xd1, 0xc0, 0xd1, 0x00, 0x81, 0xc0,
    };
    g_autofree char *name = g_strdup_printf("vdxg-%u\n", index);
    uint8_t *d;
    uint8_t sum = 0;
    unsigned int i;

    memset(e, 0, VDXG_EDID_SIZE);
    memcpy(e, header, sizeof(header));
    /* Manufacturer "VDX", product 0xd3d0 + index, serial index + 1 */
    e[8] = ((('V' - '@') << 2) | (('D' - '@') >> 3)) & 0xff;
    e[9] = ((('D' - '@') << 5) | ('X' - '@')) & 0xff;
    stw_le_p(e + 10, VDXG_PCI_DEVICE_ID + index);
    stl_le_p(e + 12, index + 1);
    e[16] = 1;                  /* week 1 of 2026 */
    e[17] = 2026 - 1990;
    e[18] = 1;                  /* EDID 1.4 */
    e[19] = 4;
    e[20] = 0xa5;               /* digital, 8 bpc, DisplayPort */
    e[21] = 40;                 /* 40 cm x 30 cm */
    e[22] = 30;
    e[23] = 120;                /* gamma 2.2 */
    e[24] = 0x06;               /* sRGB, preferred timing is native */
    /* sRGB chromaticity, as QEMU's EDID generator writes it */
    e[25] = 0xee;
    e[26] = 0x91;
    e[27] = 0xa3;
    e[28] = 0x54;
    e[29] = 0x4c;
    e[30] = 0x99;
    e[31] = 0x26;
    e[32] = 0x0f;
    e[33] = 0x50;
    e[34] = 0x54;
    e[35] = 0x21;               /* 640x480@60, 800x600@60 */
    e[36] = 0x08;               /* 1024x768@60 */
    e[37] = 0x00;
    memcpy(e + 38, std, sizeof(std));
    memcpy(e + 54, dtd_1024, 18);
    memcpy(e + 72, dtd_2560, 18);
    memcpy(e + 90, ranges, 18);
    d = e + 108;
    d[3] = 0xfc;                /* display product name */
    memset(d + 5, ' ', 13);
    memcpy(d + 5, name, MIN(strlen(name), 13));
    e[126] = 0;                 /* no extension */
    for (i = 0; i < VDXG_EDID_SIZE - 1; i++) {
        sum += e[i];
    }
    e[127] = -sum;
}

static void vdxg_get_connected(Object *obj, Visitor *v, const char *name,
                               void *opaque, Error **errp)
{
    bool *connected = opaque;

    visit_type_bool(v, name, connected, errp);
}

static void vdxg_set_connected(Object *obj, Visitor *v, const char *name,
                               void *opaque, Error **errp)
{
    VdxgState *s = VDXG(obj);
    bool *connected = opaque;
    unsigned int index = connected - s->connected;
    bool value;

    if (!visit_type_bool(v, name, &value, errp)) {
        return;
    }
    if (!DEVICE(obj)->realized) {
        *connected = value;
        return;
    }
    if (index >= s->outputs) {
        error_setg(errp, "vdxg has %u output%s: there is no output %u",
                   s->outputs, s->outputs > 1 ? "s" : "", index);
        return;
    }
    if (*connected != value) {
        *connected = value;
        s->crtc[index].conn_changed = true;
        trace_vdxg_hotplug(index, value);
        vdxg_irq_raise(s, VDXG_INT_HOTPLUG);
    }
}

/* Console: the frame of each CRTC is a graphic console (head = CRTC) */

static void vdxg_gfx_invalidate(void *opaque)
{
    VdxgCrtc *c = opaque;

    c->con_dirty = true;
}

static void vdxg_gfx_update(void *opaque)
{
    VdxgCrtc *c = opaque;
    VdxgState *s = c->s;
    DisplaySurface *surface = qemu_console_surface(c->con);
    bool resized = false;
    uint32_t y;

    vdxg_crtc_refresh(s, c);
    if (!surface || surface_width(surface) != c->fw ||
        surface_height(surface) != c->fh ||
        surface_format(surface) != PIXMAN_x8r8g8b8) {
        surface = qemu_create_displaysurface(c->fw, c->fh);
        dpy_gfx_replace_surface(c->con, surface);
        resized = true;
    }
    if (c->con_dirty || resized) {
        for (y = 0; y < c->fh; y++) {
            memcpy((uint8_t *)surface_data(surface) +
                   (size_t)y * surface_stride(surface),
                   c->frame + (size_t)y * c->fw, c->fw * 4);
        }
        c->con_dirty = false;
        trace_vdxg_gfx_update(c->index, c->fw, c->fh);
        dpy_gfx_update_full(c->con);
    }
}

static const GraphicHwOps vdxg_gfx_ops = {
    .invalidate = vdxg_gfx_invalidate,
    .gfx_update = vdxg_gfx_update,
};

/* Reset, realize, migration */

/* Every display register to its power-on value; connections stay. */
static void vdxg_display_reset(VdxgState *s)
{
    unsigned int i;

    for (i = 0; i < VDXG_MAX_CRTCS; i++) {
        VdxgCrtc *c = vdxg_crtc(s, i);

        if (c->timer) {
            timer_del(c->timer);
        }
        memset(c, 0, offsetof(VdxgCrtc, timer));
        if (c->frame) {
            vdxg_crtc_set_frame(c, VDXG_OFF_WIDTH, VDXG_OFF_HEIGHT);
        }
    }
    memset(&s->wb, 0, sizeof(s->wb));
}

static void vdxg_display_realize(VdxgState *s)
{
    unsigned int i;

    memory_region_set_log(&s->vram, true, DIRTY_MEMORY_VGA);
    for (i = 0; i < VDXG_MAX_CRTCS; i++) {
        VdxgCrtc *c = vdxg_crtc(s, i);

        c->index = i;
        c->s = s;
        if (i >= s->outputs) {
            continue;
        }
        c->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, vdxg_crtc_timer, c);
        vdxg_edid_build(c->edid, i);
        vdxg_crtc_set_frame(c, VDXG_OFF_WIDTH, VDXG_OFF_HEIGHT);
        c->con = graphic_console_init(DEVICE(s), i, &vdxg_gfx_ops, c);
    }
}

static void vdxg_display_exit(VdxgState *s)
{
    unsigned int i;

    for (i = 0; i < s->outputs; i++) {
        VdxgCrtc *c = vdxg_crtc(s, i);

        graphic_console_close(c->con);
        c->con = NULL;
        timer_free(c->timer);
        c->timer = NULL;
        g_free(c->frame);
        c->frame = NULL;
    }
    memory_region_set_log(&s->vram, false, DIRTY_MEMORY_VGA);
}

/* Check the incoming display state and rebuild what is not migrated. */
static bool vdxg_display_post_load(VdxgState *s)
{
    unsigned int i, p;

    if ((s->wb.ctrl & ~VDXG_WB_CTRL_MASK) ||
        (s->wb.status & ~(VDXG_WB_STATUS_DONE | VDXG_WB_STATUS_ERROR))) {
        return false;
    }
    /* An armed capture has an active source. */
    if (vdxg_wb_busy(s) && (vdxg_wb_crtc(s) >= s->outputs ||
        !vdxg_crtc_active(vdxg_crtc(s, vdxg_wb_crtc(s))))) {
        return false;
    }
    for (i = 0; i < VDXG_MAX_CRTCS; i++) {
        VdxgCrtc *c = vdxg_crtc(s, i);

        if (c->ctrl & ~VDXG_CRTC_CTRL_MASK) {
            return false;
        }
        if (i >= s->outputs) {
            if (c->ctrl || c->flip_pending) {
                return false;
            }
            continue;
        }
        if (vdxg_crtc_active(c)) {
            if (vdxg_mode_check(c->amode)) {
                return false;
            }
            vdxg_crtc_set_frame(c, c->amode[VDXG_M_HDISPLAY],
                                c->amode[VDXG_M_VDISPLAY]);
        } else if (c->flip_pending) {
            return false;
        } else {
            vdxg_crtc_set_frame(c, c->fw, c->fh);
        }
        /* Shown planes are read without further checks. */
        for (p = 0; p < VDXG_NUM_PLANES; p++) {
            if ((c->pstatus[p] & ~(VDXG_PLANE_STATUS_ACTIVE |
                                   VDXG_PLANE_STATUS_FAULT)) ||
                ((c->pstatus[p] & VDXG_PLANE_STATUS_ACTIVE) &&
                 vdxg_plane_check(s, p, &c->cur[p]) != VDXG_FAULT_NONE)) {
                return false;
            }
        }
    }
    /* The vblank timers follow from the state and the clock. */
    for (i = 0; i < s->outputs; i++) {
        vdxg_crtc_arm(s, vdxg_crtc(s, i));
    }
    return true;
}

/* Register access */

static bool vdxg_plane_read(VdxgCrtc *c, unsigned int p, hwaddr off,
                            uint32_t *val)
{
    const VdxgPlane *pl = &c->pend[p];

    switch (off) {
    case VDXG_PLANE_CTRL:
        *val = pl->ctrl;
        break;
    case VDXG_PLANE_ADDR_LO:
        *val = extract64(pl->addr, 0, 32);
        break;
    case VDXG_PLANE_ADDR_HI:
        *val = extract64(pl->addr, 32, 32);
        break;
    case VDXG_PLANE_FORMAT:
        *val = pl->format;
        break;
    case VDXG_PLANE_PITCH:
        *val = pl->pitch;
        break;
    case VDXG_PLANE_SRC_SIZE:
        *val = pl->src_size;
        break;
    case VDXG_PLANE_DST_POS:
        *val = pl->dst_pos;
        break;
    case VDXG_PLANE_ALPHA:
        *val = pl->alpha;
        break;
    case VDXG_PLANE_ZPOS:
        *val = pl->zpos;
        break;
    case VDXG_PLANE_STATUS:
        *val = c->pstatus[p];
        break;
    case VDXG_PLANE_CUR_ADDR_LO:
        *val = extract64(c->cur[p].addr, 0, 32);
        break;
    case VDXG_PLANE_CUR_ADDR_HI:
        *val = extract64(c->cur[p].addr, 32, 32);
        break;
    default:
        return false;
    }
    return true;
}

static bool vdxg_plane_write(VdxgState *s, VdxgCrtc *c, unsigned int p,
                             hwaddr addr, hwaddr off, uint32_t val)
{
    VdxgPlane *pl = &c->pend[p];
    uint32_t mask;

    switch (off) {
    case VDXG_PLANE_CTRL:
        mask = p == VDXG_PLANE_IDX_CURSOR ? VDXG_PLANE_CTRL_CURSOR_MASK :
                                            VDXG_PLANE_CTRL_MASK;
        if (val & ~mask) {
            vdxg_guest_error("unsupported plane CTRL bits dropped", addr,
                             val);
        }
        pl->ctrl = val & mask;
        break;
    case VDXG_PLANE_ADDR_LO:
        pl->addr = deposit64(pl->addr, 0, 32, val);
        break;
    case VDXG_PLANE_ADDR_HI:
        pl->addr = deposit64(pl->addr, 32, 32, val);
        break;
    case VDXG_PLANE_FORMAT:
        pl->format = val;
        break;
    case VDXG_PLANE_PITCH:
        pl->pitch = val;
        break;
    case VDXG_PLANE_SRC_SIZE:
        pl->src_size = val;
        break;
    case VDXG_PLANE_DST_POS:
        pl->dst_pos = val;
        break;
    case VDXG_PLANE_ALPHA:
        if (val > VDXG_ALPHA_OPAQUE) {
            vdxg_guest_error("plane ALPHA bits 31:16 dropped", addr, val);
        }
        pl->alpha = val & VDXG_ALPHA_OPAQUE;
        break;
    case VDXG_PLANE_ZPOS:
        pl->zpos = val;
        break;
    case VDXG_PLANE_STATUS:
    case VDXG_PLANE_CUR_ADDR_LO:
    case VDXG_PLANE_CUR_ADDR_HI:
        vdxg_guest_error("write to read-only register", addr, val);
        break;
    default:
        return false;
    }
    return true;
}

/* The mode register at CRTC offset @off, or -1 */
static int vdxg_mode_reg(hwaddr off)
{
    switch (off) {
    case VDXG_CRTC_HDISPLAY:
        return VDXG_M_HDISPLAY;
    case VDXG_CRTC_VDISPLAY:
        return VDXG_M_VDISPLAY;
    case VDXG_CRTC_HTOTAL:
        return VDXG_M_HTOTAL;
    case VDXG_CRTC_VTOTAL:
        return VDXG_M_VTOTAL;
    case VDXG_CRTC_CLOCK_KHZ:
        return VDXG_M_CLOCK;
    case VDXG_CRTC_HSYNC_START:
        return VDXG_M_HSYNC_START;
    case VDXG_CRTC_HSYNC_END:
        return VDXG_M_HSYNC_END;
    case VDXG_CRTC_VSYNC_START:
        return VDXG_M_VSYNC_START;
    case VDXG_CRTC_VSYNC_END:
        return VDXG_M_VSYNC_END;
    default:
        return -1;
    }
}

/* The CRTC whose block holds @addr, or NULL */
static VdxgCrtc *vdxg_crtc_at(VdxgState *s, hwaddr addr)
{
    if (addr < VDXG_CRTC_BASE(0) || addr >= VDXG_CRTC_BASE(s->outputs)) {
        return NULL;
    }
    return vdxg_crtc(s, (addr - VDXG_CRTC_BASE(0)) / 0x200);
}

static bool vdxg_wb_read(VdxgState *s, hwaddr addr, uint32_t *val)
{
    VdxgWriteback *wb = &s->wb;

    switch (addr) {
    case VDXG_REG_WB_CTRL:
        *val = wb->ctrl;
        break;
    case VDXG_REG_WB_ADDR_LO:
        *val = extract64(wb->addr, 0, 32);
        break;
    case VDXG_REG_WB_ADDR_HI:
        *val = extract64(wb->addr, 32, 32);
        break;
    case VDXG_REG_WB_FORMAT:
        *val = wb->format;
        break;
    case VDXG_REG_WB_PITCH:
        *val = wb->pitch;
        break;
    case VDXG_REG_WB_STATUS:
        *val = wb->status | (vdxg_wb_busy(s) ? VDXG_WB_STATUS_BUSY : 0);
        break;
    case VDXG_REG_WB_SEQNO:
        *val = wb->seqno;
        break;
    case VDXG_REG_WB_FRAME:
        *val = wb->frame;
        break;
    default:
        return false;
    }
    return true;
}

static bool vdxg_wb_write(VdxgState *s, hwaddr addr, uint32_t val)
{
    VdxgWriteback *wb = &s->wb;
    unsigned int old_crtc = vdxg_wb_crtc(s), crtc;
    VdxgCrtc *c;

    switch (addr) {
    case VDXG_REG_WB_CTRL:
        if (val & ~VDXG_WB_CTRL_MASK) {
            vdxg_guest_error("undefined writeback CTRL bits dropped", addr,
                             val);
        }
        val &= VDXG_WB_CTRL_MASK;
        crtc = extract32(val, VDXG_WB_CTRL_CRTC_SHIFT, 4);
        if (vdxg_wb_busy(s)) {
            if (val & VDXG_WB_CTRL_ENABLE) {
                vdxg_guest_error("writeback already armed", addr, val);
                break;
            }
            /* Disarm: the capture is dropped without interrupt. */
            wb->ctrl = val;
            wb->status = 0;
            trace_vdxg_wb_cancel(old_crtc);
            vdxg_crtc_arm(s, vdxg_crtc(s, old_crtc));
            break;
        }
        wb->ctrl = val;
        if (!(val & VDXG_WB_CTRL_ENABLE)) {
            break;
        }
        wb->status = 0;
        if (crtc >= s->outputs || !vdxg_crtc_active(vdxg_crtc(s, crtc))) {
            c = vdxg_crtc(s, crtc % VDXG_MAX_CRTCS);
            vdxg_guest_error("writeback armed on a CRTC that is off", addr,
                             val);
            vdxg_fault(s, VDXG_FAULT_ENGINE_DISPLAY, VDXG_FAULT_PARAM,
                       VDXG_FAULT_OPCODE_DISPLAY(crtc,
                                                 VDXG_DISP_UNIT_WRITEBACK),
                       wb->addr, crtc < s->outputs ? c->frame_off : 0);
            vdxg_wb_finish(s, VDXG_WB_STATUS_DONE | VDXG_WB_STATUS_ERROR, 0);
            vdxg_irq_raise(s, VDXG_INT_WRITEBACK);
            break;
        }
        c = vdxg_crtc(s, crtc);
        wb->arm_frame = vdxg_crtc_frames(c);
        trace_vdxg_wb_arm(crtc, wb->arm_frame, wb->addr, wb->format,
                          wb->pitch);
        vdxg_crtc_arm(s, c);
        break;
    case VDXG_REG_WB_ADDR_LO:
        wb->addr = deposit64(wb->addr, 0, 32, val);
        break;
    case VDXG_REG_WB_ADDR_HI:
        wb->addr = deposit64(wb->addr, 32, 32, val);
        break;
    case VDXG_REG_WB_FORMAT:
        wb->format = val;
        break;
    case VDXG_REG_WB_PITCH:
        wb->pitch = val;
        break;
    case VDXG_REG_WB_STATUS:
    case VDXG_REG_WB_SEQNO:
    case VDXG_REG_WB_FRAME:
        vdxg_guest_error("write to read-only register", addr, val);
        break;
    default:
        return false;
    }
    return true;
}

/* The display registers; false for an offset that is none. */
static bool vdxg_display_read(VdxgState *s, hwaddr addr, uint32_t *val)
{
    VdxgCrtc *c = vdxg_crtc_at(s, addr);
    hwaddr off;
    int m;

    if (s->pf) {
        return false;           /* a VF has no display */
    }
    if (!c) {
        return vdxg_wb_read(s, addr, val);
    }
    off = addr & 0x1ff;
    if (off >= VDXG_PLANE_PRIMARY && off < VDXG_CRTC_CONN_STATUS) {
        return vdxg_plane_read(c, (off - VDXG_PLANE_PRIMARY) / 0x40,
                               off & 0x3f, val);
    }
    if (off >= VDXG_CRTC_EDID) {
        *val = s->connected[c->index] ?
               ldl_le_p(c->edid + off - VDXG_CRTC_EDID) : 0;
        return true;
    }
    m = vdxg_mode_reg(off);
    if (m >= 0) {
        *val = c->mode[m];
        return true;
    }
    switch (off) {
    case VDXG_CRTC_CTRL:
        *val = c->ctrl;
        break;
    case VDXG_CRTC_FLIP:
    case VDXG_CRTC_CURSOR_UPDATE:
        *val = 0;
        break;
    case VDXG_CRTC_FRAME_COUNT:
        *val = vdxg_crtc_frames(c);
        break;
    case VDXG_CRTC_VBLANK_NS_LO:
        *val = extract64(vdxg_crtc_vblank_ns(c), 0, 32);
        break;
    case VDXG_CRTC_VBLANK_NS_HI:
        *val = extract64(vdxg_crtc_vblank_ns(c), 32, 32);
        break;
    case VDXG_CRTC_SCANLINE:
        *val = vdxg_crtc_scanline(c);
        break;
    case VDXG_CRTC_CRC:
        *val = c->crc;
        break;
    case VDXG_CRTC_CRC_FRAME:
        *val = c->crc_frame;
        break;
    case VDXG_CRTC_BG_COLOR:
        *val = c->bg;
        break;
    case VDXG_CRTC_STATUS:
        *val = vdxg_crtc_status(c);
        break;
    case VDXG_CRTC_CONN_STATUS:
        *val = (s->connected[c->index] ? VDXG_CONN_CONNECTED : 0) |
               (c->conn_changed ? VDXG_CONN_CHANGED : 0);
        break;
    default:
        return false;
    }
    return true;
}

static bool vdxg_display_write(VdxgState *s, hwaddr addr, uint32_t val)
{
    VdxgCrtc *c = vdxg_crtc_at(s, addr);
    uint32_t irq = 0;
    hwaddr off;
    int m;

    if (s->pf) {
        return false;           /* a VF has no display */
    }
    if (!c) {
        return vdxg_wb_write(s, addr, val);
    }
    off = addr & 0x1ff;
    if (off >= VDXG_PLANE_PRIMARY && off < VDXG_CRTC_CONN_STATUS) {
        return vdxg_plane_write(s, c, (off - VDXG_PLANE_PRIMARY) / 0x40,
                                addr, off & 0x3f, val);
    }
    if (off >= VDXG_CRTC_EDID) {
        vdxg_guest_error("write to read-only register", addr, val);
        return true;
    }
    m = vdxg_mode_reg(off);
    if (m >= 0) {
        c->mode[m] = val;
        return true;
    }
    switch (off) {
    case VDXG_CRTC_CTRL:
        if (val & ~VDXG_CRTC_CTRL_MASK) {
            vdxg_guest_error("undefined CRTC CTRL bits dropped", addr, val);
        }
        val &= VDXG_CRTC_CTRL_MASK;
        if ((val & VDXG_CRTC_CTRL_ENABLE) && !vdxg_crtc_active(c)) {
            c->ctrl = val & ~VDXG_CRTC_CTRL_ENABLE;
            vdxg_crtc_enable(s, c);
        } else {
            if (!(val & VDXG_CRTC_CTRL_ENABLE) && vdxg_crtc_active(c)) {
                irq = vdxg_crtc_disable(s, c);
            }
            c->ctrl = val;
            c->mode_invalid = false;
        }
        vdxg_crtc_arm(s, c);
        if (irq) {
            vdxg_irq_raise(s, irq);
        }
        break;
    case VDXG_CRTC_FLIP:
        if (vdxg_crtc_active(c)) {
            c->flip_pending = true;
            c->flip_frame = vdxg_crtc_frames(c);
            trace_vdxg_flip(c->index, c->flip_frame, false);
            vdxg_crtc_arm(s, c);
        } else {
            trace_vdxg_flip(c->index, c->frame_off, true);
            vdxg_crtc_latch_all(s, c);
            vdxg_irq_raise(s, VDXG_INT_FLIP_DONE(c->index));
        }
        break;
    case VDXG_CRTC_CURSOR_UPDATE:
        trace_vdxg_cursor_update(c->index,
                                 c->pend[VDXG_PLANE_IDX_CURSOR].dst_pos,
                                 c->pend[VDXG_PLANE_IDX_CURSOR].addr);
        vdxg_plane_latch(s, c, VDXG_PLANE_IDX_CURSOR);
        break;
    case VDXG_CRTC_BG_COLOR:
        c->bg = val;
        break;
    case VDXG_CRTC_CONN_STATUS:
        if (val & VDXG_CONN_CHANGED) {
            c->conn_changed = false;
        }
        break;
    case VDXG_CRTC_FRAME_COUNT:
    case VDXG_CRTC_VBLANK_NS_LO:
    case VDXG_CRTC_VBLANK_NS_HI:
    case VDXG_CRTC_SCANLINE:
    case VDXG_CRTC_CRC:
    case VDXG_CRTC_CRC_FRAME:
    case VDXG_CRTC_STATUS:
        vdxg_guest_error("write to read-only register", addr, val);
        break;
    default:
        return false;
    }
    return true;
}

/* SR-IOV */

/* VF @index of PF @pf as a VdxgState; all exist from the PF's realize. */
static VdxgState *vdxg_vf(VdxgState *pf, uint32_t index)
{
    PCIDevice *pdev = PCI_DEVICE(pf);

    if (!pf->has_sriov || index >= pf->total_vfs || !pdev->exp.sriov_pf.vf) {
        return NULL;
    }
    return VDXG(pdev->exp.sriov_pf.vf[index]);
}

/*
 * Lay a VF's VRAM BAR out from its applied backing table: one alias of PF
 * VRAM per range, end to end; the rest is the unbacked background.
 */
static void vdxg_vf_map_backing(VdxgState *vf)
{
    VdxgState *pf = vf->pf;
    const VdxgRange *r = pf->backing[vf->vf_index];
    uint32_t n = pf->backing_n[vf->vf_index];
    uint64_t pos = 0;
    unsigned int i;

    memory_region_transaction_begin();
    for (i = 0; i < VDXG_MAX_BACKING_RANGES; i++) {
        MemoryRegion *a = &vf->vf_alias[i];

        if (i < n) {
            memory_region_set_alias_offset(a, r[i].off);
            memory_region_set_size(a, r[i].len);
            memory_region_set_address(a, pos);
            memory_region_set_enabled(a, true);
            pos += r[i].len;
        } else {
            memory_region_set_enabled(a, false);
        }
    }
    memory_region_transaction_commit();
}

/* The PF's table of @vf changed: show it in the VF's BAR. */
static void vdxg_backing_changed(VdxgState *s, uint32_t vf)
{
    VdxgState *v = vdxg_vf(s, vf);

    if (v) {
        vdxg_vf_map_backing(v);
    }
}

/* Clear every backing table, pending and applied (a reset of the PF). */
static void vdxg_backing_reset(VdxgState *s)
{
    uint32_t i;

    s->backing_select = 0;
    s->backing_status = 0;
    memset(s->backing_pend, 0, sizeof(s->backing_pend));
    memset(s->backing, 0, sizeof(s->backing));
    memset(s->backing_n, 0, sizeof(s->backing_n));
    for (i = 0; i < s->total_vfs; i++) {
        vdxg_backing_changed(s, i);
    }
}

static uint32_t vdxg_total_vfs(VdxgState *s)
{
    return s->has_sriov ? s->total_vfs : 0;
}

/* The pending entry BACKING_SELECT designates, or NULL */
static VdxgRange *vdxg_backing_entry(VdxgState *s)
{
    uint32_t vf = s->backing_select >> 16;
    uint32_t bar = (s->backing_select >> 8) & 0xff;
    uint32_t idx = s->backing_select & 0xff;

    if (vf >= vdxg_total_vfs(s) || bar != VDXG_BAR_VRAM ||
        idx >= VDXG_MAX_BACKING_RANGES) {
        return NULL;
    }
    return &s->backing_pend[vf][idx];
}

/* COMMIT: check the pending table of (VF, BAR) and apply it, or refuse. */
static void vdxg_backing_commit(VdxgState *s, uint32_t val)
{
    uint32_t vf = val >> 16;
    uint32_t bar = (val >> 8) & 0xff;
    const VdxgRange *r;
    uint64_t sum = 0;
    uint32_t n;
    const char *why = NULL;

    if (val & 0xff) {
        why = "index bits set";
    } else if (vf >= vdxg_total_vfs(s)) {
        why = "no such VF";
    } else if (bar != VDXG_BAR_VRAM) {
        why = "only the VRAM BAR has a table";
    }
    if (why) {
        goto refuse;
    }
    r = s->backing_pend[vf];
    for (n = 0; n < VDXG_MAX_BACKING_RANGES && r[n].len; n++) {
        if ((r[n].off | r[n].len) & VDXG_PAGE_MASK) {
            why = "range not page aligned";
        } else if (!vdxg_in_window(r[n].off, r[n].len, 0, s->vram_size)) {
            why = "range outside VRAM";
        } else if (r[n].len > s->vf_vram_size - sum) {
            why = "ranges longer than the BAR";
        }
        if (why) {
            goto refuse;
        }
        sum += r[n].len;
    }
    memset(s->backing[vf], 0, sizeof(s->backing[vf]));
    memcpy(s->backing[vf], r, n * sizeof(*r));
    s->backing_n[vf] = n;
    s->backing_status = n << VDXG_BACKING_STATUS_RANGES_SHIFT;
    trace_vdxg_backing_commit(vf, n, sum);
    vdxg_backing_changed(s, vf);
    return;

refuse:
    s->backing_status = VDXG_BACKING_STATUS_ERROR;
    trace_vdxg_backing_refused(val, why);
    vdxg_guest_error(why, VDXG_REG_BACKING_COMMIT, val);
}

static bool vdxg_sriov_read(VdxgState *s, hwaddr addr, uint32_t *val)
{
    VdxgRange *e;

    if (s->pf || addr < VDXG_REG_BACKING_SELECT ||
        addr > VDXG_REG_SRIOV_NUM_VFS) {
        return false;
    }
    e = vdxg_backing_entry(s);
    switch (addr) {
    case VDXG_REG_BACKING_SELECT:
        *val = s->backing_select;
        break;
    case VDXG_REG_BACKING_OFFSET_LO:
        *val = e ? extract64(e->off, 0, 32) : 0;
        break;
    case VDXG_REG_BACKING_OFFSET_HI:
        *val = e ? extract64(e->off, 32, 32) : 0;
        break;
    case VDXG_REG_BACKING_LENGTH_LO:
        *val = e ? extract64(e->len, 0, 32) : 0;
        break;
    case VDXG_REG_BACKING_LENGTH_HI:
        *val = e ? extract64(e->len, 32, 32) : 0;
        break;
    case VDXG_REG_BACKING_COMMIT:
        *val = 0;
        break;
    case VDXG_REG_BACKING_STATUS:
        *val = s->backing_status;
        break;
    case VDXG_REG_SRIOV_TOTAL_VFS:
        *val = vdxg_total_vfs(s);
        break;
    case VDXG_REG_SRIOV_VF_VRAM_SIZE_LO:
        *val = s->has_sriov ? extract64(s->vf_vram_size, 0, 32) : 0;
        break;
    case VDXG_REG_SRIOV_VF_VRAM_SIZE_HI:
        *val = s->has_sriov ? extract64(s->vf_vram_size, 32, 32) : 0;
        break;
    case VDXG_REG_SRIOV_NUM_VFS:
        *val = pcie_sriov_num_vfs(PCI_DEVICE(s));
        break;
    default:
        return false;
    }
    return true;
}

static bool vdxg_sriov_write(VdxgState *s, hwaddr addr, uint32_t val)
{
    VdxgRange *e;

    if (s->pf || addr < VDXG_REG_BACKING_SELECT ||
        addr > VDXG_REG_SRIOV_NUM_VFS) {
        return false;
    }
    e = vdxg_backing_entry(s);
    switch (addr) {
    case VDXG_REG_BACKING_SELECT:
        s->backing_select = val;
        if (!vdxg_backing_entry(s)) {
            vdxg_guest_error("BACKING_SELECT of no table entry", addr, val);
        }
        break;
    case VDXG_REG_BACKING_OFFSET_LO:
    case VDXG_REG_BACKING_OFFSET_HI:
    case VDXG_REG_BACKING_LENGTH_LO:
    case VDXG_REG_BACKING_LENGTH_HI:
        if (!e) {
            vdxg_guest_error("backing entry write ignored (bad SELECT)",
                             addr, val);
        } else if (addr == VDXG_REG_BACKING_OFFSET_LO) {
            e->off = deposit64(e->off, 0, 32, val);
        } else if (addr == VDXG_REG_BACKING_OFFSET_HI) {
            e->off = deposit64(e->off, 32, 32, val);
        } else if (addr == VDXG_REG_BACKING_LENGTH_LO) {
            e->len = deposit64(e->len, 0, 32, val);
        } else {
            e->len = deposit64(e->len, 32, 32, val);
        }
        break;
    case VDXG_REG_BACKING_COMMIT:
        vdxg_backing_commit(s, val);
        break;
    case VDXG_REG_BACKING_STATUS:
    case VDXG_REG_SRIOV_TOTAL_VFS:
    case VDXG_REG_SRIOV_VF_VRAM_SIZE_LO:
    case VDXG_REG_SRIOV_VF_VRAM_SIZE_HI:
    case VDXG_REG_SRIOV_NUM_VFS:
        vdxg_guest_error("write to read-only register", addr, val);
        break;
    default:
        return false;
    }
    return true;
}

/* A VF's VRAM BAR beyond its backing: reads 0, writes are dropped. */
static uint64_t vdxg_unbacked_read(void *opaque, hwaddr addr, unsigned size)
{
    return 0;
}

static void vdxg_unbacked_write(void *opaque, hwaddr addr, uint64_t data,
                                unsigned size)
{
}

static const MemoryRegionOps vdxg_unbacked_ops = {
    .read = vdxg_unbacked_read,
    .write = vdxg_unbacked_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 1,
        .max_access_size = 8,
    },
};

/* Resizable BAR */

/* Offered sizes in the REBAR capability's encoding: bit n is 2^n MiB. */
static uint32_t vdxg_rebar_sizes(VdxgState *s)
{
    uint32_t sizes = 0;
    uint64_t size;

    for (size = VDXG_VRAM_BAR_SIZE_MIN; size <= s->vram_size; size <<= 1) {
        sizes |= BIT(ctz64(size) - 20);
    }
    return sizes;
}

/*
 * Give the VRAM BAR @size bytes: the BAR's size and writable bits, and the
 * window onto VRAM. A mapped BAR is unmapped and mapped again at the
 * address its register holds (rounded to the new size).
 */
static void vdxg_rebar_set(VdxgState *s, uint64_t size)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    PCIIORegion *r = &pdev->io_regions[VDXG_BAR_VRAM];
    uint32_t bar = PCI_BASE_ADDRESS_0 + VDXG_BAR_VRAM * 4;
    uint64_t addr;
    uint32_t ctrl;

    if (!s->rebar_cap) {
        return;
    }
    ctrl = pci_get_long(pdev->config + s->rebar_cap + PCI_REBAR_CTRL);
    ctrl = deposit32(ctrl, PCI_REBAR_CTRL_BAR_SHIFT, 5, ctz64(size) - 20);
    pci_set_long(pdev->config + s->rebar_cap + PCI_REBAR_CTRL, ctrl);
    if (size == s->vram_bar_size) {
        return;
    }
    trace_vdxg_rebar(s->vram_bar_size, size);
    memory_region_transaction_begin();
    if (r->addr != PCI_BAR_UNMAPPED) {
        memory_region_del_subregion(r->address_space, r->memory);
        r->addr = PCI_BAR_UNMAPPED;
    }
    s->vram_bar_size = size;
    r->size = size;
    memory_region_set_size(&s->vram_bar, size);
    pci_set_quad(pdev->wmask + bar, ~(size - 1));
    addr = pci_get_quad(pdev->config + bar) & ~(size - 1);
    pci_set_quad(pdev->config + bar, addr | r->type);
    /* Rewriting COMMAND makes QEMU map the BARs again. */
    pci_default_write_config(pdev, PCI_COMMAND,
                             pci_get_word(pdev->config + PCI_COMMAND), 2);
    memory_region_transaction_commit();
}

/* A write to the REBAR control register: a new size if it is offered. */
static void vdxg_rebar_write(VdxgState *s)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    uint32_t ctrl = pci_get_long(pdev->config + s->rebar_cap +
                                 PCI_REBAR_CTRL);
    uint32_t enc = extract32(ctrl, PCI_REBAR_CTRL_BAR_SHIFT, 5);

    if (!(vdxg_rebar_sizes(s) & BIT(enc))) {
        qemu_log_mask(LOG_GUEST_ERROR, "vdxg: REBAR size %u (2^%u MiB) is "
                      "not offered; the BAR keeps its size\n", enc, enc);
        vdxg_rebar_set(s, s->vram_bar_size);
        return;
    }
    vdxg_rebar_set(s, 1ull << (enc + 20));
}

/* Reset */

/* Put the register state to its power-on values, except RESET_COUNT. */
static void vdxg_reset_registers(VdxgState *s)
{
    unsigned int i;

    s->scratch = 0;
    s->int_status = 0;
    s->int_mask = 0;
    for (i = 0; i < VDXG_NUM_ENGINES; i++) {
        vdxg_engine_reset(s, &s->engine[i]);
    }
    s->gart_table = 0;
    s->gart_ctrl = 0;
    s->dummy_page = 0;
    vdxg_tlb_flush(s, "reset");
    vdxg_fault_clear(s);
    vdxg_display_reset(s);
}

/*
 * Soft reset through VDXG_REG_RESET. Configuration space and the MSI-X
 * table are left alone; messages still pending for masked vectors are
 * dropped since every interrupt source has been cleared.
 */
static void vdxg_soft_reset(VdxgState *s)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    unsigned int vector;

    vdxg_reset_registers(s);
    s->reset_count++;
    trace_vdxg_soft_reset(s->reset_count);
    if (!s->pf) {
        vdxg_backing_reset(s);
    }

    if (msix_present(pdev)) {
        for (vector = 0; vector < VDXG_MSIX_VECTORS; vector++) {
            msix_clr_pending(pdev, vector);
        }
    }
    vdxg_update_intx(s);
}

static void vdxg_reset_hold(Object *obj, ResetType type)
{
    VdxgState *s = VDXG(obj);

    trace_vdxg_device_reset();
    vdxg_reset_registers(s);
    s->reset_count = 0;
    if (!s->pf) {
        vdxg_backing_reset(s);
        vdxg_rebar_set(s, MIN(VDXG_VRAM_BAR_SIZE_DEFAULT, s->vram_size));
    }
    vdxg_update_intx(s);
}

/* Register access */

static void vdxg_guest_error(const char *what, hwaddr addr, uint32_t val)
{
    const char *name = vdxg_reg_name(addr);

    qemu_log_mask(LOG_GUEST_ERROR, "vdxg: %s at 0x%04" HWADDR_PRIx
                  "%s%s%s, value 0x%08" PRIx32 "\n", what, addr,
                  name ? " (" : "", name ?: "", name ? ")" : "", val);
    trace_vdxg_guest_error(what, addr, val);
}

/* An access that no implemented register decodes. */
static void vdxg_unassigned(bool is_write, hwaddr addr, uint32_t val)
{
    if (is_write) {
        vdxg_guest_error("write to undefined register", addr, val);
    } else {
        vdxg_guest_error("read of undefined register", addr, val);
    }
}

/* The engine whose register block holds @addr, or NULL */
static VdxgEngine *vdxg_engine_at(VdxgState *s, hwaddr addr)
{
    if (addr < VDXG_ENGINE_BASE(0) ||
        addr >= VDXG_ENGINE_BASE(VDXG_NUM_ENGINES)) {
        return NULL;
    }
    return &s->engine[(addr - VDXG_ENGINE_BASE(0)) / 0x100];
}

/* The engines' registers; false for an offset that is none. */
static bool vdxg_engine_read(VdxgState *s, hwaddr addr, uint32_t *val)
{
    VdxgEngine *e = vdxg_engine_at(s, addr);

    if (!e) {
        return false;
    }
    switch (addr - VDXG_ENGINE_BASE(e->index)) {
    case VDXG_ENG_RING_BASE_LO:
        *val = extract64(e->ring_base, 0, 32);
        break;
    case VDXG_ENG_RING_BASE_HI:
        *val = extract64(e->ring_base, 32, 32);
        break;
    case VDXG_ENG_RING_SIZE:
        *val = e->ring_size;
        break;
    case VDXG_ENG_RING_HEAD:
        *val = e->head;
        break;
    case VDXG_ENG_RING_TAIL:
        *val = e->tail;
        break;
    case VDXG_ENG_CTRL:
        *val = e->ctrl;
        break;
    case VDXG_ENG_STATUS:
        *val = vdxg_engine_status(e);
        break;
    case VDXG_ENG_FENCE_ADDR_LO:
        *val = extract64(e->fence_addr, 0, 32);
        break;
    case VDXG_ENG_FENCE_ADDR_HI:
        *val = extract64(e->fence_addr, 32, 32);
        break;
    case VDXG_ENG_FENCE_VALUE_LO:
        *val = extract64(e->fence_value, 0, 32);
        break;
    case VDXG_ENG_FENCE_VALUE_HI:
        *val = extract64(e->fence_value, 32, 32);
        break;
    case VDXG_ENG_PROGRESS:
        *val = e->progress;
        break;
    case VDXG_ENG_DOORBELL:
    case VDXG_ENG_RESET:
        /* Write-only registers read as zero. */
        *val = 0;
        break;
    default:
        return false;
    }
    return true;
}

static bool vdxg_engine_write(VdxgState *s, hwaddr addr, uint32_t val)
{
    VdxgEngine *e = vdxg_engine_at(s, addr);

    if (!e) {
        return false;
    }
    switch (addr - VDXG_ENGINE_BASE(e->index)) {
    case VDXG_ENG_RING_BASE_LO:
        e->ring_base = deposit64(e->ring_base, 0, 32, val);
        break;
    case VDXG_ENG_RING_BASE_HI:
        e->ring_base = deposit64(e->ring_base, 32, 32, val);
        break;
    case VDXG_ENG_RING_SIZE:
        e->ring_size = val;
        break;
    case VDXG_ENG_RING_TAIL:
        e->tail = val;
        break;
    case VDXG_ENG_DOORBELL:
        vdxg_engine_kick(s, e);
        break;
    case VDXG_ENG_CTRL:
        if (val & ~VDXG_ENG_CTRL_ENABLE) {
            vdxg_guest_error("undefined CTRL bits dropped", addr, val);
        }
        e->ctrl = val & VDXG_ENG_CTRL_ENABLE;
        if (e->ctrl & VDXG_ENG_CTRL_ENABLE) {
            vdxg_engine_kick(s, e);
        }
        break;
    case VDXG_ENG_FENCE_ADDR_LO:
        e->fence_addr = deposit64(e->fence_addr, 0, 32, val);
        break;
    case VDXG_ENG_FENCE_ADDR_HI:
        e->fence_addr = deposit64(e->fence_addr, 32, 32, val);
        break;
    case VDXG_ENG_RESET:
        if (val & 1) {
            vdxg_engine_reset(s, e);
        } else {
            vdxg_guest_error("engine RESET without bit 0 ignored", addr, val);
        }
        break;
    case VDXG_ENG_RING_HEAD:
    case VDXG_ENG_STATUS:
    case VDXG_ENG_FENCE_VALUE_LO:
    case VDXG_ENG_FENCE_VALUE_HI:
    case VDXG_ENG_PROGRESS:
        vdxg_guest_error("write to read-only register", addr, val);
        break;
    default:
        return false;
    }
    return true;
}

static uint64_t vdxg_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    VdxgState *s = opaque;
    uint32_t val = 0;

    switch (addr) {
    case VDXG_REG_ID:
        val = VDXG_ID_MAGIC;
        break;
    case VDXG_REG_VERSION:
        val = VDXG_VERSION;
        break;
    case VDXG_REG_CAPS:
        val = s->caps;
        break;
    case VDXG_REG_VRAM_SIZE_LO:
        val = extract64(s->vram_size, 0, 32);
        break;
    case VDXG_REG_VRAM_SIZE_HI:
        val = extract64(s->vram_size, 32, 32);
        break;
    case VDXG_REG_APERTURE_BASE_LO:
        val = extract64(VDXG_APERTURE_BASE, 0, 32);
        break;
    case VDXG_REG_APERTURE_BASE_HI:
        val = extract64(VDXG_APERTURE_BASE, 32, 32);
        break;
    case VDXG_REG_APERTURE_SIZE_LO:
        val = extract64(s->aperture_size, 0, 32);
        break;
    case VDXG_REG_APERTURE_SIZE_HI:
        val = extract64(s->aperture_size, 32, 32);
        break;
    case VDXG_REG_ENGINES:
        val = BIT(VDXG_ENGINE_RENDER) | BIT(VDXG_ENGINE_PAGING);
        break;
    case VDXG_REG_NUM_CRTCS:
        val = s->outputs;
        break;
    case VDXG_REG_STATUS:
        val = VDXG_STATUS_READY;
        break;
    case VDXG_REG_SCRATCH:
        val = s->scratch;
        break;
    case VDXG_REG_RESET_COUNT:
        val = s->reset_count;
        break;
    case VDXG_REG_FUNCTION:
        val = s->pf ? 1 + s->vf_index : 0;
        break;
    case VDXG_REG_INT_STATUS:
        val = s->int_status;
        break;
    case VDXG_REG_INT_MASK:
        val = s->int_mask;
        break;
    case VDXG_REG_GART_TABLE_LO:
        val = extract64(s->gart_table, 0, 32);
        break;
    case VDXG_REG_GART_TABLE_HI:
        val = extract64(s->gart_table, 32, 32);
        break;
    case VDXG_REG_GART_ENTRIES:
        val = s->gart_entries;
        break;
    case VDXG_REG_GART_CTRL:
        val = s->gart_ctrl;
        break;
    case VDXG_REG_DUMMY_PAGE_LO:
        val = extract64(s->dummy_page, 0, 32);
        break;
    case VDXG_REG_DUMMY_PAGE_HI:
        val = extract64(s->dummy_page, 32, 32);
        break;
    case VDXG_REG_FAULT_STATUS:
        val = s->fault_status;
        break;
    case VDXG_REG_FAULT_ENGINE:
        val = s->fault_engine;
        break;
    case VDXG_REG_FAULT_REASON:
        val = s->fault_reason;
        break;
    case VDXG_REG_FAULT_OPCODE:
        val = s->fault_opcode;
        break;
    case VDXG_REG_FAULT_ADDR_LO:
        val = extract64(s->fault_addr, 0, 32);
        break;
    case VDXG_REG_FAULT_ADDR_HI:
        val = extract64(s->fault_addr, 32, 32);
        break;
    case VDXG_REG_FAULT_CONTEXT:
        val = s->fault_context;
        break;
    case VDXG_REG_FAULT_COUNT:
        val = s->fault_count;
        break;
    case VDXG_REG_RESET:
    case VDXG_REG_INT_ACK:
    case VDXG_REG_INT_TRIGGER:
    case VDXG_REG_TLB_FLUSH:
    case VDXG_REG_FAULT_CLEAR:
        /* Write-only registers read as zero. */
        break;
    default:
        if (!vdxg_engine_read(s, addr, &val) &&
            !vdxg_display_read(s, addr, &val) &&
            !vdxg_sriov_read(s, addr, &val)) {
            vdxg_unassigned(false, addr, 0);
        }
        break;
    }

    trace_vdxg_mmio_read(addr, val);
    return val;
}

static void vdxg_mmio_write(void *opaque, hwaddr addr, uint64_t data,
                            unsigned size)
{
    VdxgState *s = opaque;
    uint32_t val = data;
    uint32_t old_pending = s->int_status & s->int_mask;

    trace_vdxg_mmio_write(addr, val);

    switch (addr) {
    case VDXG_REG_ID:
    case VDXG_REG_VERSION:
    case VDXG_REG_CAPS:
    case VDXG_REG_VRAM_SIZE_LO:
    case VDXG_REG_VRAM_SIZE_HI:
    case VDXG_REG_APERTURE_BASE_LO:
    case VDXG_REG_APERTURE_BASE_HI:
    case VDXG_REG_APERTURE_SIZE_LO:
    case VDXG_REG_APERTURE_SIZE_HI:
    case VDXG_REG_ENGINES:
    case VDXG_REG_NUM_CRTCS:
    case VDXG_REG_STATUS:
    case VDXG_REG_RESET_COUNT:
    case VDXG_REG_FUNCTION:
    case VDXG_REG_INT_STATUS:
    case VDXG_REG_GART_ENTRIES:
    case VDXG_REG_FAULT_STATUS:
    case VDXG_REG_FAULT_ENGINE:
    case VDXG_REG_FAULT_REASON:
    case VDXG_REG_FAULT_OPCODE:
    case VDXG_REG_FAULT_ADDR_LO:
    case VDXG_REG_FAULT_ADDR_HI:
    case VDXG_REG_FAULT_CONTEXT:
    case VDXG_REG_FAULT_COUNT:
        vdxg_guest_error("write to read-only register", addr, val);
        break;
    case VDXG_REG_RESET:
        if (val == VDXG_RESET_MAGIC) {
            vdxg_soft_reset(s);
        } else {
            vdxg_guest_error("RESET without the reset magic ignored",
                             addr, val);
        }
        break;
    case VDXG_REG_SCRATCH:
        s->scratch = val;
        break;
    case VDXG_REG_INT_MASK:
        if (val & ~VDXG_INT_VALID_MASK) {
            vdxg_guest_error("undefined interrupt bits dropped", addr, val);
        }
        s->int_mask = val & VDXG_INT_VALID_MASK;
        vdxg_irq_update(s, old_pending);
        break;
    case VDXG_REG_INT_ACK:
        s->int_status &= ~val;
        vdxg_irq_update(s, old_pending);
        break;
    case VDXG_REG_INT_TRIGGER:
        if (val & ~VDXG_INT_SELFTEST) {
            vdxg_guest_error("only the self-test interrupt can be triggered",
                             addr, val);
        }
        if (val & VDXG_INT_SELFTEST) {
            vdxg_irq_raise(s, VDXG_INT_SELFTEST);
        }
        break;
    case VDXG_REG_GART_TABLE_LO:
    case VDXG_REG_GART_TABLE_HI: {
        uint64_t table = deposit64(s->gart_table,
                                   addr == VDXG_REG_GART_TABLE_HI ? 32 : 0,
                                   32, val);

        if (!vdxg_gart_table_ok(s, table)) {
            vdxg_guest_error("GART table not page aligned inside VRAM ignored",
                             addr, val);
            break;
        }
        s->gart_table = table;
        vdxg_tlb_flush(s, "GART_TABLE");
        break;
    }
    case VDXG_REG_GART_CTRL:
        if (val & ~VDXG_GART_CTRL_ENABLE) {
            vdxg_guest_error("undefined GART_CTRL bits dropped", addr, val);
        }
        s->gart_ctrl = val & VDXG_GART_CTRL_ENABLE;
        vdxg_tlb_flush(s, "GART_CTRL");
        break;
    case VDXG_REG_DUMMY_PAGE_LO:
        if (val & VDXG_PAGE_MASK) {
            vdxg_guest_error("unaligned dummy page ignored", addr, val);
            break;
        }
        s->dummy_page = deposit64(s->dummy_page, 0, 32, val);
        break;
    case VDXG_REG_DUMMY_PAGE_HI:
        s->dummy_page = deposit64(s->dummy_page, 32, 32, val);
        break;
    case VDXG_REG_TLB_FLUSH:
        vdxg_tlb_flush(s, "TLB_FLUSH");
        break;
    case VDXG_REG_FAULT_CLEAR:
        vdxg_fault_clear(s);
        break;
    default:
        if (!vdxg_engine_write(s, addr, val) &&
            !vdxg_display_write(s, addr, val) &&
            !vdxg_sriov_write(s, addr, val)) {
            vdxg_unassigned(true, addr, val);
        }
        break;
    }
}

static const MemoryRegionOps vdxg_mmio_ops = {
    .read = vdxg_mmio_read,
    .write = vdxg_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

/* PCI */

static void vdxg_write_config(PCIDevice *pdev, uint32_t addr, uint32_t val,
                              int len)
{
    VdxgState *s = VDXG(pdev);

    /* This also handles the SR-IOV capability (pcie_sriov_config_write). */
    pci_default_write_config(pdev, addr, val, len);
    if (s->rebar_cap &&
        ranges_overlap(addr, len, s->rebar_cap + PCI_REBAR_CTRL, 4)) {
        vdxg_rebar_write(s);
    }
    /* Enabling or disabling MSI or MSI-X moves the interrupt off or to INTx */
    vdxg_update_intx(s);
}

static bool vdxg_check_size(const char *name, uint64_t size, uint64_t min,
                            uint64_t max, Error **errp)
{
    g_autofree char *min_str = NULL;
    g_autofree char *max_str = NULL;
    g_autofree char *size_str = NULL;

    if (is_power_of_2(size) && size >= min && size <= max) {
        return true;
    }
    min_str = size_to_str(min);
    max_str = size_to_str(max);
    size_str = size_to_str(size);
    error_setg(errp, "%s must be a power of two from %s to %s, not %s "
               "(%" PRIu64 " bytes)", name, min_str, max_str, size_str, size);
    return false;
}

/* The engines' bottom halves and timers, on the PF and on each VF */
static void vdxg_engines_init(VdxgState *s)
{
    unsigned int i;

    for (i = 0; i < VDXG_NUM_ENGINES; i++) {
        VdxgEngine *e = &s->engine[i];

        e->index = i;
        e->s = s;
        e->bh = qemu_bh_new_guarded(vdxg_engine_bh, e,
                                    &DEVICE(s)->mem_reentrancy_guard);
        e->wait_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL,
                                     vdxg_engine_wait_timer, e);
    }
    s->vmse = qemu_add_vm_change_state_handler(vdxg_vm_state_change, s);
}

static void vdxg_engines_exit(VdxgState *s)
{
    unsigned int i;

    qemu_del_vm_change_state_handler(s->vmse);
    for (i = 0; i < VDXG_NUM_ENGINES; i++) {
        VdxgEngine *e = &s->engine[i];

        vdxg_engine_drop_entry(e);
        timer_free(e->wait_timer);
        e->wait_timer = NULL;
        qemu_bh_delete(e->bh);
        e->bh = NULL;
    }
}

/*
 * The PF's extended capabilities: ARI and SR-IOV behind a PCI Express port
 * (creating the VFs), then Resizable BAR for the VRAM BAR.
 */
static bool vdxg_pf_ext_caps(VdxgState *s, Error **errp)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    PCIBus *bus = pci_get_bus(pdev);
    uint16_t next = PCI_CONFIG_SPACE_SIZE;
    uint32_t ctrl;

    if (s->total_vfs && pci_bus_is_express(bus) && !pci_bus_is_root(bus)) {
        pcie_ari_init(pdev, next);
        next += PCI_ARI_SIZEOF;
        if (!pcie_sriov_pf_init(pdev, next, TYPE_VDXG_VF,
                                VDXG_PCI_VF_DEVICE_ID, s->total_vfs,
                                s->total_vfs, 1, 1, errp)) {
            return false;
        }
        pcie_sriov_pf_init_vf_bar(pdev, VDXG_BAR_MMIO,
                                  PCI_BASE_ADDRESS_SPACE_MEMORY,
                                  VDXG_MMIO_SIZE);
        pcie_sriov_pf_init_vf_bar(pdev, VDXG_BAR_VRAM,
                                  PCI_BASE_ADDRESS_SPACE_MEMORY |
                                  PCI_BASE_ADDRESS_MEM_PREFETCH,
                                  s->vf_vram_size);
        pcie_sriov_pf_init_vf_bar(pdev, VDXG_BAR_MSIX,
                                  PCI_BASE_ADDRESS_SPACE_MEMORY,
                                  VDXG_VF_MSIX_BAR_SIZE);
        /*
         * QEMU 10.0's pcie_sriov_pf_reset() writes each VF BAR register as
         * a quad, so the last one runs 4 bytes past the capability: keep
         * the next capability's header clear of it.
         */
        next += PCI_EXT_CAP_SRIOV_SIZEOF + 4;
        s->has_sriov = true;
        s->caps |= VDXG_CAP_SRIOV;
    }

    if (!s->use_rebar) {
        return true;
    }
    /* One resizable BAR: header, capability and control registers */
    pcie_add_capability(pdev, PCI_EXT_CAP_ID_REBAR, 1, next, 12);
    s->rebar_cap = next;
    pci_set_long(pdev->config + next + PCI_REBAR_CAP,
                 vdxg_rebar_sizes(s) << 4);
    ctrl = VDXG_BAR_VRAM | (1 << PCI_REBAR_CTRL_NBAR_SHIFT) |
           (ctz64(s->vram_bar_size) - 20) << PCI_REBAR_CTRL_BAR_SHIFT;
    pci_set_long(pdev->config + next + PCI_REBAR_CTRL, ctrl);
    pci_set_long(pdev->wmask + next + PCI_REBAR_CTRL,
                 PCI_REBAR_CTRL_BAR_SIZE);
    s->caps |= VDXG_CAP_RESIZABLE_BAR;
    return true;
}

static void vdxg_realize(PCIDevice *pdev, Error **errp)
{
    VdxgState *s = VDXG(pdev);
    Error *err = NULL;
    bool express;
    int ret;

    if (!vdxg_check_size("vram_size", s->vram_size, VDXG_VRAM_SIZE_MIN,
                         VDXG_VRAM_SIZE_MAX, errp) ||
        !vdxg_check_size("aperture_size", s->aperture_size,
                         VDXG_APERTURE_SIZE_MIN, VDXG_APERTURE_SIZE_MAX,
                         errp)) {
        return;
    }
    if (s->outputs < 1 || s->outputs > VDXG_MAX_CRTCS) {
        error_setg(errp, "outputs must be from 1 to %d, not %" PRIu32,
                   VDXG_MAX_CRTCS, s->outputs);
        return;
    }
    if (s->total_vfs > VDXG_SRIOV_MAX_VFS) {
        error_setg(errp, "total_vfs must be from 0 to %d, not %" PRIu32,
                   VDXG_SRIOV_MAX_VFS, s->total_vfs);
        return;
    }
    if (s->total_vfs &&
        (!vdxg_check_size("vf_vram_size", s->vf_vram_size,
                          VDXG_GPU_PAGE_SIZE, VDXG_VRAM_SIZE_MAX, errp) ||
         !vdxg_check_size("vf_aperture_size", s->vf_aperture_size,
                          VDXG_APERTURE_SIZE_MIN, VDXG_APERTURE_SIZE_MAX,
                          errp))) {
        return;
    }

    s->caps = VDXG_CAP_SELFTEST | VDXG_CAP_RENDER | VDXG_CAP_PAGING |
              VDXG_CAP_GART | VDXG_CAP_DISPLAY | VDXG_CAP_CRC |
              VDXG_CAP_WRITEBACK;
    s->gart_entries = s->aperture_size >> VDXG_GPU_PAGE_SHIFT;
    pci_config_set_interrupt_pin(pdev->config, 1);

    express = pci_bus_is_express(pci_get_bus(pdev));
    if (express) {
        ret = pcie_endpoint_cap_init(pdev, VDXG_PCIE_CAP_OFFSET);
        if (ret < 0) {
            error_setg_errno(errp, -ret,
                             "cannot add the PCI Express capability");
            return;
        }
    } else {
        pdev->cap_present &= ~QEMU_PCI_CAP_EXPRESS;
    }

    if (s->use_msi) {
        ret = msi_init(pdev, 0, 1, true, false, &err);
        if (ret == -ENOTSUP) {
            /* The machine has no working MSI: INTx will do. */
            trace_vdxg_msi_unavailable("MSI", error_get_pretty(err));
            error_free(err);
            err = NULL;
        } else if (ret) {
            error_propagate(errp, err);
            return;
        }
    }

    if (s->use_msix) {
        ret = msix_init_exclusive_bar(pdev, VDXG_MSIX_VECTORS, VDXG_BAR_MSIX,
                                      &err);
        if (ret == -ENOTSUP) {
            trace_vdxg_msi_unavailable("MSI-X", error_get_pretty(err));
            error_free(err);
            err = NULL;
        } else if (ret) {
            error_propagate(errp, err);
            msi_uninit(pdev);
            return;
        } else {
            unsigned int vector;

            for (vector = 0; vector < VDXG_MSIX_VECTORS; vector++) {
                msix_vector_use(pdev, vector);
            }
            s->caps |= VDXG_CAP_MSIX;
        }
    }

    memory_region_init_io(&s->mmio, OBJECT(s), &vdxg_mmio_ops, s,
                          "vdxg.mmio", VDXG_MMIO_SIZE);
    pci_register_bar(pdev, VDXG_BAR_MMIO, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->mmio);

    if (!memory_region_init_ram(&s->vram, OBJECT(s), "vdxg.vram",
                                s->vram_size, errp)) {
        msix_uninit_exclusive_bar(pdev);
        msi_uninit(pdev);
        return;
    }
    s->vram_ptr = memory_region_get_ram_ptr(&s->vram);
    s->vram_mr = &s->vram;
    s->vram_bar_size = s->vram_size;
    if (express) {
        /* A resizable window onto the start of VRAM */
        s->vram_bar_size = MIN(VDXG_VRAM_BAR_SIZE_DEFAULT, s->vram_size);
        memory_region_init_alias(&s->vram_bar, OBJECT(s), "vdxg.vram-bar",
                                 &s->vram, 0, s->vram_bar_size);
    }
    pci_register_bar(pdev, VDXG_BAR_VRAM,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH,
                     express ? &s->vram_bar : &s->vram);

    vdxg_engines_init(s);
    vdxg_display_realize(s);

    /* Last: the VFs are realized here and use what is set up above. */
    if (express && !vdxg_pf_ext_caps(s, errp)) {
        vdxg_display_exit(s);
        vdxg_engines_exit(s);
        msix_uninit_exclusive_bar(pdev);
        msi_uninit(pdev);
        return;
    }

    trace_vdxg_realize(s->vram_size, s->aperture_size, s->caps);
}

static void vdxg_exit(PCIDevice *pdev)
{
    VdxgState *s = VDXG(pdev);

    if (s->has_sriov) {
        pcie_sriov_pf_exit(pdev);
    }
    vdxg_display_exit(s);
    vdxg_engines_exit(s);
    msix_uninit_exclusive_bar(pdev);
    msi_uninit(pdev);
}

/*
 * A virtual function, created by the PF's realize: registers, engines,
 * GART and MSI-X of its own, VRAM through the PF's backing table.
 */
static void vdxg_vf_realize(PCIDevice *pdev, Error **errp)
{
    VdxgState *s = VDXG(pdev);
    VdxgState *pf;
    unsigned int i;
    int ret;

    if (!pci_is_vf(pdev) || !pcie_sriov_get_pf(pdev) ||
        !object_dynamic_cast(OBJECT(pcie_sriov_get_pf(pdev)), TYPE_VDXG)) {
        error_setg(errp, "%s is a virtual function created by a vdxg device "
                   "with SR-IOV", TYPE_VDXG_VF);
        return;
    }
    pf = VDXG(pcie_sriov_get_pf(pdev));
    s->pf = pf;
    s->vf_index = pcie_sriov_vf_number(pdev);
    s->vram_size = pf->vf_vram_size;
    s->aperture_size = pf->vf_aperture_size;
    s->outputs = 0;
    s->use_msi = false;
    s->use_msix = true;
    s->caps = VDXG_CAP_MSIX | VDXG_CAP_SELFTEST | VDXG_CAP_RENDER |
              VDXG_CAP_PAGING | VDXG_CAP_GART;
    s->gart_entries = s->aperture_size >> VDXG_GPU_PAGE_SHIFT;
    s->vram_ptr = pf->vram_ptr;
    s->vram_mr = &pf->vram;

    ret = pcie_endpoint_cap_init(pdev, VDXG_PCIE_CAP_OFFSET);
    if (ret < 0) {
        error_setg_errno(errp, -ret, "cannot add the PCI Express capability");
        return;
    }

    memory_region_init_io(&s->mmio, OBJECT(s), &vdxg_mmio_ops, s,
                          "vdxg-vf.mmio", VDXG_MMIO_SIZE);
    pcie_sriov_vf_register_bar(pdev, VDXG_BAR_MMIO, &s->mmio);

    memory_region_init(&s->vf_vram, OBJECT(s), "vdxg-vf.vram",
                       s->vram_size);
    memory_region_init_io(&s->vf_unbacked, OBJECT(s), &vdxg_unbacked_ops, s,
                          "vdxg-vf.unbacked", s->vram_size);
    memory_region_add_subregion_overlap(&s->vf_vram, 0, &s->vf_unbacked, 0);
    for (i = 0; i < VDXG_MAX_BACKING_RANGES; i++) {
        memory_region_init_alias(&s->vf_alias[i], OBJECT(s),
                                 "vdxg-vf.vram-range", &pf->vram, 0,
                                 VDXG_GPU_PAGE_SIZE);
        memory_region_set_enabled(&s->vf_alias[i], false);
        memory_region_add_subregion_overlap(&s->vf_vram, 0, &s->vf_alias[i],
                                            1);
    }
    vdxg_vf_map_backing(s);
    pcie_sriov_vf_register_bar(pdev, VDXG_BAR_VRAM, &s->vf_vram);

    memory_region_init(&s->vf_msix, OBJECT(s), "vdxg-vf.msix",
                       VDXG_VF_MSIX_BAR_SIZE);
    pcie_sriov_vf_register_bar(pdev, VDXG_BAR_MSIX, &s->vf_msix);
    ret = msix_init(pdev, VDXG_MSIX_VECTORS, &s->vf_msix, VDXG_BAR_MSIX, 0,
                    &s->vf_msix, VDXG_BAR_MSIX, VDXG_VF_MSIX_PBA, 0, errp);
    if (ret) {
        return;
    }
    for (i = 0; i < VDXG_MSIX_VECTORS; i++) {
        msix_vector_use(pdev, i);
    }

    vdxg_engines_init(s);
    trace_vdxg_vf_realize(s->vf_index, s->vram_size, s->aperture_size);
}

static void vdxg_vf_exit(PCIDevice *pdev)
{
    VdxgState *s = VDXG(pdev);

    vdxg_engines_exit(s);
    msix_unuse_all_vectors(pdev);
    msix_uninit(pdev, &s->vf_msix, &s->vf_msix);
}

static void vdxg_instance_init(Object *obj)
{
    PCIDevice *pdev = PCI_DEVICE(obj);

    VdxgState *s = VDXG(obj);
    unsigned int op;

    /* Hybrid device: realize drops this when not on a PCI Express bus. */
    pdev->cap_present |= QEMU_PCI_CAP_EXPRESS;

    /* Paging statistics, e.g. qom-get of pg-discard-ops */
    for (op = 0; op < VDXG_PG_NUM_OPS; op++) {
        g_autofree char *ops = g_strdup_printf("pg-%s-ops",
                                               vdxg_pg_op_names[op]);
        g_autofree char *bytes = g_strdup_printf("pg-%s-bytes",
                                                 vdxg_pg_op_names[op]);

        object_property_add_uint64_ptr(obj, ops, &s->pg_ops[op],
                                       OBJ_PROP_FLAG_READ);
        object_property_add_uint64_ptr(obj, bytes, &s->pg_bytes[op],
                                       OBJ_PROP_FLAG_READ);
    }
    object_property_add_uint64_ptr(obj, "pg-tlb-hits", &s->tlb_hits,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "pg-tlb-misses", &s->tlb_misses,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "pg-bh-runs",
                                   &s->bh_runs[VDXG_ENGINE_PAGING],
                                   OBJ_PROP_FLAG_READ);

    /* Render statistics, e.g. qom-get of rd-draw-triangles-ops */
    for (op = 0; op < VDXG_RD_NUM_OPS; op++) {
        g_autofree char *ops = g_strdup_printf("rd-%s-ops",
                                               vdxg_rd_op_names[op]);

        object_property_add_uint64_ptr(obj, ops, &s->rd_ops[op],
                                       OBJ_PROP_FLAG_READ);
    }
    object_property_add_uint64_ptr(obj, "rd-pixels", &s->rd_pixels,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "rd-bh-runs",
                                   &s->bh_runs[VDXG_ENGINE_RENDER],
                                   OBJ_PROP_FLAG_READ);

    /* Display: hotplug of each output, statistics */
    for (op = 0; op < VDXG_MAX_CRTCS; op++) {
        g_autofree char *name = g_strdup_printf("connected%u", op);

        s->connected[op] = true;
        object_property_add(obj, name, "bool", vdxg_get_connected,
                            vdxg_set_connected, NULL, &s->connected[op]);
        object_property_set_description(obj, name,
            "A monitor is connected to this output (hotplug when changed)");
    }
    object_property_add_uint64_ptr(obj, "disp-composes", &s->disp_composes,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "disp-crcs", &s->disp_crcs,
                                   OBJ_PROP_FLAG_READ);
}

static int vdxg_pre_load(void *opaque)
{
    VdxgState *s = opaque;
    unsigned int i;

    /* The incoming state brings its own snapshots. */
    for (i = 0; i < VDXG_NUM_ENGINES; i++) {
        vdxg_rd_snap_free(&s->engine[i]);
    }
    return 0;
}

static int vdxg_post_load(void *opaque, int version_id)
{
    VdxgState *s = opaque;
    unsigned int i, slot;

    if ((s->int_status | s->int_mask) & ~VDXG_INT_VALID_MASK) {
        return -EINVAL;
    }
    /* The model relies on these; the rest is checked when it is used. */
    if (!vdxg_gart_table_ok(s, s->gart_table) ||
        (s->dummy_page & VDXG_PAGE_MASK) ||
        (s->gart_ctrl & ~VDXG_GART_CTRL_ENABLE) ||
        (s->fault_status & ~VDXG_FAULT_STATUS_VALID)) {
        return -EINVAL;
    }
    for (i = 0; i < VDXG_NUM_ENGINES; i++) {
        VdxgEngine *e = &s->engine[i];

        if ((e->ctrl & ~VDXG_ENG_CTRL_ENABLE) ||
            e->buf_len > VDXG_RING_LENGTH_MAX || e->buf_len % 4 ||
            e->buf_off > e->buf_len || e->buf_off % 4) {
            return -EINVAL;
        }
        /* Pixels are accessed without further checks: bound surfaces */
        for (slot = 0; slot < VDXG_NUM_SLOTS; slot++) {
            if (e->rd.surf[slot].format &&
                vdxg_surface_check(s, slot, &e->rd.surf[slot]) !=
                VDXG_FAULT_NONE) {
                return -EINVAL;
            }
        }
        /* The snapshot is checked against its command when it is used. */
        if (!e->rd.snap != !e->rd.snap_len) {
            return -EINVAL;
        }
    }
    if (!vdxg_display_post_load(s)) {
        return -EINVAL;
    }
    /* The BAR size the migrated REBAR control register holds */
    if (s->rebar_cap) {
        vdxg_rebar_write(s);
    }
    return 0;
}

static const VMStateDescription vmstate_vdxg_engine = {
    .name = "vdxg/engine",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(ring_base, VdxgEngine),
        VMSTATE_UINT32(ring_size, VdxgEngine),
        VMSTATE_UINT32(head, VdxgEngine),
        VMSTATE_UINT32(tail, VdxgEngine),
        VMSTATE_UINT32(ctrl, VdxgEngine),
        VMSTATE_BOOL(halted, VdxgEngine),
        VMSTATE_UINT64(fence_addr, VdxgEngine),
        VMSTATE_UINT64(fence_value, VdxgEngine),
        VMSTATE_BOOL(busy, VdxgEngine),
        VMSTATE_UINT32(progress, VdxgEngine),
        VMSTATE_BOOL(waiting, VdxgEngine),
        VMSTATE_UINT32(cmd, VdxgEngine),
        VMSTATE_UINT32(context, VdxgEngine),
        VMSTATE_UINT64(seqno, VdxgEngine),
        VMSTATE_UINT64(buf_addr, VdxgEngine),
        VMSTATE_UINT32(buf_len, VdxgEngine),
        VMSTATE_UINT32(buf_off, VdxgEngine),
        VMSTATE_UINT64(op_progress, VdxgEngine),
        VMSTATE_END_OF_LIST()
    },
};

static const VMStateDescription vmstate_vdxg_surface = {
    .name = "vdxg/surface",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(addr, VdxgSurface),
        VMSTATE_UINT32(format, VdxgSurface),
        VMSTATE_UINT32(width, VdxgSurface),
        VMSTATE_UINT32(height, VdxgSurface),
        VMSTATE_UINT32(pitch, VdxgSurface),
        VMSTATE_END_OF_LIST()
    },
};

/* A snapshot is at most a whole surface: anything larger is not loaded. */
static bool vdxg_snap_len_ok(void *opaque, int version_id)
{
    VdxgRender *rd = opaque;

    return rd->snap_len <= (uint64_t)VDXG_SURF_MAX_DIM * VDXG_SURF_MAX_DIM *
                           4;
}

/* The RENDER engine's state of the entry in progress */
static const VMStateDescription vmstate_vdxg_render = {
    .name = "vdxg/render",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT_ARRAY(surf, VdxgRender, VDXG_NUM_SLOTS, 1,
                             vmstate_vdxg_surface, VdxgSurface),
        VMSTATE_UINT32(item, VdxgRender),
        VMSTATE_UINT32(snap_len, VdxgRender),
        VMSTATE_VBUFFER_ALLOC_UINT32(snap, VdxgRender, 1, vdxg_snap_len_ok,
                                     snap_len),
        VMSTATE_END_OF_LIST()
    },
};

static const VMStateDescription vmstate_vdxg_plane = {
    .name = "vdxg/plane",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(ctrl, VdxgPlane),
        VMSTATE_UINT64(addr, VdxgPlane),
        VMSTATE_UINT32(format, VdxgPlane),
        VMSTATE_UINT32(pitch, VdxgPlane),
        VMSTATE_UINT32(src_size, VdxgPlane),
        VMSTATE_UINT32(dst_pos, VdxgPlane),
        VMSTATE_UINT32(alpha, VdxgPlane),
        VMSTATE_UINT32(zpos, VdxgPlane),
        VMSTATE_END_OF_LIST()
    },
};

/* A CRTC; its frame is composed again on the destination */
static const VMStateDescription vmstate_vdxg_crtc = {
    .name = "vdxg/crtc",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(ctrl, VdxgCrtc),
        VMSTATE_UINT32_ARRAY(mode, VdxgCrtc, VDXG_NUM_MODE_REGS),
        VMSTATE_UINT32(bg, VdxgCrtc),
        VMSTATE_STRUCT_ARRAY(pend, VdxgCrtc, VDXG_NUM_PLANES, 1,
                             vmstate_vdxg_plane, VdxgPlane),
        VMSTATE_BOOL(conn_changed, VdxgCrtc),
        VMSTATE_UINT32_ARRAY(amode, VdxgCrtc, VDXG_NUM_MODE_REGS),
        VMSTATE_INT64(t0, VdxgCrtc),
        VMSTATE_UINT64(event_frame, VdxgCrtc),
        VMSTATE_BOOL(flip_pending, VdxgCrtc),
        VMSTATE_UINT64(flip_frame, VdxgCrtc),
        VMSTATE_BOOL(mode_invalid, VdxgCrtc),
        VMSTATE_UINT32(frame_off, VdxgCrtc),
        VMSTATE_INT64(vblank_ns_off, VdxgCrtc),
        VMSTATE_UINT32(crc, VdxgCrtc),
        VMSTATE_UINT32(crc_frame, VdxgCrtc),
        VMSTATE_UINT32(abg, VdxgCrtc),
        VMSTATE_STRUCT_ARRAY(cur, VdxgCrtc, VDXG_NUM_PLANES, 1,
                             vmstate_vdxg_plane, VdxgPlane),
        VMSTATE_UINT32_ARRAY(pstatus, VdxgCrtc, VDXG_NUM_PLANES),
        VMSTATE_END_OF_LIST()
    },
};

static const VMStateDescription vmstate_vdxg_wb = {
    .name = "vdxg/writeback",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(ctrl, VdxgWriteback),
        VMSTATE_UINT64(addr, VdxgWriteback),
        VMSTATE_UINT32(format, VdxgWriteback),
        VMSTATE_UINT32(pitch, VdxgWriteback),
        VMSTATE_UINT32(status, VdxgWriteback),
        VMSTATE_UINT32(seqno, VdxgWriteback),
        VMSTATE_UINT32(frame, VdxgWriteback),
        VMSTATE_UINT64(arm_frame, VdxgWriteback),
        VMSTATE_END_OF_LIST()
    },
};

static const VMStateDescription vmstate_vdxg = {
    .name = TYPE_VDXG,
    .version_id = 4,
    .minimum_version_id = 1,
    .pre_load = vdxg_pre_load,
    .post_load = vdxg_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_PCI_DEVICE(parent_obj, VdxgState),
        VMSTATE_MSIX(parent_obj, VdxgState),
        VMSTATE_UINT32(scratch, VdxgState),
        VMSTATE_UINT32(reset_count, VdxgState),
        VMSTATE_UINT32(int_status, VdxgState),
        VMSTATE_UINT32(int_mask, VdxgState),
        /* Version 2: PAGING engine, GART and faults */
        VMSTATE_STRUCT(engine[VDXG_ENGINE_PAGING], VdxgState, 2,
                       vmstate_vdxg_engine, VdxgEngine),
        VMSTATE_UINT64_V(gart_table, VdxgState, 2),
        VMSTATE_UINT32_V(gart_ctrl, VdxgState, 2),
        VMSTATE_UINT64_V(dummy_page, VdxgState, 2),
        VMSTATE_UINT64_V(tlb_valid, VdxgState, 2),
        VMSTATE_UINT32_ARRAY_V(tlb_page, VdxgState, VDXG_TLB_ENTRIES, 2),
        VMSTATE_UINT64_ARRAY_V(tlb_pte, VdxgState, VDXG_TLB_ENTRIES, 2),
        VMSTATE_UINT32_V(fault_status, VdxgState, 2),
        VMSTATE_UINT32_V(fault_engine, VdxgState, 2),
        VMSTATE_UINT32_V(fault_reason, VdxgState, 2),
        VMSTATE_UINT32_V(fault_opcode, VdxgState, 2),
        VMSTATE_UINT64_V(fault_addr, VdxgState, 2),
        VMSTATE_UINT32_V(fault_context, VdxgState, 2),
        VMSTATE_UINT32_V(fault_count, VdxgState, 2),
        /* Version 3: RENDER engine (a pending WAIT polls again on load) */
        VMSTATE_STRUCT(engine[VDXG_ENGINE_RENDER], VdxgState, 3,
                       vmstate_vdxg_engine, VdxgEngine),
        VMSTATE_STRUCT(engine[VDXG_ENGINE_RENDER].rd, VdxgState, 3,
                       vmstate_vdxg_render, VdxgRender),
        /* Version 4: display engine, writeback, connectors */
        VMSTATE_STRUCT_ARRAY(crtc, VdxgState, VDXG_MAX_CRTCS, 4,
                               vmstate_vdxg_crtc, VdxgCrtc),
        VMSTATE_STRUCT(wb, VdxgState, 4, vmstate_vdxg_wb, VdxgWriteback),
        VMSTATE_BOOL_ARRAY_V(connected, VdxgState, VDXG_MAX_CRTCS, 4),
        VMSTATE_END_OF_LIST()
    },
};

static const Property vdxg_properties[] = {
    DEFINE_PROP_SIZE("vram_size", VdxgState, vram_size,
                     VDXG_VRAM_SIZE_DEFAULT),
    DEFINE_PROP_SIZE("aperture_size", VdxgState, aperture_size,
                     VDXG_APERTURE_SIZE_DEFAULT),
    DEFINE_PROP_BOOL("msix", VdxgState, use_msix, true),
    DEFINE_PROP_BOOL("msi", VdxgState, use_msi, true),
    DEFINE_PROP_BOOL("rebar", VdxgState, use_rebar, true),
    DEFINE_PROP_UINT32("outputs", VdxgState, outputs, 1),
    DEFINE_PROP_UINT32("total_vfs", VdxgState, total_vfs,
                       VDXG_SRIOV_TOTAL_VFS_DEFAULT),
    DEFINE_PROP_SIZE("vf_vram_size", VdxgState, vf_vram_size,
                     VDXG_VF_VRAM_SIZE_DEFAULT),
    DEFINE_PROP_SIZE("vf_aperture_size", VdxgState, vf_aperture_size,
                     VDXG_VF_APERTURE_SIZE_DEFAULT),
};

static void vdxg_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    k->realize = vdxg_realize;
    k->exit = vdxg_exit;
    k->config_write = vdxg_write_config;
    k->vendor_id = VDXG_PCI_VENDOR_ID;
    k->device_id = VDXG_PCI_DEVICE_ID;
    k->revision = VDXG_PCI_REVISION;
    k->class_id = PCI_CLASS_DISPLAY_OTHER;

    rc->phases.hold = vdxg_reset_hold;

    dc->desc = "vdxg virtual GPU";
    dc->vmsd = &vmstate_vdxg;
    device_class_set_props(dc, vdxg_properties);
    object_class_property_set_description(klass, "vram_size",
        "VRAM (BAR 2) size, a power of two from 16 MiB to 4 GiB");
    object_class_property_set_description(klass, "aperture_size",
        "GART aperture size, a power of two from 1 MiB to 4 GiB");
    object_class_property_set_description(klass, "msix",
        "Offer MSI-X, one vector per interrupt group");
    object_class_property_set_description(klass, "msi",
        "Offer MSI with a single vector");
    object_class_property_set_description(klass, "outputs",
        "Display pipes (CRTCs), each with a connector: 1 to 4");
    object_class_property_set_description(klass, "total_vfs",
        "SR-IOV virtual functions offered behind a PCI Express port "
        "(0 to 16, 0: no SR-IOV)");
    object_class_property_set_description(klass, "vf_vram_size",
        "Each VF's VRAM BAR size, a power of two");
    object_class_property_set_description(klass, "vf_aperture_size",
        "Each VF's GART aperture size, a power of two from 1 MiB to 4 GiB");
    set_bit(DEVICE_CATEGORY_DISPLAY, dc->categories);
}

/* VFs are not migrated: a machine with an SR-IOV vdxg cannot migrate. */
static const VMStateDescription vmstate_vdxg_vf = {
    .name = TYPE_VDXG_VF,
    .unmigratable = 1,
};

static void vdxg_vf_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = vdxg_vf_realize;
    k->exit = vdxg_vf_exit;
    k->device_id = VDXG_PCI_VF_DEVICE_ID;
    dc->desc = "vdxg virtual GPU, SR-IOV virtual function";
    dc->vmsd = &vmstate_vdxg_vf;
    dc->user_creatable = false;
}

static const TypeInfo vdxg_type_info = {
    .name = TYPE_VDXG,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(VdxgState),
    .instance_init = vdxg_instance_init,
    .class_init = vdxg_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { INTERFACE_CONVENTIONAL_PCI_DEVICE },
        { },
    },
};

static const TypeInfo vdxg_vf_type_info = {
    .name = TYPE_VDXG_VF,
    .parent = TYPE_VDXG,
    .instance_size = sizeof(VdxgState),
    .class_init = vdxg_vf_class_init,
};

static void vdxg_register_types(void)
{
    type_register_static(&vdxg_type_info);
    type_register_static(&vdxg_vf_type_info);
}

type_init(vdxg_register_types)
