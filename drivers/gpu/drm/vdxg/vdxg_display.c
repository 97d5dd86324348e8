// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/string.h>
#include <linux/wait.h>

#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_damage_helper.h>
#include <drm/drm_drv.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_gem_framebuffer_helper.h>
#include <drm/drm_managed.h>
#include <drm/drm_modeset_helper_vtables.h>
#include <drm/drm_probe_helper.h>
#include <drm/drm_vblank.h>

#include "vdxg_bo.h"
#include "vdxg_damage.h"
#include "vdxg_display.h"
#include "vdxg_drv.h"
#include "vdxg_modes.h"

/**
 * DOC: Display
 *
 * The display engine has up to four pipes (the device's NUM_CRTCS), each a
 * CRTC with a primary, an overlay and a cursor plane, an encoder and a
 * connector with an EDID, plus one writeback connector that can capture
 * any pipe. The driver is atomic and built on DRM's helpers.
 *
 * A commit writes the planes' pending registers and then FLIP, which the
 * device latches at the next vblank and answers with FLIP_DONE; that
 * interrupt sends the commit's event, so nonblocking commits and page-flip
 * events follow the hardware. An async flip (DRM_MODE_PAGE_FLIP_ASYNC,
 * the primary plane's framebuffer only) writes ASYNC_FLIP instead, which
 * latches the primary plane at once, tearing, and its event goes with
 * ASYNC_DONE, carrying the last vblank's count and time. Vblank
 * interrupts come at the mode's refresh rate; timestamps come from the
 * scanline the device derives from time.
 * With a CRC source of "auto" the device computes a CRC-32 of every
 * composed frame, reported through DRM's CRC debugfs interface. A CRTC
 * goes off at the end of the frame it is scanning out.
 */

/* The longest frame of a mode the connector offers (24 Hz), and a margin. */
#define VDXG_FRAME_END_TIMEOUT_MS 100

static const char * const vdxg_crc_sources[] = { "auto" };
/* At most this many frames share one late CRC (DRM's queue holds 128) */
#define VDXG_CRC_FILL	16

static void vdxg_crtc_wr(struct vdxg_crtc *vc, u32 reg, u32 val)
{
	vdxg_wr(vc->vdxg, VDXG_CRTC_BASE(vc->pipe) + reg, val);
}

static u32 vdxg_crtc_rd(struct vdxg_crtc *vc, u32 reg)
{
	return vdxg_rd(vc->vdxg, VDXG_CRTC_BASE(vc->pipe) + reg);
}

/*
 * CTRL is shared by the modeset (ENABLE), the vblank core (VBLANK_IRQ,
 * under its own lock, in any context) and debugfs CRC (CRC): every change
 * is a read-modify-write under ctrl_lock. With UPDATE_CRC the CRC bit
 * follows vc->crc, read under the lock so that a racing CRC switch wins.
 */
static void vdxg_crtc_ctrl_rmw(struct vdxg_crtc *vc, u32 clear, u32 set,
			       bool update_crc)
{
	unsigned long flags;
	u32 ctrl;

	spin_lock_irqsave(&vc->ctrl_lock, flags);
	if (update_crc) {
		clear |= VDXG_CRTC_CTRL_CRC;
		if (READ_ONCE(vc->crc))
			set |= VDXG_CRTC_CTRL_CRC;
	}
	ctrl = vdxg_crtc_rd(vc, VDXG_CRTC_CTRL);
	vdxg_crtc_wr(vc, VDXG_CRTC_CTRL, (ctrl & ~clear) | set);
	spin_unlock_irqrestore(&vc->ctrl_lock, flags);
}

/* On or off, the vblank interrupt off (drm_crtc_vblank_on() asks again). */
static void vdxg_crtc_update_ctrl(struct vdxg_crtc *vc, bool enable)
{
	vdxg_crtc_ctrl_rmw(vc, VDXG_CRTC_CTRL_VBLANK_IRQ | VDXG_CRTC_CTRL_ENABLE,
			   enable ? VDXG_CRTC_CTRL_ENABLE : 0, true);
}

static int vdxg_enable_vblank(struct drm_crtc *crtc)
{
	vdxg_crtc_ctrl_rmw(to_vdxg_crtc(crtc), 0, VDXG_CRTC_CTRL_VBLANK_IRQ,
			   false);
	return 0;
}

static void vdxg_disable_vblank(struct drm_crtc *crtc)
{
	vdxg_crtc_ctrl_rmw(to_vdxg_crtc(crtc), VDXG_CRTC_CTRL_VBLANK_IRQ, 0,
			   false);
}

static bool vdxg_crtc_scanout_position(struct drm_crtc *crtc,
				       bool in_vblank_irq, int *vpos,
				       int *hpos, ktime_t *stime,
				       ktime_t *etime,
				       const struct drm_display_mode *mode)
{
	struct vdxg_crtc *vc = to_vdxg_crtc(crtc);
	int line;

	if (stime)
		*stime = ktime_get();
	line = vdxg_crtc_rd(vc, VDXG_CRTC_SCANLINE);
	if (etime)
		*etime = ktime_get();

	/*
	 * In vblank, count up towards the next frame's first line. Under
	 * VRR that line comes with the next flip, unknown yet: the vblank's
	 * own start is the timestamp then (lines since it, counted down).
	 */
	if (line >= mode->crtc_vdisplay)
		line -= READ_ONCE(vc->vrr) ? mode->crtc_vdisplay :
					     mode->crtc_vtotal;
	*vpos = line;
	*hpos = 0;
	return true;
}

/*
 * The helper, but quiet while a modeset has cleared the timing constants:
 * a commit racing with a nonblocking modeset asks for the next vblank
 * (fence deadlines) while the CRTC has no mode.
 */
static bool vdxg_get_vblank_timestamp(struct drm_crtc *crtc, int *max_error,
				      ktime_t *vblank_time,
				      bool in_vblank_irq)
{
	if (!READ_ONCE(drm_crtc_vblank_crtc(crtc)->hwmode.crtc_clock))
		return false;
	return drm_crtc_vblank_helper_get_vblank_timestamp(crtc, max_error,
							   vblank_time,
							   in_vblank_irq);
}

static int vdxg_verify_crc_source(struct drm_crtc *crtc, const char *source,
				  size_t *values_cnt)
{
	if (source && strcmp(source, "auto"))
		return -EINVAL;
	*values_cnt = 1;
	return 0;
}

static const char * const *vdxg_get_crc_sources(struct drm_crtc *crtc,
						size_t *count)
{
	*count = ARRAY_SIZE(vdxg_crc_sources);
	return vdxg_crc_sources;
}

static int vdxg_set_crc_source(struct drm_crtc *crtc, const char *source)
{
	struct vdxg_crtc *vc = to_vdxg_crtc(crtc);
	bool on = source && !strcmp(source, "auto");
	int ret = 0, idx;

	if (source && !on)
		return -EINVAL;
	if (on == vc->crc)
		return 0;
	/* CRCs are collected in the vblank interrupt. */
	if (on) {
		ret = drm_crtc_vblank_get(crtc);
		if (ret)
			return ret;
	}
	spin_lock_irq(&crtc->dev->event_lock);
	WRITE_ONCE(vc->crc, on);
	/*
	 * CRC and CRC_FRAME keep the last CRC from before a stop: a CRC is
	 * new when CRC_FRAME changes, and of a frame after this one.
	 */
	vc->crc_frame = vdxg_crtc_rd(vc, VDXG_CRTC_CRC_FRAME);
	vc->crc_last = vdxg_crtc_rd(vc, VDXG_CRTC_FRAME_COUNT);
	spin_unlock_irq(&crtc->dev->event_lock);
	if (drm_dev_enter(crtc->dev, &idx)) {
		vdxg_crtc_ctrl_rmw(vc, 0, 0, true);
		drm_dev_exit(idx);
	}
	if (!on)
		drm_crtc_vblank_put(crtc);
	return ret;
}

static const struct drm_crtc_funcs vdxg_crtc_funcs = {
	.reset = drm_atomic_helper_crtc_reset,
	.destroy = drm_crtc_cleanup,
	.set_config = drm_atomic_helper_set_config,
	.page_flip = drm_atomic_helper_page_flip,
	.atomic_duplicate_state = drm_atomic_helper_crtc_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_crtc_destroy_state,
	.enable_vblank = vdxg_enable_vblank,
	.disable_vblank = vdxg_disable_vblank,
	.get_vblank_timestamp = vdxg_get_vblank_timestamp,
	.set_crc_source = vdxg_set_crc_source,
	.verify_crc_source = vdxg_verify_crc_source,
	.get_crc_sources = vdxg_get_crc_sources,
};

static enum drm_mode_status
vdxg_crtc_mode_valid(struct drm_crtc *crtc, const struct drm_display_mode *mode)
{
	return vdxg_mode_status(mode);
}

/*
 * An async flip changes the primary plane's framebuffer and nothing else
 * (the core refuses other property changes): the pipe must be on and the
 * framebuffer of the same format, which ASYNC_FLIP latches at once.
 */
static int vdxg_crtc_async_check(struct drm_crtc *crtc,
				 struct drm_atomic_state *state,
				 struct drm_crtc_state *cs)
{
	struct drm_plane_state *old_ps, *new_ps;
	struct drm_plane *plane;
	int i;

	if (!cs->active || drm_atomic_crtc_needs_modeset(cs))
		return -EINVAL;
	for_each_oldnew_plane_in_state(state, plane, old_ps, new_ps, i) {
		if (plane->type != DRM_PLANE_TYPE_PRIMARY ||
		    new_ps->crtc != crtc)
			continue;
		if (!old_ps->fb || !new_ps->fb || !old_ps->visible ||
		    !new_ps->visible ||
		    old_ps->fb->format != new_ps->fb->format ||
		    old_ps->fb->modifier != new_ps->fb->modifier) {
			drm_dbg_atomic(crtc->dev,
				       "[CRTC:%d] async flip of another format or visibility\n",
				       crtc->base.id);
			return -EINVAL;
		}
	}
	return 0;
}

static int vdxg_crtc_atomic_check(struct drm_crtc *crtc,
				  struct drm_atomic_state *state)
{
	struct drm_crtc_state *cs = drm_atomic_get_new_crtc_state(state, crtc);
	int ret;

	ret = vdxg_color_check(crtc, cs);
	if (!ret && cs->async_flip)
		ret = vdxg_crtc_async_check(crtc, state, cs);
	return ret;
}

static void vdxg_crtc_set_mode(struct vdxg_crtc *vc,
			       const struct drm_display_mode *m)
{
	vdxg_crtc_wr(vc, VDXG_CRTC_HDISPLAY, m->crtc_hdisplay);
	vdxg_crtc_wr(vc, VDXG_CRTC_VDISPLAY, m->crtc_vdisplay);
	vdxg_crtc_wr(vc, VDXG_CRTC_HTOTAL, m->crtc_htotal);
	vdxg_crtc_wr(vc, VDXG_CRTC_VTOTAL, m->crtc_vtotal);
	vdxg_crtc_wr(vc, VDXG_CRTC_HSYNC_START, m->crtc_hsync_start);
	vdxg_crtc_wr(vc, VDXG_CRTC_HSYNC_END, m->crtc_hsync_end);
	vdxg_crtc_wr(vc, VDXG_CRTC_VSYNC_START, m->crtc_vsync_start);
	vdxg_crtc_wr(vc, VDXG_CRTC_VSYNC_END, m->crtc_vsync_end);
	vdxg_crtc_wr(vc, VDXG_CRTC_CLOCK_KHZ, m->crtc_clock);
}

/*
 * Variable refresh: the longest frame the monitor takes (its EDID's lowest
 * rate; the enable latches it), and CTRL.VRR as VRR_ENABLED asks.
 */
static void vdxg_crtc_set_vrr(struct vdxg_crtc *vc,
			      const struct drm_crtc_state *cs, bool modeset)
{
	const struct drm_monitor_range_info *range =
		&vc->connector.display_info.monitor_range;

	if (modeset)
		vdxg_crtc_wr(vc, VDXG_CRTC_VRR_VTOTAL_MAX,
			     vdxg_vrr_vtotal_max(&cs->adjusted_mode,
						 READ_ONCE(range->min_vfreq)));
	vdxg_crtc_ctrl_rmw(vc, VDXG_CRTC_CTRL_VRR,
			   cs->vrr_enabled ? VDXG_CRTC_CTRL_VRR : 0, false);
	WRITE_ONCE(vc->vrr, cs->vrr_enabled);
}

static void vdxg_crtc_atomic_enable(struct drm_crtc *crtc,
				    struct drm_atomic_state *state)
{
	struct vdxg_crtc *vc = to_vdxg_crtc(crtc);
	int idx;

	if (!drm_dev_enter(crtc->dev, &idx))
		return;
	vdxg_crtc_set_mode(vc, &crtc->state->adjusted_mode);
	vdxg_crtc_set_vrr(vc, crtc->state, true);
	/* The enable latches it: the first frame is already through it. */
	vdxg_color_commit(vc, crtc->state);
	/* The enable sets FRAME_COUNT and CRC_FRAME to 0 */
	spin_lock_irq(&crtc->dev->event_lock);
	vc->crc_frame = 0;
	vc->crc_last = 0;
	spin_unlock_irq(&crtc->dev->event_lock);
	vdxg_crtc_update_ctrl(vc, true);
	drm_dev_exit(idx);
	drm_crtc_vblank_on(crtc);
}

/*
 * Let the frame being scanned out end before the pipe goes off, as a
 * display pipe does: a disabling commit (and its event) then completes at
 * a vblank like every other commit, not before the caller can look. This
 * is drm_crtc_wait_one_vblank() without its WARN on a late vblank: the
 * longest frame (24 Hz) leaves little margin to its 100 ms timeout when
 * the GPU is emulated, and a late frame here only delays the disable.
 */
static void vdxg_crtc_wait_frame_end(struct drm_crtc *crtc)
{
	wait_queue_head_t *queue = drm_crtc_vblank_waitqueue(crtc);
	u64 frame;

	if (drm_crtc_vblank_get(crtc))
		return;
	frame = drm_crtc_vblank_count(crtc);
	wait_event_timeout(*queue, drm_crtc_vblank_count(crtc) != frame,
			   msecs_to_jiffies(VDXG_FRAME_END_TIMEOUT_MS));
	drm_crtc_vblank_put(crtc);
}

static void vdxg_crtc_atomic_disable(struct drm_crtc *crtc,
				     struct drm_atomic_state *state)
{
	struct vdxg_crtc *vc = to_vdxg_crtc(crtc);
	int idx;

	if (drm_dev_enter(crtc->dev, &idx)) {
		vdxg_crtc_wait_frame_end(crtc);
		drm_dev_exit(idx);
	}
	drm_crtc_vblank_off(crtc);
	if (drm_dev_enter(crtc->dev, &idx)) {
		unsigned int i;

		/* Off with the pipe: a later enable latches nothing stale. */
		for (i = 0; i < VDXG_NUM_PLANES; i++)
			vdxg_wr(vc->vdxg, VDXG_PLANE_BASE(vc->pipe, i) +
				VDXG_PLANE_CTRL, 0);
		vdxg_crtc_update_ctrl(vc, false);
		drm_dev_exit(idx);
	}

	spin_lock_irq(&crtc->dev->event_lock);
	if (crtc->state->event && !crtc->state->active) {
		drm_crtc_send_vblank_event(crtc, crtc->state->event);
		crtc->state->event = NULL;
	}
	spin_unlock_irq(&crtc->dev->event_lock);
}

/*
 * FLIP, with FLIP_DAMAGE and the rows the commit changes when they are not
 * all of them (vdxg_damage.c).
 */
static u32 vdxg_crtc_flip_damage(struct vdxg_crtc *vc,
				 struct drm_atomic_state *state)
{
	struct drm_crtc_state *cs = vc->base.state;
	struct drm_plane_state *old, *new;
	struct drm_plane *plane;
	struct vdxg_damage d;
	struct drm_rect clip;
	int i;

	if (drm_atomic_crtc_needs_modeset(cs) || cs->color_mgmt_changed)
		return 1;
	vdxg_damage_init(&d);
	for_each_oldnew_plane_in_state(state, plane, old, new, i)
		vdxg_damage_plane(&d, &vc->base, old, new,
				  drm_atomic_helper_damage_merged(old, new, &clip) ?
				  &clip : NULL);
	if (d.y1 >= d.y2)
		vdxg_damage_init(&d);
	vdxg_crtc_wr(vc, VDXG_CRTC_DAMAGE,
		     clamp(d.y2, 0, U16_MAX) << VDXG_CRTC_DAMAGE_Y1_SHIFT |
		     clamp(d.y1, 0, U16_MAX));
	return 1 | VDXG_CRTC_FLIP_DAMAGE;
}

static void vdxg_crtc_atomic_flush(struct drm_crtc *crtc,
				   struct drm_atomic_state *state)
{
	struct vdxg_crtc *vc = to_vdxg_crtc(crtc);
	struct drm_crtc_state *cs = crtc->state;
	struct drm_pending_vblank_event *event = cs->event;
	bool active = cs->active;
	bool present;
	int idx;

	/* Unplugged: no FLIP_DONE will come, so complete the commit now. */
	present = drm_dev_enter(crtc->dev, &idx);
	if (present && active && cs->color_mgmt_changed &&
	    !drm_atomic_crtc_needs_modeset(cs))
		vdxg_color_commit(vc, cs);
	if (present && active && !drm_atomic_crtc_needs_modeset(cs) &&
	    cs->vrr_enabled !=
	    drm_atomic_get_old_crtc_state(state, crtc)->vrr_enabled)
		vdxg_crtc_set_vrr(vc, cs, false);
	/*
	 * The event and the FLIP it waits for are set together under the
	 * event lock, so that the FLIP_DONE of an earlier flip never sees
	 * this event without this FLIP pending (vdxg_crtc_flip_done()).
	 */
	spin_lock_irq(&crtc->dev->event_lock);
	if (event) {
		crtc->state->event = NULL;
		if (present && active && !vc->event &&
		    !drm_crtc_vblank_get(crtc)) {
			vc->event = event;
			vc->event_async = cs->async_flip;
		} else {
			drm_crtc_send_vblank_event(crtc, event);
		}
	}
	if (present && active && cs->async_flip)
		vdxg_crtc_wr(vc, VDXG_CRTC_ASYNC_FLIP, 1);
	else if (present && active)
		vdxg_crtc_wr(vc, VDXG_CRTC_FLIP,
			     vdxg_crtc_flip_damage(vc, state));
	if (present && active)
		vdxg_writeback_arm(vc);
	spin_unlock_irq(&crtc->dev->event_lock);
	if (present)
		drm_dev_exit(idx);
}

static const struct drm_crtc_helper_funcs vdxg_crtc_helper_funcs = {
	.mode_valid = vdxg_crtc_mode_valid,
	.atomic_check = vdxg_crtc_atomic_check,
	.atomic_enable = vdxg_crtc_atomic_enable,
	.atomic_disable = vdxg_crtc_atomic_disable,
	.atomic_flush = vdxg_crtc_atomic_flush,
	.get_scanout_position = vdxg_crtc_scanout_position,
};

static int vdxg_crtc_init(struct vdxg_device *vdxg, unsigned int pipe)
{
	struct vdxg_crtc *vc = &vdxg->display.crtcs[pipe];
	struct drm_plane *primary, *cursor;
	unsigned int i;
	int ret;

	vc->vdxg = vdxg;
	vc->pipe = pipe;
	spin_lock_init(&vc->fence_lock);
	spin_lock_init(&vc->ctrl_lock);
	vc->fence_context = dma_fence_context_alloc(1);
	for (i = 0; i < VDXG_NUM_PLANES; i++) {
		ret = vdxg_plane_init(vdxg, &vc->planes[i], pipe, i);
		if (ret)
			return ret;
	}
	primary = &vc->planes[VDXG_PLANE_IDX_PRIMARY].base;
	cursor = &vc->planes[VDXG_PLANE_IDX_CURSOR].base;
	ret = drm_crtc_init_with_planes(&vdxg->drm, &vc->base, primary, cursor,
					&vdxg_crtc_funcs, NULL);
	if (ret)
		return ret;
	drm_crtc_helper_add(&vc->base, &vdxg_crtc_helper_funcs);
	ret = vdxg_color_init(vc);
	if (ret)
		return ret;
	return vdxg_connector_init(vdxg, vc);
}

static bool vdxg_crtc_flip_pending(struct vdxg_crtc *vc)
{
	return vdxg_crtc_rd(vc, VDXG_CRTC_STATUS) &
	       VDXG_CRTC_STATUS_FLIP_PENDING;
}

/*
 * How an interrupt may complete the last commit: FLIP_DONE completes a
 * flip's when no FLIP is pending (again), ASYNC_DONE an async flip's, and
 * unplug any.
 */
enum vdxg_event_by {
	VDXG_EVENT_BY_FLIP_DONE,
	VDXG_EVENT_BY_ASYNC_DONE,
	VDXG_EVENT_BY_UNPLUG,
};

static bool vdxg_crtc_event_done(struct vdxg_crtc *vc, enum vdxg_event_by by)
{
	switch (by) {
	case VDXG_EVENT_BY_FLIP_DONE:
		return !vc->event_async && !vdxg_crtc_flip_pending(vc);
	case VDXG_EVENT_BY_ASYNC_DONE:
		return vc->event_async;
	default:
		return true;
	}
}

/* Send the event of the last commit if it waits and @by completes it. */
static void vdxg_crtc_send_event(struct vdxg_crtc *vc, enum vdxg_event_by by)
{
	struct drm_device *drm = &vc->vdxg->drm;
	unsigned long flags;

	spin_lock_irqsave(&drm->event_lock, flags);
	if (vc->event && vdxg_crtc_event_done(vc, by)) {
		drm_crtc_send_vblank_event(&vc->base, vc->event);
		drm_crtc_vblank_put(&vc->base);
		vc->event = NULL;
	}
	spin_unlock_irqrestore(&drm->event_lock, flags);
}

/*
 * FLIP_DONE: the commit's planes are on screen; send its event. When a
 * FLIP is pending again, the one that latched was an earlier commit's
 * (one without an event, such as a cursor update) and the event waits
 * for its own FLIP_DONE.
 */
static void vdxg_crtc_flip_done(struct vdxg_crtc *vc)
{
	vdxg_crtc_send_event(vc, VDXG_EVENT_BY_FLIP_DONE);
}

/*
 * A CRC of a large frame comes late: the device composes such a frame in
 * slices and stores CRC and CRC_FRAME when it is done, after the vblank
 * it belongs to (docs/hardware.md), and the vblank interrupt that sees it
 * may be a later one. It is reported with the vblank count of its own
 * frame: the count drm_crtc_handle_vblank() has just reached, less the
 * device frames since CRC_FRAME. A vblank that came while it was composed
 * moves CRC_FRAME on; CRC_FIRST says from which frame on nothing was
 * latched, so the frames between the last one reported and CRC_FRAME
 * that show the same latch get the same CRC: none is skipped.
 */
static void vdxg_crtc_vblank(struct vdxg_crtc *vc)
{
	struct drm_device *drm = &vc->vdxg->drm;
	u32 frame, first = 0, last = 0, now, crc, f;
	bool report;

	drm_crtc_handle_vblank(&vc->base);
	if (!READ_ONCE(vc->crc))
		return;

	spin_lock(&drm->event_lock);
	frame = vdxg_crtc_rd(vc, VDXG_CRTC_CRC_FRAME);
	/* CRC_FRAME 0: no CRC since the CRTC was enabled */
	report = vc->crc && frame && frame != vc->crc_frame;
	if (report) {
		vc->crc_frame = frame;
		last = vc->crc_last;
		report = (s32)(frame - last) > 0;
	}
	if (report)
		vc->crc_last = frame;
	spin_unlock(&drm->event_lock);
	if (!report)
		return;
	crc = vdxg_crtc_rd(vc, VDXG_CRTC_CRC);
	first = vdxg_crtc_rd(vc, VDXG_CRTC_CRC_FIRST);
	now = vdxg_crtc_rd(vc, VDXG_CRTC_FRAME_COUNT);
	/* Frames after the last reported one, at most VDXG_CRC_FILL of them */
	if ((s32)(first - last) <= 0)
		first = last + 1;
	if ((s32)(frame - first) < 0 || frame - first >= VDXG_CRC_FILL)
		first = frame;
	for (f = first; f != frame + 1; f++)
		drm_crtc_add_crc_entry(&vc->base, true,
				       (u32)drm_crtc_vblank_count(&vc->base) -
				       (now - f), &crc);
}

/**
 * vdxg_display_irq - handle the display engine's interrupt sources
 * @vdxg: the device
 * @pending: VDXG_INT_* bits raised
 */
void vdxg_display_irq(struct vdxg_device *vdxg, u32 pending)
{
	struct vdxg_display *disp = &vdxg->display;
	unsigned int i;

	for (i = 0; i < disp->num_crtcs; i++) {
		if (pending & VDXG_INT_VBLANK(i))
			vdxg_crtc_vblank(&disp->crtcs[i]);
		if (pending & VDXG_INT_FLIP_DONE(i))
			vdxg_crtc_flip_done(&disp->crtcs[i]);
		if (pending & VDXG_INT_ASYNC_DONE(i))
			vdxg_crtc_send_event(&disp->crtcs[i],
					     VDXG_EVENT_BY_ASYNC_DONE);
	}
	if (pending & VDXG_INT_WRITEBACK)
		vdxg_writeback_irq(vdxg);
	if (pending & VDXG_INT_HOTPLUG)
		schedule_work(&disp->hotplug_work);
}

/*
 * Planes go after the CRTCs are on, so that their FLIP latches at a real
 * vblank; the commit is done when FLIP_DONE has sent its events, which
 * follows the device rather than a fixed vblank timeout.
 */
static void vdxg_atomic_commit_tail(struct drm_atomic_state *state)
{
	struct drm_device *drm = state->dev;

	drm_atomic_helper_commit_modeset_disables(drm, state);
	drm_atomic_helper_commit_modeset_enables(drm, state);
	drm_atomic_helper_commit_planes(drm, state,
					DRM_PLANE_COMMIT_ACTIVE_ONLY);
	drm_atomic_helper_fake_vblank(state);
	drm_atomic_helper_commit_hw_done(state);
	drm_atomic_helper_wait_for_flip_done(drm, state);
	drm_atomic_helper_cleanup_planes(drm, state);
}

static const struct drm_mode_config_helper_funcs vdxg_mode_config_helpers = {
	.atomic_commit_tail = vdxg_atomic_commit_tail,
};

/*
 * A framebuffer's objects are scanned out: their users sync implicitly,
 * EXEC's jobs too (see vdxg_vm_exec_lock()). An object private to a VM
 * shares the VM's reservation, where EXEC's jobs leave no write fence for
 * KMS to wait for: it is not scanned out.
 */
static struct drm_framebuffer *
vdxg_fb_create(struct drm_device *drm, struct drm_file *file,
	       const struct drm_mode_fb_cmd2 *cmd)
{
	struct drm_framebuffer *fb = drm_gem_fb_create(drm, file, cmd);
	unsigned int i;

	if (IS_ERR(fb))
		return fb;
	for (i = 0; i < fb->format->num_planes; i++) {
		if (vdxg_bo_vm_private(fb->obj[i])) {
			drm_framebuffer_put(fb);
			return ERR_PTR(-EINVAL);
		}
	}
	for (i = 0; i < fb->format->num_planes; i++)
		vdxg_bo_set_scanout(fb->obj[i]);
	return fb;
}

static const struct drm_mode_config_funcs vdxg_mode_config_funcs = {
	.fb_create = vdxg_fb_create,
	.atomic_check = drm_atomic_helper_check,
	.atomic_commit = drm_atomic_helper_commit,
};

/**
 * vdxg_display_init - register the display pipes with KMS
 * @vdxg: the device
 *
 * Return: 0 or a negative errno.
 */
int vdxg_display_init(struct vdxg_device *vdxg)
{
	struct vdxg_display *disp = &vdxg->display;
	struct drm_device *drm = &vdxg->drm;
	unsigned int i;
	u32 sources;
	int ret;

	if (!(vdxg->caps & VDXG_CAP_DISPLAY) || !vdxg->num_crtcs)
		return 0;
	disp->num_crtcs = min_t(u32, vdxg->num_crtcs, VDXG_MAX_CRTCS);
	INIT_WORK(&disp->hotplug_work, vdxg_hotplug_work);

	ret = drmm_mode_config_init(drm);
	if (ret)
		return ret;
	drm->mode_config.min_width = 1;
	drm->mode_config.min_height = 1;
	drm->mode_config.max_width = VDXG_PLANE_MAX_DIM;
	drm->mode_config.max_height = VDXG_PLANE_MAX_DIM;
	drm->mode_config.cursor_width = VDXG_CURSOR_MAX_DIM;
	drm->mode_config.cursor_height = VDXG_CURSOR_MAX_DIM;
	drm->mode_config.preferred_depth = 24;
	/* The planes program normalized_zpos: the helpers must compute it. */
	drm->mode_config.normalize_zpos = true;
	drm->mode_config.async_page_flip = true;
	drm->mode_config.funcs = &vdxg_mode_config_funcs;
	drm->mode_config.helper_private = &vdxg_mode_config_helpers;

	for (i = 0; i < disp->num_crtcs; i++) {
		ret = vdxg_crtc_init(vdxg, i);
		if (ret)
			return ret;
	}
	if (vdxg->caps & VDXG_CAP_WRITEBACK) {
		ret = vdxg_writeback_init(vdxg);
		if (ret)
			return ret;
	}
	vdxg_connector_set_clones(vdxg);

	ret = drm_vblank_init(drm, disp->num_crtcs);
	if (ret)
		return ret;
	drm_mode_config_reset(drm);

	sources = VDXG_INT_HOTPLUG | VDXG_INT_WRITEBACK;
	for (i = 0; i < disp->num_crtcs; i++)
		sources |= VDXG_INT_VBLANK(i) | VDXG_INT_FLIP_DONE(i) |
			   VDXG_INT_ASYNC_DONE(i);
	vdxg_irq_enable(vdxg, sources);
	drm_kms_helper_poll_init(drm);
	return 0;
}

/**
 * vdxg_display_fini - stop the display at remove
 * @vdxg: the device
 */
void vdxg_display_fini(struct vdxg_device *vdxg)
{
	unsigned int i;

	if (!vdxg->display.num_crtcs)
		return;

	drm_kms_helper_poll_fini(&vdxg->drm);
	/* A HOTPLUG interrupt until the vectors go must not queue it again. */
	disable_work_sync(&vdxg->display.hotplug_work);
	/* FLIP_DONE will not come for flips pending at unplug. */
	for (i = 0; i < vdxg->display.num_crtcs; i++)
		vdxg_crtc_send_event(&vdxg->display.crtcs[i],
				     VDXG_EVENT_BY_UNPLUG);
	drm_atomic_helper_shutdown(&vdxg->drm);
}
