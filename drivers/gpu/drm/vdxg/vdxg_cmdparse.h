/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */
#ifndef _VDXG_CMDPARSE_H_
#define _VDXG_CMDPARSE_H_

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

/* Surface slot s is state bit s (struct vdxg_cp_state). */
#define VDXG_CP_MAX_STATE	VDXG_NUM_SLOTS

/**
 * struct vdxg_cp_state - the engine state a command sets and uses
 * @sets: VDXG_CP_MAX_STATE bits of state the command sets
 * @uses: bits of state the command needs set before it
 */
struct vdxg_cp_state {
	u32 sets;
	u32 uses;
};

int vdxg_cmd_validate(const u32 *cmds, u32 ndw,
		      const struct vdxg_cp_alloc *allocs, u32 nallocs,
		      struct drm_vdxg_patch_location *patches, u32 npatches,
		      struct vdxg_cp_splits *splits, struct vdxg_cp_error *err);
u32 vdxg_cmd_len(const u32 *cmd);
void vdxg_cmd_state(const u32 *cmd, struct vdxg_cp_state *state);

u32 vdxg_patch_apply(u32 *cmds, const struct drm_vdxg_patch_location *patches,
		     u32 npatches, const u64 *gpu_addr);

#endif
