/*
 * vdxg: the 3D pipeline's commands on the RENDER engine: the state
 * registers, the bindings, DRAW and DRAW_INDEXED (vertex fetch, the
 * programs, primitive assembly, the fragment operations), CLEAR, the 3D
 * part of the context state area and its migration
 *
 * docs/hardware.md ("The 3D pipeline") defines every step; the pure
 * parts are vdxg_shader.c, vdxg_texture.c and vdxg_raster3d.c.
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "vdxg_fp.h"
#include <math.h>
#include "qemu/bitops.h"
#include "qemu/log.h"
#include "migration/vmstate.h"
#include "vdxg_int.h"
#include "vdxg_shader.h"
#include "vdxg_texture.h"
#include "vdxg_raster3d.h"
#include "hw/display/trace.h"

/* Work charged: an instruction a lane, a vertex fetched, a primitive */
#define VDXG_COST_INSN          4
#define VDXG_COST_VERTEX        64
#define VDXG_COST_PRIM          64
#define VDXG_COST_FRAGMENT      16

/* Shaded vertices kept during a draw, by index (direct-mapped) */
#define VDXG_3D_VCACHE          32

/* The top of the GPU virtual address space */
#define VDXG_VA_LIMIT           (1ull << VDXG_VM_VA_BITS)

/*
 * Virtual mode: the translations a run may spend on finding a texture's
 * whole layout as one piece of VRAM (256 KiB in 4 KiB pages, more with
 * 2 MiB pages); past them its texels go page by page.
 */
#define VDXG_3D_WINDOW_XLATES   64

/* op_progress of a draw: the sub-triangle, and the quad within it */
#define VDXG_3D_SUB_SHIFT       40
#define VDXG_3D_QUAD_MASK       ((1ull << VDXG_3D_SUB_SHIFT) - 1)

typedef struct Vdxg3dVertex {
    bool valid;
    uint32_t index;
    VdxgClipVert v;
} Vdxg3dVertex;

typedef struct Vdxg3d {
    uint32_t regs[VDXG_3D_NUM_REGS];
    /* Bindings, as their commands gave them */
    uint32_t prog_bound[VDXG_3D_NUM_STAGES];
    uint64_t prog_addr[VDXG_3D_NUM_STAGES];
    uint32_t prog_size[VDXG_3D_NUM_STAGES];
    uint32_t const_count[VDXG_3D_NUM_STAGES];
    uint64_t const_addr[VDXG_3D_NUM_STAGES];
    uint32_t ib_isize;
    uint64_t ib_addr;
    uint32_t ib_size;
    uint32_t vb_stride[VDXG_3D_NUM_VBS];
    uint64_t vb_addr[VDXG_3D_NUM_VBS];
    uint32_t vb_size[VDXG_3D_NUM_VBS];
    uint32_t tex_desc[VDXG_3D_NUM_UNITS];
    uint64_t tex_addr[VDXG_3D_NUM_UNITS];
    uint32_t tex_size[VDXG_3D_NUM_UNITS];
    uint32_t tex_wh[VDXG_3D_NUM_UNITS];
    /* The programs' bytes (migration), decoded in prog */
    uint32_t raw_len[VDXG_3D_NUM_STAGES];
    uint8_t *raw[VDXG_3D_NUM_STAGES];
    /* The constants of the draw in progress, read when it started */
    union {
        float consts[VDXG_3D_NUM_STAGES][VDXG_3D_NUM_CONSTS][4];
        uint32_t consts_raw[VDXG_3D_NUM_STAGES * VDXG_3D_NUM_CONSTS * 4];
    };

    /* Derived from the above; not migrated */
    VdxgProgram prog[VDXG_3D_NUM_STAGES];
    VdxgTexture tex[VDXG_3D_NUM_UNITS];
    uint64_t fs_vary_mask;
    /*
     * An invocation that ran out of budget: the fragment program of the
     * quad the rasterizer stopped at, or the vertex program of vertex
     * @vs_index. A migration drops them: the invocation runs again from
     * its start (nothing was written yet).
     */
    bool fs_yielded;
    bool vs_yielded;
    uint32_t vs_index;
    Vdxg3dVertex vcache[VDXG_3D_VCACHE];
    /*
     * The vertices of the primitive in progress shaded so far, kept until
     * it is done: the cache may lose them (indices 32 apart share a
     * slot), and shading them again on each resume could take all of a
     * run, for ever. Dropped by a migration, as the cache is.
     */
    uint32_t prim_done;
    VdxgClipVert prim_in[3];
    /* Virtual mode: the bindings' pages, for one run at a time */
    VdxgVPages vb_pages[VDXG_3D_NUM_VBS];
    VdxgVPages ib_pages;
    VdxgVPages tex_pages[VDXG_3D_NUM_UNITS];
    /*
     * Virtual mode: a texture's layout as host memory, found in a run
     * (see VdxgVPages); a SET_TEXTURE forgets it.
     */
    uint64_t tex_win_run[VDXG_3D_NUM_UNITS];
    const uint8_t *tex_win[VDXG_3D_NUM_UNITS];
    VdxgShRun vs;
    VdxgShRun fs;
} Vdxg3d;

/* A command at work on the 3D state */
typedef struct Vdxg3dRun {
    VdxgRdRun *r;
    VdxgCore *s;
    VdxgEngine *e;
    Vdxg3d *g;
    /* DRAW: the fragment stage's surfaces */
    uint32_t dst_fmt;
    uint32_t depth_fmt;
} Vdxg3dRun;

void vdxg_3d_init(VdxgEngine *e)
{
    e->g3d = g_new0(Vdxg3d, 1);
    vdxg_3d_reset(e);
}

static void vdxg_3d_free_progs(Vdxg3d *g)
{
    unsigned int i;

    for (i = 0; i < VDXG_3D_NUM_STAGES; i++) {
        vdxg_program_free(&g->prog[i]);
        g_free(g->raw[i]);
        g->raw[i] = NULL;
        g->raw_len[i] = 0;
    }
}

void vdxg_3d_exit(VdxgEngine *e)
{
    if (e->g3d) {
        vdxg_3d_free_progs(e->g3d);
        g_free(e->g3d);
        e->g3d = NULL;
    }
}

/* Forget the vertices and invocations of the draw in progress */
static void vdxg_3d_forget_draw(Vdxg3d *g)
{
    memset(g->vcache, 0, sizeof(g->vcache));
    g->prim_done = 0;
    g->fs_yielded = false;
    g->vs_yielded = false;
}

/* The state of a new entry: every register zero, nothing bound */
void vdxg_3d_reset(VdxgEngine *e)
{
    Vdxg3d *g = e->g3d;

    if (!g) {
        return;
    }
    vdxg_3d_free_progs(g);
    memset(g, 0, offsetof(Vdxg3d, vs));
    vdxg_3d_forget_draw(g);
}

static float vdxg_f(uint32_t u)
{
    float f;

    memcpy(&f, &u, 4);
    return f;
}

/* May register @reg hold @v? */
static bool vdxg_3d_reg_ok(uint32_t reg, uint32_t v)
{
    float f = vdxg_f(v);
    uint32_t t, i;

    switch (reg) {
    case VDXG_3D_RASTER:
        return !(v & ~VDXG_RASTER_MASK);
    case VDXG_3D_POINT_SIZE:
    case VDXG_3D_POLY_OFFSET_FACTOR:
    case VDXG_3D_POLY_OFFSET_UNITS:
        return isfinite(f);
    case VDXG_3D_VIEWPORT_SCALE(0) ... VDXG_3D_VIEWPORT_TRANSLATE(2):
        return isfinite(f) && fabsf(f) <= VDXG_3D_VIEWPORT_MAX;
    case VDXG_3D_SCISSOR_MIN:
    case VDXG_3D_SCISSOR_MAX:
        return (v & 0xffff) <= VDXG_SURF_MAX_DIM &&
               (v >> 16) <= VDXG_SURF_MAX_DIM;
    case VDXG_3D_DEPTH:
        return !(v & ~VDXG_DEPTH_MASK);
    case VDXG_3D_STENCIL_FRONT:
    case VDXG_3D_STENCIL_BACK:
        return !(v & VDXG_STENCIL_RSVD);
    case VDXG_3D_STENCIL_REF:
        return !(v >> 16);
    case VDXG_3D_BLEND:
        return !(v & VDXG_BLEND_RSVD) &&
               extract32(v, 1, 3) < VDXG_NUM_BLEQS &&
               extract32(v, 12, 3) < VDXG_NUM_BLEQS &&
               extract32(v, 4, 4) < VDXG_NUM_BLFS &&
               extract32(v, 8, 4) < VDXG_NUM_BLFS &&
               extract32(v, 16, 4) < VDXG_NUM_BLFS &&
               extract32(v, 20, 4) < VDXG_NUM_BLFS;
    case VDXG_3D_BLEND_COLOR(0) ... VDXG_3D_BLEND_COLOR(3):
        return true;
    case VDXG_3D_ELEMENT(0) ... VDXG_3D_ELEMENT(VDXG_3D_NUM_ELEMENTS - 1):
        t = VDXG_ELEMENT_FORMAT(v);
        if (v & VDXG_ELEMENT_RSVD) {
            return false;
        }
        return VDXG_VFMT_TYPE(t) == VDXG_VTYPE_NONE ? !t :
               VDXG_VFMT_TYPE(t) < VDXG_NUM_VTYPES;
    case VDXG_3D_SAMPLER(0) ... VDXG_3D_SAMPLER(VDXG_3D_NUM_UNITS - 1):
        i = v;
        return !(i & ~VDXG_SAMPLER_MASK) && extract32(i, 2, 2) <= 2 &&
               extract32(i, 4, 3) <= 2 && extract32(i, 7, 3) <= 2;
    default:
        return !v;
    }
}

static VdxgRun vdxg_3d_fail(Vdxg3dRun *c, uint32_t reason)
{
    return vdxg_rd_fail(c->r, reason);
}

/* A range the engine reads, at the command that binds it */
static VdxgRun vdxg_3d_range(Vdxg3dRun *c, uint64_t addr, uint64_t len)
{
    if (c->e->virt) {
        if (addr >= VDXG_VA_LIMIT || len > VDXG_VA_LIMIT - addr) {
            vdxg_set_err(c->r->err, VDXG_FAULT_ADDRESS, addr);
            return VDXG_RUN_FAULT;
        }
    } else if (len && !vdxg_gpu_range_ok(c->s, addr, len)) {
        vdxg_set_err(c->r->err, VDXG_FAULT_ADDRESS, addr);
        return VDXG_RUN_FAULT;
    }
    return VDXG_RUN_DONE;
}

/*
 * Read @len bytes at @addr of a binding: in virtual mode through its page
 * cache @vp (NULL: none) when the bytes lie in one page the cache can
 * hold (VRAM, or RAM it maps), else through the engine's translation,
 * each access on its own.
 */
static bool vdxg_3d_read(Vdxg3dRun *c, VdxgVPages *vp, uint64_t addr,
                         void *buf, uint32_t len)
{
    VdxgCore *s = c->s;
    VdxgRdRun *r = c->r;
    const uint8_t *p;

    if (!c->e->virt) {
        if (!s->vf && addr + len <= s->vram_size && addr + len > addr) {
            memcpy(buf, s->vram_ptr + addr, len);
            return true;
        }
        *r->budget -= VDXG_COST_XLATE;
        return vdxg_gpu_rw(s, addr, buf, len, false, r->err);
    }
    if ((addr & VDXG_PAGE_MASK) + len <= VDXG_GPU_PAGE_SIZE && vp) {
        p = vdxg_vpages_get(r, vp, addr, false);
        if (p) {
            memcpy(buf, p, len);
            return true;
        }
    }
    return vdxg_rd_rw(s, c->e, addr, buf, len, VDXG_ACCESS_READ, r->budget,
                      r->err);
}

/* Read a whole range (a state block, a program, constants) */
static bool vdxg_3d_read_range(Vdxg3dRun *c, uint64_t addr, void *buf,
                               uint64_t len)
{
    *c->r->budget -= len;
    return vdxg_rd_rw(c->s, c->e, addr, buf, len, VDXG_ACCESS_READ,
                      c->r->budget, c->r->err);
}

/* SET_STATE and LOAD_STATE: registers [first, first + n) */
static VdxgRun vdxg_3d_set_regs(Vdxg3dRun *c, uint32_t first, uint32_t n,
                                const uint32_t *v)
{
    uint32_t i;

    if (first >= VDXG_3D_NUM_REGS || n > VDXG_3D_NUM_REGS - first) {
        return vdxg_3d_fail(c, VDXG_FAULT_PARAM);
    }
    for (i = 0; i < n; i++) {
        if (!vdxg_3d_reg_ok(first + i, v[i])) {
            return vdxg_3d_fail(c, VDXG_FAULT_PARAM);
        }
    }
    memcpy(&c->g->regs[first], v, n * 4);
    return VDXG_RUN_DONE;
}

static VdxgRun vdxg_3d_load_state(Vdxg3dRun *c, const uint32_t *dw)
{
    uint64_t addr = vdxg_dw64(dw, VDXG_RD_LOAD_DW_ADDR);
    uint32_t first = dw[VDXG_RD_LOAD_DW_FIRST];
    uint32_t n = dw[VDXG_RD_LOAD_DW_COUNT], v[VDXG_3D_NUM_REGS], i;
    uint8_t buf[VDXG_3D_NUM_REGS * 4];

    if ((addr & 3) || !n || n > VDXG_3D_NUM_REGS ||
        first >= VDXG_3D_NUM_REGS || n > VDXG_3D_NUM_REGS - first) {
        return vdxg_3d_fail(c, VDXG_FAULT_PARAM);
    }
    if (vdxg_3d_range(c, addr, n * 4) != VDXG_RUN_DONE) {
        return VDXG_RUN_FAULT;
    }
    if (!vdxg_3d_read_range(c, addr, buf, n * 4)) {
        return VDXG_RUN_FAULT;
    }
    for (i = 0; i < n; i++) {
        v[i] = ldl_le_p(buf + i * 4);
    }
    return vdxg_3d_set_regs(c, first, n, v);
}

/*
 * Read and check the program at @addr (@size bytes) for @stage, and bind
 * it. A SHADER fault names the offending dword's address.
 */
static bool vdxg_3d_bind_program(Vdxg3dRun *c, uint32_t stage, uint64_t addr,
                                 uint32_t size)
{
    Vdxg3d *g = c->g;
    uint8_t hdr[VDXG_PROG_HEADER_SIZE];
    g_autofree uint8_t *buf = NULL;
    uint32_t n, m;
    uint64_t span = 0;
    VdxgProgram p;
    int64_t bad;

    if (!vdxg_3d_read_range(c, addr, hdr, sizeof(hdr))) {
        return false;
    }
    n = ldl_le_p(hdr + 8);
    m = ldl_le_p(hdr + 12);
    if (ldl_le_p(hdr) == VDXG_3D_PROGRAM_MAGIC && ldl_le_p(hdr + 4) == stage &&
        n && n <= VDXG_3D_MAX_INSTRUCTIONS && m <= VDXG_3D_MAX_IMMEDIATES) {
        span = (uint64_t)VDXG_3D_INSN_SIZE * (1 + n + m);
    }
    if (span && span <= size) {
        buf = g_malloc(span);
        memcpy(buf, hdr, sizeof(hdr));
        if (!vdxg_3d_read_range(c, addr + sizeof(hdr), buf + sizeof(hdr),
                                span - sizeof(hdr))) {
            return false;
        }
        bad = vdxg_program_decode(&p, stage, buf, span);
    } else {
        /* The header faults: the rest is not read. */
        bad = vdxg_program_decode(&p, stage, hdr, size);
    }
    if (bad >= 0) {
        vdxg_set_err(c->r->err, VDXG_FAULT_SHADER, addr + bad);
        return false;
    }
    vdxg_program_free(&g->prog[stage]);
    g->prog[stage] = p;
    g_free(g->raw[stage]);
    g->raw[stage] = g_memdup2(p.raw, p.raw_len);
    g->raw_len[stage] = p.raw_len;
    if (stage == VDXG_3D_STAGE_FRAGMENT) {
        g->fs_vary_mask = vdxg_program_vary_mask(&p);
    }
    g->prog_bound[stage] = 1;
    g->prog_addr[stage] = addr;
    g->prog_size[stage] = size;
    return true;
}

static VdxgRun vdxg_3d_set_shader(Vdxg3dRun *c, const uint32_t *dw)
{
    uint32_t stage = dw[VDXG_RD_SHADER_DW_STAGE];
    uint64_t addr = vdxg_dw64(dw, VDXG_RD_SHADER_DW_ADDR);
    uint32_t size = dw[VDXG_RD_SHADER_DW_SIZE];

    if (stage >= VDXG_3D_NUM_STAGES || (addr & 3) ||
        size < VDXG_PROG_HEADER_SIZE || size > VDXG_3D_PROGRAM_MAX_BYTES) {
        return vdxg_3d_fail(c, VDXG_FAULT_PARAM);
    }
    if (vdxg_3d_range(c, addr, size) != VDXG_RUN_DONE) {
        return VDXG_RUN_FAULT;
    }
    trace_vdxg_3d_shader(stage, addr, size);
    return vdxg_3d_bind_program(c, stage, addr, size) ? VDXG_RUN_DONE :
                                                         VDXG_RUN_FAULT;
}

static VdxgRun vdxg_3d_set_constants(Vdxg3dRun *c, const uint32_t *dw)
{
    uint32_t stage = dw[VDXG_RD_CONST_DW_STAGE];
    uint64_t addr = vdxg_dw64(dw, VDXG_RD_CONST_DW_ADDR);
    uint32_t count = dw[VDXG_RD_CONST_DW_COUNT];

    if (stage >= VDXG_3D_NUM_STAGES || (addr & 3) ||
        count > VDXG_3D_NUM_CONSTS || (!count && addr)) {
        return vdxg_3d_fail(c, VDXG_FAULT_PARAM);
    }
    if (vdxg_3d_range(c, addr, count * 16ull) != VDXG_RUN_DONE) {
        return VDXG_RUN_FAULT;
    }
    c->g->const_count[stage] = count;
    c->g->const_addr[stage] = addr;
    return VDXG_RUN_DONE;
}

static VdxgRun vdxg_3d_set_vb(Vdxg3dRun *c, const uint32_t *dw)
{
    uint32_t i = dw[VDXG_RD_VB_DW_INDEX];
    uint64_t addr = vdxg_dw64(dw, VDXG_RD_VB_DW_ADDR);
    uint32_t size = dw[VDXG_RD_VB_DW_SIZE];
    uint32_t stride = dw[VDXG_RD_VB_DW_STRIDE];

    if (i >= VDXG_3D_NUM_VBS || stride > VDXG_3D_MAX_STRIDE ||
        (!size && addr)) {
        return vdxg_3d_fail(c, VDXG_FAULT_PARAM);
    }
    if (vdxg_3d_range(c, addr, size) != VDXG_RUN_DONE) {
        return VDXG_RUN_FAULT;
    }
    c->g->vb_addr[i] = addr;
    c->g->vb_size[i] = size;
    c->g->vb_stride[i] = stride;
    return VDXG_RUN_DONE;
}

static VdxgRun vdxg_3d_set_ib(Vdxg3dRun *c, const uint32_t *dw)
{
    uint64_t addr = vdxg_dw64(dw, VDXG_RD_IB_DW_ADDR);
    uint32_t size = dw[VDXG_RD_IB_DW_SIZE];
    uint32_t isize = dw[VDXG_RD_IB_DW_INDEX_SIZE];

    if ((isize != 0 && isize != 1 && isize != 2 && isize != 4) ||
        (!isize && (addr || size))) {
        return vdxg_3d_fail(c, VDXG_FAULT_PARAM);
    }
    if (vdxg_3d_range(c, addr, size) != VDXG_RUN_DONE) {
        return VDXG_RUN_FAULT;
    }
    c->g->ib_isize = isize;
    c->g->ib_addr = addr;
    c->g->ib_size = size;
    return VDXG_RUN_DONE;
}

static VdxgRun vdxg_3d_set_texture(Vdxg3dRun *c, const uint32_t *dw)
{
    uint32_t u = dw[VDXG_RD_TEX_DW_UNIT];
    uint64_t addr = vdxg_dw64(dw, VDXG_RD_TEX_DW_ADDR);
    uint32_t size = dw[VDXG_RD_TEX_DW_SIZE];
    uint32_t desc = dw[VDXG_RD_TEX_DW_FORMAT], wh = dw[VDXG_RD_TEX_DW_WH];
    Vdxg3d *g = c->g;
    VdxgTexture t = { 0 };

    if (u >= VDXG_3D_NUM_UNITS || (addr & 3)) {
        return vdxg_3d_fail(c, VDXG_FAULT_PARAM);
    }
    if (!desc) {
        if (addr || size || wh) {
            return vdxg_3d_fail(c, VDXG_FAULT_PARAM);
        }
    } else {
        if (!vdxg_texture_setup(&t, addr, size, desc, wh)) {
            return vdxg_3d_fail(c, VDXG_FAULT_PARAM);
        }
        if (vdxg_3d_range(c, addr, size) != VDXG_RUN_DONE) {
            return VDXG_RUN_FAULT;
        }
    }
    g->tex[u] = t;
    g->tex_win_run[u] = 0;
    g->tex_desc[u] = desc;
    g->tex_addr[u] = addr;
    g->tex_size[u] = size;
    g->tex_wh[u] = wh;
    return VDXG_RUN_DONE;
}

/* Comparison function @f of a and b */
static inline bool vdxg_cmp(uint32_t f, uint32_t a, uint32_t b)
{
    switch (f) {
    case VDXG_FUNC_NEVER:
        return false;
    case VDXG_FUNC_LESS:
        return a < b;
    case VDXG_FUNC_EQUAL:
        return a == b;
    case VDXG_FUNC_LEQUAL:
        return a <= b;
    case VDXG_FUNC_GREATER:
        return a > b;
    case VDXG_FUNC_NOTEQUAL:
        return a != b;
    case VDXG_FUNC_GEQUAL:
        return a >= b;
    default:
        return true;
    }
}

static uint32_t vdxg_sop(uint32_t op, uint32_t old, uint32_t ref)
{
    switch (op) {
    case VDXG_SOP_ZERO:
        return 0;
    case VDXG_SOP_REPLACE:
        return ref;
    case VDXG_SOP_INCR:
        return old < 255 ? old + 1 : 255;
    case VDXG_SOP_DECR:
        return old ? old - 1 : 0;
    case VDXG_SOP_INCR_WRAP:
        return (old + 1) & 0xff;
    case VDXG_SOP_DECR_WRAP:
        return (old - 1) & 0xff;
    case VDXG_SOP_INVERT:
        return ~old & 0xff;
    default:
        return old;
    }
}

/* A colour format's bits of channels r, g, b, a */
static void vdxg_channel_bits(uint32_t fmt, uint32_t *bits)
{
    static const uint32_t tab[VDXG_NUM_FMTS_3D][4] = {
        [VDXG_FMT_XRGB8888] = { 0xff0000, 0xff00, 0xff, 0xff000000 },
        [VDXG_FMT_ARGB8888] = { 0xff0000, 0xff00, 0xff, 0xff000000 },
        [VDXG_FMT_RGB565] = { 0xf800, 0x07e0, 0x001f, 0 },
        [VDXG_FMT_ABGR8888] = { 0xff, 0xff00, 0xff0000, 0xff000000 },
        [VDXG_FMT_RGBA4444] = { 0xf000, 0x0f00, 0x00f0, 0x000f },
        [VDXG_FMT_RGBA5551] = { 0xf800, 0x07c0, 0x003e, 0x0001 },
    };

    memcpy(bits, tab[fmt < VDXG_NUM_FMTS_3D ? fmt : 0], sizeof(tab[0]));
}

/* Blend factor @f for channel @ch (3: alpha) */
static float vdxg_factor(uint32_t f, unsigned int ch, const float *s,
                         const float *d, const float *k)
{
    float x;

    switch (f) {
    case VDXG_BLF_ZERO:
        return 0;
    case VDXG_BLF_ONE:
        return 1;
    case VDXG_BLF_SRC_COLOR:
        return s[ch];
    case VDXG_BLF_ONE_MINUS_SRC_COLOR:
        return 1.0f - s[ch];
    case VDXG_BLF_DST_COLOR:
        return d[ch];
    case VDXG_BLF_ONE_MINUS_DST_COLOR:
        return 1.0f - d[ch];
    case VDXG_BLF_SRC_ALPHA:
        return s[3];
    case VDXG_BLF_ONE_MINUS_SRC_ALPHA:
        return 1.0f - s[3];
    case VDXG_BLF_DST_ALPHA:
        return d[3];
    case VDXG_BLF_ONE_MINUS_DST_ALPHA:
        return 1.0f - d[3];
    case VDXG_BLF_CONST_COLOR:
        return k[ch];
    case VDXG_BLF_ONE_MINUS_CONST_COLOR:
        return 1.0f - k[ch];
    case VDXG_BLF_CONST_ALPHA:
        return k[3];
    case VDXG_BLF_ONE_MINUS_CONST_ALPHA:
        return 1.0f - k[3];
    default:
        if (ch == 3) {
            return 1;
        }
        x = 1.0f - d[3];
        return s[3] < x ? s[3] : x;
    }
}

static float vdxg_blend_eq(uint32_t eq, float s, float fs, float d,
                           float fd)
{
    float a = s * fs, b = d * fd;

    switch (eq) {
    case VDXG_BLEQ_ADD:
        return vdxg_sat(a + b);
    case VDXG_BLEQ_SUBTRACT:
        return vdxg_sat(a - b);
    case VDXG_BLEQ_REVERSE_SUBTRACT:
        return vdxg_sat(b - a);
    case VDXG_BLEQ_MIN:
        return vdxg_sat(s < d ? s : d);
    default:
        return vdxg_sat(s > d ? s : d);
    }
}

/*
 * The fragment operations of one lane at (x, y): stencil, depth, blend,
 * write masks. False on a memory fault.
 */
static bool vdxg_3d_fragment(Vdxg3dRun *c, uint32_t x, uint32_t y,
                             const float *color, float z, bool front)
{
    Vdxg3d *g = c->g;
    VdxgRdRun *r = c->r;
    uint32_t depth = g->regs[VDXG_3D_DEPTH], blend = g->regs[VDXG_3D_BLEND];
    float s[4], d[4], k[4], o[4];
    uint32_t i, raw, old, bits[4], wmask;

    *r->budget -= VDXG_COST_FRAGMENT;
    for (i = 0; i < 4; i++) {
        s[i] = vdxg_sat(color[i]);
    }
    if (c->depth_fmt) {
        bool d24 = c->depth_fmt == VDXG_FMT_D24S8;
        uint32_t zmax = d24 ? 0xffffff : 0xffff;
        uint32_t zf = vdxg_unorm(z, zmax), stored, st = 0, nst, nz;
        uint32_t sreg = 0, ref = 0;
        bool stest = false, pass = true;

        if (!vdxg_px_load(r, VDXG_SLOT_DEPTH, x, y, &old)) {
            return false;
        }
        stored = old & zmax;
        nz = stored;
        if (d24) {
            st = old >> 24;
            if (!front && (g->regs[VDXG_3D_STENCIL_BACK] & 1)) {
                sreg = g->regs[VDXG_3D_STENCIL_BACK];
                ref = extract32(g->regs[VDXG_3D_STENCIL_REF], 8, 8);
            } else {
                sreg = g->regs[VDXG_3D_STENCIL_FRONT];
                ref = extract32(g->regs[VDXG_3D_STENCIL_REF], 0, 8);
            }
            stest = sreg & VDXG_STENCIL_TEST;
        }
        nst = st;
        if (stest) {
            uint32_t vm = extract32(sreg, 16, 8);
            uint32_t op, wm = extract32(sreg, 24, 8);

            if (!vdxg_cmp(extract32(sreg, 1, 3), ref & vm, st & vm)) {
                op = extract32(sreg, 4, 3);
                pass = false;
            } else if ((depth & VDXG_DEPTH_TEST) &&
                       !vdxg_cmp(extract32(depth, 2, 3), zf, stored)) {
                op = extract32(sreg, 7, 3);
                pass = false;
            } else {
                op = extract32(sreg, 10, 3);
            }
            nst = (st & ~wm) | (vdxg_sop(op, st, ref) & wm);
        } else if ((depth & VDXG_DEPTH_TEST) &&
                   !vdxg_cmp(extract32(depth, 2, 3), zf, stored)) {
            pass = false;
        }
        if (pass && (depth & VDXG_DEPTH_WRITE)) {
            nz = zf;
        }
        raw = d24 ? (nst << 24) | nz : nz;
        if (raw != old && !vdxg_px_store(r, VDXG_SLOT_DEPTH, x, y, raw)) {
            return false;
        }
        if (!pass) {
            return true;
        }
    }
    if (!c->dst_fmt) {
        return true;
    }
    vdxg_channel_bits(c->dst_fmt, bits);
    wmask = 0;
    for (i = 0; i < 4; i++) {
        if (!(blend & VDXG_BLEND_WRITE_DISABLE(BIT(i)))) {
            wmask |= bits[i];
        }
    }
    old = 0;
    if ((blend & VDXG_BLEND_ENABLE) ||
        wmask != (bits[0] | bits[1] | bits[2] | bits[3])) {
        if (!vdxg_px_load(r, VDXG_SLOT_DST, x, y, &old)) {
            return false;
        }
    }
    if (blend & VDXG_BLEND_ENABLE) {
        vdxg_texel_to_float(c->dst_fmt, old, d);
        for (i = 0; i < 4; i++) {
            k[i] = vdxg_sat(vdxg_f(g->regs[VDXG_3D_BLEND_COLOR(i)]));
        }
        for (i = 0; i < 4; i++) {
            uint32_t fs = extract32(blend, i < 3 ? 4 : 16, 4);
            uint32_t fd = extract32(blend, i < 3 ? 8 : 20, 4);
            uint32_t eq = extract32(blend, i < 3 ? 1 : 12, 3);

            o[i] = vdxg_blend_eq(eq, s[i], vdxg_factor(fs, i, s, d, k), d[i],
                                 vdxg_factor(fd, i, s, d, k));
        }
    } else {
        memcpy(o, s, sizeof(o));
    }
    raw = (vdxg_float_to_texel(c->dst_fmt, o) & wmask) | (old & ~wmask);
    return vdxg_px_store(r, VDXG_SLOT_DST, x, y, raw);
}

/* Textures: the sampler callback of both stages */
static bool vdxg_3d_texel_read(void *opaque, uint64_t off, uint32_t cpp,
                               uint32_t *raw)
{
    Vdxg3dRun *c = ((void **)opaque)[0];
    uintptr_t u = (uintptr_t)((void **)opaque)[1];
    uint64_t addr = c->g->tex[u].addr + off;
    const uint8_t *p = NULL;
    uint8_t b[4];

    /* An RGB888 texel can straddle two pages: those go the slow way. */
    if (c->e->virt && (addr & VDXG_PAGE_MASK) + cpp <= VDXG_GPU_PAGE_SIZE) {
        p = vdxg_vpages_get(c->r, &c->g->tex_pages[u], addr, false);
    }
    if (!p) {
        if (!vdxg_3d_read(c, NULL, addr, b, cpp)) {
            return false;
        }
        p = b;
    }
    *raw = vdxg_ld_px(p, cpp);
    return true;
}

/*
 * The whole layout of texture @u as host memory, or NULL: in virtual
 * mode, found once a run (see vdxg_rd_window()).
 */
static const uint8_t *vdxg_3d_tex_host(Vdxg3dRun *c, unsigned int u)
{
    Vdxg3d *g = c->g;
    const VdxgTexture *tx = &g->tex[u];

    if (!c->e->virt) {
        if (!c->s->vf && vdxg_in_vram(c->s, tx->addr, tx->size)) {
            return c->s->vram_ptr + tx->addr;
        }
        return NULL;
    }
    if (g->tex_win_run[u] != c->r->run) {
        g->tex_win_run[u] = c->r->run;
        g->tex_win[u] = vdxg_rd_window(c->r, tx->addr, tx->size,
                                       VDXG_3D_WINDOW_XLATES);
    }
    return c->s->reset_gen == c->r->gen ? g->tex_win[u] : NULL;
}

static bool vdxg_3d_sample(void *opaque, unsigned int unit, unsigned int face,
                           float s, float t, float lod, float *out)
{
    Vdxg3dRun *c = opaque;
    void *ctx[2] = { c, (void *)(uintptr_t)unit };
    VdxgTexSampler ts = {
        .t = &c->g->tex[unit],
        .sampler = c->g->regs[VDXG_3D_SAMPLER(unit)],
        .read = vdxg_3d_texel_read,
        .opaque = ctx,
        .host = vdxg_3d_tex_host(c, unit),
    };

    *c->r->budget -= VDXG_COST_PIXEL;
    return vdxg_tex_sample(&ts, face, s, t, lod, out);
}

/* A SHADER fault at instruction @pc of the program of @stage */
static VdxgRun vdxg_3d_shader_fault(Vdxg3dRun *c, uint32_t stage,
                                    uint32_t pc)
{
    vdxg_set_err(c->r->err, VDXG_FAULT_SHADER,
                 c->g->prog_addr[stage] + VDXG_PROG_HEADER_SIZE +
                 (uint64_t)pc * VDXG_3D_INSN_SIZE);
    return VDXG_RUN_FAULT;
}

/* A quad of the rasterizer: the fragment program, then each fragment */
static VdxgRun vdxg_3d_quad(void *opaque, const VdxgQuad *q)
{
    Vdxg3dRun *c = opaque;
    VdxgShRun *fs = &c->g->fs;
    VdxgShResult res;
    uint32_t pc, l, live;

    if (c->g->fs_yielded) {
        res = vdxg_shader_resume(fs, &pc);
    } else {
        fs->live = 0xf;
        res = vdxg_shader_run(fs, &pc);
    }
    c->g->fs_yielded = res == VDXG_SH_YIELD;
    if (res == VDXG_SH_YIELD) {
        return VDXG_RUN_YIELD;
    }
    if (res == VDXG_SH_STEPS) {
        return vdxg_3d_shader_fault(c, VDXG_3D_STAGE_FRAGMENT, pc);
    }
    if (res != VDXG_SH_OK) {
        return VDXG_RUN_FAULT;
    }
    live = fs->live & q->covered;
    for (l = 0; l < 4; l++) {
        if (!(live & BIT(l))) {
            continue;
        }
        if (!vdxg_3d_fragment(c, q->qx + (l & 1), q->qy + (l >> 1),
                              fs->lane[l].out[VDXG_FS_OUT_COLOR], q->z[l],
                              q->front)) {
            return VDXG_RUN_FAULT;
        }
        c->s->rd_pixels++;
    }
    return VDXG_RUN_DONE;
}

/* Vertex fetch of one element */
static bool vdxg_3d_fetch(Vdxg3dRun *c, uint32_t e, uint32_t index,
                          float *v)
{
    static const uint8_t tsize[VDXG_NUM_VTYPES] = {
        0, 4, 1, 1, 1, 1, 2, 2, 2, 2,
    };
    Vdxg3d *g = c->g;
    uint32_t el = g->regs[VDXG_3D_ELEMENT(e)], fmt = VDXG_ELEMENT_FORMAT(el);
    uint32_t type = VDXG_VFMT_TYPE(fmt), comps = VDXG_VFMT_COMPS(fmt);
    uint32_t b = VDXG_ELEMENT_VB(el), span, i, x;
    uint64_t o;
    uint8_t buf[16];

    v[0] = v[1] = v[2] = 0;
    v[3] = 1.0f;
    if (!fmt) {
        return true;
    }
    span = comps * tsize[type];
    o = (uint64_t)index * g->vb_stride[b] + VDXG_ELEMENT_OFFSET(el);
    if (o + span > g->vb_size[b]) {
        for (i = 0; i < comps; i++) {
            v[i] = 0;
        }
        return true;
    }
    if (!vdxg_3d_read(c, &g->vb_pages[b], g->vb_addr[b] + o, buf, span)) {
        return false;
    }
    for (i = 0; i < comps; i++) {
        switch (type) {
        case VDXG_VTYPE_FLOAT32:
            v[i] = vdxg_f(ldl_le_p(buf + i * 4));
            break;
        case VDXG_VTYPE_UNORM8:
            v[i] = (float)buf[i] / 255.0f;
            break;
        case VDXG_VTYPE_SNORM8:
            v[i] = (float)(int8_t)buf[i] / 127.0f;
            v[i] = v[i] > -1.0f ? v[i] : -1.0f;
            break;
        case VDXG_VTYPE_UINT8:
            v[i] = (float)buf[i];
            break;
        case VDXG_VTYPE_SINT8:
            v[i] = (float)(int8_t)buf[i];
            break;
        case VDXG_VTYPE_UNORM16:
            v[i] = (float)lduw_le_p(buf + i * 2) / 65535.0f;
            break;
        case VDXG_VTYPE_SNORM16:
            x = lduw_le_p(buf + i * 2);
            v[i] = (float)(int16_t)x / 32767.0f;
            v[i] = v[i] > -1.0f ? v[i] : -1.0f;
            break;
        case VDXG_VTYPE_UINT16:
            v[i] = (float)lduw_le_p(buf + i * 2);
            break;
        default:
            v[i] = (float)(int16_t)lduw_le_p(buf + i * 2);
            break;
        }
    }
    return true;
}

/* Fetch and shade the vertex of index @index (or take it from the cache) */
static VdxgRun vdxg_3d_vertex(Vdxg3dRun *c, uint32_t index,
                              const VdxgClipVert **out)
{
    Vdxg3d *g = c->g;
    Vdxg3dVertex *cv = &g->vcache[index % VDXG_3D_VCACHE];
    VdxgShRun *vs = &g->vs;
    uint32_t e, pc;
    VdxgShResult res;
    float v[4];

    if (cv->valid && cv->index == index) {
        *out = &cv->v;
        return VDXG_RUN_DONE;
    }
    if (g->vs_yielded && g->vs_index == index) {
        res = vdxg_shader_resume(vs, &pc);
    } else {
        *c->r->budget -= VDXG_COST_VERTEX;
        for (e = 0; e < VDXG_3D_NUM_ELEMENTS; e++) {
            if (!vdxg_3d_fetch(c, e, index, v)) {
                return VDXG_RUN_FAULT;
            }
            vdxg_sh_set_input(vs, 0, e, v);
        }
        vs->live = 1;
        res = vdxg_shader_run(vs, &pc);
    }
    g->vs_yielded = res == VDXG_SH_YIELD;
    g->vs_index = index;
    if (res == VDXG_SH_YIELD) {
        return VDXG_RUN_YIELD;
    }
    if (res == VDXG_SH_STEPS) {
        return vdxg_3d_shader_fault(c, VDXG_3D_STAGE_VERTEX, pc);
    }
    if (res != VDXG_SH_OK) {
        return VDXG_RUN_FAULT;
    }
    cv->valid = true;
    cv->index = index;
    memcpy(cv->v.pos, vs->lane[0].out[VDXG_VS_OUT_POSITION], 16);
    cv->v.psize = g->prog[VDXG_3D_STAGE_VERTEX].writes_psize ?
                  vs->lane[0].out[VDXG_VS_OUT_POINT_SIZE][0] :
                  vdxg_f(g->regs[VDXG_3D_POINT_SIZE]);
    memcpy(cv->v.vary, vs->lane[0].out[VDXG_VS_OUT_VARYING(0)],
           sizeof(cv->v.vary));
    *out = &cv->v;
    return VDXG_RUN_DONE;
}

/* The number of primitives @count vertices make */
static uint32_t vdxg_3d_nprims(uint32_t prim, uint32_t count)
{
    switch (prim) {
    case VDXG_PRIM_POINTS:
        return count;
    case VDXG_PRIM_LINES:
        return count / 2;
    case VDXG_PRIM_LINE_LOOP:
        return count >= 2 ? count : 0;
    case VDXG_PRIM_LINE_STRIP:
        return count >= 2 ? count - 1 : 0;
    case VDXG_PRIM_TRIANGLES:
        return count / 3;
    default:
        return count >= 3 ? count - 2 : 0;
    }
}

/* The vertex numbers (k) of primitive @i */
static unsigned int vdxg_3d_prim_verts(uint32_t prim, uint32_t count,
                                       uint32_t i, uint32_t *k)
{
    switch (prim) {
    case VDXG_PRIM_POINTS:
        k[0] = i;
        return 1;
    case VDXG_PRIM_LINES:
        k[0] = 2 * i;
        k[1] = 2 * i + 1;
        return 2;
    case VDXG_PRIM_LINE_LOOP:
    case VDXG_PRIM_LINE_STRIP:
        k[0] = i;
        k[1] = i + 1 < count ? i + 1 : 0;
        return 2;
    case VDXG_PRIM_TRIANGLES:
        k[0] = 3 * i;
        k[1] = 3 * i + 1;
        k[2] = 3 * i + 2;
        return 3;
    case VDXG_PRIM_TRIANGLE_STRIP:
        k[0] = (i & 1) ? i + 1 : i;
        k[1] = (i & 1) ? i : i + 1;
        k[2] = i + 2;
        return 3;
    default:
        k[0] = 0;
        k[1] = i + 1;
        k[2] = i + 2;
        return 3;
    }
}

/* The index of vertex k of the draw */
static bool vdxg_3d_index(Vdxg3dRun *c, const uint32_t *dw, bool indexed,
                          uint32_t k, uint32_t *index)
{
    Vdxg3d *g = c->g;
    uint32_t first = dw[VDXG_RD_DRAW3D_DW_FIRST];
    uint8_t b[4];

    if (!indexed) {
        *index = first + k;
        return true;
    }
    if (!vdxg_3d_read(c, &g->ib_pages,
                      g->ib_addr + ((uint64_t)first + k) * g->ib_isize, b,
                      g->ib_isize)) {
        return false;
    }
    *index = vdxg_ld_px(b, g->ib_isize) + dw[VDXG_RD_DRAW3D_DW_BIAS];
    return true;
}

/*
 * The checks of a draw: when it starts, and again each time it goes on
 * (a migrated draw is checked against the state it came with).
 */
static VdxgRun vdxg_3d_draw_check(Vdxg3dRun *c, const uint32_t *dw,
                                  bool indexed)
{
    Vdxg3d *g = c->g;
    const VdxgSurface *surf = c->e->rd.surf;
    const VdxgSurface *dst = &surf[VDXG_SLOT_DST];
    const VdxgSurface *ds = &surf[VDXG_SLOT_DEPTH];
    uint32_t prim = dw[VDXG_RD_DRAW3D_DW_PRIM];
    uint32_t first = dw[VDXG_RD_DRAW3D_DW_FIRST];
    uint32_t count = dw[VDXG_RD_DRAW3D_DW_COUNT];
    uint32_t units = 0, cubes = 0, st, u;
    int32_t bad;

    /* In the order docs/hardware.md lists them */
    if (prim >= VDXG_NUM_PRIMS || count > VDXG_3D_MAX_COUNT ||
        !g->prog_bound[0] || !g->prog_bound[1] ||
        (!dst->format && !ds->format) ||
        (ds->format && ds->format != VDXG_FMT_D16 &&
         ds->format != VDXG_FMT_D24S8)) {
        return vdxg_3d_fail(c, VDXG_FAULT_PARAM);
    }
    if (dst->format && ds->format &&
        (ds->width < dst->width || ds->height < dst->height)) {
        return vdxg_3d_fail(c, VDXG_FAULT_BOUNDS);
    }
    if ((!indexed && (uint64_t)first + count > (1ull << 32)) ||
        (indexed && !g->ib_isize)) {
        return vdxg_3d_fail(c, VDXG_FAULT_PARAM);
    }
    if (indexed && ((uint64_t)first + count) * g->ib_isize > g->ib_size) {
        return vdxg_3d_fail(c, VDXG_FAULT_BOUNDS);
    }
    for (u = 0; u < VDXG_3D_NUM_UNITS; u++) {
        if (g->tex[u].format) {
            units |= BIT(u);
            cubes |= g->tex[u].cube ? BIT(u) : 0;
        }
    }
    for (st = 0; st < VDXG_3D_NUM_STAGES; st++) {
        bad = vdxg_program_check_draw(&g->prog[st], g->const_count[st],
                                      units, cubes);
        if (bad >= 0) {
            return vdxg_3d_shader_fault(c, st, bad);
        }
    }
    return VDXG_RUN_DONE;
}

/* A draw starts: its checks, then its constants are read. */
static VdxgRun vdxg_3d_draw_start(Vdxg3dRun *c, const uint32_t *dw,
                                  bool indexed)
{
    Vdxg3d *g = c->g;
    uint32_t st, i;
    uint8_t *buf;
    VdxgRun run;

    run = vdxg_3d_draw_check(c, dw, indexed);
    if (run != VDXG_RUN_DONE) {
        return run;
    }
    for (st = 0; st < VDXG_3D_NUM_STAGES; st++) {
        uint32_t n = g->const_count[st] * 16;

        if (!n) {
            continue;
        }
        /* The bytes as read, then each dword as a float, in place */
        buf = (uint8_t *)g->consts[st];
        if (!vdxg_3d_read_range(c, g->const_addr[st], buf, n)) {
            return VDXG_RUN_FAULT;
        }
        for (i = 0; i < n / 4; i++) {
            g->consts[st][i / 4][i % 4] = vdxg_f(ldl_le_p(buf + i * 4));
        }
    }
    trace_vdxg_3d_draw(indexed, dw[VDXG_RD_DRAW3D_DW_PRIM],
                       dw[VDXG_RD_DRAW3D_DW_FIRST],
                       dw[VDXG_RD_DRAW3D_DW_COUNT]);
    return VDXG_RUN_DONE;
}

/* Set up the runs of the programs and the rasterizer of a draw */
static void vdxg_3d_draw_setup(Vdxg3dRun *c, VdxgRaster3d *ra)
{
    Vdxg3d *g = c->g;
    const VdxgSurface *surf = c->e->rd.surf;
    uint32_t fw, fh, st, u, sc0, sc1;
    VdxgShRun *runs[2] = { &g->vs, &g->fs };

    c->dst_fmt = surf[VDXG_SLOT_DST].format;
    c->depth_fmt = surf[VDXG_SLOT_DEPTH].format;
    fw = c->dst_fmt ? surf[VDXG_SLOT_DST].width : surf[VDXG_SLOT_DEPTH].width;
    fh = c->dst_fmt ? surf[VDXG_SLOT_DST].height :
                      surf[VDXG_SLOT_DEPTH].height;
    for (st = 0; st < VDXG_3D_NUM_STAGES; st++) {
        VdxgShRun *sr = runs[st];

        sr->p = &g->prog[st];
        sr->consts = g->consts[st];
        sr->nconsts = g->const_count[st];
        for (u = 0; u < VDXG_3D_NUM_UNITS; u++) {
            sr->tex_w[u] = g->tex[u].width;
            sr->tex_h[u] = g->tex[u].height;
        }
        sr->sample = vdxg_3d_sample;
        sr->opaque = c;
        sr->nlanes = st == VDXG_3D_STAGE_VERTEX ? 1 : VDXG_SH_LANES;
        sr->budget = c->r->budget;
        sr->cost = VDXG_COST_INSN * sr->nlanes;
    }
    memset(ra, 0, sizeof(*ra));
    ra->x0 = 0;
    ra->y0 = 0;
    ra->x1 = fw;
    ra->y1 = fh;
    if (g->regs[VDXG_3D_RASTER] & VDXG_RASTER_SCISSOR) {
        sc0 = g->regs[VDXG_3D_SCISSOR_MIN];
        sc1 = g->regs[VDXG_3D_SCISSOR_MAX];
        ra->x0 = MAX(ra->x0, sc0 & 0xffff);
        ra->y0 = MAX(ra->y0, sc0 >> 16);
        ra->x1 = MIN(ra->x1, sc1 & 0xffff);
        ra->y1 = MIN(ra->y1, sc1 >> 16);
    }
    for (u = 0; u < 3; u++) {
        ra->vp_scale[u] = vdxg_f(g->regs[VDXG_3D_VIEWPORT_SCALE(u)]);
        ra->vp_trans[u] = vdxg_f(g->regs[VDXG_3D_VIEWPORT_TRANSLATE(u)]);
    }
    ra->raster = g->regs[VDXG_3D_RASTER];
    ra->po_factor = vdxg_f(g->regs[VDXG_3D_POLY_OFFSET_FACTOR]);
    ra->po_units = vdxg_f(g->regs[VDXG_3D_POLY_OFFSET_UNITS]);
    ra->po_rd = c->depth_fmt == VDXG_FMT_D16 ? 1.0f / 65536.0f :
                c->depth_fmt == VDXG_FMT_D24S8 ? 1.0f / 16777216.0f : 0;
    ra->vary_mask = g->fs_vary_mask;
    ra->in = g->fs.in;
    ra->quad = vdxg_3d_quad;
    ra->opaque = c;
    ra->budget = c->r->budget;
}

/* POINT_COORD of every lane: (0, 0, 0, 1) but in points */
static void vdxg_3d_no_point_coord(Vdxg3d *g)
{
    static const float pc[4] = { 0, 0, 0, 1.0f };
    unsigned int l;

    for (l = 0; l < VDXG_SH_LANES; l++) {
        vdxg_sh_set_input(&g->fs, l, VDXG_FS_IN_POINT_COORD, pc);
    }
}

/* Draw primitive @i from where it stopped (e->op_progress) */
static VdxgRun vdxg_3d_prim(Vdxg3dRun *c, const VdxgRaster3d *ra,
                            const uint32_t *dw, bool indexed, uint32_t i)
{
    VdxgEngine *e = c->e;
    uint32_t prim = dw[VDXG_RD_DRAW3D_DW_PRIM];
    uint32_t count = dw[VDXG_RD_DRAW3D_DW_COUNT];
    uint32_t k[3], index;
    const VdxgClipVert *cv;
    VdxgClipVert in[3], out[VDXG_3D_CLIP_MAX];
    VdxgWinVert wv[VDXG_3D_CLIP_MAX];
    unsigned int nv, n, j, sub;
    uint64_t quad;
    VdxgRun run;
    bool front;

    nv = vdxg_3d_prim_verts(prim, count, i, k);
    for (j = c->g->prim_done; j < nv; j++) {
        if (!vdxg_3d_index(c, dw, indexed, k[j], &index)) {
            return VDXG_RUN_FAULT;
        }
        run = vdxg_3d_vertex(c, index, &cv);
        if (run != VDXG_RUN_DONE) {
            return run;
        }
        c->g->prim_in[j] = *cv;
        c->g->prim_done = j + 1;
    }
    memcpy(in, c->g->prim_in, nv * sizeof(in[0]));
    for (j = 0; j < nv; j++) {
        if (!vdxg_pos_finite(&in[j])) {
            return VDXG_RUN_DONE;
        }
    }
    sub = e->op_progress >> VDXG_3D_SUB_SHIFT;
    quad = e->op_progress & VDXG_3D_QUAD_MASK;
    if (nv == 1) {
        if (!vdxg_point_visible(&in[0]) ||
            !vdxg_to_window(ra, &in[0], &wv[0], true)) {
            return VDXG_RUN_DONE;
        }
        run = vdxg_point_raster(ra, &wv[0], &quad);
    } else if (nv == 2) {
        vdxg_3d_no_point_coord(c->g);
        if (!vdxg_clip_line(in, out) ||
            !vdxg_to_window(ra, &out[0], &wv[0], false) ||
            !vdxg_to_window(ra, &out[1], &wv[1], false)) {
            return VDXG_RUN_DONE;
        }
        run = vdxg_line_raster(ra, &wv[0], &wv[1], &quad);
    } else {
        vdxg_3d_no_point_coord(c->g);
        n = vdxg_clip_tri(in, out);
        for (j = 0; j < n; j++) {
            if (!vdxg_to_window(ra, &out[j], &wv[j], false)) {
                return VDXG_RUN_DONE;
            }
        }
        run = VDXG_RUN_DONE;
        for (; n >= 3 && sub < n - 2; sub++, quad = 0) {
            if (!vdxg_tri_face(ra, &wv[0], &wv[sub + 1], &wv[sub + 2],
                               &front)) {
                continue;
            }
            run = vdxg_tri_raster(ra, &wv[0], &wv[sub + 1], &wv[sub + 2],
                                  &quad);
            if (run != VDXG_RUN_DONE) {
                break;
            }
        }
    }
    e->op_progress = (uint64_t)sub << VDXG_3D_SUB_SHIFT | quad;
    return run;
}

/* DRAW and DRAW_INDEXED */
static VdxgRun vdxg_3d_draw(Vdxg3dRun *c, const uint32_t *dw, bool indexed)
{
    VdxgEngine *e = c->e;
    uint32_t prim = dw[VDXG_RD_DRAW3D_DW_PRIM];
    uint32_t count = dw[VDXG_RD_DRAW3D_DW_COUNT], nprims;
    VdxgRaster3d ra;
    VdxgRun run;

    run = e->rd.phase ? vdxg_3d_draw_check(c, dw, indexed) :
                        vdxg_3d_draw_start(c, dw, indexed);
    if (run != VDXG_RUN_DONE) {
        return run;
    }
    if (!e->rd.phase) {
        e->rd.phase = 1;
        e->rd.item = 0;
        e->op_progress = 0;
        memset(c->g->vcache, 0, sizeof(c->g->vcache));
        c->g->prim_done = 0;
        memset(c->g->fs.in, 0, sizeof(c->g->fs.in));
        c->g->fs_yielded = false;
        c->g->vs_yielded = false;
    }
    vdxg_3d_draw_setup(c, &ra);
    nprims = vdxg_3d_nprims(prim, count);
    for (; e->rd.item < nprims; e->rd.item++, e->op_progress = 0) {
        if (*c->r->budget <= 0) {
            return VDXG_RUN_YIELD;
        }
        *c->r->budget -= VDXG_COST_PRIM;
        run = vdxg_3d_prim(c, &ra, dw, indexed, e->rd.item);
        if (run != VDXG_RUN_DONE) {
            return run;
        }
        c->g->prim_done = 0;
        e->progress++;
    }
    return VDXG_RUN_DONE;
}

/* @n 32-bit pixels at @row get the bits of @mask from @val */
static void vdxg_3d_fill_masked(uint8_t *row, uint32_t n, uint32_t val,
                                uint32_t mask)
{
    uint32_t i;

    for (i = 0; i < n; i++, row += 4) {
        stl_le_p(row, (val & mask) | (ldl_le_p(row) & ~mask));
    }
}

/* CLEAR */
static VdxgRun vdxg_3d_clear(Vdxg3dRun *c, const uint32_t *dw)
{
    VdxgEngine *e = c->e;
    const VdxgSurface *surf = e->rd.surf;
    uint32_t flags = dw[VDXG_RD_CLEAR_DW_FLAGS];
    uint32_t x0 = VDXG_RD_X(dw[VDXG_RD_CLEAR_DW_XY]);
    uint32_t y0 = VDXG_RD_Y(dw[VDXG_RD_CLEAR_DW_XY]);
    uint32_t w = VDXG_RD_X(dw[VDXG_RD_CLEAR_DW_WH]);
    uint32_t h = VDXG_RD_Y(dw[VDXG_RD_CLEAR_DW_WH]);
    uint32_t st = dw[VDXG_RD_CLEAR_DW_STENCIL], dfmt, val, mask, x, y, old;
    uint32_t slot, cw, ch, cpp, m, raw;
    float rgba[4];
    uint64_t n, k;
    uint8_t pat[4], *row;
    unsigned int i;

    dfmt = surf[VDXG_SLOT_DEPTH].format;
    if ((flags & ~VDXG_CLEAR_MASK) || (st & ~0xffu) ||
        ((flags & VDXG_CLEAR_COLOR) && !surf[VDXG_SLOT_DST].format) ||
        ((flags & VDXG_CLEAR_DEPTH) && dfmt != VDXG_FMT_D16 &&
         dfmt != VDXG_FMT_D24S8) ||
        ((flags & VDXG_CLEAR_STENCIL) && dfmt != VDXG_FMT_D24S8)) {
        return vdxg_3d_fail(c, VDXG_FAULT_PARAM);
    }
    if (!e->rd.phase && !e->op_progress) {
        trace_vdxg_3d_clear(flags, x0, y0, w, h);
    }
    /* Phase 0: the colour; phase 1: depth and stencil */
    for (; e->rd.phase < 2; e->rd.phase++, e->op_progress = 0) {
        if (e->rd.phase == 0) {
            if (!(flags & VDXG_CLEAR_COLOR)) {
                continue;
            }
            slot = VDXG_SLOT_DST;
            for (i = 0; i < 4; i++) {
                rgba[i] = vdxg_f(dw[VDXG_RD_CLEAR_DW_COLOR + i]);
            }
            val = vdxg_float_to_texel(surf[slot].format, rgba);
            mask = UINT32_MAX;
        } else {
            if (!(flags & (VDXG_CLEAR_DEPTH | VDXG_CLEAR_STENCIL))) {
                continue;
            }
            slot = VDXG_SLOT_DEPTH;
            if (dfmt == VDXG_FMT_D16) {
                val = vdxg_unorm(vdxg_f(dw[VDXG_RD_CLEAR_DW_DEPTH]), 0xffff);
                mask = 0xffff;
            } else {
                val = vdxg_unorm(vdxg_f(dw[VDXG_RD_CLEAR_DW_DEPTH]),
                                 0xffffff) | st << 24;
                mask = ((flags & VDXG_CLEAR_DEPTH) ? 0xffffff : 0) |
                       ((flags & VDXG_CLEAR_STENCIL) ? 0xff000000u : 0);
            }
        }
        cpp = vdxg_fmt_bpp(surf[slot].format);
        cw = x0 < surf[slot].width ? MIN(w, surf[slot].width - x0) : 0;
        ch = y0 < surf[slot].height ? MIN(h, surf[slot].height - y0) : 0;
        n = (uint64_t)cw * ch;
        if (cpp == 2) {
            stw_le_p(pat, val);
        } else {
            stl_le_p(pat, val);
        }
        for (k = e->op_progress; k < n;) {
            if (*c->r->budget <= 0) {
                e->op_progress = k;
                return VDXG_RUN_YIELD;
            }
            x = x0 + k % cw;
            y = y0 + k / cw;
            m = MIN(cw - (x - x0), 1024);
            if (e->virt) {
                m = MIN(m, vdxg_px_page_left(c->r, slot, x, y, false));
            }
            row = vdxg_px_run(c->r, slot, x, y, m, true);
            if (row) {
                if (mask == UINT32_MAX || cpp == 2) {
                    vdxg_fill_pattern(row, (uint64_t)m * cpp, pat, cpp);
                } else {
                    vdxg_3d_fill_masked(row, m, val, mask);
                }
                *c->r->budget -= (int64_t)m * VDXG_COST_PIXEL;
                k += m;
                continue;
            }
            raw = val;
            if (mask != UINT32_MAX && cpp == 4) {
                if (!vdxg_px_load(c->r, slot, x, y, &old)) {
                    e->op_progress = k;
                    return VDXG_RUN_FAULT;
                }
                raw = (val & mask) | (old & ~mask);
            }
            if (!vdxg_px_store(c->r, slot, x, y, raw)) {
                e->op_progress = k;
                return VDXG_RUN_FAULT;
            }
            *c->r->budget -= VDXG_COST_PIXEL;
            k++;
        }
    }
    return VDXG_RUN_DONE;
}

VdxgRun vdxg_3d_cmd(VdxgRdRun *r, uint32_t op, const uint32_t *dw,
                    uint32_t len)
{
    Vdxg3dRun c = {
        .r = r,
        .s = r->s,
        .e = r->e,
        .g = r->e->g3d,
    };

    if (!c.g) {
        return vdxg_rd_fail(r, VDXG_FAULT_OPCODE);
    }
    switch (op) {
    case VDXG_RD_SET_STATE:
        return vdxg_3d_set_regs(&c, dw[VDXG_RD_STATE_DW_FIRST], len - 2,
                                dw + VDXG_RD_STATE_DW_VALUES);
    case VDXG_RD_LOAD_STATE:
        return vdxg_3d_load_state(&c, dw);
    case VDXG_RD_SET_SHADER:
        return vdxg_3d_set_shader(&c, dw);
    case VDXG_RD_SET_CONSTANTS:
        return vdxg_3d_set_constants(&c, dw);
    case VDXG_RD_SET_VERTEX_BUFFER:
        return vdxg_3d_set_vb(&c, dw);
    case VDXG_RD_SET_INDEX_BUFFER:
        return vdxg_3d_set_ib(&c, dw);
    case VDXG_RD_SET_TEXTURE:
        return vdxg_3d_set_texture(&c, dw);
    case VDXG_RD_DRAW:
    case VDXG_RD_DRAW_INDEXED:
        if (dw[VDXG_RD_DRAW3D_DW_PRIM] & ~0xfu) {
            return vdxg_3d_fail(&c, VDXG_FAULT_PARAM);
        }
        return vdxg_3d_draw(&c, dw, op == VDXG_RD_DRAW_INDEXED);
    case VDXG_RD_CLEAR:
        return vdxg_3d_clear(&c, dw);
    default:
        return vdxg_rd_fail(r, VDXG_FAULT_OPCODE);
    }
}

/* The context state area (version 2): dwords 64 to 287 */

/*
 * Load the 3D state from @area (the whole area, as read), as the commands
 * would, field by field in the order of their dwords: the registers, the
 * programs (read and checked), constants, index and vertex buffers,
 * textures.
 */
bool vdxg_3d_state_load(VdxgCore *s, VdxgEngine *e, const uint8_t *area,
                        VdxgErr *err)
{
    int64_t budget = INT64_MAX / 2;
    VdxgRdRun r;
    Vdxg3dRun c = { .r = &r, .s = s, .e = e, .g = e->g3d };
    Vdxg3d *g = e->g3d;
    uint32_t regs[VDXG_3D_NUM_REGS], dw[8], i, j;
    uint64_t addr;

    vdxg_rd_run_init(&r, s, e, &budget, err);
    memset(g->tex_win_run, 0, sizeof(g->tex_win_run));
#define AREA_DW(n) ldl_le_p(area + (n) * 4)
    for (i = 0; i < VDXG_3D_NUM_REGS; i++) {
        regs[i] = AREA_DW(VDXG_CTX_STATE_DW_REGS + i);
        if (!vdxg_3d_reg_ok(i, regs[i])) {
            goto bad;
        }
    }
    memcpy(g->regs, regs, sizeof(regs));
    for (i = 0; i < VDXG_3D_NUM_STAGES; i++) {
        for (j = 0; j < 4; j++) {
            dw[j] = AREA_DW(VDXG_CTX_STATE_DW_PROGRAM(i) + j);
        }
        addr = vdxg_dw64(dw, 1);
        if (dw[0] > 1) {
            goto bad;
        }
        if (!dw[0]) {
            if (addr || dw[3]) {
                goto bad;
            }
            continue;
        }
        if ((addr & 3) || dw[3] < VDXG_PROG_HEADER_SIZE ||
            dw[3] > VDXG_3D_PROGRAM_MAX_BYTES ||
            vdxg_3d_range(&c, addr, dw[3]) != VDXG_RUN_DONE) {
            goto bad;
        }
        if (!vdxg_3d_bind_program(&c, i, addr, dw[3])) {
            return false;
        }
    }
    for (i = 0; i < VDXG_3D_NUM_STAGES; i++) {
        for (j = 0; j < 4; j++) {
            dw[j] = AREA_DW(VDXG_CTX_STATE_DW_CONSTS(i) + j);
        }
        addr = vdxg_dw64(dw, 1);
        if (dw[0] > VDXG_3D_NUM_CONSTS || dw[3] || (addr & 3) ||
            (!dw[0] && addr) ||
            vdxg_3d_range(&c, addr, dw[0] * 16ull) != VDXG_RUN_DONE) {
            goto bad;
        }
        g->const_count[i] = dw[0];
        g->const_addr[i] = addr;
    }
    for (j = 0; j < 4; j++) {
        dw[j] = AREA_DW(VDXG_CTX_STATE_DW_IB + j);
    }
    addr = vdxg_dw64(dw, 1);
    if ((dw[0] != 0 && dw[0] != 1 && dw[0] != 2 && dw[0] != 4) ||
        (!dw[0] && (addr || dw[3])) ||
        vdxg_3d_range(&c, addr, dw[3]) != VDXG_RUN_DONE) {
        goto bad;
    }
    g->ib_isize = dw[0];
    g->ib_addr = addr;
    g->ib_size = dw[3];
    for (i = 0; i < VDXG_3D_NUM_VBS; i++) {
        for (j = 0; j < 4; j++) {
            dw[j] = AREA_DW(VDXG_CTX_STATE_DW_VB(i) + j);
        }
        addr = vdxg_dw64(dw, 1);
        if (dw[0] > VDXG_3D_MAX_STRIDE || (!dw[3] && addr) ||
            vdxg_3d_range(&c, addr, dw[3]) != VDXG_RUN_DONE) {
            goto bad;
        }
        g->vb_stride[i] = dw[0];
        g->vb_addr[i] = addr;
        g->vb_size[i] = dw[3];
    }
    for (i = 0; i < VDXG_3D_NUM_UNITS; i++) {
        for (j = 0; j < 8; j++) {
            dw[j] = AREA_DW(VDXG_CTX_STATE_DW_TEX(i) + j);
        }
        addr = vdxg_dw64(dw, 1);
        if (dw[5] || dw[6] || dw[7] || (addr & 3)) {
            goto bad;
        }
        if (!dw[0]) {
            if (addr || dw[3] || dw[4]) {
                goto bad;
            }
            continue;
        }
        if (!vdxg_texture_setup(&g->tex[i], addr, dw[3], dw[0], dw[4]) ||
            vdxg_3d_range(&c, addr, dw[3]) != VDXG_RUN_DONE) {
            goto bad;
        }
        g->tex_desc[i] = dw[0];
        g->tex_addr[i] = addr;
        g->tex_size[i] = dw[3];
        g->tex_wh[i] = dw[4];
    }
#undef AREA_DW
    trace_vdxg_3d_state(e->as, e->state_area, false);
    return true;

bad:
    return vdxg_set_err(err, VDXG_FAULT_PARAM, e->state_area);
}

/* Store the 3D state into @area (the whole area's bytes) */
void vdxg_3d_state_store(VdxgEngine *e, uint8_t *area)
{
    Vdxg3d *g = e->g3d;
    uint32_t i;
    uint8_t *p;

    memset(area + VDXG_CTX_STATE_DW_REGS * 4, 0,
           (VDXG_CTX_STATE_DW_END - VDXG_CTX_STATE_DW_REGS) * 4);
    for (i = 0; i < VDXG_3D_NUM_REGS; i++) {
        stl_le_p(area + (VDXG_CTX_STATE_DW_REGS + i) * 4, g->regs[i]);
    }
    for (i = 0; i < VDXG_3D_NUM_STAGES; i++) {
        p = area + VDXG_CTX_STATE_DW_PROGRAM(i) * 4;
        stl_le_p(p, g->prog_bound[i]);
        stq_le_p(p + 4, g->prog_addr[i]);
        stl_le_p(p + 12, g->prog_size[i]);
        p = area + VDXG_CTX_STATE_DW_CONSTS(i) * 4;
        stl_le_p(p, g->const_count[i]);
        stq_le_p(p + 4, g->const_addr[i]);
    }
    p = area + VDXG_CTX_STATE_DW_IB * 4;
    stl_le_p(p, g->ib_isize);
    stq_le_p(p + 4, g->ib_addr);
    stl_le_p(p + 12, g->ib_size);
    for (i = 0; i < VDXG_3D_NUM_VBS; i++) {
        p = area + VDXG_CTX_STATE_DW_VB(i) * 4;
        stl_le_p(p, g->vb_stride[i]);
        stq_le_p(p + 4, g->vb_addr[i]);
        stl_le_p(p + 12, g->vb_size[i]);
    }
    for (i = 0; i < VDXG_3D_NUM_UNITS; i++) {
        p = area + VDXG_CTX_STATE_DW_TEX(i) * 4;
        stl_le_p(p, g->tex_desc[i]);
        stq_le_p(p + 4, g->tex_addr[i]);
        stl_le_p(p + 12, g->tex_size[i]);
        stl_le_p(p + 16, g->tex_wh[i]);
    }
    trace_vdxg_3d_state(e->as, e->state_area, true);
}

/* Migration */

static bool vdxg_3d_raw_ok(void *opaque, int version_id)
{
    Vdxg3d *g = opaque;

    return g->raw_len[0] <= VDXG_3D_PROGRAM_MAX_BYTES &&
           g->raw_len[1] <= VDXG_3D_PROGRAM_MAX_BYTES;
}

/*
 * Check the incoming 3D state as the commands would have, and derive the
 * decoded programs and textures from it. The bindings' ranges are
 * checked against this function's address space as at bind time.
 */
bool vdxg_3d_post_load(VdxgEngine *e)
{
    Vdxg3d *g = e->g3d;
    VdxgCore *s = e->s;
    VdxgErr err;
    int64_t budget = 0;
    VdxgRdRun r;
    Vdxg3dRun c = { .r = &r, .s = s, .e = e, .g = g };
    uint32_t i;

    vdxg_rd_run_init(&r, s, e, &budget, &err);

    for (i = 0; i < VDXG_3D_NUM_REGS; i++) {
        if (!vdxg_3d_reg_ok(i, g->regs[i])) {
            return false;
        }
    }
    for (i = 0; i < VDXG_3D_NUM_STAGES; i++) {
        vdxg_program_free(&g->prog[i]);
        if (g->prog_bound[i] > 1 || !g->raw[i] != !g->raw_len[i] ||
            !g->prog_bound[i] != !g->raw_len[i] ||
            g->const_count[i] > VDXG_3D_NUM_CONSTS ||
            vdxg_3d_range(&c, g->const_addr[i],
                          g->const_count[i] * 16ull) != VDXG_RUN_DONE) {
            return false;
        }
        if (!g->prog_bound[i]) {
            continue;
        }
        if (g->raw_len[i] > g->prog_size[i] ||
            g->prog_size[i] > VDXG_3D_PROGRAM_MAX_BYTES ||
            (g->prog_addr[i] & 3) ||
            vdxg_3d_range(&c, g->prog_addr[i], g->prog_size[i]) !=
            VDXG_RUN_DONE ||
            vdxg_program_decode(&g->prog[i], i, g->raw[i], g->raw_len[i]) >=
            0 || g->prog[i].raw_len != g->raw_len[i]) {
            return false;
        }
    }
    g->fs_vary_mask = g->prog_bound[1] ?
                      vdxg_program_vary_mask(&g->prog[1]) : 0;
    if ((g->ib_isize != 0 && g->ib_isize != 1 && g->ib_isize != 2 &&
         g->ib_isize != 4) ||
        vdxg_3d_range(&c, g->ib_addr, g->ib_size) != VDXG_RUN_DONE) {
        return false;
    }
    for (i = 0; i < VDXG_3D_NUM_VBS; i++) {
        if (g->vb_stride[i] > VDXG_3D_MAX_STRIDE ||
            vdxg_3d_range(&c, g->vb_addr[i], g->vb_size[i]) !=
            VDXG_RUN_DONE) {
            return false;
        }
    }
    for (i = 0; i < VDXG_3D_NUM_UNITS; i++) {
        memset(&g->tex[i], 0, sizeof(g->tex[i]));
        if (!g->tex_desc[i]) {
            continue;
        }
        if (!vdxg_texture_setup(&g->tex[i], g->tex_addr[i], g->tex_size[i],
                                g->tex_desc[i], g->tex_wh[i]) ||
            (g->tex_addr[i] & 3) ||
            vdxg_3d_range(&c, g->tex_addr[i], g->tex_size[i]) !=
            VDXG_RUN_DONE) {
            return false;
        }
    }
    vdxg_3d_forget_draw(g);
    return true;
}

const VMStateDescription vmstate_vdxg_3d = {
    .name = "vdxg/3d",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32_ARRAY(regs, Vdxg3d, VDXG_3D_NUM_REGS),
        VMSTATE_UINT32_ARRAY(prog_bound, Vdxg3d, VDXG_3D_NUM_STAGES),
        VMSTATE_UINT64_ARRAY(prog_addr, Vdxg3d, VDXG_3D_NUM_STAGES),
        VMSTATE_UINT32_ARRAY(prog_size, Vdxg3d, VDXG_3D_NUM_STAGES),
        VMSTATE_UINT32_ARRAY(const_count, Vdxg3d, VDXG_3D_NUM_STAGES),
        VMSTATE_UINT64_ARRAY(const_addr, Vdxg3d, VDXG_3D_NUM_STAGES),
        VMSTATE_UINT32(ib_isize, Vdxg3d),
        VMSTATE_UINT64(ib_addr, Vdxg3d),
        VMSTATE_UINT32(ib_size, Vdxg3d),
        VMSTATE_UINT32_ARRAY(vb_stride, Vdxg3d, VDXG_3D_NUM_VBS),
        VMSTATE_UINT64_ARRAY(vb_addr, Vdxg3d, VDXG_3D_NUM_VBS),
        VMSTATE_UINT32_ARRAY(vb_size, Vdxg3d, VDXG_3D_NUM_VBS),
        VMSTATE_UINT32_ARRAY(tex_desc, Vdxg3d, VDXG_3D_NUM_UNITS),
        VMSTATE_UINT64_ARRAY(tex_addr, Vdxg3d, VDXG_3D_NUM_UNITS),
        VMSTATE_UINT32_ARRAY(tex_size, Vdxg3d, VDXG_3D_NUM_UNITS),
        VMSTATE_UINT32_ARRAY(tex_wh, Vdxg3d, VDXG_3D_NUM_UNITS),
        VMSTATE_UINT32_ARRAY(raw_len, Vdxg3d, VDXG_3D_NUM_STAGES),
        VMSTATE_VBUFFER_ALLOC_UINT32(raw[0], Vdxg3d, 1, vdxg_3d_raw_ok,
                                     raw_len[0]),
        VMSTATE_VBUFFER_ALLOC_UINT32(raw[1], Vdxg3d, 1, vdxg_3d_raw_ok,
                                     raw_len[1]),
        VMSTATE_UINT32_ARRAY(consts_raw, Vdxg3d,
                             VDXG_3D_NUM_STAGES * VDXG_3D_NUM_CONSTS * 4),
        VMSTATE_END_OF_LIST()
    },
};
