// SPDX-License-Identifier: MIT
/*
 * libvdxg-vcs-test: the virtual-address command-stream builder on the
 * host: each command's dwords written out by hand, a full buffer, bad
 * operands, the sticky error and reset. Runs with make -C libvdxg check.
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

static const struct vtest_subtest tests[] = {
	{ "encode", test_encode, "each command's dwords, written out by hand" },
	{ "full", test_full, "a full buffer refuses whole commands" },
	{ "errors", test_errors, "bad operands, bad buffers, sticky error" },
};

VTEST_MAIN(tests)
