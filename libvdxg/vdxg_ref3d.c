// SPDX-License-Identifier: MIT
/*
 * vdxg_ref3d: the RENDER engine's 3D pipeline, per docs/hardware.md ("The
 * 3D pipeline (RENDER engine, CAP_3D)"). See vdxg_ref3d.h.
 *
 * The code follows the text section by section: commands and state,
 * programs (checks, control flow, operations), arithmetic, primitives and
 * vertex fetch, geometry, rasterization, fragments, textures. Every float
 * expression is written with the text's parenthesisation, one binary32
 * operation at a time; nothing may be contracted into an FMA.
 */
#include "vdxg_ref_hw.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "vdxg_ref3d.h"

/*
 * No a * b + c contracted into an FMA: the standard pragma (clang obeys
 * it; GCC ignores it with an unknown-pragma warning, silenced here) and
 * GCC's own spelling. libvdxg also builds with -ffp-contract=off.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma GCC optimize("fp-contract=off")
#endif
#pragma STDC FP_CONTRACT OFF

/* ------------------------------------------------------------ helpers */

static float u2f(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static uint32_t f2u(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static bool is_nan(float x)
{
	return x != x;
}

static bool is_finite(float x)
{
	return (f2u(x) & 0x7f800000u) != 0x7f800000u;
}

/* "(int)v": v clamped to [lo, hi], NaN 0, then truncated. */
static int32_t to_int(float v, int32_t lo, int32_t hi)
{
	if (is_nan(v))
		return 0;
	if (v <= (float)lo)
		return lo;
	if (v >= (float)hi)
		return hi;
	return (int32_t)v;
}

/* The clamp of colours and depth: x > 0 ? (x < 1 ? x : 1) : 0. */
static float sat(float x)
{
	return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f;
}

static uint32_t ref_fault(struct vdxg_ref3d_fault *fault, uint32_t reason,
			  uint64_t addr)
{
	fault->reason = reason;
	fault->addr = addr;
	return reason;
}

static uint32_t rd(const struct vdxg_ref3d_mem *mem, uint64_t addr, void *buf,
		   uint32_t len, struct vdxg_ref3d_fault *fault)
{
	if (!mem->read(mem->opaque, addr, buf, len))
		return ref_fault(fault, VDXG_FAULT_ADDRESS, addr);
	return 0;
}

static uint32_t wr(const struct vdxg_ref3d_mem *mem, uint64_t addr,
		   const void *buf, uint32_t len, struct vdxg_ref3d_fault *fault)
{
	if (!mem->write(mem->opaque, addr, buf, len))
		return ref_fault(fault, VDXG_FAULT_ADDRESS, addr);
	return 0;
}

static uint32_t le(const uint8_t *p, uint32_t n)
{
	uint32_t v = 0, i;

	for (i = 0; i < n; i++)
		v |= (uint32_t)p[i] << (8 * i);
	return v;
}

static void put_le(uint8_t *p, uint32_t n, uint32_t v)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		p[i] = (v >> (8 * i)) & 0xff;
}

/* Physical mode: a bound range lies wholly in VRAM or in the aperture. */
static bool range_ok(const struct vdxg_ref3d_mem *mem, uint64_t addr,
		     uint64_t len)
{
	if (addr + len < addr)
		return false;
	return !mem->range_ok || mem->range_ok(mem->opaque, addr, len);
}

/* ---------------------------------------------------------- arithmetic */

/* The binary32 2^n for n in [-126, 127]. */
static float pow2(int32_t n)
{
	return u2f((uint32_t)(n + 127) << 23);
}

float vdxg_ref3d_ex2(float x)
{
	static const uint32_t c[7] = {
		0x3f800000, 0x3f317215, 0x3e75fecd, 0x3d6342b3,
		0x3c1e9268, 0x3aa3186e, 0x3963703e,
	};
	float n, f, p;

	if (is_nan(x))
		return x;
	if (x >= 128.0f)
		return u2f(0x7f800000);
	if (x < -126.0f)
		return 0.0f;
	n = floorf(x);
	f = x - n;
	p = u2f(c[6]);
	p = p * f + u2f(c[5]);
	p = p * f + u2f(c[4]);
	p = p * f + u2f(c[3]);
	p = p * f + u2f(c[2]);
	p = p * f + u2f(c[1]);
	p = p * f + u2f(c[0]);
	return p * pow2((int32_t)n);
}

float vdxg_ref3d_lg2(float x)
{
	static const uint32_t d[5] = {
		0x4038aa3b, 0x3f76384f, 0x3f13bbc1, 0x3ed2c684, 0x3eae781c,
	};
	uint32_t bits;
	int32_t e = 0;
	float m, t, u, q;

	if (is_nan(x) || x < 0.0f)
		return u2f(0x7fc00000);
	if (x == 0.0f)
		return u2f(0xff800000);
	if (x == u2f(0x7f800000))
		return x;
	bits = f2u(x);
	if (!(bits & 0x7f800000)) {
		x = x * 8388608.0f;	/* 2^23, exact */
		e = -23;
		bits = f2u(x);
	}
	e += (int32_t)((bits >> 23) & 0xff) - 127;
	m = u2f((bits & 0x7fffff) | 0x3f800000);
	if (m > u2f(0x3fb504f3)) {
		m = m * 0.5f;
		e += 1;
	}
	t = (m - 1.0f) / (m + 1.0f);
	u = t * t;
	q = u2f(d[4]);
	q = q * u + u2f(d[3]);
	q = q * u + u2f(d[2]);
	q = q * u + u2f(d[1]);
	q = q * u + u2f(d[0]);
	return (float)e + t * q;
}

/* sin's algorithm from r, after its first step. */
static float sin_poly(float r)
{
	static const uint32_t s[6] = {
		0x40c90fdb, 0xc2255de7, 0x42a335e0, 0xc299688c,
		0x42280865, 0xc1662458,
	};
	float u, q;

	r = r - floorf(r + 0.5f);
	if (r > 0.25f)
		r = 0.5f - r;
	else if (r < -0.25f)
		r = -0.5f - r;
	u = r * r;
	q = u2f(s[5]);
	q = q * u + u2f(s[4]);
	q = q * u + u2f(s[3]);
	q = q * u + u2f(s[2]);
	q = q * u + u2f(s[1]);
	q = q * u + u2f(s[0]);
	return r * q;
}

float vdxg_ref3d_sin(float x)
{
	if (!is_finite(x))
		return u2f(0x7fc00000);
	return sin_poly(x * u2f(0x3e22f983));
}

float vdxg_ref3d_cos(float x)
{
	float r;

	if (!is_finite(x))
		return u2f(0x7fc00000);
	r = x * u2f(0x3e22f983);
	r = r + 0.25f;
	return sin_poly(r);
}

float vdxg_ref3d_ldexp(float a, float b)
{
	int32_t k = to_int(truncf(b), -126, 127);

	return a * pow2(k);
}

uint32_t vdxg_ref3d_unorm(float x, uint32_t n)
{
	uint32_t max = (uint32_t)((1ull << n) - 1);
	float v = sat(x);
	uint32_t r;

	v = v * (float)max;
	v = v + 0.5f;
	r = (uint32_t)v;
	return r > max ? max : r;
}

/* From an n-bit channel: c / (2^n - 1). */
static float from_unorm(uint32_t c, uint32_t n)
{
	return (float)c / (float)((1u << n) - 1);
}

/* ------------------------------------------------------------- formats */

uint32_t vdxg_ref3d_cpp(uint32_t format)
{
	switch (format) {
	case VDXG_FMT_XRGB8888:
	case VDXG_FMT_ARGB8888:
	case VDXG_FMT_D32:
	case VDXG_FMT_ABGR8888:
	case VDXG_FMT_D24S8:
		return 4;
	case VDXG_FMT_RGB565:
	case VDXG_FMT_RGBA4444:
	case VDXG_FMT_RGBA5551:
	case VDXG_FMT_L8A8:
	case VDXG_FMT_D16:
		return 2;
	case VDXG_FMT_L8:
	case VDXG_FMT_A8:
		return 1;
	case VDXG_FMT_RGB888:
		return 3;
	default:
		return 0;
	}
}

static bool is_target_format(uint32_t f)
{
	return f == VDXG_FMT_XRGB8888 || f == VDXG_FMT_ARGB8888 ||
	       f == VDXG_FMT_RGB565 || f == VDXG_FMT_ABGR8888 ||
	       f == VDXG_FMT_RGBA4444 || f == VDXG_FMT_RGBA5551;
}

static bool is_texture_format(uint32_t f)
{
	return is_target_format(f) || (f >= VDXG_FMT_L8 && f <= VDXG_FMT_RGB888);
}

/*
 * A colour format's channels: for r, g, b, a the lowest bit and the width
 * (width 0: the channel is absent; a reads 1, r, g, b 0).
 */
struct chan {
	uint8_t shift[4], bits[4];
};

static struct chan channels(uint32_t f)
{
	struct chan c = { { 0 }, { 0 } };

#define CH(i, s, b) do { c.shift[i] = (s); c.bits[i] = (b); } while (0)
	switch (f) {
	case VDXG_FMT_XRGB8888:
		CH(0, 16, 8); CH(1, 8, 8); CH(2, 0, 8);
		break;
	case VDXG_FMT_ARGB8888:
		CH(0, 16, 8); CH(1, 8, 8); CH(2, 0, 8); CH(3, 24, 8);
		break;
	case VDXG_FMT_RGB565:
		CH(0, 11, 5); CH(1, 5, 6); CH(2, 0, 5);
		break;
	case VDXG_FMT_ABGR8888:
		CH(0, 0, 8); CH(1, 8, 8); CH(2, 16, 8); CH(3, 24, 8);
		break;
	case VDXG_FMT_RGBA4444:
		CH(0, 12, 4); CH(1, 8, 4); CH(2, 4, 4); CH(3, 0, 4);
		break;
	case VDXG_FMT_RGBA5551:
		CH(0, 11, 5); CH(1, 6, 5); CH(2, 1, 5); CH(3, 0, 1);
		break;
	case VDXG_FMT_RGB888:
		CH(0, 0, 8); CH(1, 8, 8); CH(2, 16, 8);
		break;
	default:
		break;
	}
#undef CH
	return c;
}

void vdxg_ref3d_texel(uint32_t format, const uint8_t *p, float rgba[4])
{
	uint32_t v = le(p, vdxg_ref3d_cpp(format)), i;
	struct chan c;

	switch (format) {
	case VDXG_FMT_L8:
		rgba[0] = rgba[1] = rgba[2] = from_unorm(v & 0xff, 8);
		rgba[3] = 1.0f;
		return;
	case VDXG_FMT_A8:
		rgba[0] = rgba[1] = rgba[2] = 0.0f;
		rgba[3] = from_unorm(v & 0xff, 8);
		return;
	case VDXG_FMT_L8A8:
		rgba[0] = rgba[1] = rgba[2] = from_unorm(v & 0xff, 8);
		rgba[3] = from_unorm(v >> 8, 8);
		return;
	default:
		break;
	}
	c = channels(format);
	for (i = 0; i < 4; i++) {
		if (!c.bits[i])
			rgba[i] = i == 3 ? 1.0f : 0.0f;
		else
			rgba[i] = from_unorm((v >> c.shift[i]) &
					     ((1u << c.bits[i]) - 1), c.bits[i]);
	}
}

/* --------------------------------------------------------------- state */

void vdxg_ref3d_init(struct vdxg_ref3d_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
}

static bool valid_f32(uint32_t v, bool bounded)
{
	float f = u2f(v);

	if (!is_finite(f))
		return false;
	return !bounded || (f <= VDXG_3D_VIEWPORT_MAX &&
			    f >= -VDXG_3D_VIEWPORT_MAX);
}

static bool valid_xy(uint32_t v)
{
	return (v & 0xffff) <= VDXG_SURF_MAX_DIM && (v >> 16) <= VDXG_SURF_MAX_DIM;
}

static bool valid_stencil(uint32_t v)
{
	return !(v & VDXG_STENCIL_RSVD);
}

bool vdxg_ref3d_reg_valid(uint32_t reg, uint32_t v)
{
	uint32_t t;

	switch (reg) {
	case VDXG_3D_RASTER:
		return !(v & ~VDXG_RASTER_MASK);
	case VDXG_3D_POINT_SIZE:
	case VDXG_3D_POLY_OFFSET_FACTOR:
	case VDXG_3D_POLY_OFFSET_UNITS:
		return valid_f32(v, false);
	case VDXG_3D_VIEWPORT_SCALE(0) ... VDXG_3D_VIEWPORT_TRANSLATE(2):
		return valid_f32(v, true);
	case VDXG_3D_SCISSOR_MIN:
	case VDXG_3D_SCISSOR_MAX:
		return valid_xy(v);
	case VDXG_3D_DEPTH:
		return !(v & ~VDXG_DEPTH_MASK);
	case VDXG_3D_STENCIL_FRONT:
	case VDXG_3D_STENCIL_BACK:
		return valid_stencil(v);
	case VDXG_3D_STENCIL_REF:
		return !(v >> 16);
	case VDXG_3D_BLEND:
		if (v & VDXG_BLEND_RSVD)
			return false;
		return ((v >> 1) & 7) < VDXG_NUM_BLEQS &&
		       ((v >> 12) & 7) < VDXG_NUM_BLEQS &&
		       ((v >> 4) & 15) < VDXG_NUM_BLFS &&
		       ((v >> 8) & 15) < VDXG_NUM_BLFS &&
		       ((v >> 16) & 15) < VDXG_NUM_BLFS &&
		       ((v >> 20) & 15) < VDXG_NUM_BLFS;
	case VDXG_3D_BLEND_COLOR(0) ... VDXG_3D_BLEND_COLOR(3):
		return true;
	case VDXG_3D_ELEMENT(0) ... VDXG_3D_ELEMENT(15):
		if (v & VDXG_ELEMENT_RSVD)
			return false;
		t = VDXG_VFMT_TYPE(VDXG_ELEMENT_FORMAT(v));
		if (t == VDXG_VTYPE_NONE)
			return VDXG_ELEMENT_FORMAT(v) == 0;
		return t < VDXG_NUM_VTYPES;
	case VDXG_3D_SAMPLER(0) ... VDXG_3D_SAMPLER(7):
		if (v & ~VDXG_SAMPLER_MASK)
			return false;
		return ((v >> 2) & 3) <= VDXG_MIP_LINEAR &&
		       ((v >> 4) & 7) <= VDXG_WRAP_MIRROR &&
		       ((v >> 7) & 7) <= VDXG_WRAP_MIRROR;
	default:
		return v == 0;
	}
}

/* SET_STATE and LOAD_STATE: all of the values or none. */
static uint32_t set_regs(struct vdxg_ref3d_ctx *ctx, uint32_t first,
			 const uint32_t *v, uint32_t n, uint64_t hdr,
			 struct vdxg_ref3d_fault *fault)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (!vdxg_ref3d_reg_valid(first + i, v[i]))
			return ref_fault(fault, VDXG_FAULT_PARAM, hdr);
	for (i = 0; i < n; i++)
		ctx->regs[first + i] = v[i];
	return 0;
}

/* ------------------------------------------------------------ programs */

enum { OPK_NONE, OPK_DST, OPK_ARL, OPK_TEX };

struct opinfo {
	uint8_t nsrc, kind;
};

static struct opinfo opinfo(uint32_t op)
{
	struct opinfo o = { 0, OPK_NONE };

	switch (op) {
	case VDXG_OP_NOP:
	case VDXG_OP_KILL:
	case VDXG_OP_ELSE:
	case VDXG_OP_ENDIF:
	case VDXG_OP_BGNLOOP:
	case VDXG_OP_ENDLOOP:
	case VDXG_OP_BRK:
	case VDXG_OP_CONT:
	case VDXG_OP_END:
		break;
	case VDXG_OP_KILL_IF:
	case VDXG_OP_IF:
		o.nsrc = 1;
		break;
	case VDXG_OP_ARL:
		o.nsrc = 1;
		o.kind = OPK_ARL;
		break;
	case VDXG_OP_TEX:
	case VDXG_OP_TXB:
	case VDXG_OP_TXL:
	case VDXG_OP_TXP:
		o.nsrc = 1;
		o.kind = OPK_TEX;
		break;
	case VDXG_OP_TXD:
		o.nsrc = 3;
		o.kind = OPK_TEX;
		break;
	case VDXG_OP_ADD:
	case VDXG_OP_MUL:
	case VDXG_OP_DP2:
	case VDXG_OP_DP3:
	case VDXG_OP_DP4:
	case VDXG_OP_MIN:
	case VDXG_OP_MAX:
	case VDXG_OP_SLT:
	case VDXG_OP_SGE:
	case VDXG_OP_SEQ:
	case VDXG_OP_SNE:
	case VDXG_OP_POW:
	case VDXG_OP_DIV:
	case VDXG_OP_LDEXP:
		o.nsrc = 2;
		o.kind = OPK_DST;
		break;
	case VDXG_OP_MAD:
	case VDXG_OP_CMP:
	case VDXG_OP_LRP:
		o.nsrc = 3;
		o.kind = OPK_DST;
		break;
	default:	/* the one-source operations with a destination */
		o.nsrc = 1;
		o.kind = OPK_DST;
		break;
	}
	return o;
}

static uint32_t num_inputs(uint32_t stage)
{
	return stage == VDXG_3D_STAGE_VERTEX ? VDXG_3D_VS_INPUTS :
					       VDXG_3D_FS_INPUTS;
}

static uint32_t num_outputs(uint32_t stage)
{
	return stage == VDXG_3D_STAGE_VERTEX ? VDXG_3D_VS_OUTPUTS :
					       VDXG_3D_FS_OUTPUTS;
}

/* One instruction's fields ("An instruction", "Checks"): true when valid. */
static bool insn_fields_ok(const struct vdxg_ref3d_program *p,
			   const uint32_t *in)
{
	uint32_t op = VDXG_INSN_OPCODE(in[0]), file, idx, i;
	struct opinfo o;

	if (op >= VDXG_NUM_OPS)
		return false;
	if (p->stage == VDXG_3D_STAGE_VERTEX &&
	    (op == VDXG_OP_KILL || op == VDXG_OP_KILL_IF))
		return false;
	if (in[0] & VDXG_INSN_RSVD)
		return false;
	o = opinfo(op);
	if (o.kind == OPK_NONE) {
		if (in[0] & 0x0fffff00u)
			return false;
	} else {
		if (o.kind != OPK_TEX && (in[0] & 0x0f000000u))
			return false;
		file = VDXG_INSN_DST_FILE(in[0]);
		idx = VDXG_INSN_DST_INDEX(in[0]);
		if (o.kind == OPK_ARL) {
			if (file != VDXG_FILE_ADDR || idx != 0 ||
			    VDXG_INSN_MASK(in[0]) != 1 ||
			    (in[0] & VDXG_INSN_SAT))
				return false;
		} else if (file == VDXG_FILE_TEMP) {
			if (idx >= VDXG_3D_NUM_TEMPS)
				return false;
		} else if (file == VDXG_FILE_OUTPUT) {
			if (idx >= num_outputs(p->stage))
				return false;
		} else {
			return false;
		}
	}
	for (i = 0; i < 3; i++) {
		uint32_t s = in[1 + i];

		if (i >= o.nsrc) {
			if (s)
				return false;
			continue;
		}
		if (s & VDXG_SRC_RSVD)
			return false;
		file = VDXG_SRC_FILE(s);
		idx = VDXG_SRC_INDEX(s);
		if ((s & VDXG_SRC_RELATIVE) && file != VDXG_FILE_CONST)
			return false;
		switch (file) {
		case VDXG_FILE_TEMP:
			if (idx >= VDXG_3D_NUM_TEMPS)
				return false;
			break;
		case VDXG_FILE_INPUT:
			if (idx >= num_inputs(p->stage))
				return false;
			break;
		case VDXG_FILE_CONST:
			break;	/* 8 bits: always below 256 */
		case VDXG_FILE_IMM:
			if (idx >= p->m)
				return false;
			break;
		default:
			return false;
		}
	}
	return true;
}

uint32_t vdxg_ref3d_program_load(struct vdxg_ref3d_program *p, uint32_t stage,
				 uint64_t addr, const uint32_t *dw,
				 uint32_t size, uint64_t *fault_addr)
{
	/* The control-flow stack: kind (IF, LOOP), ELSE seen, BGNLOOP. */
	struct {
		uint8_t loop, has_else;
		uint16_t at;
	} st[VDXG_3D_MAX_NESTING];
	uint32_t depth = 0, loops = 0, i, n, m;

	memset(p, 0, sizeof(*p));
	p->stage = stage;
	/* Header dwords 0 to 3 in turn. */
	if (size < VDXG_PROG_HEADER_SIZE || dw[0] != VDXG_3D_PROGRAM_MAGIC) {
		*fault_addr = addr;
		return VDXG_FAULT_SHADER;
	}
	if (dw[1] != stage) {
		*fault_addr = addr + 4;
		return VDXG_FAULT_SHADER;
	}
	n = dw[2];
	if (n < 1 || n > VDXG_3D_MAX_INSTRUCTIONS) {
		*fault_addr = addr + 8;
		return VDXG_FAULT_SHADER;
	}
	m = dw[3];
	if (m > VDXG_3D_MAX_IMMEDIATES) {
		*fault_addr = addr + 12;
		return VDXG_FAULT_SHADER;
	}
	/* The length, at dword 3. */
	if ((uint64_t)16 * (1 + n + m) > size) {
		*fault_addr = addr + 12;
		return VDXG_FAULT_SHADER;
	}
	p->n = n;
	p->m = m;
	memcpy(p->imm, dw + 4 * (1 + n), (size_t)16 * m);
	for (i = 0; i < n; i++) {
		const uint32_t *in = dw + 4 * (1 + i);
		uint32_t op = VDXG_INSN_OPCODE(in[0]);
		bool ok = insn_fields_ok(p, in);

		if (ok) {
			switch (op) {
			case VDXG_OP_IF:
			case VDXG_OP_BGNLOOP:
				if (depth == VDXG_3D_MAX_NESTING) {
					ok = false;
					break;
				}
				st[depth].loop = op == VDXG_OP_BGNLOOP;
				st[depth].has_else = 0;
				st[depth].at = i;
				depth++;
				loops += op == VDXG_OP_BGNLOOP;
				break;
			case VDXG_OP_ELSE:
				if (!depth || st[depth - 1].loop ||
				    st[depth - 1].has_else)
					ok = false;
				else
					st[depth - 1].has_else = 1;
				break;
			case VDXG_OP_ENDIF:
				if (!depth || st[depth - 1].loop)
					ok = false;
				else
					depth--;
				break;
			case VDXG_OP_ENDLOOP:
				if (!depth || !st[depth - 1].loop) {
					ok = false;
				} else {
					depth--;
					loops--;
					p->bgnloop[i] = st[depth].at;
				}
				break;
			case VDXG_OP_BRK:
			case VDXG_OP_CONT:
				ok = loops > 0;
				break;
			case VDXG_OP_END:
				ok = i == n - 1 && depth == 0;
				break;
			default:
				break;
			}
		}
		if (ok && i == n - 1 && op != VDXG_OP_END)
			ok = false;
		if (!ok) {
			*fault_addr = addr + 16 * (1 + (uint64_t)i);
			return VDXG_FAULT_SHADER;
		}
		memcpy(p->insn[i], in, 16);
		if (opinfo(op).kind != OPK_NONE &&
		    VDXG_INSN_DST_FILE(in[0]) == VDXG_FILE_OUTPUT &&
		    VDXG_INSN_DST_INDEX(in[0]) == VDXG_VS_OUT_POINT_SIZE)
			p->writes_point_size = true;
	}
	p->bound = true;
	p->addr = addr;
	p->size = size;
	return 0;
}

/* ---------------------------------------------------------- invocation */

/* An invocation's registers, per lane. */
struct inv {
	const struct vdxg_ref3d_program *p;
	const uint32_t (*consts)[4];
	uint32_t nconsts;
	uint32_t stage, nlanes;
	const uint32_t (*in)[VDXG_REF3D_NUM_INPUTS][4];	/* [lane] */
	uint32_t (*out)[VDXG_REF3D_NUM_OUTPUTS][4];	/* [lane] */
	uint32_t temp[4][VDXG_REF3D_NUM_TEMPS][4];
	int32_t a0[4];
	uint32_t visits;
};

/*
 * "Operands": the register's channels, swizzled, then ABS and NEGATE as
 * bit operations.
 */
static void fetch_src(const struct inv *iv, uint32_t lane, uint32_t s,
		      float v[4])
{
	static const uint32_t zero[4];
	uint32_t idx = VDXG_SRC_INDEX(s), c;
	const uint32_t *r = zero;
	int32_t ri;

	switch (VDXG_SRC_FILE(s)) {
	case VDXG_FILE_TEMP:
		r = iv->temp[lane][idx];
		break;
	case VDXG_FILE_INPUT:
		r = iv->in[lane][idx];
		break;
	case VDXG_FILE_CONST:
		if (s & VDXG_SRC_RELATIVE) {
			ri = (int32_t)idx + iv->a0[lane];
			if (ri >= 0 && ri < VDXG_3D_NUM_CONSTS &&
			    (uint32_t)ri < iv->nconsts)
				r = iv->consts[ri];
		} else {
			r = iv->consts[idx];
		}
		break;
	case VDXG_FILE_IMM:
		r = iv->p->imm[idx];
		break;
	}
	for (c = 0; c < 4; c++) {
		uint32_t b = r[(VDXG_SRC_SWIZZLE(s) >> (2 * c)) & 3];

		if (s & VDXG_SRC_ABS)
			b &= 0x7fffffffu;
		if (s & VDXG_SRC_NEGATE)
			b ^= 0x80000000u;
		v[c] = u2f(b);
	}
}

/* The write of a result: canonical NaN, saturate, write mask. */
static void write_dst(struct inv *iv, uint32_t lane, uint32_t d0,
		      const float r[4])
{
	uint32_t c, *reg;

	if (VDXG_INSN_DST_FILE(d0) == VDXG_FILE_TEMP)
		reg = iv->temp[lane][VDXG_INSN_DST_INDEX(d0)];
	else
		reg = iv->out[lane][VDXG_INSN_DST_INDEX(d0)];
	for (c = 0; c < 4; c++) {
		float x = r[c];

		if (!(VDXG_INSN_MASK(d0) & (1u << c)))
			continue;
		if (is_nan(x))
			x = u2f(0x7fc00000);
		if (d0 & VDXG_INSN_SAT)
			x = sat(x);
		reg[c] = f2u(x);
	}
}

static float fmin_op(float a, float b)
{
	return a < b ? a : b;
}

static float fmax_op(float a, float b)
{
	return a > b ? a : b;
}

/* The ALU operations of one lane: r from sources a, b, c. */
static void alu(uint32_t op, const float *a, const float *b, const float *c,
		float *r)
{
	float s;
	int i;

	switch (op) {
	case VDXG_OP_DP2:
		s = (a[0] * b[0]) + (a[1] * b[1]);
		r[0] = r[1] = r[2] = r[3] = s;
		return;
	case VDXG_OP_DP3:
		s = ((a[0] * b[0]) + (a[1] * b[1])) + (a[2] * b[2]);
		r[0] = r[1] = r[2] = r[3] = s;
		return;
	case VDXG_OP_DP4:
		s = (((a[0] * b[0]) + (a[1] * b[1])) + (a[2] * b[2])) +
		    (a[3] * b[3]);
		r[0] = r[1] = r[2] = r[3] = s;
		return;
	case VDXG_OP_RCP:
		s = 1.0f / a[0];
		r[0] = r[1] = r[2] = r[3] = s;
		return;
	case VDXG_OP_RSQ:
		s = 1.0f / sqrtf(u2f(f2u(a[0]) & 0x7fffffffu));
		r[0] = r[1] = r[2] = r[3] = s;
		return;
	case VDXG_OP_SQRT:
		s = sqrtf(a[0]);
		r[0] = r[1] = r[2] = r[3] = s;
		return;
	case VDXG_OP_EX2:
		s = vdxg_ref3d_ex2(a[0]);
		r[0] = r[1] = r[2] = r[3] = s;
		return;
	case VDXG_OP_LG2:
		s = vdxg_ref3d_lg2(a[0]);
		r[0] = r[1] = r[2] = r[3] = s;
		return;
	case VDXG_OP_POW:
		s = vdxg_ref3d_ex2(b[0] * vdxg_ref3d_lg2(a[0]));
		r[0] = r[1] = r[2] = r[3] = s;
		return;
	case VDXG_OP_SIN:
		s = vdxg_ref3d_sin(a[0]);
		r[0] = r[1] = r[2] = r[3] = s;
		return;
	case VDXG_OP_COS:
		s = vdxg_ref3d_cos(a[0]);
		r[0] = r[1] = r[2] = r[3] = s;
		return;
	default:
		break;
	}
	for (i = 0; i < 4; i++) {
		switch (op) {
		case VDXG_OP_MOV:
			r[i] = a[i];
			break;
		case VDXG_OP_ADD:
			r[i] = a[i] + b[i];
			break;
		case VDXG_OP_MUL:
			r[i] = a[i] * b[i];
			break;
		case VDXG_OP_MAD:
			r[i] = (a[i] * b[i]) + c[i];
			break;
		case VDXG_OP_MIN:
			r[i] = fmin_op(a[i], b[i]);
			break;
		case VDXG_OP_MAX:
			r[i] = fmax_op(a[i], b[i]);
			break;
		case VDXG_OP_SLT:
			r[i] = a[i] < b[i] ? 1.0f : 0.0f;
			break;
		case VDXG_OP_SGE:
			r[i] = a[i] >= b[i] ? 1.0f : 0.0f;
			break;
		case VDXG_OP_SEQ:
			r[i] = a[i] == b[i] ? 1.0f : 0.0f;
			break;
		case VDXG_OP_SNE:
			r[i] = a[i] != b[i] ? 1.0f : 0.0f;
			break;
		case VDXG_OP_CMP:
			r[i] = a[i] < 0.0f ? b[i] : c[i];
			break;
		case VDXG_OP_LRP:
			r[i] = (a[i] * b[i]) + ((1.0f - a[i]) * c[i]);
			break;
		case VDXG_OP_FRC:
			r[i] = a[i] - floorf(a[i]);
			break;
		case VDXG_OP_FLR:
			r[i] = floorf(a[i]);
			break;
		case VDXG_OP_CEIL:
			r[i] = ceilf(a[i]);
			break;
		case VDXG_OP_TRUNC:
			r[i] = truncf(a[i]);
			break;
		case VDXG_OP_ROUND:
			r[i] = rintf(a[i]);
			break;
		case VDXG_OP_SSG:
			r[i] = a[i] > 0.0f ? 1.0f : a[i] < 0.0f ? -1.0f : 0.0f;
			break;
		case VDXG_OP_DIV:
			r[i] = a[i] / b[i];
			break;
		case VDXG_OP_LDEXP:
			r[i] = vdxg_ref3d_ldexp(a[i], b[i]);
			break;
		default:
			r[i] = 0.0f;
			break;
		}
	}
}

/* --------------------------------------------------------------- textures */

struct texinfo {
	uint32_t format, levels, width, height, faces, cpp;
	uint64_t addr;
	uint32_t sampler;
	bool cube;
};

static uint32_t lvl_w(const struct texinfo *t, uint32_t l)
{
	uint32_t w = t->width >> l;

	return w ? w : 1;
}

static uint32_t lvl_h(const struct texinfo *t, uint32_t l)
{
	uint32_t h = t->height >> l;

	return h ? h : 1;
}

/* p_l: row pitch of level l. */
static uint64_t lvl_pitch(const struct texinfo *t, uint32_t l)
{
	return ((uint64_t)lvl_w(t, l) * t->cpp + 3) & ~3ull;
}

/* s_l: bytes of one image of level l. */
static uint64_t lvl_image(const struct texinfo *t, uint32_t l)
{
	return lvl_pitch(t, l) * lvl_h(t, l);
}

/* The layout's span: the sum over the levels of F * s_l. */
static uint64_t tex_layout(const struct texinfo *t)
{
	uint64_t sum = 0;
	uint32_t l;

	for (l = 0; l < t->levels; l++)
		sum += t->faces * lvl_image(t, l);
	return sum;
}

static void tex_info(const struct vdxg_ref3d_ctx *ctx, uint32_t unit,
		     struct texinfo *t)
{
	uint32_t desc = ctx->tex[unit].desc, wh = ctx->tex[unit].wh;

	t->format = VDXG_TEX_FORMAT(desc);
	t->levels = VDXG_TEX_LEVELS(desc);
	t->cube = desc & VDXG_TEX_CUBE;
	t->faces = t->cube ? VDXG_TEX_FACES_CUBE : 1;
	t->width = wh & 0xffff;
	t->height = wh >> 16;
	t->cpp = vdxg_ref3d_cpp(t->format);
	t->addr = ctx->tex[unit].addr;
	t->sampler = ctx->regs[VDXG_3D_SAMPLER(unit)];
}

static int32_t wrap(int32_t i, int32_t n, uint32_t mode)
{
	int32_t m;

	switch (mode) {
	case VDXG_WRAP_REPEAT:
		m = i % n;
		return m < 0 ? m + n : m;
	case VDXG_WRAP_CLAMP:
		return i < 0 ? 0 : i > n - 1 ? n - 1 : i;
	default:	/* mirrored repeat */
		m = i % (2 * n);
		if (m < 0)
			m += 2 * n;
		return m < n ? m : 2 * n - 1 - m;
	}
}

static uint32_t texel(const struct vdxg_ref3d_mem *mem,
		      const struct texinfo *t, uint32_t l, uint32_t f,
		      int32_t x, int32_t y, float out[4],
		      struct vdxg_ref3d_fault *fault)
{
	uint64_t off = 0, a;
	uint8_t buf[4];
	uint32_t k, err;

	for (k = 0; k < l; k++)
		off += t->faces * lvl_image(t, k);
	off += f * lvl_image(t, l);
	a = t->addr + off + (uint64_t)y * lvl_pitch(t, l) +
	    (uint64_t)x * t->cpp;
	err = rd(mem, a, buf, t->cpp, fault);
	if (err)
		return err;
	vdxg_ref3d_texel(t->format, buf, out);
	return 0;
}

/* Step 4: the filter on level l. */
static uint32_t filter(const struct vdxg_ref3d_mem *mem,
		       const struct texinfo *t, uint32_t l, uint32_t f,
		       bool linear, float s, float tt, float out[4],
		       struct vdxg_ref3d_fault *fault)
{
	int32_t wl = (int32_t)lvl_w(t, l), hl = (int32_t)lvl_h(t, l);
	uint32_t ws = t->cube ? VDXG_WRAP_CLAMP : (t->sampler >> 4) & 7;
	uint32_t wt = t->cube ? VDXG_WRAP_CLAMP : (t->sampler >> 7) & 7;
	float u, v, a, b, t00[4], t10[4], t01[4], t11[4], top, bot;
	int32_t i0, j0, i1, j1, c;
	uint32_t err;

	if (!linear) {
		i0 = to_int(floorf(s * (float)wl), -(1 << 24), 1 << 24);
		j0 = to_int(floorf(tt * (float)hl), -(1 << 24), 1 << 24);
		return texel(mem, t, l, f, wrap(i0, wl, ws), wrap(j0, hl, wt),
			     out, fault);
	}
	u = (s * (float)wl) - 0.5f;
	i0 = to_int(floorf(u), -(1 << 24), 1 << 24);
	a = u - floorf(u);
	v = (tt * (float)hl) - 0.5f;
	j0 = to_int(floorf(v), -(1 << 24), 1 << 24);
	b = v - floorf(v);
	i1 = wrap(i0 + 1, wl, ws);
	j1 = wrap(j0 + 1, hl, wt);
	i0 = wrap(i0, wl, ws);
	j0 = wrap(j0, hl, wt);
	err = texel(mem, t, l, f, i0, j0, t00, fault);
	if (!err)
		err = texel(mem, t, l, f, i1, j0, t10, fault);
	if (!err)
		err = texel(mem, t, l, f, i0, j1, t01, fault);
	if (!err)
		err = texel(mem, t, l, f, i1, j1, t11, fault);
	if (err)
		return err;
	for (c = 0; c < 4; c++) {
		top = t00[c] + a * (t10[c] - t00[c]);
		bot = t01[c] + a * (t11[c] - t01[c]);
		out[c] = top + b * (bot - top);
	}
	return 0;
}

/* Step 1 for a cube: the face and its s, t from (x, y, z). */
static void cube_face(float x, float y, float z, uint32_t *face, float *s,
		      float *t)
{
	float ax = fabsf(x), ay = fabsf(y), az = fabsf(z), sc, tc, ma;

	if (ax >= ay && ax >= az) {
		if (x >= 0.0f) {
			*face = 0;
			sc = -z;
			tc = -y;
		} else {
			*face = 1;
			sc = z;
			tc = -y;
		}
		ma = ax;
	} else if (ay >= az) {
		if (y >= 0.0f) {
			*face = 2;
			sc = x;
			tc = z;
		} else {
			*face = 3;
			sc = x;
			tc = -z;
		}
		ma = ay;
	} else {
		if (z >= 0.0f) {
			*face = 4;
			sc = x;
			tc = -y;
		} else {
			*face = 5;
			sc = -x;
			tc = -y;
		}
		ma = az;
	}
	*s = ((sc / ma) + 1.0f) * 0.5f;
	*t = ((tc / ma) + 1.0f) * 0.5f;
}

/* Steps 3 to 5: a sample of a texture at s, t (a face's) with lod. */
static uint32_t sample(const struct vdxg_ref3d_mem *mem,
		       const struct texinfo *t, uint32_t face, float s,
		       float tt, float lod, float out[4],
		       struct vdxg_ref3d_fault *fault)
{
	uint32_t mip = (t->sampler >> 2) & 3, err, c;
	int32_t l0, last = (int32_t)t->levels - 1;
	float r0[4], r1[4], f;

	if (lod <= 0.0f)
		return filter(mem, t, 0, face,
			      t->sampler & VDXG_SAMPLER_MAG_LINEAR, s, tt, out,
			      fault);
	if (mip == VDXG_MIP_NONE)
		return filter(mem, t, 0, face,
			      t->sampler & VDXG_SAMPLER_MIN_LINEAR, s, tt, out,
			      fault);
	if (mip == VDXG_MIP_NEAREST) {
		l0 = to_int(floorf(lod + 0.5f), 0, last);
		return filter(mem, t, (uint32_t)l0, face,
			      t->sampler & VDXG_SAMPLER_MIN_LINEAR, s, tt, out,
			      fault);
	}
	l0 = to_int(floorf(lod), 0, last);
	err = filter(mem, t, (uint32_t)l0, face,
		     t->sampler & VDXG_SAMPLER_MIN_LINEAR, s, tt, r0, fault);
	if (err)
		return err;
	if (l0 >= last) {
		memcpy(out, r0, sizeof(r0));
		return 0;
	}
	err = filter(mem, t, (uint32_t)l0 + 1, face,
		     t->sampler & VDXG_SAMPLER_MIN_LINEAR, s, tt, r1, fault);
	if (err)
		return err;
	f = lod - floorf(lod);
	for (c = 0; c < 4; c++)
		out[c] = r0[c] + f * (r1[c] - r0[c]);
	return 0;
}

/* DDX and DDY of a per-lane value across a quad (lanes 0-3). */
static float ddx(const float *v, uint32_t lane)
{
	return lane < 2 ? v[1] - v[0] : v[3] - v[2];
}

static float ddy(const float *v, uint32_t lane)
{
	return (lane & 1) ? v[3] - v[1] : v[2] - v[0];
}

/* TEX, TXB, TXL, TXP, TXD for the lanes of E. */
static uint32_t exec_tex(struct vdxg_ref3d_ctx *ctx,
			 const struct vdxg_ref3d_mem *mem, struct inv *iv,
			 const uint32_t *in, uint32_t E,
			 struct vdxg_ref3d_fault *fault)
{
	uint32_t op = VDXG_INSN_OPCODE(in[0]), lane, face[4] = { 0 }, err;
	float a[4][4], b[4][4], c[4][4], s[4], t[4], r[4];
	struct texinfo ti;
	bool frag = iv->stage == VDXG_3D_STAGE_FRAGMENT;

	tex_info(ctx, VDXG_INSN_UNIT(in[0]), &ti);
	/* The sources of every lane; s and t of every lane (step 1). */
	for (lane = 0; lane < iv->nlanes; lane++) {
		float x, y, z;

		fetch_src(iv, lane, in[1], a[lane]);
		if (op == VDXG_OP_TXD) {
			fetch_src(iv, lane, in[2], b[lane]);
			fetch_src(iv, lane, in[3], c[lane]);
		}
		x = a[lane][0];
		y = a[lane][1];
		z = a[lane][2];
		if (op == VDXG_OP_TXP) {
			x = x / a[lane][3];
			y = y / a[lane][3];
			if (ti.cube)
				z = z / a[lane][3];
		}
		if (ti.cube) {
			cube_face(x, y, z, &face[lane], &s[lane], &t[lane]);
		} else {
			s[lane] = x;
			t[lane] = y;
		}
	}
	for (lane = 0; lane < iv->nlanes; lane++) {
		float dsdx, dtdx, dsdy, dtdy, px, py, lod;

		if (!(E & (1u << lane)))
			continue;
		if (op == VDXG_OP_TXL) {
			lod = a[lane][3];
		} else {
			if (op == VDXG_OP_TXD) {
				dsdx = b[lane][0];
				dtdx = b[lane][1];
				dsdy = c[lane][0];
				dtdy = c[lane][1];
			} else if (frag) {
				dsdx = ddx(s, lane);
				dtdx = ddx(t, lane);
				dsdy = ddy(s, lane);
				dtdy = ddy(t, lane);
			} else {
				dsdx = dtdx = dsdy = dtdy = 0.0f;
			}
			px = ((dsdx * (float)ti.width) * (dsdx * (float)ti.width)) +
			     ((dtdx * (float)ti.height) * (dtdx * (float)ti.height));
			py = ((dsdy * (float)ti.width) * (dsdy * (float)ti.width)) +
			     ((dtdy * (float)ti.height) * (dtdy * (float)ti.height));
			lod = 0.5f * vdxg_ref3d_lg2(fmax_op(px, py));
			if (op == VDXG_OP_TXB)
				lod = lod + a[lane][3];
		}
		if (is_nan(lod))
			lod = 0.0f;
		err = sample(mem, &ti, face[lane], s[lane], t[lane], lod, r,
			     fault);
		if (err)
			return err;
		write_dst(iv, lane, in[0], r);
	}
	return 0;
}

/* The pc of an instruction, for a fault. */
static uint64_t insn_addr(const struct vdxg_ref3d_program *p, uint32_t pc)
{
	return p->addr + 16 * (1 + (uint64_t)pc);
}

/*
 * "Control flow": the algorithm of the text, for the lanes in *L (updated:
 * the lanes discarded leave it).
 */
static uint32_t run(struct vdxg_ref3d_ctx *ctx,
		    const struct vdxg_ref3d_mem *mem, struct inv *iv,
		    uint32_t *Lp, struct vdxg_ref3d_fault *fault)
{
	const struct vdxg_ref3d_program *p = iv->p;
	struct {
		uint8_t loop;
		uint32_t saved, els, brk, cont;
		uint32_t at;
	} st[VDXG_3D_MAX_NESTING];
	uint32_t L = *Lp, E = L, pc = 0, depth = 0, lane, err;

	iv->visits = 0;
	for (;;) {
		const uint32_t *in = p->insn[pc];
		uint32_t op = VDXG_INSN_OPCODE(in[0]), cond, loopmask, k;
		float a[4][4], b[4][4], c[4][4], r[4];

		if (iv->visits == VDXG_3D_MAX_STEPS)
			return ref_fault(fault, VDXG_FAULT_SHADER,
					 insn_addr(p, pc));
		iv->visits++;
		switch (op) {
		case VDXG_OP_IF:
			cond = 0;
			for (lane = 0; lane < iv->nlanes; lane++) {
				if (!(E & (1u << lane)))
					continue;
				fetch_src(iv, lane, in[1], a[lane]);
				if (a[lane][0] != 0.0f)	/* NaN included */
					cond |= 1u << lane;
			}
			st[depth].loop = 0;
			st[depth].saved = E;
			st[depth].els = E & ~cond;
			depth++;
			E = E & cond;
			break;
		case VDXG_OP_ELSE:
		case VDXG_OP_ENDIF:
			loopmask = 0;
			for (k = depth - 1; k-- > 0;) {
				if (st[k].loop) {
					loopmask = st[k].brk | st[k].cont;
					break;
				}
			}
			if (op == VDXG_OP_ELSE) {
				E = st[depth - 1].els & ~loopmask & L;
			} else {
				E = st[depth - 1].saved & ~loopmask & L;
				depth--;
			}
			break;
		case VDXG_OP_BGNLOOP:
			st[depth].loop = 1;
			st[depth].saved = E;
			st[depth].brk = 0;
			st[depth].cont = 0;
			depth++;
			break;
		case VDXG_OP_BRK:
		case VDXG_OP_CONT:
			for (k = depth; k-- > 0;) {
				if (st[k].loop) {
					if (op == VDXG_OP_BRK)
						st[k].brk |= E;
					else
						st[k].cont |= E;
					break;
				}
			}
			E = 0;
			break;
		case VDXG_OP_ENDLOOP:
			E = (E | st[depth - 1].cont) & L;
			st[depth - 1].cont = 0;
			if (E) {
				pc = p->bgnloop[pc] + 1;
				continue;
			}
			E = st[depth - 1].saved & L;
			depth--;
			break;
		case VDXG_OP_KILL:
			L = L & ~E;
			E = 0;
			break;
		case VDXG_OP_KILL_IF:
			cond = 0;
			for (lane = 0; lane < iv->nlanes; lane++) {
				if (!(E & (1u << lane)))
					continue;
				fetch_src(iv, lane, in[1], a[lane]);
				if (a[lane][0] < 0.0f || a[lane][1] < 0.0f ||
				    a[lane][2] < 0.0f || a[lane][3] < 0.0f)
					cond |= 1u << lane;
			}
			L = L & ~cond;
			E = E & L;
			break;
		case VDXG_OP_END:
			*Lp = L;
			return 0;
		case VDXG_OP_NOP:
			break;
		case VDXG_OP_ARL:
			for (lane = 0; lane < iv->nlanes; lane++) {
				if (!(E & (1u << lane)))
					continue;
				fetch_src(iv, lane, in[1], a[lane]);
				iv->a0[lane] = to_int(floorf(a[lane][0]),
						      -32768, 32767);
			}
			break;
		case VDXG_OP_DDX:
		case VDXG_OP_DDY:
			/* The source of all four lanes, whatever E is. */
			for (lane = 0; lane < iv->nlanes; lane++)
				fetch_src(iv, lane, in[1], a[lane]);
			for (lane = 0; lane < iv->nlanes; lane++) {
				float v[4];

				if (!(E & (1u << lane)))
					continue;
				for (k = 0; k < 4; k++) {
					if (iv->stage == VDXG_3D_STAGE_VERTEX) {
						r[k] = 0.0f;
						continue;
					}
					v[0] = a[0][k];
					v[1] = a[1][k];
					v[2] = a[2][k];
					v[3] = a[3][k];
					r[k] = op == VDXG_OP_DDX ? ddx(v, lane) :
								   ddy(v, lane);
				}
				write_dst(iv, lane, in[0], r);
			}
			break;
		case VDXG_OP_TEX:
		case VDXG_OP_TXB:
		case VDXG_OP_TXL:
		case VDXG_OP_TXP:
		case VDXG_OP_TXD:
			err = exec_tex(ctx, mem, iv, in, E, fault);
			if (err)
				return err;
			break;
		default:
			for (lane = 0; lane < iv->nlanes; lane++) {
				if (!(E & (1u << lane)))
					continue;
				fetch_src(iv, lane, in[1], a[lane]);
				fetch_src(iv, lane, in[2], b[lane]);
				fetch_src(iv, lane, in[3], c[lane]);
				alu(op, a[lane], b[lane], c[lane], r);
				write_dst(iv, lane, in[0], r);
			}
			break;
		}
		pc += 1;
	}
}

/*
 * A draw's start: the program's draw-time references checked, and the
 * stage's constants read from memory.
 */
static uint32_t load_consts(struct vdxg_ref3d_ctx *ctx,
			    const struct vdxg_ref3d_mem *mem, uint32_t stage,
			    struct vdxg_ref3d_fault *fault)
{
	uint32_t i, c, err;
	uint8_t buf[16];

	for (i = 0; i < ctx->consts[stage].count; i++) {
		err = rd(mem, ctx->consts[stage].addr + 16 * (uint64_t)i, buf,
			 16, fault);
		if (err)
			return err;
		for (c = 0; c < 4; c++)
			ctx->cval[stage][i][c] = le(buf + 4 * c, 4);
	}
	return 0;
}

static uint32_t check_refs(const struct vdxg_ref3d_ctx *ctx, uint32_t stage,
			   struct vdxg_ref3d_fault *fault)
{
	const struct vdxg_ref3d_program *p = &ctx->prog[stage];
	uint32_t i, k;

	for (i = 0; i < p->n; i++) {
		const uint32_t *in = p->insn[i];
		struct opinfo o = opinfo(VDXG_INSN_OPCODE(in[0]));
		bool bad = false;

		for (k = 0; k < o.nsrc; k++)
			if (VDXG_SRC_FILE(in[1 + k]) == VDXG_FILE_CONST &&
			    !(in[1 + k] & VDXG_SRC_RELATIVE) &&
			    VDXG_SRC_INDEX(in[1 + k]) >= ctx->consts[stage].count)
				bad = true;
		if (o.kind == OPK_TEX) {
			uint32_t desc = ctx->tex[VDXG_INSN_UNIT(in[0])].desc;

			if (!VDXG_TEX_FORMAT(desc) ||
			    !(desc & VDXG_TEX_CUBE) != !(in[0] & VDXG_INSN_CUBE))
				bad = true;
		}
		if (bad)
			return ref_fault(fault, VDXG_FAULT_SHADER,
					 insn_addr(p, i));
	}
	return 0;
}

static uint32_t invoke(struct vdxg_ref3d_ctx *ctx,
		       const struct vdxg_ref3d_mem *mem, uint32_t stage,
		       struct inv *iv, uint32_t *L,
		       struct vdxg_ref3d_fault *fault)
{
	iv->p = &ctx->prog[stage];
	iv->consts = (const uint32_t (*)[4])ctx->cval[stage];
	iv->nconsts = ctx->consts[stage].count;
	iv->stage = stage;
	iv->nlanes = stage == VDXG_3D_STAGE_VERTEX ? 1 : 4;
	memset(iv->temp, 0, sizeof(iv->temp));
	memset(iv->out, 0, sizeof(uint32_t) * 4 * VDXG_REF3D_NUM_OUTPUTS *
	       iv->nlanes);
	memset(iv->a0, 0, sizeof(iv->a0));
	return run(ctx, mem, iv, L, fault);
}

uint32_t vdxg_ref3d_invoke(struct vdxg_ref3d_ctx *ctx,
			   const struct vdxg_ref3d_mem *mem, uint32_t stage,
			   struct vdxg_ref3d_invocation *vi,
			   struct vdxg_ref3d_fault *fault)
{
	struct inv iv;
	uint32_t err;

	fault->reason = 0;
	fault->addr = 0;
	if (stage >= VDXG_3D_NUM_STAGES || !ctx->prog[stage].bound)
		return ref_fault(fault, VDXG_FAULT_PARAM, 0);
	err = check_refs(ctx, stage, fault);
	if (!err)
		err = load_consts(ctx, mem, stage, fault);
	if (err)
		return err;
	iv.in = (const uint32_t (*)[VDXG_REF3D_NUM_INPUTS][4])vi->in;
	iv.out = vi->out;
	if (stage == VDXG_3D_STAGE_VERTEX)
		vi->live &= 1;
	err = invoke(ctx, mem, stage, &iv, &vi->live, fault);
	vi->visits = iv.visits;
	return err;
}

/* ------------------------------------------------------- vertex fetch */

/* A vertex after the vertex program: position, point size, varyings. */
#define NATTR	(4 + 1 + 4 * VDXG_3D_NUM_VARYINGS)
#define A_PSIZE	4
#define A_VAR	5

struct vtx {
	float a[NATTR];
};

static uint32_t fetch_element(const struct vdxg_ref3d_ctx *ctx,
			      const struct vdxg_ref3d_mem *mem, uint32_t e,
			      uint32_t index, uint32_t out[4],
			      struct vdxg_ref3d_fault *fault)
{
	uint32_t el = ctx->regs[VDXG_3D_ELEMENT(e)];
	uint32_t fmt = VDXG_ELEMENT_FORMAT(el), type = VDXG_VFMT_TYPE(fmt);
	uint32_t comps = VDXG_VFMT_COMPS(fmt), b = VDXG_ELEMENT_VB(el);
	uint32_t tsize, i, err;
	uint64_t o, span;
	uint8_t buf[16];
	float v[4] = { 0.0f, 0.0f, 0.0f, 1.0f };

	if (type == VDXG_VTYPE_NONE) {
		for (i = 0; i < 4; i++)
			out[i] = f2u(v[i]);
		return 0;
	}
	tsize = type == VDXG_VTYPE_FLOAT32 ? 4 :
		type >= VDXG_VTYPE_UNORM16 ? 2 : 1;
	o = (uint64_t)index * ctx->vb[b].stride + VDXG_ELEMENT_OFFSET(el);
	span = (uint64_t)comps * tsize;
	if (o + span <= ctx->vb[b].size) {
		err = rd(mem, ctx->vb[b].addr + o, buf, (uint32_t)span, fault);
		if (err)
			return err;
	} else {
		memset(buf, 0, sizeof(buf));
	}
	for (i = 0; i < comps; i++) {
		uint32_t c = le(buf + i * tsize, tsize);

		switch (type) {
		case VDXG_VTYPE_FLOAT32:
			out[i] = c;
			continue;
		case VDXG_VTYPE_UNORM8:
			v[i] = (float)c / 255.0f;
			break;
		case VDXG_VTYPE_UNORM16:
			v[i] = (float)c / 65535.0f;
			break;
		case VDXG_VTYPE_SNORM8:
			v[i] = fmax_op((float)(int8_t)c / 127.0f, -1.0f);
			break;
		case VDXG_VTYPE_SNORM16:
			v[i] = fmax_op((float)(int16_t)c / 32767.0f, -1.0f);
			break;
		case VDXG_VTYPE_UINT8:
		case VDXG_VTYPE_UINT16:
			v[i] = (float)c;
			break;
		case VDXG_VTYPE_SINT8:
			v[i] = (float)(int8_t)c;
			break;
		case VDXG_VTYPE_SINT16:
			v[i] = (float)(int16_t)c;
			break;
		}
		out[i] = f2u(v[i]);
	}
	for (; i < 4; i++)
		out[i] = f2u(v[i]);
	return 0;
}

uint32_t vdxg_ref3d_fetch(const struct vdxg_ref3d_ctx *ctx,
			  const struct vdxg_ref3d_mem *mem, uint32_t index,
			  uint32_t in[VDXG_REF3D_NUM_INPUTS][4],
			  struct vdxg_ref3d_fault *fault)
{
	uint32_t e, err;

	fault->reason = 0;
	fault->addr = 0;
	for (e = 0; e < VDXG_3D_NUM_ELEMENTS; e++) {
		err = fetch_element(ctx, mem, e, index, in[e], fault);
		if (err)
			return err;
	}
	return 0;
}

/* Vertex k's index, fetch and vertex program. */
static uint32_t vertex(struct vdxg_ref3d_ctx *ctx,
		       const struct vdxg_ref3d_mem *mem, bool indexed,
		       uint32_t first, uint32_t k, int32_t bias, struct inv *iv,
		       struct vtx *v, struct vdxg_ref3d_fault *fault)
{
	uint32_t in[1][VDXG_REF3D_NUM_INPUTS][4];
	uint32_t out[1][VDXG_REF3D_NUM_OUTPUTS][4];
	uint32_t index, e, c, L = 1, err;
	uint8_t buf[4];

	if (indexed) {
		uint32_t isz = ctx->ib.index_size;

		err = rd(mem, ctx->ib.addr + ((uint64_t)first + k) * isz, buf,
			 isz, fault);
		if (err)
			return err;
		index = le(buf, isz) + (uint32_t)bias;
	} else {
		index = first + k;
	}
	err = vdxg_ref3d_fetch(ctx, mem, index, in[0], fault);
	if (err)
		return err;
	iv->in = (const uint32_t (*)[VDXG_REF3D_NUM_INPUTS][4])in;
	iv->out = out;
	err = invoke(ctx, mem, VDXG_3D_STAGE_VERTEX, iv, &L, fault);
	if (err)
		return err;
	for (c = 0; c < 4; c++)
		v->a[c] = u2f(out[0][VDXG_VS_OUT_POSITION][c]);
	v->a[A_PSIZE] = ctx->prog[0].writes_point_size ?
			u2f(out[0][VDXG_VS_OUT_POINT_SIZE][0]) :
			u2f(ctx->regs[VDXG_3D_POINT_SIZE]);
	for (e = 0; e < VDXG_3D_NUM_VARYINGS; e++)
		for (c = 0; c < 4; c++)
			v->a[A_VAR + 4 * e + c] =
				u2f(out[0][VDXG_VS_OUT_VARYING(e)][c]);
	return 0;
}

/* ----------------------------------------------------------- fragments */

static bool compare(uint32_t func, uint32_t a, uint32_t b)
{
	switch (func) {
	case VDXG_FUNC_NEVER:
		return false;
	case VDXG_FUNC_LESS:
		return a < b;
	case VDXG_FUNC_EQUAL:
		return a == b;
	case VDXG_FUNC_LEQUAL:
		return a <= b;
	case VDXG_FUNC_GREATER:
		return a > b;
	case VDXG_FUNC_NOTEQUAL:
		return a != b;
	case VDXG_FUNC_GEQUAL:
		return a >= b;
	default:
		return true;
	}
}

static uint32_t stencil_op(uint32_t op, uint32_t old, uint32_t ref)
{
	switch (op) {
	case VDXG_SOP_KEEP:
		return old;
	case VDXG_SOP_ZERO:
		return 0;
	case VDXG_SOP_REPLACE:
		return ref;
	case VDXG_SOP_INCR:
		return old < 255 ? old + 1 : 255;
	case VDXG_SOP_DECR:
		return old > 0 ? old - 1 : 0;
	case VDXG_SOP_INCR_WRAP:
		return (old + 1) & 0xff;
	case VDXG_SOP_DECR_WRAP:
		return (old - 1) & 0xff;
	default:
		return ~old & 0xff;
	}
}

/* A blend factor's value for channel ch (3: alpha). */
static float factor(uint32_t f, uint32_t ch, const float *s, const float *d,
		    const float *k)
{
	switch (f) {
	case VDXG_BLF_ZERO:
		return 0.0f;
	case VDXG_BLF_ONE:
		return 1.0f;
	case VDXG_BLF_SRC_COLOR:
		return s[ch];
	case VDXG_BLF_ONE_MINUS_SRC_COLOR:
		return 1.0f - s[ch];
	case VDXG_BLF_DST_COLOR:
		return d[ch];
	case VDXG_BLF_ONE_MINUS_DST_COLOR:
		return 1.0f - d[ch];
	case VDXG_BLF_SRC_ALPHA:
		return s[3];
	case VDXG_BLF_ONE_MINUS_SRC_ALPHA:
		return 1.0f - s[3];
	case VDXG_BLF_DST_ALPHA:
		return d[3];
	case VDXG_BLF_ONE_MINUS_DST_ALPHA:
		return 1.0f - d[3];
	case VDXG_BLF_CONST_COLOR:
		return k[ch];
	case VDXG_BLF_ONE_MINUS_CONST_COLOR:
		return 1.0f - k[ch];
	case VDXG_BLF_CONST_ALPHA:
		return k[3];
	case VDXG_BLF_ONE_MINUS_CONST_ALPHA:
		return 1.0f - k[3];
	default:	/* SRC_ALPHA_SATURATE */
		return ch == 3 ? 1.0f : fmin_op(s[3], 1.0f - d[3]);
	}
}

static float equation(uint32_t eq, float s, float fs, float d, float fd)
{
	switch (eq) {
	case VDXG_BLEQ_ADD:
		return (s * fs) + (d * fd);
	case VDXG_BLEQ_SUBTRACT:
		return (s * fs) - (d * fd);
	case VDXG_BLEQ_REVERSE_SUBTRACT:
		return (d * fd) - (s * fs);
	case VDXG_BLEQ_MIN:
		return s < d ? s : d;
	default:
		return s > d ? s : d;
	}
}

static uint64_t pixel_addr(const struct vdxg_ref3d_surface *s, uint32_t x,
			   uint32_t y)
{
	return s->addr + (uint64_t)y * s->pitch +
	       (uint64_t)x * vdxg_ref3d_cpp(s->format);
}

/* "Fragments", steps 1 to 4, for one live lane at (px, py). */
static uint32_t fragment(struct vdxg_ref3d_ctx *ctx,
			 const struct vdxg_ref3d_mem *mem, uint32_t px,
			 uint32_t py, const uint32_t *color, float z,
			 bool front, struct vdxg_ref3d_fault *fault)
{
	const struct vdxg_ref3d_surface *ds = &ctx->surf[VDXG_SLOT_DEPTH];
	const struct vdxg_ref3d_surface *cs = &ctx->surf[VDXG_SLOT_DST];
	uint32_t blend = ctx->regs[VDXG_3D_BLEND], c, err;
	float s[4], d[4], k[4], r[4];
	uint8_t buf[4];

	/* 1. The colour, clamped. */
	for (c = 0; c < 4; c++)
		s[c] = sat(u2f(color[c]));

	/* 2. Stencil and depth. */
	if (ds->set) {
		uint32_t n = ds->format == VDXG_FMT_D16 ? 16 : 24;
		uint32_t cpp = vdxg_ref3d_cpp(ds->format), word, stored;
		uint32_t dreg = ctx->regs[VDXG_3D_DEPTH];
		uint32_t back = ctx->regs[VDXG_3D_STENCIL_BACK];
		uint32_t sreg, ref, st, vm, wm, nst;
		uint32_t zf = vdxg_ref3d_unorm(z, n);
		bool stest, pass = true;

		if (!front && (back & VDXG_STENCIL_TEST)) {
			sreg = back;
			ref = (ctx->regs[VDXG_3D_STENCIL_REF] >> 8) & 0xff;
		} else {
			sreg = ctx->regs[VDXG_3D_STENCIL_FRONT];
			ref = ctx->regs[VDXG_3D_STENCIL_REF] & 0xff;
		}
		stest = ds->format == VDXG_FMT_D24S8 && (sreg & 1);
		vm = (sreg >> 16) & 0xff;
		wm = sreg >> 24;
		err = rd(mem, pixel_addr(ds, px, py), buf, cpp, fault);
		if (err)
			return err;
		word = le(buf, cpp);
		stored = n == 16 ? word : word & 0xffffff;
		st = word >> 24;
		nst = st;
		if (stest && !compare((sreg >> 1) & 7, ref & vm, st & vm)) {
			nst = stencil_op((sreg >> 4) & 7, st, ref);
			pass = false;
		} else if ((dreg & VDXG_DEPTH_TEST) &&
			   !compare((dreg >> 2) & 7, zf, stored)) {
			if (stest)
				nst = stencil_op((sreg >> 7) & 7, st, ref);
			pass = false;
		} else if (stest) {
			nst = stencil_op((sreg >> 10) & 7, st, ref);
		}
		if (stest)
			word = (word & 0x00ffffff) |
			       (((st & ~wm) | (nst & wm)) & 0xff) << 24;
		if (pass && (dreg & VDXG_DEPTH_WRITE))
			word = n == 16 ? zf : (word & 0xff000000) | zf;
		if (stest || (pass && (dreg & VDXG_DEPTH_WRITE))) {
			put_le(buf, cpp, word);
			err = wr(mem, pixel_addr(ds, px, py), buf, cpp, fault);
			if (err)
				return err;
		}
		if (!pass)
			return 0;
	}
	if (!cs->set)
		return 0;

	/* 3. Blending. */
	{
		uint32_t cpp = vdxg_ref3d_cpp(cs->format), old, v;
		uint32_t dis = (blend >> 24) & 0xf;
		struct chan ch = channels(cs->format);

		err = rd(mem, pixel_addr(cs, px, py), buf, cpp, fault);
		if (err)
			return err;
		old = le(buf, cpp);
		if (blend & VDXG_BLEND_ENABLE) {
			vdxg_ref3d_texel(cs->format, buf, d);
			for (c = 0; c < 4; c++)
				k[c] = sat(u2f(ctx->regs[VDXG_3D_BLEND_COLOR(c)]));
			for (c = 0; c < 4; c++) {
				uint32_t eq = c < 3 ? (blend >> 1) & 7 :
						      (blend >> 12) & 7;
				uint32_t fsrc = c < 3 ? (blend >> 4) & 15 :
							(blend >> 16) & 15;
				uint32_t fdst = c < 3 ? (blend >> 8) & 15 :
							(blend >> 20) & 15;

				r[c] = sat(equation(eq, s[c],
						    factor(fsrc, c, s, d, k),
						    d[c],
						    factor(fdst, c, s, d, k)));
			}
		} else {
			memcpy(r, s, sizeof(r));
		}
		/* 4. The channels written, in DST's format. */
		v = old;
		for (c = 0; c < 4; c++) {
			uint32_t mask;

			if (dis & (1u << c))
				continue;
			if (!ch.bits[c]) {
				if (c == 3 && cs->format == VDXG_FMT_XRGB8888)
					v |= 0xff000000u;
				continue;
			}
			mask = ((1u << ch.bits[c]) - 1) << ch.shift[c];
			v = (v & ~mask) |
			    (vdxg_ref3d_unorm(r[c], ch.bits[c]) << ch.shift[c]);
		}
		put_le(buf, cpp, v);
		return wr(mem, pixel_addr(cs, px, py), buf, cpp, fault);
	}
}

/* ------------------------------------------------------ rasterization */

/* A vertex in window coordinates ("Geometry", last paragraph). */
struct wvtx {
	int64_t x8, y8;
	float iw, Z;
	float v[4 * VDXG_3D_NUM_VARYINGS];	/* a' = a * iw; points: a */
};

/* What a draw passes to its primitives. */
struct draw {
	struct vdxg_ref3d_ctx *ctx;
	const struct vdxg_ref3d_mem *mem;
	struct inv *iv;
	uint32_t fbw, fbh;	/* the framebuffer */
	int64_t x0, y0, x1, y1;	/* pixels that may be covered: [x0, x1) */
};

/* The lanes' inputs of a fragment quad, then its fragments. */
struct quad {
	uint32_t in[4][VDXG_REF3D_NUM_INPUTS][4];
	float z[4];		/* depth with polygon offset */
	uint32_t covered;
};

static uint32_t shade_quad(struct draw *dr, int64_t qx, int64_t qy,
			   struct quad *q, bool front,
			   struct vdxg_ref3d_fault *fault)
{
	uint32_t out[4][VDXG_REF3D_NUM_OUTPUTS][4];
	uint32_t L = 0xf, lane, err;

	dr->iv->in = (const uint32_t (*)[VDXG_REF3D_NUM_INPUTS][4])q->in;
	dr->iv->out = out;
	err = invoke(dr->ctx, dr->mem, VDXG_3D_STAGE_FRAGMENT, dr->iv, &L,
		     fault);
	if (err)
		return err;
	for (lane = 0; lane < 4; lane++) {
		if (!(q->covered & L & (1u << lane)))
			continue;
		err = fragment(dr->ctx, dr->mem, (uint32_t)(qx + (lane & 1)),
			       (uint32_t)(qy + (lane >> 1)),
			       out[lane][VDXG_FS_OUT_COLOR], q->z[lane], front,
			       fault);
		if (err)
			return err;
	}
	return 0;
}

/* Inside the framebuffer and the scissor. */
static bool pixel_ok(const struct draw *dr, int64_t px, int64_t py)
{
	return px >= dr->x0 && px < dr->x1 && py >= dr->y0 && py < dr->y1;
}

/* The fixed inputs of a lane: POSITION's x, y; FACE; POINT_COORD. */
static void lane_inputs(uint32_t in[][4], int64_t px, int64_t py, float z,
			float w, bool front, float ps, float pt)
{
	in[VDXG_FS_IN_POSITION][0] = f2u((float)px + 0.5f);
	in[VDXG_FS_IN_POSITION][1] = f2u((float)py + 0.5f);
	in[VDXG_FS_IN_POSITION][2] = f2u(z);
	in[VDXG_FS_IN_POSITION][3] = f2u(w);
	in[VDXG_FS_IN_FACE][0] = f2u(front ? 1.0f : -1.0f);
	in[VDXG_FS_IN_FACE][1] = f2u(0.0f);
	in[VDXG_FS_IN_FACE][2] = f2u(0.0f);
	in[VDXG_FS_IN_FACE][3] = f2u(1.0f);
	in[VDXG_FS_IN_POINT_COORD][0] = f2u(ps);
	in[VDXG_FS_IN_POINT_COORD][1] = f2u(pt);
	in[VDXG_FS_IN_POINT_COORD][2] = f2u(0.0f);
	in[VDXG_FS_IN_POINT_COORD][3] = f2u(1.0f);
}

static int64_t edge(const struct wvtx *a, const struct wvtx *b, int64_t px,
		    int64_t py)
{
	return (b->x8 - a->x8) * (py - a->y8) - (b->y8 - a->y8) * (px - a->x8);
}

static bool owns(const struct wvtx *a, const struct wvtx *b)
{
	int64_t dx = b->x8 - a->x8, dy = b->y8 - a->y8;

	return dy < 0 || (dy == 0 && dx > 0);
}

static bool inside_edge(int64_t w, bool own)
{
	return w > 0 || (w == 0 && own);
}

/* Pixels whose centre 256 p + 128 lies in [lo, hi]: [first, last + 1). */
static int64_t floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;

	if ((a % b) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

static uint32_t triangle(struct draw *dr, const struct wvtx *in0,
			 const struct wvtx *in1, const struct wvtx *in2,
			 struct vdxg_ref3d_fault *fault)
{
	const struct vdxg_ref3d_ctx *ctx = dr->ctx;
	uint32_t raster = ctx->regs[VDXG_3D_RASTER], lane, i, err;
	const struct wvtx *v0 = in0, *v1 = in1, *v2 = in2, *tmp;
	int64_t area, minx, maxx, miny, maxy, px0, px1, py0, py1, qx, qy;
	bool front, own0, own1, own2;
	float o = 0.0f, A;
	struct quad q;

	area = edge(v0, v1, v2->x8, v2->y8);
	if (area == 0)
		return 0;
	front = (area < 0) != !!(raster & VDXG_RASTER_FRONT_CW);
	if ((raster & VDXG_RASTER_CULL_FRONT) && front)
		return 0;
	if ((raster & VDXG_RASTER_CULL_BACK) && !front)
		return 0;
	if (area < 0) {
		tmp = v1;
		v1 = v2;
		v2 = tmp;
		area = -area;
	}
	own0 = owns(v1, v2);
	own1 = owns(v2, v0);
	own2 = owns(v0, v1);

	/* Polygon offset. */
	if (raster & VDXG_RASTER_POLY_OFFSET) {
		const struct vdxg_ref3d_surface *ds = &ctx->surf[VDXG_SLOT_DEPTH];
		float rdd = !ds->set ? 0.0f :
			    ds->format == VDXG_FMT_D16 ? 1.0f / 65536.0f :
							 1.0f / 16777216.0f;
		float fx0 = (float)v0->x8 / 256.0f, fy0 = (float)v0->y8 / 256.0f;
		float fx1 = (float)v1->x8 / 256.0f, fy1 = (float)v1->y8 / 256.0f;
		float fx2 = (float)v2->x8 / 256.0f, fy2 = (float)v2->y8 / 256.0f;
		float ex1 = fx1 - fx0, ey1 = fy1 - fy0;
		float ex2 = fx2 - fx0, ey2 = fy2 - fy0;
		float ez1 = v1->Z - v0->Z, ez2 = v2->Z - v0->Z;
		float den = (ex1 * ey2) - (ex2 * ey1);
		float dzdx = ((ez1 * ey2) - (ez2 * ey1)) / den;
		float dzdy = ((ex1 * ez2) - (ex2 * ez1)) / den;
		float dz = fmax_op(fabsf(dzdx), fabsf(dzdy));

		if (is_nan(dz))
			dz = 0.0f;
		o = (dz * u2f(ctx->regs[VDXG_3D_POLY_OFFSET_FACTOR])) +
		    (rdd * u2f(ctx->regs[VDXG_3D_POLY_OFFSET_UNITS]));
	}

	/* The pixels whose centre lies in the bounding box. */
	minx = v0->x8 < v1->x8 ? v0->x8 : v1->x8;
	minx = minx < v2->x8 ? minx : v2->x8;
	maxx = v0->x8 > v1->x8 ? v0->x8 : v1->x8;
	maxx = maxx > v2->x8 ? maxx : v2->x8;
	miny = v0->y8 < v1->y8 ? v0->y8 : v1->y8;
	miny = miny < v2->y8 ? miny : v2->y8;
	maxy = v0->y8 > v1->y8 ? v0->y8 : v1->y8;
	maxy = maxy > v2->y8 ? maxy : v2->y8;
	px0 = -floordiv(-(minx - 128), 256);	/* ceil */
	px1 = floordiv(maxx - 128, 256) + 1;
	py0 = -floordiv(-(miny - 128), 256);
	py1 = floordiv(maxy - 128, 256) + 1;
	px0 = px0 > dr->x0 ? px0 : dr->x0;
	px1 = px1 < dr->x1 ? px1 : dr->x1;
	py0 = py0 > dr->y0 ? py0 : dr->y0;
	py1 = py1 < dr->y1 ? py1 : dr->y1;
	if (px0 >= px1 || py0 >= py1)
		return 0;

	A = (float)area;
	for (qy = floordiv(py0, 2) * 2; qy < py1; qy += 2) {
		for (qx = floordiv(px0, 2) * 2; qx < px1; qx += 2) {
			q.covered = 0;
			for (lane = 0; lane < 4; lane++) {
				int64_t px = qx + (lane & 1), py = qy + (lane >> 1);
				int64_t cx = 256 * px + 128, cy = 256 * py + 128;
				int64_t w0 = edge(v1, v2, cx, cy);
				int64_t w1 = edge(v2, v0, cx, cy);
				int64_t w2 = edge(v0, v1, cx, cy);
				float l0, l1, l2, pw, r, z;

				if (pixel_ok(dr, px, py) &&
				    inside_edge(w0, own0) &&
				    inside_edge(w1, own1) &&
				    inside_edge(w2, own2))
					q.covered |= 1u << lane;
				l1 = (float)w1 / A;
				l2 = (float)w2 / A;
				l0 = (1.0f - l1) - l2;
				pw = ((l0 * v0->iw) + (l1 * v1->iw)) +
				     (l2 * v2->iw);
				r = 1.0f / pw;
				for (i = 0; i < 4 * VDXG_3D_NUM_VARYINGS; i++)
					q.in[lane][i / 4][i % 4] = f2u(
						(((l0 * v0->v[i]) +
						  (l1 * v1->v[i])) +
						 (l2 * v2->v[i])) * r);
				z = ((l0 * v0->Z) + (l1 * v1->Z)) + (l2 * v2->Z);
				lane_inputs(q.in[lane], px, py, z, pw, front,
					    0.0f, 0.0f);
				if (raster & VDXG_RASTER_POLY_OFFSET)
					z = z + o;
				q.z[lane] = z;
			}
			if (!q.covered)
				continue;
			err = shade_quad(dr, qx, qy, &q, front, fault);
			if (err)
				return err;
		}
	}
	return 0;
}

/* One lane of a line's quad, with p its centre. */
static void line_lane(struct quad *q, uint32_t lane, int64_t px, int64_t py,
		      const struct wvtx *a, const struct wvtx *b)
{
	int64_t dx = b->x8 - a->x8, dy = b->y8 - a->y8;
	int64_t cx = 256 * px + 128, cy = 256 * py + 128;
	float t, l0, l1, pw, r, z;
	uint32_t i;

	t = ((float)(cx - a->x8) * (float)dx + (float)(cy - a->y8) * (float)dy) /
	    ((float)dx * (float)dx + (float)dy * (float)dy);
	l0 = 1.0f - t;
	l1 = t;
	pw = (l0 * a->iw) + (l1 * b->iw);
	r = 1.0f / pw;
	for (i = 0; i < 4 * VDXG_3D_NUM_VARYINGS; i++)
		q->in[lane][i / 4][i % 4] =
			f2u(((l0 * a->v[i]) + (l1 * b->v[i])) * r);
	z = (l0 * a->Z) + (l1 * b->Z);
	lane_inputs(q->in[lane], px, py, z, pw, true, 0.0f, 0.0f);
	q->z[lane] = z;
}

/* A line's pixel: its quad runs with that one lane covered. */
static uint32_t line_pixel(struct draw *dr, int64_t px, int64_t py,
			   const struct wvtx *a, const struct wvtx *b,
			   struct vdxg_ref3d_fault *fault)
{
	int64_t qx = floordiv(px, 2) * 2, qy = floordiv(py, 2) * 2;
	struct quad q;
	uint32_t lane;

	if (!pixel_ok(dr, px, py))
		return 0;
	for (lane = 0; lane < 4; lane++)
		line_lane(&q, lane, qx + (lane & 1), qy + (lane >> 1), a, b);
	q.covered = 1u << ((px - qx) + 2 * (py - qy));
	return shade_quad(dr, qx, qy, &q, true, fault);
}

static uint32_t line(struct draw *dr, const struct wvtx *a,
		     const struct wvtx *b, struct vdxg_ref3d_fault *fault)
{
	int64_t dx = b->x8 - a->x8, dy = b->y8 - a->y8, adx, ady, p, lo, hi;
	uint32_t err;

	if (dx == 0 && dy == 0)
		return 0;
	adx = dx < 0 ? -dx : dx;
	ady = dy < 0 ? -dy : dy;
	if (adx >= ady) {
		/* Columns whose centre is in [a.x, b.x) or (b.x, a.x]. */
		if (dx > 0) {
			lo = -floordiv(-(a->x8 - 128), 256);
			hi = -floordiv(-(b->x8 - 128), 256);	/* exclusive */
		} else {
			lo = floordiv(b->x8 - 128, 256) + 1;
			hi = floordiv(a->x8 - 128, 256) + 1;
		}
		lo = lo > dr->x0 ? lo : dr->x0;
		hi = hi < dr->x1 ? hi : dr->x1;
		for (p = lo; p < hi; p++) {
			int64_t cx = 256 * p + 128;
			int64_t y = a->y8 + floordiv((cx - a->x8) * dy, dx);

			err = line_pixel(dr, p, floordiv(y, 256), a, b, fault);
			if (err)
				return err;
		}
	} else {
		if (dy > 0) {
			lo = -floordiv(-(a->y8 - 128), 256);
			hi = -floordiv(-(b->y8 - 128), 256);
		} else {
			lo = floordiv(b->y8 - 128, 256) + 1;
			hi = floordiv(a->y8 - 128, 256) + 1;
		}
		lo = lo > dr->y0 ? lo : dr->y0;
		hi = hi < dr->y1 ? hi : dr->y1;
		for (p = lo; p < hi; p++) {
			int64_t cy = 256 * p + 128;
			int64_t x = a->x8 + floordiv((cy - a->y8) * dx, dy);

			err = line_pixel(dr, floordiv(x, 256), p, a, b, fault);
			if (err)
				return err;
		}
	}
	return 0;
}

static uint32_t point(struct draw *dr, const struct wvtx *v, float size,
		      struct vdxg_ref3d_fault *fault)
{
	uint32_t raster = dr->ctx->regs[VDXG_3D_RASTER], lane, i, err;
	float s = is_nan(size) ? 1.0f : size;
	int64_t h, x0, x1, y0, y1, qx, qy;
	struct quad q;

	s = s < 1.0f ? 1.0f : s > VDXG_3D_POINT_SIZE_MAX ?
			      VDXG_3D_POINT_SIZE_MAX : s;
	h = to_int(floorf(s * 128.0f + 0.5f), 0, 1 << 24);
	/* Centres in [x8 - h, x8 + h): 256 p + 128 >= x8 - h, < x8 + h. */
	x0 = -floordiv(-(v->x8 - h - 128), 256);
	x1 = -floordiv(-(v->x8 + h - 128), 256);
	y0 = -floordiv(-(v->y8 - h - 128), 256);
	y1 = -floordiv(-(v->y8 + h - 128), 256);
	x0 = x0 > dr->x0 ? x0 : dr->x0;
	x1 = x1 < dr->x1 ? x1 : dr->x1;
	y0 = y0 > dr->y0 ? y0 : dr->y0;
	y1 = y1 < dr->y1 ? y1 : dr->y1;
	if (x0 >= x1 || y0 >= y1)
		return 0;
	for (qy = floordiv(y0, 2) * 2; qy < y1; qy += 2) {
		for (qx = floordiv(x0, 2) * 2; qx < x1; qx += 2) {
			q.covered = 0;
			for (lane = 0; lane < 4; lane++) {
				int64_t px = qx + (lane & 1), py = qy + (lane >> 1);
				int64_t cx = 256 * px + 128, cy = 256 * py + 128;
				float ps, pt;

				if (px >= x0 && px < x1 && py >= y0 && py < y1)
					q.covered |= 1u << lane;
				ps = (float)(cx - (v->x8 - h)) / (float)(2 * h);
				pt = (float)(cy - (v->y8 - h)) / (float)(2 * h);
				if (raster & VDXG_RASTER_SPRITE_LOWER_LEFT)
					pt = 1.0f - pt;
				for (i = 0; i < 4 * VDXG_3D_NUM_VARYINGS; i++)
					q.in[lane][i / 4][i % 4] = f2u(v->v[i]);
				lane_inputs(q.in[lane], px, py, v->Z, v->iw, true,
					    ps, pt);
				q.z[lane] = v->Z;
			}
			err = shade_quad(dr, qx, qy, &q, true, fault);
			if (err)
				return err;
		}
	}
	return 0;
}

/* ------------------------------------------------------------ geometry */

static bool pos_finite(const struct vtx *v)
{
	return is_finite(v->a[0]) && is_finite(v->a[1]) &&
	       is_finite(v->a[2]) && is_finite(v->a[3]);
}

/* The signed distance to clip plane k (inside when >= 0). */
static float plane_dist(const struct vtx *v, uint32_t k)
{
	float x = v->a[0], y = v->a[1], z = v->a[2], w = v->a[3];
	float g = VDXG_3D_GUARD_BAND;

	switch (k) {
	case 0:
		return (g * w) - x;
	case 1:
		return (g * w) + x;
	case 2:
		return (g * w) - y;
	case 3:
		return (g * w) + y;
	case 4:
		return w - z;
	default:
		return w + z;
	}
}

/* The intersection from the inside vertex i to the outside vertex o. */
static void intersect(const struct vtx *i, float di, const struct vtx *o,
		      float d_o, struct vtx *r)
{
	float t = di / (di - d_o);
	uint32_t c;

	for (c = 0; c < NATTR; c++)
		r->a[c] = i->a[c] + t * (o->a[c] - i->a[c]);
}

/* Perspective division, viewport and snap; false: w <= 0 or not finite. */
static bool to_window(const struct vdxg_ref3d_ctx *ctx, const struct vtx *v,
		      bool divide, struct wvtx *o)
{
	float w = v->a[3], iw, xd, yd, zd, X, Y;
	uint32_t i;

	if (!(w > 0.0f) || !is_finite(w))
		return false;
	iw = 1.0f / w;
	xd = v->a[0] * iw;
	yd = v->a[1] * iw;
	zd = v->a[2] * iw;
	X = xd * u2f(ctx->regs[VDXG_3D_VIEWPORT_SCALE(0)]) +
	    u2f(ctx->regs[VDXG_3D_VIEWPORT_TRANSLATE(0)]);
	Y = yd * u2f(ctx->regs[VDXG_3D_VIEWPORT_SCALE(1)]) +
	    u2f(ctx->regs[VDXG_3D_VIEWPORT_TRANSLATE(1)]);
	o->Z = zd * u2f(ctx->regs[VDXG_3D_VIEWPORT_SCALE(2)]) +
	       u2f(ctx->regs[VDXG_3D_VIEWPORT_TRANSLATE(2)]);
	o->x8 = to_int(floorf(X * 256.0f + 0.5f), -(1 << 24), 1 << 24);
	o->y8 = to_int(floorf(Y * 256.0f + 0.5f), -(1 << 24), 1 << 24);
	o->iw = iw;
	for (i = 0; i < 4 * VDXG_3D_NUM_VARYINGS; i++)
		o->v[i] = divide ? v->a[A_VAR + i] * iw : v->a[A_VAR + i];
	return true;
}

static uint32_t draw_point(struct draw *dr, const struct vtx *v,
			   struct vdxg_ref3d_fault *fault)
{
	struct wvtx w;
	uint32_t k;

	if (!pos_finite(v))
		return 0;
	/* The view volume itself: w - x, w + x, ... */
	for (k = 0; k < 6; k++) {
		float x = v->a[k < 2 ? 0 : k < 4 ? 1 : 2], d;

		d = (k & 1) ? v->a[3] + x : v->a[3] - x;
		if (!(d >= 0.0f))
			return 0;
	}
	if (!to_window(dr->ctx, v, false, &w))
		return 0;
	return point(dr, &w, v->a[A_PSIZE], fault);
}

static uint32_t draw_line(struct draw *dr, const struct vtx *v0,
			  const struct vtx *v1, struct vdxg_ref3d_fault *fault)
{
	struct vtx e[2] = { *v0, *v1 }, r;
	struct wvtx w[2];
	uint32_t k;

	if (!pos_finite(v0) || !pos_finite(v1))
		return 0;
	for (k = 0; k < 6; k++) {
		float d0 = plane_dist(&e[0], k), d1 = plane_dist(&e[1], k);
		bool in0 = d0 >= 0.0f, in1 = d1 >= 0.0f;

		if (!in0 && !in1)
			return 0;
		if (!in0) {
			intersect(&e[1], d1, &e[0], d0, &r);
			e[0] = r;
		} else if (!in1) {
			intersect(&e[0], d0, &e[1], d1, &r);
			e[1] = r;
		}
	}
	if (!to_window(dr->ctx, &e[0], true, &w[0]) ||
	    !to_window(dr->ctx, &e[1], true, &w[1]))
		return 0;
	return line(dr, &w[0], &w[1], fault);
}

static uint32_t draw_triangle(struct draw *dr, const struct vtx *v0,
			      const struct vtx *v1, const struct vtx *v2,
			      struct vdxg_ref3d_fault *fault)
{
	/* A triangle clipped by 6 planes has at most 9 vertices. */
	struct vtx poly[2][12];
	struct wvtx w[12];
	uint32_t n = 3, k, i, cur = 0, err;
	bool all_in = true;

	if (!pos_finite(v0) || !pos_finite(v1) || !pos_finite(v2))
		return 0;
	poly[0][0] = *v0;
	poly[0][1] = *v1;
	poly[0][2] = *v2;
	for (k = 0; k < 6; k++)
		for (i = 0; i < 3; i++)
			if (!(plane_dist(&poly[0][i], k) >= 0.0f))
				all_in = false;
	if (!all_in) {
		for (k = 0; k < 6; k++) {
			const struct vtx *p = poly[cur];
			struct vtx *o = poly[cur ^ 1];
			uint32_t m = 0;

			for (i = 0; i < n; i++) {
				const struct vtx *c = &p[i], *nx = &p[(i + 1) % n];
				float dc = plane_dist(c, k), dn = plane_dist(nx, k);
				bool ic = dc >= 0.0f, in = dn >= 0.0f;

				if (ic)
					o[m++] = *c;
				if (ic && !in)
					intersect(c, dc, nx, dn, &o[m++]);
				else if (!ic && in)
					intersect(nx, dn, c, dc, &o[m++]);
			}
			n = m;
			cur ^= 1;
			if (n < 3)
				return 0;
		}
	}
	for (i = 0; i < n; i++)
		if (!to_window(dr->ctx, &poly[cur][i], true, &w[i]))
			return 0;
	for (k = 1; k + 1 < n; k++) {
		err = triangle(dr, &w[0], &w[k], &w[k + 1], fault);
		if (err)
			return err;
	}
	return 0;
}

/* ---------------------------------------------------------------- draws */

/*
 * "The vertex program runs once a vertex even when several primitives
 * share it": the vertices of a draw's recent primitives, vertex k in slot
 * k % 4 and vertex 0 (a fan's and a loop's) in slot 4. Every primitive's
 * vertices are consecutive, or vertex 0 and consecutive ones, so a vertex
 * still needed is never evicted.
 */
struct vcache {
	bool valid[5];
	uint32_t k[5];
	struct vtx v[5];
};

static uint32_t cached_vertex(struct vdxg_ref3d_ctx *ctx,
			      const struct vdxg_ref3d_mem *mem, bool indexed,
			      uint32_t first, uint32_t k, int32_t bias,
			      struct inv *iv, struct vcache *vc,
			      struct vtx *v, struct vdxg_ref3d_fault *fault)
{
	uint32_t slot = k ? k % 4 : 4, err;

	if (!vc->valid[slot] || vc->k[slot] != k) {
		err = vertex(ctx, mem, indexed, first, k, bias, iv,
			     &vc->v[slot], fault);
		if (err)
			return err;
		vc->valid[slot] = true;
		vc->k[slot] = k;
	}
	*v = vc->v[slot];
	return 0;
}

static uint32_t draw(struct vdxg_ref3d_ctx *ctx,
		     const struct vdxg_ref3d_mem *mem, const uint32_t *cmd,
		     bool indexed, uint64_t hdr, struct vdxg_ref3d_fault *fault)
{
	const struct vdxg_ref3d_surface *cs = &ctx->surf[VDXG_SLOT_DST];
	const struct vdxg_ref3d_surface *ds = &ctx->surf[VDXG_SLOT_DEPTH];
	uint32_t prim = cmd[VDXG_RD_DRAW3D_DW_PRIM];
	uint32_t first = cmd[VDXG_RD_DRAW3D_DW_FIRST];
	uint32_t count = cmd[VDXG_RD_DRAW3D_DW_COUNT];
	int32_t bias = indexed ? (int32_t)cmd[VDXG_RD_DRAW3D_DW_BIAS] : 0;
	uint32_t raster = ctx->regs[VDXG_3D_RASTER], i, err = 0, np;
	struct vtx v[3];
	struct vcache vc;
	struct draw dr;
	struct inv iv;

	if (prim >= VDXG_NUM_PRIMS || count > VDXG_3D_MAX_COUNT)
		return ref_fault(fault, VDXG_FAULT_PARAM, hdr);
	if (!ctx->prog[0].bound || !ctx->prog[1].bound)
		return ref_fault(fault, VDXG_FAULT_PARAM, hdr);
	if (!cs->set && !ds->set)
		return ref_fault(fault, VDXG_FAULT_PARAM, hdr);
	if (ds->set && ds->format == VDXG_FMT_D32)
		return ref_fault(fault, VDXG_FAULT_PARAM, hdr);
	if (cs->set && ds->set &&
	    (ds->width < cs->width || ds->height < cs->height))
		return ref_fault(fault, VDXG_FAULT_BOUNDS, hdr);
	if (!indexed && (uint64_t)first + count > (1ull << 32))
		return ref_fault(fault, VDXG_FAULT_PARAM, hdr);
	if (indexed) {
		if (!ctx->ib.index_size)
			return ref_fault(fault, VDXG_FAULT_PARAM, hdr);
		if (((uint64_t)first + count) * ctx->ib.index_size >
		    ctx->ib.size)
			return ref_fault(fault, VDXG_FAULT_BOUNDS, hdr);
	}
	/* The draw-time references, then the constants, vertex stage first. */
	for (i = 0; i < VDXG_3D_NUM_STAGES; i++) {
		err = check_refs(ctx, i, fault);
		if (err)
			return err;
	}
	for (i = 0; i < VDXG_3D_NUM_STAGES; i++) {
		err = load_consts(ctx, mem, i, fault);
		if (err)
			return err;
	}

	memset(vc.valid, 0, sizeof(vc.valid));
	dr.ctx = ctx;
	dr.mem = mem;
	dr.iv = &iv;
	dr.fbw = cs->set ? cs->width : ds->width;
	dr.fbh = cs->set ? cs->height : ds->height;
	dr.x0 = 0;
	dr.y0 = 0;
	dr.x1 = dr.fbw;
	dr.y1 = dr.fbh;
	if (raster & VDXG_RASTER_SCISSOR) {
		uint32_t mn = ctx->regs[VDXG_3D_SCISSOR_MIN];
		uint32_t mx = ctx->regs[VDXG_3D_SCISSOR_MAX];

		dr.x0 = mn & 0xffff;
		dr.y0 = mn >> 16;
		if ((mx & 0xffff) < dr.x1)
			dr.x1 = mx & 0xffff;
		if ((mx >> 16) < dr.y1)
			dr.y1 = mx >> 16;
	}

#define VTX(slot, k) do { \
		err = cached_vertex(ctx, mem, indexed, first, (k), bias, &iv, \
				    &vc, &v[slot], fault); \
		if (err) \
			return err; \
	} while (0)

	switch (prim) {
	case VDXG_PRIM_POINTS:
		for (i = 0; i < count && !err; i++) {
			VTX(0, i);
			err = draw_point(&dr, &v[0], fault);
		}
		break;
	case VDXG_PRIM_LINES:
		for (i = 0; i + 1 < count && !err; i += 2) {
			VTX(0, i);
			VTX(1, i + 1);
			err = draw_line(&dr, &v[0], &v[1], fault);
		}
		break;
	case VDXG_PRIM_LINE_STRIP:
	case VDXG_PRIM_LINE_LOOP:
		np = count >= 2 ? count - 1 : 0;
		for (i = 0; i < np && !err; i++) {
			VTX(0, i);
			VTX(1, i + 1);
			err = draw_line(&dr, &v[0], &v[1], fault);
		}
		if (prim == VDXG_PRIM_LINE_LOOP && count >= 2 && !err) {
			VTX(0, count - 1);
			VTX(1, 0);
			err = draw_line(&dr, &v[0], &v[1], fault);
		}
		break;
	case VDXG_PRIM_TRIANGLES:
		for (i = 0; i + 2 < count && !err; i += 3) {
			VTX(0, i);
			VTX(1, i + 1);
			VTX(2, i + 2);
			err = draw_triangle(&dr, &v[0], &v[1], &v[2], fault);
		}
		break;
	case VDXG_PRIM_TRIANGLE_STRIP:
		for (i = 0; i + 2 < count && !err; i++) {
			VTX(0, (i & 1) ? i + 1 : i);
			VTX(1, (i & 1) ? i : i + 1);
			VTX(2, i + 2);
			err = draw_triangle(&dr, &v[0], &v[1], &v[2], fault);
		}
		break;
	default:	/* TRIANGLE_FAN */
		for (i = 0; i + 2 < count && !err; i++) {
			VTX(0, 0);
			VTX(1, i + 1);
			VTX(2, i + 2);
			err = draw_triangle(&dr, &v[0], &v[1], &v[2], fault);
		}
		break;
	}
#undef VTX
	return err;
}

static uint32_t clear(struct vdxg_ref3d_ctx *ctx,
		      const struct vdxg_ref3d_mem *mem, const uint32_t *cmd,
		      uint64_t hdr, struct vdxg_ref3d_fault *fault)
{
	const struct vdxg_ref3d_surface *cs = &ctx->surf[VDXG_SLOT_DST];
	const struct vdxg_ref3d_surface *ds = &ctx->surf[VDXG_SLOT_DEPTH];
	uint32_t flags = cmd[VDXG_RD_CLEAR_DW_FLAGS];
	uint32_t x = cmd[VDXG_RD_CLEAR_DW_XY] & 0xffff;
	uint32_t y = cmd[VDXG_RD_CLEAR_DW_XY] >> 16;
	uint32_t w = cmd[VDXG_RD_CLEAR_DW_WH] & 0xffff;
	uint32_t h = cmd[VDXG_RD_CLEAR_DW_WH] >> 16;
	uint32_t sten = cmd[VDXG_RD_CLEAR_DW_STENCIL], px, py, err, c;
	uint8_t buf[4];

	if ((flags & ~VDXG_CLEAR_MASK) || (sten >> 8))
		return ref_fault(fault, VDXG_FAULT_PARAM, hdr);
	if ((flags & VDXG_CLEAR_COLOR) && !cs->set)
		return ref_fault(fault, VDXG_FAULT_PARAM, hdr);
	if ((flags & VDXG_CLEAR_DEPTH) &&
	    (!ds->set || ds->format == VDXG_FMT_D32))
		return ref_fault(fault, VDXG_FAULT_PARAM, hdr);
	if ((flags & VDXG_CLEAR_STENCIL) &&
	    (!ds->set || ds->format != VDXG_FMT_D24S8))
		return ref_fault(fault, VDXG_FAULT_PARAM, hdr);

	if (flags & VDXG_CLEAR_COLOR) {
		struct chan ch = channels(cs->format);
		uint32_t cpp = vdxg_ref3d_cpp(cs->format), v = 0;
		uint32_t x1 = x + w < cs->width ? x + w : cs->width;
		uint32_t y1 = y + h < cs->height ? y + h : cs->height;

		for (c = 0; c < 4; c++) {
			float f = u2f(cmd[VDXG_RD_CLEAR_DW_COLOR + c]);

			if (ch.bits[c])
				v |= vdxg_ref3d_unorm(f, ch.bits[c]) << ch.shift[c];
		}
		if (cs->format == VDXG_FMT_XRGB8888)
			v |= 0xff000000u;
		put_le(buf, cpp, v);
		for (py = y; py < y1; py++)
			for (px = x; px < x1; px++) {
				err = wr(mem, pixel_addr(cs, px, py), buf, cpp,
					 fault);
				if (err)
					return err;
			}
	}
	if (flags & (VDXG_CLEAR_DEPTH | VDXG_CLEAR_STENCIL)) {
		uint32_t cpp = vdxg_ref3d_cpp(ds->format), v;
		uint32_t n = ds->format == VDXG_FMT_D16 ? 16 : 24;
		uint32_t zf = vdxg_ref3d_unorm(u2f(cmd[VDXG_RD_CLEAR_DW_DEPTH]),
					       n);
		uint32_t x1 = x + w < ds->width ? x + w : ds->width;
		uint32_t y1 = y + h < ds->height ? y + h : ds->height;

		for (py = y; py < y1; py++)
			for (px = x; px < x1; px++) {
				uint64_t a = pixel_addr(ds, px, py);

				err = rd(mem, a, buf, cpp, fault);
				if (err)
					return err;
				v = le(buf, cpp);
				if (flags & VDXG_CLEAR_DEPTH)
					v = n == 16 ? zf : (v & 0xff000000u) | zf;
				if (flags & VDXG_CLEAR_STENCIL)
					v = (v & 0x00ffffffu) | sten << 24;
				put_le(buf, cpp, v);
				err = wr(mem, a, buf, cpp, fault);
				if (err)
					return err;
			}
	}
	return 0;
}

/* ------------------------------------------------------------ commands */

static uint64_t addr64(const uint32_t *p)
{
	return (uint64_t)p[0] | (uint64_t)p[1] << 32;
}

static uint32_t set_surface(struct vdxg_ref3d_ctx *ctx,
			    const struct vdxg_ref3d_mem *mem,
			    const uint32_t *cmd, uint64_t hdr,
			    struct vdxg_ref3d_fault *fault)
{
	uint32_t slot = cmd[VDXG_RD_SURF_DW_SLOT];
	uint64_t addr = addr64(cmd + VDXG_RD_SURF_DW_ADDR);
	uint32_t fmt = cmd[VDXG_RD_SURF_DW_FORMAT];
	uint32_t w = cmd[VDXG_RD_SURF_DW_WIDTH];
	uint32_t h = cmd[VDXG_RD_SURF_DW_HEIGHT];
	uint32_t pitch = cmd[VDXG_RD_SURF_DW_PITCH], cpp;
	struct vdxg_ref3d_surface *s;
	bool ok;

	if (slot >= VDXG_NUM_SLOTS)
		return ref_fault(fault, VDXG_FAULT_PARAM, hdr);
	if (slot == VDXG_SLOT_DEPTH)
		ok = fmt == VDXG_FMT_D32 || fmt == VDXG_FMT_D16 ||
		     fmt == VDXG_FMT_D24S8;
	else
		ok = is_target_format(fmt);
	cpp = vdxg_ref3d_cpp(fmt);
	if (!ok || w < 1 || w > VDXG_SURF_MAX_DIM || h < 1 ||
	    h > VDXG_SURF_MAX_DIM || (pitch & 3) || pitch < w * cpp ||
	    pitch > VDXG_SURF_MAX_PITCH || (addr % cpp))
		return ref_fault(fault, VDXG_FAULT_PARAM, hdr);
	if (!range_ok(mem, addr, (uint64_t)pitch * (h - 1) + w * cpp))
		return ref_fault(fault, VDXG_FAULT_ADDRESS, addr);
	s = &ctx->surf[slot];
	s->set = true;
	s->addr = addr;
	s->format = fmt;
	s->width = w;
	s->height = h;
	s->pitch = pitch;
	return 0;
}

/* A program's size bytes read, decoded and checked (SHADER). */
static uint32_t read_program(const struct vdxg_ref3d_mem *mem,
			     struct vdxg_ref3d_program *prog, uint32_t stage,
			     uint64_t addr, uint32_t size,
			     struct vdxg_ref3d_fault *fault)
{
	uint8_t raw[VDXG_3D_PROGRAM_MAX_BYTES];
	uint32_t dw[VDXG_3D_PROGRAM_MAX_BYTES / 4];
	uint64_t fa = 0;
	uint32_t err, i;

	memset(raw, 0, sizeof(raw));
	err = rd(mem, addr, raw, size, fault);
	if (err)
		return err;
	for (i = 0; i < VDXG_3D_PROGRAM_MAX_BYTES / 4; i++)
		dw[i] = le(raw + 4 * i, 4);
	err = vdxg_ref3d_program_load(prog, stage, addr, dw, size, &fa);
	if (err)
		return ref_fault(fault, err, fa);
	return 0;
}

/*
 * SET_SHADER: the program's size bytes read when the command runs, then
 * decoded and checked; a bad program leaves the stage's program as it was.
 */
static uint32_t set_shader(struct vdxg_ref3d_ctx *ctx,
			   const struct vdxg_ref3d_mem *mem,
			   const uint32_t *cmd, uint64_t hdr,
			   struct vdxg_ref3d_fault *fault)
{
	uint32_t stage = cmd[VDXG_RD_SHADER_DW_STAGE];
	uint64_t addr = addr64(cmd + VDXG_RD_SHADER_DW_ADDR);
	uint32_t size = cmd[VDXG_RD_SHADER_DW_SIZE];
	struct vdxg_ref3d_program old;
	uint32_t err;

	if (stage >= VDXG_3D_NUM_STAGES || (addr & 3) ||
	    size < VDXG_PROG_HEADER_SIZE || size > VDXG_3D_PROGRAM_MAX_BYTES)
		return ref_fault(fault, VDXG_FAULT_PARAM, hdr);
	if (!range_ok(mem, addr, size))
		return ref_fault(fault, VDXG_FAULT_ADDRESS, addr);
	old = ctx->prog[stage];
	err = read_program(mem, &ctx->prog[stage], stage, addr, size, fault);
	if (err)
		ctx->prog[stage] = old;
	return err;
}

static uint32_t set_texture(struct vdxg_ref3d_ctx *ctx,
			    const struct vdxg_ref3d_mem *mem,
			    const uint32_t *cmd, uint64_t hdr,
			    struct vdxg_ref3d_fault *fault)
{
	uint32_t unit = cmd[VDXG_RD_TEX_DW_UNIT];
	uint64_t addr = addr64(cmd + VDXG_RD_TEX_DW_ADDR);
	uint32_t size = cmd[VDXG_RD_TEX_DW_SIZE];
	uint32_t desc = cmd[VDXG_RD_TEX_DW_FORMAT];
	uint32_t wh = cmd[VDXG_RD_TEX_DW_WH];
	struct texinfo t;

	if (unit >= VDXG_3D_NUM_UNITS)
		return ref_fault(fault, VDXG_FAULT_PARAM, hdr);
	if (VDXG_TEX_FORMAT(desc) == 0) {
		if (addr || size || desc || wh)
			return ref_fault(fault, VDXG_FAULT_PARAM, hdr);
		ctx->tex[unit].desc = 0;
		ctx->tex[unit].wh = 0;
		ctx->tex[unit].size = 0;
		ctx->tex[unit].addr = 0;
		return 0;
	}
	if ((addr & 3) || (desc >> 13) || !is_texture_format(VDXG_TEX_FORMAT(desc)))
		return ref_fault(fault, VDXG_FAULT_PARAM, hdr);
	t.format = VDXG_TEX_FORMAT(desc);
	t.levels = VDXG_TEX_LEVELS(desc);
	t.cube = desc & VDXG_TEX_CUBE;
	t.faces = t.cube ? VDXG_TEX_FACES_CUBE : 1;
	t.width = wh & 0xffff;
	t.height = wh >> 16;
	t.cpp = vdxg_ref3d_cpp(t.format);
	if (t.levels < 1 || t.levels > VDXG_TEX_MAX_LEVELS || t.width < 1 ||
	    t.width > VDXG_TEX_MAX_DIM || t.height < 1 ||
	    t.height > VDXG_TEX_MAX_DIM || (t.cube && t.width != t.height) ||
	    tex_layout(&t) > size)
		return ref_fault(fault, VDXG_FAULT_PARAM, hdr);
	if (!range_ok(mem, addr, size))
		return ref_fault(fault, VDXG_FAULT_ADDRESS, addr);
	ctx->tex[unit].desc = desc;
	ctx->tex[unit].wh = wh;
	ctx->tex[unit].size = size;
	ctx->tex[unit].addr = addr;
	return 0;
}

static const uint8_t lengths[VDXG_RD_NUM_OPS_3D] = {
	[VDXG_RD_NOP] = VDXG_RD_NOP_LEN,
	[VDXG_RD_FENCE] = VDXG_RD_FENCE_LEN,
	[VDXG_RD_WAIT] = VDXG_RD_WAIT_LEN,
	[VDXG_RD_SET_SURFACE] = VDXG_RD_SET_SURFACE_LEN,
	[VDXG_RD_FILL_RECT] = VDXG_RD_FILL_RECT_LEN,
	[VDXG_RD_COPY_RECT] = VDXG_RD_COPY_RECT_LEN,
	[VDXG_RD_BLEND] = VDXG_RD_BLEND_LEN,
	[VDXG_RD_DRAW_TRIANGLES] = VDXG_RD_DRAW_TRIANGLES_LEN,
	[VDXG_RD_SET_STATE] = 0,	/* 2 + n */
	[VDXG_RD_LOAD_STATE] = VDXG_RD_LOAD_STATE_LEN,
	[VDXG_RD_SET_SHADER] = VDXG_RD_SET_SHADER_LEN,
	[VDXG_RD_SET_CONSTANTS] = VDXG_RD_SET_CONSTANTS_LEN,
	[VDXG_RD_SET_VERTEX_BUFFER] = VDXG_RD_SET_VERTEX_BUFFER_LEN,
	[VDXG_RD_SET_INDEX_BUFFER] = VDXG_RD_SET_INDEX_BUFFER_LEN,
	[VDXG_RD_SET_TEXTURE] = VDXG_RD_SET_TEXTURE_LEN,
	[VDXG_RD_DRAW] = VDXG_RD_DRAW_LEN,
	[VDXG_RD_DRAW_INDEXED] = VDXG_RD_DRAW_INDEXED_LEN,
	[VDXG_RD_CLEAR] = VDXG_RD_CLEAR_LEN,
};

static uint32_t command(struct vdxg_ref3d_ctx *ctx,
			const struct vdxg_ref3d_mem *mem, const uint32_t *cmd,
			uint32_t len, uint64_t hdr,
			struct vdxg_ref3d_fault *fault)
{
	uint32_t op = cmd[0] & 0xff, first, count, stage, idx, i, err;
	uint64_t addr;
	uint32_t vals[VDXG_3D_NUM_REGS];
	uint8_t buf[4];

	switch (op) {
	case VDXG_RD_NOP:
		return 0;
	case VDXG_RD_SET_SURFACE:
		return set_surface(ctx, mem, cmd, hdr, fault);
	case VDXG_RD_SET_STATE:
		first = cmd[VDXG_RD_STATE_DW_FIRST];
		count = len - 2;
		if (first >= VDXG_3D_NUM_REGS ||
		    first + count > VDXG_3D_NUM_REGS)
			return ref_fault(fault, VDXG_FAULT_PARAM, hdr);
		return set_regs(ctx, first, cmd + VDXG_RD_STATE_DW_VALUES,
				count, hdr, fault);
	case VDXG_RD_LOAD_STATE:
		addr = addr64(cmd + VDXG_RD_LOAD_DW_ADDR);
		first = cmd[VDXG_RD_LOAD_DW_FIRST];
		count = cmd[VDXG_RD_LOAD_DW_COUNT];
		if ((addr & 3) || count < 1 || count > VDXG_3D_NUM_REGS ||
		    first >= VDXG_3D_NUM_REGS ||
		    first + count > VDXG_3D_NUM_REGS)
			return ref_fault(fault, VDXG_FAULT_PARAM, hdr);
		if (!range_ok(mem, addr, 4 * (uint64_t)count))
			return ref_fault(fault, VDXG_FAULT_ADDRESS, addr);
		for (i = 0; i < count; i++) {
			err = rd(mem, addr + 4 * (uint64_t)i, buf, 4, fault);
			if (err)
				return err;
			vals[i] = le(buf, 4);
		}
		return set_regs(ctx, first, vals, count, hdr, fault);
	case VDXG_RD_SET_SHADER:
		return set_shader(ctx, mem, cmd, hdr, fault);
	case VDXG_RD_SET_CONSTANTS:
		stage = cmd[VDXG_RD_CONST_DW_STAGE];
		addr = addr64(cmd + VDXG_RD_CONST_DW_ADDR);
		count = cmd[VDXG_RD_CONST_DW_COUNT];
		/* Count 0 unbinds: its address names nothing and is zero. */
		if (stage >= VDXG_3D_NUM_STAGES || (addr & 3) ||
		    count > VDXG_3D_NUM_CONSTS || (!count && addr))
			return ref_fault(fault, VDXG_FAULT_PARAM, hdr);
		if (count && !range_ok(mem, addr, 16 * (uint64_t)count))
			return ref_fault(fault, VDXG_FAULT_ADDRESS, addr);
		ctx->consts[stage].count = count;
		ctx->consts[stage].addr = count ? addr : 0;
		return 0;
	case VDXG_RD_SET_VERTEX_BUFFER:
		idx = cmd[VDXG_RD_VB_DW_INDEX];
		addr = addr64(cmd + VDXG_RD_VB_DW_ADDR);
		count = cmd[VDXG_RD_VB_DW_SIZE];
		/* Size 0 unbinds: its address names nothing and is zero. */
		if (idx >= VDXG_3D_NUM_VBS ||
		    cmd[VDXG_RD_VB_DW_STRIDE] > VDXG_3D_MAX_STRIDE ||
		    (!count && addr))
			return ref_fault(fault, VDXG_FAULT_PARAM, hdr);
		if (count && !range_ok(mem, addr, count))
			return ref_fault(fault, VDXG_FAULT_ADDRESS, addr);
		ctx->vb[idx].addr = addr;
		ctx->vb[idx].size = count;
		ctx->vb[idx].stride = cmd[VDXG_RD_VB_DW_STRIDE];
		return 0;
	case VDXG_RD_SET_INDEX_BUFFER:
		addr = addr64(cmd + VDXG_RD_IB_DW_ADDR);
		count = cmd[VDXG_RD_IB_DW_SIZE];
		idx = cmd[VDXG_RD_IB_DW_INDEX_SIZE];
		if (idx == 0) {
			if (addr || count)
				return ref_fault(fault, VDXG_FAULT_PARAM, hdr);
		} else if (idx != 1 && idx != 2 && idx != 4) {
			return ref_fault(fault, VDXG_FAULT_PARAM, hdr);
		} else if (count && !range_ok(mem, addr, count)) {
			return ref_fault(fault, VDXG_FAULT_ADDRESS, addr);
		}
		ctx->ib.addr = addr;
		ctx->ib.size = count;
		ctx->ib.index_size = idx;
		return 0;
	case VDXG_RD_SET_TEXTURE:
		return set_texture(ctx, mem, cmd, hdr, fault);
	case VDXG_RD_DRAW:
	case VDXG_RD_DRAW_INDEXED:
		return draw(ctx, mem, cmd, op == VDXG_RD_DRAW_INDEXED, hdr,
			    fault);
	case VDXG_RD_CLEAR:
		return clear(ctx, mem, cmd, hdr, fault);
	default:
		return ref_fault(fault, VDXG_REF3D_UNSUPPORTED, hdr);
	}
}

uint32_t vdxg_ref3d_exec(struct vdxg_ref3d_ctx *ctx,
			 const struct vdxg_ref3d_mem *mem, uint64_t buf_addr,
			 const uint32_t *cmds, uint32_t ndw,
			 struct vdxg_ref3d_fault *fault)
{
	uint32_t pos = 0, err;

	fault->reason = 0;
	fault->addr = 0;
	while (pos < ndw) {
		uint32_t h = cmds[pos], op = h & 0xff, len = h >> 16;
		uint64_t hdr = buf_addr + 4 * (uint64_t)pos;
		bool ok;

		if (op >= VDXG_RD_NUM_OPS_3D || (h & 0xff00))
			return ref_fault(fault, VDXG_FAULT_OPCODE, hdr);
		if (op == VDXG_RD_SET_STATE)
			ok = len >= VDXG_RD_SET_STATE_LEN(1) &&
			     len <= VDXG_RD_SET_STATE_LEN(VDXG_3D_NUM_REGS);
		else
			ok = len == lengths[op];
		if (!ok || len > ndw - pos)
			return ref_fault(fault, VDXG_FAULT_LENGTH, hdr);
		err = command(ctx, mem, cmds + pos, len, hdr, fault);
		if (err)
			return err;
		pos += len;
	}
	return 0;
}

/* ----------------------------------------------------------- state area */

void vdxg_ref3d_state_store(const struct vdxg_ref3d_ctx *ctx, uint32_t *area)
{
	uint32_t i, *p;

	memset(area + VDXG_CTX_STATE_DW_REGS, 0,
	       4 * (VDXG_CTX_STATE_DW_END - VDXG_CTX_STATE_DW_REGS));
	memcpy(area + VDXG_CTX_STATE_DW_REGS, ctx->regs, sizeof(ctx->regs));
	for (i = 0; i < VDXG_3D_NUM_STAGES; i++) {
		p = area + VDXG_CTX_STATE_DW_PROGRAM(i);
		if (ctx->prog[i].bound) {
			p[0] = 1;
			p[1] = (uint32_t)ctx->prog[i].addr;
			p[2] = (uint32_t)(ctx->prog[i].addr >> 32);
			p[3] = ctx->prog[i].size;
		}
		p = area + VDXG_CTX_STATE_DW_CONSTS(i);
		p[0] = ctx->consts[i].count;
		p[1] = (uint32_t)ctx->consts[i].addr;
		p[2] = (uint32_t)(ctx->consts[i].addr >> 32);
	}
	p = area + VDXG_CTX_STATE_DW_IB;
	p[0] = ctx->ib.index_size;
	p[1] = (uint32_t)ctx->ib.addr;
	p[2] = (uint32_t)(ctx->ib.addr >> 32);
	p[3] = ctx->ib.size;
	for (i = 0; i < VDXG_3D_NUM_VBS; i++) {
		p = area + VDXG_CTX_STATE_DW_VB(i);
		p[0] = ctx->vb[i].stride;
		p[1] = (uint32_t)ctx->vb[i].addr;
		p[2] = (uint32_t)(ctx->vb[i].addr >> 32);
		p[3] = ctx->vb[i].size;
	}
	for (i = 0; i < VDXG_3D_NUM_UNITS; i++) {
		p = area + VDXG_CTX_STATE_DW_TEX(i);
		p[0] = ctx->tex[i].desc;
		p[1] = (uint32_t)ctx->tex[i].addr;
		p[2] = (uint32_t)(ctx->tex[i].addr >> 32);
		p[3] = ctx->tex[i].size;
		p[4] = ctx->tex[i].wh;
	}
}

/*
 * Loading: every field checked as its command would check it in virtual
 * mode (a range only needs to lie below 2^48), in the order of the area's
 * dwords; a program is read again and checked as SET_SHADER does.
 */
#define VA_LIMIT BIT_ULL(48)

static bool va_ok(uint64_t addr, uint64_t len)
{
	return addr <= VA_LIMIT && len <= VA_LIMIT - addr;
}

static bool zeros(const uint32_t *p, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

uint32_t vdxg_ref3d_state_load(struct vdxg_ref3d_ctx *ctx,
			       const struct vdxg_ref3d_mem *mem,
			       const uint32_t *area, uint64_t area_addr,
			       struct vdxg_ref3d_fault *fault)
{
	const uint32_t *p;
	uint32_t i, err;
	uint64_t addr;

	fault->reason = 0;
	fault->addr = 0;
	for (i = 0; i < VDXG_3D_NUM_REGS; i++) {
		if (!vdxg_ref3d_reg_valid(i, area[VDXG_CTX_STATE_DW_REGS + i]))
			goto param;
		ctx->regs[i] = area[VDXG_CTX_STATE_DW_REGS + i];
	}
	for (i = 0; i < VDXG_3D_NUM_STAGES; i++) {
		uint32_t size;

		p = area + VDXG_CTX_STATE_DW_PROGRAM(i);
		addr = addr64(p + 1);
		size = p[3];
		memset(&ctx->prog[i], 0, sizeof(ctx->prog[i]));
		if (p[0] > 1 || (!p[0] && !zeros(p + 1, 3)))
			goto param;
		if (!p[0])
			continue;
		if ((addr & 3) || size < VDXG_PROG_HEADER_SIZE ||
		    size > VDXG_3D_PROGRAM_MAX_BYTES || !va_ok(addr, size))
			goto param;
		err = read_program(mem, &ctx->prog[i], i, addr, size, fault);
		if (err)
			return err;
	}
	for (i = 0; i < VDXG_3D_NUM_STAGES; i++) {
		p = area + VDXG_CTX_STATE_DW_CONSTS(i);
		addr = addr64(p + 1);
		if (p[0] > VDXG_3D_NUM_CONSTS || p[3] || (addr & 3) ||
		    (!p[0] && addr) || !va_ok(addr, 16 * (uint64_t)p[0]))
			goto param;
		ctx->consts[i].count = p[0];
		ctx->consts[i].addr = addr;
	}
	p = area + VDXG_CTX_STATE_DW_IB;
	addr = addr64(p + 1);
	if (p[0] == 0) {
		if (addr || p[3])
			goto param;
	} else if ((p[0] != 1 && p[0] != 2 && p[0] != 4) ||
		   !va_ok(addr, p[3])) {
		goto param;
	}
	ctx->ib.index_size = p[0];
	ctx->ib.addr = addr;
	ctx->ib.size = p[3];
	for (i = 0; i < VDXG_3D_NUM_VBS; i++) {
		p = area + VDXG_CTX_STATE_DW_VB(i);
		addr = addr64(p + 1);
		if (p[0] > VDXG_3D_MAX_STRIDE || (!p[3] && addr) ||
		    !va_ok(addr, p[3]))
			goto param;
		ctx->vb[i].stride = p[0];
		ctx->vb[i].addr = addr;
		ctx->vb[i].size = p[3];
	}
	for (i = 0; i < VDXG_3D_NUM_UNITS; i++) {
		uint32_t cmd[VDXG_RD_SET_TEXTURE_LEN] = { 0 };
		struct vdxg_ref3d_mem any = { NULL, NULL, NULL, NULL };
		struct vdxg_ref3d_fault f;

		p = area + VDXG_CTX_STATE_DW_TEX(i);
		addr = addr64(p + 1);
		if (!zeros(p + 5, 3) || !va_ok(addr, p[3]))
			goto param;
		cmd[VDXG_RD_TEX_DW_UNIT] = i;
		cmd[VDXG_RD_TEX_DW_ADDR] = p[1];
		cmd[VDXG_RD_TEX_DW_ADDR + 1] = p[2];
		cmd[VDXG_RD_TEX_DW_SIZE] = p[3];
		cmd[VDXG_RD_TEX_DW_FORMAT] = p[0];
		cmd[VDXG_RD_TEX_DW_WH] = p[4];
		/* SET_TEXTURE's checks; the range is va_ok's. */
		if (set_texture(ctx, &any, cmd, 0, &f))
			goto param;
	}
	return 0;
param:
	return ref_fault(fault, VDXG_FAULT_PARAM, area_addr);
}
