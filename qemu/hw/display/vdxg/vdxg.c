/*
 * vdxg: a virtual PCI Express GPU. This unit is the PF type: properties,
 * realize and exit, configuration space writes, reset and migration. The
 * register interface is hw/display/vdxg_hw.h; the units and what they
 * share are in vdxg_int.h.
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "qemu/cutils.h"
#include "qemu/host-utils.h"
#include "qemu/madvise.h"
#include "qemu/module.h"
#include "qemu/units.h"
#include "qapi/error.h"
#include "hw/pci/msi.h"
#include "hw/pci/msix.h"
#include "hw/pci/pcie.h"
#include "hw/pci/pci_bus.h"
#include "hw/pci/pcie_sriov.h"
#include "hw/qdev-properties.h"
#include "hw/resettable.h"
#include "migration/vmstate.h"
#include "vdxg_int.h"
#include "hw/display/trace.h"

/* Reset */

/* What a reset of the registers clears besides the core's */
static void vdxg_pf_reset_registers(VdxgCore *core)
{
    VdxgState *s = core->pf;

    vdxg_display_reset(s);
    vdxg_backing_reset(s);
}

static void vdxg_reset_hold(Object *obj, ResetType type)
{
    VdxgState *s = VDXG(obj);

    trace_vdxg_device_reset();
    vdxg_reset_registers(&s->core);
    s->core.reset_count = 0;
    vdxg_rebar_set(s, MIN(VDXG_VRAM_BAR_SIZE_DEFAULT, s->core.vram_size));
    vdxg_update_intx(&s->core);
}

/* MMIO: the core's registers, the display's and the SR-IOV block */

static uint64_t vdxg_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    VdxgState *s = opaque;
    uint32_t val = 0;

    if (!vdxg_core_read(&s->core, addr, &val) &&
        !vdxg_display_read(s, addr, &val) &&
        !vdxg_sriov_read(s, addr, &val)) {
        vdxg_unassigned(false, addr, 0);
    }
    trace_vdxg_mmio_read(addr, val);
    return val;
}

static void vdxg_mmio_write(void *opaque, hwaddr addr, uint64_t data,
                            unsigned size)
{
    VdxgState *s = opaque;
    uint32_t val = data;

    trace_vdxg_mmio_write(addr, val);
    if (!vdxg_core_write(&s->core, addr, val) &&
        !vdxg_display_write(s, addr, val) &&
        !vdxg_sriov_write(s, addr, val)) {
        vdxg_unassigned(true, addr, val);
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
    vdxg_update_intx(&s->core);
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

/*
 * The PF's extended capabilities: ARI and SR-IOV behind a PCI Express port
 * (creating the VFs), then Resizable BAR for the VRAM BAR.
 */
static bool vdxg_pf_ext_caps(VdxgState *s, Error **errp)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    PCIBus *bus = pci_get_bus(pdev);
    uint16_t next = PCI_CONFIG_SPACE_SIZE;

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
        s->core.caps |= VDXG_CAP_SRIOV;
    }

    if (!s->use_rebar) {
        return true;
    }
    vdxg_rebar_init(s, next);
    return true;
}

static void vdxg_realize(PCIDevice *pdev, Error **errp)
{
    VdxgState *s = VDXG(pdev);
    Error *err = NULL;
    int ret;

    if (!vdxg_check_size("vram-size", s->core.vram_size, VDXG_VRAM_SIZE_MIN,
                         VDXG_VRAM_SIZE_MAX, errp) ||
        !vdxg_check_size("aperture-size", s->core.aperture_size,
                         VDXG_APERTURE_SIZE_MIN, VDXG_APERTURE_SIZE_MAX,
                         errp)) {
        return;
    }
    if (s->outputs < 1 || s->outputs > VDXG_MAX_CRTCS) {
        error_setg(errp, "outputs must be from 1 to %d, not %" PRIu32,
                   VDXG_MAX_CRTCS, s->outputs);
        return;
    }
    if (s->core.vm_spaces < 2 || s->core.vm_spaces > VDXG_VM_MAX_AS) {
        error_setg(errp, "address-spaces must be from 2 to %d, not %" PRIu32,
                   VDXG_VM_MAX_AS, s->core.vm_spaces);
        return;
    }
    if (s->total_vfs > VDXG_SRIOV_MAX_VFS) {
        error_setg(errp, "total-vfs must be from 0 to %d, not %" PRIu32,
                   VDXG_SRIOV_MAX_VFS, s->total_vfs);
        return;
    }
    if (s->total_vfs &&
        (!vdxg_check_size("vf-vram-size", s->vf_vram_size,
                          VDXG_GPU_PAGE_SIZE, VDXG_VRAM_SIZE_MAX, errp) ||
         !vdxg_check_size("vf-aperture-size", s->vf_aperture_size,
                          VDXG_APERTURE_SIZE_MIN, VDXG_APERTURE_SIZE_MAX,
                          errp))) {
        return;
    }

    s->core.pdev = pdev;
    s->core.pf = s;
    s->core.reset = vdxg_pf_reset_registers;
    s->core.num_crtcs = s->outputs;
    s->core.caps = VDXG_CAP_SELFTEST | VDXG_CAP_RENDER | VDXG_CAP_PAGING |
                   VDXG_CAP_3D |
                   VDXG_CAP_GART | VDXG_CAP_DISPLAY | VDXG_CAP_CRC |
                   VDXG_CAP_WRITEBACK | VDXG_CAP_GPU_MMU;
    s->core.gart_entries = s->core.aperture_size >> VDXG_GPU_PAGE_SHIFT;
    pci_config_set_interrupt_pin(pdev->config, 1);

    if (!pci_bus_is_express(pci_get_bus(pdev))) {
        error_setg(errp, "vdxg is a PCI Express device: put it on a PCI "
                   "Express bus (e.g. q35's pcie.0 or a pcie-root-port)");
        return;
    }
    ret = pcie_endpoint_cap_init(pdev, VDXG_PCIE_CAP_OFFSET);
    if (ret < 0) {
        error_setg_errno(errp, -ret, "cannot add the PCI Express capability");
        return;
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
            s->core.caps |= VDXG_CAP_MSIX;
        }
    }

    memory_region_init_io(&s->core.mmio, OBJECT(s), &vdxg_mmio_ops, s,
                          "vdxg.mmio", VDXG_MMIO_SIZE);
    pci_register_bar(pdev, VDXG_BAR_MMIO, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->core.mmio);

    if (!memory_region_init_ram(&s->vram, OBJECT(s), "vdxg.vram",
                                s->core.vram_size, errp)) {
        msix_uninit_exclusive_bar(pdev);
        msi_uninit(pdev);
        return;
    }
    s->core.vram_ptr = memory_region_get_ram_ptr(&s->vram);
    s->core.vram_mr = &s->vram;
    /*
     * VRAM on small pages. QEMU asks for transparent huge pages for every
     * RAM block, and the first write to one allocates and clears all of
     * its 2 MiB in one page fault: when an engine, a composition or a
     * capture touches fresh VRAM, that takes milliseconds of a slice that
     * only looks at the clock between its pieces of work. A small page's
     * fault fits between two looks. TCG's softmmu TLB maps guest pages of
     * 4 KiB anyway, so the guest loses little speed.
     */
    qemu_madvise(s->core.vram_ptr, s->core.vram_size, QEMU_MADV_NOHUGEPAGE);
    /* A resizable window onto the start of VRAM */
    s->vram_bar_size = MIN(VDXG_VRAM_BAR_SIZE_DEFAULT, s->core.vram_size);
    memory_region_init_alias(&s->vram_bar, OBJECT(s), "vdxg.vram-bar",
                             &s->vram, 0, s->vram_bar_size);
    pci_register_bar(pdev, VDXG_BAR_VRAM,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH,
                     &s->vram_bar);

    vdxg_engines_init(&s->core);
    vdxg_display_realize(s);

    /* Last: the VFs are realized here and use what is set up above. */
    if (!vdxg_pf_ext_caps(s, errp)) {
        vdxg_display_exit(s);
        vdxg_engines_exit(&s->core);
        msix_uninit_exclusive_bar(pdev);
        msi_uninit(pdev);
        return;
    }

    trace_vdxg_realize(s->core.vram_size, s->core.aperture_size, s->core.caps);
}

static void vdxg_exit(PCIDevice *pdev)
{
    VdxgState *s = VDXG(pdev);

    if (s->has_sriov) {
        pcie_sriov_pf_exit(pdev);
    }
    vdxg_display_exit(s);
    vdxg_engines_exit(&s->core);
    msix_uninit_exclusive_bar(pdev);
    msi_uninit(pdev);
}

static void vdxg_instance_init(Object *obj)
{
    VdxgState *s = VDXG(obj);
    unsigned int op;

    /* Engine statistics, e.g. qom-get of x-pg-discard-ops */
    vdxg_core_add_stats(&s->core, obj);

    /* Display: hotplug of each output, statistics */
    for (op = 0; op < VDXG_MAX_CRTCS; op++) {
        g_autofree char *name = g_strdup_printf("connected%u", op);

        s->connected[op] = true;
        object_property_add(obj, name, "bool", vdxg_get_connected,
                            vdxg_set_connected, NULL, &s->connected[op]);
        object_property_set_description(obj, name,
            "A monitor is connected to this output (hotplug when changed)");
        g_free(name);
        name = g_strdup_printf("link-bad%u", op);
        object_property_add(obj, name, "bool", vdxg_get_link_bad,
                            vdxg_set_link_bad, NULL, &s->link_bad_prop[op]);
        object_property_set_description(obj, name,
            "The link to the monitor failed (set true to fail it; the "
            "driver's next enable of the CRTC trains it again)");
    }
    object_property_add_uint64_ptr(obj, "x-disp-composes", &s->disp_composes,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "x-disp-crcs", &s->disp_crcs,
                                   OBJ_PROP_FLAG_READ);
    /* Debug: the longest main-loop hold of the device's work, 0 resets */
    object_property_add_uint64_ptr(obj, "x-max-slice-ns", &s->max_slice_ns,
                                   OBJ_PROP_FLAG_READWRITE);
    object_property_add_uint64_ptr(obj, "x-max-slice-cpu-ns",
                                   &s->max_slice_cpu_ns,
                                   OBJ_PROP_FLAG_READWRITE);
    object_property_add_uint64_ptr(obj, "x-next-slice-cpu-ns",
                                   &s->next_slice_cpu_ns,
                                   OBJ_PROP_FLAG_READWRITE);
    /* Debug: the passes of the engines' scheduler, 0 resets */
    object_property_add_uint64_ptr(obj, "x-passes", &s->passes,
                                   OBJ_PROP_FLAG_READWRITE);
    object_property_add_uint64_ptr(obj, "x-max-pass-ns", &s->max_pass_ns,
                                   OBJ_PROP_FLAG_READWRITE);
    object_property_add_uint64_ptr(obj, "x-max-pass-cpu-ns",
                                   &s->max_pass_cpu_ns,
                                   OBJ_PROP_FLAG_READWRITE);
    object_property_add_uint64_ptr(obj, "x-next-pass-cpu-ns",
                                   &s->next_pass_cpu_ns,
                                   OBJ_PROP_FLAG_READWRITE);
    s->pass_limit_ns = VDXG_PASS_NS * 3 / 2;
    object_property_add_uint64_ptr(obj, "x-pass-limit-ns", &s->pass_limit_ns,
                                   OBJ_PROP_FLAG_READWRITE);
    object_property_add_uint64_ptr(obj, "x-passes-over", &s->passes_over,
                                   OBJ_PROP_FLAG_READWRITE);
    object_property_add_uint64_ptr(obj, "x-late-quanta", &s->late_quanta,
                                   OBJ_PROP_FLAG_READWRITE);
    object_property_add_uint64_ptr(obj, "x-pass-gaps", &s->pass_gaps,
                                   OBJ_PROP_FLAG_READWRITE);
    /* For tests: hold a writeback capture under way */
    vdxg_wb_add_props(s, obj);
}

static int vdxg_pre_save(void *opaque)
{
    VdxgState *s = opaque;

    s->mig_vram_bar_size = s->vram_bar_size;
    return 0;
}

/* The VRAM BAR takes the incoming size before config space is loaded. */
static bool vdxg_vram_bar_size_ok(void *opaque, int version_id)
{
    VdxgState *s = opaque;

    return vdxg_rebar_load(s, s->mig_vram_bar_size);
}

static int vdxg_post_load(void *opaque, int version_id)
{
    VdxgState *s = opaque;

    if (!vdxg_core_post_load(&s->core) || !vdxg_display_post_load(s)) {
        return -EINVAL;
    }
    /* The REBAR control register and the BAR agree. */
    if (s->rebar_cap) {
        uint32_t ctrl = pci_get_long(s->parent_obj.config + s->rebar_cap +
                                     PCI_REBAR_CTRL);

        if (extract32(ctrl, PCI_REBAR_CTRL_BAR_SHIFT, 5) !=
            ctz64(s->vram_bar_size) - 20) {
            return -EINVAL;
        }
    }
    return 0;
}

/*
 * Nothing has been released: version 1. The state of an entry in progress
 * is in the engines' subsections.
 */
static const VMStateDescription vmstate_vdxg = {
    .name = TYPE_VDXG,
    .version_id = 1,
    .minimum_version_id = 1,
    .pre_save = vdxg_pre_save,
    .post_load = vdxg_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(mig_vram_bar_size, VdxgState),
        VMSTATE_VALIDATE("vram BAR size", vdxg_vram_bar_size_ok),
        VMSTATE_PCI_DEVICE(parent_obj, VdxgState),
        VMSTATE_MSIX(parent_obj, VdxgState),
        VMSTATE_VDXG_CORE(scratch, vmstate_info_uint32, uint32_t),
        VMSTATE_VDXG_CORE(reset_count, vmstate_info_uint32, uint32_t),
        VMSTATE_VDXG_CORE(int_status, vmstate_info_uint32, uint32_t),
        VMSTATE_VDXG_CORE(int_mask, vmstate_info_uint32, uint32_t),
        VMSTATE_VDXG_CORE_STRUCT_ARRAY(engine, VDXG_NUM_ENGINES, 1,
                                       vmstate_vdxg_engine, VdxgEngine),
        VMSTATE_VDXG_CORE(gart_table, vmstate_info_uint64, uint64_t),
        VMSTATE_VDXG_CORE(gart_ctrl, vmstate_info_uint32, uint32_t),
        VMSTATE_VDXG_CORE(dummy_page, vmstate_info_uint64, uint64_t),
        VMSTATE_VDXG_CORE(tlb_valid, vmstate_info_uint64, uint64_t),
        VMSTATE_VDXG_CORE_ARRAY(tlb_page, vmstate_info_uint32, uint32_t,
                                VDXG_TLB_ENTRIES),
        VMSTATE_VDXG_CORE_ARRAY(tlb_pte, vmstate_info_uint64, uint64_t,
                                VDXG_TLB_ENTRIES),
        VMSTATE_VDXG_CORE(fault_status, vmstate_info_uint32, uint32_t),
        VMSTATE_VDXG_CORE(fault_engine, vmstate_info_uint32, uint32_t),
        VMSTATE_VDXG_CORE(fault_reason, vmstate_info_uint32, uint32_t),
        VMSTATE_VDXG_CORE(fault_opcode, vmstate_info_uint32, uint32_t),
        VMSTATE_VDXG_CORE(fault_addr, vmstate_info_uint64, uint64_t),
        VMSTATE_VDXG_CORE(fault_context, vmstate_info_uint32, uint32_t),
        VMSTATE_VDXG_CORE(fault_count, vmstate_info_uint32, uint32_t),
        VMSTATE_STRUCT_ARRAY(crtc, VdxgState, VDXG_MAX_CRTCS, 1,
                             vmstate_vdxg_crtc, VdxgCrtc),
        VMSTATE_STRUCT(wb, VdxgState, 1, vmstate_vdxg_wb, VdxgWriteback),
        VMSTATE_BOOL_ARRAY(connected, VdxgState, VDXG_MAX_CRTCS),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * const []) {
        &vmstate_vdxg_mmu,
        NULL
    },
};

static const Property vdxg_properties[] = {
    DEFINE_PROP_SIZE("vram-size", VdxgState, core.vram_size,
                     VDXG_VRAM_SIZE_DEFAULT),
    DEFINE_PROP_SIZE("aperture-size", VdxgState, core.aperture_size,
                     VDXG_APERTURE_SIZE_DEFAULT),
    DEFINE_PROP_BOOL("msix", VdxgState, use_msix, true),
    DEFINE_PROP_BOOL("msi", VdxgState, use_msi, true),
    DEFINE_PROP_BOOL("rebar", VdxgState, use_rebar, true),
    DEFINE_PROP_UINT32("outputs", VdxgState, outputs, 1),
    DEFINE_PROP_UINT32("address-spaces", VdxgState, core.vm_spaces,
                       VDXG_VM_MAX_AS),
    DEFINE_PROP_UINT32("total-vfs", VdxgState, total_vfs,
                       VDXG_SRIOV_TOTAL_VFS_DEFAULT),
    DEFINE_PROP_SIZE("vf-vram-size", VdxgState, vf_vram_size,
                     VDXG_VF_VRAM_SIZE_DEFAULT),
    DEFINE_PROP_SIZE("vf-aperture-size", VdxgState, vf_aperture_size,
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
    object_class_property_set_description(klass, "vram-size",
        "VRAM (BAR 2) size, a power of two from 16 MiB to 4 GiB");
    object_class_property_set_description(klass, "aperture-size",
        "GART aperture size, a power of two from 1 MiB to 4 GiB");
    object_class_property_set_description(klass, "msix",
        "Offer MSI-X, one vector per interrupt group");
    object_class_property_set_description(klass, "msi",
        "Offer MSI with a single vector");
    object_class_property_set_description(klass, "outputs",
        "Display pipes (CRTCs), each with a connector: 1 to 4");
    object_class_property_set_description(klass, "total-vfs",
        "SR-IOV virtual functions offered behind a PCI Express port "
        "(0 to 16, 0: no SR-IOV)");
    object_class_property_set_description(klass, "vf-vram-size",
        "Each VF's VRAM BAR size, a power of two");
    object_class_property_set_description(klass, "vf-aperture-size",
        "Each VF's GART aperture size, a power of two from 1 MiB to 4 GiB");
    set_bit(DEVICE_CATEGORY_DISPLAY, dc->categories);
}

static const TypeInfo vdxg_type_info = {
    .name = TYPE_VDXG,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(VdxgState),
    .instance_init = vdxg_instance_init,
    .class_init = vdxg_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { },
    },
};

static void vdxg_register_types(void)
{
    type_register_static(&vdxg_type_info);
}

type_init(vdxg_register_types)
