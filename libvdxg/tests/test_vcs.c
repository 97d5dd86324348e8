// SPDX-License-Identifier: MIT
/*
 * libvdxg-vcs-test: the virtual-address command-stream builder on the
 * host: each command's dwords written out by hand, a full buffer, bad
 * operands, the sticky error and reset, the 3D commands, and the texture
 * layout helper. Runs with make -C libvdxg check.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#define BIT(n) (1u << (n))
#define BIT_ULL(n) (1ull << (n))
#include "vdxg_hw.h"

#include "vdxg.h"
#include "vtest.h"

#define VA 0x123456789000ull

static void assert_dwords(const uint32_t *got, const uint32_t *want,
			  uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		vtest_assert_f(got[i] == want[i],
			       "dword %u is 0x%08x, want 0x%08x", i, got[i],
			       want[i]);
}

static void test_encode(void)
{
	static const uint32_t want[] = {
		0x00010000,				/* NOP */
		0x00050001, 0x89abcdf0, 0x1234567, 0x55667788, 0x11223344,
		0x00050002, 0x9000, 0x1234, 1, 0,	/* WAIT */
		0x00080003, 1, 0x9000, 0x1234, 2, 96, 64, 384,
		0x00040004, 0x00020003, 0x00050004, 0xff102030,
		0x00040005, 0x00020001, 0x00040003, 0x00060005,
		0x00050006, 0x00020001, 0x00040003, 0x00060005, 0x80,
		0x00050007, 1, 6, 0xa000, 0x1234,
		0xdeadbeef,				/* raw */
	};
	uint32_t buf[64];
	struct vdxg_vcs vcs;

	memset(buf, 0xcc, sizeof(buf));
	vdxg_vcs_init(&vcs, buf, sizeof(buf), VA);
	vtest_assert_eq(vdxg_vcs_nop(&vcs), 0);
	vtest_assert_eq(vdxg_vcs_fence(&vcs, 0x0123456789abcdf0ull,
				       0x1122334455667788ull), 0);
	vtest_assert_eq(vdxg_vcs_wait(&vcs, 0x123400009000ull, 1), 0);
	vtest_assert_eq(vdxg_vcs_set_surface(&vcs, VDXG_SLOT_SRC,
					     0x123400009000ull,
					     VDXG_FMT_ARGB8888, 96, 64, 384),
			0);
	vtest_assert_eq(vdxg_vcs_fill_rect(&vcs, 3, 2, 4, 5, 0xff102030), 0);
	vtest_assert_eq(vdxg_vcs_copy_rect(&vcs, 1, 2, 3, 4, 5, 6), 0);
	vtest_assert_eq(vdxg_vcs_blend(&vcs, 1, 2, 3, 4, 5, 6, 0x80), 0);
	vtest_assert_eq(vdxg_vcs_draw_triangles(&vcs, VDXG_DRAW_TEXTURE, 6,
						0x12340000a000ull), 0);
	vtest_assert_eq(vdxg_vcs_emit_raw(&vcs, &want[sizeof(want) / 4 - 1], 1), 0);
	vtest_assert_eq(vdxg_vcs_length(&vcs), sizeof(want));
	assert_dwords(buf, want, sizeof(want) / 4);
	/* Nothing past the end is touched. */
	vtest_assert_eq(buf[sizeof(want) / 4], 0xcccccccc);
	vtest_assert_eq(vdxg_vcs_error(&vcs), 0);
}

static void test_full(void)
{
	uint32_t buf[10];
	struct vdxg_vcs vcs;

	memset(buf, 0xcc, sizeof(buf));
	vdxg_vcs_init(&vcs, buf, sizeof(buf), VA);
	vtest_assert_eq(vdxg_vcs_set_surface(&vcs, 0, VA, 1, 1, 1, 4), 0);
	/* 8 + 4 > 10: refused whole, and every later one too. */
	vtest_assert_eq(vdxg_vcs_fill_rect(&vcs, 0, 0, 1, 1, 0), -ENOSPC);
	vtest_assert_eq(vdxg_vcs_nop(&vcs), -ENOSPC);
	vtest_assert_eq(vdxg_vcs_length(&vcs), 32);
	vtest_assert_eq(buf[8], 0xcccccccc);
	vtest_assert_eq(vdxg_vcs_error(&vcs), -ENOSPC);
	vdxg_vcs_reset(&vcs);
	vtest_assert_eq(vdxg_vcs_error(&vcs), 0);
	vtest_assert_eq(vdxg_vcs_length(&vcs), 0);
	vtest_assert_eq(vdxg_vcs_nop(&vcs), 0);
}

static void test_errors(void)
{
	uint32_t buf[16];
	struct vdxg_vcs vcs;

	vdxg_vcs_init(&vcs, buf, sizeof(buf), VA);
	vtest_assert_eq(vdxg_vcs_fill_rect(&vcs, 0x10000, 0, 1, 1, 0),
			-EINVAL);
	vtest_assert_eq(vdxg_vcs_length(&vcs), 0);
	vtest_assert_eq(vdxg_vcs_nop(&vcs), -EINVAL);
	vdxg_vcs_init(&vcs, buf, sizeof(buf), VA + 2);
	vtest_assert_eq(vdxg_vcs_error(&vcs), -EINVAL);
	vdxg_vcs_init(&vcs, NULL, sizeof(buf), VA);
	vtest_assert_eq(vdxg_vcs_nop(&vcs), -EINVAL);
	/* EXEC of a builder in error fails with its error, no ioctl. */
	vdxg_vcs_init(&vcs, buf, sizeof(buf), VA);
	vtest_assert_eq(vdxg_vcs_copy_rect(&vcs, 0, 0, 0, 0, 0x10000, 1),
			-EINVAL);
	vtest_assert_eq(vdxg_exec(NULL, 1, &vcs, NULL), -EINVAL);
}

static void test_3d(void)
{
	static const uint32_t want[] = {
		0x00050008, 4, 0x43a00000, 0xc3700000, 0x3f000000,
		0x00050009, 0x40, 0x1234, 0x20, 16,
		0x0005000a, 1, 0x9100, 0x1234, 0x90,
		0x0005000b, 0, 0x9200, 0x1234, 256,
		0x0006000c, 15, 0x9300, 0x1234, 0x1000, 2048,
		0x0005000d, 0x9400, 0x1234, 0x60, 2,
		0x0007000e, 7, 0xa000, 0x1234, 168, 0x1308, 0x00040004,
		0x0004000f, 6, 3, 12,
		0x00050010, 5, 1, 0x1000000, 0xfffffffe,
		0x000a0011, 7, 0x00020001, 0x0190012c, 0x3f800000, 0x3f000000,
		0, 0xbf800000, 0x3f800000, 0x80,
		0x0005000b, 1, 0, 0, 0,			/* unbind */
	};
	const uint32_t vp[] = { vdxg_f32_bits(320.0f), vdxg_f32_bits(-240.0f),
				vdxg_f32_bits(0.5f) };
	const float rgba[] = { 1.0f, 0.5f, 0.0f, -1.0f };
	uint32_t buf[128], v[VDXG_3D_NUM_REGS + 1] = { 0 };
	struct vdxg_vcs vcs;

	memset(buf, 0xcc, sizeof(buf));
	vdxg_vcs_init(&vcs, buf, sizeof(buf), VA);
	vtest_assert_eq(vdxg_vcs_set_state(&vcs, VDXG_3D_VIEWPORT_SCALE(0), vp, 3), 0);
	vtest_assert_eq(vdxg_vcs_load_state(&vcs, 0x40, 0x20, 16), 0);
	vtest_assert_eq(vdxg_vcs_set_shader(&vcs, 1, 0x123400009100ull, 0x90), 0);
	vtest_assert_eq(vdxg_vcs_set_constants(&vcs, 0, 0x123400009200ull, 256), 0);
	vtest_assert_eq(vdxg_vcs_set_vertex_buffer(&vcs, 15, 0x123400009300ull,
						   0x1000, 2048), 0);
	vtest_assert_eq(vdxg_vcs_set_index_buffer(&vcs, 0x123400009400ull, 0x60,
						  2), 0);
	vtest_assert_eq(vdxg_vcs_set_texture(&vcs, 7, 0x12340000a000ull, 168,
					     VDXG_TEX_DESC(VDXG_FMT_L8, 3, 1),
					     4, 4), 0);
	vtest_assert_eq(vdxg_vcs_draw(&vcs, VDXG_PRIM_TRIANGLE_FAN, 3, 12), 0);
	vtest_assert_eq(vdxg_vcs_draw_indexed(&vcs, VDXG_PRIM_TRIANGLE_STRIP, 1,
					      0x1000000, -2), 0);
	vtest_assert_eq(vdxg_vcs_clear(&vcs, VDXG_CLEAR_MASK, 1, 2, 300, 400,
				       rgba, 1.0f, 0x80), 0);
	vtest_assert_eq(vdxg_vcs_set_constants(&vcs, 1, 0, 0), 0);
	/* LOAD_STATE's address 0x40 has no high dword: fix the table. */
	vtest_assert_eq(vdxg_vcs_length(&vcs), sizeof(want));
	{
		uint32_t w[sizeof(want) / 4];

		memcpy(w, want, sizeof(want));
		w[7] = 0;
		assert_dwords(buf, w, sizeof(want) / 4);
	}
	vtest_assert_eq(buf[sizeof(want) / 4], 0xcccccccc);
	vtest_assert_eq(vdxg_vcs_error(&vcs), 0);

	/* Refused: nothing written, the error sticks. */
	vdxg_vcs_reset(&vcs);
	vtest_assert_eq(vdxg_vcs_set_state(&vcs, 0, v, 0), -EINVAL);
	vdxg_vcs_reset(&vcs);
	vtest_assert_eq(vdxg_vcs_set_state(&vcs, 0, v, VDXG_3D_NUM_REGS + 1),
			-EINVAL);
	vdxg_vcs_reset(&vcs);
	vtest_assert_eq(vdxg_vcs_set_state(&vcs, 0, NULL, 1), -EINVAL);
	vdxg_vcs_reset(&vcs);
	vtest_assert_eq(vdxg_vcs_set_texture(&vcs, 0, VA, 4, 1, 1, 0x10000),
			-EINVAL);
	vdxg_vcs_reset(&vcs);
	vtest_assert_eq(vdxg_vcs_clear(&vcs, 1, 0x10000, 0, 1, 1, NULL, 0, 0),
			-EINVAL);
	vtest_assert_eq(vdxg_vcs_length(&vcs), 0);
	vtest_assert_eq(vdxg_vcs_draw(&vcs, 0, 0, 3), -EINVAL);
	vtest_assert_eq(vdxg_vcs_length(&vcs), 0);
	/* 64 registers fit one SET_STATE; a full buffer refuses it whole. */
	vdxg_vcs_reset(&vcs);
	vtest_assert_eq(vdxg_vcs_set_state(&vcs, 0, v, VDXG_3D_NUM_REGS), 0);
	vtest_assert_eq(vdxg_vcs_length(&vcs), 66 * 4);
	vtest_assert_eq(vdxg_vcs_set_state(&vcs, 0, v, VDXG_3D_NUM_REGS),
			-ENOSPC);
	vtest_assert_eq(vdxg_vcs_length(&vcs), 66 * 4);
}

static void test_tex_layout(void)
{
	struct vdxg_tex_layout t;

	/* 2D RGB888 5 x 3, 3 levels: pitches align(15) 16, align(6) 8, 4 */
	vtest_assert_eq(vdxg_tex_layout(VDXG_TEX_DESC(VDXG_FMT_RGB888, 3, 0),
					5, 3, &t), 0);
	vtest_assert_eq(t.cpp, 3);
	vtest_assert_eq(t.faces, 1);
	vtest_assert_eq(t.levels, 3);
	vtest_assert_eq(t.level[0].width, 5);
	vtest_assert_eq(t.level[0].height, 3);
	vtest_assert_eq(t.level[0].pitch, 16);
	vtest_assert_eq_u64(t.level[0].image_size, 48);
	vtest_assert_eq(t.level[1].width, 2);
	vtest_assert_eq(t.level[1].height, 1);
	vtest_assert_eq(t.level[1].pitch, 8);
	vtest_assert_eq_u64(t.level[1].offset, 48);
	vtest_assert_eq(t.level[2].width, 1);
	vtest_assert_eq(t.level[2].height, 1);
	vtest_assert_eq(t.level[2].pitch, 4);
	vtest_assert_eq_u64(t.level[2].offset, 56);
	vtest_assert_eq_u64(t.size, 60);

	/* A cube of L8 4 x 4, 3 levels: images 16, 8 (2 x 2, pitch 4), 4 */
	vtest_assert_eq(vdxg_tex_layout(VDXG_TEX_DESC(VDXG_FMT_L8, 3, 1), 4,
					4, &t), 0);
	vtest_assert_eq(t.faces, 6);
	vtest_assert_eq_u64(t.level[0].image_size, 16);
	vtest_assert_eq_u64(t.level[1].offset, 96);
	vtest_assert_eq_u64(t.level[1].image_size, 8);
	vtest_assert_eq_u64(t.level[2].offset, 96 + 48);
	vtest_assert_eq_u64(t.level[2].image_size, 4);
	vtest_assert_eq_u64(t.size, 96 + 48 + 24);

	/* The biggest: a cube 8192^2 ARGB, 14 levels: 24 (4^14 - 1) / 3. */
	vtest_assert_eq(vdxg_tex_layout(VDXG_TEX_DESC(VDXG_FMT_ARGB8888, 14, 1),
					8192, 8192, &t), 0);
	vtest_assert_eq(t.level[13].width, 1);
	vtest_assert_eq_u64(t.level[0].image_size, 8192ull * 8192 * 4);
	vtest_assert_eq_u64(t.size, 2147483640ull);
	/* Non-square 2D: level sizes bottom out at 1. */
	vtest_assert_eq(vdxg_tex_layout(VDXG_TEX_DESC(VDXG_FMT_RGB565, 4, 0),
					8, 1, &t), 0);
	vtest_assert_eq(t.level[3].width, 1);
	vtest_assert_eq(t.level[3].height, 1);
	vtest_assert_eq_u64(t.size, 16 + 8 + 4 + 4);

	/* What SET_TEXTURE refuses. */
	vtest_assert_eq(vdxg_tex_layout(VDXG_TEX_DESC(VDXG_FMT_D16, 1, 0), 4, 4, &t), -EINVAL);
	vtest_assert_eq(vdxg_tex_layout(VDXG_TEX_DESC(VDXG_FMT_D24S8, 1, 0), 4, 4, &t), -EINVAL);
	vtest_assert_eq(vdxg_tex_layout(VDXG_TEX_DESC(VDXG_FMT_D32, 1, 0), 4, 4, &t), -EINVAL);
	vtest_assert_eq(vdxg_tex_layout(VDXG_TEX_DESC(14, 1, 0), 4, 4, &t), -EINVAL);
	vtest_assert_eq(vdxg_tex_layout(0, 4, 4, &t), -EINVAL);
	vtest_assert_eq(vdxg_tex_layout(VDXG_TEX_DESC(VDXG_FMT_L8, 0, 0), 4, 4, &t), -EINVAL);
	vtest_assert_eq(vdxg_tex_layout(VDXG_TEX_DESC(VDXG_FMT_L8, 15, 0), 4, 4, &t), -EINVAL);
	vtest_assert_eq(vdxg_tex_layout(VDXG_TEX_DESC(VDXG_FMT_L8, 1, 0), 0, 4, &t), -EINVAL);
	vtest_assert_eq(vdxg_tex_layout(VDXG_TEX_DESC(VDXG_FMT_L8, 1, 0), 8193, 4, &t), -EINVAL);
	vtest_assert_eq(vdxg_tex_layout(VDXG_TEX_DESC(VDXG_FMT_L8, 1, 1), 8, 4, &t), -EINVAL);
	vtest_assert_eq(vdxg_tex_layout(VDXG_TEX_DESC(VDXG_FMT_L8, 1, 0) | BIT(13), 4, 4, &t), -EINVAL);
}

static const struct vtest_subtest tests[] = {
	{ "encode", test_encode, "each command's dwords, written out by hand" },
	{ "full", test_full, "a full buffer refuses whole commands" },
	{ "errors", test_errors, "bad operands, bad buffers, sticky error" },
	{ "3d", test_3d, "the 3D commands' dwords, refusals, a full buffer" },
	{ "tex-layout", test_tex_layout,
	  "texture layout sizes and offsets, and refusals" },
};

VTEST_MAIN(tests)
