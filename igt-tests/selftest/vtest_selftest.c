// SPDX-License-Identifier: MIT
/*
 * vtest_selftest: one subtest per outcome, to check vtest's protocol output
 * (make -C igt-tests check). Not installed in the guest image.
 */
#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include "vtest.h"

static void test_pass(void)
{
	vtest_assert_eq(1 + 1, 2);
	vtest_info("informational line");
}

static void test_skip(void)
{
	vtest_skip("skipped on purpose");
}

static void test_fail(void)
{
	vtest_assert_eq_u64(1ull << 20, 3);
}

static void test_errno(void)
{
	vtest_assert_errno(close(-1), EINVAL);
}

static void test_crash(void)
{
	raise(SIGSEGV);
}

static void test_timeout(void)
{
	vtest_set_timeout(1);
	sleep(5);
}

static const struct vtest_subtest tests[] = {
	{ "pass", test_pass, "passes" },
	{ "skip", test_skip, "skips" },
	{ "fail", test_fail, "fails an assertion" },
	{ "errno", test_errno, "fails an errno assertion" },
	{ "crash", test_crash, "dies on SIGSEGV" },
	{ "timeout", test_timeout, "times out" },
};

VTEST_MAIN(tests)
