// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/dma-buf.h>

#include <drm/drm_prime.h>
#include <drm/ttm/ttm_tt.h>

#include "vdxg_bo.h"
#include "vdxg_drv.h"

/**
 * DOC: PRIME
 *
 * Export: an attached object is pinned where its pages are system pages,
 * the aperture when its segment set has it, else system memory, and its
 * scatter list is built from those pages. VRAM-only objects cannot be
 * shared: there is no peer-to-peer path.
 *
 * Import: the exporter's pages become an object of the aperture segment
 * only, bound through the GART like any other aperture object, sharing the
 * exporter's reservation object, so the render and display engines can
 * use it.
 */

static struct ttm_buffer_object *obj_to_tbo(struct drm_gem_object *obj)
{
	return container_of(obj, struct ttm_buffer_object, base);
}

/**
 * vdxg_gem_pin - pin an object for export, with its reservation held
 * @obj: the object
 *
 * Return: 0, -EINVAL for an object whose segments have no system pages,
 * -EBUSY for one pinned in VRAM (a scanout: no pages to share), or the
 * error of moving it.
 */
int vdxg_gem_pin(struct drm_gem_object *obj)
{
	struct ttm_operation_ctx ctx = { .interruptible = true,
					 .gfp_retry_mayfail = true };
	struct ttm_buffer_object *tbo = obj_to_tbo(obj);
	struct vdxg_bo *bo = to_vdxg_bo(tbo);
	struct ttm_placement placement = { .num_placement = 1 };
	u32 i;
	int ret;

	if (tbo->pin_count && tbo->resource->mem_type == TTM_PL_VRAM)
		return -EBUSY;

	if (!tbo->pin_count) {
		for (i = 0; i < bo->placement.num_placement; i++) {
			const struct ttm_place *p = &bo->places[i];

			if (p->mem_type == TTM_PL_TT ||
			    (p->mem_type == TTM_PL_SYSTEM &&
			     !placement.placement))
				placement.placement = p;
		}
		if (!placement.placement)
			return -EINVAL;
		ret = ttm_bo_validate(tbo, &placement, &ctx);
		if (ret)
			return ret;
		if (!tbo->ttm)
			return -EINVAL;
		ret = ttm_tt_populate(tbo->bdev, tbo->ttm, &ctx);
		if (ret)
			return ret;
	}
	ttm_bo_pin(tbo);
	return 0;
}

/**
 * vdxg_gem_unpin - undo vdxg_gem_pin(), with the reservation held
 * @obj: the object
 */
void vdxg_gem_unpin(struct drm_gem_object *obj)
{
	ttm_bo_unpin(obj_to_tbo(obj));
}

/**
 * vdxg_gem_get_sg_table - the pages of a pinned object
 * @obj: the object
 *
 * Return: a new scatter list, or an ERR_PTR.
 */
struct sg_table *vdxg_gem_get_sg_table(struct drm_gem_object *obj)
{
	struct ttm_tt *tt = obj_to_tbo(obj)->ttm;

	if (!tt || !tt->pages)
		return ERR_PTR(-EINVAL);
	return drm_prime_pages_to_sg(obj->dev, tt->pages, tt->num_pages);
}

/**
 * vdxg_gem_prime_import_sg_table - make an object of an exporter's pages
 * @drm: the device
 * @attach: the attachment
 * @sgt: the mapped pages
 *
 * Return: the object, or an ERR_PTR.
 */
struct drm_gem_object *
vdxg_gem_prime_import_sg_table(struct drm_device *drm,
			       struct dma_buf_attachment *attach,
			       struct sg_table *sgt)
{
	static const u32 segments[] = { DRM_VDXG_SEGMENT_APERTURE };
	struct dma_buf *dmabuf = attach->dmabuf;
	struct vdxg_bo *bo;
	int ret;

	/* TTM places the object under the shared reservation: hold it. */
	dma_resv_lock(dmabuf->resv, NULL);
	ret = vdxg_bo_create_sg(to_vdxg(drm), dmabuf->size, 0, segments,
				ARRAY_SIZE(segments), sgt, dmabuf->resv, &bo);
	dma_resv_unlock(dmabuf->resv);
	if (ret)
		return ERR_PTR(ret);
	return &bo->tbo.base;
}

/**
 * vdxg_ttm_tt_populate - give a TTM object its pages
 * @bdev: the TTM device
 * @tt: the object's pages
 * @ctx: the operation context
 *
 * Imported objects take the exporter's, as bus addresses; the others come
 * from TTM's pool.
 *
 * Return: 0 or a negative errno.
 */
int vdxg_ttm_tt_populate(struct ttm_device *bdev, struct ttm_tt *tt,
			 struct ttm_operation_ctx *ctx)
{
	if (tt->page_flags & TTM_TT_FLAG_EXTERNAL)
		return drm_prime_sg_to_dma_addr_array(tt->sg, tt->dma_address,
						      tt->num_pages);
	return ttm_pool_alloc(&bdev->pool, tt, ctx);
}

/**
 * vdxg_ttm_tt_unpopulate - release what vdxg_ttm_tt_populate() took
 * @bdev: the TTM device
 * @tt: the object's pages
 */
void vdxg_ttm_tt_unpopulate(struct ttm_device *bdev, struct ttm_tt *tt)
{
	if (!(tt->page_flags & TTM_TT_FLAG_EXTERNAL))
		ttm_pool_free(&bdev->pool, tt);
}
