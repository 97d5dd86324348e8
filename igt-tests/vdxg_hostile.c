// SPDX-License-Identifier: MIT
/*
 * vdxg_hostile: clients that try to read others' data, race the driver,
 * hog the engine or flood the log. Each subtest is the reproduction of a
 * defect found by review or fuzzing, asserting the behaviour that fixed
 * it: no stale data, a bounded cost of one client's hangs to the others,
 * slow valid jobs left alone, faults recovered at once, a rate-limited
 * log, and the uapi's zero-checked fields.
 *
 * The races (context-race, fdinfo-race) assert only their results on the
 * normal kernel; under the debug kernel (KASAN, lockdep) they are what
 * finds a use-after-free.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "vrender.h"
#include "vvm.h"

#define PATTERN		0x5eed5eedu
#define MIB		(1024 * 1024)

/* Drop CAP_SYS_ADMIN (and everything else) from this process. */
static void drop_caps(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = { { 0 } };

	vtest_assert_ok((int)syscall(SYS_capset, &hdr, data));
}

/* Dwords equal to PATTERN in an object's mapping. */
static uint64_t count_pattern(struct vdxg_bo *bo)
{
	const uint32_t *p = vr_map(bo);
	uint64_t i, n = 0;

	for (i = 0; i < bo->size / 4; i++)
		n += p[i] == PATTERN;
	return n;
}

/* The owner: objects in SEG filled with PATTERN, then freed. */
static void leave_pattern(uint32_t seg, int count)
{
	struct vdxg_bo *bo[16];
	struct vr vr;
	uint32_t *p;
	int i;
	uint64_t j;

	vr_open(&vr);
	for (i = 0; i < count; i++) {
		bo[i] = vr_bo(&vr, MIB, seg, 0);
		p = vr_map(bo[i]);
		for (j = 0; j < MIB / 4; j++)
			p[j] = PATTERN;
	}
	for (i = 0; i < count; i++) {
		vr_bo_wait(bo[i]);
		vdxg_bo_free(bo[i]);
	}
	vr_close(&vr);
}

/*
 * The other client, without CAP_SYS_ADMIN, in a child: COUNT objects in
 * SEG with FLAGS; exits with the number of PATTERN dwords it read, capped.
 */
static void read_stale(uint32_t seg, uint32_t flags, int count)
{
	pid_t pid = fork();
	int status;

	vtest_assert(pid >= 0);
	if (!pid) {
		struct vdxg_device *dev;
		struct vdxg_bo *bo;
		uint64_t n = 0;
		int i;

		drop_caps();
		if (vdxg_device_open(NULL, &dev))
			_exit(255);
		for (i = 0; i < count; i++) {
			if (vdxg_bo_create(dev, MIB, &seg, 1,
					   DRM_VDXG_GEM_CPU_ACCESS | flags, &bo))
				_exit(254);
			if (vdxg_bo_wait(bo, 10000000000ll))
				_exit(253);
			n += count_pattern(bo);
		}
		_exit(n > 250 ? 250 : (int)n);
	}
	vtest_assert_eq(waitpid(pid, &status, 0), pid);
	vtest_assert(WIFEXITED(status));
	vtest_assert_f(WEXITSTATUS(status) == 0,
		       "segment %u, flags 0x%x: %d (250: 250 or more) stale "
		       "dwords of another client read (253-255: the client "
		       "failed)", seg, flags, WEXITSTATUS(status));
}

/*
 * A client that freed VRAM leaves its data there. Another client, without
 * CAP_SYS_ADMIN, that creates objects in the same place with NO_CLEAR
 * (best fit puts them in the holes) must still read zeros: the flag is
 * honoured for root only, which the paging engine's FILL count shows.
 */
static void test_no_clear_stale(void)
{
	static const uint32_t segs[] = {
		DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_APERTURE,
	};
	uint64_t fills;
	struct vdxg_bo *bo;
	unsigned int s;
	struct vr vr;

	for (s = 0; s < VTEST_ARRAY_SIZE(segs); s++) {
		leave_pattern(segs[s], 16);
		read_stale(segs[s], DRM_VDXG_GEM_NO_CLEAR, 16);
		leave_pattern(segs[s], 16);
		read_stale(segs[s], 0, 16);
	}

	/* Root's NO_CLEAR is honoured: no FILL for its first placement. */
	vr_open(&vr);
	fills = vr_debugfs(&vr, "paging", "fill");
	vtest_assert_eq(vdxg_bo_create(vr.dev, MIB, &segs[0], 1,
				       DRM_VDXG_GEM_NO_CLEAR, &bo), 0);
	vtest_assert_eq(vdxg_bo_wait(bo, 10000000000ll), 0);
	vtest_assert_eq_u64(vr_debugfs(&vr, "paging", "fill"), fills);
	vdxg_bo_free(bo);
	vtest_assert_eq(vdxg_bo_create(vr.dev, MIB, &segs[0], 1, 0, &bo), 0);
	vtest_assert_eq(vdxg_bo_wait(bo, 10000000000ll), 0);
	vtest_assert_eq_u64(vr_debugfs(&vr, "paging", "fill"), fills + 1);
	vdxg_bo_free(bo);
	vr_close(&vr);
}

struct race {
	struct vr *vr;
	volatile bool stop;
	uint64_t ops, ok, enoent;
};

static void *race_destroyer(void *arg)
{
	struct race *r = arg;

	while (!r->stop) {
		int ret = vdxg_context_destroy(r->vr->dev, 1);

		r->ok += !ret;
		r->enoent += ret == -ENOENT;
		r->ops++;
	}
	return NULL;
}

/*
 * One thread creates contexts while another destroys id 1, the id the
 * first create gets: a context must be complete (holding its reference on
 * the file) before another thread can reach it by its id.
 */
static void test_context_race(void)
{
	struct race r = { 0 };
	uint64_t kmsg = vtest_kmsg_seq(), creates = 0;
	pthread_t t;
	double end;
	struct vr vr;

	vr_open(&vr);
	r.vr = &vr;
	vtest_assert_eq(pthread_create(&t, NULL, race_destroyer, &r), 0);
	end = vr_now() + 10;
	while (vr_now() < end) {
		uint32_t id = 0;
		int ret = vdxg_context_create(vr.dev, DRM_VDXG_ENGINE_RENDER,
					      DRM_VDXG_PRIORITY_NORMAL, 0, &id);

		/* Ids above 1 pile up until the limit; start again. */
		if (ret == -ENOSPC) {
			uint32_t i;

			for (i = 2; i <= 256; i++)
				vdxg_context_destroy(vr.dev, i);
			continue;
		}
		vtest_assert_f(ret == 0, "CONTEXT_CREATE: %s", strerror(-ret));
		vtest_assert_neq(id, 0);
		creates++;
	}
	r.stop = true;
	pthread_join(t, NULL);
	vtest_info("%" PRIu64 " creates, %" PRIu64 " destroys (%" PRIu64
		   " of id 1 succeeded, %" PRIu64 " ENOENT)", creates, r.ops,
		   r.ok, r.enoent);
	vtest_assert_eq_u64(r.ok + r.enoent, r.ops);
	vtest_assert(r.ok > 0);
	/* The file state is intact: a context still works. */
	{
		struct vdxg_bo *bo = vr_bo(&vr, 4096, DRM_VDXG_SEGMENT_VRAM, 0);

		vr_fence_check(&vr, vr_ctx(&vr), bo, 0, 0x1234);
		vdxg_bo_free(bo);
	}
	vr_close(&vr);
	vtest_assert_eq(vtest_kmsg_problems(kmsg), 0);
}

struct evictor {
	struct vdxg_bo **bo;
	int n;
	volatile bool stop;
	uint64_t moves;
};

static void *evict_loop(void *arg)
{
	static const uint32_t segs[] = {
		DRM_VDXG_SEGMENT_SYSTEM, DRM_VDXG_SEGMENT_VRAM,
		DRM_VDXG_SEGMENT_APERTURE,
	};
	struct evictor *e = arg;
	uint64_t i = 0;

	while (!e->stop) {
		struct vdxg_bo *bo = e->bo[i % e->n];

		if (!vdxg_bo_make_resident(bo, segs[(i / e->n) % 3]))
			e->moves++;
		i++;
	}
	return NULL;
}

/*
 * fdinfo reads each object's placement while another thread moves the
 * objects between every pair of segments: the byte counts always add up
 * to the objects' total, and nothing is read from a freed placement.
 */
static void test_fdinfo_race(void)
{
	static const uint32_t segs[] = {
		DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_APERTURE,
		DRM_VDXG_SEGMENT_SYSTEM,
	};
	struct vdxg_bo *bo[8];
	struct evictor e = { .bo = bo, .n = 8 };
	uint64_t kmsg = vtest_kmsg_seq(), reads = 0;
	static char buf[4096];
	char path[64];
	pthread_t t;
	struct vr vr;
	double end;
	int i;

	vr_open(&vr);
	for (i = 0; i < 8; i++)
		vtest_assert_eq(vdxg_bo_create(vr.dev, 256 * 1024, segs, 3, 0,
					       &bo[i]), 0);
	vtest_assert_eq(pthread_create(&t, NULL, evict_loop, &e), 0);
	end = vr_now() + 5;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", vr.fd);
	while (vr_now() < end) {
		uint64_t kib = 0;
		char *line;

		/* One read: the counts of one moment. */
		vtest_assert(vtest_read_file(path, buf, sizeof(buf)) > 0);
		for (line = buf; line; line = strchr(line + 1, '\n')) {
			unsigned long long v;

			if (sscanf(line, "\ndrm-memory-%*[a-z]:\t%llu KiB",
				   &v) == 1)
				kib += v;
		}
		/* Each object is counted once, wherever it is. */
		vtest_assert_eq_u64(kib, 8 * 256);
		reads++;
	}
	e.stop = true;
	pthread_join(t, NULL);
	vtest_info("%" PRIu64 " fdinfo reads during %" PRIu64 " moves",
		   reads, e.moves);
	vtest_assert(e.moves > 0);
	for (i = 0; i < 8; i++) {
		vr_bo_wait(bo[i]);
		vdxg_bo_free(bo[i]);
	}
	vr_close(&vr);
	vtest_assert_eq(vtest_kmsg_problems(kmsg), 0);
}

static long voluntary_switches(void)
{
	struct rusage ru;

	vtest_assert_ok(getrusage(RUSAGE_THREAD, &ru));
	return ru.ru_nvcsw;
}

/*
 * GEM_WAIT with a timeout of 0 polls: -EBUSY on a busy object, without
 * sleeping (no voluntary context switch, where a wait of one jiffy per
 * fence would be one).
 */
static void test_wait_poll(void)
{
	struct drm_vdxg_gem_wait w = { 0 };
	struct vdxg_cs *cs = vr_cs();
	struct vdxg_bo *hold, *bo;
	long before, after;
	uint8_t *map;
	struct vr vr;
	int i, busy = 0;

	vr_open(&vr);
	map = vr_hold_bo(&vr, &hold);
	bo = vr_bo(&vr, 4096, DRM_VDXG_SEGMENT_VRAM, 0);
	vdxg_cs_wait(cs, hold, 0, 0, 1);
	vdxg_cs_fence(cs, bo, 0, DRM_VDXG_ALLOC_WRITE, 7);
	vr_submit(&vr, vr_ctx(&vr), cs, NULL);

	w.handle = bo->handle;
	before = voluntary_switches();
	for (i = 0; i < 200; i++) {
		errno = 0;
		busy += ioctl(vr.fd, DRM_IOCTL_VDXG_GEM_WAIT, &w) == -1 &&
			errno == EBUSY;
	}
	after = voluntary_switches();
	vr_write64(map, 0, 1);
	vr_bo_wait(bo);
	vtest_assert_eq_u64(vr_read64(vr_map(bo), 0), 7);
	vtest_assert_eq(ioctl(vr.fd, DRM_IOCTL_VDXG_GEM_WAIT, &w), 0);

	vtest_info("200 polls of a busy object: %d EBUSY, %ld voluntary "
		   "context switches", busy, after - before);
	vtest_assert_eq(busy, 200);
	vtest_assert_eq(after - before, 0);
	vdxg_cs_free(cs);
	vdxg_bo_free(bo);
	vdxg_bo_free(hold);
	vr_close(&vr);
}

/* Fields that must be zero are checked: -EINVAL, then a valid call works. */
static void test_zero_fields(void)
{
	struct drm_vdxg_present p = { .mode = DRM_VDXG_PRESENT_BLIT };
	struct drm_vdxg_gem_make_resident mr;
	struct drm_vdxg_gem_info gi;
	struct vdxg_bo *src, *dst;
	uint32_t ctx;
	struct vr vr;

	vr_open(&vr);
	src = vr_bo(&vr, 4096, DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_SYSTEM);
	dst = vr_bo(&vr, 4096, DRM_VDXG_SEGMENT_VRAM, 0);

	gi = (struct drm_vdxg_gem_info){ .handle = src->handle, .flags = 1 };
	vtest_assert_errno(ioctl(vr.fd, DRM_IOCTL_VDXG_GEM_INFO, &gi), EINVAL);
	gi = (struct drm_vdxg_gem_info){ .handle = src->handle, .pad = 1 };
	vtest_assert_errno(ioctl(vr.fd, DRM_IOCTL_VDXG_GEM_INFO, &gi), EINVAL);
	gi = (struct drm_vdxg_gem_info){ .handle = src->handle };
	vtest_assert_ok(ioctl(vr.fd, DRM_IOCTL_VDXG_GEM_INFO, &gi));
	vtest_assert_eq(gi.segment, DRM_VDXG_SEGMENT_VRAM);

	mr = (struct drm_vdxg_gem_make_resident){
		.handle = src->handle, .segment = DRM_VDXG_SEGMENT_SYSTEM,
		.flags = 1,
	};
	vtest_assert_errno(ioctl(vr.fd, DRM_IOCTL_VDXG_GEM_MAKE_RESIDENT, &mr),
			   EINVAL);
	mr.flags = 0;
	mr.pad = 1;
	vtest_assert_errno(ioctl(vr.fd, DRM_IOCTL_VDXG_GEM_MAKE_RESIDENT, &mr),
			   EINVAL);
	mr.pad = 0;
	vtest_assert_ok(ioctl(vr.fd, DRM_IOCTL_VDXG_GEM_MAKE_RESIDENT, &mr));
	vtest_assert_eq(vr_bo_segment(src), DRM_VDXG_SEGMENT_SYSTEM);

	/* PRESENT: a clips pointer with no clips. */
	ctx = vr_ctx(&vr);
	p.ctx_id = ctx;
	p.src = vdxg_present_bo(src, DRM_FORMAT_XRGB8888, 16, 16, 64, 0);
	p.dst = vdxg_present_bo(dst, DRM_FORMAT_XRGB8888, 16, 16, 64, 0);
	p.clips = (uintptr_t)&gi;
	vtest_assert_errno(ioctl(vr.fd, DRM_IOCTL_VDXG_PRESENT, &p), EINVAL);
	p.clips = 0;
	vtest_assert_ok(ioctl(vr.fd, DRM_IOCTL_VDXG_PRESENT, &p));
	vr_bo_wait(dst);

	vdxg_bo_free(src);
	vdxg_bo_free(dst);
	vr_close(&vr);
}

/*
 * A file has at most 256 contexts: -ENOSPC, until one is destroyed. Ids
 * start at 1: destroying id 0 did free it for the next create.
 */
static void test_context_limit(void)
{
	uint32_t id, n = 0;
	struct vr vr;
	int ret;

	vr_open(&vr);
	/* Id 0 is never a context, even after a destroy of it. */
	vtest_assert_eq(vdxg_context_destroy(vr.dev, 0), -ENOENT);
	while (!(ret = vdxg_context_create(vr.dev, DRM_VDXG_ENGINE_RENDER,
					   DRM_VDXG_PRIORITY_NORMAL, 0, &id))) {
		vtest_assert_neq(id, 0);
		vtest_assert_lte(++n, 256);
	}
	vtest_assert_f(ret == -ENOSPC, "context %u: %s", n + 1,
		       strerror(-ret));
	vtest_assert_eq(n, 256);
	vtest_assert_eq(vdxg_context_destroy(vr.dev, 17), 0);
	vtest_assert_eq(vdxg_context_create(vr.dev, DRM_VDXG_ENGINE_RENDER,
					    DRM_VDXG_PRIORITY_NORMAL, 0, &id),
			0);
	vtest_assert_eq(id, 17);
	vr_close(&vr);
}

/* A command buffer of BYTES of NOPs. */
static struct vdxg_cs *nop_cs(uint32_t bytes)
{
	struct vdxg_cs *cs = vr_cs();
	uint32_t i;

	for (i = 0; i < bytes / 4; i++)
		vdxg_cs_nop(cs);
	vr_cs_ok(cs);
	return cs;
}

struct flooder {
	struct vr *vr;
	uint32_t ctx;
	struct vdxg_cs *cs;
	int want;
	volatile int done;
};

static void *flood(void *arg)
{
	struct flooder *f = arg;

	while (f->done < f->want) {
		vr_submit(f->vr, f->ctx, f->cs, NULL);
		f->done++;
	}
	return NULL;
}

/*
 * A client's queued jobs hold at most a quarter of the kernel's DMA-buffer
 * pool (256 KiB): with its first job held on the ring, its SUBMITs of
 * 128 KiB wait after the first, while another client's go through at once
 * (before, the first client filled the pool and everyone's SUBMIT slept
 * until the held job was reset).
 */
static void test_queue_limit(void)
{
	struct flooder f = { 0 };
	struct vdxg_bo *hold, *bo;
	struct vdxg_cs *cs = vr_cs(), *big, *big_b;
	struct vr a, b;
	uint64_t resets;
	uint32_t ctx_b;
	pthread_t t;
	uint8_t *map;
	double t0;
	int i;

	vr_open(&a);
	vr_open(&b);
	vtest_require(a.max_command_size >= 128 * 1024);
	big = nop_cs(128 * 1024);
	map = vr_hold_bo(&a, &hold);
	f.vr = &a;
	f.ctx = vr_ctx(&a);
	f.cs = big;
	f.want = 8;
	vdxg_cs_wait(cs, hold, 0, 0, 1);
	vr_submit(&a, f.ctx, cs, NULL);
	vtest_assert_eq(pthread_create(&t, NULL, flood, &f), 0);
	vr_sleep_ms(300);

	/*
	 * Client B: two at once (its own share), though A tried to queue a
	 * megabyte. B's builder is its own: builders are not thread-safe.
	 */
	ctx_b = vr_ctx(&b);
	big_b = nop_cs(128 * 1024);
	resets = vr_debugfs(&a, "render", "resets");
	t0 = vr_now();
	for (i = 0; i < 2; i++)
		vr_submit(&b, ctx_b, big_b, NULL);
	vtest_info("client A queued %d of 8 large jobs behind its held job; "
		   "client B's 2 took %.0f ms", f.done, (vr_now() - t0) * 1e3);
	fflush(stdout);
	vtest_assert_lte(f.done, 2);
	/*
	 * B's SUBMITs went through while A's job was held: no reset freed
	 * the pool for them (not a time: a loaded machine may take a second
	 * for them, and the held job's reset would come after job_timeout_ms
	 * of wall time).
	 */
	vtest_assert_eq_u64(vr_debugfs(&a, "render", "resets"), resets);
	vtest_assert_eq(vr_reset_status(&a, f.ctx).guilty, 0);

	vr_write64(map, 0, 1);
	pthread_join(t, NULL);
	vtest_assert_eq(f.done, 8);
	bo = vr_bo(&a, 4096, DRM_VDXG_SEGMENT_VRAM, 0);
	vr_fence_check(&a, f.ctx, bo, 0, 99);
	vdxg_bo_free(bo);
	bo = vr_bo(&b, 4096, DRM_VDXG_SEGMENT_VRAM, 0);
	vr_fence_check(&b, ctx_b, bo, 0, 98);
	vdxg_bo_free(bo);
	vtest_assert(!(vr_reset_status(&a, f.ctx).flags &
		       DRM_VDXG_RESET_BANNED));
	vdxg_cs_free(big_b);
	vdxg_cs_free(big);
	vdxg_cs_free(cs);
	vdxg_bo_free(hold);
	vr_close(&b);
	vr_close(&a);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The abuser, in a child: {create a context; submit a WAIT that never
 * ends; wait for the ban} in a loop. Exits with the number of hangs it
 * caused before CONTEXT_CREATE refused it (100 + n), or n if never.
 */
static void abuser(double seconds)
{
	struct vdxg_bo *hold;
	double end = vr_now() + seconds;
	int hangs = 0;
	struct vr vr;

	vr_open(&vr);
	vr_hold_bo(&vr, &hold);
	while (vr_now() < end) {
		struct vdxg_cs *cs = vr_cs();
		uint32_t ctx = 0;
		int ret;

		ret = vdxg_context_create(vr.dev, DRM_VDXG_ENGINE_RENDER,
					  DRM_VDXG_PRIORITY_NORMAL, 0, &ctx);
		if (ret == -EIO)
			_exit(100 + hangs);
		if (ret)
			_exit(99);
		vdxg_cs_wait(cs, hold, 0, 0, 1);
		ret = vdxg_submit(vr.dev, ctx, cs, NULL);
		vdxg_cs_free(cs);
		if (ret == -EIO)
			_exit(100 + hangs);
		if (ret)
			_exit(98);
		vr_wait_banned(&vr, ctx);
		hangs++;
	}
	_exit(hangs);
}

/* The victim's jobs after the abuser was refused */
#define ABUSE_AFTER	20

/*
 * One client loops on hanging the engine with fresh contexts while another
 * runs small jobs, until the abuser is refused and for ABUSE_AFTER jobs
 * more (at most 60 s). Each hang costs the other client at most about one
 * job timeout: no job of the victim waits through more than two of the
 * engine's resets, and most meet none; and the abuser's file is banned
 * after 5 hangs. Resets are counted, not timed: a job's latency on a
 * loaded machine says little about how many hangs it waited behind.
 */
static void test_abuse_ban(void)
{
	uint64_t timeout_ms = vr_module_param("job_timeout_ms");
	static double lat[4096];
	uint64_t r0, r1, most = 0;
	struct vdxg_bo *bo;
	int n = 0, status, clean = 0, last = -1;
	struct vr vr;
	uint32_t ctx;
	double start, end, t0;
	pid_t pid;

	vr_open(&vr);
	vr_ignore_dmesg(VR_RESET_DMESG "|callbacks suppressed");
	ctx = vr_ctx(&vr);
	bo = vr_bo(&vr, 4096, DRM_VDXG_SEGMENT_VRAM, 0);
	pid = fork();
	vtest_assert(pid >= 0);
	if (!pid)
		abuser(60);

	start = vr_now();
	end = start + 60;
	while (vr_now() < end && n < (int)VTEST_ARRAY_SIZE(lat) &&
	       (last < 0 || n < last)) {
		if (last < 0 && waitpid(pid, &status, WNOHANG) == pid)
			last = n + ABUSE_AFTER;
		r0 = vr_debugfs(&vr, "render", "resets");
		t0 = vr_now();
		vr_fence_check(&vr, ctx, bo, 0, n + 1);
		lat[n++] = vr_now() - t0;
		r1 = vr_debugfs(&vr, "render", "resets");
		if (r1 - r0 > most)
			most = r1 - r0;
		clean += r1 == r0;
		vr_sleep_ms(50);
	}
	if (last < 0)
		vtest_assert_eq(waitpid(pid, &status, 0), pid);
	vtest_assert(WIFEXITED(status));
	qsort(lat, n, sizeof(lat[0]), cmp_double);
	vtest_info("victim: %d jobs in %.0f s, latency median %.1f ms, p99 "
		   "%.1f ms, max %.1f ms (job timeout %" PRIu64 " ms); %d met "
		   "no reset, at most %" PRIu64 " resets in one; abuser: exit "
		   "%d", n, vr_now() - start, lat[n / 2] * 1e3,
		   lat[n * 99 / 100] * 1e3,
		   lat[n - 1] * 1e3, timeout_ms, clean, most,
		   WEXITSTATUS(status));
	vtest_assert_f(WEXITSTATUS(status) >= 100,
		       "the abuser was never refused (exit %d)",
		       WEXITSTATUS(status));
	vtest_assert_eq(WEXITSTATUS(status) - 100, 5);
	vtest_assert_lte_u64(most, 2);
	/* Most jobs did not meet a hang at all. */
	vtest_assert_lt(n / 2, clean);
	vtest_assert(!(vr_reset_status(&vr, ctx).flags &
		       DRM_VDXG_RESET_BANNED));
	vdxg_bo_free(bo);
	vr_close(&vr);
}

/* Seconds a job of @n full-surface FILLs of @dst takes, submit to idle */
static double fill_job_time(struct vr *vr, uint32_t ctx, struct vdxg_bo *dst,
			    uint32_t w, uint32_t h, uint32_t n)
{
	struct vdxg_cs *cs = vr_cs();
	double t;
	uint32_t i;

	vdxg_cs_set_surface(cs, VDXG_SLOT_DST, dst, 0, DRM_VDXG_ALLOC_WRITE,
			    VDXG_FMT_XRGB8888, w, h, w * 4);
	for (i = 0; i < n; i++)
		vdxg_cs_fill_rect(cs, 0, 0, w, h, 0x00010101 * i);
	t = vr_now();
	vr_submit(vr, ctx, cs, NULL);
	vr_bo_wait(dst);
	t = vr_now() - t;
	vdxg_cs_free(cs);
	return t;
}

/*
 * Seconds a full-surface FILL of @dst takes: the difference between jobs
 * of n and 2n FILLs, n = 8, 16, ... until it is 50 ms, so that neither the
 * cost of a submission nor the object's first placement (its clear, on the
 * paging engine) passes for the cost of the FILLs.
 */
static double fill_seconds(struct vr *vr, uint32_t ctx, struct vdxg_bo *dst,
			   uint32_t w, uint32_t h)
{
	double t;
	uint32_t n;

	fill_job_time(vr, ctx, dst, w, h, 1);
	for (n = 8;; n *= 2) {
		double t1 = fill_job_time(vr, ctx, dst, w, h, n);

		t = fill_job_time(vr, ctx, dst, w, h, 2 * n) - t1;
		if (t >= 0.05 || n >= 2048)
			break;
	}
	return t > 0 ? t / n : 1;
}

/* @n full-surface FILLs of @dst, then a 300x400 rectangle at (100, 200) */
static struct vdxg_cs *fill_cs(struct vdxg_bo *dst, uint32_t w, uint32_t h,
			       uint32_t n)
{
	struct vdxg_cs *cs = vr_cs();
	uint32_t i;

	vdxg_cs_set_surface(cs, VDXG_SLOT_DST, dst, 0, DRM_VDXG_ALLOC_WRITE,
			    VDXG_FMT_XRGB8888, w, h, w * 4);
	for (i = 0; i < n; i++)
		vdxg_cs_fill_rect(cs, 0, 0, w, h, 0x00101010 + i);
	vdxg_cs_fill_rect(cs, 100, 200, 300, 400, 0x00c0ffee);
	vr_cs_ok(cs);
	return cs;
}

/*
 * A valid job that takes several job timeouts (job_timeout_ms=100) but
 * keeps the engine making progress completes, with its pixels, and no one
 * is blamed.
 */
static void slow_job(void)
{
	const uint32_t w = 2048, h = 2048, pitch = w * 4;
	struct vdxg_bo *dst;
	struct vdxg_cs *cs;
	uint64_t resets;
	uint32_t ctx, *px, n, x, y;
	double t, per_fill;
	unsigned int try;
	struct vr vr;

	vtest_assert_eq_u64(vr_module_param("job_timeout_ms"), 100);
	vr_open(&vr);
	ctx = vr_ctx(&vr);
	dst = vr_bo(&vr, (uint64_t)pitch * h, DRM_VDXG_SEGMENT_VRAM, 0);

	per_fill = fill_seconds(&vr, ctx, dst, w, h);

	/*
	 * A job of about 0.3 s: three timeouts, well under the ten allowed
	 * (VDXG_HANG_MAX_PERIODS) if the machine slows down after the
	 * measure. If it speeds up, the job may pass in under two timeouts
	 * and test nothing: then it runs again, longer, a few times at most.
	 */
	n = (uint32_t)(0.3 / per_fill) + 1;
	resets = vr_debugfs(&vr, "render", "resets");
	for (try = 0;; try++) {
		vtest_require_f(n < 5000, "a FILL takes %.3f ms",
				per_fill * 1e3);
		cs = fill_cs(dst, w, h, n);
		t = vr_now();
		vr_submit(&vr, ctx, cs, NULL);
		vr_bo_wait(dst);
		t = vr_now() - t;
		vtest_info("%u FILLs of %ux%u: %.0f ms with job_timeout_ms=100",
			   n, w, h, t * 1e3);
		if (t > 0.2 || try == 3)
			break;
		vdxg_cs_free(cs);
		n = (uint32_t)(n * 0.3 / (t > 0.01 ? t : 0.01)) + 1;
	}

	px = vr_map(dst);
	for (y = 0; y < h; y += 7)
		for (x = 0; x < w; x += 5) {
			bool in = x >= 100 && x < 400 && y >= 200 && y < 600;
			uint32_t want = in ? 0xffc0ffee :
				0xff000000 | (0x00101010 + n - 1);

			vtest_assert_f((px[y * w + x] | 0xff000000) == want,
				       "pixel (%u, %u) 0x%08x, expected 0x%08x",
				       x, y, px[y * w + x], want);
		}
	vtest_assert_eq_u64(vr_debugfs(&vr, "render", "resets"), resets);
	vtest_assert_eq(vr_reset_status(&vr, ctx).guilty, 0);
	vtest_assert(!(vr_reset_status(&vr, ctx).flags &
		       DRM_VDXG_RESET_BANNED));
	vtest_assert_f(t > 0.2, "the job took only %.0f ms: not slow enough "
		       "to test anything", t * 1e3);
	vdxg_cs_free(cs);
	vdxg_bo_free(dst);
	vr_close(&vr);
}

/*
 * job_timeout_ms=100 holds for the job only: vdxg is reloaded with the
 * value it had however the job ends, so that a failure here does not
 * leave later tests with 100 ms jobs (module-params checks the reload).
 */
static void test_slow_job(void)
{
	struct vr vr;

	vr_open(&vr);
	vr_close(&vr);
	vr_with_module_params("job_timeout_ms=100", slow_job);
}

/* Is pixel (150, 300) of @dst the marker of fill_cs(), (0, 0) FILL @n - 1? */
static void fill_check(struct vdxg_bo *dst, uint32_t w, uint32_t n)
{
	uint32_t *px = vr_map(dst);

	vtest_assert_eq_u64(px[300 * w + 150] | 0xff000000, 0xffc0ffee);
	vtest_assert_eq_u64(px[0] | 0xff000000, 0xff101010 + n - 1);
}

/* FILLs in one SUBMIT of long_job(): 4 dwords each, under 128 KiB */
#define LONG_JOB_FILLS	6000

/*
 * A valid job past the ten job timeouts (job_timeout_ms=100) a job that
 * keeps making progress gets while others wait for the engine: alone, it
 * completes, unblamed; with another client's job queued behind it, it is
 * reset as too long and the other client's job completes.
 */
static void long_job(void)
{
	const uint32_t w = 2048, h = 2048, wb = 1024;
	struct vdxg_bo *dst, *dst_b;
	struct vdxg_cs *cs, *cs_b;
	uint32_t ctx, ctx_b, n;
	uint64_t resets, timeouts;
	double per_fill, t, tb;
	unsigned int try;
	struct vr a, b;

	vtest_assert_eq_u64(vr_module_param("job_timeout_ms"), 100);
	vr_open(&a);
	ctx = vr_ctx(&a);
	dst = vr_bo(&a, (uint64_t)w * 4 * h, DRM_VDXG_SEGMENT_VRAM, 0);
	per_fill = fill_seconds(&a, ctx, dst, w, h);

	/*
	 * Alone: a job of about 2 s, 20 timeouts. It must run through more
	 * timeouts than the ten a job gets when others wait, or it tests
	 * nothing: if it did not, longer, a few times at most, and never
	 * past LONG_JOB_FILLS (a SUBMIT holds at most 128 KiB of commands).
	 */
	n = (uint32_t)(2 / per_fill) + 1;
	n = n < LONG_JOB_FILLS ? n : LONG_JOB_FILLS;
	resets = vr_debugfs(&a, "render", "resets");
	for (try = 0;; try++) {
		vtest_require_f(n < 100000, "a FILL takes %.3f ms",
				per_fill * 1e3);
		cs = fill_cs(dst, w, h, n);
		timeouts = vr_debugfs(&a, "render", "timeouts");
		t = vr_now();
		vr_submit(&a, ctx, cs, NULL);
		vr_bo_wait(dst);
		t = vr_now() - t;
		timeouts = vr_debugfs(&a, "render", "timeouts") - timeouts;
		vdxg_cs_free(cs);
		vtest_info("alone: %u FILLs of %ux%u: %.0f ms, %" PRIu64
			   " job timeouts of 100 ms", n, w, h, t * 1e3,
			   timeouts);
		vtest_assert_eq_u64(vr_debugfs(&a, "render", "resets"),
				    resets);
		if (timeouts >= 15 || try == 3 || n == LONG_JOB_FILLS)
			break;
		n = 2 * n < LONG_JOB_FILLS ? 2 * n : LONG_JOB_FILLS;
	}
	vtest_assert_eq(vr_reset_status(&a, ctx).guilty, 0);
	fill_check(dst, w, n);
	vtest_assert_f(timeouts >= 12, "the job ran through only %" PRIu64
		       " timeouts: not enough to test anything", timeouts);

	/* Three times as long (at most LONG_JOB_FILLS), and B's job behind it */
	vr_ignore_dmesg(VR_RESET_DMESG);
	vr_open(&b);
	ctx_b = vr_ctx(&b);
	dst_b = vr_bo(&b, (uint64_t)wb * 4 * wb, DRM_VDXG_SEGMENT_VRAM, 0);
	fill_job_time(&b, ctx_b, dst_b, wb, wb, 1);
	n = 3 * n < LONG_JOB_FILLS ? 3 * n : LONG_JOB_FILLS;
	cs = fill_cs(dst, w, h, n);
	cs_b = fill_cs(dst_b, wb, wb, 1);
	t = vr_now();
	vr_submit(&a, ctx, cs, NULL);
	vr_sleep_ms(100);
	vr_submit(&b, ctx_b, cs_b, NULL);
	vr_bo_wait(dst_b);
	tb = vr_now() - t;
	vr_bo_wait(dst);
	t = vr_now() - t;
	vtest_info("contended: A's job of %u FILLs ended after %.0f ms, B's "
		   "job after %.0f ms", n, t * 1e3, tb * 1e3);
	vtest_assert_eq_u64(vr_debugfs(&a, "render", "resets"), resets + 1);
	vtest_assert_eq(vr_reset_status(&a, ctx).guilty, 1);
	vtest_assert_eq(vr_reset_status(&b, ctx_b).guilty, 0);
	fill_check(dst_b, wb, 1);
	vdxg_cs_free(cs_b);
	vdxg_cs_free(cs);
	vdxg_bo_free(dst_b);
	vdxg_bo_free(dst);
	vr_close(&b);
	vr_close(&a);
}

static void test_long_job(void)
{
	struct vr vr;

	vr_open(&vr);
	vr_close(&vr);
	vr_with_module_params("job_timeout_ms=100", long_job);
}

static void params_fail(void)
{
	vtest_assert_eq_u64(vr_module_param("job_timeout_ms"), 100);
	vtest_fail("failing on purpose");
}

static void params_skip(void)
{
	vtest_skip("skipping on purpose");
}

static void params_crash(void)
{
	raise(SIGKILL);
}

/*
 * The subtest's timeout while FN runs: the SIGALRM it would get, sent to
 * the process that reloads vdxg, now that FN runs (not a real alarm: one
 * of a few seconds could fire in the reload itself on a slow machine,
 * and kill the process before it restores anything).
 */
static void params_hang(void)
{
	kill(getppid(), SIGALRM);
	for (;;)
		pause();
}

/*
 * vr_with_module_params() (slow-job's reload) restores job_timeout_ms
 * whether the function under it fails, skips, crashes or outlives the
 * subtest's timeout, and the subtest ends the same way.
 */
static void test_module_params(void)
{
	static const struct {
		const char *what;
		void (*fn)(void);
		int exit_code;		/* or -signal */
	} cases[] = {
		{ "a failure", params_fail, VTEST_EXIT_FAILURE },
		{ "a skip", params_skip, VTEST_EXIT_SKIP },
		{ "a crash", params_crash, -SIGKILL },
		{ "a timeout", params_hang, -SIGALRM },
	};
	uint64_t before = vr_module_param("job_timeout_ms");
	unsigned int i;
	struct vr vr;
	int status, fd;
	pid_t pid;

	vr_open(&vr);
	vr_close(&vr);
	vtest_require(before != 100);
	for (i = 0; i < VTEST_ARRAY_SIZE(cases); i++) {
		fflush(NULL);
		pid = fork();
		vtest_assert(pid >= 0);
		if (!pid) {
			/* Its messages are expected: not the subtest's */
			fd = open("/dev/null", O_WRONLY);
			dup2(fd, 1);
			dup2(fd, 2);
			vr_with_module_params("job_timeout_ms=100",
					      cases[i].fn);
			_exit(VTEST_EXIT_SUCCESS);
		}
		vtest_assert_eq(waitpid(pid, &status, 0), pid);
		vtest_info("%s: %s %d; job_timeout_ms %" PRIu64, cases[i].what,
			   WIFSIGNALED(status) ? "signal" : "exit",
			   WIFSIGNALED(status) ? WTERMSIG(status) :
						 WEXITSTATUS(status),
			   vr_module_param("job_timeout_ms"));
		if (cases[i].exit_code < 0) {
			vtest_assert(WIFSIGNALED(status));
			vtest_assert_eq(WTERMSIG(status), -cases[i].exit_code);
		} else {
			vtest_assert(WIFEXITED(status));
			vtest_assert_eq(WEXITSTATUS(status),
					cases[i].exit_code);
		}
		vtest_assert_eq_u64(vr_module_param("job_timeout_ms"), before);
	}
}

/*
 * 100 faults, each right behind a small job that completes: every fault
 * resets the engine at once, not at the job timeout (here 30 s, so that
 * "at once" may take a loaded machine seconds and still be told apart).
 * The kernel log hears of them at most ten times a minute; debugfs
 * ``faults`` has every one.
 */
static void fault_storm(void)
{
	uint64_t timeout_ms = vr_module_param("job_timeout_ms");
	uint64_t kmsg = vtest_kmsg_seq(), total0, total1;
	static double lat[100];
	char path[96];
	int i, lines, most;
	struct vr vr, probe;
	double start;

	vtest_assert_eq_u64(timeout_ms, 30000);
	start = vr_now();
	vr_open(&probe);
	vr_ignore_dmesg(VR_RESET_DMESG "|callbacks suppressed");
	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/faults",
		 vtest_drm_minor(probe.fd));
	/* Read at the end: the latencies come first. */
	total0 = vtest_path_exists(path) ?
		 vr_debugfs(&probe, "faults", "total") : 0;
	for (i = 0; i < 100; i++) {
		struct drm_vdxg_sync out;
		struct vdxg_submit_opts o = { 0 };
		struct vdxg_bo *dst, *vb, *bo;
		struct vdxg_cs *cs;
		uint32_t ctx, s;
		double t0;

		/* Four faults a file: five would get it banned. */
		if (i % 4 == 0)
			vr_open(&vr);
		bo = vr_bo(&vr, 4096, DRM_VDXG_SEGMENT_VRAM, 0);
		cs = vr_cs();
		vdxg_cs_fence(cs, bo, 0, DRM_VDXG_ALLOC_WRITE, i);
		ctx = vr_ctx(&vr);
		vr_submit(&vr, ctx, cs, NULL);
		vdxg_cs_reset(cs);
		vr_cs_fault(&vr, cs, &dst, &vb);
		s = vr_syncobj(&vr, false);
		out = vdxg_sync(s, 0);
		o.out_syncs = &out;
		o.num_out_syncs = 1;
		t0 = vr_now();
		vr_submit(&vr, vr_ctx(&vr), cs, &o);
		vtest_assert_f(vr_syncobj_wait(&vr, s, 0,
					       timeout_ms / 2 * 1000000) == 0,
			       "fault %d: no reset in half the job timeout",
			       i);
		lat[i] = vr_now() - t0;
		vtest_assert(vr_syncobj_status(&vr, s, 0) < 0);
		vdxg_cs_free(cs);
		vdxg_bo_free(dst);
		vdxg_bo_free(vb);
		vdxg_bo_free(bo);
		if (i % 4 == 3)
			vr_close(&vr);
	}
	lines = vtest_kmsg_grep(kmsg, " fault: ") +
		vtest_kmsg_grep(kmsg, "hung, resetting") +
		vtest_kmsg_grep(kmsg, "hung or faulted");
	/*
	 * Ten lines a minute (vdxg_fault.c's ratelimit): in the minutes
	 * the storm spans, which a slow machine makes more than one, and
	 * one more for a window an earlier test opened.
	 */
	most = 10 * ((int)((vr_now() - start) / 60) + 2);
	qsort(lat, 100, sizeof(lat[0]), cmp_double);
	vtest_info("fault to failed fence: median %.1f ms, max %.1f ms (job "
		   "timeout %" PRIu64 " ms); %d kernel log lines for 100 "
		   "faults in %.0f s", lat[50] * 1e3, lat[99] * 1e3,
		   timeout_ms, lines, vr_now() - start);
	fflush(stdout);
	vtest_assert_lt(lat[99] * 1e3, timeout_ms / 2);
	vtest_assert_lte(lines, most);
	total1 = vr_debugfs(&probe, "faults", "total");
	vtest_info("fault log total %" PRIu64 " -> %" PRIu64, total0, total1);
	vtest_assert_lte_u64(total0 + 100, total1);
	vr_close(&probe);
}

static void test_fault_storm(void)
{
	struct vr vr;

	vr_open(&vr);
	vr_close(&vr);
	vr_with_module_params("job_timeout_ms=30000", fault_storm);
}

/*
 * A paging job faults while moves of other objects are queued behind it
 * on the paging ring (the engine held until they are): the faulting job
 * alone fails; the moves run again after the reset and every byte arrives.
 */
static void test_paging_fault(void)
{
	static const uint32_t segs[] = {
		DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_SYSTEM,
	};
	char path[96];
	struct vdxg_bo *bo[8];
	uint64_t faults, j;
	struct vr vr;
	int i, minor;

	vr_open(&vr);
	vr_ignore_dmesg("engine 1 fault: |callbacks suppressed");
	minor = vtest_drm_minor(vr.fd);
	for (i = 0; i < 8; i++) {
		uint32_t *p;

		vtest_assert_eq(vdxg_bo_create(vr.dev, 256 * 1024, segs, 2,
					       DRM_VDXG_GEM_CPU_ACCESS,
					       &bo[i]), 0);
		p = vr_map(bo[i]);
		for (j = 0; j < 256 * 1024 / 4; j++)
			p[j] = (uint32_t)(i << 24 | j);
		if (i & 1)
			vtest_assert_eq(vdxg_bo_make_resident(bo[i],
						DRM_VDXG_SEGMENT_SYSTEM), 0);
		vr_bo_wait(bo[i]);
	}
	faults = vr_debugfs(&vr, "paging", "faults");

	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/paging_hold",
		 minor);
	vtest_assert_eq(vtest_write_file(path, "1"), 0);
	snprintf(path, sizeof(path),
		 "/sys/kernel/debug/dri/%d/paging_inject_fault", minor);
	vtest_assert_eq(vtest_write_file(path, "1"), 0);
	/* Even ones go to system memory, odd ones to VRAM, behind it. */
	for (i = 0; i < 8; i++)
		vtest_assert_eq(vdxg_bo_make_resident(bo[i], segs[!(i & 1)]),
				0);
	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/paging_hold",
		 minor);
	vtest_assert_eq(vtest_write_file(path, "0"), 0);

	for (i = 0; i < 8; i++) {
		const uint32_t *p;

		vr_bo_wait(bo[i]);
		vtest_assert_eq(vr_bo_segment(bo[i]), segs[!(i & 1)]);
		p = vr_map(bo[i]);
		for (j = 0; j < 256 * 1024 / 4; j++)
			vtest_assert_f(p[j] == (uint32_t)(i << 24 | j),
				       "object %d dword %" PRIu64 ": 0x%08x",
				       i, j, p[j]);
	}
	vtest_assert_eq_u64(vr_debugfs(&vr, "paging", "faults"), faults + 1);
	for (i = 0; i < 8; i++)
		vdxg_bo_free(bo[i]);
	vr_close(&vr);
}

/* ------------------------------------------------- VM attacks, a victim */

#define ATK_VA		0x100000000ull
#define ATK_VA2		0x200000000ull
#define ATK_OBJ		(8 * MIB)
#define ATK_MAX		64

/* Whether the parent said stop (closed STOP): without waiting. */
static bool atk_stopped(int stop)
{
	struct pollfd p = { .fd = stop, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

static void atk_ready(int ready)
{
	vtest_assert_eq(write(ready, "r", 1), 1);
	close(ready);
}

/* Wait until the parent says stop. */
static void atk_hold(int stop)
{
	char c;

	(void)!read(stop, &c, 1);
}

static int atk_bind(struct vr *vr, uint32_t vm, uint32_t op, uint32_t handle,
		    uint64_t va, uint64_t range, uint32_t in)
{
	struct drm_vdxg_vm_bind_op o = {
		.op = op, .handle = handle, .va = va, .range = range,
	};
	struct drm_vdxg_sync i = vdxg_sync(in, 0);

	return vdxg_vm_bind(vr->dev, vm, &o, 1, in ? &i : NULL, !!in, NULL,
			    0);
}

/*
 * A bind that waits for an in-fence never signalled (until the end): its
 * fence is on the VM's reservation and the bound object's. The VM's
 * private objects fill half of VRAM, unbound objects the rest.
 */
static void atk_blocked_bind(int ready, int stop, unsigned int n)
{
	static const uint32_t vram = DRM_VDXG_SEGMENT_VRAM;
	struct vdxg_bo *y, *bo[2 * ATK_MAX];
	unsigned int np, nf, i;
	int timeline = vvm_timeline();
	uint32_t vm, in;
	uint64_t seg;
	struct vr a;

	(void)n;
	vr_open(&a);
	seg = vvm_vram_segment(vdxg_device_fd(a.dev));
	np = seg / 2 / ATK_OBJ;
	nf = (seg - np * ATK_OBJ) / ATK_OBJ - 1;
	vtest_assert(np <= ATK_MAX && nf <= ATK_MAX);
	vtest_assert_ok(vdxg_vm_create(a.dev, 0, &vm));
	in = vvm_fence_syncobj(&a, timeline, 1);
	y = vr_bo(&a, MIB, DRM_VDXG_SEGMENT_VRAM, 0);
	vtest_assert_ok(atk_bind(&a, vm, DRM_VDXG_VM_BIND_OP_MAP, y->handle,
				 ATK_VA, MIB, in));
	for (i = 0; i < np; i++)
		vtest_assert_ok(vdxg_bo_create_vm(a.dev, ATK_OBJ, &vram, 1, 0,
						  vm, &bo[i]));
	for (i = 0; i < nf; i++)
		bo[np + i] = vr_bo(&a, ATK_OBJ, DRM_VDXG_SEGMENT_VRAM, 0);
	atk_ready(ready);
	atk_hold(stop);
	vvm_timeline_inc(timeline, 1);
	for (i = 0; i < np + nf; i++)
		vdxg_bo_free(bo[i]);
	vdxg_bo_free(y);
	vr_close(&a);
}

/*
 * VMs of the file null-map their whole space, or the largest power of two
 * from 0 that the caps allow (-ENOSPC: half as much), until the file's
 * page tables reach its cap and VM_CREATE fails with -ENOSPC too.
 */
static void atk_null_whole(int ready, int stop, unsigned int n)
{
	uint32_t vm[DRM_VDXG_VM_MAX_PER_FILE];
	uint64_t size, mapped = 0;
	unsigned int v;
	struct vr a;
	int ret;

	vr_open(&a);
	for (v = 0; v < DRM_VDXG_VM_MAX_PER_FILE; v++) {
		ret = vdxg_vm_create(a.dev, 0, &vm[v]);
		if (ret == -ENOSPC)
			break;
		vtest_assert_ok(ret);
		size = 1ull << DRM_VDXG_VM_VA_BITS;
		do {
			size /= 2;
			ret = atk_bind(&a, vm[v], DRM_VDXG_VM_BIND_OP_MAP_NULL,
				       0, 0, size, 0);
		} while (ret == -ENOSPC && size > MIB);
		vtest_assert_f(!ret || ret == -ENOSPC, "MAP_NULL: %d", ret);
		mapped += ret ? 0 : size;
	}
	vtest_info("file %u: %" PRIu64 " GiB null-mapped in %u VMs", n,
		   mapped >> 30, v);
	atk_ready(ready);
	atk_hold(stop);
	vr_close(&a);
}

/*
 * DRM_VDXG_VM_MAX_PER_FILE VMs, each with a context and a command object;
 * a round of NOP EXECs, one in each, then a round every second until the
 * parent says stop: the VMs take address spaces in turn, without keeping
 * the engine from the victim (another test's concern).
 */
static void atk_many_vms(int ready, int stop, unsigned int n)
{
	struct {
		uint32_t vm, ctx;
		struct vdxg_bo *cmd;
	} m[DRM_VDXG_VM_MAX_PER_FILE];
	uint32_t out, rounds = 0, v;
	struct vdxg_vcs vcs;
	struct vr a;

	vr_open(&a);
	out = vr_syncobj(&a, false);
	for (v = 0; v < DRM_VDXG_VM_MAX_PER_FILE; v++) {
		vtest_assert_ok(vdxg_vm_create(a.dev, 0, &m[v].vm));
		vtest_assert_ok(vdxg_context_create_vm(a.dev,
						       DRM_VDXG_PRIORITY_NORMAL,
						       m[v].vm, &m[v].ctx));
		m[v].cmd = vr_bo(&a, 4096, DRM_VDXG_SEGMENT_SYSTEM, 0);
		vtest_assert_ok(vdxg_vm_map(a.dev, m[v].vm, m[v].cmd, 0,
					    ATK_VA, 4096, 0));
	}
	while (!rounds || !atk_stopped(stop)) {
		for (v = 0; v < DRM_VDXG_VM_MAX_PER_FILE; v++) {
			struct drm_vdxg_sync o = vdxg_sync(out, 0);
			struct vdxg_submit_opts opts = {
				.out_syncs = &o,
				.num_out_syncs = v + 1 ==
						 DRM_VDXG_VM_MAX_PER_FILE,
			};

			vdxg_vcs_init(&vcs, vr_map(m[v].cmd), 4096, ATK_VA);
			vdxg_vcs_nop(&vcs);
			vtest_assert_ok(vdxg_exec(a.dev, m[v].ctx, &vcs,
						  &opts));
		}
		vtest_assert_ok(vr_syncobj_wait(&a, out, 0, VR_WAIT_NS));
		vtest_assert_ok(vdxg_syncobj_reset(a.dev, out));
		if (!rounds++)
			atk_ready(ready);
		vr_sleep_ms(1000);
	}
	vtest_info("file %u: %u rounds of %u EXECs", n, rounds,
		   DRM_VDXG_VM_MAX_PER_FILE);
	for (v = 0; v < DRM_VDXG_VM_MAX_PER_FILE; v++)
		vdxg_bo_free(m[v].cmd);
	vr_close(&a);
}

/*
 * One foreign (vgem) buffer imported twice, both bound in a VM (two
 * objects sharing one reservation), a job run through both, the VM
 * destroyed; again until the parent says stop.
 */
static void atk_dup_import(int ready, int stop, unsigned int n)
{
	struct drm_mode_create_dumb c = { .width = 64, .height = 64,
					  .bpp = 32 };
	struct drm_prime_handle ph = { .flags = DRM_CLOEXEC | DRM_RDWR };
	uint32_t vm, ctx, out, rounds = 0;
	struct vdxg_bo *cmd, *x, *y;
	struct vdxg_vcs vcs;
	int vgem;
	struct vr a;

	vr_open(&a);
	vgem = vtest_open_vgem(NULL);
	vtest_assert_ok(vtest_ioctl(vgem, DRM_IOCTL_MODE_CREATE_DUMB, &c));
	ph.handle = c.handle;
	vtest_assert_ok(vtest_ioctl(vgem, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph));
	cmd = vr_bo(&a, 4096, DRM_VDXG_SEGMENT_SYSTEM, 0);
	out = vr_syncobj(&a, false);
	atk_ready(ready);
	while (!atk_stopped(stop)) {
		struct drm_vdxg_sync o = vdxg_sync(out, 0);
		struct vdxg_submit_opts opts = { .out_syncs = &o,
						 .num_out_syncs = 1 };

		vtest_assert_ok(vdxg_vm_create(a.dev, 0, &vm));
		vtest_assert_ok(vdxg_context_create_vm(a.dev,
						       DRM_VDXG_PRIORITY_NORMAL,
						       vm, &ctx));
		vtest_assert_ok(vdxg_vm_map(a.dev, vm, cmd, 0, ATK_VA, 4096,
					    0));
		vtest_assert_ok(vdxg_bo_import(a.dev, ph.fd, &x));
		vtest_assert_ok(vdxg_vm_map(a.dev, vm, x, 0, ATK_VA2, x->size,
					    0));
		vdxg_bo_free(x);
		vtest_assert_ok(vdxg_bo_import(a.dev, ph.fd, &y));
		vtest_assert_ok(vdxg_vm_map(a.dev, vm, y, 0,
					    ATK_VA2 + 16 * MIB, y->size, 0));
		vdxg_vcs_init(&vcs, vr_map(cmd), 4096, ATK_VA);
		vdxg_vcs_set_surface(&vcs, VDXG_SLOT_DST, ATK_VA2,
				     VDXG_FMT_ARGB8888, 64, 64, c.pitch);
		vdxg_vcs_fill_rect(&vcs, 0, 0, 64, 64, 0x11111111 * n);
		vtest_assert_ok(vdxg_exec(a.dev, ctx, &vcs, &opts));
		vtest_assert_ok(vr_syncobj_wait(&a, out, 0, VR_WAIT_NS));
		vtest_assert_ok(vdxg_syncobj_reset(a.dev, out));
		vtest_assert_ok(vdxg_context_destroy(a.dev, ctx));
		vtest_assert_ok(vdxg_vm_destroy(a.dev, vm));
		vdxg_bo_free(y);
		rounds++;
	}
	vtest_info("file %u: %u rounds", n, rounds);
	vdxg_bo_free(cmd);
	close(ph.fd);
	close(vgem);
	vr_close(&a);
}

/*
 * PROCS attackers run ATTACK, each in a child: once all are set up, a
 * victim (vvm_victim()) times its operations beside them; then they stop
 * and clean up.
 */
static void under_attack(const char *name,
			 void (*attack)(int ready, int stop, unsigned int n),
			 unsigned int procs)
{
	int ready[2], stop[2], status;
	pid_t pid[ATK_MAX];
	unsigned int p;
	char c;

	vtest_assert(procs <= ATK_MAX);
	vtest_assert_ok(pipe(ready));
	vtest_assert_ok(pipe(stop));
	for (p = 0; p < procs; p++) {
		pid[p] = fork();
		vtest_assert(pid[p] >= 0);
		if (!pid[p]) {
			close(ready[0]);
			close(stop[1]);
			attack(ready[1], stop[0], p);
			_exit(0);
		}
	}
	close(ready[1]);
	close(stop[0]);
	for (p = 0; p < procs; p++)
		vtest_assert_f(read(ready[0], &c, 1) == 1,
			       "%s: an attacker died setting up", name);
	vvm_victim(name);
	close(stop[1]);
	for (p = 0; p < procs; p++) {
		vtest_assert_eq(waitpid(pid[p], &status, 0), pid[p]);
		vtest_assert_f(WIFEXITED(status) && !WEXITSTATUS(status),
			       "%s: attacker %u: status 0x%x", name, p,
			       status);
	}
	close(ready[0]);
}

static void vm_require(void)
{
	struct vr vr;

	vr_open(&vr);
	vtest_require_f(vr_param(&vr, DRM_VDXG_PARAM_CAPS) & VDXG_CAP_GPU_MMU,
			"the device has no GPU MMU");
	vr_close(&vr);
}

static void test_victim_blocked_bind(void)
{
	vm_require();
	under_attack("never-signalled bind in-fence", atk_blocked_bind, 1);
}

static void test_victim_null_whole(void)
{
	vm_require();
	under_attack("MAP_NULL of the whole space", atk_null_whole, 4);
}

/* 4096 VMs (512 on the debug kernel) running EXEC jobs. */
/*
 * 64 files of 64 VMs each; on the debug kernel, where a job takes several
 * times as long, 4 (256 VMs): the victim's EXEC may wait behind a round
 * of the attackers' NOPs, one in each VM (an address space switch each),
 * and 512 of them took up to 1.6 s there on a busy host.
 */
static void test_victim_many_vms(void)
{
	bool debug = vtest_debug_kernel();

	vm_require();
	under_attack(debug ? "256 VMs" : "4096 VMs", atk_many_vms,
		     debug ? 4 : 64);
}

static void test_victim_dup_import(void)
{
	vm_require();
	under_attack("duplicate external objects", atk_dup_import, 2);
}

static const struct vtest_subtest subtests[] = {
	{ "no-clear-stale", test_no_clear_stale,
	  "NO_CLEAR without CAP_SYS_ADMIN reads no other client's data" },
	{ "context-race", test_context_race,
	  "CONTEXT_CREATE and DESTROY of id 1 racing for 10 s" },
	{ "fdinfo-race", test_fdinfo_race,
	  "fdinfo read while objects move between segments" },
	{ "wait-poll", test_wait_poll,
	  "GEM_WAIT with timeout 0 polls without sleeping" },
	{ "zero-fields", test_zero_fields,
	  "GEM_INFO, MAKE_RESIDENT flags and pads, PRESENT clips: EINVAL" },
	{ "context-limit", test_context_limit,
	  "256 contexts per file, then ENOSPC" },
	{ "queue-limit", test_queue_limit,
	  "a client's queued jobs hold at most a quarter of the DMA pool" },
	{ "abuse-ban", test_abuse_ban,
	  "a client hanging the engine in a loop is banned; the other's "
	  "latency stays bounded" },
	{ "slow-job", test_slow_job,
	  "a valid job of several timeouts completes, unblamed" },
	{ "long-job", test_long_job,
	  "past ten timeouts, a job is reset only when another client "
	  "waits" },
	{ "module-params", test_module_params,
	  "slow-job's module parameter is restored however the job ends" },
	{ "fault-storm", test_fault_storm,
	  "100 faults: each reset at once, the log rate-limited" },
	{ "paging-fault", test_paging_fault,
	  "a faulting paging job: the moves queued behind it arrive intact" },
	{ "victim-blocked-bind", test_victim_blocked_bind,
	  "a victim's 4 operations, p99 within 1 s, beside a blocked bind" },
	{ "victim-null-whole", test_victim_null_whole,
	  "a victim's 4 operations beside VMs null-mapping their whole space" },
	{ "victim-many-vms", test_victim_many_vms,
	  "a victim's 4 operations beside 4096 VMs (256 on the debug "
	  "kernel) running EXEC jobs" },
	{ "victim-dup-import", test_victim_dup_import,
	  "a victim's 4 operations beside VMs binding one buffer twice" },
};

VTEST_MAIN(subtests)
