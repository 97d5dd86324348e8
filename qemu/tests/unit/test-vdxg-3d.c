/*
 * Unit tests of the vdxg 3D pipeline's pure parts: the shader decoder,
 * checks and interpreter (hw/display/vdxg/vdxg_shader.c), textures
 * (hw/display/vdxg/vdxg_texture.c) and the rasterizer
 * (hw/display/vdxg/vdxg_raster3d.c). Expected values are bits written
 * down from the algorithms of docs/hardware.md, computed by hand or by
 * a separate program of the same algorithm.
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include <math.h>
#include "qemu/bswap.h"
#include "hw/display/vdxg/vdxg_shader.h"
#include "hw/display/vdxg/vdxg_texture.h"
#include "hw/display/vdxg/vdxg_raster3d.h"

#define XYZW        VDXG_SWIZZLE_XYZW
#define XXXX        VDXG_SWIZZLE(0, 0, 0, 0)
#define YYYY        VDXG_SWIZZLE(1, 1, 1, 1)
#define WZYX        VDXG_SWIZZLE(3, 2, 1, 0)
#define T(i)        VDXG_SRC(VDXG_FILE_TEMP, i, XYZW)
#define IN(i)       VDXG_SRC(VDXG_FILE_INPUT, i, XYZW)
#define C(i)        VDXG_SRC(VDXG_FILE_CONST, i, XYZW)
#define IMM(i)      VDXG_SRC(VDXG_FILE_IMM, i, XYZW)
#define IMMS(i, s)  VDXG_SRC(VDXG_FILE_IMM, i, s)
#define TS(i, s)    VDXG_SRC(VDXG_FILE_TEMP, i, s)
#define DT(op, i)   VDXG_INSN(op, VDXG_FILE_TEMP, i, 0xf)
#define DO(op, i)   VDXG_INSN(op, VDXG_FILE_OUTPUT, i, 0xf)
#define OP(op)      ((uint32_t)(op))
#define END         { { OP(VDXG_OP_END), 0, 0, 0 } }

typedef struct Insn {
    uint32_t dw[4];
} Insn;

static uint32_t f2u(float f)
{
    uint32_t u;

    memcpy(&u, &f, 4);
    return u;
}

static float u2f(uint32_t u)
{
    float f;

    memcpy(&f, &u, 4);
    return f;
}

/* A program's bytes: header, instructions, immediates */
static uint8_t *prog_bytes(uint32_t stage, const Insn *in, uint32_t n,
                           const float (*imm)[4], uint32_t m, uint32_t *len)
{
    uint8_t *b;
    uint32_t i, j;

    *len = 16 * (1 + n + m);
    b = g_malloc0(*len);
    stl_le_p(b, VDXG_3D_PROGRAM_MAGIC);
    stl_le_p(b + 4, stage);
    stl_le_p(b + 8, n);
    stl_le_p(b + 12, m);
    for (i = 0; i < n; i++) {
        for (j = 0; j < 4; j++) {
            stl_le_p(b + 16 + i * 16 + j * 4, in[i].dw[j]);
        }
    }
    for (i = 0; i < m; i++) {
        for (j = 0; j < 4; j++) {
            stl_le_p(b + 16 + (n + i) * 16 + j * 4, f2u(imm[i][j]));
        }
    }
    return b;
}

/* Decode; the offset of the fault, or -1 */
static int64_t decode(VdxgProgram *p, uint32_t stage, const Insn *in,
                      uint32_t n, const float (*imm)[4], uint32_t m)
{
    uint32_t len;
    g_autofree uint8_t *b = prog_bytes(stage, in, n, imm, m, &len);

    return vdxg_program_decode(p, stage, b, len);
}

static VdxgProgram prog;
static float consts[VDXG_3D_NUM_CONSTS][4];
static VdxgShRun run;

static void load(uint32_t stage, const Insn *in, uint32_t n,
                 const float (*imm)[4], uint32_t m)
{
    vdxg_program_free(&prog);
    g_assert_cmpint(decode(&prog, stage, in, n, imm, m), ==, -1);
    memset(&run, 0, sizeof(run));
    run.p = &prog;
    run.consts = consts;
    run.nconsts = VDXG_3D_NUM_CONSTS;
    run.nlanes = stage == VDXG_3D_STAGE_VERTEX ? 1 : 4;
    run.live = BIT(run.nlanes) - 1;
}

static VdxgShResult go(uint32_t *pc)
{
    uint32_t dummy;

    return vdxg_shader_run(&run, pc ? pc : &dummy);
}

static void assert_out(unsigned int lane, unsigned int o, uint32_t x,
                       uint32_t y, uint32_t z, uint32_t w)
{
    const float *v = run.lane[lane].out[o];

    g_assert_cmphex(f2u(v[0]), ==, x);
    g_assert_cmphex(f2u(v[1]), ==, y);
    g_assert_cmphex(f2u(v[2]), ==, z);
    g_assert_cmphex(f2u(v[3]), ==, w);
}

/* OUT[0] = op(IMM[0], IMM[1], IMM[2]) in a vertex program */
static void vs_op(uint32_t op, uint32_t nsrc, const float (*imm)[4])
{
    Insn in[2] = {
        { { DO(op, 0), IMM(0), nsrc > 1 ? IMM(1) : 0,
            nsrc > 2 ? IMM(2) : 0 } },
        END,
    };

    load(VDXG_3D_STAGE_VERTEX, in, 2, imm, 3);
    g_assert_cmpint(go(NULL), ==, VDXG_SH_OK);
}

#define ONE     0x3f800000
#define ZERO    0x00000000
#define QNAN    0x7fc00000

static void test_arith(void)
{
    const float a[3][4] = {
        { 1.5f, -2.0f, 0.25f, 3.0f },
        { 0.5f, 4.0f, -0.25f, 3.0f },
        { 10.0f, 0.0f, 1.0f, -1.0f },
    };
    const float nan_in[3][4] = {
        { NAN, -0.0f, 0.0f, INFINITY },
        { 1.0f, 0.0f, -0.0f, INFINITY },
        { 0, 0, 0, 0 },
    };

    vs_op(VDXG_OP_MOV, 1, a);
    assert_out(0, 0, 0x3fc00000, 0xc0000000, 0x3e800000, 0x40400000);
    vs_op(VDXG_OP_ADD, 2, a);       /* 2, 2, 0, 6 */
    assert_out(0, 0, 0x40000000, 0x40000000, ZERO, 0x40c00000);
    vs_op(VDXG_OP_MUL, 2, a);       /* 0.75, -8, -0.0625, 9 */
    assert_out(0, 0, 0x3f400000, 0xc1000000, 0xbd800000, 0x41100000);
    vs_op(VDXG_OP_MAD, 3, a);       /* 10.75, -8, 0.9375, 8 */
    assert_out(0, 0, 0x412c0000, 0xc1000000, 0x3f700000, 0x41000000);
    vs_op(VDXG_OP_DP2, 2, a);       /* 0.75 - 8 = -7.25 */
    assert_out(0, 0, 0xc0e80000, 0xc0e80000, 0xc0e80000, 0xc0e80000);
    vs_op(VDXG_OP_DP3, 2, a);       /* -7.3125 */
    assert_out(0, 0, 0xc0ea0000, 0xc0ea0000, 0xc0ea0000, 0xc0ea0000);
    vs_op(VDXG_OP_DP4, 2, a);       /* 1.6875 */
    assert_out(0, 0, 0x3fd80000, 0x3fd80000, 0x3fd80000, 0x3fd80000);
    vs_op(VDXG_OP_MIN, 2, a);
    assert_out(0, 0, 0x3f000000, 0xc0000000, 0xbe800000, 0x40400000);
    vs_op(VDXG_OP_MAX, 2, a);
    assert_out(0, 0, 0x3fc00000, 0x40800000, 0x3e800000, 0x40400000);
    vs_op(VDXG_OP_SLT, 2, a);
    assert_out(0, 0, ZERO, ONE, ZERO, ZERO);
    vs_op(VDXG_OP_SGE, 2, a);
    assert_out(0, 0, ONE, ZERO, ONE, ONE);
    vs_op(VDXG_OP_SEQ, 2, a);
    assert_out(0, 0, ZERO, ZERO, ZERO, ONE);
    vs_op(VDXG_OP_SNE, 2, a);
    assert_out(0, 0, ONE, ONE, ONE, ZERO);
    vs_op(VDXG_OP_CMP, 3, a);       /* a < 0 ? b : c */
    assert_out(0, 0, 0x41200000, 0x40800000, ONE, 0xbf800000);
    /* LRP: (a * b) + ((1 - a) * c) = 0.75 - 5, -8 + 0, -0.0625 + 0.75 */
    vs_op(VDXG_OP_LRP, 3, a);
    assert_out(0, 0, 0xc0880000, 0xc1000000, 0x3f300000, 0x41300000);
    vs_op(VDXG_OP_FRC, 1, a);
    assert_out(0, 0, 0x3f000000, ZERO, 0x3e800000, ZERO);
    vs_op(VDXG_OP_FLR, 1, a);
    assert_out(0, 0, ONE, 0xc0000000, ZERO, 0x40400000);
    vs_op(VDXG_OP_CEIL, 1, a);
    assert_out(0, 0, 0x40000000, 0xc0000000, ONE, 0x40400000);
    vs_op(VDXG_OP_TRUNC, 1, a);
    assert_out(0, 0, ONE, 0xc0000000, ZERO, 0x40400000);
    vs_op(VDXG_OP_ROUND, 1, a);     /* 1.5 -> 2 (even) */
    assert_out(0, 0, 0x40000000, 0xc0000000, ZERO, 0x40400000);
    vs_op(VDXG_OP_SSG, 1, a);
    assert_out(0, 0, ONE, 0xbf800000, ONE, ONE);
    vs_op(VDXG_OP_RCP, 1, a);       /* 1 / 1.5 */
    assert_out(0, 0, 0x3f2aaaab, 0x3f2aaaab, 0x3f2aaaab, 0x3f2aaaab);
    vs_op(VDXG_OP_RSQ, 1, &a[1]);   /* 1 / sqrt(0.5) = 1 / 0x3f3504f3 */
    assert_out(0, 0, 0x3fb504f3, 0x3fb504f3, 0x3fb504f3, 0x3fb504f3);
    vs_op(VDXG_OP_SQRT, 1, &a[1]);
    assert_out(0, 0, 0x3f3504f3, 0x3f3504f3, 0x3f3504f3, 0x3f3504f3);
    vs_op(VDXG_OP_DIV, 2, a);       /* 3, -0.5, -1, 1 */
    assert_out(0, 0, 0x40400000, 0xbf000000, 0xbf800000, ONE);
    vs_op(VDXG_OP_LDEXP, 2, a);     /* 1.5 * 2^0, -2 * 2^4, 0.25 * 2^0, 24 */
    assert_out(0, 0, 0x3fc00000, 0xc2000000, 0x3e800000, 0x41c00000);

    /* NaN results are canonical; SNE is 1 for a NaN, min/max pick b */
    vs_op(VDXG_OP_ADD, 2, nan_in);  /* NaN, -0 + 0 = +0, 0, inf */
    assert_out(0, 0, QNAN, ZERO, ZERO, 0x7f800000);
    vs_op(VDXG_OP_SNE, 2, nan_in);
    assert_out(0, 0, ONE, ZERO, ZERO, ZERO);
    vs_op(VDXG_OP_MIN, 2, nan_in);
    assert_out(0, 0, ONE, ZERO, 0x80000000, 0x7f800000);
    vs_op(VDXG_OP_MUL, 2, nan_in);  /* NaN, -0, -0, inf */
    assert_out(0, 0, QNAN, 0x80000000, 0x80000000, 0x7f800000);
    vs_op(VDXG_OP_SSG, 1, nan_in);
    assert_out(0, 0, ZERO, ZERO, ZERO, ONE);
    vs_op(VDXG_OP_FRC, 1, nan_in);  /* inf - inf */
    assert_out(0, 0, QNAN, ZERO, ZERO, QNAN);
}

/* ex2, lg2, sin, cos, pow: bits from the algorithms of "Arithmetic" */
static void test_transcendental(void)
{
    static const struct {
        float x;
        uint32_t ex2;
    } e[] = {
        { 0.0f, 0x3f800000 }, { 1.0f, 0x40000000 }, { 0.5f, 0x3fb504f3 },
        { -1.5f, 0x3eb504f3 }, { 10.25f, 0x449837f0 },
        { 127.9f, 0x7f6edb51 }, { 128.0f, 0x7f800000 },
        { -126.0f, 0x00800000 }, { -126.5f, 0x00000000 },
        { 3.3f, 0x411d9624 },
    };
    static const struct {
        uint32_t x;
        uint32_t lg2;
    } l[] = {
        { 0x3f800000, 0x00000000 }, { 0x40000000, 0x3f800000 },
        { 0x3f400000, 0xbed47fcc }, { 0x41200000, 0x40549a78 },
        { 0x3fb504f3, 0x3efffffe }, { 0x3fc00000, 0x3f15c01a },
        { 0x00000001, 0xc3150000 }, { 0x3f800000 + 0, 0x00000000 },
        { 0x80000000, 0xff800000 }, { 0x00000000, 0xff800000 },
        { 0xbf800000, QNAN }, { 0x7f800000, 0x7f800000 },
    };
    static const struct {
        float x;
        uint32_t sin, cos;
    } s[] = {
        { 0.0f, 0x00000000, 0x3f800000 },
        { 1.0f, 0x3f576aa5, 0x3f0a5140 },
        { 3.14159265f, 0x00000000, 0xbf800000 },
        { -2.5f, 0xbf19357a, 0xbf4d17bf },
        { 100.0f, 0xbf01a14d, 0x3f5cc0aa },
        { 0.5f, 0x3ef57743, 0x3f60a940 },
    };
    unsigned int i;

    for (i = 0; i < ARRAY_SIZE(e); i++) {
        g_assert_cmphex(f2u(vdxg_ex2(e[i].x)), ==, e[i].ex2);
    }
    g_assert_true(isnan(vdxg_ex2(NAN)));
    for (i = 0; i < ARRAY_SIZE(l); i++) {
        float r = vdxg_lg2(u2f(l[i].x));

        if (l[i].lg2 == QNAN) {
            g_assert_true(isnan(r));
        } else {
            g_assert_cmphex(f2u(r), ==, l[i].lg2);
        }
    }
    for (i = 0; i < ARRAY_SIZE(s); i++) {
        g_assert_cmphex(f2u(vdxg_sin(s[i].x)), ==, s[i].sin);
        g_assert_cmphex(f2u(vdxg_cos(s[i].x)), ==, s[i].cos);
    }
    g_assert_true(isnan(vdxg_sin(INFINITY)));
    g_assert_true(isnan(vdxg_cos(NAN)));

    /* Through the opcodes: EX2, LG2, SIN, COS, POW (2^0.5, 3^2) */
    {
        const float a[3][4] = {
            { 0.5f, 7, 7, 7 }, { 2.0f, 7, 7, 7 }, { 3.0f, 2.0f, 0, 0 },
        };
        const float b[3][4] = {
            { 2.0f, 0, 0, 0 }, { 0.5f, 0, 0, 0 }, { 0, 0, 0, 0 },
        };

        vs_op(VDXG_OP_EX2, 1, a);
        assert_out(0, 0, 0x3fb504f3, 0x3fb504f3, 0x3fb504f3, 0x3fb504f3);
        vs_op(VDXG_OP_LG2, 1, &a[1]);
        assert_out(0, 0, ONE, ONE, ONE, ONE);
        vs_op(VDXG_OP_SIN, 1, a);
        assert_out(0, 0, 0x3ef57743, 0x3ef57743, 0x3ef57743, 0x3ef57743);
        vs_op(VDXG_OP_COS, 1, a);
        assert_out(0, 0, 0x3f60a940, 0x3f60a940, 0x3f60a940, 0x3f60a940);
        vs_op(VDXG_OP_POW, 2, b);
        assert_out(0, 0, 0x3fb504f3, 0x3fb504f3, 0x3fb504f3, 0x3fb504f3);
    }
}

/* Swizzle, ABS, NEGATE, write mask, saturate, relative CONST, ARL */
static void test_modifiers(void)
{
    const float imm[2][4] = {
        { -1.5f, 0.25f, 2.0f, NAN },
        { 0.5f, -0.0f, 3.7f, -40000.0f },
    };
    Insn in[] = {
        /* swizzle wzyx, then ABS then NEGATE of x */
        { { DO(VDXG_OP_MOV, 0), IMMS(0, WZYX) | VDXG_SRC_ABS |
            VDXG_SRC_NEGATE, 0, 0 } },
        /* mask x and z of y-splat, saturated */
        { { VDXG_INSN(VDXG_OP_MOV, VDXG_FILE_OUTPUT, 1, 0x5) | VDXG_INSN_SAT,
            IMMS(0, XXXX), 0, 0 } },
        { { VDXG_INSN(VDXG_OP_MOV, VDXG_FILE_OUTPUT, 1, 0x2) |
            VDXG_INSN_SAT, IMMS(0, VDXG_SWIZZLE(3, 3, 3, 3)), 0, 0 } },
        { { VDXG_INSN(VDXG_OP_MOV, VDXG_FILE_OUTPUT, 1, 0x8) |
            VDXG_INSN_SAT, IMMS(0, VDXG_SWIZZLE(2, 2, 2, 2)), 0, 0 } },
        /* saturate: -0 -> +0, 0.5 stays */
        { { DO(VDXG_OP_MOV, 2) | VDXG_INSN_SAT, IMM(1), 0, 0 } },
        /* A0.x = floor(3.7) = 3: OUT3 = CONST[1 + 3] */
        { { VDXG_INSN(VDXG_OP_ARL, VDXG_FILE_ADDR, 0, 1),
            IMMS(1, VDXG_SWIZZLE(2, 2, 2, 2)), 0, 0 } },
        { { DO(VDXG_OP_MOV, 3), C(1) | VDXG_SRC_RELATIVE, 0, 0 } },
        /* A0.x = clamp(-40000) = -32768: CONST[-32767] reads 0 */
        { { VDXG_INSN(VDXG_OP_ARL, VDXG_FILE_ADDR, 0, 1),
            IMMS(1, VDXG_SWIZZLE(3, 3, 3, 3)), 0, 0 } },
        { { DO(VDXG_OP_MOV, 4), C(1) | VDXG_SRC_RELATIVE, 0, 0 } },
        /* sources read before the destination is written */
        { { DT(VDXG_OP_MOV, 0), IMM(1), 0, 0 } },
        { { DT(VDXG_OP_ADD, 0), TS(0, YYYY), TS(0, XXXX), 0 } },
        { { DO(VDXG_OP_MOV, 5), T(0), 0, 0 } },
        END,
    };

    consts[4][0] = 4.0f;
    consts[4][1] = 5.0f;
    consts[4][2] = 6.0f;
    consts[4][3] = 7.0f;
    load(VDXG_3D_STAGE_VERTEX, in, ARRAY_SIZE(in), imm, 2);
    g_assert_cmpint(go(NULL), ==, VDXG_SH_OK);
    /* |NaN| negated is a NaN: canonical */
    assert_out(0, 0, QNAN, 0xc0000000, 0xbe800000, 0xbfc00000);
    assert_out(0, 1, ZERO, ZERO, ZERO, ONE);
    assert_out(0, 2, 0x3f000000, ZERO, ONE, ZERO);
    assert_out(0, 3, 0x40800000, 0x40a00000, 0x40c00000, 0x40e00000);
    assert_out(0, 4, ZERO, ZERO, ZERO, ZERO);
    /* T0.y + T0.x with T0 = IMM[1] in every channel: -0 + 0.5 */
    assert_out(0, 5, 0x3f000000, 0x3f000000, 0x3f000000, 0x3f000000);
    g_assert_true(prog.writes_psize);
    /* Relative reads past the bound count read 0 too */
    run.nconsts = 4;
    g_assert_cmpint(go(NULL), ==, VDXG_SH_OK);
    assert_out(0, 3, ZERO, ZERO, ZERO, ZERO);
    memset(consts, 0, sizeof(consts));
}

/* Fragment quads: IF/ELSE per lane, loops with BRK and CONT, visits */
static void test_control_flow(void)
{
    const float imm[2][4] = {
        { 0, 1, 2, 3 },
        { 1, 0, -1, 0 },
    };
    /*
     * Lane l has IN[0].x = l. OUT0.x = l < 2 ? (l == 0 ? 10 : 11) : 12,
     * a nested IF/ELSE with divergent lanes.
     */
    Insn ifs[] = {
        { { DT(VDXG_OP_SLT, 0), IN(0), IMMS(0, VDXG_SWIZZLE(2, 2, 2, 2)),
            0 } },                                          /* 0 */
        { { OP(VDXG_OP_IF), TS(0, XXXX), 0, 0 } },          /* 1 */
        { { DT(VDXG_OP_SEQ, 1), IN(0), IMMS(0, XXXX), 0 } },
        { { OP(VDXG_OP_IF), TS(1, XXXX), 0, 0 } },          /* 3 */
        { { DO(VDXG_OP_MOV, 0), IMMS(1, XXXX) | VDXG_SRC_NEGATE, 0, 0 } },
        { { OP(VDXG_OP_ELSE), 0, 0, 0 } },
        { { DO(VDXG_OP_MOV, 0), IMMS(0, YYYY), 0, 0 } },
        { { OP(VDXG_OP_ENDIF), 0, 0, 0 } },
        { { OP(VDXG_OP_ELSE), 0, 0, 0 } },                  /* 8 */
        { { DO(VDXG_OP_MOV, 0), IMMS(0, VDXG_SWIZZLE(3, 3, 3, 3)), 0, 0 } },
        { { OP(VDXG_OP_ENDIF), 0, 0, 0 } },
        END,
    };
    /*
     * T0 = 0; loop: T0 += 1; if T0.x >= IN0.x + 2: BRK; if T0 == 1:
     * CONT; T1 += 1; endloop. Lane l leaves with T0 = l + 2 and T1 = l
     * (each iteration but the first and the last adds to T1).
     */
    Insn loops[] = {
        { { OP(VDXG_OP_BGNLOOP), 0, 0, 0 } },               /* 0 */
        { { DT(VDXG_OP_ADD, 0), T(0), IMMS(0, YYYY), 0 } },
        { { DT(VDXG_OP_ADD, 2), IN(0), IMMS(0, VDXG_SWIZZLE(2, 2, 2, 2)),
            0 } },
        { { DT(VDXG_OP_SGE, 3), T(0), T(2), 0 } },
        { { OP(VDXG_OP_IF), TS(3, XXXX), 0, 0 } },          /* 4 */
        { { OP(VDXG_OP_BRK), 0, 0, 0 } },
        { { OP(VDXG_OP_ENDIF), 0, 0, 0 } },
        { { DT(VDXG_OP_SEQ, 3), T(0), IMMS(0, YYYY), 0 } },
        { { OP(VDXG_OP_IF), TS(3, XXXX), 0, 0 } },          /* 8 */
        { { OP(VDXG_OP_CONT), 0, 0, 0 } },
        { { OP(VDXG_OP_ENDIF), 0, 0, 0 } },
        { { DT(VDXG_OP_ADD, 1), T(1), IMMS(0, YYYY), 0 } },
        { { OP(VDXG_OP_ENDLOOP), 0, 0, 0 } },               /* 12 */
        { { DO(VDXG_OP_MOV, 0), T(0), 0, 0 } },
        { { VDXG_INSN(VDXG_OP_MOV, VDXG_FILE_OUTPUT, 0, 0x2), TS(1, XXXX),
            0, 0 } },
        END,
    };
    Insn runaway[] = {
        { { OP(VDXG_OP_BGNLOOP), 0, 0, 0 } },
        { { DT(VDXG_OP_ADD, 0), T(0), IMMS(0, YYYY), 0 } },
        { { OP(VDXG_OP_ENDLOOP), 0, 0, 0 } },
        END,
    };
    unsigned int l;
    uint32_t pc;

    load(VDXG_3D_STAGE_FRAGMENT, ifs, ARRAY_SIZE(ifs), imm, 2);
    for (l = 0; l < 4; l++) {
        run.in[0][0][l] = l;
    }
    g_assert_cmpint(go(NULL), ==, VDXG_SH_OK);
    g_assert_cmphex(f2u(run.lane[0].out[0][0]), ==, 0xbf800000);
    g_assert_cmphex(f2u(run.lane[1].out[0][0]), ==, ONE);
    g_assert_cmphex(f2u(run.lane[2].out[0][0]), ==, 0x40400000);
    g_assert_cmphex(f2u(run.lane[3].out[0][0]), ==, 0x40400000);
    /* Every instruction is visited once whatever the lanes take */
    g_assert_cmpuint(run.steps, ==, ARRAY_SIZE(ifs));

    load(VDXG_3D_STAGE_FRAGMENT, loops, ARRAY_SIZE(loops), imm, 2);
    for (l = 0; l < 4; l++) {
        run.in[0][0][l] = l;
    }
    g_assert_cmpint(go(NULL), ==, VDXG_SH_OK);
    for (l = 0; l < 4; l++) {
        g_assert_cmpfloat(run.lane[l].out[0][0], ==, l + 2);
        g_assert_cmpfloat(run.lane[l].out[0][1], ==, l);
    }
    /*
     * The loop runs while a lane is left: 5 times (lane 3 leaves in the
     * fifth). BGNLOOP once, 12 instructions an iteration, then 3.
     */
    g_assert_cmpuint(run.steps, ==, 1 + 5 * 12 + 3);

    /* A runaway loop faults on visit 16385, at ENDLOOP or in the body */
    load(VDXG_3D_STAGE_VERTEX, runaway, ARRAY_SIZE(runaway), imm, 2);
    g_assert_cmpint(go(&pc), ==, VDXG_SH_STEPS);
    /* 1 + 2k visits after k iterations: 16384 = 1 + 2 * 8191 + 1 */
    g_assert_cmpuint(pc, ==, 2);
    g_assert_cmpuint(run.steps, ==, VDXG_3D_MAX_STEPS);
}

/* DDX, DDY across a quad, KILL and KILL_IF, helper lanes */
static void test_quad(void)
{
    const float imm[1][4] = { { 0, 1, 2, 3 } };
    Insn in[] = {
        { { DT(VDXG_OP_DDX, 0), IN(0), 0, 0 } },
        { { DT(VDXG_OP_DDY, 1), IN(0), 0, 0 } },
        { { DO(VDXG_OP_ADD, 0), T(0), T(1), 0 } },
        /* lane 1 is killed by KILL_IF, lane 2 by KILL under an IF */
        { { DT(VDXG_OP_SEQ, 2), IN(1), IMMS(0, YYYY), 0 } },
        { { OP(VDXG_OP_KILL_IF), TS(2, XXXX) | VDXG_SRC_NEGATE, 0, 0 } },
        { { DT(VDXG_OP_SEQ, 2), IN(1), IMMS(0, VDXG_SWIZZLE(2, 2, 2, 2)),
            0 } },
        { { OP(VDXG_OP_IF), TS(2, XXXX), 0, 0 } },
        { { OP(VDXG_OP_KILL), 0, 0, 0 } },
        { { OP(VDXG_OP_ENDIF), 0, 0, 0 } },
        END,
    };
    unsigned int l;

    load(VDXG_3D_STAGE_FRAGMENT, in, ARRAY_SIZE(in), imm, 1);
    for (l = 0; l < 4; l++) {
        /* x: l^2, y: 10 l */
        run.in[0][0][l] = l * l;
        run.in[0][1][l] = 10 * l;
        run.in[1][0][l] = l;
    }
    /* L holds helper lanes too: all four compute */
    g_assert_cmpint(go(NULL), ==, VDXG_SH_OK);
    /* DDX: lanes 0, 1: (1, 10); lanes 2, 3: (5, 10) */
    /* DDY: lanes 0, 2: (4, 20); lanes 1, 3: (8, 20) */
    g_assert_cmpfloat(run.lane[0].out[0][0], ==, 5);
    g_assert_cmpfloat(run.lane[0].out[0][1], ==, 30);
    g_assert_cmpfloat(run.lane[1].out[0][0], ==, 9);
    g_assert_cmpfloat(run.lane[2].out[0][0], ==, 9);
    g_assert_cmpfloat(run.lane[3].out[0][0], ==, 13);
    g_assert_cmpuint(run.live, ==, 0x9);

    /* In a vertex program DDX gives 0 */
    in[1] = (Insn)END;
    load(VDXG_3D_STAGE_VERTEX, in, 2, imm, 1);
    run.in[0][0][0] = 5;
    g_assert_cmpint(go(NULL), ==, VDXG_SH_OK);
    g_assert_cmpfloat(run.temp[0][0][0], ==, 0);
}

/* The checks of SET_SHADER: the offset of the first bad dword */
static void test_checks(void)
{
    const float imm[1][4] = { { 0 } };
    VdxgProgram p;
    uint32_t len;
    uint8_t *b;
    Insn ok[2] = {
        { { DO(VDXG_OP_MOV, 0), IMM(0), 0, 0 } },
        END,
    };
    static const struct {
        uint32_t stage;
        Insn in;
    } bad[] = {
        { 0, { { 0x32, 0, 0, 0 } } },                       /* opcode */
        { 0, { { OP(VDXG_OP_KILL), 0, 0, 0 } } },           /* vertex KILL */
        { 0, { { DO(VDXG_OP_MOV, 0) | 0x10000000, IMM(0), 0, 0 } } },
        { 0, { { DO(VDXG_OP_MOV, 10), IMM(0), 0, 0 } } },   /* OUT[10] */
        { 1, { { DO(VDXG_OP_MOV, 1), IMM(0), 0, 0 } } },    /* FS OUT[1] */
        { 0, { { DT(VDXG_OP_MOV, 128), IMM(0), 0, 0 } } },
        { 0, { { VDXG_INSN(VDXG_OP_MOV, VDXG_FILE_INPUT, 0, 0xf), IMM(0),
                 0, 0 } } },
        { 0, { { VDXG_INSN(VDXG_OP_MOV, VDXG_FILE_ADDR, 0, 1), IMM(0),
                 0, 0 } } },
        { 0, { { VDXG_INSN(VDXG_OP_ARL, VDXG_FILE_TEMP, 0, 1), IMM(0),
                 0, 0 } } },
        { 0, { { VDXG_INSN(VDXG_OP_ARL, VDXG_FILE_ADDR, 0, 3), IMM(0),
                 0, 0 } } },
        { 0, { { VDXG_INSN(VDXG_OP_ARL, VDXG_FILE_ADDR, 0, 1) |
                 VDXG_INSN_SAT, IMM(0), 0, 0 } } },
        { 0, { { DO(VDXG_OP_MOV, 0) | VDXG_INSN_TEX(1, 0), IMM(0), 0,
                 0 } } },                                   /* unit */
        { 0, { { DO(VDXG_OP_MOV, 0), IMM(1), 0, 0 } } },    /* IMM[m] */
        { 0, { { DO(VDXG_OP_MOV, 0), IN(16), 0, 0 } } },
        { 1, { { DO(VDXG_OP_MOV, 0), IN(11), 0, 0 } } },
        { 0, { { DO(VDXG_OP_MOV, 0), VDXG_SRC(VDXG_FILE_OUTPUT, 0, XYZW),
                 0, 0 } } },
        { 0, { { DO(VDXG_OP_MOV, 0), T(0) | VDXG_SRC_RELATIVE, 0, 0 } } },
        { 0, { { DO(VDXG_OP_MOV, 0), IMM(0) | 0x400000, 0, 0 } } },
        { 0, { { DO(VDXG_OP_MOV, 0), IMM(0), IMM(0), 0 } } }, /* unused */
        { 0, { { OP(VDXG_OP_NOP) | 0x100, 0, 0, 0 } } },    /* no dst */
        { 0, { { OP(VDXG_OP_ELSE), 0, 0, 0 } } },
        { 0, { { OP(VDXG_OP_ENDIF), 0, 0, 0 } } },
        { 0, { { OP(VDXG_OP_ENDLOOP), 0, 0, 0 } } },
        { 0, { { OP(VDXG_OP_BRK), 0, 0, 0 } } },
        { 0, { { OP(VDXG_OP_CONT), 0, 0, 0 } } },
        { 0, { { OP(VDXG_OP_END), 0, 0, 0 } } },            /* END early */
    };
    Insn two[3];
    Insn deep[VDXG_3D_MAX_NESTING * 2 + 3];
    unsigned int i;

    g_assert_cmpint(decode(&p, 0, ok, 2, imm, 1), ==, -1);
    vdxg_program_free(&p);

    /* Header: magic, stage, n, m, then the length at dword 3 */
    b = prog_bytes(0, ok, 2, imm, 1, &len);
    g_assert_cmpint(vdxg_program_decode(&p, 1, b, len), ==, 4);
    g_assert_cmpint(vdxg_program_decode(&p, 0, b, len - 4), ==, 12);
    stl_le_p(b + 12, 257);
    g_assert_cmpint(vdxg_program_decode(&p, 0, b, len), ==, 12);
    stl_le_p(b + 8, 0);
    g_assert_cmpint(vdxg_program_decode(&p, 0, b, len), ==, 8);
    stl_le_p(b + 8, 4097);
    g_assert_cmpint(vdxg_program_decode(&p, 0, b, len), ==, 8);
    stl_le_p(b + 4, 0x100);
    g_assert_cmpint(vdxg_program_decode(&p, 0, b, len), ==, 4);
    stl_le_p(b, 0);
    g_assert_cmpint(vdxg_program_decode(&p, 0, b, len), ==, 0);
    g_free(b);

    /* Each bad instruction faults at its dword 0: the second here */
    for (i = 0; i < ARRAY_SIZE(bad); i++) {
        two[0] = ok[0];
        two[1] = bad[i].in;
        two[2] = (Insn)END;
        g_assert_cmpint(decode(&p, bad[i].stage, two, 3, imm, 1), ==, 32);
    }
    /* A block still open: at the END */
    two[1] = (Insn) { { OP(VDXG_OP_BGNLOOP), 0, 0, 0 } };
    g_assert_cmpint(decode(&p, 0, two, 3, imm, 1), ==, 48);
    two[1] = (Insn) { { OP(VDXG_OP_IF), IMM(0), 0, 0 } };
    g_assert_cmpint(decode(&p, 0, two, 3, imm, 1), ==, 48);
    /* The last instruction not END */
    g_assert_cmpint(decode(&p, 0, ok, 1, imm, 1), ==, 16);
    /* ... nor when it closes or opens a block: at that instruction */
    two[1] = (Insn) { { OP(VDXG_OP_IF), IMM(0), 0, 0 } };
    two[2] = (Insn) { { OP(VDXG_OP_ENDIF), 0, 0, 0 } };
    g_assert_cmpint(decode(&p, 1, two, 3, imm, 1), ==, 48);
    g_assert_cmpint(decode(&p, 1, two, 2, imm, 1), ==, 32);
    two[1] = (Insn) { { OP(VDXG_OP_BGNLOOP), 0, 0, 0 } };
    two[2] = (Insn) { { OP(VDXG_OP_ENDLOOP), 0, 0, 0 } };
    g_assert_cmpint(decode(&p, 0, two, 3, imm, 1), ==, 48);
    /* A 33rd level of nesting */
    for (i = 0; i < VDXG_3D_MAX_NESTING + 1; i++) {
        deep[i] = (Insn) { { OP(VDXG_OP_BGNLOOP), 0, 0, 0 } };
    }
    deep[i] = (Insn)END;
    g_assert_cmpint(decode(&p, 0, deep, i + 1, imm, 1), ==,
                    16 + 16 * VDXG_3D_MAX_NESTING);
    for (i = 0; i < VDXG_3D_MAX_NESTING; i++) {
        deep[VDXG_3D_MAX_NESTING + i] =
            (Insn) { { OP(VDXG_OP_ENDLOOP), 0, 0, 0 } };
    }
    deep[2 * VDXG_3D_MAX_NESTING] = (Insn)END;
    g_assert_cmpint(decode(&p, 0, deep, 2 * VDXG_3D_MAX_NESTING + 1, imm, 1),
                    ==, -1);
    vdxg_program_free(&p);
}

/* Draw-time checks: CONST beyond the bound count, texture units */
static void test_check_draw(void)
{
    const float imm[1][4] = { { 0 } };
    Insn in[] = {
        { { DO(VDXG_OP_MOV, 0), C(3) | VDXG_SRC_RELATIVE, 0, 0 } },
        { { DO(VDXG_OP_MOV, 0), C(2), 0, 0 } },
        { { DO(VDXG_OP_TEX, 0) | VDXG_INSN_TEX(5, 1), IMM(0), 0, 0 } },
        END,
    };

    load(VDXG_3D_STAGE_FRAGMENT, in, ARRAY_SIZE(in), imm, 1);
    g_assert_cmpint(vdxg_program_check_draw(&prog, 2, 0xff, 0xff), ==, 1);
    g_assert_cmpint(vdxg_program_check_draw(&prog, 3, 0xdf, 0xff), ==, 2);
    g_assert_cmpint(vdxg_program_check_draw(&prog, 3, 0xff, 0xdf), ==, 2);
    g_assert_cmpint(vdxg_program_check_draw(&prog, 3, 0x20, 0x20), ==, -1);
}

/* Textures: a 4x2 ARGB8888 texture with 2 levels in host memory */
static uint8_t texmem[4096];

static void put_texel(const VdxgTexture *t, unsigned int l, unsigned int f,
                      unsigned int i, unsigned int j, uint32_t v)
{
    stl_le_p(texmem + t->loff[l] + f * t->limage[l] + j * t->lpitch[l] +
             i * 4, v);
}

static void sample(const VdxgTexture *t, uint32_t smp, unsigned int face,
                   float s, float tt, float lod, float *out)
{
    VdxgTexSampler ts = { .t = t, .sampler = smp, .host = texmem };

    g_assert_true(vdxg_tex_sample(&ts, face, s, tt, lod, out));
}

static void test_texture(void)
{
    VdxgTexture t;
    float out[4];
    unsigned int face;
    float s, tt;

    /* Layout: levels 4x2 (pitch 16, 32 bytes), 2x1 (8), 1x1 (4) */
    g_assert_true(vdxg_texture_setup(&t, 0, 44,
                                     VDXG_TEX_DESC(VDXG_FMT_ARGB8888, 3, 0),
                                     4 | 2 << 16));
    g_assert_cmpuint(t.loff[1], ==, 32);
    g_assert_cmpuint(t.loff[2], ==, 40);
    g_assert_false(vdxg_texture_setup(&t, 0, 43,
                                      VDXG_TEX_DESC(VDXG_FMT_ARGB8888, 3, 0),
                                      4 | 2 << 16));
    /* RGB888 rows are 4-aligned; a cube has six faces a level */
    g_assert_true(vdxg_texture_setup(&t, 0, 4096,
                                     VDXG_TEX_DESC(VDXG_FMT_RGB888, 2, 1),
                                     3 | 3 << 16));
    g_assert_cmpuint(t.lpitch[0], ==, 12);
    g_assert_cmpuint(t.loff[1], ==, 6 * 36);
    g_assert_false(vdxg_texture_setup(&t, 0, 4096,
                                      VDXG_TEX_DESC(VDXG_FMT_RGB888, 1, 1),
                                      3 | 4 << 16));
    g_assert_false(vdxg_texture_setup(&t, 0, 4096,
                                      VDXG_TEX_DESC(VDXG_FMT_D16, 1, 0),
                                      1 | 1 << 16));
    g_assert_false(vdxg_texture_setup(&t, 0, 4096,
                                      VDXG_TEX_DESC(VDXG_FMT_ARGB8888, 15,
                                                    0), 1 | 1 << 16));

    g_assert_true(vdxg_texture_setup(&t, 0, 44,
                                     VDXG_TEX_DESC(VDXG_FMT_ARGB8888, 3, 0),
                                     4 | 2 << 16));
    put_texel(&t, 0, 0, 0, 0, 0xff000000);
    put_texel(&t, 0, 0, 1, 0, 0xff0000ff);
    put_texel(&t, 0, 0, 2, 0, 0xff00ff00);
    put_texel(&t, 0, 0, 3, 0, 0xffff0000);
    put_texel(&t, 0, 0, 0, 1, 0x00000000);
    put_texel(&t, 0, 0, 1, 1, 0x000000ff);
    put_texel(&t, 0, 0, 2, 1, 0x0000ff00);
    put_texel(&t, 0, 0, 3, 1, 0x00ff0000);
    put_texel(&t, 1, 0, 0, 0, 0x80808080);
    put_texel(&t, 1, 0, 1, 0, 0x80808080);
    put_texel(&t, 2, 0, 0, 0, 0x40404040);

    /* Nearest, repeat: s = 1.3 -> texel 1 (5.2 mod 4), t = 0.3 -> row 0 */
    sample(&t, 0, 0, 1.3f, 0.3f, 0, out);
    g_assert_cmpfloat(out[2], ==, 1.0f);
    g_assert_cmpfloat(out[3], ==, 1.0f);
    /* Clamp: s = 1.3 -> texel 3 (red) */
    sample(&t, VDXG_SAMPLER_WRAP_S(VDXG_WRAP_CLAMP), 0, 1.3f, 0.3f, 0, out);
    g_assert_cmpfloat(out[0], ==, 1.0f);
    /* Mirror: s = 1.3 -> 5 mod 8 = 5 -> 2 (green) */
    sample(&t, VDXG_SAMPLER_WRAP_S(VDXG_WRAP_MIRROR), 0, 1.3f, 0.3f, 0, out);
    g_assert_cmpfloat(out[1], ==, 1.0f);
    /* Mirror of -0.1: i = -1 -> 7 mod 8 -> 0 (black, alpha 1) */
    sample(&t, VDXG_SAMPLER_WRAP_S(VDXG_WRAP_MIRROR), 0, -0.1f, 0.3f, 0, out);
    g_assert_cmpfloat(out[3], ==, 1.0f);
    g_assert_cmpfloat(out[2], ==, 0.0f);

    /*
     * Linear, magnified: s = 0.25 (u = 0.5, i0 = 0, a = 0.5), t = 0.5 (v =
     * 0.5, j0 = 0, b = 0.5): the mean of texels 0 and 1 of rows 0 and 1:
     * blue 0.5, alpha 0.5.
     */
    sample(&t, VDXG_SAMPLER_MAG_LINEAR | VDXG_SAMPLER_WRAP_T(VDXG_WRAP_CLAMP),
           0, 0.25f, 0.5f, -1, out);
    g_assert_cmpfloat(out[2], ==, 0.5f);
    g_assert_cmpfloat(out[3], ==, 0.5f);
    g_assert_cmpfloat(out[0], ==, 0.0f);

    /* Minified: mip none -> level 0; nearest lod 1.4 -> 1; 1.6 -> 2 */
    sample(&t, 0, 0, 0.1f, 0.1f, 1.4f, out);
    g_assert_cmpfloat(out[3], ==, 1.0f);
    sample(&t, VDXG_SAMPLER_MIP(VDXG_MIP_NEAREST), 0, 0.1f, 0.1f, 1.4f, out);
    g_assert_cmphex(f2u(out[0]), ==, f2u(128.0f / 255.0f));
    sample(&t, VDXG_SAMPLER_MIP(VDXG_MIP_NEAREST), 0, 0.1f, 0.1f, 1.6f, out);
    g_assert_cmphex(f2u(out[0]), ==, f2u(64.0f / 255.0f));
    /* Linear between levels 1 and 2 at lod 1.5: halfway */
    sample(&t, VDXG_SAMPLER_MIP(VDXG_MIP_LINEAR), 0, 0.1f, 0.1f, 1.5f, out);
    {
        float r0 = 128.0f / 255.0f, r1 = 64.0f / 255.0f, d = r1 - r0;

        d = 0.5f * d;
        g_assert_cmphex(f2u(out[0]), ==, f2u(r0 + d));
    }
    /* Past the last level: the last level alone */
    sample(&t, VDXG_SAMPLER_MIP(VDXG_MIP_LINEAR), 0, 0.1f, 0.1f, 9.0f, out);
    g_assert_cmphex(f2u(out[0]), ==, f2u(64.0f / 255.0f));

    /* LOD: derivatives of a quarter texel a pixel, 4 x 2: lod -2 */
    g_assert_cmphex(f2u(vdxg_tex_lod(0.0625f, 0, 0, 0.125f, 4, 2)), ==,
                    f2u(-2.0f));
    g_assert_cmphex(f2u(vdxg_tex_lod(0, 0, 0, 0, 4, 2)), ==,
                    0xff800000);

    /* Cube faces: +X, -X, +Y, -Y, +Z, -Z */
    vdxg_cube_coord(2, 1, -1, &face, &s, &tt);
    g_assert_cmpuint(face, ==, 0);
    g_assert_cmpfloat(s, ==, 0.75f);
    g_assert_cmpfloat(tt, ==, 0.25f);
    vdxg_cube_coord(-2, 1, -1, &face, &s, &tt);
    g_assert_cmpuint(face, ==, 1);
    g_assert_cmpfloat(s, ==, 0.25f);
    vdxg_cube_coord(1, 2, -1, &face, &s, &tt);
    g_assert_cmpuint(face, ==, 2);
    g_assert_cmpfloat(s, ==, 0.75f);
    g_assert_cmpfloat(tt, ==, 0.25f);
    vdxg_cube_coord(1, -2, -1, &face, &s, &tt);
    g_assert_cmpuint(face, ==, 3);
    g_assert_cmpfloat(tt, ==, 0.75f);
    vdxg_cube_coord(1, 1, 2, &face, &s, &tt);
    g_assert_cmpuint(face, ==, 4);
    g_assert_cmpfloat(s, ==, 0.75f);
    g_assert_cmpfloat(tt, ==, 0.25f);
    vdxg_cube_coord(1, 1, -2, &face, &s, &tt);
    g_assert_cmpuint(face, ==, 5);
    g_assert_cmpfloat(s, ==, 0.25f);
    /* Ties go to X, then Y */
    vdxg_cube_coord(1, 1, 1, &face, &s, &tt);
    g_assert_cmpuint(face, ==, 0);
    vdxg_cube_coord(0, 1, 1, &face, &s, &tt);
    g_assert_cmpuint(face, ==, 2);
}

/* Texel formats and the n-bit conversions */
static void test_formats(void)
{
    float c[4];
    const float w[4] = { 1.0f, 0.5f, 0.0f, 0.2f };

    vdxg_texel_to_float(VDXG_FMT_RGBA4444, 0xf05a, c);
    g_assert_cmpfloat(c[0], ==, 1.0f);
    g_assert_cmpfloat(c[1], ==, 0.0f);
    g_assert_cmphex(f2u(c[2]), ==, f2u(5.0f / 15.0f));
    g_assert_cmphex(f2u(c[3]), ==, f2u(10.0f / 15.0f));
    vdxg_texel_to_float(VDXG_FMT_RGBA5551, 0x8001, c);
    g_assert_cmpfloat(c[0], ==, 16.0f / 31.0f);
    g_assert_cmpfloat(c[3], ==, 1.0f);
    vdxg_texel_to_float(VDXG_FMT_L8A8, 0x40ff, c);
    g_assert_cmpfloat(c[1], ==, 1.0f);
    g_assert_cmphex(f2u(c[3]), ==, f2u(64.0f / 255.0f));
    vdxg_texel_to_float(VDXG_FMT_A8, 0xff, c);
    g_assert_cmpfloat(c[0], ==, 0.0f);
    g_assert_cmpfloat(c[3], ==, 1.0f);
    vdxg_texel_to_float(VDXG_FMT_RGB888, 0x0000ff, c);
    g_assert_cmpfloat(c[0], ==, 1.0f);
    g_assert_cmpfloat(c[2], ==, 0.0f);
    g_assert_cmpfloat(c[3], ==, 1.0f);

    /* 0.5 * 255 + 0.5 = 128; 0.2 * 255 + 0.5 = 51.5 -> 51 */
    g_assert_cmphex(vdxg_float_to_texel(VDXG_FMT_ARGB8888, w), ==,
                    0x33ff8000);
    g_assert_cmphex(vdxg_float_to_texel(VDXG_FMT_XRGB8888, w), ==,
                    0xffff8000);
    g_assert_cmphex(vdxg_float_to_texel(VDXG_FMT_ABGR8888, w), ==,
                    0x330080ff);
    /* 0.5 * 63 + 0.5 = 32 */
    g_assert_cmphex(vdxg_float_to_texel(VDXG_FMT_RGB565, w), ==,
                    0xf800 | 32 << 5);
    /* 4444: f, 8, 0, 3 */
    g_assert_cmphex(vdxg_float_to_texel(VDXG_FMT_RGBA4444, w), ==, 0xf803);
    /* 5551: 31, 16, 0, 0 */
    g_assert_cmphex(vdxg_float_to_texel(VDXG_FMT_RGBA5551, w), ==,
                    31 << 11 | 16 << 6);
    g_assert_cmpuint(vdxg_unorm(1.0f, 16777215), ==, 16777215);
    g_assert_cmpuint(vdxg_unorm(NAN, 65535), ==, 0);
}

/* Clipping: Sutherland-Hodgman by each plane, from the inside vertex */
static void test_clip(void)
{
    VdxgClipVert in[3] = {
        { .pos = { 0, 0, -3, 1 } },
        { .pos = { 1, 0, 0, 1 } },
        { .pos = { 0, 1, 0, 1 } },
    };
    VdxgClipVert out[VDXG_3D_CLIP_MAX];
    unsigned int n;

    in[0].vary[0] = 3;
    /*
     * v0 is behind w + z = 0 (d = -2), the others inside (d = 1): t =
     * 1 / 3 from v1 and from v2 towards v0, the polygon (v1 v0), v1, v2,
     * (v2 v0).
     */
    n = vdxg_clip_tri(in, out);
    g_assert_cmpuint(n, ==, 4);
    g_assert_cmphex(f2u(out[0].pos[0]), ==, 0x3f2aaaaa);
    g_assert_cmphex(f2u(out[0].pos[1]), ==, 0);
    g_assert_cmphex(f2u(out[0].pos[2]), ==, 0xbf800000);
    g_assert_cmphex(f2u(out[0].pos[3]), ==, ONE);
    /* the varying: 0 + t x (3 - 0) = 1 */
    g_assert_cmphex(f2u(out[0].vary[0]), ==, ONE);
    g_assert_cmphex(f2u(out[1].pos[0]), ==, ONE);
    g_assert_cmphex(f2u(out[2].pos[1]), ==, ONE);
    g_assert_cmphex(f2u(out[3].pos[0]), ==, 0);
    g_assert_cmphex(f2u(out[3].pos[1]), ==, 0x3f2aaaaa);
    g_assert_cmphex(f2u(out[3].pos[2]), ==, 0xbf800000);

    /* Inside every plane (the guard band is 4 w): not clipped */
    in[0].pos[2] = 0;
    in[0].pos[0] = -3.9f;
    g_assert_cmpuint(vdxg_clip_tri(in, out), ==, 3);
    g_assert_cmphex(f2u(out[0].pos[0]), ==, f2u(-3.9f));
    /* All outside one plane: dropped */
    in[0].pos[0] = in[1].pos[0] = in[2].pos[0] = 5;
    g_assert_cmpuint(vdxg_clip_tri(in, out), ==, 0);

    /* A line: the end outside x <= 4 w moves to x = 4 */
    in[0].pos[0] = 0;
    in[1].pos[0] = 8;
    g_assert_cmpuint(vdxg_clip_line(in, out), ==, 2);
    g_assert_cmphex(f2u(out[0].pos[0]), ==, 0);
    g_assert_cmphex(f2u(out[1].pos[0]), ==, f2u(4.0f));
    /* Points are not clipped: outside the view volume, dropped */
    in[0].pos[0] = 1.5f;
    g_assert_false(vdxg_point_visible(&in[0]));
    in[0].pos[0] = 1.0f;
    g_assert_true(vdxg_point_visible(&in[0]));
}

typedef struct Cover {
    uint32_t count[8][8];
    unsigned int quads;
} Cover;

static VdxgRun cover_quad(void *opaque, const VdxgQuad *q)
{
    Cover *cv = opaque;
    unsigned int l;

    cv->quads++;
    for (l = 0; l < 4; l++) {
        if (q->covered & BIT(l)) {
            cv->count[q->qy + (l >> 1)][q->qx + (l & 1)]++;
        }
    }
    return VDXG_RUN_DONE;
}

/* The top-left rule on a shared edge, lines and points on 8 x 8 */
static void test_raster(void)
{
    static VdxgShVec in[VDXG_3D_VS_INPUTS];
    int64_t budget = INT64_MAX;
    Cover cv = { 0 };
    VdxgRaster3d ra = {
        .x0 = 0, .y0 = 0, .x1 = 8, .y1 = 8,
        .vp_scale = { 4, 4, 0.5f }, .vp_trans = { 4, 4, 0.5f },
        .vary_mask = 1, .in = in, .quad = cover_quad, .opaque = &cv,
        .budget = &budget,
    };
    /* A square from pixel corner (1, 1) to (7, 7), split on a diagonal */
    VdxgWinVert v[4] = {
        { .x8 = 256, .y8 = 256, .iw = 1 }, { .x8 = 1792, .y8 = 256, .iw = 1 },
        { .x8 = 1792, .y8 = 1792, .iw = 1 }, { .x8 = 256, .y8 = 1792, .iw = 1 },
    };
    VdxgClipVert c = { .pos = { 0.5f, -0.25f, 0, 1 }, .psize = 2 };
    VdxgWinVert w;
    uint64_t prog = 0;
    uint32_t x, y;
    bool front;

    g_assert_cmpint(vdxg_tri_raster(&ra, &v[0], &v[1], &v[2], &prog), ==,
                    VDXG_RUN_DONE);
    prog = 0;
    g_assert_cmpint(vdxg_tri_raster(&ra, &v[0], &v[2], &v[3], &prog), ==,
                    VDXG_RUN_DONE);
    for (y = 0; y < 8; y++) {
        for (x = 0; x < 8; x++) {
            g_assert_cmpuint(cv.count[y][x], ==,
                             x >= 1 && x < 7 && y >= 1 && y < 7);
        }
    }
    /* v0 v1 v2 is clockwise on screen (y down): back-facing */
    g_assert_true(vdxg_tri_face(&ra, &v[0], &v[1], &v[2], &front));
    g_assert_false(front);
    ra.raster = VDXG_RASTER_CULL_BACK;
    g_assert_false(vdxg_tri_face(&ra, &v[0], &v[1], &v[2], &front));
    ra.raster = VDXG_RASTER_FRONT_CW;
    g_assert_true(vdxg_tri_face(&ra, &v[0], &v[1], &v[2], &front));
    g_assert_true(front);

    /* A line from (1, 2.5) to (6, 5): x-major, columns 1 to 5 */
    memset(&cv, 0, sizeof(cv));
    v[0] = (VdxgWinVert) { .x8 = 256, .y8 = 640, .iw = 1 };
    v[1] = (VdxgWinVert) { .x8 = 1536, .y8 = 1280, .iw = 1 };
    prog = 0;
    g_assert_cmpint(vdxg_line_raster(&ra, &v[0], &v[1], &prog), ==,
                    VDXG_RUN_DONE);
    /* y = 640 + floordiv((cx - 256) x 640, 1280): py 2, 3, 3, 4, 4 */
    g_assert_cmpuint(cv.count[2][1], ==, 1);
    g_assert_cmpuint(cv.count[3][2], ==, 1);
    g_assert_cmpuint(cv.count[3][3], ==, 1);
    g_assert_cmpuint(cv.count[4][4], ==, 1);
    g_assert_cmpuint(cv.count[4][5], ==, 1);
    g_assert_cmpuint(cv.count[5][6], ==, 0);
    /* y-major, (2.5, 1) to (4, 6): rows 1 to 5, x by floordiv */
    memset(&cv, 0, sizeof(cv));
    v[0] = (VdxgWinVert) { .x8 = 640, .y8 = 256, .iw = 1 };
    v[1] = (VdxgWinVert) { .x8 = 1024, .y8 = 1536, .iw = 1 };
    prog = 0;
    g_assert_cmpint(vdxg_line_raster(&ra, &v[0], &v[1], &prog), ==,
                    VDXG_RUN_DONE);
    g_assert_cmpuint(cv.count[1][2], ==, 1);
    g_assert_cmpuint(cv.count[2][2], ==, 1);
    g_assert_cmpuint(cv.count[3][3], ==, 1);
    g_assert_cmpuint(cv.count[4][3], ==, 1);
    g_assert_cmpuint(cv.count[5][3], ==, 1);
    g_assert_cmpuint(cv.count[6][3] + cv.count[0][2], ==, 0);
    /* Backwards (b to a) the same rows, ends swapped: (b.y, a.y] */
    memset(&cv, 0, sizeof(cv));
    prog = 0;
    g_assert_cmpint(vdxg_line_raster(&ra, &v[1], &v[0], &prog), ==,
                    VDXG_RUN_DONE);
    g_assert_cmpuint(cv.count[1][2] + cv.count[2][2] + cv.count[3][3] +
                     cv.count[4][3] + cv.count[5][3], ==, 5);

    /* Window space: (0.5, -0.25) -> (6, 3); a size-2 point, 2 x 2 */
    ra.raster = 0;
    g_assert_true(vdxg_to_window(&ra, &c, &w, true));
    g_assert_cmpint(w.x8, ==, 1536);
    g_assert_cmpint(w.y8, ==, 768);
    memset(&cv, 0, sizeof(cv));
    prog = 0;
    g_assert_cmpint(vdxg_point_raster(&ra, &w, &prog), ==, VDXG_RUN_DONE);
    for (y = 0; y < 8; y++) {
        for (x = 0; x < 8; x++) {
            g_assert_cmpuint(cv.count[y][x], ==,
                             x >= 5 && x < 7 && y >= 2 && y < 4);
        }
    }
    /* POINT_COORD of lane 0 of the last quad, pixel (6, 2): (0.75, 0.25) */
    g_assert_cmpfloat(in[VDXG_FS_IN_POINT_COORD][0][0], ==, 0.75f);
    g_assert_cmpfloat(in[VDXG_FS_IN_POINT_COORD][1][0], ==, 0.25f);
    /* w <= 0: dropped */
    c.pos[3] = 0;
    g_assert_false(vdxg_to_window(&ra, &c, &w, false));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/vdxg-3d/shader/arith", test_arith);
    g_test_add_func("/vdxg-3d/shader/transcendental", test_transcendental);
    g_test_add_func("/vdxg-3d/shader/modifiers", test_modifiers);
    g_test_add_func("/vdxg-3d/shader/control-flow", test_control_flow);
    g_test_add_func("/vdxg-3d/shader/quad", test_quad);
    g_test_add_func("/vdxg-3d/shader/checks", test_checks);
    g_test_add_func("/vdxg-3d/shader/check-draw", test_check_draw);
    g_test_add_func("/vdxg-3d/texture/sample", test_texture);
    g_test_add_func("/vdxg-3d/texture/formats", test_formats);
    g_test_add_func("/vdxg-3d/raster/clip", test_clip);
    g_test_add_func("/vdxg-3d/raster/coverage", test_raster);
    return g_test_run();
}
