// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/bitfield.h>
#include <linux/capability.h>
#include <linux/pci.h>

#include <drm/drm_drv.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_resource.h>
#include <drm/vdxg_drm.h>

#include "vdxg_drv.h"

/**
 * DOC: SR-IOV
 *
 * A vdxg PF behind a PCI Express port offers SR-IOV virtual functions.
 * Each VF has its own registers, rings, GART and aperture, and a VRAM BAR
 * that the PF assembles from at most VDXG_MAX_BACKING_RANGES page-aligned
 * ranges of its own VRAM: the backing resources of WDDM's
 * DXGKARG_GETBACKINGRESOURCE.
 *
 * Writing N to sysfs ``sriov_numvfs`` provisions the VFs first: for each,
 * the VRAM manager carves the VF's VRAM out of the PF's free VRAM,
 * fragmented or not, as the fewest ranges it can (see "Carving VF
 * memory"), the paging engine zeroes them, and they go into the VF's
 * backing table, which the device checks and applies at COMMIT. Carving
 * waits for pipelined moves out of VRAM first. Only then are the VFs
 * enabled, and
 * vdxg binds to them as render-only devices. A VF that would need more
 * ranges than the table holds fails the whole request with -E2BIG, too
 * little free VRAM with -ENOSPC, and nothing stays provisioned. Writing 0
 * removes the VFs (their open files then get -ENODEV), empties their
 * tables, zeroes their memory and returns it: no data crosses between the
 * PF's clients and a VF.
 *
 * DRM_IOCTL_VDXG_GET_BACKING_RESOURCE, and debugfs ``sriov``, report
 * which range of the PF's VRAM backs each part of a VF's BAR.
 */

/* Write VF @vf's backing table from @svf and apply it. */
static int vdxg_sriov_program(struct vdxg_device *vdxg, unsigned int vf,
			      const struct vdxg_sriov_vf *svf)
{
	unsigned int i, n = svf->count;
	u32 status;
	int idx;

	if (!drm_dev_enter(&vdxg->drm, &idx))
		return -ENODEV;
	for (i = 0; i <= n && i < VDXG_MAX_BACKING_RANGES; i++) {
		u64 off = i < n ? vdxg_vram_offset(svf->nodes[i].start) : 0;
		u64 len = i < n ? (u64)svf->nodes[i].size << PAGE_SHIFT : 0;

		vdxg_wr(vdxg, VDXG_REG_BACKING_SELECT,
			VDXG_BACKING_SELECT(vf, VDXG_BAR_VRAM, i));
		vdxg_wr(vdxg, VDXG_REG_BACKING_OFFSET_LO, lower_32_bits(off));
		vdxg_wr(vdxg, VDXG_REG_BACKING_OFFSET_HI, upper_32_bits(off));
		vdxg_wr(vdxg, VDXG_REG_BACKING_LENGTH_LO, lower_32_bits(len));
		vdxg_wr(vdxg, VDXG_REG_BACKING_LENGTH_HI, upper_32_bits(len));
	}
	vdxg_wr(vdxg, VDXG_REG_BACKING_COMMIT,
		VDXG_BACKING_SELECT(vf, VDXG_BAR_VRAM, 0));
	status = vdxg_rd(vdxg, VDXG_REG_BACKING_STATUS);
	drm_dev_exit(idx);

	if (status & VDXG_BACKING_STATUS_ERROR ||
	    FIELD_GET(VDXG_BACKING_STATUS_RANGES_MASK, status) != n) {
		drm_err(&vdxg->drm, "VF %u: backing table refused (0x%x)\n",
			vf, status);
		return -EIO;
	}
	return 0;
}

/*
 * Zero the ranges of @svf with paging-engine FILLs and wait: memory goes
 * between the PF's clients and a VF only empty. The FILLs run after every
 * paging job queued before them, pipelined evictions out of the ranges
 * included.
 */
static int vdxg_sriov_scrub(struct vdxg_device *vdxg,
			    const struct vdxg_sriov_vf *svf)
{
	struct vdxg_pg_batch b;
	unsigned int i;
	int ret;

	ret = vdxg_pg_batch_begin(&b, vdxg, NULL);
	if (ret)
		return ret;
	for (i = 0; i < svf->count && !ret; i++) {
		u64 addr = vdxg_vram_offset(svf->nodes[i].start);
		u64 size = (u64)svf->nodes[i].size << PAGE_SHIFT, done = 0;

		ret = vdxg_pg_emit(&b, vdxg_pg_fill(&b.pb, addr, size, 0, &done,
						    &b.stats));
	}
	return vdxg_pg_batch_end_wait(&b, ret);
}

/* Wait for pipelined moves out of VRAM: their source may be carved next. */
static int vdxg_sriov_wait_moves(struct vdxg_device *vdxg)
{
	struct ttm_resource_manager *man = ttm_manager_type(&vdxg->ttm,
							     TTM_PL_VRAM);
	struct dma_fence *fence;
	long ret = 0;

	spin_lock(&man->move_lock);
	fence = dma_fence_get(man->move);
	spin_unlock(&man->move_lock);
	if (fence) {
		ret = dma_fence_wait(fence, true);
		dma_fence_put(fence);
	}
	return ret;
}

/* Empty VF @vf's table, scrub its memory and give it back. */
static void vdxg_sriov_unprovision(struct vdxg_device *vdxg, unsigned int vf)
{
	struct vdxg_sriov_vf *svf = &vdxg->sriov.vfs[vf];
	unsigned int count = svf->count;

	svf->count = 0;
	vdxg_sriov_program(vdxg, vf, svf);
	svf->count = count;
	/* Memory that cannot be scrubbed is not given back to anyone. */
	if (vdxg_sriov_scrub(vdxg, svf) && !drm_dev_is_unplugged(&vdxg->drm)) {
		drm_err(&vdxg->drm, "VF %u: VRAM not scrubbed, kept out of use\n",
			vf);
		svf->count = 0;
		return;
	}
	svf->count = 0;
	vdxg_vram_mgr_uncarve(vdxg, svf->nodes, count);
	memset(svf->nodes, 0, sizeof(svf->nodes));
}

static int vdxg_sriov_provision(struct vdxg_device *vdxg, unsigned int vf)
{
	struct vdxg_sriov_vf *svf = &vdxg->sriov.vfs[vf];
	int ret;

	memset(svf->nodes, 0, sizeof(svf->nodes));
	ret = vdxg_sriov_wait_moves(vdxg);
	if (ret)
		return ret;
	ret = vdxg_vram_mgr_carve(vdxg, vdxg->sriov.vf_vram_size, svf->nodes,
				  ARRAY_SIZE(svf->nodes));
	if (ret < 0) {
		drm_info(&vdxg->drm, "VF %u: no %llu MiB of VRAM in %u ranges: %pe\n",
			 vf, vdxg->sriov.vf_vram_size >> 20,
			 VDXG_MAX_BACKING_RANGES, ERR_PTR(ret));
		return ret;
	}
	svf->count = ret;
	ret = vdxg_sriov_scrub(vdxg, svf);
	if (!ret)
		ret = vdxg_sriov_program(vdxg, vf, svf);
	if (ret)
		vdxg_sriov_unprovision(vdxg, vf);
	return ret;
}

static void vdxg_sriov_disable(struct vdxg_device *vdxg)
{
	unsigned int vf;

	pci_disable_sriov(vdxg->pdev);
	for (vf = 0; vf < vdxg->sriov.num_vfs; vf++)
		vdxg_sriov_unprovision(vdxg, vf);
	vdxg->sriov.num_vfs = 0;
}

static int vdxg_sriov_enable(struct vdxg_device *vdxg, unsigned int num_vfs)
{
	unsigned int vf;
	int ret;

	/* A VF whose provisioning fails cleans up after itself. */
	for (vf = 0; vf < num_vfs; vf++) {
		ret = vdxg_sriov_provision(vdxg, vf);
		if (ret)
			goto err;
	}

	ret = pci_enable_sriov(vdxg->pdev, num_vfs);
	if (ret)
		goto err;
	vdxg->sriov.num_vfs = num_vfs;
	drm_info(&vdxg->drm, "%u VF(s) enabled, %llu MiB of VRAM each\n",
		 num_vfs, vdxg->sriov.vf_vram_size >> 20);
	return num_vfs;

err:
	while (vf--)
		vdxg_sriov_unprovision(vdxg, vf);
	return ret;
}

/**
 * vdxg_sriov_configure - the PCI driver's sriov_configure
 * @pdev: the PF
 * @num_vfs: VFs wanted, 0 to disable them
 *
 * Return: @num_vfs, or a negative errno with nothing provisioned.
 */
int vdxg_sriov_configure(struct pci_dev *pdev, int num_vfs)
{
	struct vdxg_device *vdxg = pci_get_drvdata(pdev);
	int ret;

	if (!vdxg || !vdxg->sriov.total_vfs)
		return -EOPNOTSUPP;
	if (num_vfs < 0 || num_vfs > vdxg->sriov.total_vfs)
		return -EINVAL;

	mutex_lock(&vdxg->sriov.lock);
	if (!num_vfs) {
		vdxg_sriov_disable(vdxg);
		ret = 0;
	} else if (vdxg->sriov.num_vfs) {
		ret = -EBUSY;
	} else {
		ret = vdxg_sriov_enable(vdxg, num_vfs);
	}
	mutex_unlock(&vdxg->sriov.lock);
	return ret;
}

/**
 * vdxg_sriov_init - read the PF's SR-IOV limits
 * @vdxg: the device
 *
 * Return: 0 or -ENOMEM.
 */
int vdxg_sriov_init(struct vdxg_device *vdxg)
{
	struct vdxg_sriov *sriov = &vdxg->sriov;
	int ret;

	ret = drmm_mutex_init(&vdxg->drm, &sriov->lock);
	if (ret)
		return ret;
	if (!(vdxg->caps & VDXG_CAP_SRIOV) || !vdxg->pdev->is_physfn ||
	    !(vdxg->caps & VDXG_CAP_PAGING))
		return 0;

	sriov->total_vfs = min_t(u32, pci_sriov_get_totalvfs(vdxg->pdev),
				 vdxg_rd(vdxg, VDXG_REG_SRIOV_TOTAL_VFS));
	sriov->vf_vram_size = vdxg_rd64(vdxg, VDXG_REG_SRIOV_VF_VRAM_SIZE_LO);
	if (!sriov->total_vfs || !sriov->vf_vram_size ||
	    !PAGE_ALIGNED(sriov->vf_vram_size)) {
		sriov->total_vfs = 0;
		return 0;
	}
	sriov->vfs = drmm_kcalloc(&vdxg->drm, sriov->total_vfs,
				  sizeof(*sriov->vfs), GFP_KERNEL);
	if (!sriov->vfs) {
		sriov->total_vfs = 0;
		return -ENOMEM;
	}
	return 0;
}

/**
 * vdxg_sriov_fini - remove the VFs with the PF
 * @vdxg: the device
 *
 * Called before the PF's DRM device is unplugged: the VFs go first.
 */
void vdxg_sriov_fini(struct vdxg_device *vdxg)
{
	if (!vdxg->sriov.total_vfs)
		return;
	mutex_lock(&vdxg->sriov.lock);
	vdxg_sriov_disable(vdxg);
	mutex_unlock(&vdxg->sriov.lock);
}

/* Fill @r with resource @r->resource_index of VF @r->vf_index. */
static void vdxg_sriov_range(struct vdxg_device *vdxg,
			     struct drm_vdxg_backing_resource *r)
{
	const struct vdxg_sriov_vf *svf = &vdxg->sriov.vfs[r->vf_index];
	u64 bar_offset = 0;
	unsigned int i;

	if (r->resource_index >= svf->count)
		return;
	for (i = 0; i < r->resource_index; i++)
		bar_offset += (u64)svf->nodes[i].size << PAGE_SHIFT;
	r->bar = VDXG_BAR_VRAM;
	r->vram_offset = vdxg_vram_offset(svf->nodes[i].start);
	r->length = (u64)svf->nodes[i].size << PAGE_SHIFT;
	r->bar_offset = bar_offset;
	if (r->vram_offset + r->length <= vdxg->vram_bar_size)
		r->host_base = vdxg->vram_bar_start + r->vram_offset;
}

/**
 * vdxg_get_backing_resource_ioctl - DRM_IOCTL_VDXG_GET_BACKING_RESOURCE
 * @drm: the DRM device
 * @data: struct drm_vdxg_backing_resource
 * @file: the caller
 *
 * Return: 0 or a negative errno (see the uapi header).
 */
int vdxg_get_backing_resource_ioctl(struct drm_device *drm, void *data,
				    struct drm_file *file)
{
	struct vdxg_device *vdxg = to_vdxg(drm);
	struct drm_vdxg_backing_resource *r = data;
	int ret = 0;

	if (!vdxg->sriov.total_vfs)
		return -EOPNOTSUPP;
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (r->flags || r->pad || r->vf_index >= vdxg->sriov.total_vfs ||
	    r->resource_index >= DRM_VDXG_MAX_BACKING_RESOURCES)
		return -EINVAL;

	r->bar = 0;
	r->host_base = 0;
	r->length = 0;
	r->vram_offset = 0;
	r->bar_offset = 0;
	mutex_lock(&vdxg->sriov.lock);
	if (r->vf_index >= vdxg->sriov.num_vfs)
		ret = -ENOENT;
	else
		vdxg_sriov_range(vdxg, r);
	mutex_unlock(&vdxg->sriov.lock);
	return ret;
}

/**
 * vdxg_sriov_print - the VFs and their backing ranges, for debugfs
 * @vdxg: the device
 * @p: where to print
 */
void vdxg_sriov_print(struct vdxg_device *vdxg, struct drm_printer *p)
{
	struct vdxg_sriov *sriov = &vdxg->sriov;
	unsigned int vf, i;

	mutex_lock(&sriov->lock);
	drm_printf(p, "total_vfs: %u\nnum_vfs: %u\nvf_vram_size: %llu\n",
		   sriov->total_vfs, sriov->num_vfs, sriov->vf_vram_size);
	for (vf = 0; vf < sriov->num_vfs; vf++) {
		struct drm_vdxg_backing_resource r = { .vf_index = vf };

		drm_printf(p, "VF %u: %u range(s)\n", vf,
			   sriov->vfs[vf].count);
		for (i = 0; i < sriov->vfs[vf].count; i++) {
			r.resource_index = i;
			vdxg_sriov_range(vdxg, &r);
			drm_printf(p, "  %2u: BAR%u +0x%08llx <- VRAM 0x%09llx",
				   i, r.bar, r.bar_offset, r.vram_offset);
			drm_printf(p, ", 0x%08llx bytes, host 0x%llx\n",
				   r.length, r.host_base);
		}
	}
	mutex_unlock(&sriov->lock);
}
