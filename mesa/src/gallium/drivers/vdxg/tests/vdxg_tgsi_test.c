/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

/*
 * The TGSI encoder (vdxg_tgsi.c) on the host, without a device: TGSI from
 * text (tgsi_text_translate), encoded by vdxg_tgsi_compile() (and linked
 * by vdxg_tgsi_link()), bound with SET_SHADER in libvdxg's reference
 * pipeline and run with vdxg_ref3d_invoke(). Each output is compared bit
 * for bit with what this file computes from TGSI's semantics
 * (docs/gallium/tgsi.rst); where TGSI leaves the bits open (EX2, LG2, POW,
 * SIN, COS, texture filtering, NaN payloads) the device's definition
 * (docs/hardware.md, "Arithmetic", "Textures") gives them, and the
 * transcendental results are also held close to libm's.
 *
 * Exit status 0 when every check passes; each failure is printed.
 */

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tgsi/tgsi_parse.h"
#include "tgsi/tgsi_text.h"
#include "util/macros.h"

#include "vdxg_hw_defs.h"
#include "vdxg_ref3d.h"
#include "vdxg_tgsi.h"

/* ------------------------------------------------------------ checking */

static unsigned num_checks, num_failed, num_cases, num_cases_failed;
static bool case_failed;
static const char *cur_text;                 /* TGSI of the failing run */
static const struct vdxg_program *cur_prog;  /* ... and its binary */
static bool cur_dumped;

static void
dump_current(void)
{
   char *text = NULL;
   char msg[128];

   if (cur_dumped)
      return;
   cur_dumped = true;
   if (cur_text)
      fprintf(stderr, "    TGSI:\n%s", cur_text);
   if (cur_prog && cur_prog->dw &&
       vdxg_disasm(cur_prog->dw, cur_prog->size, &text, msg,
                   sizeof(msg)) >= 0 && text)
      fprintf(stderr, "    encoded:\n%s", text);
   free(text);
}

static bool PRINTFLIKE(4, 5)
check(bool ok, const char *file, int line, const char *fmt, ...)
{
   va_list ap;

   num_checks++;
   if (ok)
      return true;
   num_failed++;
   case_failed = true;
   fprintf(stderr, "  %s:%d: ", file, line);
   va_start(ap, fmt);
   vfprintf(stderr, fmt, ap);
   va_end(ap);
   fprintf(stderr, "\n");
   dump_current();
   return false;
}

#define CHECK(cond, ...) check((cond), __FILE__, __LINE__, __VA_ARGS__)

static uint32_t
fbits(float f)
{
   uint32_t u;

   memcpy(&u, &f, 4);
   return u;
}

static float
bitsf(uint32_t u)
{
   float f;

   memcpy(&f, &u, 4);
   return f;
}

/* A result as the device writes it: NaNs canonical (0x7fc00000). */
static uint32_t
canon(float f)
{
   return isnan(f) ? 0x7fc00000u : fbits(f);
}

/* GOT (bits) against WANT, the channels of MASK. */
static bool
expect_vec_at(const char *file, int line, const char *what, unsigned lane,
              const uint32_t got[4], const float want[4], unsigned mask)
{
   bool ok = true;

   for (unsigned c = 0; c < 4; c++) {
      if ((mask & (1u << c)) && got[c] != canon(want[c]))
         ok = false;
   }
   return check(ok, file, line,
                "%s, lane %u: got (%08x %08x %08x %08x) = (%g %g %g %g), "
                "want (%08x %08x %08x %08x) = (%g %g %g %g), mask 0x%x",
                what, lane, got[0], got[1], got[2], got[3], bitsf(got[0]),
                bitsf(got[1]), bitsf(got[2]), bitsf(got[3]), canon(want[0]),
                canon(want[1]), canon(want[2]), canon(want[3]), want[0],
                want[1], want[2], want[3], mask);
}

#define EXPECT_VEC(what, lane, got, want, mask) \
   expect_vec_at(__FILE__, __LINE__, (what), (lane), (got), (want), (mask))

/* ------------------------------------------------------ the reference */

#define MEM_BASE   0x100000ull
#define MEM_SIZE   (1u << 20)
#define CMD_BASE   0x40000000ull
#define O_VS       0x00000u
#define O_FS       0x20000u
#define O_CONSTS   0x40000u  /* + stage * 0x1000 */
#define O_TEX      0x50000u  /* + unit * 0x1000 */

static uint8_t mem[MEM_SIZE];
static struct vdxg_ref3d_ctx ctx;

static bool
in_mem(uint64_t addr, uint64_t len)
{
   return addr >= MEM_BASE && addr + len >= addr &&
          addr + len <= MEM_BASE + MEM_SIZE;
}

static bool
mem_range_ok(void *opaque, uint64_t addr, uint64_t len)
{
   return in_mem(addr, len);
}

static bool
mem_read(void *opaque, uint64_t addr, void *buf, uint32_t len)
{
   if (!in_mem(addr, len))
      return false;
   memcpy(buf, mem + (addr - MEM_BASE), len);
   return true;
}

static bool
mem_write(void *opaque, uint64_t addr, const void *buf, uint32_t len)
{
   if (!in_mem(addr, len))
      return false;
   memcpy(mem + (addr - MEM_BASE), buf, len);
   return true;
}

static const struct vdxg_ref3d_mem test_mem = {
   .range_ok = mem_range_ok,
   .read = mem_read,
   .write = mem_write,
};

#define CMD_HDR(op, len) ((op) | (uint32_t)(len) << 16)
#define LO(a) ((uint32_t)(a))
#define HI(a) ((uint32_t)((uint64_t)(a) >> 32))

static bool
exec_cmds(const uint32_t *cmds, unsigned ndw, const char *what)
{
   struct vdxg_ref3d_fault f;
   uint32_t r = vdxg_ref3d_exec(&ctx, &test_mem, CMD_BASE, cmds, ndw, &f);

   return CHECK(r == 0, "%s: fault %u at 0x%llx", what, r,
                (unsigned long long)f.addr);
}

static bool
bind_program(unsigned stage, const uint32_t *dw, uint32_t size)
{
   uint32_t off = stage == VDXG_3D_STAGE_VERTEX ? O_VS : O_FS;
   uint64_t addr = MEM_BASE + off;
   uint32_t cmd[] = {
      CMD_HDR(VDXG_RD_SET_SHADER, VDXG_RD_SET_SHADER_LEN),
      stage, LO(addr), HI(addr), size,
   };

   memcpy(mem + off, dw, size);
   return exec_cmds(cmd, ARRAY_SIZE(cmd), "SET_SHADER");
}

static bool
bind_consts(unsigned stage, const float (*v)[4], unsigned n)
{
   uint32_t off = O_CONSTS + stage * 0x1000;
   uint64_t addr = MEM_BASE + off;
   uint32_t cmd[] = {
      CMD_HDR(VDXG_RD_SET_CONSTANTS, VDXG_RD_SET_CONSTANTS_LEN),
      stage, LO(addr), HI(addr), n,
   };

   memcpy(mem + off, v, 16 * n);
   return exec_cmds(cmd, ARRAY_SIZE(cmd), "SET_CONSTANTS");
}

static bool
set_reg(unsigned reg, uint32_t value)
{
   uint32_t cmd[] = {
      CMD_HDR(VDXG_RD_SET_STATE, VDXG_RD_SET_STATE_LEN(1)), reg, value,
   };

   return exec_cmds(cmd, ARRAY_SIZE(cmd), "SET_STATE");
}

static bool
bind_texture(unsigned unit, const void *data, uint32_t size, uint32_t desc,
             unsigned w, unsigned h)
{
   uint32_t off = O_TEX + unit * 0x1000;
   uint64_t addr = MEM_BASE + off;
   uint32_t cmd[] = {
      CMD_HDR(VDXG_RD_SET_TEXTURE, VDXG_RD_SET_TEXTURE_LEN),
      unit, LO(addr), HI(addr), size, desc, VDXG_RD_XY(w, h),
   };

   memcpy(mem + off, data, size);
   return exec_cmds(cmd, ARRAY_SIZE(cmd), "SET_TEXTURE");
}

static bool
invoke(unsigned stage, struct vdxg_ref3d_invocation *inv)
{
   struct vdxg_ref3d_fault f;
   uint32_t r = vdxg_ref3d_invoke(&ctx, &test_mem, stage, inv, &f);

   return CHECK(r == 0, "invocation: fault %u at 0x%llx", r,
                (unsigned long long)f.addr);
}

/* ---------------------------------------------------------- compiling */

static char text_buf[8192];

static const char * PRINTFLIKE(1, 2)
text(const char *fmt, ...)
{
   va_list ap;
   int n;

   va_start(ap, fmt);
   n = vsnprintf(text_buf, sizeof(text_buf), fmt, ap);
   va_end(ap);
   assert(n >= 0 && n < (int)sizeof(text_buf));
   (void)n;
   return text_buf;
}

/*
 * TGSI text into PROG: vdxg_tgsi_compile()'s return value, its message in
 * ERR. -1000 when the text is not TGSI (a defect of the test).
 */
static int
compile_text(const char *tgsi, struct vdxg_program *prog, char *err,
             size_t err_len)
{
   struct tgsi_token tokens[2048];

   cur_text = tgsi;
   cur_prog = prog;
   cur_dumped = false;
   memset(prog, 0, sizeof(*prog));
   if (err_len)
      err[0] = 0;
   if (!CHECK(tgsi_text_translate(tgsi, tokens, ARRAY_SIZE(tokens)),
              "tgsi_text_translate refused the test's TGSI"))
      return -1000;
   return vdxg_tgsi_compile(tokens, prog, err, err_len);
}

static bool
compile_ok(const char *tgsi, struct vdxg_program *prog)
{
   char err[256];
   int ret = compile_text(tgsi, prog, err, sizeof(err));

   if (ret == -1000)
      return false;
   return CHECK(ret == 0, "vdxg_tgsi_compile: %d (%s)", ret, err);
}

/*
 * Compile TGSI, bind it (alone, in a fresh context) with CONSTS, and run
 * one invocation of it on INV's inputs: 4 live lanes for a fragment
 * program, 1 for a vertex program. PROG is left for the caller to fini.
 */
static bool
run(const char *tgsi, struct vdxg_program *prog, const float (*consts)[4],
    unsigned num_consts, struct vdxg_ref3d_invocation *inv)
{
   if (!compile_ok(tgsi, prog))
      return false;
   vdxg_ref3d_init(&ctx);
   if (!bind_program(prog->stage, prog->dw, prog->size))
      return false;
   if (num_consts && !bind_consts(prog->stage, consts, num_consts))
      return false;
   inv->live = prog->stage == VDXG_3D_STAGE_FRAGMENT ? 0xf : 0x1;
   memset(inv->out, 0, sizeof(inv->out));
   return invoke(prog->stage, inv);
}

/* ------------------------------------------------- TGSI's arithmetic */

/*
 * Inputs of the arithmetic opcodes, [source][lane][channel]. Only finite
 * values where TGSI leaves NaNs open (MIN, MAX, the conversions), NaNs,
 * infinities and signed zeros where its formula decides.
 */
static const float in_gen[3][4][4] = {
   {
      { 1.5f, -2.25f, 0.0f, 3.0f },
      { -0.5f, 2.5f, 7.75f, -0.0f },
      { 0.1f, -3.5f, 100.0f, 2.0f },
      { 1e-3f, 0.75f, -1.0f, 3.5f },
   },
   {
      { 2.0f, -2.25f, 5.0f, 3.0f },
      { 0.3f, -1.5f, 7.75f, 1.0f },
      { 3.0f, 4.0f, -6.5f, 1e-4f },
      { -7.0f, 0.25f, 1.0f, 0.7f },
   },
   {
      { 0.5f, 1.0f, -1.0f, 0.0f },
      { 1e7f, -3.0f, 0.125f, 2.0f },
      { -0.1f, 0.2f, 0.3f, 0.4f },
      { 9.0f, -9.0f, 1.5f, -2.5f },
   },
};

static const float in_cmp[3][4][4] = {
   {
      { 1.0f, 2.0f, 3.0f, 4.0f },
      { NAN, 0.0f, -0.0f, -1.0f },
      { 5.0f, -5.0f, INFINITY, 2.0f },
      { 1.0f, NAN, -INFINITY, 0.5f },
   },
   {
      { 1.0f, 3.0f, 2.0f, 4.0f },
      { 1.0f, -0.0f, 0.0f, NAN },
      { 5.0000005f, -4.0f, INFINITY, -2.0f },
      { 2.0f, NAN, -INFINITY, 0.25f },
   },
   {
      { 10.0f, 20.0f, 30.0f, 40.0f },
      { 50.0f, 60.0f, 70.0f, 80.0f },
      { -1.0f, -2.0f, -3.0f, -4.0f },
      { 0.5f, 0.25f, 0.125f, 0.0625f },
   },
};

/* Rounding: ties, halves of both signs, signed zero, big values. */
static const float in_round[3][4][4] = {
   {
      { 2.5f, 3.5f, -2.5f, 1.3f },
      { -0.5f, 0.5f, 1.5f, -1.7f },
      { 1e8f, 0.49999997f, -0.0f, 7.5f },
      { -3.5f, 2.6f, -2.6f, 0.0f },
   },
};

/* Positive x for RCP, RSQ, SQRT, LG2; POW's exponents in b.x. */
static const float in_pos[3][4][4] = {
   {
      { 2.0f, -1.0f, 3.0f, 4.0f },
      { 0.3f, 5.0f, -6.0f, 7.0f },
      { 1000.0f, 8.0f, 9.0f, -10.0f },
      { 1e-3f, 11.0f, 12.0f, 13.0f },
   },
   {
      { 0.5f, 1.0f, 1.0f, 1.0f },
      { 3.0f, 1.0f, 1.0f, 1.0f },
      { -1.25f, 1.0f, 1.0f, 1.0f },
      { 2.5f, 1.0f, 1.0f, 1.0f },
   },
};

static const float in_ex2[3][4][4] = {
   {
      { 2.0f, 1.0f, 1.0f, 1.0f },
      { 0.3f, 1.0f, 1.0f, 1.0f },
      { -3.7f, 1.0f, 1.0f, 1.0f },
      { 10.5f, 1.0f, 1.0f, 1.0f },
   },
};

static const float in_trig[3][4][4] = {
   {
      { 0.5f, 9.0f, 9.0f, 9.0f },
      { -2.0f, 9.0f, 9.0f, 9.0f },
      { 3.14159f, 9.0f, 9.0f, 9.0f },
      { 10.0f, 9.0f, 9.0f, 9.0f },
   },
};

/* LDEXP: src1 an integer (a float holding one: no native integers). */
static const float in_ldexp[3][4][4] = {
   {
      { 1.5f, -3.0f, 0.1f, 7.0f },
      { 1e-3f, 2.0f, -0.75f, 5.0f },
      { 3.0f, 1e20f, 1.0f, -2.5f },
      { 0.0f, 6.0f, 1.25f, 9.0f },
   },
   {
      { 3.0f, -2.0f, 0.0f, 10.0f },
      { -5.0f, 1.0f, 20.0f, -1.0f },
      { -12.0f, -30.0f, 100.0f, 4.0f },
      { 7.0f, -126.0f, -3.0f, 64.0f },
   },
};

typedef void (*eval_fn)(const float *a, const float *b, const float *c,
                        float *r);
typedef float (*libm_fn)(float a, float b);

#define EVAL(name) \
   static void eval_##name(const float *a, const float *b, const float *c, \
                           float *r)
#define PER_CHANNEL(expr) \
   for (unsigned i = 0; i < 4; i++) \
      r[i] = (expr)
#define REPLICATE(expr) \
   do { \
      float v_ = (expr); \
      for (unsigned i = 0; i < 4; i++) \
         r[i] = v_; \
   } while (0)

EVAL(MOV) { PER_CHANNEL(a[i]); }
EVAL(ADD) { PER_CHANNEL(a[i] + b[i]); }
EVAL(MUL) { PER_CHANNEL(a[i] * b[i]); }
/* MAD may round in between (tgsi.rst): the device does. */
EVAL(MAD) { PER_CHANNEL(a[i] * b[i] + c[i]); }
EVAL(DP2) { REPLICATE(a[0] * b[0] + a[1] * b[1]); }
EVAL(DP3) { REPLICATE(a[0] * b[0] + a[1] * b[1] + a[2] * b[2]); }
EVAL(DP4) { REPLICATE(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]); }
EVAL(MIN) { PER_CHANNEL(a[i] < b[i] ? a[i] : b[i]); }
EVAL(MAX) { PER_CHANNEL(a[i] > b[i] ? a[i] : b[i]); }
EVAL(SLT) { PER_CHANNEL(a[i] < b[i] ? 1.0f : 0.0f); }
EVAL(SGE) { PER_CHANNEL(a[i] >= b[i] ? 1.0f : 0.0f); }
EVAL(SLE) { PER_CHANNEL(a[i] <= b[i] ? 1.0f : 0.0f); }
EVAL(SGT) { PER_CHANNEL(a[i] > b[i] ? 1.0f : 0.0f); }
EVAL(SEQ) { PER_CHANNEL(a[i] == b[i] ? 1.0f : 0.0f); }
EVAL(SNE) { PER_CHANNEL(a[i] != b[i] ? 1.0f : 0.0f); }
EVAL(CMP) { PER_CHANNEL(a[i] < 0.0f ? b[i] : c[i]); }
EVAL(LRP) { PER_CHANNEL(a[i] * b[i] + (1.0f - a[i]) * c[i]); }
EVAL(FRC) { PER_CHANNEL(a[i] - floorf(a[i])); }
EVAL(FLR) { PER_CHANNEL(floorf(a[i])); }
EVAL(CEIL) { PER_CHANNEL(ceilf(a[i])); }
EVAL(TRUNC) { PER_CHANNEL(truncf(a[i])); }
/* nir_to_tgsi's ROUND is fround_even. */
EVAL(ROUND) { PER_CHANNEL(nearbyintf(a[i])); }
EVAL(SSG) { PER_CHANNEL(a[i] > 0.0f ? 1.0f : a[i] < 0.0f ? -1.0f : 0.0f); }
EVAL(RCP) { REPLICATE(1.0f / a[0]); }
EVAL(RSQ) { REPLICATE(1.0f / sqrtf(a[0])); }
EVAL(SQRT) { REPLICATE(sqrtf(a[0])); }
EVAL(DIV) { PER_CHANNEL(a[i] / b[i]); }
EVAL(LDEXP) { PER_CHANNEL(ldexpf(a[i], (int)b[i])); }
/* TGSI leaves their bits open: the device's algorithms (hardware.md). */
EVAL(EX2) { REPLICATE(vdxg_ref3d_ex2(a[0])); }
EVAL(LG2) { REPLICATE(vdxg_ref3d_lg2(a[0])); }
EVAL(POW) { REPLICATE(vdxg_ref3d_ex2(b[0] * vdxg_ref3d_lg2(a[0]))); }
EVAL(SIN) { REPLICATE(vdxg_ref3d_sin(a[0])); }
EVAL(COS) { REPLICATE(vdxg_ref3d_cos(a[0])); }

static float libm_EX2(float a, float b) { return exp2f(a); }
static float libm_LG2(float a, float b) { return log2f(a); }
static float libm_POW(float a, float b) { return powf(a, b); }
static float libm_SIN(float a, float b) { return sinf(a); }
static float libm_COS(float a, float b) { return cosf(a); }

static const struct alu_op {
   const char *name;
   unsigned srcs;
   eval_fn eval;
   const float (*in)[4][4];
   libm_fn libm;      /* and within this of TGSI's formula: */
   float tol;         /* relative to max(1, |libm|) */
} alu_ops[] = {
#define ALU(name, srcs, in) { #name, srcs, eval_##name, in, NULL, 0.0f }
#define TRANS(name, srcs, in, tol) \
   { #name, srcs, eval_##name, in, libm_##name, tol }
   ALU(MOV, 1, in_gen),     ALU(ADD, 2, in_gen),     ALU(MUL, 2, in_gen),
   ALU(MAD, 3, in_gen),     ALU(DP2, 2, in_gen),     ALU(DP3, 2, in_gen),
   ALU(DP4, 2, in_gen),     ALU(MIN, 2, in_gen),     ALU(MAX, 2, in_gen),
   ALU(SLT, 2, in_cmp),     ALU(SGE, 2, in_cmp),     ALU(SEQ, 2, in_cmp),
   ALU(SNE, 2, in_cmp),     ALU(SLE, 2, in_cmp),     ALU(SGT, 2, in_cmp),
   ALU(SLT, 2, in_gen),     ALU(SGE, 2, in_gen),     ALU(SLE, 2, in_gen),
   ALU(SGT, 2, in_gen),     ALU(CMP, 3, in_gen),     ALU(CMP, 3, in_cmp),
   ALU(LRP, 3, in_gen),     ALU(FRC, 1, in_gen),     ALU(FRC, 1, in_round),
   ALU(FLR, 1, in_round),   ALU(CEIL, 1, in_round),  ALU(TRUNC, 1, in_round),
   ALU(ROUND, 1, in_round), ALU(SSG, 1, in_round),   ALU(SSG, 1, in_cmp),
   ALU(RCP, 1, in_pos),     ALU(RCP, 1, in_gen),     ALU(RSQ, 1, in_pos),
   ALU(SQRT, 1, in_pos),    ALU(DIV, 2, in_gen),     ALU(LDEXP, 2, in_ldexp),
   TRANS(EX2, 1, in_ex2, 1e-5f),  TRANS(LG2, 1, in_pos, 1e-5f),
   TRANS(POW, 2, in_pos, 1e-5f),  TRANS(SIN, 1, in_trig, 1e-5f),
   TRANS(COS, 1, in_trig, 1e-5f),
#undef ALU
#undef TRANS
};

static const char *
srcs_text(unsigned srcs)
{
   static const char *const s[] = {
      "", ", IN[0]", ", IN[0], IN[1]", ", IN[0], IN[1], IN[2]",
   };

   return s[srcs];
}

static void
test_alu_one(const struct alu_op *op, unsigned stage)
{
   static struct vdxg_ref3d_invocation inv;
   struct vdxg_program prog;
   const char *tgsi;
   char what[64];

   if (stage == VDXG_3D_STAGE_FRAGMENT)
      tgsi = text("FRAG\n"
                  "DCL IN[0], GENERIC[0], PERSPECTIVE\n"
                  "DCL IN[1], GENERIC[1], PERSPECTIVE\n"
                  "DCL IN[2], GENERIC[2], PERSPECTIVE\n"
                  "DCL OUT[0], COLOR\n"
                  "  0: %s OUT[0]%s\n"
                  "  1: END\n",
                  op->name, srcs_text(op->srcs));
   else
      tgsi = text("VERT\n"
                  "DCL IN[0]\n"
                  "DCL IN[1]\n"
                  "DCL IN[2]\n"
                  "DCL OUT[0], POSITION\n"
                  "  0: %s OUT[0]%s\n"
                  "  1: END\n",
                  op->name, srcs_text(op->srcs));

   /* A fragment program does the four lanes at once, a vertex one each. */
   for (unsigned l = 0; l < 4; l++) {
      unsigned lanes = stage == VDXG_3D_STAGE_FRAGMENT ? 4 : 1;

      if (stage == VDXG_3D_STAGE_FRAGMENT && l)
         break;
      memset(&inv, 0, sizeof(inv));
      for (unsigned k = 0; k < lanes; k++) {
         for (unsigned s = 0; s < op->srcs; s++) {
            for (unsigned c = 0; c < 4; c++)
               inv.in[k][s][c] = fbits(op->in[s][l + k][c]);
         }
      }
      if (!run(tgsi, &prog, NULL, 0, &inv)) {
         vdxg_program_fini(&prog);
         return;
      }
      for (unsigned k = 0; k < lanes; k++) {
         float want[4];

         op->eval(op->in[0][l + k], op->in[1][l + k], op->in[2][l + k],
                  want);
         snprintf(what, sizeof(what), "%s %s, inputs %u", op->name,
                  stage ? "FRAG" : "VERT", l + k);
         EXPECT_VEC(what, k, inv.out[k][0], want, 0xf);
         if (op->libm) {
            float ref = op->libm(op->in[0][l + k][0], op->in[1][l + k][0]);

            for (unsigned c = 0; c < 4; c++) {
               float got = bitsf(inv.out[k][0][c]);

               CHECK(got == ref ||
                     fabsf(got - ref) <= op->tol * MAX2(1.0f, fabsf(ref)),
                     "%s: %g, libm %g", what, got, ref);
            }
         }
      }
      vdxg_program_fini(&prog);
   }
}

static void
test_alu(void)
{
   for (unsigned i = 0; i < ARRAY_SIZE(alu_ops); i++) {
      test_alu_one(&alu_ops[i], VDXG_3D_STAGE_FRAGMENT);
      test_alu_one(&alu_ops[i], VDXG_3D_STAGE_VERTEX);
   }
}

/* DDX, DDY and the _FINE ones: across the quad's lanes. */
static void
test_derivatives(void)
{
   static const char *const ops[] = { "DDX", "DDY", "DDX_FINE", "DDY_FINE" };
   static struct vdxg_ref3d_invocation inv;
   struct vdxg_program prog;

   for (unsigned i = 0; i < ARRAY_SIZE(ops); i++) {
      bool ddx = ops[i][2] == 'X';

      memset(&inv, 0, sizeof(inv));
      for (unsigned l = 0; l < 4; l++) {
         for (unsigned c = 0; c < 4; c++)
            inv.in[l][0][c] = fbits(in_gen[0][l][c] * (float)(c + 1));
      }
      if (!run(text("FRAG\n"
                    "DCL IN[0], GENERIC[0], PERSPECTIVE\n"
                    "DCL OUT[0], COLOR\n"
                    "  0: %s OUT[0], IN[0].wzyx\n"
                    "  1: END\n",
                    ops[i]),
               &prog, NULL, 0, &inv)) {
         vdxg_program_fini(&prog);
         continue;
      }
      for (unsigned l = 0; l < 4; l++) {
         /* DDX: right minus left lane of the row; DDY: lower minus upper. */
         unsigned lo = ddx ? l & ~1u : l & ~2u, hi = ddx ? lo + 1 : lo + 2;
         float want[4];

         for (unsigned c = 0; c < 4; c++)
            want[c] = bitsf(inv.in[hi][0][3 - c]) - bitsf(inv.in[lo][0][3 - c]);
         EXPECT_VEC(ops[i], l, inv.out[l][0], want, 0xf);
      }
      vdxg_program_fini(&prog);
   }
}

/* ---------------------------------------------------------- operands */

static const float in_mod[4][4] = {
   { 1.5f, -2.0f, 0.0f, -0.0f },
   { -0.25f, 3.0f, -7.0f, 0.5f },
   { 100.0f, -0.0f, -1e-3f, 2.0f },
   { -4.0f, 8.0f, -16.0f, 32.0f },
};

/* Swizzles, negate and absolute value (abs first), on reads of IN. */
static void
test_swizzle_modifiers(void)
{
   static const struct {
      const char *src;
      unsigned swz[4];
      bool neg, abs;
   } cases[] = {
      { "IN[0]", { 0, 1, 2, 3 }, false, false },
      { "IN[0].wzyx", { 3, 2, 1, 0 }, false, false },
      { "IN[0].yyxw", { 1, 1, 0, 3 }, false, false },
      { "IN[0].zwxy", { 2, 3, 0, 1 }, false, false },
      { "IN[0].xxxx", { 0, 0, 0, 0 }, false, false },
      { "IN[0].wwwz", { 3, 3, 3, 2 }, false, false },
      { "-IN[0]", { 0, 1, 2, 3 }, true, false },
      { "|IN[0]|", { 0, 1, 2, 3 }, false, true },
      { "-|IN[0]|", { 0, 1, 2, 3 }, true, true },
      { "-|IN[0].ywzx|", { 1, 3, 2, 0 }, true, true },
      { "-IN[0].zzyy", { 2, 2, 1, 1 }, true, false },
   };
   static struct vdxg_ref3d_invocation inv;
   struct vdxg_program prog;

   for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
      /* In the second source of an ADD too, against a first of zeros. */
      for (unsigned second = 0; second < 2; second++) {
         memset(&inv, 0, sizeof(inv));
         for (unsigned l = 0; l < 4; l++) {
            for (unsigned c = 0; c < 4; c++) {
               inv.in[l][0][c] = fbits(in_mod[l][c]);
               inv.in[l][1][c] = fbits(1.0f);
            }
         }
         if (!run(second ? text("FRAG\n"
                                "DCL IN[0], GENERIC[0], PERSPECTIVE\n"
                                "DCL IN[1], GENERIC[1], PERSPECTIVE\n"
                                "DCL OUT[0], COLOR\n"
                                "  0: MUL OUT[0], IN[1], %s\n"
                                "  1: END\n", cases[i].src)
                         : text("FRAG\n"
                                "DCL IN[0], GENERIC[0], PERSPECTIVE\n"
                                "DCL OUT[0], COLOR\n"
                                "  0: MOV OUT[0], %s\n"
                                "  1: END\n", cases[i].src),
                  &prog, NULL, 0, &inv)) {
            vdxg_program_fini(&prog);
            continue;
         }
         for (unsigned l = 0; l < 4; l++) {
            float want[4];

            for (unsigned c = 0; c < 4; c++) {
               float v = in_mod[l][cases[i].swz[c]];

               if (cases[i].abs)
                  v = fabsf(v);
               if (cases[i].neg)
                  v = -v;
               /* IN[1] is 1.0: the MUL changes nothing. */
               want[c] = second ? 1.0f * v : v;
            }
            EXPECT_VEC(cases[i].src, l, inv.out[l][0], want, 0xf);
         }
         vdxg_program_fini(&prog);
      }
   }
}

static float
sat(float x)
{
   return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f;
}

/* _SAT clamps to [0, 1], to TEMP and OUT, after the operation. */
static void
test_saturate(void)
{
   static const float a[4][4] = {
      { -2.0f, 0.5f, 1.5f, 1.0f },
      { 0.0f, 0.999f, 100.0f, -1e-3f },
      { 0.25f, -0.25f, 0.75f, 2.0f },
      { 1e-30f, -1e30f, 0.5f, 0.5f },
   };
   static const float b[4][4] = {
      { 1.0f, 0.25f, -0.75f, 0.5f },
      { 0.0f, 0.002f, -99.5f, 1e-3f },
      { 0.5f, 0.5f, 0.5f, -1.0f },
      { 0.0f, 0.0f, 0.6f, -0.6f },
   };
   static struct vdxg_ref3d_invocation inv;
   struct vdxg_program prog;

   memset(&inv, 0, sizeof(inv));
   for (unsigned l = 0; l < 4; l++) {
      for (unsigned c = 0; c < 4; c++) {
         inv.in[l][0][c] = fbits(a[l][c]);
         inv.in[l][1][c] = fbits(b[l][c]);
      }
   }
   if (run("FRAG\n"
           "DCL IN[0], GENERIC[0], PERSPECTIVE\n"
           "DCL IN[1], GENERIC[1], PERSPECTIVE\n"
           "DCL OUT[0], COLOR\n"
           "DCL TEMP[0]\n"
           "  0: ADD_SAT TEMP[0], IN[0], IN[1]\n"
           "  1: MUL TEMP[0], TEMP[0], IN[1]\n"
           "  2: MOV_SAT OUT[0], TEMP[0]\n"
           "  3: END\n",
           &prog, NULL, 0, &inv)) {
      for (unsigned l = 0; l < 4; l++) {
         float want[4];

         for (unsigned c = 0; c < 4; c++)
            want[c] = sat(sat(a[l][c] + b[l][c]) * b[l][c]);
         EXPECT_VEC("ADD_SAT, MUL, MOV_SAT", l, inv.out[l][0], want, 0xf);
      }
   }
   vdxg_program_fini(&prog);

   /* And without _SAT nothing is clamped. */
   if (run("FRAG\n"
           "DCL IN[0], GENERIC[0], PERSPECTIVE\n"
           "DCL IN[1], GENERIC[1], PERSPECTIVE\n"
           "DCL OUT[0], COLOR\n"
           "  0: ADD OUT[0], IN[0], IN[1]\n"
           "  1: END\n",
           &prog, NULL, 0, &inv)) {
      for (unsigned l = 0; l < 4; l++) {
         float want[4];

         for (unsigned c = 0; c < 4; c++)
            want[c] = a[l][c] + b[l][c];
         EXPECT_VEC("ADD", l, inv.out[l][0], want, 0xf);
      }
   }
   vdxg_program_fini(&prog);
}

/* Write masks on TEMP and OUT: the other channels keep their values. */
static void
test_write_masks(void)
{
   static const char *const masks[16] = {
      NULL, ".x", ".y", ".xy", ".z", ".xz", ".yz", ".xyz",
      ".w", ".xw", ".yw", ".xyw", ".zw", ".xzw", ".yzw", "",
   };
   static struct vdxg_ref3d_invocation inv;
   struct vdxg_program prog;

   for (unsigned m = 1; m < 16; m++) {
      memset(&inv, 0, sizeof(inv));
      for (unsigned l = 0; l < 4; l++) {
         for (unsigned c = 0; c < 4; c++)
            inv.in[l][0][c] = fbits(in_gen[0][l][c]);
      }
      /* TEMP[0] = IMM[0], then IN[0] through the mask; OUT[0] the same
       * (OUT starts at 0 on the device), and OUT[0].x written last. */
      if (!run(text("FRAG\n"
                    "DCL IN[0], GENERIC[0], PERSPECTIVE\n"
                    "DCL OUT[0], COLOR\n"
                    "DCL TEMP[0..1]\n"
                    "IMM[0] FLT32 { 10.0, 20.0, 30.0, 40.0 }\n"
                    "  0: MOV TEMP[0], IMM[0]\n"
                    "  1: MOV TEMP[0]%s, IN[0]\n"
                    "  2: MOV OUT[0]%s, TEMP[0].wzyx\n"
                    "  3: END\n",
                    masks[m], masks[m]),
               &prog, NULL, 0, &inv)) {
         vdxg_program_fini(&prog);
         continue;
      }
      for (unsigned l = 0; l < 4; l++) {
         float t[4], want[4];

         for (unsigned c = 0; c < 4; c++)
            t[c] = (m & (1u << c)) ? in_gen[0][l][c] : 10.0f * (c + 1);
         for (unsigned c = 0; c < 4; c++)
            want[c] = (m & (1u << c)) ? t[3 - c] : 0.0f;
         EXPECT_VEC(masks[m][0] ? masks[m] : ".xyzw", l, inv.out[l][0],
                    want, 0xf);
      }
      vdxg_program_fini(&prog);
   }
}

/* --------------------------------------------- CONST, ADDR and IMM */

static float consts[16][4];

static void
init_consts(void)
{
   for (unsigned i = 0; i < ARRAY_SIZE(consts); i++) {
      for (unsigned c = 0; c < 4; c++)
         consts[i][c] = (float)(i * 10 + c) + 0.5f;
   }
}

static void
test_consts(void)
{
   static struct vdxg_ref3d_invocation inv;
   struct vdxg_program prog;

   init_consts();

   /* Direct, one- and two-dimensional: num_consts is the highest + 1. */
   memset(&inv, 0, sizeof(inv));
   if (run("FRAG\n"
           "DCL OUT[0], COLOR\n"
           "DCL CONST[0..5]\n"
           "DCL TEMP[0]\n"
           "  0: ADD TEMP[0], CONST[2], -CONST[5].wzyx\n"
           "  1: MUL OUT[0], TEMP[0], |CONST[0].yyyy|\n"
           "  2: END\n",
           &prog, (const float (*)[4])consts, 6, &inv)) {
      CHECK(prog.num_consts == 6, "num_consts %u, want 6", prog.num_consts);
      CHECK(!prog.relative_consts, "relative_consts without ADDR");
      for (unsigned l = 0; l < 4; l++) {
         float want[4];

         for (unsigned c = 0; c < 4; c++)
            want[c] = (consts[2][c] + -consts[5][3 - c]) * consts[0][1];
         EXPECT_VEC("CONST", l, inv.out[l][0], want, 0xf);
      }
   }
   vdxg_program_fini(&prog);

   memset(&inv, 0, sizeof(inv));
   if (run("VERT\n"
           "DCL OUT[0], POSITION\n"
           "DCL CONST[0][0..3]\n"
           "  0: MOV OUT[0], CONST[0][3].yxwz\n"
           "  1: END\n",
           &prog, (const float (*)[4])consts, 4, &inv)) {
      float want[4] = {
         consts[3][1], consts[3][0], consts[3][3], consts[3][2],
      };

      CHECK(prog.num_consts == 4, "num_consts %u, want 4", prog.num_consts);
      CHECK(!prog.relative_consts, "relative_consts without ADDR");
      EXPECT_VEC("CONST[0][3]", 0, inv.out[0][0], want, 0xf);
   }
   vdxg_program_fini(&prog);

   /* ARL then CONST[ADDR[0].x + n]: floor, negative, offsets. */
   static const float ax[4] = { 0.5f, 1.9f, -1.5f, 3.0f };
   static const char *const forms[] = {
      "CONST[ADDR[0].x+2]", "CONST[0][ADDR[0].x+2]",
   };

   for (unsigned f = 0; f < ARRAY_SIZE(forms); f++) {
      memset(&inv, 0, sizeof(inv));
      for (unsigned l = 0; l < 4; l++) {
         inv.in[l][0][0] = fbits(9.0f);
         inv.in[l][0][1] = fbits(ax[l]);
      }
      if (!run(text("FRAG\n"
                    "DCL IN[0], GENERIC[0], PERSPECTIVE\n"
                    "DCL OUT[0], COLOR\n"
                    "DCL CONST[0][0..7]\n"
                    "DCL ADDR[0]\n"
                    "  0: ARL ADDR[0].x, IN[0].yyyy\n"
                    "  1: ADD OUT[0], %s, CONST[1].xxxx\n"
                    "  2: END\n",
                    forms[f]),
               &prog, (const float (*)[4])consts, 8, &inv)) {
         vdxg_program_fini(&prog);
         continue;
      }
      CHECK(prog.num_consts == 2, "num_consts %u, want 2", prog.num_consts);
      CHECK(prog.relative_consts, "relative_consts not recorded");
      for (unsigned l = 0; l < 4; l++) {
         int index = (int)floorf(ax[l]) + 2;
         float want[4];

         for (unsigned c = 0; c < 4; c++)
            want[c] = consts[index][c] + consts[1][0];
         EXPECT_VEC(forms[f], l, inv.out[l][0], want, 0xf);
      }
      vdxg_program_fini(&prog);
   }

   /* Only relative reads: nothing direct to record; no offset. */
   memset(&inv, 0, sizeof(inv));
   inv.in[0][0][0] = fbits(4.75f);
   if (run("VERT\n"
           "DCL IN[0]\n"
           "DCL OUT[0], POSITION\n"
           "DCL CONST[0..7]\n"
           "DCL ADDR[0]\n"
           "DCL TEMP[0]\n"
           "  0: ADD TEMP[0], IN[0], IN[0]\n"
           "  1: ARL ADDR[0].x, TEMP[0].xxxx\n"
           "  2: MOV OUT[0], -CONST[ADDR[0].x].wxyz\n"
           "  3: END\n",
           &prog, (const float (*)[4])consts, 16, &inv)) {
      float want[4] = {
         -consts[9][3], -consts[9][0], -consts[9][1], -consts[9][2],
      };

      CHECK(prog.num_consts == 0, "num_consts %u, want 0", prog.num_consts);
      CHECK(prog.relative_consts, "relative_consts not recorded");
      EXPECT_VEC("CONST[ADDR[0].x]", 0, inv.out[0][0], want, 0xf);
   }
   vdxg_program_fini(&prog);
}

static void
test_immediates(void)
{
   static struct vdxg_ref3d_invocation inv;
   struct vdxg_program prog;
   const float i0[4] = { 1.5f, -2.0f, 0.25f, 1e10f };
   const float i1[4] = { 3.0f, 0.5f, -0.0f, 7.0f };
   const float i2[4] = { 0.1f, 0.2f, 0.3f, 0.4f };

   memset(&inv, 0, sizeof(inv));
   if (run("FRAG\n"
           "DCL OUT[0], COLOR\n"
           "DCL TEMP[0]\n"
           "IMM[0] FLT32 { 1.5, -2.0, 0.25, 1e10 }\n"
           "IMM[1] FLT32 { 3.0, 0.5, -0.0, 7.0 }\n"
           "IMM[2] FLT32 { 0.1, 0.2, 0.3, 0.4 }\n"
           "  0: ADD TEMP[0], IMM[0], IMM[1].wzyx\n"
           "  1: MAD OUT[0], TEMP[0], IMM[2].yyyy, -IMM[1]\n"
           "  2: END\n",
           &prog, NULL, 0, &inv)) {
      for (unsigned l = 0; l < 4; l++) {
         float want[4];

         for (unsigned c = 0; c < 4; c++)
            want[c] = (i0[c] + i1[3 - c]) * i2[1] + -i1[c];
         EXPECT_VEC("IMM", l, inv.out[l][0], want, 0xf);
      }
   }
   vdxg_program_fini(&prog);

   /* Bits pass unchanged: a UINT32 immediate holding floats' bits. */
   memset(&inv, 0, sizeof(inv));
   if (run("VERT\n"
           "DCL OUT[0], POSITION\n"
           "IMM[0] UINT32 { 1065353216, 3221225472, 1, 2139095040 }\n"
           "  0: MOV OUT[0], IMM[0]\n"
           "  1: END\n",
           &prog, NULL, 0, &inv)) {
      float want[4] = { 1.0f, -2.0f, bitsf(1), INFINITY };

      EXPECT_VEC("IMM UINT32", 0, inv.out[0][0], want, 0xf);
   }
   vdxg_program_fini(&prog);
}

/* ------------------------------------------------------ control flow */

static void
test_control_flow(void)
{
   /* IN[0]: loop count n, the i skipped by CONT, the IF's condition, the
    * limit past which KILL_IF in the loop discards; IN[1]: KILL_IF at the
    * end. */
   static const float in0[4][4] = {
      { 4.0f, 2.0f, 1.0f, 100.0f },
      { 3.0f, 7.0f, -0.0f, 100.0f },
      { 5.0f, 0.0f, NAN, 5.0f },
      { 2.0f, 1.0f, 0.0f, 100.0f },
   };
   static const float in1[4][4] = {
      { 1.0f, 1.0f, 1.0f, 1.0f },
      { 0.0f, 0.0f, 0.0f, -0.0f },
      { 1.0f, 1.0f, 1.0f, 1.0f },
      { 1.0f, 2.0f, -0.5f, 3.0f },
   };
   static struct vdxg_ref3d_invocation inv;
   struct vdxg_program prog;
   unsigned live = 0;

   memset(&inv, 0, sizeof(inv));
   for (unsigned l = 0; l < 4; l++) {
      for (unsigned c = 0; c < 4; c++) {
         inv.in[l][0][c] = fbits(in0[l][c]);
         inv.in[l][1][c] = fbits(in1[l][c]);
      }
   }
   if (!run("FRAG\n"
            "DCL IN[0], GENERIC[0], PERSPECTIVE\n"
            "DCL IN[1], GENERIC[1], PERSPECTIVE\n"
            "DCL OUT[0], COLOR\n"
            "DCL TEMP[0..2]\n"
            "IMM[0] FLT32 { 0.0, 1.0, 2.0, 3.0 }\n"
            "  0: MOV TEMP[0], IMM[0].xxxx\n"
            "  1: MOV TEMP[1], IMM[0].xxxx\n"
            "  2: BGNLOOP\n"
            "  3:   SGE TEMP[2].x, TEMP[0].xxxx, IN[0].xxxx\n"
            "  4:   IF TEMP[2].xxxx\n"
            "  5:     BRK\n"
            "  6:   ENDIF\n"
            "  7:   ADD TEMP[0].x, TEMP[0].xxxx, IMM[0].yyyy\n"
            "  8:   SEQ TEMP[2].x, TEMP[0].xxxx, IN[0].yyyy\n"
            "  9:   IF TEMP[2].xxxx\n"
            " 10:     CONT\n"
            " 11:   ENDIF\n"
            " 12:   ADD TEMP[1].x, TEMP[1].xxxx, TEMP[0].xxxx\n"
            " 13:   ADD TEMP[2].x, IN[0].wwww, -TEMP[1].xxxx\n"
            " 14:   KILL_IF TEMP[2].xxxx\n"
            " 15: ENDLOOP\n"
            " 16: MOV OUT[0].x, TEMP[1].xxxx\n"
            " 17: IF IN[0].zzzz\n"
            " 18:   MOV OUT[0].y, IMM[0].zzzz\n"
            " 19: ELSE\n"
            " 20:   MOV OUT[0].y, IMM[0].wwww\n"
            " 21: ENDIF\n"
            " 22: MOV OUT[0].zw, TEMP[0].xxxx\n"
            " 23: KILL_IF IN[1]\n"
            " 24: END\n",
            &prog, NULL, 0, &inv)) {
      vdxg_program_fini(&prog);
      return;
   }
   for (unsigned l = 0; l < 4; l++) {
      float n = in0[l][0], skip = in0[l][1], cond = in0[l][2];
      float lim = in0[l][3], i = 0.0f, acc = 0.0f, want[4];
      bool killed = false;

      for (;;) {
         if (i >= n)
            break;
         i = i + 1.0f;
         if (i == skip)
            continue;
         acc = acc + i;
         if (lim - acc < 0.0f) {
            killed = true;
            break;
         }
      }
      for (unsigned c = 0; c < 4; c++)
         killed |= in1[l][c] < 0.0f;
      if (!killed)
         live |= 1u << l;
      want[0] = acc;
      want[1] = cond != 0.0f ? 2.0f : 3.0f;
      want[2] = want[3] = i;
      if (!killed)
         EXPECT_VEC("loop, IF/ELSE", l, inv.out[l][0], want, 0xf);
   }
   CHECK(live == 0x3, "the lanes left: want 0x3");
   CHECK(inv.live == live, "live 0x%x, want 0x%x", inv.live, live);
   vdxg_program_fini(&prog);

   /* KILL under IF; NaN and -0.0 conditions. */
   static const float x[4] = { 0.0f, 1.0f, -0.0f, NAN };

   memset(&inv, 0, sizeof(inv));
   for (unsigned l = 0; l < 4; l++)
      inv.in[l][0][0] = fbits(x[l]);
   if (run("FRAG\n"
           "DCL IN[0], GENERIC[0], PERSPECTIVE\n"
           "DCL OUT[0], COLOR\n"
           "  0: IF IN[0].xxxx\n"
           "  1:   KILL\n"
           "  2: ENDIF\n"
           "  3: MOV OUT[0], IN[0].xxxx\n"
           "  4: END\n",
           &prog, NULL, 0, &inv)) {
      CHECK(inv.live == 0x5, "KILL under IF: live 0x%x, want 0x5",
            inv.live);
      for (unsigned l = 0; l < 4; l += 2) {
         float want[4] = { x[l], x[l], x[l], x[l] };

         EXPECT_VEC("after KILL", l, inv.out[l][0], want, 0xf);
      }
   }
   vdxg_program_fini(&prog);
}

/* ------------------------------------------------------- the inputs */

static float
slot_value(unsigned lane, unsigned slot, unsigned c)
{
   return (float)(1000 * lane + 10 * slot + c) + 0.25f;
}

static void
test_fs_inputs(void)
{
   /* TGSI input -> device slot. */
   static const unsigned slots[] = { 8, 0, 9, 1, 2, 10, 3 };
   static const struct vdxg_semantic varyings[] = {
      { TGSI_SEMANTIC_GENERIC, 3 },
      { TGSI_SEMANTIC_GENERIC, 0 },
      { TGSI_SEMANTIC_GENERIC, 1 },
      { TGSI_SEMANTIC_COLOR, 1 },
   };
   static struct vdxg_ref3d_invocation inv;
   struct vdxg_program prog;

   for (unsigned k = 0; k < ARRAY_SIZE(slots); k++) {
      memset(&inv, 0, sizeof(inv));
      for (unsigned l = 0; l < 4; l++) {
         for (unsigned s = 0; s < VDXG_3D_FS_INPUTS; s++) {
            for (unsigned c = 0; c < 4; c++)
               inv.in[l][s][c] = fbits(slot_value(l, s, c));
         }
      }
      if (!run(text("FRAG\n"
                    "DCL IN[0], POSITION, LINEAR\n"
                    "DCL IN[1], GENERIC[3], PERSPECTIVE\n"
                    "DCL IN[2], FACE, CONSTANT\n"
                    "DCL IN[3..4], GENERIC[0], PERSPECTIVE\n"
                    "DCL IN[5], PCOORD, LINEAR\n"
                    "DCL IN[6], COLOR[1], COLOR\n"
                    "DCL OUT[0], COLOR\n"
                    "  0: MOV OUT[0], IN[%u]\n"
                    "  1: END\n",
                    k),
               &prog, NULL, 0, &inv)) {
         vdxg_program_fini(&prog);
         continue;
      }
      if (k == 0) {
         CHECK(prog.num_varyings == ARRAY_SIZE(varyings),
               "num_varyings %u, want %u", prog.num_varyings,
               (unsigned)ARRAY_SIZE(varyings));
         for (unsigned v = 0; v < ARRAY_SIZE(varyings); v++) {
            CHECK(prog.varyings[v].name == varyings[v].name &&
                  prog.varyings[v].index == varyings[v].index,
                  "varying %u: semantic %u.%u, want %u.%u", v,
                  prog.varyings[v].name, prog.varyings[v].index,
                  varyings[v].name, varyings[v].index);
         }
         CHECK(prog.stage == VDXG_3D_STAGE_FRAGMENT, "stage %u",
               prog.stage);
      }
      for (unsigned l = 0; l < 4; l++) {
         float want[4];
         char what[32];

         for (unsigned c = 0; c < 4; c++)
            want[c] = slot_value(l, slots[k], c);
         snprintf(what, sizeof(what), "IN[%u] from slot %u", k, slots[k]);
         EXPECT_VEC(what, l, inv.out[l][0], want, 0xf);
      }
      vdxg_program_fini(&prog);
   }
}

/* ---------------------------------------------------------- linking */

static const char vs_link_text[] =
   "VERT\n"
   "DCL IN[0]\n"
   "DCL IN[1]\n"
   "DCL OUT[0], POSITION\n"
   "DCL OUT[1..2], GENERIC[0]\n"
   "DCL OUT[3], PSIZE\n"
   "DCL OUT[4], GENERIC[2]\n"
   "DCL OUT[5], COLOR[0]\n"
   "  0: MOV OUT[0], IN[0]\n"
   "  1: ADD OUT[1], IN[0], IN[1]\n"
   "  2: MOV OUT[2].xy, IN[1].zwxy\n"
   "  3: MOV OUT[3].x, IN[1].wwww\n"
   "  4: MUL OUT[4], IN[0], IN[1]\n"
   "  5: MOV OUT[5], IN[0].wzyx\n"
   "  6: MOV OUT[2].zw, IN[0]\n"
   "  7: END\n";

static const float vs_in[2][4] = {
   { 1.5f, -2.0f, 3.25f, 0.5f },
   { 7.0f, 0.125f, -4.0f, 9.5f },
};

/* What the vertex program above writes to each of its TGSI outputs. */
static void
vs_link_outputs(float out[6][4])
{
   const float *a = vs_in[0], *b = vs_in[1];

   for (unsigned c = 0; c < 4; c++) {
      out[0][c] = a[c];
      out[1][c] = a[c] + b[c];
      out[3][c] = 0.0f;
      out[4][c] = a[c] * b[c];
      out[5][c] = a[3 - c];
   }
   out[2][0] = b[2];
   out[2][1] = b[3];
   out[2][2] = a[2];
   out[2][3] = a[3];
   out[3][0] = b[3];
}

/*
 * VS linked for a fragment program declaring FS_DECLS (its varyings in
 * order: TGSI output index of each, -1 for one the VS does not write).
 */
static void
link_one(const struct vdxg_program *vs, const char *fs_decls,
         const int *fs_reads, unsigned num_reads)
{
   static struct vdxg_ref3d_invocation inv;
   struct vdxg_program fs;
   float vs_out[6][4];
   uint32_t *dw;
   char msg[128];

   vs_link_outputs(vs_out);
   if (!compile_ok(text("FRAG\n"
                        "%s"
                        "DCL OUT[0], COLOR\n"
                        "  0: MOV OUT[0], IN[0]\n"
                        "  1: END\n",
                        fs_decls),
                   &fs)) {
      vdxg_program_fini(&fs);
      return;
   }
   cur_text = vs_link_text;
   cur_prog = vs;
   CHECK(fs.num_varyings == num_reads, "FS num_varyings %u, want %u",
         fs.num_varyings, num_reads);
   dw = vdxg_tgsi_link(vs, fs.varyings, fs.num_varyings);
   if (!CHECK(dw, "vdxg_tgsi_link failed")) {
      vdxg_program_fini(&fs);
      return;
   }
   CHECK(vdxg_program_check(dw, vs->size, NULL, msg, sizeof(msg)) == 0,
         "the linked program fails the device's check: %s", msg);
   /* The unlinked program is not changed. */
   CHECK(memcmp(dw, vs->dw, 16) == 0, "the header changed");

   vdxg_ref3d_init(&ctx);
   memset(&inv, 0, sizeof(inv));
   for (unsigned i = 0; i < 2; i++) {
      for (unsigned c = 0; c < 4; c++)
         inv.in[0][i][c] = fbits(vs_in[i][c]);
   }
   inv.live = 1;
   if (bind_program(VDXG_3D_STAGE_VERTEX, dw, vs->size) &&
       invoke(VDXG_3D_STAGE_VERTEX, &inv)) {
      static const float zero[4];
      float psize[4] = { vs_out[3][0] };

      EXPECT_VEC("linked POSITION", 0, inv.out[0][0], vs_out[0], 0xf);
      EXPECT_VEC("linked POINT_SIZE", 0, inv.out[0][1], psize, 0x1);
      CHECK(ctx.prog[VDXG_3D_STAGE_VERTEX].writes_point_size,
            "the device sees no OUT[1] write");
      for (unsigned k = 0; k < VDXG_3D_NUM_VARYINGS; k++) {
         const float *want = k < num_reads && fs_reads[k] >= 0
                                ? vs_out[fs_reads[k]] : zero;
         char what[48];

         snprintf(what, sizeof(what), "OUT[%u] (varying %u)",
                  VDXG_VS_OUT_VARYING(k), k);
         EXPECT_VEC(what, 0, inv.out[0][VDXG_VS_OUT_VARYING(k)], want, 0xf);
      }
   }
   free(dw);
   vdxg_program_fini(&fs);
}

static void
test_link(void)
{
   struct vdxg_program vs;

   if (!compile_ok(vs_link_text, &vs)) {
      vdxg_program_fini(&vs);
      return;
   }
   CHECK(vs.stage == VDXG_3D_STAGE_VERTEX, "stage %u", vs.stage);
   CHECK(vs.writes_point_size, "writes_point_size not recorded");
   CHECK(vs.num_outputs == 6, "num_outputs %u, want 6", vs.num_outputs);
   /* ADD, MOV .xy, MUL, MOV, MOV .zw write varyings. */
   CHECK(vs.num_link_insns == 5, "num_link_insns %u, want 5",
         vs.num_link_insns);

   {
      static const int reads[] = { 4, 5, 2 };

      link_one(&vs,
               "DCL IN[0], GENERIC[2], PERSPECTIVE\n"
               "DCL IN[1], COLOR[0], COLOR\n"
               "DCL IN[2], GENERIC[1], PERSPECTIVE\n",
               reads, ARRAY_SIZE(reads));
   }
   {
      /* GENERIC[7] is the VS's nothing: its slot stays 0. */
      static const int reads[] = { 1, -1, 2, 4, 5 };

      link_one(&vs,
               "DCL IN[0], GENERIC[0], PERSPECTIVE\n"
               "DCL IN[1], GENERIC[7], PERSPECTIVE\n"
               "DCL IN[2..3], GENERIC[1], PERSPECTIVE\n"
               "DCL IN[4], COLOR[0], COLOR\n",
               reads, ARRAY_SIZE(reads));
   }
   {
      /* Nothing of it read: only POSITION and POINT_SIZE are written. */
      static const int reads[] = { -1 };

      link_one(&vs, "DCL IN[0], COLOR[1], COLOR\n", reads,
               ARRAY_SIZE(reads));
   }
   {
      /* Only non-varying inputs: no varyings at all. */
      link_one(&vs, "DCL IN[0], POSITION, LINEAR\n", NULL, 0);
   }
   vdxg_program_fini(&vs);

   /* Eight varyings, read in a permuted order. */
   static const unsigned perm[8] = { 7, 0, 6, 1, 5, 2, 4, 3 };
   static struct vdxg_ref3d_invocation inv;
   struct vdxg_program fs;
   char vs_text[2048], fs_text[2048];
   int n = 0, m = 0;

   n += snprintf(vs_text + n, sizeof(vs_text) - n,
                 "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\n");
   for (unsigned k = 0; k < 8; k++)
      n += snprintf(vs_text + n, sizeof(vs_text) - n,
                    "DCL OUT[%u], GENERIC[%u]\n", 8 - k, k);
   for (unsigned k = 0; k < 8; k++)
      n += snprintf(vs_text + n, sizeof(vs_text) - n,
                    "IMM[%u] FLT32 { %u.0, %u.5, -%u.0, %u.25 }\n", k, k,
                    k, k, k);
   n += snprintf(vs_text + n, sizeof(vs_text) - n, "MOV OUT[0], IN[0]\n");
   for (unsigned k = 0; k < 8; k++)
      n += snprintf(vs_text + n, sizeof(vs_text) - n,
                    "ADD OUT[%u], IN[0], IMM[%u]\n", 8 - k, k);
   snprintf(vs_text + n, sizeof(vs_text) - n, "END\n");
   m += snprintf(fs_text + m, sizeof(fs_text) - m, "FRAG\n");
   for (unsigned k = 0; k < 8; k++)
      m += snprintf(fs_text + m, sizeof(fs_text) - m,
                    "DCL IN[%u], GENERIC[%u], PERSPECTIVE\n", k, perm[k]);
   snprintf(fs_text + m, sizeof(fs_text) - m,
            "DCL OUT[0], COLOR\nMOV OUT[0], IN[7]\nEND\n");

   if (compile_ok(fs_text, &fs) && compile_ok(vs_text, &vs)) {
      uint32_t *dw = vdxg_tgsi_link(&vs, fs.varyings, fs.num_varyings);

      CHECK(!vs.writes_point_size, "writes_point_size without PSIZE");
      CHECK(fs.num_varyings == 8, "num_varyings %u", fs.num_varyings);
      vdxg_ref3d_init(&ctx);
      memset(&inv, 0, sizeof(inv));
      for (unsigned c = 0; c < 4; c++)
         inv.in[0][0][c] = fbits(0.5f * (c + 1));
      inv.live = 1;
      if (CHECK(dw, "vdxg_tgsi_link failed") &&
          bind_program(VDXG_3D_STAGE_VERTEX, dw, vs.size) &&
          invoke(VDXG_3D_STAGE_VERTEX, &inv)) {
         for (unsigned k = 0; k < 8; k++) {
            float g = (float)perm[k];
            float want[4] = {
               0.5f + g, 1.0f + (g + 0.5f), 1.5f + -g, 2.0f + (g + 0.25f),
            };
            char what[48];

            snprintf(what, sizeof(what), "8 varyings: OUT[%u]", 2 + k);
            EXPECT_VEC(what, 0, inv.out[0][2 + k], want, 0xf);
         }
      }
      free(dw);
   }
   vdxg_program_fini(&fs);
   vdxg_program_fini(&vs);
}

/* ---------------------------------------------------------- textures */

/* ABGR8888 (R in the low byte): unit 2 2D 2x2 + 1x1, unit 5 cube 1x1. */
static uint8_t tex2d[5][4], texcube[6][4];

static void
init_textures(void)
{
   for (unsigned k = 0; k < 5; k++) {
      tex2d[k][0] = 16 + 40 * k;
      tex2d[k][1] = 200 - 30 * k;
      tex2d[k][2] = 5 + 50 * k;
      tex2d[k][3] = 255 - 7 * k;
   }
   for (unsigned f = 0; f < 6; f++) {
      texcube[f][0] = 1 + 40 * f;
      texcube[f][1] = 250 - 40 * f;
      texcube[f][2] = 100 + 10 * f;
      texcube[f][3] = 128 + f;
   }
}

static void
texel(const uint8_t *t, float out[4])
{
   for (unsigned c = 0; c < 4; c++)
      out[c] = (float)t[c] / 255.0f;
}

/*
 * TGSI's texture_sample() of unit 2 (nearest filters, nearest mipmap,
 * clamp to edge): the level the LOD selects (magnified at LOD <= 0),
 * then the texel holding (s, t).
 */
static void
sample2d(float s, float t, float lod, float out[4])
{
   int level = lod <= 0.0f ? 0 : (int)floorf(lod + 0.5f);

   if (level >= 1) {
      texel(tex2d[4], out);
      return;
   }
   int i = CLAMP((int)floorf(s * 2.0f), 0, 1);
   int j = CLAMP((int)floorf(t * 2.0f), 0, 1);
   texel(tex2d[j * 2 + i], out);
}

/* The LOD of a 2x2 texture from the derivatives of (s, t). */
static float
lod_of(float dsdx, float dtdx, float dsdy, float dtdy)
{
   float px = (dsdx * 2.0f) * (dsdx * 2.0f) + (dtdx * 2.0f) * (dtdx * 2.0f);
   float py = (dsdy * 2.0f) * (dsdy * 2.0f) + (dtdy * 2.0f) * (dtdy * 2.0f);

   return 0.5f * log2f(MAX2(px, py));
}

/* The implicit LOD: the derivatives of COORD[lane] across the quad. */
static float
implicit_lod(const float coord[4][4], unsigned lane)
{
   unsigned x0 = lane & ~1u, y0 = lane & ~2u;

   return lod_of(coord[x0 + 1][0] - coord[x0][0],
                 coord[x0 + 1][1] - coord[x0][1],
                 coord[y0 + 2][0] - coord[y0][0],
                 coord[y0 + 2][1] - coord[y0][1]);
}

static void
test_textures(void)
{
   static struct vdxg_ref3d_invocation inv;
   struct vdxg_program prog;
   enum { TEX, TXB, TXL, TXP, TXD, TEX_LOD1 };
   static const struct {
      const char *op, *srcs;
      int kind;
   } ops[] = {
      { "TEX", "IN[0]", TEX },
      { "TEX", "IN[0]", TEX_LOD1 },
      { "TXB", "IN[0]", TXB },
      { "TXL", "IN[0]", TXL },
      { "TXP", "IN[0]", TXP },
      { "TXD", "IN[0], IN[1], IN[2]", TXD },
   };
   /* (s, t) 0.5 apart across the quad: LOD 0; 1.0 apart: LOD 1. */
   static const float bias[4] = { -1.0f, -0.8f, -0.3f, 0.5f };
   static const float ddx[4][2] = { { 1, 0 }, { 1, 0 }, { 0.5f, 0 }, { 0, 0 } };
   static const float ddy[4][2] = {
      { 0, 0.25f }, { 0, 0.25f }, { 0, 0.25f }, { 0, 2.0f },
   };

   init_textures();
   for (unsigned i = 0; i < ARRAY_SIZE(ops); i++) {
      float coord[4][4], sc[4][4];
      int kind = ops[i].kind;

      memset(&inv, 0, sizeof(inv));
      for (unsigned l = 0; l < 4; l++) {
         float step = kind == TXB || kind == TXL || kind == TEX_LOD1 ? 1.0f
                                                                      : 0.5f;
         float w = kind == TXP ? 2.0f : kind == TXB || kind == TXL ? bias[l]
                                                                   : 1.0f;

         /* The coordinate sampled... */
         sc[l][0] = 0.25f + step * (l & 1);
         sc[l][1] = 0.25f + step * (l >> 1);
         sc[l][2] = 0.0f;
         sc[l][3] = w;
         /* ... and the one given (TXP's is multiplied by w). */
         memcpy(coord[l], sc[l], sizeof(sc[l]));
         if (kind == TXP) {
            coord[l][0] = sc[l][0] * w;
            coord[l][1] = sc[l][1] * w;
         }
         for (unsigned c = 0; c < 4; c++) {
            inv.in[l][0][c] = fbits(coord[l][c]);
            inv.in[l][1][c] = fbits(c < 2 ? ddx[l][c] : 0.0f);
            inv.in[l][2][c] = fbits(c < 2 ? ddy[l][c] : 0.0f);
         }
      }
      if (!compile_ok(text("FRAG\n"
                           "DCL IN[0], GENERIC[0], PERSPECTIVE\n"
                           "DCL IN[1], GENERIC[1], PERSPECTIVE\n"
                           "DCL IN[2], GENERIC[2], PERSPECTIVE\n"
                           "DCL OUT[0], COLOR\n"
                           "DCL SAMP[2]\n"
                           "DCL SVIEW[2], 2D, FLOAT\n"
                           "  0: %s OUT[0], %s, SAMP[2], 2D\n"
                           "  1: END\n",
                           ops[i].op, ops[i].srcs),
                      &prog)) {
         vdxg_program_fini(&prog);
         continue;
      }
      CHECK(prog.units_used == 0x4 && prog.units_cube == 0,
            "%s: units_used 0x%x, units_cube 0x%x", ops[i].op,
            prog.units_used, prog.units_cube);
      vdxg_ref3d_init(&ctx);
      inv.live = 0xf;
      if (bind_program(prog.stage, prog.dw, prog.size) &&
          set_reg(VDXG_3D_SAMPLER(2),
                  VDXG_SAMPLER_MIP(VDXG_MIP_NEAREST) |
                  VDXG_SAMPLER_WRAP_S(VDXG_WRAP_CLAMP) |
                  VDXG_SAMPLER_WRAP_T(VDXG_WRAP_CLAMP)) &&
          bind_texture(2, tex2d, sizeof(tex2d),
                       VDXG_TEX_DESC(VDXG_FMT_ABGR8888, 2, false), 2, 2) &&
          invoke(VDXG_3D_STAGE_FRAGMENT, &inv)) {
         for (unsigned l = 0; l < 4; l++) {
            float lod, want[4];
            char what[32];

            switch (kind) {
            case TXL:
               lod = sc[l][3];
               break;
            case TXB:
               lod = implicit_lod(sc, l) + sc[l][3];
               break;
            case TXD:
               lod = lod_of(ddx[l][0], ddx[l][1], ddy[l][0], ddy[l][1]);
               break;
            default:
               lod = implicit_lod(sc, l);
               break;
            }
            sample2d(sc[l][0], sc[l][1], lod, want);
            snprintf(what, sizeof(what), "%s (case %u)", ops[i].op, i);
            EXPECT_VEC(what, l, inv.out[l][0], want, 0xf);
         }
      }
      vdxg_program_fini(&prog);
   }

   /* A cube on unit 5: the face of the major axis. */
   static const float dir[4][4] = {
      { 1.0f, 0.2f, -0.3f, 0.0f },   /* +X */
      { 0.1f, -2.0f, 0.5f, 0.0f },   /* -Y */
      { 0.2f, 0.3f, -1.0f, 0.0f },   /* -Z */
      { -3.0f, 1.0f, 2.0f, 0.0f },   /* -X */
   };
   static const unsigned face[4] = { 0, 3, 5, 1 };

   memset(&inv, 0, sizeof(inv));
   for (unsigned l = 0; l < 4; l++) {
      for (unsigned c = 0; c < 4; c++)
         inv.in[l][0][c] = fbits(dir[l][c]);
   }
   if (compile_ok("FRAG\n"
                  "DCL IN[0], GENERIC[0], PERSPECTIVE\n"
                  "DCL OUT[0], COLOR\n"
                  "DCL SAMP[5]\n"
                  "DCL SVIEW[5], CUBE, FLOAT\n"
                  "  0: TEX OUT[0], IN[0], SAMP[5], CUBE\n"
                  "  1: END\n",
                  &prog)) {
      CHECK(prog.units_used == 0x20 && prog.units_cube == 0x20,
            "cube: units_used 0x%x, units_cube 0x%x", prog.units_used,
            prog.units_cube);
      vdxg_ref3d_init(&ctx);
      inv.live = 0xf;
      if (bind_program(prog.stage, prog.dw, prog.size) &&
          bind_texture(5, texcube, sizeof(texcube),
                       VDXG_TEX_DESC(VDXG_FMT_ABGR8888, 1, true), 1, 1) &&
          invoke(VDXG_3D_STAGE_FRAGMENT, &inv)) {
         for (unsigned l = 0; l < 4; l++) {
            float want[4];

            texel(texcube[face[l]], want);
            EXPECT_VEC("TEX CUBE", l, inv.out[l][0], want, 0xf);
         }
      }
   }
   vdxg_program_fini(&prog);
}

/* ------------------------------------------------------------- info */

static void
test_info(void)
{
   static struct vdxg_ref3d_invocation inv;
   struct vdxg_program prog;

   /* The colour at TGSI OUT[2] is the device's OUT[0]. */
   memset(&inv, 0, sizeof(inv));
   for (unsigned l = 0; l < 4; l++) {
      for (unsigned c = 0; c < 4; c++)
         inv.in[l][0][c] = fbits(in_gen[0][l][c]);
   }
   if (run("FRAG\n"
           "DCL IN[0], GENERIC[0], PERSPECTIVE\n"
           "DCL OUT[2], COLOR\n"
           "  0: MOV OUT[2], IN[0].yzwx\n"
           "  1: END\n",
           &prog, NULL, 0, &inv)) {
      for (unsigned l = 0; l < 4; l++) {
         float want[4] = {
            in_gen[0][l][1], in_gen[0][l][2], in_gen[0][l][3],
            in_gen[0][l][0],
         };

         EXPECT_VEC("COLOR at OUT[2]", l, inv.out[l][0], want, 0xf);
      }
   }
   vdxg_program_fini(&prog);

   if (compile_ok("FRAG\n"
                  "DCL IN[0], GENERIC[0], PERSPECTIVE\n"
                  "DCL OUT[0], COLOR\n"
                  "DCL SAMP[1]\n"
                  "DCL SAMP[3]\n"
                  "DCL SAMP[6]\n"
                  "DCL SVIEW[1], 2D, FLOAT\n"
                  "DCL SVIEW[3], CUBE, FLOAT\n"
                  "DCL SVIEW[6], 2D, FLOAT\n"
                  "DCL CONST[0..4]\n"
                  "DCL TEMP[0..126]\n"
                  "  0: TEX TEMP[0], IN[0], SAMP[1], 2D\n"
                  "  1: TXB TEMP[1], IN[0], SAMP[3], CUBE\n"
                  "  2: TXL TEMP[126], IN[0], SAMP[6], 2D\n"
                  "  3: ADD TEMP[0], TEMP[0], CONST[4]\n"
                  "  4: MAD TEMP[0], TEMP[0], CONST[1], TEMP[126]\n"
                  "  5: ADD OUT[0], TEMP[0], TEMP[1]\n"
                  "  6: END\n",
                  &prog)) {
      CHECK(prog.units_used == 0x4a, "units_used 0x%x, want 0x4a",
            prog.units_used);
      CHECK(prog.units_cube == 0x08, "units_cube 0x%x, want 0x08",
            prog.units_cube);
      CHECK(prog.num_consts == 5, "num_consts %u, want 5", prog.num_consts);
      CHECK(!prog.relative_consts, "relative_consts");
      CHECK(!prog.writes_point_size, "writes_point_size in a FS");
      CHECK(prog.size == 16 * (1 + 7), "size %u, want %u", prog.size,
            16 * (1 + 7));
   }
   vdxg_program_fini(&prog);

   if (compile_ok("VERT\n"
                  "DCL IN[0]\n"
                  "DCL OUT[0], POSITION\n"
                  "DCL OUT[1], PSIZE\n"
                  "IMM[0] FLT32 { 1.0, 2.0, 3.0, 4.0 }\n"
                  "IMM[1] FLT32 { 5.0, 6.0, 7.0, 8.0 }\n"
                  "  0: MOV OUT[0], IN[0]\n"
                  "  1: MOV OUT[1].x, IMM[1].xxxx\n"
                  "  2: NOP\n"
                  "  3: END\n",
                  &prog)) {
      CHECK(prog.writes_point_size, "writes_point_size not recorded");
      CHECK(prog.units_used == 0 && prog.units_cube == 0, "units 0x%x 0x%x",
            prog.units_used, prog.units_cube);
      CHECK(prog.num_consts == 0 && !prog.relative_consts, "consts %u %d",
            prog.num_consts, prog.relative_consts);
      CHECK(prog.num_link_insns == 0, "num_link_insns %u",
            prog.num_link_insns);
      /* NOP is dropped; 3 instructions and 2 immediates. */
      CHECK(prog.size == 16 * (1 + 3 + 2), "size %u, want %u", prog.size,
            16 * (1 + 3 + 2));
      CHECK(vdxg_program_check(prog.dw, prog.size, NULL, NULL, 0) == 0,
            "the device refuses it");
   }
   vdxg_program_fini(&prog);
}

/* ------------------------------------------------------------ errors */

static void
expect_error(const char *tgsi, const char *what)
{
   struct vdxg_program prog;
   char err[256];
   int ret = compile_text(tgsi, &prog, err, sizeof(err));

   if (ret == -1000)
      return;
   CHECK(ret == -EINVAL, "want -EINVAL (%s), got %d", what, ret);
   CHECK(strstr(err, what), "message \"%s\", want it to say \"%s\"", err,
         what);
   CHECK(!prog.dw && !prog.link_insns && !prog.link_outputs,
         "the program is not freed on an error");
   vdxg_program_fini(&prog);
}

static void
test_errors(void)
{
   char tgsi[2048];
   int n;

   expect_error("FRAG\n"
                "DCL IN[0], GENERIC[0], PERSPECTIVE\n"
                "DCL OUT[0], COLOR\n"
                "  0: UADD OUT[0], IN[0], IN[0]\n"
                "  1: END\n",
                "UADD");
   /* The device rounds MAD's product: FMA's single rounding it has not. */
   expect_error("FRAG\n"
                "DCL IN[0], GENERIC[0], PERSPECTIVE\n"
                "DCL OUT[0], COLOR\n"
                "  0: FMA OUT[0], IN[0], IN[0], IN[0]\n"
                "  1: END\n",
                "FMA");
   expect_error("FRAG\n"
                "DCL IN[0], GENERIC[0], PERSPECTIVE\n"
                "DCL OUT[0], COLOR\n"
                "DCL SAMP[0]\n"
                "DCL SVIEW[0], 3D, FLOAT\n"
                "  0: TEX OUT[0], IN[0], SAMP[0], 3D\n"
                "  1: END\n",
                "texture target");
   expect_error("FRAG\n"
                "DCL IN[0], GENERIC[0], PERSPECTIVE\n"
                "DCL OUT[0], COLOR\n"
                "DCL SAMP[0]\n"
                "DCL SVIEW[0], RECT, FLOAT\n"
                "  0: TEX OUT[0], IN[0], SAMP[0], RECT\n"
                "  1: END\n",
                "texture target");

   n = snprintf(tgsi, sizeof(tgsi), "FRAG\n");
   for (unsigned k = 0; k < 9; k++)
      n += snprintf(tgsi + n, sizeof(tgsi) - n,
                    "DCL IN[%u], GENERIC[%u], PERSPECTIVE\n", k, k);
   snprintf(tgsi + n, sizeof(tgsi) - n,
            "DCL OUT[0], COLOR\n  0: MOV OUT[0], IN[0]\n  1: END\n");
   expect_error(tgsi, "more than 8 varyings");
   /* Eight of them and POSITION, FACE, PCOORD are fine. */
   {
      struct vdxg_program prog;

      n = snprintf(tgsi, sizeof(tgsi),
                   "FRAG\nDCL IN[0], POSITION, LINEAR\n"
                   "DCL IN[1], FACE, CONSTANT\nDCL IN[2], PCOORD, LINEAR\n"
                   "DCL IN[3..10], GENERIC[0], PERSPECTIVE\n");
      snprintf(tgsi + n, sizeof(tgsi) - n,
               "DCL OUT[0], COLOR\n  0: MOV OUT[0], IN[10]\n  1: END\n");
      if (compile_ok(tgsi, &prog))
         CHECK(prog.num_varyings == 8, "num_varyings %u", prog.num_varyings);
      vdxg_program_fini(&prog);
   }

   expect_error("FRAG\n"
                "DCL IN[0], GENERIC[0], PERSPECTIVE\n"
                "DCL OUT[0], COLOR\n"
                "DCL TEMP[0..127]\n"
                "  0: MOV OUT[0], IN[0]\n"
                "  1: END\n",
                "temporaries");
   expect_error("FRAG\n"
                "DCL OUT[0], COLOR\n"
                "DCL CONST[1][0..1]\n"
                "  0: MOV OUT[0], CONST[1][0]\n"
                "  1: END\n",
                "constants beyond buffer 0");
   expect_error("FRAG\n"
                "DCL IN[0], GENERIC[0], PERSPECTIVE\n"
                "DCL OUT[0], POSITION\n"
                "  0: MOV OUT[0], IN[0]\n"
                "  1: END\n",
                "fragment output semantic");
   expect_error("FRAG\n"
                "DCL OUT[0], COLOR\n"
                "DCL CONST[0..7]\n"
                "DCL TEMP[0]\n"
                "DCL ADDR[0]\n"
                "  0: ARL ADDR[0].x, CONST[0].xxxx\n"
                "  1: MOV OUT[0], CONST[ADDR[0].y+1]\n"
                "  2: END\n",
                "indirect constant not by ADDR.x");
   expect_error("VERT\n"
                "DCL IN[0]\n"
                "DCL OUT[0], POSITION\n"
                "  0: KILL_IF IN[0]\n"
                "  1: MOV OUT[0], IN[0]\n"
                "  2: END\n",
                "the device refuses the program");
   expect_error("GEOM\n"
                "DCL OUT[0], POSITION\n"
                "  0: END\n",
                "shader stage");

   /* No message buffer: the error still. */
   {
      struct tgsi_token tokens[256];
      struct vdxg_program prog;

      cur_text = NULL;
      if (CHECK(tgsi_text_translate("FRAG\nDCL OUT[0], COLOR\n"
                                    "IMM[0] FLT32 { 1.0, 1.0, 1.0, 1.0 }\n"
                                    "  0: UADD OUT[0], IMM[0], IMM[0]\n"
                                    "  1: END\n",
                                    tokens, ARRAY_SIZE(tokens)),
                "tgsi_text_translate")) {
         CHECK(vdxg_tgsi_compile(tokens, &prog, NULL, 0) == -EINVAL,
               "no message buffer: want -EINVAL");
         vdxg_program_fini(&prog);
      }
   }
}

/* ------------------------------------------------------------- main */

static const struct {
   const char *name;
   void (*fn)(void);
} cases[] = {
   { "alu", test_alu },
   { "derivatives", test_derivatives },
   { "swizzle-modifiers", test_swizzle_modifiers },
   { "saturate", test_saturate },
   { "write-masks", test_write_masks },
   { "consts", test_consts },
   { "immediates", test_immediates },
   { "control-flow", test_control_flow },
   { "fs-inputs", test_fs_inputs },
   { "link", test_link },
   { "textures", test_textures },
   { "info", test_info },
   { "errors", test_errors },
};

int
main(int argc, char **argv)
{
   for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
      if (argc > 1 && strcmp(argv[1], cases[i].name))
         continue;
      case_failed = false;
      cur_text = NULL;
      cur_prog = NULL;
      cur_dumped = false;
      fprintf(stderr, "%s:\n", cases[i].name);
      cases[i].fn();
      num_cases++;
      if (case_failed)
         num_cases_failed++;
      printf("%s %s\n", case_failed ? "FAIL" : "ok  ", cases[i].name);
   }
   printf("%u passed, %u failed (cases; checks: %u, %u failed)\n",
          num_cases - num_cases_failed, num_cases_failed, num_checks,
          num_failed);
   return num_failed || !num_cases ? EXIT_FAILURE : EXIT_SUCCESS;
}
