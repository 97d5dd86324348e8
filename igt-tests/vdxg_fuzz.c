// SPDX-License-Identifier: MIT
/*
 * vdxg_fuzz: a random-ioctl fuzzer for vdxg.
 *
 * Several worker processes (default 4; one of them on the primary node)
 * issue a weighted random mix of every vdxg ioctl and of the DRM core
 * ioctls vdxg relies on (GEM close, PRIME, syncobjs, flink/open), with
 * arguments that are mostly derived from valid ones and then mutated:
 * command buffers built with libvdxg's builder whose dwords, lengths,
 * opcodes, allocation lists, patch lists, syncs, flags and pads are
 * flipped, and handles that are live, stale (closed or destroyed),
 * small or random. On top of that:
 *  - two threads create and destroy contexts of one file concurrently
 *    while a third reads the file's /proc/self/fdinfo;
 *  - big VRAM objects take the workers past VRAM's size (eviction);
 *  - jobs that WAIT on a value in memory hold the ring until the worker
 *    releases them, and the supervisor SIGKILLs a random worker now and
 *    then (often with such a job queued) and starts a new one;
 *  - every few hundred operations a worker runs a known-good job
 *    (FILL_RECT and COPY_RECT between two objects of its own, on a new
 *    context) and compares every pixel with libvdxg's reference renderer;
 *  - canary objects (VRAM, aperture, system) filled with a known pattern
 *    by the supervisor before the workers start, and never shared with
 *    them, are compared byte for byte at the end, before and after moving
 *    them back into their segment;
 *  - GPU virtual memory: workers create and destroy VMs (and contexts on
 *    them) at random moments, bind mutated VM_BIND operations (maps,
 *    unmaps, null maps of live, stale and random handles at a few shared
 *    virtual addresses or random ones, bad flags, offsets and sizes) and
 *    EXEC mutated command buffers at mutated addresses; the supervisor's
 *    canaries are mapped in a VM of its own at those shared addresses
 *    (isolation canaries), and every known-good check also fills an
 *    object of the worker's at a shared address through EXEC in a new VM
 *    and checks every pixel.
 *
 * Any errno is accepted for bad input. The run fails when a known-good
 * job fails or renders wrongly, a canary changes, a worker dies of
 * anything but the supervisor's SIGKILL, a call does not return within
 * HANG_S seconds (alarm() in the worker, a heartbeat in the supervisor),
 * the kernel logs a WARN/BUG/oops/lockdep report, or a known-good job on a
 * new file fails at the end.
 *
 * A file the driver refuses (CONTEXT_CREATE or a known-good submit failing
 * on valid arguments, e.g. -EIO once the driver bans a file after repeated
 * hangs) is closed and the device opened again in that worker; the run
 * counts those.
 *
 * Knobs (environment, else the kernel command line as vdxg_test.*):
 *	VDXG_FUZZ_SECONDS / vdxg_test.fuzz_seconds	duration (default 60)
 *	VDXG_FUZZ_WORKERS / vdxg_test.fuzz_workers	workers (default 4)
 *	VDXG_FUZZ_KILL_MS / vdxg_test.fuzz_kill_ms	mean time between
 *							kills (default 3000,
 *							0: none)
 *	VTEST_SEED					the seed (printed)
 * `make fuzz FUZZ_SECONDS=600` runs it in the VM for longer.
 *
 * Output: operations per second and totals, per operation the calls,
 * successes and the errnos seen.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <xf86drm.h>

#include "vrender.h"
#include "vvm.h"

#define MAX_WORKERS	16
#define HANG_S		60	/* one call may take this long */
#define MAX_OBJS	48
#define MAX_CTXS	12
#define MAX_SYNCS	24
#define MAX_DMABUFS	8
#define MAX_STALE	16
#define MAX_HOLDS	4
#define CMD_MAX_DW	256
#define MAX_VMS		8
#define VM_CMD_VA	0x7f0000000000ull	/* each VM's command object */
#define VM_CMD_SIZE	4096

/* Virtual addresses every VM of every worker and the supervisor use. */
static const uint64_t shared_va[] = {
	0x100000000ull, 0x100200000ull, 0x200000000ull, 0x40000000000ull,
};
#define KG_W		64
#define KG_H		64

/* ------------------------------------------------------------ operations */

enum op {
	OP_GEM_CREATE, OP_GEM_CLOSE, OP_GEM_INFO, OP_GEM_MMAP, OP_GEM_WAIT,
	OP_MAKE_RESIDENT, OP_CTX_CREATE, OP_CTX_DESTROY, OP_SUBMIT,
	OP_RESET_STATUS, OP_PRESENT, OP_PRIME_EXPORT, OP_PRIME_IMPORT,
	OP_SYNCOBJ, OP_GET_PARAM, OP_FDINFO, OP_CTX_RACE, OP_REOPEN,
	OP_BIG_ALLOC, OP_RAW_IOCTL, OP_HOLD, OP_FLINK, OP_BACKING,
	OP_VM_CREATE, OP_VM_DESTROY, OP_VM_BIND, OP_EXEC,
	OP_KNOWN_GOOD, NUM_OPS
};

static const struct {
	const char *name;
	unsigned int weight;
} ops[NUM_OPS] = {
	[OP_GEM_CREATE] = { "gem_create", 10 },
	[OP_GEM_CLOSE] = { "gem_close", 6 },
	[OP_GEM_INFO] = { "gem_info", 4 },
	[OP_GEM_MMAP] = { "gem_mmap", 4 },
	[OP_GEM_WAIT] = { "gem_wait", 4 },
	[OP_MAKE_RESIDENT] = { "make_resident", 4 },
	[OP_CTX_CREATE] = { "context_create", 4 },
	[OP_CTX_DESTROY] = { "context_destroy", 3 },
	[OP_SUBMIT] = { "submit", 32 },
	[OP_RESET_STATUS] = { "get_reset_status", 3 },
	[OP_PRESENT] = { "present", 5 },
	[OP_PRIME_EXPORT] = { "prime_export", 3 },
	[OP_PRIME_IMPORT] = { "prime_import", 3 },
	[OP_SYNCOBJ] = { "syncobj", 8 },
	[OP_GET_PARAM] = { "get_param", 2 },
	[OP_FDINFO] = { "fdinfo", 2 },
	[OP_CTX_RACE] = { "context_race", 1 },
	[OP_REOPEN] = { "reopen", 1 },
	[OP_BIG_ALLOC] = { "big_alloc", 1 },
	[OP_RAW_IOCTL] = { "raw_ioctl", 3 },
	[OP_HOLD] = { "hold_job", 2 },
	[OP_FLINK] = { "flink_open", 1 },
	[OP_BACKING] = { "backing_resource", 1 },
	[OP_VM_CREATE] = { "vm_create", 3 },
	[OP_VM_DESTROY] = { "vm_destroy", 2 },
	[OP_VM_BIND] = { "vm_bind", 10 },
	[OP_EXEC] = { "exec", 10 },
	[OP_KNOWN_GOOD] = { "known_good", 0 },	/* scheduled, not drawn */
};

/* ------------------------------------------------------ shared statistics */

struct wstats {
	volatile pid_t pid;
	volatile uint32_t gen;		/* restarts of this slot */
	volatile int cur_op;		/* -1: between operations */
	volatile double heartbeat;	/* vr_now() at the start of cur_op */
	volatile uint64_t ops;
	volatile uint64_t checks;	/* known-good jobs checked */
	volatile uint64_t refused;	/* files refused and reopened */
	volatile uint64_t reopens;	/* all reopens */
	volatile uint64_t nomem_waits;	/* known-good at the commit limit */
	uint64_t calls[NUM_OPS], ok[NUM_OPS];
	uint64_t errnos[NUM_OPS];	/* bit e: errno e seen (e < 64) */
	uint64_t other_errno[NUM_OPS];	/* errno >= 64 seen */
	uint64_t refused_errnos;	/* bit e: a refusal with errno e */
};

struct shared {
	volatile int stop;
	volatile int failed;
	char msg[2048];
	uint64_t seed;
	uint64_t kills;
	struct wstats w[MAX_WORKERS];
};

static struct shared *sh;

/* ---------------------------------------------------------------- worker */

struct obj {
	uint32_t handle;
	uint64_t size;
	uint32_t seg;		/* first segment asked for */
	bool big;
};

struct hold {
	struct vdxg_bo bo;	/* handle-only, for the builder */
	uint8_t *map;
	uint64_t map_size;
	int release_at;		/* op count */
};

struct wk {
	int id;
	uint64_t rng;
	int fd, fd2;
	bool primary;
	uint64_t nops;
	uint64_t vram_size, vram_budget, big_held;
	struct obj objs[MAX_OBJS];
	int nobjs;
	uint32_t stale[MAX_STALE];
	int nstale;
	uint32_t ctxs[MAX_CTXS];
	int nctxs;
	uint32_t stale_ctx[MAX_STALE];
	int nstale_ctx;
	uint32_t syncs[MAX_SYNCS];
	uint64_t sync_point[MAX_SYNCS];
	int nsyncs;
	int dmabufs[MAX_DMABUFS];
	int ndmabufs;
	struct hold holds[MAX_HOLDS];
	int nholds;
	uint32_t flinks[8];
	int nflinks;
	struct {
		uint32_t id, ctx;	/* ctx 0: none */
		uint32_t cmd;		/* its command object, mapped */
		uint32_t *cmd_map;
	} vms[MAX_VMS];
	int nvms;
	uint32_t stale_vm[MAX_STALE];
	int nstale_vm;
	void *bad_page;		/* PROT_NONE */
	struct wstats *st;
};

static struct wk *cur_wk;
static bool in_worker;

__attribute__((format(printf, 1, 2), noreturn))
static void wfail(const char *fmt, ...)
{
	char buf[1600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (__sync_bool_compare_and_swap(&sh->failed, 0, 1))
		snprintf(sh->msg, sizeof(sh->msg), "worker %d (pid %d, op %" PRIu64 "): %s",
			 cur_wk ? cur_wk->id : -1, getpid(),
			 cur_wk ? cur_wk->nops : 0, buf);
	fprintf(stderr, "vdxg_fuzz: worker %d: %s\n", cur_wk ? cur_wk->id : -1,
		buf);
	fflush(stderr);
	_exit(VTEST_EXIT_FAILURE);
}

static void on_alarm(int sig)
{
	(void)sig;
	wfail("%s did not return within %d s", cur_wk && cur_wk->st->cur_op >= 0 ?
	      ops[cur_wk->st->cur_op].name : "?", HANG_S);
}

static void on_fatal(int sig)
{
	wfail("signal %d (%s) in %s", sig, strsignal(sig),
	      cur_wk && cur_wk->st->cur_op >= 0 ?
	      ops[cur_wk->st->cur_op].name : "?");
}

static uint32_t rnd(struct wk *w)
{
	return vr_rand(&w->rng);
}

static uint64_t rnd64(struct wk *w)
{
	return ((uint64_t)rnd(w) << 32) | rnd(w);
}

/* True with probability 1/N. */
static bool one_in(struct wk *w, uint32_t n)
{
	return rnd(w) % n == 0;
}

static uint32_t below(struct wk *w, uint32_t n)
{
	return n ? rnd(w) % n : 0;
}

static const uint32_t interesting32[] = {
	0, 1, 2, 3, 4, 7, 8, 0xf, 0x10, 0xff, 0x100, 0xfff, 0x1000, 0xffff,
	0x10000, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff, 8192, 8193,
	0x100000, 64, 63, 65,
};

static uint32_t interesting(struct wk *w)
{
	return interesting32[below(w, VTEST_ARRAY_SIZE(interesting32))];
}

/* Account for one call's result: RET 0 or -1 with errno. */
static int account(struct wk *w, enum op op, int ret)
{
	int e = errno;

	w->st->calls[op]++;
	if (ret == 0) {
		w->st->ok[op]++;
	} else if (e > 0 && e < 64) {
		w->st->errnos[op] |= 1ull << e;
	} else {
		w->st->other_errno[op] = e;
	}
	errno = e;
	return ret;
}

/* ioctl() once: the fuzzer wants to see EINTR and EAGAIN too. */
static int xioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) == -1 ? -1 : 0;
}

/* ----------------------------------------------------------- handles */

static uint32_t pick_handle(struct wk *w)
{
	uint32_t r = below(w, 100);

	if (r < 60 && w->nobjs)
		return w->objs[below(w, w->nobjs)].handle;
	if (r < 75 && w->nstale)
		return w->stale[below(w, w->nstale)];
	if (r < 92)
		return below(w, 80);
	return rnd(w);
}

static uint32_t pick_ctx(struct wk *w)
{
	uint32_t r = below(w, 100);

	if (r < 75 && w->nctxs)
		return w->ctxs[below(w, w->nctxs)];
	if (r < 88 && w->nstale_ctx)
		return w->stale_ctx[below(w, w->nstale_ctx)];
	if (r < 96)
		return below(w, 40);
	return rnd(w);
}

static uint32_t pick_sync(struct wk *w, __u64 *point)
{
	uint32_t r = below(w, 100);

	*point = 0;
	if (r < 80 && w->nsyncs) {
		int i = below(w, w->nsyncs);

		if (w->sync_point[i])
			*point = one_in(w, 4) ? below(w, 100) :
				 w->sync_point[i] + below(w, 3);
		return w->syncs[i];
	}
	if (one_in(w, 3))
		*point = rnd64(w);
	return r < 95 ? below(w, 64) : rnd(w);
}

/* Drop the worker's entries for HANDLE. */
static void drop_entries(struct wk *w, uint32_t handle)
{
	int i;

	for (i = 0; i < w->nobjs; i++)
		if (w->objs[i].handle == handle) {
			if (w->objs[i].big)
				w->big_held -= w->objs[i].size;
			w->objs[i] = w->objs[--w->nobjs];
			i--;
		}
}

static void forget_handle(struct wk *w, uint32_t handle)
{
	drop_entries(w, handle);
	if (w->nstale < MAX_STALE)
		w->stale[w->nstale++] = handle;
	else
		w->stale[below(w, MAX_STALE)] = handle;
}

static void gem_close(struct wk *w, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	account(w, OP_GEM_CLOSE, xioctl(w->fd, DRM_IOCTL_GEM_CLOSE, &c));
	forget_handle(w, handle);
}

static void add_obj(struct wk *w, uint32_t handle, uint64_t size, uint32_t seg,
		    bool big)
{
	/* A handle number comes back after a close: one entry per handle. */
	drop_entries(w, handle);
	if (w->nobjs == MAX_OBJS)
		gem_close(w, w->objs[below(w, w->nobjs)].handle);
	w->objs[w->nobjs].handle = handle;
	w->objs[w->nobjs].size = size;
	w->objs[w->nobjs].seg = seg;
	w->objs[w->nobjs].big = big;
	w->nobjs++;
	if (big)
		w->big_held += size;
}

static void add_ctx(struct wk *w, uint32_t id)
{
	if (w->nctxs == MAX_CTXS) {
		int i = below(w, w->nctxs);
		struct drm_vdxg_context_destroy d = { .ctx_id = w->ctxs[i] };

		account(w, OP_CTX_DESTROY,
			xioctl(w->fd, DRM_IOCTL_VDXG_CONTEXT_DESTROY, &d));
		w->ctxs[i] = w->ctxs[--w->nctxs];
		if (w->nstale_ctx < MAX_STALE)
			w->stale_ctx[w->nstale_ctx++] = d.ctx_id;
	}
	w->ctxs[w->nctxs++] = id;
}

static void forget_ctx(struct wk *w, uint32_t id)
{
	int i;

	for (i = 0; i < w->nctxs; i++)
		if (w->ctxs[i] == id)
			w->ctxs[i--] = w->ctxs[--w->nctxs];
	if (w->nstale_ctx < MAX_STALE)
		w->stale_ctx[w->nstale_ctx++] = id;
	else
		w->stale_ctx[below(w, MAX_STALE)] = id;
}

static void add_sync(struct wk *w, uint32_t h, bool timeline)
{
	if (w->nsyncs == MAX_SYNCS) {
		int i = below(w, w->nsyncs);

		drmSyncobjDestroy(w->fd, w->syncs[i]);
		w->syncs[i] = w->syncs[--w->nsyncs];
		w->sync_point[i] = w->sync_point[w->nsyncs];
	}
	w->syncs[w->nsyncs] = h;
	w->sync_point[w->nsyncs] = timeline ? 1 : 0;
	w->nsyncs++;
}

/* ------------------------------------------------------------- open */

static int open_node(bool primary)
{
	int fd = vtest_drm_open_driver("vdxg", primary ? VTEST_NODE_CARD :
				       VTEST_NODE_RENDER, NULL);

	if (fd < 0)
		wfail("cannot open the vdxg %s node", primary ? "primary" :
		      "render");
	return fd;
}

static void release_holds(struct wk *w)
{
	int i;

	for (i = 0; i < w->nholds; i++) {
		vr_write64(w->holds[i].map, 0, 1);
		munmap(w->holds[i].map, w->holds[i].map_size);
	}
	w->nholds = 0;
}

static void worker_reset_state(struct wk *w)
{
	int i;

	for (i = 0; i < w->ndmabufs; i++)
		close(w->dmabufs[i]);
	w->ndmabufs = 0;
	for (i = 0; i < w->nvms; i++)
		munmap(w->vms[i].cmd_map, VM_CMD_SIZE);
	w->nobjs = w->nstale = w->nctxs = w->nstale_ctx = w->nsyncs = 0;
	w->nflinks = w->nvms = w->nstale_vm = 0;
	w->big_held = 0;
}

/* Close the file (jobs may be queued) and open the device again. */
static void reopen(struct wk *w)
{
	release_holds(w);
	close(w->fd);
	worker_reset_state(w);
	w->fd = open_node(w->primary);
	w->st->reopens++;
}

/* ------------------------------------------------------------ known good */

/*
 * How long a known-good check waits for room under the commit limit: long
 * enough for several kills of the workers whose objects fill it.
 */
static uint64_t kg_nomem_ms = 10000;

static void kg_fill(uint32_t *p, size_t n, uint64_t *rng)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = vr_rand(rng);
}

/*
 * Whether context CTX is banned though none of its jobs hung: its file
 * was, for the hangs of its other contexts, and the context's queued jobs
 * were cancelled with it. Valid input refused, not a failure.
 */
static bool banned_innocent(struct vdxg_device *dev, uint32_t ctx)
{
	struct drm_vdxg_reset_status s = { 0 };

	return !vdxg_context_reset_status(dev, ctx, &s) &&
	       (s.flags & DRM_VDXG_RESET_BANNED) && !s.guilty;
}

/*
 * Wait for a known-good job's out-syncobj SO: 0 once it signalled without
 * an error, ECANCELED when its context CTX was banned for its file's hangs
 * (a refusal); anything else fails the run.
 */
static int kg_wait(struct vdxg_device *dev, uint32_t so, uint32_t ctx,
		   const char *when)
{
	struct vr vr = { .dev = dev, .fd = vdxg_device_fd(dev) };
	int ret, st;

	ret = vdxg_syncobj_wait(dev, &so, NULL, 1,
				vdxg_timeout_abs(VR_WAIT_NS), 0, NULL);
	if (ret)
		wfail("%s: known-good job not done after 30 s: %s", when,
		      strerror(-ret));
	st = vr_syncobj_status(&vr, so, 0);
	if (st == -ECANCELED && banned_innocent(dev, ctx))
		return ECANCELED;
	if (st != 1)
		wfail("%s: known-good job's fence signalled with status %d (%s)",
		      when, st, st < 0 ? strerror(-st) : "");
	return 0;
}

/*
 * The known-good job on W's file, on a new context and new objects.
 * Returns 0, or the errno of a refusal of valid input (context creation
 * or submission), for the caller to reopen and retry; anything else
 * wrong fails the run.
 */
static int known_good(struct wk *w, int fd, const char *when)
{
	static const uint32_t vram[] = { DRM_VDXG_SEGMENT_VRAM };
	static const uint32_t apert[] = { DRM_VDXG_SEGMENT_APERTURE,
					  DRM_VDXG_SEGMENT_VRAM };
	const size_t bytes = KG_W * KG_H * 4;
	struct vdxg_device *dev;
	struct vdxg_bo *dst, *src;
	struct vdxg_cs *cs;
	struct vdxg_submit_opts o = { 0 };
	struct drm_vdxg_sync out;
	struct vdxg_ref_surface rd, rs;
	uint32_t *dmap, *smap, *ref_d, *ref_s, ctx, so, color, i;
	uint32_t fx, fy, fw, fh, sx, sy, dx, dy, cw, ch;
	uint64_t fence_val = rnd64(w) | 1;
	bool in_apert;
	int ret;

	ret = vdxg_device_open_fd(fd, &dev);
	if (ret)
		wfail("%s: vdxg_device_open_fd: %s", when, strerror(-ret));
	ret = vdxg_context_create(dev, DRM_VDXG_ENGINE_RENDER,
				  DRM_VDXG_PRIORITY_NORMAL, 0, &ctx);
	if (ret) {
		vdxg_device_close(dev);
		return -ret;
	}
	ret = vdxg_bo_create(dev, bytes + 4096, vram, 1,
			     DRM_VDXG_GEM_CPU_ACCESS, &dst);
	if (ret && ret != -ENOMEM)
		wfail("%s: known-good dst GEM_CREATE: %s", when, strerror(-ret));
	in_apert = one_in(w, 2);
	if (!ret) {
		ret = vdxg_bo_create(dev, bytes, in_apert ? apert : vram,
				     in_apert ? 2 : 1, DRM_VDXG_GEM_CPU_ACCESS,
				     &src);
		if (ret)
			vdxg_bo_free(dst);
	}
	if (ret == -ENOMEM) {
		/* The objects of all clients are at the commit limit. */
		vdxg_context_destroy(dev, ctx);
		vdxg_device_close(dev);
		return ENOMEM;
	}
	if (ret)
		wfail("%s: known-good src GEM_CREATE: %s", when, strerror(-ret));
	if ((ret = vdxg_bo_map(dst, (void **)&dmap)) ||
	    (ret = vdxg_bo_map(src, (void **)&smap)))
		wfail("%s: known-good mmap: %s", when, strerror(-ret));
	ref_d = malloc(bytes);
	ref_s = malloc(bytes);
	kg_fill(ref_d, KG_W * KG_H, &w->rng);
	kg_fill(ref_s, KG_W * KG_H, &w->rng);
	memcpy(dmap, ref_d, bytes);
	memcpy(smap, ref_s, bytes);
	vr_write64(dmap, bytes, 0);

	rd = (struct vdxg_ref_surface){ ref_d, VDXG_FMT_XRGB8888, KG_W, KG_H,
					KG_W * 4 };
	rs = (struct vdxg_ref_surface){ ref_s, VDXG_FMT_ARGB8888, KG_W, KG_H,
					KG_W * 4 };
	fw = 1 + below(w, KG_W);
	fh = 1 + below(w, KG_H);
	fx = below(w, KG_W - fw + 1);
	fy = below(w, KG_H - fh + 1);
	color = rnd(w);
	cw = 1 + below(w, KG_W);
	ch = 1 + below(w, KG_H);
	sx = below(w, KG_W - cw + 1);
	sy = below(w, KG_H - ch + 1);
	dx = below(w, KG_W - cw + 1);
	dy = below(w, KG_H - ch + 1);
	vdxg_ref_fill_rect(&rd, fx, fy, fw, fh, color);
	vdxg_ref_copy_rect(&rd, &rs, sx, sy, dx, dy, cw, ch);

	if (vdxg_cs_create(&cs))
		wfail("out of memory");
	vdxg_cs_set_surface(cs, VDXG_SLOT_DST, dst, 0, DRM_VDXG_ALLOC_WRITE,
			    VDXG_FMT_XRGB8888, KG_W, KG_H, KG_W * 4);
	vdxg_cs_set_surface(cs, VDXG_SLOT_SRC, src, 0, 0, VDXG_FMT_ARGB8888,
			    KG_W, KG_H, KG_W * 4);
	vdxg_cs_fill_rect(cs, fx, fy, fw, fh, color);
	vdxg_cs_copy_rect(cs, sx, sy, dx, dy, cw, ch);
	vdxg_cs_fence(cs, dst, bytes, DRM_VDXG_ALLOC_WRITE, fence_val);
	if (vdxg_cs_error(cs))
		wfail("%s: builder: %s", when, strerror(-vdxg_cs_error(cs)));
	if ((ret = vdxg_syncobj_create(dev, 0, &so)))
		wfail("%s: syncobj create: %s", when, strerror(-ret));
	out = vdxg_sync(so, 0);
	o.out_syncs = &out;
	o.num_out_syncs = 1;
	ret = vdxg_submit(dev, ctx, cs, &o);
	if (ret == -EIO || ret == -ECANCELED || ret == -EPERM) {
		/* A file the driver refuses: the caller reopens. */
		vdxg_cs_free(cs);
		vdxg_syncobj_destroy(dev, so);
		vdxg_bo_free(dst);
		vdxg_bo_free(src);
		free(ref_d);
		free(ref_s);
		vdxg_device_close(dev);
		return -ret;
	}
	if (ret)
		wfail("%s: known-good SUBMIT on a new context: %d (%s)", when,
		      ret, strerror(-ret));
	ret = kg_wait(dev, so, ctx, when);
	if (ret) {
		vdxg_device_close(dev);
		return ret;
	}
	if (vr_read64(dmap, bytes) != fence_val)
		wfail("%s: known-good FENCE: 0x%" PRIx64 ", expected 0x%" PRIx64,
		      when, vr_read64(dmap, bytes), fence_val);
	for (i = 0; i < KG_W * KG_H; i++) {
		uint32_t want = ref_d[i], got = dmap[i];

		if (got != want)
			wfail("%s: known-good pixel (%u, %u): 0x%08x, expected "
			      "0x%08x (fill %u,%u %ux%u 0x%08x; copy %u,%u -> "
			      "%u,%u %ux%u)", when, i % KG_W, i / KG_W, got,
			      want, fx, fy, fw, fh, color, sx, sy, dx, dy, cw,
			      ch);
	}
	for (i = 0; i < KG_W * KG_H; i++)
		if (smap[i] != ref_s[i])
			wfail("%s: known-good source changed at pixel (%u, %u)",
			      when, i % KG_W, i / KG_W);
	vdxg_cs_free(cs);
	vdxg_syncobj_destroy(dev, so);
	if ((ret = vdxg_context_destroy(dev, ctx)))
		wfail("%s: destroying the known-good context: %s", when,
		      strerror(-ret));
	vdxg_bo_free(dst);
	vdxg_bo_free(src);
	free(ref_d);
	free(ref_s);
	vdxg_device_close(dev);
	return 0;
}

/*
 * The known-good job through GPU virtual memory: on a new VM of FD, a
 * FILL_RECT by EXEC into a new object mapped at a shared address, every
 * pixel checked. Returns 0, or the errno of a refusal of valid input;
 * anything else wrong fails the run. Nothing to do without a GPU MMU.
 */
static int known_good_vm(struct wk *w, int fd, const char *when)
{
	static const uint32_t sys = DRM_VDXG_SEGMENT_SYSTEM;
	static const uint32_t vram = DRM_VDXG_SEGMENT_VRAM;
	uint64_t va = shared_va[below(w, VTEST_ARRAY_SIZE(shared_va))];
	uint32_t vm, ctx, so, color = rnd(w), *px, i;
	struct vdxg_submit_opts o = { 0 };
	struct drm_vdxg_sync out;
	struct vdxg_bo *cmd, *dst;
	struct vdxg_device *dev;
	struct vdxg_vcs vcs;
	int ret;

	ret = vdxg_device_open_fd(fd, &dev);
	if (ret)
		wfail("%s: vdxg_device_open_fd: %s", when, strerror(-ret));
	ret = vdxg_vm_create(dev, 0, &vm);
	if (ret == -EOPNOTSUPP) {
		vdxg_device_close(dev);
		return 0;
	}
	if (!ret) {
		ret = vdxg_context_create_vm(dev, DRM_VDXG_PRIORITY_NORMAL, vm,
					     &ctx);
		if (ret)
			vdxg_vm_destroy(dev, vm);
	}
	if (ret) {
		vdxg_device_close(dev);
		return -ret;
	}
	ret = vdxg_bo_create(dev, VM_CMD_SIZE, &sys, 1,
			     DRM_VDXG_GEM_CPU_ACCESS, &cmd);
	if (!ret) {
		ret = vdxg_bo_create(dev, KG_W * KG_H * 4, &vram, 1,
				     DRM_VDXG_GEM_CPU_ACCESS, &dst);
		if (ret)
			vdxg_bo_free(cmd);
	}
	if (ret == -ENOMEM) {
		/* The objects of all clients are at the commit limit. */
		vdxg_context_destroy(dev, ctx);
		vdxg_vm_destroy(dev, vm);
		vdxg_device_close(dev);
		return ENOMEM;
	}
	if (ret)
		wfail("%s: VM known-good GEM_CREATE: %s", when, strerror(-ret));
	if ((ret = vdxg_vm_map(dev, vm, cmd, 0, VM_CMD_VA, VM_CMD_SIZE, 0)) ||
	    (ret = vdxg_vm_map(dev, vm, dst, 0, va, dst->size, 0))) {
		if (ret != -ENOMEM)
			wfail("%s: VM known-good VM_BIND: %s", when,
			      strerror(-ret));
		/* Page tables are objects too, under the same limit. */
		vdxg_bo_free(dst);
		vdxg_bo_free(cmd);
		vdxg_context_destroy(dev, ctx);
		vdxg_vm_destroy(dev, vm);
		vdxg_device_close(dev);
		return ENOMEM;
	}
	if ((ret = vdxg_bo_map(cmd, (void **)&px)))
		wfail("%s: VM known-good mmap: %s", when, strerror(-ret));
	vdxg_vcs_init(&vcs, px, VM_CMD_SIZE, VM_CMD_VA);
	vdxg_vcs_set_surface(&vcs, VDXG_SLOT_DST, va, VDXG_FMT_ARGB8888, KG_W,
			     KG_H, KG_W * 4);
	vdxg_vcs_fill_rect(&vcs, 0, 0, KG_W, KG_H, color);
	if ((ret = vdxg_syncobj_create(dev, 0, &so)))
		wfail("%s: syncobj: %s", when, strerror(-ret));
	out = vdxg_sync(so, 0);
	o.out_syncs = &out;
	o.num_out_syncs = 1;
	ret = vdxg_exec(dev, ctx, &vcs, &o);
	if (ret == -EIO || ret == -ENODEV) {
		vdxg_device_close(dev);
		return -ret;
	}
	if (ret)
		wfail("%s: VM known-good EXEC: %s", when, strerror(-ret));
	ret = kg_wait(dev, so, ctx, when);
	if (ret) {
		vdxg_device_close(dev);
		return ret;
	}
	if ((ret = vdxg_bo_map(dst, (void **)&px)))
		wfail("%s: VM known-good mmap: %s", when, strerror(-ret));
	for (i = 0; i < KG_W * KG_H; i++)
		if (px[i] != color)
			wfail("%s: VM known-good pixel %u at 0x%" PRIx64
			      ": 0x%08x, expected 0x%08x", when, i, va, px[i],
			      color);
	vdxg_syncobj_destroy(dev, so);
	vdxg_context_destroy(dev, ctx);
	if ((ret = vdxg_vm_destroy(dev, vm)))
		wfail("%s: VM known-good VM_DESTROY: %s", when, strerror(-ret));
	vdxg_bo_free(dst);
	vdxg_bo_free(cmd);
	vdxg_device_close(dev);
	return 0;
}

static void worker_known_good(struct wk *w)
{
	uint64_t waited = 0;
	int err;

	err = known_good(w, w->fd, "periodic check");
	if (!err)
		err = known_good_vm(w, w->fd, "periodic VM check");
	if (err) {
		if (err != ENOMEM) {
			w->st->refused++;
			w->st->refused_errnos |= 1ull << (err & 63);
		}
		reopen(w);
		/*
		 * ENOMEM: the objects of all clients fill the commit limit
		 * (vdxg_bo.c), which is not an error; the other workers free
		 * theirs as they go, and whole when they are killed.
		 */
		for (;;) {
			err = known_good(w, w->fd, "check on a reopened file");
			if (!err)
				err = known_good_vm(w, w->fd,
						    "VM check on a reopened file");
			if (err != ENOMEM || waited >= kg_nomem_ms)
				break;
			w->st->nomem_waits++;
			usleep(100 * 1000);
			waited += 100;
		}
		if (err == ENOMEM)
			wfail("known-good job: the commit limit stayed full "
			      "for %" PRIu64 " ms", waited);
		if (err)
			wfail("known-good job refused (%s) on a new file",
			      strerror(err));
	}
	w->st->checks++;
}

/* ------------------------------------------------------------ gem ops */

static uint32_t rand_segment(struct wk *w)
{
	return one_in(w, 12) ? interesting(w) : 1 + below(w, 3);
}

static void op_gem_create(struct wk *w)
{
	struct drm_vdxg_gem_create c = { 0 };
	uint32_t i;

	switch (below(w, 8)) {
	case 0: c.size = interesting(w); break;
	case 1: c.size = rnd64(w) >> below(w, 64); break;
	case 2: c.size = 1 + below(w, 1 << 20); break;
	default: c.size = 4096ull << below(w, 6); break;
	}
	c.num_segments = one_in(w, 10) ? interesting(w) : 1 + below(w, 3);
	for (i = 0; i < 3; i++)
		c.segments[i] = i < c.num_segments ? rand_segment(w) : 0;
	if (one_in(w, 20))
		c.segments[3] = interesting(w);
	c.flags = one_in(w, 10) ? rnd(w) : below(w, 4);
	if (one_in(w, 20))
		c.vm_id = rnd(w);
	if (one_in(w, 20))
		c.handle = rnd(w);
	if (account(w, OP_GEM_CREATE,
		    xioctl(w->fd, DRM_IOCTL_VDXG_GEM_CREATE, &c)) == 0)
		add_obj(w, c.handle, c.size, c.segments[0], false);
}

/* Eviction pressure: VRAM objects until the workers hold more than VRAM. */
static void op_big_alloc(struct wk *w)
{
	struct drm_vdxg_gem_create c = { 0 };
	struct drm_vdxg_gem_make_resident r = { 0 };

	if (w->big_held >= w->vram_budget) {
		int i;

		for (i = 0; i < w->nobjs; i++)
			if (w->objs[i].big) {
				gem_close(w, w->objs[i].handle);
				break;
			}
		return;
	}
	c.size = w->vram_size / (4 + below(w, 8));
	c.size &= ~4095ull;
	c.num_segments = 2;
	c.segments[0] = DRM_VDXG_SEGMENT_VRAM;
	c.segments[1] = one_in(w, 2) ? DRM_VDXG_SEGMENT_SYSTEM :
			DRM_VDXG_SEGMENT_APERTURE;
	c.flags = below(w, 4);
	if (account(w, OP_BIG_ALLOC,
		    xioctl(w->fd, DRM_IOCTL_VDXG_GEM_CREATE, &c)))
		return;
	add_obj(w, c.handle, c.size, DRM_VDXG_SEGMENT_VRAM, true);
	r.handle = c.handle;
	r.segment = DRM_VDXG_SEGMENT_VRAM;
	account(w, OP_MAKE_RESIDENT,
		xioctl(w->fd, DRM_IOCTL_VDXG_GEM_MAKE_RESIDENT, &r));
}

static void op_gem_close(struct wk *w)
{
	gem_close(w, pick_handle(w));
}

static void op_gem_info(struct wk *w)
{
	struct drm_vdxg_gem_info i = { .handle = pick_handle(w) };

	if (one_in(w, 10))
		i.segment = rnd(w);
	account(w, OP_GEM_INFO, xioctl(w->fd, DRM_IOCTL_VDXG_GEM_INFO, &i));
}

/* MMAP_OFFSET, and for a live object a mapping whose ends are touched. */
static void op_gem_mmap(struct wk *w)
{
	struct drm_vdxg_gem_mmap_offset m = { .handle = pick_handle(w) };
	struct drm_vdxg_gem_info info = { .handle = m.handle };
	volatile uint8_t *p;
	uint64_t len;

	if (one_in(w, 15))
		m.pad = rnd(w);
	if (one_in(w, 15))
		m.offset = rnd64(w);
	if (account(w, OP_GEM_MMAP,
		    xioctl(w->fd, DRM_IOCTL_VDXG_GEM_MMAP_OFFSET, &m)) || m.pad)
		return;
	if (xioctl(w->fd, DRM_IOCTL_VDXG_GEM_INFO, &info) || !info.size ||
	    info.size > (64u << 20))
		return;
	len = info.size;
	if (one_in(w, 8))
		len += 4096;	/* past the object: must be refused */
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, w->fd,
		 m.offset);
	if (p == MAP_FAILED)
		return;
	if (len > info.size)
		wfail("mmap of %" PRIu64 " bytes of a %" PRIu64 "-byte object "
		      "succeeded", len, (uint64_t)info.size);
	(void)p[0];
	(void)p[len - 1];
	if (one_in(w, 2)) {
		p[len / 2] = (uint8_t)rnd(w);
		p[0] ^= 0x5a;
	}
	munmap((void *)p, len);
}

static void op_gem_wait(struct wk *w)
{
	struct drm_vdxg_gem_wait g = { .handle = pick_handle(w) };

	g.timeout_ns = one_in(w, 3) ? 0 : below(w, 20000000);
	if (one_in(w, 20))
		g.timeout_ns = -(int64_t)below(w, 1000);
	if (one_in(w, 15))
		g.flags = rnd(w);
	account(w, OP_GEM_WAIT, xioctl(w->fd, DRM_IOCTL_VDXG_GEM_WAIT, &g));
}

static void op_make_resident(struct wk *w)
{
	struct drm_vdxg_gem_make_resident r = {
		.handle = pick_handle(w), .segment = rand_segment(w),
	};

	account(w, OP_MAKE_RESIDENT,
		xioctl(w->fd, DRM_IOCTL_VDXG_GEM_MAKE_RESIDENT, &r));
}

/* ------------------------------------------------------------ contexts */

static void op_ctx_create(struct wk *w)
{
	struct drm_vdxg_context_create c = { 0 };
	bool valid = true, odd = false;
	int ret;

	c.priority = below(w, 3);
	if (one_in(w, 10))
		c.engine = interesting(w);
	if (one_in(w, 10))
		c.priority = interesting(w);
	if (one_in(w, 10))
		c.flags = rnd(w) | 1;
	valid = c.engine == DRM_VDXG_ENGINE_RENDER &&
		c.priority <= DRM_VDXG_PRIORITY_HIGH && !c.flags;
	/* An out field with garbage in: either answer is fine. */
	if (one_in(w, 10)) {
		c.ctx_id = rnd(w);
		odd = true;
	}
	ret = account(w, OP_CTX_CREATE,
		      xioctl(w->fd, DRM_IOCTL_VDXG_CONTEXT_CREATE, &c));
	if (!ret) {
		if (!valid)
			wfail("CONTEXT_CREATE succeeded with engine %u, "
			      "priority %u, flags 0x%x", c.engine, c.priority,
			      c.flags);
		/* The uapi: "the context, non-zero". */
		if (!c.ctx_id)
			wfail("CONTEXT_CREATE returned context id 0");
		add_ctx(w, c.ctx_id);
	} else if (valid && !odd && (errno == EINVAL || errno == ENOENT ||
				     errno == EFAULT)) {
		wfail("CONTEXT_CREATE with engine 0, priority %u, flags 0: %s",
		      c.priority, strerror(errno));
	} else if (valid && !odd && errno != ENOMEM && errno != EINTR &&
		   errno != EAGAIN) {
		/* The file is refused (banned after hangs): a new one. */
		w->st->refused++;
		w->st->refused_errnos |= 1ull << (errno & 63);
		reopen(w);
	}
}

static void op_ctx_destroy(struct wk *w)
{
	struct drm_vdxg_context_destroy d = { .ctx_id = pick_ctx(w) };

	if (one_in(w, 15))
		d.pad = rnd(w);
	if (!account(w, OP_CTX_DESTROY,
		     xioctl(w->fd, DRM_IOCTL_VDXG_CONTEXT_DESTROY, &d)))
		forget_ctx(w, d.ctx_id);
}

static void op_reset_status(struct wk *w)
{
	struct drm_vdxg_reset_status s = { .ctx_id = pick_ctx(w) };

	if (one_in(w, 10))
		s.flags = rnd(w);
	account(w, OP_RESET_STATUS,
		xioctl(w->fd, DRM_IOCTL_VDXG_GET_RESET_STATUS, &s));
}

/* Two threads create and destroy contexts of one file, a third reads its
 * fdinfo, for a few milliseconds. */
struct race {
	int fd;
	volatile int stop;
	volatile uint32_t last;
	volatile int zero_id;	/* CONTEXT_CREATE returned id 0 */
	uint64_t rng;
	uint64_t n;
};

static void *race_create(void *arg)
{
	struct race *r = arg;

	while (!r->stop) {
		struct drm_vdxg_context_create c = { .priority = 1 };
		struct drm_vdxg_reset_status s = { 0 };

		if (!ioctl(r->fd, DRM_IOCTL_VDXG_CONTEXT_CREATE, &c)) {
			if (!c.ctx_id)
				r->zero_id = 1;
			r->last = c.ctx_id;
			s.ctx_id = c.ctx_id;
			ioctl(r->fd, DRM_IOCTL_VDXG_GET_RESET_STATUS, &s);
		}
		r->n++;
	}
	return NULL;
}

static void *race_destroy(void *arg)
{
	struct race *r = arg;
	uint64_t rng = r->rng;

	while (!r->stop) {
		struct drm_vdxg_context_destroy d;
		struct drm_vdxg_reset_status s = { 0 };

		d.ctx_id = vr_rand(&rng) % 2 ? r->last :
			   r->last - vr_rand(&rng) % 4;
		d.pad = 0;
		s.ctx_id = d.ctx_id;
		ioctl(r->fd, DRM_IOCTL_VDXG_GET_RESET_STATUS, &s);
		ioctl(r->fd, DRM_IOCTL_VDXG_CONTEXT_DESTROY, &d);
	}
	return NULL;
}

static void *race_fdinfo(void *arg)
{
	struct race *r = arg;
	char path[64], buf[4096];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", r->fd);
	while (!r->stop) {
		int f = open(path, O_RDONLY);

		if (f >= 0) {
			while (read(f, buf, sizeof(buf)) > 0)
				;
			close(f);
		}
	}
	return NULL;
}

static void op_ctx_race(struct wk *w)
{
	struct race r = { .fd = w->fd, .rng = rnd64(w) | 1 };
	pthread_t t[3];
	int i;

	if (pthread_create(&t[0], NULL, race_create, &r) ||
	    pthread_create(&t[1], NULL, race_destroy, &r) ||
	    pthread_create(&t[2], NULL, race_fdinfo, &r))
		wfail("pthread_create failed");
	vr_sleep_ms(5 + below(w, 40));
	r.stop = 1;
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	if (r.zero_id)
		wfail("CONTEXT_CREATE returned context id 0 (in the "
		      "create/destroy threads)");
	account(w, OP_CTX_RACE, 0);
	/* The survivors are unknown to the tables: they die with the file. */
}

/* ------------------------------------------------------------ submit */

static struct vdxg_bo *gpu_obj(struct wk *w, struct vdxg_bo *bo,
			       uint64_t min)
{
	int i, n;

	for (n = 0; n < 4; n++) {
		i = below(w, w->nobjs);
		if (w->nobjs && w->objs[i].size >= min &&
		    (w->objs[i].seg == DRM_VDXG_SEGMENT_VRAM ||
		     w->objs[i].seg == DRM_VDXG_SEGMENT_APERTURE)) {
			memset(bo, 0, sizeof(*bo));
			bo->handle = w->objs[i].handle;
			bo->size = w->objs[i].size;
			return bo;
		}
	}
	{
		struct drm_vdxg_gem_create c = {
			.size = 64 << 10, .num_segments = 1,
			.segments = { one_in(w, 3) ? DRM_VDXG_SEGMENT_APERTURE :
				      DRM_VDXG_SEGMENT_VRAM },
		};

		if (xioctl(w->fd, DRM_IOCTL_VDXG_GEM_CREATE, &c))
			return NULL;
		add_obj(w, c.handle, c.size, c.segments[0], false);
		memset(bo, 0, sizeof(*bo));
		bo->handle = c.handle;
		bo->size = c.size;
		return bo;
	}
}

/*
 * A random command sequence into CS, valid for its objects but for the 3D
 * state and draws, which may fault.
 */
static bool build_valid(struct wk *w, struct vdxg_cs *cs, struct vdxg_bo *a,
			struct vdxg_bo *b)
{
	uint32_t fmt = 1 + below(w, 3), cpp = fmt == VDXG_FMT_RGB565 ? 2 : 4;
	uint32_t sw = 1 + below(w, 64), shh = 1 + below(w, 64);
	uint32_t pitch = (sw * cpp + 63) & ~63u;
	uint32_t n = 1 + below(w, 4), i;

	if (!gpu_obj(w, a, 32 << 10) || !gpu_obj(w, b, 32 << 10))
		return false;
	if ((uint64_t)pitch * shh > a->size || (uint64_t)pitch * shh > b->size)
		shh = 1;
	if (one_in(w, 2)) {
		vdxg_cs_set_surface(cs, VDXG_SLOT_DST, a, 0,
				    DRM_VDXG_ALLOC_WRITE, fmt, sw, shh, pitch);
		vdxg_cs_set_surface(cs, VDXG_SLOT_SRC, b, 0, 0, fmt, sw, shh,
				    pitch);
	}
	for (i = 0; i < n; i++) {
		uint32_t w_ = 1 + below(w, sw), h_ = 1 + below(w, shh);
		uint32_t x = below(w, sw - w_ + 1), y = below(w, shh - h_ + 1);

		switch (below(w, 9)) {
		case 0:
			vdxg_cs_nop(cs);
			break;
		case 1:
			vdxg_cs_fence(cs, a, 8 * below(w, 16),
				      DRM_VDXG_ALLOC_WRITE, rnd64(w));
			break;
		case 2:
			vdxg_cs_fill_rect(cs, x, y, w_, h_, rnd(w));
			break;
		case 3:
			vdxg_cs_copy_rect(cs, x, y, below(w, sw - w_ + 1),
					  below(w, shh - h_ + 1), w_, h_);
			break;
		case 4:
			vdxg_cs_blend(cs, x, y, x, y, w_, h_, below(w, 256));
			break;
		case 5:
			/* Vertices are whatever the object holds: may fault. */
			if (one_in(w, 4))
				vdxg_cs_draw_triangles(cs, below(w, 16),
						       3 * (1 + below(w, 4)),
						       b, 0, 0);
			else
				vdxg_cs_wait(cs, a, 8 * below(w, 16), 0, 0);
			break;
		case 6:	/* 3D state: registers, a program from B's bytes */
			{
				uint32_t v[4], k;
				uint32_t first = below(w, VDXG_3D_NUM_REGS + 2);

				for (k = 0; k < 4; k++)
					v[k] = one_in(w, 2) ? interesting(w) :
					       rnd(w);
				vdxg_cs_set_state(cs, first, v, 1 + below(w, 4));
				if (one_in(w, 2))
					vdxg_cs_set_shader(cs, below(w, 3), b,
							   16 * below(w, 64),
							   16 * below(w, 64));
			}
			break;
		case 7:	/* a draw with what is bound, or none */
			if (one_in(w, 2))
				vdxg_cs_draw(cs, below(w, 9), below(w, 8),
					     below(w, 12));
			else
				vdxg_cs_draw_indexed(cs, below(w, 9),
						     below(w, 8),
						     below(w, 12),
						     (int32_t)below(w, 8) - 4);
			break;
		case 8:	/* CLEAR of what is bound */
			vdxg_cs_clear(cs, below(w, 8), x, y, w_, h_, NULL,
				      one_in(w, 2) ? 1.0f : 0.5f, rnd(w) & 0xff);
			break;
		}
	}
	return true;
}

static void mutate_cmds(struct wk *w, uint32_t *dw, uint32_t *n)
{
	uint32_t i = *n ? below(w, *n) : 0;

	switch (below(w, 10)) {
	case 0:
		dw[i] ^= 1u << below(w, 32);
		break;
	case 1:
		dw[i] = interesting(w);
		break;
	case 2:
		dw[i] = rnd(w);
		break;
	case 3:	/* opcode of a header-looking dword, 3D ones too */
		dw[i] = (dw[i] & ~0xffu) | below(w, VDXG_RD_NUM_OPS_3D + 2);
		if (one_in(w, 4))
			dw[i] |= 0xff;
		break;
	case 4:	/* header length */
		dw[i] = (dw[i] & 0xffff) | (below(w, 12) << 16);
		break;
	case 5:	/* reserved header byte */
		dw[i] |= (1 + below(w, 255)) << 8;
		break;
	case 6:
		if (*n > 1)
			*n -= 1 + below(w, *n - 1);
		break;
	case 7:
		if (*n < CMD_MAX_DW - 8) {
			uint32_t k, add = 1 + below(w, 8);

			for (k = 0; k < add; k++)
				dw[*n + k] = one_in(w, 2) ? rnd(w) :
					     (VDXG_RD_NOP | (1u << 16));
			*n += add;
		}
		break;
	case 8:	/* an address field pointing elsewhere */
		if (i + 1 < *n) {
			dw[i] = rnd(w) & ~7u;
			dw[i + 1] = one_in(w, 2) ? 0 : below(w, 0x200);
		}
		break;
	case 9:	/* swap two dwords */
		{
			uint32_t j = *n ? below(w, *n) : 0, t = dw[i];

			dw[i] = dw[j];
			dw[j] = t;
		}
		break;
	}
}

/* Up to 4 syncs in S, now and then with flags; the count, now and then bad. */
static uint32_t random_syncs(struct wk *w, struct drm_vdxg_sync *s)
{
	uint32_t n = below(w, 5), k;

	for (k = 0; k < n; k++) {
		s[k].handle = pick_sync(w, &s[k].point);
		s[k].flags = one_in(w, 8) ? rnd(w) : 0;
	}
	if (one_in(w, 8))
		n = one_in(w, 2) ? DRM_VDXG_MAX_SYNCS + 1 : rnd(w);
	return n;
}

static void op_submit(struct wk *w)
{
	static uint32_t dw[CMD_MAX_DW];
	static struct drm_vdxg_allocation al[16];
	static struct drm_vdxg_patch_location pl[64];
	static struct drm_vdxg_sync in[DRM_VDXG_MAX_SYNCS + 2];
	static struct drm_vdxg_sync out[DRM_VDXG_MAX_SYNCS + 2];
	struct drm_vdxg_submit s = { 0 };
	struct vdxg_bo a, b;
	struct vdxg_cs *cs;
	uint32_t ndw, nal, npl, nin = 0, nout = 0, i, nmut;
	uint32_t big_ndw = UINT32_MAX, big_nal = UINT32_MAX, big_npl = UINT32_MAX;
	const struct drm_vdxg_allocation *cal;
	const struct drm_vdxg_patch_location *cpl;

	if (vdxg_cs_create(&cs))
		wfail("out of memory");
	if (!build_valid(w, cs, &a, &b) || vdxg_cs_error(cs)) {
		vdxg_cs_free(cs);
		return;
	}
	ndw = vdxg_cs_num_dwords(cs);
	if (ndw > CMD_MAX_DW - 16)
		ndw = CMD_MAX_DW - 16;
	memcpy(dw, vdxg_cs_dwords(cs), ndw * 4);
	cal = vdxg_cs_allocations(cs, &nal);
	cpl = vdxg_cs_patches(cs, &npl);
	if (nal > 14)
		nal = 14;
	if (npl > 62)
		npl = 62;
	memcpy(al, cal, nal * sizeof(*al));
	memcpy(pl, cpl, npl * sizeof(*pl));
	vdxg_cs_free(cs);

	if (one_in(w, 3)) {
		nin = below(w, 4);
		for (i = 0; i < nin; i++)
			in[i].handle = pick_sync(w, &in[i].point), in[i].flags = 0;
	}
	if (one_in(w, 3)) {
		nout = below(w, 3);
		for (i = 0; i < nout; i++) {
			out[i].handle = pick_sync(w, &out[i].point);
			out[i].flags = 0;
		}
	}
	s.ctx_id = pick_ctx(w);
	s.flags = one_in(w, 4) ? DRM_VDXG_SUBMIT_NO_IMPLICIT : 0;

	/* 0 mutations a quarter of the time: valid but for the handles. */
	nmut = one_in(w, 4) ? 0 : 1 + below(w, 4);
	for (i = 0; i < nmut; i++) {
		uint32_t k;

		switch (below(w, 16)) {
		case 0: case 1: case 2: case 3: case 4:
			mutate_cmds(w, dw, &ndw);
			break;
		case 5:
			if (nal) {
				k = below(w, nal);
				switch (below(w, 4)) {
				case 0: al[k].handle = pick_handle(w); break;
				case 1: al[k].flags = one_in(w, 2) ? 0 : rnd(w); break;
				case 2: al[k].presumed_gpu_addr = rnd64(w); break;
				case 3: al[k] = al[below(w, nal)]; break;
				}
			}
			break;
		case 6:
			nal = one_in(w, 3) ? 0 : nal + below(w, 3) - 1;
			if (nal > 16)
				nal = 16;
			break;
		case 7:
			if (npl) {
				k = below(w, npl);
				switch (below(w, 6)) {
				case 0: pl[k].allocation_index = interesting(w); break;
				case 1: pl[k].slot_id = interesting(w); break;
				case 2: pl[k].allocation_offset = interesting(w); break;
				case 3: pl[k].patch_offset = interesting(w) & ~3u; break;
				case 4: pl[k].split_offset = interesting(w); break;
				case 5: pl[k].driver_id = rnd(w); break;
				}
			}
			break;
		case 8:
			npl = one_in(w, 3) ? 0 : npl + below(w, 3) - 1;
			if (npl > 64)
				npl = 64;
			break;
		case 9:	/* syncs */
			nin = random_syncs(w, in);
			break;
		case 10:
			nout = random_syncs(w, out);
			break;
		case 11:
			s.flags = one_in(w, 2) ? rnd(w) : 1u << below(w, 32);
			break;
		case 12:
			s.out_flags = rnd(w);
			break;
		case 13:
			s.ctx_id = one_in(w, 2) ? 0 : rnd(w);
			break;
		case 14:	/* pointers */
			s.commands = 1;	/* marks: a pointer is bad below */
			break;
		case 15:	/* counts over the limits, applied last */
			switch (below(w, 3)) {
			case 0: big_ndw = one_in(w, 2) ? 0 : rnd(w) / 4; break;
			case 1: big_nal = rnd(w); break;
			case 2: big_npl = rnd(w); break;
			}
			break;
		}
	}
	if (big_ndw != UINT32_MAX)
		ndw = big_ndw;
	if (big_nal != UINT32_MAX)
		nal = big_nal;
	if (big_npl != UINT32_MAX)
		npl = big_npl;
	s.command_size = ndw * 4;
	if (one_in(w, 30))
		s.command_size += 1 + below(w, 3);
	s.num_allocations = nal;
	s.num_patches = npl;
	s.num_in_syncs = nin;
	s.num_out_syncs = nout;
	/* Counts past our arrays point into the PROT_NONE page: -EFAULT. */
	s.commands = ndw <= CMD_MAX_DW && s.commands != 1 ?
		     (uintptr_t)dw : (uintptr_t)w->bad_page;
	s.allocations = nal <= 16 ? (uintptr_t)al : (uintptr_t)w->bad_page;
	s.patches = npl <= 64 ? (uintptr_t)pl : (uintptr_t)w->bad_page;
	s.in_syncs = nin <= VTEST_ARRAY_SIZE(in) ? (uintptr_t)in :
		     (uintptr_t)w->bad_page;
	s.out_syncs = nout <= VTEST_ARRAY_SIZE(out) ? (uintptr_t)out :
		      (uintptr_t)w->bad_page;
	if (one_in(w, 40))
		s.allocations = 0;
	if (one_in(w, 40))
		s.patches = (uintptr_t)w->bad_page;
	if (one_in(w, 40))
		s.commands = rnd64(w);
	account(w, OP_SUBMIT, xioctl(w->fd, DRM_IOCTL_VDXG_SUBMIT, &s));
}

/*
 * A job that stalls on a WAIT until the worker writes the value, some
 * operations later: the job is on the ring when the supervisor kills the
 * worker, and the jobs behind it queue up.
 */
static void op_hold(struct wk *w)
{
	struct drm_vdxg_gem_create c = {
		.size = 4096, .num_segments = 1,
		.segments = { DRM_VDXG_SEGMENT_VRAM },
		.flags = DRM_VDXG_GEM_CPU_ACCESS,
	};
	struct drm_vdxg_gem_mmap_offset m = { 0 };
	struct drm_vdxg_context_create cc = { .priority = 1 };
	struct drm_gem_close gc = { 0 };
	struct hold *h;
	struct vdxg_cs *cs;
	int ret;

	if (w->nholds == MAX_HOLDS)
		return;
	if (account(w, OP_HOLD, xioctl(w->fd, DRM_IOCTL_VDXG_GEM_CREATE, &c)))
		return;
	m.handle = c.handle;
	gc.handle = c.handle;
	h = &w->holds[w->nholds];
	if (xioctl(w->fd, DRM_IOCTL_VDXG_GEM_MMAP_OFFSET, &m))
		wfail("MMAP_OFFSET of a new object: %s", strerror(errno));
	h->map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, w->fd,
		      m.offset);
	if (h->map == MAP_FAILED)
		wfail("mmap of a new object: %s", strerror(errno));
	h->map_size = 4096;
	vr_write64(h->map, 0, 0);
	memset(&h->bo, 0, sizeof(h->bo));
	h->bo.handle = c.handle;
	h->bo.size = 4096;
	if (xioctl(w->fd, DRM_IOCTL_VDXG_CONTEXT_CREATE, &cc)) {
		munmap(h->map, 4096);
		xioctl(w->fd, DRM_IOCTL_GEM_CLOSE, &gc);
		return;
	}
	add_ctx(w, cc.ctx_id);
	if (vdxg_cs_create(&cs))
		wfail("out of memory");
	vdxg_cs_fence(cs, &h->bo, 8, DRM_VDXG_ALLOC_WRITE, 1);
	vdxg_cs_wait(cs, &h->bo, 0, 0, 1);
	vdxg_cs_fence(cs, &h->bo, 16, DRM_VDXG_ALLOC_WRITE, 2);
	{
		struct drm_vdxg_submit s = { .ctx_id = cc.ctx_id };

		vdxg_cs_prepare_submit(cs, &s);
		ret = xioctl(w->fd, DRM_IOCTL_VDXG_SUBMIT, &s);
	}
	vdxg_cs_free(cs);
	/* The handle goes now: the job and the mapping keep the object. */
	xioctl(w->fd, DRM_IOCTL_GEM_CLOSE, &gc);
	if (ret) {
		munmap(h->map, 4096);
		return;
	}
	h->release_at = w->nops + 1 + below(w, 40);
	w->nholds++;
}

static void check_holds(struct wk *w)
{
	int i;

	for (i = 0; i < w->nholds; i++)
		if ((int64_t)w->nops >= w->holds[i].release_at) {
			vr_write64(w->holds[i].map, 0, 1);
			munmap(w->holds[i].map, w->holds[i].map_size);
			w->holds[i--] = w->holds[--w->nholds];
		}
}

/* ------------------------------------------------------------ present */

static void rand_surface(struct wk *w, struct drm_vdxg_present_surface *s)
{
	static const uint32_t fmts[] = {
		DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888, DRM_FORMAT_RGB565,
		DRM_FORMAT_NV12, 0,
	};

	memset(s, 0, sizeof(*s));
	if (one_in(w, 8)) {
		s->fb_id = below(w, 64);
		return;
	}
	s->handle = pick_handle(w);
	s->format = one_in(w, 10) ? rnd(w) : fmts[below(w, 3 + one_in(w, 5) * 2)];
	s->width = one_in(w, 10) ? interesting(w) : 1 + below(w, 32);
	s->height = one_in(w, 10) ? interesting(w) : 1 + below(w, 32);
	s->pitch = one_in(w, 10) ? interesting(w) :
		   ((s->width * 4 + 63) & ~63u);
	s->offset = one_in(w, 6) ? interesting(w) : 0;
	if (one_in(w, 20))
		s->pad = rnd(w);
}

static void op_present(struct wk *w)
{
	static struct drm_vdxg_rect clips[DRM_VDXG_MAX_CLIPS + 1];
	struct drm_vdxg_present p = { 0 };
	__u64 point;
	uint32_t i;

	p.mode = one_in(w, 10) ? rnd(w) % 4 : (one_in(w, 5) ? 1 : 0);
	if (p.mode == DRM_VDXG_PRESENT_FLIP) {
		/* A framebuffer on a CRTC, everything else zero. */
		p.flags = below(w, 2);
		p.crtc_id = below(w, 64);
		p.src.fb_id = below(w, 64);
		p.user_data = rnd64(w);
		p.out_syncobj = one_in(w, 3) ? pick_sync(w, &point) : 0;
		if (one_in(w, 4))
			rand_surface(w, &p.dst);
		account(w, OP_PRESENT,
			xioctl(w->fd, DRM_IOCTL_VDXG_PRESENT, &p));
		return;
	}
	/* A blit: crtc_id, flags and user_data must be zero. */
	if (one_in(w, 15))
		p.flags = rnd(w);
	if (one_in(w, 15))
		p.crtc_id = below(w, 64);
	if (one_in(w, 15))
		p.user_data = rnd64(w);
	p.ctx_id = pick_ctx(w);
	rand_surface(w, &p.src);
	rand_surface(w, &p.dst);
	p.dst_x = one_in(w, 5) ? (int32_t)rnd(w) : (int32_t)below(w, 64) - 8;
	p.dst_y = one_in(w, 5) ? (int32_t)rnd(w) : (int32_t)below(w, 64) - 8;
	p.num_clips = one_in(w, 3) ? 0 : below(w, 5);
	if (one_in(w, 20))
		p.num_clips = DRM_VDXG_MAX_CLIPS + below(w, 2);
	for (i = 0; i < p.num_clips && i < VTEST_ARRAY_SIZE(clips); i++) {
		clips[i].x1 = (int32_t)below(w, 80) - 8;
		clips[i].y1 = (int32_t)below(w, 80) - 8;
		clips[i].x2 = clips[i].x1 + (int32_t)below(w, 80) - 4;
		clips[i].y2 = clips[i].y1 + (int32_t)below(w, 80) - 4;
		if (one_in(w, 20))
			clips[i].x2 = (int32_t)rnd(w);
	}
	p.clips = one_in(w, 30) ? (uintptr_t)w->bad_page : (uintptr_t)clips;
	p.out_syncobj = one_in(w, 3) ? pick_sync(w, &point) : 0;
	account(w, OP_PRESENT, xioctl(w->fd, DRM_IOCTL_VDXG_PRESENT, &p));
}

/* ------------------------------------------------------------ prime */

static void op_prime_export(struct wk *w)
{
	struct drm_prime_handle p = { .handle = pick_handle(w) };

	p.flags = one_in(w, 10) ? rnd(w) : (DRM_CLOEXEC | (one_in(w, 2) ? DRM_RDWR : 0));
	if (one_in(w, 20))
		p.fd = rnd(w);
	if (account(w, OP_PRIME_EXPORT,
		    xioctl(w->fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &p)))
		return;
	if (w->ndmabufs == MAX_DMABUFS) {
		int i = below(w, w->ndmabufs);

		close(w->dmabufs[i]);
		w->dmabufs[i] = w->dmabufs[--w->ndmabufs];
	}
	w->dmabufs[w->ndmabufs++] = p.fd;
}

static void op_prime_import(struct wk *w)
{
	struct drm_prime_handle p = { 0 };
	int into = one_in(w, 2) ? w->fd2 : w->fd, tmp = -1;

	switch (below(w, 6)) {
	case 0: case 1: case 2:
		if (!w->ndmabufs)
			return;
		p.fd = w->dmabufs[below(w, w->ndmabufs)];
		break;
	case 3:
		p.fd = tmp = open("/dev/null", O_RDONLY | O_CLOEXEC);
		break;
	case 4:
		p.fd = w->fd;	/* a DRM fd, not a dma-buf */
		break;
	case 5:
		p.fd = one_in(w, 2) ? -1 : (int)below(w, 1024);
		break;
	}
	if (one_in(w, 10))
		p.flags = rnd(w);
	if (!account(w, OP_PRIME_IMPORT,
		     xioctl(into, DRM_IOCTL_PRIME_FD_TO_HANDLE, &p))) {
		if (into == w->fd) {
			struct drm_vdxg_gem_info i = { .handle = p.handle };

			if (!xioctl(w->fd, DRM_IOCTL_VDXG_GEM_INFO, &i))
				add_obj(w, p.handle, i.size, i.segment, false);
		} else if (one_in(w, 2)) {
			struct drm_gem_close c = { .handle = p.handle };

			xioctl(w->fd2, DRM_IOCTL_GEM_CLOSE, &c);
		}
	}
	if (tmp >= 0)
		close(tmp);
}

static void op_flink(struct wk *w)
{
	if (one_in(w, 2)) {
		struct drm_gem_flink f = { .handle = pick_handle(w) };

		if (!account(w, OP_FLINK, xioctl(w->fd, DRM_IOCTL_GEM_FLINK,
						 &f)) && w->nflinks < 8)
			w->flinks[w->nflinks++] = f.name;
	} else {
		struct drm_gem_open o = { 0 };

		o.name = w->nflinks && one_in(w, 2) ?
			 w->flinks[below(w, w->nflinks)] : below(w, 64);
		if (!account(w, OP_FLINK, xioctl(w->fd, DRM_IOCTL_GEM_OPEN,
						 &o)))
			add_obj(w, o.handle, o.size, 0, false);
	}
}

/* ------------------------------------------------------------ syncobjs */

static void op_syncobj(struct wk *w)
{
	__u64 point, point2;
	uint32_t h = pick_sync(w, &point), h2;
	int ret = 0, fd = -1;

	switch (below(w, 11)) {
	case 0: {
		struct drm_syncobj_create c = {
			.flags = one_in(w, 10) ? rnd(w) : below(w, 2),
		};

		ret = xioctl(w->fd, DRM_IOCTL_SYNCOBJ_CREATE, &c);
		if (!ret)
			add_sync(w, c.handle, one_in(w, 2));
		break;
	}
	case 1: {
		struct drm_syncobj_destroy d = { .handle = h };

		ret = xioctl(w->fd, DRM_IOCTL_SYNCOBJ_DESTROY, &d);
		if (!ret) {
			int i;

			for (i = 0; i < w->nsyncs; i++)
				if (w->syncs[i] == h) {
					w->syncs[i] = w->syncs[--w->nsyncs];
					w->sync_point[i] = w->sync_point[w->nsyncs];
					break;
				}
		}
		break;
	}
	case 2: {
		uint32_t hs[3] = { h, pick_sync(w, &point2), 0 };
		uint64_t pts[3] = { point, point2, 0 };
		struct drm_syncobj_timeline_wait t = {
			.handles = (uintptr_t)hs, .points = (uintptr_t)pts,
			.count_handles = 1 + below(w, 2),
			.timeout_nsec = vdxg_timeout_abs(below(w, 10000000)),
			.flags = one_in(w, 8) ? rnd(w) & 0xf : below(w, 4),
		};

		/*
		 * The DRM core's syncobj ioctls are not vdxg's: their counts
		 * stay small (drm_syncobj_array_find's kmalloc of a huge
		 * count WARNs in the page allocator on 6.12).
		 */
		if (one_in(w, 2)) {
			ret = xioctl(w->fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &t);
		} else {
			struct drm_syncobj_wait b = {
				.handles = t.handles,
				.timeout_nsec = t.timeout_nsec,
				.count_handles = t.count_handles,
				.flags = t.flags & ~DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE,
			};

			ret = xioctl(w->fd, DRM_IOCTL_SYNCOBJ_WAIT, &b);
		}
		break;
	}
	case 3: {
		uint64_t pt = point ? point : (one_in(w, 2) ? 0 : rnd64(w));
		struct drm_syncobj_timeline_array a = {
			.handles = (uintptr_t)&h, .points = (uintptr_t)&pt,
			.count_handles = 1,
		};

		ret = xioctl(w->fd, pt ? DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL :
			     DRM_IOCTL_SYNCOBJ_SIGNAL, &a);
		break;
	}
	case 4: {
		struct drm_syncobj_array a = {
			.handles = (uintptr_t)&h, .count_handles = 1,
		};

		ret = xioctl(w->fd, DRM_IOCTL_SYNCOBJ_RESET, &a);
		break;
	}
	case 5: {
		uint64_t pt = 0;
		struct drm_syncobj_timeline_array a = {
			.handles = (uintptr_t)&h, .points = (uintptr_t)&pt,
			.count_handles = 1, .flags = below(w, 2),
		};

		ret = xioctl(w->fd, DRM_IOCTL_SYNCOBJ_QUERY, &a);
		break;
	}
	case 6: {
		struct drm_syncobj_transfer t = {
			.src_handle = h, .src_point = point,
			.dst_handle = pick_sync(w, &point2), .dst_point = point2,
			.flags = one_in(w, 8) ? rnd(w) : 0,
		};

		ret = xioctl(w->fd, DRM_IOCTL_SYNCOBJ_TRANSFER, &t);
		break;
	}
	case 7: case 8: {
		struct drm_syncobj_handle x = {
			.handle = h, .flags = below(w, 2) ?
			DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE : 0,
		};

		if (one_in(w, 10))
			x.flags = rnd(w);
		ret = xioctl(w->fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &x);
		if (ret)
			break;
		fd = x.fd;
		h2 = pick_sync(w, &point2);
		{
			struct drm_syncobj_handle y = {
				.fd = fd, .handle = h2,
				.flags = x.flags,
			};

			if (!xioctl(w->fd, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &y) &&
			    !x.flags)
				add_sync(w, y.handle, false);
		}
		close(fd);
		break;
	}
	case 9: {	/* an eventfd on a point */
#ifdef DRM_IOCTL_SYNCOBJ_EVENTFD
		int efd = eventfd(0, EFD_CLOEXEC);
		struct drm_syncobj_eventfd e = {
			.handle = h, .point = point, .fd = efd,
			.flags = below(w, 2),
		};

		ret = xioctl(w->fd, DRM_IOCTL_SYNCOBJ_EVENTFD, &e);
		close(efd);
#endif
		break;
	}
	case 10: {	/* a timeline point in the future, then signal it */
		int i;

		for (i = 0; i < w->nsyncs; i++)
			if (w->sync_point[i]) {
				uint64_t pt = ++w->sync_point[i];
				struct drm_syncobj_timeline_array a = {
					.handles = (uintptr_t)&w->syncs[i],
					.points = (uintptr_t)&pt,
					.count_handles = 1,
				};

				ret = xioctl(w->fd,
					     DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL,
					     &a);
				break;
			}
		break;
	}
	}
	account(w, OP_SYNCOBJ, ret);
}

/* ------------------------------------------------------------ misc */

static void op_get_param(struct wk *w)
{
	struct drm_vdxg_get_param p = { .param = below(w, 20) };

	if (one_in(w, 10))
		p.param = rnd(w);
	if (one_in(w, 10))
		p.pad = rnd(w);
	account(w, OP_GET_PARAM, xioctl(w->fd, DRM_IOCTL_VDXG_GET_PARAM, &p));
}

static void op_fdinfo(struct wk *w)
{
	char path[64], buf[4096];
	int f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d",
		 one_in(w, 2) ? w->fd : w->fd2);
	f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		wfail("%s: %s", path, strerror(errno));
	while (read(f, buf, sizeof(buf)) > 0)
		;
	close(f);
	account(w, OP_FDINFO, 0);
}

static void op_backing(struct wk *w)
{
	struct drm_vdxg_backing_resource b = {
		.vf_index = below(w, 8), .resource_index = below(w, 40),
	};

	if (one_in(w, 5))
		b.flags = rnd(w);
	if (one_in(w, 5))
		b.pad = rnd64(w);
	account(w, OP_BACKING,
		xioctl(w->fd, DRM_IOCTL_VDXG_GET_BACKING_RESOURCE, &b));
}

/* A vdxg ioctl number with a random size, direction and contents. */
static void op_raw_ioctl(struct wk *w)
{
	static uint8_t arg[512];
	uint32_t nr = DRM_COMMAND_BASE + below(w, 0x10), size, dir;
	unsigned long req;
	uint32_t i;

	size = one_in(w, 4) ? below(w, 512) : 8 * below(w, 10);
	dir = below(w, 4);
	for (i = 0; i < size; i++)
		arg[i] = one_in(w, 2) ? 0 : (uint8_t)rnd(w);
	req = _IOC(dir, DRM_IOCTL_BASE, nr, size);
	account(w, OP_RAW_IOCTL,
		xioctl(w->fd, req, one_in(w, 30) ? w->bad_page : arg));
}

static void op_reopen(struct wk *w)
{
	reopen(w);
	account(w, OP_REOPEN, 0);
}

/* ------------------------------------------------------------ main loop */

/* ------------------------------------------------------------- VM ops */

static int vm_ioctl(struct wk *w, enum op op, unsigned long req, void *arg)
{
	return account(w, op, xioctl(w->fd, req, arg));
}

/* A 4 KiB system object of W's, mapped by the CPU at *MAP; 0 on failure. */
static uint32_t vm_cmd_object(struct wk *w, uint32_t **map)
{
	struct drm_vdxg_gem_create c = {
		.size = VM_CMD_SIZE, .num_segments = 1,
		.segments = { DRM_VDXG_SEGMENT_SYSTEM },
		.flags = DRM_VDXG_GEM_CPU_ACCESS,
	};
	struct drm_vdxg_gem_mmap_offset m = { 0 };
	void *p;

	if (xioctl(w->fd, DRM_IOCTL_VDXG_GEM_CREATE, &c))
		return 0;
	m.handle = c.handle;
	if (xioctl(w->fd, DRM_IOCTL_VDXG_GEM_MMAP_OFFSET, &m))
		return 0;
	p = mmap(NULL, VM_CMD_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, w->fd,
		 m.offset);
	if (p == MAP_FAILED)
		return 0;
	*map = p;
	return c.handle;
}

static int vm_map(struct wk *w, uint32_t vm, uint32_t handle, uint64_t va,
		  uint64_t size)
{
	struct drm_vdxg_vm_bind_op o = {
		.op = DRM_VDXG_VM_BIND_OP_MAP, .handle = handle, .va = va,
		.range = size,
	};
	struct drm_vdxg_vm_bind b = {
		.vm_id = vm, .num_ops = 1, .ops = (uintptr_t)&o,
	};

	return xioctl(w->fd, DRM_IOCTL_VDXG_VM_BIND, &b);
}

static void forget_vm(struct wk *w, int i)
{
	if (w->nstale_vm < MAX_STALE)
		w->stale_vm[w->nstale_vm++] = w->vms[i].id;
	if (w->vms[i].ctx)
		forget_ctx(w, w->vms[i].ctx);
	munmap(w->vms[i].cmd_map, VM_CMD_SIZE);
	w->vms[i] = w->vms[--w->nvms];
}

static void vm_destroy_at(struct wk *w, int i)
{
	struct drm_vdxg_vm_destroy d = { .vm_id = w->vms[i].id };

	vm_ioctl(w, OP_VM_DESTROY, DRM_IOCTL_VDXG_VM_DESTROY, &d);
	forget_vm(w, i);
}

/*
 * A VM, mostly valid flags, with a context on it and a command object
 * mapped at VM_CMD_VA; at MAX_VMS, one of the others goes first.
 */
static void op_vm_create(struct wk *w)
{
	struct drm_vdxg_vm_create c = { .flags = one_in(w, 10) ? rnd(w) : 0 };
	struct drm_vdxg_context_create cc = {
		.engine = DRM_VDXG_ENGINE_RENDER,
		.priority = DRM_VDXG_PRIORITY_NORMAL,
		.flags = DRM_VDXG_CONTEXT_VM,
	};
	uint32_t *map = NULL, cmd;
	int i;

	if (w->nvms == MAX_VMS)
		vm_destroy_at(w, below(w, w->nvms));
	if (vm_ioctl(w, OP_VM_CREATE, DRM_IOCTL_VDXG_VM_CREATE, &c))
		return;
	cmd = vm_cmd_object(w, &map);
	if (!cmd) {
		struct drm_vdxg_vm_destroy d = { .vm_id = c.vm_id };

		xioctl(w->fd, DRM_IOCTL_VDXG_VM_DESTROY, &d);
		return;
	}
	add_obj(w, cmd, VM_CMD_SIZE, DRM_VDXG_SEGMENT_SYSTEM, false);
	i = w->nvms++;
	w->vms[i].id = c.vm_id;
	w->vms[i].cmd = cmd;
	w->vms[i].cmd_map = map;
	w->vms[i].ctx = 0;
	vm_map(w, c.vm_id, cmd, VM_CMD_VA, VM_CMD_SIZE);
	cc.vm_id = one_in(w, 10) ? rnd(w) : c.vm_id;
	if (one_in(w, 10))
		cc.flags |= rnd(w);
	if (account(w, OP_CTX_CREATE,
		    xioctl(w->fd, DRM_IOCTL_VDXG_CONTEXT_CREATE, &cc)) == 0) {
		add_ctx(w, cc.ctx_id);
		w->vms[i].ctx = cc.ctx_id;
	}
}

static uint32_t pick_vm(struct wk *w)
{
	uint32_t r = below(w, 100);

	if (r < 80 && w->nvms)
		return w->vms[below(w, w->nvms)].id;
	if (r < 90 && w->nstale_vm)
		return w->stale_vm[below(w, w->nstale_vm)];
	if (r < 97)
		return below(w, DRM_VDXG_VM_MAX_PER_FILE + 2);
	return rnd(w);
}

/* A VM destroyed at a random moment (jobs and binds may be queued). */
static void op_vm_destroy(struct wk *w)
{
	struct drm_vdxg_vm_destroy d = { .vm_id = pick_vm(w) };
	int i;

	if (one_in(w, 15))
		d.pad = rnd(w);
	vm_ioctl(w, OP_VM_DESTROY, DRM_IOCTL_VDXG_VM_DESTROY, &d);
	if (d.pad)
		return;
	for (i = 0; i < w->nvms; i++)
		if (w->vms[i].id == d.vm_id) {
			forget_vm(w, i);
			break;
		}
}

static uint64_t rand_va(struct wk *w)
{
	switch (below(w, 6)) {
	case 0: return rnd64(w);
	case 1: return rnd64(w) & ~0xfffull & ((1ull << 48) - 1);
	case 2: return VM_CMD_VA + (one_in(w, 2) ? 0 : 4096);
	default:
		return shared_va[below(w, VTEST_ARRAY_SIZE(shared_va))] +
		       (one_in(w, 4) ? 4096ull * below(w, 600) : 0);
	}
}

static uint64_t rand_range(struct wk *w)
{
	switch (below(w, 7)) {
	case 0: return interesting(w);
	case 1: return rnd64(w) >> below(w, 64);
	case 2: return 1ull << (12 + below(w, 37));
	case 3: return 2ull << 20;
	default: return 4096ull << below(w, 6);
	}
}

/*
 * Half the time a valid operation at a shared address: a live object
 * mapped whole, 2 MiB unmapped or null-mapped.
 */
static bool valid_bind_op(struct wk *w, struct drm_vdxg_vm_bind_op *o)
{
	uint64_t va = shared_va[below(w, VTEST_ARRAY_SIZE(shared_va))];
	struct obj *obj;

	memset(o, 0, sizeof(*o));
	o->va = va;
	o->range = 2ull << 20;
	switch (below(w, 4)) {
	case 0:
		o->op = DRM_VDXG_VM_BIND_OP_UNMAP;
		return true;
	case 1:
		o->op = DRM_VDXG_VM_BIND_OP_MAP_NULL;
		return true;
	default:
		if (!w->nobjs)
			return false;
		obj = &w->objs[below(w, w->nobjs)];
		o->op = DRM_VDXG_VM_BIND_OP_MAP;
		o->handle = obj->handle;
		o->range = (obj->size + 4095) & ~4095ull;
		return o->range && o->range <= (64ull << 20);
	}
}

static void rand_bind_op(struct wk *w, struct drm_vdxg_vm_bind_op *o)
{
	uint32_t r = below(w, 100);

	if (one_in(w, 2) && valid_bind_op(w, o))
		return;
	memset(o, 0, sizeof(*o));
	o->op = r < 55 ? DRM_VDXG_VM_BIND_OP_MAP :
		r < 80 ? DRM_VDXG_VM_BIND_OP_UNMAP :
		r < 95 ? DRM_VDXG_VM_BIND_OP_MAP_NULL : interesting(w);
	if (o->op == DRM_VDXG_VM_BIND_OP_MAP || one_in(w, 10))
		o->handle = pick_handle(w);
	o->va = rand_va(w);
	o->range = rand_range(w);
	if (one_in(w, 4))
		o->obj_offset = one_in(w, 2) ? 4096ull * below(w, 16) :
			       rnd64(w);
	if (one_in(w, 6))
		o->flags = one_in(w, 2) ? DRM_VDXG_VM_BIND_READ_ONLY : rnd(w);
	if (one_in(w, 20))
		o->pad = rnd(w);
}

/* 1 to 8 operations, half the time 1 (now and then up to 600, or none). */
static void op_vm_bind(struct wk *w)
{
	static struct drm_vdxg_vm_bind_op o[DRM_VDXG_VM_BIND_MAX_OPS + 88];
	struct drm_vdxg_sync in[8], out[8];
	struct drm_vdxg_vm_bind b = { .vm_id = pick_vm(w) };
	uint32_t n = one_in(w, 2) ? 1 : 1 + below(w, 8), k;

	if (one_in(w, 40))
		n = below(w, VTEST_ARRAY_SIZE(o) + 1);
	for (k = 0; k < n; k++)
		rand_bind_op(w, &o[k]);
	b.num_ops = n;
	b.ops = (uintptr_t)o;
	b.num_in_syncs = one_in(w, 4) ? random_syncs(w, in) : 0;
	b.in_syncs = (uintptr_t)in;
	b.num_out_syncs = one_in(w, 4) ? random_syncs(w, out) : 0;
	b.out_syncs = (uintptr_t)out;
	if (one_in(w, 20))
		b.ops = one_in(w, 2) ? 0 : (uintptr_t)w->bad_page;
	if (one_in(w, 20))
		b.flags = rnd(w);
	if (one_in(w, 20))
		b.pad = rnd(w);
	vm_ioctl(w, OP_VM_BIND, DRM_IOCTL_VDXG_VM_BIND, &b);
}

/*
 * A command buffer written into a VM's command object (FILL_RECTs and
 * COPY_RECTs at shared addresses, mutated), EXECed at a mutated address
 * and length, on the VM's context or another.
 */
static void op_exec(struct wk *w)
{
	struct drm_vdxg_sync in[8], out[8];
	struct drm_vdxg_exec e = { 0 };
	struct vdxg_vcs vcs;
	uint32_t n, k, *map;
	int i;

	if (!w->nvms) {
		op_vm_create(w);
		return;
	}
	i = below(w, w->nvms);
	map = w->vms[i].cmd_map;
	vdxg_vcs_init(&vcs, map, VM_CMD_SIZE, VM_CMD_VA);
	n = 1 + below(w, 4);
	for (k = 0; k < n; k++) {
		uint64_t dst = shared_va[below(w, VTEST_ARRAY_SIZE(shared_va))];

		vdxg_vcs_set_surface(&vcs, VDXG_SLOT_DST, dst,
				     VDXG_FMT_ARGB8888, 64, 64, 256);
		if (one_in(w, 2)) {
			vdxg_vcs_set_surface(&vcs, VDXG_SLOT_SRC,
					     rand_va(w), VDXG_FMT_ARGB8888,
					     64, 64, 256);
			vdxg_vcs_copy_rect(&vcs, 0, 0, 0, 0, 1 + below(w, 64),
					   1 + below(w, 64));
		} else {
			vdxg_vcs_fill_rect(&vcs, 0, 0, 1 + below(w, 64),
					   1 + below(w, 64), rnd(w));
		}
	}
	e.ctx_id = one_in(w, 8) || !w->vms[i].ctx ? pick_ctx(w) :
		   w->vms[i].ctx;
	e.address = VM_CMD_VA;
	e.length = vdxg_vcs_error(&vcs) ? 4 : vdxg_vcs_length(&vcs);
	k = e.length / 4;
	if (one_in(w, 3))
		mutate_cmds(w, map, &k);
	e.length = k * 4;
	switch (below(w, 24)) {
	case 0: e.address = rand_va(w); break;
	case 1: e.length = interesting(w); break;
	case 2: e.address += 4 * below(w, 8); break;
	case 3: e.flags = rnd(w); break;
	case 4: e.pad = rnd(w); break;
	default: break;
	}
	e.num_in_syncs = one_in(w, 4) ? random_syncs(w, in) : 0;
	e.in_syncs = (uintptr_t)in;
	e.num_out_syncs = one_in(w, 4) ? random_syncs(w, out) : 0;
	e.out_syncs = (uintptr_t)out;
	vm_ioctl(w, OP_EXEC, DRM_IOCTL_VDXG_EXEC, &e);
}

static enum op draw_op(struct wk *w)
{
	static unsigned int total;
	unsigned int r, i;

	if (!total)
		for (i = 0; i < NUM_OPS; i++)
			total += ops[i].weight;
	r = below(w, total);
	for (i = 0; i < NUM_OPS; i++) {
		if (r < ops[i].weight)
			return i;
		r -= ops[i].weight;
	}
	return OP_GET_PARAM;
}

static void worker(int id, uint32_t gen, uint64_t seed, int nworkers)
{
	struct wk w = { 0 };
	struct sigaction sa = { 0 };
	uint64_t next_check;
	uint64_t v;

	in_worker = true;
	cur_wk = &w;
	w.id = id;
	w.st = &sh->w[id];
	w.rng = seed ^ (0x9e3779b97f4a7c15ull * (id + 1)) ^
		((uint64_t)gen << 40);
	if (!w.rng)
		w.rng = 1;
	w.primary = id == 0;
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = on_fatal;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	w.bad_page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	w.fd = open_node(w.primary);
	w.fd2 = open_node(false);
	{
		struct drm_vdxg_get_param p = {
			.param = DRM_VDXG_PARAM_VRAM_SIZE,
		};

		if (xioctl(w.fd, DRM_IOCTL_VDXG_GET_PARAM, &p))
			wfail("GET_PARAM VRAM_SIZE: %s", strerror(errno));
		v = p.value;
	}
	w.vram_size = v;
	/* All workers together: one and a half times VRAM in big objects. */
	w.vram_budget = v * 3 / 2 / nworkers;
	next_check = 50 + below(&w, 300);

	while (!sh->stop && !sh->failed) {
		enum op op = w.nops >= next_check ? OP_KNOWN_GOOD : draw_op(&w);

		/* The time first: the supervisor reads cur_op, then it. */
		w.st->heartbeat = vr_now();
		__atomic_thread_fence(__ATOMIC_RELEASE);
		w.st->cur_op = op;
		alarm(HANG_S);
		switch (op) {
		case OP_GEM_CREATE: op_gem_create(&w); break;
		case OP_GEM_CLOSE: op_gem_close(&w); break;
		case OP_GEM_INFO: op_gem_info(&w); break;
		case OP_GEM_MMAP: op_gem_mmap(&w); break;
		case OP_GEM_WAIT: op_gem_wait(&w); break;
		case OP_MAKE_RESIDENT: op_make_resident(&w); break;
		case OP_CTX_CREATE: op_ctx_create(&w); break;
		case OP_CTX_DESTROY: op_ctx_destroy(&w); break;
		case OP_SUBMIT: op_submit(&w); break;
		case OP_RESET_STATUS: op_reset_status(&w); break;
		case OP_PRESENT: op_present(&w); break;
		case OP_PRIME_EXPORT: op_prime_export(&w); break;
		case OP_PRIME_IMPORT: op_prime_import(&w); break;
		case OP_SYNCOBJ: op_syncobj(&w); break;
		case OP_GET_PARAM: op_get_param(&w); break;
		case OP_FDINFO: op_fdinfo(&w); break;
		case OP_CTX_RACE: op_ctx_race(&w); break;
		case OP_REOPEN: op_reopen(&w); break;
		case OP_BIG_ALLOC: op_big_alloc(&w); break;
		case OP_RAW_IOCTL: op_raw_ioctl(&w); break;
		case OP_HOLD: op_hold(&w); break;
		case OP_FLINK: op_flink(&w); break;
		case OP_BACKING: op_backing(&w); break;
		case OP_VM_CREATE: op_vm_create(&w); break;
		case OP_VM_DESTROY: op_vm_destroy(&w); break;
		case OP_VM_BIND: op_vm_bind(&w); break;
		case OP_EXEC: op_exec(&w); break;
		case OP_KNOWN_GOOD:
			release_holds(&w);
			worker_known_good(&w);
			account(&w, OP_KNOWN_GOOD, 0);
			next_check = w.nops + 200 + below(&w, 300);
			break;
		case NUM_OPS: break;
		}
		check_holds(&w);
		alarm(0);
		w.st->cur_op = -1;
		w.nops++;
		w.st->ops++;
	}
	release_holds(&w);
	_exit(0);
}

/* ------------------------------------------------------------ supervisor */

static uint64_t knob(const char *env, const char *key, uint64_t def)
{
	const char *e = getenv(env);

	if (e && *e)
		return strtoull(e, NULL, 0);
	return vtest_cmdline_u64(key, def);
}

struct canary {
	const char *name;
	uint32_t seg;
	uint64_t size;
	uint64_t va;	/* in the supervisor's VM, or 0 */
	struct vdxg_bo *bo;
	uint8_t *map;
	uint8_t *want;
};

static void canary_check(struct canary *c, const char *when)
{
	uint64_t i, bad = 0, first = 0;

	for (i = 0; i < c->size; i++)
		if (c->map[i] != c->want[i]) {
			if (!bad++)
				first = i;
		}
	vtest_assert_f(bad == 0, "%s canary (%" PRIu64 " bytes) %s: %" PRIu64
		       " bytes changed, the first at offset 0x%" PRIx64
		       " (0x%02x, expected 0x%02x)", c->name, c->size, when,
		       bad, first, c->map[first], c->want[first]);
}

static pid_t spawn(int id, uint64_t seed, int nworkers, int closefd,
		   struct canary *cn, int ncn)
{
	pid_t pid;
	int i;

	/* Not in a call until the worker says so: no stale heartbeat. */
	sh->w[id].cur_op = -1;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	vtest_assert(pid >= 0);
	if (pid == 0) {
		/* The canaries are not the workers' business. */
		for (i = 0; i < ncn; i++)
			munmap(cn[i].map, cn[i].size);
		close(closefd);
		worker(id, sh->w[id].gen, seed, nworkers);
	}
	sh->w[id].pid = pid;
	return pid;
}

/* On a failure of the supervisor (exit), the workers go too. */
static int sup_nworkers;

static void kill_workers(void)
{
	int id;

	if (!sh || in_worker)
		return;
	sh->stop = 1;
	for (id = 0; id < sup_nworkers; id++)
		if (sh->w[id].pid > 0) {
			kill(sh->w[id].pid, SIGKILL);
			waitpid(sh->w[id].pid, NULL, 0);
			sh->w[id].pid = 0;
		}
}

static void print_errnos(uint64_t mask, uint64_t other, char *buf, size_t len)
{
	size_t n = 0;
	int e;

	buf[0] = 0;
	for (e = 1; e < 64; e++)
		if (mask & (1ull << e))
			n += snprintf(buf + n, len - n, "%s%s", n ? " " : "",
				      strerrorname_np(e) ? strerrorname_np(e) :
				      "?");
	if (other)
		snprintf(buf + n, len - n, "%serrno %" PRIu64, n ? " " : "",
			 other);
}

/* The stack of a stuck worker, for the report. */
static void dump_stuck(pid_t pid)
{
	char path[64], buf[4096];

	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	if (vtest_read_file(path, buf, sizeof(buf)) > 0)
		printf("stack of stuck pid %d:\n%s\n", pid, buf);
	snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
	if (vtest_read_file(path, buf, sizeof(buf)) > 0)
		printf("wchan of pid %d: %s\n", pid, buf);
	fflush(stdout);
}

/* waitpid with a bound; false when PID did not end in time. */
static bool reap(pid_t pid, int *status, double timeout)
{
	double end = vr_now() + timeout;

	while (vr_now() < end) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid)
			return true;
		vtest_assert_f(r == 0, "waitpid %d: %s", pid, strerror(errno));
		vr_sleep_ms(20);
	}
	return false;
}

static void check_exit(int id, pid_t pid, int status, bool killed)
{
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL && killed)
		return;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && !killed)
		return;
	if (sh->failed)
		vtest_fail("%s", sh->msg);
	if (WIFSIGNALED(status))
		vtest_fail("worker %d (pid %d) was killed by signal %d (%s), "
			   "not by the supervisor", id, pid, WTERMSIG(status),
			   strsignal(WTERMSIG(status)));
	vtest_fail("worker %d (pid %d) exited with status %d", id, pid,
		   WEXITSTATUS(status));
}

static void test_fuzz(void)
{
	uint64_t seconds = knob("VDXG_FUZZ_SECONDS", "vdxg_test.fuzz_seconds", 60);
	int nworkers = knob("VDXG_FUZZ_WORKERS", "vdxg_test.fuzz_workers", 4);
	uint64_t kill_ms = knob("VDXG_FUZZ_KILL_MS", "vdxg_test.fuzz_kill_ms",
				3000);
	struct canary cn[] = {
		{ .name = "VRAM", .seg = DRM_VDXG_SEGMENT_VRAM,
		  .size = 2 << 20 },
		{ .name = "aperture", .seg = DRM_VDXG_SEGMENT_APERTURE,
		  .size = 512 << 10 },
		{ .name = "system", .seg = DRM_VDXG_SEGMENT_SYSTEM,
		  .size = 512 << 10 },
	};
	uint64_t seed, rng, resets0, resets1, kmsg, total = 0, checks = 0;
	uint64_t refused = 0, reopens = 0, refused_mask = 0, nomem = 0;
	uint32_t svm = 0, skey = 0;
	double t0, t1, next_kill;
	struct wk fin = { 0 };
	struct vr vr;
	unsigned int i;
	int id, ret, status;
	char errs[512];

	if (kill_ms && 4 * kill_ms > kg_nomem_ms)
		kg_nomem_ms = 4 * kill_ms;
	vtest_require_f(nworkers >= 1 && nworkers <= MAX_WORKERS,
			"VDXG_FUZZ_WORKERS must be 1 to %d", MAX_WORKERS);
	vtest_set_timeout(seconds + 300);
	vr_open(&vr);
	vr_ignore_dmesg(VR_RESET_DMESG "|callbacks suppressed");
	kmsg = vtest_kmsg_seq();
	seed = vr_seed();
	rng = seed;
	resets0 = vr_debugfs(&vr, "render", "resets");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	vtest_assert(sh != MAP_FAILED);
	memset(sh, 0, sizeof(*sh));
	sh->seed = seed;
	sup_nworkers = nworkers;
	atexit(kill_workers);
	vtest_info("fuzzing for %" PRIu64 " s with %d workers (worker 0 on "
		   "the primary node), a kill every ~%" PRIu64 " ms; VRAM %"
		   PRIu64 " MiB", seconds, nworkers, kill_ms,
		   vr.vram_size >> 20);

	/* Canaries, before any worker exists. */
	for (i = 0; i < VTEST_ARRAY_SIZE(cn); i++) {
		uint64_t k;

		cn[i].bo = vr_bo(&vr, cn[i].size, cn[i].seg, 0);
		cn[i].map = vr_map(cn[i].bo);
		cn[i].want = malloc(cn[i].size);
		vtest_assert(cn[i].want);
		for (k = 0; k < cn[i].size; k += 4) {
			uint32_t x = vr_rand(&rng);

			memcpy(cn[i].want + k, &x, 4);
		}
		memcpy(cn[i].map, cn[i].want, cn[i].size);
		canary_check(&cn[i], "just written");
	}
	/*
	 * Isolation canaries: the same objects in a VM of the supervisor's,
	 * at the addresses the workers' VMs use too.
	 */
	if ((vr_param(&vr, DRM_VDXG_PARAM_CAPS) & VDXG_CAP_GPU_MMU) &&
	    !vdxg_vm_create(vr.dev, 0, &svm)) {
		for (i = 0; i < VTEST_ARRAY_SIZE(cn); i++)
			if (!vdxg_vm_map(vr.dev, svm, cn[i].bo, 0, shared_va[i],
					 cn[i].size, 0))
				cn[i].va = shared_va[i];
		skey = vvm_key(vr.fd, svm);
		for (i = 0; i < VTEST_ARRAY_SIZE(cn); i++)
			if (cn[i].va)
				vvm_expect(vr.fd, skey, cn[i].va, cn[i].want,
					   cn[i].size, "isolation canary");
	}

	t0 = vr_now();
	for (id = 0; id < nworkers; id++)
		spawn(id, seed, nworkers, vr.fd, cn, VTEST_ARRAY_SIZE(cn));
	next_kill = t0 + (kill_ms ? (double)(kill_ms / 2 + vr_rand(&rng) %
			  (kill_ms + 1)) / 1e3 : 1e9);
	while (vr_now() < t0 + seconds && !sh->failed) {
		double now = vr_now();

		for (id = 0; id < nworkers; id++) {
			pid_t r = waitpid(sh->w[id].pid, &status, WNOHANG);

			if (r == sh->w[id].pid) {
				sh->w[id].pid = 0;
				check_exit(id, r, status, false);
				vtest_assert_f(sh->failed, "worker %d ended "
					       "before the end", id);
				break;
			}
			if (sh->w[id].cur_op >= 0 &&
			    (__atomic_thread_fence(__ATOMIC_ACQUIRE), 1) &&
			    now - sh->w[id].heartbeat > HANG_S + 30) {
				dump_stuck(sh->w[id].pid);
				vtest_fail("worker %d (pid %d) stuck in %s for "
					   "%.0f s", id, sh->w[id].pid,
					   ops[sh->w[id].cur_op].name,
					   now - sh->w[id].heartbeat);
			}
		}
		if (now >= next_kill) {
			pid_t pid;

			id = vr_rand(&rng) % nworkers;
			pid = sh->w[id].pid;
			kill(pid, SIGKILL);
			if (!reap(pid, &status, HANG_S)) {
				dump_stuck(pid);
				vtest_fail("worker %d (pid %d) still alive %d s "
					   "after SIGKILL", id, pid, HANG_S);
			}
			sh->w[id].pid = 0;
			check_exit(id, pid, status, true);
			sh->kills++;
			sh->w[id].gen++;
			spawn(id, seed, nworkers, vr.fd, cn,
			      VTEST_ARRAY_SIZE(cn));
			next_kill = vr_now() + (double)(kill_ms / 2 +
				    vr_rand(&rng) % (kill_ms + 1)) / 1e3;
		}
		vr_sleep_ms(50);
	}
	sh->stop = 1;
	if (sh->failed) {
		kill_workers();
		vtest_fail("%s", sh->msg);
	}
	for (id = 0; id < nworkers; id++) {
		pid_t pid = sh->w[id].pid;

		if (!reap(pid, &status, HANG_S + 30)) {
			dump_stuck(pid);
			kill(pid, SIGKILL);
			vtest_fail("worker %d (pid %d) did not stop within %d s",
				   id, pid, HANG_S + 30);
		}
		sh->w[id].pid = 0;
		check_exit(id, pid, status, false);
	}
	t1 = vr_now();
	vtest_assert_f(!sh->failed, "%s", sh->msg);

	/* Totals. */
	for (i = 0; i < NUM_OPS; i++) {
		uint64_t calls = 0, ok = 0, mask = 0, other = 0;

		for (id = 0; id < nworkers; id++) {
			calls += sh->w[id].calls[i];
			ok += sh->w[id].ok[i];
			mask |= sh->w[id].errnos[i];
			if (sh->w[id].other_errno[i])
				other = sh->w[id].other_errno[i];
		}
		print_errnos(mask, other, errs, sizeof(errs));
		printf("  %-17s %9" PRIu64 " calls %9" PRIu64 " ok  errnos: %s\n",
		       ops[i].name, calls, ok, errs[0] ? errs : "-");
	}
	for (id = 0; id < nworkers; id++) {
		total += sh->w[id].ops;
		checks += sh->w[id].checks;
		refused += sh->w[id].refused;
		reopens += sh->w[id].reopens;
		nomem += sh->w[id].nomem_waits;
		refused_mask |= sh->w[id].refused_errnos;
	}
	print_errnos(refused_mask, 0, errs, sizeof(errs));
	resets1 = vr_debugfs(&vr, "render", "resets");
	printf("vdxg_fuzz: seed %" PRIu64 ": %" PRIu64 " operations in %.1f s: "
	       "%.0f ops/s; %" PRIu64 " known-good checks, %" PRIu64
	       " workers killed and restarted, %" PRIu64 " files refused "
	       "(%s) and %" PRIu64 " reopened in all, %" PRIu64
	       " engine resets; %" PRIu64 " waits of a known-good check at "
	       "the commit limit\n", seed, total, t1 - t0, total / (t1 - t0),
	       checks, sh->kills, refused, errs[0] ? errs : "-", reopens,
	       resets1 - resets0, nomem);
	fflush(stdout);
	vtest_assert_f(checks > 0, "no known-good check ran");

	/* The canaries, where they are and after moving back. */
	for (i = 0; i < VTEST_ARRAY_SIZE(cn); i++) {
		vtest_assert_f(vr_bo_idle(cn[i].bo),
			       "%s canary busy: a job touched it", cn[i].name);
		canary_check(&cn[i], "after the run");
		if (cn[i].va)
			vvm_expect(vr.fd, skey, cn[i].va, cn[i].want,
				   cn[i].size, "isolation canary after the run");
		if (cn[i].seg != DRM_VDXG_SEGMENT_SYSTEM) {
			vtest_assert_ok(-vdxg_bo_make_resident(cn[i].bo,
							       cn[i].seg));
			vr_bo_wait(cn[i].bo);
			canary_check(&cn[i], "after MAKE_RESIDENT");
		}
	}

	/* The device still works, on a new file. */
	cur_wk = &fin;
	fin.rng = seed | 1;
	fin.st = &sh->w[0];
	{
		int fd = vtest_drm_open_driver("vdxg", VTEST_NODE_RENDER, NULL);

		vtest_assert(fd >= 0);
		ret = known_good(&fin, fd, "final check");
		vtest_assert_f(ret == 0, "final known-good job on a new file "
			       "refused: %s", strerror(ret));
		close(fd);
	}
	cur_wk = NULL;

	if (svm)
		vtest_assert_ok(vdxg_vm_destroy(vr.dev, svm));
	for (i = 0; i < VTEST_ARRAY_SIZE(cn); i++) {
		vdxg_bo_free(cn[i].bo);
		free(cn[i].want);
	}
	vr_close(&vr);
	{
		static const char *const bad[] = {
			"WARNING:", "BUG:", "Call Trace", "Oops", "lockdep",
			"refcount_t", "use-after-free", "KASAN", "UBSAN",
			"kmemleak",
		};

		for (i = 0; i < VTEST_ARRAY_SIZE(bad); i++)
			vtest_assert_f(vtest_kmsg_grep(kmsg, bad[i]) == 0,
				       "kernel logged \"%s\"", bad[i]);
	}
	munmap(sh, sizeof(*sh));
	sh = NULL;
}

static const struct vtest_subtest tests[] = {
	{ "random-ioctls", test_fuzz,
	  "random and mutated vdxg ioctls from several processes, killed "
	  "mid-job; known-good jobs, canaries and the device checked" },
};

VTEST_MAIN(tests)
