// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_exec.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>
#include <drm/vdxg_drm.h>
#include <drm/ttm/ttm_bo.h>

#include "vdxg_bo.h"
#include "vdxg_drv.h"
#include "vdxg_paging.h"
#include "vdxg_render.h"
#include "vdxg_sync.h"
#include "vdxg_vm.h"
#include "vdxg_vm_priv.h"

/**
 * DOC: VM_BIND
 *
 * drm_gpuvm's steps, which update a VM's mapping tree (joining a new
 * mapping with the neighbours it continues) and emit the page-table
 * operations, and VM_BIND: its operations checked, the VM and the objects
 * locked, the reserve filled, and the steps run in one paging batch on the
 * VM's queue, behind the in-syncobjs, whose fence the out-syncobjs get.
 * Also what orders the updates of a VM's tables (vdxg_vm.last_update) and
 * switches off a VM whose tables went wrong, which moves and jobs use too.
 */

/* --------------------------------------------------- drm_gpuvm's steps */

static struct drm_gpuva *vdxg_vm_va_alloc(void)
{
	/* A client's mappings: charged to it. */
	return kzalloc(sizeof(struct drm_gpuva), GFP_KERNEL_ACCOUNT);
}

/* @b continues @a: one object at following offsets, or null, same flags. */
static bool vdxg_vm_joinable(const struct drm_gpuva *a,
			     const struct drm_gpuva *b)
{
	return a && a->gem.obj == b->gem.obj && a->flags == b->flags &&
	       (!a->gem.obj || a->gem.offset + a->va.range == b->gem.offset);
}

/* Take @n out of the VM: it was joined into a neighbour. */
static void vdxg_vm_va_drop(struct vdxg_vm *vm, struct drm_gpuva *n)
{
	vm->slots -= vdxg_vm_va_slots(n);
	drm_gpuva_remove(n);
	if (n->gem.obj)
		drm_gpuva_unlink(n);
	kfree(n);
}

/*
 * A new mapping that continues a neighbour's joins it into one drm_gpuva
 * (drm_gpuvm splits mappings but never joins them). Returns the range to
 * write: the new mapping's, grown to each 2 MiB window at a joint that the
 * joined mapping now covers whole, so that a window split before (a
 * partial unmap, then the hole mapped again) becomes a 2 MiB page again
 * where the placement allows (vdxg_pt_map() promotes it).
 */
static void vdxg_vm_join(struct vdxg_vm *vm, struct drm_gpuva *va,
			 u64 *addr, u64 *range)
{
	u64 lo = va->va.addr, hi = va->va.addr + va->va.range;
	struct drm_gpuva *prev = NULL, *next;
	u64 start = lo, end = hi;

	/* @va is in the tree: the mapping before it holds lo - 1. */
	if (lo)
		prev = drm_gpuva_find_first(&vm->gpuvm, lo - 1, 1);
	next = drm_gpuva_find_next(&vm->gpuvm, hi);
	*addr = lo;
	*range = hi - lo;
	if (!vdxg_vm_joinable(prev, va))
		prev = NULL;
	if (next && !vdxg_vm_joinable(va, next))
		next = NULL;
	if (!prev && !next)
		return;

	vm->slots -= vdxg_vm_va_slots(va);
	drm_gpuva_remove(va);
	if (prev) {
		start = prev->va.addr;
		va->gem.offset = prev->gem.offset;
		vdxg_vm_va_drop(vm, prev);
	}
	if (next) {
		end = next->va.addr + next->va.range;
		vdxg_vm_va_drop(vm, next);
	}
	va->va.addr = start;
	va->va.range = end - start;
	/* The range was just freed: this cannot fail. */
	WARN_ON(drm_gpuva_insert(&vm->gpuvm, va));
	vm->slots += vdxg_vm_va_slots(va);

	vdxg_pt_join_range(start, end, &lo, &hi);
	*addr = lo;
	*range = hi - lo;
}

static int vdxg_vm_step_map(struct drm_gpuva_op *op, void *priv)
{
	struct vdxg_vm_step *st = priv;
	struct drm_gpuvm_bo *vm_bo = NULL;
	struct drm_gpuva *va;
	u64 addr, range;

	va = vdxg_vm_va_alloc();
	if (!va)
		return -ENOMEM;
	if (op->map.gem.obj) {
		vm_bo = drm_gpuvm_bo_obtain(&st->vm->gpuvm, op->map.gem.obj);
		if (IS_ERR(vm_bo)) {
			kfree(va);
			return PTR_ERR(vm_bo);
		}
	}
	drm_gpuva_map(&st->vm->gpuvm, va, &op->map);
	va->flags = st->flags;
	/* On the extobj list, an object is locked with the VM's own. */
	if (vm_bo)
		drm_gpuvm_bo_extobj_add(vm_bo);
	st->vm->slots += vdxg_vm_va_slots(va);
	if (vm_bo) {
		drm_gpuva_link(va, vm_bo);
		drm_gpuvm_bo_put(vm_bo);
	}
	vdxg_vm_join(st->vm, va, &addr, &range);
	return vdxg_vm_emit_map(st->vm, st->b, va, addr, range);
}

static int vdxg_vm_step_remap(struct drm_gpuva_op *op, void *priv)
{
	struct vdxg_vm_step *st = priv;
	struct drm_gpuva *old = op->remap.unmap->va;
	struct drm_gpuva *prev = NULL, *next = NULL;
	u64 start = old->va.addr, end = old->va.addr + old->va.range;
	struct drm_gem_object *obj = old->gem.obj;

	if (op->remap.prev) {
		prev = vdxg_vm_va_alloc();
		if (!prev)
			return -ENOMEM;
		start = op->remap.prev->va.addr + op->remap.prev->va.range;
	}
	if (op->remap.next) {
		next = vdxg_vm_va_alloc();
		if (!next) {
			kfree(prev);
			return -ENOMEM;
		}
		end = op->remap.next->va.addr;
	}

	/* The pieces kept keep their entries; only the cut one goes. */
	st->vm->slots -= vdxg_vm_va_slots(old);
	if (obj)
		drm_gem_object_get(obj);
	drm_gpuva_remap(prev, next, &op->remap);
	if (prev) {
		prev->flags = old->flags;
		if (obj)
			drm_gpuva_link(prev, old->vm_bo);
		st->vm->slots += vdxg_vm_va_slots(prev);
	}
	if (next) {
		next->flags = old->flags;
		if (obj)
			drm_gpuva_link(next, old->vm_bo);
		st->vm->slots += vdxg_vm_va_slots(next);
	}
	if (obj)
		drm_gpuva_unlink(old);
	kfree(old);
	if (obj)
		drm_gem_object_put(obj);
	return vdxg_vm_emit_unmap(st->vm, st->b, start, end - start);
}

static int vdxg_vm_step_unmap(struct drm_gpuva_op *op, void *priv)
{
	struct vdxg_vm_step *st = priv;
	struct drm_gpuva *va = op->unmap.va;
	u64 addr = va->va.addr, range = va->va.range;

	st->vm->slots -= vdxg_vm_va_slots(va);
	drm_gpuva_unmap(&op->unmap);
	if (va->gem.obj)
		drm_gpuva_unlink(va);
	kfree(va);
	return vdxg_vm_emit_unmap(st->vm, st->b, addr, range);
}

void vdxg_vm_free(struct drm_gpuvm *gpuvm)
{
	struct vdxg_vm *vm = to_vdxg_vm(gpuvm);

	vdxg_as_vm_fini(vm->vdxg, &vm->as);
	dma_fence_put(vm->last_update);
	kvfree(vm->reserve);
	xa_destroy(&vm->tables);
	mutex_destroy(&vm->pt_lock);
	mutex_destroy(&vm->lock);
	kfree(vm);
}

const struct drm_gpuvm_ops vdxg_gpuvm_ops = {
	.vm_free = vdxg_vm_free,
	.sm_step_map = vdxg_vm_step_map,
	.sm_step_remap = vdxg_vm_step_remap,
	.sm_step_unmap = vdxg_vm_step_unmap,
	.vm_bo_validate = vdxg_vm_bo_validate,
};

/* ------------------------------------------------------------ VM_BIND */

static int vdxg_vm_check_op(const struct drm_vdxg_vm_bind_op *op)
{
	if (op->pad || !op->range || !IS_ALIGNED(op->va, SZ_4K) ||
	    !IS_ALIGNED(op->range, SZ_4K) || op->va >= VDXG_VM_VA_END ||
	    op->range > VDXG_VM_VA_END - op->va)
		return -EINVAL;
	switch (op->op) {
	case DRM_VDXG_VM_BIND_OP_MAP:
		if (!op->handle || op->flags & ~DRM_VDXG_VM_BIND_OP_FLAGS ||
		    !IS_ALIGNED(op->obj_offset, SZ_4K))
			return -EINVAL;
		return 0;
	case DRM_VDXG_VM_BIND_OP_UNMAP:
	case DRM_VDXG_VM_BIND_OP_MAP_NULL:
		if (op->handle || op->flags || op->obj_offset)
			return -EINVAL;
		return 0;
	default:
		return -EINVAL;
	}
}

/**
 * struct vdxg_vm_bind - one VM_BIND call
 * @vm: the VM
 * @ops: the operations, copied
 * @objs: for each MAP, its object (a reference), else NULL
 * @n: operations
 * @validate: every object of the VM is locked too: some were swapped out
 *	and are mapped again by this bind
 */
struct vdxg_vm_bind {
	struct vdxg_vm *vm;
	struct drm_vdxg_vm_bind_op *ops;
	struct drm_gem_object **objs;
	u32 n;
	bool validate;
};

static int vdxg_vm_bind_lookup(struct vdxg_vm_bind *vb, struct drm_file *file)
{
	u32 i;

	for (i = 0; i < vb->n; i++) {
		const struct drm_vdxg_vm_bind_op *op = &vb->ops[i];
		struct drm_gem_object *obj;

		if (op->op != DRM_VDXG_VM_BIND_OP_MAP)
			continue;
		obj = drm_gem_object_lookup(file, op->handle);
		if (!obj)
			return -ENOENT;
		vb->objs[i] = obj;
		/* An object private to another VM is not for this one. */
		if (vdxg_bo_vm_private(obj) &&
		    obj->resv != vb->vm->gpuvm.r_obj->resv)
			return -EINVAL;
		if (op->obj_offset >= obj->size ||
		    op->range > obj->size - op->obj_offset)
			return -EINVAL;
	}
	return 0;
}

/*
 * drm_exec_fini() puts each object right after unlocking it, while later
 * ones are still locked. When that is an object's last reference (its
 * mappings were just removed and its handle closed), the object is freed
 * while lockdep still names its lock as the instance of the ww class's
 * entry it merged the others into (the object drm_exec locked first after
 * a contention): "held lock freed". The references are kept until all is
 * unlocked; without memory for that, drm_exec puts them as usual.
 */
void vdxg_vm_exec_fini(struct drm_exec *exec)
{
	struct drm_gem_object **objs, *obj;
	unsigned long i, n = 0;

	objs = kvmalloc_array(exec->num_objects, sizeof(*objs), GFP_KERNEL);
	if (objs) {
		drm_exec_for_each_locked_object(exec, obj) {
			drm_gem_object_get(obj);
			objs[n++] = obj;
		}
	}
	drm_exec_fini(exec);
	for (i = 0; i < n; i++)
		drm_gem_object_put(objs[i]);
	kvfree(objs);
}

bool vdxg_vm_has_evicted(struct vdxg_vm *vm)
{
	bool ret;

	spin_lock(&vm->gpuvm.evict.lock);
	ret = !list_empty(&vm->gpuvm.evict.list);
	spin_unlock(&vm->gpuvm.evict.lock);
	return ret;
}

/*
 * Lock the VM and every object whose mappings the operations touch; all
 * of the VM's objects when some must be mapped again (validated): only
 * locked objects are validated, and none of them can be swapped out again
 * meanwhile.
 */
static int vdxg_vm_bind_lock(struct vdxg_vm_bind *vb, struct drm_exec *exec)
{
	struct drm_gpuvm *gpuvm = &vb->vm->gpuvm;
	u32 i;
	int ret = 0;

	vb->validate = vdxg_vm_has_evicted(vb->vm);
	drm_exec_until_all_locked(exec) {
		ret = drm_gpuvm_prepare_vm(gpuvm, exec, 1);
		drm_exec_retry_on_contention(exec);
		if (ret)
			return ret;
		if (vb->validate) {
			ret = drm_gpuvm_prepare_objects(gpuvm, exec, 1);
			drm_exec_retry_on_contention(exec);
			if (ret)
				return ret;
		}
		for (i = 0; i < vb->n; i++) {
			ret = drm_gpuvm_prepare_range(gpuvm, exec,
						      vb->ops[i].va,
						      vb->ops[i].range, 1);
			drm_exec_retry_on_contention(exec);
			if (ret)
				return ret;
			if (!vb->objs[i])
				continue;
			ret = drm_exec_prepare_obj(exec, vb->objs[i], 1);
			drm_exec_retry_on_contention(exec);
			if (ret)
				return ret;
		}
	}
	return ret;
}

static int vdxg_vm_bind_apply(struct vdxg_vm_bind *vb, struct vdxg_pg_batch *b)
{
	struct vdxg_vm_step st = { .vm = vb->vm, .b = b };
	struct drm_gpuvm *gpuvm = &vb->vm->gpuvm;
	u32 i;
	int ret = 0;

	for (i = 0; i < vb->n && !ret; i++) {
		const struct drm_vdxg_vm_bind_op *op = &vb->ops[i];

		switch (op->op) {
		case DRM_VDXG_VM_BIND_OP_MAP:
			st.flags = op->flags & DRM_VDXG_VM_BIND_READ_ONLY ?
				   VDXG_GPUVA_READ_ONLY : 0;
			ret = drm_gpuvm_sm_map(gpuvm, &st, op->va, op->range,
					       vb->objs[i], op->obj_offset);
			break;
		case DRM_VDXG_VM_BIND_OP_MAP_NULL:
			st.flags = DRM_GPUVA_SPARSE;
			ret = drm_gpuvm_sm_map(gpuvm, &st, op->va, op->range,
					       NULL, 0);
			break;
		case DRM_VDXG_VM_BIND_OP_UNMAP:
			ret = drm_gpuvm_sm_unmap(gpuvm, &st, op->va,
						 op->range);
			break;
		}
	}
	return ret;
}

struct vdxg_vm *vdxg_vm_lookup(struct vdxg_file *vf, u32 id)
{
	struct vdxg_vm *vm;

	xa_lock(&vf->vms);
	vm = xa_load(&vf->vms, id);
	if (vm)
		drm_gpuvm_get(&vm->gpuvm);
	xa_unlock(&vf->vms);
	return vm;
}

/*
 * The tables a batch unlinked may still be walked until its jobs have run:
 * they go back to the reserve, marked (see VDXG_VM_RESERVE_USED), with no
 * wait. The caller holds the VM's reservation.
 */
void vdxg_vm_free_tables(struct vdxg_vm *vm, struct list_head *tables)
{
	mutex_lock(&vm->pt_lock);
	vdxg_pt_free_deferred(&vm->pt, tables);
	mutex_unlock(&vm->pt_lock);
}

/*
 * A bind waits for the work of the VM and of the objects whose mappings
 * it changes: a mapping goes only once nothing uses it any more. Moves of
 * those objects are among it (their fences are in the objects'
 * reservations); the VM's earlier binds run before it on its queue.
 */
int vdxg_vm_bind_deps(struct vdxg_pg_batch *b, struct drm_exec *exec)
{
	struct drm_gem_object *obj;
	int ret;

	drm_exec_for_each_locked_object(exec, obj) {
		ret = vdxg_pg_batch_add_resv(b, obj->resv,
					     DMA_RESV_USAGE_BOOKKEEP);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * A bind that failed half-way (no memory for a paging job) may have left
 * the tables behind the mapping tree: an unmapped range could still point
 * at an object about to be freed. The address space is switched off at
 * once, by the CPU in the AS table and a TLB flush through the register,
 * so that nothing of it translates any more; the VM then only takes
 * VM_DESTROY.
 */
void vdxg_vm_break(struct vdxg_vm *vm, const char *why)
{
	WRITE_ONCE(vm->broken, true);
	vdxg_as_vm_off(vm->vdxg, &vm->as);
	drm_err_ratelimited(&vm->vdxg->drm,
			    "VM %u of client %llu switched off: %s\n",
			    vm->id, vm->client_id, why);
}

/*
 * The tables are written by the VM's binds, on the VM's queue, and by the
 * moves of its objects, on the device's: each such batch waits for the
 * last one before it (vdxg_vm.last_update), and its jobs are queued before
 * @pt_lock, taken for vdxg_vm_update_begin(), is released. (A table one
 * of them unlinks may be reused by the next, see vdxg_vm_pt_free().) The
 * device's queue never waits for a bind still waiting for its in-fences:
 * vdxg_vm_remap_bo() does not rewrite the entries then.
 */
int vdxg_vm_update_begin(struct vdxg_vm *vm, struct vdxg_pg_batch *b)
{
	lockdep_assert_held(&vm->pt_lock);
	return vdxg_pg_batch_add_dep(b, vm->last_update);
}

void vdxg_vm_update_done(struct vdxg_vm *vm, struct dma_fence *fence)
{
	lockdep_assert_held(&vm->pt_lock);
	if (IS_ERR_OR_NULL(fence))
		return;
	dma_fence_put(vm->last_update);
	vm->last_update = dma_fence_get(fence);
}

/*
 * A batch that fails to end may have had some of its buffers queued and
 * lost the rest: the tables no longer say what the mapping tree says, and
 * the VM is switched off. The buffers queued may still write the tables:
 * the VM's later updates, and its destruction, wait for them.
 */
struct dma_fence *vdxg_vm_update_end(struct vdxg_vm *vm,
				     struct vdxg_pg_batch *b)
{
	struct dma_fence *fence = vdxg_pg_batch_end(b);

	if (IS_ERR(fence)) {
		if (!READ_ONCE(vm->broken))
			vdxg_vm_break(vm, "a paging job of its tables was lost");
		/* What a VM's queue's batch did queue (vdxg_pg_batch_end()). */
		vdxg_vm_update_done(vm, b->fence);
		dma_fence_put(b->fence);
		b->fence = NULL;
		return fence;
	}
	vdxg_vm_update_done(vm, fence);
	return fence;
}

/*
 * Dwords a table can cost a bind: its creation (or a split), a GENERATE
 * or an entry list's header, and its unlink.
 */
#define VDXG_VM_TABLE_DW	(VDXG_PT_NEW_DW + VDXG_PG_UPT_GEN_LEN + \
				 VDXG_PG_UPT_LEN(1))
/* A mapping in an operation's range, cleared: a GENERATE, an unlink, a flush. */
#define VDXG_VM_VA_DW		(VDXG_PG_UPT_GEN_LEN + VDXG_PG_UPT_LEN(1) + \
				 VDXG_PG_FLUSH_VM_TLB_LEN)
/* The 2 MiB windows at a map's ends, written again where it joins. */
#define VDXG_VM_JOIN_DW		(2 * (VDXG_PG_UPT_LEN(VDXG_VM_TABLE_ENTRIES) + \
				      VDXG_PG_FLUSH_VM_TLB_LEN))

/*
 * Whether a bind fills more than @jobs paging buffers, by an upper bound
 * known before anything is applied: every table it may make (@tables),
 * and every table the VM has that it may clear, at VDXG_VM_TABLE_DW; each
 * mapping in an operation's range at VDXG_VM_VA_DW; an entry (2 dwords)
 * for each 4 KiB that a map writes (system pages, the worst case), the
 * windows it may join, and what validation maps again (every mapped
 * 2 MiB region); a flush an operation. A buffer holds all but the largest
 * step that did not fit. The walk of the mappings stops once past @jobs.
 */
static bool vdxg_vm_bind_exceeds(const struct vdxg_vm_bind *vb, u64 tables,
				 u64 jobs)
{
	struct vdxg_vm *vm = vb->vm;
	u64 room = vm->vdxg->paging.buf_size / 4 - VDXG_PT_NEW_DW;
	u64 budget = jobs * room, dw = tables * VDXG_VM_TABLE_DW;
	struct drm_gpuva *va;
	u32 i;

	lockdep_assert_held(&vm->lock);
	if (vb->validate)
		dw += vm->slots * (2 * VDXG_VM_TABLE_ENTRIES + VDXG_VM_TABLE_DW);
	for (i = 0; i < vb->n && dw <= budget; i++) {
		const struct drm_vdxg_vm_bind_op *op = &vb->ops[i];

		dw += min_t(u64, vdxg_vm_tables_max(op->range, 0),
			    READ_ONCE(vm->pt.tables)) * VDXG_VM_TABLE_DW;
		if (op->op == DRM_VDXG_VM_BIND_OP_MAP)
			dw += 2 * (op->range >> VDXG_GPU_PAGE_SHIFT);
		if (op->op != DRM_VDXG_VM_BIND_OP_UNMAP)
			dw += VDXG_VM_JOIN_DW;
		dw += VDXG_PG_FLUSH_VM_TLB_LEN;
		drm_gpuvm_for_each_va_range(va, &vm->gpuvm, op->va,
					    op->va + op->range) {
			dw += VDXG_VM_VA_DW;
			if (dw > budget)
				break;
		}
	}
	return dw > budget;
}

/*
 * Binds waiting for their in-fences hold kernel memory (their paging
 * jobs): a call is taken when the buffers it may fill keep the VM's queue
 * within VDXG_VM_MAX_QUEUED_JOBS, or when the queue is empty: one call
 * alone holds at most what its objects' pages and the VM's tables bound
 * (a 4 KiB entry's 8 bytes, a table's or a mapping's few dwords).
 */
static int vdxg_vm_queue_check(const struct vdxg_vm_bind *vb, u64 tables)
{
	struct vdxg_vm *vm = vb->vm;
	u32 queued = atomic_read(&vm->queue.jobs);

	if (!queued || (queued < VDXG_VM_MAX_QUEUED_JOBS &&
			!vdxg_vm_bind_exceeds(vb, tables,
					      VDXG_VM_MAX_QUEUED_JOBS - queued)))
		return 0;
	drm_dbg_ratelimited(&vm->vdxg->drm,
			    "VM %u of client %llu: %u paging jobs queued, VM_BIND returns -EBUSY\n",
			    vm->id, vm->client_id, queued);
	return -EBUSY;
}

/* Tables at the two ends of a range: one for each level below the root. */
#define VDXG_VM_END_TABLES	(2 * (VDXG_VM_LEVELS - 1))

/* Tables a bind's steps may need, and what its maps add to the slots. */
static u64 vdxg_vm_bind_tables(const struct vdxg_vm_bind *vb)
{
	u64 n = 0;
	u32 i;

	for (i = 0; i < vb->n; i++) {
		const struct drm_vdxg_vm_bind_op *op = &vb->ops[i];

		/* Cutting a leaf of levels 3 to 1 at either end. */
		n += VDXG_VM_END_TABLES;
		/*
		 * A null range takes the largest leaves that fit it
		 * (vdxg_pt_can_leaf()): tables at its ends only, as many as
		 * the cuts. No move ever splits it.
		 */
		if (op->op == DRM_VDXG_VM_BIND_OP_MAP)
			n += vdxg_vm_tables_max(op->range, 0) +
			     vdxg_vm_slots(op->va, op->range);
		else if (op->op == DRM_VDXG_VM_BIND_OP_MAP_NULL)
			n += VDXG_VM_END_TABLES;
	}
	return n;
}

/* The pages of the objects to map, before the steps take @pt_lock. */
static int vdxg_vm_bind_populate(struct vdxg_vm_bind *vb)
{
	u32 i;
	int ret;

	for (i = 0; i < vb->n; i++) {
		if (!vb->objs[i])
			continue;
		ret = vdxg_vm_populate(container_of(vb->objs[i],
						    struct ttm_buffer_object,
						    base));
		if (ret)
			return ret;
	}
	return 0;
}

static int vdxg_vm_bind_run(struct vdxg_vm_bind *vb,
			    struct vdxg_sync_args *sync)
{
	struct vdxg_vm *vm = vb->vm;
	struct vdxg_pg_batch b;
	struct dma_fence *fence;
	struct drm_exec exec;
	u64 tables;
	int ret;

	/*
	 * Several operations may name one object, or one already mapped;
	 * objects private to the VM share its reservation.
	 */
	drm_exec_init(&exec, DRM_EXEC_INTERRUPTIBLE_WAIT |
		      DRM_EXEC_IGNORE_DUPLICATES, 0);
	ret = vdxg_vm_bind_lock(vb, &exec);
	if (ret)
		goto out_exec;
	tables = vdxg_vm_bind_tables(vb);
	ret = vdxg_vm_queue_check(vb, tables);
	if (ret)
		goto out_exec;

	ret = vdxg_pg_batch_begin_queue(&b, vm->vdxg, &vm->queue);
	if (ret)
		goto out_exec;
	/* The tables change once the in-fences and the objects are ready. */
	ret = vdxg_sync_in_fences(sync, &b.deps);
	if (!ret)
		ret = vdxg_vm_bind_deps(&b, &exec);
	if (!ret)
		ret = vdxg_vm_bind_populate(vb);
	/* Tables first: -ENOSPC then leaves nothing queued. */
	if (!ret)
		ret = vdxg_vm_reserve_fill(vm, vm->slots + tables);
	/*
	 * After the tables are made: a new one may have memory that a
	 * pipelined eviction still copies out, behind the evicted object's
	 * jobs. TTM put that move's fence on the table's reservation, the
	 * VM's (KERNEL); the shared paging queue runs it, not this one.
	 */
	if (!ret)
		ret = vdxg_pg_batch_add_resv(&b, vm->gpuvm.r_obj->resv,
					     DMA_RESV_USAGE_KERNEL);
	if (!ret && vb->validate) {
		vm->validate = &b;
		ret = drm_gpuvm_validate(&vm->gpuvm, &exec);
		vm->validate = NULL;
	}
	if (!ret) {
		mutex_lock(&vm->pt_lock);
		vm->no_alloc = true;
		/* Each map and unmap ends with a FLUSH_VM_TLB of its range. */
		ret = vdxg_vm_update_begin(vm, &b);
		if (!ret)
			ret = vdxg_vm_bind_apply(vb, &b);
		if (ret)
			vdxg_vm_break(vm, "a bind failed half-way");
		vm->no_alloc = false;
		fence = vdxg_vm_update_end(vm, &b);
		mutex_unlock(&vm->pt_lock);
	} else {
		/*
		 * What validate queued (objects mapped again) writes the
		 * tables too: the VM's next update waits for it.
		 */
		mutex_lock(&vm->pt_lock);
		fence = vdxg_vm_update_end(vm, &b);
		mutex_unlock(&vm->pt_lock);
	}
	if (IS_ERR(fence)) {
		ret = ret ?: PTR_ERR(fence);
		fence = NULL;
	}
	if (fence) {
		/*
		 * KERNEL on the VM's own reservation: the VM's jobs wait for
		 * the tables to be written, not for each other.
		 */
		drm_gpuvm_resv_add_fence(&vm->gpuvm, &exec, fence,
					 DMA_RESV_USAGE_KERNEL,
					 DMA_RESV_USAGE_BOOKKEEP);
		if (!ret)
			vdxg_sync_signal(sync, fence);
	}
	vdxg_vm_free_tables(vm, &b.deferred_tables);
	/* What moves may need stays; the rest of the worst case goes. */
	vdxg_vm_reserve_trim(vm, vm->slots);
	dma_fence_put(fence);
out_exec:
	vdxg_vm_exec_fini(&exec);
	return ret;
}

int vdxg_vm_bind_ioctl(struct drm_device *drm, void *data,
		       struct drm_file *file)
{
	struct drm_vdxg_vm_bind *args = data;
	struct vdxg_file *vf = file->driver_priv;
	struct vdxg_sync_args sync;
	struct vdxg_vm_bind vb = {};
	u32 i;
	int ret;

	if (args->flags || args->pad)
		return -EINVAL;
	if (!args->num_ops || args->num_ops > DRM_VDXG_VM_BIND_MAX_OPS)
		return args->num_ops ? -E2BIG : -EINVAL;

	vb.vm = vdxg_vm_lookup(vf, args->vm_id);
	if (!vb.vm)
		return -ENOENT;
	vb.n = args->num_ops;
	vb.ops = kvmalloc_array(vb.n, sizeof(*vb.ops), GFP_KERNEL_ACCOUNT);
	vb.objs = kvcalloc(vb.n, sizeof(*vb.objs), GFP_KERNEL_ACCOUNT);
	ret = -ENOMEM;
	if (!vb.ops || !vb.objs)
		goto out;
	ret = -EFAULT;
	if (copy_from_user(vb.ops, u64_to_user_ptr(args->ops),
			   vb.n * sizeof(*vb.ops)))
		goto out;
	for (i = 0; i < vb.n; i++) {
		ret = vdxg_vm_check_op(&vb.ops[i]);
		if (ret)
			goto out;
	}
	ret = vdxg_vm_bind_lookup(&vb, file);
	if (ret)
		goto out;

	ret = vdxg_sync_args_init(&sync, file, args->in_syncs,
				  args->num_in_syncs, args->out_syncs,
				  args->num_out_syncs);
	if (ret) {
		vdxg_sync_args_fini(&sync);
		goto out;
	}

	mutex_lock(&vb.vm->lock);
	if (vb.vm->closed)
		ret = -ENOENT;
	else if (vb.vm->broken)
		ret = -EIO;
	else
		ret = vdxg_vm_bind_run(&vb, &sync);
	mutex_unlock(&vb.vm->lock);
	vdxg_sync_args_fini(&sync);
out:
	for (i = 0; vb.objs && i < vb.n; i++)
		if (vb.objs[i])
			drm_gem_object_put(vb.objs[i]);
	kvfree(vb.objs);
	kvfree(vb.ops);
	drm_gpuvm_put(&vb.vm->gpuvm);
	return ret;
}
