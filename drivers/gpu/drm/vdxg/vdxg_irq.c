// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/interrupt.h>
#include <linux/pci.h>

#include <drm/drm_print.h>
#include <drm/vdxg_drm.h>

#include "vdxg_drv.h"

/**
 * DOC: Interrupts
 *
 * The interrupt requirement is one group of three options, stated in the
 * order the driver prefers them: MSI-X with one vector per source class
 * (misc, render, paging, display), then a single MSI vector, then the
 * shared INTx line. Each option is taken only if the device proves it
 * works: the driver unmasks the self-test source, triggers it and waits for
 * the interrupt. An option that fails is given back and the next is tried.
 *
 * The handler acknowledges the pending sources it serves before handling
 * them, so an event that arrives meanwhile raises a new interrupt.
 */

#define VDXG_SELFTEST_TIMEOUT_MS	2000

static const u32 vdxg_msix_sources[VDXG_MSIX_VECTORS] = {
	[VDXG_MSIX_VEC_MISC] = VDXG_INT_MISC_MASK,
	[VDXG_MSIX_VEC_RENDER] = VDXG_INT_RENDER_FENCE,
	[VDXG_MSIX_VEC_PAGING] = VDXG_INT_PAGING_FENCE,
	[VDXG_MSIX_VEC_DISPLAY] = VDXG_INT_DISPLAY_MASK,
};

struct vdxg_irq_option {
	struct vdxg_res_desc desc;
	unsigned int pci_flags;
	int mode;
};

static const struct vdxg_irq_option vdxg_irq_options[] = {
	{
		.desc = {
			.name = "interrupt: MSI-X",
			.option = VDXG_IO_RESOURCE_PREFERRED,
			.type = VDXG_RES_TYPE_INTERRUPT,
			.share = VDXG_RES_SHARE_DEVICE_EXCLUSIVE,
			.flags = VDXG_RES_IRQ_LATCHED | VDXG_RES_IRQ_MESSAGE,
			.u.irq = { 0, VDXG_MSIX_VECTORS - 1 },
		},
		.pci_flags = PCI_IRQ_MSIX,
		.mode = DRM_VDXG_IRQ_MODE_MSIX,
	},
	{
		.desc = {
			.name = "interrupt: MSI",
			.option = VDXG_IO_RESOURCE_ALTERNATIVE,
			.type = VDXG_RES_TYPE_INTERRUPT,
			.share = VDXG_RES_SHARE_DEVICE_EXCLUSIVE,
			.flags = VDXG_RES_IRQ_LATCHED | VDXG_RES_IRQ_MESSAGE,
			.u.irq = { 0, 0 },
		},
		.pci_flags = PCI_IRQ_MSI,
		.mode = DRM_VDXG_IRQ_MODE_MSI,
	},
	{
		.desc = {
			.name = "interrupt: INTx",
			.option = VDXG_IO_RESOURCE_ALTERNATIVE,
			.type = VDXG_RES_TYPE_INTERRUPT,
			.share = VDXG_RES_SHARE_SHARED,
			.flags = VDXG_RES_IRQ_LEVEL_SENSITIVE,
			.u.irq = { 0, 0 },
		},
		.pci_flags = PCI_IRQ_INTX,
		.mode = DRM_VDXG_IRQ_MODE_INTX,
	},
};

static void vdxg_irq_count(struct vdxg_device *vdxg, u32 pending)
{
	while (pending) {
		unsigned int bit = __ffs(pending);

		atomic_inc(&vdxg->irq.count[bit]);
		pending &= pending - 1;
	}
}

static irqreturn_t vdxg_irq_handler(int irq, void *arg)
{
	struct vdxg_irq_vector *vec = arg;
	struct vdxg_device *vdxg = vec->vdxg;
	u32 status, pending;

	status = vdxg_rd(vdxg, VDXG_REG_INT_STATUS);
	if (status == U32_MAX)	/* surprise removal */
		return IRQ_NONE;

	pending = status & READ_ONCE(vdxg->irq.mask) & vec->sources;
	if (!pending)
		return IRQ_NONE;

	vdxg_wr(vdxg, VDXG_REG_INT_ACK, pending);
	vdxg_irq_count(vdxg, pending);

	if (pending & VDXG_INT_SELFTEST)
		complete(&vdxg->irq.selftest);
	if (pending & VDXG_INT_FAULT)
		vdxg_fault_irq(vdxg);
	if (pending & VDXG_INT_RENDER_FENCE)
		vdxg_render_irq(vdxg, pending);
	if (pending & VDXG_INT_PAGING_FENCE)
		vdxg_paging_irq(vdxg, pending);
	if (pending & (VDXG_INT_DISPLAY_MASK | VDXG_INT_HOTPLUG))
		vdxg_display_irq(vdxg, pending);

	return IRQ_HANDLED;
}

static void vdxg_irq_set_mask(struct vdxg_device *vdxg, u32 mask)
{
	WRITE_ONCE(vdxg->irq.mask, mask);
	vdxg_wr(vdxg, VDXG_REG_INT_MASK, mask);
}

/**
 * vdxg_irq_restore - write the interrupt mask again after a resume
 * @vdxg: the device
 */
void vdxg_irq_restore(struct vdxg_device *vdxg)
{
	vdxg_wr(vdxg, VDXG_REG_INT_MASK, READ_ONCE(vdxg->irq.mask));
}

/**
 * vdxg_irq_enable - unmask interrupt sources
 * @vdxg: the device
 * @sources: VDXG_INT_* bits
 */
void vdxg_irq_enable(struct vdxg_device *vdxg, u32 sources)
{
	vdxg_irq_set_mask(vdxg, READ_ONCE(vdxg->irq.mask) | sources);
}

static void vdxg_irq_free(struct vdxg_device *vdxg)
{
	unsigned int i;

	vdxg_irq_set_mask(vdxg, 0);
	for (i = 0; i < vdxg->irq.nvec; i++)
		free_irq(vdxg->irq.vec[i].irq, &vdxg->irq.vec[i]);
	vdxg->irq.nvec = 0;
	pci_free_irq_vectors(vdxg->pdev);
}

static int vdxg_irq_request(struct vdxg_device *vdxg, int nvec,
			    unsigned long irqflags)
{
	struct pci_dev *pdev = vdxg->pdev;
	int i, ret;

	for (i = 0; i < nvec; i++) {
		struct vdxg_irq_vector *vec = &vdxg->irq.vec[i];

		vec->vdxg = vdxg;
		vec->irq = pci_irq_vector(pdev, i);
		vec->sources = nvec == 1 ? VDXG_INT_VALID_MASK :
					   vdxg_msix_sources[i];
		ret = request_irq(vec->irq, vdxg_irq_handler, irqflags,
				  DRIVER_NAME, vec);
		if (ret)
			return ret;
		vdxg->irq.nvec = i + 1;
	}
	return 0;
}

static int vdxg_irq_selftest(struct vdxg_device *vdxg)
{
	unsigned long left;

	reinit_completion(&vdxg->irq.selftest);
	vdxg_irq_set_mask(vdxg, VDXG_INT_SELFTEST);
	vdxg_wr(vdxg, VDXG_REG_INT_TRIGGER, VDXG_INT_SELFTEST);

	left = wait_for_completion_timeout(&vdxg->irq.selftest,
					   msecs_to_jiffies(VDXG_SELFTEST_TIMEOUT_MS));
	vdxg_irq_set_mask(vdxg, 0);

	return left ? 0 : -ETIMEDOUT;
}

static int vdxg_irq_try(void *ctx, struct vdxg_res_desc *desc)
{
	struct vdxg_device *vdxg = ctx;
	const struct vdxg_irq_option *opt;
	unsigned int nvec;
	int ret;

	opt = &vdxg_irq_options[desc - &vdxg->resources.desc[vdxg->res_irq]];
	nvec = desc->u.irq.max_vector - desc->u.irq.min_vector + 1;

	ret = pci_alloc_irq_vectors(vdxg->pdev, nvec, nvec, opt->pci_flags);
	if (ret < 0)
		goto out;

	ret = vdxg_irq_request(vdxg, nvec, opt->mode == DRM_VDXG_IRQ_MODE_INTX ?
			       IRQF_SHARED : 0);
	if (!ret)
		ret = vdxg_irq_selftest(vdxg);
	if (ret) {
		vdxg_irq_free(vdxg);
		goto out;
	}

	vdxg->irq.mode = opt->mode;
	desc->start = vdxg->irq.vec[0].irq;
	desc->len = nvec;
	return 0;

out:
	drm_info(&vdxg->drm, "%s unavailable (%d)\n", desc->name, ret);
	return ret;
}

/**
 * vdxg_irq_init - take the best interrupt option that works
 * @vdxg: the device
 *
 * Return: 0, or the error of the last option tried.
 */
int vdxg_irq_init(struct vdxg_device *vdxg)
{
	unsigned int i;
	int ret;

	init_completion(&vdxg->irq.selftest);
	vdxg_irq_set_mask(vdxg, 0);

	for (i = 0; i < ARRAY_SIZE(vdxg_irq_options); i++) {
		ret = vdxg_res_add(&vdxg->resources, &vdxg_irq_options[i].desc);
		if (ret < 0)
			return ret;
		if (!i)
			vdxg->res_irq = ret;
	}

	ret = vdxg_res_choose(&vdxg->resources, vdxg->res_irq, vdxg_irq_try,
			      vdxg);
	if (ret < 0) {
		drm_err(&vdxg->drm, "no working interrupt (%d)\n", ret);
		return ret;
	}

	drm_info(&vdxg->drm, "using %s, %u vector(s), self-test passed\n",
		 vdxg->resources.desc[ret].name, vdxg->irq.nvec);
	return 0;
}

/**
 * vdxg_irq_fini - mask the device's interrupts and free the vectors
 * @vdxg: the device
 */
void vdxg_irq_fini(struct vdxg_device *vdxg)
{
	vdxg_irq_free(vdxg);
	vdxg_res_release(&vdxg->resources, vdxg->res_irq);
}
