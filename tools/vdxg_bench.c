// SPDX-License-Identifier: MIT
/*
 * vdxg-bench: measure vdxg against the CPU in the same run.
 *
 * Usage: vdxg-bench paging [repeats]
 *
 * paging: round-trip eviction bandwidth of 64 MiB objects (VRAM to system
 * memory and back, each move a chain of paging buffers on the PAGING
 * engine) over memcpy bandwidth of the same size, and the latency of a
 * single 4 KiB move. Each figure is the median of the repeats.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <drm.h>
#include "vdxg_drm.h"

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
	printf("%-34s %10.2f %10.2f %10.2f  %s\n", what, s.med, s.min, s.max,
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
	printf("%-34s %10s %10s %10s\n", "paging (64 MiB objects)", "median",
	       "min", "max");
	row("memcpy, same size, round trip", sc, "MiB/s");
	row("eviction VRAM->system->VRAM", sg, "MiB/s");
	row("single 4 KiB move latency", sl, "us");
	printf("ratio paging/memcpy (medians)     %10.3f\n", sg.med / sc.med);
	return 0;
}

int main(int argc, char **argv)
{
	int repeats = argc > 2 ? atoi(argv[2]) : 5;

	if (argc < 2 || strcmp(argv[1], "paging") || repeats < 1) {
		fprintf(stderr, "usage: vdxg-bench paging [repeats]\n");
		return 2;
	}
	fd = open_render();
	if (fd < 0) {
		fprintf(stderr, "vdxg-bench: no vdxg render node\n");
		return 1;
	}
	return bench_paging(repeats);
}
