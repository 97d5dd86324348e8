/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */
#ifndef _VDXG_PAGEBUF_H_
#define _VDXG_PAGEBUF_H_

#include <linux/types.h>

/**
 * struct vdxg_pagebuf - a paging buffer being filled
 * @cmd: CPU address of the buffer
 * @size: capacity in dwords
 * @used: dwords emitted
 */
struct vdxg_pagebuf {
	u32 *cmd;
	u32 size;
	u32 used;
};

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
	u64 ops[16];
	u64 bytes[16];
};

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

#endif
