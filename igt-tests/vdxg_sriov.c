// SPDX-License-Identifier: MIT
/*
 * vdxg_sriov: SR-IOV virtual functions on a vdxg PF behind a PCIe root
 * port (scripts/igt.sh's "sriov" boot): provisioning through sysfs
 * sriov_numvfs, VFs bound as render-only vdxg devices, the backing-resource
 * query (DRM_IOCTL_VDXG_GET_BACKING_RESOURCE) against the VF BARs as the
 * CPU sees them, render and paging work on two VFs at once, isolation,
 * disabling idle and busy, the 33-range refusal, the PF's resizable
 * VRAM BAR, and GPU VMs on the PF and two VFs at once.
 *
 * Every subtest starts and ends with the VFs disabled. The PF's debugfs
 * file vram_fragment makes deliberately fragmented VRAM: writing a chunk
 * size fills the free VRAM with chunks of that size and frees every other
 * one.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <drm.h>
#include <drm_mode.h>
#include "vdxg_drm.h"

#define BIT(n)		(1u << (n))
#define BIT_ULL(n)	(1ull << (n))
#include "vdxg_hw.h"

#include "vrender.h"
#include "vtest.h"
#include "vvm.h"

#define NUM_VFS		2
#define PAGE		4096ull

struct range {
	uint64_t vram_offset;
	uint64_t length;
	uint64_t bar_offset;
	uint64_t host_base;
};

struct vf_map {
	struct range r[DRM_VDXG_MAX_BACKING_RESOURCES];
	unsigned int count;
	uint64_t size;
};

/* ------------------------------------------------------------ sysfs, PCI */

static void pf_bdf(char *bdf, size_t len)
{
	if (!vtest_pci_find(VDXG_PCI_VENDOR_ID, VDXG_PCI_DEVICE_ID, bdf, len))
		vtest_skip("no vdxg PCI device (1234:d3d0)");
}

static uint64_t sysfs_u64(const char *bdf, const char *attr)
{
	char path[PATH_MAX], buf[64];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", bdf, attr);
	vtest_assert_f(vtest_read_file(path, buf, sizeof(buf)) > 0,
		       "cannot read %s", path);
	return strtoull(buf, NULL, 0);
}

static int sysfs_write(const char *bdf, const char *attr, const char *val)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", bdf, attr);
	return vtest_write_file(path, val);
}

/* Write sriov_numvfs; 0 or -errno. */
static int set_numvfs(const char *pf, unsigned int n)
{
	char val[16];

	snprintf(val, sizeof(val), "%u", n);
	return sysfs_write(pf, "sriov_numvfs", val);
}

/* The SR-IOV capability is there and the boot gave the PF enough VFs. */
static void require_sriov(const char *pf)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/sriov_totalvfs",
		 pf);
	vtest_require_f(vtest_path_exists(path),
			"%s has no SR-IOV capability (not behind a root port?)",
			pf);
	vtest_require_f(sysfs_u64(pf, "sriov_totalvfs") >= NUM_VFS,
			"fewer than %d VFs", NUM_VFS);
}

/* The last component of symlink LINK into OUT ("" when there is none). */
static void link_base(const char *link, char *out, size_t len)
{
	char target[PATH_MAX];
	const char *base;
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	size_t l;

	out[0] = '\0';
	if (n <= 0)
		return;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	l = strlen(base);
	if (l >= len)
		l = len - 1;
	memcpy(out, base, l);
	out[l] = '\0';
}

static void vf_bdf(const char *pf, unsigned int i, char *bdf, size_t len)
{
	char link[PATH_MAX];

	snprintf(link, sizeof(link), "/sys/bus/pci/devices/%s/virtfn%u", pf, i);
	link_base(link, bdf, len);
	vtest_assert_f(bdf[0], "no %s", link);
}

/* The driver bound to BDF, "" when none. */
static void bound_driver(const char *bdf, char *drv, size_t len)
{
	char link[PATH_MAX];

	snprintf(link, sizeof(link), "/sys/bus/pci/devices/%s/driver", bdf);
	link_base(link, drv, len);
}

static int driver_op(const char *op, const char *bdf)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/bus/pci/drivers/vdxg/%s", op);
	return vtest_write_file(path, bdf);
}

/* Open the "card" or "renderD" node of the DRM device on PCI device BDF. */
static int open_node(const char *bdf, const char *prefix)
{
	char p[256];

	snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/drm", bdf);
	for (int minor = 0; minor < 256; minor++) {
		char node[PATH_MAX];
		int fd;

		snprintf(node, sizeof(node), "%s/%s%d", p, prefix, minor);
		if (!vtest_path_exists(node))
			continue;
		snprintf(node, sizeof(node), "/dev/dri/%s%d", prefix, minor);
		fd = open(node, O_RDWR | O_CLOEXEC);
		vtest_assert_f(fd >= 0, "open %s: %s", node, strerror(errno));
		return fd;
	}
	vtest_fail("%s has no %s node", bdf, prefix);
}

static uint64_t get_param(int fd, uint32_t param)
{
	struct drm_vdxg_get_param p = { .param = param };

	vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_VDXG_GET_PARAM, &p));
	return p.value;
}

/* ---------------------------------------------------------------- debugfs */

static void pf_debugfs(const char *pf, const char *name, char *buf,
		       size_t len)
{
	char path[PATH_MAX];
	int fd = open_node(pf, "card");

	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/%s",
		 vtest_drm_minor(fd), name);
	close(fd);
	vtest_assert_f(vtest_read_file(path, buf, len) > 0, "cannot read %s",
		       path);
}

static int pf_debugfs_write(const char *pf, const char *name, const char *val)
{
	char path[PATH_MAX];
	int fd = open_node(pf, "card");

	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/%s",
		 vtest_drm_minor(fd), name);
	close(fd);
	return vtest_write_file(path, val);
}

/* Bytes of the PF's VRAM in use (debugfs segments: "vram: size N, used M"). */
static uint64_t pf_vram_used(const char *pf)
{
	static char buf[1 << 16];
	unsigned long long size, used;
	char *p;

	pf_debugfs(pf, "segments", buf, sizeof(buf));
	for (p = buf; p; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		if (sscanf(p, "vram: size %llu, used %llu", &size, &used) == 2)
			return used;
	}
	vtest_fail("no vram line in debugfs segments");
}

static void fragment(const char *pf, uint64_t chunk)
{
	char val[32];
	int ret;

	snprintf(val, sizeof(val), "%llu", (unsigned long long)chunk);
	ret = pf_debugfs_write(pf, "vram_fragment", val);
	vtest_assert_f(ret == 0, "vram_fragment <- %s: %s", val,
		       strerror(-ret));
}

/* ------------------------------------------------------------ the query */

static int query(int fd, uint32_t vf, uint32_t idx,
		 struct drm_vdxg_backing_resource *r)
{
	memset(r, 0, sizeof(*r));
	r->vf_index = vf;
	r->resource_index = idx;
	return vtest_ioctl(fd, DRM_IOCTL_VDXG_GET_BACKING_RESOURCE, r) ? -errno
								       : 0;
}

/*
 * Read VF VF's ranges through the query and check their shape: page
 * multiples laid end to end in the BAR, in PF VRAM, zeros after the last.
 */
static void read_map(int pf_fd, const char *pf, uint32_t vf,
		     struct vf_map *m)
{
	uint64_t vram = get_param(pf_fd, DRM_VDXG_PARAM_VRAM_SIZE);
	struct drm_vdxg_backing_resource r;
	uint64_t bar_start;
	char path[PATH_MAX], line[256];
	unsigned long long start = 0, end = 0, fl;
	FILE *f;

	/* The PF's VRAM BAR: line VDXG_BAR_VRAM of sysfs "resource". */
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource", pf);
	f = fopen(path, "r");
	vtest_assert(f);
	for (int i = 0; i <= VDXG_BAR_VRAM; i++)
		vtest_assert(fgets(line, sizeof(line), f));
	fclose(f);
	vtest_assert(sscanf(line, "%llx %llx %llx", &start, &end, &fl) == 3);
	bar_start = start;

	memset(m, 0, sizeof(*m));
	for (uint32_t i = 0; i < DRM_VDXG_MAX_BACKING_RESOURCES; i++) {
		vtest_assert_eq(query(pf_fd, vf, i, &r), 0);
		if (!r.length) {
			vtest_assert_eq_u64(r.host_base, 0);
			vtest_assert_eq_u64(r.vram_offset, 0);
			vtest_assert_eq_u64(r.bar_offset, 0);
			vtest_assert_eq(r.bar, 0);
			continue;
		}
		vtest_assert_f(i == m->count,
			       "VF %u: resource %u used after an unused one",
			       vf, i);
		vtest_assert_eq(r.bar, VDXG_BAR_VRAM);
		vtest_assert_eq_u64(r.length % PAGE, 0);
		vtest_assert_eq_u64(r.vram_offset % PAGE, 0);
		vtest_assert_lte_u64(r.vram_offset + r.length, vram);
		vtest_assert_eq_u64(r.bar_offset, m->size);
		if (r.vram_offset + r.length <= end - start + 1)
			vtest_assert_eq_u64(r.host_base,
					    bar_start + r.vram_offset);
		else
			vtest_assert_eq_u64(r.host_base, 0);
		m->r[m->count++] = (struct range){
			.vram_offset = r.vram_offset, .length = r.length,
			.bar_offset = r.bar_offset, .host_base = r.host_base,
		};
		m->size += r.length;
	}
	vtest_assert_f(m->count > 0, "VF %u has no backing", vf);
}

static bool overlap(const struct range *a, const struct range *b)
{
	return a->vram_offset < b->vram_offset + b->length &&
	       b->vram_offset < a->vram_offset + a->length;
}

static void check_disjoint(const struct vf_map *m, unsigned int n)
{
	for (unsigned int a = 0; a < n; a++)
		for (unsigned int b = a; b < n; b++)
			for (unsigned int i = 0; i < m[a].count; i++)
				for (unsigned int j = 0; j < m[b].count; j++) {
					if (a == b && i == j)
						continue;
					vtest_assert_f(!overlap(&m[a].r[i],
								&m[b].r[j]),
						       "VF %u range %u overlaps "
						       "VF %u range %u", a, i,
						       b, j);
				}
}

/* ------------------------------------------------------- BARs on the CPU */

struct bar {
	void *p;
	size_t len;
};

/*
 * The length of BAR of BDF as it is now, from sysfs "resource": the size of
 * the resourceN file is the BAR's size when the device was added, before a
 * driver resized it.
 */
static uint64_t bar_len(const char *bdf, int bar)
{
	unsigned long long start, end, flags;
	char path[PATH_MAX], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource", bdf);
	f = fopen(path, "r");
	vtest_assert_f(f, "open %s: %s", path, strerror(errno));
	for (int i = 0; i <= bar; i++)
		vtest_assert(fgets(line, sizeof(line), f));
	fclose(f);
	vtest_assert(sscanf(line, "%llx %llx %llx", &start, &end, &flags) == 3);
	vtest_assert_f(end > start, "%s: BAR %d is not assigned", bdf, bar);
	return end - start + 1;
}

static struct bar map_bar(const char *bdf, int bar)
{
	char path[PATH_MAX];
	struct bar b;
	int fd;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource%d", bdf,
		 bar);
	fd = open(path, O_RDWR | O_CLOEXEC);
	vtest_assert_f(fd >= 0, "open %s: %s", path, strerror(errno));
	b.len = bar_len(bdf, bar);
	b.p = mmap(NULL, b.len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	vtest_assert_f(b.p != MAP_FAILED, "mmap %s: %s", path, strerror(errno));
	close(fd);
	return b;
}

static void unmap_bar(struct bar *b)
{
	munmap(b->p, b->len);
}

static uint32_t pattern(uint32_t seed, uint64_t i)
{
	uint32_t x = seed * 0x9e3779b9u ^ (uint32_t)(i * 0x85ebca6bu);

	return x ^ x >> 15;
}

/* One dword every 256 bytes (and each range's first and last) stands in for
 * the whole: enough to see order, offsets and aliasing without a minute of
 * uncached MMIO under emulation. */
#define STEP 64

static void fill_words(volatile uint32_t *p, uint64_t bytes, uint32_t seed)
{
	uint64_t n = bytes / 4;

	for (uint64_t i = 0; i < n; i += STEP)
		p[i] = pattern(seed, i);
	p[n - 1] = pattern(seed, n - 1);
}

static void check_words(const volatile uint32_t *p, uint64_t bytes,
			uint32_t seed, const char *what)
{
	uint64_t n = bytes / 4;

	for (uint64_t i = 0; i < n; i += STEP)
		vtest_assert_f(p[i] == pattern(seed, i),
			       "%s: dword %llu is 0x%08x, want 0x%08x", what,
			       (unsigned long long)i, p[i], pattern(seed, i));
	vtest_assert_f(p[n - 1] == pattern(seed, n - 1), "%s: last dword",
		       what);
}

/*
 * With the VFs unbound: each VF BAR is its ranges in order. Words written
 * through the VF's BAR appear in the PF's BAR at the ranges' VRAM offsets,
 * and the other way round.
 */
static void check_bar_layout(const char *pf, const struct vf_map *m,
			     unsigned int n)
{
	struct bar pbar = map_bar(pf, VDXG_BAR_VRAM);

	for (unsigned int v = 0; v < n; v++) {
		char vf[64], what[96];
		struct bar vbar;

		vf_bdf(pf, v, vf, sizeof(vf));
		vbar = map_bar(vf, VDXG_BAR_VRAM);
		vtest_assert_eq_u64(vbar.len, m[v].size);
		for (unsigned int i = 0; i < m[v].count; i++) {
			const struct range *r = &m[v].r[i];
			uint8_t *vp = (uint8_t *)vbar.p + r->bar_offset;
			uint8_t *pp = (uint8_t *)pbar.p + r->vram_offset;

			vtest_require_f(r->vram_offset + r->length <= pbar.len,
					"range beyond the PF's BAR");
			snprintf(what, sizeof(what), "VF %u range %u, VF->PF",
				 v, i);
			fill_words((uint32_t *)vp, r->length, v << 8 | i);
			check_words((uint32_t *)pp, r->length, v << 8 | i,
				    what);
			snprintf(what, sizeof(what), "VF %u range %u, PF->VF",
				 v, i);
			fill_words((uint32_t *)pp, r->length,
				   0x10000 | v << 8 | i);
			check_words((uint32_t *)vp, r->length,
				    0x10000 | v << 8 | i, what);
		}
		unmap_bar(&vbar);
	}
	unmap_bar(&pbar);
}

/* ------------------------------------------------------------ set-up */

struct sriov {
	char pf[64];
	int pf_fd;
	uint64_t used0;		/* PF VRAM in use with no VF */
	uint64_t seq;
};

static void reset_vfs(const char *pf)
{
	int ret = set_numvfs(pf, 0);

	vtest_assert_f(ret == 0, "sriov_numvfs <- 0: %s", strerror(-ret));
	vtest_assert_eq(sysfs_u64(pf, "sriov_numvfs"), 0);
}

static void sriov_begin(struct sriov *s)
{
	pf_bdf(s->pf, sizeof(s->pf));
	require_sriov(s->pf);
	reset_vfs(s->pf);
	sysfs_write(s->pf, "sriov_drivers_autoprobe", "1");
	/* What an earlier subtest that stopped half-way left fragmented */
	fragment(s->pf, 0);
	s->pf_fd = open_node(s->pf, "card");
	s->used0 = pf_vram_used(s->pf);
	s->seq = vtest_kmsg_seq();
}

static void sriov_end(struct sriov *s)
{
	int n;

	reset_vfs(s->pf);
	sysfs_write(s->pf, "sriov_drivers_autoprobe", "1");
	vtest_assert_eq_u64(pf_vram_used(s->pf), s->used0);
	close(s->pf_fd);
	n = vtest_kmsg_problems(s->seq);
	vtest_assert_f(n == 0, "%d new kernel log problem(s), listed above", n);
}

static void enable(struct sriov *s, unsigned int n)
{
	int ret = set_numvfs(s->pf, n);

	vtest_assert_f(ret == 0, "sriov_numvfs <- %u: %s", n, strerror(-ret));
	vtest_assert_eq(sysfs_u64(s->pf, "sriov_numvfs"), n);
}

/* ------------------------------------------------------------ subtests */

static void test_enable_disable(void)
{
	uint64_t vf_vram = 0;
	struct sriov s;

	sriov_begin(&s);
	enable(&s, NUM_VFS);
	for (unsigned int i = 0; i < NUM_VFS; i++) {
		struct drm_mode_card_res res = { 0 };
		char vf[64], drv[64];
		int fd, card;

		vf_bdf(s.pf, i, vf, sizeof(vf));
		vtest_assert_eq(sysfs_u64(vf, "device"), VDXG_PCI_VF_DEVICE_ID);
		bound_driver(vf, drv, sizeof(drv));
		vtest_assert_str_eq(drv, "vdxg");

		fd = open_node(vf, "renderD");
		vtest_assert_eq(get_param(fd, DRM_VDXG_PARAM_NUM_CRTCS), 0);
		vtest_assert_eq(get_param(fd, DRM_VDXG_PARAM_DEVICE_ID),
				VDXG_PCI_VF_DEVICE_ID);
		vtest_assert(!(get_param(fd, DRM_VDXG_PARAM_CAPS) &
			       VDXG_CAP_DISPLAY));
		vtest_assert(get_param(fd, DRM_VDXG_PARAM_ENGINES) ==
			     (BIT(VDXG_ENGINE_RENDER) | BIT(VDXG_ENGINE_PAGING)));
		vtest_assert_eq(get_param(fd, DRM_VDXG_PARAM_IRQ_MODE),
				DRM_VDXG_IRQ_MODE_MSIX);
		if (!i)
			vf_vram = get_param(fd, DRM_VDXG_PARAM_VRAM_SIZE);
		vtest_assert_eq_u64(get_param(fd, DRM_VDXG_PARAM_VRAM_SIZE),
				    vf_vram);
		vtest_assert_eq_u64(get_param(fd,
					      DRM_VDXG_PARAM_VRAM_VISIBLE_SIZE),
				    vf_vram);
		close(fd);

		/* Render-only: the primary node has no KMS. */
		card = open_node(vf, "card");
		vtest_assert_eq(ioctl(card, DRM_IOCTL_MODE_GETRESOURCES, &res),
				-1);
		vtest_assert_eq(errno, EOPNOTSUPP);
		close(card);
	}
	/* Their VRAM came out of the PF's. */
	vtest_assert_lte_u64(s.used0 + NUM_VFS * vf_vram, pf_vram_used(s.pf));

	reset_vfs(s.pf);
	for (unsigned int i = 0; i < NUM_VFS; i++) {
		char link[PATH_MAX];

		snprintf(link, sizeof(link), "/sys/bus/pci/devices/%s/virtfn%u",
			 s.pf, i);
		vtest_assert(!vtest_path_exists(link));
	}
	/* ... and went back: */
	vtest_assert_eq_u64(pf_vram_used(s.pf), s.used0);

	/* Again, to see nothing was left behind. */
	enable(&s, NUM_VFS);
	sriov_end(&s);
}

static void test_backing_query(void)
{
	struct drm_vdxg_backing_resource r;
	struct vf_map m[NUM_VFS];
	uint64_t total;
	struct sriov s;
	pid_t pid;
	int st, vfd;
	char vf[64];

	sriov_begin(&s);
	total = sysfs_u64(s.pf, "sriov_totalvfs");

	/* Nothing enabled yet. */
	vtest_assert_eq(query(s.pf_fd, 0, 0, &r), -ENOENT);

	enable(&s, NUM_VFS);
	for (unsigned int v = 0; v < NUM_VFS; v++) {
		char fdvf[64];
		int fd;

		read_map(s.pf_fd, s.pf, v, &m[v]);
		vf_bdf(s.pf, v, fdvf, sizeof(fdvf));
		fd = open_node(fdvf, "renderD");
		vtest_assert_eq_u64(m[v].size,
				    get_param(fd, DRM_VDXG_PARAM_VRAM_SIZE));
		close(fd);
		vtest_info("VF %u: %u range(s), %llu MiB\n", v, m[v].count,
			   (unsigned long long)(m[v].size >> 20));
	}
	check_disjoint(m, NUM_VFS);

	/* The errors. */
	vtest_assert_eq(query(s.pf_fd, 0, DRM_VDXG_MAX_BACKING_RESOURCES, &r),
			-EINVAL);
	vtest_assert_eq(query(s.pf_fd, total, 0, &r), -EINVAL);
	vtest_assert_eq(query(s.pf_fd, ~0u, 0, &r), -EINVAL);
	if (total > NUM_VFS)
		vtest_assert_eq(query(s.pf_fd, NUM_VFS, 0, &r), -ENOENT);
	memset(&r, 0, sizeof(r));
	r.flags = 1;
	vtest_assert_eq(vtest_ioctl(s.pf_fd, DRM_IOCTL_VDXG_GET_BACKING_RESOURCE,
				    &r), -1);
	vtest_assert_eq(errno, EINVAL);
	memset(&r, 0, sizeof(r));
	r.pad = 1;
	vtest_assert_eq(vtest_ioctl(s.pf_fd, DRM_IOCTL_VDXG_GET_BACKING_RESOURCE,
				    &r), -1);
	vtest_assert_eq(errno, EINVAL);

	/* Not on a VF. */
	vf_bdf(s.pf, 0, vf, sizeof(vf));
	vfd = open_node(vf, "card");
	vtest_assert_eq(query(vfd, 0, 0, &r), -EOPNOTSUPP);
	close(vfd);

	/* Host addresses are for CAP_SYS_ADMIN only. */
	pid = fork();
	vtest_assert(pid >= 0);
	if (!pid) {
		if (setgid(65534) || setuid(65534))
			_exit(2);
		_exit(query(s.pf_fd, 0, 0, &r) == -EPERM ? 0 : 1);
	}
	vtest_assert_eq(waitpid(pid, &st, 0), pid);
	vtest_assert_f(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		       "an unprivileged query did not get EPERM (status %d)",
		       st);
	sriov_end(&s);
}

/*
 * Enable with the VFs left unbound, and read their maps. Each VF is enabled
 * through sysfs "enable", which turns on its memory decoding: the VF BARs
 * decode only then, as QEMU 10.0 follows a VF's own command register.
 */
static void enable_unbound(struct sriov *s, struct vf_map *m)
{
	vtest_assert_eq(sysfs_write(s->pf, "sriov_drivers_autoprobe", "0"), 0);
	enable(s, NUM_VFS);
	for (unsigned int v = 0; v < NUM_VFS; v++) {
		char vf[64], drv[64];

		vf_bdf(s->pf, v, vf, sizeof(vf));
		bound_driver(vf, drv, sizeof(drv));
		vtest_assert_str_eq(drv, "");
		vtest_assert_eq(sysfs_write(vf, "enable", "1"), 0);
		read_map(s->pf_fd, s->pf, v, &m[v]);
	}
	check_disjoint(m, NUM_VFS);
}

/* Bind VF V by hand: with autoprobe off, only a driver_override binds. */
static void bind_vf(struct sriov *s, unsigned int v)
{
	char vf[64], drv[64];
	int ret;

	vf_bdf(s->pf, v, vf, sizeof(vf));
	vtest_assert_eq(sysfs_write(vf, "driver_override", "vdxg"), 0);
	ret = driver_op("bind", vf);
	vtest_assert_f(ret == 0, "bind %s: %s", vf, strerror(-ret));
	bound_driver(vf, drv, sizeof(drv));
	vtest_assert_str_eq(drv, "vdxg");
}

static void test_bar_layout(void)
{
	struct vf_map m[NUM_VFS];
	struct sriov s;

	sriov_begin(&s);
	enable_unbound(&s, m);
	check_bar_layout(s.pf, m, NUM_VFS);
	sriov_end(&s);
}

/* The tests each VF runs: (binary, subtest). */
static const char *const vf_work[][2] = {
	{ "vdxg_render", "fill-rect-xrgb8888-vram" },
	{ "vdxg_render", "copy-rect-argb8888-aperture" },
	{ "vdxg_render", "blend-rgb565-vram" },
	{ "vdxg_render", "draw-tex-bilinear-xrgb8888-vram" },
	{ "vdxg_render", "draw-depth-xrgb8888-aperture" },
	{ "vdxg_render", "draw-random-argb8888-vram" },
	{ "vdxg_gem", "clear-on-allocate" },
	{ "vdxg_gem", "segment-pairs" },
	{ "vdxg_gem", "evict-integrity" },
};

static char *self_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	char *slash;

	vtest_assert(n > 0);
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	vtest_assert(slash);
	*slash = '\0';
	return buf;
}

/*
 * Run vf_work on device BDF in a child; returns its pid. The child says
 * which test failed on stderr when REPORT is set (work that is meant to
 * fail, on a VF removed under it, keeps quiet).
 */
static pid_t spawn_work(const char *bdf, const char *log, bool report)
{
	char dir[PATH_MAX];
	pid_t pid;

	self_dir(dir, sizeof(dir));
	pid = fork();
	vtest_assert(pid >= 0);
	if (pid)
		return pid;

	setenv("VDXG_TEST_DEVICE", bdf, 1);
	setenv("VTEST_NESTED", "1", 1);
	for (size_t i = 0; i < VTEST_ARRAY_SIZE(vf_work); i++) {
		char bin[PATH_MAX + 64], cmd[3 * PATH_MAX];
		int st;

		snprintf(bin, sizeof(bin), "%s/%s", dir, vf_work[i][0]);
		snprintf(cmd, sizeof(cmd), "%s --run-subtest %s >>%s 2>&1",
			 bin, vf_work[i][1], log);
		st = system(cmd);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			if (report)
				fprintf(stderr, "%s: %s %s: status %d\n", bdf,
					vf_work[i][0], vf_work[i][1], st);
			_exit(1);
		}
	}
	_exit(0);
}

/* vf_work on VFs FIRST..FIRST+N-1 at once; all must pass. */
static void run_work(struct sriov *s, unsigned int first, unsigned int n)
{
	pid_t pid[NUM_VFS];

	for (unsigned int v = first; v < first + n; v++) {
		char vf[64], log[64];

		vf_bdf(s->pf, v, vf, sizeof(vf));
		snprintf(log, sizeof(log), "/tmp/vdxg-sriov-vf%u.log", v);
		unlink(log);
		pid[v] = spawn_work(vf, log, true);
	}
	for (unsigned int v = first; v < first + n; v++) {
		char log[64], cmd[128];
		int st;

		vtest_assert_eq(waitpid(pid[v], &st, 0), pid[v]);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			snprintf(log, sizeof(log), "/tmp/vdxg-sriov-vf%u.log",
				 v);
			snprintf(cmd, sizeof(cmd), "tail -n 30 %s >&2", log);
			vtest_system("%s", cmd);
			vtest_fail("VF %u's work failed (status %d)", v, st);
		}
	}
}

static void test_render_paging(void)
{
	struct sriov s;

	sriov_begin(&s);
	enable(&s, NUM_VFS);
	run_work(&s, 0, NUM_VFS);
	sriov_end(&s);
}

static void test_fragmented(void)
{
	struct vf_map m[NUM_VFS];
	struct sriov s;

	sriov_begin(&s);
	fragment(s.pf, 1 << 20);
	enable_unbound(&s, m);
	for (unsigned int v = 0; v < NUM_VFS; v++) {
		vtest_info("VF %u: %u ranges\n", v, m[v].count);
		vtest_assert_f(m[v].count > 1,
			       "VF %u got one range from fragmented VRAM", v);
		vtest_assert_lte(m[v].count, DRM_VDXG_MAX_BACKING_RESOURCES);
		for (unsigned int i = 0; i < m[v].count; i++)
			vtest_assert_lte_u64(m[v].r[i].length, 1 << 20);
	}
	check_bar_layout(s.pf, m, NUM_VFS);
	for (unsigned int v = 0; v < NUM_VFS; v++)
		bind_vf(&s, v);
	run_work(&s, 0, NUM_VFS);
	reset_vfs(s.pf);
	fragment(s.pf, 0);
	sriov_end(&s);
}

/* Words sampled from VF V's ranges through the PF's BAR. */
static uint32_t *snapshot(struct bar *pbar, const struct vf_map *m,
			  size_t *count)
{
	size_t n = 0, k = 0;
	uint32_t *out;

	for (unsigned int i = 0; i < m->count; i++)
		n += m->r[i].length / 4 / STEP;
	out = calloc(n, sizeof(*out));
	vtest_assert(out);
	for (unsigned int i = 0; i < m->count; i++) {
		const volatile uint32_t *p = (uint32_t *)((uint8_t *)pbar->p +
							  m->r[i].vram_offset);

		for (uint64_t j = 0; j < m->r[i].length / 4; j += STEP)
			out[k++] = p[j];
	}
	*count = k;
	return out;
}

/* A PF object in VRAM, mapped, holding a pattern. */
#define PF_OBJ_SIZE	(4u << 20)

static uint32_t *pf_object(int fd, uint32_t *handle)
{
	struct drm_vdxg_gem_create c = {
		.size = PF_OBJ_SIZE,
		.flags = DRM_VDXG_GEM_CPU_ACCESS,
		.num_segments = 1,
		.segments = { DRM_VDXG_SEGMENT_VRAM },
	};
	struct drm_vdxg_gem_mmap_offset mo = { 0 };
	uint32_t *p;

	vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_VDXG_GEM_CREATE, &c));
	mo.handle = c.handle;
	vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_VDXG_GEM_MMAP_OFFSET, &mo));
	p = mmap(NULL, PF_OBJ_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 mo.offset);
	vtest_assert_f(p != MAP_FAILED, "mmap: %s", strerror(errno));
	for (uint64_t i = 0; i < PF_OBJ_SIZE / 4; i++)
		p[i] = pattern(0xf00d, i);
	*handle = c.handle;
	return p;
}

/*
 * Work on VF 0 leaves VF 1's memory (unbound, seen through the PF's BAR)
 * and the PF's own objects as they were.
 */
static void test_isolation(void)
{
	struct drm_vdxg_gem_info gi = { 0 };
	struct drm_gem_close gc = { 0 };
	struct vf_map m[NUM_VFS];
	struct bar pbar;
	uint32_t *before, *after, *pf_obj;
	size_t n, n2;
	struct sriov s;

	sriov_begin(&s);
	pf_obj = pf_object(s.pf_fd, &gi.handle);
	enable_unbound(&s, m);
	pbar = map_bar(s.pf, VDXG_BAR_VRAM);
	for (unsigned int i = 0; i < m[1].count; i++)
		vtest_require_f(m[1].r[i].vram_offset + m[1].r[i].length <=
				pbar.len, "VF 1 beyond the PF's BAR");

	/* VF 1 (unbound) holds a pattern; VF 0 works hard. */
	for (unsigned int i = 0; i < m[1].count; i++)
		fill_words((uint32_t *)((uint8_t *)pbar.p +
					m[1].r[i].vram_offset),
			   m[1].r[i].length, 0xabc00 | i);
	before = snapshot(&pbar, &m[1], &n);
	bind_vf(&s, 0);
	run_work(&s, 0, 1);
	after = snapshot(&pbar, &m[1], &n2);
	vtest_assert_eq(n, n2);
	for (size_t i = 0; i < n; i++)
		vtest_assert_f(before[i] == after[i],
			       "VF 1's memory changed while VF 0 worked "
			       "(sample %zu: 0x%08x -> 0x%08x)", i, before[i],
			       after[i]);
	vtest_assert_ok(vtest_ioctl(s.pf_fd, DRM_IOCTL_VDXG_GEM_INFO, &gi));
	vtest_assert_eq(gi.segment, DRM_VDXG_SEGMENT_VRAM);
	for (uint64_t i = 0; i < PF_OBJ_SIZE / 4; i++)
		vtest_assert_f(pf_obj[i] == pattern(0xf00d, i),
			       "the PF's object changed while VF 0 worked "
			       "(dword %llu: 0x%08x)", (unsigned long long)i,
			       pf_obj[i]);
	munmap(pf_obj, PF_OBJ_SIZE);
	gc.handle = gi.handle;
	vtest_assert_ok(vtest_ioctl(s.pf_fd, DRM_IOCTL_GEM_CLOSE, &gc));
	free(before);
	free(after);
	unmap_bar(&pbar);
	sriov_end(&s);
}

/* A VF disappears under an open client: its fds get ENODEV, nothing warns. */
static void test_disable_busy(void)
{
	struct drm_vdxg_get_param p = { .param = DRM_VDXG_PARAM_VRAM_SIZE };
	int fds[NUM_VFS], cards[NUM_VFS];
	struct sriov s;
	int ret;

	sriov_begin(&s);
	enable(&s, NUM_VFS);
	for (unsigned int v = 0; v < NUM_VFS; v++) {
		struct drm_vdxg_gem_create c = {
			.size = 1 << 20,
			.num_segments = 1,
			.segments = { DRM_VDXG_SEGMENT_VRAM },
		};
		struct drm_vdxg_gem_make_resident mr = { 0 };
		char vf[64];

		vf_bdf(s.pf, v, vf, sizeof(vf));
		fds[v] = open_node(vf, "renderD");
		cards[v] = open_node(vf, "card");
		vtest_assert_ok(vtest_ioctl(fds[v], DRM_IOCTL_VDXG_GEM_CREATE,
					    &c));
		mr.handle = c.handle;
		mr.segment = DRM_VDXG_SEGMENT_VRAM;
		vtest_assert_ok(vtest_ioctl(fds[v],
					    DRM_IOCTL_VDXG_GEM_MAKE_RESIDENT,
					    &mr));
	}
	/* Clients open, one VF busy with work. */
	{
		char vf[64], log[] = "/tmp/vdxg-sriov-busy.log";
		pid_t pid;
		int st;

		vf_bdf(s.pf, 1, vf, sizeof(vf));
		pid = spawn_work(vf, log, false);
		usleep(500 * 1000);
		ret = set_numvfs(s.pf, 0);
		vtest_assert_f(ret == 0, "sriov_numvfs <- 0 with clients: %s",
			       strerror(-ret));
		vtest_assert_eq(waitpid(pid, &st, 0), pid);
		vtest_info("work on the removed VF ended with status %d\n", st);
	}
	for (unsigned int v = 0; v < NUM_VFS; v++) {
		vtest_assert_eq(ioctl(fds[v], DRM_IOCTL_VDXG_GET_PARAM, &p), -1);
		vtest_assert_eq(errno, ENODEV);
		close(fds[v]);
		close(cards[v]);
	}
	/* And once more, idle, after all that. */
	enable(&s, NUM_VFS);
	run_work(&s, 0, 1);
	sriov_end(&s);
}

static void test_too_many_ranges(void)
{
	struct drm_vdxg_backing_resource r;
	uint64_t used;
	struct sriov s;
	char link[PATH_MAX];
	int ret;

	sriov_begin(&s);
	fragment(s.pf, 512 << 10);
	used = pf_vram_used(s.pf);
	ret = set_numvfs(s.pf, NUM_VFS);
	vtest_assert_f(ret == -E2BIG, "sriov_numvfs <- %d with 512 KiB holes: "
		       "%d (%s), want E2BIG", NUM_VFS, ret, strerror(-ret));
	/* Nothing half done. */
	vtest_assert_eq(sysfs_u64(s.pf, "sriov_numvfs"), 0);
	snprintf(link, sizeof(link), "/sys/bus/pci/devices/%s/virtfn0", s.pf);
	vtest_assert(!vtest_path_exists(link));
	vtest_assert_eq(query(s.pf_fd, 0, 0, &r), -ENOENT);
	vtest_assert_eq_u64(pf_vram_used(s.pf), used);
	/* One VF of 32 ranges still fits? Not from 512 KiB holes either. */
	vtest_assert_eq(set_numvfs(s.pf, 1), -E2BIG);
	vtest_assert_eq_u64(pf_vram_used(s.pf), used);

	fragment(s.pf, 0);
	vtest_assert_eq_u64(pf_vram_used(s.pf), s.used0);
	enable(&s, NUM_VFS);
	sriov_end(&s);
}

static void test_resizable_bar(void)
{
	char buf[1 << 14];
	struct sriov s;
	uint64_t vram, visible;
	struct bar pbar;

	sriov_begin(&s);
	vram = get_param(s.pf_fd, DRM_VDXG_PARAM_VRAM_SIZE);
	visible = get_param(s.pf_fd, DRM_VDXG_PARAM_VRAM_VISIBLE_SIZE);
	vtest_require_f(get_param(s.pf_fd, DRM_VDXG_PARAM_CAPS) &
			VDXG_CAP_RESIZABLE_BAR, "no resizable BAR");
	/* The preferred option: all of VRAM. */
	vtest_assert_eq_u64(visible, vram);
	pbar = map_bar(s.pf, VDXG_BAR_VRAM);
	vtest_assert_eq_u64(pbar.len, vram);
	unmap_bar(&pbar);
	pf_debugfs(s.pf, "resources", buf, sizeof(buf));
	vtest_info("%s", buf);
	sriov_end(&s);
}

#define STALE		0x57a1e000u

/* PF objects in VRAM filled with STALE, for a total of BYTES. */
static void pf_stale(int fd, uint64_t bytes, uint32_t *handles,
		     unsigned int *n)
{
	for (*n = 0; bytes; bytes -= PF_OBJ_SIZE, (*n)++) {
		uint32_t *p = pf_object(fd, &handles[*n]);

		for (uint64_t i = 0; i < PF_OBJ_SIZE / 4; i++)
			p[i] = STALE;
		munmap(p, PF_OBJ_SIZE);
	}
}

static void gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close gc = { .handle = handle };

	vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &gc));
}

/* Every word of VF V's ranges, read through the PF's BAR, is 0. */
static void check_zero(const struct bar *pbar, const struct vf_map *m,
		       unsigned int v, const char *when)
{
	for (unsigned int i = 0; i < m->count; i++) {
		const volatile uint32_t *p;

		vtest_require_f(m->r[i].vram_offset + m->r[i].length <=
				pbar->len, "VF %u beyond the PF's BAR", v);
		p = (uint32_t *)((uint8_t *)pbar->p + m->r[i].vram_offset);
		for (uint64_t j = 0; j < m->r[i].length / 4; j++)
			vtest_assert_f(p[j] == 0, "%s: VF %u range %u word "
				       "%llu is 0x%08x, not 0", when, v, i,
				       (unsigned long long)j, p[j]);
	}
}

/*
 * Memory crosses between the PF's clients and a VF only zeroed. PF
 * objects fill most of VRAM with a pattern and are freed (one is evicted
 * to system memory by a pipelined move just before): each VF's memory
 * reads zero, and the evicted object arrived whole. Then the VFs' memory
 * gets a pattern through the PF's BAR; after disable, those ranges read
 * zero.
 */
static void test_scrub(void)
{
	struct drm_vdxg_gem_make_resident mr = {
		.segment = DRM_VDXG_SEGMENT_SYSTEM,
	};
	uint32_t handles[64], evicted, *p;
	struct vf_map m[NUM_VFS];
	uint64_t vram, free_bytes;
	struct bar pbar;
	unsigned int n;
	struct sriov s;

	sriov_begin(&s);
	vram = get_param(s.pf_fd, DRM_VDXG_PARAM_VRAM_SIZE);
	/* All of the free VRAM but what the VFs and the evicted one need. */
	free_bytes = vram - s.used0 - 8 * 1024 * 1024;
	free_bytes -= free_bytes % PF_OBJ_SIZE;
	vtest_assert_lte_u64(free_bytes / PF_OBJ_SIZE,
			     VTEST_ARRAY_SIZE(handles));
	{
		struct drm_vdxg_gem_create c = {
			.size = PF_OBJ_SIZE,
			.flags = DRM_VDXG_GEM_CPU_ACCESS,
			.num_segments = 2,
			.segments = { DRM_VDXG_SEGMENT_VRAM,
				      DRM_VDXG_SEGMENT_SYSTEM },
		};
		struct drm_vdxg_gem_mmap_offset mo = { 0 };

		vtest_assert_ok(vtest_ioctl(s.pf_fd, DRM_IOCTL_VDXG_GEM_CREATE,
					    &c));
		evicted = c.handle;
		mo.handle = c.handle;
		vtest_assert_ok(vtest_ioctl(s.pf_fd,
					    DRM_IOCTL_VDXG_GEM_MMAP_OFFSET,
					    &mo));
		p = mmap(NULL, PF_OBJ_SIZE, PROT_READ | PROT_WRITE,
			 MAP_SHARED, s.pf_fd, mo.offset);
		vtest_assert(p != MAP_FAILED);
		for (uint64_t i = 0; i < PF_OBJ_SIZE / 4; i++)
			p[i] = pattern(0x5c2b, i);
	}
	pf_stale(s.pf_fd, free_bytes, handles, &n);
	for (unsigned int i = 0; i < n; i++)
		gem_close(s.pf_fd, handles[i]);
	mr.handle = evicted;
	vtest_assert_ok(vtest_ioctl(s.pf_fd, DRM_IOCTL_VDXG_GEM_MAKE_RESIDENT,
				    &mr));
	enable_unbound(&s, m);

	pbar = map_bar(s.pf, VDXG_BAR_VRAM);
	for (unsigned int v = 0; v < NUM_VFS; v++)
		check_zero(&pbar, &m[v], v, "after enable");
	for (uint64_t i = 0; i < PF_OBJ_SIZE / 4; i++)
		vtest_assert_f(p[i] == pattern(0x5c2b, i),
			       "the evicted object's dword %llu: 0x%08x",
			       (unsigned long long)i, p[i]);
	munmap(p, PF_OBJ_SIZE);
	gem_close(s.pf_fd, evicted);

	/* The VFs' data stays with them. */
	for (unsigned int v = 0; v < NUM_VFS; v++)
		for (unsigned int i = 0; i < m[v].count; i++)
			fill_words((uint32_t *)((uint8_t *)pbar.p +
						m[v].r[i].vram_offset),
				   m[v].r[i].length, 0x7f00 | v << 4 | i);
	reset_vfs(s.pf);
	for (unsigned int v = 0; v < NUM_VFS; v++)
		check_zero(&pbar, &m[v], v, "after disable");
	unmap_bar(&pbar);
	sriov_end(&s);
}

/*
 * A VF is render-only: PRESENT with a framebuffer id is refused before any
 * framebuffer lookup (there is no mode_config to look in).
 */
static void test_vf_present_fb(void)
{
	struct drm_vdxg_context_create cc = {
		.engine = DRM_VDXG_ENGINE_RENDER,
		.priority = DRM_VDXG_PRIORITY_NORMAL,
	};
	struct drm_vdxg_present pr = { .mode = DRM_VDXG_PRESENT_BLIT };
	struct sriov s;
	char vf[64];
	int fd;

	sriov_begin(&s);
	enable(&s, 1);
	vf_bdf(s.pf, 0, vf, sizeof(vf));
	fd = open_node(vf, "renderD");
	vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_VDXG_CONTEXT_CREATE, &cc));
	pr.ctx_id = cc.ctx_id;
	pr.src.fb_id = 1;
	pr.dst.fb_id = 2;
	vtest_assert_errno(ioctl(fd, DRM_IOCTL_VDXG_PRESENT, &pr), EOPNOTSUPP);
	pr.mode = DRM_VDXG_PRESENT_FLIP;
	pr.ctx_id = 0;
	pr.dst.fb_id = 0;
	vtest_assert_errno(ioctl(fd, DRM_IOCTL_VDXG_PRESENT, &pr), EOPNOTSUPP);
	/* The device still answers. */
	vtest_assert(get_param(fd, DRM_VDXG_PARAM_VRAM_SIZE) > 0);
	close(fd);
	sriov_end(&s);
}

/* ------------------------------------------------------------ GPU VMs */

/*
 * Every function (the PF, each VF) has its own address spaces over its own
 * VRAM. Each binds objects in VRAM and in system memory at the same
 * addresses with patterns of its own, and one more at an address of its
 * own (VM_OWN_VA), which the others' address spaces do not map.
 */
#define VM_FNS		(1 + NUM_VFS)
#define VM_VA		(1ull << 32)
#define VM_OBJ		(1u << 20)
/* A VF's VRAM object: 2 MiB pages, across ranges when VRAM is fragmented */
#define VM_VF_OBJ	(4u << 20)
#define VM_SYS_VA	(VM_VA + VM_VF_OBJ)
#define VM_OWN		(64u << 10)
#define VM_OWN_VA(f)	(VM_VA + (uint64_t)((f) + 1) * (64u << 20))
#define VM_MOVE_VA	(VM_VA + (1ull << 30))

struct vm_fn {
	char bdf[64];
	char name[16];
	struct vr vr;
	int fd;
	uint32_t vm, key;
	struct vdxg_bo *vram, *sys, *own;
	uint64_t vram_size;
};

static uint32_t vm_seed(unsigned int f, unsigned int k)
{
	return 0x56000 | f << 4 | k;
}

/* The pattern of SEED over SIZE bytes (pattern(), a dword at a time). */
static uint32_t *vm_pattern(uint64_t size, uint32_t seed)
{
	uint32_t *p = malloc(size);

	vtest_assert(p);
	for (uint64_t i = 0; i < size / 4; i++)
		p[i] = pattern(seed, i);
	return p;
}

static struct vdxg_bo *vm_bo(struct vm_fn *fn, uint64_t size,
			     uint32_t segment, uint32_t seed)
{
	struct vdxg_bo *bo = vr_bo(&fn->vr, size, segment, 0);
	uint32_t *want = vm_pattern(size, seed);

	memcpy(vr_map(bo), want, size);
	free(want);
	vtest_assert_ok(vdxg_bo_make_resident(bo, segment));
	vr_bo_wait(bo);
	vtest_assert_eq(vr_bo_segment(bo), segment);
	return bo;
}

/* Open function F (the PF's BDF or a VF's), with a VM and its objects. */
static void vm_fn_open(struct vm_fn *fn, const char *bdf, unsigned int f)
{
	struct vdxg_device *dev;
	int fd, ret;

	snprintf(fn->bdf, sizeof(fn->bdf), "%s", bdf);
	if (f)
		snprintf(fn->name, sizeof(fn->name), "VF %u", f - 1);
	else
		snprintf(fn->name, sizeof(fn->name), "PF");
	fd = open_node(bdf, "renderD");
	ret = vdxg_device_open_fd(fd, &dev);
	vtest_assert_f(ret == 0, "%s: vdxg_device_open_fd: %s", fn->name,
		       strerror(-ret));
	close(fd);
	vr_open_dev(&fn->vr, dev);
	fn->fd = vdxg_device_fd(dev);
	if (f)
		vtest_assert_f(get_param(fn->fd, DRM_VDXG_PARAM_CAPS) &
			       VDXG_CAP_GPU_MMU, "%s has no GPU MMU", fn->name);
	else
		vtest_require_f(get_param(fn->fd, DRM_VDXG_PARAM_CAPS) &
				VDXG_CAP_GPU_MMU, "the device has no GPU MMU");
	ret = vdxg_vm_create(dev, 0, &fn->vm);
	vtest_assert_f(ret == 0, "%s: VM_CREATE: %s", fn->name,
		       strerror(-ret));
	fn->key = vvm_key(fn->fd, fn->vm);
	vtest_info("%s (%s): VM %u has key %u\n", fn->name, bdf,
		   fn->vm, fn->key);

	fn->vram_size = f ? VM_VF_OBJ : VM_OBJ;
	fn->vram = vm_bo(fn, fn->vram_size, DRM_VDXG_SEGMENT_VRAM,
			 vm_seed(f, 0));
	fn->sys = vm_bo(fn, VM_OBJ, DRM_VDXG_SEGMENT_SYSTEM, vm_seed(f, 1));
	fn->own = vm_bo(fn, VM_OWN, DRM_VDXG_SEGMENT_VRAM, vm_seed(f, 2));
	vtest_assert_ok(vdxg_vm_map(dev, fn->vm, fn->vram, 0, VM_VA,
				    fn->vram_size, 0));
	vtest_assert_ok(vdxg_vm_map(dev, fn->vm, fn->sys, 0, VM_SYS_VA,
				    VM_OBJ, 0));
	vtest_assert_ok(vdxg_vm_map(dev, fn->vm, fn->own, 0, VM_OWN_VA(f),
				    VM_OWN, 0));
}

static void vm_fn_close(struct vm_fn *fn)
{
	vdxg_bo_free(fn->vram);
	vdxg_bo_free(fn->sys);
	vdxg_bo_free(fn->own);
	vtest_assert_ok(vdxg_vm_destroy(fn->vr.dev, fn->vm));
	vr_close(&fn->vr);
}

/* SIZE bytes at VA of FN's VM are SEED's pattern. */
static void vm_expect(struct vm_fn *fn, uint64_t va, uint64_t size,
		      uint32_t seed, const char *what)
{
	uint32_t *want = vm_pattern(size, seed);
	char w[96];

	snprintf(w, sizeof(w), "%s: %s", fn->name, what);
	vvm_expect(fn->fd, fn->key, va, want, size, w);
	free(want);
}

/* Everything FN (function F) bound reads back through its VM. */
static void vm_fn_check(struct vm_fn *fn, unsigned int f)
{
	vm_expect(fn, VM_VA, fn->vram_size, vm_seed(f, 0), "VRAM object");
	vm_expect(fn, VM_SYS_VA, VM_OBJ, vm_seed(f, 1), "system object");
	vm_expect(fn, VM_OWN_VA(f), VM_OWN, vm_seed(f, 2), "own object");
}

/* The dword of VF VRAM offset A (in M's ranges), read through the PF's BAR. */
static uint32_t vf_vram_word(const struct bar *pbar, const struct vf_map *m,
			     uint64_t a, const char *what)
{
	for (unsigned int r = 0; r < m->count; r++) {
		uint64_t pf_off = m->r[r].vram_offset + a - m->r[r].bar_offset;

		if (a < m->r[r].bar_offset ||
		    a >= m->r[r].bar_offset + m->r[r].length)
			continue;
		vtest_require_f(pf_off + 4 <= pbar->len,
				"VF VRAM beyond the PF's BAR");
		return *(volatile uint32_t *)((uint8_t *)pbar->p + pf_off);
	}
	vtest_fail("%s: VF VRAM 0x%llx is in no range", what,
		   (unsigned long long)a);
}

/*
 * VF M's object BO in VRAM lies in M's backing ranges: its GPU address is
 * inside the VF's VRAM, and its words (one every STEP and the last), read
 * through the PF's BAR at the PF VRAM offsets the ranges give for them,
 * are its pattern.
 */
static void vm_check_backing(const struct bar *pbar, const struct vf_map *m,
			     struct vdxg_bo *bo, uint32_t seed,
			     const char *what)
{
	uint64_t addr, n = bo->size / 4;
	uint32_t seg, w;

	vtest_assert_ok(vdxg_bo_info(bo, &seg, &addr));
	vtest_assert_eq(seg, DRM_VDXG_SEGMENT_VRAM);
	vtest_assert_lte_u64(addr + bo->size, m->size);
	vtest_info("%s: VF VRAM 0x%llx-0x%llx\n", what,
		   (unsigned long long)addr,
		   (unsigned long long)(addr + bo->size));
	for (uint64_t i = 0; i < n; i += STEP) {
		w = vf_vram_word(pbar, m, addr + i * 4, what);
		vtest_assert_f(w == pattern(seed, i), "%s: dword %llu is "
			       "0x%08x in PF VRAM, want 0x%08x", what,
			       (unsigned long long)i, w, pattern(seed, i));
	}
	w = vf_vram_word(pbar, m, addr + (n - 1) * 4, what);
	vtest_assert_f(w == pattern(seed, n - 1), "%s: last dword", what);
}

/* The PF's object BO in VRAM lies outside every VF's ranges. */
static void vm_check_pf_backing(const struct vf_map *m, struct vdxg_bo *bo,
				const char *what)
{
	struct range r = { .length = bo->size };
	uint32_t seg;

	vtest_assert_ok(vdxg_bo_info(bo, &seg, &r.vram_offset));
	vtest_assert_eq(seg, DRM_VDXG_SEGMENT_VRAM);
	for (unsigned int v = 0; v < NUM_VFS; v++)
		for (unsigned int i = 0; i < m[v].count; i++)
			vtest_assert_f(!overlap(&r, &m[v].r[i]),
				       "%s overlaps VF %u range %u", what, v, i);
}

/*
 * In a child: a VM on device BDF whose object, bound once, is moved
 * between every pair of segments, read back whole through the VM after
 * each move. Exits 0 when all went well.
 */
static pid_t spawn_vm_moves(const char *bdf, unsigned int f)
{
	static const uint32_t segs[] = {
		DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_SYSTEM,
		DRM_VDXG_SEGMENT_APERTURE,
	};
	struct vdxg_device *dev;
	struct vdxg_bo *bo;
	uint32_t vm, key, *want;
	struct vr vr;
	char what[64];
	pid_t pid;
	int fd;

	pid = fork();
	vtest_assert(pid >= 0);
	if (pid)
		return pid;

	fd = open_node(bdf, "renderD");
	vtest_assert_eq(vdxg_device_open_fd(fd, &dev), 0);
	close(fd);
	vr_open_dev(&vr, dev);
	fd = vdxg_device_fd(dev);
	vtest_assert_eq(vdxg_vm_create(dev, 0, &vm), 0);
	key = vvm_key(fd, vm);
	vtest_assert_eq(vdxg_bo_create(dev, VM_OBJ, segs, 3,
				       DRM_VDXG_GEM_CPU_ACCESS, &bo), 0);
	want = vm_pattern(VM_OBJ, vm_seed(f, 3));
	memcpy(vr_map(bo), want, VM_OBJ);
	vtest_assert_eq(vdxg_vm_map(dev, vm, bo, 0, VM_MOVE_VA, VM_OBJ, 0), 0);
	for (unsigned int i = 0; i < 3; i++)
		for (unsigned int j = 0; j < 3; j++) {
			if (i == j)
				continue;
			vtest_assert_eq(vdxg_bo_make_resident(bo, segs[i]), 0);
			vtest_assert_eq(vdxg_bo_make_resident(bo, segs[j]), 0);
			vr_bo_wait(bo);
			vtest_assert_eq(vr_bo_segment(bo), segs[j]);
			snprintf(what, sizeof(what), "%s: segment %u -> %u",
				 bdf, segs[i], segs[j]);
			vvm_expect(fd, key, VM_MOVE_VA, want, VM_OBJ, what);
		}
	free(want);
	vdxg_bo_free(bo);
	vtest_assert_eq(vdxg_vm_destroy(dev, vm), 0);
	vr_close(&vr);
	_exit(0);
}

/*
 * VMs on the PF and both VFs at once; with FRAGMENTED, the VFs' VRAM is
 * made of 1 MiB ranges, so that their 2 MiB pages span ranges.
 */
static void vf_vm(bool fragmented)
{
	struct vm_fn fn[VM_FNS];
	struct vf_map m[NUM_VFS];
	pid_t pid[VM_FNS];
	struct bar pbar;
	struct sriov s;
	int faults;

	sriov_begin(&s);
	if (fragmented)
		fragment(s.pf, 1 << 20);
	enable(&s, NUM_VFS);
	for (unsigned int v = 0; v < NUM_VFS; v++) {
		read_map(s.pf_fd, s.pf, v, &m[v]);
		vtest_assert_f(!fragmented || m[v].count > 1,
			       "VF %u got one range from fragmented VRAM", v);
	}
	check_disjoint(m, NUM_VFS);
	vr_ignore_dmesg(VVM_FAULT_DMESG);

	/* A VM on each function, all alive at once. */
	vm_fn_open(&fn[0], s.pf, 0);
	for (unsigned int v = 0; v < NUM_VFS; v++) {
		char vf[64];

		vf_bdf(s.pf, v, vf, sizeof(vf));
		vm_fn_open(&fn[v + 1], vf, v + 1);
	}
	/* Same addresses, each function's own bytes. */
	for (unsigned int f = 0; f < VM_FNS; f++)
		vm_fn_check(&fn[f], f);

	/* Each function's VRAM objects are in its own VRAM. */
	pbar = map_bar(s.pf, VDXG_BAR_VRAM);
	vm_check_pf_backing(m, fn[0].vram, "the PF's VRAM object");
	vm_check_pf_backing(m, fn[0].own, "the PF's own object");
	for (unsigned int v = 0; v < NUM_VFS; v++) {
		char what[64];

		snprintf(what, sizeof(what), "VF %u's VRAM object", v);
		vm_check_backing(&pbar, &m[v], fn[v + 1].vram, vm_seed(v + 1, 0),
				 what);
		snprintf(what, sizeof(what), "VF %u's own object", v);
		vm_check_backing(&pbar, &m[v], fn[v + 1].own, vm_seed(v + 1, 2),
				 what);
	}
	unmap_bar(&pbar);

	/*
	 * An address one function maps faults in every other's address
	 * space of the same id and in theirs.
	 */
	vtest_assert_eq(vtest_kmsg_problems(s.seq), 0);
	for (unsigned int f = 0; f < VM_FNS; f++)
		for (unsigned int g = 0; g < VM_FNS; g++) {
			if (f == g)
				continue;
			vvm_expect_fault(fn[g].fd, fn[g].key, VM_OWN_VA(f));
			if (fn[f].key != fn[g].key)
				vvm_expect_fault(fn[g].fd, fn[f].key,
						 VM_OWN_VA(f));
		}
	faults = vtest_kmsg_grep(s.seq, "fault: not present, opcode 0x0d");
	vtest_assert_f(faults > 0, "no fault logged for the unmapped reads");
	/* Those faults are the only errors logged. */
	s.seq = vtest_kmsg_seq();
	/* ... and each function's VM still reads as it did. */
	for (unsigned int f = 0; f < VM_FNS; f++)
		vm_fn_check(&fn[f], f);

	/* Moves of bound objects on the three functions at once. */
	for (unsigned int f = 0; f < VM_FNS; f++)
		pid[f] = spawn_vm_moves(fn[f].bdf, f);
	for (unsigned int f = 0; f < VM_FNS; f++) {
		int st;

		vtest_assert_eq(waitpid(pid[f], &st, 0), pid[f]);
		vtest_assert_f(WIFEXITED(st) && WEXITSTATUS(st) == 0,
			       "%s: moves of a bound object failed (status "
			       "%d)", fn[f].name, st);
	}
	for (unsigned int f = 0; f < VM_FNS; f++) {
		vm_fn_check(&fn[f], f);
		vm_fn_close(&fn[f]);
	}
	if (fragmented) {
		reset_vfs(s.pf);
		fragment(s.pf, 0);
	}
	sriov_end(&s);
}

static void test_vf_vm(void)
{
	vf_vm(false);
}

static void test_vf_vm_fragmented(void)
{
	vf_vm(true);
}

static const struct vtest_subtest tests[] = {
	{ "enable-disable", test_enable_disable,
	  "2 VFs bind as render-only vdxg devices with their VRAM taken from "
	  "the PF's; disabling removes them and returns it" },
	{ "backing-query", test_backing_query,
	  "GET_BACKING_RESOURCE: ranges laid end to end, disjoint, in PF VRAM, "
	  "zeros when unused, and its errnos" },
	{ "bar-layout", test_bar_layout,
	  "each VF BAR is its ranges in order: bytes through the VF BAR are "
	  "the PF's VRAM at the reported offsets, both ways" },
	{ "fragmented", test_fragmented,
	  "fragmented PF VRAM gives multi-range VF BARs whose content is "
	  "right, and both VFs then render and page correctly" },
	{ "render-paging", test_render_paging,
	  "render and paging tests on 2 VFs at once, results verified" },
	{ "isolation", test_isolation,
	  "work on one VF leaves another VF's memory and the PF's objects "
	  "untouched" },
	{ "disable-busy", test_disable_busy,
	  "disabling VFs with clients open and a job running: ENODEV for "
	  "them, no warning, memory back" },
	{ "too-many-ranges", test_too_many_ranges,
	  "a VF that would need more than 32 ranges is refused with E2BIG and "
	  "nothing is left provisioned" },
	{ "resizable-bar", test_resizable_bar,
	  "the PF's VRAM BAR is resized to all of VRAM (preferred option)" },
	{ "scrub", test_scrub,
	  "PF memory reaches a VF zeroed, and a VF's memory goes back "
	  "zeroed" },
	{ "vf-present-fb", test_vf_present_fb,
	  "PRESENT with a framebuffer on a VF: EOPNOTSUPP" },
	{ "vf-vm", test_vf_vm,
	  "GPU VMs on the PF and 2 VFs at once: each reads its own objects "
	  "at the same addresses, faults at the others', keeps its VRAM "
	  "objects in its own VRAM, and moves bound objects" },
	{ "vf-vm-fragmented", test_vf_vm_fragmented,
	  "vf-vm with the VFs' VRAM in 1 MiB ranges: their 2 MiB pages span "
	  "ranges" },
};

VTEST_MAIN(tests)
