// SPDX-License-Identifier: MIT
/*
 * libvdxg-ref3d-test: self-checks of the reference 3D pipeline
 * (vdxg_ref3d.c) against values worked out by hand from docs/hardware.md
 * ("The 3D pipeline"): exact bits of every opcode and of the spec's
 * ex2/lg2/sin/cos algorithms (worked out step by step apart from the
 * reference, and close to the true values), exact pixels, depth and
 * stencil values of draws, and the fault (reason, FAULT_ADDR) of each
 * kind of bad command, state and program. Runs on the host:
 * make -C libvdxg check.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIT(n) (1u << (n))
#define BIT_ULL(n) (1ull << (n))
#include "vdxg_hw.h"

#include "vdxg.h"
#include "vdxg_ref3d.h"
#include "vtest.h"

/* ------------------------------------------------------------ helpers */

/* A flat GPU memory: MEM_SIZE bytes at MEM_BASE, nothing elsewhere. */
#define MEM_BASE	0x100000ull
#define MEM_SIZE	(4u << 20)
#define CMD_BASE	0x40000000ull	/* the DMA buffer's (never read) */

/* Where things live, as offsets from MEM_BASE. */
#define O_VS		0x000000u
#define O_FS		0x020000u
#define O_CONSTS	0x040000u
#define O_VB		0x050000u
#define O_IB		0x060000u
#define O_TEX		0x070000u
#define O_DST		0x100000u
#define O_DEPTH		0x140000u
#define O_STATE		0x180000u
#define O_MISC		0x1c0000u
#define A(o)		(MEM_BASE + (o))

static uint8_t *mem;
static struct vdxg_ref3d_ctx ctx;
static uint32_t cb[8192];
static uint32_t ncb;

static bool in_mem(uint64_t addr, uint64_t len)
{
	return addr >= MEM_BASE && addr + len >= addr &&
	       addr + len <= MEM_BASE + MEM_SIZE;
}

static bool m_range_ok(void *opaque, uint64_t addr, uint64_t len)
{
	(void)opaque;
	return in_mem(addr, len);
}

static bool m_read(void *opaque, uint64_t addr, void *buf, uint32_t len)
{
	(void)opaque;
	if (!in_mem(addr, len))
		return false;
	memcpy(buf, mem + (addr - MEM_BASE), len);
	return true;
}

static bool m_write(void *opaque, uint64_t addr, const void *buf,
		    uint32_t len)
{
	(void)opaque;
	if (!in_mem(addr, len))
		return false;
	memcpy(mem + (addr - MEM_BASE), buf, len);
	return true;
}

static const struct vdxg_ref3d_mem tmem = {
	NULL, m_range_ok, m_read, m_write,
};

static uint32_t fbits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static float bitsf(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static void put32(uint32_t off, uint32_t v)
{
	memcpy(mem + off, &v, 4);
}

static uint32_t get32(uint32_t off)
{
	uint32_t v;

	memcpy(&v, mem + off, 4);
	return v;
}

static uint32_t get16(uint32_t off)
{
	return mem[off] | mem[off + 1] << 8;
}

static void putf(uint32_t off, float f)
{
	put32(off, fbits(f));
}

/* A command: the header, then n dwords. */
static void cmd(uint32_t op, uint32_t n, ...)
{
	va_list ap;
	uint32_t i;

	vtest_assert(ncb + 1 + n <= VTEST_ARRAY_SIZE(cb));
	cb[ncb++] = op | (1 + n) << 16;
	va_start(ap, n);
	for (i = 0; i < n; i++)
		cb[ncb++] = va_arg(ap, uint32_t);
	va_end(ap);
}

#define LO(a) ((uint32_t)(a))
#define HI(a) ((uint32_t)((uint64_t)(a) >> 32))

/* Run the commands built so far; FAULT_ADDR of header k is CMD_BASE + 4k. */
static uint32_t run(struct vdxg_ref3d_fault *f)
{
	uint32_t n = ncb, r;

	ncb = 0;
	r = vdxg_ref3d_exec(&ctx, &tmem, CMD_BASE, cb, n, f);
	vtest_assert_eq(r, f->reason);
	return r;
}

static void run_ok(void)
{
	struct vdxg_ref3d_fault f;

	vtest_assert_f(run(&f) == 0, "fault %u at 0x%llx", f.reason,
		       (unsigned long long)f.addr);
}

/* Run and expect a fault with that reason at that address. */
#define RUN_FAULT(reason_, addr_)					\
	do {								\
		struct vdxg_ref3d_fault __f;				\
		uint32_t __r = run(&__f);				\
		vtest_assert_f(__r == (uint32_t)(reason_) &&		\
			       __f.addr == (uint64_t)(addr_),		\
			       "fault %u at 0x%llx, want %u at 0x%llx",	\
			       __r, (unsigned long long)__f.addr,	\
			       (uint32_t)(reason_),			\
			       (unsigned long long)(addr_));		\
	} while (0)

static void reset(void)
{
	if (!mem) {
		mem = malloc(MEM_SIZE);
		vtest_assert(mem);
	}
	memset(mem, 0, MEM_SIZE);
	vdxg_ref3d_init(&ctx);
	ncb = 0;
}

static void set_reg(uint32_t reg, uint32_t v)
{
	cmd(VDXG_RD_SET_STATE, 2, reg, v);
}

static void set_regf(uint32_t reg, float v)
{
	set_reg(reg, fbits(v));
}

/* Assemble TEXT at offset OFF and bind it to its stage (SET_SHADER). */
static void prog_at(uint32_t stage, uint32_t off, const char *text)
{
	uint32_t *p, size;
	char msg[256];

	vtest_assert_f(vdxg_asm(text, &p, &size, msg, sizeof(msg)) == 0,
		       "asm: %s", msg);
	memcpy(mem + off, p, size);
	free(p);
	cmd(VDXG_RD_SET_SHADER, 4, stage, LO(A(off)), HI(A(off)), size);
}

static void vs(const char *text)
{
	prog_at(VDXG_3D_STAGE_VERTEX, O_VS, text);
}

static void fs(const char *text)
{
	prog_at(VDXG_3D_STAGE_FRAGMENT, O_FS, text);
}

static void surface(uint32_t slot, uint32_t off, uint32_t fmt, uint32_t w,
		    uint32_t h)
{
	uint32_t pitch = (w * vdxg_ref3d_cpp(fmt) + 3) & ~3u;

	cmd(VDXG_RD_SET_SURFACE, 7, slot, LO(A(off)), HI(A(off)), fmt, w, h,
	    pitch);
}

static uint32_t pitch_of(uint32_t fmt, uint32_t w)
{
	return (w * vdxg_ref3d_cpp(fmt) + 3) & ~3u;
}

/* DST pixel (x, y) of a W-wide surface of FMT, raw. */
static uint32_t pix(uint32_t fmt, uint32_t w, uint32_t x, uint32_t y)
{
	uint32_t off = O_DST + y * pitch_of(fmt, w) + x * vdxg_ref3d_cpp(fmt);

	return vdxg_ref3d_cpp(fmt) == 2 ? get16(off) : get32(off);
}

static uint32_t depth_word(uint32_t fmt, uint32_t w, uint32_t x, uint32_t y)
{
	uint32_t off = O_DEPTH + y * pitch_of(fmt, w) +
		       x * vdxg_ref3d_cpp(fmt);

	return vdxg_ref3d_cpp(fmt) == 2 ? get16(off) : get32(off);
}

/*
 * The usual draw setup on a W x H target (W, H powers of two): window
 * X = x * W/2 + W/2, Y likewise, Z = z * 0.5 + 0.5; ELEMENT 0 a float4
 * position and ELEMENT 1 a float4 varying from vertex buffer 0 (stride
 * 32); the vertex program passes them on, the fragment program writes
 * the varying.
 */
#define VB_STRIDE 32

static void setup(uint32_t fmt, uint32_t w, uint32_t h)
{
	reset();
	surface(VDXG_SLOT_DST, O_DST, fmt, w, h);
	set_regf(VDXG_3D_VIEWPORT_SCALE(0), (float)w / 2);
	set_regf(VDXG_3D_VIEWPORT_SCALE(1), (float)h / 2);
	set_regf(VDXG_3D_VIEWPORT_SCALE(2), 0.5f);
	set_regf(VDXG_3D_VIEWPORT_TRANSLATE(0), (float)w / 2);
	set_regf(VDXG_3D_VIEWPORT_TRANSLATE(1), (float)h / 2);
	set_regf(VDXG_3D_VIEWPORT_TRANSLATE(2), 0.5f);
	set_reg(VDXG_3D_ELEMENT(0),
		VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_FLOAT32, 4), 0, 0));
	set_reg(VDXG_3D_ELEMENT(1),
		VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_FLOAT32, 4), 0, 16));
	cmd(VDXG_RD_SET_VERTEX_BUFFER, 5, 0, LO(A(O_VB)), HI(A(O_VB)), 0x10000,
	    VB_STRIDE);
	vs("VERT\nMOV OUT[0], IN[0]\nMOV OUT[2], IN[1]\nEND\n");
	fs("FRAG\nMOV OUT[0], IN[0]\nEND\n");
	run_ok();
}

static uint32_t fb_w = 16, fb_h = 16;

/* Vertex i at window (X, Y), clip z and w = 1, varying (r, g, b, a). */
static void wv(uint32_t i, float X, float Y, float z, float r, float g,
	       float b, float a)
{
	uint32_t o = O_VB + i * VB_STRIDE;

	putf(o, (X - (float)fb_w / 2) / ((float)fb_w / 2));
	putf(o + 4, (Y - (float)fb_h / 2) / ((float)fb_h / 2));
	putf(o + 8, z);
	putf(o + 12, 1.0f);
	putf(o + 16, r);
	putf(o + 20, g);
	putf(o + 24, b);
	putf(o + 28, a);
}

/* Vertex i in clip space, varying (r, g, b, a). */
static void cv(uint32_t i, float x, float y, float z, float w, float r,
	       float g, float b, float a)
{
	uint32_t o = O_VB + i * VB_STRIDE;

	putf(o, x);
	putf(o + 4, y);
	putf(o + 8, z);
	putf(o + 12, w);
	putf(o + 16, r);
	putf(o + 20, g);
	putf(o + 24, b);
	putf(o + 28, a);
}

static void draw(uint32_t prim, uint32_t first, uint32_t count)
{
	cmd(VDXG_RD_DRAW, 3, prim, first, count);
}

/* CLEAR with the colour (r, g, b, a), depth and stencil. */
static void clear(uint32_t flags, uint32_t x, uint32_t y, uint32_t w,
		  uint32_t h, float r, float g, float b, float a, float z,
		  uint32_t s)
{
	cmd(VDXG_RD_CLEAR, 9, flags, VDXG_RD_XY(x, y), VDXG_RD_XY(w, h),
	    fbits(r), fbits(g), fbits(b), fbits(a), fbits(z), s);
}

/*
 * The DST image (ARGB8888) against a picture: row strings of '#' (the
 * pixel is ON) and '.' (it is OFF).
 */
static void check_picture(const char *const *rows, uint32_t on, uint32_t off)
{
	uint32_t x, y, bad = 0;
	char line[64];

	for (y = 0; y < fb_h; y++)
		for (x = 0; x < fb_w; x++)
			bad += pix(VDXG_FMT_ARGB8888, fb_w, x, y) !=
			       (rows[y][x] == '#' ? on : off);
	if (!bad)
		return;
	for (y = 0; y < fb_h; y++) {
		for (x = 0; x < fb_w; x++) {
			uint32_t got = pix(VDXG_FMT_ARGB8888, fb_w, x, y);

			line[x] = got == on ? '#' : got == off ? '.' : '?';
		}
		line[x] = 0;
		vtest_info("got  %s  want %s", line, rows[y]);
	}
	vtest_fail("%u pixels differ", bad);
}

/* ------------------------------------------------------- invocations */

/*
 * Run the vertex program TEXT once with IN[0] = in0 and IN[1] = in1 and
 * return its outputs (bits) in out.
 */
static uint32_t vs_eval(const char *text, const uint32_t in0[4],
			const uint32_t in1[4], uint32_t out[10][4],
			uint32_t *visits)
{
	static struct vdxg_ref3d_invocation inv;
	struct vdxg_ref3d_fault f;
	uint32_t r;

	vs(text);
	run_ok();
	memset(&inv, 0, sizeof(inv));
	if (in0)
		memcpy(inv.in[0][0], in0, 16);
	if (in1)
		memcpy(inv.in[0][1], in1, 16);
	inv.live = 1;
	r = vdxg_ref3d_invoke(&ctx, &tmem, VDXG_3D_STAGE_VERTEX, &inv, &f);
	vtest_assert_eq(r, f.reason);
	memcpy(out, inv.out[0], sizeof(inv.out[0]));
	if (visits)
		*visits = inv.visits;
	return r;
}

#define ASSERT_BITS(got, want)						\
	do {								\
		uint32_t __g = (got), __w = (want);			\
		vtest_assert_f(__g == __w, "%s is 0x%08x (%g), want "	\
			       "0x%08x (%g)", #got, __g, bitsf(__g),	\
			       __w, bitsf(__w));			\
	} while (0)

#define ASSERT_VEC(v, a, b, c, d)					\
	do {								\
		ASSERT_BITS((v)[0], (a));				\
		ASSERT_BITS((v)[1], (b));				\
		ASSERT_BITS((v)[2], (c));				\
		ASSERT_BITS((v)[3], (d));				\
	} while (0)

#define F(x) fbits(x)

static void test_alu_arith(void)
{
	uint32_t o[10][4];

	reset();
	vtest_assert_eq(vs_eval("VERT\n"
		"IMM[0] = { 1.5, -2.25, 0.5, 3.0 }\n"
		"IMM[1] = { 2.0, 4.0, -1.0, 0.25 }\n"
		"IMM[2] = { 0x3f800800, 0x3f800800, 0xbf801000, 0 }\n"
		"ADD OUT[0], IMM[0], IMM[1]\n"
		"MUL OUT[1], IMM[0], -IMM[1].yxzw\n"
		"MAD OUT[2], IMM[2].x, IMM[2].y, IMM[2].z\n"
		"DP2 OUT[3], IMM[0], IMM[1]\n"
		"DP3 OUT[4], IMM[0], IMM[1]\n"
		"DP4 OUT[5], IMM[0], IMM[1]\n"
		"MIN OUT[6], IMM[0], IMM[1]\n"
		"MAX OUT[7], IMM[0], IMM[1]\n"
		"LRP OUT[8], IMM[1].w, IMM[1].x, IMM[1].y\n"
		"CMP OUT[9], IMM[1], IMM[0], -IMM[0]\n"
		"END\n", NULL, NULL, o, NULL), 0);
	ASSERT_VEC(o[0], F(3.5f), F(1.75f), F(-0.5f), F(3.25f));
	ASSERT_VEC(o[1], F(-6.0f), F(4.5f), F(0.5f), F(-0.75f));
	/*
	 * (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 rounds (a tie, to even) to
	 * 1 + 2^-11, so MAD gives +0; a fused multiply-add would give 2^-24.
	 */
	ASSERT_VEC(o[2], 0, 0, 0, 0);
	ASSERT_VEC(o[3], F(-6.0f), F(-6.0f), F(-6.0f), F(-6.0f));
	ASSERT_VEC(o[4], F(-6.5f), F(-6.5f), F(-6.5f), F(-6.5f));
	ASSERT_VEC(o[5], F(-5.75f), F(-5.75f), F(-5.75f), F(-5.75f));
	ASSERT_VEC(o[6], F(1.5f), F(-2.25f), F(-1.0f), F(0.25f));
	ASSERT_VEC(o[7], F(2.0f), F(4.0f), F(0.5f), F(3.0f));
	/* 0.25 * 2 + 0.75 * 4 */
	ASSERT_VEC(o[8], F(3.5f), F(3.5f), F(3.5f), F(3.5f));
	/* a = (2, 4, -1, 0.25): only z is negative */
	ASSERT_VEC(o[9], F(-1.5f), F(2.25f), F(0.5f), F(-3.0f));
}

static void test_alu_compare_round(void)
{
	uint32_t o[10][4];

	reset();
	vtest_assert_eq(vs_eval("VERT\n"
		"IMM[0] = { 1.0, 2.0, 0x7fc00000, 0x80000000 }\n"
		"IMM[1] = { 2.0, 2.0, 0x7fc00000, 0.0 }\n"
		"IMM[2] = { -1.25, 2.5, -0.5, 3.5 }\n"
		"SLT OUT[0], IMM[0], IMM[1]\n"
		"SGE OUT[1], IMM[0], IMM[1]\n"
		"SEQ OUT[2], IMM[0], IMM[1]\n"
		"SNE OUT[3], IMM[0], IMM[1]\n"
		"FRC OUT[4], IMM[2]\n"
		"FLR OUT[5], IMM[2]\n"
		"CEIL OUT[6], IMM[2]\n"
		"TRUNC OUT[7], IMM[2]\n"
		"ROUND OUT[8], IMM[2]\n"
		"SSG OUT[9], -IMM[0].xywz\n"
		"END\n", NULL, NULL, o, NULL), 0);
	/* NaN compares false except !=; -0 equals +0 */
	ASSERT_VEC(o[0], F(1.0f), 0, 0, 0);
	ASSERT_VEC(o[1], 0, F(1.0f), 0, F(1.0f));
	ASSERT_VEC(o[2], 0, F(1.0f), 0, F(1.0f));
	ASSERT_VEC(o[3], F(1.0f), 0, F(1.0f), 0);
	ASSERT_VEC(o[4], F(0.75f), F(0.5f), F(0.5f), F(0.5f));
	ASSERT_VEC(o[5], F(-2.0f), F(2.0f), F(-1.0f), F(3.0f));
	ASSERT_VEC(o[6], F(-1.0f), F(3.0f), 0x80000000, F(4.0f));
	ASSERT_VEC(o[7], F(-1.0f), F(2.0f), 0x80000000, F(3.0f));
	/* ties to even: 2.5 -> 2, -0.5 -> -0, 3.5 -> 4 */
	ASSERT_VEC(o[8], F(-1.0f), F(2.0f), 0x80000000, F(4.0f));
	/* -(1, 2, -0, NaN): -1, -1, +0 for +0, 0 for a NaN */
	ASSERT_VEC(o[9], F(-1.0f), F(-1.0f), 0, 0);
}

static void test_alu_scalar(void)
{
	uint32_t o[10][4];

	reset();
	vtest_assert_eq(vs_eval("VERT\n"
		"IMM[0] = { 3.0, 2.0, -4.0, 0.0 }\n"
		"IMM[1] = { 2.7, -2.7, 1e30, 0x7fc00000 }\n"
		"RCP OUT[0], IMM[0].x\n"
		"RSQ OUT[1], IMM[0].zzzz\n"
		"SQRT OUT[2], IMM[0].y\n"
		"SQRT OUT[3], IMM[0].z\n"
		"RCP OUT[4], IMM[0].w\n"
		"DIV OUT[5], IMM[0], IMM[0].y\n"
		"LDEXP OUT[6], IMM[0], IMM[1]\n"
		"RSQ OUT[7], -IMM[0].w\n"
		"DIV OUT[8], IMM[0].w, IMM[0].w\n"
		"DIV_SAT OUT[9], IMM[0], IMM[0].w\n"
		"END\n", NULL, NULL, o, NULL), 0);
	ASSERT_VEC(o[0], 0x3eaaaaab, 0x3eaaaaab, 0x3eaaaaab, 0x3eaaaaab);
	/* 1 / sqrt(|-4|) */
	ASSERT_VEC(o[1], F(0.5f), F(0.5f), F(0.5f), F(0.5f));
	ASSERT_VEC(o[2], 0x3fb504f3, 0x3fb504f3, 0x3fb504f3, 0x3fb504f3);
	ASSERT_VEC(o[3], 0x7fc00000, 0x7fc00000, 0x7fc00000, 0x7fc00000);
	ASSERT_VEC(o[4], 0x7f800000, 0x7f800000, 0x7f800000, 0x7f800000);
	ASSERT_VEC(o[5], F(1.5f), F(1.0f), F(-2.0f), 0);
	/* k = trunc(b) clamped to [-126, 127], NaN 0: 3 * 4, 2 / 4, -4 * 2^127 */
	ASSERT_VEC(o[6], F(12.0f), F(0.5f), 0xff800000, 0);
	/* RSQ of -0: |−0| = +0, 1 / +0 = +inf */
	ASSERT_VEC(o[7], 0x7f800000, 0x7f800000, 0x7f800000, 0x7f800000);
	ASSERT_VEC(o[8], 0x7fc00000, 0x7fc00000, 0x7fc00000, 0x7fc00000);
	/* saturate: +inf -> 1, -inf -> 0, NaN -> 0 */
	ASSERT_VEC(o[9], F(1.0f), F(1.0f), 0, 0);
}

static void test_alu_modifiers(void)
{
	uint32_t o[10][4];

	reset();
	vtest_assert_eq(vs_eval("VERT\n"
		"IMM[0] = { 1.5, -0.5, 0x7f800001, 0xffc00001 }\n"
		"IMM[1] = { 0x80000000, 0.25, 2.0, 0x80000001 }\n"
		"MOV OUT[0], IMM[0]\n"
		"MOV_SAT OUT[1], IMM[0]\n"
		"MOV_SAT OUT[2], IMM[1]\n"
		"MOV OUT[3], -|IMM[0]|\n"
		"MOV OUT[4], |IMM[1].wzyx|\n"
		"MOV OUT[5].xz, IMM[0].y\n"
		"MOV OUT[6]._, IMM[0]\n"
		"ADD OUT[7], IMM[1].w, IMM[1].w\n"
		"MOV TEMP[0], IMM[1].yzzz\n"
		"MOV TEMP[0].xy, TEMP[0].yxzw\n"
		"MOV OUT[8], TEMP[0]\n"
		"MOV OUT[9], -IMM[0].zwxy\n"
		"END\n", NULL, NULL, o, NULL), 0);
	/* a NaN written becomes 0x7fc00000, whatever its payload and sign */
	ASSERT_VEC(o[0], F(1.5f), F(-0.5f), 0x7fc00000, 0x7fc00000);
	ASSERT_VEC(o[1], F(1.0f), 0, 0, 0);
	/* -0 and a negative denormal saturate to +0 */
	ASSERT_VEC(o[2], 0, F(0.25f), F(1.0f), 0);
	ASSERT_VEC(o[3], F(-1.5f), F(-0.5f), 0x7fc00000, 0x7fc00000);
	/* a denormal is kept (ABS clears its sign) */
	ASSERT_VEC(o[4], 0x00000001, F(2.0f), F(0.25f), 0);
	ASSERT_VEC(o[5], F(-0.5f), 0, F(-0.5f), 0);
	ASSERT_VEC(o[6], 0, 0, 0, 0);
	/* no flush of denormals: -2^-149 twice is -2^-148 */
	ASSERT_VEC(o[7], 0x80000002, 0x80000002, 0x80000002, 0x80000002);
	/* all sources are read before the destination is written */
	ASSERT_VEC(o[8], F(2.0f), F(0.25f), F(2.0f), F(2.0f));
	ASSERT_VEC(o[9], 0x7fc00000, 0x7fc00000, F(-1.5f), F(0.5f));
}

static void test_alu_relative(void)
{
	uint32_t o[10][4], i;

	reset();
	for (i = 0; i < 4; i++) {
		putf(O_CONSTS + 16 * i, (float)i + 1.0f);
		putf(O_CONSTS + 16 * i + 4, (float)i * 10.0f);
		putf(O_CONSTS + 16 * i + 8, -((float)i + 1.0f));
		putf(O_CONSTS + 16 * i + 12, 0.5f);
	}
	/* a fifth vec4 in memory, past the bound count */
	putf(O_CONSTS + 64, 99.0f);
	cmd(VDXG_RD_SET_CONSTANTS, 4, 0, LO(A(O_CONSTS)), HI(A(O_CONSTS)), 4);
	vtest_assert_eq(vs_eval("VERT\n"
		"IMM[0] = { 2.7, -1.5, 300.0, 0x7fc00000 }\n"
		"ARL ADDR.x, IMM[0].x\n"
		"MOV OUT[0], CONST[ADDR.x+1]\n"
		"MOV OUT[1], CONST[ADDR.x]\n"
		"ARL ADDR.x, IMM[0].y\n"
		"MOV OUT[2], CONST[ADDR.x+2]\n"
		"MOV OUT[3], CONST[ADDR.x+1]\n"
		"ARL ADDR.x, IMM[0].z\n"
		"MOV OUT[4], CONST[ADDR.x]\n"
		"ARL ADDR.x, IMM[0].w\n"
		"MOV OUT[5], CONST[ADDR.x+3]\n"
		"MOV OUT[6], CONST[ADDR.x+4]\n"
		"MOV OUT[7], -CONST[1].wzyx\n"
		"END\n", NULL, NULL, o, NULL), 0);
	/* A0 = floor(2.7) = 2 */
	ASSERT_VEC(o[0], F(4.0f), F(30.0f), F(-4.0f), F(0.5f));
	ASSERT_VEC(o[1], F(3.0f), F(20.0f), F(-3.0f), F(0.5f));
	/* A0 = floor(-1.5) = -2: index 0, then -1 (reads zero) */
	ASSERT_VEC(o[2], F(1.0f), 0, F(-1.0f), F(0.5f));
	ASSERT_VEC(o[3], 0, 0, 0, 0);
	/* 300: past 255 */
	ASSERT_VEC(o[4], 0, 0, 0, 0);
	/* NaN: A0 = 0; index 4 is not below the count */
	ASSERT_VEC(o[5], F(4.0f), F(30.0f), F(-4.0f), F(0.5f));
	ASSERT_VEC(o[6], 0, 0, 0, 0);
	ASSERT_VEC(o[7], F(-0.5f), F(2.0f), F(-10.0f), F(-2.0f));
}

/*
 * The spec's algorithms, worked out step by step in binary32 apart from
 * the reference; every value is within a few ulp of the true function
 * (sin(100) within 2e-6: the range reduction's rounding).
 */
static void test_alu_transcendental(void)
{
	uint32_t o[10][4];

	reset();
	vtest_assert_eq(vs_eval("VERT\n"
		"IMM[0] = { 0.5, -3.75, 0.1, 127.5 }\n"
		"IMM[1] = { 3.0, 10.0, 0.1, 1e-40 }\n"
		"IMM[2] = { 2.0, 100.0, -7.25, 1.0 }\n"
		"IMM[3] = { 128.0, -126.5, 0x7fc00000, -1.0 }\n"
		"IMM[4] = { 2.5, 0.0, 0x7f800000, -126.0 }\n"
		"EX2 OUT[0].x, IMM[0].x\n"
		"EX2 OUT[0].y, IMM[0].y\n"
		"EX2 OUT[0].z, IMM[0].z\n"
		"EX2 OUT[0].w, IMM[0].w\n"
		"LG2 OUT[1].x, IMM[1].x\n"
		"LG2 OUT[1].y, IMM[1].y\n"
		"LG2 OUT[1].z, IMM[1].z\n"
		"LG2 OUT[1].w, IMM[1].w\n"
		"SIN OUT[2].x, IMM[2].x\n"
		"SIN OUT[2].y, IMM[2].y\n"
		"SIN OUT[2].z, IMM[2].z\n"
		"SIN OUT[2].w, IMM[2].w\n"
		"COS OUT[3].x, IMM[2].x\n"
		"COS OUT[3].y, IMM[2].y\n"
		"COS OUT[3].z, IMM[2].z\n"
		"COS OUT[3].w, IMM[3].w\n"
		"EX2 OUT[4].x, IMM[3].x\n"
		"EX2 OUT[4].y, IMM[3].y\n"
		"EX2 OUT[4].z, IMM[3].z\n"
		"LG2 OUT[4].w, IMM[3].w\n"
		"POW OUT[5], IMM[1].x, IMM[4].x\n"
		"LG2 OUT[6].x, IMM[4].y\n"
		"LG2 OUT[6].y, IMM[4].z\n"
		"SIN OUT[6].z, IMM[4].z\n"
		"EX2 OUT[6].w, IMM[4].w\n"
		"COS OUT[7], IMM[4].y\n"
		"SIN OUT[8], -IMM[4].y\n"
		"COS OUT[9].x, IMM[2].w\n"
		"END\n", NULL, NULL, o, NULL), 0);
	/* 2^0.5 = 1.41421354, 2^-3.75 = 0.0743254423, 2^0.1, 2^127.5 */
	ASSERT_VEC(o[0], 0x3fb504f3, 0x3d9837f0, 0x3f892fdf, 0x7f3504f3);
	/* lg2 3 = 1.58496249, lg2 10, lg2 0.1 (its negation), a denormal */
	ASSERT_VEC(o[1], 0x3fcae00d, 0x40549a78, 0xc0549a78, 0xc304e08c);
	/* sin 2 = 0.909297526, sin 100 = -0.506367505, sin -7.25, sin 1 */
	ASSERT_VEC(o[2], 0x3f68c7b9, 0xbf01a14d, 0xbf52b56e, 0x3f576aa5);
	/* cos 2, cos 100, cos -7.25, cos -1 (one ulp from cos 1's 0x3f0a5140) */
	ASSERT_VEC(o[3], 0xbed51137, 0x3f5cc0aa, 0x3f11637c, 0x3f0a5141);
	/* ex2(128) = +inf, ex2(-126.5) = +0, NaN; lg2(-1) = NaN */
	ASSERT_VEC(o[4], 0x7f800000, 0, 0x7fc00000, 0x7fc00000);
	/* 3^2.5 = 15.5884562 */
	ASSERT_VEC(o[5], 0x41796a51, 0x41796a51, 0x41796a51, 0x41796a51);
	/* lg2(0) = -inf, lg2(+inf) = +inf, sin(+inf) = NaN, ex2(-126) */
	ASSERT_VEC(o[6], 0xff800000, 0x7f800000, 0x7fc00000, 0x00800000);
	ASSERT_VEC(o[7], F(1.0f), F(1.0f), F(1.0f), F(1.0f));
	ASSERT_VEC(o[8], 0x80000000, 0x80000000, 0x80000000, 0x80000000);
	ASSERT_BITS(o[9][0], 0x3f0a5140);

	/* The exported functions agree. */
	ASSERT_BITS(fbits(vdxg_ref3d_ex2(-3.75f)), 0x3d9837f0);
	ASSERT_BITS(fbits(vdxg_ref3d_lg2(3.0f)), 0x3fcae00d);
	ASSERT_BITS(fbits(vdxg_ref3d_sin(100.0f)), 0xbf01a14d);
	ASSERT_BITS(fbits(vdxg_ref3d_cos(-7.25f)), 0x3f11637c);
}

/*
 * Run the fragment program TEXT on one quad: lane l's IN[i] is in[l][i]
 * (floats), live the lanes L starts with. Returns the fault reason.
 */
static struct vdxg_ref3d_invocation finv;

static uint32_t fs_eval(const char *text, const float in[4][2][4],
			uint32_t live)
{
	struct vdxg_ref3d_fault f;
	uint32_t r, l, i, c;

	fs(text);
	run_ok();
	memset(&finv, 0, sizeof(finv));
	for (l = 0; l < 4; l++)
		for (i = 0; i < 2; i++)
			for (c = 0; c < 4; c++)
				finv.in[l][i][c] = fbits(in[l][i][c]);
	finv.live = live;
	r = vdxg_ref3d_invoke(&ctx, &tmem, VDXG_3D_STAGE_FRAGMENT, &finv, &f);
	vtest_assert_eq(r, f.reason);
	return r;
}

static void test_control_flow(void)
{
	static const float cond[4][2][4] = {
		{ { 0.0f } }, { { 1.0f } }, { { -1.0f } },
		{ { __builtin_nanf("") } },
	};
	static const float counts[4][2][4] = {
		{ { 0, 0.0f } }, { { 0, 1.0f } }, { { 0, 2.0f } },
		{ { 0, 3.0f } },
	};
	static const float kill[4][2][4] = {
		{ { 1, 1, 1, 0 } }, { { 0, 0, -1.0f, 0 } },
		{ { 0, -0.0f, 0, 0 } }, { { 0, 0, 0, 1.0f } },
	};
	uint32_t l;

	reset();
	/* IF takes the lanes whose x is not 0, NaN included. */
	vtest_assert_eq(fs_eval("FRAG\n"
		"IMM[0] = { 1.0, 2.0, 3.0, 4.0 }\n"
		"IF IN[0].xxxx\n"
		"  MOV TEMP[0].x, IMM[0].x\n"
		"ELSE\n"
		"  MOV TEMP[0].x, IMM[0].y\n"
		"ENDIF\n"
		"MOV OUT[0], TEMP[0]\n"
		"END\n", cond, 0xf), 0);
	vtest_assert_eq(finv.visits, 7);
	vtest_assert_eq(finv.live, 0xf);
	ASSERT_VEC(finv.out[0][0], F(2.0f), 0, 0, 0);
	for (l = 1; l < 4; l++)
		ASSERT_VEC(finv.out[l][0], F(1.0f), 0, 0, 0);

	/*
	 * A loop whose lanes leave at different iterations, with BRK and
	 * CONT: lane l counts down from l, adding 10 on each iteration but
	 * the one where the counter reaches 1. All lanes run the body until
	 * the last one breaks: 3 + 4 iterations of 11 + 2 = 49 visits.
	 */
	vtest_assert_eq(fs_eval("FRAG\n"
		"IMM[0] = { 1.0, 0.0, 10.0, 0.5 }\n"
		"MOV TEMP[0].x, IN[0].y\n"
		"MOV TEMP[1], IMM[0].y\n"
		"BGNLOOP\n"
		"  SGE TEMP[2].x, IMM[0].y, TEMP[0].x\n"
		"  IF TEMP[2].x\n"
		"    BRK\n"
		"  ENDIF\n"
		"  ADD TEMP[0].x, TEMP[0].x, -IMM[0].x\n"
		"  SEQ TEMP[2].x, TEMP[0].x, IMM[0].x\n"
		"  IF TEMP[2].x\n"
		"    CONT\n"
		"  ENDIF\n"
		"  ADD TEMP[1].x, TEMP[1].x, IMM[0].z\n"
		"ENDLOOP\n"
		"MOV OUT[0], TEMP[1]\n"
		"END\n", counts, 0xf), 0);
	vtest_assert_eq(finv.visits, 49);
	ASSERT_VEC(finv.out[0][0], 0, 0, 0, 0);
	ASSERT_VEC(finv.out[1][0], F(10.0f), 0, 0, 0);
	ASSERT_VEC(finv.out[2][0], F(10.0f), 0, 0, 0);
	ASSERT_VEC(finv.out[3][0], F(20.0f), 0, 0, 0);

	/* KILL_IF (x, y, z or w < 0; -0 is not) and KILL under IF. */
	vtest_assert_eq(fs_eval("FRAG\n"
		"IMM[0] = { 1.0, 0.0, 0.0, 1.0 }\n"
		"KILL_IF IN[0]\n"
		"IF IN[0].w\n"
		"  KILL\n"
		"ENDIF\n"
		"MOV OUT[0], IMM[0]\n"
		"END\n", kill, 0xf), 0);
	vtest_assert_eq(finv.visits, 6);
	vtest_assert_eq(finv.live, 0x5);
	ASSERT_VEC(finv.out[0][0], F(1.0f), 0, 0, F(1.0f));
	ASSERT_VEC(finv.out[1][0], 0, 0, 0, 0);
	ASSERT_VEC(finv.out[2][0], F(1.0f), 0, 0, F(1.0f));

	/* A lane not in L to start with computes nothing. */
	vtest_assert_eq(fs_eval("FRAG\n"
		"IMM[0] = { 1.0, 0.0, 0.0, 1.0 }\n"
		"MOV OUT[0], IMM[0]\n"
		"END\n", kill, 0x6), 0);
	vtest_assert_eq(finv.live, 0x6);
	ASSERT_VEC(finv.out[0][0], 0, 0, 0, 0);
	ASSERT_VEC(finv.out[1][0], F(1.0f), 0, 0, F(1.0f));
	ASSERT_VEC(finv.out[3][0], 0, 0, 0, 0);
}

static void test_derivatives(void)
{
	static const float in[4][2][4] = {
		{ { 0, 0 }, { 1.0f } }, { { 1.0f, 10.0f } },
		{ { 4.0f, 20.0f } }, { { 9.0f, 30.0f } },
	};
	uint32_t o[10][4];

	reset();
	/* DDX/DDY read all four lanes, whatever E is. */
	vtest_assert_eq(fs_eval("FRAG\n"
		"DDX TEMP[0], IN[0]\n"
		"DDY TEMP[1], IN[0]\n"
		"IF IN[1].x\n"
		"  DDX TEMP[2], IN[0].y\n"
		"ENDIF\n"
		"MOV OUT[0].x, TEMP[0].x\n"
		"MOV OUT[0].y, TEMP[1].x\n"
		"MOV OUT[0].z, TEMP[2].x\n"
		"MOV OUT[0].w, TEMP[1].y\n"
		"END\n", in, 0xf), 0);
	ASSERT_VEC(finv.out[0][0], F(1.0f), F(4.0f), F(10.0f), F(20.0f));
	ASSERT_VEC(finv.out[1][0], F(1.0f), F(8.0f), 0, F(20.0f));
	ASSERT_VEC(finv.out[2][0], F(5.0f), F(4.0f), 0, F(20.0f));
	ASSERT_VEC(finv.out[3][0], F(5.0f), F(8.0f), 0, F(20.0f));

	/* In a vertex program they give 0. */
	vtest_assert_eq(vs_eval("VERT\n"
		"IMM[0] = { 1.0, 2.0, 3.0, 4.0 }\n"
		"MOV OUT[0], IMM[0]\n"
		"DDX OUT[0].xy, IN[0]\n"
		"DDY OUT[0].w, IN[0]\n"
		"END\n", NULL, NULL, o, NULL), 0);
	ASSERT_VEC(o[0], 0, 0, F(3.0f), 0);
}

/*
 * NOP, then a loop counting TEMP[0].x down from n: 6 visits an iteration
 * (ADD, IF, ELSE, BRK, ENDIF, ENDLOOP), so 1 + 2 + 6n + 1 visits in all:
 * n = 2730 is exactly VDXG_3D_MAX_STEPS (16384); n = 2731 faults on the
 * 16385th visit, iteration 2731's IF (instruction 4).
 */
static const char *runaway_text(uint32_t stage, uint32_t n)
{
	static char text[512];

	snprintf(text, sizeof(text), "%s\n"
		 "IMM[0] = { %u.0, -1.0, 0.0, 0.0 }\n"
		 "NOP\n"
		 "MOV TEMP[0].x, IMM[0].x\n"
		 "BGNLOOP\n"
		 "  ADD TEMP[0].x, TEMP[0].x, IMM[0].y\n"
		 "  IF TEMP[0].x\n"
		 "  ELSE\n"
		 "    BRK\n"
		 "  ENDIF\n"
		 "ENDLOOP\n"
		 "END\n", stage ? "FRAG" : "VERT", n);
	return text;
}

static void test_runaway(void)
{
	static const float zero[4][2][4];
	uint32_t o[10][4], visits = 0;
	struct vdxg_ref3d_fault f;
	struct vdxg_ref3d_invocation *inv;

	reset();
	vtest_assert_eq(vs_eval(runaway_text(0, 2730), NULL, NULL, o, &visits),
			0);
	vtest_assert_eq(visits, VDXG_3D_MAX_STEPS);
	vtest_assert_eq(vs_eval(runaway_text(0, 2731), NULL, NULL, o, &visits),
			VDXG_FAULT_SHADER);
	vtest_assert_eq(visits, VDXG_3D_MAX_STEPS);

	/* The fault's address: the instruction of the 16385th visit. */
	inv = calloc(1, sizeof(*inv));
	vtest_assert(inv);
	inv->live = 1;
	vtest_assert_eq(vdxg_ref3d_invoke(&ctx, &tmem, VDXG_3D_STAGE_VERTEX,
					  inv, &f), VDXG_FAULT_SHADER);
	vtest_assert_eq_u64(f.addr, A(O_VS) + 16 * (1 + 4));
	free(inv);

	/* An empty loop never ends; the fault is at its ENDLOOP. */
	vtest_assert_eq(vs_eval("VERT\nBGNLOOP\nENDLOOP\nEND\n", NULL, NULL, o,
				&visits), VDXG_FAULT_SHADER);

	/* Fragment programs too: every lane's loop counts once. */
	vtest_assert_eq(fs_eval(runaway_text(1, 2730), zero, 0xf), 0);
	vtest_assert_eq(finv.visits, VDXG_3D_MAX_STEPS);
	vtest_assert_eq(fs_eval(runaway_text(1, 2731), zero, 0xf),
			VDXG_FAULT_SHADER);

	/* In a draw: SHADER at the instruction, the draw's pixels unwritten. */
	fb_w = fb_h = 16;
	setup(VDXG_FMT_ARGB8888, 16, 16);
	wv(0, 0, 0, 0, 1, 1, 1, 1);
	wv(1, 16, 0, 0, 1, 1, 1, 1);
	wv(2, 0, 16, 0, 1, 1, 1, 1);
	fs(runaway_text(1, 2731));
	draw(VDXG_PRIM_TRIANGLES, 0, 3);
	RUN_FAULT(VDXG_FAULT_SHADER, A(O_FS) + 16 * (1 + 4));
	vtest_assert_eq(pix(VDXG_FMT_ARGB8888, 16, 0, 0), 0);
	vs(runaway_text(0, 2731));
	draw(VDXG_PRIM_POINTS, 0, 1);
	RUN_FAULT(VDXG_FAULT_SHADER, A(O_VS) + 16 * (1 + 4));
}

/* ------------------------------------------------------------- draws */

#define RED	0xffff0000u

/* Vertices 0 to 2: the triangle (1, 1), (7, 1), (1, 7), red. */
static void tri_1_7(void)
{
	wv(0, 1, 1, 0, 1, 0, 0, 1);
	wv(1, 7, 1, 0, 1, 0, 0, 1);
	wv(2, 1, 7, 0, 1, 0, 0, 1);
}

static void test_triangle_coverage(void)
{
	static const char *const tri[8] = {
		"........",
		".#####..",
		".####...",
		".###....",
		".##.....",
		".#......",
		"........",
		"........",
	};
	static const char *const none[8] = {
		"........", "........", "........", "........",
		"........", "........", "........", "........",
	};

	/*
	 * (1, 1), (7, 1), (1, 7): centres (px + 0.5, py + 0.5) strictly
	 * inside, or on the owned left (x = 1) and top (y = 1) edges, which
	 * no centre touches. The hypotenuse x + y = 8 does not own its
	 * centres (px + py = 7): it goes down-left (dy > 0).
	 */
	fb_w = fb_h = 8;
	setup(VDXG_FMT_ARGB8888, 8, 8);
	tri_1_7();
	draw(VDXG_PRIM_TRIANGLES, 0, 3);
	run_ok();
	check_picture(tri, RED, 0);

	/* area > 0: clockwise, back-facing; CULL back drops it. */
	setup(VDXG_FMT_ARGB8888, 8, 8);
	tri_1_7();
	set_reg(VDXG_3D_RASTER, VDXG_RASTER_CULL_BACK);
	draw(VDXG_PRIM_TRIANGLES, 0, 3);
	run_ok();
	check_picture(none, RED, 0);
	set_reg(VDXG_3D_RASTER, VDXG_RASTER_CULL_FRONT);
	draw(VDXG_PRIM_TRIANGLES, 0, 3);
	run_ok();
	check_picture(tri, RED, 0);
	/* FRONT_CW makes it front-facing: CULL front drops it. */
	setup(VDXG_FMT_ARGB8888, 8, 8);
	tri_1_7();
	set_reg(VDXG_3D_RASTER, VDXG_RASTER_CULL_FRONT |
		VDXG_RASTER_FRONT_CW);
	draw(VDXG_PRIM_TRIANGLES, 0, 3);
	run_ok();
	check_picture(none, RED, 0);

	/* FACE: (-1, 0, 0, 1) back, (1, 0, 0, 1) front (counter-clockwise). */
	setup(VDXG_FMT_ARGB8888, 8, 8);
	tri_1_7();
	fs("FRAG\nMOV OUT[0], IN[9]\nEND\n");
	draw(VDXG_PRIM_TRIANGLES, 0, 3);
	run_ok();
	check_picture(tri, 0xff000000, 0);
	wv(3, 1, 1, 0, 0, 0, 0, 0);
	wv(4, 1, 7, 0, 0, 0, 0, 0);
	wv(5, 7, 1, 0, 0, 0, 0, 0);
	draw(VDXG_PRIM_TRIANGLES, 3, 3);
	run_ok();
	check_picture(tri, RED, 0);

	/* SCISSOR: [2, 4) x [1, 3) */
	setup(VDXG_FMT_ARGB8888, 8, 8);
	tri_1_7();
	set_reg(VDXG_3D_SCISSOR_MIN, VDXG_RD_XY(2, 1));
	set_reg(VDXG_3D_SCISSOR_MAX, VDXG_RD_XY(4, 3));
	set_reg(VDXG_3D_RASTER, VDXG_RASTER_SCISSOR);
	draw(VDXG_PRIM_TRIANGLES, 0, 3);
	run_ok();
	{
		static const char *const sc[8] = {
			"........", "..##....", "..##....", "........",
			"........", "........", "........", "........",
		};
		check_picture(sc, RED, 0);
	}
}

/* Every pixel's stencil (D24S8, 8 x 8) is N. */
static void check_stencil_all(uint32_t n)
{
	uint32_t x, y, s;

	for (y = 0; y < fb_h; y++)
		for (x = 0; x < fb_w; x++) {
			s = depth_word(VDXG_FMT_D24S8, fb_w, x, y) >> 24;
			vtest_assert_f(s == n, "stencil (%u, %u) is %u, want %u",
				       x, y, s, n);
		}
}

static void test_shared_edges(void)
{
	/*
	 * Every draw covers the 8 x 8 target with triangles whose edges run
	 * through pixel centres; stencil INCR counts the fragments of each
	 * pixel: exactly one a draw.
	 */
	fb_w = fb_h = 8;
	setup(VDXG_FMT_ARGB8888, 8, 8);
	surface(VDXG_SLOT_DEPTH, O_DEPTH, VDXG_FMT_D24S8, 8, 8);
	set_reg(VDXG_3D_STENCIL_FRONT, VDXG_STENCIL_TEST |
		VDXG_STENCIL_FUNC(VDXG_FUNC_ALWAYS) |
		VDXG_STENCIL_ZPASS_OP(VDXG_SOP_INCR) |
		VDXG_STENCIL_WRITE_MASK(0xff));
	/* Two triangles on the diagonal (0, 0)-(8, 8). */
	wv(0, 0, 0, 0, 1, 0, 0, 1);
	wv(1, 8, 0, 0, 1, 0, 0, 1);
	wv(2, 8, 8, 0, 1, 0, 0, 1);
	wv(3, 0, 0, 0, 1, 0, 0, 1);
	wv(4, 8, 8, 0, 1, 0, 0, 1);
	wv(5, 0, 8, 0, 1, 0, 0, 1);
	draw(VDXG_PRIM_TRIANGLES, 0, 6);
	run_ok();
	check_stencil_all(1);

	/* A fan around the pixel centre (3.5, 4.5), the sides too. */
	wv(0, 3.5f, 4.5f, 0, 1, 0, 0, 1);
	wv(1, 0, 0, 0, 1, 0, 0, 1);
	wv(2, 3.5f, 0, 0, 1, 0, 0, 1);
	wv(3, 8, 0, 0, 1, 0, 0, 1);
	wv(4, 8, 4.5f, 0, 1, 0, 0, 1);
	wv(5, 8, 8, 0, 1, 0, 0, 1);
	wv(6, 0, 8, 0, 1, 0, 0, 1);
	wv(7, 0, 4.5f, 0, 1, 0, 0, 1);
	wv(8, 0, 0, 0, 1, 0, 0, 1);
	draw(VDXG_PRIM_TRIANGLE_FAN, 0, 9);
	run_ok();
	check_stencil_all(2);

	/* A strip, both windings. */
	wv(0, 0, 0, 0, 1, 0, 0, 1);
	wv(1, 8, 0, 0, 1, 0, 0, 1);
	wv(2, 0, 2.5f, 0, 1, 0, 0, 1);
	wv(3, 8, 5.5f, 0, 1, 0, 0, 1);
	wv(4, 0, 8, 0, 1, 0, 0, 1);
	wv(5, 8, 8, 0, 1, 0, 0, 1);
	draw(VDXG_PRIM_TRIANGLE_STRIP, 0, 6);
	run_ok();
	check_stencil_all(3);
	/*
	 * The strip's triangles all face one way (clockwise: area > 0, back
	 * facing): CULL back drops every one, CULL front none.
	 */
	set_reg(VDXG_3D_RASTER, VDXG_RASTER_CULL_BACK);
	draw(VDXG_PRIM_TRIANGLE_STRIP, 0, 6);
	run_ok();
	check_stencil_all(3);
	set_reg(VDXG_3D_RASTER, VDXG_RASTER_CULL_FRONT);
	draw(VDXG_PRIM_TRIANGLE_STRIP, 0, 6);
	run_ok();
	check_stencil_all(4);
}

/* DST pixel (x, y) of the ARGB8888 target is WANT. */
static void assert_pix(uint32_t x, uint32_t y, uint32_t want)
{
	uint32_t got = pix(VDXG_FMT_ARGB8888, fb_w, x, y);

	vtest_assert_f(got == want, "pixel (%u, %u) is 0x%08x, want 0x%08x",
		       x, y, got, want);
}

/*
 * One triangle per clip plane, with a viewport that puts the x or y
 * guard band planes (G w = 4 w) inside the 16 x 16 target: the pixels
 * beyond a plane stay unwritten, those before it are drawn.
 */
static void test_clip_planes(void)
{
	fb_w = fb_h = 16;

	/* +x: X = 2x + 4, the plane x = 4w at X = 12. */
	setup(VDXG_FMT_ARGB8888, 16, 16);
	set_regf(VDXG_3D_VIEWPORT_SCALE(0), 2.0f);
	set_regf(VDXG_3D_VIEWPORT_TRANSLATE(0), 4.0f);
	cv(0, -2, -1, 0, 1, 1, 0, 0, 1);
	cv(1, 6, -1, 0, 1, 1, 0, 0, 1);
	cv(2, 6, 1, 0, 1, 1, 0, 0, 1);
	draw(VDXG_PRIM_TRIANGLES, 0, 3);
	run_ok();
	assert_pix(11, 5, RED);
	assert_pix(12, 5, 0);
	assert_pix(15, 5, 0);
	assert_pix(5, 11, 0);

	/* -x: X = 2x + 12, the plane x = -4w at X = 4. */
	setup(VDXG_FMT_ARGB8888, 16, 16);
	set_regf(VDXG_3D_VIEWPORT_SCALE(0), 2.0f);
	set_regf(VDXG_3D_VIEWPORT_TRANSLATE(0), 12.0f);
	cv(0, -6, -1, 0, 1, 1, 0, 0, 1);
	cv(1, 2, -1, 0, 1, 1, 0, 0, 1);
	cv(2, -6, 1, 0, 1, 1, 0, 0, 1);
	draw(VDXG_PRIM_TRIANGLES, 0, 3);
	run_ok();
	assert_pix(3, 5, 0);
	assert_pix(0, 0, 0);
	assert_pix(4, 5, RED);
	assert_pix(9, 5, RED);

	/* +y: Y = 2y + 4, the plane at Y = 12. */
	setup(VDXG_FMT_ARGB8888, 16, 16);
	set_regf(VDXG_3D_VIEWPORT_SCALE(1), 2.0f);
	set_regf(VDXG_3D_VIEWPORT_TRANSLATE(1), 4.0f);
	cv(0, -1, -2, 0, 1, 1, 0, 0, 1);
	cv(1, -1, 6, 0, 1, 1, 0, 0, 1);
	cv(2, 1, 6, 0, 1, 1, 0, 0, 1);
	draw(VDXG_PRIM_TRIANGLES, 0, 3);
	run_ok();
	assert_pix(5, 11, RED);
	assert_pix(5, 12, 0);
	assert_pix(5, 15, 0);

	/* -y: Y = 2y + 12, the plane at Y = 4. */
	setup(VDXG_FMT_ARGB8888, 16, 16);
	set_regf(VDXG_3D_VIEWPORT_SCALE(1), 2.0f);
	set_regf(VDXG_3D_VIEWPORT_TRANSLATE(1), 12.0f);
	cv(0, -1, -6, 0, 1, 1, 0, 0, 1);
	cv(1, -1, 2, 0, 1, 1, 0, 0, 1);
	cv(2, 1, -6, 0, 1, 1, 0, 0, 1);
	draw(VDXG_PRIM_TRIANGLES, 0, 3);
	run_ok();
	assert_pix(5, 3, 0);
	assert_pix(5, 4, RED);

	/*
	 * Far (w - z) and near (w + z): z = ±x' with x' = X / 8, so the
	 * plane |z| = w cuts at X = 8 (t = 0.5 exactly).
	 */
	setup(VDXG_FMT_ARGB8888, 16, 16);
	cv(0, -1, -1, 0, 1, 1, 0, 0, 1);
	cv(1, 1, -1, 2, 1, 1, 0, 0, 1);
	cv(2, -1, 1, 0, 1, 1, 0, 0, 1);
	cv(3, -1, -1, 0, 1, 0, 1, 0, 1);
	cv(4, 1, -1, -2, 1, 0, 1, 0, 1);
	cv(5, -1, 1, 0, 1, 0, 1, 0, 1);
	draw(VDXG_PRIM_TRIANGLES, 0, 3);
	run_ok();
	assert_pix(7, 0, RED);
	assert_pix(7, 5, RED);
	assert_pix(8, 0, 0);
	assert_pix(8, 5, 0);
	clear(VDXG_CLEAR_COLOR, 0, 0, 16, 16, 0, 0, 0, 0, 0, 0);
	draw(VDXG_PRIM_TRIANGLES, 3, 3);
	run_ok();
	assert_pix(7, 0, 0xff00ff00);
	assert_pix(7, 5, 0xff00ff00);
	assert_pix(8, 0, 0);
	assert_pix(8, 5, 0);

	/* A NaN or infinite position drops the primitive. */
	setup(VDXG_FMT_ARGB8888, 16, 16);
	cv(0, -1, -1, 0, 1, 1, 0, 0, 1);
	cv(1, 1, -1, 0, 1, 1, 0, 0, 1);
	cv(2, -1, 1, 0, __builtin_inff(), 1, 0, 0, 1);
	draw(VDXG_PRIM_TRIANGLES, 0, 3);
	run_ok();
	assert_pix(0, 0, 0);
	/* Behind the eye (w < 0 everywhere): clipped away. */
	cv(2, -1, 1, 0, -1, 1, 0, 0, 1);
	cv(0, -1, -1, 0, -1, 1, 0, 0, 1);
	cv(1, 1, -1, 0, -1, 1, 0, 0, 1);
	draw(VDXG_PRIM_TRIANGLES, 0, 3);
	run_ok();
	assert_pix(0, 0, 0);
	assert_pix(8, 8, 0);

	/* Points: dropped outside the view volume, guard band or not. */
	setup(VDXG_FMT_ARGB8888, 16, 16);
	cv(0, 0.95f, 0, 0, 1, 1, 0, 0, 1);
	cv(1, 1.05f, 0, 0, 1, 1, 0, 0, 1);
	cv(2, 0, 0, 1.5f, 1, 1, 0, 0, 1);
	draw(VDXG_PRIM_POINTS, 0, 3);
	run_ok();
	assert_pix(15, 7, RED);
	assert_pix(15, 8, 0);
	assert_pix(8, 8, 0);
	assert_pix(7, 7, 0);
}

/* A triangle over the whole 4 x 4 target, back-facing (or front). */
static void big_triangle(uint32_t first, bool front, float z, float r,
			 float g, float b, float a)
{
	cv(first, -1, -1, z, 1, r, g, b, a);
	cv(first + (front ? 2 : 1), 3, -1, z, 1, r, g, b, a);
	cv(first + (front ? 1 : 2), -1, 3, z, 1, r, g, b, a);
}

static void test_depth_funcs(void)
{
	/* Columns hold 0.25, 0.5, 0.75, 1.0 (D16); the fragments 0.5. */
	static const char *const pass[8] = {
		"....", "..##", ".#..", ".###", "#...", "#.##", "##..", "####",
	};
	static const uint16_t stored[4] = { 16384, 32768, 49151, 65535 };
	uint32_t func, x, y;

	fb_w = fb_h = 4;
	for (func = 0; func < 8; func++) {
		setup(VDXG_FMT_ARGB8888, 4, 4);
		surface(VDXG_SLOT_DEPTH, O_DEPTH, VDXG_FMT_D16, 4, 4);
		for (x = 0; x < 4; x++)
			clear(VDXG_CLEAR_DEPTH, x, 0, 1, 4, 0, 0, 0, 0,
			      0.25f * (float)(x + 1), 0);
		set_reg(VDXG_3D_DEPTH, VDXG_DEPTH_TEST | VDXG_DEPTH_WRITE |
			VDXG_DEPTH_FUNC(func));
		big_triangle(0, false, 0, 0, 1, 0, 1);
		draw(VDXG_PRIM_TRIANGLES, 0, 3);
		run_ok();
		for (y = 0; y < 4; y++)
			for (x = 0; x < 4; x++) {
				bool p = pass[func][x] == '#';

				vtest_assert_f(pix(VDXG_FMT_ARGB8888, 4, x, y) ==
					       (p ? 0xff00ff00 : 0),
					       "func %u pixel (%u, %u)", func,
					       x, y);
				vtest_assert_eq(depth_word(VDXG_FMT_D16, 4, x,
							   y),
						p ? 32768 : stored[x]);
			}
	}

	/* TEST without WRITE keeps the depth; WRITE without TEST stores. */
	setup(VDXG_FMT_ARGB8888, 4, 4);
	surface(VDXG_SLOT_DEPTH, O_DEPTH, VDXG_FMT_D24S8, 4, 4);
	clear(VDXG_CLEAR_DEPTH | VDXG_CLEAR_STENCIL, 0, 0, 4, 4, 0, 0, 0, 0,
	      1.0f, 0x5a);
	run_ok();
	/* D24's 1.0: 16777215 + 0.5 rounds to 2^24, limited to 2^24 - 1 */
	vtest_assert_eq(depth_word(VDXG_FMT_D24S8, 4, 2, 2), 0x5affffff);
	set_reg(VDXG_3D_DEPTH, VDXG_DEPTH_TEST |
		VDXG_DEPTH_FUNC(VDXG_FUNC_LESS));
	big_triangle(0, false, 0, 0, 1, 0, 1);
	draw(VDXG_PRIM_TRIANGLES, 0, 3);
	run_ok();
	assert_pix(2, 2, 0xff00ff00);
	vtest_assert_eq(depth_word(VDXG_FMT_D24S8, 4, 2, 2), 0x5affffff);
	set_reg(VDXG_3D_DEPTH, VDXG_DEPTH_WRITE);
	draw(VDXG_PRIM_TRIANGLES, 0, 3);
	run_ok();
	/* 0.5 * 16777215 + 0.5 = 8388608, stencil kept */
	vtest_assert_eq(depth_word(VDXG_FMT_D24S8, 4, 2, 2), 0x5a800000);

	/*
	 * Polygon offset: a flat triangle (dz 0) with UNITS 2.5 on D16:
	 * z = 0.5 + 2.5 * 2^-16, 32769.99996 + 0.5 truncates to 32770.
	 */
	setup(VDXG_FMT_ARGB8888, 4, 4);
	surface(VDXG_SLOT_DEPTH, O_DEPTH, VDXG_FMT_D16, 4, 4);
	set_reg(VDXG_3D_RASTER, VDXG_RASTER_POLY_OFFSET);
	set_regf(VDXG_3D_POLY_OFFSET_UNITS, 2.5f);
	set_regf(VDXG_3D_POLY_OFFSET_FACTOR, 1000.0f);
	set_reg(VDXG_3D_DEPTH, VDXG_DEPTH_WRITE);
	big_triangle(0, false, 0, 0, 1, 0, 1);
	draw(VDXG_PRIM_TRIANGLES, 0, 3);
	run_ok();
	vtest_assert_eq(depth_word(VDXG_FMT_D16, 4, 1, 1), 32770);
	/* ...and not to lines. */
	set_regf(VDXG_3D_POLY_OFFSET_UNITS, 2000.0f);
	cv(0, -1, -0.25f, 0, 1, 1, 1, 1, 1);
	cv(1, 1, -0.25f, 0, 1, 1, 1, 1, 1);
	draw(VDXG_PRIM_LINES, 0, 2);
	run_ok();
	vtest_assert_eq(depth_word(VDXG_FMT_D16, 4, 1, 1), 32768);
	vtest_assert_eq(depth_word(VDXG_FMT_D16, 4, 1, 2), 32770);
}

#define SF(func, fail, zfail, zpass, vm, wm)				\
	(VDXG_STENCIL_TEST | VDXG_STENCIL_FUNC(VDXG_FUNC_##func) |	\
	 VDXG_STENCIL_FAIL_OP(VDXG_SOP_##fail) |			\
	 VDXG_STENCIL_ZFAIL_OP(VDXG_SOP_##zfail) |			\
	 VDXG_STENCIL_ZPASS_OP(VDXG_SOP_##zpass) |			\
	 VDXG_STENCIL_VALUE_MASK(vm) | VDXG_STENCIL_WRITE_MASK(wm))

static void test_stencil(void)
{
	static const struct {
		uint32_t s0, front, back, ref, depth;
		bool front_face, drawn;
		uint32_t want;
	} c[] = {
		{ 5, SF(ALWAYS, ZERO, ZERO, KEEP, 0xff, 0xff), 0, 9, 0, false,
		  true, 5 },
		{ 5, SF(ALWAYS, KEEP, KEEP, ZERO, 0xff, 0xff), 0, 9, 0, false,
		  true, 0 },
		{ 5, SF(ALWAYS, KEEP, KEEP, REPLACE, 0xff, 0xff), 0, 9, 0,
		  false, true, 9 },
		{ 5, SF(ALWAYS, KEEP, KEEP, INCR, 0xff, 0xff), 0, 9, 0, false,
		  true, 6 },
		{ 255, SF(ALWAYS, KEEP, KEEP, INCR, 0xff, 0xff), 0, 9, 0,
		  false, true, 255 },
		{ 5, SF(ALWAYS, KEEP, KEEP, DECR, 0xff, 0xff), 0, 9, 0, false,
		  true, 4 },
		{ 0, SF(ALWAYS, KEEP, KEEP, DECR, 0xff, 0xff), 0, 9, 0, false,
		  true, 0 },
		{ 255, SF(ALWAYS, KEEP, KEEP, INCR_WRAP, 0xff, 0xff), 0, 9, 0,
		  false, true, 0 },
		{ 0, SF(ALWAYS, KEEP, KEEP, DECR_WRAP, 0xff, 0xff), 0, 9, 0,
		  false, true, 255 },
		{ 5, SF(ALWAYS, KEEP, KEEP, INVERT, 0xff, 0xff), 0, 9, 0,
		  false, true, 0xfa },
		/* write mask: (old & ~0x0f) | (0xf9 & 0x0f) */
		{ 0x35, SF(ALWAYS, KEEP, KEEP, REPLACE, 0xff, 0x0f), 0, 0xf9, 0,
		  false, true, 0x39 },
		/* the test fails: FAIL_OP, no colour, no depth */
		{ 5, SF(NEVER, REPLACE, ZERO, ZERO, 0xff, 0xff), 0, 9, 0, false,
		  false, 9 },
		/* value mask: (0x15 & 0x0f) == (0x05 & 0x0f) */
		{ 5, SF(EQUAL, ZERO, ZERO, INCR, 0x0f, 0xff), 0, 0x15, 0,
		  false, true, 6 },
		{ 5, SF(LESS, INVERT, ZERO, ZERO, 0xff, 0xff), 0, 4, 0, false,
		  true, 0 },
		{ 5, SF(LESS, INVERT, ZERO, ZERO, 0xff, 0xff), 0, 5, 0, false,
		  false, 0xfa },
		/* the depth test fails: ZFAIL_OP */
		{ 5, SF(ALWAYS, ZERO, INCR, ZERO, 0xff, 0xff), 0, 9,
		  VDXG_DEPTH_TEST | VDXG_DEPTH_FUNC(VDXG_FUNC_NEVER), false,
		  false, 6 },
		{ 5, SF(ALWAYS, ZERO, INCR, REPLACE, 0xff, 0xff), 0, 9,
		  VDXG_DEPTH_TEST | VDXG_DEPTH_FUNC(VDXG_FUNC_LESS), false,
		  true, 9 },
		/* the back face takes STENCIL_BACK only with TWO_SIDED */
		{ 5, SF(ALWAYS, ZERO, ZERO, REPLACE, 0xff, 0xff),
		  SF(ALWAYS, ZERO, ZERO, INCR, 0xff, 0xff), 0x3309, 0, false,
		  true, 6 },
		{ 5, SF(ALWAYS, ZERO, ZERO, REPLACE, 0xff, 0xff),
		  SF(ALWAYS, ZERO, ZERO, INCR, 0xff, 0xff), 0x3309, 0, true,
		  true, 9 },
		{ 5, SF(ALWAYS, ZERO, ZERO, INCR, 0xff, 0xff),
		  SF(ALWAYS, ZERO, ZERO, REPLACE, 0xff, 0xff), 0x3309, 0, false,
		  true, 0x33 },
		/* TWO_SIDED's bit is the TEST bit: the back face is tested */
		{ 5, 0, SF(NEVER, REPLACE, ZERO, ZERO, 0xff, 0xff), 0x3309, 0,
		  false, false, 0x33 },
		/* without TEST in STENCIL_FRONT nothing happens */
		{ 5, SF(NEVER, REPLACE, ZERO, ZERO, 0xff, 0xff) &
		  ~VDXG_STENCIL_TEST, 0, 9, 0, false, true, 5 },
	};
	uint32_t i;

	fb_w = fb_h = 4;
	for (i = 0; i < VTEST_ARRAY_SIZE(c); i++) {
		setup(VDXG_FMT_ARGB8888, 4, 4);
		surface(VDXG_SLOT_DEPTH, O_DEPTH, VDXG_FMT_D24S8, 4, 4);
		clear(VDXG_CLEAR_DEPTH | VDXG_CLEAR_STENCIL, 0, 0, 4, 4, 0, 0,
		      0, 0, 0.75f, c[i].s0);
		set_reg(VDXG_3D_STENCIL_FRONT, c[i].front);
		set_reg(VDXG_3D_STENCIL_BACK, c[i].back);
		set_reg(VDXG_3D_STENCIL_REF, c[i].ref);
		set_reg(VDXG_3D_DEPTH, c[i].depth | (c[i].depth ?
			VDXG_DEPTH_WRITE : 0));
		big_triangle(0, c[i].front_face, 0, 0, 1, 0, 1);
		draw(VDXG_PRIM_TRIANGLES, 0, 3);
		run_ok();
		vtest_assert_f(depth_word(VDXG_FMT_D24S8, 4, 1, 1) >> 24 ==
			       c[i].want, "case %u: stencil %u, want %u", i,
			       depth_word(VDXG_FMT_D24S8, 4, 1, 1) >> 24,
			       c[i].want);
		vtest_assert_f(pix(VDXG_FMT_ARGB8888, 4, 1, 1) ==
			       (c[i].drawn ? 0xff00ff00 : 0),
			       "case %u: colour 0x%08x", i,
			       pix(VDXG_FMT_ARGB8888, 4, 1, 1));
		/*
		 * 0.75 * 16777215 rounds to 12582911, + 0.5 is a tie that
		 * rounds to even: 12582912. A passing depth test writes
		 * 8388608.
		 */
		vtest_assert_eq(depth_word(VDXG_FMT_D24S8, 4, 1, 1) & 0xffffff,
				c[i].depth && c[i].drawn ? 0x800000 : 12582912);
	}
	/* Stencil needs D24S8: on D16 the test is off. */
	setup(VDXG_FMT_ARGB8888, 4, 4);
	surface(VDXG_SLOT_DEPTH, O_DEPTH, VDXG_FMT_D16, 4, 4);
	set_reg(VDXG_3D_STENCIL_FRONT, SF(NEVER, ZERO, ZERO, ZERO, 0xff, 0xff));
	big_triangle(0, false, 0, 0, 1, 0, 1);
	draw(VDXG_PRIM_TRIANGLES, 0, 3);
	run_ok();
	assert_pix(1, 1, 0xff00ff00);
}

#define BL(req, rs, rd, aeq, as, ad)					\
	(VDXG_BLEND_ENABLE | VDXG_BLEND_RGB_EQ(VDXG_BLEQ_##req) |	\
	 VDXG_BLEND_RGB_SRC(VDXG_BLF_##rs) |				\
	 VDXG_BLEND_RGB_DST(VDXG_BLF_##rd) |				\
	 VDXG_BLEND_A_EQ(VDXG_BLEQ_##aeq) |				\
	 VDXG_BLEND_A_SRC(VDXG_BLF_##as) | VDXG_BLEND_A_DST(VDXG_BLF_##ad))

static const char *const fs_const =
	"FRAG\nIMM[0] = { 1.0, 0.5, 0.25, 0.5 }\nMOV OUT[0], IMM[0]\nEND\n";

static void test_blend(void)
{
	/*
	 * s = (1, 0.5, 0.25, 0.5); d = CLEAR's (0, 1, 0.4, 0.6) stored as
	 * bytes (0, 255, 102, 153) and read back as c / 255; k = (0.2, 0.8,
	 * 1, 0.4). Each result worked out in binary32, then converted:
	 * e.g. SRC_ALPHA, ONE_MINUS_SRC_ALPHA: g = 0.5 * 0.5 + 1 * 0.5 = 0.75
	 * -> 191.25 + 0.5 -> 191.
	 */
	static const struct {
		uint32_t blend, want;
	} c[] = {
		{ BL(ADD, SRC_ALPHA, ONE_MINUS_SRC_ALPHA, ADD, ONE, ZERO),
		  0x8080bf53 },
		{ BL(ADD, ONE, ONE, ADD, ONE, ONE), 0xffffffa6 },
		{ BL(SUBTRACT, ONE, ONE, SUBTRACT, ONE, ONE), 0x00ff0000 },
		{ BL(REVERSE_SUBTRACT, ONE, ONE, REVERSE_SUBTRACT, ONE, ONE),
		  0x1a008026 },
		{ BL(MIN, ONE, ONE, MAX, ONE, ONE), 0x99008040 },
		{ BL(ADD, CONST_COLOR, ONE_MINUS_CONST_COLOR, ADD, CONST_ALPHA,
		     ONE_MINUS_CONST_ALPHA), 0x8f339940 },
		{ BL(ADD, SRC_ALPHA_SATURATE, ONE, ADD, SRC_ALPHA_SATURATE,
		     ZERO), 0x8066ff80 },
		{ BL(ADD, DST_COLOR, ZERO, ADD, ZERO, DST_ALPHA), 0x5c00801a },
		{ BL(ADD, SRC_COLOR, ONE_MINUS_SRC_COLOR, ADD,
		     ONE_MINUS_DST_ALPHA, DST_ALPHA), 0x8fffbf5c },
		{ BL(ADD, ONE_MINUS_DST_COLOR, DST_COLOR, ADD, DST_ALPHA,
		     ONE_MINUS_DST_ALPHA), 0x8affff4f },
		/* disabled blending; WRITE_DISABLE G, then A */
		{ 0, 0x80ff8040 },
		{ VDXG_BLEND_WRITE_DISABLE(2), 0x80ffff40 },
		{ VDXG_BLEND_WRITE_DISABLE(8), 0x99ff8040 },
		{ VDXG_BLEND_WRITE_DISABLE(15), 0x9900ff66 },
	};
	uint32_t i;

	fb_w = fb_h = 4;
	for (i = 0; i < VTEST_ARRAY_SIZE(c); i++) {
		setup(VDXG_FMT_ARGB8888, 4, 4);
		fs(fs_const);
		clear(VDXG_CLEAR_COLOR, 0, 0, 4, 4, 0, 1, 0.4f, 0.6f, 0, 0);
		run_ok();
		vtest_assert_eq(pix(VDXG_FMT_ARGB8888, 4, 1, 1), 0x9900ff66);
		set_regf(VDXG_3D_BLEND_COLOR(0), 0.2f);
		set_regf(VDXG_3D_BLEND_COLOR(1), 0.8f);
		set_regf(VDXG_3D_BLEND_COLOR(2), 1.0f);
		set_regf(VDXG_3D_BLEND_COLOR(3), 0.4f);
		set_reg(VDXG_3D_BLEND, c[i].blend);
		big_triangle(0, false, 0, 0, 0, 0, 0);
		draw(VDXG_PRIM_TRIANGLES, 0, 3);
		run_ok();
		vtest_assert_f(pix(VDXG_FMT_ARGB8888, 4, 1, 1) == c[i].want,
			       "case %u: 0x%08x, want 0x%08x", i,
			       pix(VDXG_FMT_ARGB8888, 4, 1, 1), c[i].want);
	}
	/*
	 * BLEND_COLOR is clamped: k = (NaN, -1, 2, 1) is (0, 0, 1, 1), so b
	 * = 0.25 * 1 (64), not 0.25 * 2.
	 */
	setup(VDXG_FMT_ARGB8888, 4, 4);
	fs(fs_const);
	set_regf(VDXG_3D_BLEND_COLOR(0), __builtin_nanf(""));
	set_regf(VDXG_3D_BLEND_COLOR(1), -1.0f);
	set_regf(VDXG_3D_BLEND_COLOR(2), 2.0f);
	set_regf(VDXG_3D_BLEND_COLOR(3), 1.0f);
	set_reg(VDXG_3D_BLEND, BL(ADD, CONST_COLOR, ZERO, ADD, ONE, ZERO));
	big_triangle(0, false, 0, 0, 0, 0, 0);
	draw(VDXG_PRIM_TRIANGLES, 0, 3);
	run_ok();
	assert_pix(1, 1, 0x80000040);
}

/* The colour (1, 0.5, 0.25, 0.5) written in each target format. */
static void test_target_formats(void)
{
	static const struct {
		uint32_t fmt, disable, want;
	} c[] = {
		{ VDXG_FMT_XRGB8888, 0, 0xffff8040 },
		{ VDXG_FMT_XRGB8888, 8, 0x00ff8040 },
		{ VDXG_FMT_ARGB8888, 0, 0x80ff8040 },
		{ VDXG_FMT_ABGR8888, 0, 0x804080ff },
		/* r5 31, g6 0.5 * 63 + 0.5 = 32, b5 0.25 * 31 + 0.5 -> 8 */
		{ VDXG_FMT_RGB565, 0, 0xfc08 },
		{ VDXG_FMT_RGB565, 1, 0x0408 },
		/* 15, 8, 4, 8 */
		{ VDXG_FMT_RGBA4444, 0, 0xf848 },
		{ VDXG_FMT_RGBA4444, 4, 0xf808 },
		/* 31, 16, 8, 1 */
		{ VDXG_FMT_RGBA5551, 0, 0xfc11 },
		{ VDXG_FMT_RGBA5551, 8, 0xfc10 },
	};
	uint32_t i;

	fb_w = fb_h = 4;
	for (i = 0; i < VTEST_ARRAY_SIZE(c); i++) {
		setup(c[i].fmt, 4, 4);
		fs(fs_const);
		set_reg(VDXG_3D_BLEND, VDXG_BLEND_WRITE_DISABLE(c[i].disable));
		big_triangle(0, false, 0, 0, 0, 0, 0);
		draw(VDXG_PRIM_TRIANGLES, 0, 3);
		run_ok();
		vtest_assert_f(pix(c[i].fmt, 4, 2, 3) == c[i].want,
			       "case %u: 0x%08x, want 0x%08x", i,
			       pix(c[i].fmt, 4, 2, 3), c[i].want);
	}
	/* Blending reads a format without alpha as 1: DST_ALPHA = 1. */
	setup(VDXG_FMT_RGB565, 4, 4);
	fs(fs_const);
	set_reg(VDXG_3D_BLEND, BL(ADD, ZERO, DST_ALPHA, ADD, ONE, ZERO));
	clear(VDXG_CLEAR_COLOR, 0, 0, 4, 4, 0, 1, 0.5f, 0, 0, 0);
	big_triangle(0, false, 0, 0, 0, 0, 0);
	draw(VDXG_PRIM_TRIANGLES, 0, 3);
	run_ok();
	/* CLEAR: g6 63, b5 0.5 * 31 + 0.5 = 16; kept by d * 1 */
	vtest_assert_eq(pix(VDXG_FMT_RGB565, 4, 0, 0), 0x07f0);

	/* Without DST only depth is written. */
	reset();
	surface(VDXG_SLOT_DEPTH, O_DEPTH, VDXG_FMT_D16, 4, 4);
	set_regf(VDXG_3D_VIEWPORT_SCALE(0), 2);
	set_regf(VDXG_3D_VIEWPORT_SCALE(1), 2);
	set_regf(VDXG_3D_VIEWPORT_SCALE(2), 0.5f);
	set_regf(VDXG_3D_VIEWPORT_TRANSLATE(0), 2);
	set_regf(VDXG_3D_VIEWPORT_TRANSLATE(1), 2);
	set_regf(VDXG_3D_VIEWPORT_TRANSLATE(2), 0.5f);
	set_reg(VDXG_3D_ELEMENT(0),
		VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_FLOAT32, 4), 0, 0));
	cmd(VDXG_RD_SET_VERTEX_BUFFER, 5, 0, LO(A(O_VB)), HI(A(O_VB)), 0x10000,
	    VB_STRIDE);
	vs("VERT\nMOV OUT[0], IN[0]\nEND\n");
	fs(fs_const);
	set_reg(VDXG_3D_DEPTH, VDXG_DEPTH_WRITE);
	big_triangle(0, false, 0.5f, 0, 0, 0, 0);
	draw(VDXG_PRIM_TRIANGLES, 0, 3);
	run_ok();
	/* Z = 0.75: 49151.25 + 0.5 */
	vtest_assert_eq(depth_word(VDXG_FMT_D16, 4, 3, 3), 49151);
	vtest_assert_eq(get32(O_DST), 0);
}

/* ----------------------------------------------------------- textures */

static void set_texture(uint32_t unit, uint32_t off, uint32_t size,
			uint32_t desc, uint32_t w, uint32_t h)
{
	cmd(VDXG_RD_SET_TEXTURE, 6, unit, LO(A(off)), HI(A(off)), size, desc,
	    VDXG_RD_XY(w, h));
}

/* The bound vertex program run with IN[0] = (x, y, z, w): OUT[0]. */
static void vs_at(float x, float y, float z, float w, uint32_t out[4])
{
	static struct vdxg_ref3d_invocation inv;
	struct vdxg_ref3d_fault f;

	memset(&inv, 0, sizeof(inv));
	inv.in[0][0][0] = fbits(x);
	inv.in[0][0][1] = fbits(y);
	inv.in[0][0][2] = fbits(z);
	inv.in[0][0][3] = fbits(w);
	inv.live = 1;
	vtest_assert_eq(vdxg_ref3d_invoke(&ctx, &tmem, VDXG_3D_STAGE_VERTEX,
					  &inv, &f), 0);
	memcpy(out, inv.out[0][0], 16);
}

/* OUT[0].x of the bound vertex program at (x, y, z, w). */
static uint32_t vs_x(float x, float y, float z, float w)
{
	uint32_t o[4];

	vs_at(x, y, z, w, o);
	return o[0];
}

#define N51 0x3e4ccccd	/* 51 / 255 = 0.2 */
#define N102 0x3ecccccd	/* 102 / 255 = 0.4 */

static void test_texture_filters(void)
{
	/* 2 x 2 ARGB8888: R of (0, 0) 0, (1, 0) 51, (0, 1) 102, (1, 1) 255 */
	static const uint32_t texels[4] = {
		0xff000000, 0xff330000, 0xff660000, 0xffff0000,
	};
	static const struct {
		uint32_t wrap;
		float s;
		uint32_t want;
	} w[] = {
		{ VDXG_WRAP_REPEAT, 0.25f, 0 },
		{ VDXG_WRAP_REPEAT, 0.75f, N51 },
		{ VDXG_WRAP_REPEAT, 1.25f, 0 },	/* floor(2.5) = 2 -> 0 */
		{ VDXG_WRAP_REPEAT, -0.25f, N51 },	/* -1 -> 1 */
		{ VDXG_WRAP_CLAMP, 1.25f, N51 },
		{ VDXG_WRAP_CLAMP, -0.25f, 0 },
		{ VDXG_WRAP_MIRROR, 1.25f, N51 },	/* 2 mod 4 = 2 -> 1 */
		{ VDXG_WRAP_MIRROR, 1.75f, 0 },	/* 3 -> 0 */
		{ VDXG_WRAP_MIRROR, -0.25f, 0 },	/* -1 mod 4 = 3 -> 0 */
		{ VDXG_WRAP_MIRROR, -0.75f, N51 },	/* -2 mod 4 = 2 -> 1 */
		{ VDXG_WRAP_MIRROR, 2.25f, 0 },	/* 4 -> 0 */
	};
	uint32_t i;

	reset();
	memcpy(mem + O_TEX, texels, sizeof(texels));
	set_texture(0, O_TEX, 16, VDXG_TEX_DESC(VDXG_FMT_ARGB8888, 1, 0), 2,
		    2);
	vs("VERT\nTEX OUT[0], IN[0], UNIT[0]\nEND\n");
	run_ok();
	for (i = 0; i < VTEST_ARRAY_SIZE(w); i++) {
		set_reg(VDXG_3D_SAMPLER(0), VDXG_SAMPLER_WRAP_S(w[i].wrap) |
			VDXG_SAMPLER_WRAP_T(VDXG_WRAP_CLAMP));
		run_ok();
		vtest_assert_f(vs_x(w[i].s, 0.25f, 0, 0) == w[i].want,
			       "case %u: 0x%08x", i, vs_x(w[i].s, 0.25f, 0, 0));
	}
	/* T wraps with WRAP_T: (0.25, 0.75) is texel (0, 1). */
	set_reg(VDXG_3D_SAMPLER(0), VDXG_SAMPLER_WRAP_T(VDXG_WRAP_REPEAT));
	run_ok();
	ASSERT_BITS(vs_x(0.25f, 0.75f, 0, 0), N102);
	ASSERT_BITS(vs_x(0.25f, -0.25f, 0, 0), N102);
	/* NaN coordinates: (int) NaN is 0 */
	ASSERT_BITS(vs_x(__builtin_nanf(""), __builtin_nanf(""), 0, 0), 0);

	/*
	 * Linear (MAG_LINEAR: in a vertex program the LOD is -inf): at the
	 * centre u = v = 0.5, a = b = 0.5: top = 0 + 0.5 * 0.2 = 0.1, bot =
	 * 0.4 + 0.5 * 0.6 = 0.7, 0.1 + 0.5 * 0.6 = 0.4.
	 */
	set_reg(VDXG_3D_SAMPLER(0), VDXG_SAMPLER_MAG_LINEAR);
	run_ok();
	ASSERT_BITS(vs_x(0.5f, 0.5f, 0, 0), N102);
	/* at texel centres the filter gives the texel */
	ASSERT_BITS(vs_x(0.75f, 0.25f, 0, 0), N51);
	/* u = 2 * 0 - 0.5: i0 = -1 (repeat: 1), a = 0.5; top 0.1 again */
	ASSERT_BITS(vs_x(0.0f, 0.25f, 0, 0), 0x3dcccccd);
	/* clamp to edge: i0 = -1 -> 0, i1 = 0 */
	set_reg(VDXG_3D_SAMPLER(0), VDXG_SAMPLER_MAG_LINEAR |
		VDXG_SAMPLER_WRAP_S(VDXG_WRAP_CLAMP));
	run_ok();
	ASSERT_BITS(vs_x(0.0f, 0.25f, 0, 0), 0);

	/* TXP divides by w: (0.375, 0.125) / 0.5 = (0.75, 0.25), nearest */
	vs("VERT\nTXP OUT[0], IN[0], UNIT[0]\nEND\n");
	set_reg(VDXG_3D_SAMPLER(0), 0);
	run_ok();
	ASSERT_BITS(vs_x(0.375f, 0.125f, 0, 0.5f), N51);
}

static void test_texture_mipmaps(void)
{
	/* 4 x 4 L8, 3 levels: 0 everywhere, then 255, then 51. */
	static const struct {
		uint32_t sampler;
		float lod;
		uint32_t want;
	} c[] = {
		{ VDXG_SAMPLER_MIP(VDXG_MIP_NEAREST), -1.0f, 0 },
		{ VDXG_SAMPLER_MIP(VDXG_MIP_NEAREST), 0.4f, 0 },
		{ VDXG_SAMPLER_MIP(VDXG_MIP_NEAREST), 0.6f, 0x3f800000 },
		{ VDXG_SAMPLER_MIP(VDXG_MIP_NEAREST), 1.6f, N51 },
		{ VDXG_SAMPLER_MIP(VDXG_MIP_NEAREST), 9.0f, N51 },
		{ VDXG_SAMPLER_MIP(VDXG_MIP_NONE), 5.0f, 0 },
		/* linear: r0 + f (r1 - r0) */
		{ VDXG_SAMPLER_MIP(VDXG_MIP_LINEAR), 0.25f, 0x3e800000 },
		{ VDXG_SAMPLER_MIP(VDXG_MIP_LINEAR), 1.5f, 0x3f19999a },
		{ VDXG_SAMPLER_MIP(VDXG_MIP_LINEAR), 2.5f, N51 },
		{ VDXG_SAMPLER_MIP(VDXG_MIP_LINEAR), 0.0f, 0 },
	};
	static const float lanes[4][2][4] = {
		{ { 0.0f, 0.0f, 0, 1.0f } }, { { 0.5f, 0.0f, 0, 1.0f } },
		{ { 0.0f, 0.0f, 0, 1.0f } }, { { 0.5f, 0.0f, 0, 1.0f } },
	};
	uint32_t i;

	reset();
	memset(mem + O_TEX, 0, 16);
	memset(mem + O_TEX + 16, 255, 8);
	memset(mem + O_TEX + 24, 51, 4);
	set_texture(0, O_TEX, 28, VDXG_TEX_DESC(VDXG_FMT_L8, 3, 0), 4, 4);
	vs("VERT\nTXL OUT[0], IN[0], UNIT[0]\nEND\n");
	run_ok();
	for (i = 0; i < VTEST_ARRAY_SIZE(c); i++) {
		set_reg(VDXG_3D_SAMPLER(0), c[i].sampler);
		run_ok();
		vtest_assert_f(vs_x(0.3f, 0.3f, 0, c[i].lod) == c[i].want,
			       "case %u: 0x%08x", i,
			       vs_x(0.3f, 0.3f, 0, c[i].lod));
	}
	/*
	 * The implicit LOD in a quad: ds/dx = 0.5, times W = 4: px = 4, lod
	 * = 0.5 * lg2(4) = 1 -> level 1 (MIP nearest: floor(1.5)). TXB adds
	 * a.w = 1: level 2. TXD with ds/dx = 0.25: lod 0, magnified: level 0.
	 */
	set_reg(VDXG_3D_SAMPLER(0), VDXG_SAMPLER_MIP(VDXG_MIP_NEAREST));
	run_ok();
	vtest_assert_eq(fs_eval("FRAG\nTEX OUT[0], IN[0], UNIT[0]\nEND\n",
				lanes, 0xf), 0);
	for (i = 0; i < 4; i++)
		ASSERT_BITS(finv.out[i][0][0], 0x3f800000);
	vtest_assert_eq(fs_eval("FRAG\nTXB OUT[0], IN[0], UNIT[0]\nEND\n",
				lanes, 0xf), 0);
	for (i = 0; i < 4; i++)
		ASSERT_BITS(finv.out[i][0][0], N51);
	vtest_assert_eq(fs_eval("FRAG\n"
				"IMM[0] = { 0.25, 0.0, 0.0, 0.0 }\n"
				"TXD OUT[0], IN[0], IMM[0], IMM[0].yyyy, UNIT[0]\n"
				"END\n", lanes, 0xf), 0);
	for (i = 0; i < 4; i++)
		ASSERT_BITS(finv.out[i][0][0], 0);
	/* TXD in a vertex program uses its derivatives: 2 -> lod 3 -> 2 */
	vs("VERT\nIMM[0] = { 2.0, 0.0, 0.0, 0.0 }\n"
	   "TXD OUT[0], IN[0], IMM[0], IMM[0].yyyy, UNIT[0]\nEND\n");
	run_ok();
	ASSERT_BITS(vs_x(0.3f, 0.3f, 0, 0), N51);
}

static void test_texture_cube(void)
{
	/* 1 x 1 L8 cube: faces +X..-Z hold 10, 20, ... 60. */
	static const struct {
		float x, y, z;
		uint32_t face;
	} c[] = {
		{ 1.0f, 0.5f, 0.2f, 0 }, { -1.0f, 0.2f, 0.3f, 1 },
		{ 0.1f, 1.0f, 0.2f, 2 }, { 0.1f, -1.0f, 0.2f, 3 },
		{ 0.1f, 0.2f, 1.0f, 4 }, { 0.1f, 0.2f, -1.0f, 5 },
		/* ties go to X, then Y */
		{ 1.0f, 1.0f, 1.0f, 0 }, { 0.5f, -1.0f, -1.0f, 3 },
		/* -0 >= 0: +X (and s, t NaN: texel (0, 0)) */
		{ -0.0f, 0.0f, 0.0f, 0 },
	};
	uint32_t i;

	reset();
	for (i = 0; i < 6; i++)
		mem[O_TEX + 4 * i] = (uint8_t)(10 * (i + 1));
	set_texture(0, O_TEX, 24, VDXG_TEX_DESC(VDXG_FMT_L8, 1, 1), 1, 1);
	vs("VERT\nTEX OUT[0], IN[0], UNIT[0], CUBE\nEND\n");
	run_ok();
	for (i = 0; i < VTEST_ARRAY_SIZE(c); i++)
		vtest_assert_f(vs_x(c[i].x, c[i].y, c[i].z, 0) ==
			       fbits((float)(10 * (c[i].face + 1)) / 255.0f),
			       "case %u: 0x%08x", i,
			       vs_x(c[i].x, c[i].y, c[i].z, 0));

	/*
	 * 2 x 2 faces, texel (x, y) of face f = 4 f + 2 y + x + 1: +X maps
	 * (1, -0.5, -0.5) to sc = -z = 0.5, tc = -y = 0.5: s = t = 0.75,
	 * texel (1, 1); -Z maps (0.5, 0.5, -1) to sc = -x, tc = -y: (0, 0).
	 */
	for (i = 0; i < 24; i++)
		mem[O_TEX + 8 * (i / 4) + 4 * ((i / 2) % 2) + i % 2] =
			(uint8_t)(i + 1);
	set_texture(0, O_TEX, 48, VDXG_TEX_DESC(VDXG_FMT_L8, 1, 1), 2, 2);
	run_ok();
	ASSERT_BITS(vs_x(1.0f, -0.5f, -0.5f, 0), fbits(4.0f / 255.0f));
	ASSERT_BITS(vs_x(1.0f, 0.5f, 0.5f, 0), fbits(1.0f / 255.0f));
	ASSERT_BITS(vs_x(0.5f, 0.5f, -1.0f, 0), fbits(21.0f / 255.0f));
	/* +Y: sc = x, tc = z: (0.5, 1, -0.5) is (1, 0) */
	ASSERT_BITS(vs_x(0.5f, 1.0f, -0.5f, 0), fbits(10.0f / 255.0f));
	/* the wrap is clamp to edge whatever the sampler says */
	set_reg(VDXG_3D_SAMPLER(0), VDXG_SAMPLER_MAG_LINEAR |
		VDXG_SAMPLER_WRAP_S(VDXG_WRAP_REPEAT));
	run_ok();
	/* s = t = 1: u = 1.5, i0 = 1, i1 = 2 -> 1: texel (1, 1) alone */
	ASSERT_BITS(vs_x(1.0f, -1.0f, -1.0f, 0), fbits(4.0f / 255.0f));
}

static void test_texel_formats(void)
{
	static const struct {
		uint32_t fmt;
		uint8_t b[4];
		float want[4];
	} c[] = {
		{ VDXG_FMT_XRGB8888, { 0x33, 0x66, 0xff, 0x00 },
		  { 1.0f, 0.4f, 0.2f, 1.0f } },
		{ VDXG_FMT_ARGB8888, { 0x33, 0x66, 0xff, 0x00 },
		  { 1.0f, 0.4f, 0.2f, 0.0f } },
		{ VDXG_FMT_ABGR8888, { 0x33, 0x66, 0xff, 0xcc },
		  { 0.2f, 0.4f, 1.0f, 0.8f } },
		{ VDXG_FMT_RGB565, { 0x1f, 0xf8 }, { 1.0f, 0, 1.0f, 1.0f } },
		{ VDXG_FMT_RGBA4444, { 0x34, 0x12 },
		  { 1.0f / 15, 2.0f / 15, 3.0f / 15, 4.0f / 15 } },
		{ VDXG_FMT_RGBA5551, { 0x01, 0x00 }, { 0, 0, 0, 1.0f } },
		{ VDXG_FMT_RGBA5551, { 0x3e, 0x84 },
		  { 16.0f / 31, 16.0f / 31, 31.0f / 31, 0 } },
		{ VDXG_FMT_L8, { 0x33 }, { 0.2f, 0.2f, 0.2f, 1.0f } },
		{ VDXG_FMT_A8, { 0x33 }, { 0, 0, 0, 0.2f } },
		{ VDXG_FMT_L8A8, { 0x33, 0xcc }, { 0.2f, 0.2f, 0.2f, 0.8f } },
		{ VDXG_FMT_RGB888, { 0xff, 0x00, 0x33 }, { 1.0f, 0, 0.2f, 1.0f } },
	};
	uint32_t i, k;
	float rgba[4];

	for (i = 0; i < VTEST_ARRAY_SIZE(c); i++) {
		vdxg_ref3d_texel(c[i].fmt, c[i].b, rgba);
		for (k = 0; k < 4; k++)
			vtest_assert_f(fbits(rgba[k]) == fbits(c[i].want[k]),
				       "case %u channel %u: %g, want %g", i, k,
				       rgba[k], c[i].want[k]);
	}
	/* Sampled: an RGB888 texture (3 bytes a texel, rows 4-aligned). */
	reset();
	mem[O_TEX + 4] = 0x33;	/* texel (0, 1) of a 1 x 2 texture: R */
	set_texture(0, O_TEX, 8, VDXG_TEX_DESC(VDXG_FMT_RGB888, 1, 0), 1, 2);
	vs("VERT\nTEX OUT[0], IN[0], UNIT[0]\nEND\n");
	run_ok();
	{
		uint32_t o[4];

		vs_at(0.5f, 0.75f, 0, 0, o);
		ASSERT_VEC(o, N51, 0, 0, F(1.0f));
	}
}

/* ------------------------------------------------------ vertex fetch */

static void test_vertex_formats(void)
{
	static const uint8_t bytes[40] = {
		255, 128, 0, 1,			/* 0: UNORM8 x4 */
		0x80, 0x81, 64, 0,		/* 4: SNORM8 x3 */
		200, 7,				/* 8: UINT8 x2 */
		0xfe, 0,			/* 10: SINT8 x1 */
		0xff, 0xff, 0x00, 0x80,		/* 12: UNORM16 x2 */
		0x00, 0x80, 0x00, 0x40,		/* 16: SNORM16 x2 */
		0xff, 0xff,			/* 20: UINT16 x1 */
		0xfe, 0xff,			/* 22: SINT16 x1 */
		0x00, 0x00, 0xc0, 0x3f,		/* 24: FLOAT32 1.5 */
		0x01, 0x00, 0x80, 0x7f,		/* 28: a NaN */
		0x00, 0x00, 0x00, 0x80,		/* 32: -0 */
		0x00, 0x00, 0x80, 0x7f,		/* 36: +inf */
	};
	static const uint32_t el[16] = {
		VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_UNORM8, 4), 0, 0),
		VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_SNORM8, 3), 0, 4),
		VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_UINT8, 2), 0, 8),
		VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_SINT8, 1), 0, 10),
		VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_UNORM16, 2), 0, 12),
		VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_SNORM16, 2), 0, 16),
		VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_UINT16, 1), 0, 20),
		VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_SINT16, 1), 0, 22),
		VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_FLOAT32, 4), 0, 24),
		0,
		/* buffer 1 spans 40 bytes from vertex 1's: 28 + 16 > 40 */
		VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_FLOAT32, 4), 1, 28),
		/* buffer 2 is unbound */
		VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_FLOAT32, 2), 2, 0),
		/* exactly at the end of buffer 1 */
		VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_FLOAT32, 1), 1, 36),
		VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_UNORM8, 1), 1, 40),
		VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_SINT16, 3), 0, 22),
		VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_UINT8, 4), 3, 0),
	};
	uint32_t in[VDXG_REF3D_NUM_INPUTS][4], i;
	struct vdxg_ref3d_fault f;

	reset();
	/* vertex 1 of buffer 0 (stride 64) and of buffer 1 (stride 0) */
	memcpy(mem + O_VB + 64, bytes, sizeof(bytes));
	memcpy(mem + O_MISC, bytes, sizeof(bytes));
	memset(mem + O_MISC + 40, 0x77, 16);	/* past buffer 1's end */
	cmd(VDXG_RD_SET_VERTEX_BUFFER, 5, 0, LO(A(O_VB)), HI(A(O_VB)), 1000,
	    64);
	cmd(VDXG_RD_SET_VERTEX_BUFFER, 5, 1, LO(A(O_MISC)), HI(A(O_MISC)),
	    40, 0);
	/* buffer 3: bound, then unbound by size 0 */
	cmd(VDXG_RD_SET_VERTEX_BUFFER, 5, 3, LO(A(O_VB)), HI(A(O_VB)), 100,
	    4);
	cmd(VDXG_RD_SET_VERTEX_BUFFER, 5, 3, 0, 0, 0, 4);
	for (i = 0; i < 16; i++)
		set_reg(VDXG_3D_ELEMENT(i), el[i]);
	run_ok();
	vtest_assert_eq(vdxg_ref3d_fetch(&ctx, &tmem, 1, in, &f), 0);
	/* 255 / 255, 128 / 255, 0, 1 / 255 */
	ASSERT_VEC(in[0], F(1.0f), 0x3f008081, 0, fbits(1.0f / 255.0f));
	/* max(-128 / 127, -1), -127 / 127, 64 / 127; w 1 */
	ASSERT_VEC(in[1], F(-1.0f), F(-1.0f), 0x3f010204, F(1.0f));
	ASSERT_VEC(in[2], F(200.0f), F(7.0f), 0, F(1.0f));
	ASSERT_VEC(in[3], F(-2.0f), 0, 0, F(1.0f));
	/* 65535 / 65535, 32768 / 65535 */
	ASSERT_VEC(in[4], F(1.0f), 0x3f000080, 0, F(1.0f));
	/* max(-32768 / 32767, -1), 16384 / 32767 */
	ASSERT_VEC(in[5], F(-1.0f), 0x3f000100, 0, F(1.0f));
	ASSERT_VEC(in[6], F(65535.0f), 0, 0, F(1.0f));
	ASSERT_VEC(in[7], F(-2.0f), 0, 0, F(1.0f));
	/* FLOAT32's bits as they are, NaN payload included */
	ASSERT_VEC(in[8], F(1.5f), 0x7f800001, 0x80000000, 0x7f800000);
	ASSERT_VEC(in[9], 0, 0, 0, F(1.0f));
	/* outside the buffer: every component read is 0, w included */
	ASSERT_VEC(in[10], 0, 0, 0, 0);
	ASSERT_VEC(in[11], 0, 0, F(0.0f), F(1.0f));
	ASSERT_VEC(in[12], 0x7f800000, 0, 0, F(1.0f));
	ASSERT_VEC(in[13], 0, 0, 0, F(1.0f));
	/* SINT16 x3 at 22: -2, 0, 0x3fc0 (16320) */
	ASSERT_VEC(in[14], F(-2.0f), 0, F(16320.0f), F(1.0f));
	ASSERT_VEC(in[15], 0, 0, 0, 0);

	/* Vertex 15 of buffer 0: 15 * 64 + 24 + 16 = 1000 fits; 16 does not */
	memcpy(mem + O_VB + 15 * 64 + 24, bytes + 24, 16);
	vtest_assert_eq(vdxg_ref3d_fetch(&ctx, &tmem, 15, in, &f), 0);
	ASSERT_VEC(in[8], F(1.5f), 0x7f800001, 0x80000000, 0x7f800000);
	vtest_assert_eq(vdxg_ref3d_fetch(&ctx, &tmem, 16, in, &f), 0);
	ASSERT_VEC(in[8], 0, 0, 0, 0);
	/* a huge index: index * stride + offset in 64 bits, outside */
	vtest_assert_eq(vdxg_ref3d_fetch(&ctx, &tmem, 0xffffffff, in, &f), 0);
	ASSERT_VEC(in[0], 0, 0, 0, 0);
	/* stride 0: every vertex reads buffer 1's first bytes */
	ASSERT_VEC(in[12], 0x7f800000, 0, 0, F(1.0f));
}

/* Indexed draws, bias, and indices past the vertex buffer. */
static void test_indexed(void)
{
	static const char *const tri[8] = {
		"........", ".#####..", ".####...", ".###....",
		".##.....", ".#......", "........", "........",
	};
	static const uint16_t idx16[6] = { 105, 106, 107, 105, 106, 9000 };
	static const uint8_t idx8[4] = { 0, 1, 2, 3 };
	static const uint32_t idx32[3] = { 0xffffff9d, 0xffffff9e, 0xffffff9f };
	uint32_t i;

	fb_w = fb_h = 8;
	setup(VDXG_FMT_ARGB8888, 8, 8);
	wv(5, 1, 1, 0, 1, 0, 0, 1);
	wv(6, 7, 1, 0, 1, 0, 0, 1);
	wv(7, 1, 7, 0, 1, 0, 0, 1);
	memcpy(mem + O_IB, idx16, sizeof(idx16));
	cmd(VDXG_RD_SET_INDEX_BUFFER, 4, LO(A(O_IB)), HI(A(O_IB)), 12, 2);
	/* indices + bias -100: 5, 6, 7; then 5, 6 and 8900 (outside: w 0) */
	cmd(VDXG_RD_DRAW_INDEXED, 4, VDXG_PRIM_TRIANGLES, 0, 6,
	    (uint32_t)-100);
	run_ok();
	check_picture(tri, RED, 0);

	/* 32-bit indices wrap modulo 2^32 with the bias: 5, 6, 7 */
	setup(VDXG_FMT_ARGB8888, 8, 8);
	wv(5, 1, 1, 0, 0, 1, 0, 1);
	wv(6, 7, 1, 0, 0, 1, 0, 1);
	wv(7, 1, 7, 0, 0, 1, 0, 1);
	memcpy(mem + O_IB, idx32, sizeof(idx32));
	cmd(VDXG_RD_SET_INDEX_BUFFER, 4, LO(A(O_IB)), HI(A(O_IB)), 12, 4);
	cmd(VDXG_RD_DRAW_INDEXED, 4, VDXG_PRIM_TRIANGLES, 0, 3, 104);
	run_ok();
	check_picture(tri, 0xff00ff00, 0);

	/* 8-bit indices, a strip from index 1: vertices 1, 2, 3 */
	setup(VDXG_FMT_ARGB8888, 8, 8);
	for (i = 0; i < 4; i++)
		wv(i, 9, 9, 0, 0, 0, 1, 1);
	wv(1, 1, 1, 0, 0, 0, 1, 1);
	wv(2, 7, 1, 0, 0, 0, 1, 1);
	wv(3, 1, 7, 0, 0, 0, 1, 1);
	memcpy(mem + O_IB, idx8, sizeof(idx8));
	cmd(VDXG_RD_SET_INDEX_BUFFER, 4, LO(A(O_IB)), HI(A(O_IB)), 4, 1);
	cmd(VDXG_RD_DRAW_INDEXED, 4, VDXG_PRIM_TRIANGLE_STRIP, 1, 3, 0);
	run_ok();
	check_picture(tri, 0xff0000ff, 0);
	/* (first + count) * size > size: BOUNDS at the header */
	cmd(VDXG_RD_DRAW_INDEXED, 4, VDXG_PRIM_TRIANGLE_STRIP, 2, 3, 0);
	RUN_FAULT(VDXG_FAULT_BOUNDS, CMD_BASE);
	/* DRAW's first + count may reach 2^32 exactly */
	draw(VDXG_PRIM_POINTS, 0xffffff00, 0x100);
	run_ok();
	draw(VDXG_PRIM_POINTS, 0xffffff00, 0x101);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
}

/* Lines and points: the pixels of the spec's rules. */
static void test_lines_points(void)
{
	fb_w = fb_h = 8;
	/* Horizontal: columns with centre in [0.5, 6.5): 0 to 5, row 1. */
	setup(VDXG_FMT_ARGB8888, 8, 8);
	wv(0, 0.5f, 1.5f, 0, 1, 0, 0, 1);
	wv(1, 6.5f, 1.5f, 0, 1, 0, 0, 1);
	draw(VDXG_PRIM_LINES, 0, 2);
	run_ok();
	{
		static const char *const p[8] = {
			"........", "######..", "........", "........",
			"........", "........", "........", "........",
		};
		check_picture(p, RED, 0);
	}
	/* x-major (0, 0) -> (4, 2): y = cx / 2: rows 0, 0, 1, 1. */
	setup(VDXG_FMT_ARGB8888, 8, 8);
	wv(0, 0, 0, 0, 1, 0, 0, 1);
	wv(1, 4, 2, 0, 1, 0, 0, 1);
	/* y-major upwards (2.5, 5) -> (2.5, 1): rows (1, 5], column 2 */
	wv(2, 2.5f, 5, 0, 1, 0, 0, 1);
	wv(3, 2.5f, 1, 0, 1, 0, 0, 1);
	draw(VDXG_PRIM_LINES, 0, 4);
	run_ok();
	{
		static const char *const p[8] = {
			"##......", "..##....", "..#.....", "..#.....",
			"..#.....", "........", "........", "........",
		};
		check_picture(p, RED, 0);
	}
	/*
	 * A loop (1.5, 6.5) -> (6.5, 6.5) -> (6.5, 1.5) -> back. Line 1,
	 * x-major rightwards: centres cx in [1.5, 6.5): columns 1 to 5, row
	 * 6. Line 2, y-major upwards: cy in (1.5, 6.5]: rows 2 to 6, column
	 * 6. Line 3 (|dx| = |dy|: x-major) leftwards: cx in (1.5, 6.5],
	 * columns 2 to 6, y = 1.5 + (6.5 - cx): rows 5 down to 1.
	 */
	setup(VDXG_FMT_ARGB8888, 8, 8);
	wv(0, 1.5f, 6.5f, 0, 1, 0, 0, 1);
	wv(1, 6.5f, 6.5f, 0, 1, 0, 0, 1);
	wv(2, 6.5f, 1.5f, 0, 1, 0, 0, 1);
	draw(VDXG_PRIM_LINE_LOOP, 0, 3);
	run_ok();
	{
		static const char *const p[8] = {
			"........", "......#.", ".....##.", "....#.#.",
			"...#..#.", "..#...#.", ".######.", "........",
		};
		check_picture(p, RED, 0);
	}
	/* The same as a strip: no closing line. */
	setup(VDXG_FMT_ARGB8888, 8, 8);
	wv(0, 1.5f, 6.5f, 0, 1, 0, 0, 1);
	wv(1, 6.5f, 6.5f, 0, 1, 0, 0, 1);
	wv(2, 6.5f, 1.5f, 0, 1, 0, 0, 1);
	draw(VDXG_PRIM_LINE_STRIP, 0, 3);
	run_ok();
	{
		static const char *const p[8] = {
			"........", "........", "......#.", "......#.",
			"......#.", "......#.", ".######.", "........",
		};
		check_picture(p, RED, 0);
	}

	/*
	 * Points: size 2 at (4, 4) covers 3..4 squared; POINT_SIZE 3 at
	 * (1.5, 1.5) covers 0..2 squared.
	 */
	setup(VDXG_FMT_ARGB8888, 8, 8);
	set_regf(VDXG_3D_POINT_SIZE, 2.0f);
	wv(0, 4, 4, 0, 1, 0, 0, 1);
	draw(VDXG_PRIM_POINTS, 0, 1);
	set_regf(VDXG_3D_POINT_SIZE, 3.0f);
	wv(1, 1.5f, 1.5f, 0, 1, 0, 0, 1);
	draw(VDXG_PRIM_POINTS, 1, 1);
	/* size 0.2 clamps to 1; 100 clamps to 64 (the whole target) */
	set_regf(VDXG_3D_POINT_SIZE, 0.2f);
	wv(2, 6.5f, 0.5f, 0, 1, 0, 0, 1);
	draw(VDXG_PRIM_POINTS, 2, 1);
	run_ok();
	{
		static const char *const p[8] = {
			"###...#.", "###.....", "###.....", "...##...",
			"...##...", "........", "........", "........",
		};
		check_picture(p, RED, 0);
	}
	/*
	 * h = floor(s * 128 + 0.5): size 1.5 + 1/256 gives h = 193 (192.5
	 * rounds up), so a point at x8 = 321 covers centres from 128: the
	 * pixels (0, 0) and (1, 0).
	 */
	setup(VDXG_FMT_ARGB8888, 8, 8);
	set_regf(VDXG_3D_POINT_SIZE, 1.50390625f);
	wv(0, 1.25390625f, 0.5f, 0, 1, 0, 0, 1);
	draw(VDXG_PRIM_POINTS, 0, 1);
	run_ok();
	assert_pix(0, 0, RED);
	assert_pix(1, 0, RED);
	assert_pix(2, 0, 0);
	assert_pix(0, 1, 0);

	/* The program's OUT[1].x wins over POINT_SIZE. */
	setup(VDXG_FMT_ARGB8888, 8, 8);
	set_regf(VDXG_3D_POINT_SIZE, 1.0f);
	vs("VERT\nIMM[0] = { 100.0, 0, 0, 0 }\n"
	   "MOV OUT[0], IN[0]\nMOV OUT[2], IN[1]\nMOV OUT[1].x, IMM[0].x\nEND\n");
	wv(0, 6.5f, 0.5f, 0, 1, 0, 0, 1);
	draw(VDXG_PRIM_POINTS, 0, 1);
	run_ok();
	assert_pix(0, 7, RED);

	/*
	 * POINT_COORD: size 2 at (4, 4): h = 256, pixel (3, 3) has s = t =
	 * (896 - 768) / 512 = 0.25 (64), pixel (4, 3) s = 0.75 (191).
	 */
	setup(VDXG_FMT_ARGB8888, 8, 8);
	fs("FRAG\nMOV OUT[0], IN[10]\nEND\n");
	set_regf(VDXG_3D_POINT_SIZE, 2.0f);
	wv(0, 4, 4, 0, 1, 0, 0, 1);
	draw(VDXG_PRIM_POINTS, 0, 1);
	run_ok();
	assert_pix(3, 3, 0xff404000);
	assert_pix(4, 3, 0xffbf4000);
	assert_pix(3, 4, 0xff40bf00);
	set_reg(VDXG_3D_RASTER, VDXG_RASTER_SPRITE_LOWER_LEFT);
	draw(VDXG_PRIM_POINTS, 0, 1);
	run_ok();
	assert_pix(3, 3, 0xff40bf00);
	assert_pix(4, 4, 0xffbf4000);
	/* A line's and a triangle's POINT_COORD is (0, 0, 0, 1). */
	wv(1, 0, 6.5f, 0, 1, 0, 0, 1);
	wv(2, 8, 6.5f, 0, 1, 0, 0, 1);
	draw(VDXG_PRIM_LINES, 1, 2);
	run_ok();
	assert_pix(5, 6, 0xff000000);
}

/* -------------------------------------------------------------- CLEAR */

static void test_clear(void)
{
	uint32_t x, y;

	fb_w = fb_h = 4;
	setup(VDXG_FMT_ARGB8888, 4, 4);
	clear(VDXG_CLEAR_COLOR, 1, 1, 2, 2, 1, 0.5f, 0.25f, 0.5f, 0, 0);
	/* clipped to the surface */
	clear(VDXG_CLEAR_COLOR, 3, 3, 100, 100, 0, 0, 1, 1, 0, 0);
	/* w or h 0 clears nothing */
	clear(VDXG_CLEAR_COLOR, 0, 0, 0, 4, 1, 1, 1, 1, 0, 0);
	clear(VDXG_CLEAR_COLOR, 0, 0, 4, 0, 1, 1, 1, 1, 0, 0);
	run_ok();
	for (y = 0; y < 4; y++)
		for (x = 0; x < 4; x++)
			vtest_assert_eq(pix(VDXG_FMT_ARGB8888, 4, x, y),
					x == 3 && y == 3 ? 0xff0000ff :
					x >= 1 && x <= 2 && y >= 1 && y <= 2 ?
					0x80ff8040 : 0);

	/* Each format's conversion; XRGB's X is 0xff; out of [0, 1] clamps */
	setup(VDXG_FMT_XRGB8888, 4, 4);
	clear(VDXG_CLEAR_COLOR, 0, 0, 1, 1, 2.0f, -1.0f, __builtin_nanf(""),
	      0, 0, 0);
	run_ok();
	vtest_assert_eq(pix(VDXG_FMT_XRGB8888, 4, 0, 0), 0xffff0000);
	setup(VDXG_FMT_RGBA4444, 4, 4);
	clear(VDXG_CLEAR_COLOR, 0, 0, 1, 1, 1, 0.5f, 0.25f, 0.5f, 0, 0);
	run_ok();
	vtest_assert_eq(pix(VDXG_FMT_RGBA4444, 4, 0, 0), 0xf848);
	setup(VDXG_FMT_RGBA5551, 4, 4);
	clear(VDXG_CLEAR_COLOR, 0, 0, 1, 1, 1, 0.5f, 0.25f, 0.49f, 0, 0);
	run_ok();
	/* alpha 0.49 * 1 + 0.5 = 0.99: 0 */
	vtest_assert_eq(pix(VDXG_FMT_RGBA5551, 4, 0, 0), 0xfc10);

	/* Depth and stencil planes separately; DEPTH larger than DST. */
	setup(VDXG_FMT_ARGB8888, 4, 4);
	surface(VDXG_SLOT_DEPTH, O_DEPTH, VDXG_FMT_D24S8, 8, 8);
	clear(VDXG_CLEAR_DEPTH | VDXG_CLEAR_STENCIL | VDXG_CLEAR_COLOR, 0, 0,
	      8, 8, 0, 0, 1, 0, 0.25f, 0x12);
	clear(VDXG_CLEAR_DEPTH, 0, 0, 1, 1, 0, 0, 0, 0, 1.0f, 0);
	clear(VDXG_CLEAR_STENCIL, 1, 0, 1, 1, 0, 0, 0, 0, 1.0f, 0xab);
	clear(VDXG_CLEAR_DEPTH, 2, 0, 1, 1, 0, 0, 0, 0, -5.0f, 0);
	run_ok();
	/* 0.25 * 16777215 + 0.5 = 4194304.25 -> 4194304 */
	vtest_assert_eq(depth_word(VDXG_FMT_D24S8, 8, 7, 7), 0x12400000);
	vtest_assert_eq(depth_word(VDXG_FMT_D24S8, 8, 0, 0), 0x12ffffff);
	vtest_assert_eq(depth_word(VDXG_FMT_D24S8, 8, 1, 0), 0xab400000);
	vtest_assert_eq(depth_word(VDXG_FMT_D24S8, 8, 2, 0), 0x12000000);
	vtest_assert_eq(pix(VDXG_FMT_ARGB8888, 4, 3, 3), 0x000000ff);
	/* the colour did not spill past DST's 4 x 4 (pitch 16) */
	vtest_assert_eq(get32(O_DST + 4 * 16), 0);
	surface(VDXG_SLOT_DEPTH, O_DEPTH, VDXG_FMT_D16, 4, 4);
	clear(VDXG_CLEAR_DEPTH, 0, 0, 1, 1, 0, 0, 0, 0, 1.0f, 0);
	run_ok();
	vtest_assert_eq(depth_word(VDXG_FMT_D16, 4, 0, 0), 65535);

	/* Faults: PARAM at the header. */
	clear(8, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	clear(VDXG_CLEAR_STENCIL, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	surface(VDXG_SLOT_DEPTH, O_DEPTH, VDXG_FMT_D24S8, 4, 4);
	clear(VDXG_CLEAR_STENCIL, 0, 0, 1, 1, 0, 0, 0, 0, 0, 256);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE + 4 * 8);
	surface(VDXG_SLOT_DEPTH, O_DEPTH, VDXG_FMT_D32, 4, 4);
	clear(VDXG_CLEAR_DEPTH, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE + 4 * 8);
	reset();
	clear(VDXG_CLEAR_COLOR, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	clear(VDXG_CLEAR_DEPTH, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	clear(0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0);
	run_ok();
}

/* ----------------------------------------------------------- programs */

#define P_MOV	VDXG_INSN(VDXG_OP_MOV, VDXG_FILE_OUTPUT, 0, 0xf)
#define P_T0	VDXG_SRC(VDXG_FILE_TEMP, 0, VDXG_SWIZZLE_XYZW)
#define P_END	VDXG_OP_END

/* SET_SHADER of NDW dwords (SIZE bytes) at O_MISC for STAGE. */
static void raw_prog(uint32_t stage, const uint32_t *dw, uint32_t ndw,
		     uint32_t size)
{
	memcpy(mem + O_MISC, dw, 4 * ndw);
	cmd(VDXG_RD_SET_SHADER, 4, stage, LO(A(O_MISC)), HI(A(O_MISC)), size);
}

/* The program MOV OUT[0], TEMP[0]; END with dword K set to V. */
static void check_mutant(uint32_t stage, uint32_t k, uint32_t v,
			 int64_t fault_off)
{
	uint32_t p[12] = {
		VDXG_3D_PROGRAM_MAGIC, stage, 2, 0,
		P_MOV, P_T0, 0, 0,
		P_END, 0, 0, 0,
	};

	p[k] = v;
	raw_prog(stage, p, 12, 48);
	if (fault_off < 0) {
		run_ok();
		return;
	}
	RUN_FAULT(VDXG_FAULT_SHADER, A(O_MISC) + (uint64_t)fault_off);
}

static void test_bad_programs(void)
{
	static const struct {
		uint32_t stage, k, v;
		int off;
	} m[] = {
		{ 0, 0, 0x50485357, 0 },		/* magic */
		{ 0, 1, 1, 4 },				/* not SET_SHADER's stage */
		{ 1, 1, 0x101, 4 },			/* stage's bits 31:8 */
		{ 0, 2, 0, 8 },				/* n = 0 */
		{ 0, 2, 4097, 8 },
		{ 0, 3, 257, 12 },			/* m */
		{ 0, 2, 3, 12 },			/* longer than size */
		{ 0, 3, 1, 12 },
		{ 0, 4, 0x32, 16 },			/* opcode */
		{ 0, 4, VDXG_OP_KILL, 16 },		/* fragment only */
		{ 0, 4, P_MOV | BIT(28), 16 },		/* reserved */
		{ 0, 4, P_MOV | VDXG_INSN_TEX(1, 0), 16 },	/* unit */
		{ 0, 4, P_MOV | VDXG_INSN_CUBE, 16 },
		{ 0, 4, VDXG_INSN(VDXG_OP_MOV, VDXG_FILE_INPUT, 0, 0xf), 16 },
		{ 0, 4, VDXG_INSN(VDXG_OP_MOV, VDXG_FILE_ADDR, 0, 1), 16 },
		{ 0, 4, VDXG_INSN(VDXG_OP_MOV, VDXG_FILE_OUTPUT, 10, 0xf), 16 },
		{ 1, 4, VDXG_INSN(VDXG_OP_MOV, VDXG_FILE_OUTPUT, 1, 0xf), 16 },
		{ 0, 4, VDXG_INSN(VDXG_OP_MOV, VDXG_FILE_TEMP, 128, 0xf), 16 },
		{ 0, 4, VDXG_INSN(VDXG_OP_MOV, 6, 0, 0xf), 16 },
		/* ARL: ADDR 0, mask x, no saturate */
		{ 0, 4, VDXG_INSN(VDXG_OP_ARL, VDXG_FILE_ADDR, 0, 3), 16 },
		{ 0, 4, VDXG_INSN(VDXG_OP_ARL, VDXG_FILE_ADDR, 0, 1) |
		  VDXG_INSN_SAT, 16 },
		{ 0, 4, VDXG_INSN(VDXG_OP_ARL, VDXG_FILE_TEMP, 0, 1), 16 },
		{ 0, 4, VDXG_INSN(VDXG_OP_ARL, VDXG_FILE_ADDR, 0, 1), -1 },
		/* NOP: no destination bits, and no source (MOV's is there) */
		{ 0, 4, VDXG_OP_NOP | 0x1000, 16 },
		{ 0, 4, VDXG_OP_NOP, 16 },
		{ 0, 5, 0, -1 },
		/* mask 0 is valid */
		{ 0, 4, VDXG_INSN(VDXG_OP_MOV, VDXG_FILE_OUTPUT, 0, 0), -1 },
		/* sources: file, index, RELATIVE, reserved, unused */
		{ 0, 5, VDXG_SRC(VDXG_FILE_OUTPUT, 0, 0), 16 },
		{ 0, 5, VDXG_SRC(VDXG_FILE_ADDR, 0, 0), 16 },
		{ 0, 5, VDXG_SRC(VDXG_FILE_INPUT, 16, 0), 16 },
		{ 1, 5, VDXG_SRC(VDXG_FILE_INPUT, 11, 0), 16 },
		{ 1, 5, VDXG_SRC(VDXG_FILE_INPUT, 10, 0), -1 },
		{ 0, 5, VDXG_SRC(VDXG_FILE_IMM, 0, 0), 16 },	/* m = 0 */
		{ 0, 5, VDXG_SRC(VDXG_FILE_CONST, 255, 0), -1 },
		{ 0, 5, P_T0 | VDXG_SRC_RELATIVE, 16 },
		{ 0, 5, VDXG_SRC(VDXG_FILE_CONST, 0, 0) | VDXG_SRC_RELATIVE,
		  -1 },
		{ 0, 5, P_T0 | BIT(22), 16 },
		{ 0, 6, 1, 16 },			/* MOV has one source */
		{ 0, 7, BIT(31), 16 },
		{ 0, 9, 1, 32 },			/* END's sources */
		/* the last instruction is not END; END is not the last */
		{ 0, 8, P_MOV, 32 },
		{ 0, 4, P_END, 16 },
		/* control flow */
		{ 0, 4, VDXG_OP_ELSE, 16 },
		{ 0, 4, VDXG_OP_ENDIF, 16 },
		{ 0, 4, VDXG_OP_ENDLOOP, 16 },
		{ 0, 4, VDXG_OP_BRK, 16 },
		{ 0, 4, VDXG_OP_CONT, 16 },
		{ 0, 4, VDXG_OP_IF, 32 },		/* END with a block open */
	};
	uint32_t p[4 * 70], i, n;

	reset();
	for (i = 0; i < VTEST_ARRAY_SIZE(m); i++)
		check_mutant(m[i].stage, m[i].k, m[i].v, m[i].off);

	/* IF, ELSE, ELSE: the second ELSE (instruction 2) */
	n = 5;
	memset(p, 0, sizeof(p));
	p[0] = VDXG_3D_PROGRAM_MAGIC;
	p[2] = n;
	p[4] = VDXG_OP_IF;
	p[5] = P_T0;
	p[8] = VDXG_OP_ELSE;
	p[12] = VDXG_OP_ELSE;
	p[16] = VDXG_OP_ENDIF;
	p[20] = P_END;
	raw_prog(0, p, 4 * (1 + n), 16 * (1 + n));
	RUN_FAULT(VDXG_FAULT_SHADER, A(O_MISC) + 16 * 3);
	/* BGNLOOP, ENDIF: the ENDIF */
	p[4] = VDXG_OP_BGNLOOP;
	p[5] = 0;
	p[8] = VDXG_OP_ENDIF;
	raw_prog(0, p, 4 * (1 + n), 16 * (1 + n));
	RUN_FAULT(VDXG_FAULT_SHADER, A(O_MISC) + 16 * 2);
	/* BGNLOOP, IF, BRK, ENDIF, ENDLOOP, END: valid */
	n = 6;
	memset(p, 0, sizeof(p));
	p[0] = VDXG_3D_PROGRAM_MAGIC;
	p[2] = n;
	p[4] = VDXG_OP_BGNLOOP;
	p[8] = VDXG_OP_IF;
	p[9] = P_T0;
	p[12] = VDXG_OP_BRK;
	p[16] = VDXG_OP_ENDIF;
	p[20] = VDXG_OP_ENDLOOP;
	p[24] = P_END;
	raw_prog(0, p, 4 * (1 + n), 16 * (1 + n));
	run_ok();
	/* ... IF's source may not be missing: a zero source is TEMP[0].xxxx */
	p[9] = 0;
	raw_prog(0, p, 4 * (1 + n), 16 * (1 + n));
	run_ok();
	/* ... but an IF has no destination */
	p[8] = VDXG_OP_IF | 0x0000f000;
	raw_prog(0, p, 4 * (1 + n), 16 * (1 + n));
	RUN_FAULT(VDXG_FAULT_SHADER, A(O_MISC) + 16 * 2);

	/* 32 levels of IF are fine, a 33rd faults at its IF (index 32). */
	for (n = 32; n <= 33; n++) {
		memset(p, 0, sizeof(p));
		p[0] = VDXG_3D_PROGRAM_MAGIC;
		p[2] = 2 * n + 1;
		for (i = 0; i < n; i++) {
			p[4 + 4 * i] = VDXG_OP_IF;
			p[4 + 4 * (n + i)] = VDXG_OP_ENDIF;
		}
		p[4 + 4 * 2 * n] = P_END;
		raw_prog(0, p, 4 * (2 + 2 * n), 16 * (2 + 2 * n));
		if (n == 32)
			run_ok();
		else
			RUN_FAULT(VDXG_FAULT_SHADER, A(O_MISC) + 16 * (1 + 32));
	}

	/* SET_SHADER's own operands: PARAM at the header, ADDRESS. */
	check_mutant(0, 0, VDXG_3D_PROGRAM_MAGIC, -1);
	cmd(VDXG_RD_SET_SHADER, 4, 2, LO(A(O_MISC)), HI(A(O_MISC)), 48);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	cmd(VDXG_RD_SET_SHADER, 4, 0, LO(A(O_MISC)), HI(A(O_MISC)), 15);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	cmd(VDXG_RD_SET_SHADER, 4, 0, LO(A(O_MISC)), HI(A(O_MISC)),
	    VDXG_3D_PROGRAM_MAX_BYTES + 4);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	cmd(VDXG_RD_SET_SHADER, 4, 0, LO(A(O_MISC) + 2), HI(A(O_MISC)), 48);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	cmd(VDXG_RD_SET_SHADER, 4, 0, LO(A(MEM_SIZE - 16)), 0, 48);
	RUN_FAULT(VDXG_FAULT_ADDRESS, A(MEM_SIZE - 16));
	/* A size larger than the program is fine. */
	cmd(VDXG_RD_SET_SHADER, 4, 0, LO(A(O_MISC)), HI(A(O_MISC)), 4096);
	run_ok();
}

/* The checks a DRAW makes when it starts. */
static void test_draw_refs(void)
{
	fb_w = fb_h = 4;
	setup(VDXG_FMT_ARGB8888, 4, 4);
	/* CONST[1] with no constants bound, at instruction 1 */
	vs("VERT\nMOV OUT[0], IN[0]\nMOV OUT[2], CONST[1]\nEND\n");
	draw(VDXG_PRIM_TRIANGLES, 0, 0);
	RUN_FAULT(VDXG_FAULT_SHADER, A(O_VS) + 32);
	cmd(VDXG_RD_SET_CONSTANTS, 4, 0, LO(A(O_CONSTS)), HI(A(O_CONSTS)), 1);
	draw(VDXG_PRIM_TRIANGLES, 0, 0);
	RUN_FAULT(VDXG_FAULT_SHADER, A(O_VS) + 32);
	cmd(VDXG_RD_SET_CONSTANTS, 4, 0, LO(A(O_CONSTS)), HI(A(O_CONSTS)), 2);
	draw(VDXG_PRIM_TRIANGLES, 0, 0);
	run_ok();
	/* the fragment stage's count is its own */
	fs("FRAG\nMOV OUT[0], IN[0]\nMOV OUT[0], CONST[0]\nEND\n");
	draw(VDXG_PRIM_TRIANGLES, 0, 0);
	RUN_FAULT(VDXG_FAULT_SHADER, A(O_FS) + 32);
	/* RELATIVE reads are not checked */
	fs("FRAG\nMOV OUT[0], CONST[ADDR.x+200]\nEND\n");
	draw(VDXG_PRIM_TRIANGLES, 0, 0);
	run_ok();
	/* A texture opcode needs its unit bound, CUBE as the texture */
	fs("FRAG\nMOV OUT[0], IN[0]\nTEX OUT[0], IN[0], UNIT[3]\nEND\n");
	draw(VDXG_PRIM_TRIANGLES, 0, 0);
	RUN_FAULT(VDXG_FAULT_SHADER, A(O_FS) + 32);
	set_texture(3, O_TEX, 4, VDXG_TEX_DESC(VDXG_FMT_L8, 1, 0), 1, 1);
	draw(VDXG_PRIM_TRIANGLES, 0, 0);
	run_ok();
	fs("FRAG\nMOV OUT[0], IN[0]\nTEX OUT[0], IN[0], UNIT[3], CUBE\nEND\n");
	draw(VDXG_PRIM_TRIANGLES, 0, 0);
	RUN_FAULT(VDXG_FAULT_SHADER, A(O_FS) + 32);
	set_texture(3, O_TEX, 24, VDXG_TEX_DESC(VDXG_FMT_L8, 1, 1), 1, 1);
	draw(VDXG_PRIM_TRIANGLES, 0, 0);
	run_ok();
	/* the vertex program is checked first, whether or not it runs */
	vs("VERT\nIF IN[0].x\nMOV OUT[0], CONST[7]\nENDIF\nEND\n");
	fs("FRAG\nTEX OUT[0], IN[0], UNIT[4]\nEND\n");
	draw(VDXG_PRIM_TRIANGLES, 0, 0);
	RUN_FAULT(VDXG_FAULT_SHADER, A(O_VS) + 32);
	/* ...after the PARAM and BOUNDS checks */
	draw(VDXG_PRIM_TRIANGLES, 0xffffffff, 2);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	/* an unbinding unbinds */
	vs("VERT\nMOV OUT[0], IN[0]\nEND\n");
	fs("FRAG\nTEX OUT[0], IN[0], UNIT[3], CUBE\nEND\n");
	cmd(VDXG_RD_SET_TEXTURE, 6, 3, 0, 0, 0, 0, 0);
	draw(VDXG_PRIM_TRIANGLES, 0, 0);
	RUN_FAULT(VDXG_FAULT_SHADER, A(O_FS) + 16);
}

/* ------------------------------------------------------ state, commands */

static void test_bad_state(void)
{
	static const struct {
		uint32_t reg, v;
	} bad[] = {
		{ VDXG_3D_RASTER, 0x40 },
		{ VDXG_3D_POINT_SIZE, 0x7f800000 },
		{ VDXG_3D_POLY_OFFSET_FACTOR, 0x7fc00000 },
		{ VDXG_3D_POLY_OFFSET_UNITS, 0xff800000 },
		{ VDXG_3D_VIEWPORT_SCALE(1), 0x46800200 },	/* 16384.5 */
		{ VDXG_3D_VIEWPORT_TRANSLATE(2), 0xc6800200 },
		{ VDXG_3D_SCISSOR_MIN, VDXG_RD_XY(8193, 0) },
		{ VDXG_3D_SCISSOR_MAX, VDXG_RD_XY(0, 8193) },
		{ VDXG_3D_DEPTH, 0x20 },
		{ VDXG_3D_STENCIL_FRONT, BIT(13) },
		{ VDXG_3D_STENCIL_BACK, BIT(15) },
		{ VDXG_3D_STENCIL_REF, 0x10000 },
		{ VDXG_3D_BLEND, VDXG_BLEND_RGB_EQ(5) },
		{ VDXG_3D_BLEND, VDXG_BLEND_A_EQ(7) },
		{ VDXG_3D_BLEND, VDXG_BLEND_RGB_SRC(15) },
		{ VDXG_3D_BLEND, VDXG_BLEND_A_DST(15) },
		{ VDXG_3D_BLEND, BIT(15) },
		{ VDXG_3D_BLEND, BIT(28) },
		{ 0x15, 1 },
		{ 0x1f, 0x80000000 },
		{ VDXG_3D_ELEMENT(0), VDXG_VFMT(10, 1) },
		{ VDXG_3D_ELEMENT(3), VDXG_VFMT(VDXG_VTYPE_NONE, 2) },
		{ VDXG_3D_ELEMENT(15), BIT(6) | VDXG_VFMT(1, 1) },
		{ VDXG_3D_ELEMENT(15), BIT(12) | VDXG_VFMT(1, 1) },
		{ VDXG_3D_SAMPLER(0), VDXG_SAMPLER_MIP(3) },
		{ VDXG_3D_SAMPLER(7), VDXG_SAMPLER_WRAP_S(3) },
		{ VDXG_3D_SAMPLER(7), VDXG_SAMPLER_WRAP_T(7) },
		{ VDXG_3D_SAMPLER(7), BIT(10) },
		{ 0x38, 1 },
		{ 0x3f, 1 },
	};
	static const struct {
		uint32_t reg, v;
	} good[] = {
		{ VDXG_3D_VIEWPORT_SCALE(0), 0x46800000 },	/* 16384 */
		{ VDXG_3D_VIEWPORT_TRANSLATE(0), 0xc6800000 },
		{ VDXG_3D_BLEND_COLOR(0), 0x7fc00001 },	/* any value */
		{ VDXG_3D_BLEND_COLOR(3), 0xff800000 },
		{ VDXG_3D_SCISSOR_MAX, VDXG_RD_XY(8192, 8192) },
		{ VDXG_3D_ELEMENT(0), VDXG_ELEMENT(VDXG_VFMT(9, 4), 15,
						   0xffff) },
		{ VDXG_3D_POINT_SIZE, 0xc0000000 },	/* finite: -2 */
		{ VDXG_3D_BLEND, BL(MAX, SRC_ALPHA_SATURATE, SRC_ALPHA_SATURATE,
				    MAX, SRC_ALPHA_SATURATE,
				    SRC_ALPHA_SATURATE) |
				 VDXG_BLEND_WRITE_DISABLE(15) },
	};
	struct vdxg_ref3d_fault f;
	uint32_t area[1024], i;

	reset();
	for (i = 0; i < VTEST_ARRAY_SIZE(bad); i++) {
		vtest_assert_f(!vdxg_ref3d_reg_valid(bad[i].reg, bad[i].v),
			       "case %u", i);
		cmd(VDXG_RD_NOP, 0);
		set_reg(bad[i].reg, bad[i].v);
		RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE + 4);
	}
	for (i = 0; i < VTEST_ARRAY_SIZE(good); i++) {
		set_reg(good[i].reg, good[i].v);
		run_ok();
		vtest_assert_eq(ctx.regs[good[i].reg], good[i].v);
	}
	/* All of a command's values or none. */
	cmd(VDXG_RD_SET_STATE, 3, VDXG_3D_RASTER, 1, 0x7f800000);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	vtest_assert_eq(ctx.regs[VDXG_3D_RASTER], 0);
	cmd(VDXG_RD_SET_STATE, 3, 63, 0, 0);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	cmd(VDXG_RD_SET_STATE, 2, 64, 0);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	/* LOAD_STATE: from memory, checked alike */
	put32(O_MISC, VDXG_RASTER_SCISSOR);
	put32(O_MISC + 4, fbits(3.0f));
	put32(O_MISC + 8, 0x7f800000);
	cmd(VDXG_RD_LOAD_STATE, 4, LO(A(O_MISC)), HI(A(O_MISC)), 0, 3);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	vtest_assert_eq(ctx.regs[VDXG_3D_POINT_SIZE], 0xc0000000);
	cmd(VDXG_RD_LOAD_STATE, 4, LO(A(O_MISC)), HI(A(O_MISC)), 0, 2);
	run_ok();
	vtest_assert_eq(ctx.regs[VDXG_3D_RASTER], VDXG_RASTER_SCISSOR);
	vtest_assert_eq(ctx.regs[VDXG_3D_POINT_SIZE], fbits(3.0f));
	cmd(VDXG_RD_LOAD_STATE, 4, LO(A(O_MISC)), HI(A(O_MISC)), 0, 0);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	cmd(VDXG_RD_LOAD_STATE, 4, LO(A(O_MISC)), HI(A(O_MISC)), 60, 5);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	cmd(VDXG_RD_LOAD_STATE, 4, LO(A(O_MISC) + 2), HI(A(O_MISC)), 0, 1);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	cmd(VDXG_RD_LOAD_STATE, 4, LO(A(MEM_SIZE - 4)), 0, 0, 2);
	RUN_FAULT(VDXG_FAULT_ADDRESS, A(MEM_SIZE - 4));

	/* Headers: OPCODE, LENGTH (FAULT_ADDR the header). */
	cmd(VDXG_RD_NOP, 0);
	cmd(0x12, 0);
	RUN_FAULT(VDXG_FAULT_OPCODE, CMD_BASE + 4);
	cb[ncb++] = VDXG_RD_NOP | 0x100 | 1 << 16;
	RUN_FAULT(VDXG_FAULT_OPCODE, CMD_BASE);
	cmd(VDXG_RD_SET_STATE, 1, 0);
	RUN_FAULT(VDXG_FAULT_LENGTH, CMD_BASE);
	cb[ncb++] = VDXG_RD_SET_STATE | 67 << 16;
	for (i = 0; i < 66; i++)
		cb[ncb++] = 0;
	RUN_FAULT(VDXG_FAULT_LENGTH, CMD_BASE);
	cb[ncb++] = VDXG_RD_SET_STATE | 66 << 16;
	for (i = 0; i < 65; i++)
		cb[ncb++] = 0;
	run_ok();
	cmd(VDXG_RD_DRAW, 4, 0, 0, 0, 0);
	RUN_FAULT(VDXG_FAULT_LENGTH, CMD_BASE);
	cmd(VDXG_RD_NOP, 0);
	cmd(VDXG_RD_DRAW, 3, 0, 0, 0);
	ncb--;	/* the buffer ends inside the DRAW */
	RUN_FAULT(VDXG_FAULT_LENGTH, CMD_BASE + 4);

	/* The binding commands. */
	cmd(VDXG_RD_SET_CONSTANTS, 4, 2, LO(A(O_CONSTS)), 0, 1);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	cmd(VDXG_RD_SET_CONSTANTS, 4, 0, LO(A(O_CONSTS)), 0, 257);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	cmd(VDXG_RD_SET_CONSTANTS, 4, 0, LO(A(O_CONSTS) + 4 - 2), 0, 1);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	cmd(VDXG_RD_SET_CONSTANTS, 4, 0, LO(A(O_CONSTS)), 0, 0);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	cmd(VDXG_RD_SET_CONSTANTS, 4, 1, LO(A(MEM_SIZE - 16)), 0, 2);
	RUN_FAULT(VDXG_FAULT_ADDRESS, A(MEM_SIZE - 16));
	cmd(VDXG_RD_SET_CONSTANTS, 4, 1, LO(A(MEM_SIZE - 16)), 0, 1);
	cmd(VDXG_RD_SET_CONSTANTS, 4, 1, 0, 0, 0);
	run_ok();
	cmd(VDXG_RD_SET_VERTEX_BUFFER, 5, 16, LO(A(O_VB)), 0, 4, 4);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	cmd(VDXG_RD_SET_VERTEX_BUFFER, 5, 0, LO(A(O_VB)), 0, 4, 2049);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	cmd(VDXG_RD_SET_VERTEX_BUFFER, 5, 0, LO(A(O_VB)), 0, 0, 4);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	cmd(VDXG_RD_SET_VERTEX_BUFFER, 5, 0, LO(A(O_VB) + 1), 0, 4, 2048);
	run_ok();	/* no alignment */
	cmd(VDXG_RD_SET_VERTEX_BUFFER, 5, 0, LO(A(MEM_SIZE - 4)), 0, 5, 0);
	RUN_FAULT(VDXG_FAULT_ADDRESS, A(MEM_SIZE - 4));
	cmd(VDXG_RD_SET_INDEX_BUFFER, 4, LO(A(O_IB)), 0, 4, 3);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	cmd(VDXG_RD_SET_INDEX_BUFFER, 4, 0, 0, 4, 0);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	cmd(VDXG_RD_SET_INDEX_BUFFER, 4, LO(A(O_IB)), 0, 0, 0);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	cmd(VDXG_RD_SET_INDEX_BUFFER, 4, LO(A(MEM_SIZE - 4)), 0, 8, 4);
	RUN_FAULT(VDXG_FAULT_ADDRESS, A(MEM_SIZE - 4));
	/* textures: unit, reserved bits, format, levels, size, layout */
	set_texture(8, O_TEX, 4, VDXG_TEX_DESC(VDXG_FMT_L8, 1, 0), 1, 1);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	set_texture(0, O_TEX, 4, VDXG_TEX_DESC(VDXG_FMT_L8, 1, 0) | BIT(13),
		    1, 1);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	set_texture(0, O_TEX, 4, VDXG_TEX_DESC(VDXG_FMT_D16, 1, 0), 1, 1);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	set_texture(0, O_TEX, 4, VDXG_TEX_DESC(VDXG_FMT_D32, 1, 0), 1, 1);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	set_texture(0, O_TEX, 4, VDXG_TEX_DESC(VDXG_FMT_L8, 0, 0), 1, 1);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	set_texture(0, O_TEX, 4096, VDXG_TEX_DESC(VDXG_FMT_L8, 15, 0), 1, 1);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	set_texture(0, O_TEX, 4096, VDXG_TEX_DESC(VDXG_FMT_L8, 1, 0), 0, 1);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	set_texture(0, O_TEX, 1 << 26, VDXG_TEX_DESC(VDXG_FMT_L8, 1, 0),
		    8193, 1);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	set_texture(0, O_TEX, 4096, VDXG_TEX_DESC(VDXG_FMT_L8, 1, 1), 2, 1);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	/* 3 x 2 RGB888, 2 levels: rows of 12 and 4 bytes: 24 + 4 = 28 */
	set_texture(0, O_TEX, 27, VDXG_TEX_DESC(VDXG_FMT_RGB888, 2, 0), 3, 2);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	set_texture(0, O_TEX, 28, VDXG_TEX_DESC(VDXG_FMT_RGB888, 2, 0), 3, 2);
	run_ok();
	/* 1 x 1 ... levels 14 of 1 x 1: each level 1 x 1 (4 bytes) */
	set_texture(0, O_TEX, 56, VDXG_TEX_DESC(VDXG_FMT_L8, 14, 0), 1, 1);
	run_ok();
	set_texture(0, O_TEX + 2, 56, VDXG_TEX_DESC(VDXG_FMT_L8, 14, 0), 1,
		    1);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	set_texture(0, MEM_SIZE - 8, 24, VDXG_TEX_DESC(VDXG_FMT_L8, 1, 1), 1,
		    1);
	RUN_FAULT(VDXG_FAULT_ADDRESS, A(MEM_SIZE - 8));
	cmd(VDXG_RD_SET_TEXTURE, 6, 0, 0, 0, 0, 0, VDXG_RD_XY(1, 1));
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	cmd(VDXG_RD_SET_TEXTURE, 6, 0, 0, 0, 0, VDXG_TEX_CUBE, 0);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);

	/* DRAW's checks, in the spec's order. */
	fb_w = fb_h = 4;
	setup(VDXG_FMT_ARGB8888, 4, 4);
	draw(VDXG_NUM_PRIMS, 0, 0);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	draw(VDXG_PRIM_POINTS | 0x10, 0, 0);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	draw(VDXG_PRIM_POINTS, 0, VDXG_3D_MAX_COUNT + 1);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	/* DEPTH smaller than DST (BOUNDS) comes before first + count */
	surface(VDXG_SLOT_DEPTH, O_DEPTH, VDXG_FMT_D16, 4, 3);
	draw(VDXG_PRIM_POINTS, 0xffffffff, 2);
	RUN_FAULT(VDXG_FAULT_BOUNDS, CMD_BASE + 32);
	surface(VDXG_SLOT_DEPTH, O_DEPTH, VDXG_FMT_D32, 4, 4);
	draw(VDXG_PRIM_POINTS, 0, 0);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE + 32);
	surface(VDXG_SLOT_DEPTH, O_DEPTH, VDXG_FMT_D24S8, 8, 8);
	draw(VDXG_PRIM_POINTS, 0, 0);
	cmd(VDXG_RD_DRAW_INDEXED, 4, VDXG_PRIM_POINTS, 0, 0, 0);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE + 32 + 16);
	/* a draw needs both programs */
	reset();
	surface(VDXG_SLOT_DST, O_DST, VDXG_FMT_ARGB8888, 4, 4);
	vs("VERT\nMOV OUT[0], IN[0]\nEND\n");
	draw(VDXG_PRIM_POINTS, 0, 0);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE + 32 + 20);
	/* and a target */
	reset();
	vs("VERT\nMOV OUT[0], IN[0]\nEND\n");
	fs("FRAG\nMOV OUT[0], IN[0]\nEND\n");
	draw(VDXG_PRIM_POINTS, 0, 0);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE + 40);
	surface(VDXG_SLOT_DEPTH, O_DEPTH, VDXG_FMT_D16, 4, 4);
	draw(VDXG_PRIM_POINTS, 0, 0);
	run_ok();
	/* SET_SURFACE takes the new colour formats, D16 and D24S8 */
	surface(VDXG_SLOT_DST, O_DST, VDXG_FMT_RGBA5551, 3, 3);
	surface(VDXG_SLOT_DEPTH, O_DEPTH, VDXG_FMT_D24S8, 3, 3);
	run_ok();
	surface(VDXG_SLOT_DST, O_DST, VDXG_FMT_D16, 4, 4);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	surface(VDXG_SLOT_DST, O_DST, VDXG_FMT_L8, 4, 4);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);
	surface(VDXG_SLOT_DEPTH, O_DEPTH, VDXG_FMT_ARGB8888, 4, 4);
	RUN_FAULT(VDXG_FAULT_PARAM, CMD_BASE);

	/* state_store reflects the registers. */
	set_reg(VDXG_3D_STENCIL_REF, 0x77);
	run_ok();
	memset(area, 0xee, sizeof(area));
	vdxg_ref3d_state_store(&ctx, area);
	vtest_assert_eq(area[63], 0xeeeeeeee);
	vtest_assert_eq(area[64 + VDXG_3D_STENCIL_REF], 0x77);
	vtest_assert_eq(area[64 + VDXG_3D_POINT_SIZE], 0);
	vtest_assert_eq(area[288], 0xeeeeeeee);
	(void)f;
}

/* Store, load into a fresh context, store again: the same dwords. */
static void test_state_area(void)
{
	static uint32_t area[1024], again[1024];
	static struct vdxg_ref3d_ctx other;
	struct vdxg_ref3d_fault f;
	uint32_t i;

	fb_w = fb_h = 4;
	setup(VDXG_FMT_ARGB8888, 4, 4);
	set_reg(VDXG_3D_STENCIL_REF, 0x1234);
	set_regf(VDXG_3D_BLEND_COLOR(2), 0.5f);
	cmd(VDXG_RD_SET_CONSTANTS, 4, 1, LO(A(O_CONSTS)), HI(A(O_CONSTS)), 3);
	cmd(VDXG_RD_SET_INDEX_BUFFER, 4, LO(A(O_IB)), HI(A(O_IB)), 40, 2);
	cmd(VDXG_RD_SET_VERTEX_BUFFER, 5, 15, LO(A(O_MISC)), HI(A(O_MISC)),
	    7, 12);
	set_texture(7, O_TEX, 28, VDXG_TEX_DESC(VDXG_FMT_L8, 3, 0), 4, 4);
	run_ok();
	memset(area, 0xee, sizeof(area));
	vdxg_ref3d_state_store(&ctx, area);
	vtest_assert_eq(area[64 + VDXG_3D_STENCIL_REF], 0x1234);
	vtest_assert_eq(area[64 + VDXG_3D_BLEND_COLOR(2)], fbits(0.5f));
	/* programs: bound, address, size */
	vtest_assert_eq(area[128], 1);
	vtest_assert_eq_u64(area[129] | (uint64_t)area[130] << 32, A(O_VS));
	vtest_assert_eq(area[132], 1);
	vtest_assert_eq_u64(area[133] | (uint64_t)area[134] << 32, A(O_FS));
	vtest_assert_eq(area[131], ctx.prog[0].size);
	/* constants: stage 0 unbound (zero), stage 1 */
	for (i = 136; i < 140; i++)
		vtest_assert_eq(area[i], 0);
	vtest_assert_eq(area[140], 3);
	vtest_assert_eq_u64(area[141] | (uint64_t)area[142] << 32,
			    A(O_CONSTS));
	vtest_assert_eq(area[143], 0);
	vtest_assert_eq(area[144], 2);
	vtest_assert_eq(area[147], 40);
	for (i = 148; i < 160; i++)
		vtest_assert_eq(area[i], 0);
	vtest_assert_eq(area[160], VB_STRIDE);
	vtest_assert_eq(area[163], 0x10000);
	vtest_assert_eq(area[160 + 4 * 15], 12);
	vtest_assert_eq(area[163 + 4 * 15], 7);
	vtest_assert_eq(area[224 + 8 * 7], VDXG_TEX_DESC(VDXG_FMT_L8, 3, 0));
	vtest_assert_eq(area[224 + 8 * 7 + 3], 28);
	vtest_assert_eq(area[224 + 8 * 7 + 4], VDXG_RD_XY(4, 4));
	vtest_assert_eq(area[224 + 8 * 7 + 5], 0);
	vtest_assert_eq(area[288], 0xeeeeeeee);

	vdxg_ref3d_init(&other);
	vtest_assert_eq(vdxg_ref3d_state_load(&other, &tmem, area, 0x5000,
					      &f), 0);
	memset(again, 0xee, sizeof(again));
	vdxg_ref3d_state_store(&other, again);
	vtest_assert(!memcmp(area, again, sizeof(area)));
	/* the loaded context draws like the original */
	vtest_assert_eq(other.prog[1].n, ctx.prog[1].n);

	/* A zero area is the state of a new entry. */
	memset(again, 0, sizeof(again));
	vtest_assert_eq(vdxg_ref3d_state_load(&other, &tmem, again, 0x5000,
					      &f), 0);
	vdxg_ref3d_state_store(&other, again);
	for (i = 64; i < 288; i++)
		vtest_assert_eq(again[i], 0);

	/* Faults: PARAM at the area, SHADER at the program's dword. */
	{
		static const struct {
			uint32_t dw, v;
		} c[] = {
			{ 64 + VDXG_3D_DEPTH, 0x20 },
			{ 128, 2 },
			{ 132, 0 },		/* unbound with an address */
			{ 131, 15 },		/* size */
			{ 129, LO(A(O_VS)) + 2 },
			{ 140, 257 },
			{ 143, 1 },
			{ 139, 0 },
			{ 144, 3 },
			{ 160 + 4 * 15, 2049 },
			{ 163 + 4 * 15, 0 },	/* size 0 with an address */
			{ 224 + 8 * 7 + 5, 1 },
			{ 224 + 8 * 7 + 3, 27 },	/* layout past size */
			{ 224 + 8 * 7, 0 },	/* unbound with fields */
			{ 130, 0x10000 },	/* past 2^48 */
		};

		for (i = 0; i < VTEST_ARRAY_SIZE(c); i++) {
			memcpy(again, area, sizeof(area));
			again[c[i].dw] = c[i].v;
			if (c[i].dw == 139)	/* count 0, address kept */
				again[136] = 0, again[137] = 4;
			vdxg_ref3d_init(&other);
			vtest_assert_f(vdxg_ref3d_state_load(&other, &tmem, again,
							     0x5000, &f) ==
				       VDXG_FAULT_PARAM && f.addr == 0x5000,
				       "case %u: fault %u at 0x%llx", i,
				       f.reason, (unsigned long long)f.addr);
		}
		/* dwords 148 to 159 are not read */
		memcpy(again, area, sizeof(area));
		again[150] = 0xdead;
		vtest_assert_eq(vdxg_ref3d_state_load(&other, &tmem, again,
						      0x5000, &f), 0);
		/* the program is read and checked again */
		put32(O_FS + 16 * 2, 0x32);
		vtest_assert_eq(vdxg_ref3d_state_load(&other, &tmem, area,
						      0x5000, &f),
				VDXG_FAULT_SHADER);
		vtest_assert_eq_u64(f.addr, A(O_FS) + 32);
	}
}

/*
 * Perspective-correct varyings, POSITION, helper lanes and discard in
 * draws.
 */
static void test_quads_varyings(void)
{
	uint32_t x, y;

	/*
	 * Window (0, 0), (8, 0), (0, 8) with w = 1, 2, 4 and a varying 0, 1,
	 * 0 (a' = 0, 0.5, 0). Pixel (1, 1): w1 = w2 = 786432, area 2^22:
	 * l1 = l2 = 0.1875, l0 = 0.625, pw = 0.765625, r = 1.30612242;
	 * the varying 0.09375 * r = 0.122448981 -> 31 (affine: 48). Alpha
	 * 1 at every vertex: pw * r = 1 -> 255.
	 */
	fb_w = fb_h = 4;
	setup(VDXG_FMT_ARGB8888, 4, 4);
	cv(0, -1, -1, 0, 1, 0, 0, 0, 1);
	cv(1, 6, -2, 0, 2, 1, 0, 0, 1);
	cv(2, -4, 12, 0, 4, 0, 0, 0, 1);
	draw(VDXG_PRIM_TRIANGLES, 0, 3);
	run_ok();
	assert_pix(1, 1, 0xff1f0000);
	/* POSITION: (1.5, 1.5, z, 1/w): 0.765625 * 255 + 0.5 = 195.73 -> 195 */
	fs("FRAG\nIMM[0] = { 0.125, 0, 0, 0 }\n"
	   "MUL OUT[0].xy, IN[8], IMM[0].x\nMOV OUT[0].zw, IN[8]\nEND\n");
	draw(VDXG_PRIM_TRIANGLES, 0, 3);
	run_ok();
	/* 1.5 / 8 = 0.1875 -> 48.3 -> 48; z: Z 0.5 -> 128 */
	assert_pix(1, 1, 0xc3303080);

	/*
	 * A triangle covering pixel (1, 1) alone: lane 3 of its quad. The
	 * helper lanes 0 to 2 compute their own POSITION, so DDX and DDY of
	 * POSITION are 1: (0.25, 0.5, 0, 0.5).
	 */
	setup(VDXG_FMT_ARGB8888, 4, 4);
	wv(0, 1.2f, 1.2f, 0, 0, 0, 0, 0);
	wv(1, 1.9f, 1.2f, 0, 0, 0, 0, 0);
	wv(2, 1.2f, 1.9f, 0, 0, 0, 0, 0);
	fs("FRAG\nIMM[0] = { 0.25, 0.5, 0, 0 }\n"
	   "DDX TEMP[0], IN[8]\nDDY TEMP[1], IN[8]\n"
	   "MUL OUT[0].x, TEMP[0].x, IMM[0].x\n"
	   "MUL OUT[0].y, TEMP[1].y, IMM[0].y\n"
	   "MOV OUT[0].w, IMM[0].y\nEND\n");
	draw(VDXG_PRIM_TRIANGLES, 0, 3);
	run_ok();
	for (y = 0; y < 4; y++)
		for (x = 0; x < 4; x++)
			assert_pix(x, y, x == 1 && y == 1 ? 0x80408000 : 0);

	/* KILL_IF x < 2: columns 0 and 1 keep their colour and depth. */
	setup(VDXG_FMT_ARGB8888, 4, 4);
	surface(VDXG_SLOT_DEPTH, O_DEPTH, VDXG_FMT_D16, 4, 4);
	set_reg(VDXG_3D_DEPTH, VDXG_DEPTH_WRITE);
	fs("FRAG\nIMM[0] = { 2.0, 1.0, 0, 0 }\n"
	   "ADD TEMP[0], IN[8].x, -IMM[0].x\nKILL_IF TEMP[0]\n"
	   "MOV OUT[0], IMM[0].yzzy\nEND\n");
	big_triangle(0, false, 0, 0, 0, 0, 0);
	draw(VDXG_PRIM_TRIANGLES, 0, 3);
	run_ok();
	for (y = 0; y < 4; y++)
		for (x = 0; x < 4; x++) {
			assert_pix(x, y, x >= 2 ? RED : 0);
			vtest_assert_eq(depth_word(VDXG_FMT_D16, 4, x, y),
					x >= 2 ? 32768 : 0);
		}
}

static const struct vtest_subtest tests[] = {
	{ "alu-arith", test_alu_arith,
	  "ADD..CMP with swizzle and negate; MAD rounds twice" },
	{ "alu-compare-round", test_alu_compare_round,
	  "SLT..SNE with NaN and -0, FRC FLR CEIL TRUNC ROUND SSG" },
	{ "alu-scalar", test_alu_scalar,
	  "RCP RSQ SQRT DIV LDEXP, infinities and saturate" },
	{ "alu-modifiers", test_alu_modifiers,
	  "ABS, NEGATE, swizzle, mask, NaN canonicalization, denormals" },
	{ "alu-relative", test_alu_relative,
	  "ARL and CONST[ADDR.x+n] in and out of range" },
	{ "alu-transcendental", test_alu_transcendental,
	  "EX2 LG2 SIN COS POW: the spec's algorithms' bits" },
	{ "control-flow", test_control_flow,
	  "IF/ELSE, loops with BRK and CONT, KILL, visit counts" },
	{ "derivatives", test_derivatives, "DDX and DDY across a quad" },
	{ "runaway", test_runaway,
	  "exactly VDXG_3D_MAX_STEPS visits pass, one more faults" },
	{ "triangle-coverage", test_triangle_coverage,
	  "a triangle's exact pixels, facing, culling, scissor" },
	{ "quads-varyings", test_quads_varyings,
	  "perspective-correct varyings, POSITION, helper lanes, KILL" },
	{ "shared-edges", test_shared_edges,
	  "triangles sharing edges cover each pixel once" },
	{ "clip-planes", test_clip_planes,
	  "each of the six planes, guard band, dropped primitives" },
	{ "depth-funcs", test_depth_funcs,
	  "each depth function, write, D24 rounding, polygon offset" },
	{ "stencil", test_stencil,
	  "stencil functions, operations, masks, two-sided" },
	{ "blend", test_blend, "blend equations and factors, write masks" },
	{ "target-formats", test_target_formats,
	  "a colour written in each target format" },
	{ "texture-filters", test_texture_filters,
	  "nearest, linear, repeat, clamp, mirrored repeat, TXP" },
	{ "texture-mipmaps", test_texture_mipmaps,
	  "mip selection by TXL, implicit LOD, TXB, TXD" },
	{ "texture-cube", test_texture_cube, "cube faces and their s, t" },
	{ "texel-formats", test_texel_formats,
	  "every texture format read as floats" },
	{ "vertex-formats", test_vertex_formats,
	  "each vertex format, bounds, unbound buffers" },
	{ "indexed", test_indexed,
	  "index sizes, bias, indices past the vertex buffer" },
	{ "lines-points", test_lines_points,
	  "line pixels, loops and strips, point sizes, POINT_COORD" },
	{ "clear", test_clear, "CLEAR of colour, depth and stencil" },
	{ "bad-programs", test_bad_programs,
	  "SET_SHADER's checks: SHADER at the offending dword" },
	{ "draw-refs", test_draw_refs,
	  "a draw's constant and texture references" },
	{ "bad-state", test_bad_state,
	  "registers, bindings and headers that fault" },
	{ "state-area", test_state_area,
	  "the 3D part of the state area stored, loaded and checked" },
};

VTEST_MAIN(tests)
