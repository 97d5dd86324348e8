// SPDX-License-Identifier: MIT
/*
 * KUnit tests for carving VF memory out of a drm_mm (vdxg_carve.c).
 *
 * Copyright 2026 The vdxg authors
 */

#include <kunit/test.h>

#include <linux/errno.h>
#include <linux/slab.h>

#include "vdxg_carve.h"

#define MAX_NODES	32

struct carve_ctx {
	struct drm_mm mm;
	struct drm_mm_node used[64];
	unsigned int nused;
	struct drm_mm_node nodes[MAX_NODES];
};

static int carve_init(struct kunit *test)
{
	struct carve_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	drm_mm_init(&c->mm, 0, 1024);
	test->priv = c;
	return 0;
}

static void carve_exit(struct kunit *test)
{
	struct carve_ctx *c = test->priv;
	unsigned int i;

	for (i = 0; i < MAX_NODES; i++)
		if (drm_mm_node_allocated(&c->nodes[i]))
			drm_mm_remove_node(&c->nodes[i]);
	for (i = 0; i < c->nused; i++)
		drm_mm_remove_node(&c->used[i]);
	drm_mm_takedown(&c->mm);
}

/* Take [start, start + size) of the drm_mm as already in use. */
static void take(struct kunit *test, u64 start, u64 size)
{
	struct carve_ctx *c = test->priv;
	struct drm_mm_node *n = &c->used[c->nused++];

	n->start = start;
	n->size = size;
	KUNIT_ASSERT_EQ(test, drm_mm_reserve_node(&c->mm, n), 0);
}

/* Leave free only holes of @hole units, @gap units apart, from 0. */
static void holes_every(struct kunit *test, u64 hole, u64 gap)
{
	u64 pos;

	for (pos = hole; pos < 1024; pos += hole + gap)
		take(test, pos, min_t(u64, gap, 1024 - pos));
}

static u64 free_units(struct drm_mm *mm, unsigned int *holes, u64 *largest)
{
	struct drm_mm_node *e;
	u64 s, end, total = 0;

	*holes = 0;
	*largest = 0;
	drm_mm_for_each_hole(e, mm, s, end) {
		total += end - s;
		(*holes)++;
		*largest = max(*largest, end - s);
	}
	return total;
}

static void check_disjoint(struct kunit *test, struct drm_mm_node *n,
			   unsigned int count)
{
	unsigned int i, j;

	for (i = 0; i < count; i++)
		for (j = i + 1; j < count; j++)
			KUNIT_EXPECT_TRUE(test,
					  n[i].start + n[i].size <= n[j].start ||
					  n[j].start + n[j].size <= n[i].start);
}

static void vdxg_carve_one_hole(struct kunit *test)
{
	struct carve_ctx *c = test->priv;

	KUNIT_ASSERT_EQ(test, vdxg_carve(&c->mm, 256, c->nodes, MAX_NODES), 1);
	KUNIT_EXPECT_EQ(test, c->nodes[0].size, 256);
	/* From the top, away from the CPU-visible start. */
	KUNIT_EXPECT_EQ(test, c->nodes[0].start, 1024 - 256);
}

static void vdxg_carve_largest_first(struct kunit *test)
{
	struct carve_ctx *c = test->priv;
	unsigned int holes;
	u64 largest;

	/* Free: [0,10), [20,23), [30,37); the rest in use. */
	take(test, 10, 10);
	take(test, 23, 7);
	take(test, 37, 1024 - 37);
	KUNIT_ASSERT_EQ(test, vdxg_carve(&c->mm, 15, c->nodes, MAX_NODES), 2);
	KUNIT_EXPECT_EQ(test, c->nodes[0].start, 0);
	KUNIT_EXPECT_EQ(test, c->nodes[0].size, 10);
	/* The rest in the hole that fits it best: the 7-unit one. */
	KUNIT_EXPECT_EQ(test, c->nodes[1].size, 5);
	KUNIT_EXPECT_GE(test, c->nodes[1].start, 30);
	KUNIT_EXPECT_LE(test, c->nodes[1].start + c->nodes[1].size, 37);
	KUNIT_EXPECT_EQ(test, free_units(&c->mm, &holes, &largest), 5);
}

static void vdxg_carve_fragmented(struct kunit *test)
{
	struct carve_ctx *c = test->priv;
	unsigned int i;
	int n;

	holes_every(test, 4, 12);	/* 64 holes of 4 units */
	n = vdxg_carve(&c->mm, 128, c->nodes, MAX_NODES);
	KUNIT_ASSERT_EQ(test, n, 32);
	for (i = 0; i < 32; i++) {
		KUNIT_EXPECT_EQ(test, c->nodes[i].size, 4);
		KUNIT_EXPECT_EQ(test, c->nodes[i].start % 16, 0);
	}
	check_disjoint(test, c->nodes, n);
}

static void vdxg_carve_too_fragmented(struct kunit *test)
{
	struct carve_ctx *c = test->priv;
	unsigned int holes, holes0;
	u64 largest, largest0, free0;
	unsigned int i;

	holes_every(test, 4, 12);
	free0 = free_units(&c->mm, &holes0, &largest0);
	/* 33 ranges needed: refused, and nothing stays taken. */
	KUNIT_EXPECT_EQ(test, vdxg_carve(&c->mm, 132, c->nodes, MAX_NODES),
			-E2BIG);
	KUNIT_EXPECT_EQ(test, free_units(&c->mm, &holes, &largest), free0);
	KUNIT_EXPECT_EQ(test, holes, holes0);
	for (i = 0; i < MAX_NODES; i++)
		KUNIT_EXPECT_FALSE(test, drm_mm_node_allocated(&c->nodes[i]));
	/* One range fewer allowed than needed. */
	KUNIT_EXPECT_EQ(test, vdxg_carve(&c->mm, 128, c->nodes, 31), -E2BIG);
	KUNIT_EXPECT_EQ(test, free_units(&c->mm, &holes, &largest), free0);
}

static void vdxg_carve_no_space(struct kunit *test)
{
	struct carve_ctx *c = test->priv;
	unsigned int holes;
	u64 largest;

	take(test, 0, 1000);
	KUNIT_EXPECT_EQ(test, vdxg_carve(&c->mm, 25, c->nodes, MAX_NODES),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, free_units(&c->mm, &holes, &largest), 24);
	KUNIT_EXPECT_EQ(test, vdxg_carve(&c->mm, 24, c->nodes, MAX_NODES), 1);
	KUNIT_EXPECT_EQ(test, free_units(&c->mm, &holes, &largest), 0);
}

static void vdxg_carve_invalid(struct kunit *test)
{
	struct carve_ctx *c = test->priv;

	KUNIT_EXPECT_EQ(test, vdxg_carve(&c->mm, 0, c->nodes, MAX_NODES),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vdxg_carve(&c->mm, 4, c->nodes, 0), -EINVAL);
}

static void vdxg_carve_release_all(struct kunit *test)
{
	struct carve_ctx *c = test->priv;
	unsigned int holes;
	u64 largest;
	int n;

	holes_every(test, 8, 8);
	n = vdxg_carve(&c->mm, 40, c->nodes, MAX_NODES);
	KUNIT_ASSERT_EQ(test, n, 5);
	vdxg_carve_release(c->nodes, n);
	KUNIT_EXPECT_EQ(test, free_units(&c->mm, &holes, &largest), 512);
	KUNIT_EXPECT_EQ(test, holes, 64);
}

static void vdxg_fragment_holes(struct kunit *test)
{
	struct carve_ctx *c = test->priv;
	struct vdxg_fragments frag;
	unsigned int holes;
	u64 largest, free;

	take(test, 100, 5);		/* an object in the middle */
	vdxg_fragments_init(&frag);
	KUNIT_ASSERT_EQ(test, vdxg_fragment(&c->mm, 8, &frag), 0);
	free = free_units(&c->mm, &holes, &largest);
	/* Only holes of exactly one chunk, about half the space. */
	KUNIT_EXPECT_EQ(test, largest, 8);
	KUNIT_EXPECT_EQ(test, free, (u64)holes * 8);
	KUNIT_EXPECT_GE(test, free, 480);
	KUNIT_EXPECT_LE(test, free, 520);
	KUNIT_EXPECT_EQ(test, frag.size + free + 5, 1024);

	/* 32 holes of 8 hold 256 units; 264 need 33 ranges. */
	KUNIT_EXPECT_EQ(test, vdxg_carve(&c->mm, 264, c->nodes, MAX_NODES),
			-E2BIG);
	KUNIT_EXPECT_EQ(test, vdxg_carve(&c->mm, 256, c->nodes, MAX_NODES),
			32);
	vdxg_carve_release(c->nodes, 32);

	vdxg_fragments_release(&frag);
	KUNIT_EXPECT_EQ(test, frag.size, 0);
	KUNIT_EXPECT_EQ(test, free_units(&c->mm, &holes, &largest), 1019);
	KUNIT_EXPECT_EQ(test, holes, 2);
}

static void vdxg_fragment_invalid(struct kunit *test)
{
	struct carve_ctx *c = test->priv;
	struct vdxg_fragments frag;

	vdxg_fragments_init(&frag);
	KUNIT_EXPECT_EQ(test, vdxg_fragment(&c->mm, 0, &frag), -EINVAL);
	KUNIT_EXPECT_TRUE(test, list_empty(&frag.nodes));
}

static struct kunit_case vdxg_carve_cases[] = {
	KUNIT_CASE(vdxg_carve_one_hole),
	KUNIT_CASE(vdxg_carve_largest_first),
	KUNIT_CASE(vdxg_carve_fragmented),
	KUNIT_CASE(vdxg_carve_too_fragmented),
	KUNIT_CASE(vdxg_carve_no_space),
	KUNIT_CASE(vdxg_carve_invalid),
	KUNIT_CASE(vdxg_carve_release_all),
	KUNIT_CASE(vdxg_fragment_holes),
	KUNIT_CASE(vdxg_fragment_invalid),
	{}
};

static struct kunit_suite vdxg_carve_suite = {
	.name = "vdxg_carve",
	.init = carve_init,
	.exit = carve_exit,
	.test_cases = vdxg_carve_cases,
};

kunit_test_suite(vdxg_carve_suite);
