// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/math64.h>

#include "vdxg_hw.h"
#include "vdxg_modes.h"

/**
 * DOC: Modes
 *
 * The display engine checks a mode when a CRTC is enabled and refuses what
 * it cannot scan out (docs/hardware.md, "Modes and timing"): at most
 * 4096x4096 active pixels, at most 8192 pixels and lines in total, sync
 * pulses inside the blanking, a pixel clock of at most 1.2 GHz and a
 * refresh rate from 1 Hz to 1000 Hz. vdxg_mode_status() is the same check
 * for DRM: the probe helpers drop the modes it refuses with its status, and
 * an atomic commit that asks for one fails with -EINVAL. It is pure logic,
 * tested by KUnit.
 */

/**
 * vdxg_mode_status - can the display engine scan out a mode?
 * @mode: the mode
 *
 * Return: MODE_OK, or the reason the device would refuse to enable a CRTC
 * with it: the size (MODE_BAD_HVALUE, MODE_BAD_VVALUE), the horizontal or
 * vertical timing (MODE_H_ILLEGAL, MODE_V_ILLEGAL), the pixel clock
 * (MODE_CLOCK_LOW, MODE_CLOCK_HIGH), the refresh rate (MODE_VSYNC), or a
 * kind of scanout it does not have (MODE_NO_INTERLACE, MODE_NO_DBLESCAN,
 * MODE_NO_VSCAN).
 */
enum drm_mode_status vdxg_mode_status(const struct drm_display_mode *mode)
{
	u64 frame_ns;

	if (mode->flags & DRM_MODE_FLAG_INTERLACE)
		return MODE_NO_INTERLACE;
	if (mode->flags & DRM_MODE_FLAG_DBLSCAN)
		return MODE_NO_DBLESCAN;
	if (mode->vscan > 1)
		return MODE_NO_VSCAN;
	if (!mode->hdisplay || mode->hdisplay > VDXG_MODE_MAX_DISPLAY)
		return MODE_BAD_HVALUE;
	if (!mode->vdisplay || mode->vdisplay > VDXG_MODE_MAX_DISPLAY)
		return MODE_BAD_VVALUE;
	if (mode->hsync_start < mode->hdisplay ||
	    mode->hsync_end < mode->hsync_start ||
	    mode->htotal < mode->hsync_end ||
	    mode->htotal > VDXG_MODE_MAX_TOTAL)
		return MODE_H_ILLEGAL;
	if (mode->vsync_start < mode->vdisplay ||
	    mode->vsync_end < mode->vsync_start ||
	    mode->vtotal < mode->vsync_end ||
	    mode->vtotal > VDXG_MODE_MAX_TOTAL)
		return MODE_V_ILLEGAL;
	if (mode->clock <= 0)
		return MODE_CLOCK_LOW;
	if (mode->clock > VDXG_MODE_MAX_CLOCK_KHZ)
		return MODE_CLOCK_HIGH;
	/* The device's frame period: floor(htotal * vtotal * 10^6 / clock) */
	frame_ns = div_u64((u64)mode->htotal * mode->vtotal * 1000000,
			   mode->clock);
	if (frame_ns < VDXG_MODE_MIN_FRAME_NS ||
	    frame_ns > VDXG_MODE_MAX_FRAME_NS)
		return MODE_VSYNC;
	return MODE_OK;
}
