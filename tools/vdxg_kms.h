/* SPDX-License-Identifier: MIT */
/*
 * vdxg_kms: the atomic KMS that vdxg-demo and vdxg-bench share: the card
 * node, an output, an atomic modeset and atomic page flips with events.
 * Functions return 0 or a negative errno.
 */
#ifndef VDXG_KMS_H
#define VDXG_KMS_H

#include <stdint.h>

#include <xf86drmMode.h>

#include "vdxg.h"

struct vdxg_kms {
	struct vdxg_device *dev;	/* on the card node */
	int fd;
	uint32_t crtc_id, conn_id, plane_id;	/* plane: the CRTC's primary */
	int crtc_index;
	drmModeModeInfo mode;		/* preferred, else the first */
	uint32_t w, h;
	/* property ids: CRTC, connector, then the plane's */
	uint32_t p_mode_id, p_active, p_conn_crtc;
	uint32_t p_fb, p_crtc, p_src[4], p_dst[4];
};

/*
 * Open PATH (NULL: the first card node vdxg drives), become DRM master,
 * turn atomic KMS on and find the first connected connector, a CRTC for it,
 * the CRTC's primary plane and the properties the commits below set.
 * -ENODEV without a connected output.
 */
int vdxg_kms_open(struct vdxg_kms *k, const char *path);
void vdxg_kms_close(struct vdxg_kms *k);
/* An XRGB8888 framebuffer of the mode's size over BO (pitch w * 4). */
int vdxg_kms_addfb(struct vdxg_kms *k, const struct vdxg_bo *bo,
		   uint32_t *fb_id);
/* Mode, connector and primary plane showing FB_ID, in one atomic commit. */
int vdxg_kms_modeset(struct vdxg_kms *k, uint32_t fb_id);
/* A nonblocking atomic page flip to FB_ID with an event for USER_DATA. */
int vdxg_kms_flip(struct vdxg_kms *k, uint32_t fb_id, uint64_t user_data);
/*
 * Wait up to TIMEOUT_MS for the flip event of USER_DATA; *SEQUENCE (if
 * not NULL) gets its vblank count. -ETIME on timeout, -EIO on another
 * event.
 */
int vdxg_kms_wait_flip(struct vdxg_kms *k, uint64_t user_data,
		       int timeout_ms, uint32_t *sequence);
/* The vblank count after waiting for the next vblank. */
int vdxg_kms_next_vblank(struct vdxg_kms *k, uint32_t *sequence);

#endif /* VDXG_KMS_H */
