// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/math64.h>
#include <linux/minmax.h>

#include <drm/drm_edid.h>

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
 *
 * Variable refresh: the monitor's EDID advertises its vertical range in a
 * Display Range Limits descriptor, which vdxg_edid_vrr_range() reads (as
 * amdgpu does: DRM fills &drm_display_info.monitor_range only for
 * continuous-frequency monitors, whose inferred modes vdxg does not want).
 * vdxg_vrr_vtotal_max() turns the range's lowest rate into the device's
 * VRR_VTOTAL_MAX for a mode.
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

/* EDID base block: four 18-byte descriptors from byte 54 */
#define VDXG_EDID_DESC_FIRST		54
#define VDXG_EDID_DESC_SIZE		18
#define VDXG_EDID_DESC_COUNT		4
#define VDXG_EDID_RANGE_TAG		0xfd
/* Range descriptor byte 4: rate offsets, +255 Hz to the max and the min */
#define VDXG_EDID_RANGE_MAX_VFREQ_255	BIT(1)
#define VDXG_EDID_RANGE_MIN_VFREQ_255	BIT(0)

/**
 * vdxg_edid_vrr_range - a monitor's vertical refresh range, from its EDID
 * @edid: the EDID, its base block first
 * @size: its size in bytes
 * @min_hz: the lowest rate
 * @max_hz: the highest rate
 *
 * Return: true when the base block (EDID 1.4) has a Display Range Limits
 * descriptor with 1 <= min <= max; @min_hz and @max_hz are set then.
 */
bool vdxg_edid_vrr_range(const u8 *edid, size_t size, u32 *min_hz,
			 u32 *max_hz)
{
	unsigned int i;

	if (size < EDID_LENGTH || edid[18] != 1 || edid[19] < 4)
		return false;
	for (i = 0; i < VDXG_EDID_DESC_COUNT; i++) {
		const u8 *d = edid + VDXG_EDID_DESC_FIRST +
			      i * VDXG_EDID_DESC_SIZE;
		u32 lo = d[5], hi = d[6];

		/* A display descriptor: pixel clock 0, then its tag */
		if (d[0] || d[1] || d[2] || d[3] != VDXG_EDID_RANGE_TAG)
			continue;
		if (d[4] & VDXG_EDID_RANGE_MAX_VFREQ_255)
			hi += 255;
		if (d[4] & VDXG_EDID_RANGE_MIN_VFREQ_255)
			lo += 255;
		if (!lo || lo > hi)
			return false;
		*min_hz = lo;
		*max_hz = hi;
		return true;
	}
	return false;
}

/**
 * vdxg_vrr_vtotal_max - the longest frame of a mode under variable refresh
 * @mode: the mode (its crtc_ timings)
 * @min_hz: the monitor's lowest rate
 *
 * Return: VRR_VTOTAL_MAX for the device: the lines of a frame at @min_hz,
 * rounded up, within the device's limits (at most 65535 lines and a 1 s
 * frame); the mode's own vtotal (no stretch) when the rate is not below
 * the mode's.
 */
u32 vdxg_vrr_vtotal_max(const struct drm_display_mode *mode, u32 min_hz)
{
	u64 lines, second;

	if (!min_hz || mode->crtc_clock <= 0 || mode->crtc_htotal <= 0)
		return mode->crtc_vtotal;
	/*
	 * Lines of 1/min_hz s, rounded up, so that a flip at the lowest rate
	 * finds the vblank still waiting for it: clock * 1000 / (htotal *
	 * min_hz). The device's frame of L lines is floor(htotal * L * 10^6 /
	 * clock) ns and at most 1 s: L <= clock * 1000 / htotal.
	 */
	lines = DIV_ROUND_UP_ULL((u64)mode->crtc_clock * 1000,
				 (u64)mode->crtc_htotal * min_hz);
	second = div_u64((u64)mode->crtc_clock * 1000, mode->crtc_htotal);
	lines = min3(lines, second, (u64)VDXG_MODE_MAX_VRR_TOTAL);
	return max_t(u32, lines, mode->crtc_vtotal);
}
