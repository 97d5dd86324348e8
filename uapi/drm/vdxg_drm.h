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
#define DRM_VDXG_GEM_CREATE		0x01
#define DRM_VDXG_GEM_MMAP_OFFSET	0x02
#define DRM_VDXG_GEM_WAIT		0x03
#define DRM_VDXG_GEM_INFO		0x04
#define DRM_VDXG_GEM_MAKE_RESIDENT	0x05

#define DRM_IOCTL_VDXG_GET_PARAM \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDXG_GET_PARAM, struct drm_vdxg_get_param)
#define DRM_IOCTL_VDXG_GEM_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDXG_GEM_CREATE, struct drm_vdxg_gem_create)
#define DRM_IOCTL_VDXG_GEM_MMAP_OFFSET \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDXG_GEM_MMAP_OFFSET, \
		 struct drm_vdxg_gem_mmap_offset)
#define DRM_IOCTL_VDXG_GEM_WAIT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VDXG_GEM_WAIT, struct drm_vdxg_gem_wait)
#define DRM_IOCTL_VDXG_GEM_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDXG_GEM_INFO, struct drm_vdxg_gem_info)
#define DRM_IOCTL_VDXG_GEM_MAKE_RESIDENT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VDXG_GEM_MAKE_RESIDENT, \
		struct drm_vdxg_gem_make_resident)

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

/*
 * Memory segments, as in WDDM: VRAM (CPU-visible through the VRAM BAR up
 * to DRM_VDXG_PARAM_VRAM_VISIBLE_SIZE), the GART-translated aperture, and
 * system memory.
 */
#define DRM_VDXG_SEGMENT_VRAM		1
#define DRM_VDXG_SEGMENT_APERTURE	2
#define DRM_VDXG_SEGMENT_SYSTEM		3
#define DRM_VDXG_MAX_SEGMENTS		3

/* The object must stay CPU-accessible: VRAM only in its visible part. */
#define DRM_VDXG_GEM_CPU_ACCESS		0x1
/* Skip clear-on-allocate. Only for objects the caller fully overwrites. */
#define DRM_VDXG_GEM_NO_CLEAR		0x2
#define DRM_VDXG_GEM_FLAGS		(DRM_VDXG_GEM_CPU_ACCESS | \
					 DRM_VDXG_GEM_NO_CLEAR)

/**
 * struct drm_vdxg_gem_create - argument of DRM_IOCTL_VDXG_GEM_CREATE
 * @size: in: bytes, non-zero; out: rounded up to the page size
 * @flags: DRM_VDXG_GEM_*
 * @num_segments: entries used in @segments, 1 to DRM_VDXG_MAX_SEGMENTS
 * @segments: the preferred segment set, most preferred first, each
 *	DRM_VDXG_SEGMENT_* at most once; unused entries must be zero
 * @handle: out: GEM handle
 * @pad: must be zero
 */
struct drm_vdxg_gem_create {
	__u64 size;
	__u32 flags;
	__u32 num_segments;
	__u32 segments[4];
	__u32 handle;
	__u32 pad;
};

/**
 * struct drm_vdxg_gem_mmap_offset - argument of DRM_IOCTL_VDXG_GEM_MMAP_OFFSET
 * @handle: GEM handle
 * @pad: must be zero
 * @offset: out: fake offset to mmap() the object at
 */
struct drm_vdxg_gem_mmap_offset {
	__u32 handle;
	__u32 pad;
	__u64 offset;
};

/**
 * struct drm_vdxg_gem_wait - argument of DRM_IOCTL_VDXG_GEM_WAIT
 * @handle: GEM handle
 * @flags: must be zero
 * @timeout_ns: relative timeout; 0 polls. -ETIME when it expires, -EBUSY
 *	when polling a busy object.
 */
struct drm_vdxg_gem_wait {
	__u32 handle;
	__u32 flags;
	__s64 timeout_ns;
};

/**
 * struct drm_vdxg_gem_info - argument of DRM_IOCTL_VDXG_GEM_INFO
 * @handle: GEM handle
 * @segment: out: DRM_VDXG_SEGMENT_* the object is in now
 * @gpu_addr: out: its GPU address now (0 in system memory, which the GPU
 *	reaches only through page lists or the aperture)
 * @size: out: its size
 */
struct drm_vdxg_gem_info {
	__u32 handle;
	__u32 segment;
	__u64 gpu_addr;
	__u64 size;
};

/**
 * struct drm_vdxg_gem_make_resident - argument of
 * DRM_IOCTL_VDXG_GEM_MAKE_RESIDENT
 * @handle: GEM handle
 * @segment: DRM_VDXG_SEGMENT_* to page the object into, evicting others
 *	if needed; it must be in the object's preferred segment set
 *	(-EINVAL otherwise). The move is queued on the paging engine:
 *	GEM_WAIT waits for it.
 *
 * WDDM's MakeResident, for one object and an explicit segment.
 */
struct drm_vdxg_gem_make_resident {
	__u32 handle;
	__u32 segment;
};

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_VDXG_DRM_H_ */
