/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */
#ifndef _VDXG_SRIOV_H_
#define _VDXG_SRIOV_H_

#include <linux/mutex.h>
#include <linux/types.h>

#include <drm/drm_mm.h>

#include "vdxg_hw.h"

struct drm_device;
struct drm_file;
struct drm_printer;
struct pci_dev;
struct vdxg_device;

/**
 * struct vdxg_sriov_vf - the PF's VRAM backing one VF's VRAM BAR
 * @nodes: the ranges, in BAR order (pages of the VRAM segment)
 * @count: ranges used
 */
struct vdxg_sriov_vf {
	struct drm_mm_node nodes[VDXG_MAX_BACKING_RANGES];
	unsigned int count;
};

/**
 * struct vdxg_sriov - SR-IOV state of a physical function
 * @lock: guards @num_vfs and @vfs
 * @total_vfs: VFs the device offers, 0 without SR-IOV
 * @num_vfs: VFs enabled
 * @vf_vram_size: bytes of each VF's VRAM BAR
 * @vfs: @total_vfs entries
 */
struct vdxg_sriov {
	struct mutex lock; /* see above */
	u16 total_vfs;
	u16 num_vfs;
	u64 vf_vram_size;
	struct vdxg_sriov_vf *vfs;
};

int vdxg_sriov_init(struct vdxg_device *vdxg);
void vdxg_sriov_fini(struct vdxg_device *vdxg);
int vdxg_sriov_configure(struct pci_dev *pdev, int num_vfs);
int vdxg_get_backing_resource_ioctl(struct drm_device *drm, void *data,
				    struct drm_file *file);
void vdxg_sriov_print(struct vdxg_device *vdxg, struct drm_printer *p);

#endif
