// SPDX-License-Identifier: MIT
/*
 * libvdxg-asm-test: the shader assembler, disassembler and checker on the
 * host: instruction encodings against dwords computed by hand from
 * docs/hardware.md's bit layout, round trips (text to binary to text to
 * the same binary) over a corpus and over random valid programs, every
 * assembler error with its line and column, SET_SHADER's checks with the
 * byte offset the device faults at. Runs with make -C libvdxg check.
 */
#include <errno.h>
#include <locale.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIT(n) (1u << (n))
#define BIT_ULL(n) (1ull << (n))
#include "vdxg_hw.h"

#include "vdxg.h"
#include "vtest.h"

static uint32_t *assemble(const char *text, uint32_t *size)
{
	char msg[256] = "";
	uint32_t *prog = NULL;
	int ret = vdxg_asm(text, &prog, size, msg, sizeof(msg));

	vtest_assert_f(!ret, "vdxg_asm: %d %s\n%s", ret, msg, text);
	vtest_assert(prog);
	return prog;
}

static void assert_prog(const char *text, const uint32_t *want, uint32_t n)
{
	uint32_t size, i, *prog = assemble(text, &size);

	vtest_assert_f(size == 4 * n, "%u bytes, want %u\n%s", size, 4 * n,
		       text);
	for (i = 0; i < n; i++)
		vtest_assert_f(prog[i] == want[i],
			       "dword %u is 0x%08x, want 0x%08x\n%s", i,
			       prog[i], want[i], text);
	free(prog);
}

/* Text -> binary -> text -> the same binary, and the text is stable. */
static void round_trip(const uint32_t *prog, uint32_t size)
{
	char msg[256] = "", *text = NULL, *text2 = NULL;
	uint32_t size2, *prog2;
	int ret;

	ret = vdxg_disasm(prog, size, &text, msg, sizeof(msg));
	vtest_assert_f(!ret, "vdxg_disasm: %d %s", ret, msg);
	vtest_assert(text);
	prog2 = assemble(text, &size2);
	vtest_assert_f(size2 == size && !memcmp(prog, prog2, size),
		       "the listing assembles to other bytes:\n%s", text);
	vtest_assert_eq(vdxg_disasm(prog2, size2, &text2, msg, sizeof(msg)), 0);
	vtest_assert_str_eq(text2, text);
	free(prog2);
	free(text);
	free(text2);
}

static void test_encode(void)
{
	/* Each dword from the bit layout: see the comments. */
	static const uint32_t want[] = {
		0x50485356, 1, 7, 1,		/* "VSHP", FRAG, n 7, m 1 */
		/* MOV OUT[0], IN[0]: 0x01 | OUTPUT 2 << 8 | xyzw << 12 */
		0x0000f201,
		/* IN 1 | swizzle xyzw 0xe4 << 11 */
		0x00072001, 0, 0,
		/* MAD_SAT TEMP[1].xy: 0x04 | SAT 1 << 11 | 0x3 << 12 | 1 << 16 */
		0x00013804,
		/* IN[1].yxzw: 1 | 1 << 3 | 0xe1 << 11 */
		0x00070809,
		/* CONST[3].xxxx: 3 | 3 << 3 | 0 << 11 */
		0x0000001b,
		/* -|IMM[0]|: 4 | 0xe4 << 11 | ABS 1 << 19 | NEGATE 1 << 20 */
		0x001f2004,
		/* MOV TEMP[2].w, CONST[ADDR.x+4].wzyx */
		0x00028001,
		/* 3 | 4 << 3 | 0x1b << 11 | RELATIVE 1 << 21 */
		0x0020d823, 0, 0,
		/* ARL ADDR.x, TEMP[127].y: 0x21 | ADDR 5 << 8 | x 1 << 12 */
		0x00001521,
		/* 127 << 3 | 0x55 << 11 */
		0x0002abf8, 0, 0,
		/* TEX TEMP[1], IN[10], UNIT[7], CUBE: 0x24 | xyzw << 12 |
		 * 1 << 16 | 7 << 24 | CUBE 1 << 27 */
		0x0f01f024, 0x00072051, 0, 0,
		/* KILL_IF -IN[9].x: 0x23, 1 | 9 << 3 | NEGATE */
		0x00000023, 0x00100049, 0, 0,
		/* END */
		0x00000031, 0, 0, 0,
		/* IMM[0] */
		0x3f800000, 0xbf000000, 0x7fc00001, 0x00000001,
	};

	assert_prog("FRAG\n"
		    "MOV OUT[0], IN[0]\n"
		    "MAD_SAT TEMP[1].xy, IN[1].yxzw, CONST[3].xxxx, -|IMM[0]|\n"
		    "MOV TEMP[2].w, CONST[ADDR.x+4].wzyx\n"
		    "ARL ADDR.x, TEMP[127].y\n"
		    "TEX TEMP[1], IN[10], UNIT[7], CUBE\n"
		    "KILL_IF -IN[9].x\n"
		    "END\n"
		    "IMM[0] = { 1.0, -0.5, 0x7fc00001, 0x1 }\n",
		    want, sizeof(want) / 4);
}

static void test_syntax(void)
{
	/* Spellings of one program: case, spacing, comments, aliases. */
	static const uint32_t want[] = {
		0x50485356, 0, 3, 1,
		/* ADD OUT[9].xz, |TEMP[5]|, IMM[0].zzzz */
		0x00095202, 0x000f2028, 0x00055004, 0,
		/* TXP_SAT TEMP[0], -CONST[ADDR.x], UNIT[0], 2D */
		0x0000f827, 0x00372003, 0, 0,
		0x00000031, 0, 0, 0,
		0x00000000, 0x80000000, 0x7f800000, 0xff800000,
	};

	assert_prog("# a comment\n\n  vert   # stage\n"
		    "\tadd output[9].xz , | TEMP[ 5 ] | ,IMM[0].z  # sum\n"
		    "TXP_SAT TEMP[0], -CONST[ADDR[0].x + 0], UNIT[0], 2D\r\n"
		    "END\n"
		    "IMM[0] FLT32 { 0, -0.0, inf, -inf }",
		    want, sizeof(want) / 4);
	/* The texture target defaults to 2D; ADDR[0].x is ADDR.x. */
	assert_prog("VERT\nTXL TEMP[0], IN[0], UNIT[3]\nARL ADDR[0].x, IN[0]\nEND\n",
		    (const uint32_t[]){ 0x50485356, 0, 3, 0,
					0x0300f026, 0x00072001, 0, 0,
					0x00001521, 0x00072001, 0, 0,
					0x31, 0, 0, 0 }, 16);
	/* A write mask of "_" is no channel; DDX is allowed in a vertex program. */
	assert_prog("VERT\nDDX TEMP[3]._, IN[15].w\nEND\n",
		    (const uint32_t[]){ 0x50485356, 0, 2, 0,
					0x0003001f, 0x0007f879, 0, 0,
					0x31, 0, 0, 0 }, 12);
}

/* Every opcode, file, modifier and control-flow form, in both stages. */
static const char *const corpus[] = {
	"FRAG\n"
	"IMM[0] = { 1, 0.5, 0x7fc00000, -2 }\n"
	"IMM[1] = { 0.1, 0x00000001, 3.4028235e+38, -0 }\n"
	"IMM[2] = { 0x807fffff, 0xffc00000, 1e-10, 16777216 }\n"
	"NOP\n"
	"MOV TEMP[0], IN[0]\n"
	"ADD TEMP[1].x, IN[1], -IN[2]\n"
	"MUL TEMP[1].y, |IN[3]|, -|IN[4]|\n"
	"MAD TEMP[1].z, IN[5], IN[6], IN[7]\n"
	"DP2 TEMP[1].w, IN[8], IN[9]\n"
	"DP3 TEMP[2].xy, IN[10], CONST[255]\n"
	"DP4 TEMP[2].zw, CONST[0].xyxy, IMM[2].wzyx\n"
	"MIN TEMP[3].xyz, TEMP[127], TEMP[0].zzzz\n"
	"MAX TEMP[3].yzw, TEMP[1], TEMP[2]\n"
	"SLT TEMP[4].xw, TEMP[1], TEMP[2]\n"
	"SGE TEMP[4].yz, TEMP[1], TEMP[2]\n"
	"SEQ TEMP[5], TEMP[1], TEMP[2]\n"
	"SNE TEMP[6], TEMP[1], TEMP[2]\n"
	"CMP TEMP[7], TEMP[1], TEMP[2], TEMP[3]\n"
	"LRP_SAT TEMP[8], TEMP[1], TEMP[2], TEMP[3]\n"
	"FRC TEMP[9], CONST[ADDR.x]\n"
	"FLR TEMP[9], CONST[ADDR.x+255].yyyy\n"
	"CEIL TEMP[9], -|CONST[ADDR.x+1]|\n"
	"TRUNC TEMP[9], IMM[0]\n"
	"ROUND TEMP[9], IMM[1]\n"
	"SSG TEMP[9], IMM[2]\n"
	"RCP TEMP[10], TEMP[9].xxxx\n"
	"RSQ TEMP[10], TEMP[9].yyyy\n"
	"SQRT TEMP[10], TEMP[9].zzzz\n"
	"EX2 TEMP[10], TEMP[9].wwww\n"
	"LG2 TEMP[10], TEMP[9]\n"
	"POW TEMP[10], TEMP[9], TEMP[8]\n"
	"SIN TEMP[10], TEMP[9]\n"
	"COS TEMP[10], TEMP[9]\n"
	"DIV TEMP[10], TEMP[9], TEMP[8]\n"
	"DDX TEMP[11], IN[8]\n"
	"DDY TEMP[11], IN[8]\n"
	"ARL ADDR.x, TEMP[11].xxxx\n"
	"KILL_IF TEMP[11]\n"
	"TEX TEMP[12], IN[0], UNIT[0], 2D\n"
	"TXB TEMP[12], IN[0], UNIT[1], CUBE\n"
	"TXL TEMP[12], IN[0], UNIT[2], 2D\n"
	"TXP TEMP[12], IN[0], UNIT[3], 2D\n"
	"TXD TEMP[12], IN[0], TEMP[1], TEMP[2], UNIT[7], 2D\n"
	"LDEXP TEMP[13], TEMP[12], IMM[0]\n"
	"IF TEMP[13].xxxx\n"
	"  BGNLOOP\n"
	"    IF TEMP[1].yyyy\n"
	"      BRK\n"
	"    ELSE\n"
	"      CONT\n"
	"    ENDIF\n"
	"    BRK\n"
	"  ENDLOOP\n"
	"ELSE\n"
	"  KILL\n"
	"ENDIF\n"
	"MOV_SAT OUT[0]._, TEMP[0]\n"
	"END\n",

	"VERT\n"
	"MOV OUT[0], IN[15]\n"
	"MOV OUT[1].x, CONST[7]\n"
	"ARL ADDR.x, IN[1].wwww\n"
	"MAD OUT[9], CONST[ADDR.x+16], IN[2], -CONST[ADDR.x+17].wzyx\n"
	"DDX TEMP[0], IN[0]\n"
	"TEX TEMP[0], IN[3], UNIT[5], CUBE\n"
	"BGNLOOP\n"
	"  BGNLOOP\n"
	"    CONT\n"
	"  ENDLOOP\n"
	"  BRK\n"
	"ENDLOOP\n"
	"END\n",

	"FRAG\nEND\n",
};

static void test_corpus(void)
{
	uint32_t i, size, *prog;

	for (i = 0; i < sizeof(corpus) / sizeof(corpus[0]); i++) {
		char msg[256], *text = NULL;

		prog = assemble(corpus[i], &size);
		round_trip(prog, size);
		/* The corpus is written as the disassembler lists. */
		vtest_assert_eq(vdxg_disasm(prog, size, &text, msg,
					    sizeof(msg)), 0);
		vtest_assert_str_eq(text, corpus[i]);
		free(text);
		free(prog);
	}
}

/* ------------------------------------------------ random valid programs */

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng_state >> 33) % n;
}

static uint32_t rnd_src(uint32_t stage, uint32_t m)
{
	static const uint32_t files[] = {
		VDXG_FILE_TEMP, VDXG_FILE_INPUT, VDXG_FILE_CONST, VDXG_FILE_IMM,
	};
	uint32_t file = files[rnd(m ? 4 : 3)], index, s;

	switch (file) {
	case VDXG_FILE_TEMP:
		index = rnd(VDXG_3D_NUM_TEMPS);
		break;
	case VDXG_FILE_INPUT:
		index = rnd(stage ? VDXG_3D_FS_INPUTS : VDXG_3D_VS_INPUTS);
		break;
	case VDXG_FILE_CONST:
		index = rnd(VDXG_3D_NUM_CONSTS);
		break;
	default:
		index = rnd(m);
		break;
	}
	s = VDXG_SRC(file, index, rnd(256));
	if (rnd(2))
		s |= VDXG_SRC_ABS;
	if (rnd(2))
		s |= VDXG_SRC_NEGATE;
	if (file == VDXG_FILE_CONST && rnd(2))
		s |= VDXG_SRC_RELATIVE;
	return s;
}

static const uint8_t nsrc[VDXG_NUM_OPS] = {
	[VDXG_OP_MOV] = 1, [VDXG_OP_ADD] = 2, [VDXG_OP_MUL] = 2,
	[VDXG_OP_MAD] = 3, [VDXG_OP_DP2] = 2, [VDXG_OP_DP3] = 2,
	[VDXG_OP_DP4] = 2, [VDXG_OP_MIN] = 2, [VDXG_OP_MAX] = 2,
	[VDXG_OP_SLT] = 2, [VDXG_OP_SGE] = 2, [VDXG_OP_SEQ] = 2,
	[VDXG_OP_SNE] = 2, [VDXG_OP_CMP] = 3, [VDXG_OP_LRP] = 3,
	[VDXG_OP_FRC] = 1, [VDXG_OP_FLR] = 1, [VDXG_OP_CEIL] = 1,
	[VDXG_OP_TRUNC] = 1, [VDXG_OP_ROUND] = 1, [VDXG_OP_SSG] = 1,
	[VDXG_OP_RCP] = 1, [VDXG_OP_RSQ] = 1, [VDXG_OP_SQRT] = 1,
	[VDXG_OP_EX2] = 1, [VDXG_OP_LG2] = 1, [VDXG_OP_POW] = 2,
	[VDXG_OP_SIN] = 1, [VDXG_OP_COS] = 1, [VDXG_OP_DIV] = 2,
	[VDXG_OP_DDX] = 1, [VDXG_OP_DDY] = 1, [VDXG_OP_ARL] = 1,
	[VDXG_OP_KILL_IF] = 1, [VDXG_OP_TEX] = 1, [VDXG_OP_TXB] = 1,
	[VDXG_OP_TXL] = 1, [VDXG_OP_TXP] = 1, [VDXG_OP_TXD] = 3,
	[VDXG_OP_LDEXP] = 2, [VDXG_OP_IF] = 1,
};

/*
 * A random valid program of N instructions (the last END) and M
 * immediates: random fields within the rules, blocks nested at random.
 */
#define R_IF	1
#define R_ELSE	2
#define R_LOOP	3

static uint32_t *random_prog(uint32_t stage, uint32_t n, uint32_t m,
			     uint32_t *size)
{
	uint32_t *p = calloc(4 * (1 + n + m), 4), i, k;
	uint32_t open[VDXG_3D_MAX_NESTING], depth = 0, loops = 0;

	vtest_assert(p);
	p[0] = VDXG_3D_PROGRAM_MAGIC;
	p[1] = stage;
	p[2] = n;
	p[3] = m;
	for (i = 0; i < n; i++) {
		uint32_t *dw = &p[4 * (1 + i)], op, left = n - 1 - i;

		if (!left) {
			op = VDXG_OP_END;
		} else if (depth && left > depth && open[depth - 1] == R_IF &&
			   rnd(8) == 0) {
			op = VDXG_OP_ELSE;
			open[depth - 1] = R_ELSE;
		} else if (depth && (left <= depth || rnd(6) == 0)) {
			/* close the innermost block */
			op = open[depth - 1] == R_LOOP ? VDXG_OP_ENDLOOP :
							VDXG_OP_ENDIF;
			loops -= op == VDXG_OP_ENDLOOP;
			depth--;
		} else if (left > depth + 2 && depth < VDXG_3D_MAX_NESTING &&
			   rnd(8) == 0) {
			op = rnd(2) ? VDXG_OP_IF : VDXG_OP_BGNLOOP;
			open[depth++] = op == VDXG_OP_IF ? R_IF : R_LOOP;
			loops += op == VDXG_OP_BGNLOOP;
		} else {
			do {
				op = rnd(VDXG_OP_END);
			} while (op == VDXG_OP_IF || op == VDXG_OP_BGNLOOP ||
				 op == VDXG_OP_ENDIF || op == VDXG_OP_ENDLOOP ||
				 op == VDXG_OP_ELSE ||
				 ((op == VDXG_OP_BRK || op == VDXG_OP_CONT) &&
				  !loops) ||
				 ((op == VDXG_OP_KILL || op == VDXG_OP_KILL_IF) &&
				  !stage));
		}
		dw[0] = op;
		for (k = 0; k < nsrc[op]; k++)
			dw[1 + k] = rnd_src(stage, m);
		if (op == VDXG_OP_ARL) {
			dw[0] |= VDXG_INSN(0, VDXG_FILE_ADDR, 0, 1);
		} else if (nsrc[op] && op != VDXG_OP_IF &&
			   op != VDXG_OP_KILL_IF) {
			uint32_t file = rnd(2) ? VDXG_FILE_TEMP :
					VDXG_FILE_OUTPUT;
			uint32_t size = file == VDXG_FILE_TEMP ?
				VDXG_3D_NUM_TEMPS : stage ?
				VDXG_3D_FS_OUTPUTS : VDXG_3D_VS_OUTPUTS;

			dw[0] |= VDXG_INSN(0, file, rnd(size), rnd(16));
			if (rnd(2))
				dw[0] |= VDXG_INSN_SAT;
			if (op >= VDXG_OP_TEX && op <= VDXG_OP_TXD)
				dw[0] |= VDXG_INSN_TEX(rnd(8), rnd(2));
		}
	}
	/* Immediates: any bits (NaNs, denormals, infinities included). */
	for (i = 0; i < 4 * m; i++)
		p[4 * (1 + n) + i] = rnd(2) ? rnd(0x10000) << 16 | rnd(0x10000) :
				     0x7f800000 | rnd(2) << 31 | rnd(3);
	*size = 16 * (1 + n + m);
	return p;
}

static void test_random(void)
{
	uint32_t i, size, off;
	char msg[256];

	rng_state = 27;
	for (i = 0; i < 400; i++) {
		uint32_t n = 1 + rnd(i < 390 ? 120 : VDXG_3D_MAX_INSTRUCTIONS);
		uint32_t m = rnd(4) ? rnd(8) : rnd(VDXG_3D_MAX_IMMEDIATES + 1);
		uint32_t *prog = random_prog(rnd(2), n, m, &size);
		int ret = vdxg_program_check(prog, size, &off, msg, sizeof(msg));

		vtest_assert_f(!ret, "program %u invalid: %s", i, msg);
		round_trip(prog, size);
		free(prog);
	}
}

/* ------------------------------------------------------------- errors */

static const struct {
	const char *text, *want;	/* want: "line:col: " and a prefix */
} asm_errors[] = {
	{ "FRAG\nFOO TEMP[0], IN[0]\nEND\n", "2:1: unknown opcode 'FOO'" },
	{ "MOV TEMP[0], IN[0]\nEND\n", "1:1: expected VERT or FRAG first" },
	{ "", "1:1: expected VERT or FRAG" },
	{ "FRAG\nVERT\nEND\n", "2:1: a second VERT or FRAG" },
	{ "FRAG\nMOV TEMP[0], IN[0]\n", "3:1: missing END" },
	/* register indices, by stage */
	{ "FRAG\nMOV TEMP[0], IN[11]\nEND\n",
	  "2:17: IN[11] is out of range: a fragment program has 11" },
	{ "VERT\nMOV TEMP[0], IN[16]\nEND\n",
	  "2:17: IN[16] is out of range: a vertex program has 16" },
	{ "VERT\nMOV OUT[10], IN[0]\nEND\n",
	  "2:9: OUT[10] is out of range: a vertex program has 10" },
	{ "FRAG\nMOV OUT[1], IN[0]\nEND\n",
	  "2:9: OUT[1] is out of range: a fragment program has 1" },
	{ "FRAG\nMOV TEMP[128], IN[0]\nEND\n",
	  "2:10: TEMP[128] is out of range" },
	{ "FRAG\nMOV TEMP[0], CONST[256]\nEND\n",
	  "2:20: CONST[256] is out of range" },
	{ "FRAG\nMOV TEMP[0], CONST[ADDR.x+256]\nEND\n",
	  "2:27: offset 256 is over 255" },
	{ "FRAG\nMOV TEMP[0], CONST[ADDR.x-1]\nEND\n",
	  "2:26: a negative offset cannot be encoded" },
	{ "FRAG\nMOV TEMP[0], TEMP[ADDR.x]\nEND\n",
	  "2:19: only CONST is indexed by ADDR.x" },
	{ "FRAG\nMOV TEMP[0], CONST[ADDR.y]\nEND\n", "2:25: expected ADDR.x" },
	{ "FRAG\nMOV TEMP[0], ADDR.x\nEND\n",
	  "2:14: ADDR is read only as CONST[ADDR.x+n]" },
	{ "FRAG\nMOV TEMP[0], OUT[0]\nEND\n", "2:14: OUT cannot be read" },
	{ "FRAG\nMOV IN[0], TEMP[0]\nEND\n", "2:5: IN cannot be written" },
	{ "FRAG\nMOV CONST[0], TEMP[0]\nEND\n", "2:5: CONST cannot be written" },
	{ "FRAG\nMOV IMM[0], TEMP[0]\nEND\n", "2:5: IMM cannot be written" },
	{ "FRAG\nMOV ADDR.x, TEMP[0]\nEND\n", "2:5: only ARL writes ADDR" },
	{ "FRAG\nARL TEMP[0].x, TEMP[0]\nEND\n",
	  "2:5: ARL's destination must be ADDR.x" },
	{ "FRAG\nARL ADDR, TEMP[0]\nEND\n",
	  "2:5: ARL's destination must be ADDR.x" },
	{ "FRAG\nARL ADDR[1].x, TEMP[0]\nEND\n",
	  "2:10: ADDR has one register, ADDR[0]" },
	{ "FRAG\nARL_SAT ADDR.x, TEMP[0]\nEND\n", "2:1: ARL cannot saturate" },
	{ "FRAG\nEND_SAT\n", "2:1: END has no destination to saturate" },
	{ "FRAG\nMOV TEMP[0], foo[0]\nEND\n", "2:14: expected a register" },
	/* operands */
	{ "FRAG\nADD TEMP[0], IN[0]\nEND\n", "2:19: expected ',' and a source" },
	{ "FRAG\nMOV TEMP[0], IN[0], IN[1]\nEND\n",
	  "2:19: expected the end of the line" },
	{ "FRAG\nNOP TEMP[0]\nEND\n", "2:5: expected the end of the line" },
	{ "FRAG\nMOV TEMP[0].xy, IN[0].xy\nEND\n",
	  "2:23: a swizzle is 1 or 4 of x, y, z, w" },
	{ "FRAG\nMOV TEMP[0].xy, IN[0].xyzq\nEND\n",
	  "2:26: a swizzle is 1 or 4 of x, y, z, w" },
	{ "FRAG\nMOV TEMP[0].yx, IN[0]\nEND\n",
	  "2:14: a write mask is x, y, z, w in order, or _" },
	{ "FRAG\nMOV TEMP[0].xx, IN[0]\nEND\n",
	  "2:14: a write mask is x, y, z, w in order, or _" },
	{ "FRAG\nMOV TEMP[0], |-IN[0]|\nEND\n",
	  "2:15: negate goes outside |...|: -|x|" },
	{ "FRAG\nMOV TEMP[0], |IN[0]\nEND\n", "2:20: expected '|'" },
	{ "FRAG\nTEX TEMP[0], IN[0]\nEND\n", "2:19: expected ',' and UNIT[n]" },
	{ "FRAG\nTEX TEMP[0], IN[0], UNIT[8]\nEND\n",
	  "2:26: texture unit 8: 0 to 7" },
	{ "FRAG\nTEX TEMP[0], IN[0], UNIT[0], 3D\nEND\n",
	  "2:30: expected 2D or CUBE" },
	/* stage */
	{ "VERT\nKILL\nEND\n", "2:1: KILL is invalid in a vertex program" },
	{ "VERT\nKILL_IF IN[0]\nEND\n",
	  "2:1: KILL_IF is invalid in a vertex program" },
	/* control flow */
	{ "FRAG\nIF TEMP[0].x\nEND\n",
	  "3:1: END inside an IF (IF without ENDIF) (innermost block opened at 2:1)" },
	{ "FRAG\nBGNLOOP\nEND\n",
	  "3:1: END inside a loop (BGNLOOP without ENDLOOP) (innermost block opened at 2:1)" },
	{ "FRAG\nENDIF\nEND\n",
	  "2:1: ENDIF does not close an IF (the innermost block)" },
	{ "FRAG\nENDLOOP\nEND\n",
	  "2:1: ENDLOOP does not close a BGNLOOP (the innermost block)" },
	{ "FRAG\nELSE\nEND\n", "2:1: ELSE outside an IF (the innermost block)" },
	{ "FRAG\nIF IN[0]\nBGNLOOP\nENDIF\nEND\n",
	  "4:1: ENDIF does not close an IF (the innermost block) (innermost block opened at 3:1)" },
	{ "FRAG\nBGNLOOP\nIF IN[0]\nENDLOOP\nEND\n",
	  "4:1: ENDLOOP does not close a BGNLOOP (the innermost block) (innermost block opened at 3:1)" },
	{ "FRAG\nIF IN[0]\nBGNLOOP\nELSE\nEND\n",
	  "4:1: ELSE outside an IF (the innermost block)" },
	{ "FRAG\nIF IN[0]\nELSE\n  ELSE\nENDIF\nEND\n",
	  "4:3: a second ELSE for one IF" },
	{ "FRAG\nBRK\nEND\n", "2:1: BRK outside a loop" },
	{ "FRAG\nIF IN[0]\nCONT\nENDIF\nEND\n", "3:1: CONT outside a loop" },
	{ "FRAG\nBGNLOOP\nENDLOOP\nBRK\nEND\n", "4:1: BRK outside a loop" },
	{ "FRAG\nEND\nMOV TEMP[0], IN[0]\n",
	  "3:1: MOV after END: END must be the last instruction" },
	{ "FRAG\nEND\nEND\n", "3:1: END after END" },
	/* immediates */
	{ "FRAG\nMOV TEMP[0], IMM[1]\nEND\nIMM[0] = { 1, 2, 3, 4 }\n",
	  "2:14: IMM[1] is not declared" },
	{ "FRAG\nEND\nIMM[1] = { 1, 2, 3, 4 }\n",
	  "3:1: IMM[0] is not declared (IMM[1] is)" },
	{ "FRAG\nEND\nIMM[256] = { 1, 2, 3, 4 }\n",
	  "3:5: IMM[256]: at most 256 immediates" },
	{ "FRAG\nMOV TEMP[0], IMM[256]\nEND\n",
	  "2:18: IMM[256]: at most 256 immediates" },
	{ "FRAG\nEND\nIMM[0] = { 1, 2, 3, 4 }\nIMM[0] = { 1, 2, 3, 4 }\n",
	  "4:5: IMM[0] is declared twice (first at 3:1)" },
	{ "FRAG\nEND\nIMM[0] = { 1, 2, 3 }\n",
	  "3:20: expected ',' and four values" },
	{ "FRAG\nEND\nIMM[0] = { 1, 2, 3, 4, 5 }\n",
	  "3:22: expected '}' after four values" },
	{ "FRAG\nEND\nIMM[0] = { 1e39, 2, 3, 4 }\n",
	  "3:12: 1e39 is out of binary32's range" },
	{ "FRAG\nEND\nIMM[0] = { 0x123456789, 2, 3, 4 }\n",
	  "3:12: raw bits have at most 8 hex digits" },
	{ "FRAG\nEND\nIMM[0] = { -0x1, 2, 3, 4 }\n",
	  "3:12: raw bits 0x... take no sign" },
	{ "FRAG\nEND\nIMM[0] = { 1.5x, 2, 3, 4 }\n", "3:15: expected ',' or '}'" },
	{ "FRAG\nEND\nIMM[0] = { abc, 2, 3, 4 }\n", "3:12: expected a number" },
};

static void assert_asm_error(const char *text, const char *want)
{
	char msg[256] = "";
	uint32_t *prog = (uint32_t *)1, size = 1;
	int ret = vdxg_asm(text, &prog, &size, msg, sizeof(msg));

	vtest_assert_f(ret == -EINVAL, "vdxg_asm returned %d for\n%s", ret,
		       text);
	vtest_assert(!prog && !size);
	vtest_assert_f(!strncmp(msg, want, strlen(want)),
		       "message \"%s\", want \"%s...\" for\n%s", msg, want,
		       text);
}

static void test_asm_errors(void)
{
	uint32_t i;

	for (i = 0; i < sizeof(asm_errors) / sizeof(asm_errors[0]); i++)
		assert_asm_error(asm_errors[i].text, asm_errors[i].want);
}

/* A program of PROLOGUE, N copies of LINE, EPILOGUE. */
static char *repeat(const char *prologue, const char *line, uint32_t n,
		    const char *epilogue)
{
	size_t len = strlen(prologue) + n * strlen(line) + strlen(epilogue);
	char *s = malloc(len + 1), *p = s;
	uint32_t i;

	vtest_assert(s);
	p += sprintf(p, "%s", prologue);
	for (i = 0; i < n; i++)
		p += sprintf(p, "%s", line);
	sprintf(p, "%s", epilogue);
	return s;
}

static void test_asm_limits(void)
{
	uint32_t size, *prog, i;
	char *text, *p, *q;

	/* 4096 instructions assemble; 4097 do not, at the 4097th. */
	text = repeat("FRAG\n", "NOP\n", VDXG_3D_MAX_INSTRUCTIONS - 1, "END\n");
	prog = assemble(text, &size);
	vtest_assert_eq(prog[2], VDXG_3D_MAX_INSTRUCTIONS);
	free(prog);
	free(text);
	text = repeat("FRAG\n", "NOP\n", VDXG_3D_MAX_INSTRUCTIONS, "END\n");
	assert_asm_error(text, "4098:1: more than 4096 instructions");
	free(text);

	/* 32 nested blocks assemble; a 33rd does not. */
	p = repeat("FRAG\n", "BGNLOOP\n", 16, "");
	text = repeat(p, "IF IN[0]\n", 16, "");	/* 32 open */
	free(p);
	p = repeat(text, "ENDIF\n", 16, "");
	q = repeat(p, "ENDLOOP\n", 16, "END\n");
	free(p);
	prog = assemble(q, &size);
	free(prog);
	free(q);
	p = repeat(text, "BGNLOOP\n", 1, "");
	assert_asm_error(p, "34:1: more than 32 nested IF and BGNLOOP (innermost block opened at 33:1)");
	free(p);
	free(text);

	/* 256 immediates assemble, the last used. */
	text = malloc(256 * 40 + 64);
	vtest_assert(text);
	p = text + sprintf(text, "VERT\nMOV OUT[0], IMM[255]\nEND\n");
	for (i = 0; i < VDXG_3D_MAX_IMMEDIATES; i++)
		p += sprintf(p, "IMM[%u] = { %u, 0, 0, 0 }\n",
			     VDXG_3D_MAX_IMMEDIATES - 1 - i, i);
	prog = assemble(text, &size);
	vtest_assert_eq(size, 16 * (1 + 2 + 256));
	vtest_assert_eq(prog[3], 256);
	vtest_assert_eq(prog[4 * 3], vdxg_f32_bits(255.0f));	/* IMM[0] */
	vtest_assert_eq(prog[4 * (3 + 255)], 0);		/* IMM[255] */
	round_trip(prog, size);
	free(prog);
	free(text);
}

/* ---------------------------------------------------------- the checker */

/* FRAG: MOV TEMP[0], IMM[0]; IF; BGNLOOP; BRK; ENDLOOP; ENDIF; END; IMM */
static const char base_text[] =
	"FRAG\nMOV TEMP[0], IMM[0]\nIF TEMP[0].x\nBGNLOOP\nBRK\nENDLOOP\n"
	"ENDIF\nEND\nIMM[0] = { 1, 2, 3, 4 }\n";

static void assert_check(const uint32_t *prog, uint32_t size, int want_ret,
			 uint32_t want_off, const char *want_msg)
{
	char msg[256] = "";
	uint32_t off = 0xdead;
	int ret = vdxg_program_check(prog, size, &off, msg, sizeof(msg));

	vtest_assert_f(ret == want_ret, "check returned %d (%s), want %d",
		       ret, msg, want_ret);
	if (want_ret == -EINVAL)
		vtest_assert_f(off == want_off, "fault at 0x%x (%s), want 0x%x",
			       off, msg, want_off);
	vtest_assert_f(!strncmp(msg, want_msg, strlen(want_msg)),
		       "message \"%s\", want \"%s...\"", msg, want_msg);
}

static void test_check(void)
{
	static const struct {
		uint32_t dw;		/* program dword to change */
		uint32_t value;
		uint32_t off;		/* the fault's byte offset */
		const char *msg;
	} cases[] = {
		{ 0, 0x50485357, 0x00, "byte 0x0 (header dword 0): magic 0x50485357" },
		{ 1, 2, 0x04, "byte 0x4 (header dword 1): stage 0x2 is not 0 or 1" },
		{ 1, 0x101, 0x04, "byte 0x4 (header dword 1): stage 0x101" },
		{ 2, 0, 0x08, "byte 0x8 (header dword 2): 0 instructions: 1 to 4096" },
		{ 2, 4097, 0x08, "byte 0x8 (header dword 2): 4097 instructions" },
		{ 3, 257, 0x0c, "byte 0xc (header dword 3): 257 immediates" },
		{ 2, 8, 0x0c, "byte 0xc (header dword 3): the program spans 160 bytes, over the size 144" },
		/* instruction 0: MOV TEMP[0], IMM[0] */
		{ 4, 0x32, 0x10, "byte 0x10 (instruction 0): opcode 0x32 is invalid" },
		{ 4, 0xff, 0x10, "byte 0x10 (instruction 0): opcode 0xff is invalid" },
		{ 4, 0x1000f001, 0x10, "byte 0x10 (instruction 0): dword 0 bits 31:28" },
		{ 4, 0x0000f101, 0x10, "byte 0x10 (instruction 0): IN cannot be a destination" },
		{ 4, 0x0000f501, 0x10, "byte 0x10 (instruction 0): ADDR cannot be a destination" },
		{ 4, 0x0001f201, 0x10, "byte 0x10 (instruction 0): OUT[1] is out of range: a fragment program has 1" },
		{ 4, 0x0080f001, 0x10, "byte 0x10 (instruction 0): TEMP[128] is out of range" },
		{ 4, 0x0100f001, 0x10, "byte 0x10 (instruction 0): texture unit and CUBE must be zero in MOV" },
		{ 4, 0x0800f001, 0x10, "byte 0x10 (instruction 0): texture unit and CUBE must be zero in MOV" },
		{ 5, 0x00472004, 0x10, "byte 0x10 (instruction 0): source 0: bits 31:22" },
		{ 5, 0x00072002, 0x10, "byte 0x10 (instruction 0): source 0: OUT cannot be read" },
		{ 5, 0x00072005, 0x10, "byte 0x10 (instruction 0): source 0: ADDR cannot be read" },
		{ 5, 0x00072006, 0x10, "byte 0x10 (instruction 0): source 0: file 6 cannot be read" },
		{ 5, 0x00272000, 0x10, "byte 0x10 (instruction 0): source 0: RELATIVE on TEMP" },
		{ 5, 0x0007200c, 0x10, "byte 0x10 (instruction 0): source 0: IMM[1] is out of range: a fragment program has 1" },
		{ 5, 0x00072059, 0x10, "byte 0x10 (instruction 0): source 0: IN[11] is out of range" },
		{ 6, 0x00000001, 0x10, "byte 0x10 (instruction 0): source 1 is unused by MOV" },
		{ 7, 0x80000000, 0x10, "byte 0x10 (instruction 0): source 2 is unused by MOV" },
		/* instruction 1: IF */
		{ 8, 0x0000f02a, 0x20, "byte 0x20 (instruction 1): IF has no destination: dword 0 bits 27:8 must be zero" },
		{ 8, 0x0800002a, 0x20, "byte 0x20 (instruction 1): IF has no destination" },
		{ 9, 0x00000201, 0x20, "byte 0x20 (instruction 1): source 0: IN[64]" },
		{ 8, VDXG_OP_KILL, 0x60, "byte 0x60 (instruction 5): ENDIF does not close" },
		{ 8, VDXG_OP_ENDIF, 0x20, "byte 0x20 (instruction 1): ENDIF does not close" },
		{ 4, VDXG_OP_BRK, 0x10, "byte 0x10 (instruction 0): source 0 is unused by BRK" },
		{ 4, VDXG_OP_KILL, 0x10, "byte 0x10 (instruction 0): source 0 is unused by KILL" },
		/* instruction 2: BGNLOOP */
		{ 12, VDXG_OP_ENDIF, 0x40, "byte 0x40 (instruction 3): BRK outside a loop" },
		{ 12, VDXG_OP_ELSE, 0x40, "byte 0x40 (instruction 3): BRK outside a loop" },
		{ 12, VDXG_OP_END, 0x30, "byte 0x30 (instruction 2): END before the last instruction" },
		{ 12, VDXG_OP_IF, 0x40, "byte 0x40 (instruction 3): BRK outside a loop" },
		/* instruction 3: BRK */
		{ 16, VDXG_OP_CONT, 0, NULL },
		{ 16, VDXG_OP_KILL, 0, NULL },
		{ 16, VDXG_OP_NOP, 0, NULL },
		{ 16, VDXG_OP_ELSE, 0x40, "byte 0x40 (instruction 3): ELSE outside an IF" },
		/* instruction 4: ENDLOOP */
		{ 20, VDXG_OP_ENDIF, 0x50, "byte 0x50 (instruction 4): ENDIF does not close" },
		{ 20, VDXG_OP_NOP, 0x60, "byte 0x60 (instruction 5): ENDIF does not close" },
		/* instruction 5: ENDIF */
		{ 24, VDXG_OP_ELSE, 0x70, "byte 0x70 (instruction 6): END inside an IF" },
		{ 24, VDXG_OP_ENDLOOP, 0x60, "byte 0x60 (instruction 5): ENDLOOP does not close" },
		/* instruction 6: END */
		{ 28, VDXG_OP_NOP, 0x70, "byte 0x70 (instruction 6): the last instruction is not END" },
		{ 28, VDXG_OP_END | 0x800, 0x70, "byte 0x70 (instruction 6): END has no destination" },
	};
	uint32_t size, *base = assemble(base_text, &size), *p, i;

	vtest_assert_eq(size, 16 * 9);
	assert_check(base, size, 0, 0, "");
	/* Trailing bytes beyond the program are allowed. */
	assert_check(base, size + 4, 0, 0, "");
	assert_check(base, size - 1, -EINVAL, 12, "byte 0xc (header dword 3): the program spans 144 bytes, over the size 143");
	assert_check(base, 15, -ERANGE, 0, "size 15 is not 16 to 69648 bytes");
	assert_check(base, VDXG_3D_PROGRAM_MAX_BYTES + 1, -ERANGE, 0, "size 69649");
	p = malloc(size + 16);
	vtest_assert(p);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(p, base, size);
		p[cases[i].dw] = cases[i].value;
		vtest_info("case %u: dword %u = 0x%08x\n", i, cases[i].dw,
			   cases[i].value);
		if (cases[i].msg)
			assert_check(p, size, -EINVAL, cases[i].off,
				     cases[i].msg);
		else
			assert_check(p, size, 0, 0, "");
	}
	/* The first failure counts: two bad instructions fault at the first. */
	memcpy(p, base, size);
	p[12] = 0x40;
	p[8] = 0x41;
	assert_check(p, size, -EINVAL, 0x20, "byte 0x20 (instruction 1): opcode 0x41");
	/* A bad header dword before a bad instruction. */
	p[3] = 300;
	assert_check(p, size, -EINVAL, 0x0c, "byte 0xc (header dword 3): 300 immediates");
	/* KILL in a vertex program; ARL's saturate and mask. */
	memcpy(p, base, size);
	p[1] = VDXG_3D_STAGE_VERTEX;
	p[16] = VDXG_OP_KILL;
	assert_check(p, size, -EINVAL, 0x40, "byte 0x40 (instruction 3): KILL is invalid in a vertex program");
	memcpy(p, base, size);
	p[4] = 0x1521 | VDXG_INSN_SAT;
	assert_check(p, size, -EINVAL, 0x10, "byte 0x10 (instruction 0): ARL cannot saturate");
	p[4] = 0x3521;
	assert_check(p, size, -EINVAL, 0x10, "byte 0x10 (instruction 0): ARL's destination must be ADDR.x");
	p[4] = 0x11521;
	assert_check(p, size, -EINVAL, 0x10, "byte 0x10 (instruction 0): ARL's destination must be ADDR.x");
	p[4] = 0x1021;
	assert_check(p, size, -EINVAL, 0x10, "byte 0x10 (instruction 0): ARL's destination must be ADDR.x");
	p[4] = 0x1521;
	assert_check(p, size, 0, 0, "");
	/* A texture opcode takes a unit and CUBE. */
	p[4] = 0x0f00f024;
	assert_check(p, size, 0, 0, "");
	free(p);
	free(base);
}

static void test_check_nesting(void)
{
	uint32_t n = 2 * 33 + 1, size = 16 * (1 + n), *p = calloc(size, 1), i;

	vtest_assert(p);
	p[0] = VDXG_3D_PROGRAM_MAGIC;
	p[1] = VDXG_3D_STAGE_FRAGMENT;
	p[2] = n;
	for (i = 0; i < 33; i++) {
		p[4 * (1 + i)] = VDXG_OP_BGNLOOP;
		p[4 * (1 + n - 2 - i)] = VDXG_OP_ENDLOOP;
	}
	p[4 * n] = VDXG_OP_END;
	/* The 33rd BGNLOOP, instruction 32, opens a 33rd level. */
	assert_check(p, size, -EINVAL, 16 + 16 * 32,
		     "byte 0x210 (instruction 32): more than 32 nested IF and BGNLOOP");
	/* 32 levels are fine: make the 33rd pair NOPs. */
	p[4 * (1 + 32)] = VDXG_OP_NOP;
	p[4 * (1 + n - 2 - 32)] = VDXG_OP_NOP;
	assert_check(p, size, 0, 0, "");
	/* BRK in the innermost of 32 loops. */
	p[4 * (1 + 32)] = VDXG_OP_BRK;
	assert_check(p, size, 0, 0, "");
	free(p);
}

static void test_disasm_invalid(void)
{
	uint32_t size, *p = assemble(base_text, &size);
	char msg[256] = "", *text = (char *)1;
	uint32_t off;

	/* A bad instruction is listed with its dwords and what is wrong. */
	p[8] = 0x32;
	vtest_assert_eq(vdxg_disasm(p, size, &text, msg, sizeof(msg)), -EINVAL);
	vtest_assert_str_eq(msg, "byte 0x20 (instruction 1): opcode 0x32 is invalid");
	vtest_assert(text);
	vtest_assert_f(strstr(text, "\n# invalid: 0x00000032 0x00000000 0x00000000 0x00000000: opcode 0x32 is invalid\n"),
		       "listing:\n%s", text);
	vtest_assert(strstr(text, "MOV TEMP[0], IMM[0]\n"));
	free(text);
	/* A control-flow error lists every instruction and says where. */
	p[8] = VDXG_OP_NOP;
	p[9] = 0;
	vtest_assert_eq(vdxg_disasm(p, size, &text, msg, sizeof(msg)), -EINVAL);
	vtest_assert_str_eq(msg, "byte 0x60 (instruction 5): ENDIF does not close an IF (the innermost block)");
	vtest_assert(text && strstr(text, "ENDIF\n"));
	free(text);
	/* No listing without a header. */
	p[0] = 0;
	text = (char *)1;
	vtest_assert_eq(vdxg_disasm(p, size, &text, msg, sizeof(msg)), -EINVAL);
	vtest_assert(!text);
	vtest_assert_str_eq(msg, "byte 0x0 (header dword 0): magic 0x00000000 is not 0x50485356");
	vtest_assert_eq(vdxg_disasm(p, 8, &text, msg, sizeof(msg)), -ERANGE);
	vtest_assert(!text);
	vtest_assert_eq(vdxg_program_check(p, size, &off, NULL, 0), -EINVAL);
	vtest_assert_eq(off, 0);
	free(p);
}

static void test_floats(void)
{
	/* Printed floats read back to the same bits; NaNs and denormals raw. */
	static const struct {
		uint32_t bits;
		const char *text;
	} cases[] = {
		{ 0x3f800000, "1" }, { 0xbf000000, "-0.5" },
		{ 0x3dcccccd, "0.1" }, { 0x80000000, "-0" },
		{ 0x00000000, "0" }, { 0x7f800000, "inf" },
		{ 0xff800000, "-inf" }, { 0x7fc00000, "0x7fc00000" },
		{ 0xffffffff, "0xffffffff" }, { 0x00000001, "0x00000001" },
		{ 0x807fffff, "0x807fffff" }, { 0x00800000, "1.1754944e-38" },
		{ 0x7f7fffff, "3.4028235e+38" }, { 0x4b800000, "16777216" },
		{ 0x3eaaaaab, "0.33333334" }, { 0x40490fdb, "3.1415927" },
	};
	uint32_t i, size, *p;
	char text[128], want[128], *out;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "VERT\nEND\nIMM[0] = { %s, 0, 0, 0 }\n",
			 cases[i].text);
		p = assemble(text, &size);
		vtest_assert_f(p[8] == cases[i].bits, "%s is 0x%08x, want 0x%08x",
			       cases[i].text, p[8], cases[i].bits);
		vtest_assert_eq(vdxg_disasm(p, size, &out, NULL, 0), 0);
		snprintf(want, sizeof(want), "VERT\nIMM[0] = { %s, 0, 0, 0 }\nEND\n",
			 cases[i].text);
		vtest_assert_str_eq(out, want);
		free(out);
		free(p);
	}
	/* Every exponent, and a sweep of mantissas, survive a round trip. */
	for (i = 0; i < 0x10000; i++) {
		uint32_t bits = i << 16 | (i * 0x9e37u & 0xffff), j;

		snprintf(text, sizeof(text), "VERT\nEND\nIMM[0] = { 0x%08x, 0, 0, 0 }\n",
			 bits);
		p = assemble(text, &size);
		vtest_assert_eq(vdxg_disasm(p, size, &out, NULL, 0), 0);
		free(p);
		p = assemble(out, &size);
		vtest_assert_f(p[8] == bits, "0x%08x listed as %s", bits, out);
		for (j = 0; out[j]; j++)
			vtest_assert(out[j] != ',' || strchr(", ", out[j + 1]));
		free(out);
		free(p);
	}
}

/* A caller's LC_NUMERIC does not change the text; its locale is kept. */
static void test_locale(void)
{
	static const char *const names[] = {
		"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8",
		"ru_RU.UTF-8",
	};
	static const char text[] = "VERT\nIMM[0] = { 0.5, -1.25, 1e-05, 3 }\nEND\n";
	locale_t comma = (locale_t)0, before;
	uint32_t size, *p, i;
	char *out = NULL;

	for (i = 0; i < sizeof(names) / sizeof(names[0]) && !comma; i++)
		comma = newlocale(LC_NUMERIC_MASK, names[i], (locale_t)0);
	if (comma)
		uselocale(comma);
	else
		vtest_info("no decimal-comma locale here: the C locale only\n");
	before = uselocale((locale_t)0);
	p = assemble(text, &size);
	vtest_assert(uselocale((locale_t)0) == before);
	vtest_assert_eq(p[8], 0x3f000000);
	vtest_assert_eq(p[9], 0xbfa00000);
	vtest_assert_eq(p[11], 0x40400000);
	vtest_assert_eq(vdxg_disasm(p, size, &out, NULL, 0), 0);
	vtest_assert(uselocale((locale_t)0) == before);
	vtest_assert_str_eq(out, text);
	free(out);
	free(p);
	uselocale(LC_GLOBAL_LOCALE);
	if (comma)
		freelocale(comma);
}

#define THREADS		4
#define THREAD_ROUNDS	200

static const char thread_text[] =
	"FRAG\nIMM[0] = { 0.5, -1.25, 1e-05, 3 }\nMOV OUT[0], IMM[0]\nEND\n";

/*
 * Round trips of thread_text in a locale of the thread's own: how many
 * came back as written with the thread's locale in place after them.
 */
static void *thread_round_trips(void *arg)
{
	locale_t mine = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	uintptr_t same = 0;
	uint32_t size, *p, i;
	char *out;

	(void)arg;
	if (!mine)
		return (void *)same;
	uselocale(mine);
	for (i = 0; i < THREAD_ROUNDS; i++) {
		out = NULL;
		p = NULL;
		if (!vdxg_asm(thread_text, &p, &size, NULL, 0) &&
		    uselocale((locale_t)0) == mine &&
		    !vdxg_disasm(p, size, &out, NULL, 0) &&
		    uselocale((locale_t)0) == mine &&
		    !strcmp(out, thread_text))
			same++;
		free(out);
		free(p);
	}
	uselocale(LC_GLOBAL_LOCALE);
	freelocale(mine);
	return (void *)same;
}

static void test_threads(void)
{
	pthread_t t[THREADS];
	void *same;
	int i;

	for (i = 0; i < THREADS; i++)
		vtest_assert_eq(pthread_create(&t[i], NULL, thread_round_trips,
					       NULL), 0);
	for (i = 0; i < THREADS; i++) {
		vtest_assert_eq(pthread_join(t[i], &same), 0);
		vtest_assert_eq((uintptr_t)same, THREAD_ROUNDS);
	}
	vtest_assert(uselocale((locale_t)0) == LC_GLOBAL_LOCALE);
}

static const struct vtest_subtest tests[] = {
	{ "encode", test_encode, "instructions against dwords from the bit layout" },
	{ "syntax", test_syntax, "spellings: case, spacing, comments, aliases, defaults" },
	{ "corpus", test_corpus, "every opcode, file, modifier, control flow: listed as written" },
	{ "random", test_random, "random valid programs round-trip to the same bytes" },
	{ "asm-errors", test_asm_errors, "each assembler error with its line and column" },
	{ "asm-limits", test_asm_limits, "4096 instructions, 32 levels, 256 immediates" },
	{ "check", test_check, "SET_SHADER's checks and the byte offset they fault at" },
	{ "check-nesting", test_check_nesting, "33 levels fault at the 33rd opener" },
	{ "disasm-invalid", test_disasm_invalid, "bad encodings listed and reported" },
	{ "floats", test_floats, "immediates print as text that reads back exactly" },
	{ "locale", test_locale, "floats in the C form whatever LC_NUMERIC" },
	{ "threads", test_threads, "threads assemble and list at once, each keeps its own locale" },
};

VTEST_MAIN(tests)
