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
void vdxg_update_intx(VdxgCore *s)
{
    PCIDevice *pdev = s->pdev;
    bool level;

    if (s->vf) {
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
static void vdxg_irq_update(VdxgCore *s, uint32_t old_pending)
{
    PCIDevice *pdev = s->pdev;
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
        } else if (msi_enabled(pdev)) {
            trace_vdxg_irq_msi(fired);
            msi_notify(pdev, 0);
        }
    }
    vdxg_update_intx(s);
}

void vdxg_irq_raise(VdxgCore *s, uint32_t sources)
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
void vdxg_fault(VdxgCore *s, uint32_t engine, uint32_t reason,
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

static void vdxg_fault_clear(VdxgCore *s)
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

/*
 * Put the register state to its power-on values, except RESET_COUNT: the
 * core's, then the function's own (the PF's display and backing tables).
 */
void vdxg_reset_registers(VdxgCore *s)
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
    if (s->reset) {
        s->reset(s);
    }
}

/*
 * Soft reset through VDXG_REG_RESET. Configuration space and the MSI-X
 * table are left alone; messages still pending for masked vectors are
 * dropped since every interrupt source has been cleared.
 */
static void vdxg_soft_reset(VdxgCore *s)
{
    PCIDevice *pdev = s->pdev;
    unsigned int vector;

    vdxg_reset_registers(s);
    s->reset_count++;
    trace_vdxg_soft_reset(s->reset_count);

    if (msix_present(pdev)) {
        for (vector = 0; vector < VDXG_MSIX_VECTORS; vector++) {
            msix_clr_pending(pdev, vector);
        }
    }
    vdxg_update_intx(s);
}

/* Migration */

/* The loaded registers are ones the model relies on (see vdxg_post_load). */
bool vdxg_core_post_load(VdxgCore *s)
{
    unsigned int i;

    if ((s->int_status | s->int_mask) & ~VDXG_INT_VALID_MASK) {
        return false;
    }
    /* The model relies on these; the rest is checked when it is used. */
    if (!vdxg_gart_table_ok(s, s->gart_table) ||
        (s->dummy_page & VDXG_PAGE_MASK) ||
        (s->gart_ctrl & ~VDXG_GART_CTRL_ENABLE) ||
        (s->fault_status & ~VDXG_FAULT_STATUS_VALID)) {
        return false;
    }
    /* A cached GART entry sits in its page's slot, for a page there is. */
    for (i = 0; i < VDXG_TLB_ENTRIES; i++) {
        if ((s->tlb_valid & BIT_ULL(i)) &&
            (s->tlb_page[i] % VDXG_TLB_ENTRIES != i ||
             s->tlb_page[i] >= s->gart_entries)) {
            return false;
        }
    }
    return true;
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
void vdxg_unassigned(bool is_write, hwaddr addr, uint32_t val)
{
    if (is_write) {
        vdxg_guest_error("write to undefined register", addr, val);
    } else {
        vdxg_guest_error("read of undefined register", addr, val);
    }
}

/*
 * The registers every function has: the global, interrupt, GART and fault
 * registers, the engines' and the MMU's. False for an offset that is none
 * of them.
 */
bool vdxg_core_read(VdxgCore *s, hwaddr addr, uint32_t *ret)
{
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
        val = s->num_crtcs;
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
        val = s->function;
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
        return vdxg_engine_read(s, addr, ret) ||
               vdxg_vm_read(s, addr, ret);
    }
    *ret = val;
    return true;
}

bool vdxg_core_write(VdxgCore *s, hwaddr addr, uint32_t val)
{
    uint32_t old_pending = s->int_status & s->int_mask;

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
        return vdxg_engine_write(s, addr, val) ||
               vdxg_vm_write(s, addr, val);
    }
    return true;
}

/* The statistics as read-only QOM properties, e.g. x-pg-discard-ops */
void vdxg_core_add_stats(VdxgCore *s, Object *obj)
{
    unsigned int op;

    for (op = 0; op < VDXG_PG_NUM_OPS; op++) {
        g_autofree char *ops = g_strdup_printf("x-pg-%s-ops",
                                               vdxg_pg_op_names[op]);
        g_autofree char *bytes = g_strdup_printf("x-pg-%s-bytes",
                                                 vdxg_pg_op_names[op]);

        object_property_add_uint64_ptr(obj, ops, &s->pg_ops[op],
                                       OBJ_PROP_FLAG_READ);
        object_property_add_uint64_ptr(obj, bytes, &s->pg_bytes[op],
                                       OBJ_PROP_FLAG_READ);
    }
    object_property_add_uint64_ptr(obj, "x-pg-tlb-hits", &s->tlb_hits,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "x-pg-tlb-misses", &s->tlb_misses,
                                   OBJ_PROP_FLAG_READ);
    vdxg_vm_add_stats(s, obj);
    object_property_add_uint64_ptr(obj, "x-pg-bh-runs",
                                   &s->bh_runs[VDXG_ENGINE_PAGING],
                                   OBJ_PROP_FLAG_READ);

    /* Render statistics, e.g. qom-get of x-rd-draw-triangles-ops */
    for (op = 0; op < VDXG_RD_NUM_OPS_3D; op++) {
        g_autofree char *ops = g_strdup_printf("x-rd-%s-ops",
                                               vdxg_rd_op_names[op]);

        object_property_add_uint64_ptr(obj, ops, &s->rd_ops[op],
                                       OBJ_PROP_FLAG_READ);
    }
    object_property_add_uint64_ptr(obj, "x-rd-pixels", &s->rd_pixels,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "x-rd-bh-runs",
                                   &s->bh_runs[VDXG_ENGINE_RENDER],
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "x-kick-slices", &s->kick_slices,
                                   OBJ_PROP_FLAG_READ);

    /* For tests: hold an engine in the middle of its work */
    vdxg_engine_add_props(s, obj);
}
