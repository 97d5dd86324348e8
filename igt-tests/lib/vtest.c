// SPDX-License-Identifier: MIT
/*
 * vtest: igt_runner's text protocol and helpers for vdxg's tests. See
 * vtest.h for the interface.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <drm.h>

#include "vtest.h"

#define VTEST_VERSION "2.5-vtest"

static const char *vtest_binary = "vtest";
static const char *vtest_current;	/* the subtest running in this process */
static unsigned int vtest_timeout = 300;
static bool vtest_sentinel;		/* IGT_SENTINEL_ON_STDERR */

void vtest_set_timeout(unsigned int seconds)
{
	vtest_timeout = seconds;
	if (vtest_current)	/* inside a subtest: re-arm its alarm */
		alarm(seconds);
}

/* ------------------------------------------------------------------ results */

void vtest_fail_at(const char *file, int line, const char *func,
		   const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "(%s:%d) FAIL in subtest %s, %s:%d %s(): ",
		vtest_binary, getpid(), vtest_current ? vtest_current : "-",
		file, line, func);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	exit(VTEST_EXIT_FAILURE);
}

void vtest_skip_at(const char *file, int line, const char *func,
		   const char *fmt, ...)
{
	va_list ap;

	printf("Test requirement not met in %s:%d %s(): ", file, line, func);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	exit(VTEST_EXIT_SKIP);
}

void vtest_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* ------------------------------------------------------------------ runner */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void kmsg_write(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static void kmsg_write(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int fd, n;

	/*
	 * A test run by another test (VTEST_NESTED set) stays out of the
	 * kernel log: the runner would take its "[IGT]" lines for subtests
	 * of the test that runs it.
	 */
	if (getenv("VTEST_NESTED"))
		return;
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		(void)!write(fd, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
	close(fd);
}

static void usage(const struct vtest_subtest *t, size_t count)
{
	size_t i;

	printf("Usage: %s [--list-subtests | --describe[=PATTERN] |"
	       " --run-subtest NAME[,NAME...]]\nSubtests:\n", vtest_binary);
	for (i = 0; i < count; i++)
		printf("  %s\n", t[i].name);
}

/* Which subtests a --run-subtest list selects; false if a name matches none. */
static bool select_subtests(const char *list, const struct vtest_subtest *t,
			    size_t count, bool *selected)
{
	char *dup = strdup(list), *save = NULL, *pat;
	bool ok = true;
	size_t i;

	for (pat = strtok_r(dup, ",", &save); pat;
	     pat = strtok_r(NULL, ",", &save)) {
		bool any = false;

		for (i = 0; i < count; i++) {
			if (!fnmatch(pat, t[i].name, 0)) {
				selected[i] = true;
				any = true;
			}
		}
		if (!any) {
			fprintf(stderr, "Unknown subtest: %s\n", pat);
			ok = false;
		}
	}
	free(dup);
	return ok;
}

static int run_one(const struct vtest_subtest *t)
{
	const char *result;
	double start, elapsed;
	int status, ret;
	pid_t pid;

	printf("Starting subtest: %s\n", t->name);
	fflush(stdout);
	if (vtest_sentinel) {
		fprintf(stderr, "Starting subtest: %s\n", t->name);
		fflush(stderr);
	}
	kmsg_write("<6>[IGT] %s: starting subtest %s\n", vtest_binary, t->name);

	start = now();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "fork: %s\n", strerror(errno));
		status = VTEST_EXIT_FAILURE << 8;
	} else if (pid == 0) {
		vtest_current = t->name;
		signal(SIGALRM, SIG_DFL);
		alarm(vtest_timeout);
		t->func();
		fflush(NULL);
		exit(VTEST_EXIT_SUCCESS);
	} else {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	elapsed = now() - start;

	if (WIFEXITED(status)) {
		switch (WEXITSTATUS(status)) {
		case VTEST_EXIT_SUCCESS:
			result = "SUCCESS";
			ret = VTEST_EXIT_SUCCESS;
			break;
		case VTEST_EXIT_SKIP:
			result = "SKIP";
			ret = VTEST_EXIT_SKIP;
			break;
		default:
			result = "FAIL";
			ret = VTEST_EXIT_FAILURE;
			break;
		}
	} else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
		fprintf(stderr, "subtest %s timed out\n", t->name);
		result = "TIMEOUT";
		ret = VTEST_EXIT_FAILURE;
	} else {
		fprintf(stderr, "subtest %s received signal %d (%s)\n", t->name,
			WTERMSIG(status), strsignal(WTERMSIG(status)));
		result = "CRASH";
		ret = VTEST_EXIT_FAILURE;
	}

	printf("Subtest %s: %s (%.3fs)\n", t->name, result, elapsed);
	fflush(stdout);
	if (vtest_sentinel) {
		fprintf(stderr, "Subtest %s: %s (%.3fs)\n", t->name, result,
			elapsed);
		fflush(stderr);
	}
	kmsg_write("<6>[IGT] %s: finished subtest %s, %s\n", vtest_binary,
		   t->name, result);
	return ret;
}

/* "--opt=value" or "--opt value"; NULL if ARG is not OPT. */
static const char *opt_value(int argc, char **argv, int *i, const char *opt,
			     bool *bad)
{
	size_t n = strlen(opt);

	if (strncmp(argv[*i], opt, n))
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n] != '\0')
		return NULL;
	if (*i + 1 >= argc) {
		fprintf(stderr, "%s needs an argument\n", opt);
		*bad = true;
		return NULL;
	}
	return argv[++*i];
}

int vtest_main(int argc, char **argv, const struct vtest_subtest *t,
	       size_t count)
{
	const char *run = NULL, *describe = NULL, *env;
	bool list = false, dynamic = false, bad = false, *selected;
	bool any_pass = false, any_fail = false;
	struct utsname u;
	size_t i;
	int k;

	vtest_binary = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	setvbuf(stdout, NULL, _IOLBF, 0);
	vtest_sentinel = getenv("IGT_SENTINEL_ON_STDERR") != NULL;
	env = getenv("VTEST_TIMEOUT");
	if (env && atoi(env) > 0)
		vtest_timeout = atoi(env);

	for (k = 1; k < argc && !bad; k++) {
		const char *v;

		if (!strcmp(argv[k], "--list-subtests")) {
			list = true;
		} else if ((v = opt_value(argc, argv, &k, "--run-subtest", &bad))) {
			run = v;
		} else if ((v = opt_value(argc, argv, &k, "--dynamic-subtest", &bad))) {
			dynamic = true;
		} else if ((v = opt_value(argc, argv, &k, "--hook", &bad)) ||
			   (v = opt_value(argc, argv, &k, "--device", &bad))) {
			/* accepted for igt_runner's sake; nothing to do */
		} else if (!strcmp(argv[k], "--describe")) {
			describe = "*";
		} else if (!strncmp(argv[k], "--describe=", 11)) {
			describe = argv[k] + 11;
		} else if (!strcmp(argv[k], "--debug") ||
			   !strncmp(argv[k], "--debug=", 8) ||
			   !strcmp(argv[k], "--interactive-debug") ||
			   !strncmp(argv[k], "--interactive-debug=", 20) ||
			   !strcmp(argv[k], "--trace-on-oops") ||
			   !strcmp(argv[k], "--skip-crc-compare")) {
			/* IGT's common options: ignored */
		} else if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h")) {
			usage(t, count);
			return VTEST_EXIT_SUCCESS;
		} else if (!bad) {
			fprintf(stderr, "%s: unknown option %s\n", vtest_binary,
				argv[k]);
			bad = true;
		}
	}
	if (bad) {
		usage(t, count);
		return VTEST_EXIT_INVALID;
	}

	if (list) {
		for (i = 0; i < count; i++)
			printf("%s\n", t[i].name);
		return VTEST_EXIT_SUCCESS;
	}
	if (describe) {
		for (i = 0; i < count; i++)
			if (!fnmatch(describe, t[i].name, 0))
				printf("SUB %s:\n  %s\n\n", t[i].name,
				       t[i].description ? t[i].description : "");
		return VTEST_EXIT_SUCCESS;
	}
	if (dynamic) {
		fprintf(stderr, "%s has no dynamic subtests\n", vtest_binary);
		return VTEST_EXIT_INVALID;
	}

	selected = calloc(count, sizeof(*selected));
	if (!selected)
		return VTEST_EXIT_FAILURE;
	if (run) {
		if (!select_subtests(run, t, count, selected))
			return VTEST_EXIT_INVALID;
	} else {
		for (i = 0; i < count; i++)
			selected[i] = true;
	}

	uname(&u);
	printf("IGT-Version: %s (%s) (%s: %s %s)\n", VTEST_VERSION, u.machine,
	       u.sysname, u.release, u.machine);
	kmsg_write("<6>[IGT] %s: executing\n", vtest_binary);

	for (i = 0; i < count; i++) {
		if (!selected[i])
			continue;
		switch (run_one(&t[i])) {
		case VTEST_EXIT_SUCCESS:
			any_pass = true;
			break;
		case VTEST_EXIT_SKIP:
			break;
		default:
			any_fail = true;
			break;
		}
	}
	free(selected);
	kmsg_write("<6>[IGT] %s: exiting, ret=%d\n", vtest_binary,
		   any_fail ? VTEST_EXIT_FAILURE :
		   any_pass ? VTEST_EXIT_SUCCESS : VTEST_EXIT_SKIP);

	if (any_fail)
		return VTEST_EXIT_FAILURE;
	return any_pass ? VTEST_EXIT_SUCCESS : VTEST_EXIT_SKIP;
}

/* ------------------------------------------------------------------ DRM */

int vtest_ioctl(int fd, unsigned long request, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, request, arg);
	} while (ret == -1 && (errno == EINTR || errno == EAGAIN));
	return ret;
}

bool vtest_drm_driver_name(int fd, char *buf, size_t len)
{
	struct drm_version v;

	memset(&v, 0, sizeof(v));
	memset(buf, 0, len);
	v.name = buf;
	v.name_len = len - 1;
	return vtest_ioctl(fd, DRM_IOCTL_VERSION, &v) == 0;
}

static int cmp_names(const void *a, const void *b)
{
	const char *x = *(const char * const *)a, *y = *(const char * const *)b;

	/* card2 before card10 */
	if (strlen(x) != strlen(y))
		return strlen(x) < strlen(y) ? -1 : 1;
	return strcmp(x, y);
}

/*
 * With VDXG_TEST_DEVICE set to a PCI address, only that device's nodes
 * count as vdxg's (e.g. to run a test on an SR-IOV VF).
 */
static bool vtest_device_wanted(int fd, const char *driver)
{
	const char *want = getenv("VDXG_TEST_DEVICE");
	char bdf[64];

	if (!want || !*want || strcmp(driver, "vdxg"))
		return true;
	return vtest_drm_pci_bdf(fd, bdf, sizeof(bdf)) && !strcmp(bdf, want);
}

int vtest_drm_open_driver(const char *driver, enum vtest_node node,
			  char *path)
{
	const char *prefix = node == VTEST_NODE_CARD ? "card" : "renderD";
	char *names[256];
	size_t n = 0, i;
	struct dirent *de;
	int found = -1;
	DIR *dir;

	dir = opendir("/dev/dri");
	if (!dir)
		return -1;
	while ((de = readdir(dir)) && n < VTEST_ARRAY_SIZE(names))
		if (!strncmp(de->d_name, prefix, strlen(prefix)))
			names[n++] = strdup(de->d_name);
	closedir(dir);
	qsort(names, n, sizeof(names[0]), cmp_names);

	for (i = 0; i < n; i++) {
		char p[PATH_MAX], name[64];
		int fd;

		if (found >= 0)
			continue;
		snprintf(p, sizeof(p), "/dev/dri/%s", names[i]);
		fd = open(p, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (vtest_drm_driver_name(fd, name, sizeof(name)) &&
		    !strcmp(name, driver) && vtest_device_wanted(fd, driver)) {
			found = fd;
			if (path)
				snprintf(path, PATH_MAX, "%s", p);
		} else {
			close(fd);
		}
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	return found;
}

int __vtest_open_vdxg(enum vtest_node node, const char *file, int line,
		      const char *func)
{
	int fd = vtest_drm_open_driver("vdxg", node, NULL);

	if (fd < 0)
		vtest_skip_at(file, line, func, "no vdxg %s node in /dev/dri",
			      node == VTEST_NODE_CARD ? "card" : "render");
	return fd;
}

int __vtest_open_vgem(char *path, const char *file, int line,
		      const char *func)
{
	int fd = vtest_drm_open_driver("vgem", VTEST_NODE_CARD, path);

	if (fd < 0) {
		if (vtest_system("modprobe vgem"))
			vtest_skip_at(file, line, func, "vgem cannot be loaded");
		fd = vtest_drm_open_driver("vgem", VTEST_NODE_CARD, path);
	}
	if (fd < 0)
		vtest_skip_at(file, line, func, "no vgem node in /dev/dri");
	return fd;
}

int vtest_drm_minor(int fd)
{
	struct stat st;

	if (fstat(fd, &st) || !S_ISCHR(st.st_mode))
		return -1;
	return (int)minor(st.st_rdev);
}

bool vtest_drm_pci_bdf(int fd, char *bdf, size_t len)
{
	char link[PATH_MAX], target[PATH_MAX], *base;
	struct stat st;
	ssize_t n;

	if (fstat(fd, &st) || !S_ISCHR(st.st_mode))
		return false;
	snprintf(link, sizeof(link), "/sys/dev/char/%u:%u/device",
		 major(st.st_rdev), minor(st.st_rdev));
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	base = strrchr(target, '/');
	snprintf(bdf, len, "%s", base ? base + 1 : target);
	return true;
}

/* ------------------------------------------------------------------ system */

int vtest_read_file(const char *path, char *buf, size_t len)
{
	ssize_t n, total = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((size_t)total < len - 1) {
		n = read(fd, buf + total, len - 1 - total);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			close(fd);
			return err;
		}
		if (n == 0)
			break;
		total += n;
	}
	close(fd);
	buf[total] = '\0';
	while (total > 0 && buf[total - 1] == '\n')
		buf[--total] = '\0';
	return (int)total;
}

int vtest_write_file(const char *path, const char *str)
{
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, str, strlen(str));
	if (n < 0)
		err = -errno;
	else if ((size_t)n != strlen(str))
		err = -EIO;
	close(fd);
	return err;
}

bool vtest_debug_kernel(void)
{
	struct utsname u;

	return !uname(&u) && strstr(u.release, "-vdxg-debug");
}

bool vtest_path_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

bool vtest_cmdline_get(const char *key, char *buf, size_t len)
{
	char line[4096], *save = NULL, *w;
	size_t klen = strlen(key);

	if (vtest_read_file("/proc/cmdline", line, sizeof(line)) < 0)
		return false;
	for (w = strtok_r(line, " \t\n", &save); w;
	     w = strtok_r(NULL, " \t\n", &save)) {
		if (!strncmp(w, key, klen) && w[klen] == '=') {
			snprintf(buf, len, "%s", w + klen + 1);
			return true;
		}
	}
	return false;
}

uint64_t vtest_cmdline_u64(const char *key, uint64_t def)
{
	char buf[64], *end;
	uint64_t v;

	if (!vtest_cmdline_get(key, buf, sizeof(buf)))
		return def;
	errno = 0;
	v = strtoull(buf, &end, 0);
	if (errno || *end)
		vtest_fail("/proc/cmdline %s=%s is not a number", key, buf);
	return v;
}

bool vtest_cmdline_bool(const char *key, bool def)
{
	char buf[16];

	if (!vtest_cmdline_get(key, buf, sizeof(buf)))
		return def;
	if (!strcmp(buf, "on") || !strcmp(buf, "true") || !strcmp(buf, "yes") ||
	    !strcmp(buf, "1"))
		return true;
	if (!strcmp(buf, "off") || !strcmp(buf, "false") ||
	    !strcmp(buf, "no") || !strcmp(buf, "0"))
		return false;
	vtest_fail("/proc/cmdline %s=%s is not a boolean", key, buf);
}

static int decode_status(int status)
{
	if (status == -1)
		return -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}

int vtest_system(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fflush(NULL);
	return decode_status(system(cmd));
}

int vtest_system_output(char *buf, size_t len, const char *fmt, ...)
{
	char cmd[4096];
	size_t total = 0, n;
	va_list ap;
	FILE *p;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fflush(NULL);
	buf[0] = '\0';
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (total < len - 1 && (n = fread(buf + total, 1, len - 1 - total, p)) > 0)
		total += n;
	buf[total] = '\0';
	/* drain what did not fit */
	while (fgetc(p) != EOF)
		;
	return decode_status(pclose(p));
}

bool vtest_pci_find(unsigned int vendor, unsigned int device, char *bdf,
		    size_t len)
{
	struct dirent *de;
	bool found = false;
	DIR *dir;

	dir = opendir("/sys/bus/pci/devices");
	if (!dir)
		return false;
	while (!found && (de = readdir(dir))) {
		char p[PATH_MAX], v[32];

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/vendor", de->d_name);
		if (vtest_read_file(p, v, sizeof(v)) < 0 ||
		    strtoul(v, NULL, 16) != vendor)
			continue;
		snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/device", de->d_name);
		if (vtest_read_file(p, v, sizeof(v)) < 0 ||
		    strtoul(v, NULL, 16) != device)
			continue;
		snprintf(bdf, len, "%s", de->d_name);
		found = true;
	}
	closedir(dir);
	return found;
}

/* ------------------------------------------------------------------ kmsg */

struct kmsg_rec {
	unsigned int facility, level;
	uint64_t seq;
	const char *text;
};

/* Call FN for each kernel log record; returns the last sequence number. */
static uint64_t kmsg_walk(bool (*fn)(const struct kmsg_rec *, void *),
			  void *ctx)
{
	char buf[8192];
	uint64_t last = 0;
	int fd;

	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	for (;;) {
		struct kmsg_rec r;
		unsigned int prio;
		unsigned long long seq;
		char *semi, *nl;
		ssize_t n;

		n = read(fd, buf, sizeof(buf) - 1);
		if (n < 0 && (errno == EINTR || errno == EPIPE))
			continue;	/* EPIPE: records overwritten meanwhile */
		if (n <= 0)
			break;
		buf[n] = '\0';
		if (sscanf(buf, "%u,%llu,", &prio, &seq) != 2)
			continue;
		semi = strchr(buf, ';');
		if (!semi)
			continue;
		nl = strchr(semi + 1, '\n');
		if (nl)
			*nl = '\0';
		r.facility = prio >> 3;
		r.level = prio & 7;
		r.seq = seq;
		r.text = semi + 1;
		last = seq;
		if (fn && !fn(&r, ctx))
			break;
	}
	close(fd);
	return last;
}

uint64_t vtest_kmsg_seq(void)
{
	return kmsg_walk(NULL, NULL);
}

void vtest_kmsg_mark(const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	kmsg_write("<6>[vtest] %s\n", msg);
}

void vtest_ignore_dmesg(const char *regex)
{
	/* igt_runner's resultgen looks for this marker in any record. */
	kmsg_write("<6>[IGT] add ignored dmesg regex: %s\n", regex);
}

static const char *const kmsg_bad[] = {
	"WARNING:", "BUG:", "kernel BUG", "Oops", "Call Trace",
	"general protection fault", "KASAN", "UBSAN",
	"possible circular locking", "inconsistent lock state",
	"suspicious RCU usage", "possible recursive locking",
	"lock held when returning", "blocked for more than",
	"refcount_t:", "list_add corruption", "list_del corruption",
	"Kernel panic", "stack-protector", "kobject_add_internal failed",
	"sysfs: cannot create duplicate filename",
};

struct kmsg_scan {
	uint64_t since;
	const char *needle;
	int count;
};

static bool kmsg_problem_fn(const struct kmsg_rec *r, void *ctx)
{
	struct kmsg_scan *s = ctx;
	bool bad = false;
	size_t i;

	/* Lines that userspace wrote (facility LOG_USER) are not the kernel's. */
	if (r->seq <= s->since || r->facility != 0)
		return true;
	if (r->level <= 3)
		bad = true;
	for (i = 0; !bad && i < VTEST_ARRAY_SIZE(kmsg_bad); i++)
		bad = strstr(r->text, kmsg_bad[i]) != NULL;
	if (bad) {
		printf("kernel log problem (seq %llu, level %u): %s\n",
		       (unsigned long long)r->seq, r->level, r->text);
		s->count++;
	}
	return true;
}

int vtest_kmsg_problems(uint64_t since)
{
	struct kmsg_scan s = { .since = since };

	kmsg_walk(kmsg_problem_fn, &s);
	fflush(stdout);
	return s.count;
}

static bool kmsg_grep_fn(const struct kmsg_rec *r, void *ctx)
{
	struct kmsg_scan *s = ctx;

	if (r->seq > s->since && strstr(r->text, s->needle))
		s->count++;
	return true;
}

int vtest_kmsg_grep(uint64_t since, const char *needle)
{
	struct kmsg_scan s = { .since = since, .needle = needle };

	kmsg_walk(kmsg_grep_fn, &s);
	return s.count;
}
