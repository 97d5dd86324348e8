// SPDX-License-Identifier: MIT
/*
 * vdxg_gem: GEM objects on the memory segments, moved by paging buffers.
 *
 * Every subtest skips on a device without a PAGING engine.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm.h>

#include "vdxg_drm.h"

/* vdxg_hw.h takes BIT() from the kernel or QEMU; userspace supplies it. */
#define BIT(n)		(1u << (n))
#define BIT_ULL(n)	(1ull << (n))
#include "vdxg_hw.h"
#include "vtest.h"

static uint64_t get_param(int fd, uint32_t param)
{
	struct drm_vdxg_get_param gp = { .param = param };

	vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_VDXG_GET_PARAM, &gp));
	return gp.value;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static int open_mm(void)
{
	int fd = vtest_open_vdxg(VTEST_NODE_RENDER);

	vtest_require_f(get_param(fd, DRM_VDXG_PARAM_CAPS) & VDXG_CAP_PAGING,
			"device has no PAGING engine");
	return fd;
}

static int __create(int fd, uint64_t size, uint32_t flags,
		    const uint32_t *segs, uint32_t n, uint32_t *handle)
{
	struct drm_vdxg_gem_create c = {
		.size = size, .flags = flags, .num_segments = n,
	};
	int ret;

	memcpy(c.segments, segs, n * sizeof(*segs));
	ret = vtest_ioctl(fd, DRM_IOCTL_VDXG_GEM_CREATE, &c);
	if (!ret && handle)
		*handle = c.handle;
	return ret;
}

static uint32_t create(int fd, uint64_t size, uint32_t seg0, uint32_t seg1)
{
	uint32_t segs[2] = { seg0, seg1 }, handle;

	vtest_assert_ok(__create(fd, size, 0, segs, seg1 ? 2 : 1, &handle));
	return handle;
}

static void gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &c));
}

static struct drm_vdxg_gem_info info(int fd, uint32_t handle)
{
	struct drm_vdxg_gem_info i = { .handle = handle };

	vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_VDXG_GEM_INFO, &i));
	return i;
}

static uint32_t *map(int fd, uint32_t handle, uint64_t size)
{
	struct drm_vdxg_gem_mmap_offset mo = { .handle = handle };
	void *p;

	vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_VDXG_GEM_MMAP_OFFSET, &mo));
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, mo.offset);
	vtest_assert_f(p != MAP_FAILED, "mmap: %s", strerror(errno));
	return p;
}

static void test_create_invalid(void)
{
	static const uint32_t vram[] = { DRM_VDXG_SEGMENT_VRAM };
	struct drm_vdxg_gem_create c;
	int fd = open_mm();

	vtest_assert_errno(__create(fd, 0, 0, vram, 1, NULL), EINVAL);
	vtest_assert_errno(__create(fd, 1ull << 62, 0, vram, 1, NULL), E2BIG);
	vtest_assert_errno(__create(fd, 4096, 0x80, vram, 1, NULL), EINVAL);
	vtest_assert_errno(__create(fd, 4096, 0, vram, 0, NULL), EINVAL);

	memset(&c, 0, sizeof(c));
	c.size = 4096;
	c.num_segments = 1;
	c.segments[0] = 4;			/* no such segment */
	vtest_assert_errno(vtest_ioctl(fd, DRM_IOCTL_VDXG_GEM_CREATE, &c), EINVAL);
	c.segments[0] = 0;
	vtest_assert_errno(vtest_ioctl(fd, DRM_IOCTL_VDXG_GEM_CREATE, &c), EINVAL);
	c.num_segments = 2;			/* the same segment twice */
	c.segments[0] = c.segments[1] = DRM_VDXG_SEGMENT_SYSTEM;
	vtest_assert_errno(vtest_ioctl(fd, DRM_IOCTL_VDXG_GEM_CREATE, &c), EINVAL);
	c.num_segments = 1;			/* a stray unused entry */
	vtest_assert_errno(vtest_ioctl(fd, DRM_IOCTL_VDXG_GEM_CREATE, &c), EINVAL);
	c.segments[1] = 0;
	c.num_segments = 5;
	vtest_assert_errno(vtest_ioctl(fd, DRM_IOCTL_VDXG_GEM_CREATE, &c), EINVAL);
	c.num_segments = 1;
	c.vm_id = 1;			/* a VM without VM_PRIVATE */
	vtest_assert_errno(vtest_ioctl(fd, DRM_IOCTL_VDXG_GEM_CREATE, &c), EINVAL);
	c.vm_id = 0;
	vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_VDXG_GEM_CREATE, &c));
	vtest_assert_eq_u64(c.size, 4096);
	close(fd);
}

static void test_bad_handle(void)
{
	struct drm_vdxg_gem_mmap_offset mo = { .handle = 0xdead };
	struct drm_vdxg_gem_info i = { .handle = 0xdead };
	struct drm_vdxg_gem_wait w = { .handle = 0xdead };
	int fd = open_mm(), other = open_mm();
	uint32_t h = create(other, 4096, DRM_VDXG_SEGMENT_SYSTEM, 0);

	vtest_assert_errno(vtest_ioctl(fd, DRM_IOCTL_VDXG_GEM_INFO, &i), ENOENT);
	vtest_assert_errno(vtest_ioctl(fd, DRM_IOCTL_VDXG_GEM_WAIT, &w), ENOENT);
	vtest_assert_errno(vtest_ioctl(fd, DRM_IOCTL_VDXG_GEM_MMAP_OFFSET, &mo),
			   ENOENT);
	/* Another client's handle is not a handle here. */
	w.handle = h;
	vtest_assert_errno(vtest_ioctl(fd, DRM_IOCTL_VDXG_GEM_WAIT, &w), ENOENT);
	w.handle = h;
	w.flags = 1;
	vtest_assert_errno(vtest_ioctl(other, DRM_IOCTL_VDXG_GEM_WAIT, &w),
			   EINVAL);
	w.flags = 0;
	w.timeout_ns = -1;
	vtest_assert_errno(vtest_ioctl(other, DRM_IOCTL_VDXG_GEM_WAIT, &w),
			   EINVAL);
	w.timeout_ns = 1000000;
	vtest_assert_ok(vtest_ioctl(other, DRM_IOCTL_VDXG_GEM_WAIT, &w));
	w.timeout_ns = INT64_MAX;	/* "forever" on an idle object */
	vtest_assert_ok(vtest_ioctl(other, DRM_IOCTL_VDXG_GEM_WAIT, &w));
	close(fd);
	close(other);
}

static void test_mmap_past_end(void)
{
	struct drm_vdxg_gem_mmap_offset mo;
	int fd = open_mm();
	uint32_t h = create(fd, 8192, DRM_VDXG_SEGMENT_SYSTEM, 0);
	void *p;

	mo = (struct drm_vdxg_gem_mmap_offset){ .handle = h };
	vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_VDXG_GEM_MMAP_OFFSET, &mo));
	p = mmap(NULL, 3 * 4096, PROT_READ, MAP_SHARED, fd, mo.offset);
	vtest_assert_f(p == MAP_FAILED, "mapping past the end succeeded");
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, mo.offset + 8192);
	vtest_assert_f(p == MAP_FAILED, "mapping after the end succeeded");
	close(fd);
}

/* Read debugfs dri/<minor of FD>/NAME into BUF. */
static void debugfs_read(int fd, const char *name, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/%s",
		 vtest_drm_minor(fd), name);
	vtest_assert_f(vtest_read_file(path, buf, len) > 0, "cannot read %s",
		       path);
}

/* The number after "KEY: " in debugfs dri/N/NAME. */
static uint64_t debugfs_value(int fd, const char *name, const char *key)
{
	char buf[1 << 16], k[40], *line;

	debugfs_read(fd, name, buf, sizeof(buf));
	snprintf(k, sizeof(k), "%s: ", key);
	line = strstr(buf, k);
	vtest_assert_f(line, "no %s in %s", key, name);
	return strtoull(line + strlen(k), NULL, 10);
}

/* From debugfs dri/N/paging: "OP" gives its ops, "OP bytes" its bytes. */
static uint64_t paging_stat(int fd, const char *op)
{
	char buf[4096], key[32], *line;
	unsigned long long ops, bytes;
	bool want_bytes = strstr(op, " bytes");

	debugfs_read(fd, "paging", buf, sizeof(buf));
	snprintf(key, sizeof(key), "\n%.*s: ",
		 (int)(want_bytes ? strlen(op) - 6 : strlen(op)), op);
	line = strstr(buf, key);
	vtest_assert_f(line, "no %s in paging", op);
	vtest_assert(sscanf(line + strlen(key), "%llu ops, %llu bytes", &ops,
			    &bytes) == 2);
	return want_bytes ? bytes : ops;
}

static void test_segments(void)
{
	int fd = open_mm();
	uint64_t vram = get_param(fd, DRM_VDXG_PARAM_VRAM_SIZE);
	uint64_t aperture = get_param(fd, DRM_VDXG_PARAM_APERTURE_SIZE);
	struct drm_vdxg_gem_wait w = { .timeout_ns = 10000000000ll };
	struct drm_vdxg_gem_info i;
	uint64_t gart;
	uint32_t h;

	i = info(fd, create(fd, 65536, DRM_VDXG_SEGMENT_VRAM, 0));
	vtest_assert_eq(i.segment, DRM_VDXG_SEGMENT_VRAM);
	vtest_assert_lte_u64(i.gpu_addr + 65536, vram);
	vtest_assert_eq_u64(i.size, 65536);

	gart = debugfs_value(fd, "gart", "valid");
	h = create(fd, 65536, DRM_VDXG_SEGMENT_APERTURE, 0);
	i = info(fd, h);
	vtest_assert_eq(i.segment, DRM_VDXG_SEGMENT_APERTURE);
	vtest_assert_lte_u64(VDXG_APERTURE_BASE, i.gpu_addr);
	vtest_assert_lte_u64(i.gpu_addr + 65536, VDXG_APERTURE_BASE + aperture);
	/*
	 * Once the paging engine has run the bind (the object is idle),
	 * MAP_APERTURE has written 16 entries; freeing the object unmaps
	 * them before it returns its pages.
	 */
	w.handle = h;
	vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_VDXG_GEM_WAIT, &w));
	vtest_assert_eq_u64(debugfs_value(fd, "gart", "valid"), gart + 16);
	gem_close(fd, h);
	vtest_assert_eq_u64(debugfs_value(fd, "gart", "valid"), gart);

	i = info(fd, create(fd, 65536, DRM_VDXG_SEGMENT_SYSTEM, 0));
	vtest_assert_eq(i.segment, DRM_VDXG_SEGMENT_SYSTEM);
	vtest_assert_eq_u64(i.gpu_addr, 0);
	close(fd);
}

/* Freed objects full of data never show through in new ones. */
static void test_clear_on_allocate(void)
{
	const uint64_t size = 1 << 20;
	int fd = open_mm(), round, i;

	for (round = 0; round < 2; round++) {
		uint32_t h[16];

		for (i = 0; i < 16; i++) {
			uint32_t *p, j;

			h[i] = create(fd, size, DRM_VDXG_SEGMENT_VRAM, 0);
			p = map(fd, h[i], size);
			for (j = 0; j < size / 4; j++)
				vtest_assert_f(p[j] == 0,
					       "round %d object %d dword %u: 0x%08x",
					       round, i, j, p[j]);
			memset(p, 0xa5, size);
			munmap(p, size);
		}
		for (i = 0; i < 16; i++)
			gem_close(fd, h[i]);
	}
	close(fd);
}

/*
 * Twice VRAM's worth of VRAM-only objects: each new one evicts the least
 * recently used to system memory with a TRANSFER on the paging engine,
 * and every byte survives.
 */
static void test_evict_integrity(void)
{
	const uint64_t size = 4 << 20;
	int fd = open_mm(), n, i, moved = 0;
	uint64_t vram = get_param(fd, DRM_VDXG_PARAM_VRAM_SIZE);
	uint64_t transfers = paging_stat(fd, "transfer");
	uint32_t *h;

	n = 2 * vram / size;
	h = calloc(n, sizeof(*h));
	vtest_assert(h);
	for (i = 0; i < n; i++) {
		uint32_t *p, j;

		h[i] = create(fd, size, DRM_VDXG_SEGMENT_VRAM, 0);
		p = map(fd, h[i], size);
		for (j = 0; j < size / 4; j++)
			p[j] = (uint32_t)i << 24 ^ j;
		munmap(p, size);
	}
	for (i = 0; i < n; i++) {
		uint32_t *p, j;

		moved += info(fd, h[i]).segment == DRM_VDXG_SEGMENT_SYSTEM;
		p = map(fd, h[i], size);
		for (j = 0; j < size / 4; j++)
			vtest_assert_f(p[j] == ((uint32_t)i << 24 ^ j),
				       "object %d dword %u: 0x%08x", i, j, p[j]);
		munmap(p, size);
	}
	transfers = paging_stat(fd, "transfer") - transfers;
	vtest_info("%d of %d objects evicted, %llu transfers\n", moved, n,
		   (unsigned long long)transfers);
	/* At least half must have gone: VRAM holds less than half of them. */
	vtest_assert_lte(n / 2, moved);
	vtest_assert_lte_u64(moved, transfers);
	free(h);
	close(fd);
}

static int __make_resident(int fd, uint32_t handle, uint32_t segment)
{
	struct drm_vdxg_gem_make_resident r = {
		.handle = handle, .segment = segment,
	};

	return vtest_ioctl(fd, DRM_IOCTL_VDXG_GEM_MAKE_RESIDENT, &r);
}

static void gem_wait(int fd, uint32_t handle)
{
	struct drm_vdxg_gem_wait w = {
		.handle = handle, .timeout_ns = 30000000000ll,
	};

	vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_VDXG_GEM_WAIT, &w));
}

static uint32_t pattern(int obj, uint32_t j)
{
	return ((uint32_t)obj * 0x9e3779b9u) ^ (j * 2654435761u);
}

static void check_obj(int fd, uint32_t h, int obj, uint64_t size,
		      uint32_t step, const char *when)
{
	uint32_t *p = map(fd, h, size), j;

	for (j = 0; j < size / 4; j += step)
		vtest_assert_f(p[j] == pattern(obj, j),
			       "%s: object %d dword %u: 0x%08x != 0x%08x",
			       when, obj, j, p[j], pattern(obj, j));
	munmap(p, size);
}

/*
 * Four times VRAM's worth of objects allowed in every segment, each with
 * its own pattern, paged by MAKE_RESIDENT through every ordered pair of
 * segments (VRAM -> aperture -> system -> VRAM -> system -> aperture ->
 * VRAM) while they evict each other. Sampled checks after each round,
 * every byte at the end.
 */
static void test_segment_pairs(void)
{
	static const uint32_t order[] = {
		DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_APERTURE,
		DRM_VDXG_SEGMENT_SYSTEM, DRM_VDXG_SEGMENT_VRAM,
		DRM_VDXG_SEGMENT_SYSTEM, DRM_VDXG_SEGMENT_APERTURE,
		DRM_VDXG_SEGMENT_VRAM,
	};
	static const char * const names[] = { "", "vram", "aperture", "system" };
	const uint32_t segs[3] = {
		DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_APERTURE,
		DRM_VDXG_SEGMENT_SYSTEM,
	};
	const uint64_t size = 8 << 20;
	int fd = open_mm(), n, i;
	uint64_t vram = get_param(fd, DRM_VDXG_PARAM_VRAM_SIZE);
	uint64_t t0 = paging_stat(fd, "transfer");
	unsigned int r;
	uint32_t *h;

	/*
	 * Four times VRAM (twice on the debug kernel, where paging is
	 * several times slower), or as much as the commit limit leaves room
	 * for.
	 */
	n = min_u64((vtest_debug_kernel() ? 2 : 4) * vram,
		    get_param(fd, DRM_VDXG_PARAM_COMMIT_LIMIT) / 8 * 7) / size;
	vtest_info("%d objects of 8 MiB, %llu MiB of VRAM\n", n,
		   (unsigned long long)(vram >> 20));
	vtest_assert_lte_u64(vram + vram / 2, n * size);
	h = calloc(n, sizeof(*h));
	vtest_assert(h);
	for (i = 0; i < n; i++) {
		uint32_t *p, j;

		vtest_assert_ok(__create(fd, size, 0, segs, 3, &h[i]));
		p = map(fd, h[i], size);
		for (j = 0; j < size / 4; j++)
			p[j] = pattern(i, j);
		munmap(p, size);
	}

	for (r = 0; r < VTEST_ARRAY_SIZE(order); r++) {
		int here = 0;

		for (i = 0; i < n; i++) {
			vtest_assert_ok(__make_resident(fd, h[i], order[r]));
			gem_wait(fd, h[i]);
			here += info(fd, h[i]).segment == order[r];
			check_obj(fd, h[i], i, size, 4093, names[order[r]]);
		}
		vtest_info("round %u (%s): %d of %d objects there at the end\n",
			   r, names[order[r]], here, n);
	}
	for (i = 0; i < n; i++)
		check_obj(fd, h[i], i, size, 1, "final");

	vtest_info("%llu transfers\n",
		   (unsigned long long)(paging_stat(fd, "transfer") - t0));
	/*
	 * Four of the six pairs involve VRAM and need a TRANSFER each;
	 * aperture <-> system only maps or unmaps the same pages.
	 */
	vtest_assert_lte_u64(4ull * n, paging_stat(fd, "transfer") - t0);
	free(h);
	close(fd);
}

static void test_make_resident_invalid(void)
{
	int fd = open_mm();
	uint32_t h = create(fd, 4096, DRM_VDXG_SEGMENT_SYSTEM, 0);

	vtest_assert_errno(__make_resident(fd, 0xdead, DRM_VDXG_SEGMENT_SYSTEM),
			   ENOENT);
	vtest_assert_errno(__make_resident(fd, h, DRM_VDXG_SEGMENT_VRAM),
			   EINVAL);
	vtest_assert_errno(__make_resident(fd, h, 0), EINVAL);
	vtest_assert_errno(__make_resident(fd, h, 7), EINVAL);
	vtest_assert_ok(__make_resident(fd, h, DRM_VDXG_SEGMENT_SYSTEM));
	close(fd);
}

static uint64_t module_param(const char *name)
{
	char path[128], buf[64];

	snprintf(path, sizeof(path), "/sys/module/vdxg/parameters/%s", name);
	vtest_assert_f(vtest_read_file(path, buf, sizeof(buf)) > 0,
		       "cannot read %s", path);
	return strtoull(buf, NULL, 0);
}

/*
 * Multipass: with 4 KiB paging buffers, evicting a 64 MiB object to system
 * memory cannot fit one buffer. Each buffer carries one TRANSFER with
 * (1024 - 9) / 2 = 507 destination pages, so the move takes
 * DIV_ROUND_UP(16384, 507) = 33 passes, and the data must be intact.
 */
static void test_multipass(void)
{
	const uint64_t big = 64 << 20;
	uint64_t vram, buf, per_pass, expect, t0, b0;
	uint32_t a, *p, j;
	int fd, i, n;

	vtest_require(vtest_system("modprobe -r vdxg && "
				   "modprobe vdxg paging_buffer_size=4096") == 0);
	fd = open_mm();
	buf = module_param("paging_buffer_size");
	vtest_assert_eq_u64(buf, 4096);
	per_pass = (buf / 4 - VDXG_PG_XFER_DW_PAGES) / 2;
	expect = (big / 4096 + per_pass - 1) / per_pass;
	vtest_assert_eq_u64(expect, 33);

	/*
	 * A gets its pattern in system memory, where the CPU reaches all of
	 * it whatever the size of the VRAM BAR, then goes to VRAM.
	 */
	vram = get_param(fd, DRM_VDXG_PARAM_VRAM_SIZE);
	a = create(fd, big, DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_SYSTEM);
	vtest_assert_ok(__make_resident(fd, a, DRM_VDXG_SEGMENT_SYSTEM));
	gem_wait(fd, a);
	p = map(fd, a, big);
	for (j = 0; j < big / 4; j++)
		p[j] = j * 2654435761u;
	munmap(p, big);
	vtest_assert_ok(__make_resident(fd, a, DRM_VDXG_SEGMENT_VRAM));
	gem_wait(fd, a);
	vtest_assert_eq(info(fd, a).segment, DRM_VDXG_SEGMENT_VRAM);

	/*
	 * Fill VRAM behind it until the first eviction, which takes A, the
	 * least recently used. (GEM_INFO would make A the most recently
	 * used, so the loop watches the transfer counter instead.)
	 */
	n = vram / big;
	t0 = paging_stat(fd, "transfer");
	b0 = paging_stat(fd, "transfer bytes");
	for (i = 0; i < n && paging_stat(fd, "transfer") == t0; i++)
		create(fd, big, DRM_VDXG_SEGMENT_VRAM, 0);
	vtest_assert_eq(info(fd, a).segment, DRM_VDXG_SEGMENT_SYSTEM);

	vtest_info("evicting 64 MiB took %llu transfer passes, %llu bytes\n",
		   (unsigned long long)(paging_stat(fd, "transfer") - t0),
		   (unsigned long long)(paging_stat(fd, "transfer bytes") - b0));
	vtest_assert_eq_u64(paging_stat(fd, "transfer") - t0, expect);
	vtest_assert_eq_u64(debugfs_value(fd, "paging", "passes_max"), expect);
	vtest_assert_eq_u64(paging_stat(fd, "transfer bytes") - b0, big);

	p = map(fd, a, big);
	for (j = 0; j < big / 4; j++)
		vtest_assert_f(p[j] == j * 2654435761u, "dword %u: 0x%08x",
			       j, p[j]);
	munmap(p, big);
	close(fd);
	vtest_assert(vtest_system("modprobe -r vdxg && modprobe vdxg") == 0);
}

/*
 * With a VRAM BAR smaller than VRAM (the resizable BAR not resized): an
 * object the paging engine put in VRAM beyond the BAR is moved into the BAR
 * by a CPU fault, with its content, and when the BAR has no room, to its
 * next segment. VRAM's GPU addresses are its offsets.
 */
static void test_cpu_fault_invisible(void)
{
	const uint64_t size = 4 << 20;
	int fd = open_mm(), n = 0, i;
	uint64_t vram = get_param(fd, DRM_VDXG_PARAM_VRAM_SIZE);
	uint64_t visible = get_param(fd, DRM_VDXG_PARAM_VRAM_VISIBLE_SIZE);
	struct drm_vdxg_gem_info in;
	uint32_t fill[256], t, *p, j;

	vtest_require_f(visible + 2 * size < vram,
			"all of VRAM is CPU-visible (%llu of %llu MiB)",
			(unsigned long long)(visible >> 20),
			(unsigned long long)(vram >> 20));

	/* T holds a pattern, written while it is in system memory. */
	t = create(fd, size, DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_SYSTEM);
	vtest_assert_ok(__make_resident(fd, t, DRM_VDXG_SEGMENT_SYSTEM));
	gem_wait(fd, t);
	p = map(fd, t, size);
	for (j = 0; j < size / 4; j++)
		p[j] = pattern(77, j);
	munmap(p, size);

	/* GPU-only objects fill VRAM from the bottom, over the BAR's end. */
	do {
		vtest_assert(n < (int)VTEST_ARRAY_SIZE(fill));
		fill[n] = create(fd, size, DRM_VDXG_SEGMENT_VRAM, 0);
		vtest_assert_ok(__make_resident(fd, fill[n], DRM_VDXG_SEGMENT_VRAM));
		in = info(fd, fill[n++]);
	} while (in.gpu_addr + size <= visible);

	/* The paging engine takes T into VRAM beyond the BAR ... */
	vtest_assert_ok(__make_resident(fd, t, DRM_VDXG_SEGMENT_VRAM));
	gem_wait(fd, t);
	in = info(fd, t);
	vtest_assert_eq(in.segment, DRM_VDXG_SEGMENT_VRAM);
	vtest_assert_f(in.gpu_addr + size > visible,
		       "T at 0x%llx, inside the BAR",
		       (unsigned long long)in.gpu_addr);

	/* ... a CPU read brings it into the BAR, where a filler made room. */
	gem_close(fd, fill[0]);
	check_obj(fd, t, 77, size, 1021, "after a fault from invisible VRAM");
	in = info(fd, t);
	vtest_assert_eq(in.segment, DRM_VDXG_SEGMENT_VRAM);
	vtest_assert_lte_u64(in.gpu_addr + size, visible);

	/* With no room in the BAR, the fault takes T to system memory. */
	vtest_assert_ok(__make_resident(fd, t, DRM_VDXG_SEGMENT_SYSTEM));
	gem_wait(fd, t);
	fill[0] = create(fd, size, DRM_VDXG_SEGMENT_VRAM, 0);
	vtest_assert_ok(__make_resident(fd, fill[0], DRM_VDXG_SEGMENT_VRAM));
	vtest_assert_lte_u64(info(fd, fill[0]).gpu_addr + size, visible);
	vtest_assert_ok(__make_resident(fd, t, DRM_VDXG_SEGMENT_VRAM));
	gem_wait(fd, t);
	vtest_assert_f(info(fd, t).gpu_addr + size > visible,
		       "T back in VRAM inside the BAR");
	check_obj(fd, t, 77, size, 1021, "after a fault with the BAR full");
	in = info(fd, t);
	vtest_assert_f(in.segment == DRM_VDXG_SEGMENT_SYSTEM ||
		       in.gpu_addr + size <= visible,
		       "T mapped at 0x%llx in segment %u",
		       (unsigned long long)in.gpu_addr, in.segment);

	for (i = 0; i < n; i++)
		gem_close(fd, fill[i]);
	gem_close(fd, t);
	close(fd);
}

/*
 * Objects get their system pages only when first used, so before the
 * commit limit a client could create objects as large as the RAM, as many
 * as it liked, and bind them until the OOM killer took other processes.
 * Objects in system memory of an eighth of the limit each: at most eight
 * fit (fewer when other objects are live), the next fails with -ENOMEM,
 * one closed makes room for one more, and one over the limit is -E2BIG.
 */
static void test_commit_limit(void)
{
	static const uint32_t sys[] = { DRM_VDXG_SEGMENT_SYSTEM };
	uint64_t limit, chunk;
	uint32_t h[16];
	int fd = open_mm(), n, ret = 0;

	limit = get_param(fd, DRM_VDXG_PARAM_COMMIT_LIMIT);
	chunk = (limit / 8) & ~4095ull;
	vtest_info("commit limit %llu MiB, objects of %llu MiB",
		   (unsigned long long)(limit >> 20),
		   (unsigned long long)(chunk >> 20));
	for (n = 0; n < 16; n++) {
		ret = __create(fd, chunk, 0, sys, 1, &h[n]) ? errno : 0;
		if (ret)
			break;
	}
	vtest_info("%d objects created, then %s", n, strerror(ret));
	vtest_assert_eq(ret, ENOMEM);
	vtest_assert_lte(n, 8);
	vtest_assert_lte(6, n);

	gem_close(fd, h[--n]);
	vtest_assert_ok(__create(fd, chunk, 0, sys, 1, &h[n++]));
	vtest_assert_errno(__create(fd, chunk, 0, sys, 1, NULL), ENOMEM);
	while (n)
		gem_close(fd, h[--n]);

	vtest_assert_errno(__create(fd, limit + 4096, 0, sys, 1, NULL), E2BIG);
	/* All of it given back: the limit's worth fits again. */
	vtest_assert_ok(__create(fd, limit - 2 * chunk, 0, sys, 1, &h[0]));
	gem_close(fd, h[0]);
	close(fd);
}

/* MemTotal, in bytes: the kernel's totalram_pages(). */
static uint64_t mem_total(void)
{
	unsigned long long kb = 0;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");

	vtest_assert(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
			break;
	fclose(f);
	vtest_assert_f(kb, "no MemTotal in /proc/meminfo");
	return (uint64_t)kb << 10;
}

/*
 * vdxg.commit_limit_mb above the RAM: the limit is the RAM, and
 * DRM_VDXG_PARAM_COMMIT_LIMIT says so. An object of half of it is
 * created (its pages come on first use), one larger than it is -E2BIG.
 */
static void test_commit_limit_ram(void)
{
	static const uint32_t sys[] = { DRM_VDXG_SEGMENT_SYSTEM };
	uint64_t ram = mem_total(), limit;
	uint32_t h;
	int fd;

	vtest_require(vtest_system("modprobe -r vdxg && "
				   "modprobe vdxg commit_limit_mb=16777216") == 0);
	fd = open_mm();
	limit = get_param(fd, DRM_VDXG_PARAM_COMMIT_LIMIT);
	vtest_info("RAM %llu MiB, commit limit %llu MiB\n",
		   (unsigned long long)(ram >> 20),
		   (unsigned long long)(limit >> 20));
	vtest_assert_eq_u64(limit, ram);
	vtest_assert_ok(__create(fd, (ram / 2) & ~4095ull, 0, sys, 1, &h));
	gem_close(fd, h);
	vtest_assert_errno(__create(fd, limit + 4096, 0, sys, 1, NULL), E2BIG);
	close(fd);
	vtest_assert(vtest_system("modprobe -r vdxg && modprobe vdxg") == 0);
}

static const struct vtest_subtest subtests[] = {
	{ "create-invalid", test_create_invalid,
	  "GEM_CREATE rejects bad sizes, flags and segment lists" },
	{ "bad-handle", test_bad_handle,
	  "bad and foreign handles, bad wait arguments" },
	{ "mmap-past-end", test_mmap_past_end,
	  "no mapping reaches past an object" },
	{ "segments", test_segments,
	  "objects land in the segment asked for, at a GPU address inside it" },
	{ "clear-on-allocate", test_clear_on_allocate,
	  "new VRAM objects read as zero after freed ones held data" },
	{ "evict-integrity", test_evict_integrity,
	  "data survives eviction from VRAM to system memory" },
	{ "segment-pairs", test_segment_pairs,
	  "objects of 4x VRAM (2x on the debug kernel; or 7/8 of the commit "
	  "limit) paged through every segment pair" },
	{ "make-resident-invalid", test_make_resident_invalid,
	  "MAKE_RESIDENT rejects bad handles and segments outside the set" },
	{ "cpu-fault-invisible", test_cpu_fault_invisible,
	  "a CPU fault moves an object from VRAM beyond the BAR into the BAR, "
	  "or to system memory when the BAR is full, content intact" },
	{ "commit-limit", test_commit_limit,
	  "objects are charged to the commit limit: -ENOMEM past it, -E2BIG "
	  "for one larger than it" },
	{ "commit-limit-ram", test_commit_limit_ram,
	  "commit_limit_mb above the RAM: the limit is the RAM" },
	{ "multipass", test_multipass,
	  "a 64 MiB move through 4 KiB paging buffers takes 33 passes" },
};

VTEST_MAIN(subtests)
