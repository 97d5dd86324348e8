// SPDX-License-Identifier: MIT
/*
 * vdxg_failslab: every slab allocation of vdxg's ioctls, failed one at a
 * time with the kernel's fault injection (/proc/self/task/TID/fail-nth,
 * as IGT's __igt_fail_nth tests do) and failslab configured to fail
 * sleeping (GFP_KERNEL) allocations too.
 *
 * For N = 1, 2, ...: write N to fail-nth, make the call, read fail-nth
 * back (0: the N-th fault point of the call was hit and failed). The walk
 * ends with the first call that completes without reaching its N-th
 * fault point. For each N:
 *  - the call succeeds (an allocation the driver can do without) or
 *    fails with -ENOMEM (-EFAULT too where fail_usercopy exists, since
 *    fail-nth fails user copies then), nothing else;
 *  - after a failure nothing of the call is left: no GEM handle, context
 *    id or file descriptor taken (the next ones allocated are the lowest
 *    free, so the same call without injection must get the same number),
 *    no fence in an out-syncobj, no job run (its FENCE never lands), no
 *    blit done; the same call without injection then succeeds;
 *  - after a success the call's effect is all there (the job's pixels).
 * At the end of each subtest the segments' usage is back to where it
 * was (debugfs dri/N/segments) and a known-good job runs on a new
 * context. The debug kernel's kmemleak scan at the end of its boot
 * catches leaked allocations this cannot see.
 *
 * The test skips where the kernel has no fail-nth (CONFIG_FAULT_INJECTION)
 * or no failslab (CONFIG_FAILSLAB with debugfs), as Debian's kernel: the
 * debug-kernel boot runs it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <xf86drm.h>

#include "vrender.h"

#define FAILSLAB	"/sys/kernel/debug/failslab"
#define MAX_NTH		4000

/* ------------------------------------------------------------ fail-nth */

static int nth_fd = -1;
static bool usercopy_faults;
static char saved_gfp_wait[8], saved_verbose[8], saved_space[32];
static bool saved;

static void failslab_restore(void)
{
	if (nth_fd >= 0) {
		if (write(nth_fd, "0", 1) < 0) {
			/* nothing more to do */
		}
	}
	if (saved) {
		vtest_write_file(FAILSLAB "/ignore-gfp-wait", saved_gfp_wait);
		vtest_write_file(FAILSLAB "/verbose", saved_verbose);
		vtest_write_file(FAILSLAB "/space", saved_space);
		saved = false;
	}
}

/*
 * Skip without fail-nth or failslab; else arm failslab for sleeping
 * allocations, without messages (each would be a stack dump in the log).
 */
static void failslab_setup(void)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth",
		 (long)syscall(SYS_gettid));
	vtest_require_f(vtest_path_exists(path),
			"no %s: the kernel has no CONFIG_FAULT_INJECTION "
			"(run on the debug kernel)", path);
	if (!vtest_path_exists("/sys/kernel/debug/dri"))
		vtest_system("mount -t debugfs none /sys/kernel/debug "
			     ">/dev/null 2>&1");
	vtest_require_f(vtest_path_exists(FAILSLAB "/ignore-gfp-wait"),
			"no " FAILSLAB ": the kernel has no CONFIG_FAILSLAB "
			"(or no debugfs)");
	usercopy_faults = vtest_path_exists("/sys/kernel/debug/fail_usercopy");
	vtest_assert(vtest_read_file(FAILSLAB "/ignore-gfp-wait", saved_gfp_wait,
				     sizeof(saved_gfp_wait)) > 0);
	vtest_assert(vtest_read_file(FAILSLAB "/verbose", saved_verbose,
				     sizeof(saved_verbose)) > 0);
	vtest_assert(vtest_read_file(FAILSLAB "/space", saved_space,
				     sizeof(saved_space)) > 0);
	saved = true;
	atexit(failslab_restore);
	vtest_assert_eq(vtest_write_file(FAILSLAB "/ignore-gfp-wait", "N"), 0);
	vtest_assert_eq(vtest_write_file(FAILSLAB "/verbose", "0"), 0);
	vtest_assert_eq(vtest_write_file(FAILSLAB "/space", "0"), 0);
	/*
	 * TTM's own message when a page table allocation fails. No
	 * backslashes: /dev/kmsg shows them as \x5c to igt_runner.
	 */
	vr_ignore_dmesg("[[]TTM[]] Failed allocating page table");
	nth_fd = open(path, O_RDWR | O_CLOEXEC);
	vtest_assert_f(nth_fd >= 0, "%s: %s", path, strerror(errno));
	vtest_info("fail-nth armed; failslab fails sleeping allocations%s",
		   usercopy_faults ? "; fail_usercopy present: -EFAULT is "
		   "an injected failure too" : "");
}

static void nth_set(int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", n);

	vtest_assert_f(pwrite(nth_fd, buf, len, 0) == len,
		       "writing fail-nth: %s", strerror(errno));
}

/* True when the fault armed by nth_set() fired; disarms. */
static bool nth_fired(void)
{
	char buf[16] = { 0 };

	vtest_assert(pread(nth_fd, buf, sizeof(buf) - 1, 0) > 0);
	nth_set(0);
	return atoi(buf) == 0;
}

/* An ioctl with fault N armed: 0 or -errno; *fired. */
static const char *nth_what = "?";

static int nth_ioctl(int n, int fd, unsigned long req, void *arg,
		     bool *fired)
{
	int ret, err;

	/* In the kernel log: an oops names the call and fault it is in. */
	vtest_kmsg_mark("vdxg_failslab: %s, fault %d", nth_what, n);
	nth_set(n);
	ret = ioctl(fd, req, arg);
	err = errno;
	*fired = nth_fired();
	return ret ? -err : 0;
}

static void check_error(const char *what, int n, int ret, bool fired)
{
	vtest_assert_f(fired, "%s with fault %d not hit: %d (%s)", what, n,
		       ret, strerror(-ret));
	vtest_assert_f(ret == -ENOMEM || (usercopy_faults && ret == -EFAULT),
		       "%s with allocation %d failed: %d (%s); expected "
		       "-ENOMEM", what, n, ret, strerror(-ret));
}

/* ------------------------------------------------------------ accounting */

struct usage {
	uint64_t vram, aperture, system;
};

static struct usage usage(struct vr *vr)
{
	struct usage u;
	char path[96], buf[8192], *p;

	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/segments",
		 vtest_drm_minor(vr->fd));
	vtest_assert_f(vtest_read_file(path, buf, sizeof(buf)) > 0,
		       "cannot read %s", path);
	memset(&u, 0, sizeof(u));
	if ((p = strstr(buf, "vram: size ")) && (p = strstr(p, "used ")))
		u.vram = strtoull(p + 5, NULL, 10);
	if ((p = strstr(buf, "aperture: size ")) && (p = strstr(p, "used ")))
		u.aperture = strtoull(p + 5, NULL, 10);
	if ((p = strstr(buf, "system: size ")) && (p = strstr(p, "used ")))
		u.system = strtoull(p + 5, NULL, 10);
	return u;
}

/*
 * Usage back to BASE: objects are freed by a worker, so this is a state to
 * wait for; VR_WAIT_NS is the hang guard.
 */
static void usage_settles(struct vr *vr, struct usage base)
{
	double end = vr_now() + (double)VR_WAIT_NS / VR_SEC;
	struct usage u;

	for (;;) {
		u = usage(vr);
		if (u.vram == base.vram && u.aperture == base.aperture &&
		    u.system == base.system)
			return;
		if (vr_now() >= end)
			break;
		vr_sleep_ms(50);
	}
	vtest_fail("segment usage did not return in %lld s: VRAM %" PRIu64
		   " -> %" PRIu64 ", aperture %" PRIu64 " -> %" PRIu64
		   ", system %" PRIu64 " -> %" PRIu64, VR_WAIT_NS / VR_SEC,
		   base.vram, u.vram, base.aperture, u.aperture, base.system,
		   u.system);
}

/* The lowest free fd now. */
static int next_fd(void)
{
	int fd = dup(0);

	vtest_assert(fd >= 0);
	close(fd);
	return fd;
}

/* A known-good job on a new context of VR: the device still works. */
static void known_good(struct vr *vr)
{
	struct vdxg_bo *bo = vr_bo(vr, 4096, DRM_VDXG_SEGMENT_VRAM, 0);
	uint32_t ctx = vr_ctx(vr);

	vr_fence_check(vr, ctx, bo, 64, 0x600d0000c0deull);
	vtest_assert_eq(vdxg_context_destroy(vr->dev, ctx), 0);
	vdxg_bo_free(bo);
}

static void walk_done(const char *what, int n, int faults)
{
	vtest_info("%s: %d allocation(s) failed in turn, %d failure(s) "
		   "returned; completes at fault point %d", what, n - 1,
		   faults, n);
}

/* ------------------------------------------------------------ GEM_CREATE */

/* HANDLE is a whole object of SIZE bytes: info, mapping, contents. */
static void check_object(struct vr *vr, uint32_t handle, uint64_t size,
			 const char *what, int n)
{
	struct drm_vdxg_gem_info info = { .handle = handle };
	struct drm_vdxg_gem_mmap_offset m = { .handle = handle };
	volatile uint32_t *p;

	vtest_assert_f(vtest_ioctl(vr->fd, DRM_IOCTL_VDXG_GEM_INFO, &info) == 0,
		       "%s succeeded despite fault %d, GEM_INFO: %s", what, n,
		       strerror(errno));
	vtest_assert_eq_u64(info.size, size);
	vtest_assert_f(vtest_ioctl(vr->fd, DRM_IOCTL_VDXG_GEM_MMAP_OFFSET,
				   &m) == 0, "%s succeeded despite fault %d, "
		       "MMAP_OFFSET: %s", what, n, strerror(errno));
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, vr->fd,
		 m.offset);
	vtest_assert_f(p != MAP_FAILED, "%s succeeded despite fault %d, mmap: "
		       "%s", what, n, strerror(errno));
	p[0] = 0x600d;
	p[size / 4 - 1] = 0xf00d;
	vtest_assert_eq(p[0], 0x600d);
	vtest_assert_eq(p[size / 4 - 1], 0xf00d);
	munmap((void *)p, size);
}

static void gem_create_walk(struct vr *vr, uint32_t seg0, uint32_t seg1,
			    uint64_t size, uint32_t flags, const char *what)
{
	struct usage base = usage(vr);
	uint32_t first = 0;
	int n, faults = 0;

	nth_what = what;
	for (n = 1; n <= MAX_NTH; n++) {
		struct drm_vdxg_gem_create c = {
			.size = size, .flags = flags,
			.num_segments = seg1 ? 2 : 1,
			.segments = { seg0, seg1 },
		};
		struct drm_gem_close gc = { 0 };
		bool fired;
		int ret = nth_ioctl(n, vr->fd, DRM_IOCTL_VDXG_GEM_CREATE, &c,
				    &fired);

		if (ret) {
			check_error(what, n, ret, fired);
			faults++;
			c.handle = 0;
			vtest_assert_ok(vtest_ioctl(vr->fd,
						    DRM_IOCTL_VDXG_GEM_CREATE,
						    &c));
		}
		/* Made despite a failed allocation: it must be whole. */
		if (!ret && fired)
			check_object(vr, c.handle, size, what, n);
		/* The lowest free handle: none leaked by a failure. */
		if (!first)
			first = c.handle;
		vtest_assert_f(c.handle == first, "%s: handle %u after fault "
			       "%d, %u before: a handle leaked", what,
			       c.handle, n, first);
		gc.handle = c.handle;
		vtest_assert_ok(vtest_ioctl(vr->fd, DRM_IOCTL_GEM_CLOSE, &gc));
		if (!ret && !fired)
			break;
	}
	vtest_assert_f(n <= MAX_NTH, "%s still failing at fault %d", what,
		       MAX_NTH);
	walk_done(what, n, faults);
	vtest_assert_f(faults > 0, "%s: no fault point returned an error",
		       what);
	usage_settles(vr, base);
}

static void test_gem_create(void)
{
	struct vr vr;

	vr_open(&vr);
	failslab_setup();
	gem_create_walk(&vr, DRM_VDXG_SEGMENT_VRAM, 0, 64 << 10, 0,
			"GEM_CREATE (VRAM)");
	gem_create_walk(&vr, DRM_VDXG_SEGMENT_APERTURE, DRM_VDXG_SEGMENT_VRAM,
			256 << 10, DRM_VDXG_GEM_CPU_ACCESS,
			"GEM_CREATE (aperture, VRAM)");
	gem_create_walk(&vr, DRM_VDXG_SEGMENT_SYSTEM, 0, 64 << 10,
			DRM_VDXG_GEM_NO_CLEAR, "GEM_CREATE (system)");
	failslab_restore();
	known_good(&vr);
	vr_close(&vr);
}

/* ------------------------------------------------------- CONTEXT_CREATE */

static void test_context_create(void)
{
	uint32_t first = 0;
	struct vr vr;
	int n, faults = 0;

	vr_open(&vr);
	failslab_setup();
	nth_what = "CONTEXT_CREATE";
	for (n = 1; n <= MAX_NTH; n++) {
		struct drm_vdxg_context_create c = {
			.engine = DRM_VDXG_ENGINE_RENDER,
			.priority = DRM_VDXG_PRIORITY_NORMAL,
		};
		bool fired;
		int ret = nth_ioctl(n, vr.fd, DRM_IOCTL_VDXG_CONTEXT_CREATE, &c,
				    &fired);

		if (ret) {
			check_error("CONTEXT_CREATE", n, ret, fired);
			faults++;
			vtest_assert_ok(vtest_ioctl(vr.fd,
						    DRM_IOCTL_VDXG_CONTEXT_CREATE,
						    &c));
		}
		if (!first)
			first = c.ctx_id;
		vtest_assert_f(c.ctx_id == first, "CONTEXT_CREATE: id %u after "
			       "fault %d, %u before: an id leaked", c.ctx_id,
			       n, first);
		/* The context works, whatever failed before it. */
		if (ret || fired || n % 8 == 1) {
			struct vdxg_bo *bo = vr_bo(&vr, 4096,
						   DRM_VDXG_SEGMENT_VRAM, 0);

			vr_fence_check(&vr, c.ctx_id, bo, 0, 0xc0de0000 + n);
			vdxg_bo_free(bo);
		}
		vtest_assert_eq(vdxg_context_destroy(vr.dev, c.ctx_id), 0);
		if (!ret && !fired)
			break;
	}
	vtest_assert_f(n <= MAX_NTH, "CONTEXT_CREATE still failing at fault %d",
		       MAX_NTH);
	walk_done("CONTEXT_CREATE", n, faults);
	vtest_assert_f(faults > 0, "CONTEXT_CREATE: no fault point returned "
		       "an error");
	failslab_restore();
	known_good(&vr);
	vr_close(&vr);
}

/* --------------------------------------------------------------- SUBMIT */

/*
 * A job on CTX that waits for a binary and a timeline syncobj, fills a
 * rectangle and writes a FENCE of value N into slot N of FENCES, and
 * signals a binary out-syncobj and a timeline point.
 */
static struct vdxg_cs *submit_cs(struct vdxg_bo *dst, struct vdxg_bo *fences,
				  uint32_t color, uint32_t slot, uint64_t value)
{
	struct vdxg_cs *cs = vr_cs();

	vdxg_cs_set_surface(cs, VDXG_SLOT_DST, dst, 0, DRM_VDXG_ALLOC_WRITE,
			    VDXG_FMT_XRGB8888, 64, 64, 256);
	vdxg_cs_fill_rect(cs, 0, 0, 64, 64, color);
	vdxg_cs_fence(cs, fences, slot * 8, DRM_VDXG_ALLOC_WRITE, value);
	vr_cs_ok(cs);
	return cs;
}

/*
 * A job on CTX that (with SYNCS) waits for a binary and a timeline
 * syncobj, fills a rectangle, writes a FENCE of value N into slot N of
 * FENCES and signals a binary out-syncobj and a timeline point. After a
 * failure the same call without injection writes slot HALF + N instead,
 * and slot N must stay 0: the failed call ran no job.
 */
static void submit_walk(struct vr *vr, bool syncs, const char *what)
{
	const uint32_t slots = 8192, half = slots / 2;
	struct vdxg_bo *fences = vr_bo(vr, slots * 8, DRM_VDXG_SEGMENT_VRAM, 0);
	struct vdxg_bo *dst = vr_bo(vr, 64 * 64 * 4, DRM_VDXG_SEGMENT_VRAM, 0);
	uint8_t *fmap = vr_map(fences);
	uint32_t *dmap = vr_map(dst);
	uint32_t ctx = vr_ctx(vr);
	uint32_t in_bin = vr_syncobj(vr, true), in_tl = vr_syncobj(vr, false);
	uint32_t out_bin = vr_syncobj(vr, false), out_tl = vr_syncobj(vr, false);
	uint64_t point = 0, tl;
	struct usage base;
	int n, faults = 0, i;

	memset(fmap, 0, slots * 8);
	/* The timeline's first point, signalled: the job waits for it. */
	vtest_assert_eq(vdxg_syncobj_signal(vr->dev, in_tl, 1), 0);
	base = usage(vr);
	nth_what = what;
	for (n = 1; n <= MAX_NTH && n < (int)half; n++) {
		struct drm_vdxg_sync in[2] = {
			{ in_bin, 0, 0 }, { in_tl, 0, 1 },
		};
		struct drm_vdxg_sync out[2] = {
			{ out_bin, 0, 0 }, { out_tl, 0, point + 1 },
		};
		struct drm_vdxg_submit s = { .ctx_id = ctx };
		uint32_t color = 0xff000000 | (n * 0x10101);
		struct vdxg_cs *cs = submit_cs(dst, fences, color, n, n);
		bool fired;
		int ret, fd;

		vtest_assert_eq(vdxg_syncobj_reset(vr->dev, out_bin), 0);
		vtest_assert_eq(vdxg_cs_prepare_submit(cs, &s), 0);
		if (syncs) {
			s.in_syncs = (uintptr_t)in;
			s.num_in_syncs = 2;
			s.out_syncs = (uintptr_t)out;
			s.num_out_syncs = 2;
		}
		ret = nth_ioctl(n, vr->fd, DRM_IOCTL_VDXG_SUBMIT, &s, &fired);
		if (ret) {
			struct drm_vdxg_submit s2 = s;

			check_error(what, n, ret, fired);
			faults++;
			if (syncs) {
				/* No fence was put in the out-syncobjs. */
				vtest_assert_f(drmSyncobjExportSyncFile(vr->fd,
						out_bin, &fd) != 0,
					       "%s failed (fault %d) but its "
					       "binary out-syncobj got a fence",
					       what, n);
				vtest_assert_eq(vdxg_syncobj_query(vr->dev,
								  out_tl,
								  &tl), 0);
				vtest_assert_f(tl == point, "%s failed (fault "
					       "%d) but the timeline moved to %"
					       PRIu64 " (from %" PRIu64 ")",
					       what, n, tl, point);
			}
			/* The same call, without injection, another slot. */
			vdxg_cs_free(cs);
			cs = submit_cs(dst, fences, color, half + n, n);
			vtest_assert_eq(vdxg_cs_prepare_submit(cs, &s2), 0);
			vtest_assert_ok(vtest_ioctl(vr->fd,
						    DRM_IOCTL_VDXG_SUBMIT, &s2));
		}
		if (syncs) {
			vtest_assert_eq(vr_syncobj_wait(vr, out_bin, 0,
							VR_WAIT_NS), 0);
			vtest_assert_eq(vr_syncobj_status(vr, out_bin, 0), 1);
			vtest_assert_eq(vr_syncobj_wait(vr, out_tl, point + 1,
							VR_WAIT_NS), 0);
			point++;
		}
		vr_bo_wait(fences);
		vr_bo_wait(dst);
		vtest_assert_f(vr_read64(fmap, n * 8) == (ret ? 0u : (uint64_t)n),
			       "%s fault %d (returned %d): the call's FENCE "
			       "slot holds %" PRIu64, what, n, ret,
			       vr_read64(fmap, n * 8));
		if (ret)
			vtest_assert_eq_u64(vr_read64(fmap, (half + n) * 8), n);
		for (i = 0; i < 64 * 64; i++)
			vtest_assert_f(dmap[i] == color, "%s fault %d: pixel "
				       "%d 0x%08x, expected 0x%08x", what, n, i,
				       dmap[i], color);
		vdxg_cs_free(cs);
		if (!ret && !fired)
			break;
	}
	vtest_assert_f(n <= MAX_NTH && n < (int)half,
		       "%s still failing at fault %d", what, n);
	walk_done(what, n, faults);
	vtest_assert_f(faults > 0, "%s: no fault point returned an error",
		       what);
	/* The context was not harmed. */
	vtest_assert_eq(vr_reset_status(vr, ctx).flags, 0);
	vr_fence_check(vr, ctx, fences, 0, 0x5eed);
	vtest_assert_eq(vdxg_context_destroy(vr->dev, ctx), 0);
	vdxg_syncobj_destroy(vr->dev, in_bin);
	vdxg_syncobj_destroy(vr->dev, in_tl);
	vdxg_syncobj_destroy(vr->dev, out_bin);
	vdxg_syncobj_destroy(vr->dev, out_tl);
	usage_settles(vr, base);
	vdxg_bo_free(fences);
	vdxg_bo_free(dst);
}

static void test_submit(void)
{
	struct vr vr;

	vr_open(&vr);
	failslab_setup();
	submit_walk(&vr, false, "SUBMIT");
	submit_walk(&vr, true, "SUBMIT with in/out syncobjs and timeline points");
	failslab_restore();
	known_good(&vr);
	vr_close(&vr);
}

/* -------------------------------------------------------------- PRESENT */

static void test_present(void)
{
	const uint32_t w = 32, h = 32, pitch = w * 4;
	struct vr vr;
	struct vdxg_bo *src, *dst;
	uint32_t *smap, *dmap, ctx, so, i;
	struct drm_vdxg_rect clip = { 4, 4, 20, 28 };
	struct usage base;
	int n, faults = 0;

	vr_open(&vr);
	failslab_setup();
	src = vr_bo(&vr, pitch * h, DRM_VDXG_SEGMENT_VRAM, 0);
	dst = vr_bo(&vr, pitch * h, DRM_VDXG_SEGMENT_VRAM, 0);
	smap = vr_map(src);
	dmap = vr_map(dst);
	ctx = vr_ctx(&vr);
	so = vr_syncobj(&vr, false);
	base = usage(&vr);
	nth_what = "PRESENT (blit)";
	for (n = 1; n <= MAX_NTH; n++) {
		struct drm_vdxg_present p = {
			.mode = DRM_VDXG_PRESENT_BLIT, .ctx_id = ctx,
			.src = vdxg_present_bo(src, DRM_FORMAT_XRGB8888, w, h,
					       pitch, 0),
			.dst = vdxg_present_bo(dst, DRM_FORMAT_XRGB8888, w, h,
					       pitch, 0),
			.num_clips = 1, .clips = (uintptr_t)&clip,
			.out_syncobj = so,
		};
		uint32_t x, y;
		bool fired;
		int ret, fd;

		for (i = 0; i < w * h; i++) {
			smap[i] = 0xff000000 | (n << 12) | i;
			dmap[i] = 0;
		}
		vtest_assert_eq(vdxg_syncobj_reset(vr.dev, so), 0);
		ret = nth_ioctl(n, vr.fd, DRM_IOCTL_VDXG_PRESENT, &p, &fired);
		if (ret) {
			check_error("PRESENT (blit)", n, ret, fired);
			faults++;
			vtest_assert_f(drmSyncobjExportSyncFile(vr.fd, so, &fd)
				       != 0, "PRESENT failed (fault %d) but "
				       "its out-syncobj got a fence", n);
			/* Nothing was queued on dst (implicit sync). */
			vr_bo_wait(dst);
			for (i = 0; i < w * h; i++)
				vtest_assert_f(dmap[i] == 0, "PRESENT failed "
					       "(fault %d) but wrote pixel %u",
					       n, i);
			vtest_assert_ok(vtest_ioctl(vr.fd,
						    DRM_IOCTL_VDXG_PRESENT, &p));
		}
		vtest_assert_eq(vr_syncobj_wait(&vr, so, 0, VR_WAIT_NS), 0);
		vtest_assert_eq(vr_syncobj_status(&vr, so, 0), 1);
		vr_bo_wait(dst);
		for (y = 0; y < h; y++)
			for (x = 0; x < w; x++) {
				bool in = x >= 4 && x < 20 && y >= 4 && y < 28;
				uint32_t want = in ? smap[y * w + x] : 0;

				vtest_assert_f(dmap[y * w + x] == want,
					       "PRESENT fault %d: pixel (%u, %u)"
					       " 0x%08x, expected 0x%08x", n,
					       x, y, dmap[y * w + x], want);
			}
		if (!ret && !fired)
			break;
	}
	vtest_assert_f(n <= MAX_NTH, "PRESENT still failing at fault %d",
		       MAX_NTH);
	walk_done("PRESENT (blit)", n, faults);
	vtest_assert_f(faults > 0, "PRESENT: no fault point returned an error");
	vtest_assert_eq(vr_reset_status(&vr, ctx).flags, 0);
	vtest_assert_eq(vdxg_context_destroy(vr.dev, ctx), 0);
	vdxg_syncobj_destroy(vr.dev, so);
	usage_settles(&vr, base);
	failslab_restore();
	vdxg_bo_free(src);
	vdxg_bo_free(dst);
	known_good(&vr);
	vr_close(&vr);
}

/* ---------------------------------------------------------------- PRIME */

static void test_prime(void)
{
	struct vr vr, vr2;
	struct vdxg_bo *bo;
	uint32_t *map;
	struct usage base;
	uint32_t first = 0;
	int n, faults = 0, lowest, dmabuf;

	vr_open(&vr);
	vr_open(&vr2);
	failslab_setup();
	bo = vr_bo(&vr, 64 << 10, DRM_VDXG_SEGMENT_VRAM, 0);
	map = vr_map(bo);
	map[0] = 0x9141e;
	base = usage(&vr);

	/*
	 * Export a new object each time (an object keeps its dma-buf once
	 * exported): a dma-buf fd, or nothing (the lowest free fd stays so).
	 */
	lowest = next_fd();
	nth_what = "PRIME export";
	for (n = 1; n <= MAX_NTH; n++) {
		struct vdxg_bo *fresh = vr_bo(&vr, 4096, DRM_VDXG_SEGMENT_VRAM, 0);
		struct drm_prime_handle p = {
			.handle = fresh->handle, .flags = DRM_CLOEXEC | DRM_RDWR,
		};
		bool fired;
		int ret = nth_ioctl(n, vr.fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &p,
				    &fired);

		if (ret) {
			check_error("PRIME export", n, ret, fired);
			faults++;
			vtest_assert_f(next_fd() == lowest, "PRIME export "
				       "failed (fault %d) but took fd %d",
				       n, lowest);
			vtest_assert_ok(vtest_ioctl(vr.fd,
						    DRM_IOCTL_PRIME_HANDLE_TO_FD,
						    &p));
		}
		vtest_assert_eq(p.fd, lowest);
		/* A working dma-buf: it imports as the same object. */
		{
			struct drm_prime_handle q = { .fd = p.fd };

			vtest_assert_ok(vtest_ioctl(vr.fd,
						    DRM_IOCTL_PRIME_FD_TO_HANDLE,
						    &q));
			vtest_assert_eq(q.handle, fresh->handle);
		}
		close(p.fd);
		vdxg_bo_free(fresh);
		if (!ret && !fired)
			break;
	}
	vtest_assert_f(n <= MAX_NTH, "PRIME export still failing");
	walk_done("PRIME export", n, faults);

	/* Import into another file: a new handle there, or none. */
	vtest_assert_eq(vdxg_bo_export(bo, &dmabuf), 0);
	faults = 0;
	nth_what = "PRIME import";
	for (n = 1; n <= MAX_NTH; n++) {
		struct drm_prime_handle p = { .fd = dmabuf };
		struct drm_gem_close gc = { 0 };
		struct drm_vdxg_gem_info info = { 0 };
		bool fired;
		int ret = nth_ioctl(n, vr2.fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &p,
				    &fired);

		if (ret) {
			check_error("PRIME import", n, ret, fired);
			faults++;
			vtest_assert_ok(vtest_ioctl(vr2.fd,
						    DRM_IOCTL_PRIME_FD_TO_HANDLE,
						    &p));
		}
		if (!first)
			first = p.handle;
		vtest_assert_f(p.handle == first, "PRIME import: handle %u "
			       "after fault %d, %u before: a handle leaked",
			       p.handle, n, first);
		/* The same object, usable in that file. */
		info.handle = p.handle;
		vtest_assert_ok(vtest_ioctl(vr2.fd, DRM_IOCTL_VDXG_GEM_INFO,
					    &info));
		vtest_assert_eq_u64(info.size, bo->size);
		gc.handle = p.handle;
		vtest_assert_ok(vtest_ioctl(vr2.fd, DRM_IOCTL_GEM_CLOSE, &gc));
		if (!ret && !fired)
			break;
	}
	vtest_assert_f(n <= MAX_NTH, "PRIME import still failing");
	walk_done("PRIME import", n, faults);
	close(dmabuf);
	vtest_assert_eq(map[0], 0x9141e);
	usage_settles(&vr, base);
	failslab_restore();
	vdxg_bo_free(bo);
	known_good(&vr);
	known_good(&vr2);
	vr_close(&vr2);
	vr_close(&vr);
}

static const struct vtest_subtest tests[] = {
	{ "gem-create", test_gem_create,
	  "each allocation of GEM_CREATE (VRAM, aperture, system) fails "
	  "cleanly with -ENOMEM, leaking no handle or memory" },
	{ "context-create", test_context_create,
	  "each allocation of CONTEXT_CREATE fails cleanly, leaking no id" },
	{ "submit", test_submit,
	  "each allocation of SUBMIT (plain, and with binary and timeline "
	  "in/out syncobjs) fails cleanly: no fence, no job run" },
	{ "present", test_present,
	  "each allocation of a PRESENT blit fails cleanly: no fence, no "
	  "pixels" },
	{ "prime", test_prime,
	  "each allocation of PRIME export and import fails cleanly, leaking "
	  "no fd or handle" },
};

VTEST_MAIN(tests)
