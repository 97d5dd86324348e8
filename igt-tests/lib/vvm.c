// SPDX-License-Identifier: MIT
/*
 * vvm: GPU virtual memory test helpers (see vvm.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <drm.h>

#include "vrender.h"
#include "vvm.h"

/* Whether debugfs vms lists VM VM_ID of the file FD; its key in *KEY. */
static bool vvm_find(int fd, uint32_t vm_id, uint32_t *key)
{
	unsigned long long client, c;
	unsigned int a, i;
	char path[96], line[256];
	bool found = false;
	uint64_t v;
	FILE *f;

	vtest_assert(vr_fdinfo(fd, "drm-client-id", &v));
	client = v;
	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/vms",
		 vtest_drm_minor(fd));
	f = fopen(path, "r");
	vtest_assert_f(f, "%s: %m", path);
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "vm %u: client %llu id %u", &a, &c,
			       &i) == 3 && c == client && i == vm_id;
	fclose(f);
	if (found)
		*key = a;
	return found;
}

uint32_t vvm_key(int fd, uint32_t vm_id)
{
	uint32_t key;

	vtest_assert_f(vvm_find(fd, vm_id, &key),
		       "VM %u of the file is not in debugfs vms", vm_id);
	return key;
}

bool vvm_listed(int fd, uint32_t vm_id)
{
	uint32_t key;

	return vvm_find(fd, vm_id, &key);
}

int vvm_read(int fd, uint32_t key, uint64_t va, void *buf, uint32_t size)
{
	char path[96], cmd[64];
	int dfd, n, ret = 0;

	vtest_assert(size && size <= VVM_READ_MAX);
	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/vm_read",
		 vtest_drm_minor(fd));
	dfd = open(path, O_RDWR | O_CLOEXEC);
	vtest_assert_f(dfd >= 0, "%s: %m", path);
	n = snprintf(cmd, sizeof(cmd), "%u %" PRIx64 " %u", key, va, size);
	vtest_assert_eq(write(dfd, cmd, n), n);
	if (pread(dfd, buf, size, 0) != (ssize_t)size)
		ret = -errno;
	close(dfd);
	return ret;
}

void vvm_expect(int fd, uint32_t key, uint64_t va, const void *want,
		uint64_t size, const char *what)
{
	uint8_t *got = malloc(VVM_READ_MAX);
	const uint8_t *w = want;
	uint64_t done;

	vtest_assert(got);
	for (done = 0; done < size; done += VVM_READ_MAX) {
		uint32_t n = size - done < VVM_READ_MAX ? size - done
							: VVM_READ_MAX;
		int ret = vvm_read(fd, key, va + done, got, n);

		vtest_assert_f(ret == 0, "%s: VM %u VA 0x%" PRIx64 ": %s",
			       what, key, va + done, strerror(-ret));
		if (!memcmp(got, w + done, n))
			continue;
		for (uint32_t i = 0; i < n; i++)
			vtest_assert_f(got[i] == w[done + i],
				       "%s: VM %u VA 0x%" PRIx64 " is 0x%02x, "
				       "expected 0x%02x", what, key,
				       va + done + i, got[i], w[done + i]);
	}
	free(got);
}

/* The first line of debugfs vms about VM KEY, into LINE (SIZE bytes). */
static void vvm_line(int fd, uint32_t key, char *line, int size)
{
	unsigned long long c;
	unsigned int a, i;
	char path[96];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/vms",
		 vtest_drm_minor(fd));
	f = fopen(path, "r");
	vtest_assert_f(f, "%s: %m", path);
	while (fgets(line, size, f)) {
		if (sscanf(line, "vm %u: client %llu id %u", &a, &c,
			   &i) == 3 && a == key) {
			fclose(f);
			return;
		}
	}
	fclose(f);
	vtest_fail("VM %u is not in %s", key, path);
}

void vvm_counts(int fd, uint32_t key, uint64_t *mappings, uint32_t *tables)
{
	unsigned long long n;
	char line[256], *p;
	unsigned int t;

	vvm_line(fd, key, line, sizeof(line));
	p = strstr(line, ", address space ");
	vtest_assert_f(p && sscanf(p, ", address space %*u, %llu mappings, "
				   "%u tables", &n, &t) == 2,
		       "debugfs vms: %s", line);
	*mappings = n;
	*tables = t;
}

uint32_t vvm_charged(int fd, uint32_t key)
{
	unsigned int t, r;
	char line[256], *p;

	vvm_line(fd, key, line, sizeof(line));
	p = strstr(line, " mappings, ");
	vtest_assert_f(p && sscanf(p, " mappings, %u tables (%*u KiB), %u in "
				   "reserve", &t, &r) == 2,
		       "debugfs vms: %s", line);
	return t + r;
}

void vvm_residency(int fd, uint32_t key, uint32_t *resident,
		   uint32_t *evicted)
{
	char line[256], *p;

	vvm_line(fd, key, line, sizeof(line));
	p = strstr(line, "residency ");
	vtest_assert_f(p && sscanf(p, "residency %u resident %u evicted",
				   resident, evicted) == 2,
		       "debugfs vms: %s", line);
}

const char *vvm_place(int fd, uint32_t key, uint64_t va)
{
	static char place[32];
	unsigned long long start, end, c;
	unsigned int a, i;
	char path[96], line[256];
	bool in = false;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/vms",
		 vtest_drm_minor(fd));
	f = fopen(path, "r");
	vtest_assert_f(f, "%s: %m", path);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "vm %u: client %llu id %u", &a, &c,
			   &i) == 3) {
			in = a == key;
			continue;
		}
		if (in && sscanf(line, " 0x%llx-0x%llx", &start, &end) == 2 &&
		    start == va) {
			char *p = strrchr(line, ' ');

			snprintf(place, sizeof(place), "%s", p + 1);
			place[strcspn(place, "\n")] = 0;
			fclose(f);
			return place;
		}
	}
	fclose(f);
	return NULL;
}

void vvm_expect_fault(int fd, uint32_t key, uint64_t va)
{
	uint8_t buf[4096];

	vtest_assert_eq(vvm_read(fd, key, va, buf, sizeof(buf)), -EFAULT);
}

void vvm_swap_out_everything(void)
{
	const char *path = "/sys/kernel/debug/ttm/tt_shrink";
	char buf[32];
	int i, fd, n;

	for (i = 0; i < 100000; i++) {
		fd = open(path, O_RDONLY);
		vtest_require_f(fd >= 0, "%s: %m", path);
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		vtest_assert_f(n > 0, "%s: %m", path);
		buf[n] = 0;
		if (atol(buf) <= 0)
			return;
	}
	vtest_fail("TTM's shrinker never ran out of objects");
}

/* The "vram: size S, used U" line of debugfs segments. */
static void vvm_vram_line(int fd, uint64_t *size, uint64_t *used)
{
	static char buf[1 << 16];
	unsigned long long s, u;
	char path[96], *line;

	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/segments",
		 vtest_drm_minor(fd));
	vtest_assert_f(vtest_read_file(path, buf, sizeof(buf)) > 0,
		       "cannot read %s", path);
	for (line = buf; line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (sscanf(line, "vram: size %llu, used %llu", &s, &u) == 2) {
			*size = s;
			*used = u;
			return;
		}
	}
	vtest_fail("no vram line in %s", path);
}

uint64_t vvm_vram_free(int fd)
{
	uint64_t size, used;

	vvm_vram_line(fd, &size, &used);
	return size > used ? size - used : 0;
}

uint64_t vvm_vram_segment(int fd)
{
	uint64_t size, used;

	vvm_vram_line(fd, &size, &used);
	return size;
}

/* ---------------------------------------------------- sw_sync fences */

struct vvm_sw_sync_create {
	uint32_t value;
	char name[32];
	int32_t fence;
};
#define VVM_SW_SYNC_CREATE	_IOWR('W', 0, struct vvm_sw_sync_create)
#define VVM_SW_SYNC_INC		_IOW('W', 1, uint32_t)

static int vvm_timeline_fd = -1;

static void vvm_timeline_release(void)
{
	uint32_t inc = 1u << 30;

	if (vvm_timeline_fd >= 0)
		(void)!ioctl(vvm_timeline_fd, VVM_SW_SYNC_INC, &inc);
}

int vvm_timeline(void)
{
	if (vvm_timeline_fd >= 0)
		return vvm_timeline_fd;
	vvm_timeline_fd = open("/sys/kernel/debug/sync/sw_sync", O_RDWR);
	vtest_require_f(vvm_timeline_fd >= 0, "no sw_sync timeline: %m");
	atexit(vvm_timeline_release);
	return vvm_timeline_fd;
}

void vvm_timeline_inc(int timeline, uint32_t n)
{
	vtest_assert_f(ioctl(timeline, VVM_SW_SYNC_INC, &n) == 0,
		       "SW_SYNC_INC: %m");
}

int vvm_fence_fd(int timeline, uint32_t value)
{
	struct vvm_sw_sync_create c = { .value = value };

	strcpy(c.name, "vvm");
	vtest_assert_f(ioctl(timeline, VVM_SW_SYNC_CREATE, &c) == 0,
		       "SW_SYNC_CREATE: %m");
	return c.fence;
}

uint32_t vvm_fence_syncobj(struct vr *vr, int timeline, uint32_t value)
{
	struct drm_syncobj_handle h = {
		.flags = DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE,
	};

	h.handle = vr_syncobj(vr, false);
	h.fd = vvm_fence_fd(timeline, value);
	vtest_assert_f(ioctl(vdxg_device_fd(vr->dev),
			     DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &h) == 0,
		       "SYNCOBJ_FD_TO_HANDLE: %m");
	close(h.fd);
	return h.handle;
}

/* ------------------------------------------------------------- a victim */

#define VICTIM_VA_CMD	0x100000000ull
#define VICTIM_VA_DST	0x200000000ull
#define VICTIM_VA_BIND	0x300000000ull
#define VICTIM_W	32

enum { VICTIM_ALLOC, VICTIM_BIND, VICTIM_EXEC, VICTIM_SUBMIT, VICTIM_N };

static const char *const victim_names[VICTIM_N] = {
	"VRAM allocation", "VM_BIND", "EXEC", "SUBMIT",
};

static int victim_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void victim_pixels(struct vdxg_bo *bo, uint32_t want,
			  const char *attack, const char *what, int i)
{
	const uint32_t *px = vr_map(bo);
	int k;

	for (k = 0; k < VICTIM_W * VICTIM_W; k++)
		vtest_assert_f(px[k] == want, "%s: %s %d: pixel %d is 0x%08x, "
			       "not 0x%08x", attack, what, i, k, px[k], want);
}

static double victim_alloc(struct vr *vr, int i, const char *attack)
{
	static const uint32_t vram = DRM_VDXG_SEGMENT_VRAM;
	struct vdxg_bo *bo;
	uint32_t *p;
	double t = vr_now();

	vtest_assert_ok(vdxg_bo_create(vr->dev, 1 << 20, &vram, 1,
				       DRM_VDXG_GEM_CPU_ACCESS, &bo));
	p = vr_map(bo);
	p[0] = 0xa110c000u + i;
	p[(1 << 18) - 1] = ~(0xa110c000u + i);
	vtest_assert_f(p[0] == 0xa110c000u + (uint32_t)i &&
		       p[(1 << 18) - 1] == ~(0xa110c000u + (uint32_t)i),
		       "%s: allocation %d reads back wrong", attack, i);
	t = vr_now() - t;
	vtest_assert_eq(vr_bo_segment(bo), vram);
	vdxg_bo_free(bo);
	return t;
}

static double victim_bind(struct vr *vr, uint32_t vm, struct vdxg_bo *bo,
			  uint32_t out, int i)
{
	struct drm_vdxg_vm_bind_op op = {
		.op = i & 1 ? DRM_VDXG_VM_BIND_OP_UNMAP :
			      DRM_VDXG_VM_BIND_OP_MAP,
		.handle = i & 1 ? 0 : bo->handle,
		.va = VICTIM_VA_BIND,
		.range = bo->size,
	};
	struct drm_vdxg_sync o = vdxg_sync(out, 0);
	double t = vr_now();

	vtest_assert_ok(vdxg_vm_bind(vr->dev, vm, &op, 1, NULL, 0, &o, 1));
	vtest_assert_ok(vr_syncobj_wait(vr, out, 0, VR_WAIT_NS));
	t = vr_now() - t;
	vtest_assert_ok(vdxg_syncobj_reset(vr->dev, out));
	return t;
}

static double victim_exec(struct vr *vr, uint32_t ctx, struct vdxg_bo *cmd,
			  struct vdxg_bo *dst, uint32_t out, int i,
			  const char *attack)
{
	struct drm_vdxg_sync o = vdxg_sync(out, 0);
	struct vdxg_submit_opts opts = { .out_syncs = &o,
					 .num_out_syncs = 1 };
	uint32_t want = 0xe0000000u | i;
	struct vdxg_vcs vcs;
	double t;

	vdxg_vcs_init(&vcs, vr_map(cmd), 4096, VICTIM_VA_CMD);
	vdxg_vcs_set_surface(&vcs, VDXG_SLOT_DST, VICTIM_VA_DST,
			     VDXG_FMT_ARGB8888, VICTIM_W, VICTIM_W,
			     VICTIM_W * 4);
	vdxg_vcs_fill_rect(&vcs, 0, 0, VICTIM_W, VICTIM_W, want);
	vtest_assert_ok(vdxg_vcs_error(&vcs));
	t = vr_now();
	vtest_assert_ok(vdxg_exec(vr->dev, ctx, &vcs, &opts));
	vtest_assert_ok(vr_syncobj_wait(vr, out, 0, VR_WAIT_NS));
	t = vr_now() - t;
	vtest_assert_eq(vr_syncobj_status(vr, out, 0), 1);
	vtest_assert_ok(vdxg_syncobj_reset(vr->dev, out));
	victim_pixels(dst, want, attack, "EXEC", i);
	return t;
}

static double victim_submit(struct vr *vr, uint32_t ctx, struct vdxg_bo *dst,
			    int i, const char *attack)
{
	struct vdxg_cs *cs = vr_cs();
	uint32_t want = 0x50000000u | i;
	double t;

	vdxg_cs_set_surface(cs, VDXG_SLOT_DST, dst, 0, DRM_VDXG_ALLOC_WRITE,
			    VDXG_FMT_ARGB8888, VICTIM_W, VICTIM_W,
			    VICTIM_W * 4);
	vdxg_cs_fill_rect(cs, 0, 0, VICTIM_W, VICTIM_W, want);
	t = vr_now();
	vr_submit(vr, ctx, cs, NULL);
	vr_bo_wait(dst);
	t = vr_now() - t;
	vdxg_cs_free(cs);
	victim_pixels(dst, want, attack, "SUBMIT", i);
	return t;
}

void vvm_victim(const char *attack)
{
	static double t[VICTIM_N][VVM_VICTIM_OPS];
	struct vdxg_bo *cmd, *dst, *bind, *sdst;
	uint32_t vm, vctx, ctx, out;
	struct vr vr;
	int i, k;

	vr_open(&vr);
	vtest_assert_ok(vdxg_vm_create(vr.dev, 0, &vm));
	vtest_assert_ok(vdxg_context_create_vm(vr.dev,
					       DRM_VDXG_PRIORITY_NORMAL, vm,
					       &vctx));
	ctx = vr_ctx(&vr);
	out = vr_syncobj(&vr, false);
	cmd = vr_bo(&vr, 4096, DRM_VDXG_SEGMENT_SYSTEM, 0);
	dst = vr_bo(&vr, 4096, DRM_VDXG_SEGMENT_VRAM, 0);
	bind = vr_bo(&vr, 64 * 1024, DRM_VDXG_SEGMENT_SYSTEM, 0);
	sdst = vr_bo(&vr, 4096, DRM_VDXG_SEGMENT_VRAM, 0);
	vtest_assert_ok(vdxg_vm_map(vr.dev, vm, cmd, 0, VICTIM_VA_CMD, 4096,
				    0));
	vtest_assert_ok(vdxg_vm_map(vr.dev, vm, dst, 0, VICTIM_VA_DST, 4096,
				    0));
	for (i = 0; i < VVM_VICTIM_OPS; i++) {
		t[VICTIM_ALLOC][i] = victim_alloc(&vr, i, attack);
		t[VICTIM_BIND][i] = victim_bind(&vr, vm, bind, out, i);
		t[VICTIM_EXEC][i] = victim_exec(&vr, vctx, cmd, dst, out, i,
						attack);
		t[VICTIM_SUBMIT][i] = victim_submit(&vr, ctx, sdst, i, attack);
	}
	for (k = 0; k < VICTIM_N; k++) {
		double p50, p99;

		qsort(t[k], VVM_VICTIM_OPS, sizeof(double), victim_cmp);
		p50 = t[k][VVM_VICTIM_OPS / 2];
		/* Nearest rank: the 99th of 100, in increasing order. */
		p99 = t[k][(VVM_VICTIM_OPS * 99 + 99) / 100 - 1];
		vtest_info("%s: victim's %s: p50 %.1f ms, p99 %.1f ms, max "
			   "%.1f ms", attack, victim_names[k], p50 * 1e3,
			   p99 * 1e3, t[k][VVM_VICTIM_OPS - 1] * 1e3);
		vtest_assert_f(p99 <= VVM_VICTIM_P99, "%s: victim's %s: p99 "
			       "%.3f s", attack, victim_names[k], p99);
	}
	vdxg_bo_free(sdst);
	vdxg_bo_free(bind);
	vdxg_bo_free(dst);
	vdxg_bo_free(cmd);
	vr_close(&vr);
}

