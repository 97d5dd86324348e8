// SPDX-License-Identifier: MIT
/*
 * The 3D scene of vdxg-demo --3d and vdxg-bench's 3d group (see
 * vdxg_scene3d.h). Built with -ffp-contract=off: every float operation
 * here is rounded on its own, so the host and the guest compute the same
 * constants, and the reference of a still can be drawn on either.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma GCC optimize("fp-contract=off")
#endif
#pragma STDC FP_CONTRACT OFF
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define BIT(n)		(1u << (n))
#define BIT_ULL(n)	(1ull << (n))
#include "vdxg.h"
#include "vdxg_hw.h"
#include "vdxg_ref3d.h"
#include "vdxg_scene3d.h"

#define TEX_DIM		128
#define TEX_LEVELS	8		/* 128 down to 1 */
#define NUM_VERTICES	24		/* 4 a face */
#define NUM_INDICES	36
#define VERTEX_STRIDE	32		/* position, normal: 3 f32; uv: 2 f32 */
#define VS_CONSTS	9		/* modelview rows, projection rows, light */
#define UV_REPEAT	3.0f		/* the texture 3 x 3 times a face */

/*
 * The vertex program: CONST[0..2] the model-view rows (a rotation and a
 * translation), CONST[4..7] the projection's, CONST[8] the light's
 * position in view space. Out: the clip position, then the varyings uv,
 * the normal, the direction to the light and to the eye (view space).
 */
static const char vs_text[] =
	"VERT\n"
	"IMM[0] = { 1.0, 0.0, 0.0, 0.0 }\n"
	"DP4 TEMP[0].x, CONST[0], IN[0]\n"	/* IN[0].w is 1 */
	"DP4 TEMP[0].y, CONST[1], IN[0]\n"
	"DP4 TEMP[0].z, CONST[2], IN[0]\n"
	"MOV TEMP[0].w, IMM[0].x\n"
	"DP4 OUT[0].x, CONST[4], TEMP[0]\n"
	"DP4 OUT[0].y, CONST[5], TEMP[0]\n"
	"DP4 OUT[0].z, CONST[6], TEMP[0]\n"
	"DP4 OUT[0].w, CONST[7], TEMP[0]\n"
	"MOV OUT[2], IN[2]\n"			/* uv */
	"DP3 OUT[3].x, CONST[0], IN[1]\n"	/* the normal, rotated */
	"DP3 OUT[3].y, CONST[1], IN[1]\n"
	"DP3 OUT[3].z, CONST[2], IN[1]\n"
	"MOV OUT[3].w, IMM[0].y\n"
	"ADD OUT[4], CONST[8], -TEMP[0]\n"	/* to the light */
	"MOV OUT[5], -TEMP[0]\n"		/* to the eye */
	"END\n";

/*
 * The cube's fragments: the texture (trilinear: the sampler's MIP linear,
 * LOD from the implicit derivatives) lit per pixel: ambient + diffuse
 * N.L, plus a specular (N.H)^32 with H the half vector of L and V.
 */
static const char fs_cube_text[] =
	"FRAG\n"
	"IMM[0] = { 0.18, 32.0, 0.55, 1.0 }\n"	/* ambient, shininess, spec */
	"TEX TEMP[0], IN[0], UNIT[0], 2D\n"
	"DP3 TEMP[1].w, IN[1], IN[1]\n"
	"RSQ TEMP[1].w, TEMP[1].w\n"
	"MUL TEMP[1].xyz, IN[1], TEMP[1].w\n"	/* N */
	"DP3 TEMP[2].w, IN[2], IN[2]\n"
	"RSQ TEMP[2].w, TEMP[2].w\n"
	"MUL TEMP[2].xyz, IN[2], TEMP[2].w\n"	/* L */
	"DP3 TEMP[3].w, IN[3], IN[3]\n"
	"RSQ TEMP[3].w, TEMP[3].w\n"
	"MAD TEMP[3].xyz, IN[3], TEMP[3].w, TEMP[2]\n"	/* V + L */
	"DP3 TEMP[4].w, TEMP[3], TEMP[3]\n"
	"RSQ TEMP[4].w, TEMP[4].w\n"
	"MUL TEMP[3].xyz, TEMP[3], TEMP[4].w\n"	/* H */
	"DP3_SAT TEMP[5].x, TEMP[1], TEMP[2]\n"	/* diffuse */
	"DP3_SAT TEMP[5].y, TEMP[1], TEMP[3]\n"	/* N.H */
	"POW TEMP[5].z, TEMP[5].y, IMM[0].y\n"
	"ADD TEMP[5].x, TEMP[5].x, IMM[0].x\n"
	"MUL TEMP[6].xyz, TEMP[0], TEMP[5].x\n"
	"MAD OUT[0].xyz, TEMP[5].z, IMM[0].z, TEMP[6]\n"
	"MOV OUT[0].w, IMM[0].w\n"
	"END\n";

/* The glass cube's: a bluish tint, lit, alpha 0.45, plus a highlight. */
static const char fs_glass_text[] =
	"FRAG\n"
	"IMM[0] = { 0.35, 0.75, 1.0, 0.45 }\n"	/* colour, alpha */
	"IMM[1] = { 0.45, 0.55, 16.0, 0.0 }\n"	/* ambient, diffuse, shininess */
	"DP3 TEMP[1].w, IN[1], IN[1]\n"
	"RSQ TEMP[1].w, TEMP[1].w\n"
	"MUL TEMP[1].xyz, IN[1], TEMP[1].w\n"
	"DP3 TEMP[2].w, IN[2], IN[2]\n"
	"RSQ TEMP[2].w, TEMP[2].w\n"
	"MUL TEMP[2].xyz, IN[2], TEMP[2].w\n"
	"DP3 TEMP[3].w, IN[3], IN[3]\n"
	"RSQ TEMP[3].w, TEMP[3].w\n"
	"MAD TEMP[3].xyz, IN[3], TEMP[3].w, TEMP[2]\n"
	"DP3 TEMP[4].w, TEMP[3], TEMP[3]\n"
	"RSQ TEMP[4].w, TEMP[4].w\n"
	"MUL TEMP[3].xyz, TEMP[3], TEMP[4].w\n"
	"DP3_SAT TEMP[5].x, TEMP[1], TEMP[2]\n"
	"DP3_SAT TEMP[5].y, TEMP[1], TEMP[3]\n"
	"POW TEMP[5].z, TEMP[5].y, IMM[1].z\n"
	"MAD TEMP[5].x, TEMP[5].x, IMM[1].y, IMM[1].x\n"
	"MAD OUT[0].xyz, IMM[0], TEMP[5].x, TEMP[5].z\n"
	"MOV OUT[0].w, IMM[0].w\n"
	"END\n";

static uint32_t align16(uint32_t v)
{
	return (v + 15) & ~15u;
}

int scene3d_init(struct scene3d *s, uint32_t w, uint32_t h)
{
	struct vdxg_tex_layout lay;
	char msg[128];
	uint32_t off = 0;
	int ret, i;

	memset(s, 0, sizeof(*s));
	s->w = w;
	s->h = h;
	ret = vdxg_asm(vs_text, &s->vs, &s->vs_size, msg, sizeof(msg));
	if (!ret)
		ret = vdxg_asm(fs_cube_text, &s->fs_cube, &s->fs_cube_size,
			       msg, sizeof(msg));
	if (!ret)
		ret = vdxg_asm(fs_glass_text, &s->fs_glass,
			       &s->fs_glass_size, msg, sizeof(msg));
	if (!ret)
		ret = vdxg_tex_layout(VDXG_TEX_DESC(VDXG_FMT_ARGB8888,
						    TEX_LEVELS, 0),
				      TEX_DIM, TEX_DIM, &lay);
	if (ret) {
		scene3d_fini(s);
		return ret;
	}
	s->off_vs = off;
	off += align16(s->vs_size);
	s->off_fs_cube = off;
	off += align16(s->fs_cube_size);
	s->off_fs_glass = off;
	off += align16(s->fs_glass_size);
	for (i = 0; i < SCENE3D_SLOTS; i++) {
		s->off_consts[i] = off;
		off += 2 * VS_CONSTS * 16;
	}
	s->off_vb = off;
	off += NUM_VERTICES * VERTEX_STRIDE;
	s->off_ib = off;
	off += align16(NUM_INDICES * 2);
	s->off_tex = off;
	s->tex_size = (uint32_t)lay.size;
	off += align16(s->tex_size);
	s->size = off;
	return 0;
}

void scene3d_fini(struct scene3d *s)
{
	free(s->vs);
	free(s->fs_cube);
	free(s->fs_glass);
	s->vs = s->fs_cube = s->fs_glass = NULL;
}

/* ------------------------------------------------------------ resources */

static const float cube_pos[8][3] = {
	{ -1, -1, -1 }, { 1, -1, -1 }, { 1, 1, -1 }, { -1, 1, -1 },
	{ -1, -1, 1 }, { 1, -1, 1 }, { 1, 1, 1 }, { -1, 1, 1 },
};
/* Faces as corner quads, counter-clockwise seen from outside. */
static const uint8_t cube_face[6][4] = {
	{ 0, 3, 2, 1 }, { 4, 5, 6, 7 }, { 0, 1, 5, 4 },
	{ 3, 7, 6, 2 }, { 0, 4, 7, 3 }, { 1, 2, 6, 5 },
};
static const float face_normal[6][3] = {
	{ 0, 0, -1 }, { 0, 0, 1 }, { 0, -1, 0 },
	{ 0, 1, 0 }, { -1, 0, 0 }, { 1, 0, 0 },
};

/* Level 0: a two-tone checkerboard with a dark grid and a colour ramp. */
static uint32_t texel0(uint32_t x, uint32_t y)
{
	uint32_t r, g, b;

	if (x % 32 < 2 || y % 32 < 2)
		return 0xff302018;
	if ((x / 16 + y / 16) & 1) {
		r = 0xe0;
		g = 0x70 + x / 2;
		b = 0x20 + y / 4;
	} else {
		r = 0xf0 - y / 4;
		g = 0xe8;
		b = 0xc0 + x / 4;
	}
	return 0xff000000 | r << 16 | g << 8 | b;
}

/* The mipmapped texture: level 0 procedural, each next a 2x2 box filter. */
static void make_texture(const struct scene3d *s, uint8_t *tex)
{
	struct vdxg_tex_layout lay;
	uint32_t l, x, y, c;

	vdxg_tex_layout(VDXG_TEX_DESC(VDXG_FMT_ARGB8888, TEX_LEVELS, 0),
			TEX_DIM, TEX_DIM, &lay);
	(void)s;
	for (y = 0; y < TEX_DIM; y++)
		for (x = 0; x < TEX_DIM; x++)
			memcpy(tex + lay.level[0].offset +
			       y * lay.level[0].pitch + x * 4,
			       &(uint32_t){ texel0(x, y) }, 4);
	for (l = 1; l < TEX_LEVELS; l++) {
		const uint8_t *up = tex + lay.level[l - 1].offset;
		uint8_t *dn = tex + lay.level[l].offset;
		uint32_t up_pitch = lay.level[l - 1].pitch;

		for (y = 0; y < lay.level[l].height; y++)
			for (x = 0; x < lay.level[l].width; x++)
				for (c = 0; c < 4; c++) {
					const uint8_t *p = up +
						2 * y * up_pitch + 8 * x + c;

					dn[y * lay.level[l].pitch + 4 * x + c] =
						(p[0] + p[4] + p[up_pitch] +
						 p[up_pitch + 4] + 2) / 4;
				}
	}
}

void scene3d_fill(const struct scene3d *s, void *res)
{
	static const float uv[4][2] = {
		{ 0, 0 }, { UV_REPEAT, 0 }, { UV_REPEAT, UV_REPEAT },
		{ 0, UV_REPEAT },
	};
	static const int quad_tri[6] = { 0, 1, 2, 0, 2, 3 };
	uint8_t *r = res;
	float *v = (float *)(r + s->off_vb);
	uint16_t *ix = (uint16_t *)(r + s->off_ib);
	int f, k;

	memset(res, 0, s->size);
	memcpy(r + s->off_vs, s->vs, s->vs_size);
	memcpy(r + s->off_fs_cube, s->fs_cube, s->fs_cube_size);
	memcpy(r + s->off_fs_glass, s->fs_glass, s->fs_glass_size);
	for (f = 0; f < 6; f++) {
		for (k = 0; k < 4; k++, v += VERTEX_STRIDE / 4) {
			memcpy(v, cube_pos[cube_face[f][k]], 12);
			memcpy(v + 3, face_normal[f], 12);
			v[6] = uv[k][0];
			v[7] = uv[k][1];
		}
		for (k = 0; k < 6; k++)
			*ix++ = f * 4 + quad_tri[k];
	}
	make_texture(s, r + s->off_tex);
}

/* ------------------------------------------------------------ constants */

/*
 * CONST[0..2]: rows of the model-view matrix, translate(T) * scale(K) *
 * rotX(B) * rotY(A); CONST[3] unused; CONST[4..7] the projection; CONST[8]
 * the light.
 */
static void object_consts(float *c, float a, float b, float k,
			  const float *t, float aspect)
{
	const float fy = 2.2f, n = 1.0f, fr = 20.0f;
	float sa = vdxg_ref3d_sin(a), ca = vdxg_ref3d_cos(a);
	float sb = vdxg_ref3d_sin(b), cb = vdxg_ref3d_cos(b);
	/* rotX(b) * rotY(a) */
	float m[3][3] = {
		{ ca, 0, sa },
		{ sb * sa, cb, -(sb * ca) },
		{ -(cb * sa), sb, cb * ca },
	};
	int i, j;

	memset(c, 0, VS_CONSTS * 16);
	for (i = 0; i < 3; i++) {
		for (j = 0; j < 3; j++)
			c[4 * i + j] = m[i][j] * k;
		c[4 * i + 3] = t[i];
	}
	c[16] = fy / aspect;
	c[21] = fy;
	c[26] = (fr + n) / (n - fr);
	c[27] = (2.0f * fr * n) / (n - fr);
	c[30] = -1.0f;
	c[32] = -4.0f;		/* the light: up, left, in front */
	c[33] = 5.0f;
	c[34] = 3.0f;
	c[35] = 1.0f;
}

void scene3d_frame(const struct scene3d *s, void *res, unsigned int slot,
		   float t)
{
	static const float cube_at[3] = { -0.45f, 0.1f, -6.5f };
	static const float glass_at[3] = { 0.55f, -0.3f, -4.4f };
	float *c = (float *)((uint8_t *)res + s->off_consts[slot]);
	float aspect = (float)s->w / (float)s->h;

	object_consts(c, t * 0.9f, t * 0.6f + 0.5f, 1.0f, cube_at, aspect);
	object_consts(c + 4 * VS_CONSTS, -(t * 1.3f), t * 0.8f, 0.55f,
		      glass_at, aspect);
}

/* ------------------------------------------------------------- commands */

void scene3d_emit(const struct scene3d *s, const struct scene3d_ops *ops,
		  void *o, unsigned int slot)
{
	static const float bg[4] = { 0.06f, 0.09f, 0.19f, 1.0f };
	const uint32_t elements[3] = {
		VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_FLOAT32, 3), 0, 0),
		VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_FLOAT32, 3), 0, 12),
		VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_FLOAT32, 2), 0, 24),
	};
	const uint32_t viewport[6] = {
		vdxg_f32_bits((float)s->w * 0.5f),
		vdxg_f32_bits(-((float)s->h * 0.5f)),
		vdxg_f32_bits(0.5f),
		vdxg_f32_bits((float)s->w * 0.5f),
		vdxg_f32_bits((float)s->h * 0.5f),
		vdxg_f32_bits(0.5f),
	};
	const uint32_t sampler = VDXG_SAMPLER_MAG_LINEAR |
		VDXG_SAMPLER_MIN_LINEAR | VDXG_SAMPLER_MIP(VDXG_MIP_LINEAR) |
		VDXG_SAMPLER_WRAP_S(VDXG_WRAP_REPEAT) |
		VDXG_SAMPLER_WRAP_T(VDXG_WRAP_REPEAT);
	const uint32_t cull = 2;		/* CULL back faces */
	const uint32_t depth_opaque = VDXG_DEPTH_TEST | VDXG_DEPTH_WRITE |
		VDXG_DEPTH_FUNC(VDXG_FUNC_LESS);
	const uint32_t opaque = 0;		/* no blending */
	const uint32_t depth_glass = VDXG_DEPTH_TEST |
		VDXG_DEPTH_FUNC(VDXG_FUNC_LESS);
	const uint32_t blend = VDXG_BLEND_ENABLE |
		VDXG_BLEND_RGB_EQ(VDXG_BLEQ_ADD) |
		VDXG_BLEND_RGB_SRC(VDXG_BLF_SRC_ALPHA) |
		VDXG_BLEND_RGB_DST(VDXG_BLF_ONE_MINUS_SRC_ALPHA) |
		VDXG_BLEND_A_EQ(VDXG_BLEQ_ADD) |
		VDXG_BLEND_A_SRC(VDXG_BLF_ONE) |
		VDXG_BLEND_A_DST(VDXG_BLF_ONE_MINUS_SRC_ALPHA);

	ops->fb_depth(o);
	ops->clear(o, VDXG_CLEAR_COLOR | VDXG_CLEAR_DEPTH, s->w, s->h, bg,
		   1.0f);
	ops->set_state(o, VDXG_3D_RASTER, &cull, 1);
	ops->set_state(o, VDXG_3D_VIEWPORT_SCALE(0), viewport, 6);
	ops->set_state(o, VDXG_3D_ELEMENT(0), elements, 3);
	ops->set_state(o, VDXG_3D_SAMPLER(0), &sampler, 1);
	/*
	 * Everything the glass changes is set for the cube too: by EXEC the
	 * context's state carries over from the last frame's glass.
	 */
	ops->set_state(o, VDXG_3D_DEPTH, &depth_opaque, 1);
	ops->set_state(o, VDXG_3D_BLEND, &opaque, 1);
	ops->set_shader(o, VDXG_3D_STAGE_VERTEX, s->off_vs, s->vs_size);
	ops->set_shader(o, VDXG_3D_STAGE_FRAGMENT, s->off_fs_cube,
			s->fs_cube_size);
	ops->set_constants(o, VDXG_3D_STAGE_VERTEX, s->off_consts[slot],
			   VS_CONSTS);
	ops->set_vertex_buffer(o, 0, s->off_vb, NUM_VERTICES * VERTEX_STRIDE,
			       VERTEX_STRIDE);
	ops->set_index_buffer(o, s->off_ib, NUM_INDICES * 2, 2);
	ops->set_texture(o, 0, s->off_tex, s->tex_size,
			 VDXG_TEX_DESC(VDXG_FMT_ARGB8888, TEX_LEVELS, 0),
			 TEX_DIM, TEX_DIM);
	ops->draw_indexed(o, VDXG_PRIM_TRIANGLES, 0, NUM_INDICES, 0);
	/* The glass: after the opaque cube, depth tested, not written. */
	ops->set_constants(o, VDXG_3D_STAGE_VERTEX,
			   s->off_consts[slot] + VS_CONSTS * 16, VS_CONSTS);
	ops->set_shader(o, VDXG_3D_STAGE_FRAGMENT, s->off_fs_glass,
			s->fs_glass_size);
	ops->set_state(o, VDXG_3D_DEPTH, &depth_glass, 1);
	ops->set_state(o, VDXG_3D_BLEND, &blend, 1);
	ops->draw_indexed(o, VDXG_PRIM_TRIANGLES, 0, NUM_INDICES, 0);
}

/* ----------------------------------------- by virtual address (vdxg_vcs) */

static void vcs_fb_depth(void *o)
{
	struct scene3d_vcs *v = o;

	vdxg_vcs_set_surface(v->vcs, VDXG_SLOT_DST, v->fb_va,
			     VDXG_FMT_XRGB8888, v->w, v->h, v->w * 4);
	vdxg_vcs_set_surface(v->vcs, VDXG_SLOT_DEPTH, v->depth_va,
			     VDXG_FMT_D24S8, v->w, v->h, v->w * 4);
}

static void vcs_set_state(void *o, uint32_t first, const uint32_t *val,
			  uint32_t n)
{
	vdxg_vcs_set_state(((struct scene3d_vcs *)o)->vcs, first, val, n);
}

static void vcs_set_shader(void *o, uint32_t stage, uint32_t off,
			   uint32_t size)
{
	struct scene3d_vcs *v = o;

	vdxg_vcs_set_shader(v->vcs, stage, v->res_va + off, size);
}

static void vcs_set_constants(void *o, uint32_t stage, uint32_t off,
			      uint32_t count)
{
	struct scene3d_vcs *v = o;

	vdxg_vcs_set_constants(v->vcs, stage, v->res_va + off, count);
}

static void vcs_set_vertex_buffer(void *o, uint32_t index, uint32_t off,
				  uint32_t size, uint32_t stride)
{
	struct scene3d_vcs *v = o;

	vdxg_vcs_set_vertex_buffer(v->vcs, index, v->res_va + off, size,
				   stride);
}

static void vcs_set_index_buffer(void *o, uint32_t off, uint32_t size,
				 uint32_t index_size)
{
	struct scene3d_vcs *v = o;

	vdxg_vcs_set_index_buffer(v->vcs, v->res_va + off, size, index_size);
}

static void vcs_set_texture(void *o, uint32_t unit, uint32_t off,
			    uint32_t size, uint32_t desc, uint32_t width,
			    uint32_t height)
{
	struct scene3d_vcs *v = o;

	vdxg_vcs_set_texture(v->vcs, unit, v->res_va + off, size, desc, width,
			     height);
}

static void vcs_draw_indexed(void *o, uint32_t prim, uint32_t first,
			     uint32_t count, int32_t bias)
{
	vdxg_vcs_draw_indexed(((struct scene3d_vcs *)o)->vcs, prim, first,
			      count, bias);
}

static void vcs_clear(void *o, uint32_t flags, uint32_t w, uint32_t h,
		      const float *rgba, float depth)
{
	vdxg_vcs_clear(((struct scene3d_vcs *)o)->vcs, flags, 0, 0, w, h,
		       rgba, depth, 0);
}

const struct scene3d_ops scene3d_vcs_ops = {
	.fb_depth = vcs_fb_depth,
	.set_state = vcs_set_state,
	.set_shader = vcs_set_shader,
	.set_constants = vcs_set_constants,
	.set_vertex_buffer = vcs_set_vertex_buffer,
	.set_index_buffer = vcs_set_index_buffer,
	.set_texture = vcs_set_texture,
	.draw_indexed = vcs_draw_indexed,
	.clear = vcs_clear,
};

/* ------------------------------------ with patch locations (vdxg_cs) */

static void cs_fb_depth(void *o)
{
	struct scene3d_cs *c = o;

	vdxg_cs_set_surface(c->cs, VDXG_SLOT_DST, c->fb, 0,
			    DRM_VDXG_ALLOC_WRITE, VDXG_FMT_XRGB8888, c->w,
			    c->h, c->w * 4);
	vdxg_cs_set_surface(c->cs, VDXG_SLOT_DEPTH, c->depth, 0,
			    DRM_VDXG_ALLOC_WRITE, VDXG_FMT_D24S8, c->w, c->h,
			    c->w * 4);
}

static void cs_set_state(void *o, uint32_t first, const uint32_t *val,
			 uint32_t n)
{
	vdxg_cs_set_state(((struct scene3d_cs *)o)->cs, first, val, n);
}

static void cs_set_shader(void *o, uint32_t stage, uint32_t off,
			  uint32_t size)
{
	struct scene3d_cs *c = o;

	vdxg_cs_set_shader(c->cs, stage, c->res, off, size);
}

static void cs_set_constants(void *o, uint32_t stage, uint32_t off,
			     uint32_t count)
{
	struct scene3d_cs *c = o;

	vdxg_cs_set_constants(c->cs, stage, c->res, off, count);
}

static void cs_set_vertex_buffer(void *o, uint32_t index, uint32_t off,
				 uint32_t size, uint32_t stride)
{
	struct scene3d_cs *c = o;

	vdxg_cs_set_vertex_buffer(c->cs, index, c->res, off, size, stride);
}

static void cs_set_index_buffer(void *o, uint32_t off, uint32_t size,
				uint32_t index_size)
{
	struct scene3d_cs *c = o;

	vdxg_cs_set_index_buffer(c->cs, c->res, off, size, index_size);
}

static void cs_set_texture(void *o, uint32_t unit, uint32_t off,
			   uint32_t size, uint32_t desc, uint32_t width,
			   uint32_t height)
{
	struct scene3d_cs *c = o;

	vdxg_cs_set_texture(c->cs, unit, c->res, off, size, desc, width,
			    height);
}

static void cs_draw_indexed(void *o, uint32_t prim, uint32_t first,
			    uint32_t count, int32_t bias)
{
	vdxg_cs_draw_indexed(((struct scene3d_cs *)o)->cs, prim, first, count,
			     bias);
}

static void cs_clear(void *o, uint32_t flags, uint32_t w, uint32_t h,
		     const float *rgba, float depth)
{
	vdxg_cs_clear(((struct scene3d_cs *)o)->cs, flags, 0, 0, w, h, rgba,
		      depth, 0);
}

const struct scene3d_ops scene3d_cs_ops = {
	.fb_depth = cs_fb_depth,
	.set_state = cs_set_state,
	.set_shader = cs_set_shader,
	.set_constants = cs_set_constants,
	.set_vertex_buffer = cs_set_vertex_buffer,
	.set_index_buffer = cs_set_index_buffer,
	.set_texture = cs_set_texture,
	.draw_indexed = cs_draw_indexed,
	.clear = cs_clear,
};

/* ------------------------------------------------------------ reference */

/* The reference's flat address space: each buffer a window of its own. */
#define REF_RES		(1ull << 32)
#define REF_FB		(2ull << 32)
#define REF_DEPTH	(3ull << 32)
#define REF_CMD		(4ull << 32)
#define REF_CMD_BYTES	4096

struct ref_mem {
	const uint8_t *res;
	uint8_t *fb, *depth;
	uint64_t res_size, fb_size;
};

static uint8_t *ref_ptr(struct ref_mem *m, uint64_t addr, uint32_t len,
			bool write)
{
	uint64_t base = addr & ~0xffffffffull, off = addr - base;

	if (base == REF_RES && !write && off + len <= m->res_size)
		return (uint8_t *)m->res + off;
	if (base == REF_FB && off + len <= m->fb_size)
		return m->fb + off;
	if (base == REF_DEPTH && off + len <= m->fb_size)
		return m->depth + off;
	return NULL;
}

static bool ref_read(void *opaque, uint64_t addr, void *buf, uint32_t len)
{
	uint8_t *p = ref_ptr(opaque, addr, len, false);

	if (p)
		memcpy(buf, p, len);
	return p;
}

static bool ref_write(void *opaque, uint64_t addr, const void *buf,
		      uint32_t len)
{
	uint8_t *p = ref_ptr(opaque, addr, len, true);

	if (p)
		memcpy(p, buf, len);
	return p;
}

int scene3d_reference(const struct scene3d *s, const void *res,
		      unsigned int slot, uint32_t *dst)
{
	struct ref_mem m = {
		.res = res, .fb = (uint8_t *)dst,
		.res_size = s->size, .fb_size = SCENE3D_FB_SIZE(s),
	};
	const struct vdxg_ref3d_mem mem = {
		.opaque = &m, .read = ref_read, .write = ref_write,
	};
	struct vdxg_ref3d_fault fault = { 0 };
	struct vdxg_ref3d_ctx *ctx = malloc(sizeof(*ctx));
	uint32_t *cmds = malloc(REF_CMD_BYTES);
	int ret;
	struct vdxg_vcs vcs;
	struct scene3d_vcs v = {
		.vcs = &vcs, .res_va = REF_RES, .fb_va = REF_FB,
		.depth_va = REF_DEPTH, .w = s->w, .h = s->h,
	};

	m.depth = malloc(m.fb_size);
	if (!ctx || !cmds || !m.depth) {
		free(ctx);
		free(cmds);
		free(m.depth);
		return -ENOMEM;
	}
	vdxg_ref3d_init(ctx);
	vdxg_vcs_init(&vcs, cmds, REF_CMD_BYTES, REF_CMD);
	scene3d_emit(s, &scene3d_vcs_ops, &v, slot);
	ret = vdxg_vcs_error(&vcs) ? -EINVAL :
	      (int)vdxg_ref3d_exec(ctx, &mem, REF_CMD, cmds,
				   vdxg_vcs_length(&vcs) / 4, &fault);
	free(m.depth);
	free(cmds);
	free(ctx);
	return ret;
}
