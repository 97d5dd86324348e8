// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_drv.h>
#include <drm/drm_edid.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_probe_helper.h>
#include <drm/drm_simple_kms_helper.h>
#include <drm/drm_writeback.h>

#include "vdxg_display.h"
#include "vdxg_drv.h"
#include "vdxg_modes.h"

/**
 * DOC: Connectors
 *
 * Each pipe drives one connector. Its modes come from the EDID the device
 * exposes in registers (read with drm_edid_read_custom()), its status from
 * the connector status register, and a HOTPLUG interrupt reports changes:
 * each connector that changed is probed again, its EDID re-read, and a
 * hotplug event names it. A link the device reports as failed (LINK_BAD)
 * sets the connector's "link-status" property to BAD, which tells the
 * compositor to set the mode again; the enable of that modeset trains
 * the link. A monitor whose EDID gives a refresh range is "vrr_capable";
 * the CRTC's VRR_ENABLED then lets its vblank stretch down to the range's
 * lowest rate until the next flip.
 *
 * The writeback connector captures the composed output of any pipe into a
 * framebuffer: one capture per commit, completed by the WRITEBACK
 * interrupt, which signals the job's out-fence. Its encoder is a clone of
 * every pipe's, so it can share a pipe that drives a monitor.
 */

static struct vdxg_crtc *conn_to_crtc(struct drm_connector *connector)
{
	return container_of(connector, struct vdxg_crtc, connector);
}

static int vdxg_edid_block(void *context, u8 *buf, unsigned int block,
			   size_t len)
{
	struct vdxg_crtc *vc = context;
	u32 base = VDXG_CRTC_BASE(vc->pipe) + VDXG_CRTC_EDID;
	unsigned int i;

	if (block || len > VDXG_EDID_SIZE)
		return -EINVAL;
	for (i = 0; i < len; i += 4) {
		u32 v = vdxg_rd(vc->vdxg, base + i);

		memcpy(buf + i, &v, min_t(size_t, 4, len - i));
	}
	return 0;
}

/*
 * Variable refresh: a monitor whose EDID has a refresh range at least
 * 10 Hz wide is VRR capable, with that range (see vdxg_modes.c).
 */
static void vdxg_connector_update_vrr(struct drm_connector *connector,
				      const struct drm_edid *edid)
{
	struct drm_monitor_range_info *range =
		&connector->display_info.monitor_range;
	bool capable;
	u32 lo, hi;

	capable = edid && vdxg_edid_vrr_range((const u8 *)drm_edid_raw(edid),
					      EDID_LENGTH, &lo, &hi) &&
		  hi - lo >= VDXG_VRR_MIN_SPAN_HZ;
	if (capable) {
		range->min_vfreq = lo;
		range->max_vfreq = hi;
	}
	drm_connector_set_vrr_capable_property(connector, capable);
}

/* Read the EDID of @vc's monitor, if @connected, into its connector. */
static void vdxg_connector_update_edid(struct vdxg_crtc *vc, bool connected)
{
	struct drm_connector *connector = &vc->connector;
	const struct drm_edid *edid = NULL;
	int idx;

	if (connected && drm_dev_enter(connector->dev, &idx)) {
		edid = drm_edid_read_custom(connector, vdxg_edid_block, vc);
		drm_dev_exit(idx);
	}
	drm_edid_connector_update(connector, edid);
	vdxg_connector_update_vrr(connector, edid);
	drm_edid_free(edid);
}

static int vdxg_connector_get_modes(struct drm_connector *connector)
{
	vdxg_connector_update_edid(conn_to_crtc(connector), true);
	return drm_edid_connector_add_modes(connector);
}

static int vdxg_connector_detect(struct drm_connector *connector,
				 struct drm_modeset_acquire_ctx *ctx,
				 bool force)
{
	struct vdxg_crtc *vc = conn_to_crtc(connector);
	u32 status = 0;
	int idx;

	if (drm_dev_enter(connector->dev, &idx)) {
		status = vdxg_rd(vc->vdxg, VDXG_CRTC_BASE(vc->pipe) +
				 VDXG_CRTC_CONN_STATUS);
		drm_dev_exit(idx);
	}
	return status & VDXG_CONN_CONNECTED ? connector_status_connected :
					      connector_status_disconnected;
}

static const struct drm_connector_helper_funcs vdxg_connector_helper_funcs = {
	.get_modes = vdxg_connector_get_modes,
	.detect_ctx = vdxg_connector_detect,
};

static const struct drm_connector_funcs vdxg_connector_funcs = {
	.fill_modes = drm_helper_probe_single_connector_modes,
	.destroy = drm_connector_cleanup,
	.reset = drm_atomic_helper_connector_reset,
	.atomic_duplicate_state = drm_atomic_helper_connector_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_connector_destroy_state,
};

/**
 * vdxg_connector_init - create a pipe's encoder and connector
 * @vdxg: the device
 * @vc: the pipe
 *
 * Return: 0 or a negative errno.
 */
int vdxg_connector_init(struct vdxg_device *vdxg, struct vdxg_crtc *vc)
{
	struct drm_connector *connector = &vc->connector;
	int ret;

	ret = drm_simple_encoder_init(&vdxg->drm, &vc->encoder,
				      DRM_MODE_ENCODER_VIRTUAL);
	if (ret)
		return ret;
	vc->encoder.possible_crtcs = drm_crtc_mask(&vc->base);

	ret = drm_connector_init(&vdxg->drm, connector, &vdxg_connector_funcs,
				 DRM_MODE_CONNECTOR_VIRTUAL);
	if (ret)
		return ret;
	drm_connector_helper_add(connector, &vdxg_connector_helper_funcs);
	/* A Virtual connector has no EDID property unless asked for. */
	drm_connector_attach_edid_property(connector);
	drm_connector_attach_vrr_capable_property(connector);
	connector->polled = DRM_CONNECTOR_POLL_HPD;
	return drm_connector_attach_encoder(connector, &vc->encoder);
}

/**
 * vdxg_connector_set_clones - let the writeback encoder share any pipe
 * @vdxg: the device, its encoders all created
 *
 * possible_clones must be symmetric: each pipe's encoder is a clone of the
 * writeback encoder and of itself, the writeback encoder of all of them.
 */
void vdxg_connector_set_clones(struct vdxg_device *vdxg)
{
	struct vdxg_display *disp = &vdxg->display;
	u32 wb = 0, all = 0;
	unsigned int i;

	if (disp->wb.base.dev)
		wb = drm_encoder_mask(&disp->wb.encoder);
	for (i = 0; i < disp->num_crtcs; i++)
		all |= drm_encoder_mask(&disp->crtcs[i].encoder);
	for (i = 0; i < disp->num_crtcs; i++)
		disp->crtcs[i].encoder.possible_clones =
			drm_encoder_mask(&disp->crtcs[i].encoder) | wb;
	if (wb)
		disp->wb.encoder.possible_clones = all | wb;
}

/*
 * Probe connector @vc again after a change the device reported, @status
 * its CONN_STATUS, and tell userspace about it.
 */
static void vdxg_connector_changed(struct vdxg_crtc *vc, u32 status)
{
	struct drm_connector *connector = &vc->connector;

	if (status & VDXG_CONN_LINK_BAD) {
		drm_dbg_kms(connector->dev, "[CONNECTOR:%d:%s] link failed\n",
			    connector->base.id, connector->name);
		drm_connector_set_link_status_property(connector,
						       DRM_MODE_LINK_STATUS_BAD);
	}
	/* The EDID property and display info of the monitor now there */
	mutex_lock(&connector->dev->mode_config.mutex);
	vdxg_connector_update_edid(vc, status & VDXG_CONN_CONNECTED);
	mutex_unlock(&connector->dev->mode_config.mutex);
	/* An event for this connector, whether or not its status changed */
	if (!drm_connector_helper_hpd_irq_event(connector))
		drm_kms_helper_connector_hotplug_event(connector);
}

/**
 * vdxg_hotplug_work - report connector changes
 * @work: &vdxg_display.hotplug_work
 */
void vdxg_hotplug_work(struct work_struct *work)
{
	struct vdxg_display *disp = container_of(work, struct vdxg_display,
						 hotplug_work);
	struct vdxg_device *vdxg = container_of(disp, struct vdxg_device,
						display);
	u32 status[VDXG_MAX_CRTCS] = {};
	unsigned int i;
	int idx;

	if (!drm_dev_enter(&vdxg->drm, &idx))
		return;
	for (i = 0; i < disp->num_crtcs; i++) {
		u32 reg = VDXG_CRTC_BASE(i) + VDXG_CRTC_CONN_STATUS;

		status[i] = vdxg_rd(vdxg, reg);
		if (status[i] & VDXG_CONN_CHANGED)
			vdxg_wr(vdxg, reg, VDXG_CONN_CHANGED);
	}
	drm_dev_exit(idx);
	for (i = 0; i < disp->num_crtcs; i++)
		if (status[i] & VDXG_CONN_CHANGED)
			vdxg_connector_changed(&disp->crtcs[i], status[i]);
}

/* Writeback. */

static const u32 vdxg_wb_formats[] = {
	DRM_FORMAT_XRGB8888,
	DRM_FORMAT_ARGB8888,
};

static int vdxg_wb_get_modes(struct drm_connector *connector)
{
	return drm_add_modes_noedid(connector, VDXG_MODE_MAX_DISPLAY,
				    VDXG_MODE_MAX_DISPLAY);
}

static int vdxg_wb_atomic_check(struct drm_connector *connector,
				struct drm_atomic_state *state)
{
	struct drm_connector_state *cs =
		drm_atomic_get_new_connector_state(state, connector);
	struct drm_crtc_state *crtc_state;
	struct drm_framebuffer *fb;

	if (!cs->writeback_job || !cs->writeback_job->fb)
		return 0;
	fb = cs->writeback_job->fb;
	crtc_state = drm_atomic_get_new_crtc_state(state, cs->crtc);
	if (!crtc_state)
		return -EINVAL;
	if (fb->width != crtc_state->mode.hdisplay ||
	    fb->height != crtc_state->mode.vdisplay)
		return -EINVAL;
	return drm_atomic_helper_check_wb_connector_state(connector, state);
}

static int vdxg_wb_prepare_job(struct drm_writeback_connector *wb,
			       struct drm_writeback_job *job)
{
	return job->fb ? vdxg_fb_pin(job->fb) : 0;
}

static void vdxg_wb_cleanup_job(struct drm_writeback_connector *wb,
				struct drm_writeback_job *job)
{
	if (job->fb)
		vdxg_fb_unpin(job->fb);
}

static void vdxg_wb_atomic_commit(struct drm_connector *connector,
				  struct drm_atomic_state *state)
{
	struct drm_connector_state *cs =
		drm_atomic_get_new_connector_state(state, connector);
	struct vdxg_device *vdxg = to_vdxg(connector->dev);
	struct vdxg_display *disp = &vdxg->display;
	struct drm_framebuffer *fb;
	unsigned int pipe;
	u64 addr;
	int idx;

	if (!cs->writeback_job || !cs->writeback_job->fb || !cs->crtc)
		return;
	fb = cs->writeback_job->fb;
	pipe = drm_crtc_index(cs->crtc);
	addr = vdxg_fb_gpu_addr(fb);

	drm_writeback_queue_job(&disp->wb, cs);
	if (!drm_dev_enter(connector->dev, &idx)) {
		/* Unplugged: no capture will end it; release the job now. */
		drm_writeback_signal_completion(&disp->wb, -ENODEV);
		return;
	}
	vdxg_wr(vdxg, VDXG_REG_WB_ADDR_LO, lower_32_bits(addr));
	vdxg_wr(vdxg, VDXG_REG_WB_ADDR_HI, upper_32_bits(addr));
	vdxg_wr(vdxg, VDXG_REG_WB_FORMAT, fb->format->format);
	vdxg_wr(vdxg, VDXG_REG_WB_PITCH, fb->pitches[0]);
	/*
	 * Armed by the pipe's atomic_flush, after its FLIP: the capture is
	 * then of this commit's planes, also when this commit enables the
	 * pipe (the writebacks are committed before the planes).
	 */
	disp->crtcs[pipe].wb_arm = true;
	drm_dev_exit(idx);
}

/**
 * vdxg_writeback_arm - arm the capture a commit asked of a pipe
 * @vc: the pipe, its FLIP written
 */
void vdxg_writeback_arm(struct vdxg_crtc *vc)
{
	if (!vc->wb_arm)
		return;
	vc->wb_arm = false;
	vdxg_wr(vc->vdxg, VDXG_REG_WB_CTRL, VDXG_WB_CTRL_ENABLE |
		(vc->pipe << VDXG_WB_CTRL_CRTC_SHIFT));
}

/**
 * vdxg_writeback_irq - a capture ended
 * @vdxg: the device
 */
void vdxg_writeback_irq(struct vdxg_device *vdxg)
{
	u32 status = vdxg_rd(vdxg, VDXG_REG_WB_STATUS);

	if (!(status & VDXG_WB_STATUS_DONE))
		return;
	drm_writeback_signal_completion(&vdxg->display.wb,
					status & VDXG_WB_STATUS_ERROR ? -EIO :
									0);
}

static const struct drm_connector_helper_funcs vdxg_wb_helper_funcs = {
	.get_modes = vdxg_wb_get_modes,
	.atomic_check = vdxg_wb_atomic_check,
	.prepare_writeback_job = vdxg_wb_prepare_job,
	.cleanup_writeback_job = vdxg_wb_cleanup_job,
	.atomic_commit = vdxg_wb_atomic_commit,
};

/**
 * vdxg_writeback_init - create the writeback connector
 * @vdxg: the device
 *
 * Return: 0 or a negative errno.
 */
int vdxg_writeback_init(struct vdxg_device *vdxg)
{
	struct vdxg_display *disp = &vdxg->display;
	u32 crtcs = GENMASK(disp->num_crtcs - 1, 0);
	int ret;

	drm_connector_helper_add(&disp->wb.base, &vdxg_wb_helper_funcs);
	ret = drm_writeback_connector_init(&vdxg->drm, &disp->wb,
					   &vdxg_connector_funcs, NULL,
					   vdxg_wb_formats,
					   ARRAY_SIZE(vdxg_wb_formats), crtcs);
	return ret;
}
