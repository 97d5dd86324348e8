// SPDX-License-Identifier: MIT
/*
 * vdxg_ref_plane: the display engine's plane reads, from docs/hardware.md.
 * See vdxg_ref_plane.h.
 *
 * Copyright 2026 The vdxg authors
 */
#include "vdxg_ref_hw.h"

#include "vdxg_ref_plane.h"

static uint32_t rp_le32(const uint8_t *b)
{
	return b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

uint32_t vdxg_ref_plane_read(const struct vdxg_ref_plane *p, uint32_t x,
			     uint32_t y)
{
	const uint8_t *row = (const uint8_t *)p->data + (uint64_t)y * p->pitch;
	uint32_t v, r, g, b;

	switch (p->fourcc) {
	case VDXG_FOURCC_XRGB8888:
		return rp_le32(row + x * 4) | 0xff000000u;
	case VDXG_FOURCC_ARGB8888:
		return rp_le32(row + x * 4);
	case VDXG_FOURCC_XBGR8888:
		v = rp_le32(row + x * 4);
		return 0xff000000u | (v & 0xff) << 16 | (v & 0xff00) |
		       ((v >> 16) & 0xff);
	default:	/* RGB565 */
		v = row[x * 2] | (uint32_t)row[x * 2 + 1] << 8;
		r = v >> 11;
		g = (v >> 5) & 0x3f;
		b = v & 0x1f;
		return 0xff000000u | (r << 3 | r >> 2) << 16 |
		       (g << 2 | g >> 4) << 8 | (b << 3 | b >> 2);
	}
}

/* The source as shown: h x w when turned by 90 degrees */
static void rp_turned(const struct vdxg_ref_plane *p, int64_t *rw,
		      int64_t *rh)
{
	bool rot90 = p->ctrl & VDXG_PLANE_CTRL_ROT_90;

	*rw = rot90 ? p->h : p->w;
	*rh = rot90 ? p->w : p->h;
}

void vdxg_ref_plane_dst_size(const struct vdxg_ref_plane *p, uint32_t *dw,
			     uint32_t *dh)
{
	int64_t rw, rh;

	rp_turned(p, &rw, &rh);
	*dw = p->dw ? p->dw : (uint32_t)rw;
	*dh = p->dh ? p->dh : (uint32_t)rh;
}

/*
 * Point (ru, rv) of the turned source: the framebuffer reflected, then
 * turned 90 degrees counter-clockwise (DRM's drm_rect_rotate()), ROT_180
 * being both reflections.
 */
static uint32_t rp_fetch(const struct vdxg_ref_plane *p, int64_t ru,
			 int64_t rv)
{
	bool rot = p->ctrl & VDXG_PLANE_CTRL_ROT_180;
	bool fx = rot != !!(p->ctrl & VDXG_PLANE_CTRL_REFLECT_X);
	bool fy = rot != !!(p->ctrl & VDXG_PLANE_CTRL_REFLECT_Y);
	int64_t xr = ru, yr = rv;

	if (p->ctrl & VDXG_PLANE_CTRL_ROT_90) {
		xr = p->w - 1 - rv;
		yr = ru;
	}
	return vdxg_ref_plane_read(p, fx ? p->w - 1 - xr : xr,
				   fy ? p->h - 1 - yr : yr);
}

/* The bilinear sample position of destination u of d on r, 16.16 */
static int64_t rp_pos(int64_t u, int64_t r, int64_t d)
{
	int64_t q = (2 * u + 1) * r * 65536 / (2 * d) - 32768;

	return q < 0 ? 0 : q > (r - 1) * 65536 ? (r - 1) * 65536 : q;
}

uint32_t vdxg_ref_plane_sample(const struct vdxg_ref_plane *p, uint32_t u,
			       uint32_t v)
{
	int64_t rw, rh, pu, pv, u0, v0, u1, v1, fu, fv, w[4], sum;
	uint32_t dw, dh, q[4], out = 0;
	int ch, i;

	rp_turned(p, &rw, &rh);
	vdxg_ref_plane_dst_size(p, &dw, &dh);
	if (!(p->ctrl & VDXG_PLANE_CTRL_BILINEAR))
		return rp_fetch(p, (2 * (int64_t)u + 1) * rw / (2 * (int64_t)dw),
				(2 * (int64_t)v + 1) * rh / (2 * (int64_t)dh));
	pu = rp_pos(u, rw, dw);
	pv = rp_pos(v, rh, dh);
	u0 = pu >> 16;
	v0 = pv >> 16;
	u1 = u0 + 1 < rw ? u0 + 1 : rw - 1;
	v1 = v0 + 1 < rh ? v0 + 1 : rh - 1;
	fu = (pu >> 8) & 0xff;
	fv = (pv >> 8) & 0xff;
	q[0] = rp_fetch(p, u0, v0);
	q[1] = rp_fetch(p, u1, v0);
	q[2] = rp_fetch(p, u0, v1);
	q[3] = rp_fetch(p, u1, v1);
	w[0] = (256 - fu) * (256 - fv);
	w[1] = fu * (256 - fv);
	w[2] = (256 - fu) * fv;
	w[3] = fu * fv;
	for (ch = 0; ch < 32; ch += 8) {
		sum = 32768;
		for (i = 0; i < 4; i++)
			sum += ((q[i] >> ch) & 0xff) * w[i];
		out |= (uint32_t)(sum >> 16) << ch;
	}
	return out;
}
