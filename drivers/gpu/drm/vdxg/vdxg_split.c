// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/bitmap.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include <drm/vdxg_drm.h>

#include "vdxg_split.h"

/**
 * DOC: Partial submissions
 *
 * WDDM's video memory manager submits a DMA buffer in pieces when its
 * allocations cannot be resident together: it cuts the buffer at the split
 * offsets of its patch locations (D3DDDI_PATCHLOCATIONLIST.SplitOffset),
 * makes each piece's allocations resident in turn and patches the piece
 * alone (DXGKARG_PATCH's DmaBufferSubmissionStartOffset/EndOffset and
 * PatchLocationListSubmissionStart/Length). This is the pure half of it:
 * where to cut, and what each piece runs.
 *
 * vdxg_split_plan() walks the validated buffer once, greedily: a piece
 * grows command by command while the allocations it uses fit the budget
 * (the bytes of VRAM and aperture the engines reach that no pinned object
 * holds; each allocation whole in one of them, in its set's order, as TTM
 * places them), and ends at the last split point before the command that would
 * not fit. A piece uses the allocations its address fields name, and
 * those of the state it inherits: the engine clears its surface slots and
 * its 3D registers and bindings at every ring entry, so a piece starts with
 * the commands that last set each key of state it uses before setting it
 * itself (vdxg_cmd_state() says which; a 3D draw uses all of the 3D
 * state). Those commands are copied to the front of the piece, in their
 * order in the buffer, and patched with it: a command that set several
 * keys and a later one that set some of them again leave what the later
 * one set. A replayed SET_SHADER or LOAD_STATE reads its memory again, as
 * it is when the piece runs: a buffer that rewrites a program or a state
 * block with the GPU after binding it gets the new bytes in the pieces
 * after a cut (the device checks them as it always does).
 *
 * The plan fails with -ENOMEM when a piece that does not fit has no split
 * point to end at, and with -E2BIG past the most pieces allowed.
 *
 * vdxg_split_piece_allocs() lists a piece's allocations, to be made
 * resident; vdxg_split_piece_build() writes the piece, patched with the
 * addresses they have then.
 */

/*
 * The allocations of one piece, packed as they come, as TTM places them
 * once everything else is evicted: each whole into the first of its
 * segments with room, in its set's order. An allocation does not
 * straddle the two, so the sum of the sizes alone would promise too much.
 */
struct vdxg_split_ws {
	u64 vram;
	u64 aperture;
	u64 bytes;
	bool over;
};

static void vdxg_split_ws_init(const struct vdxg_split *sp,
			       struct vdxg_split_ws *ws)
{
	ws->vram = sp->vram;
	ws->aperture = sp->aperture;
	ws->bytes = 0;
	ws->over = false;
}

/* The first patch location at or after byte @offset. */
static u32 vdxg_split_patch_at(const struct vdxg_split *sp, u32 offset)
{
	u32 lo = 0, hi = sp->npatches;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (sp->patches[mid].patch_offset < offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Room for @a in segment @seg, whose room is @room: take it. */
static bool vdxg_split_take(const struct vdxg_split_alloc *a, u32 seg,
			    u64 *room)
{
	if (!(a->where & seg) || a->size > *room)
		return false;
	*room -= a->size;
	return true;
}

static void vdxg_split_add_alloc(struct vdxg_split *sp,
				 struct vdxg_split_ws *ws, u32 index)
{
	const struct vdxg_split_alloc *a = &sp->allocs[index];

	if (sp->mark[index] == sp->gen)
		return;
	sp->mark[index] = sp->gen;
	ws->bytes += a->size;
	if (a->aperture_first && vdxg_split_take(a, VDXG_SPLIT_APERTURE,
						 &ws->aperture))
		return;
	if (vdxg_split_take(a, VDXG_SPLIT_VRAM, &ws->vram) ||
	    vdxg_split_take(a, VDXG_SPLIT_APERTURE, &ws->aperture))
		return;
	ws->over = true;
}

/*
 * The allocations the command at dword @i names: its patch locations, the
 * first of which is @p or after. Return the patch location after its last.
 */
static u32 vdxg_split_add_cmd(struct vdxg_split *sp, struct vdxg_split_ws *ws,
			      u32 i, u32 p)
{
	u32 end = (i + vdxg_cmd_len(&sp->cmds[i])) * 4;

	for (; p < sp->npatches && sp->patches[p].patch_offset < end; p++)
		vdxg_split_add_alloc(sp, ws, sp->patches[p].allocation_index);
	return p;
}

/*
 * The command that last set a key of state: its first dword and its first
 * patch location, or VDXG_SPLIT_NONE when no command has set the key.
 */
#define VDXG_SPLIT_NONE		U32_MAX

struct vdxg_split_setter {
	u32 at;
	u32 patch;
};

/* The last setter of each key: as the walk goes, at the piece's start, at
 * its last cut.
 */
struct vdxg_split_scratch {
	struct vdxg_split_setter last[VDXG_CP_MAX_STATE];
	struct vdxg_split_setter base[VDXG_CP_MAX_STATE];
	struct vdxg_split_setter cut[VDXG_CP_MAX_STATE];
};

/* The commands that set @need in @setter, once each, ascending. */
static void vdxg_split_setters(struct vdxg_piece *piece,
			       const struct vdxg_split_setter *setter,
			       const unsigned long *need)
{
	unsigned int b;
	u32 i, n = 0;

	for_each_set_bit(b, need, VDXG_CP_MAX_STATE)
		piece->setters[n++] = setter[b].at;
	sort(piece->setters, n, sizeof(u32), vdxg_cmp_u32, NULL);
	piece->nsetters = 0;
	for (i = 0; i < n; i++)
		if (!i || piece->setters[i] != piece->setters[i - 1])
			piece->setters[piece->nsetters++] = piece->setters[i];
}

/* What a piece has at a point where it may end. */
struct vdxg_split_cut {
	u32 at;
	DECLARE_BITMAP(inherit, VDXG_CP_MAX_STATE);
	u64 bytes;
};

/*
 * Plan the piece that starts at dword @start, with @sc->last the commands
 * that last set each key of state before it (updated to the piece's end).
 */
static int vdxg_split_piece(struct vdxg_split *sp, struct vdxg_piece *piece,
			    u32 start, struct vdxg_split_scratch *sc)
{
	const struct vdxg_cp_splits *splits = sp->splits;
	DECLARE_BITMAP(inherit, VDXG_CP_MAX_STATE);
	DECLARE_BITMAP(set, VDXG_CP_MAX_STATE);
	DECLARE_BITMAP(need, VDXG_CP_MAX_STATE);
	struct vdxg_split_cut cut = {};
	struct vdxg_split_ws ws;
	u32 k = 0, i, p;

	vdxg_split_ws_init(sp, &ws);
	memcpy(sc->base, sc->last, sizeof(sc->base));
	bitmap_zero(inherit, VDXG_CP_MAX_STATE);
	bitmap_zero(set, VDXG_CP_MAX_STATE);
	sp->gen++;
	while (k < splits->count && splits->offsets[k] <= start * 4)
		k++;

	piece->first_patch = vdxg_split_patch_at(sp, start * 4);
	p = piece->first_patch;
	for (i = start; i < sp->ndw; i += vdxg_cmd_len(&sp->cmds[i])) {
		struct vdxg_cp_state st;
		unsigned int b;

		if (k < splits->count && splits->offsets[k] == i * 4) {
			cut.at = i;
			bitmap_copy(cut.inherit, inherit, VDXG_CP_MAX_STATE);
			cut.bytes = ws.bytes;
			memcpy(sc->cut, sc->last, sizeof(sc->cut));
			k++;
		}

		/* State used before the piece sets it, if anything set it. */
		vdxg_cmd_state(&sp->cmds[i], &st);
		bitmap_andnot(need, st.uses, set, VDXG_CP_MAX_STATE);
		bitmap_andnot(need, need, inherit, VDXG_CP_MAX_STATE);
		for_each_set_bit(b, need, VDXG_CP_MAX_STATE) {
			if (sc->base[b].at == VDXG_SPLIT_NONE) {
				__clear_bit(b, need);
				continue;
			}
			vdxg_split_add_cmd(sp, &ws, sc->base[b].at,
					   sc->base[b].patch);
		}
		bitmap_or(inherit, inherit, need, VDXG_CP_MAX_STATE);
		for_each_set_bit(b, st.sets, VDXG_CP_MAX_STATE)
			sc->last[b] = (struct vdxg_split_setter){ i, p };
		p = vdxg_split_add_cmd(sp, &ws, i, p);

		if (ws.over) {
			if (!cut.at)
				return -ENOMEM;
			piece->end = cut.at;
			piece->bytes = cut.bytes;
			vdxg_split_setters(piece, sc->base, cut.inherit);
			memcpy(sc->last, sc->cut, sizeof(sc->last));
			goto out;
		}
		bitmap_or(set, set, st.sets, VDXG_CP_MAX_STATE);
	}
	piece->end = sp->ndw;
	piece->bytes = ws.bytes;
	vdxg_split_setters(piece, sc->base, inherit);
out:
	piece->start = start;
	piece->end_patch = vdxg_split_patch_at(sp, piece->end * 4);
	return 0;
}

/**
 * vdxg_split_plan - cut a command buffer into pieces that fit
 * @sp: the buffer, its lists and the budget; @sp->pieces and
 *	@sp->npieces on return
 *
 * A buffer whose allocations fit together is one piece.
 *
 * Return: 0, -ENOMEM when a piece does not fit and has no split point to
 * end at (or one command alone does not fit) or on no memory for the
 * plan's scratch, or -E2BIG when more than @sp->max_pieces pieces would
 * be needed.
 */
int vdxg_split_plan(struct vdxg_split *sp)
{
	struct vdxg_split_scratch *sc;
	u32 start = 0, b;
	int ret = 0;

	sc = kmalloc(sizeof(*sc), GFP_KERNEL);
	if (!sc)
		return -ENOMEM;
	for (b = 0; b < VDXG_CP_MAX_STATE; b++)
		sc->last[b].at = VDXG_SPLIT_NONE;
	sp->npieces = 0;
	while (start < sp->ndw) {
		struct vdxg_piece *piece;

		if (sp->npieces == sp->max_pieces) {
			ret = -E2BIG;
			break;
		}
		piece = &sp->pieces[sp->npieces];
		ret = vdxg_split_piece(sp, piece, start, sc);
		if (ret)
			break;
		sp->npieces++;
		start = piece->end;
	}
	kfree(sc);
	return ret;
}

/* The allocations of patches [@first, @end) not listed yet. */
static void vdxg_split_list(struct vdxg_split *sp, u32 *index, u32 *n,
			    u32 first, u32 end)
{
	u32 p;

	for (p = first; p < end; p++) {
		u32 a = sp->patches[p].allocation_index;

		if (sp->mark[a] == sp->gen)
			continue;
		sp->mark[a] = sp->gen;
		index[(*n)++] = a;
	}
}

/**
 * vdxg_split_piece_allocs - the allocations a piece uses
 * @sp: the plan
 * @piece: one of its pieces
 * @index: room for @sp->nallocs allocation indices
 *
 * Return: the number of indices written, each allocation once.
 */
u32 vdxg_split_piece_allocs(struct vdxg_split *sp,
			    const struct vdxg_piece *piece, u32 *index)
{
	u32 i, n = 0;

	sp->gen++;
	for (i = 0; i < piece->nsetters; i++) {
		u32 s = piece->setters[i];
		u32 end = s + vdxg_cmd_len(&sp->cmds[s]);

		vdxg_split_list(sp, index, &n, vdxg_split_patch_at(sp, s * 4),
				vdxg_split_patch_at(sp, end * 4));
	}
	vdxg_split_list(sp, index, &n, piece->first_patch, piece->end_patch);
	return n;
}

/**
 * vdxg_split_piece_dwords - the length of a piece as it runs
 * @sp: the plan
 * @piece: one of its pieces
 *
 * Return: its dwords: the commands run again at its start, then its own.
 */
u32 vdxg_split_piece_dwords(const struct vdxg_split *sp,
			    const struct vdxg_piece *piece)
{
	u32 i, n = piece->end - piece->start;

	for (i = 0; i < piece->nsetters; i++)
		n += vdxg_cmd_len(&sp->cmds[piece->setters[i]]);
	return n;
}

/* Copy dwords [@from, @to) to @out, patched; return the dwords written. */
static u32 vdxg_split_copy(const struct vdxg_split *sp, u32 from, u32 to,
			   const u64 *gpu_addr, u32 *out)
{
	u32 p;

	memcpy(out, &sp->cmds[from], (to - from) * sizeof(u32));
	for (p = vdxg_split_patch_at(sp, from * 4);
	     p < sp->npatches && sp->patches[p].patch_offset < to * 4; p++) {
		const struct drm_vdxg_patch_location *pl = &sp->patches[p];
		u64 addr = gpu_addr[pl->allocation_index] +
			   pl->allocation_offset;
		u32 *field = &out[pl->patch_offset / 4 - from];

		field[0] = lower_32_bits(addr);
		field[1] = upper_32_bits(addr);
	}
	return to - from;
}

/**
 * vdxg_split_piece_build - write a piece as it runs
 * @sp: the plan
 * @piece: one of its pieces
 * @gpu_addr: the GPU address of each allocation the piece uses, now
 * @out: room for vdxg_split_piece_dwords() dwords
 *
 * The commands that set the state the piece inherits come first, then the
 * piece's own commands; every address field is patched (DXGKDDI_PATCH
 * for the piece's range of the buffer and of the patch-location list).
 */
void vdxg_split_piece_build(const struct vdxg_split *sp,
			    const struct vdxg_piece *piece, const u64 *gpu_addr,
			    u32 *out)
{
	u32 i, s;

	for (i = 0; i < piece->nsetters; i++) {
		s = piece->setters[i];
		out += vdxg_split_copy(sp, s, s + vdxg_cmd_len(&sp->cmds[s]),
				       gpu_addr, out);
	}
	vdxg_split_copy(sp, piece->start, piece->end, gpu_addr, out);
}
