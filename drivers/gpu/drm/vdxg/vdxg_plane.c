// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_blend.h>
#include <drm/drm_damage_helper.h>
#include <drm/drm_drv.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_gem_atomic_helper.h>
#include <drm/drm_gem_framebuffer_helper.h>

#include "vdxg_bo.h"
#include "vdxg_display.h"
#include "vdxg_drv.h"

/**
 * DOC: Planes
 *
 * Each pipe has a primary and an overlay plane (XRGB8888, ARGB8888,
 * XBGR8888, RGB565, with plane alpha, pixel blend mode, zpos, rotation
 * 0/90/180/270 with reflection, and scaling up to 8x up and 4x down, by a
 * bilinear filter or the nearest pixel) and an ARGB8888 cursor of up to
 * 256x256.
 *
 * An unscaled plane is programmed clipped to the CRTC, as the atomic
 * helpers clip it. A scaled one is programmed whole, its source rectangle
 * truncated to whole pixels, and the device clips it: the helpers' clipped
 * source has fractional coordinates the device does not take. Plane
 * registers are double buffered by the device: atomic_update writes the
 * pending copy, and the CRTC's flush latches all of them at the next
 * vblank. Legacy cursor moves take the asynchronous path, which latches
 * the cursor at once and never waits for a vblank.
 *
 * Framebuffers are pinned in a segment the display engine reaches (VRAM or
 * the aperture) from prepare_fb to cleanup_fb, and their implicit fences
 * are waited for by the commit.
 */

static const u32 vdxg_plane_formats[] = {
	DRM_FORMAT_XRGB8888,
	DRM_FORMAT_ARGB8888,
	DRM_FORMAT_XBGR8888,
	DRM_FORMAT_RGB565,
};

static const u32 vdxg_cursor_formats[] = {
	DRM_FORMAT_ARGB8888,
};

static struct ttm_buffer_object *vdxg_fb_tbo(struct drm_framebuffer *fb)
{
	return container_of(fb->obj[0], struct ttm_buffer_object, base);
}

/**
 * vdxg_fb_pin - keep a framebuffer's object where the display reaches it
 * @fb: the framebuffer
 *
 * Return: 0, -EINVAL for an object the display cannot reach (also one
 * pinned elsewhere, by a PRIME export), or the error of moving it.
 */
int vdxg_fb_pin(struct drm_framebuffer *fb)
{
	struct ttm_operation_ctx ctx = { .interruptible = true };
	struct ttm_buffer_object *tbo = vdxg_fb_tbo(fb);
	struct vdxg_bo *bo = to_vdxg_bo(tbo);
	int ret;

	if (!bo->gpu_placement.num_placement)
		return -EINVAL;
	ret = ttm_bo_reserve(tbo, true, false, NULL);
	if (ret)
		return ret;
	/*
	 * Validate even a pinned object: TTM cannot move it, but checks that
	 * it is in a segment the display reaches. An export pins an object
	 * without the aperture in system memory, at no GPU address.
	 */
	ret = ttm_bo_validate(tbo, &bo->gpu_placement, &ctx);
	if (!ret)
		ttm_bo_pin(tbo);
	ttm_bo_unreserve(tbo);
	return ret;
}

/**
 * vdxg_fb_unpin - undo vdxg_fb_pin()
 * @fb: the framebuffer
 */
void vdxg_fb_unpin(struct drm_framebuffer *fb)
{
	struct ttm_buffer_object *tbo = vdxg_fb_tbo(fb);

	ttm_bo_reserve(tbo, false, false, NULL);
	ttm_bo_unpin(tbo);
	ttm_bo_unreserve(tbo);
}

/**
 * vdxg_fb_gpu_addr - GPU address of a pinned framebuffer's first byte
 * @fb: the framebuffer
 *
 * Return: the address of plane 0's data.
 */
u64 vdxg_fb_gpu_addr(struct drm_framebuffer *fb)
{
	struct vdxg_device *vdxg = to_vdxg(fb->dev);

	return vdxg_ttm_gpu_addr(vdxg, vdxg_fb_tbo(fb)->resource) +
	       fb->offsets[0];
}

static int vdxg_plane_prepare_fb(struct drm_plane *plane,
				 struct drm_plane_state *state)
{
	int ret;

	if (!state->fb)
		return 0;
	ret = vdxg_fb_pin(state->fb);
	if (ret)
		return ret;
	ret = drm_gem_plane_helper_prepare_fb(plane, state);
	if (ret)
		vdxg_fb_unpin(state->fb);
	return ret;
}

static void vdxg_plane_cleanup_fb(struct drm_plane *plane,
				  struct drm_plane_state *state)
{
	if (state->fb)
		vdxg_fb_unpin(state->fb);
}

/* The source rectangle in whole pixels, turned as the plane shows it */
static void vdxg_plane_src_size(const struct drm_plane_state *ps, u32 *rw,
				u32 *rh)
{
	u32 w = ps->src_w >> 16, h = ps->src_h >> 16;
	bool turned = ps->rotation & (DRM_MODE_ROTATE_90 | DRM_MODE_ROTATE_270);

	*rw = turned ? h : w;
	*rh = turned ? w : h;
}

/* Does the plane scale (then it is programmed unclipped)? */
static bool vdxg_plane_scaled(const struct drm_plane_state *ps)
{
	u32 rw, rh;

	vdxg_plane_src_size(ps, &rw, &rh);
	return ps->crtc_w != rw || ps->crtc_h != rh;
}

static bool vdxg_scale_ok(u32 r, u32 d)
{
	return d && d <= VDXG_PLANE_MAX_DIM &&
	       (u64)d <= (u64)r * VDXG_PLANE_MAX_UPSCALE &&
	       (u64)d * VDXG_PLANE_MAX_DOWNSCALE >= r;
}

/*
 * The device's own limits for a scaled plane, in whole source pixels, and
 * a position that DST_POS holds.
 */
static int vdxg_plane_check_scaled(const struct drm_plane_state *ps)
{
	u32 rw, rh;

	vdxg_plane_src_size(ps, &rw, &rh);
	if (!vdxg_scale_ok(rw, ps->crtc_w) || !vdxg_scale_ok(rh, ps->crtc_h))
		return -ERANGE;
	if (ps->crtc_x < S16_MIN || ps->crtc_x > S16_MAX ||
	    ps->crtc_y < S16_MIN || ps->crtc_y > S16_MAX)
		return -EINVAL;
	return 0;
}

static int vdxg_plane_atomic_check(struct drm_plane *plane,
				   struct drm_atomic_state *state)
{
	struct drm_plane_state *ps = drm_atomic_get_new_plane_state(state,
								    plane);
	struct vdxg_plane *vp = to_vdxg_plane(plane);
	bool cursor = vp->index == VDXG_PLANE_IDX_CURSOR;
	struct drm_crtc_state *cs;
	int ret;

	if (!ps->crtc)
		return 0;
	cs = drm_atomic_get_crtc_state(state, ps->crtc);
	if (IS_ERR(cs))
		return PTR_ERR(cs);
	drm_atomic_helper_check_plane_damage(state, ps);

	ret = drm_atomic_helper_check_plane_state(ps, cs,
						  cursor ? DRM_PLANE_NO_SCALING :
						  DRM_PLANE_NO_SCALING /
						  VDXG_PLANE_MAX_UPSCALE,
						  cursor ? DRM_PLANE_NO_SCALING :
						  DRM_PLANE_NO_SCALING *
						  VDXG_PLANE_MAX_DOWNSCALE,
						  true, true);
	if (ret || !ps->visible)
		return ret;
	if (!cursor && vdxg_plane_scaled(ps)) {
		ret = vdxg_plane_check_scaled(ps);
		if (ret)
			return ret;
	}

	if (vp->index == VDXG_PLANE_IDX_CURSOR) {
		if (ps->crtc_w > VDXG_CURSOR_MAX_DIM ||
		    ps->crtc_h > VDXG_CURSOR_MAX_DIM)
			return -EINVAL;
	} else if (ps->src_w >> 16 > VDXG_PLANE_MAX_DIM ||
		   ps->src_h >> 16 > VDXG_PLANE_MAX_DIM) {
		return -EINVAL;
	}
	if (ps->fb->pitches[0] > VDXG_PLANE_MAX_PITCH)
		return -EINVAL;
	return 0;
}

static u32 vdxg_plane_ctrl(const struct drm_plane_state *ps)
{
	u32 ctrl = VDXG_PLANE_CTRL_ENABLE;
	u32 blend = VDXG_BLEND_PREMULTI;

	if (ps->pixel_blend_mode == DRM_MODE_BLEND_PIXEL_NONE)
		blend = VDXG_BLEND_NONE;
	else if (ps->pixel_blend_mode == DRM_MODE_BLEND_COVERAGE)
		blend = VDXG_BLEND_COVERAGE;
	ctrl |= blend << VDXG_PLANE_CTRL_BLEND_SHIFT;

	/* DRM's 270 is the device's 90 and 180 together */
	if (ps->rotation & (DRM_MODE_ROTATE_180 | DRM_MODE_ROTATE_270))
		ctrl |= VDXG_PLANE_CTRL_ROT_180;
	if (ps->rotation & (DRM_MODE_ROTATE_90 | DRM_MODE_ROTATE_270))
		ctrl |= VDXG_PLANE_CTRL_ROT_90;
	if (ps->scaling_filter != DRM_SCALING_FILTER_NEAREST_NEIGHBOR)
		ctrl |= VDXG_PLANE_CTRL_BILINEAR;
	if (ps->rotation & DRM_MODE_REFLECT_X)
		ctrl |= VDXG_PLANE_CTRL_REFLECT_X;
	if (ps->rotation & DRM_MODE_REFLECT_Y)
		ctrl |= VDXG_PLANE_CTRL_REFLECT_Y;
	return ctrl;
}

/* Write a plane's state to the device's pending (or, for the cursor's
 * fast path, about to be latched) registers.
 */
static void vdxg_plane_write(struct vdxg_plane *vp,
			     const struct drm_plane_state *ps)
{
	struct vdxg_device *vdxg = vp->vdxg;
	u32 base = VDXG_PLANE_BASE(vp->pipe, vp->index);
	const struct drm_framebuffer *fb = ps->fb;
	bool cursor = vp->index == VDXG_PLANE_IDX_CURSOR;
	struct drm_rect src = ps->src, dst = ps->dst;
	u32 dst_size = 0;
	u64 addr;

	if (!ps->visible || !fb) {
		vdxg_wr(vdxg, base + VDXG_PLANE_CTRL, 0);
		return;
	}

	if (!cursor && vdxg_plane_scaled(ps)) {
		/* Whole: the device clips. */
		src.x1 = ps->src_x & ~0xffff;
		src.y1 = ps->src_y & ~0xffff;
		src.x2 = src.x1 + (ps->src_w & ~0xffff);
		src.y2 = src.y1 + (ps->src_h & ~0xffff);
		drm_rect_init(&dst, ps->crtc_x, ps->crtc_y, ps->crtc_w,
			      ps->crtc_h);
		dst_size = VDXG_PLANE_SIZE_WH(ps->crtc_w, ps->crtc_h);
	}
	addr = vdxg_fb_gpu_addr(ps->fb) + (u64)(src.y1 >> 16) * fb->pitches[0] +
	       (src.x1 >> 16) * fb->format->cpp[0];

	vdxg_wr(vdxg, base + VDXG_PLANE_ADDR_LO, lower_32_bits(addr));
	vdxg_wr(vdxg, base + VDXG_PLANE_ADDR_HI, upper_32_bits(addr));
	vdxg_wr(vdxg, base + VDXG_PLANE_FORMAT, fb->format->format);
	vdxg_wr(vdxg, base + VDXG_PLANE_PITCH, fb->pitches[0]);
	vdxg_wr(vdxg, base + VDXG_PLANE_SRC_SIZE,
		VDXG_PLANE_SIZE_WH(drm_rect_width(&src) >> 16,
				   drm_rect_height(&src) >> 16));
	vdxg_wr(vdxg, base + VDXG_PLANE_DST_POS,
		VDXG_PLANE_POS_XY(dst.x1, dst.y1));
	if (!cursor)
		vdxg_wr(vdxg, base + VDXG_PLANE_DST_SIZE, dst_size);
	vdxg_wr(vdxg, base + VDXG_PLANE_ALPHA, ps->alpha);
	vdxg_wr(vdxg, base + VDXG_PLANE_ZPOS, ps->normalized_zpos);
	vdxg_wr(vdxg, base + VDXG_PLANE_CTRL, vdxg_plane_ctrl(ps));
}

static void vdxg_plane_atomic_update(struct drm_plane *plane,
				     struct drm_atomic_state *state)
{
	struct drm_plane_state *ps = drm_atomic_get_new_plane_state(state,
								    plane);
	int idx;

	if (!drm_dev_enter(plane->dev, &idx))
		return;
	vdxg_plane_write(to_vdxg_plane(plane), ps);
	drm_dev_exit(idx);
}

static void vdxg_plane_atomic_disable(struct drm_plane *plane,
				      struct drm_atomic_state *state)
{
	struct vdxg_plane *vp = to_vdxg_plane(plane);
	int idx;

	if (!drm_dev_enter(plane->dev, &idx))
		return;
	vdxg_wr(vp->vdxg, VDXG_PLANE_BASE(vp->pipe, vp->index) +
		VDXG_PLANE_CTRL, 0);
	drm_dev_exit(idx);
}

/* The cursor moves without waiting for a vblank (legacy cursor ioctls). */
static int vdxg_cursor_async_check(struct drm_plane *plane,
				   struct drm_atomic_state *state)
{
	struct drm_plane_state *ps = drm_atomic_get_new_plane_state(state,
								    plane);
	struct drm_crtc_state *cs;

	if (!plane->state->crtc || ps->crtc != plane->state->crtc ||
	    !ps->fb || !plane->state->fb)
		return -EINVAL;
	cs = drm_atomic_get_existing_crtc_state(state, ps->crtc);
	if (!cs || !cs->active)
		return -EINVAL;
	return vdxg_plane_atomic_check(plane, state);
}

static void vdxg_cursor_async_update(struct drm_plane *plane,
				     struct drm_atomic_state *state)
{
	struct drm_plane_state *ps = drm_atomic_get_new_plane_state(state,
								    plane);
	struct vdxg_plane *vp = to_vdxg_plane(plane);
	int idx;

	/*
	 * Update the current state in place; the new state takes the old fb,
	 * so that its cleanup unpins that one.
	 */
	swap(plane->state->fb, ps->fb);
	plane->state->src = ps->src;
	plane->state->dst = ps->dst;
	plane->state->src_x = ps->src_x;
	plane->state->src_y = ps->src_y;
	plane->state->src_w = ps->src_w;
	plane->state->src_h = ps->src_h;
	plane->state->crtc_x = ps->crtc_x;
	plane->state->crtc_y = ps->crtc_y;
	plane->state->crtc_w = ps->crtc_w;
	plane->state->crtc_h = ps->crtc_h;
	plane->state->visible = ps->visible;

	if (!drm_dev_enter(plane->dev, &idx))
		return;
	/*
	 * A FLIP an atomic commit armed latches every plane's pending
	 * registers at the vblank, the cursor's too, and may do so between
	 * two of these writes: a new size with the old pitch fails the
	 * device's checks (a display fault). The cursor is off while its
	 * registers change, so that such a latch shows it off for a frame.
	 */
	vdxg_wr(vp->vdxg, VDXG_PLANE_BASE(vp->pipe, vp->index) +
		VDXG_PLANE_CTRL, 0);
	vdxg_plane_write(vp, plane->state);
	vdxg_wr(vp->vdxg, VDXG_CRTC_BASE(vp->pipe) + VDXG_CRTC_CURSOR_UPDATE, 1);
	drm_dev_exit(idx);
}

static const struct drm_plane_helper_funcs vdxg_plane_helper_funcs = {
	.prepare_fb = vdxg_plane_prepare_fb,
	.cleanup_fb = vdxg_plane_cleanup_fb,
	.atomic_check = vdxg_plane_atomic_check,
	.atomic_update = vdxg_plane_atomic_update,
	.atomic_disable = vdxg_plane_atomic_disable,
};

static const struct drm_plane_helper_funcs vdxg_cursor_helper_funcs = {
	.prepare_fb = vdxg_plane_prepare_fb,
	.cleanup_fb = vdxg_plane_cleanup_fb,
	.atomic_check = vdxg_plane_atomic_check,
	.atomic_update = vdxg_plane_atomic_update,
	.atomic_disable = vdxg_plane_atomic_disable,
	.atomic_async_check = vdxg_cursor_async_check,
	.atomic_async_update = vdxg_cursor_async_update,
};

static const struct drm_plane_funcs vdxg_plane_funcs = {
	.update_plane = drm_atomic_helper_update_plane,
	.disable_plane = drm_atomic_helper_disable_plane,
	.destroy = drm_plane_cleanup,
	.reset = drm_atomic_helper_plane_reset,
	.atomic_duplicate_state = drm_atomic_helper_plane_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_plane_destroy_state,
};

#define VDXG_BLEND_MODES	(BIT(DRM_MODE_BLEND_PIXEL_NONE) | \
				 BIT(DRM_MODE_BLEND_PREMULTI) | \
				 BIT(DRM_MODE_BLEND_COVERAGE))
/* "Default" is bilinear */
#define VDXG_FILTERS		(BIT(DRM_SCALING_FILTER_DEFAULT) | \
				 BIT(DRM_SCALING_FILTER_NEAREST_NEIGHBOR))
#define VDXG_ROTATIONS		(DRM_MODE_ROTATE_MASK | DRM_MODE_REFLECT_X | \
				 DRM_MODE_REFLECT_Y)

/* Any cursor up to 256x256 works; compositors are offered these sizes. */
static const struct drm_plane_size_hint vdxg_cursor_size_hints[] = {
	{ .width = 64, .height = 64 },
	{ .width = 128, .height = 128 },
	{ .width = 256, .height = 256 },
};

static int vdxg_plane_props(struct vdxg_plane *vp)
{
	struct drm_plane *plane = &vp->base;
	int ret;

	drm_plane_enable_fb_damage_clips(plane);
	if (vp->index == VDXG_PLANE_IDX_CURSOR) {
		const struct drm_plane_size_hint *hints = vdxg_cursor_size_hints;

		ret = drm_plane_create_zpos_immutable_property(plane,
							       VDXG_ZPOS_MAX);
		if (!ret)
			ret = drm_plane_add_size_hints_property(plane, hints,
								ARRAY_SIZE(vdxg_cursor_size_hints));
		return ret;
	}

	ret = drm_plane_create_alpha_property(plane);
	if (!ret)
		ret = drm_plane_create_blend_mode_property(plane,
							   VDXG_BLEND_MODES);
	if (!ret)
		ret = drm_plane_create_zpos_property(plane, vp->index, 0,
						     VDXG_ZPOS_MAX - 1);
	if (!ret)
		ret = drm_plane_create_rotation_property(plane,
							 DRM_MODE_ROTATE_0,
							 VDXG_ROTATIONS);
	if (!ret)
		ret = drm_plane_create_scaling_filter_property(plane,
							       VDXG_FILTERS);
	return ret;
}

/**
 * vdxg_plane_init - create one plane of a pipe
 * @vdxg: the device
 * @vp: the plane
 * @pipe: the pipe
 * @index: VDXG_PLANE_IDX_*
 *
 * Return: 0 or a negative errno.
 */
int vdxg_plane_init(struct vdxg_device *vdxg, struct vdxg_plane *vp,
		    unsigned int pipe, unsigned int index)
{
	static const enum drm_plane_type types[] = {
		[VDXG_PLANE_IDX_PRIMARY] = DRM_PLANE_TYPE_PRIMARY,
		[VDXG_PLANE_IDX_OVERLAY] = DRM_PLANE_TYPE_OVERLAY,
		[VDXG_PLANE_IDX_CURSOR] = DRM_PLANE_TYPE_CURSOR,
	};
	bool cursor = index == VDXG_PLANE_IDX_CURSOR;
	int ret;

	vp->vdxg = vdxg;
	vp->pipe = pipe;
	vp->index = index;
	ret = drm_universal_plane_init(&vdxg->drm, &vp->base, BIT(pipe),
				       &vdxg_plane_funcs,
				       cursor ? vdxg_cursor_formats :
						vdxg_plane_formats,
				       cursor ? ARRAY_SIZE(vdxg_cursor_formats) :
						ARRAY_SIZE(vdxg_plane_formats),
				       NULL, types[index], NULL);
	if (ret)
		return ret;
	drm_plane_helper_add(&vp->base, cursor ? &vdxg_cursor_helper_funcs :
						 &vdxg_plane_helper_funcs);
	return vdxg_plane_props(vp);
}
