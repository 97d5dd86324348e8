// SPDX-License-Identifier: MIT
/*
 * vdxg-bench: vdxg's figures, each measured against the CPU or against
 * itself in the same run (these machines are noisy: a ratio of two
 * figures taken one after the other in each repeat is what to compare).
 *
 *   vdxg-bench [-r REPEATS] [-j FILE.json] [GROUP...]
 *
 * GROUPs (default: all, in this order):
 *
 * paging   A 64 MiB object moved VRAM -> system -> VRAM by MAKE_RESIDENT
 *          (chains of paging buffers on the PAGING engine), against memcpy
 *          of the same bytes there and back: both in MiB/s, and their
 *          ratio per repeat. Then, on its own (the 64 MiB object freed),
 *          the latency of one 4 KiB move from VRAM to system memory,
 *          MAKE_RESIDENT until GEM_WAIT returns, and of that MAKE_RESIDENT
 *          ioctl alone (medians of 31 a repeat).
 * submit   The NOP submit rate: one NOP submitted and waited for through
 *          an out-syncobj, back to back. The SUBMIT ioctl's cost alone (the
 *          median call of 200, each job waited for outside the timing)
 *          with 16 allocations and 0 or 1024 patch locations (FENCEs), with
 *          right presumed addresses (nothing patched) and stale ones (zero:
 *          every location patched and the addresses written back): the
 *          patch cost per location ((stale 1024 - stale 0) / 1024), the
 *          validation cost per location when nothing is patched, and the
 *          presumed-address speedup (stale / right, 1024 locations).
 * render   FILL_RECT and COPY_RECT over a 1024x1024 XRGB8888 surface in
 *          VRAM, 16 times a job (64 MiB written), submit to idle, in MiB/s
 *          written, and each over memcpy of the same bytes in the repeat.
 * flip     The latency of page flips in vblanks: after a vblank, a flip is
 *          issued and its event's vblank count compared with that vblank's
 *          (1: shown at the next vblank), as a KMS atomic commit and as a
 *          PRESENT flip; the mean of 20 flips a repeat; and the time from
 *          the flip ioctl to its event in ms. Needs DRM master and a
 *          connected output, else the group is skipped.
 * clients  Throughput of 1, 2, 4 and 8 processes, each with its own file,
 *          context and object, submitting small jobs (a 32x32 FILL_RECT
 *          and a FENCE): jobs/s, and each over one client's in the repeat.
 * cs       libvdxg's command-stream builder alone (no device): the cost of
 *          an address field with 16 and with 4096 objects in the
 *          allocation list, and their ratio (1 when deduplication is O(1)).
 * vm       GPU virtual memory (skipped without a GPU MMU). VM_BIND of
 *          64 MiB timed from the ioctl until its out-syncobj signals (the
 *          median of 9 binds a repeat), in MiB/s: with 4 KiB entries (a
 *          system-memory object's pages, one entry each, mapped from
 *          object offset 4 KiB so that no run of them can make a 2 MiB
 *          entry) and with 2 MiB entries (the 2 MiB aligned part of a
 *          contiguous VRAM object, at a 2 MiB aligned address), and
 *          2 MiB / 4 KiB; the UNMAPs of each are figures of their own.
 *          Then the time of a move of a 64 MiB object, from MAKE_RESIDENT
 *          until a polled GEM_WAIT finds it idle (the move's fence comes
 *          after the object's entries are rewritten in every VM it is
 *          bound in), VRAM to system memory and back, in ms (the median
 *          of 7 a repeat, 100 ms apart so that the last move's clean-up is
 *          done), for three objects moved in turn: unbound, bound in 1 VM
 *          and bound in 8 VMs (of the same file), and 8 VMs / 1 VM (no
 *          difference of the two: its true value is near zero, below the
 *          noise of either). Checked once a run when root with
 *          debugfs (else the checks are skipped, and said so): each kind
 *          of bind's page-table count in debugfs vms (a level-0 table a
 *          2 MiB for 4 KiB entries, none for 2 MiB ones) and its bytes
 *          read back through the GPU (debugfs vm_read); after a move each
 *          way, new bytes written to the object and read back through
 *          every VM it is bound in. Needs about 260 MiB of free VRAM
 *          (the three objects and the bind's), more than the default
 *          256 MiB device has: scripts/bench.sh gives it 512 MiB.
 * exec     Submission by GPU virtual address (skipped without a GPU MMU):
 *          NOP EXEC + wait and NOP SUBMIT + wait in the same repeat, and
 *          their ratio; the EXEC ioctl's cost (median of a few hundred
 *          calls) for 1024 FENCEs over 16 objects bound in a VM, and over
 *          16 objects private to the VM, against SUBMIT's for the same
 *          commands with right presumed addresses, and SUBMIT / EXEC; the
 *          throughput of 1, 2, 4 and 8 clients in virtual mode (the
 *          clients group's jobs, each client with its own VM).
 * 3d       The 3D pipeline (skipped without CAP_3D or a GPU MMU), on a
 *          1024x768 XRGB8888 target in VRAM (the demo's screen), each job
 *          SUBMIT until the target idles, the median of 3 jobs of each a
 *          repeat (of the scene's pairs, at least 5 and as many as fit
 *          in 3 s): fragments per second of a full-screen quad (a
 *          TRIANGLE_STRIP) whose fragment program has 4, 16 and 64
 *          instructions (MOV, MADs, MOV_SAT, END); triangles per second
 *          of 24576 small triangles (the halves of 8x8 pixel cells,
 *          32 pixels each, a 2-instruction fragment program); and
 *          vdxg-demo --3d's scene (vdxg_scene3d.c, its still) drawn by
 *          SUBMIT and by EXEC (the same objects bound in a VM) one after
 *          the other: each frame's time in ms and, per pair, SUBMIT's
 *          time over EXEC's: EXEC's speed relative to SUBMIT's (>= 1:
 *          virtual mode at least as fast as the patch model). Setup
 *          checks that both draw the reference 3D pipeline's picture of
 *          the scene, every pixel.
 * split    Partial submissions: two targets in the aperture only, of
 *          just over half of it each, drawn in turn 8 times (a FILL_RECT
 *          each turn), as one SUBMIT with a split point at each turn (the
 *          kernel runs it in 8 pieces, each unmapping the other target
 *          from the aperture and mapping its own: paging operations on
 *          GART entries, no copy) and as 8 SUBMITs that userspace cut
 *          itself, each from the second target in the aperture and timed
 *          from the first ioctl until both targets are idle: the split
 *          submission's cost per piece over the separate ones ((split -
 *          separate) / 8, in us) and split / separate. The group runs on
 *          its own after every other group has reported: its targets
 *          fill the aperture.
 *
 * Warm-up, so that any repeat count gives the same figures: memory touched
 * for the first time is slow on a TCG guest (the guest's RAM and the
 * device's VRAM are host pages QEMU faults in on first touch), and so is
 * code TCG has not translated yet. Before the first group that uses the
 * device, most of the guest's free memory is written from here and the
 * VRAM by the device (FILL_RECT). Then each group runs a repeat's own work
 * on its own objects and buffers, untimed, until two rounds in a row take
 * within 15% of each other (2 to 10 rounds, none begun after 30 s); vm
 * and paging warm their two parts apart. The table prints each warm-up's
 * rounds, seconds and first and last round's time under the group.
 *
 * The repeats of the groups are interleaved: every group's objects are
 * made first (all of them together need about 350 MiB of VRAM), then
 * repeat 0 of every group runs, then repeat 1 of every group, and so on.
 * The host has slow stretches of tens of seconds (the guest stopped, its
 * memory bandwidth taken by a neighbour): run one group after the other,
 * such a stretch spoiled two of the three repeats of a -r 3 group, and
 * -r 3 and -r 9 disagreed; interleaved, it spoils one repeat of each.
 *
 * Inside a repeat, figures short enough to be spoiled by the host
 * scheduler (the host's CPUs are shared) are medians of several samples:
 * paging's transfers (9) and 4 KiB moves (31), render's jobs (5, and as
 * many as fit in 1.5 s), the NOP rates (10 windows of 0.2 s), each client
 * count (3 runs); a ratio of such figures is the median of the samples'
 * ratios.
 *
 * The bench runs on one CPU of the guest, the first it may use, and the
 * clients of the clients and exec groups each on one, in turn: a thread
 * the guest's scheduler moves between CPUs pays for cross-CPU wake-ups,
 * which TCG makes dear, and where it went differed from boot to boot.
 * Unpinned, one 4 KiB move took 65, 90 or 150 us depending on the boot,
 * and a 2 MiB-entry bind ran at 300 or 550 thousand MiB/s.
 *
 * Every figure is the median of the repeats (default 5), with min and max.
 * The table goes to stdout; -j also writes the figures as JSON:
 * {"version": 1, "repeats": N, "figures": [{"group", "name", "unit",
 * "median", "min", "max", "values"}, ...], "warmup": [{"group", "name",
 * "unit", "rounds", "seconds", "first", "last"}, ...]} ("all": the memory
 * touched once a run). scripts/bench-compare.py compares two such files.
 * Exit status 0 when every group ran or was skipped for want of hardware
 * (a flip without an output, vm without a GPU MMU), 1 on an error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BIT(n)		(1u << (n))
#define BIT_ULL(n)	(1ull << (n))
#include "vdxg.h"
#include "vdxg_hw.h"
#include "vdxg_kms.h"
#include "vdxg_scene3d.h"
#include "vdxg_tool.h"

#define MIB		(1ull << 20)
#define SEC_NS		1000000000ll
#define WAIT_NS		(60 * SEC_NS)
#define MAX_REPEATS	64
#define MAX_FIGURES	64
#define MAX_WARMUPS	16

/* ---------------------------------------------------------------- CPUs */

static cpu_set_t cpus;	/* the CPUs the bench may use, from its start */

/* Run on the (K mod N)th of the N CPUs in cpus (see the top). */
static void pin_cpu(int k)
{
	int n = CPU_COUNT(&cpus), cpu;
	cpu_set_t one;

	k %= n;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &cpus) && !k--)
			break;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		die("sched_setaffinity", -errno);
}

/* ------------------------------------------------------------- figures */

struct figure {
	const char *group, *unit;
	char name[64];
	double med, min, max;
	double v[MAX_REPEATS];	/* each repeat's value, in order */
	int n;
};

static struct figure figures[MAX_FIGURES];
static int num_figures, repeats = 5;
static struct vdxg_device *dev;		/* the render node */

/* A warm-up: ROUNDS untimed rounds in SECONDS, the first and last's time. */
struct warmup {
	const char *group;
	char name[96];
	int rounds;
	double seconds, first, last;
};

static struct warmup warmups[MAX_WARMUPS];
static int num_warmups;

static void check(int ret, const char *what)
{
	if (ret)
		die(what, ret);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/* Record and print the figure NAME: median, min and max of V[0..N). */
static void figure(const char *group, const char *name, const char *unit,
		   const double *v, int n)
{
	struct figure *f = &figures[num_figures];
	double s[MAX_REPEATS];

	if (num_figures == MAX_FIGURES)
		die("too many figures", -ENOSPC);
	num_figures++;
	memcpy(s, v, n * sizeof(*s));
	memcpy(f->v, v, n * sizeof(*s));
	f->n = n;
	qsort(s, n, sizeof(*s), cmp_double);
	f->group = group;
	f->unit = unit;
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->med = s[n / 2];
	f->min = s[0];
	f->max = s[n - 1];
	printf("  %-44s %11.3f %11.3f %11.3f  %s\n", f->name, f->med, f->min,
	       f->max, unit);
}

/* V[i] = A[i] / B[i]: a ratio per repeat, of figures taken together. */
static void ratio(double *v, const double *a, const double *b, int n)
{
	int i;

	for (i = 0; i < n; i++)
		v[i] = a[i] / b[i];
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static int write_json(const char *path)
{
	FILE *f = fopen(path, "w");
	int i, j;

	if (!f)
		return -errno;
	fprintf(f, "{\n  \"version\": 1,\n  \"repeats\": %d,\n  \"figures\": [",
		repeats);
	for (i = 0; i < num_figures; i++) {
		const struct figure *g = &figures[i];

		fprintf(f, "%s\n    {\"group\": ", i ? "," : "");
		json_string(f, g->group);
		fprintf(f, ", \"name\": ");
		json_string(f, g->name);
		fprintf(f, ", \"unit\": ");
		json_string(f, g->unit);
		fprintf(f, ", \"median\": %.6g, \"min\": %.6g, \"max\": %.6g",
			g->med, g->min, g->max);
		fprintf(f, ", \"values\": [");
		for (j = 0; j < g->n; j++)
			fprintf(f, "%s%.6g", j ? ", " : "", g->v[j]);
		fprintf(f, "]}");
	}
	fprintf(f, "\n  ],\n  \"warmup\": [");
	for (i = 0; i < num_warmups; i++) {
		const struct warmup *w = &warmups[i];

		fprintf(f, "%s\n    {\"group\": ", i ? "," : "");
		json_string(f, w->group);
		fprintf(f, ", \"name\": ");
		json_string(f, w->name);
		fprintf(f, ", \"unit\": \"s\", \"rounds\": %d, "
			"\"seconds\": %.6g, \"first\": %.6g, \"last\": %.6g}",
			w->rounds, w->seconds, w->first, w->last);
	}
	fprintf(f, "\n  ]\n}\n");
	return fclose(f) ? -errno : 0;
}

/* ------------------------------------------------------------- helpers */

static struct vdxg_bo *bo_new(struct vdxg_device *d, uint64_t size,
			      const uint32_t *segs, uint32_t nsegs)
{
	struct vdxg_bo *bo;

	check(vdxg_bo_create(d, size, segs, nsegs, 0, &bo), "GEM_CREATE");
	return bo;
}

static struct vdxg_bo *vram_bo(struct vdxg_device *d, uint64_t size)
{
	static const uint32_t seg = DRM_VDXG_SEGMENT_VRAM;

	return bo_new(d, size, &seg, 1);
}

static void *bo_map(struct vdxg_bo *bo)
{
	void *p;

	check(vdxg_bo_map(bo, &p), "mmap");
	return p;
}

static uint32_t new_ctx(struct vdxg_device *d)
{
	uint32_t ctx;

	check(vdxg_context_create(d, DRM_VDXG_ENGINE_RENDER,
				  DRM_VDXG_PRIORITY_NORMAL, 0, &ctx),
	      "CONTEXT_CREATE");
	return ctx;
}

static struct vdxg_cs *new_cs(void)
{
	struct vdxg_cs *cs;

	check(vdxg_cs_create(&cs), "vdxg_cs_create");
	return cs;
}

static void submit(struct vdxg_device *d, uint32_t ctx, struct vdxg_cs *cs)
{
	check(vdxg_cs_error(cs), "building a command buffer");
	check(vdxg_submit(d, ctx, cs, NULL), "SUBMIT");
}

/* MiB/s of memcpy of BYTES (buffers of CHUNK bytes, copied there and back). */
static double memcpy_rate(char *a, char *b, uint64_t chunk, uint64_t bytes)
{
	double t = now();
	uint64_t done;

	for (done = 0; done < bytes; done += chunk) {
		if ((done / chunk) & 1)
			memcpy(a, b, chunk);
		else
			memcpy(b, a, chunk);
	}
	return bytes / (now() - t) / MIB;
}

/* ------------------------------------------------------------- warm-up */

#define WARM_MIN	2	/* rounds at least */
#define WARM_MAX	10	/* and at most */
#define WARM_SECONDS	30.0	/* no new round after this long */
#define WARM_TOL	0.15	/* a round this close to the last: warm */

static bool near(double a, double b, double tol)
{
	return a <= b * (1 + tol) && b <= a * (1 + tol);
}

static struct warmup *new_warmup(const char *group, const char *name)
{
	struct warmup *w = &warmups[num_warmups];

	if (num_warmups == MAX_WARMUPS)
		die("too many warm-ups", -ENOSPC);
	num_warmups++;
	memset(w, 0, sizeof(*w));
	w->group = group;
	snprintf(w->name, sizeof(w->name), "%s", name);
	return w;
}

/*
 * A group's first rounds are slower than the rest for reasons none of its
 * figures is about: memory touched for the first time (the guest's pages
 * and the device's VRAM are host pages QEMU faults in on first touch),
 * code TCG has not translated yet, the driver's pools and page tables
 * still to fill. So before its timed repeats a group runs ROUND(ARG), a
 * repeat's own work on the same objects and buffers, untimed, until two
 * rounds in a row take within WARM_TOL of each other (WARM_MIN to
 * WARM_MAX rounds, none started after WARM_SECONDS). Its record (rounds,
 * seconds, the first and the last round's seconds) is printed with the
 * group and written to the JSON apart from the figures.
 */
static void warm_up(const char *group, const char *name,
		    void (*round)(void *arg), void *arg)
{
	struct warmup *w = new_warmup(group, name);
	double t0 = now(), t, prev = 0;

	do {
		t = now();
		round(arg);
		t = now() - t;
		if (!w->rounds)
			w->first = t;
		w->rounds++;
		w->last = t;
		if (w->rounds >= WARM_MIN && near(t, prev, WARM_TOL))
			break;
		prev = t;
	} while (w->rounds < WARM_MAX && now() - t0 < WARM_SECONDS);
	w->seconds = now() - t0;
}

/*
 * A phase: a repeat of one group's work (vm and paging have two each).
 * ROUND(ARG) stores its values at the repeat *I. All the groups' objects
 * are made first; then each phase is warmed up, and the repeats run round
 * robin: repeat 0 of every phase, then repeat 1 of every phase, and so
 * on. A slow stretch of the host (the guest stopped for seconds, its
 * memory bandwidth taken by a neighbour) then spoils one repeat of each
 * group, which the median of any repeat count leaves out, and not two of
 * the three of one group's -r 3.
 */
#define MAX_PHASES	16
#define PHASE_SETTLE_US	100000	/* before each phase's repeat */

struct phase {
	const char *group, *name;
	void (*round)(void *arg);
	void *arg;
	int *i;
};

static struct phase phases[MAX_PHASES];
static int num_phases;

static void add_phase(const char *group, const char *name,
		      void (*round)(void *arg), void *arg, int *i)
{
	struct phase *p = &phases[num_phases];

	if (num_phases == MAX_PHASES)
		die("too many phases", -ENOSPC);
	num_phases++;
	p->group = group;
	p->name = name;
	p->round = round;
	p->arg = arg;
	p->i = i;
}

/*
 * Every phase warmed up (its values go to repeat 0's place, then over),
 * then REPEATS rounds of every phase in turn, each after a pause for the
 * last one's clean-up (freed pages cleared, delayed deletes) to finish.
 */
static void run_phases(void)
{
	struct phase *p;
	int r;

	for (p = phases; p < phases + num_phases; p++) {
		*p->i = 0;
		warm_up(p->group, p->name, p->round, p->arg);
	}
	for (r = 0; r < repeats; r++) {
		for (p = phases; p < phases + num_phases; p++) {
			usleep(PHASE_SETTLE_US);
			*p->i = r;
			p->round(p->arg);
		}
	}
	num_phases = 0;
}

/* Print the warm-ups of GROUP, after its heading. */
static void warm_print(const char *group)
{
	int i;

	for (i = 0; i < num_warmups; i++) {
		const struct warmup *w = &warmups[i];

		if (strcmp(w->group, group))
			continue;
		printf("  warm-up%s%s: %d round%s in %.2f s, a round %.3f s "
		       "cold, %.3f s at the last\n", *w->name ? ", " : "",
		       w->name, w->rounds, w->rounds > 1 ? "s" : "",
		       w->seconds, w->first, w->last);
	}
}

/*
 * Once a run, before the first group that uses the device: the guest's
 * free memory written from here (all but TOUCH_SPARE of MemAvailable) and
 * the VRAM written by the device (FILL_RECT into objects that fill all but
 * TOUCH_SPARE_VRAM of it, then freed), so that no figure depends on whether the
 * pages a group is given (its buffers, the system pages of a move, the
 * VRAM an object lands in) were touched before.
 */
#define TOUCH_SPARE	(256 * MIB)
#define TOUCH_CHUNK	(64 * MIB)
#define TOUCH_BO_DIM	1024		/* VRAM objects of 4 MiB */
#define TOUCH_BOS	1024
#define TOUCH_SPARE_VRAM (16 * MIB)

static uint64_t touch_ram(void)
{
	unsigned long long kib = 0;
	char line[128], **chunk;
	uint64_t n = 0, i;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	if (kib * 1024 <= TOUCH_SPARE)
		return 0;
	n = (kib * 1024 - TOUCH_SPARE) / TOUCH_CHUNK;
	chunk = calloc(n, sizeof(*chunk));
	if (!chunk)
		die("calloc", -ENOMEM);
	for (i = 0; i < n; i++) {
		chunk[i] = malloc(TOUCH_CHUNK);
		if (!chunk[i])
			break;
		memset(chunk[i], 0x11, TOUCH_CHUNK);
	}
	n = i;
	for (i = 0; i < n; i++)
		free(chunk[i]);
	free(chunk);
	return n * TOUCH_CHUNK;
}

static uint64_t touch_vram(void)
{
	const uint64_t size = (uint64_t)TOUCH_BO_DIM * TOUCH_BO_DIM * 4;
	struct vdxg_bo **bo = calloc(TOUCH_BOS, sizeof(*bo));
	uint32_t ctx = new_ctx(dev);
	uint64_t vram = 0;
	struct vdxg_cs *cs;
	int i, n;

	if (!bo)
		die("calloc", -ENOMEM);
	/*
	 * VRAM but TOUCH_SPARE_VRAM (the console's buffer, the driver's
	 * own): objects past what fits would evict the first ones.
	 */
	check(vdxg_get_param(dev, DRM_VDXG_PARAM_VRAM_SIZE, &vram),
	      "GET_PARAM");
	n = vram > TOUCH_SPARE_VRAM ? (vram - TOUCH_SPARE_VRAM) / size : 0;
	if (n > TOUCH_BOS)
		n = TOUCH_BOS;
	for (i = 0; i < n; i++)
		bo[i] = vram_bo(dev, size);
	for (i = 0; i < n; i++) {
		cs = new_cs();
		vdxg_cs_set_surface(cs, VDXG_SLOT_DST, bo[i], 0,
				    DRM_VDXG_ALLOC_WRITE, VDXG_FMT_XRGB8888,
				    TOUCH_BO_DIM, TOUCH_BO_DIM,
				    TOUCH_BO_DIM * 4);
		vdxg_cs_fill_rect(cs, 0, 0, TOUCH_BO_DIM, TOUCH_BO_DIM,
				  0xff112233);
		submit(dev, ctx, cs);
		vdxg_cs_free(cs);
	}
	for (i = 0; i < n; i++) {
		check(vdxg_bo_wait(bo[i], WAIT_NS), "wait");
		vdxg_bo_free(bo[i]);
	}
	free(bo);
	vdxg_context_destroy(dev, ctx);
	return n * size;
}

static void touch_memory(void)
{
	struct warmup *w = new_warmup("all", "");
	double t = now();
	uint64_t ram = touch_ram(), vram = touch_vram();

	w->rounds = 1;
	w->seconds = w->first = w->last = now() - t;
	snprintf(w->name, sizeof(w->name), "%llu MiB of RAM, %llu MiB of "
		 "VRAM first touched", (unsigned long long)(ram / MIB),
		 (unsigned long long)(vram / MIB));
	printf("%s in %.2f s\n", w->name, w->seconds);
}

/* -------------------------------------------------------------- paging */

#define PAGING_SIZE	(64 * MIB)

static void move(struct vdxg_bo *bo, uint32_t segment)
{
	check(vdxg_bo_make_resident(bo, segment), "MAKE_RESIDENT");
	check(vdxg_bo_wait(bo, WAIT_NS), "GEM_WAIT");
}

#define PAGING_INNER	9	/* transfers a repeat, the median taken */
#define PAGING_MOVES	31	/* 4 KiB moves a repeat, likewise */

struct paging {
	struct vdxg_bo *big, *small;
	char *a, *b;
	double cpu[MAX_REPEATS], gpu[MAX_REPEATS], r[MAX_REPEATS];
	double lat[MAX_REPEATS], call[MAX_REPEATS];
	int i;		/* the repeat */
};

/*
 * PAGING_INNER times memcpy there and back, then the paging engine's
 * round trip of the 64 MiB object: the median of each, and of their
 * ratios.
 */
static void paging_transfers(void *arg)
{
	struct paging *p = arg;
	double cpu[PAGING_INNER], gpu[PAGING_INNER], r[PAGING_INNER], t;
	int k;

	for (k = 0; k < PAGING_INNER; k++) {
		cpu[k] = memcpy_rate(p->a, p->b, PAGING_SIZE, 2 * PAGING_SIZE);
		t = now();
		move(p->big, DRM_VDXG_SEGMENT_SYSTEM);
		move(p->big, DRM_VDXG_SEGMENT_VRAM);
		gpu[k] = 2 * PAGING_SIZE / (now() - t) / MIB;
		r[k] = gpu[k] / cpu[k];
	}
	p->cpu[p->i] = median(cpu, PAGING_INNER);
	p->gpu[p->i] = median(gpu, PAGING_INNER);
	p->r[p->i] = median(r, PAGING_INNER);
}

/* PAGING_MOVES 4 KiB moves VRAM -> system (and back): the medians. */
static void paging_moves(void *arg)
{
	struct paging *p = arg;
	double lat[PAGING_MOVES], call[PAGING_MOVES], t;
	int k;

	for (k = 0; k < PAGING_MOVES; k++) {
		t = now();
		check(vdxg_bo_make_resident(p->small, DRM_VDXG_SEGMENT_SYSTEM),
		      "MAKE_RESIDENT");
		call[k] = (now() - t) * 1e6;
		check(vdxg_bo_wait(p->small, WAIT_NS), "GEM_WAIT");
		lat[k] = (now() - t) * 1e6;
		move(p->small, DRM_VDXG_SEGMENT_VRAM);
	}
	p->lat[p->i] = median(lat, PAGING_MOVES);
	p->call[p->i] = median(call, PAGING_MOVES);
}

static struct paging paging;

static bool paging_setup(void)
{
	static const uint32_t segs[] = {
		DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_SYSTEM,
	};
	struct paging *p = &paging;

	p->a = malloc(PAGING_SIZE);
	p->b = malloc(PAGING_SIZE);
	if (!p->a || !p->b)
		die("malloc", -ENOMEM);
	memset(p->a, 1, PAGING_SIZE);
	memset(p->b, 2, PAGING_SIZE);
	p->big = bo_new(dev, PAGING_SIZE, segs, 2);
	memset(bo_map(p->big), 0x5a, PAGING_SIZE);
	move(p->big, DRM_VDXG_SEGMENT_VRAM);
	p->small = bo_new(dev, 4096, segs, 2);
	memset(bo_map(p->small), 0xa5, 4096);
	move(p->small, DRM_VDXG_SEGMENT_VRAM);
	add_phase("paging", "64 MiB transfers", paging_transfers, p, &p->i);
	add_phase("paging", "4 KiB moves", paging_moves, p, &p->i);
	return true;
}

static void paging_report(void)
{
	struct paging *p = &paging;

	printf("paging (median of %d transfers, %d 4 KiB moves a repeat)\n",
	       PAGING_INNER, PAGING_MOVES);
	warm_print("paging");
	figure("paging", "memcpy, 64 MiB there and back", "MiB/s", p->cpu,
	       repeats);
	figure("paging", "eviction VRAM->system->VRAM, 64 MiB", "MiB/s",
	       p->gpu, repeats);
	figure("paging", "paging / memcpy", "ratio", p->r, repeats);
	figure("paging", "one 4 KiB move", "us", p->lat, repeats);
	figure("paging", "one 4 KiB move, the ioctl alone", "us", p->call,
	       repeats);
	vdxg_bo_free(p->big);
	vdxg_bo_free(p->small);
	free(p->a);
	free(p->b);
}

/* -------------------------------------------------------------- submit */

#define COST_ALLOCS	16
#define COST_PATCHES	1024
#define COST_ITERS	200

#define NOP_WINDOWS	10	/* of a NOP rate, the median taken */
#define NOP_SECONDS	2.0	/* a NOP rate's windows together */

/*
 * NOP jobs submitted and waited for, one at a time, for about SECONDS: by
 * SUBMIT, or by EXEC of VCS on a virtual-mode CTX. The rate is the median
 * of NOP_WINDOWS windows of SECONDS / NOP_WINDOWS: a host that stops the
 * guest for a while (it shares its CPUs) spoils one window, not the rate.
 */
static double nop_rate(uint32_t ctx, struct vdxg_vcs *vcs, double seconds)
{
	struct vdxg_cs *cs = new_cs();
	struct drm_vdxg_sync out;
	struct vdxg_submit_opts o = { .out_syncs = &out, .num_out_syncs = 1 };
	double rate[NOP_WINDOWS], t0, t;
	uint32_t s;
	long n;
	int w;

	check(vdxg_syncobj_create(dev, 0, &s), "SYNCOBJ_CREATE");
	out = vdxg_sync(s, 0);
	vdxg_cs_nop(cs);
	if (vcs) {
		vdxg_vcs_reset(vcs);
		vdxg_vcs_nop(vcs);
	}
	for (w = 0; w < NOP_WINDOWS; w++) {
		t0 = now();
		n = 0;
		do {
			if (vcs)
				check(vdxg_exec(dev, ctx, vcs, &o), "EXEC");
			else
				check(vdxg_submit(dev, ctx, cs, &o), "SUBMIT");
			check(vdxg_syncobj_wait(dev, &s, NULL, 1,
						vdxg_timeout_abs(10 * SEC_NS),
						0, NULL), "SYNCOBJ_WAIT");
			n++;
			t = now() - t0;
		} while (t < seconds / NOP_WINDOWS);
		rate[w] = n / t;
	}
	vdxg_syncobj_destroy(dev, s);
	vdxg_cs_free(cs);
	return median(rate, NOP_WINDOWS);
}

/*
 * NPATCH FENCEs spread over the COST_ALLOCS objects BO (or a NOP), with
 * their right presumed addresses ADDR or zero ones (STALE).
 */
static struct vdxg_cs *cost_cs(struct vdxg_bo **bo, const uint64_t *addr,
			       int npatch, bool stale)
{
	struct vdxg_cs *cs = new_cs();
	int i;

	for (i = 0; i < COST_ALLOCS; i++)
		bo[i]->gpu_addr = stale ? 0 : addr[i];
	if (!npatch)
		vdxg_cs_nop(cs);
	for (i = 0; i < npatch; i++)
		vdxg_cs_fence(cs, bo[i % COST_ALLOCS], 8 * (i / COST_ALLOCS),
			      DRM_VDXG_ALLOC_WRITE, i);
	for (i = npatch; i < COST_ALLOCS; i++) {
		struct drm_vdxg_allocation a = {
			.handle = bo[i]->handle,
			.flags = DRM_VDXG_ALLOC_WRITE,
			.presumed_gpu_addr = stale ? 0 : addr[i],
		};

		vdxg_cs_add_raw_allocation(cs, &a);
	}
	check(vdxg_cs_error(cs), "building a command buffer");
	return cs;
}

/*
 * Microseconds in the SUBMIT ioctl: the median of COST_ITERS calls of the
 * same arguments, submitted raw so that stale addresses stay stale. Each
 * call's job is waited for, outside the timing, before the next call: a
 * call beside a running job shares the host's CPUs with the device and
 * took 30 or 65 us from one repeat to the next.
 */
static double submit_cost(uint32_t ctx, struct vdxg_bo **bo,
			  const uint64_t *addr, int npatch, bool stale)
{
	struct vdxg_cs *cs = cost_cs(bo, addr, npatch, stale);
	double t[COST_ITERS], t0;
	struct drm_vdxg_submit args;
	int i;

	for (i = 0; i < COST_ITERS; i++) {
		memset(&args, 0, sizeof(args));
		check(vdxg_cs_prepare_submit(cs, &args), "prepare");
		args.ctx_id = ctx;
		t0 = now();
		check(vdxg_submit_raw(dev, &args), "SUBMIT");
		t[i] = now() - t0;
		if (!!(args.out_flags & DRM_VDXG_SUBMIT_OUT_PATCHED) != stale)
			die(stale ? "a stale submit was not patched" :
			    "a right submit was patched", -EPROTO);
		check(vdxg_bo_wait(bo[0], WAIT_NS), "wait");
	}
	vdxg_cs_free(cs);
	return median(t, COST_ITERS) * 1e6;
}

struct submit {
	struct vdxg_bo *bo[COST_ALLOCS];
	uint64_t addr[COST_ALLOCS];
	uint32_t ctx;
	double nop[MAX_REPEATS], right0[MAX_REPEATS], right[MAX_REPEATS];
	double stale0[MAX_REPEATS], stale[MAX_REPEATS];
	int i;
};

static void submit_repeat(void *arg)
{
	struct submit *p = arg;

	p->nop[p->i] = nop_rate(p->ctx, NULL, 1.0);
	p->right0[p->i] = submit_cost(p->ctx, p->bo, p->addr, 0, false);
	p->right[p->i] = submit_cost(p->ctx, p->bo, p->addr, COST_PATCHES,
				     false);
	p->stale0[p->i] = submit_cost(p->ctx, p->bo, p->addr, 0, true);
	p->stale[p->i] = submit_cost(p->ctx, p->bo, p->addr, COST_PATCHES,
				     true);
}

static struct submit submit_p;

static bool submit_setup(void)
{
	struct submit *p = &submit_p;
	int i;

	p->ctx = new_ctx(dev);
	for (i = 0; i < COST_ALLOCS; i++) {
		p->bo[i] = vram_bo(dev, 16384);	/* room for the fences */
		check(vdxg_bo_info(p->bo[i], NULL, &p->addr[i]), "GEM_INFO");
	}
	add_phase("submit", "", submit_repeat, p, &p->i);
	return true;
}

static void submit_report(void)
{
	struct submit *p = &submit_p;
	double v[MAX_REPEATS];
	int i;

	printf("submit\n");
	warm_print("submit");
	figure("submit", "NOP submit + wait", "submits/s", p->nop, repeats);
	figure("submit", "SUBMIT, 16 allocations, no patch", "us", p->right0,
	       repeats);
	figure("submit", "SUBMIT, 1024 locations, right addresses", "us",
	       p->right, repeats);
	figure("submit", "SUBMIT, 1024 locations, stale addresses", "us",
	       p->stale, repeats);
	for (i = 0; i < repeats; i++)
		v[i] = (p->stale[i] - p->stale0[i]) * 1e3 / COST_PATCHES;
	figure("submit", "patch cost per location", "ns", v, repeats);
	for (i = 0; i < repeats; i++)
		v[i] = (p->right[i] - p->right0[i]) * 1e3 / COST_PATCHES;
	figure("submit", "validation per location, nothing patched", "ns", v,
	       repeats);
	ratio(v, p->stale, p->right, repeats);
	figure("submit", "presumed-address speedup (stale / right)", "ratio",
	       v, repeats);
	for (i = 0; i < COST_ALLOCS; i++)
		vdxg_bo_free(p->bo[i]);
	vdxg_context_destroy(dev, p->ctx);
}

/* --------------------------------------------------------------- split */

#define SPLIT_TURNS	8

struct split {
	uint32_t ctx;
	uint64_t size;
	double one[MAX_REPEATS], sep[MAX_REPEATS];
	int i;
};

/* The turns, into CS: with split points, or each SUBMITted on its own. */
static double split_run(struct split *p, struct vdxg_bo **t, bool split)
{
	struct vdxg_cs *cs = new_cs();
	struct vdxg_submit_opts o = { 0 };
	double t0;
	int i;

	/* The same start each time: the second target mapped, not the first. */
	check(vdxg_bo_make_resident(t[1], DRM_VDXG_SEGMENT_APERTURE),
	      "MAKE_RESIDENT");
	check(vdxg_bo_wait(t[1], WAIT_NS), "wait");
	check(vdxg_bo_wait(t[0], WAIT_NS), "wait");
	t0 = now();
	for (i = 0; i < SPLIT_TURNS; i++) {
		if (split)
			vdxg_cs_split_point(cs);
		vdxg_cs_set_surface(cs, VDXG_SLOT_DST, t[i % 2], 0,
				    DRM_VDXG_ALLOC_WRITE, VDXG_FMT_XRGB8888,
				    64, 64, 256);
		vdxg_cs_fill_rect(cs, i, i, 8, 8, 0xff000000u | i);
		if (split)
			continue;
		check(vdxg_submit(dev, p->ctx, cs, &o), "SUBMIT");
		if (o.out_flags & DRM_VDXG_SUBMIT_OUT_SPLIT)
			die("one turn was split", -EPROTO);
		vdxg_cs_reset(cs);
	}
	if (split) {
		check(vdxg_submit(dev, p->ctx, cs, &o), "SUBMIT");
		if (!(o.out_flags & DRM_VDXG_SUBMIT_OUT_SPLIT))
			die("the turns were not split", -EPROTO);
	}
	check(vdxg_bo_wait(t[0], WAIT_NS), "wait");
	check(vdxg_bo_wait(t[1], WAIT_NS), "wait");
	vdxg_cs_free(cs);
	return now() - t0;
}

static void split_repeat(void *arg)
{
	static const uint32_t segs[] = {
		DRM_VDXG_SEGMENT_APERTURE, DRM_VDXG_SEGMENT_SYSTEM,
	};
	struct split *p = arg;
	struct vdxg_bo *t[2];

	t[0] = bo_new(dev, p->size, segs, 2);
	t[1] = bo_new(dev, p->size, segs, 2);
	p->one[p->i] = split_run(p, t, true);
	p->sep[p->i] = split_run(p, t, false);
	vdxg_bo_free(t[1]);
	vdxg_bo_free(t[0]);
}

static struct split split_p;

static bool split_setup(void)
{
	struct split *p = &split_p;
	uint64_t aperture;

	check(vdxg_get_param(dev, DRM_VDXG_PARAM_APERTURE_SIZE, &aperture),
	      "GET_PARAM");
	/* Two do not fit together in the aperture; one does. */
	p->size = aperture / 2 + (1 << 20);
	p->ctx = new_ctx(dev);
	add_phase("split", "", split_repeat, p, &p->i);
	return true;
}

static void split_report(void)
{
	struct split *p = &split_p;
	double v[MAX_REPEATS];
	int i;

	printf("split\n");
	warm_print("split");
	for (i = 0; i < repeats; i++)
		v[i] = p->one[i] * 1e3;
	figure("split", "8 turns, one SUBMIT in 8 pieces", "ms", v, repeats);
	for (i = 0; i < repeats; i++)
		v[i] = p->sep[i] * 1e3;
	figure("split", "8 turns, 8 SUBMITs", "ms", v, repeats);
	for (i = 0; i < repeats; i++)
		v[i] = (p->one[i] - p->sep[i]) * 1e6 / SPLIT_TURNS;
	figure("split", "cost of a piece over a SUBMIT", "us", v, repeats);
	ratio(v, p->one, p->sep, repeats);
	figure("split", "split / separate", "ratio", v, repeats);
	vdxg_context_destroy(dev, p->ctx);
}

/* -------------------------------------------------------------- render */

#define SURF_DIM	1024
#define SURF_SIZE	((uint64_t)SURF_DIM * SURF_DIM * 4)
#define RENDER_OPS	16

#define RENDER_INNER	5	/* jobs of each a repeat at least, */
#define RENDER_SECONDS	1.5	/* and as many as fit in this: the median */
#define RENDER_MAX	256

/* MiB/s written by one job of CS, submitted to idle. */
static double job_rate(uint32_t ctx, struct vdxg_cs *cs, struct vdxg_bo *dst)
{
	double t = now();

	submit(dev, ctx, cs);
	check(vdxg_bo_wait(dst, WAIT_NS), "wait");
	return RENDER_OPS * SURF_SIZE / (now() - t) / MIB;
}

struct render {
	struct vdxg_bo *src, *dst;
	struct vdxg_cs *fcs, *ccs;
	char *a, *b;
	uint32_t ctx;
	double cpu[MAX_REPEATS], fill[MAX_REPEATS], copy[MAX_REPEATS];
	double rf[MAX_REPEATS], rc[MAX_REPEATS];
	int i;
};

/*
 * memcpy, a FILL_RECT job and a COPY_RECT job, RENDER_INNER times and
 * then until RENDER_SECONDS have passed: the median of each and of the two
 * ratios. A job takes a few milliseconds, at the host's memory bandwidth,
 * which other machines on a shared host take in phases of a few seconds
 * (FILL_RECT moved by 30% between two runs a minute apart, the same
 * within each): samples spread over more than a phase make a figure that
 * any repeat count agrees on.
 */
static void render_repeat(void *arg)
{
	struct render *p = arg;
	double cpu[RENDER_MAX], fill[RENDER_MAX], copy[RENDER_MAX];
	double rf[RENDER_MAX], rc[RENDER_MAX];
	double t0 = now();
	int k, n;

	for (k = 0; k < RENDER_MAX &&
	     (k < RENDER_INNER || now() - t0 < RENDER_SECONDS); k++) {
		cpu[k] = memcpy_rate(p->a, p->b, SURF_SIZE,
				     RENDER_OPS * SURF_SIZE);
		fill[k] = job_rate(p->ctx, p->fcs, p->dst);
		copy[k] = job_rate(p->ctx, p->ccs, p->dst);
		rf[k] = fill[k] / cpu[k];
		rc[k] = copy[k] / cpu[k];
	}
	n = k;
	p->cpu[p->i] = median(cpu, n);
	p->fill[p->i] = median(fill, n);
	p->copy[p->i] = median(copy, n);
	p->rf[p->i] = median(rf, n);
	p->rc[p->i] = median(rc, n);
}

static struct render render;

static bool render_setup(void)
{
	struct render *p = &render;
	int i;

	p->src = vram_bo(dev, SURF_SIZE);
	p->dst = vram_bo(dev, SURF_SIZE);
	p->fcs = new_cs();
	p->ccs = new_cs();
	p->a = malloc(SURF_SIZE);
	p->b = malloc(SURF_SIZE);
	p->ctx = new_ctx(dev);
	if (!p->a || !p->b)
		die("malloc", -ENOMEM);
	memset(p->a, 1, SURF_SIZE);
	memset(p->b, 2, SURF_SIZE);
	vdxg_cs_set_surface(p->fcs, VDXG_SLOT_DST, p->dst, 0,
			    DRM_VDXG_ALLOC_WRITE, VDXG_FMT_XRGB8888, SURF_DIM,
			    SURF_DIM, SURF_DIM * 4);
	vdxg_cs_set_surface(p->ccs, VDXG_SLOT_SRC, p->src, 0, 0,
			    VDXG_FMT_XRGB8888, SURF_DIM, SURF_DIM,
			    SURF_DIM * 4);
	vdxg_cs_set_surface(p->ccs, VDXG_SLOT_DST, p->dst, 0,
			    DRM_VDXG_ALLOC_WRITE, VDXG_FMT_XRGB8888, SURF_DIM,
			    SURF_DIM, SURF_DIM * 4);
	for (i = 0; i < RENDER_OPS; i++) {
		vdxg_cs_fill_rect(p->fcs, 0, 0, SURF_DIM, SURF_DIM,
				  0xff000000 | i * 0x010203);
		vdxg_cs_copy_rect(p->ccs, 0, 0, 0, 0, SURF_DIM, SURF_DIM);
	}
	add_phase("render", "", render_repeat, p, &p->i);
	return true;
}

static void render_report(void)
{
	struct render *p = &render;

	printf("render (1024x1024 XRGB8888 in VRAM, 16 a job, the median of "
	       "the jobs of %.1f s a repeat)\n", RENDER_SECONDS);
	warm_print("render");
	figure("render", "memcpy, same bytes", "MiB/s", p->cpu, repeats);
	figure("render", "FILL_RECT", "MiB/s", p->fill, repeats);
	figure("render", "COPY_RECT", "MiB/s", p->copy, repeats);
	figure("render", "FILL_RECT / memcpy", "ratio", p->rf, repeats);
	figure("render", "COPY_RECT / memcpy", "ratio", p->rc, repeats);
	vdxg_cs_free(p->fcs);
	vdxg_cs_free(p->ccs);
	vdxg_bo_free(p->src);
	vdxg_bo_free(p->dst);
	vdxg_context_destroy(dev, p->ctx);
	free(p->a);
	free(p->b);
}

/* ---------------------------------------------------------------- flip */

#define FLIPS		20

/*
 * FLIPS flips between FB[0] and FB[1], each issued right after a vblank:
 * the mean of (event's vblank count - that vblank's) and of the time from
 * the ioctl to the event (ms), by atomic commit or PRESENT.
 */
static void flip_run(struct vdxg_kms *k, const uint32_t *fb, bool present,
		     double *vblanks, double *ms)
{
	double sum_v = 0, sum_t = 0, t;
	uint32_t seq0, seq;
	int i;

	for (i = 0; i < FLIPS; i++) {
		check(vdxg_kms_next_vblank(k, &seq0), "WAIT_VBLANK");
		t = now();
		if (present)
			check(vdxg_present_flip(k->dev, k->crtc_id, fb[i & 1],
						DRM_VDXG_PRESENT_EVENT, i, 0),
			      "PRESENT FLIP");
		else
			check(vdxg_kms_flip(k, fb[i & 1], i), "atomic flip");
		check(vdxg_kms_wait_flip(k, i, 5000, &seq), "flip event");
		sum_t += now() - t;
		sum_v += seq - seq0;
	}
	*vblanks = sum_v / FLIPS;
	*ms = sum_t * 1e3 / FLIPS;
}

struct flip {
	struct vdxg_kms k;
	struct vdxg_bo *bo[2];
	uint32_t fb[2];
	double av[MAX_REPEATS], at[MAX_REPEATS], pv[MAX_REPEATS];
	double pt[MAX_REPEATS];
	int i;
};

static void flip_repeat(void *arg)
{
	struct flip *p = arg;

	flip_run(&p->k, p->fb, false, &p->av[p->i], &p->at[p->i]);
	flip_run(&p->k, p->fb, true, &p->pv[p->i], &p->pt[p->i]);
}

static struct flip flip;

static bool flip_setup(void)
{
	struct flip *p = &flip;
	struct vdxg_kms *k = &p->k;
	int i, ret;

	ret = vdxg_kms_open(k, NULL);
	if (ret) {
		printf("flip: skipped: no vdxg card with a connected output "
		       "that we can be master of (%s)\n", vdxg_strerror(ret));
		return false;
	}
	for (i = 0; i < 2; i++) {
		p->bo[i] = vram_bo(k->dev, (uint64_t)k->w * k->h * 4);
		memset(bo_map(p->bo[i]), i ? 0x40 : 0x80, p->bo[i]->size);
		check(vdxg_kms_addfb(k, p->bo[i], &p->fb[i]), "ADDFB2");
	}
	check(vdxg_kms_modeset(k, p->fb[0]), "atomic modeset");
	add_phase("flip", "", flip_repeat, p, &p->i);
	return true;
}

static void flip_report(void)
{
	struct flip *p = &flip;
	struct vdxg_kms *k = &p->k;
	int i;

	printf("flip (%ux%u@%u, the mean of %d flips a repeat)\n", k->w, k->h,
	       k->mode.vrefresh, FLIPS);
	warm_print("flip");
	figure("flip", "atomic page flip latency", "vblanks", p->av, repeats);
	figure("flip", "atomic page flip, ioctl to event", "ms", p->at,
	       repeats);
	figure("flip", "PRESENT flip latency", "vblanks", p->pv, repeats);
	figure("flip", "PRESENT flip, ioctl to event", "ms", p->pt, repeats);
	for (i = 0; i < 2; i++) {
		drmModeRmFB(k->fd, p->fb[i]);
		vdxg_bo_free(p->bo[i]);
	}
	vdxg_kms_close(k);
}

/* ------------------------------------------------------------- clients */

#define CLIENT_JOBS	4000

/* EXEC: where the objects of the exec group and va clients are. */
#define EXEC_VA_CMD	(1ull << 32)
#define EXEC_VA_OBJ(i)	((2ull + (i)) << 32)
#define EXEC_CMD_SIZE	(64u << 10)

/* A virtual-mode context in a new VM of D, and a command object bound. */
static uint32_t exec_setup(struct vdxg_device *d, uint32_t *vm,
			   struct vdxg_bo **cmd, struct vdxg_vcs *vcs)
{
	uint32_t ctx;

	check(vdxg_vm_create(d, 0, vm), "VM_CREATE");
	check(vdxg_context_create_vm(d, DRM_VDXG_PRIORITY_NORMAL, *vm, &ctx),
	      "CONTEXT_CREATE with a VM");
	static const uint32_t sys = DRM_VDXG_SEGMENT_SYSTEM;

	*cmd = bo_new(d, EXEC_CMD_SIZE, &sys, 1);
	check(vdxg_vm_map(d, *vm, *cmd, 0, EXEC_VA_CMD, EXEC_CMD_SIZE, 0),
	      "VM_BIND");
	vdxg_vcs_init(vcs, bo_map(*cmd), EXEC_CMD_SIZE, EXEC_VA_CMD);
	return ctx;
}

/*
 * One client: its own file, context and object; JOBS jobs after GO, by
 * SUBMIT or, with VA, by EXEC in a VM of its own.
 */
static void client(int jobs, int ready, int go, bool va)
{
	struct vdxg_cs *cs = new_cs();
	struct vdxg_bo *bo, *cmd;
	struct vdxg_device *d;
	struct vdxg_vcs vcs;
	uint32_t ctx, vm;
	char c = 0;
	int i;

	check(vdxg_device_open(NULL, &d), "open");
	bo = vram_bo(d, 64 << 10);
	if (va) {
		ctx = exec_setup(d, &vm, &cmd, &vcs);
		check(vdxg_vm_map(d, vm, bo, 0, EXEC_VA_OBJ(0), 64 << 10, 0),
		      "VM_BIND");
		vdxg_vcs_set_surface(&vcs, VDXG_SLOT_DST, EXEC_VA_OBJ(0),
				     VDXG_FMT_XRGB8888, 32, 32, 128);
		vdxg_vcs_fill_rect(&vcs, 0, 0, 32, 32, 0xff00ff00);
		vdxg_vcs_fence(&vcs, EXEC_VA_OBJ(0) + 32768, 1);
		check(vdxg_exec(d, ctx, &vcs, NULL), "EXEC");
	} else {
		ctx = new_ctx(d);
		vdxg_cs_set_surface(cs, VDXG_SLOT_DST, bo, 0,
				    DRM_VDXG_ALLOC_WRITE, VDXG_FMT_XRGB8888,
				    32, 32, 128);
		vdxg_cs_fill_rect(cs, 0, 0, 32, 32, 0xff00ff00);
		vdxg_cs_fence(cs, bo, 32768, DRM_VDXG_ALLOC_WRITE, 1);
		/* Placed and patched once before the clock starts. */
		submit(d, ctx, cs);
	}
	check(vdxg_bo_wait(bo, WAIT_NS), "wait");
	if (write(ready, &c, 1) != 1 || read(go, &c, 1) != 0)
		exit(1);
	for (i = 0; i < jobs; i++) {
		if (va)
			check(vdxg_exec(d, ctx, &vcs, NULL), "EXEC");
		else
			submit(d, ctx, cs);
		if (i % 16 == 15)
			check(vdxg_bo_wait(bo, WAIT_NS), "wait");
	}
	check(vdxg_bo_wait(bo, WAIT_NS), "wait");
	exit(0);
}

/* Jobs per second of N clients sharing CLIENT_JOBS jobs, one a CPU in turn. */
static double clients_rate(int n, bool va)
{
	int ready[2], go[2], i, status, failed = 0, jobs = CLIENT_JOBS / n;
	pid_t pid[8];
	double t0;
	char c;

	if (pipe(ready) || pipe(go))
		die("pipe", -errno);
	for (i = 0; i < n; i++) {
		pid[i] = fork();
		if (pid[i] < 0)
			die("fork", -errno);
		if (!pid[i]) {
			pin_cpu(i);
			close(ready[0]);
			close(go[1]);
			client(jobs, ready[1], go[0], va);
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
	if (failed)
		die("a client failed", -EIO);
	return n * jobs / (now() - t0);
}

#define CLIENT_INNER	3	/* runs of each count a repeat, the median */

static const int client_n[] = { 1, 2, 4, 8 };

/*
 * Repeat I of the clients' jobs/s, RATE[c][I] for client_n[c] clients, and
 * of their ratios to one client's, R[c][I] (c > 0): the medians of
 * CLIENT_INNER runs of each count in turn, by SUBMIT or (VA) by EXEC.
 */
static void clients_repeat(double (*rate)[MAX_REPEATS],
			   double (*r)[MAX_REPEATS], int i, bool va)
{
	double v[4][CLIENT_INNER], q[4][CLIENT_INNER];
	int c, k;

	for (k = 0; k < CLIENT_INNER; k++) {
		for (c = 0; c < 4; c++)
			v[c][k] = clients_rate(client_n[c], va);
		for (c = 1; c < 4; c++)
			q[c][k] = v[c][k] / v[0][k];
	}
	for (c = 0; c < 4; c++) {
		rate[c][i] = median(v[c], CLIENT_INNER);
		if (c)
			r[c][i] = median(q[c], CLIENT_INNER);
	}
}

struct clients {
	double rate[4][MAX_REPEATS], r[4][MAX_REPEATS];
	int i;
};

static void clients_round(void *arg)
{
	struct clients *p = arg;

	clients_repeat(p->rate, p->r, p->i, false);
}

static struct clients clients;

static bool clients_setup(void)
{
	add_phase("clients", "", clients_round, &clients, &clients.i);
	return true;
}

static void clients_report(void)
{
	struct clients *p = &clients;
	char name[64];
	int c;

	printf("clients (32x32 FILL_RECT + FENCE jobs, %d a run, the median "
	       "of %d runs a repeat)\n", CLIENT_JOBS, CLIENT_INNER);
	warm_print("clients");
	for (c = 0; c < 4; c++) {
		snprintf(name, sizeof(name), "%d client%s", client_n[c],
			 client_n[c] > 1 ? "s" : "");
		figure("clients", name, "jobs/s", p->rate[c], repeats);
	}
	for (c = 1; c < 4; c++) {
		snprintf(name, sizeof(name), "%d clients / 1 client",
			 client_n[c]);
		figure("clients", name, "ratio", p->r[c], repeats);
	}
}

/* --------------------------------------------------------------- exec */

/*
 * Microseconds in the EXEC ioctl for COST_PATCHES FENCEs over the
 * COST_ALLOCS objects bound in the VM (the same commands as SUBMIT's cost
 * figure, with virtual addresses): the median of COST_ITERS calls, the
 * jobs drained every 32 calls outside the timing.
 */
static double exec_cost(uint32_t ctx, struct vdxg_vcs *vcs,
			struct vdxg_bo *bo0)
{
	double t[COST_ITERS], t0;
	int i;

	vdxg_vcs_reset(vcs);
	for (i = 0; i < COST_PATCHES; i++)
		vdxg_vcs_fence(vcs, EXEC_VA_OBJ(i % COST_ALLOCS) +
			       8 * (i / COST_ALLOCS), i);
	check(vdxg_vcs_error(vcs), "building a command buffer");
	for (i = 0; i < COST_ITERS; i++) {
		t0 = now();
		check(vdxg_exec(dev, ctx, vcs, NULL), "EXEC");
		t[i] = now() - t0;
		if (i % 32 == 31)
			check(vdxg_bo_wait(bo0, WAIT_NS), "wait");
	}
	check(vdxg_bo_wait(bo0, WAIT_NS), "wait");
	return median(t, COST_ITERS) * 1e6;
}

/* The fences the last cost job wrote: the jobs really ran. */
static void exec_cost_check(struct vdxg_bo **bo)
{
	int i;

	for (i = 0; i < COST_PATCHES; i++) {
		const uint64_t *p = bo_map(bo[i % COST_ALLOCS]);

		if (p[i / COST_ALLOCS] != (uint64_t)i)
			die("an EXEC job did not write its fence", -EIO);
	}
}

struct exec {
	struct vdxg_bo *bo[COST_ALLOCS], *priv[COST_ALLOCS], *cmd, *pcmd;
	struct vdxg_vcs vcs, pvcs;
	uint64_t addr[COST_ALLOCS];
	uint32_t ctx, ectx, pctx, vm, pvm;
	double nop[MAX_REPEATS], enop[MAX_REPEATS], right[MAX_REPEATS];
	double cost[MAX_REPEATS], pcost[MAX_REPEATS];
	double rate[4][MAX_REPEATS], r[4][MAX_REPEATS];
	int i;
};

static void exec_repeat(void *arg)
{
	struct exec *p = arg;

	p->nop[p->i] = nop_rate(p->ctx, NULL, NOP_SECONDS);
	p->enop[p->i] = nop_rate(p->ectx, &p->vcs, NOP_SECONDS);
	p->right[p->i] = submit_cost(p->ctx, p->bo, p->addr, COST_PATCHES,
				     false);
	p->cost[p->i] = exec_cost(p->ectx, &p->vcs, p->bo[0]);
	p->pcost[p->i] = exec_cost(p->pctx, &p->pvcs, p->priv[0]);
	clients_repeat(p->rate, p->r, p->i, true);
}

static struct exec exec_p;

static bool exec_setup_group(void)
{
	static const uint32_t vram = DRM_VDXG_SEGMENT_VRAM;
	struct exec *p = &exec_p;
	uint64_t caps = 0;
	int i;

	check(vdxg_get_param(dev, DRM_VDXG_PARAM_CAPS, &caps), "GET_PARAM");
	if (!(caps & VDXG_CAP_GPU_MMU)) {
		printf("exec: skipped, the device has no GPU MMU\n");
		return false;
	}
	p->ctx = new_ctx(dev);
	p->ectx = exec_setup(dev, &p->vm, &p->cmd, &p->vcs);
	p->pctx = exec_setup(dev, &p->pvm, &p->pcmd, &p->pvcs);
	for (i = 0; i < COST_ALLOCS; i++) {
		p->bo[i] = vram_bo(dev, 16384);
		check(vdxg_bo_info(p->bo[i], NULL, &p->addr[i]), "GEM_INFO");
		check(vdxg_vm_map(dev, p->vm, p->bo[i], 0, EXEC_VA_OBJ(i),
				  16384, 0), "VM_BIND");
		check(vdxg_bo_create_vm(dev, 16384, &vram, 1, 0, p->pvm,
					&p->priv[i]), "GEM_CREATE, VM-private");
		check(vdxg_vm_map(dev, p->pvm, p->priv[i], 0, EXEC_VA_OBJ(i),
				  16384, 0), "VM_BIND");
	}
	/* Check that the jobs write what they should. */
	memset(bo_map(p->bo[0]), 0xff, 16384);
	exec_cost(p->ectx, &p->vcs, p->bo[0]);
	exec_cost_check(p->bo);
	exec_cost(p->pctx, &p->pvcs, p->priv[0]);
	exec_cost_check(p->priv);
	add_phase("exec", "", exec_repeat, p, &p->i);
	return true;
}

static void exec_report(void)
{
	struct exec *p = &exec_p;
	double v[MAX_REPEATS];
	char name[64];
	int c, i;

	printf("exec (clients: the median of %d runs a repeat)\n",
	       CLIENT_INNER);
	warm_print("exec");
	figure("exec", "NOP SUBMIT + wait", "jobs/s", p->nop, repeats);
	figure("exec", "NOP EXEC + wait", "jobs/s", p->enop, repeats);
	ratio(v, p->enop, p->nop, repeats);
	figure("exec", "NOP EXEC / NOP SUBMIT", "ratio", v, repeats);
	figure("exec", "SUBMIT, 1024 address fields, 16 objects", "us",
	       p->right, repeats);
	figure("exec", "EXEC, 1024 address fields, 16 objects", "us", p->cost,
	       repeats);
	figure("exec", "EXEC, 1024 address fields, 16 VM-private objects",
	       "us", p->pcost, repeats);
	ratio(v, p->right, p->cost, repeats);
	figure("exec", "ioctl cost SUBMIT / EXEC (1024 fields)", "ratio", v,
	       repeats);
	for (c = 0; c < 4; c++) {
		snprintf(name, sizeof(name), "%d client%s, EXEC", client_n[c],
			 client_n[c] > 1 ? "s" : "");
		figure("exec", name, "jobs/s", p->rate[c], repeats);
	}
	for (c = 1; c < 4; c++) {
		snprintf(name, sizeof(name), "%d clients / 1 client, EXEC",
			 client_n[c]);
		figure("exec", name, "ratio", p->r[c], repeats);
	}
	for (i = 0; i < COST_ALLOCS; i++) {
		vdxg_bo_free(p->priv[i]);
		vdxg_bo_free(p->bo[i]);
	}
	vdxg_context_destroy(dev, p->pctx);
	vdxg_context_destroy(dev, p->ectx);
	vdxg_context_destroy(dev, p->ctx);
	vdxg_bo_free(p->pcmd);
	vdxg_bo_free(p->cmd);
	vdxg_vm_destroy(dev, p->pvm);
	vdxg_vm_destroy(dev, p->vm);
}

/* ------------------------------------------------------------------ cs */

#define CS_ADDRESSES	65536
#define CS_BUILDS	9

/* Nanoseconds per address field of a FENCE stream over NOBJ objects. */
static double cs_cost(struct vdxg_cs *cs, struct vdxg_bo *bo, int nobj)
{
	double t[CS_BUILDS], t0;
	int b, i;

	for (b = 0; b < CS_BUILDS; b++) {
		vdxg_cs_reset(cs);
		t0 = now();
		for (i = 0; i < CS_ADDRESSES; i++)
			vdxg_cs_fence(cs, &bo[(i * 7) % nobj], 0,
				      DRM_VDXG_ALLOC_WRITE, i);
		t[b] = now() - t0;
		check(vdxg_cs_error(cs), "building a command buffer");
	}
	return median(t, CS_BUILDS) * 1e9 / CS_ADDRESSES;
}

struct cs {
	struct vdxg_cs *cs;
	struct vdxg_bo *bo;
	double few[MAX_REPEATS], many[MAX_REPEATS];
	int i;
};

static void cs_repeat(void *arg)
{
	struct cs *p = arg;

	p->few[p->i] = cs_cost(p->cs, p->bo, 16);
	p->many[p->i] = cs_cost(p->cs, p->bo, 4096);
}

static struct cs cs_p;

static bool cs_setup(void)
{
	struct cs *p = &cs_p;
	int i;

	p->bo = calloc(4096, sizeof(*p->bo));
	if (!p->bo)
		die("calloc", -ENOMEM);
	/* Plain structures naming handles: the builder needs no device. */
	for (i = 0; i < 4096; i++) {
		p->bo[i].handle = i + 1;
		p->bo[i].size = 4096;
		p->bo[i].gpu_addr = 0x100000ull * (i + 1);
	}
	p->cs = new_cs();
	add_phase("cs", "", cs_repeat, p, &p->i);
	return true;
}

static void cs_report(void)
{
	struct cs *p = &cs_p;
	double r[MAX_REPEATS];

	printf("cs (the builder alone, %d FENCEs a build)\n", CS_ADDRESSES);
	warm_print("cs");
	figure("cs", "address field, 16 objects", "ns", p->few, repeats);
	figure("cs", "address field, 4096 objects", "ns", p->many, repeats);
	ratio(r, p->many, p->few, repeats);
	figure("cs", "4096 objects / 16 objects", "ratio", r, repeats);
	vdxg_cs_free(p->cs);
	free(p->bo);
}

/* ------------------------------------------------------------------ vm */

#define VM_SIZE		(64 * MIB)	/* bound, and moved */
#define VM_LARGE	(2 * MIB)	/* a level-1 leaf */
#define VM_VA		(1ull << 32)	/* 2 MiB (and 1 GiB) aligned */
#define VM_MOVE_VMS	8
#define VM_BINDS	9	/* binds a repeat, the median taken */
#define VM_MOVES	7	/* round trips a repeat, likewise */
#define VM_SETTLE_US	100000	/* before each timed move */
#define VM_SEED_BIND	1
#define VM_SEED_SYSTEM	2
#define VM_SEED_VRAM	3

/* Object offsets the correctness checks read back through a VM. */
static const uint64_t vm_check_at[] = { 0, VM_SIZE / 2 + 4096,
					VM_SIZE - 4096 };
#define VM_CHECKS	(sizeof(vm_check_at) / sizeof(vm_check_at[0]))

static uint32_t vm_word(uint32_t seed, uint64_t offset)
{
	return seed * 0x9e3779b9u + (uint32_t)(offset / 4);
}

/* The pattern of SEED over [OFFSET, OFFSET + SIZE) of the object at P. */
static void vm_fill(void *p, uint32_t seed, uint64_t offset, uint64_t size)
{
	uint32_t *w = (uint32_t *)((char *)p + offset);
	uint64_t i;

	for (i = 0; i < size / 4; i++)
		w[i] = vm_word(seed, offset + 4 * i);
}

/*
 * The root-only view of the VMs, through debugfs dri/N: "vms" gives each
 * VM's address space id and table count, "vm_read" the bytes at a virtual
 * address as the paging engine reads them. Without it the checks are
 * skipped, the figures not.
 */
static bool vm_debugfs(char *path, size_t len, const char *name)
{
	struct stat st;

	if (geteuid() || fstat(vdxg_device_fd(dev), &st))
		return false;
	snprintf(path, len, "/sys/kernel/debug/dri/%u/%s", minor(st.st_rdev),
		 name);
	return !access(path, R_OK);
}

/* The client id of our file, from /proc/self/fdinfo. */
static bool vm_client_id(unsigned long long *id)
{
	char path[64], line[256];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d",
		 vdxg_device_fd(dev));
	f = fopen(path, "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "drm-client-id: %llu", id) == 1;
	fclose(f);
	return found;
}

/* VM's key and page-table count; false when not visible. */
static bool vm_info(uint32_t vm, uint32_t *key, uint32_t *tables)
{
	unsigned long long client, c, n;
	unsigned int a, i, t;
	char path[96], line[256];
	bool found = false;
	FILE *f;

	if (!vm_client_id(&client) || !vm_debugfs(path, sizeof(path), "vms"))
		return false;
	f = fopen(path, "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "vm %u: client %llu id %u, address space "
			   "%*u, %llu mappings, %u tables", &a, &c, &i, &n,
			   &t) == 5 &&
		    c == client && i == vm) {
			*key = a;
			*tables = t;
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* Compare 4 KiB at VA of VM KEY, as the GPU reads it, with SEED at OFFSET. */
static void vm_expect(uint32_t key, uint64_t va, uint32_t seed,
		      uint64_t offset, const char *what)
{
	uint32_t got[1024];
	char path[96], cmd[64];
	int fd, n, i;

	if (!vm_debugfs(path, sizeof(path), "vm_read"))
		die("debugfs vm_read is gone", -EPROTO);
	fd = open(path, O_RDWR);
	if (fd < 0)
		die(path, -errno);
	n = snprintf(cmd, sizeof(cmd), "%u %" PRIx64 " %zu", key, va,
		     sizeof(got));
	if (write(fd, cmd, n) != n ||
	    pread(fd, got, sizeof(got), 0) != (ssize_t)sizeof(got))
		die("vm_read", -errno);
	close(fd);
	for (i = 0; i < 1024; i++) {
		if (got[i] != vm_word(seed, offset + 4 * i)) {
			fprintf(stderr, "vdxg-bench: %s: VA 0x%" PRIx64
				" of VM %u reads 0x%08x, not "
				"0x%08x\n", what, va + 4 * i, key, got[i],
				vm_word(seed, offset + 4 * i));
			die("the VM does not map what it should", -EBADMSG);
		}
	}
}

/* Seconds from VM_BIND of OP until its out-syncobj S signals. */
static double vm_bind_time(uint32_t vm, const struct drm_vdxg_vm_bind_op *op,
			   uint32_t s)
{
	struct drm_vdxg_sync out = vdxg_sync(s, 0);
	double t;

	/* No fence left from the last bind: a bind that gave none fails. */
	check(vdxg_syncobj_reset(dev, s), "SYNCOBJ_RESET");
	t = now();
	check(vdxg_vm_bind(dev, vm, op, 1, NULL, 0, &out, 1), "VM_BIND");
	check(vdxg_syncobj_wait(dev, &s, NULL, 1, vdxg_timeout_abs(WAIT_NS), 0,
				NULL), "SYNCOBJ_WAIT");
	return now() - t;
}

/*
 * VM_BINDS binds of MAP (and of UNMAP after each) in VM: the MiB/s of the
 * median bind and of the median unbind.
 */
static void vm_binds(uint32_t vm, const struct drm_vdxg_vm_bind_op *map,
		     const struct drm_vdxg_vm_bind_op *unmap, uint32_t s,
		     double *map_rate, double *unmap_rate)
{
	double m[VM_BINDS], u[VM_BINDS];
	int i;

	for (i = 0; i < VM_BINDS; i++) {
		m[i] = vm_bind_time(vm, map, s);
		u[i] = vm_bind_time(vm, unmap, s);
	}
	*map_rate = VM_SIZE / median(m, VM_BINDS) / MIB;
	*unmap_rate = VM_SIZE / median(u, VM_BINDS) / MIB;
}

static struct drm_vdxg_vm_bind_op vm_map_op(struct vdxg_bo *bo,
					    uint64_t offset, uint64_t va)
{
	struct drm_vdxg_vm_bind_op op = {
		.op = DRM_VDXG_VM_BIND_OP_MAP,
		.handle = bo->handle,
		.obj_offset = offset,
		.va = va,
		.range = VM_SIZE,
	};

	return op;
}

/*
 * The first bind of each kind, untimed: its page tables allocated, its
 * entries of the size meant (counted in debugfs vms: the 4 KiB one needs
 * a level-0 table for each 2 MiB, the 2 MiB one none) and read back
 * through the GPU. Returns whether the check ran.
 */
static bool vm_bind_check(uint32_t vm, const struct drm_vdxg_vm_bind_op *map,
			  uint32_t s, uint64_t entry)
{
	static const uint32_t above = 3;	/* root, level 2, level 1 */
	uint32_t key, tables;
	const char *what = entry == VM_LARGE ? "2 MiB entries" :
					       "4 KiB entries";
	size_t i;

	vm_bind_time(vm, map, s);
	if (!vm_info(vm, &key, &tables))
		return false;
	if (entry == VM_LARGE ? tables > above :
	    tables < above + VM_SIZE / VM_LARGE) {
		fprintf(stderr, "vdxg-bench: %s: %u page tables for %llu MiB\n",
			what, tables, VM_SIZE / MIB);
		die("the bind did not use the entries meant", -EPROTO);
	}
	for (i = 0; i < VM_CHECKS; i++)
		vm_expect(key, VM_VA + vm_check_at[i], VM_SEED_BIND,
			  map->obj_offset + vm_check_at[i], what);
	return true;
}

/*
 * Milliseconds of a move of BO to SEGMENT: MAKE_RESIDENT until GEM_WAIT
 * finds the object idle, polled (a sleeping wait adds the wake-up, which
 * a guest busy clearing the pages of the last move delays by up to
 * 100 ms).
 */
static double vm_move_time(struct vdxg_bo *bo, uint32_t segment)
{
	uint32_t seg;
	double t0, t;
	int ret;

	/* The last move's clean-up (its old pages cleared) out of the way. */
	usleep(VM_SETTLE_US);
	t0 = now();
	check(vdxg_bo_make_resident(bo, segment), "MAKE_RESIDENT");
	do {
		ret = vdxg_bo_wait(bo, 0);
		t = now() - t0;
	} while (ret == -EBUSY && t < WAIT_NS / SEC_NS);
	check(ret, "GEM_WAIT");
	check(vdxg_bo_info(bo, &seg, NULL), "GEM_INFO");
	if (seg != segment)
		die("MAKE_RESIDENT left the object where it was", -EPROTO);
	return t * 1e3;
}

/*
 * VM_MOVES rounds, each a round trip from VRAM of each of the objects
 * BO[0..3) in turn, each round from the next one (the others in VRAM,
 * checked after each move so that no eviction hides in a figure): for
 * each, the median milliseconds of its moves to system memory (TO_SYS[b])
 * and of those back (TO_VRAM[b]).
 */
static void vm_moves(struct vdxg_bo **bo, double *to_sys, double *to_vram)
{
	double t[3][2][VM_MOVES];
	uint32_t seg;
	int i, k, b, c;

	for (i = 0; i < VM_MOVES; i++) {
		for (k = 0; k < 3; k++) {
			b = (i + k) % 3;	/* each first in turn */
			t[b][0][i] = vm_move_time(bo[b],
						  DRM_VDXG_SEGMENT_SYSTEM);
			t[b][1][i] = vm_move_time(bo[b],
						  DRM_VDXG_SEGMENT_VRAM);
			for (c = 0; c < 3; c++) {
				check(vdxg_bo_info(bo[c], &seg, NULL),
				      "GEM_INFO");
				if (seg != DRM_VDXG_SEGMENT_VRAM)
					die("an object was evicted", -EPROTO);
			}
		}
	}
	for (b = 0; b < 3; b++) {
		to_sys[b] = median(t[b][0], VM_MOVES);
		to_vram[b] = median(t[b][1], VM_MOVES);
	}
}

/*
 * After a move to SEGMENT, new bytes (SEED) written where the object is
 * now, read back through each of the N VMs: entries left pointing at the
 * old place read the old bytes.
 */
static uint32_t vm_move_check(struct vdxg_bo *bo, void *p,
			      const uint32_t *vm, int n, uint32_t segment,
			      uint32_t seed)
{
	const char *what = segment == DRM_VDXG_SEGMENT_VRAM ?
			   "after a move to VRAM" :
			   "after a move to system memory";
	uint32_t key, tables, tables0 = 0;
	size_t i;
	int v;

	move(bo, segment);
	for (i = 0; i < VM_CHECKS; i++)
		vm_fill(p, seed, vm_check_at[i], 4096);
	for (v = 0; v < n; v++) {
		if (!vm_info(vm[v], &key, &tables))
			die("a VM is missing from debugfs vms", -EPROTO);
		if (!v)
			tables0 = tables;
		for (i = 0; i < VM_CHECKS; i++)
			vm_expect(key, VM_VA + vm_check_at[i], seed,
				  vm_check_at[i], what);
	}
	return tables0;
}

/* Bind the whole of BO at VM_VA in each of the N VMs VM. */
static void vm_bind_all(const uint32_t *vm, int n, struct vdxg_bo *bo)
{
	int i;

	for (i = 0; i < n; i++)
		check(vdxg_vm_map(dev, vm[i], bo, 0, VM_VA, VM_SIZE, 0),
		      "VM_BIND map");
}

struct vm {
	struct drm_vdxg_vm_bind_op op4k, op2m, unmap;
	struct vdxg_bo *bo[3], *sys, *vram;
	void *p[3];
	uint64_t addr;		/* the VRAM object's, checked at the end */
	uint32_t vm[VM_MOVE_VMS + 1], bvm, s;
	bool checked;
	double map4k[MAX_REPEATS], map2m[MAX_REPEATS], unmap4k[MAX_REPEATS];
	double unmap2m[MAX_REPEATS], mv[2][3][MAX_REPEATS];
	int i;
};

static void vm_binds_repeat(void *arg)
{
	struct vm *p = arg;

	vm_binds(p->bvm, &p->op4k, &p->unmap, p->s, &p->map4k[p->i],
		 &p->unmap4k[p->i]);
	vm_binds(p->bvm, &p->op2m, &p->unmap, p->s, &p->map2m[p->i],
		 &p->unmap2m[p->i]);
}

static void vm_moves_repeat(void *arg)
{
	struct vm *p = arg;
	double t_sys[3], t_vram[3];
	int b;

	vm_moves(p->bo, t_sys, t_vram);
	for (b = 0; b < 3; b++) {
		p->mv[0][b][p->i] = t_sys[b];
		p->mv[1][b][p->i] = t_vram[b];
	}
}

static struct vm vm_p;

static bool vm_setup(void)
{
	static const uint32_t sys_seg = DRM_VDXG_SEGMENT_SYSTEM;
	static const uint32_t vram_seg = DRM_VDXG_SEGMENT_VRAM;
	static const uint32_t segs[] = {
		DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_SYSTEM,
	};
	struct vm *v = &vm_p;
	struct drm_vdxg_vm_bind_op unmap = {
		.op = DRM_VDXG_VM_BIND_OP_UNMAP, .va = VM_VA, .range = VM_SIZE,
	};
	uint64_t off, caps;
	uint32_t seg;
	int i;

	check(vdxg_get_param(dev, DRM_VDXG_PARAM_CAPS, &caps), "GET_PARAM");
	if (!(caps & VDXG_CAP_GPU_MMU)) {
		printf("vm: skipped: the device has no GPU MMU\n");
		return false;
	}
	check(vdxg_syncobj_create(dev, 0, &v->s), "SYNCOBJ_CREATE");
	check(vdxg_vm_create(dev, 0, &v->bvm), "VM_CREATE");

	/*
	 * 4 KiB entries: system pages from object offset 4 KiB, so that no
	 * 2 MiB of them is a 2 MiB aligned run however the pages came.
	 * 2 MiB entries: the 2 MiB aligned part of a contiguous VRAM object.
	 */
	check(vdxg_bo_create(dev, VM_SIZE + 4096, &sys_seg, 1, 0, &v->sys),
	      "GEM_CREATE");
	vm_fill(bo_map(v->sys), VM_SEED_BIND, 0, VM_SIZE + 4096);
	check(vdxg_bo_create(dev, VM_SIZE + VM_LARGE, &vram_seg, 1,
			     DRM_VDXG_GEM_CPU_ACCESS, &v->vram), "GEM_CREATE");
	vm_fill(bo_map(v->vram), VM_SEED_BIND, 0, VM_SIZE + VM_LARGE);
	check(vdxg_bo_info(v->vram, &seg, &v->addr), "GEM_INFO");
	if (seg != DRM_VDXG_SEGMENT_VRAM)
		die("a VRAM-only object is not in VRAM", -EPROTO);
	off = ((v->addr + VM_LARGE - 1) & ~(VM_LARGE - 1)) - v->addr;
	v->op4k = vm_map_op(v->sys, 4096, VM_VA);
	v->op2m = vm_map_op(v->vram, off, VM_VA);
	v->unmap = unmap;

	/* The first binds (pages populated, tables in the reserve) checked. */
	v->checked = vm_bind_check(v->bvm, &v->op4k, v->s, 4096);
	vm_bind_time(v->bvm, &unmap, v->s);
	vm_bind_check(v->bvm, &v->op2m, v->s, VM_LARGE);
	vm_bind_time(v->bvm, &unmap, v->s);
	add_phase("vm", "binds", vm_binds_repeat, v, &v->i);

	/*
	 * Moves of bound objects: a move's fence (GEM_WAIT) comes after the
	 * object's entries are rewritten in every VM it is bound in. Three
	 * objects moved in turn, so that the figures compared come from the
	 * same moments: one unbound, one bound in 1 VM, one in 8 VMs.
	 */
	for (i = 0; i < VM_MOVE_VMS + 1; i++)
		check(vdxg_vm_create(dev, 0, &v->vm[i]), "VM_CREATE");
	for (i = 0; i < 3; i++) {
		check(vdxg_bo_create(dev, VM_SIZE, segs, 2,
				     DRM_VDXG_GEM_CPU_ACCESS, &v->bo[i]),
		      "GEM_CREATE");
		v->p[i] = bo_map(v->bo[i]);
		vm_fill(v->p[i], VM_SEED_BIND, 0, VM_SIZE);
		move(v->bo[i], DRM_VDXG_SEGMENT_VRAM);
	}
	vm_bind_all(&v->vm[VM_MOVE_VMS], 1, v->bo[1]);
	vm_bind_all(v->vm, VM_MOVE_VMS, v->bo[2]);
	add_phase("vm", "moves", vm_moves_repeat, v, &v->i);
	return true;
}

static void vm_report(void)
{
	static const char *const dir[] = { "VRAM->system", "system->VRAM" };
	struct vm *v = &vm_p;
	uint32_t tables[2] = { 0 }, *vm = v->vm;
	struct vdxg_bo **bo = v->bo;
	double r[MAX_REPEATS];
	uint64_t addr;
	char name[64];
	int i, d;

	check(vdxg_bo_info(v->vram, NULL, &addr), "GEM_INFO");
	if (addr != v->addr)
		die("the VRAM object moved during the 2 MiB binds", -EPROTO);
	/* Once a run: every VM follows its object, both ways. */
	if (v->checked) {
		vm_move_check(bo[1], v->p[1], &vm[VM_MOVE_VMS], 1,
			      DRM_VDXG_SEGMENT_SYSTEM, VM_SEED_SYSTEM);
		vm_move_check(bo[1], v->p[1], &vm[VM_MOVE_VMS], 1,
			      DRM_VDXG_SEGMENT_VRAM, VM_SEED_VRAM);
		tables[0] = vm_move_check(bo[2], v->p[2], vm, VM_MOVE_VMS,
					  DRM_VDXG_SEGMENT_SYSTEM,
					  VM_SEED_SYSTEM);
		tables[1] = vm_move_check(bo[2], v->p[2], vm, VM_MOVE_VMS,
					  DRM_VDXG_SEGMENT_VRAM, VM_SEED_VRAM);
	}

	printf("vm (%llu MiB bound; binds timed to their out-syncobj, moves "
	       "from MAKE_RESIDENT to idle)\n", VM_SIZE / MIB);
	warm_print("vm");
	figure("vm", "bind, 4 KiB entries (system pages)", "MiB/s", v->map4k,
	       repeats);
	figure("vm", "bind, 2 MiB entries (VRAM)", "MiB/s", v->map2m,
	       repeats);
	ratio(r, v->map2m, v->map4k, repeats);
	figure("vm", "bind 2 MiB / 4 KiB entries", "ratio", r, repeats);
	figure("vm", "unbind, 4 KiB entries", "MiB/s", v->unmap4k, repeats);
	figure("vm", "unbind, 2 MiB entries", "MiB/s", v->unmap2m, repeats);
	for (d = 0; d < 2; d++) {
		snprintf(name, sizeof(name), "move %s, unbound", dir[d]);
		figure("vm", name, "ms", v->mv[d][0], repeats);
		snprintf(name, sizeof(name), "move %s, bound in 1 VM", dir[d]);
		figure("vm", name, "ms", v->mv[d][1], repeats);
		snprintf(name, sizeof(name), "move %s, bound in %d VMs",
			 dir[d], VM_MOVE_VMS);
		figure("vm", name, "ms", v->mv[d][2], repeats);
		ratio(r, v->mv[d][2], v->mv[d][1], repeats);
		snprintf(name, sizeof(name), "move %s, %d VMs / 1 VM", dir[d],
			 VM_MOVE_VMS);
		figure("vm", name, "ratio", r, repeats);
	}
	if (v->checked)
		printf("vm: checked: each bind's entries (page tables) and "
		       "bytes read back through the GPU; after a move each "
		       "way, new bytes through every VM. Page tables of a VM "
		       "after a move to system memory: %u, to VRAM: %u (3: "
		       "2 MiB entries, %u: 4 KiB ones)\n", tables[0],
		       tables[1], (unsigned int)(3 + VM_SIZE / VM_LARGE));
	else
		printf("vm: the read-back checks were skipped: they need root "
		       "and debugfs (dri/N/vms, vm_read)\n");
	for (i = 0; i < 3; i++)
		vdxg_bo_free(bo[i]);
	vdxg_bo_free(v->sys);
	vdxg_bo_free(v->vram);
	for (i = 0; i < VM_MOVE_VMS + 1; i++)
		vdxg_vm_destroy(dev, vm[i]);
	vdxg_vm_destroy(dev, v->bvm);
	vdxg_syncobj_destroy(dev, v->s);
}

/* ------------------------------------------------------------------ 3d */

#define T3D_W		1024	/* the demo's screen */
#define T3D_H		768
#define T3D_INNER	3	/* jobs of each kind a repeat, the median */
#define T3D_PAIRS	5	/* scene frames by each model, at least, */
#define T3D_SECONDS	3.0	/* and as many as fit in this: the median */
#define T3D_MAX_PAIRS	64
#define T3D_CELL	8	/* small triangles: halves of 8x8 pixel cells */
#define T3D_TRIS	(2 * (T3D_W / T3D_CELL) * (T3D_H / T3D_CELL))
#define T3D_STRIDE	32	/* a vertex: clip position, colour (f32 x4) */
#define T3D_PROGS	3
#define T3D_SCENE_T	1.3f	/* the demo's still */
#define T3D_VA_CMD	(1ull << 32)
#define T3D_VA_RES	(2ull << 32)
#define T3D_VA_FB	(3ull << 32)
#define T3D_VA_DEPTH	(4ull << 32)
#define T3D_CMD_SIZE	(64u << 10)

static const int t3d_insns[T3D_PROGS] = { 4, 16, 64 };

/*
 * The fragment figures' programs: a vertex program that passes the
 * position and the colour through, a fragment program of N instructions
 * (a MOV, N - 3 MADs, a MOV_SAT to the colour and END), and the small
 * triangles' fragment program (the colour: 2 instructions).
 */
static const char t3d_vs[] =
	"VERT\nMOV OUT[0], IN[0]\nMOV OUT[2], IN[1]\nEND\n";
static const char t3d_fs_tri[] = "FRAG\nMOV OUT[0], IN[0]\nEND\n";

static uint32_t *t3d_asm(const char *text, uint32_t *size)
{
	uint32_t *prog;
	char msg[128];

	if (vdxg_asm(text, &prog, size, msg, sizeof(msg))) {
		fprintf(stderr, "vdxg-bench: a 3d program: %s\n", msg);
		exit(1);
	}
	return prog;
}

static uint32_t *t3d_fs(int n, uint32_t *size)
{
	char text[4096];
	int len, k;

	len = snprintf(text, sizeof(text), "FRAG\n"
		       "IMM[0] = { 0.5, 0.25, 0.125, 1.0 }\n"
		       "MOV TEMP[0], IN[0]\n");
	for (k = 0; k < n - 3; k++)
		len += snprintf(text + len, sizeof(text) - len,
				"MAD TEMP[0], TEMP[0], IMM[0], IMM[0].wzyx\n");
	snprintf(text + len, sizeof(text) - len,
		 "MOV_SAT OUT[0], TEMP[0]\nEND\n");
	return t3d_asm(text, size);
}

struct t3d {
	/* fb, depth: the screen's; res: the scene's resources; bres: the
	 * fragment figures' programs and vertices */
	struct vdxg_bo *fb, *depth, *res, *bres, *cmd;
	struct vdxg_cs *frag_cs[T3D_PROGS], *tri_cs, *scene_cs;
	struct vdxg_vcs vcs;
	struct scene3d scene;
	uint32_t ctx, vctx, vm;
	uint32_t vs_size;	/* the vertex program's, at offset 0 of bres */
	double frag[T3D_PROGS][MAX_REPEATS], tri[MAX_REPEATS];
	double sub[MAX_REPEATS], ex[MAX_REPEATS], r[MAX_REPEATS];
	int i;
};

/* Seconds of a job: SUBMIT (or EXEC of the vcs) until the target idles. */
static double t3d_job(struct t3d *p, struct vdxg_cs *cs)
{
	double t = now();

	if (cs)
		submit(dev, p->ctx, cs);
	else
		check(vdxg_exec(dev, p->vctx, &p->vcs, NULL), "EXEC");
	check(vdxg_bo_wait(p->fb, WAIT_NS), "wait");
	return now() - t;
}

/*
 * T3D_INNER of each: the full-screen quad with each fragment program and
 * the small triangles; then the demo's scene by SUBMIT and by EXEC one
 * after the other, T3D_PAIRS times and then until T3D_SECONDS have
 * passed, their ratio taken per pair (a frame takes a few hundred ms, and
 * the host's slow phases last seconds: see render). The median of each.
 */
static void t3d_repeat(void *arg)
{
	struct t3d *p = arg;
	double frag[T3D_PROGS][T3D_INNER], tri[T3D_INNER];
	double sub[T3D_MAX_PAIRS], ex[T3D_MAX_PAIRS], r[T3D_MAX_PAIRS];
	double t0;
	int k, j, n;

	for (k = 0; k < T3D_INNER; k++) {
		for (j = 0; j < T3D_PROGS; j++)
			frag[j][k] = (double)T3D_W * T3D_H /
				     t3d_job(p, p->frag_cs[j]);
		tri[k] = T3D_TRIS / t3d_job(p, p->tri_cs);
	}
	t0 = now();
	for (k = 0; k < T3D_MAX_PAIRS &&
	     (k < T3D_PAIRS || now() - t0 < T3D_SECONDS); k++) {
		sub[k] = t3d_job(p, p->scene_cs) * 1000;
		ex[k] = t3d_job(p, NULL) * 1000;
		r[k] = sub[k] / ex[k];
	}
	n = k;
	for (j = 0; j < T3D_PROGS; j++)
		p->frag[j][p->i] = median(frag[j], T3D_INNER);
	p->tri[p->i] = median(tri, T3D_INNER);
	p->sub[p->i] = median(sub, n);
	p->ex[p->i] = median(ex, n);
	p->r[p->i] = median(r, n);
}

static struct t3d t3d_p;

/* The common state of a fragment figure's job, into CS. */
static void t3d_begin(struct t3d *p, struct vdxg_cs *cs, uint32_t fs_off,
		      uint32_t fs_size, uint32_t vb_off, uint32_t vb_size)
{
	const uint32_t viewport[6] = {
		vdxg_f32_bits(T3D_W / 2.0f), vdxg_f32_bits(-T3D_H / 2.0f),
		vdxg_f32_bits(0.5f), vdxg_f32_bits(T3D_W / 2.0f),
		vdxg_f32_bits(T3D_H / 2.0f), vdxg_f32_bits(0.5f),
	};
	const uint32_t elements[2] = {
		VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_FLOAT32, 4), 0, 0),
		VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_FLOAT32, 4), 0, 16),
	};

	vdxg_cs_set_surface(cs, VDXG_SLOT_DST, p->fb, 0, DRM_VDXG_ALLOC_WRITE,
			    VDXG_FMT_XRGB8888, T3D_W, T3D_H, T3D_W * 4);
	vdxg_cs_set_state(cs, VDXG_3D_VIEWPORT_SCALE(0), viewport, 6);
	vdxg_cs_set_state(cs, VDXG_3D_ELEMENT(0), elements, 2);
	vdxg_cs_set_shader(cs, VDXG_3D_STAGE_VERTEX, p->bres, 0, p->vs_size);
	vdxg_cs_set_shader(cs, VDXG_3D_STAGE_FRAGMENT, p->bres, fs_off,
			   fs_size);
	vdxg_cs_set_vertex_buffer(cs, 0, p->bres, vb_off, vb_size,
				  T3D_STRIDE);
}

/* A vertex at pixel (x, y) of the screen, in clip space, and a colour. */
static float *t3d_vertex(float *v, int x, int y, float c)
{
	v[0] = 2.0f * x / T3D_W - 1;
	v[1] = 1 - 2.0f * y / T3D_H;
	v[2] = 0;
	v[3] = 1;
	v[4] = c;
	v[5] = 1 - c;
	v[6] = 0.5f;
	v[7] = 1;
	return v + T3D_STRIDE / 4;
}

/* Frame FB against the reference pipeline's picture REF: or die. */
static void t3d_check(struct t3d *p, const uint32_t *ref, const char *how)
{
	const uint32_t *fb = bo_map(p->fb);
	uint32_t k;

	for (k = 0; k < T3D_W * T3D_H; k++)
		if ((fb[k] ^ ref[k]) & 0xffffff) {
			fprintf(stderr, "vdxg-bench: the demo's scene by %s: "
				"pixel (%u,%u) is %06x, the reference's "
				"%06x\n", how, k % T3D_W, k / T3D_W,
				fb[k] & 0xffffff, ref[k] & 0xffffff);
			exit(1);
		}
}

static bool t3d_setup(void)
{
	struct t3d *p = &t3d_p;
	uint32_t size, fs_off[T3D_PROGS], fs_size[T3D_PROGS], tri_fs, tri_size;
	uint32_t vs_size, quad_off, tri_off, off, *ref, *prog;
	uint64_t caps = 0;
	uint8_t *b;
	float *v;
	int j, x, y;

	check(vdxg_get_param(dev, DRM_VDXG_PARAM_CAPS, &caps), "GET_PARAM");
	if (!(caps & VDXG_CAP_3D) || !(caps & VDXG_CAP_GPU_MMU)) {
		printf("3d: skipped, the device has no %s\n",
		       caps & VDXG_CAP_3D ? "GPU MMU" : "3D pipeline");
		return false;
	}
	p->fb = vram_bo(dev, (uint64_t)T3D_W * T3D_H * 4);
	p->depth = vram_bo(dev, (uint64_t)T3D_W * T3D_H * 4);

	/* The fragment figures: programs, the quad, the small triangles. */
	quad_off = 64 * 1024;
	tri_off = quad_off + 4 * T3D_STRIDE;
	p->bres = vram_bo(dev, tri_off + T3D_TRIS * 3 * T3D_STRIDE);
	b = bo_map(p->bres);
	prog = t3d_asm(t3d_vs, &vs_size);
	memcpy(b, prog, vs_size);
	free(prog);
	p->vs_size = vs_size;
	off = (vs_size + 15) & ~15u;
	for (j = 0; j < T3D_PROGS; j++) {
		prog = t3d_fs(t3d_insns[j], &fs_size[j]);
		fs_off[j] = off;
		memcpy(b + off, prog, fs_size[j]);
		off += (fs_size[j] + 15) & ~15u;
		free(prog);
	}
	prog = t3d_asm(t3d_fs_tri, &tri_size);
	tri_fs = off;
	memcpy(b + off, prog, tri_size);
	free(prog);
	v = (float *)(b + quad_off);
	v = t3d_vertex(v, 0, T3D_H, 0);
	v = t3d_vertex(v, T3D_W, T3D_H, 0.5f);
	v = t3d_vertex(v, 0, 0, 0.5f);
	t3d_vertex(v, T3D_W, 0, 1);
	v = (float *)(b + tri_off);
	for (y = 0; y < T3D_H; y += T3D_CELL)
		for (x = 0; x < T3D_W; x += T3D_CELL) {
			float c = (float)(x ^ y) / T3D_W;

			v = t3d_vertex(v, x, y, c);
			v = t3d_vertex(v, x + T3D_CELL, y, c);
			v = t3d_vertex(v, x, y + T3D_CELL, c);
			v = t3d_vertex(v, x + T3D_CELL, y, 1 - c);
			v = t3d_vertex(v, x + T3D_CELL, y + T3D_CELL, 1 - c);
			v = t3d_vertex(v, x, y + T3D_CELL, 1 - c);
		}
	for (j = 0; j < T3D_PROGS; j++) {
		p->frag_cs[j] = new_cs();
		t3d_begin(p, p->frag_cs[j], fs_off[j], fs_size[j], quad_off,
			  4 * T3D_STRIDE);
		vdxg_cs_draw(p->frag_cs[j], VDXG_PRIM_TRIANGLE_STRIP, 0, 4);
	}
	p->tri_cs = new_cs();
	t3d_begin(p, p->tri_cs, tri_fs, tri_size, tri_off,
		  T3D_TRIS * 3 * T3D_STRIDE);
	vdxg_cs_draw(p->tri_cs, VDXG_PRIM_TRIANGLES, 0, T3D_TRIS * 3);

	/* The demo's scene, its still, by SUBMIT and by EXEC. */
	check(scene3d_init(&p->scene, T3D_W, T3D_H), "the 3D scene");
	p->res = vram_bo(dev, p->scene.size);
	scene3d_fill(&p->scene, bo_map(p->res));
	scene3d_frame(&p->scene, p->res->map, 0, T3D_SCENE_T);
	p->ctx = new_ctx(dev);
	p->scene_cs = new_cs();
	scene3d_emit(&p->scene, &scene3d_cs_ops, &(struct scene3d_cs){
		.cs = p->scene_cs, .res = p->res, .fb = p->fb,
		.depth = p->depth, .w = T3D_W, .h = T3D_H }, 0);
	p->vctx = exec_setup(dev, &p->vm, &p->cmd, &p->vcs);
	check(vdxg_vm_map(dev, p->vm, p->res, 0, T3D_VA_RES, p->res->size, 0),
	      "VM_BIND");
	check(vdxg_vm_map(dev, p->vm, p->fb, 0, T3D_VA_FB, p->fb->size, 0),
	      "VM_BIND");
	check(vdxg_vm_map(dev, p->vm, p->depth, 0, T3D_VA_DEPTH,
			  p->depth->size, 0), "VM_BIND");
	scene3d_emit(&p->scene, &scene3d_vcs_ops, &(struct scene3d_vcs){
		.vcs = &p->vcs, .res_va = T3D_VA_RES, .fb_va = T3D_VA_FB,
		.depth_va = T3D_VA_DEPTH, .w = T3D_W, .h = T3D_H }, 0);
	check(vdxg_vcs_error(&p->vcs), "the scene's EXEC commands");

	/* Check that both draw the reference pipeline's picture. */
	size = T3D_W * T3D_H * 4;
	ref = malloc(size);
	if (!ref)
		die("malloc", -ENOMEM);
	if (scene3d_reference(&p->scene, p->res->map, 0, ref))
		die("the reference 3D pipeline faults", -EINVAL);
	memset(bo_map(p->fb), 0, size);
	t3d_job(p, p->scene_cs);
	t3d_check(p, ref, "SUBMIT");
	memset(bo_map(p->fb), 0, size);
	t3d_job(p, NULL);
	t3d_check(p, ref, "EXEC");
	free(ref);
	add_phase("3d", "", t3d_repeat, p, &p->i);
	return true;
}

static void t3d_report(void)
{
	struct t3d *p = &t3d_p;
	char name[64];
	int j;

	printf("3d (%ux%u XRGB8888 in VRAM; the median of %d jobs of each a "
	       "repeat, of the scene's frames in %.1f s)\n", T3D_W, T3D_H,
	       T3D_INNER, T3D_SECONDS);
	warm_print("3d");
	for (j = 0; j < T3D_PROGS; j++) {
		snprintf(name, sizeof(name),
			 "full-screen quad, %d-instruction fragments",
			 t3d_insns[j]);
		figure("3d", name, "fragments/s", p->frag[j], repeats);
	}
	snprintf(name, sizeof(name), "small triangles (%d, 32 pixels each)",
		 T3D_TRIS);
	figure("3d", name, "triangles/s", p->tri, repeats);
	figure("3d", "demo scene frame, SUBMIT", "ms", p->sub, repeats);
	figure("3d", "demo scene frame, EXEC", "ms", p->ex, repeats);
	/* SUBMIT's frame time over EXEC's, per pair */
	figure("3d", "demo scene, EXEC / SUBMIT frame rate", "ratio", p->r,
	       repeats);
	for (j = 0; j < T3D_PROGS; j++)
		vdxg_cs_free(p->frag_cs[j]);
	vdxg_cs_free(p->tri_cs);
	vdxg_cs_free(p->scene_cs);
	scene3d_fini(&p->scene);
	vdxg_context_destroy(dev, p->vctx);
	vdxg_context_destroy(dev, p->ctx);
	vdxg_bo_free(p->cmd);
	vdxg_bo_free(p->res);
	vdxg_bo_free(p->bres);
	vdxg_bo_free(p->depth);
	vdxg_bo_free(p->fb);
	vdxg_vm_destroy(dev, p->vm);
}

/* ---------------------------------------------------------------- main */

/*
 * A group: SETUP makes its objects and adds its phases (false: skipped,
 * and said why), REPORT prints its figures and frees what SETUP made. A
 * group that fills VRAM (ALONE) would evict the others' objects between
 * their repeats: it runs on its own, after the others have reported.
 */
static const struct group {
	const char *name;
	bool (*setup)(void);
	void (*report)(void);
	bool device;
	bool alone;
} groups[] = {
	{ "paging", paging_setup, paging_report, true, false },
	{ "submit", submit_setup, submit_report, true, false },
	{ "render", render_setup, render_report, true, false },
	{ "flip", flip_setup, flip_report, false, false },
	{ "clients", clients_setup, clients_report, true, false },
	{ "cs", cs_setup, cs_report, false, false },
	{ "vm", vm_setup, vm_report, true, false },
	{ "exec", exec_setup_group, exec_report, true, false },
	{ "3d", t3d_setup, t3d_report, true, false },
	{ "split", split_setup, split_report, true, true },
};

#define NUM_GROUPS	(sizeof(groups) / sizeof(groups[0]))

static void usage(void)
{
	size_t g;

	fprintf(stderr, "usage: vdxg-bench [-r REPEATS] [-j FILE.json] "
		"[GROUP...]\ngroups:");
	for (g = 0; g < NUM_GROUPS; g++)
		fprintf(stderr, " %s", groups[g].name);
	fprintf(stderr, "\n");
	exit(2);
}

int main(int argc, char **argv)
{
	bool run[NUM_GROUPS] = { false }, any = false, ran[NUM_GROUPS];
	int alone;
	const char *json = NULL;
	size_t g;
	int opt;

	while ((opt = getopt(argc, argv, "r:j:")) != -1) {
		switch (opt) {
		case 'r': repeats = atoi(optarg); break;
		case 'j': json = optarg; break;
		default: usage();
		}
	}
	if (repeats < 1 || repeats > MAX_REPEATS)
		usage();
	for (; optind < argc; optind++) {
		for (g = 0; g < NUM_GROUPS; g++)
			if (!strcmp(argv[optind], groups[g].name))
				break;
		if (g == NUM_GROUPS)
			usage();
		run[g] = any = true;
	}
	if (sched_getaffinity(0, sizeof(cpus), &cpus))
		die("sched_getaffinity", -errno);
	pin_cpu(0);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("vdxg-bench: %d repeats; each figure the median, min and max "
	       "of the repeats\n", repeats);
	printf("  %-44s %11s %11s %11s\n", "", "median", "min", "max");
	for (alone = 0; alone < 2; alone++) {
		for (g = 0; g < NUM_GROUPS; g++) {
			ran[g] = false;
			if ((any && !run[g]) || groups[g].alone != alone)
				continue;
			if (groups[g].device && !dev) {
				check(vdxg_device_open(NULL, &dev),
				      "vdxg render node");
				touch_memory();
			}
			ran[g] = groups[g].setup();
		}
		run_phases();
		for (g = 0; g < NUM_GROUPS; g++)
			if (ran[g])
				groups[g].report();
	}
	vdxg_device_close(dev);
	if (json)
		check(write_json(json), json);
	return 0;
}
