/*
 * vdxg: what the PF and the VFs share: global, interrupt, GART and
 * fault registers, interrupt delivery, soft reset
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "qemu/log.h"
#include "hw/pci/msi.h"
#include "hw/pci/msix.h"
#include "vdxg_int.h"
#include "hw/display/trace.h"

/* Interrupt sources signalled on each MSI-X vector. */
static const uint32_t vdxg_msix_vector_sources[VDXG_MSIX_VECTORS] = {
    [VDXG_MSIX_VEC_MISC]    = VDXG_INT_MISC_MASK,
    [VDXG_MSIX_VEC_RENDER]  = VDXG_INT_RENDER_FENCE,
    [VDXG_MSIX_VEC_PAGING]  = VDXG_INT_PAGING_FENCE,
    [VDXG_MSIX_VEC_DISPLAY] = VDXG_INT_DISPLAY_MASK,
};

/* Interrupts */

/* INTx is used only while neither MSI-X nor MSI is enabled; not by a VF. */
void vdxg_update_intx(VdxgState *s)
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

void vdxg_irq_raise(VdxgState *s, uint32_t sources)
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
void vdxg_fault(VdxgState *s, uint32_t engine, uint32_t reason,
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
    s->mmu.fault_vm = 0;
    s->mmu.fault_access = 0;
}

bool vdxg_set_err(VdxgErr *err, uint32_t reason, uint64_t addr)
{
    err->reason = reason;
    err->addr = addr;
    err->vm = false;
    err->as = 0;
    err->access = 0;
    return false;
}

/* Reset */

/* Put the register state to its power-on values, except RESET_COUNT. */
void vdxg_reset_registers(VdxgState *s)
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
    vdxg_vm_reset(s);
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

/* Register access */

void vdxg_guest_error(const char *what, hwaddr addr, uint32_t val)
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
            !vdxg_vm_read(s, addr, &val) &&
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
            !vdxg_vm_write(s, addr, val) &&
            !vdxg_display_write(s, addr, val) &&
            !vdxg_sriov_write(s, addr, val)) {
            vdxg_unassigned(true, addr, val);
        }
        break;
    }
}

const MemoryRegionOps vdxg_mmio_ops = {
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
