// SPDX-License-Identifier: MIT
/*
 * vdxg_render: every RENDER command, run through the driver on the device
 * and compared pixel-exactly, over whole objects, with the reference
 * renderer (libvdxg's vdxg_ref) run on a CPU copy.
 *
 * The pixel subtests are NAME-FORMAT-SEGMENT: DST is in FORMAT (xrgb8888,
 * argb8888, rgb565) in SEGMENT (vram, aperture); the other surfaces (SRC,
 * TEXTURE) and the vertex buffer use the next format and the other
 * segment, so every conversion and both segments are crossed. Objects
 * start with random bytes, so that untouched pixels, row padding and
 * bytes around the surfaces are checked too. The random seed is printed
 * (VTEST_SEED=N reproduces a run).
 *
 * Every subtest skips on a device or driver without a RENDER engine.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vrender.h"

#define W	96
#define H	64
#define OBJ	(64 << 10)	/* each object; surfaces at SURF_OFF */
#define SURF_OFF 256
#define VB_OFF	64

struct rt {
	struct vr vr;
	uint32_t ctx;
	uint64_t rng;
	struct vdxg_cs *cs;
	uint32_t fmt, seg;		/* DST's */
	uint32_t fmt2, seg2;		/* SRC's, TEXTURE's, the vertices' */
	struct vr_buf dst, src, vb, depth;
	struct vr_surf d, s, z;
	int nsurf;
	struct vr_surf all[4];
};

static uint32_t next_format(uint32_t f)
{
	return f == VDXG_FMT_XRGB8888 ? VDXG_FMT_ARGB8888 :
	       f == VDXG_FMT_ARGB8888 ? VDXG_FMT_RGB565 : VDXG_FMT_XRGB8888;
}

static uint32_t other_segment(uint32_t s)
{
	return s == DRM_VDXG_SEGMENT_VRAM ? DRM_VDXG_SEGMENT_APERTURE :
					    DRM_VDXG_SEGMENT_VRAM;
}

/* A surface with a padded pitch (64 bytes past the rounded row). */
static struct vr_surf padded(struct vr_buf *b, uint32_t fmt, uint32_t w,
			     uint32_t h)
{
	struct vr_surf s = vr_surf(b, SURF_OFF, fmt, w, h);

	s.pitch += 64;
	vtest_assert(SURF_OFF + vr_surf_extent(&s) <= b->size);
	return s;
}

static void setup(struct rt *t, uint32_t fmt, uint32_t seg)
{
	memset(t, 0, sizeof(*t));
	vr_open(&t->vr);
	t->rng = vr_seed();
	t->ctx = vr_ctx(&t->vr);
	t->cs = vr_cs();
	t->fmt = fmt;
	t->seg = seg;
	t->fmt2 = next_format(fmt);
	t->seg2 = other_segment(seg);
	vtest_info("DST %s in %s; SRC/TEXTURE %s and vertices in %s",
		   vr_format_name(fmt),
		   seg == DRM_VDXG_SEGMENT_VRAM ? "VRAM" : "the aperture",
		   vr_format_name(t->fmt2),
		   t->seg2 == DRM_VDXG_SEGMENT_VRAM ? "VRAM" : "the aperture");

	vr_buf_init(&t->vr, &t->dst, OBJ, seg);
	vr_buf_randomize(&t->dst, &t->rng);
	t->d = padded(&t->dst, fmt, W, H);
	t->all[t->nsurf++] = t->d;
}

static void add_src(struct rt *t, uint32_t fmt, uint32_t w, uint32_t h)
{
	vr_buf_init(&t->vr, &t->src, OBJ, t->seg2);
	vr_buf_randomize(&t->src, &t->rng);
	t->s = padded(&t->src, fmt, w, h);
	t->all[t->nsurf++] = t->s;
}

static void add_depth(struct rt *t)
{
	vr_buf_init(&t->vr, &t->depth, OBJ, t->seg2);
	vr_buf_randomize(&t->depth, &t->rng);
	/* Larger than DST, as the engine allows: its own pitch is used. */
	t->z = padded(&t->depth, VDXG_FMT_D32, W + 5, H + 3);
	t->all[t->nsurf++] = t->z;
}

static void run_and_check(struct rt *t, const char *what)
{
	vr_submit(&t->vr, t->ctx, t->cs, NULL);
	vr_bo_wait(t->dst.bo);
	vr_buf_check(&t->dst, t->all, t->nsurf, what);
	if (t->src.bo)
		vr_buf_check(&t->src, t->all, t->nsurf, what);
	if (t->depth.bo)
		vr_buf_check(&t->depth, t->all, t->nsurf, what);
	if (t->vb.bo)
		vr_buf_check(&t->vb, NULL, 0, what);
}

static void teardown(struct rt *t)
{
	vdxg_cs_free(t->cs);
	if (t->vb.bo)
		vr_buf_fini(&t->vb);
	if (t->depth.bo)
		vr_buf_fini(&t->depth);
	if (t->src.bo)
		vr_buf_fini(&t->src);
	vr_buf_fini(&t->dst);
	vdxg_context_destroy(t->vr.dev, t->ctx);
	vr_close(&t->vr);
}

/* A random rectangle of a w x h surface: corners, edges and empty ones. */
static void rand_rect(struct rt *t, uint32_t sw, uint32_t sh, uint32_t *x,
		      uint32_t *y, uint32_t *w, uint32_t *h)
{
	switch (vr_rand(&t->rng) % 8) {
	case 0:		/* the whole surface */
		*x = *y = 0;
		*w = sw;
		*h = sh;
		return;
	case 1:		/* the last pixel */
		*x = sw - 1;
		*y = sh - 1;
		*w = *h = 1;
		return;
	case 2:		/* empty: nothing drawn */
		*w = vr_rand(&t->rng) % 2 ? 0 : 5;
		*h = *w ? 0 : 3;
		*x = vr_rand(&t->rng) % (sw - *w);
		*y = vr_rand(&t->rng) % (sh - *h);
		return;
	default:
		*x = vr_rand(&t->rng) % sw;
		*y = vr_rand(&t->rng) % sh;
		*w = 1 + vr_rand(&t->rng) % (sw - *x);
		*h = 1 + vr_rand(&t->rng) % (sh - *y);
		return;
	}
}

/* ------------------------------------------------------------ FILL_RECT */

static void test_fill_rect(uint32_t fmt, uint32_t seg)
{
	struct vdxg_ref_surface r;
	struct rt t;
	int i;

	setup(&t, fmt, seg);
	r = vr_ref(&t.d);
	vr_cs_surface(t.cs, VDXG_SLOT_DST, &t.d);
	for (i = 0; i < 24; i++) {
		uint32_t x, y, w, h, c = vr_rand(&t.rng);

		rand_rect(&t, W, H, &x, &y, &w, &h);
		vdxg_cs_fill_rect(t.cs, x, y, w, h, c);
		vdxg_ref_fill_rect(&r, x, y, w, h, c);
	}
	run_and_check(&t, "fill-rect");
	teardown(&t);
}

/* ------------------------------------------------- COPY_RECT and BLEND */

static void copy_or_blend(struct rt *t, bool blend, uint32_t alpha)
{
	struct vdxg_ref_surface rd = vr_ref(&t->d), rs = vr_ref(&t->s);
	uint32_t sx, sy, w, h, dx, dy;

	rand_rect(t, t->s.width, t->s.height, &sx, &sy, &w, &h);
	if (w > W)
		w = W;
	if (h > H)
		h = H;
	dx = vr_rand(&t->rng) % (W - w + 1);
	dy = vr_rand(&t->rng) % (H - h + 1);
	if (blend) {
		vdxg_cs_blend(t->cs, sx, sy, dx, dy, w, h, alpha);
		vdxg_ref_blend(&rd, &rs, sx, sy, dx, dy, w, h, alpha);
	} else {
		vdxg_cs_copy_rect(t->cs, sx, sy, dx, dy, w, h);
		vdxg_ref_copy_rect(&rd, &rs, sx, sy, dx, dy, w, h);
	}
}

/*
 * Within one surface, overlapping: SRC and DST both bound to DST's memory,
 * the rectangle moved by a few pixels in every direction.
 */
static void overlapping(struct rt *t, bool blend, uint32_t alpha)
{
	static const int shift[][2] = {
		{ 3, 0 }, { -3, 0 }, { 0, 2 }, { 0, -2 }, { 5, 7 }, { -7, -5 },
	};
	struct vdxg_ref_surface rd = vr_ref(&t->d);
	unsigned int i;

	vr_cs_surface(t->cs, VDXG_SLOT_SRC, &t->d);
	for (i = 0; i < VTEST_ARRAY_SIZE(shift); i++) {
		uint32_t w = 40, h = 30;
		uint32_t sx = 20, sy = 15;
		uint32_t dx = sx + shift[i][0], dy = sy + shift[i][1];

		if (blend) {
			vdxg_cs_blend(t->cs, sx, sy, dx, dy, w, h, alpha);
			vdxg_ref_blend(&rd, &rd, sx, sy, dx, dy, w, h, alpha);
		} else {
			vdxg_cs_copy_rect(t->cs, sx, sy, dx, dy, w, h);
			vdxg_ref_copy_rect(&rd, &rd, sx, sy, dx, dy, w, h);
		}
	}
}

static void test_copy_rect(uint32_t fmt, uint32_t seg)
{
	struct rt t;
	int i;

	setup(&t, fmt, seg);
	add_src(&t, t.fmt2, W + 13, H - 9);
	vr_cs_surface(t.cs, VDXG_SLOT_DST, &t.d);
	vr_cs_surface(t.cs, VDXG_SLOT_SRC, &t.s);
	for (i = 0; i < 16; i++)
		copy_or_blend(&t, false, 0);
	/* Same format both sides: a plain copy, bit for bit. */
	t.s.format = fmt;
	t.s.pitch = t.d.pitch;
	t.all[1] = t.s;
	vr_cs_surface(t.cs, VDXG_SLOT_SRC, &t.s);
	for (i = 0; i < 8; i++)
		copy_or_blend(&t, false, 0);
	overlapping(&t, false, 0);
	run_and_check(&t, "copy-rect");
	teardown(&t);
}

static void test_blend(uint32_t fmt, uint32_t seg)
{
	static const uint32_t alphas[] = { 0, 255, 128, 1, 254 };
	struct rt t;
	unsigned int i;

	setup(&t, fmt, seg);
	/* SRC in ARGB8888 has per-pixel alpha; in the others it reads 255. */
	add_src(&t, VDXG_FMT_ARGB8888, W - 5, H + 7);
	vr_cs_surface(t.cs, VDXG_SLOT_DST, &t.d);
	vr_cs_surface(t.cs, VDXG_SLOT_SRC, &t.s);
	for (i = 0; i < 20; i++)
		copy_or_blend(&t, true, i < VTEST_ARRAY_SIZE(alphas) ?
			      alphas[i] : vr_rand(&t.rng) & 0xff);
	t.s.format = t.fmt2;
	t.all[1] = t.s;
	vr_cs_surface(t.cs, VDXG_SLOT_SRC, &t.s);
	for (i = 0; i < 6; i++)
		copy_or_blend(&t, true, vr_rand(&t.rng) & 0xff);
	overlapping(&t, true, 200);
	run_and_check(&t, "blend");
	teardown(&t);
}

/* ------------------------------------------------------- DRAW_TRIANGLES */

static struct vr_vertex vtx(int32_t x16, int32_t y16, uint32_t z,
			    uint32_t color, int32_t u, int32_t v)
{
	struct vr_vertex r = { x16, y16, z, color, u, v, { 0xdeadbeef, 0 } };

	return r;
}

/* Centre of pixel (x, y) in 1/16 pixel. */
#define PX(x)	((int32_t)(x) * 16 + 8)

static void setup_vb(struct rt *t)
{
	if (!t->vb.bo) {
		vr_buf_init(&t->vr, &t->vb, 256 << 10, t->seg2);
		vr_buf_randomize(&t->vb, &t->rng);
	}
}

/*
 * One DRAW_TRIANGLES of N vertices. Vertex buffers of successive draws
 * follow each other in the object.
 */
static void draw(struct rt *t, uint32_t flags, const struct vr_vertex *v,
		 uint32_t n, uint32_t *vb_off, const struct vdxg_ref_surface *tex)
{
	struct vdxg_ref_surface rd = vr_ref(&t->d), rz = { 0 };
	uint32_t off = *vb_off;

	setup_vb(t);
	vtest_assert(off + n * sizeof(*v) <= t->vb.size);
	memcpy(t->vb.map + off, v, n * sizeof(*v));
	memcpy(t->vb.ref + off, v, n * sizeof(*v));
	vdxg_cs_draw_triangles(t->cs, flags, n, t->vb.bo, off, 0);
	if (t->depth.bo)
		rz = vr_ref(&t->z);
	vdxg_ref_draw_triangles(&rd, t->depth.bo ? &rz : NULL, tex, flags,
				(const uint32_t *)v, n);
	*vb_off = off + n * sizeof(*v) + 64;
}

static uint32_t rand_color(struct rt *t)
{
	return vr_rand(&t->rng);
}

/* A random triangle around the surface, partly outside it at times. */
static void rand_tri(struct rt *t, struct vr_vertex *v, bool flat,
		     int32_t tw, int32_t th)
{
	uint32_t c = rand_color(t);
	int i;

	for (i = 0; i < 3; i++) {
		int32_t x = vr_rand_range(&t->rng, -24 * 16, (W + 24) * 16);
		int32_t y = vr_rand_range(&t->rng, -24 * 16, (H + 24) * 16);
		int32_t u = vr_rand_range(&t->rng, -(4 << 16), (tw + 4) << 16);
		int32_t vv = vr_rand_range(&t->rng, -(4 << 16), (th + 4) << 16);

		v[i] = vtx(x, y, vr_rand(&t->rng), flat ? c : rand_color(t),
			   u, vv);
	}
}

/* Triangles that exercise the fill rule, winding and clipping. */
static uint32_t edge_cases(struct rt *t, struct vr_vertex *v, bool flat)
{
	uint32_t n = 0, c[8];
	int i;

	for (i = 0; i < 8; i++)
		c[i] = rand_color(t);
#define C(i)	(flat ? c[(i) / 3 % 8] : rand_color(t))
	/* A quad split along its diagonal: the shared edge drawn once. */
	v[n++] = vtx(PX(4), PX(4), 0, C(0), 0, 0);
	v[n++] = vtx(PX(40), PX(4), 0, C(0), 0, 0);
	v[n++] = vtx(PX(4), PX(30), 0, C(0), 0, 0);
	v[n++] = vtx(PX(40), PX(4), 0, C(3), 0, 0);
	v[n++] = vtx(PX(40), PX(30), 0, C(3), 0, 0);
	v[n++] = vtx(PX(4), PX(30), 0, C(3), 0, 0);
	/* Clockwise: v1 and v2 swapped by the engine. */
	v[n++] = vtx(PX(50), PX(10), 0, C(6), 0, 0);
	v[n++] = vtx(PX(60), PX(40), 0, C(6), 0, 0);
	v[n++] = vtx(PX(80), PX(12), 0, C(6), 0, 0);
	/* Degenerate: collinear, draws nothing. */
	v[n++] = vtx(PX(1), PX(1), 0, C(9), 0, 0);
	v[n++] = vtx(PX(30), PX(30), 0, C(9), 0, 0);
	v[n++] = vtx(PX(60), PX(60), 0, C(9), 0, 0);
	/* Horizontal top and bottom edges on pixel centres. */
	v[n++] = vtx(PX(10), PX(40), 0, C(12), 0, 0);
	v[n++] = vtx(PX(30), PX(40), 0, C(12), 0, 0);
	v[n++] = vtx(PX(20), PX(55), 0, C(12), 0, 0);
	v[n++] = vtx(PX(40), PX(60), 0, C(15), 0, 0);
	v[n++] = vtx(PX(60), PX(60), 0, C(15), 0, 0);
	v[n++] = vtx(PX(50), PX(45), 0, C(15), 0, 0);
	/* Sub-pixel sliver and a triangle smaller than a pixel. */
	v[n++] = vtx(PX(70) - 3, PX(30), 0, C(18), 0, 0);
	v[n++] = vtx(PX(70) + 2, PX(62), 0, C(18), 0, 0);
	v[n++] = vtx(PX(71), PX(31) + 5, 0, C(18), 0, 0);
	v[n++] = vtx(PX(90) - 2, PX(5) - 2, 0, C(21), 0, 0);
	v[n++] = vtx(PX(90) + 3, PX(5) - 1, 0, C(21), 0, 0);
	v[n++] = vtx(PX(90), PX(5) + 4, 0, C(21), 0, 0);
	/* Reaching past every side of the surface. */
	v[n++] = vtx(-200 * 16, PX(32), 0, C(24), 0, 0);
	v[n++] = vtx(PX(48), -90 * 16, 0, C(24), 0, 0);
	v[n++] = vtx((W + 150) * 16, (H + 90) * 16, 0, C(24), 0, 0);
	/* Entirely outside. */
	v[n++] = vtx(-50 * 16, -50 * 16, 0, C(27), 0, 0);
	v[n++] = vtx(-10 * 16, -50 * 16, 0, C(27), 0, 0);
	v[n++] = vtx(-30 * 16, -10 * 16, 0, C(27), 0, 0);
#undef C
	return n;
}

static void test_draw_flat(uint32_t fmt, uint32_t seg)
{
	struct vr_vertex v[96];
	uint32_t n, vb = VB_OFF;
	struct rt t;
	int i;

	setup(&t, fmt, seg);
	vr_cs_surface(t.cs, VDXG_SLOT_DST, &t.d);
	n = edge_cases(&t, v, true);
	draw(&t, 0, v, n, &vb, NULL);
	for (i = 0; i < 20; i++)
		rand_tri(&t, &v[3 * i], true, 0, 0);
	draw(&t, 0, v, 60, &vb, NULL);
	run_and_check(&t, "draw-flat");
	teardown(&t);
}

static void test_draw_interp(uint32_t fmt, uint32_t seg)
{
	struct vr_vertex v[96];
	uint32_t n, vb = VB_OFF;
	struct rt t;
	int i;

	setup(&t, fmt, seg);
	vr_cs_surface(t.cs, VDXG_SLOT_DST, &t.d);
	n = edge_cases(&t, v, false);
	draw(&t, 0, v, n, &vb, NULL);
	for (i = 0; i < 20; i++)
		rand_tri(&t, &v[3 * i], false, 0, 0);
	draw(&t, 0, v, 60, &vb, NULL);
	/* Full-range channels: 0 and 255 at the corners. */
	v[0] = vtx(PX(0), PX(0), 0, 0x00000000, 0, 0);
	v[1] = vtx(PX(W - 1), PX(0), 0, 0xffffffff, 0, 0);
	v[2] = vtx(PX(0), PX(H - 1), 0, 0xff00ff00, 0, 0);
	draw(&t, 0, v, 3, &vb, NULL);
	run_and_check(&t, "draw-interp");
	teardown(&t);
}

static void test_draw_texture(uint32_t fmt, uint32_t seg, bool bilinear)
{
	const uint32_t tw = 37, th = 29;
	uint32_t flags = VDXG_DRAW_TEXTURE | (bilinear ? VDXG_DRAW_BILINEAR : 0);
	struct vdxg_ref_surface tex;
	struct vr_vertex v[96];
	uint32_t vb = VB_OFF;
	struct rt t;
	int i;

	setup(&t, fmt, seg);
	add_src(&t, t.fmt2, tw, th);
	tex = vr_ref(&t.s);
	vr_cs_surface(t.cs, VDXG_SLOT_DST, &t.d);
	vr_cs_surface(t.cs, VDXG_SLOT_TEXTURE, &t.s);

	/* The whole texture on a quad, texel centres on pixel centres. */
	v[0] = vtx(0, 0, 0, 0xffffffff, 0, 0);
	v[1] = vtx(tw * 16, 0, 0, 0xffffffff, tw << 16, 0);
	v[2] = vtx(0, th * 16, 0, 0xffffffff, 0, th << 16);
	v[3] = vtx(tw * 16, 0, 0, 0xffffffff, tw << 16, 0);
	v[4] = vtx(tw * 16, th * 16, 0, 0xffffffff, tw << 16, th << 16);
	v[5] = vtx(0, th * 16, 0, 0xffffffff, 0, th << 16);
	/* Magnified and modulated, with clamping past both ends. */
	v[6] = vtx(PX(40), PX(2), 0, 0xff8040c0, -(3 << 16), -(2 << 16));
	v[7] = vtx(PX(95), PX(10), 0, 0x80ff00ff, (tw + 5) << 16, 1 << 15);
	v[8] = vtx(PX(50), PX(63), 0, 0xc0c0c0c0, 7 << 15, (th + 3) << 16);
	draw(&t, flags, v, 9, &vb, &tex);
	for (i = 0; i < 24; i++)
		rand_tri(&t, &v[3 * i], i % 2, tw, th);
	draw(&t, flags, v, 72, &vb, &tex);
	run_and_check(&t, bilinear ? "draw-tex-bilinear" : "draw-tex-nearest");
	teardown(&t);
}

static void test_draw_tex_nearest(uint32_t fmt, uint32_t seg)
{
	test_draw_texture(fmt, seg, false);
}

static void test_draw_tex_bilinear(uint32_t fmt, uint32_t seg)
{
	test_draw_texture(fmt, seg, true);
}

static void test_draw_depth(uint32_t fmt, uint32_t seg)
{
	static const uint32_t modes[] = {
		VDXG_DRAW_DEPTH_TEST | VDXG_DRAW_DEPTH_WRITE,
		VDXG_DRAW_DEPTH_TEST,
		VDXG_DRAW_DEPTH_WRITE,
		VDXG_DRAW_DEPTH_TEST | VDXG_DRAW_DEPTH_WRITE,
	};
	struct vr_vertex v[96];
	uint32_t vb = VB_OFF;
	unsigned int m;
	struct rt t;
	int i;

	setup(&t, fmt, seg);
	add_depth(&t);
	vr_cs_surface(t.cs, VDXG_SLOT_DST, &t.d);
	vr_cs_surface(t.cs, VDXG_SLOT_DEPTH, &t.z);

	/* Two interpenetrating triangles: the nearer wins per pixel. */
	v[0] = vtx(PX(0), PX(0), 0x10000000, 0xffff0000, 0, 0);
	v[1] = vtx(PX(90), PX(10), 0xf0000000, 0xffff0000, 0, 0);
	v[2] = vtx(PX(10), PX(60), 0x10000000, 0xffff0000, 0, 0);
	v[3] = vtx(PX(5), PX(5), 0xf0000000, 0xff00ff00, 0, 0);
	v[4] = vtx(PX(95), PX(50), 0x10000000, 0xff00ff00, 0, 0);
	v[5] = vtx(PX(20), PX(63), 0xf0000000, 0xff00ff00, 0, 0);
	draw(&t, modes[0], v, 6, &vb, NULL);
	for (m = 0; m < VTEST_ARRAY_SIZE(modes); m++) {
		for (i = 0; i < 16; i++)
			rand_tri(&t, &v[3 * i], i % 3 == 0, 0, 0);
		draw(&t, modes[m], v, 48, &vb, NULL);
	}
	run_and_check(&t, "draw-depth");
	teardown(&t);
}

/* Random scenes: every flag combination, many triangles per draw. */
static void test_draw_random(uint32_t fmt, uint32_t seg)
{
	const uint32_t tw = 64, th = 16, ntri = 150;
	struct vdxg_ref_surface tex;
	struct vr_vertex *v = calloc(3 * ntri, sizeof(*v));
	uint32_t vb = VB_OFF, flags;
	struct rt t;
	uint32_t i;

	vtest_assert(v);
	setup(&t, fmt, seg);
	add_src(&t, t.fmt2, tw, th);
	add_depth(&t);
	tex = vr_ref(&t.s);
	vr_cs_surface(t.cs, VDXG_SLOT_DST, &t.d);
	vr_cs_surface(t.cs, VDXG_SLOT_TEXTURE, &t.s);
	vr_cs_surface(t.cs, VDXG_SLOT_DEPTH, &t.z);
	for (flags = 0; flags <= VDXG_DRAW_FLAGS_MASK; flags++) {
		uint32_t n = 3 * (1 + vr_rand(&t.rng) % (ntri / 8));

		if ((flags & VDXG_DRAW_BILINEAR) && !(flags & VDXG_DRAW_TEXTURE))
			continue;
		for (i = 0; i < n / 3; i++)
			rand_tri(&t, &v[3 * i], vr_rand(&t.rng) % 4 == 0, tw,
				 th);
		draw(&t, flags, v, n, &vb, &tex);
	}
	/* One big draw with everything on. */
	for (i = 0; i < ntri; i++)
		rand_tri(&t, &v[3 * i], false, tw, th);
	draw(&t, VDXG_DRAW_FLAGS_MASK, v, 3 * ntri, &vb, &tex);
	run_and_check(&t, "draw-random");
	teardown(&t);
	free(v);
}

/*
 * Coordinates at the limit the engine accepts (|X|, |Y| =
 * VDXG_VTX_COORD_MAX): triangles covering the surface or crossing it from
 * far away, with interpolated colours.
 */
static void test_draw_max_coords(uint32_t fmt, uint32_t seg)
{
	const int32_t m = VDXG_VTX_COORD_MAX;
	struct vr_vertex v[9];
	uint32_t vb = VB_OFF;
	struct rt t;

	setup(&t, fmt, seg);
	vr_cs_surface(t.cs, VDXG_SLOT_DST, &t.d);
	v[0] = vtx(-m, -m, 0, 0xff123456, 0, 0);
	v[1] = vtx(m, -m, 0, 0x80ff00c0, 0, 0);
	v[2] = vtx(-m, m, 0, 0x0000ff7f, 0, 0);
	/* An edge crossing the surface diagonally from far away. */
	v[3] = vtx(m, m, 0, 0x80fedcba, 0, 0);
	v[4] = vtx(-m, -m + 16 * 40, 0, 0xff0000ff, 0, 0);
	v[5] = vtx(m, -m, 0, 0x12345678, 0, 0);
	v[6] = vtx(PX(10), -m, 0, 0xff00ff00, 0, 0);
	v[7] = vtx(PX(12), m, 0, 0xffff0000, 0, 0);
	v[8] = vtx(PX(60), PX(30), 0, 0xff0000ff, 0, 0);
	draw(&t, 0, v, 9, &vb, NULL);
	run_and_check(&t, "draw-max-coords");
	teardown(&t);
}

/* All commands in one buffer: each sees the previous one's result. */
static void test_sequence(uint32_t fmt, uint32_t seg)
{
	struct vdxg_ref_surface rd, rs, tex;
	struct vr_vertex v[6];
	uint32_t vb = VB_OFF;
	struct rt t;

	setup(&t, fmt, seg);
	add_src(&t, t.fmt2, 32, 32);
	rd = vr_ref(&t.d);
	rs = vr_ref(&t.s);
	tex = rd;
	vr_cs_surface(t.cs, VDXG_SLOT_DST, &t.d);
	vdxg_cs_fill_rect(t.cs, 0, 0, 40, 40, 0xff204080);
	vdxg_ref_fill_rect(&rd, 0, 0, 40, 40, 0xff204080);
	/* The fill, copied within DST. */
	vr_cs_surface(t.cs, VDXG_SLOT_SRC, &t.d);
	vdxg_cs_copy_rect(t.cs, 10, 10, 50, 20, 30, 30);
	vdxg_ref_copy_rect(&rd, &rd, 10, 10, 50, 20, 30, 30);
	/* Blended with the other object. */
	vr_cs_surface(t.cs, VDXG_SLOT_SRC, &t.s);
	vdxg_cs_blend(t.cs, 0, 0, 30, 30, 32, 32, 100);
	vdxg_ref_blend(&rd, &rs, 0, 0, 30, 30, 32, 32, 100);
	/* DST so far, sampled as the texture. */
	vr_cs_surface(t.cs, VDXG_SLOT_TEXTURE, &t.d);
	v[0] = vtx(PX(0), PX(40), 0, 0xffffffff, 0, 0);
	v[1] = vtx(PX(95), PX(40), 0, 0xffffffff, 96 << 16, 0);
	v[2] = vtx(PX(0), PX(63), 0, 0xffffffff, 0, 39 << 16);
	/*
	 * The texels sampled (rows 0 to 39) are not under the triangle (rows
	 * 40 and below), so the result does not depend on pixel order.
	 */
	draw(&t, VDXG_DRAW_TEXTURE, v, 3, &vb, &tex);
	vdxg_cs_fill_rect(t.cs, 90, 0, 6, 64, 0x00ffffff);
	vdxg_ref_fill_rect(&rd, 90, 0, 6, 64, 0x00ffffff);
	run_and_check(&t, "sequence");
	teardown(&t);
}

/* ---------------------------------------------------------- FENCE, WAIT */

static void test_fence(uint32_t seg)
{
	static const uint64_t values[] = {
		1, 0xffffffffull, 0x100000000ull, 0xfedcba9876543210ull,
		UINT64_MAX, 0,
	};
	struct vr vr;
	struct vr_buf b;
	struct vdxg_cs *cs;
	uint64_t rng;
	uint32_t ctx;
	unsigned int i;

	vr_open(&vr);
	rng = vr_seed();
	ctx = vr_ctx(&vr);
	cs = vr_cs();
	vr_buf_init(&vr, &b, 3 * 4096, seg);
	vr_buf_randomize(&b, &rng);
	for (i = 0; i < VTEST_ARRAY_SIZE(values); i++) {
		/* Spread over the object, the last one at its very end. */
		uint32_t off = i + 1 == VTEST_ARRAY_SIZE(values) ?
			       b.size - 8 : i * 4104 % (b.size - 8);

		off &= ~7u;
		vdxg_cs_fence(cs, b.bo, off, DRM_VDXG_ALLOC_WRITE, values[i]);
		memcpy(b.ref + off, &values[i], 8);
	}
	/* The same address twice: the later value stays. */
	vdxg_cs_fence(cs, b.bo, 8, DRM_VDXG_ALLOC_WRITE, 0x1111);
	vdxg_cs_fence(cs, b.bo, 8, DRM_VDXG_ALLOC_WRITE, 0x2222);
	vr_write64(b.ref, 8, 0x2222);
	vr_submit(&vr, ctx, cs, NULL);
	vr_bo_wait(b.bo);
	vr_buf_check(&b, NULL, 0, "fence");
	vdxg_cs_free(cs);
	vr_buf_fini(&b);
	vr_close(&vr);
}

static void test_fence_vram(void)
{
	test_fence(DRM_VDXG_SEGMENT_VRAM);
}

static void test_fence_aperture(void)
{
	test_fence(DRM_VDXG_SEGMENT_APERTURE);
}

/* WAIT on a value already there (an earlier job's FENCE put it). */
static void test_wait_satisfied(void)
{
	struct vdxg_bo *bo;
	struct vdxg_cs *cs;
	uint32_t ctx1, ctx2;
	uint8_t *map;
	struct vr vr;

	vr_open(&vr);
	ctx1 = vr_ctx(&vr);
	ctx2 = vr_ctx(&vr);
	bo = vr_bo(&vr, 4096, DRM_VDXG_SEGMENT_VRAM, 0);
	map = vr_map(bo);
	memset(map, 0, 4096);

	/* Job 1 on one context releases job 2's WAIT on another. */
	cs = vr_cs();
	vdxg_cs_fence(cs, bo, 0, DRM_VDXG_ALLOC_WRITE, 0x100000001ull);
	vr_submit(&vr, ctx1, cs, NULL);
	vdxg_cs_reset(cs);
	vdxg_cs_wait(cs, bo, 0, 0, 0x100000001ull);	/* equal */
	vdxg_cs_wait(cs, bo, 0, 0, 0x100000000ull);	/* below, high dword */
	vdxg_cs_wait(cs, bo, 0, 0, 1);			/* far below */
	vdxg_cs_fence(cs, bo, 64, DRM_VDXG_ALLOC_WRITE, 0xd0e);
	vr_submit(&vr, ctx2, cs, NULL);
	vr_bo_wait(bo);
	vtest_assert_eq_u64(vr_read64(map, 64), 0xd0e);
	vdxg_cs_free(cs);
	vdxg_bo_free(bo);
	vr_close(&vr);
}

/*
 * WAIT until the CPU writes the value: the job stays busy, and the FENCE
 * after the WAIT does not land, while the value is below the operand,
 * including one that a 32-bit comparison would take as above it.
 */
static void test_wait_cpu_release(uint32_t seg)
{
	const uint64_t target = 0x100000000ull;
	struct vdxg_bo *bo;
	struct vdxg_cs *cs;
	uint8_t *map;
	struct vr vr;
	uint32_t ctx;

	vr_open(&vr);
	ctx = vr_ctx(&vr);
	bo = vr_bo(&vr, 4096, seg, 0);
	map = vr_map(bo);
	memset(map, 0, 4096);

	cs = vr_cs();
	vdxg_cs_fence(cs, bo, 16, DRM_VDXG_ALLOC_WRITE, 1);
	vdxg_cs_wait(cs, bo, 0, 0, target);
	vdxg_cs_fence(cs, bo, 8, DRM_VDXG_ALLOC_WRITE, 0xabcdef);
	vr_submit(&vr, ctx, cs, NULL);

	/*
	 * It did start; then it has had 150 ms to pass its WAIT wrongly
	 * (well below the job timeout, job_timeout_ms, 2 s by default).
	 */
	vr_wait64(map, 16, 1, "the FENCE before the WAIT");
	vr_sleep_ms(150);
	vtest_assert_f(!vr_bo_idle(bo), "the job finished past its WAIT");
	vtest_assert_eq_u64(vr_read64(map, 8), 0);
	vr_write64(map, 0, target - 1);
	vr_sleep_ms(150);
	vtest_assert_f(!vr_bo_idle(bo), "WAIT passed on a smaller value");
	vtest_assert_eq_u64(vr_read64(map, 8), 0);

	vr_write64(map, 0, target);
	vr_bo_wait(bo);
	vtest_assert_eq_u64(vr_read64(map, 8), 0xabcdef);
	vdxg_cs_free(cs);
	vdxg_bo_free(bo);
	vr_close(&vr);
}

static void test_wait_cpu_release_vram(void)
{
	test_wait_cpu_release(DRM_VDXG_SEGMENT_VRAM);
}

static void test_wait_cpu_release_aperture(void)
{
	test_wait_cpu_release(DRM_VDXG_SEGMENT_APERTURE);
}

/* ------------------------------------------------------------ subtests */

#define V(op, fname, fmt, sname, seg) \
	static void t_##op##_##fname##_##sname(void) { test_##op(fmt, seg); }
#define VARIANTS(op) \
	V(op, xrgb8888, VDXG_FMT_XRGB8888, vram, DRM_VDXG_SEGMENT_VRAM) \
	V(op, argb8888, VDXG_FMT_ARGB8888, vram, DRM_VDXG_SEGMENT_VRAM) \
	V(op, rgb565, VDXG_FMT_RGB565, vram, DRM_VDXG_SEGMENT_VRAM) \
	V(op, xrgb8888, VDXG_FMT_XRGB8888, aperture, DRM_VDXG_SEGMENT_APERTURE) \
	V(op, argb8888, VDXG_FMT_ARGB8888, aperture, DRM_VDXG_SEGMENT_APERTURE) \
	V(op, rgb565, VDXG_FMT_RGB565, aperture, DRM_VDXG_SEGMENT_APERTURE)

VARIANTS(fill_rect)
VARIANTS(copy_rect)
VARIANTS(blend)
VARIANTS(draw_flat)
VARIANTS(draw_interp)
VARIANTS(draw_tex_nearest)
VARIANTS(draw_tex_bilinear)
VARIANTS(draw_depth)
VARIANTS(draw_random)
VARIANTS(sequence)

#define E(op, name, fname, sname, desc) \
	{ name "-" #fname "-" #sname, t_##op##_##fname##_##sname, desc },
#define ENTRIES(op, name, desc) \
	E(op, name, xrgb8888, vram, desc) \
	E(op, name, argb8888, vram, desc) \
	E(op, name, rgb565, vram, desc) \
	E(op, name, xrgb8888, aperture, desc) \
	E(op, name, argb8888, aperture, desc) \
	E(op, name, rgb565, aperture, desc)

static void t_draw_max_coords(void)
{
	test_draw_max_coords(VDXG_FMT_XRGB8888, DRM_VDXG_SEGMENT_VRAM);
}

static const struct vtest_subtest subtests[] = {
	{ "fence-vram", test_fence_vram,
	  "FENCE writes 64-bit values, nothing else, in VRAM" },
	{ "fence-aperture", test_fence_aperture,
	  "FENCE writes 64-bit values, nothing else, in the aperture" },
	{ "wait-satisfied", test_wait_satisfied,
	  "WAIT on a value an earlier job wrote goes on at once" },
	{ "wait-cpu-release-vram", test_wait_cpu_release_vram,
	  "WAIT holds the engine until the CPU writes the value (VRAM)" },
	{ "wait-cpu-release-aperture", test_wait_cpu_release_aperture,
	  "WAIT holds the engine until the CPU writes the value (aperture)" },
	ENTRIES(fill_rect, "fill-rect",
		"FILL_RECT rectangles, empty ones included, vs vdxg_ref")
	ENTRIES(copy_rect, "copy-rect",
		"COPY_RECT across formats and segments, and overlapping")
	ENTRIES(blend, "blend",
		"BLEND with constant and per-pixel alpha, and overlapping")
	ENTRIES(draw_flat, "draw-flat",
		"flat triangles: fill rule, winding, clipping, degenerate")
	ENTRIES(draw_interp, "draw-interp",
		"triangles with interpolated vertex colours")
	ENTRIES(draw_tex_nearest, "draw-tex-nearest",
		"textured triangles, nearest sampling with clamping")
	ENTRIES(draw_tex_bilinear, "draw-tex-bilinear",
		"textured triangles, bilinear sampling with clamping")
	ENTRIES(draw_depth, "draw-depth",
		"depth test and write, each alone and together")
	ENTRIES(draw_random, "draw-random",
		"random triangle scenes with every flag combination")
	ENTRIES(sequence, "sequence",
		"all commands in one buffer, each seeing the previous result")
	{ "draw-max-coords", t_draw_max_coords,
	  "vertices at the largest coordinates the engine takes" },
};

VTEST_MAIN(subtests)
