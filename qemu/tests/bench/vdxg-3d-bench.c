/*
 * A host benchmark of the vdxg 3D pipeline's pure parts: the rasterizer
 * (hw/display/vdxg/vdxg_raster3d.c) feeding the shader interpreter
 * (hw/display/vdxg/vdxg_shader.c) with quads of large triangles, for a
 * few fragment programs like those of glmark2 and kmscube.
 *
 * For each program it prints the best and median CPU time of a frame and a
 * hash of the colour bits the fragment program produced for the covered
 * lanes it left live, and with -c of every bit the rasterizer gave the
 * quads too (each lane's inputs and depth): two builds of the device must
 * print the same hashes.
 * scripts/bench-3d.sh builds and runs it.
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include <math.h>
#include "qemu/bswap.h"
#include "hw/display/vdxg/vdxg_shader.h"
#include "hw/display/vdxg/vdxg_raster3d.h"

#define SW(x, y, z, w)  VDXG_SWIZZLE(x, y, z, w)
#define XYZW        VDXG_SWIZZLE_XYZW
#define XXXX        SW(0, 0, 0, 0)
#define YYYY        SW(1, 1, 1, 1)
#define ZZZZ        SW(2, 2, 2, 2)
#define WWWW        SW(3, 3, 3, 3)
#define T(i)        VDXG_SRC(VDXG_FILE_TEMP, i, XYZW)
#define TS(i, s)    VDXG_SRC(VDXG_FILE_TEMP, i, s)
#define IN(i)       VDXG_SRC(VDXG_FILE_INPUT, i, XYZW)
#define INS(i, s)   VDXG_SRC(VDXG_FILE_INPUT, i, s)
#define C(i)        VDXG_SRC(VDXG_FILE_CONST, i, XYZW)
#define CS(i, s)    VDXG_SRC(VDXG_FILE_CONST, i, s)
#define IMS(i, s)   VDXG_SRC(VDXG_FILE_IMM, i, s)
#define NEG         VDXG_SRC_NEGATE
#define SABS        VDXG_SRC_ABS
#define DT(op, i, m)    VDXG_INSN(op, VDXG_FILE_TEMP, i, m)
#define DO(op, i)   VDXG_INSN(op, VDXG_FILE_OUTPUT, i, 0xf)
#define OP(op)      ((uint32_t)(op))
#define END         { { OP(VDXG_OP_END), 0, 0, 0 } }

#define FB          512
#define NVARY       4

typedef struct Insn {
    uint32_t dw[4];
} Insn;

typedef struct Shader {
    const char *name;
    const Insn *insn;
    uint32_t n;
} Shader;

/*
 * Phong: IN[0] normal, IN[1] eye position; C0 light position, C1.x
 * shininess, C2 diffuse, C3 specular, C4 ambient; IMM0 (2, 0, 1, 0.5).
 */
static const Insn phong[] = {
    { { DT(VDXG_OP_DP3, 0, 1), IN(0), IN(0), 0 } },
    { { DT(VDXG_OP_RSQ, 0, 1), TS(0, XXXX), 0, 0 } },
    { { DT(VDXG_OP_MUL, 1, 0xf), IN(0), TS(0, XXXX), 0 } },
    { { DT(VDXG_OP_ADD, 2, 0xf), C(0), IN(1) | NEG, 0 } },
    { { DT(VDXG_OP_DP3, 0, 1), T(2), T(2), 0 } },
    { { DT(VDXG_OP_RSQ, 0, 1), TS(0, XXXX), 0, 0 } },
    { { DT(VDXG_OP_MUL, 2, 0xf), T(2), TS(0, XXXX), 0 } },
    { { DT(VDXG_OP_DP3, 0, 1), IN(1), IN(1), 0 } },
    { { DT(VDXG_OP_RSQ, 0, 1), TS(0, XXXX), 0, 0 } },
    { { DT(VDXG_OP_MUL, 3, 0xf), IN(1) | NEG, TS(0, XXXX), 0 } },
    { { DT(VDXG_OP_DP3, 0, 1), T(1), T(2), 0 } },
    { { DT(VDXG_OP_MUL, 4, 0xf), T(1), TS(0, XXXX), 0 } },
    { { DT(VDXG_OP_MAD, 4, 0xf), T(4), IMS(0, XXXX), T(2) | NEG } },
    { { DT(VDXG_OP_DP3, 0, 2), T(4), T(3), 0 } },
    { { DT(VDXG_OP_MAX, 0, 3), T(0), IMS(0, YYYY), 0 } },
    { { DT(VDXG_OP_POW, 0, 4), TS(0, YYYY), CS(1, XXXX), 0 } },
    { { DT(VDXG_OP_MUL, 5, 0xf), TS(0, XXXX), C(2), 0 } },
    { { DT(VDXG_OP_MAD, 5, 0xf), TS(0, ZZZZ), C(3), T(5) } },
    { { DO(VDXG_OP_ADD, 0), T(5), C(4), 0 } },
    END,
};

/*
 * Refract-like: a normalised normal and view vector, a refraction
 * vector by Snell's law (with the total internal reflection test as an
 * IF), a Fresnel term through EX2 and LG2, a procedural "texture" of
 * the refracted direction (FRC, SIN) mixed in by LRP, with saturation.
 */
static const Insn refract[] = {
    { { DT(VDXG_OP_DP3, 0, 1), IN(0), IN(0), 0 } },
    { { DT(VDXG_OP_RSQ, 0, 1), TS(0, XXXX), 0, 0 } },
    { { DT(VDXG_OP_MUL, 1, 0xf), IN(0), TS(0, XXXX), 0 } },
    { { DT(VDXG_OP_DP3, 0, 1), IN(1), IN(1), 0 } },
    { { DT(VDXG_OP_RSQ, 0, 1), TS(0, XXXX), 0, 0 } },
    { { DT(VDXG_OP_MUL, 2, 0xf), IN(1), TS(0, XXXX), 0 } },
    /* c = dot(N, I); k = 1 - eta^2 (1 - c^2) */
    { { DT(VDXG_OP_DP3, 0, 2), T(1), T(2), 0 } },
    { { DT(VDXG_OP_MAD, 0, 4), TS(0, YYYY) | NEG, TS(0, YYYY), IMS(0, ZZZZ) } },
    { { DT(VDXG_OP_MUL, 0, 4), TS(0, ZZZZ), CS(1, YYYY), 0 } },
    { { DT(VDXG_OP_ADD, 0, 4), IMS(0, ZZZZ), TS(0, ZZZZ) | NEG, 0 } },
    { { DT(VDXG_OP_SLT, 6, 1), TS(0, ZZZZ), IMS(0, YYYY), 0 } },
    { { OP(VDXG_OP_IF), TS(6, XXXX), 0, 0 } },
    { { DT(VDXG_OP_MOV, 3, 0xf), C(2), 0, 0 } },
    { { OP(VDXG_OP_ELSE), 0, 0, 0 } },
    /* R = eta I - (eta c + sqrt(k)) N */
    { { DT(VDXG_OP_SQRT, 0, 8), TS(0, ZZZZ), 0, 0 } },
    { { DT(VDXG_OP_MAD, 0, 8), CS(1, ZZZZ), TS(0, YYYY), TS(0, WWWW) } },
    { { DT(VDXG_OP_MUL, 4, 0xf), T(1), TS(0, WWWW), 0 } },
    { { DT(VDXG_OP_MAD, 3, 0xf), T(2), CS(1, ZZZZ), T(4) | NEG } },
    { { DT(VDXG_OP_FRC, 4, 0xf), T(3), 0, 0 } },
    { { DT(VDXG_OP_MUL, 4, 0xf), T(4), C(3), 0 } },
    { { DT(VDXG_OP_SIN, 4, 1), TS(4, XXXX), 0, 0 } },
    { { DT(VDXG_OP_COS, 4, 2), TS(4, YYYY), 0, 0 } },
    { { DT(VDXG_OP_MAD, 3, 0xf) | VDXG_INSN_SAT, T(4) | SABS, IMS(0, WWWW),
        T(3) } },
    { { OP(VDXG_OP_ENDIF), 0, 0, 0 } },
    /* Fresnel: pow(1 - |c|, 5) */
    { { DT(VDXG_OP_ADD, 0, 1), IMS(0, ZZZZ), TS(0, YYYY) | SABS | NEG, 0 } },
    { { DT(VDXG_OP_LG2, 0, 1), TS(0, XXXX), 0, 0 } },
    { { DT(VDXG_OP_MUL, 0, 1), TS(0, XXXX), CS(1, WWWW), 0 } },
    { { DT(VDXG_OP_EX2, 0, 1), TS(0, XXXX), 0, 0 } },
    { { DT(VDXG_OP_LRP, 5, 0xf), TS(0, XXXX), C(4), T(3) } },
    { { DT(VDXG_OP_DDX, 6, 0xf), T(5), 0, 0 } },
    { { DT(VDXG_OP_DDY, 7, 0xf), T(5), 0, 0 } },
    { { DT(VDXG_OP_ADD, 6, 0xf), T(6) | SABS, T(7) | SABS, 0 } },
    { { DT(VDXG_OP_CMP, 5, 0xf), TS(0, XXXX) | NEG, T(6), T(5) } },
    { { DO(VDXG_OP_MOV, 0) | VDXG_INSN_SAT, TS(5, SW(2, 1, 0, 3)), 0, 0 } },
    END,
};

/* kmscube: the interpolated colour times a light factor */
static const Insn smooth[] = {
    { { DO(VDXG_OP_MUL, 0), IN(2), INS(3, XXXX), 0 } },
    END,
};

static const Shader shaders[] = {
    { "phong", phong, ARRAY_SIZE(phong) },
    { "refract", refract, ARRAY_SIZE(refract) },
    { "smooth", smooth, ARRAY_SIZE(smooth) },
};

static const float consts[5][4] = {
    { 3, 4, 5, 1 }, { 16, 0.66f, 0.9f, 5 }, { 0.7f, 0.5f, 0.3f, 1 },
    { 1.3f, 2.7f, 0.2f, 1 }, { 0.1f, 0.1f, 0.15f, 1 },
};
static const float imm[1][4] = { { 2, 0, 1, 0.5f } };

typedef struct Bench {
    VdxgShRun run;
    uint64_t hash;
    uint64_t frags;
} Bench;

/* With -c: the rasterizer's work is hashed too */
static bool check;

static void hash_word(uint64_t *h, uint32_t v)
{
    *h = ((*h << 5) | (*h >> 59)) ^ v;
}

static void hash_float(uint64_t *h, float f)
{
    uint32_t u;

    memcpy(&u, &f, 4);
    hash_word(h, u);
}

static VdxgRun bench_quad(void *opaque, const VdxgQuad *q)
{
    Bench *b = opaque;
    uint32_t pc, l, c, i, live;

    /* The rasterizer's work: every lane's inputs, the depths */
    for (l = 0; check && l < VDXG_SH_LANES; l++) {
        for (i = 0; i < VDXG_3D_FS_INPUTS; i++) {
            for (c = 0; c < 4; c++) {
                hash_float(&b->hash, b->run.in[i][c][l]);
            }
        }
        hash_float(&b->hash, q->z[l]);
    }
    b->run.live = 0xf;
    if (vdxg_shader_run(&b->run, &pc) != VDXG_SH_OK) {
        fprintf(stderr, "shader failed at %u\n", pc);
        exit(1);
    }
    live = b->run.live & q->covered;
    for (l = 0; l < VDXG_SH_LANES; l++) {
        if (!(live & BIT(l))) {
            continue;
        }
        for (c = 0; c < 4; c++) {
            hash_float(&b->hash, b->run.lane[l].out[VDXG_FS_OUT_COLOR][c]);
        }
        b->frags++;
    }
    return VDXG_RUN_DONE;
}

static uint8_t *prog_bytes(const Shader *s, uint32_t *len)
{
    uint8_t *buf;
    uint32_t i, j;

    *len = 16 * (1 + s->n + 1);
    buf = g_malloc0(*len);
    stl_le_p(buf, VDXG_3D_PROGRAM_MAGIC);
    stl_le_p(buf + 4, VDXG_3D_STAGE_FRAGMENT);
    stl_le_p(buf + 8, s->n);
    stl_le_p(buf + 12, 1);
    for (i = 0; i < s->n; i++) {
        for (j = 0; j < 4; j++) {
            stl_le_p(buf + 16 + i * 16 + j * 4, s->insn[i].dw[j]);
        }
    }
    for (j = 0; j < 4; j++) {
        memcpy(buf + 16 + s->n * 16 + j * 4, &imm[0][j], 4);
    }
    return buf;
}

/* A frame: two triangles over the framebuffer, and two smaller ones */
static void frame(Bench *b, VdxgRaster3d *ra, uint32_t k)
{
    static const float pos[6][2] = {
        { -1, -1 }, { 1, -1 }, { 1, 1 }, { -1, 1 }, { -0.6f, 0.7f },
        { 0.8f, -0.3f },
    };
    static const uint8_t tris[4][3] = {
        { 0, 1, 2 }, { 0, 2, 3 }, { 4, 0, 5 }, { 5, 2, 4 },
    };
    VdxgWinVert w[6];
    uint32_t i, j, t;
    uint64_t progress;

    for (i = 0; i < 6; i++) {
        VdxgClipVert cv = {
            .pos = { pos[i][0], pos[i][1], 0.25f * i - 0.5f,
                     1.0f + 0.1f * i },
        };

        for (j = 0; j < NVARY * 4; j++) {
            cv.vary[j] = sinf(0.37f * (i * 16 + j) + 0.01f * k) * 3.0f;
        }
        cv.pos[0] *= cv.pos[3];
        cv.pos[1] *= cv.pos[3];
        if (!vdxg_to_window(ra, &cv, &w[i], false)) {
            fprintf(stderr, "vertex %u dropped\n", i);
            exit(1);
        }
    }
    for (t = 0; t < ARRAY_SIZE(tris); t++) {
        progress = 0;
        vdxg_tri_raster(ra, &w[tris[t][0]], &w[tris[t][1]],
                        &w[tris[t][2]], &progress);
    }
    (void)b;
}

/* The CPU time of this thread, in ms: another load on the host shows less */
static double cpu_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static void bench(const Shader *s, uint32_t frames)
{
    static Bench b;
    VdxgProgram prog;
    int64_t budget = INT64_MAX;
    VdxgRaster3d ra = {
        .x0 = 0, .y0 = 0, .x1 = FB, .y1 = FB,
        .vp_scale = { FB / 2, FB / 2, 0.5f },
        .vp_trans = { FB / 2, FB / 2, 0.5f },
        .raster = VDXG_RASTER_POLY_OFFSET, .po_factor = 1.5f,
        .po_units = 2, .po_rd = 1.0f / 65536,
        .in = b.run.in, .quad = bench_quad, .opaque = &b,
        .budget = &budget,
    };
    g_autofree double *ms = g_new(double, frames);
    g_autofree uint8_t *buf = NULL;
    uint32_t len, f;

    buf = prog_bytes(s, &len);
    if (vdxg_program_decode(&prog, VDXG_3D_STAGE_FRAGMENT, buf, len) != -1) {
        fprintf(stderr, "%s: bad program\n", s->name);
        exit(1);
    }
    ra.vary_mask = vdxg_program_vary_mask(&prog);
    memset(&b, 0, sizeof(b));
    b.hash = 0xcbf29ce484222325ull;
    b.run.p = &prog;
    b.run.consts = consts;
    b.run.nconsts = ARRAY_SIZE(consts);
    b.run.nlanes = VDXG_SH_LANES;
    for (f = 0; f < frames; f++) {
        double t0 = cpu_ms();

        frame(&b, &ra, f);
        ms[f] = cpu_ms() - t0;
    }
    qsort(ms, frames, sizeof(ms[0]), cmp_double);
    printf("%-8s frames %u  fragments/frame %" PRIu64
           "  ms/frame: min %.3f median %.3f  hash %016" PRIx64 "\n",
           s->name, frames, b.frags / frames, ms[0], ms[frames / 2], b.hash);
    vdxg_program_free(&prog);
}

int main(int argc, char **argv)
{
    uint32_t frames, i;

    if (argc > 1 && !strcmp(argv[1], "-c")) {
        check = true;
        argc--;
        argv++;
    }
    frames = argc > 1 ? atoi(argv[1]) : 20;
    for (i = 0; i < ARRAY_SIZE(shaders); i++) {
        if (argc > 2 && strcmp(argv[2], shaders[i].name)) {
            continue;
        }
        bench(&shaders[i], frames);
    }
    return 0;
}
