// SPDX-License-Identifier: MIT
/*
 * vdxg-bench: measure vdxg against the CPU, or against itself, in the same
 * run.
 *
 * Usage: vdxg-bench paging|submit [repeats]
 *
 * paging: round-trip eviction bandwidth of 64 MiB objects (VRAM to system
 * memory and back, each move a chain of paging buffers on the PAGING
 * engine) over memcpy bandwidth of the same size, and the latency of a
 * single 4 KiB move. Each figure is the median of the repeats.
 *
 * submit: the RENDER submission path (through libvdxg):
 * - NOP submit-plus-wait rate: one NOP, submitted and waited for (through
 *   an out-syncobj), back to back;
 * - submit cost: microseconds in the SUBMIT ioctl alone (no wait; the jobs
 *   are drained every few submits, outside the timing; the median call of
 *   each repeat), for 1, 16 and 256 allocations crossed with 0, 64 and
 *   1024 patch locations (FENCEs spread over the objects), with right
 *   presumed addresses (the kernel skips
 *   patching) and with stale ones (zero: every field patched and the
 *   addresses written back), and the ratio stale / right: the speedup of
 *   the presumed-address skip;
 * - throughput of 1, 2, 4 and 8 client processes, each with its own file,
 *   context and object, submitting small jobs (a 32x32 fill and a fence):
 *   jobs per second, and the ratio to one client.
 * Each figure is the median of the repeats; ratios are of the medians.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <drm.h>
#include "vdxg_drm.h"
#define BIT(n)		(1u << (n))
#define BIT_ULL(n)	(1ull << (n))
#include "vdxg_hw.h"
#include "vdxg.h"

#define BIG	(64ull << 20)

static int fd;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void xioctl(unsigned long req, void *arg, const char *what)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret && (errno == EINTR || errno == EAGAIN));
	if (ret) {
		fprintf(stderr, "vdxg-bench: %s: %s\n", what, strerror(errno));
		exit(1);
	}
}

static int open_render(void)
{
	char name[16];
	glob_t g;
	size_t i;

	if (glob("/dev/dri/renderD*", 0, NULL, &g))
		return -1;
	for (i = 0; i < g.gl_pathc; i++) {
		struct drm_version v = { .name = name, .name_len = 15 };
		int f = open(g.gl_pathv[i], O_RDWR | O_CLOEXEC);

		memset(name, 0, sizeof(name));
		if (f >= 0 && !ioctl(f, DRM_IOCTL_VERSION, &v) &&
		    !strcmp(name, "vdxg")) {
			globfree(&g);
			return f;
		}
		if (f >= 0)
			close(f);
	}
	globfree(&g);
	return -1;
}

static uint32_t create(uint64_t size)
{
	struct drm_vdxg_gem_create c = {
		.size = size, .num_segments = 2,
		.segments = { DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_SYSTEM },
	};

	xioctl(DRM_IOCTL_VDXG_GEM_CREATE, &c, "GEM_CREATE");
	return c.handle;
}

static void move(uint32_t h, uint32_t segment)
{
	struct drm_vdxg_gem_make_resident r = { .handle = h, .segment = segment };
	struct drm_vdxg_gem_wait w = { .handle = h, .timeout_ns = 60000000000ll };

	xioctl(DRM_IOCTL_VDXG_GEM_MAKE_RESIDENT, &r, "MAKE_RESIDENT");
	xioctl(DRM_IOCTL_VDXG_GEM_WAIT, &w, "GEM_WAIT");
}

static void fill(uint32_t h, uint64_t size)
{
	struct drm_vdxg_gem_mmap_offset mo = { .handle = h };
	uint32_t *p;
	uint64_t i;

	xioctl(DRM_IOCTL_VDXG_GEM_MMAP_OFFSET, &mo, "MMAP_OFFSET");
	p = mmap(NULL, size, PROT_WRITE, MAP_SHARED, fd, mo.offset);
	if (p == MAP_FAILED) {
		perror("vdxg-bench: mmap");
		exit(1);
	}
	for (i = 0; i < size / 4; i++)
		p[i] = i;
	munmap(p, size);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct stat3 {
	double med, min, max;
};

static struct stat3 summarize(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp);
	return (struct stat3){ v[n / 2], v[0], v[n - 1] };
}

static void row(const char *what, struct stat3 s, const char *unit)
{
	printf("%-40s %10.2f %10.2f %10.2f  %s\n", what, s.med, s.min, s.max,
	       unit);
}

static int bench_paging(int repeats)
{
	double *cpu = calloc(repeats, sizeof(double));
	double *gpu = calloc(repeats, sizeof(double));
	double *lat = calloc(repeats, sizeof(double));
	char *a = malloc(BIG), *b = malloc(BIG);
	struct stat3 sc, sg, sl;
	uint32_t big, small;
	int i;

	if (!cpu || !gpu || !lat || !a || !b)
		return 1;
	memset(a, 1, BIG);
	memset(b, 2, BIG);

	big = create(BIG);
	fill(big, BIG);
	move(big, DRM_VDXG_SEGMENT_VRAM);
	small = create(4096);
	fill(small, 4096);
	move(small, DRM_VDXG_SEGMENT_VRAM);

	for (i = 0; i < repeats; i++) {
		double t = now();

		memcpy(b, a, BIG);
		memcpy(a, b, BIG);
		cpu[i] = 2 * BIG / (now() - t) / (1 << 20);

		t = now();
		move(big, DRM_VDXG_SEGMENT_SYSTEM);
		move(big, DRM_VDXG_SEGMENT_VRAM);
		gpu[i] = 2 * BIG / (now() - t) / (1 << 20);

		t = now();
		move(small, DRM_VDXG_SEGMENT_SYSTEM);
		lat[i] = (now() - t) * 1e6;
		move(small, DRM_VDXG_SEGMENT_VRAM);
	}

	sc = summarize(cpu, repeats);
	sg = summarize(gpu, repeats);
	sl = summarize(lat, repeats);
	printf("%-40s %10s %10s %10s\n", "paging (64 MiB objects)", "median",
	       "min", "max");
	row("memcpy, same size, round trip", sc, "MiB/s");
	row("eviction VRAM->system->VRAM", sg, "MiB/s");
	row("single 4 KiB move latency", sl, "us");
	printf("%-40s %10.3f\n", "ratio paging/memcpy (medians)", sg.med / sc.med);
	return 0;
}

/* ------------------------------------------------------------- submit */

static struct vdxg_device *dev;

static void check(int ret, const char *what)
{
	if (ret) {
		fprintf(stderr, "vdxg-bench: %s: %s\n", what, strerror(-ret));
		exit(1);
	}
}

static uint32_t new_ctx(struct vdxg_device *d)
{
	uint32_t ctx;

	check(vdxg_context_create(d, DRM_VDXG_ENGINE_RENDER,
				  DRM_VDXG_PRIORITY_NORMAL, 0, &ctx),
	      "CONTEXT_CREATE");
	return ctx;
}

static struct vdxg_bo *new_bo(struct vdxg_device *d, uint64_t size)
{
	uint32_t seg = DRM_VDXG_SEGMENT_VRAM;
	struct vdxg_bo *bo;

	check(vdxg_bo_create(d, size, &seg, 1, 0, &bo), "GEM_CREATE");
	return bo;
}

static struct vdxg_cs *new_cs(void)
{
	struct vdxg_cs *cs;

	check(vdxg_cs_create(&cs), "vdxg_cs_create");
	return cs;
}

/* NOP jobs submitted and waited for, one at a time, for about SECONDS. */
static double nop_rate(uint32_t ctx, double seconds)
{
	struct vdxg_cs *cs = new_cs();
	struct drm_vdxg_sync out;
	struct vdxg_submit_opts o = { .out_syncs = &out, .num_out_syncs = 1 };
	double t0, t;
	uint32_t s;
	long n = 0;

	check(vdxg_syncobj_create(dev, 0, &s), "SYNCOBJ_CREATE");
	out = vdxg_sync(s, 0);
	vdxg_cs_nop(cs);
	t0 = now();
	do {
		check(vdxg_submit(dev, ctx, cs, &o), "SUBMIT");
		check(vdxg_syncobj_wait(dev, &s, NULL, 1,
					vdxg_timeout_abs(10000000000ll), 0,
					NULL), "SYNCOBJ_WAIT");
		n++;
		t = now() - t0;
	} while (t < seconds);
	vdxg_syncobj_destroy(dev, s);
	vdxg_cs_free(cs);
	return n / t;
}

#define MAX_ALLOCS	256
#define COST_BO		16384	/* room for 1024 fences in one object */

static struct vdxg_bo *cost_bo[MAX_ALLOCS];
static uint64_t cost_addr[MAX_ALLOCS];

/*
 * One submission shape: NPATCH FENCEs spread over the first NALLOC
 * objects (each listed once), the others listed without a field, with
 * the right presumed addresses or zero ones. Submitted raw, never
 * completed, so that a stale one stays stale.
 */
static struct vdxg_cs *cost_cs(int nalloc, int npatch, bool stale)
{
	struct vdxg_cs *cs = new_cs();
	int i;

	for (i = 0; i < nalloc; i++)
		cost_bo[i]->gpu_addr = stale ? 0 : cost_addr[i];
	if (!npatch)
		vdxg_cs_nop(cs);
	for (i = 0; i < npatch; i++)
		vdxg_cs_fence(cs, cost_bo[i % nalloc], 8 * (i / nalloc),
			      DRM_VDXG_ALLOC_WRITE, i);
	for (i = npatch; i < nalloc; i++) {
		struct drm_vdxg_allocation a = {
			.handle = cost_bo[i]->handle,
			.flags = DRM_VDXG_ALLOC_WRITE,
			.presumed_gpu_addr = stale ? 0 : cost_addr[i],
		};

		vdxg_cs_add_raw_allocation(cs, &a);
	}
	check(vdxg_cs_error(cs), "building the command buffer");
	return cs;
}

/*
 * Microseconds per SUBMIT ioctl: the median of ITERS calls (robust to the
 * guest being preempted now and then); jobs drained in between, untimed.
 */
static double submit_cost(uint32_t ctx, int nalloc, int npatch, bool stale,
			  int iters)
{
	struct vdxg_cs *cs = cost_cs(nalloc, npatch, stale);
	uint32_t bytes = vdxg_cs_num_dwords(cs) * 4, drain;
	double *t = calloc(iters, sizeof(*t)), med;
	struct drm_vdxg_submit args;
	int i;

	if (!t)
		exit(1);
	/* Keep well inside the kernel's 1 MiB pool of DMA buffers. */
	drain = (256 << 10) / bytes;
	if (drain > 32)
		drain = 32;
	if (drain < 1)
		drain = 1;
	for (i = 0; i < iters; i++) {
		double t0;

		memset(&args, 0, sizeof(args));
		check(vdxg_cs_prepare_submit(cs, &args), "prepare");
		args.ctx_id = ctx;
		t0 = now();
		check(vdxg_submit_raw(dev, &args), "SUBMIT");
		t[i] = now() - t0;
		if ((args.out_flags & DRM_VDXG_SUBMIT_OUT_PATCHED) != stale) {
			fprintf(stderr, "vdxg-bench: %d allocations, %d "
				"patches, %s: out_flags 0x%x\n", nalloc,
				npatch, stale ? "stale" : "right",
				args.out_flags);
			exit(1);
		}
		if (i % drain == drain - 1)
			check(vdxg_bo_wait(cost_bo[0], 60000000000ll), "wait");
	}
	check(vdxg_bo_wait(cost_bo[0], 60000000000ll), "wait");
	vdxg_cs_free(cs);
	med = summarize(t, iters).med * 1e6;
	free(t);
	return med;
}

/* One client: its own file, context and object; JOBS jobs after GO. */
static void client(int jobs, int ready, int go)
{
	struct vdxg_device *d;
	struct vdxg_bo *bo;
	struct vdxg_cs *cs = new_cs();
	uint32_t ctx;
	char c = 0;
	int i;

	check(vdxg_device_open(NULL, &d), "open");
	ctx = new_ctx(d);
	bo = new_bo(d, 64 << 10);
	vdxg_cs_set_surface(cs, VDXG_SLOT_DST, bo, 0, DRM_VDXG_ALLOC_WRITE,
			    VDXG_FMT_XRGB8888, 32, 32, 128);
	vdxg_cs_fill_rect(cs, 0, 0, 32, 32, 0xff00ff00);
	vdxg_cs_fence(cs, bo, 32768, DRM_VDXG_ALLOC_WRITE, 1);
	/* Placed and patched once before the clock starts. */
	check(vdxg_submit(d, ctx, cs, NULL), "SUBMIT");
	check(vdxg_bo_wait(bo, 60000000000ll), "wait");
	if (write(ready, &c, 1) != 1 || read(go, &c, 1) != 0)
		exit(1);
	for (i = 0; i < jobs; i++) {
		check(vdxg_submit(d, ctx, cs, NULL), "SUBMIT");
		if (i % 16 == 15)
			check(vdxg_bo_wait(bo, 60000000000ll), "wait");
	}
	check(vdxg_bo_wait(bo, 60000000000ll), "wait");
	exit(0);
}

/* Jobs per second of N clients submitting JOBS jobs each. */
static double clients_rate(int n, int jobs)
{
	int ready[2], go[2], i, status, failed = 0;
	pid_t pid[8];
	double t0;
	char c;

	if (pipe(ready) || pipe(go))
		exit(1);
	for (i = 0; i < n; i++) {
		pid[i] = fork();
		if (pid[i] < 0)
			exit(1);
		if (!pid[i]) {
			close(ready[0]);
			close(go[1]);
			client(jobs, ready[1], go[0]);
		}
	}
	close(ready[1]);
	close(go[0]);
	for (i = 0; i < n; i++)
		if (read(ready[0], &c, 1) != 1)
			failed = 1;
	t0 = now();
	close(go[1]);
	for (i = 0; i < n; i++)
		if (waitpid(pid[i], &status, 0) != pid[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			failed = 1;
	close(ready[0]);
	if (failed) {
		fprintf(stderr, "vdxg-bench: a client failed\n");
		exit(1);
	}
	return n * jobs / (now() - t0);
}

static int bench_submit(int repeats)
{
	static const int allocs[] = { 1, 16, 256 };
	static const int patches[] = { 0, 64, 1024 };
	static const int clients[] = { 1, 2, 4, 8 };
	double *v = calloc(repeats, sizeof(double));
	double *w = calloc(repeats, sizeof(double));
	struct stat3 nop, right[3][3], stale[3][3], rate[4];
	uint32_t ctx;
	unsigned int a, p, c;
	char what[64];
	int i, ret;

	if (!v || !w)
		return 1;
	ret = vdxg_device_open(NULL, &dev);
	if (ret) {
		fprintf(stderr, "vdxg-bench: no vdxg render node: %s\n",
			strerror(-ret));
		return 1;
	}
	ctx = new_ctx(dev);
	for (i = 0; i < MAX_ALLOCS; i++) {
		cost_bo[i] = new_bo(dev, COST_BO);
		check(vdxg_bo_info(cost_bo[i], NULL, &cost_addr[i]), "GEM_INFO");
	}

	for (i = 0; i < repeats; i++)
		v[i] = nop_rate(ctx, 1.0);
	nop = summarize(v, repeats);

	for (a = 0; a < 3; a++) {
		for (p = 0; p < 3; p++) {
			int iters = patches[p] == 1024 || allocs[a] == 256 ?
				    100 : 400;

			/* Warm up: placement, first patches, caches. */
			submit_cost(ctx, allocs[a], patches[p], false, 10);
			for (i = 0; i < repeats; i++) {
				v[i] = submit_cost(ctx, allocs[a], patches[p],
						   false, iters);
				w[i] = submit_cost(ctx, allocs[a], patches[p],
						   true, iters);
			}
			right[a][p] = summarize(v, repeats);
			stale[a][p] = summarize(w, repeats);
		}
	}

	for (c = 0; c < 4; c++) {
		for (i = 0; i < repeats; i++)
			v[i] = clients_rate(clients[c], 4000 / clients[c]);
		rate[c] = summarize(v, repeats);
	}

	printf("%-40s %10s %10s %10s\n", "submit", "median", "min", "max");
	row("NOP submit + wait", nop, "submits/s");
	printf("submit ioctl only (right presumed addresses):\n");
	for (a = 0; a < 3; a++)
		for (p = 0; p < 3; p++) {
			snprintf(what, sizeof(what), "  %3d allocations, %4d patches",
				 allocs[a], patches[p]);
			row(what, right[a][p], "us/submit");
		}
	printf("submit ioctl only (stale, zero presumed addresses):\n");
	for (a = 0; a < 3; a++)
		for (p = 0; p < 3; p++) {
			snprintf(what, sizeof(what), "  %3d allocations, %4d patches",
				 allocs[a], patches[p]);
			row(what, stale[a][p], "us/submit");
		}
	printf("presumed-address skip speedup (stale / right, medians):\n");
	for (a = 0; a < 3; a++)
		for (p = 0; p < 3; p++)
			printf("  %3d allocations, %4d patches %21.2fx\n",
			       allocs[a], patches[p],
			       stale[a][p].med / right[a][p].med);
	printf("throughput (32x32 fill + fence jobs, 4000 per run):\n");
	for (c = 0; c < 4; c++) {
		snprintf(what, sizeof(what), "  %d client%s", clients[c],
			 clients[c] > 1 ? "s" : "");
		row(what, rate[c], "jobs/s");
	}
	for (c = 1; c < 4; c++)
		printf("  ratio %d clients / 1 client (medians) %13.2fx\n",
		       clients[c], rate[c].med / rate[0].med);

	for (i = 0; i < MAX_ALLOCS; i++)
		vdxg_bo_free(cost_bo[i]);
	vdxg_context_destroy(dev, ctx);
	vdxg_device_close(dev);
	free(v);
	free(w);
	return 0;
}

int main(int argc, char **argv)
{
	int repeats = argc > 2 ? atoi(argv[2]) : 5;
	bool paging = argc >= 2 && !strcmp(argv[1], "paging");
	bool submit = argc >= 2 && !strcmp(argv[1], "submit");

	if ((!paging && !submit) || repeats < 1) {
		fprintf(stderr, "usage: vdxg-bench paging|submit [repeats]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (submit)
		return bench_submit(repeats);
	fd = open_render();
	if (fd < 0) {
		fprintf(stderr, "vdxg-bench: no vdxg render node\n");
		return 1;
	}
	return bench_paging(repeats);
}
