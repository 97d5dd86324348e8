/*
 * vdxg: a virtual PCI Express GPU
 *
 * The register interface is defined in hw/display/vdxg_hw.h, a macro-only
 * header shared with the Linux driver. This model implements the global
 * and interrupt register blocks, the VRAM BAR and interrupt delivery over
 * MSI-X, MSI or INTx. The engine, GART, fault, display and SR-IOV blocks
 * read as zero and ignore writes until they are implemented.
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "qemu/cutils.h"
#include "qemu/host-utils.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qapi/error.h"
#include "hw/pci/msi.h"
#include "hw/pci/msix.h"
#include "hw/pci/pci_device.h"
#include "hw/pci/pcie.h"
#include "hw/qdev-properties.h"
#include "hw/resettable.h"
#include "migration/vmstate.h"
#include "qom/object.h"
#include "hw/display/vdxg_hw.h"
#include "trace.h"

#define TYPE_VDXG "vdxg"
OBJECT_DECLARE_SIMPLE_TYPE(VdxgState, VDXG)

/* Where the PCI Express capability lives in configuration space. */
#define VDXG_PCIE_CAP_OFFSET    0x80

/* Limits of the aperture_size property. */
#define VDXG_APERTURE_SIZE_MIN  (1ull << 20)
#define VDXG_APERTURE_SIZE_MAX  (4ull << 30)

struct VdxgState {
    PCIDevice parent_obj;

    MemoryRegion mmio;
    MemoryRegion vram;

    /* Properties */
    uint64_t vram_size;
    uint64_t aperture_size;
    bool use_msix;
    bool use_msi;

    /* VDXG_REG_CAPS, fixed at realize */
    uint32_t caps;

    /* Register state */
    uint32_t scratch;
    uint32_t reset_count;
    uint32_t int_status;
    uint32_t int_mask;
};

/* Interrupt sources signalled on each MSI-X vector. */
static const uint32_t vdxg_msix_vector_sources[VDXG_MSIX_VECTORS] = {
    [VDXG_MSIX_VEC_MISC]    = VDXG_INT_MISC_MASK,
    [VDXG_MSIX_VEC_RENDER]  = VDXG_INT_RENDER_FENCE,
    [VDXG_MSIX_VEC_PAGING]  = VDXG_INT_PAGING_FENCE,
    [VDXG_MSIX_VEC_DISPLAY] = VDXG_INT_DISPLAY_MASK,
};

static const char *vdxg_reg_name(hwaddr addr)
{
    switch (addr) {
    case VDXG_REG_ID:
        return "ID";
    case VDXG_REG_VERSION:
        return "VERSION";
    case VDXG_REG_CAPS:
        return "CAPS";
    case VDXG_REG_VRAM_SIZE_LO:
        return "VRAM_SIZE_LO";
    case VDXG_REG_VRAM_SIZE_HI:
        return "VRAM_SIZE_HI";
    case VDXG_REG_APERTURE_BASE_LO:
        return "APERTURE_BASE_LO";
    case VDXG_REG_APERTURE_BASE_HI:
        return "APERTURE_BASE_HI";
    case VDXG_REG_APERTURE_SIZE_LO:
        return "APERTURE_SIZE_LO";
    case VDXG_REG_APERTURE_SIZE_HI:
        return "APERTURE_SIZE_HI";
    case VDXG_REG_ENGINES:
        return "ENGINES";
    case VDXG_REG_NUM_CRTCS:
        return "NUM_CRTCS";
    case VDXG_REG_RESET:
        return "RESET";
    case VDXG_REG_STATUS:
        return "STATUS";
    case VDXG_REG_SCRATCH:
        return "SCRATCH";
    case VDXG_REG_RESET_COUNT:
        return "RESET_COUNT";
    case VDXG_REG_INT_STATUS:
        return "INT_STATUS";
    case VDXG_REG_INT_MASK:
        return "INT_MASK";
    case VDXG_REG_INT_ACK:
        return "INT_ACK";
    case VDXG_REG_INT_TRIGGER:
        return "INT_TRIGGER";
    default:
        return NULL;
    }
}

/*
 * Register blocks that the contract defines but this model does not
 * implement yet. Accesses to them read as zero and are logged as
 * unimplemented rather than as guest errors.
 */
static const char *vdxg_unimplemented_block(hwaddr addr)
{
    if (addr >= VDXG_ENGINE_BASE(0) &&
        addr < VDXG_ENGINE_BASE(VDXG_NUM_ENGINES)) {
        return "engine";
    }
    if (addr >= VDXG_REG_GART_TABLE_LO && addr <= VDXG_REG_TLB_FLUSH) {
        return "GART";
    }
    if (addr >= VDXG_REG_FAULT_STATUS && addr <= VDXG_REG_FAULT_CLEAR) {
        return "fault";
    }
    if (addr >= VDXG_CRTC_BASE(0) && addr < VDXG_CRTC_BASE(VDXG_MAX_CRTCS)) {
        return "display";
    }
    if (addr >= VDXG_REG_WB_CTRL && addr <= VDXG_REG_WB_SEQNO) {
        return "writeback";
    }
    if (addr >= VDXG_REG_BACKING_SELECT && addr <= VDXG_REG_BACKING_COMMIT) {
        return "backing";
    }
    return NULL;
}

/* Interrupts */

/* INTx is used only while neither MSI-X nor MSI is enabled. */
static void vdxg_update_intx(VdxgState *s)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    bool level = !msix_enabled(pdev) && !msi_enabled(pdev) &&
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
        } else if (msi_enabled(pdev)) {
            trace_vdxg_irq_msi(fired);
            msi_notify(pdev, 0);
        }
    }
    vdxg_update_intx(s);
}

static void vdxg_irq_raise(VdxgState *s, uint32_t sources)
{
    uint32_t old_pending = s->int_status & s->int_mask;

    s->int_status |= sources & VDXG_INT_VALID_MASK;
    trace_vdxg_irq_raise(sources, s->int_status, s->int_mask);
    vdxg_irq_update(s, old_pending);
}

/* Reset */

/* Put the register state to its power-on values, except RESET_COUNT. */
static void vdxg_reset_registers(VdxgState *s)
{
    s->scratch = 0;
    s->int_status = 0;
    s->int_mask = 0;
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

    if (msix_present(pdev)) {
        for (vector = 0; vector < VDXG_MSIX_VECTORS; vector++) {
            msix_clr_pending(pdev, vector);
        }
    }
    vdxg_update_intx(s);
}

static void vdxg_reset_hold(Object *obj, ResetType type)
{
    VdxgState *s = VDXG(obj);

    trace_vdxg_device_reset();
    vdxg_reset_registers(s);
    s->reset_count = 0;
    vdxg_update_intx(s);
}

/* Register access */

static void vdxg_guest_error(const char *what, hwaddr addr, uint32_t val)
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
    const char *block = vdxg_unimplemented_block(addr);

    if (block) {
        qemu_log_mask(LOG_UNIMP, "vdxg: %s unimplemented %s register "
                      "0x%04" HWADDR_PRIx ", value 0x%08" PRIx32 "\n",
                      is_write ? "write to" : "read of", block, addr, val);
        trace_vdxg_unimplemented(is_write, addr, val);
    } else if (is_write) {
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
    case VDXG_REG_NUM_CRTCS:
        /* No engine and no display pipe is implemented yet. */
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
    case VDXG_REG_INT_STATUS:
        val = s->int_status;
        break;
    case VDXG_REG_INT_MASK:
        val = s->int_mask;
        break;
    case VDXG_REG_RESET:
    case VDXG_REG_INT_ACK:
    case VDXG_REG_INT_TRIGGER:
        /* Write-only registers read as zero. */
        break;
    default:
        vdxg_unassigned(false, addr, 0);
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
    case VDXG_REG_INT_STATUS:
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
    default:
        vdxg_unassigned(true, addr, val);
        break;
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
    pci_default_write_config(pdev, addr, val, len);
    /* Enabling or disabling MSI or MSI-X moves the interrupt off or to INTx */
    vdxg_update_intx(VDXG(pdev));
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

static void vdxg_realize(PCIDevice *pdev, Error **errp)
{
    VdxgState *s = VDXG(pdev);
    Error *err = NULL;
    int ret;

    if (!vdxg_check_size("vram_size", s->vram_size, VDXG_VRAM_SIZE_MIN,
                         VDXG_VRAM_SIZE_MAX, errp) ||
        !vdxg_check_size("aperture_size", s->aperture_size,
                         VDXG_APERTURE_SIZE_MIN, VDXG_APERTURE_SIZE_MAX,
                         errp)) {
        return;
    }

    s->caps = VDXG_CAP_SELFTEST;
    pci_config_set_interrupt_pin(pdev->config, 1);

    if (pci_bus_is_express(pci_get_bus(pdev))) {
        ret = pcie_endpoint_cap_init(pdev, VDXG_PCIE_CAP_OFFSET);
        if (ret < 0) {
            error_setg_errno(errp, -ret,
                             "cannot add the PCI Express capability");
            return;
        }
    } else {
        pdev->cap_present &= ~QEMU_PCI_CAP_EXPRESS;
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
            s->caps |= VDXG_CAP_MSIX;
        }
    }

    memory_region_init_io(&s->mmio, OBJECT(s), &vdxg_mmio_ops, s,
                          "vdxg.mmio", VDXG_MMIO_SIZE);
    pci_register_bar(pdev, VDXG_BAR_MMIO, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->mmio);

    if (!memory_region_init_ram(&s->vram, OBJECT(s), "vdxg.vram",
                                s->vram_size, errp)) {
        msix_uninit_exclusive_bar(pdev);
        msi_uninit(pdev);
        return;
    }
    pci_register_bar(pdev, VDXG_BAR_VRAM,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH,
                     &s->vram);

    trace_vdxg_realize(s->vram_size, s->aperture_size, s->caps);
}

static void vdxg_exit(PCIDevice *pdev)
{
    msix_uninit_exclusive_bar(pdev);
    msi_uninit(pdev);
}

static void vdxg_instance_init(Object *obj)
{
    PCIDevice *pdev = PCI_DEVICE(obj);

    /* Hybrid device: realize drops this when not on a PCI Express bus. */
    pdev->cap_present |= QEMU_PCI_CAP_EXPRESS;
}

static int vdxg_post_load(void *opaque, int version_id)
{
    VdxgState *s = opaque;

    if ((s->int_status | s->int_mask) & ~VDXG_INT_VALID_MASK) {
        return -EINVAL;
    }
    return 0;
}

static const VMStateDescription vmstate_vdxg = {
    .name = TYPE_VDXG,
    .version_id = 1,
    .minimum_version_id = 1,
    .post_load = vdxg_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_PCI_DEVICE(parent_obj, VdxgState),
        VMSTATE_MSIX(parent_obj, VdxgState),
        VMSTATE_UINT32(scratch, VdxgState),
        VMSTATE_UINT32(reset_count, VdxgState),
        VMSTATE_UINT32(int_status, VdxgState),
        VMSTATE_UINT32(int_mask, VdxgState),
        VMSTATE_END_OF_LIST()
    },
};

static const Property vdxg_properties[] = {
    DEFINE_PROP_SIZE("vram_size", VdxgState, vram_size,
                     VDXG_VRAM_SIZE_DEFAULT),
    DEFINE_PROP_SIZE("aperture_size", VdxgState, aperture_size,
                     VDXG_APERTURE_SIZE_DEFAULT),
    DEFINE_PROP_BOOL("msix", VdxgState, use_msix, true),
    DEFINE_PROP_BOOL("msi", VdxgState, use_msi, true),
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
    object_class_property_set_description(klass, "vram_size",
        "VRAM (BAR 2) size, a power of two from 16 MiB to 4 GiB");
    object_class_property_set_description(klass, "aperture_size",
        "GART aperture size, a power of two from 1 MiB to 4 GiB");
    object_class_property_set_description(klass, "msix",
        "Offer MSI-X, one vector per interrupt group");
    object_class_property_set_description(klass, "msi",
        "Offer MSI with a single vector");
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
        { INTERFACE_CONVENTIONAL_PCI_DEVICE },
        { },
    },
};

static void vdxg_register_types(void)
{
    type_register_static(&vdxg_type_info);
}

type_init(vdxg_register_types)
