/*
 * vdxg: the SR-IOV virtual function type, vdxg-vf
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/module.h"
#include "qapi/error.h"
#include "hw/pci/msix.h"
#include "hw/pci/pcie.h"
#include "hw/pci/pcie_sriov.h"
#include "hw/resettable.h"
#include "migration/vmstate.h"
#include "vdxg_int.h"
#include "hw/display/trace.h"

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

/* MMIO: the core's registers only */

static uint64_t vdxg_vf_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    VdxgVfState *vf = opaque;
    uint32_t val = 0;

    if (!vdxg_core_read(&vf->core, addr, &val)) {
        vdxg_unassigned(false, addr, 0);
    }
    trace_vdxg_mmio_read(addr, val);
    return val;
}

static void vdxg_vf_mmio_write(void *opaque, hwaddr addr, uint64_t data,
                               unsigned size)
{
    VdxgVfState *vf = opaque;
    uint32_t val = data;

    trace_vdxg_mmio_write(addr, val);
    if (!vdxg_core_write(&vf->core, addr, val)) {
        vdxg_unassigned(true, addr, val);
    }
}

static const MemoryRegionOps vdxg_vf_mmio_ops = {
    .read = vdxg_vf_mmio_read,
    .write = vdxg_vf_mmio_write,
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

/* A reset, also when the VF is enabled: lay its BAR out from the table. */
static void vdxg_vf_reset_hold(Object *obj, ResetType type)
{
    VdxgVfState *vf = VDXG_VF(obj);

    trace_vdxg_device_reset();
    vdxg_reset_registers(&vf->core);
    vf->core.reset_count = 0;
    vdxg_vf_map_backing(vf);
}

/*
 * A virtual function, created by the PF's realize: registers, engines,
 * GART and MSI-X of its own, VRAM through the PF's backing table.
 */
static void vdxg_vf_realize(PCIDevice *pdev, Error **errp)
{
    VdxgVfState *vf = VDXG_VF(pdev);
    VdxgCore *s = &vf->core;
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
    s->pdev = pdev;
    s->pf = pf;
    s->vf = true;
    s->vf_index = pcie_sriov_vf_number(pdev);
    s->function = 1 + s->vf_index;
    s->vram_size = pf->vf_vram_size;
    s->aperture_size = pf->vf_aperture_size;
    s->vm_spaces = pf->core.vm_spaces;
    s->caps = VDXG_CAP_MSIX | VDXG_CAP_SELFTEST | VDXG_CAP_RENDER |
              VDXG_CAP_3D |
              VDXG_CAP_PAGING | VDXG_CAP_GART | VDXG_CAP_GPU_MMU;
    s->gart_entries = s->aperture_size >> VDXG_GPU_PAGE_SHIFT;
    s->vram_ptr = pf->core.vram_ptr;
    s->vram_mr = &pf->vram;

    ret = pcie_endpoint_cap_init(pdev, VDXG_PCIE_CAP_OFFSET);
    if (ret < 0) {
        error_setg_errno(errp, -ret, "cannot add the PCI Express capability");
        return;
    }

    memory_region_init_io(&s->mmio, OBJECT(vf), &vdxg_vf_mmio_ops, vf,
                          "vdxg-vf.mmio", VDXG_MMIO_SIZE);
    pcie_sriov_vf_register_bar(pdev, VDXG_BAR_MMIO, &s->mmio);

    memory_region_init(&vf->vf_vram, OBJECT(vf), "vdxg-vf.vram",
                       s->vram_size);
    memory_region_init_io(&vf->vf_unbacked, OBJECT(vf), &vdxg_unbacked_ops,
                          vf, "vdxg-vf.unbacked", s->vram_size);
    memory_region_add_subregion_overlap(&vf->vf_vram, 0, &vf->vf_unbacked,
                                        0);
    for (i = 0; i < VDXG_MAX_BACKING_RANGES; i++) {
        memory_region_init_alias(&vf->vf_alias[i], OBJECT(vf),
                                 "vdxg-vf.vram-range", &pf->vram, 0,
                                 VDXG_GPU_PAGE_SIZE);
        memory_region_set_enabled(&vf->vf_alias[i], false);
        memory_region_add_subregion_overlap(&vf->vf_vram, 0, &vf->vf_alias[i],
                                            1);
    }
    vdxg_vf_map_backing(vf);
    pcie_sriov_vf_register_bar(pdev, VDXG_BAR_VRAM, &vf->vf_vram);

    memory_region_init(&vf->vf_msix, OBJECT(vf), "vdxg-vf.msix",
                       VDXG_VF_MSIX_BAR_SIZE);
    pcie_sriov_vf_register_bar(pdev, VDXG_BAR_MSIX, &vf->vf_msix);
    ret = msix_init(pdev, VDXG_MSIX_VECTORS, &vf->vf_msix, VDXG_BAR_MSIX, 0,
                    &vf->vf_msix, VDXG_BAR_MSIX, VDXG_VF_MSIX_PBA, 0, errp);
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
    VdxgVfState *vf = VDXG_VF(pdev);

    vdxg_engines_exit(&vf->core);
    msix_unuse_all_vectors(pdev);
    msix_uninit(pdev, &vf->vf_msix, &vf->vf_msix);
}

/* The VF's engine statistics, e.g. qom-get of x-rd-pixels */
static void vdxg_vf_instance_init(Object *obj)
{
    VdxgVfState *vf = VDXG_VF(obj);

    vdxg_core_add_stats(&vf->core, obj);
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
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    k->realize = vdxg_vf_realize;
    k->exit = vdxg_vf_exit;
    k->vendor_id = VDXG_PCI_VENDOR_ID;
    k->device_id = VDXG_PCI_VF_DEVICE_ID;
    k->revision = VDXG_PCI_REVISION;
    k->class_id = PCI_CLASS_DISPLAY_OTHER;

    rc->phases.hold = vdxg_vf_reset_hold;

    dc->desc = "vdxg virtual GPU, SR-IOV virtual function";
    dc->vmsd = &vmstate_vdxg_vf;
    dc->user_creatable = false;
    set_bit(DEVICE_CATEGORY_DISPLAY, dc->categories);
}

static const TypeInfo vdxg_vf_type_info = {
    .name = TYPE_VDXG_VF,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(VdxgVfState),
    .instance_init = vdxg_vf_instance_init,
    .class_init = vdxg_vf_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { },
    },
};

static void vdxg_vf_register_types(void)
{
    type_register_static(&vdxg_vf_type_info);
}

type_init(vdxg_vf_register_types)
