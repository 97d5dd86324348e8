// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <drm/drm_drv.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>
#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_range_manager.h>
#include <drm/ttm/ttm_tt.h>

#include "vdxg_bo.h"
#include "vdxg_drv.h"
#include "vdxg_gate.h"

/**
 * DOC: Memory segments
 *
 * GEM objects live on TTM in WDDM's three segments:
 *
 * - VRAM (TTM_PL_VRAM): everything past the reserved start of VRAM, kept
 *   by vdxg's VRAM manager (see "VRAM manager"). The part inside the VRAM
 *   BAR is CPU-visible.
 * - Aperture (TTM_PL_TT): the GART-translated window, also a range
 *   manager. Binding and unbinding are MAP_APERTURE and UNMAP_APERTURE
 *   paging operations, never CPU writes to the GART.
 * - System (TTM_PL_SYSTEM): pages from TTM's pool, zeroed on allocation.
 *
 * TTM's move callback turns every change of segment into paging
 * operations (see "Paging queue"): a TRANSFER between the old and new
 * location, with system pages given as page lists (WDDM's MDL); a FILL of
 * zeroes when an object first lands in VRAM with no content, so that no
 * client sees another's data; and aperture mappings. The move is
 * pipelined: TTM gets the fence of the last paging buffer and frees the
 * old placement when it signals. The CPU copies nothing.
 */

static const struct ttm_place vdxg_sys_place = {
	.mem_type = TTM_PL_SYSTEM,
};

/**
 * vdxg_ttm_gpu_addr - GPU address of a resource
 * @vdxg: the device
 * @res: a VRAM or TT resource
 *
 * Return: the address, or 0 for system memory.
 */
u64 vdxg_ttm_gpu_addr(struct vdxg_device *vdxg, const struct ttm_resource *res)
{
	switch (res->mem_type) {
	case TTM_PL_VRAM:
		return vdxg_vram_offset(res->start);
	case TTM_PL_TT:
		return vdxg->aperture_base + ((u64)res->start << PAGE_SHIFT);
	default:
		return 0;
	}
}

static struct vdxg_device *ttm_to_vdxg(struct ttm_buffer_object *tbo)
{
	return container_of(tbo->bdev, struct vdxg_device, ttm);
}

static struct ttm_tt *vdxg_ttm_tt_create(struct ttm_buffer_object *tbo,
					 u32 page_flags)
{
	struct ttm_tt *tt = kzalloc(sizeof(*tt), GFP_KERNEL);

	if (!tt)
		return NULL;
	/* Zeroed pages: clear-on-allocate for the system segment. */
	if (ttm_sg_tt_init(tt, tbo, page_flags | TTM_TT_FLAG_ZERO_ALLOC,
			   ttm_cached)) {
		kfree(tt);
		return NULL;
	}
	return tt;
}

static void vdxg_ttm_tt_destroy(struct ttm_device *bdev, struct ttm_tt *tt)
{
	ttm_tt_fini(tt);
	kfree(tt);
}

static void vdxg_evict_flags(struct ttm_buffer_object *tbo,
			     struct ttm_placement *placement)
{
	placement->num_placement = 1;
	placement->placement = &vdxg_sys_place;
}

/*
 * A new object has no resource yet; one in system memory may have no pages
 * yet, or have had them swapped out by TTM's shrinker, which still counts
 * as content: populating the object swaps it back in.
 */
static bool vdxg_has_content(struct ttm_buffer_object *tbo)
{
	if (!tbo->resource)
		return false;
	return tbo->resource->mem_type != TTM_PL_SYSTEM ||
	       (tbo->ttm && (ttm_tt_is_populated(tbo->ttm) ||
			     tbo->ttm->page_flags & TTM_TT_FLAG_SWAPPED));
}

static bool vdxg_in(const struct ttm_resource *res, u32 mem_type)
{
	return res && res->mem_type == mem_type;
}

static void vdxg_pg_loc(struct vdxg_device *vdxg, struct ttm_buffer_object *tbo,
			struct ttm_resource *res, struct vdxg_pg_loc *loc)
{
	memset(loc, 0, sizeof(*loc));
	if (res->mem_type != TTM_PL_SYSTEM) {
		/* VRAM, or the aperture: the GART translates it. */
		loc->addr = vdxg_ttm_gpu_addr(vdxg, res);
	} else {
		loc->pages = tbo->ttm->dma_address;
		loc->npages = tbo->ttm->num_pages;
	}
}

static int vdxg_map_ops(struct vdxg_pg_batch *b, struct ttm_buffer_object *tbo,
			struct ttm_resource *res, bool map)
{
	u32 pages = tbo->base.size >> PAGE_SHIFT;
	u64 progress = 0;
	int ret;

	if (map)
		ret = vdxg_pg_emit(b, vdxg_pg_map_aperture(&b->pb, res->start,
							   tbo->ttm->dma_address,
							   pages, &progress,
							   &b->stats));
	else
		ret = vdxg_pg_emit(b, vdxg_pg_unmap_aperture(&b->pb, res->start,
							     pages, &b->stats));
	return ret ?: vdxg_pg_emit(b, vdxg_pg_flush_tlb(&b->pb, &b->stats));
}

/*
 * Emit the paging operations that take @tbo from its resource to @new: map
 * a new aperture place first, so that a transfer can go through it, then
 * move or clear the content, then unmap the old aperture place. System
 * memory takes part as a page list.
 */
static int vdxg_move_ops(struct vdxg_pg_batch *b, struct ttm_buffer_object *tbo,
			 struct ttm_resource *new, bool content, bool clear)
{
	struct vdxg_device *vdxg = b->vdxg;
	struct ttm_resource *old = tbo->resource;
	u64 size = tbo->base.size, progress = 0;
	bool vram_involved = vdxg_in(old, TTM_PL_VRAM) ||
			     new->mem_type == TTM_PL_VRAM;
	struct vdxg_pg_loc src, dst;
	int ret = 0;

	if (new->mem_type == TTM_PL_TT)
		ret = vdxg_map_ops(b, tbo, new, true);
	if (ret)
		return ret;

	if (content && vram_involved) {
		vdxg_pg_loc(vdxg, tbo, old, &src);
		vdxg_pg_loc(vdxg, tbo, new, &dst);
		ret = vdxg_pg_emit(b, vdxg_pg_transfer(&b->pb, &src, &dst, size,
						       &progress, &b->stats));
	} else if (!content && new->mem_type == TTM_PL_VRAM && clear) {
		ret = vdxg_pg_emit(b, vdxg_pg_fill(&b->pb,
						   vdxg_ttm_gpu_addr(vdxg, new),
						   size, 0, &progress,
						   &b->stats));
	}
	if (ret)
		return ret;

	if (vdxg_in(old, TTM_PL_TT))
		ret = vdxg_map_ops(b, tbo, old, false);
	return ret;
}

/*
 * A first placement waits only for the last eviction out of its memory
 * type (TTM's move fence for the manager, a job of the device's paging
 * queue), not for the fences on its reservation.
 */
static int vdxg_bo_first_place_dep(struct vdxg_pg_batch *b,
				   struct ttm_buffer_object *tbo,
				   struct ttm_resource *new)
{
	struct ttm_resource_manager *man =
		ttm_manager_type(tbo->bdev, new->mem_type);
	struct dma_fence *fence;
	int ret;

	spin_lock(&man->move_lock);
	fence = dma_fence_get(man->move);
	spin_unlock(&man->move_lock);
	ret = vdxg_pg_batch_add_dep(b, fence);
	dma_fence_put(fence);
	return ret;
}

static int vdxg_bo_move_ops(struct ttm_buffer_object *tbo, bool evict,
			    struct ttm_operation_ctx *ctx,
			    struct ttm_resource *new)
{
	struct vdxg_device *vdxg = ttm_to_vdxg(tbo);
	struct vdxg_bo *bo = to_vdxg_bo(tbo);
	bool content = vdxg_has_content(tbo);
	struct vdxg_pg_batch b;
	struct dma_fence *fence;
	bool vm_ops = false;
	int idx, ret;

	/* Nothing to do on the GPU: no content, no aperture. */
	if (!content && new->mem_type == TTM_PL_SYSTEM) {
		ttm_bo_move_null(tbo, new);
		return 0;
	}
	if (vdxg_in(tbo->resource, TTM_PL_SYSTEM) &&
	    new->mem_type == TTM_PL_SYSTEM) {
		ttm_bo_move_null(tbo, new);
		return 0;
	}

	if (!drm_dev_enter(&vdxg->drm, &idx))
		return -ENODEV;

	if (tbo->ttm && !ttm_tt_is_populated(tbo->ttm)) {
		ret = ttm_tt_populate(tbo->bdev, tbo->ttm, ctx);
		if (ret)
			goto out;
	}

	/*
	 * The paging queue waits for nothing a client holds up: the mover
	 * does, on the CPU, as the move's context says, until the object's
	 * jobs and binds are at least on their engines. A first placement
	 * has no content and no user, and its jobs wait for nothing: its
	 * reservation may be shared with others' (an object private to a
	 * VM, a page table) whose fences a client holds up, binds waiting
	 * for their in-fences among them.
	 */
	if (tbo->resource) {
		ret = vdxg_pg_wait_queued_resv(vdxg, tbo->base.resv, ctx);
		if (ret)
			goto out;
	}
	ret = vdxg_pg_batch_begin(&b, vdxg,
				  tbo->resource ? tbo->base.resv : NULL);
	if (!ret && !tbo->resource)
		ret = vdxg_bo_first_place_dep(&b, tbo, new);
	if (ret) {
		if (b.staging)
			vdxg_pg_batch_end(&b);
		goto out;
	}
	ret = vdxg_move_ops(&b, tbo, new, content,
			    !(bo->flags & DRM_VDXG_GEM_NO_CLEAR));
	/* Then, in the same jobs, every VM's view of the object. */
	if (!ret) {
		vm_ops = true;
		ret = vdxg_vm_move_ops(&b, tbo, new);
	}
	fence = vdxg_pg_batch_end(&b);
	if (IS_ERR(fence)) {
		ret = ret ?: PTR_ERR(fence);
		fence = NULL;
	}
	/* Some VMs may point at the new place, which the failure frees. */
	if (ret && vm_ops)
		vdxg_vm_move_failed(tbo);
	if (ret) {
		if (fence) {
			dma_fence_wait(fence, false);
			dma_fence_put(fence);
		}
		goto out;
	}

	if (fence && !tbo->resource) {
		/* First placement: nothing to free, just fence the clear. */
		dma_resv_add_fence(tbo->base.resv, fence, DMA_RESV_USAGE_KERNEL);
		ttm_bo_move_null(tbo, new);
		dma_fence_put(fence);
	} else if (fence) {
		/*
		 * Out of VRAM, the old range is freed at once, as for an
		 * eviction: TTM makes its next user wait for this fence (the
		 * manager's move fence; every move fence is the paging
		 * queue's, in order), instead of keeping it on a ghost object
		 * that is freed by a worker later.
		 */
		ret = ttm_bo_move_accel_cleanup(tbo, fence,
						evict || vdxg_in(tbo->resource,
								 TTM_PL_VRAM),
						true, new);
		dma_fence_put(fence);
	} else {
		ttm_bo_move_null(tbo, new);
	}
out:
	drm_dev_exit(idx);
	return ret;
}

/*
 * After each move the object notes where it is: fdinfo reads that without
 * the reservation, when the resource itself may be freed at any time.
 */
static int vdxg_bo_move(struct ttm_buffer_object *tbo, bool evict,
			struct ttm_operation_ctx *ctx,
			struct ttm_resource *new, struct ttm_place *hop)
{
	int ret = vdxg_bo_move_ops(tbo, evict, ctx, new);

	if (!ret && vdxg_is_bo(tbo))
		WRITE_ONCE(to_vdxg_bo(tbo)->mem_type, tbo->resource->mem_type);
	return ret;
}

/* Bytes of pinned objects in VRAM and in the aperture, in one walk. */
static void vdxg_ttm_pinned(struct vdxg_device *vdxg, u64 *vram, u64 *tt)
{
	struct ttm_lru_item *lru;

	*vram = 0;
	*tt = 0;
	spin_lock(&vdxg->ttm.lru_lock);
	list_for_each_entry(lru, &vdxg->ttm.pinned, link) {
		struct ttm_resource *res;

		if (!ttm_lru_item_is_res(lru))
			continue;
		res = ttm_lru_item_to_res(lru);
		if (res->mem_type == TTM_PL_VRAM)
			*vram += res->size;
		else if (res->mem_type == TTM_PL_TT)
			*tt += res->size;
	}
	spin_unlock(&vdxg->ttm.lru_lock);
}

/**
 * vdxg_ttm_engine_room - how much of the engines' reach objects may have
 * @vdxg: the device
 * @vram: out: bytes of the VRAM segment neither pinned nor carved for VFs
 * @aperture: out: bytes of the aperture not pinned
 *
 * What the allocations of one submission may use together once every
 * other object that can move has been evicted. A snapshot: pins come and
 * go.
 */
void vdxg_ttm_engine_room(struct vdxg_device *vdxg, u64 *vram, u64 *aperture)
{
	struct ttm_resource_manager *man;
	u64 size, taken, pinned_vram, pinned_tt;

	vdxg_ttm_pinned(vdxg, &pinned_vram, &pinned_tt);
	man = ttm_manager_type(&vdxg->ttm, TTM_PL_VRAM);
	size = man->size << PAGE_SHIFT;
	taken = pinned_vram + vdxg_vram_mgr_reserved(vdxg);
	*vram = size > taken ? size - taken : 0;

	man = ttm_manager_type(&vdxg->ttm, TTM_PL_TT);
	size = man->size << PAGE_SHIFT;
	*aperture = size > pinned_tt ? size - pinned_tt : 0;
}

/**
 * vdxg_ttm_cpu_visible - can the CPU reach this place
 * @vdxg: the device
 * @res: a place of an object
 *
 * Return: false for VRAM beyond the VRAM BAR, true otherwise.
 */
bool vdxg_ttm_cpu_visible(struct vdxg_device *vdxg,
			  const struct ttm_resource *res)
{
	return res->mem_type != TTM_PL_VRAM ||
	       vdxg_ttm_gpu_addr(vdxg, res) + res->size <= vdxg->vram_bar_size;
}

static int vdxg_io_mem_reserve(struct ttm_device *bdev,
			       struct ttm_resource *mem)
{
	struct vdxg_device *vdxg = container_of(bdev, struct vdxg_device, ttm);

	switch (mem->mem_type) {
	case TTM_PL_SYSTEM:
	case TTM_PL_TT:
		return 0;
	case TTM_PL_VRAM:
		if (!vdxg_ttm_cpu_visible(vdxg, mem))
			return -EINVAL;	/* vdxg_gem_fault() moves it first */
		mem->bus.offset = vdxg->vram_bar_start +
				  vdxg_ttm_gpu_addr(vdxg, mem);
		mem->bus.is_iomem = true;
		mem->bus.caching = ttm_write_combined;
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * An object freed while in the aperture must leave no GART entry pointing
 * at its pages once they go back to the system: unmap and wait. TTM's
 * ghost objects, which hold the old place of a pipelined move, are skipped:
 * the move unmapped that place already.
 */
static void vdxg_bo_delete_mem_notify(struct ttm_buffer_object *tbo)
{
	struct vdxg_device *vdxg = ttm_to_vdxg(tbo);
	struct ttm_resource *res = tbo->resource;
	struct dma_fence *fence;
	struct vdxg_pg_batch b;
	int idx, ret;

	if (!vdxg_is_bo(tbo) || !res || res->mem_type != TTM_PL_TT)
		return;
	if (!drm_dev_enter(&vdxg->drm, &idx))
		return;

	if (!vdxg_pg_batch_begin(&b, vdxg, tbo->base.resv)) {
		ret = vdxg_pg_emit(&b, vdxg_pg_unmap_aperture(&b.pb, res->start,
							      res->size >> PAGE_SHIFT,
							      &b.stats));
		if (!ret)
			ret = vdxg_pg_emit(&b, vdxg_pg_flush_tlb(&b.pb, &b.stats));
		fence = vdxg_pg_batch_end(&b);
		if (!IS_ERR_OR_NULL(fence)) {
			dma_fence_wait(fence, false);
			dma_fence_put(fence);
		}
	}
	drm_dev_exit(idx);
}

/*
 * An object whose reservation holds a VM's bind not yet on the engine (it
 * may wait for a client's in-fence) is not evicted: the move would wait,
 * on the CPU of whoever needs the room, for as long as that client likes.
 * TTM's LRU walk passes it by; the allocation evicts another object, or
 * fails. Objects of render jobs merely queued are evicted after them, as
 * before: refusing those made allocations fail whenever the scheduler had
 * not yet picked a job up (vdxg_vm@table-after-eviction, debug kernel).
 */
static bool vdxg_eviction_valuable(struct ttm_buffer_object *tbo,
				   const struct ttm_place *place)
{
	if (vdxg_resv_gated(ttm_to_vdxg(tbo), tbo->base.resv))
		return false;
	return ttm_bo_eviction_valuable(tbo, place);
}

static const struct ttm_device_funcs vdxg_ttm_funcs = {
	.ttm_tt_create = vdxg_ttm_tt_create,
	.ttm_tt_destroy = vdxg_ttm_tt_destroy,
	.ttm_tt_populate = vdxg_ttm_tt_populate,
	.ttm_tt_unpopulate = vdxg_ttm_tt_unpopulate,
	.eviction_valuable = vdxg_eviction_valuable,
	.swap_notify = vdxg_vm_swap_notify,
	.evict_flags = vdxg_evict_flags,
	.move = vdxg_bo_move,
	.io_mem_reserve = vdxg_io_mem_reserve,
	.delete_mem_notify = vdxg_bo_delete_mem_notify,
};

static void vdxg_ttm_release(struct drm_device *drm, void *arg)
{
	struct vdxg_device *vdxg = to_vdxg(drm);

	ttm_range_man_fini(&vdxg->ttm, TTM_PL_TT);
	vdxg_vram_mgr_fini(vdxg);
	ttm_device_fini(&vdxg->ttm);
}

/**
 * vdxg_ttm_init - set up TTM with the VRAM and aperture segments
 * @vdxg: the device
 *
 * TTM is torn down when the DRM device is released, after the last
 * object is gone, not at unbind.
 *
 * Return: 0 or a negative errno.
 */
int vdxg_ttm_init(struct vdxg_device *vdxg)
{
	struct drm_device *drm = &vdxg->drm;
	int ret;

	/*
	 * TTM's page pool for every caching mode (use_dma_alloc): freed
	 * pages are cleared as they go back to the pool, in the worker that
	 * frees an object's old place once its move is done, and an eviction
	 * takes them cleared from there. Without the pool, cached pages come
	 * from the page allocator on every eviction and are zeroed there, in
	 * the move's ioctl: on a guest that zeroes at CPU speed that is most
	 * of the time a large eviction takes.
	 */
	ret = ttm_device_init(&vdxg->ttm, &vdxg_ttm_funcs, drm->dev,
			      drm->anon_inode->i_mapping,
			      drm->vma_offset_manager, true, false);
	if (ret)
		return ret;

	vdxg_vram_mgr_init(vdxg,
			   (vdxg->vram_size - VDXG_KMEM_SIZE) >> PAGE_SHIFT);

	ret = ttm_range_man_init(&vdxg->ttm, TTM_PL_TT, true,
				 vdxg->aperture_size >> PAGE_SHIFT);
	if (ret)
		goto err_vram;

	return drmm_add_action_or_reset(drm, vdxg_ttm_release, NULL);

err_vram:
	vdxg_vram_mgr_fini(vdxg);
	ttm_device_fini(&vdxg->ttm);
	return ret;
}
