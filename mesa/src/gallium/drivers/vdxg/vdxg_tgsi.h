/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

#ifndef VDXG_TGSI_H
#define VDXG_TGSI_H

#include <stdbool.h>
#include <stdint.h>

#include "pipe/p_shader_tokens.h"

#define VDXG_MAX_LINKED_OUTPUTS 32

struct vdxg_semantic {
   uint8_t name;  /* TGSI_SEMANTIC_* */
   uint8_t index;
};

/*
 * A program in the device's binary form (docs/hardware.md, "Programs"),
 * with what binding and linking need to know of it.
 *
 * A vertex program writes its varyings to OUTPUT indices that linking
 * decides: link_insns lists each instruction that writes one, with the
 * TGSI output it writes (outputs[] names its semantic). vdxg_tgsi_link()
 * rewrites them for a fragment program's varyings.
 */
struct vdxg_program {
   uint32_t *dw;
   uint32_t size;            /* bytes */
   unsigned stage;           /* VDXG_3D_STAGE_* */
   unsigned num_consts;      /* CONST registers it reads without ADDR */
   bool relative_consts;     /* it reads CONST[ADDR.x + n] */
   uint8_t units_used;       /* texture units it samples */
   uint8_t units_cube;       /* ... as cube maps */
   bool writes_point_size;

   /* Vertex programs. */
   unsigned num_outputs;
   struct vdxg_semantic outputs[VDXG_MAX_LINKED_OUTPUTS];
   unsigned num_link_insns;
   uint16_t *link_insns;     /* instruction index */
   uint8_t *link_outputs;    /* TGSI output index */

   /* Fragment programs: the semantic each varying slot carries. */
   unsigned num_varyings;
   struct vdxg_semantic varyings[8];
};

/*
 * Encode TOKENS (a vertex or fragment shader from nir_to_tgsi) into PROG.
 * 0, or -EINVAL with what the device lacks in ERROR (ERROR_LEN bytes), or
 * -ENOMEM.
 */
int vdxg_tgsi_compile(const struct tgsi_token *tokens,
                      struct vdxg_program *prog, char *error,
                      size_t error_len);

/*
 * The device samples no depth format: a depth texture is bound as the
 * colour format of the same bytes (Z16 as L8A8, Z24 as ARGB8888) and the
 * program rebuilds the depth from the channels it reads. DEPTH_UNITS has
 * VDXG_TGSI_DEPTH16 or VDXG_TGSI_DEPTH24 at bits 2u of unit u: what each
 * unit's samples are. Texture instructions on such a unit return (d, d,
 * d, 1), as GLES's depth textures do.
 */
#define VDXG_TGSI_DEPTH16 1
#define VDXG_TGSI_DEPTH24 2
int vdxg_tgsi_compile_depth(const struct tgsi_token *tokens,
                            uint16_t depth_units, struct vdxg_program *prog,
                            char *error, size_t error_len);
void vdxg_program_fini(struct vdxg_program *prog);

/*
 * The dwords of vertex program VS linked to a fragment program reading
 * VARYINGS (NUM of them): each varying output goes to the slot the
 * fragment program reads it from, or is dropped. malloc()ed, VS's size.
 */
uint32_t *vdxg_tgsi_link(const struct vdxg_program *vs,
                         const struct vdxg_semantic *varyings, unsigned num);

#endif
