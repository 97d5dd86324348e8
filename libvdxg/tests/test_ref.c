// SPDX-License-Identifier: MIT
/*
 * libvdxg-ref-test: self-checks of the reference renderer (vdxg_ref.c)
 * against values worked out by hand from docs/hardware.md, and against
 * properties the spec states (the fill rule draws a shared edge once).
 * Runs on the host: make -C libvdxg check.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BIT(n) (1u << (n))
#define BIT_ULL(n) (1ull << (n))
#include "vdxg_hw.h"

#include "vdxg_ref.h"
#include "vtest.h"

/* ------------------------------------------------------------ helpers */

#define GUARD 0xa5

/* A surface with guard bytes around it and in its pitch padding. */
struct tsurf {
	struct vdxg_ref_surface s;
	uint8_t *mem;
	size_t size;	/* bytes from data: pitch * height */
};

static uint32_t cpp(uint32_t format)
{
	return format == VDXG_FMT_RGB565 ? 2 : 4;
}

static void tsurf_init(struct tsurf *t, uint32_t format, uint32_t w,
		       uint32_t h, uint32_t pitch)
{
	if (!pitch)
		pitch = w * cpp(format);
	t->size = (size_t)pitch * h;
	t->mem = malloc(t->size + 128);
	vtest_assert(t->mem);
	memset(t->mem, GUARD, t->size + 128);
	t->s.data = t->mem + 64;
	t->s.format = format;
	t->s.width = w;
	t->s.height = h;
	t->s.pitch = pitch;
}

static void tsurf_fini(struct tsurf *t)
{
	free(t->mem);
}

/* Guards before and after, and the padding right of each row, untouched. */
static void tsurf_check_guards(const struct tsurf *t)
{
	size_t i, row = (size_t)t->s.width * cpp(t->s.format);
	uint32_t y;

	for (i = 0; i < 64; i++) {
		vtest_assert_eq(t->mem[i], GUARD);
		vtest_assert_eq(t->mem[64 + t->size + i], GUARD);
	}
	for (y = 0; y < t->s.height; y++)
		for (i = row; i < t->s.pitch; i++)
			vtest_assert_f(t->mem[64 + (size_t)y * t->s.pitch + i] ==
				       GUARD, "padding byte %zu of row %u", i, y);
}

static void tsurf_clear(struct tsurf *t, uint32_t argb)
{
	vdxg_ref_fill_rect(&t->s, 0, 0, t->s.width, t->s.height, argb);
}

static uint32_t raw32(const struct tsurf *t, uint32_t x, uint32_t y)
{
	const uint8_t *p = (const uint8_t *)t->s.data + (size_t)y * t->s.pitch +
			   (size_t)x * 4;

	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t raw16(const struct tsurf *t, uint32_t x, uint32_t y)
{
	const uint8_t *p = (const uint8_t *)t->s.data + (size_t)y * t->s.pitch +
			   (size_t)x * 2;

	return p[0] | p[1] << 8;
}

#define ASSERT_PIXEL(t, x, y, want)					\
	do {								\
		uint32_t __got = vdxg_ref_read(&(t)->s, (x), (y));	\
		vtest_assert_f(__got == (uint32_t)(want),		\
			       "pixel (%u, %u) is 0x%08x, want 0x%08x",	\
			       (unsigned int)(x), (unsigned int)(y), __got, \
			       (uint32_t)(want));			\
	} while (0)

/* Vertex in pixels * 16 (28.4). */
static void vtx(uint32_t *v, int32_t x, int32_t y, uint32_t z, uint32_t color,
		int32_t u, int32_t tv)
{
	v[VDXG_VTX_DW_X] = (uint32_t)x;
	v[VDXG_VTX_DW_Y] = (uint32_t)y;
	v[VDXG_VTX_DW_Z] = z;
	v[VDXG_VTX_DW_COLOR] = color;
	v[VDXG_VTX_DW_U] = (uint32_t)u;
	v[VDXG_VTX_DW_V] = (uint32_t)tv;
	v[6] = 0xdeadbeef;	/* ignored dwords */
	v[7] = 0xffffffff;
}

/* One triangle, flat attributes except position. */
static void tri(uint32_t *v, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
		int32_t x2, int32_t y2, uint32_t z, uint32_t color)
{
	vtx(v, x0, y0, z, color, 0, 0);
	vtx(v + 8, x1, y1, z, color, 0, 0);
	vtx(v + 16, x2, y2, z, color, 0, 0);
}

/* Pixels of the whole surface different from BG. */
static unsigned int count_not(const struct tsurf *t, uint32_t bg)
{
	unsigned int n = 0;
	uint32_t x, y;

	for (y = 0; y < t->s.height; y++)
		for (x = 0; x < t->s.width; x++)
			n += vdxg_ref_read(&t->s, x, y) != bg;
	return n;
}

/* -------------------------------------------------------------- pixels */

static void test_formats(void)
{
	struct tsurf t;

	/* XRGB8888: the top byte is stored as 0xff and read as 0xff. */
	tsurf_init(&t, VDXG_FMT_XRGB8888, 3, 2, 16);
	vdxg_ref_write(&t.s, 2, 1, 0x12345678);
	vtest_assert_eq_u64(raw32(&t, 2, 1), 0xff345678);
	ASSERT_PIXEL(&t, 2, 1, 0xff345678);
	tsurf_check_guards(&t);
	tsurf_fini(&t);

	/* ARGB8888: as is, little endian. */
	tsurf_init(&t, VDXG_FMT_ARGB8888, 3, 2, 0);
	vdxg_ref_write(&t.s, 1, 1, 0x12345678);
	vtest_assert_eq(((uint8_t *)t.s.data)[12 + 4], 0x78);
	vtest_assert_eq(((uint8_t *)t.s.data)[12 + 7], 0x12);
	ASSERT_PIXEL(&t, 1, 1, 0x12345678);
	tsurf_check_guards(&t);
	tsurf_fini(&t);

	/*
	 * RGB565: r 0x34 >> 3 = 6, g 0x56 >> 2 = 0x15, b 0x78 >> 3 = 0xf:
	 * 0x32af. Read back: r 6 << 3 | 6 >> 2 = 0x31, g 0x15 << 2 | 0x15 >> 4
	 * = 0x55, b 0xf << 3 | 0xf >> 2 = 0x7b, alpha 0xff.
	 */
	tsurf_init(&t, VDXG_FMT_RGB565, 5, 3, 12);
	vdxg_ref_write(&t.s, 4, 2, 0x12345678);
	vtest_assert_eq_u64(raw16(&t, 4, 2), 0x32af);
	vtest_assert_eq(((uint8_t *)t.s.data)[24 + 8], 0xaf);
	ASSERT_PIXEL(&t, 4, 2, 0xff31557b);
	vdxg_ref_write(&t.s, 0, 0, 0x00ffffff);
	vtest_assert_eq_u64(raw16(&t, 0, 0), 0xffff);
	ASSERT_PIXEL(&t, 0, 0, 0xffffffff);
	tsurf_check_guards(&t);
	tsurf_fini(&t);

	/* D32: a raw 32-bit value both ways. */
	tsurf_init(&t, VDXG_FMT_D32, 2, 2, 0);
	vdxg_ref_write(&t.s, 1, 0, 0x00c0ffee);
	vtest_assert_eq_u64(raw32(&t, 1, 0), 0x00c0ffee);
	ASSERT_PIXEL(&t, 1, 0, 0x00c0ffee);
	tsurf_fini(&t);
}

static void test_fill_each_format(void)
{
	static const struct {
		uint32_t format, color, read, raw;
	} cases[] = {
		{ VDXG_FMT_XRGB8888, 0x80102030, 0xff102030, 0xff102030 },
		{ VDXG_FMT_ARGB8888, 0x80102030, 0x80102030, 0x80102030 },
		/* 0x10 >> 3 = 2, 0x20 >> 2 = 8, 0x30 >> 3 = 6 */
		{ VDXG_FMT_RGB565, 0x80102030, 0xff102031, 0x1106 },
		{ VDXG_FMT_D32, 0x80102030, 0x80102030, 0x80102030 },
	};
	size_t i;

	for (i = 0; i < VTEST_ARRAY_SIZE(cases); i++) {
		uint32_t x, y, w = 13, h = 7, c = cases[i].format;
		struct tsurf t;

		tsurf_init(&t, c, w, h, w * cpp(c) + 12);
		tsurf_clear(&t, 0);
		vdxg_ref_fill_rect(&t.s, 3, 2, 9, 4, cases[i].color);
		/* w or h of 0 does nothing */
		vdxg_ref_fill_rect(&t.s, 0, 0, 0, 5, 0xffffffff);
		vdxg_ref_fill_rect(&t.s, 0, 0, 5, 0, 0xffffffff);
		for (y = 0; y < h; y++) {
			for (x = 0; x < w; x++) {
				int in = x >= 3 && x < 12 && y >= 2 && y < 6;
				uint32_t raw = cpp(c) == 2 ? raw16(&t, x, y) :
					       raw32(&t, x, y);
				uint32_t zero = c == VDXG_FMT_XRGB8888 ?
						0xff000000 : 0;

				vtest_assert_f(raw == (in ? cases[i].raw : zero),
					       "format %u (%u, %u) raw 0x%x", c,
					       x, y, raw);
				if (in)
					ASSERT_PIXEL(&t, x, y, cases[i].read);
			}
		}
		tsurf_check_guards(&t);
		tsurf_fini(&t);
	}
}

static void test_rgb565_round_trip(void)
{
	struct tsurf t;
	uint32_t v, c;

	tsurf_init(&t, VDXG_FMT_RGB565, 1, 1, 4);
	/* Every stored value reads and writes back to itself. */
	for (v = 0; v < 0x10000; v++) {
		uint32_t argb;

		((uint8_t *)t.s.data)[0] = v & 0xff;
		((uint8_t *)t.s.data)[1] = v >> 8;
		argb = vdxg_ref_read(&t.s, 0, 0);
		vtest_assert_eq(argb >> 24, 0xff);
		vdxg_ref_write(&t.s, 0, 0, argb);
		vtest_assert_f(raw16(&t, 0, 0) == v, "0x%04x -> 0x%08x -> 0x%04x",
			       v, argb, raw16(&t, 0, 0));
	}
	/* Expansion replicates the top bits: 0 -> 0, max -> 0xff. */
	for (c = 0; c < 256; c++) {
		uint32_t r, g, b;

		vdxg_ref_write(&t.s, 0, 0, c << 16 | c << 8 | c);
		v = vdxg_ref_read(&t.s, 0, 0);
		r = (v >> 16) & 0xff;
		g = (v >> 8) & 0xff;
		b = v & 0xff;
		vtest_assert_eq(r >> 3, c >> 3);
		vtest_assert_eq(g >> 2, c >> 2);
		vtest_assert_eq(b, r);
		vtest_assert_eq(r & 7, r >> 5);
		vtest_assert_eq(g & 3, g >> 6);
	}
	tsurf_check_guards(&t);
	tsurf_fini(&t);
}

/* --------------------------------------------------------- copy, blend */

static void test_div255(void)
{
	uint32_t x, y;

	vtest_assert_eq(vdxg_ref_div255(0), 0);
	vtest_assert_eq(vdxg_ref_div255(127), 0);
	vtest_assert_eq(vdxg_ref_div255(128), 1);
	vtest_assert_eq(vdxg_ref_div255(255 * 255), 255);
	/* x * y / 255 rounded to nearest (never a tie: 255 is odd). */
	for (x = 0; x < 256; x++)
		for (y = 0; y < 256; y++)
			vtest_assert_eq(vdxg_ref_div255(x * y),
					(2 * x * y + 255) / 510);
}

static void test_copy_convert(void)
{
	struct tsurf a, b;
	uint32_t x, y;

	tsurf_init(&a, VDXG_FMT_ARGB8888, 8, 8, 0);
	tsurf_init(&b, VDXG_FMT_RGB565, 10, 10, 24);
	tsurf_clear(&b, 0);
	for (y = 0; y < 8; y++)
		for (x = 0; x < 8; x++)
			vdxg_ref_write(&a.s, x, y, 0x11000000 * (x & 1) |
				       (x * 32) << 16 | (y * 32) << 8 | 0x3c);
	vdxg_ref_copy_rect(&b.s, &a.s, 1, 2, 4, 5, 6, 5);
	for (y = 0; y < 10; y++) {
		for (x = 0; x < 10; x++) {
			uint32_t want = 0;

			if (x >= 4 && y >= 5) {
				uint32_t s = vdxg_ref_read(&a.s, x - 3, y - 3);

				want = ((s >> 19) & 0x1f) << 11 |
				       ((s >> 10) & 0x3f) << 5 | ((s >> 3) & 0x1f);
			}
			vtest_assert_f(raw16(&b, x, y) == want,
				       "(%u, %u) 0x%04x want 0x%04x", x, y,
				       raw16(&b, x, y), want);
		}
	}
	/* RGB565 to XRGB8888 expands and sets alpha. */
	vdxg_ref_copy_rect(&a.s, &b.s, 4, 5, 0, 0, 1, 1);
	vtest_assert_eq_u64(raw32(&a, 0, 0), vdxg_ref_read(&b.s, 4, 5));
	vtest_assert_eq(raw32(&a, 0, 0) >> 24, 0xff);
	tsurf_check_guards(&a);
	tsurf_check_guards(&b);
	tsurf_fini(&a);
	tsurf_fini(&b);
}

/*
 * COPY_RECT with overlapping memory equals copying from a snapshot of the
 * source. Cases: same surface shifted all four ways, a diagonal, and two
 * views with different formats and pitches over the same bytes.
 */
static void check_overlap(struct vdxg_ref_surface *dst,
			  struct vdxg_ref_surface *src, uint8_t *mem,
			  size_t size, uint32_t sx, uint32_t sy, uint32_t dx,
			  uint32_t dy, uint32_t w, uint32_t h, int blend)
{
	uint8_t *snap = malloc(size), *want = malloc(size);
	struct vdxg_ref_surface ssnap = *src, dwant = *dst;
	size_t i;

	vtest_assert(snap && want);
	memcpy(snap, mem, size);
	memcpy(want, mem, size);
	ssnap.data = snap + ((uint8_t *)src->data - mem);
	dwant.data = want + ((uint8_t *)dst->data - mem);
	if (blend) {
		vdxg_ref_blend(&dwant, &ssnap, sx, sy, dx, dy, w, h, 200);
		vdxg_ref_blend(dst, src, sx, sy, dx, dy, w, h, 200);
	} else {
		vdxg_ref_copy_rect(&dwant, &ssnap, sx, sy, dx, dy, w, h);
		vdxg_ref_copy_rect(dst, src, sx, sy, dx, dy, w, h);
	}
	for (i = 0; i < size; i++)
		vtest_assert_f(mem[i] == want[i],
			       "byte %zu: 0x%02x want 0x%02x (src %u,%u dst "
			       "%u,%u %ux%u)", i, mem[i], want[i], sx, sy, dx,
			       dy, w, h);
	free(snap);
	free(want);
}

static void fill_pattern(uint8_t *mem, size_t size)
{
	uint32_t s = 12345;
	size_t i;

	for (i = 0; i < size; i++) {
		s = s * 1103515245 + 12345;
		mem[i] = s >> 16;
	}
}

static void overlap_cases(int blend)
{
	static const uint32_t moves[][4] = {
		{ 0, 0, 3, 0 }, { 3, 0, 0, 0 }, { 0, 0, 0, 2 }, { 0, 2, 0, 0 },
		{ 0, 0, 2, 3 }, { 2, 3, 0, 0 }, { 1, 4, 4, 1 }, { 4, 1, 1, 4 },
	};
	size_t size = 16 * 12 * 4 + 64, k;
	uint8_t *mem = malloc(size);
	struct vdxg_ref_surface a, b;

	vtest_assert(mem);
	for (k = 0; k < VTEST_ARRAY_SIZE(moves); k++) {
		const uint32_t *m = moves[k];

		/* One surface. */
		fill_pattern(mem, size);
		a = (struct vdxg_ref_surface){ mem, VDXG_FMT_ARGB8888, 16, 12, 64 };
		check_overlap(&a, &a, mem, size, m[0], m[1], m[2], m[3], 9, 7,
			      blend);
		/* RGB565 source viewed over the same bytes as the XRGB dst. */
		fill_pattern(mem, size);
		b = (struct vdxg_ref_surface){ mem + 8, VDXG_FMT_RGB565, 20, 12, 40 };
		a.format = VDXG_FMT_XRGB8888;
		check_overlap(&a, &b, mem, size, m[0], m[1], m[2], m[3], 9, 7,
			      blend);
		check_overlap(&b, &a, mem, size, m[0], m[1], m[2], m[3], 9, 7,
			      blend);
		/* Same format, pitches differ. */
		fill_pattern(mem, size);
		b = (struct vdxg_ref_surface){ mem + 4, VDXG_FMT_ARGB8888, 12, 12, 48 };
		check_overlap(&a, &b, mem, size, m[0], m[1], m[2], m[3], 8, 7,
			      blend);
		/* Same layout, one row and one pixel apart. */
		fill_pattern(mem, size);
		b = (struct vdxg_ref_surface){ mem + 68, VDXG_FMT_ARGB8888, 12, 11, 64 };
		check_overlap(&a, &b, mem, size, m[0], m[1], m[2], m[3], 8, 7,
			      blend);
		check_overlap(&b, &a, mem, size, m[0], m[1], m[2], m[3], 8, 7,
			      blend);
		/* Same layout, half a pixel apart. */
		fill_pattern(mem, size);
		b = (struct vdxg_ref_surface){ mem + 2, VDXG_FMT_ARGB8888, 12, 12, 64 };
		check_overlap(&a, &b, mem, size, m[0], m[1], m[2], m[3], 8, 7,
			      blend);
		check_overlap(&b, &a, mem, size, m[0], m[1], m[2], m[3], 8, 7,
			      blend);
	}
	free(mem);
}

static void test_copy_overlap(void)
{
	overlap_cases(0);
}

static void test_blend_overlap(void)
{
	overlap_cases(1);
}

static void test_blend_known(void)
{
	static const struct {
		uint32_t s, d, alpha, want;
	} cases[] = {
		/*
		 * a = div255(128 * 255) = 128; R = div255(255 * 128) = 128;
		 * B = div255(255 * 127) = 127; A = 128 + div255(255 * 127).
		 */
		{ 0x80ff0000, 0xff0000ff, 255, 0xff80007f },
		/* a = div255(128 * 128) = 64; R 64, B div255(255 * 191) = 191 */
		{ 0x80ff0000, 0xff0000ff, 128, 0xff4000bf },
		/* alpha 0: the destination is kept */
		{ 0xffffffff, 0x12345678, 0, 0x12345678 },
		/* opaque source, full alpha: the source */
		{ 0xff102030, 0x00ffffff, 255, 0xff102030 },
		/*
		 * s.A 0x40 alpha 0x80: a = div255(8192) = 32; 255 - a = 223;
		 * A = 32 + div255(0x20 * 223) = 32 + 28 = 60 (0x3c);
		 * R = div255(0xc8 * 32 + 0x10 * 223) = div255(9968) = 39;
		 * G = div255(0x64 * 32 + 0x20 * 223) = div255(10336) = 41;
		 * B = div255(0x0a * 32 + 0xf0 * 223) = div255(53840) = 211.
		 */
		{ 0x40c8640a, 0x201020f0, 0x80, 0x3c2729d3 },
	};
	struct tsurf s, d, x;
	size_t i;

	tsurf_init(&s, VDXG_FMT_ARGB8888, 2, 1, 0);
	tsurf_init(&d, VDXG_FMT_ARGB8888, 2, 1, 0);
	tsurf_init(&x, VDXG_FMT_XRGB8888, 1, 1, 0);
	for (i = 0; i < VTEST_ARRAY_SIZE(cases); i++) {
		vdxg_ref_write(&s.s, 1, 0, cases[i].s);
		vdxg_ref_write(&d.s, 0, 0, cases[i].d);
		vdxg_ref_write(&d.s, 1, 0, 0x5a5a5a5a);
		vdxg_ref_blend(&d.s, &s.s, 1, 0, 0, 0, 1, 1, cases[i].alpha);
		ASSERT_PIXEL(&d, 0, 0, cases[i].want);
		ASSERT_PIXEL(&d, 1, 0, 0x5a5a5a5a);
	}
	/* An XRGB destination reads alpha as 0xff and stores 0xff. */
	vdxg_ref_write(&s.s, 0, 0, 0x80ff0000);
	vdxg_ref_write(&x.s, 0, 0, 0x000000ff);
	vdxg_ref_blend(&x.s, &s.s, 0, 0, 0, 0, 1, 1, 128);
	vtest_assert_eq_u64(raw32(&x, 0, 0), 0xff4000bf);
	tsurf_check_guards(&s);
	tsurf_check_guards(&d);
	tsurf_fini(&s);
	tsurf_fini(&d);
	tsurf_fini(&x);
}

/* ----------------------------------------------------------- triangles */

/*
 * Right triangle (0,0) (8,0) (0,8) in pixels. Centres (16 px + 8, 16 py +
 * 8) with px + py = 7 lie on the hypotenuse v1 -> v2 (dy > 0: not owned),
 * so the covered pixels are px + py <= 6: 28. The other half of the 8x8
 * square owns its edge (v2 -> v0 there goes up): 36.
 */
static void test_triangle_known_coverage(void)
{
	uint32_t v[24];
	struct tsurf t;
	uint32_t x, y;

	tsurf_init(&t, VDXG_FMT_ARGB8888, 10, 10, 0);
	tsurf_clear(&t, 0);
	tri(v, 0, 0, 128, 0, 0, 128, 0, 0xff00ff00);
	vdxg_ref_draw_triangles(&t.s, NULL, NULL, 0, v, 3);
	vtest_assert_eq(count_not(&t, 0), 28);
	for (y = 0; y < 10; y++)
		for (x = 0; x < 10; x++)
			ASSERT_PIXEL(&t, x, y, x + y <= 6 ? 0xff00ff00 : 0);

	/* Clockwise: v1 and v2 swap, same pixels. */
	tsurf_clear(&t, 0);
	tri(v, 0, 0, 0, 128, 128, 0, 0, 0xff00ff00);
	vdxg_ref_draw_triangles(&t.s, NULL, NULL, 0, v, 3);
	vtest_assert_eq(count_not(&t, 0), 28);

	tsurf_clear(&t, 0);
	tri(v, 128, 0, 128, 128, 0, 128, 0, 0xff0000ff);
	vdxg_ref_draw_triangles(&t.s, NULL, NULL, 0, v, 3);
	vtest_assert_eq(count_not(&t, 0), 36);
	for (y = 0; y < 10; y++)
		for (x = 0; x < 10; x++)
			ASSERT_PIXEL(&t, x, y, x < 8 && y < 8 && x + y >= 7 ?
				     0xff0000ff : 0);

	/*
	 * A thin triangle (4,4) (60,4) (4,12), in sixteenths: area 448. Its
	 * edges: v1 -> v2 not owned (dy > 0), v2 -> v0 and v0 -> v1 owned.
	 * Centre (8, 8): w0 = (4 - 60)(8 - 4) - (12 - 4)(8 - 60) = 192, w1 =
	 * -(4 - 12)(8 - 4) = 32, w2 = 56 * 4 = 224: covered. (24, 8): w0 =
	 * -224 + 288 = 64: covered. (40, 8): w0 = -224 + 160 < 0: not.
	 */
	tsurf_clear(&t, 0);
	tri(v, 4, 4, 60, 4, 4, 12, 0, 0xffffffff);
	vdxg_ref_draw_triangles(&t.s, NULL, NULL, 0, v, 3);
	vtest_assert_eq(count_not(&t, 0), 2);
	ASSERT_PIXEL(&t, 0, 0, 0xffffffff);
	ASSERT_PIXEL(&t, 1, 0, 0xffffffff);

	/*
	 * Horizontal edges on pixel centres. (0,8) (160,8) (0,168): the top
	 * edge v0 -> v1 (dy 0, dx > 0) owns row 0; the hypotenuse x + y = 168
	 * never meets a centre: px + py <= 9, 55 pixels. (0,8) (0,168)
	 * (160,168) is clockwise: after the swap the bottom edge runs
	 * (160,168) -> (0,168) (dx < 0): row 10 is not drawn; y - x = 8 never
	 * meets a centre: py > px, py <= 9, 45 pixels.
	 */
	tsurf_fini(&t);
	tsurf_init(&t, VDXG_FMT_ARGB8888, 12, 12, 0);
	tsurf_clear(&t, 0);
	tri(v, 0, 8, 160, 8, 0, 168, 0, 0xff00ff00);
	vdxg_ref_draw_triangles(&t.s, NULL, NULL, 0, v, 3);
	vtest_assert_eq(count_not(&t, 0), 55);
	for (y = 0; y < 12; y++)
		for (x = 0; x < 12; x++)
			ASSERT_PIXEL(&t, x, y, x + y <= 9 ? 0xff00ff00 : 0);
	tsurf_clear(&t, 0);
	tri(v, 0, 8, 0, 168, 160, 168, 0, 0xff00ff00);
	vdxg_ref_draw_triangles(&t.s, NULL, NULL, 0, v, 3);
	vtest_assert_eq(count_not(&t, 0), 45);
	for (y = 0; y < 12; y++)
		for (x = 0; x < 12; x++)
			ASSERT_PIXEL(&t, x, y, y > x && y <= 9 ? 0xff00ff00 : 0);

	/* Zero area draws nothing; neither does a triangle off the surface. */
	tsurf_clear(&t, 0);
	tri(v, 0, 0, 64, 64, 128, 128, 0, 0xffffffff);
	vdxg_ref_draw_triangles(&t.s, NULL, NULL, 0, v, 3);
	tri(v, -400, -400, -100, -400, -400, -100, 0, 0xffffffff);
	vdxg_ref_draw_triangles(&t.s, NULL, NULL, 0, v, 3);
	tri(v, 1000, 1000, 2000, 1000, 1000, 2000, 0, 0xffffffff);
	vdxg_ref_draw_triangles(&t.s, NULL, NULL, 0, v, 3);
	vtest_assert_eq(count_not(&t, 0), 0);
	tsurf_check_guards(&t);
	tsurf_fini(&t);
}

/*
 * Triangles that tile a region draw each of its pixels exactly once: a
 * square split on its diagonal (centres lie exactly on it), and a jittered
 * grid mesh with mixed windings, partly off the surface. Each triangle is
 * drawn alone into a scratch surface and its pixels are counted.
 */
static void add_coverage(struct tsurf *scratch, uint8_t *count,
			 const uint32_t *v)
{
	uint32_t x, y;

	tsurf_clear(scratch, 0);
	vdxg_ref_draw_triangles(&scratch->s, NULL, NULL, 0, v, 3);
	for (y = 0; y < scratch->s.height; y++)
		for (x = 0; x < scratch->s.width; x++)
			if (vdxg_ref_read(&scratch->s, x, y))
				count[y * scratch->s.width + x]++;
}

static void test_triangle_shared_edges(void)
{
	enum { W = 24, H = 20, G = 6 };
	static uint8_t count[W * H];
	int32_t gx[G + 1][G + 1], gy[G + 1][G + 1];
	uint32_t s = 99, v[24], x, y;
	struct tsurf t;
	int i, j;

	tsurf_init(&t, VDXG_FMT_ARGB8888, W, H, 0);

	/* The square (2,2)-(18,18), both diagonals. */
	memset(count, 0, sizeof(count));
	tri(v, 32, 32, 288, 32, 288, 288, 0, 0xffffffff);
	add_coverage(&t, count, v);
	tri(v, 32, 32, 288, 288, 32, 288, 0, 0xffffffff);
	add_coverage(&t, count, v);
	for (y = 0; y < H; y++)
		for (x = 0; x < W; x++)
			vtest_assert_f(count[y * W + x] ==
				       (x >= 2 && x < 18 && y >= 2 && y < 18),
				       "(%u, %u) drawn %u times", x, y,
				       count[y * W + x]);
	memset(count, 0, sizeof(count));
	tri(v, 288, 32, 288, 288, 32, 288, 0, 0xffffffff);
	add_coverage(&t, count, v);
	tri(v, 32, 32, 32, 288, 288, 32, 0, 0xffffffff);	/* clockwise */
	add_coverage(&t, count, v);
	for (y = 0; y < H; y++)
		for (x = 0; x < W; x++)
			vtest_assert_f(count[y * W + x] ==
				       (x >= 2 && x < 18 && y >= 2 && y < 18),
				       "(%u, %u) drawn %u times", x, y,
				       count[y * W + x]);

	/*
	 * A grid over more than the surface (-48 .. W * 16 + 48), inner points
	 * jittered by up to +/- 12 sixteenths (the quads stay convex), border points on the border:
	 * every pixel of the surface is drawn exactly once.
	 */
	memset(count, 0, sizeof(count));
	for (j = 0; j <= G; j++) {
		for (i = 0; i <= G; i++) {
			gx[j][i] = -48 + i * (W * 16 + 96) / G;
			gy[j][i] = -48 + j * (H * 16 + 96) / G;
			if (i > 0 && i < G && j > 0 && j < G) {
				s = s * 1103515245 + 12345;
				gx[j][i] += (int32_t)((s >> 16) % 25) - 12;
				s = s * 1103515245 + 12345;
				gy[j][i] += (int32_t)((s >> 16) % 25) - 12;
			}
		}
	}
	for (j = 0; j < G; j++) {
		for (i = 0; i < G; i++) {
			int flip = (i + j) & 1;

			/* Alternate the diagonal and the winding. */
			if (flip) {
				tri(v, gx[j][i], gy[j][i], gx[j][i + 1],
				    gy[j][i + 1], gx[j + 1][i], gy[j + 1][i], 0, 1);
				add_coverage(&t, count, v);
				tri(v, gx[j + 1][i + 1], gy[j + 1][i + 1],
				    gx[j + 1][i], gy[j + 1][i], gx[j][i + 1],
				    gy[j][i + 1], 0, 1);
				add_coverage(&t, count, v);
			} else {
				tri(v, gx[j][i], gy[j][i], gx[j + 1][i + 1],
				    gy[j + 1][i + 1], gx[j][i + 1], gy[j][i + 1],
				    0, 1);
				add_coverage(&t, count, v);
				tri(v, gx[j][i], gy[j][i], gx[j + 1][i],
				    gy[j + 1][i], gx[j + 1][i + 1],
				    gy[j + 1][i + 1], 0, 1);
				add_coverage(&t, count, v);
			}
		}
	}
	for (y = 0; y < H; y++)
		for (x = 0; x < W; x++)
			vtest_assert_f(count[y * W + x] == 1,
				       "(%u, %u) drawn %u times", x, y,
				       count[y * W + x]);

	/* A fan around a centre that is a pixel centre. */
	memset(count, 0, sizeof(count));
	{
		static const int32_t ring[][2] = {
			{ 8, 8 }, { 200, -40 }, { 420, 8 }, { 420, 200 },
			{ 420, 360 }, { 200, 360 }, { -40, 360 }, { -40, 150 },
		};
		int n = VTEST_ARRAY_SIZE(ring);

		for (i = 0; i < n; i++) {
			tri(v, 8 * 16 + 8, 9 * 16 + 8, ring[i][0], ring[i][1],
			    ring[(i + 1) % n][0], ring[(i + 1) % n][1], 0, 1);
			add_coverage(&t, count, v);
		}
	}
	vtest_assert_eq(count[9 * W + 8], 1);
	for (y = 0; y < H; y++)
		for (x = 0; x < W; x++)
			vtest_assert_f(count[y * W + x] <= 1,
				       "(%u, %u) drawn %u times", x, y,
				       count[y * W + x]);
	tsurf_fini(&t);
}

/*
 * v0 (0,0) black, v1 (16,0) red, v2 (0,16) blue: area 65536. Pixel (4, 0),
 * centre (72, 8): w1 = 256 * 72 = 18432, w2 = 256 * 8 = 2048, so b1 =
 * 18432, b2 = 2048, b0 = 45056. R = (255 * 18432 + 32768) >> 16 = 72,
 * B = (255 * 2048 + 32768) >> 16 = 8, A = 255.
 */
static void test_triangle_interpolation(void)
{
	struct tsurf t;
	uint32_t v[24], x, y;

	tsurf_init(&t, VDXG_FMT_ARGB8888, 16, 16, 0);
	tsurf_clear(&t, 0);
	vtx(v, 0, 0, 0, 0xff000000, 0, 0);
	vtx(v + 8, 256, 0, 0, 0xffff0000, 0, 0);
	vtx(v + 16, 0, 256, 0, 0xff0000ff, 0, 0);
	vdxg_ref_draw_triangles(&t.s, NULL, NULL, 0, v, 3);
	ASSERT_PIXEL(&t, 4, 0, 0xff480008);
	/* (0, 0): w1 = w2 = 2048: R = B = 8. */
	ASSERT_PIXEL(&t, 0, 0, 0xff080008);
	/* (14, 0): centre (232, 8): w1 = 59392, R = 231; B = 8. */
	ASSERT_PIXEL(&t, 14, 0, 0xffe70008);

	/* Clockwise, the same: v1 and v2 swap with their attributes. */
	tsurf_clear(&t, 0);
	vtx(v, 0, 0, 0, 0xff000000, 0, 0);
	vtx(v + 8, 0, 256, 0, 0xff0000ff, 0, 0);
	vtx(v + 16, 256, 0, 0, 0xffff0000, 0, 0);
	vdxg_ref_draw_triangles(&t.s, NULL, NULL, 0, v, 3);
	ASSERT_PIXEL(&t, 4, 0, 0xff480008);
	ASSERT_PIXEL(&t, 0, 0, 0xff080008);
	ASSERT_PIXEL(&t, 14, 0, 0xffe70008);

	/* A flat colour stays exact everywhere. */
	tri(v, -100, -100, 600, -50, 40, 500, 0, 0x87654321);
	vdxg_ref_draw_triangles(&t.s, NULL, NULL, 0, v, 3);
	for (y = 0; y < 16; y++)
		for (x = 0; x < 16; x++)
			if (vdxg_ref_read(&t.s, x, y))
				ASSERT_PIXEL(&t, x, y, 0x87654321);

	/* Into RGB565: the interpolated colour is converted. */
	tsurf_fini(&t);
	tsurf_init(&t, VDXG_FMT_RGB565, 16, 16, 36);
	tsurf_clear(&t, 0);
	vtx(v, 0, 0, 0, 0xff000000, 0, 0);
	vtx(v + 8, 256, 0, 0, 0xffff0000, 0, 0);
	vtx(v + 16, 0, 256, 0, 0xff0000ff, 0, 0);
	vdxg_ref_draw_triangles(&t.s, NULL, NULL, 0, v, 3);
	vtest_assert_eq_u64(raw16(&t, 4, 0), (72 >> 3) << 11 | (8 >> 3));
	tsurf_check_guards(&t);
	tsurf_fini(&t);
}

/* A 4x2 texture with distinct texels. */
static void make_texture(struct tsurf *tex)
{
	uint32_t x, y;

	tsurf_init(tex, VDXG_FMT_ARGB8888, 4, 2, 20);
	for (y = 0; y < 2; y++)
		for (x = 0; x < 4; x++)
			vdxg_ref_write(&tex->s, x, y, 0xff000000 |
				       (x * 60 + 20) << 16 | (y * 100 + 50) << 8 |
				       (x + 4 * y));
}

/* Draw a big triangle with constant u, v and colour; read pixel (1, 1). */
static uint32_t sample_at(const struct tsurf *tex, uint32_t flags, int32_t u,
			  int32_t tv, uint32_t color)
{
	struct tsurf t;
	uint32_t v[24], out;

	tsurf_init(&t, VDXG_FMT_ARGB8888, 4, 4, 0);
	tsurf_clear(&t, 0);
	vtx(v, 0, 0, 0, color, u, tv);
	vtx(v + 8, 256, 0, 0, color, u, tv);
	vtx(v + 16, 0, 256, 0, color, u, tv);
	vdxg_ref_draw_triangles(&t.s, NULL, &tex->s, flags | VDXG_DRAW_TEXTURE,
				v, 3);
	out = vdxg_ref_read(&t.s, 1, 1);
	tsurf_check_guards(&t);
	tsurf_fini(&t);
	return out;
}

static void test_texture_nearest(void)
{
	struct tsurf tex;

	make_texture(&tex);
	/* u = 2.99..., v = 1.0: texel (2, 1); white leaves it unchanged. */
	vtest_assert_eq_u64(sample_at(&tex, 0, (2 << 16) | 0xffff, 1 << 16,
				      0xffffffff), 0xff8c9606);
	/* Clamped: u < 0 to 0, v beyond to 1; u past the edge to 3. */
	vtest_assert_eq_u64(sample_at(&tex, 0, -1, 7 << 16, 0xffffffff),
			    0xff149604);
	vtest_assert_eq_u64(sample_at(&tex, 0, 10 << 16, -(5 << 16), 0xffffffff),
			    0xffc83203);
	/* Exactly one past the last texel clamps too. */
	vtest_assert_eq_u64(sample_at(&tex, 0, 4 << 16, 2 << 16, 0xffffffff),
			    0xffc89607);
	vtest_assert_eq_u64(sample_at(&tex, VDXG_DRAW_BILINEAR, 0x3c000,
				      0x18000, 0xffffffff), 0xffc89607);
	/*
	 * Modulation: texel (1, 0) = 0xff503201 by 0x80ff4020: A
	 * div255(255 * 128) = 128, R div255(0x50 * 255) = 0x50, G
	 * div255(0x32 * 0x40) = div255(3200) = 13, B div255(1 * 0x20) = 0.
	 */
	vtest_assert_eq_u64(sample_at(&tex, 0, 1 << 16, 0, 0x80ff4020),
			    0x80500d00);
	tsurf_check_guards(&tex);
	tsurf_fini(&tex);
}

static void test_texture_bilinear(void)
{
	struct tsurf tex;

	make_texture(&tex);
	/* u = 1.5, v = 0.5: uu = 1.0, vv = 0: exactly texel (1, 0). */
	vtest_assert_eq_u64(sample_at(&tex, VDXG_DRAW_BILINEAR, 0x18000, 0x8000,
				      0xffffffff), 0xff503201);
	/*
	 * u = 1.0, v = 0.5: x0 = 0, fx = 128: R (20 * 128 + 80 * 128) * 256
	 * + 32768 >> 16 = 50, G 50, B (0 * 128 + 1 * 128) * 256 >> 16 = 0.5
	 * rounds: (32768 + 32768) >> 16 = 1; A 255.
	 */
	vtest_assert_eq_u64(sample_at(&tex, VDXG_DRAW_BILINEAR, 0x10000, 0x8000,
				      0xffffffff), 0xff323201);
	/*
	 * u = 1.25, v = 0.75: uu = 0.75: x0 = 0, fx = 192; vv = 0.25: y0 =
	 * 0, fy = 64. R: top = 20 * 64 + 80 * 192 = 16640, bot the same;
	 * t = (16640 * 256 + 32768) >> 16 = 65. G: top = 50 * 256 = 12800,
	 * bot = 150 * 256 = 38400, t = (12800 * 192 + 38400 * 64 + 32768)
	 * >> 16 = 75. B: top = 0 * 64 + 1 * 192 = 192, bot = 4 * 64 + 5 * 192
	 * = 1216, t = (192 * 192 + 1216 * 64 + 32768) >> 16 = 2.
	 */
	vtest_assert_eq_u64(sample_at(&tex, VDXG_DRAW_BILINEAR, 0x14000, 0xc000,
				      0xffffffff), 0xff414b02);
	/*
	 * u = 0: uu = -0.5: x0 = -1, fx = (-32768 >> 8) & 255 = 128, both
	 * columns clamp to 0; v = 0 likewise: texel (0, 0).
	 */
	vtest_assert_eq_u64(sample_at(&tex, VDXG_DRAW_BILINEAR, 0, 0,
				      0xffffffff), 0xff143200);
	/* Far past the bottom right: texel (3, 1). */
	vtest_assert_eq_u64(sample_at(&tex, VDXG_DRAW_BILINEAR, 100 << 16,
				      100 << 16, 0xffffffff), 0xffc89607);
	/* The same u, v nearest: texel (1, 0) vs bilinear mixing. */
	vtest_assert_eq_u64(sample_at(&tex, 0, 0x14000, 0xc000, 0xffffffff),
			    0xff503201);
	tsurf_check_guards(&tex);
	tsurf_fini(&tex);
}

static void test_depth(void)
{
	struct tsurf t, z;
	uint32_t v[24];

	tsurf_init(&t, VDXG_FMT_XRGB8888, 8, 8, 0);
	tsurf_init(&z, VDXG_FMT_D32, 8, 8, 40);
	tsurf_clear(&t, 0);
	tsurf_clear(&z, 1000);

	/* Passes (500 < 1000) and writes 500; covers px + py <= 6. */
	tri(v, 0, 0, 128, 0, 0, 128, 500, 0xff0000ff);
	vdxg_ref_draw_triangles(&t.s, &z.s, NULL,
				VDXG_DRAW_DEPTH_TEST | VDXG_DRAW_DEPTH_WRITE, v, 3);
	ASSERT_PIXEL(&t, 0, 0, 0xff0000ff);
	vtest_assert_eq(raw32(&z, 0, 0), 500);
	vtest_assert_eq(raw32(&z, 7, 7), 1000);	/* not covered */

	/* Equal fails: z < stored is strict. */
	tri(v, 0, 0, 256, 0, 0, 256, 500, 0xff00ff00);
	vdxg_ref_draw_triangles(&t.s, &z.s, NULL, VDXG_DRAW_DEPTH_TEST, v, 3);
	ASSERT_PIXEL(&t, 0, 0, 0xff0000ff);
	ASSERT_PIXEL(&t, 7, 7, 0xff00ff00);	/* 500 < 1000 there */

	/* Less passes; without DEPTH_WRITE the depth stays. */
	tri(v, 0, 0, 256, 0, 0, 256, 499, 0xff00ff00);
	vdxg_ref_draw_triangles(&t.s, &z.s, NULL, VDXG_DRAW_DEPTH_TEST, v, 3);
	ASSERT_PIXEL(&t, 0, 0, 0xff00ff00);
	vtest_assert_eq(raw32(&z, 0, 0), 500);

	/* DEPTH_WRITE alone: no test, stores even a greater z. */
	tri(v, 0, 0, 256, 0, 0, 256, 2000, 0xffff0000);
	vdxg_ref_draw_triangles(&t.s, &z.s, NULL, VDXG_DRAW_DEPTH_WRITE, v, 3);
	ASSERT_PIXEL(&t, 0, 0, 0xffff0000);
	vtest_assert_eq(raw32(&z, 0, 0), 2000);

	/* Unsigned: 0x7fffffff < 0x80000000 passes, 0xffffffff fails. */
	tsurf_clear(&z, 0x80000000);
	tri(v, 0, 0, 256, 0, 0, 256, 0xffffffff, 0xff111111);
	vdxg_ref_draw_triangles(&t.s, &z.s, NULL, VDXG_DRAW_DEPTH_TEST, v, 3);
	ASSERT_PIXEL(&t, 0, 0, 0xffff0000);
	tri(v, 0, 0, 256, 0, 0, 256, 0x7fffffff, 0xff222222);
	vdxg_ref_draw_triangles(&t.s, &z.s, NULL, VDXG_DRAW_DEPTH_TEST, v, 3);
	ASSERT_PIXEL(&t, 0, 0, 0xff222222);

	/*
	 * Within one buffer, triangle order: the second triangle (nearer)
	 * wins over the first, the third (farther) loses. Interpolated z:
	 * v0 z 0, v1 z 0x10000 at (16, 0), v2 z 0 at (0, 16): pixel (4, 0)
	 * has b1 = 18432, z = (65536 * 18432 + 32768) >> 16 = 18432.
	 */
	tsurf_clear(&z, 0xffffffff);
	tsurf_clear(&t, 0);
	tri(v, 0, 0, 256, 0, 0, 256, 100, 0xff000001);
	vdxg_ref_draw_triangles(&t.s, &z.s, NULL,
				VDXG_DRAW_DEPTH_TEST | VDXG_DRAW_DEPTH_WRITE, v, 3);
	{
		uint32_t vv[72];

		tri(vv, 0, 0, 256, 0, 0, 256, 50, 0xff000002);
		tri(vv + 24, 0, 0, 256, 0, 0, 256, 60, 0xff000003);
		vtx(vv + 48, 0, 0, 0, 0xff000004, 0, 0);
		vtx(vv + 56, 256, 0, 0x10000, 0xff000004, 0, 0);
		vtx(vv + 64, 0, 256, 0, 0xff000004, 0, 0);
		vdxg_ref_draw_triangles(&t.s, &z.s, NULL,
					VDXG_DRAW_DEPTH_TEST |
					VDXG_DRAW_DEPTH_WRITE, vv, 9);
	}
	/* (4, 0): z 18432 > 50 fails; (0, 0): b1 = 2048, z = 2048 fails */
	ASSERT_PIXEL(&t, 4, 0, 0xff000002);
	vtest_assert_eq(raw32(&z, 4, 0), 50);
	tsurf_clear(&z, 0xffffffff);
	{
		uint32_t vv[24];

		vtx(vv, 0, 0, 0, 0xff000004, 0, 0);
		vtx(vv + 8, 256, 0, 0x10000, 0xff000004, 0, 0);
		vtx(vv + 16, 0, 256, 0, 0xff000004, 0, 0);
		vdxg_ref_draw_triangles(&t.s, &z.s, NULL, VDXG_DRAW_DEPTH_WRITE,
					vv, 3);
	}
	vtest_assert_eq(raw32(&z, 4, 0), 18432);
	vtest_assert_eq(raw32(&z, 0, 0), 2048);
	tsurf_check_guards(&t);
	tsurf_check_guards(&z);
	tsurf_fini(&t);
	tsurf_fini(&z);
}

/* Far-away vertices (|X| up to 2^24) still clip to the surface. */
static void test_triangle_large(void)
{
	struct tsurf t;
	uint32_t v[24];

	tsurf_init(&t, VDXG_FMT_ARGB8888, 33, 17, 140);
	tsurf_clear(&t, 0);
	tri(v, -(1 << 20), -(1 << 20), 1 << 20, -(1 << 20), 0, 1 << 20, 7,
	    0xff123456);
	vdxg_ref_draw_triangles(&t.s, NULL, NULL, 0, v, 3);
	vtest_assert_eq(count_not(&t, 0), 33 * 17);
	ASSERT_PIXEL(&t, 32, 16, 0xff123456);
	tsurf_check_guards(&t);
	tsurf_fini(&t);
}

static const struct vtest_subtest tests[] = {
	{ "formats", test_formats, "read and write in each format" },
	{ "fill-each-format", test_fill_each_format,
	  "FILL_RECT in each format, raw bytes, guards" },
	{ "rgb565-round-trip", test_rgb565_round_trip,
	  "all 65536 RGB565 values read and write back" },
	{ "div255", test_div255, "div255 is x * y / 255 rounded" },
	{ "copy-convert", test_copy_convert, "COPY_RECT ARGB to RGB565" },
	{ "copy-overlap", test_copy_overlap,
	  "COPY_RECT over shared memory reads the source first" },
	{ "blend-known", test_blend_known, "BLEND on worked values" },
	{ "blend-overlap", test_blend_overlap,
	  "BLEND over shared memory reads the source first" },
	{ "triangle-known-coverage", test_triangle_known_coverage,
	  "pixel counts worked out by hand" },
	{ "triangle-shared-edges", test_triangle_shared_edges,
	  "tilings draw every pixel exactly once" },
	{ "triangle-interpolation", test_triangle_interpolation,
	  "barycentric colour at known pixels" },
	{ "triangle-large", test_triangle_large, "huge triangle clips" },
	{ "texture-nearest", test_texture_nearest,
	  "nearest samples, clamp, modulation" },
	{ "texture-bilinear", test_texture_bilinear,
	  "bilinear samples at known coordinates" },
	{ "depth", test_depth, "depth test and write" },
};

VTEST_MAIN(tests)
