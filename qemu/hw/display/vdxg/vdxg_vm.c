/*
 * vdxg: GPU virtual memory in the device: the MMU registers, translation
 * of an engine's virtual accesses through its TLB, reset and migration.
 * The walk itself is vdxg_mmu.c's.
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qapi/visitor.h"
#include "migration/vmstate.h"
#include "vdxg_int.h"
#include "hw/display/trace.h"

/* A qword of the function's VRAM, for the walk (a VF's through backing) */
static bool vdxg_vm_read_qword(void *opaque, uint64_t off, uint64_t *val)
{
    VdxgCore *s = opaque;
    uint8_t buf[8];
    VdxgErr err;

    if (!vdxg_in_vram(s, off, 8) ||
        !vdxg_vram_rw(s, off, buf, 8, false, &err)) {
        return false;
    }
    *val = ldq_le_p(buf);
    return true;
}

static VdxgMmuCfg vdxg_vm_cfg(VdxgCore *s)
{
    return (VdxgMmuCfg) {
        .read = vdxg_vm_read_qword,
        .opaque = s,
        .vram_size = s->vram_size,
        .table = s->mmu.table,
        .entries = s->mmu.entries,
        .enabled = s->mmu.ctrl & VDXG_VM_CTRL_ENABLE,
    };
}

/* Drop the translations of address space @as (-1: all) of every engine. */
void vdxg_vm_flush(VdxgCore *s, int64_t as, const char *why)
{
    unsigned int i;

    trace_vdxg_vm_flush(as, why);
    for (i = 0; i < VDXG_NUM_ENGINES; i++) {
        if (as < 0) {
            vdxg_mmu_tlb_flush_all(&s->mmu.tlb[i]);
        } else {
            vdxg_mmu_tlb_flush_as(&s->mmu.tlb[i], as);
        }
    }
}

void vdxg_vm_flush_range(VdxgCore *s, uint32_t as, uint64_t va,
                         uint64_t size)
{
    unsigned int i;

    trace_vdxg_vm_flush_range(as, va, size);
    for (i = 0; i < VDXG_NUM_ENGINES; i++) {
        vdxg_mmu_tlb_flush_range(&s->mmu.tlb[i], as, va, size);
    }
}

void vdxg_vm_reset(VdxgCore *s)
{
    VdxgMmu *m = &s->mmu;

    m->table = 0;
    m->entries = 0;
    m->ctrl = 0;
    m->res_select = 0;
    memset(m->res_resident, 0, sizeof(m->res_resident));
    memset(m->res_evicted, 0, sizeof(m->res_evicted));
    m->fault_vm = 0;
    m->fault_access = 0;
    vdxg_vm_flush(s, -1, "reset");
}

/* An address-space table of @entries entries at @table fits in VRAM. */
static bool vdxg_vm_table_ok(VdxgCore *s, uint64_t table, uint32_t entries)
{
    return !(table & VDXG_PAGE_MASK) && entries <= s->vm_spaces &&
           vdxg_in_vram(s, table, (uint64_t)entries * VDXG_VM_AS_ENTRY_SIZE);
}

/* UPDATE_CONTEXT_ALLOCATION's check of an AS entry's qword 0 */
bool vdxg_vm_as_entry_ok(VdxgCore *s, uint64_t q0)
{
    uint64_t root;

    return !(q0 & VDXG_VM_AS_VALID) ||
           vdxg_mmu_as_entry_check(q0, s->vram_size, &root) ==
           VDXG_FAULT_NONE;
}

/*
 * Translate @va of address space @as for an @access of engine @e. A fault
 * sets @err with the virtual address, the address space and the access.
 */
bool vdxg_vm_xlate(VdxgCore *s, VdxgEngine *e, uint32_t as, uint64_t va,
                   uint32_t access, VdxgMmuXlate *x, VdxgErr *err)
{
    VdxgMmuCfg cfg = vdxg_vm_cfg(s);
    uint32_t r;

    r = vdxg_mmu_translate(&cfg, &s->mmu.tlb[e->index], as, va, access, x);
    if (r != VDXG_FAULT_NONE) {
        trace_vdxg_vm_fault(e->index, as, va, access, r);
        vdxg_set_err(err, r, va);
        err->vm = true;
        err->as = as;
        err->access = access;
        return false;
    }
    return true;
}

/*
 * The piece of at most @len bytes at @va of address space @as: up to the
 * end of its page. An access the page's memory rejects later reports @va.
 */
bool vdxg_vm_seg(VdxgCore *s, VdxgEngine *e, uint32_t as, uint64_t va,
                 uint64_t len, uint32_t access, VdxgSeg *seg, VdxgErr *err)
{
    VdxgMmuXlate x;
    uint64_t n;

    if (!vdxg_vm_xlate(s, e, as, va, access, &x, err)) {
        return false;
    }
    n = MIN(len, x.size - (va & (x.size - 1)));
    *seg = (VdxgSeg) { 0 };
    if (x.zero) {
        seg->zero = true;
        seg->len = n;
    } else if (x.vram) {
        /* A VF's page goes through its backing ranges. */
        if (!vdxg_gpu_seg(s, vdxg_mmu_addr(&x, va), n, seg, err)) {
            err->addr = va;
            return false;
        }
    } else {
        seg->addr = vdxg_mmu_addr(&x, va);
        seg->len = n;
    }
    seg->fault_addr = va;
    return true;
}

/* Registers */

bool vdxg_vm_read(VdxgCore *s, hwaddr addr, uint32_t *val)
{
    VdxgMmu *m = &s->mmu;

    switch (addr) {
    case VDXG_REG_VM_TABLE_LO:
        *val = extract64(m->table, 0, 32);
        return true;
    case VDXG_REG_VM_TABLE_HI:
        *val = extract64(m->table, 32, 32);
        return true;
    case VDXG_REG_VM_TABLE_ENTRIES:
        *val = m->entries;
        return true;
    case VDXG_REG_VM_CTRL:
        *val = m->ctrl;
        return true;
    case VDXG_REG_VM_TLB_FLUSH:
        *val = 0;
        return true;
    case VDXG_REG_VM_SPACES:
        *val = s->vm_spaces;
        return true;
    case VDXG_REG_VM_RES_SELECT:
        *val = m->res_select;
        return true;
    case VDXG_REG_VM_RES_RESIDENT:
        *val = m->res_resident[m->res_select];
        return true;
    case VDXG_REG_VM_RES_EVICTED:
        *val = m->res_evicted[m->res_select];
        return true;
    case VDXG_REG_FAULT_VM:
        *val = m->fault_vm;
        return true;
    case VDXG_REG_FAULT_ACCESS:
        *val = m->fault_access;
        return true;
    }
    return false;
}

bool vdxg_vm_write(VdxgCore *s, hwaddr addr, uint32_t val)
{
    VdxgMmu *m = &s->mmu;
    uint64_t table;

    switch (addr) {
    case VDXG_REG_VM_TABLE_LO:
    case VDXG_REG_VM_TABLE_HI:
        table = deposit64(m->table, addr == VDXG_REG_VM_TABLE_HI ? 32 : 0,
                          32, val);
        if (!vdxg_vm_table_ok(s, table, m->entries)) {
            vdxg_guest_error("VM table not page aligned inside VRAM ignored",
                             addr, val);
            return true;
        }
        m->table = table;
        vdxg_vm_flush(s, -1, "VM_TABLE");
        return true;
    case VDXG_REG_VM_TABLE_ENTRIES:
        if (!vdxg_vm_table_ok(s, m->table, val)) {
            vdxg_guest_error("VM_TABLE_ENTRIES too large ignored",
                             addr, val);
            return true;
        }
        m->entries = val;
        vdxg_vm_flush(s, -1, "VM_TABLE_ENTRIES");
        return true;
    case VDXG_REG_VM_CTRL:
        if (val & ~VDXG_VM_CTRL_ENABLE) {
            vdxg_guest_error("undefined VM_CTRL bits dropped", addr, val);
        }
        m->ctrl = val & VDXG_VM_CTRL_ENABLE;
        vdxg_vm_flush(s, -1, "VM_CTRL");
        return true;
    case VDXG_REG_VM_TLB_FLUSH:
        if (val == VDXG_VM_FLUSH_ALL) {
            vdxg_vm_flush(s, -1, "VM_TLB_FLUSH");
        } else if (val < VDXG_VM_MAX_AS) {
            vdxg_vm_flush(s, val, "VM_TLB_FLUSH");
        } else {
            vdxg_guest_error("VM_TLB_FLUSH of no address space ignored",
                             addr, val);
        }
        return true;
    case VDXG_REG_VM_RES_SELECT:
        if (val >= VDXG_VM_MAX_AS) {
            vdxg_guest_error("VM_RES_SELECT past 255 ignored", addr, val);
            return true;
        }
        m->res_select = val;
        return true;
    case VDXG_REG_VM_SPACES:
    case VDXG_REG_VM_RES_RESIDENT:
    case VDXG_REG_VM_RES_EVICTED:
    case VDXG_REG_FAULT_VM:
    case VDXG_REG_FAULT_ACCESS:
        vdxg_guest_error("write to read-only register", addr, val);
        return true;
    }
    return false;
}

/* Statistics: the TLBs' hits and misses, all engines together */
static uint64_t vdxg_vm_tlb_stat(VdxgCore *s, bool hits)
{
    uint64_t n = 0;
    unsigned int i;

    for (i = 0; i < VDXG_NUM_ENGINES; i++) {
        n += hits ? s->mmu.tlb[i].hits : s->mmu.tlb[i].misses;
    }
    return n;
}

static void vdxg_vm_get_tlb_hits(Object *obj, Visitor *v, const char *name,
                                 void *opaque, Error **errp)
{
    uint64_t n = vdxg_vm_tlb_stat(opaque, true);

    visit_type_uint64(v, name, &n, errp);
}

static void vdxg_vm_get_tlb_misses(Object *obj, Visitor *v, const char *name,
                                   void *opaque, Error **errp)
{
    uint64_t n = vdxg_vm_tlb_stat(opaque, false);

    visit_type_uint64(v, name, &n, errp);
}

/* The MMU's statistics, on the PF and on each VF (vdxg_core_add_stats) */
void vdxg_vm_add_stats(VdxgCore *s, Object *obj)
{
    object_property_add(obj, "x-vm-tlb-hits", "uint64", vdxg_vm_get_tlb_hits,
                        NULL, NULL, s);
    object_property_add(obj, "x-vm-tlb-misses", "uint64",
                        vdxg_vm_get_tlb_misses, NULL, NULL, s);
}

/*
 * Migration, of the PF only (a VF is unmigratable): the registers and
 * counters; the TLBs start empty.
 */

static bool vdxg_vm_needed(void *opaque)
{
    VdxgState *pf = opaque;
    VdxgMmu *m = &pf->core.mmu;
    unsigned int i;

    if (m->table || m->entries || m->ctrl || m->res_select ||
        m->fault_vm || m->fault_access) {
        return true;
    }
    for (i = 0; i < VDXG_VM_MAX_AS; i++) {
        if (m->res_resident[i] || m->res_evicted[i]) {
            return true;
        }
    }
    return false;
}

static int vdxg_vm_post_load(void *opaque, int version_id)
{
    VdxgState *pf = opaque;
    VdxgCore *s = &pf->core;
    VdxgMmu *m = &s->mmu;

    if (!vdxg_vm_table_ok(s, m->table, m->entries) ||
        (m->ctrl & ~VDXG_VM_CTRL_ENABLE) ||
        m->res_select >= VDXG_VM_MAX_AS ||
        m->fault_vm >= VDXG_VM_MAX_AS ||
        m->fault_access > VDXG_ACCESS_FETCH ||
        ((m->fault_vm || m->fault_access) &&
         !(s->fault_status & VDXG_FAULT_STATUS_VALID))) {
        return -EINVAL;
    }
    vdxg_vm_flush(s, -1, "migration");
    return 0;
}

const VMStateDescription vmstate_vdxg_mmu = {
    .name = "vdxg/mmu",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = vdxg_vm_needed,
    .post_load = vdxg_vm_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_VDXG_CORE(mmu.table, vmstate_info_uint64, uint64_t),
        VMSTATE_VDXG_CORE(mmu.entries, vmstate_info_uint32, uint32_t),
        VMSTATE_VDXG_CORE(mmu.ctrl, vmstate_info_uint32, uint32_t),
        VMSTATE_VDXG_CORE(mmu.res_select, vmstate_info_uint32, uint32_t),
        VMSTATE_VDXG_CORE_ARRAY(mmu.res_resident, vmstate_info_uint32,
                                uint32_t, VDXG_VM_MAX_AS),
        VMSTATE_VDXG_CORE_ARRAY(mmu.res_evicted, vmstate_info_uint32,
                                uint32_t, VDXG_VM_MAX_AS),
        VMSTATE_VDXG_CORE(mmu.fault_vm, vmstate_info_uint32, uint32_t),
        VMSTATE_VDXG_CORE(mmu.fault_access, vmstate_info_uint32, uint32_t),
        VMSTATE_END_OF_LIST()
    },
};
