// SPDX-License-Identifier: MIT
/*
 * KUnit tests for the partitioning of split submissions (vdxg_split.c).
 *
 * Copyright 2026 The vdxg authors
 */

#include <kunit/test.h>

#include <linux/errno.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include <drm/vdxg_drm.h>

#include "vdxg_cmdparse.h"
#include "vdxg_hw.h"
#include "vdxg_split.h"

#define HDR(op, len)	VDXG_PG_HDR(op, len)
#define MAX_ALLOCS	8

/* A buffer under construction, its lists and its plan. */
struct sp_buf {
	u32 cs[512];
	u32 n;
	struct vdxg_cp_alloc cp[MAX_ALLOCS];
	struct vdxg_split_alloc allocs[MAX_ALLOCS];
	u32 nallocs;
	struct drm_vdxg_patch_location patches[64];
	u32 npatches;
	u32 split_room[64];
	struct vdxg_cp_splits splits;
	u32 mark[MAX_ALLOCS];
	struct vdxg_piece pieces[16];
	struct vdxg_split sp;
	bool split_next;
	u32 cp_flags;		/* vdxg_cmd_parse()'s */
};

static u32 sp_alloc(struct sp_buf *b, u64 size, u32 where)
{
	b->cp[b->nallocs] = (struct vdxg_cp_alloc){ size,
						    DRM_VDXG_ALLOC_WRITE };
	b->allocs[b->nallocs] = (struct vdxg_split_alloc){ size, where };
	return b->nallocs++;
}

/* The next command may start a piece. */
static void sp_split_here(struct sp_buf *b)
{
	b->split_next = true;
}

static u32 sp_begin(struct sp_buf *b, u32 op, u32 len)
{
	u32 start = b->n;

	b->cs[b->n++] = HDR(op, len);
	return start;
}

static void sp_patch(struct sp_buf *b, u32 start, u32 alloc, u32 slot)
{
	b->patches[b->npatches++] = (struct drm_vdxg_patch_location){
		.allocation_index = alloc,
		.patch_offset = b->n * 4,
		.slot_id = slot,
		.split_offset = b->split_next ? start * 4 : 0,
	};
	b->split_next = false;
	b->cs[b->n++] = 0xdeadbeef;
	b->cs[b->n++] = 0xdeadbeef;
}

static void sp_surface(struct sp_buf *b, u32 slot, u32 alloc, u32 w, u32 h)
{
	u32 start = sp_begin(b, VDXG_RD_SET_SURFACE, VDXG_RD_SET_SURFACE_LEN);

	b->cs[b->n++] = slot;
	sp_patch(b, start, alloc, slot);
	b->cs[b->n++] = VDXG_FMT_XRGB8888;
	b->cs[b->n++] = w;
	b->cs[b->n++] = h;
	b->cs[b->n++] = w * 4;
}

static void sp_fill(struct sp_buf *b)
{
	sp_begin(b, VDXG_RD_FILL_RECT, VDXG_RD_FILL_RECT_LEN);
	b->cs[b->n++] = VDXG_RD_XY(0, 0);
	b->cs[b->n++] = VDXG_RD_XY(8, 8);
	b->cs[b->n++] = 0xff00ff00;
}

static void sp_copy(struct sp_buf *b)
{
	sp_begin(b, VDXG_RD_COPY_RECT, VDXG_RD_COPY_RECT_LEN);
	b->cs[b->n++] = VDXG_RD_XY(0, 0);
	b->cs[b->n++] = VDXG_RD_XY(0, 0);
	b->cs[b->n++] = VDXG_RD_XY(8, 8);
}

static void sp_fence(struct sp_buf *b, u32 alloc)
{
	u32 start = sp_begin(b, VDXG_RD_FENCE, VDXG_RD_FENCE_LEN);

	sp_patch(b, start, alloc, 0);
	b->cs[b->n++] = 1;
	b->cs[b->n++] = 0;
}

/* Validate, then plan against @vram and @aperture bytes. */
static int sp_plan(struct kunit *test, struct sp_buf *b, u64 vram,
		   u64 aperture, u32 max_pieces)
{
	b->splits.offsets = b->split_room;
	KUNIT_ASSERT_EQ(test, vdxg_cmd_parse(b->cs, b->n, b->cp, b->nallocs,
					     b->patches, b->npatches,
					     &b->splits, b->cp_flags, NULL), 0);
	memset(b->mark, 0, sizeof(b->mark));
	b->sp = (struct vdxg_split){
		.cmds = b->cs,
		.ndw = b->n,
		.patches = b->patches,
		.npatches = b->npatches,
		.splits = &b->splits,
		.allocs = b->allocs,
		.nallocs = b->nallocs,
		.vram = vram,
		.aperture = aperture,
		.mark = b->mark,
		.pieces = b->pieces,
		.max_pieces = max_pieces,
	};
	return vdxg_split_plan(&b->sp);
}

/* The pieces cover the buffer, in order, each with a command. */
static void sp_check_cover(struct kunit *test, struct sp_buf *b)
{
	u32 i, start = 0, patch = 0;

	for (i = 0; i < b->sp.npieces; i++) {
		KUNIT_EXPECT_EQ(test, b->pieces[i].start, start);
		KUNIT_EXPECT_GT(test, b->pieces[i].end, b->pieces[i].start);
		KUNIT_EXPECT_EQ(test, b->pieces[i].first_patch, patch);
		start = b->pieces[i].end;
		patch = b->pieces[i].end_patch;
	}
	KUNIT_EXPECT_EQ(test, start, b->n);
	KUNIT_EXPECT_EQ(test, patch, b->npatches);
}

static struct sp_buf *sp_new(struct kunit *test)
{
	struct sp_buf *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	return b;
}

/*
 * Six 64 MiB targets drawn one after the other, each SET_SURFACE a split
 * point, against 120 MiB of VRAM and 16 MiB of aperture: one target a
 * piece, each piece its own SET_SURFACE and fill, nothing to set again.
 */
static void vdxg_split_six_targets(struct kunit *test)
{
	struct sp_buf *b = sp_new(test);
	u32 i, idx[MAX_ALLOCS];

	for (i = 0; i < 6; i++) {
		u32 a = sp_alloc(b, SZ_64M,
				 VDXG_SPLIT_VRAM | VDXG_SPLIT_APERTURE);

		sp_split_here(b);
		sp_surface(b, VDXG_SLOT_DST, a, 4096, 4096);
		sp_fill(b);
	}
	KUNIT_ASSERT_EQ(test, sp_plan(test, b, 120 * SZ_1M, SZ_16M, 16), 0);
	KUNIT_ASSERT_EQ(test, b->sp.npieces, 6u);
	sp_check_cover(test, b);
	for (i = 0; i < 6; i++) {
		KUNIT_EXPECT_EQ(test, b->pieces[i].nsetters, 0u);
		KUNIT_EXPECT_EQ(test, b->pieces[i].bytes, (u64)SZ_64M);
		KUNIT_EXPECT_EQ(test, b->pieces[i].end - b->pieces[i].start,
				VDXG_RD_SET_SURFACE_LEN + VDXG_RD_FILL_RECT_LEN);
		KUNIT_ASSERT_EQ(test, vdxg_split_piece_allocs(&b->sp,
							      &b->pieces[i],
							      idx), 1u);
		KUNIT_EXPECT_EQ(test, idx[0], i);
	}

	/* With room for two, pieces of two. */
	KUNIT_ASSERT_EQ(test, sp_plan(test, b, 130 * SZ_1M, SZ_16M, 16), 0);
	KUNIT_EXPECT_EQ(test, b->sp.npieces, 3u);
	sp_check_cover(test, b);
	/* With room for all, one piece: the buffer as it is. */
	KUNIT_ASSERT_EQ(test, sp_plan(test, b, SZ_512M, 0, 16), 0);
	KUNIT_EXPECT_EQ(test, b->sp.npieces, 1u);
	KUNIT_EXPECT_EQ(test, b->pieces[0].bytes, 6ull * SZ_64M);
}

/*
 * An allocation does not straddle VRAM and the aperture, and goes only
 * where its segment set allows.
 */
static void vdxg_split_segments(struct kunit *test)
{
	const u32 both = VDXG_SPLIT_VRAM | VDXG_SPLIT_APERTURE;
	struct sp_buf *b = sp_new(test);
	u32 a = sp_alloc(b, SZ_64M, both);
	u32 c = sp_alloc(b, SZ_64M, both);

	sp_surface(b, VDXG_SLOT_DST, a, 4096, 4096);
	sp_fill(b);
	sp_split_here(b);
	sp_surface(b, VDXG_SLOT_DST, c, 4096, 4096);
	sp_fill(b);
	/* One in VRAM, one in the aperture. */
	KUNIT_ASSERT_EQ(test, sp_plan(test, b, 96 * SZ_1M, 96 * SZ_1M, 16), 0);
	KUNIT_EXPECT_EQ(test, b->sp.npieces, 1u);
	/* 140 MiB in all, but the second fits in neither part. */
	KUNIT_ASSERT_EQ(test, sp_plan(test, b, 100 * SZ_1M, 40 * SZ_1M, 16),
			0);
	KUNIT_EXPECT_EQ(test, b->sp.npieces, 2u);
	sp_check_cover(test, b);
	/* Aperture only: it does not take the VRAM there is. */
	b->allocs[c].where = VDXG_SPLIT_APERTURE;
	KUNIT_EXPECT_EQ(test, sp_plan(test, b, SZ_256M, 32 * SZ_1M, 16),
			-ENOMEM);
	KUNIT_ASSERT_EQ(test, sp_plan(test, b, SZ_256M, SZ_64M, 16), 0);
	KUNIT_EXPECT_EQ(test, b->sp.npieces, 1u);
}

/*
 * A source set once, then targets one a piece: each later piece starts
 * with the source's SET_SURFACE again, patched, and uses its allocation.
 */
static void vdxg_split_state_again(struct kunit *test)
{
	struct sp_buf *b = sp_new(test);
	u64 addr[MAX_ALLOCS] = { 0x1000000, 0x2000000, 0x3000000, 0x4000000 };
	u32 src = sp_alloc(b, SZ_1M, VDXG_SPLIT_VRAM);
	u32 i, t[3], start[3], idx[MAX_ALLOCS], out[64], n;

	sp_surface(b, VDXG_SLOT_SRC, src, 8, 8);
	for (i = 0; i < 3; i++) {
		t[i] = sp_alloc(b, SZ_64M, VDXG_SPLIT_VRAM);
		sp_split_here(b);
		start[i] = b->n;
		sp_surface(b, VDXG_SLOT_DST, t[i], 4096, 4096);
		sp_copy(b);
	}
	KUNIT_ASSERT_EQ(test, sp_plan(test, b, 100 * SZ_1M, 0, 16), 0);
	KUNIT_ASSERT_EQ(test, b->sp.npieces, 3u);
	sp_check_cover(test, b);
	/* The first piece sets the source itself. */
	KUNIT_EXPECT_EQ(test, b->pieces[0].nsetters, 0u);
	KUNIT_EXPECT_EQ(test, b->pieces[0].bytes, (u64)SZ_64M + SZ_1M);
	for (i = 1; i < 3; i++) {
		const struct vdxg_piece *p = &b->pieces[i];

		KUNIT_EXPECT_EQ(test, p->start, start[i]);
		KUNIT_ASSERT_EQ(test, p->nsetters, 1u);
		KUNIT_EXPECT_EQ(test, p->setters[0], 0u);
		KUNIT_EXPECT_EQ(test, p->bytes, (u64)SZ_64M + SZ_1M);
		KUNIT_ASSERT_EQ(test, vdxg_split_piece_allocs(&b->sp, p, idx),
				2u);
		KUNIT_EXPECT_EQ(test, idx[0], src);
		KUNIT_EXPECT_EQ(test, idx[1], t[i]);

		n = vdxg_split_piece_dwords(&b->sp, p);
		KUNIT_ASSERT_EQ(test, n, VDXG_RD_SET_SURFACE_LEN * 2 +
				VDXG_RD_COPY_RECT_LEN);
		memset(out, 0, sizeof(out));
		vdxg_split_piece_build(&b->sp, p, addr, out);
		/* The source's SET_SURFACE, patched, then the piece. */
		KUNIT_EXPECT_EQ(test, out[0], b->cs[0]);
		KUNIT_EXPECT_EQ(test, out[VDXG_RD_SURF_DW_SLOT],
				(u32)VDXG_SLOT_SRC);
		KUNIT_EXPECT_EQ(test, out[VDXG_RD_SURF_DW_ADDR],
				(u32)addr[src]);
		KUNIT_EXPECT_EQ(test, out[VDXG_RD_SURF_DW_ADDR + 1], 0u);
		KUNIT_EXPECT_EQ(test, out[VDXG_RD_SET_SURFACE_LEN],
				b->cs[start[i]]);
		KUNIT_EXPECT_EQ(test, out[VDXG_RD_SET_SURFACE_LEN +
					  VDXG_RD_SURF_DW_ADDR],
				(u32)addr[t[i]]);
		KUNIT_EXPECT_EQ(test, out[n - VDXG_RD_COPY_RECT_LEN],
				b->cs[p->end - VDXG_RD_COPY_RECT_LEN]);
	}
}

/* A slot set again inside the piece before use is not inherited. */
static void vdxg_split_state_own(struct kunit *test)
{
	struct sp_buf *b = sp_new(test);
	u32 s0 = sp_alloc(b, SZ_64M, VDXG_SPLIT_VRAM);
	u32 s1 = sp_alloc(b, SZ_1M, VDXG_SPLIT_VRAM);
	u32 t = sp_alloc(b, SZ_1M, VDXG_SPLIT_VRAM);

	sp_surface(b, VDXG_SLOT_SRC, s0, 4096, 4096);
	sp_surface(b, VDXG_SLOT_DST, t, 8, 8);
	sp_copy(b);
	sp_split_here(b);
	sp_surface(b, VDXG_SLOT_SRC, s1, 8, 8);
	sp_copy(b);
	KUNIT_ASSERT_EQ(test, sp_plan(test, b, 65 * SZ_1M, 0, 16), 0);
	KUNIT_ASSERT_EQ(test, b->sp.npieces, 2u);
	/* DST comes from before; SRC the piece sets itself. */
	KUNIT_ASSERT_EQ(test, b->pieces[1].nsetters, 1u);
	KUNIT_EXPECT_EQ(test, b->pieces[1].setters[0],
			(u32)VDXG_RD_SET_SURFACE_LEN);
	KUNIT_EXPECT_EQ(test, b->pieces[1].bytes, 2ull * SZ_1M);
}

/*
 * A piece that grows past its last split point before it stops fitting
 * ends there, and forgets what it set after it: the next piece inherits
 * the source set before the cut, not the one it sets itself later.
 */
static void vdxg_split_state_rollback(struct kunit *test)
{
	struct sp_buf *b = sp_new(test);
	u32 a = sp_alloc(b, SZ_1M, VDXG_SPLIT_VRAM);
	u32 big = sp_alloc(b, SZ_64M, VDXG_SPLIT_VRAM);
	u32 t0 = sp_alloc(b, SZ_1M, VDXG_SPLIT_VRAM);
	u32 c = sp_alloc(b, SZ_1M, VDXG_SPLIT_VRAM);
	u32 t1 = sp_alloc(b, 40 * SZ_1M, VDXG_SPLIT_VRAM);
	u32 set_t0, cut, idx[MAX_ALLOCS];

	sp_surface(b, VDXG_SLOT_SRC, a, 8, 8);
	sp_surface(b, VDXG_SLOT_DST, big, 4096, 4096);
	sp_fill(b);
	set_t0 = b->n;
	sp_surface(b, VDXG_SLOT_DST, t0, 8, 8);
	sp_copy(b);
	cut = b->n;
	sp_copy(b);
	sp_surface(b, VDXG_SLOT_SRC, c, 8, 8);	/* after the cut */
	sp_copy(b);
	sp_surface(b, VDXG_SLOT_DST, t1, 2048, 4096);	/* does not fit */
	sp_copy(b);
	/* The second copy may start a piece: the next patch, c's, says so. */
	b->patches[3].split_offset = cut * 4;

	KUNIT_ASSERT_EQ(test, sp_plan(test, b, 100 * SZ_1M, 0, 16), 0);
	KUNIT_ASSERT_EQ(test, b->sp.npieces, 2u);
	sp_check_cover(test, b);
	KUNIT_EXPECT_EQ(test, b->pieces[0].end, cut);
	KUNIT_EXPECT_EQ(test, b->pieces[0].bytes, 66ull * SZ_1M);
	/* The source of dword 0 and t0's target, set before the cut. */
	KUNIT_ASSERT_EQ(test, b->pieces[1].nsetters, 2u);
	KUNIT_EXPECT_EQ(test, b->pieces[1].setters[0], 0u);
	KUNIT_EXPECT_EQ(test, b->pieces[1].setters[1], set_t0);
	KUNIT_EXPECT_EQ(test, b->pieces[1].bytes, 43ull * SZ_1M);
	KUNIT_ASSERT_EQ(test, vdxg_split_piece_allocs(&b->sp, &b->pieces[1],
						      idx), 4u);
	KUNIT_EXPECT_EQ(test, idx[0], a);
	KUNIT_EXPECT_EQ(test, idx[1], t0);
	KUNIT_EXPECT_EQ(test, idx[2], c);
	KUNIT_EXPECT_EQ(test, idx[3], t1);
}

/* No split point where one is needed, or a command alone too large. */
static void vdxg_split_cannot(struct kunit *test)
{
	struct sp_buf *b = sp_new(test);
	u32 a = sp_alloc(b, SZ_64M, VDXG_SPLIT_VRAM);
	u32 c = sp_alloc(b, SZ_64M, VDXG_SPLIT_VRAM);

	sp_surface(b, VDXG_SLOT_DST, a, 4096, 4096);
	sp_fill(b);
	sp_surface(b, VDXG_SLOT_DST, c, 4096, 4096);
	sp_fill(b);
	KUNIT_EXPECT_EQ(test, sp_plan(test, b, 100 * SZ_1M, 0, 16), -ENOMEM);
	KUNIT_EXPECT_EQ(test, sp_plan(test, b, SZ_32M, 0, 16), -ENOMEM);
	KUNIT_EXPECT_EQ(test, sp_plan(test, b, SZ_128M, 0, 16), 0);
	KUNIT_EXPECT_EQ(test, b->sp.npieces, 1u);
}

/*
 * Two large targets in turn at every split point: each piece fits, and
 * together they need as many pieces as there are turns, up to the limit.
 */
static void vdxg_split_thrash(struct kunit *test)
{
	struct sp_buf *b = sp_new(test);
	u32 a = sp_alloc(b, SZ_64M, VDXG_SPLIT_VRAM);
	u32 c = sp_alloc(b, SZ_64M, VDXG_SPLIT_VRAM);
	u32 i;

	for (i = 0; i < 8; i++) {
		sp_split_here(b);
		sp_surface(b, VDXG_SLOT_DST, i % 2 ? c : a, 4096, 4096);
		sp_fill(b);
		sp_fence(b, i % 2 ? c : a);
	}
	KUNIT_ASSERT_EQ(test, sp_plan(test, b, 100 * SZ_1M, 0, 16), 0);
	KUNIT_EXPECT_EQ(test, b->sp.npieces, 8u);
	sp_check_cover(test, b);
	KUNIT_EXPECT_EQ(test, sp_plan(test, b, 100 * SZ_1M, 0, 7), -E2BIG);
}

/* ------------------------------------------------------ the 3D pipeline */

static u32 sp_state(struct sp_buf *b, u32 first, u32 n, u32 value)
{
	u32 start = sp_begin(b, VDXG_RD_SET_STATE, VDXG_RD_SET_STATE_LEN(n));
	u32 k;

	b->cs[b->n++] = first;
	for (k = 0; k < n; k++)
		b->cs[b->n++] = value;
	return start;
}

/* SET_SHADER, SET_CONSTANTS, SET_VERTEX_BUFFER: op, a dword, addr, more */
static u32 sp_bind(struct sp_buf *b, u32 op, u32 len, u32 what, u32 alloc,
		   u32 d4, u32 d5)
{
	u32 start = sp_begin(b, op, len);

	b->cs[b->n++] = what;
	sp_patch(b, start, alloc, 0);
	b->cs[b->n++] = d4;
	if (len > 5)
		b->cs[b->n++] = d5;
	return start;
}

static u32 sp_shader(struct sp_buf *b, u32 stage, u32 alloc)
{
	return sp_bind(b, VDXG_RD_SET_SHADER, VDXG_RD_SET_SHADER_LEN, stage,
		       alloc, 64, 0);
}

static u32 sp_vb(struct sp_buf *b, u32 index, u32 alloc)
{
	return sp_bind(b, VDXG_RD_SET_VERTEX_BUFFER,
		       VDXG_RD_SET_VERTEX_BUFFER_LEN, index, alloc, 256, 16);
}

static u32 sp_ib(struct sp_buf *b, u32 alloc)
{
	u32 start = sp_begin(b, VDXG_RD_SET_INDEX_BUFFER,
			     VDXG_RD_SET_INDEX_BUFFER_LEN);

	sp_patch(b, start, alloc, 0);
	b->cs[b->n++] = 64;
	b->cs[b->n++] = 2;
	return start;
}

static u32 sp_tex(struct sp_buf *b, u32 unit, u32 alloc)
{
	u32 start = sp_begin(b, VDXG_RD_SET_TEXTURE, VDXG_RD_SET_TEXTURE_LEN);

	b->cs[b->n++] = unit;
	sp_patch(b, start, alloc, 0);
	b->cs[b->n++] = 64;
	b->cs[b->n++] = VDXG_TEX_DESC(VDXG_FMT_ARGB8888, 1, false);
	b->cs[b->n++] = VDXG_RD_XY(4, 4);
	return start;
}

static u32 sp_depth(struct sp_buf *b, u32 alloc)
{
	u32 start = sp_begin(b, VDXG_RD_SET_SURFACE, VDXG_RD_SET_SURFACE_LEN);

	b->cs[b->n++] = VDXG_SLOT_DEPTH;
	sp_patch(b, start, alloc, VDXG_SLOT_DEPTH);
	b->cs[b->n++] = VDXG_FMT_D24S8;
	b->cs[b->n++] = 4096;
	b->cs[b->n++] = 4096;
	b->cs[b->n++] = 4096 * 4;
	return start;
}

static void sp_draw3d(struct sp_buf *b, bool indexed)
{
	if (indexed)
		sp_begin(b, VDXG_RD_DRAW_INDEXED, VDXG_RD_DRAW_INDEXED_LEN);
	else
		sp_begin(b, VDXG_RD_DRAW, VDXG_RD_DRAW_LEN);
	b->cs[b->n++] = VDXG_PRIM_TRIANGLES;
	b->cs[b->n++] = 0;
	b->cs[b->n++] = 3;
	if (indexed)
		b->cs[b->n++] = 0;
}

static void sp_clear(struct sp_buf *b, u32 flags)
{
	u32 k;

	sp_begin(b, VDXG_RD_CLEAR, VDXG_RD_CLEAR_LEN);
	b->cs[b->n++] = flags;
	for (k = 2; k < VDXG_RD_CLEAR_LEN; k++)
		b->cs[b->n++] = 0;
}

/*
 * Two 64 MiB targets drawn with the same 3D state, the second one a piece
 * of its own: it starts with the last setter of every key set before the
 * cut, in the buffer's order, patched, and uses their allocations; a
 * setter whose keys were all set again is not run again, one whose keys
 * were set again in part is, before the later one.
 */
static void vdxg_split_3d_state(struct kunit *test)
{
	struct sp_buf *b = sp_new(test);
	u32 small = 4 * SZ_1M;
	u32 vs = sp_alloc(b, small, VDXG_SPLIT_VRAM);
	u32 fs = sp_alloc(b, small, VDXG_SPLIT_VRAM);
	u32 vb_old = sp_alloc(b, small, VDXG_SPLIT_VRAM);
	u32 vb = sp_alloc(b, small, VDXG_SPLIT_VRAM);
	u32 tex = sp_alloc(b, small, VDXG_SPLIT_VRAM);
	u32 ib = sp_alloc(b, small, VDXG_SPLIT_VRAM);
	u32 t0 = sp_alloc(b, SZ_64M, VDXG_SPLIT_VRAM);
	u32 t1 = sp_alloc(b, SZ_64M, VDXG_SPLIT_VRAM);
	u64 addr[MAX_ALLOCS];
	u32 want[8], nwant = 0, idx[MAX_ALLOCS], *out, i, n, at;
	const struct vdxg_piece *p;

	for (i = 0; i < MAX_ALLOCS; i++)
		addr[i] = 0x1000000ull * (i + 1) + 0x100000000ull;
	want[nwant++] = sp_state(b, 0, VDXG_3D_NUM_REGS, 0);
	want[nwant++] = sp_shader(b, VDXG_3D_STAGE_VERTEX, vs);
	sp_vb(b, 3, vb_old);
	want[nwant++] = sp_state(b, 5, 1, VDXG_RASTER_CULL_BACK);
	want[nwant++] = sp_shader(b, VDXG_3D_STAGE_FRAGMENT, fs);
	want[nwant++] = sp_vb(b, 3, vb);	/* vb_old's key again */
	want[nwant++] = sp_tex(b, 7, tex);
	want[nwant++] = sp_ib(b, ib);
	sp_surface(b, VDXG_SLOT_DST, t0, 4096, 4096);
	sp_draw3d(b, false);
	sp_split_here(b);
	at = b->n;
	sp_surface(b, VDXG_SLOT_DST, t1, 4096, 4096);
	sp_draw3d(b, true);
	b->cp_flags = VDXG_CP_3D;

	KUNIT_ASSERT_EQ(test, sp_plan(test, b, 100 * SZ_1M, 0, 16), 0);
	KUNIT_ASSERT_EQ(test, b->sp.npieces, 2u);
	sp_check_cover(test, b);
	KUNIT_EXPECT_EQ(test, b->pieces[0].nsetters, 0u);
	KUNIT_EXPECT_EQ(test, b->pieces[0].bytes, SZ_64M + 6ull * small);
	p = &b->pieces[1];
	KUNIT_EXPECT_EQ(test, p->start, at);
	KUNIT_ASSERT_EQ(test, p->nsetters, nwant);
	for (i = 0; i < nwant; i++)
		KUNIT_EXPECT_EQ(test, p->setters[i], want[i]);
	/* t1 and what the state names but vb_old */
	KUNIT_EXPECT_EQ(test, p->bytes, SZ_64M + 5ull * small);
	KUNIT_ASSERT_EQ(test, vdxg_split_piece_allocs(&b->sp, p, idx), 6u);
	KUNIT_EXPECT_EQ(test, idx[0], vs);
	KUNIT_EXPECT_EQ(test, idx[1], fs);
	KUNIT_EXPECT_EQ(test, idx[2], vb);
	KUNIT_EXPECT_EQ(test, idx[3], tex);
	KUNIT_EXPECT_EQ(test, idx[4], ib);
	KUNIT_EXPECT_EQ(test, idx[5], t1);

	/* The piece as it runs: the setters, patched, then its own. */
	n = vdxg_split_piece_dwords(&b->sp, p);
	out = kunit_kcalloc(test, n, sizeof(u32), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	vdxg_split_piece_build(&b->sp, p, addr, out);
	at = 0;
	for (i = 0; i < nwant; i++) {
		u32 len = vdxg_cmd_len(&b->cs[want[i]]);

		KUNIT_EXPECT_EQ(test, out[at], b->cs[want[i]]);
		at += len;
	}
	KUNIT_EXPECT_EQ(test, at + p->end - p->start, n);
	/* SET_SHADER's address: the fragment program's, now */
	at = VDXG_RD_SET_STATE_LEN(VDXG_3D_NUM_REGS) + VDXG_RD_SET_SHADER_LEN +
	     VDXG_RD_SET_STATE_LEN(1);
	KUNIT_EXPECT_EQ(test, out[at + VDXG_RD_SHADER_DW_STAGE],
			(u32)VDXG_3D_STAGE_FRAGMENT);
	KUNIT_EXPECT_EQ(test, out[at + VDXG_RD_SHADER_DW_ADDR],
			lower_32_bits(addr[fs]));
	KUNIT_EXPECT_EQ(test, out[at + VDXG_RD_SHADER_DW_ADDR + 1],
			upper_32_bits(addr[fs]));
	/* And the set state the piece sets itself is not run again. */
	KUNIT_EXPECT_EQ(test, out[n - VDXG_RD_DRAW_INDEXED_LEN],
			(u32)HDR(VDXG_RD_DRAW_INDEXED,
				 VDXG_RD_DRAW_INDEXED_LEN));
}

/*
 * A piece that draws nothing needs no 3D state: a CLEAR of the colour
 * takes only DST, which the piece sets itself; a CLEAR of depth the
 * DEPTH set before.
 */
static void vdxg_split_3d_clear(struct kunit *test)
{
	struct sp_buf *b = sp_new(test);
	u32 vs = sp_alloc(b, SZ_1M, VDXG_SPLIT_VRAM);
	u32 depth = sp_alloc(b, SZ_64M, VDXG_SPLIT_VRAM);
	u32 t0 = sp_alloc(b, SZ_64M, VDXG_SPLIT_VRAM);
	u32 t1 = sp_alloc(b, SZ_64M, VDXG_SPLIT_VRAM);
	u32 set_depth;

	sp_shader(b, VDXG_3D_STAGE_VERTEX, vs);
	sp_state(b, 0, 16, 0);
	set_depth = sp_depth(b, depth);
	sp_surface(b, VDXG_SLOT_DST, t0, 4096, 4096);
	sp_clear(b, VDXG_CLEAR_COLOR | VDXG_CLEAR_DEPTH);
	sp_split_here(b);
	sp_surface(b, VDXG_SLOT_DST, t1, 4096, 4096);
	sp_clear(b, VDXG_CLEAR_COLOR);
	b->cp_flags = VDXG_CP_3D;

	KUNIT_ASSERT_EQ(test, sp_plan(test, b, 160 * SZ_1M, 0, 16), 0);
	KUNIT_ASSERT_EQ(test, b->sp.npieces, 2u);
	KUNIT_EXPECT_EQ(test, b->pieces[1].nsetters, 0u);
	KUNIT_EXPECT_EQ(test, b->pieces[1].bytes, (u64)SZ_64M);

	/* Clearing stencil too: the DEPTH surface, nothing else. */
	b->cs[b->n - VDXG_RD_CLEAR_LEN + VDXG_RD_CLEAR_DW_FLAGS] =
		VDXG_CLEAR_COLOR | VDXG_CLEAR_STENCIL;
	KUNIT_ASSERT_EQ(test, sp_plan(test, b, 160 * SZ_1M, 0, 16), 0);
	KUNIT_ASSERT_EQ(test, b->sp.npieces, 2u);
	KUNIT_ASSERT_EQ(test, b->pieces[1].nsetters, 1u);
	KUNIT_EXPECT_EQ(test, b->pieces[1].setters[0], set_depth);
	KUNIT_EXPECT_EQ(test, b->pieces[1].bytes, 2ull * SZ_64M);
}

/*
 * A piece that grows past its cut before it stops fitting forgets the 3D
 * state it set after the cut: the next piece, whose first draw comes
 * before it binds its own texture, starts with the texture bound before
 * the cut, not the one bound after it.
 */
static void vdxg_split_3d_rollback(struct kunit *test)
{
	struct sp_buf *b = sp_new(test);
	u32 vs = sp_alloc(b, SZ_1M, VDXG_SPLIT_VRAM);
	u32 fs = sp_alloc(b, SZ_1M, VDXG_SPLIT_VRAM);
	u32 tex0 = sp_alloc(b, SZ_1M, VDXG_SPLIT_VRAM);
	u32 tex1 = sp_alloc(b, SZ_1M, VDXG_SPLIT_VRAM);
	u32 t0 = sp_alloc(b, SZ_1M, VDXG_SPLIT_VRAM);
	u32 pre = sp_alloc(b, 30 * SZ_1M, VDXG_SPLIT_VRAM);
	u32 big = sp_alloc(b, 90 * SZ_1M, VDXG_SPLIT_VRAM);
	u32 set_vs, set_fs, set_tex0, set_regs, set_t0, cut;

	set_vs = sp_shader(b, VDXG_3D_STAGE_VERTEX, vs);
	set_fs = sp_shader(b, VDXG_3D_STAGE_FRAGMENT, fs);
	set_regs = sp_state(b, 0, 4, 0);
	set_tex0 = sp_tex(b, 0, tex0);
	set_t0 = b->n;
	sp_surface(b, VDXG_SLOT_DST, t0, 16, 16);
	sp_fence(b, pre);
	sp_draw3d(b, false);
	cut = b->n;
	sp_draw3d(b, false);
	sp_tex(b, 0, tex1);		/* after the cut: rolled back */
	sp_state(b, 2, 2, 0);
	sp_draw3d(b, false);
	sp_vb(b, 0, big);		/* does not fit with pre */
	sp_draw3d(b, false);
	/* The draw after the first may start a piece: tex1's patch says so. */
	b->patches[5].split_offset = cut * 4;
	b->cp_flags = VDXG_CP_3D;

	KUNIT_ASSERT_EQ(test, sp_plan(test, b, 100 * SZ_1M, 0, 16), 0);
	KUNIT_ASSERT_EQ(test, b->sp.npieces, 2u);
	sp_check_cover(test, b);
	KUNIT_EXPECT_EQ(test, b->pieces[0].end, cut);
	KUNIT_EXPECT_EQ(test, b->pieces[0].bytes, 34ull * SZ_1M);
	KUNIT_ASSERT_EQ(test, b->pieces[1].nsetters, 5u);
	KUNIT_EXPECT_EQ(test, b->pieces[1].setters[0], set_vs);
	KUNIT_EXPECT_EQ(test, b->pieces[1].setters[1], set_fs);
	KUNIT_EXPECT_EQ(test, b->pieces[1].setters[2], set_regs);
	KUNIT_EXPECT_EQ(test, b->pieces[1].setters[3], set_tex0);
	KUNIT_EXPECT_EQ(test, b->pieces[1].setters[4], set_t0);
	/* vs, fs, tex0, t0, then tex1 and big; not pre */
	KUNIT_EXPECT_EQ(test, b->pieces[1].bytes, 95ull * SZ_1M);
}

static struct kunit_case vdxg_split_cases[] = {
	KUNIT_CASE(vdxg_split_six_targets),
	KUNIT_CASE(vdxg_split_segments),
	KUNIT_CASE(vdxg_split_state_again),
	KUNIT_CASE(vdxg_split_state_own),
	KUNIT_CASE(vdxg_split_state_rollback),
	KUNIT_CASE(vdxg_split_cannot),
	KUNIT_CASE(vdxg_split_thrash),
	KUNIT_CASE(vdxg_split_3d_state),
	KUNIT_CASE(vdxg_split_3d_clear),
	KUNIT_CASE(vdxg_split_3d_rollback),
	{}
};

static struct kunit_suite vdxg_split_suite = {
	.name = "vdxg_split",
	.test_cases = vdxg_split_cases,
};

kunit_test_suite(vdxg_split_suite);
