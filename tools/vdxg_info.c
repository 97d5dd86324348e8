// SPDX-License-Identifier: MIT
/*
 * vdxg-info: print what the vdxg driver reports about its device.
 *
 * Usage: vdxg-info [/dev/dri/cardN | /dev/dri/renderDN]
 * Without an argument it opens the first DRM node driven by vdxg.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <drm.h>
#include "vdxg_drm.h"

static int is_vdxg(int fd)
{
	char name[16] = "";
	struct drm_version v = {
		.name = name,
		.name_len = sizeof(name) - 1,
	};

	return !ioctl(fd, DRM_IOCTL_VERSION, &v) && !strcmp(name, "vdxg");
}

static int open_vdxg(const char *path)
{
	glob_t g;
	size_t i;
	int fd = -1;

	if (path)
		return open(path, O_RDWR | O_CLOEXEC);

	if (glob("/dev/dri/card*", 0, NULL, &g))
		return -1;
	for (i = 0; i < g.gl_pathc && fd < 0; i++) {
		fd = open(g.gl_pathv[i], O_RDWR | O_CLOEXEC);
		if (fd >= 0 && !is_vdxg(fd)) {
			close(fd);
			fd = -1;
		}
	}
	globfree(&g);
	return fd;
}

static const struct {
	uint32_t param;
	const char *name;
	int hex;
} params[] = {
	{ DRM_VDXG_PARAM_DEVICE_ID, "device_id", 1 },
	{ DRM_VDXG_PARAM_REVISION, "revision", 0 },
	{ DRM_VDXG_PARAM_HW_VERSION, "hw_version", 1 },
	{ DRM_VDXG_PARAM_CAPS, "caps", 1 },
	{ DRM_VDXG_PARAM_VRAM_SIZE, "vram_size", 0 },
	{ DRM_VDXG_PARAM_VRAM_VISIBLE_SIZE, "vram_visible_size", 0 },
	{ DRM_VDXG_PARAM_APERTURE_SIZE, "aperture_size", 0 },
	{ DRM_VDXG_PARAM_ENGINES, "engines", 1 },
	{ DRM_VDXG_PARAM_NUM_CRTCS, "num_crtcs", 0 },
	{ DRM_VDXG_PARAM_IRQ_MODE, "irq_mode", 0 },
	{ DRM_VDXG_PARAM_COMMIT_LIMIT, "commit_limit", 0 },
	{ DRM_VDXG_PARAM_3D, "3d", 0 },
	{ DRM_VDXG_PARAM_3D_MAX_INSTRUCTIONS, "3d_max_instructions", 0 },
	{ DRM_VDXG_PARAM_3D_MAX_IMMEDIATES, "3d_max_immediates", 0 },
	{ DRM_VDXG_PARAM_3D_MAX_TEMPS, "3d_max_temps", 0 },
	{ DRM_VDXG_PARAM_3D_MAX_CONSTANTS, "3d_max_constants", 0 },
	{ DRM_VDXG_PARAM_3D_MAX_NESTING, "3d_max_nesting", 0 },
	{ DRM_VDXG_PARAM_3D_MAX_STEPS, "3d_max_steps", 0 },
	{ DRM_VDXG_PARAM_3D_TEXTURE_UNITS, "3d_texture_units", 0 },
	{ DRM_VDXG_PARAM_3D_VERTEX_BUFFERS, "3d_vertex_buffers", 0 },
	{ DRM_VDXG_PARAM_3D_VERTEX_ELEMENTS, "3d_vertex_elements", 0 },
	{ DRM_VDXG_PARAM_3D_MAX_VERTEX_STRIDE, "3d_max_vertex_stride", 0 },
	{ DRM_VDXG_PARAM_3D_VARYINGS, "3d_varyings", 0 },
	{ DRM_VDXG_PARAM_3D_MAX_TEXTURE_SIZE, "3d_max_texture_size", 0 },
	{ DRM_VDXG_PARAM_3D_MAX_TEXTURE_LEVELS, "3d_max_texture_levels", 0 },
};

int main(int argc, char **argv)
{
	static const char * const irq_modes[] = { "INTx", "MSI", "MSI-X" };
	size_t i;
	int fd;

	fd = open_vdxg(argc > 1 ? argv[1] : NULL);
	if (fd < 0) {
		fprintf(stderr, "vdxg-info: no vdxg device: %s\n",
			strerror(errno ? errno : ENODEV));
		return 1;
	}

	for (i = 0; i < sizeof(params) / sizeof(params[0]); i++) {
		struct drm_vdxg_get_param gp = { .param = params[i].param };

		if (ioctl(fd, DRM_IOCTL_VDXG_GET_PARAM, &gp)) {
			fprintf(stderr, "vdxg-info: GET_PARAM %s: %s\n",
				params[i].name, strerror(errno));
			return 1;
		}
		if (params[i].param == DRM_VDXG_PARAM_IRQ_MODE && gp.value < 3)
			printf("%-18s %s\n", params[i].name,
			       irq_modes[gp.value]);
		else if (params[i].hex)
			printf("%-18s 0x%llx\n", params[i].name,
			       (unsigned long long)gp.value);
		else
			printf("%-18s %llu\n", params[i].name,
			       (unsigned long long)gp.value);
	}
	close(fd);
	return 0;
}
