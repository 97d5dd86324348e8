// SPDX-License-Identifier: MIT
/*
 * libvdxg shader programs: the checker, assembler and disassembler of the
 * 3D pipeline's ISA (docs/hardware.md, "Programs"; the text form is in
 * docs/shader-asm.md). The checker applies SET_SHADER's rules, and the
 * assembler runs the same rules (the same functions) on what it builds,
 * so that a program it accepts is one the device accepts. No system
 * calls here.
 */
#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define BIT(n) (1u << (n))
#define BIT_ULL(n) (1ull << (n))
#include "vdxg_hw.h"

#include "vdxg.h"

#define OP_DST		0x1	/* has a destination */
#define OP_TEX		0x2	/* texture unit and CUBE */
#define OP_FRAG		0x4	/* fragment programs only */

struct op_info {
	const char *name;
	uint8_t nsrc, flags;
};

static const struct op_info ops[VDXG_NUM_OPS] = {
	[VDXG_OP_NOP] = { "NOP", 0, 0 },
	[VDXG_OP_MOV] = { "MOV", 1, OP_DST },
	[VDXG_OP_ADD] = { "ADD", 2, OP_DST },
	[VDXG_OP_MUL] = { "MUL", 2, OP_DST },
	[VDXG_OP_MAD] = { "MAD", 3, OP_DST },
	[VDXG_OP_DP2] = { "DP2", 2, OP_DST },
	[VDXG_OP_DP3] = { "DP3", 2, OP_DST },
	[VDXG_OP_DP4] = { "DP4", 2, OP_DST },
	[VDXG_OP_MIN] = { "MIN", 2, OP_DST },
	[VDXG_OP_MAX] = { "MAX", 2, OP_DST },
	[VDXG_OP_SLT] = { "SLT", 2, OP_DST },
	[VDXG_OP_SGE] = { "SGE", 2, OP_DST },
	[VDXG_OP_SEQ] = { "SEQ", 2, OP_DST },
	[VDXG_OP_SNE] = { "SNE", 2, OP_DST },
	[VDXG_OP_CMP] = { "CMP", 3, OP_DST },
	[VDXG_OP_LRP] = { "LRP", 3, OP_DST },
	[VDXG_OP_FRC] = { "FRC", 1, OP_DST },
	[VDXG_OP_FLR] = { "FLR", 1, OP_DST },
	[VDXG_OP_CEIL] = { "CEIL", 1, OP_DST },
	[VDXG_OP_TRUNC] = { "TRUNC", 1, OP_DST },
	[VDXG_OP_ROUND] = { "ROUND", 1, OP_DST },
	[VDXG_OP_SSG] = { "SSG", 1, OP_DST },
	[VDXG_OP_RCP] = { "RCP", 1, OP_DST },
	[VDXG_OP_RSQ] = { "RSQ", 1, OP_DST },
	[VDXG_OP_SQRT] = { "SQRT", 1, OP_DST },
	[VDXG_OP_EX2] = { "EX2", 1, OP_DST },
	[VDXG_OP_LG2] = { "LG2", 1, OP_DST },
	[VDXG_OP_POW] = { "POW", 2, OP_DST },
	[VDXG_OP_SIN] = { "SIN", 1, OP_DST },
	[VDXG_OP_COS] = { "COS", 1, OP_DST },
	[VDXG_OP_DIV] = { "DIV", 2, OP_DST },
	[VDXG_OP_DDX] = { "DDX", 1, OP_DST },
	[VDXG_OP_DDY] = { "DDY", 1, OP_DST },
	[VDXG_OP_ARL] = { "ARL", 1, OP_DST },
	[VDXG_OP_KILL] = { "KILL", 0, OP_FRAG },
	[VDXG_OP_KILL_IF] = { "KILL_IF", 1, OP_FRAG },
	[VDXG_OP_TEX] = { "TEX", 1, OP_DST | OP_TEX },
	[VDXG_OP_TXB] = { "TXB", 1, OP_DST | OP_TEX },
	[VDXG_OP_TXL] = { "TXL", 1, OP_DST | OP_TEX },
	[VDXG_OP_TXP] = { "TXP", 1, OP_DST | OP_TEX },
	[VDXG_OP_TXD] = { "TXD", 3, OP_DST | OP_TEX },
	[VDXG_OP_LDEXP] = { "LDEXP", 2, OP_DST },
	[VDXG_OP_IF] = { "IF", 1, 0 },
	[VDXG_OP_ELSE] = { "ELSE", 0, 0 },
	[VDXG_OP_ENDIF] = { "ENDIF", 0, 0 },
	[VDXG_OP_BGNLOOP] = { "BGNLOOP", 0, 0 },
	[VDXG_OP_ENDLOOP] = { "ENDLOOP", 0, 0 },
	[VDXG_OP_BRK] = { "BRK", 0, 0 },
	[VDXG_OP_CONT] = { "CONT", 0, 0 },
	[VDXG_OP_END] = { "END", 0, 0 },
};

static const char *const file_names[8] = {
	"TEMP", "IN", "OUT", "CONST", "IMM", "ADDR", "file 6", "file 7",
};

static const char *const stage_names[VDXG_3D_NUM_STAGES] = {
	"VERT", "FRAG",
};

/* Registers of FILE a program of STAGE with NIMM immediates has. */
static uint32_t file_size(uint32_t stage, uint32_t file, uint32_t nimm)
{
	bool fs = stage == VDXG_3D_STAGE_FRAGMENT;

	switch (file) {
	case VDXG_FILE_TEMP:
		return VDXG_3D_NUM_TEMPS;
	case VDXG_FILE_INPUT:
		return fs ? VDXG_3D_FS_INPUTS : VDXG_3D_VS_INPUTS;
	case VDXG_FILE_OUTPUT:
		return fs ? VDXG_3D_FS_OUTPUTS : VDXG_3D_VS_OUTPUTS;
	case VDXG_FILE_CONST:
		return VDXG_3D_NUM_CONSTS;
	case VDXG_FILE_IMM:
		return nimm;
	case VDXG_FILE_ADDR:
		return 1;
	}
	return 0;
}

static bool file_readable(uint32_t file)
{
	return file == VDXG_FILE_TEMP || file == VDXG_FILE_INPUT ||
	       file == VDXG_FILE_CONST || file == VDXG_FILE_IMM;
}

static uint32_t rd32(const void *prog, uint32_t i)
{
	uint32_t v;

	memcpy(&v, (const uint8_t *)prog + 4 * i, 4);
	return v;
}

/*
 * Floats are read and printed in the C locale's form whatever the
 * caller's LC_NUMERIC ("0.5", never "0,5"): the C locale for this
 * thread while the text is handled, then the caller's again.
 */
struct c_locale {
	locale_t c, old;
};

/*
 * A locale of the call's own, so that threads assembling at once share
 * nothing. Without one (no memory), the caller's LC_NUMERIC is used.
 */
static void c_locale_enter(struct c_locale *l)
{
	l->c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	l->old = l->c ? uselocale(l->c) : (locale_t)0;
}

static void c_locale_leave(struct c_locale *l)
{
	if (!l->c)
		return;
	uselocale(l->old);
	freelocale(l->c);
}

/* --------------------------------------------------------------- checks */

/*
 * The rules of one instruction on its own (everything but the control
 * flow): NULL, or what is wrong in WHY.
 */
static const char *check_insn(uint32_t stage, uint32_t nimm,
			      const uint32_t *dw, char *why, size_t len)
{
	uint32_t op = VDXG_INSN_OPCODE(dw[0]), file, index, i;
	const struct op_info *oi;

	if (op >= VDXG_NUM_OPS) {
		snprintf(why, len, "opcode 0x%02x is invalid", op);
		return why;
	}
	oi = &ops[op];
	if ((oi->flags & OP_FRAG) && stage != VDXG_3D_STAGE_FRAGMENT) {
		snprintf(why, len, "%s is invalid in a vertex program",
			 oi->name);
		return why;
	}
	if (dw[0] & VDXG_INSN_RSVD) {
		snprintf(why, len, "dword 0 bits 31:28 are not zero");
		return why;
	}
	if (!(oi->flags & OP_DST)) {
		if (dw[0] & 0x0fffff00) {
			snprintf(why, len, "%s has no destination: dword 0 bits 27:8 must be zero",
				 oi->name);
			return why;
		}
	} else {
		file = VDXG_INSN_DST_FILE(dw[0]);
		index = VDXG_INSN_DST_INDEX(dw[0]);
		if (op == VDXG_OP_ARL) {
			if (file != VDXG_FILE_ADDR || index ||
			    VDXG_INSN_MASK(dw[0]) != 1) {
				snprintf(why, len, "ARL's destination must be ADDR.x");
				return why;
			}
			if (dw[0] & VDXG_INSN_SAT) {
				snprintf(why, len, "ARL cannot saturate");
				return why;
			}
		} else if (file != VDXG_FILE_TEMP && file != VDXG_FILE_OUTPUT) {
			snprintf(why, len, "%s cannot be a destination",
				 file_names[file]);
			return why;
		} else if (index >= file_size(stage, file, nimm)) {
			snprintf(why, len, "%s[%u] is out of range: a %s program has %u",
				 file_names[file], index,
				 stage ? "fragment" : "vertex",
				 file_size(stage, file, nimm));
			return why;
		}
		if (!(oi->flags & OP_TEX) &&
		    (dw[0] & (VDXG_INSN_TEX(7, 1)))) {
			snprintf(why, len, "texture unit and CUBE must be zero in %s",
				 oi->name);
			return why;
		}
	}
	for (i = 0; i < 3; i++) {
		uint32_t s = dw[1 + i];

		if (i >= oi->nsrc) {
			if (s) {
				snprintf(why, len, "source %u is unused by %s and must be zero",
					 i, oi->name);
				return why;
			}
			continue;
		}
		file = VDXG_SRC_FILE(s);
		index = VDXG_SRC_INDEX(s);
		if (s & VDXG_SRC_RSVD) {
			snprintf(why, len, "source %u: bits 31:22 are not zero", i);
			return why;
		}
		if (!file_readable(file)) {
			snprintf(why, len, "source %u: %s cannot be read", i,
				 file_names[file]);
			return why;
		}
		if ((s & VDXG_SRC_RELATIVE) && file != VDXG_FILE_CONST) {
			snprintf(why, len, "source %u: RELATIVE on %s (only CONST)",
				 i, file_names[file]);
			return why;
		}
		if (index >= file_size(stage, file, nimm)) {
			snprintf(why, len, "source %u: %s[%u] is out of range: a %s program has %u",
				 i, file_names[file], index,
				 stage ? "fragment" : "vertex",
				 file_size(stage, file, nimm));
			return why;
		}
	}
	return NULL;
}

#define CF_IF		1
#define CF_ELSE		2	/* an IF past its ELSE */
#define CF_LOOP		3

struct cf {
	uint8_t kind[VDXG_3D_MAX_NESTING];
	uint32_t depth, loops;
};

/*
 * The control flow at one more instruction OP (nesting, ELSE, BRK and
 * CONT): NULL or what breaks it. END and the last instruction are the
 * caller's.
 */
static const char *cf_step(struct cf *cf, uint32_t op)
{
	uint8_t top = cf->depth ? cf->kind[cf->depth - 1] : 0;

	switch (op) {
	case VDXG_OP_IF:
	case VDXG_OP_BGNLOOP:
		if (cf->depth == VDXG_3D_MAX_NESTING)
			return "more than 32 nested IF and BGNLOOP";
		cf->kind[cf->depth++] = op == VDXG_OP_IF ? CF_IF : CF_LOOP;
		cf->loops += op == VDXG_OP_BGNLOOP;
		break;
	case VDXG_OP_ELSE:
		if (top == CF_ELSE)
			return "a second ELSE for one IF";
		if (top != CF_IF)
			return "ELSE outside an IF (the innermost block)";
		cf->kind[cf->depth - 1] = CF_ELSE;
		break;
	case VDXG_OP_ENDIF:
		if (top != CF_IF && top != CF_ELSE)
			return "ENDIF does not close an IF (the innermost block)";
		cf->depth--;
		break;
	case VDXG_OP_ENDLOOP:
		if (top != CF_LOOP)
			return "ENDLOOP does not close a BGNLOOP (the innermost block)";
		cf->depth--;
		cf->loops--;
		break;
	case VDXG_OP_BRK:
		if (!cf->loops)
			return "BRK outside a loop";
		break;
	case VDXG_OP_CONT:
		if (!cf->loops)
			return "CONT outside a loop";
		break;
	case VDXG_OP_END:
		if (cf->depth)
			return top == CF_LOOP ? "END inside a loop (BGNLOOP without ENDLOOP)" :
						"END inside an IF (IF without ENDIF)";
		break;
	}
	return NULL;
}

/*
 * SET_SHADER's checks in their order: 0, or -EINVAL with the byte offset
 * of the faulting dword in *OFF and the reason in WHY; -ERANGE for a size
 * the command itself refuses.
 */
static int prog_check(const void *prog, uint32_t size, uint32_t *off,
		      char *why, size_t len)
{
	uint32_t n, m, i, dw[4];
	struct cf cf = { { 0 }, 0, 0 };
	const char *r;

	*off = 0;
	if (size < VDXG_PROG_HEADER_SIZE || size > VDXG_3D_PROGRAM_MAX_BYTES) {
		snprintf(why, len, "size %u is not %u to %u bytes", size,
			 VDXG_PROG_HEADER_SIZE, VDXG_3D_PROGRAM_MAX_BYTES);
		return -ERANGE;
	}
	if (rd32(prog, VDXG_PROG_DW_MAGIC) != VDXG_3D_PROGRAM_MAGIC) {
		snprintf(why, len, "magic 0x%08x is not 0x%08x",
			 rd32(prog, VDXG_PROG_DW_MAGIC), VDXG_3D_PROGRAM_MAGIC);
		return -EINVAL;
	}
	*off = 4 * VDXG_PROG_DW_STAGE;
	if (rd32(prog, VDXG_PROG_DW_STAGE) >= VDXG_3D_NUM_STAGES) {
		snprintf(why, len, "stage 0x%x is not 0 or 1",
			 rd32(prog, VDXG_PROG_DW_STAGE));
		return -EINVAL;
	}
	*off = 4 * VDXG_PROG_DW_NUM_INSNS;
	n = rd32(prog, VDXG_PROG_DW_NUM_INSNS);
	if (n < 1 || n > VDXG_3D_MAX_INSTRUCTIONS) {
		snprintf(why, len, "%u instructions: 1 to %u", n,
			 VDXG_3D_MAX_INSTRUCTIONS);
		return -EINVAL;
	}
	*off = 4 * VDXG_PROG_DW_NUM_IMMS;
	m = rd32(prog, VDXG_PROG_DW_NUM_IMMS);
	if (m > VDXG_3D_MAX_IMMEDIATES) {
		snprintf(why, len, "%u immediates: 0 to %u", m,
			 VDXG_3D_MAX_IMMEDIATES);
		return -EINVAL;
	}
	if (16ull * (1 + n + m) > size) {
		snprintf(why, len, "the program spans %u bytes, over the size %u",
			 16 * (1 + n + m), size);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		uint32_t op, k;

		*off = VDXG_PROG_HEADER_SIZE + VDXG_3D_INSN_SIZE * i;
		for (k = 0; k < 4; k++)
			dw[k] = rd32(prog, *off / 4 + k);
		if (check_insn(rd32(prog, VDXG_PROG_DW_STAGE), m, dw, why, len))
			return -EINVAL;
		op = VDXG_INSN_OPCODE(dw[0]);
		if (op == VDXG_OP_END && i != n - 1)
			r = "END before the last instruction";
		else if (op != VDXG_OP_END && i == n - 1)
			r = "the last instruction is not END";
		else
			r = cf_step(&cf, op);
		if (r) {
			snprintf(why, len, "%s", r);
			return -EINVAL;
		}
	}
	return 0;
}

/* "byte 0x40 (instruction 2): what" */
static void where(char *msg, size_t len, uint32_t off, const char *why)
{
	if (!msg || !len)
		return;
	if (off < VDXG_PROG_HEADER_SIZE)
		snprintf(msg, len, "byte 0x%x (header dword %u): %s", off,
			 off / 4, why);
	else
		snprintf(msg, len, "byte 0x%x (instruction %u): %s", off,
			 (off - VDXG_PROG_HEADER_SIZE) / VDXG_3D_INSN_SIZE, why);
}

int vdxg_program_check(const void *prog, uint32_t size, uint32_t *offset,
		       char *msg, size_t msg_len)
{
	char why[160];
	uint32_t off;
	int ret;

	if (!prog)
		return -EINVAL;
	ret = prog_check(prog, size, &off, why, sizeof(why));
	if (offset)
		*offset = off;
	if (ret == -ERANGE && msg && msg_len)
		snprintf(msg, msg_len, "%s", why);
	else if (ret)
		where(msg, msg_len, off, why);
	return ret;
}

/* ----------------------------------------------------------- disassembly */

struct sb {
	char *s;
	size_t len, cap;
	int err;
};

static void __attribute__((format(printf, 2, 3)))
sb_printf(struct sb *sb, const char *fmt, ...)
{
	va_list ap;
	int k;

	for (;;) {
		if (sb->err)
			return;
		va_start(ap, fmt);
		k = vsnprintf(sb->s ? sb->s + sb->len : NULL,
			      sb->cap - sb->len, fmt, ap);
		va_end(ap);
		if (k < 0) {
			sb->err = -EINVAL;
			return;
		}
		if ((size_t)k < sb->cap - sb->len) {
			sb->len += k;
			return;
		}
		{
			size_t cap = sb->cap ? sb->cap : 256;
			char *s;

			while (cap <= sb->len + k)
				cap *= 2;
			s = realloc(sb->s, cap);
			if (!s) {
				sb->err = -ENOMEM;
				return;
			}
			sb->s = s;
			sb->cap = cap;
		}
	}
}

static float bits_f32(uint32_t bits)
{
	float f;

	memcpy(&f, &bits, 4);
	return f;
}

static uint32_t f32_bits(float f)
{
	uint32_t bits;

	memcpy(&bits, &f, 4);
	return bits;
}

/*
 * A binary32 as text that reads back to the same bits: the shortest %g
 * that does, "inf", or the raw bits for NaNs and denormals.
 */
static void fmt_f32(char *buf, size_t len, uint32_t bits)
{
	uint32_t e = (bits >> 23) & 0xff, mant = bits & 0x7fffff;
	int prec;

	if (mant && (e == 0 || e == 0xff)) {
		snprintf(buf, len, "0x%08x", bits);
		return;
	}
	if (e == 0xff) {
		snprintf(buf, len, "%sinf", bits >> 31 ? "-" : "");
		return;
	}
	for (prec = 1; prec < 9; prec++) {
		snprintf(buf, len, "%.*g", prec, (double)bits_f32(bits));
		if (f32_bits(strtof(buf, NULL)) == bits)
			return;
	}
	snprintf(buf, len, "%.9g", (double)bits_f32(bits));
}

static void print_src(struct sb *sb, uint32_t s)
{
	uint32_t file = VDXG_SRC_FILE(s), swz = VDXG_SRC_SWIZZLE(s), i;
	static const char xyzw[] = "xyzw";

	sb_printf(sb, "%s%s%s[", s & VDXG_SRC_NEGATE ? "-" : "",
		  s & VDXG_SRC_ABS ? "|" : "", file_names[file]);
	if (s & VDXG_SRC_RELATIVE) {
		sb_printf(sb, "ADDR.x");
		if (VDXG_SRC_INDEX(s))
			sb_printf(sb, "+%u", VDXG_SRC_INDEX(s));
	} else {
		sb_printf(sb, "%u", VDXG_SRC_INDEX(s));
	}
	sb_printf(sb, "]");
	if (swz != VDXG_SWIZZLE_XYZW) {
		sb_printf(sb, ".");
		for (i = 0; i < 4; i++)
			sb_printf(sb, "%c", xyzw[(swz >> (2 * i)) & 3]);
	}
	if (s & VDXG_SRC_ABS)
		sb_printf(sb, "|");
}

static void print_insn(struct sb *sb, const uint32_t *dw)
{
	uint32_t op = VDXG_INSN_OPCODE(dw[0]), i;
	const struct op_info *oi = &ops[op];
	const char *sep = " ";

	sb_printf(sb, "%s%s", oi->name,
		  dw[0] & VDXG_INSN_SAT ? "_SAT" : "");
	if (oi->flags & OP_DST) {
		uint32_t file = VDXG_INSN_DST_FILE(dw[0]);
		uint32_t mask = VDXG_INSN_MASK(dw[0]);

		if (file == VDXG_FILE_ADDR)
			sb_printf(sb, " ADDR");
		else
			sb_printf(sb, " %s[%u]", file_names[file],
				  VDXG_INSN_DST_INDEX(dw[0]));
		if (!mask)
			sb_printf(sb, "._");
		else if (mask != 0xf)
			sb_printf(sb, ".%s%s%s%s", mask & 1 ? "x" : "",
				  mask & 2 ? "y" : "", mask & 4 ? "z" : "",
				  mask & 8 ? "w" : "");
		sep = ", ";
	}
	for (i = 0; i < oi->nsrc; i++) {
		sb_printf(sb, "%s", sep);
		print_src(sb, dw[1 + i]);
		sep = ", ";
	}
	if (oi->flags & OP_TEX)
		sb_printf(sb, ", UNIT[%u], %s", VDXG_INSN_UNIT(dw[0]),
			  dw[0] & VDXG_INSN_CUBE ? "CUBE" : "2D");
}

int vdxg_disasm(const void *prog, uint32_t size, char **text, char *msg,
		size_t msg_len)
{
	struct sb sb = { NULL, 0, 0, 0 };
	uint32_t stage, n, m, i, k, dw[4], off, depth = 0;
	char why[160], f[4][24];
	struct c_locale loc;
	int ret;

	if (!prog || !text)
		return -EINVAL;
	*text = NULL;
	ret = vdxg_program_check(prog, size, &off, msg, msg_len);
	/* No listing without a header: what would it list? */
	if (ret == -ERANGE || (ret && off < VDXG_PROG_HEADER_SIZE))
		return ret;
	stage = rd32(prog, VDXG_PROG_DW_STAGE);
	n = rd32(prog, VDXG_PROG_DW_NUM_INSNS);
	m = rd32(prog, VDXG_PROG_DW_NUM_IMMS);
	sb_printf(&sb, "%s\n", stage_names[stage]);
	c_locale_enter(&loc);
	for (i = 0; i < m; i++) {
		for (k = 0; k < 4; k++)
			fmt_f32(f[k], sizeof(f[k]),
				rd32(prog, 4 * (1 + n + i) + k));
		sb_printf(&sb, "IMM[%u] = { %s, %s, %s, %s }\n", i, f[0], f[1],
			  f[2], f[3]);
	}
	c_locale_leave(&loc);
	for (i = 0; i < n; i++) {
		uint32_t op;

		for (k = 0; k < 4; k++)
			dw[k] = rd32(prog, 4 * (1 + i) + k);
		op = VDXG_INSN_OPCODE(dw[0]);
		if (check_insn(stage, m, dw, why, sizeof(why))) {
			sb_printf(&sb, "%*s# invalid: 0x%08x 0x%08x 0x%08x 0x%08x: %s\n",
				  2 * depth, "", dw[0], dw[1], dw[2], dw[3],
				  why);
			continue;
		}
		if ((op == VDXG_OP_ELSE || op == VDXG_OP_ENDIF ||
		     op == VDXG_OP_ENDLOOP) && depth)
			depth--;
		sb_printf(&sb, "%*s", 2 * depth, "");
		print_insn(&sb, dw);
		sb_printf(&sb, "\n");
		if ((op == VDXG_OP_IF || op == VDXG_OP_ELSE ||
		     op == VDXG_OP_BGNLOOP) && depth < VDXG_3D_MAX_NESTING)
			depth++;
	}
	if (sb.err) {
		free(sb.s);
		return sb.err;
	}
	*text = sb.s;
	return ret;
}

/* ------------------------------------------------------------ assembly */

struct as_pos {
	uint32_t line, col;
};

struct as_insn {
	uint32_t dw[4];
	struct as_pos op, src[3];
};

struct as {
	const char *p, *bol;	/* cursor, start of its line */
	uint32_t line;
	char *msg;
	size_t msg_len;
	int err;

	int stage;		/* -1 until VERT or FRAG */
	bool ended;		/* END seen */
	struct as_insn *insn;
	uint32_t n, cap;

	uint32_t imm[VDXG_3D_MAX_IMMEDIATES][4];
	struct as_pos imm_pos[VDXG_3D_MAX_IMMEDIATES];
	bool imm_set[VDXG_3D_MAX_IMMEDIATES];
	uint32_t nimm;		/* highest declared + 1 */

	struct cf cf;
	struct as_pos open[VDXG_3D_MAX_NESTING];	/* each open block */
};

static struct as_pos as_here(const struct as *as, const char *at)
{
	struct as_pos pos = { as->line, (uint32_t)(at - as->bol) + 1 };

	return pos;
}

static int __attribute__((format(printf, 3, 4)))
as_fail_pos(struct as *as, struct as_pos pos, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (as->err)
		return as->err;
	as->err = -EINVAL;
	if (!as->msg || !as->msg_len)
		return as->err;
	k = snprintf(as->msg, as->msg_len, "%u:%u: ", pos.line, pos.col);
	if (k >= 0 && (size_t)k < as->msg_len) {
		va_start(ap, fmt);
		vsnprintf(as->msg + k, as->msg_len - k, fmt, ap);
		va_end(ap);
	}
	return as->err;
}

#define as_fail(as, at, ...) as_fail_pos(as, as_here(as, at), __VA_ARGS__)

static void skip_ws(struct as *as)
{
	while (*as->p == ' ' || *as->p == '\t' || *as->p == '\r')
		as->p++;
}

static bool at_eol(struct as *as)
{
	skip_ws(as);
	return !*as->p || *as->p == '\n' || *as->p == '#';
}

static size_t ident_len(const char *p)
{
	size_t n = 0;

	if (!isalpha((unsigned char)*p) && *p != '_')
		return 0;
	while (isalnum((unsigned char)p[n]) || p[n] == '_')
		n++;
	return n;
}

static bool word_is(const char *p, size_t n, const char *w)
{
	return strlen(w) == n && !strncasecmp(p, w, n);
}

/* The next word if it is W (case-insensitive), consumed. */
static bool take_word(struct as *as, const char *w)
{
	size_t n;

	skip_ws(as);
	n = ident_len(as->p);
	if (!word_is(as->p, n, w))
		return false;
	as->p += n;
	return true;
}

static int expect(struct as *as, char c, const char *what)
{
	skip_ws(as);
	if (*as->p != c)
		return as_fail(as, as->p, "expected %s", what);
	as->p++;
	return 0;
}

/* A decimal number, capped above 2^31 so that it cannot overflow. */
static int parse_uint(struct as *as, uint32_t *v, const char *what)
{
	uint64_t x = 0;

	skip_ws(as);
	if (!isdigit((unsigned char)*as->p))
		return as_fail(as, as->p, "expected %s", what);
	while (isdigit((unsigned char)*as->p)) {
		x = x * 10 + (uint32_t)(*as->p++ - '0');
		if (x > 0x80000000u)
			x = 0x80000000u;
	}
	*v = (uint32_t)x;
	return 0;
}

static int parse_file(struct as *as, uint32_t *file)
{
	static const struct {
		const char *name;
		uint32_t file;
	} names[] = {
		{ "TEMP", VDXG_FILE_TEMP }, { "IN", VDXG_FILE_INPUT },
		{ "INPUT", VDXG_FILE_INPUT }, { "OUT", VDXG_FILE_OUTPUT },
		{ "OUTPUT", VDXG_FILE_OUTPUT }, { "CONST", VDXG_FILE_CONST },
		{ "IMM", VDXG_FILE_IMM }, { "ADDR", VDXG_FILE_ADDR },
	};
	size_t n, i;

	skip_ws(as);
	n = ident_len(as->p);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (word_is(as->p, n, names[i].name)) {
			*file = names[i].file;
			as->p += n;
			return 0;
		}
	}
	return as_fail(as, as->p,
		       "expected a register: TEMP, IN, OUT, CONST, IMM or ADDR");
}

/* After ADDR: an optional [0]. */
static int parse_addr_index(struct as *as)
{
	const char *at;
	uint32_t i;

	skip_ws(as);
	if (*as->p != '[')
		return 0;
	as->p++;
	skip_ws(as);
	at = as->p;
	if (parse_uint(as, &i, "an index"))
		return as->err;
	if (i)
		return as_fail(as, at, "ADDR has one register, ADDR[0]");
	return expect(as, ']', "']'");
}

/* The register index at AT checked against the stage's file size. */
static int check_index(struct as *as, const char *at, uint32_t file,
		       uint32_t index)
{
	uint32_t size = file == VDXG_FILE_IMM ? VDXG_3D_MAX_IMMEDIATES :
			file_size(as->stage, file, 0);

	if (index < size)
		return 0;
	if (file == VDXG_FILE_IMM)
		return as_fail(as, at, "IMM[%u]: at most %u immediates",
			       index, size);
	return as_fail(as, at, "%s[%u] is out of range: a %s program has %u",
		       file_names[file], index,
		       as->stage ? "fragment" : "vertex", size);
}

static int parse_dst(struct as *as, uint32_t *dw0)
{
	uint32_t file, index = 0, mask = 0xf;
	const char *at;
	size_t n, i;

	skip_ws(as);
	at = as->p;
	if (parse_file(as, &file))
		return as->err;
	if (file == VDXG_FILE_INPUT || file == VDXG_FILE_CONST ||
	    file == VDXG_FILE_IMM)
		return as_fail(as, at, "%s cannot be written",
			       file_names[file]);
	if (file == VDXG_FILE_ADDR) {
		if (parse_addr_index(as))
			return as->err;
	} else {
		if (expect(as, '[', "'['"))
			return as->err;
		skip_ws(as);
		at = as->p;
		if (parse_uint(as, &index, "a register index") ||
		    check_index(as, at, file, index) ||
		    expect(as, ']', "']'"))
			return as->err;
	}
	skip_ws(as);
	if (*as->p == '.') {
		as->p++;
		at = as->p;
		n = ident_len(as->p);
		mask = 0;
		if (!n)
			return as_fail(as, at, "expected a write mask");
		/* "_" alone: no channel */
		for (i = 0; i < n && !(n == 1 && *at == '_'); i++) {
			const char *c = strchr("xyzw", tolower((unsigned char)at[i]));
			uint32_t bit;

			if (!c || !*c)
				return as_fail(as, at + i,
					       "a write mask is x, y, z, w in order, or _");
			bit = 1u << (c - "xyzw");
			if (mask >= bit)
				return as_fail(as, at + i,
					       "a write mask is x, y, z, w in order, or _");
			mask |= bit;
		}
		as->p += n;
	}
	*dw0 |= VDXG_INSN(0, file, index, mask);
	return 0;
}

static int parse_src(struct as *as, uint32_t *src, struct as_pos *pos)
{
	uint32_t file, index = 0, swz = VDXG_SWIZZLE_XYZW, s = 0;
	bool abs = false;
	const char *at;
	size_t n, i;

	skip_ws(as);
	if (*as->p == '-') {
		s |= VDXG_SRC_NEGATE;
		as->p++;
		skip_ws(as);
	}
	if (*as->p == '|') {
		abs = true;
		s |= VDXG_SRC_ABS;
		as->p++;
		skip_ws(as);
	}
	at = as->p;
	*pos = as_here(as, at);
	if (*as->p == '-')
		return as_fail(as, at, "negate goes outside |...|: -|x|");
	if (parse_file(as, &file))
		return as->err;
	if (file == VDXG_FILE_OUTPUT)
		return as_fail(as, at, "OUT cannot be read");
	if (file == VDXG_FILE_ADDR)
		return as_fail(as, at, "ADDR is read only as CONST[ADDR.x+n]");
	if (expect(as, '[', "'['"))
		return as->err;
	skip_ws(as);
	at = as->p;
	if (take_word(as, "ADDR")) {
		if (file != VDXG_FILE_CONST)
			return as_fail(as, at, "only CONST is indexed by ADDR.x");
		s |= VDXG_SRC_RELATIVE;
		if (parse_addr_index(as) || expect(as, '.', "ADDR.x"))
			return as->err;
		if (!take_word(as, "x"))
			return as_fail(as, as->p, "expected ADDR.x");
		skip_ws(as);
		if (*as->p == '+') {
			as->p++;
			skip_ws(as);
			at = as->p;
			if (parse_uint(as, &index, "an offset"))
				return as->err;
			if (index > 255)
				return as_fail(as, at, "offset %u is over 255",
					       index);
		} else if (*as->p == '-') {
			return as_fail(as, as->p,
				       "a negative offset cannot be encoded");
		}
	} else {
		if (parse_uint(as, &index, "a register index or ADDR.x") ||
		    check_index(as, at, file, index))
			return as->err;
	}
	if (expect(as, ']', "']'"))
		return as->err;
	skip_ws(as);
	if (*as->p == '.') {
		as->p++;
		at = as->p;
		n = ident_len(as->p);
		if (n != 1 && n != 4)
			return as_fail(as, at,
				       "a swizzle is 1 or 4 of x, y, z, w");
		swz = 0;
		for (i = 0; i < 4; i++) {
			const char *c = strchr("xyzw",
					       tolower((unsigned char)at[n == 1 ? 0 : i]));

			if (!c || !*c)
				return as_fail(as, at + (n == 1 ? 0 : i),
					       "a swizzle is 1 or 4 of x, y, z, w");
			swz |= (uint32_t)(c - "xyzw") << (2 * i);
		}
		as->p += n;
	}
	if (abs && expect(as, '|', "'|'"))
		return as->err;
	*src = s | VDXG_SRC(file, index, swz);
	return 0;
}

static int parse_tex(struct as *as, uint32_t *dw0)
{
	uint32_t unit;
	const char *at;

	if (expect(as, ',', "',' and UNIT[n]"))
		return as->err;
	if (!take_word(as, "UNIT"))
		return as_fail(as, as->p, "expected UNIT[n]");
	if (expect(as, '[', "'['"))
		return as->err;
	skip_ws(as);
	at = as->p;
	if (parse_uint(as, &unit, "a texture unit"))
		return as->err;
	if (unit >= VDXG_3D_NUM_UNITS)
		return as_fail(as, at, "texture unit %u: 0 to %u", unit,
			       VDXG_3D_NUM_UNITS - 1);
	if (expect(as, ']', "']'"))
		return as->err;
	*dw0 |= VDXG_INSN_TEX(unit, 0);
	skip_ws(as);
	if (*as->p != ',')
		return 0;
	as->p++;
	skip_ws(as);
	if (!strncasecmp(as->p, "2D", 2) && !isalnum((unsigned char)as->p[2]) &&
	    as->p[2] != '_') {
		as->p += 2;
		return 0;
	}
	if (take_word(as, "CUBE")) {
		*dw0 |= VDXG_INSN_CUBE;
		return 0;
	}
	return as_fail(as, as->p, "expected 2D or CUBE");
}

static int as_push_insn(struct as *as, const struct as_insn *in)
{
	if (as->n == as->cap) {
		uint32_t cap = as->cap ? 2 * as->cap : 64;
		struct as_insn *p = realloc(as->insn, cap * sizeof(*p));

		if (!p) {
			as->err = -ENOMEM;
			return as->err;
		}
		as->insn = p;
		as->cap = cap;
	}
	as->insn[as->n++] = *in;
	return 0;
}

static int parse_insn(struct as *as, const char *name, size_t len)
{
	struct as_insn in;
	const struct op_info *oi = NULL;
	uint32_t op, i;
	bool sat = false;
	char why[160];
	const char *r;

	memset(&in, 0, sizeof(in));
	in.op = as_here(as, name);
	for (op = 0; op < VDXG_NUM_OPS; op++)
		if (word_is(name, len, ops[op].name))
			break;
	if (op == VDXG_NUM_OPS && len > 4 &&
	    !strncasecmp(name + len - 4, "_SAT", 4)) {
		for (op = 0; op < VDXG_NUM_OPS; op++)
			if (word_is(name, len - 4, ops[op].name))
				break;
		sat = true;
	}
	if (op == VDXG_NUM_OPS)
		return as_fail(as, name, "unknown opcode '%.*s'", (int)len,
			       name);
	oi = &ops[op];
	as->p = name + len;
	if (as->ended)
		return as_fail(as, name, "%s after END: END must be the last instruction",
			       oi->name);
	if (as->n == VDXG_3D_MAX_INSTRUCTIONS)
		return as_fail(as, name, "more than %u instructions",
			       VDXG_3D_MAX_INSTRUCTIONS);
	if ((oi->flags & OP_FRAG) && as->stage != VDXG_3D_STAGE_FRAGMENT)
		return as_fail(as, name, "%s is invalid in a vertex program",
			       oi->name);
	if (sat && !(oi->flags & OP_DST))
		return as_fail(as, name, "%s has no destination to saturate",
			       oi->name);
	if (sat && op == VDXG_OP_ARL)
		return as_fail(as, name, "ARL cannot saturate");
	in.dw[0] = op | (sat ? VDXG_INSN_SAT : 0);
	if (oi->flags & OP_DST) {
		const char *at;

		skip_ws(as);
		at = as->p;
		if (parse_dst(as, &in.dw[0]))
			return as->err;
		if (op == VDXG_OP_ARL &&
		    (VDXG_INSN_DST_FILE(in.dw[0]) != VDXG_FILE_ADDR ||
		     VDXG_INSN_MASK(in.dw[0]) != 1))
			return as_fail(as, at, "ARL's destination must be ADDR.x");
		if (op != VDXG_OP_ARL &&
		    VDXG_INSN_DST_FILE(in.dw[0]) == VDXG_FILE_ADDR)
			return as_fail(as, at, "only ARL writes ADDR");
	}
	for (i = 0; i < oi->nsrc; i++) {
		if ((i || (oi->flags & OP_DST)) &&
		    expect(as, ',', "',' and a source"))
			return as->err;
		if (parse_src(as, &in.dw[1 + i], &in.src[i]))
			return as->err;
	}
	if ((oi->flags & OP_TEX) && parse_tex(as, &in.dw[0]))
		return as->err;
	if (!at_eol(as))
		return as_fail(as, as->p, "expected the end of the line");
	/* The device's own rules, for what parsing let through. */
	if (check_insn(as->stage, VDXG_3D_MAX_IMMEDIATES, in.dw, why,
		       sizeof(why)))
		return as_fail_pos(as, in.op, "%s", why);
	r = cf_step(&as->cf, op);
	if (r) {
		if (as->cf.depth)
			return as_fail_pos(as, in.op, "%s (innermost block opened at %u:%u)",
					   r, as->open[as->cf.depth - 1].line,
					   as->open[as->cf.depth - 1].col);
		return as_fail_pos(as, in.op, "%s", r);
	}
	if (op == VDXG_OP_IF || op == VDXG_OP_BGNLOOP)
		as->open[as->cf.depth - 1] = in.op;
	if (op == VDXG_OP_END)
		as->ended = true;
	return as_push_insn(as, &in);
}

/* One value of an immediate: a decimal binary32 or raw bits 0x... */
static int parse_value(struct as *as, uint32_t *bits)
{
	const char *at, *end;
	float f;

	skip_ws(as);
	at = as->p;
	if (at[0] == '0' && (at[1] == 'x' || at[1] == 'X')) {
		uint64_t v = 0;
		size_t n = 0;

		for (end = at + 2; isxdigit((unsigned char)*end); end++, n++) {
			v = v * 16 + (uint32_t)(isdigit((unsigned char)*end) ?
				*end - '0' : tolower((unsigned char)*end) - 'a' + 10);
			if (n == 8)
				return as_fail(as, at, "raw bits have at most 8 hex digits");
		}
		if (!n)
			return as_fail(as, at, "expected hex digits after 0x");
		*bits = (uint32_t)v;
		as->p = end;
	} else {
		if (!*at || strchr(",}\n#", *at) || !strchr("+-.0123456789iInN", *at))
			return as_fail(as, at, "expected a number");
		/* strtof's hex floats are not the text form */
		for (end = at; *end && strchr("+-", *end); end++)
			;
		if (end[0] == '0' && (end[1] == 'x' || end[1] == 'X'))
			return as_fail(as, at, "raw bits 0x... take no sign");
		errno = 0;
		f = strtof(at, (char **)&end);
		if (end == at)
			return as_fail(as, at, "expected a number");
		*bits = f32_bits(f);
		if (errno == ERANGE && (*bits & 0x7f800000) == 0x7f800000)
			return as_fail(as, at, "%.*s is out of binary32's range",
				       (int)(end - at), at);
		as->p = end;
	}
	skip_ws(as);
	if (*as->p != ',' && *as->p != '}')
		return as_fail(as, as->p, "expected ',' or '}'");
	return 0;
}

static int parse_imm(struct as *as, const char *start)
{
	uint32_t index, v[4], i;
	const char *at;

	if (expect(as, '[', "'['"))
		return as->err;
	skip_ws(as);
	at = as->p;
	if (parse_uint(as, &index, "an index") ||
	    check_index(as, at, VDXG_FILE_IMM, index) ||
	    expect(as, ']', "']'"))
		return as->err;
	if (as->imm_set[index])
		return as_fail(as, at, "IMM[%u] is declared twice (first at %u:%u)",
			       index, as->imm_pos[index].line,
			       as->imm_pos[index].col);
	skip_ws(as);
	if (*as->p == '=')
		as->p++;
	take_word(as, "FLT32");
	if (expect(as, '{', "'{'"))
		return as->err;
	for (i = 0; i < 4; i++) {
		if (i && expect(as, ',', "',' and four values"))
			return as->err;
		if (parse_value(as, &v[i]))
			return as->err;
	}
	if (expect(as, '}', "'}' after four values"))
		return as->err;
	if (!at_eol(as))
		return as_fail(as, as->p, "expected the end of the line");
	memcpy(as->imm[index], v, sizeof(v));
	as->imm_set[index] = true;
	as->imm_pos[index] = as_here(as, start);
	if (index >= as->nimm)
		as->nimm = index + 1;
	return 0;
}

static int parse_statement(struct as *as)
{
	const char *at = as->p;
	size_t n = ident_len(at);

	if (!n)
		return as_fail(as, at, "expected an opcode");
	if (word_is(at, n, "VERT") || word_is(at, n, "FRAG")) {
		if (as->stage >= 0)
			return as_fail(as, at, "a second VERT or FRAG");
		as->stage = word_is(at, n, "FRAG") ? VDXG_3D_STAGE_FRAGMENT :
						     VDXG_3D_STAGE_VERTEX;
		as->p += n;
		if (!at_eol(as))
			return as_fail(as, as->p, "expected the end of the line");
		return 0;
	}
	if (as->stage < 0)
		return as_fail(as, at, "expected VERT or FRAG first");
	if (word_is(at, n, "IMM")) {
		as->p += n;
		return parse_imm(as, at);
	}
	return parse_insn(as, at, n);
}

/* What parsing could not check line by line: END, immediates. */
static int as_finish(struct as *as)
{
	uint32_t i, k;

	if (as->stage < 0)
		return as_fail(as, as->p, "expected VERT or FRAG");
	if (!as->ended)
		return as_fail(as, as->p, "missing END");
	for (i = 0; i < as->nimm; i++)
		if (!as->imm_set[i])
			return as_fail_pos(as, as->imm_pos[as->nimm - 1],
					   "IMM[%u] is not declared (IMM[%u] is)",
					   i, as->nimm - 1);
	for (i = 0; i < as->n; i++) {
		for (k = 0; k < 3; k++) {
			uint32_t s = as->insn[i].dw[1 + k];

			if (k < ops[VDXG_INSN_OPCODE(as->insn[i].dw[0])].nsrc &&
			    VDXG_SRC_FILE(s) == VDXG_FILE_IMM &&
			    VDXG_SRC_INDEX(s) >= as->nimm)
				return as_fail_pos(as, as->insn[i].src[k],
						   "IMM[%u] is not declared",
						   VDXG_SRC_INDEX(s));
		}
	}
	return 0;
}

int vdxg_asm(const char *text, uint32_t **prog, uint32_t *size, char *msg,
	     size_t msg_len)
{
	struct as *as;
	uint32_t *out = NULL, bytes = 0, i, off;
	char why[160];
	struct c_locale loc;
	int ret;

	if (!text || !prog || !size)
		return -EINVAL;
	*prog = NULL;
	*size = 0;
	if (msg && msg_len)
		msg[0] = '\0';
	as = calloc(1, sizeof(*as));
	if (!as)
		return -ENOMEM;
	as->p = as->bol = text;
	as->line = 1;
	as->msg = msg;
	as->msg_len = msg_len;
	as->stage = -1;
	c_locale_enter(&loc);
	while (*as->p && !as->err) {
		if (!at_eol(as))
			parse_statement(as);
		if (as->err)
			break;
		while (*as->p && *as->p != '\n')
			as->p++;
		if (*as->p == '\n') {
			as->p++;
			as->line++;
			as->bol = as->p;
		}
	}
	c_locale_leave(&loc);
	if (!as->err)
		as_finish(as);
	if (!as->err) {
		bytes = 16 * (1 + as->n + as->nimm);
		out = malloc(bytes);
		if (!out)
			as->err = -ENOMEM;
	}
	if (!as->err) {
		out[VDXG_PROG_DW_MAGIC] = VDXG_3D_PROGRAM_MAGIC;
		out[VDXG_PROG_DW_STAGE] = (uint32_t)as->stage;
		out[VDXG_PROG_DW_NUM_INSNS] = as->n;
		out[VDXG_PROG_DW_NUM_IMMS] = as->nimm;
		for (i = 0; i < as->n; i++)
			memcpy(&out[4 * (1 + i)], as->insn[i].dw, 16);
		for (i = 0; i < as->nimm; i++)
			memcpy(&out[4 * (1 + as->n + i)], as->imm[i], 16);
		/* What the device checks, once more, on the whole program. */
		if (prog_check(out, bytes, &off, why, sizeof(why))) {
			if (off >= VDXG_PROG_HEADER_SIZE)
				as_fail_pos(as, as->insn[(off - 16) / 16].op,
					    "%s", why);
			else
				as_fail_pos(as, as_here(as, as->p), "%s", why);
		}
	}
	ret = as->err;
	if (ret) {
		free(out);
	} else {
		*prog = out;
		*size = bytes;
	}
	free(as->insn);
	free(as);
	return ret;
}
