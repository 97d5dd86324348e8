// SPDX-License-Identifier: MIT
/*
 * vdxg_getparam: DRM_IOCTL_VDXG_GET_PARAM against the device's configuration.
 *
 * scripts/vm.sh passes each QEMU device property as vdxg_test.PROP=VALUE on
 * the kernel command line (sizes in bytes), so the expected values come
 * from /proc/cmdline, with the device's defaults when a property is absent.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <drm.h>
#include "vdxg_drm.h"

#define BIT(n)		(1u << (n))
#define BIT_ULL(n)	(1ull << (n))
#include "vdxg_hw.h"

#include "vtest.h"

static int get_param(int fd, uint32_t param, uint64_t *value)
{
	struct drm_vdxg_get_param gp = { .param = param };
	int ret;

	ret = vtest_ioctl(fd, DRM_IOCTL_VDXG_GET_PARAM, &gp);
	if (!ret && value)
		*value = gp.value;
	return ret;
}

static uint64_t param(int fd, uint32_t p)
{
	uint64_t v = 0;

	vtest_assert_ok(get_param(fd, p, &v));
	return v;
}

static bool expect_msix(void)
{
	return vtest_cmdline_bool("vdxg_test.msix", true);
}

static bool expect_msi(void)
{
	return vtest_cmdline_bool("vdxg_test.msi", true);
}

static void test_version(void)
{
	char name[64];
	int fd;

	fd = vtest_open_vdxg(VTEST_NODE_CARD);
	vtest_assert(vtest_drm_driver_name(fd, name, sizeof(name)));
	vtest_assert_str_eq(name, "vdxg");
	close(fd);

	fd = vtest_open_vdxg(VTEST_NODE_RENDER);
	vtest_assert(vtest_drm_driver_name(fd, name, sizeof(name)));
	vtest_assert_str_eq(name, "vdxg");
	close(fd);
}

/* A hexadecimal PCI sysfs attribute (device, revision) of FD's device. */
static unsigned long pci_attr(int fd, const char *attr)
{
	char bdf[64], path[256], buf[32];

	vtest_assert(vtest_drm_pci_bdf(fd, bdf, sizeof(bdf)));
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", bdf, attr);
	vtest_assert(vtest_read_file(path, buf, sizeof(buf)) > 0);
	return strtoul(buf, NULL, 16);
}

static void test_device_id(void)
{
	int fd = vtest_open_vdxg(VTEST_NODE_CARD);

	vtest_assert_eq_u64(param(fd, DRM_VDXG_PARAM_DEVICE_ID),
			    VDXG_PCI_DEVICE_ID);
	vtest_assert_eq_u64(param(fd, DRM_VDXG_PARAM_DEVICE_ID),
			    pci_attr(fd, "device"));
	close(fd);
}

static void test_revision(void)
{
	int fd = vtest_open_vdxg(VTEST_NODE_CARD);

	vtest_assert_eq_u64(param(fd, DRM_VDXG_PARAM_REVISION),
			    VDXG_PCI_REVISION);
	vtest_assert_eq_u64(param(fd, DRM_VDXG_PARAM_REVISION),
			    pci_attr(fd, "revision"));
	close(fd);
}

static void test_hw_version(void)
{
	int fd = vtest_open_vdxg(VTEST_NODE_CARD);

	vtest_assert_eq_u64(param(fd, DRM_VDXG_PARAM_HW_VERSION) >> 16,
			    VDXG_VERSION_MAJOR);
	close(fd);
}

static void test_vram_size(void)
{
	uint64_t expect = vtest_cmdline_u64("vdxg_test.vram-size",
					    VDXG_VRAM_SIZE_DEFAULT);
	int fd = vtest_open_vdxg(VTEST_NODE_CARD);

	vtest_info("expected VRAM size %llu bytes", (unsigned long long)expect);
	vtest_assert_eq_u64(param(fd, DRM_VDXG_PARAM_VRAM_SIZE), expect);
	close(fd);
}

/* BAR N's size from /sys/bus/pci/devices/BDF/resource (line N). */
static uint64_t bar_size(const char *bdf, int bar)
{
	unsigned long long start, end, flags;
	char path[256], buf[4096], *line;
	int i;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource", bdf);
	vtest_assert(vtest_read_file(path, buf, sizeof(buf)) > 0);
	line = buf;
	for (i = 0; i < bar && line; i++) {
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	vtest_assert_f(line, "%s has no line %d", path, bar);
	vtest_assert(sscanf(line, "%llx %llx %llx", &start, &end, &flags) == 3);
	vtest_assert_f(start != 0 && end > start,
		       "BAR%d of %s is not assigned: %s", bar, bdf, line);
	return end - start + 1;
}

/*
 * The option the driver's VRAM BAR resource descriptor was assigned with,
 * from debugfs "resources" (blocks "[n] NAME", "\toption: O", and
 * "\tassigned: 0x..." for the one that was taken).
 */
static void vram_bar_option(int fd, char *opt, size_t len)
{
	static char buf[1 << 15];
	char path[256], cur[32] = "";
	bool vram = false;
	char *line, *save;

	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/resources",
		 vtest_drm_minor(fd));
	vtest_assert_f(vtest_read_file(path, buf, sizeof(buf)) > 0,
		       "cannot read %s", path);
	opt[0] = '\0';
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '[')
			vram = strstr(line, "VRAM");
		else if (vram && sscanf(line, "\toption: %31s", cur) == 1)
			continue;
		else if (vram && !strncmp(line, "\tassigned: 0x",
					  strlen("\tassigned: 0x")))
			snprintf(opt, len, "%s", cur);
	}
	vtest_assert_f(opt[0], "no assigned VRAM BAR descriptor in %s", path);
}

static void test_vram_visible_size(void)
{
	uint64_t visible, vram, bar;
	char bdf[64], opt[32];
	int fd = vtest_open_vdxg(VTEST_NODE_CARD);

	vtest_assert(vtest_drm_pci_bdf(fd, bdf, sizeof(bdf)));
	visible = param(fd, DRM_VDXG_PARAM_VRAM_VISIBLE_SIZE);
	vram = param(fd, DRM_VDXG_PARAM_VRAM_SIZE);
	bar = bar_size(bdf, VDXG_BAR_VRAM);
	vtest_info("BAR%d of %s: %llu bytes", VDXG_BAR_VRAM, bdf,
		   (unsigned long long)bar);
	vtest_assert_eq_u64(visible, bar);
	vtest_assert_lte_u64(visible, vram);

	/*
	 * On PCI Express the BAR is resizable (unless vdxg_test.rebar=off):
	 * the driver's preferred option, all of VRAM, is what it gets here;
	 * without the capability, the alternative: the BAR as it came up, a
	 * 64 MiB window.
	 */
	vram_bar_option(fd, opt, sizeof(opt));
	vtest_info("VRAM BAR: %s option\n", opt);
	if (vtest_cmdline_bool("vdxg_test.rebar", true)) {
		vtest_assert_eq_u64(visible, vram);
		vtest_assert_str_eq(opt, "preferred");
	} else {
		vtest_assert_eq_u64(visible, vram < (64 << 20) ? vram : 64 << 20);
		vtest_assert_str_eq(opt, "alternative");
	}
	close(fd);
}

static void test_aperture_size(void)
{
	uint64_t expect = vtest_cmdline_u64("vdxg_test.aperture-size",
					    VDXG_APERTURE_SIZE_DEFAULT);
	int fd = vtest_open_vdxg(VTEST_NODE_CARD);

	vtest_assert_eq_u64(param(fd, DRM_VDXG_PARAM_APERTURE_SIZE), expect);
	close(fd);
}

static void test_engines(void)
{
	int fd = vtest_open_vdxg(VTEST_NODE_CARD);
	uint64_t engines = param(fd, DRM_VDXG_PARAM_ENGINES);

	vtest_info("engines 0x%llx", (unsigned long long)engines);
	vtest_assert_eq_u64(engines & ~((1ull << VDXG_NUM_ENGINES) - 1), 0);
	close(fd);
}

static void test_caps(void)
{
	int fd = vtest_open_vdxg(VTEST_NODE_CARD);
	uint64_t caps = param(fd, DRM_VDXG_PARAM_CAPS);

	vtest_info("caps 0x%llx", (unsigned long long)caps);
	/* Only the bits docs/hardware.md defines. */
	vtest_assert_eq_u64(caps & ~(uint64_t)(VDXG_CAP_3D * 2 - 1), 0);
	vtest_assert_eq_u64(!!(caps & VDXG_CAP_MSIX), expect_msix());
	vtest_assert_neq_u64(caps & VDXG_CAP_SELFTEST, 0);
	/* Every vdxg function, PF or VF, has the GPU MMU. */
	vtest_assert_neq_u64(caps & VDXG_CAP_GPU_MMU, 0);
	close(fd);
}

static void test_num_crtcs(void)
{
	int fd = vtest_open_vdxg(VTEST_NODE_CARD);

	vtest_assert_lte_u64(param(fd, DRM_VDXG_PARAM_NUM_CRTCS),
			     VDXG_MAX_CRTCS);
	close(fd);
}

/* Lines of /proc/interrupts for vdxg whose controller contains TYPE. */
static int count_irqs(const char *type)
{
	char out[4096];
	int n;

	vtest_system_output(out, sizeof(out),
			    "grep -E ' vdxg$' /proc/interrupts | grep -c -- '%s'",
			    type);
	n = atoi(out);
	return n;
}

static void test_irq_mode(void)
{
	int fd = vtest_open_vdxg(VTEST_NODE_CARD);
	uint64_t mode = param(fd, DRM_VDXG_PARAM_IRQ_MODE);
	uint64_t expect;
	char irqs[4096];

	if (expect_msix())
		expect = DRM_VDXG_IRQ_MODE_MSIX;
	else if (expect_msi())
		expect = DRM_VDXG_IRQ_MODE_MSI;
	else
		expect = DRM_VDXG_IRQ_MODE_INTX;

	vtest_system_output(irqs, sizeof(irqs),
			    "grep -E ' vdxg$' /proc/interrupts");
	vtest_info("IRQ mode %llu (expected %llu); /proc/interrupts:\n%s",
		   (unsigned long long)mode, (unsigned long long)expect, irqs);
	vtest_assert_eq_u64(mode, expect);

	switch (expect) {
	case DRM_VDXG_IRQ_MODE_MSIX:
		vtest_assert_eq(count_irqs("PCI-MSIX"), VDXG_MSIX_VECTORS);
		break;
	case DRM_VDXG_IRQ_MODE_MSI:
		vtest_assert_eq(count_irqs("PCI-MSI-"), 1);
		vtest_assert_eq(count_irqs("PCI-MSIX"), 0);
		break;
	default:
		vtest_assert_eq(count_irqs("IO-APIC"), 1);
		vtest_assert_eq(count_irqs("PCI-MSI"), 0);
		break;
	}
	close(fd);
}

/* MemTotal of /proc/meminfo, bytes: the kernel's totalram_pages(). */
static uint64_t mem_total(void)
{
	unsigned long long kb = 0;
	char line[256];
	FILE *f = fopen("/proc/meminfo", "r");

	vtest_assert_f(f, "/proc/meminfo: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
			break;
	fclose(f);
	vtest_assert_f(kb, "no MemTotal in /proc/meminfo");
	return (uint64_t)kb << 10;
}

static void test_commit_limit(void)
{
	uint64_t expect = vtest_cmdline_u64("vdxg.commit_limit_mb", 0) << 20;
	int fd = vtest_open_vdxg(VTEST_NODE_CARD);

	if (!expect)
		expect = mem_total() / 2;
	vtest_assert_eq_u64(param(fd, DRM_VDXG_PARAM_COMMIT_LIMIT), expect);
	close(fd);
}

/* The 3D pipeline's limits, by parameter: docs/hardware.md's. */
static const struct {
	uint32_t param;
	uint64_t value;
} limits_3d[] = {
	{ DRM_VDXG_PARAM_3D_MAX_INSTRUCTIONS, VDXG_3D_MAX_INSTRUCTIONS },
	{ DRM_VDXG_PARAM_3D_MAX_IMMEDIATES, VDXG_3D_MAX_IMMEDIATES },
	{ DRM_VDXG_PARAM_3D_MAX_TEMPS, VDXG_3D_NUM_TEMPS },
	{ DRM_VDXG_PARAM_3D_MAX_CONSTANTS, VDXG_3D_NUM_CONSTS },
	{ DRM_VDXG_PARAM_3D_MAX_NESTING, VDXG_3D_MAX_NESTING },
	{ DRM_VDXG_PARAM_3D_MAX_STEPS, VDXG_3D_MAX_STEPS },
	{ DRM_VDXG_PARAM_3D_TEXTURE_UNITS, VDXG_3D_NUM_UNITS },
	{ DRM_VDXG_PARAM_3D_VERTEX_BUFFERS, VDXG_3D_NUM_VBS },
	{ DRM_VDXG_PARAM_3D_VERTEX_ELEMENTS, VDXG_3D_NUM_ELEMENTS },
	{ DRM_VDXG_PARAM_3D_MAX_VERTEX_STRIDE, VDXG_3D_MAX_STRIDE },
	{ DRM_VDXG_PARAM_3D_VARYINGS, VDXG_3D_NUM_VARYINGS },
	{ DRM_VDXG_PARAM_3D_MAX_TEXTURE_SIZE, VDXG_TEX_MAX_DIM },
	{ DRM_VDXG_PARAM_3D_MAX_TEXTURE_LEVELS, VDXG_TEX_MAX_LEVELS },
};

/*
 * SUBMIT of one 3D command (SET_STATE of RASTER = 0, valid as it stands)
 * on a new RENDER context: its result.
 */
static int submit_set_state(int fd)
{
	struct drm_vdxg_context_create cc = {
		.engine = DRM_VDXG_ENGINE_RENDER,
	};
	uint32_t cmds[3] = {
		VDXG_PG_HDR(VDXG_RD_SET_STATE, VDXG_RD_SET_STATE_LEN(1)),
		VDXG_3D_RASTER, 0,
	};
	struct drm_vdxg_submit sub = {
		.commands = (uintptr_t)cmds,
		.command_size = sizeof(cmds),
	};
	struct drm_vdxg_context_destroy cd = {};
	int ret;

	vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_VDXG_CONTEXT_CREATE, &cc));
	sub.ctx_id = cc.ctx_id;
	ret = vtest_ioctl(fd, DRM_IOCTL_VDXG_SUBMIT, &sub);
	cd.ctx_id = cc.ctx_id;
	vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_VDXG_CONTEXT_DESTROY, &cd));
	return ret;
}

/*
 * PARAM_3D is CAPS' VDXG_CAP_3D. With it the limits are the hardware's;
 * without it they read 0 and SUBMIT refuses a 3D command with EINVAL.
 */
static void test_3d(void)
{
	int fd = vtest_open_vdxg(VTEST_NODE_CARD);
	uint64_t has = param(fd, DRM_VDXG_PARAM_3D);
	size_t i;

	vtest_info("3D pipeline: %s", has ? "yes" : "no");
	vtest_assert_eq_u64(has, !!(param(fd, DRM_VDXG_PARAM_CAPS) &
				   VDXG_CAP_3D));
	for (i = 0; i < VTEST_ARRAY_SIZE(limits_3d); i++) {
		vtest_info("param %u", limits_3d[i].param);
		vtest_assert_eq_u64(param(fd, limits_3d[i].param),
				    has ? limits_3d[i].value : 0);
	}
	if (!has && (param(fd, DRM_VDXG_PARAM_ENGINES) & 1))
		vtest_assert_errno(submit_set_state(fd), EINVAL);
	close(fd);
}

static void test_invalid_param(void)
{
	static const uint32_t bad[] = { 0,
					DRM_VDXG_PARAM_3D_MAX_TEXTURE_LEVELS + 1,
					0x7fffffff, 0xffffffff };
	int fd = vtest_open_vdxg(VTEST_NODE_CARD);
	size_t i;

	for (i = 0; i < VTEST_ARRAY_SIZE(bad); i++) {
		struct drm_vdxg_get_param gp = {
			.param = bad[i],
			.value = 0x5a5a5a5a5a5a5a5aull,
		};

		vtest_info("param 0x%x", bad[i]);
		vtest_assert_errno(vtest_ioctl(fd, DRM_IOCTL_VDXG_GET_PARAM, &gp),
				   EINVAL);
	}
	close(fd);
}

static void test_invalid_pad(void)
{
	static const uint32_t pads[] = { 1, 0x80000000, 0xffffffff };
	int fd = vtest_open_vdxg(VTEST_NODE_CARD);
	size_t i;

	for (i = 0; i < VTEST_ARRAY_SIZE(pads); i++) {
		struct drm_vdxg_get_param gp = {
			.param = DRM_VDXG_PARAM_DEVICE_ID,
			.pad = pads[i],
		};

		vtest_info("pad 0x%x", pads[i]);
		vtest_assert_errno(vtest_ioctl(fd, DRM_IOCTL_VDXG_GET_PARAM, &gp),
				   EINVAL);
	}
	close(fd);
}

static void test_render_node(void)
{
	int card = vtest_open_vdxg(VTEST_NODE_CARD);
	int render = vtest_open_vdxg(VTEST_NODE_RENDER);
	uint32_t p;

	/* The two nodes must belong to the same device... */
	{
		char a[64], b[64];

		vtest_assert(vtest_drm_pci_bdf(card, a, sizeof(a)));
		vtest_assert(vtest_drm_pci_bdf(render, b, sizeof(b)));
		vtest_assert_str_eq(a, b);
	}
	/* ...and every parameter reads the same on both. */
	for (p = DRM_VDXG_PARAM_DEVICE_ID;
	     p <= DRM_VDXG_PARAM_3D_MAX_TEXTURE_LEVELS; p++) {
		vtest_info("param %u", p);
		vtest_assert_eq_u64(param(render, p), param(card, p));
	}
	vtest_assert_errno(get_param(render, 0, NULL), EINVAL);
	close(render);
	close(card);
}

static const struct vtest_subtest tests[] = {
	{ "version", test_version,
	  "DRM_IOCTL_VERSION names the driver vdxg on card and render nodes" },
	{ "device-id", test_device_id,
	  "DEVICE_ID is 0xd3d0 and matches sysfs" },
	{ "revision", test_revision, "REVISION is 1 and matches sysfs" },
	{ "hw-version", test_hw_version, "HW_VERSION major is 1" },
	{ "vram-size", test_vram_size,
	  "VRAM_SIZE matches vdxg_test.vram-size (default 256 MiB)" },
	{ "vram-visible-size", test_vram_visible_size,
	  "VRAM_VISIBLE_SIZE is the size of BAR2: all of VRAM_SIZE after a "
	  "resize (preferred), the 64 MiB window with vdxg_test.rebar=off "
	  "(alternative)" },
	{ "aperture-size", test_aperture_size,
	  "APERTURE_SIZE matches vdxg_test.aperture-size (default 512 MiB)" },
	{ "engines", test_engines, "ENGINES has only known engine bits" },
	{ "caps", test_caps, "CAPS: known bits, MSIX bit follows vdxg_test.msix" },
	{ "num-crtcs", test_num_crtcs, "NUM_CRTCS is at most 4" },
	{ "commit-limit", test_commit_limit,
	  "COMMIT_LIMIT is half of MemTotal, or vdxg.commit_limit_mb" },
	{ "irq-mode", test_irq_mode,
	  "IRQ_MODE is MSI-X, MSI or INTx per vdxg_test.msix/msi, as /proc/interrupts shows" },
	{ "3d", test_3d,
	  "3D: PARAM_3D follows CAPS' 3D bit; with it the limits are the "
	  "hardware's, without them 0 and SUBMIT refuses a 3D command" },
	{ "invalid-param", test_invalid_param,
	  "unknown parameters fail with EINVAL" },
	{ "invalid-pad", test_invalid_pad, "a non-zero pad fails with EINVAL" },
	{ "render-node", test_render_node,
	  "every parameter reads the same through the render node" },
};

VTEST_MAIN(tests)
