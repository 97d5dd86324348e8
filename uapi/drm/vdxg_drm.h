/* SPDX-License-Identifier: MIT */
/*
 * vdxg userspace API.
 *
 * Every ioctl takes a fixed-layout structure with explicit padding. Padding
 * and reserved fields must be zero; the kernel rejects anything else with
 * -EINVAL so that they can gain a meaning later.
 */
#ifndef _UAPI_VDXG_DRM_H_
#define _UAPI_VDXG_DRM_H_

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

#define DRM_VDXG_GET_PARAM		0x00

#define DRM_IOCTL_VDXG_GET_PARAM \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDXG_GET_PARAM, struct drm_vdxg_get_param)

/**
 * enum drm_vdxg_param - parameters readable with DRM_IOCTL_VDXG_GET_PARAM
 *
 * @DRM_VDXG_PARAM_DEVICE_ID: PCI device id.
 * @DRM_VDXG_PARAM_REVISION: PCI revision id.
 * @DRM_VDXG_PARAM_VRAM_SIZE: VRAM bytes.
 * @DRM_VDXG_PARAM_VRAM_VISIBLE_SIZE: CPU-visible VRAM bytes (the VRAM BAR).
 * @DRM_VDXG_PARAM_APERTURE_SIZE: GART aperture bytes.
 * @DRM_VDXG_PARAM_ENGINES: bitmask, 1 << engine for each engine present
 *	(bit 0 render, bit 1 paging).
 * @DRM_VDXG_PARAM_CAPS: the device's capability register (VDXG_CAP_* in
 *	docs/hardware.md).
 * @DRM_VDXG_PARAM_HW_VERSION: hardware version, major << 16 | minor.
 * @DRM_VDXG_PARAM_NUM_CRTCS: display pipes; 0 on a render-only device.
 * @DRM_VDXG_PARAM_IRQ_MODE: interrupt mode in use: 0 INTx, 1 MSI, 2 MSI-X.
 */
enum drm_vdxg_param {
	DRM_VDXG_PARAM_DEVICE_ID = 1,
	DRM_VDXG_PARAM_REVISION = 2,
	DRM_VDXG_PARAM_VRAM_SIZE = 3,
	DRM_VDXG_PARAM_VRAM_VISIBLE_SIZE = 4,
	DRM_VDXG_PARAM_APERTURE_SIZE = 5,
	DRM_VDXG_PARAM_ENGINES = 6,
	DRM_VDXG_PARAM_CAPS = 7,
	DRM_VDXG_PARAM_HW_VERSION = 8,
	DRM_VDXG_PARAM_NUM_CRTCS = 9,
	DRM_VDXG_PARAM_IRQ_MODE = 10,
};

#define DRM_VDXG_IRQ_MODE_INTX		0
#define DRM_VDXG_IRQ_MODE_MSI		1
#define DRM_VDXG_IRQ_MODE_MSIX		2

/**
 * struct drm_vdxg_get_param - argument of DRM_IOCTL_VDXG_GET_PARAM
 * @param: one of &enum drm_vdxg_param; anything else gets -EINVAL.
 * @pad: must be zero.
 * @value: returned value.
 */
struct drm_vdxg_get_param {
	__u32 param;
	__u32 pad;
	__u64 value;
};

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_VDXG_DRM_H_ */
