// SPDX-License-Identifier: MIT
/*
 * vdxg_kms: atomic KMS for vdxg-demo and vdxg-bench; see vdxg_kms.h.
 */
#include <errno.h>
#include <glob.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <xf86drm.h>

#include "vdxg_kms.h"

static int open_card(struct vdxg_kms *k, const char *path)
{
	int ret = -ENODEV;
	glob_t g;
	size_t i;

	if (path)
		return vdxg_device_open(path, &k->dev);
	if (glob("/dev/dri/card*", 0, NULL, &g))
		return -ENODEV;
	for (i = 0; i < g.gl_pathc && ret; i++)
		ret = vdxg_device_open(g.gl_pathv[i], &k->dev);
	globfree(&g);
	return ret;
}

/* The first connected connector with modes, a CRTC and its mode. */
static int find_output(struct vdxg_kms *k)
{
	drmModeRes *res = drmModeGetResources(k->fd);
	int i, j, m;

	if (!res)
		return -errno;
	for (i = 0; i < res->count_connectors && !k->conn_id; i++) {
		drmModeConnector *c = drmModeGetConnector(k->fd,
							  res->connectors[i]);
		drmModeEncoder *e = NULL;

		if (c && c->connection == DRM_MODE_CONNECTED &&
		    c->count_modes && c->count_encoders) {
			k->mode = c->modes[0];
			for (m = 0; m < c->count_modes; m++)
				if (c->modes[m].type & DRM_MODE_TYPE_PREFERRED) {
					k->mode = c->modes[m];
					break;
				}
			e = drmModeGetEncoder(k->fd, c->encoders[0]);
		}
		for (j = 0; e && j < res->count_crtcs; j++) {
			if (e->possible_crtcs & (1u << j)) {
				k->crtc_id = res->crtcs[j];
				k->crtc_index = j;
				k->conn_id = c->connector_id;
				break;
			}
		}
		drmModeFreeEncoder(e);
		drmModeFreeConnector(c);
	}
	drmModeFreeResources(res);
	k->w = k->mode.hdisplay;
	k->h = k->mode.vdisplay;
	return k->conn_id ? 0 : -ENODEV;
}

/* Property NAME of object ID of TYPE: its id, and its value in *VALUE. */
static uint32_t prop(int fd, uint32_t id, uint32_t type, const char *name,
		     uint64_t *value)
{
	drmModeObjectProperties *op = drmModeObjectGetProperties(fd, id, type);
	uint32_t ret = 0, i;

	for (i = 0; op && i < op->count_props && !ret; i++) {
		drmModePropertyRes *p = drmModeGetProperty(fd, op->props[i]);

		if (p && !strcmp(p->name, name)) {
			ret = p->prop_id;
			if (value)
				*value = op->prop_values[i];
		}
		drmModeFreeProperty(p);
	}
	drmModeFreeObjectProperties(op);
	return ret;
}

static int find_plane(struct vdxg_kms *k)
{
	drmModePlaneRes *pr = drmModeGetPlaneResources(k->fd);
	uint64_t type;
	uint32_t i;

	for (i = 0; pr && i < pr->count_planes && !k->plane_id; i++) {
		drmModePlane *pl = drmModeGetPlane(k->fd, pr->planes[i]);

		if (pl && (pl->possible_crtcs & (1u << k->crtc_index)) &&
		    prop(k->fd, pl->plane_id, DRM_MODE_OBJECT_PLANE, "type",
			 &type) && type == DRM_PLANE_TYPE_PRIMARY)
			k->plane_id = pl->plane_id;
		drmModeFreePlane(pl);
	}
	drmModeFreePlaneResources(pr);
	return k->plane_id ? 0 : -ENODEV;
}

static int find_props(struct vdxg_kms *k)
{
	static const char *const src[4] = { "SRC_X", "SRC_Y", "SRC_W", "SRC_H" };
	static const char *const dst[4] = {
		"CRTC_X", "CRTC_Y", "CRTC_W", "CRTC_H",
	};
	int fd = k->fd, i;
	bool ok;

	k->p_mode_id = prop(fd, k->crtc_id, DRM_MODE_OBJECT_CRTC, "MODE_ID", NULL);
	k->p_active = prop(fd, k->crtc_id, DRM_MODE_OBJECT_CRTC, "ACTIVE", NULL);
	k->p_conn_crtc = prop(fd, k->conn_id, DRM_MODE_OBJECT_CONNECTOR,
			      "CRTC_ID", NULL);
	k->p_fb = prop(fd, k->plane_id, DRM_MODE_OBJECT_PLANE, "FB_ID", NULL);
	k->p_crtc = prop(fd, k->plane_id, DRM_MODE_OBJECT_PLANE, "CRTC_ID", NULL);
	ok = k->p_mode_id && k->p_active && k->p_conn_crtc && k->p_fb &&
	     k->p_crtc;
	for (i = 0; i < 4; i++) {
		k->p_src[i] = prop(fd, k->plane_id, DRM_MODE_OBJECT_PLANE,
				   src[i], NULL);
		k->p_dst[i] = prop(fd, k->plane_id, DRM_MODE_OBJECT_PLANE,
				   dst[i], NULL);
		ok = ok && k->p_src[i] && k->p_dst[i];
	}
	return ok ? 0 : -ENOENT;
}

int vdxg_kms_open(struct vdxg_kms *k, const char *path)
{
	int ret;

	memset(k, 0, sizeof(*k));
	ret = open_card(k, path);
	if (ret)
		return ret;
	k->fd = vdxg_device_fd(k->dev);
	if (!drmIsMaster(k->fd) && drmSetMaster(k->fd))
		ret = -errno;
	if (!ret && drmSetClientCap(k->fd, DRM_CLIENT_CAP_ATOMIC, 1))
		ret = -errno;
	if (!ret)
		ret = find_output(k);
	if (!ret)
		ret = find_plane(k);
	if (!ret)
		ret = find_props(k);
	if (ret)
		vdxg_kms_close(k);
	return ret;
}

void vdxg_kms_close(struct vdxg_kms *k)
{
	vdxg_device_close(k->dev);
	k->dev = NULL;
	k->fd = -1;
}

int vdxg_kms_addfb(struct vdxg_kms *k, const struct vdxg_bo *bo,
		   uint32_t *fb_id)
{
	uint32_t handles[4] = { bo->handle }, pitches[4] = { k->w * 4 };
	uint32_t offsets[4] = { 0 };

	if (drmModeAddFB2(k->fd, k->w, k->h, DRM_FORMAT_XRGB8888, handles,
			  pitches, offsets, fb_id, 0))
		return -errno;
	return 0;
}

/* One atomic commit of FLAGS: N (object, property, value) triples. */
static int commit(struct vdxg_kms *k, const uint32_t (*set)[2],
		  const uint64_t *values, int n, uint32_t flags,
		  uint64_t user_data)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	int i, ret = 0;

	if (!req)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++)
		if (drmModeAtomicAddProperty(req, set[i][0], set[i][1],
					     values[i]) < 0)
			ret = -ENOMEM;
	if (!ret && drmModeAtomicCommit(k->fd, req, flags,
					(void *)(uintptr_t)user_data))
		ret = -errno;
	drmModeAtomicFree(req);
	return ret;
}

int vdxg_kms_modeset(struct vdxg_kms *k, uint32_t fb_id)
{
	uint32_t blob, p = k->plane_id;
	int ret;

	if (drmModeCreatePropertyBlob(k->fd, &k->mode, sizeof(k->mode), &blob))
		return -errno;
	{
		const uint32_t set[][2] = {
			{ k->crtc_id, k->p_mode_id }, { k->crtc_id, k->p_active },
			{ k->conn_id, k->p_conn_crtc },
			{ p, k->p_fb }, { p, k->p_crtc },
			{ p, k->p_src[0] }, { p, k->p_src[1] },
			{ p, k->p_src[2] }, { p, k->p_src[3] },
			{ p, k->p_dst[0] }, { p, k->p_dst[1] },
			{ p, k->p_dst[2] }, { p, k->p_dst[3] },
		};
		const uint64_t values[] = {
			blob, 1, k->crtc_id, fb_id, k->crtc_id,
			0, 0, (uint64_t)k->w << 16, (uint64_t)k->h << 16,
			0, 0, k->w, k->h,
		};

		ret = commit(k, set, values, 13, DRM_MODE_ATOMIC_ALLOW_MODESET, 0);
	}
	drmModeDestroyPropertyBlob(k->fd, blob);
	return ret;
}

int vdxg_kms_flip(struct vdxg_kms *k, uint32_t fb_id, uint64_t user_data)
{
	const uint32_t set[][2] = { { k->plane_id, k->p_fb } };
	const uint64_t values[] = { fb_id };

	return commit(k, set, values, 1, DRM_MODE_ATOMIC_NONBLOCK |
		      DRM_MODE_PAGE_FLIP_EVENT, user_data);
}

int vdxg_kms_wait_flip(struct vdxg_kms *k, uint64_t user_data,
		       int timeout_ms, uint32_t *sequence)
{
	struct pollfd p = { .fd = k->fd, .events = POLLIN };
	struct drm_event_vblank ev;
	ssize_t n;
	int ret;

	do {
		ret = poll(&p, 1, timeout_ms);
	} while (ret < 0 && errno == EINTR);
	if (ret <= 0)
		return ret ? -errno : -ETIME;
	n = read(k->fd, &ev, sizeof(ev));
	if (n != sizeof(ev) || ev.base.type != DRM_EVENT_FLIP_COMPLETE ||
	    ev.user_data != user_data)
		return -EIO;
	if (sequence)
		*sequence = ev.sequence;
	return 0;
}

int vdxg_kms_next_vblank(struct vdxg_kms *k, uint32_t *sequence)
{
	drmVBlank vbl = { 0 };

	vbl.request.type = DRM_VBLANK_RELATIVE;
	if (k->crtc_index == 1)
		vbl.request.type |= DRM_VBLANK_SECONDARY;
	else if (k->crtc_index > 1)
		vbl.request.type |= (k->crtc_index << DRM_VBLANK_HIGH_CRTC_SHIFT) &
				    DRM_VBLANK_HIGH_CRTC_MASK;
	vbl.request.sequence = 1;
	if (drmWaitVBlank(k->fd, &vbl))
		return -errno;
	*sequence = vbl.reply.sequence;
	return 0;
}
