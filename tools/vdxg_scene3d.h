/* SPDX-License-Identifier: MIT */
/*
 * The 3D scene of vdxg-demo --3d and vdxg-bench's 3d group: a lit,
 * textured, depth-tested cube and a translucent smaller cube in front of
 * it, drawn by the RENDER engine's 3D pipeline with shader programs
 * written in the assembler's text form (docs/shader-asm.md).
 *
 * Everything the scene reads (programs, constants, vertices, indices, the
 * mipmapped texture) lives in one object, the resources, at the offsets
 * of struct scene3d. The commands are written through struct scene3d_ops
 * so that one sequence serves SUBMIT (vdxg_cs, patch locations), EXEC
 * (vdxg_vcs, virtual addresses) and the reference pipeline (vdxg_ref3d,
 * which runs the vdxg_vcs form on a flat address space).
 *
 * Its arithmetic is binary32, one operation at a time (no FMA
 * contraction), and its sines and cosines are the spec's (vdxg_ref3d_sin,
 * _cos): the same time gives the same bits on every machine, so that the
 * host can render the reference of what the guest shows.
 */
#ifndef VDXG_SCENE3D_H
#define VDXG_SCENE3D_H

#include <stdint.h>

/* The constant slots: one per frame in flight (the demo's back buffer). */
#define SCENE3D_SLOTS	2

struct scene3d {
	uint32_t w, h;
	uint32_t *vs, *fs_cube, *fs_glass;	/* assembled programs */
	uint32_t vs_size, fs_cube_size, fs_glass_size;
	/* Offsets in the resources, and their size */
	uint32_t off_vs, off_fs_cube, off_fs_glass, off_vb, off_ib, off_tex;
	uint32_t off_consts[SCENE3D_SLOTS];	/* 2 sets of vertex constants */
	uint32_t tex_size, size;
};

/* Bytes the target (XRGB8888) and the depth buffer (D24S8) need. */
#define SCENE3D_FB_SIZE(s)	((uint64_t)(s)->w * (s)->h * 4)

/*
 * How the commands reach their stream. OFF is an offset in the resources;
 * fb_depth binds the back buffer (DST, XRGB8888) and the depth buffer
 * (DEPTH, D24S8), both w x h with a pitch of w * 4.
 */
struct scene3d_ops {
	void (*fb_depth)(void *o);
	void (*set_state)(void *o, uint32_t first, const uint32_t *v,
			  uint32_t n);
	void (*set_shader)(void *o, uint32_t stage, uint32_t off,
			   uint32_t size);
	void (*set_constants)(void *o, uint32_t stage, uint32_t off,
			      uint32_t count);
	void (*set_vertex_buffer)(void *o, uint32_t index, uint32_t off,
				  uint32_t size, uint32_t stride);
	void (*set_index_buffer)(void *o, uint32_t off, uint32_t size,
				 uint32_t index_size);
	void (*set_texture)(void *o, uint32_t unit, uint32_t off,
			    uint32_t size, uint32_t desc, uint32_t width,
			    uint32_t height);
	void (*draw_indexed)(void *o, uint32_t prim, uint32_t first,
			     uint32_t count, int32_t bias);
	void (*clear)(void *o, uint32_t flags, uint32_t w, uint32_t h,
		      const float *rgba, float depth);
};

/* The ops of the two submission models; O is a struct scene3d_vcs, _cs. */
struct vdxg_vcs;
struct vdxg_cs;
struct vdxg_bo;
struct scene3d_vcs {
	struct vdxg_vcs *vcs;
	uint64_t res_va, fb_va, depth_va;
	uint32_t w, h;
};
struct scene3d_cs {
	struct vdxg_cs *cs;
	struct vdxg_bo *res, *fb, *depth;
	uint32_t w, h;
};
extern const struct scene3d_ops scene3d_vcs_ops, scene3d_cs_ops;

/* Assemble the programs and lay out the resources: 0 or a negative errno. */
int scene3d_init(struct scene3d *s, uint32_t w, uint32_t h);
void scene3d_fini(struct scene3d *s);
/* The resources that never change: programs, vertices, indices, texture. */
void scene3d_fill(const struct scene3d *s, void *res);
/* The constants of time T (seconds) into slot SLOT. */
void scene3d_frame(const struct scene3d *s, void *res, unsigned int slot,
		   float t);
/* The commands of a frame that reads the constants of slot SLOT. */
void scene3d_emit(const struct scene3d *s, const struct scene3d_ops *ops,
		  void *o, unsigned int slot);
/*
 * The reference pipeline's picture of a frame: RES (the resources as the
 * frame reads them) drawn into DST (w x h XRGB8888, pitch w * 4) and a
 * depth buffer of its own. Returns 0, the fault's reason (positive), or
 * a negative errno (-ENOMEM; -EINVAL when the commands could not be built).
 */
int scene3d_reference(const struct scene3d *s, const void *res,
			   unsigned int slot, uint32_t *dst);

#endif /* VDXG_SCENE3D_H */
