/*
 * vdxg: the PF's resizable VRAM BAR
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "qemu/host-utils.h"
#include "qemu/log.h"
#include "qemu/units.h"
#include "hw/pci/pcie.h"
#include "vdxg_int.h"
#include "hw/display/trace.h"

/* Resizable BAR */

/* Offered sizes in the REBAR capability's encoding: bit n is 2^n MiB. */
static uint32_t vdxg_rebar_sizes(VdxgState *s)
{
    uint32_t sizes = 0;
    uint64_t size;

    for (size = VDXG_VRAM_BAR_SIZE_MIN; size <= s->core.vram_size; size <<= 1) {
        sizes |= BIT(ctz64(size) - 20);
    }
    return sizes;
}

/*
 * Give the VRAM BAR @size bytes: the BAR's size and writable bits, and the
 * window onto VRAM. A mapped BAR is unmapped and mapped again at the
 * address its register holds (rounded to the new size).
 */
void vdxg_rebar_set(VdxgState *s, uint64_t size)
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
void vdxg_rebar_write(VdxgState *s)
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

/*
 * Migration: the incoming BAR size, before configuration space is loaded,
 * so that the BAR's writable bits match the incoming BAR register.
 */
bool vdxg_rebar_load(VdxgState *s, uint64_t size)
{
    if (!s->rebar_cap) {
        return size == s->vram_bar_size;
    }
    if (!is_power_of_2(size) || size < VDXG_VRAM_BAR_SIZE_MIN ||
        !(vdxg_rebar_sizes(s) & BIT_ULL(ctz64(size) - 20))) {
        return false;
    }
    vdxg_rebar_set(s, size);
    return true;
}

/*
 * The Resizable BAR capability at @offset in extended configuration space,
 * for the VRAM BAR at its present size.
 */
void vdxg_rebar_init(VdxgState *s, uint16_t offset)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    uint32_t ctrl;

    /* One resizable BAR: header, capability and control registers */
    pcie_add_capability(pdev, PCI_EXT_CAP_ID_REBAR, 1, offset, 12);
    s->rebar_cap = offset;
    pci_set_long(pdev->config + offset + PCI_REBAR_CAP,
                 vdxg_rebar_sizes(s) << 4);
    ctrl = VDXG_BAR_VRAM | (1 << PCI_REBAR_CTRL_NBAR_SHIFT) |
           (ctz64(s->vram_bar_size) - 20) << PCI_REBAR_CTRL_BAR_SHIFT;
    pci_set_long(pdev->config + offset + PCI_REBAR_CTRL, ctrl);
    pci_set_long(pdev->wmask + offset + PCI_REBAR_CTRL,
                 PCI_REBAR_CTRL_BAR_SIZE);
    s->core.caps |= VDXG_CAP_RESIZABLE_BAR;
}
