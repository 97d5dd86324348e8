// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/io.h>
#include <linux/sizes.h>

#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include "vdxg_drv.h"

/**
 * DOC: Reserved VRAM
 *
 * The first %VDXG_KMEM_SIZE bytes of VRAM belong to the kernel and never to
 * a buffer object: the engines' rings and fence write-back slots, the pool
 * of paging buffers and the GART table live there. The area is mapped
 * write-combined through the VRAM BAR and carved out with a bump allocator
 * at probe; nothing in it is freed before the device goes away. The memory
 * manager hands the rest of VRAM to TTM.
 */

/**
 * vdxg_kmem_init - map the reserved start of VRAM
 * @vdxg: the device
 *
 * Return: 0 or a negative errno.
 */
int vdxg_kmem_init(struct vdxg_device *vdxg)
{
	if (vdxg->vram_bar_size < VDXG_KMEM_SIZE) {
		drm_err(&vdxg->drm, "VRAM BAR too small for reserved VRAM\n");
		return -ENOSPC;
	}

	vdxg->kmem.cpu = devm_ioremap_wc(vdxg->drm.dev, vdxg->vram_bar_start,
					 VDXG_KMEM_SIZE);
	if (!vdxg->kmem.cpu)
		return -ENOMEM;
	vdxg->kmem.used = 0;
	return 0;
}

/**
 * vdxg_kmem_alloc - carve a page-aligned piece of reserved VRAM
 * @vdxg: the device
 * @size: bytes
 * @gpu: its GPU (VRAM) address
 * @cpu: its CPU mapping
 *
 * Return: 0 or -ENOSPC.
 */
int vdxg_kmem_alloc(struct vdxg_device *vdxg, u32 size, u64 *gpu,
		    void __iomem **cpu)
{
	u32 len = ALIGN(size, SZ_4K);

	if (len > VDXG_KMEM_SIZE - vdxg->kmem.used)
		return -ENOSPC;

	*gpu = vdxg->kmem.used;
	*cpu = vdxg->kmem.cpu + vdxg->kmem.used;
	vdxg->kmem.used += len;
	return 0;
}
