// SPDX-License-Identifier: MIT
/*
 * vdxg_crc: the display's CRCs (debugfs dri/N/crtc-K/crc) carry the
 * number of the frame they describe.
 *
 * The device composes a large frame (more than about 2 million pixels of
 * work) in slices, after the vblank, and stores its CRC and CRC_FRAME when
 * the frame is done (docs/hardware.md); the driver sees that CRC at a
 * later vblank interrupt. Each CRC must still be reported with the vblank
 * count of its own frame, as IGT matches CRCs to frames by that number.
 *
 *   late-frame  a large mode, the framebuffer kept dirty by a writer
 *               so that every frame is composed again and every CRC comes
 *               late; a page flip from A to B: every CRC of a frame
 *               before the flip's event sequence is A's, every one from
 *               it on B's
 *   restart     CRCs started, stopped, a flip, started again, three
 *               times: the first CRC after each start is the frame now
 *               shown, not the last one from before the stop
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "voutput.h"
#include "vtest.h"

struct crc_fb {
	struct vfb v;
	uint32_t crc;
};

static void fb_create(int fd, struct crc_fb *f, uint32_t w, uint32_t h,
		      uint32_t xrgb)
{
	uint64_t i;

	vfb_create(fd, &f->v, w, h, DRM_FORMAT_XRGB8888);
	for (i = 0; i < f->v.size / 4; i++)
		f->v.map[i] = xrgb;
	f->crc = voutput_image_crc(f->v.map, f->v.pitch, w, h);
}

/* The writer: the same value into both framebuffers, over and over */
struct dirtier {
	struct crc_fb *fb[2];
	volatile int stop;
};

static void *dirty_loop(void *arg)
{
	struct dirtier *d = arg;
	unsigned int i;

	while (!d->stop) {
		for (i = 0; i < 2; i++) {
			volatile uint32_t *p = d->fb[i]->v.map;

			p[0] = p[0];
		}
		usleep(1000);
	}
	return NULL;
}

/*
 * A mode whose frame the device composes in slices: a full-screen plane
 * and the frame are more than 2 million pixels of work. The connector's
 * largest mode if it is such a one, else 2048x1152 at 60 Hz.
 */
static drmModeModeInfo large_mode(int fd, uint32_t conn_id)
{
	static const drmModeModeInfo big = {
		.clock = 146160,
		.hdisplay = 2048, .hsync_start = 2056, .hsync_end = 2064,
		.htotal = 2100,
		.vdisplay = 1152, .vsync_start = 1153, .vsync_end = 1156,
		.vtotal = 1160,
		.vrefresh = 60,
		.type = DRM_MODE_TYPE_USERDEF,
		.name = "2048x1152",
	};
	drmModeConnector *c = drmModeGetConnector(fd, conn_id);
	drmModeModeInfo best;
	int i;

	vtest_assert(c && c->count_modes);
	best = c->modes[0];
	for (i = 1; i < c->count_modes; i++)
		if ((uint64_t)c->modes[i].hdisplay * c->modes[i].vdisplay >
		    (uint64_t)best.hdisplay * best.vdisplay)
			best = c->modes[i];
	drmModeFreeConnector(c);
	if ((uint64_t)best.hdisplay * best.vdisplay * 2 <= 2 * 1024 * 1024)
		best = big;
	return best;
}

static void crc_path(int fd, int head, const char *leaf, char *buf,
		     size_t len)
{
	snprintf(buf, len, "/sys/kernel/debug/dri/%d/crtc-%d/crc/%s",
		 vtest_drm_minor(fd), head, leaf);
}

/* The next CRC line of DFD; false after 5 s without one */
static bool next_crc(int dfd, uint32_t *frame, uint32_t *crc)
{
	struct pollfd p = { .fd = dfd, .events = POLLIN };
	char line[64], *end;
	ssize_t n;

	if (poll(&p, 1, 5000) != 1)
		return false;
	n = read(dfd, line, sizeof(line) - 1);
	vtest_assert_f(n > 0, "reading CRCs: %s",
		       n ? strerror(errno) : "end of file");
	line[n] = 0;
	*frame = strtoul(line, &end, 16);
	vtest_assert_f(end != line && *end == ' ', "bad CRC line '%s'", line);
	*crc = strtoul(end + 1, NULL, 16);
	return true;
}

/*
 * Open vdxg, and show A, one of two framebuffers of colours XA and XB
 * (A and B), full screen in a large mode on the first output O.
 */
static int crc_setup(struct voutput *o, struct crc_fb *a, struct crc_fb *b,
		     uint32_t xa, uint32_t xb)
{
	drmModeModeInfo mode;
	int fd;

	fd = vtest_drm_open_driver("vdxg", VTEST_NODE_CARD, NULL);
	vtest_require_f(fd >= 0, "no vdxg card node");
	voutput_find(fd, o);
	mode = large_mode(fd, o->conn_id);
	vtest_info("mode %ux%u@%u", mode.hdisplay, mode.vdisplay,
		   mode.vrefresh);
	fb_create(fd, a, mode.hdisplay, mode.vdisplay, xa);
	fb_create(fd, b, mode.hdisplay, mode.vdisplay, xb);
	vtest_assert(a->crc != b->crc);
	vtest_assert_f(drmModeSetCrtc(fd, o->crtc_id, a->v.fb, 0, 0,
				      &o->conn_id, 1, &mode) == 0,
		       "SetCrtc: %s", strerror(errno));
	return fd;
}

/* Open CRTC HEAD's CRC data, with CRCs on ("auto") */
static int crc_open(int fd, int head)
{
	char path[128];
	int dfd;

	crc_path(fd, head, "control", path, sizeof(path));
	vtest_require_f(vtest_path_exists(path), "no CRC debugfs (%s)", path);
	vtest_assert_eq(vtest_write_file(path, "auto"), 0);
	crc_path(fd, head, "data", path, sizeof(path));
	dfd = open(path, O_RDONLY | O_CLOEXEC);
	vtest_assert_f(dfd >= 0, "%s: %s", path, strerror(errno));
	return dfd;
}

static void test_late_frame(void)
{
	struct crc_fb a, b;
	struct dirtier d = { .fb = { &a, &b } };
	struct drm_event_vblank ev;
	struct voutput o;
	uint32_t frame, crc, last = 0, seq;
	int dfd, i, seen_a = 0, seen_b = 0, late = 0;
	pthread_t thr;
	int fd;

	fd = crc_setup(&o, &a, &b, 0x00204080, 0x00c0a060);
	dfd = crc_open(fd, o.head);
	vtest_assert_eq(pthread_create(&thr, NULL, dirty_loop, &d), 0);

	/* A settled: a few of its CRCs */
	for (i = 0; i < 200 && seen_a < 5; i++) {
		vtest_assert_f(next_crc(dfd, &frame, &crc), "no CRC for 5 s");
		seen_a = crc == a.crc ? seen_a + 1 : 0;
	}
	vtest_assert_f(seen_a >= 5, "A's CRC 0x%08x never settled (0x%08x)",
		       a.crc, crc);

	vtest_assert_f(drmModePageFlip(fd, o.crtc_id, b.v.fb,
				       DRM_MODE_PAGE_FLIP_EVENT, NULL) == 0,
		       "PageFlip: %s", strerror(errno));
	vtest_assert_f(voutput_read_event(fd, &ev, 5000),
		       "no flip event for 5 s");
	seq = ev.sequence;
	vtest_info("flip to B completed at vblank %u", seq);

	/* Every CRC around the flip: A's before seq, B's from it */
	seen_a = seen_b = 0;
	for (i = 0; i < 200 && seen_b < 10; i++) {
		vtest_assert_f(next_crc(dfd, &frame, &crc), "no CRC for 5 s");
		if (last && frame != last + 1)
			late++;
		last = frame;
		vtest_info("frame %u: CRC 0x%08x (%s)", frame, crc,
			   crc == a.crc ? "A" : crc == b.crc ? "B" : "?");
		if (frame < seq) {
			vtest_assert_f(crc == a.crc, "frame %u (before the "
				       "flip at %u): CRC 0x%08x, A's 0x%08x",
				       frame, seq, crc, a.crc);
			seen_a++;
		} else {
			vtest_assert_f(crc == b.crc, "frame %u (the flip's %u "
				       "or later): CRC 0x%08x, B's 0x%08x",
				       frame, seq, crc, b.crc);
			seen_b++;
		}
	}
	vtest_assert(seen_b >= 10);
	vtest_info("%d CRCs of A before the flip, %d of B; %d gaps", seen_a,
		   seen_b, late);

	d.stop = 1;
	pthread_join(thr, NULL);
	close(dfd);
	close(fd);
}

/*
 * CRCs stopped and started again over a flip: the first CRC after the
 * start is the new frame's, though the device composes it late and its
 * CRC registers still hold the last CRC from before the stop.
 */
static void test_restart(void)
{
	struct drm_event_vblank ev;
	struct crc_fb a, b;
	struct voutput o;
	uint32_t frame, crc;
	int fd, dfd, i, n;

	fd = crc_setup(&o, &a, &b, 0x00306090, 0x00907050);

	for (i = 0; i < 3; i++) {
		struct crc_fb *f = i & 1 ? &b : &a;

		dfd = crc_open(fd, o.head);
		for (n = 0; n < 3; n++) {
			vtest_assert_f(next_crc(dfd, &frame, &crc),
				       "no CRC for 5 s");
			vtest_assert_f(crc == f->crc, "round %d, CRC %d after "
				       "the start (frame %u): 0x%08x, want "
				       "0x%08x", i, n, frame, crc, f->crc);
		}
		close(dfd);
		/* Flip with CRCs off, to the other one */
		f = i & 1 ? &a : &b;
		vtest_assert_f(drmModePageFlip(fd, o.crtc_id, f->v.fb,
					       DRM_MODE_PAGE_FLIP_EVENT,
					       NULL) == 0,
			       "PageFlip: %s", strerror(errno));
		vtest_assert_f(voutput_read_event(fd, &ev, 5000),
			       "no flip event for 5 s");
	}
	close(fd);
}

static const struct vtest_subtest subtests[] = {
	{ "late-frame", test_late_frame,
	  "CRCs composed after their vblank carry their own frame number" },
	{ "restart", test_restart,
	  "after CRCs stop and start again, the first is the frame's" },
};

VTEST_MAIN(subtests)
