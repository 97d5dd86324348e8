/*
 * vdxg: the PF's backing tables for its VFs' VRAM BARs
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "hw/pci/pcie_sriov.h"
#include "vdxg_int.h"
#include "hw/display/trace.h"

/* SR-IOV */

/*
 * Enabled VF @index of PF @pf, or NULL; a VF lays its BAR out again when
 * it is enabled (its reset).
 */
static VdxgVfState *vdxg_vf(VdxgState *pf, uint32_t index)
{
    PCIDevice *vf;

    if (!pf->has_sriov) {
        return NULL;
    }
    vf = pcie_sriov_get_vf_at_index(PCI_DEVICE(pf), index);
    return vf ? VDXG_VF(vf) : NULL;
}

/*
 * Lay a VF's VRAM BAR out from its applied backing table: one alias of PF
 * VRAM per range, end to end; the rest is the unbacked background.
 */
void vdxg_vf_map_backing(VdxgVfState *vf)
{
    VdxgState *pf = vf->core.pf;
    const VdxgRange *r = pf->backing[vf->core.vf_index];
    uint32_t n = pf->backing_n[vf->core.vf_index];
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
    VdxgVfState *v = vdxg_vf(s, vf);

    if (v) {
        vdxg_vf_map_backing(v);
    }
}

/* Clear every backing table, pending and applied (a reset of the PF). */
void vdxg_backing_reset(VdxgState *s)
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
        } else if (!vdxg_in_window(r[n].off, r[n].len, 0, s->core.vram_size)) {
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

bool vdxg_sriov_read(VdxgState *s, hwaddr addr, uint32_t *val)
{
    VdxgRange *e;

    if (addr < VDXG_REG_BACKING_SELECT ||
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

bool vdxg_sriov_write(VdxgState *s, hwaddr addr, uint32_t val)
{
    VdxgRange *e;

    if (addr < VDXG_REG_BACKING_SELECT ||
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
