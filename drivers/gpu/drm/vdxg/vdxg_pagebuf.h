/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */
#ifndef _VDXG_PAGEBUF_H_
#define _VDXG_PAGEBUF_H_

#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/types.h>

/**
 * struct vdxg_pagebuf - a paging buffer being filled
 * @cmd: CPU address of the buffer
 * @size: capacity in dwords
 * @used: dwords emitted
 * @keyed: an operation may name a VM by key (%VDXG_PG_AS_KEY)
 */
struct vdxg_pagebuf {
	u32 *cmd;
	u32 size;
	u32 used;
	bool keyed;
};

/*
 * An address-space operand with this bit names a VM by its key (bits
 * 30:0), not an address space: the driver gives VMs address spaces only
 * while they have work on an engine, so which one a paging buffer must
 * name is known only when it is written to the device. vdxg_pg_next_as()
 * finds the operands to replace then. The device never sees the bit.
 */
#define VDXG_PG_AS_KEY		BIT(31)

/**
 * struct vdxg_pg_loc - one side of a transfer
 * @pages: NULL for a GPU address, else the system page list (MDL)
 * @npages: entries in @pages
 * @addr: GPU address, or byte offset into @pages
 */
struct vdxg_pg_loc {
	const dma_addr_t *pages;
	u64 npages;
	u64 addr;
};

/**
 * struct vdxg_pg_stats - operations and bytes emitted, by opcode
 * @ops: operations emitted
 * @bytes: bytes the operations cover
 */
struct vdxg_pg_stats {
	u64 ops[32];
	u64 bytes[32];
};

/**
 * vdxg_pagebuf_room - dwords one more operation may take
 * @pb: the builder
 *
 * Return: the room left, capped at the longest operation.
 */
static inline u32 vdxg_pagebuf_room(const struct vdxg_pagebuf *pb)
{
	return min_t(u32, pb->size - pb->used, 0xffff);	/* VDXG_PG_MAX_LEN */
}

/**
 * vdxg_pagebuf_full - the error for an operation that does not fit
 * @pb: the builder
 *
 * Return: -ENOSPC when the buffer holds something (flush it and call
 * again), -EINVAL when it is empty: the buffer is too small to progress.
 */
static inline int vdxg_pagebuf_full(const struct vdxg_pagebuf *pb)
{
	return pb->used ? -ENOSPC : -EINVAL;
}

void vdxg_pagebuf_init(struct vdxg_pagebuf *pb, u32 *cmd, u32 size_bytes);

int vdxg_pg_transfer(struct vdxg_pagebuf *pb, const struct vdxg_pg_loc *src,
		     const struct vdxg_pg_loc *dst, u64 size, u64 *progress,
		     struct vdxg_pg_stats *stats);
int vdxg_pg_fill(struct vdxg_pagebuf *pb, u64 addr, u64 size, u32 pattern,
		 u64 *progress, struct vdxg_pg_stats *stats);
int vdxg_pg_discard(struct vdxg_pagebuf *pb, u64 addr, u64 size,
		    struct vdxg_pg_stats *stats);
int vdxg_pg_map_aperture(struct vdxg_pagebuf *pb, u32 first,
			 const dma_addr_t *pages, u32 count, u64 *progress,
			 struct vdxg_pg_stats *stats);
int vdxg_pg_unmap_aperture(struct vdxg_pagebuf *pb, u32 first, u32 count,
			   struct vdxg_pg_stats *stats);
int vdxg_pg_flush_tlb(struct vdxg_pagebuf *pb, struct vdxg_pg_stats *stats);
int vdxg_pg_fence(struct vdxg_pagebuf *pb, u64 addr, u64 value,
		  struct vdxg_pg_stats *stats);

int vdxg_pg_update_pt(struct vdxg_pagebuf *pb, u64 table, u32 first,
		      const u64 *entries, u32 count, u64 *progress,
		      struct vdxg_pg_stats *stats);
int vdxg_pg_update_pt_pages(struct vdxg_pagebuf *pb, u64 table, u32 first,
			    const dma_addr_t *pages, u64 flags, u32 count,
			    u64 *progress, struct vdxg_pg_stats *stats);
int vdxg_pg_update_pt_gen(struct vdxg_pagebuf *pb, u64 table, u32 first,
			  u32 count, u64 base, u64 stride,
			  struct vdxg_pg_stats *stats);
int vdxg_pg_copy_ptes(struct vdxg_pagebuf *pb, u64 src, u32 src_idx, u64 dst,
		      u32 dst_idx, u32 count, struct vdxg_pg_stats *stats);
int vdxg_pg_flush_vm_tlb(struct vdxg_pagebuf *pb, u32 as, bool range, u64 va,
			 u64 size, struct vdxg_pg_stats *stats);
int vdxg_pg_transfer_virtual(struct vdxg_pagebuf *pb, u32 as, u32 flags,
			     u64 src, u64 dst, u64 size, u64 *progress,
			     struct vdxg_pg_stats *stats);
int vdxg_pg_fill_virtual(struct vdxg_pagebuf *pb, u32 as, u64 va, u64 size,
			 u32 pattern, u64 *progress,
			 struct vdxg_pg_stats *stats);
int vdxg_pg_update_context_alloc(struct vdxg_pagebuf *pb, u32 as, u64 entry,
				 struct vdxg_pg_stats *stats);
int vdxg_pg_init_context_resource(struct vdxg_pagebuf *pb, u64 offset,
				  struct vdxg_pg_stats *stats);
int vdxg_pg_notify_residency(struct vdxg_pagebuf *pb, u32 as, bool evicted,
			     u32 count, struct vdxg_pg_stats *stats);
u32 *vdxg_pg_next_as(u32 *cmd, u32 ndw, u32 *pos);

#endif
