// SPDX-License-Identifier: MIT
/*
 * libvdxg-cs-test: the command-stream builder on the host, without a
 * device: encodings (against literal dwords and the vdxg_hw.h macros),
 * the allocation list, patch locations, presumed addresses and their
 * write-back, growth, the escape hatch. Runs with make -C libvdxg check.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIT(n) (1u << (n))
#define BIT_ULL(n) (1ull << (n))
#include "vdxg_hw.h"

#include "vdxg.h"
#include "vtest.h"

#define W DRM_VDXG_ALLOC_WRITE

static struct vdxg_cs *new_cs(void)
{
	struct vdxg_cs *cs = NULL;

	vtest_assert_eq(vdxg_cs_create(&cs), 0);
	vtest_assert(cs);
	vtest_assert_eq(vdxg_cs_num_dwords(cs), 0);
	return cs;
}

static struct vdxg_bo make_bo(uint32_t handle, uint64_t gpu_addr)
{
	struct vdxg_bo bo;

	memset(&bo, 0, sizeof(bo));
	bo.handle = handle;
	bo.size = 1 << 20;
	bo.gpu_addr = gpu_addr;
	return bo;
}

static void assert_dwords(struct vdxg_cs *cs, const uint32_t *want, uint32_t n)
{
	const uint32_t *got = vdxg_cs_dwords(cs);
	uint32_t i;

	vtest_assert_eq(vdxg_cs_num_dwords(cs), n);
	for (i = 0; i < n; i++)
		vtest_assert_f(got[i] == want[i], "dword %u is 0x%08x, want 0x%08x",
			       i, got[i], want[i]);
}

static const struct drm_vdxg_patch_location *patches(struct vdxg_cs *cs,
						     uint32_t n)
{
	uint32_t count;
	const struct drm_vdxg_patch_location *p = vdxg_cs_patches(cs, &count);

	vtest_assert_eq(count, n);
	return p;
}

static const struct drm_vdxg_allocation *allocs(struct vdxg_cs *cs,
						uint32_t n)
{
	uint32_t count;
	const struct drm_vdxg_allocation *a = vdxg_cs_allocations(cs, &count);

	vtest_assert_eq(count, n);
	return a;
}

static void assert_patch(const struct drm_vdxg_patch_location *p,
			 uint32_t index, uint32_t slot, uint32_t alloc_offset,
			 uint32_t patch_offset)
{
	vtest_assert_eq(p->allocation_index, index);
	vtest_assert_eq(p->slot_id, slot);
	vtest_assert_eq(p->driver_id, 0);
	vtest_assert_eq(p->allocation_offset, alloc_offset);
	vtest_assert_eq(p->patch_offset, patch_offset);
	vtest_assert_eq(p->split_offset, 0);
}

/* ------------------------------------------------------------ encoding */

/* Each command alone, against dwords written out by hand. */
static void test_encode_literal(void)
{
	struct vdxg_bo bo = make_bo(7, 0x100000000ull);
	struct vdxg_cs *cs = new_cs();

	vtest_assert_eq(vdxg_cs_nop(cs), 0);
	assert_dwords(cs, (const uint32_t[]){ 0x00010000 }, 1);

	vdxg_cs_reset(cs);
	vtest_assert_eq(vdxg_cs_fence(cs, &bo, 0x18, W, 0x1122334455667788ull), 0);
	assert_dwords(cs, (const uint32_t[]){ 0x00050001, 0x00000018, 0x00000001,
					      0x55667788, 0x11223344 }, 5);

	vdxg_cs_reset(cs);
	vtest_assert_eq(vdxg_cs_wait(cs, &bo, 0xff8, 0, 42), 0);
	assert_dwords(cs, (const uint32_t[]){ 0x00050002, 0x00000ff8, 0x00000001,
					      42, 0 }, 5);

	vdxg_cs_reset(cs);
	vtest_assert_eq(vdxg_cs_set_surface(cs, 3, &bo, 0x40, 0,
					    VDXG_FMT_RGB565, 640, 480, 1280), 0);
	assert_dwords(cs, (const uint32_t[]){ 0x00080003, 3, 0x00000040,
					      0x00000001, 3, 640, 480, 1280 }, 8);

	vdxg_cs_reset(cs);
	vtest_assert_eq(vdxg_cs_fill_rect(cs, 1, 2, 300, 400, 0xff102030), 0);
	assert_dwords(cs, (const uint32_t[]){ 0x00040004, 0x00020001,
					      0x0190012c, 0xff102030 }, 4);

	vdxg_cs_reset(cs);
	vtest_assert_eq(vdxg_cs_copy_rect(cs, 5, 6, 7, 8, 0xffff, 0x1234), 0);
	assert_dwords(cs, (const uint32_t[]){ 0x00040005, 0x00060005,
					      0x00080007, 0x1234ffff }, 4);

	vdxg_cs_reset(cs);
	vtest_assert_eq(vdxg_cs_blend(cs, 5, 6, 7, 8, 9, 10, 0x80), 0);
	assert_dwords(cs, (const uint32_t[]){ 0x00050006, 0x00060005,
					      0x00080007, 0x000a0009, 0x80 }, 5);

	vdxg_cs_reset(cs);
	vtest_assert_eq(vdxg_cs_draw_triangles(cs, 0xf, 6, &bo, 0x20, 0), 0);
	assert_dwords(cs, (const uint32_t[]){ 0x00050007, 0xf, 6, 0x00000020,
					      0x00000001 }, 5);
	vdxg_cs_free(cs);
}

/* The same commands against the vdxg_hw.h macros, in one stream. */
static void test_encode_macros(void)
{
	struct vdxg_bo bo = make_bo(9, 0xabc000);
	struct vdxg_cs *cs = new_cs();
	const uint32_t *d;
	uint32_t i = 0;

	vdxg_cs_nop(cs);
	vdxg_cs_fence(cs, &bo, 8, W, 5);
	vdxg_cs_wait(cs, &bo, 16, 0, 6);
	vdxg_cs_set_surface(cs, VDXG_SLOT_SRC, &bo, 4096, 0,
			    VDXG_FMT_XRGB8888, 16, 8, 64);
	vdxg_cs_fill_rect(cs, 3, 4, 5, 6, 0x01020304);
	vdxg_cs_copy_rect(cs, 1, 2, 3, 4, 5, 6);
	vdxg_cs_blend(cs, 6, 5, 4, 3, 2, 1, 200);
	vdxg_cs_draw_triangles(cs, VDXG_DRAW_TEXTURE | VDXG_DRAW_BILINEAR, 3,
			       &bo, 256, 0);
	vtest_assert_eq(vdxg_cs_error(cs), 0);
	d = vdxg_cs_dwords(cs);

	vtest_assert_eq_u64(d[i], VDXG_PG_HDR(VDXG_RD_NOP, VDXG_RD_NOP_LEN));
	i += VDXG_RD_NOP_LEN;

	vtest_assert_eq_u64(d[i], VDXG_PG_HDR(VDXG_RD_FENCE, VDXG_RD_FENCE_LEN));
	vtest_assert_eq_u64(d[i + VDXG_RD_MEM_DW_ADDR], 0xabc000 + 8);
	vtest_assert_eq_u64(d[i + VDXG_RD_MEM_DW_ADDR + 1], 0);
	vtest_assert_eq_u64(d[i + VDXG_RD_MEM_DW_VALUE], 5);
	i += VDXG_RD_FENCE_LEN;

	vtest_assert_eq_u64(d[i], VDXG_PG_HDR(VDXG_RD_WAIT, VDXG_RD_WAIT_LEN));
	vtest_assert_eq_u64(d[i + VDXG_RD_MEM_DW_ADDR], 0xabc000 + 16);
	vtest_assert_eq_u64(d[i + VDXG_RD_MEM_DW_VALUE], 6);
	i += VDXG_RD_WAIT_LEN;

	vtest_assert_eq_u64(d[i], VDXG_PG_HDR(VDXG_RD_SET_SURFACE,
					      VDXG_RD_SET_SURFACE_LEN));
	vtest_assert_eq_u64(d[i + VDXG_RD_SURF_DW_SLOT], VDXG_SLOT_SRC);
	vtest_assert_eq_u64(d[i + VDXG_RD_SURF_DW_ADDR], 0xabc000 + 4096);
	vtest_assert_eq_u64(d[i + VDXG_RD_SURF_DW_FORMAT], VDXG_FMT_XRGB8888);
	vtest_assert_eq_u64(d[i + VDXG_RD_SURF_DW_WIDTH], 16);
	vtest_assert_eq_u64(d[i + VDXG_RD_SURF_DW_HEIGHT], 8);
	vtest_assert_eq_u64(d[i + VDXG_RD_SURF_DW_PITCH], 64);
	i += VDXG_RD_SET_SURFACE_LEN;

	vtest_assert_eq_u64(d[i], VDXG_PG_HDR(VDXG_RD_FILL_RECT,
					      VDXG_RD_FILL_RECT_LEN));
	vtest_assert_eq_u64(d[i + VDXG_RD_FILL_DW_XY], VDXG_RD_XY(3, 4));
	vtest_assert_eq_u64(d[i + VDXG_RD_FILL_DW_WH], VDXG_RD_XY(5, 6));
	vtest_assert_eq_u64(d[i + VDXG_RD_FILL_DW_COLOR], 0x01020304);
	vtest_assert_eq(VDXG_RD_X(d[i + VDXG_RD_FILL_DW_XY]), 3);
	vtest_assert_eq(VDXG_RD_Y(d[i + VDXG_RD_FILL_DW_XY]), 4);
	i += VDXG_RD_FILL_RECT_LEN;

	vtest_assert_eq_u64(d[i], VDXG_PG_HDR(VDXG_RD_COPY_RECT,
					      VDXG_RD_COPY_RECT_LEN));
	vtest_assert_eq_u64(d[i + VDXG_RD_COPY_DW_SRC_XY], VDXG_RD_XY(1, 2));
	vtest_assert_eq_u64(d[i + VDXG_RD_COPY_DW_DST_XY], VDXG_RD_XY(3, 4));
	vtest_assert_eq_u64(d[i + VDXG_RD_COPY_DW_WH], VDXG_RD_XY(5, 6));
	i += VDXG_RD_COPY_RECT_LEN;

	vtest_assert_eq_u64(d[i], VDXG_PG_HDR(VDXG_RD_BLEND, VDXG_RD_BLEND_LEN));
	vtest_assert_eq_u64(d[i + VDXG_RD_COPY_DW_SRC_XY], VDXG_RD_XY(6, 5));
	vtest_assert_eq_u64(d[i + VDXG_RD_COPY_DW_DST_XY], VDXG_RD_XY(4, 3));
	vtest_assert_eq_u64(d[i + VDXG_RD_COPY_DW_WH], VDXG_RD_XY(2, 1));
	vtest_assert_eq_u64(d[i + VDXG_RD_BLEND_DW_ALPHA], 200);
	i += VDXG_RD_BLEND_LEN;

	vtest_assert_eq_u64(d[i], VDXG_PG_HDR(VDXG_RD_DRAW_TRIANGLES,
					      VDXG_RD_DRAW_TRIANGLES_LEN));
	vtest_assert_eq_u64(d[i + VDXG_RD_DRAW_DW_FLAGS],
			    VDXG_DRAW_TEXTURE | VDXG_DRAW_BILINEAR);
	vtest_assert_eq_u64(d[i + VDXG_RD_DRAW_DW_COUNT], 3);
	vtest_assert_eq_u64(d[i + VDXG_RD_DRAW_DW_VB], 0xabc000 + 256);
	i += VDXG_RD_DRAW_TRIANGLES_LEN;

	vtest_assert_eq(vdxg_cs_num_dwords(cs), i);
	vdxg_cs_free(cs);
}

/* --------------------------------------------------- allocations, patches */

static void test_alloc_dedup(void)
{
	struct vdxg_bo a = make_bo(10, 0), b = make_bo(20, 0), c = make_bo(30, 0);
	struct vdxg_bo a2 = make_bo(10, 0);	/* another wrapper of handle 10 */
	const struct drm_vdxg_allocation *al;
	struct drm_vdxg_allocation raw = { 10, 0, 0 };
	struct vdxg_cs *cs = new_cs();

	vdxg_cs_wait(cs, &b, 0, 0, 1);			/* b read */
	vdxg_cs_set_surface(cs, 0, &a, 0, 0, 1, 1, 1, 4); /* a read */
	vdxg_cs_fence(cs, &b, 8, W, 1);			/* b written */
	vdxg_cs_wait(cs, &b, 0, 0, 1);			/* b read again */
	vdxg_cs_draw_triangles(cs, 0, 3, &c, 0, 0);	/* c read */
	al = allocs(cs, 3);
	/* First-use order; WRITE once any use writes, and it stays. */
	vtest_assert_eq(al[0].handle, 20);
	vtest_assert_eq(al[0].flags, W);
	vtest_assert_eq(al[1].handle, 10);
	vtest_assert_eq(al[1].flags, 0);
	vtest_assert_eq(al[2].handle, 30);
	vtest_assert_eq(al[2].flags, 0);

	/* The same handle through another structure: the same entry. */
	vdxg_cs_set_surface(cs, 0, &a2, 0, W, 1, 1, 1, 4);
	al = allocs(cs, 3);
	vtest_assert_eq(al[1].flags, W);

	/* A raw entry is appended as given and never matched... */
	vtest_assert_eq(vdxg_cs_add_raw_allocation(cs, &raw), 3);
	vdxg_cs_fence(cs, &a, 0, W, 1);
	al = allocs(cs, 4);
	vtest_assert_eq(al[3].handle, 10);
	vtest_assert_eq(al[3].flags, 0);
	vtest_assert_eq(al[1].flags, W);
	/* ...and a handle first seen after a raw one gets a new entry. */
	raw.handle = 40;
	raw.flags = 0x80;	/* not a valid flag: kept as given */
	vtest_assert_eq(vdxg_cs_add_raw_allocation(cs, &raw), 4);
	{
		struct vdxg_bo d = make_bo(40, 0);

		vdxg_cs_fence(cs, &d, 0, W, 1);
		al = allocs(cs, 6);
		vtest_assert_eq(al[4].flags, 0x80);
		vtest_assert_eq(al[5].handle, 40);
		vtest_assert_eq(al[5].flags, W);
	}
	/* Every patch names its object's entry. */
	{
		const struct drm_vdxg_patch_location *p = patches(cs, 8);
		static const uint32_t idx[] = { 0, 1, 0, 0, 2, 1, 1, 5 };
		int i;

		for (i = 0; i < 8; i++)
			vtest_assert_eq(p[i].allocation_index, idx[i]);
	}
	vdxg_cs_free(cs);
}

/*
 * Patch offsets, slots and allocation offsets of a mixed stream, worked
 * out by hand: NOP (dword 0), SET_SURFACE (1-8, address at 3), FILL_RECT
 * (9-12), FENCE (13-17, address at 14), SET_SURFACE x3 (18-25 address 20,
 * 26-33 address 28, 34-41 address 36), DRAW (42-46, address 45), WAIT
 * (47-51, address 48).
 */
static void test_patch_locations(void)
{
	struct vdxg_bo rt = make_bo(1, 0), tex = make_bo(2, 0), z = make_bo(3, 0),
		       vb = make_bo(4, 0), fence = make_bo(5, 0);
	const struct drm_vdxg_patch_location *p;
	struct vdxg_cs *cs = new_cs();
	const uint32_t *d;
	uint32_t i;

	vdxg_cs_nop(cs);
	vdxg_cs_set_surface(cs, VDXG_SLOT_DST, &rt, 0x1000, W,
			    VDXG_FMT_ARGB8888, 64, 64, 256);
	vdxg_cs_fill_rect(cs, 0, 0, 64, 64, 0);
	vdxg_cs_fence(cs, &fence, 0x10, W, 1);
	vdxg_cs_set_surface(cs, VDXG_SLOT_SRC, &rt, 0, 0, VDXG_FMT_ARGB8888,
			    64, 64, 256);
	vdxg_cs_set_surface(cs, VDXG_SLOT_DEPTH, &z, 0x40, W, VDXG_FMT_D32,
			    64, 64, 256);
	vdxg_cs_set_surface(cs, VDXG_SLOT_TEXTURE, &tex, 0x200, 0,
			    VDXG_FMT_RGB565, 8, 8, 16);
	vdxg_cs_draw_triangles(cs, VDXG_DRAW_TEXTURE, 6, &vb, 0x60, 0);
	vdxg_cs_wait(cs, &fence, 0x10, 0, 1);
	vtest_assert_eq(vdxg_cs_num_dwords(cs), 52);

	p = patches(cs, 7);
	assert_patch(&p[0], 0, VDXG_SLOT_DST, 0x1000, 3 * 4);
	assert_patch(&p[1], 1, 0, 0x10, 14 * 4);
	assert_patch(&p[2], 0, VDXG_SLOT_SRC, 0, 20 * 4);
	assert_patch(&p[3], 2, VDXG_SLOT_DEPTH, 0x40, 28 * 4);
	assert_patch(&p[4], 3, VDXG_SLOT_TEXTURE, 0x200, 36 * 4);
	assert_patch(&p[5], 4, 0, 0x60, 45 * 4);
	assert_patch(&p[6], 1, 0, 0x10, 48 * 4);

	/*
	 * Each patch names an address field: the dword before it belongs to
	 * the command whose header is at the field's command offset.
	 */
	d = vdxg_cs_dwords(cs);
	for (i = 0; i < 7; i++) {
		uint32_t dw = p[i].patch_offset / 4, hdr = 0, pos = 0;

		while (pos <= dw) {
			hdr = pos;
			pos += VDXG_PG_HDR_LEN(d[pos]);
		}
		switch (VDXG_PG_HDR_OP(d[hdr])) {
		case VDXG_RD_FENCE:
		case VDXG_RD_WAIT:
			vtest_assert_eq(dw - hdr, VDXG_RD_MEM_DW_ADDR);
			break;
		case VDXG_RD_SET_SURFACE:
			vtest_assert_eq(dw - hdr, VDXG_RD_SURF_DW_ADDR);
			vtest_assert_eq(d[hdr + VDXG_RD_SURF_DW_SLOT], p[i].slot_id);
			break;
		case VDXG_RD_DRAW_TRIANGLES:
			vtest_assert_eq(dw - hdr, VDXG_RD_DRAW_DW_VB);
			break;
		default:
			vtest_fail("patch %u in a command without address", i);
		}
	}
	vdxg_cs_free(cs);
}

/* The presumed address goes into the field and into the allocation list. */
static void test_presumed_address(void)
{
	struct vdxg_bo a = make_bo(1, 0x10000000000ull + 0x5000);	/* aperture */
	struct vdxg_bo b = make_bo(2, 0);
	const struct drm_vdxg_allocation *al;
	struct vdxg_cs *cs = new_cs();
	const uint32_t *d;

	vdxg_cs_fence(cs, &a, 0x28, W, 0);
	vdxg_cs_fence(cs, &b, 0x30, W, 0);
	/* The object moves: this builder keeps what it already presumed. */
	a.gpu_addr = 0x9000;
	vdxg_cs_wait(cs, &a, 0x8, 0, 0);
	d = vdxg_cs_dwords(cs);
	vtest_assert_eq_u64(d[1], 0x5028);
	vtest_assert_eq_u64(d[2], 0x100);
	vtest_assert_eq_u64(d[6], 0x30);	/* unknown: 0 + offset */
	vtest_assert_eq_u64(d[7], 0);
	vtest_assert_eq_u64(d[11], 0x5008);
	vtest_assert_eq_u64(d[12], 0x100);
	al = allocs(cs, 2);
	vtest_assert_eq_u64(al[0].presumed_gpu_addr, 0x10000005000ull);
	vtest_assert_eq_u64(al[1].presumed_gpu_addr, 0);

	/* After a reset the builder presumes the object's new address. */
	vdxg_cs_reset(cs);
	vdxg_cs_wait(cs, &a, 0x8, 0, 0);
	d = vdxg_cs_dwords(cs);
	vtest_assert_eq_u64(d[1], 0x9008);
	vtest_assert_eq_u64(d[2], 0);
	vtest_assert_eq_u64(allocs(cs, 1)[0].presumed_gpu_addr, 0x9000);
	vdxg_cs_free(cs);
}

/* ------------------------------------------------------------- submit */

static void test_prepare_submit(void)
{
	struct vdxg_bo a = make_bo(1, 0x4000), b = make_bo(2, 0x8000);
	struct drm_vdxg_allocation *sub;
	struct drm_vdxg_submit args;
	struct vdxg_cs *cs = new_cs();
	uint32_t n;

	vdxg_cs_set_surface(cs, 0, &a, 0, W, 1, 4, 4, 16);
	vdxg_cs_fill_rect(cs, 0, 0, 4, 4, 0);
	vdxg_cs_fence(cs, &b, 0, W, 7);
	memset(&args, 0, sizeof(args));
	vtest_assert_eq(vdxg_cs_prepare_submit(cs, &args), 0);
	vtest_assert_eq_u64(args.commands, (uintptr_t)vdxg_cs_dwords(cs));
	vtest_assert_eq(args.command_size, 17 * 4);
	vtest_assert_eq(args.num_allocations, 2);
	vtest_assert_eq(args.num_patches, 2);
	vtest_assert_eq_u64(args.patches, (uintptr_t)vdxg_cs_patches(cs, &n));
	/* The allocations passed are a copy, equal to the list. */
	sub = (struct drm_vdxg_allocation *)(uintptr_t)args.allocations;
	vtest_assert_neq_u64(args.allocations,
			     (uintptr_t)vdxg_cs_allocations(cs, &n));
	vtest_assert(!memcmp(sub, vdxg_cs_allocations(cs, &n), 2 * sizeof(*sub)));
	/* Fields the builder does not own are left alone. */
	vtest_assert_eq(args.ctx_id, 0);
	vtest_assert_eq(args.num_in_syncs, 0);
	vdxg_cs_free(cs);
}

/*
 * The kernel's write-back, simulated: a moved object gets its fields
 * rewritten and the new address presumed; an unmoved one is untouched;
 * raw patches and raw allocations are left as given.
 */
static void test_writeback(void)
{
	struct vdxg_bo a = make_bo(1, 0x4000), b = make_bo(2, 0x8000);
	struct drm_vdxg_patch_location rp = { 0, 0, 0, 0x100, 0, 0 };
	struct drm_vdxg_allocation raw = { 99, 0, 0x7000 };
	const struct drm_vdxg_allocation *al;
	struct drm_vdxg_allocation *sub;
	struct drm_vdxg_submit args;
	struct vdxg_cs *cs = new_cs();
	const uint32_t *d;
	uint32_t before[32];

	vdxg_cs_set_surface(cs, 0, &a, 0x10, W, 1, 4, 4, 16);	/* addr dw 2 */
	vdxg_cs_fence(cs, &b, 0x20, W, 7);			/* addr dw 9 */
	vdxg_cs_fence(cs, &a, 0x30, W, 8);			/* addr dw 14 */
	vtest_assert_eq(vdxg_cs_add_raw_allocation(cs, &raw), 2);
	/* A raw patch on the moved object, over dwords 12-13. */
	rp.patch_offset = 12 * 4;
	vdxg_cs_add_raw_patch(cs, &rp);
	memcpy(before, vdxg_cs_dwords(cs), 18 * 4);

	memset(&args, 0, sizeof(args));
	vtest_assert_eq(vdxg_cs_prepare_submit(cs, &args), 0);
	sub = (struct drm_vdxg_allocation *)(uintptr_t)args.allocations;
	/* "kernel": a moved to 0x1_0000_2000, b stayed, raw got 0x3000 */
	sub[0].presumed_gpu_addr = 0x100002000ull;
	sub[1].presumed_gpu_addr = 0x8000;
	sub[2].presumed_gpu_addr = 0x3000;
	vdxg_cs_complete_submit(cs);

	vtest_assert_eq_u64(a.gpu_addr, 0x100002000ull);
	vtest_assert_eq_u64(b.gpu_addr, 0x8000);
	d = vdxg_cs_dwords(cs);
	vtest_assert_eq_u64(d[2], 0x2010);
	vtest_assert_eq_u64(d[3], 1);
	vtest_assert_eq_u64(d[9], 0x8020);
	vtest_assert_eq_u64(d[10], 0);
	vtest_assert_eq_u64(d[14], 0x2030);
	vtest_assert_eq_u64(d[15], 1);
	vtest_assert_eq_u64(d[12], before[12]);	/* raw patch: untouched */
	vtest_assert_eq_u64(d[13], before[13]);
	vtest_assert_eq_u64(d[11], 7);
	al = allocs(cs, 3);
	vtest_assert_eq_u64(al[0].presumed_gpu_addr, 0x100002000ull);
	vtest_assert_eq_u64(al[1].presumed_gpu_addr, 0x8000);
	vtest_assert_eq_u64(al[2].presumed_gpu_addr, 0x7000);	/* as given */

	/* Submitting again presumes what the fields hold. */
	vtest_assert_eq(vdxg_cs_prepare_submit(cs, &args), 0);
	sub = (struct drm_vdxg_allocation *)(uintptr_t)args.allocations;
	vtest_assert_eq_u64(sub[0].presumed_gpu_addr, 0x100002000ull);
	vtest_assert_eq_u64(sub[2].presumed_gpu_addr, 0x7000);

	/* A builder started now presumes the written-back address. */
	vdxg_cs_reset(cs);
	vdxg_cs_fence(cs, &a, 0, W, 1);
	vtest_assert_eq_u64(vdxg_cs_dwords(cs)[1], 0x2000);
	vtest_assert_eq_u64(vdxg_cs_dwords(cs)[2], 1);
	vdxg_cs_free(cs);
}

/* --------------------------------------------------- growth, raw, errors */

/*
 * Thousands of commands over 300 objects: far past the first capacities
 * of every list. Then decode the whole stream and check each command,
 * patch and allocation.
 */
static void test_growth(void)
{
	enum { NBO = 300, NCMD = 6000 };
	struct vdxg_bo *bos = calloc(NBO, sizeof(*bos));
	const struct drm_vdxg_allocation *al;
	const struct drm_vdxg_patch_location *p;
	struct vdxg_cs *cs = new_cs();
	uint32_t i, pos = 0, np = 0, nal, npatch;
	const uint32_t *d;

	vtest_assert(bos);
	for (i = 0; i < NBO; i++)
		bos[i] = make_bo(1000 + i, (uint64_t)(i + 1) << 20);
	for (i = 0; i < NCMD; i++) {
		struct vdxg_bo *bo = &bos[(i / 2 * 7) % NBO];

		switch (i % 4) {
		case 0:
			vtest_assert_eq(vdxg_cs_fence(cs, bo, i * 8, W, i), 0);
			break;
		case 1:
			vtest_assert_eq(vdxg_cs_fill_rect(cs, i & 0xffff, 1, 2, 3,
							  i), 0);
			break;
		case 2:
			vtest_assert_eq(vdxg_cs_set_surface(cs, i & 3, bo, i, 0,
							    1, 2, 3, 16), 0);
			break;
		default:
			vtest_assert_eq(vdxg_cs_nop(cs), 0);
			break;
		}
	}
	vtest_assert_eq(vdxg_cs_error(cs), 0);
	d = vdxg_cs_dwords(cs);
	al = vdxg_cs_allocations(cs, &nal);
	p = vdxg_cs_patches(cs, &npatch);
	vtest_assert_eq(nal, NBO);
	vtest_assert_eq(npatch, NCMD / 2);
	vtest_assert_eq(vdxg_cs_num_dwords(cs), NCMD / 4 * (5 + 4 + 8 + 1));
	for (i = 0; i < NCMD; i++) {
		struct vdxg_bo *bo = &bos[(i / 2 * 7) % NBO];
		uint64_t field;

		switch (i % 4) {
		case 0:
			vtest_assert_eq_u64(d[pos], 0x00050001);
			vtest_assert_eq_u64(d[pos + 3], i);
			field = d[pos + 1] | (uint64_t)d[pos + 2] << 32;
			vtest_assert_eq_u64(field, bo->gpu_addr + i * 8);
			vtest_assert_eq(p[np].patch_offset, (pos + 1) * 4);
			vtest_assert_eq(al[p[np].allocation_index].handle,
					bo->handle);
			vtest_assert_eq(al[p[np].allocation_index].flags, W);
			np++;
			pos += 5;
			break;
		case 1:
			vtest_assert_eq_u64(d[pos], 0x00040004);
			vtest_assert_eq_u64(d[pos + 1], (i & 0xffff) | 1 << 16);
			vtest_assert_eq_u64(d[pos + 3], i);
			pos += 4;
			break;
		case 2:
			vtest_assert_eq_u64(d[pos], 0x00080003);
			vtest_assert_eq_u64(d[pos + 1], i & 3);
			field = d[pos + 2] | (uint64_t)d[pos + 3] << 32;
			vtest_assert_eq_u64(field, bo->gpu_addr + i);
			vtest_assert_eq(p[np].patch_offset, (pos + 2) * 4);
			vtest_assert_eq(p[np].slot_id, i & 3);
			vtest_assert_eq(p[np].allocation_offset, i);
			vtest_assert_eq(al[p[np].allocation_index].handle,
					bo->handle);
			np++;
			pos += 8;
			break;
		default:
			vtest_assert_eq_u64(d[pos], 0x00010000);
			pos += 1;
			break;
		}
	}
	vtest_assert_eq(np, npatch);
	vdxg_cs_free(cs);
	free(bos);
}

static void test_raw(void)
{
	static const uint32_t junk[] = { 0x00ff0008, 0xdeadbeef, 0 };
	struct drm_vdxg_patch_location rp = { 7, 9, 0x1234, 0x40, 3, 5 };
	struct drm_vdxg_allocation ra = { 77, 0xffffffff, 0x123456789ull };
	struct vdxg_bo bo = make_bo(5, 0x70000);
	const struct drm_vdxg_patch_location *p;
	const struct drm_vdxg_allocation *al;
	struct vdxg_cs *cs = new_cs();
	const uint32_t *d;

	vtest_assert_eq(vdxg_cs_emit_raw(cs, junk, 3), 0);
	vtest_assert_eq(vdxg_cs_emit_raw(cs, NULL, 0), 0);
	/* A hand-made SET_SURFACE with a builder-made address field. */
	vtest_assert_eq(vdxg_cs_emit_raw(cs, (const uint32_t[]){
		VDXG_PG_HDR(VDXG_RD_SET_SURFACE, VDXG_RD_SET_SURFACE_LEN), 2 }, 2),
		0);
	vtest_assert_eq(vdxg_cs_emit_address(cs, &bo, 0x100, W, 2), 0);
	vtest_assert_eq(vdxg_cs_emit_raw(cs, (const uint32_t[]){ 4, 1, 1, 4 },
					 4), 0);
	vtest_assert_eq(vdxg_cs_add_raw_allocation(cs, &ra), 1);
	vtest_assert_eq(vdxg_cs_add_raw_patch(cs, &rp), 0);
	vtest_assert_eq(vdxg_cs_error(cs), 0);

	d = vdxg_cs_dwords(cs);
	assert_dwords(cs, (const uint32_t[]){ 0x00ff0008, 0xdeadbeef, 0,
					      0x00080003, 2, 0x70100, 0, 4, 1,
					      1, 4 }, 11);
	vtest_assert_eq_u64(d[5], 0x70100);
	p = patches(cs, 2);
	assert_patch(&p[0], 0, 2, 0x100, 5 * 4);
	vtest_assert(!memcmp(&p[1], &rp, sizeof(rp)));	/* verbatim */
	al = allocs(cs, 2);
	vtest_assert_eq(al[0].handle, 5);
	vtest_assert_eq(al[0].flags, W);
	vtest_assert(!memcmp(&al[1], &ra, sizeof(ra)));
	vdxg_cs_free(cs);
}

static void test_errors(void)
{
	struct vdxg_bo bo = make_bo(1, 0);
	struct drm_vdxg_submit args;
	struct vdxg_cs *cs = new_cs();
	uint32_t n;

	vdxg_cs_nop(cs);
	/* 16-bit fields that do not fit: refused, nothing emitted. */
	vtest_assert_eq(vdxg_cs_fill_rect(cs, 0x10000, 0, 1, 1, 0), -EINVAL);
	vtest_assert_eq(vdxg_cs_copy_rect(cs, 0, 0, 0, 0x10000, 1, 1), -EINVAL);
	vtest_assert_eq(vdxg_cs_blend(cs, 0, 0, 0, 0, 1, 0x12345, 9), -EINVAL);
	vtest_assert_eq(vdxg_cs_fence(cs, NULL, 0, W, 0), -EINVAL);
	vtest_assert_eq(vdxg_cs_set_surface(cs, 0, NULL, 0, W, 1, 1, 1, 4),
			-EINVAL);
	vtest_assert_eq(vdxg_cs_draw_triangles(cs, 0, 3, NULL, 0, 0), -EINVAL);
	vtest_assert_eq(vdxg_cs_emit_address(cs, NULL, 0, 0, 0), -EINVAL);
	vtest_assert_eq(vdxg_cs_emit_raw(cs, NULL, 1), -EINVAL);
	vtest_assert_eq(vdxg_cs_emit_raw(cs, (const uint32_t[]){ 0 },
					 0x20000000), -E2BIG);
	vtest_assert_eq(vdxg_cs_num_dwords(cs), 1);
	vdxg_cs_patches(cs, &n);
	vtest_assert_eq(n, 0);
	vdxg_cs_allocations(cs, &n);
	vtest_assert_eq(n, 0);
	/* The first error sticks; later good commands still emit. */
	vtest_assert_eq(vdxg_cs_error(cs), -EINVAL);
	vtest_assert_eq(vdxg_cs_fence(cs, &bo, 0, W, 0), 0);
	vtest_assert_eq(vdxg_cs_num_dwords(cs), 6);
	vtest_assert_eq(vdxg_cs_error(cs), -EINVAL);
	vtest_assert_eq(vdxg_cs_prepare_submit(cs, &args), -EINVAL);
	/* Boundaries that do fit. */
	vdxg_cs_reset(cs);
	vtest_assert_eq(vdxg_cs_error(cs), 0);
	vtest_assert_eq(vdxg_cs_fill_rect(cs, 0xffff, 0xffff, 0xffff, 0xffff, 0),
			0);
	assert_dwords(cs, (const uint32_t[]){ 0x00040004, 0xffffffff,
					      0xffffffff, 0 }, 4);
	vtest_assert_eq(vdxg_cs_prepare_submit(cs, &args), 0);
	vdxg_cs_free(cs);
}

static void test_reset(void)
{
	struct vdxg_bo bo = make_bo(3, 0x1000);
	struct vdxg_cs *cs = new_cs();
	uint32_t i, n;

	for (i = 0; i < 100; i++)
		vdxg_cs_fence(cs, &bo, 0, W, i);
	vdxg_cs_reset(cs);
	vtest_assert_eq(vdxg_cs_num_dwords(cs), 0);
	vdxg_cs_allocations(cs, &n);
	vtest_assert_eq(n, 0);
	vdxg_cs_patches(cs, &n);
	vtest_assert_eq(n, 0);
	vdxg_cs_wait(cs, &bo, 8, 0, 1);
	assert_dwords(cs, (const uint32_t[]){ 0x00050002, 0x1008, 0, 1, 0 }, 5);
	assert_patch(&patches(cs, 1)[0], 0, 0, 8, 4);
	vtest_assert_eq(allocs(cs, 1)[0].flags, 0);	/* WRITE forgotten */
	vdxg_cs_free(cs);
	vdxg_cs_free(NULL);
}

/*
 * A split point gives the next address field recorded its split offset,
 * the start of the command after the point; at the buffer's start, and
 * after a reset, there is none.
 */
static void test_split_point(void)
{
	struct vdxg_bo a = make_bo(3, 0x1000), b = make_bo(4, 0x200000);
	struct vdxg_cs *cs = new_cs();
	const struct drm_vdxg_patch_location *p;

	vtest_assert_eq(vdxg_cs_split_point(cs), 0);
	vdxg_cs_set_surface(cs, VDXG_SLOT_DST, &a, 0, W, VDXG_FMT_XRGB8888,
			    8, 8, 32);
	vdxg_cs_fill_rect(cs, 0, 0, 8, 8, 0xff000000);
	vtest_assert_eq(vdxg_cs_split_point(cs), 0);
	vdxg_cs_nop(cs);
	vdxg_cs_set_surface(cs, VDXG_SLOT_DST, &b, 0, W, VDXG_FMT_XRGB8888,
			    8, 8, 32);
	vdxg_cs_fence(cs, &b, 64, W, 1);
	p = patches(cs, 3);
	vtest_assert_eq(p[0].split_offset, 0);
	/* The NOP starts the piece: at dword 8 + 4. */
	vtest_assert_eq(p[1].split_offset, 48);
	vtest_assert_eq(p[1].patch_offset, (12 + 1 + 2) * 4);
	vtest_assert_eq(p[2].split_offset, 0);

	vdxg_cs_split_point(cs);
	vdxg_cs_reset(cs);
	vdxg_cs_fill_rect(cs, 0, 0, 1, 1, 0);
	vdxg_cs_fence(cs, &a, 0, W, 1);
	vtest_assert_eq(patches(cs, 1)[0].split_offset, 0);
	vdxg_cs_free(cs);
}

/*
 * Thousands of objects, in three handle patterns (sequential; multiples
 * of 2^19, which share low bits; a random permutation of a large range),
 * each used three times in a shuffled order and then again after a reset:
 * one entry per object, in first-use order, every patch naming it, and
 * nothing left over from the previous frame.
 */
#define MANY 5000

static uint32_t many_handle(int pattern, uint32_t i)
{
	switch (pattern) {
	case 0:
		return i + 1;
	case 1:
		return (i + 1) << 19;
	default:
		return (i * 2654435761u) ^ 0x5bd1e995u;	/* distinct: odd factor */
	}
}

static void test_alloc_dedup_many(void)
{
	static struct vdxg_bo bos[MANY];
	static uint32_t order[3 * MANY], first[MANY];
	const struct drm_vdxg_patch_location *p;
	const struct drm_vdxg_allocation *al;
	struct vdxg_cs *cs = new_cs();
	uint32_t i, n, next, seed = 1;
	int pattern, frame;

	for (pattern = 0; pattern < 3; pattern++) {
		for (i = 0; i < MANY; i++)
			bos[i] = make_bo(many_handle(pattern, i), 0x100000 * i);
		for (i = 0; i < 3 * MANY; i++)
			order[i] = i % MANY;
		for (i = 3 * MANY - 1; i > 0; i--) {	/* Fisher-Yates */
			uint32_t j, t;

			seed = seed * 1103515245u + 12345u;
			j = (seed >> 8) % (i + 1);
			t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
		for (frame = 0; frame < 2; frame++) {
			vdxg_cs_reset(cs);
			memset(first, 0xff, sizeof(first));
			next = 0;
			for (i = 0; i < 3 * MANY; i++) {
				uint32_t b = order[i];

				vtest_assert_eq(vdxg_cs_fence(cs, &bos[b], 0,
							      i & 1 ? W : 0, i), 0);
				if (first[b] == UINT32_MAX)
					first[b] = next++;
			}
			al = vdxg_cs_allocations(cs, &n);
			vtest_assert_eq(n, MANY);
			for (i = 0; i < MANY; i++) {
				vtest_assert_eq(al[first[i]].handle, bos[i].handle);
				vtest_assert_eq(al[first[i]].presumed_gpu_addr,
						bos[i].gpu_addr);
			}
			p = vdxg_cs_patches(cs, &n);
			vtest_assert_eq(n, 3 * MANY);
			for (i = 0; i < 3 * MANY; i++)
				vtest_assert_eq(p[i].allocation_index,
						first[order[i]]);
		}
	}
	vdxg_cs_free(cs);
}

/* The device layer without a device: errors, never a crash. */
static void test_no_device(void)
{
	struct vdxg_device *dev = (struct vdxg_device *)1;
	struct vdxg_bo bo = make_bo(1, 0);
	void *ptr;

	vtest_assert_eq(vdxg_lib_version(), VDXG_LIB_VERSION);
	vtest_assert_eq(VDXG_LIB_VERSION, VDXG_LIB_VERSION_ENCODE(0, 1, 0));
	vtest_assert_eq(vdxg_device_open("/nonexistent/renderD128", &dev),
			-ENOENT);
	vtest_assert(!dev);
	vtest_assert_eq(vdxg_device_open("/dev/null", &dev), -ENODEV);
	vtest_assert_eq(vdxg_bo_map(&bo, &ptr), -ENODEV);
	vtest_assert_eq(vdxg_bo_wait(&bo, 0), -ENODEV);
	vtest_assert_eq(vdxg_bo_info(&bo, NULL, NULL), -ENODEV);
	vtest_assert_eq(vdxg_bo_make_resident(&bo, 1), -ENODEV);
	vtest_assert_eq(vdxg_bo_unmap(&bo), 0);
	vdxg_device_close(NULL);
	vdxg_bo_free(NULL);
	/* On a host without vdxg there is no render node to find. */
	if (vdxg_device_open(NULL, &dev) == 0) {
		vdxg_device_close(dev);
		vtest_skip("this host has a vdxg device");
	}
	vtest_assert(!dev);
}

/* ------------------------------------------------------------ 3D pipeline */

/* Each 3D command alone, against dwords written out by hand. */
static void test_3d_literal(void)
{
	struct vdxg_bo bo = make_bo(7, 0x100000000ull);
	struct vdxg_cs *cs = new_cs();
	const uint32_t vp[] = { vdxg_f32_bits(320.0f), vdxg_f32_bits(-240.0f),
				vdxg_f32_bits(0.5f) };
	const float rgba[] = { 1.0f, 0.5f, 0.0f, -1.0f };
	const struct drm_vdxg_patch_location *p;
	const struct drm_vdxg_allocation *a;

	vtest_assert_eq(vdxg_cs_set_state(cs, VDXG_3D_VIEWPORT_SCALE(0), vp, 3), 0);
	assert_dwords(cs, (const uint32_t[]){ 0x00050008, 4, 0x43a00000,
					      0xc3700000, 0x3f000000 }, 5);
	patches(cs, 0);

	vdxg_cs_reset(cs);
	vtest_assert_eq(vdxg_cs_load_state(cs, &bo, 0x40, 0x20, 16), 0);
	assert_dwords(cs, (const uint32_t[]){ 0x00050009, 0x40, 1, 0x20, 16 }, 5);
	assert_patch(&patches(cs, 1)[0], 0, 0, 0x40, 4);
	a = allocs(cs, 1);
	vtest_assert_eq(a[0].handle, 7);
	vtest_assert_eq(a[0].flags, 0);
	vtest_assert_eq_u64(a[0].presumed_gpu_addr, 0x100000000ull);

	vdxg_cs_reset(cs);
	vtest_assert_eq(vdxg_cs_set_shader(cs, VDXG_3D_STAGE_FRAGMENT, &bo,
					   0x100, 0x90), 0);
	assert_dwords(cs, (const uint32_t[]){ 0x0005000a, 1, 0x100, 1, 0x90 }, 5);
	assert_patch(&patches(cs, 1)[0], 0, 0, 0x100, 8);

	vdxg_cs_reset(cs);
	vtest_assert_eq(vdxg_cs_set_constants(cs, VDXG_3D_STAGE_VERTEX, &bo,
					      0x200, 256), 0);
	assert_dwords(cs, (const uint32_t[]){ 0x0005000b, 0, 0x200, 1, 256 }, 5);
	assert_patch(&patches(cs, 1)[0], 0, 0, 0x200, 8);

	vdxg_cs_reset(cs);
	vtest_assert_eq(vdxg_cs_set_vertex_buffer(cs, 15, &bo, 0x300, 0x1000,
						  2048), 0);
	assert_dwords(cs, (const uint32_t[]){ 0x0006000c, 15, 0x300, 1, 0x1000,
					      2048 }, 6);
	assert_patch(&patches(cs, 1)[0], 0, 0, 0x300, 8);

	vdxg_cs_reset(cs);
	vtest_assert_eq(vdxg_cs_set_index_buffer(cs, &bo, 0x400, 0x60, 2), 0);
	assert_dwords(cs, (const uint32_t[]){ 0x0005000d, 0x400, 1, 0x60, 2 }, 5);
	assert_patch(&patches(cs, 1)[0], 0, 0, 0x400, 4);

	vdxg_cs_reset(cs);
	/* L8 (8) | 3 levels << 8 | CUBE bit 12 */
	vtest_assert_eq(vdxg_cs_set_texture(cs, 7, &bo, 0x1000, 168,
					    VDXG_TEX_DESC(VDXG_FMT_L8, 3, 1),
					    4, 4), 0);
	assert_dwords(cs, (const uint32_t[]){ 0x0007000e, 7, 0x1000, 1, 168,
					      0x1308, 0x00040004 }, 7);
	assert_patch(&patches(cs, 1)[0], 0, 0, 0x1000, 8);

	vdxg_cs_reset(cs);
	vtest_assert_eq(vdxg_cs_draw(cs, VDXG_PRIM_TRIANGLE_FAN, 3, 12), 0);
	assert_dwords(cs, (const uint32_t[]){ 0x0004000f, 6, 3, 12 }, 4);
	vtest_assert_eq(vdxg_cs_draw_indexed(cs, VDXG_PRIM_TRIANGLE_STRIP, 1,
					     0x1000000, -2), 0);
	assert_dwords(cs, (const uint32_t[]){ 0x0004000f, 6, 3, 12,
					      0x00050010, 5, 1, 0x1000000,
					      0xfffffffe }, 9);
	patches(cs, 0);

	vdxg_cs_reset(cs);
	vtest_assert_eq(vdxg_cs_clear(cs, VDXG_CLEAR_MASK, 1, 2, 300, 400, rgba,
				      1.0f, 0x80), 0);
	assert_dwords(cs, (const uint32_t[]){ 0x000a0011, 7, 0x00020001,
					      0x0190012c, 0x3f800000, 0x3f000000,
					      0, 0xbf800000, 0x3f800000, 0x80 },
		      10);
	vdxg_cs_reset(cs);
	vtest_assert_eq(vdxg_cs_clear(cs, VDXG_CLEAR_DEPTH, 0, 0, 0xffff,
				      0xffff, NULL, 0.25f, 0), 0);
	assert_dwords(cs, (const uint32_t[]){ 0x000a0011, 2, 0, 0xffffffff,
					      0, 0, 0, 0, 0x3e800000, 0 }, 10);
	patches(cs, 0);

	/* Unbinding without an object: address 0, no patch, no allocation. */
	vdxg_cs_reset(cs);
	vtest_assert_eq(vdxg_cs_set_constants(cs, 1, NULL, 0, 0), 0);
	vtest_assert_eq(vdxg_cs_set_vertex_buffer(cs, 3, NULL, 0, 0, 16), 0);
	vtest_assert_eq(vdxg_cs_set_index_buffer(cs, NULL, 0, 0, 0), 0);
	vtest_assert_eq(vdxg_cs_set_texture(cs, 2, NULL, 0, 0, 0, 0, 0), 0);
	assert_dwords(cs, (const uint32_t[]){ 0x0005000b, 1, 0, 0, 0,
					      0x0006000c, 3, 0, 0, 0, 16,
					      0x0005000d, 0, 0, 0, 0,
					      0x0007000e, 2, 0, 0, 0, 0, 0 },
		      23);
	patches(cs, 0);
	allocs(cs, 0);
	vtest_assert_eq(vdxg_cs_error(cs), 0);
	/* An unbinding may still name an object: it is encoded as given. */
	vtest_assert_eq(vdxg_cs_set_vertex_buffer(cs, 3, &bo, 0x10, 0, 0), 0);
	p = patches(cs, 1);
	assert_patch(&p[0], 0, 0, 0x10, 25 * 4);
	vdxg_cs_free(cs);
}

/* A draw's setup in one stream: patch offsets, allocations, macros. */
static void test_3d_stream(void)
{
	struct vdxg_bo rt = make_bo(1, 0x5000000), prog = make_bo(2, 0x20000),
		       data = make_bo(3, 0x10000000000ull);
	const uint32_t raster = VDXG_RASTER_CULL_BACK;
	const struct drm_vdxg_patch_location *p;
	const struct drm_vdxg_allocation *a;
	struct vdxg_cs *cs = new_cs();
	const uint32_t *d;
	uint32_t i = 0;

	vdxg_cs_set_surface(cs, VDXG_SLOT_DST, &rt, 0, W, VDXG_FMT_ARGB8888,
			    64, 64, 256);
	vdxg_cs_set_state(cs, VDXG_3D_RASTER, &raster, 1);
	vdxg_cs_load_state(cs, &data, 0x80, VDXG_3D_ELEMENT(0), 4);
	vdxg_cs_set_shader(cs, VDXG_3D_STAGE_VERTEX, &prog, 0, 0x60);
	vdxg_cs_set_shader(cs, VDXG_3D_STAGE_FRAGMENT, &prog, 0x100, 0x40);
	vdxg_cs_set_constants(cs, VDXG_3D_STAGE_VERTEX, &data, 0x1000, 4);
	vdxg_cs_set_vertex_buffer(cs, 0, &data, 0x2000, 0x300, 32);
	vdxg_cs_set_index_buffer(cs, &data, 0x3000, 12, 4);
	vdxg_cs_set_texture(cs, 0, &data, 0x4000, 0x4000,
			    VDXG_TEX_DESC(VDXG_FMT_ARGB8888, 1, 0), 64, 64);
	vdxg_cs_clear(cs, VDXG_CLEAR_COLOR, 0, 0, 64, 64, NULL, 0, 0);
	vdxg_cs_draw_indexed(cs, VDXG_PRIM_TRIANGLES, 0, 3, 0);
	vtest_assert_eq(vdxg_cs_error(cs), 0);
	vtest_assert_eq(vdxg_cs_num_dwords(cs), 8 + 3 + 5 * 4 + 6 + 5 + 7 +
			10 + 5);

	a = allocs(cs, 3);
	vtest_assert_eq(a[0].handle, 1);
	vtest_assert_eq(a[0].flags, W);
	vtest_assert_eq(a[1].handle, 3);
	vtest_assert_eq(a[1].flags, 0);
	vtest_assert_eq(a[2].handle, 2);
	vtest_assert_eq(a[2].flags, 0);
	p = patches(cs, 8);
	assert_patch(&p[0], 0, VDXG_SLOT_DST, 0, 2 * 4);
	assert_patch(&p[1], 1, 0, 0x80, (11 + VDXG_RD_LOAD_DW_ADDR) * 4);
	assert_patch(&p[2], 2, 0, 0, (16 + VDXG_RD_SHADER_DW_ADDR) * 4);
	assert_patch(&p[3], 2, 0, 0x100, (21 + VDXG_RD_SHADER_DW_ADDR) * 4);
	assert_patch(&p[4], 1, 0, 0x1000, (26 + VDXG_RD_CONST_DW_ADDR) * 4);
	assert_patch(&p[5], 1, 0, 0x2000, (31 + VDXG_RD_VB_DW_ADDR) * 4);
	assert_patch(&p[6], 1, 0, 0x3000, (37 + VDXG_RD_IB_DW_ADDR) * 4);
	assert_patch(&p[7], 1, 0, 0x4000, (42 + VDXG_RD_TEX_DW_ADDR) * 4);

	d = vdxg_cs_dwords(cs);
	i = 8;
	vtest_assert_eq_u64(d[i], VDXG_PG_HDR(VDXG_RD_SET_STATE,
					      VDXG_RD_SET_STATE_LEN(1)));
	vtest_assert_eq_u64(d[i + VDXG_RD_STATE_DW_FIRST], VDXG_3D_RASTER);
	vtest_assert_eq_u64(d[i + VDXG_RD_STATE_DW_VALUES], 2);
	i += VDXG_RD_SET_STATE_LEN(1);
	vtest_assert_eq_u64(d[i], VDXG_PG_HDR(VDXG_RD_LOAD_STATE,
					      VDXG_RD_LOAD_STATE_LEN));
	vtest_assert_eq_u64(d[i + VDXG_RD_LOAD_DW_ADDR], 0x80);
	vtest_assert_eq_u64(d[i + VDXG_RD_LOAD_DW_ADDR + 1], 0x100);
	vtest_assert_eq_u64(d[i + VDXG_RD_LOAD_DW_FIRST], 0x20);
	vtest_assert_eq_u64(d[i + VDXG_RD_LOAD_DW_COUNT], 4);
	i += VDXG_RD_LOAD_STATE_LEN;
	vtest_assert_eq_u64(d[i + VDXG_RD_SHADER_DW_ADDR], 0x20000);
	vtest_assert_eq_u64(d[i + VDXG_RD_SHADER_DW_SIZE], 0x60);
	i += 2 * VDXG_RD_SET_SHADER_LEN;
	vtest_assert_eq_u64(d[i], VDXG_PG_HDR(VDXG_RD_SET_CONSTANTS,
					      VDXG_RD_SET_CONSTANTS_LEN));
	i += VDXG_RD_SET_CONSTANTS_LEN;
	vtest_assert_eq_u64(d[i + VDXG_RD_VB_DW_ADDR], 0x2000);
	vtest_assert_eq_u64(d[i + VDXG_RD_VB_DW_ADDR + 1], 0x100);
	vtest_assert_eq_u64(d[i + VDXG_RD_VB_DW_STRIDE], 32);
	i += VDXG_RD_SET_VERTEX_BUFFER_LEN;
	vtest_assert_eq_u64(d[i + VDXG_RD_IB_DW_INDEX_SIZE], 4);
	i += VDXG_RD_SET_INDEX_BUFFER_LEN;
	vtest_assert_eq_u64(d[i + VDXG_RD_TEX_DW_FORMAT], VDXG_FMT_ARGB8888 | 1 << 8);
	vtest_assert_eq_u64(d[i + VDXG_RD_TEX_DW_WH], VDXG_RD_XY(64, 64));
	i += VDXG_RD_SET_TEXTURE_LEN;
	vtest_assert_eq_u64(d[i + VDXG_RD_CLEAR_DW_FLAGS], VDXG_CLEAR_COLOR);
	i += VDXG_RD_CLEAR_LEN;
	vtest_assert_eq_u64(d[i], VDXG_PG_HDR(VDXG_RD_DRAW_INDEXED,
					      VDXG_RD_DRAW_INDEXED_LEN));
	vtest_assert_eq_u64(d[i + VDXG_RD_DRAW3D_DW_PRIM], VDXG_PRIM_TRIANGLES);
	vtest_assert_eq_u64(d[i + VDXG_RD_DRAW3D_DW_COUNT], 3);

	/* A moved object's 3D address fields are rewritten on write-back. */
	{
		struct drm_vdxg_submit args;
		struct drm_vdxg_allocation *sa;

		vtest_assert_eq(vdxg_cs_prepare_submit(cs, &args), 0);
		sa = (struct drm_vdxg_allocation *)(uintptr_t)args.allocations;
		sa[1].presumed_gpu_addr = 0x777000;
		vdxg_cs_complete_submit(cs);
		vtest_assert_eq_u64(data.gpu_addr, 0x777000);
		vtest_assert_eq_u64(d[42 + VDXG_RD_TEX_DW_ADDR], 0x777000 + 0x4000);
		vtest_assert_eq_u64(d[42 + VDXG_RD_TEX_DW_ADDR + 1], 0);
		vtest_assert_eq_u64(d[11 + VDXG_RD_LOAD_DW_ADDR], 0x777080);
		vtest_assert_eq_u64(d[16 + VDXG_RD_SHADER_DW_ADDR], 0x20000);
	}
	vdxg_cs_free(cs);
}

static void test_3d_errors(void)
{
	struct vdxg_bo bo = make_bo(1, 0);
	struct vdxg_cs *cs = new_cs();
	uint32_t v[VDXG_3D_NUM_REGS + 1] = { 0 }, n;

	vtest_assert_eq(vdxg_cs_set_state(cs, 0, v, 0), -EINVAL);
	vtest_assert_eq(vdxg_cs_set_state(cs, 0, v, VDXG_3D_NUM_REGS + 1), -EINVAL);
	vtest_assert_eq(vdxg_cs_set_state(cs, 0, NULL, 1), -EINVAL);
	vtest_assert_eq(vdxg_cs_load_state(cs, NULL, 0, 0, 1), -EINVAL);
	vtest_assert_eq(vdxg_cs_set_shader(cs, 0, NULL, 0, 16), -EINVAL);
	vtest_assert_eq(vdxg_cs_set_constants(cs, 0, NULL, 0, 1), -EINVAL);
	vtest_assert_eq(vdxg_cs_set_vertex_buffer(cs, 0, NULL, 0, 4, 0), -EINVAL);
	vtest_assert_eq(vdxg_cs_set_index_buffer(cs, NULL, 0, 4, 2), -EINVAL);
	vtest_assert_eq(vdxg_cs_set_texture(cs, 0, NULL, 0, 4, 1, 1, 1), -EINVAL);
	vtest_assert_eq(vdxg_cs_set_texture(cs, 0, &bo, 0, 4, 1, 0x10000, 1), -EINVAL);
	vtest_assert_eq(vdxg_cs_clear(cs, 1, 0, 0x10000, 1, 1, NULL, 0, 0), -EINVAL);
	vtest_assert_eq(vdxg_cs_num_dwords(cs), 0);
	vdxg_cs_patches(cs, &n);
	vtest_assert_eq(n, 0);
	vdxg_cs_allocations(cs, &n);
	vtest_assert_eq(n, 0);
	vtest_assert_eq(vdxg_cs_error(cs), -EINVAL);
	/* 64 registers fit one SET_STATE; out-of-range values are encoded. */
	vdxg_cs_reset(cs);
	vtest_assert_eq(vdxg_cs_set_state(cs, 0, v, VDXG_3D_NUM_REGS), 0);
	vtest_assert_eq(vdxg_cs_num_dwords(cs), 66);
	vtest_assert_eq(vdxg_cs_set_texture(cs, 8, &bo, 3, 0, 0xffffffff, 0xffff,
					    0xffff), 0);
	vtest_assert_eq(vdxg_cs_draw(cs, 7, 0xffffffff, 0xffffffff), 0);
	vtest_assert_eq(vdxg_cs_error(cs), 0);
	vdxg_cs_free(cs);
}

static void test_f32_bits(void)
{
	vtest_assert_eq_u64(vdxg_f32_bits(1.0f), 0x3f800000);
	vtest_assert_eq_u64(vdxg_f32_bits(-0.0f), 0x80000000);
	vtest_assert_eq_u64(vdxg_f32_bits(16384.0f), 0x46800000);
	vtest_assert(vdxg_bits_f32(0x3f000000) == 0.5f);
	vtest_assert_eq_u64(vdxg_f32_bits(vdxg_bits_f32(0x7fc00001)), 0x7fc00001);
}

static const struct vtest_subtest tests[] = {
	{ "encode-literal", test_encode_literal,
	  "each command's dwords, written out by hand" },
	{ "encode-macros", test_encode_macros,
	  "each command's dwords against the vdxg_hw.h macros" },
	{ "alloc-dedup", test_alloc_dedup,
	  "one entry per object, write flags merged, raw entries apart" },
	{ "alloc-dedup-many", test_alloc_dedup_many,
	  "5000 objects, colliding handles, reuse after reset" },
	{ "patch-locations", test_patch_locations,
	  "patch offsets, slots and allocation offsets" },
	{ "presumed-address", test_presumed_address,
	  "presumed address in the fields and the list" },
	{ "prepare-submit", test_prepare_submit, "SUBMIT arguments" },
	{ "writeback", test_writeback,
	  "written-back addresses repatch the buffer" },
	{ "growth", test_growth, "thousands of commands, hundreds of objects" },
	{ "raw", test_raw, "the escape hatch" },
	{ "errors", test_errors, "refused arguments, sticky error" },
	{ "reset", test_reset, "reset empties everything" },
	{ "split-point", test_split_point,
	  "a split point is the next address field's split offset" },
	{ "no-device", test_no_device, "device calls without a device" },
	{ "3d-literal", test_3d_literal,
	  "each 3D command's dwords and patch, written out by hand" },
	{ "3d-stream", test_3d_stream,
	  "a draw's setup: patch offsets, allocations, write-back" },
	{ "3d-errors", test_3d_errors, "refused 3D arguments, sticky error" },
	{ "f32-bits", test_f32_bits, "SET_STATE's float bits" },
};

VTEST_MAIN(tests)
