// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/minmax.h>

#include <drm/drm_framebuffer.h>
#include <drm/drm_plane.h>
#include <drm/drm_rect.h>

#include "vdxg_damage.h"

/**
 * DOC: Damage
 *
 * The display engine composes each frame from the planes' memory. A FLIP
 * written with FLIP_DAMAGE tells it which frame rows the flip changes
 * (DAMAGE); it keeps the pixels of the other rows and does not read their
 * planes again (docs/hardware.md, "Damage"), as a panel with selective
 * update keeps the lines it is not sent.
 *
 * Every plane has FB_DAMAGE_CLIPS. vdxg_damage_plane() adds up, for one
 * CRTC, the rows a commit may change: for a plane drawn as before, the
 * rows of its damage clips, merged by drm_atomic_helper_damage_merged()
 * in the flush (which also stands for a commit without clips, or with a
 * new source rectangle, by the whole plane); for a plane that appears, disappears,
 * moves or is drawn otherwise (format, alpha, blending, zpos, rotation,
 * filter), every row it covered and covers. A scaled or rotated plane's
 * clips stand for all its rows. The CRTC's own changes (a modeset, the
 * colour pipeline) change every row, and the flush then writes FLIP
 * without FLIP_DAMAGE. This is pure logic, tested by KUnit.
 */

/**
 * vdxg_damage_init - no rows changed yet
 * @d: the damage
 */
void vdxg_damage_init(struct vdxg_damage *d)
{
	d->y1 = 0;
	d->y2 = 0;
}

static void vdxg_damage_add(struct vdxg_damage *d, int y1, int y2)
{
	if (y1 >= y2)
		return;
	if (d->y1 >= d->y2) {
		d->y1 = y1;
		d->y2 = y2;
	} else {
		d->y1 = min(d->y1, y1);
		d->y2 = max(d->y2, y2);
	}
}

/* Is the plane shown on @crtc? */
static bool vdxg_damage_shown(const struct drm_crtc *crtc,
			      const struct drm_plane_state *ps)
{
	return ps->crtc == crtc && ps->fb && ps->visible;
}

/* Does the plane draw the same pixels from the same fb bytes as before? */
static bool vdxg_damage_same_look(const struct drm_plane_state *old,
				  const struct drm_plane_state *new)
{
	return old->fb->format == new->fb->format &&
	       old->fb->modifier == new->fb->modifier &&
	       old->fb->pitches[0] == new->fb->pitches[0] &&
	       drm_rect_equals(&old->src, &new->src) &&
	       drm_rect_equals(&old->dst, &new->dst) &&
	       old->rotation == new->rotation &&
	       old->alpha == new->alpha &&
	       old->pixel_blend_mode == new->pixel_blend_mode &&
	       old->normalized_zpos == new->normalized_zpos &&
	       old->scaling_filter == new->scaling_filter;
}

/* Does fb row v show on frame row dst.y1 + v - src.y1, one for one? */
static bool vdxg_damage_row_for_row(const struct drm_plane_state *ps)
{
	unsigned int rot = ps->rotation & ~DRM_MODE_REFLECT_X;

	return rot == DRM_MODE_ROTATE_0 &&
	       drm_rect_height(&ps->src) == drm_rect_height(&ps->dst) << 16 &&
	       drm_rect_width(&ps->src) == drm_rect_width(&ps->dst) << 16;
}

/**
 * vdxg_damage_plane - add the rows one plane of a commit may change
 * @d: the damage of @crtc
 * @crtc: the CRTC
 * @old: the plane's state before the commit
 * @new: the plane's state after it (checked: src and dst clipped)
 * @clip: the plane's damage in framebuffer pixels, as
 *	drm_atomic_helper_damage_merged() gives it, or NULL when it gives none
 *
 * Rows are frame rows of @crtc, from the planes' clipped destination
 * rectangles.
 */
void vdxg_damage_plane(struct vdxg_damage *d, const struct drm_crtc *crtc,
		       const struct drm_plane_state *old,
		       const struct drm_plane_state *new,
		       const struct drm_rect *clip)
{
	bool was = vdxg_damage_shown(crtc, old);
	bool is = vdxg_damage_shown(crtc, new);
	int off;

	if (!was || !is || !vdxg_damage_same_look(old, new)) {
		if (was)
			vdxg_damage_add(d, old->dst.y1, old->dst.y2);
		if (is)
			vdxg_damage_add(d, new->dst.y1, new->dst.y2);
		return;
	}
	if (!clip)
		return;
	if (!vdxg_damage_row_for_row(new)) {
		vdxg_damage_add(d, new->dst.y1, new->dst.y2);
		return;
	}
	/* src is 16.16 and whole here: the rows are the same size */
	off = new->dst.y1 - (new->src.y1 >> 16);
	vdxg_damage_add(d, max(clip->y1 + off, new->dst.y1),
			min(clip->y2 + off, new->dst.y2));
}
