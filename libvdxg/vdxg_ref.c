// SPDX-License-Identifier: MIT
/*
 * vdxg_ref: the RENDER engine's pixel arithmetic, per docs/hardware.md
 * ("DMA buffers (the RENDER engine's command set)"). See vdxg_ref.h.
 *
 * Every step below is the spec's, in its order and with its integer
 * arithmetic: 64-bit products, '>>' arithmetic, '/' truncating. Products
 * that could exceed 64 bits for extreme (but valid) vertices wrap modulo
 * 2^64, as an int64_t product does in a build with -fwrapv.
 */
#include "vdxg_ref_hw.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "vdxg_ref.h"

/* ------------------------------------------------------------------ pixels */

static uint32_t ref_cpp(uint32_t format)
{
	return format == VDXG_FMT_RGB565 ? 2 : 4;
}

static uint8_t *ref_pixel(const struct vdxg_ref_surface *s, uint32_t x,
			  uint32_t y)
{
	return (uint8_t *)s->data + (size_t)y * s->pitch +
	       (size_t)x * ref_cpp(s->format);
}

/* The stored value, little endian, whatever the host's byte order. */
static uint32_t ref_load(const struct vdxg_ref_surface *s, uint32_t x,
			 uint32_t y)
{
	const uint8_t *p = ref_pixel(s, x, y);

	if (ref_cpp(s->format) == 2)
		return (uint32_t)p[0] | (uint32_t)p[1] << 8;
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void ref_store(struct vdxg_ref_surface *s, uint32_t x, uint32_t y,
		      uint32_t v)
{
	uint8_t *p = ref_pixel(s, x, y);

	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	if (ref_cpp(s->format) == 2)
		return;
	p[2] = (v >> 16) & 0xff;
	p[3] = v >> 24;
}

uint32_t vdxg_ref_read(const struct vdxg_ref_surface *s, uint32_t x,
		       uint32_t y)
{
	uint32_t v = ref_load(s, x, y), r5, g6, b5;

	switch (s->format) {
	case VDXG_FMT_XRGB8888:
		return v | 0xff000000u;
	case VDXG_FMT_RGB565:
		r5 = (v >> 11) & 0x1f;
		g6 = (v >> 5) & 0x3f;
		b5 = v & 0x1f;
		return 0xff000000u | ((r5 << 3 | r5 >> 2) << 16) |
		       ((g6 << 2 | g6 >> 4) << 8) | (b5 << 3 | b5 >> 2);
	case VDXG_FMT_ARGB8888:
	case VDXG_FMT_D32:
	default:
		return v;
	}
}

void vdxg_ref_write(struct vdxg_ref_surface *s, uint32_t x, uint32_t y,
		    uint32_t argb)
{
	uint32_t r = (argb >> 16) & 0xff, g = (argb >> 8) & 0xff, b = argb & 0xff;

	switch (s->format) {
	case VDXG_FMT_XRGB8888:
		ref_store(s, x, y, argb | 0xff000000u);
		break;
	case VDXG_FMT_RGB565:
		ref_store(s, x, y, (r >> 3) << 11 | (g >> 2) << 5 | b >> 3);
		break;
	case VDXG_FMT_ARGB8888:
	case VDXG_FMT_D32:
	default:
		ref_store(s, x, y, argb);
		break;
	}
}

uint32_t vdxg_ref_div255(uint32_t v)
{
	return (v + 127) / 255;
}

/* ------------------------------------------------------------ rectangles */

void vdxg_ref_fill_rect(struct vdxg_ref_surface *dst, uint32_t x, uint32_t y,
			uint32_t w, uint32_t h, uint32_t argb)
{
	uint32_t i, j;

	for (j = 0; j < h; j++)
		for (i = 0; i < w; i++)
			vdxg_ref_write(dst, x + i, y + j, argb);
}

/* BLEND of source pixel s over destination pixel d. */
static uint32_t ref_blend_pixel(uint32_t s, uint32_t d, uint32_t alpha)
{
	uint32_t a = vdxg_ref_div255((s >> 24) * alpha);
	uint32_t out = (a + vdxg_ref_div255((d >> 24) * (255 - a))) << 24;
	int c;

	for (c = 16; c >= 0; c -= 8) {
		uint32_t sc = (s >> c) & 0xff, dc = (d >> c) & 0xff;

		out |= vdxg_ref_div255(sc * a + dc * (255 - a)) << c;
	}
	return out;
}

/* One pixel of COPY_RECT (blend false) or BLEND, source colour given. */
static void ref_rect_pixel(struct vdxg_ref_surface *dst, uint32_t x,
			   uint32_t y, uint32_t s, int blend, uint32_t alpha)
{
	if (blend)
		s = ref_blend_pixel(s, vdxg_ref_read(dst, x, y), alpha);
	vdxg_ref_write(dst, x, y, s);
}

static uintptr_t ref_rect_start(const struct vdxg_ref_surface *s, uint32_t x,
				uint32_t y)
{
	return (uintptr_t)ref_pixel(s, x, y);
}

/* Bytes from the rectangle's first pixel to the end of its last. */
static uintptr_t ref_rect_span(const struct vdxg_ref_surface *s, uint32_t w,
			       uint32_t h)
{
	return (uintptr_t)(h - 1) * s->pitch + (uintptr_t)w * ref_cpp(s->format);
}

/*
 * COPY_RECT and BLEND: the source rectangle is read in full before the
 * destination is written when their bytes overlap.
 */
static void ref_rect_op(struct vdxg_ref_surface *dst,
			const struct vdxg_ref_surface *src, uint32_t sx,
			uint32_t sy, uint32_t dx, uint32_t dy, uint32_t w,
			uint32_t h, int blend, uint32_t alpha)
{
	uintptr_t s0, d0, s1, d1;
	uint32_t i, j, *tmp;

	if (!w || !h)
		return;
	s0 = ref_rect_start(src, sx, sy);
	d0 = ref_rect_start(dst, dx, dy);
	s1 = s0 + ref_rect_span(src, w, h);
	d1 = d0 + ref_rect_span(dst, w, h);

	if (s1 <= d0 || d1 <= s0) {
		/* Disjoint. */
		for (j = 0; j < h; j++)
			for (i = 0; i < w; i++)
				ref_rect_pixel(dst, dx + i, dy + j,
					       vdxg_ref_read(src, sx + i, sy + j),
					       blend, alpha);
		return;
	}

	if (ref_cpp(src->format) == ref_cpp(dst->format) &&
	    src->pitch == dst->pitch &&
	    (d0 > s0 ? d0 - s0 : s0 - d0) % ref_cpp(src->format) == 0) {
		/*
		 * Same layout, pixels aligned on each other: as memmove, walk
		 * away from the overlap. Each destination pixel then overlaps
		 * at most one source pixel, which has been read already.
		 */
		if (d0 > s0) {
			for (j = h; j-- > 0;)
				for (i = w; i-- > 0;)
					ref_rect_pixel(dst, dx + i, dy + j,
						       vdxg_ref_read(src, sx + i,
								     sy + j),
						       blend, alpha);
		} else {
			for (j = 0; j < h; j++)
				for (i = 0; i < w; i++)
					ref_rect_pixel(dst, dx + i, dy + j,
						       vdxg_ref_read(src, sx + i,
								     sy + j),
						       blend, alpha);
		}
		return;
	}

	/* Any other overlap: read the source into a copy first. */
	tmp = malloc((size_t)w * h * sizeof(*tmp));
	if (!tmp)
		return;
	for (j = 0; j < h; j++)
		for (i = 0; i < w; i++)
			tmp[(size_t)j * w + i] = vdxg_ref_read(src, sx + i, sy + j);
	for (j = 0; j < h; j++)
		for (i = 0; i < w; i++)
			ref_rect_pixel(dst, dx + i, dy + j,
				       tmp[(size_t)j * w + i], blend, alpha);
	free(tmp);
}

void vdxg_ref_copy_rect(struct vdxg_ref_surface *dst,
			const struct vdxg_ref_surface *src, uint32_t sx,
			uint32_t sy, uint32_t dx, uint32_t dy, uint32_t w,
			uint32_t h)
{
	ref_rect_op(dst, src, sx, sy, dx, dy, w, h, 0, 0);
}

void vdxg_ref_blend(struct vdxg_ref_surface *dst,
		    const struct vdxg_ref_surface *src, uint32_t sx,
		    uint32_t sy, uint32_t dx, uint32_t dy, uint32_t w,
		    uint32_t h, uint32_t alpha)
{
	ref_rect_op(dst, src, sx, sy, dx, dy, w, h, 1, alpha);
}

/* ------------------------------------------------------------- triangles */

struct ref_vertex {
	int64_t x, y;		/* 28.4 */
	int64_t z;		/* u32 */
	uint32_t color;		/* ARGB8888 */
	int64_t u, v;		/* s32, 16.16 */
};

/* 64-bit products and sums that wrap instead of being undefined. */
static int64_t ref_mul(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a * (uint64_t)b);
}

static int64_t ref_add(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

static int64_t ref_sub(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}

static void ref_vertex_load(struct ref_vertex *v, const uint32_t *dw)
{
	v->x = (int32_t)dw[VDXG_VTX_DW_X];
	v->y = (int32_t)dw[VDXG_VTX_DW_Y];
	v->z = dw[VDXG_VTX_DW_Z];
	v->color = dw[VDXG_VTX_DW_COLOR];
	v->u = (int32_t)dw[VDXG_VTX_DW_U];
	v->v = (int32_t)dw[VDXG_VTX_DW_V];
}

/* Step 1: E(a, b, p). */
static int64_t ref_edge(const struct ref_vertex *a, const struct ref_vertex *b,
			int64_t px, int64_t py)
{
	return (b->x - a->x) * (py - a->y) - (b->y - a->y) * (px - a->x);
}

/* Step 4: does edge a -> b own the pixels on it? */
static int ref_owns(const struct ref_vertex *a, const struct ref_vertex *b)
{
	int64_t dx = b->x - a->x, dy = b->y - a->y;

	return dy < 0 || (dy == 0 && dx > 0);
}

static int ref_inside(int64_t w, int owns)
{
	return w > 0 || (w == 0 && owns);
}

/* Floor and ceiling of a / 16. */
static int64_t ref_floor16(int64_t a)
{
	return a >= 0 ? a / 16 : -((-a + 15) / 16);
}

static int64_t ref_ceil16(int64_t a)
{
	return -ref_floor16(-a);
}

/* Step 5: interp(a0, a1, a2). */
static int64_t ref_interp(int64_t a0, int64_t a1, int64_t a2,
			  const int64_t b[3])
{
	int64_t s = ref_add(ref_add(ref_mul(a0, b[0]), ref_mul(a1, b[1])),
			    ref_add(ref_mul(a2, b[2]), 32768));

	return s >> 16;
}

static uint32_t ref_interp_color(const struct ref_vertex *v[3],
				 const int64_t b[3])
{
	uint32_t out = 0;
	int c;

	for (c = 24; c >= 0; c -= 8) {
		int64_t ch = ref_interp((v[0]->color >> c) & 0xff,
					(v[1]->color >> c) & 0xff,
					(v[2]->color >> c) & 0xff, b);

		out |= (uint32_t)(ch & 0xff) << c;
	}
	return out;
}

static int64_t ref_clamp(int64_t i, uint32_t n)
{
	if (i < 0)
		return 0;
	if (i > (int64_t)n - 1)
		return (int64_t)n - 1;
	return i;
}

static uint32_t ref_texel(const struct vdxg_ref_surface *tex, int64_t x,
			  int64_t y)
{
	return vdxg_ref_read(tex, (uint32_t)ref_clamp(x, tex->width),
			     (uint32_t)ref_clamp(y, tex->height));
}

/* Step 7: the texture sample at (u, v). */
static uint32_t ref_sample(const struct vdxg_ref_surface *tex, int bilinear,
			   int64_t u, int64_t v)
{
	int64_t uu, vv, x0, y0;
	uint32_t fx, fy, t00, t10, t01, t11, out = 0;
	int c;

	if (!bilinear)
		return ref_texel(tex, u >> 16, v >> 16);

	uu = u - 32768;
	vv = v - 32768;
	x0 = uu >> 16;
	y0 = vv >> 16;
	fx = (uint32_t)((uu >> 8) & 255);
	fy = (uint32_t)((vv >> 8) & 255);
	t00 = ref_texel(tex, x0, y0);
	t10 = ref_texel(tex, x0 + 1, y0);
	t01 = ref_texel(tex, x0, y0 + 1);
	t11 = ref_texel(tex, x0 + 1, y0 + 1);
	for (c = 24; c >= 0; c -= 8) {
		uint64_t top = (uint64_t)((t00 >> c) & 0xff) * (256 - fx) +
			       (uint64_t)((t10 >> c) & 0xff) * fx;
		uint64_t bot = (uint64_t)((t01 >> c) & 0xff) * (256 - fx) +
			       (uint64_t)((t11 >> c) & 0xff) * fx;
		uint64_t t = (top * (256 - fy) + bot * fy + 32768) >> 16;

		out |= (uint32_t)(t & 0xff) << c;
	}
	return out;
}

/* Step 7, last part: out.c = div255(t.c * col.c), alpha included. */
static uint32_t ref_modulate(uint32_t t, uint32_t col)
{
	uint32_t out = 0;
	int c;

	for (c = 24; c >= 0; c -= 8)
		out |= vdxg_ref_div255(((t >> c) & 0xff) * ((col >> c) & 0xff))
		       << c;
	return out;
}

static void ref_triangle(struct vdxg_ref_surface *dst,
			 struct vdxg_ref_surface *depth,
			 const struct vdxg_ref_surface *tex, uint32_t flags,
			 const uint32_t *dw)
{
	struct ref_vertex vtx[3];
	const struct ref_vertex *v[3];
	int64_t area, minx, maxx, miny, maxy, x0, x1, y0, y1, px, py;
	int own0, own1, own2, i;

	for (i = 0; i < 3; i++) {
		ref_vertex_load(&vtx[i], dw + i * (VDXG_VERTEX_SIZE / 4));
		v[i] = &vtx[i];
	}

	/* Step 2. */
	area = ref_edge(v[0], v[1], v[2]->x, v[2]->y);
	if (area == 0)
		return;
	if (area < 0) {
		v[1] = &vtx[2];
		v[2] = &vtx[1];
		area = -area;
	}

	/* Step 3: pixel centres 16 p + 8 inside the bounding box. */
	minx = maxx = v[0]->x;
	miny = maxy = v[0]->y;
	for (i = 1; i < 3; i++) {
		minx = v[i]->x < minx ? v[i]->x : minx;
		maxx = v[i]->x > maxx ? v[i]->x : maxx;
		miny = v[i]->y < miny ? v[i]->y : miny;
		maxy = v[i]->y > maxy ? v[i]->y : maxy;
	}
	x0 = ref_ceil16(minx - 8);
	x1 = ref_floor16(maxx - 8);
	y0 = ref_ceil16(miny - 8);
	y1 = ref_floor16(maxy - 8);
	if (x0 < 0)
		x0 = 0;
	if (y0 < 0)
		y0 = 0;
	if (x1 > (int64_t)dst->width - 1)
		x1 = (int64_t)dst->width - 1;
	if (y1 > (int64_t)dst->height - 1)
		y1 = (int64_t)dst->height - 1;

	/* Step 4: w0 is edge v1 -> v2, w1 v2 -> v0, w2 v0 -> v1. */
	own0 = ref_owns(v[1], v[2]);
	own1 = ref_owns(v[2], v[0]);
	own2 = ref_owns(v[0], v[1]);

	for (py = y0; py <= y1; py++) {
		for (px = x0; px <= x1; px++) {
			int64_t cx = 16 * px + 8, cy = 16 * py + 8;
			int64_t w0 = ref_edge(v[1], v[2], cx, cy);
			int64_t w1 = ref_edge(v[2], v[0], cx, cy);
			int64_t w2 = ref_edge(v[0], v[1], cx, cy);
			int64_t b[3];
			uint32_t z, col;

			if (!ref_inside(w0, own0) || !ref_inside(w1, own1) ||
			    !ref_inside(w2, own2))
				continue;

			/* Step 5. */
			b[1] = ref_mul(w1, 65536) / area;
			b[2] = ref_mul(w2, 65536) / area;
			b[0] = ref_sub(ref_sub(65536, b[1]), b[2]);

			/* Step 6. */
			z = (uint32_t)ref_interp(v[0]->z, v[1]->z, v[2]->z, b);
			if ((flags & VDXG_DRAW_DEPTH_TEST) &&
			    !(z < vdxg_ref_read(depth, (uint32_t)px,
						(uint32_t)py)))
				continue;
			if (flags & VDXG_DRAW_DEPTH_WRITE)
				vdxg_ref_write(depth, (uint32_t)px,
					       (uint32_t)py, z);

			/* Steps 7 and 8. */
			col = ref_interp_color(v, b);
			if (flags & VDXG_DRAW_TEXTURE) {
				int64_t u = (int32_t)ref_interp(v[0]->u, v[1]->u,
								v[2]->u, b);
				int64_t tv = (int32_t)ref_interp(v[0]->v,
								 v[1]->v,
								 v[2]->v, b);

				col = ref_modulate(ref_sample(tex,
						!!(flags & VDXG_DRAW_BILINEAR),
						u, tv), col);
			}
			vdxg_ref_write(dst, (uint32_t)px, (uint32_t)py, col);
		}
	}
}

void vdxg_ref_draw_triangles(struct vdxg_ref_surface *dst,
			     struct vdxg_ref_surface *depth,
			     const struct vdxg_ref_surface *tex,
			     uint32_t flags, const uint32_t *vertices,
			     uint32_t count)
{
	uint32_t t;

	for (t = 0; t + 3 <= count; t += 3)
		ref_triangle(dst, depth, tex, flags,
			     vertices + (size_t)t * (VDXG_VERTEX_SIZE / 4));
}
