/* SPDX-License-Identifier: MIT */
/*
 * vdxg_ref_plane: a reference implementation of how the display engine
 * reads a plane, written straight from docs/hardware.md ("Planes",
 * "Composition"): scanout formats read as ARGB, then the geometry that
 * rotation, reflection and scaling (nearest or bilinear) give, one pixel
 * at a time.
 *
 * Like vdxg_ref.h it is plain C with <stdint.h> only in this header, and
 * builds both in userspace and inside QEMU's tree. The caller guarantees
 * what the device checks when it latches a plane: a scanout format, a
 * source inside its memory, DST_SIZE within the scaling limits.
 */
#ifndef VDXG_REF_PLANE_H
#define VDXG_REF_PLANE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A plane's registers, with its memory in CPU memory */
struct vdxg_ref_plane {
	const void *data;	/* source pixel (0, 0), at ADDR */
	uint32_t pitch;		/* PITCH, bytes */
	uint32_t fourcc;	/* FORMAT: VDXG_FOURCC_* */
	uint32_t w, h;		/* SRC_SIZE */
	uint32_t dw, dh;	/* DST_SIZE; 0 x 0: unscaled */
	uint32_t ctrl;		/* CTRL: VDXG_PLANE_CTRL_* rotation, BILINEAR */
};

/* Source pixel (x, y) read as ARGB8888 (A = 255 for formats without). */
uint32_t vdxg_ref_plane_read(const struct vdxg_ref_plane *p, uint32_t x,
			     uint32_t y);
/* The plane's size on the frame: DST_SIZE, or its source turned. */
void vdxg_ref_plane_dst_size(const struct vdxg_ref_plane *p, uint32_t *dw,
			     uint32_t *dh);
/* Pixel (u, v) of the destination rectangle, ARGB8888. */
uint32_t vdxg_ref_plane_sample(const struct vdxg_ref_plane *p, uint32_t u,
			       uint32_t v);

#ifdef __cplusplus
}
#endif

#endif /* VDXG_REF_PLANE_H */
