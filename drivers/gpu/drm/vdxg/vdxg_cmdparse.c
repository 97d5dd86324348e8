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
 * - with the 3D pipeline (VDXG_CP_3D, the device's VDXG_CAP_3D; without
 *   it opcodes 0x08 and above are refused), every value SET_STATE writes
 *   is one the register allows, the range of every binding (state block,
 *   program, constants, vertex, index and texture buffer) lies in its
 *   allocation and a texture's layout in its size, and draws find what
 *   they need bound: both programs, a target, an index buffer that holds
 *   the indices drawn. LOAD_STATE's values are in memory: the device
 *   checks them as it loads them;
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
 * engine state (surface slots, 3D registers and bindings) it sets and which
 * it uses.
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
	u32 flags;
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
	bool program[VDXG_3D_NUM_STAGES];
	u32 ib_index_size;
	u32 ib_size;
	struct vdxg_cp_error *err;
};

static const u8 vdxg_cp_len[VDXG_RD_NUM_OPS] = VDXG_RD_LENGTHS;

/* The 3D commands' lengths; SET_STATE's varies. */
static const u8 vdxg_cp_len_3d[VDXG_RD_NUM_OPS_3D - VDXG_RD_SET_STATE] = {
	[VDXG_RD_LOAD_STATE - VDXG_RD_SET_STATE] = VDXG_RD_LOAD_STATE_LEN,
	[VDXG_RD_SET_SHADER - VDXG_RD_SET_STATE] = VDXG_RD_SET_SHADER_LEN,
	[VDXG_RD_SET_CONSTANTS - VDXG_RD_SET_STATE] =
		VDXG_RD_SET_CONSTANTS_LEN,
	[VDXG_RD_SET_VERTEX_BUFFER - VDXG_RD_SET_STATE] =
		VDXG_RD_SET_VERTEX_BUFFER_LEN,
	[VDXG_RD_SET_INDEX_BUFFER - VDXG_RD_SET_STATE] =
		VDXG_RD_SET_INDEX_BUFFER_LEN,
	[VDXG_RD_SET_TEXTURE - VDXG_RD_SET_STATE] = VDXG_RD_SET_TEXTURE_LEN,
	[VDXG_RD_DRAW - VDXG_RD_SET_STATE] = VDXG_RD_DRAW_LEN,
	[VDXG_RD_DRAW_INDEXED - VDXG_RD_SET_STATE] = VDXG_RD_DRAW_INDEXED_LEN,
	[VDXG_RD_CLEAR - VDXG_RD_SET_STATE] = VDXG_RD_CLEAR_LEN,
};

/* Bytes a pixel (or texel) of each format; 0 for no format. */
static const u8 vdxg_cp_fmt_cpp[VDXG_NUM_FMTS_3D] = {
	[VDXG_FMT_XRGB8888] = 4,
	[VDXG_FMT_ARGB8888] = 4,
	[VDXG_FMT_RGB565] = 2,
	[VDXG_FMT_D32] = 4,
	[VDXG_FMT_ABGR8888] = 4,
	[VDXG_FMT_RGBA4444] = 2,
	[VDXG_FMT_RGBA5551] = 2,
	[VDXG_FMT_L8] = 1,
	[VDXG_FMT_A8] = 1,
	[VDXG_FMT_L8A8] = 2,
	[VDXG_FMT_RGB888] = 3,
	[VDXG_FMT_D16] = 2,
	[VDXG_FMT_D24S8] = 4,
};

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
	return vdxg_cp_fmt_cpp[format];
}

static bool vdxg_cp_has_3d(const struct vdxg_cp *cp)
{
	return cp->flags & VDXG_CP_3D;
}

/* A SET_SURFACE format that @slot takes. */
static bool vdxg_cp_slot_format(const struct vdxg_cp *cp, u32 slot,
				u32 format)
{
	switch (format) {
	case VDXG_FMT_XRGB8888:
	case VDXG_FMT_ARGB8888:
	case VDXG_FMT_RGB565:
		return slot != VDXG_SLOT_DEPTH;
	case VDXG_FMT_ABGR8888:
	case VDXG_FMT_RGBA4444:
	case VDXG_FMT_RGBA5551:
		return slot != VDXG_SLOT_DEPTH && vdxg_cp_has_3d(cp);
	case VDXG_FMT_D32:
		return slot == VDXG_SLOT_DEPTH;
	case VDXG_FMT_D16:
	case VDXG_FMT_D24S8:
		return slot == VDXG_SLOT_DEPTH && vdxg_cp_has_3d(cp);
	}
	return false;
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
	u64 extent;
	u32 cpp;
	int ret;

	if (slot >= VDXG_NUM_SLOTS)
		return vdxg_cp_fail(cp, i, "bad surface slot", -EINVAL);
	if (format == 0 || format >= VDXG_NUM_FMTS_3D ||
	    (!vdxg_cp_has_3d(cp) && format >= VDXG_NUM_FMTS))
		return vdxg_cp_fail(cp, i, "bad format", -EINVAL);
	/* DEPTH takes the depth formats, the other slots the colour ones. */
	if (!vdxg_cp_slot_format(cp, slot, format))
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
	    cp->slot[VDXG_SLOT_DEPTH].format != VDXG_FMT_D32)
		return vdxg_cp_fail(cp, i, "depth flags need a D32 surface",
				    -EINVAL);
	if ((flags & (VDXG_DRAW_DEPTH_TEST | VDXG_DRAW_DEPTH_WRITE)) &&
	    (cp->slot[VDXG_SLOT_DEPTH].width < cp->slot[VDXG_SLOT_DST].width ||
	     cp->slot[VDXG_SLOT_DEPTH].height < cp->slot[VDXG_SLOT_DST].height))
		return vdxg_cp_fail(cp, i, "depth surface smaller than target",
				    -ERANGE);

	return vdxg_cp_address(cp, i + VDXG_RD_DRAW_DW_VB, 0,
			       (u64)count * VDXG_VERTEX_SIZE, 4, false);
}

/* ------------------------------------------------------ the 3D pipeline */

/* A binary32 that is finite and at most @max_bits as a magnitude. */
static bool vdxg_cp_f32_le(u32 v, u32 max_bits)
{
	return (v & 0x7fffffff) <= max_bits;
}

static bool vdxg_cp_f32_finite(u32 v)
{
	return (v & 0x7f800000) != 0x7f800000;
}

#define VDXG_CP_F32_16384	0x46800000	/* 16384.0f */
#define VDXG_CP_SCISSOR_MAX	8192

static bool vdxg_cp_blend_ok(u32 v)
{
	return !(v & VDXG_BLEND_RSVD) &&
	       ((v >> 1) & 7) < VDXG_NUM_BLEQS &&
	       ((v >> 4) & 0xf) < VDXG_NUM_BLFS &&
	       ((v >> 8) & 0xf) < VDXG_NUM_BLFS &&
	       ((v >> 12) & 7) < VDXG_NUM_BLEQS &&
	       ((v >> 16) & 0xf) < VDXG_NUM_BLFS &&
	       ((v >> 20) & 0xf) < VDXG_NUM_BLFS;
}

static bool vdxg_cp_element_ok(u32 v)
{
	u32 fmt = VDXG_ELEMENT_FORMAT(v);
	u32 type = VDXG_VFMT_TYPE(fmt);

	if (v & VDXG_ELEMENT_RSVD || type >= VDXG_NUM_VTYPES)
		return false;
	/* An element that is off has one component: format 0. */
	return type != VDXG_VTYPE_NONE || fmt == 0;
}

static bool vdxg_cp_sampler_ok(u32 v)
{
	return !(v & ~VDXG_SAMPLER_MASK) &&
	       ((v >> 2) & 3) <= VDXG_MIP_LINEAR &&
	       ((v >> 4) & 7) <= VDXG_WRAP_MIRROR &&
	       ((v >> 7) & 7) <= VDXG_WRAP_MIRROR;
}

/* A value register @reg allows (docs/hardware.md, "State"). */
static bool vdxg_cp_reg_ok(u32 reg, u32 v)
{
	switch (reg) {
	case VDXG_3D_RASTER:
		return !(v & ~VDXG_RASTER_MASK);
	case VDXG_3D_POINT_SIZE:
	case VDXG_3D_POLY_OFFSET_FACTOR:
	case VDXG_3D_POLY_OFFSET_UNITS:
		return vdxg_cp_f32_finite(v);
	case VDXG_3D_VIEWPORT_SCALE(0) ... VDXG_3D_VIEWPORT_TRANSLATE(2):
		return vdxg_cp_f32_le(v, VDXG_CP_F32_16384);
	case VDXG_3D_SCISSOR_MIN:
	case VDXG_3D_SCISSOR_MAX:
		return VDXG_RD_X(v) <= VDXG_CP_SCISSOR_MAX &&
		       VDXG_RD_Y(v) <= VDXG_CP_SCISSOR_MAX;
	case VDXG_3D_DEPTH:
		return !(v & ~VDXG_DEPTH_MASK);
	case VDXG_3D_STENCIL_FRONT:
	case VDXG_3D_STENCIL_BACK:
		return !(v & VDXG_STENCIL_RSVD);
	case VDXG_3D_STENCIL_REF:
		return !(v & 0xffff0000);
	case VDXG_3D_BLEND:
		return vdxg_cp_blend_ok(v);
	case VDXG_3D_BLEND_COLOR(0) ... VDXG_3D_BLEND_COLOR(3):
		return true;
	case VDXG_3D_ELEMENT(0) ... VDXG_3D_ELEMENT(VDXG_3D_NUM_ELEMENTS - 1):
		return vdxg_cp_element_ok(v);
	case VDXG_3D_SAMPLER(0) ... VDXG_3D_SAMPLER(VDXG_3D_NUM_UNITS - 1):
		return vdxg_cp_sampler_ok(v);
	}
	return !v;
}

/* SET_STATE: registers [first, first + n), each value checked. */
static int vdxg_cp_set_state(struct vdxg_cp *cp, u32 i, u32 len)
{
	const u32 *c = &cp->cmds[i];
	u32 first = c[VDXG_RD_STATE_DW_FIRST];
	u32 n = len - VDXG_RD_STATE_DW_VALUES;
	u32 k;

	if (first >= VDXG_3D_NUM_REGS || n > VDXG_3D_NUM_REGS - first)
		return vdxg_cp_fail(cp, i, "registers past the last", -EINVAL);
	for (k = 0; k < n; k++)
		if (!vdxg_cp_reg_ok(first + k, c[VDXG_RD_STATE_DW_VALUES + k]))
			return vdxg_cp_fail(cp, i, "bad register value",
					    -EINVAL);
	return 0;
}

/* LOAD_STATE: the device checks the values as it loads them. */
static int vdxg_cp_load_state(struct vdxg_cp *cp, u32 i)
{
	const u32 *c = &cp->cmds[i];
	u32 first = c[VDXG_RD_LOAD_DW_FIRST];
	u32 count = c[VDXG_RD_LOAD_DW_COUNT];

	if (count == 0 || count > VDXG_3D_NUM_REGS)
		return vdxg_cp_fail(cp, i, "bad register count", -EINVAL);
	if (first > VDXG_3D_NUM_REGS - count)
		return vdxg_cp_fail(cp, i, "registers past the last", -EINVAL);
	return vdxg_cp_address(cp, i + VDXG_RD_LOAD_DW_ADDR, 0, 4ull * count,
			       4, false);
}

static int vdxg_cp_set_shader(struct vdxg_cp *cp, u32 i)
{
	const u32 *c = &cp->cmds[i];
	u32 stage = c[VDXG_RD_SHADER_DW_STAGE];
	u32 size = c[VDXG_RD_SHADER_DW_SIZE];
	int ret;

	if (stage >= VDXG_3D_NUM_STAGES)
		return vdxg_cp_fail(cp, i, "bad stage", -EINVAL);
	if (size < VDXG_PROG_HEADER_SIZE || size > VDXG_3D_PROGRAM_MAX_BYTES)
		return vdxg_cp_fail(cp, i, "bad program size", -EINVAL);
	ret = vdxg_cp_address(cp, i + VDXG_RD_SHADER_DW_ADDR, 0, size, 4,
			      false);
	if (ret)
		return ret;
	cp->program[stage] = true;
	return 0;
}

/*
 * An unbinding command names no range: its address field is zero and no
 * patch location names it (a patch there is refused as on no field).
 */
static int vdxg_cp_no_address(struct vdxg_cp *cp, u32 i, u32 dw)
{
	if (cp->cmds[i + dw] || cp->cmds[i + dw + 1])
		return vdxg_cp_fail(cp, i, "address in an unbinding command",
				    -EINVAL);
	return 0;
}

static int vdxg_cp_set_constants(struct vdxg_cp *cp, u32 i)
{
	const u32 *c = &cp->cmds[i];
	u32 count = c[VDXG_RD_CONST_DW_COUNT];

	if (c[VDXG_RD_CONST_DW_STAGE] >= VDXG_3D_NUM_STAGES)
		return vdxg_cp_fail(cp, i, "bad stage", -EINVAL);
	if (count > VDXG_3D_NUM_CONSTS)
		return vdxg_cp_fail(cp, i, "bad constant count", -EINVAL);
	if (!count)
		return vdxg_cp_no_address(cp, i, VDXG_RD_CONST_DW_ADDR);
	return vdxg_cp_address(cp, i + VDXG_RD_CONST_DW_ADDR, 0, 16ull * count,
			       4, false);
}

static int vdxg_cp_set_vertex_buffer(struct vdxg_cp *cp, u32 i)
{
	const u32 *c = &cp->cmds[i];
	u32 size = c[VDXG_RD_VB_DW_SIZE];

	if (c[VDXG_RD_VB_DW_INDEX] >= VDXG_3D_NUM_VBS)
		return vdxg_cp_fail(cp, i, "bad vertex buffer index", -EINVAL);
	if (c[VDXG_RD_VB_DW_STRIDE] > VDXG_3D_MAX_STRIDE)
		return vdxg_cp_fail(cp, i, "bad stride", -EINVAL);
	if (!size)
		return vdxg_cp_no_address(cp, i, VDXG_RD_VB_DW_ADDR);
	return vdxg_cp_address(cp, i + VDXG_RD_VB_DW_ADDR, 0, size, 1, false);
}

static int vdxg_cp_set_index_buffer(struct vdxg_cp *cp, u32 i)
{
	const u32 *c = &cp->cmds[i];
	u32 index_size = c[VDXG_RD_IB_DW_INDEX_SIZE];
	u32 size = c[VDXG_RD_IB_DW_SIZE];
	int ret;

	if (index_size != 0 && index_size != 1 && index_size != 2 &&
	    index_size != 4)
		return vdxg_cp_fail(cp, i, "bad index size", -EINVAL);
	if (!index_size && size)
		return vdxg_cp_fail(cp, i, "size of no index buffer", -EINVAL);
	if (!index_size)
		ret = vdxg_cp_no_address(cp, i, VDXG_RD_IB_DW_ADDR);
	else
		ret = vdxg_cp_address(cp, i + VDXG_RD_IB_DW_ADDR, 0, size, 1,
				      false);
	if (ret)
		return ret;
	cp->ib_index_size = index_size;
	cp->ib_size = size;
	return 0;
}

static bool vdxg_cp_tex_format(u32 format)
{
	switch (format) {
	case VDXG_FMT_XRGB8888:
	case VDXG_FMT_ARGB8888:
	case VDXG_FMT_RGB565:
	case VDXG_FMT_ABGR8888:
	case VDXG_FMT_RGBA4444:
	case VDXG_FMT_RGBA5551:
	case VDXG_FMT_L8:
	case VDXG_FMT_A8:
	case VDXG_FMT_L8A8:
	case VDXG_FMT_RGB888:
		return true;
	}
	return false;
}

/* The bytes of a texture's layout (docs/hardware.md, "Texture layout"). */
static u64 vdxg_cp_tex_layout(u32 format, u32 levels, bool cube, u32 width,
			      u32 height)
{
	u32 faces = cube ? VDXG_TEX_FACES_CUBE : 1;
	u32 cpp = vdxg_cp_cpp(format);
	u64 bytes = 0;
	u32 l;

	for (l = 0; l < levels; l++) {
		u32 w = max(width >> l, 1u), h = max(height >> l, 1u);

		bytes += (u64)faces * ALIGN(w * cpp, 4) * h;
	}
	return bytes;
}

static int vdxg_cp_set_texture(struct vdxg_cp *cp, u32 i)
{
	const u32 *c = &cp->cmds[i];
	u32 desc = c[VDXG_RD_TEX_DW_FORMAT];
	u32 format = VDXG_TEX_FORMAT(desc);
	u32 levels = VDXG_TEX_LEVELS(desc);
	bool cube = desc & VDXG_TEX_CUBE;
	u32 width = VDXG_RD_X(c[VDXG_RD_TEX_DW_WH]);
	u32 height = VDXG_RD_Y(c[VDXG_RD_TEX_DW_WH]);
	u32 size = c[VDXG_RD_TEX_DW_SIZE];

	if (c[VDXG_RD_TEX_DW_UNIT] >= VDXG_3D_NUM_UNITS)
		return vdxg_cp_fail(cp, i, "bad texture unit", -EINVAL);
	if (!desc) {
		if (size || c[VDXG_RD_TEX_DW_WH])
			return vdxg_cp_fail(cp, i, "fields of no texture",
					    -EINVAL);
		return vdxg_cp_no_address(cp, i, VDXG_RD_TEX_DW_ADDR);
	}
	if (desc & ~(0xff | 0xf00 | VDXG_TEX_CUBE))
		return vdxg_cp_fail(cp, i, "reserved texture bits", -EINVAL);
	if (!vdxg_cp_tex_format(format))
		return vdxg_cp_fail(cp, i, "bad texture format", -EINVAL);
	if (levels == 0 || levels > VDXG_TEX_MAX_LEVELS)
		return vdxg_cp_fail(cp, i, "bad texture levels", -EINVAL);
	if (width == 0 || width > VDXG_TEX_MAX_DIM ||
	    height == 0 || height > VDXG_TEX_MAX_DIM ||
	    (cube && width != height))
		return vdxg_cp_fail(cp, i, "bad texture size", -EINVAL);
	if (vdxg_cp_tex_layout(format, levels, cube, width, height) > size)
		return vdxg_cp_fail(cp, i, "texture layout past its size",
				    -EINVAL);
	return vdxg_cp_address(cp, i + VDXG_RD_TEX_DW_ADDR, 0, size, 4, false);
}

/* What DRAW and DRAW_INDEXED need bound. */
static int vdxg_cp_draw3d(struct vdxg_cp *cp, u32 i, bool indexed)
{
	const struct vdxg_cp_surface *dst = &cp->slot[VDXG_SLOT_DST];
	const struct vdxg_cp_surface *depth = &cp->slot[VDXG_SLOT_DEPTH];
	const u32 *c = &cp->cmds[i];
	u64 first = c[VDXG_RD_DRAW3D_DW_FIRST];
	u32 count = c[VDXG_RD_DRAW3D_DW_COUNT];

	if (c[VDXG_RD_DRAW3D_DW_PRIM] >= VDXG_NUM_PRIMS)
		return vdxg_cp_fail(cp, i, "bad primitive", -EINVAL);
	if (count > VDXG_3D_MAX_COUNT)
		return vdxg_cp_fail(cp, i, "bad vertex count", -EINVAL);
	if (!cp->program[VDXG_3D_STAGE_VERTEX] ||
	    !cp->program[VDXG_3D_STAGE_FRAGMENT])
		return vdxg_cp_fail(cp, i, "program not bound", -EINVAL);
	if (!dst->set && !depth->set)
		return vdxg_cp_fail(cp, i, "no render target", -EINVAL);
	if (depth->set && depth->format == VDXG_FMT_D32)
		return vdxg_cp_fail(cp, i, "D32 depth in a 3D draw", -EINVAL);
	if (dst->set && depth->set &&
	    (depth->width < dst->width || depth->height < dst->height))
		return vdxg_cp_fail(cp, i, "depth surface smaller than target",
				    -ERANGE);
	if (!indexed) {
		if (first + count > BIT_ULL(32))
			return vdxg_cp_fail(cp, i, "vertices past 2^32",
					    -EINVAL);
		return 0;
	}
	if (!cp->ib_index_size)
		return vdxg_cp_fail(cp, i, "index buffer not bound", -EINVAL);
	if ((first + count) * cp->ib_index_size > cp->ib_size)
		return vdxg_cp_fail(cp, i, "indices past the index buffer",
				    -ERANGE);
	return 0;
}

static int vdxg_cp_clear(struct vdxg_cp *cp, u32 i)
{
	const struct vdxg_cp_surface *depth = &cp->slot[VDXG_SLOT_DEPTH];
	const u32 *c = &cp->cmds[i];
	u32 flags = c[VDXG_RD_CLEAR_DW_FLAGS];

	if (flags & ~VDXG_CLEAR_MASK)
		return vdxg_cp_fail(cp, i, "reserved clear flags", -EINVAL);
	if (c[VDXG_RD_CLEAR_DW_STENCIL] & ~0xff)
		return vdxg_cp_fail(cp, i, "reserved stencil bits", -EINVAL);
	if (((flags & VDXG_CLEAR_COLOR) && !cp->slot[VDXG_SLOT_DST].set) ||
	    ((flags & (VDXG_CLEAR_DEPTH | VDXG_CLEAR_STENCIL)) && !depth->set))
		return vdxg_cp_fail(cp, i, "surface slot not set", -EINVAL);
	if ((flags & VDXG_CLEAR_DEPTH) && depth->format == VDXG_FMT_D32)
		return vdxg_cp_fail(cp, i, "clear depth of a D32 surface",
				    -EINVAL);
	if ((flags & VDXG_CLEAR_STENCIL) && depth->format != VDXG_FMT_D24S8)
		return vdxg_cp_fail(cp, i, "clear stencil without stencil",
				    -EINVAL);
	return 0;
}

static int vdxg_cp_command_3d(struct vdxg_cp *cp, u32 i, u32 op, u32 len)
{
	switch (op) {
	case VDXG_RD_SET_STATE:
		return vdxg_cp_set_state(cp, i, len);
	case VDXG_RD_LOAD_STATE:
		return vdxg_cp_load_state(cp, i);
	case VDXG_RD_SET_SHADER:
		return vdxg_cp_set_shader(cp, i);
	case VDXG_RD_SET_CONSTANTS:
		return vdxg_cp_set_constants(cp, i);
	case VDXG_RD_SET_VERTEX_BUFFER:
		return vdxg_cp_set_vertex_buffer(cp, i);
	case VDXG_RD_SET_INDEX_BUFFER:
		return vdxg_cp_set_index_buffer(cp, i);
	case VDXG_RD_SET_TEXTURE:
		return vdxg_cp_set_texture(cp, i);
	case VDXG_RD_DRAW:
		return vdxg_cp_draw3d(cp, i, false);
	case VDXG_RD_DRAW_INDEXED:
		return vdxg_cp_draw3d(cp, i, true);
	case VDXG_RD_CLEAR:
		return vdxg_cp_clear(cp, i);
	}
	return vdxg_cp_fail(cp, i, "unknown opcode", -EINVAL);
}

static int vdxg_cp_command(struct vdxg_cp *cp, u32 i, u32 op, u32 len)
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
	return vdxg_cp_command_3d(cp, i, op, len);
}

static int vdxg_cp_cmp_patch(const void *a, const void *b)
{
	const struct drm_vdxg_patch_location *pa = a, *pb = b;

	if (pa->patch_offset != pb->patch_offset)
		return pa->patch_offset < pb->patch_offset ? -1 : 1;
	return 0;
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

	sort(splits->offsets, splits->count, sizeof(u32), vdxg_cmp_u32,
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

/*
 * Whether @len is a length a command with opcode @op may have: a fixed one,
 * or for SET_STATE 2 + n with n registers, 1 to 64. Never 0, which would
 * not advance the parse.
 */
static bool vdxg_cp_len_ok(u32 op, u32 len)
{
	if (op == VDXG_RD_SET_STATE)
		return len >= VDXG_RD_SET_STATE_LEN(1) &&
		       len <= VDXG_RD_SET_STATE_LEN(VDXG_3D_NUM_REGS);
	if (op < VDXG_RD_NUM_OPS)
		return len && len == vdxg_cp_len[op];
	return len && len == vdxg_cp_len_3d[op - VDXG_RD_SET_STATE];
}

/**
 * vdxg_cmd_parse - validate a command buffer against its lists
 * @cmds: the command buffer, in kernel memory
 * @ndw: its length in dwords
 * @allocs: the allocation list
 * @nallocs: its length
 * @patches: the patch-location list; sorted by patch offset on return
 * @npatches: its length
 * @splits: if not NULL, room for as many split points as @patches has
 *	non-zero split offsets, returned sorted; if NULL, a non-zero split
 *	offset is refused
 * @flags: VDXG_CP_3D when the device runs the 3D pipeline, else its
 *	commands are refused
 * @err: if not NULL, where and why validation failed
 *
 * Return: 0 if the buffer may run once patched, else -EINVAL, -ERANGE or
 * -EACCES (see the DOC section).
 */
int vdxg_cmd_parse(const u32 *cmds, u32 ndw,
		   const struct vdxg_cp_alloc *allocs, u32 nallocs,
		   struct drm_vdxg_patch_location *patches, u32 npatches,
		   struct vdxg_cp_splits *splits, u32 flags,
		   struct vdxg_cp_error *err)
{
	struct vdxg_cp cp = {
		.flags = flags,
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
		if (op >= VDXG_RD_NUM_OPS_3D ||
		    (op >= VDXG_RD_NUM_OPS && !(flags & VDXG_CP_3D)))
			return vdxg_cp_fail(&cp, i, "unknown opcode", -EINVAL);
		if (!vdxg_cp_len_ok(op, len))
			return vdxg_cp_fail(&cp, i, "bad command length",
					    -EINVAL);
		if (len > ndw - i)
			return vdxg_cp_fail(&cp, i, "truncated command",
					    -EINVAL);
		ret = vdxg_cp_pass_splits(&cp, i);
		if (ret)
			return ret;
		ret = vdxg_cp_command(&cp, i, op, len);
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
 * vdxg_cmd_len - the length of a command vdxg_cmd_parse() accepted
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
 * @cmd: a command vdxg_cmd_parse() accepted
 * @state: filled in
 *
 * The engine's state is its surface slots and the 3D pipeline's registers
 * and bindings, which it clears at the start of every ring entry. The
 * partitioner of split submissions sets again, at the start of a piece,
 * what the piece uses of what came before, by running again the commands
 * that last set it: it needs nothing else of a command, so a new command
 * only describes itself here. A 3D draw uses all of the 3D state (which
 * registers and bindings its programs read, the kernel does not know).
 */
void vdxg_cmd_state(const u32 *cmd, struct vdxg_cp_state *state)
{
	u32 flags, first;

	bitmap_zero(state->sets, VDXG_CP_MAX_STATE);
	bitmap_zero(state->uses, VDXG_CP_MAX_STATE);
	switch (VDXG_PG_HDR_OP(cmd[0])) {
	case VDXG_RD_SET_SURFACE:
		__set_bit(VDXG_CP_KEY_SLOT(cmd[VDXG_RD_SURF_DW_SLOT]),
			  state->sets);
		break;
	case VDXG_RD_FILL_RECT:
		__set_bit(VDXG_CP_KEY_SLOT(VDXG_SLOT_DST), state->uses);
		break;
	case VDXG_RD_COPY_RECT:
	case VDXG_RD_BLEND:
		__set_bit(VDXG_CP_KEY_SLOT(VDXG_SLOT_SRC), state->uses);
		__set_bit(VDXG_CP_KEY_SLOT(VDXG_SLOT_DST), state->uses);
		break;
	case VDXG_RD_DRAW_TRIANGLES:
		flags = cmd[VDXG_RD_DRAW_DW_FLAGS];
		__set_bit(VDXG_CP_KEY_SLOT(VDXG_SLOT_DST), state->uses);
		if (flags & VDXG_DRAW_TEXTURE)
			__set_bit(VDXG_CP_KEY_SLOT(VDXG_SLOT_TEXTURE),
				  state->uses);
		if (flags & (VDXG_DRAW_DEPTH_TEST | VDXG_DRAW_DEPTH_WRITE))
			__set_bit(VDXG_CP_KEY_SLOT(VDXG_SLOT_DEPTH),
				  state->uses);
		break;
	case VDXG_RD_SET_STATE:
		first = cmd[VDXG_RD_STATE_DW_FIRST];
		bitmap_set(state->sets, VDXG_CP_KEY_REG(first),
			   vdxg_cmd_len(cmd) - VDXG_RD_STATE_DW_VALUES);
		break;
	case VDXG_RD_LOAD_STATE:
		first = cmd[VDXG_RD_LOAD_DW_FIRST];
		bitmap_set(state->sets, VDXG_CP_KEY_REG(first),
			   cmd[VDXG_RD_LOAD_DW_COUNT]);
		break;
	case VDXG_RD_SET_SHADER:
		__set_bit(VDXG_CP_KEY_PROGRAM(cmd[VDXG_RD_SHADER_DW_STAGE]),
			  state->sets);
		break;
	case VDXG_RD_SET_CONSTANTS:
		__set_bit(VDXG_CP_KEY_CONSTS(cmd[VDXG_RD_CONST_DW_STAGE]),
			  state->sets);
		break;
	case VDXG_RD_SET_VERTEX_BUFFER:
		__set_bit(VDXG_CP_KEY_VB(cmd[VDXG_RD_VB_DW_INDEX]),
			  state->sets);
		break;
	case VDXG_RD_SET_INDEX_BUFFER:
		__set_bit(VDXG_CP_KEY_IB, state->sets);
		break;
	case VDXG_RD_SET_TEXTURE:
		__set_bit(VDXG_CP_KEY_TEX(cmd[VDXG_RD_TEX_DW_UNIT]),
			  state->sets);
		break;
	case VDXG_RD_DRAW_INDEXED:
		__set_bit(VDXG_CP_KEY_IB, state->uses);
		fallthrough;
	case VDXG_RD_DRAW:
		__set_bit(VDXG_CP_KEY_SLOT(VDXG_SLOT_DST), state->uses);
		__set_bit(VDXG_CP_KEY_SLOT(VDXG_SLOT_DEPTH), state->uses);
		bitmap_set(state->uses, VDXG_CP_KEY_REG(0),
			   VDXG_CP_KEY_IB - VDXG_CP_KEY_REG(0));
		bitmap_set(state->uses, VDXG_CP_KEY_TEX(0), VDXG_3D_NUM_UNITS);
		break;
	case VDXG_RD_CLEAR:
		flags = cmd[VDXG_RD_CLEAR_DW_FLAGS];
		if (flags & VDXG_CLEAR_COLOR)
			__set_bit(VDXG_CP_KEY_SLOT(VDXG_SLOT_DST), state->uses);
		if (flags & (VDXG_CLEAR_DEPTH | VDXG_CLEAR_STENCIL))
			__set_bit(VDXG_CP_KEY_SLOT(VDXG_SLOT_DEPTH),
				  state->uses);
		break;
	}
}

/**
 * vdxg_patch_apply - write current GPU addresses into the address fields
 * @cmds: a command buffer that vdxg_cmd_parse() accepted
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
