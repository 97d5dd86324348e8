/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

/*
 * TGSI to the vdxg ISA. The device's instruction set was drawn after TGSI
 * (docs/shader-asm.md): register files, swizzles, ABS and NEGATE, the
 * opcodes nir_to_tgsi emits for a driver without integers, structured
 * control flow. So this is an encoder, instruction for instruction, like
 * i915g's and nv30's back ends; what it adds is the mapping of inputs and
 * outputs to the device's fixed slots and the record that linking needs.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe/p_state.h"
#include "tgsi/tgsi_info.h"
#include "tgsi/tgsi_parse.h"
#include "util/macros.h"

#include "vdxg_hw_defs.h"
#include "vdxg_tgsi.h"

struct vdxg_tgsi {
   struct vdxg_program *prog;
   char *error;
   size_t error_len;
   unsigned processor;

   uint32_t *insns;          /* 4 dwords each */
   unsigned num_insns;
   uint32_t imms[VDXG_3D_MAX_IMMEDIATES][4];
   unsigned num_imms;

   /* TGSI index -> device index; 0xff: not declared. */
   uint8_t input_map[PIPE_MAX_SHADER_INPUTS];
   uint8_t output_map[PIPE_MAX_SHADER_OUTPUTS];
   bool output_linked[PIPE_MAX_SHADER_OUTPUTS];
   uint16_t depth_units;     /* VDXG_TGSI_DEPTH* at bits 2u */
};

/* The TEMP that depth texture samples go through: the screen offers one
 * temporary less than the device has. */
#define VDXG_TGSI_SCRATCH (VDXG_3D_NUM_TEMPS - 1)

static int PRINTFLIKE(2, 3)
vdxg_tgsi_error(struct vdxg_tgsi *c, const char *fmt, ...)
{
   va_list ap;

   if (c->error && c->error_len) {
      va_start(ap, fmt);
      vsnprintf(c->error, c->error_len, fmt, ap);
      va_end(ap);
   }
   return -EINVAL;
}

static int
vdxg_tgsi_declare_input(struct vdxg_tgsi *c,
                        const struct tgsi_full_declaration *decl)
{
   struct vdxg_program *prog = c->prog;
   unsigned name = decl->Semantic.Name, index = decl->Semantic.Index;

   for (unsigned i = decl->Range.First; i <= decl->Range.Last; i++) {
      if (i >= ARRAY_SIZE(c->input_map))
         return vdxg_tgsi_error(c, "input %u out of range", i);
      if (c->processor == PIPE_SHADER_VERTEX) {
         if (i >= VDXG_3D_VS_INPUTS)
            return vdxg_tgsi_error(c, "vertex input %u: the device has %u",
                                   i, VDXG_3D_VS_INPUTS);
         c->input_map[i] = i;
         continue;
      }
      switch (name) {
      case TGSI_SEMANTIC_POSITION:
         c->input_map[i] = VDXG_FS_IN_POSITION;
         break;
      case TGSI_SEMANTIC_FACE:
         c->input_map[i] = VDXG_FS_IN_FACE;
         break;
      case TGSI_SEMANTIC_PCOORD:
         c->input_map[i] = VDXG_FS_IN_POINT_COORD;
         break;
      case TGSI_SEMANTIC_GENERIC:
      case TGSI_SEMANTIC_TEXCOORD:
      case TGSI_SEMANTIC_COLOR:
      case TGSI_SEMANTIC_FOG:
         if (prog->num_varyings >= VDXG_3D_NUM_VARYINGS)
            return vdxg_tgsi_error(c, "more than %u varyings",
                                   VDXG_3D_NUM_VARYINGS);
         prog->varyings[prog->num_varyings].name = name;
         prog->varyings[prog->num_varyings].index =
            index + (i - decl->Range.First);
         c->input_map[i] = VDXG_FS_IN_VARYING(prog->num_varyings++);
         break;
      default:
         return vdxg_tgsi_error(c, "fragment input semantic %u", name);
      }
   }
   return 0;
}

static int
vdxg_tgsi_declare_output(struct vdxg_tgsi *c,
                         const struct tgsi_full_declaration *decl)
{
   struct vdxg_program *prog = c->prog;
   unsigned name = decl->Semantic.Name;

   for (unsigned i = decl->Range.First; i <= decl->Range.Last; i++) {
      if (i >= ARRAY_SIZE(c->output_map) || i >= VDXG_MAX_LINKED_OUTPUTS)
         return vdxg_tgsi_error(c, "output %u out of range", i);
      if (c->processor == PIPE_SHADER_FRAGMENT) {
         if (name != TGSI_SEMANTIC_COLOR || decl->Semantic.Index)
            return vdxg_tgsi_error(c, "fragment output semantic %u.%u",
                                   name, decl->Semantic.Index);
         c->output_map[i] = VDXG_FS_OUT_COLOR;
         continue;
      }
      prog->outputs[i].name = name;
      prog->outputs[i].index = decl->Semantic.Index + (i - decl->Range.First);
      prog->num_outputs = MAX2(prog->num_outputs, i + 1);
      switch (name) {
      case TGSI_SEMANTIC_POSITION:
         c->output_map[i] = VDXG_VS_OUT_POSITION;
         break;
      case TGSI_SEMANTIC_PSIZE:
         c->output_map[i] = VDXG_VS_OUT_POINT_SIZE;
         prog->writes_point_size = true;
         break;
      case TGSI_SEMANTIC_GENERIC:
      case TGSI_SEMANTIC_TEXCOORD:
      case TGSI_SEMANTIC_COLOR:
      case TGSI_SEMANTIC_BCOLOR:
      case TGSI_SEMANTIC_FOG:
         /* Its slot is the fragment program's: see vdxg_tgsi_link(). */
         c->output_map[i] = VDXG_VS_OUT_VARYING(0);
         c->output_linked[i] = true;
         break;
      default:
         return vdxg_tgsi_error(c, "vertex output semantic %u", name);
      }
   }
   return 0;
}

static int
vdxg_tgsi_declaration(struct vdxg_tgsi *c,
                      const struct tgsi_full_declaration *decl)
{
   switch (decl->Declaration.File) {
   case TGSI_FILE_INPUT:
      return vdxg_tgsi_declare_input(c, decl);
   case TGSI_FILE_OUTPUT:
      return vdxg_tgsi_declare_output(c, decl);
   case TGSI_FILE_TEMPORARY:
      if (decl->Range.Last >= VDXG_3D_NUM_TEMPS - 1)
         return vdxg_tgsi_error(c, "%u temporaries: the device has %u",
                                decl->Range.Last + 1, VDXG_3D_NUM_TEMPS - 1);
      return 0;
   case TGSI_FILE_CONSTANT:
      if ((decl->Declaration.Dimension && decl->Dim.Index2D) ||
          decl->Range.Last >= VDXG_3D_NUM_CONSTS)
         return vdxg_tgsi_error(c, "constants beyond buffer 0, vec4 %u",
                                VDXG_3D_NUM_CONSTS);
      return 0;
   case TGSI_FILE_SAMPLER_VIEW:
      for (unsigned i = decl->Range.First; i <= decl->Range.Last; i++) {
         if (i >= VDXG_3D_NUM_UNITS)
            return vdxg_tgsi_error(c, "sampler view %u", i);
      }
      return 0;
   case TGSI_FILE_SAMPLER:
   case TGSI_FILE_ADDRESS:
   case TGSI_FILE_IMMEDIATE:
      return 0;
   default:
      return vdxg_tgsi_error(c, "register file %u",
                             decl->Declaration.File);
   }
}

/* The index of an immediate holding V, added if no earlier one does. */
static int
vdxg_tgsi_imm(struct vdxg_tgsi *c, const uint32_t v[4])
{
   for (unsigned i = 0; i < c->num_imms; i++) {
      if (!memcmp(c->imms[i], v, 16))
         return i;
   }
   if (c->num_imms >= VDXG_3D_MAX_IMMEDIATES)
      return vdxg_tgsi_error(c, "more than %u immediates",
                             VDXG_3D_MAX_IMMEDIATES);
   memcpy(c->imms[c->num_imms], v, 16);
   return c->num_imms++;
}

static int
vdxg_tgsi_immediate(struct vdxg_tgsi *c, const struct tgsi_full_immediate *imm)
{
   if (c->num_imms >= VDXG_3D_MAX_IMMEDIATES)
      return vdxg_tgsi_error(c, "more than %u immediates",
                             VDXG_3D_MAX_IMMEDIATES);
   for (unsigned i = 0; i < 4; i++)
      c->imms[c->num_imms][i] =
         i < imm->Immediate.NrTokens - 1 ? imm->u[i].Uint : 0;
   c->num_imms++;
   return 0;
}

static const struct {
   uint8_t op, srcs;
} vdxg_tgsi_ops[TGSI_OPCODE_LAST] = {
#define OP(tgsi, vdxg, n) [TGSI_OPCODE_##tgsi] = {VDXG_OP_##vdxg, n}
   /* No FMA: it must not round the product, and the device's MAD does. */
   OP(MOV, MOV, 1),      OP(ADD, ADD, 2),        OP(MUL, MUL, 2),
   OP(MAD, MAD, 3),      OP(DP2, DP2, 2),
   OP(DP3, DP3, 2),      OP(DP4, DP4, 2),        OP(MIN, MIN, 2),
   OP(MAX, MAX, 2),      OP(SLT, SLT, 2),        OP(SGE, SGE, 2),
   OP(SEQ, SEQ, 2),      OP(SNE, SNE, 2),        OP(CMP, CMP, 3),
   OP(LRP, LRP, 3),      OP(FRC, FRC, 1),        OP(FLR, FLR, 1),
   OP(CEIL, CEIL, 1),    OP(TRUNC, TRUNC, 1),    OP(ROUND, ROUND, 1),
   OP(SSG, SSG, 1),      OP(RCP, RCP, 1),        OP(RSQ, RSQ, 1),
   OP(SQRT, SQRT, 1),    OP(EX2, EX2, 1),        OP(LG2, LG2, 1),
   OP(POW, POW, 2),      OP(SIN, SIN, 1),        OP(COS, COS, 1),
   OP(DIV, DIV, 2),      OP(DDX, DDX, 1),        OP(DDY, DDY, 1),
   OP(DDX_FINE, DDX, 1), OP(DDY_FINE, DDY, 1),   OP(ARL, ARL, 1),
   OP(KILL, KILL, 0),    OP(KILL_IF, KILL_IF, 1), OP(TEX, TEX, 1),
   OP(TXB, TXB, 1),      OP(TXL, TXL, 1),        OP(TXP, TXP, 1),
   OP(TXD, TXD, 3),      OP(LDEXP, LDEXP, 2),    OP(IF, IF, 1),
   OP(ELSE, ELSE, 0),    OP(ENDIF, ENDIF, 0),    OP(BGNLOOP, BGNLOOP, 0),
   OP(ENDLOOP, ENDLOOP, 0), OP(BRK, BRK, 0),     OP(CONT, CONT, 0),
   OP(END, END, 0),
   /* a <= b is b >= a, a > b is b < a: the sources swap. */
   OP(SLE, SGE, 2),      OP(SGT, SLT, 2),
#undef OP
};

static int
vdxg_tgsi_src(struct vdxg_tgsi *c, const struct tgsi_full_src_register *src,
              uint32_t *out)
{
   struct vdxg_program *prog = c->prog;
   const struct tgsi_src_register *r = &src->Register;
   uint32_t file, index = r->Index, flags = 0;

   switch (r->File) {
   case TGSI_FILE_TEMPORARY:
      file = VDXG_FILE_TEMP;
      break;
   case TGSI_FILE_INPUT:
      file = VDXG_FILE_INPUT;
      if (index >= ARRAY_SIZE(c->input_map) || c->input_map[index] == 0xff)
         return vdxg_tgsi_error(c, "undeclared input %d", r->Index);
      index = c->input_map[index];
      break;
   case TGSI_FILE_CONSTANT:
      file = VDXG_FILE_CONST;
      if (r->Dimension && src->Dimension.Index)
         return vdxg_tgsi_error(c, "constant buffer %d",
                                src->Dimension.Index);
      if (r->Indirect) {
         if (src->Indirect.File != TGSI_FILE_ADDRESS ||
             src->Indirect.Index || src->Indirect.Swizzle != TGSI_SWIZZLE_X)
            return vdxg_tgsi_error(c, "indirect constant not by ADDR.x");
         flags |= VDXG_SRC_RELATIVE;
         prog->relative_consts = true;
      } else {
         prog->num_consts = MAX2(prog->num_consts, index + 1);
      }
      break;
   case TGSI_FILE_IMMEDIATE:
      file = VDXG_FILE_IMM;
      break;
   default:
      return vdxg_tgsi_error(c, "source file %u", r->File);
   }
   if ((r->Indirect && r->File != TGSI_FILE_CONSTANT) || r->Index < 0 ||
       index > 255)
      return vdxg_tgsi_error(c, "source %u[%d]", r->File, r->Index);
   if (r->Absolute)
      flags |= VDXG_SRC_ABS;
   if (r->Negate)
      flags |= VDXG_SRC_NEGATE;
   *out = VDXG_SRC(file, index,
                   VDXG_SWIZZLE(r->SwizzleX, r->SwizzleY, r->SwizzleZ,
                                r->SwizzleW)) | flags;
   return 0;
}

static int
vdxg_tgsi_dst(struct vdxg_tgsi *c, const struct tgsi_full_instruction *inst,
              uint32_t op, uint32_t *dw0)
{
   const struct tgsi_dst_register *d = &inst->Dst[0].Register;
   uint32_t file, index = d->Index;

   if (d->Indirect || d->Index < 0)
      return vdxg_tgsi_error(c, "indirect destination");
   switch (d->File) {
   case TGSI_FILE_TEMPORARY:
      file = VDXG_FILE_TEMP;
      break;
   case TGSI_FILE_OUTPUT:
      file = VDXG_FILE_OUTPUT;
      if (index >= ARRAY_SIZE(c->output_map) || c->output_map[index] == 0xff)
         return vdxg_tgsi_error(c, "undeclared output %u", index);
      if (c->output_linked[index]) {
         struct vdxg_program *prog = c->prog;

         prog->link_insns[prog->num_link_insns] = c->num_insns;
         prog->link_outputs[prog->num_link_insns++] = index;
      }
      index = c->output_map[index];
      break;
   case TGSI_FILE_ADDRESS:
      if (op != VDXG_OP_ARL || index)
         return vdxg_tgsi_error(c, "ADDR written by opcode 0x%x", op);
      file = VDXG_FILE_ADDR;
      break;
   default:
      return vdxg_tgsi_error(c, "destination file %u", d->File);
   }
   if (index > 255)
      return vdxg_tgsi_error(c, "destination index %u", index);
   *dw0 |= VDXG_INSN(0, file, index, d->WriteMask);
   if (inst->Instruction.Saturate)
      *dw0 |= VDXG_INSN_SAT;
   return 0;
}

static int
vdxg_tgsi_texture(struct vdxg_tgsi *c, const struct tgsi_full_instruction *inst,
                  unsigned sampler_src, uint32_t *dw0)
{
   const struct tgsi_src_register *s = &inst->Src[sampler_src].Register;
   unsigned unit = s->Index;
   bool cube;

   if (s->File != TGSI_FILE_SAMPLER || s->Indirect || unit >= 8)
      return vdxg_tgsi_error(c, "sampler operand");
   switch (inst->Texture.Texture) {
   case TGSI_TEXTURE_2D:
      cube = false;
      break;
   case TGSI_TEXTURE_CUBE:
      cube = true;
      break;
   default:
      return vdxg_tgsi_error(c, "texture target %u", inst->Texture.Texture);
   }
   c->prog->units_used |= 1 << unit;
   if (cube)
      c->prog->units_cube |= 1 << unit;
   *dw0 |= VDXG_INSN_TEX(unit, cube);
   return 0;
}

static uint32_t
vdxg_f32(float f)
{
   union { float f; uint32_t u; } v = { .f = f };

   return v.u;
}

/*
 * DW is a texture instruction on a depth unit: it samples into the
 * scratch TEMP instead, and the depth is rebuilt into its destination.
 * Z24 reads as ARGB8888 (R, G, B the depth's bytes, high first), Z16 as
 * L8A8 (L the low byte, A the high one); each channel c reads c / 255.
 */
static int
vdxg_tgsi_depth_sample(struct vdxg_tgsi *c, uint32_t *dw)
{
   bool d24 = ((c->depth_units >> (2 * VDXG_INSN_UNIT(dw[0]))) & 3) ==
              VDXG_TGSI_DEPTH24;
   uint32_t dst = dw[0] & (VDXG_INSN_SAT | (0xffu << 16) | (0x7u << 8));
   uint32_t mask = VDXG_INSN_MASK(dw[0]);
   const uint32_t k24[4] = {
      vdxg_f32(255.0f * 65536.0f / 16777215.0f),
      vdxg_f32(255.0f * 256.0f / 16777215.0f),
      vdxg_f32(255.0f / 16777215.0f), vdxg_f32(1.0f),
   };
   const uint32_t k16[4] = {
      vdxg_f32(255.0f / 65535.0f), vdxg_f32(65280.0f / 65535.0f), 0,
      vdxg_f32(1.0f),
   };
   int imm = vdxg_tgsi_imm(c, d24 ? k24 : k16);
   uint32_t *d;

   if (imm < 0)
      return imm;
   if (c->num_insns + 3 > VDXG_3D_MAX_INSTRUCTIONS)
      return vdxg_tgsi_error(c, "more than %u instructions",
                             VDXG_3D_MAX_INSTRUCTIONS);
   /* The sample, whole, into the scratch register. */
   dw[0] = (dw[0] & ~(VDXG_INSN_SAT | (0xffu << 16) | (0x7u << 8) |
                      (0xfu << 12))) |
           VDXG_INSN(0, VDXG_FILE_TEMP, VDXG_TGSI_SCRATCH, 0xf);
   c->num_insns++;

   d = &c->insns[c->num_insns * 4];
   memset(d, 0, 16);
   if (mask & 7) {
      d[0] = (d24 ? VDXG_OP_DP3 : VDXG_OP_DP2) | dst | ((mask & 7) << 12);
      d[1] = VDXG_SRC(VDXG_FILE_TEMP, VDXG_TGSI_SCRATCH,
                      d24 ? VDXG_SWIZZLE_XYZW : VDXG_SWIZZLE(0, 3, 0, 0));
      d[2] = VDXG_SRC(VDXG_FILE_IMM, imm, VDXG_SWIZZLE_XYZW);
      c->num_insns++;
      d += 4;
      memset(d, 0, 16);
   }
   if (mask & 8) {
      d[0] = VDXG_OP_MOV | dst | (0x8u << 12);
      d[1] = VDXG_SRC(VDXG_FILE_IMM, imm, VDXG_SWIZZLE(3, 3, 3, 3));
      c->num_insns++;
   }
   return 0;
}

static int
vdxg_tgsi_instruction(struct vdxg_tgsi *c,
                      const struct tgsi_full_instruction *inst)
{
   unsigned opcode = inst->Instruction.Opcode;
   uint32_t *dw = &c->insns[c->num_insns * 4];
   unsigned srcs, op;
   int ret;

   if (opcode == TGSI_OPCODE_NOP)
      return 0;
   op = vdxg_tgsi_ops[opcode].op;
   srcs = vdxg_tgsi_ops[opcode].srcs;
   if (c->num_insns >= VDXG_3D_MAX_INSTRUCTIONS)
      return vdxg_tgsi_error(c, "more than %u instructions",
                             VDXG_3D_MAX_INSTRUCTIONS);

   memset(dw, 0, 16);
   dw[0] = op;
   if (inst->Instruction.NumDstRegs) {
      ret = vdxg_tgsi_dst(c, inst, op, &dw[0]);
      if (ret)
         return ret;
   }
   for (unsigned i = 0; i < srcs; i++) {
      /* SLE and SGT swap their sources. */
      unsigned from = (opcode == TGSI_OPCODE_SLE ||
                       opcode == TGSI_OPCODE_SGT) ? 1 - i : i;

      ret = vdxg_tgsi_src(c, &inst->Src[from], &dw[1 + i]);
      if (ret)
         return ret;
   }
   if (inst->Instruction.Texture) {
      ret = vdxg_tgsi_texture(c, inst, srcs, &dw[0]);
      if (ret)
         return ret;
      if ((c->depth_units >> (2 * VDXG_INSN_UNIT(dw[0]))) & 3)
         return vdxg_tgsi_depth_sample(c, dw);
   }
   c->num_insns++;
   return 0;
}

/* Every device opcode but NOP is non-zero: the table's zeros are gaps. */
static bool
vdxg_tgsi_mapped(unsigned opcode)
{
   return opcode == TGSI_OPCODE_NOP ||
          (opcode < TGSI_OPCODE_LAST && vdxg_tgsi_ops[opcode].op);
}

static int
vdxg_tgsi_assemble(struct vdxg_tgsi *c)
{
   struct vdxg_program *prog = c->prog;
   uint32_t n = c->num_insns, m = c->num_imms;
   uint32_t *dw;

   prog->size = 16 * (1 + n + m);
   dw = prog->dw = malloc(prog->size);
   if (!dw)
      return -ENOMEM;
   dw[VDXG_PROG_DW_MAGIC] = VDXG_3D_PROGRAM_MAGIC;
   dw[VDXG_PROG_DW_STAGE] = prog->stage;
   dw[VDXG_PROG_DW_NUM_INSNS] = n;
   dw[VDXG_PROG_DW_NUM_IMMS] = m;
   memcpy(dw + 4, c->insns, 16 * n);
   memcpy(dw + 4 + 4 * n, c->imms, 16 * m);
   return 0;
}

int
vdxg_tgsi_compile(const struct tgsi_token *tokens, struct vdxg_program *prog,
                  char *error, size_t error_len)
{
   return vdxg_tgsi_compile_depth(tokens, 0, prog, error, error_len);
}

int
vdxg_tgsi_compile_depth(const struct tgsi_token *tokens, uint16_t depth_units,
                        struct vdxg_program *prog, char *error,
                        size_t error_len)
{
   struct tgsi_parse_context parse;
   struct vdxg_tgsi c = {
      .prog = prog,
      .error = error,
      .error_len = error_len,
      .depth_units = depth_units,
   };
   char msg[128];
   int ret = 0;

   memset(prog, 0, sizeof(*prog));
   memset(c.input_map, 0xff, sizeof(c.input_map));
   memset(c.output_map, 0xff, sizeof(c.output_map));
   if (tgsi_parse_init(&parse, tokens) != TGSI_PARSE_OK)
      return vdxg_tgsi_error(&c, "bad TGSI");
   c.processor = parse.FullHeader.Processor.Processor;
   if (c.processor != PIPE_SHADER_VERTEX &&
       c.processor != PIPE_SHADER_FRAGMENT) {
      tgsi_parse_free(&parse);
      return vdxg_tgsi_error(&c, "shader stage %u", c.processor);
   }
   prog->stage = c.processor == PIPE_SHADER_VERTEX ? VDXG_3D_STAGE_VERTEX
                                                    : VDXG_3D_STAGE_FRAGMENT;
   c.insns = malloc(16 * VDXG_3D_MAX_INSTRUCTIONS);
   prog->link_insns = malloc(sizeof(*prog->link_insns) *
                             VDXG_3D_MAX_INSTRUCTIONS);
   prog->link_outputs = malloc(VDXG_3D_MAX_INSTRUCTIONS);
   if (!c.insns || !prog->link_insns || !prog->link_outputs) {
      ret = -ENOMEM;
      goto out;
   }

   while (!ret && !tgsi_parse_end_of_tokens(&parse)) {
      tgsi_parse_token(&parse);
      switch (parse.FullToken.Token.Type) {
      case TGSI_TOKEN_TYPE_DECLARATION:
         ret = vdxg_tgsi_declaration(&c, &parse.FullToken.FullDeclaration);
         break;
      case TGSI_TOKEN_TYPE_IMMEDIATE:
         ret = vdxg_tgsi_immediate(&c, &parse.FullToken.FullImmediate);
         break;
      case TGSI_TOKEN_TYPE_INSTRUCTION:
         if (!vdxg_tgsi_mapped(
                parse.FullToken.FullInstruction.Instruction.Opcode))
            ret = vdxg_tgsi_error(
               &c, "TGSI opcode %s",
               tgsi_get_opcode_name(
                  parse.FullToken.FullInstruction.Instruction.Opcode));
         else
            ret = vdxg_tgsi_instruction(&c,
                                        &parse.FullToken.FullInstruction);
         break;
      default:
         break;
      }
   }
   if (!ret)
      ret = vdxg_tgsi_assemble(&c);
   /* What the device would refuse is a bug here: say where. */
   if (!ret && vdxg_program_check(prog->dw, prog->size, NULL, msg,
                                  sizeof(msg)))
      ret = vdxg_tgsi_error(&c, "the device refuses the program: %s", msg);

out:
   tgsi_parse_free(&parse);
   free(c.insns);
   if (ret)
      vdxg_program_fini(prog);
   return ret;
}

void
vdxg_program_fini(struct vdxg_program *prog)
{
   free(prog->dw);
   free(prog->link_insns);
   free(prog->link_outputs);
   prog->dw = NULL;
   prog->link_insns = NULL;
   prog->link_outputs = NULL;
}

uint32_t *
vdxg_tgsi_link(const struct vdxg_program *vs,
               const struct vdxg_semantic *varyings, unsigned num)
{
   uint32_t *dw = malloc(vs->size);

   if (!dw)
      return NULL;
   memcpy(dw, vs->dw, vs->size);
   for (unsigned i = 0; i < vs->num_link_insns; i++) {
      const struct vdxg_semantic *out =
         &vs->outputs[vs->link_outputs[i]];
      uint32_t *dw0 = &dw[4 + 4 * vs->link_insns[i]];
      unsigned slot;

      for (slot = 0; slot < num; slot++) {
         if (varyings[slot].name == out->name &&
             varyings[slot].index == out->index)
            break;
      }
      *dw0 &= ~(0xffu << 16);
      if (slot < num)
         *dw0 |= VDXG_VS_OUT_VARYING(slot) << 16;
      else
         /* Not read: the instruction writes no channel. */
         *dw0 = (*dw0 & ~(0xfu << 12)) | (VDXG_VS_OUT_VARYING(0) << 16);
   }
   return dw;
}
