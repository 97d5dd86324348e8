// SPDX-License-Identifier: MIT
/*
 * vdxg_lib: libvdxg's public API (libvdxg/vdxg.h) through the real driver.
 *
 * libvdxg's host tests (libvdxg/tests/) check the command-stream builder
 * without a device; the other vdxg tests use the library incidentally, or
 * go around it with raw ioctls. These subtests call each documented entry
 * point and check what it really did: bytes, pixels, handles, the screen,
 * and the exact negative errno of each failure (cross-checked with the
 * raw ioctl where the library only passes the driver's answer on).
 *
 * - device-open: vdxg_device_open(NULL) opens the first vdxg render node;
 *   an explicit render or card path opens that node; vgem's node and
 *   /dev/null give -ENODEV, a missing path -ENOENT; vdxg_device_open_fd
 *   works on a dup (the caller's fd can be closed, vdxg_device_close closes
 *   the dup) and refuses non-vdxg fds with -ENODEV; vdxg_get_param agrees
 *   with the raw GET_PARAM for every parameter (and with PCI sysfs and KMS
 *   for the device id, revision and CRTC count), -EINVAL for unknown ones.
 * - bo: vdxg_bo_create's fields (page-rounded size, flags, no GPU address
 *   yet), a cleared new object, one mapping kept in bo->map; the object
 *   moved by vdxg_bo_make_resident through every segment, vdxg_bo_info
 *   reporting each segment and an address inside it, bytes written in one
 *   segment read back in the next; vdxg_bo_wait on an idle object, on one
 *   a held job writes (-EBUSY polling, -ETIME after a timeout, 0 once the
 *   job is released, with its write visible); unmap and map again;
 *   vdxg_bo_from_handle and vdxg_bo_free closing the handle; a
 *   device-less vdxg_bo refused with -ENODEV; each creation error (-E2BIG
 *   only past the RAM's size, -ENOMEM past the segments').
 * - export-import: vdxg_bo_export gives a close-on-exec read-write dma-buf
 *   of the object's size; vdxg_bo_import into a second device (another
 *   file) gives the same object (size, segment, GPU address, memory:
 *   writes on either side are seen on the other, and a job on the first
 *   file keeps the second file's object busy); into the same device the
 *   same handle, whose vdxg_bo_free closes the first one's; the errnos of
 *   importing what is not a dma-buf and of exporting an unknown handle;
 *   a VRAM-only object is exported but vgem cannot attach it (-EINVAL), a
 *   vgem buffer is imported into the aperture with vgem's size.
 * - syncobj: create (signalled or not), signal (binary and timeline
 *   points), query, wait (one, any of two, all of two, with
 *   vdxg_timeout_abs), reset, export to a sync_file (binary and timeline
 *   point) and import into another syncobj (binary and timeline point),
 *   destroy, with the errnos of each on a syncobj without a fence or a
 *   destroyed one; a job held on the ring signalling a binary syncobj and
 *   a timeline point, its fence followed through a sync_file imported
 *   into a third syncobj.
 * - cs-submit: the example of vdxg.h's top comment, run as written and
 *   every pixel checked (through a copy by the engine: its object is not
 *   CPU-accessible); the presumed addresses written back into bo->gpu_addr,
 *   the allocation list and the address fields after a patched submit
 *   (opts->out_flags DRM_VDXG_SUBMIT_OUT_PATCHED), the same builder
 *   submitted again without patching, patched again after its object moved;
 *   vdxg_cs_reset between frames (empty lists, next frames unpatched); a
 *   builder error, sticky and first-error-wins, refusing the submit
 *   without an ioctl (debugfs submit counters, opts untouched, nothing
 *   drawn) until vdxg_cs_reset.
 * - context: vdxg_context_create at each priority (HIGH: the test has
 *   CAP_SYS_NICE), a job run on each, vdxg_context_reset_status of a fresh
 *   context, vdxg_context_destroy (the others keep working), and the
 *   errnos of a bad engine, priority or flag and of an unknown context.
 * - present-blit: vdxg_present_blit between two objects described by
 *   vdxg_present_bo, through clips reaching past both surfaces, with an out
 *   syncobj, then without clips or syncobj at a negative offset; the whole
 *   destination is compared with the reference (nothing outside the clips
 *   written); the errnos of an unknown context, a bad clip, too many clips.
 * - present-flip: on the card node, DRM master, the first connected
 *   output: vdxg_present_flip with DRM_VDXG_PRESENT_EVENT shows the second
 *   framebuffer (the event's type, user data and CRTC, the out syncobj
 *   signalled, the CRTC's framebuffer, the display's CRC of the image),
 *   a flip back without an event sends none; the errnos of an unknown fb,
 *   fb 0, bad flags, an unknown CRTC or syncobj, a non-master file and a
 *   render node, none of which flips or sends an event.
 * - strerror: vdxg_strerror's texts for the errnos the vdxg ioctls
 *   document, for -E and E alike, the fallback to strerror() for others,
 *   and the text of real -ERANGE and -ENOENT submits.
 *
 * Every subtest skips without a vdxg device; those that run jobs skip
 * without a RENDER engine, present-flip without a connected output. vgem
 * (export-import, device-open) is loaded with modprobe if needed; the
 * subtests skip where it cannot be.
 */
#define _GNU_SOURCE	/* memfd_create */
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
#include <time.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "voutput.h"
#include "vrender.h"

#define PAGE		4096u
/* Syncobj waits that wait for a fence to be there, too. */
#define SUBMITTED	DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT

/* ---------------------------------------------------------------- utils */

struct lt {
	struct vr vr;
	uint32_t ctx;		/* a RENDER context */
	uint64_t rng;
	uint64_t kmsg;
};

/* The render node through vdxg_device_open(NULL) and a RENDER context. */
static void lt_open(struct lt *t)
{
	memset(t, 0, sizeof(*t));
	vr_open(&t->vr);
	t->ctx = vr_ctx(&t->vr);
	t->rng = vr_seed();
	t->kmsg = vtest_kmsg_seq();
}

static void lt_close(struct lt *t)
{
	int n = vtest_kmsg_problems(t->kmsg);

	vtest_assert_f(n == 0, "%d kernel log problem(s)", n);
	if (t->ctx)
		vdxg_context_destroy(t->vr.dev, t->ctx);
	vr_close(&t->vr);
}

static dev_t fd_rdev(int fd)
{
	struct stat st;

	vtest_assert_ok(fstat(fd, &st));
	return st.st_rdev;
}

static ino_t fd_ino(int fd)
{
	struct stat st;

	vtest_assert_ok(fstat(fd, &st));
	return st.st_ino;
}

/* Raw GEM_INFO: 0 or -errno. */
static int raw_gem_info(int fd, uint32_t handle, struct drm_vdxg_gem_info *gi)
{
	memset(gi, 0, sizeof(*gi));
	gi->handle = handle;
	return vtest_ioctl(fd, DRM_IOCTL_VDXG_GEM_INFO, gi) ? -errno : 0;
}

static void fill_random(uint8_t *p, size_t n, uint64_t *rng)
{
	size_t i;

	for (i = 0; i + 4 <= n; i += 4) {
		uint32_t v = vr_rand(rng);

		memcpy(p + i, &v, 4);
	}
}

/* Compare N bytes; report the first differences and fail. */
static void check_bytes(const void *got, const void *exp, size_t n,
			const char *what)
{
	const uint8_t *g = got, *e = exp;
	size_t i, bad = 0;

	if (!memcmp(got, exp, n))
		return;
	for (i = 0; i < n; i++) {
		if (g[i] == e[i])
			continue;
		if (bad++ < 8)
			vtest_info("%s: byte %zu is 0x%02x, expected 0x%02x",
				   what, i, g[i], e[i]);
	}
	vtest_fail("%s: %zu of %zu bytes differ", what, bad, n);
}

/* Whether FD (a sync_file) is signalled: POLLIN without waiting. */
static bool sync_file_signalled(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r = poll(&p, 1, 0);

	vtest_assert_f(r >= 0, "poll of a sync_file: %s", strerror(errno));
	return r == 1 && (p.revents & POLLIN);
}

/* vdxg_syncobj_wait of one binary syncobj, REL_NS from now. */
static int so_wait(struct vdxg_device *dev, uint32_t h, int64_t rel_ns,
		   uint32_t flags)
{
	return vdxg_syncobj_wait(dev, &h, NULL, 1, vdxg_timeout_abs(rel_ns),
				 flags, NULL);
}

/* The same, for timeline point POINT. */
static int so_wait_point(struct vdxg_device *dev, uint32_t h, uint64_t point,
			 int64_t rel_ns, uint32_t flags)
{
	return vdxg_syncobj_wait(dev, &h, &point, 1, vdxg_timeout_abs(rel_ns),
				 flags, NULL);
}

static uint64_t so_query(struct vdxg_device *dev, uint32_t h)
{
	uint64_t v = ~0ull;
	int ret = vdxg_syncobj_query(dev, h, &v);

	vtest_assert_f(ret == 0, "vdxg_syncobj_query(%u): %s", h,
		       vdxg_strerror(ret));
	return v;
}

/*
 * A job held on the ring until vr_write64(*MAP, 0, 1): it waits on HOLD,
 * then writes VALUE at BO + OFFSET. Submitted with OPTS on CTX.
 */
static void submit_held(struct lt *t, struct vdxg_bo *hold, struct vdxg_bo *bo,
			uint32_t offset, uint64_t value,
			struct vdxg_submit_opts *opts)
{
	struct vdxg_cs *cs = vr_cs();

	vdxg_cs_wait(cs, hold, 0, 0, 1);
	vdxg_cs_fence(cs, bo, offset, DRM_VDXG_ALLOC_WRITE, value);
	vr_submit(&t->vr, t->ctx, cs, opts);
	vdxg_cs_free(cs);
}

/* ------------------------------------------------------------ device-open */

/* /sys/bus/pci/devices/BDF/NAME as a number. */
static uint64_t pci_attr(int fd, const char *name)
{
	char bdf[64], path[160], buf[64];

	vtest_assert(vtest_drm_pci_bdf(fd, bdf, sizeof(bdf)));
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", bdf, name);
	vtest_assert_f(vtest_read_file(path, buf, sizeof(buf)) > 0,
		       "cannot read %s", path);
	return strtoull(buf, NULL, 0);
}

static void test_device_open(void)
{
	static const uint32_t bad_params[] = {
		0, DRM_VDXG_PARAM_3D_MAX_TEXTURE_LEVELS + 1, 0xffffffff,
	};
	char rpath[PATH_MAX], cpath[PATH_MAX], vpath[PATH_MAX], name[32];
	struct vdxg_device *dev = NULL, *d2 = NULL;
	uint64_t kmsg = vtest_kmsg_seq(), v;
	int rfd, cfd, vfd, fd, dfd, pfd[2], n;
	drmModeRes *res;
	uint32_t p;

	rfd = vtest_drm_open_driver("vdxg", VTEST_NODE_RENDER, rpath);
	if (rfd < 0)
		vtest_skip("no vdxg render node");
	cfd = vtest_drm_open_driver("vdxg", VTEST_NODE_CARD, cpath);
	vtest_assert_f(cfd >= 0, "a vdxg render node but no card node");
	vtest_info("vdxg nodes: %s, %s", rpath, cpath);

	/* NULL: the first vdxg render node, in a file of its own. */
	vtest_assert_eq(vdxg_device_open(NULL, &dev), 0);
	vtest_assert(dev);
	fd = vdxg_device_fd(dev);
	vtest_assert(fd >= 0 && fd != rfd);
	vtest_assert_eq_u64(fd_rdev(fd), fd_rdev(rfd));
	vtest_assert(vtest_drm_driver_name(fd, name, sizeof(name)));
	vtest_assert_str_eq(name, "vdxg");
	vdxg_device_close(dev);

	/* Explicit paths: that node. */
	vtest_assert_eq(vdxg_device_open(rpath, &dev), 0);
	vtest_assert_eq_u64(fd_rdev(vdxg_device_fd(dev)), fd_rdev(rfd));
	vdxg_device_close(dev);
	vtest_assert_eq(vdxg_device_open(cpath, &dev), 0);
	vtest_assert_eq_u64(fd_rdev(vdxg_device_fd(dev)), fd_rdev(cfd));
	vdxg_device_close(dev);

	/* Not vdxg, or not there. */
	dev = (struct vdxg_device *)&dev;
	vtest_assert_eq(vdxg_device_open("/dev/null", &dev), -ENODEV);
	vtest_assert(!dev);
	vtest_assert_eq(vdxg_device_open("/dev/dri/vdxg-no-such-node", &dev),
			-ENOENT);
	vtest_assert(!dev);
	vtest_assert_eq(vdxg_device_open("", &dev), -ENOENT);
	vfd = vtest_open_vgem(vpath);
	vtest_assert_eq(vdxg_device_open(vpath, &dev), -ENODEV);
	vtest_assert(!dev);

	/* open_fd: a dup of its own. */
	vtest_assert_eq(vdxg_device_open_fd(rfd, &dev), 0);
	dfd = vdxg_device_fd(dev);
	vtest_assert(dfd >= 0 && dfd != rfd);
	vtest_assert_eq_u64(fd_rdev(dfd), fd_rdev(rfd));
	close(rfd);
	vtest_assert_eq(vdxg_get_param(dev, DRM_VDXG_PARAM_DEVICE_ID, &v), 0);
	vdxg_device_close(dev);
	vtest_assert_errno(fcntl(dfd, F_GETFD), EBADF);
	d2 = (struct vdxg_device *)&d2;
	vtest_assert_eq(vdxg_device_open_fd(vfd, &d2), -ENODEV);
	vtest_assert(!d2);
	vtest_assert_ok(pipe(pfd));
	vtest_assert_eq(vdxg_device_open_fd(pfd[0], &d2), -ENODEV);
	close(pfd[0]);
	close(pfd[1]);
	close(vfd);

	/* GET_PARAM: the library's value is the ioctl's. */
	vtest_assert_eq(vdxg_device_open(NULL, &dev), 0);
	fd = vdxg_device_fd(dev);
	for (p = DRM_VDXG_PARAM_DEVICE_ID;
	     p <= DRM_VDXG_PARAM_3D_MAX_TEXTURE_LEVELS; p++) {
		struct drm_vdxg_get_param gp = { .param = p };

		v = ~0ull;
		vtest_assert_eq(vdxg_get_param(dev, p, &v), 0);
		vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_VDXG_GET_PARAM, &gp));
		vtest_assert_f(v == gp.value, "param %u: library 0x%" PRIx64
			       ", ioctl 0x%llx", p, v,
			       (unsigned long long)gp.value);
		vtest_info("param %u = 0x%" PRIx64, p, v);
	}
	for (p = 0; p < VTEST_ARRAY_SIZE(bad_params); p++) {
		struct drm_vdxg_get_param gp = { .param = bad_params[p] };

		vtest_assert_eq(vdxg_get_param(dev, bad_params[p], &v),
				-EINVAL);
		vtest_assert_errno(vtest_ioctl(fd, DRM_IOCTL_VDXG_GET_PARAM,
					       &gp), EINVAL);
	}
	vtest_assert_eq(vdxg_get_param(dev, DRM_VDXG_PARAM_DEVICE_ID, &v), 0);
	vtest_assert_eq_u64(v, pci_attr(fd, "device"));
	vtest_assert_eq(vdxg_get_param(dev, DRM_VDXG_PARAM_REVISION, &v), 0);
	vtest_assert_eq_u64(v, pci_attr(fd, "revision"));
	vtest_assert_eq(vdxg_get_param(dev, DRM_VDXG_PARAM_NUM_CRTCS, &v), 0);
	res = drmModeGetResources(cfd);
	n = res ? res->count_crtcs : 0;
	drmModeFreeResources(res);
	vtest_assert_eq(v, n);
	vdxg_device_close(dev);
	close(cfd);

	n = vtest_kmsg_problems(kmsg);
	vtest_assert_f(n == 0, "%d kernel log problem(s)", n);
}

/* ---------------------------------------------------------------------- bo */

static void check_create_error(struct lt *t, uint64_t size,
			       const uint32_t *segs, uint32_t nsegs,
			       uint32_t flags, int err, const char *what)
{
	struct vdxg_bo *bo = (struct vdxg_bo *)&bo;
	int ret = vdxg_bo_create(t->vr.dev, size, segs, nsegs, flags, &bo);

	vtest_assert_f(ret == err, "vdxg_bo_create with %s: %d (%s), "
		       "expected %d (%s)", what, ret, strerror(-ret), err,
		       strerror(-err));
	vtest_assert_f(!bo, "vdxg_bo_create with %s: *out not NULL", what);
}

static void test_bo(void)
{
	static const uint32_t all[] = {
		DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_APERTURE,
		DRM_VDXG_SEGMENT_SYSTEM,
	};
	static const uint32_t moves[] = {
		DRM_VDXG_SEGMENT_APERTURE, DRM_VDXG_SEGMENT_SYSTEM,
		DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_SYSTEM,
		DRM_VDXG_SEGMENT_APERTURE, DRM_VDXG_SEGMENT_VRAM,
	};
	struct drm_vdxg_gem_create gc = {
		.size = 8192, .flags = DRM_VDXG_GEM_CPU_ACCESS,
		.num_segments = 1, .segments = { DRM_VDXG_SEGMENT_APERTURE },
	};
	struct drm_vdxg_gem_info gi;
	struct vdxg_bo *bo, *hold, *w, fake;
	uint32_t seg, handle, i, segs[4];
	uint64_t addr, ram, size = 16 * PAGE + 1;
	uint8_t *map, *ref, *hmap;
	void *p, *p2;
	double t0;
	struct lt t;

	lt_open(&t);

	/* Creation: the kernel's size, the flags, nothing mapped yet. */
	vtest_assert_eq(vdxg_bo_create(t.vr.dev, size, all, 3,
				       DRM_VDXG_GEM_CPU_ACCESS, &bo), 0);
	vtest_assert(bo && bo->handle);
	vtest_assert(bo->dev == t.vr.dev);
	vtest_assert_eq_u64(bo->size, 17 * PAGE);
	vtest_assert_eq(bo->flags, DRM_VDXG_GEM_CPU_ACCESS);
	vtest_assert_eq_u64(bo->gpu_addr, 0);
	vtest_assert(!bo->map);
	vtest_assert_eq(vdxg_bo_info(bo, &seg, &addr), 0);
	vtest_assert_eq(seg, DRM_VDXG_SEGMENT_VRAM);
	vtest_assert_eq(raw_gem_info(t.vr.fd, bo->handle, &gi), 0);
	vtest_assert_eq(gi.segment, seg);
	vtest_assert_eq_u64(gi.gpu_addr, addr);
	vtest_assert_eq_u64(gi.size, bo->size);
	vtest_assert_eq(vdxg_bo_info(bo, NULL, NULL), 0);

	/* One mapping, kept; a new object is cleared. */
	vtest_assert_eq(vdxg_bo_map(bo, &p), 0);
	vtest_assert(p && p == bo->map);
	vtest_assert_eq(vdxg_bo_map(bo, &p2), 0);
	vtest_assert(p2 == p);
	vtest_assert_eq(vdxg_bo_map(bo, NULL), 0);
	vtest_assert(bo->map == p);
	map = p;
	ref = calloc(1, bo->size);
	vtest_assert(ref);
	check_bytes(map, ref, bo->size, "a new object");

	/* Through every segment; bytes written in each one carried along. */
	fill_random(ref, bo->size, &t.rng);
	memcpy(map, ref, bo->size);
	for (i = 0; i < VTEST_ARRAY_SIZE(moves); i++) {
		char what[64];

		vtest_assert_eq(vdxg_bo_make_resident(bo, moves[i]), 0);
		vtest_assert_eq(vdxg_bo_wait(bo, VR_WAIT_NS), 0);
		vtest_assert_eq(vdxg_bo_info(bo, &seg, &addr), 0);
		vtest_assert_eq(seg, moves[i]);
		switch (seg) {
		case DRM_VDXG_SEGMENT_VRAM:
			vtest_assert_neq_u64(addr, 0);
			vtest_assert_lte_u64(addr + bo->size, t.vr.vram_size);
			break;
		case DRM_VDXG_SEGMENT_APERTURE:
			vtest_assert_lte_u64(VDXG_APERTURE_BASE, addr);
			vtest_assert_lte_u64(addr + bo->size,
					     VDXG_APERTURE_BASE +
					     t.vr.aperture_size);
			break;
		default:
			vtest_assert_eq_u64(addr, 0);
		}
		vtest_info("segment %u at 0x%" PRIx64, seg, addr);
		snprintf(what, sizeof(what), "after move %u to segment %u", i,
			 seg);
		check_bytes(map, ref, bo->size, what);
		/* New bytes, written in this segment. */
		fill_random(ref + i * 2 * PAGE, 3 * PAGE, &t.rng);
		memcpy(map + i * 2 * PAGE, ref + i * 2 * PAGE, 3 * PAGE);
	}
	/* Already there: nothing to do. */
	vtest_assert_eq(vdxg_bo_make_resident(bo, DRM_VDXG_SEGMENT_VRAM), 0);
	check_bytes(map, ref, bo->size, "after the last move");

	/* Only segments of its own set. */
	w = vr_bo(&t.vr, PAGE, DRM_VDXG_SEGMENT_APERTURE, 0);
	vtest_assert_eq(vdxg_bo_make_resident(w, DRM_VDXG_SEGMENT_VRAM),
			-EINVAL);
	vtest_assert_eq(vdxg_bo_make_resident(w, DRM_VDXG_SEGMENT_SYSTEM),
			-EINVAL);
	vtest_assert_eq(vdxg_bo_make_resident(w, 0), -EINVAL);
	vtest_assert_eq(vdxg_bo_make_resident(w, 4), -EINVAL);
	vtest_assert_eq(vdxg_bo_make_resident(w, DRM_VDXG_SEGMENT_APERTURE), 0);
	vtest_assert_eq(vr_bo_segment(w), DRM_VDXG_SEGMENT_APERTURE);
	vdxg_bo_free(w);

	/* Waits: idle, then busy with a held job's write. */
	vtest_assert_eq(vdxg_bo_wait(bo, 0), 0);
	vtest_assert_eq(vdxg_bo_wait(bo, VR_WAIT_NS), 0);
	vtest_assert_eq(vdxg_bo_wait(bo, INT64_MAX), 0);
	vtest_assert_eq(vdxg_bo_wait(bo, -1), -EINVAL);
	hmap = vr_hold_bo(&t.vr, &hold);
	submit_held(&t, hold, bo, 64, 0x0123456789abcdefull, NULL);
	vtest_assert_eq(vdxg_bo_wait(bo, 0), -EBUSY);
	t0 = vr_now();
	vtest_assert_eq(vdxg_bo_wait(bo, 50 * 1000 * 1000), -ETIME);
	vtest_assert_f(vr_now() - t0 >= 0.04, "-ETIME after %.3f s of 0.05",
		       vr_now() - t0);
	vtest_assert_eq(vdxg_bo_wait(hold, 0), -EBUSY);
	check_bytes(map, ref, bo->size, "while the job is held");
	vr_write64(hmap, 0, 1);
	vtest_assert_eq(vdxg_bo_wait(bo, VR_WAIT_NS), 0);
	vr_write64(ref, 64, 0x0123456789abcdefull);
	check_bytes(map, ref, bo->size, "once the job is done");
	vtest_assert_eq(vdxg_bo_wait(hold, 0), 0);
	vdxg_bo_free(hold);

	/* Unmap, and map again. */
	vtest_assert_eq(vdxg_bo_unmap(bo), 0);
	vtest_assert(!bo->map);
	vtest_assert_eq(vdxg_bo_unmap(bo), 0);
	vtest_assert_eq(vdxg_bo_map(bo, &p), 0);
	vtest_assert(p && bo->map == p);
	check_bytes(p, ref, bo->size, "mapped again");

	/* vdxg_bo_free closes the handle. */
	handle = bo->handle;
	vdxg_bo_free(bo);
	vtest_assert_eq(raw_gem_info(t.vr.fd, handle, &gi), -ENOENT);
	vdxg_bo_free(NULL);

	/* A handle from the raw ioctl, wrapped. */
	vtest_assert_ok(vtest_ioctl(t.vr.fd, DRM_IOCTL_VDXG_GEM_CREATE, &gc));
	vtest_assert_eq(vdxg_bo_from_handle(t.vr.dev, gc.handle, gc.size, &w),
			0);
	vtest_assert(w->dev == t.vr.dev);
	vtest_assert_eq(w->handle, gc.handle);
	vtest_assert_eq_u64(w->size, 8192);
	vtest_assert_eq(w->flags, 0);
	vtest_assert_eq_u64(w->gpu_addr, 0);
	vtest_assert(!w->map);
	vtest_assert_eq(vr_bo_segment(w), DRM_VDXG_SEGMENT_APERTURE);
	map = vr_map(w);
	memset(map, 0x3c, 8192);
	vdxg_bo_free(w);
	vtest_assert_eq(raw_gem_info(t.vr.fd, gc.handle, &gi), -ENOENT);

	/* A builder-only object (no device): no ioctls. */
	memset(&fake, 0, sizeof(fake));
	fake.handle = 1;
	fake.size = PAGE;
	vtest_assert_eq(vdxg_bo_map(&fake, &p), -ENODEV);
	vtest_assert(!fake.map);
	vtest_assert_eq(vdxg_bo_wait(&fake, 0), -ENODEV);
	vtest_assert_eq(vdxg_bo_info(&fake, &seg, &addr), -ENODEV);
	vtest_assert_eq(vdxg_bo_make_resident(&fake, DRM_VDXG_SEGMENT_VRAM),
			-ENODEV);

	/* Creation errors, as the driver (or the library) returns them. */
	check_create_error(&t, 0, all, 1, 0, -EINVAL, "size 0");
	check_create_error(&t, PAGE, all, 0, 0, -EINVAL, "no segment");
	check_create_error(&t, PAGE, NULL, 1, 0, -EINVAL, "segments NULL");
	segs[0] = DRM_VDXG_SEGMENT_VRAM;
	segs[1] = DRM_VDXG_SEGMENT_APERTURE;
	segs[2] = DRM_VDXG_SEGMENT_SYSTEM;
	segs[3] = DRM_VDXG_SEGMENT_VRAM;
	check_create_error(&t, PAGE, segs, 4, 0, -EINVAL, "4 segments");
	check_create_error(&t, PAGE, segs, 5, 0, -EINVAL, "5 segments");
	segs[1] = DRM_VDXG_SEGMENT_VRAM;
	check_create_error(&t, PAGE, segs, 2, 0, -EINVAL, "VRAM twice");
	segs[0] = 0;
	check_create_error(&t, PAGE, segs, 1, 0, -EINVAL, "segment 0");
	segs[0] = DRM_VDXG_MAX_SEGMENTS + 1;
	check_create_error(&t, PAGE, segs, 1, 0, -EINVAL, "segment 4");
	check_create_error(&t, PAGE, all, 1, 0x4, -EINVAL, "flag 0x4");
	check_create_error(&t, PAGE, all, 1, 0x80000000, -EINVAL,
			   "flag 0x80000000");
	check_create_error(&t, 1ull << 60, all, 3, 0, -E2BIG,
			   "size 2^60 (more than the RAM)");
	/*
	 * Larger than every segment of its set, not than the commit limit
	 * (-E2BIG is for that): TTM finds no room, -ENOMEM.
	 */
	vtest_assert_eq(vdxg_get_param(t.vr.dev, DRM_VDXG_PARAM_COMMIT_LIMIT,
				       &ram), 0);
	if (t.vr.vram_size + PAGE < ram)
		check_create_error(&t, t.vr.vram_size + PAGE, all, 1, 0,
				   -ENOMEM, "VRAM only, a page more than VRAM");
	if (t.vr.aperture_size + PAGE < ram)
		check_create_error(&t, t.vr.aperture_size + PAGE, all + 1, 1,
				   0, -ENOMEM,
				   "aperture only, a page more than it");

	free(ref);
	lt_close(&t);
}

/* ----------------------------------------------------------- export-import */

static void test_export_import(void)
{
	static const uint32_t vram[] = { DRM_VDXG_SEGMENT_VRAM };
	struct drm_mode_create_dumb dumb = { .width = 64, .height = 64,
					     .bpp = 32 };
	struct vdxg_bo *bo, *b2, *same, *again, *vbo, *vb2, *hold, *imp, fake;
	struct vdxg_device *dev2;
	uint32_t seg1, seg2, h;
	uint64_t addr1, addr2;
	uint8_t *m1, *m2, *ref, *hmap;
	int fd, fd2, fdv, vgem, vbuf, closed, memfd;
	struct lt t;

	lt_open(&t);
	vtest_assert_eq(vdxg_device_open(NULL, &dev2), 0);
	vtest_assert_neq(vdxg_device_fd(dev2), t.vr.fd);

	bo = vr_bo(&t.vr, 3 * PAGE, DRM_VDXG_SEGMENT_VRAM,
		   DRM_VDXG_SEGMENT_APERTURE);
	m1 = vr_map(bo);
	ref = malloc(bo->size);
	vtest_assert(ref);
	fill_random(ref, bo->size, &t.rng);
	memcpy(m1, ref, bo->size);

	/* Export: a close-on-exec, read-write dma-buf of the object's size. */
	fd = -2;
	vtest_assert_eq(vdxg_bo_export(bo, &fd), 0);
	vtest_assert(fd >= 0);
	vtest_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	vtest_assert_eq(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDWR);
	vtest_assert_eq(lseek(fd, 0, SEEK_END), (off_t)bo->size);
	/* The object has one dma-buf: the raw export gives it too. */
	vtest_assert_ok(drmPrimeHandleToFD(t.vr.fd, bo->handle, DRM_CLOEXEC,
					   &fd2));
	vtest_assert_eq_u64(fd_ino(fd2), fd_ino(fd));
	close(fd2);

	/* Into another file: the same object. */
	vtest_assert_eq(vdxg_bo_import(dev2, fd, &b2), 0);
	vtest_assert(b2 && b2->handle);
	vtest_assert(b2->dev == dev2);
	vtest_assert_eq_u64(b2->size, bo->size);
	vtest_assert_eq_u64(b2->gpu_addr, 0);
	vtest_assert(!b2->map);
	vtest_assert_eq(vdxg_bo_info(bo, &seg1, &addr1), 0);
	vtest_assert_eq(vdxg_bo_info(b2, &seg2, &addr2), 0);
	vtest_assert_eq(seg2, seg1);
	vtest_assert_eq_u64(addr2, addr1);
	vtest_assert_eq(vdxg_bo_export(b2, &fd2), 0);
	vtest_assert_eq_u64(fd_ino(fd2), fd_ino(fd));
	close(fd2);
	m2 = vr_map(b2);
	check_bytes(m2, ref, bo->size, "the import's mapping");
	/* One memory: writes on either side are seen on the other. */
	fill_random(ref + PAGE, PAGE, &t.rng);
	memcpy(m2 + PAGE, ref + PAGE, PAGE);
	check_bytes(m1, ref, bo->size, "export, after a write on the import");
	fill_random(ref, PAGE / 2, &t.rng);
	memcpy(m1, ref, PAGE / 2);
	check_bytes(m2, ref, bo->size, "import, after a write on the export");
	/* One reservation: a job on the first file keeps it busy for both. */
	hmap = vr_hold_bo(&t.vr, &hold);
	submit_held(&t, hold, bo, 2 * PAGE + 8, 0xfeedface5eed5eedull, NULL);
	vtest_assert_eq(vdxg_bo_wait(b2, 0), -EBUSY);
	vr_write64(hmap, 0, 1);
	vtest_assert_eq(vdxg_bo_wait(b2, VR_WAIT_NS), 0);
	vr_write64(ref, 2 * PAGE + 8, 0xfeedface5eed5eedull);
	check_bytes(m2, ref, bo->size, "the import after the job");
	vdxg_bo_free(hold);

	/*
	 * Into the same file: the handle it has. Two vdxg_bos on it share
	 * the handle, so freeing one closes the other's (vdxg.h: keep one).
	 */
	vtest_assert_eq(vdxg_bo_import(t.vr.dev, fd, &same), 0);
	vtest_assert_eq(same->handle, bo->handle);
	vtest_assert_eq_u64(same->size, bo->size);
	h = bo->handle;
	vdxg_bo_free(same);
	vtest_assert_eq(vdxg_bo_info(bo, &seg1, NULL), -ENOENT);
	vdxg_bo_free(bo);	/* its GEM_CLOSE fails, quietly */
	/* The import on the other file and the dma-buf keep the object. */
	check_bytes(m2, ref, b2->size, "import, the export's handle closed");
	vtest_assert_eq(vdxg_bo_import(t.vr.dev, fd, &again), 0);
	vtest_assert_eq_u64(again->size, b2->size);
	check_bytes(vr_map(again), ref, again->size, "imported back");
	vtest_info("handle %u closed, imported back as %u", h, again->handle);
	vdxg_bo_free(again);
	vdxg_bo_free(b2);
	close(fd);

	/* What is not a dma-buf: the driver's answer (EINVAL), or EBADF. */
	memfd = memfd_create("vdxg-lib", MFD_CLOEXEC);
	vtest_assert(memfd >= 0);
	vtest_assert_ok(ftruncate(memfd, 65536));
	imp = (struct vdxg_bo *)&imp;
	vtest_assert_eq(vdxg_bo_import(t.vr.dev, memfd, &imp), -EINVAL);
	vtest_assert(!imp);
	vtest_assert_errno(drmPrimeFDToHandle(t.vr.fd, memfd, &h), EINVAL);
	close(memfd);
	vtest_assert_eq(vdxg_bo_import(t.vr.dev, t.vr.fd, &imp), -EINVAL);
	closed = dup(t.vr.fd);
	vtest_assert(closed >= 0);
	close(closed);
	vtest_assert_eq(vdxg_bo_import(t.vr.dev, closed, &imp), -EBADF);
	vtest_assert_eq(vdxg_bo_import(t.vr.dev, -1, &imp), -EBADF);
	/* A pipe cannot seek, but the driver's answer comes first. */
	{
		int pfd[2];

		vtest_assert_ok(pipe(pfd));
		vtest_assert_eq(vdxg_bo_import(t.vr.dev, pfd[0], &imp),
				-EINVAL);
		vtest_assert(!imp);
		close(pfd[0]);
		close(pfd[1]);
	}

	/* Exporting a handle the file does not have: ENOENT, no fd. */
	vtest_assert_eq(vdxg_bo_from_handle(t.vr.dev, 0x7ffffff0, PAGE, &imp),
			0);
	fd = 1234;
	vtest_assert_eq(vdxg_bo_export(imp, &fd), -ENOENT);
	vtest_assert_eq(fd, -1);
	vdxg_bo_free(imp);
	/* Nor an object without a device. */
	memset(&fake, 0, sizeof(fake));
	fake.handle = 1;
	fake.size = PAGE;
	vtest_assert_eq(vdxg_bo_export(&fake, &fd), -ENODEV);
	vtest_assert_eq(fd, -1);

	/*
	 * A VRAM-only object: exported (nothing is pinned until an importer
	 * attaches), shared within the device, but vgem cannot attach it.
	 */
	vtest_assert_eq(vdxg_bo_create(t.vr.dev, 16 * PAGE, vram, 1,
				       DRM_VDXG_GEM_CPU_ACCESS, &vbo), 0);
	memset(vr_map(vbo), 0x6b, vbo->size);
	vtest_assert_eq(vdxg_bo_export(vbo, &fdv), 0);
	vtest_assert_eq(vdxg_bo_import(dev2, fdv, &vb2), 0);
	vtest_assert_eq(vr_bo_segment(vb2), DRM_VDXG_SEGMENT_VRAM);
	m2 = vr_map(vb2);
	vtest_assert_eq(m2[0], 0x6b);
	vtest_assert_eq(m2[vbo->size - 1], 0x6b);
	vgem = vtest_open_vgem(NULL);
	vtest_assert_errno(drmPrimeFDToHandle(vgem, fdv, &h), EINVAL);
	vtest_assert_eq(vr_bo_segment(vbo), DRM_VDXG_SEGMENT_VRAM);
	vdxg_bo_free(vb2);
	vdxg_bo_free(vbo);
	close(fdv);

	/* A vgem buffer: imported with vgem's size, into the aperture. */
	vtest_assert_ok(vtest_ioctl(vgem, DRM_IOCTL_MODE_CREATE_DUMB, &dumb));
	vtest_assert_ok(drmPrimeHandleToFD(vgem, dumb.handle,
					   DRM_CLOEXEC | DRM_RDWR, &vbuf));
	vtest_assert_eq(vdxg_bo_import(t.vr.dev, vbuf, &imp), 0);
	vtest_assert_eq_u64(imp->size, dumb.size);
	vtest_assert_eq(vr_bo_segment(imp), DRM_VDXG_SEGMENT_APERTURE);
	/* Again: the same handle (and one vdxg_bo too many, see above). */
	vtest_assert_eq(vdxg_bo_import(t.vr.dev, vbuf, &b2), 0);
	vtest_assert_eq(b2->handle, imp->handle);
	vtest_assert_eq_u64(b2->size, imp->size);
	vdxg_bo_free(b2);
	vtest_assert_eq(vdxg_bo_info(imp, NULL, NULL), -ENOENT);
	vdxg_bo_free(imp);
	close(vbuf);
	close(vgem);

	free(ref);
	vdxg_device_close(dev2);
	lt_close(&t);
}

/* ----------------------------------------------------------------- syncobj */

static void test_syncobj(void)
{
	struct drm_vdxg_sync out[2];
	struct vdxg_submit_opts o;
	struct vdxg_bo *hold, *bo;
	struct vdxg_device *dev;
	uint32_t a, b, c, d, tl, tl2, two[2], first;
	uint64_t pts[2];
	uint8_t *hmap, *map;
	int64_t before, abs_t, after;
	int fd, fd2, fd3;
	struct timespec ts;
	struct lt t;

	lt_open(&t);
	dev = t.vr.dev;

	/* vdxg_timeout_abs: CLOCK_MONOTONIC plus, saturating. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	before = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	abs_t = vdxg_timeout_abs(VR_SEC);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	after = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	vtest_assert(abs_t >= before + VR_SEC && abs_t <= after + VR_SEC);
	abs_t = vdxg_timeout_abs(0);
	vtest_assert(abs_t >= after);
	vtest_assert(vdxg_timeout_abs(-5) >= after);
	vtest_assert_eq_u64(vdxg_timeout_abs(INT64_MAX), INT64_MAX);
	vtest_assert_eq_u64(vdxg_timeout_abs(INT64_MAX - 1), INT64_MAX);

	/* A binary syncobj without a fence, signalled, reset. */
	a = 0;
	vtest_assert_eq(vdxg_syncobj_create(dev, 0, &a), 0);
	vtest_assert(a);
	vtest_assert_eq(so_wait(dev, a, 0, 0), -EINVAL);
	vtest_assert_eq(so_wait(dev, a, 20 * 1000 * 1000, SUBMITTED), -ETIME);
	vtest_assert_eq(vdxg_syncobj_export_sync_file(dev, a, 0, &fd), -EINVAL);
	vtest_assert_eq_u64(so_query(dev, a), 0);
	vtest_assert_eq(vdxg_syncobj_signal(dev, a, 0), 0);
	vtest_assert_eq(so_wait(dev, a, 0, 0), 0);
	vtest_assert_eq(vdxg_syncobj_export_sync_file(dev, a, 0, &fd), 0);
	vtest_assert(fd >= 0);
	vtest_assert(sync_file_signalled(fd));
	vtest_assert_eq(vdxg_syncobj_reset(dev, a), 0);
	vtest_assert_eq(so_wait(dev, a, 0, 0), -EINVAL);

	/* Created signalled; its sync_file imported into a reset one. */
	vtest_assert_eq(vdxg_syncobj_create(dev, DRM_SYNCOBJ_CREATE_SIGNALED,
					    &b), 0);
	vtest_assert_neq(b, a);
	vtest_assert_eq(so_wait(dev, b, 0, 0), 0);
	vtest_assert_eq(vdxg_syncobj_reset(dev, b), 0);
	vtest_assert_eq(so_wait(dev, b, 0, 0), -EINVAL);
	vtest_assert_eq(vdxg_syncobj_import_sync_file(dev, b, 0, fd), 0);
	vtest_assert_eq(so_wait(dev, b, 0, 0), 0);
	close(fd);

	/* Any of two, all of two, and which one. */
	two[0] = a;	/* no fence */
	two[1] = b;	/* signalled */
	first = 99;
	vtest_assert_eq(vdxg_syncobj_wait(dev, two, NULL, 2,
					  vdxg_timeout_abs(VR_SEC), SUBMITTED,
					  &first), 0);
	vtest_assert_eq(first, 1);
	vtest_assert_eq(vdxg_syncobj_wait(dev, two, NULL, 2,
					  vdxg_timeout_abs(20 * 1000 * 1000),
					  SUBMITTED | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL,
					  NULL), -ETIME);

	/* A timeline: points signalled, queried, waited, exported. */
	vtest_assert_eq(vdxg_syncobj_create(dev, 0, &tl), 0);
	vtest_assert_eq_u64(so_query(dev, tl), 0);
	vtest_assert_eq(vdxg_syncobj_signal(dev, tl, 5), 0);
	vtest_assert_eq_u64(so_query(dev, tl), 5);
	vtest_assert_eq(so_wait_point(dev, tl, 5, 0, 0), 0);
	vtest_assert_eq(so_wait_point(dev, tl, 3, 0, 0), 0);
	vtest_assert_eq(so_wait_point(dev, tl, 7, 20 * 1000 * 1000, SUBMITTED),
			-ETIME);
	vtest_assert_eq(vdxg_syncobj_export_sync_file(dev, tl, 7, &fd),
			-EINVAL);
	vtest_assert_eq(vdxg_syncobj_signal(dev, tl, 7), 0);
	vtest_assert_eq_u64(so_query(dev, tl), 7);
	pts[0] = 7;
	pts[1] = 5;
	two[0] = tl;
	two[1] = tl;
	vtest_assert_eq(vdxg_syncobj_wait(dev, two, pts, 2, vdxg_timeout_abs(0),
					  DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL,
					  NULL), 0);
	vtest_assert_eq(vdxg_syncobj_export_sync_file(dev, tl, 5, &fd), 0);
	vtest_assert(sync_file_signalled(fd));
	/* ... into another timeline at point 3, and into a binary one. */
	vtest_assert_eq(vdxg_syncobj_create(dev, 0, &tl2), 0);
	vtest_assert_eq(vdxg_syncobj_import_sync_file(dev, tl2, 3, fd), 0);
	vtest_assert_eq_u64(so_query(dev, tl2), 3);
	vtest_assert_eq(so_wait_point(dev, tl2, 3, 0, 0), 0);
	vtest_assert_eq(vdxg_syncobj_reset(dev, a), 0);
	vtest_assert_eq(vdxg_syncobj_import_sync_file(dev, a, 0, fd), 0);
	vtest_assert_eq(so_wait(dev, a, 0, 0), 0);
	close(fd);
	/* Not a sync_file. */
	vtest_assert_eq(vdxg_syncobj_import_sync_file(dev, a, 0, t.vr.fd),
			-EINVAL);

	/*
	 * A job's fence: a held job signals binary C and point 11 of TL;
	 * C's sync_file, imported into D, follows the job.
	 */
	vtest_assert_eq(vdxg_syncobj_create(dev, 0, &c), 0);
	vtest_assert_eq(vdxg_syncobj_create(dev, 0, &d), 0);
	hmap = vr_hold_bo(&t.vr, &hold);
	bo = vr_bo(&t.vr, PAGE, DRM_VDXG_SEGMENT_APERTURE, 0);
	map = vr_map(bo);
	memset(map, 0, PAGE);
	out[0] = vdxg_sync(c, 0);
	out[1] = vdxg_sync(tl, 11);
	memset(&o, 0, sizeof(o));
	o.out_syncs = out;
	o.num_out_syncs = 2;
	submit_held(&t, hold, bo, 0, 0x11, &o);
	vtest_assert_eq(so_wait(dev, c, 0, 0), -ETIME);
	vtest_assert_eq(so_wait_point(dev, tl, 11, 0, 0), -ETIME);
	vtest_assert_eq_u64(so_query(dev, tl), 7);
	vtest_assert_eq(vdxg_syncobj_export_sync_file(dev, c, 0, &fd), 0);
	vtest_assert(!sync_file_signalled(fd));
	vtest_assert_eq(vdxg_syncobj_export_sync_file(dev, tl, 11, &fd2), 0);
	vtest_assert(!sync_file_signalled(fd2));
	vtest_assert_eq(vdxg_syncobj_import_sync_file(dev, d, 0, fd), 0);
	vtest_assert_eq(so_wait(dev, d, 20 * 1000 * 1000, 0), -ETIME);
	vtest_assert_eq_u64(vr_read64(map, 0), 0);
	vr_write64(hmap, 0, 1);
	vtest_assert_eq(so_wait(dev, c, VR_WAIT_NS, 0), 0);
	vtest_assert_eq_u64(vr_read64(map, 0), 0x11);
	vtest_assert_eq(so_wait(dev, d, 0, 0), 0);
	vtest_assert_eq(so_wait_point(dev, tl, 11, 0, 0), 0);
	vtest_assert_eq_u64(so_query(dev, tl), 11);
	vtest_assert(sync_file_signalled(fd));
	vtest_assert(sync_file_signalled(fd2));
	close(fd);
	close(fd2);
	vdxg_bo_free(bo);
	vdxg_bo_free(hold);

	/* Destroyed: gone for every call. */
	vtest_assert_eq(vdxg_syncobj_destroy(dev, c), 0);
	vtest_assert_eq(vdxg_syncobj_destroy(dev, c), -EINVAL);
	vtest_assert_eq(so_wait(dev, c, 0, 0), -ENOENT);
	vtest_assert_eq(vdxg_syncobj_signal(dev, c, 0), -ENOENT);
	vtest_assert_eq(vdxg_syncobj_signal(dev, c, 3), -ENOENT);
	vtest_assert_eq(vdxg_syncobj_reset(dev, c), -ENOENT);
	vtest_assert_eq(vdxg_syncobj_query(dev, c, &pts[0]), -ENOENT);
	vtest_assert_eq(vdxg_syncobj_export_sync_file(dev, c, 0, &fd3),
			-ENOENT);
	vtest_assert_eq(vdxg_syncobj_destroy(dev, a), 0);
	vtest_assert_eq(vdxg_syncobj_destroy(dev, b), 0);
	vtest_assert_eq(vdxg_syncobj_destroy(dev, d), 0);
	vtest_assert_eq(vdxg_syncobj_destroy(dev, tl), 0);
	vtest_assert_eq(vdxg_syncobj_destroy(dev, tl2), 0);
	lt_close(&t);
}

/* --------------------------------------------------------------- cs-submit */

#define IMG	64		/* the header example's surface: 64 x 64 */
#define IMG_PITCH (IMG * 4)
#define IMG_SIZE (IMG * IMG_PITCH)
#define RB_FENCE IMG_SIZE	/* the fence's offset in the readback object */

/* The address field at byte OFF of CS's buffer. */
static uint64_t cs_field(struct vdxg_cs *cs, uint32_t off)
{
	const uint32_t *dw = vdxg_cs_dwords(cs);

	return dw[off / 4] | (uint64_t)dw[off / 4 + 1] << 32;
}

/*
 * Every address field of CS holds its allocation's presumed address plus
 * the patch's offset, and each builder object's presumed address is its
 * bo->gpu_addr, which is where GEM_INFO says the object is.
 */
static void check_cs_addresses(struct vdxg_cs *cs, struct vdxg_bo **bos,
			       int nbos, const char *what)
{
	const struct drm_vdxg_allocation *a;
	const struct drm_vdxg_patch_location *p;
	uint32_t na, np, i;
	int k;

	a = vdxg_cs_allocations(cs, &na);
	p = vdxg_cs_patches(cs, &np);
	vtest_assert_eq(na, nbos);
	for (k = 0; k < nbos; k++) {
		vtest_assert_eq(a[k].handle, bos[k]->handle);
		vtest_assert_f(a[k].presumed_gpu_addr == bos[k]->gpu_addr &&
			       bos[k]->gpu_addr == vr_bo_gpu_addr(bos[k]),
			       "%s: object %d presumed 0x%llx, gpu_addr 0x%"
			       PRIx64 ", GEM_INFO 0x%" PRIx64, what, k,
			       (unsigned long long)a[k].presumed_gpu_addr,
			       bos[k]->gpu_addr, vr_bo_gpu_addr(bos[k]));
	}
	for (i = 0; i < np; i++)
		vtest_assert_f(cs_field(cs, p[i].patch_offset) ==
			       a[p[i].allocation_index].presumed_gpu_addr +
			       p[i].allocation_offset,
			       "%s: address field %u is 0x%" PRIx64, what, i,
			       cs_field(cs, p[i].patch_offset));
}

/* The readback object holds IMAGE and SEQ at RB_FENCE. */
static void check_rb(const uint8_t *rb, const uint8_t *image, uint64_t seq,
		     const char *what)
{
	check_bytes(rb, image, IMG_SIZE, what);
	vtest_assert_f(vr_read64(rb, RB_FENCE) == seq, "%s: fence 0x%" PRIx64
		       ", expected 0x%" PRIx64, what, vr_read64(rb, RB_FENCE),
		       seq);
}

static void test_cs_submit(void)
{
	struct vdxg_submit_opts o;
	struct drm_vdxg_submit args;
	struct vdxg_ref_surface r;
	struct vdxg_device *dev;
	struct vdxg_bo *dst, *rb, *pair[2];
	struct vdxg_cs *cs, *cs2;
	uint32_t ctx, seg[] = { DRM_VDXG_SEGMENT_VRAM }, n, dummy = 0, x;
	uint64_t submits, rejected, old;
	uint8_t *rbm, *image;
	struct lt t;
	int f;

	lt_open(&t);
	dev = t.vr.dev;
	image = malloc(IMG_SIZE);
	vtest_assert(image);

	/* vdxg.h's example, as written. */
	vtest_assert_eq(vdxg_bo_create(dev, 64 * 64 * 4, seg, 1, 0, &dst), 0);
	vtest_assert_eq(vdxg_context_create(dev, DRM_VDXG_ENGINE_RENDER,
					    DRM_VDXG_PRIORITY_NORMAL, 0, &ctx),
			0);
	vtest_assert_eq(vdxg_cs_create(&cs), 0);
	vtest_assert_eq(vdxg_cs_set_surface(cs, VDXG_SLOT_DST, dst, 0,
					    DRM_VDXG_ALLOC_WRITE,
					    VDXG_FMT_XRGB8888, 64, 64, 256), 0);
	vtest_assert_eq(vdxg_cs_fill_rect(cs, 0, 0, 64, 64, 0xff0000ff), 0);
	vtest_assert_eq_u64(dst->gpu_addr, 0);
	vtest_assert_eq(vdxg_submit(dev, ctx, cs, NULL), 0);
	vtest_assert_eq(vdxg_bo_wait(dst, INT64_MAX), 0);
	/* Its addresses written back. */
	pair[0] = dst;
	check_cs_addresses(cs, pair, 1, "the example");
	vtest_assert_neq_u64(dst->gpu_addr, 0);

	/*
	 * Every pixel, through a copy by the engine into a CPU-accessible
	 * object (the example's is not): fresh, so patched.
	 */
	rb = vr_bo(&t.vr, IMG_SIZE + PAGE, DRM_VDXG_SEGMENT_APERTURE,
		   DRM_VDXG_SEGMENT_VRAM);
	rbm = vr_map(rb);
	memset(rbm, 0x5a, rb->size);
	cs2 = vr_cs();
	vdxg_cs_set_surface(cs2, VDXG_SLOT_SRC, dst, 0, 0, VDXG_FMT_XRGB8888,
			    IMG, IMG, IMG_PITCH);
	vdxg_cs_set_surface(cs2, VDXG_SLOT_DST, rb, 0, DRM_VDXG_ALLOC_WRITE,
			    VDXG_FMT_XRGB8888, IMG, IMG, IMG_PITCH);
	vdxg_cs_copy_rect(cs2, 0, 0, 0, 0, IMG, IMG);
	vdxg_cs_fence(cs2, rb, RB_FENCE, DRM_VDXG_ALLOC_WRITE, 1);
	vr_cs_ok(cs2);
	for (x = 0; x < IMG * IMG; x++)
		memcpy(image + 4 * x, &(uint32_t){ 0xff0000ff }, 4);
	memset(&o, 0, sizeof(o));
	o.out_flags = 0xdead;
	vtest_assert_eq(vdxg_submit(dev, t.ctx, cs2, &o), 0);
	vtest_assert_eq(o.out_flags, DRM_VDXG_SUBMIT_OUT_PATCHED);
	vtest_assert_eq(vdxg_bo_wait(rb, VR_WAIT_NS), 0);
	check_rb(rbm, image, 1, "the example's pixels");
	pair[0] = dst;
	pair[1] = rb;
	check_cs_addresses(cs2, pair, 2, "first submit");

	/* The same builder again: right addresses, not patched. */
	memset(rbm, 0, rb->size);
	old = rb->gpu_addr;
	o.out_flags = 0xdead;
	vtest_assert_eq(vdxg_submit(dev, t.ctx, cs2, &o), 0);
	vtest_assert_eq(o.out_flags, 0);
	vtest_assert_eq(vdxg_bo_wait(rb, VR_WAIT_NS), 0);
	check_rb(rbm, image, 1, "second submit");
	vtest_assert_eq_u64(rb->gpu_addr, old);

	/* Moved: patched, and the builder follows the object. */
	vtest_assert_eq(vdxg_bo_make_resident(rb, DRM_VDXG_SEGMENT_VRAM), 0);
	vtest_assert_eq(vdxg_bo_wait(rb, VR_WAIT_NS), 0);
	vtest_assert_neq_u64(vr_bo_gpu_addr(rb), old);
	memset(rbm, 0, rb->size);
	o.out_flags = 0xdead;
	vtest_assert_eq(vdxg_submit(dev, t.ctx, cs2, &o), 0);
	vtest_assert_eq(o.out_flags, DRM_VDXG_SUBMIT_OUT_PATCHED);
	vtest_assert_eq(vdxg_bo_wait(rb, VR_WAIT_NS), 0);
	check_rb(rbm, image, 1, "after the move");
	check_cs_addresses(cs2, pair, 2, "after the move");
	vtest_assert_neq_u64(rb->gpu_addr, old);
	o.out_flags = 0xdead;
	vtest_assert_eq(vdxg_submit(dev, t.ctx, cs2, &o), 0);
	vtest_assert_eq(o.out_flags, 0);

	/* Frames: reset, reuse; presumed addresses now right from the start. */
	r = (struct vdxg_ref_surface){ .data = image,
				       .format = VDXG_FMT_XRGB8888,
				       .width = IMG, .height = IMG,
				       .pitch = IMG_PITCH };
	for (f = 0; f < 4; f++) {
		uint32_t c = vr_rand(&t.rng), fx = f * 9, fy = f * 5;
		char what[32];

		vdxg_cs_reset(cs2);
		vtest_assert_eq(vdxg_cs_num_dwords(cs2), 0);
		vdxg_cs_allocations(cs2, &n);
		vtest_assert_eq(n, 0);
		vdxg_cs_patches(cs2, &n);
		vtest_assert_eq(n, 0);
		vtest_assert_eq(vdxg_cs_error(cs2), 0);
		vtest_assert_eq(vdxg_cs_set_surface(cs2, VDXG_SLOT_DST, rb, 0,
						    DRM_VDXG_ALLOC_WRITE,
						    VDXG_FMT_XRGB8888, IMG, IMG,
						    IMG_PITCH), 0);
		vtest_assert_eq(vdxg_cs_fill_rect(cs2, fx, fy, 30 - f, 20 + f,
						  c), 0);
		vtest_assert_eq(vdxg_cs_fence(cs2, rb, RB_FENCE,
					      DRM_VDXG_ALLOC_WRITE, 100 + f),
				0);
		vdxg_ref_fill_rect(&r, fx, fy, 30 - f, 20 + f, c);
		o.out_flags = 0xdead;
		vtest_assert_eq(vdxg_submit(dev, t.ctx, cs2, &o), 0);
		vtest_assert_eq(o.out_flags, 0);
		vtest_assert_eq(vdxg_bo_wait(rb, VR_WAIT_NS), 0);
		snprintf(what, sizeof(what), "frame %d", f);
		check_rb(rbm, image, 100 + f, what);
	}

	/* A builder error: sticky, the first one kept, no ioctl. */
	vdxg_cs_reset(cs2);
	vtest_assert_eq(vdxg_cs_set_surface(cs2, VDXG_SLOT_DST, rb, 0,
					    DRM_VDXG_ALLOC_WRITE,
					    VDXG_FMT_XRGB8888, IMG, IMG,
					    IMG_PITCH), 0);
	vtest_assert_eq(vdxg_cs_fill_rect(cs2, 0, 0, IMG, IMG, 0xffffffff), 0);
	vtest_assert_eq(vdxg_cs_emit_raw(cs2, &dummy, 1u << 29), -E2BIG);
	vtest_assert_eq(vdxg_cs_error(cs2), -E2BIG);
	vtest_assert_eq(vdxg_cs_fill_rect(cs2, 0x10000, 0, 1, 1, 0), -EINVAL);
	vtest_assert_eq(vdxg_cs_set_surface(cs2, VDXG_SLOT_SRC, NULL, 0, 0,
					    VDXG_FMT_XRGB8888, 1, 1, 64),
			-EINVAL);
	vtest_assert_eq(vdxg_cs_fence(cs2, rb, RB_FENCE, DRM_VDXG_ALLOC_WRITE,
				      200), 0);
	vtest_assert_eq(vdxg_cs_error(cs2), -E2BIG);
	memset(&args, 0, sizeof(args));
	vtest_assert_eq(vdxg_cs_prepare_submit(cs2, &args), -E2BIG);
	submits = vr_debugfs(&t.vr, "render", "submits");
	rejected = vr_debugfs(&t.vr, "render", "rejected");
	o.out_flags = 0xdead;
	vtest_assert_eq(vdxg_submit(dev, t.ctx, cs2, &o), -E2BIG);
	vtest_assert_eq(o.out_flags, 0xdead);
	vtest_assert_eq(vdxg_submit(dev, t.ctx, cs2, NULL), -E2BIG);
	vtest_assert_eq_u64(vr_debugfs(&t.vr, "render", "submits"), submits);
	vtest_assert_eq_u64(vr_debugfs(&t.vr, "render", "rejected"), rejected);
	vr_sleep_ms(50);
	vtest_assert_eq(vdxg_bo_wait(rb, 0), 0);
	check_rb(rbm, image, 103, "after the refused submit");
	/* ... until reset. */
	vdxg_cs_reset(cs2);
	vtest_assert_eq(vdxg_cs_error(cs2), 0);
	vtest_assert_eq(vdxg_cs_fence(cs2, rb, RB_FENCE, DRM_VDXG_ALLOC_WRITE,
				      201), 0);
	vtest_assert_eq(vdxg_submit(dev, t.ctx, cs2, NULL), 0);
	vtest_assert_eq(vdxg_bo_wait(rb, VR_WAIT_NS), 0);
	check_rb(rbm, image, 201, "after the reset");
	vtest_assert_eq_u64(vr_debugfs(&t.vr, "render", "submits"),
			    submits + 1);

	vdxg_cs_free(cs2);
	vdxg_cs_free(cs);
	vdxg_cs_free(NULL);
	vtest_assert_eq(vdxg_context_destroy(dev, ctx), 0);
	vdxg_bo_free(rb);
	vdxg_bo_free(dst);
	free(image);
	lt_close(&t);
}

/* ----------------------------------------------------------------- context */

static void test_context(void)
{
	struct drm_vdxg_reset_status st;
	struct vdxg_bo *bo;
	uint32_t c1 = 0, c2 = 0, c3 = 0, bad = 0x5a5a;
	struct lt t;

	lt_open(&t);
	vtest_assert_eq(vdxg_context_create(t.vr.dev, DRM_VDXG_ENGINE_RENDER,
					    DRM_VDXG_PRIORITY_LOW, 0, &c1), 0);
	vtest_assert_eq(vdxg_context_create(t.vr.dev, DRM_VDXG_ENGINE_RENDER,
					    DRM_VDXG_PRIORITY_NORMAL, 0, &c2),
			0);
	/* HIGH: this test runs with CAP_SYS_NICE. */
	vtest_assert_eq(vdxg_context_create(t.vr.dev, DRM_VDXG_ENGINE_RENDER,
					    DRM_VDXG_PRIORITY_HIGH, 0, &c3), 0);
	vtest_assert(c1 && c2 && c3);
	vtest_assert(c1 != c2 && c2 != c3 && c1 != c3 && c1 != t.ctx);

	/* Each works. */
	bo = vr_bo(&t.vr, PAGE, DRM_VDXG_SEGMENT_VRAM, 0);
	vr_fence_check(&t.vr, c1, bo, 0, 0xc1);
	vr_fence_check(&t.vr, c2, bo, 8, 0xc2);
	vr_fence_check(&t.vr, c3, bo, 16, 0xc3);

	memset(&st, 0xff, sizeof(st));
	vtest_assert_eq(vdxg_context_reset_status(t.vr.dev, c2, &st), 0);
	vtest_assert_eq(st.ctx_id, c2);
	vtest_assert_eq(st.flags, 0);
	vtest_assert_eq(st.guilty, 0);
	vtest_assert_eq(st.innocent, 0);

	/* Bad arguments. */
	vtest_assert_eq(vdxg_context_create(t.vr.dev, 1,
					    DRM_VDXG_PRIORITY_NORMAL, 0, &bad),
			-EINVAL);
	vtest_assert_eq(vdxg_context_create(t.vr.dev, DRM_VDXG_ENGINE_RENDER,
					    3, 0, &bad), -EINVAL);
	vtest_assert_eq(vdxg_context_create(t.vr.dev, DRM_VDXG_ENGINE_RENDER,
					    DRM_VDXG_PRIORITY_NORMAL, 1, &bad),
			-EINVAL);
	vtest_assert_eq(bad, 0x5a5a);

	/* Destroyed: gone. */
	vtest_assert_eq(vdxg_context_destroy(t.vr.dev, c2), 0);
	vtest_assert_eq(vdxg_context_destroy(t.vr.dev, c2), -ENOENT);
	vtest_assert_eq(vdxg_context_reset_status(t.vr.dev, c2, &st), -ENOENT);
	vtest_assert_eq(vdxg_context_reset_status(t.vr.dev, 0x7777, &st),
			-ENOENT);
	vtest_assert_eq(vdxg_context_destroy(t.vr.dev, 0x7777), -ENOENT);
	/* The others still work. */
	vr_fence_check(&t.vr, c1, bo, 24, 0xc11);
	vtest_assert_eq(vdxg_context_destroy(t.vr.dev, c1), 0);
	vtest_assert_eq(vdxg_context_destroy(t.vr.dev, c3), 0);
	vdxg_bo_free(bo);
	lt_close(&t);
}

/* ------------------------------------------------------------ present-blit */

/* Clip R to [X1, X2) x [Y1, Y2); false when nothing is left. */
static bool clip_rect(struct drm_vdxg_rect *r, int32_t x1, int32_t y1,
		      int32_t x2, int32_t y2)
{
	if (r->x1 < x1)
		r->x1 = x1;
	if (r->y1 < y1)
		r->y1 = y1;
	if (r->x2 > x2)
		r->x2 = x2;
	if (r->y2 > y2)
		r->y2 = y2;
	return r->x1 < r->x2 && r->y1 < r->y2;
}

/* What a blit of SS to (DX, DY) of DS through CLIPS does, in the reference. */
static void ref_blit(const struct vr_surf *ss, const struct vr_surf *ds,
		     int32_t dx, int32_t dy, const struct drm_vdxg_rect *clips,
		     uint32_t n)
{
	struct vdxg_ref_surface rs = vr_ref(ss), rd = vr_ref(ds);
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct drm_vdxg_rect r = clips[i];

		if (!clip_rect(&r, 0, 0, ds->width, ds->height) ||
		    !clip_rect(&r, dx, dy, dx + (int32_t)ss->width,
			       dy + (int32_t)ss->height))
			continue;
		vdxg_ref_copy_rect(&rd, &rs, r.x1 - dx, r.y1 - dy, r.x1, r.y1,
				   r.x2 - r.x1, r.y2 - r.y1);
	}
}

static void test_present_blit(void)
{
	static const struct drm_vdxg_rect clips[] = {
		{ 0, 0, 30, 20 },	/* from left of and above the source */
		{ 2, 80, 20, 90 },	/* outside the source: nothing */
		{ 40, 30, 61, 47 },	/* inside both */
		{ 100, 60, 200, 200 },	/* past the source and destination */
	};
	static struct drm_vdxg_rect many[DRM_VDXG_MAX_CLIPS + 1];
	struct drm_vdxg_present_surface ps, pd, pf;
	struct drm_vdxg_rect bad = { 10, 10, 10, 20 }, whole = {
		INT32_MIN, INT32_MIN, INT32_MAX, INT32_MAX };
	struct vr_buf src, dst;
	struct vr_surf ss, ds;
	uint32_t so, i;
	struct lt t;

	lt_open(&t);
	vr_buf_init(&t.vr, &src, 96 * 64 * 4, DRM_VDXG_SEGMENT_VRAM);
	vr_buf_init(&t.vr, &dst, 128 * 96 * 4, DRM_VDXG_SEGMENT_APERTURE);
	vr_buf_randomize(&src, &t.rng);
	vr_buf_randomize(&dst, &t.rng);
	ss = vr_surf(&src, 0, VDXG_FMT_XRGB8888, 96, 64);
	ds = vr_surf(&dst, 0, VDXG_FMT_XRGB8888, 128, 96);

	/* The descriptions, field by field. */
	ps = vdxg_present_bo(src.bo, DRM_FORMAT_XRGB8888, 96, 64, ss.pitch, 0);
	vtest_assert_eq(ps.fb_id, 0);
	vtest_assert_eq(ps.handle, src.bo->handle);
	vtest_assert_eq(ps.format, DRM_FORMAT_XRGB8888);
	vtest_assert_eq(ps.width, 96);
	vtest_assert_eq(ps.height, 64);
	vtest_assert_eq(ps.pitch, ss.pitch);
	vtest_assert_eq(ps.offset, 0);
	vtest_assert_eq(ps.pad, 0);
	pd = vdxg_present_bo(dst.bo, DRM_FORMAT_XRGB8888, 128, 96, ds.pitch, 0);
	pf = vdxg_present_fb(77);
	vtest_assert_eq(pf.fb_id, 77);
	vtest_assert(!pf.handle && !pf.format && !pf.width && !pf.height &&
		     !pf.pitch && !pf.offset && !pf.pad);

	/* Clips, an out syncobj. */
	so = vr_syncobj(&t.vr, false);
	vtest_assert_eq(vdxg_present_blit(t.vr.dev, t.ctx, &ps, &pd, 20, 10,
					  clips, VTEST_ARRAY_SIZE(clips), so),
			0);
	vtest_assert_eq(so_wait(t.vr.dev, so, VR_WAIT_NS, 0), 0);
	ref_blit(&ss, &ds, 20, 10, clips, VTEST_ARRAY_SIZE(clips));
	vr_buf_check(&dst, &ds, 1, "blit through clips");
	vr_buf_check(&src, &ss, 1, "the blit's source");

	/* No clips: the whole source, at a negative offset; no syncobj. */
	vtest_assert_eq(vdxg_present_blit(t.vr.dev, t.ctx, &ps, &pd, -8, 50,
					  NULL, 0, 0), 0);
	vtest_assert_eq(vdxg_bo_wait(dst.bo, VR_WAIT_NS), 0);
	ref_blit(&ss, &ds, -8, 50, &whole, 1);
	vr_buf_check(&dst, &ds, 1, "blit without clips");

	/* Errors: nothing written. */
	vtest_assert_eq(vdxg_present_blit(t.vr.dev, 0x7777, &ps, &pd, 0, 0,
					  NULL, 0, so), -ENOENT);
	vtest_assert_eq(vdxg_present_blit(t.vr.dev, t.ctx, &ps, &pd, 0, 0,
					  &bad, 1, so), -EINVAL);
	for (i = 0; i < VTEST_ARRAY_SIZE(many); i++)
		many[i] = (struct drm_vdxg_rect){ 0, 0, 4, 4 };
	vtest_assert_eq(vdxg_present_blit(t.vr.dev, t.ctx, &ps, &pd, 0, 0, many,
					  VTEST_ARRAY_SIZE(many), so), -E2BIG);
	pf = vdxg_present_fb(0xdead);
	vtest_assert_eq(vdxg_present_blit(t.vr.dev, t.ctx, &ps, &pf, 0, 0,
					  NULL, 0, so), -ENOENT);
	vtest_assert_eq(vdxg_bo_wait(dst.bo, VR_WAIT_NS), 0);
	vr_buf_check(&dst, &ds, 1, "after the refused blits");

	vdxg_syncobj_destroy(t.vr.dev, so);
	vr_buf_fini(&dst);
	vr_buf_fini(&src);
	lt_close(&t);
}

/* ------------------------------------------------------------ present-flip */

/* An XRGB8888 image of the mode's size, in a CPU-visible VRAM object. */
struct fbo {
	struct vdxg_bo *bo;
	uint32_t fb, pitch;
	uint32_t crc;		/* the display's CRC of its image */
};

static void fbo_init(struct vdxg_device *dev, const struct voutput *o,
		     struct fbo *f, uint32_t seed)
{
	static const uint32_t vram[] = { DRM_VDXG_SEGMENT_VRAM };
	uint32_t handles[4] = { 0 }, pitches[4] = { 0 }, offsets[4] = { 0 };
	uint32_t x, y, *row;
	uint8_t *map;

	f->pitch = (o->w * 4 + 63) & ~63u;
	vtest_assert_eq(vdxg_bo_create(dev, (uint64_t)f->pitch * o->h, vram, 1,
				       DRM_VDXG_GEM_CPU_ACCESS, &f->bo), 0);
	map = vr_map(f->bo);
	row = malloc(f->pitch);
	vtest_assert(row);
	for (y = 0; y < o->h; y++) {
		for (x = 0; x < o->w; x++)
			row[x] = ((x / 16 + y / 16) & 1) ? 0xff000000 | seed :
				 0xff000000 | (x * 255 / o->w) << 16 |
				 (y * 255 / o->h) << 8 | (seed & 0xff);
		memcpy(map + (size_t)y * f->pitch, row, o->w * 4);
	}
	free(row);
	f->crc = voutput_image_crc(map, f->pitch, o->w, o->h);
	handles[0] = f->bo->handle;
	pitches[0] = f->pitch;
	vtest_assert_f(drmModeAddFB2(vdxg_device_fd(dev), o->w, o->h,
				     DRM_FORMAT_XRGB8888, handles, pitches,
				     offsets, &f->fb, 0) == 0,
		       "ADDFB2: %s", strerror(errno));
}

static void fbo_fini(struct vdxg_device *dev, struct fbo *f)
{
	drmModeRmFB(vdxg_device_fd(dev), f->fb);
	vdxg_bo_free(f->bo);
}

static void test_present_flip(void)
{
	struct vdxg_device *dev, *other, *render;
	struct drm_event_vblank ev;
	char cpath[PATH_MAX];
	uint64_t kmsg, ud;
	uint32_t so, so2;
	struct voutput o;
	struct fbo a, b;
	int fd, n;

	fd = vtest_drm_open_driver("vdxg", VTEST_NODE_CARD, cpath);
	if (fd < 0)
		vtest_skip("no vdxg card node");
	close(fd);
	kmsg = vtest_kmsg_seq();
	vtest_assert_eq(vdxg_device_open(cpath, &dev), 0);
	fd = vdxg_device_fd(dev);
	voutput_find(fd, &o);
	fbo_init(dev, &o, &a, 0x204060);
	fbo_init(dev, &o, &b, 0xc08020);
	vtest_assert_neq_u64(a.crc, b.crc);
	vtest_assert_f(drmModeSetCrtc(fd, o.crtc_id, a.fb, 0, 0, &o.conn_id, 1,
				      &o.mode) == 0,
		       "SetCrtc: %s", strerror(errno));
	vtest_assert_eq(voutput_crtc_fb(fd, o.crtc_id), a.fb);
	vtest_assert_eq(vdxg_syncobj_create(dev, 0, &so), 0);

	/* To B, with an event and a syncobj. */
	ud = 0x1122334455667788ull ^ (uint64_t)getpid() << 20;
	vtest_assert_eq(vdxg_present_flip(dev, o.crtc_id, b.fb,
					  DRM_VDXG_PRESENT_EVENT, ud, so), 0);
	vtest_assert_f(voutput_read_event(fd, &ev, 10000),
		       "no flip event within 10 s");
	vtest_assert_eq(ev.base.type, DRM_EVENT_FLIP_COMPLETE);
	vtest_assert_eq(ev.base.length, sizeof(ev));
	vtest_assert_eq_u64(ev.user_data, ud);
	vtest_assert_eq(ev.crtc_id, o.crtc_id);
	vtest_assert_eq(so_wait(dev, so, 0, 0), 0);
	vtest_assert_eq(voutput_crtc_fb(fd, o.crtc_id), b.fb);

	/* Refused flips: no flip, no event. */
	vtest_assert_eq(vdxg_present_flip(dev, o.crtc_id, 0xdead,
					  DRM_VDXG_PRESENT_EVENT, 1, 0),
			-ENOENT);
	vtest_assert_eq(vdxg_present_flip(dev, o.crtc_id, 0,
					  DRM_VDXG_PRESENT_EVENT, 2, 0),
			-EINVAL);
	vtest_assert_eq(vdxg_present_flip(dev, o.crtc_id, a.fb, 0x2, 3, 0),
			-EINVAL);
	vtest_assert_eq(vdxg_present_flip(dev, 0xdead, a.fb,
					  DRM_VDXG_PRESENT_EVENT, 4, 0),
			-ENOENT);
	vtest_assert_eq(vdxg_present_flip(dev, o.crtc_id, a.fb,
					  DRM_VDXG_PRESENT_EVENT, 5, 0xdead),
			-ENOENT);
	vtest_assert_eq(vdxg_device_open(cpath, &other), 0);
	vtest_assert(!drmIsMaster(vdxg_device_fd(other)));
	vtest_assert_eq(vdxg_present_flip(other, o.crtc_id, a.fb,
					  DRM_VDXG_PRESENT_EVENT, 6, 0),
			-EACCES);
	vdxg_device_close(other);
	vtest_assert_eq(vdxg_device_open(NULL, &render), 0);
	vtest_assert_eq(vdxg_present_flip(render, o.crtc_id, a.fb,
					  DRM_VDXG_PRESENT_EVENT, 7, 0),
			-EACCES);
	vdxg_device_close(render);
	vtest_assert_f(!voutput_read_event(fd, &ev, 100),
		       "an event (user data 0x%llx) after refused flips",
		       (unsigned long long)ev.user_data);
	vtest_assert_eq(voutput_crtc_fb(fd, o.crtc_id), b.fb);

	/* B is what the display shows. */
	vtest_info("expected CRCs: A 0x%08x, B 0x%08x", a.crc, b.crc);
	vtest_assert_eq_u64(voutput_screen_crc(fd, o.head, "after the flip"),
			    b.crc);

	/* Back to A: no event asked for, none sent; the syncobj signals. */
	vtest_assert_eq(vdxg_syncobj_create(dev, 0, &so2), 0);
	vtest_assert_eq(vdxg_present_flip(dev, o.crtc_id, a.fb, 0, 0xbad, so2),
			0);
	vtest_assert_eq(so_wait(dev, so2, 10 * VR_SEC, 0), 0);
	vtest_assert_f(!voutput_read_event(fd, &ev, 100),
		       "an event (user data 0x%llx) for a flip without "
		       "DRM_VDXG_PRESENT_EVENT",
		       (unsigned long long)ev.user_data);
	vtest_assert_eq(voutput_crtc_fb(fd, o.crtc_id), a.fb);
	vtest_assert_eq_u64(voutput_screen_crc(fd, o.head, "flipped back"),
			    a.crc);

	vdxg_syncobj_destroy(dev, so2);
	vdxg_syncobj_destroy(dev, so);
	fbo_fini(dev, &b);
	fbo_fini(dev, &a);
	vdxg_device_close(dev);
	n = vtest_kmsg_problems(kmsg);
	vtest_assert_f(n == 0, "%d kernel log problem(s)", n);
}

/* ---------------------------------------------------------------- strerror */

static void test_strerror(void)
{
	/* The vdxg ioctls' errnos (uapi/drm/vdxg_drm.h) and their texts. */
	static const struct {
		int err;
		const char *msg;
	} texts[] = {
		{ EINVAL, "invalid argument: a bad command, field, flag, "
			  "format, rectangle or padding" },
		{ ERANGE, "an access outside its allocation or object" },
		{ EACCES, "not allowed: a write through an allocation without "
			  "DRM_VDXG_ALLOC_WRITE, a high-priority context "
			  "without CAP_SYS_NICE or DRM master, or a flip "
			  "without DRM master" },
		{ ENOENT, "an unknown handle, framebuffer, CRTC, context or "
			  "syncobj" },
		{ E2BIG, "over a limit: command size, allocations, patches, "
			 "clips (DRM_VDXG_PARAM_MAX_*) or an object larger "
			 "than the commit limit" },
		{ EIO, "the context was banned after a GPU hang or fault" },
		{ EBUSY, "busy: a flip is already pending, or the object is in "
			 "use" },
		{ ETIME, "timed out" },
		{ ENOMEM, "out of memory: GPU memory in every allowed segment, "
			  "the commit limit, or kernel memory" },
		{ ENODEV, "not a vdxg device, or the device is gone" },
	};
	static const int others[] = { 0, EPERM, EFAULT, ENOSPC, EOPNOTSUPP,
				      EBADF, 4095, 100000 };
	struct vdxg_bo *bo;
	struct vdxg_cs *cs;
	char want[256];
	unsigned int i;
	struct lt t;
	int ret;

	for (i = 0; i < VTEST_ARRAY_SIZE(texts); i++) {
		vtest_assert_str_eq(vdxg_strerror(-texts[i].err), texts[i].msg);
		vtest_assert_str_eq(vdxg_strerror(texts[i].err), texts[i].msg);
	}
	for (i = 0; i < VTEST_ARRAY_SIZE(others); i++) {
		snprintf(want, sizeof(want), "%s", strerror(others[i]));
		vtest_assert_str_eq(vdxg_strerror(others[i]), want);
		vtest_assert_str_eq(vdxg_strerror(-others[i]), want);
	}
	/* INT_MIN has no positive counterpart: strerror's text for it. */
	snprintf(want, sizeof(want), "%s", strerror(INT_MIN));
	vtest_assert_str_eq(vdxg_strerror(INT_MIN), want);

	/* What real failures read like. */
	lt_open(&t);
	bo = vr_bo(&t.vr, PAGE, DRM_VDXG_SEGMENT_VRAM, 0);
	cs = vr_cs();
	vdxg_cs_fence(cs, bo, PAGE - 4, DRM_VDXG_ALLOC_WRITE, 1);
	ret = vdxg_submit(t.vr.dev, t.ctx, cs, NULL);
	vtest_assert_eq(ret, -ERANGE);
	vtest_assert_str_eq(vdxg_strerror(ret),
			    "an access outside its allocation or object");
	vdxg_cs_reset(cs);
	vdxg_cs_fence(cs, bo, 0, DRM_VDXG_ALLOC_WRITE, 1);
	ret = vdxg_submit(t.vr.dev, 0x7777, cs, NULL);
	vtest_assert_eq(ret, -ENOENT);
	vtest_assert_str_eq(vdxg_strerror(ret), texts[3].msg);
	vdxg_cs_free(cs);
	vdxg_bo_free(bo);
	lt_close(&t);
}

static const struct vtest_subtest subtests[] = {
	{ "device-open", test_device_open,
	  "vdxg_device_open(_fd) by NULL, render, card, vgem, bad paths; params" },
	{ "bo", test_bo,
	  "create, map, make_resident through every segment, wait, free, errors" },
	{ "export-import", test_export_import,
	  "PRIME through libvdxg: same object on two files, same handle, errnos" },
	{ "syncobj", test_syncobj,
	  "signal, query, wait, reset, sync_file export/import, a job's fence" },
	{ "cs-submit", test_cs_submit,
	  "vdxg.h's example, presumed addresses, reuse, sticky builder errors" },
	{ "context", test_context,
	  "context create (every priority), reset status, destroy, errors" },
	{ "present-blit", test_present_blit,
	  "vdxg_present_blit through clips with a syncobj; errors write nothing" },
	{ "present-flip", test_present_flip,
	  "vdxg_present_flip: event, user data, syncobj, CRTC fb, CRC; errors" },
	{ "strerror", test_strerror,
	  "vdxg_strerror's texts for vdxg's errnos, strerror() otherwise" },
};

VTEST_MAIN(subtests)
