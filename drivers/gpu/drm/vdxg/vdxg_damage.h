/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */

#ifndef _VDXG_DAMAGE_H_
#define _VDXG_DAMAGE_H_

#include <linux/types.h>

struct drm_crtc;
struct drm_plane_state;
struct drm_rect;

/**
 * struct vdxg_damage - the frame rows a commit may change on one CRTC
 * @y1: the first row
 * @y2: the row after the last one; none when @y1 >= @y2
 */
struct vdxg_damage {
	int y1;
	int y2;
};

void vdxg_damage_init(struct vdxg_damage *d);
void vdxg_damage_plane(struct vdxg_damage *d, const struct drm_crtc *crtc,
		       const struct drm_plane_state *old,
		       const struct drm_plane_state *new,
		       const struct drm_rect *clip);

#endif
