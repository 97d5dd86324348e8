/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */
#ifndef _VDXG_DISPLAY_H_
#define _VDXG_DISPLAY_H_

#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <drm/drm_connector.h>
#include <drm/drm_crtc.h>
#include <drm/drm_encoder.h>
#include <drm/drm_plane.h>
#include <drm/drm_writeback.h>

#include "vdxg_hw.h"

struct vdxg_device;

/**
 * struct vdxg_plane - one plane of a pipe
 * @base: the DRM plane
 * @vdxg: the device
 * @pipe: the pipe (CRTC index) it belongs to
 * @index: VDXG_PLANE_IDX_*
 */
struct vdxg_plane {
	struct drm_plane base;
	struct vdxg_device *vdxg;
	unsigned int pipe;
	unsigned int index;
};

/**
 * struct vdxg_crtc - one display pipe: CRTC, planes, encoder, connector
 * @base: the DRM CRTC
 * @vdxg: the device
 * @pipe: its index
 * @planes: primary, overlay and cursor
 * @encoder: the pipe's encoder
 * @connector: the pipe's connector
 * @event: the page-flip event waiting for FLIP_DONE (or for ASYNC_DONE,
 *	with @event_async), under drm.event_lock
 * @event_async: @event is an async flip's
 * @wb_arm: the commit has a writeback job for this pipe, armed after FLIP
 * @crc: CRC generation is on
 * @vrr: VRR_ENABLED is on (vblank timestamps from its start)
 * @crc_frame: CRC_FRAME when last looked at: a new value is a new CRC
 * @crc_last: the device frame of the last CRC reported, or the frame CRCs
 *	were turned on at: CRCs of frames up to it are not reported
 * @ctrl_lock: serialises read-modify-writes of the CRTC's CTRL register
 * @fence_lock: the lock of PRESENT flip fences
 * @fence_context: their context
 * @fence_seqno: their last seqno, under the CRTC's modeset lock
 */
struct vdxg_crtc {
	struct drm_crtc base;
	struct vdxg_device *vdxg;
	unsigned int pipe;
	struct vdxg_plane planes[VDXG_NUM_PLANES];
	struct drm_encoder encoder;
	struct drm_connector connector;
	struct drm_pending_vblank_event *event;
	bool event_async;
	bool wb_arm;
	bool crc;
	bool vrr;
	u32 crc_frame;
	u32 crc_last;
	spinlock_t ctrl_lock; /* CTRL read-modify-writes */
	spinlock_t fence_lock; /* of PRESENT flip fences */
	u64 fence_context;
	u64 fence_seqno;
};

/**
 * struct vdxg_display - the display engine
 * @num_crtcs: pipes in use
 * @crtcs: the pipes
 * @wb: the writeback connector
 * @hotplug_work: reports connector changes outside the interrupt
 */
struct vdxg_display {
	unsigned int num_crtcs;
	struct vdxg_crtc crtcs[VDXG_MAX_CRTCS];
	struct drm_writeback_connector wb;
	struct work_struct hotplug_work;
};

static inline struct vdxg_crtc *to_vdxg_crtc(struct drm_crtc *crtc)
{
	return container_of(crtc, struct vdxg_crtc, base);
}

static inline struct vdxg_plane *to_vdxg_plane(struct drm_plane *plane)
{
	return container_of(plane, struct vdxg_plane, base);
}

int vdxg_display_init(struct vdxg_device *vdxg);
void vdxg_display_fini(struct vdxg_device *vdxg);
void vdxg_display_irq(struct vdxg_device *vdxg, u32 pending);

/* vdxg_plane.c */
int vdxg_plane_init(struct vdxg_device *vdxg, struct vdxg_plane *vp,
		    unsigned int pipe, unsigned int index);
int vdxg_fb_pin(struct drm_framebuffer *fb);
void vdxg_fb_unpin(struct drm_framebuffer *fb);
u64 vdxg_fb_gpu_addr(struct drm_framebuffer *fb);

/* vdxg_present.c */
int vdxg_present_ioctl(struct drm_device *drm, void *data,
		       struct drm_file *file);

/* vdxg_color.c */
int vdxg_color_init(struct vdxg_crtc *vc);
int vdxg_color_check(struct drm_crtc *crtc, struct drm_crtc_state *cs);
void vdxg_color_commit(struct vdxg_crtc *vc, const struct drm_crtc_state *cs);

/* vdxg_connector.c */
int vdxg_connector_init(struct vdxg_device *vdxg, struct vdxg_crtc *vc);
void vdxg_connector_set_clones(struct vdxg_device *vdxg);
void vdxg_hotplug_work(struct work_struct *work);
int vdxg_writeback_init(struct vdxg_device *vdxg);
void vdxg_writeback_irq(struct vdxg_device *vdxg);
void vdxg_writeback_arm(struct vdxg_crtc *vc);

#endif
