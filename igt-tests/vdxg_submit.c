// SPDX-License-Identifier: MIT
/*
 * vdxg_submit: the SUBMIT ioctl around the commands: patching and the
 * presumed-address skip, residency under VRAM oversubscription, syncobjs
 * (binary and timeline), implicit sync between clients, concurrent
 * clients, fdinfo, a split SUBMIT under signals, and a table of bad
 * submissions, each with its errno.
 *
 * Some subtests need a fence the CPU controls, to hold a job back without
 * holding the engine (a WAIT on the ring would stall every job behind it
 * and make any ordering trivially right): they take it from vgem
 * (VGEM_FENCE_ATTACH, exported as a sync_file and imported into a
 * syncobj), and skip when vgem cannot be loaded.
 *
 * Every subtest skips on a device or driver without a RENDER engine.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <xf86drm.h>

#include "vgem.h"
#include "vrender.h"

/* ---------------------------------------------------------------- vgem */


struct vgem {
	int fd;
	uint32_t handle;
	int dmabuf;
};

static void vgem_open(struct vgem *g)
{
	struct drm_mode_create_dumb dumb = {
		.width = 1024, .height = 1, .bpp = 32,
	};

	memset(g, 0, sizeof(*g));
	g->fd = vtest_open_vgem(NULL);
	vtest_assert_ok(vtest_ioctl(g->fd, DRM_IOCTL_MODE_CREATE_DUMB, &dumb));
	g->handle = dumb.handle;
	vtest_assert_ok(drmPrimeHandleToFD(g->fd, g->handle, DRM_CLOEXEC,
					   &g->dmabuf));
}

/*
 * vgem stays loaded: its fences live on in syncobjs and in jobs'
 * dependencies after this, and their ops are vgem's code.
 */
static void vgem_close(struct vgem *g)
{
	close(g->dmabuf);
	close(g->fd);
}

/*
 * A new unsignalled fence (vgem signals it by itself after 10 s), in a new
 * binary syncobj of VR. Returns the syncobj; *fence is vgem's id.
 */
static uint32_t vgem_syncobj(struct vgem *g, struct vr *vr, uint32_t *fence)
{
	struct local_vgem_fence_attach a = {
		.handle = g->handle, .flags = LOCAL_VGEM_FENCE_WRITE,
	};
	struct dma_buf_export_sync_file ex = { .flags = DMA_BUF_SYNC_READ };
	uint32_t syncobj = vr_syncobj(vr, false);
	int ret;

	vtest_assert_ok(vtest_ioctl(g->fd, LOCAL_IOCTL_VGEM_FENCE_ATTACH, &a));
	*fence = a.out_fence;
	vtest_assert_ok(ioctl(g->dmabuf, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &ex));
	ret = vdxg_syncobj_import_sync_file(vr->dev, syncobj, 0, ex.fd);
	vtest_assert_f(ret == 0, "importing vgem's fence: %s", strerror(-ret));
	close(ex.fd);
	vtest_assert_eq(vr_syncobj_wait(vr, syncobj, 0, 0), -ETIME);
	return syncobj;
}

static void vgem_signal(struct vgem *g, uint32_t fence)
{
	struct local_vgem_fence_signal s = { .fence = fence };

	vtest_assert_ok(vtest_ioctl(g->fd, LOCAL_IOCTL_VGEM_FENCE_SIGNAL, &s));
}

/* --------------------------------------------------------------- utils */

/* BO of FROM, imported into TO through PRIME (the same GEM object). */
static struct vdxg_bo *share(struct vr *from, struct vdxg_bo *bo,
			     struct vr *to)
{
	struct vdxg_bo *out = NULL;
	uint32_t handle;
	int fd, ret;

	ret = drmPrimeHandleToFD(from->fd, bo->handle, DRM_CLOEXEC | DRM_RDWR,
				 &fd);
	vtest_require_f(ret == 0, "PRIME export of a vdxg object: %s",
			strerror(errno));
	vtest_assert_ok(drmPrimeFDToHandle(to->fd, fd, &handle));
	close(fd);
	ret = vdxg_bo_from_handle(to->dev, handle, bo->size, &out);
	vtest_assert_f(ret == 0, "vdxg_bo_from_handle: %s", strerror(-ret));
	return out;
}

static struct vdxg_submit_opts opts_syncs(const struct drm_vdxg_sync *in,
					  uint32_t nin,
					  const struct drm_vdxg_sync *out,
					  uint32_t nout)
{
	struct vdxg_submit_opts o = {
		.in_syncs = in, .num_in_syncs = nin,
		.out_syncs = out, .num_out_syncs = nout,
	};

	return o;
}

/* A 32x32 XRGB8888 surface at OFFSET of BO: pitch 128, 4 KiB. */
#define SQ	32
static void cs_square(struct vdxg_cs *cs, uint32_t slot, struct vdxg_bo *bo,
		      uint32_t offset)
{
	vdxg_cs_set_surface(cs, slot, bo, offset,
			    slot == VDXG_SLOT_DST ? DRM_VDXG_ALLOC_WRITE : 0,
			    VDXG_FMT_XRGB8888, SQ, SQ, SQ * 4);
}

/* Every pixel of the SQ x SQ square at MAP + OFFSET is ARGB. */
static void check_square(const uint8_t *map, uint32_t offset, uint32_t argb,
			 const char *what)
{
	const uint32_t *p = (const uint32_t *)(map + offset);
	uint32_t i, want = argb | 0xff000000;

	for (i = 0; i < SQ * SQ; i++)
		vtest_assert_f(p[i] == want, "%s: pixel (%u, %u) is 0x%08x, "
			       "expected 0x%08x", what, i % SQ, i / SQ, p[i],
			       want);
}

static uint64_t meminfo_kib(const char *key)
{
	char buf[8192], *line;

	vtest_assert(vtest_read_file("/proc/meminfo", buf, sizeof(buf)) > 0);
	line = strstr(buf, key);
	vtest_assert_f(line, "no %s in /proc/meminfo", key);
	return strtoull(line + strlen(key) + 1, NULL, 10);
}

/* ------------------------------------------------- patching, residency */

struct os_bo {
	struct vdxg_bo *bo;
	uint8_t *map;
	uint32_t surf;			/* surface offset */
	uint32_t fence;			/* fence offset */
	uint8_t ref[SQ * SQ * 4];	/* expected surface */
	uint64_t fence_value;
	uint64_t addr;			/* GPU address of its last submit */
};

static uint64_t signature(int i)
{
	return 0x5157000000000000ull ^ ((uint64_t)i << 20) ^ 0x1234567;
}

static void os_check(struct os_bo *o, int i, const char *when)
{
	char what[64];

	snprintf(what, sizeof(what), "%s: object %d", when, i);
	vtest_assert_f(!memcmp(o->map + o->surf, o->ref, sizeof(o->ref)),
		       "%s: surface differs from the reference", what);
	vtest_assert_f(vr_read64(o->map, o->fence) == o->fence_value,
		       "%s: fence 0x%" PRIx64 ", expected 0x%" PRIx64, what,
		       vr_read64(o->map, o->fence), o->fence_value);
	vtest_assert_f(vr_read64(o->map, 0) == signature(i) &&
		       vr_read64(o->map, o->bo->size / 2) == ~signature(i),
		       "%s: signatures lost", what);
}

/*
 * Objects totalling four times VRAM (half VRAM-only, half VRAM or
 * aperture), and jobs each touching eight of them at random: TTM evicts
 * the others to make room, so an object often comes back at another GPU
 * address than its previous job used. Each job presumes the previous
 * address (libvdxg does): the kernel must patch exactly when one changed,
 * write the new addresses back, and every fill and fence must land at the
 * right place.
 */
static void test_patch_oversubscribe(void)
{
	const int per_job = 8;
	uint64_t size, patched0, skipped0, xfer0, moved = 0;
	int n, rounds, r, i, nptch = 0, nskip = 0;
	struct vdxg_cs *cs = vr_cs();
	struct os_bo *o;
	struct vr vr;
	uint64_t rng;
	uint32_t ctx;

	vr_open(&vr);
	rng = vr_seed();
	ctx = vr_ctx(&vr);
	size = vr.vram_size / 32;
	if (size < (1 << 20))
		size = 1 << 20;
	n = vr_commit_room(&vr, 4 * vr.vram_size) / size;
	vtest_require_f(meminfo_kib("MemAvailable:") * 1024 >
			n * size + (256ull << 20),
			"not enough guest memory for %d x %" PRIu64 " MiB", n,
			size >> 20);
	vtest_info("%d objects of %" PRIu64 " MiB over %" PRIu64 " MiB of VRAM",
		   n, size >> 20, vr.vram_size >> 20);

	o = calloc(n, sizeof(*o));
	vtest_assert(o);
	for (i = 0; i < n; i++) {
		o[i].bo = vr_bo(&vr, size, DRM_VDXG_SEGMENT_VRAM,
				i % 2 ? DRM_VDXG_SEGMENT_APERTURE : 0);
		o[i].map = vr_map(o[i].bo);
		o[i].surf = size - 4 * 4096 + (i % 3) * 4096 + (i % 4) * 4;
		o[i].fence = size - 8 * (1 + i % 16);
		memset(o[i].map + o[i].surf, 0, sizeof(o[i].ref));
		vr_write64(o[i].map, o[i].fence, 0);
		vr_write64(o[i].map, 0, signature(i));
		vr_write64(o[i].map, size / 2, ~signature(i));
	}

	patched0 = vr_debugfs(&vr, "render", "patched");
	skipped0 = vr_debugfs(&vr, "render", "patch_skipped");
	xfer0 = vr_debugfs(&vr, "paging", "transfer");
	rounds = 3 * n / per_job;
	for (r = 0; r < rounds; r++) {
		struct vdxg_submit_opts opts = { 0 };
		int pick[8], k, j;
		bool expect = false;

		for (k = 0; k < per_job; k++) {
again:
			pick[k] = vr_rand(&rng) % n;
			for (j = 0; j < k; j++)
				if (pick[j] == pick[k])
					goto again;
		}

		vdxg_cs_reset(cs);
		for (k = 0; k < per_job; k++) {
			struct os_bo *b = &o[pick[k]];
			struct vdxg_ref_surface rs = {
				b->ref, VDXG_FMT_XRGB8888, SQ, SQ, SQ * 4,
			};
			uint32_t x = vr_rand(&rng) % SQ, y = vr_rand(&rng) % SQ;
			uint32_t w = 1 + vr_rand(&rng) % (SQ - x);
			uint32_t h = 1 + vr_rand(&rng) % (SQ - y);
			uint32_t c = vr_rand(&rng);

			/* What the builder presumes: the last address. */
			vtest_assert_eq_u64(b->bo->gpu_addr, b->addr);
			cs_square(cs, VDXG_SLOT_DST, b->bo, b->surf);
			vdxg_cs_fill_rect(cs, x, y, w, h, c);
			vdxg_ref_fill_rect(&rs, x, y, w, h, c);
			b->fence_value = (uint64_t)r << 32 | pick[k];
			vdxg_cs_fence(cs, b->bo, b->fence, DRM_VDXG_ALLOC_WRITE,
				      b->fence_value);
		}
		vr_submit(&vr, ctx, cs, &opts);

		/* The addresses the job used, written back when patched. */
		for (k = 0; k < per_job; k++) {
			struct os_bo *b = &o[pick[k]];
			uint64_t now = b->bo->gpu_addr;

			vtest_assert_f(now == vr_bo_gpu_addr(b->bo),
				       "object %d: written back 0x%" PRIx64
				       ", GEM_INFO 0x%" PRIx64, pick[k], now,
				       vr_bo_gpu_addr(b->bo));
			if (now != b->addr) {
				expect = true;
				moved += b->addr != 0;
			}
			b->addr = now;
		}
		vtest_assert_f(!!(opts.out_flags & DRM_VDXG_SUBMIT_OUT_PATCHED) ==
			       expect, "job %d: out_flags 0x%x, but %s address "
			       "changed", r, opts.out_flags,
			       expect ? "an" : "no");
		if (expect)
			nptch++;
		else
			nskip++;

		vr_bo_wait(o[pick[0]].bo);
		for (k = 0; k < per_job; k++)
			os_check(&o[pick[k]], pick[k], "after its job");
	}
	for (i = 0; i < n; i++)
		os_check(&o[i], i, "at the end");

	vtest_info("%d jobs: %d patched, %d skipped; %" PRIu64 " times an "
		   "object came back at another address; %" PRIu64
		   " paging transfers", rounds, nptch, nskip, moved,
		   vr_debugfs(&vr, "paging", "transfer") - xfer0);
	vtest_assert_eq_u64(vr_debugfs(&vr, "render", "patched") - patched0,
			    nptch);
	vtest_assert_eq_u64(vr_debugfs(&vr, "render", "patch_skipped") -
			    skipped0, nskip);
	vtest_assert_f(moved > 0, "no object ever changed address");
	vtest_assert_lte_u64(n / 2, vr_debugfs(&vr, "paging", "transfer") -
			     xfer0);

	for (i = 0; i < n; i++)
		vdxg_bo_free(o[i].bo);
	free(o);
	vdxg_cs_free(cs);
	vr_close(&vr);
}

/* A FENCE of VALUE at offset 0 of BO, submitted raw; returns out_flags. */
static uint32_t fence_raw(struct vr *vr, uint32_t ctx, struct vdxg_bo *bo,
			  uint64_t presumed, uint64_t value,
			  uint64_t *written_back)
{
	struct drm_vdxg_submit args;
	struct drm_vdxg_allocation *a;
	struct vdxg_cs *cs = vr_cs();
	int ret;

	bo->gpu_addr = presumed;
	vdxg_cs_fence(cs, bo, 0, DRM_VDXG_ALLOC_WRITE, value);
	memset(&args, 0, sizeof(args));
	vtest_assert_ok(vdxg_cs_prepare_submit(cs, &args));
	args.ctx_id = ctx;
	ret = vdxg_submit_raw(vr->dev, &args);
	vtest_assert_f(ret == 0, "SUBMIT: %s", strerror(-ret));
	a = (struct drm_vdxg_allocation *)(uintptr_t)args.allocations;
	*written_back = a[0].presumed_gpu_addr;
	vdxg_cs_complete_submit(cs);
	vdxg_cs_free(cs);
	return args.out_flags;
}

/*
 * The presumed-address skip, seen in debugfs: while the object stays put,
 * each job presuming its address is not patched (patch_skipped counts it,
 * out_flags has no PATCHED); after MAKE_RESIDENT moves it to the aperture,
 * and back, the next job is patched and gets the new address written back
 * into its allocation list.
 */
static void test_presumed_skip(void)
{
	uint64_t addr, wb, skipped, patched, fields;
	struct vdxg_bo *bo;
	uint32_t ctx, flags;
	uint8_t *map;
	struct vr vr;
	int i;

	vr_open(&vr);
	ctx = vr_ctx(&vr);
	bo = vr_bo(&vr, 64 << 10, DRM_VDXG_SEGMENT_VRAM,
		   DRM_VDXG_SEGMENT_APERTURE);
	map = vr_map(bo);
	vtest_assert_eq(vr_bo_segment(bo), DRM_VDXG_SEGMENT_VRAM);
	addr = vr_bo_gpu_addr(bo);

	/* A stale (zero) presumed address: patched, address written back. */
	patched = vr_debugfs(&vr, "render", "patched");
	fields = vr_debugfs(&vr, "render", "fields_written");
	flags = fence_raw(&vr, ctx, bo, 0, 1, &wb);
	vtest_assert(flags & DRM_VDXG_SUBMIT_OUT_PATCHED);
	vtest_assert_eq_u64(wb, addr);
	vtest_assert_eq_u64(vr_debugfs(&vr, "render", "patched"), patched + 1);
	vtest_assert_eq_u64(vr_debugfs(&vr, "render", "fields_written"),
			    fields + 1);
	vr_bo_wait(bo);
	vtest_assert_eq_u64(vr_read64(map, 0), 1);

	/* The right presumed address, again and again: never patched. */
	skipped = vr_debugfs(&vr, "render", "patch_skipped");
	patched = vr_debugfs(&vr, "render", "patched");
	for (i = 0; i < 10; i++) {
		flags = fence_raw(&vr, ctx, bo, addr, 100 + i, &wb);
		vtest_assert_f(!(flags & DRM_VDXG_SUBMIT_OUT_PATCHED),
			       "job %d: PATCHED with a right presumed address",
			       i);
		vtest_assert_eq_u64(wb, addr);
		vr_bo_wait(bo);
		vtest_assert_eq_u64(vr_read64(map, 0), 100 + i);
	}
	vtest_assert_eq_u64(vr_debugfs(&vr, "render", "patch_skipped"),
			    skipped + 10);
	vtest_assert_eq_u64(vr_debugfs(&vr, "render", "patched"), patched);

	/* Moved to the aperture: the presumed address is stale. */
	vtest_assert_eq(vdxg_bo_make_resident(bo, DRM_VDXG_SEGMENT_APERTURE), 0);
	vr_bo_wait(bo);
	vtest_assert_eq(vr_bo_segment(bo), DRM_VDXG_SEGMENT_APERTURE);
	vtest_assert_neq_u64(vr_bo_gpu_addr(bo), addr);
	flags = fence_raw(&vr, ctx, bo, addr, 200, &wb);
	vtest_assert(flags & DRM_VDXG_SUBMIT_OUT_PATCHED);
	vtest_assert_neq_u64(wb, addr);
	vtest_assert_eq_u64(wb, vr_bo_gpu_addr(bo));
	vtest_assert_lte_u64(VDXG_APERTURE_BASE, wb);
	vtest_assert_eq_u64(vr_debugfs(&vr, "render", "patched"), patched + 1);
	vr_bo_wait(bo);
	vtest_assert_eq_u64(vr_read64(map, 0), 200);
	addr = wb;

	/* Resident there: skipped again. */
	skipped = vr_debugfs(&vr, "render", "patch_skipped");
	flags = fence_raw(&vr, ctx, bo, addr, 201, &wb);
	vtest_assert(!(flags & DRM_VDXG_SUBMIT_OUT_PATCHED));
	vtest_assert_eq_u64(vr_debugfs(&vr, "render", "patch_skipped"),
			    skipped + 1);

	/* And back to VRAM. */
	vtest_assert_eq(vdxg_bo_make_resident(bo, DRM_VDXG_SEGMENT_VRAM), 0);
	vr_bo_wait(bo);
	vtest_assert_eq(vr_bo_segment(bo), DRM_VDXG_SEGMENT_VRAM);
	flags = fence_raw(&vr, ctx, bo, addr, 202, &wb);
	vtest_assert(flags & DRM_VDXG_SUBMIT_OUT_PATCHED);
	vtest_assert_eq_u64(wb, vr_bo_gpu_addr(bo));
	vtest_assert_lte_u64(wb + bo->size, vr.vram_size);
	vr_bo_wait(bo);
	vtest_assert_eq_u64(vr_read64(map, 0), 202);

	vdxg_bo_free(bo);
	vr_close(&vr);
}

/* With every presumed address zero, every address field is written. */
static void test_patch_all_fields(void)
{
	struct drm_vdxg_submit args;
	struct vdxg_bo *bo[3];
	struct vdxg_cs *cs = vr_cs();
	uint64_t fields, addr[3];
	uint32_t ctx, np, i;
	struct vr vr;
	uint8_t *map[3];
	int ret;

	vr_open(&vr);
	ctx = vr_ctx(&vr);
	for (i = 0; i < 3; i++) {
		bo[i] = vr_bo(&vr, 8192, i == 1 ? DRM_VDXG_SEGMENT_APERTURE :
				  DRM_VDXG_SEGMENT_VRAM, 0);
		map[i] = vr_map(bo[i]);
		memset(map[i], 0, 8192);
	}
	/* Fences at many offsets of three objects: 30 address fields. */
	for (i = 0; i < 30; i++)
		vdxg_cs_fence(cs, bo[i % 3], 8 * i, DRM_VDXG_ALLOC_WRITE,
			      0x1000 + i);
	memset(&args, 0, sizeof(args));
	vtest_assert_ok(vdxg_cs_prepare_submit(cs, &args));
	vdxg_cs_patches(cs, &np);
	vtest_assert_eq(np, 30);
	args.ctx_id = ctx;
	fields = vr_debugfs(&vr, "render", "fields_written");
	ret = vdxg_submit_raw(vr.dev, &args);
	vtest_assert_eq(ret, 0);
	vtest_assert(args.out_flags & DRM_VDXG_SUBMIT_OUT_PATCHED);
	vtest_assert_eq_u64(vr_debugfs(&vr, "render", "fields_written"),
			    fields + 30);
	for (i = 0; i < 3; i++) {
		const struct drm_vdxg_allocation *a =
			(const void *)(uintptr_t)args.allocations;

		addr[i] = vr_bo_gpu_addr(bo[i]);
		vtest_assert_eq_u64(a[i].presumed_gpu_addr, addr[i]);
	}
	vr_bo_wait(bo[0]);
	vr_bo_wait(bo[1]);
	vr_bo_wait(bo[2]);
	for (i = 0; i < 30; i++)
		vtest_assert_eq_u64(vr_read64(map[i % 3], 8 * i), 0x1000 + i);

	/* Taking the written-back addresses: nothing more to write. */
	vdxg_cs_complete_submit(cs);
	fields = vr_debugfs(&vr, "render", "fields_written");
	vr_submit(&vr, ctx, cs, NULL);
	vtest_assert_eq_u64(vr_debugfs(&vr, "render", "fields_written"), fields);
	vdxg_cs_free(cs);
	for (i = 0; i < 3; i++)
		vdxg_bo_free(bo[i]);
	vr_close(&vr);
}

/* ------------------------------------------------------------ syncobjs */

/* A job held on the ring by a WAIT until the CPU writes 1 at HOLD + 0. */
static void cs_hold(struct vdxg_cs *cs, struct vdxg_bo *hold)
{
	vdxg_cs_wait(cs, hold, 0, 0, 1);
}

/* Out-syncobjs: signalled exactly when the job is done, with no error. */
static void test_out_syncobj(void)
{
	struct drm_vdxg_sync out[3];
	struct vdxg_submit_opts o;
	struct vdxg_bo *hold;
	struct vdxg_cs *cs = vr_cs();
	uint32_t ctx, s1, s2, tl;
	uint8_t *map;
	uint64_t v;
	struct vr vr;

	vr_open(&vr);
	ctx = vr_ctx(&vr);
	map = vr_hold_bo(&vr, &hold);
	s1 = vr_syncobj(&vr, false);
	s2 = vr_syncobj(&vr, true);	/* signalled: replaced by the job */
	tl = vr_syncobj(&vr, false);
	out[0] = vdxg_sync(s1, 0);
	out[1] = vdxg_sync(s2, 0);
	out[2] = vdxg_sync(tl, 4);

	cs_hold(cs, hold);
	vdxg_cs_fence(cs, hold, 64, DRM_VDXG_ALLOC_WRITE, 0x5151);
	o = opts_syncs(NULL, 0, out, 3);
	vr_submit(&vr, ctx, cs, &o);

	vr_sleep_ms(100);
	vtest_assert_eq(vr_syncobj_wait(&vr, s1, 0, 0), -ETIME);
	vtest_assert_eq(vr_syncobj_wait(&vr, s2, 0, 0), -ETIME);
	vtest_assert_eq(vr_syncobj_wait(&vr, tl, 4, 0), -ETIME);
	vtest_assert_eq(vr_syncobj_status(&vr, s1, 0), 0);
	vtest_assert_eq(vdxg_syncobj_query(vr.dev, tl, &v), 0);
	vtest_assert_eq_u64(v, 0);
	vtest_assert_eq_u64(vr_read64(map, 64), 0);

	vr_write64(map, 0, 1);
	vtest_assert_eq(vr_syncobj_wait(&vr, s1, 0, VR_WAIT_NS), 0);
	vtest_assert_eq_u64(vr_read64(map, 64), 0x5151);
	vtest_assert_eq(vr_syncobj_wait(&vr, s2, 0, VR_WAIT_NS), 0);
	vtest_assert_eq(vr_syncobj_wait(&vr, tl, 4, VR_WAIT_NS), 0);
	vtest_assert_eq(vr_syncobj_status(&vr, s1, 0), 1);
	vtest_assert_eq(vr_syncobj_status(&vr, tl, 4), 1);
	vtest_assert_eq(vdxg_syncobj_query(vr.dev, tl, &v), 0);
	vtest_assert_eq_u64(v, 4);

	/* A binary syncobj takes the next job's fence. */
	vdxg_cs_reset(cs);
	vdxg_cs_fence(cs, hold, 72, DRM_VDXG_ALLOC_WRITE, 0x5252);
	o = opts_syncs(NULL, 0, out, 1);
	vr_submit(&vr, ctx, cs, &o);
	vtest_assert_eq(vr_syncobj_wait(&vr, s1, 0, VR_WAIT_NS), 0);
	vtest_assert_eq_u64(vr_read64(map, 72), 0x5252);

	vdxg_cs_free(cs);
	vdxg_bo_free(hold);
	vr_close(&vr);
}

/*
 * Job B waits for job A's out-syncobj. A is held on the ring by a WAIT the
 * CPU releases; until then B has not run (its FENCE has not landed, its
 * syncobj is unsignalled); then both complete, B after A.
 */
static void test_in_syncobj_order(void)
{
	struct drm_vdxg_sync sa, sb;
	struct vdxg_submit_opts o;
	struct vdxg_bo *hold;
	struct vdxg_cs *cs = vr_cs();
	uint32_t ctx_a, ctx_b, a, b;
	uint8_t *map;
	struct vr vr;

	vr_open(&vr);
	ctx_a = vr_ctx(&vr);
	ctx_b = vr_ctx(&vr);
	map = vr_hold_bo(&vr, &hold);
	a = vr_syncobj(&vr, false);
	b = vr_syncobj(&vr, false);
	sa = vdxg_sync(a, 0);
	sb = vdxg_sync(b, 0);

	vdxg_cs_fence(cs, hold, 8, DRM_VDXG_ALLOC_WRITE, 0xa0);
	cs_hold(cs, hold);
	vdxg_cs_fence(cs, hold, 16, DRM_VDXG_ALLOC_WRITE, 0xa1);
	o = opts_syncs(NULL, 0, &sa, 1);
	vr_submit(&vr, ctx_a, cs, &o);

	vdxg_cs_reset(cs);
	/* B copies A's last value: it must see it. */
	vdxg_cs_wait(cs, hold, 16, 0, 0xa1);
	vdxg_cs_fence(cs, hold, 24, DRM_VDXG_ALLOC_WRITE, 0xb0);
	o = opts_syncs(&sa, 1, &sb, 1);
	vr_submit(&vr, ctx_b, cs, &o);

	/* A started: then B has had its chance to run wrongly. */
	vr_wait64(map, 8, 0xa0, "job A's first FENCE");
	vr_sleep_ms(150);
	vtest_assert_eq_u64(vr_read64(map, 16), 0);
	vtest_assert_eq_u64(vr_read64(map, 24), 0);	/* B did not */
	vtest_assert_eq(vr_syncobj_wait(&vr, a, 0, 0), -ETIME);
	vtest_assert_eq(vr_syncobj_wait(&vr, b, 0, 0), -ETIME);

	vr_write64(map, 0, 1);
	vtest_assert_eq(vr_syncobj_wait(&vr, b, 0, VR_WAIT_NS), 0);
	vtest_assert_eq(vr_syncobj_status(&vr, a, 0), 1);
	vtest_assert_eq(vr_syncobj_status(&vr, b, 0), 1);
	vtest_assert_eq_u64(vr_read64(map, 16), 0xa1);
	vtest_assert_eq_u64(vr_read64(map, 24), 0xb0);

	vdxg_cs_free(cs);
	vdxg_bo_free(hold);
	vr_close(&vr);
}

/*
 * Job A waits for a CPU-controlled fence (vgem); job B waits for A's
 * out-syncobj; job C depends on nothing. Without the dependency B would
 * run at once (the objects are shared with NO_IMPLICIT, so only the
 * syncobj orders them): C completes, A and B do not, until the fence is
 * signalled; then B sees what A drew.
 */
static void test_in_syncobj_cpu_fence(void)
{
	struct drm_vdxg_sync sx, sa, sb;
	struct vdxg_submit_opts o;
	struct vdxg_bo *p, *q, *c;
	struct vdxg_cs *cs = vr_cs();
	uint32_t ctx_a, ctx_b, ctx_c, fence;
	uint8_t *mp, *mq, *mc;
	struct vgem g;
	struct vr vr;

	vr_open(&vr);
	vgem_open(&g);
	ctx_a = vr_ctx(&vr);
	ctx_b = vr_ctx(&vr);
	ctx_c = vr_ctx(&vr);
	p = vr_bo(&vr, 8192, DRM_VDXG_SEGMENT_VRAM, 0);
	q = vr_bo(&vr, 8192, DRM_VDXG_SEGMENT_APERTURE, 0);
	c = vr_bo(&vr, 4096, DRM_VDXG_SEGMENT_VRAM, 0);
	mp = vr_map(p);
	mq = vr_map(q);
	mc = vr_map(c);
	memset(mp, 0x11, 8192);
	memset(mq, 0x22, 8192);
	memset(mc, 0, 4096);
	sx = vdxg_sync(vgem_syncobj(&g, &vr, &fence), 0);
	sa = vdxg_sync(vr_syncobj(&vr, false), 0);
	sb = vdxg_sync(vr_syncobj(&vr, false), 0);

	cs_square(cs, VDXG_SLOT_DST, p, 0);
	vdxg_cs_fill_rect(cs, 0, 0, SQ, SQ, 0x00c0ffee);
	o = opts_syncs(&sx, 1, &sa, 1);
	o.flags = DRM_VDXG_SUBMIT_NO_IMPLICIT;
	vr_submit(&vr, ctx_a, cs, &o);

	vdxg_cs_reset(cs);
	cs_square(cs, VDXG_SLOT_SRC, p, 0);
	cs_square(cs, VDXG_SLOT_DST, q, 0);
	vdxg_cs_copy_rect(cs, 0, 0, 0, 0, SQ, SQ);
	o = opts_syncs(&sa, 1, &sb, 1);
	o.flags = DRM_VDXG_SUBMIT_NO_IMPLICIT;
	vr_submit(&vr, ctx_b, cs, &o);

	vdxg_cs_reset(cs);
	vdxg_cs_fence(cs, c, 0, DRM_VDXG_ALLOC_WRITE, 0xcc);
	vr_submit(&vr, ctx_c, cs, NULL);
	vr_bo_wait(c);
	vtest_assert_eq_u64(vr_read64(mc, 0), 0xcc);

	vr_sleep_ms(100);
	vtest_assert_eq(vr_syncobj_wait(&vr, sa.handle, 0, 0), -ETIME);
	vtest_assert_eq(vr_syncobj_wait(&vr, sb.handle, 0, 0), -ETIME);
	vtest_assert_eq_u64(vr_read64(mp, 0), 0x1111111111111111ull);
	vtest_assert_eq_u64(vr_read64(mq, 0), 0x2222222222222222ull);

	vgem_signal(&g, fence);
	vtest_assert_eq(vr_syncobj_wait(&vr, sb.handle, 0, VR_WAIT_NS), 0);
	vtest_assert_eq(vr_syncobj_status(&vr, sa.handle, 0), 1);
	check_square(mp, 0, 0x00c0ffee, "A's fill");
	check_square(mq, 0, 0x00c0ffee, "B's copy of A's fill");

	vdxg_cs_free(cs);
	vdxg_bo_free(p);
	vdxg_bo_free(q);
	vdxg_bo_free(c);
	vgem_close(&g);
	vr_close(&vr);
}

/*
 * Timeline syncobjs: jobs signal points 1, 3 and 5 (a later job waits for
 * point 3), one job adds points 7 and 9 to another timeline; each point is
 * signalled when its job is done, the timeline's value follows.
 */
static void test_timeline_points(void)
{
	struct drm_vdxg_sync out, in, two[2];
	struct vdxg_submit_opts o;
	struct vdxg_bo *hold;
	struct vdxg_cs *cs = vr_cs();
	uint32_t ctx1, ctx2, t, t2;
	uint8_t *map;
	struct vr vr;
	uint64_t v;

	vr_open(&vr);
	ctx1 = vr_ctx(&vr);
	ctx2 = vr_ctx(&vr);
	map = vr_hold_bo(&vr, &hold);
	t = vr_syncobj(&vr, false);
	t2 = vr_syncobj(&vr, false);

	cs_hold(cs, hold);
	vdxg_cs_fence(cs, hold, 8, DRM_VDXG_ALLOC_WRITE, 1);
	out = vdxg_sync(t, 1);
	o = opts_syncs(NULL, 0, &out, 1);
	vr_submit(&vr, ctx1, cs, &o);

	vdxg_cs_reset(cs);
	vdxg_cs_fence(cs, hold, 16, DRM_VDXG_ALLOC_WRITE, 3);
	out = vdxg_sync(t, 3);
	o = opts_syncs(NULL, 0, &out, 1);
	vr_submit(&vr, ctx1, cs, &o);

	vdxg_cs_reset(cs);
	vdxg_cs_fence(cs, hold, 24, DRM_VDXG_ALLOC_WRITE, 5);
	in = vdxg_sync(t, 3);
	out = vdxg_sync(t, 5);
	o = opts_syncs(&in, 1, &out, 1);
	vr_submit(&vr, ctx2, cs, &o);

	vdxg_cs_reset(cs);
	vdxg_cs_fence(cs, hold, 32, DRM_VDXG_ALLOC_WRITE, 9);
	two[0] = vdxg_sync(t2, 7);
	two[1] = vdxg_sync(t2, 9);
	o = opts_syncs(NULL, 0, two, 2);
	vr_submit(&vr, ctx2, cs, &o);

	vr_sleep_ms(100);
	vtest_assert_eq(vdxg_syncobj_query(vr.dev, t, &v), 0);
	vtest_assert_eq_u64(v, 0);
	vtest_assert_eq(vr_syncobj_wait(&vr, t, 1, 0), -ETIME);
	vtest_assert_eq(vr_syncobj_wait(&vr, t, 5, 0), -ETIME);
	vtest_assert_eq(vr_syncobj_wait(&vr, t2, 7, 0), -ETIME);

	vr_write64(map, 0, 1);
	vtest_assert_eq(vr_syncobj_wait(&vr, t, 1, VR_WAIT_NS), 0);
	vtest_assert_eq_u64(vr_read64(map, 8), 1);
	vtest_assert_eq(vr_syncobj_wait(&vr, t, 5, VR_WAIT_NS), 0);
	vtest_assert_eq(vr_syncobj_wait(&vr, t2, 9, VR_WAIT_NS), 0);
	vtest_assert_eq(vr_syncobj_wait(&vr, t2, 7, 0), 0);
	vtest_assert_eq(vdxg_syncobj_query(vr.dev, t, &v), 0);
	vtest_assert_eq_u64(v, 5);
	vtest_assert_eq(vdxg_syncobj_query(vr.dev, t2, &v), 0);
	vtest_assert_eq_u64(v, 9);
	vtest_assert_eq(vr_syncobj_status(&vr, t, 3), 1);
	vtest_assert_eq_u64(vr_read64(map, 16), 3);
	vtest_assert_eq_u64(vr_read64(map, 24), 5);
	vtest_assert_eq_u64(vr_read64(map, 32), 9);

	vdxg_cs_free(cs);
	vdxg_bo_free(hold);
	vr_close(&vr);
}

/*
 * Two clients share an object (PRIME within the device). Client 1's job
 * writes it, held back by a CPU-controlled fence; client 2's job reads it.
 * With implicit sync (the default) client 2's job waits for client 1's and
 * copies its fill, while an independent job runs meanwhile. With
 * NO_IMPLICIT it runs at once and copies the old content.
 */
static void implicit(bool no_implicit)
{
	struct vdxg_bo *x1, *x2, *y, *c;
	struct drm_vdxg_sync sx, sr;
	struct vdxg_submit_opts o;
	struct vdxg_cs *cs = vr_cs();
	uint32_t ctx1, ctx2, fence;
	uint8_t *mx, *my, *mc;
	struct vr vr1, vr2;
	struct vgem g;

	vr_open(&vr1);
	vr_open(&vr2);
	vgem_open(&g);
	ctx1 = vr_ctx(&vr1);
	ctx2 = vr_ctx(&vr2);
	x1 = vr_bo(&vr1, 8192, DRM_VDXG_SEGMENT_VRAM, 0);
	x2 = share(&vr1, x1, &vr2);
	y = vr_bo(&vr2, 8192, DRM_VDXG_SEGMENT_VRAM, 0);
	c = vr_bo(&vr2, 4096, DRM_VDXG_SEGMENT_VRAM, 0);
	mx = vr_map(x1);
	my = vr_map(y);
	mc = vr_map(c);
	memset(mx, 0x33, 8192);
	memset(my, 0x44, 8192);
	memset(mc, 0, 4096);
	sx = vdxg_sync(vgem_syncobj(&g, &vr1, &fence), 0);
	sr = vdxg_sync(vr_syncobj(&vr2, false), 0);

	/* Client 1 writes X once the fence signals. */
	cs_square(cs, VDXG_SLOT_DST, x1, 0);
	vdxg_cs_fill_rect(cs, 0, 0, SQ, SQ, 0x00beef00);
	o = opts_syncs(&sx, 1, NULL, 0);
	vr_submit(&vr1, ctx1, cs, &o);

	/* Client 2 copies X to Y. */
	vdxg_cs_reset(cs);
	cs_square(cs, VDXG_SLOT_SRC, x2, 0);
	cs_square(cs, VDXG_SLOT_DST, y, 0);
	vdxg_cs_copy_rect(cs, 0, 0, 0, 0, SQ, SQ);
	o = opts_syncs(NULL, 0, &sr, 1);
	o.flags = no_implicit ? DRM_VDXG_SUBMIT_NO_IMPLICIT : 0;
	vr_submit(&vr2, ctx2, cs, &o);

	/* An unrelated job of client 2 (another context) goes through. */
	vdxg_cs_reset(cs);
	vdxg_cs_fence(cs, c, 0, DRM_VDXG_ALLOC_WRITE, 0xcc);
	vr_submit(&vr2, vr_ctx(&vr2), cs, NULL);
	vr_bo_wait(c);
	vtest_assert_eq_u64(vr_read64(mc, 0), 0xcc);

	if (no_implicit) {
		vtest_assert_eq(vr_syncobj_wait(&vr2, sr.handle, 0, VR_WAIT_NS),
				0);
		check_square(my, 0, 0x33333333, "client 2's copy, before the "
			     "write it did not wait for");
		vtest_assert_eq_u64(vr_read64(mx, 0), 0x3333333333333333ull);
		vgem_signal(&g, fence);
		vr_bo_wait(x1);
		check_square(mx, 0, 0x00beef00, "client 1's fill");
	} else {
		vr_sleep_ms(100);
		vtest_assert_eq(vr_syncobj_wait(&vr2, sr.handle, 0, 0), -ETIME);
		vtest_assert_eq_u64(vr_read64(my, 0), 0x4444444444444444ull);
		vtest_assert_f(!vr_bo_idle(y), "the reader finished first");
		vgem_signal(&g, fence);
		vtest_assert_eq(vr_syncobj_wait(&vr2, sr.handle, 0, VR_WAIT_NS),
				0);
		check_square(mx, 0, 0x00beef00, "client 1's fill");
		check_square(my, 0, 0x00beef00, "client 2's copy of it");
	}

	vdxg_cs_free(cs);
	vdxg_bo_free(c);
	vdxg_bo_free(y);
	vdxg_bo_free(x2);
	vdxg_bo_free(x1);
	vgem_close(&g);
	vr_close(&vr2);
	vr_close(&vr1);
}

static void test_implicit_sync(void)
{
	implicit(false);
}

static void test_no_implicit(void)
{
	implicit(true);
}

/*
 * Implicit sync with the writer held on the ring by a WAIT (the write is
 * behind the WAIT in the same job): client 2's reader completes after the
 * CPU releases it, with the written data.
 */
static void test_implicit_sync_wait(void)
{
	struct vdxg_bo *hold, *x1, *x2, *y;
	struct vdxg_cs *cs = vr_cs();
	uint8_t *mh, *mx, *my;
	uint32_t ctx1, ctx2;
	struct vr vr1, vr2;

	vr_open(&vr1);
	vr_open(&vr2);
	ctx1 = vr_ctx(&vr1);
	ctx2 = vr_ctx(&vr2);
	mh = vr_hold_bo(&vr1, &hold);
	x1 = vr_bo(&vr1, 8192, DRM_VDXG_SEGMENT_APERTURE, 0);
	x2 = share(&vr1, x1, &vr2);
	y = vr_bo(&vr2, 8192, DRM_VDXG_SEGMENT_VRAM, 0);
	mx = vr_map(x1);
	my = vr_map(y);
	memset(mx, 0x55, 8192);
	memset(my, 0x66, 8192);

	cs_hold(cs, hold);
	cs_square(cs, VDXG_SLOT_DST, x1, 0);
	vdxg_cs_fill_rect(cs, 0, 0, SQ, SQ, 0x00f00d00);
	vr_submit(&vr1, ctx1, cs, NULL);
	vdxg_cs_reset(cs);
	cs_square(cs, VDXG_SLOT_SRC, x2, 0);
	cs_square(cs, VDXG_SLOT_DST, y, 0);
	vdxg_cs_copy_rect(cs, 0, 0, 0, 0, SQ, SQ);
	vr_submit(&vr2, ctx2, cs, NULL);

	vr_sleep_ms(150);
	vtest_assert_f(!vr_bo_idle(y), "the reader finished first");
	vtest_assert_eq_u64(vr_read64(my, 0), 0x6666666666666666ull);
	vr_write64(mh, 0, 1);
	vr_bo_wait(y);
	check_square(my, 0, 0x00f00d00, "the reader's copy");

	vdxg_cs_free(cs);
	vdxg_bo_free(y);
	vdxg_bo_free(x2);
	vdxg_bo_free(x1);
	vdxg_bo_free(hold);
	vr_close(&vr2);
	vr_close(&vr1);
}

/* --------------------------------------------------------- concurrency */

#define CLIENTS		8
#define CLIENT_JOBS	48

/* One client: its own fd, context and objects; every result checked. */
static void client(int idx, int start)
{
	struct vr_buf dst, src, fen;
	struct vr_surf d, s, all[2];
	struct vdxg_cs *cs = vr_cs();
	uint64_t rng = 0x9e3779b97f4a7c15ull * (idx + 1);
	uint32_t ctx, i;
	struct vr vr;
	char c;

	vr_open(&vr);
	ctx = vr_ctx(&vr);
	vr_buf_init(&vr, &dst, 32 << 10, idx % 2 ? DRM_VDXG_SEGMENT_APERTURE :
					      DRM_VDXG_SEGMENT_VRAM);
	vr_buf_init(&vr, &src, 32 << 10, idx % 2 ? DRM_VDXG_SEGMENT_VRAM :
					      DRM_VDXG_SEGMENT_APERTURE);
	vr_buf_init(&vr, &fen, 4096, DRM_VDXG_SEGMENT_VRAM);
	vr_buf_randomize(&dst, &rng);
	vr_buf_randomize(&src, &rng);
	d = vr_surf(&dst, 64, idx % 3 == 2 ? VDXG_FMT_RGB565 :
			  VDXG_FMT_XRGB8888, 48, 40);
	s = vr_surf(&src, 128, VDXG_FMT_ARGB8888, 40, 48);
	all[0] = d;
	all[1] = s;

	/* Everybody starts together. */
	vtest_assert(read(start, &c, 1) == 0);
	for (i = 0; i < CLIENT_JOBS; i++) {
		struct vdxg_ref_surface rd = vr_ref(&d), rs = vr_ref(&s);
		uint32_t x = vr_rand(&rng) % 32, y = vr_rand(&rng) % 32;
		uint32_t w = 1 + vr_rand(&rng) % 8, h = 1 + vr_rand(&rng) % 8;
		uint32_t col = vr_rand(&rng), a = vr_rand(&rng) & 0xff;
		uint64_t v = (uint64_t)idx << 32 | (i + 1);

		vdxg_cs_reset(cs);
		vr_cs_surface(cs, VDXG_SLOT_DST, &d);
		vr_cs_surface(cs, VDXG_SLOT_SRC, &s);
		vdxg_cs_fill_rect(cs, x, y, w, h, col);
		vdxg_ref_fill_rect(&rd, x, y, w, h, col);
		vdxg_cs_copy_rect(cs, y, x, x, y, w, h);
		vdxg_ref_copy_rect(&rd, &rs, y, x, x, y, w, h);
		vdxg_cs_blend(cs, x, y, y, x, h, w, a);
		vdxg_ref_blend(&rd, &rs, x, y, y, x, h, w, a);
		vdxg_cs_fence(cs, fen.bo, 8 * (i % 64), DRM_VDXG_ALLOC_WRITE, v);
		memcpy(fen.ref + 8 * (i % 64), &v, 8);
		vr_submit(&vr, ctx, cs, NULL);
		if (i % 12 == 11 || i + 1 == CLIENT_JOBS) {
			vr_bo_wait(fen.bo);
			vr_buf_check(&dst, all, 2, "client's surface");
			vr_buf_check(&src, all, 2, "client's source");
			vr_buf_check(&fen, NULL, 0, "client's fences");
		}
	}
	vdxg_cs_free(cs);
	vr_close(&vr);
}

static void test_concurrent_clients(void)
{
	uint64_t submits;
	pid_t pid[CLIENTS];
	int pipefd[2], i, failed = 0;
	struct vr vr;

	vr_open(&vr);	/* skips without a render engine */
	submits = vr_debugfs(&vr, "render", "submits");
	vtest_assert_ok(pipe(pipefd));
	for (i = 0; i < CLIENTS; i++) {
		pid[i] = fork();
		vtest_assert(pid[i] >= 0);
		if (pid[i] == 0) {
			close(pipefd[1]);
			vr_close(&vr);
			client(i, pipefd[0]);
			fflush(NULL);
			_exit(0);
		}
	}
	close(pipefd[0]);
	vr_sleep_ms(100);
	close(pipefd[1]);	/* go */
	for (i = 0; i < CLIENTS; i++) {
		int status;

		vtest_assert(waitpid(pid[i], &status, 0) == pid[i]);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			printf("client %d: %s %d\n", i,
			       WIFEXITED(status) ? "exit status" : "signal",
			       WIFEXITED(status) ? WEXITSTATUS(status) :
			       WTERMSIG(status));
			failed++;
		}
	}
	vtest_assert_f(!failed, "%d of %d clients failed", failed, CLIENTS);
	vtest_assert_lte_u64(submits + CLIENTS * CLIENT_JOBS,
			     vr_debugfs(&vr, "render", "submits"));
	vr_close(&vr);
}

/* -------------------------------------------------------------- fdinfo */

static uint64_t fdinfo(int fd, const char *key)
{
	uint64_t v = 0;

	vtest_assert_f(vr_fdinfo(fd, key, &v), "no %s in fdinfo of fd %d",
		       key, fd);
	return v;
}

/*
 * KEY of fd's fdinfo once it is no longer OLD: a job's engine time is
 * accounted when the scheduler frees the job, just after its fence. A
 * state to wait for; VR_WAIT_NS is only the hang guard.
 */
static uint64_t fdinfo_change(int fd, const char *key, uint64_t old)
{
	double end = vr_now() + (double)VR_WAIT_NS / VR_SEC;
	uint64_t v;

	while ((v = fdinfo(fd, key)) == old && vr_now() < end)
		vr_sleep_ms(10);
	return v;
}

/*
 * drm-engine-render counts the engine time of the file's jobs (none at
 * first, some after jobs, more after more jobs, none in another file),
 * and drm-memory-{vram,gtt,cpu} the file's objects where they are.
 */
static void test_fdinfo(void)
{
	static const uint32_t segs[] = {
		DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_VRAM,
		DRM_VDXG_SEGMENT_APERTURE, DRM_VDXG_SEGMENT_SYSTEM,
	};
	static const uint64_t sizes[] = { 1 << 20, 256 << 10, 512 << 10,
					  128 << 10 };
	uint64_t kib[4] = { 0 }, t1, t2;
	struct vdxg_bo *bo[4], *dst, *vb;
	struct vr_vertex *v;
	struct vdxg_cs *cs = vr_cs();
	struct vr vr, other;
	double start, wall;
	uint32_t ctx, i, j;

	vr_open(&vr);
	vr_open(&other);
	vtest_assert_eq_u64(fdinfo(vr.fd, "drm-engine-render"), 0);
	vtest_assert_eq_u64(fdinfo(vr.fd, "drm-memory-vram"), 0);

	for (i = 0; i < 4; i++) {
		bo[i] = vr_bo(&vr, sizes[i], segs[i], 0);
		vtest_assert_eq(vr_bo_segment(bo[i]), segs[i]);
		kib[segs[i]] += sizes[i] / 1024;
	}
	vtest_assert_eq_u64(fdinfo(vr.fd, "drm-memory-vram"),
			    kib[DRM_VDXG_SEGMENT_VRAM]);
	vtest_assert_eq_u64(fdinfo(vr.fd, "drm-memory-gtt"),
			    kib[DRM_VDXG_SEGMENT_APERTURE]);
	vtest_assert_eq_u64(fdinfo(vr.fd, "drm-memory-cpu"),
			    kib[DRM_VDXG_SEGMENT_SYSTEM]);
	/* The other file sees none of it. */
	vtest_assert_eq_u64(fdinfo(other.fd, "drm-memory-vram"), 0);
	vtest_assert_eq_u64(fdinfo(other.fd, "drm-memory-gtt"), 0);

	/* Jobs that take engine time: full-surface triangles, 256 x 256. */
	ctx = vr_ctx(&vr);
	dst = vr_bo(&vr, 256 * 256 * 4, DRM_VDXG_SEGMENT_VRAM, 0);
	vb = vr_bo(&vr, 4096, DRM_VDXG_SEGMENT_VRAM, 0);
	v = vr_map(vb);
	/* Ten times the two halves of the surface. */
	for (j = 0; j < 60; j++) {
		static const int32_t xy[6][2] = {
			{ 0, 0 }, { 1, 0 }, { 0, 1 }, { 1, 0 }, { 1, 1 }, { 0, 1 },
		};

		v[j].x = xy[j % 6][0] * 256 * 16;
		v[j].y = xy[j % 6][1] * 256 * 16;
		v[j].color = 0xff000000 | j * 0x040404;
	}
	start = vr_now();
	for (i = 0; i < 4; i++) {
		vdxg_cs_reset(cs);
		vdxg_cs_set_surface(cs, VDXG_SLOT_DST, dst, 0,
				    DRM_VDXG_ALLOC_WRITE, VDXG_FMT_XRGB8888,
				    256, 256, 1024);
		vdxg_cs_draw_triangles(cs, 0, 60, vb, 0, 0);
		vr_submit(&vr, ctx, cs, NULL);
	}
	vr_bo_wait(dst);
	wall = vr_now() - start;

	/* Accounted when the scheduler frees the job, just after. */
	t1 = fdinfo_change(vr.fd, "drm-engine-render", 0);
	vtest_info("4 jobs: %" PRIu64 " ns of engine time in %.0f ms", t1,
		   wall * 1e3);
	vtest_assert_f(t1 > 0, "no engine time after 4 jobs");
	vtest_assert_eq_u64(fdinfo(other.fd, "drm-engine-render"), 0);

	vr_submit(&vr, ctx, cs, NULL);
	vr_bo_wait(dst);
	t2 = fdinfo_change(vr.fd, "drm-engine-render", t1);
	vtest_assert_lte_u64(t1 + 1, t2);

	/* Freed objects leave the count. */
	vdxg_bo_free(bo[0]);
	vdxg_bo_free(bo[2]);
	vtest_assert_eq_u64(fdinfo(vr.fd, "drm-memory-vram"),
			    kib[DRM_VDXG_SEGMENT_VRAM] - sizes[0] / 1024 +
			    (256 * 256 * 4 + 4096) / 1024);
	vtest_assert_eq_u64(fdinfo(vr.fd, "drm-memory-gtt"), 0);

	vdxg_cs_free(cs);
	vdxg_bo_free(bo[1]);
	vdxg_bo_free(bo[3]);
	vdxg_bo_free(dst);
	vdxg_bo_free(vb);
	vr_close(&other);
	vr_close(&vr);
}

/*
 * Engine time is time the engine spent on the file's jobs: jobs queued
 * behind each other on the ring are not busy at the same time, so the sum
 * of their times cannot exceed the wall time from the first submit to the
 * last completion.
 */
static void test_fdinfo_busy_bound(void)
{
	struct vdxg_bo *dst, *vb;
	struct vr_vertex *v;
	struct vdxg_cs *cs = vr_cs();
	double start, wall;
	uint32_t ctx, i;
	uint64_t busy;
	struct vr vr;

	vr_open(&vr);
	ctx = vr_ctx(&vr);
	dst = vr_bo(&vr, 256 * 256 * 4, DRM_VDXG_SEGMENT_VRAM, 0);
	vb = vr_bo(&vr, 4096, DRM_VDXG_SEGMENT_VRAM, 0);
	v = vr_map(vb);
	for (i = 0; i < 60; i++) {
		static const int32_t xy[6][2] = {
			{ 0, 0 }, { 1, 0 }, { 0, 1 }, { 1, 0 }, { 1, 1 }, { 0, 1 },
		};

		v[i].x = xy[i % 6][0] * 256 * 16;
		v[i].y = xy[i % 6][1] * 256 * 16;
		v[i].color = 0xff000000 | i * 0x040404;
	}
	vdxg_cs_set_surface(cs, VDXG_SLOT_DST, dst, 0, DRM_VDXG_ALLOC_WRITE,
			    VDXG_FMT_XRGB8888, 256, 256, 1024);
	vdxg_cs_draw_triangles(cs, 0, 60, vb, 0, 0);
	/* Warm up (first placement, first patch) outside the window. */
	vr_submit(&vr, ctx, cs, NULL);
	vr_bo_wait(dst);
	busy = fdinfo_change(vr.fd, "drm-engine-render", 0);

	start = vr_now();
	for (i = 0; i < 8; i++)
		vr_submit(&vr, ctx, cs, NULL);
	vr_bo_wait(dst);
	wall = vr_now() - start;
	vr_sleep_ms(500);	/* the scheduler frees the jobs */
	busy = fdinfo(vr.fd, "drm-engine-render") - busy;
	vtest_info("8 queued jobs: %.1f ms of engine time in %.1f ms",
		   busy / 1e6, wall * 1e3);
	vtest_assert_f(busy > 0, "no engine time for 8 jobs");
	vtest_assert_f(busy <= (uint64_t)(wall * 1e9) + 5000000,
		       "%.1f ms of engine time in %.1f ms of wall time: queued "
		       "jobs counted as busy", busy / 1e6, wall * 1e3);

	vdxg_cs_free(cs);
	vdxg_bo_free(dst);
	vdxg_bo_free(vb);
	vr_close(&vr);
}

/* ------------------------------------------------- bad submissions */

struct bad {
	struct vr vr;
	uint32_t ctx;			/* a working context */
	struct vdxg_bo *bo;		/* 64 KiB in VRAM */
	struct vdxg_cs *cs;
	struct drm_vdxg_submit args;
	struct drm_vdxg_patch_location patches[64];
	struct drm_vdxg_allocation allocs[64];
	uint64_t kmsg;			/* problems after this count */
	uint32_t good_ctx;		/* for the valid submit after */
	struct vr other;		/* a second client, when used */
	void *cleanup[4];
};

static void *prot_none_page(void)
{
	void *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	vtest_assert(p != MAP_FAILED);
	return p;
}

/* ARGS from the builder, on the working context. */
static struct drm_vdxg_submit *prep(struct bad *b)
{
	memset(&b->args, 0, sizeof(b->args));
	vtest_assert_ok(vdxg_cs_prepare_submit(b->cs, &b->args));
	b->args.ctx_id = b->ctx;
	return &b->args;
}

/* ARGS with a copy of the patch list, for the row to change. */
static struct drm_vdxg_patch_location *prep_patches(struct bad *b)
{
	uint32_t n;
	const struct drm_vdxg_patch_location *p = vdxg_cs_patches(b->cs, &n);

	prep(b);
	vtest_assert(n <= VTEST_ARRAY_SIZE(b->patches));
	memcpy(b->patches, p, n * sizeof(*p));
	b->args.patches = (uintptr_t)b->patches;
	return b->patches;
}

static int go(struct bad *b)
{
	return vdxg_submit_raw(b->vr.dev, &b->args);
}

static int submit_cs(struct bad *b)
{
	prep(b);
	return go(b);
}

static int raw(struct bad *b, const uint32_t *dw, uint32_t n)
{
	vdxg_cs_emit_raw(b->cs, dw, n);
	return submit_cs(b);
}

#define HDR(op, len)	VDXG_PG_HDR(op, len)

static void dst_surface(struct bad *b, uint32_t flags)
{
	vdxg_cs_set_surface(b->cs, VDXG_SLOT_DST, b->bo, 0, flags,
			    VDXG_FMT_XRGB8888, 64, 64, 256);
}

/* A SET_SURFACE as given, its address patched to B's object. */
static int surface(struct bad *b, uint32_t slot, uint32_t format, uint32_t w,
		   uint32_t h, uint32_t pitch, uint32_t offset, uint32_t flags,
		   uint32_t slot_id)
{
	uint32_t hdr = HDR(VDXG_RD_SET_SURFACE, VDXG_RD_SET_SURFACE_LEN);
	uint32_t rest[4] = { format, w, h, pitch };

	vdxg_cs_emit_raw(b->cs, &hdr, 1);
	vdxg_cs_emit_raw(b->cs, &slot, 1);
	vdxg_cs_emit_address(b->cs, b->bo, offset, flags, slot_id);
	vdxg_cs_emit_raw(b->cs, rest, 4);
	return submit_cs(b);
}

static int bad_unknown_opcode(struct bad *b)
{
	uint32_t dw = HDR(VDXG_RD_NUM_OPS, 1);

	return raw(b, &dw, 1);
}

static int bad_opcode_ff(struct bad *b)
{
	uint32_t dw[2] = { HDR(VDXG_RD_NOP, 1), HDR(0xff, 1) };

	return raw(b, dw, 2);
}

static int bad_header_reserved(struct bad *b)
{
	uint32_t dw = HDR(VDXG_RD_NOP, 1) | 0x100;

	return raw(b, &dw, 1);
}

static int bad_wrong_length(struct bad *b)
{
	uint32_t dw[2] = { HDR(VDXG_RD_NOP, 2), 0 };

	return raw(b, dw, 2);
}

static int bad_zero_length(struct bad *b)
{
	uint32_t dw[2] = { HDR(VDXG_RD_NOP, 0), HDR(VDXG_RD_NOP, 1) };

	return raw(b, dw, 2);
}

static int bad_truncated(struct bad *b)
{
	uint32_t dw[4] = {
		HDR(VDXG_RD_NOP, 1), HDR(VDXG_RD_FILL_RECT, 4), 0, 0x00010001,
	};

	dst_surface(b, DRM_VDXG_ALLOC_WRITE);
	return raw(b, dw, 4);
}

static int bad_draw_reserved_flags(struct bad *b)
{
	dst_surface(b, DRM_VDXG_ALLOC_WRITE);
	vdxg_cs_draw_triangles(b->cs, 0x10, 3, b->bo, 0, 0);
	return submit_cs(b);
}

static int bad_blend_alpha(struct bad *b)
{
	dst_surface(b, DRM_VDXG_ALLOC_WRITE);
	vdxg_cs_set_surface(b->cs, VDXG_SLOT_SRC, b->bo, 32768, 0,
			    VDXG_FMT_XRGB8888, 16, 16, 64);
	vdxg_cs_blend(b->cs, 0, 0, 0, 0, 8, 8, 0x100);
	return submit_cs(b);
}

static int bad_slot(struct bad *b)
{
	return surface(b, VDXG_NUM_SLOTS, VDXG_FMT_XRGB8888, 16, 16, 64, 0,
		       DRM_VDXG_ALLOC_WRITE, VDXG_NUM_SLOTS);
}

static int bad_slot_reserved(struct bad *b)
{
	return surface(b, 0x100 | VDXG_SLOT_DST, VDXG_FMT_XRGB8888, 16, 16, 64,
		       0, DRM_VDXG_ALLOC_WRITE, VDXG_SLOT_DST);
}

static int bad_format(struct bad *b)
{
	return surface(b, VDXG_SLOT_DST, VDXG_NUM_FMTS_3D, 16, 16, 64, 0,
		       DRM_VDXG_ALLOC_WRITE, VDXG_SLOT_DST);
}

static int bad_format_zero(struct bad *b)
{
	return surface(b, VDXG_SLOT_DST, 0, 16, 16, 64, 0,
		       DRM_VDXG_ALLOC_WRITE, VDXG_SLOT_DST);
}

static int bad_depth_colour(struct bad *b)
{
	return surface(b, VDXG_SLOT_DEPTH, VDXG_FMT_ARGB8888, 16, 16, 64, 0,
		       DRM_VDXG_ALLOC_WRITE, VDXG_SLOT_DEPTH);
}

static int bad_dst_d32(struct bad *b)
{
	return surface(b, VDXG_SLOT_DST, VDXG_FMT_D32, 16, 16, 64, 0,
		       DRM_VDXG_ALLOC_WRITE, VDXG_SLOT_DST);
}

static int bad_size_zero(struct bad *b)
{
	return surface(b, VDXG_SLOT_DST, VDXG_FMT_XRGB8888, 0, 16, 64, 0,
		       DRM_VDXG_ALLOC_WRITE, VDXG_SLOT_DST);
}

static int bad_size_large(struct bad *b)
{
	return surface(b, VDXG_SLOT_DST, VDXG_FMT_RGB565, 1, 8193, 4, 0,
		       DRM_VDXG_ALLOC_WRITE, VDXG_SLOT_DST);
}

static int bad_pitch_small(struct bad *b)
{
	return surface(b, VDXG_SLOT_DST, VDXG_FMT_XRGB8888, 16, 16, 60, 0,
		       DRM_VDXG_ALLOC_WRITE, VDXG_SLOT_DST);
}

static int bad_pitch_unaligned(struct bad *b)
{
	return surface(b, VDXG_SLOT_DST, VDXG_FMT_RGB565, 15, 16, 34, 0,
		       DRM_VDXG_ALLOC_WRITE, VDXG_SLOT_DST);
}

static int bad_pitch_large(struct bad *b)
{
	return surface(b, VDXG_SLOT_DST, VDXG_FMT_XRGB8888, 16, 1, 65540, 0,
		       DRM_VDXG_ALLOC_WRITE, VDXG_SLOT_DST);
}

static int bad_surface_misaligned(struct bad *b)
{
	return surface(b, VDXG_SLOT_DST, VDXG_FMT_XRGB8888, 16, 16, 64, 2,
		       DRM_VDXG_ALLOC_WRITE, VDXG_SLOT_DST);
}

static int bad_slot_not_set(struct bad *b)
{
	vdxg_cs_fill_rect(b->cs, 0, 0, 4, 4, 0);
	return submit_cs(b);
}

static int bad_src_not_set(struct bad *b)
{
	dst_surface(b, DRM_VDXG_ALLOC_WRITE);
	vdxg_cs_copy_rect(b->cs, 0, 0, 8, 8, 4, 4);
	return submit_cs(b);
}

static int bad_texture_not_set(struct bad *b)
{
	dst_surface(b, DRM_VDXG_ALLOC_WRITE);
	vdxg_cs_draw_triangles(b->cs, VDXG_DRAW_TEXTURE, 3, b->bo, 0, 0);
	return submit_cs(b);
}

static int bad_depth_not_set(struct bad *b)
{
	dst_surface(b, DRM_VDXG_ALLOC_WRITE);
	vdxg_cs_draw_triangles(b->cs, VDXG_DRAW_DEPTH_TEST, 3, b->bo, 0, 0);
	return submit_cs(b);
}

static int bad_bilinear(struct bad *b)
{
	dst_surface(b, DRM_VDXG_ALLOC_WRITE);
	vdxg_cs_draw_triangles(b->cs, VDXG_DRAW_BILINEAR, 3, b->bo, 0, 0);
	return submit_cs(b);
}

static int bad_vertex_count(struct bad *b)
{
	dst_surface(b, DRM_VDXG_ALLOC_WRITE);
	vdxg_cs_draw_triangles(b->cs, 0, 4, b->bo, 0, 0);
	return submit_cs(b);
}

static int bad_vertex_count_zero(struct bad *b)
{
	dst_surface(b, DRM_VDXG_ALLOC_WRITE);
	vdxg_cs_draw_triangles(b->cs, 0, 0, b->bo, 0, 0);
	return submit_cs(b);
}

static int bad_vertex_count_max(struct bad *b)
{
	dst_surface(b, DRM_VDXG_ALLOC_WRITE);
	vdxg_cs_draw_triangles(b->cs, 0, VDXG_DRAW_MAX_VERTICES + 3, b->bo, 0,
			       0);
	return submit_cs(b);
}

static int bad_address_without_patch(struct bad *b)
{
	uint32_t dw[5] = { HDR(VDXG_RD_FENCE, 5), 0, 0, 1, 0 };
	struct drm_vdxg_allocation a = {
		.handle = b->bo->handle, .flags = DRM_VDXG_ALLOC_WRITE,
	};

	vdxg_cs_add_raw_allocation(b->cs, &a);
	return raw(b, dw, 5);
}

/* A valid FENCE; the rows then change its patch list. */
static struct drm_vdxg_patch_location *fence_patches(struct bad *b)
{
	vdxg_cs_nop(b->cs);
	vdxg_cs_fence(b->cs, b->bo, 8, DRM_VDXG_ALLOC_WRITE, 1);
	vdxg_cs_nop(b->cs);
	return prep_patches(b);
}

static int bad_patch_outside(struct bad *b)
{
	struct drm_vdxg_patch_location *p = fence_patches(b);

	p[1] = p[0];
	p[1].patch_offset = b->args.command_size;
	b->args.num_patches = 2;
	return go(b);
}

static int bad_patch_last_dword(struct bad *b)
{
	struct drm_vdxg_patch_location *p = fence_patches(b);

	p[1] = p[0];
	p[1].patch_offset = b->args.command_size - 4;
	b->args.num_patches = 2;
	return go(b);
}

static int bad_patch_huge_offset(struct bad *b)
{
	struct drm_vdxg_patch_location *p = fence_patches(b);

	p[0].patch_offset = 0xfffffffc;
	return go(b);
}

static int bad_patch_misaligned(struct bad *b)
{
	struct drm_vdxg_patch_location *p = fence_patches(b);

	p[0].patch_offset += 2;
	return go(b);
}

static int bad_patch_not_address(struct bad *b)
{
	struct drm_vdxg_patch_location *p = fence_patches(b);

	/* On the FENCE's value, an extra patch. */
	p[1] = p[0];
	p[1].patch_offset = p[0].patch_offset + 8;
	b->args.num_patches = 2;
	return go(b);
}

static int bad_patch_on_header(struct bad *b)
{
	struct drm_vdxg_patch_location *p = fence_patches(b);

	p[0].patch_offset = 4;	/* the FENCE's header, not its address */
	return go(b);
}

static int bad_patch_duplicated(struct bad *b)
{
	struct drm_vdxg_patch_location *p = fence_patches(b);

	p[1] = p[0];
	b->args.num_patches = 2;
	return go(b);
}

static int bad_patch_missing(struct bad *b)
{
	fence_patches(b);
	b->args.num_patches = 0;
	return go(b);
}

static int bad_patch_slot_id(struct bad *b)
{
	struct drm_vdxg_patch_location *p;

	dst_surface(b, DRM_VDXG_ALLOC_WRITE);
	p = prep_patches(b);
	p[0].slot_id = VDXG_SLOT_SRC;
	return go(b);
}

static int bad_patch_fence_slot_id(struct bad *b)
{
	struct drm_vdxg_patch_location *p = fence_patches(b);

	p[0].slot_id = VDXG_SLOT_TEXTURE;
	return go(b);
}

/* The field itself: inside its command, not a command boundary. */
static int bad_patch_split(struct bad *b)
{
	struct drm_vdxg_patch_location *p = fence_patches(b);

	p[0].split_offset = p[0].patch_offset;
	return go(b);
}

static int bad_alloc_index(struct bad *b)
{
	struct drm_vdxg_patch_location *p = fence_patches(b);

	p[0].allocation_index = b->args.num_allocations;
	return go(b);
}

static int bad_alloc_index_huge(struct bad *b)
{
	struct drm_vdxg_patch_location *p = fence_patches(b);

	p[0].allocation_index = 0xffffffff;
	return go(b);
}

static int bad_alloc_offset(struct bad *b)
{
	struct drm_vdxg_patch_location *p = fence_patches(b);

	p[0].allocation_offset = b->bo->size;
	return go(b);
}

static int bad_fence_past_end(struct bad *b)
{
	vdxg_cs_fence(b->cs, b->bo, b->bo->size - 4, DRM_VDXG_ALLOC_WRITE, 1);
	return submit_cs(b);
}

static int bad_fence_misaligned(struct bad *b)
{
	vdxg_cs_fence(b->cs, b->bo, 4, DRM_VDXG_ALLOC_WRITE, 1);
	return submit_cs(b);
}

static int bad_surface_past_end(struct bad *b)
{
	/* 128 rows of 512 bytes from 16 KiB into 64 KiB: 16 KiB too far. */
	return surface(b, VDXG_SLOT_DST, VDXG_FMT_XRGB8888, 128, 128, 512,
		       16384, DRM_VDXG_ALLOC_WRITE, VDXG_SLOT_DST);
}

static int bad_surface_extent_huge(struct bad *b)
{
	/* pitch * (height - 1): half a GiB from a 64 KiB object. */
	return surface(b, VDXG_SLOT_SRC, VDXG_FMT_XRGB8888, 8192, 8192, 65536,
		       0, 0, VDXG_SLOT_SRC);
}

static int bad_vertices_past_end(struct bad *b)
{
	dst_surface(b, DRM_VDXG_ALLOC_WRITE);
	/* 2049 vertices of 32 bytes from 512 bytes into 64 KiB. */
	vdxg_cs_draw_triangles(b->cs, 0, 2049, b->bo, 512, 0);
	return submit_cs(b);
}

static int bad_handle(struct bad *b)
{
	struct drm_vdxg_allocation *a;

	vdxg_cs_fence(b->cs, b->bo, 0, DRM_VDXG_ALLOC_WRITE, 1);
	prep(b);
	a = (struct drm_vdxg_allocation *)(uintptr_t)b->args.allocations;
	a[0].handle = 0xdead;
	return go(b);
}

static int bad_handle_zero(struct bad *b)
{
	struct drm_vdxg_allocation *a;

	vdxg_cs_fence(b->cs, b->bo, 0, DRM_VDXG_ALLOC_WRITE, 1);
	prep(b);
	a = (struct drm_vdxg_allocation *)(uintptr_t)b->args.allocations;
	a[0].handle = 0;
	return go(b);
}

/* A handle of another client, whose number is no handle here. */
static int bad_foreign_handle(struct bad *b)
{
	struct vdxg_bo *mine[8], *theirs[16];
	struct drm_vdxg_allocation *a;
	uint32_t max = b->bo->handle;
	int i, ret;

	vr_open(&b->other);
	for (i = 0; i < 16; i++)
		theirs[i] = vr_bo(&b->other, 4096, DRM_VDXG_SEGMENT_VRAM, 0);
	for (i = 0; i < 8; i++) {
		mine[i] = vr_bo(&b->vr, 4096, DRM_VDXG_SEGMENT_VRAM, 0);
		if (mine[i]->handle > max)
			max = mine[i]->handle;
	}
	vtest_assert_lte_u64(max + 1, theirs[15]->handle);
	vdxg_cs_fence(b->cs, b->bo, 0, DRM_VDXG_ALLOC_WRITE, 1);
	prep(b);
	a = (struct drm_vdxg_allocation *)(uintptr_t)b->args.allocations;
	a[0].handle = theirs[15]->handle;
	ret = go(b);
	for (i = 0; i < 8; i++)
		vdxg_bo_free(mine[i]);
	for (i = 0; i < 16; i++)
		vdxg_bo_free(theirs[i]);
	return ret;
}

static int bad_system_only(struct bad *b)
{
	struct vdxg_bo *sys = vr_bo(&b->vr, 4096, DRM_VDXG_SEGMENT_SYSTEM, 0);
	int ret;

	vdxg_cs_fence(b->cs, sys, 0, DRM_VDXG_ALLOC_WRITE, 1);
	ret = submit_cs(b);
	vdxg_bo_free(sys);
	return ret;
}

static int bad_empty(struct bad *b)
{
	vdxg_cs_nop(b->cs);
	prep(b)->command_size = 0;
	return go(b);
}

static int bad_size_unaligned(struct bad *b)
{
	vdxg_cs_nop(b->cs);
	vdxg_cs_nop(b->cs);
	prep(b)->command_size = 6;
	return go(b);
}

static int bad_oversized(struct bad *b)
{
	uint32_t n = b->vr.max_command_size / 4 + 1, i;
	uint32_t *dw = malloc(n * 4);
	int ret;

	vtest_assert(dw);
	for (i = 0; i < n; i++)
		dw[i] = HDR(VDXG_RD_NOP, 1);
	ret = raw(b, dw, n);
	free(dw);
	return ret;
}

static int bad_max_size_ok(struct bad *b)
{
	uint32_t n = b->vr.max_command_size / 4, i;
	uint32_t *dw = malloc(n * 4);
	int ret;

	vtest_assert(dw);
	for (i = 0; i < n; i++)
		dw[i] = HDR(VDXG_RD_NOP, 1);
	ret = raw(b, dw, n);
	free(dw);
	return ret;
}

static int bad_too_many_allocations(struct bad *b)
{
	uint32_t n = b->vr.max_allocations + 1, i;
	struct drm_vdxg_allocation *a = calloc(n, sizeof(*a));
	int ret;

	vtest_assert(a);
	for (i = 0; i < n; i++)
		a[i].handle = b->bo->handle;
	vdxg_cs_nop(b->cs);
	prep(b);
	b->args.allocations = (uintptr_t)a;
	b->args.num_allocations = n;
	ret = go(b);
	free(a);
	return ret;
}

static int bad_too_many_patches(struct bad *b)
{
	uint32_t n = b->vr.max_patches + 1;
	struct drm_vdxg_patch_location *p = calloc(n, sizeof(*p));
	int ret;

	vtest_assert(p);
	vdxg_cs_fence(b->cs, b->bo, 0, DRM_VDXG_ALLOC_WRITE, 1);
	prep(b);
	b->args.patches = (uintptr_t)p;
	b->args.num_patches = n;
	ret = go(b);
	free(p);
	return ret;
}

static int syncs(struct bad *b, bool in, uint32_t n, uint32_t handle,
		 uint32_t flags)
{
	struct drm_vdxg_sync s[DRM_VDXG_MAX_SYNCS + 1];
	uint32_t i;

	for (i = 0; i < n; i++)
		s[i] = (struct drm_vdxg_sync){ handle, flags, 0 };
	vdxg_cs_fence(b->cs, b->bo, 0, DRM_VDXG_ALLOC_WRITE, 1);
	prep(b);
	if (in) {
		b->args.in_syncs = (uintptr_t)s;
		b->args.num_in_syncs = n;
	} else {
		b->args.out_syncs = (uintptr_t)s;
		b->args.num_out_syncs = n;
	}
	return go(b);
}

static int bad_too_many_in_syncs(struct bad *b)
{
	return syncs(b, true, DRM_VDXG_MAX_SYNCS + 1,
		     vr_syncobj(&b->vr, true), 0);
}

static int bad_too_many_out_syncs(struct bad *b)
{
	return syncs(b, false, DRM_VDXG_MAX_SYNCS + 1,
		     vr_syncobj(&b->vr, false), 0);
}

static int bad_in_syncobj(struct bad *b)
{
	return syncs(b, true, 1, 0xdead, 0);
}

static int bad_out_syncobj(struct bad *b)
{
	return syncs(b, false, 1, 0xdead, 0);
}

static int bad_in_sync_flags(struct bad *b)
{
	return syncs(b, true, 1, vr_syncobj(&b->vr, true), 1);
}

static int bad_out_sync_flags(struct bad *b)
{
	return syncs(b, false, 1, vr_syncobj(&b->vr, false), 1);
}

static int bad_in_syncobj_unsubmitted(struct bad *b)
{
	/* A syncobj with no fence at all: nothing to wait for, ever. */
	return syncs(b, true, 1, vr_syncobj(&b->vr, false), 0);
}

static int bad_submit_flags(struct bad *b)
{
	vdxg_cs_nop(b->cs);
	prep(b)->flags = ~(uint32_t)DRM_VDXG_SUBMIT_FLAGS;
	return go(b);
}

static int bad_alloc_flags(struct bad *b)
{
	struct drm_vdxg_allocation *a;

	vdxg_cs_fence(b->cs, b->bo, 0, DRM_VDXG_ALLOC_WRITE, 1);
	prep(b);
	a = (struct drm_vdxg_allocation *)(uintptr_t)b->args.allocations;
	a[0].flags |= 0x100;
	return go(b);
}

static int bad_banned_context(struct bad *b)
{
	struct vdxg_bo *dst, *vb;
	uint32_t ctx = vr_ctx(&b->vr);

	vr_ignore_dmesg(VR_RESET_DMESG "|callbacks suppressed");
	vr_cs_fault(&b->vr, b->cs, &dst, &vb);
	vr_submit(&b->vr, ctx, b->cs, NULL);
	vr_wait_banned(&b->vr, ctx);
	vr_bo_wait(dst);
	vdxg_bo_free(dst);
	vdxg_bo_free(vb);
	b->kmsg = vtest_kmsg_seq();

	vdxg_cs_reset(b->cs);
	vdxg_cs_fence(b->cs, b->bo, 0, DRM_VDXG_ALLOC_WRITE, 1);
	prep(b)->ctx_id = ctx;
	return go(b);
}

static int bad_unknown_context(struct bad *b)
{
	vdxg_cs_nop(b->cs);
	prep(b)->ctx_id = 0x7777;
	return go(b);
}

static int bad_context_zero(struct bad *b)
{
	vdxg_cs_nop(b->cs);
	prep(b)->ctx_id = 0;
	return go(b);
}

static int bad_destroyed_context(struct bad *b)
{
	uint32_t ctx = vr_ctx(&b->vr);

	vtest_assert_eq(vdxg_context_destroy(b->vr.dev, ctx), 0);
	vdxg_cs_nop(b->cs);
	prep(b)->ctx_id = ctx;
	return go(b);
}

static int bad_foreign_context(struct bad *b)
{
	uint32_t theirs = 0;
	int i;

	vr_open(&b->other);
	for (i = 0; i < 4; i++)
		theirs = vr_ctx(&b->other);
	vtest_assert_lte_u64(b->ctx + 1, theirs);
	vdxg_cs_nop(b->cs);
	prep(b)->ctx_id = theirs;
	return go(b);
}

static int bad_commands_pointer(struct bad *b)
{
	vdxg_cs_nop(b->cs);
	prep(b)->commands = (uintptr_t)prot_none_page();
	return go(b);
}

static int bad_commands_partly_unmapped(struct bad *b)
{
	uint8_t *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint32_t *dw;
	int i;

	vtest_assert(p != MAP_FAILED);
	vtest_assert_ok(mprotect(p + 4096, 4096, PROT_NONE));
	dw = (uint32_t *)(p + 4096 - 64);
	for (i = 0; i < 16; i++)
		dw[i] = HDR(VDXG_RD_NOP, 1);
	vdxg_cs_nop(b->cs);
	prep(b)->commands = (uintptr_t)dw;
	b->args.command_size = 128;	/* 64 bytes past the mapping */
	return go(b);
}

static int bad_allocations_pointer(struct bad *b)
{
	vdxg_cs_fence(b->cs, b->bo, 0, DRM_VDXG_ALLOC_WRITE, 1);
	prep(b)->allocations = (uintptr_t)prot_none_page();
	return go(b);
}

static int bad_patches_pointer(struct bad *b)
{
	vdxg_cs_fence(b->cs, b->bo, 0, DRM_VDXG_ALLOC_WRITE, 1);
	prep(b)->patches = (uintptr_t)prot_none_page();
	return go(b);
}

static int bad_in_syncs_pointer(struct bad *b)
{
	vdxg_cs_nop(b->cs);
	prep(b)->in_syncs = (uintptr_t)prot_none_page();
	b->args.num_in_syncs = 1;
	return go(b);
}

static int bad_out_syncs_pointer(struct bad *b)
{
	vdxg_cs_nop(b->cs);
	prep(b)->out_syncs = (uintptr_t)prot_none_page();
	b->args.num_out_syncs = 1;
	return go(b);
}

static int bad_duplicated_allocation(struct bad *b)
{
	struct drm_vdxg_allocation a = {
		.handle = b->bo->handle, .flags = DRM_VDXG_ALLOC_WRITE,
	};

	vdxg_cs_fence(b->cs, b->bo, 0, DRM_VDXG_ALLOC_WRITE, 1);
	vdxg_cs_add_raw_allocation(b->cs, &a);
	return submit_cs(b);
}

static int bad_fence_read_only(struct bad *b)
{
	vdxg_cs_fence(b->cs, b->bo, 0, 0, 1);
	return submit_cs(b);
}

static int bad_dst_read_only(struct bad *b)
{
	dst_surface(b, 0);
	vdxg_cs_fill_rect(b->cs, 0, 0, 1, 1, 0);
	return submit_cs(b);
}

static int bad_depth_read_only(struct bad *b)
{
	return surface(b, VDXG_SLOT_DEPTH, VDXG_FMT_D32, 16, 16, 64, 0, 0,
		       VDXG_SLOT_DEPTH);
}

static int bad_fill_outside(struct bad *b)
{
	dst_surface(b, DRM_VDXG_ALLOC_WRITE);
	vdxg_cs_fill_rect(b->cs, 60, 0, 5, 1, 0);
	return submit_cs(b);
}

static int bad_fill_below(struct bad *b)
{
	dst_surface(b, DRM_VDXG_ALLOC_WRITE);
	vdxg_cs_fill_rect(b->cs, 0, 64, 1, 1, 0);
	return submit_cs(b);
}

static int bad_copy_src_outside(struct bad *b)
{
	dst_surface(b, DRM_VDXG_ALLOC_WRITE);
	vdxg_cs_set_surface(b->cs, VDXG_SLOT_SRC, b->bo, 32768, 0,
			    VDXG_FMT_XRGB8888, 16, 16, 64);
	vdxg_cs_copy_rect(b->cs, 8, 8, 0, 0, 9, 8);
	return submit_cs(b);
}

static int bad_blend_dst_outside(struct bad *b)
{
	dst_surface(b, DRM_VDXG_ALLOC_WRITE);
	vdxg_cs_set_surface(b->cs, VDXG_SLOT_SRC, b->bo, 32768, 0,
			    VDXG_FMT_XRGB8888, 16, 16, 64);
	vdxg_cs_blend(b->cs, 0, 0, 60, 60, 8, 8, 255);
	return submit_cs(b);
}

static int depth_draw(struct bad *b, uint32_t w, uint32_t h)
{
	/* The object is new, so zero: the vertices are degenerate. */
	dst_surface(b, DRM_VDXG_ALLOC_WRITE);
	vdxg_cs_set_surface(b->cs, VDXG_SLOT_DEPTH, b->bo, 24576,
			    DRM_VDXG_ALLOC_WRITE, VDXG_FMT_D32, w, h, 4 * w);
	vdxg_cs_draw_triangles(b->cs, VDXG_DRAW_DEPTH_TEST, 3, b->bo, 0, 0);
	return submit_cs(b);
}

static int bad_depth_smaller(struct bad *b)
{
	return depth_draw(b, 64, 63);
}

static int bad_depth_larger_ok(struct bad *b)
{
	return depth_draw(b, 65, 70);
}

/*
 * The table: function, subtest name, errno, whether the command parser
 * rejects it (debugfs "rejected" counts exactly those), description.
 */
#define BAD_ROWS(X) \
	X(unknown_opcode, "unknown-opcode", EINVAL, 1, "opcode 0x08") \
	X(opcode_ff, "opcode-0xff", EINVAL, 1, "opcode 0xff after a NOP") \
	X(header_reserved, "header-reserved-bits", EINVAL, 1, "header bits 15:8 set") \
	X(wrong_length, "wrong-length", EINVAL, 1, "a NOP of 2 dwords") \
	X(zero_length, "zero-length", EINVAL, 1, "a header of length 0") \
	X(truncated, "truncated-command", EINVAL, 1, "FILL_RECT cut after 3 dwords") \
	X(draw_reserved_flags, "draw-reserved-flags", EINVAL, 1, "DRAW_TRIANGLES flag bit 4") \
	X(blend_alpha, "blend-alpha-reserved", EINVAL, 1, "BLEND alpha 256") \
	X(slot, "surface-bad-slot", EINVAL, 1, "SET_SURFACE slot 4") \
	X(slot_reserved, "surface-slot-reserved-bits", EINVAL, 1, "SET_SURFACE slot bit 8") \
	X(format, "surface-bad-format", EINVAL, 1, "format 5") \
	X(format_zero, "surface-format-zero", EINVAL, 1, "format 0") \
	X(depth_colour, "depth-colour-format", EINVAL, 1, "DEPTH in ARGB8888") \
	X(dst_d32, "dst-d32", EINVAL, 1, "DST in D32") \
	X(size_zero, "surface-width-zero", EINVAL, 1, "width 0") \
	X(size_large, "surface-height-8193", EINVAL, 1, "height 8193") \
	X(pitch_small, "pitch-below-row", EINVAL, 1, "pitch under width x cpp") \
	X(pitch_unaligned, "pitch-unaligned", EINVAL, 1, "pitch 34") \
	X(pitch_large, "pitch-above-64k", EINVAL, 1, "pitch 65540") \
	X(surface_misaligned, "surface-misaligned", EINVAL, 1, "XRGB8888 at byte 2") \
	X(slot_not_set, "dst-not-set", EINVAL, 1, "FILL_RECT without DST") \
	X(src_not_set, "src-not-set", EINVAL, 1, "COPY_RECT without SRC") \
	X(texture_not_set, "texture-not-set", EINVAL, 1, "TEXTURE draw without TEXTURE") \
	X(depth_not_set, "depth-not-set", EINVAL, 1, "DEPTH_TEST draw without DEPTH") \
	X(bilinear, "bilinear-without-texture", EINVAL, 1, "BILINEAR alone") \
	X(vertex_count, "vertex-count-4", EINVAL, 1, "4 vertices") \
	X(vertex_count_zero, "vertex-count-0", EINVAL, 1, "0 vertices") \
	X(vertex_count_max, "vertex-count-over-max", EINVAL, 1, "196611 vertices") \
	X(address_without_patch, "address-without-patch", EINVAL, 1, "a FENCE address no patch names") \
	X(patch_missing, "patch-list-empty", EINVAL, 1, "a FENCE with its patch list dropped") \
	X(patch_outside, "patch-outside-buffer", EINVAL, 1, "patch offset = buffer size") \
	X(patch_last_dword, "patch-last-dword", EINVAL, 1, "patch on the last dword") \
	X(patch_huge_offset, "patch-offset-huge", EINVAL, 1, "patch offset 0xfffffffc") \
	X(patch_misaligned, "patch-misaligned", EINVAL, 1, "patch offset not a multiple of 4") \
	X(patch_not_address, "patch-not-on-address", EINVAL, 1, "patch on a FENCE value") \
	X(patch_on_header, "patch-on-header", EINVAL, 1, "patch on a header") \
	X(patch_duplicated, "patch-duplicated", EINVAL, 1, "the same patch twice") \
	X(patch_slot_id, "patch-wrong-slot", EINVAL, 1, "DST address patched as SRC") \
	X(patch_fence_slot_id, "patch-slot-on-fence", EINVAL, 1, "a FENCE patch with a slot id") \
	X(patch_split, "patch-split-offset", EINVAL, 1, \
	  "a split offset inside a command") \
	X(alloc_index, "allocation-index-out-of-range", EINVAL, 1, "index = list length") \
	X(alloc_index_huge, "allocation-index-huge", EINVAL, 1, "index 0xffffffff") \
	X(alloc_offset, "allocation-offset-past-object", ERANGE, 1, "offset = object size") \
	X(fence_past_end, "fence-past-object", ERANGE, 1, "FENCE on the last 4 bytes") \
	X(fence_misaligned, "fence-misaligned", EINVAL, 1, "FENCE at byte 4") \
	X(surface_past_end, "surface-past-object", ERANGE, 1, "surface 16 KiB past the end") \
	X(surface_extent_huge, "surface-extent-huge", ERANGE, 1, "8192x8192, pitch 64 KiB") \
	X(vertices_past_end, "vertices-past-object", ERANGE, 1, "2049 vertices in 64 KiB") \
	X(fence_read_only, "fence-read-only", EACCES, 1, "FENCE through a read allocation") \
	X(dst_read_only, "dst-read-only", EACCES, 1, "DST through a read allocation") \
	X(depth_read_only, "depth-read-only", EACCES, 1, "DEPTH through a read allocation") \
	X(fill_outside, "fill-outside-surface", ERANGE, 1, "x + w = width + 1") \
	X(fill_below, "fill-below-surface", ERANGE, 1, "y = height") \
	X(copy_src_outside, "copy-src-outside-surface", ERANGE, 1, "source past SRC") \
	X(blend_dst_outside, "blend-dst-outside-surface", ERANGE, 1, "destination past DST") \
	X(depth_smaller, "depth-smaller-than-dst", ERANGE, 1, "a 64x63 DEPTH for a 64x64 DST") \
	X(handle, "invalid-handle", ENOENT, 0, "handle 0xdead") \
	X(handle_zero, "handle-zero", ENOENT, 0, "handle 0") \
	X(foreign_handle, "foreign-handle", ENOENT, 0, "another client's handle") \
	X(system_only, "system-only-object", EINVAL, 0, "an object the engines cannot reach") \
	X(alloc_flags, "allocation-flags", EINVAL, 0, "allocation flag 0x100") \
	X(duplicated_allocation, "duplicated-allocation", EINVAL, 0, "one object listed twice") \
	X(empty, "empty-buffer", EINVAL, 0, "command size 0") \
	X(size_unaligned, "size-not-dwords", EINVAL, 0, "command size 6") \
	X(oversized, "oversized-buffer", E2BIG, 0, "MAX_COMMAND_SIZE + 4 bytes") \
	X(too_many_allocations, "too-many-allocations", E2BIG, 0, "MAX_ALLOCATIONS + 1") \
	X(too_many_patches, "too-many-patches", E2BIG, 0, "MAX_PATCHES + 1") \
	X(too_many_in_syncs, "too-many-in-syncs", E2BIG, 0, "65 in-syncobjs") \
	X(too_many_out_syncs, "too-many-out-syncs", E2BIG, 0, "65 out-syncobjs") \
	X(in_syncobj, "bad-in-syncobj", ENOENT, 0, "in-syncobj 0xdead") \
	X(out_syncobj, "bad-out-syncobj", ENOENT, 0, "out-syncobj 0xdead") \
	X(in_sync_flags, "in-sync-flags", EINVAL, 0, "in-sync flags 1") \
	X(out_sync_flags, "out-sync-flags", EINVAL, 0, "out-sync flags 1") \
	X(in_syncobj_unsubmitted, "in-syncobj-without-fence", EINVAL, 0, "an in-syncobj never signalled nor submitted") \
	X(submit_flags, "submit-flags", EINVAL, 0, "every unknown flag") \
	X(banned_context, "banned-context", EIO, 0, "a context banned by a GPU fault") \
	X(unknown_context, "unknown-context", ENOENT, 0, "context 0x7777") \
	X(context_zero, "context-zero", ENOENT, 0, "context 0") \
	X(destroyed_context, "destroyed-context", ENOENT, 0, "a destroyed context") \
	X(foreign_context, "foreign-context", ENOENT, 0, "another client's context id") \
	X(commands_pointer, "bad-commands-pointer", EFAULT, 0, "commands in a PROT_NONE page") \
	X(commands_partly_unmapped, "commands-past-mapping", EFAULT, 0, "commands running into a PROT_NONE page") \
	X(allocations_pointer, "bad-allocations-pointer", EFAULT, 0, "allocation list in a PROT_NONE page") \
	X(patches_pointer, "bad-patches-pointer", EFAULT, 0, "patch list in a PROT_NONE page") \
	X(in_syncs_pointer, "bad-in-syncs-pointer", EFAULT, 0, "in-syncs in a PROT_NONE page") \
	X(out_syncs_pointer, "bad-out-syncs-pointer", EFAULT, 0, "out-syncs in a PROT_NONE page") \
	X(max_size_ok, "max-size-accepted", 0, 0, "MAX_COMMAND_SIZE bytes of NOPs: accepted") \
	X(depth_larger_ok, "depth-larger-accepted", 0, 0, "a 65x70 DEPTH for a 64x64 DST: accepted")

static void run_bad(const char *name, int (*fn)(struct bad *), int err,
		    bool parser, const char *desc)
{
	uint64_t rejected;
	struct bad *b = calloc(1, sizeof(*b));
	int ret, n;

	vtest_assert(b);
	vr_open(&b->vr);
	b->ctx = b->good_ctx = vr_ctx(&b->vr);
	b->bo = vr_bo(&b->vr, 64 << 10, DRM_VDXG_SEGMENT_VRAM, 0);
	b->cs = vr_cs();
	b->kmsg = vtest_kmsg_seq();
	rejected = vr_debugfs(&b->vr, "render", "rejected");

	vtest_info("%s: %s, expecting %s", name, desc,
		   err ? strerror(err) : "success");
	ret = fn(b);
	vtest_assert_f(ret == -err, "%s (%s): SUBMIT returned %d (%s), "
		       "expected %d (%s)", name, desc, ret, strerror(-ret),
		       -err, strerror(err));
	if (parser)
		vtest_assert_eq_u64(vr_debugfs(&b->vr, "render", "rejected"),
				    rejected + 1);

	/* The file and its context still work. */
	vr_fence_check(&b->vr, b->good_ctx, b->bo, 64, 0x600d0000 + err);
	n = vtest_kmsg_problems(b->kmsg);
	vtest_assert_f(n == 0, "%d kernel log problem(s) after %s", n, name);

	vdxg_cs_free(b->cs);
	vdxg_bo_free(b->bo);
	if (b->other.dev)
		vr_close(&b->other);
	vr_close(&b->vr);
	free(b);
}

/* -------------------------------------------------- split and signals */

#define SIG_TARGET	((uint64_t)64 << 20)
#define SIG_SURF	64
#define SIG_SURF_BYTES	(SIG_SURF * SIG_SURF * 4)
#define SIG_MAX		8

/*
 * A split SUBMIT: N targets of 64 MiB that the engines reach in VRAM
 * only, a split point before each, a fill of a 64 x 64 surface at each
 * target's end and a fence write of MARK + k into a page of the aperture.
 */
struct sig_job {
	struct vr *vr;
	int n;
	struct vdxg_bo *t[SIG_MAX];
	uint8_t *map[SIG_MAX];
	uint8_t *ref[SIG_MAX];
	struct vdxg_bo *fence;
	uint8_t *fmap;
};

static void sig_job_init(struct sig_job *j, struct vr *vr, int n)
{
	int k;

	memset(j, 0, sizeof(*j));
	j->vr = vr;
	j->n = n;
	for (k = 0; k < n; k++) {
		j->t[k] = vr_bo(vr, SIG_TARGET, DRM_VDXG_SEGMENT_VRAM,
				DRM_VDXG_SEGMENT_SYSTEM);
		j->map[k] = vr_map(j->t[k]);
		j->ref[k] = calloc(1, SIG_SURF_BYTES);
		vtest_assert(j->ref[k]);
	}
	j->fence = vr_bo(vr, 4096, DRM_VDXG_SEGMENT_APERTURE, 0);
	j->fmap = vr_map(j->fence);
	memset(j->fmap, 0, 4096);
}

static void sig_job_fini(struct sig_job *j)
{
	int k;

	for (k = 0; k < j->n; k++) {
		vdxg_bo_free(j->t[k]);
		free(j->ref[k]);
	}
	vdxg_bo_free(j->fence);
}

static struct vdxg_cs *sig_job_build(struct sig_job *j, uint64_t mark)
{
	struct vdxg_cs *cs = vr_cs();
	int k;

	for (k = 0; k < j->n; k++) {
		struct vdxg_ref_surface rd = {
			.data = j->ref[k], .format = VDXG_FMT_XRGB8888,
			.width = SIG_SURF, .height = SIG_SURF,
			.pitch = SIG_SURF * 4,
		};
		uint32_t col = 0xff000000u ^ (uint32_t)(mark * 0x9e3779b9u) ^
			       (k * 0x010305u);

		vdxg_cs_split_point(cs);
		vdxg_cs_set_surface(cs, VDXG_SLOT_DST, j->t[k],
				    SIG_TARGET - SIG_SURF_BYTES,
				    DRM_VDXG_ALLOC_WRITE, VDXG_FMT_XRGB8888,
				    SIG_SURF, SIG_SURF, SIG_SURF * 4);
		vdxg_cs_fill_rect(cs, 0, 0, SIG_SURF, SIG_SURF, col);
		vdxg_ref_fill_rect(&rd, 0, 0, SIG_SURF, SIG_SURF, col);
		vdxg_cs_fence(cs, j->fence, 8 * k, DRM_VDXG_ALLOC_WRITE,
			      mark + k);
	}
	return cs;
}

/* Every piece's work landed: each surface, each fence write. */
static void sig_job_check(struct sig_job *j, uint64_t mark)
{
	int k;

	for (k = 0; k < j->n; k++) {
		const uint8_t *surf = j->map[k] + SIG_TARGET - SIG_SURF_BYTES;

		vr_bo_wait(j->t[k]);
		vtest_assert_f(!memcmp(surf, j->ref[k], SIG_SURF_BYTES),
			       "target %d: pixel (0, 0) is 0x%08x, want 0x%08x",
			       k, *(const uint32_t *)surf,
			       *(const uint32_t *)j->ref[k]);
		vtest_assert_eq_u64(vr_read64(j->fmap, 8 * k), mark + k);
	}
}

/*
 * Submits split jobs back to back until told to stop, checking every
 * eighth: a rival that holds split_lock most of the time.
 */
static void sig_rival(volatile int *stop, int n)
{
	struct sig_job j;
	uint64_t mark = 0x7700000000ull;
	uint32_t ctx;
	struct vr vr;
	int i;

	vr_open(&vr);
	ctx = vr_ctx(&vr);
	sig_job_init(&j, &vr, n);
	for (i = 1; !*stop; i++) {
		struct vdxg_cs *cs = sig_job_build(&j, mark);

		vr_submit(&vr, ctx, cs, NULL);
		vdxg_cs_free(cs);
		if (!(i % 8))
			sig_job_check(&j, mark);
		mark += 0x100000000ull;
	}
	sig_job_fini(&j);
	vr_close(&vr);
}

struct sig_poker {
	pthread_t target;
	const uint8_t *fmap;
	uint64_t mark;
	volatile int done;
	int sent;
};

static void sig_nop(int sig)
{
	(void)sig;
}

/*
 * Once the first piece has run (its fence write is there), signal the
 * submitting thread every 100 us until its ioctl returns.
 */
static void *sig_poke(void *arg)
{
	struct sig_poker *p = arg;

	while (!p->done && vr_read64(p->fmap, 0) != p->mark)
		usleep(20);
	while (!p->done) {
		pthread_kill(p->target, SIGUSR1);
		p->sent++;
		usleep(100);
	}
	return NULL;
}

/*
 * Once its first piece is queued, a split SUBMIT runs to its end whatever
 * signals come: its later pieces, which wait for split_lock behind
 * another process's split jobs, are not cut short with -EINTR on the
 * job's fence. The ioctl returns 0 and the out-syncobj signals without
 * error, every piece's pixels and fence writes landed. Rounds in which no
 * signal came during the ioctl (the first piece ran after the others were
 * queued) prove nothing and are not counted.
 */
static void test_split_signals(void)
{
	struct sigaction sa = { .sa_handler = sig_nop };
	volatile int *stop;
	int per, n, round, hit = 0, status;
	struct sig_job j;
	uint32_t ctx;
	struct vr vr;
	pid_t pid;

	vr_open(&vr);
	ctx = vr_ctx(&vr);
	per = (int)(vr_debugfs(&vr, "segments", "room_vram") / SIG_TARGET);
	vtest_require_f(per >= 1 && per < SIG_MAX,
			"VRAM holds %d targets of 64 MiB", per);
	n = per + 1;
	vtest_assert_ok(sigaction(SIGUSR1, &sa, NULL));
	stop = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	vtest_assert(stop != MAP_FAILED);
	*stop = 0;
	pid = fork();
	vtest_assert(pid >= 0);
	if (!pid) {
		/* Gone with the test, however it ends. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(1);
		sig_rival(stop, n);
		_exit(0);
	}

	sig_job_init(&j, &vr, n);
	for (round = 0; round < 24 && hit < 8; round++) {
		uint64_t mark = ((uint64_t)(round + 1) << 32) | 0x5100;
		uint32_t sync = vr_syncobj(&vr, false);
		struct drm_vdxg_sync out = { .handle = sync };
		struct vdxg_submit_opts opts = {
			.out_syncs = &out, .num_out_syncs = 1,
		};
		struct sig_poker p = {
			.target = pthread_self(), .fmap = j.fmap, .mark = mark,
		};
		struct vdxg_cs *cs = sig_job_build(&j, mark);
		pthread_t thr;

		vtest_assert_eq(pthread_create(&thr, NULL, sig_poke, &p), 0);
		vr_submit(&vr, ctx, cs, &opts);
		p.done = 1;
		vtest_assert_eq(pthread_join(thr, NULL), 0);
		vtest_assert(opts.out_flags & DRM_VDXG_SUBMIT_OUT_SPLIT);
		vtest_assert_eq(vr_syncobj_wait(&vr, sync, 0,
						60ll * 1000000000), 0);
		vtest_assert_f(vr_syncobj_status(&vr, sync, 0) == 1,
			       "round %d, %d signals: the job's fence has "
			       "error %d", round, p.sent,
			       vr_syncobj_status(&vr, sync, 0));
		sig_job_check(&j, mark);
		vtest_info("round %d: %d signals during the ioctl\n", round,
			   p.sent);
		hit += p.sent > 0;
		vdxg_cs_free(cs);
	}

	*stop = 1;
	vtest_assert_eq(waitpid(pid, &status, 0), pid);
	vtest_assert_f(WIFEXITED(status) && !WEXITSTATUS(status),
		       "the rival process: status 0x%x", status);
	sig_job_fini(&j);
	vr_close(&vr);
	vtest_require_f(hit, "no signal came during a split SUBMIT");
}

/*
 * One object listed twice in a buffer with split points is -EINVAL,
 * whether the buffer needs a split or fits as it is.
 */
static void test_split_duplicated(void)
{
	struct sig_job j;
	struct vr vr;
	int per, n;

	vr_open(&vr);
	per = (int)(vr_debugfs(&vr, "segments", "room_vram") / SIG_TARGET);
	vtest_require_f(per >= 1 && per < SIG_MAX,
			"VRAM holds %d targets of 64 MiB", per);
	for (n = 1; n <= per + 1; n += per) {
		struct drm_vdxg_allocation a = { .flags = DRM_VDXG_ALLOC_WRITE };
		struct vdxg_cs *cs;
		int ret;

		sig_job_init(&j, &vr, n);
		cs = sig_job_build(&j, 0x4400000000ull);
		a.handle = j.t[n - 1]->handle;
		vtest_assert_lte(0, vdxg_cs_add_raw_allocation(cs, &a));
		ret = vdxg_submit(vr.dev, vr_ctx(&vr), cs, NULL);
		vtest_assert_f(ret == -EINVAL, "%d targets, one twice: %d (%s)",
			       n, ret, strerror(-ret));
		vdxg_cs_free(cs);
		sig_job_fini(&j);
	}
	vr_close(&vr);
}

/*
 * A buffer with split points whose allocations fit the engines' reach
 * together (as many targets as VRAM has room for, and a page of the
 * aperture) runs as it is: one job, no piece, every pixel right.
 */
static void test_split_fits(void)
{
	struct vdxg_submit_opts opts = { 0 };
	uint64_t pieces0, split0;
	struct vdxg_cs *cs;
	struct sig_job j;
	struct vr vr;
	int per;

	vr_open(&vr);
	per = (int)(vr_debugfs(&vr, "segments", "room_vram") / SIG_TARGET);
	vtest_require_f(per >= 1 && per < SIG_MAX,
			"VRAM holds %d targets of 64 MiB", per);
	sig_job_init(&j, &vr, per);
	cs = sig_job_build(&j, 0x6600000000ull);
	split0 = vr_debugfs(&vr, "render", "split");
	pieces0 = vr_debugfs(&vr, "render", "pieces");
	vr_submit(&vr, vr_ctx(&vr), cs, &opts);
	vtest_assert(!(opts.out_flags & DRM_VDXG_SUBMIT_OUT_SPLIT));
	sig_job_check(&j, 0x6600000000ull);
	vtest_assert_eq_u64(vr_debugfs(&vr, "render", "split"), split0);
	vtest_assert_eq_u64(vr_debugfs(&vr, "render", "pieces"), pieces0);
	vdxg_cs_free(cs);
	sig_job_fini(&j);
	vr_close(&vr);
}

/*
 * A NULL_RENDERING SUBMIT that fails (an object listed twice: EINVAL once
 * its job exists) counts neither as a job nor as a NULL_RENDERING one in
 * debugfs render.
 */
static void test_null_rendering_refused(void)
{
	struct vdxg_submit_opts opts = {
		.flags = DRM_VDXG_SUBMIT_NULL_RENDERING,
	};
	struct drm_vdxg_allocation a = { .flags = DRM_VDXG_ALLOC_WRITE };
	struct vdxg_cs *cs = vr_cs();
	uint64_t null0, submits0;
	struct vdxg_bo *bo;
	struct vr vr;
	int ret;

	vr_open(&vr);
	bo = vr_bo(&vr, 4096, DRM_VDXG_SEGMENT_VRAM, 0);
	vdxg_cs_fence(cs, bo, 0, DRM_VDXG_ALLOC_WRITE, 1);
	a.handle = bo->handle;
	vtest_assert_lte(0, vdxg_cs_add_raw_allocation(cs, &a));
	null0 = vr_debugfs(&vr, "render", "null_rendering");
	submits0 = vr_debugfs(&vr, "render", "submits");
	ret = vdxg_submit(vr.dev, vr_ctx(&vr), cs, &opts);
	vtest_assert_f(ret == -EINVAL, "one object twice: %d (%s)", ret,
		       strerror(-ret));
	vtest_assert_eq_u64(vr_debugfs(&vr, "render", "null_rendering"),
			    null0);
	vtest_assert_eq_u64(vr_debugfs(&vr, "render", "submits"), submits0);
	vdxg_cs_free(cs);
	vdxg_bo_free(bo);
	vr_close(&vr);
}

#define X(fn, name, err, parser, desc) \
	static void t_bad_##fn(void) \
	{ run_bad(name, bad_##fn, err, parser, desc); }
BAD_ROWS(X)
#undef X

static const struct vtest_subtest subtests[] = {
	{ "patch-oversubscribe", test_patch_oversubscribe,
	  "4x VRAM of objects: jobs patched exactly when addresses moved" },
	{ "presumed-skip", test_presumed_skip,
	  "right presumed addresses skip patching (debugfs patch_skipped)" },
	{ "patch-all-fields", test_patch_all_fields,
	  "zero presumed addresses: every field written, addresses returned" },
	{ "out-syncobj", test_out_syncobj,
	  "out-syncobjs (binary, timeline) signal when the job is done" },
	{ "in-syncobj-order", test_in_syncobj_order,
	  "a job waiting for another's syncobj runs after it" },
	{ "in-syncobj-cpu-fence", test_in_syncobj_cpu_fence,
	  "in-syncobjs hold jobs back while others run (vgem fence)" },
	{ "timeline-points", test_timeline_points,
	  "timeline points signalled by jobs, waited for by jobs" },
	{ "implicit-sync", test_implicit_sync,
	  "a reader of another client's object waits for its writer" },
	{ "no-implicit", test_no_implicit,
	  "NO_IMPLICIT: the reader does not wait for the writer" },
	{ "implicit-sync-wait", test_implicit_sync_wait,
	  "implicit sync behind a writer held by a WAIT" },
	{ "concurrent-clients", test_concurrent_clients,
	  "8 processes submitting at once, every result checked" },
	{ "fdinfo", test_fdinfo,
	  "fdinfo engine time and memory per segment" },
	{ "fdinfo-busy-bound", test_fdinfo_busy_bound,
	  "fdinfo engine time of queued jobs is at most the wall time" },
	{ "split-signals", test_split_signals,
	  "signals during a split SUBMIT do not fail its later pieces" },
	{ "split-fits", test_split_fits,
	  "a buffer with split points that fits runs as one job" },
	{ "null-rendering-refused", test_null_rendering_refused,
	  "a refused NULL_RENDERING SUBMIT is not counted in debugfs" },
	{ "split-duplicated", test_split_duplicated,
	  "an object listed twice in a buffer with split points: EINVAL" },
#define X(fn, name, err, parser, desc) { "bad-" name, t_bad_##fn, desc },
	BAD_ROWS(X)
#undef X
};

VTEST_MAIN(subtests)
