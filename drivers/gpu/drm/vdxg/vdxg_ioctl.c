// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <drm/drm_file.h>
#include <drm/vdxg_drm.h>

#include "vdxg_bo.h"
#include "vdxg_cmdparse.h"
#include "vdxg_drv.h"

/**
 * DOC: GET_PARAM
 *
 * DRM_IOCTL_VDXG_GET_PARAM returns one fact about the device, read once at
 * probe, so it never touches the hardware. Unknown parameters and a
 * non-zero pad get -EINVAL. The 3D pipeline's limits are docs/hardware.md's
 * (vdxg_hw.h); they read 0 on a device without the pipeline.
 */

/* The limits of the 3D pipeline, by parameter. */
static const u32 vdxg_param_3d[] = {
	[DRM_VDXG_PARAM_3D - DRM_VDXG_PARAM_3D] = 1,
	[DRM_VDXG_PARAM_3D_MAX_INSTRUCTIONS - DRM_VDXG_PARAM_3D] = VDXG_3D_MAX_INSTRUCTIONS,
	[DRM_VDXG_PARAM_3D_MAX_IMMEDIATES - DRM_VDXG_PARAM_3D] = VDXG_3D_MAX_IMMEDIATES,
	[DRM_VDXG_PARAM_3D_MAX_TEMPS - DRM_VDXG_PARAM_3D] = VDXG_3D_NUM_TEMPS,
	[DRM_VDXG_PARAM_3D_MAX_CONSTANTS - DRM_VDXG_PARAM_3D] = VDXG_3D_NUM_CONSTS,
	[DRM_VDXG_PARAM_3D_MAX_NESTING - DRM_VDXG_PARAM_3D] = VDXG_3D_MAX_NESTING,
	[DRM_VDXG_PARAM_3D_MAX_STEPS - DRM_VDXG_PARAM_3D] = VDXG_3D_MAX_STEPS,
	[DRM_VDXG_PARAM_3D_TEXTURE_UNITS - DRM_VDXG_PARAM_3D] = VDXG_3D_NUM_UNITS,
	[DRM_VDXG_PARAM_3D_VERTEX_BUFFERS - DRM_VDXG_PARAM_3D] = VDXG_3D_NUM_VBS,
	[DRM_VDXG_PARAM_3D_VERTEX_ELEMENTS - DRM_VDXG_PARAM_3D] = VDXG_3D_NUM_ELEMENTS,
	[DRM_VDXG_PARAM_3D_MAX_VERTEX_STRIDE - DRM_VDXG_PARAM_3D] = VDXG_3D_MAX_STRIDE,
	[DRM_VDXG_PARAM_3D_VARYINGS - DRM_VDXG_PARAM_3D] = VDXG_3D_NUM_VARYINGS,
	[DRM_VDXG_PARAM_3D_MAX_TEXTURE_SIZE - DRM_VDXG_PARAM_3D] = VDXG_TEX_MAX_DIM,
	[DRM_VDXG_PARAM_3D_MAX_TEXTURE_LEVELS - DRM_VDXG_PARAM_3D] = VDXG_TEX_MAX_LEVELS,
};

static_assert(ARRAY_SIZE(vdxg_param_3d) ==
	      DRM_VDXG_PARAM_3D_MAX_TEXTURE_LEVELS - DRM_VDXG_PARAM_3D + 1);

int vdxg_ioctl_get_param(struct drm_device *drm, void *data,
			 struct drm_file *file)
{
	struct vdxg_device *vdxg = to_vdxg(drm);
	struct drm_vdxg_get_param *args = data;

	if (args->pad)
		return -EINVAL;

	switch (args->param) {
	case DRM_VDXG_PARAM_DEVICE_ID:
		args->value = vdxg->pdev->device;
		break;
	case DRM_VDXG_PARAM_REVISION:
		args->value = vdxg->pdev->revision;
		break;
	case DRM_VDXG_PARAM_VRAM_SIZE:
		args->value = vdxg->vram_size;
		break;
	case DRM_VDXG_PARAM_VRAM_VISIBLE_SIZE:
		args->value = vdxg->vram_bar_size;
		break;
	case DRM_VDXG_PARAM_APERTURE_SIZE:
		args->value = vdxg->aperture_size;
		break;
	case DRM_VDXG_PARAM_ENGINES:
		args->value = vdxg->engines;
		break;
	case DRM_VDXG_PARAM_CAPS:
		args->value = vdxg->caps;
		break;
	case DRM_VDXG_PARAM_HW_VERSION:
		args->value = vdxg->hw_version;
		break;
	case DRM_VDXG_PARAM_NUM_CRTCS:
		args->value = vdxg->num_crtcs;
		break;
	case DRM_VDXG_PARAM_IRQ_MODE:
		args->value = vdxg->irq.mode;
		break;
	case DRM_VDXG_PARAM_MAX_COMMAND_SIZE:
		args->value = VDXG_MAX_COMMAND_SIZE;
		break;
	case DRM_VDXG_PARAM_MAX_ALLOCATIONS:
		args->value = VDXG_MAX_ALLOCATIONS;
		break;
	case DRM_VDXG_PARAM_MAX_PATCHES:
		args->value = VDXG_MAX_PATCHES;
		break;
	case DRM_VDXG_PARAM_COMMIT_LIMIT:
		args->value = vdxg_bo_commit_limit();
		break;
	case DRM_VDXG_PARAM_3D ... DRM_VDXG_PARAM_3D_MAX_TEXTURE_LEVELS:
		args->value = vdxg->caps & VDXG_CAP_3D ?
			      vdxg_param_3d[args->param - DRM_VDXG_PARAM_3D] : 0;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}
