// SPDX-License-Identifier: MIT
/*
 * vvm: GPU virtual memory test helpers (see vvm.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vrender.h"
#include "vvm.h"

uint32_t vvm_key(int fd, uint32_t vm_id)
{
	unsigned long long client, c;
	unsigned int a, i;
	char path[96], line[256];
	uint64_t v;
	FILE *f;

	vtest_assert(vr_fdinfo(fd, "drm-client-id", &v));
	client = v;
	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/vms",
		 vtest_drm_minor(fd));
	f = fopen(path, "r");
	vtest_assert_f(f, "%s: %m", path);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "vm %u: client %llu id %u", &a, &c,
			   &i) == 3 && c == client && i == vm_id) {
			fclose(f);
			return a;
		}
	}
	fclose(f);
	vtest_fail("VM %u of client %llu is not in %s", vm_id, client, path);
}

int vvm_read(int fd, uint32_t key, uint64_t va, void *buf, uint32_t size)
{
	char path[96], cmd[64];
	int dfd, n, ret = 0;

	vtest_assert(size && size <= VVM_READ_MAX);
	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/vm_read",
		 vtest_drm_minor(fd));
	dfd = open(path, O_RDWR | O_CLOEXEC);
	vtest_assert_f(dfd >= 0, "%s: %m", path);
	n = snprintf(cmd, sizeof(cmd), "%u %" PRIx64 " %u", key, va, size);
	vtest_assert_eq(write(dfd, cmd, n), n);
	if (pread(dfd, buf, size, 0) != (ssize_t)size)
		ret = -errno;
	close(dfd);
	return ret;
}

void vvm_expect(int fd, uint32_t key, uint64_t va, const void *want,
		uint64_t size, const char *what)
{
	uint8_t *got = malloc(VVM_READ_MAX);
	const uint8_t *w = want;
	uint64_t done;

	vtest_assert(got);
	for (done = 0; done < size; done += VVM_READ_MAX) {
		uint32_t n = size - done < VVM_READ_MAX ? size - done
							: VVM_READ_MAX;
		int ret = vvm_read(fd, key, va + done, got, n);

		vtest_assert_f(ret == 0, "%s: VM %u VA 0x%" PRIx64 ": %s",
			       what, key, va + done, strerror(-ret));
		if (!memcmp(got, w + done, n))
			continue;
		for (uint32_t i = 0; i < n; i++)
			vtest_assert_f(got[i] == w[done + i],
				       "%s: VM %u VA 0x%" PRIx64 " is 0x%02x, "
				       "expected 0x%02x", what, key,
				       va + done + i, got[i], w[done + i]);
	}
	free(got);
}

/* The first line of debugfs vms about VM KEY, into LINE (SIZE bytes). */
static void vvm_line(int fd, uint32_t key, char *line, int size)
{
	unsigned long long c;
	unsigned int a, i;
	char path[96];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/vms",
		 vtest_drm_minor(fd));
	f = fopen(path, "r");
	vtest_assert_f(f, "%s: %m", path);
	while (fgets(line, size, f)) {
		if (sscanf(line, "vm %u: client %llu id %u", &a, &c,
			   &i) == 3 && a == key) {
			fclose(f);
			return;
		}
	}
	fclose(f);
	vtest_fail("VM %u is not in %s", key, path);
}

void vvm_counts(int fd, uint32_t key, uint64_t *mappings, uint32_t *tables)
{
	unsigned long long n;
	char line[256], *p;
	unsigned int t;

	vvm_line(fd, key, line, sizeof(line));
	p = strstr(line, ", address space ");
	vtest_assert_f(p && sscanf(p, ", address space %*u, %llu mappings, "
				   "%u tables", &n, &t) == 2,
		       "debugfs vms: %s", line);
	*mappings = n;
	*tables = t;
}

void vvm_residency(int fd, uint32_t key, uint32_t *resident,
		   uint32_t *evicted)
{
	char line[256], *p;

	vvm_line(fd, key, line, sizeof(line));
	p = strstr(line, "residency ");
	vtest_assert_f(p && sscanf(p, "residency %u resident %u evicted",
				   resident, evicted) == 2,
		       "debugfs vms: %s", line);
}

const char *vvm_place(int fd, uint32_t key, uint64_t va)
{
	static char place[32];
	unsigned long long start, end, c;
	unsigned int a, i;
	char path[96], line[256];
	bool in = false;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/vms",
		 vtest_drm_minor(fd));
	f = fopen(path, "r");
	vtest_assert_f(f, "%s: %m", path);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "vm %u: client %llu id %u", &a, &c,
			   &i) == 3) {
			in = a == key;
			continue;
		}
		if (in && sscanf(line, " 0x%llx-0x%llx", &start, &end) == 2 &&
		    start == va) {
			char *p = strrchr(line, ' ');

			snprintf(place, sizeof(place), "%s", p + 1);
			place[strcspn(place, "\n")] = 0;
			fclose(f);
			return place;
		}
	}
	fclose(f);
	return NULL;
}

void vvm_expect_fault(int fd, uint32_t key, uint64_t va)
{
	uint8_t buf[4096];

	vtest_assert_eq(vvm_read(fd, key, va, buf, sizeof(buf)), -EFAULT);
}

void vvm_swap_out_everything(void)
{
	const char *path = "/sys/kernel/debug/ttm/tt_shrink";
	char buf[32];
	int i, fd, n;

	for (i = 0; i < 100000; i++) {
		fd = open(path, O_RDONLY);
		vtest_require_f(fd >= 0, "%s: %m", path);
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		vtest_assert_f(n > 0, "%s: %m", path);
		buf[n] = 0;
		if (atol(buf) <= 0)
			return;
	}
	vtest_fail("TTM's shrinker never ran out of objects");
}

/* The "vram: size S, used U" line of debugfs segments. */
static void vvm_vram_line(int fd, uint64_t *size, uint64_t *used)
{
	static char buf[1 << 16];
	unsigned long long s, u;
	char path[96], *line;

	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/segments",
		 vtest_drm_minor(fd));
	vtest_assert_f(vtest_read_file(path, buf, sizeof(buf)) > 0,
		       "cannot read %s", path);
	for (line = buf; line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (sscanf(line, "vram: size %llu, used %llu", &s, &u) == 2) {
			*size = s;
			*used = u;
			return;
		}
	}
	vtest_fail("no vram line in %s", path);
}

uint64_t vvm_vram_free(int fd)
{
	uint64_t size, used;

	vvm_vram_line(fd, &size, &used);
	return size > used ? size - used : 0;
}

uint64_t vvm_vram_segment(int fd)
{
	uint64_t size, used;

	vvm_vram_line(fd, &size, &used);
	return size;
}
