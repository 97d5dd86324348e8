// SPDX-License-Identifier: MIT
/*
 * vdxg_module: load/unload, unbind/bind and remove/rescan of vdxg, checking
 * that nothing leaks or warns and that open file descriptors survive the
 * device going away.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <drm.h>
#include "vdxg_drm.h"

#define BIT(n)		(1u << (n))
#define BIT_ULL(n)	(1ull << (n))
#include "vdxg_hw.h"

#include "vtest.h"
#include "vrender.h"
#include "vvm.h"

#define RELOAD_CYCLES	20
/*
 * On the debug kernel, fewer, and no slab limit: there the kmemleak scan
 * at the end of the boot is the leak check (any size), and Slab grows
 * without a leak, by KASAN's quarantine of freed objects (up to 1/32 of
 * memory) and the kmemleak and DEBUG_OBJECTS metadata of every object
 * (1284 KiB over 19 cycles once); each cycle there takes seconds.
 */
#define RELOAD_CYCLES_DEBUG	6

/*
 * Slab growth allowed between the end of the first and of the last of the
 * load/unload cycles, measured after dropping the dentry and inode caches.
 *
 * Baseline: the same loop over bochs (which, like vdxg, takes the whole DRM
 * module stack down and up with it) grew Slab by 344 KiB over 19 cycles in
 * this guest: the module loader's and kernfs' caches keep partly used slabs,
 * per CPU. 1 MiB leaves three times that headroom, and is still exceeded
 * by any leak of 55 KiB or more per cycle: a leaked drm_device with its
 * minors, sysfs and debugfs trees, or any leaked buffer or table. Smaller
 * leaks of the device or its minors are caught by the minor-number,
 * debugfs and /proc/interrupts checks instead.
 */
#define SLAB_TOLERANCE_KIB	1024

struct dev_state {
	char bdf[64];
	int card_minor;		/* -1 when absent */
	int render_minor;
};

static const char *vdxg_bdf(char *buf, size_t len)
{
	if (!vtest_pci_find(VDXG_PCI_VENDOR_ID, VDXG_PCI_DEVICE_ID, buf, len))
		vtest_skip("no vdxg PCI device (1234:d3d0)");
	return buf;
}

static bool module_loaded(void)
{
	return vtest_path_exists("/sys/module/vdxg");
}

static void require_module(void)
{
	vtest_require_f(vtest_system("modinfo vdxg >/dev/null 2>&1") == 0,
			"vdxg.ko is not installed in the guest");
}

static void load(void)
{
	int ret = vtest_system("modprobe vdxg");

	vtest_assert_f(ret == 0, "modprobe vdxg exited %d", ret);
	vtest_assert(module_loaded());
}

static void unload(void)
{
	int ret = vtest_system("modprobe -r vdxg");

	vtest_assert_f(ret == 0, "modprobe -r vdxg exited %d", ret);
	vtest_assert(!module_loaded());
}

/* The minors of the card and render nodes of BDF, from sysfs. */
static void read_state(const char *bdf, struct dev_state *s)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir;

	snprintf(s->bdf, sizeof(s->bdf), "%s", bdf);
	s->card_minor = s->render_minor = -1;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/drm", bdf);
	dir = opendir(path);
	if (!dir)
		return;
	while ((de = readdir(dir))) {
		char dev[PATH_MAX + 300], val[32];
		unsigned int maj, min;

		if (strncmp(de->d_name, "card", 4) &&
		    strncmp(de->d_name, "renderD", 7))
			continue;
		/* card0-Virtual-1 style connector directories have no dev */
		snprintf(dev, sizeof(dev), "%s/%s/dev", path, de->d_name);
		if (vtest_read_file(dev, val, sizeof(val)) < 0 ||
		    sscanf(val, "%u:%u", &maj, &min) != 2)
			continue;
		if (de->d_name[0] == 'c')
			s->card_minor = (int)min;
		else
			s->render_minor = (int)min;
	}
	closedir(dir);
}

static bool driver_bound(const char *bdf)
{
	char link[PATH_MAX], target[PATH_MAX], *base;
	ssize_t n;

	snprintf(link, sizeof(link), "/sys/bus/pci/devices/%s/driver", bdf);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	base = strrchr(target, '/');
	return !strcmp(base ? base + 1 : target, "vdxg");
}

static bool dev_node_exists(const char *prefix, int minor)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/dri/%s%d", prefix, minor);
	return vtest_path_exists(path);
}

/* Entries of /sys/kernel/debug/dri, as a sorted space-separated list. */
static void debugfs_dri(char *buf, size_t len)
{
	vtest_system_output(buf, len,
			    "ls /sys/kernel/debug/dri 2>/dev/null | sort | tr '\\n' ' '");
}

static int vdxg_irq_lines(void)
{
	char out[64];

	vtest_system_output(out, sizeof(out),
			    "grep -cE ' vdxg$' /proc/interrupts");
	return atoi(out);
}

static long meminfo_kib(const char *key)
{
	char out[64];

	vtest_system_output(out, sizeof(out),
			    "awk '$1 == \"%s:\" { print $2 }' /proc/meminfo", key);
	return atol(out);
}

/* Slab after dropping reclaimable caches, in KiB. */
static long slab_kib(void)
{
	sync();
	vtest_write_file("/proc/sys/vm/drop_caches", "2");
	return meminfo_kib("Slab");
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Wait up to 10 s for the device's card node to appear, bound to vdxg. */
static void wait_bound(const char *bdf, struct dev_state *s)
{
	int i;

	for (i = 0; i < 200; i++) {
		read_state(bdf, s);
		if (driver_bound(bdf) && s->card_minor >= 0 &&
		    dev_node_exists("card", s->card_minor))
			return;
		sleep_ms(50);
	}
	vtest_fail("%s: no vdxg card after 10 s (bound %d, card minor %d)",
		   bdf, driver_bound(bdf), s->card_minor);
}

static void assert_no_kernel_problems(uint64_t since)
{
	int n = vtest_kmsg_problems(since);

	vtest_assert_f(n == 0, "%d new kernel log problem(s), listed above", n);
}

static void test_reload(void)
{
	char bdf[64], dbg_base[4096], dbg[4096], dbg_loaded[4096];
	struct dev_state first = { .card_minor = -1 }, s;
	long slab_first = 0, slab_last;
	int i, cycles = vtest_debug_kernel() ? RELOAD_CYCLES_DEBUG : RELOAD_CYCLES;
	uint64_t seq;

	vdxg_bdf(bdf, sizeof(bdf));
	require_module();
	if (module_loaded())
		unload();

	seq = vtest_kmsg_seq();
	debugfs_dri(dbg_base, sizeof(dbg_base));
	vtest_assert_eq(vdxg_irq_lines(), 0);

	for (i = 0; i < cycles; i++) {
		vtest_kmsg_mark("vdxg_module reload cycle %d", i);
		load();
		read_state(bdf, &s);
		vtest_assert_f(driver_bound(bdf), "cycle %d: %s not bound to vdxg",
			       i, bdf);
		vtest_assert_f(s.card_minor >= 0 && s.render_minor >= 0,
			       "cycle %d: card minor %d, render minor %d", i,
			       s.card_minor, s.render_minor);
		vtest_assert(dev_node_exists("card", s.card_minor));
		vtest_assert(dev_node_exists("renderD", s.render_minor));
		if (i == 0) {
			first = s;
			vtest_info("card minor %d, render minor %d",
				   s.card_minor, s.render_minor);
		}
		/* A leaked drm_minor would move the next device's minors. */
		vtest_assert_eq(s.card_minor, first.card_minor);
		vtest_assert_eq(s.render_minor, first.render_minor);

		/* The device works: GET_PARAM through a freshly opened node. */
		{
			struct drm_vdxg_get_param gp = {
				.param = DRM_VDXG_PARAM_DEVICE_ID,
			};
			int fd = vtest_drm_open_driver("vdxg", VTEST_NODE_RENDER,
							NULL);

			vtest_assert_f(fd >= 0, "cycle %d: no vdxg render node", i);
			vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_VDXG_GET_PARAM, &gp));
			vtest_assert_eq_u64(gp.value, VDXG_PCI_DEVICE_ID);
			close(fd);
		}

		debugfs_dri(dbg_loaded, sizeof(dbg_loaded));
		vtest_assert_f(strcmp(dbg_loaded, dbg_base),
			       "cycle %d: no new debugfs dri entry (%s)", i,
			       dbg_loaded);
		vtest_assert_f(vdxg_irq_lines() > 0,
			       "cycle %d: no vdxg line in /proc/interrupts", i);

		unload();
		read_state(bdf, &s);
		vtest_assert_f(!driver_bound(bdf), "cycle %d: still bound", i);
		vtest_assert_eq(s.card_minor, -1);
		vtest_assert(!dev_node_exists("card", first.card_minor));
		vtest_assert(!dev_node_exists("renderD", first.render_minor));
		debugfs_dri(dbg, sizeof(dbg));
		vtest_assert_f(!strcmp(dbg, dbg_base),
			       "cycle %d: debugfs dri is '%s', was '%s'", i,
			       dbg, dbg_base);
		vtest_assert_f(vdxg_irq_lines() == 0,
			       "cycle %d: vdxg lines left in /proc/interrupts", i);
		assert_no_kernel_problems(seq);

		if (i == 0)
			slab_first = slab_kib();
	}
	slab_last = slab_kib();
	vtest_info("Slab after cycle 1: %ld KiB, after cycle %d: %ld KiB (%+ld)",
		   slab_first, cycles, slab_last, slab_last - slab_first);
	vtest_assert_f(vtest_debug_kernel() ||
		       slab_last - slab_first <= SLAB_TOLERANCE_KIB,
		       "Slab grew by %ld KiB over %d cycles (limit %d KiB)",
		       slab_last - slab_first, cycles - 1,
		       SLAB_TOLERANCE_KIB);

	/* Leave the module loaded, as the harness had it. */
	load();
	wait_bound(bdf, &s);
	assert_no_kernel_problems(seq);
}

/* Hotplug helpers: put the device back whatever the subtest did. */
static char restore_bdf[64];

static void restore_device(void)
{
	char path[PATH_MAX];

	if (!restore_bdf[0])
		return;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", restore_bdf);
	if (!vtest_path_exists(path))
		vtest_write_file("/sys/bus/pci/rescan", "1");
	if (!driver_bound(restore_bdf))
		vtest_write_file("/sys/bus/pci/drivers/vdxg/bind", restore_bdf);
}

static void check_fd_dead(int fd, const char *what)
{
	struct drm_vdxg_get_param gp = { .param = DRM_VDXG_PARAM_DEVICE_ID };
	char name[64];

	vtest_info("ioctls on the old %s fd", what);
	vtest_assert_errno(vtest_ioctl(fd, DRM_IOCTL_VDXG_GET_PARAM, &gp), ENODEV);
	vtest_assert(!vtest_drm_driver_name(fd, name, sizeof(name)) &&
		     errno == ENODEV);
}

static void check_fd_alive(int fd)
{
	struct drm_vdxg_get_param gp = { .param = DRM_VDXG_PARAM_DEVICE_ID };

	vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_VDXG_GET_PARAM, &gp));
	vtest_assert_eq_u64(gp.value, VDXG_PCI_DEVICE_ID);
}

enum unplug { UNPLUG_UNBIND, UNPLUG_REMOVE };

#define OBJ_SIZE	(1 << 20)

/*
 * With a GPU MMU, two VMs with the objects mapped stay open across the
 * unplug too: closing the file afterwards unmaps them and tears their
 * paging queues down on a device that is gone (the paging scheduler, the
 * AS table and the registers must not be used then).
 */
static void make_vms(int fd, const uint32_t *handles, unsigned int n)
{
	unsigned int v, i;

	for (v = 0; v < 2; v++) {
		struct drm_vdxg_vm_create c = {};
		struct drm_vdxg_vm_bind_op op[3];
		struct drm_vdxg_vm_bind b = {};

		vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_VDXG_VM_CREATE, &c));
		memset(op, 0, sizeof(op));
		for (i = 0; i < n; i++) {
			op[i].op = DRM_VDXG_VM_BIND_OP_MAP;
			op[i].handle = handles[i];
			op[i].va = (1ull << 30) + i * OBJ_SIZE;
			op[i].range = OBJ_SIZE;
		}
		b.vm_id = c.vm_id;
		b.num_ops = n;
		b.ops = (uintptr_t)op;
		vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_VDXG_VM_BIND, &b));
	}
	vtest_info("two VMs with the three objects mapped");
}

/*
 * With a memory manager, leave one object in each segment and a CPU
 * mapping of the system one across the unplug. Returns the mapping or NULL.
 */
static void *make_objects(int fd)
{
	static const uint32_t segs[] = {
		DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_APERTURE,
		DRM_VDXG_SEGMENT_SYSTEM,
	};
	struct drm_vdxg_get_param gp = { .param = DRM_VDXG_PARAM_CAPS };
	struct drm_vdxg_gem_mmap_offset mo = {};
	uint32_t *p, handles[3];
	unsigned int i;

	vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_VDXG_GET_PARAM, &gp));
	if (!(gp.value & VDXG_CAP_PAGING))
		return NULL;

	for (i = 0; i < VTEST_ARRAY_SIZE(segs); i++) {
		struct drm_vdxg_gem_create c = {
			.size = OBJ_SIZE, .num_segments = 1,
			.segments = { segs[i] },
		};

		vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_VDXG_GEM_CREATE, &c));
		mo.handle = c.handle;
		handles[i] = c.handle;
	}
	if (gp.value & VDXG_CAP_GPU_MMU)
		make_vms(fd, handles, VTEST_ARRAY_SIZE(segs));
	vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_VDXG_GEM_MMAP_OFFSET, &mo));
	p = mmap(NULL, OBJ_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 mo.offset);
	vtest_assert_f(p != MAP_FAILED, "mmap: %s", strerror(errno));
	p[0] = 0x12345678;
	vtest_info("objects in VRAM, aperture and system; system one mapped");
	return p;
}

static void hotplug_open_fd(enum unplug how)
{
	char bdf[64], path[PATH_MAX];
	struct dev_state s;
	int card, render, fd, ret;
	uint32_t *map;
	uint64_t seq;

	vdxg_bdf(bdf, sizeof(bdf));
	require_module();
	if (!module_loaded())
		load();
	wait_bound(bdf, &s);
	snprintf(restore_bdf, sizeof(restore_bdf), "%s", bdf);
	atexit(restore_device);

	seq = vtest_kmsg_seq();
	card = vtest_open_vdxg(VTEST_NODE_CARD);
	render = vtest_open_vdxg(VTEST_NODE_RENDER);
	check_fd_alive(card);
	check_fd_alive(render);
	map = make_objects(render);

	if (how == UNPLUG_UNBIND) {
		vtest_info("unbind %s", bdf);
		ret = vtest_write_file("/sys/bus/pci/drivers/vdxg/unbind", bdf);
		vtest_assert_f(ret == 0, "unbind: %s", strerror(-ret));
		vtest_assert(!driver_bound(bdf));
	} else {
		vtest_info("remove %s", bdf);
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/remove", bdf);
		ret = vtest_write_file(path, "1");
		vtest_assert_f(ret == 0, "remove: %s", strerror(-ret));
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", bdf);
		vtest_assert(!vtest_path_exists(path));
	}
	vtest_assert(!dev_node_exists("card", s.card_minor));

	check_fd_dead(card, "card");
	check_fd_dead(render, "render");
	close(card);
	if (map) {
		/*
		 * Unplug zapped the mapping; it now faults in TTM's dummy
		 * page: readable and writable, zero, and not the object.
		 */
		vtest_assert_eq_u64(*(volatile uint32_t *)map, 0);
		map[1] = 1;
		munmap(map, OBJ_SIZE);
	}
	assert_no_kernel_problems(seq);

	if (how == UNPLUG_UNBIND) {
		vtest_info("bind %s", bdf);
		ret = vtest_write_file("/sys/bus/pci/drivers/vdxg/bind", bdf);
		vtest_assert_f(ret == 0, "bind: %s", strerror(-ret));
	} else {
		vtest_info("rescan");
		ret = vtest_write_file("/sys/bus/pci/rescan", "1");
		vtest_assert_f(ret == 0, "rescan: %s", strerror(-ret));
	}
	wait_bound(bdf, &s);

	fd = vtest_open_vdxg(VTEST_NODE_CARD);
	check_fd_alive(fd);
	close(fd);
	fd = vtest_open_vdxg(VTEST_NODE_RENDER);
	check_fd_alive(fd);
	close(fd);
	/*
	 * The old render fd still holds its VMs on the unplugged device:
	 * a victim on the new one is served as usual (issue 25's hostile
	 * matrix), then the old VMs go, after the unplug.
	 */
	vvm_victim("unplug with VMs open");
	close(render);
	assert_no_kernel_problems(seq);
}

static void test_unbind_bind_open_fd(void)
{
	hotplug_open_fd(UNPLUG_UNBIND);
}

static void test_remove_rescan_open_fd(void)
{
	hotplug_open_fd(UNPLUG_REMOVE);
}

static const struct vtest_subtest tests[] = {
	{ "reload", test_reload,
	  "20 load/unload cycles (6 on the debug kernel): card appears and "
	  "goes, driver binds, same minors, debugfs and IRQs released, no "
	  "warnings, no slab growth (kmemleak's scan on the debug kernel)" },
	{ "unbind-bind-open-fd", test_unbind_bind_open_fd,
	  "unbind with card and render fds open: old fds get ENODEV, bind "
	  "back gives a working device" },
	{ "remove-rescan-open-fd", test_remove_rescan_open_fd,
	  "PCI remove with fds open: old fds get ENODEV, rescan brings the "
	  "device back" },
};

VTEST_MAIN(tests)
