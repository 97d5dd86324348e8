// SPDX-License-Identifier: MIT
/*
 * vdxg_3d: the 3D pipeline's commands through SUBMIT (the patch model)
 * and EXEC (virtual addresses in a VM).
 *
 * Draws: each case is built once as a scene (resources and commands) and
 * emitted through both builders, vdxg_cs for SUBMIT and vdxg_vcs for EXEC
 * with the resources bound by VM_BIND; the targets read back (colour,
 * depth and stencil bytes, every byte of their objects) must equal what
 * libvdxg's reference pipeline, vdxg_ref3d, computes in the guest from
 * the same inputs. Every primitive, indexed or not; clipping across each
 * plane; depth, stencil and blend state; every texture format and
 * filter; cube maps; derivatives; discard; loops. Every scene's draws
 * change some bytes of the reference's targets (else it tests nothing).
 *
 * Faults through EXEC: a draw whose memory is unmapped or read-only
 * faults with its reason at an address inside that memory, its context
 * banned; a runaway program is a SHADER fault while another client's
 * draws stay exact. Paging: VRAM oversubscribed between rounds of the
 * same SUBMIT draws, whose inputs are evicted and brought back.
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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vrender.h"
#include "vdxg_ref3d.h"

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

/* ------------------------------------------------ draws, both models */

/*
 * A scene: memory (resources, each its own object and virtual range) and
 * a list of 3D commands on them, built once and emitted through both
 * builders: vdxg_cs (SUBMIT, the patch model, on a physical-mode
 * context) and vdxg_vcs (EXEC on a virtual-mode context, each resource
 * mapped with VM_BIND). The reference pipeline runs the vcs form over
 * copies of the resources (the virtual addresses as its flat address
 * space); the targets read back must equal the reference's byte for
 * byte, every byte of their objects.
 */
#define SC_MAX_RES	16
#define SC_MAX_OPS	64
#define SC_NONE		0xff
#define SC_VA(r)	(0x100000000ull + (uint64_t)(r) * 0x1000000ull)
#define SC_VA_CMD	0x40000000ull
#define SC_CMD_SIZE	(64 * KIB)
#define SC_W		32
#define SC_H		32

enum sc_kind {
	K_STATE, K_LOAD, K_SHADER, K_CONSTS, K_VB, K_IB, K_TEX, K_SURF,
	K_DRAW, K_DRAWI, K_CLEAR,
};

struct sc_op {
	uint8_t kind, res;
	uint32_t off;
	uint32_t a[10];
	uint32_t n;
	uint32_t v[VDXG_3D_NUM_REGS];
};

struct sc_res {
	uint8_t *data;
	uint32_t size;		/* page rounded */
	bool target;		/* written by the engine: compared */
	uint32_t format, width, height, pitch;	/* a target's, for messages */
};

struct scene {
	char name[64];
	bool skip_draws;	/* emit no DRAW, DRAW_INDEXED */
	int nres, nops;
	struct sc_res res[SC_MAX_RES];
	struct sc_op op[SC_MAX_OPS];
	uint64_t rng;
};

static float frand(struct scene *sc, float lo, float hi)
{
	return lo + (hi - lo) * (float)(vr_rand(&sc->rng) & 0xffffff) /
	       16777216.0f;
}

static struct scene *sc_new(uint64_t *rng, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static struct scene *sc_new(uint64_t *rng, const char *fmt, ...)
{
	struct scene *sc = calloc(1, sizeof(*sc));
	va_list ap;

	vtest_assert(sc);
	va_start(ap, fmt);
	vsnprintf(sc->name, sizeof(sc->name), fmt, ap);
	va_end(ap);
	sc->rng = vr_rand(rng) | (uint64_t)vr_rand(rng) << 32 | 1;
	return sc;
}

static void sc_free(struct scene *sc)
{
	int i;

	for (i = 0; i < sc->nres; i++)
		free(sc->res[i].data);
	free(sc);
}

/* A resource of SIZE bytes (page rounded), DATA or random bytes. */
static int sc_res(struct scene *sc, const void *data, uint32_t size)
{
	struct sc_res *r = &sc->res[sc->nres];
	uint32_t i;

	vtest_assert(sc->nres < SC_MAX_RES);
	r->size = (size + 4095) & ~4095u;
	r->data = malloc(r->size);
	vtest_assert(r->data);
	for (i = 0; i < r->size; i++)
		r->data[i] = vr_rand(&sc->rng);
	if (data)
		memcpy(r->data, data, size);
	return sc->nres++;
}

static struct sc_op *sc_op(struct scene *sc, enum sc_kind kind, int res,
			   uint32_t off)
{
	struct sc_op *o = &sc->op[sc->nops];

	vtest_assert(sc->nops < SC_MAX_OPS);
	sc->nops++;
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->res = res < 0 ? SC_NONE : res;
	o->off = off;
	return o;
}

static void sc_regs(struct scene *sc, uint32_t first, const uint32_t *v,
		    uint32_t n)
{
	struct sc_op *o = sc_op(sc, K_STATE, -1, 0);

	o->a[0] = first;
	o->n = n;
	memcpy(o->v, v, n * 4);
}

static void sc_reg(struct scene *sc, uint32_t reg, uint32_t value)
{
	sc_regs(sc, reg, &value, 1);
}

static void sc_regf(struct scene *sc, uint32_t reg, float value)
{
	sc_reg(sc, reg, vdxg_f32_bits(value));
}

/* Registers through LOAD_STATE: a state block in memory. */
static void sc_load(struct scene *sc, uint32_t first, const uint32_t *v,
		    uint32_t n)
{
	int r = sc_res(sc, v, n * 4);
	struct sc_op *o = sc_op(sc, K_LOAD, r, 0);

	o->a[0] = first;
	o->a[1] = n;
}

/* Assemble TEXT ("VERT ..." or "FRAG ...") and bind it. */
static int sc_prog(struct scene *sc, const char *text)
{
	uint32_t *prog, size;
	struct sc_op *o;
	char msg[256];
	int r;

	vtest_assert_f(!vdxg_asm(text, &prog, &size, msg, sizeof(msg)),
		       "%s: asm: %s", sc->name, msg);
	r = sc_res(sc, prog, size);
	free(prog);
	o = sc_op(sc, K_SHADER, r, 0);
	o->a[0] = !strncmp(text, "FRAG", 4) ? VDXG_3D_STAGE_FRAGMENT :
					       VDXG_3D_STAGE_VERTEX;
	o->a[1] = size;
	return r;
}

static int sc_consts(struct scene *sc, uint32_t stage, const void *v,
		     uint32_t count)
{
	int r = sc_res(sc, v, count * 16);
	struct sc_op *o = sc_op(sc, K_CONSTS, r, 0);

	o->a[0] = stage;
	o->a[1] = count;
	return r;
}

static int sc_vb(struct scene *sc, uint32_t index, const void *data,
		 uint32_t size, uint32_t stride)
{
	int r = sc_res(sc, data, size);
	struct sc_op *o = sc_op(sc, K_VB, r, 0);

	o->a[0] = index;
	o->a[1] = size;
	o->a[2] = stride;
	return r;
}

static int sc_ib(struct scene *sc, const void *data, uint32_t size,
		 uint32_t index_size)
{
	int r = sc_res(sc, data, size);
	struct sc_op *o = sc_op(sc, K_IB, r, 0);

	o->a[0] = size;
	o->a[1] = index_size;
	return r;
}

/* A texture of random texels; a resource per texture. */
static int sc_tex(struct scene *sc, uint32_t unit, uint32_t desc, uint32_t w,
		  uint32_t h)
{
	struct vdxg_tex_layout l;
	struct sc_op *o;
	int r;

	vtest_assert_ok(vdxg_tex_layout(desc, w, h, &l));
	r = sc_res(sc, NULL, l.size);
	o = sc_op(sc, K_TEX, r, 0);
	o->a[0] = unit;
	o->a[1] = l.size;
	o->a[2] = desc;
	o->a[3] = w;
	o->a[4] = h;
	return r;
}

/* A target of random pixels in SLOT. */
static int sc_surf(struct scene *sc, uint32_t slot, uint32_t format,
		   uint32_t w, uint32_t h)
{
	uint32_t cpp = vdxg_ref3d_cpp(format);
	uint32_t pitch = (w * cpp + 63) & ~63u;
	struct sc_op *o;
	int r;

	r = sc_res(sc, NULL, pitch * h);
	sc->res[r].target = true;
	sc->res[r].format = format;
	sc->res[r].width = w;
	sc->res[r].height = h;
	sc->res[r].pitch = pitch;
	o = sc_op(sc, K_SURF, r, 0);
	o->a[0] = slot;
	o->a[1] = format;
	o->a[2] = w;
	o->a[3] = h;
	o->a[4] = pitch;
	return r;
}

static void sc_draw(struct scene *sc, uint32_t prim, uint32_t first,
		    uint32_t count)
{
	struct sc_op *o = sc_op(sc, K_DRAW, -1, 0);

	o->a[0] = prim;
	o->a[1] = first;
	o->a[2] = count;
}

static void sc_drawi(struct scene *sc, uint32_t prim, uint32_t first,
		     uint32_t count, int32_t bias)
{
	struct sc_op *o = sc_op(sc, K_DRAWI, -1, 0);

	o->a[0] = prim;
	o->a[1] = first;
	o->a[2] = count;
	o->a[3] = (uint32_t)bias;
}

static void sc_clear(struct scene *sc, uint32_t flags, uint32_t x,
		     uint32_t y, uint32_t w, uint32_t h, const float rgba[4],
		     float depth, uint32_t stencil)
{
	struct sc_op *o = sc_op(sc, K_CLEAR, -1, 0);

	o->a[0] = flags;
	o->a[1] = x;
	o->a[2] = y;
	o->a[3] = w;
	o->a[4] = h;
	memcpy(&o->a[5], rgba, 16);
	o->a[9] = vdxg_f32_bits(depth);
	o->n = stencil;
}

/* The scene through a virtual-address builder, resource r at VA[r]. */
static void sc_emit_vcs_ops(const struct scene *sc, struct vdxg_vcs *vcs,
			    const uint64_t *va, int from, int to)
{
	const struct sc_op *o;
	uint64_t a;
	float rgba[4];
	int i;

	for (i = from; i < to; i++) {
		o = &sc->op[i];
		if (sc->skip_draws && (o->kind == K_DRAW ||
				       o->kind == K_DRAWI))
			continue;
		a = o->res == SC_NONE ? 0 : va[o->res] + o->off;
		switch (o->kind) {
		case K_STATE:
			vdxg_vcs_set_state(vcs, o->a[0], o->v, o->n);
			break;
		case K_LOAD:
			vdxg_vcs_load_state(vcs, a, o->a[0], o->a[1]);
			break;
		case K_SHADER:
			vdxg_vcs_set_shader(vcs, o->a[0], a, o->a[1]);
			break;
		case K_CONSTS:
			vdxg_vcs_set_constants(vcs, o->a[0], a, o->a[1]);
			break;
		case K_VB:
			vdxg_vcs_set_vertex_buffer(vcs, o->a[0], a, o->a[1],
						   o->a[2]);
			break;
		case K_IB:
			vdxg_vcs_set_index_buffer(vcs, a, o->a[0], o->a[1]);
			break;
		case K_TEX:
			vdxg_vcs_set_texture(vcs, o->a[0], a, o->a[1], o->a[2],
					     o->a[3], o->a[4]);
			break;
		case K_SURF:
			vdxg_vcs_set_surface(vcs, o->a[0], a, o->a[1], o->a[2],
					     o->a[3], o->a[4]);
			break;
		case K_DRAW:
			vdxg_vcs_draw(vcs, o->a[0], o->a[1], o->a[2]);
			break;
		case K_DRAWI:
			vdxg_vcs_draw_indexed(vcs, o->a[0], o->a[1], o->a[2],
					      (int32_t)o->a[3]);
			break;
		case K_CLEAR:
			memcpy(rgba, &o->a[5], 16);
			vdxg_vcs_clear(vcs, o->a[0], o->a[1], o->a[2], o->a[3],
				       o->a[4], rgba, vdxg_bits_f32(o->a[9]),
				       o->n);
			break;
		}
	}
	vtest_assert_f(!vdxg_vcs_error(vcs), "%s: vcs: %d", sc->name,
		       vdxg_vcs_error(vcs));
}

static void sc_emit_vcs(const struct scene *sc, struct vdxg_vcs *vcs,
			const uint64_t *va)
{
	sc_emit_vcs_ops(sc, vcs, va, 0, sc->nops);
}

/* The scene through the patch-model builder, resource r in BO[r]. */
static void sc_emit_cs(const struct scene *sc, struct vdxg_cs *cs,
		       struct vdxg_bo **bo)
{
	const struct sc_op *o;
	struct vdxg_bo *b;
	float rgba[4];
	int i;

	for (i = 0; i < sc->nops; i++) {
		o = &sc->op[i];
		b = o->res == SC_NONE ? NULL : bo[o->res];
		switch (o->kind) {
		case K_STATE:
			vdxg_cs_set_state(cs, o->a[0], o->v, o->n);
			break;
		case K_LOAD:
			vdxg_cs_load_state(cs, b, o->off, o->a[0], o->a[1]);
			break;
		case K_SHADER:
			vdxg_cs_set_shader(cs, o->a[0], b, o->off, o->a[1]);
			break;
		case K_CONSTS:
			vdxg_cs_set_constants(cs, o->a[0], b, o->off, o->a[1]);
			break;
		case K_VB:
			vdxg_cs_set_vertex_buffer(cs, o->a[0], b, o->off,
						  o->a[1], o->a[2]);
			break;
		case K_IB:
			vdxg_cs_set_index_buffer(cs, b, o->off, o->a[0],
						 o->a[1]);
			break;
		case K_TEX:
			vdxg_cs_set_texture(cs, o->a[0], b, o->off, o->a[1],
					    o->a[2], o->a[3], o->a[4]);
			break;
		case K_SURF:
			vdxg_cs_set_surface(cs, o->a[0], b, o->off,
					    DRM_VDXG_ALLOC_WRITE, o->a[1],
					    o->a[2], o->a[3], o->a[4]);
			break;
		case K_DRAW:
			vdxg_cs_draw(cs, o->a[0], o->a[1], o->a[2]);
			break;
		case K_DRAWI:
			vdxg_cs_draw_indexed(cs, o->a[0], o->a[1], o->a[2],
					     (int32_t)o->a[3]);
			break;
		case K_CLEAR:
			memcpy(rgba, &o->a[5], 16);
			vdxg_cs_clear(cs, o->a[0], o->a[1], o->a[2], o->a[3],
				      o->a[4], rgba, vdxg_bits_f32(o->a[9]),
				      o->n);
			break;
		}
	}
	vr_cs_ok(cs);
}

/* ---- the reference: the vcs form over copies of the resources */

struct sc_mem {
	const struct scene *sc;
	uint8_t *copy[SC_MAX_RES];
};

static uint8_t *sc_mem_at(struct sc_mem *m, uint64_t addr, uint32_t len)
{
	uint64_t r, off;

	if (addr < SC_VA(0))
		return NULL;
	r = (addr - SC_VA(0)) >> 24;
	off = (addr - SC_VA(0)) & 0xffffff;
	if (r >= (uint64_t)m->sc->nres || off + len > m->sc->res[r].size)
		return NULL;
	return m->copy[r] + off;
}

static bool sc_mem_read(void *opaque, uint64_t addr, void *buf, uint32_t len)
{
	uint8_t *p = sc_mem_at(opaque, addr, len);

	if (p)
		memcpy(buf, p, len);
	return p;
}

static bool sc_mem_write(void *opaque, uint64_t addr, const void *buf,
			 uint32_t len)
{
	uint8_t *p = sc_mem_at(opaque, addr, len);

	if (p)
		memcpy(p, buf, len);
	return p;
}

/* Run the reference: M's copies hold the result; the fault's reason. */
static uint32_t sc_reference(const struct scene *sc, struct sc_mem *m,
			     struct vdxg_ref3d_fault *fault)
{
	struct vdxg_ref3d_mem mem = {
		.opaque = m, .read = sc_mem_read, .write = sc_mem_write,
	};
	struct vdxg_ref3d_ctx *ctx = malloc(sizeof(*ctx));
	uint64_t va[SC_MAX_RES];
	struct vdxg_vcs vcs;
	uint32_t *buf = malloc(SC_CMD_SIZE), reason;
	int i;

	vtest_assert(ctx && buf);
	m->sc = sc;
	for (i = 0; i < sc->nres; i++) {
		va[i] = SC_VA(i);
		m->copy[i] = malloc(sc->res[i].size);
		vtest_assert(m->copy[i]);
		memcpy(m->copy[i], sc->res[i].data, sc->res[i].size);
	}
	vdxg_vcs_init(&vcs, buf, SC_CMD_SIZE, SC_VA_CMD);
	sc_emit_vcs(sc, &vcs, va);
	vdxg_ref3d_init(ctx);
	memset(fault, 0, sizeof(*fault));
	reason = vdxg_ref3d_exec(ctx, &mem, SC_VA_CMD, buf,
				 vdxg_vcs_length(&vcs) / 4, fault);
	free(buf);
	free(ctx);
	return reason;
}

static void sc_mem_free(struct sc_mem *m)
{
	int i;

	for (i = 0; i < m->sc->nres; i++)
		free(m->copy[i]);
}

/*
 * Compare every target's object (GOT[r], mapped) with the reference's;
 * print up to 8 differing pixels, and fail naming the model.
 */
static void sc_compare(const struct scene *sc, const struct sc_mem *m,
		       uint8_t *const *got, const char *model)
{
	const struct sc_res *r;
	uint32_t off, cpp, bad, x, y;
	int i;

	for (i = 0; i < sc->nres; i++) {
		r = &sc->res[i];
		if (!r->target || !memcmp(got[i], m->copy[i], r->size))
			continue;
		cpp = vdxg_ref3d_cpp(r->format);
		bad = 0;
		for (off = 0; off < r->size; off++) {
			if (got[i][off] == m->copy[i][off])
				continue;
			if (bad++ >= 8)
				continue;
			y = off / r->pitch;
			x = (off % r->pitch) / cpp;
			vtest_info("%s (%s): target %d (format %u) byte %u, "
				   "pixel (%u, %u): got 0x%02x, reference "
				   "0x%02x", sc->name, model, i, r->format,
				   off, x, y, got[i][off], m->copy[i][off]);
		}
		vtest_fail("%s (%s): target %d: %u bytes differ from the "
			   "reference", sc->name, model, i, bad);
	}
}

/* ---- the device */

/* Objects of the scene's resources, written; SEG0/SEG1 as vr_bo's. */
static void sc_objects(struct vr *vr, const struct scene *sc,
		       struct vdxg_bo **bo, uint32_t seg0, uint32_t seg1)
{
	int i;

	for (i = 0; i < sc->nres; i++) {
		bo[i] = vr_bo(vr, sc->res[i].size,
			      sc->res[i].target ? DRM_VDXG_SEGMENT_VRAM : seg0,
			      sc->res[i].target ? 0 : seg1);
		memcpy(vr_map(bo[i]), sc->res[i].data, sc->res[i].size);
	}
}

static void sc_objects_free(const struct scene *sc, struct vdxg_bo **bo)
{
	int i;

	for (i = 0; i < sc->nres; i++)
		vdxg_bo_free(bo[i]);
}

static void sc_wait_targets(const struct scene *sc, struct vdxg_bo **bo,
			    uint8_t **got)
{
	int i;

	for (i = 0; i < sc->nres; i++) {
		got[i] = NULL;
		if (!sc->res[i].target)
			continue;
		vr_bo_wait(bo[i]);
		got[i] = vr_map(bo[i]);
	}
}

/* SUBMIT on CTX (a physical-mode context), compared with M. */
static void sc_run_submit(struct vr *vr, uint32_t ctx, const struct scene *sc,
			  const struct sc_mem *m)
{
	struct vdxg_bo *bo[SC_MAX_RES];
	uint8_t *got[SC_MAX_RES];
	struct vdxg_cs *cs = vr_cs();

	sc_objects(vr, sc, bo, DRM_VDXG_SEGMENT_VRAM, 0);
	sc_emit_cs(sc, cs, bo);
	vr_submit(vr, ctx, cs, NULL);
	sc_wait_targets(sc, bo, got);
	sc_compare(sc, m, got, "SUBMIT");
	vdxg_cs_free(cs);
	sc_objects_free(sc, bo);
}

/* A VM, a virtual-mode context in it and a command object. */
struct sc_vm {
	struct vr *vr;
	uint32_t vm, ctx, out;
	struct vdxg_bo *cmd;
	struct vdxg_vcs vcs;
};

static void sc_vm_open(struct vr *vr, struct sc_vm *v)
{
	v->vr = vr;
	vtest_require_f(vr_param(vr, DRM_VDXG_PARAM_CAPS) & VDXG_CAP_GPU_MMU,
			"the device has no GPU MMU");
	vtest_assert_ok(vdxg_vm_create(vr->dev, 0, &v->vm));
	vtest_assert_ok(vdxg_context_create_vm(vr->dev,
					       DRM_VDXG_PRIORITY_NORMAL, v->vm,
					       &v->ctx));
	v->cmd = vr_bo(vr, SC_CMD_SIZE, DRM_VDXG_SEGMENT_SYSTEM, 0);
	vtest_assert_ok(vdxg_vm_map(vr->dev, v->vm, v->cmd, 0, SC_VA_CMD,
				    SC_CMD_SIZE, 0));
	vdxg_vcs_init(&v->vcs, vr_map(v->cmd), SC_CMD_SIZE, SC_VA_CMD);
	v->out = vr_syncobj(vr, false);
}

static void sc_vm_close(struct sc_vm *v)
{
	vtest_assert_ok(vdxg_context_destroy(v->vr->dev, v->ctx));
	vtest_assert_ok(vdxg_vm_destroy(v->vr->dev, v->vm));
	vdxg_bo_free(v->cmd);
}

/*
 * Map the objects BO of SC into V at SC_VA(r), except resource SKIP (-1:
 * none), and READ_ONLY (-1: none) read-only.
 */
static void sc_map(struct sc_vm *v, const struct scene *sc,
		   struct vdxg_bo **bo, int skip, int read_only)
{
	int i;

	for (i = 0; i < sc->nres; i++) {
		if (i == skip)
			continue;
		vtest_assert_ok(vdxg_vm_map(v->vr->dev, v->vm, bo[i], 0,
					    SC_VA(i), bo[i]->size,
					    i == read_only ?
					    DRM_VDXG_VM_BIND_READ_ONLY : 0));
	}
}

/*
 * EXEC of SC in V, its resources mapped at SC_VA(r) except resource
 * SKIP (-1: none), and READ_ONLY (-1: none) mapped read-only. Returns
 * EXEC's result; BO receives the objects.
 */
static int sc_exec(struct sc_vm *v, const struct scene *sc,
		   struct vdxg_bo **bo, int skip, int read_only)
{
	struct drm_vdxg_sync out = vdxg_sync(v->out, 0);
	struct vdxg_submit_opts opts = { .out_syncs = &out,
					 .num_out_syncs = 1 };
	uint64_t va[SC_MAX_RES];
	int i;

	sc_objects(v->vr, sc, bo, DRM_VDXG_SEGMENT_VRAM,
		   DRM_VDXG_SEGMENT_SYSTEM);
	sc_map(v, sc, bo, skip, read_only);
	for (i = 0; i < sc->nres; i++)
		va[i] = SC_VA(i);
	vdxg_vcs_reset(&v->vcs);
	sc_emit_vcs(sc, &v->vcs, va);
	return vdxg_exec(v->vr->dev, v->ctx, &v->vcs, &opts);
}

/* EXEC in a VM of its own, compared with M. */
static void sc_run_exec(struct vr *vr, const struct scene *sc,
			const struct sc_mem *m)
{
	struct vdxg_bo *bo[SC_MAX_RES];
	uint8_t *got[SC_MAX_RES];
	struct sc_vm v;

	sc_vm_open(vr, &v);
	vtest_assert_ok(sc_exec(&v, sc, bo, -1, -1));
	vtest_assert_ok(vr_syncobj_wait(vr, v.out, 0, VR_WAIT_NS));
	vtest_assert_f(vr_syncobj_status(vr, v.out, 0) == 1,
		       "%s: EXEC's fence: %d", sc->name,
		       vr_syncobj_status(vr, v.out, 0));
	sc_wait_targets(sc, bo, got);
	sc_compare(sc, m, got, "EXEC");
	sc_vm_close(&v);
	sc_objects_free(sc, bo);
}

/*
 * Bytes of the targets that the draws change: the reference with and
 * without them (a scene whose draws change nothing tests nothing).
 */
static uint32_t sc_drawn(struct scene *sc, const struct sc_mem *m)
{
	struct vdxg_ref3d_fault fault;
	struct sc_mem m0;
	uint32_t n = 0, off;
	int i;

	sc->skip_draws = true;
	vtest_assert_eq(sc_reference(sc, &m0, &fault), 0);
	sc->skip_draws = false;
	for (i = 0; i < sc->nres; i++)
		for (off = 0; sc->res[i].target && off < sc->res[i].size;
		     off++)
			n += m->copy[i][off] != m0.copy[i][off];
	sc_mem_free(&m0);
	return n;
}

/* The reference, then SUBMIT and EXEC, each compared; frees SC. */
static void sc_check(struct vr *vr, uint32_t ctx, struct scene *sc)
{
	struct vdxg_ref3d_fault fault;
	struct sc_mem m;
	uint32_t reason, drawn;

	reason = sc_reference(sc, &m, &fault);
	vtest_assert_f(!reason, "%s: the reference faults: reason %u at "
		       "0x%" PRIx64, sc->name, reason, fault.addr);
	drawn = sc_drawn(sc, &m);
	vtest_info("%s: the draws change %u bytes", sc->name, drawn);
	vtest_assert_f(drawn, "%s: the draws change nothing", sc->name);
	sc_run_submit(vr, ctx, sc, &m);
	sc_run_exec(vr, sc, &m);
	sc_mem_free(&m);
	sc_free(sc);
}

/* ---- scenes */

static const uint32_t target_formats[] = {
	VDXG_FMT_XRGB8888, VDXG_FMT_ARGB8888, VDXG_FMT_RGB565,
	VDXG_FMT_ABGR8888, VDXG_FMT_RGBA4444, VDXG_FMT_RGBA5551,
};

static const uint32_t texture_formats[] = {
	VDXG_FMT_XRGB8888, VDXG_FMT_ARGB8888, VDXG_FMT_RGB565,
	VDXG_FMT_ABGR8888, VDXG_FMT_RGBA4444, VDXG_FMT_RGBA5551,
	VDXG_FMT_L8, VDXG_FMT_A8, VDXG_FMT_L8A8, VDXG_FMT_RGB888,
};

static const char *fmt_name(uint32_t format)
{
	static const char *const names[VDXG_NUM_FMTS_3D] = {
		"?", "xrgb8888", "argb8888", "rgb565", "d32", "abgr8888",
		"rgba4444", "rgba5551", "l8", "a8", "l8a8", "rgb888", "d16",
		"d24s8",
	};

	return format < VDXG_NUM_FMTS_3D ? names[format] : "?";
}

static const char *const prim_names[] = {
	"points", "lines", "line-loop", "line-strip", "triangles",
	"triangle-strip", "triangle-fan",
};

/* OUT[0] = IN[0], varyings 0 and 1 = IN[1], IN[2]. */
static const char vs_pass[] =
	"VERT\n"
	"MOV OUT[0], IN[0]\n"
	"MOV OUT[2], IN[1]\n"
	"MOV OUT[3], IN[2]\n"
	"END\n";

/* A vertex of the float scenes: position, then two vec4 attributes. */
struct sc_vx {
	float p[4], a[4], b[4];
};

/* ELEMENT 0 to 2 as float4 of struct sc_vx in vertex buffer 0. */
static void sc_vx_elements(struct scene *sc)
{
	uint32_t e[3];
	int i;

	for (i = 0; i < 3; i++)
		e[i] = VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_FLOAT32, 4), 0,
				    i * 16);
	sc_regs(sc, VDXG_3D_ELEMENT(0), e, 3);
}

/*
 * Random vertices: w in [W0, W1], x and y in [-XY, XY] w, z in [-0.9,
 * 0.9] w, attributes in [0, 1].
 */
static void sc_vx_random(struct scene *sc, struct sc_vx *v, int n, float xy,
			 float w0, float w1)
{
	float w;
	int i, c;

	for (i = 0; i < n; i++) {
		w = frand(sc, w0, w1);
		v[i].p[0] = frand(sc, -xy, xy) * w;
		v[i].p[1] = frand(sc, -xy, xy) * w;
		v[i].p[2] = frand(sc, -0.9f, 0.9f) * w;
		v[i].p[3] = w;
		for (c = 0; c < 4; c++) {
			v[i].a[c] = frand(sc, 0, 1);
			v[i].b[c] = frand(sc, 0, 1);
		}
	}
}

/* The viewport onto W x H, depth [0, 1]. */
static void sc_viewport(struct scene *sc, uint32_t w, uint32_t h)
{
	uint32_t v[6] = {
		vdxg_f32_bits(w / 2.0f), vdxg_f32_bits(h / 2.0f),
		vdxg_f32_bits(0.5f), vdxg_f32_bits(w / 2.0f),
		vdxg_f32_bits(h / 2.0f), vdxg_f32_bits(0.5f),
	};

	sc_regs(sc, VDXG_3D_VIEWPORT_SCALE(0), v, 6);
}

/* DST (and DEPTH unless DFMT 0) of SC_W x SC_H, cleared in part. */
static void sc_targets(struct scene *sc, uint32_t fmt, uint32_t dfmt)
{
	float rgba[4] = { frand(sc, 0, 1), frand(sc, 0, 1), frand(sc, 0, 1),
			  frand(sc, 0, 1) };
	uint32_t flags = 0;

	if (fmt) {
		sc_surf(sc, VDXG_SLOT_DST, fmt, SC_W, SC_H);
		flags |= VDXG_CLEAR_COLOR;
	}
	if (dfmt) {
		sc_surf(sc, VDXG_SLOT_DEPTH, dfmt, SC_W, SC_H);
		flags |= VDXG_CLEAR_DEPTH;
		if (dfmt == VDXG_FMT_D24S8)
			flags |= VDXG_CLEAR_STENCIL;
	}
	/* The last rows keep their random bytes: blending reads them. */
	sc_clear(sc, flags, 0, 0, SC_W, SC_H - 4, rgba, frand(sc, 0.95f, 1),
		 vr_rand(&sc->rng) & 0xff);
	sc_viewport(sc, SC_W, SC_H);
}

/* Every primitive, DRAW or DRAW_INDEXED, with a vertex format each. */
static void sc_prim(struct vr *vr, uint32_t ctx, uint64_t *rng,
		    uint32_t prim, bool indexed)
{
	static const uint32_t isz[] = { 1, 2, 4 };
	struct scene *sc = sc_new(rng, "prim-%s%s", prim_names[prim],
				  indexed ? "-indexed" : "");
	uint32_t k = prim * 2 + indexed, type = 1 + k % 9;
	uint32_t comps = 1 + k % 4, size = isz[prim % 3], i;
	float pos[16][4], attr[16][4], w;
	uint8_t ib[16 * 4];

	sc_targets(sc, target_formats[k % 6], k % 2 ? VDXG_FMT_D16 :
		   VDXG_FMT_D24S8);
	sc_reg(sc, VDXG_3D_DEPTH, VDXG_DEPTH_TEST | VDXG_DEPTH_WRITE |
	       VDXG_DEPTH_FUNC(VDXG_FUNC_LESS));
	sc_regf(sc, VDXG_3D_POINT_SIZE, frand(sc, 1, 7));
	sc_reg(sc, VDXG_3D_RASTER, k % 3 == 0 ?
	       VDXG_RASTER_SPRITE_LOWER_LEFT : 0);
	for (i = 0; i < 16; i++) {
		w = frand(sc, 0.5f, 2);
		pos[i][0] = frand(sc, -1.1f, 1.1f) * w;
		pos[i][1] = frand(sc, -1.1f, 1.1f) * w;
		pos[i][2] = frand(sc, -0.9f, 0.9f) * w;
		pos[i][3] = w;
		attr[i][0] = frand(sc, 0, 1);
		attr[i][1] = frand(sc, 0, 1);
		attr[i][2] = frand(sc, 0, 1);
		attr[i][3] = frand(sc, 0, 1);
	}
	/* The attribute: floats, or the random bytes of another type. */
	sc_vb(sc, 0, pos, sizeof(pos), 16);
	if (type == VDXG_VTYPE_FLOAT32)
		sc_vb(sc, 1, attr, sizeof(attr), 16);
	else
		sc_vb(sc, 1, NULL, sizeof(attr) - 5, 16);
	sc_reg(sc, VDXG_3D_ELEMENT(0),
	       VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_FLOAT32, 4), 0, 0));
	sc_reg(sc, VDXG_3D_ELEMENT(1),
	       VDXG_ELEMENT(VDXG_VFMT(type, comps), 1, 4 * (k % 2)));
	/* POINT_COORD in the fragments of points; OUT[1] in some. */
	if (indexed)
		sc_prog(sc, "VERT\n"
			"IMM[0] = { 9, 0, 0, 0 }\n"
			"MOV OUT[0], IN[0]\n"
			"MOV OUT[2], IN[1]\n"
			"MUL OUT[1].x, IN[1].w, IMM[0].x\n"
			"END\n");
	else
		sc_prog(sc, vs_pass);
	sc_prog(sc, "FRAG\n"
		"ADD TEMP[0], IN[0], IN[10].xyxy\n"
		"MAD OUT[0], IN[9].x, IMM[0], TEMP[0]\n"
		"IMM[0] = { 0.125, 0.25, 0.5, 0 }\n"
		"END\n");
	if (indexed) {
		/*
		 * Indices in a random order, none twice: a triangle with a
		 * repeated index is empty, and with three such (about one
		 * seed in 100) the draw tested nothing.
		 */
		uint32_t perm[16];

		for (i = 0; i < 16; i++)
			perm[i] = i % 14;
		for (i = 13; i > 0; i--) {
			uint32_t j = vr_rand(&sc->rng) % (i + 1), t = perm[i];

			perm[i] = perm[j];
			perm[j] = t;
		}
		for (i = 0; i < 16; i++)
			memcpy(ib + i * size, &perm[i], size);
		sc_ib(sc, ib, 16 * size, size);
		sc_drawi(sc, prim, 1, 11, 2);
	} else {
		sc_draw(sc, prim, 2, 11);
	}
	sc_check(vr, ctx, sc);
}

static void test_prims(void)
{
	struct vr vr;
	uint64_t rng;
	uint32_t ctx, p;

	vr_open(&vr);
	vtest_require_f(vr_param(&vr, DRM_VDXG_PARAM_3D), "no 3D pipeline");
	rng = vr_seed();
	ctx = vr_ctx(&vr);
	for (p = 0; p < VDXG_NUM_PRIMS; p++) {
		sc_prim(&vr, ctx, &rng, p, false);
		sc_prim(&vr, ctx, &rng, p, true);
	}
	vr_close(&vr);
}

/*
 * Triangles, lines and points across one clip plane (AXIS, SIGN), or
 * with some w negative (AXIS 3): guard band planes for x and y (beyond
 * 4 w), the view volume's for z.
 */
static void sc_clip(struct vr *vr, uint32_t ctx, uint64_t *rng, int axis,
		    int sign)
{
	static const char *const names[] = { "x", "y", "z", "w" };
	struct scene *sc = sc_new(rng, "clip-%s%s", sign < 0 ? "-" : "+",
				  names[axis]);
	struct sc_vx v[30];
	int i;

	/* Depth written, not tested: what is clipped at z = w still draws. */
	sc_targets(sc, VDXG_FMT_ARGB8888, VDXG_FMT_D16);
	sc_reg(sc, VDXG_3D_DEPTH, VDXG_DEPTH_TEST | VDXG_DEPTH_WRITE |
	       VDXG_DEPTH_FUNC(VDXG_FUNC_ALWAYS));
	sc_regf(sc, VDXG_3D_POINT_SIZE, 5);
	sc_vx_random(sc, v, 30, 1.3f, 0.3f, 2);
	for (i = 0; i < 30; i++) {
		if (i % 3 == 0)
			continue;
		if (axis == 3)
			v[i].p[3] = -v[i].p[3];
		else if (axis == 2)
			v[i].p[2] = sign * frand(sc, 1.05f, 4) * v[i].p[3];
		else
			v[i].p[axis] = sign * frand(sc, 1.5f, 12) *
				       v[i].p[3];
	}
	sc_vx_elements(sc);
	sc_vb(sc, 0, v, sizeof(v), sizeof(v[0]));
	sc_prog(sc, vs_pass);
	sc_prog(sc, "FRAG\n"
		"MUL OUT[0], IN[0], IN[1].zyxw\n"
		"END\n");
	sc_draw(sc, VDXG_PRIM_TRIANGLES, 0, 12);
	sc_draw(sc, VDXG_PRIM_TRIANGLE_FAN, 12, 6);
	sc_draw(sc, VDXG_PRIM_LINES, 18, 6);
	sc_draw(sc, VDXG_PRIM_POINTS, 24, 6);
	sc_check(vr, ctx, sc);
}

static void test_clip(void)
{
	struct vr vr;
	uint64_t rng;
	uint32_t ctx;
	int a;

	vr_open(&vr);
	vtest_require_f(vr_param(&vr, DRM_VDXG_PARAM_3D), "no 3D pipeline");
	rng = vr_seed();
	ctx = vr_ctx(&vr);
	for (a = 0; a < 3; a++) {
		sc_clip(&vr, ctx, &rng, a, 1);
		sc_clip(&vr, ctx, &rng, a, -1);
	}
	sc_clip(&vr, ctx, &rng, 3, 1);
	vr_close(&vr);
}

/* Random stencil state for one face: every field in range. */
static uint32_t rand_stencil(struct scene *sc)
{
	uint32_t r = vr_rand(&sc->rng);

	return (r & (VDXG_STENCIL_TEST | VDXG_STENCIL_FUNC(7) |
		     VDXG_STENCIL_FAIL_OP(7) | VDXG_STENCIL_ZFAIL_OP(7) |
		     VDXG_STENCIL_ZPASS_OP(7))) |
	       VDXG_STENCIL_VALUE_MASK(vr_rand(&sc->rng) & 0xff) |
	       VDXG_STENCIL_WRITE_MASK(vr_rand(&sc->rng) & 0xff);
}

/*
 * Depth, stencil (two-sided), blend, culling, polygon offset and scissor
 * state at random, by SET_STATE or LOAD_STATE, over overlapping
 * triangles of both windings. Scene I's target and depth formats cycle,
 * blend equations and factors too.
 */
static struct scene *sc_dsb_build(uint64_t *rng, int i)
{
	static const uint32_t dfmts[] = { VDXG_FMT_D24S8, VDXG_FMT_D16, 0 };
	uint32_t fmt = target_formats[i % 6], dfmt = dfmts[i % 3];
	struct scene *sc = sc_new(rng, "dsb-%d", i);
	uint32_t regs[0x15] = { 0 }, eq, eqa;
	struct sc_vx v[18];
	int k;

	sc_targets(sc, fmt, dfmt);
	regs[VDXG_3D_RASTER] = (vr_rand(&sc->rng) &
				(VDXG_RASTER_CULL_FRONT |
				 VDXG_RASTER_CULL_BACK |
				 VDXG_RASTER_FRONT_CW |
				 VDXG_RASTER_POLY_OFFSET)) |
			       (i % 4 == 1 ? VDXG_RASTER_SCISSOR : 0);
	/* Both faces drawn in most scenes. */
	if (i % 4)
		regs[VDXG_3D_RASTER] &= ~(VDXG_RASTER_CULL_FRONT |
					  VDXG_RASTER_CULL_BACK);
	regs[VDXG_3D_POINT_SIZE] = vdxg_f32_bits(1);
	regs[VDXG_3D_POLY_OFFSET_FACTOR] = vdxg_f32_bits(frand(sc, -2, 2));
	regs[VDXG_3D_POLY_OFFSET_UNITS] = vdxg_f32_bits(frand(sc, -8, 8));
	regs[VDXG_3D_VIEWPORT_SCALE(0)] = vdxg_f32_bits(SC_W / 2.0f);
	regs[VDXG_3D_VIEWPORT_SCALE(1)] = vdxg_f32_bits(SC_H / 2.0f);
	regs[VDXG_3D_VIEWPORT_SCALE(2)] = vdxg_f32_bits(0.5f);
	regs[VDXG_3D_VIEWPORT_TRANSLATE(0)] = vdxg_f32_bits(SC_W / 2.0f);
	regs[VDXG_3D_VIEWPORT_TRANSLATE(1)] = vdxg_f32_bits(SC_H / 2.0f);
	regs[VDXG_3D_VIEWPORT_TRANSLATE(2)] = vdxg_f32_bits(0.5f);
	regs[VDXG_3D_SCISSOR_MIN] = VDXG_RD_XY(vr_rand(&sc->rng) % 12,
					       vr_rand(&sc->rng) % 12);
	regs[VDXG_3D_SCISSOR_MAX] = VDXG_RD_XY(14 + vr_rand(&sc->rng) % 30,
					       14 + vr_rand(&sc->rng) % 30);
	regs[VDXG_3D_DEPTH] = (vr_rand(&sc->rng) & 3) |
			      VDXG_DEPTH_FUNC(i % 8);
	regs[VDXG_3D_STENCIL_FRONT] = rand_stencil(sc) | VDXG_STENCIL_TEST;
	regs[VDXG_3D_STENCIL_BACK] = rand_stencil(sc);
	regs[VDXG_3D_STENCIL_REF] = vr_rand(&sc->rng) & 0xffff;
	eq = i % VDXG_NUM_BLEQS;
	eqa = (i / VDXG_NUM_BLEQS + i) % VDXG_NUM_BLEQS;
	regs[VDXG_3D_BLEND] = (i % 5 ? VDXG_BLEND_ENABLE : 0) |
			      VDXG_BLEND_RGB_EQ(eq) |
			      VDXG_BLEND_RGB_SRC(i % VDXG_NUM_BLFS) |
			      VDXG_BLEND_RGB_DST((i + 7) % VDXG_NUM_BLFS) |
			      VDXG_BLEND_A_EQ(eqa) |
			      VDXG_BLEND_A_SRC((i + 3) % VDXG_NUM_BLFS) |
			      VDXG_BLEND_A_DST((i + 11) % VDXG_NUM_BLFS) |
			      VDXG_BLEND_WRITE_DISABLE(i % 7 == 3 ? 5 : 0);
	for (k = 0; k < 4; k++)
		regs[VDXG_3D_BLEND_COLOR(k)] =
			vdxg_f32_bits(frand(sc, -0.25f, 1.25f));
	if (i % 2)
		sc_load(sc, 0, regs, VTEST_ARRAY_SIZE(regs));
	else
		sc_regs(sc, 0, regs, VTEST_ARRAY_SIZE(regs));
	sc_vx_random(sc, v, 18, 1.2f, 0.5f, 1.5f);
	for (k = 0; k < 18; k++)	/* colours past 1 and below 0 */
		v[k].a[k % 4] = frand(sc, -0.5f, 1.5f);
	sc_vx_elements(sc);
	sc_vb(sc, 0, v, sizeof(v), sizeof(v[0]));
	sc_prog(sc, vs_pass);
	sc_prog(sc, "FRAG\n"
		"CMP OUT[0], IN[9].x, IN[1], IN[0]\n"
		"END\n");
	sc_draw(sc, VDXG_PRIM_TRIANGLES, 0, 12);
	sc_draw(sc, VDXG_PRIM_TRIANGLE_STRIP, 12, 6);
	return sc;
}

/*
 * Scene I, drawn again from the next random numbers while its random
 * state lets nothing through (a NEVER with no stencil operation to
 * write, say): a scene whose draws change nothing tests nothing.
 */
static void sc_dsb(struct vr *vr, uint32_t ctx, uint64_t *rng, int i)
{
	struct vdxg_ref3d_fault fault;
	struct scene *sc;
	struct sc_mem m;
	uint32_t drawn;
	int tries = 0;

	for (;;) {
		sc = sc_dsb_build(rng, i);
		vtest_assert_eq(sc_reference(sc, &m, &fault), 0);
		drawn = sc_drawn(sc, &m);
		sc_mem_free(&m);
		if (drawn || ++tries == 16)
			break;
		sc_free(sc);
	}
	sc_check(vr, ctx, sc);
}

static void test_depth_stencil_blend(void)
{
	struct vr vr;
	uint64_t rng;
	uint32_t ctx;
	int i;

	vr_open(&vr);
	vtest_require_f(vr_param(&vr, DRM_VDXG_PARAM_3D), "no 3D pipeline");
	rng = vr_seed();
	ctx = vr_ctx(&vr);
	for (i = 0; i < 30; i++)
		sc_dsb(&vr, ctx, &rng, i);
	vr_close(&vr);
}

/*
 * Fragment programs that sample unit 0 each way, each draw in its own
 * scissor rectangle: TEX over the whole target, then TXB, TXL, TXP and
 * TXD in the quadrants. Varying 0 is (s, t, r, lod or bias), varying 1
 * (s, t, r, q) for TXP and the derivatives of TXD. CUBE adds ", CUBE".
 */
static void sc_sample_draws(struct scene *sc, bool cube)
{
	static const char *const body[] = {
		"TEX TEMP[0], IN[0], UNIT[0]",
		"TXB TEMP[0], IN[0], UNIT[0]",
		"TXL TEMP[0], IN[0], UNIT[0]",
		"TXP TEMP[0], IN[1], UNIT[0]",
		"TXD TEMP[0], IN[0], IN[1].xyzw, IN[1].zwxy, UNIT[0]",
	};
	char text[256];
	int k;

	for (k = 0; k < 5; k++) {
		snprintf(text, sizeof(text), "FRAG\n%s%s\nMOV OUT[0], "
			 "TEMP[0]\nEND\n", body[k], cube ? ", CUBE" : "");
		sc_prog(sc, text);
		if (k) {
			sc_reg(sc, VDXG_3D_RASTER, VDXG_RASTER_SCISSOR);
			sc_reg(sc, VDXG_3D_SCISSOR_MIN,
			       VDXG_RD_XY((k - 1) % 2 * 16, (k - 1) / 2 * 16));
			sc_reg(sc, VDXG_3D_SCISSOR_MAX,
			       VDXG_RD_XY((k - 1) % 2 * 16 + 16,
					  (k - 1) / 2 * 16 + 16));
		}
		sc_draw(sc, VDXG_PRIM_TRIANGLE_STRIP, 0, 4);
	}
}

/*
 * A screen-covering strip in perspective for sampling: varying 0 (s, t)
 * in [-LO, HI] (a cube: a direction), its w a LOD in [-1, 4]; varying 1
 * as TXP's coordinate and TXD's derivatives.
 */
static void sc_sample_quad(struct scene *sc, float lo, float hi, bool cube)
{
	struct sc_vx v[4];
	int i, c;

	for (i = 0; i < 4; i++) {
		float w = frand(sc, 0.5f, 2);

		v[i].p[0] = (i % 2 ? 1.1f : -1.1f) * w;
		v[i].p[1] = (i / 2 ? 1.1f : -1.1f) * w;
		v[i].p[2] = frand(sc, -0.5f, 0.5f) * w;
		v[i].p[3] = w;
		for (c = 0; c < 3; c++) {
			v[i].a[c] = cube ? frand(sc, -1, 1) :
					   frand(sc, -lo, hi);
			v[i].b[c] = cube ? frand(sc, -1, 1) :
					   frand(sc, -lo, hi);
		}
		v[i].a[3] = frand(sc, -1, 4);
		v[i].b[3] = frand(sc, 0.5f, 2);
		if (!cube) {	/* TXD's derivatives: b.zw */
			v[i].b[2] = frand(sc, -0.3f, 0.3f);
			v[i].b[3] = frand(sc, 0.5f, 2);
		}
	}
	sc_vx_elements(sc);
	sc_vb(sc, 0, v, sizeof(v), sizeof(v[0]));
	sc_prog(sc, vs_pass);
}

static uint32_t full_levels(uint32_t w, uint32_t h)
{
	uint32_t n = 1;

	while ((w >> n) || (h >> n))
		n++;
	return n;
}

/*
 * Texture formats and filters: scene I has format I of the texture
 * formats (all ten, then again) and the filter combination I: MAG
 * nearest or linear, MIN nearest or linear, MIP none, nearest or
 * linear; wraps at random.
 */
static void sc_texture(struct vr *vr, uint32_t ctx, uint64_t *rng, int i)
{
	uint32_t fmt = texture_formats[i % 10];
	uint32_t mag = i & 1, min = (i >> 1) & 1, mip = (i >> 2) % 3;
	struct scene *sc = sc_new(rng, "tex-%s-mag%u-min%u-mip%u",
				  fmt_name(fmt), mag, min, mip);
	uint32_t w, h, levels;

	w = 3 + vr_rand(&sc->rng) % 22;
	h = 2 + vr_rand(&sc->rng) % 22;
	levels = 1 + vr_rand(&sc->rng) % full_levels(w, h);
	sc_targets(sc, target_formats[i % 6], 0);
	sc_reg(sc, VDXG_3D_SAMPLER(0),
	       (mag ? VDXG_SAMPLER_MAG_LINEAR : 0) |
	       (min ? VDXG_SAMPLER_MIN_LINEAR : 0) | VDXG_SAMPLER_MIP(mip) |
	       VDXG_SAMPLER_WRAP_S(vr_rand(&sc->rng) % 3) |
	       VDXG_SAMPLER_WRAP_T(vr_rand(&sc->rng) % 3));
	sc_tex(sc, 0, VDXG_TEX_DESC(fmt, levels, false), w, h);
	sc_sample_quad(sc, 1.5f, 2.5f + (i % 3) * 2, false);
	sc_sample_draws(sc, false);
	sc_check(vr, ctx, sc);
}

static void test_textures(void)
{
	struct vr vr;
	uint64_t rng;
	uint32_t ctx;
	int i;

	vr_open(&vr);
	vtest_require_f(vr_param(&vr, DRM_VDXG_PARAM_3D), "no 3D pipeline");
	rng = vr_seed();
	ctx = vr_ctx(&vr);
	for (i = 0; i < 12; i++)	/* 2 x 2 x 3 filters, 10 formats */
		sc_texture(&vr, ctx, &rng, i);
	vr_close(&vr);
}

/* Cube maps, each face its own random texels, through every opcode. */
static void test_cube(void)
{
	struct scene *sc;
	struct vr vr;
	uint64_t rng;
	uint32_t ctx, fmt, size, levels;
	int i;

	vr_open(&vr);
	vtest_require_f(vr_param(&vr, DRM_VDXG_PARAM_3D), "no 3D pipeline");
	rng = vr_seed();
	ctx = vr_ctx(&vr);
	for (i = 0; i < 4; i++) {
		fmt = texture_formats[(i * 3) % 10];
		sc = sc_new(&rng, "cube-%s-%d", fmt_name(fmt), i);
		size = 4 << (i % 3);
		sc_targets(sc, target_formats[(i + 1) % 6], 0);
		sc_reg(sc, VDXG_3D_SAMPLER(0),
		       (i & 1 ? VDXG_SAMPLER_MAG_LINEAR : 0) |
		       (i & 2 ? VDXG_SAMPLER_MIN_LINEAR : 0) |
		       VDXG_SAMPLER_MIP(i % 3));
		levels = 1 + i % full_levels(size, size);
		sc_tex(sc, 0, VDXG_TEX_DESC(fmt, levels, true), size, size);
		sc_sample_quad(sc, 0, 0, true);
		sc_sample_draws(sc, true);
		sc_check(&vr, ctx, sc);
	}
	vr_close(&vr);
}

/* One scene of a vertex and a fragment program, over a strip and a fan. */
static void sc_programs(struct vr *vr, uint32_t ctx, uint64_t *rng,
			const char *name, const char *vs, const char *fs,
			uint32_t vconsts, uint32_t fconsts, uint32_t dfmt,
			uint32_t depth, uint32_t stencil)
{
	struct scene *sc = sc_new(rng, "%s", name);
	float c[64][4];
	struct sc_vx v[10];
	uint32_t k;

	sc_targets(sc, VDXG_FMT_ABGR8888, dfmt);
	sc_reg(sc, VDXG_3D_DEPTH, depth);
	sc_reg(sc, VDXG_3D_STENCIL_FRONT, stencil);
	sc_reg(sc, VDXG_3D_STENCIL_REF, 0x55);
	sc_vx_random(sc, v, 10, 1.3f, 0.4f, 2.5f);
	sc_vx_elements(sc);
	sc_vb(sc, 0, v, sizeof(v), sizeof(v[0]));
	for (k = 0; k < 64; k++) {
		c[k][0] = frand(sc, -0.1f, 0.1f);
		c[k][1] = frand(sc, -0.1f, 0.1f);
		c[k][2] = frand(sc, 0, 0.3f);
		c[k][3] = 0;
	}
	if (vconsts)
		sc_consts(sc, VDXG_3D_STAGE_VERTEX, c, vconsts);
	if (fconsts)
		sc_consts(sc, VDXG_3D_STAGE_FRAGMENT, c[8], fconsts);
	sc_prog(sc, vs);
	sc_prog(sc, fs);
	sc_draw(sc, VDXG_PRIM_TRIANGLE_STRIP, 0, 5);
	sc_draw(sc, VDXG_PRIM_TRIANGLE_FAN, 5, 5);
	sc_check(vr, ctx, sc);
}

/* DDX and DDY across quads, helper lanes included; 0 in a vertex program. */
static void test_derivatives(void)
{
	struct vr vr;
	uint64_t rng;
	uint32_t ctx;

	vr_open(&vr);
	vtest_require_f(vr_param(&vr, DRM_VDXG_PARAM_3D), "no 3D pipeline");
	rng = vr_seed();
	ctx = vr_ctx(&vr);
	sc_programs(&vr, ctx, &rng, "derivatives",
		    "VERT\n"
		    "DDX TEMP[0], IN[0]\n"
		    "DDY TEMP[1], IN[1]\n"
		    "ADD OUT[0], IN[0], TEMP[0]\n"
		    "ADD OUT[2], IN[1], TEMP[1]\n"
		    "MOV OUT[3], IN[2]\n"
		    "END\n",
		    "FRAG\n"
		    "IMM[0] = { 8, 8, 8, 8 }\n"
		    "MUL TEMP[2], IN[0], IN[1]\n"
		    "DDX TEMP[0], TEMP[2]\n"
		    "DDY TEMP[1], TEMP[2].yzwx\n"
		    "MUL TEMP[0], TEMP[0], IMM[0]\n"
		    "MAD TEMP[0], TEMP[1], -IMM[0], TEMP[0]\n"
		    "DDX TEMP[3].x, IN[8].y\n"
		    "DDY TEMP[3].y, IN[8].x\n"
		    "ADD TEMP[0].xy, TEMP[0], TEMP[3]\n"
		    "MOV OUT[0], |TEMP[0]|\n"
		    "END\n", 0, 0, 0, 0, 0);
	vr_close(&vr);
}

/*
 * KILL_IF and KILL under IF: discarded fragments write neither colour,
 * depth nor stencil.
 */
static void test_discard(void)
{
	struct vr vr;
	uint64_t rng;
	uint32_t ctx;

	vr_open(&vr);
	vtest_require_f(vr_param(&vr, DRM_VDXG_PARAM_3D), "no 3D pipeline");
	rng = vr_seed();
	ctx = vr_ctx(&vr);
	sc_programs(&vr, ctx, &rng, "discard", vs_pass,
		    "FRAG\n"
		    "IMM[0] = { 0.15, 0.1, 0.2, 0 }\n"
		    "ADD TEMP[0], IN[0], -IMM[0]\n"
		    "KILL_IF TEMP[0]\n"
		    "SLT TEMP[1].x, IN[1].z, IMM[0].z\n"
		    "IF TEMP[1].x\n"
		    "  KILL\n"
		    "ELSE\n"
		    "  MOV TEMP[0], IN[1]\n"
		    "ENDIF\n"
		    "DDX TEMP[2], TEMP[0]\n"
		    "ADD OUT[0], TEMP[0], |TEMP[2]|\n"
		    "END\n", 0, 0, VDXG_FMT_D24S8,
		    VDXG_DEPTH_TEST | VDXG_DEPTH_WRITE |
		    VDXG_DEPTH_FUNC(VDXG_FUNC_LESS),
		    VDXG_STENCIL_TEST | VDXG_STENCIL_FUNC(VDXG_FUNC_ALWAYS) |
		    VDXG_STENCIL_ZPASS_OP(VDXG_SOP_INCR_WRAP) |
		    VDXG_STENCIL_ZFAIL_OP(VDXG_SOP_INVERT) |
		    VDXG_STENCIL_VALUE_MASK(0xff) |
		    VDXG_STENCIL_WRITE_MASK(0xff));
	vr_close(&vr);
}

/*
 * Loops: a vertex program summing constants in a counted loop (BRK under
 * IF); a fragment program whose trip count depends on the fragment,
 * with CONT on even counts, nested IFs, relative CONST reads past the
 * bound count (zero) and a loop inside a loop. The trip count is also
 * capped at 24: a helper lane's varyings are extrapolated past the
 * triangle, where 1/w can be near zero or NaN, and without the cap such
 * a lane looped until the step limit faulted (about one seed in 40).
 */
static void test_loops(void)
{
	struct vr vr;
	uint64_t rng;
	uint32_t ctx;

	vr_open(&vr);
	vtest_require_f(vr_param(&vr, DRM_VDXG_PARAM_3D), "no 3D pipeline");
	rng = vr_seed();
	ctx = vr_ctx(&vr);
	sc_programs(&vr, ctx, &rng, "loops",
		    "VERT\n"
		    "IMM[0] = { 0, 1, 3, 0 }\n"
		    "MOV TEMP[0], IMM[0].x\n"
		    "MOV TEMP[1], IMM[0].x\n"
		    "BGNLOOP\n"
		    "  SGE TEMP[2].x, TEMP[1].x, IMM[0].z\n"
		    "  IF TEMP[2].x\n"
		    "    BRK\n"
		    "  ENDIF\n"
		    "  ARL ADDR.x, TEMP[1].x\n"
		    "  ADD TEMP[0], TEMP[0], CONST[ADDR.x]\n"
		    "  ADD TEMP[1].x, TEMP[1].x, IMM[0].y\n"
		    "ENDLOOP\n"
		    "ADD OUT[0], IN[0], TEMP[0]\n"
		    "MOV OUT[2], IN[1]\n"
		    "MOV OUT[3], IN[2]\n"
		    "END\n",
		    "FRAG\n"
		    "IMM[0] = { 0, 1, 24, 0.5 }\n"
		    "MUL TEMP[4].x, IN[0].x, IMM[0].z\n"
		    "MOV TEMP[0], IMM[0].x\n"
		    "MOV TEMP[1], IMM[0].x\n"
		    "BGNLOOP\n"
		    "  SGE TEMP[2].x, TEMP[1].x, TEMP[4].x\n"
		    "  IF TEMP[2].x\n"
		    "    BRK\n"
		    "  ENDIF\n"
		    "  SGE TEMP[2].y, TEMP[1].x, IMM[0].z\n"
		    "  IF TEMP[2].y\n"
		    "    BRK\n"
		    "  ENDIF\n"
		    "  ADD TEMP[1].x, TEMP[1].x, IMM[0].y\n"
		    "  MUL TEMP[3].x, TEMP[1].x, IMM[0].w\n"
		    "  FRC TEMP[3].x, TEMP[3].x\n"
		    "  SEQ TEMP[3].x, TEMP[3].x, IMM[0].x\n"
		    "  IF TEMP[3].x\n"
		    "    CONT\n"
		    "  ENDIF\n"
		    "  ARL ADDR.x, TEMP[1].x\n"
		    "  ADD TEMP[0], TEMP[0], CONST[ADDR.x+1]\n"
		    "  MOV TEMP[5].x, IMM[0].x\n"
		    "  BGNLOOP\n"
		    "    ADD TEMP[5].x, TEMP[5].x, IMM[0].y\n"
		    "    ADD TEMP[0].w, TEMP[0].w, IN[1].w\n"
		    "    SGE TEMP[6].x, TEMP[5].x, IMM[0].y\n"
		    "    IF TEMP[6].x\n"
		    "      BRK\n"
		    "    ENDIF\n"
		    "  ENDLOOP\n"
		    "ENDLOOP\n"
		    "MUL TEMP[0].w, TEMP[0].w, IMM[0].w\n"
		    "ADD OUT[0], TEMP[0], IN[1]\n"
		    "END\n", 3, 16, 0, 0, 0);
	vr_close(&vr);
}

/* ------------------------------------------------ hostile 3D by EXEC */

/* The resources of the scene sc_victim() builds. */
enum {
	V_DST, V_DEPTH, V_VB, V_IB, V_TEX, V_CONSTS, V_VS, V_FS, V_NUM,
};

/*
 * A textured, indexed draw reading constants: every kind of memory a
 * draw touches, each in its own resource (V_*). VS and FS are the
 * programs (NULL: vs_pass, and a fragment program that samples and reads
 * the constants).
 */
static struct scene *sc_victim(uint64_t *rng, const char *name,
			       const char *vs, const char *fs)
{
	struct scene *sc = sc_new(rng, "%s", name);
	static const uint16_t idx[6] = { 0, 1, 2, 2, 1, 3 };
	float c[4][4] = { { 0.25f, 0.5f, 0.75f, 1 } };
	struct sc_vx v[4];
	int i;

	sc_surf(sc, VDXG_SLOT_DST, VDXG_FMT_ARGB8888, SC_W, SC_H);
	sc_surf(sc, VDXG_SLOT_DEPTH, VDXG_FMT_D24S8, SC_W, SC_H);
	sc_viewport(sc, SC_W, SC_H);
	sc_reg(sc, VDXG_3D_DEPTH, VDXG_DEPTH_TEST | VDXG_DEPTH_WRITE |
	       VDXG_DEPTH_FUNC(VDXG_FUNC_ALWAYS));
	sc_reg(sc, VDXG_3D_SAMPLER(0), VDXG_SAMPLER_MAG_LINEAR);
	sc_vx_random(sc, v, 4, 1, 0.5f, 2);
	for (i = 0; i < 4; i++) {
		v[i].p[0] = (i % 2 ? 1.0f : -1.0f) * v[i].p[3];
		v[i].p[1] = (i / 2 ? 1.0f : -1.0f) * v[i].p[3];
	}
	sc_vx_elements(sc);
	sc_vb(sc, 0, v, sizeof(v), sizeof(v[0]));
	sc_ib(sc, idx, sizeof(idx), 2);
	sc_tex(sc, 0, VDXG_TEX_DESC(VDXG_FMT_ARGB8888, 1, false), 16, 16);
	sc_consts(sc, VDXG_3D_STAGE_FRAGMENT, c, 4);
	sc_prog(sc, vs ? vs : vs_pass);
	sc_prog(sc, fs ? fs :
		"FRAG\n"
		"TEX TEMP[0], IN[0], UNIT[0]\n"
		"MAD OUT[0], TEMP[0], CONST[0], IN[1]\n"
		"END\n");
	sc_drawi(sc, VDXG_PRIM_TRIANGLES, 0, 6, 0);
	vtest_assert_eq(sc->nres, V_NUM);
	return sc;
}

/*
 * The victim scene through EXEC on a new file: its pixels equal the
 * reference's (computed into *M when M->sc is NULL).
 */
static void sc_exec_exact(struct scene *sc, struct sc_mem *m)
{
	struct vdxg_ref3d_fault fault;
	struct vr vr;

	if (!m->sc)
		vtest_assert_eq(sc_reference(sc, m, &fault), 0);
	vr_open(&vr);
	sc_run_exec(&vr, sc, m);
	vr_close(&vr);
}

/*
 * Wait until CTX is banned for a fault of REASON at an address in [LO,
 * HI); the job's fence carries -ECANCELED and the context takes no more
 * jobs (-EIO).
 */
static void expect_ban(struct sc_vm *v, uint32_t reason, uint64_t lo,
		       uint64_t hi, const char *what)
{
	struct drm_vdxg_reset_status st;
	int status;

	st = vr_wait_banned(v->vr, v->ctx);
	vtest_assert_f(st.flags & DRM_VDXG_RESET_FAULT, "%s: flags 0x%x",
		       what, st.flags);
	vtest_assert_f(st.fault_reason == reason, "%s: fault reason %u, "
		       "expected %u", what, st.fault_reason, reason);
	vtest_assert_f(st.fault_address >= lo && st.fault_address < hi,
		       "%s: fault at 0x%" PRIx64 ", expected in [0x%" PRIx64
		       ", 0x%" PRIx64 ")", what, (uint64_t)st.fault_address,
		       lo, hi);
	vtest_assert_ok(vr_syncobj_wait(v->vr, v->out, 0, VR_WAIT_NS));
	/* The scheduler cancels the guilty job it resubmits. */
	status = vr_syncobj_status(v->vr, v->out, 0);
	vtest_assert_f(status == -ECANCELED, "%s: the job's fence: %d", what,
		       status);
	vdxg_vcs_reset(&v->vcs);
	vdxg_vcs_nop(&v->vcs);
	vtest_assert_eq(vdxg_exec(v->vr->dev, v->ctx, &v->vcs, NULL), -EIO);
}

/*
 * A draw whose target, depth, vertex or index buffer, texture, constants
 * or program lies on a page the VM does not map faults with
 * VM_NOT_PRESENT at an address inside that range; a target mapped
 * read-only, with VM_READ_ONLY (a write). The context is banned, its
 * job's fence fails, and a job of another client renders exactly.
 */
static void test_exec_faults(void)
{
	static const struct {
		const char *name;
		int res;
		bool read_only;
		uint32_t reason;
	} cases[] = {
		{ "target unmapped", V_DST, false, VDXG_FAULT_VM_NOT_PRESENT },
		{ "depth unmapped", V_DEPTH, false, VDXG_FAULT_VM_NOT_PRESENT },
		{ "vertex buffer unmapped", V_VB, false,
		  VDXG_FAULT_VM_NOT_PRESENT },
		{ "index buffer unmapped", V_IB, false,
		  VDXG_FAULT_VM_NOT_PRESENT },
		{ "texture unmapped", V_TEX, false,
		  VDXG_FAULT_VM_NOT_PRESENT },
		{ "constants unmapped", V_CONSTS, false,
		  VDXG_FAULT_VM_NOT_PRESENT },
		{ "vertex program unmapped", V_VS, false,
		  VDXG_FAULT_VM_NOT_PRESENT },
		{ "fragment program unmapped", V_FS, false,
		  VDXG_FAULT_VM_NOT_PRESENT },
		{ "target read-only", V_DST, true, VDXG_FAULT_VM_READ_ONLY },
		{ "depth read-only", V_DEPTH, true, VDXG_FAULT_VM_READ_ONLY },
	};
	struct vdxg_bo *bo[SC_MAX_RES];
	struct sc_mem m = { 0 };
	struct scene *sc;
	uint64_t rng, resets;
	struct sc_vm v;
	struct vr vr;
	size_t i;
	int res;

	vr_open(&vr);
	vtest_require_f(vr_param(&vr, DRM_VDXG_PARAM_3D), "no 3D pipeline");
	vr_close(&vr);
	vr_ignore_dmesg(VR_RESET_DMESG "|callbacks suppressed");
	rng = vr_seed();
	sc = sc_victim(&rng, "victim", NULL, NULL);
	for (i = 0; i < VTEST_ARRAY_SIZE(cases); i++) {
		res = cases[i].res;
		vtest_info("%s", cases[i].name);
		vr_open(&vr);	/* a file each: bans count per file */
		resets = vr_debugfs(&vr, "render", "resets");
		sc_vm_open(&vr, &v);
		vtest_assert_ok(sc_exec(&v, sc, bo, cases[i].read_only ? -1 :
					res, cases[i].read_only ? res : -1));
		expect_ban(&v, cases[i].reason, SC_VA(res),
			   SC_VA(res) + sc->res[res].size, cases[i].name);
		vtest_assert_eq_u64(vr_debugfs(&vr, "render", "resets"),
				    resets + 1);
		sc_vm_close(&v);
		sc_objects_free(sc, bo);
		vr_close(&vr);
		sc_exec_exact(sc, &m);
	}
	sc_mem_free(&m);
	sc_free(sc);
}

/*
 * EXEC of ops [FROM, TO) of SC in V, whose objects sc_map() mapped, from
 * the half HALF of V's command buffer, after the fence of syncobj IN (0:
 * none); V->out gets the job's fence.
 */
static void sc_exec_ops(struct sc_vm *v, const struct scene *sc, int from,
			int to, int half, uint32_t in)
{
	struct drm_vdxg_sync out = vdxg_sync(v->out, 0), wait = vdxg_sync(in, 0);
	struct vdxg_submit_opts opts = {
		.in_syncs = in ? &wait : NULL, .num_in_syncs = !!in,
		.out_syncs = &out, .num_out_syncs = 1,
	};
	uint32_t size = SC_CMD_SIZE / 2;
	uint64_t va[SC_MAX_RES];
	struct vdxg_vcs vcs;
	int i;

	for (i = 0; i < sc->nres; i++)
		va[i] = SC_VA(i);
	vdxg_vcs_init(&vcs, (uint8_t *)vr_map(v->cmd) + half * size, size,
		      SC_VA_CMD + half * size);
	sc_emit_vcs_ops(sc, &vcs, va, from, to);
	vtest_assert_ok(vdxg_exec(v->vr->dev, v->ctx, &vcs, &opts));
}

/* Wait for V's job: its fence signalled without error, or fail. */
static void sc_vm_wait(struct sc_vm *v, const char *what)
{
	vtest_assert_ok(vr_syncobj_wait(v->vr, v->out, 0, VR_WAIT_NS));
	vtest_assert_f(vr_syncobj_status(v->vr, v->out, 0) == 1,
		       "%s: the job's fence: %d", what,
		       vr_syncobj_status(v->vr, v->out, 0));
}

/*
 * The 3D state is the context's (its state area), as are the surfaces:
 * job A of context 1 sets the whole state of the victim scene (targets,
 * registers, programs, constants, vertex and index buffers, texture),
 * with a scissor, a write mask and a sampler of its own, and draws
 * nothing; then context 2, on the same engine, draws a scene of
 * other programs and state; then job B of context 1 only draws. Context
 * 1's picture is the reference's, pixel for pixel, and so is context 2's.
 * The same draws on a new context fault with PARAM (no programs bound):
 * neither context's state reached it.
 */
static void test_state_carried(void)
{
	struct vdxg_bo *bo[SC_MAX_RES], *obo[SC_MAX_RES];
	uint8_t *got[SC_MAX_RES];
	struct scene *sc, *other;
	struct sc_mem m, mo;
	struct vdxg_ref3d_fault fault;
	struct sc_vm v1, v2, v3;
	struct sc_op last;
	struct vr vr;
	uint64_t rng;
	int draw;

	vr_open(&vr);
	vtest_require_f(vr_param(&vr, DRM_VDXG_PARAM_3D), "no 3D pipeline");
	rng = vr_seed();
	sc = sc_victim(&rng, "carried", NULL, NULL);
	/*
	 * State of its own, which neither the other scene nor a new
	 * context has: a scissor, a colour channel not written, the
	 * sampler nearest, before its draw.
	 */
	last = sc->op[--sc->nops];
	sc_reg(sc, VDXG_3D_RASTER, VDXG_RASTER_SCISSOR);
	sc_reg(sc, VDXG_3D_SCISSOR_MIN, VDXG_RD_XY(3, 5));
	sc_reg(sc, VDXG_3D_SCISSOR_MAX, VDXG_RD_XY(SC_W - 7, SC_H - 2));
	sc_reg(sc, VDXG_3D_BLEND, VDXG_BLEND_WRITE_DISABLE(4));
	sc_reg(sc, VDXG_3D_SAMPLER(0), 0);
	sc->op[sc->nops++] = last;
	other = sc_victim(&rng, "other", NULL,
			  "FRAG\n"
			  "MUL OUT[0], IN[1].zyxw, IMM[0]\n"
			  "IMM[0] = { 0.5, 1, 0.75, 1 }\n"
			  "END\n");
	vtest_assert_eq(sc_reference(sc, &m, &fault), 0);
	vtest_assert_eq(sc_reference(other, &mo, &fault), 0);
	vtest_assert_f(sc_drawn(sc, &m), "the draws change nothing");
	/* The victim's last op is its only draw: job B. */
	draw = sc->nops - 1;
	vtest_assert_eq(sc->op[draw].kind, K_DRAWI);

	sc_vm_open(&vr, &v1);
	sc_vm_open(&vr, &v2);
	sc_objects(&vr, sc, bo, DRM_VDXG_SEGMENT_VRAM,
		   DRM_VDXG_SEGMENT_SYSTEM);
	sc_objects(&vr, other, obo, DRM_VDXG_SEGMENT_VRAM,
		   DRM_VDXG_SEGMENT_SYSTEM);
	sc_map(&v1, sc, bo, -1, -1);
	sc_map(&v2, other, obo, -1, -1);
	sc_exec_ops(&v1, sc, 0, draw, 0, 0);
	sc_exec_ops(&v2, other, 0, other->nops, 0, v1.out);
	sc_exec_ops(&v1, sc, draw, sc->nops, 1, v2.out);
	sc_vm_wait(&v1, "context 1's draw");
	sc_vm_wait(&v2, "context 2's scene");
	sc_wait_targets(sc, bo, got);
	sc_compare(sc, &m, got, "EXEC, the state set by an earlier job");
	sc_wait_targets(other, obo, got);
	sc_compare(other, &mo, got, "EXEC, between the two jobs");

	vr_ignore_dmesg(VR_RESET_DMESG "|callbacks suppressed");
	sc_vm_open(&vr, &v3);
	sc_map(&v3, sc, bo, -1, -1);
	sc_exec_ops(&v3, sc, draw, sc->nops, 1, 0);
	expect_ban(&v3, VDXG_FAULT_PARAM, SC_VA_CMD + SC_CMD_SIZE / 2,
		   SC_VA_CMD + SC_CMD_SIZE, "a new context's draw");

	sc_vm_close(&v3);
	sc_vm_close(&v2);
	sc_vm_close(&v1);
	sc_objects_free(other, obo);
	sc_objects_free(sc, bo);
	sc_mem_free(&mo);
	sc_mem_free(&m);
	sc_free(other);
	sc_free(sc);
	vr_close(&vr);
}

/*
 * A program that loops for ever (fragment, then vertex) reaches
 * VDXG_3D_MAX_STEPS: a SHADER fault inside the program, its context
 * reset (once) and banned, its fence failed (-ECANCELED). Another
 * client's draw queued behind it, and one after it, render exactly.
 */
static void runaway(uint64_t *rng, bool vertex, const struct sc_mem *m,
		    const struct scene *good)
{
	static const char loop_fs[] =
		"FRAG\n"
		"MOV TEMP[0], IN[0]\n"
		"BGNLOOP\n"
		"  ADD TEMP[0], TEMP[0], IN[1]\n"
		"ENDLOOP\n"
		"MOV OUT[0], TEMP[0]\n"
		"END\n";
	static const char loop_vs[] =
		"VERT\n"
		"MOV TEMP[0], IN[0]\n"
		"BGNLOOP\n"
		"  SLT TEMP[1].x, TEMP[0].w, IMM[0].x\n"
		"  IF TEMP[1].x\n"
		"    CONT\n"
		"  ENDIF\n"
		"  MUL TEMP[0].w, TEMP[0].w, IMM[0].y\n"
		"ENDLOOP\n"
		"MOV OUT[0], TEMP[0]\n"
		"MOV OUT[2], IN[1]\n"
		"IMM[0] = { 1e30, 1, 0, 0 }\n"
		"END\n";
	struct vdxg_bo *bo[SC_MAX_RES], *obo[SC_MAX_RES];
	int res = vertex ? V_VS : V_FS;
	uint8_t *got[SC_MAX_RES];
	struct scene *bad;
	struct sc_vm va, vb;
	struct vr a, b;
	uint64_t resets;

	bad = sc_victim(rng, vertex ? "runaway-vertex" : "runaway-fragment",
			vertex ? loop_vs : NULL, vertex ? NULL : loop_fs);
	vr_open(&a);
	vr_open(&b);
	resets = vr_debugfs(&a, "render", "resets");
	sc_vm_open(&a, &va);
	sc_vm_open(&b, &vb);
	vtest_assert_ok(sc_exec(&va, bad, bo, -1, -1));
	vtest_assert_ok(sc_exec(&vb, good, obo, -1, -1));
	expect_ban(&va, VDXG_FAULT_SHADER, SC_VA(res),
		   SC_VA(res) + bad->res[res].size, bad->name);
	vtest_assert_ok(vr_syncobj_wait(&b, vb.out, 0, VR_WAIT_NS));
	vtest_assert_eq(vr_syncobj_status(&b, vb.out, 0), 1);
	sc_wait_targets(good, obo, got);
	sc_compare(good, m, got, "EXEC behind a runaway");
	vtest_assert_eq_u64(vr_debugfs(&a, "render", "resets"), resets + 1);
	sc_vm_close(&vb);
	sc_objects_free(good, obo);
	sc_run_exec(&b, good, m);
	sc_vm_close(&va);
	sc_objects_free(bad, bo);
	vr_close(&b);
	vr_close(&a);
	sc_free(bad);
}

static void test_runaway(void)
{
	struct vdxg_ref3d_fault fault;
	struct scene *good;
	struct sc_mem m;
	uint64_t rng;
	struct vr vr;

	vr_open(&vr);
	vtest_require_f(vr_param(&vr, DRM_VDXG_PARAM_3D), "no 3D pipeline");
	vr_close(&vr);
	vr_ignore_dmesg(VR_RESET_DMESG "|callbacks suppressed");
	rng = vr_seed();
	good = sc_victim(&rng, "bystander", NULL, NULL);
	vtest_assert_eq(sc_reference(good, &m, &fault), 0);
	runaway(&rng, false, &m, good);
	runaway(&rng, true, &m, good);
	sc_mem_free(&m);
	sc_free(good);
}

/* -------------------------------------------------------- paging */

/*
 * VRAM oversubscribed: scenes whose textures, vertex and index buffers
 * and programs are VRAM-only objects kept from one round to the next,
 * with jobs between the rounds that touch fillers worth more than VRAM,
 * so that they are evicted and brought back (at another address, often:
 * the patch model rewrites their address fields). Each round's targets
 * must equal the reference's.
 */
#define PG_SCENES	3
#define PG_ROUNDS	4

static void test_paging(void)
{
	struct vdxg_bo *bo[PG_SCENES][SC_MAX_RES], **fill;
	struct vdxg_cs *cs[PG_SCENES], *touch = vr_cs();
	struct scene *sc[PG_SCENES];
	struct sc_mem m[PG_SCENES];
	struct vdxg_ref3d_fault fault;
	uint8_t *got[SC_MAX_RES];
	uint64_t rng, fsize, xfer, moved = 0, evicted = 0, addr;
	int nfill, per, s, r, i, k;
	uint32_t ctx;
	struct vr vr;

	vr_open(&vr);
	vtest_require_f(vr_param(&vr, DRM_VDXG_PARAM_3D), "no 3D pipeline");
	rng = vr_seed();
	ctx = vr_ctx(&vr);
	fsize = vr.vram_size / 8;
	nfill = vr_commit_room(&vr, 2 * vr.vram_size) / fsize;
	per = 3;	/* 3/8 of VRAM a job */
	vtest_require_f(nfill >= 12, "room for %d fillers only", nfill);
	vtest_info("%d fillers of %" PRIu64 " MiB over %" PRIu64
		   " MiB of VRAM", nfill, fsize >> 20, vr.vram_size >> 20);
	fill = calloc(nfill, sizeof(*fill));
	vtest_assert(fill);
	for (i = 0; i < nfill; i++)
		fill[i] = vr_bo(&vr, fsize, DRM_VDXG_SEGMENT_VRAM, 0);

	for (s = 0; s < PG_SCENES; s++) {
		if (s == 0)
			sc[s] = sc_victim(&rng, "paging-victim", NULL,
					  NULL);
		else
			sc[s] = sc_victim(&rng, s == 1 ? "paging-2" :
					  "paging-3", NULL,
					  "FRAG\n"
					  "TXB TEMP[0], IN[0], UNIT[0]\n"
					  "MUL OUT[0], TEMP[0], IN[1]\n"
					  "END\n");
		vtest_assert_eq(sc_reference(sc[s], &m[s], &fault), 0);
		sc_objects(&vr, sc[s], bo[s], DRM_VDXG_SEGMENT_VRAM, 0);
		cs[s] = vr_cs();
		sc_emit_cs(sc[s], cs[s], bo[s]);
	}
	xfer = vr_debugfs(&vr, "paging", "transfer");
	for (r = 0; r < PG_ROUNDS; r++) {
		for (s = 0; s < PG_SCENES; s++) {
			/* The targets start from the same bytes each round. */
			for (i = 0; i < sc[s]->nres; i++)
				if (sc[s]->res[i].target)
					memcpy(vr_map(bo[s][i]),
					       sc[s]->res[i].data,
					       sc[s]->res[i].size);
			addr = vr_bo_gpu_addr(bo[s][V_TEX]);
			vr_submit(&vr, ctx, cs[s], NULL);
			sc_wait_targets(sc[s], bo[s], got);
			sc_compare(sc[s], &m[s], got, "SUBMIT, paged");
			if (r && vr_bo_gpu_addr(bo[s][V_TEX]) != addr)
				moved++;
		}
		/* Every filler once: the scenes' objects are evicted. */
		for (i = 0; i < nfill; i += per) {
			vdxg_cs_reset(touch);
			for (k = i; k < i + per && k < nfill; k++)
				vdxg_cs_fence(touch, fill[k], 8 * (r + 1),
					      DRM_VDXG_ALLOC_WRITE, r);
			vr_submit(&vr, ctx, touch, NULL);
		}
		for (s = 0; s < PG_SCENES; s++)
			if (vr_bo_segment(bo[s][V_TEX]) !=
			    DRM_VDXG_SEGMENT_VRAM &&
			    vr_bo_segment(bo[s][V_VB]) !=
			    DRM_VDXG_SEGMENT_VRAM)
				evicted++;
	}
	vtest_info("%" PRIu64 " paging transfers; textures and vertex buffers "
		   "out of VRAM after "
		   "the fillers %" PRIu64 " times, back at another address "
		   "%" PRIu64 " times",
		   vr_debugfs(&vr, "paging", "transfer") - xfer, evicted,
		   moved);
	vtest_assert_f(evicted > 0, "no texture and vertex buffer were ever "
		       "evicted together");
	vtest_assert_f(vr_debugfs(&vr, "paging", "transfer") > xfer,
		       "nothing was paged");
	for (s = 0; s < PG_SCENES; s++) {
		vdxg_cs_free(cs[s]);
		sc_objects_free(sc[s], bo[s]);
		sc_mem_free(&m[s]);
		sc_free(sc[s]);
	}
	for (i = 0; i < nfill; i++)
		vdxg_bo_free(fill[i]);
	free(fill);
	vdxg_cs_free(touch);
	vr_close(&vr);
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
	{ "prims", test_prims,
	  "every primitive, by DRAW and DRAW_INDEXED (each index size, a "
	  "bias), a vertex format each, point sizes and POINT_COORD, FACE: "
	  "SUBMIT and EXEC pixel-exact (colour, depth) against vdxg_ref3d" },
	{ "clip", test_clip,
	  "triangles, fans, lines and points across each clip plane (the "
	  "guard band's for x and y, the view volume's for z) and with "
	  "negative w, in perspective: both models against vdxg_ref3d" },
	{ "depth-stencil-blend", test_depth_stencil_blend,
	  "every depth function, two-sided stencil, every blend equation and "
	  "factor, write masks, culling, polygon offset, scissor, by "
	  "SET_STATE and LOAD_STATE, on every target format with D16, D24S8 "
	  "or no depth: both models against vdxg_ref3d" },
	{ "textures", test_textures,
	  "every texture format and every MAG, MIN and MIP filter with "
	  "random wraps and sizes, through TEX, TXB, TXL, TXP and TXD: both "
	  "models against vdxg_ref3d" },
	{ "cube", test_cube,
	  "cube maps of several sizes, formats, levels and filters through "
	  "every texture opcode: both models against vdxg_ref3d" },
	{ "derivatives", test_derivatives,
	  "DDX and DDY of varyings and POSITION across quads, helper lanes "
	  "included, and 0 in a vertex program: both models against "
	  "vdxg_ref3d" },
	{ "discard", test_discard,
	  "KILL_IF and KILL under IF/ELSE with depth and stencil writes: "
	  "both models against vdxg_ref3d" },
	{ "loops", test_loops,
	  "counted and fragment-dependent loops with BRK, CONT, nested "
	  "loops and relative constants, in both stages: both models "
	  "against vdxg_ref3d" },
	{ "exec-faults", test_exec_faults,
	  "EXEC of a draw whose target, depth, vertex or index buffer, "
	  "texture, constants or program is unmapped (VM_NOT_PRESENT), or "
	  "whose targets are read-only (VM_READ_ONLY): the fault's reason "
	  "and address, one reset, the context banned, its fence "
	  "-ECANCELED; another client renders exactly after each" },
	{ "state-carried", test_state_carried,
	  "EXEC: the 3D state and surfaces one job of a context set serve "
	  "its next job's draw, with another context's scene between them; "
	  "both pictures exact; the draw alone on a new context faults with "
	  "PARAM" },
	{ "runaway", test_runaway,
	  "a fragment, then a vertex program that loops for ever: a SHADER "
	  "fault in the program, its context reset once and banned and its "
	  "fence -ECANCELED, while another client's draw queued behind it "
	  "and one after it render exactly" },
	{ "paging", test_paging,
	  "VRAM oversubscribed: textures, vertex and index buffers and "
	  "programs evicted by jobs on fillers between rounds of SUBMIT "
	  "draws and brought back: every round pixel-exact" },
};

VTEST_MAIN(subtests)
