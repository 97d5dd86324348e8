// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/module.h>
#include <linux/pci.h>

#include <drm/drm_atomic_helper.h>
#include <drm/drm_client_setup.h>
#include <drm/drm_drv.h>
#include <drm/drm_fbdev_ttm.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_module.h>
#include <drm/drm_print.h>
#include <drm/vdxg_drm.h>

#include "vdxg_bo.h"
#include "vdxg_drv.h"

/**
 * DOC: vdxg
 *
 * vdxg drives the vdxg virtual PCI Express GPU and ports the Windows
 * display-driver model (WDDM) for memory and submission to DRM: paging
 * buffers on a copy engine move allocations between VRAM, an aperture and
 * system memory, and user command buffers are copied, validated and
 * patched with the allocations' current addresses before they run.
 *
 * docs/hardware.md and vdxg_hw.h describe the device; this file binds the
 * PCI function and registers the DRM device. Probe takes the device's
 * resources in the order of their stated options (see "Resource
 * descriptors"), proves the interrupt works with a self-test, and only
 * then registers the primary and render nodes. Remove unplugs the DRM
 * device first, so open files see -ENODEV rather than a vanished device.
 * The same driver binds SR-IOV virtual functions (see "SR-IOV"), which
 * have no display and become render-only devices.
 */

#define VDXG_IOCTL(name, func) \
	DRM_IOCTL_DEF_DRV(VDXG_##name, func, DRM_RENDER_ALLOW)

static const struct drm_ioctl_desc vdxg_ioctls[] = {
	VDXG_IOCTL(GET_PARAM, vdxg_ioctl_get_param),
	VDXG_IOCTL(GEM_CREATE, vdxg_gem_create_ioctl),
	VDXG_IOCTL(GEM_MMAP_OFFSET, vdxg_gem_mmap_offset_ioctl),
	VDXG_IOCTL(GEM_WAIT, vdxg_gem_wait_ioctl),
	VDXG_IOCTL(GEM_INFO, vdxg_gem_info_ioctl),
	VDXG_IOCTL(GEM_MAKE_RESIDENT, vdxg_gem_make_resident_ioctl),
	VDXG_IOCTL(CONTEXT_CREATE, vdxg_context_create_ioctl),
	VDXG_IOCTL(CONTEXT_DESTROY, vdxg_context_destroy_ioctl),
	VDXG_IOCTL(SUBMIT, vdxg_submit_ioctl),
	VDXG_IOCTL(GET_RESET_STATUS, vdxg_reset_status_ioctl),
	VDXG_IOCTL(PRESENT, vdxg_present_ioctl),
	VDXG_IOCTL(VM_CREATE, vdxg_vm_create_ioctl),
	VDXG_IOCTL(VM_DESTROY, vdxg_vm_destroy_ioctl),
	VDXG_IOCTL(VM_BIND, vdxg_vm_bind_ioctl),
	VDXG_IOCTL(EXEC, vdxg_exec_ioctl),
	/* Host addresses: the primary node, and CAP_SYS_ADMIN (checked). */
	DRM_IOCTL_DEF_DRV(VDXG_GET_BACKING_RESOURCE,
			  vdxg_get_backing_resource_ioctl, 0),
};

static const struct file_operations vdxg_fops = {
	.owner = THIS_MODULE,
	DRM_GEM_FOPS,
	.show_fdinfo = drm_show_fdinfo,
};

static int vdxg_open(struct drm_device *drm, struct drm_file *file)
{
	return vdxg_file_open(to_vdxg(drm), file);
}

static void vdxg_postclose(struct drm_device *drm, struct drm_file *file)
{
	vdxg_file_close(file);
}

static const struct drm_driver vdxg_drm_driver = {
	.driver_features = DRIVER_GEM | DRIVER_RENDER | DRIVER_SYNCOBJ |
			   DRIVER_SYNCOBJ_TIMELINE | DRIVER_MODESET |
			   DRIVER_ATOMIC,
	.open = vdxg_open,
	.postclose = vdxg_postclose,
	.show_fdinfo = vdxg_show_fdinfo,
	.ioctls = vdxg_ioctls,
	.num_ioctls = ARRAY_SIZE(vdxg_ioctls),
	.fops = &vdxg_fops,
	.dumb_create = vdxg_dumb_create,
	.gem_prime_import_sg_table = vdxg_gem_prime_import_sg_table,
	DRM_FBDEV_TTM_DRIVER_OPS,
	.name = DRIVER_NAME,
	.desc = DRIVER_DESC,
	.date = "20261122",
	.major = DRIVER_MAJOR,
	.minor = DRIVER_MINOR,
};

/* The memory manager's hardware: reserved VRAM and the paging engine. */
static int vdxg_mm_init(struct vdxg_device *vdxg)
{
	int ret;

	if (!(vdxg->caps & VDXG_CAP_PAGING))
		return 0;

	ret = vdxg_kmem_init(vdxg);
	if (ret)
		return ret;
	ret = vdxg_paging_init(vdxg);
	if (ret)
		return ret;
	ret = vdxg_gart_init(vdxg);
	if (!ret)
		ret = vdxg_ttm_init(vdxg);
	/*
	 * VMs before the render engine: its context-free queue, drained at
	 * the DRM release, may free the last VM, whose address-space id goes
	 * back to the ida that vdxg_vm_init() releases after it.
	 */
	if (!ret)
		ret = vdxg_vm_init(vdxg);
	if (!ret)
		ret = vdxg_render_init(vdxg);
	/* What paging_init set up goes with the DRM device. */
	if (ret)
		vdxg_paging_unplug(vdxg);
	return ret;
}

/* Stop the hardware; TTM itself goes when the DRM device is released. */
static void vdxg_mm_fini(struct vdxg_device *vdxg)
{
	if (!(vdxg->caps & VDXG_CAP_PAGING))
		return;
	vdxg_render_unplug(vdxg);
	vdxg_vm_fini(vdxg);
	vdxg_paging_unplug(vdxg);
	vdxg_gart_fini(vdxg);
}

static int vdxg_probe(struct pci_dev *pdev, const struct pci_device_id *ent)
{
	struct vdxg_device *vdxg;
	int ret;

	vdxg = devm_drm_dev_alloc(&pdev->dev, &vdxg_drm_driver,
				  struct vdxg_device, drm);
	if (IS_ERR(vdxg))
		return PTR_ERR(vdxg);

	vdxg->pdev = pdev;
	pci_set_drvdata(pdev, vdxg);
	vdxg_fault_init(vdxg);

	ret = vdxg_pci_init(vdxg);
	if (ret)
		return ret;

	ret = vdxg_irq_init(vdxg);
	if (ret)
		return ret;

	ret = vdxg_mm_init(vdxg);
	if (ret)
		goto err_irq;

	ret = vdxg_sriov_init(vdxg);
	if (ret)
		goto err_mm;

	/* Without display pipes (a VF), this is a render-only device. */
	ret = vdxg_display_init(vdxg);
	if (ret)
		goto err_mm;
	if (!vdxg->display.num_crtcs)
		vdxg->drm.driver_features &= ~(DRIVER_MODESET | DRIVER_ATOMIC);

	vdxg_debugfs_init(vdxg);

	ret = drm_dev_register(&vdxg->drm, 0);
	if (ret)
		goto err_display;

	if (vdxg->display.num_crtcs)
		drm_client_setup(&vdxg->drm, NULL);
	return 0;

err_display:
	vdxg_display_fini(vdxg);
err_mm:
	vdxg_mm_fini(vdxg);
err_irq:
	vdxg_irq_fini(vdxg);
	return ret;
}

static void vdxg_remove(struct pci_dev *pdev)
{
	struct vdxg_device *vdxg = pci_get_drvdata(pdev);

	vdxg_sriov_fini(vdxg);
	drm_dev_unplug(&vdxg->drm);
	vdxg_display_fini(vdxg);
	vdxg_mm_fini(vdxg);
	vdxg_irq_fini(vdxg);
}

static void vdxg_shutdown(struct pci_dev *pdev)
{
	struct vdxg_device *vdxg = pci_get_drvdata(pdev);

	if (vdxg->display.num_crtcs)
		drm_atomic_helper_shutdown(&vdxg->drm);
	vdxg_pci_reset(vdxg);
}

static const struct pci_device_id vdxg_pci_ids[] = {
	{ PCI_DEVICE(VDXG_PCI_VENDOR_ID, VDXG_PCI_DEVICE_ID) },
	{ PCI_DEVICE(VDXG_PCI_VENDOR_ID, VDXG_PCI_VF_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, vdxg_pci_ids);

static struct pci_driver vdxg_pci_driver = {
	.name = DRIVER_NAME,
	.id_table = vdxg_pci_ids,
	.probe = vdxg_probe,
	.remove = vdxg_remove,
	.shutdown = vdxg_shutdown,
	.sriov_configure = vdxg_sriov_configure,
	.driver.pm = pm_sleep_ptr(&vdxg_pm_ops),
};

drm_module_pci_driver(vdxg_pci_driver);

MODULE_DESCRIPTION(DRIVER_DESC);
MODULE_AUTHOR("The vdxg authors");
MODULE_LICENSE("Dual MIT/GPL");
