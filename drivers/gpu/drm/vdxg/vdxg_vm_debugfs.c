// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_tt.h>

#include "vdxg_drv.h"
#include "vdxg_hw.h"
#include "vdxg_paging.h"
#include "vdxg_vm.h"
#include "vdxg_vm_priv.h"

/**
 * DOC: VM debugfs
 *
 * The GPU virtual memory's debugfs files: ``vms`` lists each VM, its
 * page-table memory and its mappings, with where each mapping's object is;
 * ``vm_read`` (root, for tests) reads a VM's memory as the GPU sees it.
 */

/* Where a mapping's object is, with the object's reservation held. */
static const char *vdxg_vm_place(const struct drm_gpuva *va)
{
	struct ttm_buffer_object *tbo;

	if (!va->gem.obj)
		return "null";
	tbo = container_of(va->gem.obj, struct ttm_buffer_object, base);
	dma_resv_assert_held(tbo->base.resv);
	/* Moved while the VM's binds waited: invalid until mapped again. */
	if (va->vm_bo->evicted &&
	    !(tbo->ttm && tbo->ttm->page_flags & TTM_TT_FLAG_SWAPPED))
		return "invalid";
	switch (tbo->resource ? tbo->resource->mem_type : TTM_PL_SYSTEM) {
	case TTM_PL_VRAM:
		return "vram";
	case TTM_PL_TT:
		return "aperture";
	default:
		/* Its entries are invalid until it comes back. */
		if (tbo->ttm && tbo->ttm->page_flags & TTM_TT_FLAG_SWAPPED)
			return "swapped";
		return "system";
	}
}

/*
 * ``vms``: each VM (by its key, with the address space it holds, 0 for
 * none), its page-table memory and its mappings.
 */
static int vdxg_vm_debugfs_show(struct seq_file *m, void *data)
{
	struct vdxg_device *vdxg = m->private;
	struct drm_gpuva *va;
	struct vdxg_vm *vm;
	int ret = 0;

	mutex_lock(&vdxg->vm.lock);
	list_for_each_entry(vm, &vdxg->vm.list, link) {
		u32 resident, evicted, tables, reserve;
		u64 n = 0;

		vdxg_as_residency(vdxg, &vm->as, &resident, &evicted);
		/* @lock: no bind changes the mappings meanwhile. */
		mutex_lock(&vm->lock);
		drm_gpuvm_for_each_va(va, &vm->gpuvm)
			n++;
		mutex_lock(&vm->pt_lock);
		tables = vm->pt.tables;
		reserve = vm->nreserve;
		mutex_unlock(&vm->pt_lock);
		seq_printf(m, "vm %u: client %llu id %u, address space %u, %llu mappings, %u tables (%u KiB), %u in reserve, residency %u resident %u evicted\n",
			   vm->as.key, vm->client_id, vm->id,
			   vdxg_as_current(vdxg, &vm->as), n, tables,
			   tables * 4, reserve, resident, evicted);
		drm_gpuvm_for_each_va(va, &vm->gpuvm) {
			struct dma_resv *resv = va->gem.obj ?
						va->gem.obj->resv : NULL;

			/* Its place changes under its reservation only. */
			if (resv && dma_resv_lock_interruptible(resv, NULL)) {
				ret = -EINTR;
				break;
			}
			seq_printf(m, "  0x%012llx-0x%012llx %s%s offset 0x%llx %s\n",
				   va->va.addr, va->va.addr + va->va.range,
				   va->gem.obj ? "object" : "null",
				   va->flags & VDXG_GPUVA_READ_ONLY ? " ro" : "",
				   va->gem.offset, vdxg_vm_place(va));
			if (resv)
				dma_resv_unlock(resv);
		}
		mutex_unlock(&vm->lock);
		if (ret)
			break;
	}
	mutex_unlock(&vdxg->vm.lock);
	return ret;
}
DEFINE_SHOW_ATTRIBUTE(vdxg_vm_debugfs);

/*
 * ``vm_read`` (root, for tests): write "KEY VA SIZE" (KEY a VM's key, as
 * ``vms`` lists it; SIZE at most 64 KiB), then read on the same open file:
 * the bytes at VA in that VM, as the GPU sees them, copied by a
 * TRANSFER_VIRTUAL on the paging engine through an address space the
 * job is granted. A virtual address the VM does not map, or a VM that is
 * gone, makes the read fail with -EFAULT (the paging engine faults and is
 * reset, as for any paging fault).
 */
struct vdxg_vm_peek {
	struct vdxg_device *vdxg;
	u32 key;
	u64 va;
	u32 size;
};

static int vdxg_vm_read_open(struct inode *inode, struct file *f)
{
	struct vdxg_vm_peek *p = kzalloc(sizeof(*p), GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	p->vdxg = inode->i_private;
	f->private_data = p;
	return 0;
}

static int vdxg_vm_read_release(struct inode *inode, struct file *f)
{
	kfree(f->private_data);
	return 0;
}

static ssize_t vdxg_vm_read_write(struct file *f, const char __user *ubuf,
				  size_t len, loff_t *pos)
{
	struct vdxg_vm_peek *p = f->private_data;
	char buf[64];
	u32 key, size;
	u64 va;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (sscanf(buf, "%u %llx %u", &key, &va, &size) != 3 ||
	    !key || key & VDXG_PG_AS_KEY || !size ||
	    size > VDXG_VM_STAGE_SIZE)
		return -EINVAL;
	p->key = key;
	p->va = va;
	p->size = size;
	return len;
}

/*
 * Copy @p's bytes in @vm to the staging buffer; the caller holds the lock,
 * under which @vm stays.
 */
static int vdxg_vm_peek(struct vdxg_vm_peek *p, struct vdxg_vm *vm,
			struct dma_fence *last)
{
	struct vdxg_vm_mgr *mgr = &p->vdxg->vm;
	struct vdxg_pg_batch b;
	struct dma_fence *fence;
	u64 progress = 0;
	int ret;

	lockdep_assert_held(&mgr->lock);
	ret = vdxg_pg_batch_begin(&b, p->vdxg, NULL);
	if (ret)
		return ret;
	/* Its job runs once granted an address space for the VM. */
	b.as_vm = &vm->as;
	/* After the binds queued before the read (on the VM's queue). */
	ret = vdxg_pg_batch_add_dep(&b, last);
	if (!ret)
		ret = vdxg_pg_emit(&b,
				   vdxg_pg_transfer_virtual(&b.pb,
							    vdxg_as_key(&vm->as),
							    VDXG_PG_XV_DST_PHYS,
							    p->va,
							    mgr->stage_gpu,
							    p->size, &progress,
							    &b.stats));
	fence = vdxg_pg_batch_end(&b);
	if (IS_ERR(fence))
		return PTR_ERR(fence);
	if (fence) {
		dma_fence_wait(fence, false);
		if (!ret && fence->error)
			ret = -EFAULT;
		dma_fence_put(fence);
	}
	return ret;
}

/* The VM of key @key, or NULL. */
static struct vdxg_vm *vdxg_vm_of_key(struct vdxg_vm_mgr *mgr, u32 key)
{
	struct vdxg_vm *vm;

	lockdep_assert_held(&mgr->lock);
	list_for_each_entry(vm, &mgr->list, link)
		if (vm->as.key == key)
			return vm;
	return NULL;
}

/* The last table update of @vm, or NULL. */
static struct dma_fence *vdxg_vm_last_update(struct vdxg_vm *vm)
{
	struct dma_fence *last = NULL;

	if (vm) {
		mutex_lock(&vm->pt_lock);
		last = dma_fence_get(vm->last_update);
		mutex_unlock(&vm->pt_lock);
	}
	return last;
}

static ssize_t vdxg_vm_read_read(struct file *f, char __user *ubuf,
				 size_t len, loff_t *pos)
{
	struct ttm_operation_ctx ctx = { .interruptible = true };
	struct vdxg_vm_peek *p = f->private_data;
	struct vdxg_vm_mgr *mgr = &p->vdxg->vm;
	struct dma_fence *last;
	struct vdxg_vm *vm;
	ssize_t ret;
	void *data;

	if (*pos)
		return 0;
	if (!mgr->enabled)
		return -ENODEV;
	if (!p->size || len < p->size)
		return -EINVAL;
	data = kvmalloc(p->size, GFP_KERNEL);
	if (!data)
		return -ENOMEM;
	/*
	 * The read comes after the VM's binds queued so far, once they are
	 * on the engine (the device's queue waits for no client), waited for
	 * without the manager's lock.
	 */
	mutex_lock(&mgr->lock);
	vm = vdxg_vm_of_key(mgr, p->key);
	last = vdxg_vm_last_update(vm);
	mutex_unlock(&mgr->lock);
	ret = vdxg_pg_wait_queued(p->vdxg, last, &ctx);
	mutex_lock(&mgr->lock);
	/* No such VM, or it went meanwhile: nothing to read. */
	if (!ret && (!vm || vdxg_vm_of_key(mgr, p->key) != vm))
		ret = -EFAULT;
	if (!ret)
		ret = vdxg_vm_peek(p, vm, last);
	dma_fence_put(last);
	if (!ret)
		memcpy_fromio(data, mgr->stage_cpu, p->size);
	mutex_unlock(&mgr->lock);
	if (!ret)
		ret = copy_to_user(ubuf, data, p->size) ? -EFAULT : p->size;
	kvfree(data);
	if (ret > 0)
		*pos += ret;
	return ret;
}

static const struct file_operations vdxg_vm_read_fops = {
	.owner = THIS_MODULE,
	.open = vdxg_vm_read_open,
	.release = vdxg_vm_read_release,
	.read = vdxg_vm_read_read,
	.write = vdxg_vm_read_write,
	.llseek = default_llseek,
};

/**
 * vdxg_vm_debugfs_init - the GPU virtual memory's debugfs files
 * @vdxg: the device
 */
void vdxg_vm_debugfs_init(struct vdxg_device *vdxg)
{
	if (!(vdxg->caps & VDXG_CAP_GPU_MMU))
		return;
	debugfs_create_file("vms", 0444, vdxg->drm.debugfs_root, vdxg,
			    &vdxg_vm_debugfs_fops);
	debugfs_create_file("vm_read", 0600, vdxg->drm.debugfs_root, vdxg,
			    &vdxg_vm_read_fops);
	vdxg_as_debugfs_init(vdxg);
}
