// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/delay.h>
#include <linux/pm.h>

#include <drm/drm_modeset_helper.h>
#include <drm/drm_print.h>
#include <drm/ttm/ttm_device.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_resource.h>

#include "vdxg_drv.h"

/**
 * DOC: System sleep
 *
 * The device loses its register state over a system sleep (QEMU resets it
 * on wake-up). Suspend turns the displays off with the atomic helpers,
 * waits for the engines to drain, and evicts VRAM and the aperture to
 * system memory with the paging engine, so that only pinned objects stay.
 * Resume programs the interrupt mask, the GART and both rings again and
 * restores the display state. VRAM keeps the reserved area (rings, GART
 * table, DMA buffers) across the sleep.
 */

#define VDXG_PM_IDLE_TIMEOUT_MS	2000

static bool vdxg_pm_idle(struct vdxg_device *vdxg)
{
	return (!vdxg->render.engine.vdxg ||
		vdxg_engine_idle(&vdxg->render.engine)) &&
	       (!vdxg->paging.engine.vdxg ||
		vdxg_engine_idle(&vdxg->paging.engine));
}

static int vdxg_pm_drain(struct vdxg_device *vdxg)
{
	unsigned int ms;

	for (ms = 0; ms < VDXG_PM_IDLE_TIMEOUT_MS; ms += 20) {
		if (vdxg_pm_idle(vdxg))
			return 0;
		msleep(20);
	}
	return -EBUSY;
}

static int vdxg_pm_evict(struct vdxg_device *vdxg)
{
	static const u32 types[] = { TTM_PL_VRAM, TTM_PL_TT };
	unsigned int i;
	int ret;

	if (!(vdxg->caps & VDXG_CAP_PAGING))
		return 0;
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		struct ttm_resource_manager *man =
			ttm_manager_type(&vdxg->ttm, types[i]);

		ret = ttm_resource_manager_evict_all(&vdxg->ttm, man);
		if (ret)
			return ret;
	}
	return vdxg_pm_drain(vdxg);
}

static int vdxg_pm_suspend(struct device *dev)
{
	struct vdxg_device *vdxg = dev_get_drvdata(dev);
	int ret = 0;

	if (vdxg->display.num_crtcs)
		ret = drm_mode_config_helper_suspend(&vdxg->drm);
	if (!ret)
		ret = vdxg_pm_drain(vdxg);
	if (!ret)
		ret = vdxg_pm_evict(vdxg);
	if (ret) {
		drm_err(&vdxg->drm, "cannot suspend: %d\n", ret);
		if (vdxg->display.num_crtcs)
			drm_mode_config_helper_resume(&vdxg->drm);
	}
	return ret;
}

static int vdxg_pm_resume(struct device *dev)
{
	struct vdxg_device *vdxg = dev_get_drvdata(dev);

	vdxg_irq_restore(vdxg);
	if (vdxg->caps & VDXG_CAP_PAGING) {
		vdxg_gart_program(vdxg);
		vdxg_vm_restore(vdxg);
		vdxg_engine_program(&vdxg->paging.engine);
		if (vdxg->render.engine.vdxg)
			vdxg_engine_program(&vdxg->render.engine);
	}
	if (vdxg->display.num_crtcs)
		return drm_mode_config_helper_resume(&vdxg->drm);
	return 0;
}

const struct dev_pm_ops vdxg_pm_ops = {
	SYSTEM_SLEEP_PM_OPS(vdxg_pm_suspend, vdxg_pm_resume)
};
