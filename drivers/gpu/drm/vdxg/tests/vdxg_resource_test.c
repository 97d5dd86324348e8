// SPDX-License-Identifier: MIT
/*
 * KUnit tests for vdxg's IO_RESOURCE_DESCRIPTOR lists (vdxg_resource.c).
 *
 * Copyright 2026 The vdxg authors
 */

#include <kunit/test.h>

#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/string.h>

#include <drm/drm_print.h>

#include "vdxg_resource.h"

#define MEM_DESC(_name, _option, _length, _align, _min, _max)		\
	((struct vdxg_res_desc) {					\
		.name = (_name),					\
		.option = (_option),					\
		.type = VDXG_RES_TYPE_MEMORY,				\
		.share = VDXG_RES_SHARE_DEVICE_EXCLUSIVE,		\
		.u.mem = {						\
			.length = (_length),				\
			.alignment = (_align),				\
			.min_addr = (_min),				\
			.max_addr = (_max),				\
		},							\
	})

#define IRQ_DESC(_name, _option, _min, _max)				\
	((struct vdxg_res_desc) {					\
		.name = (_name),					\
		.option = (_option),					\
		.type = VDXG_RES_TYPE_INTERRUPT,			\
		.share = VDXG_RES_SHARE_DEVICE_EXCLUSIVE,		\
		.flags = VDXG_RES_IRQ_LATCHED | VDXG_RES_IRQ_MESSAGE,	\
		.u.irq = {						\
			.min_vector = (_min),				\
			.max_vector = (_max),				\
		},							\
	})

/* A 64 KiB BAR anywhere below 4 GiB. */
#define BAR_DESC(_option)						\
	MEM_DESC("bar", _option, 0x10000, 0x10000, 0, 0xffffffffULL)

/* ---------------------------------------------------------------------- */
/* vdxg_res_add: descriptor validation                                     */
/* ---------------------------------------------------------------------- */

struct vdxg_res_add_case {
	const char *desc;
	struct vdxg_res_desc res;
	int expected;	/* 0: accepted as index 0; else the error */
};

static const struct vdxg_res_add_case vdxg_res_add_cases[] = {
	/* Memory */
	{ "mem ok", MEM_DESC("m", VDXG_IO_RESOURCE_REQUIRED,
			     0x1000, 0x1000, 0, 0xffffffff), 0 },
	{ "mem zero length", MEM_DESC("m", VDXG_IO_RESOURCE_REQUIRED,
				      0, 0x1000, 0, 0xffffffff), -EINVAL },
	{ "mem zero length, full range",
	  MEM_DESC("m", VDXG_IO_RESOURCE_REQUIRED, 0, 1, 0, U64_MAX), -EINVAL },
	{ "mem alignment 0", MEM_DESC("m", VDXG_IO_RESOURCE_REQUIRED,
				      0x1000, 0, 0, 0xffffffff), -EINVAL },
	{ "mem alignment 3", MEM_DESC("m", VDXG_IO_RESOURCE_REQUIRED,
				      0x1000, 3, 0, 0xffffffff), -EINVAL },
	{ "mem alignment 0x1800", MEM_DESC("m", VDXG_IO_RESOURCE_REQUIRED,
					   0x1000, 0x1800, 0, 0xffffffff),
	  -EINVAL },
	{ "mem alignment U64_MAX", MEM_DESC("m", VDXG_IO_RESOURCE_REQUIRED,
					    0x1000, U64_MAX, 0, U64_MAX),
	  -EINVAL },
	{ "mem alignment 1", MEM_DESC("m", VDXG_IO_RESOURCE_REQUIRED,
				      0x1000, 1, 0, 0xffffffff), 0 },
	{ "mem alignment 2^63", MEM_DESC("m", VDXG_IO_RESOURCE_REQUIRED,
					 0x1000, 1ULL << 63, 0, U64_MAX), 0 },
	{ "mem min > max", MEM_DESC("m", VDXG_IO_RESOURCE_REQUIRED,
				    0x1000, 0x1000, 0x2000, 0x1fff), -EINVAL },
	{ "mem min == max, length 1", MEM_DESC("m", VDXG_IO_RESOURCE_REQUIRED,
					       1, 1, 0x2000, 0x2000), 0 },
	{ "mem length fills span", MEM_DESC("m", VDXG_IO_RESOURCE_REQUIRED,
					    0x1000, 0x1000, 0x1000, 0x1fff), 0 },
	{ "mem length > span", MEM_DESC("m", VDXG_IO_RESOURCE_REQUIRED,
					0x1001, 0x1000, 0x1000, 0x1fff),
	  -EINVAL },
	{ "mem length U64_MAX, full range",
	  MEM_DESC("m", VDXG_IO_RESOURCE_REQUIRED, U64_MAX, 1, 0, U64_MAX), 0 },
	{ "mem length U64_MAX, min 1",
	  MEM_DESC("m", VDXG_IO_RESOURCE_REQUIRED, U64_MAX, 1, 1, U64_MAX), 0 },
	{ "mem length U64_MAX, min 2",
	  MEM_DESC("m", VDXG_IO_RESOURCE_REQUIRED, U64_MAX, 1, 2, U64_MAX),
	  -EINVAL },
	/* Interrupts */
	{ "irq ok", IRQ_DESC("i", VDXG_IO_RESOURCE_PREFERRED, 1, 4), 0 },
	{ "irq min == max", IRQ_DESC("i", VDXG_IO_RESOURCE_PREFERRED, 1, 1), 0 },
	{ "irq min > max", IRQ_DESC("i", VDXG_IO_RESOURCE_PREFERRED, 2, 1),
	  -EINVAL },
	/* Types */
	{ "type MemoryLarge",
	  { .name = "m", .type = VDXG_RES_TYPE_MEMORY_LARGE,
	    .flags = VDXG_RES_MEM_LARGE_64,
	    .u.mem = { 1ULL << 32, 1ULL << 32, 0, U64_MAX } }, 0 },
	{ "type 0", { .name = "x", .type = 0,
		      .u.mem = { 0x1000, 0x1000, 0, 0xffffffff } }, -EINVAL },
	/* vdxg has no I/O ports and does not accept port descriptors. */
	{ "type Port", { .name = "x", .type = VDXG_RES_TYPE_PORT,
			 .u.mem = { 0x10, 0x10, 0, 0xffff } }, -EINVAL },
	{ "type 4", { .name = "x", .type = 4,
		      .u.mem = { 0x1000, 0x1000, 0, 0xffffffff } }, -EINVAL },
	{ "type 0xff", { .name = "x", .type = 0xff,
			 .u.mem = { 0x1000, 0x1000, 0, 0xffffffff } },
	  -EINVAL },
	/* Options */
	{ "option preferred", MEM_DESC("m", VDXG_IO_RESOURCE_PREFERRED,
				       0x1000, 0x1000, 0, 0xffffffff), 0 },
	/* IO_RESOURCE_DEFAULT is not a choice vdxg offers. */
	{ "option default", MEM_DESC("m", VDXG_IO_RESOURCE_DEFAULT,
				     0x1000, 0x1000, 0, 0xffffffff), -EINVAL },
	{ "option 3", MEM_DESC("m", 3, 0x1000, 0x1000, 0, 0xffffffff),
	  -EINVAL },
	{ "option 0xff", MEM_DESC("m", 0xff, 0x1000, 0x1000, 0, 0xffffffff),
	  -EINVAL },
	/* An alternative cannot start a list. */
	{ "option alternative first",
	  IRQ_DESC("i", VDXG_IO_RESOURCE_ALTERNATIVE, 1, 1), -EINVAL },
};

KUNIT_ARRAY_PARAM_DESC(vdxg_res_add, vdxg_res_add_cases, desc);

/* Each case on an empty list: accepted as index 0, or rejected untouched. */
static void vdxg_res_add_validate(struct kunit *test)
{
	const struct vdxg_res_add_case *c = test->param_value;
	struct vdxg_res_list *list;
	int ret;

	list = kunit_kzalloc(test, sizeof(*list), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, list);

	ret = vdxg_res_add(list, &c->res);
	KUNIT_EXPECT_EQ(test, ret, c->expected);
	if (c->expected) {
		KUNIT_EXPECT_EQ(test, list->count, 0);
		KUNIT_EXPECT_NULL(test, list->desc[0].name);
	} else {
		KUNIT_EXPECT_EQ(test, list->count, 1);
		KUNIT_EXPECT_PTR_EQ(test, list->desc[0].name, c->res.name);
	}
}

/* Indices count up, the request is copied and its outcome is reset. */
static void vdxg_res_add_indices(struct kunit *test)
{
	struct vdxg_res_list *list;
	struct vdxg_res_desc d;

	list = kunit_kzalloc(test, sizeof(*list), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, list);

	d = MEM_DESC("regs", VDXG_IO_RESOURCE_REQUIRED,
		     0x1000, 0x1000, 0xc0000000, 0xcfffffff);
	d.flags = VDXG_RES_MEM_PREFETCHABLE;
	/* Stale outcome in the caller's copy must not leak into the list. */
	d.state = VDXG_RES_ASSIGNED;
	d.error = -EIO;
	d.start = 0xc0000000;
	d.len = 0x1000;
	KUNIT_EXPECT_EQ(test, vdxg_res_add(list, &d), 0);

	d = IRQ_DESC("msix", VDXG_IO_RESOURCE_PREFERRED, 1, 8);
	KUNIT_EXPECT_EQ(test, vdxg_res_add(list, &d), 1);
	d = IRQ_DESC("msi", VDXG_IO_RESOURCE_ALTERNATIVE, 1, 1);
	KUNIT_EXPECT_EQ(test, vdxg_res_add(list, &d), 2);
	d = IRQ_DESC("intx", VDXG_IO_RESOURCE_ALTERNATIVE, 1, 1);
	KUNIT_EXPECT_EQ(test, vdxg_res_add(list, &d), 3);
	d = BAR_DESC(VDXG_IO_RESOURCE_PREFERRED);
	KUNIT_EXPECT_EQ(test, vdxg_res_add(list, &d), 4);
	KUNIT_EXPECT_EQ(test, list->count, 5);

	KUNIT_EXPECT_STREQ(test, list->desc[0].name, "regs");
	KUNIT_EXPECT_EQ(test, list->desc[0].option, VDXG_IO_RESOURCE_REQUIRED);
	KUNIT_EXPECT_EQ(test, list->desc[0].type, VDXG_RES_TYPE_MEMORY);
	KUNIT_EXPECT_EQ(test, list->desc[0].share,
			VDXG_RES_SHARE_DEVICE_EXCLUSIVE);
	KUNIT_EXPECT_EQ(test, list->desc[0].flags, VDXG_RES_MEM_PREFETCHABLE);
	KUNIT_EXPECT_EQ(test, list->desc[0].u.mem.length, 0x1000);
	KUNIT_EXPECT_EQ(test, list->desc[0].u.mem.alignment, 0x1000);
	KUNIT_EXPECT_EQ(test, list->desc[0].u.mem.min_addr, 0xc0000000);
	KUNIT_EXPECT_EQ(test, list->desc[0].u.mem.max_addr, 0xcfffffff);
	KUNIT_EXPECT_EQ(test, list->desc[0].state, VDXG_RES_UNTRIED);
	KUNIT_EXPECT_EQ(test, list->desc[0].error, 0);
	KUNIT_EXPECT_EQ(test, list->desc[0].start, 0);
	KUNIT_EXPECT_EQ(test, list->desc[0].len, 0);

	KUNIT_EXPECT_STREQ(test, list->desc[1].name, "msix");
	KUNIT_EXPECT_EQ(test, list->desc[1].u.irq.min_vector, 1);
	KUNIT_EXPECT_EQ(test, list->desc[1].u.irq.max_vector, 8);
	KUNIT_EXPECT_STREQ(test, list->desc[3].name, "intx");
	KUNIT_EXPECT_EQ(test, list->desc[3].option,
			VDXG_IO_RESOURCE_ALTERNATIVE);
}

/* An alternative may follow a preferred or an alternative one only. */
static void vdxg_res_add_alternative_after_required(struct kunit *test)
{
	struct vdxg_res_list *list;
	struct vdxg_res_desc d;

	list = kunit_kzalloc(test, sizeof(*list), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, list);

	d = IRQ_DESC("msix", VDXG_IO_RESOURCE_REQUIRED, 1, 8);
	KUNIT_ASSERT_EQ(test, vdxg_res_add(list, &d), 0);
	d = IRQ_DESC("msi", VDXG_IO_RESOURCE_ALTERNATIVE, 1, 1);
	KUNIT_EXPECT_EQ(test, vdxg_res_add(list, &d), -EINVAL);
	KUNIT_EXPECT_EQ(test, list->count, 1);

	/* After a new group it is fine again. */
	d = IRQ_DESC("msix", VDXG_IO_RESOURCE_PREFERRED, 1, 8);
	KUNIT_ASSERT_EQ(test, vdxg_res_add(list, &d), 1);
	d = IRQ_DESC("msi", VDXG_IO_RESOURCE_ALTERNATIVE, 1, 1);
	KUNIT_EXPECT_EQ(test, vdxg_res_add(list, &d), 2);
	d = IRQ_DESC("intx", VDXG_IO_RESOURCE_ALTERNATIVE, 1, 1);
	KUNIT_EXPECT_EQ(test, vdxg_res_add(list, &d), 3);
	KUNIT_EXPECT_EQ(test, list->count, 4);
}

static void vdxg_res_add_alternative_other_type(struct kunit *test)
{
	struct vdxg_res_list *list;
	struct vdxg_res_desc d;

	list = kunit_kzalloc(test, sizeof(*list), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, list);

	d = BAR_DESC(VDXG_IO_RESOURCE_PREFERRED);
	KUNIT_ASSERT_EQ(test, vdxg_res_add(list, &d), 0);
	d = IRQ_DESC("msi", VDXG_IO_RESOURCE_ALTERNATIVE, 1, 1);
	KUNIT_EXPECT_EQ(test, vdxg_res_add(list, &d), -EINVAL);

	/* Memory and large memory are different types, too. */
	d = BAR_DESC(VDXG_IO_RESOURCE_ALTERNATIVE);
	d.type = VDXG_RES_TYPE_MEMORY_LARGE;
	KUNIT_EXPECT_EQ(test, vdxg_res_add(list, &d), -EINVAL);
	KUNIT_EXPECT_EQ(test, list->count, 1);

	d.type = VDXG_RES_TYPE_MEMORY;
	KUNIT_EXPECT_EQ(test, vdxg_res_add(list, &d), 1);
	KUNIT_EXPECT_EQ(test, list->count, 2);
}

static void vdxg_res_add_full(struct kunit *test)
{
	struct vdxg_res_list *list;
	struct vdxg_res_desc d;
	int i;

	list = kunit_kzalloc(test, sizeof(*list), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, list);

	d = IRQ_DESC("msix", VDXG_IO_RESOURCE_PREFERRED, 1, 8);
	KUNIT_ASSERT_EQ(test, vdxg_res_add(list, &d), 0);
	d.option = VDXG_IO_RESOURCE_ALTERNATIVE;
	for (i = 1; i < VDXG_RES_MAX; i++)
		KUNIT_EXPECT_EQ(test, vdxg_res_add(list, &d), i);
	KUNIT_EXPECT_EQ(test, list->count, VDXG_RES_MAX);

	KUNIT_EXPECT_EQ(test, vdxg_res_add(list, &d), -ENOSPC);
	d.option = VDXG_IO_RESOURCE_REQUIRED;
	KUNIT_EXPECT_EQ(test, vdxg_res_add(list, &d), -ENOSPC);
	KUNIT_EXPECT_EQ(test, list->count, VDXG_RES_MAX);
}

/* ---------------------------------------------------------------------- */
/* vdxg_res_choose and vdxg_res_release                                    */
/* ---------------------------------------------------------------------- */

/* What the fake try callback does and what it saw. */
struct vdxg_res_try_ctx {
	int ret[VDXG_RES_MAX];		/* result per descriptor index */
	unsigned int calls[VDXG_RES_MAX * 2];
	unsigned int ncalls;
	const struct vdxg_res_list *list;
};

static int vdxg_res_fake_try(void *data, struct vdxg_res_desc *desc)
{
	struct vdxg_res_try_ctx *ctx = data;
	unsigned int i = desc - ctx->list->desc;

	if (ctx->ncalls < ARRAY_SIZE(ctx->calls))
		ctx->calls[ctx->ncalls] = i;
	ctx->ncalls++;
	if (i >= VDXG_RES_MAX)
		return -EFAULT;
	if (ctx->ret[i])
		return ctx->ret[i];
	/* Vector 32 + i, or a BAR at 1 MiB * (i + 1), so each is recognisable. */
	if (desc->type == VDXG_RES_TYPE_INTERRUPT) {
		desc->start = 32 + i;
		desc->len = 1;
	} else {
		desc->start = 0x100000ULL * (i + 1);
		desc->len = 0x10000;
	}
	return 0;
}

/*
 * [0] required memory
 * [1] preferred interrupt (MSI-X), [2] alternative (MSI), [3] alternative
 * (INTx)
 * [4] required memory
 * [5] preferred memory, [6] alternative memory (the last group)
 */
static struct vdxg_res_list *vdxg_res_test_list(struct kunit *test,
						struct vdxg_res_try_ctx **ctx)
{
	struct vdxg_res_list *list;
	struct vdxg_res_desc d;

	list = kunit_kzalloc(test, sizeof(*list), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, list);
	*ctx = kunit_kzalloc(test, sizeof(**ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, *ctx);
	(*ctx)->list = list;

	d = BAR_DESC(VDXG_IO_RESOURCE_REQUIRED);
	KUNIT_ASSERT_EQ(test, vdxg_res_add(list, &d), 0);
	d = IRQ_DESC("msix", VDXG_IO_RESOURCE_PREFERRED, 1, 8);
	KUNIT_ASSERT_EQ(test, vdxg_res_add(list, &d), 1);
	d = IRQ_DESC("msi", VDXG_IO_RESOURCE_ALTERNATIVE, 1, 1);
	KUNIT_ASSERT_EQ(test, vdxg_res_add(list, &d), 2);
	d = IRQ_DESC("intx", VDXG_IO_RESOURCE_ALTERNATIVE, 1, 1);
	d.flags = VDXG_RES_IRQ_LEVEL_SENSITIVE;
	d.share = VDXG_RES_SHARE_SHARED;
	KUNIT_ASSERT_EQ(test, vdxg_res_add(list, &d), 3);
	d = BAR_DESC(VDXG_IO_RESOURCE_REQUIRED);
	KUNIT_ASSERT_EQ(test, vdxg_res_add(list, &d), 4);
	d = BAR_DESC(VDXG_IO_RESOURCE_PREFERRED);
	KUNIT_ASSERT_EQ(test, vdxg_res_add(list, &d), 5);
	d = BAR_DESC(VDXG_IO_RESOURCE_ALTERNATIVE);
	KUNIT_ASSERT_EQ(test, vdxg_res_add(list, &d), 6);

	return list;
}

static void vdxg_res_expect_untried(struct kunit *test,
				    const struct vdxg_res_list *list,
				    unsigned int i)
{
	KUNIT_EXPECT_EQ_MSG(test, list->desc[i].state, VDXG_RES_UNTRIED,
			    "descriptor %u", i);
	KUNIT_EXPECT_EQ_MSG(test, list->desc[i].error, 0, "descriptor %u", i);
	KUNIT_EXPECT_EQ_MSG(test, list->desc[i].start, 0, "descriptor %u", i);
	KUNIT_EXPECT_EQ_MSG(test, list->desc[i].len, 0, "descriptor %u", i);
}

static void vdxg_res_choose_preferred(struct kunit *test)
{
	struct vdxg_res_try_ctx *ctx;
	struct vdxg_res_list *list = vdxg_res_test_list(test, &ctx);

	KUNIT_EXPECT_EQ(test, vdxg_res_choose(list, 1, vdxg_res_fake_try, ctx),
			1);
	KUNIT_ASSERT_EQ(test, ctx->ncalls, 1);
	KUNIT_EXPECT_EQ(test, ctx->calls[0], 1);

	KUNIT_EXPECT_EQ(test, list->desc[1].state, VDXG_RES_ASSIGNED);
	KUNIT_EXPECT_EQ(test, list->desc[1].error, 0);
	KUNIT_EXPECT_EQ(test, list->desc[1].start, 33);
	KUNIT_EXPECT_EQ(test, list->desc[1].len, 1);
	/* The alternatives stay untried, other groups untouched. */
	vdxg_res_expect_untried(test, list, 0);
	vdxg_res_expect_untried(test, list, 2);
	vdxg_res_expect_untried(test, list, 3);
	vdxg_res_expect_untried(test, list, 4);
}

static void vdxg_res_choose_fallback(struct kunit *test)
{
	struct vdxg_res_try_ctx *ctx;
	struct vdxg_res_list *list = vdxg_res_test_list(test, &ctx);

	ctx->ret[1] = -ENOSPC;
	KUNIT_EXPECT_EQ(test, vdxg_res_choose(list, 1, vdxg_res_fake_try, ctx),
			2);
	KUNIT_ASSERT_EQ(test, ctx->ncalls, 2);
	KUNIT_EXPECT_EQ(test, ctx->calls[0], 1);
	KUNIT_EXPECT_EQ(test, ctx->calls[1], 2);

	KUNIT_EXPECT_EQ(test, list->desc[1].state, VDXG_RES_FAILED);
	KUNIT_EXPECT_EQ(test, list->desc[1].error, -ENOSPC);
	KUNIT_EXPECT_EQ(test, list->desc[1].start, 0);
	KUNIT_EXPECT_EQ(test, list->desc[1].len, 0);
	KUNIT_EXPECT_EQ(test, list->desc[2].state, VDXG_RES_ASSIGNED);
	KUNIT_EXPECT_EQ(test, list->desc[2].error, 0);
	KUNIT_EXPECT_EQ(test, list->desc[2].start, 34);
	KUNIT_EXPECT_EQ(test, list->desc[2].len, 1);
	vdxg_res_expect_untried(test, list, 3);

	/* Down to the last option. */
	ctx->ncalls = 0;
	ctx->ret[5] = -EBUSY;
	KUNIT_EXPECT_EQ(test, vdxg_res_choose(list, 5, vdxg_res_fake_try, ctx),
			6);
	KUNIT_EXPECT_EQ(test, ctx->ncalls, 2);
	KUNIT_EXPECT_EQ(test, list->desc[5].state, VDXG_RES_FAILED);
	KUNIT_EXPECT_EQ(test, list->desc[5].error, -EBUSY);
	KUNIT_EXPECT_EQ(test, list->desc[6].state, VDXG_RES_ASSIGNED);
	KUNIT_EXPECT_EQ(test, list->desc[6].start, 0x700000);
	KUNIT_EXPECT_EQ(test, list->desc[6].len, 0x10000);
}

/* Choosing again starts over at the preferred option. */
static void vdxg_res_choose_again(struct kunit *test)
{
	struct vdxg_res_try_ctx *ctx;
	struct vdxg_res_list *list = vdxg_res_test_list(test, &ctx);

	KUNIT_ASSERT_EQ(test, vdxg_res_choose(list, 1, vdxg_res_fake_try, ctx),
			1);
	KUNIT_ASSERT_EQ(test, list->desc[1].start, 33);

	/* A failed option keeps no range from an earlier attempt. */
	ctx->ncalls = 0;
	ctx->ret[1] = -EIO;
	KUNIT_EXPECT_EQ(test, vdxg_res_choose(list, 1, vdxg_res_fake_try, ctx),
			2);
	KUNIT_ASSERT_EQ(test, ctx->ncalls, 2);
	KUNIT_EXPECT_EQ(test, ctx->calls[0], 1);
	KUNIT_EXPECT_EQ(test, list->desc[1].state, VDXG_RES_FAILED);
	KUNIT_EXPECT_EQ(test, list->desc[1].error, -EIO);
	KUNIT_EXPECT_EQ(test, list->desc[1].start, 0);
	KUNIT_EXPECT_EQ(test, list->desc[1].len, 0);
	KUNIT_EXPECT_EQ(test, list->desc[2].state, VDXG_RES_ASSIGNED);
	KUNIT_EXPECT_EQ(test, list->desc[2].start, 34);
	vdxg_res_expect_untried(test, list, 3);

	/* The preferred option works again: it alone is assigned. */
	ctx->ncalls = 0;
	ctx->ret[1] = 0;
	KUNIT_EXPECT_EQ(test, vdxg_res_choose(list, 1, vdxg_res_fake_try, ctx),
			1);
	KUNIT_EXPECT_EQ(test, ctx->ncalls, 1);
	KUNIT_EXPECT_EQ(test, list->desc[1].state, VDXG_RES_ASSIGNED);
	vdxg_res_expect_untried(test, list, 2);
	vdxg_res_expect_untried(test, list, 3);
}

static void vdxg_res_choose_all_fail(struct kunit *test)
{
	struct vdxg_res_try_ctx *ctx;
	struct vdxg_res_list *list = vdxg_res_test_list(test, &ctx);

	ctx->ret[1] = -ENOSPC;
	ctx->ret[2] = -EIO;
	ctx->ret[3] = -ETIMEDOUT;
	KUNIT_EXPECT_EQ(test, vdxg_res_choose(list, 1, vdxg_res_fake_try, ctx),
			-ETIMEDOUT);
	/* Each option once, in order, and not into the next group. */
	KUNIT_ASSERT_EQ(test, ctx->ncalls, 3);
	KUNIT_EXPECT_EQ(test, ctx->calls[0], 1);
	KUNIT_EXPECT_EQ(test, ctx->calls[1], 2);
	KUNIT_EXPECT_EQ(test, ctx->calls[2], 3);

	KUNIT_EXPECT_EQ(test, list->desc[1].state, VDXG_RES_FAILED);
	KUNIT_EXPECT_EQ(test, list->desc[1].error, -ENOSPC);
	KUNIT_EXPECT_EQ(test, list->desc[2].state, VDXG_RES_FAILED);
	KUNIT_EXPECT_EQ(test, list->desc[2].error, -EIO);
	KUNIT_EXPECT_EQ(test, list->desc[3].state, VDXG_RES_FAILED);
	KUNIT_EXPECT_EQ(test, list->desc[3].error, -ETIMEDOUT);
	vdxg_res_expect_untried(test, list, 4);

	/*
	 * The last group ends at the end of the list, even when the slot
	 * after it holds something that looks like an alternative.
	 */
	list->desc[7] = list->desc[6];
	ctx->ncalls = 0;
	ctx->ret[5] = -EBUSY;
	ctx->ret[6] = -ENOMEM;
	KUNIT_EXPECT_EQ(test, vdxg_res_choose(list, 5, vdxg_res_fake_try, ctx),
			-ENOMEM);
	KUNIT_EXPECT_EQ(test, ctx->ncalls, 2);
}

static void vdxg_res_choose_not_a_group(struct kunit *test)
{
	struct vdxg_res_try_ctx *ctx;
	struct vdxg_res_list *list = vdxg_res_test_list(test, &ctx);
	unsigned int i;

	/* Alternatives do not start a group. */
	KUNIT_EXPECT_EQ(test, vdxg_res_choose(list, 2, vdxg_res_fake_try, ctx),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vdxg_res_choose(list, 3, vdxg_res_fake_try, ctx),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vdxg_res_choose(list, 6, vdxg_res_fake_try, ctx),
			-EINVAL);
	/* Out of range, including the unused slots of the array. */
	KUNIT_EXPECT_EQ(test, vdxg_res_choose(list, list->count,
					      vdxg_res_fake_try, ctx),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vdxg_res_choose(list, VDXG_RES_MAX,
					      vdxg_res_fake_try, ctx),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vdxg_res_choose(list, UINT_MAX,
					      vdxg_res_fake_try, ctx),
			-EINVAL);

	KUNIT_EXPECT_EQ(test, ctx->ncalls, 0);
	for (i = 0; i < list->count; i++)
		vdxg_res_expect_untried(test, list, i);

	/* An empty list has no groups. */
	list->count = 0;
	KUNIT_EXPECT_EQ(test, vdxg_res_choose(list, 0, vdxg_res_fake_try, ctx),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ctx->ncalls, 0);
}

static void vdxg_res_choose_required(struct kunit *test)
{
	struct vdxg_res_try_ctx *ctx;
	struct vdxg_res_list *list = vdxg_res_test_list(test, &ctx);

	/* A required descriptor that works. */
	KUNIT_EXPECT_EQ(test, vdxg_res_choose(list, 0, vdxg_res_fake_try, ctx),
			0);
	KUNIT_EXPECT_EQ(test, ctx->ncalls, 1);
	KUNIT_EXPECT_EQ(test, list->desc[0].state, VDXG_RES_ASSIGNED);
	KUNIT_EXPECT_EQ(test, list->desc[0].start, 0x100000);
	KUNIT_EXPECT_EQ(test, list->desc[0].len, 0x10000);

	/* One that fails is the whole group: the next one is not tried. */
	ctx->ncalls = 0;
	ctx->ret[4] = -ENODEV;
	KUNIT_EXPECT_EQ(test, vdxg_res_choose(list, 4, vdxg_res_fake_try, ctx),
			-ENODEV);
	KUNIT_ASSERT_EQ(test, ctx->ncalls, 1);
	KUNIT_EXPECT_EQ(test, ctx->calls[0], 4);
	KUNIT_EXPECT_EQ(test, list->desc[4].state, VDXG_RES_FAILED);
	KUNIT_EXPECT_EQ(test, list->desc[4].error, -ENODEV);
	vdxg_res_expect_untried(test, list, 5);
	vdxg_res_expect_untried(test, list, 6);

	/*
	 * vdxg_res_add() never puts an alternative after a required
	 * descriptor, but even then a required one is a group of one.
	 */
	ctx->ncalls = 0;
	list->desc[5].option = VDXG_IO_RESOURCE_REQUIRED;
	ctx->ret[5] = -EBUSY;
	KUNIT_EXPECT_EQ(test, vdxg_res_choose(list, 5, vdxg_res_fake_try, ctx),
			-EBUSY);
	KUNIT_EXPECT_EQ(test, ctx->ncalls, 1);
	vdxg_res_expect_untried(test, list, 6);
}

static void vdxg_res_release_group(struct kunit *test)
{
	struct vdxg_res_try_ctx *ctx;
	struct vdxg_res_list *list = vdxg_res_test_list(test, &ctx);
	unsigned int i;

	KUNIT_ASSERT_EQ(test, vdxg_res_choose(list, 0, vdxg_res_fake_try, ctx),
			0);
	ctx->ret[1] = -ENOSPC;
	KUNIT_ASSERT_EQ(test, vdxg_res_choose(list, 1, vdxg_res_fake_try, ctx),
			2);
	ctx->ret[5] = -EBUSY;
	ctx->ret[6] = -ENOMEM;
	KUNIT_ASSERT_EQ(test, vdxg_res_choose(list, 5, vdxg_res_fake_try, ctx),
			-ENOMEM);

	vdxg_res_release(list, 1);
	for (i = 1; i <= 3; i++)
		vdxg_res_expect_untried(test, list, i);
	/* Other groups keep their outcome. */
	KUNIT_EXPECT_EQ(test, list->desc[0].state, VDXG_RES_ASSIGNED);
	KUNIT_EXPECT_EQ(test, list->desc[0].start, 0x100000);
	KUNIT_EXPECT_EQ(test, list->desc[5].state, VDXG_RES_FAILED);
	KUNIT_EXPECT_EQ(test, list->desc[6].state, VDXG_RES_FAILED);

	/* A required descriptor is released alone. */
	vdxg_res_release(list, 0);
	vdxg_res_expect_untried(test, list, 0);
	KUNIT_EXPECT_EQ(test, list->desc[5].state, VDXG_RES_FAILED);

	/* A failed group is reset as well. */
	vdxg_res_release(list, 5);
	vdxg_res_expect_untried(test, list, 5);
	vdxg_res_expect_untried(test, list, 6);

	/* Out of range is ignored. */
	vdxg_res_release(list, list->count);
	vdxg_res_release(list, UINT_MAX);

	/* After a release the group can be chosen again. */
	ctx->ncalls = 0;
	ctx->ret[1] = 0;
	KUNIT_EXPECT_EQ(test, vdxg_res_choose(list, 1, vdxg_res_fake_try, ctx),
			1);
	KUNIT_EXPECT_EQ(test, ctx->ncalls, 1);
	KUNIT_EXPECT_EQ(test, list->desc[1].state, VDXG_RES_ASSIGNED);
	vdxg_res_expect_untried(test, list, 2);
}

/* ---------------------------------------------------------------------- */
/* vdxg_res_mem_fits                                                       */
/* ---------------------------------------------------------------------- */

/* 4 KiB, 4 KiB aligned, within 0x10000..0x1ffff. */
static const struct vdxg_res_desc vdxg_res_fits_desc =
	MEM_DESC("fits", VDXG_IO_RESOURCE_REQUIRED,
		 0x1000, 0x1000, 0x10000, 0x1ffff);

static void vdxg_res_mem_fits_exact(struct kunit *test)
{
	const struct vdxg_res_desc *d = &vdxg_res_fits_desc;

	KUNIT_EXPECT_TRUE(test, vdxg_res_mem_fits(d, 0x10000, 0x1000));
	/* At the very top of the range. */
	KUNIT_EXPECT_TRUE(test, vdxg_res_mem_fits(d, 0x1f000, 0x1000));
	/* Bigger than asked for is fine while it stays in range. */
	KUNIT_EXPECT_TRUE(test, vdxg_res_mem_fits(d, 0x10000, 0x10000));
	KUNIT_EXPECT_TRUE(test, vdxg_res_mem_fits(d, 0x18000, 0x2000));
}

static void vdxg_res_mem_fits_too_small(struct kunit *test)
{
	const struct vdxg_res_desc *d = &vdxg_res_fits_desc;

	KUNIT_EXPECT_FALSE(test, vdxg_res_mem_fits(d, 0x10000, 0xfff));
	KUNIT_EXPECT_FALSE(test, vdxg_res_mem_fits(d, 0x10000, 1));
}

static void vdxg_res_mem_fits_misaligned(struct kunit *test)
{
	const struct vdxg_res_desc *d = &vdxg_res_fits_desc;

	KUNIT_EXPECT_FALSE(test, vdxg_res_mem_fits(d, 0x10800, 0x1000));
	KUNIT_EXPECT_FALSE(test, vdxg_res_mem_fits(d, 0x10001, 0x1000));
	KUNIT_EXPECT_FALSE(test, vdxg_res_mem_fits(d, 0x1e800, 0x1000));
}

static void vdxg_res_mem_fits_below_min(struct kunit *test)
{
	const struct vdxg_res_desc *d = &vdxg_res_fits_desc;

	KUNIT_EXPECT_FALSE(test, vdxg_res_mem_fits(d, 0xf000, 0x1000));
	/* Even when it reaches into the range. */
	KUNIT_EXPECT_FALSE(test, vdxg_res_mem_fits(d, 0xf000, 0x2000));
	KUNIT_EXPECT_FALSE(test, vdxg_res_mem_fits(d, 0, 0x1000));
}

static void vdxg_res_mem_fits_above_max(struct kunit *test)
{
	const struct vdxg_res_desc *d = &vdxg_res_fits_desc;

	KUNIT_EXPECT_FALSE(test, vdxg_res_mem_fits(d, 0x20000, 0x1000));
	/* Starts inside, ends one byte past the maximum. */
	KUNIT_EXPECT_FALSE(test, vdxg_res_mem_fits(d, 0x1f000, 0x1001));
	KUNIT_EXPECT_FALSE(test, vdxg_res_mem_fits(d, 0x1f000, 0x2000));
}

static void vdxg_res_mem_fits_wrap(struct kunit *test)
{
	const struct vdxg_res_desc d = MEM_DESC("any", VDXG_IO_RESOURCE_REQUIRED,
						0x1000, 1, 0, U64_MAX);

	/* Ends exactly at U64_MAX. */
	KUNIT_EXPECT_TRUE(test, vdxg_res_mem_fits(&d, U64_MAX - 0xfff, 0x1000));
	/* One byte further wraps around to 0, which is below no maximum. */
	KUNIT_EXPECT_FALSE(test, vdxg_res_mem_fits(&d, U64_MAX - 0xffe, 0x1000));
	KUNIT_EXPECT_FALSE(test, vdxg_res_mem_fits(&d, U64_MAX, 0x1000));
	KUNIT_EXPECT_FALSE(test, vdxg_res_mem_fits(&d, 0x1000, U64_MAX));
	KUNIT_EXPECT_TRUE(test, vdxg_res_mem_fits(&d, 0, U64_MAX));
}

static void vdxg_res_mem_fits_zero_length(struct kunit *test)
{
	/* A zero-length request would make an empty range look like it fits. */
	struct vdxg_res_desc d = MEM_DESC("empty", VDXG_IO_RESOURCE_REQUIRED,
					  0, 1, 0, U64_MAX);

	KUNIT_EXPECT_FALSE(test, vdxg_res_mem_fits(&d, 0, 0));
	KUNIT_EXPECT_FALSE(test, vdxg_res_mem_fits(&d, 0x1000, 0));
	KUNIT_EXPECT_FALSE(test, vdxg_res_mem_fits(&vdxg_res_fits_desc,
						   0x10000, 0));
}

static void vdxg_res_mem_fits_not_memory(struct kunit *test)
{
	struct vdxg_res_desc d = vdxg_res_fits_desc;

	d.type = VDXG_RES_TYPE_MEMORY_LARGE;
	KUNIT_EXPECT_TRUE(test, vdxg_res_mem_fits(&d, 0x10000, 0x1000));

	/* The same numbers in a non-memory descriptor never fit. */
	d.type = VDXG_RES_TYPE_INTERRUPT;
	KUNIT_EXPECT_FALSE(test, vdxg_res_mem_fits(&d, 0x10000, 0x1000));
	d.type = VDXG_RES_TYPE_PORT;
	KUNIT_EXPECT_FALSE(test, vdxg_res_mem_fits(&d, 0x10000, 0x1000));
	d.type = 0;
	KUNIT_EXPECT_FALSE(test, vdxg_res_mem_fits(&d, 0x10000, 0x1000));
}

/* ---------------------------------------------------------------------- */
/* vdxg_res_print                                                          */
/* ---------------------------------------------------------------------- */

#define VDXG_RES_PRINT_SIZE 4096

struct vdxg_res_print_buf {
	char *buf;
	size_t len;
	bool truncated;
};

static void vdxg_res_print_fn(struct drm_printer *p, struct va_format *vaf)
{
	struct vdxg_res_print_buf *pb = p->arg;
	size_t room = VDXG_RES_PRINT_SIZE - pb->len;
	size_t n;

	n = snprintf(pb->buf + pb->len, room, "%pV", vaf);
	if (n >= room) {
		pb->truncated = true;
		pb->len = VDXG_RES_PRINT_SIZE - 1;
	} else {
		pb->len += n;
	}
}

static const char *vdxg_res_print_list(struct kunit *test,
				       const struct vdxg_res_list *list)
{
	struct vdxg_res_print_buf *pb;
	struct drm_printer p = {};

	pb = kunit_kzalloc(test, sizeof(*pb), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pb);
	pb->buf = kunit_kzalloc(test, VDXG_RES_PRINT_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pb->buf);

	p.printfn = vdxg_res_print_fn;
	p.arg = pb;
	vdxg_res_print(list, &p);

	KUNIT_EXPECT_FALSE(test, pb->truncated);
	return pb->buf;
}

static void vdxg_expect_contains(struct kunit *test, const char *out,
				 const char *lines)
{
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(out, lines),
				  "missing:\n%s\nin:\n%s", lines, out);
}

static void vdxg_res_print_outcome(struct kunit *test)
{
	struct vdxg_res_try_ctx *ctx;
	struct vdxg_res_list *list = vdxg_res_test_list(test, &ctx);
	const char *out, *tail;

	list->desc[0].name = "registers";
	list->desc[0].flags = VDXG_RES_MEM_READ_ONLY |
			      VDXG_RES_MEM_PREFETCHABLE | VDXG_RES_MEM_LARGE_64;
	KUNIT_ASSERT_EQ(test, vdxg_res_choose(list, 0, vdxg_res_fake_try, ctx),
			0);
	ctx->ret[1] = -ETIMEDOUT;
	KUNIT_ASSERT_EQ(test, vdxg_res_choose(list, 1, vdxg_res_fake_try, ctx),
			2);

	out = vdxg_res_print_list(test, list);

	vdxg_expect_contains(test, out,
			     "[0] registers\n"
			     "\ttype: Memory\n"
			     "\toption: required\n"
			     "\tshare: DeviceExclusive\n"
			     "\tflags: 0x0805 READ_ONLY|PREFETCHABLE|LARGE_64\n"
			     "\tlength: 0x10000\n"
			     "\talignment: 0x10000\n"
			     "\tmin_address: 0x0\n"
			     "\tmax_address: 0xffffffff\n"
			     "\tassigned: 0x100000-0x10ffff (0x10000)\n"
			     "[1] msix\n");
	vdxg_expect_contains(test, out,
			     "[1] msix\n"
			     "\ttype: Interrupt\n"
			     "\toption: preferred\n"
			     "\tshare: DeviceExclusive\n"
			     "\tflags: 0x0003 LATCHED|MESSAGE\n"
			     "\tvectors: 1-8\n"
			     "\tassigned: no (failed: -110)\n"
			     "[2] msi\n");
	vdxg_expect_contains(test, out,
			     "[2] msi\n"
			     "\ttype: Interrupt\n"
			     "\toption: alternative\n"
			     "\tshare: DeviceExclusive\n"
			     "\tflags: 0x0003 LATCHED|MESSAGE\n"
			     "\tvectors: 1-1\n"
			     "\tassigned: irq 34, 1 vector(s)\n"
			     "[3] intx\n");
	vdxg_expect_contains(test, out,
			     "[3] intx\n"
			     "\ttype: Interrupt\n"
			     "\toption: alternative\n"
			     "\tshare: Shared\n"
			     "\tflags: 0x0000 LEVEL_SENSITIVE\n"
			     "\tvectors: 1-1\n"
			     "\tassigned: no (not tried)\n"
			     "[4] bar\n");
	vdxg_expect_contains(test, out,
			     "[4] bar\n"
			     "\ttype: Memory\n"
			     "\toption: required\n"
			     "\tshare: DeviceExclusive\n"
			     "\tflags: 0x0000 READ_WRITE\n");
	/* The list ends with the last descriptor's outcome. */
	vdxg_expect_contains(test, out,
			     "[6] bar\n"
			     "\ttype: Memory\n"
			     "\toption: alternative\n");
	KUNIT_EXPECT_NULL(test, strstr(out, "[7]"));
	tail = "\tassigned: no (not tried)\n";
	KUNIT_ASSERT_GE(test, strlen(out), strlen(tail));
	KUNIT_EXPECT_STREQ(test, out + strlen(out) - strlen(tail), tail);
}

static void vdxg_res_print_names(struct kunit *test)
{
	struct vdxg_res_list *list;
	struct vdxg_res_desc *d;
	const char *out;

	list = kunit_kzalloc(test, sizeof(*list), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, list);

	/* An empty list prints nothing. */
	out = vdxg_res_print_list(test, list);
	KUNIT_EXPECT_STREQ(test, out, "");

	/* Names for values vdxg_res_add() would refuse, as debugfs shows them. */
	list->count = 1;
	d = &list->desc[0];
	*d = MEM_DESC("vram", VDXG_IO_RESOURCE_DEFAULT, 1ULL << 32, 1ULL << 32,
		      0, U64_MAX);
	d->type = VDXG_RES_TYPE_MEMORY_LARGE;
	d->share = 7;
	d->flags = VDXG_RES_MEM_PREFETCHABLE | VDXG_RES_MEM_LARGE_64;
	d->state = VDXG_RES_ASSIGNED;
	d->start = 0x4000000000ULL;
	d->len = 1ULL << 32;
	out = vdxg_res_print_list(test, list);
	KUNIT_EXPECT_STREQ(test, out,
			   "[0] vram\n"
			   "\ttype: MemoryLarge\n"
			   "\toption: default\n"
			   "\tshare: Unknown\n"
			   "\tflags: 0x0804 READ_WRITE|PREFETCHABLE|LARGE_64\n"
			   "\tlength: 0x100000000\n"
			   "\talignment: 0x100000000\n"
			   "\tmin_address: 0x0\n"
			   "\tmax_address: 0xffffffffffffffff\n"
			   "\tassigned: 0x4000000000-0x40ffffffff (0x100000000)\n");
}

static struct kunit_case vdxg_resource_test_cases[] = {
	KUNIT_CASE_PARAM(vdxg_res_add_validate, vdxg_res_add_gen_params),
	KUNIT_CASE(vdxg_res_add_indices),
	KUNIT_CASE(vdxg_res_add_alternative_after_required),
	KUNIT_CASE(vdxg_res_add_alternative_other_type),
	KUNIT_CASE(vdxg_res_add_full),
	KUNIT_CASE(vdxg_res_choose_preferred),
	KUNIT_CASE(vdxg_res_choose_fallback),
	KUNIT_CASE(vdxg_res_choose_again),
	KUNIT_CASE(vdxg_res_choose_all_fail),
	KUNIT_CASE(vdxg_res_choose_not_a_group),
	KUNIT_CASE(vdxg_res_choose_required),
	KUNIT_CASE(vdxg_res_release_group),
	KUNIT_CASE(vdxg_res_mem_fits_exact),
	KUNIT_CASE(vdxg_res_mem_fits_too_small),
	KUNIT_CASE(vdxg_res_mem_fits_misaligned),
	KUNIT_CASE(vdxg_res_mem_fits_below_min),
	KUNIT_CASE(vdxg_res_mem_fits_above_max),
	KUNIT_CASE(vdxg_res_mem_fits_wrap),
	KUNIT_CASE(vdxg_res_mem_fits_zero_length),
	KUNIT_CASE(vdxg_res_mem_fits_not_memory),
	KUNIT_CASE(vdxg_res_print_outcome),
	KUNIT_CASE(vdxg_res_print_names),
	{}
};

static struct kunit_suite vdxg_resource_test_suite = {
	.name = "vdxg_resource",
	.test_cases = vdxg_resource_test_cases,
};

kunit_test_suite(vdxg_resource_test_suite);
