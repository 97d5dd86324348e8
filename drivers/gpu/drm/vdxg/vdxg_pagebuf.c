// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/sizes.h>

#include "vdxg_hw.h"
#include "vdxg_pagebuf.h"

/**
 * DOC: Paging buffers
 *
 * The memory manager moves, clears and maps memory by writing paging
 * operations (docs/hardware.md, "Paging buffers") into paging buffers that
 * the PAGING engine runs, as DxgkDdiBuildPagingBuffer does in WDDM.
 *
 * A paging buffer has a fixed capacity. An operation that does not fit is
 * split: the builder emits as much as fits, records how far it got in the
 * caller's *progress* (WDDM's MultipassOffset: bytes for transfers and
 * fills, pages for aperture mappings) and returns -ENOSPC, the equivalent
 * of STATUS_GRAPHICS_INSUFFICIENT_DMA_BUFFER. The caller submits the full
 * buffer, starts a new one and calls again with the same operation and
 * progress; the builder continues where it stopped.
 *
 * A transfer whose side is a page list (the MDL case) carries the page
 * addresses inline, so the number of pages that fit bounds how many bytes
 * one pass moves. When both sides are page lists the room is split evenly.
 *
 * The GPU virtual memory's operations (UPDATE_PAGE_TABLE and the others
 * from 0x0a on) follow the same rules. Their byte counts are what they
 * write: 8 bytes per page-table entry written or copied (whatever the
 * entry maps), the 16-byte AS entry of UPDATE_CONTEXT_ALLOCATION, the
 * 4 KiB state area of INIT_CONTEXT_RESOURCE, the bytes copied or filled
 * through an address space; a FLUSH_VM_TLB counts its range (0 for the
 * whole space), NOTIFY_RESIDENCY nothing. Operations that carry no list
 * are emitted whole or not at all.
 *
 * This file is pure logic: it writes dwords to memory and touches no
 * hardware, so KUnit tests it under UML.
 */

/* Largest byte count one operation carries: fits the 32-bit size field. */
#define VDXG_PG_MAX_CHUNK	SZ_1G
#define VDXG_PG_PAGE		VDXG_GPU_PAGE_SIZE
#define VDXG_PG_PTE_SIZE	sizeof(u64)	/* a page-table entry */

/**
 * vdxg_pagebuf_init - start an empty paging buffer
 * @pb: the builder
 * @cmd: CPU address of the buffer, 4-byte aligned
 * @size_bytes: capacity in bytes
 */
void vdxg_pagebuf_init(struct vdxg_pagebuf *pb, u32 *cmd, u32 size_bytes)
{
	pb->cmd = cmd;
	pb->size = size_bytes / sizeof(u32);
	pb->used = 0;
	pb->keyed = false;
}

/*
 * An address-space operand: an id below %VDXG_VM_MAX_AS, or a VM's key
 * (%VDXG_PG_AS_KEY), which marks the buffer as one to fix up (also when
 * the operation is refused for another operand: the walk finds nothing).
 */
static bool vdxg_pg_as_ok(struct vdxg_pagebuf *pb, u32 as)
{
	if (!(as & VDXG_PG_AS_KEY))
		return as < VDXG_VM_MAX_AS;
	if (as == VDXG_PG_AS_KEY)
		return false;
	pb->keyed = true;
	return true;
}

static u32 *vdxg_pb_emit(struct vdxg_pagebuf *pb, u32 op, u32 len)
{
	u32 *cs = pb->cmd + pb->used;

	cs[0] = VDXG_PG_HDR(op, len);
	pb->used += len;
	return cs;
}

static void vdxg_put64(u32 *cs, u64 v)
{
	cs[0] = lower_32_bits(v);
	cs[1] = upper_32_bits(v);
}

static void vdxg_pg_count(struct vdxg_pg_stats *stats, u32 op, u64 bytes)
{
	BUILD_BUG_ON(ARRAY_SIZE(stats->ops) < VDXG_PG_NUM_OPS);
	if (!stats)
		return;
	stats->ops[op]++;
	stats->bytes[op] += bytes;
}

static bool vdxg_pg_loc_ok(const struct vdxg_pg_loc *loc, u64 size)
{
	u64 end;

	if (check_add_overflow(loc->addr, size, &end))
		return false;
	if (!loc->pages)
		return true;
	return loc->npages <= U64_MAX / VDXG_PG_PAGE &&
	       end <= loc->npages * VDXG_PG_PAGE;
}

/* Bytes a side can carry from @off with at most @pages inline pages. */
static u64 vdxg_pg_side_limit(const struct vdxg_pg_loc *loc, u64 off,
			      u32 pages)
{
	u64 room = (u64)pages * VDXG_PG_PAGE;
	u64 skip = (loc->addr + off) % VDXG_PG_PAGE;

	if (!loc->pages)
		return U64_MAX;
	return room > skip ? room - skip : 0;
}

static u32 vdxg_pg_side_pages(const struct vdxg_pg_loc *loc, u64 off, u64 len)
{
	u64 start = loc->addr + off;

	if (!loc->pages)
		return 0;
	return DIV_ROUND_UP(start % VDXG_PG_PAGE + len, VDXG_PG_PAGE);
}

static u64 vdxg_pg_side_addr(const struct vdxg_pg_loc *loc, u64 off)
{
	return loc->pages ? (loc->addr + off) % VDXG_PG_PAGE : loc->addr + off;
}

static u32 *vdxg_pg_put_pages(u32 *cs, const struct vdxg_pg_loc *loc,
			      u64 off, u32 n)
{
	u64 first = (loc->addr + off) / VDXG_PG_PAGE;
	u32 i;

	for (i = 0; i < n; i++, cs += 2)
		vdxg_put64(cs, loc->pages[first + i]);
	return cs;
}

/* How many bytes of the transfer fit in the room left, or 0. */
static u64 vdxg_pg_xfer_chunk(const struct vdxg_pagebuf *pb,
			      const struct vdxg_pg_loc *src,
			      const struct vdxg_pg_loc *dst, u64 off, u64 left)
{
	u32 room = vdxg_pagebuf_room(pb), pages, sides;
	u64 chunk = min_t(u64, left, VDXG_PG_MAX_CHUNK);

	if (room < VDXG_PG_XFER_DW_PAGES)
		return 0;

	sides = !!src->pages + !!dst->pages;
	if (!sides)
		return chunk;

	pages = (room - VDXG_PG_XFER_DW_PAGES) / 2 / sides;
	chunk = min(chunk, vdxg_pg_side_limit(src, off, pages));
	chunk = min(chunk, vdxg_pg_side_limit(dst, off, pages));
	return chunk;
}

static void vdxg_pg_emit_xfer(struct vdxg_pagebuf *pb,
			      const struct vdxg_pg_loc *src,
			      const struct vdxg_pg_loc *dst, u64 off, u64 len)
{
	u32 ns = vdxg_pg_side_pages(src, off, len);
	u32 nd = vdxg_pg_side_pages(dst, off, len);
	u32 *cs = vdxg_pb_emit(pb, VDXG_PG_TRANSFER,
			       VDXG_PG_XFER_DW_PAGES + 2 * (ns + nd));

	cs[VDXG_PG_XFER_DW_FLAGS] = (src->pages ? VDXG_PG_XFER_SRC_PAGES : 0) |
				    (dst->pages ? VDXG_PG_XFER_DST_PAGES : 0);
	cs[VDXG_PG_XFER_DW_SIZE] = len;
	vdxg_put64(cs + VDXG_PG_XFER_DW_SRC, vdxg_pg_side_addr(src, off));
	vdxg_put64(cs + VDXG_PG_XFER_DW_DST, vdxg_pg_side_addr(dst, off));
	cs[VDXG_PG_XFER_DW_SRC_NPAGES] = ns;
	cs[VDXG_PG_XFER_DW_DST_NPAGES] = nd;
	cs = vdxg_pg_put_pages(cs + VDXG_PG_XFER_DW_PAGES, src, off, ns);
	vdxg_pg_put_pages(cs, dst, off, nd);
}

/**
 * vdxg_pg_transfer - emit a TRANSFER, or as much of it as fits
 * @pb: the builder
 * @src: source: GPU address or page list
 * @dst: destination: GPU address or page list
 * @size: bytes to move
 * @progress: in/out: bytes already emitted (the multipass offset)
 * @stats: counters to update, or NULL
 *
 * Return: 0 when the whole transfer is emitted, -ENOSPC when the buffer is
 * full and the caller must continue in a new one, -EINVAL for a page list
 * too short for @size or a buffer too small to hold any of it.
 */
int vdxg_pg_transfer(struct vdxg_pagebuf *pb, const struct vdxg_pg_loc *src,
		     const struct vdxg_pg_loc *dst, u64 size, u64 *progress,
		     struct vdxg_pg_stats *stats)
{
	if (!vdxg_pg_loc_ok(src, size) || !vdxg_pg_loc_ok(dst, size) ||
	    *progress > size)
		return -EINVAL;

	while (*progress < size) {
		u64 len = vdxg_pg_xfer_chunk(pb, src, dst, *progress,
					     size - *progress);

		if (!len)
			return vdxg_pagebuf_full(pb);
		vdxg_pg_emit_xfer(pb, src, dst, *progress, len);
		vdxg_pg_count(stats, VDXG_PG_TRANSFER, len);
		*progress += len;
	}
	return 0;
}

/**
 * vdxg_pg_fill - emit FILLs of a 32-bit pattern
 * @pb: the builder
 * @addr: GPU address, 4-byte aligned
 * @size: bytes, a multiple of 4
 * @pattern: the pattern
 * @progress: in/out: bytes already emitted
 * @stats: counters to update, or NULL
 *
 * Return: 0, -ENOSPC to continue in a new buffer, or -EINVAL.
 */
int vdxg_pg_fill(struct vdxg_pagebuf *pb, u64 addr, u64 size, u32 pattern,
		 u64 *progress, struct vdxg_pg_stats *stats)
{
	if ((addr | size) & 3 || *progress > size)
		return -EINVAL;

	while (*progress < size) {
		u64 len = min_t(u64, size - *progress, VDXG_PG_MAX_CHUNK);
		u32 *cs;

		if (vdxg_pagebuf_room(pb) < 5)
			return vdxg_pagebuf_full(pb);
		cs = vdxg_pb_emit(pb, VDXG_PG_FILL, 5);
		cs[1] = pattern;
		cs[2] = len;
		vdxg_put64(cs + 3, addr + *progress);
		vdxg_pg_count(stats, VDXG_PG_FILL, len);
		*progress += len;
	}
	return 0;
}

/**
 * vdxg_pg_discard - emit a DISCARD: the content of a range is not needed
 * @pb: the builder
 * @addr: GPU address
 * @size: bytes, at most 4 GiB - 1
 * @stats: counters to update, or NULL
 *
 * Return: 0, -ENOSPC, or -EINVAL.
 */
int vdxg_pg_discard(struct vdxg_pagebuf *pb, u64 addr, u64 size,
		    struct vdxg_pg_stats *stats)
{
	u32 *cs;

	if (size > U32_MAX)
		return -EINVAL;
	if (vdxg_pagebuf_room(pb) < 4)
		return vdxg_pagebuf_full(pb);

	cs = vdxg_pb_emit(pb, VDXG_PG_DISCARD, 4);
	cs[1] = size;
	vdxg_put64(cs + 2, addr);
	vdxg_pg_count(stats, VDXG_PG_DISCARD, size);
	return 0;
}

/**
 * vdxg_pg_map_aperture - emit MAP_APERTUREs pointing GART entries at pages
 * @pb: the builder
 * @first: first aperture page
 * @pages: system page addresses
 * @count: entries in @pages
 * @progress: in/out: pages already emitted
 * @stats: counters to update, or NULL
 *
 * Return: 0, -ENOSPC to continue in a new buffer, or -EINVAL.
 */
int vdxg_pg_map_aperture(struct vdxg_pagebuf *pb, u32 first,
			 const dma_addr_t *pages, u32 count, u64 *progress,
			 struct vdxg_pg_stats *stats)
{
	u32 n, i, *cs;

	if (*progress > count || first + count < first)
		return -EINVAL;

	while (*progress < count) {
		u32 room = vdxg_pagebuf_room(pb);

		if (room < 5)
			return vdxg_pagebuf_full(pb);
		n = min_t(u64, (room - 3) / 2, count - *progress);
		cs = vdxg_pb_emit(pb, VDXG_PG_MAP_APERTURE, 3 + 2 * n);
		cs[1] = first + *progress;
		cs[2] = n;
		for (i = 0; i < n; i++)
			vdxg_put64(cs + 3 + 2 * i, pages[*progress + i]);
		vdxg_pg_count(stats, VDXG_PG_MAP_APERTURE,
			      (u64)n * VDXG_PG_PAGE);
		*progress += n;
	}
	return 0;
}

/**
 * vdxg_pg_unmap_aperture - emit an UNMAP_APERTURE (entries to dummy page)
 * @pb: the builder
 * @first: first aperture page
 * @count: pages
 * @stats: counters to update, or NULL
 *
 * Return: 0, -ENOSPC, or -EINVAL.
 */
int vdxg_pg_unmap_aperture(struct vdxg_pagebuf *pb, u32 first, u32 count,
			   struct vdxg_pg_stats *stats)
{
	u32 *cs;

	if (first + count < first)
		return -EINVAL;
	if (vdxg_pagebuf_room(pb) < 3)
		return vdxg_pagebuf_full(pb);

	cs = vdxg_pb_emit(pb, VDXG_PG_UNMAP_APERTURE, 3);
	cs[1] = first;
	cs[2] = count;
	vdxg_pg_count(stats, VDXG_PG_UNMAP_APERTURE, (u64)count * VDXG_PG_PAGE);
	return 0;
}

/**
 * vdxg_pg_flush_tlb - emit a FLUSH_TLB
 * @pb: the builder
 * @stats: counters to update, or NULL
 *
 * Return: 0, -ENOSPC, or -EINVAL.
 */
int vdxg_pg_flush_tlb(struct vdxg_pagebuf *pb, struct vdxg_pg_stats *stats)
{
	if (vdxg_pagebuf_room(pb) < 1)
		return vdxg_pagebuf_full(pb);
	vdxg_pb_emit(pb, VDXG_PG_FLUSH_TLB, 1);
	vdxg_pg_count(stats, VDXG_PG_FLUSH_TLB, 0);
	return 0;
}

/**
 * vdxg_pg_fence - emit a FENCE writing a 64-bit value
 * @pb: the builder
 * @addr: GPU address, 8-byte aligned
 * @value: the value
 * @stats: counters to update, or NULL
 *
 * Return: 0, -ENOSPC, or -EINVAL.
 */
int vdxg_pg_fence(struct vdxg_pagebuf *pb, u64 addr, u64 value,
		  struct vdxg_pg_stats *stats)
{
	u32 *cs;

	if (addr & 7)
		return -EINVAL;
	if (vdxg_pagebuf_room(pb) < 5)
		return vdxg_pagebuf_full(pb);
	cs = vdxg_pb_emit(pb, VDXG_PG_FENCE, 5);
	vdxg_put64(cs + 1, addr);
	vdxg_put64(cs + 3, value);
	vdxg_pg_count(stats, VDXG_PG_FENCE, 0);
	return 0;
}

/* Entries of UPDATE_PAGE_TABLE's list form, wherever they come from. */
struct vdxg_pg_pte_src {
	const u64 *entries;
	const dma_addr_t *pages;
	u64 flags;
};

static u64 vdxg_pg_pte(const struct vdxg_pg_pte_src *src, u64 i)
{
	return src->entries ? src->entries[i] : (u64)src->pages[i] | src->flags;
}

static bool vdxg_pg_pt_ok(u64 table, u32 first, u32 count)
{
	return !(table & (VDXG_PG_PAGE - 1)) &&
	       first <= VDXG_VM_TABLE_ENTRIES &&
	       count <= VDXG_VM_TABLE_ENTRIES - first;
}

static int vdxg_pg_upt_list(struct vdxg_pagebuf *pb, u64 table, u32 first,
			    const struct vdxg_pg_pte_src *src, u32 count,
			    u64 *progress, struct vdxg_pg_stats *stats)
{
	if (!vdxg_pg_pt_ok(table, first, count) || *progress > count)
		return -EINVAL;

	while (*progress < count) {
		u32 room = vdxg_pagebuf_room(pb), n, i, *cs;

		if (room < VDXG_PG_UPT_LEN(1))
			return vdxg_pagebuf_full(pb);
		n = min_t(u64, (room - VDXG_PG_UPT_DW_ENTRIES) / 2,
			  count - *progress);
		cs = vdxg_pb_emit(pb, VDXG_PG_UPDATE_PAGE_TABLE,
				  VDXG_PG_UPT_LEN(n));
		cs[VDXG_PG_UPT_DW_FLAGS] = 0;
		vdxg_put64(cs + VDXG_PG_UPT_DW_TABLE, table);
		cs[VDXG_PG_UPT_DW_FIRST] = first + *progress;
		cs[VDXG_PG_UPT_DW_COUNT] = n;
		for (i = 0; i < n; i++)
			vdxg_put64(cs + VDXG_PG_UPT_DW_ENTRIES + 2 * i,
				   vdxg_pg_pte(src, *progress + i));
		vdxg_pg_count(stats, VDXG_PG_UPDATE_PAGE_TABLE,
			      (u64)n * VDXG_PG_PTE_SIZE);
		*progress += n;
	}
	return 0;
}

/**
 * vdxg_pg_update_pt - emit UPDATE_PAGE_TABLEs writing a list of entries
 * @pb: the builder
 * @table: VRAM offset of the table, 4 KiB aligned
 * @first: index of the first entry to write
 * @entries: the entries
 * @count: entries in @entries; @first + @count at most 512
 * @progress: in/out: entries already emitted
 * @stats: counters to update, or NULL
 *
 * Return: 0, -ENOSPC to continue in a new buffer, or -EINVAL.
 */
int vdxg_pg_update_pt(struct vdxg_pagebuf *pb, u64 table, u32 first,
		      const u64 *entries, u32 count, u64 *progress,
		      struct vdxg_pg_stats *stats)
{
	struct vdxg_pg_pte_src src = { .entries = entries };

	return vdxg_pg_upt_list(pb, table, first, &src, count, progress,
				stats);
}

/**
 * vdxg_pg_update_pt_pages - emit UPDATE_PAGE_TABLEs pointing at system pages
 * @pb: the builder
 * @table: VRAM offset of the table, 4 KiB aligned
 * @first: index of the first entry to write
 * @pages: system page addresses (the MDL), one an entry
 * @flags: bits ORed into each page address (VDXG_PTE_*)
 * @count: entries to write; @first + @count at most 512
 * @progress: in/out: entries already emitted
 * @stats: counters to update, or NULL
 *
 * Entry i is ``pages[i] | flags``.
 *
 * Return: 0, -ENOSPC to continue in a new buffer, or -EINVAL.
 */
int vdxg_pg_update_pt_pages(struct vdxg_pagebuf *pb, u64 table, u32 first,
			    const dma_addr_t *pages, u64 flags, u32 count,
			    u64 *progress, struct vdxg_pg_stats *stats)
{
	struct vdxg_pg_pte_src src = { .pages = pages, .flags = flags };

	return vdxg_pg_upt_list(pb, table, first, &src, count, progress,
				stats);
}

/**
 * vdxg_pg_update_pt_gen - emit an UPDATE_PAGE_TABLE in GENERATE form
 * @pb: the builder
 * @table: VRAM offset of the table, 4 KiB aligned
 * @first: index of the first entry to write
 * @count: entries to write; @first + @count at most 512
 * @base: entry @first
 * @stride: what each further entry adds, a multiple of 4 KiB
 * @stats: counters to update, or NULL
 *
 * Entry @first + i is ``base + i * stride``: a contiguous range, or with
 * a stride of 0 the same entry @count times (invalid or null entries).
 *
 * Return: 0, -ENOSPC, or -EINVAL.
 */
int vdxg_pg_update_pt_gen(struct vdxg_pagebuf *pb, u64 table, u32 first,
			  u32 count, u64 base, u64 stride,
			  struct vdxg_pg_stats *stats)
{
	u32 *cs;

	if (!vdxg_pg_pt_ok(table, first, count) || stride & (VDXG_PG_PAGE - 1))
		return -EINVAL;
	if (vdxg_pagebuf_room(pb) < VDXG_PG_UPT_GEN_LEN)
		return vdxg_pagebuf_full(pb);

	cs = vdxg_pb_emit(pb, VDXG_PG_UPDATE_PAGE_TABLE, VDXG_PG_UPT_GEN_LEN);
	cs[VDXG_PG_UPT_DW_FLAGS] = VDXG_PG_UPT_GENERATE;
	vdxg_put64(cs + VDXG_PG_UPT_DW_TABLE, table);
	cs[VDXG_PG_UPT_DW_FIRST] = first;
	cs[VDXG_PG_UPT_DW_COUNT] = count;
	vdxg_put64(cs + VDXG_PG_UPT_DW_BASE, base);
	vdxg_put64(cs + VDXG_PG_UPT_DW_STRIDE, stride);
	vdxg_pg_count(stats, VDXG_PG_UPDATE_PAGE_TABLE,
		      (u64)count * VDXG_PG_PTE_SIZE);
	return 0;
}

/**
 * vdxg_pg_copy_ptes - emit a COPY_PAGE_TABLE_ENTRIES
 * @pb: the builder
 * @src: VRAM offset of the source table, 4 KiB aligned
 * @src_idx: first source entry
 * @dst: VRAM offset of the destination table, 4 KiB aligned
 * @dst_idx: first destination entry
 * @count: entries; each range within its table's 512
 * @stats: counters to update, or NULL
 *
 * Return: 0, -ENOSPC, or -EINVAL.
 */
int vdxg_pg_copy_ptes(struct vdxg_pagebuf *pb, u64 src, u32 src_idx, u64 dst,
		      u32 dst_idx, u32 count, struct vdxg_pg_stats *stats)
{
	u32 *cs;

	if (!vdxg_pg_pt_ok(src, src_idx, count) ||
	    !vdxg_pg_pt_ok(dst, dst_idx, count))
		return -EINVAL;
	if (vdxg_pagebuf_room(pb) < VDXG_PG_COPY_PTES_LEN)
		return vdxg_pagebuf_full(pb);

	cs = vdxg_pb_emit(pb, VDXG_PG_COPY_PTES, VDXG_PG_COPY_PTES_LEN);
	vdxg_put64(cs + 1, src);
	cs[3] = src_idx;
	vdxg_put64(cs + 4, dst);
	cs[6] = dst_idx;
	cs[7] = count;
	vdxg_pg_count(stats, VDXG_PG_COPY_PTES, (u64)count * VDXG_PG_PTE_SIZE);
	return 0;
}

/**
 * vdxg_pg_flush_vm_tlb - emit a FLUSH_VM_TLB
 * @pb: the builder
 * @as: address space id
 * @range: flush only [@va, @va + @size), else the whole space
 * @va: first virtual address of the range
 * @size: bytes in the range
 * @stats: counters to update, or NULL
 *
 * Return: 0, -ENOSPC, or -EINVAL.
 */
int vdxg_pg_flush_vm_tlb(struct vdxg_pagebuf *pb, u32 as, bool range, u64 va,
			 u64 size, struct vdxg_pg_stats *stats)
{
	u32 *cs;

	if (!vdxg_pg_as_ok(pb, as) || (!range && (va || size)))
		return -EINVAL;
	if (vdxg_pagebuf_room(pb) < VDXG_PG_FLUSH_VM_TLB_LEN)
		return vdxg_pagebuf_full(pb);

	cs = vdxg_pb_emit(pb, VDXG_PG_FLUSH_VM_TLB, VDXG_PG_FLUSH_VM_TLB_LEN);
	cs[1] = as;
	cs[2] = range ? VDXG_PG_FLUSH_RANGE : 0;
	vdxg_put64(cs + 3, va);
	vdxg_put64(cs + 5, size);
	vdxg_pg_count(stats, VDXG_PG_FLUSH_VM_TLB, size);
	return 0;
}

/**
 * vdxg_pg_transfer_virtual - emit TRANSFER_VIRTUALs
 * @pb: the builder
 * @as: address space id
 * @flags: %VDXG_PG_XV_SRC_PHYS, %VDXG_PG_XV_DST_PHYS: that side is a GPU
 *	address, not a virtual address of @as
 * @src: source address
 * @dst: destination address
 * @size: bytes to copy
 * @progress: in/out: bytes already emitted
 * @stats: counters to update, or NULL
 *
 * Return: 0, -ENOSPC to continue in a new buffer, or -EINVAL.
 */
int vdxg_pg_transfer_virtual(struct vdxg_pagebuf *pb, u32 as, u32 flags,
			     u64 src, u64 dst, u64 size, u64 *progress,
			     struct vdxg_pg_stats *stats)
{
	u64 end;

	if (!vdxg_pg_as_ok(pb, as) || *progress > size ||
	    flags & ~(VDXG_PG_XV_SRC_PHYS | VDXG_PG_XV_DST_PHYS) ||
	    check_add_overflow(src, size, &end) ||
	    check_add_overflow(dst, size, &end))
		return -EINVAL;

	while (*progress < size) {
		u64 len = min_t(u64, size - *progress, VDXG_PG_MAX_CHUNK);
		u32 *cs;

		if (vdxg_pagebuf_room(pb) < VDXG_PG_XV_LEN)
			return vdxg_pagebuf_full(pb);
		cs = vdxg_pb_emit(pb, VDXG_PG_TRANSFER_VIRTUAL, VDXG_PG_XV_LEN);
		cs[1] = as;
		cs[2] = flags;
		cs[3] = len;
		vdxg_put64(cs + 4, src + *progress);
		vdxg_put64(cs + 6, dst + *progress);
		vdxg_pg_count(stats, VDXG_PG_TRANSFER_VIRTUAL, len);
		*progress += len;
	}
	return 0;
}

/**
 * vdxg_pg_fill_virtual - emit FILL_VIRTUALs of a 32-bit pattern
 * @pb: the builder
 * @as: address space id
 * @va: virtual address, 4-byte aligned
 * @size: bytes, a multiple of 4
 * @pattern: the pattern
 * @progress: in/out: bytes already emitted
 * @stats: counters to update, or NULL
 *
 * Return: 0, -ENOSPC to continue in a new buffer, or -EINVAL.
 */
int vdxg_pg_fill_virtual(struct vdxg_pagebuf *pb, u32 as, u64 va, u64 size,
			 u32 pattern, u64 *progress,
			 struct vdxg_pg_stats *stats)
{
	u64 end;

	if (!vdxg_pg_as_ok(pb, as) || (va | size) & 3 || *progress > size ||
	    check_add_overflow(va, size, &end))
		return -EINVAL;

	while (*progress < size) {
		u64 len = min_t(u64, size - *progress, VDXG_PG_MAX_CHUNK);
		u32 *cs;

		if (vdxg_pagebuf_room(pb) < VDXG_PG_FILL_V_LEN)
			return vdxg_pagebuf_full(pb);
		cs = vdxg_pb_emit(pb, VDXG_PG_FILL_VIRTUAL, VDXG_PG_FILL_V_LEN);
		cs[1] = as;
		cs[2] = pattern;
		cs[3] = len;
		vdxg_put64(cs + 4, va + *progress);
		vdxg_pg_count(stats, VDXG_PG_FILL_VIRTUAL, len);
		*progress += len;
	}
	return 0;
}

/**
 * vdxg_pg_update_context_alloc - emit an UPDATE_CONTEXT_ALLOCATION
 * @pb: the builder
 * @as: address space id
 * @entry: qword 0 of its AS-table entry: the root table's VRAM offset |
 *	%VDXG_VM_AS_VALID, or 0 to make the space unusable
 * @stats: counters to update, or NULL
 *
 * The device also flushes the space's translations.
 *
 * Return: 0, -ENOSPC, or -EINVAL.
 */
int vdxg_pg_update_context_alloc(struct vdxg_pagebuf *pb, u32 as, u64 entry,
				 struct vdxg_pg_stats *stats)
{
	u32 *cs;

	if (!vdxg_pg_as_ok(pb, as) ||
	    entry & ~(VDXG_VM_AS_ADDR_MASK | VDXG_VM_AS_VALID))
		return -EINVAL;
	if (vdxg_pagebuf_room(pb) < VDXG_PG_UCA_LEN)
		return vdxg_pagebuf_full(pb);

	cs = vdxg_pb_emit(pb, VDXG_PG_UPDATE_CONTEXT_ALLOC, VDXG_PG_UCA_LEN);
	cs[1] = as;
	vdxg_put64(cs + 2, entry);
	vdxg_pg_count(stats, VDXG_PG_UPDATE_CONTEXT_ALLOC,
		      VDXG_VM_AS_ENTRY_SIZE);
	return 0;
}

/**
 * vdxg_pg_init_context_resource - emit an INIT_CONTEXT_RESOURCE
 * @pb: the builder
 * @offset: VRAM offset of the context state area, 4 KiB aligned
 * @stats: counters to update, or NULL
 *
 * Return: 0, -ENOSPC, or -EINVAL.
 */
int vdxg_pg_init_context_resource(struct vdxg_pagebuf *pb, u64 offset,
				  struct vdxg_pg_stats *stats)
{
	u32 *cs;

	if (offset & (VDXG_CTX_STATE_SIZE - 1))
		return -EINVAL;
	if (vdxg_pagebuf_room(pb) < VDXG_PG_ICR_LEN)
		return vdxg_pagebuf_full(pb);

	cs = vdxg_pb_emit(pb, VDXG_PG_INIT_CONTEXT_RESOURCE, VDXG_PG_ICR_LEN);
	vdxg_put64(cs + 1, offset);
	vdxg_pg_count(stats, VDXG_PG_INIT_CONTEXT_RESOURCE,
		      VDXG_CTX_STATE_SIZE);
	return 0;
}

/**
 * vdxg_pg_notify_residency - emit a NOTIFY_RESIDENCY
 * @pb: the builder
 * @as: address space id
 * @evicted: count evictions, else allocations made resident
 * @count: allocations
 * @stats: counters to update, or NULL
 *
 * Return: 0, -ENOSPC, or -EINVAL.
 */
int vdxg_pg_notify_residency(struct vdxg_pagebuf *pb, u32 as, bool evicted,
			     u32 count, struct vdxg_pg_stats *stats)
{
	u32 *cs;

	if (!vdxg_pg_as_ok(pb, as))
		return -EINVAL;
	if (vdxg_pagebuf_room(pb) < VDXG_PG_NOTIFY_RES_LEN)
		return vdxg_pagebuf_full(pb);

	cs = vdxg_pb_emit(pb, VDXG_PG_NOTIFY_RESIDENCY, VDXG_PG_NOTIFY_RES_LEN);
	cs[1] = as;
	cs[2] = evicted ? VDXG_PG_RES_EVICTED : 0;
	cs[3] = count;
	vdxg_pg_count(stats, VDXG_PG_NOTIFY_RESIDENCY, 0);
	return 0;
}

/**
 * vdxg_pg_next_as - find the next address-space operand of a paging buffer
 * @cmd: the buffer
 * @ndw: its dwords
 * @pos: where to look from; on return, past the operation found
 *
 * The operations that name an address space (FLUSH_VM_TLB,
 * TRANSFER_VIRTUAL, FILL_VIRTUAL, UPDATE_CONTEXT_ALLOCATION,
 * NOTIFY_RESIDENCY) all have it in dword 1. The walk stops at an
 * operation whose length is zero or runs past @ndw.
 *
 * Return: the operand, or NULL when no operation after @pos has one.
 */
u32 *vdxg_pg_next_as(u32 *cmd, u32 ndw, u32 *pos)
{
	while (*pos < ndw) {
		u32 *cs = cmd + *pos;
		u32 len = VDXG_PG_HDR_LEN(cs[0]);

		if (!len || len > ndw - *pos)
			break;
		*pos += len;
		switch (VDXG_PG_HDR_OP(cs[0])) {
		case VDXG_PG_FLUSH_VM_TLB:
		case VDXG_PG_TRANSFER_VIRTUAL:
		case VDXG_PG_FILL_VIRTUAL:
		case VDXG_PG_UPDATE_CONTEXT_ALLOC:
		case VDXG_PG_NOTIFY_RESIDENCY:
			if (len >= 2)
				return cs + 1;
			break;
		}
	}
	*pos = ndw;
	return NULL;
}
