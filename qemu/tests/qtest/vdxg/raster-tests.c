/*
 * QTest testcases for the vdxg virtual GPU: the RENDER engine's DRAW_TRIANGLES rasterizer
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "vdxg-test.h"

/* DRAW_TRIANGLES */

/* A flat right triangle, clockwise and counter-clockwise; clipping */
static void test_rd_draw_flat(void)
{
    Pg *p = rd_start();
    RdSurf dst;
    uint32_t x, y, want, f;
    RdVtx v[] = {
        /* (0, 0), (10, 0), (0, 7) in pixels: clockwise on screen */
        { PX(0), PX(0), 0, 0xff204080 },
        { PX(10), PX(0), 0, 0xff204080 },
        { PX(0), PX(7), 0, 0xff204080 },
        /* The same, counter-clockwise, moved by (12, 0) */
        { PX(12), PX(0), 0, 0x80402010 },
        { PX(12), PX(7), 0, 0x80402010 },
        { PX(22), PX(0), 0, 0x80402010 },
        /* No area: nothing */
        { PX(1), PX(8), 0, 0xffffffff },
        { PX(5), PX(8), 0, 0xffffffff },
        { PX(9), PX(8), 0, 0xffffffff },
        /* Mostly outside the surface: clipped */
        { -PX(1000), PX(9), 0, 0xff00ff00 },
        { PX(1000), PX(9), 0, 0xff00ff00 },
        { PX(3), PX(4000), 0, 0xff00ff00 },
    };

    for (f = 0; f < ARRAY_SIZE(rd_colour_fmts); f++) {
        rd_surf(p, &dst, RD_VMEM, rd_colour_fmts[f], 30, 20, 128);
        rd_clear(p, &dst, 0);
        rd_draw_both(p, &dst, NULL, NULL, 0, v, ARRAY_SIZE(v));
        rd_check(p, &dst, "flat");
    }

    /*
     * ARGB8888: every value known. Centre (x + 1/2, y + 1/2) is inside
     * when (2x + 1) * 7 + (2y + 1) * 10 < 140 (never equal: odd vs even).
     */
    rd_surf(p, &dst, RD_VMEM, VDXG_FMT_ARGB8888, 30, 20, 128);
    rd_clear(p, &dst, 0);
    rd_draw_both(p, &dst, NULL, NULL, 0, v, ARRAY_SIZE(v));
    for (y = 0; y < 20; y++) {
        for (x = 0; x < 30; x++) {
            want = 0;
            if (y >= 9) {
                want = 0xff00ff00;
            } else if (x < 10 && y < 7 &&
                       (2 * x + 1) * 7 + (2 * y + 1) * 10 < 140) {
                want = 0xff204080;
            } else if (x >= 12 && x < 22 && y < 7 &&
                       (2 * (x - 12) + 1) * 7 + (2 * y + 1) * 10 < 140) {
                want = 0x80402010;
            }
            if (rd_dev_pixel(p, &dst, x, y) != want) {
                g_test_message("pixel (%u, %u)", x, y);
            }
            g_assert_cmphex(rd_dev_pixel(p, &dst, x, y), ==, want);
        }
    }
    g_assert_cmpuint(qom_get_u64(p, "x-rd-draw-triangles-ops"), ==, 4);
    rd_stop(p);
}

/* Interpolated colours */
static void test_rd_draw_color(void)
{
    Pg *p = rd_start();
    RdSurf dst;
    uint32_t f;
    /*
     * Vertices on pixel centres. Both edges at v0 (v2 -> v0 and v0 -> v1)
     * go up, so they own v0's pixel: it gets v0's colour exactly.
     */
    RdVtx v[] = {
        { PX(2) + 8, PX(20) + 8, 0, 0xffff0000 },
        { PX(60) + 8, PX(2) + 8, 0, 0x8000ff00 },
        { PX(40) + 8, PX(45) + 8, 0, 0x000000ff },
        { PX(70) + 3, PX(1) + 11, 0, 0x12345678 },
        { PX(40) + 5, PX(47) + 1, 0, 0xfedcba98 },
        { PX(79) + 15, PX(30), 0, 0x7f7f7f7f },
    };

    for (f = 0; f < ARRAY_SIZE(rd_colour_fmts); f++) {
        rd_surf(p, &dst, RD_AMEM + 0x40, rd_colour_fmts[f], 80, 48,
                80 * 4);
        rd_clear(p, &dst, 0);
        rd_draw_both(p, &dst, NULL, NULL, 0, v, ARRAY_SIZE(v));
        rd_check(p, &dst, "colour");
    }
    /* ARGB8888: the first vertex's pixel, and a known mix */
    rd_surf(p, &dst, RD_VMEM, VDXG_FMT_ARGB8888, 80, 48, 80 * 4);
    rd_clear(p, &dst, 0);
    rd_draw_both(p, &dst, NULL, NULL, 0, v, 3);
    rd_check(p, &dst, "colour");
    g_assert_cmphex(rd_dev_pixel(p, &dst, 2, 20), ==, 0xffff0000);
    g_assert_cmphex(rd_dev_pixel(p, &dst, 1, 20), ==, 0);
    rd_stop(p);
}

/* A texture of w x h with texel (x, y) = x * 16 + y, alpha varied */
static void rd_make_texture(Pg *p, RdSurf *tex, uint64_t gpu, uint32_t fmt,
                            uint32_t w, uint32_t h)
{
    uint32_t x, y;

    rd_surf(p, tex, gpu, fmt, w, h, QEMU_ALIGN_UP(w * rd_cpp(fmt), 4) + 4);
    rd_clear(p, tex, 0);
    for (y = 0; y < h; y++) {
        for (x = 0; x < w; x++) {
            vdxg_ref_write(&tex->ref, x, y,
                           (0x40 + x * 20) << 24 | (x * 37 & 0xff) << 16 |
                           (y * 41 & 0xff) << 8 | ((x * y * 13) & 0xff));
        }
    }
    rd_xfer(p, tex->gpu, rd_span(tex), true, NULL);
}

/* A quad from (x0, y0) to (x1, y1) (28.4) with texel corners u0..u1 */
void rd_quad(RdVtx *v, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
             int32_t u0, int32_t v0, int32_t u1, int32_t v1,
             uint32_t z, uint32_t color)
{
    RdVtx q[6] = {
        { x0, y0, z, color, u0, v0 }, { x1, y0, z, color, u1, v0 },
        { x1, y1, z, color, u1, v1 }, { x0, y0, z, color, u0, v0 },
        { x1, y1, z, color, u1, v1 }, { x0, y1, z, color, u0, v1 },
    };

    memcpy(v, q, sizeof(q));
}

/* TEXTURE, nearest and bilinear, all texture formats */
static void test_rd_draw_texture(void)
{
    Pg *p = rd_start();
    RdSurf dst, tex;
    RdVtx v[18];
    uint32_t f, t, x, y, flags;

    for (f = 0; f < ARRAY_SIZE(rd_colour_fmts); f++) {
        for (t = 0; t < 2; t++) {
            flags = VDXG_DRAW_TEXTURE | (t ? VDXG_DRAW_BILINEAR : 0);
            rd_make_texture(p, &tex, RD_AMEM + 0x10000, rd_colour_fmts[f],
                            7, 5);
            rd_surf(p, &dst, RD_VMEM, VDXG_FMT_ARGB8888, 64, 48, 64 * 4);
            rd_clear(p, &dst, 0x01020304);
            /* 1:1, magnified and clamped past the edges, minified */
            rd_quad(v, 0, 0, PX(7), PX(5), 0, 0, 7 << 16, 5 << 16, 0,
                    0xffffffff);
            rd_quad(v + 6, PX(10), PX(2), PX(60), PX(40), -(2 << 16),
                    -(1 << 16), 9 << 16, 6 << 16, 0, 0xc0ff8040);
            rd_quad(v + 12, PX(1) + 5, PX(41), PX(4), PX(47) + 9, 0, 0,
                    7 << 16, 5 << 16, 0, 0x80808080);
            rd_draw_both(p, &dst, NULL, &tex, flags, v, 18);
            rd_check(p, &dst, t ? "bilinear" : "nearest");
            if (t) {
                continue;
            }
            /* Nearest 1:1 with white: the texels themselves, as ARGB */
            for (y = 0; y < 5; y++) {
                for (x = 0; x < 7; x++) {
                    g_assert_cmphex(rd_dev_pixel(p, &dst, x, y), ==,
                                    vdxg_ref_read(&tex.ref, x, y));
                }
            }
        }
    }

    /* Bilinear over a uniform texture is that colour, modulated */
    rd_surf(p, &tex, RD_VMEM + 0x100000, VDXG_FMT_ARGB8888, 4, 4, 16);
    rd_clear(p, &tex, 0x80ff4020);
    rd_surf(p, &dst, RD_VMEM, VDXG_FMT_ARGB8888, 16, 16, 64);
    rd_clear(p, &dst, 0);
    rd_quad(v, 0, 0, PX(16), PX(16), -(5 << 16), 0x12345, 0x345678,
            0x7fffffff, 0, 0xffff8000);
    rd_draw_both(p, &dst, NULL, &tex,
                 VDXG_DRAW_TEXTURE | VDXG_DRAW_BILINEAR, v, 6);
    rd_check(p, &dst, "uniform");
    /* A 0x80 * 0xff, R 0xff * 0xff, G 0x40 * 0x80, B 0x20 * 0 */
    for (y = 0; y < 16; y++) {
        for (x = 0; x < 16; x++) {
            g_assert_cmphex(rd_dev_pixel(p, &dst, x, y), ==, 0x80ff2000);
        }
    }
    rd_stop(p);
}

/* DEPTH_TEST and DEPTH_WRITE */
static void test_rd_draw_depth(void)
{
    static const uint32_t modes[] = {
        VDXG_DRAW_DEPTH_TEST | VDXG_DRAW_DEPTH_WRITE, VDXG_DRAW_DEPTH_TEST,
        VDXG_DRAW_DEPTH_WRITE,
    };
    Pg *p = rd_start();
    RdSurf dst, depth;
    RdVtx v[12];
    uint32_t m;

    for (m = 0; m < ARRAY_SIZE(modes); m++) {
        rd_surf(p, &dst, RD_VMEM, VDXG_FMT_XRGB8888, 40, 30, 40 * 4);
        /* DEPTH may be larger than DST. */
        rd_surf(p, &depth, RD_AMEM, VDXG_FMT_D32, 48, 32, 48 * 4 + 8);
        rd_clear(p, &dst, 0);
        rd_clear(p, &depth, 1000);
        /* Near (100) first, then far (200) over all, then nearer (50) */
        rd_quad(v, PX(5), PX(5), PX(20), PX(15), 0, 0, 0, 0, 100,
                0xffff0000);
        rd_quad(v + 6, 0, 0, PX(40), PX(30), 0, 0, 0, 0, 200, 0xff00ff00);
        rd_draw_both(p, &dst, &depth, NULL, modes[m], v, 12);
        rd_check(p, &dst, "depth: colour");
        rd_check(p, &depth, "depth: depth");
        switch (modes[m]) {
        case VDXG_DRAW_DEPTH_TEST | VDXG_DRAW_DEPTH_WRITE:
            g_assert_cmphex(rd_dev_pixel(p, &dst, 10, 10), ==, 0xffff0000);
            g_assert_cmphex(rd_dev_pixel(p, &depth, 10, 10), ==, 100);
            g_assert_cmphex(rd_dev_pixel(p, &dst, 30, 20), ==, 0xff00ff00);
            g_assert_cmphex(rd_dev_pixel(p, &depth, 30, 20), ==, 200);
            break;
        case VDXG_DRAW_DEPTH_TEST:
            /* Nothing written to DEPTH: the far quad covers all */
            g_assert_cmphex(rd_dev_pixel(p, &dst, 10, 10), ==, 0xff00ff00);
            g_assert_cmphex(rd_dev_pixel(p, &depth, 10, 10), ==, 1000);
            break;
        case VDXG_DRAW_DEPTH_WRITE:
            /* No test: the last one wins, its depth stored */
            g_assert_cmphex(rd_dev_pixel(p, &dst, 10, 10), ==, 0xff00ff00);
            g_assert_cmphex(rd_dev_pixel(p, &depth, 10, 10), ==, 200);
            break;
        }
        /* Outside DST, DEPTH is never touched. */
        g_assert_cmphex(rd_dev_pixel(p, &depth, 45, 31), ==, 1000);
    }

    /* Equal depth fails the test; interpolated z; unsigned comparison */
    rd_surf(p, &dst, RD_VMEM, VDXG_FMT_ARGB8888, 40, 30, 40 * 4);
    rd_surf(p, &depth, RD_VMEM + 0x10000, VDXG_FMT_D32, 40, 30, 40 * 4);
    rd_clear(p, &dst, 0);
    rd_clear(p, &depth, 0x80000000);
    rd_quad(v, 0, 0, PX(40), PX(30), 0, 0, 0, 0, 0x80000000, 0xffffffff);
    v[3].z = v[4].z = 0x7fffffff;
    v[2].z = 0xfffffff0;
    rd_quad(v + 6, PX(10), PX(10), PX(30), PX(20), 0, 0, 0, 0, 0x10,
            0xff123456);
    v[6].z = 0xffffffff;
    rd_draw_both(p, &dst, &depth, NULL,
                 VDXG_DRAW_DEPTH_TEST | VDXG_DRAW_DEPTH_WRITE, v, 12);
    rd_check(p, &dst, "depth: colour");
    rd_check(p, &depth, "depth: depth");
    g_assert_cmphex(rd_dev_pixel(p, &dst, 20, 15), ==, 0xff123456);
    rd_stop(p);
}

/*
 * Coverage masks of triangles drawn one at a time: pixels of the same
 * value (mask bit) in @count for each triangle.
 */
static void rd_coverage(Pg *p, RdSurf *dst, const RdVtx *v, uint32_t ntri,
                        uint8_t *count)
{
    uint32_t t, x, y, w = dst->ref.width, h = dst->ref.height;
    g_autofree uint8_t *img = g_malloc(rd_span(dst));

    memset(count, 0, w * h);
    for (t = 0; t < ntri; t++) {
        rd_clear(p, dst, 0);
        rd_draw_both(p, dst, NULL, NULL, 0, v + 3 * t, 3);
        rd_check(p, dst, "coverage");
        rd_xfer(p, dst->gpu, rd_span(dst), false, img);
        for (y = 0; y < h; y++) {
            for (x = 0; x < w; x++) {
                count[y * w + x] += ldl_le_p(img + y * dst->ref.pitch +
                                             x * 4) != 0;
            }
        }
    }
}

/* Fill rule: triangles that share edges cover each pixel exactly once. */
static void test_rd_draw_fill_rule(void)
{
    enum { W = 24, H = 24 };
    Pg *p = rd_start();
    RdSurf dst;
    uint8_t count[W * H];
    RdVtx v[8 * 3];
    uint32_t i, x, y;
    /* Fan boundary: corners and mid-edges of the square, clockwise */
    static const int32_t ring[8][2] = {
        { 0, 0 }, { PX(12), 0 }, { PX(24), 0 }, { PX(24), PX(12) },
        { PX(24), PX(24) }, { PX(12), PX(24) }, { 0, PX(24) },
        { 0, PX(12) },
    };

    rd_surf(p, &dst, RD_VMEM, VDXG_FMT_ARGB8888, W, H, W * 4);

    /* A square cut along either diagonal, through pixel centres */
    for (i = 0; i < 2; i++) {
        RdVtx q[6] = {
            { 0, 0, 0, 0xffffffff }, { PX(W), 0, 0, 0xffffffff },
            { PX(W), PX(H), 0, 0xffffffff }, { 0, 0, 0, 0xffffffff },
            { PX(W), PX(H), 0, 0xffffffff }, { 0, PX(H), 0, 0xffffffff },
        };
        if (i) {
            /* The other diagonal: (W, 0) to (0, H), opposite windings */
            q[0] = (RdVtx) { PX(W), 0, 0, 0xffffffff };
            q[1] = (RdVtx) { 0, PX(H), 0, 0xffffffff };
            q[2] = (RdVtx) { 0, 0, 0, 0xffffffff };
            q[3] = (RdVtx) { PX(W), PX(H), 0, 0xffffffff };
            q[4] = (RdVtx) { 0, PX(H), 0, 0xffffffff };
            q[5] = (RdVtx) { PX(W), 0, 0, 0xffffffff };
        }
        rd_coverage(p, &dst, q, 2, count);
        for (y = 0; y < H; y++) {
            for (x = 0; x < W; x++) {
                g_assert_cmpuint(count[y * W + x], ==, 1);
            }
        }
    }

    /* A fan of 8 around a pixel centre, edges through many centres */
    for (i = 0; i < 8; i++) {
        v[3 * i] = (RdVtx) { PX(11) + 8, PX(11) + 8, 0, 0xffffffff };
        v[3 * i + 1] = (RdVtx) { ring[i][0], ring[i][1], 0, 0xffffffff };
        v[3 * i + 2] = (RdVtx) { ring[(i + 1) % 8][0],
                                 ring[(i + 1) % 8][1], 0, 0xffffffff };
    }
    rd_coverage(p, &dst, v, 8, count);
    for (y = 0; y < H; y++) {
        for (x = 0; x < W; x++) {
            g_assert_cmpuint(count[y * W + x], ==, 1);
        }
    }

    /* Horizontal and vertical shared edges through pixel centres */
    for (i = 0; i < 4; i++) {
        int32_t c = PX(i * 5 + 2) + 8;

        v[6 * i + 0] = (RdVtx) { 0, c, 0, 0xffffffff };
        v[6 * i + 1] = (RdVtx) { PX(W), c, 0, 0xffffffff };
        v[6 * i + 2] = (RdVtx) { c, i & 1 ? 0 : PX(H), 0, 0xffffffff };
        v[6 * i + 3] = (RdVtx) { PX(W), c, 0, 0xffffffff };
        v[6 * i + 4] = (RdVtx) { 0, c, 0, 0xffffffff };
        v[6 * i + 5] = (RdVtx) { c, i & 1 ? PX(H) : 0, 0, 0xffffffff };
        rd_coverage(p, &dst, v + 6 * i, 2, count);
        for (y = 0; y < H; y++) {
            for (x = 0; x < W; x++) {
                g_assert_cmpuint(count[y * W + x], <=, 1);
            }
            /* The shared row is drawn once */
        }
        for (x = 1; x < W - 1; x++) {
            g_assert_cmpuint(count[(c / 16) * W + x], ==, 1);
        }
    }
    rd_stop(p);
}

/* A random coordinate around a surface of @n pixels, now and then far */
static int32_t rd_random_coord(GRand *rnd, int32_t n, bool huge)
{
    switch (g_rand_int_range(rnd, 0, huge ? 12 : 10)) {
    case 0:
        /* On a pixel centre, or a pixel corner */
        return PX(g_rand_int_range(rnd, -2, n + 2)) +
               (g_rand_boolean(rnd) ? 8 : 0);
    case 10:
        return g_rand_int_range(rnd, -VDXG_VTX_COORD_MAX,
                                VDXG_VTX_COORD_MAX + 1);
    case 11:
        return g_rand_boolean(rnd) ? VDXG_VTX_COORD_MAX :
                                     -VDXG_VTX_COORD_MAX;
    default:
        return g_rand_int_range(rnd, -PX(n) / 4, PX(n) * 5 / 4);
    }
}

RdVtx rd_random_vertex(GRand *rnd, const RdSurf *dst, bool huge)
{
    static const uint32_t zs[] = { 0, 1, 0x7fffffff, 0xffffffff };

    return (RdVtx) {
        .x = rd_random_coord(rnd, dst->ref.width, huge),
        .y = rd_random_coord(rnd, dst->ref.height, huge),
        .z = g_rand_boolean(rnd) ? g_rand_int(rnd) :
             zs[g_rand_int_range(rnd, 0, 4)],
        .color = g_rand_int(rnd),
        .u = g_rand_int_range(rnd, -(4 << 16), 40 << 16),
        .v = g_rand_boolean(rnd) ? g_rand_int_range(rnd, -(4 << 16), 40 << 16)
                                 : (int32_t)g_rand_int(rnd),
    };
}

/*
 * Random triangles into DST of @format, with random flags, DEPTH and
 * TEXTURE, in VRAM or the aperture: pixel-exact against the reference.
 */
static void test_rd_draw_random(const void *data)
{
    uint32_t format = GPOINTER_TO_UINT(data);
    Pg *p = rd_start();
    RdSurf dst, depth, tex;
    RdVtx v[3 * 40];
    uint32_t seed, n, i, flags, w, h;

    for (seed = 0; seed < 60; seed++) {
        g_autoptr(GRand) rnd = g_rand_new_with_seed(format * 1000 + seed);
        bool huge = seed % 4 == 3;

        w = g_rand_int_range(rnd, 1, 120);
        h = g_rand_int_range(rnd, 1, 90);
        rd_surf(p, &dst, seed % 3 ? RD_VMEM : RD_AMEM + 0x100, format, w,
                h, QEMU_ALIGN_UP(w * rd_cpp(format), 4) +
                4 * g_rand_int_range(rnd, 0, 3));
        rd_surf(p, &depth, seed % 5 ? RD_VMEM + 0x400000 : RD_AMEM + 0x80000,
                VDXG_FMT_D32, w + g_rand_int_range(rnd, 0, 3), h, w * 4 + 12);
        i = g_rand_int_range(rnd, 1, 12);
        rd_surf(p, &tex, seed % 2 ? RD_VMEM + 0x800000 : RD_AMEM + 0x100000,
                rd_colour_fmts[g_rand_int_range(rnd, 0, 3)], i,
                g_rand_int_range(rnd, 1, 12), 64);
        rd_randomize(p, &dst, rnd);
        rd_randomize(p, &depth, rnd);
        rd_randomize(p, &tex, rnd);

        flags = g_rand_int_range(rnd, 0, VDXG_DRAW_FLAGS_MASK + 1);
        if ((flags & VDXG_DRAW_BILINEAR) && !(flags & VDXG_DRAW_TEXTURE)) {
            flags &= ~VDXG_DRAW_BILINEAR;
        }
        n = 3 * g_rand_int_range(rnd, 1, ARRAY_SIZE(v) / 3 + 1);
        for (i = 0; i < n; i++) {
            v[i] = rd_random_vertex(rnd, &dst, huge);
        }
        g_test_message("seed %u: %s %ux%u flags 0x%x, %u vertices", seed,
                       rd_fmt_names[format], w, h, flags, n);
        rd_draw_both(p, &dst,
                     flags & (VDXG_DRAW_DEPTH_TEST | VDXG_DRAW_DEPTH_WRITE) ?
                     &depth : NULL,
                     flags & VDXG_DRAW_TEXTURE ? &tex : NULL, flags, v, n);
        rd_check(p, &dst, "random triangles");
        rd_check(p, &depth, "random triangles: depth");
    }
    rd_stop(p);
}

/* Large draws and fills run in many slices, and are still exact. */

void vdxg_test_add_raster_tests(void)
{
    int i;

    qtest_add_func("/vdxg/render/draw/flat", test_rd_draw_flat);
    qtest_add_func("/vdxg/render/draw/color", test_rd_draw_color);
    qtest_add_func("/vdxg/render/draw/texture", test_rd_draw_texture);
    qtest_add_func("/vdxg/render/draw/depth", test_rd_draw_depth);
    qtest_add_func("/vdxg/render/draw/fill-rule", test_rd_draw_fill_rule);
    for (i = 0; i < ARRAY_SIZE(rd_colour_fmts); i++) {
        uint32_t fmt = rd_colour_fmts[i];
        g_autofree char *path = g_strdup_printf("/vdxg/render/draw/random/%s",
                                                rd_fmt_names[fmt]);

        qtest_add_data_func(path, GUINT_TO_POINTER(fmt),
                            test_rd_draw_random);
    }
}
