/* SPDX-License-Identifier: MIT */
/*
 * vgem's fence ioctls (include/uapi/drm/vgem_drm.h, which libdrm does not
 * ship), for tests that use vgem as a second device or as a fence source.
 */
#ifndef VGEM_H
#define VGEM_H

#include <stdint.h>

#include <drm.h>

struct local_vgem_fence_attach {
	uint32_t handle;
	uint32_t flags;
	uint32_t out_fence;
	uint32_t pad;
};

struct local_vgem_fence_signal {
	uint32_t fence;
	uint32_t flags;
};

#define LOCAL_VGEM_FENCE_WRITE		0x1
#define LOCAL_IOCTL_VGEM_FENCE_ATTACH \
	DRM_IOWR(DRM_COMMAND_BASE + 0x1, struct local_vgem_fence_attach)
#define LOCAL_IOCTL_VGEM_FENCE_SIGNAL \
	DRM_IOW(DRM_COMMAND_BASE + 0x2, struct local_vgem_fence_signal)

#endif /* VGEM_H */
