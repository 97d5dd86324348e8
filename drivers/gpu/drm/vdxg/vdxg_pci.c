// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/delay.h>
#include <linux/log2.h>
#include <linux/pci.h>

#include <drm/drm_print.h>

#include "vdxg_drv.h"

/**
 * DOC: PCI resources
 *
 * The register BAR is a *required* memory descriptor, 32-bit and
 * non-prefetchable. The VRAM BAR is a 64-bit prefetchable window whose
 * size is the CPU-visible part of VRAM: the PF prefers all of VRAM, which
 * its resizable BAR can give when the platform assigned less, and takes
 * the BAR as assigned as the alternative; a VF requires a 32-bit window
 * of all its VRAM. Each BAR
 * the platform assigned is checked against its descriptor before the
 * driver takes it, so a device with a BAR too small or misplaced fails
 * probe cleanly instead of being half-used.
 */

struct vdxg_bar_req {
	struct vdxg_device *vdxg;
	int bar;
};

static int vdxg_bar_try(void *ctx, struct vdxg_res_desc *desc)
{
	struct vdxg_bar_req *req = ctx;
	struct pci_dev *pdev = req->vdxg->pdev;
	resource_size_t start = pci_resource_start(pdev, req->bar);
	resource_size_t len = pci_resource_len(pdev, req->bar);
	unsigned long flags = pci_resource_flags(pdev, req->bar);

	if (!(flags & IORESOURCE_MEM))
		return -ENXIO;
	if ((desc->flags & VDXG_RES_MEM_LARGE_64) && !(flags & IORESOURCE_MEM_64))
		return -ENXIO;
	if (!vdxg_res_mem_fits(desc, start, len))
		return -ENXIO;

	desc->start = start;
	desc->len = len;
	return 0;
}

static int vdxg_bar_take(struct vdxg_device *vdxg, int bar,
			 const struct vdxg_res_desc *desc)
{
	struct vdxg_bar_req req = { .vdxg = vdxg, .bar = bar };
	int idx, ret;

	idx = vdxg_res_add(&vdxg->resources, desc);
	if (idx < 0)
		return idx;

	ret = vdxg_res_choose(&vdxg->resources, idx, vdxg_bar_try, &req);
	if (ret < 0) {
		drm_err(&vdxg->drm, "BAR%d %pR does not fit its requirement\n",
			bar, &vdxg->pdev->resource[bar]);
		return ret;
	}
	return 0;
}

static int vdxg_map_mmio(struct vdxg_device *vdxg)
{
	static const struct vdxg_res_desc mmio = {
		.name = "registers (BAR0)",
		.option = VDXG_IO_RESOURCE_REQUIRED,
		.type = VDXG_RES_TYPE_MEMORY,
		.share = VDXG_RES_SHARE_DEVICE_EXCLUSIVE,
		.flags = VDXG_RES_MEM_READ_WRITE,
		.u.mem = {
			.length = VDXG_MMIO_SIZE,
			.alignment = VDXG_MMIO_SIZE,
			.min_addr = 0,
			.max_addr = U32_MAX,
		},
	};
	struct pci_dev *pdev = vdxg->pdev;
	int ret;

	ret = vdxg_bar_take(vdxg, VDXG_BAR_MMIO, &mmio);
	if (ret)
		return ret;

	vdxg->mmio = pcim_iomap_region(pdev, VDXG_BAR_MMIO, DRIVER_NAME);
	if (IS_ERR(vdxg->mmio))
		return PTR_ERR(vdxg->mmio);
	return 0;
}

/*
 * The preferred option of the VRAM BAR: all of VRAM. When the BAR is
 * smaller and the device can resize it, ask the PCI core for a new window
 * of VRAM's size, as a BIOS with "Resizable BAR" would have done. If that
 * fails, the core puts the BAR back as it was and the alternative (the
 * BAR as assigned) is tried next.
 */
static int vdxg_rebar_try(void *ctx, struct vdxg_res_desc *desc)
{
	struct vdxg_bar_req *req = ctx;
	struct pci_dev *pdev = req->vdxg->pdev;
	u64 want = desc->u.mem.length;
	u16 cmd;
	int ret;

	if (pci_resource_len(pdev, VDXG_BAR_VRAM) >= want)
		return vdxg_bar_try(ctx, desc);
	if (!(req->vdxg->caps & VDXG_CAP_RESIZABLE_BAR) ||
	    !(pci_rebar_get_possible_sizes(pdev, VDXG_BAR_VRAM) &
	      BIT(pci_rebar_bytes_to_size(want))))
		return -EOPNOTSUPP;

	pci_read_config_word(pdev, PCI_COMMAND, &cmd);
	pci_write_config_word(pdev, PCI_COMMAND, cmd & ~PCI_COMMAND_MEMORY);
	pci_release_resource(pdev, VDXG_BAR_VRAM);
	ret = pci_resize_resource(pdev, VDXG_BAR_VRAM,
				  pci_rebar_bytes_to_size(want), 0);
	pci_assign_unassigned_bus_resources(pdev->bus);
	pci_write_config_word(pdev, PCI_COMMAND, cmd);
	if (ret) {
		drm_info(&req->vdxg->drm, "cannot resize the VRAM BAR to %llu MiB: %pe\n",
			 want >> 20, ERR_PTR(ret));
		return ret;
	}
	return vdxg_bar_try(ctx, desc);
}

static int vdxg_vram_bar_try(void *ctx, struct vdxg_res_desc *desc)
{
	if (desc->option == VDXG_IO_RESOURCE_PREFERRED)
		return vdxg_rebar_try(ctx, desc);
	return vdxg_bar_try(ctx, desc);
}

/*
 * The VRAM BAR of a PF is one group: all of VRAM (preferred, resizing the
 * BAR if need be), else the BAR as the platform assigned it, 16 MiB at
 * least (alternative). A VF's VRAM BAR is a required 32-bit window of its
 * whole VRAM, which the PF assembled from its own.
 */
static int vdxg_claim_vram(struct vdxg_device *vdxg)
{
	struct vdxg_res_desc vram = {
		.name = "VRAM (BAR2)",
		.option = VDXG_IO_RESOURCE_REQUIRED,
		.type = VDXG_RES_TYPE_MEMORY_LARGE,
		.share = VDXG_RES_SHARE_DEVICE_EXCLUSIVE,
		.flags = VDXG_RES_MEM_READ_WRITE | VDXG_RES_MEM_PREFETCHABLE |
			 VDXG_RES_MEM_LARGE_64,
		.u.mem = {
			.length = VDXG_VRAM_SIZE_MIN,
			.alignment = VDXG_VRAM_SIZE_MIN,
			.min_addr = 0,
			.max_addr = U64_MAX,
		},
	};
	struct vdxg_bar_req req = { .vdxg = vdxg, .bar = VDXG_BAR_VRAM };
	struct pci_dev *pdev = vdxg->pdev;
	int idx, ret;

	if (pdev->is_virtfn) {
		vram.type = VDXG_RES_TYPE_MEMORY;
		vram.flags &= ~VDXG_RES_MEM_LARGE_64;
		vram.u.mem.length = vdxg->vram_size;
		vram.u.mem.alignment = vdxg->vram_size;
		vram.u.mem.max_addr = U32_MAX;
		ret = vdxg_bar_take(vdxg, VDXG_BAR_VRAM, &vram);
	} else {
		vram.option = VDXG_IO_RESOURCE_PREFERRED;
		vram.u.mem.length = vdxg->vram_size;
		vram.u.mem.alignment = vdxg->vram_size;
		idx = vdxg_res_add(&vdxg->resources, &vram);
		if (idx < 0)
			return idx;
		vram.option = VDXG_IO_RESOURCE_ALTERNATIVE;
		vram.u.mem.length = VDXG_VRAM_SIZE_MIN;
		vram.u.mem.alignment = VDXG_VRAM_SIZE_MIN;
		ret = vdxg_res_add(&vdxg->resources, &vram);
		if (ret >= 0)
			ret = vdxg_res_choose(&vdxg->resources, idx,
					      vdxg_vram_bar_try, &req);
		if (ret < 0)
			drm_err(&vdxg->drm, "BAR%d %pR does not fit its requirement\n",
				VDXG_BAR_VRAM, &pdev->resource[VDXG_BAR_VRAM]);
	}
	if (ret < 0)
		return ret;

	ret = pcim_request_region(pdev, VDXG_BAR_VRAM, DRIVER_NAME "-vram");
	if (ret)
		return ret;

	vdxg->vram_bar_start = pci_resource_start(pdev, VDXG_BAR_VRAM);
	/* Only VRAM is CPU-visible, however large the window. */
	vdxg->vram_bar_size = min_t(u64, pci_resource_len(pdev, VDXG_BAR_VRAM),
				    vdxg->vram_size);
	return 0;
}

/**
 * vdxg_pci_reset - soft-reset the device to its power-on register state
 * @vdxg: the device
 */
void vdxg_pci_reset(struct vdxg_device *vdxg)
{
	vdxg_wr(vdxg, VDXG_REG_RESET, VDXG_RESET_MAGIC);
}

static int vdxg_identify(struct vdxg_device *vdxg)
{
	u32 id = vdxg_rd(vdxg, VDXG_REG_ID);

	if (id != VDXG_ID_MAGIC) {
		drm_err(&vdxg->drm, "unexpected ID register 0x%08x\n", id);
		return -ENODEV;
	}

	vdxg->hw_version = vdxg_rd(vdxg, VDXG_REG_VERSION);
	if (vdxg->hw_version >> 16 != VDXG_VERSION_MAJOR) {
		drm_err(&vdxg->drm, "unsupported hardware version %u.%u\n",
			vdxg->hw_version >> 16, vdxg->hw_version & 0xffff);
		return -ENODEV;
	}

	vdxg->caps = vdxg_rd(vdxg, VDXG_REG_CAPS);
	vdxg->engines = vdxg_rd(vdxg, VDXG_REG_ENGINES);
	vdxg->num_crtcs = min_t(u32, vdxg_rd(vdxg, VDXG_REG_NUM_CRTCS),
				VDXG_MAX_CRTCS);
	vdxg->vram_size = vdxg_rd64(vdxg, VDXG_REG_VRAM_SIZE_LO);
	vdxg->aperture_base = vdxg_rd64(vdxg, VDXG_REG_APERTURE_BASE_LO);
	vdxg->aperture_size = vdxg_rd64(vdxg, VDXG_REG_APERTURE_SIZE_LO);

	if (vdxg->vram_size < VDXG_VRAM_SIZE_MIN ||
	    !is_power_of_2(vdxg->vram_size)) {
		drm_err(&vdxg->drm, "unexpected VRAM size %llu\n",
			vdxg->vram_size);
		return -ENODEV;
	}
	return 0;
}

/**
 * vdxg_pci_init - enable the function, claim its BARs and identify it
 * @vdxg: the device
 *
 * Every resource taken here is device-managed, so errors need no unwind.
 *
 * Return: 0 or a negative errno.
 */
int vdxg_pci_init(struct vdxg_device *vdxg)
{
	struct pci_dev *pdev = vdxg->pdev;
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;

	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;

	ret = vdxg_map_mmio(vdxg);
	if (ret)
		return ret;

	pci_set_master(pdev);
	vdxg_pci_reset(vdxg);

	ret = vdxg_identify(vdxg);
	if (ret)
		return ret;

	ret = vdxg_claim_vram(vdxg);
	if (ret)
		return ret;

	drm_info(&vdxg->drm, "vdxg %u.%u: %llu MiB VRAM (%llu MiB visible), caps 0x%x\n",
		 vdxg->hw_version >> 16, vdxg->hw_version & 0xffff,
		 vdxg->vram_size >> 20, (u64)vdxg->vram_bar_size >> 20,
		 vdxg->caps);
	return 0;
}
