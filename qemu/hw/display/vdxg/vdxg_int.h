/*
 * vdxg: the state and the interfaces between the units of the device model
 *
 * vdxg is a virtual PCI Express GPU. The register interface is defined in
 * hw/display/vdxg_hw.h, a macro-only header shared with the Linux driver.
 * The model implements the global and interrupt register blocks, the VRAM
 * BAR, interrupt delivery over MSI-X, MSI or INTx, the RENDER engine with
 * its DMA buffers (2D commands and a triangle rasterizer), the PAGING
 * engine with its paging buffers, the GART aperture with a TLB, fault
 * reporting, and the display engine: up to four CRTCs composing a
 * background and three planes, vblank timing in virtual time,
 * double-buffered plane registers, CRCs, a writeback unit, connectors with
 * EDID and hotplug, and one graphic console per CRTC. Both engines share
 * one ring machinery.
 *
 * Behind a PCI Express port the device is an SR-IOV physical function: its
 * virtual functions (type vdxg-vf, created with the PF and enabled through
 * the SR-IOV capability) have their own register blocks, engines, GART and
 * MSI-X, and a VRAM BAR assembled from ranges of the PF's VRAM by the PF's
 * backing tables. On PCI Express the PF's VRAM BAR is resizable.
 *
 * The PF (VdxgState, type vdxg) and a VF (VdxgVfState, type vdxg-vf) are
 * two PCI device types, each embedding a VdxgCore: what every function
 * has. The units that run on both work on the core; display, writeback,
 * SR-IOV and Resizable BAR are the PF's and work on VdxgState.
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_DISPLAY_VDXG_INT_H
#define HW_DISPLAY_VDXG_INT_H

#include "hw/pci/pci_device.h"
#include "qemu/timer.h"
#include "qemu/units.h"
#include "qom/object.h"
#include "hw/display/vdxg_hw.h"
#include "vdxg_raster.h"
#include "vdxg_mmu.h"

/* The PF */
#define TYPE_VDXG "vdxg"
OBJECT_DECLARE_SIMPLE_TYPE(VdxgState, VDXG)

/*
 * A virtual function, created by the PF: a PCI device type of its own.
 * Both types embed a VdxgCore, the state every function has.
 */
#define TYPE_VDXG_VF "vdxg-vf"
OBJECT_DECLARE_SIMPLE_TYPE(VdxgVfState, VDXG_VF)

typedef struct VdxgCore VdxgCore;

/* Limit of the total-vfs property */
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

/* Limits of the aperture-size property. */
#define VDXG_APERTURE_SIZE_MIN  (1ull << 20)
#define VDXG_APERTURE_SIZE_MAX  (4ull << 30)

#define VDXG_PAGE_MASK          (VDXG_GPU_PAGE_SIZE - 1)

/* GART translations the TLB caches, direct-mapped by aperture page. */
#define VDXG_TLB_ENTRIES        64

/*
 * Work one run of an engine does at most before it yields to the main
 * loop, in bytes moved; each operation, ring entry and GART entry is
 * charged as a number of bytes. The work is handed out in quanta of
 * VDXG_BH_QUANTUM, and the run also yields once the pass of the PF's
 * scheduler it runs in has used VDXG_PASS_NS of host time (looked at
 * after each quantum), however slowly its pixels go (translation,
 * isolation checks, the aperture). One pass runs the engines of the PF
 * and of all its VFs under that one deadline.
 */
#define VDXG_BH_BUDGET          (4 * MiB)
#define VDXG_BH_QUANTUM         (32 * KiB)
#define VDXG_SLICE_NS           1000000
#define VDXG_PASS_NS            VDXG_SLICE_NS
/*
 * Passes that leave work run back to back until they have held the main
 * loop for VDXG_PASS_BUSY_NS; the next waits VDXG_PASS_GAP_NS of host
 * time, while the main loop polls with the BQL released and a vCPU
 * waiting for it (an MMIO access, an interrupt) gets it. Without the gap,
 * the main loop takes the BQL again at once, and keeps the guest waiting
 * as long as the engines are busy.
 */
#define VDXG_PASS_BUSY_NS       (4 * VDXG_PASS_NS)
#define VDXG_PASS_GAP_NS        (VDXG_PASS_NS / 20)
/* The host time a DOORBELL's write runs the engine before the BH does */
#define VDXG_KICK_NS            (VDXG_SLICE_NS / 4)
#define VDXG_COST_OP            256
#define VDXG_COST_ENTRY         256
#define VDXG_COST_PTE           16
/*
 * A virtual access of the RENDER engine (EXEC_VIRTUAL), charged for each
 * page it translates: a TLB lookup or a walk, then the page's memory.
 */
#define VDXG_COST_XLATE         32
/*
 * A VF's per-access work besides the data: each BAR or window its bus
 * access is checked against (isolation), each backing range looked at to
 * find a VRAM offset in PF VRAM. A bus access is also charged
 * VDXG_COST_XLATE for each page translated through the VF's bus master
 * address space (an IOMMU's, or the pages of system memory).
 */
#define VDXG_COST_RANGE         8
/*
 * A virtual-mode entry's context state area: read and checked when the
 * entry starts, written back when it completes (VDXG_CTX_STATE_DW_END
 * dwords each way).
 */
#define VDXG_COST_STATE         (2 * VDXG_CTX_STATE_DW_END * 4)

/* A surface bound to a slot of the RENDER engine; format 0 is unset. */
typedef struct VdxgSurface {
    uint64_t addr;
    uint32_t format;
    uint32_t width;
    uint32_t height;
    uint32_t pitch;
} VdxgSurface;

/* The longest RENDER command, in dwords: SET_STATE of 64 registers */
#define VDXG_RD_CMD_MAX_LEN     VDXG_RD_SET_STATE_LEN(VDXG_3D_NUM_REGS)
/* The longest before the 3D pipeline (migration of version 1) */
#define VDXG_RD_CMD_MAX_LEN_V1  VDXG_RD_SET_SURFACE_LEN

/*
 * The band buffer of an overlapping COPY_RECT or BLEND that needs a copy
 * of its source: at most this many bytes of source rows at a time.
 */
#define VDXG_COPY_BAND_SIZE     (4 * MiB)

/* RENDER engine state besides the ring; cleared with each ring entry. */
typedef struct VdxgRender {
    VdxgSurface surf[VDXG_NUM_SLOTS];
    uint32_t item;              /* DRAW: triangle; 3D DRAW: primitive */
    /* The command at work, read once when it starts; dw_len 0: none */
    uint32_t dw[VDXG_RD_CMD_MAX_LEN];
    uint32_t dw_len;
    /* COPY/BLEND through the band buffer: the band and its phase */
    uint32_t band;
    uint32_t phase;             /* 3D DRAW: 1 once it has started */
    uint32_t snap_len;
    uint8_t *snap;              /* COPY/BLEND: the band's source rows */
} VdxgRender;

/* An engine's registers and the ring entry it is executing. */
/*
 * Virtual mode: the host addresses of the pages an engine reached lately
 * through one binding (a surface slot, a vertex buffer, a texture),
 * direct-mapped by virtual page number, so that its accesses cost one
 * translation a page and a 2x2 quad's two rows, or a texture's two mipmap
 * levels, do not evict each other. @ptr is NULL for a page that is neither
 * plain VRAM nor RAM (each access is then translated on its own); @write
 * tells whether the page was translated for a write (and marked dirty).
 * A page of system memory is mapped until the engine's slice ends
 * (VdxgEngine.map). The entries hold for one run (@run): one slice of the
 * engine and one entry (VdxgEngine.vrun). Between slices other engines
 * and the guest may change the tables, a VF's backing or the device;
 * between entries the address space changes.
 */
#define VDXG_VPAGES 16

typedef struct VdxgVPages {
    uint64_t run;
    uint64_t vpn[VDXG_VPAGES];
    uint8_t *ptr[VDXG_VPAGES];
    bool write[VDXG_VPAGES];
} VdxgVPages;

/* The most system pages a slice of an engine maps (VdxgEngine.map) */
#define VDXG_ENGINE_MAPS 32

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
    /*
     * EXEC_VIRTUAL: every address of the entry is a virtual address of
     * address space @as; its slots are loaded from and stored to the
     * context state area at VRAM offset @state_area (0: none).
     */
    bool virt;
    uint32_t as;
    uint64_t state_area;
    VdxgRender rd;              /* RENDER only */

    /* Fixed at realize, kept by an engine reset: from here on */
    unsigned int index;         /* VDXG_ENGINE_* */
    /*
     * RENDER with VDXG_CAP_3D: the 3D pipeline's state (vdxg_3d.c), of
     * the entry in progress like rd: an entry starts with it reset.
     */
    struct Vdxg3d *g3d;
    VdxgCore *s;
    bool sched;                 /* has work for the PF's scheduler */
    QEMUTimer *wait_timer;      /* re-polls a WAIT */
    /*
     * For tests (x-pg-hold-after, x-rd-hold-after; not migrated): with
     * @hold set, the engine is handed at most @hold_left more bytes of
     * budget, then holds where it is, mid-entry, until the property is
     * written again. A guest cannot set it.
     */
    bool hold;
    uint64_t hold_left;
    /*
     * Virtual mode (not migrated): the run the page caches are valid for
     * (see VdxgVPages; never 0 once set), the surface slots' caches, and
     * the system pages they point into, unmapped (and, written, marked
     * dirty) when the slice ends.
     */
    uint64_t vrun;
    VdxgVPages rd_vp[VDXG_NUM_SLOTS];
    unsigned int nmaps;
    void *map[VDXG_ENGINE_MAPS];
    bool map_write[VDXG_ENGINE_MAPS];
} VdxgEngine;

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
    uint32_t dst_size;          /* 0: unscaled */
} VdxgPlane;

/*
 * A CRTC's colour pipeline registers: the pending copy, or the latched
 * one. lut holds the degamma LUT, then the gamma LUT, each
 * VDXG_LUT_SIZE entries of red, green, blue (VDXG_LUT_WORD()).
 */
#define VDXG_LUT_WORDS          (2 * VDXG_LUT_SIZE * 3)
#define VDXG_LUT_WORD(gamma, entry, ch) \
    (((gamma) * VDXG_LUT_SIZE + (entry)) * 3 + (ch))

typedef struct VdxgColor {
    uint32_t ctrl;              /* COLOR_CTRL */
    uint16_t lut[VDXG_LUT_WORDS];
    int32_t ctm[9];             /* S15.16, row-major */
} VdxgColor;

typedef struct VdxgCrtc {
    /* Registers as written */
    uint32_t ctrl;              /* ENABLE reads 1 only while active */
    uint32_t mode[VDXG_NUM_MODE_REGS];
    uint32_t bg;                /* pending BG_COLOR */
    VdxgPlane pend[VDXG_NUM_PLANES];
    bool conn_changed;          /* CONN_STATUS.CHANGED */
    bool link_bad;              /* CONN_STATUS.LINK_BAD */
    VdxgColor color;            /* pending colour pipeline */
    uint32_t lut_index;         /* LUT_INDEX */

    /* Scanout: valid while ctrl has ENABLE */
    uint32_t amode[VDXG_NUM_MODE_REGS]; /* latched by the enable */
    int64_t t0;                 /* virtual ns of the enable, or rebase */
    uint64_t fbase;             /* vblanks before t0 (VRR rebases) */
    uint32_t vrr_max;           /* VRR_VTOTAL_MAX */
    uint32_t avrr_max;          /* latched by the enable */
    uint64_t event_frame;       /* the last vblank whose events ran */
    bool flip_pending;
    uint64_t flip_frame;        /* FRAME_COUNT when FLIP was written */
    uint32_t damage;            /* DAMAGE */
    bool flip_damage;           /* every FLIP pending had FLIP_DAMAGE */
    uint32_t flip_y0, flip_y1;  /* the union of their DAMAGE rows */
    bool mode_invalid;          /* STATUS.MODE_INVALID */
    uint32_t frame_off;         /* FRAME_COUNT and VBLANK_NS while off */
    int64_t vblank_ns_off;
    uint32_t crc;
    uint32_t crc_frame;
    uint32_t abg;               /* latched BG_COLOR */
    VdxgPlane cur[VDXG_NUM_PLANES];
    uint32_t pstatus[VDXG_NUM_PLANES];  /* VDXG_PLANE_STATUS_* */
    VdxgColor acolor;           /* latched colour pipeline */
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
    uint32_t con_y0, con_y1;    /* the rows that changed; none: all */
    /*
     * Derived from acolor by vdxg_color_latch(): without the CTM, each
     * output channel of the pipeline as a function of the input channel
     * (color8); with it, the input after degamma (color16).
     */
    uint8_t color8[3][256];
    uint16_t color16[3][256];

    /* Composition in slices (vdxg_crtc_compose_step); not migrated */
    bool composing;             /* under way, up to comp_row */
    bool rows_invalid;          /* the frame no longer matches row_hash */
    bool dirty_again;           /* memory changed during the composition */
    bool comp_fill;             /* rows start with the background */
    bool comp_changed;          /* a row was composed again */
    bool comp_crc_on;           /* the CRC is computed row by row */
    uint8_t comp_order[VDXG_NUM_PLANES];    /* shown planes, bottom first */
    unsigned int comp_n;
    uint32_t comp_row;          /* the next row to compose */
    uint32_t comp_crc;          /* CRC of the rows above comp_row */
    uint64_t comp_state;        /* hash of what the rows depend on */
    uint64_t *row_hash;         /* inputs each row was composed from */
    bool upd_latched;           /* latched since the composition began */
    bool upd_all;               /* ... a state that may change every row */
    uint32_t upd_y0, upd_y1;    /* ... else that may change these rows */
    uint32_t row_hash_len;
    bool crc_pending;           /* CRC and CRC_FRAME wait for composition */
    uint64_t crc_pending_frame;
    uint64_t state_frame;       /* the frame of the last latch */
    uint32_t crc_first;         /* CRC_FIRST */
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

    /*
     * The capture under way, written in slices; not migrated (it starts
     * again on the destination). The source's frame is not composed again
     * until it ends.
     */
    bool capturing;
    uint32_t cap_row;           /* the next line to write */
    uint32_t cap_w, cap_h;
    uint32_t cap_pitch;
    uint64_t cap_addr;
    uint64_t cap_frame;
} VdxgWriteback;

/*
 * GPU virtual memory (VDXG_CAP_GPU_MMU): registers, residency counters,
 * the VM part of the fault record and each engine's TLB. Reset clears it;
 * the TLBs are not migrated.
 */
typedef struct VdxgMmu {
    uint64_t table;                     /* VM_TABLE */
    uint32_t entries;                   /* VM_TABLE_ENTRIES */
    uint32_t ctrl;                      /* VM_CTRL */
    uint32_t res_select;                /* VM_RES_SELECT */
    uint32_t res_resident[VDXG_VM_MAX_AS];
    uint32_t res_evicted[VDXG_VM_MAX_AS];
    uint32_t fault_vm;                  /* FAULT_VM */
    uint32_t fault_access;              /* FAULT_ACCESS */
    VdxgMmuTlb tlb[VDXG_NUM_ENGINES];
} VdxgMmu;

/*
 * What every function has, the PF and each VF: the global, interrupt,
 * GART and fault registers, the engines, the GPU address space, the GPU
 * MMU and interrupt delivery. The units that run on both functions
 * (vdxg_core.c, vdxg_mem.c, vdxg_ring.c, vdxg_paging.c, vdxg_render.c,
 * vdxg_vm.c) work on it.
 */
struct VdxgCore {
    PCIDevice *pdev;                    /* the function */
    MemoryRegion mmio;

    /*
     * The PF: the function itself on the PF. It keeps the longest slice
     * of every function; on a VF, its backing table maps the VF's VRAM.
     */
    VdxgState *pf;
    /*
     * A VF: its VRAM is ranges of PF VRAM (VdxgState.backing[vf_index]),
     * its bus accesses must not reach a BAR of the device, and it only
     * has MSI-X.
     */
    bool vf;
    uint32_t vf_index;
    uint32_t function;                  /* VDXG_REG_FUNCTION */
    /* Function-specific state a reset of the registers clears, or NULL */
    void (*reset)(VdxgCore *s);

    /* VRAM as this function sees it, and its GART aperture */
    uint64_t vram_size;
    uint64_t aperture_size;
    uint8_t *vram_ptr;                  /* PF VRAM */
    MemoryRegion *vram_mr;              /* the RAM region VRAM accesses dirty */

    /* VDXG_REG_CAPS, VDXG_REG_NUM_CRTCS and VM_SPACES, fixed at realize */
    uint32_t caps;
    uint32_t num_crtcs;
    uint32_t vm_spaces;

    /* Register state */
    uint32_t scratch;
    uint32_t reset_count;
    /*
     * Bumped by every reset of engines or display (not migrated). A DMA
     * can reset the device (e.g. through a bridge's Secondary Bus Reset):
     * work that did DMA checks it and is abandoned when it changed.
     */
    uint32_t reset_gen;
    /* Numbers the runs of RENDER commands (VdxgRdRun.run; not migrated) */
    uint64_t run_seq;
    uint32_t int_status;
    uint32_t int_mask;

    /* Engines, indexed by VDXG_ENGINE_* */
    VdxgEngine engine[VDXG_NUM_ENGINES];
    VMChangeStateEntry *vmse;

    /* GART, and the TLB of GART entries */
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

    /* GPU virtual memory */
    VdxgMmu mmu;

    /* Statistics since realize, read-only QOM properties; not migrated */
    uint64_t pg_ops[VDXG_PG_NUM_OPS];
    uint64_t pg_bytes[VDXG_PG_NUM_OPS];
    uint64_t rd_ops[VDXG_RD_NUM_OPS_3D];
    uint64_t rd_pixels;
    uint64_t tlb_hits;
    uint64_t tlb_misses;
    uint64_t bh_runs[VDXG_NUM_ENGINES];
    uint64_t kick_slices;       /* slices run in a register write */
    /*
     * Work of the engine run under way that its step did not charge
     * itself (see VDXG_COST_RANGE); the run charges it to its budget.
     */
    int64_t access_cost;

    /* Staging for bus-to-bus copies, fill patterns and GART entries */
    uint8_t bounce[VDXG_GPU_PAGE_SIZE];
};

/* The physical function */
struct VdxgState {
    PCIDevice parent_obj;
    VdxgCore core;

    MemoryRegion vram;          /* the VRAM RAM block */
    MemoryRegion vram_bar;      /* on PCI Express: resizable window */

    /* Properties (vram-size and aperture-size are in core) */
    bool use_msix;
    bool use_msi;
    bool use_rebar;                     /* offer the Resizable BAR cap */
    uint32_t outputs;
    bool connected[VDXG_MAX_CRTCS];     /* "connected<n>", hotplug */
    bool link_bad_prop[VDXG_MAX_CRTCS]; /* "link-bad<n>" (reads link_bad) */
    uint32_t total_vfs;
    uint64_t vf_vram_size;
    uint64_t vf_aperture_size;

    /* SR-IOV, backing tables (per VF, of VDXG_BAR_VRAM) and REBAR */
    bool has_sriov;
    uint32_t backing_select;
    uint32_t backing_status;
    VdxgRange backing_pend[VDXG_SRIOV_MAX_VFS][VDXG_MAX_BACKING_RANGES];
    VdxgRange backing[VDXG_SRIOV_MAX_VFS][VDXG_MAX_BACKING_RANGES];
    uint32_t backing_n[VDXG_SRIOV_MAX_VFS];
    uint16_t rebar_cap;                 /* 0: the BAR is the whole VRAM */
    uint64_t vram_bar_size;
    uint64_t mig_vram_bar_size;         /* migrated before config space */

    /* Display engine */
    VdxgCrtc crtc[VDXG_MAX_CRTCS];
    VdxgWriteback wb;
    QEMUBH *wb_bh;                      /* runs the writeback's DMA */
    /*
     * For tests (x-wb-hold-after; not migrated, kept by resets): with
     * @wb_hold set, a capture writes at most @wb_hold_left more lines,
     * then holds, under way, until the property is written again.
     */
    bool wb_hold;
    uint32_t wb_hold_left;
    uint64_t disp_composes;             /* statistics, not migrated */
    uint64_t max_slice_ns;              /* longest engine or compose run */
    uint64_t max_slice_cpu_ns;          /* the same in CPU time */
    uint64_t next_slice_cpu_ns;         /* the second longest, CPU time */
    /*
     * The scheduler of the engines of the PF and its VFs (vdxg_ring.c):
     * the engine a pass starts with, and statistics of its passes (not
     * migrated, writable to reset them): how many, the longest in real
     * and in CPU time, the second longest in CPU time, and how many took
     * more than pass_limit_ns of CPU time.
     */
    QEMUBH *sched_bh;
    QEMUTimer *sched_timer;
    bool sched_more;
    int64_t busy_ns;
    uint64_t pass_gaps;
    unsigned int sched_next;
    uint64_t passes;
    uint64_t max_pass_ns;
    uint64_t max_pass_cpu_ns;
    uint64_t next_pass_cpu_ns;
    uint64_t pass_limit_ns;             /* passes_over: CPU time above */
    uint64_t passes_over;
    /*
     * The host time the pass under way ends at (0 outside a pass), and
     * the quanta of work engines were granted once it had passed: none,
     * since an engine stops at its next quantum after the deadline.
     */
    int64_t pass_deadline;
    uint64_t late_quanta;
    /*
     * Non-zero while a slice of an engine runs: a doorbell rung then (by
     * an engine's DMA) only schedules its engine (vdxg_engine_kick()).
     */
    unsigned int slices;
    uint64_t disp_crcs;

    /* A row of scanout or writeback pixels, as read and as ARGB */
    uint8_t disp_row[VDXG_MODE_MAX_DISPLAY * 4];
    uint8_t disp_src[VDXG_NUM_PLANES][VDXG_MODE_MAX_DISPLAY * 4];
    QEMUBH *compose_bh;                 /* composes in slices */
    uint32_t disp_px[VDXG_MODE_MAX_DISPLAY];
    /* The rows of scaled or ROT_90 planes, sampled as ARGB */
    uint32_t disp_smp[VDXG_NUM_PLANES][VDXG_MODE_MAX_DISPLAY];
};

/* A virtual function, created by its PF */
struct VdxgVfState {
    PCIDevice parent_obj;
    VdxgCore core;

    /* The VRAM BAR, built from the PF's backing table, and the MSI-X BAR */
    MemoryRegion vf_vram;
    MemoryRegion vf_unbacked;
    MemoryRegion vf_alias[VDXG_MAX_BACKING_RANGES];
    MemoryRegion vf_msix;
};

/*
 * The core's fields in the PF's vmstate (vmstate_vdxg and its vdxg/mmu
 * subsection), under the names they had before the core was split out of
 * VdxgState: the description is unchanged.
 */
#define VMSTATE_VDXG_CORE(_field, _info, _type) {                       \
    .name   = stringify(_field),                                        \
    .size   = sizeof(_type),                                            \
    .info   = &(_info),                                                 \
    .flags  = VMS_SINGLE,                                               \
    .offset = vmstate_offset_value(VdxgState, core._field, _type),      \
}
#define VMSTATE_VDXG_CORE_ARRAY(_field, _info, _type, _num) {           \
    .name   = stringify(_field),                                        \
    .num    = (_num),                                                   \
    .info   = &(_info),                                                 \
    .size   = sizeof(_type),                                            \
    .flags  = VMS_ARRAY,                                                \
    .offset = vmstate_offset_array(VdxgState, core._field, _type, _num), \
}
#define VMSTATE_VDXG_CORE_STRUCT_ARRAY(_field, _num, _version, _vmsd,    \
                                       _type) {                         \
    .name       = stringify(_field),                                    \
    .num        = (_num),                                               \
    .version_id = (_version),                                           \
    .vmsd       = &(_vmsd),                                             \
    .size       = sizeof(_type),                                        \
    .flags      = VMS_STRUCT | VMS_ARRAY,                               \
    .offset = vmstate_offset_array(VdxgState, core._field, _type, _num), \
}

/* Why an access failed: a VDXG_FAULT_* reason and the address reported. */
typedef struct VdxgErr {
    uint32_t reason;
    uint64_t addr;
    /* A VM_* fault: its address space and VDXG_ACCESS_* (vdxg_vm_xlate) */
    bool vm;
    uint32_t as;
    uint32_t access;
} VdxgErr;

/*
 * A contiguous piece of memory an engine accesses: a range of VRAM, used
 * through the RAM pointer, or a range of bus addresses, used with DMA.
 */
typedef struct VdxgSeg {
    bool vram;
    uint64_t addr;          /* VRAM offset or bus address */
    uint64_t len;
    uint64_t fault_addr;    /* what a failed access reports */
    bool run;               /* several pages of a page list at once */
    bool zero;              /* a null page: reads 0, writes dropped */
} VdxgSeg;

/* vdxg_core.c */
void vdxg_update_intx(VdxgCore *s);
void vdxg_irq_raise(VdxgCore *s, uint32_t sources);
void vdxg_fault(VdxgCore *s, uint32_t engine, uint32_t reason,
                uint32_t opcode, uint64_t addr, uint32_t context);
bool vdxg_set_err(VdxgErr *err, uint32_t reason, uint64_t addr);
void vdxg_reset_registers(VdxgCore *s);
void vdxg_guest_error(const char *what, hwaddr addr, uint32_t val);
void vdxg_unassigned(bool is_write, hwaddr addr, uint32_t val);
bool vdxg_core_read(VdxgCore *s, hwaddr addr, uint32_t *val);
bool vdxg_core_write(VdxgCore *s, hwaddr addr, uint32_t val);
void vdxg_core_add_stats(VdxgCore *s, Object *obj);
bool vdxg_core_post_load(VdxgCore *s);

/* vdxg_mem.c */
bool vdxg_in_window(uint64_t addr, uint64_t len, uint64_t base,
                    uint64_t size);
bool vdxg_in_vram(VdxgCore *s, uint64_t addr, uint64_t len);
bool vdxg_gpu_range_ok(VdxgCore *s, uint64_t addr, uint64_t len);
bool vdxg_gart_table_ok(VdxgCore *s, uint64_t table);
bool vdxg_vram_rw(VdxgCore *s, uint64_t off, void *buf, uint64_t len,
                  bool is_write, VdxgErr *err);
void *vdxg_dma_map_page(VdxgCore *s, uint64_t addr, bool write);
void vdxg_dma_unmap_page(VdxgCore *s, void *p, bool write);
MemTxResult vdxg_dma_read(VdxgCore *s, uint64_t addr, void *buf,
                          uint64_t len);
void vdxg_tlb_flush(VdxgCore *s, const char *why);
bool vdxg_gpu_seg(VdxgCore *s, uint64_t gpu, uint64_t len,
                  VdxgSeg *seg, VdxgErr *err);
bool vdxg_seg_read(VdxgCore *s, const VdxgSeg *seg, void *buf,
                   uint64_t len, VdxgErr *err);
bool vdxg_seg_write(VdxgCore *s, const VdxgSeg *seg, const void *buf,
                    uint64_t len, VdxgErr *err);
void vdxg_fill_pattern(uint8_t *p, uint64_t len, const uint8_t *pat,
                       unsigned int unit);
bool vdxg_gpu_rw(VdxgCore *s, uint64_t gpu, void *buf, uint64_t len,
                 bool is_write, VdxgErr *err);

/* vdxg_ring.c */
void vdxg_engine_reset(VdxgCore *s, VdxgEngine *e);
bool vdxg_engine_read(VdxgCore *s, hwaddr addr, uint32_t *val);
bool vdxg_engine_write(VdxgCore *s, hwaddr addr, uint32_t val);
void vdxg_engines_init(VdxgCore *s);
void vdxg_engines_exit(VdxgCore *s);
void vdxg_engine_add_props(VdxgCore *s, Object *obj);
extern const VMStateDescription vmstate_vdxg_engine;

/* vdxg_paging.c */
uint64_t vdxg_dw64(const uint32_t *dw, unsigned int i);
VdxgRun vdxg_pg_op(VdxgCore *s, VdxgEngine *e, int64_t *budget,
                   uint32_t *opcode, VdxgErr *err);


/*
 * A RENDER command at work: where it charges its work, what it reports
 * on a fault, and the VRAM it wrote (by slot), marked dirty when it stops.
 */
typedef struct VdxgRdRun {
    VdxgCore *s;
    VdxgEngine *e;
    int64_t *budget;
    VdxgErr *err;
    uint64_t dirty_lo[VDXG_NUM_SLOTS];
    uint64_t dirty_hi[VDXG_NUM_SLOTS];
    /* Virtual mode: the engine's caches of each slot's surface pages */
    VdxgVPages *vp;
    uint64_t run;               /* the engine's vrun */
    uint32_t gen;
} VdxgRdRun;

/* vdxg_render.c */
void vdxg_rd_run_init(VdxgRdRun *r, VdxgCore *s, VdxgEngine *e,
                      int64_t *budget, VdxgErr *err);
void vdxg_rd_run_flush(VdxgRdRun *r);
void vdxg_engine_new_run(VdxgEngine *e);
void vdxg_engine_unmap(VdxgEngine *e);
const uint8_t *vdxg_rd_window(VdxgRdRun *r, uint64_t va, uint64_t len,
                              unsigned int max);
uint8_t *vdxg_vpages_miss(VdxgRdRun *r, VdxgVPages *vp, uint64_t va,
                          bool write);

/*
 * Virtual mode: the host address of @va, through the page cache @vp of
 * the binding it belongs to, when its page is VRAM (on a VF, backed as a
 * whole by one range), else NULL: the caller then goes through
 * vdxg_rd_rw, which translates each access on its own and reports what
 * faults. The caller keeps the access inside the page.
 */
static inline uint8_t *vdxg_vpages_get(VdxgRdRun *r, VdxgVPages *vp,
                                       uint64_t va, bool write)
{
    uint64_t vpn = va >> VDXG_GPU_PAGE_SHIFT;
    unsigned int i = vpn % VDXG_VPAGES;

    if (likely(vp->run == r->run && vp->vpn[i] == vpn && vp->ptr[i] &&
               (vp->write[i] || !write) && r->s->reset_gen == r->gen)) {
        return vp->ptr[i] + (va & VDXG_PAGE_MASK);
    }
    return vdxg_vpages_miss(r, vp, va, write);
}

uint32_t vdxg_surface_check(VdxgCore *s, uint32_t slot,
                            const VdxgSurface *sf, bool virt);
uint32_t vdxg_fmt_bpp(uint32_t format);
bool vdxg_px_load(VdxgRdRun *r, unsigned int slot, uint32_t x,
                  uint32_t y, uint32_t *raw);
bool vdxg_px_store(VdxgRdRun *r, unsigned int slot, uint32_t x,
                   uint32_t y, uint32_t raw);
uint8_t *vdxg_px_run(VdxgRdRun *r, unsigned int slot, uint32_t x,
                     uint32_t y, uint32_t n, bool write);
uint32_t vdxg_px_page_left(VdxgRdRun *r, unsigned int slot, uint32_t x,
                           uint32_t y, bool backward);
VdxgRun vdxg_rd_fail(VdxgRdRun *r, uint32_t reason);
bool vdxg_rd_rw(VdxgCore *s, VdxgEngine *e, uint64_t addr, void *buf,
                uint64_t len, uint32_t access, int64_t *budget,
                VdxgErr *err);
bool vdxg_rd_state_load(VdxgCore *s, VdxgEngine *e, VdxgErr *err);
bool vdxg_rd_state_store(VdxgCore *s, VdxgEngine *e, VdxgErr *err);
void vdxg_rd_snap_free(VdxgEngine *e);
VdxgRun vdxg_rd_cmd(VdxgCore *s, VdxgEngine *e, int64_t *budget,
                    uint32_t *opcode, VdxgErr *err);

/* vdxg_3d.c */
void vdxg_3d_init(VdxgEngine *e);
void vdxg_3d_exit(VdxgEngine *e);
void vdxg_3d_reset(VdxgEngine *e);
VdxgRun vdxg_3d_cmd(VdxgRdRun *r, uint32_t op, const uint32_t *dw,
                    uint32_t len);
bool vdxg_3d_state_load(VdxgCore *s, VdxgEngine *e, const uint8_t *area,
                        VdxgErr *err);
void vdxg_3d_state_store(VdxgEngine *e, uint8_t *area);
bool vdxg_3d_post_load(VdxgEngine *e);
extern const VMStateDescription vmstate_vdxg_3d;

/* vdxg_compose.c */
uint32_t vdxg_plane_check(VdxgState *s, unsigned int p,
                          const VdxgPlane *pl);
void vdxg_plane_latch(VdxgState *s, VdxgCrtc *c, unsigned int p);
/*
 * Rows *@y0 to *@y1 - 1 (none when *@y0 >= *@y1) become the smallest
 * run that also holds rows @a to @b - 1.
 */
static inline void vdxg_rows_add(uint32_t *y0, uint32_t *y1, uint32_t a,
                                 uint32_t b)
{
    if (a >= b) {
        return;
    }
    if (*y0 >= *y1) {
        *y0 = a;
        *y1 = b;
    } else {
        *y0 = MIN(*y0, a);
        *y1 = MAX(*y1, b);
    }
}

void vdxg_plane_latch_alone(VdxgState *s, VdxgCrtc *c, unsigned int p);
void vdxg_crtc_latch_all(VdxgState *s, VdxgCrtc *c, bool damage);
void vdxg_display_harvest(VdxgState *s);
bool vdxg_crtc_refresh_sliced(VdxgState *s, VdxgCrtc *c);
void vdxg_compose_bh(void *opaque);
uint32_t vdxg_crtc_crc(VdxgState *s, VdxgCrtc *c);

/* vdxg_color.c */
bool vdxg_color_read(VdxgCrtc *c, hwaddr off, uint32_t *val);
bool vdxg_color_write(VdxgCrtc *c, hwaddr addr, hwaddr off, uint32_t val);
void vdxg_color_latch(VdxgCrtc *c);
bool vdxg_color_on(const VdxgCrtc *c);
unsigned int vdxg_color_weight(const VdxgCrtc *c);
void vdxg_color_row(const VdxgCrtc *c, uint32_t *row, size_t n);
bool vdxg_color_post_load(VdxgCrtc *c);
extern const VMStateDescription vmstate_vdxg_color;

/* vdxg_display.c */
VdxgCrtc *vdxg_crtc(VdxgState *s, unsigned int index);
bool vdxg_crtc_active(const VdxgCrtc *c);
uint64_t vdxg_crtc_frames(const VdxgCrtc *c);
void vdxg_crtc_arm(VdxgState *s, VdxgCrtc *c);
void vdxg_display_fault(VdxgState *s, VdxgCrtc *c, unsigned int unit,
                        uint32_t reason, uint64_t addr);
void vdxg_get_connected(Object *obj, Visitor *v, const char *name,
                        void *opaque, Error **errp);
void vdxg_set_connected(Object *obj, Visitor *v, const char *name,
                        void *opaque, Error **errp);
void vdxg_get_link_bad(Object *obj, Visitor *v, const char *name,
                       void *opaque, Error **errp);
void vdxg_set_link_bad(Object *obj, Visitor *v, const char *name,
                       void *opaque, Error **errp);
void vdxg_display_reset(VdxgState *s);
void vdxg_display_realize(VdxgState *s);
void vdxg_display_exit(VdxgState *s);
bool vdxg_display_post_load(VdxgState *s);
bool vdxg_display_read(VdxgState *s, hwaddr addr, uint32_t *val);
bool vdxg_display_write(VdxgState *s, hwaddr addr, uint32_t val);
extern const VMStateDescription vmstate_vdxg_crtc;

/* vdxg_wb.c */
bool vdxg_wb_busy(VdxgState *s);
unsigned int vdxg_wb_crtc(VdxgState *s);
void vdxg_wb_finish(VdxgState *s, uint32_t status, uint64_t frame);
bool vdxg_wb_holds(VdxgState *s, const VdxgCrtc *c);
void vdxg_wb_end_capture(VdxgState *s);
void vdxg_wb_bh(void *opaque);
void vdxg_wb_add_props(VdxgState *s, Object *obj);
bool vdxg_wb_read(VdxgState *s, hwaddr addr, uint32_t *val);
bool vdxg_wb_write(VdxgState *s, hwaddr addr, uint32_t val);
extern const VMStateDescription vmstate_vdxg_wb;

/* vdxg_sriov.c */
void vdxg_vf_map_backing(VdxgVfState *vf);
void vdxg_backing_reset(VdxgState *s);
bool vdxg_sriov_read(VdxgState *s, hwaddr addr, uint32_t *val);
bool vdxg_sriov_write(VdxgState *s, hwaddr addr, uint32_t val);

/* vdxg_rebar.c */
void vdxg_rebar_set(VdxgState *s, uint64_t size);
void vdxg_rebar_write(VdxgState *s);
void vdxg_rebar_init(VdxgState *s, uint16_t offset);
bool vdxg_rebar_load(VdxgState *s, uint64_t size);

/* vdxg_vm.c */
void vdxg_vm_flush(VdxgCore *s, int64_t as, const char *why);
void vdxg_vm_flush_range(VdxgCore *s, uint32_t as, uint64_t va,
                         uint64_t size);
void vdxg_vm_reset(VdxgCore *s);
bool vdxg_vm_as_entry_ok(VdxgCore *s, uint64_t q0);
bool vdxg_vm_xlate(VdxgCore *s, VdxgEngine *e, uint32_t as, uint64_t va,
                   uint32_t access, VdxgMmuXlate *x, VdxgErr *err);
bool vdxg_vm_seg(VdxgCore *s, VdxgEngine *e, uint32_t as, uint64_t va,
                 uint64_t len, uint32_t access, VdxgSeg *seg, VdxgErr *err);
bool vdxg_vm_read(VdxgCore *s, hwaddr addr, uint32_t *val);
bool vdxg_vm_write(VdxgCore *s, hwaddr addr, uint32_t val);
void vdxg_vm_add_stats(VdxgCore *s, Object *obj);
extern const VMStateDescription vmstate_vdxg_mmu;

/* vdxg_dbg.c */
extern const char *const vdxg_pg_op_names[VDXG_PG_NUM_OPS];
extern const char *const vdxg_rd_op_names[VDXG_RD_NUM_OPS_3D];
const char *vdxg_reg_name(hwaddr addr);

/*
 * The CPU time of this thread: what a run of device work costs, apart
 * from the time the host gives to other threads and processes.
 */
static inline int64_t vdxg_thread_ns(void)
{
#ifdef CLOCK_THREAD_CPUTIME_ID
    struct timespec ts;

    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0) {
        return ts.tv_sec * 1000000000LL + ts.tv_nsec;
    }
#endif
    return get_clock();
}

/*
 * Note a run of engine or display work in the main loop that took @ns of
 * real time and @cpu_ns of CPU time; the PF keeps the longest of its own
 * and its VFs' (x-max-slice-ns, x-max-slice-cpu-ns) and the second
 * longest in CPU time (x-next-slice-cpu-ns).
 */
static inline void vdxg_note_slice(VdxgCore *s, int64_t ns, int64_t cpu_ns)
{
    VdxgState *t = s->pf;

    if (ns > 0 && (uint64_t)ns > t->max_slice_ns) {
        t->max_slice_ns = ns;
    }
    if (cpu_ns <= 0) {
        return;
    }
    if ((uint64_t)cpu_ns > t->max_slice_cpu_ns) {
        t->next_slice_cpu_ns = t->max_slice_cpu_ns;
        t->max_slice_cpu_ns = cpu_ns;
    } else if ((uint64_t)cpu_ns > t->next_slice_cpu_ns) {
        t->next_slice_cpu_ns = cpu_ns;
    }
}

#endif
