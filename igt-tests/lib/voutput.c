// SPDX-License-Identifier: MIT
/* voutput: see voutput.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

uint32_t voutput_crtc_fb(int fd, uint32_t crtc_id)
{
	drmModeCrtc *c = drmModeGetCrtc(fd, crtc_id);
	uint32_t fb;

	vtest_assert_f(c, "GetCrtc %u: %s", crtc_id, strerror(errno));
	fb = c->buffer_id;
	drmModeFreeCrtc(c);
	return fb;
}

bool voutput_read_event(int fd, struct drm_event_vblank *ev, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;
	int r;

	do {
		r = poll(&p, 1, timeout_ms);
	} while (r < 0 && errno == EINTR);
	vtest_assert_f(r >= 0, "poll: %s", strerror(errno));
	if (!r)
		return false;
	n = read(fd, ev, sizeof(*ev));
	vtest_assert_f(n == sizeof(*ev), "read of an event: %zd (%s)", n,
		       n < 0 ? strerror(errno) : "short");
	return true;
}

/* ------------------------------------------------------------------ CRC */

uint32_t voutput_crc32(uint32_t crc, const void *p, size_t n)
{
	static uint32_t table[256];
	const uint8_t *b = p;
	uint32_t c = crc ^ 0xffffffff;
	size_t i;

	if (!table[1]) {
		for (i = 0; i < 256; i++) {
			uint32_t v = i;
			int k;

			for (k = 0; k < 8; k++)
				v = v & 1 ? 0xedb88320 ^ (v >> 1) : v >> 1;
			table[i] = v;
		}
	}
	for (i = 0; i < n; i++)
		c = table[(c ^ b[i]) & 0xff] ^ (c >> 8);
	return c ^ 0xffffffff;
}

uint32_t voutput_image_crc(const void *map, uint32_t pitch, uint32_t w,
			   uint32_t h)
{
	uint32_t *row = malloc((size_t)w * 4), crc = 0, x, y;

	vtest_assert(row);
	for (y = 0; y < h; y++) {
		const uint32_t *src = (const uint32_t *)((const uint8_t *)map +
							 (size_t)y * pitch);

		for (x = 0; x < w; x++)
			row[x] = src[x] & 0x00ffffff;
		crc = voutput_crc32(crc, row, (size_t)w * 4);
	}
	free(row);
	return crc;
}

/* As long as VR_WAIT_NS, the guard of every GPU wait. */
#define VOUTPUT_CRC_WAIT_MS	30000

static void crc_path(int fd, int head, const char *leaf, char *buf,
		     size_t len)
{
	snprintf(buf, len, "/sys/kernel/debug/dri/%d/crtc-%d/crc/%s",
		 vtest_drm_minor(fd), head, leaf);
}

uint32_t voutput_screen_crc(int fd, int head, const char *what)
{
	char path[128], line[64];
	uint32_t prev = 0, crc = 0, frame = 0, last_frame = 0;
	int dfd, i, ret;

	crc_path(fd, head, "control", path, sizeof(path));
	vtest_require_f(vtest_path_exists(path), "no CRC debugfs (%s)", path);
	ret = vtest_write_file(path, "auto");
	vtest_assert_f(ret == 0, "%s: %s", path, strerror(-ret));
	crc_path(fd, head, "data", path, sizeof(path));
	dfd = open(path, O_RDONLY | O_CLOEXEC);
	vtest_assert_f(dfd >= 0, "%s: %s", path, strerror(errno));

	for (i = 0; i < 20; i++) {
		struct pollfd p = { .fd = dfd, .events = POLLIN };
		char *end;
		ssize_t n;

		/* A line a frame: a hang guard, not a time. */
		ret = poll(&p, 1, VOUTPUT_CRC_WAIT_MS);
		vtest_assert_f(ret == 1, "%s: no CRC for %d s", what,
			       VOUTPUT_CRC_WAIT_MS / 1000);
		n = read(dfd, line, sizeof(line) - 1);
		vtest_assert_f(n > 0, "reading %s: %s", path,
			       n ? strerror(errno) : "end of file");
		line[n] = 0;
		frame = strtoul(line, &end, 16);
		vtest_assert_f(end != line && *end == ' ',
			       "bad CRC line '%s'", line);
		crc = strtoul(end + 1, NULL, 16);
		if (i)
			vtest_assert_f(frame > last_frame,
				       "frame %u after %u", frame, last_frame);
		last_frame = frame;
		if (i >= 2 && crc == prev)
			break;
		prev = crc;
	}
	close(dfd);
	vtest_assert_f(i < 20, "%s: the CRC never settled", what);
	vtest_info("%s: CRC 0x%08x (frame %u)", what, crc, frame);
	return crc;
}

void vfb_create(int fd, struct vfb *f, uint32_t w, uint32_t h,
		uint32_t format)
{
	struct drm_mode_create_dumb c = { .width = w, .height = h, .bpp = 32 };
	struct drm_mode_map_dumb m = { 0 };
	uint32_t handles[4] = { 0 }, pitches[4] = { 0 }, offsets[4] = { 0 };

	vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &c));
	f->handle = c.handle;
	f->pitch = c.pitch;
	f->size = c.size;
	f->w = w;
	f->h = h;
	f->format = format;
	m.handle = c.handle;
	vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &m));
	f->map = mmap(NULL, f->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		      m.offset);
	vtest_assert(f->map != MAP_FAILED);
	handles[0] = f->handle;
	pitches[0] = f->pitch;
	vtest_assert_f(drmModeAddFB2(fd, w, h, format, handles, pitches,
				     offsets, &f->fb, 0) == 0,
		       "ADDFB2 %ux%u: %s", w, h, strerror(errno));
}

void vfb_destroy(int fd, struct vfb *f)
{
	struct drm_mode_destroy_dumb d = { .handle = f->handle };

	drmModeRmFB(fd, f->fb);
	munmap(f->map, f->size);
	vtest_ioctl(fd, DRM_IOCTL_MODE_DESTROY_DUMB, &d);
}
