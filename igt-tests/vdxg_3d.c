// SPDX-License-Identifier: MIT
/*
 * vdxg_3d: the 3D pipeline's commands through SUBMIT (the patch model).
 *
 * Hostile buffers are refused by the kernel's parser before anything is
 * queued, each with its errno: ranges one byte past their objects, bad
 * counts and formats, unbound programs and targets, index ranges past the
 * index buffer, a texture layout larger than its size, a write through a
 * read-only allocation. On a device without the 3D pipeline
 * (DRM_VDXG_PARAM_3D 0) every one of them, and a valid one, is refused
 * with EINVAL: the opcodes do not exist there. After each refusal the
 * context still runs a job and the kernel log has no problem.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vrender.h"

#define HDR(op, len)	VDXG_PG_HDR(op, len)
#define F32_ONE		0x3f800000u
#define F32_NAN		0x7fc00000u
#define KIB		1024u

struct h3 {
	struct vr vr;
	uint32_t ctx;
	struct vdxg_cs *cs;
	struct vdxg_bo *big;	/* 1 MiB, VRAM, written */
	struct vdxg_bo *small;	/* 4 KiB, VRAM, read */
	struct vdxg_bo *ro;	/* 256 KiB, VRAM, never listed for writing */
	bool has_3d;
};

static void emit(struct h3 *h, const uint32_t *dw, uint32_t n)
{
	vtest_assert_ok(vdxg_cs_emit_raw(h->cs, dw, n));
}

static void emit1(struct h3 *h, uint32_t dw)
{
	emit(h, &dw, 1);
}

static void addr(struct h3 *h, struct vdxg_bo *bo, uint32_t offset,
		 uint32_t flags, uint32_t slot)
{
	vtest_assert_ok(vdxg_cs_emit_address(h->cs, bo, offset, flags, slot));
}

static void surface(struct h3 *h, uint32_t slot, struct vdxg_bo *bo,
		    uint32_t offset, uint32_t flags, uint32_t format,
		    uint32_t w, uint32_t hgt, uint32_t pitch)
{
	uint32_t rest[4] = { format, w, hgt, pitch };

	emit1(h, HDR(VDXG_RD_SET_SURFACE, VDXG_RD_SET_SURFACE_LEN));
	emit1(h, slot);
	addr(h, bo, offset, flags, slot);
	emit(h, rest, 4);
}

/* A 64x64 ABGR8888 target and a 64x64 D24S8 depth, in BIG. */
static void targets(struct h3 *h)
{
	surface(h, VDXG_SLOT_DST, h->big, 0, DRM_VDXG_ALLOC_WRITE,
		VDXG_FMT_ABGR8888, 64, 64, 256);
	surface(h, VDXG_SLOT_DEPTH, h->big, 64 * KIB, DRM_VDXG_ALLOC_WRITE,
		VDXG_FMT_D24S8, 64, 64, 256);
}

static void set_state(struct h3 *h, uint32_t first, uint32_t value)
{
	uint32_t dw[3] = {
		HDR(VDXG_RD_SET_STATE, VDXG_RD_SET_STATE_LEN(1)), first, value,
	};

	emit(h, dw, 3);
}

static void load_state(struct h3 *h, struct vdxg_bo *bo, uint32_t offset,
		       uint32_t first, uint32_t count)
{
	emit1(h, HDR(VDXG_RD_LOAD_STATE, VDXG_RD_LOAD_STATE_LEN));
	addr(h, bo, offset, 0, 0);
	emit1(h, first);
	emit1(h, count);
}

static void shader(struct h3 *h, uint32_t stage, struct vdxg_bo *bo,
		   uint32_t offset, uint32_t size)
{
	emit1(h, HDR(VDXG_RD_SET_SHADER, VDXG_RD_SET_SHADER_LEN));
	emit1(h, stage);
	addr(h, bo, offset, 0, 0);
	emit1(h, size);
}

/* Both programs, in SMALL (the kernel does not read them). */
static void programs(struct h3 *h)
{
	shader(h, VDXG_3D_STAGE_VERTEX, h->small, 0, 64);
	shader(h, VDXG_3D_STAGE_FRAGMENT, h->small, 1024, 64);
}

static void constants(struct h3 *h, uint32_t stage, struct vdxg_bo *bo,
		      uint32_t offset, uint32_t count)
{
	emit1(h, HDR(VDXG_RD_SET_CONSTANTS, VDXG_RD_SET_CONSTANTS_LEN));
	emit1(h, stage);
	addr(h, bo, offset, 0, 0);
	emit1(h, count);
}

static void vertex_buffer(struct h3 *h, uint32_t index, struct vdxg_bo *bo,
			  uint32_t offset, uint32_t size, uint32_t stride)
{
	emit1(h, HDR(VDXG_RD_SET_VERTEX_BUFFER,
		     VDXG_RD_SET_VERTEX_BUFFER_LEN));
	emit1(h, index);
	addr(h, bo, offset, 0, 0);
	emit1(h, size);
	emit1(h, stride);
}

static void index_buffer(struct h3 *h, struct vdxg_bo *bo, uint32_t offset,
			 uint32_t size, uint32_t index_size)
{
	emit1(h, HDR(VDXG_RD_SET_INDEX_BUFFER, VDXG_RD_SET_INDEX_BUFFER_LEN));
	addr(h, bo, offset, 0, 0);
	emit1(h, size);
	emit1(h, index_size);
}

static void texture(struct h3 *h, uint32_t unit, struct vdxg_bo *bo,
		    uint32_t offset, uint32_t size, uint32_t desc, uint32_t w,
		    uint32_t hgt)
{
	emit1(h, HDR(VDXG_RD_SET_TEXTURE, VDXG_RD_SET_TEXTURE_LEN));
	emit1(h, unit);
	addr(h, bo, offset, 0, 0);
	emit1(h, size);
	emit1(h, desc);
	emit1(h, VDXG_RD_XY(w, hgt));
}

static void draw(struct h3 *h, uint32_t prim, uint32_t first, uint32_t count)
{
	uint32_t dw[4] = { HDR(VDXG_RD_DRAW, VDXG_RD_DRAW_LEN), prim, first,
			   count };

	emit(h, dw, 4);
}

static void draw_indexed(struct h3 *h, uint32_t first, uint32_t count)
{
	uint32_t dw[5] = {
		HDR(VDXG_RD_DRAW_INDEXED, VDXG_RD_DRAW_INDEXED_LEN),
		VDXG_PRIM_TRIANGLES, first, count, 0,
	};

	emit(h, dw, 5);
}

static void clear(struct h3 *h, uint32_t flags)
{
	uint32_t dw[10] = {
		HDR(VDXG_RD_CLEAR, VDXG_RD_CLEAR_LEN), flags, VDXG_RD_XY(0, 0),
		VDXG_RD_XY(64, 64), F32_ONE, 0, 0, F32_ONE, F32_ONE, 0x80,
	};

	emit(h, dw, 10);
}

/* ------------------------------------------------------- the buffers */

static void b_load_past(struct h3 *h)
{
	load_state(h, h->small, 4096 - 60, 0, 16);	/* 64 bytes from -60 */
}

static void b_load_count(struct h3 *h)
{
	load_state(h, h->small, 0, 0, 65);
}

static void b_shader_past(struct h3 *h)
{
	shader(h, VDXG_3D_STAGE_VERTEX, h->small, 4096 - 60, 64);
}

static void b_shader_size(struct h3 *h)
{
	shader(h, VDXG_3D_STAGE_VERTEX, h->big, 0,
	       VDXG_3D_PROGRAM_MAX_BYTES + 4);
}

static void b_constants_past(struct h3 *h)
{
	constants(h, VDXG_3D_STAGE_FRAGMENT, h->small, 4,
		  VDXG_3D_NUM_CONSTS);	/* 4 KiB from byte 4 */
}

static void b_constants_count(struct h3 *h)
{
	constants(h, VDXG_3D_STAGE_VERTEX, h->big, 0, VDXG_3D_NUM_CONSTS + 1);
}

static void b_vertex_buffer_past(struct h3 *h)
{
	vertex_buffer(h, 0, h->small, 1, 4096, 16);
}

static void b_vertex_buffer_stride(struct h3 *h)
{
	vertex_buffer(h, 0, h->small, 0, 64, VDXG_3D_MAX_STRIDE + 1);
}

static void b_index_buffer_past(struct h3 *h)
{
	index_buffer(h, h->small, 8, 4096 - 7, 2);
}

static void b_index_size(struct h3 *h)
{
	index_buffer(h, h->small, 0, 64, 3);
}

static void b_texture_past(struct h3 *h)
{
	/* 64 x 64 ARGB8888 is 16 KiB: one more byte than the object has */
	texture(h, 0, h->big, 1024 * KIB - 16 * KIB, 16 * KIB + 1,
		VDXG_TEX_DESC(VDXG_FMT_ARGB8888, 1, false), 64, 64);
}

static void b_texture_layout(struct h3 *h)
{
	/* 5 x 3 RGB888, 3 levels: 16 x 3 + 8 + 4 = 60 bytes, not 59 */
	texture(h, 1, h->small, 0, 59,
		VDXG_TEX_DESC(VDXG_FMT_RGB888, 3, false), 5, 3);
}

static void b_texture_format(struct h3 *h)
{
	texture(h, 2, h->small, 0, 4096, VDXG_TEX_DESC(VDXG_FMT_D24S8, 1,
						       false), 8, 8);
}

static void b_texture_cube(struct h3 *h)
{
	texture(h, 3, h->small, 0, 4096, VDXG_TEX_DESC(VDXG_FMT_L8, 1, true),
		8, 4);
}

static void b_surface_format(struct h3 *h)
{
	surface(h, VDXG_SLOT_TEXTURE, h->big, 0, 0, VDXG_FMT_L8, 64, 64, 64);
}

static void b_depth_format(struct h3 *h)
{
	surface(h, VDXG_SLOT_DST, h->big, 0, DRM_VDXG_ALLOC_WRITE,
		VDXG_FMT_D16, 64, 64, 128);
}

static void b_register(struct h3 *h)
{
	set_state(h, VDXG_3D_VIEWPORT_SCALE(0), F32_NAN);
}

static void b_element(struct h3 *h)
{
	set_state(h, VDXG_3D_ELEMENT(3), VDXG_VFMT(10, 1));
}

static void b_blend(struct h3 *h)
{
	set_state(h, VDXG_3D_BLEND, VDXG_BLEND_RGB_EQ(5));
}

static void b_draw_no_target(struct h3 *h)
{
	programs(h);
	draw(h, VDXG_PRIM_TRIANGLES, 0, 3);
}

static void b_draw_no_program(struct h3 *h)
{
	targets(h);
	shader(h, VDXG_3D_STAGE_VERTEX, h->small, 0, 64);
	draw(h, VDXG_PRIM_TRIANGLES, 0, 3);
}

static void b_draw_prim(struct h3 *h)
{
	targets(h);
	programs(h);
	draw(h, VDXG_NUM_PRIMS, 0, 3);
}

static void b_draw_count(struct h3 *h)
{
	targets(h);
	programs(h);
	draw(h, VDXG_PRIM_POINTS, 0, VDXG_3D_MAX_COUNT + 1);
}

static void b_draw_depth_small(struct h3 *h)
{
	surface(h, VDXG_SLOT_DST, h->big, 0, DRM_VDXG_ALLOC_WRITE,
		VDXG_FMT_RGBA4444, 64, 64, 128);
	surface(h, VDXG_SLOT_DEPTH, h->big, 64 * KIB, DRM_VDXG_ALLOC_WRITE,
		VDXG_FMT_D16, 63, 64, 128);
	programs(h);
	draw(h, VDXG_PRIM_TRIANGLES, 0, 3);
}

static void b_indexed_no_ib(struct h3 *h)
{
	targets(h);
	programs(h);
	draw_indexed(h, 0, 3);
}

static void b_indexed_past(struct h3 *h)
{
	targets(h);
	programs(h);
	index_buffer(h, h->small, 0, 1000, 4);	/* 250 indices */
	draw_indexed(h, 248, 3);
}

static void b_clear_stencil_d16(struct h3 *h)
{
	surface(h, VDXG_SLOT_DEPTH, h->big, 0, DRM_VDXG_ALLOC_WRITE,
		VDXG_FMT_D16, 64, 64, 128);
	clear(h, VDXG_CLEAR_DEPTH | VDXG_CLEAR_STENCIL);
}

static void b_clear_no_dst(struct h3 *h)
{
	clear(h, VDXG_CLEAR_COLOR);
}

static void b_target_read_only(struct h3 *h)
{
	surface(h, VDXG_SLOT_DST, h->ro, 0, 0, VDXG_FMT_RGBA5551, 64, 64,
		128);
}

/* Everything bound and every command once: accepted with the pipeline. */
static void b_valid(struct h3 *h)
{
	uint32_t regs[2 + VDXG_3D_NUM_REGS] = {
		HDR(VDXG_RD_SET_STATE, VDXG_RD_SET_STATE_LEN(VDXG_3D_NUM_REGS)),
		0,
	};

	regs[2 + VDXG_3D_DEPTH] = VDXG_DEPTH_TEST | VDXG_DEPTH_WRITE |
				  VDXG_DEPTH_FUNC(VDXG_FUNC_LESS);
	regs[2 + VDXG_3D_VIEWPORT_SCALE(0)] = 0x42000000;	/* 32.0f */
	regs[2 + VDXG_3D_ELEMENT(0)] =
		VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_FLOAT32, 4), 0, 0);
	targets(h);
	programs(h);
	emit(h, regs, VTEST_ARRAY_SIZE(regs));
	load_state(h, h->ro, 0, 0, VDXG_3D_NUM_REGS);
	constants(h, VDXG_3D_STAGE_VERTEX, h->ro, 4096, VDXG_3D_NUM_CONSTS);
	vertex_buffer(h, 0, h->ro, 8192, 4096, 16);
	index_buffer(h, h->small, 0, 4096, 2);
	texture(h, 0, h->ro, 16384, 60,
		VDXG_TEX_DESC(VDXG_FMT_RGB888, 3, false), 5, 3);
	clear(h, VDXG_CLEAR_COLOR | VDXG_CLEAR_DEPTH | VDXG_CLEAR_STENCIL);
	draw(h, VDXG_PRIM_TRIANGLES, 0, 3);
	draw_indexed(h, 2045, 3);
}

struct h3_case {
	const char *name;
	void (*build)(struct h3 *h);
	int err;	/* with the 3D pipeline; EINVAL without */
};

static const struct h3_case cases[] = {
	{ "load-state-past-object", b_load_past, ERANGE },
	{ "load-state-count-65", b_load_count, EINVAL },
	{ "shader-past-object", b_shader_past, ERANGE },
	{ "shader-size-too-large", b_shader_size, EINVAL },
	{ "constants-past-object", b_constants_past, ERANGE },
	{ "constants-count-257", b_constants_count, EINVAL },
	{ "vertex-buffer-past-object", b_vertex_buffer_past, ERANGE },
	{ "vertex-buffer-stride-2049", b_vertex_buffer_stride, EINVAL },
	{ "index-buffer-past-object", b_index_buffer_past, ERANGE },
	{ "index-size-3", b_index_size, EINVAL },
	{ "texture-past-object", b_texture_past, ERANGE },
	{ "texture-layout-past-size", b_texture_layout, EINVAL },
	{ "texture-format-d24s8", b_texture_format, EINVAL },
	{ "texture-cube-not-square", b_texture_cube, EINVAL },
	{ "surface-format-l8", b_surface_format, EINVAL },
	{ "surface-d16-as-dst", b_depth_format, EINVAL },
	{ "register-viewport-nan", b_register, EINVAL },
	{ "register-element-format", b_element, EINVAL },
	{ "register-blend-equation", b_blend, EINVAL },
	{ "draw-without-target", b_draw_no_target, EINVAL },
	{ "draw-without-fragment-program", b_draw_no_program, EINVAL },
	{ "draw-primitive-7", b_draw_prim, EINVAL },
	{ "draw-count-past-2^24", b_draw_count, EINVAL },
	{ "draw-depth-smaller-than-target", b_draw_depth_small, ERANGE },
	{ "draw-indexed-without-index-buffer", b_indexed_no_ib, EINVAL },
	{ "draw-indexed-past-index-buffer", b_indexed_past, ERANGE },
	{ "clear-stencil-of-d16", b_clear_stencil_d16, EINVAL },
	{ "clear-colour-without-target", b_clear_no_dst, EINVAL },
	{ "target-read-only", b_target_read_only, EACCES },
};

static void h3_open(struct h3 *h)
{
	memset(h, 0, sizeof(*h));
	vr_open(&h->vr);
	h->has_3d = vr_param(&h->vr, DRM_VDXG_PARAM_3D);
	vtest_info("3D pipeline: %s", h->has_3d ? "yes" : "no");
	h->ctx = vr_ctx(&h->vr);
	h->big = vr_bo(&h->vr, 1024 * KIB, DRM_VDXG_SEGMENT_VRAM, 0);
	h->small = vr_bo(&h->vr, 4 * KIB, DRM_VDXG_SEGMENT_VRAM, 0);
	h->ro = vr_bo(&h->vr, 256 * KIB, DRM_VDXG_SEGMENT_VRAM, 0);
	h->cs = vr_cs();
}

static void h3_close(struct h3 *h)
{
	vdxg_cs_free(h->cs);
	vdxg_bo_free(h->ro);
	vdxg_bo_free(h->small);
	vdxg_bo_free(h->big);
	vr_close(&h->vr);
}

static int h3_submit(struct h3 *h, uint32_t flags)
{
	struct drm_vdxg_submit args;

	memset(&args, 0, sizeof(args));
	vtest_assert_ok(vdxg_cs_prepare_submit(h->cs, &args));
	args.ctx_id = h->ctx;
	args.flags = flags;
	return vdxg_submit_raw(h->vr.dev, &args);
}

/*
 * With the pipeline, a SUBMIT of one valid 3D command (SET_STATE, not run:
 * NULL_RENDERING) passes the parser.
 */
static void h3_require_parser(struct h3 *h)
{
	int ret;

	if (!h->has_3d)
		return;
	vdxg_cs_reset(h->cs);
	set_state(h, VDXG_3D_RASTER, 0);
	ret = h3_submit(h, DRM_VDXG_SUBMIT_NULL_RENDERING);
	vdxg_cs_reset(h->cs);
	vtest_assert_f(ret == 0, "SUBMIT of a SET_STATE: %d (%s)", ret,
		       strerror(-ret));
}

/*
 * Each hostile buffer refused with its errno (EINVAL without the
 * pipeline), counted as a parser refusal; the context runs a FENCE after
 * each, and the kernel log stays clean.
 */
static void test_hostile(void)
{
	struct h3 h;
	uint64_t kmsg, rejected;
	size_t i;
	int ret, n, err;

	h3_open(&h);
	h3_require_parser(&h);
	kmsg = vtest_kmsg_seq();
	for (i = 0; i < VTEST_ARRAY_SIZE(cases); i++) {
		err = h.has_3d ? cases[i].err : EINVAL;
		vdxg_cs_reset(h.cs);
		cases[i].build(&h);
		rejected = vr_debugfs(&h.vr, "render", "rejected");
		ret = h3_submit(&h, 0);
		vtest_info("%s: %d (%s), expecting %s", cases[i].name, ret,
			   strerror(-ret), strerror(err));
		vtest_assert_f(ret == -err, "%s: SUBMIT returned %d (%s), "
			       "expected %d (%s)", cases[i].name, ret,
			       strerror(-ret), -err, strerror(err));
		vtest_assert_eq_u64(vr_debugfs(&h.vr, "render", "rejected"),
				    rejected + 1);
		vr_fence_check(&h.vr, h.ctx, h.small, 4096 - 8, 0x3d000000 + i);
	}
	n = vtest_kmsg_problems(kmsg);
	vtest_assert_f(n == 0, "%d kernel log problem(s)", n);
	h3_close(&h);
}

/*
 * A valid buffer with every 3D command, NULL_RENDERING (validated, made
 * resident and patched, not run: the kernel does not check programs):
 * accepted with the pipeline, its fence signals; EINVAL without.
 */
static void test_valid(void)
{
	struct h3 h;
	int ret;

	h3_open(&h);
	h3_require_parser(&h);
	b_valid(&h);
	ret = h3_submit(&h, DRM_VDXG_SUBMIT_NULL_RENDERING);
	vtest_assert_f(ret == (h.has_3d ? 0 : -EINVAL),
		       "SUBMIT returned %d (%s)", ret, strerror(-ret));
	if (!ret)
		vr_bo_wait(h.big);
	vr_fence_check(&h.vr, h.ctx, h.small, 4096 - 8, 0x3d0000ff);
	h3_close(&h);
}

static const struct vtest_subtest subtests[] = {
	{ "hostile", test_hostile,
	  "hostile 3D buffers through SUBMIT: ranges past their objects, bad "
	  "counts, formats and registers, unbound programs, targets and "
	  "index buffers, index ranges past the index buffer: each refused "
	  "with its errno, EINVAL without the 3D pipeline" },
	{ "valid", test_valid,
	  "a valid buffer of every 3D command, NULL_RENDERING: accepted with "
	  "the 3D pipeline, EINVAL without" },
};

VTEST_MAIN(subtests)
