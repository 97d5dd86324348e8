/*
 * vdxg: the 3D pipeline's shader programs: decode, checks, interpreter
 *
 * Every arithmetic step is the one docs/hardware.md writes down, one
 * binary32 operation at a time: no contraction into fused multiply-adds.
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "vdxg_fp.h"
#include <math.h>
#include "qemu/bswap.h"
#include "qemu/host-utils.h"
#include "vdxg_shader.h"
#include "vdxg_texture.h"

#define SIGN    0x80000000u

static inline uint32_t f2u(float f)
{
    uint32_t u;

    memcpy(&u, &f, 4);
    return u;
}

static inline float u2f(uint32_t u)
{
    float f;

    memcpy(&f, &u, 4);
    return f;
}

/* The arithmetic of "Arithmetic" */

int32_t vdxg_floor_int(float v, int32_t lo, int32_t hi)
{
    float f;

    if (isnan(v)) {
        return 0;
    }
    f = floorf(v);
    if (f <= (float)lo) {
        return lo;
    }
    if (f >= (float)hi) {
        return hi;
    }
    return (int32_t)f;
}

float vdxg_sat(float x)
{
    return x > 0 ? (x < 1 ? x : 1) : 0;
}

/* 2^n as the binary32 whose bits are (n + 127) << 23, n in [-126, 127] */
static inline float pow2i(int32_t n)
{
    return u2f((uint32_t)(n + 127) << 23);
}

float vdxg_ex2(float x)
{
    static const uint32_t c[7] = {
        0x3f800000, 0x3f317215, 0x3e75fecd, 0x3d6342b3,
        0x3c1e9268, 0x3aa3186e, 0x3963703e,
    };
    float n, f, p;
    int i;

    if (isnan(x)) {
        return x;
    }
    if (x >= 128.0f) {
        return INFINITY;
    }
    if (x < -126.0f) {
        return 0.0f;
    }
    n = floorf(x);
    f = x - n;
    p = u2f(c[6]);
    for (i = 5; i >= 0; i--) {
        p = p * f;
        p = p + u2f(c[i]);
    }
    return p * pow2i((int32_t)n);
}

float vdxg_ldexp(float a, float b)
{
    int32_t k;
    float t;

    if (isnan(b)) {
        k = 0;
    } else {
        t = truncf(b);
        k = t <= -126.0f ? -126 : t >= 127.0f ? 127 : (int32_t)t;
    }
    return a * pow2i(k);
}

float vdxg_lg2(float x)
{
    static const uint32_t d[5] = {
        0x4038aa3b, 0x3f76384f, 0x3f13bbc1, 0x3ed2c684, 0x3eae781c,
    };
    uint32_t bits;
    int32_t e = 0;
    float m, t, u, q;
    int i;

    if (isnan(x) || x < 0) {
        return NAN;
    }
    if (x == 0) {
        return -INFINITY;
    }
    if (isinf(x)) {
        return INFINITY;
    }
    bits = f2u(x);
    if (!(bits & 0x7f800000)) {
        x = x * 8388608.0f;     /* 2^23 */
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
    for (i = 3; i >= 0; i--) {
        q = q * u;
        q = q + u2f(d[i]);
    }
    return (float)e + t * q;
}

/* sin's algorithm from its first step's r */
static float vdxg_sin_r(float r)
{
    static const uint32_t s[6] = {
        0x40c90fdb, 0xc2255de7, 0x42a335e0, 0xc299688c, 0x42280865,
        0xc1662458,
    };
    float u, q;
    int i;

    r = r - floorf(r + 0.5f);
    if (r > 0.25f) {
        r = 0.5f - r;
    } else if (r < -0.25f) {
        r = -0.5f - r;
    }
    u = r * r;
    q = u2f(s[5]);
    for (i = 4; i >= 0; i--) {
        q = q * u;
        q = q + u2f(s[i]);
    }
    return r * q;
}

float vdxg_sin(float x)
{
    if (isnan(x) || isinf(x)) {
        return NAN;
    }
    return vdxg_sin_r(x * u2f(0x3e22f983));
}

float vdxg_cos(float x)
{
    float r;

    if (isnan(x) || isinf(x)) {
        return NAN;
    }
    r = x * u2f(0x3e22f983);
    return vdxg_sin_r(r + 0.25f);
}

/* Decoding and the checks of SET_SHADER */

/* Per opcode: sources, and whether it has a destination */
typedef struct VdxgOpInfo {
    uint8_t nsrc;
    bool dst;
} VdxgOpInfo;

static const VdxgOpInfo vdxg_op_info[VDXG_NUM_OPS] = {
    [VDXG_OP_NOP] = { 0, false },
    [VDXG_OP_MOV] = { 1, true },
    [VDXG_OP_ADD] = { 2, true },
    [VDXG_OP_MUL] = { 2, true },
    [VDXG_OP_MAD] = { 3, true },
    [VDXG_OP_DP2] = { 2, true },
    [VDXG_OP_DP3] = { 2, true },
    [VDXG_OP_DP4] = { 2, true },
    [VDXG_OP_MIN] = { 2, true },
    [VDXG_OP_MAX] = { 2, true },
    [VDXG_OP_SLT] = { 2, true },
    [VDXG_OP_SGE] = { 2, true },
    [VDXG_OP_SEQ] = { 2, true },
    [VDXG_OP_SNE] = { 2, true },
    [VDXG_OP_CMP] = { 3, true },
    [VDXG_OP_LRP] = { 3, true },
    [VDXG_OP_FRC] = { 1, true },
    [VDXG_OP_FLR] = { 1, true },
    [VDXG_OP_CEIL] = { 1, true },
    [VDXG_OP_TRUNC] = { 1, true },
    [VDXG_OP_ROUND] = { 1, true },
    [VDXG_OP_SSG] = { 1, true },
    [VDXG_OP_RCP] = { 1, true },
    [VDXG_OP_RSQ] = { 1, true },
    [VDXG_OP_SQRT] = { 1, true },
    [VDXG_OP_EX2] = { 1, true },
    [VDXG_OP_LG2] = { 1, true },
    [VDXG_OP_POW] = { 2, true },
    [VDXG_OP_SIN] = { 1, true },
    [VDXG_OP_COS] = { 1, true },
    [VDXG_OP_DIV] = { 2, true },
    [VDXG_OP_DDX] = { 1, true },
    [VDXG_OP_DDY] = { 1, true },
    [VDXG_OP_ARL] = { 1, true },
    [VDXG_OP_KILL] = { 0, false },
    [VDXG_OP_KILL_IF] = { 1, false },
    [VDXG_OP_TEX] = { 1, true },
    [VDXG_OP_TXB] = { 1, true },
    [VDXG_OP_TXL] = { 1, true },
    [VDXG_OP_TXP] = { 1, true },
    [VDXG_OP_TXD] = { 3, true },
    [VDXG_OP_LDEXP] = { 2, true },
    [VDXG_OP_IF] = { 1, false },
    [VDXG_OP_ELSE] = { 0, false },
    [VDXG_OP_ENDIF] = { 0, false },
    [VDXG_OP_BGNLOOP] = { 0, false },
    [VDXG_OP_ENDLOOP] = { 0, false },
    [VDXG_OP_BRK] = { 0, false },
    [VDXG_OP_CONT] = { 0, false },
    [VDXG_OP_END] = { 0, false },
};

static bool vdxg_op_is_tex(uint32_t op)
{
    return op >= VDXG_OP_TEX && op <= VDXG_OP_TXD;
}

/* Size of register file @file for @stage as a source; 0: not a source */
static uint32_t vdxg_src_file_size(uint32_t file, uint32_t stage,
                                   uint32_t m)
{
    switch (file) {
    case VDXG_FILE_TEMP:
        return VDXG_3D_NUM_TEMPS;
    case VDXG_FILE_INPUT:
        return stage == VDXG_3D_STAGE_VERTEX ? VDXG_3D_VS_INPUTS :
                                               VDXG_3D_FS_INPUTS;
    case VDXG_FILE_CONST:
        return VDXG_3D_NUM_CONSTS;
    case VDXG_FILE_IMM:
        return m;
    default:
        return 0;
    }
}

/* Check and decode instruction @dw of @p; false if it is not valid. */
static bool vdxg_insn_decode(VdxgProgram *p, const uint32_t *dw,
                             VdxgShInsn *in)
{
    uint32_t d0 = dw[0], op = VDXG_INSN_OPCODE(d0), i, size;
    const VdxgOpInfo *info;

    if (op >= VDXG_NUM_OPS || (d0 & VDXG_INSN_RSVD)) {
        return false;
    }
    if (p->stage == VDXG_3D_STAGE_VERTEX &&
        (op == VDXG_OP_KILL || op == VDXG_OP_KILL_IF)) {
        return false;
    }
    info = &vdxg_op_info[op];
    memset(in, 0, sizeof(*in));
    in->op = op;
    in->nsrc = info->nsrc;
    if (!vdxg_op_is_tex(op) && (d0 & (0xfu << 24))) {
        return false;
    }
    if (!info->dst) {
        if (d0 & 0x0fffff00u) {
            return false;
        }
    } else {
        in->dst_file = VDXG_INSN_DST_FILE(d0);
        in->dst_index = VDXG_INSN_DST_INDEX(d0);
        in->mask = VDXG_INSN_MASK(d0);
        in->sat = d0 & VDXG_INSN_SAT;
        in->unit = VDXG_INSN_UNIT(d0);
        in->cube = d0 & VDXG_INSN_CUBE;
        if (op == VDXG_OP_ARL) {
            if (in->dst_file != VDXG_FILE_ADDR || in->dst_index ||
                in->mask != 1 || in->sat) {
                return false;
            }
        } else if (in->dst_file == VDXG_FILE_TEMP) {
            if (in->dst_index >= VDXG_3D_NUM_TEMPS) {
                return false;
            }
            p->num_temps = MAX(p->num_temps, in->dst_index + 1u);
        } else if (in->dst_file == VDXG_FILE_OUTPUT) {
            if (in->dst_index >= (p->stage == VDXG_3D_STAGE_VERTEX ?
                                  VDXG_3D_VS_OUTPUTS : VDXG_3D_FS_OUTPUTS)) {
                return false;
            }
            if (p->stage == VDXG_3D_STAGE_VERTEX &&
                in->dst_index == VDXG_VS_OUT_POINT_SIZE) {
                p->writes_psize = true;
            }
        } else {
            return false;
        }
    }
    for (i = 0; i < 3; i++) {
        uint32_t s = dw[1 + i];
        VdxgShSrc *src = &in->src[i];
        unsigned int c;

        if (i >= info->nsrc) {
            if (s) {
                return false;
            }
            continue;
        }
        src->file = VDXG_SRC_FILE(s);
        src->index = VDXG_SRC_INDEX(s);
        size = vdxg_src_file_size(src->file, p->stage, p->m);
        if ((s & VDXG_SRC_RSVD) || src->index >= size ||
            ((s & VDXG_SRC_RELATIVE) && src->file != VDXG_FILE_CONST)) {
            return false;
        }
        for (c = 0; c < 4; c++) {
            src->swz[c] = extract32(VDXG_SRC_SWIZZLE(s), c * 2, 2);
        }
        src->rel = s & VDXG_SRC_RELATIVE;
        src->abs_mask = (s & VDXG_SRC_ABS) ? SIGN : 0;
        src->neg_mask = (s & VDXG_SRC_NEGATE) ? SIGN : 0;
        src->plain = VDXG_SRC_SWIZZLE(s) == VDXG_SWIZZLE_XYZW &&
                     !src->abs_mask && !src->neg_mask;
        if (src->file == VDXG_FILE_TEMP) {
            p->num_temps = MAX(p->num_temps, src->index + 1u);
        }
    }
    return true;
}

void vdxg_program_free(VdxgProgram *p)
{
    g_free(p->insn);
    g_free(p->raw);
    memset(p, 0, sizeof(*p));
}

uint64_t vdxg_program_vary_mask(const VdxgProgram *p)
{
    uint64_t m = 0;
    uint32_t i, j;

    for (i = 0; i < p->n; i++) {
        for (j = 0; j < p->insn[i].nsrc; j++) {
            const VdxgShSrc *src = &p->insn[i].src[j];

            if (src->file == VDXG_FILE_INPUT &&
                src->index < VDXG_3D_NUM_VARYINGS) {
                m |= 0xfull << (src->index * 4);
            }
        }
    }
    return m;
}

int64_t vdxg_program_decode(VdxgProgram *p, uint32_t stage,
                            const uint8_t *buf, uint64_t len)
{
    /* The open blocks: BGNLOOP's index, or an IF (with ELSE seen) */
    struct {
        bool loop;
        bool has_else;
        uint32_t at;
    } stack[VDXG_3D_MAX_NESTING];
    uint32_t sp = 0, loops = 0, n, m, i, j, dw[4];
    uint64_t span;

    memset(p, 0, sizeof(*p));
    if (len < VDXG_PROG_HEADER_SIZE) {
        return 0;
    }
    if (ldl_le_p(buf) != VDXG_3D_PROGRAM_MAGIC) {
        return 0;
    }
    if (ldl_le_p(buf + 4) != stage) {
        return 4;
    }
    n = ldl_le_p(buf + 8);
    if (!n || n > VDXG_3D_MAX_INSTRUCTIONS) {
        return 8;
    }
    m = ldl_le_p(buf + 12);
    if (m > VDXG_3D_MAX_IMMEDIATES) {
        return 12;
    }
    span = (uint64_t)VDXG_3D_INSN_SIZE * (1 + n + m);
    if (span > len) {
        return 12;
    }
    p->stage = stage;
    p->n = n;
    p->m = m;
    p->insn = g_new0(VdxgShInsn, n);
    for (i = 0; i < n; i++) {
        VdxgShInsn *in = &p->insn[i];
        uint32_t off = VDXG_PROG_HEADER_SIZE + i * VDXG_3D_INSN_SIZE;

        for (j = 0; j < 4; j++) {
            dw[j] = ldl_le_p(buf + off + j * 4);
        }
        if (!vdxg_insn_decode(p, dw, in)) {
            goto bad;
        }
        switch (in->op) {
        case VDXG_OP_IF:
        case VDXG_OP_BGNLOOP:
            if (sp == VDXG_3D_MAX_NESTING) {
                goto bad;
            }
            stack[sp].loop = in->op == VDXG_OP_BGNLOOP;
            stack[sp].has_else = false;
            stack[sp].at = i;
            sp++;
            loops += in->op == VDXG_OP_BGNLOOP;
            break;
        case VDXG_OP_ELSE:
            if (!sp || stack[sp - 1].loop || stack[sp - 1].has_else) {
                goto bad;
            }
            stack[sp - 1].has_else = true;
            break;
        case VDXG_OP_ENDIF:
            if (!sp || stack[sp - 1].loop) {
                goto bad;
            }
            sp--;
            break;
        case VDXG_OP_ENDLOOP:
            if (!sp || !stack[sp - 1].loop) {
                goto bad;
            }
            sp--;
            loops--;
            in->target = stack[sp].at;
            break;
        case VDXG_OP_BRK:
        case VDXG_OP_CONT:
            if (!loops) {
                goto bad;
            }
            break;
        case VDXG_OP_END:
            if (i != n - 1 || sp) {
                goto bad;
            }
            break;
        default:
            break;
        }
        if (i == n - 1 && in->op != VDXG_OP_END) {
            goto bad;
        }
        continue;
bad:
        g_free(p->insn);
        memset(p, 0, sizeof(*p));
        return off;
    }
    for (i = 0; i < m; i++) {
        for (j = 0; j < 4; j++) {
            p->imm[i][j] = u2f(ldl_le_p(buf + VDXG_PROG_HEADER_SIZE +
                                        (n + i) * VDXG_3D_INSN_SIZE +
                                        j * 4));
        }
    }
    p->raw_len = span;
    p->raw = g_malloc(span);
    memcpy(p->raw, buf, span);
    return -1;
}

int32_t vdxg_program_check_draw(const VdxgProgram *p, uint32_t nconsts,
                                uint32_t units, uint32_t cubes)
{
    uint32_t i, j;

    for (i = 0; i < p->n; i++) {
        const VdxgShInsn *in = &p->insn[i];

        for (j = 0; j < in->nsrc; j++) {
            if (in->src[j].file == VDXG_FILE_CONST && !in->src[j].rel &&
                in->src[j].index >= nconsts) {
                return i;
            }
        }
        if (vdxg_op_is_tex(in->op) &&
            (!(units & BIT(in->unit)) ||
             !(cubes & BIT(in->unit)) != !in->cube)) {
            return i;
        }
    }
    return -1;
}

/*
 * The interpreter. An instruction runs on every lane at once: its
 * operands are decoded once, and each channel is one vector operation on
 * the lanes (VdxgShChan), each lane's element the binary32 operation the
 * specification writes. Lanes outside the execution mask compute too, on
 * values that are never stored.
 */

/* A comparison of two VdxgShChan: a lane all ones where it holds */
typedef int32_t VdxgShMask
    __attribute__((vector_size(VDXG_SH_LANES * sizeof(int32_t))));

QEMU_BUILD_BUG_ON(VDXG_SH_LANES != 4);

static const float vdxg_zero4[4];

#define VDXG_ALL_LANES  (BIT(VDXG_SH_LANES) - 1)

/* The lanes of mask @m, one by one */
#define FOR_LANES(l, m) \
    for (uint32_t m_ = (m); m_ && ((l) = ctz32(m_), true); m_ &= m_ - 1)

/* Per lane: @m ? @x : @y */
static inline VdxgShChan vdxg_sel(VdxgShMask m, VdxgShChan x, VdxgShChan y)
{
    return (VdxgShChan)((m & (VdxgShMask)x) | (~m & (VdxgShMask)y));
}

/* The lanes of @e as a VdxgShMask */
static inline VdxgShMask vdxg_lane_mask(uint32_t e)
{
    return (VdxgShMask) {
        -(int32_t)(e & 1), -(int32_t)((e >> 1) & 1),
        -(int32_t)((e >> 2) & 1), -(int32_t)((e >> 3) & 1),
    };
}

/* A CONST register, or a zero one outside the bound constants */
static inline const float *vdxg_const(const VdxgShRun *r, int32_t idx)
{
    return idx >= 0 && (uint32_t)idx < r->nconsts &&
           idx < VDXG_3D_NUM_CONSTS ? r->consts[idx] : vdxg_zero4;
}

/* ABS, then NEGATE, of source @s on the bits of @v */
static inline void vdxg_src_modify(const VdxgShSrc *s, VdxgShVec v)
{
    int32_t am = ~s->abs_mask, nm = s->neg_mask;
    VdxgShMask abs = { am, am, am, am }, neg = { nm, nm, nm, nm };
    unsigned int c;

    for (c = 0; c < 4; c++) {
        v[c] = (VdxgShChan)(((VdxgShMask)v[c] & abs) ^ neg);
    }
}

/* Source @s of a CONST or IMM register, into @v */
static void vdxg_src_uniform(const VdxgShRun *r, const VdxgShSrc *s,
                             VdxgShVec v)
{
    const float *reg;
    unsigned int c, l;

    if (s->rel) {
        for (l = 0; l < VDXG_SH_LANES; l++) {
            reg = vdxg_const(r, s->index + r->a0[l]);
            for (c = 0; c < 4; c++) {
                v[c][l] = reg[s->swz[c]];
            }
        }
    } else {
        reg = s->file == VDXG_FILE_CONST ? vdxg_const(r, s->index) :
                                           r->p->imm[s->index];
        for (c = 0; c < 4; c++) {
            v[c] = vdxg_sh_splat(reg[s->swz[c]]);
        }
    }
    if (s->abs_mask || s->neg_mask) {
        vdxg_src_modify(s, v);
    }
}

/*
 * Source @s of every lane: swizzled, then ABS and NEGATE on the bits. The
 * register itself when it reads as it is, else a copy in @tmp.
 */
static inline const VdxgShChan *vdxg_src(const VdxgShRun *r,
                                         const VdxgShSrc *s, VdxgShVec tmp)
{
    const VdxgShChan *reg;
    unsigned int c;

    switch (s->file) {
    case VDXG_FILE_TEMP:
        reg = r->temp[s->index];
        break;
    case VDXG_FILE_INPUT:
        reg = r->in[s->index];
        break;
    default:
        vdxg_src_uniform(r, s, tmp);
        return tmp;
    }
    if (s->plain) {
        return reg;
    }
    for (c = 0; c < 4; c++) {
        tmp[c] = reg[s->swz[c]];
    }
    if (s->abs_mask || s->neg_mask) {
        vdxg_src_modify(s, tmp);
    }
    return tmp;
}

/* The destination register of @in */
static inline VdxgShChan *vdxg_dst(VdxgShRun *r, const VdxgShInsn *in)
{
    return in->dst_file == VDXG_FILE_TEMP ? r->temp[in->dst_index] :
                                            r->out[in->dst_index];
}

/*
 * Write @v to channel @c of the destination @reg of @in in the lanes of
 * @e: canonical, then saturated.
 */
static inline void vdxg_store_chan(VdxgShChan *reg, const VdxgShInsn *in,
                                   uint32_t e, unsigned int c, VdxgShChan v)
{
    VdxgShChan zero = vdxg_sh_splat(0.0f), one = vdxg_sh_splat(1.0f);

    v = vdxg_sel(v != v, vdxg_sh_splat(u2f(0x7fc00000)), v);
    if (in->sat) {
        v = vdxg_sel(v > zero, vdxg_sel(v < one, v, one), zero);
    }
    reg[c] = e == VDXG_ALL_LANES ? v : vdxg_sel(vdxg_lane_mask(e), v, reg[c]);
}

/* Write @d to the channels of @in's write mask, lanes @e */
static void vdxg_store(VdxgShRun *r, const VdxgShInsn *in, uint32_t e,
                       const VdxgShVec d)
{
    VdxgShChan *reg = vdxg_dst(r, in);
    unsigned int c;

    for (c = 0; c < 4; c++) {
        if (in->mask & BIT(c)) {
            vdxg_store_chan(reg, in, e, c, d[c]);
        }
    }
}

/* Whether the result of @op is one value, to every channel */
static bool vdxg_op_splats(uint32_t op)
{
    return (op >= VDXG_OP_DP2 && op <= VDXG_OP_DP4) ||
           (op >= VDXG_OP_RCP && op <= VDXG_OP_COS);
}

/* @f applied to each lane of @v */
static inline VdxgShChan vdxg_map(float (*f)(float), VdxgShChan v)
{
    unsigned int l;

    for (l = 0; l < VDXG_SH_LANES; l++) {
        v[l] = f(v[l]);
    }
    return v;
}

/* The value of a splatting opcode on sources @a, @b in the lanes of @e */
static VdxgShChan vdxg_alu_splat(uint32_t op, uint32_t e, const VdxgShChan *a,
                                 const VdxgShChan *b)
{
    VdxgShChan t = vdxg_sh_splat(0.0f), p;
    unsigned int c, l;

    switch (op) {
    case VDXG_OP_DP2:
    case VDXG_OP_DP3:
    case VDXG_OP_DP4:
        t = a[0] * b[0];
        for (c = 1; c < 2 + (op - VDXG_OP_DP2); c++) {
            p = a[c] * b[c];
            t = t + p;
        }
        return t;
    case VDXG_OP_RCP:
        return vdxg_sh_splat(1.0f) / a[0];
    case VDXG_OP_RSQ:
        t = vdxg_map(sqrtf, vdxg_map(fabsf, a[0]));
        return vdxg_sh_splat(1.0f) / t;
    case VDXG_OP_SQRT:
        return vdxg_map(sqrtf, a[0]);
    }
    /* The specified functions: on the lanes that run only */
    FOR_LANES(l, e) {
        switch (op) {
        case VDXG_OP_EX2:
            t[l] = vdxg_ex2(a[0][l]);
            break;
        case VDXG_OP_LG2:
            t[l] = vdxg_lg2(a[0][l]);
            break;
        case VDXG_OP_POW:
            t[l] = vdxg_lg2(a[0][l]);
            t[l] = b[0][l] * t[l];
            t[l] = vdxg_ex2(t[l]);
            break;
        case VDXG_OP_SIN:
            t[l] = vdxg_sin(a[0][l]);
            break;
        default:
            t[l] = vdxg_cos(a[0][l]);
            break;
        }
    }
    return t;
}

/* A channel of a componentwise opcode on that channel of @a, @b, @c */
static inline VdxgShChan vdxg_alu_chan(uint32_t op, uint32_t e,
                                       VdxgShChan a, VdxgShChan b,
                                       VdxgShChan c)
{
    VdxgShChan zero = vdxg_sh_splat(0.0f), one = vdxg_sh_splat(1.0f), p, q;
    unsigned int l;

    switch (op) {
    case VDXG_OP_MOV:
        return a;
    case VDXG_OP_ADD:
        return a + b;
    case VDXG_OP_MUL:
        return a * b;
    case VDXG_OP_MAD:
        p = a * b;
        return p + c;
    case VDXG_OP_MIN:
        return vdxg_sel(a < b, a, b);
    case VDXG_OP_MAX:
        return vdxg_sel(a > b, a, b);
    case VDXG_OP_SLT:
        return vdxg_sel(a < b, one, zero);
    case VDXG_OP_SGE:
        return vdxg_sel(a >= b, one, zero);
    case VDXG_OP_SEQ:
        return vdxg_sel(a == b, one, zero);
    case VDXG_OP_SNE:
        return vdxg_sel(a != b, one, zero);
    case VDXG_OP_CMP:
        return vdxg_sel(a < zero, b, c);
    case VDXG_OP_LRP:
        p = a * b;
        q = one - a;
        q = q * c;
        return p + q;
    case VDXG_OP_FRC:
        return a - vdxg_map(floorf, a);
    case VDXG_OP_FLR:
        return vdxg_map(floorf, a);
    case VDXG_OP_CEIL:
        return vdxg_map(ceilf, a);
    case VDXG_OP_TRUNC:
        return vdxg_map(truncf, a);
    case VDXG_OP_ROUND:
        return vdxg_map(rintf, a);
    case VDXG_OP_SSG:
        p = vdxg_sel(a < zero, vdxg_sh_splat(-1.0f), zero);
        return vdxg_sel(a > zero, one, p);
    case VDXG_OP_DIV:
        return a / b;
    case VDXG_OP_LDEXP:
        p = zero;
        FOR_LANES(l, e) {
            p[l] = vdxg_ldexp(a[l], b[l]);
        }
        return p;
    default:
        return zero;
    }
}

/* DDX and DDY: the partner lanes of each lane */
static const uint8_t vdxg_ddx_lanes[4][2] = { {0, 1}, {0, 1}, {2, 3}, {2, 3} };
static const uint8_t vdxg_ddy_lanes[4][2] = { {0, 2}, {1, 3}, {0, 2}, {1, 3} };

/* DDX or DDY of @a, in every lane of a fragment quad */
static void vdxg_deriv(uint32_t op, const VdxgShChan *a, VdxgShVec d)
{
    unsigned int c, l;

    for (c = 0; c < 4; c++) {
        for (l = 0; l < VDXG_SH_LANES; l++) {
            const uint8_t *h = op == VDXG_OP_DDX ? vdxg_ddx_lanes[l] :
                                                   vdxg_ddy_lanes[l];

            d[c][l] = a[c][h[1]] - a[c][h[0]];
        }
    }
}

/* The coordinates (face, s, t) that lane @l of @in samples, from @a */
static void vdxg_tex_coord(const VdxgShInsn *in, const VdxgShChan *a,
                           unsigned int l, unsigned int *face, float *s,
                           float *t)
{
    float x = a[0][l], y = a[1][l], z = a[2][l], w = a[3][l];

    if (in->op == VDXG_OP_TXP) {
        x = x / w;
        y = y / w;
        if (in->cube) {
            z = z / w;
        }
    }
    if (in->cube) {
        vdxg_cube_coord(x, y, z, face, s, t);
    } else {
        *face = 0;
        *s = x;
        *t = y;
    }
}

/* A texture opcode on the lanes of @e */
static bool vdxg_tex_op(VdxgShRun *r, const VdxgShInsn *in, uint32_t e)
{
    VdxgShVec d = { 0 };
    const VdxgShChan *a, *b = NULL, *c = NULL;
    float s[4], t[4], res[4], lod;
    unsigned int face[4], l, i;
    uint32_t tw = r->tex_w[in->unit], th = r->tex_h[in->unit];
    bool frag = r->nlanes == VDXG_SH_LANES;

    /* Coordinates of every lane: derivatives read them all. */
    a = vdxg_src(r, &in->src[0], r->tmp[0]);
    if (in->op == VDXG_OP_TXD) {
        b = vdxg_src(r, &in->src[1], r->tmp[1]);
        c = vdxg_src(r, &in->src[2], r->tmp[2]);
    }
    for (l = 0; l < r->nlanes; l++) {
        vdxg_tex_coord(in, a, l, &face[l], &s[l], &t[l]);
    }
    FOR_LANES(l, e) {
        if (in->op == VDXG_OP_TXL) {
            lod = a[3][l];
        } else {
            float dsdx = 0, dtdx = 0, dsdy = 0, dtdy = 0;

            if (in->op == VDXG_OP_TXD) {
                dsdx = b[0][l];
                dtdx = b[1][l];
                dsdy = c[0][l];
                dtdy = c[1][l];
            } else if (frag) {
                const uint8_t *hx = vdxg_ddx_lanes[l], *hy = vdxg_ddy_lanes[l];

                dsdx = s[hx[1]] - s[hx[0]];
                dtdx = t[hx[1]] - t[hx[0]];
                dsdy = s[hy[1]] - s[hy[0]];
                dtdy = t[hy[1]] - t[hy[0]];
            }
            lod = vdxg_tex_lod(dsdx, dtdx, dsdy, dtdy, tw, th);
            if (in->op == VDXG_OP_TXB) {
                lod = lod + a[3][l];
            }
        }
        if (isnan(lod)) {
            lod = 0;
        }
        if (!r->sample(r->opaque, in->unit, face[l], s[l], t[l], lod, res)) {
            return false;
        }
        for (i = 0; i < 4; i++) {
            d[i][l] = res[i];
        }
    }
    vdxg_store(r, in, e, d);
    return true;
}

/*
 * An arithmetic opcode on the lanes of @e, a channel at a time: a source
 * that is its destination register as it is reads a channel before it
 * is written.
 */
static void vdxg_arith_op(VdxgShRun *r, const VdxgShInsn *in, uint32_t e)
{
    VdxgShChan *reg = vdxg_dst(r, in), t;
    const VdxgShChan *a, *b, *c;
    unsigned int i;

    a = vdxg_src(r, &in->src[0], r->tmp[0]);
    b = in->nsrc > 1 ? vdxg_src(r, &in->src[1], r->tmp[1]) : a;
    c = in->nsrc > 2 ? vdxg_src(r, &in->src[2], r->tmp[2]) : a;
    if (vdxg_op_splats(in->op)) {
        t = vdxg_alu_splat(in->op, e, a, b);
        for (i = 0; i < 4; i++) {
            if (in->mask & BIT(i)) {
                vdxg_store_chan(reg, in, e, i, t);
            }
        }
        return;
    }
    for (i = 0; i < 4; i++) {
        if (in->mask & BIT(i)) {
            t = vdxg_alu_chan(in->op, e, a[i], b[i], c[i]);
            vdxg_store_chan(reg, in, e, i, t);
        }
    }
}

/* DDX or DDY on the lanes of @e */
static void vdxg_deriv_op(VdxgShRun *r, const VdxgShInsn *in, uint32_t e)
{
    VdxgShVec d = { 0 };

    if (r->nlanes == VDXG_SH_LANES) {
        vdxg_deriv(in->op, vdxg_src(r, &in->src[0], r->tmp[0]), d);
    }
    vdxg_store(r, in, e, d);
}

/* The lanes of @e whose source 0 passes @op's test (IF, KILL_IF) */
static uint32_t vdxg_cond(VdxgShRun *r, const VdxgShInsn *in,
                          uint32_t e)
{
    const VdxgShChan *a = vdxg_src(r, &in->src[0], r->tmp[0]);
    uint32_t cond = 0;
    unsigned int l;

    FOR_LANES(l, e) {
        if (in->op == VDXG_OP_IF ? a[0][l] != 0 :
            a[0][l] < 0 || a[1][l] < 0 || a[2][l] < 0 || a[3][l] < 0) {
            cond |= BIT(l);
        }
    }
    return cond;
}

/* The number of OUTPUTs of the stage of @p */
static unsigned int vdxg_num_outputs(const VdxgProgram *p)
{
    return p->stage == VDXG_3D_STAGE_VERTEX ? VDXG_3D_VS_OUTPUTS :
                                              VDXG_3D_FS_OUTPUTS;
}

/* A new invocation: its TEMPs, OUTPUTs and A0.x */
static void vdxg_shader_start(VdxgShRun *r)
{
    const VdxgProgram *p = r->p;

    memset(r->temp, 0, p->num_temps * sizeof(r->temp[0]));
    memset(r->out, 0, vdxg_num_outputs(p) * sizeof(r->out[0]));
    memset(r->a0, 0, sizeof(r->a0));
}

/* The OUTPUTs of a finished invocation, into each lane's out[] */
static void vdxg_shader_finish(VdxgShRun *r)
{
    unsigned int n = vdxg_num_outputs(r->p), i, c, l;

    for (i = 0; i < n; i++) {
        for (l = 0; l < r->nlanes; l++) {
            for (c = 0; c < 4; c++) {
                r->lane[l].out[i][c] = r->out[i][c][l];
            }
        }
    }
}

static VdxgShResult vdxg_shader_exec(VdxgShRun *r, uint32_t *pc_out,
                                     bool resume);

VdxgShResult vdxg_shader_run(VdxgShRun *r, uint32_t *pc_out)
{
    return vdxg_shader_exec(r, pc_out, false);
}

VdxgShResult vdxg_shader_resume(VdxgShRun *r, uint32_t *pc_out)
{
    return vdxg_shader_exec(r, pc_out, true);
}

static VdxgShResult vdxg_shader_exec(VdxgShRun *r, uint32_t *pc_out,
                                     bool resume)
{
    const VdxgProgram *p = r->p;
    VdxgShFrame *st = r->y_stack;
    int sp = 0, loop = -1;
    uint32_t L = r->live, E = L, pc = 0, visits = 0, l, cond, lm;
    const VdxgShChan *a;

    if (resume) {
        pc = r->y_pc;
        visits = r->y_visits;
        L = r->y_live;
        E = r->y_exec;
        sp = r->y_sp;
        loop = r->y_loop;
    } else {
        vdxg_shader_start(r);
    }
    for (;;) {
        const VdxgShInsn *in = &p->insn[pc];

        if (visits == VDXG_3D_MAX_STEPS) {
            r->steps += visits;
            *pc_out = pc;
            return VDXG_SH_STEPS;
        }
        if (r->budget) {
            if (*r->budget <= 0 && visits) {
                r->y_pc = pc;
                r->y_visits = visits;
                r->y_live = L;
                r->y_exec = E;
                r->y_sp = sp;
                r->y_loop = loop;
                *pc_out = pc;
                return VDXG_SH_YIELD;
            }
            *r->budget -= r->cost;
        }
        visits++;
        switch (in->op) {
        case VDXG_OP_NOP:
            break;
        case VDXG_OP_IF:
            cond = vdxg_cond(r, in, E);
            st[sp] = (VdxgShFrame) {
                .loop = false, .saved = E, .els = E & ~cond,
                .outer_loop = loop,
            };
            sp++;
            E &= cond;
            break;
        case VDXG_OP_ELSE:
        case VDXG_OP_ENDIF:
            lm = st[sp - 1].outer_loop >= 0 ?
                 st[st[sp - 1].outer_loop].els |
                 st[st[sp - 1].outer_loop].cont : 0;
            if (in->op == VDXG_OP_ELSE) {
                E = st[sp - 1].els & ~lm & L;
            } else {
                E = st[sp - 1].saved & ~lm & L;
                sp--;
            }
            break;
        case VDXG_OP_BGNLOOP:
            st[sp] = (VdxgShFrame) {
                .loop = true, .saved = E, .outer_loop = loop,
            };
            loop = sp;
            sp++;
            break;
        case VDXG_OP_BRK:
            st[loop].els |= E;
            E = 0;
            break;
        case VDXG_OP_CONT:
            st[loop].cont |= E;
            E = 0;
            break;
        case VDXG_OP_ENDLOOP:
            E = (E | st[sp - 1].cont) & L;
            st[sp - 1].cont = 0;
            if (E) {
                pc = in->target + 1;
                continue;
            }
            E = st[sp - 1].saved & L;
            sp--;
            loop = st[sp].outer_loop;
            break;
        case VDXG_OP_KILL:
            L &= ~E;
            E = 0;
            break;
        case VDXG_OP_KILL_IF:
            L &= ~vdxg_cond(r, in, E);
            E &= L;
            break;
        case VDXG_OP_END:
            r->steps += visits;
            r->live = L;
            vdxg_shader_finish(r);
            return VDXG_SH_OK;
        case VDXG_OP_ARL:
            a = vdxg_src(r, &in->src[0], r->tmp[0]);
            FOR_LANES(l, E) {
                r->a0[l] = vdxg_floor_int(a[0][l], -32768, 32767);
            }
            break;
        case VDXG_OP_TEX:
        case VDXG_OP_TXB:
        case VDXG_OP_TXL:
        case VDXG_OP_TXP:
        case VDXG_OP_TXD:
            if (E && !vdxg_tex_op(r, in, E)) {
                r->steps += visits;
                *pc_out = pc;
                return VDXG_SH_MEMFAULT;
            }
            break;
        case VDXG_OP_DDX:
        case VDXG_OP_DDY:
            if (E) {
                vdxg_deriv_op(r, in, E);
            }
            break;
        default:
            if (E) {
                vdxg_arith_op(r, in, E);
            }
            break;
        }
        pc++;
    }
}
