// SPDX-License-Identifier: MIT
/*
 * KUnit tests for vdxg's command-buffer validation and patching
 * (vdxg_cmdparse.c).
 *
 * Copyright 2026 The vdxg authors
 */

#include <kunit/test.h>

#include <linux/bitmap.h>
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
	u32 bad;		/* the dword a hostile buffer fails at */
};

static void cp_init(struct cp_buf *b)
{
	memset(b, 0, sizeof(*b));
	b->allocs[0] = (struct vdxg_cp_alloc){ SZ_1M, DRM_VDXG_ALLOC_WRITE };
	b->allocs[1] = (struct vdxg_cp_alloc){ SZ_64K, 0 };
	b->allocs[2] = (struct vdxg_cp_alloc){ SZ_4K, DRM_VDXG_ALLOC_WRITE };
	b->allocs[3] = (struct vdxg_cp_alloc){ SZ_16K, 0 };
}

/* The buffer is large: on the heap, not on a (KASAN) stack frame. */
static struct cp_buf *cp_new(struct kunit *test)
{
	struct cp_buf *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	return b;
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
	struct cp_buf *b = cp_new(test);

	cp_init(b);
	b->cs[b->n++] = HDR(VDXG_RD_NOP, 1);
	cp_fence(b, 0, 8);
	b->cs[b->n++] = HDR(VDXG_RD_WAIT, VDXG_RD_WAIT_LEN);
	cp_patch(b, 1, 16, 0);
	b->cs[b->n++] = 5;
	b->cs[b->n++] = 0;
	/* A 32x32 target, as large as the depth surface. */
	cp_surface(b, VDXG_SLOT_DST, 0, 0, VDXG_FMT_XRGB8888, 32, 32, 256);
	cp_surface(b, VDXG_SLOT_SRC, 1, 0, VDXG_FMT_RGB565, 32, 32, 64);
	cp_surface(b, VDXG_SLOT_DEPTH, 2, 0, VDXG_FMT_D32, 32, 32, 128);
	cp_surface(b, VDXG_SLOT_TEXTURE, 3, 0, VDXG_FMT_ARGB8888, 8, 8, 32);
	cp_fill(b, 0, 0, 32, 32);
	b->cs[b->n++] = HDR(VDXG_RD_COPY_RECT, VDXG_RD_COPY_RECT_LEN);
	b->cs[b->n++] = VDXG_RD_XY(16, 16);
	b->cs[b->n++] = VDXG_RD_XY(0, 0);
	b->cs[b->n++] = VDXG_RD_XY(16, 16);
	b->cs[b->n++] = HDR(VDXG_RD_BLEND, VDXG_RD_BLEND_LEN);
	b->cs[b->n++] = VDXG_RD_XY(1, 1);
	b->cs[b->n++] = VDXG_RD_XY(2, 2);
	b->cs[b->n++] = VDXG_RD_XY(30, 30);
	b->cs[b->n++] = 128;
	cp_draw(b, VDXG_DRAW_TEXTURE | VDXG_DRAW_BILINEAR |
		VDXG_DRAW_DEPTH_TEST | VDXG_DRAW_DEPTH_WRITE, 6, 3);

	KUNIT_EXPECT_EQ(test, cp_run(b), 0);
}

static void vdxg_cp_patch_order(struct kunit *test)
{
	struct vdxg_cp_error err = {};
	struct cp_buf *b = cp_new(test);
	u64 addr[4] = { 0x100000, 0x200000, 0x10000000000ull, 0x300000 };
	u32 i;

	cp_init(b);
	cp_fence(b, 0, 8);
	cp_fence(b, 2, 16);
	cp_target(b);
	/* Userspace may list patches in any order. */
	swap(b->patches[0], b->patches[2]);
	KUNIT_ASSERT_EQ(test, vdxg_cmd_validate(b->cs, b->n, b->allocs, 4,
						b->patches, b->npatches, NULL,
						&err), 0);
	for (i = 1; i < b->npatches; i++)
		KUNIT_EXPECT_LT(test, b->patches[i - 1].patch_offset,
				b->patches[i].patch_offset);

	KUNIT_EXPECT_EQ(test, vdxg_patch_apply(b->cs, b->patches, b->npatches,
					       addr), 3);
	KUNIT_EXPECT_EQ(test, b->cs[1], 0x100008u);
	KUNIT_EXPECT_EQ(test, b->cs[2], 0u);
	KUNIT_EXPECT_EQ(test, b->cs[6], 0x10u);
	KUNIT_EXPECT_EQ(test, b->cs[7], 0x100u);
	KUNIT_EXPECT_EQ(test, b->cs[12], 0x100000u);
	/* A second pass finds every field right and writes nothing. */
	KUNIT_EXPECT_EQ(test, vdxg_patch_apply(b->cs, b->patches, b->npatches,
					       addr), 0);
	addr[2] += 0x1000;
	KUNIT_EXPECT_EQ(test, vdxg_patch_apply(b->cs, b->patches, b->npatches,
					       addr), 1);
	KUNIT_EXPECT_EQ(test, b->cs[6], 0x1010u);
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
	struct cp_buf *b = cp_new(test);

	cp_init(b);
	c->build(b);
	b->splits.offsets = b->split_room;
	KUNIT_EXPECT_EQ(test, vdxg_cmd_validate(b->cs, b->n, b->allocs, 4,
						b->patches, b->npatches,
						&b->splits, &err),
			c->expect);
	KUNIT_EXPECT_NOT_NULL(test, err.what);
}

static void vdxg_cp_empty(struct kunit *test)
{
	struct cp_buf *b = cp_new(test);

	cp_init(b);
	KUNIT_EXPECT_EQ(test, cp_run(b), -EINVAL);
}

static void vdxg_cp_exact_fit(struct kunit *test)
{
	struct cp_buf *b = cp_new(test);

	cp_init(b);
	/* The last 8 bytes of a 4 KiB object, and a surface that ends there. */
	cp_fence(b, 2, SZ_4K - 8);
	cp_surface(b, VDXG_SLOT_SRC, 3, SZ_4K, VDXG_FMT_RGB565, 100, 12, 1024);
	KUNIT_EXPECT_EQ(test, cp_run(b), 0);
	/* 1024 * 11 + 200 = 11464 <= 12288 left; one more row does not fit. */
	b->cs[b->n - 2] = 13;
	KUNIT_EXPECT_EQ(test, cp_run(b), -ERANGE);
}

/* Split points at command boundaries come back sorted, once each. */
static void vdxg_cp_splits(struct kunit *test)
{
	struct cp_buf *b = cp_new(test);
	u32 second, third;

	cp_init(b);
	cp_fence(b, 0, 0);
	second = b->n * 4;
	cp_target(b);
	third = b->n * 4;
	cp_fill(b, 0, 0, 8, 8);
	cp_fence(b, 2, 0);
	b->patches[2].split_offset = third;
	b->patches[1].split_offset = second;
	b->patches[0].split_offset = 0;
	KUNIT_ASSERT_EQ(test, cp_run(b), 0);
	KUNIT_ASSERT_EQ(test, b->splits.count, 2u);
	KUNIT_EXPECT_EQ(test, b->split_room[0], second);
	KUNIT_EXPECT_EQ(test, b->split_room[1], third);

	/* Two patches may name the same point. */
	b->patches[2].split_offset = second;
	KUNIT_ASSERT_EQ(test, cp_run(b), 0);
	KUNIT_EXPECT_EQ(test, b->splits.count, 1u);
	KUNIT_EXPECT_EQ(test, b->split_room[0], second);

	/* Without room for split points the caller takes none. */
	KUNIT_EXPECT_EQ(test, vdxg_cmd_validate(b->cs, b->n, b->allocs, 4,
						b->patches, b->npatches, NULL,
						NULL), -EINVAL);
}

/* The keys set in @bits, as a u32 of the surface slots, for the 2D tests */
static u32 cp_slots(struct kunit *test, const unsigned long *bits)
{
	u32 v = 0, s;

	for (s = 0; s < VDXG_NUM_SLOTS; s++)
		if (test_bit(VDXG_CP_KEY_SLOT(s), bits))
			v |= BIT(s);
	KUNIT_EXPECT_EQ(test, bitmap_weight(bits, VDXG_CP_MAX_STATE),
			hweight32(v));
	return v;
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
	struct cp_buf *b = cp_new(test);
	u32 i;

	cp_init(b);
	cp_surface(b, VDXG_SLOT_TEXTURE, 3, 0, VDXG_FMT_ARGB8888, 8, 8, 32);
	vdxg_cmd_state(b->cs, &st);
	KUNIT_EXPECT_EQ(test, cp_slots(test, st.sets), BIT(VDXG_SLOT_TEXTURE));
	KUNIT_EXPECT_EQ(test, cp_slots(test, st.uses), 0u);
	KUNIT_EXPECT_EQ(test, vdxg_cmd_len(b->cs), VDXG_RD_SET_SURFACE_LEN);

	b->n = 0;
	cp_fill(b, 0, 0, 1, 1);
	vdxg_cmd_state(b->cs, &st);
	KUNIT_EXPECT_EQ(test, cp_slots(test, st.sets), 0u);
	KUNIT_EXPECT_EQ(test, cp_slots(test, st.uses), BIT(VDXG_SLOT_DST));

	b->cs[0] = HDR(VDXG_RD_BLEND, VDXG_RD_BLEND_LEN);
	vdxg_cmd_state(b->cs, &st);
	KUNIT_EXPECT_EQ(test, cp_slots(test, st.uses),
			BIT(VDXG_SLOT_SRC) | BIT(VDXG_SLOT_DST));

	b->cs[0] = HDR(VDXG_RD_FENCE, VDXG_RD_FENCE_LEN);
	vdxg_cmd_state(b->cs, &st);
	KUNIT_EXPECT_EQ(test, cp_slots(test, st.sets) | cp_slots(test, st.uses), 0u);

	for (i = 0; i < ARRAY_SIZE(draws); i++) {
		b->n = 0;
		cp_draw(b, draws[i].flags, 3, 1);
		vdxg_cmd_state(b->cs, &st);
		KUNIT_EXPECT_EQ(test, cp_slots(test, st.uses), draws[i].uses);
		KUNIT_EXPECT_EQ(test, cp_slots(test, st.sets), 0u);
	}
}

/* ------------------------------------------------------ the 3D pipeline */

#define F32_ONE		0x3f800000u
#define F32_INF		0x7f800000u
#define F32_NAN		0x7fc00000u
#define F32_16384	0x46800000u

static int cp_run3(struct cp_buf *b, struct vdxg_cp_error *err)
{
	b->splits.offsets = b->split_room;
	return vdxg_cmd_parse(b->cs, b->n, b->allocs, ARRAY_SIZE(b->allocs),
			      b->patches, b->npatches, &b->splits, VDXG_CP_3D,
			      err);
}

/* Start a command; a hostile one fails here unless its builder says else. */
static u32 cp3_begin(struct cp_buf *b, u32 op, u32 len)
{
	b->bad = b->n;
	b->cs[b->n++] = HDR(op, len);
	return b->bad;
}

static void cp3_state(struct cp_buf *b, u32 first, u32 n, const u32 *v)
{
	u32 k;

	cp3_begin(b, VDXG_RD_SET_STATE, VDXG_RD_SET_STATE_LEN(n));
	b->cs[b->n++] = first;
	for (k = 0; k < n; k++)
		b->cs[b->n++] = v ? v[k] : 0;
}

static void cp3_load(struct cp_buf *b, u32 alloc, u32 off, u32 first,
		     u32 count)
{
	cp3_begin(b, VDXG_RD_LOAD_STATE, VDXG_RD_LOAD_STATE_LEN);
	cp_patch(b, alloc, off, 0);
	b->cs[b->n++] = first;
	b->cs[b->n++] = count;
}

static void cp3_shader(struct cp_buf *b, u32 stage, u32 alloc, u32 off,
		       u32 size)
{
	cp3_begin(b, VDXG_RD_SET_SHADER, VDXG_RD_SET_SHADER_LEN);
	b->cs[b->n++] = stage;
	cp_patch(b, alloc, off, 0);
	b->cs[b->n++] = size;
}

/* Both programs, 64 bytes each, in allocation 3. */
static void cp3_programs(struct cp_buf *b)
{
	cp3_shader(b, VDXG_3D_STAGE_VERTEX, 3, 0, 64);
	cp3_shader(b, VDXG_3D_STAGE_FRAGMENT, 3, SZ_4K, 64);
}

/* An unbinding command's address: zero, no patch location. */
static void cp3_no_addr(struct cp_buf *b)
{
	b->cs[b->n++] = 0;
	b->cs[b->n++] = 0;
}

static void cp3_consts(struct cp_buf *b, u32 stage, u32 alloc, u32 off,
		       u32 count)
{
	cp3_begin(b, VDXG_RD_SET_CONSTANTS, VDXG_RD_SET_CONSTANTS_LEN);
	b->cs[b->n++] = stage;
	if (count)
		cp_patch(b, alloc, off, 0);
	else
		cp3_no_addr(b);
	b->cs[b->n++] = count;
}

static void cp3_vb(struct cp_buf *b, u32 index, u32 alloc, u32 off, u32 size,
		   u32 stride)
{
	cp3_begin(b, VDXG_RD_SET_VERTEX_BUFFER, VDXG_RD_SET_VERTEX_BUFFER_LEN);
	b->cs[b->n++] = index;
	if (size)
		cp_patch(b, alloc, off, 0);
	else
		cp3_no_addr(b);
	b->cs[b->n++] = size;
	b->cs[b->n++] = stride;
}

static void cp3_ib(struct cp_buf *b, u32 alloc, u32 off, u32 size,
		   u32 index_size)
{
	cp3_begin(b, VDXG_RD_SET_INDEX_BUFFER, VDXG_RD_SET_INDEX_BUFFER_LEN);
	if (index_size)
		cp_patch(b, alloc, off, 0);
	else
		cp3_no_addr(b);
	b->cs[b->n++] = size;
	b->cs[b->n++] = index_size;
}

static void cp3_tex(struct cp_buf *b, u32 unit, u32 alloc, u32 off, u32 size,
		    u32 desc, u32 w, u32 h)
{
	cp3_begin(b, VDXG_RD_SET_TEXTURE, VDXG_RD_SET_TEXTURE_LEN);
	b->cs[b->n++] = unit;
	if (desc)
		cp_patch(b, alloc, off, 0);
	else
		cp3_no_addr(b);
	b->cs[b->n++] = size;
	b->cs[b->n++] = desc;
	b->cs[b->n++] = VDXG_RD_XY(w, h);
}

static void cp3_draw(struct cp_buf *b, u32 prim, u32 first, u32 count)
{
	cp3_begin(b, VDXG_RD_DRAW, VDXG_RD_DRAW_LEN);
	b->cs[b->n++] = prim;
	b->cs[b->n++] = first;
	b->cs[b->n++] = count;
}

static void cp3_draw_indexed(struct cp_buf *b, u32 prim, u32 first,
			     u32 count, s32 bias)
{
	cp3_begin(b, VDXG_RD_DRAW_INDEXED, VDXG_RD_DRAW_INDEXED_LEN);
	b->cs[b->n++] = prim;
	b->cs[b->n++] = first;
	b->cs[b->n++] = count;
	b->cs[b->n++] = bias;
}

static void cp3_clear(struct cp_buf *b, u32 flags, u32 stencil)
{
	cp3_begin(b, VDXG_RD_CLEAR, VDXG_RD_CLEAR_LEN);
	b->cs[b->n++] = flags;
	b->cs[b->n++] = VDXG_RD_XY(0, 0);
	b->cs[b->n++] = VDXG_RD_XY(64, 64);
	b->cs[b->n++] = F32_ONE;	/* r, g, b, a */
	b->cs[b->n++] = 0;
	b->cs[b->n++] = F32_ONE;
	b->cs[b->n++] = F32_NAN;	/* any value */
	b->cs[b->n++] = F32_ONE;	/* depth */
	b->cs[b->n++] = stencil;
}

/* A 64x64 ABGR8888 target and a D24S8 depth-stencil surface. */
static void cp3_targets(struct cp_buf *b)
{
	cp_surface(b, VDXG_SLOT_DST, 0, 0, VDXG_FMT_ABGR8888, 64, 64, 256);
	cp_surface(b, VDXG_SLOT_DEPTH, 0, SZ_64K, VDXG_FMT_D24S8, 64, 64, 256);
}

/* Everything a draw needs. */
static void cp3_ready(struct cp_buf *b)
{
	cp3_targets(b);
	cp3_programs(b);
}

/*
 * Every 3D command, with every binding bound and unbound, and what each
 * draw needs: accepted. Addresses are the patches', the rest the buffer's.
 */
static void vdxg_cp3_accepts_every_command(struct kunit *test)
{
	static const u32 regs[VDXG_3D_NUM_REGS] = {
		[VDXG_3D_RASTER] = VDXG_RASTER_CULL_BACK | VDXG_RASTER_SCISSOR,
		[VDXG_3D_POINT_SIZE] = F32_ONE,
		[VDXG_3D_VIEWPORT_SCALE(0)] = F32_16384,
		[VDXG_3D_SCISSOR_MAX] = VDXG_RD_XY(8192, 8192),
		[VDXG_3D_DEPTH] = VDXG_DEPTH_TEST | VDXG_DEPTH_WRITE |
				  VDXG_DEPTH_FUNC(VDXG_FUNC_LESS),
		[VDXG_3D_BLEND] = VDXG_BLEND_ENABLE |
			VDXG_BLEND_RGB_SRC(VDXG_BLF_SRC_ALPHA) |
			VDXG_BLEND_RGB_DST(VDXG_BLF_ONE_MINUS_SRC_ALPHA),
		[VDXG_3D_BLEND_COLOR(0)] = F32_NAN,
		[VDXG_3D_ELEMENT(0)] =
			VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_FLOAT32, 4), 0, 0),
		[VDXG_3D_ELEMENT(1)] =
			VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_UNORM8, 4), 1, 16),
		[VDXG_3D_SAMPLER(0)] = VDXG_SAMPLER_MAG_LINEAR |
			VDXG_SAMPLER_MIN_LINEAR |
			VDXG_SAMPLER_MIP(VDXG_MIP_LINEAR),
		[VDXG_3D_SAMPLER(7)] = VDXG_SAMPLER_WRAP_S(VDXG_WRAP_MIRROR) |
			VDXG_SAMPLER_WRAP_T(VDXG_WRAP_CLAMP),
	};
	struct vdxg_cp_error err = {};
	struct cp_buf *b = cp_new(test);

	cp_init(b);
	cp3_ready(b);
	cp3_state(b, 0, VDXG_3D_NUM_REGS, regs);
	cp3_state(b, 63, 1, NULL);
	cp3_load(b, 1, 0, 0, VDXG_3D_NUM_REGS);
	cp3_consts(b, VDXG_3D_STAGE_VERTEX, 1, 256, VDXG_3D_NUM_CONSTS);
	cp3_consts(b, VDXG_3D_STAGE_FRAGMENT, 0, 0, 0);
	cp3_vb(b, 0, 1, 3, 1000, 28);
	cp3_vb(b, 15, 0, 0, 0, VDXG_3D_MAX_STRIDE);
	cp3_ib(b, 1, 1, 600, 2);
	/* Read-only memory serves every binding. */
	cp3_tex(b, 0, 1, 8192, SZ_16K,
		VDXG_TEX_DESC(VDXG_FMT_RGBA4444, 7, false), 64, 64);
	cp3_tex(b, 7, 0, 0, 0, 0, 0, 0);
	cp3_clear(b, VDXG_CLEAR_COLOR | VDXG_CLEAR_DEPTH |
		  VDXG_CLEAR_STENCIL, 0xff);
	cp3_draw(b, VDXG_PRIM_TRIANGLES, 0, 3);
	cp3_draw(b, VDXG_PRIM_POINTS, 0xffffffff, 1);
	cp3_draw(b, VDXG_PRIM_TRIANGLE_FAN, 0, VDXG_3D_MAX_COUNT);
	cp3_draw(b, VDXG_PRIM_LINE_LOOP, 0, 0);
	cp3_draw_indexed(b, VDXG_PRIM_TRIANGLE_STRIP, 100, 200, -5);
	/* The 2D commands draw into the new formats too. */
	cp_fill(b, 0, 0, 64, 64);

	KUNIT_EXPECT_EQ_MSG(test, cp_run3(b, &err), 0, "dword %u: %s",
			    err.dword, err.what);
}

/* Without the cap, each 3D opcode is unknown, at its header. */
static void vdxg_cp3_needs_cap(struct kunit *test)
{
	struct vdxg_cp_error err = {};
	struct cp_buf *b = cp_new(test);
	u32 op;

	for (op = VDXG_RD_SET_STATE; op < VDXG_RD_NUM_OPS_3D; op++) {
		cp_init(b);
		cp_target(b);
		b->bad = b->n;
		b->cs[b->n++] = HDR(op, 1);
		KUNIT_EXPECT_EQ(test, vdxg_cmd_parse(b->cs, b->n, b->allocs, 4,
						     b->patches, b->npatches,
						     NULL, 0, &err), -EINVAL);
		KUNIT_EXPECT_EQ(test, err.dword, b->bad);
		KUNIT_EXPECT_STREQ(test, err.what, "unknown opcode");
	}
	/* With it, 0x12 and above still are. */
	cp_init(b);
	b->cs[b->n++] = HDR(VDXG_RD_NUM_OPS_3D, 1);
	KUNIT_EXPECT_EQ(test, cp_run3(b, &err), -EINVAL);
	KUNIT_EXPECT_STREQ(test, err.what, "unknown opcode");
	/* And the new formats are the 3D pipeline's. */
	cp_init(b);
	cp3_targets(b);
	KUNIT_EXPECT_EQ(test, cp_run3(b, NULL), 0);
	KUNIT_EXPECT_EQ(test, cp_run(b), -EINVAL);
}

/* Each fixed-length 3D command one dword short and one long. */
static void vdxg_cp3_lengths(struct kunit *test)
{
	static const u32 lens[] = {
		[VDXG_RD_LOAD_STATE] = VDXG_RD_LOAD_STATE_LEN,
		[VDXG_RD_SET_SHADER] = VDXG_RD_SET_SHADER_LEN,
		[VDXG_RD_SET_CONSTANTS] = VDXG_RD_SET_CONSTANTS_LEN,
		[VDXG_RD_SET_VERTEX_BUFFER] = VDXG_RD_SET_VERTEX_BUFFER_LEN,
		[VDXG_RD_SET_INDEX_BUFFER] = VDXG_RD_SET_INDEX_BUFFER_LEN,
		[VDXG_RD_SET_TEXTURE] = VDXG_RD_SET_TEXTURE_LEN,
		[VDXG_RD_DRAW] = VDXG_RD_DRAW_LEN,
		[VDXG_RD_DRAW_INDEXED] = VDXG_RD_DRAW_INDEXED_LEN,
		[VDXG_RD_CLEAR] = VDXG_RD_CLEAR_LEN,
	};
	struct vdxg_cp_error err = {};
	struct cp_buf *b = cp_new(test);
	u32 op, d;
	int delta;

	for (op = VDXG_RD_LOAD_STATE; op < VDXG_RD_NUM_OPS_3D; op++) {
		for (delta = -1; delta <= 1; delta += 2) {
			cp_init(b);
			cp_fence(b, 0, 0);
			b->bad = b->n;
			b->cs[b->n++] = HDR(op, lens[op] + delta);
			for (d = 1; d < lens[op] + delta; d++)
				b->cs[b->n++] = 0;
			KUNIT_EXPECT_EQ(test, cp_run3(b, &err), -EINVAL);
			KUNIT_EXPECT_EQ(test, err.dword, b->bad);
			KUNIT_EXPECT_STREQ(test, err.what, "bad command length");
		}
	}
	/* SET_STATE: 2 + n, n from 1 to 64. */
	for (d = 0; d <= 67; d++) {
		cp_init(b);
		b->cs[b->n++] = HDR(VDXG_RD_SET_STATE, d);
		for (op = 1; op < d; op++)
			b->cs[b->n++] = 0;
		if (!d)
			b->n++;	/* a length of 0 is still a dword */
		if (d >= 3 && d <= 66) {
			KUNIT_EXPECT_EQ(test, cp_run3(b, &err), 0);
			continue;
		}
		KUNIT_EXPECT_EQ(test, cp_run3(b, &err), -EINVAL);
		KUNIT_EXPECT_EQ(test, err.dword, 0);
		KUNIT_EXPECT_STREQ(test, err.what, "bad command length");
	}
	/*
	 * A length of 0 at the end of the buffer: refused for its length,
	 * never read as a count of 2^32 - 2 registers past the buffer.
	 */
	cp_init(b);
	cp_fence(b, 0, 0);
	b->bad = b->n;
	b->cs[b->n++] = HDR(VDXG_RD_SET_STATE, 0);
	b->cs[b->n++] = 0;
	KUNIT_EXPECT_EQ(test, cp_run3(b, &err), -EINVAL);
	KUNIT_EXPECT_EQ(test, err.dword, b->bad);
	KUNIT_EXPECT_STREQ(test, err.what, "bad command length");
	/* And a truncated one. */
	cp_init(b);
	cp3_state(b, 0, 4, NULL);
	b->n--;
	KUNIT_EXPECT_EQ(test, cp_run3(b, &err), -EINVAL);
	KUNIT_EXPECT_STREQ(test, err.what, "truncated command");
}

/*
 * Every register's allowed and refused values: SET_STATE of one register
 * at a time, and of a whole file with one bad value in it.
 */
struct cp3_reg_rule {
	u32 first;
	u32 last;
	u32 ok[8];
	u32 nok;
	u32 bad[10];
	u32 nbad;
};

#define BLEND_ALL	(VDXG_BLEND_ENABLE | VDXG_BLEND_RGB_EQ(4) | \
			 VDXG_BLEND_RGB_SRC(14) | VDXG_BLEND_RGB_DST(14) | \
			 VDXG_BLEND_A_EQ(4) | VDXG_BLEND_A_SRC(14) | \
			 VDXG_BLEND_A_DST(14) | VDXG_BLEND_WRITE_DISABLE(0xf))
#define SAMPLER_ALL	(VDXG_SAMPLER_MAG_LINEAR | VDXG_SAMPLER_MIN_LINEAR | \
			 VDXG_SAMPLER_MIP(2) | VDXG_SAMPLER_WRAP_S(2) | \
			 VDXG_SAMPLER_WRAP_T(2))
#define STENCIL_ALL	(VDXG_STENCIL_TEST | VDXG_STENCIL_FUNC(7) | \
			 VDXG_STENCIL_FAIL_OP(7) | VDXG_STENCIL_ZFAIL_OP(7) | \
			 VDXG_STENCIL_ZPASS_OP(7) | \
			 VDXG_STENCIL_VALUE_MASK(0xff) | \
			 VDXG_STENCIL_WRITE_MASK(0xff))

static const struct cp3_reg_rule cp3_reg_rules[] = {
	{ VDXG_3D_RASTER, VDXG_3D_RASTER,
	  { 0, VDXG_RASTER_MASK, VDXG_RASTER_CULL_FRONT }, 3,
	  { 0x40, 0x80000000 }, 2 },
	{ VDXG_3D_POINT_SIZE, VDXG_3D_POLY_OFFSET_UNITS,
	  { 0, F32_ONE, 0xff7fffff, 0x80000000, 0x00000001 }, 5,
	  { F32_INF, F32_INF | BIT(31), F32_NAN, 0x7f800001, 0xffffffff }, 5 },
	{ VDXG_3D_VIEWPORT_SCALE(0), VDXG_3D_VIEWPORT_TRANSLATE(2),
	  { 0, F32_16384, F32_16384 | BIT(31), F32_ONE, 0x80000000 }, 5,
	  { F32_16384 + 1, (F32_16384 + 1) | BIT(31), F32_INF, F32_NAN,
	    0x7f7fffff }, 5 },
	{ VDXG_3D_SCISSOR_MIN, VDXG_3D_SCISSOR_MAX,
	  { 0, VDXG_RD_XY(8192, 8192), VDXG_RD_XY(100, 0) }, 3,
	  { VDXG_RD_XY(8193, 0), VDXG_RD_XY(0, 8193), 0xffffffff }, 3 },
	{ VDXG_3D_DEPTH, VDXG_3D_DEPTH,
	  { 0, VDXG_DEPTH_MASK }, 2, { 0x20, 0x80000000 }, 2 },
	{ VDXG_3D_STENCIL_FRONT, VDXG_3D_STENCIL_BACK,
	  { 0, STENCIL_ALL }, 2, { BIT(13), BIT(14), BIT(15) }, 3 },
	{ VDXG_3D_STENCIL_REF, VDXG_3D_STENCIL_REF,
	  { 0, 0xffff }, 2, { 0x10000, 0x80000000 }, 2 },
	{ VDXG_3D_BLEND, VDXG_3D_BLEND,
	  { 0, BLEND_ALL }, 2,
	  { VDXG_BLEND_RGB_EQ(5), VDXG_BLEND_RGB_EQ(7), VDXG_BLEND_A_EQ(5),
	    VDXG_BLEND_RGB_SRC(15), VDXG_BLEND_RGB_DST(15),
	    VDXG_BLEND_A_SRC(15), VDXG_BLEND_A_DST(15), BIT(15), BIT(28),
	    BIT(31) }, 10 },
	{ VDXG_3D_BLEND_COLOR(0), VDXG_3D_BLEND_COLOR(3),
	  { 0, F32_NAN, F32_INF, 0xffffffff }, 4, { }, 0 },
	{ 0x15, 0x1f, { 0 }, 1, { 1, 0x80000000 }, 2 },
	{ VDXG_3D_ELEMENT(0), VDXG_3D_ELEMENT(15),
	  { 0, VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_FLOAT32, 4), 15, 0xffff),
	    VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_SINT16, 1), 0, 2),
	    VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_UNORM8, 3), 7, 0) }, 4,
	  { VDXG_VFMT(10, 1), VDXG_VFMT(15, 4), VDXG_VFMT(VDXG_VTYPE_NONE, 2),
	    VDXG_VFMT(VDXG_VTYPE_NONE, 4), BIT(6), BIT(7), BIT(12),
	    BIT(15) }, 8 },
	{ VDXG_3D_SAMPLER(0), VDXG_3D_SAMPLER(7),
	  { 0, SAMPLER_ALL }, 2,
	  { VDXG_SAMPLER_MIP(3), VDXG_SAMPLER_WRAP_S(3), VDXG_SAMPLER_WRAP_S(7),
	    VDXG_SAMPLER_WRAP_T(3), VDXG_SAMPLER_WRAP_T(7), BIT(10),
	    BIT(31) }, 7 },
	{ 0x38, 0x3f, { 0 }, 1, { 1, 0x80000000 }, 2 },
};

static int cp3_set_one(struct cp_buf *b, u32 reg, u32 v,
		       struct vdxg_cp_error *err)
{
	cp_init(b);
	cp_fence(b, 0, 0);
	cp3_state(b, reg, 1, &v);
	return cp_run3(b, err);
}

static void vdxg_cp3_registers(struct kunit *test)
{
	struct vdxg_cp_error err = {};
	u32 covered = 0, file[VDXG_3D_NUM_REGS] = {};
	struct cp_buf *b = cp_new(test);
	u32 i, r, k;
	int ret;

	for (i = 0; i < ARRAY_SIZE(cp3_reg_rules); i++) {
		const struct cp3_reg_rule *rule = &cp3_reg_rules[i];

		for (r = rule->first; r <= rule->last; r++) {
			covered++;
			for (k = 0; k < rule->nok; k++) {
				ret = cp3_set_one(b, r, rule->ok[k], &err);
				KUNIT_EXPECT_EQ_MSG(test, ret, 0,
						    "reg %#x value %#x", r,
						    rule->ok[k]);
			}
			for (k = 0; k < rule->nbad; k++) {
				ret = cp3_set_one(b, r, rule->bad[k], &err);
				KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL,
						    "reg %#x value %#x", r,
						    rule->bad[k]);
				KUNIT_EXPECT_EQ(test, err.dword, b->bad);
				KUNIT_EXPECT_STREQ(test, err.what,
						   "bad register value");
				/* The whole file, this one value bad. */
				cp_init(b);
				file[r] = rule->bad[k];
				cp3_state(b, 0, VDXG_3D_NUM_REGS, file);
				file[r] = 0;
				KUNIT_EXPECT_EQ(test, cp_run3(b, &err),
						-EINVAL);
			}
		}
	}
	KUNIT_EXPECT_EQ(test, covered, VDXG_3D_NUM_REGS);

	/* first + n past 64, or first far out */
	cp_init(b);
	cp3_state(b, 60, 5, NULL);
	KUNIT_EXPECT_EQ(test, cp_run3(b, &err), -EINVAL);
	KUNIT_EXPECT_STREQ(test, err.what, "registers past the last");
	cp_init(b);
	cp3_state(b, 0xffffffff, 2, NULL);
	KUNIT_EXPECT_EQ(test, cp_run3(b, &err), -EINVAL);
	cp_init(b);
	cp3_state(b, 64, 1, NULL);
	KUNIT_EXPECT_EQ(test, cp_run3(b, &err), -EINVAL);
	cp_init(b);
	cp3_state(b, 60, 4, NULL);
	KUNIT_EXPECT_EQ(test, cp_run3(b, &err), 0);
}

/* A hostile 3D buffer, its errno and the dword it fails at. */
struct cp3_case {
	const char *name;
	void (*build)(struct cp_buf *b);
	int expect;
	u32 field;	/* the failing dword from b->bad (an address field) */
};

static void h_load_count0(struct cp_buf *b) { cp3_load(b, 0, 0, 0, 0); }
static void h_load_count65(struct cp_buf *b) { cp3_load(b, 0, 0, 0, 65); }
static void h_load_past(struct cp_buf *b) { cp3_load(b, 0, 0, 1, 64); }
static void h_load_align(struct cp_buf *b) { cp3_load(b, 0, 2, 0, 1); }
/* 16 dwords, the last one byte past a 4 KiB object */
static void h_load_range(struct cp_buf *b)
{
	cp3_load(b, 2, SZ_4K - 60, 0, 16);
}

static void h_load_exact(struct cp_buf *b)
{
	cp3_load(b, 2, SZ_4K - 64, 0, 16);
}

static void h_shader_stage(struct cp_buf *b) { cp3_shader(b, 2, 3, 0, 64); }
static void h_shader_small(struct cp_buf *b) { cp3_shader(b, 0, 3, 0, 15); }
static void h_shader_big(struct cp_buf *b)
{
	b->allocs[0].size = SZ_128K;
	cp3_shader(b, 0, 0, 0, VDXG_3D_PROGRAM_MAX_BYTES + 1);
}

static void h_shader_max(struct cp_buf *b)
{
	cp3_shader(b, 1, 0, 0, VDXG_3D_PROGRAM_MAX_BYTES);
}

static void h_shader_align(struct cp_buf *b) { cp3_shader(b, 0, 3, 2, 64); }
static void h_shader_range(struct cp_buf *b)
{
	cp3_shader(b, 0, 3, SZ_16K - 63, 64);
}

static void h_shader_slot(struct cp_buf *b)
{
	cp3_shader(b, 0, 3, 0, 64);
	b->patches[0].slot_id = VDXG_SLOT_TEXTURE;
}

static void h_consts_stage(struct cp_buf *b) { cp3_consts(b, 2, 0, 0, 1); }
static void h_consts_count(struct cp_buf *b)
{
	cp3_consts(b, 0, 0, 0, VDXG_3D_NUM_CONSTS + 1);
}

/* 256 vec4 are 4 KiB: from byte 4 of a 4 KiB object, 4 bytes past */
static void h_consts_range(struct cp_buf *b)
{
	cp3_consts(b, 1, 2, 4, VDXG_3D_NUM_CONSTS);
}

static void h_consts_unbind_addr(struct cp_buf *b)
{
	cp3_consts(b, 0, 0, 0, 0);
	b->cs[b->n - 2] = 0x1000;
}

/* A patch on an unbinding command's address is on no address field. */
static void h_consts_unbind_patch(struct cp_buf *b)
{
	cp3_consts(b, 0, 0, 0, 1);
	b->cs[b->n - 3] = 0;
	b->cs[b->n - 2] = 0;
	b->cs[b->n - 1] = 0;
}

static void h_vb_index(struct cp_buf *b) { cp3_vb(b, 16, 0, 0, 16, 16); }
static void h_vb_stride(struct cp_buf *b)
{
	cp3_vb(b, 0, 0, 0, 16, VDXG_3D_MAX_STRIDE + 1);
}

static void h_vb_range(struct cp_buf *b) { cp3_vb(b, 3, 1, 1, SZ_64K, 16); }
static void h_vb_exact(struct cp_buf *b)
{
	cp3_vb(b, 3, 1, 1, SZ_64K - 1, 16);
}

static void h_vb_unbind_addr(struct cp_buf *b)
{
	cp3_vb(b, 0, 0, 0, 0, 0);
	b->cs[b->n - 3] = 1;
}

static void h_ib_size3(struct cp_buf *b) { cp3_ib(b, 0, 0, 64, 3); }
static void h_ib_size8(struct cp_buf *b) { cp3_ib(b, 0, 0, 64, 8); }
static void h_ib_unbind_size(struct cp_buf *b) { cp3_ib(b, 0, 0, 64, 0); }
static void h_ib_unbind_addr(struct cp_buf *b)
{
	cp3_ib(b, 0, 0, 0, 0);
	b->cs[b->n - 4] = 0x100;
}

static void h_ib_range(struct cp_buf *b) { cp3_ib(b, 2, 4, SZ_4K - 3, 4); }

static void h_tex_unit(struct cp_buf *b)
{
	cp3_tex(b, 8, 0, 0, 64, VDXG_TEX_DESC(VDXG_FMT_L8, 1, false), 8, 8);
}

static void h_tex_fmt(struct cp_buf *b, u32 fmt)
{
	cp3_tex(b, 0, 0, 0, 256, VDXG_TEX_DESC(fmt, 1, false), 8, 8);
}

static void h_tex_d32(struct cp_buf *b) { h_tex_fmt(b, VDXG_FMT_D32); }
static void h_tex_d16(struct cp_buf *b) { h_tex_fmt(b, VDXG_FMT_D16); }
static void h_tex_d24s8(struct cp_buf *b) { h_tex_fmt(b, VDXG_FMT_D24S8); }
static void h_tex_fmt14(struct cp_buf *b) { h_tex_fmt(b, VDXG_NUM_FMTS_3D); }
static void h_tex_fmt_hi(struct cp_buf *b) { h_tex_fmt(b, 0xff); }
static void h_tex_rsvd(struct cp_buf *b)
{
	cp3_tex(b, 0, 0, 0, 256, VDXG_TEX_DESC(VDXG_FMT_L8, 1, false) |
		BIT(13), 8, 8);
}

static void h_tex_levels0(struct cp_buf *b)
{
	cp3_tex(b, 0, 0, 0, 256, VDXG_TEX_DESC(VDXG_FMT_L8, 0, false), 8, 8);
}

static void h_tex_levels15(struct cp_buf *b)
{
	cp3_tex(b, 0, 0, 0, 256, VDXG_TEX_DESC(VDXG_FMT_L8, 15, false), 8, 8);
}

static void h_tex_width0(struct cp_buf *b)
{
	cp3_tex(b, 0, 0, 0, 256, VDXG_TEX_DESC(VDXG_FMT_L8, 1, false), 0, 8);
}

static void h_tex_height_big(struct cp_buf *b)
{
	cp3_tex(b, 0, 0, 0, SZ_1M, VDXG_TEX_DESC(VDXG_FMT_L8, 1, false), 1,
		VDXG_TEX_MAX_DIM + 1);
}

static void h_tex_cube_rect(struct cp_buf *b)
{
	cp3_tex(b, 0, 0, 0, SZ_4K, VDXG_TEX_DESC(VDXG_FMT_L8, 1, true), 8, 4);
}

/*
 * RGB888 5x3, 3 levels: rows of 15, 6 and 3 bytes padded to 16, 8 and 4;
 * 16 x 3 + 8 x 1 + 4 x 1 = 60 bytes.
 */
static void h_tex_layout_fits(struct cp_buf *b)
{
	cp3_tex(b, 0, 3, 0, 60, VDXG_TEX_DESC(VDXG_FMT_RGB888, 3, false), 5,
		3);
}

static void h_tex_layout_short(struct cp_buf *b)
{
	cp3_tex(b, 0, 3, 0, 59, VDXG_TEX_DESC(VDXG_FMT_RGB888, 3, false), 5,
		3);
}

/* An L8 cube 4x4, 3 levels: 6 x (4 x 4 + 4 x 2 + 4 x 1) = 168 bytes. */
static void h_tex_cube_fits(struct cp_buf *b)
{
	cp3_tex(b, 1, 3, 0, 168, VDXG_TEX_DESC(VDXG_FMT_L8, 3, true), 4, 4);
}

static void h_tex_cube_short(struct cp_buf *b)
{
	cp3_tex(b, 1, 3, 0, 167, VDXG_TEX_DESC(VDXG_FMT_L8, 3, true), 4, 4);
}

/* 14 levels of 1x1 RGBA5551: 14 rows of 4 bytes. */
static void h_tex_levels_1x1(struct cp_buf *b)
{
	cp3_tex(b, 2, 3, 0, 56, VDXG_TEX_DESC(VDXG_FMT_RGBA5551, 14, false),
		1, 1);
}

/* The largest cube of ARGB8888 with its 14 levels: 2 GiB, past 1 MiB. */
static void h_tex_huge(struct cp_buf *b)
{
	cp3_tex(b, 0, 0, 0, 0xffffffff,
		VDXG_TEX_DESC(VDXG_FMT_ARGB8888, 14, true), 8192, 8192);
}

static void h_tex_range(struct cp_buf *b)
{
	cp3_tex(b, 0, 2, 4, SZ_4K - 3, VDXG_TEX_DESC(VDXG_FMT_A8, 1, false),
		64, 2);
}

static void h_tex_align(struct cp_buf *b)
{
	cp3_tex(b, 0, 2, 2, 16, VDXG_TEX_DESC(VDXG_FMT_A8, 1, false), 4, 4);
}

static void h_tex_unbind_fields(struct cp_buf *b)
{
	cp3_tex(b, 0, 0, 0, 0, 0, 1, 0);
}

static void h_tex_unbind_addr(struct cp_buf *b)
{
	cp3_tex(b, 0, 0, 0, 0, 0, 0, 0);
	b->cs[b->n - 4] = 4;
}

static void h_draw_prim7(struct cp_buf *b)
{
	cp3_ready(b);
	cp3_draw(b, VDXG_NUM_PRIMS, 0, 3);
}

static void h_draw_prim_rsvd(struct cp_buf *b)
{
	cp3_ready(b);
	cp3_draw(b, VDXG_PRIM_TRIANGLES | 0x10, 0, 3);
}

static void h_draw_count(struct cp_buf *b)
{
	cp3_ready(b);
	cp3_draw(b, VDXG_PRIM_POINTS, 0, VDXG_3D_MAX_COUNT + 1);
}

static void h_draw_wrap(struct cp_buf *b)
{
	cp3_ready(b);
	cp3_draw(b, VDXG_PRIM_POINTS, 0xffffffff, 2);
}

static void h_draw_no_vs(struct cp_buf *b)
{
	cp3_targets(b);
	cp3_shader(b, VDXG_3D_STAGE_FRAGMENT, 3, 0, 64);
	cp3_draw(b, VDXG_PRIM_TRIANGLES, 0, 3);
}

static void h_draw_no_fs(struct cp_buf *b)
{
	cp3_targets(b);
	cp3_shader(b, VDXG_3D_STAGE_VERTEX, 3, 0, 64);
	cp3_shader(b, VDXG_3D_STAGE_VERTEX, 3, 64, 64);
	cp3_draw(b, VDXG_PRIM_TRIANGLES, 0, 3);
}

static void h_draw_no_target(struct cp_buf *b)
{
	cp_surface(b, VDXG_SLOT_SRC, 0, 0, VDXG_FMT_XRGB8888, 4, 4, 16);
	cp_surface(b, VDXG_SLOT_TEXTURE, 0, 0, VDXG_FMT_XRGB8888, 4, 4, 16);
	cp3_programs(b);
	cp3_draw(b, VDXG_PRIM_TRIANGLES, 0, 3);
}

static void h_draw_depth_only(struct cp_buf *b)
{
	cp_surface(b, VDXG_SLOT_DEPTH, 0, 0, VDXG_FMT_D16, 8, 8, 16);
	cp3_programs(b);
	cp3_draw(b, VDXG_PRIM_TRIANGLES, 0, 3);
}

static void h_draw_d32(struct cp_buf *b)
{
	cp_target(b);
	cp_surface(b, VDXG_SLOT_DEPTH, 0, SZ_64K, VDXG_FMT_D32, 64, 64, 256);
	cp3_programs(b);
	cp3_draw(b, VDXG_PRIM_TRIANGLES, 0, 3);
}

static void h_draw_small_depth(struct cp_buf *b)
{
	cp_target(b);
	cp_surface(b, VDXG_SLOT_DEPTH, 0, SZ_64K, VDXG_FMT_D16, 64, 63, 128);
	cp3_programs(b);
	cp3_draw(b, VDXG_PRIM_TRIANGLES, 0, 3);
}

static void h_indexed_no_ib(struct cp_buf *b)
{
	cp3_ready(b);
	cp3_draw_indexed(b, VDXG_PRIM_TRIANGLES, 0, 3, 0);
}

static void h_indexed_unbound(struct cp_buf *b)
{
	cp3_ready(b);
	cp3_ib(b, 0, 0, 64, 2);
	cp3_ib(b, 0, 0, 0, 0);
	cp3_draw_indexed(b, VDXG_PRIM_TRIANGLES, 0, 3, 0);
}

/* u16 indices [10, 42) need 84 bytes. */
static void h_indexed_past(struct cp_buf *b)
{
	cp3_ready(b);
	cp3_ib(b, 1, 0, 83, 2);
	cp3_draw_indexed(b, VDXG_PRIM_LINES, 10, 32, 0);
}

static void h_indexed_exact(struct cp_buf *b)
{
	cp3_ready(b);
	cp3_ib(b, 1, 0, 84, 2);
	cp3_draw_indexed(b, VDXG_PRIM_LINES, 10, 32, -1);
}

/* A later, smaller binding of the index buffer is the one checked. */
static void h_indexed_rebound(struct cp_buf *b)
{
	cp3_ready(b);
	cp3_ib(b, 1, 0, SZ_64K, 4);
	cp3_ib(b, 1, 0, 1000, 1);
	cp3_draw_indexed(b, VDXG_PRIM_POINTS, 0, 1001, 0);
}

/* first + count far past 2^32 at 4 bytes an index: no wrap. */
static void h_indexed_huge(struct cp_buf *b)
{
	cp3_ready(b);
	cp3_ib(b, 1, 0, SZ_64K, 4);
	cp3_draw_indexed(b, VDXG_PRIM_POINTS, 0xffffffff, VDXG_3D_MAX_COUNT,
			 0);
}

static void h_clear_flags(struct cp_buf *b)
{
	cp3_targets(b);
	cp3_clear(b, VDXG_CLEAR_MASK + 1, 0);
}

static void h_clear_stencil_bits(struct cp_buf *b)
{
	cp3_targets(b);
	cp3_clear(b, VDXG_CLEAR_STENCIL, 0x100);
}

static void h_clear_no_dst(struct cp_buf *b)
{
	cp_surface(b, VDXG_SLOT_DEPTH, 0, 0, VDXG_FMT_D24S8, 8, 8, 32);
	cp3_clear(b, VDXG_CLEAR_COLOR, 0);
}

static void h_clear_no_depth(struct cp_buf *b)
{
	cp_target(b);
	cp3_clear(b, VDXG_CLEAR_DEPTH, 0);
}

static void h_clear_d16_stencil(struct cp_buf *b)
{
	cp_target(b);
	cp_surface(b, VDXG_SLOT_DEPTH, 0, SZ_64K, VDXG_FMT_D16, 8, 8, 16);
	cp3_clear(b, VDXG_CLEAR_DEPTH | VDXG_CLEAR_STENCIL, 0);
}

static void h_clear_d32_depth(struct cp_buf *b)
{
	cp_target(b);
	cp_surface(b, VDXG_SLOT_DEPTH, 0, SZ_64K, VDXG_FMT_D32, 8, 8, 32);
	cp3_clear(b, VDXG_CLEAR_DEPTH, 0);
}

static void h_clear_depth_only(struct cp_buf *b)
{
	cp_surface(b, VDXG_SLOT_DEPTH, 0, SZ_64K, VDXG_FMT_D16, 8, 8, 16);
	cp3_clear(b, VDXG_CLEAR_DEPTH, 0);
}

static void h_clear_nothing(struct cp_buf *b)
{
	cp3_clear(b, 0, 0);
}

static void h_surf(struct cp_buf *b, u32 slot, u32 fmt, u32 off)
{
	b->bad = b->n;
	cp_surface(b, slot, 0, off, fmt, 7, 3, 28);
}

static void h_surf_abgr_src(struct cp_buf *b)
{
	h_surf(b, VDXG_SLOT_SRC, VDXG_FMT_ABGR8888, 0);
}

static void h_surf_4444_tex(struct cp_buf *b)
{
	h_surf(b, VDXG_SLOT_TEXTURE, VDXG_FMT_RGBA4444, 2);
}

static void h_surf_5551_dst(struct cp_buf *b)
{
	h_surf(b, VDXG_SLOT_DST, VDXG_FMT_RGBA5551, 2);
}

static void h_surf_d16(struct cp_buf *b)
{
	h_surf(b, VDXG_SLOT_DEPTH, VDXG_FMT_D16, 2);
}

static void h_surf_d24s8_align(struct cp_buf *b)
{
	h_surf(b, VDXG_SLOT_DEPTH, VDXG_FMT_D24S8, 2);
}

static void h_surf_d16_dst(struct cp_buf *b)
{
	h_surf(b, VDXG_SLOT_DST, VDXG_FMT_D16, 0);
}

static void h_surf_abgr_depth(struct cp_buf *b)
{
	h_surf(b, VDXG_SLOT_DEPTH, VDXG_FMT_ABGR8888, 0);
}

static void h_surf_l8(struct cp_buf *b)
{
	h_surf(b, VDXG_SLOT_TEXTURE, VDXG_FMT_L8, 0);
}

static void h_surf_rgb888(struct cp_buf *b)
{
	h_surf(b, VDXG_SLOT_SRC, VDXG_FMT_RGB888, 0);
}

static void h_surf_fmt14(struct cp_buf *b)
{
	h_surf(b, VDXG_SLOT_DST, VDXG_NUM_FMTS_3D, 0);
}

/* RGBA4444's cpp is 2: a pitch of 12 is too small for 7 pixels. */
static void h_surf_4444_pitch(struct cp_buf *b)
{
	b->bad = b->n;
	cp_surface(b, VDXG_SLOT_DST, 0, 0, VDXG_FMT_RGBA4444, 7, 3, 12);
}

/* DRAW_TRIANGLES's depth flags need D32. */
static void h_triangles_d16(struct cp_buf *b)
{
	cp_target(b);
	cp_surface(b, VDXG_SLOT_DEPTH, 2, 0, VDXG_FMT_D16, 64, 8, 128);
	b->bad = b->n;
	cp_draw(b, VDXG_DRAW_DEPTH_TEST, 3, 1);
}

static const struct cp3_case cp3_cases[] = {
	{ "load count 0", h_load_count0, -EINVAL },
	{ "load count 65", h_load_count65, -EINVAL },
	{ "load past register 63", h_load_past, -EINVAL },
	{ "load misaligned", h_load_align, -EINVAL, VDXG_RD_LOAD_DW_ADDR },
	{ "load range +1 byte", h_load_range, -ERANGE, VDXG_RD_LOAD_DW_ADDR },
	{ "load range exact", h_load_exact, 0 },
	{ "shader stage 2", h_shader_stage, -EINVAL },
	{ "shader size 15", h_shader_small, -EINVAL },
	{ "shader size max + 1", h_shader_big, -EINVAL },
	{ "shader size max", h_shader_max, 0 },
	{ "shader misaligned", h_shader_align, -EINVAL,
	  VDXG_RD_SHADER_DW_ADDR },
	{ "shader range +1 byte", h_shader_range, -ERANGE,
	  VDXG_RD_SHADER_DW_ADDR },
	{ "shader patch slot id", h_shader_slot, -EINVAL,
	  VDXG_RD_SHADER_DW_ADDR },
	{ "constants stage 2", h_consts_stage, -EINVAL },
	{ "constants count 257", h_consts_count, -EINVAL },
	{ "constants range +1 byte", h_consts_range, -ERANGE,
	  VDXG_RD_CONST_DW_ADDR },
	{ "constants unbind with address", h_consts_unbind_addr, -EINVAL },
	{ "constants unbind with patch", h_consts_unbind_patch, -EINVAL,
	  VDXG_RD_CONST_DW_ADDR },
	{ "vb index 16", h_vb_index, -EINVAL },
	{ "vb stride 2049", h_vb_stride, -EINVAL },
	{ "vb range +1 byte", h_vb_range, -ERANGE, VDXG_RD_VB_DW_ADDR },
	{ "vb range exact, unaligned", h_vb_exact, 0 },
	{ "vb unbind with address", h_vb_unbind_addr, -EINVAL },
	{ "ib index size 3", h_ib_size3, -EINVAL },
	{ "ib index size 8", h_ib_size8, -EINVAL },
	{ "ib unbind with size", h_ib_unbind_size, -EINVAL },
	{ "ib unbind with address", h_ib_unbind_addr, -EINVAL },
	{ "ib range +1 byte", h_ib_range, -ERANGE, VDXG_RD_IB_DW_ADDR },
	{ "texture unit 8", h_tex_unit, -EINVAL },
	{ "texture D32", h_tex_d32, -EINVAL },
	{ "texture D16", h_tex_d16, -EINVAL },
	{ "texture D24S8", h_tex_d24s8, -EINVAL },
	{ "texture format 14", h_tex_fmt14, -EINVAL },
	{ "texture format 255", h_tex_fmt_hi, -EINVAL },
	{ "texture reserved bit", h_tex_rsvd, -EINVAL },
	{ "texture 0 levels", h_tex_levels0, -EINVAL },
	{ "texture 15 levels", h_tex_levels15, -EINVAL },
	{ "texture width 0", h_tex_width0, -EINVAL },
	{ "texture height 8193", h_tex_height_big, -EINVAL },
	{ "texture cube not square", h_tex_cube_rect, -EINVAL },
	{ "texture layout fits", h_tex_layout_fits, 0 },
	{ "texture layout 1 byte short", h_tex_layout_short, -EINVAL },
	{ "texture cube layout fits", h_tex_cube_fits, 0 },
	{ "texture cube layout 1 byte short", h_tex_cube_short, -EINVAL },
	{ "texture 14 levels of 1x1", h_tex_levels_1x1, 0 },
	{ "texture of 2 GiB past its object", h_tex_huge, -ERANGE,
	  VDXG_RD_TEX_DW_ADDR },
	{ "texture range +1 byte", h_tex_range, -ERANGE, VDXG_RD_TEX_DW_ADDR },
	{ "texture misaligned", h_tex_align, -EINVAL, VDXG_RD_TEX_DW_ADDR },
	{ "texture unbind with fields", h_tex_unbind_fields, -EINVAL },
	{ "texture unbind with address", h_tex_unbind_addr, -EINVAL },
	{ "draw primitive 7", h_draw_prim7, -EINVAL },
	{ "draw primitive reserved bits", h_draw_prim_rsvd, -EINVAL },
	{ "draw count 2^24 + 1", h_draw_count, -EINVAL },
	{ "draw past vertex 2^32", h_draw_wrap, -EINVAL },
	{ "draw without vertex program", h_draw_no_vs, -EINVAL },
	{ "draw without fragment program", h_draw_no_fs, -EINVAL },
	{ "draw without target", h_draw_no_target, -EINVAL },
	{ "draw into depth alone", h_draw_depth_only, 0 },
	{ "draw with D32 depth", h_draw_d32, -EINVAL },
	{ "draw depth smaller than target", h_draw_small_depth, -ERANGE },
	{ "indexed without index buffer", h_indexed_no_ib, -EINVAL },
	{ "indexed after unbinding", h_indexed_unbound, -EINVAL },
	{ "indexed past index buffer by 1", h_indexed_past, -ERANGE },
	{ "indexed exact", h_indexed_exact, 0 },
	{ "indexed after a smaller binding", h_indexed_rebound, -ERANGE },
	{ "indexed far past 2^32", h_indexed_huge, -ERANGE },
	{ "clear flags", h_clear_flags, -EINVAL },
	{ "clear stencil bits", h_clear_stencil_bits, -EINVAL },
	{ "clear colour without target", h_clear_no_dst, -EINVAL },
	{ "clear depth without depth", h_clear_no_depth, -EINVAL },
	{ "clear stencil of D16", h_clear_d16_stencil, -EINVAL },
	{ "clear depth of D32", h_clear_d32_depth, -EINVAL },
	{ "clear depth alone", h_clear_depth_only, 0 },
	{ "clear nothing", h_clear_nothing, 0 },
	{ "surface ABGR8888 as SRC", h_surf_abgr_src, 0 },
	{ "surface RGBA4444 as TEXTURE", h_surf_4444_tex, 0 },
	{ "surface RGBA5551 as DST", h_surf_5551_dst, 0 },
	{ "surface D16 as DEPTH", h_surf_d16, 0 },
	{ "surface D24S8 misaligned", h_surf_d24s8_align, -EINVAL,
	  VDXG_RD_SURF_DW_ADDR },
	{ "surface D16 as DST", h_surf_d16_dst, -EINVAL },
	{ "surface ABGR8888 as DEPTH", h_surf_abgr_depth, -EINVAL },
	{ "surface L8", h_surf_l8, -EINVAL },
	{ "surface RGB888", h_surf_rgb888, -EINVAL },
	{ "surface format 14", h_surf_fmt14, -EINVAL },
	{ "surface RGBA4444 pitch", h_surf_4444_pitch, -EINVAL },
	{ "triangles' depth in D16", h_triangles_d16, -EINVAL },
};

static void cp3_desc(const struct cp3_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cp3, cp3_cases, cp3_desc);

static void vdxg_cp3_verdicts(struct kunit *test)
{
	const struct cp3_case *c = test->param_value;
	struct vdxg_cp_error err = {};
	struct cp_buf *b = cp_new(test);

	cp_init(b);
	c->build(b);
	KUNIT_EXPECT_EQ(test, cp_run3(b, &err), c->expect);
	if (c->expect) {
		KUNIT_EXPECT_EQ(test, err.dword, b->bad + c->field);
		KUNIT_EXPECT_NOT_NULL(test, err.what);
	}
}

/* What the 3D commands set and use. */
static void vdxg_cp3_state(struct kunit *test)
{
	struct vdxg_cp_state st;
	struct cp_buf *b = cp_new(test);
	u32 k;

	cp_init(b);
	cp3_state(b, 5, 3, NULL);
	vdxg_cmd_state(b->cs, &st);
	KUNIT_EXPECT_EQ(test, bitmap_weight(st.sets, VDXG_CP_MAX_STATE), 3u);
	for (k = 5; k < 8; k++)
		KUNIT_EXPECT_TRUE(test, test_bit(VDXG_CP_KEY_REG(k), st.sets));
	KUNIT_EXPECT_TRUE(test, bitmap_empty(st.uses, VDXG_CP_MAX_STATE));

	b->n = 0;
	cp3_load(b, 0, 0, 60, 4);
	vdxg_cmd_state(b->cs, &st);
	KUNIT_EXPECT_EQ(test, bitmap_weight(st.sets, VDXG_CP_MAX_STATE), 4u);
	KUNIT_EXPECT_TRUE(test, test_bit(VDXG_CP_KEY_REG(63), st.sets));

	b->n = 0;
	cp3_shader(b, 1, 3, 0, 64);
	vdxg_cmd_state(b->cs, &st);
	KUNIT_EXPECT_EQ(test, bitmap_weight(st.sets, VDXG_CP_MAX_STATE), 1u);
	KUNIT_EXPECT_TRUE(test, test_bit(VDXG_CP_KEY_PROGRAM(1), st.sets));

	b->n = 0;
	cp3_consts(b, 0, 0, 0, 0);
	vdxg_cmd_state(b->cs, &st);
	KUNIT_EXPECT_TRUE(test, test_bit(VDXG_CP_KEY_CONSTS(0), st.sets));

	b->n = 0;
	cp3_vb(b, 15, 0, 0, 16, 4);
	vdxg_cmd_state(b->cs, &st);
	KUNIT_EXPECT_TRUE(test, test_bit(VDXG_CP_KEY_VB(15), st.sets));

	b->n = 0;
	cp3_ib(b, 0, 0, 0, 0);
	vdxg_cmd_state(b->cs, &st);
	KUNIT_EXPECT_TRUE(test, test_bit(VDXG_CP_KEY_IB, st.sets));

	b->n = 0;
	cp3_tex(b, 7, 0, 0, 0, 0, 0, 0);
	vdxg_cmd_state(b->cs, &st);
	KUNIT_EXPECT_TRUE(test, test_bit(VDXG_CP_KEY_TEX(7), st.sets));
	KUNIT_EXPECT_EQ(test, VDXG_CP_KEY_TEX(7) + 1, VDXG_CP_MAX_STATE);

	/* A draw uses it all but the index buffer; DRAW_INDEXED that too. */
	b->n = 0;
	cp3_draw(b, 0, 0, 1);
	vdxg_cmd_state(b->cs, &st);
	KUNIT_EXPECT_TRUE(test, bitmap_empty(st.sets, VDXG_CP_MAX_STATE));
	KUNIT_EXPECT_EQ(test, bitmap_weight(st.uses, VDXG_CP_MAX_STATE),
			VDXG_CP_MAX_STATE - 3);
	KUNIT_EXPECT_FALSE(test, test_bit(VDXG_CP_KEY_IB, st.uses));
	KUNIT_EXPECT_FALSE(test, test_bit(VDXG_CP_KEY_SLOT(VDXG_SLOT_SRC),
					  st.uses));
	KUNIT_EXPECT_FALSE(test, test_bit(VDXG_CP_KEY_SLOT(VDXG_SLOT_TEXTURE),
					  st.uses));
	b->n = 0;
	cp3_draw_indexed(b, 0, 0, 1, 0);
	vdxg_cmd_state(b->cs, &st);
	KUNIT_EXPECT_EQ(test, bitmap_weight(st.uses, VDXG_CP_MAX_STATE),
			VDXG_CP_MAX_STATE - 2);

	b->n = 0;
	cp3_clear(b, VDXG_CLEAR_STENCIL, 0);
	vdxg_cmd_state(b->cs, &st);
	KUNIT_EXPECT_EQ(test, cp_slots(test, st.uses), BIT(VDXG_SLOT_DEPTH));
	b->cs[VDXG_RD_CLEAR_DW_FLAGS] = VDXG_CLEAR_COLOR;
	vdxg_cmd_state(b->cs, &st);
	KUNIT_EXPECT_EQ(test, cp_slots(test, st.uses), BIT(VDXG_SLOT_DST));
}

static struct kunit_case vdxg_cmdparse_cases[] = {
	KUNIT_CASE(vdxg_cp_accepts_every_command),
	KUNIT_CASE(vdxg_cp_patch_order),
	KUNIT_CASE_PARAM(vdxg_cp_rejects, cp_bad_gen_params),
	KUNIT_CASE(vdxg_cp_empty),
	KUNIT_CASE(vdxg_cp_exact_fit),
	KUNIT_CASE(vdxg_cp_splits),
	KUNIT_CASE(vdxg_cp_state),
	KUNIT_CASE(vdxg_cp3_accepts_every_command),
	KUNIT_CASE(vdxg_cp3_needs_cap),
	KUNIT_CASE(vdxg_cp3_lengths),
	KUNIT_CASE(vdxg_cp3_registers),
	KUNIT_CASE_PARAM(vdxg_cp3_verdicts, cp3_gen_params),
	KUNIT_CASE(vdxg_cp3_state),
	{}
};

static struct kunit_suite vdxg_cmdparse_suite = {
	.name = "vdxg_cmdparse",
	.test_cases = vdxg_cmdparse_cases,
};

kunit_test_suite(vdxg_cmdparse_suite);
