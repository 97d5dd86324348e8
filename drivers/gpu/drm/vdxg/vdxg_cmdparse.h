/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */
#ifndef _VDXG_CMDPARSE_H_
#define _VDXG_CMDPARSE_H_

#include <linux/bitmap.h>
#include <linux/bits.h>
#include <linux/types.h>

#include "vdxg_hw.h"

struct drm_vdxg_patch_location;

/* Limits of one submission. */
#define VDXG_MAX_COMMAND_SIZE	SZ_128K
#define VDXG_MAX_ALLOCATIONS	1024
#define VDXG_MAX_PATCHES	16384

/**
 * struct vdxg_cp_alloc - what the parser knows of one allocation
 * @size: bytes
 * @flags: DRM_VDXG_ALLOC_* of the allocation list entry
 */
struct vdxg_cp_alloc {
	u64 size;
	u32 flags;
};

/**
 * struct vdxg_cp_error - where and why a command buffer was refused
 * @dword: dword index of the command (or of the patch's field)
 * @what: a short reason, for debug logs
 */
struct vdxg_cp_error {
	u32 dword;
	const char *what;
};

/**
 * struct vdxg_cp_splits - the split points of a command buffer
 * @offsets: room for one per patch location; on return the distinct
 *	non-zero split offsets, in bytes, ascending
 * @count: on return, entries used in @offsets
 */
struct vdxg_cp_splits {
	u32 *offsets;
	u32 count;
};

/*
 * The keys of the engine's state (struct vdxg_cp_state): the surface
 * slots, then the 3D pipeline's registers, programs and constants of each
 * stage, vertex buffers, index buffer and texture units.
 */
#define VDXG_CP_KEY_SLOT(s)	(s)
#define VDXG_CP_KEY_REG(r)	(VDXG_NUM_SLOTS + (r))
#define VDXG_CP_KEY_PROGRAM(s)	(VDXG_CP_KEY_REG(VDXG_3D_NUM_REGS) + (s))
#define VDXG_CP_KEY_CONSTS(s)	(VDXG_CP_KEY_PROGRAM(VDXG_3D_NUM_STAGES) + (s))
#define VDXG_CP_KEY_VB(b)	(VDXG_CP_KEY_CONSTS(VDXG_3D_NUM_STAGES) + (b))
#define VDXG_CP_KEY_IB		VDXG_CP_KEY_VB(VDXG_3D_NUM_VBS)
#define VDXG_CP_KEY_TEX(u)	(VDXG_CP_KEY_IB + 1 + (u))
#define VDXG_CP_MAX_STATE	VDXG_CP_KEY_TEX(VDXG_3D_NUM_UNITS)

/**
 * struct vdxg_cp_state - the engine state a command sets and uses
 * @sets: the VDXG_CP_KEY_* of the state the command sets
 * @uses: those of the state it needs as it was before it
 */
struct vdxg_cp_state {
	DECLARE_BITMAP(sets, VDXG_CP_MAX_STATE);
	DECLARE_BITMAP(uses, VDXG_CP_MAX_STATE);
};

/* Flags of vdxg_cmd_parse() */
#define VDXG_CP_3D		BIT(0)	/* the device has VDXG_CAP_3D */

int vdxg_cmd_parse(const u32 *cmds, u32 ndw,
		   const struct vdxg_cp_alloc *allocs, u32 nallocs,
		   struct drm_vdxg_patch_location *patches, u32 npatches,
		   struct vdxg_cp_splits *splits, u32 flags,
		   struct vdxg_cp_error *err);
u32 vdxg_cmd_len(const u32 *cmd);
void vdxg_cmd_state(const u32 *cmd, struct vdxg_cp_state *state);

u32 vdxg_patch_apply(u32 *cmds, const struct drm_vdxg_patch_location *patches,
		     u32 npatches, const u64 *gpu_addr);

/* vdxg_cmd_parse() for a device without the 3D pipeline */
static inline int
vdxg_cmd_validate(const u32 *cmds, u32 ndw,
		  const struct vdxg_cp_alloc *allocs, u32 nallocs,
		  struct drm_vdxg_patch_location *patches, u32 npatches,
		  struct vdxg_cp_splits *splits, struct vdxg_cp_error *err)
{
	return vdxg_cmd_parse(cmds, ndw, allocs, nallocs, patches, npatches,
			      splits, 0, err);
}

/* Ascending u32s, for sort() */
static inline int vdxg_cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

#endif
