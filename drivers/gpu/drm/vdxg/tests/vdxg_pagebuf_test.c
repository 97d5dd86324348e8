// SPDX-License-Identifier: MIT
/*
 * KUnit tests for vdxg's paging-buffer builder (vdxg_pagebuf.c).
 *
 * Copyright 2026 The vdxg authors
 */

#include <kunit/test.h>

#include <linux/errno.h>
#include <linux/slab.h>

#include "vdxg_hw.h"
#include "vdxg_pagebuf.h"

#define PG	VDXG_GPU_PAGE_SIZE

static u64 get64(const u32 *cs)
{
	return cs[0] | ((u64)cs[1] << 32);
}

static dma_addr_t *make_pages(struct kunit *test, u32 n, dma_addr_t base)
{
	dma_addr_t *pages = kunit_kcalloc(test, n, sizeof(*pages), GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, pages);
	/* Scattered, so that a wrong index shows. */
	for (i = 0; i < n; i++)
		pages[i] = base + (u64)((i * 7919) % n) * PG;
	return pages;
}

static u32 *make_buf(struct kunit *test, u32 bytes)
{
	u32 *buf = kunit_kzalloc(test, bytes, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	return buf;
}

/*
 * Walk one buffer: check every header is well formed and add up what the
 * TRANSFERs in it move. Returns the number of operations.
 */
static u32 walk(struct kunit *test, const struct vdxg_pagebuf *pb,
		u64 *xfer_bytes)
{
	u32 pos = 0, ops = 0;

	while (pos < pb->used) {
		u32 hdr = pb->cmd[pos], len = VDXG_PG_HDR_LEN(hdr);

		KUNIT_ASSERT_GT(test, len, 0u);
		KUNIT_ASSERT_LE(test, pos + len, pb->used);
		KUNIT_EXPECT_EQ(test, hdr & 0xff00, 0u);
		if (VDXG_PG_HDR_OP(hdr) == VDXG_PG_TRANSFER) {
			const u32 *cs = pb->cmd + pos;
			u32 ns = cs[VDXG_PG_XFER_DW_SRC_NPAGES];
			u32 nd = cs[VDXG_PG_XFER_DW_DST_NPAGES];

			KUNIT_EXPECT_EQ(test, len,
					VDXG_PG_XFER_DW_PAGES + 2 * (ns + nd));
			*xfer_bytes += cs[VDXG_PG_XFER_DW_SIZE];
		}
		pos += len;
		ops++;
	}
	KUNIT_EXPECT_EQ(test, pos, pb->used);
	return ops;
}

static void vdxg_pg_transfer_gpu_to_gpu(struct kunit *test)
{
	struct vdxg_pg_loc src = { .addr = 0x1000 }, dst = { .addr = 0x200000 };
	struct vdxg_pg_stats stats = {};
	struct vdxg_pagebuf pb;
	u64 progress = 0;
	u32 *buf = make_buf(test, 4096);

	vdxg_pagebuf_init(&pb, buf, 4096);
	KUNIT_ASSERT_EQ(test, vdxg_pg_transfer(&pb, &src, &dst, 12345,
					       &progress, &stats), 0);
	KUNIT_EXPECT_EQ(test, progress, 12345ull);
	KUNIT_EXPECT_EQ(test, pb.used, (u32)VDXG_PG_XFER_DW_PAGES);
	KUNIT_EXPECT_EQ(test, buf[0], VDXG_PG_HDR(VDXG_PG_TRANSFER,
						  VDXG_PG_XFER_DW_PAGES));
	KUNIT_EXPECT_EQ(test, buf[VDXG_PG_XFER_DW_FLAGS], 0u);
	KUNIT_EXPECT_EQ(test, buf[VDXG_PG_XFER_DW_SIZE], 12345u);
	KUNIT_EXPECT_EQ(test, get64(buf + VDXG_PG_XFER_DW_SRC), 0x1000ull);
	KUNIT_EXPECT_EQ(test, get64(buf + VDXG_PG_XFER_DW_DST), 0x200000ull);
	KUNIT_EXPECT_EQ(test, stats.ops[VDXG_PG_TRANSFER], 1ull);
	KUNIT_EXPECT_EQ(test, stats.bytes[VDXG_PG_TRANSFER], 12345ull);
}

/* A page list that starts mid-page needs one page more than its size. */
static void vdxg_pg_transfer_pages_offset(struct kunit *test)
{
	dma_addr_t *pages = make_pages(test, 4, 0x80000000);
	struct vdxg_pg_loc src = { .pages = pages, .npages = 4, .addr = 100 };
	struct vdxg_pg_loc dst = { .addr = 0x5000 };
	struct vdxg_pagebuf pb;
	u64 progress = 0;
	u32 *buf = make_buf(test, 4096), i;

	vdxg_pagebuf_init(&pb, buf, 4096);
	KUNIT_ASSERT_EQ(test, vdxg_pg_transfer(&pb, &src, &dst, 3 * PG,
					       &progress, NULL), 0);
	KUNIT_EXPECT_EQ(test, buf[VDXG_PG_XFER_DW_FLAGS],
			(u32)VDXG_PG_XFER_SRC_PAGES);
	KUNIT_EXPECT_EQ(test, get64(buf + VDXG_PG_XFER_DW_SRC), 100ull);
	KUNIT_EXPECT_EQ(test, buf[VDXG_PG_XFER_DW_SRC_NPAGES], 4u);
	KUNIT_EXPECT_EQ(test, buf[VDXG_PG_XFER_DW_DST_NPAGES], 0u);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test,
				get64(buf + VDXG_PG_XFER_DW_PAGES + 2 * i),
				(u64)pages[i]);
}

static void vdxg_pg_transfer_short_list(struct kunit *test)
{
	dma_addr_t *pages = make_pages(test, 2, 0);
	struct vdxg_pg_loc src = { .pages = pages, .npages = 2, .addr = 1 };
	struct vdxg_pg_loc dst = { .addr = 0 };
	struct vdxg_pagebuf pb;
	u64 progress = 0;

	vdxg_pagebuf_init(&pb, make_buf(test, 4096), 4096);
	KUNIT_EXPECT_EQ(test, vdxg_pg_transfer(&pb, &src, &dst, 2 * PG,
					       &progress, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, pb.used, 0u);
	KUNIT_EXPECT_EQ(test, progress, 0ull);
}

static void vdxg_pg_transfer_overflow(struct kunit *test)
{
	struct vdxg_pg_loc src = { .addr = U64_MAX - 10 }, dst = { .addr = 0 };
	struct vdxg_pagebuf pb;
	u64 progress = 0;

	vdxg_pagebuf_init(&pb, make_buf(test, 4096), 4096);
	KUNIT_EXPECT_EQ(test, vdxg_pg_transfer(&pb, &src, &dst, 100,
					       &progress, NULL), -EINVAL);
	progress = 200;
	src.addr = 0;
	KUNIT_EXPECT_EQ(test, vdxg_pg_transfer(&pb, &src, &dst, 100,
					       &progress, NULL), -EINVAL);
}

/*
 * Multipass: a 64 MiB move from VRAM to a page list through 4 KiB paging
 * buffers. Each buffer holds one TRANSFER with (1024 - 9) / 2 = 507 pages,
 * so the move takes DIV_ROUND_UP(16384, 507) = 33 passes, and the passes
 * together cover every page exactly once, in order.
 */
static void vdxg_pg_transfer_multipass(struct kunit *test)
{
	const u32 npages = (64 << 20) / PG, bufsz = 4096;
	const u32 per_pass = (bufsz / 4 - VDXG_PG_XFER_DW_PAGES) / 2;
	dma_addr_t *pages = make_pages(test, npages, 0x100000000ull);
	struct vdxg_pg_loc src = { .addr = 0x400000 };
	struct vdxg_pg_loc dst = { .pages = pages, .npages = npages };
	struct vdxg_pg_stats stats = {};
	u64 progress = 0, bytes = 0, expect_src = 0x400000;
	u32 *buf = make_buf(test, bufsz), passes = 0, next_page = 0;
	struct vdxg_pagebuf pb;
	int ret;

	do {
		u32 i, n;

		vdxg_pagebuf_init(&pb, buf, bufsz);
		ret = vdxg_pg_transfer(&pb, &src, &dst, 64 << 20, &progress,
				       &stats);
		KUNIT_ASSERT_TRUE(test, ret == 0 || ret == -ENOSPC);
		passes++;
		KUNIT_ASSERT_EQ(test, walk(test, &pb, &bytes), 1u);

		KUNIT_EXPECT_EQ(test, get64(buf + VDXG_PG_XFER_DW_SRC),
				expect_src);
		n = buf[VDXG_PG_XFER_DW_DST_NPAGES];
		for (i = 0; i < n; i++)
			KUNIT_ASSERT_EQ(test,
					get64(buf + VDXG_PG_XFER_DW_PAGES + 2 * i),
					(u64)pages[next_page + i]);
		next_page += n;
		expect_src += buf[VDXG_PG_XFER_DW_SIZE];
		KUNIT_ASSERT_LT(test, passes, 1000u);
	} while (ret == -ENOSPC);

	KUNIT_EXPECT_EQ(test, passes, DIV_ROUND_UP(npages, per_pass));
	KUNIT_EXPECT_EQ(test, passes, 33u);
	KUNIT_EXPECT_EQ(test, next_page, npages);
	KUNIT_EXPECT_EQ(test, bytes, 64ull << 20);
	KUNIT_EXPECT_EQ(test, progress, 64ull << 20);
	KUNIT_EXPECT_EQ(test, stats.ops[VDXG_PG_TRANSFER], 33ull);
}

/* Both sides page lists, misaligned differently: the room is shared. */
static void vdxg_pg_transfer_both_lists(struct kunit *test)
{
	const u32 n = 300;
	dma_addr_t *sp = make_pages(test, n + 1, 0x10000000);
	dma_addr_t *dp = make_pages(test, n + 1, 0x20000000);
	struct vdxg_pg_loc src = { .pages = sp, .npages = n + 1, .addr = 8 };
	struct vdxg_pg_loc dst = { .pages = dp, .npages = n + 1, .addr = 4000 };
	u64 progress = 0, bytes = 0;
	struct vdxg_pagebuf pb;
	u32 *buf = make_buf(test, 1024), passes = 0;
	int ret;

	do {
		vdxg_pagebuf_init(&pb, buf, 1024);
		ret = vdxg_pg_transfer(&pb, &src, &dst, (u64)n * PG, &progress,
				       NULL);
		KUNIT_ASSERT_TRUE(test, ret == 0 || ret == -ENOSPC);
		walk(test, &pb, &bytes);
		KUNIT_EXPECT_LE(test, pb.used, 256u);
		KUNIT_ASSERT_LT(test, ++passes, 100u);
	} while (ret == -ENOSPC);

	KUNIT_EXPECT_EQ(test, bytes, (u64)n * PG);
	KUNIT_EXPECT_GT(test, passes, 1u);
}

/* A buffer with no room at all gets -EINVAL, never an endless -ENOSPC. */
static void vdxg_pg_transfer_tiny_buffer(struct kunit *test)
{
	dma_addr_t *pages = make_pages(test, 2, 0);
	struct vdxg_pg_loc src = { .pages = pages, .npages = 2 };
	struct vdxg_pg_loc dst = { .addr = 0 };
	struct vdxg_pagebuf pb;
	u64 progress = 0;

	vdxg_pagebuf_init(&pb, make_buf(test, 40), 40);	/* 10 dwords */
	KUNIT_EXPECT_EQ(test, vdxg_pg_transfer(&pb, &src, &dst, PG, &progress,
					       NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, progress, 0ull);
}

static void vdxg_pg_fill_ops(struct kunit *test)
{
	struct vdxg_pg_stats stats = {};
	struct vdxg_pagebuf pb;
	u64 progress = 0;
	u32 *buf = make_buf(test, 16);	/* 4 dwords: FILL needs 5 */

	vdxg_pagebuf_init(&pb, buf, 16);
	KUNIT_EXPECT_EQ(test, vdxg_pg_fill(&pb, 0, PG, 0, &progress, NULL),
			-EINVAL);

	buf = make_buf(test, 64);
	vdxg_pagebuf_init(&pb, buf, 64);
	KUNIT_EXPECT_EQ(test, vdxg_pg_fill(&pb, 2, PG, 0, &progress, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vdxg_pg_fill(&pb, 0, 6, 0, &progress, NULL),
			-EINVAL);
	KUNIT_ASSERT_EQ(test, vdxg_pg_fill(&pb, 0x3000, 4ull << 30,
					   0xdeadbeef, &progress, &stats),
			-ENOSPC);
	/* 16 dwords hold three 5-dword FILLs of at most 1 GiB each. */
	KUNIT_EXPECT_EQ(test, pb.used, 15u);
	KUNIT_EXPECT_EQ(test, progress, 3ull << 30);
	KUNIT_EXPECT_EQ(test, buf[0], VDXG_PG_HDR(VDXG_PG_FILL, 5));
	KUNIT_EXPECT_EQ(test, buf[1], 0xdeadbeefu);
	KUNIT_EXPECT_EQ(test, get64(buf + 13), 0x3000ull + (2ull << 30));
	/* The next buffer takes the last GiB, from the saved progress. */
	vdxg_pagebuf_init(&pb, buf, 64);
	KUNIT_EXPECT_EQ(test, vdxg_pg_fill(&pb, 0x3000, 4ull << 30, 0,
					   &progress, &stats), 0);
	KUNIT_EXPECT_EQ(test, pb.used, 5u);
	KUNIT_EXPECT_EQ(test, get64(buf + 3), 0x3000ull + (3ull << 30));
	KUNIT_EXPECT_EQ(test, stats.ops[VDXG_PG_FILL], 4ull);
	KUNIT_EXPECT_EQ(test, stats.bytes[VDXG_PG_FILL], 4ull << 30);
}

static void vdxg_pg_aperture_ops(struct kunit *test)
{
	dma_addr_t *pages = make_pages(test, 100, 0x40000000);
	struct vdxg_pagebuf pb;
	u64 progress = 0;
	u32 *buf = make_buf(test, 256), total = 0, pos, i;
	int ret;

	/* 64 dwords: (64 - 3) / 2 = 30 pages a pass. */
	do {
		vdxg_pagebuf_init(&pb, buf, 256);
		ret = vdxg_pg_map_aperture(&pb, 10, pages, 100, &progress, NULL);
		KUNIT_ASSERT_TRUE(test, ret == 0 || ret == -ENOSPC);
		for (pos = 0; pos < pb.used; pos += VDXG_PG_HDR_LEN(buf[pos])) {
			u32 *cs = buf + pos;

			KUNIT_ASSERT_EQ(test, VDXG_PG_HDR_OP(cs[0]),
					(u32)VDXG_PG_MAP_APERTURE);
			KUNIT_EXPECT_EQ(test, cs[1], 10 + total);
			for (i = 0; i < cs[2]; i++)
				KUNIT_EXPECT_EQ(test, get64(cs + 3 + 2 * i),
						(u64)pages[total + i]);
			total += cs[2];
		}
	} while (ret == -ENOSPC);
	KUNIT_EXPECT_EQ(test, total, 100u);

	vdxg_pagebuf_init(&pb, buf, 256);
	KUNIT_EXPECT_EQ(test, vdxg_pg_unmap_aperture(&pb, U32_MAX, 2, NULL),
			-EINVAL);
	KUNIT_ASSERT_EQ(test, vdxg_pg_unmap_aperture(&pb, 10, 100, NULL), 0);
	KUNIT_ASSERT_EQ(test, vdxg_pg_flush_tlb(&pb, NULL), 0);
	KUNIT_EXPECT_EQ(test, buf[0], VDXG_PG_HDR(VDXG_PG_UNMAP_APERTURE, 3));
	KUNIT_EXPECT_EQ(test, buf[1], 10u);
	KUNIT_EXPECT_EQ(test, buf[2], 100u);
	KUNIT_EXPECT_EQ(test, buf[3], VDXG_PG_HDR(VDXG_PG_FLUSH_TLB, 1));
}

static void vdxg_pg_fence_discard(struct kunit *test)
{
	struct vdxg_pagebuf pb;
	u32 *buf = make_buf(test, 40);

	vdxg_pagebuf_init(&pb, buf, 40);
	KUNIT_EXPECT_EQ(test, vdxg_pg_fence(&pb, 4, 1, NULL), -EINVAL);
	KUNIT_ASSERT_EQ(test, vdxg_pg_fence(&pb, 0x1008, 0x123456789ull, NULL),
			0);
	KUNIT_EXPECT_EQ(test, get64(buf + 1), 0x1008ull);
	KUNIT_EXPECT_EQ(test, get64(buf + 3), 0x123456789ull);
	KUNIT_EXPECT_EQ(test, vdxg_pg_discard(&pb, 0, 1ull << 32, NULL),
			-EINVAL);
	KUNIT_ASSERT_EQ(test, vdxg_pg_discard(&pb, 0x2000, PG, NULL), 0);
	KUNIT_EXPECT_EQ(test, pb.used, 9u);
	/* One dword left: a FENCE no longer fits. */
	KUNIT_EXPECT_EQ(test, vdxg_pg_fence(&pb, 0, 0, NULL), -ENOSPC);
	KUNIT_ASSERT_EQ(test, vdxg_pg_flush_tlb(&pb, NULL), 0);
	KUNIT_EXPECT_EQ(test, vdxg_pg_flush_tlb(&pb, NULL), -ENOSPC);
}

/* UPDATE_PAGE_TABLE's list form: entries split over buffers, in order. */
static void vdxg_pg_update_pt_list(struct kunit *test)
{
	u64 entries[100], progress = 0;
	struct vdxg_pg_stats stats = {};
	struct vdxg_pagebuf pb;
	u32 *buf = make_buf(test, 256), total = 0, passes = 0, i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(entries); i++)
		entries[i] = 0x100000ull * i | VDXG_PTE_VALID;

	vdxg_pagebuf_init(&pb, buf, 256);
	KUNIT_EXPECT_EQ(test, vdxg_pg_update_pt(&pb, 0x1001, 0, entries, 1,
						&progress, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, vdxg_pg_update_pt(&pb, 0x1000, 500, entries, 13,
						&progress, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, pb.used, 0u);

	/* 64 dwords: (64 - 6) / 2 = 29 entries a buffer. */
	do {
		u32 *cs = buf;

		vdxg_pagebuf_init(&pb, buf, 256);
		ret = vdxg_pg_update_pt(&pb, 0x7000, 400, entries, 100,
					&progress, &stats);
		KUNIT_ASSERT_TRUE(test, ret == 0 || ret == -ENOSPC);
		KUNIT_ASSERT_EQ(test, VDXG_PG_HDR_OP(cs[0]),
				(u32)VDXG_PG_UPDATE_PAGE_TABLE);
		KUNIT_EXPECT_EQ(test, VDXG_PG_HDR_LEN(cs[0]),
				(u32)VDXG_PG_UPT_LEN(cs[VDXG_PG_UPT_DW_COUNT]));
		KUNIT_EXPECT_EQ(test, cs[VDXG_PG_UPT_DW_FLAGS], 0u);
		KUNIT_EXPECT_EQ(test, get64(cs + VDXG_PG_UPT_DW_TABLE),
				0x7000ull);
		KUNIT_EXPECT_EQ(test, cs[VDXG_PG_UPT_DW_FIRST], 400 + total);
		for (i = 0; i < cs[VDXG_PG_UPT_DW_COUNT]; i++)
			KUNIT_EXPECT_EQ(test, get64(cs + VDXG_PG_UPT_DW_ENTRIES +
						    2 * i), entries[total + i]);
		total += cs[VDXG_PG_UPT_DW_COUNT];
		KUNIT_ASSERT_LT(test, ++passes, 10u);
	} while (ret == -ENOSPC);
	KUNIT_EXPECT_EQ(test, total, 100u);
	KUNIT_EXPECT_EQ(test, passes, 4u);
	KUNIT_EXPECT_EQ(test, stats.ops[VDXG_PG_UPDATE_PAGE_TABLE], 4ull);
	/* 8 bytes of table written per entry. */
	KUNIT_EXPECT_EQ(test, stats.bytes[VDXG_PG_UPDATE_PAGE_TABLE],
			100ull * 8);
}

/* The page-list variant ORs the flags into each page address. */
static void vdxg_pg_update_pt_page_list(struct kunit *test)
{
	dma_addr_t *pages = make_pages(test, 8, 0x40000000);
	const u64 flags = VDXG_PTE_VALID | VDXG_PTE_READ_ONLY;
	struct vdxg_pagebuf pb;
	u64 progress = 0;
	u32 *buf = make_buf(test, 4096), i;

	vdxg_pagebuf_init(&pb, buf, 4096);
	KUNIT_ASSERT_EQ(test, vdxg_pg_update_pt_pages(&pb, 0x3000, 504, pages,
						      flags, 8, &progress,
						      NULL), 0);
	KUNIT_EXPECT_EQ(test, pb.used, (u32)VDXG_PG_UPT_LEN(8));
	KUNIT_EXPECT_EQ(test, buf[VDXG_PG_UPT_DW_FIRST], 504u);
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, get64(buf + VDXG_PG_UPT_DW_ENTRIES + 2 * i),
				(u64)pages[i] | flags);
}

static void vdxg_pg_update_pt_generate(struct kunit *test)
{
	struct vdxg_pg_stats stats = {};
	struct vdxg_pagebuf pb;
	u32 *buf = make_buf(test, 48);	/* 12 dwords: one GENERATE */

	vdxg_pagebuf_init(&pb, buf, 48);
	KUNIT_EXPECT_EQ(test, vdxg_pg_update_pt_gen(&pb, 0x2000, 0, 512,
						    0x5000 | VDXG_PTE_VALID,
						    100, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, vdxg_pg_update_pt_gen(&pb, 0x2000, 1, 512, 0, 0,
						    NULL), -EINVAL);
	KUNIT_ASSERT_EQ(test, vdxg_pg_update_pt_gen(&pb, 0x2000, 10, 502,
						    0x5000 | VDXG_PTE_VALID, PG,
						    &stats), 0);
	KUNIT_EXPECT_EQ(test, buf[0], VDXG_PG_HDR(VDXG_PG_UPDATE_PAGE_TABLE,
						  VDXG_PG_UPT_GEN_LEN));
	KUNIT_EXPECT_EQ(test, buf[VDXG_PG_UPT_DW_FLAGS],
			(u32)VDXG_PG_UPT_GENERATE);
	KUNIT_EXPECT_EQ(test, get64(buf + VDXG_PG_UPT_DW_TABLE), 0x2000ull);
	KUNIT_EXPECT_EQ(test, buf[VDXG_PG_UPT_DW_FIRST], 10u);
	KUNIT_EXPECT_EQ(test, buf[VDXG_PG_UPT_DW_COUNT], 502u);
	KUNIT_EXPECT_EQ(test, get64(buf + VDXG_PG_UPT_DW_BASE),
			0x5000 | VDXG_PTE_VALID);
	KUNIT_EXPECT_EQ(test, get64(buf + VDXG_PG_UPT_DW_STRIDE), (u64)PG);
	KUNIT_EXPECT_EQ(test, stats.bytes[VDXG_PG_UPDATE_PAGE_TABLE],
			502ull * 8);
	/* Two dwords left. */
	KUNIT_EXPECT_EQ(test, vdxg_pg_update_pt_gen(&pb, 0x2000, 0, 1, 0, 0,
						    NULL), -ENOSPC);
}

/* The other GPU virtual memory operations, field by field. */
static void vdxg_pg_vm_ops(struct kunit *test)
{
	struct vdxg_pg_stats stats = {};
	struct vdxg_pagebuf pb;
	u64 progress = 0;
	u32 *buf = make_buf(test, 4096), *cs = buf;

	vdxg_pagebuf_init(&pb, buf, 4096);
	KUNIT_EXPECT_EQ(test, vdxg_pg_copy_ptes(&pb, 0x1000, 500, 0x2000, 0,
						13, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, vdxg_pg_flush_vm_tlb(&pb, 256, false, 0, 0,
						   NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, vdxg_pg_flush_vm_tlb(&pb, 1, false, 0x1000, 0,
						   NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, vdxg_pg_transfer_virtual(&pb, 1, 4, 0, 0, 8,
						       &progress, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vdxg_pg_fill_virtual(&pb, 1, 2, 8, 0, &progress,
						   NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, vdxg_pg_update_context_alloc(&pb, 1, 0x1002,
							   NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, vdxg_pg_init_context_resource(&pb, 0x800, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vdxg_pg_notify_residency(&pb, 300, false, 1,
						       NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, pb.used, 0u);

	KUNIT_ASSERT_EQ(test, vdxg_pg_copy_ptes(&pb, 0x1000, 500, 0x2000, 3,
						12, &stats), 0);
	KUNIT_EXPECT_EQ(test, cs[0], VDXG_PG_HDR(VDXG_PG_COPY_PTES,
						 VDXG_PG_COPY_PTES_LEN));
	KUNIT_EXPECT_EQ(test, get64(cs + 1), 0x1000ull);
	KUNIT_EXPECT_EQ(test, cs[3], 500u);
	KUNIT_EXPECT_EQ(test, get64(cs + 4), 0x2000ull);
	KUNIT_EXPECT_EQ(test, cs[6], 3u);
	KUNIT_EXPECT_EQ(test, cs[7], 12u);
	cs += VDXG_PG_COPY_PTES_LEN;

	KUNIT_ASSERT_EQ(test, vdxg_pg_flush_vm_tlb(&pb, 7, true, 0x12340000,
						   1ull << 33, &stats), 0);
	KUNIT_EXPECT_EQ(test, cs[0], VDXG_PG_HDR(VDXG_PG_FLUSH_VM_TLB,
						 VDXG_PG_FLUSH_VM_TLB_LEN));
	KUNIT_EXPECT_EQ(test, cs[1], 7u);
	KUNIT_EXPECT_EQ(test, cs[2], (u32)VDXG_PG_FLUSH_RANGE);
	KUNIT_EXPECT_EQ(test, get64(cs + 3), 0x12340000ull);
	KUNIT_EXPECT_EQ(test, get64(cs + 5), 1ull << 33);
	cs += VDXG_PG_FLUSH_VM_TLB_LEN;

	/* 3 GiB: three operations of at most 1 GiB. */
	KUNIT_ASSERT_EQ(test, vdxg_pg_transfer_virtual(&pb, 2,
						       VDXG_PG_XV_DST_PHYS,
						       0x100000, 0x200000,
						       3ull << 30, &progress,
						       &stats), 0);
	KUNIT_EXPECT_EQ(test, cs[0], VDXG_PG_HDR(VDXG_PG_TRANSFER_VIRTUAL,
						 VDXG_PG_XV_LEN));
	KUNIT_EXPECT_EQ(test, cs[1], 2u);
	KUNIT_EXPECT_EQ(test, cs[2], (u32)VDXG_PG_XV_DST_PHYS);
	KUNIT_EXPECT_EQ(test, cs[3], 1u << 30);
	KUNIT_EXPECT_EQ(test, get64(cs + 4), 0x100000ull);
	KUNIT_EXPECT_EQ(test, get64(cs + 6), 0x200000ull);
	cs += 2 * VDXG_PG_XV_LEN;
	KUNIT_EXPECT_EQ(test, get64(cs + 4), 0x100000ull + (2ull << 30));
	KUNIT_EXPECT_EQ(test, get64(cs + 6), 0x200000ull + (2ull << 30));
	cs += VDXG_PG_XV_LEN;
	KUNIT_EXPECT_EQ(test, stats.ops[VDXG_PG_TRANSFER_VIRTUAL], 3ull);

	progress = 0;
	KUNIT_ASSERT_EQ(test, vdxg_pg_fill_virtual(&pb, 3, 0x4000, 0x100,
						   0xcafef00d, &progress,
						   &stats), 0);
	KUNIT_EXPECT_EQ(test, cs[0], VDXG_PG_HDR(VDXG_PG_FILL_VIRTUAL,
						 VDXG_PG_FILL_V_LEN));
	KUNIT_EXPECT_EQ(test, cs[1], 3u);
	KUNIT_EXPECT_EQ(test, cs[2], 0xcafef00du);
	KUNIT_EXPECT_EQ(test, cs[3], 0x100u);
	KUNIT_EXPECT_EQ(test, get64(cs + 4), 0x4000ull);
	cs += VDXG_PG_FILL_V_LEN;

	KUNIT_ASSERT_EQ(test, vdxg_pg_update_context_alloc(&pb, 255,
							   0x7000 |
							   VDXG_VM_AS_VALID,
							   &stats), 0);
	KUNIT_EXPECT_EQ(test, cs[0], VDXG_PG_HDR(VDXG_PG_UPDATE_CONTEXT_ALLOC,
						 VDXG_PG_UCA_LEN));
	KUNIT_EXPECT_EQ(test, cs[1], 255u);
	KUNIT_EXPECT_EQ(test, get64(cs + 2), 0x7001ull);
	cs += VDXG_PG_UCA_LEN;

	KUNIT_ASSERT_EQ(test, vdxg_pg_init_context_resource(&pb, 0x9000,
							    &stats), 0);
	KUNIT_EXPECT_EQ(test, cs[0], VDXG_PG_HDR(VDXG_PG_INIT_CONTEXT_RESOURCE,
						 VDXG_PG_ICR_LEN));
	KUNIT_EXPECT_EQ(test, get64(cs + 1), 0x9000ull);
	cs += VDXG_PG_ICR_LEN;

	KUNIT_ASSERT_EQ(test, vdxg_pg_notify_residency(&pb, 4, true, 17,
						       &stats), 0);
	KUNIT_EXPECT_EQ(test, cs[0], VDXG_PG_HDR(VDXG_PG_NOTIFY_RESIDENCY,
						 VDXG_PG_NOTIFY_RES_LEN));
	KUNIT_EXPECT_EQ(test, cs[1], 4u);
	KUNIT_EXPECT_EQ(test, cs[2], (u32)VDXG_PG_RES_EVICTED);
	KUNIT_EXPECT_EQ(test, cs[3], 17u);
	cs += VDXG_PG_NOTIFY_RES_LEN;

	KUNIT_EXPECT_EQ(test, pb.used, (u32)(cs - buf));
	KUNIT_EXPECT_EQ(test, stats.ops[VDXG_PG_NOTIFY_RESIDENCY], 1ull);
	KUNIT_EXPECT_EQ(test, stats.ops[VDXG_PG_INIT_CONTEXT_RESOURCE], 1ull);
	/* What each writes: table entries, the AS entry, the state area. */
	KUNIT_EXPECT_EQ(test, stats.bytes[VDXG_PG_COPY_PTES], 12ull * 8);
	KUNIT_EXPECT_EQ(test, stats.bytes[VDXG_PG_FLUSH_VM_TLB], 1ull << 33);
	KUNIT_EXPECT_EQ(test, stats.bytes[VDXG_PG_TRANSFER_VIRTUAL],
			3ull << 30);
	KUNIT_EXPECT_EQ(test, stats.bytes[VDXG_PG_FILL_VIRTUAL], 0x100ull);
	KUNIT_EXPECT_EQ(test, stats.bytes[VDXG_PG_UPDATE_CONTEXT_ALLOC],
			16ull);
	KUNIT_EXPECT_EQ(test, stats.bytes[VDXG_PG_INIT_CONTEXT_RESOURCE],
			4096ull);
	KUNIT_EXPECT_EQ(test, stats.bytes[VDXG_PG_NOTIFY_RESIDENCY], 0ull);
}

/* Fixed-size operations do not fit in what is left: -ENOSPC, nothing. */
/*
 * VM keys as address-space operands mark the buffer, and the walk finds
 * every operand that names an address space, and nothing else.
 */
static void vdxg_pg_as_keys(struct kunit *test)
{
	u32 *buf = make_buf(test, 4096);
	u32 key = VDXG_PG_AS_KEY | 12345, pos = 0, *as;
	struct vdxg_pagebuf pb;
	u64 progress = 0;
	u64 entries[2] = { 0x1001, 0x2001 };

	vdxg_pagebuf_init(&pb, buf, 4096);
	KUNIT_EXPECT_EQ(test, vdxg_pg_flush_vm_tlb(&pb, VDXG_PG_AS_KEY, false,
						   0, 0, NULL), -EINVAL);
	KUNIT_ASSERT_EQ(test, vdxg_pg_update_pt(&pb, 0x1000, 0, entries, 2,
						&progress, NULL), 0);
	progress = 0;
	KUNIT_EXPECT_FALSE(test, pb.keyed);
	KUNIT_ASSERT_EQ(test, vdxg_pg_flush_vm_tlb(&pb, 5, false, 0, 0, NULL),
			0);
	KUNIT_EXPECT_FALSE(test, pb.keyed);
	KUNIT_ASSERT_EQ(test, vdxg_pg_flush_vm_tlb(&pb, key, false, 0, 0, NULL),
			0);
	KUNIT_EXPECT_TRUE(test, pb.keyed);
	KUNIT_ASSERT_EQ(test, vdxg_pg_fence(&pb, 0x8000, 7, NULL), 0);
	KUNIT_ASSERT_EQ(test, vdxg_pg_transfer_virtual(&pb, key + 1,
						       VDXG_PG_XV_DST_PHYS,
						       0x1000, 0x2000, 64,
						       &progress, NULL), 0);
	KUNIT_ASSERT_EQ(test, vdxg_pg_notify_residency(&pb, key + 2, true, 3,
						       NULL), 0);
	KUNIT_ASSERT_EQ(test, vdxg_pg_update_context_alloc(&pb, key + 3, 0,
							   NULL), 0);

	as = vdxg_pg_next_as(buf, pb.used, &pos);
	KUNIT_ASSERT_NOT_NULL(test, as);
	KUNIT_EXPECT_EQ(test, *as, 5u);
	as = vdxg_pg_next_as(buf, pb.used, &pos);
	KUNIT_ASSERT_NOT_NULL(test, as);
	KUNIT_EXPECT_EQ(test, *as, key);
	as = vdxg_pg_next_as(buf, pb.used, &pos);
	KUNIT_ASSERT_NOT_NULL(test, as);
	KUNIT_EXPECT_EQ(test, *as, key + 1);
	as = vdxg_pg_next_as(buf, pb.used, &pos);
	KUNIT_ASSERT_NOT_NULL(test, as);
	KUNIT_EXPECT_EQ(test, *as, key + 2);
	KUNIT_EXPECT_EQ(test, as[2], 3u);
	as = vdxg_pg_next_as(buf, pb.used, &pos);
	KUNIT_ASSERT_NOT_NULL(test, as);
	KUNIT_EXPECT_EQ(test, *as, key + 3);
	KUNIT_EXPECT_NULL(test, vdxg_pg_next_as(buf, pb.used, &pos));
	KUNIT_EXPECT_EQ(test, pos, pb.used);

	/* A length of zero, or past the end, stops the walk. */
	pos = 0;
	buf[0] = VDXG_PG_HDR(VDXG_PG_FLUSH_VM_TLB, 0);
	KUNIT_EXPECT_NULL(test, vdxg_pg_next_as(buf, pb.used, &pos));
	pos = 0;
	buf[0] = VDXG_PG_HDR(VDXG_PG_FLUSH_VM_TLB, 9);
	KUNIT_EXPECT_NULL(test, vdxg_pg_next_as(buf, 8, &pos));
	KUNIT_EXPECT_EQ(test, pos, 8u);
}

static void vdxg_pg_vm_ops_full(struct kunit *test)
{
	struct vdxg_pagebuf pb;
	u64 progress = 0;
	u32 *buf = make_buf(test, 12);

	vdxg_pagebuf_init(&pb, buf, 12);
	/* Empty and too small for a COPY: nothing will ever fit. */
	KUNIT_EXPECT_EQ(test, vdxg_pg_copy_ptes(&pb, 0, 0, 0x1000, 0, 1, NULL),
			-EINVAL);
	KUNIT_ASSERT_EQ(test, vdxg_pg_init_context_resource(&pb, 0, NULL), 0);
	KUNIT_EXPECT_EQ(test, vdxg_pg_flush_vm_tlb(&pb, 0, false, 0, 0, NULL),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, vdxg_pg_fill_virtual(&pb, 0, 0, 4, 0, &progress,
						   NULL), -ENOSPC);
	KUNIT_EXPECT_EQ(test, progress, 0ull);
	KUNIT_EXPECT_EQ(test, pb.used, (u32)VDXG_PG_ICR_LEN);
}

static struct kunit_case vdxg_pagebuf_cases[] = {
	KUNIT_CASE(vdxg_pg_transfer_gpu_to_gpu),
	KUNIT_CASE(vdxg_pg_transfer_pages_offset),
	KUNIT_CASE(vdxg_pg_transfer_short_list),
	KUNIT_CASE(vdxg_pg_transfer_overflow),
	KUNIT_CASE(vdxg_pg_transfer_multipass),
	KUNIT_CASE(vdxg_pg_transfer_both_lists),
	KUNIT_CASE(vdxg_pg_transfer_tiny_buffer),
	KUNIT_CASE(vdxg_pg_fill_ops),
	KUNIT_CASE(vdxg_pg_aperture_ops),
	KUNIT_CASE(vdxg_pg_fence_discard),
	KUNIT_CASE(vdxg_pg_update_pt_list),
	KUNIT_CASE(vdxg_pg_update_pt_page_list),
	KUNIT_CASE(vdxg_pg_update_pt_generate),
	KUNIT_CASE(vdxg_pg_vm_ops),
	KUNIT_CASE(vdxg_pg_vm_ops_full),
	KUNIT_CASE(vdxg_pg_as_keys),
	{}
};

static struct kunit_suite vdxg_pagebuf_suite = {
	.name = "vdxg_pagebuf",
	.test_cases = vdxg_pagebuf_cases,
};

kunit_test_suite(vdxg_pagebuf_suite);
