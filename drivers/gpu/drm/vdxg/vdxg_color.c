// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <drm/drm_atomic.h>
#include <drm/drm_color_mgmt.h>
#include <drm/drm_crtc.h>
#include <drm/drm_print.h>

#include "vdxg_display.h"
#include "vdxg_drv.h"

/**
 * DOC: Colour management
 *
 * Each CRTC has DRM's colour pipeline in hardware (docs/hardware.md,
 * "Colour pipeline"): DEGAMMA_LUT and GAMMA_LUT of 256 entries, which the
 * device interpolates as DRM expects, and the CTM, which it takes as
 * signed 15.16 fixed point. The legacy gamma ioctl goes through the
 * atomic GAMMA_LUT by DRM's core. The registers are pending ones, latched
 * by the commit's FLIP, so a colour change shows at the same vblank as
 * the planes of its commit.
 */

/**
 * vdxg_color_init - give a CRTC its colour management properties
 * @vc: the pipe
 *
 * Return: 0 or a negative errno.
 */
int vdxg_color_init(struct vdxg_crtc *vc)
{
	drm_crtc_enable_color_mgmt(&vc->base, VDXG_LUT_SIZE, true,
				   VDXG_LUT_SIZE);
	return drm_mode_crtc_set_gamma_size(&vc->base, VDXG_LUT_SIZE);
}

static int vdxg_color_check_lut(struct drm_crtc *crtc,
				const struct drm_property_blob *lut,
				const char *name)
{
	if (lut && drm_color_lut_size(lut) != VDXG_LUT_SIZE) {
		drm_dbg_atomic(crtc->dev,
			       "[CRTC:%d] %s of %d entries, not %u\n",
			       crtc->base.id, name, drm_color_lut_size(lut),
			       VDXG_LUT_SIZE);
		return -EINVAL;
	}
	return 0;
}

/**
 * vdxg_color_check - check a CRTC state's colour properties
 * @crtc: the CRTC
 * @cs: its new state
 *
 * The core checks the CTM's size and that a LUT is made of whole entries;
 * the device's LUTs have exactly VDXG_LUT_SIZE of them.
 *
 * Return: 0 or -EINVAL.
 */
int vdxg_color_check(struct drm_crtc *crtc, struct drm_crtc_state *cs)
{
	int ret;

	ret = vdxg_color_check_lut(crtc, cs->degamma_lut, "DEGAMMA_LUT");
	if (!ret)
		ret = vdxg_color_check_lut(crtc, cs->gamma_lut, "GAMMA_LUT");
	return ret;
}

static void vdxg_color_write_lut(struct vdxg_crtc *vc, u32 index,
				 const struct drm_property_blob *blob)
{
	u32 base = VDXG_CRTC_BASE(vc->pipe);
	const struct drm_color_lut *lut = blob->data;
	unsigned int i;

	vdxg_wr(vc->vdxg, base + VDXG_CRTC_LUT_INDEX, index);
	for (i = 0; i < VDXG_LUT_SIZE; i++) {
		vdxg_wr(vc->vdxg, base + VDXG_CRTC_LUT_DATA_LO,
			lut[i].red | (u32)lut[i].green << 16);
		vdxg_wr(vc->vdxg, base + VDXG_CRTC_LUT_DATA_HI, lut[i].blue);
	}
}

/* A CTM coefficient, S31.32 sign-magnitude, as the device's S15.16 */
static u32 vdxg_color_ctm_coef(u64 coef)
{
	return lower_32_bits(drm_color_ctm_s31_32_to_qm_n(coef, 16,
							  VDXG_CTM_FRAC_BITS));
}

/**
 * vdxg_color_commit - write a CRTC state's colour pipeline
 * @vc: the pipe
 * @cs: its new state, checked by vdxg_color_check()
 *
 * Writes the pending registers; the FLIP that follows latches them.
 */
void vdxg_color_commit(struct vdxg_crtc *vc, const struct drm_crtc_state *cs)
{
	u32 base = VDXG_CRTC_BASE(vc->pipe);
	u32 ctrl = 0;
	unsigned int i;

	if (cs->degamma_lut) {
		vdxg_color_write_lut(vc, 0, cs->degamma_lut);
		ctrl |= VDXG_COLOR_DEGAMMA;
	}
	if (cs->gamma_lut) {
		vdxg_color_write_lut(vc, VDXG_LUT_INDEX_GAMMA, cs->gamma_lut);
		ctrl |= VDXG_COLOR_GAMMA;
	}
	if (cs->ctm) {
		const struct drm_color_ctm *ctm = cs->ctm->data;

		for (i = 0; i < ARRAY_SIZE(ctm->matrix); i++)
			vdxg_wr(vc->vdxg, base + VDXG_CRTC_CTM(i),
				vdxg_color_ctm_coef(ctm->matrix[i]));
		ctrl |= VDXG_COLOR_CTM;
	}
	vdxg_wr(vc->vdxg, base + VDXG_CRTC_COLOR_CTRL, ctrl);
}
