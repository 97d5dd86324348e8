// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/slab.h>

#include <drm/drm_print.h>
#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_device.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_resource.h>

#include "vdxg_drv.h"
#include "vdxg_vram_mgr.h"

/**
 * DOC: VRAM manager
 *
 * VRAM past the reserved start is TTM's VRAM segment, managed by a drm_mm
 * of pages. Objects get one contiguous range each, within the place's
 * page range (the CPU-visible part when they must be mapped), best fit or
 * from the top. The same drm_mm gives SR-IOV virtual functions their
 * memory: vdxg_vram_mgr_carve() takes it from the free space as a few
 * ranges without evicting anything (see "Carving VF memory"), and
 * vdxg_vram_mgr_fragment() fragments the free space on purpose for tests.
 * Memory held that way is counted as used in debugfs ``segments``.
 */

struct vdxg_vram_node {
	struct ttm_resource base;
	struct drm_mm_node node;
};

/* A GPU VM's 2 MiB page, in pages. */
#define VDXG_VRAM_LARGE_PAGES	(SZ_2M >> PAGE_SHIFT)

static struct vdxg_vram_mgr *to_vram_mgr(struct ttm_resource_manager *man)
{
	return container_of(man, struct vdxg_vram_mgr, manager);
}

static struct vdxg_vram_node *to_vram_node(struct ttm_resource *res)
{
	return container_of(res, struct vdxg_vram_node, base);
}

static int vdxg_vram_alloc(struct ttm_resource_manager *man,
			   struct ttm_buffer_object *bo,
			   const struct ttm_place *place,
			   struct ttm_resource **res)
{
	struct vdxg_vram_mgr *mgr = to_vram_mgr(man);
	enum drm_mm_insert_mode mode = DRM_MM_INSERT_BEST;
	unsigned long lpfn = place->lpfn ?: man->size;
	struct vdxg_vram_node *node;
	int ret;

	node = kzalloc(sizeof(*node), GFP_KERNEL);
	if (!node)
		return -ENOMEM;
	if (place->flags & TTM_PL_FLAG_TOPDOWN)
		mode = DRM_MM_INSERT_HIGH;

	ttm_resource_init(bo, place, &node->base);
	mutex_lock(&mgr->lock);
	/*
	 * Objects of 2 MiB or more start on a 2 MiB boundary when there is
	 * room for that: GPU VMs then map them with 2 MiB pages.
	 */
	ret = -ENOSPC;
	if (node->base.size >= SZ_2M &&
	    bo->page_alignment < VDXG_VRAM_LARGE_PAGES)
		ret = drm_mm_insert_node_in_range(&mgr->mm, &node->node,
						  PFN_UP(node->base.size),
						  VDXG_VRAM_LARGE_PAGES, 0,
						  place->fpfn, lpfn, mode);
	if (ret == -ENOSPC)
		ret = drm_mm_insert_node_in_range(&mgr->mm, &node->node,
						  PFN_UP(node->base.size),
						  bo->page_alignment, 0,
						  place->fpfn, lpfn, mode);
	mutex_unlock(&mgr->lock);
	if (ret) {
		ttm_resource_fini(man, &node->base);
		kfree(node);
		return ret;
	}
	node->base.start = node->node.start;
	*res = &node->base;
	return 0;
}

static void vdxg_vram_free(struct ttm_resource_manager *man,
			   struct ttm_resource *res)
{
	struct vdxg_vram_mgr *mgr = to_vram_mgr(man);
	struct vdxg_vram_node *node = to_vram_node(res);

	mutex_lock(&mgr->lock);
	drm_mm_remove_node(&node->node);
	mutex_unlock(&mgr->lock);
	ttm_resource_fini(man, res);
	kfree(node);
}

static bool vdxg_vram_intersects(struct ttm_resource_manager *man,
				 struct ttm_resource *res,
				 const struct ttm_place *place, size_t size)
{
	const struct drm_mm_node *node = &to_vram_node(res)->node;

	return place->fpfn < node->start + PFN_UP(size) &&
	       (!place->lpfn || place->lpfn > node->start);
}

static bool vdxg_vram_compatible(struct ttm_resource_manager *man,
				 struct ttm_resource *res,
				 const struct ttm_place *place, size_t size)
{
	const struct drm_mm_node *node = &to_vram_node(res)->node;

	return node->start >= place->fpfn &&
	       (!place->lpfn || node->start + PFN_UP(size) <= place->lpfn);
}

static void vdxg_vram_debug(struct ttm_resource_manager *man,
			    struct drm_printer *p)
{
	struct vdxg_vram_mgr *mgr = to_vram_mgr(man);

	mutex_lock(&mgr->lock);
	drm_printf(p, "  carved for VFs: %llu, fragmenting: %llu\n",
		   mgr->carved << PAGE_SHIFT, mgr->frag.size << PAGE_SHIFT);
	drm_mm_print(&mgr->mm, p);
	mutex_unlock(&mgr->lock);
}

static const struct ttm_resource_manager_func vdxg_vram_mgr_func = {
	.alloc = vdxg_vram_alloc,
	.free = vdxg_vram_free,
	.intersects = vdxg_vram_intersects,
	.compatible = vdxg_vram_compatible,
	.debug = vdxg_vram_debug,
};

/**
 * vdxg_vram_mgr_init - TTM's VRAM segment on a drm_mm of @pages pages
 * @vdxg: the device
 * @pages: size of the segment
 */
void vdxg_vram_mgr_init(struct vdxg_device *vdxg, u64 pages)
{
	struct vdxg_vram_mgr *mgr = &vdxg->vram_mgr;
	struct ttm_resource_manager *man = &mgr->manager;

	man->use_tt = false;
	man->func = &vdxg_vram_mgr_func;
	ttm_resource_manager_init(man, &vdxg->ttm, pages);
	/* Aligned in the segment is aligned in VRAM (vdxg_vram_offset()). */
	BUILD_BUG_ON(!IS_ALIGNED(VDXG_KMEM_SIZE, SZ_2M));
	drm_mm_init(&mgr->mm, 0, pages);
	mutex_init(&mgr->lock);
	vdxg_fragments_init(&mgr->frag);
	ttm_set_driver_manager(&vdxg->ttm, TTM_PL_VRAM, man);
	ttm_resource_manager_set_used(man, true);
}

/**
 * vdxg_vram_mgr_fini - evict everything and take the segment down
 * @vdxg: the device
 *
 * Return: 0 or the eviction's error.
 */
int vdxg_vram_mgr_fini(struct vdxg_device *vdxg)
{
	struct vdxg_vram_mgr *mgr = &vdxg->vram_mgr;
	struct ttm_resource_manager *man = &mgr->manager;
	int ret;

	ttm_resource_manager_set_used(man, false);
	ret = ttm_resource_manager_evict_all(&vdxg->ttm, man);
	if (ret)
		return ret;

	mutex_lock(&mgr->lock);
	vdxg_fragments_release(&mgr->frag);
	drm_mm_takedown(&mgr->mm);
	mutex_unlock(&mgr->lock);
	mutex_destroy(&mgr->lock);
	ttm_resource_manager_cleanup(man);
	ttm_set_driver_manager(&vdxg->ttm, TTM_PL_VRAM, NULL);
	return 0;
}

/**
 * vdxg_vram_mgr_used - bytes of the VRAM segment in use
 * @vdxg: the device
 *
 * Return: what objects, virtual functions and fragmenting nodes hold.
 */
u64 vdxg_vram_mgr_used(struct vdxg_device *vdxg)
{
	return ttm_resource_manager_usage(&vdxg->vram_mgr.manager) +
	       vdxg_vram_mgr_reserved(vdxg);
}

/**
 * vdxg_vram_mgr_reserved - bytes of the VRAM segment objects cannot have
 * @vdxg: the device
 *
 * Return: what virtual functions and fragmenting nodes hold.
 */
u64 vdxg_vram_mgr_reserved(struct vdxg_device *vdxg)
{
	struct vdxg_vram_mgr *mgr = &vdxg->vram_mgr;
	u64 pages;

	mutex_lock(&mgr->lock);
	pages = mgr->carved + mgr->frag.size;
	mutex_unlock(&mgr->lock);
	return pages << PAGE_SHIFT;
}

/**
 * vdxg_vram_mgr_carve - take VRAM for a virtual function
 * @vdxg: the device
 * @size: bytes, a page multiple
 * @nodes: @max_nodes zeroed nodes, filled with the ranges in BAR order
 * @max_nodes: the most ranges allowed
 *
 * Return: the number of ranges, or -ENOSPC or -E2BIG (see vdxg_carve()).
 */
int vdxg_vram_mgr_carve(struct vdxg_device *vdxg, u64 size,
			struct drm_mm_node *nodes, unsigned int max_nodes)
{
	struct vdxg_vram_mgr *mgr = &vdxg->vram_mgr;
	int ret;

	mutex_lock(&mgr->lock);
	ret = vdxg_carve(&mgr->mm, size >> PAGE_SHIFT, nodes, max_nodes);
	if (ret > 0)
		mgr->carved += size >> PAGE_SHIFT;
	mutex_unlock(&mgr->lock);
	return ret;
}

/**
 * vdxg_vram_mgr_uncarve - give back what vdxg_vram_mgr_carve() took
 * @vdxg: the device
 * @nodes: its nodes
 * @count: how many ranges it returned
 */
void vdxg_vram_mgr_uncarve(struct vdxg_device *vdxg, struct drm_mm_node *nodes,
			   unsigned int count)
{
	struct vdxg_vram_mgr *mgr = &vdxg->vram_mgr;
	unsigned int i;

	mutex_lock(&mgr->lock);
	for (i = 0; i < count; i++)
		mgr->carved -= nodes[i].size;
	vdxg_carve_release(nodes, count);
	mutex_unlock(&mgr->lock);
}

/**
 * vdxg_vram_mgr_fragment - fragment the free VRAM, or stop fragmenting it
 * @vdxg: the device
 * @chunk: bytes of each hole to leave, a page multiple; 0 gives back what
 *	an earlier call took
 *
 * Return: 0, or -ENOMEM (then nothing stays taken).
 */
int vdxg_vram_mgr_fragment(struct vdxg_device *vdxg, u64 chunk)
{
	struct vdxg_vram_mgr *mgr = &vdxg->vram_mgr;
	int ret = 0;

	mutex_lock(&mgr->lock);
	vdxg_fragments_release(&mgr->frag);
	if (chunk) {
		ret = vdxg_fragment(&mgr->mm, chunk >> PAGE_SHIFT, &mgr->frag);
		if (ret)
			vdxg_fragments_release(&mgr->frag);
	}
	mutex_unlock(&mgr->lock);
	return ret;
}
