/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */
#ifndef _VDXG_CARVE_H_
#define _VDXG_CARVE_H_

#include <linux/list.h>
#include <linux/types.h>

#include <drm/drm_mm.h>

/**
 * struct vdxg_fragments - nodes that fragment a drm_mm on purpose
 * @nodes: every node taken (struct vdxg_fragment), in address order
 * @size: units they hold
 */
struct vdxg_fragments {
	struct list_head nodes;
	u64 size;
};

int vdxg_carve(struct drm_mm *mm, u64 size, struct drm_mm_node *nodes,
	       unsigned int max_nodes);
void vdxg_carve_release(struct drm_mm_node *nodes, unsigned int count);

void vdxg_fragments_init(struct vdxg_fragments *frag);
int vdxg_fragment(struct drm_mm *mm, u64 chunk, struct vdxg_fragments *frag);
void vdxg_fragments_release(struct vdxg_fragments *frag);

#endif
