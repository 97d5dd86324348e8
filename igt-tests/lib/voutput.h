/* SPDX-License-Identifier: MIT */
/*
 * voutput: the display output a KMS test uses, for tests that speak the
 * vtest protocol.
 */
#ifndef VOUTPUT_H
#define VOUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <xf86drmMode.h>

struct voutput {
	uint32_t crtc_id;
	uint32_t conn_id;
	int head;			/* the CRTC's index */
	drmModeModeInfo mode;		/* preferred, else the first */
	uint32_t w, h;			/* the mode's size */
};

/*
 * Become DRM master on FD and find the first connected connector with
 * modes (writeback connectors excluded), a CRTC its first encoder drives,
 * and its mode. Skips the test when there is none.
 */
void voutput_find(int fd, struct voutput *o);

/* A dumb buffer of 32-bit pixels with a framebuffer over it, mapped. */
struct vfb {
	uint32_t handle, fb, pitch, w, h, format;
	uint64_t size;
	uint32_t *map;
};

/* Create F: W x H pixels of FORMAT (a 32-bit fourcc), zeroed. */
void vfb_create(int fd, struct vfb *f, uint32_t w, uint32_t h,
		uint32_t format);
void vfb_destroy(int fd, struct vfb *f);

/* The framebuffer CRTC_ID shows now (0: none). */
uint32_t voutput_crtc_fb(int fd, uint32_t crtc_id);
/*
 * The next DRM event on FD within TIMEOUT_MS into EV; false when none
 * came. One event per read: for an fd that asks for vblank-sized events
 * (page flips, vblanks) only.
 */
bool voutput_read_event(int fd, struct drm_event_vblank *ev, int timeout_ms);

/*
 * The display's CRCs (debugfs dri/N/crtc-K/crc). The device's CRC of a
 * frame is zlib's crc32 of its XRGB8888 pixels with the X byte read as 0
 * (docs/hardware.md).
 */

/* zlib's crc32 (CRC-32/ISO-HDLC) of N bytes, continued from CRC (0 first). */
uint32_t voutput_crc32(uint32_t crc, const void *p, size_t n);
/* The display's CRC of a W x H XRGB8888 image of PITCH bytes per row. */
uint32_t voutput_image_crc(const void *map, uint32_t pitch, uint32_t w,
			   uint32_t h);
/*
 * The CRC the display reports for what CRTC index HEAD of the DRM device
 * FD shows now: frames are read (source "auto") until two in a row agree,
 * at least three of them. Skips the test when the device has no CRC
 * debugfs files; WHAT names the image in messages.
 */
uint32_t voutput_screen_crc(int fd, int head, const char *what);

#endif /* VOUTPUT_H */
