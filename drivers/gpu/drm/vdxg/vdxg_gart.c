// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/dma-mapping.h>
#include <linux/io.h>

#include <drm/drm_print.h>

#include "vdxg_drv.h"

/**
 * DOC: GART
 *
 * The aperture segment is a window of GPU addresses whose pages the GART
 * translates to system pages (docs/hardware.md, "GPU address space and
 * GART"). Its table lives in reserved VRAM. The CPU writes it only once, at
 * probe, to mark every entry invalid; from then on only the paging engine
 * writes entries, with MAP_APERTURE and UNMAP_APERTURE operations followed
 * by a TLB flush, as WDDM's MapApertureSegment and UnmapApertureSegment
 * do. An invalid entry sends accesses to the dummy page, a zeroed system
 * page owned by the driver.
 */

/**
 * vdxg_gart_init - set up the GART table and dummy page
 * @vdxg: the device
 *
 * Return: 0 or a negative errno.
 */
int vdxg_gart_init(struct vdxg_device *vdxg)
{
	struct vdxg_gart *gart = &vdxg->gart;
	void __iomem *table;
	u64 table_gpu;
	int ret;

	gart->entries = vdxg_rd(vdxg, VDXG_REG_GART_ENTRIES);
	if (!gart->entries ||
	    (u64)gart->entries << VDXG_GPU_PAGE_SHIFT != vdxg->aperture_size) {
		drm_err(&vdxg->drm, "GART has %u entries for a %llu-byte aperture\n",
			gart->entries, vdxg->aperture_size);
		return -ENODEV;
	}

	ret = vdxg_kmem_alloc(vdxg, gart->entries * sizeof(u64), &table_gpu,
			      &table);
	if (ret)
		return ret;
	memset_io(table, 0, gart->entries * sizeof(u64));
	gart->table = table;

	gart->dummy = dmam_alloc_coherent(vdxg->drm.dev, PAGE_SIZE,
					  &gart->dummy_dma, GFP_KERNEL);
	if (!gart->dummy)
		return -ENOMEM;

	gart->table_gpu = table_gpu;
	vdxg_gart_program(vdxg);
	return 0;
}

/**
 * vdxg_gart_program - point the device at the table and dummy page
 * @vdxg: the device
 *
 * At probe, and again after a resume reset the registers.
 */
void vdxg_gart_program(struct vdxg_device *vdxg)
{
	struct vdxg_gart *gart = &vdxg->gart;

	vdxg_wr(vdxg, VDXG_REG_GART_TABLE_LO, lower_32_bits(gart->table_gpu));
	vdxg_wr(vdxg, VDXG_REG_GART_TABLE_HI, upper_32_bits(gart->table_gpu));
	vdxg_wr(vdxg, VDXG_REG_DUMMY_PAGE_LO, lower_32_bits(gart->dummy_dma));
	vdxg_wr(vdxg, VDXG_REG_DUMMY_PAGE_HI, upper_32_bits(gart->dummy_dma));
	vdxg_wr(vdxg, VDXG_REG_GART_CTRL, VDXG_GART_CTRL_ENABLE);
	vdxg_wr(vdxg, VDXG_REG_TLB_FLUSH, 1);
}

/**
 * vdxg_gart_fini - stop translating the aperture
 * @vdxg: the device
 */
void vdxg_gart_fini(struct vdxg_device *vdxg)
{
	vdxg_wr(vdxg, VDXG_REG_GART_CTRL, 0);
}
