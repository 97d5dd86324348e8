// SPDX-License-Identifier: MIT
/* voutput: see voutput.h. */
#include <errno.h>
#include <string.h>

#include <xf86drm.h>

#include "voutput.h"
#include "vtest.h"

/* The preferred mode of C, else its first. */
static drmModeModeInfo preferred_mode(const drmModeConnector *c)
{
	int m;

	for (m = 0; m < c->count_modes; m++)
		if (c->modes[m].type & DRM_MODE_TYPE_PREFERRED)
			return c->modes[m];
	return c->modes[0];
}

/* A CRTC C's first encoder can drive, into O; false when none. */
static bool pick_crtc(int fd, const drmModeRes *res, const drmModeConnector *c,
		      struct voutput *o)
{
	drmModeEncoder *e = c->count_encoders ?
			    drmModeGetEncoder(fd, c->encoders[0]) : NULL;
	int j;

	for (j = 0; e && j < res->count_crtcs; j++) {
		if (e->possible_crtcs & (1u << j)) {
			o->crtc_id = res->crtcs[j];
			o->head = j;
			o->conn_id = c->connector_id;
			break;
		}
	}
	drmModeFreeEncoder(e);
	return o->conn_id;
}

void voutput_find(int fd, struct voutput *o)
{
	drmModeRes *res;
	int i;

	memset(o, 0, sizeof(*o));
	if (!drmIsMaster(fd))
		vtest_assert_f(drmSetMaster(fd) == 0,
			       "cannot become DRM master: %s", strerror(errno));
	res = drmModeGetResources(fd);
	vtest_require_f(res && res->count_crtcs && res->count_connectors,
			"no KMS resources (no display engine?)");
	for (i = 0; i < res->count_connectors && !o->conn_id; i++) {
		drmModeConnector *c = drmModeGetConnector(fd,
							  res->connectors[i]);

		if (c && c->connection == DRM_MODE_CONNECTED &&
		    c->count_modes &&
		    c->connector_type != DRM_MODE_CONNECTOR_WRITEBACK &&
		    pick_crtc(fd, res, c, o))
			o->mode = preferred_mode(c);
		drmModeFreeConnector(c);
	}
	drmModeFreeResources(res);
	vtest_require_f(o->conn_id, "no connected connector with a CRTC");
	o->w = o->mode.hdisplay;
	o->h = o->mode.vdisplay;
	vtest_info("CRTC %u (index %d), connector %u, mode %s %ux%u@%u",
		   o->crtc_id, o->head, o->conn_id, o->mode.name, o->w, o->h,
		   o->mode.vrefresh);
}
