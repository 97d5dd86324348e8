// SPDX-License-Identifier: MIT
/*
 * KUnit tests for vdxg's GPU page-table builder (vdxg_pt.c).
 *
 * The device is emulated: a VRAM pool holds the tables, an interpreter
 * runs the paging buffers the builder fills (UPDATE_PAGE_TABLE, COPY,
 * FILL, FLUSH_VM_TLB, UPDATE_CONTEXT_ALLOCATION) into it, and a walker
 * translates virtual addresses as docs/hardware.md, "GPU virtual memory",
 * says the device does. Pages are poisoned when they are allocated and
 * when they are freed, so a table used before it is initialised, or after
 * it is freed, shows as a malformed walk.
 *
 * Copyright 2026 The vdxg authors
 */

#include <kunit/test.h>

#include <linux/bitmap.h>
#include <linux/errno.h>
#include <linux/prandom.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "vdxg_hw.h"
#include "vdxg_pagebuf.h"
#include "vdxg_pt.h"

#define PG		VDXG_GPU_PAGE_SIZE
#define POOL_PAGES	1024		/* tables: 4 MiB of emulated VRAM */
#define VRAM_SIZE	(4ull << 30)	/* what VRAM pages may address */
#define POISON		0xa5
#define ASID		3
#define VA_TOP		BIT_ULL(VDXG_VM_VA_BITS)

struct fake_gpu {
	struct kunit *test;
	u8 *pool;
	unsigned long *used;
	u32 pages_in_use;
	u32 allocs;
	u64 as_entry[8];
	u32 flushes;
	u64 flush_va, flush_size;
	u32 ops[VDXG_PG_NUM_OPS];
	bool fail_alloc;
	/* Called after each operation, as an engine may walk any time. */
	void (*after_op)(struct fake_gpu *g);
};

struct pt_ctx {
	struct fake_gpu gpu;
	struct vdxg_pt_vm vm;
	u32 *buf;
	u32 buf_bytes;
	u32 passes;
	u32 total_passes;
};

/* The result of a walk. */
struct xlate {
	int fault;	/* 0 or VDXG_FAULT_VM_* */
	u32 level;	/* of the leaf */
	u64 pte;	/* the leaf */
	u64 addr;	/* the byte it maps to (none for a null page) */
};

static int fake_alloc(void *priv, u64 *offset)
{
	struct fake_gpu *g = priv;
	u32 i;

	if (g->fail_alloc)
		return -ENOMEM;
	/* Page 0 stays unused, so that no table is at offset 0. */
	i = find_next_zero_bit(g->used, POOL_PAGES, 1);
	if (i >= POOL_PAGES)
		return -ENOSPC;
	__set_bit(i, g->used);
	g->pages_in_use++;
	g->allocs++;
	memset(g->pool + (u64)i * PG, POISON, PG);
	*offset = (u64)i * PG;
	return 0;
}

static void fake_free(void *priv, u64 offset)
{
	struct fake_gpu *g = priv;
	u32 i = offset / PG;

	KUNIT_ASSERT_TRUE(g->test, !(offset & (PG - 1)) && i < POOL_PAGES);
	KUNIT_ASSERT_TRUE(g->test, __test_and_clear_bit(i, g->used));
	g->pages_in_use--;
	memset(g->pool + offset, POISON, PG);
}

static const struct vdxg_pt_ops fake_ops = {
	.alloc = fake_alloc,
	.free = fake_free,
};

static u64 get64(const u32 *cs)
{
	return cs[0] | ((u64)cs[1] << 32);
}

static u64 *pool_entry(struct fake_gpu *g, u64 table, u32 idx)
{
	return (u64 *)(g->pool + table) + idx;
}

/* A table operand: 4 KiB aligned, inside the pool, the range in 512. */
static bool table_ok(struct fake_gpu *g, u64 table, u32 first, u32 count)
{
	KUNIT_EXPECT_EQ(g->test, table & (PG - 1), 0ull);
	KUNIT_EXPECT_LT(g->test, table, (u64)POOL_PAGES * PG);
	KUNIT_EXPECT_LE(g->test, first + count, 512u);
	/* The builder only writes tables it owns. */
	KUNIT_EXPECT_TRUE(g->test, table < (u64)POOL_PAGES * PG &&
			  test_bit(table / PG, g->used));
	return !(table & (PG - 1)) && table < (u64)POOL_PAGES * PG &&
	       first + count <= 512;
}

static void run_upt(struct fake_gpu *g, const u32 *cs, u32 len)
{
	u64 table = get64(cs + VDXG_PG_UPT_DW_TABLE), base = 0, stride = 0;
	u32 first = cs[VDXG_PG_UPT_DW_FIRST], n = cs[VDXG_PG_UPT_DW_COUNT], i;
	bool gen = cs[VDXG_PG_UPT_DW_FLAGS] & VDXG_PG_UPT_GENERATE;

	KUNIT_EXPECT_EQ(g->test, cs[VDXG_PG_UPT_DW_FLAGS] & ~1u, 0u);
	KUNIT_ASSERT_EQ(g->test, len,
			gen ? (u32)VDXG_PG_UPT_GEN_LEN : VDXG_PG_UPT_LEN(n));
	if (!table_ok(g, table, first, n))
		return;
	/* Only GENERATE has them: a short list ends before STRIDE. */
	if (gen) {
		base = get64(cs + VDXG_PG_UPT_DW_BASE);
		stride = get64(cs + VDXG_PG_UPT_DW_STRIDE);
	}
	for (i = 0; i < n; i++)
		*pool_entry(g, table, first + i) = gen ? base + i * stride :
			get64(cs + VDXG_PG_UPT_DW_ENTRIES + 2 * i);
}

/* Run one paging buffer on the emulated device. */
static void run_buffer(struct fake_gpu *g, const struct vdxg_pagebuf *pb)
{
	struct kunit *test = g->test;
	u32 pos = 0;

	while (pos < pb->used) {
		const u32 *cs = pb->cmd + pos;
		u32 op = VDXG_PG_HDR_OP(cs[0]), len = VDXG_PG_HDR_LEN(cs[0]);

		KUNIT_ASSERT_GT(test, len, 0u);
		KUNIT_ASSERT_LE(test, pos + len, pb->used);
		KUNIT_ASSERT_LT(test, op, (u32)VDXG_PG_NUM_OPS);
		g->ops[op]++;
		switch (op) {
		case VDXG_PG_UPDATE_PAGE_TABLE:
			run_upt(g, cs, len);
			break;
		case VDXG_PG_COPY_PTES:
			KUNIT_ASSERT_EQ(test, len, (u32)VDXG_PG_COPY_PTES_LEN);
			if (table_ok(g, get64(cs + 1), cs[3], cs[7]) &&
			    table_ok(g, get64(cs + 4), cs[6], cs[7]))
				memmove(pool_entry(g, get64(cs + 4), cs[6]),
					pool_entry(g, get64(cs + 1), cs[3]),
					cs[7] * sizeof(u64));
			break;
		case VDXG_PG_FILL:
			KUNIT_ASSERT_EQ(test, len, (u32)VDXG_PG_FILL_LEN);
			KUNIT_ASSERT_LE(test, get64(cs + 3) + cs[2],
					(u64)POOL_PAGES * PG);
			memset32((u32 *)(g->pool + get64(cs + 3)), cs[1],
				 cs[2] / 4);
			break;
		case VDXG_PG_FLUSH_VM_TLB:
			KUNIT_ASSERT_EQ(test, len, (u32)VDXG_PG_FLUSH_VM_TLB_LEN);
			KUNIT_EXPECT_EQ(test, cs[1], (u32)ASID);
			g->flushes++;
			g->flush_va = get64(cs + 3);
			g->flush_size = get64(cs + 5);
			break;
		case VDXG_PG_UPDATE_CONTEXT_ALLOC:
			KUNIT_ASSERT_EQ(test, len, (u32)VDXG_PG_UCA_LEN);
			KUNIT_ASSERT_LT(test, cs[1], (u32)ARRAY_SIZE(g->as_entry));
			g->as_entry[cs[1]] = get64(cs + 2);
			break;
		default:
			KUNIT_FAIL(test, "unexpected paging operation %#x", op);
		}
		pos += len;
		if (g->after_op)
			g->after_op(g);
	}
}

/* Translate @va in address space @as, as the device walks. */
static struct xlate walk(struct fake_gpu *g, u32 as, u64 va)
{
	struct xlate x = { .fault = VDXG_FAULT_VM_NOT_PRESENT };
	u64 e = g->as_entry[as], table;
	int level;

	if (va >= VA_TOP || !(e & VDXG_VM_AS_VALID))
		return x;
	x.fault = VDXG_FAULT_VM_BAD_TABLE;
	if (e & ~(VDXG_VM_AS_ADDR_MASK | VDXG_VM_AS_VALID))
		return x;
	table = e & VDXG_VM_AS_ADDR_MASK;

	for (level = VDXG_VM_LEVELS - 1; level >= 0; level--) {
		u64 pte, off;
		bool leaf;

		if (table >= (u64)POOL_PAGES * PG) {
			x.fault = VDXG_FAULT_VM_BAD_TABLE;
			return x;
		}
		pte = *pool_entry(g, table, VDXG_VM_INDEX(va, level));
		if (!(pte & VDXG_PTE_VALID)) {
			x.fault = VDXG_FAULT_VM_NOT_PRESENT;
			return x;
		}
		if (pte & VDXG_PTE_RESERVED_MASK ||
		    (pte & VDXG_PTE_LARGE && level != 1))
			return x;
		leaf = !level || pte & VDXG_PTE_LARGE ||
		       (level > 1 && pte & VDXG_PTE_ZERO);
		if (!leaf) {
			if (pte & ~(VDXG_PTE_ADDR_MASK | VDXG_PTE_VALID))
				return x;
			table = pte & VDXG_PTE_ADDR_MASK;
			continue;
		}
		if ((pte & VDXG_PTE_SEGMENT_MASK) >
		    VDXG_PTE_SEGMENT(VDXG_PTE_SEGMENT_VRAM))
			return x;
		off = va & (BIT_ULL(VDXG_VM_LEVEL_SHIFT(level)) - 1);
		if (level && pte & VDXG_PTE_ADDR_MASK & (SZ_2M - 1))
			return x;
		x.addr = (pte & VDXG_PTE_ADDR_MASK) + off;
		if (!(pte & VDXG_PTE_ZERO) &&
		    (pte & VDXG_PTE_SEGMENT_MASK) &&
		    x.addr >= VRAM_SIZE)
			return x;
		x.fault = 0;
		x.level = level;
		x.pte = pte;
		return x;
	}
	return x;
}

static void free_vmem(void *p)
{
	vfree(p);
}

/* Zeroed memory that the test frees when it ends; not contiguous. */
static void *test_vzalloc(struct kunit *test, size_t size)
{
	void *p = vzalloc(size);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, free_vmem, p),
			0);
	return p;
}

/* An emulated device with an activated address space ASID. */
static struct pt_ctx *ctx_new(struct kunit *test, u32 buf_bytes)
{
	struct pt_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	struct vdxg_pagebuf pb;
	u64 progress = 0;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->gpu.test = test;
	ctx->gpu.pool = test_vzalloc(test, (u64)POOL_PAGES * PG);
	ctx->gpu.used = kunit_kcalloc(test, BITS_TO_LONGS(POOL_PAGES),
				      sizeof(long), GFP_KERNEL);
	ctx->buf = kunit_kzalloc(test, buf_bytes, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->gpu.used);
	KUNIT_ASSERT_NOT_NULL(test, ctx->buf);
	memset(ctx->gpu.pool, POISON, (u64)POOL_PAGES * PG);
	ctx->buf_bytes = buf_bytes;

	KUNIT_ASSERT_EQ(test, vdxg_pt_vm_init(&ctx->vm, ASID, &fake_ops,
					      &ctx->gpu), 0);
	vdxg_pagebuf_init(&pb, ctx->buf, buf_bytes);
	KUNIT_ASSERT_EQ(test, vdxg_pt_vm_activate(&ctx->vm, &pb, &progress,
						  NULL), 0);
	run_buffer(&ctx->gpu, &pb);
	return ctx;
}

static void ctx_fini(struct pt_ctx *ctx)
{
	vdxg_pt_vm_fini(&ctx->vm);
	KUNIT_EXPECT_EQ(ctx->gpu.test, ctx->gpu.pages_in_use, 0u);
}

/*
 * Build and run buffers until the operation is complete, like the paging
 * queue does; then, the last buffer's fence having "signalled", free the
 * unlinked tables. @src NULL is an unmap.
 */
static int ctx_op(struct pt_ctx *ctx, u64 va, u64 size,
		  const struct vdxg_pt_src *src, u64 flags)
{
	struct vdxg_pt_update upd;
	struct vdxg_pagebuf pb;
	int ret;

	vdxg_pt_update_init(&upd);
	ctx->passes = 0;
	do {
		vdxg_pagebuf_init(&pb, ctx->buf, ctx->buf_bytes);
		if (src)
			ret = vdxg_pt_map(&ctx->vm, &pb, va, size, src, flags,
					  &upd, NULL);
		else
			ret = vdxg_pt_unmap(&ctx->vm, &pb, va, size, &upd,
					    NULL);
		run_buffer(&ctx->gpu, &pb);
		ctx->passes++;
		ctx->total_passes++;
		if (ctx->passes > 1000000)
			return -ELOOP;
	} while (ret == -ENOSPC);
	vdxg_pt_free_deferred(&ctx->vm, &upd.deferred);
	return ret;
}

static int ctx_map_vram(struct pt_ctx *ctx, u64 va, u64 size, u64 base,
			u64 flags)
{
	struct vdxg_pt_src src = { .type = VDXG_PT_SRC_VRAM, .addr = base };

	return ctx_op(ctx, va, size, &src, flags);
}

static int ctx_map_null(struct pt_ctx *ctx, u64 va, u64 size)
{
	struct vdxg_pt_src src = { .type = VDXG_PT_SRC_NULL };

	return ctx_op(ctx, va, size, &src, VDXG_PTE_READ_ONLY);
}

static int ctx_unmap(struct pt_ctx *ctx, u64 va, u64 size)
{
	return ctx_op(ctx, va, size, NULL, 0);
}

/* Scattered pages, so that a wrong index shows. */
static void fill_pages(dma_addr_t *pages, u32 n, dma_addr_t base)
{
	u32 i;

	for (i = 0; i < n; i++)
		pages[i] = base + (u64)((i * 7919ull) % n) * PG;
}

static dma_addr_t *make_pages(struct kunit *test, u32 n, dma_addr_t base)
{
	dma_addr_t *pages = kunit_kcalloc(test, n, sizeof(*pages), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, pages);
	fill_pages(pages, n, base);
	return pages;
}

/* Every @step-th page of [va, va + size) maps VRAM from @base. */
static void expect_vram(struct pt_ctx *ctx, u64 va, u64 size, u64 base,
			u64 flags, u64 step)
{
	struct kunit *test = ctx->gpu.test;
	u64 off;

	for (off = 0; off < size; off += step) {
		struct xlate x = walk(&ctx->gpu, ASID, va + off + 8);

		KUNIT_ASSERT_EQ_MSG(test, x.fault, 0, "va %#llx", va + off);
		KUNIT_EXPECT_EQ(test, x.addr, base + off + 8);
		KUNIT_EXPECT_EQ(test, x.pte & VDXG_PTE_SEGMENT_MASK,
				VDXG_PTE_SEGMENT(VDXG_PTE_SEGMENT_VRAM));
		KUNIT_EXPECT_EQ(test, x.pte & (VDXG_PTE_READ_ONLY |
					       VDXG_PTE_NO_EXEC |
					       VDXG_PTE_ZERO), flags);
	}
}

static void expect_pages(struct pt_ctx *ctx, u64 va, u64 size,
			 const dma_addr_t *pages, u64 flags)
{
	struct kunit *test = ctx->gpu.test;
	u64 i;

	for (i = 0; i < size / PG; i++) {
		struct xlate x = walk(&ctx->gpu, ASID, va + i * PG + 100);

		KUNIT_ASSERT_EQ_MSG(test, x.fault, 0, "va %#llx", va + i * PG);
		KUNIT_EXPECT_EQ(test, x.level, 0u);
		KUNIT_EXPECT_EQ(test, x.addr, (u64)pages[i] + 100);
		KUNIT_EXPECT_EQ(test, x.pte & (VDXG_PTE_SEGMENT_MASK |
					       VDXG_PTE_READ_ONLY |
					       VDXG_PTE_NO_EXEC |
					       VDXG_PTE_ZERO), flags);
	}
}

static void expect_null(struct pt_ctx *ctx, u64 va, u64 size, u64 step)
{
	struct kunit *test = ctx->gpu.test;
	u64 off;

	for (off = 0; off < size; off += step) {
		struct xlate x = walk(&ctx->gpu, ASID, va + off);

		KUNIT_ASSERT_EQ(test, x.fault, 0);
		KUNIT_EXPECT_TRUE(test, x.pte & VDXG_PTE_ZERO);
		KUNIT_EXPECT_TRUE(test, x.pte & VDXG_PTE_READ_ONLY);
	}
}

static void expect_unmapped(struct pt_ctx *ctx, u64 va, u64 size, u64 step)
{
	u64 off;

	for (off = 0; off < size; off += step)
		KUNIT_ASSERT_EQ_MSG(ctx->gpu.test,
				    walk(&ctx->gpu, ASID, va + off).fault,
				    VDXG_FAULT_VM_NOT_PRESENT, "va %#llx",
				    va + off);
}

static u32 leaf_level(struct pt_ctx *ctx, u64 va)
{
	struct xlate x = walk(&ctx->gpu, ASID, va);

	KUNIT_EXPECT_EQ(ctx->gpu.test, x.fault, 0);
	return x.level;
}

/* The root is initialised by the emitted operations, then pointed at. */
static void vdxg_pt_activate(struct kunit *test)
{
	struct vdxg_pagebuf pb;
	u64 progress = 0;
	u32 small[4];
	struct pt_ctx *ctx = ctx_new(test, 4096);

	KUNIT_EXPECT_EQ(test, ctx->gpu.as_entry[ASID],
			ctx->vm.root->offset | VDXG_VM_AS_VALID);
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, 1u);
	/* Poisoned before, every entry now reads invalid. */
	expect_unmapped(ctx, 0, VA_TOP, 1ull << 39);
	KUNIT_EXPECT_EQ(test, walk(&ctx->gpu, ASID, VA_TOP).fault,
			VDXG_FAULT_VM_NOT_PRESENT);

	/* 16 bytes: the GENERATE does not fit, nothing ever will. */
	vdxg_pagebuf_init(&pb, small, sizeof(small));
	KUNIT_EXPECT_EQ(test, vdxg_pt_vm_activate(&ctx->vm, &pb, &progress,
						  NULL), -EINVAL);
	ctx_fini(ctx);
}

static void vdxg_pt_map_vram(struct kunit *test)
{
	const u64 va = 0x7f1234563000ull, size = 5 * PG;
	struct pt_ctx *ctx = ctx_new(test, 4096);

	KUNIT_ASSERT_EQ(test, ctx_map_vram(ctx, va, size, 0x10000000,
					   VDXG_PTE_READ_ONLY), 0);
	KUNIT_EXPECT_EQ(test, ctx->passes, 1u);
	expect_vram(ctx, va, size, 0x10000000, VDXG_PTE_READ_ONLY, PG);
	expect_unmapped(ctx, va - PG, PG, PG);
	expect_unmapped(ctx, va + size, PG, PG);
	/* Root, then one table at each level. */
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, 4u);
	KUNIT_EXPECT_EQ(test, ctx->gpu.pages_in_use, 4u);
	KUNIT_EXPECT_EQ(test, ctx->gpu.flushes, 1u);
	KUNIT_EXPECT_EQ(test, ctx->gpu.flush_va, va);
	KUNIT_EXPECT_EQ(test, ctx->gpu.flush_size, size);
	/* Three tables (two ops each), the entries (one GENERATE). */
	KUNIT_EXPECT_EQ(test, ctx->gpu.ops[VDXG_PG_UPDATE_PAGE_TABLE], 1u + 7u);

	/* A mapping across a level-1 and a level-0 table boundary. */
	KUNIT_ASSERT_EQ(test, ctx_map_vram(ctx, 0x3fff0000, 0x40000,
					   0x20000000, VDXG_PTE_NO_EXEC), 0);
	expect_vram(ctx, 0x3fff0000, 0x40000, 0x20000000, VDXG_PTE_NO_EXEC,
		    PG);
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, 4u + 5u);
	ctx_fini(ctx);
}

static void vdxg_pt_map_page_list(struct kunit *test)
{
	const u32 n = 700;
	dma_addr_t *pages = make_pages(test, n, 0x180000000ull);
	struct vdxg_pt_src src = {
		.type = VDXG_PT_SRC_PAGES, .pages = pages, .npages = n,
		.addr = 3 * PG,
	};
	const u64 va = 0x100000000ull + 0x1ff000;
	struct pt_ctx *ctx = ctx_new(test, 4096);

	KUNIT_ASSERT_EQ(test, ctx_op(ctx, va, (n - 3) * PG, &src,
				     VDXG_PTE_NO_EXEC), 0);
	expect_pages(ctx, va, (n - 3) * PG, pages + 3, VDXG_PTE_NO_EXEC |
		     VDXG_PTE_SEGMENT(VDXG_PTE_SEGMENT_SYSTEM));
	expect_unmapped(ctx, va - PG, PG, PG);
	expect_unmapped(ctx, va + (n - 3) * PG, PG, PG);
	/* 697 entries do not fit in 4 KiB with the tables: two buffers. */
	KUNIT_EXPECT_EQ(test, ctx->passes, 2u);
	ctx_fini(ctx);
}

/* Null ranges: ZERO entries, 2 MiB leaves where the range allows. */
static void vdxg_pt_map_null(struct kunit *test)
{
	const u64 va = 0x40000000ull - 3 * PG, size = SZ_4M + 6 * PG;
	struct pt_ctx *ctx = ctx_new(test, 4096);

	KUNIT_ASSERT_EQ(test, ctx_map_null(ctx, va, size), 0);
	expect_null(ctx, va, size, PG);
	expect_unmapped(ctx, va - PG, PG, PG);
	expect_unmapped(ctx, va + size, PG, PG);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, va), 0u);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, 0x40000000), 1u);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, 0x40200000), 1u);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, 0x40400000), 0u);

	/* Cutting a null 2 MiB leaf keeps the rest null. */
	KUNIT_ASSERT_EQ(test, ctx_unmap(ctx, 0x40100000, PG), 0);
	expect_unmapped(ctx, 0x40100000, PG, PG);
	expect_null(ctx, 0x40000000, 0x100000, PG);
	expect_null(ctx, 0x40101000, 0x2ff000, PG);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, 0x40000000), 0u);
	ctx_fini(ctx);
}

static void vdxg_pt_large_promotion(struct kunit *test)
{
	const u32 n = 1024;
	dma_addr_t *pages = kunit_kcalloc(test, n, sizeof(*pages), GFP_KERNEL);
	struct vdxg_pt_src src = {
		.type = VDXG_PT_SRC_PAGES, .pages = pages, .npages = n,
	};
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, pages);
	struct pt_ctx *ctx = ctx_new(test, 4096);

	/* Aligned VA and VRAM: three 2 MiB leaves, no level-0 table. */
	KUNIT_ASSERT_EQ(test, ctx_map_vram(ctx, 0x80200000, 3 * SZ_2M,
					   0x40000000, 0), 0);
	expect_vram(ctx, 0x80200000, 3 * SZ_2M, 0x40000000, 0, 0x1f000);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, leaf_level(ctx, 0x80200000 + i * SZ_2M),
				1u);
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, 3u);

	/* VRAM only 4 KiB aligned: level-0 entries. */
	KUNIT_ASSERT_EQ(test, ctx_map_vram(ctx, 0xc0000000, SZ_2M,
					   0x40001000, 0), 0);
	expect_vram(ctx, 0xc0000000, SZ_2M, 0x40001000, 0, PG);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, 0xc0000000), 0u);

	/* Remapping a level-0 range with an aligned source promotes it. */
	KUNIT_ASSERT_EQ(test, ctx_map_vram(ctx, 0xc0000000, SZ_2M,
					   0x40400000, 0), 0);
	expect_vram(ctx, 0xc0000000, SZ_2M, 0x40400000, 0, PG);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, 0xc0000000), 1u);
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, 4u);
	KUNIT_EXPECT_EQ(test, ctx->gpu.pages_in_use, 4u);

	/* System pages: contiguous and aligned for the first 2 MiB only. */
	for (i = 0; i < n; i++)
		pages[i] = 0x200000000ull + (u64)i * PG;
	pages[700] = 0x300000000ull;
	KUNIT_ASSERT_EQ(test, ctx_op(ctx, 0x100000000ull, n * PG, &src, 0),
			0);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, 0x100000000ull), 1u);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, 0x100200000ull), 0u);
	expect_pages(ctx, 0x100200000ull, SZ_2M, pages + 512, 0);
	KUNIT_EXPECT_EQ(test, walk(&ctx->gpu, ASID, 0x100123456ull).addr,
			0x200123456ull);
	ctx_fini(ctx);
}

static void expect_join(struct kunit *test, u64 start, u64 end, u64 lo,
			u64 hi, u64 want_lo, u64 want_hi)
{
	vdxg_pt_join_range(start, end, &lo, &hi);
	KUNIT_EXPECT_EQ(test, lo, want_lo);
	KUNIT_EXPECT_EQ(test, hi, want_hi);
}

/*
 * A window split by a partial unmap, its hole mapped again from the same
 * source: writing the range vdxg_pt_join_range() gives makes it a 2 MiB
 * page again, and its table goes.
 */
static void vdxg_pt_join(struct kunit *test)
{
	const u64 va = 0x40000000, vram = 0x10000000;
	struct pt_ctx *ctx = ctx_new(test, 4096);
	u64 lo = va + SZ_1M, hi = lo + SZ_64K;
	u32 tables;

	/* Grown to a window the joined mapping covers whole... */
	expect_join(test, va, va + SZ_4M, lo, hi, va, va + SZ_2M);
	/* ...not to one it covers in part. */
	expect_join(test, va + SZ_512K, va + SZ_4M, lo, hi, lo, hi);
	expect_join(test, va, va + SZ_1M + SZ_512K, lo, hi, lo, hi);
	/* Each end in its own window. */
	expect_join(test, va, va + SZ_4M, lo, va + SZ_2M + SZ_1M, va,
		    va + SZ_4M);
	/* Aligned ends stay. */
	expect_join(test, va, va + SZ_8M, va + SZ_2M, va + SZ_4M, va + SZ_2M,
		    va + SZ_4M);

	KUNIT_ASSERT_EQ(test, ctx_map_vram(ctx, va, SZ_4M, vram, 0), 0);
	tables = ctx->vm.tables;
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, va), 1u);
	KUNIT_ASSERT_EQ(test, ctx_unmap(ctx, lo, hi - lo), 0);
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, tables + 1);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, va), 0u);
	expect_unmapped(ctx, lo, hi - lo, PG);

	vdxg_pt_join_range(va, va + SZ_4M, &lo, &hi);
	KUNIT_ASSERT_EQ(test, ctx_map_vram(ctx, lo, hi - lo, vram + (lo - va),
					   0), 0);
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, tables);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, va + SZ_1M), 1u);
	expect_vram(ctx, va, SZ_4M, vram, 0, 0x1f000);
	ctx_fini(ctx);
}

/* A partial unmap splits a 2 MiB leaf; unmapping the rest frees tables. */
static void vdxg_pt_large_split(struct kunit *test)
{
	const u64 va = 0x200000000ull, vram = 0x80000000ull;
	struct pt_ctx *ctx = ctx_new(test, 4096);

	KUNIT_ASSERT_EQ(test, ctx_map_vram(ctx, va, SZ_4M, vram,
					   VDXG_PTE_READ_ONLY), 0);
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, 3u);

	KUNIT_ASSERT_EQ(test, ctx_unmap(ctx, va + 0x1ff000, 2 * PG), 0);
	expect_unmapped(ctx, va + 0x1ff000, 2 * PG, PG);
	expect_vram(ctx, va, 0x1ff000, vram, VDXG_PTE_READ_ONLY, PG);
	expect_vram(ctx, va + 0x201000, 0x1ff000, vram + 0x201000,
		    VDXG_PTE_READ_ONLY, PG);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, va), 0u);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, va + SZ_4M - PG), 0u);
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, 5u);
	KUNIT_EXPECT_EQ(test, ctx->gpu.flush_va, va + 0x1ff000);
	KUNIT_EXPECT_EQ(test, ctx->gpu.flush_size, 2ull * PG);

	/* Mapping part of a leaf splits it too. */
	KUNIT_ASSERT_EQ(test, ctx_map_vram(ctx, va + SZ_4M, SZ_2M, vram + SZ_4M,
					   0), 0);
	KUNIT_ASSERT_EQ(test, ctx_map_vram(ctx, va + SZ_4M + PG, PG, 0x1000,
					   0), 0);
	expect_vram(ctx, va + SZ_4M, PG, vram + SZ_4M, 0, PG);
	expect_vram(ctx, va + SZ_4M + PG, PG, 0x1000, 0, PG);
	expect_vram(ctx, va + SZ_4M + 2 * PG, SZ_2M - 2 * PG,
		    vram + SZ_4M + 2 * PG, 0, PG);

	/* Unmap everything: back to the root alone. */
	KUNIT_ASSERT_EQ(test, ctx_unmap(ctx, va, 3 * SZ_2M), 0);
	expect_unmapped(ctx, va, 3 * SZ_2M, PG);
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, 1u);
	KUNIT_EXPECT_EQ(test, ctx->gpu.pages_in_use, 1u);
	ctx_fini(ctx);
}

/* Map, partly unmap, remap over the hole and the mapping around it. */
static void vdxg_pt_remap(struct kunit *test)
{
	dma_addr_t *pages = make_pages(test, 16, 0x900000000ull);
	struct vdxg_pt_src src = {
		.type = VDXG_PT_SRC_PAGES, .pages = pages, .npages = 16,
	};
	const u64 va = 0x10000000;
	struct pt_ctx *ctx = ctx_new(test, 4096);

	KUNIT_ASSERT_EQ(test, ctx_map_vram(ctx, va, 64 * PG, 0x100000, 0), 0);
	KUNIT_ASSERT_EQ(test, ctx_unmap(ctx, va + 10 * PG, 10 * PG), 0);
	expect_vram(ctx, va, 10 * PG, 0x100000, 0, PG);
	expect_unmapped(ctx, va + 10 * PG, 10 * PG, PG);
	expect_vram(ctx, va + 20 * PG, 44 * PG, 0x100000 + 20 * PG, 0, PG);

	KUNIT_ASSERT_EQ(test, ctx_op(ctx, va + 15 * PG, 16 * PG, &src,
				     VDXG_PTE_READ_ONLY), 0);
	expect_vram(ctx, va, 10 * PG, 0x100000, 0, PG);
	expect_unmapped(ctx, va + 10 * PG, 5 * PG, PG);
	expect_pages(ctx, va + 15 * PG, 16 * PG, pages, VDXG_PTE_READ_ONLY);
	expect_vram(ctx, va + 31 * PG, 33 * PG, 0x100000 + 31 * PG, 0, PG);

	/* Unmapping what is not mapped changes nothing, frees nothing. */
	KUNIT_ASSERT_EQ(test, ctx_unmap(ctx, 0x7000000000ull, SZ_1G), 0);
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, 4u);
	KUNIT_EXPECT_EQ(test, ctx->gpu.ops[VDXG_PG_FLUSH_VM_TLB], 4u);

	KUNIT_ASSERT_EQ(test, ctx_unmap(ctx, va, 64 * PG), 0);
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, 1u);
	ctx_fini(ctx);
}

/*
 * Invalid entries fault but keep their tables: a swapped-out object's
 * range is mapped again in place, with no table allocated.
 */
static void vdxg_pt_invalidate(struct kunit *test)
{
	dma_addr_t *pages = make_pages(test, 1024, 0x900000000ull);
	struct vdxg_pt_src src = {
		.type = VDXG_PT_SRC_PAGES, .pages = pages, .npages = 1024,
	};
	/* From the second page: not 2 MiB aligned, so 4 KiB entries. */
	struct vdxg_pt_src src4k = {
		.type = VDXG_PT_SRC_PAGES, .pages = pages, .npages = 1024,
		.addr = PG,
	};
	struct vdxg_pt_src inval = { .type = VDXG_PT_SRC_INVALID };
	const u64 va = 0x40000000, big = 0x80000000;
	struct pt_ctx *ctx = ctx_new(test, 4096);
	u32 tables, in_use;

	KUNIT_ASSERT_EQ(test, ctx_op(ctx, va, 1024 * PG, &src, 0), 0);
	tables = ctx->vm.tables;
	in_use = ctx->gpu.pages_in_use;

	KUNIT_ASSERT_EQ(test, ctx_op(ctx, va + PG, 1022 * PG, &inval,
				     VDXG_PTE_READ_ONLY), 0);
	expect_pages(ctx, va, PG, pages, 0);
	expect_unmapped(ctx, va + PG, 1022 * PG, PG);
	expect_pages(ctx, va + 1023 * PG, PG, pages + 1023, 0);
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, tables);
	KUNIT_EXPECT_EQ(test, ctx->gpu.pages_in_use, in_use);

	/* Back in place: still no table allocated. */
	KUNIT_ASSERT_EQ(test, ctx_op(ctx, va, 1024 * PG, &src, 0), 0);
	expect_pages(ctx, va, 1024 * PG, pages, 0);
	KUNIT_EXPECT_EQ(test, ctx->gpu.pages_in_use, in_use);

	/*
	 * A 2 MiB leaf goes invalid in place: no table allocated (a move
	 * that may not wait for the VM's binds takes none). Mapped again as
	 * a leaf: none; as 4 KiB pages: one, of invalid entries at first.
	 */
	KUNIT_ASSERT_EQ(test, ctx_map_vram(ctx, big, SZ_2M, 0x200000, 0), 0);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, big), 1u);
	tables = ctx->vm.tables;
	KUNIT_ASSERT_EQ(test, ctx_op(ctx, big, SZ_2M, &inval, 0), 0);
	expect_unmapped(ctx, big, SZ_2M, PG);
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, tables);
	KUNIT_ASSERT_EQ(test, ctx_op(ctx, big, SZ_2M, &inval, 0), 0);
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, tables);
	KUNIT_ASSERT_EQ(test, ctx_map_vram(ctx, big, SZ_2M, 0x400000, 0), 0);
	expect_vram(ctx, big, SZ_2M, 0x400000, 0, PG);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, big), 1u);
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, tables);
	KUNIT_ASSERT_EQ(test, ctx_op(ctx, big, SZ_2M, &inval, 0), 0);
	KUNIT_ASSERT_EQ(test, ctx_op(ctx, big, SZ_2M, &src4k, 0), 0);
	expect_pages(ctx, big, SZ_2M, pages + 1, 0);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, big), 0u);
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, tables + 1);
	/*
	 * Cut: a leaf made invalid is split into invalid pages that still
	 * count as used: unmapping one page frees no table, and the rest
	 * maps again with none allocated.
	 */
	KUNIT_ASSERT_EQ(test, ctx_map_vram(ctx, big, SZ_2M, 0x400000, 0), 0);
	tables = ctx->vm.tables;
	KUNIT_ASSERT_EQ(test, ctx_op(ctx, big, SZ_2M, &inval, 0), 0);
	KUNIT_ASSERT_EQ(test, ctx_unmap(ctx, big, PG), 0);
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, tables + 1);
	in_use = ctx->gpu.pages_in_use;
	KUNIT_ASSERT_EQ(test, ctx_map_vram(ctx, big + PG, SZ_2M - PG,
					   0x600000, 0), 0);
	KUNIT_EXPECT_EQ(test, ctx->gpu.pages_in_use, in_use);
	expect_unmapped(ctx, big, PG, PG);
	expect_vram(ctx, big + PG, SZ_2M - PG, 0x600000, 0, PG);

	/* Unmapping frees them like any other. */
	KUNIT_ASSERT_EQ(test, ctx_op(ctx, va, 1024 * PG, &inval, 0), 0);
	KUNIT_ASSERT_EQ(test, ctx_unmap(ctx, va, 1024 * PG), 0);
	KUNIT_ASSERT_EQ(test, ctx_unmap(ctx, big, SZ_2M), 0);
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, 1u);
	ctx_fini(ctx);
}

/*
 * Tables left empty are unlinked, and freed only with the deferred list:
 * until then the device may still walk them.
 */
static void vdxg_pt_free_empty(struct kunit *test)
{
	struct vdxg_pt_update upd;
	struct vdxg_pagebuf pb;
	u32 in_use;
	struct pt_ctx *ctx = ctx_new(test, 4096);

	KUNIT_ASSERT_EQ(test, ctx_map_vram(ctx, 0x1000, 2 * PG, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, ctx_map_vram(ctx, 0x8000000000ull, PG, 0, 0),
			0);
	KUNIT_ASSERT_EQ(test, ctx_map_vram(ctx, 0x8000400000ull, PG, 0, 0),
			0);
	/* Root; level 2, 1, 0 for the first; 2, 1 and two 0 for the rest. */
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, 8u);
	KUNIT_EXPECT_EQ(test, ctx->gpu.pages_in_use, 8u);

	/* One page of two: its table stays. */
	KUNIT_ASSERT_EQ(test, ctx_unmap(ctx, 0x1000, PG), 0);
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, 8u);

	vdxg_pt_update_init(&upd);
	vdxg_pagebuf_init(&pb, ctx->buf, ctx->buf_bytes);
	KUNIT_ASSERT_EQ(test, vdxg_pt_unmap(&ctx->vm, &pb, 0x2000, PG, &upd,
					    NULL), 0);
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, 5u);
	KUNIT_EXPECT_EQ(test, list_count_nodes(&upd.deferred), 3u);
	/* Not freed before the fence. */
	KUNIT_EXPECT_EQ(test, ctx->gpu.pages_in_use, 8u);
	run_buffer(&ctx->gpu, &pb);
	in_use = ctx->gpu.pages_in_use;
	vdxg_pt_free_deferred(&ctx->vm, &upd.deferred);
	KUNIT_EXPECT_EQ(test, ctx->gpu.pages_in_use, in_use - 3);
	KUNIT_EXPECT_TRUE(test, list_empty(&upd.deferred));
	/* Freed pages are poisoned: the rest still walks cleanly. */
	expect_unmapped(ctx, 0, SZ_4M, PG);
	expect_vram(ctx, 0x8000000000ull, PG, 0, 0, PG);
	expect_vram(ctx, 0x8000400000ull, PG, 0, 0, PG);

	/* A whole-range unmap drops the subtree in one entry write. */
	KUNIT_ASSERT_EQ(test, ctx_unmap(ctx, 0x8000000000ull, 1ull << 39), 0);
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, 1u);
	KUNIT_EXPECT_EQ(test, ctx->gpu.pages_in_use, 1u);
	ctx_fini(ctx);
}

/* A scenario of maps and unmaps, on @ctx-> */
static void scenario(struct kunit *test, struct pt_ctx *ctx,
		     const dma_addr_t *pages, u32 npages)
{
	struct vdxg_pt_src src = {
		.type = VDXG_PT_SRC_PAGES, .pages = pages, .npages = npages,
	};

	KUNIT_ASSERT_EQ(test, ctx_map_vram(ctx, 0x3fe00000, SZ_8M, 0x40000000,
					   0), 0);
	KUNIT_ASSERT_EQ(test, ctx_op(ctx, 0x7fff000000ull - 100 * PG,
				     npages * PG, &src, VDXG_PTE_NO_EXEC), 0);
	KUNIT_ASSERT_EQ(test, ctx_map_null(ctx, 0x123400000ull, SZ_4M + PG),
			0);
	KUNIT_ASSERT_EQ(test, ctx_unmap(ctx, 0x3ff00000, SZ_2M + 5 * PG), 0);
	KUNIT_ASSERT_EQ(test, ctx_unmap(ctx, 0x7fff000000ull, 64 * PG), 0);
	KUNIT_ASSERT_EQ(test, ctx_map_vram(ctx, 0x40000000 + 7 * PG,
					   SZ_2M, 0x1000, VDXG_PTE_READ_ONLY),
			0);
	KUNIT_ASSERT_EQ(test, ctx_unmap(ctx, 0x123400000ull, SZ_2M), 0);
}

struct between_check {
	u64 va;
	u64 size;
};

/*
 * After any operation, within a buffer or between two, no walk may meet a
 * malformed (uninitialised, half-built or freed) table.
 */
static void check_between(struct fake_gpu *g)
{
	static const struct between_check ranges[] = {
		{ 0x3fe00000, SZ_8M + SZ_4M },
		{ 0x7fff000000ull - 100 * PG, 1200 * PG },
		{ 0x123400000ull, SZ_4M + PG },
	};
	u32 i;
	u64 off;

	for (i = 0; i < ARRAY_SIZE(ranges); i++)
		for (off = 0; off < ranges[i].size; off += PG)
			KUNIT_ASSERT_NE(g->test,
					walk(g, ASID, ranges[i].va + off).fault,
					VDXG_FAULT_VM_BAD_TABLE);
}

/*
 * Multipass: the same operations through tiny buffers give the same tables,
 * entry for entry and page for page, as through one large buffer, and no
 * state between two buffers is malformed.
 */
static void vdxg_pt_multipass(struct kunit *test)
{
	const u32 npages = 1000;
	static const u32 sizes[] = { VDXG_PT_MIN_BUF_BYTES, 100, 500 };
	dma_addr_t *pages = make_pages(test, npages, 0x400000000ull);
	struct pt_ctx *big = ctx_new(test, SZ_64K), *small;
	u32 i;

	scenario(test, big, pages, npages);
	KUNIT_EXPECT_EQ(test, big->total_passes, 7u);

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		small = ctx_new(test, sizes[i]);
		small->gpu.after_op = check_between;
		scenario(test, small, pages, npages);
		KUNIT_EXPECT_GT(test, small->total_passes,
				big->total_passes + 10);
		KUNIT_EXPECT_EQ(test, small->vm.tables, big->vm.tables);
		KUNIT_EXPECT_EQ(test, small->gpu.allocs, big->gpu.allocs);
		KUNIT_EXPECT_EQ(test, small->gpu.pages_in_use,
				big->gpu.pages_in_use);
		KUNIT_EXPECT_EQ(test, memcmp(small->gpu.pool, big->gpu.pool,
					     (u64)POOL_PAGES * PG), 0);
		ctx_fini(small);
	}

	expect_unmapped(big, 0x3ff00000, 0x107000, PG);
	expect_vram(big, 0x3fe00000, SZ_1M, 0x40000000, 0, PG);
	expect_vram(big, 0x40000000 + 7 * PG, SZ_2M, 0x1000,
		    VDXG_PTE_READ_ONLY, PG);
	expect_pages(big, 0x7fff000000ull + 64 * PG, (npages - 164) * PG,
		     pages + 164, VDXG_PTE_NO_EXEC);
	expect_null(big, 0x123600000ull, SZ_2M + PG, PG);
	ctx_fini(big);
}

/* A 1 GiB bind takes the predicted number of paging buffers. */
static void vdxg_pt_predict_1g(struct kunit *test)
{
	const u32 npages = SZ_1G / PG;
	dma_addr_t *pages = test_vzalloc(test, npages * sizeof(*pages));
	struct vdxg_pt_src src = {
		.type = VDXG_PT_SRC_PAGES, .pages = pages, .npages = npages,
	};
	const u64 va = 0x7f40000000ull;
	int predicted;
	struct pt_ctx *ctx = ctx_new(test, SZ_64K);

	fill_pages(pages, npages, 0x1000000000ull);
	predicted = vdxg_pt_bind_buffers(va, SZ_1G, SZ_4K, SZ_64K);
	KUNIT_ASSERT_EQ(test, ctx_op(ctx, va, SZ_1G, &src, 0), 0);
	KUNIT_EXPECT_EQ(test, (int)ctx->passes, predicted);
	/* 512 tables of 512 entries, 1048 dwords each: 33 buffers of 64 KiB. */
	KUNIT_EXPECT_EQ(test, predicted, 33);
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, 3u + 512u);
	expect_pages(ctx, va, SZ_2M, pages, 0);
	expect_pages(ctx, va + SZ_1G - SZ_2M, SZ_2M, pages + npages - 512, 0);
	ctx_fini(ctx);
}

/* The prediction against the builder, for other shapes and buffers. */
static void vdxg_pt_predict_shapes(struct kunit *test)
{
	static const struct {
		u64 va, size, page_size;
		u32 buf;
	} cases[] = {
		{ 0x7f40000000ull, SZ_1G, SZ_2M, 80 },
		{ 0x7fc0200000ull, 5ull << 30, SZ_2M, 128 },
		{ 0x7fffe00000ull, SZ_4M, SZ_2M, 72 },
		{ 0x3ff000, 300 * PG, SZ_4K, 200 },
		{ 0x7ffff00000ull, SZ_4M, SZ_4K, 4096 },
	};
	const u32 npages = SZ_4M / PG;
	dma_addr_t *pages = make_pages(test, npages, 0x1000000000ull);
	u32 i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct vdxg_pt_src src = { .type = VDXG_PT_SRC_VRAM };
		int predicted = vdxg_pt_bind_buffers(cases[i].va, cases[i].size,
						     cases[i].page_size,
						     cases[i].buf);
		struct pt_ctx *ctx = ctx_new(test, cases[i].buf);

		if (cases[i].page_size == SZ_4K) {
			src.type = VDXG_PT_SRC_PAGES;
			src.pages = pages;
			src.npages = npages;
		}
		KUNIT_ASSERT_EQ(test, ctx_op(ctx, cases[i].va, cases[i].size,
					     &src, 0), 0);
		KUNIT_EXPECT_EQ_MSG(test, (int)ctx->passes, predicted,
				    "case %u", i);
		ctx_fini(ctx);
	}
}

static void vdxg_pt_bad_args(struct kunit *test)
{
	dma_addr_t *pages = make_pages(test, 4, 0x10000);
	struct vdxg_pt_src vram = { .type = VDXG_PT_SRC_VRAM };
	struct vdxg_pt_src list = {
		.type = VDXG_PT_SRC_PAGES, .pages = pages, .npages = 4,
	};
	struct vdxg_pt_update upd;
	struct vdxg_pagebuf pb;
	u32 tiny[18];
	struct pt_ctx *ctx = ctx_new(test, 4096);

	vdxg_pagebuf_init(&pb, ctx->buf, ctx->buf_bytes);
#define MAP(va, size, src, flags) \
	(vdxg_pt_update_init(&upd), \
	 vdxg_pt_map(&ctx->vm, &pb, va, size, src, flags, &upd, NULL))
#define UNMAP(va, size) \
	(vdxg_pt_update_init(&upd), \
	 vdxg_pt_unmap(&ctx->vm, &pb, va, size, &upd, NULL))
	KUNIT_EXPECT_EQ(test, MAP(0x1800, PG, &vram, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, MAP(0x1000, 100, &vram, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, MAP(0x1000, 0, &vram, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, MAP(VA_TOP, PG, &vram, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, MAP(VA_TOP - PG, 2 * PG, &vram, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, MAP(PG, U64_MAX - 4095, &vram, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, MAP(0, PG, &vram, VDXG_PTE_LARGE), -EINVAL);
	KUNIT_EXPECT_EQ(test, MAP(0, PG, &vram, VDXG_PTE_VALID), -EINVAL);
	KUNIT_EXPECT_EQ(test, MAP(0, PG, &vram, BIT_ULL(5)), -EINVAL);
	KUNIT_EXPECT_EQ(test, MAP(0, PG, NULL, 0), -EINVAL);
	vram.addr = 0x800;
	KUNIT_EXPECT_EQ(test, MAP(0, PG, &vram, 0), -EINVAL);
	vram.addr = VA_TOP - PG;
	KUNIT_EXPECT_EQ(test, MAP(0, 2 * PG, &vram, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, MAP(0, 5 * PG, &list, 0), -EINVAL);
	list.addr = 2 * PG;
	KUNIT_EXPECT_EQ(test, MAP(0, 3 * PG, &list, 0), -EINVAL);
	list.addr = 8;
	KUNIT_EXPECT_EQ(test, MAP(0, PG, &list, 0), -EINVAL);
	list.addr = 0;
	pages[2] |= 0x10;
	KUNIT_EXPECT_EQ(test, MAP(0, 4 * PG, &list, 0), -EINVAL);
	pages[2] = 1ull << 48;
	KUNIT_EXPECT_EQ(test, MAP(0, 4 * PG, &list, 0), -EINVAL);
	list.pages = NULL;
	KUNIT_EXPECT_EQ(test, MAP(0, PG, &list, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, UNMAP(0x1001, PG), -EINVAL);
	KUNIT_EXPECT_EQ(test, UNMAP(0, VA_TOP + PG), -EINVAL);
	KUNIT_EXPECT_EQ(test, UNMAP(VA_TOP, PG), -EINVAL);
	KUNIT_EXPECT_EQ(test, pb.used, 0u);
	KUNIT_EXPECT_EQ(test, ctx->gpu.allocs, 1u);

	/* A call that resumes with another range. */
	vram.addr = 0;
	vdxg_pagebuf_init(&pb, tiny, sizeof(tiny));
	KUNIT_EXPECT_EQ(test, MAP(0, PG, &vram, 0), -ENOSPC);
	run_buffer(&ctx->gpu, &pb);
	vdxg_pagebuf_init(&pb, ctx->buf, ctx->buf_bytes);
	KUNIT_EXPECT_EQ(test, vdxg_pt_map(&ctx->vm, &pb, PG, PG, &vram, 0, &upd,
					  NULL), -EINVAL);
	/* A buffer that cannot hold a table's creation. */
	vdxg_pagebuf_init(&pb, tiny, sizeof(tiny) - 4);
	KUNIT_EXPECT_EQ(test, MAP(0, PG, &vram, 0), -EINVAL);
#undef MAP
#undef UNMAP

	/* An allocator failure. */
	ctx->gpu.fail_alloc = true;
	KUNIT_EXPECT_EQ(test, ctx_map_vram(ctx, 0, PG, 0, 0), -ENOMEM);
	ctx->gpu.fail_alloc = false;

	KUNIT_EXPECT_EQ(test, vdxg_pt_bind_buffers(0x1000, SZ_2M, SZ_2M,
						   4096), -EINVAL);
	KUNIT_EXPECT_EQ(test, vdxg_pt_bind_buffers(0, SZ_2M, SZ_64K, 4096),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vdxg_pt_bind_buffers(0, SZ_2M, SZ_4K, 64),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vdxg_pt_bind_buffers(VA_TOP - SZ_2M, SZ_4M,
						   SZ_2M, 4096), -EINVAL);
	KUNIT_EXPECT_EQ(test, vdxg_pt_vm_init(&ctx->vm, VDXG_VM_MAX_AS,
					      &fake_ops, &ctx->gpu), -EINVAL);
	ctx_fini(ctx);
}

/* The interpreter's COPY and FILL, as other users of the tables may emit. */
static void vdxg_pt_copy_entries(struct kunit *test)
{
	struct vdxg_pagebuf pb;
	u64 l0, fresh, progress = 0;
	struct vdxg_pt *pt;
	struct pt_ctx *ctx = ctx_new(test, 4096);

	KUNIT_ASSERT_EQ(test, ctx_map_vram(ctx, 0x200000, 8 * PG, 0x5000000,
					   0), 0);
	pt = ctx->vm.root->child[0]->child[0]->child[1];
	KUNIT_ASSERT_NOT_NULL(test, pt);
	l0 = pt->offset;
	KUNIT_ASSERT_EQ(test, fake_alloc(&ctx->gpu, &fresh), 0);

	/* Clear a table with FILL, copy four entries into it, link it. */
	vdxg_pagebuf_init(&pb, ctx->buf, ctx->buf_bytes);
	KUNIT_ASSERT_EQ(test, vdxg_pg_fill(&pb, fresh, PG, 0, &progress, NULL),
			0);
	KUNIT_ASSERT_EQ(test, vdxg_pg_copy_ptes(&pb, l0, 2, fresh, 100, 4,
						NULL), 0);
	KUNIT_ASSERT_EQ(test, vdxg_pg_update_pt_gen(&pb, ctx->vm.root->child[0]
						    ->child[0]->offset, 2, 1,
						    fresh | VDXG_PTE_VALID, 0,
						    NULL), 0);
	run_buffer(&ctx->gpu, &pb);
	expect_vram(ctx, 0x400000 + 100 * PG, 4 * PG, 0x5000000 + 2 * PG, 0,
		    PG);
	expect_unmapped(ctx, 0x400000, 100 * PG, PG);
	fake_free(&ctx->gpu, fresh);
	ctx_fini(ctx);
}

/*
 * The shadow against the tables in emulated VRAM: every valid bit is a
 * VALID entry and back, directory entries name the shadow's tables, 2 MiB
 * leaves are the shadow's, and no table but the root is empty.
 */
static u32 check_shadow(struct fake_gpu *g, const struct vdxg_pt *pt)
{
	struct kunit *test = g->test;
	u32 i, tables = 1;

	KUNIT_EXPECT_EQ(test, (u32)pt->nvalid,
			(u32)bitmap_weight(pt->valid, 512));
	for (i = 0; i < 512; i++) {
		u64 pte = *pool_entry(g, pt->offset, i);
		const struct vdxg_pt *child = pt->child ? pt->child[i] : NULL;

		KUNIT_ASSERT_EQ(test, !!(pte & VDXG_PTE_VALID),
				test_bit(i, pt->valid));
		if (pt->large && pt->large[i]) {
			KUNIT_EXPECT_EQ(test, pte, pt->large[i]);
			KUNIT_EXPECT_NULL(test, child);
		} else if (child) {
			KUNIT_EXPECT_EQ(test, pte, child->offset | VDXG_PTE_VALID);
			KUNIT_EXPECT_EQ(test, (u32)child->level, pt->level - 1u);
			KUNIT_EXPECT_GT(test, (u32)child->nvalid, 0u);
			tables += check_shadow(g, child);
		} else if (pt->level) {
			KUNIT_EXPECT_FALSE(test, pte & VDXG_PTE_VALID);
		}
	}
	return tables;
}

/* What one page of the random test's window maps. */
struct page_model {
	u8 type;	/* 0: nothing, else VDXG_PT_SRC_* + 1 */
	u64 addr;	/* VRAM offset or bus address */
	u64 flags;
};

#define WIN_VA		0x3fc00000ull	/* 4 MiB below 1 GiB */
#define WIN_PAGES	2048		/* 8 MiB */

static u32 rnd(struct rnd_state *r, u32 n)
{
	return prandom_u32_state(r) % n;
}

/* A page list of 4 MiB: the first half contiguous and 2 MiB aligned. */
static dma_addr_t *random_pages(struct kunit *test, struct rnd_state *r)
{
	dma_addr_t *pages = make_pages(test, WIN_PAGES, 0x2000000000ull);
	u32 i;

	for (i = 0; i < WIN_PAGES / 2; i++)
		pages[i] = 0x3000000000ull + (u64)i * PG;
	pages[rnd(r, WIN_PAGES / 2)] += SZ_1G;	/* one break, somewhere */
	return pages;
}

/* One random map or unmap on the window, applied to the model too. */
static void random_op(struct kunit *test, struct pt_ctx *ctx,
		      struct rnd_state *r, struct page_model *model,
		      const dma_addr_t *pages)
{
	static const u64 flag_set[] = {
		0, VDXG_PTE_READ_ONLY, VDXG_PTE_NO_EXEC,
		VDXG_PTE_READ_ONLY | VDXG_PTE_NO_EXEC,
	};
	struct vdxg_pt_src src = { .pages = pages, .npages = WIN_PAGES };
	u32 first, n, i, kind = rnd(r, 5);
	u64 flags = flag_set[rnd(r, 4)];

	/* Half the ranges on 2 MiB boundaries, to meet the 2 MiB leaves. */
	if (rnd(r, 2)) {
		first = rnd(r, 4) * 512;
		n = (1 + rnd(r, 4 - first / 512)) * 512;
	} else {
		first = rnd(r, WIN_PAGES);
		n = 1 + rnd(r, min(WIN_PAGES - first, 700u));
	}

	switch (kind) {
	case 0:
	case 1:
		KUNIT_ASSERT_EQ(test, ctx_unmap(ctx, WIN_VA + first * PG,
						n * PG), 0);
		memset(model + first, 0, n * sizeof(*model));
		return;
	case 2:
		src.type = VDXG_PT_SRC_VRAM;
		/* 2 MiB aligned with the VA, or 4 KiB off. */
		src.addr = rnd(r, 64) * SZ_2M + (first % 512) * PG +
			   (rnd(r, 2) ? PG : 0);
		break;
	case 3:
		src.type = VDXG_PT_SRC_PAGES;
		if (n > WIN_PAGES / 2) {
			n = WIN_PAGES / 2;
			first = min(first, WIN_PAGES - n);
		}
		src.addr = (u64)rnd(r, WIN_PAGES - n + 1) * PG;
		if (rnd(r, 2))
			src.addr = 0;
		break;
	default:
		src.type = VDXG_PT_SRC_NULL;
		break;
	}
	KUNIT_ASSERT_EQ(test, ctx_op(ctx, WIN_VA + first * PG, n * PG, &src,
				     flags), 0);
	for (i = 0; i < n; i++) {
		model[first + i].type = src.type + 1;
		model[first + i].flags = flags;
		if (src.type == VDXG_PT_SRC_VRAM)
			model[first + i].addr = src.addr + (u64)i * PG;
		else if (src.type == VDXG_PT_SRC_PAGES)
			model[first + i].addr = pages[src.addr / PG + i];
		else
			model[first + i].addr = 0;
	}
}

static void check_model(struct kunit *test, struct pt_ctx *ctx,
			const struct page_model *model)
{
	u32 i;

	for (i = 0; i < WIN_PAGES; i++) {
		struct xlate x = walk(&ctx->gpu, ASID, WIN_VA + i * PG + 12);
		const struct page_model *m = &model[i];

		if (!m->type) {
			KUNIT_ASSERT_EQ_MSG(test, x.fault,
					    VDXG_FAULT_VM_NOT_PRESENT,
					    "page %u", i);
			continue;
		}
		KUNIT_ASSERT_EQ_MSG(test, x.fault, 0, "page %u", i);
		KUNIT_ASSERT_EQ(test, x.pte & (VDXG_PTE_READ_ONLY |
					       VDXG_PTE_NO_EXEC), m->flags);
		if (m->type == VDXG_PT_SRC_NULL + 1) {
			KUNIT_ASSERT_TRUE(test, x.pte & VDXG_PTE_ZERO);
			continue;
		}
		KUNIT_ASSERT_FALSE(test, x.pte & VDXG_PTE_ZERO);
		KUNIT_ASSERT_EQ_MSG(test, x.addr, m->addr + 12, "page %u", i);
		KUNIT_ASSERT_EQ(test, !!(x.pte & VDXG_PTE_SEGMENT_MASK),
				m->type == VDXG_PT_SRC_VRAM + 1);
	}
}

/*
 * Random maps and unmaps over 8 MiB across a 1 GiB boundary, through
 * buffers of random sizes, against a page-by-page model; the shadow is
 * checked against VRAM after each. Unmapping it all leaves the root.
 */
static void vdxg_pt_random(struct kunit *test)
{
	static const u32 sizes[] = { VDXG_PT_MIN_BUF_BYTES, 96, 256, 4096 };
	struct page_model *model;
	struct rnd_state r;
	dma_addr_t *pages;
	struct pt_ctx *ctx;
	u32 op, large = 0;

	prandom_seed_state(&r, 0x76647867);
	model = kunit_kcalloc(test, WIN_PAGES, sizeof(*model), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, model);
	pages = random_pages(test, &r);
	ctx = ctx_new(test, 4096);

	for (op = 0; op < 300; op++) {
		ctx->buf_bytes = sizes[rnd(&r, ARRAY_SIZE(sizes))];
		random_op(test, ctx, &r, model, pages);
		check_model(test, ctx, model);
		KUNIT_ASSERT_EQ(test, check_shadow(&ctx->gpu, ctx->vm.root),
				ctx->vm.tables);
		KUNIT_ASSERT_EQ(test, ctx->gpu.pages_in_use, ctx->vm.tables);
		large += walk(&ctx->gpu, ASID, WIN_VA + SZ_4M).level == 1;
	}
	/* The sequence met 2 MiB leaves, not just 4 KiB pages. */
	KUNIT_EXPECT_GT(test, large, 10u);

	KUNIT_ASSERT_EQ(test, ctx_unmap(ctx, WIN_VA, WIN_PAGES * PG), 0);
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, 1u);
	KUNIT_EXPECT_EQ(test, ctx->gpu.pages_in_use, 1u);
	ctx_fini(ctx);
}

#define GIB_		BIT_ULL(30)
#define SZ_512G_	(512 * GIB_)

/*
 * Null leaves at levels 3 and 2: a null range of any size takes tables at
 * its ends only, and a page mapped inside one splits it level by level.
 */
static void vdxg_pt_map_null_huge(struct kunit *test)
{
	const u64 va = GIB_ - SZ_2M - PG;
	const u64 end = 2 * SZ_512G_ + 2 * GIB_ + SZ_2M + PG;
	const u64 page = SZ_512G_ + 5 * GIB_ + 7 * SZ_2M + 3 * PG;
	struct pt_ctx *ctx = ctx_new(test, 4096);

	KUNIT_ASSERT_EQ(test, ctx_map_null(ctx, va, end - va), 0);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, va), 0u);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, va + PG), 1u);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, GIB_), 2u);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, SZ_512G_ - PG), 2u);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, SZ_512G_), 3u);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, 2 * SZ_512G_ + GIB_), 2u);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, 2 * SZ_512G_ + 2 * GIB_), 1u);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, end - PG), 0u);
	expect_null(ctx, va, 2 * PG, PG);
	expect_null(ctx, GIB_ - PG, SZ_512G_, GIB_ + 12345 * PG);
	expect_null(ctx, SZ_512G_, end - SZ_512G_, GIB_ / 3);
	expect_unmapped(ctx, va - PG, PG, PG);
	expect_unmapped(ctx, end, PG, PG);
	/* The root, and a level-2, -1 and -0 table at each end. */
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, 7u);
	KUNIT_EXPECT_EQ(test, check_shadow(&ctx->gpu, ctx->vm.root), 7u);

	/* A VRAM page inside the 512 GiB leaf splits it down to level 0. */
	KUNIT_ASSERT_EQ(test, ctx_map_vram(ctx, page, PG, 0x400000, 0), 0);
	KUNIT_EXPECT_EQ(test, walk(&ctx->gpu, ASID, page + 8).addr,
			0x400008ull);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, page), 0u);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, page - 3 * PG), 0u);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, page + SZ_2M), 1u);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, page + GIB_), 2u);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, SZ_512G_), 2u);
	expect_null(ctx, page - 3 * PG, 3 * PG, PG);
	expect_null(ctx, page + PG, 509 * PG, PG);
	expect_null(ctx, SZ_512G_, SZ_512G_, GIB_ / 5);
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, 10u);
	KUNIT_EXPECT_EQ(test, check_shadow(&ctx->gpu, ctx->vm.root), 10u);

	/* Null over the whole 512 GiB again: one leaf, the tables gone. */
	KUNIT_ASSERT_EQ(test, ctx_map_null(ctx, SZ_512G_, SZ_512G_), 0);
	KUNIT_EXPECT_EQ(test, leaf_level(ctx, page), 3u);
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, 7u);

	/* Unmapping a page of a 1 GiB leaf splits it; the rest stays. */
	KUNIT_ASSERT_EQ(test, ctx_unmap(ctx, 3 * GIB_, PG), 0);
	expect_unmapped(ctx, 3 * GIB_, PG, PG);
	expect_null(ctx, 3 * GIB_ + PG, GIB_ - PG, SZ_2M - PG);
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, 9u);
	KUNIT_EXPECT_EQ(test, check_shadow(&ctx->gpu, ctx->vm.root), 9u);

	KUNIT_ASSERT_EQ(test, ctx_unmap(ctx, va, end - va), 0);
	expect_unmapped(ctx, 0, 4 * SZ_512G_, GIB_);
	KUNIT_EXPECT_EQ(test, ctx->vm.tables, 1u);
	ctx_fini(ctx);
}

static struct kunit_case vdxg_pt_cases[] = {
	KUNIT_CASE(vdxg_pt_activate),
	KUNIT_CASE(vdxg_pt_map_vram),
	KUNIT_CASE(vdxg_pt_map_page_list),
	KUNIT_CASE(vdxg_pt_map_null),
	KUNIT_CASE(vdxg_pt_map_null_huge),
	KUNIT_CASE(vdxg_pt_large_promotion),
	KUNIT_CASE(vdxg_pt_large_split),
	KUNIT_CASE(vdxg_pt_join),
	KUNIT_CASE(vdxg_pt_remap),
	KUNIT_CASE(vdxg_pt_free_empty),
	KUNIT_CASE(vdxg_pt_invalidate),
	KUNIT_CASE(vdxg_pt_multipass),
	KUNIT_CASE(vdxg_pt_predict_1g),
	KUNIT_CASE(vdxg_pt_predict_shapes),
	KUNIT_CASE(vdxg_pt_bad_args),
	KUNIT_CASE(vdxg_pt_copy_entries),
	KUNIT_CASE(vdxg_pt_random),
	{}
};

static struct kunit_suite vdxg_pt_suite = {
	.name = "vdxg_pt",
	.test_cases = vdxg_pt_cases,
};

kunit_test_suite(vdxg_pt_suite);
