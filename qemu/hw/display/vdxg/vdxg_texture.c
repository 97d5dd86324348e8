/*
 * vdxg: the 3D pipeline's textures and pixel formats
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "vdxg_fp.h"
#include <math.h>
#include "qemu/bitops.h"
#include "qemu/bswap.h"
#include "vdxg_texture.h"
#include "vdxg_shader.h"

const uint8_t vdxg_fmt3d_cpp[VDXG_NUM_FMTS_3D] = {
    [VDXG_FMT_XRGB8888] = 4,
    [VDXG_FMT_ARGB8888] = 4,
    [VDXG_FMT_RGB565]   = 2,
    [VDXG_FMT_D32]      = 4,
    [VDXG_FMT_ABGR8888] = 4,
    [VDXG_FMT_RGBA4444] = 2,
    [VDXG_FMT_RGBA5551] = 2,
    [VDXG_FMT_L8]       = 1,
    [VDXG_FMT_A8]       = 1,
    [VDXG_FMT_L8A8]     = 2,
    [VDXG_FMT_RGB888]   = 3,
    [VDXG_FMT_D16]      = 2,
    [VDXG_FMT_D24S8]    = 4,
};

uint32_t vdxg_ld_px(const uint8_t *p, uint32_t cpp)
{
    switch (cpp) {
    case 1:
        return p[0];
    case 2:
        return lduw_le_p(p);
    case 3:
        return p[0] | p[1] << 8 | p[2] << 16;
    default:
        return ldl_le_p(p);
    }
}

/* c / (2^n - 1) for the n of each channel width, as tables */
static float vdxg_unorm8[256], vdxg_unorm6[64], vdxg_unorm5[32];
static float vdxg_unorm4[16];
static bool vdxg_unorm_ready;

static void vdxg_unorm_init(void)
{
    unsigned int i;

    for (i = 0; i < 256; i++) {
        vdxg_unorm8[i] = (float)i / 255.0f;
    }
    for (i = 0; i < 64; i++) {
        vdxg_unorm6[i] = (float)i / 63.0f;
    }
    for (i = 0; i < 32; i++) {
        vdxg_unorm5[i] = (float)i / 31.0f;
    }
    for (i = 0; i < 16; i++) {
        vdxg_unorm4[i] = (float)i / 15.0f;
    }
    vdxg_unorm_ready = true;
}

void vdxg_texel_to_float(uint32_t format, uint32_t raw, float *c)
{
    if (!vdxg_unorm_ready) {
        vdxg_unorm_init();
    }
    switch (format) {
    case VDXG_FMT_XRGB8888:
    case VDXG_FMT_ARGB8888:
        c[0] = vdxg_unorm8[extract32(raw, 16, 8)];
        c[1] = vdxg_unorm8[extract32(raw, 8, 8)];
        c[2] = vdxg_unorm8[extract32(raw, 0, 8)];
        c[3] = format == VDXG_FMT_XRGB8888 ? 1.0f :
               vdxg_unorm8[extract32(raw, 24, 8)];
        break;
    case VDXG_FMT_RGB565:
        c[0] = vdxg_unorm5[extract32(raw, 11, 5)];
        c[1] = vdxg_unorm6[extract32(raw, 5, 6)];
        c[2] = vdxg_unorm5[extract32(raw, 0, 5)];
        c[3] = 1.0f;
        break;
    case VDXG_FMT_ABGR8888:
        c[0] = vdxg_unorm8[extract32(raw, 0, 8)];
        c[1] = vdxg_unorm8[extract32(raw, 8, 8)];
        c[2] = vdxg_unorm8[extract32(raw, 16, 8)];
        c[3] = vdxg_unorm8[extract32(raw, 24, 8)];
        break;
    case VDXG_FMT_RGBA4444:
        c[0] = vdxg_unorm4[extract32(raw, 12, 4)];
        c[1] = vdxg_unorm4[extract32(raw, 8, 4)];
        c[2] = vdxg_unorm4[extract32(raw, 4, 4)];
        c[3] = vdxg_unorm4[extract32(raw, 0, 4)];
        break;
    case VDXG_FMT_RGBA5551:
        c[0] = vdxg_unorm5[extract32(raw, 11, 5)];
        c[1] = vdxg_unorm5[extract32(raw, 6, 5)];
        c[2] = vdxg_unorm5[extract32(raw, 1, 5)];
        c[3] = (raw & 1) ? 1.0f : 0.0f;
        break;
    case VDXG_FMT_L8:
        c[0] = c[1] = c[2] = vdxg_unorm8[raw & 0xff];
        c[3] = 1.0f;
        break;
    case VDXG_FMT_A8:
        c[0] = c[1] = c[2] = 0.0f;
        c[3] = vdxg_unorm8[raw & 0xff];
        break;
    case VDXG_FMT_L8A8:
        c[0] = c[1] = c[2] = vdxg_unorm8[raw & 0xff];
        c[3] = vdxg_unorm8[extract32(raw, 8, 8)];
        break;
    case VDXG_FMT_RGB888:
        c[0] = vdxg_unorm8[extract32(raw, 0, 8)];
        c[1] = vdxg_unorm8[extract32(raw, 8, 8)];
        c[2] = vdxg_unorm8[extract32(raw, 16, 8)];
        c[3] = 1.0f;
        break;
    default:
        c[0] = c[1] = c[2] = c[3] = 0.0f;
        break;
    }
}

uint32_t vdxg_unorm(float x, uint32_t max)
{
    float v = vdxg_sat(x);

    v = v * (float)max;
    v = v + 0.5f;
    /* 1.0 at 24 bits: 16777215 + 0.5 rounds to 2^24 */
    return MIN((uint32_t)v, max);
}

uint32_t vdxg_float_to_texel(uint32_t format, const float *c)
{
    switch (format) {
    case VDXG_FMT_XRGB8888:
        return 0xff000000u | vdxg_unorm(c[0], 255) << 16 |
               vdxg_unorm(c[1], 255) << 8 | vdxg_unorm(c[2], 255);
    case VDXG_FMT_ARGB8888:
        return vdxg_unorm(c[3], 255) << 24 | vdxg_unorm(c[0], 255) << 16 |
               vdxg_unorm(c[1], 255) << 8 | vdxg_unorm(c[2], 255);
    case VDXG_FMT_RGB565:
        return vdxg_unorm(c[0], 31) << 11 | vdxg_unorm(c[1], 63) << 5 |
               vdxg_unorm(c[2], 31);
    case VDXG_FMT_ABGR8888:
        return vdxg_unorm(c[3], 255) << 24 | vdxg_unorm(c[2], 255) << 16 |
               vdxg_unorm(c[1], 255) << 8 | vdxg_unorm(c[0], 255);
    case VDXG_FMT_RGBA4444:
        return vdxg_unorm(c[0], 15) << 12 | vdxg_unorm(c[1], 15) << 8 |
               vdxg_unorm(c[2], 15) << 4 | vdxg_unorm(c[3], 15);
    case VDXG_FMT_RGBA5551:
        return vdxg_unorm(c[0], 31) << 11 | vdxg_unorm(c[1], 31) << 6 |
               vdxg_unorm(c[2], 31) << 1 | vdxg_unorm(c[3], 1);
    default:
        return 0;
    }
}

bool vdxg_texture_setup(VdxgTexture *t, uint64_t addr, uint64_t size,
                        uint32_t desc, uint32_t wh)
{
    uint32_t fmt = VDXG_TEX_FORMAT(desc), cpp, l;
    uint64_t off = 0;

    memset(t, 0, sizeof(*t));
    if ((desc & ~0x1fffu) || fmt >= VDXG_NUM_FMTS_3D ||
        fmt == VDXG_FMT_D32 || fmt == VDXG_FMT_D16 ||
        fmt == VDXG_FMT_D24S8 || !vdxg_fmt3d_cpp[fmt]) {
        return false;
    }
    t->format = fmt;
    t->levels = VDXG_TEX_LEVELS(desc);
    t->cube = desc & VDXG_TEX_CUBE;
    t->width = wh & 0xffff;
    t->height = wh >> 16;
    t->addr = addr;
    t->size = size;
    t->faces = t->cube ? VDXG_TEX_FACES_CUBE : 1;
    if (!t->levels || t->levels > VDXG_TEX_MAX_LEVELS ||
        !t->width || t->width > VDXG_TEX_MAX_DIM ||
        !t->height || t->height > VDXG_TEX_MAX_DIM ||
        (t->cube && t->width != t->height)) {
        return false;
    }
    cpp = vdxg_fmt3d_cpp[fmt];
    for (l = 0; l < t->levels; l++) {
        t->lw[l] = MAX(1, t->width >> l);
        t->lh[l] = MAX(1, t->height >> l);
        t->lpitch[l] = ROUND_UP(t->lw[l] * cpp, 4);
        t->limage[l] = (uint64_t)t->lpitch[l] * t->lh[l];
        t->loff[l] = off;
        off += t->faces * t->limage[l];
    }
    if (off > size) {
        return false;
    }
    return true;
}

void vdxg_cube_coord(float x, float y, float z, unsigned int *face,
                     float *s, float *t)
{
    float ax = fabsf(x), ay = fabsf(y), az = fabsf(z), sc, tc, ma;

    if (ax >= ay && ax >= az) {
        *face = x >= 0 ? 0 : 1;
        sc = x >= 0 ? -z : z;
        tc = -y;
        ma = ax;
    } else if (ay >= az) {
        *face = y >= 0 ? 2 : 3;
        sc = x;
        tc = y >= 0 ? z : -z;
        ma = ay;
    } else {
        *face = z >= 0 ? 4 : 5;
        sc = z >= 0 ? x : -x;
        tc = -y;
        ma = az;
    }
    sc = sc / ma;
    sc = sc + 1.0f;
    *s = sc * 0.5f;
    tc = tc / ma;
    tc = tc + 1.0f;
    *t = tc * 0.5f;
}

float vdxg_tex_lod(float dsdx, float dtdx, float dsdy, float dtdy,
                   uint32_t w, uint32_t h)
{
    float fw = w, fh = h, a, b, px, py;

    a = dsdx * fw;
    a = a * a;
    b = dtdx * fh;
    b = b * b;
    px = a + b;
    a = dsdy * fw;
    a = a * a;
    b = dtdy * fh;
    b = b * b;
    py = a + b;
    return 0.5f * vdxg_lg2(px > py ? px : py);
}

static int32_t vdxg_wrap(int32_t i, int32_t n, uint32_t mode)
{
    int32_t m;

    switch (mode) {
    case VDXG_WRAP_REPEAT:
        m = i % n;
        return m < 0 ? m + n : m;
    case VDXG_WRAP_MIRROR:
        m = i % (2 * n);
        if (m < 0) {
            m += 2 * n;
        }
        return m < n ? m : 2 * n - 1 - m;
    default:
        return i < 0 ? 0 : i >= n ? n - 1 : i;
    }
}

static bool vdxg_texel(const VdxgTexSampler *ts, unsigned int face,
                       unsigned int l, int32_t i, int32_t j, float *out)
{
    const VdxgTexture *t = ts->t;
    uint32_t cpp = vdxg_fmt3d_cpp[t->format], raw;
    uint64_t off = t->loff[l] + face * t->limage[l] +
                   (uint64_t)j * t->lpitch[l] + (uint64_t)i * cpp;

    if (ts->host) {
        raw = vdxg_ld_px(ts->host + off, cpp);
    } else if (!ts->read(ts->opaque, off, cpp, &raw)) {
        return false;
    }
    vdxg_texel_to_float(t->format, raw, out);
    return true;
}

/* Step 4: the filter on level @l */
static bool vdxg_tex_filter(const VdxgTexSampler *ts, unsigned int face,
                            unsigned int l, bool linear, float s, float t,
                            float *out)
{
    const VdxgTexture *tx = ts->t;
    int32_t w = tx->lw[l], h = tx->lh[l], i0, j0, i1, j1;
    uint32_t ws = tx->cube ? VDXG_WRAP_CLAMP : extract32(ts->sampler, 4, 3);
    uint32_t wt = tx->cube ? VDXG_WRAP_CLAMP : extract32(ts->sampler, 7, 3);
    float u, v, fu, fv, a, b, t00[4], t10[4], t01[4], t11[4], top, bot;
    unsigned int c;

    if (!linear) {
        u = s * (float)w;
        v = t * (float)h;
        return vdxg_texel(ts, face, l,
                          vdxg_wrap(vdxg_floor_int(u, -(1 << 24), 1 << 24),
                                    w, ws),
                          vdxg_wrap(vdxg_floor_int(v, -(1 << 24), 1 << 24),
                                    h, wt), out);
    }
    u = s * (float)w;
    u = u - 0.5f;
    v = t * (float)h;
    v = v - 0.5f;
    fu = floorf(u);
    fv = floorf(v);
    i0 = vdxg_floor_int(u, -(1 << 24), 1 << 24);
    j0 = vdxg_floor_int(v, -(1 << 24), 1 << 24);
    a = u - fu;
    b = v - fv;
    i1 = vdxg_wrap(i0 + 1, w, ws);
    j1 = vdxg_wrap(j0 + 1, h, wt);
    i0 = vdxg_wrap(i0, w, ws);
    j0 = vdxg_wrap(j0, h, wt);
    if (!vdxg_texel(ts, face, l, i0, j0, t00) ||
        !vdxg_texel(ts, face, l, i1, j0, t10) ||
        !vdxg_texel(ts, face, l, i0, j1, t01) ||
        !vdxg_texel(ts, face, l, i1, j1, t11)) {
        return false;
    }
    for (c = 0; c < 4; c++) {
        top = t10[c] - t00[c];
        top = a * top;
        top = t00[c] + top;
        bot = t11[c] - t01[c];
        bot = a * bot;
        bot = t01[c] + bot;
        bot = bot - top;
        bot = b * bot;
        out[c] = top + bot;
    }
    return true;
}

bool vdxg_tex_sample(const VdxgTexSampler *ts, unsigned int face, float s,
                     float t, float lod, float *out)
{
    const VdxgTexture *tx = ts->t;
    uint32_t smp = ts->sampler, mip = extract32(smp, 2, 2);
    int32_t top = tx->levels - 1, l0;
    float r1[4], f, fl;
    unsigned int c;

    if (isnan(lod)) {
        lod = 0;
    }
    if (lod <= 0) {
        return vdxg_tex_filter(ts, face, 0, smp & VDXG_SAMPLER_MAG_LINEAR,
                               s, t, out);
    }
    switch (mip) {
    case VDXG_MIP_NEAREST:
        l0 = vdxg_floor_int(lod + 0.5f, 0, top);
        break;
    case VDXG_MIP_LINEAR:
        l0 = vdxg_floor_int(lod, 0, top);
        break;
    default:
        l0 = 0;
        break;
    }
    if (!vdxg_tex_filter(ts, face, l0, smp & VDXG_SAMPLER_MIN_LINEAR, s, t,
                         out)) {
        return false;
    }
    if (mip != VDXG_MIP_LINEAR || l0 >= top) {
        return true;
    }
    if (!vdxg_tex_filter(ts, face, l0 + 1, smp & VDXG_SAMPLER_MIN_LINEAR,
                         s, t, r1)) {
        return false;
    }
    fl = floorf(lod);
    f = lod - fl;
    for (c = 0; c < 4; c++) {
        float d = r1[c] - out[c];

        d = f * d;
        out[c] = out[c] + d;
    }
    return true;
}
