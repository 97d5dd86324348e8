// SPDX-License-Identifier: MIT
/*
 * vdxg_display: what a compositor asks of the display beyond the basics,
 * checked against the contract (docs/hardware.md) on screen.
 *
 *   async-flip          an async page flip (DRM_MODE_PAGE_FLIP_ASYNC) is
 *                       on screen, in the host's screendump, before the
 *                       next vblank, and its event carries the last
 *                       vblank's sequence; what an async flip may not do
 *                       fails with EINVAL
 *   color-degamma, color-ctm, color-gamma, color-pipeline
 *                       the CRTC's DEGAMMA_LUT, CTM and GAMMA_LUT, alone
 *                       and together: the CRC, the screendump and a
 *                       writeback capture of the same CRTC (the writeback
 *                       connector a clone of the monitor's) are the
 *                       reference's pixels, computed here by the
 *                       contract's arithmetic
 *   color-legacy-gamma  the legacy gamma ioctl, as GAMMA_LUT
 *   color-invalid       LUTs of another size, a CTM of another size: EINVAL
 *   hotplug             a monitor unplugged and plugged back by the host:
 *                       a uevent naming the connector each time, the new
 *                       connector state, and the output's own EDID modes
 *   link-status         a failed link (the host's link-bad<n>): a uevent,
 *                       link-status BAD, and a modeset that trains it again
 *   invalid-modes       modes the device cannot show fail with EINVAL, by
 *                       SETCRTC and by an atomic TEST_ONLY commit
 *   plane-scaling       the primary plane scaled up and down, whole and
 *                       partly off-screen, by the default (bilinear) and the
 *                       nearest-neighbour SCALING_FILTER: CRC, screendump
 *                       and writeback are the reference's (libvdxg's
 *                       vdxg_ref_plane, the contract's arithmetic); beyond
 *                       the limits
 *                       (8x up, 4x down) ERANGE
 *   plane-rotation      rotation 90 and 270, with reflections, unscaled
 *                       (also partly off-screen) and scaled: the same checks
 *   vrr                 the monitor's EDID range makes it vrr_capable, with
 *                       that range in debugfs vrr_range; with VRR_ENABLED
 *                       and no flip the vblank stretches to the range's
 *                       lowest rate (the device's virtual clock times it),
 *                       and without it the mode's rate is back
 *   damage-clips        every plane has FB_DAMAGE_CLIPS; a flip to a
 *                       framebuffer with clips for rows 100 to 199 (a
 *                       promise broken on purpose) shows it only there in
 *                       CRC and screendump; without clips, all of it
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/netlink.h>

#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "vdxg_ref_plane.h"
#include "vhostd.h"
#include "voutput.h"
#include "vrender.h"
#include "vtest.h"

/* Linux 6.8's uapi; older libdrm headers lack it */
#ifndef DRM_CAP_ATOMIC_ASYNC_PAGE_FLIP
#define DRM_CAP_ATOMIC_ASYNC_PAGE_FLIP 0x15
#endif

struct dt {
	int fd;
	struct voutput o;
	struct vhostd hostd;
	bool have_hostd;
	uint64_t kmsg;
};

static void dt_open(struct dt *t)
{
	memset(t, 0, sizeof(*t));
	t->hostd.fd = -1;
	t->kmsg = vtest_kmsg_seq();
	t->fd = vtest_drm_open_driver("vdxg", VTEST_NODE_CARD, NULL);
	vtest_require_f(t->fd >= 0, "no vdxg card node");
	vtest_assert_ok(drmSetClientCap(t->fd, DRM_CLIENT_CAP_ATOMIC, 1));
	vtest_assert_ok(drmSetClientCap(t->fd, DRM_CLIENT_CAP_WRITEBACK_CONNECTORS,
					1));
	voutput_find(t->fd, &t->o);
	t->have_hostd = vhostd_open(&t->hostd);
}

static void dt_close(struct dt *t)
{
	int n = vtest_kmsg_problems(t->kmsg);

	vhostd_close(&t->hostd);
	close(t->fd);
	vtest_assert_f(n == 0, "%d kernel log problem(s)", n);
}

static void dt_need_hostd(struct dt *t, const char *what)
{
	vtest_require_f(t->have_hostd, "%s needs the host channel "
			"(vdxgvm.hostd on the kernel command line)", what);
}

static uint32_t *px(struct vfb *f, uint32_t x, uint32_t y)
{
	return f->map + y * (f->pitch / 4) + x;
}

/* Deterministic pixels of SEED; with CHANNELS every channel value shows. */
static void dfb_pattern(struct vfb *f, uint32_t seed, bool channels)
{
	uint32_t x, y, s = seed * 2654435761u + 1;

	for (y = 0; y < f->h; y++) {
		for (x = 0; x < f->w; x++) {
			uint32_t r, g, b;

			if (channels) {
				r = (x + y * 7 + seed) & 0xff;
				g = (x * 3 + y) & 0xff;
				b = (r ^ g ^ (y >> 1)) & 0xff;
			} else {
				s = s * 1103515245u + 12345u;
				r = s >> 24;
				g = (s >> 16) & 0xff;
				b = (s >> 8) & 0xff;
			}
			*px(f, x, y) = r << 16 | g << 8 | b;
		}
	}
}

/* The CRTC's frame of F (XRGB8888, the mode's size) as W x H pixels */
static uint32_t *dfb_image(struct vfb *f)
{
	uint32_t *img = malloc((size_t)f->w * f->h * 4), y;

	vtest_assert(img);
	for (y = 0; y < f->h; y++)
		memcpy(img + (size_t)y * f->w, px(f, 0, y), f->w * 4);
	for (size_t i = 0; i < (size_t)f->w * f->h; i++)
		img[i] &= 0xffffff;
	return img;
}

/* Properties */

static uint32_t prop_id(int fd, uint32_t obj, uint32_t type, const char *name,
			uint64_t *value)
{
	drmModeObjectProperties *props = drmModeObjectGetProperties(fd, obj,
								    type);
	uint32_t id = 0;

	vtest_assert(props);
	for (uint32_t i = 0; i < props->count_props && !id; i++) {
		drmModePropertyRes *p = drmModeGetProperty(fd, props->props[i]);

		if (p && !strcmp(p->name, name)) {
			id = p->prop_id;
			if (value)
				*value = props->prop_values[i];
		}
		drmModeFreeProperty(p);
	}
	drmModeFreeObjectProperties(props);
	return id;
}

static uint64_t prop_value(int fd, uint32_t obj, uint32_t type,
			   const char *name)
{
	uint64_t v = 0;

	vtest_assert_f(prop_id(fd, obj, type, name, &v), "no property %s",
		       name);
	return v;
}

static void add(drmModeAtomicReq *req, int fd, uint32_t obj, uint32_t type,
		const char *name, uint64_t value)
{
	uint32_t id = prop_id(fd, obj, type, name, NULL);

	vtest_assert_f(id, "object %u has no property %s", obj, name);
	vtest_assert(drmModeAtomicAddProperty(req, obj, id, value) >= 0);
}

/* The primary plane of the output's CRTC */
static uint32_t primary_plane(struct dt *t)
{
	drmModePlaneRes *pr = drmModeGetPlaneResources(t->fd);
	uint32_t plane = 0;

	for (uint32_t i = 0; pr && i < pr->count_planes && !plane; i++) {
		drmModePlane *p = drmModeGetPlane(t->fd, pr->planes[i]);

		if ((p->possible_crtcs & (1u << t->o.head)) &&
		    prop_value(t->fd, p->plane_id, DRM_MODE_OBJECT_PLANE,
			       "type") == DRM_PLANE_TYPE_PRIMARY)
			plane = p->plane_id;
		drmModeFreePlane(p);
	}
	drmModeFreePlaneResources(pr);
	vtest_assert(plane);
	return plane;
}

/* Show F full screen on the output's CRTC with MODE (atomic, a modeset) */
static void show(struct dt *t, struct vfb *f, const drmModeModeInfo *mode)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	uint32_t blob, plane = primary_plane(t);

	vtest_assert_ok(drmModeCreatePropertyBlob(t->fd, mode, sizeof(*mode),
						  &blob));
	add(req, t->fd, t->o.crtc_id, DRM_MODE_OBJECT_CRTC, "MODE_ID", blob);
	add(req, t->fd, t->o.crtc_id, DRM_MODE_OBJECT_CRTC, "ACTIVE", 1);
	add(req, t->fd, t->o.conn_id, DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID",
	    t->o.crtc_id);
	add(req, t->fd, plane, DRM_MODE_OBJECT_PLANE, "FB_ID", f->fb);
	add(req, t->fd, plane, DRM_MODE_OBJECT_PLANE, "CRTC_ID", t->o.crtc_id);
	add(req, t->fd, plane, DRM_MODE_OBJECT_PLANE, "SRC_X", 0);
	add(req, t->fd, plane, DRM_MODE_OBJECT_PLANE, "SRC_Y", 0);
	add(req, t->fd, plane, DRM_MODE_OBJECT_PLANE, "SRC_W", (uint64_t)f->w << 16);
	add(req, t->fd, plane, DRM_MODE_OBJECT_PLANE, "SRC_H", (uint64_t)f->h << 16);
	add(req, t->fd, plane, DRM_MODE_OBJECT_PLANE, "CRTC_X", 0);
	add(req, t->fd, plane, DRM_MODE_OBJECT_PLANE, "CRTC_Y", 0);
	add(req, t->fd, plane, DRM_MODE_OBJECT_PLANE, "CRTC_W", f->w);
	add(req, t->fd, plane, DRM_MODE_OBJECT_PLANE, "CRTC_H", f->h);
	/* Unturned and with the default filter, whatever ran before */
	if (prop_id(t->fd, plane, DRM_MODE_OBJECT_PLANE, "rotation", NULL))
		add(req, t->fd, plane, DRM_MODE_OBJECT_PLANE, "rotation",
		    DRM_MODE_ROTATE_0);
	if (prop_id(t->fd, plane, DRM_MODE_OBJECT_PLANE, "SCALING_FILTER",
		    NULL))
		add(req, t->fd, plane, DRM_MODE_OBJECT_PLANE, "SCALING_FILTER",
		    0);
	vtest_assert_f(drmModeAtomicCommit(t->fd, req,
					   DRM_MODE_ATOMIC_ALLOW_MODESET,
					   NULL) == 0,
		       "modeset: %s", strerror(errno));
	drmModeAtomicFree(req);
	drmModeDestroyPropertyBlob(t->fd, blob);
}

/* Screens */

/* The CRC-32 and length of the PPM a screendump of IMG (W x H) gives */
static uint32_t ppm_crc(const uint32_t *img, uint32_t w, uint32_t h,
			size_t *len)
{
	char hdr[64];
	int n = snprintf(hdr, sizeof(hdr), "P6\n%u %u\n255\n", w, h);
	uint8_t *row = malloc((size_t)w * 3);
	uint32_t crc = vhostd_crc32(0, hdr, n);

	vtest_assert(row);
	for (uint32_t y = 0; y < h; y++) {
		for (uint32_t x = 0; x < w; x++) {
			uint32_t p = img[(size_t)y * w + x];

			row[x * 3] = p >> 16;
			row[x * 3 + 1] = p >> 8;
			row[x * 3 + 2] = p;
		}
		crc = vhostd_crc32(crc, row, (size_t)w * 3);
	}
	free(row);
	*len = n + (size_t)w * h * 3;
	return crc;
}

/* Does the host's screendump of our CRTC show IMG? */
static bool screen_shows(struct dt *t, const char *what, const uint32_t *img,
			 uint32_t w, uint32_t h)
{
	size_t len, want_len;
	uint32_t crc, want = ppm_crc(img, w, h, &want_len);

	vhostd_screendump_crc(&t->hostd, what, t->o.head, &len, &crc);
	if (len == want_len && crc == want)
		return true;
	vtest_info("%s: screendump %zu bytes CRC %08x, the reference %zu "
		   "bytes CRC %08x", what, len, crc, want_len, want);
	return false;
}

/* Async flips */

static uint32_t vblank_seq(int fd, int head, uint32_t wait)
{
	drmVBlank vbl = {
		.request.type = DRM_VBLANK_RELATIVE |
				(head << DRM_VBLANK_HIGH_CRTC_SHIFT),
		.request.sequence = wait,
	};

	vtest_assert_f(drmWaitVBlank(fd, &vbl) == 0, "WAIT_VBLANK: %s",
		       strerror(errno));
	return vbl.reply.sequence;
}

static void test_async_flip(void)
{
	struct vfb f[3];
	struct dt t;
	drmModeModeInfo mode;
	uint64_t cap = 0;
	uint32_t *img[2];
	int i, shown = 0, in_frame = 0;

	dt_open(&t);
	vtest_assert_ok(drmGetCap(t.fd, DRM_CAP_ASYNC_PAGE_FLIP, &cap));
	vtest_assert_eq(cap, 1);
	vtest_assert_ok(drmGetCap(t.fd, DRM_CAP_ATOMIC_ASYNC_PAGE_FLIP, &cap));
	vtest_assert_eq(cap, 1);
	dt_need_hostd(&t, "async-flip");

	/*
	 * One frame a second, the slowest the device shows, so that a
	 * screendump fits between two vblanks.
	 */
	mode = t.o.mode;
	mode.clock = (mode.htotal * mode.vtotal + 999) / 1000;
	mode.vrefresh = 1;
	snprintf(mode.name, sizeof(mode.name), "%ux%u@1", mode.hdisplay,
		 mode.vdisplay);
	for (i = 0; i < 2; i++) {
		vfb_create(t.fd, &f[i], t.o.w, t.o.h, DRM_FORMAT_XRGB8888);
		dfb_pattern(&f[i], 11 + i, false);
		img[i] = dfb_image(&f[i]);
	}
	vfb_create(t.fd, &f[2], t.o.w, t.o.h, DRM_FORMAT_XBGR8888);
	show(&t, &f[0], &mode);

	/*
	 * An async flip completes within the frame it was asked in, and is
	 * on screen before the next vblank. A flip that waited for a vblank
	 * would never complete within its frame; a screendump that outlives
	 * the frame (a busy host) proves nothing, and is taken again.
	 */
	for (i = 1; i <= 6 && shown < 1; i++) {
		struct drm_event_vblank ev;
		uint32_t seq0, seq1;

		seq0 = vblank_seq(t.fd, t.o.head, 1);
		vtest_assert_f(drmModePageFlip(t.fd, t.o.crtc_id, f[i % 2].fb,
					       DRM_MODE_PAGE_FLIP_ASYNC |
					       DRM_MODE_PAGE_FLIP_EVENT,
					       NULL) == 0,
			       "async flip: %s", strerror(errno));
		vtest_assert_f(voutput_read_event(t.fd, &ev, 5000),
			       "no event for the async flip");
		seq1 = vblank_seq(t.fd, t.o.head, 0);
		if (seq1 != seq0) {
			vtest_info("flip %d: its event came after a vblank",
				   i);
			continue;
		}
		in_frame++;
		vtest_assert_eq(ev.sequence, seq0);
		vtest_assert_f(screen_shows(&t, "async", img[i % 2], t.o.w,
					    t.o.h),
			       "the screen does not show the async flip's "
			       "framebuffer");
		if (vblank_seq(t.fd, t.o.head, 0) != seq0) {
			vtest_info("flip %d: a vblank came before the "
				   "screendump was done; again", i);
			continue;
		}
		shown++;
	}
	vtest_assert_f(in_frame, "no async flip completed within its frame");
	vtest_require_f(shown, "no screendump within a frame of a second "
			"(a busy host)");

	/* Another format: EINVAL; so is a change besides the framebuffer */
	vtest_assert_eq(drmModePageFlip(t.fd, t.o.crtc_id, f[2].fb,
					DRM_MODE_PAGE_FLIP_ASYNC, NULL), -EINVAL);
	{
		drmModeAtomicReq *req = drmModeAtomicAlloc();
		drmModePlaneRes *pr = drmModeGetPlaneResources(t.fd);
		uint32_t plane = 0;

		for (uint32_t j = 0; j < pr->count_planes && !plane; j++) {
			uint64_t crtc = 0;

			prop_id(t.fd, pr->planes[j], DRM_MODE_OBJECT_PLANE,
				"CRTC_ID", &crtc);
			if (crtc == t.o.crtc_id)
				plane = pr->planes[j];
		}
		drmModeFreePlaneResources(pr);
		/* The driver's check: the core lets a new FB_ID through */
		add(req, t.fd, plane, DRM_MODE_OBJECT_PLANE, "FB_ID", f[2].fb);
		vtest_assert_eq(drmModeAtomicCommit(t.fd, req,
						    DRM_MODE_PAGE_FLIP_ASYNC |
						    DRM_MODE_ATOMIC_NONBLOCK,
						    NULL), -EINVAL);
		drmModeAtomicFree(req);
		/* The core's: nothing but FB_ID may change */
		req = drmModeAtomicAlloc();
		add(req, t.fd, plane, DRM_MODE_OBJECT_PLANE, "FB_ID", f[0].fb);
		add(req, t.fd, plane, DRM_MODE_OBJECT_PLANE, "CRTC_X", 1);
		vtest_assert_eq(drmModeAtomicCommit(t.fd, req,
						    DRM_MODE_PAGE_FLIP_ASYNC |
						    DRM_MODE_ATOMIC_NONBLOCK,
						    NULL), -EINVAL);
		drmModeAtomicFree(req);
	}
	for (i = 0; i < 3; i++)
		vfb_destroy(t.fd, &f[i]);
	free(img[0]);
	free(img[1]);
	dt_close(&t);
}

/* Colour: the contract's arithmetic (docs/hardware.md, "Colour pipeline") */

struct color {
	bool degamma, ctm, gamma;
	struct drm_color_lut lut[2][VDXG_LUT_SIZE];	/* degamma, gamma */
	struct drm_color_ctm m;
};

static uint64_t lut_at(const struct drm_color_lut *l, int ch, uint64_t v)
{
	uint64_t p = v * 255, i = p / 65535, f = p % 65535, lo, hi;
	const uint16_t *e = &l[i].red;

	if (i == 255)
		return e[ch];
	lo = e[ch];
	hi = (&l[i + 1].red)[ch];
	return (lo * (65535 - f) + hi * f + 32767) / 65535;
}

/* A CTM coefficient (S31.32 sign-magnitude) as the driver gives it the
 * device: S15.16, the magnitude truncated, clamped */
static int64_t ctm_coef(uint64_t v)
{
	uint64_t mag = (v & ~(1ull << 63)) >> 16;

	if (v >> 63)
		return -(int64_t)(mag > 0x80000000ull ? 0x80000000ull : mag);
	return mag > 0x7fffffffull ? 0x7fffffff : (int64_t)mag;
}

static uint32_t color_px(const struct color *c, uint32_t px)
{
	int64_t v[3], w[3];
	uint32_t out = 0;

	for (int i = 0; i < 3; i++) {
		v[i] = ((px >> (16 - 8 * i)) & 0xff) * 257;
		if (c->degamma)
			v[i] = lut_at(c->lut[0], i, v[i]);
	}
	for (int i = 0; i < 3; i++) {
		w[i] = v[i];
		if (c->ctm) {
			int64_t acc = 32768, q;

			for (int j = 0; j < 3; j++)
				acc += ctm_coef(c->m.matrix[3 * i + j]) * v[j];
			q = acc / 65536 - (acc % 65536 < 0);
			w[i] = q < 0 ? 0 : q > 65535 ? 65535 : q;
		}
		if (c->gamma)
			w[i] = lut_at(c->lut[1], i, w[i]);
		out |= (uint32_t)((w[i] * 255 + 32767) / 65535) << (16 - 8 * i);
	}
	return out;
}

static uint64_t s31_32(double d)
{
	uint64_t mag = (uint64_t)((d < 0 ? -d : d) * 4294967296.0);

	return d < 0 ? mag | 1ull << 63 : mag;
}

static void color_tables(struct color *c, uint32_t seed)
{
	static const double m[9] = {
		0.75, 0.25, -0.125,
		-0.5, 1.25, 0.25,
		0.125, -0.0625, 1.5,
	};

	for (int l = 0; l < 2; l++) {
		for (int i = 0; i < VDXG_LUT_SIZE; i++) {
			/* A curve, a different one per channel and LUT */
			uint32_t x = i * 257;

			c->lut[l][i].red = l ? 65535 - (65535 - x) * (65535 - x) / 65535 :
					   x * x / 65535;
			c->lut[l][i].green = (x + seed * 97 * (l + 1)) & 0xffff;
			c->lut[l][i].blue = 65535 - x;
		}
	}
	for (int i = 0; i < 9; i++)
		c->m.matrix[i] = s31_32(m[i]);
}

static uint32_t blob(int fd, const void *data, size_t size)
{
	uint32_t id;

	vtest_assert_ok(drmModeCreatePropertyBlob(fd, data, size, &id));
	return id;
}

/* Commit C's stages on the output's CRTC; returns the commit's errno. */
static int color_commit(struct dt *t, const struct color *c, size_t lut_bytes,
			size_t ctm_bytes)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	uint32_t b[3] = { 0 };
	int ret;

	if (c->degamma)
		b[0] = blob(t->fd, c->lut[0], lut_bytes);
	if (c->ctm)
		b[1] = blob(t->fd, &c->m, ctm_bytes);
	if (c->gamma)
		b[2] = blob(t->fd, c->lut[1], lut_bytes);
	add(req, t->fd, t->o.crtc_id, DRM_MODE_OBJECT_CRTC, "DEGAMMA_LUT", b[0]);
	add(req, t->fd, t->o.crtc_id, DRM_MODE_OBJECT_CRTC, "CTM", b[1]);
	add(req, t->fd, t->o.crtc_id, DRM_MODE_OBJECT_CRTC, "GAMMA_LUT", b[2]);
	ret = drmModeAtomicCommit(t->fd, req, 0, NULL) ? errno : 0;
	drmModeAtomicFree(req);
	for (int i = 0; i < 3; i++)
		if (b[i])
			drmModeDestroyPropertyBlob(t->fd, b[i]);
	return ret;
}

static uint32_t writeback_connector(int fd)
{
	drmModeRes *res = drmModeGetResources(fd);
	uint32_t id = 0;

	for (int i = 0; res && i < res->count_connectors && !id; i++) {
		drmModeConnector *c = drmModeGetConnector(fd, res->connectors[i]);

		if (c && c->connector_type == DRM_MODE_CONNECTOR_WRITEBACK)
			id = c->connector_id;
		drmModeFreeConnector(c);
	}
	drmModeFreeResources(res);
	return id;
}

/*
 * Capture the output's CRTC with the writeback connector, a clone of the
 * monitor's, into WB; compare with WANT.
 */
static void writeback_check(struct dt *t, struct vfb *wb, const uint32_t *want,
			    const char *what)
{
	uint32_t conn = writeback_connector(t->fd);
	drmModeAtomicReq *req;
	int32_t fence = -1;
	struct pollfd p;
	uint32_t bad = 0;

	vtest_assert_f(conn, "no writeback connector");
	memset(wb->map, 0, wb->size);
	req = drmModeAtomicAlloc();
	add(req, t->fd, conn, DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID", t->o.crtc_id);
	add(req, t->fd, conn, DRM_MODE_OBJECT_CONNECTOR, "WRITEBACK_FB_ID",
	    wb->fb);
	add(req, t->fd, conn, DRM_MODE_OBJECT_CONNECTOR,
	    "WRITEBACK_OUT_FENCE_PTR", (uintptr_t)&fence);
	vtest_assert_f(drmModeAtomicCommit(t->fd, req,
					   DRM_MODE_ATOMIC_ALLOW_MODESET,
					   NULL) == 0,
		       "%s: writeback commit (a clone of the monitor): %s",
		       what, strerror(errno));
	drmModeAtomicFree(req);
	vtest_assert(fence >= 0);
	p = (struct pollfd){ .fd = fence, .events = POLLIN };
	vtest_assert_f(poll(&p, 1, 10000) == 1, "%s: writeback fence", what);
	close(fence);
	for (uint32_t y = 0; y < wb->h; y++) {
		for (uint32_t x = 0; x < wb->w; x++) {
			uint32_t got = *px(wb, x, y) & 0xffffff;
			uint32_t exp = want[(size_t)y * wb->w + x];

			if (got != exp && bad++ < 5)
				vtest_info("%s: writeback (%u, %u) 0x%06x, "
					   "want 0x%06x", what, x, y, got, exp);
		}
	}
	vtest_assert_f(!bad, "%s: %u writeback pixels differ", what, bad);
	/* Detach it again */
	req = drmModeAtomicAlloc();
	add(req, t->fd, conn, DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID", 0);
	vtest_assert_ok(drmModeAtomicCommit(t->fd, req,
					    DRM_MODE_ATOMIC_ALLOW_MODESET, NULL));
	drmModeAtomicFree(req);
}

/* The CRC, the screendump and a writeback capture all show WANT */
static void screen_check(struct dt *t, struct vfb *wb, const uint32_t *want,
			 const char *what)
{
	uint32_t crc = voutput_screen_crc(t->fd, t->o.head, what);
	uint32_t exp = voutput_image_crc(want, t->o.w * 4, t->o.w, t->o.h);

	vtest_assert_f(crc == exp, "%s: CRC %08x, the reference's %08x", what,
		       crc, exp);
	if (t->have_hostd)
		vtest_assert_f(screen_shows(t, what, want, t->o.w, t->o.h),
			       "%s: the screendump is not the reference", what);
	else
		vtest_info("%s: no host channel, no screendump", what);
	writeback_check(t, wb, want, what);
}

static void color_run(bool degamma, bool ctm, bool gamma)
{
	struct color c = { .degamma = degamma, .ctm = ctm, .gamma = gamma };
	struct vfb f, wb;
	uint32_t *img;
	size_t n;
	struct dt t;

	dt_open(&t);
	vtest_require_f(prop_id(t.fd, t.o.crtc_id, DRM_MODE_OBJECT_CRTC,
				"GAMMA_LUT", NULL),
			"no colour management");
	vtest_assert_eq(prop_value(t.fd, t.o.crtc_id, DRM_MODE_OBJECT_CRTC,
				   "GAMMA_LUT_SIZE"), VDXG_LUT_SIZE);
	vtest_assert_eq(prop_value(t.fd, t.o.crtc_id, DRM_MODE_OBJECT_CRTC,
				   "DEGAMMA_LUT_SIZE"), VDXG_LUT_SIZE);
	vfb_create(t.fd, &f, t.o.w, t.o.h, DRM_FORMAT_XRGB8888);
	vfb_create(t.fd, &wb, t.o.w, t.o.h, DRM_FORMAT_XRGB8888);
	dfb_pattern(&f, 3, true);
	show(&t, &f, &t.o.mode);
	color_tables(&c, 5);
	vtest_assert_eq(color_commit(&t, &c, sizeof(c.lut[0]), sizeof(c.m)), 0);

	img = dfb_image(&f);
	n = (size_t)t.o.w * t.o.h;
	for (size_t i = 0; i < n; i++)
		img[i] = color_px(&c, img[i]);
	screen_check(&t, &wb, img, "color");

	/* Off again: the framebuffer as it is */
	c.degamma = c.ctm = c.gamma = false;
	vtest_assert_eq(color_commit(&t, &c, 0, 0), 0);
	free(img);
	img = dfb_image(&f);
	screen_check(&t, &wb, img, "color-off");
	free(img);
	vfb_destroy(t.fd, &wb);
	vfb_destroy(t.fd, &f);
	dt_close(&t);
}

static void test_color_degamma(void) { color_run(true, false, false); }
static void test_color_ctm(void) { color_run(false, true, false); }
static void test_color_gamma(void) { color_run(false, false, true); }
static void test_color_pipeline(void) { color_run(true, true, true); }

static void test_color_legacy_gamma(void)
{
	struct color c = { .gamma = true };
	uint16_t r[256], g[256], b[256];
	struct vfb f, wb;
	uint32_t *img;
	drmModeCrtc *crtc;
	struct dt t;

	dt_open(&t);
	crtc = drmModeGetCrtc(t.fd, t.o.crtc_id);
	vtest_assert_eq(crtc->gamma_size, 256);
	drmModeFreeCrtc(crtc);
	vfb_create(t.fd, &f, t.o.w, t.o.h, DRM_FORMAT_XRGB8888);
	vfb_create(t.fd, &wb, t.o.w, t.o.h, DRM_FORMAT_XRGB8888);
	dfb_pattern(&f, 4, true);
	show(&t, &f, &t.o.mode);
	color_tables(&c, 9);
	for (int i = 0; i < 256; i++) {
		r[i] = c.lut[1][i].red;
		g[i] = c.lut[1][i].green;
		b[i] = c.lut[1][i].blue;
	}
	vtest_assert_ok(drmModeCrtcSetGamma(t.fd, t.o.crtc_id, 256, r, g, b));
	vtest_assert_neq(prop_value(t.fd, t.o.crtc_id, DRM_MODE_OBJECT_CRTC,
				    "GAMMA_LUT"), 0);
	img = dfb_image(&f);
	for (size_t i = 0; i < (size_t)t.o.w * t.o.h; i++)
		img[i] = color_px(&c, img[i]);
	screen_check(&t, &wb, img, "legacy-gamma");
	free(img);
	c.gamma = false;
	vtest_assert_eq(color_commit(&t, &c, 0, 0), 0);
	vfb_destroy(t.fd, &wb);
	vfb_destroy(t.fd, &f);
	dt_close(&t);
}

static void test_color_invalid(void)
{
	static struct color c;
	struct vfb f;
	struct dt t;
	size_t entry = sizeof(c.lut[0][0]);

	dt_open(&t);
	vfb_create(t.fd, &f, t.o.w, t.o.h, DRM_FORMAT_XRGB8888);
	show(&t, &f, &t.o.mode);
	color_tables(&c, 1);
	c.degamma = true;
	vtest_assert_eq(color_commit(&t, &c, 255 * entry, 0), EINVAL);
	vtest_assert_eq(color_commit(&t, &c, entry, 0), EINVAL);
	vtest_assert_eq(color_commit(&t, &c, 256 * entry - 1, 0), EINVAL);
	c.degamma = false;
	c.gamma = true;
	vtest_assert_eq(color_commit(&t, &c, 128 * entry, 0), EINVAL);
	c.gamma = false;
	c.ctm = true;
	vtest_assert_eq(color_commit(&t, &c, 0, sizeof(c.m) - 1), EINVAL);
	vtest_assert_eq(color_commit(&t, &c, 0, sizeof(c.m) - 8), EINVAL);
	/* Nothing changed: the commits were refused whole */
	vtest_assert_eq(prop_value(t.fd, t.o.crtc_id, DRM_MODE_OBJECT_CRTC,
				   "CTM"), 0);
	vfb_destroy(t.fd, &f);
	dt_close(&t);
}

/* Hotplug */

static int uevent_open(void)
{
	struct sockaddr_nl addr = {
		.nl_family = AF_NETLINK, .nl_groups = 1,
	};
	int s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC,
		       NETLINK_KOBJECT_UEVENT);

	vtest_assert_f(s >= 0, "uevent socket: %s", strerror(errno));
	vtest_assert_f(bind(s, (struct sockaddr *)&addr, sizeof(addr)) == 0,
		       "uevent bind: %s", strerror(errno));
	return s;
}

/* Wait for a DRM hotplug uevent naming CONNECTOR (within 20 s) */
static void uevent_wait(int s, uint32_t connector)
{
	char want[32], buf[4096];

	snprintf(want, sizeof(want), "CONNECTOR=%u", connector);
	for (int tries = 0; tries < 200; tries++) {
		struct pollfd p = { .fd = s, .events = POLLIN };
		bool hotplug = false, conn = false;
		ssize_t n;

		vtest_assert_f(poll(&p, 1, 20000) == 1,
			       "no hotplug uevent for connector %u", connector);
		n = recv(s, buf, sizeof(buf) - 1, 0);
		vtest_assert(n > 0);
		buf[n] = 0;
		for (char *k = buf; k < buf + n; k += strlen(k) + 1) {
			hotplug |= !strcmp(k, "HOTPLUG=1");
			conn |= !strcmp(k, want);
		}
		if (hotplug && conn)
			return;
	}
	vtest_fail("no hotplug uevent for connector %u", connector);
}

/* The connector of CRTC index HEAD (the pipe's own) */
static uint32_t pipe_connector(int fd, int head)
{
	drmModeRes *res = drmModeGetResources(fd);
	uint32_t id = 0;

	for (int i = 0; i < res->count_connectors && !id; i++) {
		drmModeConnector *c = drmModeGetConnector(fd, res->connectors[i]);
		drmModeEncoder *e;

		if (c->connector_type != DRM_MODE_CONNECTOR_WRITEBACK &&
		    c->count_encoders) {
			e = drmModeGetEncoder(fd, c->encoders[0]);
			if (e && e->possible_crtcs == 1u << head)
				id = c->connector_id;
			drmModeFreeEncoder(e);
		}
		drmModeFreeConnector(c);
	}
	drmModeFreeResources(res);
	return id;
}

/* After a hotplug of output OUT: CONN's state is CONNECTED, with its modes */
static void check_connector(struct dt *t, uint32_t conn, int out,
			    bool connected)
{
	/* Each output's preferred mode, from its EDID (docs/hardware.md) */
	static const uint32_t pref[VDXG_MAX_CRTCS][2] = {
		{ 1024, 768 }, { 800, 600 }, { 1280, 720 }, { 1280, 1024 },
	};
	drmModeConnector *c = drmModeGetConnector(t->fd, conn);
	bool preferred = false;

	if (!connected) {
		vtest_assert_eq(c->connection, DRM_MODE_DISCONNECTED);
		vtest_assert_eq(c->count_modes, 0);
		vtest_assert_eq(prop_value(t->fd, conn, DRM_MODE_OBJECT_CONNECTOR,
					   "EDID"), 0);
		drmModeFreeConnector(c);
		return;
	}
	vtest_assert_eq(c->connection, DRM_MODE_CONNECTED);
	vtest_assert(c->count_modes > 0);
	for (int m = 0; m < c->count_modes; m++) {
		vtest_info("mode %s %ux%u clock %u type 0x%x", c->modes[m].name,
			   c->modes[m].hdisplay, c->modes[m].vdisplay,
			   c->modes[m].clock, c->modes[m].type);
		if (!(c->modes[m].type & DRM_MODE_TYPE_PREFERRED))
			continue;
		vtest_assert_eq(c->modes[m].hdisplay, pref[out][0]);
		vtest_assert_eq(c->modes[m].vdisplay, pref[out][1]);
		preferred = true;
	}
	vtest_assert(preferred);
	vtest_assert_neq(prop_value(t->fd, conn, DRM_MODE_OBJECT_CONNECTOR,
				    "EDID"), 0);
	drmModeFreeConnector(c);
}

static void test_hotplug(void)
{
	drmModeConnector *c;
	drmModeRes *res;
	bool connected;
	int s, out;
	char prop[32];
	uint32_t conn;
	struct dt t;

	dt_open(&t);
	dt_need_hostd(&t, "hotplug");
	res = drmModeGetResources(t.fd);
	/* The last output: with two, not the one the other tests light */
	out = res->count_crtcs - 1;
	drmModeFreeResources(res);
	conn = pipe_connector(t.fd, out);
	vtest_assert(conn);
	c = drmModeGetConnector(t.fd, conn);
	connected = c->connection == DRM_MODE_CONNECTED;
	drmModeFreeConnector(c);
	s = uevent_open();
	snprintf(prop, sizeof(prop), "connected%d", out);

	/* Out and back in, or in and back out: two events, two states */
	for (int i = 0; i < 2; i++) {
		connected = !connected;
		vhostd_qom_set(&t.hostd, prop, connected);
		uevent_wait(s, conn);
		check_connector(&t, conn, out, connected);
	}
	close(s);
	dt_close(&t);
}

static void test_link_status(void)
{
	struct vfb f;
	char prop[32];
	int s;
	struct dt t;

	dt_open(&t);
	dt_need_hostd(&t, "link-status");
	vfb_create(t.fd, &f, t.o.w, t.o.h, DRM_FORMAT_XRGB8888);
	dfb_pattern(&f, 6, false);
	show(&t, &f, &t.o.mode);
	vtest_assert_eq(prop_value(t.fd, t.o.conn_id, DRM_MODE_OBJECT_CONNECTOR,
				   "link-status"), DRM_MODE_LINK_STATUS_GOOD);
	s = uevent_open();
	snprintf(prop, sizeof(prop), "link-bad%d", t.o.head);
	for (int round = 0; round < 2; round++) {
		drmModeAtomicReq *req;

		/* The link fails: an event, link-status BAD */
		vhostd_qom_set(&t.hostd, prop, true);
		uevent_wait(s, t.o.conn_id);
		vtest_assert_eq(prop_value(t.fd, t.o.conn_id,
					   DRM_MODE_OBJECT_CONNECTOR,
					   "link-status"),
				DRM_MODE_LINK_STATUS_BAD);
		/* The compositor sets the mode again: GOOD, trained */
		req = drmModeAtomicAlloc();
		add(req, t.fd, t.o.conn_id, DRM_MODE_OBJECT_CONNECTOR,
		    "link-status", DRM_MODE_LINK_STATUS_GOOD);
		vtest_assert_eq(drmModeAtomicCommit(t.fd, req, 0, NULL),
				-EINVAL);
		vtest_assert_ok(drmModeAtomicCommit(t.fd, req,
						    DRM_MODE_ATOMIC_ALLOW_MODESET,
						    NULL));
		drmModeAtomicFree(req);
		vtest_assert_eq(prop_value(t.fd, t.o.conn_id,
					   DRM_MODE_OBJECT_CONNECTOR,
					   "link-status"),
				DRM_MODE_LINK_STATUS_GOOD);
		/* The second round fails it again: the first trained it */
	}
	close(s);
	vfb_destroy(t.fd, &f);
	dt_close(&t);
}

/* Modes */

static void test_invalid_modes(void)
{
	static const struct {
		const char *what;
		int field;	/* 0 clock, 1 hdisplay, 2 htotal, 3 flags */
		uint32_t value;
	} cases[] = {
		{ "clock above 1.2 GHz", 0, VDXG_MODE_MAX_CLOCK_KHZ + 1 },
		{ "clock 0", 0, 0 },
		{ "above 1000 Hz", 0, 500000 },	/* with htotal 400 below */
		{ "below 1 Hz", 0, 1 },
		{ "4097 pixels wide", 1, 4097 },
		{ "htotal 8193", 2, 8193 },
		{ "interlaced", 3, DRM_MODE_FLAG_INTERLACE },
	};
	struct vfb f;
	struct dt t;

	dt_open(&t);
	vfb_create(t.fd, &f, t.o.w, t.o.h, DRM_FORMAT_XRGB8888);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		drmModeModeInfo m = t.o.mode;
		drmModeAtomicReq *req = drmModeAtomicAlloc();
		uint32_t b;

		switch (cases[i].field) {
		case 0:
			m.clock = cases[i].value;
			if (m.clock == 500000) {
				/* 400 x 400 pixels at 500 MHz: 3125 Hz */
				m.hdisplay = m.hsync_start = m.hsync_end = 400;
				m.htotal = 400;
				m.vdisplay = m.vsync_start = m.vsync_end = 300;
				m.vtotal = 400;
			}
			break;
		case 1:
			m.hdisplay = m.hsync_start = m.hsync_end = cases[i].value;
			m.htotal = cases[i].value + 100;
			break;
		case 2:
			m.htotal = cases[i].value;
			break;
		default:
			m.flags |= cases[i].value;
			break;
		}
		vtest_info("%s", cases[i].what);
		/* SETCRTC checks the framebuffer covers the mode first */
		if (m.hdisplay <= f.w && m.vdisplay <= f.h)
			vtest_assert_eq(drmModeSetCrtc(t.fd, t.o.crtc_id,
						       f.fb, 0, 0,
						       &t.o.conn_id, 1, &m),
					-EINVAL);
		vtest_assert_ok(drmModeCreatePropertyBlob(t.fd, &m, sizeof(m),
							  &b));
		add(req, t.fd, t.o.crtc_id, DRM_MODE_OBJECT_CRTC, "MODE_ID", b);
		add(req, t.fd, t.o.crtc_id, DRM_MODE_OBJECT_CRTC, "ACTIVE", 1);
		add(req, t.fd, t.o.conn_id, DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID",
		    t.o.crtc_id);
		vtest_assert_eq(drmModeAtomicCommit(t.fd, req,
						    DRM_MODE_ATOMIC_TEST_ONLY |
						    DRM_MODE_ATOMIC_ALLOW_MODESET,
						    NULL), -EINVAL);
		drmModeAtomicFree(req);
		drmModeDestroyPropertyBlob(t.fd, b);
	}
	/* The output's own modes are fine */
	vtest_assert_ok(drmModeSetCrtc(t.fd, t.o.crtc_id, f.fb, 0, 0,
				       &t.o.conn_id, 1, &t.o.mode));
	vfb_destroy(t.fd, &f);
	dt_close(&t);
}

/*
 * Planes: a source rectangle of F (whole pixels), turned by ROT (DRM's
 * rotation bits) and shown DW x DH at (X, Y), by the bilinear filter or
 * the nearest pixel
 */
struct splane {
	struct vfb *f;
	uint32_t sx, sy, sw, sh;
	int32_t x, y;
	uint32_t dw, dh, rot;
	bool nearest;
};

/* The plane as the device gets it, for the reference (libvdxg) */
static struct vdxg_ref_plane sp_ref(const struct splane *p)
{
	uint32_t ctrl = p->nearest ? 0 : VDXG_PLANE_CTRL_BILINEAR;

	/* DRM's 270 is 90 and 180 together (drm_rect_rotate()) */
	if (p->rot & (DRM_MODE_ROTATE_90 | DRM_MODE_ROTATE_270))
		ctrl |= VDXG_PLANE_CTRL_ROT_90;
	if (p->rot & (DRM_MODE_ROTATE_180 | DRM_MODE_ROTATE_270))
		ctrl |= VDXG_PLANE_CTRL_ROT_180;
	if (p->rot & DRM_MODE_REFLECT_X)
		ctrl |= VDXG_PLANE_CTRL_REFLECT_X;
	if (p->rot & DRM_MODE_REFLECT_Y)
		ctrl |= VDXG_PLANE_CTRL_REFLECT_Y;
	return (struct vdxg_ref_plane){
		.data = px(p->f, p->sx, p->sy), .pitch = p->f->pitch,
		.fourcc = VDXG_FOURCC_XRGB8888, .w = p->sw, .h = p->sh,
		.dw = p->dw, .dh = p->dh, .ctrl = ctrl,
	};
}

/* The frame the plane alone gives, over the black background */
static uint32_t *sp_image(struct dt *t, const struct splane *p)
{
	uint32_t *img = calloc((size_t)t->o.w * t->o.h, 4);
	struct vdxg_ref_plane rp = sp_ref(p);

	vtest_assert(img);
	for (int64_t y = 0; y < t->o.h; y++) {
		for (int64_t x = 0; x < t->o.w; x++) {
			int64_t u = x - p->x, v = y - p->y;

			if (u >= 0 && v >= 0 && u < p->dw && v < p->dh)
				img[y * t->o.w + x] =
					vdxg_ref_plane_sample(&rp, u, v) &
					0xffffff;
		}
	}
	return img;
}

/* Commit the plane on the primary (FLAGS: e.g. TEST_ONLY); the errno */
static int sp_commit(struct dt *t, const struct splane *p, uint32_t flags)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	uint32_t plane = primary_plane(t), o = DRM_MODE_OBJECT_PLANE;
	int ret;

	add(req, t->fd, plane, o, "FB_ID", p->f->fb);
	add(req, t->fd, plane, o, "CRTC_ID", t->o.crtc_id);
	add(req, t->fd, plane, o, "SRC_X", (uint64_t)p->sx << 16);
	add(req, t->fd, plane, o, "SRC_Y", (uint64_t)p->sy << 16);
	add(req, t->fd, plane, o, "SRC_W", (uint64_t)p->sw << 16);
	add(req, t->fd, plane, o, "SRC_H", (uint64_t)p->sh << 16);
	add(req, t->fd, plane, o, "CRTC_X", (uint64_t)(int64_t)p->x);
	add(req, t->fd, plane, o, "CRTC_Y", (uint64_t)(int64_t)p->y);
	add(req, t->fd, plane, o, "CRTC_W", p->dw);
	add(req, t->fd, plane, o, "CRTC_H", p->dh);
	add(req, t->fd, plane, o, "rotation", p->rot);
	/* The enum's values: 0 "Default", 1 "Nearest Neighbor" */
	add(req, t->fd, plane, o, "SCALING_FILTER", p->nearest);
	ret = drmModeAtomicCommit(t->fd, req, flags, NULL) ? errno : 0;
	drmModeAtomicFree(req);
	return ret;
}

/* Show the plane; the screen must be the reference's */
static void sp_check(struct dt *t, struct vfb *wb, const struct splane *p,
		     const char *what)
{
	uint32_t *img = sp_image(t, p);

	vtest_info("%s: %ux%u+%u+%u of the framebuffer, rotation 0x%x, at "
		   "(%d, %d) %ux%u, %s", what, p->sw, p->sh, p->sx, p->sy,
		   p->rot, p->x, p->y, p->dw, p->dh,
		   p->nearest ? "nearest" : "bilinear");
	vtest_assert_f(sp_commit(t, p, 0) == 0, "%s: commit: %s", what,
		       strerror(errno));
	screen_check(t, wb, img, what);
	free(img);
}

static void sp_open(struct dt *t, struct vfb *f, struct vfb *wb)
{
	dt_open(t);
	vtest_require_f(prop_id(t->fd, primary_plane(t), DRM_MODE_OBJECT_PLANE,
				"SCALING_FILTER", NULL),
			"no SCALING_FILTER: the planes do not scale");
	vfb_create(t->fd, f, 320, 240, DRM_FORMAT_XRGB8888);
	vfb_create(t->fd, wb, t->o.w, t->o.h, DRM_FORMAT_XRGB8888);
	dfb_pattern(f, 7, false);
	show(t, f, &t->o.mode);
}

static void sp_close(struct dt *t, struct vfb *f, struct vfb *wb)
{
	show(t, f, &t->o.mode);
	vfb_destroy(t->fd, wb);
	vfb_destroy(t->fd, f);
	dt_close(t);
}

static void test_plane_scaling(void)
{
	struct vfb f, wb;
	struct splane p;
	struct dt t;

	sp_open(&t, &f, &wb);
	/* Up, full screen, by both filters */
	p = (struct splane){ &f, 16, 8, t.o.w / 5 + 3, t.o.h / 5 + 1, 0, 0,
			     t.o.w, t.o.h, DRM_MODE_ROTATE_0, false };
	sp_check(&t, &wb, &p, "up-bilinear");
	p.nearest = true;
	sp_check(&t, &wb, &p, "up-nearest");
	/* Down, inside, reflected */
	p = (struct splane){ &f, 0, 0, 320, 240, 100, 50, 100, 61,
			     DRM_MODE_ROTATE_0 | DRM_MODE_REFLECT_X, false };
	sp_check(&t, &wb, &p, "down-bilinear");
	/* Partly off-screen, up one way and down the other */
	p = (struct splane){ &f, 33, 17, 250, 200, -40, t.o.h - 90, 377, 181,
			     DRM_MODE_ROTATE_180, false };
	sp_check(&t, &wb, &p, "off-screen-bilinear");
	p.nearest = true;
	sp_check(&t, &wb, &p, "off-screen-nearest");

	/* Beyond the limits: 8x up and 4x down are the last that work */
	p = (struct splane){ &f, 0, 0, 16, 16, 0, 0, 16 * 8, 16,
			     DRM_MODE_ROTATE_0, false };
	vtest_assert_eq(sp_commit(&t, &p, DRM_MODE_ATOMIC_TEST_ONLY), 0);
	p.dw++;
	vtest_assert_eq(sp_commit(&t, &p, DRM_MODE_ATOMIC_TEST_ONLY), ERANGE);
	p = (struct splane){ &f, 0, 0, 320, 240, 0, 0, 80, 60,
			     DRM_MODE_ROTATE_0, false };
	vtest_assert_eq(sp_commit(&t, &p, DRM_MODE_ATOMIC_TEST_ONLY), 0);
	p.dh--;
	vtest_assert_eq(sp_commit(&t, &p, DRM_MODE_ATOMIC_TEST_ONLY), ERANGE);
	sp_close(&t, &f, &wb);
}

static void test_plane_rotation(void)
{
	static const uint32_t rots[] = {
		DRM_MODE_ROTATE_90,
		DRM_MODE_ROTATE_270,
		DRM_MODE_ROTATE_90 | DRM_MODE_REFLECT_X,
		DRM_MODE_ROTATE_270 | DRM_MODE_REFLECT_Y,
	};
	struct vfb f, wb;
	struct splane p;
	struct dt t;
	char what[64];

	sp_open(&t, &f, &wb);
	for (unsigned int i = 0; i < sizeof(rots) / sizeof(rots[0]); i++) {
		/* Unscaled: 200 x 150 of the framebuffer shows 150 x 200 */
		p = (struct splane){ &f, 10 + i, 20, 200, 150, 50 + 100 * i,
				     40, 150, 200, rots[i], false };
		snprintf(what, sizeof(what), "rotation-0x%x", rots[i]);
		sp_check(&t, &wb, &p, what);
	}
	/* Unscaled, partly off-screen: the helpers' clipped source */
	p = (struct splane){ &f, 5, 6, 300, 200, -70, t.o.h - 150, 200, 300,
			     DRM_MODE_ROTATE_90, false };
	sp_check(&t, &wb, &p, "rotation-90-clipped");
	/* Turned and scaled to the whole screen */
	p = (struct splane){ &f, 40, 0, 240, 240, 0, 0, t.o.w, t.o.h,
			     DRM_MODE_ROTATE_270, false };
	sp_check(&t, &wb, &p, "rotation-270-scaled");
	sp_close(&t, &f, &wb);
}

/* The mean vblank period over N vblanks, in microseconds */
static uint64_t vblank_period_us(struct dt *t, int n)
{
	drmVBlank vbl = {
		.request.type = DRM_VBLANK_RELATIVE |
				(t->o.head << DRM_VBLANK_HIGH_CRTC_SHIFT),
		.request.sequence = 1,
	};
	uint64_t t0, t1;

	vtest_assert_ok(drmWaitVBlank(t->fd, &vbl));
	t0 = vbl.reply.tval_sec * 1000000ull + vbl.reply.tval_usec;
	vbl.request.type = DRM_VBLANK_RELATIVE |
			   (t->o.head << DRM_VBLANK_HIGH_CRTC_SHIFT);
	vbl.request.sequence = n;
	vtest_assert_ok(drmWaitVBlank(t->fd, &vbl));
	t1 = vbl.reply.tval_sec * 1000000ull + vbl.reply.tval_usec;
	return (t1 - t0) / n;
}

static void vrr_set(struct dt *t, bool on)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();

	add(req, t->fd, t->o.crtc_id, DRM_MODE_OBJECT_CRTC, "VRR_ENABLED", on);
	vtest_assert_f(drmModeAtomicCommit(t->fd, req, 0, NULL) == 0,
		       "VRR_ENABLED=%d: %s", on, strerror(errno));
	drmModeAtomicFree(req);
}

static void test_vrr(void)
{
	drmModeConnector *c;
	char path[128], buf[64];
	uint32_t lo = 0, hi = 0;
	uint64_t frame_us, us;
	struct vfb f;
	struct dt t;
	FILE *fp;

	dt_open(&t);
	vtest_assert_eq(prop_value(t.fd, t.o.conn_id, DRM_MODE_OBJECT_CONNECTOR,
				   "vrr_capable"), 1);
	c = drmModeGetConnector(t.fd, t.o.conn_id);
	vtest_assert(c);
	snprintf(path, sizeof(path),
		 "/sys/kernel/debug/dri/%d/Virtual-%u/vrr_range",
		 vtest_drm_minor(t.fd), c->connector_type_id);
	drmModeFreeConnector(c);
	fp = fopen(path, "r");
	vtest_assert_f(fp, "%s: %s", path, strerror(errno));
	vtest_assert(fread(buf, 1, sizeof(buf) - 1, fp) > 0);
	fclose(fp);
	buf[sizeof(buf) - 1] = 0;
	vtest_assert_f(sscanf(buf, "Min: %u Max: %u", &lo, &hi) == 2,
		       "vrr_range: %s", buf);
	vtest_info("vrr_range %u-%u Hz", lo, hi);
	/* The EDID that QEMU's generator gives every output */
	vtest_assert_eq(lo, 50);
	vtest_assert_eq(hi, 125);

	vfb_create(t.fd, &f, t.o.w, t.o.h, DRM_FORMAT_XRGB8888);
	dfb_pattern(&f, 9, true);
	show(&t, &f, &t.o.mode);
	/* The mode's frame: htotal * vtotal pixels at clock kHz */
	frame_us = (uint64_t)t.o.mode.htotal * t.o.mode.vtotal * 1000 /
		   t.o.mode.clock;
	us = vblank_period_us(&t, 10);
	vtest_info("VRR off: a vblank every %" PRIu64 " us", us);
	vtest_assert_f(us > frame_us * 95 / 100 && us < frame_us * 105 / 100,
		       "VRR off: %" PRIu64 " us, the mode's is %" PRIu64, us,
		       frame_us);

	/* No flip: the vblank stretches to the lowest rate, 50 Hz */
	vrr_set(&t, true);
	vtest_assert_eq(prop_value(t.fd, t.o.crtc_id, DRM_MODE_OBJECT_CRTC,
				   "VRR_ENABLED"), 1);
	us = vblank_period_us(&t, 10);
	vtest_info("VRR on: a vblank every %" PRIu64 " us", us);
	vtest_assert_f(us > 1000000 / lo * 95 / 100 &&
		       us < 1000000 / lo * 105 / 100,
		       "VRR on: %" PRIu64 " us, not the %u Hz stretch", us, lo);

	vrr_set(&t, false);
	us = vblank_period_us(&t, 10);
	vtest_assert_f(us > frame_us * 95 / 100 && us < frame_us * 105 / 100,
		       "VRR off again: %" PRIu64 " us", us);
	vfb_destroy(t.fd, &f);
	dt_close(&t);
}

/* Damage */

/* Flip the primary plane to F, with N damage CLIPS (none: no property) */
static void damage_flip(struct dt *t, struct vfb *f,
			const struct drm_mode_rect *clips, int n)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	uint32_t plane = primary_plane(t), b = 0;

	add(req, t->fd, plane, DRM_MODE_OBJECT_PLANE, "FB_ID", f->fb);
	if (n) {
		b = blob(t->fd, clips, n * sizeof(*clips));
		add(req, t->fd, plane, DRM_MODE_OBJECT_PLANE, "FB_DAMAGE_CLIPS",
		    b);
	}
	vtest_assert_f(drmModeAtomicCommit(t->fd, req, 0, NULL) == 0,
		       "flip: %s", strerror(errno));
	drmModeAtomicFree(req);
	if (b)
		drmModeDestroyPropertyBlob(t->fd, b);
}

/*
 * The CRC and the screendump show WANT (no writeback: attaching it is a
 * modeset, after which the device composes every row again)
 */
static void damage_check(struct dt *t, const uint32_t *want, const char *what)
{
	vtest_assert_eq_u64(voutput_screen_crc(t->fd, t->o.head, what),
			    voutput_image_crc(want, t->o.w * 4, t->o.w, t->o.h));
	if (t->have_hostd)
		vtest_assert_f(screen_shows(t, what, want, t->o.w, t->o.h),
			       "%s: the screendump is not the reference", what);
}

static void test_damage_clips(void)
{
	const struct drm_mode_rect clip = { 0, 100, 37, 200 };
	uint32_t *ia, *ib, *want;
	drmModePlaneRes *pr;
	struct vfb a, b, wb;
	struct dt t;
	size_t row;

	dt_open(&t);
	pr = drmModeGetPlaneResources(t.fd);
	vtest_assert(pr);
	for (uint32_t i = 0; i < pr->count_planes; i++)
		vtest_assert_f(prop_id(t.fd, pr->planes[i], DRM_MODE_OBJECT_PLANE,
				       "FB_DAMAGE_CLIPS", NULL),
			       "plane %u has no FB_DAMAGE_CLIPS", pr->planes[i]);
	drmModeFreePlaneResources(pr);
	vtest_require_f(t.o.h > 200, "a mode of %u lines", t.o.h);
	vfb_create(t.fd, &a, t.o.w, t.o.h, DRM_FORMAT_XRGB8888);
	vfb_create(t.fd, &b, t.o.w, t.o.h, DRM_FORMAT_XRGB8888);
	vfb_create(t.fd, &wb, t.o.w, t.o.h, DRM_FORMAT_XRGB8888);
	dfb_pattern(&a, 11, false);
	dfb_pattern(&b, 12, false);
	ia = dfb_image(&a);
	ib = dfb_image(&b);
	want = malloc((size_t)t.o.w * t.o.h * 4);
	vtest_assert(want);
	row = t.o.w;

	/* B, then A: the device has looked at B's memory since it was written */
	show(&t, &b, &t.o.mode);
	damage_check(&t, ib, "b");
	damage_flip(&t, &a, NULL, 0);
	damage_check(&t, ia, "a");

	/*
	 * B again, saying that only rows 100 to 199 changed: a promise broken
	 * on purpose, so the frame shows which rows the device composed.
	 */
	damage_flip(&t, &b, &clip, 1);
	memcpy(want, ia, row * t.o.h * 4);
	memcpy(want + 100 * row, ib + 100 * row, 100 * row * 4);
	damage_check(&t, want, "b-rows-100-199");

	/* Without FB_DAMAGE_CLIPS, a flip changes the whole plane */
	damage_flip(&t, &a, NULL, 0);
	screen_check(&t, &wb, ia, "a-no-clips");

	free(want);
	free(ib);
	free(ia);
	vfb_destroy(t.fd, &wb);
	vfb_destroy(t.fd, &b);
	vfb_destroy(t.fd, &a);
	dt_close(&t);
}

static const struct vtest_subtest subtests[] = {
	{ "async-flip", test_async_flip,
	  "an async flip is on screen before the next vblank" },
	{ "color-degamma", test_color_degamma,
	  "DEGAMMA_LUT: CRC, screendump and writeback are the reference's" },
	{ "color-ctm", test_color_ctm,
	  "CTM: CRC, screendump and writeback are the reference's" },
	{ "color-gamma", test_color_gamma,
	  "GAMMA_LUT: CRC, screendump and writeback are the reference's" },
	{ "color-pipeline", test_color_pipeline,
	  "all three stages: CRC, screendump and writeback" },
	{ "color-legacy-gamma", test_color_legacy_gamma,
	  "the legacy gamma ioctl sets GAMMA_LUT" },
	{ "color-invalid", test_color_invalid,
	  "LUTs and CTMs of the wrong size fail with EINVAL" },
	{ "hotplug", test_hotplug,
	  "unplug and replug: uevents, connector state, the output's EDID" },
	{ "link-status", test_link_status,
	  "a failed link: uevent, link-status BAD, retrained by a modeset" },
	{ "invalid-modes", test_invalid_modes,
	  "modes the device cannot show fail with EINVAL" },
	{ "plane-scaling", test_plane_scaling,
	  "scaled planes, bilinear and nearest: CRC, screendump, writeback" },
	{ "plane-rotation", test_plane_rotation,
	  "planes turned by 90 and 270: CRC, screendump, writeback" },
	{ "vrr", test_vrr,
	  "vrr_capable and vrr_range from the EDID; the vblank stretches" },
	{ "damage-clips", test_damage_clips,
	  "FB_DAMAGE_CLIPS on every plane; a flip recomposes only their rows" },
};

VTEST_MAIN(subtests)
