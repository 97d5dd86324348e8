/*
 * libqos driver for the vdxg virtual GPU
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

/*
 * How the device's qtests drive the device: start QEMU with it on q35's
 * pcie.0 and map its register BAR, read and write registers, program
 * MSI-X, set up the GART and an engine's ring, build and run DMA buffers
 * and wait for their fences, and reach extended configuration space.
 */

#ifndef LIBQOS_VDXG_H
#define LIBQOS_VDXG_H

#include "qemu/bitops.h"
#include "qemu/units.h"
#include "libqtest.h"
#include "libqos/pci.h"
#include "libqos/pci-pc.h"
#include "hw/pci/pci_regs.h"
#include "hw/display/vdxg_hw.h"

/* Where the device sits on pcie.0. */
#define VDXG_SLOT           4
#define VDXG_DEVFN          QPCI_DEVFN(VDXG_SLOT, 0)

/* Guest RAM that MSI and MSI-X messages are written to. */
#define MSG_ADDR            0x100000ull
#define MSIX_DATA(vec)      (0x5d780000u | (vec))
#define MSI_DATA            0x4d53u

/*
 * CAPS without MSI-X: the units the model implements on pcie.0 (PCI
 * Express, so with a resizable VRAM BAR, and no SR-IOV on a root bus)
 */
#define BASE_CAPS           (VDXG_CAP_SELFTEST | VDXG_CAP_RENDER | \
                             VDXG_CAP_PAGING | VDXG_CAP_GART | \
                             VDXG_CAP_DISPLAY | VDXG_CAP_CRC | \
                             VDXG_CAP_WRITEBACK | VDXG_CAP_RESIZABLE_BAR | \
                             VDXG_CAP_GPU_MMU | VDXG_CAP_3D)

/* ENGINES: RENDER and PAGING */
#define ALL_ENGINES         (BIT(VDXG_ENGINE_RENDER) | BIT(VDXG_ENGINE_PAGING))

/* How long a QEMU that must refuse to start may take to exit. */
#define REFUSE_TIMEOUT_S    30

typedef struct Vdxg {
    QTestState *qts;
    QPCIBus *bus;
    QPCIDevice *dev;
    QPCIBar mmio;
} Vdxg;

/* The PAGING engine, the GART, rings and DMA buffers */

/* A 32 MiB VRAM and a 16 MiB aperture (4096 GART entries). */
#define PG_PROPS            "id=gpu,vram-size=32M,aperture-size=16M"
#define PG_VRAM_SIZE        (32 * MiB)
#define PG_APERTURE_SIZE    (16 * MiB)
#define PG_PAGE             4096u
#define PG_GART_ENTRIES     (PG_APERTURE_SIZE / PG_PAGE)

/* VRAM layout */
#define PG_RING             0x0
#define PG_RING_SIZE        0x1000
#define PG_FENCE            0x1000      /* fence write-back slot */
#define PG_FENCE2           0x1100      /* FENCE operation target */
#define PG_GART             0x10000     /* 32 KiB GART table */
#define PG_BUF              0x20000     /* PG_SLOTS paging buffers */
#define PG_BUF_SIZE         0x10000
#define PG_SLOTS            8
#define PG_DATA             0x100000    /* scratch data */

/* System RAM used as pages, and the dummy page */
#define SYS_DUMMY           0x3ff000ull
#define SYS_PAGE(n)         (0x400000ull + (uint64_t)(n) * PG_PAGE)

#define ENG(reg)            (VDXG_ENGINE_BASE(VDXG_ENGINE_PAGING) + (reg))
#define APERTURE(page)      (VDXG_APERTURE_BASE + (uint64_t)(page) * PG_PAGE)

/* An address outside VRAM and the aperture, and one no bus decodes */
#define GPU_HOLE            (PG_VRAM_SIZE + 0x1000ull)
#define BUS_HOLE            (1ull << 52)

#define PG_CONTEXT          0x1234
#define PG_WAIT_LOOPS       200000

typedef struct Pg {
    Vdxg v;
    QPCIBar vram;
    /* The engine the ring helpers drive, its ring and fence slot (VRAM) */
    uint32_t eng;
    uint64_t ring;
    uint64_t fence;
    /* RENDER tests: host mirrors of their VRAM and aperture windows */
    uint8_t *vmem;
    uint8_t *amem;
    uint32_t tail;
    uint64_t seqno;
    unsigned int slot;
    uint32_t buf[PG_BUF_SIZE / 4];
    uint32_t used;              /* dwords in buf */
    uint64_t buf_gpu;           /* where the last buffer was put */
    /* What the fault test case expects, set by its build function */
    uint32_t want_opcode;
    uint64_t want_addr;
    uint32_t want_context;
} Pg;

/* A register of the engine that @p drives */
#define EREG(p, reg)        (VDXG_ENGINE_BASE((p)->eng) + (reg))

#define PG_PEEK             0x1f00000   /* VRAM bounce area for peeks */

/* Where the tests put q35's MMCONFIG (ECAM) window */
#define SR_ECAM             0xb0000000u

const char *vdxg_qemu_args(void);

QTestState *vdxg_qtest_start(const char *device_args);

/* Start QEMU with one vdxg device with @props and map its register BAR. */
void vdxg_start(Vdxg *v, const char *props);

void vdxg_stop(Vdxg *v);

uint32_t rd(Vdxg *v, uint32_t reg);

void wr(Vdxg *v, uint32_t reg, uint32_t val);

uint64_t rd64(Vdxg *v, uint32_t reg_lo);

/* The INTx state the device reports in its PCI status register. */
bool intx_asserted(Vdxg *v);

/*
 * Size a memory BAR the way firmware does. Memory decoding must be off.
 * Returns the size, and the BAR's low flag bits in @flags.
 */
uint64_t bar_size(QPCIDevice *dev, int bar, uint32_t *flags);

/* MSI-X table access through libqos's mapping of the table BAR. */
void msix_entry_set(Vdxg *v, int vec, uint64_t addr, uint32_t data,
                    bool masked);

uint32_t msix_entry_get(Vdxg *v, int vec, int field);

/*
 * Enable MSI-X and point vector i at MSG_ADDR + 16 * i with data
 * MSIX_DATA(i), all unmasked, and clear the message area.
 */
void msix_setup(Vdxg *v);

uint32_t msg_read(Vdxg *v, int vec);

void msg_clear(Vdxg *v);

/* Only vector @vec (or none, when -1) has received its message. */
void assert_msix_messages(Vdxg *v, int vec);

void vram_write(Pg *p, uint64_t off, const void *buf, size_t len);

void vram_read(Pg *p, uint64_t off, void *buf, size_t len);

void vram_writel(Pg *p, uint64_t off, uint32_t val);

uint32_t vram_readl(Pg *p, uint64_t off);

uint64_t vram_readq(Pg *p, uint64_t off);

void sys_write(Pg *p, uint64_t addr, const void *buf, size_t len);

void sys_read(Pg *p, uint64_t addr, void *buf, size_t len);

void wr64(Vdxg *v, uint32_t reg_lo, uint64_t val);

/* Deterministic test data: byte i of stream @seed. */
void fill_bytes(uint8_t *buf, size_t len, uint32_t seed);

/* The device's debug counter x-@prop (a read-only QOM property) */
uint64_t qom_get_u64(Pg *p, const char *prop);

/* Set the device's QOM property @prop, e.g. a test's knob x-pg-hold-after */
void qom_set_u64(Pg *p, const char *prop, uint64_t val);

/*
 * Hold the engine of @p after @bytes more bytes of work, as the engine's
 * budget charges them (data, or the equivalent in operations and pixels):
 * it then stops in the middle of its entry, STATUS busy, whatever the
 * host's speed; 0 lets it go on (x-pg-hold-after, x-rd-hold-after).
 */
void pg_hold_after(Pg *p, uint64_t bytes);

/*
 * Wait until the engine of @p holds, its work since pg_hold_after done,
 * in the middle of an entry.
 */
void pg_wait_held(Pg *p);

/* Program the ring (empty, at p->ring) and enable the engine. */
void pg_engine_setup(Pg *p);

void pg_gart_setup(Pg *p);

Pg *pg_start(const char *extra);

void pg_stop(Pg *p);

void pb_reset(Pg *p);

void pb_dw(Pg *p, uint32_t dw);

void pb_qw(Pg *p, uint64_t qw);

/* Byte offset in the buffer of the next operation. */
uint32_t pb_off(Pg *p);

/* RENDER commands: SET_SURFACE, FILL_RECT, COPY_RECT, BLEND, DRAW_TRIANGLES,
 * FENCE/WAIT (rd_mem), NOP */
void rd_nop(Pg *p);
void rd_mem(Pg *p, uint32_t op, uint64_t addr, uint64_t value);
void rd_fence(Pg *p, uint64_t addr, uint64_t value);
void rd_wait(Pg *p, uint64_t addr, uint64_t value);
void rd_set_surface(Pg *p, uint32_t slot, uint64_t addr,
                           uint32_t format, uint32_t width, uint32_t height,
                           uint32_t pitch);
void rd_fill(Pg *p, uint32_t x, uint32_t y, uint32_t w, uint32_t h,
                    uint32_t color);
void rd_copy(Pg *p, uint32_t sx, uint32_t sy, uint32_t dx, uint32_t dy,
                    uint32_t w, uint32_t h);
void rd_blend(Pg *p, uint32_t sx, uint32_t sy, uint32_t dx,
                     uint32_t dy, uint32_t w, uint32_t h, uint32_t alpha);
void rd_draw(Pg *p, uint32_t flags, uint32_t count, uint64_t vb);

void emit_nop(Pg *p);

void emit_fence(Pg *p, uint64_t addr, uint64_t value);

void emit_transfer(Pg *p, uint32_t size, uint64_t src,
                   const uint64_t *src_pages, uint32_t ns,
                   uint64_t dst, const uint64_t *dst_pages,
                   uint32_t nd);

/* A TRANSFER between two GPU addresses */
void emit_copy(Pg *p, uint64_t src, uint64_t dst, uint32_t size);

void emit_fill(Pg *p, uint64_t addr, uint32_t size, uint32_t pattern);

void emit_discard(Pg *p, uint64_t addr, uint32_t size);

void emit_map(Pg *p, uint32_t first, const uint64_t *pages,
              uint32_t count);

void emit_map1(Pg *p, uint32_t page, uint64_t bus);

void emit_unmap(Pg *p, uint32_t first, uint32_t count);

void emit_flush_tlb(Pg *p);

void emit_write_phys(Pg *p, uint64_t bus, const uint32_t *data,
                     uint32_t n);

void emit_read_phys(Pg *p, uint64_t bus, uint32_t size, uint64_t addr);

/* GPU virtual memory (VDXG_CAP_GPU_MMU) */
void emit_upt(Pg *p, uint64_t table, uint32_t first, const uint64_t *ptes,
              uint32_t count);

/* UPDATE_PAGE_TABLE with GENERATE: entry i is @base + i * @stride */
void emit_upt_gen(Pg *p, uint64_t table, uint32_t first, uint32_t count,
                  uint64_t base, uint64_t stride);

void emit_copy_ptes(Pg *p, uint64_t src, uint32_t src_idx, uint64_t dst,
                    uint32_t dst_idx, uint32_t count);

void emit_flush_vm(Pg *p, uint32_t as, uint32_t flags, uint64_t va,
                   uint64_t size);

void emit_xfer_virt(Pg *p, uint32_t as, uint32_t flags, uint32_t size,
                    uint64_t src, uint64_t dst);

void emit_fill_virt(Pg *p, uint32_t as, uint64_t va, uint32_t size,
                    uint32_t pattern);

void emit_uca(Pg *p, uint32_t as, uint64_t q0);

void emit_icr(Pg *p, uint64_t addr);

void emit_notify_res(Pg *p, uint32_t as, uint32_t flags, uint32_t count);

void ring_entry(Pg *p, uint32_t cmd, uint32_t len, uint64_t addr,
                uint64_t seqno, uint32_t context, uint32_t rsvd);

void ring_kick(Pg *p);

/* Put the buffer built so far at @gpu (VRAM) and queue an EXEC of it. */
uint64_t pb_queue_at(Pg *p, uint64_t vram_off, uint32_t context);

/* Queue the buffer in the next slot. */
uint64_t pb_queue(Pg *p);

/* Wait until the engine is idle or halted; returns STATUS. */
uint32_t pg_wait(Pg *p);

/* Wait for the queued work and check that it completed. */
void pg_finish(Pg *p);

/* Run the buffer built so far and wait for it. */
void pb_run(Pg *p);

/* Read @len bytes at GPU address @gpu, through a TRANSFER to VRAM. */
void gpu_peek(Pg *p, uint64_t gpu, void *buf, uint32_t len);

uint32_t gpu_peekl(Pg *p, uint64_t gpu);

void assert_bytes(const uint8_t *got, const uint8_t *want, size_t len);

/* The engine's registers are those of a just reset engine. */
void assert_engine_reset(Pg *p);

/*
 * Extended configuration space through ECAM: firmware does not run under
 * qtest, so the test enables q35's MMCONFIG window itself.
 */
void ecam_enable(QPCIBus *bus);

uint32_t ecam_readl(QTestState *qts, int devfn, uint16_t off);

uint16_t ecam_readw(QTestState *qts, int devfn, uint16_t off);

void ecam_writel(QTestState *qts, int devfn, uint16_t off,
                 uint32_t val);

void ecam_writew(QTestState *qts, int devfn, uint16_t off,
                 uint16_t val);

/* The extended capability @id of function @devfn, or 0 */
uint16_t ext_cap_find(QTestState *qts, int devfn, uint16_t id);

#endif
