// SPDX-License-Identifier: MIT
/*
 * vdxg_present: DRM_IOCTL_VDXG_PRESENT, checked on the screen.
 *
 * A scene (fills, Gouraud triangles, an ARGB8888 sprite blended twice) is
 * rendered by the RENDER engine through libvdxg and, on the CPU, by the
 * reference renderer (vdxg_ref). Then:
 *
 * - blit-scanout: the scene is BLIT-presented into the framebuffer being
 *   scanned out (a GEM object made a framebuffer with ADDFB2 and shown
 *   with SetCrtc); after the out-syncobj signals, the object is read back
 *   and the screen is dumped by the host (QMP screendump), both compared
 *   pixel-exactly with the reference. The screen is dumped before the
 *   blit too, and must show the framebuffer's first content.
 * - flip: the scene is blitted into a second framebuffer (padded pitch,
 *   non-zero offset), FLIP-presented with an event and an out-syncobj: the
 *   event's user data and CRTC, the fence, the CRTC's framebuffer and the
 *   screen are checked; then a flip back without an event, on its fence.
 * - clip-rects, clip-rects-rgb565: blits between GEM objects with a
 *   destination offset and clip rectangles reaching past the destination
 *   and the source; the whole destination object is compared with the
 *   reference, so that any pixel written outside the clips is caught
 *   (the second on the render node, with a format conversion).
 * - blit-overlap: source and destination overlapping in one object, by
 *   handles and as one framebuffer (owned by a non-master client).
 * - blit-waits-for-render, flip-waits-for-blit: implicit sync, with the
 *   job the present depends on held on the ring by a WAIT: a blit waits
 *   for another context writing its source; a flip waits for the blit
 *   into its framebuffer (no event, no fence until then) and then shows
 *   the whole scene.
 * - flip-busy: a flip while one is pending fails with EBUSY and leaves no
 *   event or fence; the pending one completes.
 * - bad-*: one invalid PRESENT per subtest, with its errno; nothing must
 *   have been written or flipped, and a valid blit and a valid flip must
 *   work afterwards.
 *
 * The screen checks need the host channel of scripts/vm.sh (the kernel
 * command line's vdxgvm.hostd=ttySn, see scripts/vm-hostd.py): without it
 * the subtests that need a screendump skip after their other checks. The
 * test takes DRM master and sets its own mode and framebuffer on the first
 * connected connector's CRTC, so fbcon does not interfere.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "vhostd.h"
#include "voutput.h"
#include "vrender.h"

#define SEC		1000000000ll

/* ------------------------------------------------------------ frames */

struct frame {
	uint32_t w, h;
	const uint8_t *rgb;	/* into the PPM */
	uint8_t *ppm;
};

static bool ppm_number(const uint8_t *p, size_t n, size_t *i, uint32_t *v)
{
	uint64_t x = 0;
	bool any = false;

	for (;;) {	/* whitespace and comments */
		while (*i < n && strchr(" \t\r\n", p[*i]))
			(*i)++;
		if (*i < n && p[*i] == '#') {
			while (*i < n && p[*i] != '\n')
				(*i)++;
			continue;
		}
		break;
	}
	while (*i < n && p[*i] >= '0' && p[*i] <= '9' && x < (1u << 30)) {
		x = x * 10 + (p[(*i)++] - '0');
		any = true;
	}
	*v = x;
	return any;
}

static void frame_parse(struct frame *f, uint8_t *ppm, size_t n)
{
	uint32_t maxval;
	size_t i = 2;

	vtest_assert_f(n > 2 && ppm[0] == 'P' && ppm[1] == '6',
		       "screendump is not a binary PPM");
	vtest_assert(ppm_number(ppm, n, &i, &f->w));
	vtest_assert(ppm_number(ppm, n, &i, &f->h));
	vtest_assert(ppm_number(ppm, n, &i, &maxval));
	vtest_assert_eq(maxval, 255);
	/* Exactly one whitespace byte before the pixels. */
	i++;
	vtest_assert_f(n - i == (size_t)f->w * f->h * 3,
		       "PPM of %ux%u has %zu pixel bytes", f->w, f->h, n - i);
	f->rgb = ppm + i;
	f->ppm = ppm;
}

static void frame_free(struct frame *f)
{
	free(f->ppm);
	memset(f, 0, sizeof(*f));
}

/* Write an XRGB8888 surface as a PPM, for a human to look at. */
static void save_ppm(const char *path, const struct vdxg_ref_surface *r)
{
	FILE *f = fopen(path, "w");
	uint32_t x, y;

	if (!f)
		return;
	fprintf(f, "P6\n%u %u\n255\n", r->width, r->height);
	for (y = 0; y < r->height; y++)
		for (x = 0; x < r->width; x++) {
			uint32_t p = vdxg_ref_read(r, x, y);

			fputc(p >> 16 & 0xff, f);
			fputc(p >> 8 & 0xff, f);
			fputc(p & 0xff, f);
		}
	fclose(f);
}

/*
 * The screen must be EXP (read as ARGB by the reference renderer) pixel
 * for pixel, in R, G and B.
 */
static void frame_check(const struct frame *f, const struct vdxg_ref_surface *exp,
			const char *what)
{
	uint64_t bad = 0;
	uint32_t x, y;

	vtest_assert_f(f->w == exp->width && f->h == exp->height,
		       "%s: the screen is %ux%u, expected %ux%u", what, f->w,
		       f->h, exp->width, exp->height);
	for (y = 0; y < f->h; y++) {
		for (x = 0; x < f->w; x++) {
			const uint8_t *p = f->rgb + ((size_t)y * f->w + x) * 3;
			uint32_t got = (uint32_t)p[0] << 16 | p[1] << 8 | p[2];
			uint32_t want = vdxg_ref_read(exp, x, y) & 0xffffff;

			if (got == want)
				continue;
			if (bad++ < 8)
				printf("%s: screen pixel (%u, %u): got 0x%06x, "
				       "expected 0x%06x\n", what, x, y, got,
				       want);
		}
	}
	if (bad) {
		char path[PATH_MAX];

		if (vtest_path_exists("/tmp/igt/collect")) {
			snprintf(path, sizeof(path),
				 "/tmp/igt/collect/vdxg_present-%s-expected.ppm",
				 what);
			save_ppm(path, exp);
			vtest_info("expected image saved as %s", path);
		}
		vtest_fail("%s: %" PRIu64 " of %u pixels on the screen differ "
			   "from the reference (first ones above)", what, bad,
			   f->w * f->h);
	}
	vtest_info("%s: the screen (%ux%u) matches the reference", what, f->w,
		   f->h);
}

/* -------------------------------------------------------------- setup */

struct pt {
	struct vr vr;		/* on the card node: dev, fd (master) */
	uint32_t ctx;
	uint64_t rng;
	uint64_t kmsg;
	/* KMS */
	uint32_t crtc_id, conn_id;
	int head;		/* the CRTC's index: the console head */
	drmModeModeInfo mode;
	uint32_t w, h;
	/* Host channel */
	struct vhostd hostd;
	bool have_hostd;
};

static void pt_open_node(struct pt *t, enum vtest_node node)
{
	struct vdxg_device *dev = NULL;
	int fd, ret;

	memset(t, 0, sizeof(*t));
	t->hostd.fd = -1;
	fd = vtest_drm_open_driver("vdxg", node, NULL);
	if (fd < 0)
		vtest_skip("no vdxg %s node",
			   node == VTEST_NODE_CARD ? "card" : "render");
	ret = vdxg_device_open_fd(fd, &dev);
	close(fd);
	vtest_assert_f(ret == 0, "vdxg_device_open_fd: %s", strerror(-ret));
	vr_open_dev(&t->vr, dev);
	t->ctx = vr_ctx(&t->vr);
	t->rng = vr_seed();
	t->kmsg = vtest_kmsg_seq();
}

/* The card node: KMS, and DRM master once pt_kms() has run. */
static void pt_open(struct pt *t)
{
	pt_open_node(t, VTEST_NODE_CARD);
}

static void pt_close(struct pt *t)
{
	int n = vtest_kmsg_problems(t->kmsg);

	vtest_assert_f(n == 0, "%d kernel log problem(s)", n);
	vhostd_close(&t->hostd);
	vdxg_context_destroy(t->vr.dev, t->ctx);
	vr_close(&t->vr);
}

/* DRM master, the first connected connector, its CRTC and mode. */
static void pt_kms(struct pt *t)
{
	struct voutput o;

	voutput_find(t->vr.fd, &o);
	t->crtc_id = o.crtc_id;
	t->conn_id = o.conn_id;
	t->head = o.head;
	t->mode = o.mode;
	t->w = o.w;
	t->h = o.h;
	t->have_hostd = vhostd_open(&t->hostd);
	if (!t->have_hostd)
		vtest_info("no host channel (vdxgvm.hostd): no screendumps");
}

/* A framebuffer over a vr_buf surface. */
static uint32_t add_fb(struct pt *t, const struct vr_surf *s)
{
	uint32_t handles[4] = { s->buf->bo->handle };
	uint32_t pitches[4] = { s->pitch };
	uint32_t offsets[4] = { s->offset };
	uint32_t fb = 0;

	vtest_assert_f(s->format == VDXG_FMT_XRGB8888, "fb format");
	vtest_assert_f(drmModeAddFB2(t->vr.fd, s->width, s->height,
				     DRM_FORMAT_XRGB8888, handles, pitches,
				     offsets, &fb, 0) == 0,
		       "ADDFB2 %ux%u pitch %u offset %u: %s", s->width,
		       s->height, s->pitch, s->offset, strerror(errno));
	return fb;
}

static void set_crtc(struct pt *t, uint32_t fb)
{
	vtest_assert_f(drmModeSetCrtc(t->vr.fd, t->crtc_id, fb, 0, 0,
				      &t->conn_id, 1, &t->mode) == 0,
		       "SetCrtc of fb %u: %s", fb, strerror(errno));
}

static uint32_t crtc_fb(struct pt *t)
{
	return voutput_crtc_fb(t->vr.fd, t->crtc_id);
}

/* Screendump of our CRTC compared with EXP; skips without the channel. */
/*
 * The length and CRC-32 of the PPM that QEMU's screendump writes of a
 * screen showing R ("P6\nW H\n255\n", then RGB bytes).
 */
static uint32_t ppm_crc(const struct vdxg_ref_surface *r, size_t *len)
{
	uint8_t *row = malloc((size_t)r->width * 3);
	char hdr[64];
	uint32_t crc, x, y;
	int n;

	vtest_assert(row);
	n = snprintf(hdr, sizeof(hdr), "P6\n%u %u\n255\n", r->width,
		     r->height);
	crc = vhostd_crc32(0, hdr, n);
	for (y = 0; y < r->height; y++) {
		for (x = 0; x < r->width; x++) {
			uint32_t c = vdxg_ref_read(r, x, y);

			row[x * 3] = c >> 16;
			row[x * 3 + 1] = c >> 8;
			row[x * 3 + 2] = c;
		}
		crc = vhostd_crc32(crc, row, (size_t)r->width * 3);
	}
	free(row);
	*len = n + (size_t)r->width * r->height * 3;
	return crc;
}

/*
 * The screen must show EXP, every pixel. The host's CRC of its screendump
 * says so in a few bytes; when it does not, the picture itself comes
 * through the 16550 (a minute for a scene on the debug kernel) and the
 * pixels that differ are printed.
 */
static void screen_check(struct pt *t, const struct vr_surf *exp,
			 const char *what)
{
	struct vdxg_ref_surface r = vr_ref(exp);
	size_t len, want_len;
	uint32_t crc, want_crc;
	struct frame f;
	uint8_t *ppm;

	if (!t->have_hostd)
		vtest_skip("%s: no host channel for a screendump "
			   "(vdxgvm.hostd on the kernel command line)", what);
	want_crc = ppm_crc(&r, &want_len);
	vhostd_screendump_crc(&t->hostd, what, t->head, &len, &crc);
	if (len == want_len && crc == want_crc) {
		vtest_info("%s: the screen (%ux%u) matches the reference "
			   "(CRC %08x)", what, r.width, r.height, crc);
		return;
	}
	vtest_info("%s: the screendump's length %zu and CRC %08x are not the "
		   "reference's %zu and %08x: fetching it", what, len, crc,
		   want_len, want_crc);
	ppm = vhostd_screendump(&t->hostd, what, t->head, &len);
	frame_parse(&f, ppm, len);
	frame_check(&f, &r, what);
	frame_free(&f);
}

/* A CPU-drawn pattern: bands and a gradient, nothing like the scene. */
static void cpu_pattern(struct vr_surf *s, uint32_t seed)
{
	struct vdxg_ref_surface r = vr_ref(s);
	uint32_t x, y;

	for (y = 0; y < s->height; y++)
		for (x = 0; x < s->width; x++) {
			uint32_t c = ((x / 32 + y / 32) & 1) ? 0x00c0c0c0 :
				     (x * 255 / s->width) << 16 |
				     (y * 255 / s->height) << 8 | (seed & 0xff);

			vdxg_ref_write(&r, x, y, 0xff000000 | c);
		}
	memcpy(s->buf->map, s->buf->ref, s->buf->size);
}

/* ------------------------------------------------------------- scene */

struct scene {
	struct vr_buf buf, sprite_buf, vb;
	struct vr_surf s, sprite;
};

static struct vr_vertex vtx(int32_t x, int32_t y, uint32_t c)
{
	struct vr_vertex v = { x, y, 0, c, 0, 0, { 0, 0 } };

	return v;
}

/* FILL_RECT on the GPU and in the reference. */
static void fill(struct vdxg_cs *cs, struct vdxg_ref_surface *r, uint32_t x,
		 uint32_t y, uint32_t w, uint32_t h, uint32_t argb)
{
	vdxg_cs_fill_rect(cs, x, y, w, h, argb);
	vdxg_ref_fill_rect(r, x, y, w, h, argb);
}

/*
 * Render the scene, W x H XRGB8888 in SEGMENT, on the GPU and in the
 * reference; check the GPU's result.
 */
static void scene_render(struct pt *t, struct scene *sc, uint32_t w,
			 uint32_t h, uint32_t segment)
{
	struct vdxg_ref_surface rd, rsp;
	struct vr_vertex v[36];
	struct vdxg_cs *cs = vr_cs();
	uint32_t i, n = 0, sw = 128, shh = 96;

	memset(sc, 0, sizeof(*sc));
	vr_buf_init(&t->vr, &sc->buf, (uint64_t)w * h * 4 + 4096, segment);
	vr_buf_randomize(&sc->buf, &t->rng);
	sc->s = vr_surf(&sc->buf, 0, VDXG_FMT_XRGB8888, w, h);
	vr_buf_init(&t->vr, &sc->sprite_buf, 64 << 10,
		    segment == DRM_VDXG_SEGMENT_VRAM ?
		    DRM_VDXG_SEGMENT_APERTURE : DRM_VDXG_SEGMENT_VRAM);
	sc->sprite = vr_surf(&sc->sprite_buf, 0, VDXG_FMT_ARGB8888, sw, shh);
	vr_buf_init(&t->vr, &sc->vb, 64 << 10, DRM_VDXG_SEGMENT_VRAM);
	rd = vr_ref(&sc->s);
	rsp = vr_ref(&sc->sprite);

	/* The sprite: translucent rectangles in ARGB8888. */
	vr_cs_surface(cs, VDXG_SLOT_DST, &sc->sprite);
	fill(cs, &rsp, 0, 0, sw, shh, 0x80ff2000);
	fill(cs, &rsp, 16, 12, 64, 48, 0xff00e040);
	fill(cs, &rsp, 56, 40, 64, 48, 0x402040ff);
	fill(cs, &rsp, 100, 0, 28, 20, 0x00ffffff);

	/* The scene: background, bands, triangles, the sprite twice. */
	vr_cs_surface(cs, VDXG_SLOT_DST, &sc->s);
	fill(cs, &rd, 0, 0, w, h, 0xff102030);
	for (i = 0; i < 6; i++) {
		uint32_t x = vr_rand(&t->rng) % (w - 64);
		uint32_t y = vr_rand(&t->rng) % (h - 48);
		uint32_t fw = 1 + vr_rand(&t->rng) % (w - x);
		uint32_t fh = 1 + vr_rand(&t->rng) % (h - y);
		uint32_t c = vr_rand(&t->rng);

		fill(cs, &rd, x, y, fw, fh, c);
	}
	for (i = 0; i < 12; i++) {
		int k;

		for (k = 0; k < 3; k++)
			v[n++] = vtx(vr_rand_range(&t->rng, -32 * 16,
						   (w + 32) * 16),
				     vr_rand_range(&t->rng, -32 * 16,
						   (h + 32) * 16),
				     vr_rand(&t->rng));
	}
	memcpy(sc->vb.map, v, n * sizeof(v[0]));
	memcpy(sc->vb.ref, v, n * sizeof(v[0]));
	vdxg_cs_draw_triangles(cs, 0, n, sc->vb.bo, 0, 0);
	vdxg_ref_draw_triangles(&rd, NULL, NULL, 0, (const uint32_t *)v, n);

	vr_cs_surface(cs, VDXG_SLOT_SRC, &sc->sprite);
	vdxg_cs_blend(cs, 0, 0, w / 2 - sw / 2, h / 2 - shh / 2, sw, shh, 200);
	vdxg_ref_blend(&rd, &rsp, 0, 0, w / 2 - sw / 2, h / 2 - shh / 2, sw,
		       shh, 200);
	vdxg_cs_blend(cs, 8, 8, 10, h - shh, sw - 8, shh - 8, 255);
	vdxg_ref_blend(&rd, &rsp, 8, 8, 10, h - shh, sw - 8, shh - 8, 255);

	vr_submit(&t->vr, t->ctx, cs, NULL);
	vr_bo_wait(sc->buf.bo);
	vr_buf_check(&sc->buf, &sc->s, 1, "scene");
	vr_buf_check(&sc->sprite_buf, &sc->sprite, 1, "sprite");
	vdxg_cs_free(cs);
}

static void scene_fini(struct scene *sc)
{
	vr_buf_fini(&sc->vb);
	vr_buf_fini(&sc->sprite_buf);
	vr_buf_fini(&sc->buf);
}

/* ------------------------------------------------------------ PRESENT */

static int present(struct pt *t, struct drm_vdxg_present *p)
{
	return drmIoctl(t->vr.fd, DRM_IOCTL_VDXG_PRESENT, p) ? -errno : 0;
}

static struct drm_vdxg_present_surface psurf_fb(uint32_t fb)
{
	struct drm_vdxg_present_surface s = { .fb_id = fb };

	return s;
}

static uint32_t drm_format(uint32_t vdxg_fmt)
{
	switch (vdxg_fmt) {
	case VDXG_FMT_XRGB8888: return DRM_FORMAT_XRGB8888;
	case VDXG_FMT_ARGB8888: return DRM_FORMAT_ARGB8888;
	case VDXG_FMT_RGB565: return DRM_FORMAT_RGB565;
	}
	vtest_fail("no fourcc for format %u", vdxg_fmt);
}

static struct drm_vdxg_present_surface psurf_bo(const struct vr_surf *s)
{
	struct drm_vdxg_present_surface p = {
		.handle = s->buf->bo->handle,
		.format = drm_format(s->format),
		.width = s->width,
		.height = s->height,
		.pitch = s->pitch,
		.offset = s->offset,
	};

	return p;
}

static void syncobj_wait(struct pt *t, uint32_t so, const char *what)
{
	int ret = vr_syncobj_wait(&t->vr, so, 0, 30 * SEC);

	vtest_assert_f(ret == 0, "%s: waiting for the out-syncobj: %s", what,
		       strerror(-ret));
	vtest_assert_eq(vr_syncobj_status(&t->vr, so, 0), 1);
}

/* The next event on the fd within TIMEOUT_MS; false when none came. */
static bool read_event(struct pt *t, struct drm_event_vblank *ev,
		       int timeout_ms)
{
	return voutput_read_event(t->vr.fd, ev, timeout_ms);
}

/* A flip of FB with an event of USER_DATA and a fence, all checked. */
static void flip_checked(struct pt *t, uint32_t fb, uint64_t user_data,
			 const char *what)
{
	struct drm_vdxg_present p = {
		.mode = DRM_VDXG_PRESENT_FLIP,
		.flags = DRM_VDXG_PRESENT_EVENT,
		.crtc_id = t->crtc_id,
		.src = psurf_fb(fb),
		.user_data = user_data,
	};
	struct drm_event_vblank ev;
	uint32_t so = vr_syncobj(&t->vr, false);
	int ret;

	p.out_syncobj = so;
	ret = present(t, &p);
	vtest_assert_f(ret == 0, "%s: FLIP to fb %u: %s", what, fb,
		       strerror(-ret));
	vtest_assert_f(read_event(t, &ev, 10000),
		       "%s: no flip event within 10 s", what);
	vtest_assert_eq(ev.base.type, DRM_EVENT_FLIP_COMPLETE);
	vtest_assert_eq(ev.base.length, sizeof(ev));
	vtest_assert_eq_u64(ev.user_data, user_data);
	vtest_assert_eq(ev.crtc_id, t->crtc_id);
	vtest_assert_f(ev.tv_sec || ev.tv_usec, "%s: no timestamp", what);
	/* The fence is signalled before the event is queued. */
	ret = vr_syncobj_wait(&t->vr, so, 0, 0);
	vtest_assert_f(ret == 0, "%s: flip fence not signalled with its "
		       "event: %s", what, strerror(-ret));
	vtest_assert_eq(vr_syncobj_status(&t->vr, so, 0), 1);
	vtest_assert_eq(crtc_fb(t), fb);
	vdxg_syncobj_destroy(t->vr.dev, so);
}

/*
 * BLIT the whole scene into framebuffer @fb (surface @s of @buf) with an
 * out-syncobj; once it signals, @buf must hold the scene.
 */
static void blit_scene(struct pt *t, struct scene *sc, uint32_t fb,
		       struct vr_buf *buf, struct vr_surf *s, const char *what)
{
	struct drm_vdxg_present p = { .mode = DRM_VDXG_PRESENT_BLIT };
	struct vdxg_ref_surface rd, rs;
	uint32_t so = vr_syncobj(&t->vr, false);
	int ret;

	p.ctx_id = t->ctx;
	p.src = psurf_bo(&sc->s);
	p.dst = psurf_fb(fb);
	p.out_syncobj = so;
	ret = present(t, &p);
	vtest_assert_f(ret == 0, "BLIT into %s: %s", what, strerror(-ret));
	syncobj_wait(t, so, what);
	rd = vr_ref(s);
	rs = vr_ref(&sc->s);
	vdxg_ref_copy_rect(&rd, &rs, 0, 0, 0, 0, t->w, t->h);
	vr_buf_check(buf, s, 1, what);
	vdxg_syncobj_destroy(t->vr.dev, so);
}

/* ------------------------------------------------------- blit-scanout */

static void test_blit_scanout(void)
{
	struct vr_buf fbuf;
	struct vr_surf fs;
	struct scene sc;
	struct pt t;
	uint32_t fb;

	pt_open(&t);
	pt_kms(&t);
	scene_render(&t, &sc, t.w, t.h, DRM_VDXG_SEGMENT_APERTURE);

	vr_buf_init(&t.vr, &fbuf, (uint64_t)t.w * t.h * 4, DRM_VDXG_SEGMENT_VRAM);
	fs = vr_surf(&fbuf, 0, VDXG_FMT_XRGB8888, t.w, t.h);
	cpu_pattern(&fs, 0x40);
	fb = add_fb(&t, &fs);
	set_crtc(&t, fb);
	vtest_assert_eq(crtc_fb(&t), fb);
	/* The screen shows the framebuffer before the blit... */
	screen_check(&t, &fs, "blit-before");

	/* ...and the scene after it. */
	blit_scene(&t, &sc, fb, &fbuf, &fs, "the scanout");
	vr_buf_check(&sc.buf, &sc.s, 1, "blit-scanout source");
	vtest_assert_eq(crtc_fb(&t), fb);
	screen_check(&t, &fs, "blit-scene");

	scene_fini(&sc);
	pt_close(&t);
}

/* --------------------------------------------------------------- flip */

static void test_flip(void)
{
	struct drm_vdxg_present p = { .mode = DRM_VDXG_PRESENT_BLIT };
	struct drm_event_vblank ev;
	struct vr_buf abuf, bbuf;
	struct vr_surf as, bs;
	struct scene sc;
	struct pt t;
	uint32_t fa, fbb, so;
	uint64_t ud;
	int ret;

	pt_open(&t);
	pt_kms(&t);
	scene_render(&t, &sc, t.w, t.h, DRM_VDXG_SEGMENT_VRAM);

	/* A: a CPU pattern, shown first. */
	vr_buf_init(&t.vr, &abuf, (uint64_t)t.w * t.h * 4, DRM_VDXG_SEGMENT_VRAM);
	as = vr_surf(&abuf, 0, VDXG_FMT_XRGB8888, t.w, t.h);
	cpu_pattern(&as, 0x90);
	fa = add_fb(&t, &as);
	set_crtc(&t, fa);

	/* B: a padded pitch and an offset of 3 rows and a bit. */
	vr_buf_init(&t.vr, &bbuf, (uint64_t)(t.w * 4 + 256) * (t.h + 4),
		    DRM_VDXG_SEGMENT_VRAM);
	vr_buf_randomize(&bbuf, &t.rng);
	bs = vr_surf(&bbuf, 0, VDXG_FMT_XRGB8888, t.w, t.h);
	bs.pitch = t.w * 4 + 256;
	bs.offset = 3 * bs.pitch + 64;
	vtest_assert(bs.offset + vr_surf_extent(&bs) <= bbuf.size);
	fbb = add_fb(&t, &bs);

	/* The scene into B (not shown), by fb id. */
	blit_scene(&t, &sc, fbb, &bbuf, &bs, "fb B");

	vtest_assert_eq(crtc_fb(&t), fa);
	screen_check(&t, &as, "flip-before");

	/* Flip to B with an event and a fence. */
	ud = (uint64_t)vr_rand(&t.rng) << 32 | vr_rand(&t.rng);
	flip_checked(&t, fbb, ud, "flip to B");
	screen_check(&t, &bs, "flip-scene");

	/* Back to A: no event asked for, the fence only. */
	memset(&p, 0, sizeof(p));
	so = vr_syncobj(&t.vr, false);
	p.mode = DRM_VDXG_PRESENT_FLIP;
	p.crtc_id = t.crtc_id;
	p.src = psurf_fb(fa);
	p.out_syncobj = so;
	ret = present(&t, &p);
	vtest_assert_f(ret == 0, "FLIP back to A: %s", strerror(-ret));
	syncobj_wait(&t, so, "flip back");
	vtest_assert_f(!read_event(&t, &ev, 100),
		       "an event (type %u, user data 0x%llx) for a flip "
		       "without DRM_VDXG_PRESENT_EVENT", ev.base.type,
		       (unsigned long long)ev.user_data);
	vtest_assert_eq(crtc_fb(&t), fa);
	screen_check(&t, &as, "flip-back");

	vdxg_syncobj_destroy(t.vr.dev, so);
	drmModeRmFB(t.vr.fd, fbb);
	drmModeRmFB(t.vr.fd, fa);
	vr_buf_fini(&bbuf);
	vr_buf_fini(&abuf);
	scene_fini(&sc);
	pt_close(&t);
}

/* --------------------------------------------------------- clip rects */

static void clip_rects(enum vtest_node node, uint32_t src_fmt,
		       uint32_t dst_fmt, int32_t dx, int32_t dy)
{
	struct drm_vdxg_present p = { .mode = DRM_VDXG_PRESENT_BLIT };
	const uint32_t dw = 160, dh = 120, sw = 130, shh = 100;
	struct vdxg_ref_surface rd, rs;
	struct vr_buf src, dst;
	struct vr_surf ss, ds, both[2];
	/*
	 * With the source at (40, 30) it covers [40, 170) x [30, 130) of the
	 * 160x120 destination; at (-7, -4), [0, 123) x [0, 96) of it. So
	 * each offset has clips cut by the destination's edges, clips cut by
	 * the source's, and clips left empty.
	 */
	struct drm_vdxg_rect clips[] = {
		{ 10, 12, 60, 50 },
		{ 50, 40, 95, 81 },
		{ 70, 60, 90, 70 },		/* inside the previous one */
		{ -20, -30, 8, 12 },
		{ dw - 10, 90, dw + 50, dh + 50 },
		{ 110, 80, 200, 200 },
		{ 100, -5, 101, 200 },		/* a column */
		{ dw + 5, 0, dw + 20, 10 },	/* wholly outside */
	};
	unsigned int drawn = 0;
	struct pt t;
	uint32_t so;
	unsigned int i;
	int ret;

	pt_open_node(&t, node);
	vr_buf_init(&t.vr, &src, 96 << 10, DRM_VDXG_SEGMENT_APERTURE);
	vr_buf_init(&t.vr, &dst, 96 << 10, DRM_VDXG_SEGMENT_VRAM);
	vr_buf_randomize(&src, &t.rng);
	vr_buf_randomize(&dst, &t.rng);
	ss = vr_surf(&src, 512, src_fmt, sw, shh);
	ds = vr_surf(&dst, 1024, dst_fmt, dw, dh);
	ds.pitch += 128;
	vtest_assert(ds.offset + vr_surf_extent(&ds) <= dst.size);
	both[0] = ss;
	both[1] = ds;

	so = vr_syncobj(&t.vr, false);
	p.ctx_id = t.ctx;
	p.src = psurf_bo(&ss);
	p.dst = psurf_bo(&ds);
	p.dst_x = dx;
	p.dst_y = dy;
	p.num_clips = VTEST_ARRAY_SIZE(clips);
	p.clips = (uintptr_t)clips;
	p.out_syncobj = so;
	vtest_info("source %s %ux%u at (%d, %d) in a %s %ux%u destination, "
		   "%u clips", vr_format_name(src_fmt), sw, shh, dx, dy,
		   vr_format_name(dst_fmt), dw, dh, p.num_clips);
	ret = present(&t, &p);
	vtest_assert_f(ret == 0, "BLIT with clips: %s", strerror(-ret));
	syncobj_wait(&t, so, "clip-rects");

	/* The reference: each clip cut to DST and to the placed source. */
	rd = vr_ref(&ds);
	rs = vr_ref(&ss);
	for (i = 0; i < VTEST_ARRAY_SIZE(clips); i++) {
		int64_t x1 = clips[i].x1, y1 = clips[i].y1;
		int64_t x2 = clips[i].x2, y2 = clips[i].y2;

		x1 = x1 > 0 ? x1 : 0;
		x1 = x1 > dx ? x1 : dx;
		y1 = y1 > 0 ? y1 : 0;
		y1 = y1 > dy ? y1 : dy;
		x2 = x2 < dw ? x2 : dw;
		x2 = x2 < dx + (int64_t)sw ? x2 : dx + (int64_t)sw;
		y2 = y2 < dh ? y2 : dh;
		y2 = y2 < dy + (int64_t)shh ? y2 : dy + (int64_t)shh;
		if (x1 >= x2 || y1 >= y2)
			continue;
		vtest_info("clip %u: [%d, %d) x [%d, %d) copies [%" PRId64
			   ", %" PRId64 ") x [%" PRId64 ", %" PRId64 ")", i,
			   clips[i].x1, clips[i].x2, clips[i].y1, clips[i].y2,
			   x1, x2, y1, y2);
		vdxg_ref_copy_rect(&rd, &rs, x1 - dx, y1 - dy, x1, y1,
				   x2 - x1, y2 - y1);
		drawn++;
	}
	vtest_assert_lte(5, drawn);
	vr_buf_check(&dst, both, 2, "clip-rects destination");
	vr_buf_check(&src, both, 2, "clip-rects source");

	vdxg_syncobj_destroy(t.vr.dev, so);
	vr_buf_fini(&dst);
	vr_buf_fini(&src);
	pt_close(&t);
}

static void test_clip_rects(void)
{
	clip_rects(VTEST_NODE_CARD, VDXG_FMT_XRGB8888, VDXG_FMT_XRGB8888, 40,
		   30);
}

static void test_clip_rects_rgb565(void)
{
	/* On the render node: BLIT needs no KMS. */
	clip_rects(VTEST_NODE_RENDER, VDXG_FMT_ARGB8888, VDXG_FMT_RGB565, -7,
		   -4);
}

/* ------------------------------------------------------ implicit sync */

/* A job on CTX held by a WAIT until the CPU writes 1 at HOLD + 0. */
static void hold_ctx(struct pt *t, uint32_t ctx, struct vdxg_bo *hold)
{
	struct vdxg_cs *cs = vr_cs();

	vdxg_cs_wait(cs, hold, 0, 0, 1);
	vr_submit(&t->vr, ctx, cs, NULL);
	vdxg_cs_free(cs);
}

/*
 * The blit reads an object that another context's job, held on the ring,
 * is still writing: it must wait for that job (implicit sync on the
 * source), and then copy what it wrote.
 */
static void test_blit_waits_for_render(void)
{
	struct drm_vdxg_present p = { .mode = DRM_VDXG_PRESENT_BLIT };
	struct vdxg_ref_surface rs, rd;
	struct vr_buf src, dst;
	struct vr_surf ss, ds;
	struct vdxg_bo *hold;
	struct vdxg_cs *cs = vr_cs();
	uint32_t ctx2, so;
	uint8_t *hmap;
	struct pt t;
	int ret;

	pt_open(&t);
	ctx2 = vr_ctx(&t.vr);
	hmap = vr_hold_bo(&t.vr, &hold);
	vr_buf_init(&t.vr, &src, 64 << 10, DRM_VDXG_SEGMENT_VRAM);
	vr_buf_init(&t.vr, &dst, 64 << 10, DRM_VDXG_SEGMENT_APERTURE);
	vr_buf_randomize(&src, &t.rng);
	vr_buf_randomize(&dst, &t.rng);
	ss = vr_surf(&src, 256, VDXG_FMT_XRGB8888, 80, 60);
	ds = vr_surf(&dst, 512, VDXG_FMT_XRGB8888, 80, 60);

	/* Context 2: held, then fills the source. */
	vdxg_cs_wait(cs, hold, 0, 0, 1);
	vr_cs_surface(cs, VDXG_SLOT_DST, &ss);
	vdxg_cs_fill_rect(cs, 0, 0, 80, 60, 0xff336699);
	vdxg_cs_fill_rect(cs, 10, 10, 30, 20, 0xffcc2211);
	vr_submit(&t.vr, ctx2, cs, NULL);
	rs = vr_ref(&ss);
	vdxg_ref_fill_rect(&rs, 0, 0, 80, 60, 0xff336699);
	vdxg_ref_fill_rect(&rs, 10, 10, 30, 20, 0xffcc2211);

	/* Our context: the blit of it. */
	so = vr_syncobj(&t.vr, false);
	p.ctx_id = t.ctx;
	p.src = psurf_bo(&ss);
	p.dst = psurf_bo(&ds);
	p.out_syncobj = so;
	ret = present(&t, &p);
	vtest_assert_f(ret == 0, "BLIT: %s", strerror(-ret));

	vr_sleep_ms(300);
	vtest_assert_f(vr_syncobj_wait(&t.vr, so, 0, 0) == -ETIME,
		       "the blit finished before the job writing its source");
	vr_buf_check(&dst, &ds, 1, "destination while the writer is held");

	vr_write64(hmap, 0, 1);
	syncobj_wait(&t, so, "blit behind the writer");
	rd = vr_ref(&ds);
	vdxg_ref_copy_rect(&rd, &rs, 0, 0, 0, 0, 80, 60);
	vr_buf_check(&src, &ss, 1, "source");
	vr_buf_check(&dst, &ds, 1, "destination");

	vdxg_syncobj_destroy(t.vr.dev, so);
	vdxg_cs_free(cs);
	vr_buf_fini(&dst);
	vr_buf_fini(&src);
	vdxg_bo_free(hold);
	vdxg_context_destroy(t.vr.dev, ctx2);
	pt_close(&t);
}

/*
 * FLIP right after a BLIT into the framebuffer, with the blit held on the
 * ring: the flip must not be shown (no event, no fence) before the blit
 * is done, and then shows the whole scene.
 */
static void test_flip_waits_for_blit(void)
{
	struct drm_vdxg_present p = { .mode = DRM_VDXG_PRESENT_BLIT };
	struct vdxg_ref_surface rb, rs;
	struct drm_event_vblank ev;
	struct vr_buf abuf, bbuf;
	struct vr_surf as, bs;
	struct vdxg_bo *hold;
	struct scene sc;
	uint32_t fa, fbb, sb, sf;
	uint64_t ud = 0xf11bf11bf11bull;
	uint8_t *hmap;
	struct pt t;
	int ret;

	pt_open(&t);
	pt_kms(&t);
	scene_render(&t, &sc, t.w, t.h, DRM_VDXG_SEGMENT_APERTURE);
	hmap = vr_hold_bo(&t.vr, &hold);

	vr_buf_init(&t.vr, &abuf, (uint64_t)t.w * t.h * 4, DRM_VDXG_SEGMENT_VRAM);
	as = vr_surf(&abuf, 0, VDXG_FMT_XRGB8888, t.w, t.h);
	cpu_pattern(&as, 0x33);
	fa = add_fb(&t, &as);
	set_crtc(&t, fa);
	vr_buf_init(&t.vr, &bbuf, (uint64_t)t.w * t.h * 4, DRM_VDXG_SEGMENT_VRAM);
	vr_buf_randomize(&bbuf, &t.rng);
	bs = vr_surf(&bbuf, 0, VDXG_FMT_XRGB8888, t.w, t.h);
	fbb = add_fb(&t, &bs);

	hold_ctx(&t, t.ctx, hold);
	sb = vr_syncobj(&t.vr, false);
	p.ctx_id = t.ctx;
	p.src = psurf_bo(&sc.s);
	p.dst = psurf_fb(fbb);
	p.out_syncobj = sb;
	ret = present(&t, &p);
	vtest_assert_f(ret == 0, "BLIT into B: %s", strerror(-ret));

	memset(&p, 0, sizeof(p));
	sf = vr_syncobj(&t.vr, false);
	p.mode = DRM_VDXG_PRESENT_FLIP;
	p.flags = DRM_VDXG_PRESENT_EVENT;
	p.crtc_id = t.crtc_id;
	p.src = psurf_fb(fbb);
	p.out_syncobj = sf;
	p.user_data = ud;
	ret = present(&t, &p);
	vtest_assert_f(ret == 0, "FLIP to B behind its blit: %s",
		       strerror(-ret));

	vtest_assert_f(!read_event(&t, &ev, 500),
		       "the flip completed (user data 0x%llx) before the blit "
		       "into its framebuffer ran",
		       (unsigned long long)ev.user_data);
	vtest_assert_eq(vr_syncobj_wait(&t.vr, sf, 0, 0), -ETIME);
	vtest_assert_eq(vr_syncobj_wait(&t.vr, sb, 0, 0), -ETIME);
	vr_buf_check(&bbuf, &bs, 1, "fb B while its blit is held");

	vr_write64(hmap, 0, 1);
	vtest_assert_f(read_event(&t, &ev, 10000),
		       "no flip event within 10 s of the blit's release");
	vtest_assert_eq(ev.base.type, DRM_EVENT_FLIP_COMPLETE);
	vtest_assert_eq_u64(ev.user_data, ud);
	vtest_assert_eq(ev.crtc_id, t.crtc_id);
	vtest_assert_eq(vr_syncobj_wait(&t.vr, sb, 0, 0), 0);
	vtest_assert_eq(vr_syncobj_wait(&t.vr, sf, 0, 0), 0);
	rb = vr_ref(&bs);
	rs = vr_ref(&sc.s);
	vdxg_ref_copy_rect(&rb, &rs, 0, 0, 0, 0, t.w, t.h);
	vr_buf_check(&bbuf, &bs, 1, "fb B readback");
	vtest_assert_eq(crtc_fb(&t), fbb);
	screen_check(&t, &bs, "flip-after-blit");

	vdxg_syncobj_destroy(t.vr.dev, sf);
	vdxg_syncobj_destroy(t.vr.dev, sb);
	drmModeRmFB(t.vr.fd, fbb);
	drmModeRmFB(t.vr.fd, fa);
	vr_buf_fini(&bbuf);
	vr_buf_fini(&abuf);
	vdxg_bo_free(hold);
	scene_fini(&sc);
	pt_close(&t);
}

/*
 * A FLIP while another is pending fails with EBUSY, leaving no event and
 * no fence behind; the pending one completes as it should.
 */
static void test_flip_busy(void)
{
	struct drm_event_vblank ev;
	struct vr_buf abuf, bbuf;
	struct vr_surf as, bs;
	uint32_t fbs[2], shown;
	int attempt, busy = 0;
	struct pt t;

	pt_open(&t);
	pt_kms(&t);
	vr_buf_init(&t.vr, &abuf, (uint64_t)t.w * t.h * 4, DRM_VDXG_SEGMENT_VRAM);
	as = vr_surf(&abuf, 0, VDXG_FMT_XRGB8888, t.w, t.h);
	cpu_pattern(&as, 0x01);
	vr_buf_init(&t.vr, &bbuf, (uint64_t)t.w * t.h * 4,
		    DRM_VDXG_SEGMENT_APERTURE);
	bs = vr_surf(&bbuf, 0, VDXG_FMT_XRGB8888, t.w, t.h);
	cpu_pattern(&bs, 0x02);
	fbs[0] = add_fb(&t, &as);
	fbs[1] = add_fb(&t, &bs);
	set_crtc(&t, fbs[0]);
	shown = 0;

	/* Two flips back to back: the second comes within the frame. */
	for (attempt = 0; attempt < 10; attempt++) {
		struct drm_vdxg_present p1 = {
			.mode = DRM_VDXG_PRESENT_FLIP,
			.flags = DRM_VDXG_PRESENT_EVENT,
			.crtc_id = t.crtc_id,
			.src = psurf_fb(fbs[!shown]),
			.user_data = 0x1000 + attempt,
		}, p2 = p1;
		uint32_t s1 = vr_syncobj(&t.vr, false);
		uint32_t s2 = vr_syncobj(&t.vr, false);
		int r1, r2;

		p1.out_syncobj = s1;
		p2.src = psurf_fb(fbs[shown]);
		p2.out_syncobj = s2;
		p2.user_data = 0x2000 + attempt;
		r1 = present(&t, &p1);
		r2 = present(&t, &p2);
		vtest_assert_f(r1 == 0, "first FLIP: %s", strerror(-r1));
		vtest_assert_f(r2 == 0 || r2 == -EBUSY,
			       "second FLIP: %s, expected EBUSY (or success "
			       "after a vblank)", strerror(-r2));

		vtest_assert_f(read_event(&t, &ev, 10000), "no event");
		vtest_assert_eq_u64(ev.user_data, 0x1000 + attempt);
		vtest_assert_eq(vr_syncobj_wait(&t.vr, s1, 0, 0), 0);
		if (r2 == -EBUSY) {
			busy++;
			shown = !shown;
			vtest_assert_eq(vr_syncobj_wait(&t.vr, s2, 0, 0),
					-EINVAL);
			vtest_assert_f(!read_event(&t, &ev, 100),
				       "an event (user data 0x%llx) for the "
				       "refused flip",
				       (unsigned long long)ev.user_data);
		} else {
			vtest_info("attempt %d: the second flip was not "
				   "refused (a vblank came between them)",
				   attempt);
			vtest_assert_f(read_event(&t, &ev, 10000),
				       "no event for the second flip");
			vtest_assert_eq_u64(ev.user_data, 0x2000 + attempt);
			vtest_assert_eq(vr_syncobj_wait(&t.vr, s2, 0, 0), 0);
		}
		vtest_assert_eq(crtc_fb(&t), fbs[shown]);
		vdxg_syncobj_destroy(t.vr.dev, s2);
		vdxg_syncobj_destroy(t.vr.dev, s1);
	}
	vtest_info("%d of %d second flips refused with EBUSY", busy, attempt);
	vtest_assert_f(busy > 0, "no flip was ever refused while another "
		       "was pending");
	screen_check(&t, shown ? &bs : &as, "flip-busy");

	drmModeRmFB(t.vr.fd, fbs[1]);
	drmModeRmFB(t.vr.fd, fbs[0]);
	vr_buf_fini(&bbuf);
	vr_buf_fini(&abuf);
	pt_close(&t);
}

/* ------------------------------------------------------------ nothing */

/*
 * Blits that copy nothing (the source placed off the destination, every
 * clip outside): accepted, signalled, nothing written.
 */
static void test_blit_nothing(void)
{
	struct drm_vdxg_rect clips[] = {
		{ -40, -40, 0, 10 }, { 64, 0, 100, 48 }, { 10, 48, 20, 1000 },
	};
	struct drm_vdxg_present p = { .mode = DRM_VDXG_PRESENT_BLIT };
	struct vr_buf src, dst;
	struct vr_surf ss, ds;
	struct pt t;
	uint32_t so;
	int ret, i;

	pt_open(&t);
	vr_buf_init(&t.vr, &src, 64 << 10, DRM_VDXG_SEGMENT_VRAM);
	vr_buf_init(&t.vr, &dst, 64 << 10, DRM_VDXG_SEGMENT_VRAM);
	vr_buf_randomize(&src, &t.rng);
	vr_buf_randomize(&dst, &t.rng);
	ss = vr_surf(&src, 0, VDXG_FMT_XRGB8888, 64, 48);
	ds = vr_surf(&dst, 0, VDXG_FMT_XRGB8888, 64, 48);
	so = vr_syncobj(&t.vr, false);

	for (i = 0; i < 4; i++) {
		memset(&p, 0, sizeof(p));
		p.mode = DRM_VDXG_PRESENT_BLIT;
		p.ctx_id = t.ctx;
		p.src = psurf_bo(&ss);
		p.dst = psurf_bo(&ds);
		p.out_syncobj = so;
		switch (i) {
		case 0: p.dst_x = 64; break;		/* right of DST */
		case 1: p.dst_y = -48; break;		/* above it */
		case 2: p.dst_x = INT32_MIN; p.dst_y = INT32_MAX; break;
		case 3:					/* clips outside */
			p.num_clips = VTEST_ARRAY_SIZE(clips);
			p.clips = (uintptr_t)clips;
			break;
		}
		ret = present(&t, &p);
		vtest_assert_f(ret == 0, "empty BLIT %d (at %d, %d, %u clips): "
			       "%s", i, p.dst_x, p.dst_y, p.num_clips,
			       strerror(-ret));
		syncobj_wait(&t, so, "empty blit");
		vr_buf_check(&dst, &ds, 1, "destination of an empty BLIT");
		vtest_assert_ok(drmSyncobjReset(t.vr.fd, &so, 1));
	}
	vr_buf_check(&src, &ss, 1, "source");

	vdxg_syncobj_destroy(t.vr.dev, so);
	vr_buf_fini(&dst);
	vr_buf_fini(&src);
	pt_close(&t);
}

/* ------------------------------------------------------ overlap, owner */

/*
 * Source and destination in the same object, overlapping: by handles,
 * then through a framebuffer onto itself (as a non-master client that
 * owns it). The whole source is read before anything is written.
 */
static void test_blit_overlap(void)
{
	struct drm_vdxg_present p = { .mode = DRM_VDXG_PRESENT_BLIT };
	struct drm_vdxg_rect clip = { -10, 3, 70, 50 };
	struct vdxg_ref_surface r1, r2;
	struct vr_surf s1, s2;
	struct vr_buf buf;
	struct pt t;
	uint32_t so, fb;
	int ret;

	pt_open(&t);
	if (drmIsMaster(t.vr.fd))
		vtest_assert_ok(drmDropMaster(t.vr.fd));
	vtest_assert(!drmIsMaster(t.vr.fd));
	vr_buf_init(&t.vr, &buf, 64 << 10, DRM_VDXG_SEGMENT_VRAM);
	vr_buf_randomize(&buf, &t.rng);
	s1 = vr_surf(&buf, 0, VDXG_FMT_XRGB8888, 100, 80);
	s2 = s1;
	s2.offset = 2 * s1.pitch + 12;	/* 3 pixels right, 2 rows down */
	vtest_assert(s2.offset + vr_surf_extent(&s2) <= buf.size);

	so = vr_syncobj(&t.vr, false);
	p.ctx_id = t.ctx;
	p.src = psurf_bo(&s1);
	p.dst = psurf_bo(&s2);
	p.out_syncobj = so;
	ret = present(&t, &p);
	vtest_assert_f(ret == 0, "BLIT within one object: %s", strerror(-ret));
	syncobj_wait(&t, so, "overlapping blit");
	r1 = vr_ref(&s1);
	r2 = vr_ref(&s2);
	vdxg_ref_copy_rect(&r2, &r1, 0, 0, 0, 0, 100, 80);
	vr_buf_check(&buf, &s1, 1, "overlapping blit by handles");

	/* The same framebuffer as source and destination, moved. */
	fb = add_fb(&t, &s1);
	memset(&p, 0, sizeof(p));
	p.mode = DRM_VDXG_PRESENT_BLIT;
	p.ctx_id = t.ctx;
	p.src = psurf_fb(fb);
	p.dst = psurf_fb(fb);
	p.dst_x = -5;
	p.dst_y = 4;
	p.num_clips = 1;
	p.clips = (uintptr_t)&clip;
	p.out_syncobj = so;
	ret = present(&t, &p);
	vtest_assert_f(ret == 0, "BLIT of a fb onto itself by a non-master "
		       "owner: %s", strerror(-ret));
	syncobj_wait(&t, so, "fb onto itself");
	/* The clip cut to [0, 70) x [4, 50): source [5, 75) x [0, 46). */
	vdxg_ref_copy_rect(&r1, &r1, 5, 0, 0, 4, 70, 46);
	vr_buf_check(&buf, &s1, 1, "fb onto itself");

	drmModeRmFB(t.vr.fd, fb);
	vdxg_syncobj_destroy(t.vr.dev, so);
	vr_buf_fini(&buf);
	pt_close(&t);
}

/* -------------------------------------------------------- bad presents */

struct bad {
	struct pt t;
	struct vr_buf src, dst;		/* 64 KiB each */
	struct vr_surf ss, ds;		/* 64x48 XRGB8888 */
	struct vr_buf abuf, bbuf;	/* the two framebuffers */
	struct vr_surf as, bs;
	uint32_t fa, fbb;		/* A shown, B ready to flip to */
	uint32_t so;			/* a syncobj */
	struct drm_vdxg_rect clip;
	struct drm_vdxg_present p;	/* a valid BLIT, to spoil */
	bool dropped_master;
};

/* A valid BLIT of SRC into DST (by handle) with one clip. */
static struct drm_vdxg_present *blit(struct bad *b)
{
	memset(&b->p, 0, sizeof(b->p));
	b->p.mode = DRM_VDXG_PRESENT_BLIT;
	b->p.ctx_id = b->t.ctx;
	b->p.src = psurf_bo(&b->ss);
	b->p.dst = psurf_bo(&b->ds);
	b->p.num_clips = 1;
	b->p.clips = (uintptr_t)&b->clip;
	b->p.out_syncobj = b->so;
	return &b->p;
}

/* A valid FLIP to B. */
static struct drm_vdxg_present *flip(struct bad *b)
{
	memset(&b->p, 0, sizeof(b->p));
	b->p.mode = DRM_VDXG_PRESENT_FLIP;
	b->p.flags = DRM_VDXG_PRESENT_EVENT;
	b->p.crtc_id = b->t.crtc_id;
	b->p.src = psurf_fb(b->fbb);
	b->p.out_syncobj = b->so;
	b->p.user_data = 0xbad0bad0bad0ull;
	return &b->p;
}

static int go(struct bad *b)
{
	return present(&b->t, &b->p);
}

static void *prot_none_page(void)
{
	void *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	vtest_assert(p != MAP_FAILED);
	return p;
}

static int bad_mode(struct bad *b) { blit(b)->mode = 2; return go(b); }
static int bad_mode_max(struct bad *b) { blit(b)->mode = ~0u; return go(b); }
static int bad_blit_flags(struct bad *b)
{ blit(b)->flags = DRM_VDXG_PRESENT_EVENT; return go(b); }
static int bad_blit_crtc(struct bad *b)
{ blit(b)->crtc_id = b->t.crtc_id; return go(b); }
static int bad_blit_user_data(struct bad *b)
{ blit(b)->user_data = 1; return go(b); }
static int bad_unknown_fb(struct bad *b)
{ blit(b)->src = psurf_fb(0xdead); return go(b); }
static int bad_unknown_dst_fb(struct bad *b)
{ blit(b)->dst = psurf_fb(0xdead); return go(b); }
static int bad_unknown_handle(struct bad *b)
{ blit(b)->src.handle = 0xdead; return go(b); }
static int bad_handle_zero(struct bad *b)
{ blit(b)->dst.handle = 0; return go(b); }
static int bad_fb_and_handle(struct bad *b)
{
	blit(b)->dst = psurf_fb(b->fbb);
	b->p.dst.handle = b->dst.bo->handle;
	return go(b);
}
static int bad_fb_and_format(struct bad *b)
{
	blit(b)->src = psurf_fb(b->fbb);
	b->p.src.format = DRM_FORMAT_XRGB8888;
	return go(b);
}
static int bad_format(struct bad *b)
{ blit(b)->src.format = DRM_FORMAT_XBGR8888; return go(b); }
static int bad_format_zero(struct bad *b)
{ blit(b)->dst.format = 0; return go(b); }
static int bad_width_zero(struct bad *b)
{ blit(b)->src.width = 0; return go(b); }
static int bad_height_huge(struct bad *b)
{ blit(b)->dst.height = 8193; return go(b); }
static int bad_pad(struct bad *b) { blit(b)->src.pad = 1; return go(b); }
static int bad_clip_x(struct bad *b)
{
	static struct drm_vdxg_rect c = { 10, 0, 10, 8 };

	blit(b)->clips = (uintptr_t)&c;
	return go(b);
}
static int bad_clip_y(struct bad *b)
{
	static struct drm_vdxg_rect c = { 0, 9, 8, 4 };

	blit(b)->clips = (uintptr_t)&c;
	return go(b);
}
static int bad_clip_second(struct bad *b)
{
	static struct drm_vdxg_rect c[3] = {
		{ 0, 0, 8, 8 }, { 20, 20, 30, 30 }, { 5, 5, 4, 6 },
	};

	blit(b)->clips = (uintptr_t)c;
	b->p.num_clips = 3;
	return go(b);
}
static int bad_too_many_clips(struct bad *b)
{
	static struct drm_vdxg_rect c[DRM_VDXG_MAX_CLIPS + 1];
	unsigned int i;

	for (i = 0; i < VTEST_ARRAY_SIZE(c); i++)
		c[i] = (struct drm_vdxg_rect){ 0, 0, 4, 4 };
	blit(b)->clips = (uintptr_t)c;
	b->p.num_clips = DRM_VDXG_MAX_CLIPS + 1;
	return go(b);
}
static int bad_too_many_clips_huge(struct bad *b)
{
	/* Refused before anything is allocated for them. */
	blit(b)->num_clips = ~0u;
	return go(b);
}
static int bad_fb_format(struct bad *b)
{
	uint32_t handles[4] = { b->bbuf.bo->handle };
	uint32_t pitches[4] = { b->bs.pitch };
	uint32_t offsets[4] = { 0 };
	uint32_t fb = 0;
	int ret;

	vtest_assert_f(drmModeAddFB2(b->t.vr.fd, 64, 48, DRM_FORMAT_XBGR8888,
				     handles, pitches, offsets, &fb, 0) == 0,
		       "ADDFB2 XBGR8888: %s", strerror(errno));
	blit(b)->src = psurf_fb(fb);
	ret = go(b);
	drmModeRmFB(b->t.vr.fd, fb);
	return ret;
}
static int bad_clip_pointer(struct bad *b)
{
	blit(b)->clips = (uintptr_t)prot_none_page();
	return go(b);
}
static int bad_clip_null(struct bad *b)
{
	blit(b)->clips = 0;
	return go(b);
}
static int bad_surface_past_object(struct bad *b)
{
	/* 64 x 300 rows of 256 bytes: 75 KiB in a 64 KiB object. */
	blit(b)->src.height = 300;
	return go(b);
}
static int bad_offset_past_object(struct bad *b)
{
	blit(b)->dst.offset = b->dst.size - 4096;
	return go(b);
}
static int bad_unknown_context(struct bad *b)
{ blit(b)->ctx_id = 0x7777; return go(b); }
static int bad_context_zero(struct bad *b)
{ blit(b)->ctx_id = 0; return go(b); }
static int bad_unknown_syncobj(struct bad *b)
{ blit(b)->out_syncobj = 0xdead; return go(b); }
static int bad_foreign_fb(struct bad *b)
{
	/* A non-master client naming the master's framebuffer. */
	struct drm_vdxg_present p;
	uint32_t ctx = 0;
	int ret;

	struct vdxg_device *dev;
	int fd = vtest_drm_open_driver("vdxg", VTEST_NODE_CARD, NULL);

	vtest_assert(fd >= 0);
	vtest_assert(!drmIsMaster(fd));
	vtest_assert_ok(vdxg_device_open_fd(fd, &dev));
	vtest_assert_ok(vdxg_context_create(dev, DRM_VDXG_ENGINE_RENDER,
					    DRM_VDXG_PRIORITY_NORMAL, 0, &ctx));
	memset(&p, 0, sizeof(p));
	p.mode = DRM_VDXG_PRESENT_BLIT;
	p.ctx_id = ctx;
	p.src = psurf_fb(b->fbb);
	p.dst = psurf_fb(b->fa);
	ret = drmIoctl(fd, DRM_IOCTL_VDXG_PRESENT, &p) ? -errno : 0;
	vdxg_context_destroy(dev, ctx);
	vdxg_device_close(dev);
	close(fd);
	return ret;
}
/* A render-node client naming the master's framebuffers, or flipping. */
static int render_node_present(struct bad *b, bool flip_it)
{
	struct drm_vdxg_present p;
	struct vdxg_device *dev;
	uint32_t ctx = 0;
	int fd = vtest_drm_open_driver("vdxg", VTEST_NODE_RENDER, NULL), ret;

	vtest_assert(fd >= 0);
	vtest_assert_ok(vdxg_device_open_fd(fd, &dev));
	vtest_assert_ok(vdxg_context_create(dev, DRM_VDXG_ENGINE_RENDER,
					    DRM_VDXG_PRIORITY_NORMAL, 0, &ctx));
	memset(&p, 0, sizeof(p));
	if (flip_it) {
		p = *flip(b);
		p.out_syncobj = 0;
	} else {
		p.mode = DRM_VDXG_PRESENT_BLIT;
		p.ctx_id = ctx;
		p.src = psurf_fb(b->fbb);
		p.dst = psurf_fb(b->fa);
	}
	ret = drmIoctl(fd, DRM_IOCTL_VDXG_PRESENT, &p) ? -errno : 0;
	vdxg_context_destroy(dev, ctx);
	vdxg_device_close(dev);
	close(fd);
	return ret;
}
static int bad_render_node_fb(struct bad *b)
{ return render_node_present(b, false); }
static int bad_render_node_flip(struct bad *b)
{ return render_node_present(b, true); }
/* A framebuffer of a system-memory object: no engine or plane reaches it. */
static uint32_t system_fb(struct bad *b, struct vdxg_bo **bo)
{
	struct vr_buf tmp = { 0 };
	struct vr_surf s;

	*bo = vr_bo(&b->t.vr, (uint64_t)b->t.w * b->t.h * 4,
		    DRM_VDXG_SEGMENT_SYSTEM, 0);
	tmp.bo = *bo;
	tmp.size = (*bo)->size;
	s = vr_surf(&tmp, 0, VDXG_FMT_XRGB8888, b->t.w, b->t.h);
	return add_fb(&b->t, &s);
}
/* Present with a system-memory framebuffer as flip source or blit target. */
static int go_system_fb(struct bad *b, bool flip_src)
{
	struct vdxg_bo *bo;
	uint32_t fb = system_fb(b, &bo);
	int ret;

	if (flip_src)
		flip(b)->src = psurf_fb(fb);
	else
		blit(b)->dst = psurf_fb(fb);
	ret = go(b);
	drmModeRmFB(b->t.vr.fd, fb);
	vdxg_bo_free(bo);
	return ret;
}
static int bad_blit_system_fb(struct bad *b)
{
	return go_system_fb(b, false);
}
static int bad_blit_system_bo(struct bad *b)
{
	struct vdxg_bo *bo = vr_bo(&b->t.vr, 64 << 10, DRM_VDXG_SEGMENT_SYSTEM, 0);
	int ret;

	blit(b)->src.handle = bo->handle;
	ret = go(b);
	vdxg_bo_free(bo);
	return ret;
}
static int bad_flip_system_fb(struct bad *b)
{
	return go_system_fb(b, true);
}
static int bad_flip_small_fb(struct bad *b)
{
	struct vr_surf s = b->bs;
	uint32_t fb;
	int ret;

	/* The plane keeps the mode-sized source rectangle. */
	s.width /= 2;
	s.height /= 2;
	fb = add_fb(&b->t, &s);
	flip(b)->src = psurf_fb(fb);
	ret = go(b);
	drmModeRmFB(b->t.vr.fd, fb);
	return ret;
}
static int bad_flip_crtc_off(struct bad *b)
{
	int ret;

	vtest_assert_f(drmModeSetCrtc(b->t.vr.fd, b->t.crtc_id, 0, 0, 0, NULL,
				      0, NULL) == 0,
		       "turning the CRTC off: %s", strerror(errno));
	flip(b);
	ret = go(b);
	set_crtc(&b->t, b->fa);
	return ret;
}
static int bad_flip_flags(struct bad *b) { flip(b)->flags = 0x2; return go(b); }
static int bad_flip_unknown_crtc(struct bad *b)
{ flip(b)->crtc_id = 0xdead; return go(b); }
static int bad_flip_crtc_is_connector(struct bad *b)
{ flip(b)->crtc_id = b->t.conn_id; return go(b); }
static int bad_flip_unknown_fb(struct bad *b)
{ flip(b)->src.fb_id = 0xdead; return go(b); }
static int bad_flip_no_fb(struct bad *b)
{ flip(b)->src.fb_id = 0; return go(b); }
static int bad_flip_unknown_syncobj(struct bad *b)
{ flip(b)->out_syncobj = 0xdead; return go(b); }
static int bad_flip_ctx(struct bad *b)
{ flip(b)->ctx_id = b->t.ctx; return go(b); }
static int bad_flip_clips(struct bad *b)
{
	flip(b)->num_clips = 1;
	b->p.clips = (uintptr_t)&b->clip;
	return go(b);
}
static int bad_flip_dst(struct bad *b)
{ flip(b)->dst = psurf_fb(b->fa); return go(b); }
static int bad_flip_dst_xy(struct bad *b)
{ flip(b)->dst_x = 1; return go(b); }
static int bad_flip_handle(struct bad *b)
{ flip(b)->src.handle = b->src.bo->handle; return go(b); }
static int bad_flip_dropped_master(struct bad *b)
{
	vtest_assert_ok(drmDropMaster(b->t.vr.fd));
	b->dropped_master = true;
	flip(b);
	return go(b);
}
static int bad_flip_second_fd(struct bad *b)
{
	int fd = vtest_drm_open_driver("vdxg", VTEST_NODE_CARD, NULL), ret;

	vtest_assert(fd >= 0);
	vtest_assert(!drmIsMaster(fd));
	flip(b);
	ret = drmIoctl(fd, DRM_IOCTL_VDXG_PRESENT, &b->p) ? -errno : 0;
	close(fd);
	return ret;
}

/*
 * The table: function, subtest name, errno, whether the command parser
 * rejects it (debugfs render "rejected" counts exactly those),
 * description.
 */
#define BAD_ROWS(X) \
	X(mode, "mode", EINVAL, 0, "mode 2") \
	X(mode_max, "mode-max", EINVAL, 0, "mode 0xffffffff") \
	X(blit_flags, "blit-flags", EINVAL, 0, "a BLIT with DRM_VDXG_PRESENT_EVENT") \
	X(blit_crtc, "blit-crtc-id", EINVAL, 0, "a BLIT with a CRTC") \
	X(blit_user_data, "blit-user-data", EINVAL, 0, "a BLIT with user data") \
	X(unknown_fb, "unknown-fb", ENOENT, 0, "source fb 0xdead") \
	X(unknown_dst_fb, "unknown-dst-fb", ENOENT, 0, "destination fb 0xdead") \
	X(unknown_handle, "unknown-handle", ENOENT, 0, "source handle 0xdead") \
	X(handle_zero, "handle-zero", ENOENT, 0, "destination handle 0 without a fb") \
	X(fb_and_handle, "fb-and-handle", EINVAL, 0, "destination fb id and handle") \
	X(fb_and_format, "fb-and-format", EINVAL, 0, "source fb id and format") \
	X(format, "format", EINVAL, 0, "source XBGR8888") \
	X(fb_format, "fb-format", EINVAL, 0, "a source fb in XBGR8888") \
	X(format_zero, "format-zero", EINVAL, 0, "destination format 0") \
	X(width_zero, "width-zero", EINVAL, 0, "source width 0") \
	X(height_huge, "height-8193", EINVAL, 0, "destination height 8193") \
	X(pad, "surface-pad", EINVAL, 0, "source pad 1") \
	X(clip_x, "clip-empty-x", EINVAL, 0, "a clip with x1 = x2") \
	X(clip_y, "clip-inverted-y", EINVAL, 0, "a clip with y1 > y2") \
	X(clip_second, "clip-third-bad", EINVAL, 0, "the third of 3 clips inverted") \
	X(too_many_clips, "too-many-clips", E2BIG, 0, "65 clips") \
	X(too_many_clips_huge, "too-many-clips-huge", E2BIG, 0, "0xffffffff clips") \
	X(clip_pointer, "clip-pointer", EFAULT, 0, "clips in a PROT_NONE page") \
	X(clip_null, "clip-null", EFAULT, 0, "1 clip at address 0") \
	X(surface_past_object, "surface-past-object", ERANGE, 1, "a 64x300 source in 64 KiB") \
	X(offset_past_object, "offset-past-object", ERANGE, 1, "destination 4 KiB before the end") \
	X(unknown_context, "unknown-context", ENOENT, 0, "context 0x7777") \
	X(context_zero, "context-zero", ENOENT, 0, "context 0") \
	X(unknown_syncobj, "unknown-syncobj", ENOENT, 0, "out-syncobj 0xdead") \
	X(foreign_fb, "foreign-fb", EACCES, 0, "a non-master client blitting the master's fbs") \
	X(render_node_fb, "render-node-fb", EACCES, 0, "a render-node client blitting the master's fbs") \
	X(render_node_flip, "render-node-flip", EACCES, 0, "a FLIP from a render-node client") \
	X(flip_flags, "flip-flags", EINVAL, 0, "a FLIP with flag 0x2") \
	X(flip_unknown_crtc, "flip-unknown-crtc", ENOENT, 0, "CRTC 0xdead") \
	X(flip_crtc_is_connector, "flip-crtc-is-connector", ENOENT, 0, "a connector's id as the CRTC") \
	X(flip_unknown_fb, "flip-unknown-fb", ENOENT, 0, "fb 0xdead") \
	X(flip_no_fb, "flip-no-fb", EINVAL, 0, "fb 0") \
	X(flip_unknown_syncobj, "flip-unknown-syncobj", ENOENT, 0, "out-syncobj 0xdead") \
	X(flip_ctx, "flip-ctx-id", EINVAL, 0, "a FLIP with a context") \
	X(flip_clips, "flip-clips", EINVAL, 0, "a FLIP with a clip") \
	X(flip_dst, "flip-dst", EINVAL, 0, "a FLIP with a destination") \
	X(flip_dst_xy, "flip-dst-x", EINVAL, 0, "a FLIP with dst_x") \
	X(flip_handle, "flip-handle", EINVAL, 0, "a FLIP of a GEM handle") \
	X(flip_dropped_master, "flip-dropped-master", EACCES, 0, "a FLIP after DROP_MASTER") \
	X(flip_second_fd, "flip-not-master", EACCES, 0, "a FLIP from a second, non-master fd") \
	X(blit_system_bo, "blit-system-bo", EINVAL, 0, "a BLIT from a system-memory object's handle") \
	X(blit_system_fb, "blit-system-fb", EINVAL, 0, "a BLIT into a fb of a system-memory object") \
	X(flip_system_fb, "flip-system-fb", EINVAL, 0, "a FLIP to a fb of a system-memory object") \
	X(flip_small_fb, "flip-small-fb", ENOSPC, 0, "a FLIP to a fb smaller than the plane's source") \
	X(flip_crtc_off, "flip-crtc-off", EINVAL, 0, "a FLIP on a CRTC that is off")

static void bad_setup(struct bad *b)
{
	struct pt *t = &b->t;

	pt_open(t);
	pt_kms(t);
	vr_buf_init(&t->vr, &b->src, 64 << 10, DRM_VDXG_SEGMENT_VRAM);
	vr_buf_init(&t->vr, &b->dst, 64 << 10, DRM_VDXG_SEGMENT_APERTURE);
	vr_buf_randomize(&b->src, &t->rng);
	vr_buf_randomize(&b->dst, &t->rng);
	b->ss = vr_surf(&b->src, 0, VDXG_FMT_XRGB8888, 64, 48);
	b->ds = vr_surf(&b->dst, 0, VDXG_FMT_XRGB8888, 64, 48);
	b->clip = (struct drm_vdxg_rect){ 4, 6, 36, 30 };

	vr_buf_init(&t->vr, &b->abuf, (uint64_t)t->w * t->h * 4,
		    DRM_VDXG_SEGMENT_VRAM);
	b->as = vr_surf(&b->abuf, 0, VDXG_FMT_XRGB8888, t->w, t->h);
	cpu_pattern(&b->as, 0x11);
	b->fa = add_fb(t, &b->as);
	vr_buf_init(&t->vr, &b->bbuf, (uint64_t)t->w * t->h * 4,
		    DRM_VDXG_SEGMENT_VRAM);
	b->bs = vr_surf(&b->bbuf, 0, VDXG_FMT_XRGB8888, t->w, t->h);
	cpu_pattern(&b->bs, 0xee);
	b->fbb = add_fb(t, &b->bs);
	set_crtc(t, b->fa);
	b->so = vr_syncobj(&t->vr, false);
}

static void bad_teardown(struct bad *b)
{
	vdxg_syncobj_destroy(b->t.vr.dev, b->so);
	drmModeRmFB(b->t.vr.fd, b->fbb);
	drmModeRmFB(b->t.vr.fd, b->fa);
	vr_buf_fini(&b->bbuf);
	vr_buf_fini(&b->abuf);
	vr_buf_fini(&b->dst);
	vr_buf_fini(&b->src);
	pt_close(&b->t);
}

static void run_bad(const char *name, int (*fn)(struct bad *), int err,
		    bool parser, const char *desc)
{
	struct vdxg_ref_surface rd, rs;
	struct drm_event_vblank ev;
	uint64_t rejected;
	struct bad *b = calloc(1, sizeof(*b));
	int ret;

	vtest_assert(b);
	bad_setup(b);
	rejected = vr_debugfs(&b->t.vr, "render", "rejected");

	vtest_info("%s: %s, expecting %s", name, desc, strerror(err));
	ret = fn(b);
	vtest_assert_f(ret == -err, "%s (%s): PRESENT returned %d (%s), "
		       "expected %d (%s)", name, desc, ret, strerror(-ret),
		       -err, strerror(err));
	if (b->dropped_master)
		vtest_assert_f(drmSetMaster(b->t.vr.fd) == 0,
			       "SET_MASTER after DROP_MASTER: %s",
			       strerror(errno));
	vtest_assert_eq_u64(vr_debugfs(&b->t.vr, "render", "rejected"),
			    rejected + parser);

	/* Nothing happened: no write, no flip, no event, no fence. */
	vr_bo_wait(b->dst.bo);
	vr_buf_check(&b->dst, &b->ds, 1, "destination after the bad PRESENT");
	vr_buf_check(&b->src, &b->ss, 1, "source after the bad PRESENT");
	vtest_assert_eq(crtc_fb(&b->t), b->fa);
	vtest_assert_f(!read_event(&b->t, &ev, 50),
		       "an event (user data 0x%llx) after a failed PRESENT",
		       (unsigned long long)ev.user_data);
	vtest_assert_eq(vr_syncobj_wait(&b->t.vr, b->so, 0, 0), -EINVAL);

	/* A valid blit works... */
	ret = present(&b->t, blit(b));
	vtest_assert_f(ret == 0, "a valid BLIT after %s: %s", name,
		       strerror(-ret));
	syncobj_wait(&b->t, b->so, "valid blit");
	rd = vr_ref(&b->ds);
	rs = vr_ref(&b->ss);
	vdxg_ref_copy_rect(&rd, &rs, b->clip.x1, b->clip.y1, b->clip.x1,
			   b->clip.y1, b->clip.x2 - b->clip.x1,
			   b->clip.y2 - b->clip.y1);
	vr_buf_check(&b->dst, &b->ds, 1, "destination of the valid BLIT");

	/* ...and so does a valid flip. */
	flip_checked(&b->t, b->fbb, 0x600d0000 + err, "valid flip");
	vtest_assert_f(!read_event(&b->t, &ev, 50),
		       "a second event (user data 0x%llx) after one flip",
		       (unsigned long long)ev.user_data);

	bad_teardown(b);
	free(b);
}

#define X(fn, name, err, parser, desc) \
	static void t_bad_##fn(void) \
	{ run_bad(name, bad_##fn, err, parser, desc); }
BAD_ROWS(X)
#undef X

static const struct vtest_subtest subtests[] = {
	{ "blit-scanout", test_blit_scanout,
	  "BLIT of a rendered scene into the scanout: readback and screen" },
	{ "flip", test_flip,
	  "FLIP to a second fb: event, fence, CRTC fb and screen; and back" },
	{ "clip-rects", test_clip_rects,
	  "BLIT through clips reaching past both surfaces (XRGB8888)" },
	{ "clip-rects-rgb565", test_clip_rects_rgb565,
	  "BLIT through clips, ARGB8888 to RGB565, negative offset, render node" },
	{ "blit-nothing", test_blit_nothing,
	  "BLITs that copy nothing: accepted, signalled, nothing written" },
	{ "blit-overlap", test_blit_overlap,
	  "BLIT within one object and of a fb onto itself (non-master owner)" },
	{ "blit-waits-for-render", test_blit_waits_for_render,
	  "BLIT waits for another context's job writing its source" },
	{ "flip-waits-for-blit", test_flip_waits_for_blit,
	  "FLIP waits for the held BLIT into its fb, then shows it" },
	{ "flip-busy", test_flip_busy,
	  "a FLIP while one is pending: EBUSY, no event, no fence" },
#define X(fn, name, err, parser, desc) { "bad-" name, t_bad_##fn, desc },
	BAD_ROWS(X)
#undef X
};

VTEST_MAIN(subtests)
