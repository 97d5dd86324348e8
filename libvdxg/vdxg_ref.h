/* SPDX-License-Identifier: MIT */
/*
 * vdxg_ref: a reference implementation of the RENDER engine's pixel
 * operations, written straight from docs/hardware.md ("DMA buffers (the
 * RENDER engine's command set)"), one pixel at a time.
 *
 * It exists to be compared pixel-exactly with other implementations (the
 * QEMU device model, the driver's results read back in the guest). It is
 * plain C: <stdint.h> only in this header, no allocation except the
 * temporary copy an overlapping COPY_RECT or BLEND may need, no globals,
 * no dependency on libdrm or libvdxg. It builds both in userspace and
 * inside QEMU's tree (where it includes "qemu/osdep.h" first).
 *
 * Formats and flags are the hardware's: VDXG_FMT_* and VDXG_DRAW_* of
 * vdxg_hw.h. The caller guarantees valid arguments (what the engine would
 * fault on is not checked here): a format of 1 to 4, rectangles inside
 * their surfaces, DEPTH (when the flags need it) a D32 surface at least as
 * large as DST, TEXTURE (when VDXG_DRAW_TEXTURE is set) a colour surface,
 * vertex coordinates within +/- VDXG_VTX_COORD_MAX.
 */
#ifndef VDXG_REF_H
#define VDXG_REF_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A surface in CPU memory: pixel (x, y) is at data + y * pitch + x * cpp,
 * little endian, cpp 2 for VDXG_FMT_RGB565 and 4 otherwise.
 */
struct vdxg_ref_surface {
	void *data;
	uint32_t format;	/* VDXG_FMT_* */
	uint32_t width, height;
	uint32_t pitch;		/* bytes */
};

/* Pixel (x, y) read as ARGB8888; a D32 surface returns the raw value. */
uint32_t vdxg_ref_read(const struct vdxg_ref_surface *s, uint32_t x,
		       uint32_t y);
/* Write ARGB8888 colour (a raw value for D32) converted to the format. */
void vdxg_ref_write(struct vdxg_ref_surface *s, uint32_t x, uint32_t y,
		    uint32_t argb);

/* FILL_RECT into dst. */
void vdxg_ref_fill_rect(struct vdxg_ref_surface *dst, uint32_t x, uint32_t y,
			uint32_t w, uint32_t h, uint32_t argb);
/*
 * COPY_RECT from src to dst. When the two share memory the result is the
 * one of reading the whole source rectangle before writing anything.
 */
void vdxg_ref_copy_rect(struct vdxg_ref_surface *dst,
			const struct vdxg_ref_surface *src, uint32_t sx,
			uint32_t sy, uint32_t dx, uint32_t dy, uint32_t w,
			uint32_t h);
/*
 * BLEND src over dst with constant alpha (0-255). Overlapping memory is
 * treated as for COPY_RECT: the source is read in full first.
 */
void vdxg_ref_blend(struct vdxg_ref_surface *dst,
		    const struct vdxg_ref_surface *src, uint32_t sx,
		    uint32_t sy, uint32_t dx, uint32_t dy, uint32_t w,
		    uint32_t h, uint32_t alpha);
/*
 * DRAW_TRIANGLES: count / 3 triangles from vertices (8 dwords each, the
 * VDXG_VTX_DW_* layout) into dst. depth may be NULL when flags have neither
 * VDXG_DRAW_DEPTH_TEST nor VDXG_DRAW_DEPTH_WRITE, tex when they lack
 * VDXG_DRAW_TEXTURE.
 */
void vdxg_ref_draw_triangles(struct vdxg_ref_surface *dst,
			     struct vdxg_ref_surface *depth,
			     const struct vdxg_ref_surface *tex,
			     uint32_t flags, const uint32_t *vertices,
			     uint32_t count);

/* div255(v) = (v + 127) / 255, the engine's rounding division by 255. */
uint32_t vdxg_ref_div255(uint32_t v);

#ifdef __cplusplus
}
#endif

#endif /* VDXG_REF_H */
