/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */
#ifndef _VDXG_VRAM_MGR_H_
#define _VDXG_VRAM_MGR_H_

#include <linux/mutex.h>

#include <drm/drm_mm.h>
#include <drm/ttm/ttm_resource.h>

#include "vdxg_carve.h"

struct vdxg_device;

/**
 * struct vdxg_vram_mgr - TTM's VRAM segment
 * @manager: the TTM resource manager
 * @mm: pages of the segment
 * @lock: guards @mm, @carved and @frag
 * @carved: pages given to virtual functions
 * @frag: nodes that fragment @mm for tests (debugfs vram_fragment)
 */
struct vdxg_vram_mgr {
	struct ttm_resource_manager manager;
	struct drm_mm mm;
	struct mutex lock; /* see above */
	u64 carved;
	struct vdxg_fragments frag;
};

void vdxg_vram_mgr_init(struct vdxg_device *vdxg, u64 pages);
int vdxg_vram_mgr_fini(struct vdxg_device *vdxg);
u64 vdxg_vram_mgr_used(struct vdxg_device *vdxg);
u64 vdxg_vram_mgr_reserved(struct vdxg_device *vdxg);
int vdxg_vram_mgr_carve(struct vdxg_device *vdxg, u64 size,
			struct drm_mm_node *nodes, unsigned int max_nodes);
void vdxg_vram_mgr_uncarve(struct vdxg_device *vdxg, struct drm_mm_node *nodes,
			   unsigned int count);
int vdxg_vram_mgr_fragment(struct vdxg_device *vdxg, u64 chunk);

#endif
