// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/slab.h>

#include <drm/drm_exec.h>
#include <drm/drm_file.h>
#include <drm/drm_managed.h>
#include <drm/vdxg_drm.h>

#include "vdxg_drv.h"
#include "vdxg_hw.h"
#include "vdxg_paging.h"
#include "vdxg_render.h"
#include "vdxg_vm.h"
#include "vdxg_vm_priv.h"

/**
 * DOC: GPU virtual memory
 *
 * WDDM 2.0's GpuMmu model on drm_gpuvm. A VM is one of the device's address
 * spaces (an id in the address-space table the driver keeps in reserved VRAM),
 * owned by the file that created it. drm_gpuvm holds its mappings: VM_BIND's
 * operations go through drm_gpuvm_sm_map() and drm_gpuvm_sm_unmap(), whose
 * steps update the mapping tree and emit the page-table operations (vdxg_pt.c)
 * into one paging batch. The CPU never writes a page-table entry: the batch's
 * paging jobs do, on the PAGING engine, and end with FLUSH_VM_TLB. They go
 * through the VM's own paging queue, so that a bind waiting for its
 * in-syncobjs holds up no one else; they wait for the moves of the objects
 * (their fences) and for the last job that wrote the VM's tables, and a move
 * that rewrites them waits for that job too (vdxg_vm.last_update), unless it
 * is a bind still waiting for its in-fences: the device's queue never waits
 * for a client, so the move makes the object's entries in that VM invalid
 * instead, and the VM's next VM_BIND or EXEC maps it again. The tables
 * are kernel objects in VRAM, pinned, sharing the VM's reservation object; a
 * table that a bind empties is freed once that bind's last paging job has
 * completed.
 *
 * Locking: vdxg_vm.lock serialises the binds of a VM and its destruction;
 * inside it, the bind locks the VM's reservation and those of the objects
 * involved with drm_exec; inside those, vdxg_vm.pt_lock protects the
 * table shadow. A move of a bound object holds the object's reservation
 * and takes pt_lock of each VM it is bound in to rewrite its entries in
 * the move's own paging batch, after the transfer.
 */

/**
 * DOC: VM lifecycle
 *
 * The device's GPU MMU: its address-space table and the staging buffer
 * debugfs reads VMs through, set up at probe, programmed again after a
 * reset or a resume, and turned off when the device goes. The lifecycle of
 * a VM: VM_CREATE, VM_DESTROY, and the destruction of a closing file's VMs.
 * The rest is in vdxg_vm_pt.c (page tables, mapping an object),
 * vdxg_vm_bind.c (drm_gpuvm's steps, VM_BIND), vdxg_vm_residency.c (moves
 * of objects, jobs in a VM) and vdxg_vm_debugfs.c; vdxg_vm_priv.h declares
 * what they share.
 */

#define VDXG_VM_TABLE_BYTES	(VDXG_VM_MAX_AS * VDXG_VM_AS_ENTRY_SIZE)

/* ------------------------------------------------------------ the device */

/**
 * vdxg_vm_restore - program the GPU MMU's registers
 * @vdxg: the device
 *
 * At probe, and again after a reset or a resume cleared them.
 */
void vdxg_vm_restore(struct vdxg_device *vdxg)
{
	struct vdxg_vm_mgr *mgr = &vdxg->vm;

	if (!mgr->enabled)
		return;
	vdxg_wr(vdxg, VDXG_REG_VM_TABLE_LO, lower_32_bits(mgr->table_gpu));
	vdxg_wr(vdxg, VDXG_REG_VM_TABLE_HI, upper_32_bits(mgr->table_gpu));
	vdxg_wr(vdxg, VDXG_REG_VM_TABLE_ENTRIES, mgr->as.count);
	vdxg_wr(vdxg, VDXG_REG_VM_CTRL, VDXG_VM_CTRL_ENABLE);
	vdxg_as_restore(vdxg);
}

/* At the DRM device's release: files closed after an unplug use it. */
static void vdxg_vm_release(struct drm_device *drm, void *arg)
{
	struct vdxg_vm_mgr *mgr = arg;

	mutex_destroy(&mgr->lock);
}

/**
 * vdxg_vm_init - set up the GPU MMU, when the device has one
 * @vdxg: the device
 *
 * Return: 0 or a negative errno.
 */
int vdxg_vm_init(struct vdxg_device *vdxg)
{
	struct vdxg_vm_mgr *mgr = &vdxg->vm;
	int ret;

	mutex_init(&mgr->lock);
	INIT_LIST_HEAD(&mgr->list);
	ret = drmm_add_action_or_reset(&vdxg->drm, vdxg_vm_release, mgr);
	if (ret)
		return ret;
	if (!(vdxg->caps & VDXG_CAP_GPU_MMU) || !vdxg->paging.engine.vdxg)
		return 0;

	ret = vdxg_kmem_alloc(vdxg, VDXG_VM_TABLE_BYTES, &mgr->table_gpu,
			      &mgr->table_cpu);
	if (!ret)
		ret = vdxg_kmem_alloc(vdxg, VDXG_VM_STAGE_SIZE, &mgr->stage_gpu,
				      &mgr->stage_cpu);
	if (!ret)
		ret = vdxg_as_init(vdxg);
	if (ret)
		return ret;
	/* No address space is in use yet: the engines never read it. */
	memset_io(mgr->table_cpu, 0, VDXG_VM_TABLE_BYTES);
	mgr->enabled = true;
	vdxg_vm_restore(vdxg);
	return 0;
}

/**
 * vdxg_vm_fini - turn the GPU MMU off when the device goes away
 * @vdxg: the device
 *
 * VMs of files still open go when the files close, after this: their
 * ids and the list live until the DRM device is released.
 */
void vdxg_vm_fini(struct vdxg_device *vdxg)
{
	if (vdxg->vm.enabled)
		vdxg_wr(vdxg, VDXG_REG_VM_CTRL, 0);
}

/* -------------------------------------------------- creation, destruction */

/* Zero the root table and point the address space at it. */
static int vdxg_vm_activate(struct vdxg_vm *vm)
{
	struct drm_gem_object *r_obj = vm->gpuvm.r_obj;
	struct vdxg_pg_batch b;
	u64 progress = 0;
	int ret;

	ret = dma_resv_lock_interruptible(r_obj->resv, NULL);
	if (ret)
		return ret;
	ret = vdxg_pg_batch_begin(&b, vm->vdxg, NULL);
	if (ret)
		goto out;
	ret = vdxg_pt_vm_init(&vm->pt, vdxg_as_key(&vm->as), &vdxg_vm_pt_ops,
			      vm);
	if (!ret) {
		vm->as.root = vm->pt.root->offset;
		ret = vdxg_pg_emit(&b, vdxg_pt_vm_activate(&vm->pt, &b.pb,
							   &progress,
							   &b.stats));
	}
	ret = vdxg_pg_batch_end_wait(&b, ret);
	if (ret) {
		/* The device is done with the job: the root goes now. */
		vdxg_as_vm_off(vm->vdxg, &vm->as);
		vm->closed = true;
		vdxg_pt_vm_fini(&vm->pt);
	}
out:
	dma_resv_unlock(r_obj->resv);
	return ret;
}

/* Wait for the last job that writes the tables, and end the VM's queue. */
static void vdxg_vm_queue_idle(struct vdxg_vm *vm)
{
	struct dma_fence *fence;

	mutex_lock(&vm->pt_lock);
	fence = dma_fence_get(vm->last_update);
	mutex_unlock(&vm->pt_lock);
	if (fence)
		dma_fence_wait(fence, false);
	dma_fence_put(fence);
	vdxg_pg_queue_fini(&vm->queue);
}

/*
 * Unmap everything, take the address space out of the AS table, and free
 * the tables once the device is done with them. The wait for that holds
 * no object's lock: a bind of the VM may be waiting for a client's
 * in-fence, and other clients may need the objects meanwhile.
 */
static void vdxg_vm_close(struct vdxg_vm *vm)
{
	struct drm_gem_object *r_obj = vm->gpuvm.r_obj;
	struct vdxg_vm_step st = { .vm = vm };
	struct dma_fence *fence = NULL;
	struct drm_gpuva *va, *next;
	struct drm_gem_object *obj;
	struct vdxg_pg_batch b;
	struct drm_exec exec;
	bool batch = false;
	int ret;

	mutex_lock(&vm->vdxg->vm.lock);
	if (!list_empty(&vm->link))
		list_del_init(&vm->link);
	mutex_unlock(&vm->vdxg->vm.lock);

	mutex_lock(&vm->lock);
	vm->closed = true;
	/* Two imports of one foreign buffer share a reservation. */
	drm_exec_init(&exec, DRM_EXEC_IGNORE_DUPLICATES, 0);
	drm_exec_until_all_locked(&exec) {
		ret = drm_gpuvm_prepare_vm(&vm->gpuvm, &exec, 1);
		drm_exec_retry_on_contention(&exec);
		if (!ret)
			ret = drm_gpuvm_prepare_objects(&vm->gpuvm, &exec, 1);
		drm_exec_retry_on_contention(&exec);
	}
	/* Without memory or locks, the VM still goes: drop the mappings. */
	if (!ret && !vdxg_pg_batch_begin_queue(&b, vm->vdxg, &vm->queue)) {
		batch = true;
		st.b = &b;
		/* The objects' fences: the VM's last table update among them. */
		vdxg_vm_bind_deps(&b, &exec);
		mutex_lock(&vm->pt_lock);
		vm->no_alloc = true;
		drm_gpuvm_sm_unmap(&vm->gpuvm, &st, 0, VDXG_VM_VA_END);
		vm->no_alloc = false;
		fence = vdxg_vm_update_end(vm, &b);
		mutex_unlock(&vm->pt_lock);
		if (IS_ERR(fence))
			fence = NULL;
		/*
		 * Until the entries are gone (after the VM's last jobs), the
		 * objects' memory is not reused: their moves wait for it.
		 */
		if (fence)
			drm_exec_for_each_locked_object(&exec, obj)
				dma_resv_add_fence(obj->resv, fence,
						   DMA_RESV_USAGE_KERNEL);
	} else {
		/* Without memory or locks: its jobs fault from now on. */
		vdxg_as_vm_off(vm->vdxg, &vm->as);
	}
	drm_gpuvm_for_each_va_safe(va, next, &vm->gpuvm) {
		drm_gpuva_remove(va);
		if (va->gem.obj)
			drm_gpuva_unlink(va);
		kfree(va);
	}
	vdxg_vm_exec_fini(&exec);
	if (fence)
		dma_fence_wait(fence, false);
	dma_fence_put(fence);
	/* Its jobs are done: the batch waited for them. */
	vdxg_as_vm_off(vm->vdxg, &vm->as);

	/* The queue is idle once its last job is done; then it goes. */
	vdxg_vm_queue_idle(vm);

	dma_resv_lock(r_obj->resv, NULL);
	if (batch)
		vdxg_vm_free_tables(vm, &b.deferred_tables);
	mutex_lock(&vm->pt_lock);
	vdxg_pt_vm_fini(&vm->pt);
	vdxg_vm_reserve_free(vm);
	mutex_unlock(&vm->pt_lock);
	dma_resv_unlock(r_obj->resv);
	mutex_unlock(&vm->lock);
}

int vdxg_vm_create_ioctl(struct drm_device *drm, void *data,
			 struct drm_file *file)
{
	struct vdxg_device *vdxg = to_vdxg(drm);
	struct drm_vdxg_vm_create *args = data;
	struct vdxg_file *vf = file->driver_priv;
	struct drm_gem_object *r_obj;
	struct vdxg_vm *vm;
	u32 id;
	int ret;

	if (args->flags)
		return -EINVAL;
	if (!vdxg->vm.enabled)
		return -EOPNOTSUPP;

	vm = kzalloc(sizeof(*vm), GFP_KERNEL_ACCOUNT);
	if (!vm)
		return -ENOMEM;
	ret = vdxg_as_vm_init(vdxg, &vm->as);
	if (ret) {
		kfree(vm);
		return ret;
	}
	vm->vdxg = vdxg;
	vm->file = vf;
	INIT_LIST_HEAD(&vm->link);
	mutex_init(&vm->lock);
	mutex_init(&vm->pt_lock);
	xa_init(&vm->tables);

	r_obj = drm_gpuvm_resv_object_alloc(drm);
	if (!r_obj) {
		vdxg_vm_free(&vm->gpuvm);
		return -ENOMEM;
	}
	/* From here on, vdxg_vm_free() runs at the last drm_gpuvm_put(). */
	drm_gpuvm_init(&vm->gpuvm, "vdxg-vm", 0, drm, r_obj, 0,
		       VDXG_VM_VA_END, 0, 0, &vdxg_gpuvm_ops);
	drm_gem_object_put(r_obj);

	ret = vdxg_pg_queue_init(vdxg, &vm->queue);
	if (ret)
		goto err_put;
	ret = vdxg_vm_activate(vm);
	if (ret)
		goto err_queue;

	/*
	 * The id is reserved first and the VM published under it last:
	 * VM_DESTROY of that id cannot free it while it is set up.
	 */
	ret = xa_alloc(&vf->vms, &id, NULL,
		       XA_LIMIT(1, DRM_VDXG_VM_MAX_PER_FILE), GFP_KERNEL);
	if (ret) {
		ret = ret == -EBUSY ? -ENOSPC : ret;
		goto err_close;
	}
	vm->id = id;
	vm->client_id = file->client_id;
	mutex_lock(&vdxg->vm.lock);
	list_add_tail(&vm->link, &vdxg->vm.list);
	mutex_unlock(&vdxg->vm.lock);
	xa_store(&vf->vms, id, vm, GFP_KERNEL);
	args->vm_id = id;
	return 0;

err_close:
	vdxg_vm_close(vm);	/* and its queue */
	goto err_put;
err_queue:
	vdxg_pg_queue_fini(&vm->queue);
err_put:
	drm_gpuvm_put(&vm->gpuvm);
	return ret;
}

int vdxg_vm_destroy_ioctl(struct drm_device *drm, void *data,
			  struct drm_file *file)
{
	struct drm_vdxg_vm_destroy *args = data;
	struct vdxg_file *vf = file->driver_priv;
	struct vdxg_vm *vm;

	if (args->pad)
		return -EINVAL;
	vm = xa_erase(&vf->vms, args->vm_id);
	if (!vm)
		return -ENOENT;
	vdxg_vm_close(vm);
	drm_gpuvm_put(&vm->gpuvm);
	return 0;
}

/**
 * vdxg_vm_file_close - destroy a closing file's VMs
 * @vf: the file's state
 */
void vdxg_vm_file_close(struct vdxg_file *vf)
{
	struct vdxg_vm *vm;
	unsigned long id;

	xa_for_each(&vf->vms, id, vm) {
		xa_erase(&vf->vms, id);
		vdxg_vm_close(vm);
		drm_gpuvm_put(&vm->gpuvm);
	}
	xa_destroy(&vf->vms);
}
