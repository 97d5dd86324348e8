// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/slab.h>

#include <drm/vdxg_drm.h>
#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_tt.h>

#include "vdxg_bo.h"
#include "vdxg_drv.h"
#include "vdxg_hw.h"
#include "vdxg_paging.h"
#include "vdxg_render.h"
#include "vdxg_vm.h"
#include "vdxg_vm_priv.h"

/**
 * DOC: VM page tables
 *
 * A VM's page tables: the pinned VRAM objects that hold them, charged to
 * the owning file, and the reserve that a bind fills before its steps and
 * that the steps and the moves of bound objects take tables from. Also the
 * mapping of an object: its pages, where it is as a source for vdxg_pt.c's
 * builder, and the page-table operations that write or remove a mapping's
 * entries in a paging batch.
 */

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
int vdxg_vm_reserve_fill(struct vdxg_vm *vm, u64 want)
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
void vdxg_vm_reserve_trim(struct vdxg_vm *vm, u64 keep)
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
void vdxg_vm_reserve_free(struct vdxg_vm *vm)
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
u64 vdxg_vm_tables_max(u64 range, int first)
{
	u64 n = 0;
	int level;

	for (level = first; level < VDXG_VM_LEVELS - 1; level++)
		n += (range >> VDXG_VM_LEVEL_SHIFT(level + 1)) + 2;
	return n;
}

/* 2 MiB regions [va, va + range) touches: tables a move may need. */
u64 vdxg_vm_slots(u64 va, u64 range)
{
	return (round_up(va + range, SZ_2M) - round_down(va, SZ_2M)) >>
	       VDXG_VM_LARGE_SHIFT;
}

/*
 * What a mapping adds to @slots: nothing for a null one, whose entries no
 * move rewrites.
 */
u64 vdxg_vm_va_slots(const struct drm_gpuva *va)
{
	return va->gem.obj ? vdxg_vm_slots(va->va.addr, va->va.range) : 0;
}

const struct vdxg_pt_ops vdxg_vm_pt_ops = {
	.alloc = vdxg_vm_pt_alloc,
	.free = vdxg_vm_pt_free,
};

/* ------------------------------------------------- mapping an object */

/*
 * Give @tbo its pages, if it lives in system memory and has none (new, or
 * swapped out). With @pt_lock not held: populating may swap other objects
 * out, and vdxg_vm_swap_notify() takes the @pt_lock of their VMs. A
 * client's bind fails with -ENOMEM rather than wake the OOM killer.
 */
int vdxg_vm_populate(struct ttm_buffer_object *tbo)
{
	struct ttm_operation_ctx ctx = { .interruptible = true,
					 .gfp_retry_mayfail = true };

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

u64 vdxg_vm_pte_flags(const struct drm_gpuva *va)
{
	return va->flags & VDXG_GPUVA_READ_ONLY ? VDXG_PTE_READ_ONLY : 0;
}

/* Emit the entries of @va (or of [addr, addr + range) of it). */
int vdxg_vm_emit_map(struct vdxg_vm *vm, struct vdxg_pg_batch *b,
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

int vdxg_vm_emit_unmap(struct vdxg_vm *vm, struct vdxg_pg_batch *b,
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
