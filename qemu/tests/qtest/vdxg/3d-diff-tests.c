/*
 * QTest testcases for the vdxg virtual GPU: the 3D pipeline against
 * libvdxg's reference (vdxg_ref3d.c, linked in)
 *
 * docs/hardware.md requires the device and the reference to produce the
 * same bits. Each case generates, from a fixed seed, a random scene: valid
 * programs that use every opcode, source modifiers, relative constants,
 * divergent control flow, KILL, derivatives and the texture opcodes;
 * random state registers, vertex formats and buffers, textures and
 * targets; draws of every primitive, indexed or not, and CLEARs. Some
 * scenes have one invalid command. The scene's memory is a VRAM window
 * the test mirrors: the device runs the DMA buffer on VRAM, the reference
 * on the mirror, and the whole window and the fault (reason and address)
 * must be the same.
 *
 * VDXG_DIFF_CASE=n runs case n alone, VDXG_DIFF_CASES=n cases 0 to n - 1;
 * VDXG_DIFF_ALL=1 goes on after a mismatch and lists every mismatching
 * case.
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libqtest.h"
#include "vdxg-test.h"
#include "vdxg_ref3d.h"

#define DF_SEED         0x3d0d1ff
#define DF_CASES        400

/* The scene's window of VRAM and its layout */
#define DF_WIN          0x1800000ull
#define DF_WIN_SIZE     0x30000u
#define DF_VS           0x00000u
#define DF_FS           0x01000u
#define DF_CONST_VS     0x02000u
#define DF_CONST_FS     0x03000u
#define DF_VB0          0x04000u
#define DF_VB1          0x06000u
#define DF_IB           0x08000u
#define DF_STATE        0x09000u
#define DF_TEX          0x0a000u
#define DF_TEX_END      0x20000u
#define DF_DST          0x20000u
#define DF_DEPTH        0x28000u
/* The DMA buffer, outside the window */
#define DF_DMA          0x1a00000ull
/*
 * Virtual mode: address space 0 (tables at DF_VM_TBL), the window at
 * DF_VA with page i at DF_WIN + page DF_PERM(i), the DMA buffer at
 * DF_VA_DMA on DF_DMA's pages
 */
#define DF_VM_AS_TABLE  0x1c00000ull
#define DF_VM_TBL(l)    (0x1c01000ull + (3 - (l)) * PG_PAGE)
#define DF_VA           0x100000ull
#define DF_VA_DMA       0x180000ull
#define DF_PAGES        (DF_WIN_SIZE / PG_PAGE)
#define DF_AREA         0x1c10000ull    /* the entry's state area */
#define DF_PERM(i)      ((i) * 7 % DF_PAGES)

#define DF_NV           32      /* vertices in the buffers */
#define DF_NCONST       8       /* constants bound to each stage */
#define DF_TEMPS        8       /* TEMPs the random instructions use */
#define DF_CNT_TEMP     100     /* loop counters: TEMP 100 + depth */
#define DF_MAX_INSNS    160

typedef struct DfProg {
    uint32_t insn[DF_MAX_INSNS][4];
    uint32_t n;
    float imm[16][4];
    uint32_t m;
    uint32_t stage;
    uint32_t depth;             /* open IFs and loops */
    uint32_t loops;             /* open loops */
    uint32_t tex_dst;           /* 1 + the TEMP a texture opcode wrote */
} DfProg;

typedef struct DfTex {
    bool bound, cube;
    uint32_t fmt, levels, w, h;
} DfTex;

typedef struct Df {
    Pg *p;
    GRand *r;
    uint8_t *mem;               /* the window, as the reference sees it */
    struct vdxg_ref3d_ctx *ctx;
    uint32_t fmt, dfmt, w, h, dw, dh;
    DfTex tex[VDXG_3D_NUM_UNITS];
    uint32_t stride0;
    bool has_ib;
    uint32_t ib_isz, ib_size;
    /* What the cases did: faults by reason, targets changed */
    uint32_t faults[32];
    uint32_t drawn;
    /* Virtual mode: the window at DF_VA, its pages scattered over DF_WIN */
    bool virt;
    uint64_t base;              /* the window's GPU (or virtual) address */
    bool runaway;               /* a program that never ends */
    /*
     * Every scene samples unit 0, an RGB888 texture whose first row
     * crosses a page boundary (virtual mode: its pages are scattered)
     */
    bool straddle;
    uint32_t nconst;
} Df;

static uint32_t df_f2u(float f)
{
    uint32_t u;

    memcpy(&u, &f, 4);
    return u;
}

static uint32_t rnd(Df *d, uint32_t n)
{
    return g_rand_int_range(d->r, 0, n);
}

static bool chance(Df *d, uint32_t pct)
{
    return rnd(d, 100) < pct;
}

static float rndf(Df *d, double lo, double hi)
{
    return (float)g_rand_double_range(d->r, lo, hi);
}

/* A float operand: mostly tame, sometimes special */
static float df_value(Df *d)
{
    static const uint32_t special[] = {
        0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000,
        0xff800000, 0x7fc00000, 0x00000001, 0x807fffff, 0x7f7fffff,
        0x3f000000, 0x40490fdb, 0x4b000000, 0x3effffff,
    };
    float f;

    switch (rnd(d, 10)) {
    case 0:
        memcpy(&f, &special[rnd(d, ARRAY_SIZE(special))], 4);
        return f;
    case 1:
        return rndf(d, -1000, 1000);
    case 2:
        return (float)((int)rnd(d, 9) - 4);
    default:
        return rndf(d, -2, 2);
    }
}

/* Memory of the window, for the reference */
static bool df_range_ok(void *opaque, uint64_t addr, uint64_t len)
{
    Df *d = opaque;

    if (addr + len < addr) {
        return false;
    }
    if (d->virt) {
        return addr + len <= 1ull << 48;
    }
    if (addr + len <= PG_VRAM_SIZE) {
        return true;
    }
    return addr >= VDXG_APERTURE_BASE &&
           addr + len <= VDXG_APERTURE_BASE + PG_APERTURE_SIZE;
}

static bool df_read(void *opaque, uint64_t addr, void *buf, uint32_t len)
{
    Df *d = opaque;

    if (addr < d->base || addr + len > d->base + DF_WIN_SIZE) {
        return false;
    }
    memcpy(buf, d->mem + (addr - d->base), len);
    return true;
}

static bool df_write(void *opaque, uint64_t addr, const void *buf,
                     uint32_t len)
{
    Df *d = opaque;

    if (addr < d->base || addr + len > d->base + DF_WIN_SIZE) {
        return false;
    }
    memcpy(d->mem + (addr - d->base), buf, len);
    return true;
}

static void df_put32(Df *d, uint32_t off, uint32_t v)
{
    stl_le_p(d->mem + off, v);
}

/* Programs */

static uint32_t df_op_srcs(uint32_t op)
{
    switch (op) {
    case VDXG_OP_NOP: case VDXG_OP_KILL: case VDXG_OP_ELSE:
    case VDXG_OP_ENDIF: case VDXG_OP_BGNLOOP: case VDXG_OP_ENDLOOP:
    case VDXG_OP_BRK: case VDXG_OP_CONT: case VDXG_OP_END:
        return 0;
    case VDXG_OP_ADD: case VDXG_OP_MUL: case VDXG_OP_DP2: case VDXG_OP_DP3:
    case VDXG_OP_DP4: case VDXG_OP_MIN: case VDXG_OP_MAX: case VDXG_OP_SLT:
    case VDXG_OP_SGE: case VDXG_OP_SEQ: case VDXG_OP_SNE: case VDXG_OP_POW:
    case VDXG_OP_DIV: case VDXG_OP_LDEXP:
        return 2;
    case VDXG_OP_MAD: case VDXG_OP_CMP: case VDXG_OP_LRP: case VDXG_OP_TXD:
        return 3;
    default:
        return 1;
    }
}

static uint32_t df_emit(DfProg *g, uint32_t d0, uint32_t a, uint32_t b,
                        uint32_t c)
{
    g_assert(g->n < DF_MAX_INSNS);
    g->insn[g->n][0] = d0;
    g->insn[g->n][1] = a;
    g->insn[g->n][2] = b;
    g->insn[g->n][3] = c;
    return g->n++;
}

static uint32_t df_swz(Df *d)
{
    if (chance(d, 40)) {
        return VDXG_SWIZZLE_XYZW;
    }
    return VDXG_SWIZZLE(rnd(d, 4), rnd(d, 4), rnd(d, 4), rnd(d, 4));
}

/* A random valid source for the program's stage */
static uint32_t df_src(Df *d, DfProg *g)
{
    uint32_t mods = (chance(d, 15) ? VDXG_SRC_ABS : 0) |
                    (chance(d, 20) ? VDXG_SRC_NEGATE : 0);
    uint32_t swz = df_swz(d);

    switch (rnd(d, 10)) {
    case 0: case 1: case 2: case 3:
        return VDXG_SRC(VDXG_FILE_TEMP, rnd(d, DF_TEMPS), swz) | mods;
    case 4: case 5: case 6:
        return VDXG_SRC(VDXG_FILE_INPUT,
                        g->stage ? rnd(d, VDXG_3D_FS_INPUTS)
                                 : rnd(d, chance(d, 20) ? 16 : 4),
                        swz) | mods;
    case 7:
        if (chance(d, 30)) {
            return VDXG_SRC(VDXG_FILE_CONST,
                            rnd(d, chance(d, 20) ? 256 : 12), swz) | mods |
                   VDXG_SRC_RELATIVE;
        }
        return VDXG_SRC(VDXG_FILE_CONST, rnd(d, DF_NCONST), swz) | mods;
    default:
        return VDXG_SRC(VDXG_FILE_IMM, rnd(d, g->m), swz) | mods;
    }
}

/* A destination of a computing instruction */
static uint32_t df_dst(Df *d, DfProg *g, uint32_t op)
{
    uint32_t mask = rnd(d, 16), sat = chance(d, 20) ? VDXG_INSN_SAT : 0;

    if (chance(d, 12)) {
        /* a varying (vertex) or the colour (fragment) */
        return VDXG_INSN(op, VDXG_FILE_OUTPUT,
                         g->stage ? 0 : VDXG_VS_OUT_VARYING(rnd(d, 8)),
                         mask) | sat;
    }
    return VDXG_INSN(op, VDXG_FILE_TEMP, rnd(d, DF_TEMPS), mask) | sat;
}

static const uint8_t df_alu_ops[] = {
    VDXG_OP_NOP, VDXG_OP_MOV, VDXG_OP_ADD, VDXG_OP_MUL, VDXG_OP_MAD,
    VDXG_OP_DP2, VDXG_OP_DP3, VDXG_OP_DP4, VDXG_OP_MIN, VDXG_OP_MAX,
    VDXG_OP_SLT, VDXG_OP_SGE, VDXG_OP_SEQ, VDXG_OP_SNE, VDXG_OP_CMP,
    VDXG_OP_LRP, VDXG_OP_FRC, VDXG_OP_FLR, VDXG_OP_CEIL, VDXG_OP_TRUNC,
    VDXG_OP_ROUND, VDXG_OP_SSG, VDXG_OP_RCP, VDXG_OP_RSQ, VDXG_OP_SQRT,
    VDXG_OP_EX2, VDXG_OP_LG2, VDXG_OP_POW, VDXG_OP_SIN, VDXG_OP_COS,
    VDXG_OP_DIV, VDXG_OP_DDX, VDXG_OP_DDY, VDXG_OP_LDEXP,
};

static void df_alu(Df *d, DfProg *g, uint32_t op)
{
    uint32_t s[3] = { 0, 0, 0 }, i;

    for (i = 0; i < df_op_srcs(op); i++) {
        s[i] = df_src(d, g);
    }
    df_emit(g, op == VDXG_OP_NOP ? op : df_dst(d, g, op), s[0], s[1], s[2]);
}

static void df_tex_op(Df *d, DfProg *g)
{
    static const uint8_t ops[] = {
        VDXG_OP_TEX, VDXG_OP_TXB, VDXG_OP_TXL, VDXG_OP_TXP, VDXG_OP_TXD,
    };
    uint32_t op = ops[rnd(d, ARRAY_SIZE(ops))], u, s[3] = { 0, 0, 0 }, i;
    uint32_t bound[VDXG_3D_NUM_UNITS], nb = 0;

    for (u = 0; u < VDXG_3D_NUM_UNITS; u++) {
        if (d->tex[u].bound) {
            bound[nb++] = u;
        }
    }
    if (!nb) {
        df_alu(d, g, VDXG_OP_MOV);
        return;
    }
    u = bound[rnd(d, nb)];
    for (i = 0; i < df_op_srcs(op); i++) {
        s[i] = df_src(d, g);
    }
    if (chance(d, 60)) {
        /* texture coordinates: a varying or the point coordinate */
        s[0] = VDXG_SRC(VDXG_FILE_INPUT,
                        g->stage ? (chance(d, 80) ? rnd(d, 3) : 10)
                                 : 1 + rnd(d, 2), VDXG_SWIZZLE_XYZW);
        if (chance(d, 40)) {
            /* scaled by imm[2] (16, 64, -8, 0.03): minified, mipmapped */
            df_emit(g, VDXG_INSN(VDXG_OP_MUL, VDXG_FILE_TEMP, DF_TEMPS - 1,
                                 0xf), s[0],
                    VDXG_SRC(VDXG_FILE_IMM, 2, df_swz(d)), 0);
            s[0] = VDXG_SRC(VDXG_FILE_TEMP, DF_TEMPS - 1, df_swz(d));
        }
    }
    i = rnd(d, DF_TEMPS - 2);
    df_emit(g, VDXG_INSN(op, VDXG_FILE_TEMP, i, chance(d, 80) ? 0xf : 7) |
               VDXG_INSN_TEX(u, d->tex[u].cube), s[0], s[1], s[2]);
    g->tex_dst = 1 + i;
}

static void df_block(Df *d, DfProg *g, uint32_t len);

static void df_if(Df *d, DfProg *g)
{
    g->depth++;
    df_emit(g, VDXG_OP_IF, df_src(d, g), 0, 0);
    df_block(d, g, 1 + rnd(d, 4));
    if (chance(d, 50)) {
        df_emit(g, VDXG_OP_ELSE, 0, 0, 0);
        df_block(d, g, 1 + rnd(d, 4));
    }
    df_emit(g, VDXG_OP_ENDIF, 0, 0, 0);
    g->depth--;
}

/*
 * A loop that ends: a counter in TEMP DF_CNT_TEMP + depth (no random
 * instruction writes it) decremented at its top, BRK when it is below 0;
 * CONT and BRK of some lanes inside.
 */
static void df_loop(Df *d, DfProg *g)
{
    uint32_t c = DF_CNT_TEMP + g->loops, t = c + 10;
    uint32_t cx = VDXG_SRC(VDXG_FILE_TEMP, c, VDXG_SWIZZLE(0, 0, 0, 0));

    /* imm[0] is (0, 1, -1, 0.5), imm[1] (2, 3, 0.25, 4) */
    df_emit(g, VDXG_INSN(VDXG_OP_MOV, VDXG_FILE_TEMP, c, 1),
            VDXG_SRC(VDXG_FILE_IMM, 1, VDXG_SWIZZLE(rnd(d, 2), 0, 0, 0)),
            0, 0);
    g->depth++;
    g->loops++;
    df_emit(g, VDXG_OP_BGNLOOP, 0, 0, 0);
    df_emit(g, VDXG_INSN(VDXG_OP_ADD, VDXG_FILE_TEMP, c, 1), cx,
            VDXG_SRC(VDXG_FILE_IMM, 0, VDXG_SWIZZLE(2, 2, 2, 2)), 0);
    df_emit(g, VDXG_INSN(VDXG_OP_SLT, VDXG_FILE_TEMP, t, 1), cx,
            VDXG_SRC(VDXG_FILE_IMM, 0, VDXG_SWIZZLE(0, 0, 0, 0)), 0);
    df_emit(g, VDXG_OP_IF, VDXG_SRC(VDXG_FILE_TEMP, t, VDXG_SWIZZLE_XYZW),
            0, 0);
    df_emit(g, VDXG_OP_BRK, 0, 0, 0);
    df_emit(g, VDXG_OP_ENDIF, 0, 0, 0);
    df_block(d, g, 1 + rnd(d, 4));
    if (chance(d, 60)) {
        df_emit(g, VDXG_OP_IF, df_src(d, g), 0, 0);
        df_emit(g, chance(d, 50) ? VDXG_OP_BRK : VDXG_OP_CONT, 0, 0, 0);
        df_emit(g, VDXG_OP_ENDIF, 0, 0, 0);
    }
    df_block(d, g, rnd(d, 3));
    df_emit(g, VDXG_OP_ENDLOOP, 0, 0, 0);
    g->loops--;
    g->depth--;
}

static void df_block(Df *d, DfProg *g, uint32_t len)
{
    uint32_t i, k;

    for (i = 0; i < len && g->n < DF_MAX_INSNS - 24; i++) {
        k = rnd(d, 100);
        if (k < 8 && g->depth < 3) {
            df_if(d, g);
        } else if (k < 12 && g->depth < 3 && g->loops < 2) {
            df_loop(d, g);
        } else if (k == 99 && d->runaway) {
            /* a loop that never ends: the visits run out */
            df_emit(g, VDXG_OP_BGNLOOP, 0, 0, 0);
            df_alu(d, g, VDXG_OP_ADD);
            df_emit(g, VDXG_OP_ENDLOOP, 0, 0, 0);
        } else if (k < 20) {
            df_tex_op(d, g);
        } else if (k < 24) {
            df_emit(g, VDXG_INSN(VDXG_OP_ARL, VDXG_FILE_ADDR, 0, 1),
                    df_src(d, g), 0, 0);
        } else if (k < 26 && g->stage) {
            df_emit(g, VDXG_OP_KILL_IF, df_src(d, g), 0, 0);
        } else if (k < 27 && g->stage && g->depth) {
            df_emit(g, VDXG_OP_KILL, 0, 0, 0);
        } else {
            df_alu(d, g, df_alu_ops[rnd(d, ARRAY_SIZE(df_alu_ops))]);
        }
    }
}

static void df_prog_init(Df *d, DfProg *g, uint32_t stage)
{
    uint32_t i, j;
    static const float fixed[3][4] = {
        { 0, 1, -1, 0.5f }, { 2, 3, 0.25f, 4 }, { 16, 64, -8, 0.03f },
    };

    memset(g, 0, sizeof(*g));
    g->stage = stage;
    g->m = 3 + rnd(d, 6);
    memcpy(g->imm, fixed, sizeof(fixed));
    for (i = 3; i < g->m; i++) {
        for (j = 0; j < 4; j++) {
            g->imm[i][j] = df_value(d);
        }
    }
}

static uint32_t df_prog_put(Df *d, DfProg *g, uint32_t off)
{
    uint32_t i, j, size = 16 * (1 + g->n + g->m);

    g_assert(size <= 0x1000);
    df_put32(d, off, VDXG_3D_PROGRAM_MAGIC);
    df_put32(d, off + 4, g->stage);
    df_put32(d, off + 8, g->n);
    df_put32(d, off + 12, g->m);
    for (i = 0; i < g->n; i++) {
        for (j = 0; j < 4; j++) {
            df_put32(d, off + 16 + i * 16 + j * 4, g->insn[i][j]);
        }
    }
    for (i = 0; i < g->m; i++) {
        for (j = 0; j < 4; j++) {
            df_put32(d, off + 16 + (g->n + i) * 16 + j * 4,
                     df_f2u(g->imm[i][j]));
        }
    }
    return size;
}

static uint32_t df_vs(Df *d, uint32_t off)
{
    DfProg *g = g_new(DfProg, 1);
    uint32_t size, i;

    df_prog_init(d, g, 0);
    df_block(d, g, rnd(d, 24));
    for (i = 0; i < 2; i++) {
        df_emit(g, VDXG_INSN(VDXG_OP_MOV, VDXG_FILE_OUTPUT,
                             VDXG_VS_OUT_VARYING(i), 0xf),
                VDXG_SRC(VDXG_FILE_INPUT, 1 + i, VDXG_SWIZZLE_XYZW), 0, 0);
    }
    df_emit(g, VDXG_INSN(VDXG_OP_MOV, VDXG_FILE_OUTPUT, 0, 0xf),
            VDXG_SRC(VDXG_FILE_INPUT, 0, VDXG_SWIZZLE_XYZW), 0, 0);
    if (chance(d, 15)) {
        /* a computed nudge of the position */
        df_emit(g, VDXG_INSN(VDXG_OP_MAD, VDXG_FILE_OUTPUT, 0, 3),
                VDXG_SRC(VDXG_FILE_TEMP, rnd(d, DF_TEMPS), df_swz(d)),
                VDXG_SRC(VDXG_FILE_IMM, 1, VDXG_SWIZZLE(2, 2, 2, 2)),
                VDXG_SRC(VDXG_FILE_INPUT, 0, VDXG_SWIZZLE_XYZW));
    }
    if (chance(d, 30)) {
        df_emit(g, VDXG_INSN(VDXG_OP_MOV, VDXG_FILE_OUTPUT, 1, 1),
                chance(d, 70) ? VDXG_SRC(VDXG_FILE_IMM, 1, df_swz(d))
                              : df_src(d, g), 0, 0);
    }
    df_emit(g, VDXG_OP_END, 0, 0, 0);
    size = df_prog_put(d, g, off);
    g_free(g);
    return size;
}

static uint32_t df_fs(Df *d, uint32_t off)
{
    DfProg *g = g_new(DfProg, 1);
    uint32_t size;

    df_prog_init(d, g, 1);
    if (d->straddle) {
        /* unit 0 at the first varying, nothing else */
        df_emit(g, VDXG_INSN(VDXG_OP_TEX, VDXG_FILE_OUTPUT, 0, 0xf) |
                   VDXG_INSN_TEX(0, false),
                VDXG_SRC(VDXG_FILE_INPUT, 0, VDXG_SWIZZLE_XYZW), 0, 0);
    } else {
        df_block(d, g, rnd(d, 30));
    }
    if (d->straddle) {
        /* done */
    } else if (chance(d, 50)) {
        /*
         * The fractional part of a sum of inputs and TEMPs: a colour that
         * any change of them changes
         */
        uint32_t t = VDXG_SRC(VDXG_FILE_TEMP, DF_TEMPS - 2, VDXG_SWIZZLE_XYZW);

        df_emit(g, VDXG_INSN(VDXG_OP_ADD, VDXG_FILE_TEMP, DF_TEMPS - 2, 0xf),
                VDXG_SRC(VDXG_FILE_INPUT, rnd(d, VDXG_3D_FS_INPUTS),
                         df_swz(d)),
                VDXG_SRC(VDXG_FILE_INPUT, rnd(d, VDXG_3D_FS_INPUTS),
                         df_swz(d)), 0);
        df_emit(g, VDXG_INSN(VDXG_OP_MAD, VDXG_FILE_TEMP, DF_TEMPS - 2, 0xf),
                g->tex_dst && chance(d, 80) ?
                VDXG_SRC(VDXG_FILE_TEMP, g->tex_dst - 1, df_swz(d)) :
                df_src(d, g),
                VDXG_SRC(VDXG_FILE_IMM, 0, VDXG_SWIZZLE(3, 3, 3, 3)), t);
        df_emit(g, VDXG_INSN(VDXG_OP_FRC, VDXG_FILE_OUTPUT, 0, 0xf), t, 0, 0);
    } else if (chance(d, 85)) {
        df_emit(g, VDXG_INSN(VDXG_OP_MOV, VDXG_FILE_OUTPUT, 0, 0xf) |
                   (chance(d, 30) ? VDXG_INSN_SAT : 0),
                chance(d, 50) ? VDXG_SRC(VDXG_FILE_INPUT, 0, df_swz(d))
                              : VDXG_SRC(VDXG_FILE_TEMP, rnd(d, DF_TEMPS),
                                         df_swz(d)), 0, 0);
    }
    df_emit(g, VDXG_OP_END, 0, 0, 0);
    size = df_prog_put(d, g, off);
    g_free(g);
    return size;
}

/* Commands */

static void df_hdr(Df *d, uint32_t op, uint32_t len)
{
    pb_dw(d->p, VDXG_PG_HDR(op, len));
}

static void df_reg(Df *d, uint32_t reg, uint32_t val)
{
    df_hdr(d, VDXG_RD_SET_STATE, VDXG_RD_SET_STATE_LEN(1));
    pb_dw(d->p, reg);
    pb_dw(d->p, val);
}

static void df_shader(Df *d, uint32_t stage, uint64_t addr, uint32_t size)
{
    df_hdr(d, VDXG_RD_SET_SHADER, VDXG_RD_SET_SHADER_LEN);
    pb_dw(d->p, stage);
    pb_qw(d->p, addr);
    pb_dw(d->p, size);
}

static void df_consts(Df *d, uint32_t stage, uint64_t addr, uint32_t n)
{
    df_hdr(d, VDXG_RD_SET_CONSTANTS, VDXG_RD_SET_CONSTANTS_LEN);
    pb_dw(d->p, stage);
    pb_qw(d->p, n ? addr : 0);
    pb_dw(d->p, n);
}

static void df_vb(Df *d, uint32_t i, uint64_t addr, uint32_t size,
                  uint32_t stride)
{
    df_hdr(d, VDXG_RD_SET_VERTEX_BUFFER, VDXG_RD_SET_VERTEX_BUFFER_LEN);
    pb_dw(d->p, i);
    pb_qw(d->p, size ? addr : 0);
    pb_dw(d->p, size);
    pb_dw(d->p, stride);
}

/* A random valid value of a state register */
static uint32_t df_reg_value(Df *d, uint32_t reg)
{
    uint32_t v;

    switch (reg) {
    case VDXG_3D_RASTER:
        v = rnd(d, 64);
        if ((v & 3) == 3 && chance(d, 80)) {
            v &= ~3;
        }
        return v;
    case VDXG_3D_POINT_SIZE:
        return df_f2u(chance(d, 10) ? df_value(d) : rndf(d, 0.5, 12));
    case VDXG_3D_POLY_OFFSET_FACTOR:
    case VDXG_3D_POLY_OFFSET_UNITS:
        return df_f2u(rndf(d, -4, 4));
    case VDXG_3D_VIEWPORT_SCALE(2):
    case VDXG_3D_VIEWPORT_TRANSLATE(2):
        return df_f2u(chance(d, 70) ? 0.5f : rndf(d, -1, 1));
    case VDXG_3D_SCISSOR_MIN:
        return VDXG_RD_XY(rnd(d, d->w / 2 + 1), rnd(d, d->h / 2 + 1));
    case VDXG_3D_SCISSOR_MAX:
        return VDXG_RD_XY(d->w / 2 + rnd(d, d->w), d->h / 2 + rnd(d, d->h));
    case VDXG_3D_DEPTH:
        return rnd(d, 32);
    case VDXG_3D_STENCIL_FRONT:
    case VDXG_3D_STENCIL_BACK:
        return g_rand_int(d->r) & ~VDXG_STENCIL_RSVD;
    case VDXG_3D_STENCIL_REF:
        return rnd(d, 0x10000);
    case VDXG_3D_BLEND:
        return (chance(d, 70) ? VDXG_BLEND_ENABLE : 0) |
               VDXG_BLEND_RGB_EQ(rnd(d, 5)) | VDXG_BLEND_RGB_SRC(rnd(d, 15)) |
               VDXG_BLEND_RGB_DST(rnd(d, 15)) | VDXG_BLEND_A_EQ(rnd(d, 5)) |
               VDXG_BLEND_A_SRC(rnd(d, 15)) | VDXG_BLEND_A_DST(rnd(d, 15)) |
               (chance(d, 30) ? VDXG_BLEND_WRITE_DISABLE(rnd(d, 16)) : 0);
    case VDXG_3D_BLEND_COLOR(0) ... VDXG_3D_BLEND_COLOR(3):
        return df_f2u(chance(d, 80) ? rndf(d, 0, 1) : df_value(d));
    default:
        if (reg >= VDXG_3D_SAMPLER(0) && reg <= VDXG_3D_SAMPLER(7)) {
            return rnd(d, 4) | VDXG_SAMPLER_MIP(rnd(d, 3)) |
                   VDXG_SAMPLER_WRAP_S(rnd(d, 3)) |
                   VDXG_SAMPLER_WRAP_T(rnd(d, 3));
        }
        return 0;
    }
}

static void df_state(Df *d)
{
    static const uint32_t regs[] = {
        VDXG_3D_RASTER, VDXG_3D_POINT_SIZE, VDXG_3D_POLY_OFFSET_FACTOR,
        VDXG_3D_POLY_OFFSET_UNITS, VDXG_3D_VIEWPORT_SCALE(2),
        VDXG_3D_VIEWPORT_TRANSLATE(2), VDXG_3D_SCISSOR_MIN,
        VDXG_3D_SCISSOR_MAX, VDXG_3D_DEPTH, VDXG_3D_STENCIL_FRONT,
        VDXG_3D_STENCIL_BACK, VDXG_3D_STENCIL_REF, VDXG_3D_BLEND,
        VDXG_3D_BLEND_COLOR(0), VDXG_3D_BLEND_COLOR(1),
        VDXG_3D_BLEND_COLOR(2), VDXG_3D_BLEND_COLOR(3),
    };
    uint32_t i, u, v;

    for (i = 0; i < ARRAY_SIZE(regs); i++) {
        if (chance(d, 60)) {
            do {
                v = df_reg_value(d, regs[i]);
            } while (!vdxg_ref3d_reg_valid(regs[i], v));
            df_reg(d, regs[i], v);
        }
    }
    if (chance(d, 30)) {
        /* the blend colour in one SET_STATE of four registers */
        df_hdr(d, VDXG_RD_SET_STATE, VDXG_RD_SET_STATE_LEN(4));
        pb_dw(d->p, VDXG_3D_BLEND_COLOR(0));
        for (i = 0; i < 4; i++) {
            pb_dw(d->p, df_reg_value(d, VDXG_3D_BLEND_COLOR(i)));
        }
    }
    for (u = 0; u < VDXG_3D_NUM_UNITS; u++) {
        if (d->tex[u].bound) {
            df_reg(d, VDXG_3D_SAMPLER(u),
                   df_reg_value(d, VDXG_3D_SAMPLER(u)));
        }
    }
}

/* The viewport and the vertex elements, through a LOAD_STATE block */
static void df_viewport_elements(Df *d)
{
    uint32_t blk[16], i, e, type, comps;
    float sx = d->w / 2.0f, sy = d->h / 2.0f;

    if (chance(d, 20)) {
        sy = -sy;
    }
    if (chance(d, 10)) {
        sx = rndf(d, -2 * d->w, 2 * d->w);
    }
    blk[0] = df_f2u(sx);
    blk[1] = df_f2u(sy);
    blk[2] = df_f2u(0.5f);
    blk[3] = df_f2u(d->w / 2.0f + (chance(d, 30) ? rndf(d, -1, 1) : 0));
    blk[4] = df_f2u(d->h / 2.0f + (chance(d, 30) ? rndf(d, -1, 1) : 0));
    blk[5] = df_f2u(0.5f);
    for (i = 0; i < 6; i++) {
        df_put32(d, DF_STATE + i * 4, blk[i]);
    }
    df_hdr(d, VDXG_RD_LOAD_STATE, VDXG_RD_LOAD_STATE_LEN);
    pb_qw(d->p, d->base + DF_STATE);
    pb_dw(d->p, VDXG_3D_VIEWPORT_SCALE(0));
    pb_dw(d->p, 6);

    /* Element 0: the position; 1 and 2 random (varyings), more unused */
    df_reg(d, VDXG_3D_ELEMENT(0),
           VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_FLOAT32, 4), 0, 0));
    for (e = 1; e < 5 + rnd(d, 12); e++) {
        if (chance(d, 15)) {
            df_reg(d, VDXG_3D_ELEMENT(e), 0);
            continue;
        }
        type = 1 + rnd(d, 9);
        comps = 1 + rnd(d, 4);
        df_reg(d, VDXG_3D_ELEMENT(e),
               VDXG_ELEMENT(VDXG_VFMT(type, comps), rnd(d, 3),
                            rnd(d, 40)));
    }
}

/* Vertex buffers 0 (positions) and 1, 2 (random bytes; 2 unbound) */
static void df_vertices(Df *d)
{
    uint32_t i, j, size;
    float pos[4];

    d->stride0 = 16 + 4 * rnd(d, 8);
    for (i = 0; i < 0x2000; i += 4) {
        df_put32(d, DF_VB0 + i, g_rand_int(d->r));
        df_put32(d, DF_VB1 + i, g_rand_int(d->r));
    }
    for (i = 0; i < 0x1000; i += 4) {
        /* varyings that read as floats: tame values mostly */
        if (chance(d, 70)) {
            df_put32(d, DF_VB0 + i, df_f2u(rndf(d, -0.5, 1.5)));
        }
    }
    for (i = 0; i < DF_NV; i++) {
        pos[3] = chance(d, 70) ? 1.0f : rndf(d, 0.25, 3);
        pos[0] = rndf(d, -1.3, 1.3) * pos[3];
        pos[1] = rndf(d, -1.3, 1.3) * pos[3];
        pos[2] = rndf(d, -1.1, 1.1) * pos[3];
        if (chance(d, 8)) {
            pos[rnd(d, 2)] = rndf(d, -7, 7) * pos[3];
        }
        if (chance(d, 4)) {
            pos[3] = -pos[3];
        }
        if (chance(d, 3)) {
            pos[rnd(d, 4)] = df_value(d) * 8;
        }
        for (j = 0; j < 4; j++) {
            df_put32(d, DF_VB0 + i * d->stride0 + j * 4, df_f2u(pos[j]));
        }
    }
    size = DF_NV * d->stride0;
    if (chance(d, 10)) {
        size -= rnd(d, size / 2);
    }
    df_vb(d, 0, d->base + DF_VB0, size, d->stride0);
    df_vb(d, 1, d->base + DF_VB1, chance(d, 10) ? 0 : 0x2000 - rnd(d, 64),
          rnd(d, 65));
}

static uint32_t df_tex_cpp(uint32_t fmt)
{
    return vdxg_ref3d_cpp(fmt);
}

static void df_textures(Df *d)
{
    static const uint8_t fmts[] = {
        VDXG_FMT_XRGB8888, VDXG_FMT_ARGB8888, VDXG_FMT_RGB565,
        VDXG_FMT_ABGR8888, VDXG_FMT_RGBA4444, VDXG_FMT_RGBA5551,
        VDXG_FMT_L8, VDXG_FMT_A8, VDXG_FMT_L8A8, VDXG_FMT_RGB888,
    };
    uint32_t u, off = DF_TEX, l, span, i, faces;
    DfTex *t;

    for (u = 0; u < VDXG_3D_NUM_UNITS; u++) {
        t = &d->tex[u];
        memset(t, 0, sizeof(*t));
        if (!chance(d, 40) && !(d->straddle && !u)) {
            continue;
        }
        t->cube = chance(d, 25);
        t->fmt = fmts[rnd(d, ARRAY_SIZE(fmts))];
        if (d->straddle && !u) {
            t->cube = false;
            t->fmt = VDXG_FMT_RGB888;
        }
        t->w = 1 + rnd(d, 16);
        t->h = t->cube ? t->w : 1 + rnd(d, 16);
        t->levels = 1 + rnd(d, 6);
        faces = t->cube ? 6 : 1;
        span = 0;
        for (l = 0; l < t->levels; l++) {
            span += faces * QEMU_ALIGN_UP(MAX(1, t->w >> l) *
                                          df_tex_cpp(t->fmt), 4) *
                    MAX(1, t->h >> l);
        }
        if (t->fmt == VDXG_FMT_RGB888 && !t->cube &&
            (chance(d, 50) || d->straddle)) {
            /*
             * 16 texels a row, level 0's first row across a page boundary
             * 4 to 44 bytes into it: in virtual mode, where the window's
             * pages are scattered, a texel can lie in two pages.
             */
            uint32_t edge = QEMU_ALIGN_UP(off + 48, PG_PAGE);

            t->w = 16;
            t->levels = 1;
            span = 48 * t->h;
            off = MAX(off, edge - 4 * (1 + rnd(d, 11)));
        }
        if (off + span > DF_TEX_END) {
            continue;
        }
        for (i = 0; i < span; i += 4) {
            df_put32(d, off + i, g_rand_int(d->r));
        }
        t->bound = true;
        df_hdr(d, VDXG_RD_SET_TEXTURE, VDXG_RD_SET_TEXTURE_LEN);
        pb_dw(d->p, u);
        pb_qw(d->p, d->base + off);
        pb_dw(d->p, span + rnd(d, 8));
        pb_dw(d->p, VDXG_TEX_DESC(t->fmt, t->levels, t->cube));
        pb_dw(d->p, VDXG_RD_XY(t->w, t->h));
        off = QEMU_ALIGN_UP(off + span, 4);
    }
}

static void df_constants(Df *d)
{
    uint32_t s, i;

    d->nconst = chance(d, 70) ? DF_NCONST : DF_NCONST + rnd(d, 249);
    for (s = 0; s < 2; s++) {
        for (i = 0; i < 4 * DF_NCONST; i++) {
            df_put32(d, (s ? DF_CONST_FS : DF_CONST_VS) + i * 4,
                     df_f2u(df_value(d)));
        }
        df_consts(d, s, d->base + (s ? DF_CONST_FS : DF_CONST_VS),
                  d->nconst);
    }
}

static void df_index_buffer(Df *d)
{
    static const uint8_t sizes[] = { 1, 2, 4 };
    uint32_t i, v;

    d->has_ib = chance(d, 70);
    if (!d->has_ib) {
        return;
    }
    d->ib_isz = sizes[rnd(d, 3)];
    d->ib_size = 64 * d->ib_isz - rnd(d, 4);
    for (i = 0; i < 64; i++) {
        v = chance(d, 95) ? rnd(d, DF_NV) : g_rand_int(d->r);
        if (d->ib_isz == 1) {
            d->mem[DF_IB + i] = v;
        } else if (d->ib_isz == 2) {
            stw_le_p(d->mem + DF_IB + i * 2, v);
        } else {
            stl_le_p(d->mem + DF_IB + i * 4, v);
        }
    }
    df_hdr(d, VDXG_RD_SET_INDEX_BUFFER, VDXG_RD_SET_INDEX_BUFFER_LEN);
    pb_qw(d->p, d->base + DF_IB);
    pb_dw(d->p, d->ib_size);
    pb_dw(d->p, d->ib_isz);
}

static void df_clear(Df *d)
{
    uint32_t flags = 0, i;

    if (d->fmt && chance(d, 70)) {
        flags |= VDXG_CLEAR_COLOR;
    }
    if (d->dfmt && chance(d, 70)) {
        flags |= VDXG_CLEAR_DEPTH;
    }
    if (d->dfmt == VDXG_FMT_D24S8 && chance(d, 60)) {
        flags |= VDXG_CLEAR_STENCIL;
    }
    df_hdr(d, VDXG_RD_CLEAR, VDXG_RD_CLEAR_LEN);
    pb_dw(d->p, flags);
    pb_dw(d->p, VDXG_RD_XY(rnd(d, d->w + 4), rnd(d, d->h + 4)));
    pb_dw(d->p, VDXG_RD_XY(rnd(d, 2 * d->w), rnd(d, 2 * d->h)));
    for (i = 0; i < 5; i++) {
        pb_dw(d->p, df_f2u(chance(d, 80) ? rndf(d, -0.2, 1.2)
                                         : df_value(d)));
    }
    pb_dw(d->p, rnd(d, 256));
}

static void df_draw(Df *d)
{
    uint32_t prim = rnd(d, 7), first, count;

    if (d->has_ib && chance(d, 50)) {
        first = rnd(d, 8);
        count = rnd(d, 64 - first);
        while ((first + count) * d->ib_isz > d->ib_size) {
            count--;
        }
        df_hdr(d, VDXG_RD_DRAW_INDEXED, VDXG_RD_DRAW_INDEXED_LEN);
        pb_dw(d->p, prim);
        pb_dw(d->p, first);
        pb_dw(d->p, count);
        pb_dw(d->p, chance(d, 80) ? 0 : (uint32_t)((int)rnd(d, 5) - 2));
    } else {
        first = rnd(d, 6);
        count = rnd(d, DF_NV - first + 4);
        df_hdr(d, VDXG_RD_DRAW, VDXG_RD_DRAW_LEN);
        pb_dw(d->p, prim);
        pb_dw(d->p, first);
        pb_dw(d->p, count);
    }
}

/* One invalid command */
static void df_bad(Df *d)
{
    uint32_t reg, v, i;

    uint32_t kind = rnd(d, 10);

    if (d->virt && kind == 2) {
        /* unmapped memory: VM_NOT_PRESENT on the device, not modelled */
        kind = 3;
    }
    switch (kind) {
    case 0:
        do {
            reg = rnd(d, 64);
            v = chance(d, 50) ? g_rand_int(d->r) : 1u << rnd(d, 32);
        } while (vdxg_ref3d_reg_valid(reg, v));
        df_reg(d, reg, v);
        break;
    case 1: {
        /* a program with one dword changed */
        uint32_t size = df_fs(d, DF_FS + 0x800), at;

        at = DF_FS + 0x800 + 4 * rnd(d, size / 4);
        df_put32(d, at, ldl_le_p(d->mem + at) ^ (1u << rnd(d, 32)));
        df_shader(d, 1, d->base + DF_FS + 0x800, size);
        break;
    }
    case 2:
        df_hdr(d, VDXG_RD_SET_TEXTURE, VDXG_RD_SET_TEXTURE_LEN);
        pb_dw(d->p, rnd(d, 8));
        pb_qw(d->p, GPU_HOLE);
        pb_dw(d->p, 64);
        pb_dw(d->p, VDXG_TEX_DESC(VDXG_FMT_ARGB8888, 1, 0));
        pb_dw(d->p, VDXG_RD_XY(4, 4));
        break;
    case 3:
        df_hdr(d, VDXG_RD_DRAW, VDXG_RD_DRAW_LEN);
        pb_dw(d->p, 7 + rnd(d, 9));
        pb_dw(d->p, 0);
        pb_dw(d->p, 3);
        break;
    case 4:
        /* fewer constants than the programs read */
        df_consts(d, rnd(d, 2), d->base + DF_CONST_VS, rnd(d, DF_NCONST));
        df_draw(d);
        break;
    case 5:
        df_hdr(d, VDXG_RD_DRAW_INDEXED, VDXG_RD_DRAW_INDEXED_LEN);
        pb_dw(d->p, VDXG_PRIM_TRIANGLES);
        pb_dw(d->p, rnd(d, 100));
        pb_dw(d->p, 200);
        pb_dw(d->p, 0);
        break;
    case 6:
        df_hdr(d, VDXG_RD_NUM_OPS_3D + rnd(d, 20), 1);
        break;
    case 7:
        /* a unit sampled without its texture, or unbound */
        df_hdr(d, VDXG_RD_SET_TEXTURE, VDXG_RD_SET_TEXTURE_LEN);
        i = rnd(d, 8);
        pb_dw(d->p, i);
        pb_qw(d->p, 0);
        pb_dw(d->p, 0);
        pb_dw(d->p, 0);
        pb_dw(d->p, 0);
        d->tex[i].bound = false;
        df_draw(d);
        break;
    case 8:
        if (d->virt) {
            /* a bound unit rebound as a cube, or as 2D */
            i = rnd(d, 8);
            df_hdr(d, VDXG_RD_SET_TEXTURE, VDXG_RD_SET_TEXTURE_LEN);
            pb_dw(d->p, i);
            pb_qw(d->p, d->base + DF_TEX);
            pb_dw(d->p, 6 * 64);
            pb_dw(d->p, VDXG_TEX_DESC(VDXG_FMT_ARGB8888, 1, !d->tex[i].cube));
            pb_dw(d->p, VDXG_RD_XY(4, 4));
            df_draw(d);
            break;
        }
        /* a vertex buffer beyond VRAM */
        df_vb(d, rnd(d, 16), PG_VRAM_SIZE - 0x100, 0x200, 16);
        break;
    default:
        /* a wrong length */
        df_hdr(d, VDXG_RD_SET_STATE, VDXG_RD_SET_STATE_LEN(2));
        pb_dw(d->p, 62);
        pb_dw(d->p, 0);
        break;
    }
}

/* Build scene @idx in d->mem and the buffer */
static void df_scene(Df *d, bool bad)
{
    static const uint8_t cfmts[] = {
        VDXG_FMT_XRGB8888, VDXG_FMT_ARGB8888, VDXG_FMT_RGB565,
        VDXG_FMT_ABGR8888, VDXG_FMT_RGBA4444, VDXG_FMT_RGBA5551,
    };
    uint32_t i, vs, fs, ndraw, pitch, dpitch;

    for (i = 0; i < DF_WIN_SIZE; i += 4) {
        df_put32(d, i, g_rand_int(d->r));
    }
    d->runaway = chance(d, 3);
    pb_reset(d->p);
    d->w = 16 + rnd(d, 49);
    d->h = 16 + rnd(d, 49);
    d->fmt = chance(d, 90) ? cfmts[rnd(d, ARRAY_SIZE(cfmts))] : 0;
    d->dfmt = chance(d, 70) ? (chance(d, 50) ? VDXG_FMT_D16
                                             : VDXG_FMT_D24S8) : 0;
    if (!d->fmt && !d->dfmt) {
        d->fmt = VDXG_FMT_ARGB8888;
    }
    if (d->fmt) {
        pitch = QEMU_ALIGN_UP(d->w * vdxg_ref3d_cpp(d->fmt), 4) +
                4 * rnd(d, 3);
        rd_set_surface(d->p, VDXG_SLOT_DST, d->base + DF_DST, d->fmt, d->w,
                       d->h, pitch);
    }
    if (d->dfmt) {
        d->dw = d->w + (chance(d, 20) ? rnd(d, 8) : 0);
        d->dh = d->h + (chance(d, 20) ? rnd(d, 8) : 0);
        dpitch = QEMU_ALIGN_UP(d->dw * vdxg_ref3d_cpp(d->dfmt), 4);
        rd_set_surface(d->p, VDXG_SLOT_DEPTH, d->base + DF_DEPTH, d->dfmt,
                       d->dw, d->dh, dpitch);
    }
    df_viewport_elements(d);
    df_vertices(d);
    df_textures(d);
    df_constants(d);
    df_index_buffer(d);
    vs = df_vs(d, DF_VS);
    fs = df_fs(d, DF_FS);
    df_shader(d, 0, d->base + DF_VS, vs);
    df_shader(d, 1, d->base + DF_FS, fs);
    if (chance(d, 60)) {
        df_clear(d);
    }
    ndraw = 1 + rnd(d, 3);
    for (i = 0; i < ndraw; i++) {
        df_state(d);
        if (chance(d, 15)) {
            df_clear(d);
        }
        if (bad && i == ndraw - 1) {
            df_bad(d);
        }
        df_draw(d);
    }
}

typedef struct DfResult {
    uint32_t reason;
    uint64_t addr;
} DfResult;

/* Run the buffer built on the device; returns its fault (reason 0: none) */
static DfResult df_run_device(Df *d)
{
    Pg *p = d->p;
    DfResult res = { 0, 0 };
    uint32_t status = 0, i;

    if (d->virt) {
        vram_write(p, DF_DMA, p->buf, pb_off(p));
        uint32_t area[VDXG_CTX_STATE_DW_END] = {
            VDXG_CTX_STATE_MAGIC, 2,
        };

        vram_write(p, DF_AREA, area, sizeof(area));
        ring_entry(p, VDXG_RING_CMD_VIRTUAL(0), pb_off(p), DF_VA_DMA,
                   ++p->seqno, PG_CONTEXT, DF_AREA >> 12);
    } else {
        pb_queue_at(p, DF_DMA, PG_CONTEXT);
    }
    ring_kick(p);
    for (i = 0; i < 10000; i++) {
        status = rd(&p->v, EREG(p, VDXG_ENG_STATUS));
        if (status & (VDXG_ENG_STATUS_IDLE | VDXG_ENG_STATUS_HALTED)) {
            break;
        }
        g_usleep(1000);
    }
    if (!(status & (VDXG_ENG_STATUS_IDLE | VDXG_ENG_STATUS_HALTED))) {
        g_test_message("3d-diff: the engine does not finish: status 0x%x "
                       "progress %u", status,
                       rd(&p->v, EREG(p, VDXG_ENG_PROGRESS)));
        res.reason = ~0u;
        return res;
    }
    if (!(status & VDXG_ENG_STATUS_HALTED)) {
        pg_finish(p);
        return res;
    }
    res.reason = rd(&p->v, VDXG_REG_FAULT_REASON);
    res.addr = rd64(&p->v, VDXG_REG_FAULT_ADDR_LO);
    wr(&p->v, EREG(p, VDXG_ENG_RESET), 1);
    wr(&p->v, VDXG_REG_FAULT_CLEAR, 1);
    wr(&p->v, VDXG_REG_INT_ACK, VDXG_INT_FAULT | VDXG_INT_RENDER_FENCE);
    pg_engine_setup(p);
    p->seqno = 0;
    return res;
}

/* The window to the device's memory, or back */
static void df_xfer(Df *d, uint8_t *buf, bool to_dev)
{
    uint32_t i;

    if (!d->virt) {
        if (to_dev) {
            vram_write(d->p, DF_WIN, buf, DF_WIN_SIZE);
        } else {
            vram_read(d->p, DF_WIN, buf, DF_WIN_SIZE);
        }
        return;
    }
    for (i = 0; i < DF_PAGES; i++) {
        if (to_dev) {
            vram_write(d->p, DF_WIN + DF_PERM(i) * PG_PAGE,
                       buf + i * PG_PAGE, PG_PAGE);
        } else {
            vram_read(d->p, DF_WIN + DF_PERM(i) * PG_PAGE,
                      buf + i * PG_PAGE, PG_PAGE);
        }
    }
}

/* Address space 0 maps the window and the DMA buffer */
static void df_vm_setup(Df *d)
{
    Pg *p = d->p;
    g_autofree uint64_t *tbl = g_new0(uint64_t, 512);
    uint64_t seg = VDXG_PTE_VALID | VDXG_PTE_SEGMENT(VDXG_PTE_SEGMENT_VRAM);
    uint32_t l, i;

    for (l = 1; l < 4; l++) {
        memset(tbl, 0, 512 * 8);
        tbl[0] = cpu_to_le64(DF_VM_TBL(l - 1) | VDXG_PTE_VALID);
        vram_write(p, DF_VM_TBL(l), tbl, 512 * 8);
    }
    memset(tbl, 0, 512 * 8);
    for (i = 0; i < DF_PAGES; i++) {
        tbl[(DF_VA >> 12) + i] =
            cpu_to_le64((DF_WIN + DF_PERM(i) * PG_PAGE) | seg);
    }
    for (i = 0; i < 4; i++) {
        tbl[(DF_VA_DMA >> 12) + i] = cpu_to_le64((DF_DMA + i * PG_PAGE) |
                                                 seg);
    }
    vram_write(p, DF_VM_TBL(0), tbl, 512 * 8);
    qtest_writeq(p->v.qts, p->vram.addr + DF_VM_AS_TABLE,
                 DF_VM_TBL(3) | VDXG_VM_AS_VALID);
    qtest_writeq(p->v.qts, p->vram.addr + DF_VM_AS_TABLE + 8, 0);
    wr64(&p->v, VDXG_REG_VM_TABLE_LO, DF_VM_AS_TABLE);
    wr(&p->v, VDXG_REG_VM_TABLE_ENTRIES, 1);
    wr(&p->v, VDXG_REG_VM_CTRL, VDXG_VM_CTRL_ENABLE);
    wr(&p->v, VDXG_REG_VM_TLB_FLUSH, VDXG_VM_FLUSH_ALL);
}

static const char *df_region(uint32_t off)
{
    return off >= DF_DEPTH ? "depth" : off >= DF_DST ? "dst" : "other";
}

/* Case @idx: true when the device and the reference agree */
static bool df_case(Df *d, uint32_t idx)
{
    struct vdxg_ref3d_mem mem = {
        .opaque = d, .range_ok = df_range_ok, .read = df_read,
        .write = df_write,
    };
    struct vdxg_ref3d_fault rf = { 0, 0 };
    g_autofree uint8_t *got = g_malloc(DF_WIN_SIZE);
    DfResult dev;
    uint32_t ref, i, ndiff = 0, first = 0;
    bool ok = true;

    g_autofree uint8_t *before = NULL;

    g_rand_set_seed(d->r, DF_SEED + idx);
    df_scene(d, idx % 5 == 4);
    before = g_memdup2(d->mem, DF_WIN_SIZE);
    if (g_getenv("VDXG_DIFF_TRACE")) {
        g_test_message("3d-diff: case %u: %u dwords", idx, d->p->used);
    }
    df_xfer(d, d->mem, true);

    dev = df_run_device(d);
    vdxg_ref3d_init(d->ctx);
    ref = vdxg_ref3d_exec(d->ctx, &mem, d->virt ? DF_VA_DMA : DF_DMA,
                          d->p->buf, d->p->used, &rf);
    if (!ref) {
        rf.addr = 0;
    }

    df_xfer(d, got, false);
    for (i = 0; i < DF_WIN_SIZE && !(d->runaway && ref); i++) {
        if (got[i] != d->mem[i]) {
            if (!ndiff++) {
                first = i;
            }
        }
    }
    d->faults[MIN(ref, 31)]++;
    if (memcmp(before + DF_DST, d->mem + DF_DST, DF_WIN_SIZE - DF_DST)) {
        d->drawn++;
    }
    if (d->virt && !ref && !dev.reason) {
        /* the 3D state the entry stored in its state area */
        uint32_t area[VDXG_CTX_STATE_DW_END] = { 0 };
        uint32_t want[VDXG_CTX_STATE_DW_END] = { 0 };

        vram_read(d->p, DF_AREA, area, sizeof(area));
        vdxg_ref3d_state_store(d->ctx, want);
        for (i = VDXG_CTX_STATE_DW_REGS; i < VDXG_CTX_STATE_DW_END; i++) {
            if (le32_to_cpu(area[i]) != want[i]) {
                g_test_message("3d-diff: virtual seed 0x%x case %u: state "
                               "area dword %u: device 0x%x reference 0x%x",
                               DF_SEED + idx, idx, i, le32_to_cpu(area[i]),
                               want[i]);
                ok = false;
                break;
            }
        }
    }
    if (dev.reason != ref || dev.addr != rf.addr) {
        g_test_message("3d-diff: %s seed 0x%x case %u: device fault %u at 0x%"
                       PRIx64 ", reference %u at 0x%" PRIx64,
                       d->virt ? "virtual" : "physical",
                       DF_SEED + idx, idx, dev.reason, dev.addr, ref,
                       rf.addr);
        ok = false;
    }
    if (ndiff) {
        g_test_message("3d-diff: %s seed 0x%x case %u: %u bytes differ, first "
                       "at window offset 0x%x (%s, fmt %u dfmt %u %ux%u): "
                       "device %02x reference %02x",
                       d->virt ? "virtual" : "physical",
                       DF_SEED + idx, idx, ndiff, first, df_region(first),
                       d->fmt, d->dfmt, d->w, d->h, got[first],
                       d->mem[first]);
        ok = false;
    }
    return ok;
}

static void test_3d_diff(const void *data)
{
    Df *d = g_new0(Df, 1);
    const char *only = g_getenv("VDXG_DIFF_CASE");
    bool all = g_getenv("VDXG_DIFF_ALL") != NULL;
    uint32_t idx, lo = 0, hi = DF_CASES, bad = 0;

    d->virt = GPOINTER_TO_UINT(data) != 0;
    d->straddle = GPOINTER_TO_UINT(data) == 2;
    d->base = d->virt ? DF_VA : DF_WIN;
    d->p = rd_start();
    if (d->virt) {
        df_vm_setup(d);
        /* other seeds than the physical mode's cases */
        lo = DF_CASES;
        hi = lo + DF_CASES / 4;
    }
    if (d->straddle) {
        lo = 2 * DF_CASES;
        hi = lo + DF_CASES / 10;
    }
    d->r = g_rand_new_with_seed(DF_SEED);
    d->mem = g_malloc0(DF_WIN_SIZE);
    d->ctx = g_new0(struct vdxg_ref3d_ctx, 1);
    if (only) {
        lo = atoi(only);
        hi = lo + 1;
    }
    if (g_getenv("VDXG_DIFF_CASES")) {
        hi = lo + atoi(g_getenv("VDXG_DIFF_CASES"));
    }
    for (idx = lo; idx < hi; idx++) {
        if (!df_case(d, idx)) {
            bad++;
            if (!all) {
                break;
            }
        }
    }
    if (bad) {
        g_test_message("3d-diff: %u of %u cases differ", bad, hi - lo);
    }
    g_test_message("3d-diff: %s mode: %u cases, %u changed a target; "
                   "faults: none %u, OPCODE %u, LENGTH %u, PARAM %u, "
                   "BOUNDS %u, ADDRESS %u, SHADER %u",
                   d->virt ? "virtual" : "physical", hi - lo, d->drawn,
                   d->faults[0], d->faults[VDXG_FAULT_OPCODE],
                   d->faults[VDXG_FAULT_LENGTH], d->faults[VDXG_FAULT_PARAM],
                   d->faults[VDXG_FAULT_BOUNDS],
                   d->faults[VDXG_FAULT_ADDRESS],
                   d->faults[VDXG_FAULT_SHADER]);
    g_assert(!bad);
    g_rand_free(d->r);
    g_free(d->mem);
    g_free(d->ctx);
    rd_stop(d->p);
    g_free(d);
}

void vdxg_test_add_3d_diff_tests(void)
{
    qtest_add_data_func("/vdxg/3d/diff/physical", GUINT_TO_POINTER(false),
                        test_3d_diff);
    qtest_add_data_func("/vdxg/3d/diff/virtual-straddle",
                        GUINT_TO_POINTER(2), test_3d_diff);
    qtest_add_data_func("/vdxg/3d/diff/virtual", GUINT_TO_POINTER(true),
                        test_3d_diff);
}
