/*
 * QTest testcases for the vdxg virtual GPU: the 3D pipeline of the RENDER
 * engine (commands 0x08 to 0x11)
 *
 * The arithmetic of the programs and textures is tested on the host
 * (tests/unit/test-vdxg-3d.c); these tests drive whole draws through the
 * device: state and bindings, the fill rule, depth, stencil, blending,
 * textures, points and lines, vertex formats, CLEAR, faults and their
 * addresses, PROGRESS, slicing. Expected pixels are written down from
 * docs/hardware.md's formulas.
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include <math.h>
#include "libqtest.h"
#include "vdxg-test.h"

/* VRAM layout, above the render tests' windows */
#define T3_VS           0x1800000ull
#define T3_FS           0x1810000ull
#define T3_CONST        0x1820000ull
#define T3_VB           0x1830000ull
#define T3_IB           0x1840000ull
#define T3_TEX          0x1850000ull
#define T3_DST          0x1900000ull
#define T3_DEPTH        0x1a00000ull
#define T3_STATE        0x1b00000ull
/* test_3d_long_vertices: the work a hold lets through (see there) */
#ifndef T3_LONG_VS_STEP
#define T3_LONG_VS_STEP 60000
#endif

#define XYZW            VDXG_SWIZZLE_XYZW
#define SRC(f, i)       VDXG_SRC(f, i, XYZW)
#define IN(i)           SRC(VDXG_FILE_INPUT, i)
#define TMP(i)          SRC(VDXG_FILE_TEMP, i)
#define CST(i)          SRC(VDXG_FILE_CONST, i)
#define IMM(i)          SRC(VDXG_FILE_IMM, i)
#define DOUT(op, i)     VDXG_INSN(op, VDXG_FILE_OUTPUT, i, 0xf)
#define DTMP(op, i)     VDXG_INSN(op, VDXG_FILE_TEMP, i, 0xf)

/* The GPU address of dword @off of the next buffer pb_queue places */
#define T3_HDR(p, off)  (PG_BUF + (p)->slot % PG_SLOTS * PG_BUF_SIZE + (off))

typedef struct T3Insn {
    uint32_t dw[4];
} T3Insn;

#define I_END           { { VDXG_OP_END, 0, 0, 0 } }

static uint32_t f32(float f)
{
    uint32_t u;

    memcpy(&u, &f, 4);
    return u;
}

/* A program's bytes at VRAM @addr; returns its size */
static uint32_t t3_prog(Pg *p, uint64_t addr, uint32_t stage,
                        const T3Insn *in, uint32_t n, const float (*imm)[4],
                        uint32_t m)
{
    uint32_t len = 16 * (1 + n + m), i, j;
    g_autofree uint8_t *b = g_malloc0(len);

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
            stl_le_p(b + 16 + (n + i) * 16 + j * 4, f32(imm[i][j]));
        }
    }
    vram_write(p, addr, b, len);
    return len;
}

static void t3_set_shader(Pg *p, uint32_t stage, uint64_t addr,
                          uint32_t size)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_SET_SHADER, VDXG_RD_SET_SHADER_LEN));
    pb_dw(p, stage);
    pb_qw(p, addr);
    pb_dw(p, size);
}

static void t3_reg(Pg *p, uint32_t reg, uint32_t val)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_SET_STATE, VDXG_RD_SET_STATE_LEN(1)));
    pb_dw(p, reg);
    pb_dw(p, val);
}

static void t3_regf(Pg *p, uint32_t reg, float val)
{
    t3_reg(p, reg, f32(val));
}

static void t3_vb(Pg *p, uint32_t index, uint64_t addr, uint32_t size,
                  uint32_t stride)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_SET_VERTEX_BUFFER,
                         VDXG_RD_SET_VERTEX_BUFFER_LEN));
    pb_dw(p, index);
    pb_qw(p, addr);
    pb_dw(p, size);
    pb_dw(p, stride);
}

static void t3_draw(Pg *p, uint32_t prim, uint32_t first, uint32_t count)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_DRAW, VDXG_RD_DRAW_LEN));
    pb_dw(p, prim);
    pb_dw(p, first);
    pb_dw(p, count);
}

static void t3_texture(Pg *p, uint32_t unit, uint64_t addr, uint32_t size,
                       uint32_t desc, uint32_t wh)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_SET_TEXTURE, VDXG_RD_SET_TEXTURE_LEN));
    pb_dw(p, unit);
    pb_qw(p, addr);
    pb_dw(p, size);
    pb_dw(p, desc);
    pb_dw(p, wh);
}

static void t3_clear(Pg *p, uint32_t flags, uint32_t x, uint32_t y,
                     uint32_t w, uint32_t h, const float *rgba, float depth,
                     uint32_t stencil)
{
    static const float zero[4];
    int i;

    pb_dw(p, VDXG_PG_HDR(VDXG_RD_CLEAR, VDXG_RD_CLEAR_LEN));
    pb_dw(p, flags);
    pb_dw(p, VDXG_RD_XY(x, y));
    pb_dw(p, VDXG_RD_XY(w, h));
    for (i = 0; i < 4; i++) {
        pb_dw(p, f32((rgba ? rgba : zero)[i]));
    }
    pb_dw(p, f32(depth));
    pb_dw(p, stencil);
}

/* A vertex: clip-space position, then a colour (or texture coordinate) */
typedef struct T3Vtx {
    float pos[4];
    float col[4];
} T3Vtx;

static void t3_put_vertices(Pg *p, const T3Vtx *v, uint32_t n)
{
    g_autofree uint8_t *b = g_malloc(n * 32);
    uint32_t i, j;

    for (i = 0; i < n; i++) {
        for (j = 0; j < 4; j++) {
            stl_le_p(b + i * 32 + j * 4, f32(v[i].pos[j]));
            stl_le_p(b + i * 32 + 16 + j * 4, f32(v[i].col[j]));
        }
    }
    vram_write(p, T3_VB, b, n * 32);
}

/* The pass-through programs: position and one varying */
static const T3Insn t3_vs_pass[] = {
    { { DOUT(VDXG_OP_MOV, VDXG_VS_OUT_POSITION), IN(0), 0, 0 } },
    { { DOUT(VDXG_OP_MOV, VDXG_VS_OUT_VARYING(0)), IN(1), 0, 0 } },
    I_END,
};
static const T3Insn t3_fs_pass[] = {
    { { DOUT(VDXG_OP_MOV, 0), IN(0), 0, 0 } },
    I_END,
};

typedef struct T3 {
    Pg *p;
    uint32_t w, h, fmt, cpp, pitch;
    uint32_t dfmt, dcpp, dpitch;
} T3;

/*
 * A RENDER device with DST (and DEPTH unless @dfmt is 0) bound, the
 * viewport on the whole w x h, elements 0 and 1 float4 from buffer 0
 * (stride 32) and the pass-through programs; what follows goes in the
 * buffer being built.
 */
static void t3_begin(T3 *t, uint32_t fmt, uint32_t w, uint32_t h,
                     uint32_t dfmt)
{
    Pg *p = t->p;
    uint32_t vs, fs;

    t->w = w;
    t->h = h;
    t->fmt = fmt;
    t->cpp = fmt ? rd_cpp(fmt) : 0;
    t->cpp = fmt >= VDXG_FMT_ABGR8888 && fmt <= VDXG_FMT_RGBA5551 ?
             (fmt == VDXG_FMT_ABGR8888 ? 4 : 2) : t->cpp;
    t->pitch = QEMU_ALIGN_UP(w * t->cpp, 4);
    t->dfmt = dfmt;
    t->dcpp = dfmt == VDXG_FMT_D16 ? 2 : 4;
    t->dpitch = QEMU_ALIGN_UP(w * t->dcpp, 4);
    vs = t3_prog(p, T3_VS, 0, t3_vs_pass, ARRAY_SIZE(t3_vs_pass), NULL, 0);
    fs = t3_prog(p, T3_FS, 1, t3_fs_pass, ARRAY_SIZE(t3_fs_pass), NULL, 0);
    pb_reset(p);
    if (fmt) {
        rd_set_surface(p, VDXG_SLOT_DST, T3_DST, fmt, w, h, t->pitch);
    }
    if (dfmt) {
        rd_set_surface(p, VDXG_SLOT_DEPTH, T3_DEPTH, dfmt, w, h, t->dpitch);
    }
    t3_set_shader(p, 0, T3_VS, vs);
    t3_set_shader(p, 1, T3_FS, fs);
    t3_regf(p, VDXG_3D_VIEWPORT_SCALE(0), w / 2.0f);
    t3_regf(p, VDXG_3D_VIEWPORT_SCALE(1), h / 2.0f);
    t3_regf(p, VDXG_3D_VIEWPORT_SCALE(2), 0.5f);
    t3_regf(p, VDXG_3D_VIEWPORT_TRANSLATE(0), w / 2.0f);
    t3_regf(p, VDXG_3D_VIEWPORT_TRANSLATE(1), h / 2.0f);
    t3_regf(p, VDXG_3D_VIEWPORT_TRANSLATE(2), 0.5f);
    t3_reg(p, VDXG_3D_ELEMENT(0),
           VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_FLOAT32, 4), 0, 0));
    t3_reg(p, VDXG_3D_ELEMENT(1),
           VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_FLOAT32, 4), 0, 16));
    t3_vb(p, 0, T3_VB, 64 * 32, 32);
}

static uint32_t t3_px(T3 *t, uint32_t x, uint32_t y)
{
    uint64_t a = T3_DST + (uint64_t)y * t->pitch + x * t->cpp;

    return t->cpp == 2 ? vram_readl(t->p, a) & 0xffff : vram_readl(t->p, a);
}

static uint32_t t3_depth(T3 *t, uint32_t x, uint32_t y)
{
    uint64_t a = T3_DEPTH + (uint64_t)y * t->dpitch + x * t->dcpp;

    return t->dcpp == 2 ? vram_readl(t->p, a) & 0xffff : vram_readl(t->p, a);
}

/* A quad of two triangles over clip [x0, x1] x [y0, y1], one colour */
static void t3_quad(T3Vtx *v, float x0, float y0, float x1, float y1,
                    float z, const float *c)
{
    const float xy[6][2] = {
        { x0, y0 }, { x1, y0 }, { x1, y1 }, { x0, y0 }, { x1, y1 }, { x0, y1 },
    };
    int i;

    for (i = 0; i < 6; i++) {
        v[i] = (T3Vtx) {
            { xy[i][0], xy[i][1], z, 1 }, { c[0], c[1], c[2], c[3] },
        };
    }
}

/* The buffer built so far runs and completes. */
static void t3_run(T3 *t)
{
    pb_run(t->p);
}

/* It faults with @reason at @addr */
static void t3_expect_fault(T3 *t, uint32_t reason, uint32_t op,
                            uint64_t addr)
{
    Pg *p = t->p;

    pb_queue(p);
    ring_kick(p);
    g_assert_cmphex(pg_wait(p) & VDXG_ENG_STATUS_HALTED, ==,
                    VDXG_ENG_STATUS_HALTED);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_REASON), ==, reason);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_OPCODE), ==, op);
    g_assert_cmphex(rd64(&p->v, VDXG_REG_FAULT_ADDR_LO), ==, addr);
    /* The engine recovers with a reset */
    wr(&p->v, EREG(p, VDXG_ENG_RESET), 1);
    wr(&p->v, VDXG_REG_FAULT_CLEAR, 1);
    wr(&p->v, VDXG_REG_INT_ACK, VDXG_INT_FAULT | VDXG_INT_RENDER_FENCE);
    pg_engine_setup(p);
    p->seqno = 0;
    rd_recover_check(p);
}

static T3 *t3_start(void)
{
    T3 *t = g_new0(T3, 1);

    t->p = rd_start();
    return t;
}

static void t3_stop(T3 *t)
{
    rd_stop(t->p);
    g_free(t);
}

/* The same snapping and edge functions the spec gives, for the oracle */
static int64_t t3_snap(float clip, float scale, float trans)
{
    float v = clip * scale;

    v = v + trans;
    v = v * 256.0f;
    v = v + 0.5f;
    return (int64_t)floorf(v);
}

static bool t3_inside(const int64_t (*v)[2], int64_t px, int64_t py)
{
    int64_t cx = px * 256 + 128, cy = py * 256 + 128, area, w;
    int64_t a[3][2];
    int e;

    memcpy(a, v, sizeof(a));
    area = (a[1][0] - a[0][0]) * (a[2][1] - a[0][1]) -
           (a[1][1] - a[0][1]) * (a[2][0] - a[0][0]);
    if (area < 0) {
        int64_t s[2] = { a[1][0], a[1][1] };

        a[1][0] = a[2][0];
        a[1][1] = a[2][1];
        a[2][0] = s[0];
        a[2][1] = s[1];
    }
    for (e = 0; e < 3; e++) {
        const int64_t *p0 = a[(e + 1) % 3], *p1 = a[(e + 2) % 3];
        int64_t dx = p1[0] - p0[0], dy = p1[1] - p0[1];

        w = dx * (cy - p0[1]) - dy * (cx - p0[0]);
        if (w < 0 || (w == 0 && !(dy < 0 || (dy == 0 && dx > 0)))) {
            return false;
        }
    }
    return true;
}

/*
 * Two triangles sharing an edge, with corners off the pixel grid, drawn
 * with additive blending: every pixel is drawn at most once (R 0 or 64,
 * never 128), exactly where the top-left rule puts it.
 */
static void test_3d_fill_rule(void)
{
    static const float quad[4][2] = {
        { -0.8f, -0.7f }, { 0.6f, -0.75f }, { 0.7f, 0.9f }, { -0.65f, 0.5f },
    };
    static const int idx[2][3] = { { 0, 1, 2 }, { 0, 2, 3 } };
    const float c[4] = { 0.25f, 0, 0, 0 };
    T3 *t = t3_start();
    T3Vtx v[6];
    int64_t s[4][2], tri[3][2];
    uint32_t x, y, n = 0;
    int i, j;

    for (i = 0; i < 2; i++) {
        for (j = 0; j < 3; j++) {
            const float *q = quad[idx[i][j]];

            v[i * 3 + j] = (T3Vtx) { { q[0], q[1], 0, 1 }, { 0.25f, 0, 0, 0 } };
        }
    }
    for (i = 0; i < 4; i++) {
        s[i][0] = t3_snap(quad[i][0], 8, 8);
        s[i][1] = t3_snap(quad[i][1], 8, 8);
    }
    t3_put_vertices(t->p, v, 6);
    t3_begin(t, VDXG_FMT_ARGB8888, 16, 16, 0);
    t3_clear(t->p, VDXG_CLEAR_COLOR, 0, 0, 16, 16, NULL, 0, 0);
    t3_reg(t->p, VDXG_3D_BLEND, VDXG_BLEND_ENABLE |
           VDXG_BLEND_RGB_SRC(VDXG_BLF_ONE) |
           VDXG_BLEND_RGB_DST(VDXG_BLF_ONE) |
           VDXG_BLEND_A_SRC(VDXG_BLF_ONE) | VDXG_BLEND_A_DST(VDXG_BLF_ONE));
    t3_draw(t->p, VDXG_PRIM_TRIANGLES, 0, 6);
    t3_run(t);
    (void)c;
    for (y = 0; y < 16; y++) {
        for (x = 0; x < 16; x++) {
            bool in0, in1;

            for (j = 0; j < 3; j++) {
                tri[j][0] = s[idx[0][j]][0];
                tri[j][1] = s[idx[0][j]][1];
            }
            in0 = t3_inside(tri, x, y);
            for (j = 0; j < 3; j++) {
                tri[j][0] = s[idx[1][j]][0];
                tri[j][1] = s[idx[1][j]][1];
            }
            in1 = t3_inside(tri, x, y);
            g_assert_false(in0 && in1);
            g_assert_cmphex(t3_px(t, x, y), ==,
                            (in0 || in1) ? 0x00400000 : 0);
            n += in0 || in1;
        }
    }
    g_assert_cmpuint(n, >, 100);
    t3_stop(t);
}

/* A full-screen quad: every pixel once, with the colour converted */
static void test_3d_fullscreen(void)
{
    static const struct {
        uint32_t fmt;
        uint32_t px;
    } fmts[] = {
        /*
         * (1/3, 2/3, 0.6, 0.2), values whose conversions are not near a
         * rounding boundary: 85, 170, 153, 51 in 8 bits; 10, 42 (6 bits),
         * 19 in 5/6/5; 5, 10, 9, 3 in 4 bits; 10, 21, 19, 0 in 5551
         */
        { VDXG_FMT_ARGB8888, 0x3355aa99 },
        { VDXG_FMT_XRGB8888, 0xff55aa99 },
        { VDXG_FMT_ABGR8888, 0x3399aa55 },
        { VDXG_FMT_RGB565, 10 << 11 | 42 << 5 | 19 },
        { VDXG_FMT_RGBA4444, 0x5a93 },
        { VDXG_FMT_RGBA5551, 10 << 11 | 21 << 6 | 19 << 1 },
    };
    const float c[4] = { 1.0f / 3, 2.0f / 3, 0.6f, 0.2f };
    T3 *t = t3_start();
    T3Vtx v[6];
    uint32_t i, x, y;

    t3_quad(v, -1, -1, 1, 1, 0, c);
    t3_put_vertices(t->p, v, 6);
    for (i = 0; i < ARRAY_SIZE(fmts); i++) {
        t3_begin(t, fmts[i].fmt, 12, 10, 0);
        t3_draw(t->p, VDXG_PRIM_TRIANGLES, 0, 6);
        t3_run(t);
        for (y = 0; y < 10; y++) {
            for (x = 0; x < 12; x++) {
                g_assert_cmphex(t3_px(t, x, y), ==, fmts[i].px);
            }
        }
    }
    t3_stop(t);
}

/* Each depth function against a stored 0x8000, at three depths, D16 */
static void test_3d_depth_funcs(void)
{
    /*
     * Window z 0.25, 32768 / 65535 and 0.75: 16384, 32768, 49151, each
     * away from a rounding boundary of the conversion
     */
    static const float zs[3] = { -0.5f, 1.0f / 65535, 0.5f };
    static const uint32_t zf[3] = { 16384, 32768, 49151 };
    const float white[4] = { 1, 1, 1, 1 };
    T3 *t = t3_start();
    T3Vtx v[6];
    uint32_t f, k;

    for (f = 0; f < 8; f++) {
        for (k = 0; k < 3; k++) {
            bool pass;

            t3_quad(v, -1, -1, 1, 1, zs[k], white);
            t3_put_vertices(t->p, v, 6);
            t3_begin(t, VDXG_FMT_ARGB8888, 4, 4, VDXG_FMT_D16);
            t3_clear(t->p, VDXG_CLEAR_COLOR | VDXG_CLEAR_DEPTH, 0, 0, 4, 4,
                     NULL, 0.5f, 0);
            t3_reg(t->p, VDXG_3D_DEPTH, VDXG_DEPTH_TEST | VDXG_DEPTH_WRITE |
                   VDXG_DEPTH_FUNC(f));
            t3_draw(t->p, VDXG_PRIM_TRIANGLES, 0, 6);
            t3_run(t);
            switch (f) {
            case VDXG_FUNC_NEVER:
                pass = false;
                break;
            case VDXG_FUNC_LESS:
                pass = zf[k] < 32768;
                break;
            case VDXG_FUNC_EQUAL:
                pass = zf[k] == 32768;
                break;
            case VDXG_FUNC_LEQUAL:
                pass = zf[k] <= 32768;
                break;
            case VDXG_FUNC_GREATER:
                pass = zf[k] > 32768;
                break;
            case VDXG_FUNC_NOTEQUAL:
                pass = zf[k] != 32768;
                break;
            case VDXG_FUNC_GEQUAL:
                pass = zf[k] >= 32768;
                break;
            default:
                pass = true;
                break;
            }
            g_assert_cmphex(t3_px(t, 1, 2), ==, pass ? 0xffffffff : 0);
            g_assert_cmphex(t3_depth(t, 1, 2), ==, pass ? zf[k] : 32768);
        }
    }
    /* Without WRITE the depth stays; without TEST everything passes */
    t3_begin(t, VDXG_FMT_ARGB8888, 4, 4, VDXG_FMT_D16);
    t3_clear(t->p, VDXG_CLEAR_COLOR | VDXG_CLEAR_DEPTH, 0, 0, 4, 4, NULL,
             0.0f, 0);
    t3_reg(t->p, VDXG_3D_DEPTH, VDXG_DEPTH_FUNC(VDXG_FUNC_NEVER));
    t3_draw(t->p, VDXG_PRIM_TRIANGLES, 0, 6);
    t3_run(t);
    g_assert_cmphex(t3_px(t, 3, 3), ==, 0xffffffff);
    g_assert_cmphex(t3_depth(t, 3, 3), ==, 0);
    t3_stop(t);
}

/* Stencil operations, the tests' outcomes, masks and the back face */
static void test_3d_stencil(void)
{
    static const struct {
        uint32_t sreg;          /* STENCIL_FRONT */
        uint32_t ref;
        uint32_t depth;         /* DEPTH register */
        uint32_t want;          /* stencil after */
        bool drawn;
    } c[] = {
#define ST(f, fail, zfail, zpass, vm, wm) \
    (VDXG_STENCIL_TEST | VDXG_STENCIL_FUNC(f) | VDXG_STENCIL_FAIL_OP(fail) | \
     VDXG_STENCIL_ZFAIL_OP(zfail) | VDXG_STENCIL_ZPASS_OP(zpass) | \
     VDXG_STENCIL_VALUE_MASK(vm) | VDXG_STENCIL_WRITE_MASK(wm))
        { ST(VDXG_FUNC_ALWAYS, 0, 0, VDXG_SOP_KEEP, 0xff, 0xff), 9, 0, 5, 1 },
        { ST(VDXG_FUNC_ALWAYS, 0, 0, VDXG_SOP_ZERO, 0xff, 0xff), 9, 0, 0, 1 },
        { ST(VDXG_FUNC_ALWAYS, 0, 0, VDXG_SOP_REPLACE, 0xff, 0xff), 9, 0, 9,
          1 },
        { ST(VDXG_FUNC_ALWAYS, 0, 0, VDXG_SOP_INCR, 0xff, 0xff), 9, 0, 6, 1 },
        { ST(VDXG_FUNC_ALWAYS, 0, 0, VDXG_SOP_DECR, 0xff, 0xff), 9, 0, 4, 1 },
        { ST(VDXG_FUNC_ALWAYS, 0, 0, VDXG_SOP_INCR_WRAP, 0xff, 0xff), 9, 0,
          6, 1 },
        { ST(VDXG_FUNC_ALWAYS, 0, 0, VDXG_SOP_DECR_WRAP, 0xff, 0xff), 9, 0,
          4, 1 },
        { ST(VDXG_FUNC_ALWAYS, 0, 0, VDXG_SOP_INVERT, 0xff, 0xff), 9, 0, 0xfa,
          1 },
        /* Stencil fails: FAIL_OP, nothing drawn */
        { ST(VDXG_FUNC_NEVER, VDXG_SOP_INCR, 0, 0, 0xff, 0xff), 9, 0, 6, 0 },
        /* (ref & 0x0f) == (5 & 0x0f) with ref 0x15: passes */
        { ST(VDXG_FUNC_EQUAL, VDXG_SOP_ZERO, 0, VDXG_SOP_INCR, 0x0f, 0xff),
          0x15, 0, 6, 1 },
        /* 9 < 5 fails */
        { ST(VDXG_FUNC_LESS, VDXG_SOP_REPLACE, 0, 0, 0xff, 0xff), 9, 0, 9, 0 },
        /* Depth fails (0.5 LESS than 0.25 stored): ZFAIL_OP */
        { ST(VDXG_FUNC_ALWAYS, 0, VDXG_SOP_INVERT, VDXG_SOP_ZERO, 0xff, 0xff),
          9, VDXG_DEPTH_TEST | VDXG_DEPTH_FUNC(VDXG_FUNC_LESS), 0xfa, 0 },
        /* The write mask keeps 5's high nibble */
        { ST(VDXG_FUNC_ALWAYS, 0, 0, VDXG_SOP_REPLACE, 0xff, 0x0f), 0xf9, 0,
          0x09, 1 },
#undef ST
    };
    const float white[4] = { 1, 1, 1, 1 };
    T3 *t = t3_start();
    T3Vtx v[6];
    uint32_t i;

    /* Counter-clockwise in window space: front-facing */
    t3_quad(v, -1, -1, 1, 1, 0, white);
    for (i = 0; i < 2; i++) {
        T3Vtx s = v[i * 3 + 1];

        v[i * 3 + 1] = v[i * 3 + 2];
        v[i * 3 + 2] = s;
    }
    t3_put_vertices(t->p, v, 6);
    for (i = 0; i < ARRAY_SIZE(c); i++) {
        g_test_message("stencil case %u", i);
        t3_begin(t, VDXG_FMT_ARGB8888, 4, 4, VDXG_FMT_D24S8);
        t3_clear(t->p, VDXG_CLEAR_COLOR | VDXG_CLEAR_DEPTH |
                 VDXG_CLEAR_STENCIL, 0, 0, 4, 4, NULL, 0.25f, 5);
        t3_reg(t->p, VDXG_3D_STENCIL_FRONT, c[i].sreg);
        /* The back register is not used for a front face */
        t3_reg(t->p, VDXG_3D_STENCIL_BACK, 1 | VDXG_STENCIL_ZPASS_OP(1));
        t3_reg(t->p, VDXG_3D_STENCIL_REF, c[i].ref | 0x3300);
        t3_reg(t->p, VDXG_3D_DEPTH, c[i].depth);
        t3_draw(t->p, VDXG_PRIM_TRIANGLES, 0, 6);
        t3_run(t);
        /* 0.25 in 24 bits: 4194303.75 + 0.5, a tie to 4194304 */
        g_assert_cmphex(t3_depth(t, 2, 1), ==, c[i].want << 24 | 0x400000);
        g_assert_cmphex(t3_px(t, 2, 1), ==, c[i].drawn ? 0xffffffff : 0);
    }

    /* A back face with TWO_SIDED: STENCIL_BACK and the back reference */
    t3_quad(v, -1, -1, 1, 1, 0, white);
    t3_put_vertices(t->p, v, 6);
    t3_begin(t, VDXG_FMT_ARGB8888, 4, 4, VDXG_FMT_D24S8);
    t3_clear(t->p, VDXG_CLEAR_DEPTH | VDXG_CLEAR_STENCIL, 0, 0, 4, 4, NULL,
             1.0f, 5);
    t3_reg(t->p, VDXG_3D_STENCIL_FRONT, VDXG_STENCIL_TEST |
           VDXG_STENCIL_FUNC(VDXG_FUNC_ALWAYS) |
           VDXG_STENCIL_ZPASS_OP(VDXG_SOP_ZERO) |
           VDXG_STENCIL_WRITE_MASK(0xff));
    t3_reg(t->p, VDXG_3D_STENCIL_BACK, 1 |
           VDXG_STENCIL_FUNC(VDXG_FUNC_ALWAYS) |
           VDXG_STENCIL_ZPASS_OP(VDXG_SOP_REPLACE) |
           VDXG_STENCIL_WRITE_MASK(0xff));
    t3_reg(t->p, VDXG_3D_STENCIL_REF, 0x7702);
    t3_draw(t->p, VDXG_PRIM_TRIANGLES, 0, 6);
    t3_run(t);
    g_assert_cmphex(t3_depth(t, 0, 0), ==, 0x77ffffff);
    /* Without TWO_SIDED a back face uses STENCIL_FRONT */
    t3_begin(t, VDXG_FMT_ARGB8888, 4, 4, VDXG_FMT_D24S8);
    t3_reg(t->p, VDXG_3D_STENCIL_FRONT, VDXG_STENCIL_TEST |
           VDXG_STENCIL_FUNC(VDXG_FUNC_ALWAYS) |
           VDXG_STENCIL_ZPASS_OP(VDXG_SOP_REPLACE) |
           VDXG_STENCIL_WRITE_MASK(0xff));
    t3_reg(t->p, VDXG_3D_STENCIL_REF, 0x7702);
    t3_draw(t->p, VDXG_PRIM_TRIANGLES, 0, 6);
    t3_run(t);
    g_assert_cmphex(t3_depth(t, 0, 0), ==, 0x02ffffff);
    t3_stop(t);
}

/*
 * Blending: DST holds (51, 102, 153, 204) / 255, the source is (1, 0.2,
 * 0.6, 0.6), the constant (0.2, 0.4, 0.6, 0.8). Expected pixels from the
 * spec's formulas, one binary32 step at a time (and the same a few ulps
 * of the source either way).
 */
static void test_3d_blend(void)
{
    static const struct {
        uint32_t blend;
        uint32_t px;
    } c[] = {
#define BL(eq, s, d, aeq, as, ad) \
    (VDXG_BLEND_ENABLE | VDXG_BLEND_RGB_EQ(eq) | VDXG_BLEND_RGB_SRC(s) | \
     VDXG_BLEND_RGB_DST(d) | VDXG_BLEND_A_EQ(aeq) | VDXG_BLEND_A_SRC(as) | \
     VDXG_BLEND_A_DST(ad))
        /* Disabled: the source */
        { 0, 0x99ff3399 },
        /* ZERO, ONE: the destination */
        { BL(0, VDXG_BLF_ZERO, VDXG_BLF_ONE, 0, VDXG_BLF_ZERO, VDXG_BLF_ONE),
          0xcc336699 },
        /* SRC_ALPHA, ONE_MINUS_SRC_ALPHA: the mean */
        { BL(0, VDXG_BLF_SRC_ALPHA, VDXG_BLF_ONE_MINUS_SRC_ALPHA, 0,
             VDXG_BLF_SRC_ALPHA, VDXG_BLF_ONE_MINUS_SRC_ALPHA), 0xadad4799 },
        /* MIN and MAX ignore the factors */
        { BL(VDXG_BLEQ_MIN, 0, 0, VDXG_BLEQ_MAX, 0, 0), 0xcc333399 },
        /* SUBTRACT: s - d; REVERSE_SUBTRACT alpha: d - s */
        { BL(VDXG_BLEQ_SUBTRACT, VDXG_BLF_ONE, VDXG_BLF_ONE,
             VDXG_BLEQ_REVERSE_SUBTRACT, VDXG_BLF_ONE, VDXG_BLF_ONE),
          0x33cc0000 },
        /* DST_COLOR x ZERO: s * d; CONSTANT_ALPHA for alpha: 0.8 * 0.6 */
        { BL(0, VDXG_BLF_DST_COLOR, VDXG_BLF_ZERO, 0, VDXG_BLF_CONST_ALPHA,
             VDXG_BLF_ZERO), 0x7a33145c },
        /* CONSTANT_COLOR x ONE_MINUS_DST_ALPHA(0.2) + 0 */
        { BL(0, VDXG_BLF_CONST_COLOR, VDXG_BLF_ZERO, 0,
             VDXG_BLF_ONE_MINUS_DST_ALPHA, VDXG_BLF_ZERO), 0x1f33145c },
        /* SRC_ALPHA_SATURATE: min(0.6, 0.2) for RGB, 1 for alpha */
        { BL(0, VDXG_BLF_SRC_ALPHA_SATURATE, VDXG_BLF_ZERO, 0,
             VDXG_BLF_SRC_ALPHA_SATURATE, VDXG_BLF_ZERO), 0x99330a1f },
        /* Write masks: R and A kept */
        { VDXG_BLEND_WRITE_DISABLE(1 | 8), 0xcc333399 },
#undef BL
    };
    const float src[4] = { 1, 0.2f, 0.6f, 0.6f };
    const float dst[4] = { 0.2f, 0.4f, 0.6f, 0.8f };
    T3 *t = t3_start();
    T3Vtx v[6];
    uint32_t i;

    t3_quad(v, -1, -1, 1, 1, 0, src);
    t3_put_vertices(t->p, v, 6);
    for (i = 0; i < ARRAY_SIZE(c); i++) {
        g_test_message("blend case %u", i);
        t3_begin(t, VDXG_FMT_ARGB8888, 4, 4, 0);
        t3_clear(t->p, VDXG_CLEAR_COLOR, 0, 0, 4, 4, dst, 0, 0);
        t3_reg(t->p, VDXG_3D_BLEND, c[i].blend);
        t3_regf(t->p, VDXG_3D_BLEND_COLOR(0), 0.2f);
        t3_regf(t->p, VDXG_3D_BLEND_COLOR(1), 0.4f);
        t3_regf(t->p, VDXG_3D_BLEND_COLOR(2), 0.6f);
        t3_regf(t->p, VDXG_3D_BLEND_COLOR(3), 0.8f);
        t3_draw(t->p, VDXG_PRIM_TRIANGLES, 0, 6);
        t3_run(t);
        g_assert_cmphex(t3_px(t, 1, 1), ==, c[i].px);
    }
    t3_stop(t);
}

/*
 * Textures: a 4x4 ARGB8888 texture across an 8x8 DST (two pixels a
 * texel), nearest; then coordinates from -1 to 1 in each wrap mode.
 */
static void test_3d_texture(void)
{
    static const T3Insn fs[] = {
        { { DOUT(VDXG_OP_TEX, 0) | VDXG_INSN_TEX(3, 0), IN(0), 0, 0 } },
        I_END,
    };
    T3 *t = t3_start();
    Pg *p = t->p;
    uint32_t tex[16], i, x, y, fsz, wrap;
    T3Vtx v[6];
    const float one[4] = { 1, 1, 1, 1 };

    for (i = 0; i < 16; i++) {
        tex[i] = cpu_to_le32(0xff000000 | i * 0x10203);
    }
    vram_write(p, T3_TEX, tex, sizeof(tex));
    fsz = t3_prog(p, T3_FS + 0x1000, 1, fs, ARRAY_SIZE(fs), NULL, 0);

    for (wrap = 0; wrap < 4; wrap++) {
        float lo = wrap ? -1 : 0;

        t3_quad(v, -1, -1, 1, 1, 0, one);
        for (i = 0; i < 6; i++) {
            v[i].col[0] = v[i].pos[0] > 0 ? 1 : lo;
            v[i].col[1] = v[i].pos[1] > 0 ? 1 : lo;
        }
        t3_put_vertices(p, v, 6);
        t3_begin(t, VDXG_FMT_ARGB8888, 8, 8, 0);
        t3_set_shader(p, 1, T3_FS + 0x1000, fsz);
        t3_texture(p, 3, T3_TEX, 64,
                   VDXG_TEX_DESC(VDXG_FMT_ARGB8888, 1, 0), 4 | 4 << 16);
        t3_reg(p, VDXG_3D_SAMPLER(3),
               VDXG_SAMPLER_WRAP_S(wrap ? wrap - 1 : 0) |
               VDXG_SAMPLER_WRAP_T(wrap ? wrap - 1 : 0));
        t3_draw(p, VDXG_PRIM_TRIANGLES, 0, 6);
        t3_run(t);
        for (y = 0; y < 8; y++) {
            for (x = 0; x < 8; x++) {
                /* s * 4 = px / 2 + 0.25, or px - 3.5 from -1 */
                int32_t tx = wrap ? (int32_t)x - 4 : x / 2;
                int32_t ty = wrap ? (int32_t)y - 4 : y / 2;

                switch (wrap) {
                case 1:
                    tx = (tx + 8) % 4;
                    ty = (ty + 8) % 4;
                    break;
                case 2:
                    tx = MAX(tx, 0);
                    ty = MAX(ty, 0);
                    break;
                case 3:
                    tx = tx < 0 ? -1 - tx : tx;
                    ty = ty < 0 ? -1 - ty : ty;
                    break;
                }
                g_assert_cmphex(t3_px(t, x, y), ==,
                                0xff000000 | (ty * 4 + tx) * 0x10203);
            }
        }
    }
    /* A CUBE instruction on a 2D texture: SHADER at the draw */
    t3_begin(t, VDXG_FMT_ARGB8888, 8, 8, 0);
    fsz = t3_prog(p, T3_FS + 0x2000, 1, fs, ARRAY_SIZE(fs), NULL, 0);
    vram_writel(p, T3_FS + 0x2010, DOUT(VDXG_OP_TEX, 0) |
                VDXG_INSN_TEX(3, 1));
    t3_set_shader(p, 1, T3_FS + 0x2000, fsz);
    t3_texture(p, 3, T3_TEX, 64, VDXG_TEX_DESC(VDXG_FMT_ARGB8888, 1, 0),
               4 | 4 << 16);
    t3_draw(p, VDXG_PRIM_TRIANGLES, 0, 6);
    t3_expect_fault(t, VDXG_FAULT_SHADER, VDXG_RD_DRAW, T3_FS + 0x2010);
    t3_stop(t);
}

/* Points and lines: the pixels they cover */
static void test_3d_points_lines(void)
{
    const float one[4] = { 1, 1, 1, 1 };
    T3 *t = t3_start();
    Pg *p = t->p;
    T3Vtx v[2] = {
        { { 0, 0, 0, 1 }, { 1, 1, 1, 1 } },
    };
    uint32_t x, y;

    /* Size 3 at the centre of 16 x 16: h = 384, pixels 6 to 8 */
    t3_put_vertices(p, v, 1);
    t3_begin(t, VDXG_FMT_ARGB8888, 16, 16, 0);
    t3_regf(p, VDXG_3D_POINT_SIZE, 3.0f);
    t3_draw(p, VDXG_PRIM_POINTS, 0, 1);
    t3_run(t);
    for (y = 0; y < 16; y++) {
        for (x = 0; x < 16; x++) {
            bool in = x >= 6 && x <= 8 && y >= 6 && y <= 8;

            g_assert_cmphex(t3_px(t, x, y), ==, in ? 0xffffffff : 0);
        }
    }
    /* A point outside the view volume is dropped, not clipped */
    v[0].pos[0] = 1.01f;
    t3_put_vertices(p, v, 1);
    t3_begin(t, VDXG_FMT_ARGB8888, 16, 16, 0);
    t3_clear(p, VDXG_CLEAR_COLOR, 0, 0, 16, 16, NULL, 0, 0);
    t3_regf(p, VDXG_3D_POINT_SIZE, 64.0f);
    t3_draw(p, VDXG_PRIM_POINTS, 0, 1);
    t3_run(t);
    g_assert_cmphex(t3_px(t, 15, 8), ==, 0);

    /* A line from window (2, 5.5) to (10, 5.5): pixels 2 to 9 of row 5 */
    v[0] = (T3Vtx) { { -0.75f, -0.3125f, 0, 1 }, { 1, 1, 1, 1 } };
    v[1] = (T3Vtx) { { 0.25f, -0.3125f, 0, 1 }, { 1, 1, 1, 1 } };
    t3_put_vertices(p, v, 2);
    t3_begin(t, VDXG_FMT_ARGB8888, 16, 16, 0);
    t3_clear(p, VDXG_CLEAR_COLOR, 0, 0, 16, 16, NULL, 0, 0);
    t3_draw(p, VDXG_PRIM_LINES, 0, 2);
    t3_run(t);
    for (y = 0; y < 16; y++) {
        for (x = 0; x < 16; x++) {
            bool in = y == 5 && x >= 2 && x <= 9;

            g_assert_cmphex(t3_px(t, x, y), ==, in ? 0xffffffff : 0);
        }
    }
    (void)one;
    t3_stop(t);
}

/* Vertex formats: UNORM8, SNORM8, UINT16 and a fetch past the buffer */
static void test_3d_vertex_formats(void)
{
    T3 *t = t3_start();
    Pg *p = t->p;
    T3Vtx v[6];
    const float c[4] = { 0 };
    const float one[4] = { 1, 1, 1, 1 };
    uint8_t colors[6 * 4];
    uint32_t i;

    t3_quad(v, -1, -1, 1, 1, 0, c);
    t3_put_vertices(p, v, 6);
    for (i = 0; i < 6; i++) {
        colors[i * 4 + 0] = 0x40;
        colors[i * 4 + 1] = 0x80;
        colors[i * 4 + 2] = 0xff;
        colors[i * 4 + 3] = 0x81;      /* SNORM8: -127 / 127 = -1 */
    }
    vram_write(p, T3_VB + 0x8000, colors, sizeof(colors));

    /* UNORM8 x 4: the bytes back exactly */
    t3_begin(t, VDXG_FMT_ARGB8888, 4, 4, 0);
    t3_vb(p, 1, T3_VB + 0x8000, sizeof(colors), 4);
    t3_reg(p, VDXG_3D_ELEMENT(1),
           VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_UNORM8, 4), 1, 0));
    t3_draw(p, VDXG_PRIM_TRIANGLES, 0, 6);
    t3_run(t);
    g_assert_cmphex(t3_px(t, 0, 0), ==, 0x814080ff);

    /* SNORM8 x 3 at offset 1: 0x80 -> 1.0079 (saturated), -1 -> 0; w 1 */
    t3_begin(t, VDXG_FMT_ARGB8888, 4, 4, 0);
    t3_vb(p, 1, T3_VB + 0x8000, sizeof(colors), 4);
    t3_reg(p, VDXG_3D_ELEMENT(1),
           VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_SNORM8, 3), 1, 1));
    t3_draw(p, VDXG_PRIM_TRIANGLES, 0, 6);
    t3_run(t);
    /* (0x80 = -128: -1, 0xff = -1: -1/127, 0x81: -1, 1) */
    g_assert_cmphex(t3_px(t, 0, 0), ==, 0xff000000);

    /* Past the buffer: every component read is 0 (w too: it is read) */
    t3_begin(t, VDXG_FMT_ARGB8888, 4, 4, 0);
    t3_clear(p, VDXG_CLEAR_COLOR, 0, 0, 4, 4, one, 0, 0);
    t3_vb(p, 1, T3_VB + 0x8000, 4 * 5 + 3, 4);
    t3_reg(p, VDXG_3D_ELEMENT(1),
           VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_UNORM8, 4), 1, 0));
    t3_draw(p, VDXG_PRIM_TRIANGLES, 0, 6);
    t3_run(t);
    /*
     * Vertex 5 reads 0: the second triangle's colour is interpolated
     * between the fetched ones and 0; pixel (3, 0) is near vertex 5's
     * corner (-1, 1)... and (3, 3) is near vertex 2 (1, 1): full colour.
     */
    g_assert_cmphex(t3_px(t, 3, 0), ==, 0x814080ff);
    /* UINT16 x 1: 0x8040 = 32832, saturated to 1; y, z 0, w 1 */
    t3_begin(t, VDXG_FMT_ARGB8888, 4, 4, 0);
    t3_vb(p, 1, T3_VB + 0x8000, sizeof(colors), 4);
    t3_reg(p, VDXG_3D_ELEMENT(1),
           VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_UINT16, 1), 1, 0));
    t3_draw(p, VDXG_PRIM_TRIANGLES, 0, 6);
    t3_run(t);
    g_assert_cmphex(t3_px(t, 2, 2), ==, 0xffff0000);
    t3_stop(t);
}

/* CLEAR in every target format, and of depth and stencil */
static void test_3d_clear(void)
{
    static const struct {
        uint32_t fmt, cpp, px;
    } c[] = {
        { VDXG_FMT_ARGB8888, 4, 0x33ff8000 },
        { VDXG_FMT_XRGB8888, 4, 0xffff8000 },
        { VDXG_FMT_ABGR8888, 4, 0x330080ff },
        { VDXG_FMT_RGB565, 2, 0xfc00 },
        { VDXG_FMT_RGBA4444, 2, 0xf803 },
        { VDXG_FMT_RGBA5551, 2, 0xfc00 },
    };
    const float rgba[4] = { 1, 0.5f, 0, 0.2f };
    T3 *t = t3_start();
    Pg *p = t->p;
    uint32_t i, x, y;

    for (i = 0; i < ARRAY_SIZE(c); i++) {
        uint32_t pitch = 8 * c[i].cpp;

        for (y = 0; y < 4; y++) {
            for (x = 0; x < 8; x += 4 / c[i].cpp) {
                vram_writel(p, T3_DST + y * pitch + x * c[i].cpp, 0x5a5a5a5a);
            }
        }
        pb_reset(p);
        rd_set_surface(p, VDXG_SLOT_DST, T3_DST, c[i].fmt, 8, 4, pitch);
        /* Clipped to the surface: 6..7 x 1..3 */
        t3_clear(p, VDXG_CLEAR_COLOR, 6, 1, 50, 9, rgba, 0, 0);
        pb_run(p);
        for (y = 0; y < 4; y++) {
            for (x = 0; x < 8; x++) {
                uint32_t got = vram_readl(p, T3_DST + y * pitch +
                                          x * c[i].cpp);
                bool in = x >= 6 && y >= 1;

                got &= c[i].cpp == 2 ? 0xffff : 0xffffffff;
                g_assert_cmphex(got, ==, in ? c[i].px :
                                c[i].cpp == 2 ? 0x5a5a : 0x5a5a5a5a);
            }
        }
    }

    /* D24S8: depth and stencil apart, then both; D16 */
    vram_writel(p, T3_DEPTH, 0x11223344);
    pb_reset(p);
    rd_set_surface(p, VDXG_SLOT_DEPTH, T3_DEPTH, VDXG_FMT_D24S8, 1, 1, 4);
    t3_clear(p, VDXG_CLEAR_STENCIL, 0, 0, 1, 1, NULL, 0.25f, 0x5a);
    pb_run(p);
    g_assert_cmphex(vram_readl(p, T3_DEPTH), ==, 0x5a223344);
    pb_reset(p);
    rd_set_surface(p, VDXG_SLOT_DEPTH, T3_DEPTH, VDXG_FMT_D24S8, 1, 1, 4);
    t3_clear(p, VDXG_CLEAR_DEPTH, 0, 0, 1, 1, NULL, 2.0f, 0x11);
    pb_run(p);
    g_assert_cmphex(vram_readl(p, T3_DEPTH), ==, 0x5affffff);
    pb_reset(p);
    rd_set_surface(p, VDXG_SLOT_DEPTH, T3_DEPTH, VDXG_FMT_D24S8, 1, 1, 4);
    t3_clear(p, VDXG_CLEAR_DEPTH | VDXG_CLEAR_STENCIL, 0, 0, 1, 1, NULL,
             0.25f, 0xa5);
    pb_run(p);
    g_assert_cmphex(vram_readl(p, T3_DEPTH), ==, 0xa5400000);
    vram_writel(p, T3_DEPTH, 0x11223344);
    pb_reset(p);
    rd_set_surface(p, VDXG_SLOT_DEPTH, T3_DEPTH, VDXG_FMT_D16, 1, 1, 4);
    t3_clear(p, VDXG_CLEAR_DEPTH, 0, 0, 1, 1, NULL, 0.5f, 0);
    pb_run(p);
    g_assert_cmphex(vram_readl(p, T3_DEPTH), ==, 0x11228000);
    t3_stop(t);
}

/* Bad state, bad programs and bad draws fault with their reason */
static void test_3d_faults(void)
{
    static const T3Insn runaway[] = {
        { { VDXG_OP_BGNLOOP, 0, 0, 0 } },
        { { DOUT(VDXG_OP_ADD, 0), IN(0), IN(0), 0 } },
        { { VDXG_OP_ENDLOOP, 0, 0, 0 } },
        I_END,
    };
    static const T3Insn reads_c3[] = {
        { { DOUT(VDXG_OP_MOV, 0), IN(0), 0, 0 } },
        { { DOUT(VDXG_OP_ADD, 2), IN(1), CST(3), 0 } },
        I_END,
    };
    const float one[4] = { 1, 1, 1, 1 };
    T3 *t = t3_start();
    Pg *p = t->p;
    T3Vtx v[6];
    uint32_t off, sz;

    t3_quad(v, -1, -1, 1, 1, 0, one);
    t3_put_vertices(p, v, 6);

    /* A register value the table does not allow: PARAM at the command */
    t3_begin(t, VDXG_FMT_ARGB8888, 4, 4, 0);
    off = pb_off(p);
    t3_reg(p, VDXG_3D_BLEND, VDXG_BLEND_RGB_EQ(5));
    t3_expect_fault(t, VDXG_FAULT_PARAM, VDXG_RD_SET_STATE,
                    T3_HDR(p, off));

    /* A bad program: SHADER at its bad dword */
    sz = t3_prog(p, T3_FS + 0x3000, 1, t3_fs_pass, ARRAY_SIZE(t3_fs_pass),
                 NULL, 0);
    vram_writel(p, T3_FS + 0x3010, DOUT(VDXG_OP_MOV, 1));
    pb_reset(p);
    t3_set_shader(p, 1, T3_FS + 0x3000, sz);
    t3_expect_fault(t, VDXG_FAULT_SHADER, VDXG_RD_SET_SHADER,
                    T3_FS + 0x3010);
    vram_writel(p, T3_FS + 0x3000, 0);
    pb_reset(p);
    t3_set_shader(p, 1, T3_FS + 0x3000, sz);
    t3_expect_fault(t, VDXG_FAULT_SHADER, VDXG_RD_SET_SHADER, T3_FS + 0x3000);
    /* Too short for its instructions: at dword 3 */
    sz = t3_prog(p, T3_FS + 0x3000, 1, t3_fs_pass, ARRAY_SIZE(t3_fs_pass),
                 NULL, 0);
    pb_reset(p);
    t3_set_shader(p, 1, T3_FS + 0x3000, sz - 4);
    t3_expect_fault(t, VDXG_FAULT_SHADER, VDXG_RD_SET_SHADER,
                    T3_FS + 0x300c);

    /* A draw with no fragment program bound: PARAM */
    pb_reset(p);
    rd_set_surface(p, VDXG_SLOT_DST, T3_DST, VDXG_FMT_ARGB8888, 4, 4, 16);
    t3_set_shader(p, 0, T3_VS, t3_prog(p, T3_VS, 0, t3_vs_pass,
                                       ARRAY_SIZE(t3_vs_pass), NULL, 0));
    off = pb_off(p);
    t3_draw(p, VDXG_PRIM_TRIANGLES, 0, 6);
    t3_expect_fault(t, VDXG_FAULT_PARAM, VDXG_RD_DRAW,
                    T3_HDR(p, off));

    /* CONST[3] with 2 bound: SHADER at the instruction, at the draw */
    sz = t3_prog(p, T3_VS + 0x3000, 0, reads_c3, ARRAY_SIZE(reads_c3), NULL,
                 0);
    t3_begin(t, VDXG_FMT_ARGB8888, 4, 4, 0);
    t3_set_shader(p, 0, T3_VS + 0x3000, sz);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_SET_CONSTANTS, VDXG_RD_SET_CONSTANTS_LEN));
    pb_dw(p, 0);
    pb_qw(p, T3_CONST);
    pb_dw(p, 2);
    t3_draw(p, VDXG_PRIM_TRIANGLES, 0, 0);
    t3_expect_fault(t, VDXG_FAULT_SHADER, VDXG_RD_DRAW, T3_VS + 0x3020);

    /* A runaway fragment program: SHADER at the visit that is one too many */
    sz = t3_prog(p, T3_FS + 0x4000, 1, runaway, ARRAY_SIZE(runaway), NULL,
                 0);
    t3_begin(t, VDXG_FMT_ARGB8888, 4, 4, 0);
    t3_set_shader(p, 1, T3_FS + 0x4000, sz);
    t3_draw(p, VDXG_PRIM_TRIANGLES, 0, 6);
    t3_expect_fault(t, VDXG_FAULT_SHADER, VDXG_RD_DRAW, T3_FS + 0x4030);

    /* The device draws again after the reset */
    t3_begin(t, VDXG_FMT_ARGB8888, 4, 4, 0);
    t3_draw(p, VDXG_PRIM_TRIANGLES, 0, 6);
    t3_run(t);
    g_assert_cmphex(t3_px(t, 3, 3), ==, 0xffffffff);

    /* 0x12 is no command */
    pb_reset(p);
    off = pb_off(p);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_NUM_OPS_3D, 1));
    t3_expect_fault(t, VDXG_FAULT_OPCODE, VDXG_RD_NUM_OPS_3D,
                    T3_HDR(p, off));
    /* A D32 DEPTH in a draw: PARAM; DEPTH smaller than DST: BOUNDS */
    t3_begin(t, VDXG_FMT_ARGB8888, 4, 4, 0);
    rd_set_surface(p, VDXG_SLOT_DEPTH, T3_DEPTH, VDXG_FMT_D32, 4, 4, 16);
    off = pb_off(p);
    t3_draw(p, VDXG_PRIM_TRIANGLES, 0, 6);
    t3_expect_fault(t, VDXG_FAULT_PARAM, VDXG_RD_DRAW,
                    T3_HDR(p, off));
    t3_begin(t, VDXG_FMT_ARGB8888, 4, 4, 0);
    rd_set_surface(p, VDXG_SLOT_DEPTH, T3_DEPTH, VDXG_FMT_D16, 4, 3, 8);
    off = pb_off(p);
    t3_draw(p, VDXG_PRIM_TRIANGLES, 0, 6);
    t3_expect_fault(t, VDXG_FAULT_BOUNDS, VDXG_RD_DRAW,
                    T3_HDR(p, off));
    /*
     * The checks' order: a DEPTH smaller than DST (BOUNDS) comes before a
     * DRAW_INDEXED's missing index buffer (PARAM)
     */
    t3_begin(t, VDXG_FMT_ARGB8888, 4, 4, 0);
    rd_set_surface(p, VDXG_SLOT_DEPTH, T3_DEPTH, VDXG_FMT_D16, 3, 4, 8);
    off = pb_off(p);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_DRAW_INDEXED, VDXG_RD_DRAW_INDEXED_LEN));
    pb_dw(p, VDXG_PRIM_TRIANGLES);
    pb_dw(p, 0);
    pb_dw(p, 3);
    pb_dw(p, 0);
    t3_expect_fault(t, VDXG_FAULT_BOUNDS, VDXG_RD_DRAW_INDEXED,
                    T3_HDR(p, off));
    /* A vertex buffer outside VRAM and the aperture: ADDRESS at it */
    pb_reset(p);
    t3_vb(p, 2, GPU_HOLE, 64, 16);
    t3_expect_fault(t, VDXG_FAULT_ADDRESS, VDXG_RD_SET_VERTEX_BUFFER,
                    GPU_HOLE);
    t3_stop(t);
}

/*
 * Run the buffer queued on @p, held after @step of work at a time, for
 * at most @max steps: the steps it took (@max if it did not end).
 */
static uint32_t t3_run_held(Pg *p, uint64_t step, uint32_t max)
{
    uint32_t n;

    qom_set_u64(p, "x-rd-hold-after", step);
    ring_kick(p);
    for (n = 0; n < max; n++) {
        while (qom_get_u64(p, "x-rd-hold-after") &&
               !(rd(&p->v, EREG(p, VDXG_ENG_STATUS)) &
                 VDXG_ENG_STATUS_IDLE)) {
            g_usleep(100);
        }
        if (rd(&p->v, EREG(p, VDXG_ENG_STATUS)) & VDXG_ENG_STATUS_IDLE) {
            break;
        }
        qom_set_u64(p, "x-rd-hold-after", step);
    }
    qom_set_u64(p, "x-rd-hold-after", 0);
    return n;
}

/*
 * PROGRESS counts each command and each primitive; a long draw runs in
 * slices, each resuming where the last stopped, with the same pixels.
 */
static void test_3d_progress_slices(void)
{
    const float c[4] = { 2.0f / 3, 0.2f, 1, 1 };
    T3 *t = t3_start();
    Pg *p = t->p;
    T3Vtx v[64];
    uint32_t i, n, x, y, cmds;

    for (i = 0; i < 10; i++) {
        v[i] = (T3Vtx) { { -0.9f + i * 0.1f, 0, 0, 1 },
                         { c[0], c[1], c[2], c[3] } };
    }
    t3_put_vertices(p, v, 10);
    t3_begin(t, VDXG_FMT_ARGB8888, 64, 64, 0);
    t3_draw(p, VDXG_PRIM_POINTS, 0, 10);
    cmds = 0;
    for (i = 0; i < pb_off(p) / 4; i += p->buf[i] >> 16) {
        cmds++;
    }
    t3_run(t);
    g_assert_cmpuint(rd(&p->v, EREG(p, VDXG_ENG_PROGRESS)), ==, cmds + 10);

    /* A 512 x 512 quad, held after a little work at a time */
    t3_quad(v, -1, -1, 1, 1, 0, c);
    t3_put_vertices(p, v, 6);
    t3_begin(t, VDXG_FMT_ARGB8888, 512, 512, 0);
    t3_draw(p, VDXG_PRIM_TRIANGLES, 0, 6);
    pb_queue(p);
    n = t3_run_held(p, 100000, 10000);
    pg_finish(p);
    g_assert_cmpuint(n, >, 5);
    for (y = 0; y < 512; y += 7) {
        for (x = 0; x < 512; x += 5) {
            g_assert_cmphex(t3_px(t, x, y), ==, 0xffaa33ff);
        }
    }
    t3_stop(t);
}

/*
 * Migration in the middle of a draw: the state, the programs (as decoded
 * then: their memory is wiped before the migration), the constants the
 * draw latched (wiped too) and the draw's progress come along, and the
 * draw finishes on the destination with the same pixels.
 */
static void test_3d_migration(void)
{
    static const T3Insn fs[] = {
        { { DOUT(VDXG_OP_MOV, 0), CST(0), 0, 0 } },
        I_END,
    };
    g_autofree char *tmpdir = g_dir_make_tmp("vdxg-test-XXXXXX", NULL);
    const float c[4] = { 0, 0, 0, 0 };
    const float k[4] = { 1.0f / 3, 2.0f / 3, 0.6f, 0.2f };
    uint8_t zero[256] = { 0 };
    T3 *t = t3_start();
    Pg *p = t->p;
    T3Vtx v[6];
    uint32_t x, y, i, fsz;
    uint8_t kb[16];

    g_assert_nonnull(tmpdir);
    for (i = 0; i < 4; i++) {
        stl_le_p(kb + i * 4, f32(k[i]));
    }
    vram_write(p, T3_CONST, kb, sizeof(kb));
    t3_quad(v, -1, -1, 1, 1, 0, c);
    t3_put_vertices(p, v, 6);
    fsz = t3_prog(p, T3_FS + 0x5000, 1, fs, ARRAY_SIZE(fs), NULL, 0);
    t3_begin(t, VDXG_FMT_ARGB8888, 256, 256, 0);
    t3_set_shader(p, 1, T3_FS + 0x5000, fsz);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_SET_CONSTANTS, VDXG_RD_SET_CONSTANTS_LEN));
    pb_dw(p, 1);
    pb_qw(p, T3_CONST);
    pb_dw(p, 1);
    t3_draw(p, VDXG_PRIM_TRIANGLES, 0, 6);
    pb_queue(p);
    pg_hold_after(p, 200000);
    ring_kick(p);
    pg_wait_held(p);
    wr(&p->v, EREG(p, VDXG_ENG_CTRL), 0);
    pg_hold_after(p, 0);
    g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_STATUS)), ==, 0);
    /* Some of the draw is done, not all of it */
    g_assert_cmphex(t3_px(t, 0, 0), ==, 0x3355aa99);
    g_assert_cmphex(t3_px(t, 255, 255), ==, 0);
    vram_write(p, T3_CONST, zero, sizeof(kb));
    vram_write(p, T3_FS + 0x5000, zero, fsz);
    vram_write(p, T3_VS, zero, 64);

    t->p = p = rd_migrate(p, tmpdir);
    wr(&p->v, EREG(p, VDXG_ENG_CTRL), VDXG_ENG_CTRL_ENABLE);
    pg_finish(p);
    for (y = 0; y < 256; y += 3) {
        for (x = 0; x < 256; x += 7) {
            g_assert_cmphex(t3_px(t, x, y), ==, 0x3355aa99);
        }
    }
    g_assert_cmphex(t3_px(t, 255, 255), ==, 0x3355aa99);
    t3_stop(t);
    g_rmdir(tmpdir);
}

/*
 * Clipping: against the near and far planes (z from -2 w to 2 w across
 * the screen: only the middle is drawn), the guard band (x from -8 w to
 * 8 w: clipped at 4 w, every pixel still drawn once), and a vertex behind
 * the eye (w < 0: the visible part is drawn, nothing wraps around).
 */
static void test_3d_clip(void)
{
    const float one[4] = { 1, 1, 1, 1 };
    T3 *t = t3_start();
    Pg *p = t->p;
    T3Vtx v[6];
    uint32_t x, y, i;

    /* z = 2x: inside |z| <= w for |x| <= 0.5, pixels 4 to 11 of 16 */
    t3_quad(v, -1, -1, 1, 1, 0, one);
    for (i = 0; i < 6; i++) {
        v[i].pos[2] = 2 * v[i].pos[0];
    }
    t3_put_vertices(p, v, 6);
    t3_begin(t, VDXG_FMT_ARGB8888, 16, 16, 0);
    t3_clear(p, VDXG_CLEAR_COLOR, 0, 0, 16, 16, NULL, 0, 0);
    t3_reg(p, VDXG_3D_BLEND, VDXG_BLEND_ENABLE |
           VDXG_BLEND_RGB_SRC(VDXG_BLF_CONST_COLOR) |
           VDXG_BLEND_RGB_DST(VDXG_BLF_ONE) |
           VDXG_BLEND_A_SRC(VDXG_BLF_CONST_ALPHA) |
           VDXG_BLEND_A_DST(VDXG_BLF_ONE));
    t3_regf(p, VDXG_3D_BLEND_COLOR(0), 0.2f);
    t3_regf(p, VDXG_3D_BLEND_COLOR(3), 0.2f);
    t3_draw(p, VDXG_PRIM_TRIANGLES, 0, 6);
    t3_run(t);
    for (y = 0; y < 16; y++) {
        for (x = 0; x < 16; x++) {
            uint32_t px = t3_px(t, x, y);

            /* Drawn once (51) or not at all, never twice */
            g_assert_true(px == 0 || px == 0x33330000);
            if (x >= 5 && x <= 10) {
                g_assert_cmphex(px, ==, 0x33330000);
            } else if (x <= 2 || x >= 13) {
                g_assert_cmphex(px, ==, 0);
            }
        }
    }

    /* The guard band: x from -8 to 8, every pixel once */
    t3_quad(v, -8, -1, 8, 1, 0, one);
    t3_put_vertices(p, v, 6);
    t3_begin(t, VDXG_FMT_ARGB8888, 16, 16, 0);
    t3_clear(p, VDXG_CLEAR_COLOR, 0, 0, 16, 16, NULL, 0, 0);
    t3_reg(p, VDXG_3D_BLEND, VDXG_BLEND_ENABLE |
           VDXG_BLEND_RGB_SRC(VDXG_BLF_CONST_COLOR) |
           VDXG_BLEND_RGB_DST(VDXG_BLF_ONE) |
           VDXG_BLEND_A_SRC(VDXG_BLF_CONST_ALPHA) |
           VDXG_BLEND_A_DST(VDXG_BLF_ONE));
    t3_regf(p, VDXG_3D_BLEND_COLOR(0), 0.2f);
    t3_regf(p, VDXG_3D_BLEND_COLOR(3), 0.2f);
    t3_draw(p, VDXG_PRIM_TRIANGLES, 0, 6);
    t3_run(t);
    for (y = 0; y < 16; y++) {
        for (x = 0; x < 16; x++) {
            g_assert_cmphex(t3_px(t, x, y), ==, 0x33330000);
        }
    }

    /*
     * A triangle with a vertex behind the eye, (0, -3, 0, -1): its part
     * with w >= 0 projects over the whole screen (from y/w = 1 at the
     * bottom to the guard band above the top): each pixel drawn once.
     */
    v[0] = (T3Vtx) { { -1, 1, 0, 1 }, { 1, 1, 1, 1 } };
    v[1] = (T3Vtx) { { 1, 1, 0, 1 }, { 1, 1, 1, 1 } };
    v[2] = (T3Vtx) { { 0, -3, 0, -1 }, { 1, 1, 1, 1 } };
    t3_put_vertices(p, v, 3);
    t3_begin(t, VDXG_FMT_ARGB8888, 16, 16, 0);
    t3_clear(p, VDXG_CLEAR_COLOR, 0, 0, 16, 16, NULL, 0, 0);
    t3_reg(p, VDXG_3D_BLEND, VDXG_BLEND_ENABLE |
           VDXG_BLEND_RGB_SRC(VDXG_BLF_CONST_COLOR) |
           VDXG_BLEND_RGB_DST(VDXG_BLF_ONE) |
           VDXG_BLEND_A_SRC(VDXG_BLF_CONST_ALPHA) |
           VDXG_BLEND_A_DST(VDXG_BLF_ONE));
    t3_regf(p, VDXG_3D_BLEND_COLOR(0), 0.2f);
    t3_regf(p, VDXG_3D_BLEND_COLOR(3), 0.2f);
    t3_draw(p, VDXG_PRIM_TRIANGLES, 0, 3);
    t3_run(t);
    for (y = 0; y < 16; y++) {
        for (x = 0; x < 16; x++) {
            g_assert_cmphex(t3_px(t, x, y), ==, 0x33330000);
        }
    }
    t3_stop(t);
}

/*
 * Polygon offset: a flat triangle (dz 0) gets UNITS x 2^-16 in D16: 256
 * units at z 0.25 store (0.25 + 1/256) x 65535 + 0.5 = 16640; a sloped
 * one gets FACTOR x its largest slope too.
 */
static void test_3d_poly_offset(void)
{
    const float one[4] = { 1, 1, 1, 1 };
    T3 *t = t3_start();
    Pg *p = t->p;
    T3Vtx v[6];

    t3_quad(v, -1, -1, 1, 1, -0.5f, one);
    t3_put_vertices(p, v, 6);
    t3_begin(t, VDXG_FMT_ARGB8888, 4, 4, VDXG_FMT_D16);
    t3_reg(p, VDXG_3D_DEPTH, VDXG_DEPTH_TEST | VDXG_DEPTH_WRITE |
           VDXG_DEPTH_FUNC(VDXG_FUNC_ALWAYS));
    t3_reg(p, VDXG_3D_RASTER, VDXG_RASTER_POLY_OFFSET);
    t3_regf(p, VDXG_3D_POLY_OFFSET_UNITS, 256);
    t3_regf(p, VDXG_3D_POLY_OFFSET_FACTOR, 1000);
    t3_draw(p, VDXG_PRIM_TRIANGLES, 0, 6);
    t3_run(t);
    g_assert_cmpuint(t3_depth(t, 1, 1), ==, 16640);
    g_assert_cmpuint(t3_depth(t, 3, 0), ==, 16640);
    /* Without POLY_OFFSET: 16384 */
    t3_begin(t, VDXG_FMT_ARGB8888, 4, 4, VDXG_FMT_D16);
    t3_reg(p, VDXG_3D_DEPTH, VDXG_DEPTH_TEST | VDXG_DEPTH_WRITE |
           VDXG_DEPTH_FUNC(VDXG_FUNC_ALWAYS));
    t3_regf(p, VDXG_3D_POLY_OFFSET_UNITS, 256);
    t3_draw(p, VDXG_PRIM_TRIANGLES, 0, 6);
    t3_run(t);
    g_assert_cmpuint(t3_depth(t, 1, 1), ==, 16384);
    /*
     * Window z from 0.25 at x = 0 to 0.75 at x = 4: dz/dx = 1/8 a pixel.
     * FACTOR 8: o = 1 + 0 (UNITS 0): every fragment clamps to 65535.
     * FACTOR -1: o = -0.125: pixel 0 (z 0.3125) stores 0.1875 x 65535.
     */
    t3_quad(v, -1, -1, 1, 1, 0, one);
    v[0].pos[2] = v[3].pos[2] = v[5].pos[2] = -0.5f;
    v[1].pos[2] = v[2].pos[2] = v[4].pos[2] = 0.5f;
    t3_put_vertices(p, v, 6);
    t3_begin(t, VDXG_FMT_ARGB8888, 4, 4, VDXG_FMT_D16);
    t3_reg(p, VDXG_3D_DEPTH, VDXG_DEPTH_TEST | VDXG_DEPTH_WRITE |
           VDXG_DEPTH_FUNC(VDXG_FUNC_ALWAYS));
    t3_reg(p, VDXG_3D_RASTER, VDXG_RASTER_POLY_OFFSET);
    t3_regf(p, VDXG_3D_POLY_OFFSET_FACTOR, 8);
    t3_draw(p, VDXG_PRIM_TRIANGLES, 0, 6);
    t3_run(t);
    g_assert_cmpuint(t3_depth(t, 0, 0), ==, 65535);
    g_assert_cmpuint(t3_depth(t, 3, 3), ==, 65535);
    t3_begin(t, VDXG_FMT_ARGB8888, 4, 4, VDXG_FMT_D16);
    t3_reg(p, VDXG_3D_DEPTH, VDXG_DEPTH_TEST | VDXG_DEPTH_WRITE |
           VDXG_DEPTH_FUNC(VDXG_FUNC_ALWAYS));
    t3_reg(p, VDXG_3D_RASTER, VDXG_RASTER_POLY_OFFSET);
    t3_regf(p, VDXG_3D_POLY_OFFSET_FACTOR, -1);
    t3_draw(p, VDXG_PRIM_TRIANGLES, 0, 6);
    t3_run(t);
    /* 0.1875 x 65535 + 0.5 = 12288.3: 12288 (far from a boundary) */
    g_assert_cmpuint(t3_depth(t, 0, 1), ==, 12288);
    t3_stop(t);
}

/*
 * TEMP[0].x counts from 0 in steps of IMM[0].x until it reaches IMM[0].y:
 * six visits an iteration
 */
#define T3_COUNT_LOOP \
        { { VDXG_OP_BGNLOOP, 0, 0, 0 } }, \
        { { DTMP(VDXG_OP_ADD, 0), TMP(0), VDXG_SRC(VDXG_FILE_IMM, 0, \
            VDXG_SWIZZLE(0, 0, 0, 0)), 0 } }, \
        { { DTMP(VDXG_OP_SGE, 1), TMP(0), VDXG_SRC(VDXG_FILE_IMM, 0, \
            VDXG_SWIZZLE(1, 1, 1, 1)), 0 } }, \
        { { VDXG_OP_IF, VDXG_SRC(VDXG_FILE_TEMP, 1, 0), 0, 0 } }, \
        { { VDXG_OP_BRK, 0, 0, 0 } }, \
        { { VDXG_OP_ENDIF, 0, 0, 0 } }, \
        { { VDXG_OP_ENDLOOP, 0, 0, 0 } }

/*
 * A fragment program of about 12000 visits a quad on a 2x2 target: one
 * quad a triangle. Held after a little work at a time, it stops and
 * resumes inside the invocation many times, and gives what it gives in
 * one go: the loop counts 2000 iterations, (2000 / 8000, ...) in the
 * colour.
 */
static void test_3d_long_invocation(void)
{
    static const float imm[2][4] = {
        { 1, 2000, 8000, 0 },
        { 0, 0, 0, 1 },
    };
    static const T3Insn fs[] = {
        T3_COUNT_LOOP,
        { { DOUT(VDXG_OP_DIV, 0), TMP(0), VDXG_SRC(VDXG_FILE_IMM, 0,
            VDXG_SWIZZLE(2, 2, 2, 2)), 0 } },
        { { VDXG_INSN(VDXG_OP_MOV, VDXG_FILE_OUTPUT, 0, 0x8), IMM(1), 0,
            0 } },
        I_END,
    };
    const float one[4] = { 1, 1, 1, 1 };
    T3 *t = t3_start();
    Pg *p = t->p;
    T3Vtx v[6];
    uint32_t fsz, n;

    t3_quad(v, -1, -1, 1, 1, 0, one);
    t3_put_vertices(p, v, 6);
    fsz = t3_prog(p, T3_FS + 0x7000, 1, fs, ARRAY_SIZE(fs), imm, 2);
    t3_begin(t, VDXG_FMT_ARGB8888, 2, 2, 0);
    t3_set_shader(p, 1, T3_FS + 0x7000, fsz);
    t3_draw(p, VDXG_PRIM_TRIANGLES, 0, 6);
    pb_queue(p);
    n = t3_run_held(p, 20000, 100000);
    pg_finish(p);
    /*
     * Each triangle's one quad takes about 12000 visits x 4 lanes x 4 of
     * budget: ten holds or so. Between quads alone there would be three.
     */
    g_assert_cmpuint(n, >, 10);
    /* 2000 / 8000 = 0.25: 64 (63.75 + 0.5) */
    g_assert_cmphex(t3_px(t, 0, 0), ==, 0xff404040);
    g_assert_cmphex(t3_px(t, 1, 1), ==, 0xff404040);
    t3_stop(t);
}

/*
 * A triangle whose three vertices share a slot of the vertex cache
 * (indices 0, 32 and 64), with a vertex program of about 10000 visits.
 * Held after about 1.3 vertices' worth of work at a time, the draw ends
 * and covers the target: the vertices a primitive has shaded are kept
 * until it is done. (They were not: a resumed primitive shaded again the
 * vertices the cache had lost, which dropped the third one's yielded
 * invocation, and the draw went round for ever.)
 */
static void test_3d_long_vertices(void)
{
    static const float imm[1][4] = { { 1, 2000, 0, 0 } };
    static const T3Insn vs[] = {
        T3_COUNT_LOOP,
        { { DOUT(VDXG_OP_MOV, VDXG_VS_OUT_POSITION), IN(0), 0, 0 } },
        { { DOUT(VDXG_OP_MOV, VDXG_VS_OUT_VARYING(0)), IN(1), 0, 0 } },
        I_END,
    };
    static const uint16_t ib[3] = { 0, 32, 64 };
    const float one[4] = { 1, 1, 1, 1 };
    const float xy[3][2] = { { -1, -1 }, { 3, -1 }, { -1, 3 } };
    T3 *t = t3_start();
    Pg *p = t->p;
    T3Vtx v[65] = { 0 };
    uint32_t vsz, n, i;

    for (i = 0; i < 3; i++) {
        v[i * 32] = (T3Vtx) { { xy[i][0], xy[i][1], 0, 1 },
                              { one[0], one[1], one[2], one[3] } };
    }
    t3_put_vertices(p, v, 65);
    vram_write(p, T3_IB, ib, sizeof(ib));
    vsz = t3_prog(p, T3_VS + 0x7000, 0, vs, ARRAY_SIZE(vs), imm, 1);
    t3_begin(t, VDXG_FMT_ARGB8888, 2, 2, 0);
    t3_vb(p, 0, T3_VB, 65 * 32, 32);
    t3_set_shader(p, 0, T3_VS + 0x7000, vsz);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_SET_INDEX_BUFFER,
                         VDXG_RD_SET_INDEX_BUFFER_LEN));
    pb_qw(p, T3_IB);
    pb_dw(p, sizeof(ib));
    pb_dw(p, 2);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_DRAW_INDEXED, VDXG_RD_DRAW_INDEXED_LEN));
    pb_dw(p, VDXG_PRIM_TRIANGLES);
    pb_dw(p, 0);
    pb_dw(p, 3);
    pb_dw(p, 0);
    pb_queue(p);
    n = t3_run_held(p, T3_LONG_VS_STEP, 200);
    g_test_message("long vertices: %u holds", n);
    g_assert_cmpuint(n, <, 200);
    g_assert_cmpuint(n, >=, 2);
    pg_finish(p);
    for (i = 0; i < 4; i++) {
        g_assert_cmphex(t3_px(t, i % 2, i / 2), ==, 0xffffffff);
    }
    t3_stop(t);
}

/*
 * A cube map of 1x1 faces, each its own colour, sampled in the direction
 * of the varying; and a mipmapped 2D texture whose levels are solid
 * colours, sampled with TXL at levels 0, 1 and 2 (MIP nearest).
 */
static void test_3d_cube_mips(void)
{
    static const T3Insn fs_cube[] = {
        { { DOUT(VDXG_OP_TEX, 0) | VDXG_INSN_TEX(2, 1), IN(0), 0, 0 } },
        I_END,
    };
    static const T3Insn fs_txl[] = {
        { { DOUT(VDXG_OP_TXL, 0) | VDXG_INSN_TEX(1, 0), IN(0), 0, 0 } },
        I_END,
    };
    static const struct {
        float dir[3];
        uint32_t face;
    } dirs[] = {
        { { 1, 0.2f, 0.3f }, 0 }, { { -1, 0.2f, 0.3f }, 1 },
        { { 0.2f, 1, 0.3f }, 2 }, { { 0.2f, -1, 0.3f }, 3 },
        { { 0.2f, 0.3f, 1 }, 4 }, { { 0.2f, 0.3f, -1 }, 5 },
    };
    T3 *t = t3_start();
    Pg *p = t->p;
    T3Vtx v[6];
    uint32_t i, fsz, x, y;
    /* 4x4 (64 bytes), 2x2 (16), 1x1 (4), solid 0xff0000nn per level */
    uint32_t mip[21];

    for (i = 0; i < 6; i++) {
        vram_writel(p, T3_TEX + i * 4, 0xff000000 | (i + 1) * 0x111111);
    }
    fsz = t3_prog(p, T3_FS + 0x8000, 1, fs_cube, ARRAY_SIZE(fs_cube), NULL,
                  0);
    for (i = 0; i < ARRAY_SIZE(dirs); i++) {
        float c[4] = { dirs[i].dir[0], dirs[i].dir[1], dirs[i].dir[2], 1 };

        t3_quad(v, -1, -1, 1, 1, 0, c);
        t3_put_vertices(p, v, 6);
        t3_begin(t, VDXG_FMT_ARGB8888, 4, 4, 0);
        t3_set_shader(p, 1, T3_FS + 0x8000, fsz);
        t3_texture(p, 2, T3_TEX, 24, VDXG_TEX_DESC(VDXG_FMT_ARGB8888, 1, 1),
                   1 | 1 << 16);
        t3_draw(p, VDXG_PRIM_TRIANGLES, 0, 6);
        t3_run(t);
        g_assert_cmphex(t3_px(t, 2, 1), ==,
                        0xff000000 | (dirs[i].face + 1) * 0x111111);
    }

    for (i = 0; i < 21; i++) {
        mip[i] = cpu_to_le32(0xff000000 | (i < 16 ? 0x10 : i < 20 ? 0x20 :
                                           0x30));
    }
    vram_write(p, T3_TEX + 0x1000, mip, sizeof(mip));
    fsz = t3_prog(p, T3_FS + 0x9000, 1, fs_txl, ARRAY_SIZE(fs_txl), NULL, 0);
    for (i = 0; i < 3; i++) {
        float c[4] = { 0.3f, 0.6f, 0, i };

        t3_quad(v, -1, -1, 1, 1, 0, c);
        t3_put_vertices(p, v, 6);
        t3_begin(t, VDXG_FMT_ARGB8888, 4, 4, 0);
        t3_set_shader(p, 1, T3_FS + 0x9000, fsz);
        t3_texture(p, 1, T3_TEX + 0x1000, sizeof(mip),
                   VDXG_TEX_DESC(VDXG_FMT_ARGB8888, 3, 0), 4 | 4 << 16);
        t3_reg(p, VDXG_3D_SAMPLER(1), VDXG_SAMPLER_MIP(VDXG_MIP_NEAREST));
        t3_draw(p, VDXG_PRIM_TRIANGLES, 0, 6);
        t3_run(t);
        for (y = 0; y < 4; y++) {
            for (x = 0; x < 4; x++) {
                g_assert_cmphex(t3_px(t, x, y), ==, 0xff000010 * 1 +
                                0x10 * i);
            }
        }
    }
    t3_stop(t);
}

/*
 * DRAW_INDEXED with 1-, 2- and 4-byte indices and a bias; an index past
 * the vertex buffer reads zeros (w 0: its triangle is dropped); a range
 * past the index buffer is BOUNDS.
 */
static void test_3d_indexed(void)
{
    const float one[4] = { 1, 1, 1, 1 };
    T3 *t = t3_start();
    Pg *p = t->p;
    T3Vtx v[6];
    uint8_t ib[64];
    uint32_t isz, i, x, y, off;

    t3_quad(v, -1, -1, 1, 1, 0, one);
    t3_put_vertices(p, v, 6);
    for (isz = 1; isz <= 4; isz *= 2) {
        /* Indices 12..17 with bias -12: the quad's six vertices */
        for (i = 0; i < 6; i++) {
            uint32_t idx = i + 12;

            memcpy(ib + i * isz, &(uint32_t){ cpu_to_le32(idx) }, isz);
        }
        vram_write(p, T3_IB, ib, 6 * isz);
        t3_begin(t, VDXG_FMT_ARGB8888, 4, 4, 0);
        t3_clear(p, VDXG_CLEAR_COLOR, 0, 0, 4, 4, NULL, 0, 0);
        pb_dw(p, VDXG_PG_HDR(VDXG_RD_SET_INDEX_BUFFER,
                             VDXG_RD_SET_INDEX_BUFFER_LEN));
        pb_qw(p, T3_IB);
        pb_dw(p, 6 * isz);
        pb_dw(p, isz);
        pb_dw(p, VDXG_PG_HDR(VDXG_RD_DRAW_INDEXED, VDXG_RD_DRAW_INDEXED_LEN));
        pb_dw(p, VDXG_PRIM_TRIANGLES);
        pb_dw(p, 0);
        pb_dw(p, 6);
        pb_dw(p, -12);
        t3_run(t);
        for (y = 0; y < 4; y++) {
            for (x = 0; x < 4; x++) {
                g_assert_cmphex(t3_px(t, x, y), ==, 0xffffffff);
            }
        }
    }
    /*
     * The second triangle's last index past the buffer: it reads (0, 0,
     * 0, 0), w 0, and the triangle is dropped; the first is drawn.
     */
    stl_le_p(ib + 5 * 4, 0x7fff0000);
    vram_write(p, T3_IB, ib, 6 * 4);
    t3_begin(t, VDXG_FMT_ARGB8888, 4, 4, 0);
    t3_clear(p, VDXG_CLEAR_COLOR, 0, 0, 4, 4, NULL, 0, 0);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_SET_INDEX_BUFFER,
                         VDXG_RD_SET_INDEX_BUFFER_LEN));
    pb_qw(p, T3_IB);
    pb_dw(p, 24);
    pb_dw(p, 4);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_DRAW_INDEXED, VDXG_RD_DRAW_INDEXED_LEN));
    pb_dw(p, VDXG_PRIM_TRIANGLES);
    pb_dw(p, 0);
    pb_dw(p, 6);
    pb_dw(p, -12);
    t3_run(t);
    /* (3, 0) is in the first triangle, (0, 3) in the second */
    g_assert_cmphex(t3_px(t, 3, 0), ==, 0xffffffff);
    g_assert_cmphex(t3_px(t, 0, 3), ==, 0);

    /* first + count past the index buffer: BOUNDS */
    t3_begin(t, VDXG_FMT_ARGB8888, 4, 4, 0);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_SET_INDEX_BUFFER,
                         VDXG_RD_SET_INDEX_BUFFER_LEN));
    pb_qw(p, T3_IB);
    pb_dw(p, 24);
    pb_dw(p, 4);
    off = pb_off(p);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_DRAW_INDEXED, VDXG_RD_DRAW_INDEXED_LEN));
    pb_dw(p, VDXG_PRIM_TRIANGLES);
    pb_dw(p, 1);
    pb_dw(p, 6);
    pb_dw(p, 0);
    t3_expect_fault(t, VDXG_FAULT_BOUNDS, VDXG_RD_DRAW_INDEXED,
                    T3_HDR(p, off));
    t3_stop(t);
}

void vdxg_test_add_3d_tests(void)
{
    qtest_add_func("/vdxg/3d/fill-rule", test_3d_fill_rule);
    qtest_add_func("/vdxg/3d/fullscreen", test_3d_fullscreen);
    qtest_add_func("/vdxg/3d/depth-funcs", test_3d_depth_funcs);
    qtest_add_func("/vdxg/3d/stencil", test_3d_stencil);
    qtest_add_func("/vdxg/3d/blend", test_3d_blend);
    qtest_add_func("/vdxg/3d/texture", test_3d_texture);
    qtest_add_func("/vdxg/3d/points-lines", test_3d_points_lines);
    qtest_add_func("/vdxg/3d/vertex-formats", test_3d_vertex_formats);
    qtest_add_func("/vdxg/3d/clear", test_3d_clear);
    qtest_add_func("/vdxg/3d/faults", test_3d_faults);
    qtest_add_func("/vdxg/3d/progress-slices", test_3d_progress_slices);
    qtest_add_func("/vdxg/3d/migration", test_3d_migration);
    qtest_add_func("/vdxg/3d/clip", test_3d_clip);
    qtest_add_func("/vdxg/3d/indexed", test_3d_indexed);
    qtest_add_func("/vdxg/3d/cube-mips", test_3d_cube_mips);
    qtest_add_func("/vdxg/3d/long-invocation", test_3d_long_invocation);
    qtest_add_func("/vdxg/3d/long-vertices", test_3d_long_vertices);
    qtest_add_func("/vdxg/3d/poly-offset", test_3d_poly_offset);
}
