// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/capability.h>
#include <linux/dma-resv.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_ttm_helper.h>
#include <drm/drm_mode.h>
#include <drm/drm_prime.h>

#include "vdxg_bo.h"
#include "vdxg_drv.h"
#include "vdxg_vm.h"

/**
 * DOC: GEM objects
 *
 * A vdxg GEM object is a WDDM allocation: a TTM buffer object with a
 * preferred segment set, the ordered list of segments it may live in. TTM
 * places it in the first segment with room and evicts others to system
 * memory under pressure; every move runs as paging operations.
 *
 * ``DRM_VDXG_GEM_CPU_ACCESS`` keeps a VRAM placement inside the VRAM BAR;
 * ``DRM_VDXG_GEM_NO_CLEAR`` skips the clear on first placement in VRAM, for
 * a caller with CAP_SYS_ADMIN only: freed VRAM still holds what its last
 * owner wrote, so for anyone else the object is cleared all the same.
 * Aperture and system pages always come zeroed from the page allocator.
 * Objects are mapped to the CPU through TTM's fault handler at the offset
 * GEM_MMAP_OFFSET returns; a fault on an object in VRAM beyond the BAR
 * (when the BAR could not be resized to all of VRAM) first moves it into
 * the BAR, or to its next segment. GEM_WAIT waits for every fence on the object and
 * GEM_INFO reports where it is now.
 */

/**
 * DOC: Commit limit
 *
 * Every object vdxg allocates pages for (not an import, whose pages are
 * the exporter's) may end up in system memory: placed there, evicted
 * there from VRAM, or swapped by TTM to shmem. As WDDM charges every
 * allocation's backing store to the system's commit, vdxg charges an
 * object's size when it is created and gives it back when the object is
 * destroyed, against one limit for all vdxg devices of the system (PFs
 * and VFs share its RAM): half of the RAM by default, as much as TTM
 * itself keeps in its pools, or the ``commit_limit_mb`` module parameter,
 * at most the RAM. A creation that would go over it fails with -ENOMEM,
 * an object larger than the whole limit with -E2BIG (an import larger
 * than the RAM too); DRM_VDXG_PARAM_COMMIT_LIMIT tells
 * userspace the limit. Without it, objects are populated only when first
 * used, so that one client could create objects as large as the RAM each
 * and have the OOM killer take other processes when it binds them.
 */

static unsigned int vdxg_commit_limit_mb;
module_param_named(commit_limit_mb, vdxg_commit_limit_mb, uint, 0444);
MODULE_PARM_DESC(commit_limit_mb,
		 "Bytes of objects all vdxg devices may hold, MiB, at most the RAM (default 0: half of the RAM)");

static atomic64_t vdxg_committed = ATOMIC64_INIT(0);

/**
 * vdxg_bo_commit_limit - the commit limit
 *
 * Return: bytes that all vdxg objects together may hold.
 */
u64 vdxg_bo_commit_limit(void)
{
	u64 ram = (u64)totalram_pages() << PAGE_SHIFT;

	if (vdxg_commit_limit_mb)
		return min_t(u64, (u64)vdxg_commit_limit_mb << 20, ram);
	return ram / 2;
}

/**
 * vdxg_bo_committed - bytes charged to the commit limit now
 *
 * Return: the bytes of all live vdxg objects that own their pages.
 */
u64 vdxg_bo_committed(void)
{
	return atomic64_read(&vdxg_committed);
}

/*
 * Charge @size if it fits under the limit. The check comes before the
 * charge: two creators racing for the last room cannot both see the other's
 * bytes and both fail.
 */
static int vdxg_bo_commit(u64 size)
{
	u64 limit = vdxg_bo_commit_limit();
	s64 old = atomic64_read(&vdxg_committed);

	if (size > limit)
		return -E2BIG;
	do {
		if ((u64)old + size > limit)
			return -ENOMEM;
	} while (!atomic64_try_cmpxchg(&vdxg_committed, &old, old + size));
	return 0;
}

static void vdxg_bo_uncommit(u64 size)
{
	atomic64_sub(size, &vdxg_committed);
}

static void vdxg_gem_free(struct drm_gem_object *obj)
{
	ttm_bo_put(container_of(obj, struct ttm_buffer_object, base));
}

/* The first page of VRAM that user objects mapped by the CPU cannot use. */
static unsigned long vdxg_bo_visible_pages(struct vdxg_device *vdxg)
{
	return (vdxg->vram_bar_size - VDXG_KMEM_SIZE) >> PAGE_SHIFT;
}

/*
 * Before a CPU fault maps an object, bring it into the CPU-visible part of
 * VRAM if it sits beyond the BAR: a move like any other, by the paging
 * engine, to the visible part of VRAM or, when that is full, to the next
 * segment of its preferred set. With the BAR covering all of VRAM there is
 * nothing to do.
 */
static vm_fault_t vdxg_bo_fault_visible(struct ttm_buffer_object *tbo)
{
	struct vdxg_device *vdxg = to_vdxg(tbo->base.dev);
	struct ttm_operation_ctx ctx = { .interruptible = false };
	struct vdxg_bo *bo = to_vdxg_bo(tbo);
	struct ttm_place places[DRM_VDXG_MAX_SEGMENTS];
	struct ttm_placement placement = {
		.num_placement = bo->placement.num_placement,
		.placement = places,
	};
	unsigned long visible = vdxg_bo_visible_pages(vdxg);
	struct ttm_resource *res = tbo->resource;
	unsigned int i;
	int ret;

	if (!res || vdxg_ttm_cpu_visible(vdxg, res))
		return 0;
	if (tbo->pin_count)
		return VM_FAULT_SIGBUS;

	for (i = 0; i < placement.num_placement; i++) {
		places[i] = bo->places[i];
		if (places[i].mem_type == TTM_PL_VRAM &&
		    (!places[i].lpfn || places[i].lpfn > visible))
			places[i].lpfn = visible;
	}
	ret = ttm_bo_validate(tbo, &placement, &ctx);
	if (ret == -EBUSY || ret == -ERESTARTSYS || ret == -EINTR)
		return VM_FAULT_NOPAGE;
	if (ret)
		return VM_FAULT_SIGBUS;
	return 0;
}

static vm_fault_t vdxg_gem_fault(struct vm_fault *vmf)
{
	struct ttm_buffer_object *tbo = vmf->vma->vm_private_data;
	vm_fault_t ret;
	int idx;

	ret = ttm_bo_vm_reserve(tbo, vmf);
	if (ret)
		return ret;

	if (drm_dev_enter(tbo->base.dev, &idx)) {
		ret = vdxg_bo_fault_visible(tbo);
		if (!ret)
			ret = ttm_bo_vm_fault_reserved(vmf, vmf->vma->vm_page_prot,
						       TTM_BO_VM_NUM_PREFAULT);
		drm_dev_exit(idx);
	} else {
		ret = ttm_bo_vm_dummy_page(vmf, vmf->vma->vm_page_prot);
	}
	/* ttm_bo_vm_fault_reserved() dropped the lock for a retry. */
	if (ret == VM_FAULT_RETRY && !(vmf->flags & FAULT_FLAG_RETRY_NOWAIT))
		return ret;
	dma_resv_unlock(tbo->base.resv);
	return ret;
}

static const struct vm_operations_struct vdxg_gem_vm_ops = {
	.fault = vdxg_gem_fault,
	.open = ttm_bo_vm_open,
	.close = ttm_bo_vm_close,
	.access = ttm_bo_vm_access,
};

/* An object private to a VM shares the VM's reservation: not exported. */
static struct dma_buf *vdxg_gem_prime_export(struct drm_gem_object *obj,
					     int flags)
{
	if (vdxg_bo_vm_private(obj))
		return ERR_PTR(-EINVAL);
	return drm_gem_prime_export(obj, flags);
}

static const struct drm_gem_object_funcs vdxg_gem_funcs = {
	.free = vdxg_gem_free,
	.export = vdxg_gem_prime_export,
	.pin = vdxg_gem_pin,
	.unpin = vdxg_gem_unpin,
	.get_sg_table = vdxg_gem_get_sg_table,
	.vmap = drm_gem_ttm_vmap,
	.vunmap = drm_gem_ttm_vunmap,
	.mmap = drm_gem_ttm_mmap,
	.print_info = drm_gem_ttm_print_info,
	.vm_ops = &vdxg_gem_vm_ops,
};

static void vdxg_bo_destroy(struct ttm_buffer_object *tbo)
{
	struct vdxg_bo *bo = to_vdxg_bo(tbo);

	/* An import lets go of its attachment and the dma-buf. */
	if (tbo->base.import_attach)
		drm_prime_gem_destroy(&tbo->base, tbo->sg);
	drm_gem_object_release(&tbo->base);
	/* TTM has given the object a reservation of its own by now. */
	if (bo->vm_resv)
		drm_gem_object_put(bo->vm_resv);
	/*
	 * Every object but an import was charged: TTM sets the type before
	 * any failure that comes here, and a failed charge never does.
	 */
	if (tbo->type != ttm_bo_type_sg)
		vdxg_bo_uncommit(tbo->base.size);
	kfree(bo);
}

static bool vdxg_is_gem(struct drm_gem_object *obj)
{
	return obj->funcs == &vdxg_gem_funcs;
}

/**
 * vdxg_bo_set_scanout - note that an object is scanned out
 * @obj: a GEM object of the device
 */
void vdxg_bo_set_scanout(struct drm_gem_object *obj)
{
	if (vdxg_is_gem(obj))
		WRITE_ONCE(to_vdxg_bo(container_of(obj,
						   struct ttm_buffer_object,
						   base))->scanout, true);
}

/**
 * vdxg_bo_shared - does the object need implicit sync
 * @obj: a GEM object of the device
 *
 * Return: true for an object exported or imported (PRIME), or scanned out.
 */
bool vdxg_bo_shared(struct drm_gem_object *obj)
{
	if (obj->dma_buf || obj->import_attach)
		return true;
	return vdxg_is_gem(obj) &&
	       READ_ONCE(to_vdxg_bo(container_of(obj,
						 struct ttm_buffer_object,
						 base))->scanout);
}

/**
 * vdxg_bo_vm_private - is this object private to a VM
 * @obj: a GEM object of the device
 *
 * Return: true for an object made with DRM_VDXG_GEM_VM_PRIVATE.
 */
bool vdxg_bo_vm_private(struct drm_gem_object *obj)
{
	struct ttm_buffer_object *tbo = container_of(obj, struct ttm_buffer_object,
						     base);

	return vdxg_is_gem(obj) && to_vdxg_bo(tbo)->vm_resv;
}

/**
 * vdxg_is_bo - is this TTM object a vdxg GEM object (not a TTM ghost)
 * @tbo: the TTM object
 *
 * Return: true for objects vdxg_bo_create() made.
 */
bool vdxg_is_bo(struct ttm_buffer_object *tbo)
{
	return tbo->destroy == vdxg_bo_destroy;
}

static int vdxg_bo_places(struct vdxg_device *vdxg, struct vdxg_bo *bo,
			  const u32 *segments, u32 n)
{
	u32 seen = 0, i;

	if (!n || n > DRM_VDXG_MAX_SEGMENTS)
		return -EINVAL;

	for (i = 0; i < n; i++) {
		struct ttm_place *place = &bo->places[i];

		if (!segments[i] || segments[i] > DRM_VDXG_MAX_SEGMENTS ||
		    seen & BIT(segments[i]))
			return -EINVAL;
		seen |= BIT(segments[i]);

		memset(place, 0, sizeof(*place));
		switch (segments[i]) {
		case DRM_VDXG_SEGMENT_VRAM:
			place->mem_type = TTM_PL_VRAM;
			if (bo->flags & DRM_VDXG_GEM_CPU_ACCESS)
				place->lpfn = vdxg_bo_visible_pages(vdxg);
			break;
		case DRM_VDXG_SEGMENT_APERTURE:
			place->mem_type = TTM_PL_TT;
			break;
		default:
			place->mem_type = TTM_PL_SYSTEM;
			break;
		}
	}
	bo->placement.num_placement = n;
	bo->placement.placement = bo->places;

	/* The segments the engines reach, for command buffers. */
	for (i = 0; i < n; i++)
		if (bo->places[i].mem_type != TTM_PL_SYSTEM)
			bo->gpu_places[bo->gpu_placement.num_placement++] =
				bo->places[i];
	bo->gpu_placement.placement = bo->gpu_places;
	return 0;
}

/**
 * vdxg_bo_create_sg - create an object, or import one, and place it
 * @vdxg: the device
 * @size: bytes, rounded up to pages
 * @flags: DRM_VDXG_GEM_*
 * @segments: preferred segment set, DRM_VDXG_SEGMENT_*
 * @num_segments: entries in @segments
 * @sg: for an imported object, its pages; else NULL
 * @resv: for an imported object, the exporter's reservation object
 * @out: the object, with one reference
 *
 * Return: 0, -EINVAL for bad arguments, -E2BIG for a size over the commit
 * limit, -ENOMEM when the object would take the objects of all vdxg
 * devices over it, -EOPNOTSUPP on a device without a paging engine, or the
 * error of placing it (-ENOMEM when no segment of the set has room).
 */
int vdxg_bo_create_sg(struct vdxg_device *vdxg, u64 size, u32 flags,
		      const u32 *segments, u32 num_segments,
		      struct sg_table *sg, struct dma_resv *resv,
		      struct vdxg_bo **out)
{
	struct vdxg_bo *bo;
	int ret;

	if (!(vdxg->caps & VDXG_CAP_PAGING))
		return -EOPNOTSUPP;
	if (!size || flags & ~DRM_VDXG_GEM_FLAGS)
		return -EINVAL;
	/* An import's pages are the exporter's: only the RAM bounds it. */
	if (size > (sg ? (u64)totalram_pages() << PAGE_SHIFT :
		     vdxg_bo_commit_limit()))
		return -E2BIG;
	size = PAGE_ALIGN(size);

	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo)
		return -ENOMEM;
	bo->flags = flags;
	bo->mem_type = TTM_NUM_MEM_TYPES;

	ret = vdxg_bo_places(vdxg, bo, segments, num_segments);
	if (!ret && !sg)
		ret = vdxg_bo_commit(size);
	if (ret) {
		kfree(bo);
		return ret;
	}

	bo->tbo.base.funcs = &vdxg_gem_funcs;
	drm_gem_private_object_init(&vdxg->drm, &bo->tbo.base, size);
	drm_gem_gpuva_init(&bo->tbo.base);

	/* On failure TTM drops the object through vdxg_bo_destroy(). */
	ret = ttm_bo_init_validate(&vdxg->ttm, &bo->tbo,
				   sg ? ttm_bo_type_sg : ttm_bo_type_device,
				   &bo->placement, 0, true, sg, resv,
				   vdxg_bo_destroy);
	if (ret)
		return ret;

	*out = bo;
	return 0;
}

int vdxg_bo_create(struct vdxg_device *vdxg, u64 size, u32 flags,
		   const u32 *segments, u32 num_segments, struct vdxg_bo **out)
{
	return vdxg_bo_create_sg(vdxg, size, flags, segments, num_segments,
				 NULL, NULL, out);
}

static int vdxg_bo_handle(struct drm_file *file, struct vdxg_bo *bo,
			  u32 *handle)
{
	int ret = drm_gem_handle_create(file, &bo->tbo.base, handle);

	/* The handle holds the reference from now on. */
	drm_gem_object_put(&bo->tbo.base);
	return ret;
}

/* An object sharing the reservation of one of the file's VMs. */
static int vdxg_bo_create_private(struct drm_file *file,
				  const struct drm_vdxg_gem_create *args,
				  u32 flags, struct vdxg_bo **out)
{
	struct vdxg_vm *vm = vdxg_vm_get(file->driver_priv, args->vm_id);
	struct drm_gem_object *r_obj;
	int ret;

	if (!vm)
		return -ENOENT;
	r_obj = vm->gpuvm.r_obj;
	ret = dma_resv_lock_interruptible(r_obj->resv, NULL);
	if (!ret) {
		ret = vdxg_bo_create_sg(vm->vdxg, args->size,
					flags & ~DRM_VDXG_GEM_VM_PRIVATE,
					args->segments, args->num_segments,
					NULL, r_obj->resv, out);
		if (!ret) {
			drm_gem_object_get(r_obj);
			(*out)->vm_resv = r_obj;
		}
		dma_resv_unlock(r_obj->resv);
	}
	vdxg_vm_put(vm);
	return ret;
}

int vdxg_gem_create_ioctl(struct drm_device *drm, void *data,
			  struct drm_file *file)
{
	struct drm_vdxg_gem_create *args = data;
	u32 flags = args->flags;
	struct vdxg_bo *bo;
	u32 i;
	int ret;

	/* VM ids start at 1: the flag and a VM go together. */
	if (args->num_segments > ARRAY_SIZE(args->segments) ||
	    !(flags & DRM_VDXG_GEM_VM_PRIVATE) != !args->vm_id)
		return -EINVAL;
	for (i = args->num_segments; i < ARRAY_SIZE(args->segments); i++)
		if (args->segments[i])
			return -EINVAL;
	/* Freed memory holds other clients' data: only root may see it. */
	if (!capable(CAP_SYS_ADMIN))
		flags &= ~DRM_VDXG_GEM_NO_CLEAR;

	if (flags & DRM_VDXG_GEM_VM_PRIVATE)
		ret = vdxg_bo_create_private(file, args, flags, &bo);
	else
		ret = vdxg_bo_create(to_vdxg(drm), args->size, flags,
				     args->segments, args->num_segments, &bo);
	if (ret)
		return ret;

	args->size = bo->tbo.base.size;
	return vdxg_bo_handle(file, bo, &args->handle);
}

int vdxg_gem_mmap_offset_ioctl(struct drm_device *drm, void *data,
			       struct drm_file *file)
{
	struct drm_vdxg_gem_mmap_offset *args = data;

	if (args->pad)
		return -EINVAL;
	return drm_gem_ttm_dumb_map_offset(file, drm, args->handle,
					   &args->offset);
}

int vdxg_gem_wait_ioctl(struct drm_device *drm, void *data,
			struct drm_file *file)
{
	struct drm_vdxg_gem_wait *args = data;
	struct drm_gem_object *obj;
	long ret;

	if (args->flags || args->timeout_ns < 0)
		return -EINVAL;

	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;

	/* dma_resv_wait_timeout() would sleep a jiffy on a 0 timeout. */
	if (!args->timeout_ns) {
		ret = dma_resv_test_signaled(obj->resv, DMA_RESV_USAGE_BOOKKEEP);
		drm_gem_object_put(obj);
		return ret ? 0 : -EBUSY;
	}
	ret = dma_resv_wait_timeout(obj->resv, DMA_RESV_USAGE_BOOKKEEP, true,
				    min_t(u64, nsecs_to_jiffies64(args->timeout_ns),
					  MAX_SCHEDULE_TIMEOUT));
	drm_gem_object_put(obj);

	if (!ret)
		return -ETIME;
	return ret < 0 ? ret : 0;
}

static u32 vdxg_segment_of(u32 mem_type)
{
	switch (mem_type) {
	case TTM_PL_VRAM:
		return DRM_VDXG_SEGMENT_VRAM;
	case TTM_PL_TT:
		return DRM_VDXG_SEGMENT_APERTURE;
	default:
		return DRM_VDXG_SEGMENT_SYSTEM;
	}
}

int vdxg_gem_info_ioctl(struct drm_device *drm, void *data,
			struct drm_file *file)
{
	struct drm_vdxg_gem_info *args = data;
	struct ttm_buffer_object *tbo;
	struct drm_gem_object *obj;
	int ret;

	if (args->flags || args->pad)
		return -EINVAL;
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	tbo = container_of(obj, struct ttm_buffer_object, base);

	ret = ttm_bo_reserve(tbo, true, false, NULL);
	if (!ret) {
		args->segment = vdxg_segment_of(tbo->resource->mem_type);
		args->gpu_addr = vdxg_ttm_gpu_addr(to_vdxg(drm), tbo->resource);
		args->size = obj->size;
		ttm_bo_unreserve(tbo);
	}
	drm_gem_object_put(obj);
	return ret;
}

int vdxg_gem_make_resident_ioctl(struct drm_device *drm, void *data,
				 struct drm_file *file)
{
	struct drm_vdxg_gem_make_resident *args = data;
	struct ttm_operation_ctx ctx = { .interruptible = true,
					 .gfp_retry_mayfail = true };
	struct ttm_placement placement = { .num_placement = 1 };
	struct drm_gem_object *obj;
	struct vdxg_bo *bo;
	u32 i;
	int ret;

	if (args->flags || args->pad)
		return -EINVAL;
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	bo = to_vdxg_bo(container_of(obj, struct ttm_buffer_object, base));

	/* Only a segment of the object's own preferred set. */
	ret = -EINVAL;
	for (i = 0; i < bo->placement.num_placement; i++)
		if (vdxg_segment_of(bo->places[i].mem_type) == args->segment)
			placement.placement = &bo->places[i];
	if (placement.placement) {
		ret = ttm_bo_reserve(&bo->tbo, true, false, NULL);
		if (!ret) {
			ret = ttm_bo_validate(&bo->tbo, &placement, &ctx);
			/* In system memory, but perhaps swapped out. */
			if (!ret)
				ret = vdxg_vm_swap_in(&bo->tbo, &ctx);
			ttm_bo_unreserve(&bo->tbo);
		}
	}
	drm_gem_object_put(obj);
	return ret;
}

int vdxg_dumb_create(struct drm_file *file, struct drm_device *drm,
		     struct drm_mode_create_dumb *args)
{
	static const u32 segments[] = {
		DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_APERTURE,
		DRM_VDXG_SEGMENT_SYSTEM,
	};
	struct vdxg_bo *bo;
	u64 pitch, size;
	int ret;

	if (!args->width || !args->height || !args->bpp)
		return -EINVAL;
	pitch = ALIGN((u64)args->width * DIV_ROUND_UP(args->bpp, 8), 64);
	size = pitch * args->height;
	if (pitch > U32_MAX || size > U32_MAX)
		return -EINVAL;

	ret = vdxg_bo_create(to_vdxg(drm), size, DRM_VDXG_GEM_CPU_ACCESS,
			     segments, ARRAY_SIZE(segments), &bo);
	if (ret)
		return ret;

	args->pitch = pitch;
	args->size = bo->tbo.base.size;
	return vdxg_bo_handle(file, bo, &args->handle);
}
