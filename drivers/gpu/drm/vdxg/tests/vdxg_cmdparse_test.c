// SPDX-License-Identifier: MIT
/*
 * KUnit tests for vdxg's command-buffer validation and patching
 * (vdxg_cmdparse.c).
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

#define HDR(op, len)	VDXG_PG_HDR(op, len)

/* A buffer under construction, with its lists. */
struct cp_buf {
	u32 cs[256];
	u32 n;
	struct vdxg_cp_alloc allocs[4];
	struct drm_vdxg_patch_location patches[32];
	u32 npatches;
	u32 split_room[8];	/* the tests split at up to 8 points */
	struct vdxg_cp_splits splits;
};

static void cp_init(struct cp_buf *b)
{
	memset(b, 0, sizeof(*b));
	b->allocs[0] = (struct vdxg_cp_alloc){ SZ_1M, DRM_VDXG_ALLOC_WRITE };
	b->allocs[1] = (struct vdxg_cp_alloc){ SZ_64K, 0 };
	b->allocs[2] = (struct vdxg_cp_alloc){ SZ_4K, DRM_VDXG_ALLOC_WRITE };
	b->allocs[3] = (struct vdxg_cp_alloc){ SZ_16K, 0 };
}

static void cp_patch(struct cp_buf *b, u32 alloc, u32 offset, u32 slot)
{
	b->patches[b->npatches++] = (struct drm_vdxg_patch_location){
		.allocation_index = alloc,
		.allocation_offset = offset,
		.patch_offset = b->n * 4,
		.slot_id = slot,
	};
	b->cs[b->n++] = 0xdeadbeef;	/* a raw address: must be patched */
	b->cs[b->n++] = 0xdeadbeef;
}

static void cp_fence(struct cp_buf *b, u32 alloc, u32 offset)
{
	b->cs[b->n++] = HDR(VDXG_RD_FENCE, VDXG_RD_FENCE_LEN);
	cp_patch(b, alloc, offset, 0);
	b->cs[b->n++] = 1;
	b->cs[b->n++] = 0;
}

static void cp_surface(struct cp_buf *b, u32 slot, u32 alloc, u32 offset,
		       u32 format, u32 w, u32 h, u32 pitch)
{
	b->cs[b->n++] = HDR(VDXG_RD_SET_SURFACE, VDXG_RD_SET_SURFACE_LEN);
	b->cs[b->n++] = slot;
	cp_patch(b, alloc, offset, slot);
	b->cs[b->n++] = format;
	b->cs[b->n++] = w;
	b->cs[b->n++] = h;
	b->cs[b->n++] = pitch;
}

static void cp_fill(struct cp_buf *b, u32 x, u32 y, u32 w, u32 h)
{
	b->cs[b->n++] = HDR(VDXG_RD_FILL_RECT, VDXG_RD_FILL_RECT_LEN);
	b->cs[b->n++] = VDXG_RD_XY(x, y);
	b->cs[b->n++] = VDXG_RD_XY(w, h);
	b->cs[b->n++] = 0xff00ff00;
}

static void cp_draw(struct cp_buf *b, u32 flags, u32 count, u32 alloc)
{
	b->cs[b->n++] = HDR(VDXG_RD_DRAW_TRIANGLES,
			    VDXG_RD_DRAW_TRIANGLES_LEN);
	b->cs[b->n++] = flags;
	b->cs[b->n++] = count;
	cp_patch(b, alloc, 0, 0);
}

static int cp_run(struct cp_buf *b)
{
	b->splits.offsets = b->split_room;
	return vdxg_cmd_validate(b->cs, b->n, b->allocs, ARRAY_SIZE(b->allocs),
				 b->patches, b->npatches, &b->splits, NULL);
}

/* A 64x64 XRGB8888 target in allocation 0, cleared. */
static void cp_target(struct cp_buf *b)
{
	cp_surface(b, VDXG_SLOT_DST, 0, 0, VDXG_FMT_XRGB8888, 64, 64, 256);
}

static void vdxg_cp_accepts_every_command(struct kunit *test)
{
	struct cp_buf b;

	cp_init(&b);
	b.cs[b.n++] = HDR(VDXG_RD_NOP, 1);
	cp_fence(&b, 0, 8);
	b.cs[b.n++] = HDR(VDXG_RD_WAIT, VDXG_RD_WAIT_LEN);
	cp_patch(&b, 1, 16, 0);
	b.cs[b.n++] = 5;
	b.cs[b.n++] = 0;
	/* A 32x32 target, as large as the depth surface. */
	cp_surface(&b, VDXG_SLOT_DST, 0, 0, VDXG_FMT_XRGB8888, 32, 32, 256);
	cp_surface(&b, VDXG_SLOT_SRC, 1, 0, VDXG_FMT_RGB565, 32, 32, 64);
	cp_surface(&b, VDXG_SLOT_DEPTH, 2, 0, VDXG_FMT_D32, 32, 32, 128);
	cp_surface(&b, VDXG_SLOT_TEXTURE, 3, 0, VDXG_FMT_ARGB8888, 8, 8, 32);
	cp_fill(&b, 0, 0, 32, 32);
	b.cs[b.n++] = HDR(VDXG_RD_COPY_RECT, VDXG_RD_COPY_RECT_LEN);
	b.cs[b.n++] = VDXG_RD_XY(16, 16);
	b.cs[b.n++] = VDXG_RD_XY(0, 0);
	b.cs[b.n++] = VDXG_RD_XY(16, 16);
	b.cs[b.n++] = HDR(VDXG_RD_BLEND, VDXG_RD_BLEND_LEN);
	b.cs[b.n++] = VDXG_RD_XY(1, 1);
	b.cs[b.n++] = VDXG_RD_XY(2, 2);
	b.cs[b.n++] = VDXG_RD_XY(30, 30);
	b.cs[b.n++] = 128;
	cp_draw(&b, VDXG_DRAW_TEXTURE | VDXG_DRAW_BILINEAR |
		VDXG_DRAW_DEPTH_TEST | VDXG_DRAW_DEPTH_WRITE, 6, 3);

	KUNIT_EXPECT_EQ(test, cp_run(&b), 0);
}

static void vdxg_cp_patch_order(struct kunit *test)
{
	struct vdxg_cp_error err = {};
	struct cp_buf b;
	u64 addr[4] = { 0x100000, 0x200000, 0x10000000000ull, 0x300000 };
	u32 i;

	cp_init(&b);
	cp_fence(&b, 0, 8);
	cp_fence(&b, 2, 16);
	cp_target(&b);
	/* Userspace may list patches in any order. */
	swap(b.patches[0], b.patches[2]);
	KUNIT_ASSERT_EQ(test, vdxg_cmd_validate(b.cs, b.n, b.allocs, 4,
						b.patches, b.npatches, NULL,
						&err), 0);
	for (i = 1; i < b.npatches; i++)
		KUNIT_EXPECT_LT(test, b.patches[i - 1].patch_offset,
				b.patches[i].patch_offset);

	KUNIT_EXPECT_EQ(test, vdxg_patch_apply(b.cs, b.patches, b.npatches,
					       addr), 3);
	KUNIT_EXPECT_EQ(test, b.cs[1], 0x100008u);
	KUNIT_EXPECT_EQ(test, b.cs[2], 0u);
	KUNIT_EXPECT_EQ(test, b.cs[6], 0x10u);
	KUNIT_EXPECT_EQ(test, b.cs[7], 0x100u);
	KUNIT_EXPECT_EQ(test, b.cs[12], 0x100000u);
	/* A second pass finds every field right and writes nothing. */
	KUNIT_EXPECT_EQ(test, vdxg_patch_apply(b.cs, b.patches, b.npatches,
					       addr), 0);
	addr[2] += 0x1000;
	KUNIT_EXPECT_EQ(test, vdxg_patch_apply(b.cs, b.patches, b.npatches,
					       addr), 1);
	KUNIT_EXPECT_EQ(test, b.cs[6], 0x1010u);
}

struct cp_bad_case {
	const char *name;
	void (*build)(struct cp_buf *b);
	int expect;
};

static void bad_opcode(struct cp_buf *b)
{
	b->cs[b->n++] = HDR(VDXG_RD_NUM_OPS, 1);
}

static void bad_header_bits(struct cp_buf *b)
{
	b->cs[b->n++] = HDR(VDXG_RD_NOP, 1) | 0x100;
}

static void bad_length(struct cp_buf *b)
{
	b->cs[b->n++] = HDR(VDXG_RD_NOP, 2);
	b->cs[b->n++] = 0;
}

static void bad_truncated(struct cp_buf *b)
{
	cp_fence(b, 0, 0);
	b->n -= 1;
}

static void bad_unpatched(struct cp_buf *b)
{
	cp_fence(b, 0, 0);
	b->npatches = 0;
}

static void bad_patch_outside(struct cp_buf *b)
{
	cp_fence(b, 0, 0);
	b->patches[0].patch_offset = b->n * 4;
}

static void bad_patch_misaligned(struct cp_buf *b)
{
	cp_fence(b, 0, 0);
	b->patches[0].patch_offset += 2;
}

static void bad_patch_not_field(struct cp_buf *b)
{
	cp_fence(b, 0, 0);
	b->patches[b->npatches] = b->patches[0];
	b->patches[b->npatches++].patch_offset = 12;	/* the value */
}

static void bad_patch_header(struct cp_buf *b)
{
	b->cs[b->n++] = HDR(VDXG_RD_NOP, 1);
	b->cs[b->n++] = HDR(VDXG_RD_NOP, 1);
	cp_fence(b, 0, 0);
	b->patches[b->npatches] = b->patches[0];
	b->patches[b->npatches++].patch_offset = 0;
}

static void bad_patch_duplicate(struct cp_buf *b)
{
	cp_fence(b, 0, 0);
	b->patches[b->npatches] = b->patches[0];
	b->npatches++;
}

static void bad_alloc_index(struct cp_buf *b)
{
	cp_fence(b, 0, 0);
	b->patches[0].allocation_index = 4;
}

static void bad_alloc_offset(struct cp_buf *b)
{
	cp_fence(b, 2, SZ_4K);
}

static void bad_fence_extent(struct cp_buf *b)
{
	cp_fence(b, 2, SZ_4K - 4);
}

static void bad_fence_align(struct cp_buf *b)
{
	cp_fence(b, 0, 4);
}

static void bad_fence_readonly(struct cp_buf *b)
{
	cp_fence(b, 1, 0);
}

static void bad_surface_extent(struct cp_buf *b)
{
	/* 64 KiB pitch x 8192 rows needs 512 MiB. */
	cp_surface(b, VDXG_SLOT_SRC, 1, 0, VDXG_FMT_XRGB8888, 8192, 8192,
		   SZ_64K);
}

static void bad_surface_offset_overflow(struct cp_buf *b)
{
	b->allocs[0].size = 0xffffffffull + SZ_4K;
	cp_surface(b, VDXG_SLOT_SRC, 0, 0xfffff000, VDXG_FMT_XRGB8888, 1024, 2,
		   4096);
}

static void bad_surface_slot(struct cp_buf *b)
{
	cp_surface(b, VDXG_NUM_SLOTS, 0, 0, VDXG_FMT_XRGB8888, 4, 4, 16);
}

static void bad_surface_format(struct cp_buf *b)
{
	cp_surface(b, VDXG_SLOT_DST, 0, 0, VDXG_NUM_FMTS, 4, 4, 16);
}

static void bad_depth_format(struct cp_buf *b)
{
	cp_surface(b, VDXG_SLOT_DEPTH, 0, 0, VDXG_FMT_XRGB8888, 4, 4, 16);
}

static void bad_colour_d32(struct cp_buf *b)
{
	cp_surface(b, VDXG_SLOT_DST, 0, 0, VDXG_FMT_D32, 4, 4, 16);
}

static void bad_surface_size(struct cp_buf *b)
{
	cp_surface(b, VDXG_SLOT_DST, 0, 0, VDXG_FMT_XRGB8888, 0, 4, 16);
}

static void bad_surface_too_wide(struct cp_buf *b)
{
	cp_surface(b, VDXG_SLOT_DST, 0, 0, VDXG_FMT_RGB565,
		   VDXG_SURF_MAX_DIM + 1, 1, SZ_64K);
}

static void bad_pitch_small(struct cp_buf *b)
{
	cp_surface(b, VDXG_SLOT_DST, 0, 0, VDXG_FMT_XRGB8888, 8, 4, 28);
}

static void bad_pitch_unaligned(struct cp_buf *b)
{
	cp_surface(b, VDXG_SLOT_DST, 0, 0, VDXG_FMT_RGB565, 7, 4, 14);
}

static void bad_wrong_slot_id(struct cp_buf *b)
{
	cp_target(b);
	b->patches[0].slot_id = VDXG_SLOT_SRC;
}

static void bad_surface_readonly(struct cp_buf *b)
{
	cp_surface(b, VDXG_SLOT_DST, 1, 0, VDXG_FMT_XRGB8888, 4, 4, 16);
}

static void bad_fill_no_target(struct cp_buf *b)
{
	cp_fill(b, 0, 0, 1, 1);
}

static void bad_fill_outside(struct cp_buf *b)
{
	cp_target(b);
	cp_fill(b, 60, 0, 5, 1);
}

static void bad_copy_no_source(struct cp_buf *b)
{
	cp_target(b);
	b->cs[b->n++] = HDR(VDXG_RD_COPY_RECT, VDXG_RD_COPY_RECT_LEN);
	b->cs[b->n++] = 0;
	b->cs[b->n++] = 0;
	b->cs[b->n++] = VDXG_RD_XY(1, 1);
}

static void bad_blend_alpha(struct cp_buf *b)
{
	cp_target(b);
	cp_surface(b, VDXG_SLOT_SRC, 1, 0, VDXG_FMT_XRGB8888, 4, 4, 16);
	b->cs[b->n++] = HDR(VDXG_RD_BLEND, VDXG_RD_BLEND_LEN);
	b->cs[b->n++] = 0;
	b->cs[b->n++] = 0;
	b->cs[b->n++] = VDXG_RD_XY(1, 1);
	b->cs[b->n++] = 0x100;
}

static void bad_draw_flags(struct cp_buf *b)
{
	cp_target(b);
	cp_draw(b, 0x10, 3, 1);
}

static void bad_draw_bilinear(struct cp_buf *b)
{
	cp_target(b);
	cp_draw(b, VDXG_DRAW_BILINEAR, 3, 1);
}

static void bad_draw_count(struct cp_buf *b)
{
	cp_target(b);
	cp_draw(b, 0, 4, 1);
}

static void bad_draw_no_depth(struct cp_buf *b)
{
	cp_target(b);
	cp_draw(b, VDXG_DRAW_DEPTH_TEST, 3, 1);
}

static void bad_draw_vertices_past(struct cp_buf *b)
{
	cp_target(b);
	cp_draw(b, 0, 3 * 1024, 3);	/* 96 KiB from 16 KiB */
}

static void bad_draw_small_depth(struct cp_buf *b)
{
	cp_target(b);
	cp_surface(b, VDXG_SLOT_DEPTH, 2, 0, VDXG_FMT_D32, 64, 16, 256);
	cp_draw(b, VDXG_DRAW_DEPTH_TEST, 3, 1);
}

/* Inside the command whose field it splits before. */
static void bad_split_offset(struct cp_buf *b)
{
	cp_fence(b, 0, 0);
	b->patches[0].split_offset = 4;
}

/* After the address field. */
static void bad_split_after_field(struct cp_buf *b)
{
	cp_fence(b, 0, 0);
	cp_fence(b, 0, 8);
	b->patches[0].split_offset = VDXG_RD_FENCE_LEN * 4;
}

static void bad_split_misaligned(struct cp_buf *b)
{
	cp_fence(b, 0, 0);
	cp_fence(b, 0, 8);
	b->patches[1].split_offset = VDXG_RD_FENCE_LEN * 4 - 2;
}

/* A command boundary of another command's: inside a SET_SURFACE. */
static void bad_split_inside_other(struct cp_buf *b)
{
	cp_target(b);
	cp_fence(b, 0, 0);
	b->patches[1].split_offset = 8;
}

static const struct cp_bad_case cp_bad_cases[] = {
	{ "unknown opcode", bad_opcode, -EINVAL },
	{ "reserved header bits", bad_header_bits, -EINVAL },
	{ "wrong length", bad_length, -EINVAL },
	{ "truncated", bad_truncated, -EINVAL },
	{ "address without patch", bad_unpatched, -EINVAL },
	{ "patch outside buffer", bad_patch_outside, -EINVAL },
	{ "patch misaligned", bad_patch_misaligned, -EINVAL },
	{ "patch on a value", bad_patch_not_field, -EINVAL },
	{ "patch on a header", bad_patch_header, -EINVAL },
	{ "patch duplicated", bad_patch_duplicate, -EINVAL },
	{ "allocation index", bad_alloc_index, -EINVAL },
	{ "allocation offset past object", bad_alloc_offset, -ERANGE },
	{ "fence past object", bad_fence_extent, -ERANGE },
	{ "fence misaligned", bad_fence_align, -EINVAL },
	{ "fence read-only", bad_fence_readonly, -EACCES },
	{ "surface past object", bad_surface_extent, -ERANGE },
	{ "surface offset overflow", bad_surface_offset_overflow, -ERANGE },
	{ "surface slot", bad_surface_slot, -EINVAL },
	{ "surface format", bad_surface_format, -EINVAL },
	{ "depth colour format", bad_depth_format, -EINVAL },
	{ "colour slot D32", bad_colour_d32, -EINVAL },
	{ "surface size 0", bad_surface_size, -EINVAL },
	{ "surface too wide", bad_surface_too_wide, -EINVAL },
	{ "pitch too small", bad_pitch_small, -EINVAL },
	{ "pitch unaligned", bad_pitch_unaligned, -EINVAL },
	{ "wrong slot id", bad_wrong_slot_id, -EINVAL },
	{ "target read-only", bad_surface_readonly, -EACCES },
	{ "fill without target", bad_fill_no_target, -EINVAL },
	{ "fill outside", bad_fill_outside, -ERANGE },
	{ "copy without source", bad_copy_no_source, -EINVAL },
	{ "blend alpha", bad_blend_alpha, -EINVAL },
	{ "draw flags", bad_draw_flags, -EINVAL },
	{ "draw bilinear alone", bad_draw_bilinear, -EINVAL },
	{ "draw count", bad_draw_count, -EINVAL },
	{ "draw without depth", bad_draw_no_depth, -EINVAL },
	{ "draw vertices past", bad_draw_vertices_past, -ERANGE },
	{ "draw depth too small", bad_draw_small_depth, -ERANGE },
	{ "split offset inside its command", bad_split_offset, -EINVAL },
	{ "split offset after the field", bad_split_after_field, -EINVAL },
	{ "split offset misaligned", bad_split_misaligned, -EINVAL },
	{ "split offset inside another command", bad_split_inside_other,
	  -EINVAL },
};

static void cp_bad_desc(const struct cp_bad_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cp_bad, cp_bad_cases, cp_bad_desc);

static void vdxg_cp_rejects(struct kunit *test)
{
	const struct cp_bad_case *c = test->param_value;
	struct vdxg_cp_error err = {};
	struct cp_buf b;

	cp_init(&b);
	c->build(&b);
	b.splits.offsets = b.split_room;
	KUNIT_EXPECT_EQ(test, vdxg_cmd_validate(b.cs, b.n, b.allocs, 4,
						b.patches, b.npatches,
						&b.splits, &err),
			c->expect);
	KUNIT_EXPECT_NOT_NULL(test, err.what);
}

static void vdxg_cp_empty(struct kunit *test)
{
	struct cp_buf b;

	cp_init(&b);
	KUNIT_EXPECT_EQ(test, cp_run(&b), -EINVAL);
}

static void vdxg_cp_exact_fit(struct kunit *test)
{
	struct cp_buf b;

	cp_init(&b);
	/* The last 8 bytes of a 4 KiB object, and a surface that ends there. */
	cp_fence(&b, 2, SZ_4K - 8);
	cp_surface(&b, VDXG_SLOT_SRC, 3, SZ_4K, VDXG_FMT_RGB565, 100, 12, 1024);
	KUNIT_EXPECT_EQ(test, cp_run(&b), 0);
	/* 1024 * 11 + 200 = 11464 <= 12288 left; one more row does not fit. */
	b.cs[b.n - 2] = 13;
	KUNIT_EXPECT_EQ(test, cp_run(&b), -ERANGE);
}

/* Split points at command boundaries come back sorted, once each. */
static void vdxg_cp_splits(struct kunit *test)
{
	struct cp_buf b;
	u32 second, third;

	cp_init(&b);
	cp_fence(&b, 0, 0);
	second = b.n * 4;
	cp_target(&b);
	third = b.n * 4;
	cp_fill(&b, 0, 0, 8, 8);
	cp_fence(&b, 2, 0);
	b.patches[2].split_offset = third;
	b.patches[1].split_offset = second;
	b.patches[0].split_offset = 0;
	KUNIT_ASSERT_EQ(test, cp_run(&b), 0);
	KUNIT_ASSERT_EQ(test, b.splits.count, 2u);
	KUNIT_EXPECT_EQ(test, b.split_room[0], second);
	KUNIT_EXPECT_EQ(test, b.split_room[1], third);

	/* Two patches may name the same point. */
	b.patches[2].split_offset = second;
	KUNIT_ASSERT_EQ(test, cp_run(&b), 0);
	KUNIT_EXPECT_EQ(test, b.splits.count, 1u);
	KUNIT_EXPECT_EQ(test, b.split_room[0], second);

	/* Without room for split points the caller takes none. */
	KUNIT_EXPECT_EQ(test, vdxg_cmd_validate(b.cs, b.n, b.allocs, 4,
						b.patches, b.npatches, NULL,
						NULL), -EINVAL);
}

/* What each command sets and uses of the surface slots. */
static void vdxg_cp_state(struct kunit *test)
{
	static const struct {
		u32 flags;
		u32 uses;
	} draws[] = {
		{ 0, BIT(VDXG_SLOT_DST) },
		{ VDXG_DRAW_TEXTURE, BIT(VDXG_SLOT_DST) | BIT(VDXG_SLOT_TEXTURE) },
		{ VDXG_DRAW_DEPTH_TEST, BIT(VDXG_SLOT_DST) | BIT(VDXG_SLOT_DEPTH) },
		{ VDXG_DRAW_DEPTH_WRITE | VDXG_DRAW_TEXTURE,
		  BIT(VDXG_SLOT_DST) | BIT(VDXG_SLOT_DEPTH) |
		  BIT(VDXG_SLOT_TEXTURE) },
	};
	struct vdxg_cp_state st;
	struct cp_buf b;
	u32 i;

	cp_init(&b);
	cp_surface(&b, VDXG_SLOT_TEXTURE, 3, 0, VDXG_FMT_ARGB8888, 8, 8, 32);
	vdxg_cmd_state(b.cs, &st);
	KUNIT_EXPECT_EQ(test, st.sets, BIT(VDXG_SLOT_TEXTURE));
	KUNIT_EXPECT_EQ(test, st.uses, 0u);
	KUNIT_EXPECT_EQ(test, vdxg_cmd_len(b.cs), VDXG_RD_SET_SURFACE_LEN);

	b.n = 0;
	cp_fill(&b, 0, 0, 1, 1);
	vdxg_cmd_state(b.cs, &st);
	KUNIT_EXPECT_EQ(test, st.sets, 0u);
	KUNIT_EXPECT_EQ(test, st.uses, BIT(VDXG_SLOT_DST));

	b.cs[0] = HDR(VDXG_RD_BLEND, VDXG_RD_BLEND_LEN);
	vdxg_cmd_state(b.cs, &st);
	KUNIT_EXPECT_EQ(test, st.uses, BIT(VDXG_SLOT_SRC) | BIT(VDXG_SLOT_DST));

	b.cs[0] = HDR(VDXG_RD_FENCE, VDXG_RD_FENCE_LEN);
	vdxg_cmd_state(b.cs, &st);
	KUNIT_EXPECT_EQ(test, st.sets | st.uses, 0u);

	for (i = 0; i < ARRAY_SIZE(draws); i++) {
		b.n = 0;
		cp_draw(&b, draws[i].flags, 3, 1);
		vdxg_cmd_state(b.cs, &st);
		KUNIT_EXPECT_EQ(test, st.uses, draws[i].uses);
		KUNIT_EXPECT_EQ(test, st.sets, 0u);
	}
}

static struct kunit_case vdxg_cmdparse_cases[] = {
	KUNIT_CASE(vdxg_cp_accepts_every_command),
	KUNIT_CASE(vdxg_cp_patch_order),
	KUNIT_CASE_PARAM(vdxg_cp_rejects, cp_bad_gen_params),
	KUNIT_CASE(vdxg_cp_empty),
	KUNIT_CASE(vdxg_cp_exact_fit),
	KUNIT_CASE(vdxg_cp_splits),
	KUNIT_CASE(vdxg_cp_state),
	{}
};

static struct kunit_suite vdxg_cmdparse_suite = {
	.name = "vdxg_cmdparse",
	.test_cases = vdxg_cmdparse_cases,
};

kunit_test_suite(vdxg_cmdparse_suite);
