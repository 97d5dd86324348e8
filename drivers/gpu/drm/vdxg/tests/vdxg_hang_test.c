// SPDX-License-Identifier: MIT
/*
 * KUnit tests for the hang policy (vdxg_hang.c): the verdict at a job
 * timeout and the ban of a file that keeps hanging the engine.
 *
 * Copyright 2026 The vdxg authors
 */

#include <kunit/test.h>

#include <linux/string.h>
#include <linux/time64.h>

#include "vdxg_hang.h"
#include "vdxg_hw.h"

/* A fault or an unmet WAIT is a hang at once, even on a new entry. */
static void hang_halted_or_waiting(struct kunit *test)
{
	struct vdxg_hang_watch w = {};

	KUNIT_EXPECT_EQ(test, vdxg_hang_check(&w, 7, VDXG_ENG_STATUS_HALTED, 0, true),
			VDXG_HANG_HUNG);
	KUNIT_EXPECT_EQ(test, vdxg_hang_check(&w, 8, VDXG_ENG_STATUS_WAITING,
					      5, true),
			VDXG_HANG_HUNG);
	/* Whatever the progress. */
	KUNIT_EXPECT_EQ(test, vdxg_hang_check(&w, 8, VDXG_ENG_STATUS_WAITING,
					      6, true),
			VDXG_HANG_HUNG);
}

/* The first timeout only measures; no work by the next is a hang. */
static void hang_no_progress(struct kunit *test)
{
	struct vdxg_hang_watch w = {};

	KUNIT_EXPECT_EQ(test, vdxg_hang_check(&w, 3, 0, 0, true), VDXG_HANG_RUNNING);
	KUNIT_EXPECT_EQ(test, w.seqno, 3);
	KUNIT_EXPECT_EQ(test, vdxg_hang_check(&w, 3, 0, 0, true), VDXG_HANG_HUNG);

	w = (struct vdxg_hang_watch){};
	KUNIT_EXPECT_EQ(test, vdxg_hang_check(&w, 4, 0, 10, true), VDXG_HANG_RUNNING);
	KUNIT_EXPECT_EQ(test, vdxg_hang_check(&w, 4, 0, 11, true), VDXG_HANG_RUNNING);
	KUNIT_EXPECT_EQ(test, vdxg_hang_check(&w, 4, 0, 11, true), VDXG_HANG_HUNG);
}

/* A new head entry starts a new measure: the ring moved on. */
static void hang_new_entry(struct kunit *test)
{
	struct vdxg_hang_watch w = {};

	KUNIT_EXPECT_EQ(test, vdxg_hang_check(&w, 1, 0, 50, true), VDXG_HANG_RUNNING);
	KUNIT_EXPECT_EQ(test, vdxg_hang_check(&w, 2, 0, 50, true), VDXG_HANG_RUNNING);
	KUNIT_EXPECT_EQ(test, w.periods, 0);
	KUNIT_EXPECT_EQ(test, vdxg_hang_check(&w, 2, 0, 50, true), VDXG_HANG_HUNG);
}

/* Progress buys VDXG_HANG_MAX_PERIODS timeouts, not more. */
static void hang_too_long(struct kunit *test)
{
	struct vdxg_hang_watch w = {};
	unsigned int i;

	KUNIT_EXPECT_EQ(test, vdxg_hang_check(&w, 9, 0, 0, true), VDXG_HANG_RUNNING);
	for (i = 1; i < VDXG_HANG_MAX_PERIODS; i++)
		KUNIT_EXPECT_EQ(test, vdxg_hang_check(&w, 9, 0, i, true),
				VDXG_HANG_RUNNING);
	KUNIT_EXPECT_EQ(test, vdxg_hang_check(&w, 9, 0, i, true), VDXG_HANG_TOO_LONG);
}

/*
 * Alone on the engine, a job that keeps making progress runs through
 * VDXG_HANG_MAX_PERIODS_ALONE timeouts; once another client waits, the
 * next timeout past VDXG_HANG_MAX_PERIODS ends it.
 */
static void hang_too_long_alone(struct kunit *test)
{
	struct vdxg_hang_watch w = {};
	unsigned int i;

	KUNIT_EXPECT_EQ(test, vdxg_hang_check(&w, 9, 0, 0, false),
			VDXG_HANG_RUNNING);
	for (i = 1; i < VDXG_HANG_MAX_PERIODS_ALONE; i++)
		KUNIT_EXPECT_EQ(test, vdxg_hang_check(&w, 9, 0, i, false),
				VDXG_HANG_RUNNING);
	KUNIT_EXPECT_EQ(test, vdxg_hang_check(&w, 9, 0, i, false),
			VDXG_HANG_TOO_LONG);

	w = (struct vdxg_hang_watch){};
	for (i = 0; i <= 2 * VDXG_HANG_MAX_PERIODS; i++)
		KUNIT_EXPECT_EQ(test, vdxg_hang_check(&w, 10, 0, i, false),
				VDXG_HANG_RUNNING);
	KUNIT_EXPECT_EQ(test, vdxg_hang_check(&w, 10, 0, i, true),
			VDXG_HANG_TOO_LONG);

	/* Alone, no progress is still a hang at once. */
	w = (struct vdxg_hang_watch){};
	KUNIT_EXPECT_EQ(test, vdxg_hang_check(&w, 11, 0, 4, false),
			VDXG_HANG_RUNNING);
	KUNIT_EXPECT_EQ(test, vdxg_hang_check(&w, 11, 0, 4, false),
			VDXG_HANG_HUNG);
}

/* PROGRESS wraps at 2^32: a change is progress, whichever way. */
static void hang_progress_wraps(struct kunit *test)
{
	struct vdxg_hang_watch w = {};

	KUNIT_EXPECT_EQ(test, vdxg_hang_check(&w, 5, 0, U32_MAX, true),
			VDXG_HANG_RUNNING);
	KUNIT_EXPECT_EQ(test, vdxg_hang_check(&w, 5, 0, 0, true), VDXG_HANG_RUNNING);
	KUNIT_EXPECT_EQ(test, vdxg_hang_check(&w, 5, 0, 0, true), VDXG_HANG_HUNG);
}

#define WINDOW	(60 * NSEC_PER_SEC)

/* The fifth reset within the window bans; four do not. */
static void ban_fifth(struct kunit *test)
{
	u64 hangs[5] = {};
	unsigned int next = 0, i;

	for (i = 1; i <= 4; i++)
		KUNIT_EXPECT_FALSE(test, vdxg_hang_ban(hangs, 5, &next,
						       i * NSEC_PER_SEC,
						       WINDOW));
	KUNIT_EXPECT_TRUE(test, vdxg_hang_ban(hangs, 5, &next,
					      5 * NSEC_PER_SEC, WINDOW));
}

/* Resets spread wider than the window never ban. */
static void ban_spread(struct kunit *test)
{
	u64 hangs[5] = {};
	unsigned int next = 0, i;

	for (i = 1; i <= 50; i++)
		KUNIT_EXPECT_FALSE(test, vdxg_hang_ban(hangs, 5, &next,
						       i * 16 * NSEC_PER_SEC,
						       WINDOW));
	/* Then five quick ones do. */
	for (i = 1; i <= 4; i++)
		KUNIT_EXPECT_FALSE(test, vdxg_hang_ban(hangs, 5, &next,
						       (1000 + i) *
						       NSEC_PER_SEC, WINDOW));
	KUNIT_EXPECT_TRUE(test, vdxg_hang_ban(hangs, 5, &next,
					      1005 * NSEC_PER_SEC, WINDOW));
}

/* Exactly at the window's edge still counts; past it does not. */
static void ban_edge(struct kunit *test)
{
	u64 hangs[5] = {};
	unsigned int next = 0, i;

	for (i = 0; i < 4; i++)
		vdxg_hang_ban(hangs, 5, &next, (1 + i) * NSEC_PER_SEC, WINDOW);
	KUNIT_EXPECT_TRUE(test, vdxg_hang_ban(hangs, 5, &next,
					      NSEC_PER_SEC + WINDOW, WINDOW));
	memset(hangs, 0, sizeof(hangs));
	next = 0;
	for (i = 0; i < 4; i++)
		vdxg_hang_ban(hangs, 5, &next, (1 + i) * NSEC_PER_SEC, WINDOW);
	KUNIT_EXPECT_FALSE(test, vdxg_hang_ban(hangs, 5, &next,
					       NSEC_PER_SEC + WINDOW + 1,
					       WINDOW));
}

static struct kunit_case vdxg_hang_cases[] = {
	KUNIT_CASE(hang_halted_or_waiting),
	KUNIT_CASE(hang_no_progress),
	KUNIT_CASE(hang_new_entry),
	KUNIT_CASE(hang_too_long),
	KUNIT_CASE(hang_too_long_alone),
	KUNIT_CASE(hang_progress_wraps),
	KUNIT_CASE(ban_fifth),
	KUNIT_CASE(ban_spread),
	KUNIT_CASE(ban_edge),
	{}
};

static struct kunit_suite vdxg_hang_suite = {
	.name = "vdxg_hang",
	.test_cases = vdxg_hang_cases,
};

kunit_test_suite(vdxg_hang_suite);
