/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */
#ifndef _VDXG_SPLIT_H_
#define _VDXG_SPLIT_H_

#include <linux/bits.h>
#include <linux/types.h>

#include "vdxg_cmdparse.h"

struct drm_vdxg_patch_location;

/* The segments the engines reach that an allocation may be resident in. */
#define VDXG_SPLIT_VRAM		BIT(0)
#define VDXG_SPLIT_APERTURE	BIT(1)

/**
 * struct vdxg_split_alloc - an allocation, as the partitioner sees it
 * @size: bytes
 * @where: VDXG_SPLIT_* of the segments it may be resident in
 * @aperture_first: its segment set has the aperture before VRAM
 */
struct vdxg_split_alloc {
	u64 size;
	u32 where;
	bool aperture_first;
};

/**
 * struct vdxg_piece - one piece of a split submission
 * @start: its first dword in the command buffer
 * @end: the dword after its last
 * @first_patch: its first patch location, in the sorted list
 * @end_patch: the patch location after its last
 * @nsetters: commands run again at its start
 * @setters: their first dwords in the command buffer, ascending
 * @bytes: the bytes of the allocations it uses
 *
 * DXGKARG_PATCH's DmaBufferSubmissionStartOffset/EndOffset are @start and
 * @end (in dwords), its PatchLocationListSubmissionStart/Length
 * @first_patch and @end_patch - @first_patch.
 */
struct vdxg_piece {
	u32 start;
	u32 end;
	u32 first_patch;
	u32 end_patch;
	u32 nsetters;
	u32 setters[VDXG_CP_MAX_STATE];
	u64 bytes;
};

/**
 * struct vdxg_split - the partitioning of one command buffer
 * @cmds: the buffer, validated by vdxg_cmd_parse()
 * @ndw: its dwords
 * @patches: its patch locations, sorted by vdxg_cmd_parse()
 * @npatches: their number
 * @splits: its split points, from vdxg_cmd_parse()
 * @allocs: its allocations
 * @nallocs: their number
 * @vram: bytes of VRAM the allocations of one piece may use
 * @aperture: bytes of the aperture they may use
 * @mark: scratch, @nallocs entries, zeroed before the first call
 * @gen: scratch, zero before the first call
 * @pieces: room for @max_pieces pieces
 * @max_pieces: the most pieces allowed
 * @npieces: out: pieces planned
 */
struct vdxg_split {
	const u32 *cmds;
	u32 ndw;
	const struct drm_vdxg_patch_location *patches;
	u32 npatches;
	const struct vdxg_cp_splits *splits;
	const struct vdxg_split_alloc *allocs;
	u32 nallocs;
	u64 vram;
	u64 aperture;
	u32 *mark;
	u32 gen;
	struct vdxg_piece *pieces;
	u32 max_pieces;
	u32 npieces;
};

int vdxg_split_plan(struct vdxg_split *sp);
u32 vdxg_split_piece_allocs(struct vdxg_split *sp,
			    const struct vdxg_piece *piece, u32 *index);
u32 vdxg_split_piece_dwords(const struct vdxg_split *sp,
			    const struct vdxg_piece *piece);
void vdxg_split_piece_build(const struct vdxg_split *sp,
			    const struct vdxg_piece *piece, const u64 *gpu_addr,
			    u32 *out);

#endif
