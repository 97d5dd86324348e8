/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */
#ifndef _VDXG_CMDPARSE_H_
#define _VDXG_CMDPARSE_H_

#include <linux/types.h>

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

int vdxg_cmd_validate(const u32 *cmds, u32 ndw,
		      const struct vdxg_cp_alloc *allocs, u32 nallocs,
		      struct drm_vdxg_patch_location *patches, u32 npatches,
		      struct vdxg_cp_error *err);

u32 vdxg_patch_apply(u32 *cmds, const struct drm_vdxg_patch_location *patches,
		     u32 npatches, const u64 *gpu_addr);

#endif
