/*
 * vdxg: the 3D pipeline's shader programs: decoding and checking a
 * program (SET_SHADER), and running it, a vertex on one lane or a 2x2
 * quad of fragments on four, exactly as docs/hardware.md ("Programs",
 * "Arithmetic") defines every step.
 *
 * Pure functions, free of PCI and MMIO: the device model (vdxg_3d.c) and
 * the host unit test (tests/unit/test-vdxg-3d.c) both use them. Texture
 * fetches go through a callback. Include "qemu/osdep.h" first.
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_DISPLAY_VDXG_SHADER_H
#define HW_DISPLAY_VDXG_SHADER_H

#include "qemu/bitops.h"
#include "hw/display/vdxg_hw.h"

#define VDXG_SH_LANES           4

/* A source operand, decoded */
typedef struct VdxgShSrc {
    uint8_t file;               /* VDXG_FILE_* */
    uint8_t index;
    uint8_t swz[4];
    bool rel;                   /* CONST[index + A0.x] */
    bool plain;                 /* swizzle xyzw, no ABS or NEGATE */
    uint32_t abs_mask;          /* sign bit cleared by ABS */
    uint32_t neg_mask;          /* sign bit flipped by NEGATE */
} VdxgShSrc;

/* An instruction, decoded */
typedef struct VdxgShInsn {
    uint8_t op;                 /* VDXG_OP_* */
    uint8_t dst_file;
    uint8_t dst_index;
    uint8_t mask;               /* x bit 0 */
    bool sat;
    uint8_t unit;
    bool cube;
    uint8_t nsrc;
    /* ENDLOOP: its BGNLOOP's index */
    uint16_t target;
    VdxgShSrc src[3];
} VdxgShInsn;

/* A checked program (SET_SHADER) */
typedef struct VdxgProgram {
    uint32_t stage;
    uint32_t n;                 /* instructions */
    uint32_t m;                 /* immediates */
    bool writes_psize;          /* a vertex program writes OUT[1] */
    uint32_t num_temps;         /* 1 + the highest TEMP index it uses */
    VdxgShInsn *insn;           /* n of them */
    float imm[VDXG_3D_MAX_IMMEDIATES][4];
    /* Its bytes as SET_SHADER read them: 16 * (1 + n + m) (migration) */
    uint32_t *raw;
    uint32_t raw_len;           /* bytes */
} VdxgProgram;

/*
 * Decode and check the program in @buf (@len bytes, as read from memory:
 * little endian) for @stage. On success fill @p (allocating what it
 * holds; free it with vdxg_program_free) and return -1; on a SHADER fault
 * return the byte offset of the dword that faults.
 */
int64_t vdxg_program_decode(VdxgProgram *p, uint32_t stage,
                            const uint8_t *buf, uint64_t len);
void vdxg_program_free(VdxgProgram *p);

/*
 * The varying components (bit 4 * varying + component) that the fragment
 * program @p reads: the rasterizer interpolates only those.
 */
uint64_t vdxg_program_vary_mask(const VdxgProgram *p);

/*
 * The draw-time checks of a bound program: a CONST index read without
 * RELATIVE not below @nconsts, a texture opcode whose unit is not in
 * @units (bit u: bound) or whose CUBE does not match @cubes (bit u: the
 * texture is a cube map). Returns the index of the first instruction that
 * fails, or -1.
 */
int32_t vdxg_program_check_draw(const VdxgProgram *p, uint32_t nconsts,
                                uint32_t units, uint32_t cubes);

/*
 * A texture sample: unit @unit at level-space coordinates (s, t) of cube
 * face @face (0 for a 2D texture) with LOD @lod; the result in @out.
 * False on a memory fault (the callback's owner keeps its reason).
 */
typedef bool (*VdxgShSampleFn)(void *opaque, unsigned int unit,
                               unsigned int face, float s, float t,
                               float lod, float *out);

/*
 * A register of every lane, as the interpreter keeps it: a vector of a
 * channel's lanes (lane l of channel c is [c][l]) for each channel, so
 * that an instruction runs on the lanes together.
 */
typedef float VdxgShChan
    __attribute__((vector_size(VDXG_SH_LANES * sizeof(float))));
typedef VdxgShChan VdxgShVec[4];

/* @x in every lane */
static inline VdxgShChan vdxg_sh_splat(float x)
{
    return (VdxgShChan) { x, x, x, x };
}

/* The outputs of a lane of an invocation */
typedef struct VdxgShLane {
    float out[VDXG_3D_VS_OUTPUTS][4];
} VdxgShLane;

/* A control-flow frame of an invocation */
typedef struct VdxgShFrame {
    bool loop;
    uint8_t saved;
    uint8_t els;                /* IF: else; LOOP: brk */
    uint8_t cont;
    int8_t outer_loop;          /* the innermost LOOP frame below, or -1 */
} VdxgShFrame;

typedef struct VdxgShRun {
    const VdxgProgram *p;
    const float (*consts)[4];
    uint32_t nconsts;
    /* Textures: level 0's size of each unit, and the sampler */
    uint32_t tex_w[VDXG_3D_NUM_UNITS];
    uint32_t tex_h[VDXG_3D_NUM_UNITS];
    VdxgShSampleFn sample;
    void *opaque;
    uint32_t nlanes;            /* 1 (vertex) or 4 (fragment quad) */
    uint32_t live;              /* in: the live lanes; out: not killed */
    uint64_t steps;             /* instructions visited, added to */
    /*
     * With @budget set, each visit charges @cost to it, and once it is
     * spent the invocation stops between two instructions with
     * VDXG_SH_YIELD: vdxg_shader_resume goes on from there.
     */
    int64_t *budget;
    int64_t cost;
    /*
     * An invocation is a vertex (one lane, 0) or a quad of fragments
     * (four). The inputs of its lanes, which the caller sets before a run
     * (vdxg_sh_set_input), and their outputs, set when it ends with
     * VDXG_SH_OK
     */
    VdxgShVec in[VDXG_3D_VS_INPUTS];
    VdxgShLane lane[VDXG_SH_LANES];
    /* The registers of the invocation at work */
    VdxgShVec out[VDXG_3D_VS_OUTPUTS];
    VdxgShVec temp[VDXG_3D_NUM_TEMPS];
    int32_t a0[VDXG_SH_LANES];
    /* The sources of an instruction that are not a register as it is */
    VdxgShVec tmp[3];
    /* Where a yielded invocation stopped */
    uint32_t y_pc, y_visits, y_live, y_exec;
    int32_t y_sp, y_loop;
    VdxgShFrame y_stack[VDXG_3D_MAX_NESTING];
} VdxgShRun;

/* Input @i of lane @l of @r: @v */
static inline void vdxg_sh_set_input(VdxgShRun *r, unsigned int l,
                                     unsigned int i, const float *v)
{
    unsigned int c;

    for (c = 0; c < 4; c++) {
        r->in[i][c][l] = v[c];
    }
}

typedef enum VdxgShResult {
    VDXG_SH_OK,
    VDXG_SH_STEPS,              /* VDXG_3D_MAX_STEPS visits: SHADER fault */
    VDXG_SH_MEMFAULT,           /* the sampler failed */
    VDXG_SH_YIELD,              /* out of budget: resume it */
} VdxgShResult;

/*
 * Run the program on the lanes of @r, whose inputs the caller has set
 * (in[]); TEMPs, OUTPUTs and A0.x start at 0, and the OUTPUTs are
 * in lane[].out[] once it returns VDXG_SH_OK. On VDXG_SH_STEPS, *@pc is
 * the instruction that faults; on VDXG_SH_MEMFAULT, the one that sampled.
 */
VdxgShResult vdxg_shader_run(VdxgShRun *r, uint32_t *pc);
/* Go on with an invocation that returned VDXG_SH_YIELD */
VdxgShResult vdxg_shader_resume(VdxgShRun *r, uint32_t *pc);

/* The specified functions (docs/hardware.md, "Arithmetic") */
float vdxg_ex2(float x);
float vdxg_lg2(float x);
float vdxg_sin(float x);
float vdxg_cos(float x);
float vdxg_ldexp(float a, float b);
/* (int)v: floor(v) clamped to [lo, hi], NaN 0 */
int32_t vdxg_floor_int(float v, int32_t lo, int32_t hi);
/* x > 0 ? (x < 1 ? x : 1) : 0 */
float vdxg_sat(float x);

#endif
