// SPDX-License-Identifier: MIT
/*
 * libvdxg virtual-address command streams: RENDER commands written
 * straight into a mapped GPU object, every address a GPU virtual address
 * of the context's VM, for EXEC. No lists, no system calls here.
 */
#include <errno.h>
#include <string.h>

#define BIT(n) (1u << (n))
#define BIT_ULL(n) (1ull << (n))
#include "vdxg_hw.h"

#include "vdxg.h"

void vdxg_vcs_init(struct vdxg_vcs *vcs, void *map, uint32_t bytes,
		   uint64_t va)
{
	vcs->dw = map;
	vcs->cap = bytes / 4;
	vcs->ndw = 0;
	vcs->va = va;
	vcs->err = map && !(va & 3) ? 0 : -EINVAL;
}

void vdxg_vcs_reset(struct vdxg_vcs *vcs)
{
	vcs->ndw = 0;
	vcs->err = vcs->dw && !(vcs->va & 3) ? 0 : -EINVAL;
}

int vdxg_vcs_error(const struct vdxg_vcs *vcs)
{
	return vcs->err;
}

uint32_t vdxg_vcs_length(const struct vdxg_vcs *vcs)
{
	return vcs->ndw * 4;
}

/* A command of LEN dwords, header written, operands zeroed; or NULL. */
static uint32_t *vcs_cmd(struct vdxg_vcs *vcs, uint32_t op, uint32_t len)
{
	uint32_t *p;

	if (vcs->err)
		return NULL;
	if (len > vcs->cap - vcs->ndw) {
		vcs->err = -ENOSPC;
		return NULL;
	}
	p = vcs->dw + vcs->ndw;
	memset(p + 1, 0, (len - 1) * sizeof(*p));
	p[0] = VDXG_PG_HDR(op, len);
	vcs->ndw += len;
	return p;
}

static void put64(uint32_t *p, uint64_t v)
{
	p[0] = (uint32_t)v;
	p[1] = (uint32_t)(v >> 32);
}

static int vcs_fail(struct vdxg_vcs *vcs, int err)
{
	if (!vcs->err)
		vcs->err = err;
	return vcs->err;
}

int vdxg_vcs_nop(struct vdxg_vcs *vcs)
{
	return vcs_cmd(vcs, VDXG_RD_NOP, VDXG_RD_NOP_LEN) ? 0 : vcs->err;
}

static int vcs_mem(struct vdxg_vcs *vcs, uint32_t op, uint64_t va,
		   uint64_t value)
{
	uint32_t *p = vcs_cmd(vcs, op, VDXG_RD_FENCE_LEN);

	if (!p)
		return vcs->err;
	put64(p + VDXG_RD_MEM_DW_ADDR, va);
	put64(p + VDXG_RD_MEM_DW_VALUE, value);
	return 0;
}

int vdxg_vcs_fence(struct vdxg_vcs *vcs, uint64_t va, uint64_t value)
{
	return vcs_mem(vcs, VDXG_RD_FENCE, va, value);
}

int vdxg_vcs_wait(struct vdxg_vcs *vcs, uint64_t va, uint64_t value)
{
	return vcs_mem(vcs, VDXG_RD_WAIT, va, value);
}

int vdxg_vcs_set_surface(struct vdxg_vcs *vcs, uint32_t slot, uint64_t va,
			 uint32_t format, uint32_t width, uint32_t height,
			 uint32_t pitch)
{
	uint32_t *p = vcs_cmd(vcs, VDXG_RD_SET_SURFACE,
			      VDXG_RD_SET_SURFACE_LEN);

	if (!p)
		return vcs->err;
	p[VDXG_RD_SURF_DW_SLOT] = slot;
	put64(p + VDXG_RD_SURF_DW_ADDR, va);
	p[VDXG_RD_SURF_DW_FORMAT] = format;
	p[VDXG_RD_SURF_DW_WIDTH] = width;
	p[VDXG_RD_SURF_DW_HEIGHT] = height;
	p[VDXG_RD_SURF_DW_PITCH] = pitch;
	return 0;
}

/* Two 16-bit coordinates of a command's operand dword. */
static int vcs_xy(struct vdxg_vcs *vcs, uint32_t *dw, uint32_t x, uint32_t y)
{
	if ((x | y) > 0xffff)
		return vcs_fail(vcs, -EINVAL);
	*dw = VDXG_RD_XY(x, y);
	return 0;
}

int vdxg_vcs_fill_rect(struct vdxg_vcs *vcs, uint32_t x, uint32_t y,
		       uint32_t w, uint32_t h, uint32_t argb)
{
	uint32_t dw[2];
	uint32_t *p;

	if (vcs_xy(vcs, &dw[0], x, y) || vcs_xy(vcs, &dw[1], w, h))
		return vcs->err;
	p = vcs_cmd(vcs, VDXG_RD_FILL_RECT, VDXG_RD_FILL_RECT_LEN);
	if (!p)
		return vcs->err;
	p[VDXG_RD_FILL_DW_XY] = dw[0];
	p[VDXG_RD_FILL_DW_WH] = dw[1];
	p[VDXG_RD_FILL_DW_COLOR] = argb;
	return 0;
}

/* COPY_RECT, or BLEND with its alpha. */
static int vcs_rect(struct vdxg_vcs *vcs, uint32_t op, uint32_t len,
		    const uint32_t *xywh, uint32_t alpha)
{
	uint32_t dw[3];
	uint32_t *p;

	if (vcs_xy(vcs, &dw[0], xywh[0], xywh[1]) ||
	    vcs_xy(vcs, &dw[1], xywh[2], xywh[3]) ||
	    vcs_xy(vcs, &dw[2], xywh[4], xywh[5]))
		return vcs->err;
	p = vcs_cmd(vcs, op, len);
	if (!p)
		return vcs->err;
	p[VDXG_RD_COPY_DW_SRC_XY] = dw[0];
	p[VDXG_RD_COPY_DW_DST_XY] = dw[1];
	p[VDXG_RD_COPY_DW_WH] = dw[2];
	if (op == VDXG_RD_BLEND)
		p[VDXG_RD_BLEND_DW_ALPHA] = alpha;
	return 0;
}

int vdxg_vcs_copy_rect(struct vdxg_vcs *vcs, uint32_t sx, uint32_t sy,
		       uint32_t dx, uint32_t dy, uint32_t w, uint32_t h)
{
	const uint32_t xywh[] = { sx, sy, dx, dy, w, h };

	return vcs_rect(vcs, VDXG_RD_COPY_RECT, VDXG_RD_COPY_RECT_LEN, xywh,
			0);
}

int vdxg_vcs_blend(struct vdxg_vcs *vcs, uint32_t sx, uint32_t sy,
		   uint32_t dx, uint32_t dy, uint32_t w, uint32_t h,
		   uint32_t alpha)
{
	const uint32_t xywh[] = { sx, sy, dx, dy, w, h };

	return vcs_rect(vcs, VDXG_RD_BLEND, VDXG_RD_BLEND_LEN, xywh, alpha);
}

int vdxg_vcs_draw_triangles(struct vdxg_vcs *vcs, uint32_t flags,
			    uint32_t count, uint64_t vb_va)
{
	uint32_t *p = vcs_cmd(vcs, VDXG_RD_DRAW_TRIANGLES,
			      VDXG_RD_DRAW_TRIANGLES_LEN);

	if (!p)
		return vcs->err;
	p[VDXG_RD_DRAW_DW_FLAGS] = flags;
	p[VDXG_RD_DRAW_DW_COUNT] = count;
	put64(p + VDXG_RD_DRAW_DW_VB, vb_va);
	return 0;
}

/* ------------------------------------------------------------ 3D pipeline */

int vdxg_vcs_set_state(struct vdxg_vcs *vcs, uint32_t first,
		       const uint32_t *values, uint32_t n)
{
	uint32_t *p;

	if (!values || n < 1 || n > VDXG_3D_NUM_REGS)
		return vcs_fail(vcs, -EINVAL);
	p = vcs_cmd(vcs, VDXG_RD_SET_STATE, VDXG_RD_SET_STATE_LEN(n));
	if (!p)
		return vcs->err;
	p[VDXG_RD_STATE_DW_FIRST] = first;
	memcpy(p + VDXG_RD_STATE_DW_VALUES, values, n * sizeof(*values));
	return 0;
}

int vdxg_vcs_load_state(struct vdxg_vcs *vcs, uint64_t va, uint32_t first,
			uint32_t count)
{
	uint32_t *p = vcs_cmd(vcs, VDXG_RD_LOAD_STATE, VDXG_RD_LOAD_STATE_LEN);

	if (!p)
		return vcs->err;
	put64(p + VDXG_RD_LOAD_DW_ADDR, va);
	p[VDXG_RD_LOAD_DW_FIRST] = first;
	p[VDXG_RD_LOAD_DW_COUNT] = count;
	return 0;
}

int vdxg_vcs_set_shader(struct vdxg_vcs *vcs, uint32_t stage, uint64_t va,
			uint32_t size)
{
	uint32_t *p = vcs_cmd(vcs, VDXG_RD_SET_SHADER, VDXG_RD_SET_SHADER_LEN);

	if (!p)
		return vcs->err;
	p[VDXG_RD_SHADER_DW_STAGE] = stage;
	put64(p + VDXG_RD_SHADER_DW_ADDR, va);
	p[VDXG_RD_SHADER_DW_SIZE] = size;
	return 0;
}

int vdxg_vcs_set_constants(struct vdxg_vcs *vcs, uint32_t stage, uint64_t va,
			   uint32_t count)
{
	uint32_t *p = vcs_cmd(vcs, VDXG_RD_SET_CONSTANTS,
			      VDXG_RD_SET_CONSTANTS_LEN);

	if (!p)
		return vcs->err;
	p[VDXG_RD_CONST_DW_STAGE] = stage;
	put64(p + VDXG_RD_CONST_DW_ADDR, va);
	p[VDXG_RD_CONST_DW_COUNT] = count;
	return 0;
}

int vdxg_vcs_set_vertex_buffer(struct vdxg_vcs *vcs, uint32_t index,
			       uint64_t va, uint32_t size, uint32_t stride)
{
	uint32_t *p = vcs_cmd(vcs, VDXG_RD_SET_VERTEX_BUFFER,
			      VDXG_RD_SET_VERTEX_BUFFER_LEN);

	if (!p)
		return vcs->err;
	p[VDXG_RD_VB_DW_INDEX] = index;
	put64(p + VDXG_RD_VB_DW_ADDR, va);
	p[VDXG_RD_VB_DW_SIZE] = size;
	p[VDXG_RD_VB_DW_STRIDE] = stride;
	return 0;
}

int vdxg_vcs_set_index_buffer(struct vdxg_vcs *vcs, uint64_t va,
			      uint32_t size, uint32_t index_size)
{
	uint32_t *p = vcs_cmd(vcs, VDXG_RD_SET_INDEX_BUFFER,
			      VDXG_RD_SET_INDEX_BUFFER_LEN);

	if (!p)
		return vcs->err;
	put64(p + VDXG_RD_IB_DW_ADDR, va);
	p[VDXG_RD_IB_DW_SIZE] = size;
	p[VDXG_RD_IB_DW_INDEX_SIZE] = index_size;
	return 0;
}

int vdxg_vcs_set_texture(struct vdxg_vcs *vcs, uint32_t unit, uint64_t va,
			 uint32_t size, uint32_t desc, uint32_t width,
			 uint32_t height)
{
	uint32_t wh;
	uint32_t *p;

	if (vcs_xy(vcs, &wh, width, height))
		return vcs->err;
	p = vcs_cmd(vcs, VDXG_RD_SET_TEXTURE, VDXG_RD_SET_TEXTURE_LEN);
	if (!p)
		return vcs->err;
	p[VDXG_RD_TEX_DW_UNIT] = unit;
	put64(p + VDXG_RD_TEX_DW_ADDR, va);
	p[VDXG_RD_TEX_DW_SIZE] = size;
	p[VDXG_RD_TEX_DW_FORMAT] = desc;
	p[VDXG_RD_TEX_DW_WH] = wh;
	return 0;
}

int vdxg_vcs_draw(struct vdxg_vcs *vcs, uint32_t prim, uint32_t first,
		  uint32_t count)
{
	uint32_t *p = vcs_cmd(vcs, VDXG_RD_DRAW, VDXG_RD_DRAW_LEN);

	if (!p)
		return vcs->err;
	p[VDXG_RD_DRAW3D_DW_PRIM] = prim;
	p[VDXG_RD_DRAW3D_DW_FIRST] = first;
	p[VDXG_RD_DRAW3D_DW_COUNT] = count;
	return 0;
}

int vdxg_vcs_draw_indexed(struct vdxg_vcs *vcs, uint32_t prim, uint32_t first,
			  uint32_t count, int32_t bias)
{
	uint32_t *p = vcs_cmd(vcs, VDXG_RD_DRAW_INDEXED,
			      VDXG_RD_DRAW_INDEXED_LEN);

	if (!p)
		return vcs->err;
	p[VDXG_RD_DRAW3D_DW_PRIM] = prim;
	p[VDXG_RD_DRAW3D_DW_FIRST] = first;
	p[VDXG_RD_DRAW3D_DW_COUNT] = count;
	p[VDXG_RD_DRAW3D_DW_BIAS] = (uint32_t)bias;
	return 0;
}

int vdxg_vcs_clear(struct vdxg_vcs *vcs, uint32_t flags, uint32_t x,
		   uint32_t y, uint32_t w, uint32_t h, const float *rgba,
		   float depth, uint32_t stencil)
{
	uint32_t dw[2], i;
	uint32_t *p;

	if (vcs_xy(vcs, &dw[0], x, y) || vcs_xy(vcs, &dw[1], w, h))
		return vcs->err;
	p = vcs_cmd(vcs, VDXG_RD_CLEAR, VDXG_RD_CLEAR_LEN);
	if (!p)
		return vcs->err;
	p[VDXG_RD_CLEAR_DW_FLAGS] = flags;
	p[VDXG_RD_CLEAR_DW_XY] = dw[0];
	p[VDXG_RD_CLEAR_DW_WH] = dw[1];
	for (i = 0; i < 4; i++)
		p[VDXG_RD_CLEAR_DW_COLOR + i] = rgba ? vdxg_f32_bits(rgba[i]) : 0;
	p[VDXG_RD_CLEAR_DW_DEPTH] = vdxg_f32_bits(depth);
	p[VDXG_RD_CLEAR_DW_STENCIL] = stencil;
	return 0;
}

/* ------------------------------------------------------------ textures */

/* Bytes per texel of a texture format, 0 for the others. */
static uint32_t tex_cpp(uint32_t format)
{
	switch (format) {
	case VDXG_FMT_XRGB8888:
	case VDXG_FMT_ARGB8888:
	case VDXG_FMT_ABGR8888:
		return 4;
	case VDXG_FMT_RGB565:
	case VDXG_FMT_RGBA4444:
	case VDXG_FMT_RGBA5551:
	case VDXG_FMT_L8A8:
		return 2;
	case VDXG_FMT_RGB888:
		return 3;
	case VDXG_FMT_L8:
	case VDXG_FMT_A8:
		return 1;
	}
	return 0;
}

int vdxg_tex_layout(uint32_t desc, uint32_t width, uint32_t height,
		    struct vdxg_tex_layout *layout)
{
	uint32_t cpp = tex_cpp(VDXG_TEX_FORMAT(desc));
	uint32_t levels = VDXG_TEX_LEVELS(desc), l;
	bool cube = desc & VDXG_TEX_CUBE;
	uint64_t off = 0;

	if (!layout || !cpp || levels < 1 || levels > VDXG_TEX_MAX_LEVELS ||
	    (desc & ~(0xffu | 0xf00u | VDXG_TEX_CUBE)) ||
	    width < 1 || width > VDXG_TEX_MAX_DIM ||
	    height < 1 || height > VDXG_TEX_MAX_DIM ||
	    (cube && width != height))
		return -EINVAL;
	memset(layout, 0, sizeof(*layout));
	layout->cpp = cpp;
	layout->faces = cube ? VDXG_TEX_FACES_CUBE : 1;
	layout->levels = levels;
	for (l = 0; l < levels; l++) {
		uint32_t w = width >> l ? width >> l : 1;
		uint32_t h = height >> l ? height >> l : 1;

		layout->level[l].width = w;
		layout->level[l].height = h;
		layout->level[l].pitch = (w * cpp + 3) & ~3u;
		layout->level[l].offset = off;
		layout->level[l].image_size =
			(uint64_t)layout->level[l].pitch * h;
		off += layout->faces * layout->level[l].image_size;
	}
	layout->size = off;
	return 0;
}

int vdxg_vcs_emit_raw(struct vdxg_vcs *vcs, const uint32_t *dwords,
		      uint32_t count)
{
	if (vcs->err)
		return vcs->err;
	if (count > vcs->cap - vcs->ndw)
		return vcs_fail(vcs, -ENOSPC);
	memcpy(vcs->dw + vcs->ndw, dwords, count * sizeof(*dwords));
	vcs->ndw += count;
	return 0;
}
