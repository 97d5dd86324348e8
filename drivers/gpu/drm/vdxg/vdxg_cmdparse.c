// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/sizes.h>
#include <linux/sort.h>

#include <drm/vdxg_drm.h>

#include "vdxg_cmdparse.h"
#include "vdxg_hw.h"

/**
 * DOC: Command buffer validation
 *
 * A submission's command buffer is the RENDER engine's command set
 * (docs/hardware.md, "DMA buffers"). Before the kernel lets it run, the
 * buffer, now in kernel memory, is parsed from start to end:
 *
 * - every command has an allowed opcode, its exact length, zero reserved
 *   bits and operands within the engine's limits (formats, sizes, pitches,
 *   flags, vertex counts), and surface slots are set before use;
 * - every 64-bit address field is named by exactly one patch location, and
 *   every patch location names an address field, with the slot id of the
 *   surface it binds;
 * - the extent each command reaches from its address (a whole surface, a
 *   vertex buffer, a 64-bit fence) lies inside the allocation, from the
 *   patch's allocation offset, with overflow checks; rectangles lie inside
 *   their surfaces; writes go through allocations flagged for writing.
 *
 * Addresses in the buffer are never trusted: after validation the patcher
 * overwrites every address field from the allocation list. The parser keeps
 * no state beyond one buffer and touches no hardware, so KUnit tests it.
 *
 * A patch location's split offset, when not zero, is a point where the
 * kernel may cut the buffer if the allocations do not fit in memory
 * together (D3DDDI_PATCHLOCATIONLIST.SplitOffset, see "Partial
 * submissions"): a command boundary inside the buffer, at or before the
 * address field. The parser checks that and returns the split points
 * sorted; vdxg_cmd_state() tells the partitioner, per command, which
 * engine state (surface slots) it sets and which it uses.
 *
 * Errors: -EINVAL for a malformed command or list, -ERANGE for an access
 * outside its allocation or surface, -EACCES for a write through a
 * read-only allocation.
 */

struct vdxg_cp_surface {
	bool set;
	u32 format;
	u32 width;
	u32 height;
};

struct vdxg_cp {
	const u32 *cmds;
	u32 ndw;
	const struct vdxg_cp_alloc *allocs;
	u32 nallocs;
	const struct drm_vdxg_patch_location *patches;
	u32 npatches;
	u32 next_patch;
	struct vdxg_cp_splits *splits;
	u32 next_split;
	struct vdxg_cp_surface slot[VDXG_NUM_SLOTS];
	struct vdxg_cp_error *err;
};

static const u8 vdxg_cp_len[VDXG_RD_NUM_OPS] = VDXG_RD_LENGTHS;

static int vdxg_cp_fail(struct vdxg_cp *cp, u32 dword, const char *what,
			int ret)
{
	if (cp->err) {
		cp->err->dword = dword;
		cp->err->what = what;
	}
	return ret;
}

static u32 vdxg_cp_cpp(u32 format)
{
	return format == VDXG_FMT_RGB565 ? 2 : 4;
}

/*
 * Match the address field at dword @dw with the next patch location and
 * check the access it makes: @extent bytes aligned to @align, written when
 * @write.
 */
static int vdxg_cp_address(struct vdxg_cp *cp, u32 dw, u32 slot_id,
			   u64 extent, u32 align, bool write)
{
	const struct drm_vdxg_patch_location *p;
	const struct vdxg_cp_alloc *a;
	u64 end;

	if (cp->next_patch == cp->npatches)
		return vdxg_cp_fail(cp, dw, "address field without a patch",
				    -EINVAL);
	p = &cp->patches[cp->next_patch];
	if (p->patch_offset < dw * 4)
		return vdxg_cp_fail(cp, p->patch_offset / 4,
				    "patch not on an address field", -EINVAL);
	if (p->patch_offset > dw * 4)
		return vdxg_cp_fail(cp, dw, "address field without a patch",
				    -EINVAL);
	cp->next_patch++;

	if (p->slot_id != slot_id)
		return vdxg_cp_fail(cp, dw, "wrong slot id", -EINVAL);

	a = &cp->allocs[p->allocation_index];
	if (p->allocation_offset >= a->size)
		return vdxg_cp_fail(cp, dw, "allocation offset past the object",
				    -ERANGE);
	if (check_add_overflow((u64)p->allocation_offset, extent, &end) ||
	    end > a->size)
		return vdxg_cp_fail(cp, dw, "access past the allocation",
				    -ERANGE);
	if (p->allocation_offset % align)
		return vdxg_cp_fail(cp, dw, "misaligned address", -EINVAL);
	if (write && !(a->flags & DRM_VDXG_ALLOC_WRITE))
		return vdxg_cp_fail(cp, dw, "write to a read-only allocation",
				    -EACCES);
	return 0;
}

static int vdxg_cp_mem(struct vdxg_cp *cp, u32 i, bool write)
{
	return vdxg_cp_address(cp, i + VDXG_RD_MEM_DW_ADDR, 0, sizeof(u64),
			       sizeof(u64), write);
}

static int vdxg_cp_set_surface(struct vdxg_cp *cp, u32 i)
{
	const u32 *c = &cp->cmds[i];
	u32 slot = c[VDXG_RD_SURF_DW_SLOT];
	u32 format = c[VDXG_RD_SURF_DW_FORMAT];
	u32 width = c[VDXG_RD_SURF_DW_WIDTH];
	u32 height = c[VDXG_RD_SURF_DW_HEIGHT];
	u32 pitch = c[VDXG_RD_SURF_DW_PITCH];
	struct vdxg_cp_surface *s;
	bool depth, d32;
	u64 extent;
	u32 cpp;
	int ret;

	if (slot >= VDXG_NUM_SLOTS)
		return vdxg_cp_fail(cp, i, "bad surface slot", -EINVAL);
	if (format == 0 || format >= VDXG_NUM_FMTS)
		return vdxg_cp_fail(cp, i, "bad format", -EINVAL);
	/* DEPTH takes D32 only, and only DEPTH takes it. */
	depth = slot == VDXG_SLOT_DEPTH;
	d32 = format == VDXG_FMT_D32;
	if (depth != d32)
		return vdxg_cp_fail(cp, i, "format not allowed in slot",
				    -EINVAL);
	if (width == 0 || width > VDXG_SURF_MAX_DIM ||
	    height == 0 || height > VDXG_SURF_MAX_DIM)
		return vdxg_cp_fail(cp, i, "bad surface size", -EINVAL);
	cpp = vdxg_cp_cpp(format);
	if (pitch % 4 || pitch < width * cpp || pitch > VDXG_SURF_MAX_PITCH)
		return vdxg_cp_fail(cp, i, "bad pitch", -EINVAL);

	extent = (u64)pitch * (height - 1) + (u64)width * cpp;
	ret = vdxg_cp_address(cp, i + VDXG_RD_SURF_DW_ADDR, slot, extent, cpp,
			      slot == VDXG_SLOT_DST || slot == VDXG_SLOT_DEPTH);
	if (ret)
		return ret;

	s = &cp->slot[slot];
	s->set = true;
	s->format = format;
	s->width = width;
	s->height = height;
	return 0;
}

static int vdxg_cp_rect(struct vdxg_cp *cp, u32 i, u32 slot, u32 xy, u32 wh)
{
	const struct vdxg_cp_surface *s = &cp->slot[slot];

	if (!s->set)
		return vdxg_cp_fail(cp, i, "surface slot not set", -EINVAL);
	if (VDXG_RD_X(xy) + VDXG_RD_X(wh) > s->width ||
	    VDXG_RD_Y(xy) + VDXG_RD_Y(wh) > s->height)
		return vdxg_cp_fail(cp, i, "rectangle outside the surface",
				    -ERANGE);
	return 0;
}

static int vdxg_cp_copy(struct vdxg_cp *cp, u32 i, bool blend)
{
	const u32 *c = &cp->cmds[i];
	u32 wh = c[VDXG_RD_COPY_DW_WH];
	int ret;

	if (blend && c[VDXG_RD_BLEND_DW_ALPHA] > 0xff)
		return vdxg_cp_fail(cp, i, "reserved alpha bits", -EINVAL);
	ret = vdxg_cp_rect(cp, i, VDXG_SLOT_SRC, c[VDXG_RD_COPY_DW_SRC_XY], wh);
	if (ret)
		return ret;
	return vdxg_cp_rect(cp, i, VDXG_SLOT_DST, c[VDXG_RD_COPY_DW_DST_XY], wh);
}

static int vdxg_cp_draw(struct vdxg_cp *cp, u32 i)
{
	const u32 *c = &cp->cmds[i];
	u32 flags = c[VDXG_RD_DRAW_DW_FLAGS];
	u32 count = c[VDXG_RD_DRAW_DW_COUNT];

	if (flags & ~VDXG_DRAW_FLAGS_MASK)
		return vdxg_cp_fail(cp, i, "reserved draw flags", -EINVAL);
	if ((flags & VDXG_DRAW_BILINEAR) && !(flags & VDXG_DRAW_TEXTURE))
		return vdxg_cp_fail(cp, i, "bilinear without texture", -EINVAL);
	if (count < 3 || count % 3 || count > VDXG_DRAW_MAX_VERTICES)
		return vdxg_cp_fail(cp, i, "bad vertex count", -EINVAL);
	if (!cp->slot[VDXG_SLOT_DST].set ||
	    ((flags & VDXG_DRAW_TEXTURE) && !cp->slot[VDXG_SLOT_TEXTURE].set) ||
	    ((flags & (VDXG_DRAW_DEPTH_TEST | VDXG_DRAW_DEPTH_WRITE)) &&
	     !cp->slot[VDXG_SLOT_DEPTH].set))
		return vdxg_cp_fail(cp, i, "surface slot not set", -EINVAL);
	if ((flags & (VDXG_DRAW_DEPTH_TEST | VDXG_DRAW_DEPTH_WRITE)) &&
	    (cp->slot[VDXG_SLOT_DEPTH].width < cp->slot[VDXG_SLOT_DST].width ||
	     cp->slot[VDXG_SLOT_DEPTH].height < cp->slot[VDXG_SLOT_DST].height))
		return vdxg_cp_fail(cp, i, "depth surface smaller than target",
				    -ERANGE);

	return vdxg_cp_address(cp, i + VDXG_RD_DRAW_DW_VB, 0,
			       (u64)count * VDXG_VERTEX_SIZE, 4, false);
}

static int vdxg_cp_command(struct vdxg_cp *cp, u32 i, u32 op)
{
	const u32 *c = &cp->cmds[i];

	switch (op) {
	case VDXG_RD_NOP:
		return 0;
	case VDXG_RD_FENCE:
		return vdxg_cp_mem(cp, i, true);
	case VDXG_RD_WAIT:
		return vdxg_cp_mem(cp, i, false);
	case VDXG_RD_SET_SURFACE:
		return vdxg_cp_set_surface(cp, i);
	case VDXG_RD_FILL_RECT:
		return vdxg_cp_rect(cp, i, VDXG_SLOT_DST,
				    c[VDXG_RD_FILL_DW_XY], c[VDXG_RD_FILL_DW_WH]);
	case VDXG_RD_COPY_RECT:
		return vdxg_cp_copy(cp, i, false);
	case VDXG_RD_BLEND:
		return vdxg_cp_copy(cp, i, true);
	case VDXG_RD_DRAW_TRIANGLES:
		return vdxg_cp_draw(cp, i);
	}
	return vdxg_cp_fail(cp, i, "unknown opcode", -EINVAL);
}

static int vdxg_cp_cmp_patch(const void *a, const void *b)
{
	const struct drm_vdxg_patch_location *pa = a, *pb = b;

	if (pa->patch_offset != pb->patch_offset)
		return pa->patch_offset < pb->patch_offset ? -1 : 1;
	return 0;
}

static int vdxg_cp_cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * A split offset lies inside the buffer, at or before its address field;
 * the walk checks that it is a command boundary. Without @cp->splits the
 * caller takes no split points.
 */
static int vdxg_cp_check_split(struct vdxg_cp *cp,
			       const struct drm_vdxg_patch_location *p, u32 i)
{
	if (!p->split_offset)
		return 0;
	if (!cp->splits)
		return vdxg_cp_fail(cp, i, "split offset", -EINVAL);
	if (p->split_offset % 4 || p->split_offset > p->patch_offset)
		return vdxg_cp_fail(cp, i, "bad split offset", -EINVAL);
	cp->splits->offsets[cp->splits->count++] = p->split_offset;
	return 0;
}

/* Sort the split points and drop duplicates. */
static void vdxg_cp_sort_splits(struct vdxg_cp_splits *splits)
{
	u32 i, n = 0;

	sort(splits->offsets, splits->count, sizeof(u32), vdxg_cp_cmp_u32,
	     NULL);
	for (i = 0; i < splits->count; i++)
		if (!n || splits->offsets[i] != splits->offsets[n - 1])
			splits->offsets[n++] = splits->offsets[i];
	splits->count = n;
}

/* Check each patch on its own, then sort them by patch offset. */
static int vdxg_cp_prepare_patches(struct vdxg_cp *cp,
				   struct drm_vdxg_patch_location *patches)
{
	u32 size = cp->ndw * 4;
	u32 i;
	int ret;

	if (cp->splits)
		cp->splits->count = 0;
	for (i = 0; i < cp->npatches; i++) {
		const struct drm_vdxg_patch_location *p = &patches[i];

		if (p->allocation_index >= cp->nallocs)
			return vdxg_cp_fail(cp, i,
					    "allocation index out of range",
					    -EINVAL);
		if (p->patch_offset % 4)
			return vdxg_cp_fail(cp, i, "misaligned patch offset",
					    -EINVAL);
		if (size < 8 || p->patch_offset > size - 8)
			return vdxg_cp_fail(cp, i, "patch outside the buffer",
					    -EINVAL);
		ret = vdxg_cp_check_split(cp, p, i);
		if (ret)
			return ret;
	}

	sort(patches, cp->npatches, sizeof(*patches), vdxg_cp_cmp_patch, NULL);
	if (cp->splits)
		vdxg_cp_sort_splits(cp->splits);

	for (i = 1; i < cp->npatches; i++)
		if (patches[i].patch_offset == patches[i - 1].patch_offset)
			return vdxg_cp_fail(cp, patches[i].patch_offset / 4,
					    "duplicate patch location",
					    -EINVAL);
	return 0;
}

/* Split points up to the command at dword @i must be command starts. */
static int vdxg_cp_pass_splits(struct vdxg_cp *cp, u32 i)
{
	const struct vdxg_cp_splits *splits = cp->splits;

	if (!splits)
		return 0;
	for (; cp->next_split < splits->count; cp->next_split++) {
		u32 off = splits->offsets[cp->next_split];

		if (off > i * 4)
			break;
		if (off < i * 4)
			return vdxg_cp_fail(cp, off / 4,
					    "split offset inside a command",
					    -EINVAL);
	}
	return 0;
}

/**
 * vdxg_cmd_validate - validate a command buffer against its lists
 * @cmds: the command buffer, in kernel memory
 * @ndw: its length in dwords
 * @allocs: the allocation list
 * @nallocs: its length
 * @patches: the patch-location list; sorted by patch offset on return
 * @npatches: its length
 * @splits: if not NULL, room for @npatches split points, returned sorted;
 *	if NULL, a non-zero split offset is refused
 * @err: if not NULL, where and why validation failed
 *
 * Return: 0 if the buffer may run once patched, else -EINVAL, -ERANGE or
 * -EACCES (see the DOC section).
 */
int vdxg_cmd_validate(const u32 *cmds, u32 ndw,
		      const struct vdxg_cp_alloc *allocs, u32 nallocs,
		      struct drm_vdxg_patch_location *patches, u32 npatches,
		      struct vdxg_cp_splits *splits, struct vdxg_cp_error *err)
{
	struct vdxg_cp cp = {
		.cmds = cmds,
		.ndw = ndw,
		.allocs = allocs,
		.nallocs = nallocs,
		.patches = patches,
		.npatches = npatches,
		.splits = splits,
		.err = err,
	};
	u32 i = 0;
	int ret;

	if (!ndw)
		return vdxg_cp_fail(&cp, 0, "empty buffer", -EINVAL);

	ret = vdxg_cp_prepare_patches(&cp, patches);
	if (ret)
		return ret;

	while (i < ndw) {
		u32 hdr = cmds[i];
		u32 op = VDXG_PG_HDR_OP(hdr);
		u32 len = VDXG_PG_HDR_LEN(hdr);

		if (hdr & 0xff00)
			return vdxg_cp_fail(&cp, i, "reserved header bits",
					    -EINVAL);
		if (op >= VDXG_RD_NUM_OPS)
			return vdxg_cp_fail(&cp, i, "unknown opcode", -EINVAL);
		if (len != vdxg_cp_len[op])
			return vdxg_cp_fail(&cp, i, "bad command length",
					    -EINVAL);
		if (len > ndw - i)
			return vdxg_cp_fail(&cp, i, "truncated command",
					    -EINVAL);
		ret = vdxg_cp_pass_splits(&cp, i);
		if (ret)
			return ret;
		ret = vdxg_cp_command(&cp, i, op);
		if (ret)
			return ret;
		i += len;
	}

	if (cp.next_patch != npatches)
		return vdxg_cp_fail(&cp, patches[cp.next_patch].patch_offset / 4,
				    "patch not on an address field", -EINVAL);
	/* The offsets are below the end: any left is inside the last one. */
	return vdxg_cp_pass_splits(&cp, ndw);
}

/**
 * vdxg_cmd_len - the length of a command vdxg_cmd_validate() accepted
 * @cmd: the command
 *
 * Return: its dwords.
 */
u32 vdxg_cmd_len(const u32 *cmd)
{
	return VDXG_PG_HDR_LEN(cmd[0]);
}

/**
 * vdxg_cmd_state - the state a command sets and uses
 * @cmd: a command vdxg_cmd_validate() accepted
 * @state: filled in
 *
 * The engine's state is its surface slots, which it clears at the start
 * of every ring entry. The partitioner of split submissions sets again,
 * at the start of a piece, what the piece uses of what came before: it
 * needs nothing else of a command, so a new command only describes itself
 * here.
 */
void vdxg_cmd_state(const u32 *cmd, struct vdxg_cp_state *state)
{
	u32 flags;

	state->sets = 0;
	state->uses = 0;
	switch (VDXG_PG_HDR_OP(cmd[0])) {
	case VDXG_RD_SET_SURFACE:
		state->sets = BIT(cmd[VDXG_RD_SURF_DW_SLOT]);
		break;
	case VDXG_RD_FILL_RECT:
		state->uses = BIT(VDXG_SLOT_DST);
		break;
	case VDXG_RD_COPY_RECT:
	case VDXG_RD_BLEND:
		state->uses = BIT(VDXG_SLOT_SRC) | BIT(VDXG_SLOT_DST);
		break;
	case VDXG_RD_DRAW_TRIANGLES:
		flags = cmd[VDXG_RD_DRAW_DW_FLAGS];
		state->uses = BIT(VDXG_SLOT_DST);
		if (flags & VDXG_DRAW_TEXTURE)
			state->uses |= BIT(VDXG_SLOT_TEXTURE);
		if (flags & (VDXG_DRAW_DEPTH_TEST | VDXG_DRAW_DEPTH_WRITE))
			state->uses |= BIT(VDXG_SLOT_DEPTH);
		break;
	}
}

/**
 * vdxg_patch_apply - write current GPU addresses into the address fields
 * @cmds: a command buffer that vdxg_cmd_validate() accepted
 * @patches: its patch locations
 * @npatches: their number
 * @gpu_addr: the current GPU address of each allocation
 *
 * This is DXGKDDI_PATCH: each field becomes its allocation's address plus
 * the patch's allocation offset. Fields that already hold that value are
 * left alone, so a buffer whose presumed addresses were all right is not
 * written at all.
 *
 * Return: the number of fields written.
 */
u32 vdxg_patch_apply(u32 *cmds, const struct drm_vdxg_patch_location *patches,
		     u32 npatches, const u64 *gpu_addr)
{
	u32 i, written = 0;

	for (i = 0; i < npatches; i++) {
		const struct drm_vdxg_patch_location *p = &patches[i];
		u64 addr = gpu_addr[p->allocation_index] + p->allocation_offset;
		u32 *field = &cmds[p->patch_offset / 4];

		if (field[0] == lower_32_bits(addr) &&
		    field[1] == upper_32_bits(addr))
			continue;
		field[0] = lower_32_bits(addr);
		field[1] = upper_32_bits(addr);
		written++;
	}
	return written;
}
