// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_exec.h>
#include <drm/drm_file.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>
#include <drm/drm_syncobj.h>
#include <drm/vdxg_drm.h>
#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_tt.h>

#include "vdxg_bo.h"
#include "vdxg_drv.h"
#include "vdxg_hw.h"
#include "vdxg_paging.h"
#include "vdxg_render.h"
#include "vdxg_sync.h"
#include "vdxg_vm.h"

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

#define VDXG_VM_VA_END		BIT_ULL(DRM_VDXG_VM_VA_BITS)
/* drm_gpuva.flags: the GPU may only read the mapping */
#define VDXG_GPUVA_READ_ONLY	DRM_GPUVA_USERBITS
#define VDXG_VM_TABLE_BYTES	(VDXG_VM_MAX_AS * VDXG_VM_AS_ENTRY_SIZE)

static struct vdxg_vm *to_vdxg_vm(struct drm_gpuvm *gpuvm)
{
	return container_of(gpuvm, struct vdxg_vm, gpuvm);
}

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

/* --------------------------------------------------------- table pages */

/*
 * A page table is a pinned 4 KiB object in VRAM sharing the VM's
 * reservation. Tables are created only with that reservation held and
 * @pt_lock not held (creating one may evict, and an eviction of an object
 * bound in this VM takes @pt_lock): before a bind's steps, enough for the
 * worst case go to @reserve, and the steps, like moves, take tables from
 * it only. A move may split 2 MiB pages: @reserve always holds one table
 * for each 2 MiB region mapped (@slots), so that a move never allocates.
 */
/*
 * Page tables are VRAM no eviction frees: the VMs of a file hold at most
 * an eighth of the VRAM segment (at least 8 MiB) in them, and binds that
 * would need more fail with -ENOSPC.
 */
static u32 vdxg_vm_file_tables_max(struct vdxg_device *vdxg)
{
	/* The VRAM segment, as debugfs segments shows it (pages). */
	u64 pages = ttm_manager_type(&vdxg->ttm, TTM_PL_VRAM)->size;

	return max_t(u64, pages / 8, SZ_8M >> PAGE_SHIFT);
}

static int vdxg_vm_table_create(struct vdxg_vm *vm, u64 *offset)
{
	static const u32 vram = DRM_VDXG_SEGMENT_VRAM;
	struct vdxg_bo *bo;
	int ret;

	dma_resv_assert_held(vm->gpuvm.r_obj->resv);
	/* Charged first: binds of the file's other VMs run meanwhile. */
	if (atomic_inc_return(&vm->file->pt_tables) >
	    vdxg_vm_file_tables_max(vm->vdxg)) {
		ret = -ENOSPC;
		goto err_charge;
	}
	ret = vdxg_bo_create_sg(vm->vdxg, SZ_4K, DRM_VDXG_GEM_NO_CLEAR, &vram,
				1, NULL, vm->gpuvm.r_obj->resv, &bo);
	if (ret)
		goto err_charge;
	ttm_bo_pin(&bo->tbo);
	*offset = vdxg_ttm_gpu_addr(vm->vdxg, bo->tbo.resource);
	ret = xa_err(xa_store(&vm->tables, *offset >> PAGE_SHIFT, bo,
			      GFP_KERNEL));
	if (ret) {
		ttm_bo_unpin(&bo->tbo);
		drm_gem_object_put(&bo->tbo.base);
		goto err_charge;
	}
	return 0;

err_charge:
	atomic_dec(&vm->file->pt_tables);
	return ret;
}

static void vdxg_vm_table_destroy(struct vdxg_vm *vm, u64 offset)
{
	struct vdxg_bo *bo = xa_erase(&vm->tables, offset >> PAGE_SHIFT);

	if (WARN_ON(!bo))
		return;
	dma_resv_assert_held(bo->tbo.base.resv);
	ttm_bo_unpin(&bo->tbo);
	drm_gem_object_put(&bo->tbo.base);
	atomic_dec(&vm->file->pt_tables);
}

/*
 * @reserve belongs to @pt_lock: moves of bound objects take tables from it
 * and give unlinked ones back under that lock alone. Binds (under @lock,
 * with the VM's reservation) make and destroy the table objects outside
 * it, since making one may evict an object bound here, whose move takes
 * @pt_lock, and only move offsets in and out of @reserve under it.
 */

/* Take the last entry of @reserve; false when it is empty. */
static bool vdxg_vm_reserve_pop(struct vdxg_vm *vm, u64 *e)
{
	lockdep_assert_held(&vm->pt_lock);
	if (!vm->nreserve)
		return false;
	*e = vm->reserve[--vm->nreserve];
	return true;
}

/* Add an entry to @reserve; false when it has no room. */
static bool vdxg_vm_reserve_push(struct vdxg_vm *vm, u64 e)
{
	lockdep_assert_held(&vm->pt_lock);
	if (vm->nreserve >= vm->reserve_cap)
		return false;
	vm->reserve[vm->nreserve++] = e;
	return true;
}

/* Entries in @reserve now. */
static u32 vdxg_vm_reserve_count(struct vdxg_vm *vm, u64 *linked)
{
	u32 n;

	mutex_lock(&vm->pt_lock);
	n = vm->nreserve;
	if (linked)
		*linked = vm->pt.tables;
	mutex_unlock(&vm->pt_lock);
	return n;
}

/*
 * Make room in @reserve for @n tables: a new array, allocated outside
 * @pt_lock and swapped in under it. Only binds change @reserve_cap.
 */
static int vdxg_vm_reserve_room(struct vdxg_vm *vm, u64 n)
{
	u64 *r, *old;

	lockdep_assert_held(&vm->lock);
	if (n <= vm->reserve_cap)
		return 0;
	if (n > U32_MAX / 2)
		return -ENOMEM;
	n = max_t(u64, n, 2 * vm->reserve_cap);
	r = kvmalloc_array(n, sizeof(*r), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!r)
		return -ENOMEM;
	mutex_lock(&vm->pt_lock);
	memcpy(r, vm->reserve, vm->nreserve * sizeof(*r));
	old = vm->reserve;
	vm->reserve = r;
	vm->reserve_cap = n;
	mutex_unlock(&vm->pt_lock);
	kvfree(old);
	return 0;
}

/*
 * Have @want tables in @reserve, with room to take back as many again:
 * what a move frees while it promotes 2 MiB pages goes back there.
 */
static int vdxg_vm_reserve_fill(struct vdxg_vm *vm, u64 want)
{
	u64 offset, linked;
	u32 have;
	int ret;

	have = vdxg_vm_reserve_count(vm, &linked);
	/* Early, for a bind that cannot fit; each table is charged too. */
	if (have < want &&
	    atomic_read(&vm->file->pt_tables) + (want - have) >
	    vdxg_vm_file_tables_max(vm->vdxg))
		return -ENOSPC;
	/* Room also for every table of the tree to come back unlinked. */
	ret = vdxg_vm_reserve_room(vm, 2 * want + have + linked);
	while (!ret && have < want) {
		bool full;

		ret = vdxg_vm_table_create(vm, &offset);
		if (ret)
			break;
		mutex_lock(&vm->pt_lock);
		/* The room counts every table the VM has, this one too. */
		full = WARN_ON_ONCE(!vdxg_vm_reserve_push(vm, offset));
		have = vm->nreserve;
		mutex_unlock(&vm->pt_lock);
		if (full) {
			vdxg_vm_table_destroy(vm, offset);
			ret = -ENOMEM;
		}
	}
	return ret;
}

/*
 * A table once linked may be unlinked by a paging job that has not run
 * yet: until it has, the device may still walk it. Such a table goes back
 * to @reserve marked (VDXG_VM_RESERVE_USED): only a later paging job may
 * use it again (the queue runs in order), and only VM destruction, once
 * the device is idle, frees it. Tables never linked are freed at will.
 */
#define VDXG_VM_RESERVE_USED	BIT_ULL(0)

/*
 * Give back unused tables of @reserve while it holds more than @keep:
 * taken out under @pt_lock, destroyed after it.
 */
static void vdxg_vm_reserve_trim(struct vdxg_vm *vm, u64 keep)
{
	u32 n = vdxg_vm_reserve_count(vm, NULL), i, k = 0;
	u64 *drop;

	if (n <= keep)
		return;
	drop = kvmalloc_array(n - keep, sizeof(*drop),
			      GFP_KERNEL | __GFP_NOWARN);
	if (!drop)
		return;		/* they stay for a later bind */
	mutex_lock(&vm->pt_lock);
	i = vm->nreserve;
	while (i-- && vm->nreserve > keep && k < n - keep) {
		u64 e = vm->reserve[i];

		if (e & VDXG_VM_RESERVE_USED)
			continue;
		vm->reserve[i] = vm->reserve[--vm->nreserve];
		drop[k++] = e;
	}
	mutex_unlock(&vm->pt_lock);
	while (k)
		vdxg_vm_table_destroy(vm, drop[--k]);
	kvfree(drop);
}

/* At destruction, with the device done with the VM: every table goes. */
static void vdxg_vm_reserve_free(struct vdxg_vm *vm)
{
	u64 e;

	while (vdxg_vm_reserve_pop(vm, &e))
		vdxg_vm_table_destroy(vm, e & ~VDXG_VM_RESERVE_USED);
}

static int vdxg_vm_pt_alloc(void *priv, u64 *offset)
{
	struct vdxg_vm *vm = priv;

	/* VM_CREATE's root table, before anything else can see the VM. */
	if (!vm->no_alloc)
		return vdxg_vm_table_create(vm, offset);
	if (!vdxg_vm_reserve_pop(vm, offset))
		return -ENOMEM;
	*offset &= ~VDXG_VM_RESERVE_USED;
	return 0;
}

static void vdxg_vm_pt_free(void *priv, u64 offset)
{
	struct vdxg_vm *vm = priv;

	/* Room is made before a bind for every table the VM has. */
	if (!vm->closed &&
	    !WARN_ON(!vdxg_vm_reserve_push(vm, offset | VDXG_VM_RESERVE_USED)))
		return;
	vdxg_vm_table_destroy(vm, offset);
}

/*
 * The most tables a map of @range bytes can add: at each of levels @first
 * to 2, one per region of the level above it covers, plus the two ends.
 */
static u64 vdxg_vm_tables_max(u64 range, int first)
{
	u64 n = 0;
	int level;

	for (level = first; level < VDXG_VM_LEVELS - 1; level++)
		n += (range >> VDXG_VM_LEVEL_SHIFT(level + 1)) + 2;
	return n;
}

/* 2 MiB regions [va, va + range) touches: tables a move may need. */
static u64 vdxg_vm_slots(u64 va, u64 range)
{
	return (round_up(va + range, SZ_2M) - round_down(va, SZ_2M)) >>
	       VDXG_VM_LARGE_SHIFT;
}

/*
 * What a mapping adds to @slots: nothing for a null one, whose entries no
 * move rewrites.
 */
static u64 vdxg_vm_va_slots(const struct drm_gpuva *va)
{
	return va->gem.obj ? vdxg_vm_slots(va->va.addr, va->va.range) : 0;
}

static const struct vdxg_pt_ops vdxg_vm_pt_ops = {
	.alloc = vdxg_vm_pt_alloc,
	.free = vdxg_vm_pt_free,
};

/* ------------------------------------------------- mapping an object */

/*
 * Give @tbo its pages, if it lives in system memory and has none (new, or
 * swapped out). With @pt_lock not held: populating may swap other objects
 * out, and vdxg_vm_swap_notify() takes the @pt_lock of their VMs.
 */
static int vdxg_vm_populate(struct ttm_buffer_object *tbo)
{
	struct ttm_operation_ctx ctx = { .interruptible = true };

	dma_resv_assert_held(tbo->base.resv);
	if (tbo->resource->mem_type == TTM_PL_VRAM || !tbo->ttm ||
	    ttm_tt_is_populated(tbo->ttm))
		return 0;
	return ttm_tt_populate(tbo->bdev, tbo->ttm, &ctx);
}

/* Where @tbo is now, as a source for the page-table builder. */
static int vdxg_vm_src(struct vdxg_vm *vm, struct ttm_buffer_object *tbo,
		       u64 offset, struct vdxg_pt_src *src)
{
	struct ttm_resource *res = tbo->resource;

	memset(src, 0, sizeof(*src));
	if (res->mem_type == TTM_PL_VRAM) {
		src->type = VDXG_PT_SRC_VRAM;
		src->addr = vdxg_ttm_gpu_addr(vm->vdxg, res) + offset;
		return 0;
	}
	/* System memory, in the aperture or not: its pages, directly. */
	if (!tbo->ttm || !ttm_tt_is_populated(tbo->ttm))
		return -EINVAL;
	src->type = VDXG_PT_SRC_PAGES;
	src->pages = tbo->ttm->dma_address;
	src->npages = tbo->ttm->num_pages;
	src->addr = offset;
	return 0;
}

static u64 vdxg_vm_pte_flags(const struct drm_gpuva *va)
{
	return va->flags & VDXG_GPUVA_READ_ONLY ? VDXG_PTE_READ_ONLY : 0;
}

/* Emit the entries of @va (or of [addr, addr + range) of it). */
static int vdxg_vm_emit_map(struct vdxg_vm *vm, struct vdxg_pg_batch *b,
			    struct drm_gpuva *va, u64 addr, u64 range)
{
	struct vdxg_pt_update upd;
	struct vdxg_pt_src src;
	int ret;

	if (va->flags & DRM_GPUVA_SPARSE) {
		src.type = VDXG_PT_SRC_NULL;
	} else {
		ret = vdxg_vm_src(vm, container_of(va->gem.obj,
						   struct ttm_buffer_object,
						   base),
				  va->gem.offset + (addr - va->va.addr), &src);
		if (ret)
			return ret;
	}
	vdxg_pt_update_init(&upd);
	ret = vdxg_pg_emit(b, vdxg_pt_map(&vm->pt, &b->pb, addr, range, &src,
					  vdxg_vm_pte_flags(va), &upd,
					  &b->stats));
	list_splice_tail(&upd.deferred, &b->deferred_tables);
	return ret;
}

static int vdxg_vm_emit_unmap(struct vdxg_vm *vm, struct vdxg_pg_batch *b,
			      u64 addr, u64 range)
{
	struct vdxg_pt_update upd;
	int ret;

	if (!range)
		return 0;
	vdxg_pt_update_init(&upd);
	ret = vdxg_pg_emit(b, vdxg_pt_unmap(&vm->pt, &b->pb, addr, range,
					    &upd, &b->stats));
	list_splice_tail(&upd.deferred, &b->deferred_tables);
	return ret;
}

/* --------------------------------------------------- drm_gpuvm's steps */

/**
 * struct vdxg_vm_step - what drm_gpuvm's steps of one operation need
 * @vm: the VM
 * @b: the paging batch the entries go to
 * @flags: DRM_GPUVA_* and VDXG_GPUVA_* of the mapping being made
 */
struct vdxg_vm_step {
	struct vdxg_vm *vm;
	struct vdxg_pg_batch *b;
	u32 flags;
};

static struct drm_gpuva *vdxg_vm_va_alloc(void)
{
	return kzalloc(sizeof(struct drm_gpuva), GFP_KERNEL);
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

static void vdxg_vm_free(struct drm_gpuvm *gpuvm)
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

static int vdxg_vm_bo_validate(struct drm_gpuvm_bo *vm_bo,
			       struct drm_exec *exec);

static const struct drm_gpuvm_ops vdxg_gpuvm_ops = {
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
static void vdxg_vm_exec_fini(struct drm_exec *exec)
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

static bool vdxg_vm_has_evicted(struct vdxg_vm *vm)
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

static struct vdxg_vm *vdxg_vm_lookup(struct vdxg_file *vf, u32 id)
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
static void vdxg_vm_free_tables(struct vdxg_vm *vm, struct list_head *tables)
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
static int vdxg_vm_bind_deps(struct vdxg_pg_batch *b, struct drm_exec *exec)
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
static void vdxg_vm_break(struct vdxg_vm *vm, const char *why)
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
static int vdxg_vm_update_begin(struct vdxg_vm *vm, struct vdxg_pg_batch *b)
{
	lockdep_assert_held(&vm->pt_lock);
	return vdxg_pg_batch_add_dep(b, vm->last_update);
}

static void vdxg_vm_update_done(struct vdxg_vm *vm, struct dma_fence *fence)
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
static struct dma_fence *vdxg_vm_update_end(struct vdxg_vm *vm,
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
 * Binds waiting for their in-fences hold kernel memory (their paging
 * jobs): a VM has at most VDXG_VM_MAX_QUEUED_JOBS queued.
 */
static int vdxg_vm_queue_check(struct vdxg_vm *vm)
{
	if (atomic_read(&vm->queue.jobs) < VDXG_VM_MAX_QUEUED_JOBS)
		return 0;
	drm_dbg_ratelimited(&vm->vdxg->drm,
			    "VM %u of client %llu: %u paging jobs queued, VM_BIND returns -EBUSY\n",
			    vm->id, vm->client_id, VDXG_VM_MAX_QUEUED_JOBS);
	return -EBUSY;
}

/* Tables a bind's steps may need, and what its maps add to the slots. */
static u64 vdxg_vm_bind_tables(const struct vdxg_vm_bind *vb)
{
	u64 n = 0;
	u32 i;

	for (i = 0; i < vb->n; i++) {
		const struct drm_vdxg_vm_bind_op *op = &vb->ops[i];

		/* Cutting a 2 MiB page at either end of the range. */
		n += 2;
		/*
		 * A null range is written with 2 MiB entries but at its ends
		 * (vdxg_pt_can_large()): level-0 tables there only. No move
		 * ever splits it.
		 */
		if (op->op == DRM_VDXG_VM_BIND_OP_MAP)
			n += vdxg_vm_tables_max(op->range, 0) +
			     vdxg_vm_slots(op->va, op->range);
		else if (op->op == DRM_VDXG_VM_BIND_OP_MAP_NULL)
			n += 2 + vdxg_vm_tables_max(op->range, 1);
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
	int ret;

	ret = vdxg_vm_queue_check(vm);
	if (ret)
		return ret;
	/*
	 * Several operations may name one object, or one already mapped;
	 * objects private to the VM share its reservation.
	 */
	drm_exec_init(&exec, DRM_EXEC_INTERRUPTIBLE_WAIT |
		      DRM_EXEC_IGNORE_DUPLICATES, 0);
	ret = vdxg_vm_bind_lock(vb, &exec);
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
		ret = vdxg_vm_reserve_fill(vm, vm->slots +
					   vdxg_vm_bind_tables(vb));
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
	vb.ops = kvmalloc_array(vb.n, sizeof(*vb.ops), GFP_KERNEL);
	vb.objs = kvcalloc(vb.n, sizeof(*vb.objs), GFP_KERNEL);
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
static int vdxg_vm_bo_validate(struct drm_gpuvm_bo *vm_bo,
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

/* ------------------------------------------------------------- debugfs */

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
