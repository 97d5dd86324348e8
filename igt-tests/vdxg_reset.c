// SPDX-License-Identifier: MIT
/*
 * vdxg_reset: hangs and GPU faults on the RENDER engine. The engine is
 * reset, the guilty context banned (GET_RESET_STATUS, -EIO on submit), its
 * queued jobs cancelled; other contexts' jobs caught on the ring are run
 * again and complete correctly (innocent), and new contexts work.
 *
 * The driver logs each reset and fault at error level: these subtests tell
 * igt_runner to expect exactly those lines (and nothing else).
 *
 * Every subtest skips on a device or driver without a RENDER engine.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vrender.h"

/* Kernel messages that would be a bug, whatever the level. */
static void assert_no_warnings(uint64_t since)
{
	static const char *const bad[] = {
		"WARNING:", "BUG:", "Call Trace", "Oops", "lockdep",
		"refcount_t", "use-after-free",
	};
	unsigned int i;

	for (i = 0; i < VTEST_ARRAY_SIZE(bad); i++)
		vtest_assert_f(vtest_kmsg_grep(since, bad[i]) == 0,
			       "kernel logged \"%s\"", bad[i]);
}

struct victim {
	struct vr *vr;
	uint32_t ctx;
	struct vdxg_bo *bo;
	uint8_t *map;
	uint32_t syncobj;
};

/* A job that fills a square and writes a fence: checked after. */
static void victim_submit(struct vr *vr, struct victim *v, uint32_t ctx,
			  uint32_t color)
{
	struct drm_vdxg_sync out;
	struct vdxg_submit_opts o = { 0 };
	struct vdxg_cs *cs = vr_cs();

	v->vr = vr;
	v->ctx = ctx;
	v->bo = vr_bo(vr, 8192, DRM_VDXG_SEGMENT_VRAM, 0);
	v->map = vr_map(v->bo);
	memset(v->map, 0, 8192);
	v->syncobj = vr_syncobj(vr, false);
	out = vdxg_sync(v->syncobj, 0);
	o.out_syncs = &out;
	o.num_out_syncs = 1;
	vdxg_cs_set_surface(cs, VDXG_SLOT_DST, v->bo, 0, DRM_VDXG_ALLOC_WRITE,
			    VDXG_FMT_XRGB8888, 16, 16, 64);
	vdxg_cs_fill_rect(cs, 2, 3, 10, 9, color);
	vdxg_cs_fence(cs, v->bo, 4096, DRM_VDXG_ALLOC_WRITE, color);
	vr_submit(vr, ctx, cs, &o);
	vdxg_cs_free(cs);
}

static void victim_check(struct victim *v, uint32_t color, const char *who)
{
	const uint32_t *px = (const uint32_t *)v->map;
	struct drm_vdxg_reset_status st;
	uint32_t x, y;

	vtest_assert_f(vr_syncobj_wait(v->vr, v->syncobj, 0, VR_WAIT_NS) == 0,
		       "%s: job not done", who);
	vtest_assert_f(vr_syncobj_status(v->vr, v->syncobj, 0) == 1,
		       "%s: job failed (status %d)", who,
		       vr_syncobj_status(v->vr, v->syncobj, 0));
	for (y = 0; y < 16; y++)
		for (x = 0; x < 16; x++) {
			bool in = x >= 2 && x < 12 && y >= 3 && y < 12;
			uint32_t want = in ? (color | 0xff000000) : 0;

			vtest_assert_f(px[y * 16 + x] == want,
				       "%s: pixel (%u, %u) 0x%08x, expected "
				       "0x%08x", who, x, y, px[y * 16 + x],
				       want);
		}
	vtest_assert_eq_u64(vr_read64(v->map, 4096), color);
	st = vr_reset_status(v->vr, v->ctx);
	vtest_assert_f(!(st.flags & DRM_VDXG_RESET_BANNED), "%s banned", who);
	vtest_assert_eq(st.guilty, 0);
}

static void victim_free(struct victim *v)
{
	vdxg_bo_free(v->bo);
}

/* Valid work after the reset: new contexts, checked results. */
static void check_recovered(struct vr *vr)
{
	struct victim v[3];
	int i;

	for (i = 0; i < 3; i++)
		victim_submit(vr, &v[i], vr_ctx(vr), 0x00102030 * (i + 1));
	for (i = 0; i < 3; i++) {
		victim_check(&v[i], 0x00102030 * (i + 1), "a new context");
		vtest_assert_eq(vr_reset_status(vr, v[i].ctx).innocent, 0);
		victim_free(&v[i]);
	}
}

/* The guilty context after its reset. */
static void check_guilty(struct vr *vr, uint32_t ctx)
{
	struct drm_vdxg_reset_status st = vr_wait_banned(vr, ctx);
	struct vdxg_bo *bo = vr_bo(vr, 4096, DRM_VDXG_SEGMENT_VRAM, 0);
	struct vdxg_cs *cs = vr_cs();
	int ret;

	vtest_info("guilty context %u: flags 0x%x, guilty %u, innocent %u",
		   ctx, st.flags, st.guilty, st.innocent);
	vtest_assert_eq(st.guilty, 1);
	vtest_assert_eq(st.innocent, 0);
	vdxg_cs_fence(cs, bo, 0, DRM_VDXG_ALLOC_WRITE, 1);
	ret = vdxg_submit(vr->dev, ctx, cs, NULL);
	vtest_assert_f(ret == -EIO, "submit on a banned context: %d (%s)",
		       ret, strerror(-ret));
	/* Still banned, and it can be destroyed. */
	vtest_assert(vr_reset_status(vr, ctx).flags & DRM_VDXG_RESET_BANNED);
	vtest_assert_eq(vdxg_context_destroy(vr->dev, ctx), 0);
	vdxg_cs_free(cs);
	vdxg_bo_free(bo);
}

/*
 * A WAIT that never completes hangs the engine. After job_timeout_ms (not
 * before) the engine is reset: the hung context is banned and its queued
 * job cancelled; the jobs queued behind it on the ring by another context
 * of the same client and by another client are run again and complete.
 */
static void hang_wait(void)
{
	uint64_t timeout_ms = vr_module_param("job_timeout_ms");
	struct drm_vdxg_sync out[2];
	struct vdxg_submit_opts o = { 0 };
	struct victim same, other;
	struct vdxg_bo *hold;
	struct vdxg_cs *cs = vr_cs();
	uint32_t guilty, s1, s2;
	struct vr vr, vr2;
	uint64_t resets, kmsg;
	struct drm_vdxg_reset_status st;
	double t0, elapsed;
	uint8_t *map;

	vr_open(&vr);
	vr_open(&vr2);
	vr_ignore_dmesg(VR_RESET_DMESG "|callbacks suppressed");
	kmsg = vtest_kmsg_seq();
	resets = vr_debugfs(&vr, "render", "resets");
	guilty = vr_ctx(&vr);
	hold = vr_bo(&vr, 4096, DRM_VDXG_SEGMENT_VRAM, 0);
	map = vr_map(hold);
	memset(map, 0, 4096);
	s1 = vr_syncobj(&vr, false);
	s2 = vr_syncobj(&vr, false);

	/* Started, then stuck: 0 never reaches 1. */
	vdxg_cs_fence(cs, hold, 8, DRM_VDXG_ALLOC_WRITE, 0x5747);
	vdxg_cs_wait(cs, hold, 0, 0, 1);
	vdxg_cs_fence(cs, hold, 16, DRM_VDXG_ALLOC_WRITE, 0xdead);
	out[0] = vdxg_sync(s1, 0);
	o.out_syncs = &out[0];
	o.num_out_syncs = 1;
	t0 = vr_now();
	vr_submit(&vr, guilty, cs, &o);
	/* The guilty context's next job, queued behind. */
	vdxg_cs_reset(cs);
	vdxg_cs_fence(cs, hold, 24, DRM_VDXG_ALLOC_WRITE, 0xbad);
	out[1] = vdxg_sync(s2, 0);
	o.out_syncs = &out[1];
	vr_submit(&vr, guilty, cs, &o);

	victim_submit(&vr, &same, vr_ctx(&vr), 0x00aa5500);
	victim_submit(&vr2, &other, vr_ctx(&vr2), 0x0000aa55);

	vr_sleep_ms(100);
	vtest_assert_eq_u64(vr_read64(map, 8), 0x5747);	/* it runs */
	vtest_assert_eq(vr_syncobj_wait(&vr2, other.syncobj, 0, 0), -ETIME);

	victim_check(&other, 0x0000aa55, "the other client");
	elapsed = vr_now() - t0;
	vtest_info("job timeout %" PRIu64 " ms; the job behind the hang "
		   "completed after %.0f ms", timeout_ms, elapsed * 1e3);
	vtest_assert_f(elapsed * 1e3 >= 0.9 * timeout_ms,
		       "the engine was reset after %.0f ms, before the %" PRIu64
		       " ms timeout", elapsed * 1e3, timeout_ms);
	victim_check(&same, 0x00aa5500, "the same client's other context");

	vtest_assert_eq(vr_syncobj_wait(&vr, s2, 0, VR_WAIT_NS), 0);
	vtest_assert_f(vr_syncobj_status(&vr, s1, 0) < 0,
		       "the hung job's fence has no error");
	vtest_assert_f(vr_syncobj_status(&vr, s2, 0) < 0,
		       "the guilty context's queued job's fence has no error");
	vtest_assert_eq_u64(vr_read64(map, 16), 0);	/* never got there */
	vtest_assert_eq_u64(vr_read64(map, 24), 0);	/* cancelled */

	check_guilty(&vr, guilty);
	st = vr_reset_status(&vr2, other.ctx);
	vtest_assert_lte(1, st.innocent);
	st = vr_reset_status(&vr, same.ctx);
	vtest_assert_lte(1, st.innocent);
	vtest_assert_eq_u64(vr_debugfs(&vr, "render", "resets"), resets + 1);

	/* Releasing the old WAIT now changes nothing. */
	vr_write64(map, 0, 1);
	check_recovered(&vr);
	check_recovered(&vr2);
	vtest_assert_eq_u64(vr_read64(map, 16), 0);
	assert_no_warnings(kmsg);

	victim_free(&same);
	victim_free(&other);
	vdxg_cs_free(cs);
	vdxg_bo_free(hold);
	vr_close(&vr2);
	vr_close(&vr);
}

static void test_hang_wait(void)
{
	hang_wait();
}

/*
 * The same with job_timeout_ms=500 (module reloaded): the reset comes
 * after 500 ms, well before the default 2 s.
 */
static void test_hang_short_timeout(void)
{
	struct vr probe;

	vr_open(&probe);	/* skips without a render engine */
	vr_close(&probe);
	vtest_require(vtest_system("modprobe -r vdxg && "
				   "modprobe vdxg job_timeout_ms=500") == 0);
	vtest_assert_eq_u64(vr_module_param("job_timeout_ms"), 500);
	hang_wait();
	vtest_assert(vtest_system("modprobe -r vdxg && modprobe vdxg") == 0);
}

/*
 * A GPU fault the kernel cannot check (a vertex coordinate out of range, in
 * the vertex buffer) resets the engine at once, without waiting for the
 * job timeout (here 30 s, so that "at once" may take a loaded machine
 * seconds and still be told apart), and bans the context the same way.
 * The faulting job is held by a WAIT until the other contexts' jobs are
 * queued behind it.
 */
static void fault_ban(void)
{
	uint64_t timeout_ms = vr_module_param("job_timeout_ms");
	struct vdxg_bo *hold, *dst, *vb;
	struct victim same, other;
	struct vdxg_cs *cs = vr_cs();
	uint64_t faults, resets, kmsg;
	struct vr vr, vr2;
	uint32_t guilty;
	double t0, elapsed;
	uint8_t *map;

	vtest_assert_eq_u64(timeout_ms, 30000);
	vr_open(&vr);
	vr_open(&vr2);
	vr_ignore_dmesg(VR_RESET_DMESG "|callbacks suppressed");
	kmsg = vtest_kmsg_seq();
	resets = vr_debugfs(&vr, "render", "resets");
	faults = vr_debugfs(&vr, "paging", "faults");	/* device faults */
	guilty = vr_ctx(&vr);
	hold = vr_bo(&vr, 4096, DRM_VDXG_SEGMENT_VRAM, 0);
	map = vr_map(hold);
	memset(map, 0, 4096);

	vdxg_cs_wait(cs, hold, 0, 0, 1);
	vdxg_cs_fence(cs, hold, 8, DRM_VDXG_ALLOC_WRITE, 0x0f);
	vr_cs_fault(&vr, cs, &dst, &vb);
	vdxg_cs_fence(cs, hold, 16, DRM_VDXG_ALLOC_WRITE, 0xdead);
	vr_submit(&vr, guilty, cs, NULL);
	victim_submit(&vr, &same, vr_ctx(&vr), 0x00336699);
	victim_submit(&vr2, &other, vr_ctx(&vr2), 0x00996633);
	vr_sleep_ms(100);
	vtest_assert_eq(vr_syncobj_wait(&vr2, other.syncobj, 0, 0), -ETIME);

	t0 = vr_now();
	vr_write64(map, 0, 1);		/* on to the fault */
	vtest_assert_f(vr_syncobj_wait(&vr2, other.syncobj, 0,
				       timeout_ms / 2 * 1000000) == 0,
		       "no reset in half the job timeout (%" PRIu64 " ms)",
		       timeout_ms / 2);
	elapsed = vr_now() - t0;
	vtest_info("fault to completion of the job behind: %.0f ms (job "
		   "timeout %" PRIu64 " ms)", elapsed * 1e3, timeout_ms);
	vtest_assert_f(elapsed * 1e3 < timeout_ms / 2,
		       "the fault waited for the job timeout (%.0f ms)",
		       elapsed * 1e3);
	victim_check(&other, 0x00996633, "the other client");
	victim_check(&same, 0x00336699, "the same client's other context");

	vtest_assert_eq_u64(vr_read64(map, 8), 0x0f);	/* before the fault */
	vtest_assert_eq_u64(vr_read64(map, 16), 0);	/* after it */
	check_guilty(&vr, guilty);
	vtest_assert_lte(1, vr_reset_status(&vr2, other.ctx).innocent);
	vtest_assert_lte(1, vr_reset_status(&vr, same.ctx).innocent);
	vtest_assert_eq_u64(vr_debugfs(&vr, "render", "resets"), resets + 1);
	vtest_assert_eq_u64(vr_debugfs(&vr, "paging", "faults"), faults + 1);

	check_recovered(&vr);
	check_recovered(&vr2);
	assert_no_warnings(kmsg);

	victim_free(&same);
	victim_free(&other);
	vdxg_bo_free(dst);
	vdxg_bo_free(vb);
	vdxg_cs_free(cs);
	vdxg_bo_free(hold);
	vr_close(&vr2);
	vr_close(&vr);
}

static void test_fault_ban(void)
{
	struct vr vr;

	vr_open(&vr);	/* skips without a render engine */
	vr_close(&vr);
	vr_with_module_params("job_timeout_ms=30000", fault_ban);
}

/*
 * Several faults in a row, from several contexts: each bans only its own
 * context, and the engine keeps working in between.
 */
static void test_fault_repeated(void)
{
	struct vdxg_bo *dst[4], *vb[4];
	uint32_t ctx[4], good;
	uint64_t resets, kmsg;
	struct vr vr;
	int i;

	vr_open(&vr);
	vr_ignore_dmesg(VR_RESET_DMESG "|callbacks suppressed");
	kmsg = vtest_kmsg_seq();
	resets = vr_debugfs(&vr, "render", "resets");
	good = vr_ctx(&vr);
	for (i = 0; i < 4; i++) {
		struct vdxg_cs *cs = vr_cs();
		struct vdxg_bo *bo = vr_bo(&vr, 4096, DRM_VDXG_SEGMENT_VRAM, 0);

		ctx[i] = vr_ctx(&vr);
		vr_cs_fault(&vr, cs, &dst[i], &vb[i]);
		vr_submit(&vr, ctx[i], cs, NULL);
		vr_wait_banned(&vr, ctx[i]);
		vr_fence_check(&vr, good, bo, 0, 0x1000 + i);
		vdxg_cs_free(cs);
		vdxg_bo_free(bo);
	}
	for (i = 0; i < 4; i++) {
		struct drm_vdxg_reset_status st = vr_reset_status(&vr, ctx[i]);

		vtest_assert(st.flags & DRM_VDXG_RESET_BANNED);
		vtest_assert_eq(st.guilty, 1);
		vdxg_bo_free(dst[i]);
		vdxg_bo_free(vb[i]);
	}
	vtest_assert_eq_u64(vr_debugfs(&vr, "render", "resets"), resets + 4);
	vtest_assert(!(vr_reset_status(&vr, good).flags & DRM_VDXG_RESET_BANNED));
	check_recovered(&vr);
	assert_no_warnings(kmsg);
	vr_close(&vr);
}

/*
 * GET_RESET_STATUS reports a faulted context as banned and faulted at
 * once: spinning on it while the recovery runs never sees the ban without
 * the fault. (The ban used to be set before the fault was copied to the
 * context: a caller polling between the two saw a hang.) A fresh file
 * every four faults keeps the files clear of a ban of their own.
 */
static void test_fault_status_atomic(void)
{
	struct drm_vdxg_reset_status st;
	struct vdxg_bo *dst, *vb;
	uint64_t polls = 0;
	struct vr vr;
	int i;

	for (i = 0; i < 32; i++) {
		struct vdxg_cs *cs = vr_cs();
		uint32_t ctx;
		double end;

		if (i % 4 == 0)
			vr_open(&vr);
		if (i == 0)
			vr_ignore_dmesg(VR_RESET_DMESG "|callbacks suppressed");
		ctx = vr_ctx(&vr);
		vr_cs_fault(&vr, cs, &dst, &vb);
		vr_submit(&vr, ctx, cs, NULL);
		end = vr_now() + 30;
		do {
			st = vr_reset_status(&vr, ctx);
			polls++;
		} while (!(st.flags & DRM_VDXG_RESET_BANNED) && vr_now() < end);
		vtest_assert_f(st.flags & DRM_VDXG_RESET_BANNED,
			       "fault %d: context %u not banned in 30 s", i,
			       ctx);
		vtest_assert_f(st.flags & DRM_VDXG_RESET_FAULT,
			       "fault %d: banned without its fault (flags 0x%x, guilty %u)",
			       i, st.flags, st.guilty);
		vtest_assert_eq(st.fault_reason, VDXG_FAULT_PARAM);
		vdxg_bo_free(dst);
		vdxg_bo_free(vb);
		vdxg_cs_free(cs);
		if (i % 4 == 3)
			vr_close(&vr);
	}
	vtest_info("%" PRIu64 " GET_RESET_STATUS calls during 32 recoveries",
		   polls);
}

static const struct vtest_subtest subtests[] = {
	{ "hang-wait", test_hang_wait,
	  "a WAIT that never ends: reset after the timeout, guilty banned, "
	  "innocents rerun" },
	{ "hang-short-timeout", test_hang_short_timeout,
	  "the same with job_timeout_ms=500: the parameter is honoured" },
	{ "fault-ban", test_fault_ban,
	  "a vertex out of range faults: immediate reset, ban, innocents "
	  "rerun" },
	{ "fault-repeated", test_fault_repeated,
	  "four faults in a row: each bans only its own context" },
	{ "fault-status-atomic", test_fault_status_atomic,
	  "a context seen banned after a fault is seen faulted too" },
};

VTEST_MAIN(subtests)
