/* SPDX-License-Identifier: MIT */
/*
 * vdxg_ref3d: a reference implementation of the RENDER engine's 3D
 * pipeline, written from docs/hardware.md ("The 3D pipeline") alone, one
 * step of the text at a time, in its order and with its operation order.
 *
 * It exists to be compared bit for bit with the QEMU device model (and
 * with what the driver renders in the guest). Like vdxg_ref.h it is plain
 * C: <stdint.h> and <stdbool.h> only in this header, no globals, no
 * allocation, no libm transcendental function; it builds both in
 * userspace and inside QEMU's tree. Build it without FMA contraction
 * (-ffp-contract=off; the file also says #pragma STDC FP_CONTRACT OFF).
 *
 * The engine's memory is reached through callbacks (struct
 * vdxg_ref3d_mem): a flat GPU address space, physical-mode semantics.
 * vdxg_ref3d_exec() runs a DMA buffer of NOP, SET_SURFACE and the 3D
 * commands (0x08 to 0x11) with every check the spec lists for them and
 * returns the fault the engine would report. PROGRESS is not modelled;
 * neither is virtual mode's translation (mem is the address space).
 *
 * Floats in this API are binary32 values with their bits (NaN payloads
 * included) as the engine holds them.
 */
#ifndef VDXG_REF3D_H
#define VDXG_REF3D_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The limits of vdxg_hw.h that size the structures below. */
#define VDXG_REF3D_MAX_INSNS	4096	/* VDXG_3D_MAX_INSTRUCTIONS */
#define VDXG_REF3D_MAX_IMMS	256	/* VDXG_3D_MAX_IMMEDIATES */
#define VDXG_REF3D_NUM_CONSTS	256	/* VDXG_3D_NUM_CONSTS */
#define VDXG_REF3D_NUM_TEMPS	128	/* VDXG_3D_NUM_TEMPS */
#define VDXG_REF3D_NUM_INPUTS	16	/* the larger stage's: vertex */
#define VDXG_REF3D_NUM_OUTPUTS	10	/* the larger stage's: vertex */

/*
 * vdxg_ref3d_exec()'s return value for a command the reference does not
 * model (FENCE, WAIT and the 2D drawing commands): not a hardware fault.
 */
#define VDXG_REF3D_UNSUPPORTED	0x100

/* A fault: reason VDXG_FAULT_* (0 none) and FAULT_ADDR. */
struct vdxg_ref3d_fault {
	uint32_t reason;
	uint64_t addr;
};

/*
 * The engine's memory. read and write move len bytes at a GPU address and
 * return false when the access faults (an ADDRESS fault at addr). range_ok
 * is physical mode's check of a range a command binds (a surface, a state
 * block, a program, constants, a vertex, index or texture buffer): true
 * when [addr, addr + len) lies wholly inside VRAM or wholly inside the
 * aperture. NULL range_ok accepts every range that does not wrap.
 */
struct vdxg_ref3d_mem {
	void *opaque;
	bool (*range_ok)(void *opaque, uint64_t addr, uint64_t len);
	bool (*read)(void *opaque, uint64_t addr, void *buf, uint32_t len);
	bool (*write)(void *opaque, uint64_t addr, const void *buf,
		      uint32_t len);
};

/* A program decoded and checked by SET_SHADER. */
struct vdxg_ref3d_program {
	bool bound;
	uint64_t addr;		/* SET_SHADER's address and size */
	uint32_t size;
	uint32_t stage, n, m;	/* header: stage, instructions, immediates */
	uint32_t insn[VDXG_REF3D_MAX_INSNS][4];
	uint32_t imm[VDXG_REF3D_MAX_IMMS][4];	/* binary32 bits */
	uint16_t bgnloop[VDXG_REF3D_MAX_INSNS];	/* ENDLOOP: its BGNLOOP */
	bool writes_point_size;	/* some destination is OUTPUT 1 */
};

/* A surface slot (SET_SURFACE): 0 DST, 1 SRC, 2 DEPTH, 3 TEXTURE. */
struct vdxg_ref3d_surface {
	bool set;
	uint64_t addr;
	uint32_t format, width, height, pitch;
};

/*
 * The engine's 3D state: what a ring entry starts from (all zero: use
 * vdxg_ref3d_init()) and what its commands change. The fields mirror the
 * state area (version 2, dwords 64 to 287) and the surface slots.
 */
struct vdxg_ref3d_ctx {
	uint32_t regs[64];
	struct vdxg_ref3d_program prog[2];	/* VDXG_3D_STAGE_* */
	struct {
		uint32_t count;
		uint64_t addr;
	} consts[2];
	struct {
		uint32_t stride, size;
		uint64_t addr;
	} vb[16];
	struct {
		uint32_t index_size, size;	/* index_size 0: unbound */
		uint64_t addr;
	} ib;
	struct {
		uint32_t desc, wh, size;	/* desc: SET_TEXTURE dword 5 */
		uint64_t addr;
	} tex[8];
	struct vdxg_ref3d_surface surf[4];
	/* The constants a draw (or vdxg_ref3d_invoke()) read when it began. */
	uint32_t cval[2][VDXG_REF3D_NUM_CONSTS][4];
};

/* All state zero: the state of a new ring entry. */
void vdxg_ref3d_init(struct vdxg_ref3d_ctx *ctx);

/*
 * Run a DMA buffer of ndw dwords at GPU address buf_addr (FAULT_ADDR of a
 * header is buf_addr plus its offset) on ctx, as the engine would in
 * physical mode. Returns 0, or the fault's reason (also in *fault) after
 * the commands before the faulting one took effect.
 */
uint32_t vdxg_ref3d_exec(struct vdxg_ref3d_ctx *ctx,
			 const struct vdxg_ref3d_mem *mem, uint64_t buf_addr,
			 const uint32_t *cmds, uint32_t ndw,
			 struct vdxg_ref3d_fault *fault);

/*
 * One invocation of the bound program of a stage, outside a draw: what a
 * draw does for a vertex (stage 0, lane 0 only) or for a quad (stage 1,
 * lanes 0 to 3: pixels (0, 0), (1, 0), (0, 1), (1, 1) of a quad). It
 * first checks the draw-time references of that program (SHADER) and
 * reads the stage's constants from memory, as a draw does. in[] holds
 * the inputs of each lane (IN[i] channel c is in[lane][i][c], binary32
 * bits); live is the lanes that start live (L; a vertex: 1). On return
 * out[] holds the outputs, live the lanes not discarded (KILL, KILL_IF)
 * and visits the instructions visited. Returns 0 or the fault's reason.
 */
struct vdxg_ref3d_invocation {
	uint32_t in[4][VDXG_REF3D_NUM_INPUTS][4];
	uint32_t out[4][VDXG_REF3D_NUM_OUTPUTS][4];
	uint32_t live;
	uint32_t visits;
};
uint32_t vdxg_ref3d_invoke(struct vdxg_ref3d_ctx *ctx,
			   const struct vdxg_ref3d_mem *mem, uint32_t stage,
			   struct vdxg_ref3d_invocation *inv,
			   struct vdxg_ref3d_fault *fault);

/*
 * Vertex fetch: the vertex program's inputs IN[0..15] (binary32 bits) of
 * the vertex of that index, from the ELEMENT registers and the vertex
 * buffers bound. Returns 0 or the fault's reason (an ADDRESS fault of a
 * read that failed).
 */
uint32_t vdxg_ref3d_fetch(const struct vdxg_ref3d_ctx *ctx,
			  const struct vdxg_ref3d_mem *mem, uint32_t index,
			  uint32_t in[VDXG_REF3D_NUM_INPUTS][4],
			  struct vdxg_ref3d_fault *fault);

/*
 * Decode and check a program of size bytes (dwords little endian, as in
 * memory) for a stage, as SET_SHADER does; addr is its GPU address, for
 * the fault's address. Returns 0 or VDXG_FAULT_SHADER with *fault_addr.
 */
uint32_t vdxg_ref3d_program_load(struct vdxg_ref3d_program *prog,
				 uint32_t stage, uint64_t addr,
				 const uint32_t *dw, uint32_t size,
				 uint64_t *fault_addr);

/* Whether value is allowed in state register reg (SET_STATE's check). */
bool vdxg_ref3d_reg_valid(uint32_t reg, uint32_t value);

/* The spec's arithmetic ("Arithmetic"), on binary32 values. */
float vdxg_ref3d_ex2(float x);
float vdxg_ref3d_lg2(float x);
float vdxg_ref3d_sin(float x);
float vdxg_ref3d_cos(float x);
float vdxg_ref3d_ldexp(float a, float b);
/* Float to an unsigned n-bit channel (colour, depth), clamped first. */
uint32_t vdxg_ref3d_unorm(float x, uint32_t n);

/*
 * A texel or pixel of a colour format (VDXG_FMT_*: target or texture
 * formats) at p (little endian) as floats r, g, b, a.
 */
void vdxg_ref3d_texel(uint32_t format, const uint8_t *p, float rgba[4]);
/* Bytes a pixel of a format (0 for an unknown format). */
uint32_t vdxg_ref3d_cpp(uint32_t format);

/*
 * The 3D part of the state area (version 2): dwords 64 to 287 of area[]
 * from ctx, every field written (the programs by address and size).
 */
void vdxg_ref3d_state_store(const struct vdxg_ref3d_ctx *ctx,
			    uint32_t *area);

/*
 * The 3D part of a state area loaded into ctx (dwords 64 to 287 of area[],
 * the area at GPU address area_addr), each field checked as its command
 * checks it in virtual mode, in the order of the dwords: PARAM at
 * area_addr for a field a command would reject, SHADER for a program
 * that fails SET_SHADER's checks (it is read again through mem), ADDRESS
 * for a read that fails. On a fault ctx is partly loaded.
 */
uint32_t vdxg_ref3d_state_load(struct vdxg_ref3d_ctx *ctx,
			       const struct vdxg_ref3d_mem *mem,
			       const uint32_t *area, uint64_t area_addr,
			       struct vdxg_ref3d_fault *fault);

#ifdef __cplusplus
}
#endif

#endif /* VDXG_REF3D_H */
