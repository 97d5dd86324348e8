// SPDX-License-Identifier: MIT
/*
 * libvdxg command-stream builder: RENDER command encoding, the allocation
 * list and the patch-location list. No system calls here: see vdxg.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define BIT(n) (1u << (n))
#define BIT_ULL(n) (1ull << (n))
#include "vdxg_hw.h"

#include "vdxg.h"

/* First capacities: small, so that growth is exercised early. */
#define CS_INIT_DWORDS		64
#define CS_INIT_ALLOCS		8
#define CS_INIT_PATCHES		16
/* Far beyond any kernel limit; keeps byte offsets within 32 bits. */
#define CS_MAX_DWORDS		(1u << 28)
#define CS_MAX_ENTRIES		(1u << 24)

struct vdxg_cs {
	uint32_t *dw;
	uint32_t ndw, cap_dw;

	/* allocs as recorded; submit_allocs the copy the kernel writes */
	struct drm_vdxg_allocation *allocs, *submit_allocs;
	struct vdxg_bo **alloc_bo;	/* NULL for raw entries */
	uint32_t nallocs, cap_allocs;
	/*
	 * Allocation index of each object's entry by GEM handle: an open-
	 * addressed table (index + 1, 0 empty), at least twice cap_allocs,
	 * so that adding an address costs the same with 1 or 10000 objects.
	 * reset empties just the slots in use.
	 */
	uint32_t *hash, hash_mask, hash_shift;

	struct drm_vdxg_patch_location *patches;
	uint8_t *patch_raw;		/* 1 for add_raw_patch entries */
	uint32_t npatches, cap_patches;

	/* vdxg_cs_split_point(): its offset plus 1, for the next patch */
	uint32_t split;

	int error;
};

static int cs_fail(struct vdxg_cs *cs, int err)
{
	if (!cs->error)
		cs->error = err;
	return err;
}

/* Grow *PTR (of ELEM-byte entries) to hold at least NEED entries. */
static int grow(void **ptr, uint32_t *cap, uint32_t need, size_t elem,
		uint32_t init, uint32_t max)
{
	uint32_t n = *cap ? *cap : init;
	void *p;

	if (need <= *cap)
		return 0;
	if (need > max)
		return -E2BIG;
	while (n < need)
		n = n > max / 2 ? max : n * 2;
	p = realloc(*ptr, (size_t)n * elem);
	if (!p)
		return -ENOMEM;
	*ptr = p;
	*cap = n;
	return 0;
}

static uint32_t hash_first(const struct vdxg_cs *cs, uint32_t handle)
{
	/* Knuth's multiplicative hash: its top bits are the well-mixed ones */
	return (handle * 2654435761u) >> cs->hash_shift;
}

/* The slot holding HANDLE's entry, or the empty slot where it goes. */
static uint32_t hash_slot(const struct vdxg_cs *cs, uint32_t handle)
{
	uint32_t h = hash_first(cs, handle), e;

	while ((e = cs->hash[h]) && cs->allocs[e - 1].handle != handle)
		h = (h + 1) & cs->hash_mask;
	return h;
}

/* A table of at least 2 * CAP slots, holding the object entries. */
static int cs_grow_hash(struct vdxg_cs *cs, uint32_t cap)
{
	uint32_t size = cs->hash ? cs->hash_mask + 1 : 0, n = 16, bits = 4, i;
	uint32_t *hash;

	if (size >= 2 * (uint64_t)cap)
		return 0;
	while (n < 2 * (uint64_t)cap) {
		n *= 2;
		bits++;
	}
	hash = calloc(n, sizeof(*hash));
	if (!hash)
		return -ENOMEM;
	free(cs->hash);
	cs->hash = hash;
	cs->hash_mask = n - 1;
	cs->hash_shift = 32 - bits;
	for (i = 0; i < cs->nallocs; i++)
		if (cs->alloc_bo[i])
			cs->hash[hash_slot(cs, cs->allocs[i].handle)] = i + 1;
	return 0;
}

static int cs_grow_allocs(struct vdxg_cs *cs, uint32_t need)
{
	uint32_t cap = cs->cap_allocs, c2 = cap, c3 = cap;
	int ret;

	ret = grow((void **)&cs->allocs, &cap, need, sizeof(*cs->allocs),
		   CS_INIT_ALLOCS, CS_MAX_ENTRIES);
	if (!ret)
		ret = grow((void **)&cs->submit_allocs, &c2, cap,
			   sizeof(*cs->submit_allocs), cap, CS_MAX_ENTRIES);
	if (!ret)
		ret = grow((void **)&cs->alloc_bo, &c3, cap,
			   sizeof(*cs->alloc_bo), cap, CS_MAX_ENTRIES);
	if (!ret)
		ret = cs_grow_hash(cs, cap);
	/* The capacity is what all three arrays and the table hold. */
	if (!ret)
		cs->cap_allocs = cap;
	return ret;
}

static int cs_grow_patches(struct vdxg_cs *cs, uint32_t need)
{
	uint32_t cap = cs->cap_patches, c2 = cap;
	int ret;

	ret = grow((void **)&cs->patches, &cap, need, sizeof(*cs->patches),
		   CS_INIT_PATCHES, CS_MAX_ENTRIES);
	if (!ret)
		ret = grow((void **)&cs->patch_raw, &c2, cap,
			   sizeof(*cs->patch_raw), cap, CS_MAX_ENTRIES);
	if (!ret)
		cs->cap_patches = cap;
	return ret;
}

/*
 * Make room for NDW more dwords and NADDR more address fields (each may
 * add an allocation and adds a patch), so that the command is then
 * written without failing half-way.
 */
static int cs_begin(struct vdxg_cs *cs, uint32_t ndw, uint32_t naddr)
{
	int ret;

	if (ndw > CS_MAX_DWORDS || cs->ndw > CS_MAX_DWORDS - ndw)
		return cs_fail(cs, -E2BIG);
	ret = grow((void **)&cs->dw, &cs->cap_dw, cs->ndw + ndw,
		   sizeof(*cs->dw), CS_INIT_DWORDS, CS_MAX_DWORDS);
	if (!ret && naddr)
		ret = cs_grow_allocs(cs, cs->nallocs + naddr);
	if (!ret && naddr)
		ret = cs_grow_patches(cs, cs->npatches + naddr);
	return ret ? cs_fail(cs, ret) : 0;
}

int vdxg_cs_create(struct vdxg_cs **out)
{
	struct vdxg_cs *cs = calloc(1, sizeof(*cs));

	*out = NULL;
	if (!cs)
		return -ENOMEM;
	if (cs_begin(cs, CS_INIT_DWORDS, 1)) {
		vdxg_cs_free(cs);
		return -ENOMEM;
	}
	*out = cs;
	return 0;
}

void vdxg_cs_free(struct vdxg_cs *cs)
{
	if (!cs)
		return;
	free(cs->dw);
	free(cs->allocs);
	free(cs->submit_allocs);
	free(cs->alloc_bo);
	free(cs->hash);
	free(cs->patches);
	free(cs->patch_raw);
	free(cs);
}

void vdxg_cs_reset(struct vdxg_cs *cs)
{
	uint32_t i;

	/*
	 * Empty the slots in use. Each entry is still in the table, at or
	 * after its first slot (probing may pass slots already emptied).
	 */
	for (i = 0; i < cs->nallocs; i++) {
		uint32_t h;

		if (!cs->alloc_bo[i])
			continue;
		h = hash_first(cs, cs->allocs[i].handle);
		while (cs->hash[h] != i + 1)
			h = (h + 1) & cs->hash_mask;
		cs->hash[h] = 0;
	}
	cs->ndw = 0;
	cs->nallocs = 0;
	cs->npatches = 0;
	cs->split = 0;
	cs->error = 0;
}

int vdxg_cs_error(const struct vdxg_cs *cs)
{
	return cs->error;
}

const uint32_t *vdxg_cs_dwords(const struct vdxg_cs *cs)
{
	return cs->dw;
}

uint32_t vdxg_cs_num_dwords(const struct vdxg_cs *cs)
{
	return cs->ndw;
}

const struct drm_vdxg_allocation *
vdxg_cs_allocations(const struct vdxg_cs *cs, uint32_t *count)
{
	*count = cs->nallocs;
	return cs->allocs;
}

const struct drm_vdxg_patch_location *
vdxg_cs_patches(const struct vdxg_cs *cs, uint32_t *count)
{
	*count = cs->npatches;
	return cs->patches;
}

/* ------------------------------------------------------------ addresses */

/* The builder's allocation entry for BO, added if it has none yet. */
static uint32_t cs_alloc_index(struct vdxg_cs *cs, struct vdxg_bo *bo,
			       uint32_t alloc_flags)
{
	uint32_t h = hash_slot(cs, bo->handle), i;
	struct drm_vdxg_allocation *a;

	if (cs->hash[h]) {
		i = cs->hash[h] - 1;
	} else {
		/* Room was made by cs_begin. */
		i = cs->nallocs++;
		a = &cs->allocs[i];
		memset(a, 0, sizeof(*a));
		a->handle = bo->handle;
		a->presumed_gpu_addr = bo->gpu_addr;
		cs->alloc_bo[i] = bo;
		cs->hash[h] = i + 1;
	}
	cs->allocs[i].flags |= alloc_flags;
	return i;
}

/*
 * Fill the 64-bit address field at dword DW (already reserved) with BO's
 * presumed address plus OFFSET, and record its patch location.
 */
static void cs_address(struct vdxg_cs *cs, uint32_t dw, struct vdxg_bo *bo,
		       uint32_t offset, uint32_t alloc_flags, uint32_t slot_id)
{
	uint32_t i = cs_alloc_index(cs, bo, alloc_flags);
	uint64_t addr = cs->allocs[i].presumed_gpu_addr + offset;
	struct drm_vdxg_patch_location *p = &cs->patches[cs->npatches];

	cs->dw[dw] = (uint32_t)addr;
	cs->dw[dw + 1] = (uint32_t)(addr >> 32);
	memset(p, 0, sizeof(*p));
	p->allocation_index = i;
	p->slot_id = slot_id;
	p->allocation_offset = offset;
	p->patch_offset = dw * 4;
	if (cs->split) {
		p->split_offset = cs->split - 1;
		cs->split = 0;
	}
	cs->patch_raw[cs->npatches++] = 0;
}

/* ------------------------------------------------------------- commands */

/* Reserve a command of LEN dwords with NADDR address fields; its header. */
static int cs_cmd(struct vdxg_cs *cs, uint32_t op, uint32_t len,
		  uint32_t naddr, uint32_t **out)
{
	uint32_t *p;
	int ret;

	ret = cs_begin(cs, len, naddr);
	if (ret)
		return ret;
	p = &cs->dw[cs->ndw];
	memset(p, 0, len * sizeof(*p));
	p[0] = VDXG_PG_HDR(op, len);
	cs->ndw += len;
	*out = p;
	return 0;
}

static uint32_t cs_pos(const struct vdxg_cs *cs, const uint32_t *p)
{
	return (uint32_t)(p - cs->dw);
}

static int cs_check_bo(struct vdxg_cs *cs, const struct vdxg_bo *bo)
{
	return bo ? 0 : cs_fail(cs, -EINVAL);
}

static int cs_check_u16(struct vdxg_cs *cs, uint32_t a, uint32_t b,
			uint32_t c, uint32_t d)
{
	return (a | b | c | d) > 0xffff ? cs_fail(cs, -EINVAL) : 0;
}

int vdxg_cs_nop(struct vdxg_cs *cs)
{
	uint32_t *p;

	return cs_cmd(cs, VDXG_RD_NOP, VDXG_RD_NOP_LEN, 0, &p);
}

int vdxg_cs_split_point(struct vdxg_cs *cs)
{
	if (cs->error)
		return cs->error;
	/* The buffer's start splits nothing. */
	cs->split = cs->ndw ? cs->ndw * 4 + 1 : 0;
	return 0;
}

static int cs_mem(struct vdxg_cs *cs, uint32_t op, struct vdxg_bo *bo,
		  uint32_t offset, uint32_t alloc_flags, uint64_t value)
{
	uint32_t *p;
	int ret;

	if (cs_check_bo(cs, bo))
		return -EINVAL;
	ret = cs_cmd(cs, op, VDXG_RD_FENCE_LEN, 1, &p);
	if (ret)
		return ret;
	p[VDXG_RD_MEM_DW_VALUE] = (uint32_t)value;
	p[VDXG_RD_MEM_DW_VALUE + 1] = (uint32_t)(value >> 32);
	cs_address(cs, cs_pos(cs, p) + VDXG_RD_MEM_DW_ADDR, bo, offset,
		   alloc_flags, 0);
	return 0;
}

int vdxg_cs_fence(struct vdxg_cs *cs, struct vdxg_bo *bo, uint32_t offset,
		  uint32_t alloc_flags, uint64_t value)
{
	return cs_mem(cs, VDXG_RD_FENCE, bo, offset, alloc_flags, value);
}

int vdxg_cs_wait(struct vdxg_cs *cs, struct vdxg_bo *bo, uint32_t offset,
		 uint32_t alloc_flags, uint64_t value)
{
	return cs_mem(cs, VDXG_RD_WAIT, bo, offset, alloc_flags, value);
}

int vdxg_cs_set_surface(struct vdxg_cs *cs, uint32_t slot, struct vdxg_bo *bo,
			uint32_t offset, uint32_t alloc_flags, uint32_t format,
			uint32_t width, uint32_t height, uint32_t pitch)
{
	uint32_t *p;
	int ret;

	if (cs_check_bo(cs, bo))
		return -EINVAL;
	ret = cs_cmd(cs, VDXG_RD_SET_SURFACE, VDXG_RD_SET_SURFACE_LEN, 1, &p);
	if (ret)
		return ret;
	p[VDXG_RD_SURF_DW_SLOT] = slot;
	p[VDXG_RD_SURF_DW_FORMAT] = format;
	p[VDXG_RD_SURF_DW_WIDTH] = width;
	p[VDXG_RD_SURF_DW_HEIGHT] = height;
	p[VDXG_RD_SURF_DW_PITCH] = pitch;
	cs_address(cs, cs_pos(cs, p) + VDXG_RD_SURF_DW_ADDR, bo, offset,
		   alloc_flags, slot);
	return 0;
}

int vdxg_cs_fill_rect(struct vdxg_cs *cs, uint32_t x, uint32_t y, uint32_t w,
		      uint32_t h, uint32_t argb)
{
	uint32_t *p;
	int ret;

	if (cs_check_u16(cs, x, y, w, h))
		return -EINVAL;
	ret = cs_cmd(cs, VDXG_RD_FILL_RECT, VDXG_RD_FILL_RECT_LEN, 0, &p);
	if (ret)
		return ret;
	p[VDXG_RD_FILL_DW_XY] = VDXG_RD_XY(x, y);
	p[VDXG_RD_FILL_DW_WH] = VDXG_RD_XY(w, h);
	p[VDXG_RD_FILL_DW_COLOR] = argb;
	return 0;
}

/* COPY_RECT, or BLEND without its alpha. */
static int cs_rect(struct vdxg_cs *cs, uint32_t op, uint32_t len,
		   uint32_t sx, uint32_t sy, uint32_t dx, uint32_t dy,
		   uint32_t w, uint32_t h, uint32_t **out)
{
	uint32_t *p;
	int ret;

	ret = cs_check_u16(cs, sx, sy, dx, dy);
	if (!ret)
		ret = cs_check_u16(cs, w, h, 0, 0);
	if (!ret)
		ret = cs_cmd(cs, op, len, 0, &p);
	if (ret)
		return ret;
	p[VDXG_RD_COPY_DW_SRC_XY] = VDXG_RD_XY(sx, sy);
	p[VDXG_RD_COPY_DW_DST_XY] = VDXG_RD_XY(dx, dy);
	p[VDXG_RD_COPY_DW_WH] = VDXG_RD_XY(w, h);
	*out = p;
	return 0;
}

int vdxg_cs_copy_rect(struct vdxg_cs *cs, uint32_t sx, uint32_t sy,
		      uint32_t dx, uint32_t dy, uint32_t w, uint32_t h)
{
	uint32_t *p;

	return cs_rect(cs, VDXG_RD_COPY_RECT, VDXG_RD_COPY_RECT_LEN, sx, sy,
		       dx, dy, w, h, &p);
}

int vdxg_cs_blend(struct vdxg_cs *cs, uint32_t sx, uint32_t sy, uint32_t dx,
		  uint32_t dy, uint32_t w, uint32_t h, uint32_t alpha)
{
	uint32_t *p = NULL;
	int ret;

	ret = cs_rect(cs, VDXG_RD_BLEND, VDXG_RD_BLEND_LEN, sx, sy, dx, dy, w,
		      h, &p);
	if (ret)
		return ret;
	p[VDXG_RD_BLEND_DW_ALPHA] = alpha;
	return 0;
}

int vdxg_cs_draw_triangles(struct vdxg_cs *cs, uint32_t flags, uint32_t count,
			   struct vdxg_bo *vb, uint32_t offset,
			   uint32_t alloc_flags)
{
	uint32_t *p;
	int ret;

	if (cs_check_bo(cs, vb))
		return -EINVAL;
	ret = cs_cmd(cs, VDXG_RD_DRAW_TRIANGLES, VDXG_RD_DRAW_TRIANGLES_LEN, 1,
		     &p);
	if (ret)
		return ret;
	p[VDXG_RD_DRAW_DW_FLAGS] = flags;
	p[VDXG_RD_DRAW_DW_COUNT] = count;
	cs_address(cs, cs_pos(cs, p) + VDXG_RD_DRAW_DW_VB, vb, offset,
		   alloc_flags, 0);
	return 0;
}

/* ------------------------------------------------------------ 3D pipeline */

/*
 * A 3D binding's address field at P[DW]: BO + OFFSET with its patch, or
 * with BO NULL (an unbinding) 0 and no patch.
 */
static void cs_binding(struct vdxg_cs *cs, uint32_t *p, uint32_t dw,
		       struct vdxg_bo *bo, uint32_t offset)
{
	if (bo)
		cs_address(cs, cs_pos(cs, p) + dw, bo, offset, 0, 0);
}

/* BO may be NULL only when the binding unbinds (UNBIND). */
static int cs_check_binding(struct vdxg_cs *cs, const struct vdxg_bo *bo,
			    bool unbind)
{
	return bo || unbind ? 0 : cs_fail(cs, -EINVAL);
}

int vdxg_cs_set_state(struct vdxg_cs *cs, uint32_t first,
		      const uint32_t *values, uint32_t n)
{
	uint32_t *p;
	int ret;

	if (!values || n < 1 || n > VDXG_3D_NUM_REGS)
		return cs_fail(cs, -EINVAL);
	ret = cs_cmd(cs, VDXG_RD_SET_STATE, VDXG_RD_SET_STATE_LEN(n), 0, &p);
	if (ret)
		return ret;
	p[VDXG_RD_STATE_DW_FIRST] = first;
	memcpy(&p[VDXG_RD_STATE_DW_VALUES], values, n * sizeof(*values));
	return 0;
}

int vdxg_cs_load_state(struct vdxg_cs *cs, struct vdxg_bo *bo,
		       uint32_t offset, uint32_t first, uint32_t count)
{
	uint32_t *p;
	int ret;

	if (cs_check_bo(cs, bo))
		return -EINVAL;
	ret = cs_cmd(cs, VDXG_RD_LOAD_STATE, VDXG_RD_LOAD_STATE_LEN, 1, &p);
	if (ret)
		return ret;
	p[VDXG_RD_LOAD_DW_FIRST] = first;
	p[VDXG_RD_LOAD_DW_COUNT] = count;
	cs_binding(cs, p, VDXG_RD_LOAD_DW_ADDR, bo, offset);
	return 0;
}

int vdxg_cs_set_shader(struct vdxg_cs *cs, uint32_t stage, struct vdxg_bo *bo,
		       uint32_t offset, uint32_t size)
{
	uint32_t *p;
	int ret;

	if (cs_check_bo(cs, bo))
		return -EINVAL;
	ret = cs_cmd(cs, VDXG_RD_SET_SHADER, VDXG_RD_SET_SHADER_LEN, 1, &p);
	if (ret)
		return ret;
	p[VDXG_RD_SHADER_DW_STAGE] = stage;
	p[VDXG_RD_SHADER_DW_SIZE] = size;
	cs_binding(cs, p, VDXG_RD_SHADER_DW_ADDR, bo, offset);
	return 0;
}

int vdxg_cs_set_constants(struct vdxg_cs *cs, uint32_t stage,
			  struct vdxg_bo *bo, uint32_t offset, uint32_t count)
{
	uint32_t *p;
	int ret;

	if (cs_check_binding(cs, bo, !count))
		return -EINVAL;
	ret = cs_cmd(cs, VDXG_RD_SET_CONSTANTS, VDXG_RD_SET_CONSTANTS_LEN, 1,
		     &p);
	if (ret)
		return ret;
	p[VDXG_RD_CONST_DW_STAGE] = stage;
	p[VDXG_RD_CONST_DW_COUNT] = count;
	cs_binding(cs, p, VDXG_RD_CONST_DW_ADDR, bo, offset);
	return 0;
}

int vdxg_cs_set_vertex_buffer(struct vdxg_cs *cs, uint32_t index,
			      struct vdxg_bo *bo, uint32_t offset,
			      uint32_t size, uint32_t stride)
{
	uint32_t *p;
	int ret;

	if (cs_check_binding(cs, bo, !size))
		return -EINVAL;
	ret = cs_cmd(cs, VDXG_RD_SET_VERTEX_BUFFER,
		     VDXG_RD_SET_VERTEX_BUFFER_LEN, 1, &p);
	if (ret)
		return ret;
	p[VDXG_RD_VB_DW_INDEX] = index;
	p[VDXG_RD_VB_DW_SIZE] = size;
	p[VDXG_RD_VB_DW_STRIDE] = stride;
	cs_binding(cs, p, VDXG_RD_VB_DW_ADDR, bo, offset);
	return 0;
}

int vdxg_cs_set_index_buffer(struct vdxg_cs *cs, struct vdxg_bo *bo,
			     uint32_t offset, uint32_t size,
			     uint32_t index_size)
{
	uint32_t *p;
	int ret;

	if (cs_check_binding(cs, bo, !index_size))
		return -EINVAL;
	ret = cs_cmd(cs, VDXG_RD_SET_INDEX_BUFFER,
		     VDXG_RD_SET_INDEX_BUFFER_LEN, 1, &p);
	if (ret)
		return ret;
	p[VDXG_RD_IB_DW_SIZE] = size;
	p[VDXG_RD_IB_DW_INDEX_SIZE] = index_size;
	cs_binding(cs, p, VDXG_RD_IB_DW_ADDR, bo, offset);
	return 0;
}

int vdxg_cs_set_texture(struct vdxg_cs *cs, uint32_t unit, struct vdxg_bo *bo,
			uint32_t offset, uint32_t size, uint32_t desc,
			uint32_t width, uint32_t height)
{
	uint32_t *p;
	int ret;

	if (cs_check_binding(cs, bo, !desc) ||
	    cs_check_u16(cs, width, height, 0, 0))
		return -EINVAL;
	ret = cs_cmd(cs, VDXG_RD_SET_TEXTURE, VDXG_RD_SET_TEXTURE_LEN, 1, &p);
	if (ret)
		return ret;
	p[VDXG_RD_TEX_DW_UNIT] = unit;
	p[VDXG_RD_TEX_DW_SIZE] = size;
	p[VDXG_RD_TEX_DW_FORMAT] = desc;
	p[VDXG_RD_TEX_DW_WH] = VDXG_RD_XY(width, height);
	cs_binding(cs, p, VDXG_RD_TEX_DW_ADDR, bo, offset);
	return 0;
}

int vdxg_cs_draw(struct vdxg_cs *cs, uint32_t prim, uint32_t first,
		 uint32_t count)
{
	uint32_t *p;
	int ret;

	ret = cs_cmd(cs, VDXG_RD_DRAW, VDXG_RD_DRAW_LEN, 0, &p);
	if (ret)
		return ret;
	p[VDXG_RD_DRAW3D_DW_PRIM] = prim;
	p[VDXG_RD_DRAW3D_DW_FIRST] = first;
	p[VDXG_RD_DRAW3D_DW_COUNT] = count;
	return 0;
}

int vdxg_cs_draw_indexed(struct vdxg_cs *cs, uint32_t prim, uint32_t first,
			 uint32_t count, int32_t bias)
{
	uint32_t *p;
	int ret;

	ret = cs_cmd(cs, VDXG_RD_DRAW_INDEXED, VDXG_RD_DRAW_INDEXED_LEN, 0,
		     &p);
	if (ret)
		return ret;
	p[VDXG_RD_DRAW3D_DW_PRIM] = prim;
	p[VDXG_RD_DRAW3D_DW_FIRST] = first;
	p[VDXG_RD_DRAW3D_DW_COUNT] = count;
	p[VDXG_RD_DRAW3D_DW_BIAS] = (uint32_t)bias;
	return 0;
}

int vdxg_cs_clear(struct vdxg_cs *cs, uint32_t flags, uint32_t x, uint32_t y,
		  uint32_t w, uint32_t h, const float *rgba, float depth,
		  uint32_t stencil)
{
	uint32_t *p, i;
	int ret;

	if (cs_check_u16(cs, x, y, w, h))
		return -EINVAL;
	ret = cs_cmd(cs, VDXG_RD_CLEAR, VDXG_RD_CLEAR_LEN, 0, &p);
	if (ret)
		return ret;
	p[VDXG_RD_CLEAR_DW_FLAGS] = flags;
	p[VDXG_RD_CLEAR_DW_XY] = VDXG_RD_XY(x, y);
	p[VDXG_RD_CLEAR_DW_WH] = VDXG_RD_XY(w, h);
	for (i = 0; i < 4; i++)
		p[VDXG_RD_CLEAR_DW_COLOR + i] = rgba ? vdxg_f32_bits(rgba[i]) : 0;
	p[VDXG_RD_CLEAR_DW_DEPTH] = vdxg_f32_bits(depth);
	p[VDXG_RD_CLEAR_DW_STENCIL] = stencil;
	return 0;
}

/* --------------------------------------------------------- escape hatch */

int vdxg_cs_emit_raw(struct vdxg_cs *cs, const uint32_t *dwords,
		     uint32_t count)
{
	int ret;

	if (count && !dwords)
		return cs_fail(cs, -EINVAL);
	ret = cs_begin(cs, count, 0);
	if (ret)
		return ret;
	if (count)
		memcpy(&cs->dw[cs->ndw], dwords, count * sizeof(*dwords));
	cs->ndw += count;
	return 0;
}

int vdxg_cs_emit_address(struct vdxg_cs *cs, struct vdxg_bo *bo,
			 uint32_t offset, uint32_t alloc_flags,
			 uint32_t slot_id)
{
	int ret;

	if (cs_check_bo(cs, bo))
		return -EINVAL;
	ret = cs_begin(cs, 2, 1);
	if (ret)
		return ret;
	cs->ndw += 2;
	cs_address(cs, cs->ndw - 2, bo, offset, alloc_flags, slot_id);
	return 0;
}

int vdxg_cs_add_raw_allocation(struct vdxg_cs *cs,
			       const struct drm_vdxg_allocation *alloc)
{
	int ret;

	if (!alloc)
		return cs_fail(cs, -EINVAL);
	ret = cs_grow_allocs(cs, cs->nallocs + 1);
	if (ret)
		return cs_fail(cs, ret);
	cs->allocs[cs->nallocs] = *alloc;
	cs->alloc_bo[cs->nallocs] = NULL;
	return (int)cs->nallocs++;
}

int vdxg_cs_add_raw_patch(struct vdxg_cs *cs,
			  const struct drm_vdxg_patch_location *patch)
{
	int ret;

	if (!patch)
		return cs_fail(cs, -EINVAL);
	ret = cs_grow_patches(cs, cs->npatches + 1);
	if (ret)
		return cs_fail(cs, ret);
	cs->patches[cs->npatches] = *patch;
	cs->patch_raw[cs->npatches++] = 1;
	return 0;
}

/* ------------------------------------------------------------- submit */

int vdxg_cs_prepare_submit(struct vdxg_cs *cs, struct drm_vdxg_submit *args)
{
	if (cs->error)
		return cs->error;
	if (cs->nallocs)
		memcpy(cs->submit_allocs, cs->allocs,
		       cs->nallocs * sizeof(*cs->allocs));
	args->commands = (uintptr_t)cs->dw;
	args->command_size = cs->ndw * 4;
	args->allocations = (uintptr_t)cs->submit_allocs;
	args->num_allocations = cs->nallocs;
	args->patches = (uintptr_t)cs->patches;
	args->num_patches = cs->npatches;
	return 0;
}

void vdxg_cs_complete_submit(struct vdxg_cs *cs)
{
	uint32_t i, j;

	for (i = 0; i < cs->nallocs; i++) {
		uint64_t addr = cs->submit_allocs[i].presumed_gpu_addr;

		if (!cs->alloc_bo[i])
			continue;	/* raw: submitted as given */
		cs->alloc_bo[i]->gpu_addr = addr;
		if (addr == cs->allocs[i].presumed_gpu_addr)
			continue;
		for (j = 0; j < cs->npatches; j++) {
			const struct drm_vdxg_patch_location *p = &cs->patches[j];
			uint64_t v = addr + p->allocation_offset;

			if (cs->patch_raw[j] || p->allocation_index != i)
				continue;
			cs->dw[p->patch_offset / 4] = (uint32_t)v;
			cs->dw[p->patch_offset / 4 + 1] = (uint32_t)(v >> 32);
		}
		cs->allocs[i].presumed_gpu_addr = addr;
	}
}
