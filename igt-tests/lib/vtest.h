/* SPDX-License-Identifier: MIT */
/*
 * vtest: a small test library that speaks igt_runner's text protocol, for
 * vdxg's own tests (IGT's headers and libigt are not available to link).
 *
 * A test binary declares its subtests in an array and calls VTEST_MAIN():
 *
 *	static void test_foo(void) { vtest_assert_eq(1 + 1, 2); }
 *	static const struct vtest_subtest tests[] = {
 *		{ "foo", test_foo, "one plus one" },
 *	};
 *	VTEST_MAIN(tests)
 *
 * Command line (what igt_runner passes, as IGT's own tests take it):
 *	--list-subtests			print the subtest names, exit 0
 *	--run-subtest NAME[,NAME...]	run these (shell wildcards allowed)
 *	--dynamic-subtest NAME		none here: exits 79 (invalid)
 *	--hook STR, --debug[=x], --device STR, --trace-on-oops,
 *	--skip-crc-compare, --interactive-debug[=x]	accepted, ignored
 *	--describe[=PATTERN]		print the descriptions
 *	(no arguments)			run every subtest
 *
 * Output: "IGT-Version: ..." first, then for each subtest "Starting subtest:
 * NAME" and "Subtest NAME: SUCCESS|SKIP|FAIL|CRASH|TIMEOUT (1.234s)". Each
 * subtest runs in a forked child, so a crash or an assertion ends only that
 * subtest. Exit status: 0 success, 77 all skipped, 79 invalid usage,
 * 98 failure.
 *
 * Informational output goes to stdout; failures to stderr (igt_runner turns
 * unexpected stderr output of a passing test into "warn").
 */
#ifndef VTEST_H
#define VTEST_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define VTEST_EXIT_SUCCESS	0
#define VTEST_EXIT_SKIP		77
#define VTEST_EXIT_TIMEOUT	78
#define VTEST_EXIT_INVALID	79
#define VTEST_EXIT_FAILURE	98

#define VTEST_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct vtest_subtest {
	const char *name;	/* [A-Za-z0-9_-] only */
	void (*func)(void);
	const char *description;
};

int vtest_main(int argc, char **argv, const struct vtest_subtest *subtests,
	       size_t count);

#define VTEST_MAIN(list)						\
	int main(int argc, char **argv)					\
	{								\
		return vtest_main(argc, argv, list, VTEST_ARRAY_SIZE(list)); \
	}

/* Seconds a subtest may run before it is killed (TIMEOUT); default 300,
 * overridden by the environment variable VTEST_TIMEOUT. */
void vtest_set_timeout(unsigned int seconds);

/* ------------------------------------------------------------------ results */

__attribute__((noreturn, format(printf, 4, 5)))
void vtest_fail_at(const char *file, int line, const char *func,
		   const char *fmt, ...);
__attribute__((noreturn, format(printf, 4, 5)))
void vtest_skip_at(const char *file, int line, const char *func,
		   const char *fmt, ...);
__attribute__((format(printf, 1, 2)))
void vtest_info(const char *fmt, ...);

#define vtest_fail(...) vtest_fail_at(__FILE__, __LINE__, __func__, __VA_ARGS__)
#define vtest_skip(...) vtest_skip_at(__FILE__, __LINE__, __func__, __VA_ARGS__)

/* Skip the subtest unless COND holds. */
#define vtest_require(cond)						\
	do {								\
		if (!(cond))						\
			vtest_skip("requirement not met: %s", #cond);	\
	} while (0)
#define vtest_require_f(cond, ...)					\
	do {								\
		if (!(cond))						\
			vtest_skip(__VA_ARGS__);			\
	} while (0)

#define vtest_assert(expr)						\
	do {								\
		if (!(expr))						\
			vtest_fail("assertion failed: %s", #expr);	\
	} while (0)
#define vtest_assert_f(expr, fmt, ...)					\
	do {								\
		if (!(expr))						\
			vtest_fail("assertion failed: %s: " fmt, #expr,	\
				   ##__VA_ARGS__);			\
	} while (0)

/* Signed comparisons, values shown in decimal. */
#define __vtest_cmp_s(a, op, b)						\
	do {								\
		long long __a = (long long)(a), __b = (long long)(b);	\
		if (!(__a op __b))					\
			vtest_fail("assertion failed: %s " #op " %s: "	\
				   "%lld " #op " %lld is false",		\
				   #a, #b, __a, __b);			\
	} while (0)
/* Unsigned 64-bit comparisons, values shown in decimal and hex. */
#define __vtest_cmp_u(a, op, b)						\
	do {								\
		unsigned long long __a = (unsigned long long)(a);	\
		unsigned long long __b = (unsigned long long)(b);	\
		if (!(__a op __b))					\
			vtest_fail("assertion failed: %s " #op " %s: "	\
				   "%llu (0x%llx) " #op " %llu (0x%llx) "	\
				   "is false", #a, #b, __a, __a, __b, __b); \
	} while (0)

#define vtest_assert_eq(a, b)		__vtest_cmp_s(a, ==, b)
#define vtest_assert_neq(a, b)		__vtest_cmp_s(a, !=, b)
#define vtest_assert_lt(a, b)		__vtest_cmp_s(a, <, b)
#define vtest_assert_lte(a, b)		__vtest_cmp_s(a, <=, b)
#define vtest_assert_eq_u64(a, b)	__vtest_cmp_u(a, ==, b)
#define vtest_assert_neq_u64(a, b)	__vtest_cmp_u(a, !=, b)
#define vtest_assert_lte_u64(a, b)	__vtest_cmp_u(a, <=, b)

#define vtest_assert_str_eq(a, b)					\
	do {								\
		const char *__a = (a), *__b = (b);			\
		if (!__a || !__b || strcmp(__a, __b))			\
			vtest_fail("assertion failed: %s == %s: "	\
				   "\"%s\" != \"%s\"", #a, #b,		\
				   __a ? __a : "(null)",		\
				   __b ? __b : "(null)");		\
	} while (0)

/* A call that returns 0 on success and -1 with errno on error. */
#define vtest_assert_ok(call)						\
	do {								\
		int __r = (call);					\
		if (__r != 0)						\
			vtest_fail("%s returned %d, errno %d (%s)",	\
				   #call, __r, errno, strerror(errno));	\
	} while (0)
/* A call that must fail with -1 and errno ERR. */
#define vtest_assert_errno(call, err)					\
	do {								\
		int __r;						\
		errno = 0;						\
		__r = (call);						\
		if (__r != -1 || errno != (err))			\
			vtest_fail("%s returned %d, errno %d (%s); "	\
				   "expected -1, errno %d (%s)",	\
				   #call, __r, errno, strerror(errno),	\
				   (err), strerror(err));		\
	} while (0)

/* ------------------------------------------------------------------ DRM */

enum vtest_node { VTEST_NODE_CARD, VTEST_NODE_RENDER };

/* ioctl() restarted on EINTR/EAGAIN, like libdrm's drmIoctl(). */
int vtest_ioctl(int fd, unsigned long request, void *arg);

/* The DRM driver name behind FD into BUF; false if DRM_IOCTL_VERSION fails. */
bool vtest_drm_driver_name(int fd, char *buf, size_t len);

/*
 * Open the first /dev/dri/card* (or renderD*) node whose driver is DRIVER
 * ("vdxg" for vtest_open_vdxg). Returns the fd, or -1 when there is none.
 * PATH (if non-NULL, PATH_MAX bytes) receives the node's path. With the
 * environment variable VDXG_TEST_DEVICE set to a PCI address, only that
 * device's nodes are vdxg's.
 */
int vtest_drm_open_driver(const char *driver, enum vtest_node node,
			  char *path);
/* The vdxg node; skips the subtest when there is no vdxg device. */
#define vtest_open_vdxg(node) \
	__vtest_open_vdxg(node, __FILE__, __LINE__, __func__)
int __vtest_open_vdxg(enum vtest_node node, const char *file, int line,
		      const char *func);
/*
 * vgem's card node, after "modprobe vgem" when there is none; skips the
 * subtest when vgem cannot be loaded. PATH as for vtest_drm_open_driver.
 */
#define vtest_open_vgem(path) \
	__vtest_open_vgem(path, __FILE__, __LINE__, __func__)
int __vtest_open_vgem(char *path, const char *file, int line,
		      const char *func);

/* The minor number of a DRM fd (st_rdev), or -1. */
int vtest_drm_minor(int fd);

/* The PCI address ("0000:00:02.0") of the device behind a DRM fd. */
bool vtest_drm_pci_bdf(int fd, char *bdf, size_t len);

/* ------------------------------------------------------------------ system */

/* The value of KEY=VALUE on /proc/cmdline into BUF; false when absent. */
bool vtest_cmdline_get(const char *key, char *buf, size_t len);
/* KEY's value as a number (strtoull base 0), or DEF when absent. */
uint64_t vtest_cmdline_u64(const char *key, uint64_t def);
/* KEY's value compared to "on"/"off" etc.; DEF when absent. */
bool vtest_cmdline_bool(const char *key, bool def);

/* Read a whole small file into BUF (NUL-terminated, trailing newline
 * stripped). Returns bytes read or -errno. */
int vtest_read_file(const char *path, char *buf, size_t len);
/* Write STR to PATH (a sysfs attribute). Returns 0 or -errno. */
int vtest_write_file(const char *path, const char *str);
bool vtest_path_exists(const char *path);
/*
 * Running on the project's debug kernel (KASAN, lockdep, kmemleak: page
 * work several times slower), for tests that scale down there.
 */
bool vtest_debug_kernel(void);

/* Run a shell command; returns its exit status (or 128 + signal, -1). */
__attribute__((format(printf, 1, 2)))
int vtest_system(const char *fmt, ...);
/* Run a shell command and capture its stdout into BUF. Returns the status. */
__attribute__((format(printf, 3, 4)))
int vtest_system_output(char *buf, size_t len, const char *fmt, ...);

/* The first PCI function with VENDOR:DEVICE; BDF receives "0000:00:02.0".
 * Returns false if none. */
bool vtest_pci_find(unsigned int vendor, unsigned int device, char *bdf,
		    size_t len);

/* ------------------------------------------------------------------ kmsg */

/* The sequence number of the newest kernel log record. */
uint64_t vtest_kmsg_seq(void);
/* Write a line to the kernel log (at KERN_INFO), prefixed "[vtest] ". */
__attribute__((format(printf, 1, 2)))
void vtest_kmsg_mark(const char *fmt, ...);
/*
 * Tell igt_runner that kernel messages matching REGEX are expected in the
 * rest of this subtest (IGT's igt_emit_ignore_dmesg_regex).
 */
void vtest_ignore_dmesg(const char *regex);
/*
 * Kernel log records after sequence SINCE that report a problem: level
 * error or worse, or text such as "WARNING:", "BUG:", "Call Trace",
 * "Oops", lockdep and KASAN/UBSAN reports (warning-level lines alone are
 * not counted: PCI and DRM core print benign ones on hotplug). Each is
 * printed to stdout; returns how many there were.
 */
int vtest_kmsg_problems(uint64_t since);
/* Records after SINCE whose text contains NEEDLE; count returned. */
int vtest_kmsg_grep(uint64_t since, const char *needle);

#endif /* VTEST_H */
