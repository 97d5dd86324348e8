// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_atomic_helper.h>
#include <drm/drm_auth.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_gem.h>
#include <drm/drm_modeset_lock.h>
#include <drm/drm_syncobj.h>
#include <drm/drm_vblank.h>
#include <drm/vdxg_drm.h>

#include "vdxg_display.h"
#include "vdxg_drv.h"
#include "vdxg_render.h"

/**
 * DOC: Present
 *
 * DRM_IOCTL_VDXG_PRESENT is DxgkDdiPresent in two modes.
 *
 * A blit copies a source surface to a destination surface, each a KMS
 * framebuffer or a described GEM object, through clip rectangles. The
 * kernel builds the DMA buffer itself (two SET_SURFACEs and a COPY_RECT
 * per clip, with an allocation list and patch locations) and hands it to
 * the same validation, residency, patching and scheduling as SUBMIT, on
 * the caller's context; the job's fence can go to a syncobj.
 *
 * A flip shows a framebuffer on a CRTC's primary plane at the next vblank
 * as an atomic page flip, so it is one more atomic commit and consistent
 * with the atomic state. Its fence, signalled with the flip event when the
 * device reports FLIP_DONE, can go to a syncobj; the event itself is
 * optional. Flips need DRM master.
 */

/* A surface resolved from its description: an object reference. */
struct vdxg_psurf {
	struct drm_gem_object *obj;
	u32 format;
	u32 width;
	u32 height;
	u32 pitch;
	u32 offset;
};

static int vdxg_present_format(u32 fourcc, u32 *format)
{
	switch (fourcc) {
	case DRM_FORMAT_XRGB8888:
		*format = VDXG_FMT_XRGB8888;
		return 0;
	case DRM_FORMAT_ARGB8888:
		*format = VDXG_FMT_ARGB8888;
		return 0;
	case DRM_FORMAT_RGB565:
		*format = VDXG_FMT_RGB565;
		return 0;
	}
	return -EINVAL;
}

/* Only DRM master may use a framebuffer it does not own. */
static bool vdxg_fb_allowed(struct drm_file *file, struct drm_framebuffer *fb)
{
	struct drm_framebuffer *f;
	bool owned = false;

	if (drm_is_current_master(file))
		return true;
	mutex_lock(&file->fbs_lock);
	list_for_each_entry(f, &file->fbs, filp_head)
		owned |= f == fb;
	mutex_unlock(&file->fbs_lock);
	return owned;
}

static int vdxg_present_fb(struct drm_file *file, u32 fb_id,
			   struct vdxg_psurf *ps)
{
	struct drm_framebuffer *fb;
	int ret;

	fb = drm_framebuffer_lookup(file->minor->dev, file, fb_id);
	if (!fb)
		return -ENOENT;
	ret = vdxg_fb_allowed(file, fb) ? 0 : -EACCES;
	if (!ret)
		ret = vdxg_present_format(fb->format->format, &ps->format);
	if (!ret) {
		ps->obj = fb->obj[0];
		drm_gem_object_get(ps->obj);
		ps->width = fb->width;
		ps->height = fb->height;
		ps->pitch = fb->pitches[0];
		ps->offset = fb->offsets[0];
	}
	drm_framebuffer_put(fb);
	return ret;
}

static int vdxg_present_surface(struct drm_file *file,
				const struct drm_vdxg_present_surface *in,
				struct vdxg_psurf *ps)
{
	int ret;

	if (in->pad)
		return -EINVAL;
	if (in->fb_id) {
		if (in->handle || in->format || in->width || in->height ||
		    in->pitch || in->offset)
			return -EINVAL;
		/* A render-only device (a VF) has no framebuffers. */
		if (!drm_core_check_feature(file->minor->dev, DRIVER_MODESET))
			return -EOPNOTSUPP;
		return vdxg_present_fb(file, in->fb_id, ps);
	}

	ret = vdxg_present_format(in->format, &ps->format);
	if (ret)
		return ret;
	if (!in->width || !in->height || in->width > VDXG_SURF_MAX_DIM ||
	    in->height > VDXG_SURF_MAX_DIM)
		return -EINVAL;
	ps->obj = drm_gem_object_lookup(file, in->handle);
	if (!ps->obj)
		return -ENOENT;
	ps->width = in->width;
	ps->height = in->height;
	ps->pitch = in->pitch;
	ps->offset = in->offset;
	return 0;
}

static void vdxg_emit_surface(u32 *cs, u32 slot, const struct vdxg_psurf *ps)
{
	cs[0] = VDXG_PG_HDR(VDXG_RD_SET_SURFACE, VDXG_RD_SET_SURFACE_LEN);
	cs[VDXG_RD_SURF_DW_SLOT] = slot;
	cs[VDXG_RD_SURF_DW_ADDR] = 0;
	cs[VDXG_RD_SURF_DW_ADDR + 1] = 0;
	cs[VDXG_RD_SURF_DW_FORMAT] = ps->format;
	cs[VDXG_RD_SURF_DW_WIDTH] = ps->width;
	cs[VDXG_RD_SURF_DW_HEIGHT] = ps->height;
	cs[VDXG_RD_SURF_DW_PITCH] = ps->pitch;
}

/* Clip @r to the destination and to the source's image; false if empty. */
static bool vdxg_present_clip(struct drm_vdxg_rect *r,
			      const struct drm_vdxg_present *args,
			      const struct vdxg_psurf *src,
			      const struct vdxg_psurf *dst)
{
	s64 x1 = max3((s64)r->x1, 0ll, (s64)args->dst_x);
	s64 y1 = max3((s64)r->y1, 0ll, (s64)args->dst_y);
	s64 x2 = min3((s64)r->x2, (s64)dst->width,
		      (s64)args->dst_x + src->width);
	s64 y2 = min3((s64)r->y2, (s64)dst->height,
		      (s64)args->dst_y + src->height);

	if (x1 >= x2 || y1 >= y2)
		return false;
	r->x1 = x1;
	r->y1 = y1;
	r->x2 = x2;
	r->y2 = y2;
	return true;
}

static int vdxg_present_clips(const struct drm_vdxg_present *args,
			      struct drm_vdxg_rect *clips)
{
	u32 i;

	if (!args->num_clips && args->clips)
		return -EINVAL;
	if (!args->num_clips) {
		clips[0] = (struct drm_vdxg_rect){ S32_MIN, S32_MIN,
						   S32_MAX, S32_MAX };
		return 1;
	}
	if (args->num_clips > DRM_VDXG_MAX_CLIPS)
		return -E2BIG;
	if (copy_from_user(clips, u64_to_user_ptr(args->clips),
			   args->num_clips * sizeof(*clips)))
		return -EFAULT;
	for (i = 0; i < args->num_clips; i++)
		if (clips[i].x1 >= clips[i].x2 || clips[i].y1 >= clips[i].y2)
			return -EINVAL;
	return args->num_clips;
}

static void vdxg_present_build(struct vdxg_kbuf *kb, u32 *cs,
			       const struct drm_vdxg_present *args,
			       const struct vdxg_psurf *src,
			       const struct vdxg_psurf *dst,
			       struct drm_vdxg_rect *clips, int nclips)
{
	bool same = src->obj == dst->obj;
	u32 n = 0;
	int i;

	kb->objs[0] = dst->obj;
	kb->flags[0] = DRM_VDXG_ALLOC_WRITE;
	kb->nobjs = 1;
	if (!same) {
		kb->objs[1] = src->obj;
		kb->flags[1] = 0;
		kb->nobjs = 2;
	}

	vdxg_emit_surface(cs, VDXG_SLOT_SRC, src);
	kb->patches[0] = (struct drm_vdxg_patch_location){
		.allocation_index = same ? 0 : 1,
		.slot_id = VDXG_SLOT_SRC,
		.allocation_offset = src->offset,
		.patch_offset = VDXG_RD_SURF_DW_ADDR * 4,
	};
	n += VDXG_RD_SET_SURFACE_LEN;
	vdxg_emit_surface(cs + n, VDXG_SLOT_DST, dst);
	kb->patches[1] = (struct drm_vdxg_patch_location){
		.allocation_index = 0,
		.slot_id = VDXG_SLOT_DST,
		.allocation_offset = dst->offset,
		.patch_offset = (n + VDXG_RD_SURF_DW_ADDR) * 4,
	};
	kb->npatches = 2;
	n += VDXG_RD_SET_SURFACE_LEN;

	for (i = 0; i < nclips; i++) {
		struct drm_vdxg_rect r = clips[i];

		if (!vdxg_present_clip(&r, args, src, dst))
			continue;
		cs[n++] = VDXG_PG_HDR(VDXG_RD_COPY_RECT, VDXG_RD_COPY_RECT_LEN);
		cs[n++] = VDXG_RD_XY(r.x1 - args->dst_x, r.y1 - args->dst_y);
		cs[n++] = VDXG_RD_XY(r.x1, r.y1);
		cs[n++] = VDXG_RD_XY(r.x2 - r.x1, r.y2 - r.y1);
	}
	kb->cmds = cs;
	kb->ndw = n;
}

static int vdxg_present_blit(struct drm_file *file,
			     struct drm_vdxg_present *args)
{
	struct vdxg_psurf src = {}, dst = {};
	struct vdxg_kbuf kb = {
		.ctx_id = args->ctx_id,
		.out_syncobj = args->out_syncobj,
	};
	struct drm_vdxg_rect *clips;
	u32 *cs = NULL;
	int nclips, ret;

	if (args->crtc_id || args->flags || args->user_data)
		return -EINVAL;

	clips = kcalloc(DRM_VDXG_MAX_CLIPS, sizeof(*clips), GFP_KERNEL);
	if (!clips)
		return -ENOMEM;
	nclips = vdxg_present_clips(args, clips);
	ret = nclips < 0 ? nclips : 0;
	if (!ret)
		ret = vdxg_present_surface(file, &args->src, &src);
	if (!ret)
		ret = vdxg_present_surface(file, &args->dst, &dst);
	if (!ret) {
		cs = kcalloc(2 * VDXG_RD_SET_SURFACE_LEN +
			     nclips * VDXG_RD_COPY_RECT_LEN, sizeof(*cs),
			     GFP_KERNEL);
		ret = cs ? 0 : -ENOMEM;
	}
	if (!ret) {
		vdxg_present_build(&kb, cs, args, &src, &dst, clips, nclips);
		ret = vdxg_submit_kernel(file, &kb);
	}

	kfree(cs);
	if (dst.obj)
		drm_gem_object_put(dst.obj);
	if (src.obj)
		drm_gem_object_put(src.obj);
	kfree(clips);
	return ret;
}

static const char *vdxg_flip_fence_driver(struct dma_fence *fence)
{
	return DRIVER_NAME;
}

static const char *vdxg_flip_fence_timeline(struct dma_fence *fence)
{
	return "vdxg-flip";
}

static const struct dma_fence_ops vdxg_flip_fence_ops = {
	.get_driver_name = vdxg_flip_fence_driver,
	.get_timeline_name = vdxg_flip_fence_timeline,
};

static struct dma_fence *vdxg_flip_fence(struct vdxg_crtc *vc)
{
	struct dma_fence *fence = kzalloc(sizeof(*fence), GFP_KERNEL);

	if (fence)
		dma_fence_init(fence, &vdxg_flip_fence_ops, &vc->fence_lock,
			       vc->fence_context, 0);	/* seqno: at commit */
	return fence;
}

static int vdxg_flip_args(const struct drm_vdxg_present *args)
{
	static const struct drm_vdxg_present_surface zero;
	const struct drm_vdxg_present_surface *s = &args->src;

	if (args->flags & ~DRM_VDXG_PRESENT_FLAGS || args->ctx_id ||
	    args->num_clips || args->clips || args->dst_x || args->dst_y ||
	    memcmp(&args->dst, &zero, sizeof(zero)))
		return -EINVAL;
	if (!s->fb_id || s->handle || s->format || s->width || s->height ||
	    s->pitch || s->offset || s->pad)
		return -EINVAL;
	return 0;
}

static int vdxg_flip_commit(struct drm_device *drm, struct drm_crtc *crtc,
			    struct drm_framebuffer *fb,
			    struct drm_pending_vblank_event *e)
{
	struct drm_modeset_acquire_ctx ctx;
	int ret;

	DRM_MODESET_LOCK_ALL_BEGIN(drm, ctx, DRM_MODESET_ACQUIRE_INTERRUPTIBLE,
				   ret);
	/*
	 * Flips on a CRTC commit, and so signal, in the order they take its
	 * lock: number the fence here, so that its seqno follows that order.
	 */
	if (e->base.fence)
		e->base.fence->seqno = ++to_vdxg_crtc(crtc)->fence_seqno;
	ret = drm_atomic_helper_page_flip(crtc, fb, e, 0, &ctx);
	DRM_MODESET_LOCK_ALL_END(drm, ctx, ret);
	return ret;
}

static int vdxg_present_flip(struct drm_device *drm, struct drm_file *file,
			     struct drm_vdxg_present *args)
{
	struct drm_pending_vblank_event *e;
	struct drm_syncobj *syncobj = NULL;
	struct drm_framebuffer *fb = NULL;
	struct dma_fence *fence = NULL;
	struct drm_crtc *crtc;
	int ret;

	ret = vdxg_flip_args(args);
	if (ret)
		return ret;
	if (!drm_core_check_feature(drm, DRIVER_MODESET))
		return -EOPNOTSUPP;
	if (!drm_is_current_master(file))
		return -EACCES;
	crtc = drm_crtc_find(drm, file, args->crtc_id);
	if (!crtc)
		return -ENOENT;

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->event.base.type = DRM_EVENT_FLIP_COMPLETE;
	e->event.base.length = sizeof(e->event.vbl);
	e->event.vbl.user_data = args->user_data;
	e->event.vbl.crtc_id = crtc->base.id;
	e->base.event = &e->event.base;

	ret = -ENOENT;
	fb = drm_framebuffer_lookup(drm, file, args->src.fb_id);
	if (!fb)
		goto err;
	if (args->out_syncobj) {
		syncobj = drm_syncobj_find(file, args->out_syncobj);
		if (!syncobj)
			goto err;
		ret = -ENOMEM;
		fence = vdxg_flip_fence(to_vdxg_crtc(crtc));
		if (!fence)
			goto err;
		e->base.fence = dma_fence_get(fence);
	}
	if (args->flags & DRM_VDXG_PRESENT_EVENT) {
		ret = drm_event_reserve_init(drm, file, &e->base,
					     &e->event.base);
		if (ret)
			goto err;
	}

	ret = vdxg_flip_commit(drm, crtc, fb, e);
	if (ret) {
		if (e->base.file_priv) {
			drm_event_cancel_free(drm, &e->base);
			e = NULL;
		}
		goto err;
	}
	e = NULL;
	if (syncobj)
		drm_syncobj_replace_fence(syncobj, fence);
err:
	if (e) {
		dma_fence_put(e->base.fence);
		kfree(e);
	}
	dma_fence_put(fence);
	if (syncobj)
		drm_syncobj_put(syncobj);
	if (fb)
		drm_framebuffer_put(fb);
	return ret;
}

/**
 * vdxg_present_ioctl - DRM_IOCTL_VDXG_PRESENT
 * @drm: the device
 * @data: struct drm_vdxg_present
 * @file: the file
 *
 * Return: 0 once the blit is queued or the flip committed, or the errors
 * listed with &struct drm_vdxg_present.
 */
int vdxg_present_ioctl(struct drm_device *drm, void *data,
		       struct drm_file *file)
{
	struct drm_vdxg_present *args = data;

	switch (args->mode) {
	case DRM_VDXG_PRESENT_BLIT:
		return vdxg_present_blit(file, args);
	case DRM_VDXG_PRESENT_FLIP:
		return vdxg_present_flip(drm, file, args);
	}
	return -EINVAL;
}
