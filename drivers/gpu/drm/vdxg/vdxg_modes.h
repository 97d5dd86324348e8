/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */

#ifndef _VDXG_MODES_H_
#define _VDXG_MODES_H_

#include <drm/drm_modes.h>

enum drm_mode_status vdxg_mode_status(const struct drm_display_mode *mode);

#endif
