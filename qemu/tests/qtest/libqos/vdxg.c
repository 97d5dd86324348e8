/*
 * libqos driver for the vdxg virtual GPU
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "qemu/host-utils.h"
#include "qemu/units.h"
#include "qobject/qdict.h"
#include "vdxg.h"

const char *vdxg_qemu_args(void)
{
    return g_getenv("VDXG_QEMU_ARGS") ?: "";
}

QTestState *vdxg_qtest_start(const char *device_args)
{
    return qtest_initf("-machine q35 -nodefaults %s %s", vdxg_qemu_args(),
                       device_args);
}

/* Start QEMU with one vdxg device with @props and map its register BAR. */
void vdxg_start(Vdxg *v, const char *props)
{
    uint64_t size;

    v->qts = qtest_initf("-machine q35 -nodefaults %s "
                         "-device vdxg,addr=%02x.0%s%s",
                         vdxg_qemu_args(), VDXG_SLOT,
                         props ? "," : "", props ?: "");
    v->bus = qpci_new_pc(v->qts, NULL);
    v->dev = qpci_device_find(v->bus, VDXG_DEVFN);
    g_assert_nonnull(v->dev);
    qpci_device_enable(v->dev);
    v->mmio = qpci_iomap(v->dev, VDXG_BAR_MMIO, &size);
    g_assert_cmpuint(size, ==, VDXG_MMIO_SIZE);
}

void vdxg_stop(Vdxg *v)
{
    if (v->dev && v->dev->msix_enabled) {
        qpci_msix_disable(v->dev);
    }
    g_free(v->dev);
    qpci_free_pc(v->bus);
    qtest_quit(v->qts);
}

uint32_t rd(Vdxg *v, uint32_t reg)
{
    return qpci_io_readl(v->dev, v->mmio, reg);
}

void wr(Vdxg *v, uint32_t reg, uint32_t val)
{
    qpci_io_writel(v->dev, v->mmio, reg, val);
}

uint64_t rd64(Vdxg *v, uint32_t reg_lo)
{
    return rd(v, reg_lo) | (uint64_t)rd(v, reg_lo + 4) << 32;
}

/* The INTx state the device reports in its PCI status register. */
bool intx_asserted(Vdxg *v)
{
    return qpci_config_readw(v->dev, PCI_STATUS) & PCI_STATUS_INTERRUPT;
}

/*
 * Size a memory BAR the way firmware does. Memory decoding must be off.
 * Returns the size, and the BAR's low flag bits in @flags.
 */
uint64_t bar_size(QPCIDevice *dev, int bar, uint32_t *flags)
{
    uint8_t reg = PCI_BASE_ADDRESS_0 + bar * 4;
    uint32_t lo_orig = qpci_config_readl(dev, reg);
    uint32_t lo, hi_orig;
    uint64_t mask;

    qpci_config_writel(dev, reg, 0xffffffff);
    lo = qpci_config_readl(dev, reg);
    qpci_config_writel(dev, reg, lo_orig);
    *flags = lo & ~PCI_BASE_ADDRESS_MEM_MASK;
    mask = lo & PCI_BASE_ADDRESS_MEM_MASK;

    if ((lo & PCI_BASE_ADDRESS_MEM_TYPE_MASK) ==
        PCI_BASE_ADDRESS_MEM_TYPE_64) {
        hi_orig = qpci_config_readl(dev, reg + 4);
        qpci_config_writel(dev, reg + 4, 0xffffffff);
        mask |= (uint64_t)qpci_config_readl(dev, reg + 4) << 32;
        qpci_config_writel(dev, reg + 4, hi_orig);
    } else if (mask) {
        mask |= 0xffffffff00000000ull;
    }
    return mask ? ~mask + 1 : 0;
}

/* MSI-X table access through libqos's mapping of the table BAR. */
void msix_entry_set(Vdxg *v, int vec, uint64_t addr, uint32_t data,
                    bool masked)
{
    uint64_t off = v->dev->msix_table_off + vec * PCI_MSIX_ENTRY_SIZE;

    g_assert_true(v->dev->msix_enabled);
    qpci_io_writel(v->dev, v->dev->msix_table_bar,
                   off + PCI_MSIX_ENTRY_LOWER_ADDR, addr);
    qpci_io_writel(v->dev, v->dev->msix_table_bar,
                   off + PCI_MSIX_ENTRY_UPPER_ADDR, addr >> 32);
    qpci_io_writel(v->dev, v->dev->msix_table_bar,
                   off + PCI_MSIX_ENTRY_DATA, data);
    qpci_io_writel(v->dev, v->dev->msix_table_bar,
                   off + PCI_MSIX_ENTRY_VECTOR_CTRL,
                   masked ? PCI_MSIX_ENTRY_CTRL_MASKBIT : 0);
}

uint32_t msix_entry_get(Vdxg *v, int vec, int field)
{
    uint64_t off = v->dev->msix_table_off + vec * PCI_MSIX_ENTRY_SIZE;

    return qpci_io_readl(v->dev, v->dev->msix_table_bar, off + field);
}

/*
 * Enable MSI-X and point vector i at MSG_ADDR + 16 * i with data
 * MSIX_DATA(i), all unmasked, and clear the message area.
 */
void msix_setup(Vdxg *v)
{
    int vec;

    qpci_msix_enable(v->dev);
    g_assert_cmpuint(qpci_msix_table_size(v->dev), ==, VDXG_MSIX_VECTORS);
    for (vec = 0; vec < VDXG_MSIX_VECTORS; vec++) {
        msix_entry_set(v, vec, MSG_ADDR + 16 * vec, MSIX_DATA(vec), false);
        qtest_writel(v->qts, MSG_ADDR + 16 * vec, 0);
    }
}

uint32_t msg_read(Vdxg *v, int vec)
{
    return qtest_readl(v->qts, MSG_ADDR + 16 * vec);
}

void msg_clear(Vdxg *v)
{
    int vec;

    for (vec = 0; vec < VDXG_MSIX_VECTORS; vec++) {
        qtest_writel(v->qts, MSG_ADDR + 16 * vec, 0);
    }
}

/* Only vector @vec (or none, when -1) has received its message. */
void assert_msix_messages(Vdxg *v, int vec)
{
    int i;

    for (i = 0; i < VDXG_MSIX_VECTORS; i++) {
        g_assert_cmphex(msg_read(v, i), ==, i == vec ? MSIX_DATA(i) : 0);
    }
}

void vram_write(Pg *p, uint64_t off, const void *buf, size_t len)
{
    if (len) {
        qtest_bufwrite(p->v.qts, p->vram.addr + off, buf, len);
    }
}

void vram_read(Pg *p, uint64_t off, void *buf, size_t len)
{
    qtest_bufread(p->v.qts, p->vram.addr + off, buf, len);
}

void vram_writel(Pg *p, uint64_t off, uint32_t val)
{
    qtest_writel(p->v.qts, p->vram.addr + off, val);
}

uint32_t vram_readl(Pg *p, uint64_t off)
{
    return qtest_readl(p->v.qts, p->vram.addr + off);
}

uint64_t vram_readq(Pg *p, uint64_t off)
{
    return qtest_readq(p->v.qts, p->vram.addr + off);
}

void sys_write(Pg *p, uint64_t addr, const void *buf, size_t len)
{
    qtest_bufwrite(p->v.qts, addr, buf, len);
}

void sys_read(Pg *p, uint64_t addr, void *buf, size_t len)
{
    qtest_bufread(p->v.qts, addr, buf, len);
}

void wr64(Vdxg *v, uint32_t reg_lo, uint64_t val)
{
    wr(v, reg_lo, val);
    wr(v, reg_lo + 4, val >> 32);
}

/* Deterministic test data: byte i of stream @seed. */
void fill_bytes(uint8_t *buf, size_t len, uint32_t seed)
{
    size_t i;

    for (i = 0; i < len; i++) {
        buf[i] = (seed * 131 + i * 7 + (i >> 8) * 13) & 0xff;
    }
}

uint64_t qom_get_u64(Pg *p, const char *prop)
{
    QDict *rsp = qtest_qmp(p->v.qts, "{ 'execute': 'qom-get', 'arguments': "
                           "{ 'path': '/machine/peripheral/gpu', "
                           "'property': %s } }", prop);
    uint64_t val;

    g_assert_true(qdict_haskey(rsp, "return"));
    val = qdict_get_int(rsp, "return");
    qobject_unref(rsp);
    return val;
}

void qom_set_u64(Pg *p, const char *prop, uint64_t val)
{
    qtest_qmp_assert_success(p->v.qts, "{ 'execute': 'qom-set', "
                             "'arguments': { 'path': "
                             "'/machine/peripheral/gpu', 'property': %s, "
                             "'value': %" PRIu64 " } }", prop, val);
}

static const char *pg_hold_prop(Pg *p)
{
    return p->eng == VDXG_ENGINE_RENDER ? "x-rd-hold-after" :
                                          "x-pg-hold-after";
}

void pg_hold_after(Pg *p, uint64_t bytes)
{
    qom_set_u64(p, pg_hold_prop(p), bytes);
}

void pg_wait_held(Pg *p)
{
    int i;

    for (i = 0; i < PG_WAIT_LOOPS; i++) {
        if (!qom_get_u64(p, pg_hold_prop(p))) {
            g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_STATUS)), ==, 0);
            return;
        }
    }
    g_assert_not_reached();
}

/* Program the ring (empty, at p->ring) and enable the engine. */
void pg_engine_setup(Pg *p)
{
    wr64(&p->v, EREG(p, VDXG_ENG_RING_BASE_LO), p->ring);
    wr(&p->v, EREG(p, VDXG_ENG_RING_SIZE), PG_RING_SIZE);
    wr(&p->v, EREG(p, VDXG_ENG_RING_TAIL), 0);
    wr64(&p->v, EREG(p, VDXG_ENG_FENCE_ADDR_LO), p->fence);
    wr(&p->v, EREG(p, VDXG_ENG_CTRL), VDXG_ENG_CTRL_ENABLE);
    p->tail = 0;
}

void pg_gart_setup(Pg *p)
{
    wr64(&p->v, VDXG_REG_GART_TABLE_LO, PG_GART);
    wr64(&p->v, VDXG_REG_DUMMY_PAGE_LO, SYS_DUMMY);
    wr(&p->v, VDXG_REG_GART_CTRL, VDXG_GART_CTRL_ENABLE);
}

Pg *pg_start(const char *extra)
{
    g_autofree char *props = g_strdup_printf("%s%s%s", PG_PROPS,
                                             extra ? "," : "", extra ?: "");
    Pg *p = g_new0(Pg, 1);
    uint64_t size;

    p->eng = VDXG_ENGINE_PAGING;
    p->ring = PG_RING;
    p->fence = PG_FENCE;
    vdxg_start(&p->v, props);
    p->vram = qpci_iomap(p->v.dev, VDXG_BAR_VRAM, &size);
    g_assert_cmpuint(size, ==, PG_VRAM_SIZE);
    msix_setup(&p->v);
    wr(&p->v, VDXG_REG_INT_MASK, VDXG_INT_VALID_MASK);
    pg_gart_setup(p);
    pg_engine_setup(p);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==, 0);
    return p;
}

void pg_stop(Pg *p)
{
    vdxg_stop(&p->v);
    g_free(p);
}

/* Paging buffer building */

void pb_reset(Pg *p)
{
    p->used = 0;
}

void pb_dw(Pg *p, uint32_t dw)
{
    g_assert_cmpuint(p->used, <, ARRAY_SIZE(p->buf));
    p->buf[p->used++] = dw;
}

void pb_qw(Pg *p, uint64_t qw)
{
    pb_dw(p, qw);
    pb_dw(p, qw >> 32);
}

/* Byte offset in the buffer of the next operation. */
uint32_t pb_off(Pg *p)
{
    return p->used * 4;
}

void emit_nop(Pg *p)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_NOP, VDXG_PG_NOP_LEN));
}

void emit_fence(Pg *p, uint64_t addr, uint64_t value)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_FENCE, VDXG_PG_FENCE_LEN));
    pb_qw(p, addr);
    pb_qw(p, value);
}

void emit_transfer(Pg *p, uint32_t size, uint64_t src,
                   const uint64_t *src_pages, uint32_t ns,
                   uint64_t dst, const uint64_t *dst_pages,
                   uint32_t nd)
{
    uint32_t i;

    pb_dw(p, VDXG_PG_HDR(VDXG_PG_TRANSFER, VDXG_PG_XFER_LEN(ns, nd)));
    pb_dw(p, (src_pages ? VDXG_PG_XFER_SRC_PAGES : 0) |
             (dst_pages ? VDXG_PG_XFER_DST_PAGES : 0));
    pb_dw(p, size);
    pb_qw(p, src);
    pb_qw(p, dst);
    pb_dw(p, ns);
    pb_dw(p, nd);
    for (i = 0; i < ns; i++) {
        pb_qw(p, src_pages[i]);
    }
    for (i = 0; i < nd; i++) {
        pb_qw(p, dst_pages[i]);
    }
}

/* A TRANSFER between two GPU addresses */
void emit_copy(Pg *p, uint64_t src, uint64_t dst, uint32_t size)
{
    emit_transfer(p, size, src, NULL, 0, dst, NULL, 0);
}

void emit_fill(Pg *p, uint64_t addr, uint32_t size, uint32_t pattern)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_FILL, VDXG_PG_FILL_LEN));
    pb_dw(p, pattern);
    pb_dw(p, size);
    pb_qw(p, addr);
}

void emit_discard(Pg *p, uint64_t addr, uint32_t size)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_DISCARD, VDXG_PG_DISCARD_LEN));
    pb_dw(p, size);
    pb_qw(p, addr);
}

void emit_map(Pg *p, uint32_t first, const uint64_t *pages,
              uint32_t count)
{
    uint32_t i;

    pb_dw(p, VDXG_PG_HDR(VDXG_PG_MAP_APERTURE, VDXG_PG_MAP_LEN(count)));
    pb_dw(p, first);
    pb_dw(p, count);
    for (i = 0; i < count; i++) {
        pb_qw(p, pages[i]);
    }
}

void emit_map1(Pg *p, uint32_t page, uint64_t bus)
{
    emit_map(p, page, &bus, 1);
}

void emit_unmap(Pg *p, uint32_t first, uint32_t count)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_UNMAP_APERTURE, VDXG_PG_UNMAP_LEN));
    pb_dw(p, first);
    pb_dw(p, count);
}

void emit_flush_tlb(Pg *p)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_FLUSH_TLB, VDXG_PG_FLUSH_TLB_LEN));
}

void emit_write_phys(Pg *p, uint64_t bus, const uint32_t *data,
                     uint32_t n)
{
    uint32_t i;

    pb_dw(p, VDXG_PG_HDR(VDXG_PG_WRITE_PHYSICAL, VDXG_PG_WRITE_PHYS_LEN(n)));
    pb_qw(p, bus);
    for (i = 0; i < n; i++) {
        pb_dw(p, data[i]);
    }
}

void emit_read_phys(Pg *p, uint64_t bus, uint32_t size, uint64_t addr)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_READ_PHYSICAL, VDXG_PG_READ_PHYS_LEN));
    pb_qw(p, bus);
    pb_dw(p, size);
    pb_qw(p, addr);
}

/* GPU virtual memory's paging operations */

void emit_upt(Pg *p, uint64_t table, uint32_t first, const uint64_t *ptes,
              uint32_t count)
{
    uint32_t i;

    pb_dw(p, VDXG_PG_HDR(VDXG_PG_UPDATE_PAGE_TABLE, VDXG_PG_UPT_LEN(count)));
    pb_dw(p, 0);
    pb_qw(p, table);
    pb_dw(p, first);
    pb_dw(p, count);
    for (i = 0; i < count; i++) {
        pb_qw(p, ptes[i]);
    }
}

void emit_upt_gen(Pg *p, uint64_t table, uint32_t first, uint32_t count,
                  uint64_t base, uint64_t stride)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_UPDATE_PAGE_TABLE, VDXG_PG_UPT_GEN_LEN));
    pb_dw(p, VDXG_PG_UPT_GENERATE);
    pb_qw(p, table);
    pb_dw(p, first);
    pb_dw(p, count);
    pb_qw(p, base);
    pb_qw(p, stride);
}

void emit_copy_ptes(Pg *p, uint64_t src, uint32_t src_idx, uint64_t dst,
                    uint32_t dst_idx, uint32_t count)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_COPY_PTES, VDXG_PG_COPY_PTES_LEN));
    pb_qw(p, src);
    pb_dw(p, src_idx);
    pb_qw(p, dst);
    pb_dw(p, dst_idx);
    pb_dw(p, count);
}

void emit_flush_vm(Pg *p, uint32_t as, uint32_t flags, uint64_t va,
                   uint64_t size)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_FLUSH_VM_TLB, VDXG_PG_FLUSH_VM_TLB_LEN));
    pb_dw(p, as);
    pb_dw(p, flags);
    pb_qw(p, va);
    pb_qw(p, size);
}

void emit_xfer_virt(Pg *p, uint32_t as, uint32_t flags, uint32_t size,
                    uint64_t src, uint64_t dst)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_TRANSFER_VIRTUAL, VDXG_PG_XV_LEN));
    pb_dw(p, as);
    pb_dw(p, flags);
    pb_dw(p, size);
    pb_qw(p, src);
    pb_qw(p, dst);
}

void emit_fill_virt(Pg *p, uint32_t as, uint64_t va, uint32_t size,
                    uint32_t pattern)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_FILL_VIRTUAL, VDXG_PG_FILL_V_LEN));
    pb_dw(p, as);
    pb_dw(p, pattern);
    pb_dw(p, size);
    pb_qw(p, va);
}

void emit_uca(Pg *p, uint32_t as, uint64_t q0)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_UPDATE_CONTEXT_ALLOC, VDXG_PG_UCA_LEN));
    pb_dw(p, as);
    pb_qw(p, q0);
}

void emit_icr(Pg *p, uint64_t addr)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_INIT_CONTEXT_RESOURCE, VDXG_PG_ICR_LEN));
    pb_qw(p, addr);
}

void emit_notify_res(Pg *p, uint32_t as, uint32_t flags, uint32_t count)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_NOTIFY_RESIDENCY, VDXG_PG_NOTIFY_RES_LEN));
    pb_dw(p, as);
    pb_dw(p, flags);
    pb_dw(p, count);
}

/* Ring */

void ring_entry(Pg *p, uint32_t cmd, uint32_t len, uint64_t addr,
                uint64_t seqno, uint32_t context, uint32_t rsvd)
{
    uint32_t e[8] = {
        [VDXG_RING_DW_CMD] = cmd,
        [VDXG_RING_DW_LENGTH] = len,
        [VDXG_RING_DW_ADDR_LO] = addr,
        [VDXG_RING_DW_ADDR_HI] = addr >> 32,
        [VDXG_RING_DW_SEQNO_LO] = seqno,
        [VDXG_RING_DW_SEQNO_HI] = seqno >> 32,
        [VDXG_RING_DW_CONTEXT] = context,
        [VDXG_RING_DW_RSVD] = rsvd,
    };

    vram_write(p, p->ring + p->tail, e, sizeof(e));
    p->tail = (p->tail + VDXG_RING_ENTRY_SIZE) % PG_RING_SIZE;
}

void ring_kick(Pg *p)
{
    wr(&p->v, EREG(p, VDXG_ENG_RING_TAIL), p->tail);
    wr(&p->v, EREG(p, VDXG_ENG_DOORBELL), 1);
}

/* Put the buffer built so far at @gpu (VRAM) and queue an EXEC of it. */
uint64_t pb_queue_at(Pg *p, uint64_t vram_off, uint32_t context)
{
    vram_write(p, vram_off, p->buf, pb_off(p));
    p->buf_gpu = vram_off;
    ring_entry(p, VDXG_RING_CMD_EXEC, pb_off(p), vram_off, ++p->seqno,
               context, 0);
    return p->seqno;
}

/* Queue the buffer in the next slot. */
uint64_t pb_queue(Pg *p)
{
    uint64_t off = PG_BUF + (p->slot++ % PG_SLOTS) * PG_BUF_SIZE;

    return pb_queue_at(p, off, PG_CONTEXT);
}

/* Wait until the engine is idle or halted; returns STATUS. */
uint32_t pg_wait(Pg *p)
{
    uint32_t status = 0;
    int i;

    for (i = 0; i < PG_WAIT_LOOPS; i++) {
        status = rd(&p->v, EREG(p, VDXG_ENG_STATUS));
        if (status & (VDXG_ENG_STATUS_IDLE | VDXG_ENG_STATUS_HALTED)) {
            return status;
        }
    }
    g_assert_not_reached();
}

/* Wait for the queued work and check that it completed. */
void pg_finish(Pg *p)
{
    g_assert_cmphex(pg_wait(p), ==, VDXG_ENG_STATUS_IDLE);
    g_assert_cmphex(rd64(&p->v, EREG(p, VDXG_ENG_FENCE_VALUE_LO)), ==,
                    p->seqno);
    g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_RING_HEAD)), ==, p->tail);
}

/* Run the buffer built so far and wait for it. */
void pb_run(Pg *p)
{
    pb_queue(p);
    ring_kick(p);
    pg_finish(p);
    pb_reset(p);
}

/* Read @len bytes at GPU address @gpu, through a TRANSFER to VRAM. */
void gpu_peek(Pg *p, uint64_t gpu, void *buf, uint32_t len)
{
    pb_reset(p);
    emit_copy(p, gpu, PG_PEEK, len);
    pb_run(p);
    vram_read(p, PG_PEEK, buf, len);
}

uint32_t gpu_peekl(Pg *p, uint64_t gpu)
{
    uint32_t val;

    gpu_peek(p, gpu, &val, 4);
    return le32_to_cpu(val);
}

void assert_bytes(const uint8_t *got, const uint8_t *want, size_t len)
{
    size_t i;

    for (i = 0; i < len; i++) {
        if (got[i] != want[i]) {
            g_test_message("byte %zu: 0x%02x, expected 0x%02x", i, got[i],
                           want[i]);
            g_assert_cmphex(got[i], ==, want[i]);
        }
    }
}

/* The engine's registers are those of a just reset engine. */
void assert_engine_reset(Pg *p)
{
    static const uint32_t regs[] = {
        VDXG_ENG_RING_BASE_LO, VDXG_ENG_RING_BASE_HI, VDXG_ENG_RING_SIZE,
        VDXG_ENG_RING_HEAD, VDXG_ENG_RING_TAIL, VDXG_ENG_DOORBELL,
        VDXG_ENG_CTRL, VDXG_ENG_FENCE_ADDR_LO, VDXG_ENG_FENCE_ADDR_HI,
        VDXG_ENG_FENCE_VALUE_LO, VDXG_ENG_FENCE_VALUE_HI, VDXG_ENG_RESET,
    };
    int i;

    for (i = 0; i < ARRAY_SIZE(regs); i++) {
        g_assert_cmphex(rd(&p->v, EREG(p, regs[i])), ==, 0);
    }
    g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_STATUS)), ==,
                    VDXG_ENG_STATUS_IDLE);
}
/*
 * Extended configuration space through ECAM: firmware does not run under
 * qtest, so the test enables q35's MMCONFIG window itself.
 */
void ecam_enable(QPCIBus *bus)
{
    QPCIDevice *mch = qpci_device_find(bus, QPCI_DEVFN(0, 0));

    g_assert_nonnull(mch);
    qpci_config_writel(mch, 0x64, 0);
    qpci_config_writel(mch, 0x60, SR_ECAM | 1);
    g_free(mch);
}

uint32_t ecam_readl(QTestState *qts, int devfn, uint16_t off)
{
    return qtest_readl(qts, SR_ECAM + ((uint32_t)devfn << 12) + off);
}

uint16_t ecam_readw(QTestState *qts, int devfn, uint16_t off)
{
    return qtest_readw(qts, SR_ECAM + ((uint32_t)devfn << 12) + off);
}

void ecam_writel(QTestState *qts, int devfn, uint16_t off,
                 uint32_t val)
{
    qtest_writel(qts, SR_ECAM + ((uint32_t)devfn << 12) + off, val);
}

void ecam_writew(QTestState *qts, int devfn, uint16_t off,
                 uint16_t val)
{
    qtest_writew(qts, SR_ECAM + ((uint32_t)devfn << 12) + off, val);
}

/* The extended capability @id of function @devfn, or 0 */
uint16_t ext_cap_find(QTestState *qts, int devfn, uint16_t id)
{
    uint16_t off = 0x100;
    uint32_t hdr;

    while (off) {
        hdr = ecam_readl(qts, devfn, off);
        if (hdr == 0 || hdr == 0xffffffff) {
            return 0;
        }
        if (PCI_EXT_CAP_ID(hdr) == id) {
            return off;
        }
        off = PCI_EXT_CAP_NEXT(hdr);
    }
    return 0;
}

/* RENDER commands into the buffer (docs/hardware.md) */

void rd_nop(Pg *p)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_NOP, VDXG_RD_NOP_LEN));
}

void rd_mem(Pg *p, uint32_t op, uint64_t addr, uint64_t value)
{
    pb_dw(p, VDXG_PG_HDR(op, VDXG_RD_FENCE_LEN));
    pb_qw(p, addr);
    pb_qw(p, value);
}

void rd_fence(Pg *p, uint64_t addr, uint64_t value)
{
    rd_mem(p, VDXG_RD_FENCE, addr, value);
}

void rd_wait(Pg *p, uint64_t addr, uint64_t value)
{
    rd_mem(p, VDXG_RD_WAIT, addr, value);
}

void rd_set_surface(Pg *p, uint32_t slot, uint64_t addr,
                           uint32_t format, uint32_t width, uint32_t height,
                           uint32_t pitch)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_SET_SURFACE, VDXG_RD_SET_SURFACE_LEN));
    pb_dw(p, slot);
    pb_qw(p, addr);
    pb_dw(p, format);
    pb_dw(p, width);
    pb_dw(p, height);
    pb_dw(p, pitch);
}

void rd_fill(Pg *p, uint32_t x, uint32_t y, uint32_t w, uint32_t h,
                    uint32_t color)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_FILL_RECT, VDXG_RD_FILL_RECT_LEN));
    pb_dw(p, VDXG_RD_XY(x, y));
    pb_dw(p, VDXG_RD_XY(w, h));
    pb_dw(p, color);
}

void rd_copy(Pg *p, uint32_t sx, uint32_t sy, uint32_t dx, uint32_t dy,
                    uint32_t w, uint32_t h)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_COPY_RECT, VDXG_RD_COPY_RECT_LEN));
    pb_dw(p, VDXG_RD_XY(sx, sy));
    pb_dw(p, VDXG_RD_XY(dx, dy));
    pb_dw(p, VDXG_RD_XY(w, h));
}

void rd_blend(Pg *p, uint32_t sx, uint32_t sy, uint32_t dx,
                     uint32_t dy, uint32_t w, uint32_t h, uint32_t alpha)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_BLEND, VDXG_RD_BLEND_LEN));
    pb_dw(p, VDXG_RD_XY(sx, sy));
    pb_dw(p, VDXG_RD_XY(dx, dy));
    pb_dw(p, VDXG_RD_XY(w, h));
    pb_dw(p, alpha);
}

void rd_draw(Pg *p, uint32_t flags, uint32_t count, uint64_t vb)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_DRAW_TRIANGLES,
                         VDXG_RD_DRAW_TRIANGLES_LEN));
    pb_dw(p, flags);
    pb_dw(p, count);
    pb_qw(p, vb);
}

/* Store @n vertices at VRAM @vb in the layout the engine reads. */
