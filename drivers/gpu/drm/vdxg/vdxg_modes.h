/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */

#ifndef _VDXG_MODES_H_
#define _VDXG_MODES_H_

#include <drm/drm_modes.h>

/* The narrowest refresh range worth variable refresh */
#define VDXG_VRR_MIN_SPAN_HZ	10

enum drm_mode_status vdxg_mode_status(const struct drm_display_mode *mode);
bool vdxg_edid_vrr_range(const u8 *edid, size_t size, u32 *min_hz,
			 u32 *max_hz);
u32 vdxg_vrr_vtotal_max(const struct drm_display_mode *mode, u32 min_hz);

#endif
