// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/errno.h>
#include <linux/slab.h>

#include "vdxg_carve.h"

/**
 * DOC: Carving VF memory
 *
 * A virtual function's VRAM BAR is assembled from at most 32 ranges of the
 * PF's VRAM (WDDM's DXGKARG_GETBACKINGRESOURCE). vdxg_carve() takes such
 * ranges from the free space of a drm_mm, the one that TTM's VRAM manager
 * allocates from, without evicting anything:
 *
 * - if one hole holds the whole size, a single range, placed as high as
 *   possible so that the CPU-visible start of VRAM stays with the PF;
 * - otherwise the largest hole, whole, and again with what is left.
 *
 * Taking whole holes largest first gives the fewest ranges there can be,
 * and each range is a maximal run of free space, so no two are adjacent.
 * When the free space is too small the answer is -ENOSPC; when it would
 * need more ranges than allowed it is -E2BIG. Either way nothing stays
 * taken.
 *
 * vdxg_fragment() fragments the free space on purpose, for tests: it
 * fills every hole with chunks of one size (and what is left of a hole
 * with one smaller node), then gives back every other chunk, so the free
 * space becomes holes of exactly one chunk.
 *
 * Both are pure drm_mm logic: the caller holds the lock that guards @mm.
 */

/* The largest hole of @mm, and the units free in all. */
static u64 vdxg_mm_holes(struct drm_mm *mm, u64 *total)
{
	struct drm_mm_node *entry;
	u64 start, end, largest = 0;

	*total = 0;
	drm_mm_for_each_hole(entry, mm, start, end) {
		*total += end - start;
		if (end - start > largest)
			largest = end - start;
	}
	return largest;
}

/**
 * vdxg_carve_release - give back carved ranges
 * @nodes: the nodes vdxg_carve() filled
 * @count: how many it filled
 */
void vdxg_carve_release(struct drm_mm_node *nodes, unsigned int count)
{
	while (count--)
		if (drm_mm_node_allocated(&nodes[count]))
			drm_mm_remove_node(&nodes[count]);
}

/**
 * vdxg_carve - take @size units of free space as at most @max_nodes ranges
 * @mm: the allocator, its lock held
 * @size: units to take, more than 0
 * @nodes: room for @max_nodes nodes, zeroed; filled in address-independent
 *	order, the order in which the ranges are laid end to end
 * @max_nodes: the most ranges allowed
 *
 * Return: the number of ranges, -ENOSPC when @mm has less than @size free,
 * -E2BIG when the free space is too fragmented for @max_nodes ranges, or
 * -EINVAL for a zero @size or @max_nodes.
 */
int vdxg_carve(struct drm_mm *mm, u64 size, struct drm_mm_node *nodes,
	       unsigned int max_nodes)
{
	u64 total, largest, left = size;
	unsigned int count = 0;
	int ret;

	if (!size || !max_nodes)
		return -EINVAL;
	vdxg_mm_holes(mm, &total);
	if (total < size)
		return -ENOSPC;

	while (left) {
		if (count == max_nodes) {
			ret = -E2BIG;
			goto err;
		}
		ret = drm_mm_insert_node_in_range(mm, &nodes[count], left, 0, 0,
						  0, U64_MAX,
						  DRM_MM_INSERT_HIGH);
		if (ret == -ENOSPC) {
			/* No hole holds the rest: take the largest whole. */
			largest = vdxg_mm_holes(mm, &total);
			ret = drm_mm_insert_node_in_range(mm, &nodes[count],
							  largest, 0, 0, 0,
							  U64_MAX,
							  DRM_MM_INSERT_BEST);
		}
		if (ret)
			goto err;
		left -= nodes[count].size;
		count++;
	}
	return count;

err:
	vdxg_carve_release(nodes, count);
	return ret;
}

/* One node vdxg_fragment() took; @chunk when it is a whole chunk. */
struct vdxg_fragment {
	struct list_head link;
	struct drm_mm_node node;
	bool chunk;
};

/**
 * vdxg_fragments_init - an empty set of fragmenting nodes
 * @frag: the set
 */
void vdxg_fragments_init(struct vdxg_fragments *frag)
{
	INIT_LIST_HEAD(&frag->nodes);
	frag->size = 0;
}

/**
 * vdxg_fragments_release - give back every node of @frag
 * @frag: the set; the lock of its drm_mm held
 */
void vdxg_fragments_release(struct vdxg_fragments *frag)
{
	struct vdxg_fragment *f, *next;

	list_for_each_entry_safe(f, next, &frag->nodes, link) {
		drm_mm_remove_node(&f->node);
		list_del(&f->link);
		kfree(f);
	}
	frag->size = 0;
}

/* Take [start, start + size) of a hole of @mm into @frag. */
static int vdxg_fragment_take(struct drm_mm *mm, struct vdxg_fragments *frag,
			      u64 start, u64 size, bool chunk)
{
	struct vdxg_fragment *f = kzalloc(sizeof(*f), GFP_KERNEL);
	int ret;

	if (!f)
		return -ENOMEM;
	f->node.start = start;
	f->node.size = size;
	f->chunk = chunk;
	ret = drm_mm_reserve_node(mm, &f->node);
	if (ret) {
		kfree(f);
		return ret;
	}
	list_add_tail(&f->link, &frag->nodes);
	frag->size += size;
	return 0;
}

/* The first hole of @mm, false when there is none. */
static bool vdxg_first_hole(struct drm_mm *mm, u64 *start, u64 *end)
{
	struct drm_mm_node *entry;
	u64 s, e;

	drm_mm_for_each_hole(entry, mm, s, e) {
		*start = s;
		*end = e;
		return true;
	}
	return false;
}

/**
 * vdxg_fragment - leave only holes of @chunk units in @mm
 * @mm: the allocator, its lock held
 * @chunk: units of each hole left, more than 0
 * @frag: an empty set, which takes the nodes; vdxg_fragments_release()
 *	gives them back
 *
 * Return: 0, or -ENOMEM (then @frag holds what was taken so far).
 */
int vdxg_fragment(struct drm_mm *mm, u64 chunk, struct vdxg_fragments *frag)
{
	struct vdxg_fragment *f, *next;
	u64 start, end;
	bool give_back = false;
	int ret;

	if (!chunk)
		return -EINVAL;
	while (vdxg_first_hole(mm, &start, &end)) {
		u64 size = min(chunk, end - start);

		ret = vdxg_fragment_take(mm, frag, start, size, size == chunk);
		if (ret)
			return ret;
	}
	/* Every other whole chunk, in address order, becomes a hole. */
	list_for_each_entry_safe(f, next, &frag->nodes, link) {
		if (!f->chunk)
			continue;
		if (give_back) {
			drm_mm_remove_node(&f->node);
			frag->size -= f->node.size;
			list_del(&f->link);
			kfree(f);
		}
		give_back = !give_back;
	}
	return 0;
}
