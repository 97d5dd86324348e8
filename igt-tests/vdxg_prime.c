// SPDX-License-Identifier: MIT
/*
 * vdxg_prime: PRIME (dma-buf) export and import between vdxg and vgem.
 *
 * Upstream IGT's kms_prime cannot test a non-Intel importer (its
 * basic-crc-vgem subtest asserts in is_intel_dgfx()), so this one does,
 * with the display's CRCs (debugfs dri/N/crtc-K/crc) and byte compares:
 *
 * - vgem-to-vdxg-scanout: vgem dumb buffers of the mode's size, filled on
 *   the CPU with per-pixel patterns, are imported into vdxg, made
 *   framebuffers and shown. Each CRC must equal the one of a native vdxg
 *   dumb buffer with the same pixels and the CRC computed on the CPU (the
 *   device's CRC is zlib's crc32 of the frame, docs/hardware.md), and a
 *   buffer with one pixel changed must give another CRC; writing that
 *   pixel through vgem's mapping while the import is on screen must give
 *   that CRC too (the memory is shared, not copied).
 * - vdxg-to-vgem: a dumb buffer written through its vdxg mapping, and an
 *   object rendered by the RENDER engine in VRAM, are exported and
 *   imported into vgem (which attaches: vdxg pins them in the aperture),
 *   then read byte for byte through the dma-buf's mapping (the kernel's
 *   MODE_MAP_DUMB refuses imported objects with EINVAL, checked: an
 *   importer's mmap is the dma-buf's); writes on either side are seen by
 *   the other, and a write fence vgem attaches to its import holds back a
 *   vdxg job on the object until vgem signals it.
 * - import-render: an imported vgem buffer is the source of a PRESENT
 *   BLIT and of a RENDER COPY_RECT into native objects, and the
 *   destination of a FILL_RECT read back through vgem after
 *   DMA_BUF_IOCTL_SYNC alone (implicit sync through the shared
 *   reservation object).
 * - self-import: export then import on the same file gives the same
 *   handle; on another file the same object (same memory, no aperture
 *   copy); exporting twice gives the same dma-buf.
 * - bad-import-export: the errnos of importing what is not a dma-buf,
 *   exporting a bad handle, ADDFB2 past an imported object's end, sharing
 *   a VRAM-only object; a dma-buf outlives the vdxg handle it was imported
 *   as.
 * - lifetime: a dma-buf keeps a vdxg object whose handle is closed (its
 *   memory stays allocated and its bytes reach vgem), and once everything
 *   is closed the segment usage of debugfs "segments" (the driver has no
 *   object count) returns to what it was.
 * - scanout-pinned-by-export: an object of VRAM and system memory that an
 *   export pinned in system memory cannot be scanned out (EINVAL, the
 *   screen unchanged) until the importer lets go.
 *
 * The vgem node is taken as in vdxg_submit: modprobe vgem if needed, skip
 * when it cannot be loaded. The scanout subtest takes DRM master and sets
 * its own mode on the first connected connector, as vdxg_present does.
 */
#define _GNU_SOURCE	/* memfd_create */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "voutput.h"
#include "vgem.h"
#include "vrender.h"

/* ---------------------------------------------------------------- utils */

/*
 * Patterns: a function of every pixel, so that a pixel taken from the
 * wrong place shows. 0: gradients and an XOR texture, X byte 0xff; 1 and
 * up: a hash of (x, y, pattern), X byte included (the display ignores it).
 */
static uint32_t pattern(int p, uint32_t x, uint32_t y, uint32_t w, uint32_t h)
{
	uint32_t v;

	if (p == 0)
		return 0xff000000 | (x * 255 / (w - 1)) << 16 |
		       ((x ^ y) & 0xff) << 8 | (y * 255 / (h - 1));
	v = x * 0x9e3779b1u ^ (y + 1) * 0x85ebca77u ^ p * 0xc2b2ae3du;
	v ^= v >> 15;
	v *= 0x2c1b3c6du;
	v ^= v >> 12;
	v *= 0x297a2d39u;
	v ^= v >> 15;
	return v;
}

static void fill_pattern(void *map, uint32_t pitch, int p, uint32_t w,
			 uint32_t h)
{
	uint32_t x, y;

	for (y = 0; y < h; y++) {
		uint32_t *row = (uint32_t *)((uint8_t *)map + (size_t)y * pitch);

		for (x = 0; x < w; x++)
			row[x] = pattern(p, x, y, w, h);
	}
}

/* Compare LEN bytes; print the first differences and fail. */
static void compare_bytes(const void *got, const void *exp, size_t len,
			  const char *what)
{
	const uint8_t *g = got, *e = exp;
	size_t i, bad = 0, first = 0;

	for (i = 0; i < len; i++) {
		if (g[i] == e[i])
			continue;
		if (!bad++)
			first = i;
		if (bad <= 8)
			vtest_info("%s: byte %zu is 0x%02x, expected 0x%02x",
				   what, i, g[i], e[i]);
	}
	vtest_assert_f(!bad, "%s: %zu of %zu bytes differ, the first at %zu",
		       what, bad, len, first);
	vtest_info("%s: %zu bytes match", what, len);
}

/* DMA_BUF_IOCTL_SYNC around CPU access to a dma-buf's memory. */
static void dmabuf_sync(int dmabuf, uint64_t flags)
{
	struct dma_buf_sync s = { .flags = flags };

	vtest_assert_ok(vtest_ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &s));
}

static ino_t fd_ino(int fd)
{
	struct stat st;

	vtest_assert_ok(fstat(fd, &st));
	return st.st_ino;
}

/* ------------------------------------------------------------ GEM, KMS */

/* A dumb buffer and its CPU mapping, on any DRM device. */
struct dumb {
	int fd;
	uint32_t handle;
	uint32_t w, h, pitch;
	uint64_t size;
	void *map;
};

/* mmap SIZE bytes of FD at the fake OFFSET an ioctl gave for HANDLE. */
static void *map_at(int fd, uint32_t handle, uint64_t offset, uint64_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       (off_t)offset);

	vtest_assert_f(p != MAP_FAILED, "mmap of handle %u: %s", handle,
		       strerror(errno));
	return p;
}

/* A vgem dumb buffer's mapping (MODE_MAP_DUMB, card node). */
static void *gem_map(int fd, uint32_t handle, uint64_t size)
{
	struct drm_mode_map_dumb md = { .handle = handle };

	vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &md));
	return map_at(fd, handle, md.offset, size);
}

/* A vdxg object's mapping (GEM_MMAP_OFFSET, any node). */
static void *vdxg_map(int fd, uint32_t handle, uint64_t size)
{
	struct drm_vdxg_gem_mmap_offset mo = { .handle = handle };

	vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_VDXG_GEM_MMAP_OFFSET, &mo));
	return map_at(fd, handle, mo.offset, size);
}

static void gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &c));
}

static void dumb_create(struct dumb *d, int fd, uint32_t w, uint32_t h)
{
	struct drm_mode_create_dumb c = { .width = w, .height = h, .bpp = 32 };

	memset(d, 0, sizeof(*d));
	vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &c));
	vtest_assert_lte_u64((uint64_t)w * 4, c.pitch);
	vtest_assert_lte_u64((uint64_t)c.pitch * h, c.size);
	d->fd = fd;
	d->handle = c.handle;
	d->w = w;
	d->h = h;
	d->pitch = c.pitch;
	d->size = c.size;
	d->map = gem_map(fd, d->handle, d->size);
}

static void dumb_free(struct dumb *d)
{
	if (d->map)
		munmap(d->map, d->size);
	if (d->handle)
		gem_close(d->fd, d->handle);
	memset(d, 0, sizeof(*d));
}

static int export_fd(int fd, uint32_t handle)
{
	int dmabuf = -1;

	vtest_assert_f(drmPrimeHandleToFD(fd, handle, DRM_CLOEXEC | DRM_RDWR,
					  &dmabuf) == 0,
		       "export of handle %u: %s", handle, strerror(errno));
	vtest_assert(dmabuf >= 0);
	return dmabuf;
}

static uint32_t import_fd(int fd, int dmabuf)
{
	uint32_t handle = 0;

	vtest_assert_f(drmPrimeFDToHandle(fd, dmabuf, &handle) == 0,
		       "import of dma-buf %d: %s", dmabuf, strerror(errno));
	vtest_assert(handle);
	return handle;
}

/* ADDFB2 of an XRGB8888 framebuffer; 0 or -errno. */
static int addfb(int fd, uint32_t handle, uint32_t w, uint32_t h,
		 uint32_t pitch, uint32_t offset, uint32_t *fb)
{
	struct drm_mode_fb_cmd2 f = {
		.width = w, .height = h,
		.pixel_format = DRM_FORMAT_XRGB8888,
		.handles = { handle }, .pitches = { pitch },
		.offsets = { offset },
	};

	*fb = 0;
	if (vtest_ioctl(fd, DRM_IOCTL_MODE_ADDFB2, &f))
		return -errno;
	*fb = f.fb_id;
	return 0;
}

static void rmfb(int fd, uint32_t fb)
{
	vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_MODE_RMFB, &fb));
}

/* GEM_INFO: the segment the object is in now, and its size. */
static uint32_t gem_segment(int fd, uint32_t handle, uint64_t *size)
{
	struct drm_vdxg_gem_info info = { .handle = handle };

	vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_VDXG_GEM_INFO, &info));
	if (size)
		*size = info.size;
	return info.segment;
}


/* ---------------------------------------------------------------- setup */

struct pt {
	struct vr vr;		/* vr.dev and vr.fd: the card node */
	bool render;		/* vr_open_dev() ran: a RENDER engine */
	uint32_t ctx;
	int fd;			/* = vr.fd */
	int minor;
	int vgem;
	uint64_t kmsg;
	/* KMS, after pt_kms() */
	uint32_t crtc_id, conn_id;
	int head;
	drmModeModeInfo mode;
	uint32_t w, h;
};

static void pt_open(struct pt *t, bool render)
{
	struct vdxg_device *dev = NULL;
	int fd, ret;

	memset(t, 0, sizeof(*t));
	t->vgem = -1;
	fd = vtest_drm_open_driver("vdxg", VTEST_NODE_CARD, NULL);
	if (fd < 0)
		vtest_skip("no vdxg card node");
	ret = vdxg_device_open_fd(fd, &dev);
	close(fd);
	vtest_assert_f(ret == 0, "vdxg_device_open_fd: %s", strerror(-ret));
	t->vr.dev = dev;
	t->vr.fd = vdxg_device_fd(dev);
	if (render) {
		/* Skips without a RENDER engine (the device is kept). */
		vr_open_dev(&t->vr, dev);
		t->render = true;
		t->ctx = vr_ctx(&t->vr);
	}
	t->fd = t->vr.fd;
	t->minor = vtest_drm_minor(t->fd);
	t->kmsg = vtest_kmsg_seq();
	t->vgem = vtest_open_vgem(NULL);
}

static void pt_close(struct pt *t)
{
	int n = vtest_kmsg_problems(t->kmsg);

	vtest_assert_f(n == 0, "%d kernel log problem(s)", n);
	if (t->ctx)
		vdxg_context_destroy(t->vr.dev, t->ctx);
	vr_close(&t->vr);
	close(t->vgem);
}

/* DRM master, the first connected connector, its CRTC and mode. */
static void pt_kms(struct pt *t)
{
	struct voutput o;

	voutput_find(t->fd, &o);
	t->crtc_id = o.crtc_id;
	t->conn_id = o.conn_id;
	t->head = o.head;
	t->mode = o.mode;
	t->w = o.w;
	t->h = o.h;
}

/* SETCRTC of FB in the test's mode; 0 or -errno. */
static int try_set_crtc(struct pt *t, uint32_t fb)
{
	struct drm_mode_crtc c = {
		.set_connectors_ptr = (uintptr_t)&t->conn_id,
		.count_connectors = 1,
		.crtc_id = t->crtc_id,
		.fb_id = fb,
		.mode_valid = 1,
	};

	memcpy(&c.mode, &t->mode, sizeof(c.mode));
	return vtest_ioctl(t->fd, DRM_IOCTL_MODE_SETCRTC, &c) ? -errno : 0;
}

static void set_crtc(struct pt *t, uint32_t fb)
{
	vtest_assert_f(drmModeSetCrtc(t->fd, t->crtc_id, fb, 0, 0,
				      &t->conn_id, 1, &t->mode) == 0,
		       "SetCrtc of fb %u: %s", fb, strerror(errno));
}

/* ------------------------------------------------------------------ CRC */

static uint32_t fb_crc(struct pt *t, uint32_t fb, const char *what)
{
	set_crtc(t, fb);
	return voutput_screen_crc(t->fd, t->head, what);
}

/* -------------------------------------------------- vgem-to-vdxg-scanout */

/* Copy a W x H image of pitch W * 4 into a mapping of pitch PITCH. */
static void put_image(void *map, uint32_t pitch, const uint32_t *img,
		      uint32_t w, uint32_t h)
{
	uint32_t y;

	for (y = 0; y < h; y++)
		memcpy((uint8_t *)map + (size_t)y * pitch, img + (size_t)y * w,
		       (size_t)w * 4);
}

static void scanout_pattern(struct pt *t, int p)
{
	struct dumb vg, nat, mod;
	uint32_t imp, fb_imp, fb_nat, fb_mod, *img, *px;
	uint32_t exp, exp_mod, c_imp, c_nat, c_mod, c_live;
	uint32_t mx = t->w / 2 + 7, my = t->h / 3 + 5;
	uint64_t size;
	char what[64];
	int dmabuf;

	img = malloc((size_t)t->w * t->h * 4);
	vtest_assert(img);
	fill_pattern(img, t->w * 4, p, t->w, t->h);
	exp = voutput_image_crc(img, t->w * 4, t->w, t->h);

	/* vgem's buffer, drawn on the CPU, shared with vdxg. */
	dumb_create(&vg, t->vgem, t->w, t->h);
	dmabuf = export_fd(vg.fd, vg.handle);
	dmabuf_sync(dmabuf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE);
	put_image(vg.map, vg.pitch, img, t->w, t->h);
	dmabuf_sync(dmabuf, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE);
	imp = import_fd(t->fd, dmabuf);
	vtest_assert_eq(gem_segment(t->fd, imp, &size),
			DRM_VDXG_SEGMENT_APERTURE);
	vtest_assert_eq_u64(size, vg.size);
	vtest_assert_eq(addfb(t->fd, imp, t->w, t->h, vg.pitch, 0, &fb_imp),
			0);

	/* The same pixels in a native vdxg buffer; one pixel off in another. */
	dumb_create(&nat, t->fd, t->w, t->h);
	put_image(nat.map, nat.pitch, img, t->w, t->h);
	vtest_assert_eq(addfb(t->fd, nat.handle, t->w, t->h, nat.pitch, 0,
			      &fb_nat), 0);
	img[(size_t)my * t->w + mx] ^= 0x00010000;
	exp_mod = voutput_image_crc(img, t->w * 4, t->w, t->h);
	vtest_assert_neq_u64(exp, exp_mod);
	dumb_create(&mod, t->fd, t->w, t->h);
	put_image(mod.map, mod.pitch, img, t->w, t->h);
	vtest_assert_eq(addfb(t->fd, mod.handle, t->w, t->h, mod.pitch, 0,
			      &fb_mod), 0);

	snprintf(what, sizeof(what), "pattern %d, vgem import", p);
	c_imp = fb_crc(t, fb_imp, what);
	snprintf(what, sizeof(what), "pattern %d, native", p);
	c_nat = fb_crc(t, fb_nat, what);
	snprintf(what, sizeof(what), "pattern %d, native, pixel changed", p);
	c_mod = fb_crc(t, fb_mod, what);

	vtest_assert_eq_u64(c_nat, exp);
	vtest_assert_eq_u64(c_mod, exp_mod);
	vtest_assert_eq_u64(c_imp, c_nat);
	vtest_assert_neq_u64(c_mod, c_nat);

	/* The import is vgem's memory: a write through vgem shows. */
	set_crtc(t, fb_imp);
	dmabuf_sync(dmabuf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE);
	px = (uint32_t *)((uint8_t *)vg.map + (size_t)my * vg.pitch) + mx;
	*px ^= 0x00010000;
	dmabuf_sync(dmabuf, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE);
	snprintf(what, sizeof(what), "pattern %d, vgem import, pixel written",
		 p);
	c_live = voutput_screen_crc(t->fd, t->head, what);
	vtest_assert_eq_u64(c_live, c_mod);

	set_crtc(t, fb_nat);
	rmfb(t->fd, fb_imp);
	rmfb(t->fd, fb_mod);
	gem_close(t->fd, imp);
	close(dmabuf);
	dumb_free(&vg);
	dumb_free(&mod);
	rmfb(t->fd, fb_nat);
	dumb_free(&nat);
	free(img);
}

static void test_vgem_to_vdxg_scanout(void)
{
	struct pt t;
	int p;

	pt_open(&t, false);
	pt_kms(&t);
	for (p = 0; p < 3; p++)
		scanout_pattern(&t, p);
	pt_close(&t);
}

/* ------------------------------------------------------------ vdxg-to-vgem */

/*
 * A dma-buf of vdxg imported into vgem (attached: vdxg pins the object
 * and gives vgem its pages) and mapped. The kernel's dumb-buffer mmap
 * refuses imported objects (drm_gem_dumb_map_offset(): EINVAL), which is
 * checked; the mapping is the dma-buf's own, the dma_buf_mmap() that the
 * GEM helpers redirect an importer's mmap to.
 */
struct vgem_view {
	uint32_t handle;
	uint64_t size;
	void *map;
};

static void vgem_view(struct pt *t, int dmabuf, uint64_t size,
		      struct vgem_view *v)
{
	struct drm_mode_map_dumb md = { 0 };

	v->handle = import_fd(t->vgem, dmabuf);
	md.handle = v->handle;
	vtest_assert_errno(vtest_ioctl(t->vgem, DRM_IOCTL_MODE_MAP_DUMB, &md),
			   EINVAL);
	v->size = size;
	vtest_assert_eq_u64(lseek(dmabuf, 0, SEEK_END), size);
	v->map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, dmabuf,
		      0);
	vtest_assert_f(v->map != MAP_FAILED, "mmap of the dma-buf: %s",
		       strerror(errno));
}

static void vgem_view_fini(struct pt *t, struct vgem_view *v)
{
	munmap(v->map, v->size);
	gem_close(t->vgem, v->handle);
}

static void test_vdxg_to_vgem(void)
{
	struct local_vgem_fence_attach fa = { 0 };
	struct local_vgem_fence_signal fs = { 0 };
	const uint32_t w = 320, h = 200, rw = 256, rh = 192;
	struct vdxg_ref_surface r;
	struct vgem_view v;
	struct vdxg_cs *cs;
	struct vdxg_bo *bo;
	struct dumb d;
	uint8_t *ref;
	uint32_t pitch = rw * 4, i;
	uint64_t rng;
	int dmabuf;
	struct pt t;

	pt_open(&t, true);
	rng = vr_seed();

	/* A dumb buffer written through vdxg's mapping. */
	dumb_create(&d, t.fd, w, h);
	fill_pattern(d.map, d.pitch, 1, w, h);
	dmabuf = export_fd(t.fd, d.handle);
	vgem_view(&t, dmabuf, d.size, &v);
	vtest_info("dumb buffer: %ux%u pitch %u, %" PRIu64 " bytes, now in "
		   "segment %u", w, h, d.pitch, d.size,
		   gem_segment(t.fd, d.handle, NULL));
	dmabuf_sync(dmabuf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ);
	compare_bytes(v.map, d.map, d.size, "dumb buffer, imported by vgem");
	dmabuf_sync(dmabuf, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ);

	/* Shared, not copied: writes on each side show on the other. */
	ref = malloc(d.size);
	vtest_assert(ref);
	fill_pattern(d.map, d.pitch, 2, w, h);
	memcpy(ref, d.map, d.size);
	compare_bytes(v.map, ref, d.size, "vdxg write, read through the dma-buf");
	dmabuf_sync(dmabuf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE);
	for (i = 0; i < d.size; i += 4099)
		((uint8_t *)v.map)[i] ^= 0x5a;
	dmabuf_sync(dmabuf, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE);
	for (i = 0; i < d.size; i += 4099)
		ref[i] ^= 0x5a;
	compare_bytes(d.map, ref, d.size, "dma-buf write, read through vdxg");
	free(ref);
	vgem_view_fini(&t, &v);
	close(dmabuf);
	dumb_free(&d);

	/* An object in VRAM (or the aperture), drawn by the RENDER engine. */
	bo = vr_bo(&t.vr, (uint64_t)pitch * rh, DRM_VDXG_SEGMENT_VRAM,
		   DRM_VDXG_SEGMENT_APERTURE);
	ref = calloc(1, bo->size);
	vtest_assert(ref);
	r = (struct vdxg_ref_surface){ ref, VDXG_FMT_XRGB8888, rw, rh, pitch };
	cs = vr_cs();
	vdxg_cs_set_surface(cs, VDXG_SLOT_DST, bo, 0, DRM_VDXG_ALLOC_WRITE,
			    VDXG_FMT_XRGB8888, rw, rh, pitch);
	vdxg_cs_fill_rect(cs, 0, 0, rw, rh, 0xff203040);
	vdxg_ref_fill_rect(&r, 0, 0, rw, rh, 0xff203040);
	for (i = 0; i < 24; i++) {
		uint32_t x = vr_rand(&rng) % rw, y = vr_rand(&rng) % rh;
		uint32_t fw = 1 + vr_rand(&rng) % (rw - x);
		uint32_t fh = 1 + vr_rand(&rng) % (rh - y);
		uint32_t c = vr_rand(&rng);

		vdxg_cs_fill_rect(cs, x, y, fw, fh, c);
		vdxg_ref_fill_rect(&r, x, y, fw, fh, c);
	}
	vr_cs_ok(cs);
	vr_submit(&t.vr, t.ctx, cs, NULL);
	vr_bo_wait(bo);
	vtest_info("rendered object: %" PRIu64 " bytes in segment %u", bo->size,
		   vr_bo_segment(bo));
	compare_bytes(vr_map(bo), ref, bo->size, "rendered, through vdxg");
	dmabuf = export_fd(t.fd, bo->handle);
	vgem_view(&t, dmabuf, bo->size, &v);
	/* Shared objects are pinned where their pages are system pages. */
	vtest_assert_eq(vr_bo_segment(bo), DRM_VDXG_SEGMENT_APERTURE);
	dmabuf_sync(dmabuf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ);
	compare_bytes(v.map, ref, bo->size, "rendered, imported by vgem");
	dmabuf_sync(dmabuf, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ);

	/*
	 * Implicit sync through the reservation object vdxg shares with the
	 * dma-buf: a write fence vgem attaches to its import holds back a
	 * vdxg job writing the object until vgem signals it.
	 */
	fa.handle = v.handle;
	fa.flags = LOCAL_VGEM_FENCE_WRITE;
	vtest_assert_ok(vtest_ioctl(t.vgem, LOCAL_IOCTL_VGEM_FENCE_ATTACH,
				    &fa));
	vtest_assert(!vr_bo_idle(bo));
	vdxg_cs_reset(cs);
	vdxg_cs_set_surface(cs, VDXG_SLOT_DST, bo, 0, DRM_VDXG_ALLOC_WRITE,
			    VDXG_FMT_XRGB8888, rw, rh, pitch);
	vdxg_cs_fill_rect(cs, 13, 17, 101, 77, 0xff00ff80);
	vr_cs_ok(cs);
	vr_submit(&t.vr, t.ctx, cs, NULL);
	vr_sleep_ms(200);
	vtest_assert(!vr_bo_idle(bo));
	compare_bytes(v.map, ref, bo->size, "held by vgem's fence");
	fs.fence = fa.out_fence;
	vtest_assert_ok(vtest_ioctl(t.vgem, LOCAL_IOCTL_VGEM_FENCE_SIGNAL,
				    &fs));
	vr_bo_wait(bo);
	vdxg_ref_fill_rect(&r, 13, 17, 101, 77, 0xff00ff80);
	dmabuf_sync(dmabuf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ);
	compare_bytes(v.map, ref, bo->size, "rendered after vgem's fence");
	dmabuf_sync(dmabuf, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ);

	vdxg_cs_free(cs);
	vgem_view_fini(&t, &v);
	close(dmabuf);
	vdxg_bo_free(bo);
	free(ref);
	pt_close(&t);
}

/* ----------------------------------------------------------- import-render */

static void test_import_render(void)
{
	const uint32_t sw = 256, sh = 128, dw = 512, dh = 256;
	struct vdxg_ref_surface rsrc, rdst;
	struct drm_vdxg_present_surface ps, pd;
	struct vr_buf dst, dst2;
	struct vr_surf sd, sd2;
	struct vdxg_bo *ibo;
	struct vdxg_cs *cs;
	struct dumb vg;
	uint8_t *src_ref;
	uint32_t imp, so;
	int dmabuf, ret;
	uint64_t rng;
	struct pt t;

	pt_open(&t, true);
	rng = vr_seed();

	dumb_create(&vg, t.vgem, sw, sh);
	vtest_assert_eq(vg.pitch, sw * 4);
	fill_pattern(vg.map, vg.pitch, 1, sw, sh);
	src_ref = malloc(vg.size);
	vtest_assert(src_ref);
	memcpy(src_ref, vg.map, vg.size);
	rsrc = (struct vdxg_ref_surface){ src_ref, VDXG_FMT_XRGB8888, sw, sh,
					  vg.pitch };
	dmabuf = export_fd(t.vgem, vg.handle);
	imp = import_fd(t.fd, dmabuf);
	vtest_assert_eq(gem_segment(t.fd, imp, NULL),
			DRM_VDXG_SEGMENT_APERTURE);
	ret = vdxg_bo_from_handle(t.vr.dev, imp, vg.size, &ibo);
	vtest_assert_f(ret == 0, "vdxg_bo_from_handle: %s", strerror(-ret));

	/* PRESENT BLIT from the import into a native VRAM object. */
	vr_buf_init(&t.vr, &dst, (uint64_t)dw * dh * 4, DRM_VDXG_SEGMENT_VRAM);
	vr_buf_randomize(&dst, &rng);
	sd = vr_surf(&dst, 0, VDXG_FMT_XRGB8888, dw, dh);
	rdst = vr_ref(&sd);
	ps = vdxg_present_bo(ibo, DRM_FORMAT_XRGB8888, sw, sh, vg.pitch, 0);
	pd = vdxg_present_bo(dst.bo, DRM_FORMAT_XRGB8888, dw, dh, sd.pitch, 0);
	so = vr_syncobj(&t.vr, false);
	ret = vdxg_present_blit(t.vr.dev, t.ctx, &ps, &pd, 100, 50, NULL, 0,
				so);
	vtest_assert_f(ret == 0, "PRESENT BLIT from the import: %s",
		       vdxg_strerror(ret));
	vtest_assert_eq(vr_syncobj_wait(&t.vr, so, 0, VR_WAIT_NS), 0);
	vdxg_ref_copy_rect(&rdst, &rsrc, 0, 0, 100, 50, sw, sh);
	vr_buf_check(&dst, &sd, 1, "PRESENT BLIT of the import");

	/*
	 * RENDER: COPY_RECT from the import into another object, then a
	 * FILL_RECT into the import. Read back through vgem after
	 * DMA_BUF_IOCTL_SYNC only: the job's fence is in the reservation
	 * object vdxg shares with vgem.
	 */
	vr_buf_init(&t.vr, &dst2, (uint64_t)dw * dh * 4,
		    DRM_VDXG_SEGMENT_APERTURE);
	vr_buf_randomize(&dst2, &rng);
	sd2 = vr_surf(&dst2, 0, VDXG_FMT_XRGB8888, dw, dh);
	rdst = vr_ref(&sd2);
	cs = vr_cs();
	vdxg_cs_set_surface(cs, VDXG_SLOT_SRC, ibo, 0, 0, VDXG_FMT_XRGB8888,
			    sw, sh, vg.pitch);
	vr_cs_surface(cs, VDXG_SLOT_DST, &sd2);
	vdxg_cs_copy_rect(cs, 16, 8, 200, 120, 224, 112);
	vdxg_ref_copy_rect(&rdst, &rsrc, 16, 8, 200, 120, 224, 112);
	vdxg_cs_set_surface(cs, VDXG_SLOT_DST, ibo, 0, DRM_VDXG_ALLOC_WRITE,
			    VDXG_FMT_XRGB8888, sw, sh, vg.pitch);
	vdxg_cs_fill_rect(cs, 30, 20, 97, 61, 0xff3366cc);
	vdxg_ref_fill_rect(&rsrc, 30, 20, 97, 61, 0xff3366cc);
	vr_cs_ok(cs);
	vr_submit(&t.vr, t.ctx, cs, NULL);
	dmabuf_sync(dmabuf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ);
	compare_bytes(vg.map, src_ref, vg.size,
		      "FILL_RECT into the import, vgem mapping");
	dmabuf_sync(dmabuf, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ);
	vr_bo_wait(dst2.bo);
	vr_buf_check(&dst2, &sd2, 1, "COPY_RECT from the import");

	vdxg_cs_free(cs);
	vdxg_syncobj_destroy(t.vr.dev, so);
	vr_buf_fini(&dst2);
	vr_buf_fini(&dst);
	vdxg_bo_free(ibo);	/* closes the imported handle */
	close(dmabuf);
	dumb_free(&vg);
	free(src_ref);
	pt_close(&t);
}

/* ------------------------------------------------------------- self-import */

static void test_self_import(void)
{
	const uint32_t w = 128, h = 96;
	struct dumb d;
	uint32_t h1, h2, hb, seg;
	uint64_t size;
	int fd1, fd2, fdb, other;
	uint8_t *mb, *ref;
	struct pt t;

	pt_open(&t, false);
	dumb_create(&d, t.fd, w, h);
	fill_pattern(d.map, d.pitch, 3, w, h);
	seg = gem_segment(t.fd, d.handle, NULL);

	/* Exporting twice gives the same dma-buf. */
	fd1 = export_fd(t.fd, d.handle);
	fd2 = export_fd(t.fd, d.handle);
	vtest_assert_neq(fd1, fd2);
	vtest_assert_eq_u64(fd_ino(fd1), fd_ino(fd2));

	/* Same file: the handle it came from. */
	h1 = import_fd(t.fd, fd1);
	h2 = import_fd(t.fd, fd2);
	vtest_assert_eq(h1, d.handle);
	vtest_assert_eq(h2, d.handle);

	/* Another file: a new handle on the same object, not an sg import. */
	other = vtest_drm_open_driver("vdxg", VTEST_NODE_RENDER, NULL);
	if (other < 0)
		other = vtest_drm_open_driver("vdxg", VTEST_NODE_CARD, NULL);
	vtest_assert(other >= 0);
	hb = import_fd(other, fd1);
	vtest_assert_eq(gem_segment(other, hb, &size), seg);
	vtest_assert_eq_u64(size, d.size);
	vtest_assert_eq(import_fd(other, fd2), hb);
	mb = vdxg_map(other, hb, d.size);
	compare_bytes(mb, d.map, d.size, "self-import on another file");

	/* One memory: a write through each mapping shows in the other. */
	ref = malloc(d.size);
	vtest_assert(ref);
	fill_pattern(mb, d.pitch, 4, w, h);
	memcpy(ref, mb, d.size);
	compare_bytes(d.map, ref, d.size, "written through the other file");
	memset(d.map, 0xa5, d.size / 2);
	memset(ref, 0xa5, d.size / 2);
	compare_bytes(mb, ref, d.size, "written through the first file");

	/* Its export, imported back, is the first file's handle again. */
	fdb = export_fd(other, hb);
	vtest_assert_eq_u64(fd_ino(fdb), fd_ino(fd1));
	vtest_assert_eq(import_fd(t.fd, fdb), d.handle);

	/* The object lives while the other file's handle does. */
	munmap(d.map, d.size);
	gem_close(t.fd, d.handle);
	d.handle = 0;
	d.map = NULL;
	compare_bytes(mb, ref, d.size, "after the first handle's close");
	h1 = import_fd(t.fd, fd1);
	d.map = vdxg_map(t.fd, h1, d.size);
	d.handle = h1;
	compare_bytes(d.map, ref, d.size, "imported again after the close");

	munmap(mb, d.size);
	gem_close(other, hb);
	close(other);
	close(fdb);
	close(fd2);
	close(fd1);
	dumb_free(&d);
	free(ref);
	pt_close(&t);
}

/* ------------------------------------------------------- bad-import-export */

static void test_bad_import_export(void)
{
	static const uint32_t vram[] = { DRM_VDXG_SEGMENT_VRAM };
	struct vdxg_bo *vbo;
	struct dumb vg;
	uint32_t handle, imp, fb, h2;
	int memfd, dmabuf, closed, other, ret, vfd;
	uint8_t *ref, *map;
	struct pt t;

	pt_open(&t, false);

	/* Importing what is not a dma-buf: dma_buf_get() says EINVAL. */
	memfd = memfd_create("vdxg-prime", MFD_CLOEXEC);
	vtest_assert(memfd >= 0);
	vtest_assert_ok(ftruncate(memfd, 65536));
	vtest_assert_errno(drmPrimeFDToHandle(t.fd, memfd, &handle), EINVAL);
	vtest_assert_errno(drmPrimeFDToHandle(t.fd, t.fd, &handle), EINVAL);
	close(memfd);
	/* ... and a descriptor that is not open: EBADF. */
	closed = dup(t.fd);
	vtest_assert(closed >= 0);
	close(closed);
	vtest_assert_errno(drmPrimeFDToHandle(t.fd, closed, &handle), EBADF);
	vtest_assert_errno(drmPrimeFDToHandle(t.fd, -1, &handle), EBADF);

	/* Exporting a handle that does not exist: ENOENT. */
	vtest_assert_errno(drmPrimeHandleToFD(t.fd, 0, DRM_CLOEXEC, &dmabuf),
			   ENOENT);
	vtest_assert_errno(drmPrimeHandleToFD(t.fd, 0x7ffffff0, DRM_CLOEXEC,
					      &dmabuf), ENOENT);

	/* ADDFB2 past the end of an imported 64x64 (16 KiB) vgem buffer. */
	dumb_create(&vg, t.vgem, 64, 64);
	vtest_assert_eq(vg.pitch, 256);
	vtest_assert_eq_u64(vg.size, 16384);
	fill_pattern(vg.map, vg.pitch, 5, 64, 64);
	ref = malloc(vg.size);
	vtest_assert(ref);
	memcpy(ref, vg.map, vg.size);
	dmabuf = export_fd(t.vgem, vg.handle);
	imp = import_fd(t.fd, dmabuf);
	vtest_assert_eq(addfb(t.fd, imp, 64, 64, 256, 0, &fb), 0);
	rmfb(t.fd, fb);
	vtest_assert_eq(addfb(t.fd, imp, 64, 65, 256, 0, &fb), -EINVAL);
	vtest_assert_eq(addfb(t.fd, imp, 64, 64, 256, 4, &fb), -EINVAL);
	vtest_assert_eq(addfb(t.fd, imp, 64, 64, 260, 0, &fb), -EINVAL);
	vtest_assert_eq(addfb(t.fd, imp, 128, 128, 512, 0, &fb), -EINVAL);

	/*
	 * Close the imported handle: it is gone (ENOENT on export), the
	 * dma-buf is not. With vgem's own handle closed too, the dma-buf
	 * alone keeps the memory for vgem (a new file) and for vdxg.
	 */
	gem_close(t.fd, imp);
	vtest_assert_errno(drmPrimeHandleToFD(t.fd, imp, DRM_CLOEXEC, &other),
			   ENOENT);
	dumb_free(&vg);
	vfd = vtest_drm_open_driver("vgem", VTEST_NODE_CARD, NULL);
	vtest_assert(vfd >= 0);
	h2 = import_fd(vfd, dmabuf);
	map = gem_map(vfd, h2, 16384);
	compare_bytes(map, ref, 16384, "dma-buf after the vdxg handle's close");
	imp = import_fd(t.fd, dmabuf);
	vtest_assert_eq(addfb(t.fd, imp, 64, 64, 256, 0, &fb), 0);
	rmfb(t.fd, fb);
	gem_close(t.fd, imp);
	munmap(map, 16384);
	gem_close(vfd, h2);
	close(vfd);
	close(dmabuf);
	free(ref);

	/*
	 * A VRAM-only object: exporting it works (nothing is pinned yet),
	 * but no importer can attach: there is no peer-to-peer path.
	 */
	ret = vdxg_bo_create(t.vr.dev, 65536, vram, 1, 0, &vbo);
	vtest_assert_f(ret == 0, "GEM_CREATE: %s", strerror(-ret));
	dmabuf = export_fd(t.fd, vbo->handle);
	vtest_assert_errno(drmPrimeFDToHandle(t.vgem, dmabuf, &handle),
			   EINVAL);
	/* Still usable by vdxg, and shareable with itself. */
	vtest_assert_eq(import_fd(t.fd, dmabuf), vbo->handle);
	vtest_assert_eq(gem_segment(t.fd, vbo->handle, NULL),
			DRM_VDXG_SEGMENT_VRAM);
	close(dmabuf);
	vdxg_bo_free(vbo);
	pt_close(&t);
}

/* ----------------------------------------------------------------- lifetime */

struct seg_use {
	uint64_t vram, aperture, system;
};

static uint64_t seg_line(const char *buf, const char *name)
{
	char key[32];
	const char *p;
	unsigned long long used;

	snprintf(key, sizeof(key), "%s: size ", name);
	for (p = buf; p; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		if (!strncmp(p, key, strlen(key)) &&
		    sscanf(p + strlen(key), "%*u, used %llu", &used) == 1)
			return used;
	}
	vtest_fail("no \"%s\" line in segments", key);
}

static bool seg_usage(struct pt *t, struct seg_use *u)
{
	static char buf[1 << 16];
	char path[96];

	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/segments",
		 t->minor);
	if (vtest_read_file(path, buf, sizeof(buf)) <= 0)
		return false;
	u->vram = seg_line(buf, "vram");
	u->aperture = seg_line(buf, "aperture");
	u->system = seg_line(buf, "system");
	return true;
}

static uint64_t seg_total(const struct seg_use *u)
{
	return u->vram + u->aperture + u->system;
}

static void test_lifetime(void)
{
	const uint32_t w = 256, h = 256;
	struct seg_use base, held, now;
	struct vgem_view v;
	bool have_use;
	struct dumb d, vg;
	uint32_t handle, imp;
	uint64_t size;
	uint8_t *ref;
	int dmabuf, vdmabuf, i;
	struct pt t;
	double end;

	pt_open(&t, false);
	have_use = seg_usage(&t, &base);
	if (have_use)
		vtest_info("before: vram %" PRIu64 ", aperture %" PRIu64
			   ", system %" PRIu64 " bytes used", base.vram,
			   base.aperture, base.system);

	/* A vdxg object kept by its dma-buf alone. */
	dumb_create(&d, t.fd, w, h);
	fill_pattern(d.map, d.pitch, 6, w, h);
	ref = malloc(d.size);
	vtest_assert(ref);
	memcpy(ref, d.map, d.size);
	size = d.size;
	dmabuf = export_fd(t.fd, d.handle);
	handle = d.handle;
	dumb_free(&d);
	vtest_assert_errno(drmPrimeHandleToFD(t.fd, handle, DRM_CLOEXEC,
					      &i), ENOENT);
	if (have_use) {
		vtest_assert_f(seg_usage(&t, &held), "segments went away");
		vtest_assert_lte_u64(seg_total(&base) + size, seg_total(&held));
	}

	/* Its bytes through vgem (the import pins and moves it). */
	vgem_view(&t, dmabuf, size, &v);
	dmabuf_sync(dmabuf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ);
	compare_bytes(v.map, ref, size, "closed vdxg handle, imported by vgem");
	dmabuf_sync(dmabuf, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ);
	/* And through vdxg again: a new handle on the same object. */
	imp = import_fd(t.fd, dmabuf);
	vtest_assert_eq(gem_segment(t.fd, imp, NULL),
			DRM_VDXG_SEGMENT_APERTURE);
	d.map = vdxg_map(t.fd, imp, size);
	compare_bytes(d.map, ref, size, "closed vdxg handle, imported back");
	munmap(d.map, size);
	gem_close(t.fd, imp);

	/* The other way: a vgem buffer imported into vdxg, vgem's gone. */
	dumb_create(&vg, t.vgem, w, h);
	vdmabuf = export_fd(t.vgem, vg.handle);
	imp = import_fd(t.fd, vdmabuf);
	dumb_free(&vg);
	close(vdmabuf);
	vtest_assert_eq(gem_segment(t.fd, imp, NULL),
			DRM_VDXG_SEGMENT_APERTURE);
	if (have_use) {
		vtest_assert_f(seg_usage(&t, &held), "segments went away");
		vtest_assert_lte_u64(base.aperture + 2 * size, held.aperture);
	}

	/* Close everything: the segments' usage goes back. */
	gem_close(t.fd, imp);
	vgem_view_fini(&t, &v);
	close(dmabuf);
	free(ref);
	if (!have_use) {
		pt_close(&t);
		vtest_skip("no debugfs segments file: no leak check");
	}
	/* Freed by a worker: a state to wait for; VR_WAIT_NS is the guard. */
	end = vr_now() + (double)VR_WAIT_NS / VR_SEC;
	for (;;) {
		vtest_assert_f(seg_usage(&t, &now), "segments went away");
		if (!memcmp(&now, &base, sizeof(now)) || vr_now() >= end)
			break;
		vr_sleep_ms(100);
	}
	vtest_info("after: vram %" PRIu64 ", aperture %" PRIu64 ", system %"
		   PRIu64 " bytes used", now.vram, now.aperture, now.system);
	vtest_assert_eq_u64(now.vram, base.vram);
	vtest_assert_eq_u64(now.aperture, base.aperture);
	vtest_assert_eq_u64(now.system, base.system);
	pt_close(&t);
}

/* -------------------------------------------- scanout-pinned-by-export */

/*
 * An object of VRAM and system memory is pinned in system memory while
 * an importer holds it (there is no aperture in its segment set). The
 * display cannot reach it there: a modeset on it must fail with EINVAL
 * and leave the screen as it was, not scan out some other memory; once
 * vgem lets go, it is shown.
 */
static void test_scanout_pinned_by_export(void)
{
	static const uint32_t segs[] = {
		DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_SYSTEM,
	};
	uint32_t fb_base, fb, vh, *img, exp, c_base, pitch;
	struct vdxg_bo *bo;
	struct dumb base;
	int dmabuf, ret;
	struct pt t;

	pt_open(&t, false);
	pt_kms(&t);
	pitch = t.w * 4;
	img = malloc((size_t)pitch * t.h);
	vtest_assert(img);

	dumb_create(&base, t.fd, t.w, t.h);
	fill_pattern(img, pitch, 0, t.w, t.h);
	put_image(base.map, base.pitch, img, t.w, t.h);
	vtest_assert_eq(addfb(t.fd, base.handle, t.w, t.h, base.pitch, 0,
			      &fb_base), 0);
	c_base = fb_crc(&t, fb_base, "base");
	vtest_assert_eq_u64(c_base, voutput_image_crc(img, pitch, t.w, t.h));

	ret = vdxg_bo_create(t.vr.dev, (uint64_t)pitch * t.h, segs, 2,
			     DRM_VDXG_GEM_CPU_ACCESS, &bo);
	vtest_assert_f(ret == 0, "GEM_CREATE: %s", strerror(-ret));
	fill_pattern(img, pitch, 7, t.w, t.h);
	exp = voutput_image_crc(img, pitch, t.w, t.h);
	put_image(vr_map(bo), pitch, img, t.w, t.h);
	vtest_assert_eq(addfb(t.fd, bo->handle, t.w, t.h, pitch, 0, &fb), 0);

	dmabuf = export_fd(t.fd, bo->handle);
	vh = import_fd(t.vgem, dmabuf);
	vtest_assert_eq(gem_segment(t.fd, bo->handle, NULL),
			DRM_VDXG_SEGMENT_SYSTEM);
	vtest_assert_eq(try_set_crtc(&t, fb), -EINVAL);
	vtest_assert_eq_u64(voutput_screen_crc(t.fd, t.head,
					       "after the refused modeset"),
			    c_base);

	/* vgem lets go: the object is unpinned and can move to VRAM. */
	gem_close(t.vgem, vh);
	close(dmabuf);
	vtest_assert_eq_u64(fb_crc(&t, fb, "unshared"), exp);
	vtest_assert_eq(gem_segment(t.fd, bo->handle, NULL),
			DRM_VDXG_SEGMENT_VRAM);

	set_crtc(&t, fb_base);
	rmfb(t.fd, fb);
	vdxg_bo_free(bo);
	rmfb(t.fd, fb_base);
	dumb_free(&base);
	free(img);
	pt_close(&t);
}

static const struct vtest_subtest subtests[] = {
	{ "vgem-to-vdxg-scanout", test_vgem_to_vdxg_scanout,
	  "vgem buffers shown by vdxg: CRC equal to native, one pixel differs" },
	{ "vdxg-to-vgem", test_vdxg_to_vgem,
	  "dumb and rendered vdxg objects read through vgem, byte for byte" },
	{ "import-render", test_import_render,
	  "a vgem import as BLIT and COPY_RECT source and FILL_RECT target" },
	{ "self-import", test_self_import,
	  "export then import on vdxg: same handle, same object, same dma-buf" },
	{ "bad-import-export", test_bad_import_export,
	  "errnos of bad imports, exports and ADDFB2; dma-buf outlives handle" },
	{ "lifetime", test_lifetime,
	  "a dma-buf keeps a closed object; segment usage returns after" },
	{ "scanout-pinned-by-export", test_scanout_pinned_by_export,
	  "an object pinned in system memory by an export: modeset EINVAL" },
};

VTEST_MAIN(subtests)
