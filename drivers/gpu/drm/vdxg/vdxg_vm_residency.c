// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <drm/drm_drv.h>
#include <drm/drm_exec.h>
#include <drm/vdxg_drm.h>
#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_tt.h>

#include "vdxg_bo.h"
#include "vdxg_drv.h"
#include "vdxg_hw.h"
#include "vdxg_paging.h"
#include "vdxg_vm.h"
#include "vdxg_vm_priv.h"

/**
 * DOC: VM residency
 *
 * The mappings of objects that move: a move of a bound object rewrites its
 * entries in every VM in the move's own paging batch, a swap-out makes them
 * invalid first, and an object swapped out is mapped again when it comes
 * back, at the VM's next VM_BIND or before its next job
 * (drm_gpuvm_validate()). Also the jobs in a VM (EXEC): looking the VM up,
 * the state areas of its contexts, checking a range, and locking the VM and
 * its objects, all resident, for a job and publishing the job's fence.
 */

/* ------------------------------------------------------ moves of objects */

/*
 * Rewrite @va's entries for the object's place @res: the same virtual
 * range, now pointing there, or invalid (tables kept) if not @present.
 */
static int vdxg_vm_remap_va(struct vdxg_vm *vm, struct vdxg_pg_batch *b,
			    struct drm_gpuva *va, struct ttm_resource *res,
			    bool present)
{
	struct ttm_buffer_object *tbo = container_of(va->gem.obj,
						     struct ttm_buffer_object,
						     base);
	struct vdxg_pt_update upd;
	struct vdxg_pt_src src = { .type = VDXG_PT_SRC_INVALID };
	int ret;

	if (present && res->mem_type == TTM_PL_VRAM) {
		src.type = VDXG_PT_SRC_VRAM;
		src.addr = vdxg_ttm_gpu_addr(vm->vdxg, res) + va->gem.offset;
	} else if (present) {
		src.type = VDXG_PT_SRC_PAGES;
		src.pages = tbo->ttm->dma_address;
		src.npages = tbo->ttm->num_pages;
		src.addr = va->gem.offset;
	}
	vdxg_pt_update_init(&upd);
	ret = vdxg_pg_emit(b, vdxg_pt_map(&vm->pt, &b->pb, va->va.addr,
					  va->va.range, &src,
					  vdxg_vm_pte_flags(va), &upd,
					  &b->stats));
	/* Later paging jobs only, after this one's flush: safe to reuse. */
	vdxg_pt_free_deferred(&vm->pt, &upd.deferred);
	return ret;
}

/*
 * Rewrite all of @vm_bo's entries for the object's place @res, in @b (each
 * range flushed). Without pages (swapped out, or @gone: about to be), the entries
 * are invalid and the object goes on the VM's evicted list, to be mapped
 * again when it comes back.
 */
static int vdxg_vm_remap_bo(struct drm_gpuvm_bo *vm_bo,
			    struct vdxg_pg_batch *b, struct ttm_resource *res,
			    bool gone)
{
	struct ttm_buffer_object *tbo = container_of(vm_bo->obj,
						     struct ttm_buffer_object,
						     base);
	struct vdxg_vm *vm = to_vdxg_vm(vm_bo->vm);
	bool present;
	struct drm_gpuva *va;
	int ret = 0;

	mutex_lock(&vm->pt_lock);
	vm->no_alloc = true;
	/*
	 * On the device's queue, behind a bind of the VM still waiting for
	 * its in-fences: the entries go invalid instead, and the VM's next
	 * VM_BIND or EXEC maps the object again, on the VM's queue.
	 */
	if (!b->queue && !vdxg_pg_may_wait(vm->vdxg, vm->last_update))
		gone = true;
	present = !gone && (res->mem_type == TTM_PL_VRAM ||
			    (tbo->ttm && ttm_tt_is_populated(tbo->ttm)));
	/*
	 * Invalid entries keep their tables, and the binds that wrote the
	 * object's entries are done or before this batch (its reservation's
	 * fences): no order to keep with the VM's other updates.
	 */
	if (!gone)
		ret = vdxg_vm_update_begin(vm, b);
	/* Each range's map ends with its own flush. */
	drm_gpuvm_bo_for_each_va(va, vm_bo) {
		if (ret)
			break;
		ret = vdxg_vm_remap_va(vm, b, va, res, present);
	}
	/*
	 * WDDM's NotifyResidency: the object comes into the VM (mapped
	 * again) or leaves it (entries invalid), one allocation.
	 */
	if (!ret && vm_bo->evicted == present)
		ret = vdxg_pg_emit(b, vdxg_pg_notify_residency(&b->pb,
							       vdxg_as_key(&vm->as),
							       !present, 1,
							       &b->stats));
	/* On the device's queue: queued now, the VM's next update waits. */
	if (!ret && !gone && !b->queue) {
		ret = vdxg_pg_batch_flush(b);
		if (!ret)
			vdxg_vm_update_done(vm, b->fence);
	}
	vm->no_alloc = false;
	mutex_unlock(&vm->pt_lock);
	if (!ret)
		drm_gpuvm_bo_evict(vm_bo, !present);
	return ret;
}

/**
 * vdxg_vm_move_ops - keep the mappings of a moving object true
 * @b: the move's paging batch, after the transfer
 * @tbo: the object, reserved
 * @new: where it goes; with pages populated if in system memory
 *
 * In every VM the object is bound in, its entries are rewritten to @new
 * and that VM's TLB is flushed, in the move's own paging batch: after the
 * transfer, before anything can use the old place again. Tables come from
 * the VM's reserve (no allocation here). The rewrite waits for the VM's
 * last table update, unless that is a bind still waiting for its
 * in-fences: then the entries go invalid until the VM's next VM_BIND or
 * EXEC maps the object again (vdxg_vm_remap_bo()). Nothing here waits on
 * the CPU.
 *
 * Return: 0 or a negative errno (the reserve was too small).
 */
int vdxg_vm_move_ops(struct vdxg_pg_batch *b, struct ttm_buffer_object *tbo,
		     struct ttm_resource *new)
{
	struct drm_gem_object *obj = &tbo->base;
	struct drm_gpuvm_bo *vm_bo;
	int ret;

	dma_resv_assert_held(obj->resv);
	if (!to_vdxg(obj->dev)->vm.enabled)
		return 0;
	drm_gem_for_each_gpuvm_bo(vm_bo, obj) {
		ret = vdxg_vm_remap_bo(vm_bo, b, new, false);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * vdxg_vm_move_failed - a move that rewrote mappings did not complete
 * @tbo: the object, reserved
 *
 * Some VMs may already point at the new place, which the failed move
 * frees: every VM the object is bound in is switched off.
 */
void vdxg_vm_move_failed(struct ttm_buffer_object *tbo)
{
	struct drm_gem_object *obj = &tbo->base;
	struct drm_gpuvm_bo *vm_bo;

	dma_resv_assert_held(obj->resv);
	drm_gem_for_each_gpuvm_bo(vm_bo, obj)
		vdxg_vm_break(to_vdxg_vm(vm_bo->vm),
			      "an object bound in it could not be moved cleanly");
}

/**
 * vdxg_vm_swap_notify - an object's pages are about to be swapped out
 * @tbo: the object, reserved and idle, in system memory
 *
 * TTM's shrinker frees the pages once this returns. Before that, in every
 * VM the object is bound in, its entries are made invalid (their tables
 * kept) and the TLB flushed, and the device has done so: no VM ever points
 * at a page that is no longer the object's. Each VM maps the object again
 * at its next VM_BIND, or when the object moves. If the entries cannot be
 * rewritten, those VMs are switched off instead.
 */
void vdxg_vm_swap_notify(struct ttm_buffer_object *tbo)
{
	struct vdxg_device *vdxg = to_vdxg(tbo->base.dev);
	struct drm_gem_object *obj = &tbo->base;
	struct drm_gpuvm_bo *vm_bo;
	struct vdxg_pg_batch b;
	int idx, ret;

	dma_resv_assert_held(obj->resv);
	if (!vdxg->vm.enabled || list_empty(&obj->gpuva.list))
		return;
	/* Unplugged, the device reaches no page any more. */
	if (!drm_dev_enter(&vdxg->drm, &idx))
		return;
	ret = vdxg_pg_batch_begin(&b, vdxg, NULL);
	if (!ret) {
		drm_gem_for_each_gpuvm_bo(vm_bo, obj) {
			ret = vdxg_vm_remap_bo(vm_bo, &b, tbo->resource, true);
			if (ret)
				break;
		}
		ret = vdxg_pg_batch_end_wait(&b, ret);
	}
	if (ret) {
		drm_gem_for_each_gpuvm_bo(vm_bo, obj)
			vdxg_vm_break(to_vdxg_vm(vm_bo->vm),
				      "an object bound in it could not be swapped out cleanly");
	}
	drm_dev_exit(idx);
}

/*
 * drm_gpuvm_validate()'s step, in VM_BIND with every object of the VM
 * locked: an object swapped out gets its pages back and its entries in
 * this VM point at them again, in the bind's batch.
 */
int vdxg_vm_bo_validate(struct drm_gpuvm_bo *vm_bo,
			struct drm_exec *exec)
{
	struct ttm_buffer_object *tbo = container_of(vm_bo->obj,
						     struct ttm_buffer_object,
						     base);
	struct vdxg_vm *vm = to_vdxg_vm(vm_bo->vm);
	int ret;

	ret = vdxg_vm_populate(tbo);
	if (ret)
		return ret;
	/*
	 * After the object's moves (KERNEL fences): one that made its
	 * entries invalid may not have run yet.
	 */
	ret = vdxg_pg_batch_add_resv(vm->validate, tbo->base.resv,
				     DMA_RESV_USAGE_KERNEL);
	if (ret)
		return ret;
	ret = vdxg_vm_remap_bo(vm_bo, vm->validate, tbo->resource, false);
	if (ret)
		vdxg_vm_break(vm, "a swapped-out object could not be mapped again");
	return ret;
}

/**
 * vdxg_vm_swap_in - bring a swapped-out object back, mappings included
 * @tbo: the object, reserved
 * @ctx: TTM's operation context
 *
 * An object in system memory whose pages TTM swapped out is not resident:
 * MAKE_RESIDENT into system memory, which finds it already there, reads
 * its pages back in and, in the paging batch a move would use, writes its
 * entries in every VM it is bound in again. The fence of that batch goes
 * to the object's reservation. Nothing to do for any other object.
 *
 * Return: 0 or a negative errno.
 */
int vdxg_vm_swap_in(struct ttm_buffer_object *tbo,
		    struct ttm_operation_ctx *ctx)
{
	struct vdxg_device *vdxg = to_vdxg(tbo->base.dev);
	struct dma_fence *fence;
	struct vdxg_pg_batch b;
	int ret;

	dma_resv_assert_held(tbo->base.resv);
	if (!tbo->resource || tbo->resource->mem_type != TTM_PL_SYSTEM ||
	    !tbo->ttm || !(tbo->ttm->page_flags & TTM_TT_FLAG_SWAPPED))
		return 0;
	ret = ttm_tt_populate(tbo->bdev, tbo->ttm, ctx);
	if (ret || !vdxg->vm.enabled)
		return ret;
	ret = dma_resv_reserve_fences(tbo->base.resv, 1);
	/* The device's queue waits for nothing a client holds up. */
	if (!ret)
		ret = vdxg_pg_wait_queued_resv(vdxg, tbo->base.resv, ctx);
	if (!ret)
		ret = vdxg_pg_batch_begin(&b, vdxg, tbo->base.resv);
	if (ret)
		return ret;
	ret = vdxg_vm_move_ops(&b, tbo, tbo->resource);
	fence = vdxg_pg_batch_end(&b);
	if (IS_ERR(fence))
		return ret ?: PTR_ERR(fence);
	if (fence) {
		dma_resv_add_fence(tbo->base.resv, fence, DMA_RESV_USAGE_KERNEL);
		dma_fence_put(fence);
	}
	return ret;
}

/* ------------------------------------------------ jobs in a VM (EXEC) */

/**
 * vdxg_vm_get - look up one of a file's VMs
 * @vf: the file's state
 * @id: the VM's id
 *
 * Return: the VM with a reference (vdxg_vm_put()), or NULL.
 */
struct vdxg_vm *vdxg_vm_get(struct vdxg_file *vf, u32 id)
{
	return vdxg_vm_lookup(vf, id);
}

/**
 * vdxg_vm_put - drop a VM reference
 * @vm: the VM
 */
void vdxg_vm_put(struct vdxg_vm *vm)
{
	drm_gpuvm_put(&vm->gpuvm);
}

/**
 * vdxg_vm_state_create - a context state area for a context of the VM
 * @vm: the VM
 * @out: the area: a pinned 4 KiB VRAM object sharing the VM's reservation
 * @gpu: its VRAM offset
 *
 * INIT_CONTEXT_RESOURCE puts it in its initial state before this returns.
 *
 * Return: 0 or a negative errno.
 */
int vdxg_vm_state_create(struct vdxg_vm *vm, struct vdxg_bo **out, u64 *gpu)
{
	static const u32 vram = DRM_VDXG_SEGMENT_VRAM;
	struct dma_resv *resv = vm->gpuvm.r_obj->resv;
	struct vdxg_pg_batch b;
	struct vdxg_bo *bo;
	int ret;

	ret = dma_resv_lock_interruptible(resv, NULL);
	if (ret)
		return ret;
	ret = vdxg_bo_create_sg(vm->vdxg, VDXG_CTX_STATE_SIZE,
				DRM_VDXG_GEM_NO_CLEAR, &vram, 1, NULL, resv, &bo);
	if (ret)
		goto out;
	ttm_bo_pin(&bo->tbo);
	*gpu = vdxg_ttm_gpu_addr(vm->vdxg, bo->tbo.resource);
	ret = vdxg_pg_batch_begin(&b, vm->vdxg, NULL);
	if (!ret) {
		ret = vdxg_pg_emit(&b, vdxg_pg_init_context_resource(&b.pb,
								     *gpu,
								     &b.stats));
		ret = vdxg_pg_batch_end_wait(&b, ret);
	}
	if (ret) {
		ttm_bo_unpin(&bo->tbo);
		drm_gem_object_put(&bo->tbo.base);
		goto out;
	}
	*out = bo;
out:
	dma_resv_unlock(resv);
	return ret;
}

/**
 * vdxg_vm_state_destroy - free a context state area
 * @vm: its VM
 * @bo: the area; no job of its context is left
 */
void vdxg_vm_state_destroy(struct vdxg_vm *vm, struct vdxg_bo *bo)
{
	dma_resv_lock(vm->gpuvm.r_obj->resv, NULL);
	ttm_bo_unpin(&bo->tbo);
	dma_resv_unlock(vm->gpuvm.r_obj->resv);
	drm_gem_object_put(&bo->tbo.base);
}

/*
 * Objects swapped out are mapped again before a job runs in the VM: a
 * paging batch the job waits for.
 */
static int vdxg_vm_exec_validate(struct vdxg_vm *vm, struct drm_exec *exec,
				 struct drm_sched_job *job)
{
	struct dma_fence *fence;
	struct vdxg_pg_batch b;
	int ret;

	if (!vdxg_vm_has_evicted(vm))
		return 0;
	/* On the VM's queue: after its binds, holding up no one else. */
	ret = vdxg_pg_batch_begin_queue(&b, vm->vdxg, &vm->queue);
	if (ret)
		return ret;
	/*
	 * A table of the reserve may be one a failed bind made, whose
	 * memory an eviction still copies out (see vdxg_vm_bind_run()).
	 */
	ret = vdxg_pg_batch_add_resv(&b, vm->gpuvm.r_obj->resv,
				     DMA_RESV_USAGE_KERNEL);
	if (ret) {
		vdxg_pg_batch_end(&b);
		return ret;
	}
	vm->validate = &b;
	ret = drm_gpuvm_validate(&vm->gpuvm, exec);
	vm->validate = NULL;
	mutex_lock(&vm->pt_lock);
	fence = vdxg_vm_update_end(vm, &b);
	mutex_unlock(&vm->pt_lock);
	if (IS_ERR(fence))
		return ret ?: PTR_ERR(fence);
	if (!fence)
		return ret;
	/*
	 * Whatever becomes of the job: the objects are not idle before the
	 * entries are written (a swap-out waits for that).
	 */
	drm_gpuvm_resv_add_fence(&vm->gpuvm, exec, fence, DMA_RESV_USAGE_KERNEL,
				 DMA_RESV_USAGE_BOOKKEEP);
	if (!ret)
		ret = drm_sched_job_add_dependency(job, fence);
	else
		dma_fence_put(fence);
	return ret;
}

/**
 * vdxg_vm_check_range - is a range wholly mapped to objects
 * @vm: the VM, with its lock held
 * @addr: start
 * @range: bytes
 *
 * Return: 0; -EINVAL when part of it is unmapped or a null range; -ENOENT
 * for a VM destroyed, -EIO for one switched off.
 */
int vdxg_vm_check_range(struct vdxg_vm *vm, u64 addr, u64 range)
{
	struct drm_gpuva *va;
	u64 next = addr;

	lockdep_assert_held(&vm->lock);
	if (vm->closed)
		return -ENOENT;
	if (READ_ONCE(vm->broken))
		return -EIO;
	if (!range || addr >= VDXG_VM_VA_END || range > VDXG_VM_VA_END - addr)
		return -EINVAL;
	drm_gpuvm_for_each_va_range(va, &vm->gpuvm, addr, addr + range) {
		if (va->va.addr > next || !va->gem.obj)
			return -EINVAL;
		next = va->va.addr + va->va.range;
	}
	return next >= addr + range ? 0 : -EINVAL;
}

/**
 * vdxg_vm_exec_lock - lock a VM and its objects for a job, all resident
 * @vm: the VM, with its lock held
 * @exec: a drm_exec, initialised with %DRM_EXEC_IGNORE_DUPLICATES (two
 *	imports of one foreign buffer share a reservation)
 * @job: the job; it gets the dependencies: the VM's binds, the objects'
 *	moves, the remapping of objects swapped out, and the implicit sync
 *	of objects shared with other files or devices
 *
 * Objects swapped out get their pages back and are mapped again in a
 * paging batch the job waits for.
 *
 * Return: 0 with everything locked (drm_exec_fini() unlocks), or a
 * negative errno.
 */
int vdxg_vm_exec_lock(struct vdxg_vm *vm, struct drm_exec *exec,
		      struct drm_sched_job *job)
{
	struct drm_gem_object *obj;
	int ret;

	lockdep_assert_held(&vm->lock);
	if (vm->closed)
		return -ENOENT;
	if (READ_ONCE(vm->broken))
		return -EIO;
	drm_exec_until_all_locked(exec) {
		/* The job's fence, and a re-validation's. */
		ret = drm_gpuvm_prepare_vm(&vm->gpuvm, exec, 2);
		drm_exec_retry_on_contention(exec);
		if (!ret)
			ret = drm_gpuvm_prepare_objects(&vm->gpuvm, exec, 2);
		drm_exec_retry_on_contention(exec);
		if (ret)
			return ret;
	}

	ret = vdxg_vm_exec_validate(vm, exec, job);
	if (ret)
		return ret;
	drm_exec_for_each_locked_object(exec, obj) {
		if (obj == vm->gpuvm.r_obj || !vdxg_bo_shared(obj))
			ret = drm_sched_job_add_resv_dependencies(job, obj->resv,
								  DMA_RESV_USAGE_KERNEL);
		else
			ret = drm_sched_job_add_implicit_dependencies(job, obj,
								      true);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * vdxg_vm_exec_fence - publish a job's fence in the VM and its objects
 * @vm: the VM
 * @exec: what vdxg_vm_exec_lock() locked
 * @fence: the job's finished fence
 *
 * Binds and moves wait for it (BOOKKEEP); shared objects' other users
 * see it as a write.
 */
void vdxg_vm_exec_fence(struct vdxg_vm *vm, struct drm_exec *exec,
			struct dma_fence *fence)
{
	struct drm_gem_object *obj;

	drm_exec_for_each_locked_object(exec, obj)
		dma_resv_add_fence(obj->resv, fence,
				   obj != vm->gpuvm.r_obj &&
				   vdxg_bo_shared(obj) ?
				   DMA_RESV_USAGE_WRITE :
				   DMA_RESV_USAGE_BOOKKEEP);
}
