/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */
#ifndef _VDXG_PT_H_
#define _VDXG_PT_H_

#include <linux/bitops.h>
#include <linux/list.h>
#include <linux/types.h>

#include "vdxg_hw.h"

struct vdxg_pagebuf;
struct vdxg_pg_stats;

/**
 * struct vdxg_pt_ops - where page-table pages come from
 * @alloc: store the VRAM offset of a free 4 KiB aligned page in @offset;
 *	return 0 or a negative error. Its content does not matter.
 * @free: give back a page @alloc returned
 */
struct vdxg_pt_ops {
	int (*alloc)(void *priv, u64 *offset);
	void (*free)(void *priv, u64 offset);
};

/**
 * struct vdxg_pt - the CPU's shadow of one page table
 * @link: on a deferred-free list, once unlinked
 * @offset: VRAM offset of the table
 * @level: 3 (the root) to 0
 * @nvalid: valid entries
 * @valid: which entries are valid
 * @child: levels 3 to 1: the next level's table of each directory entry
 * @large: levels 3 to 1: the entry of each leaf, 0 for the others; at
 *	level 1 2 MiB pages (%VDXG_PTE_LARGE alone for one made invalid), at
 *	levels 3 and 2 null leaves
 */
struct vdxg_pt {
	struct list_head link;
	u64 offset;
	u8 level;
	u16 nvalid;
	DECLARE_BITMAP(valid, 512);
	struct vdxg_pt **child;
	u64 *large;
};

/**
 * struct vdxg_pt_vm - the page tables of one GPU virtual address space
 * @ops: page allocator
 * @priv: argument of @ops
 * @root: the level-3 table
 * @asid: address space id (index in the AS table)
 * @tables: tables in the tree, root included
 */
struct vdxg_pt_vm {
	const struct vdxg_pt_ops *ops;
	void *priv;
	struct vdxg_pt *root;
	u32 asid;
	u32 tables;
};

/**
 * enum vdxg_pt_src_type - what a mapping points at
 * @VDXG_PT_SRC_VRAM: contiguous VRAM from a base offset
 * @VDXG_PT_SRC_PAGES: system pages (bus addresses), one an entry
 * @VDXG_PT_SRC_NULL: null pages (ZERO entries): reads 0, writes dropped
 * @VDXG_PT_SRC_INVALID: invalid 4 KiB entries (every access faults) that
 *	keep their tables: a mapping whose pages are gone for a while (an
 *	object swapped out), to be mapped again in place without allocating
 */
enum vdxg_pt_src_type {
	VDXG_PT_SRC_VRAM,
	VDXG_PT_SRC_PAGES,
	VDXG_PT_SRC_NULL,
	VDXG_PT_SRC_INVALID,
};

/**
 * struct vdxg_pt_src - the source of a mapping
 * @type: see &enum vdxg_pt_src_type
 * @addr: VRAM: offset of the first page; PAGES: byte offset into @pages
 *	(4 KiB aligned)
 * @pages: PAGES: the page addresses, 4 KiB aligned
 * @npages: PAGES: entries in @pages
 */
struct vdxg_pt_src {
	enum vdxg_pt_src_type type;
	u64 addr;
	const dma_addr_t *pages;
	u64 npages;
};

/**
 * struct vdxg_pt_update - the cursor of one map or unmap
 * @va: start of the range, fixed by the first call
 * @size: bytes in the range
 * @cur: next virtual address to process
 * @stage: internal: entries, pruning, the flush, done
 * @deferred: tables no longer linked; free them with
 *	vdxg_pt_free_deferred() once the paging job's fence has signalled
 *
 * Zero it with vdxg_pt_update_init() before the first call; pass it
 * unchanged to every further call of the same operation.
 */
struct vdxg_pt_update {
	u64 va;
	u64 size;
	u64 cur;
	u32 stage;
	struct list_head deferred;
};

/* A table's creation, one step: its 512 entries, then the entry linking it. */
#define VDXG_PT_NEW_DW		(VDXG_PG_UPT_GEN_LEN + VDXG_PG_UPT_LEN(1))

/* Minimum paging-buffer size in bytes: a table's creation is one step. */
#define VDXG_PT_MIN_BUF_BYTES	(4 * VDXG_PT_NEW_DW)

int vdxg_pt_vm_init(struct vdxg_pt_vm *vm, u32 asid,
		    const struct vdxg_pt_ops *ops, void *priv);
int vdxg_pt_vm_activate(struct vdxg_pt_vm *vm, struct vdxg_pagebuf *pb,
			u64 *progress, struct vdxg_pg_stats *stats);
void vdxg_pt_vm_fini(struct vdxg_pt_vm *vm);

void vdxg_pt_update_init(struct vdxg_pt_update *upd);
int vdxg_pt_map(struct vdxg_pt_vm *vm, struct vdxg_pagebuf *pb, u64 va,
		u64 size, const struct vdxg_pt_src *src, u64 flags,
		struct vdxg_pt_update *upd, struct vdxg_pg_stats *stats);
int vdxg_pt_unmap(struct vdxg_pt_vm *vm, struct vdxg_pagebuf *pb, u64 va,
		  u64 size, struct vdxg_pt_update *upd,
		  struct vdxg_pg_stats *stats);
void vdxg_pt_free_deferred(struct vdxg_pt_vm *vm, struct list_head *list);

int vdxg_pt_bind_buffers(u64 va, u64 size, u64 page_size, u32 buf_bytes);
void vdxg_pt_join_range(u64 start, u64 end, u64 *lo, u64 *hi);

#endif
