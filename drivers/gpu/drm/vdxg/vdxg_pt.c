// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/bitmap.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/sizes.h>

#include "vdxg_hw.h"
#include "vdxg_pagebuf.h"
#include "vdxg_pt.h"

/**
 * DOC: GPU page tables
 *
 * Each GPU virtual address space (docs/hardware.md, "GPU virtual memory")
 * has a tree of four levels of 512-entry tables in VRAM. The driver keeps
 * a shadow of the tree, &struct vdxg_pt: which tables exist, their VRAM
 * offsets, which of their entries are valid and which are leaves above
 * level 0: 2 MiB pages at level 1, null leaves at levels 3 and 2. The CPU
 * never writes the tables: every change is a paging operation emitted
 * into a paging buffer (see "Paging buffers"), and the shadow is updated
 * as each operation is emitted, so that it describes the
 * tables as they are once the buffers emitted so far have run. Whatever a
 * call returns, the operations it left in the buffer belong to that state:
 * the caller submits every buffer it filled, in order.
 *
 * Table pages come from &struct vdxg_pt_ops, so this file is pure logic
 * that KUnit runs against an emulated device.
 *
 * vdxg_pt_map() and vdxg_pt_unmap() walk their range from its start. At
 * each address they descend from the root and do one step:
 *
 * - create a missing table: UPDATE_PAGE_TABLE GENERATE writes its 512
 *   entries (invalid, stride 0), then a one-entry UPDATE_PAGE_TABLE links
 *   it into its parent;
 * - write a run of 2 MiB leaves at level 1 where the range covers whole
 *   2 MiB pages and the source is 2 MiB aligned and contiguous over each
 *   (a level-0 table there is unlinked); for null pages, likewise a run of
 *   null leaves at level 3 or 2 where the range covers whole 512 GiB or
 *   1 GiB, so that a null range of any size takes tables at its ends only;
 * - split a leaf above level 0 that the range covers only in part: a new
 *   table of the next level gets the leaf's 512 pieces (GENERATE), then
 *   replaces the leaf;
 * - write a run of level-0 entries: GENERATE for VRAM and null pages, an
 *   entry list (split over buffers) for system pages;
 * - unmap: invalidate whole directory entries (their tables go on the
 *   deferred-free list) or a run of level-0 entries.
 *
 * Then tables that were left without a valid entry are unlinked, bottom
 * up, and a range FLUSH_VM_TLB ends the operation.
 *
 * Multipass: a step that does not fit in the buffer returns -ENOSPC and
 * leaves the cursor (&struct vdxg_pt_update) where it was; the caller
 * submits the buffer and calls again with a new one, as for
 * vdxg_pg_transfer(). Each step is emitted whole or not at all (an entry
 * list excepted, whose emitted part advances the cursor), and the steps are
 * ordered so that the tables translate correctly after any of them, hence
 * between any two buffers:
 *
 * - a new table is initialised before the entry that links it, in the same
 *   step: the device never walks an uninitialised table;
 * - a split table holds exactly the leaf's translations when it replaces
 *   the leaf;
 * - a table is unlinked before it is freed, and only freed by the caller
 *   (vdxg_pt_free_deferred()) after the fence of the last paging buffer
 *   of the operation: the TLB caches leaves only, but an engine may be in
 *   the middle of a walk until then;
 * - the pages of the range may stay in the TLBs until the flush, which
 *   comes after every entry write; callers free the unmapped memory only
 *   after the fence too.
 *
 * Between passes part of the range may be mapped and part not yet, or
 * unmapped: the range is the caller's to keep unused until the fence.
 */

#define VDXG_PT_ENTRIES		VDXG_VM_TABLE_ENTRIES
#define VDXG_PT_PAGE		VDXG_GPU_PAGE_SIZE
#define VDXG_PT_LARGE_SIZE	BIT_ULL(VDXG_VM_LARGE_SHIFT)
#define VDXG_PT_VA_END		BIT_ULL(VDXG_VM_VA_BITS)
#define VDXG_PT_USER_FLAGS	(VDXG_PTE_COHERENT | VDXG_PTE_READ_ONLY | \
				 VDXG_PTE_NO_EXEC)

enum vdxg_pt_stage {
	VDXG_PT_STAGE_START,
	VDXG_PT_STAGE_ENTRIES,
	VDXG_PT_STAGE_PRUNE,
	VDXG_PT_STAGE_FLUSH,
	VDXG_PT_STAGE_DONE,
};

/* One call of vdxg_pt_map() or vdxg_pt_unmap(). */
struct vdxg_pt_walk {
	struct vdxg_pt_vm *vm;
	struct vdxg_pagebuf *pb;
	struct vdxg_pt_update *upd;
	struct vdxg_pg_stats *stats;
	const struct vdxg_pt_src *src;
	u64 pte;	/* leaf bits: VALID, ZERO, SEGMENT and the flags */
	u64 end;
};

static u64 vdxg_pt_span(u32 level)
{
	return BIT_ULL(VDXG_VM_LEVEL_SHIFT(level));
}

/*
 * The shadow of a table: charged to the memory cgroup of the client whose
 * bind (or move) makes it, as the table's VRAM counts against the file's
 * cap.
 */
static struct vdxg_pt *vdxg_pt_alloc(struct vdxg_pt_vm *vm, u32 level)
{
	struct vdxg_pt *pt = kzalloc(sizeof(*pt), GFP_KERNEL_ACCOUNT);
	int ret = -ENOMEM;

	if (!pt)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&pt->link);
	pt->level = level;
	if (level) {
		pt->child = kcalloc(VDXG_PT_ENTRIES, sizeof(*pt->child),
				    GFP_KERNEL_ACCOUNT);
		pt->large = kcalloc(VDXG_PT_ENTRIES, sizeof(*pt->large),
				    GFP_KERNEL_ACCOUNT);
		if (!pt->child || !pt->large)
			goto err;
	}
	ret = vm->ops->alloc(vm->priv, &pt->offset);
	if (ret)
		goto err;
	if (WARN_ON(pt->offset & ~VDXG_PTE_ADDR_MASK)) {
		vm->ops->free(vm->priv, pt->offset);
		ret = -EINVAL;
		goto err;
	}
	vm->tables++;
	return pt;

err:
	kfree(pt->large);
	kfree(pt->child);
	kfree(pt);
	return ERR_PTR(ret);
}

/* Give the page back and forget the shadow (not its children). */
static void vdxg_pt_destroy(struct vdxg_pt_vm *vm, struct vdxg_pt *pt)
{
	vm->ops->free(vm->priv, pt->offset);
	kfree(pt->large);
	kfree(pt->child);
	kfree(pt);
}

static void vdxg_pt_destroy_tree(struct vdxg_pt_vm *vm, struct vdxg_pt *pt)
{
	u32 i;

	for (i = 0; pt->child && i < VDXG_PT_ENTRIES; i++)
		if (pt->child[i])
			vdxg_pt_destroy_tree(vm, pt->child[i]);
	vdxg_pt_destroy(vm, pt);
}

static void vdxg_pt_set_valid(struct vdxg_pt *pt, u32 idx, u32 n)
{
	u32 i;

	for (i = idx; i < idx + n; i++)
		if (!__test_and_set_bit(i, pt->valid))
			pt->nvalid++;
}

static void vdxg_pt_clear_valid(struct vdxg_pt *pt, u32 idx, u32 n)
{
	u32 i;

	for (i = idx; i < idx + n; i++)
		if (__test_and_clear_bit(i, pt->valid))
			pt->nvalid--;
}

/* A table and everything under it leave the tree for the deferred list. */
static void vdxg_pt_defer(struct vdxg_pt_walk *w, struct vdxg_pt *pt)
{
	u32 i;

	for (i = 0; pt->child && i < VDXG_PT_ENTRIES; i++)
		if (pt->child[i])
			vdxg_pt_defer(w, pt->child[i]);
	list_add_tail(&pt->link, &w->upd->deferred);
	w->vm->tables--;
}

/**
 * vdxg_pt_vm_init - set up the page tables of an address space
 * @vm: the address space
 * @asid: its id, below %VDXG_VM_MAX_AS, or a VM key (%VDXG_PG_AS_KEY)
 * @ops: page allocator for the tables
 * @priv: argument of @ops
 *
 * Allocates the root table. It is not initialised, nor the address space
 * pointed at it, until vdxg_pt_vm_activate()'s operations run.
 *
 * Return: 0, -EINVAL, or the allocator's error.
 */
int vdxg_pt_vm_init(struct vdxg_pt_vm *vm, u32 asid,
		    const struct vdxg_pt_ops *ops, void *priv)
{
	struct vdxg_pt *root;

	if (asid >= VDXG_VM_MAX_AS && !(asid & VDXG_PG_AS_KEY))
		return -EINVAL;
	vm->ops = ops;
	vm->priv = priv;
	vm->asid = asid;
	vm->tables = 0;
	root = vdxg_pt_alloc(vm, VDXG_VM_LEVELS - 1);
	if (IS_ERR(root))
		return PTR_ERR(root);
	vm->root = root;
	return 0;
}

/**
 * vdxg_pt_vm_activate - emit the root's initialisation and the AS entry
 * @vm: the address space
 * @pb: the builder
 * @progress: in/out: steps already emitted, 0 on the first call
 * @stats: counters to update, or NULL
 *
 * Emits an UPDATE_PAGE_TABLE GENERATE of 512 invalid entries into the
 * root, then UPDATE_CONTEXT_ALLOCATION pointing the address space at it.
 *
 * Return: 0, -ENOSPC to continue in a new buffer, or -EINVAL.
 */
int vdxg_pt_vm_activate(struct vdxg_pt_vm *vm, struct vdxg_pagebuf *pb,
			u64 *progress, struct vdxg_pg_stats *stats)
{
	int ret;

	if (*progress == 0) {
		ret = vdxg_pg_update_pt_gen(pb, vm->root->offset, 0,
					    VDXG_PT_ENTRIES, 0, 0, stats);
		if (ret)
			return ret;
		++*progress;
	}
	if (*progress == 1) {
		ret = vdxg_pg_update_context_alloc(pb, vm->asid,
						   vm->root->offset |
						   VDXG_VM_AS_VALID, stats);
		if (ret)
			return ret;
		++*progress;
	}
	return *progress == 2 ? 0 : -EINVAL;
}

/**
 * vdxg_pt_vm_fini - free every table of an address space
 * @vm: the address space, which no engine may use any more
 */
void vdxg_pt_vm_fini(struct vdxg_pt_vm *vm)
{
	if (vm->root)
		vdxg_pt_destroy_tree(vm, vm->root);
	vm->root = NULL;
	vm->tables = 0;
}

/**
 * vdxg_pt_update_init - prepare the cursor of a map or unmap
 * @upd: the cursor
 */
void vdxg_pt_update_init(struct vdxg_pt_update *upd)
{
	upd->va = 0;
	upd->size = 0;
	upd->cur = 0;
	upd->stage = VDXG_PT_STAGE_START;
	INIT_LIST_HEAD(&upd->deferred);
}

/**
 * vdxg_pt_free_deferred - free the tables an operation unlinked
 * @vm: the address space
 * @list: &vdxg_pt_update.deferred, once the operation's last paging
 *	buffer has completed
 */
void vdxg_pt_free_deferred(struct vdxg_pt_vm *vm, struct list_head *list)
{
	struct vdxg_pt *pt, *next;

	list_for_each_entry_safe(pt, next, list, link) {
		list_del(&pt->link);
		vdxg_pt_destroy(vm, pt);
	}
}

/*
 * Create the table of @parent's entry @idx, its entries starting at @base
 * and stepping by @stride, and link it: the table is complete before the
 * device can reach it. A @parent's leaf there is replaced.
 */
static int vdxg_pt_new_table(struct vdxg_pt_walk *w, struct vdxg_pt *parent,
			     u32 idx, u64 base, u64 stride)
{
	struct vdxg_pt *pt;
	u64 entry, done = 0;

	if (vdxg_pagebuf_room(w->pb) < VDXG_PT_NEW_DW)
		return vdxg_pagebuf_full(w->pb);
	pt = vdxg_pt_alloc(w->vm, parent->level - 1);
	if (IS_ERR(pt))
		return PTR_ERR(pt);

	WARN_ON(vdxg_pg_update_pt_gen(w->pb, pt->offset, 0, VDXG_PT_ENTRIES,
				      base, stride, w->stats));
	entry = pt->offset | VDXG_PTE_VALID;
	WARN_ON(vdxg_pg_update_pt(w->pb, parent->offset, idx, &entry, 1,
				  &done, w->stats));

	if (base)
		vdxg_pt_set_valid(pt, 0, VDXG_PT_ENTRIES);
	if (parent->large)
		parent->large[idx] = 0;
	parent->child[idx] = pt;
	vdxg_pt_set_valid(parent, idx, 1);
	return 0;
}

/*
 * Replace the leaf of entry @idx (a 2 MiB page at level 1, a null leaf
 * above) by a table of its 512 pieces: 4 KiB pages (invalid ones for a
 * leaf made invalid, see vdxg_pt_invalidate_large()), or null leaves of
 * the next level.
 */
static int vdxg_pt_split(struct vdxg_pt_walk *w, struct vdxg_pt *pt, u32 idx)
{
	u64 leaf = pt->large[idx] & ~VDXG_PTE_LARGE, stride = 0;
	struct vdxg_pt *child;
	u32 i;
	int ret;

	if (pt->level == 1 && leaf && !(leaf & VDXG_PTE_ZERO))
		stride = VDXG_PT_PAGE;
	if (pt->level == 2)
		leaf |= VDXG_PTE_LARGE;
	ret = vdxg_pt_new_table(w, pt, idx, leaf, stride);
	if (ret)
		return ret;
	child = pt->child[idx];
	/* Invalid pages still count as used, as the leaf did. */
	if (!leaf)
		vdxg_pt_set_valid(child, 0, VDXG_PT_ENTRIES);
	for (i = 0; child->large && i < VDXG_PT_ENTRIES; i++)
		child->large[i] = leaf;
	return 0;
}

/*
 * An invalid source over the whole 2 MiB leaf of level-1 entry @idx: the
 * entry goes invalid in place, with no table allocated, and stays used
 * (the shadow keeps a leaf of LARGE alone), so that the range can be
 * mapped again without allocating when it takes a 2 MiB leaf again.
 */
static int vdxg_pt_invalidate_large(struct vdxg_pt_walk *w,
				    struct vdxg_pt *pt, u32 idx)
{
	int ret;

	ret = vdxg_pg_update_pt_gen(w->pb, pt->offset, idx, 1, 0, 0,
				    w->stats);
	if (ret)
		return ret;
	pt->large[idx] = VDXG_PTE_LARGE;
	w->upd->cur += VDXG_PT_LARGE_SIZE;
	return 0;
}

static u64 vdxg_pt_src_off(const struct vdxg_pt_walk *w, u64 va)
{
	return w->src->addr + (va - w->upd->va);
}

/* The leaf entry for @va (a 4 KiB page; level-1 leaves add LARGE). */
static u64 vdxg_pt_leaf(const struct vdxg_pt_walk *w, u64 va)
{
	switch (w->src->type) {
	case VDXG_PT_SRC_VRAM:
		return w->pte | vdxg_pt_src_off(w, va);
	case VDXG_PT_SRC_PAGES:
		return w->pte |
		       w->src->pages[vdxg_pt_src_off(w, va) / VDXG_PT_PAGE];
	default:
		return w->pte;
	}
}

static bool vdxg_pt_pages_large(const struct vdxg_pt_walk *w, u64 va)
{
	const dma_addr_t *p = w->src->pages + vdxg_pt_src_off(w, va) /
					      VDXG_PT_PAGE;
	u32 i;

	if (p[0] & (VDXG_PT_LARGE_SIZE - 1))
		return false;
	for (i = 1; i < VDXG_PT_ENTRIES; i++)
		if (p[i] != p[0] + (u64)i * VDXG_PT_PAGE)
			return false;
	return true;
}

/*
 * Can the span of a level-@level entry at @va be one leaf: a 2 MiB page at
 * level 1, a null leaf at level 3 or 2?
 */
static bool vdxg_pt_can_leaf(const struct vdxg_pt_walk *w, u64 va, u32 level)
{
	u64 span = vdxg_pt_span(level);

	if (va & (span - 1) || w->end - va < span)
		return false;
	if (level > 1)
		return w->src->type == VDXG_PT_SRC_NULL;
	switch (w->src->type) {
	case VDXG_PT_SRC_VRAM:
		return !(vdxg_pt_src_off(w, va) & (VDXG_PT_LARGE_SIZE - 1));
	case VDXG_PT_SRC_PAGES:
		return vdxg_pt_pages_large(w, va);
	case VDXG_PT_SRC_NULL:
		return true;
	default:
		/* A 2 MiB leaf of 0 would read as no leaf in the shadow. */
		return false;
	}
}

/*
 * A run of leaves from entry @idx of a table above level 0 (2 MiB pages,
 * or null leaves at level 3 or 2); tables there go away.
 */
static int vdxg_pt_map_large(struct vdxg_pt_walk *w, struct vdxg_pt *pt,
			     u32 idx)
{
	u32 shift = VDXG_VM_LEVEL_SHIFT(pt->level), n = 1, i;
	u64 va = w->upd->cur, base = vdxg_pt_leaf(w, va), stride = 0;
	int ret;

	if (pt->level == 1)
		base |= VDXG_PTE_LARGE;
	/* Page lists are checked 2 MiB at a time: one leaf a step. */
	if (w->src->type != VDXG_PT_SRC_PAGES)
		n = min_t(u64, VDXG_PT_ENTRIES - idx, (w->end - va) >> shift);
	if (w->src->type == VDXG_PT_SRC_VRAM)
		stride = VDXG_PT_LARGE_SIZE;

	ret = vdxg_pg_update_pt_gen(w->pb, pt->offset, idx, n, base, stride,
				    w->stats);
	if (ret)
		return ret;

	for (i = idx; i < idx + n; i++) {
		if (pt->child[i])
			vdxg_pt_defer(w, pt->child[i]);
		pt->child[i] = NULL;
		pt->large[i] = base + (i - idx) * stride;
	}
	vdxg_pt_set_valid(pt, idx, n);
	w->upd->cur += (u64)n << shift;
	return 0;
}

/* A run of level-0 entries from @idx, to the table's end or the range's. */
static int vdxg_pt_map_leaves(struct vdxg_pt_walk *w, struct vdxg_pt *pt,
			      u32 idx)
{
	u64 va = w->upd->cur, done = 0;
	u32 n = min_t(u64, VDXG_PT_ENTRIES - idx,
		      (w->end - va) / VDXG_PT_PAGE);
	int ret;

	switch (w->src->type) {
	case VDXG_PT_SRC_PAGES:
		ret = vdxg_pg_update_pt_pages(w->pb, pt->offset, idx,
					      w->src->pages +
					      vdxg_pt_src_off(w, va) /
					      VDXG_PT_PAGE,
					      w->pte, n, &done, w->stats);
		break;
	case VDXG_PT_SRC_VRAM:
		ret = vdxg_pg_update_pt_gen(w->pb, pt->offset, idx, n,
					    vdxg_pt_leaf(w, va), VDXG_PT_PAGE,
					    w->stats);
		done = ret ? 0 : n;
		break;
	default:
		ret = vdxg_pg_update_pt_gen(w->pb, pt->offset, idx, n,
					    w->pte, 0, w->stats);
		done = ret ? 0 : n;
		break;
	}

	vdxg_pt_set_valid(pt, idx, done);
	w->upd->cur += done * VDXG_PT_PAGE;
	return ret;
}

static int vdxg_pt_map_step(struct vdxg_pt_walk *w)
{
	struct vdxg_pt *pt = w->vm->root;
	u64 va = w->upd->cur;

	for (;;) {
		u32 idx = VDXG_VM_INDEX(va, pt->level);

		if (!pt->level)
			return vdxg_pt_map_leaves(w, pt, idx);
		if (vdxg_pt_can_leaf(w, va, pt->level))
			return vdxg_pt_map_large(w, pt, idx);
		/* Invalid entries are an object's: no null leaf above. */
		if (WARN_ON_ONCE(pt->level > 1 && pt->large[idx] &&
				 w->src->type == VDXG_PT_SRC_INVALID))
			return -EINVAL;
		if (pt->level == 1 && pt->large[idx] &&
		    w->src->type == VDXG_PT_SRC_INVALID &&
		    !(va & (VDXG_PT_LARGE_SIZE - 1)) &&
		    w->end - va >= VDXG_PT_LARGE_SIZE)
			return vdxg_pt_invalidate_large(w, pt, idx);
		if (pt->large && pt->large[idx])
			return vdxg_pt_split(w, pt, idx);
		if (!pt->child[idx])
			return vdxg_pt_new_table(w, pt, idx, 0, 0);
		pt = pt->child[idx];
	}
}

/* Invalidate a run of level-0 entries from @idx, skipping invalid ones. */
static int vdxg_pt_clear_leaves(struct vdxg_pt_walk *w, struct vdxg_pt *pt,
				u32 idx)
{
	u64 va = w->upd->cur;
	u32 n = min_t(u64, VDXG_PT_ENTRIES - idx,
		      (w->end - va) / VDXG_PT_PAGE);
	u32 first = find_next_bit(pt->valid, idx + n, idx);
	int ret;

	if (first == idx) {
		ret = vdxg_pg_update_pt_gen(w->pb, pt->offset, idx, n, 0, 0,
					    w->stats);
		if (ret)
			return ret;
		vdxg_pt_clear_valid(pt, idx, n);
		first = idx + n;
	}
	w->upd->cur += (u64)(first - idx) * VDXG_PT_PAGE;
	return 0;
}

/* Invalidate whole directory entries from @idx; their tables go away. */
static int vdxg_pt_clear_dir(struct vdxg_pt_walk *w, struct vdxg_pt *pt,
			     u32 idx)
{
	u32 shift = VDXG_VM_LEVEL_SHIFT(pt->level), n, i;
	int ret;

	n = min_t(u64, VDXG_PT_ENTRIES - idx, (w->end - w->upd->cur) >> shift);
	ret = vdxg_pg_update_pt_gen(w->pb, pt->offset, idx, n, 0, 0, w->stats);
	if (ret)
		return ret;

	for (i = idx; i < idx + n; i++) {
		if (pt->child[i])
			vdxg_pt_defer(w, pt->child[i]);
		pt->child[i] = NULL;
		if (pt->large)
			pt->large[i] = 0;
	}
	vdxg_pt_clear_valid(pt, idx, n);
	w->upd->cur += (u64)n << shift;
	return 0;
}

static int vdxg_pt_unmap_step(struct vdxg_pt_walk *w)
{
	struct vdxg_pt *pt = w->vm->root;
	u64 va = w->upd->cur;

	for (;;) {
		u32 idx = VDXG_VM_INDEX(va, pt->level), next;
		u64 span = vdxg_pt_span(pt->level);

		if (!pt->level)
			return vdxg_pt_clear_leaves(w, pt, idx);
		if (!test_bit(idx, pt->valid)) {
			/* Skip to the next valid entry, or the range's end. */
			next = find_next_bit(pt->valid, VDXG_PT_ENTRIES, idx);
			w->upd->cur = min(w->end, (va & ~(span - 1)) +
					  (u64)(next - idx) * span);
			return 0;
		}
		if (!(va & (span - 1)) && w->end - va >= span)
			return vdxg_pt_clear_dir(w, pt, idx);
		if (pt->large && pt->large[idx])
			return vdxg_pt_split(w, pt, idx);
		pt = pt->child[idx];
	}
}

/* Unlink the empty table of @pt's entry @idx. */
static int vdxg_pt_unlink(struct vdxg_pt_walk *w, struct vdxg_pt *pt, u32 idx)
{
	u64 entry = 0, done = 0;
	int ret;

	ret = vdxg_pg_update_pt(w->pb, pt->offset, idx, &entry, 1, &done,
				w->stats);
	if (ret)
		return ret;
	vdxg_pt_defer(w, pt->child[idx]);
	pt->child[idx] = NULL;
	vdxg_pt_clear_valid(pt, idx, 1);
	return 0;
}

/*
 * Unlink, bottom up, the tables under @pt (whose span starts at @base) that
 * hold no valid entry and overlap [@lo, @hi). It starts again from the top
 * after -ENOSPC: what it unlinked is no longer in the shadow.
 */
static int vdxg_pt_prune(struct vdxg_pt_walk *w, struct vdxg_pt *pt, u64 base,
			 u64 lo, u64 hi)
{
	u64 span = vdxg_pt_span(pt->level);
	u32 idx = (lo - base) / span, last = (hi - 1 - base) / span;
	int ret;

	for (; idx <= last; idx++) {
		struct vdxg_pt *child = pt->child[idx];
		u64 cbase = base + idx * span;

		if (!child)
			continue;
		if (child->level) {
			ret = vdxg_pt_prune(w, child, cbase, max(lo, cbase),
					    min(hi, cbase + span));
			if (ret)
				return ret;
		}
		if (!child->nvalid) {
			ret = vdxg_pt_unlink(w, pt, idx);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int vdxg_pt_check_range(u64 va, u64 size)
{
	if (!size || (va | size) & (VDXG_PT_PAGE - 1) ||
	    va >= VDXG_PT_VA_END || size > VDXG_PT_VA_END - va)
		return -EINVAL;
	return 0;
}

static int vdxg_pt_check_pages(const struct vdxg_pt_src *src, u64 size)
{
	u64 first = src->addr / VDXG_PT_PAGE, n = size / VDXG_PT_PAGE, i;

	if (!src->pages || src->npages < n || first > src->npages - n)
		return -EINVAL;
	for (i = first; i < first + n; i++)
		if ((u64)src->pages[i] & ~VDXG_PTE_ADDR_MASK)
			return -EINVAL;
	return 0;
}

static int vdxg_pt_check_src(const struct vdxg_pt_src *src, u64 size)
{
	switch (src->type) {
	case VDXG_PT_SRC_VRAM:
		if (src->addr & (VDXG_PT_PAGE - 1) ||
		    src->addr >= VDXG_PT_VA_END ||
		    size > VDXG_PT_VA_END - src->addr)
			return -EINVAL;
		return 0;
	case VDXG_PT_SRC_PAGES:
		if (src->addr & (VDXG_PT_PAGE - 1))
			return -EINVAL;
		return vdxg_pt_check_pages(src, size);
	case VDXG_PT_SRC_NULL:
	case VDXG_PT_SRC_INVALID:
		return 0;
	default:
		return -EINVAL;
	}
}

/* First call: check and record the range; later ones: the same range. */
static int vdxg_pt_start(struct vdxg_pt_walk *w, u64 va, u64 size)
{
	struct vdxg_pt_update *upd = w->upd;
	int ret;

	if (!w->vm->root)
		return -EINVAL;
	if (upd->stage != VDXG_PT_STAGE_START)
		return upd->va == va && upd->size == size ? 0 : -EINVAL;

	ret = vdxg_pt_check_range(va, size);
	if (!ret && w->src)
		ret = vdxg_pt_check_src(w->src, size);
	if (ret)
		return ret;
	upd->va = va;
	upd->size = size;
	upd->cur = va;
	upd->stage = VDXG_PT_STAGE_ENTRIES;
	return 0;
}

static int vdxg_pt_run(struct vdxg_pt_walk *w,
		       int (*step)(struct vdxg_pt_walk *w))
{
	struct vdxg_pt_update *upd = w->upd;
	int ret;

	while (upd->stage == VDXG_PT_STAGE_ENTRIES) {
		if (upd->cur >= w->end) {
			upd->stage = VDXG_PT_STAGE_PRUNE;
			break;
		}
		ret = step(w);
		if (ret)
			return ret;
	}
	if (upd->stage == VDXG_PT_STAGE_PRUNE) {
		ret = vdxg_pt_prune(w, w->vm->root, 0, upd->va, w->end);
		if (ret)
			return ret;
		upd->stage = VDXG_PT_STAGE_FLUSH;
	}
	if (upd->stage == VDXG_PT_STAGE_FLUSH) {
		ret = vdxg_pg_flush_vm_tlb(w->pb, w->vm->asid, true, upd->va,
					   upd->size, w->stats);
		if (ret)
			return ret;
		upd->stage = VDXG_PT_STAGE_DONE;
	}
	return 0;
}

/**
 * vdxg_pt_map - emit the operations mapping a range
 * @vm: the address space
 * @pb: the builder
 * @va: virtual address, 4 KiB aligned, below 2^48
 * @size: bytes, 4 KiB aligned, not past 2^48
 * @src: what the range maps
 * @flags: %VDXG_PTE_READ_ONLY, %VDXG_PTE_NO_EXEC, %VDXG_PTE_COHERENT
 * @upd: the cursor, from vdxg_pt_update_init() before the first call
 * @stats: counters to update, or NULL
 *
 * Replaces whatever the range mapped. Level-1 entries become 2 MiB leaves
 * where the range and @src allow it, and for null pages level-3 and -2
 * entries null leaves. Ends with a FLUSH_VM_TLB of the range.
 * Tables it replaced go on @upd's deferred list. A %VDXG_PT_SRC_INVALID
 * source writes invalid entries (@flags unused) that still count as used:
 * the tables stay, and a 2 MiB leaf it covers whole goes invalid in place,
 * so that the range can be mapped again without allocating, and making it
 * invalid allocates no table either (a leaf it cuts is split). It must not
 * meet a null leaf above level 1: it is for an object's mappings.
 *
 * Return: 0 when all of it is emitted; -ENOSPC when @pb is full: submit it
 * and call again with the same arguments and a new buffer; -EINVAL for bad
 * arguments or a buffer too small to progress; -ENOMEM or the allocator's
 * error, with what was emitted still to be submitted (unmap the range to
 * undo it).
 */
int vdxg_pt_map(struct vdxg_pt_vm *vm, struct vdxg_pagebuf *pb, u64 va,
		u64 size, const struct vdxg_pt_src *src, u64 flags,
		struct vdxg_pt_update *upd, struct vdxg_pg_stats *stats)
{
	struct vdxg_pt_walk w = {
		.vm = vm, .pb = pb, .upd = upd, .stats = stats, .src = src,
		.pte = VDXG_PTE_VALID | flags, .end = va + size,
	};
	int ret;

	if (!src || flags & ~VDXG_PT_USER_FLAGS)
		return -EINVAL;
	ret = vdxg_pt_start(&w, va, size);
	if (ret)
		return ret;

	if (src->type == VDXG_PT_SRC_VRAM)
		w.pte |= VDXG_PTE_SEGMENT(VDXG_PTE_SEGMENT_VRAM);
	else if (src->type == VDXG_PT_SRC_NULL)
		w.pte |= VDXG_PTE_ZERO;
	else if (src->type == VDXG_PT_SRC_INVALID)
		w.pte = 0;
	return vdxg_pt_run(&w, vdxg_pt_map_step);
}

/**
 * vdxg_pt_unmap - emit the operations unmapping a range
 * @vm: the address space
 * @pb: the builder
 * @va: virtual address, 4 KiB aligned, below 2^48
 * @size: bytes, 4 KiB aligned, not past 2^48
 * @upd: the cursor, from vdxg_pt_update_init() before the first call
 * @stats: counters to update, or NULL
 *
 * Invalidates the entries of the range, splitting leaves it cuts,
 * unlinks the tables left empty (onto @upd's deferred list) and ends with
 * a FLUSH_VM_TLB of the range.
 *
 * Return: as vdxg_pt_map().
 */
int vdxg_pt_unmap(struct vdxg_pt_vm *vm, struct vdxg_pagebuf *pb, u64 va,
		  u64 size, struct vdxg_pt_update *upd,
		  struct vdxg_pg_stats *stats)
{
	struct vdxg_pt_walk w = {
		.vm = vm, .pb = pb, .upd = upd, .stats = stats,
		.end = va + size,
	};
	int ret;

	ret = vdxg_pt_start(&w, va, size);
	if (ret)
		return ret;
	return vdxg_pt_run(&w, vdxg_pt_unmap_step);
}

/* Paging buffers filled greedily by the builder's rules. */
struct vdxg_pt_sim {
	u32 size;
	u32 used;
	u32 buffers;
};

static u32 vdxg_pt_sim_room(const struct vdxg_pt_sim *s)
{
	return min_t(u32, s->size - s->used, VDXG_PG_MAX_LEN);
}

/* An operation emitted whole: in a new buffer if it does not fit. */
static void vdxg_pt_sim_op(struct vdxg_pt_sim *s, u32 len)
{
	if (vdxg_pt_sim_room(s) < len) {
		s->buffers++;
		s->used = 0;
	}
	s->used += len;
}

/* An entry list of @n entries, split over buffers. */
static void vdxg_pt_sim_list(struct vdxg_pt_sim *s, u32 n)
{
	while (n) {
		u32 room = vdxg_pt_sim_room(s), k;

		if (room < VDXG_PG_UPT_LEN(1)) {
			s->buffers++;
			s->used = 0;
			continue;
		}
		k = min(n, (room - VDXG_PG_UPT_DW_ENTRIES) / 2);
		s->used += VDXG_PG_UPT_LEN(k);
		n -= k;
	}
}

/**
 * vdxg_pt_join_range - what to write when a new mapping joins neighbours
 * @start: the joined mapping's first address
 * @end: its end
 * @lo: in: the new mapping's first address, in [@start, @end); out: the
 *	first address to write
 * @hi: in: the new mapping's end; out: the end of the range to write
 *
 * The new mapping's range, grown to each 2 MiB window at one of its ends
 * that the joined mapping covers whole: written again from one source,
 * such a window becomes a 2 MiB page where the source allows, as a
 * window split by a partial unmap was before (vdxg_pt_map() promotes).
 */
void vdxg_pt_join_range(u64 start, u64 end, u64 *lo, u64 *hi)
{
	u64 w = ALIGN_DOWN(*lo, SZ_2M);

	if (w >= start && w + SZ_2M <= end)
		*lo = w;
	w = ALIGN(*hi, SZ_2M);
	if (w - SZ_2M >= start && w <= end)
		*hi = w;
}

/**
 * vdxg_pt_bind_buffers - predict the paging buffers of a bind
 * @va: virtual address, 4 KiB aligned (2 MiB for 2 MiB pages)
 * @size: bytes, likewise aligned
 * @page_size: %SZ_4K: system pages, one listed entry each (no 2 MiB of
 *	them contiguous and aligned); %SZ_2M: contiguous VRAM, 2 MiB aligned
 * @buf_bytes: paging buffer size, at least %VDXG_PT_MIN_BUF_BYTES
 *
 * For a range where no table exists yet under the root, the number of
 * buffers vdxg_pt_map() fills (calls until it returns 0), from the same
 * rules: one step a table (18 dwords), GENERATE runs of 2 MiB leaves
 * (10 dwords a level-1 table) or entry lists (6 dwords an operation, 2 an
 * entry), and the flush (7).
 *
 * Return: the number of buffers, or -EINVAL.
 */
int vdxg_pt_bind_buffers(u64 va, u64 size, u64 page_size, u32 buf_bytes)
{
	struct vdxg_pt_sim s = { .size = buf_bytes / 4, .buffers = 1 };
	u64 end = va + size, cur, l2 = U64_MAX, l1 = U64_MAX, next;

	if (vdxg_pt_check_range(va, size) || buf_bytes < VDXG_PT_MIN_BUF_BYTES ||
	    (page_size != SZ_4K && page_size != SZ_2M) ||
	    (va | size) & (page_size - 1))
		return -EINVAL;

	for (cur = va; cur < end; cur = next) {
		if (cur >> VDXG_VM_LEVEL_SHIFT(3) != l2) {
			l2 = cur >> VDXG_VM_LEVEL_SHIFT(3);
			vdxg_pt_sim_op(&s, VDXG_PT_NEW_DW);
		}
		if (cur >> VDXG_VM_LEVEL_SHIFT(2) != l1) {
			l1 = cur >> VDXG_VM_LEVEL_SHIFT(2);
			vdxg_pt_sim_op(&s, VDXG_PT_NEW_DW);
		}
		if (page_size == SZ_2M) {
			next = min(end, (l1 + 1) << VDXG_VM_LEVEL_SHIFT(2));
			vdxg_pt_sim_op(&s, VDXG_PG_UPT_GEN_LEN);
		} else {
			next = min(end, ALIGN_DOWN(cur, SZ_2M) + SZ_2M);
			vdxg_pt_sim_op(&s, VDXG_PT_NEW_DW);
			vdxg_pt_sim_list(&s, (next - cur) / VDXG_PT_PAGE);
		}
	}
	vdxg_pt_sim_op(&s, VDXG_PG_FLUSH_VM_TLB_LEN);
	return s.buffers;
}
