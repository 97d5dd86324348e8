// SPDX-License-Identifier: MIT
/*
 * vdxg-load: keep one engine busy for a while and check every result, for
 * tests that do something to the machine meanwhile (the live-migration
 * test migrates the guest while the engine is in the middle of a job).
 *
 *   vdxg-load paging [-t SECONDS] [-w SECONDS] [-m MIB] [-n OBJECTS]
 *   vdxg-load draw [-t SECONDS] [-w SECONDS] [-s SIZE] [-l LAYERS]
 *
 * -t      how long to run (default 10 s); 0: until SIGTERM or SIGINT
 * -w      how long one wait for the engine may take before it counts as a
 *         stuck fence (default 30 s): longer when the test holds the
 *         engine on purpose for a while
 *
 * paging  OBJECTS objects of MIB MiB each (default 2 x 64), filled once by
 *         the CPU with a pattern of their page numbers, are moved VRAM <->
 *         system by MAKE_RESIDENT, all queued at once, so that the PAGING
 *         engine is nearly always inside a long transfer. Each time an
 *         object is back in system memory the CPU checks 3 dwords of each
 *         of its pages.
 * draw    DRAW_TRIANGLES jobs on the RENDER engine, two in flight, each
 *         LAYERS (default 24) flat, pixel-aligned rectangles (2 triangles
 *         each; the first covers it all), painted in order over a SIZE x
 *         SIZE (default 1024) target in VRAM, with colours that change
 *         from job to job. Each target is compared with the same
 *         rectangles painted by the CPU: a job lost, cut short or run
 *         twice with other colours shows.
 *
 * A progress line every second; SIGUSR1 prints one at once (the migration
 * test marks its switchover with it). SIGTERM or SIGINT ends the run as
 * its time would: the work in flight completes and is checked, then the
 * summary. Exit status 0 when every check passed, 1 on a mismatch or an
 * error (a wait that times out, -w, is a stuck fence).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BIT(n)		(1u << (n))
#define BIT_ULL(n)	(1ull << (n))
#include "vdxg.h"
#include "vdxg_hw.h"
#include "vdxg_tool.h"

#define MIB		(1ull << 20)
#define PAGE		4096u

static struct vdxg_device *dev;
static volatile sig_atomic_t want_status, stop;
static unsigned long long bad;
static int64_t wait_ns = 30 * 1000000000ll;

static void on_usr1(int sig)
{
	(void)sig;
	want_status = 1;
}

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

/* Time to stop: SIGTERM or SIGINT, or SECONDS (0: never) have passed. */
static bool done_after(double t0, double seconds)
{
	return stop || (seconds > 0 && now() - t0 >= seconds);
}

static uint32_t hash32(uint32_t a, uint32_t b)
{
	uint32_t h = a * 0x9e3779b1u ^ (b + 0x7f4a7c15u);

	h ^= h >> 15;
	h *= 0x2c1b3c6du;
	h ^= h >> 12;
	return h;
}

static struct vdxg_bo *bo_new(uint64_t size, const uint32_t *segs, int n)
{
	struct vdxg_bo *bo;
	int ret = vdxg_bo_create(dev, size, segs, n, 0, &bo);

	if (ret)
		die("GEM_CREATE", ret);
	return bo;
}

static void *bo_map(struct vdxg_bo *bo)
{
	void *p;
	int ret = vdxg_bo_map(bo, &p);

	if (ret)
		die("mmap", ret);
	return p;
}

static void bo_wait(struct vdxg_bo *bo, const char *what)
{
	int ret = vdxg_bo_wait(bo, wait_ns);

	if (ret)
		die(what, ret);
}

/* ------------------------------------------------------------- paging */

static uint32_t pattern(unsigned int obj, uint64_t page, unsigned int dw)
{
	return hash32(obj << 24 ^ (uint32_t)page, dw);
}

static void paging_check(struct vdxg_bo *bo, unsigned int obj,
			 unsigned long long cycle)
{
	static const unsigned int dws[] = { 0, 517, PAGE / 4 - 1 };
	const uint32_t *p = bo_map(bo);
	uint64_t pg, pages = bo->size / PAGE;
	unsigned int i;

	for (pg = 0; pg < pages; pg++)
		for (i = 0; i < 3; i++) {
			uint32_t got = p[pg * PAGE / 4 + dws[i]];
			uint32_t want = pattern(obj, pg, dws[i]);

			if (got != want) {
				if (bad++ < 10)
					printf("vdxg-load: paging: cycle %llu: object %u page %llu dword %u is %08x, not %08x\n",
					       cycle, obj, (unsigned long long)pg,
					       dws[i], got, want);
				break;
			}
		}
}

static int run_paging(double seconds, unsigned int mib, unsigned int n)
{
	static const uint32_t segs[] = {
		DRM_VDXG_SEGMENT_SYSTEM, DRM_VDXG_SEGMENT_VRAM,
	};
	struct vdxg_bo **bo = calloc(n, sizeof(*bo));
	unsigned long long cycle = 0, moved = 0;
	double t0, last;
	unsigned int i;
	uint64_t pg, dw;
	int ret;

	if (!bo)
		die("calloc", -ENOMEM);
	for (i = 0; i < n; i++) {
		uint32_t *p;

		bo[i] = bo_new((uint64_t)mib * MIB, segs, 2);
		ret = vdxg_bo_make_resident(bo[i], DRM_VDXG_SEGMENT_SYSTEM);
		if (ret)
			die("MAKE_RESIDENT system", ret);
		bo_wait(bo[i], "the first move (a stuck fence?)");
		p = bo_map(bo[i]);
		for (pg = 0; pg < bo[i]->size / PAGE; pg++)
			for (dw = 0; dw < PAGE / 4; dw++)
				p[pg * PAGE / 4 + dw] = pattern(i, pg, dw);
	}
	printf("vdxg-load: paging: %u x %u MiB between VRAM and system memory\n",
	       n, mib);
	t0 = last = now();
	while (!done_after(t0, seconds)) {
		/* There, all queued at once, then back and checked. */
		for (i = 0; i < n; i++) {
			ret = vdxg_bo_make_resident(bo[i], DRM_VDXG_SEGMENT_VRAM);
			if (ret)
				die("MAKE_RESIDENT VRAM", ret);
		}
		for (i = 0; i < n; i++) {
			bo_wait(bo[i], "a move to VRAM (a stuck fence?)");
			ret = vdxg_bo_make_resident(bo[i], DRM_VDXG_SEGMENT_SYSTEM);
			if (ret)
				die("MAKE_RESIDENT system", ret);
		}
		for (i = 0; i < n; i++) {
			bo_wait(bo[i], "a move to system memory (a stuck fence?)");
			paging_check(bo[i], i, cycle);
			moved += 2 * bo[i]->size;
		}
		cycle++;
		if (want_status || now() - last >= 1) {
			want_status = 0;
			last = now();
			printf("vdxg-load: paging: %.1f s: %llu cycles, %llu MiB moved, %llu bad\n",
			       last - t0, cycle, moved >> 20, bad);
		}
	}
	printf("vdxg-load: paging: %llu cycles (%llu MiB moved) in %.1f s, %llu bad\n",
	       cycle, moved >> 20, now() - t0, bad);
	return bad || !cycle;
}

/* --------------------------------------------------------------- draw */

struct rect {
	uint32_t x0, y0, x1, y1, color;
};

struct target {
	struct vdxg_bo *dst, *vb;
	struct rect *r;
	unsigned long long job;
	bool busy;
};

static void draw_submit(struct target *t, uint32_t ctx, struct vdxg_cs *cs,
			uint32_t size, unsigned int layers,
			unsigned long long job)
{
	uint32_t *v = t->vb->map;
	unsigned int l, k;
	int ret;

	for (l = 0; l < layers; l++) {
		struct rect *r = &t->r[l];
		uint32_t h = hash32((uint32_t)job, l), w;
		uint32_t xs[4], ys[4];
		static const int corner[6] = { 0, 1, 2, 0, 2, 3 };

		/*
		 * The first covers the target (nothing of the last job shows
		 * through), the others are large: half of it to all of it.
		 */
		w = l ? size / 2 + hash32(h, 1) % (size / 2 + 1) : size;
		r->x0 = hash32(h, 2) % (size - w + 1);
		r->x1 = r->x0 + w;
		w = l ? size / 2 + hash32(h, 3) % (size / 2 + 1) : size;
		r->y0 = hash32(h, 4) % (size - w + 1);
		r->y1 = r->y0 + w;
		r->color = 0xff000000 | (h & 0xffffff);
		xs[0] = xs[3] = r->x0 * 16;
		xs[1] = xs[2] = r->x1 * 16;
		ys[0] = ys[1] = r->y0 * 16;
		ys[2] = ys[3] = r->y1 * 16;
		for (k = 0; k < 6; k++, v += VDXG_VERTEX_SIZE / 4) {
			memset(v, 0, VDXG_VERTEX_SIZE);
			v[VDXG_VTX_DW_X] = xs[corner[k]];
			v[VDXG_VTX_DW_Y] = ys[corner[k]];
			v[VDXG_VTX_DW_COLOR] = r->color;
		}
	}
	vdxg_cs_reset(cs);
	vdxg_cs_set_surface(cs, VDXG_SLOT_DST, t->dst, 0, DRM_VDXG_ALLOC_WRITE,
			    VDXG_FMT_XRGB8888, size, size, size * 4);
	vdxg_cs_draw_triangles(cs, 0, layers * 6, t->vb, 0, 0);
	ret = vdxg_cs_error(cs);
	if (ret)
		die("building the command buffer", ret);
	ret = vdxg_submit(dev, ctx, cs, NULL);
	if (ret)
		die("SUBMIT", ret);
	t->job = job;
	t->busy = true;
}

/* Paint the rectangles in order, by rows; compare. */
static void draw_check(struct target *t, uint32_t *want, uint32_t size,
		       unsigned int layers)
{
	const uint32_t *got;
	unsigned long long wrong = 0;
	uint32_t x, y, fx = 0, fy = 0, fg = 0, fw = 0;
	unsigned int l;

	bo_wait(t->dst, "a DRAW job (a stuck fence?)");
	t->busy = false;
	memset(want, 0, (size_t)size * size * 4);
	for (l = 0; l < layers; l++) {
		const struct rect *r = &t->r[l];

		for (y = r->y0; y < r->y1; y++)
			for (x = r->x0; x < r->x1; x++)
				want[y * size + x] = r->color;
	}
	got = bo_map(t->dst);
	for (y = 0; y < size; y++)
		for (x = 0; x < size; x++) {
			uint32_t a = got[y * size + x] & 0xffffff;
			uint32_t b = want[y * size + x] & 0xffffff;

			if (a != b && !wrong++) {
				fx = x;
				fy = y;
				fg = a;
				fw = b;
			}
		}
	if (wrong) {
		bad++;
		printf("vdxg-load: draw: job %llu: %llu pixels wrong; first (%u,%u) is %06x, not %06x\n",
		       t->job, wrong, fx, fy, fg, fw);
	}
}

static int run_draw(double seconds, uint32_t size, unsigned int layers)
{
	static const uint32_t vram[] = { DRM_VDXG_SEGMENT_VRAM };
	static const uint32_t aper[] = { DRM_VDXG_SEGMENT_APERTURE };
	struct target t[2];
	unsigned long long job = 0, done = 0;
	uint32_t ctx, *want;
	struct vdxg_cs *cs;
	double t0, last;
	int ret, i;

	if (size < 16 || size > VDXG_SURF_MAX_DIM || !layers ||
	    layers * 6 > VDXG_DRAW_MAX_VERTICES)
		die("-s or -l", -EINVAL);
	want = malloc((size_t)size * size * 4);
	if (!want)
		die("malloc", -ENOMEM);
	for (i = 0; i < 2; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].dst = bo_new((uint64_t)size * size * 4, vram, 1);
		t[i].vb = bo_new((uint64_t)layers * 6 * VDXG_VERTEX_SIZE, aper, 1);
		bo_map(t[i].vb);
		t[i].r = calloc(layers, sizeof(*t[i].r));
		if (!t[i].r)
			die("calloc", -ENOMEM);
	}
	ret = vdxg_context_create(dev, DRM_VDXG_ENGINE_RENDER,
				  DRM_VDXG_PRIORITY_NORMAL, 0, &ctx);
	if (ret)
		die("CONTEXT_CREATE", ret);
	ret = vdxg_cs_create(&cs);
	if (ret)
		die("vdxg_cs_create", ret);
	printf("vdxg-load: draw: %u rectangles a job over %ux%u, two jobs in flight\n",
	       layers, size, size);
	t0 = last = now();
	draw_submit(&t[0], ctx, cs, size, layers, job++);
	draw_submit(&t[1], ctx, cs, size, layers, job++);
	for (i = 0; ; i ^= 1) {
		draw_check(&t[i], want, size, layers);
		done++;
		if (want_status || now() - last >= 1) {
			want_status = 0;
			last = now();
			printf("vdxg-load: draw: %.1f s: %llu jobs checked, %llu bad\n",
			       last - t0, done, bad);
		}
		if (!done_after(t0, seconds))
			draw_submit(&t[i], ctx, cs, size, layers, job++);
		else if (!t[i ^ 1].busy)
			break;
	}
	printf("vdxg-load: draw: %llu jobs in %.1f s (%.2f s a job), %llu bad\n",
	       done, now() - t0, (now() - t0) / done, bad);
	return bad != 0;
}

int main(int argc, char **argv)
{
	unsigned int mib = 64, n = 2, layers = 24, size = 1024;
	double seconds = 10;
	const char *mode;
	int opt, ret;

	if (argc < 2 || (strcmp(argv[1], "paging") && strcmp(argv[1], "draw")))
		goto usage;
	mode = argv[1];
	optind = 2;
	while ((opt = getopt(argc, argv, "t:w:m:n:s:l:")) != -1) {
		switch (opt) {
		case 't': seconds = atof(optarg); break;
		case 'w': wait_ns = atof(optarg) * 1e9; break;
		case 'm': mib = atoi(optarg); break;
		case 'n': n = atoi(optarg); break;
		case 's': size = atoi(optarg); break;
		case 'l': layers = atoi(optarg); break;
		default: goto usage;
		}
	}
	if (!mib || !n || wait_ns <= 0)
		goto usage;
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGUSR1, on_usr1);
	signal(SIGTERM, on_stop);
	signal(SIGINT, on_stop);
	ret = vdxg_device_open(NULL, &dev);
	if (ret)
		die("a vdxg render node", ret);
	if (!strcmp(mode, "paging"))
		return run_paging(seconds, mib, n);
	return run_draw(seconds, size, layers);
usage:
	fprintf(stderr, "usage: vdxg-load paging [-t SECONDS] [-w SECONDS] [-m MIB] [-n OBJECTS]\n"
		"       vdxg-load draw [-t SECONDS] [-w SECONDS] [-s SIZE] [-l LAYERS]\n");
	return 2;
}
