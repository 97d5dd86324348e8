// SPDX-License-Identifier: MIT
/*
 * Host tests of vdxg-demo --3d's scene (vdxg_scene3d.c), vtest protocol.
 *
 * Copyright (c) 2026 The vdxg authors
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "vdxg.h"
#include "vdxg_hw.h"
#include "vdxg_scene3d.h"
#include "vtest.h"

/*
 * What a frame sets before each of its draws: per state register, per
 * stage's shader and constants, per texture unit and vertex buffer, and
 * the index buffer.
 */
enum {
	REC_SHADER = VDXG_3D_NUM_REGS,
	REC_CONSTS = REC_SHADER + VDXG_3D_NUM_STAGES,
	REC_VB = REC_CONSTS + VDXG_3D_NUM_STAGES,
	REC_TEX = REC_VB + VDXG_3D_NUM_VBS,
	REC_IB = REC_TEX + VDXG_3D_NUM_UNITS,
	REC_N,
};

#define MAX_DRAWS 4

struct rec {
	unsigned int draws;
	bool set[MAX_DRAWS + 1][REC_N];
};

static void rec_mark(void *o, unsigned int what)
{
	struct rec *r = o;

	vtest_assert(what < REC_N);
	r->set[r->draws][what] = true;
}

static void rec_fb_depth(void *o)
{
	(void)o;
}

static void rec_set_state(void *o, uint32_t first, const uint32_t *v,
			  uint32_t n)
{
	uint32_t i;

	(void)v;
	for (i = 0; i < n; i++)
		rec_mark(o, first + i);
}

static void rec_set_shader(void *o, uint32_t stage, uint32_t off,
			   uint32_t size)
{
	(void)off;
	(void)size;
	rec_mark(o, REC_SHADER + stage);
}

static void rec_set_constants(void *o, uint32_t stage, uint32_t off,
			      uint32_t count)
{
	(void)off;
	(void)count;
	rec_mark(o, REC_CONSTS + stage);
}

static void rec_set_vertex_buffer(void *o, uint32_t index, uint32_t off,
				  uint32_t size, uint32_t stride)
{
	(void)off;
	(void)size;
	(void)stride;
	rec_mark(o, REC_VB + index);
}

static void rec_set_index_buffer(void *o, uint32_t off, uint32_t size,
				 uint32_t index_size)
{
	(void)off;
	(void)size;
	(void)index_size;
	rec_mark(o, REC_IB);
}

static void rec_set_texture(void *o, uint32_t unit, uint32_t off,
			    uint32_t size, uint32_t desc, uint32_t width,
			    uint32_t height)
{
	(void)off;
	(void)size;
	(void)desc;
	(void)width;
	(void)height;
	rec_mark(o, REC_TEX + unit);
}

static void rec_draw_indexed(void *o, uint32_t prim, uint32_t first,
			     uint32_t count, int32_t bias)
{
	struct rec *r = o;

	(void)prim;
	(void)first;
	(void)count;
	(void)bias;
	vtest_assert(r->draws < MAX_DRAWS);
	r->draws++;
}

static void rec_clear(void *o, uint32_t flags, uint32_t w, uint32_t h,
		      const float *rgba, float depth)
{
	(void)o;
	(void)flags;
	(void)w;
	(void)h;
	(void)rgba;
	(void)depth;
}

static const struct scene3d_ops rec_ops = {
	.fb_depth = rec_fb_depth,
	.set_state = rec_set_state,
	.set_shader = rec_set_shader,
	.set_constants = rec_set_constants,
	.set_vertex_buffer = rec_set_vertex_buffer,
	.set_index_buffer = rec_set_index_buffer,
	.set_texture = rec_set_texture,
	.draw_indexed = rec_draw_indexed,
	.clear = rec_clear,
};

/*
 * A frame sets, before its first draw, everything that it sets later:
 * by EXEC a context's state carries over from one frame to the next, and
 * what the last draw of a frame set would otherwise apply to the first
 * draw of the next. (The cube used to inherit the glass's blending: the
 * same picture, since the cube is opaque, for twice the work.)
 */
static void test_frame_state(void)
{
	struct scene3d s;
	struct rec r;
	unsigned int d, i;

	memset(&r, 0, sizeof(r));
	vtest_assert_eq(scene3d_init(&s, 64, 48), 0);
	scene3d_emit(&s, &rec_ops, &r, 0);
	vtest_assert_eq(r.draws, 2);
	for (d = 1; d < r.draws; d++)
		for (i = 0; i < REC_N; i++)
			vtest_assert_f(!r.set[d][i] || r.set[0][i],
				       "draw %u sets %u, which draw 0 inherits",
				       d, i);
	vtest_assert(r.set[0][VDXG_3D_BLEND]);
	vtest_assert(r.set[0][VDXG_3D_DEPTH]);
	scene3d_fini(&s);
}

static const struct vtest_subtest tests[] = {
	{ "frame-state", test_frame_state,
	  "a frame sets all its state before its first draw" },
};

VTEST_MAIN(tests)
