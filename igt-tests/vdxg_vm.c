// SPDX-License-Identifier: MIT
/*
 * vdxg_vm: GPU virtual memory (VM_CREATE, VM_DESTROY, VM_BIND). What a
 * VM's page tables say is read back through the GPU itself: debugfs
 * vm_read copies bytes at a virtual address of an address space with a
 * TRANSFER_VIRTUAL on the paging engine; an unmapped address fails with
 * EFAULT (the paging engine faults and is reset). debugfs vms lists each
 * VM's address space id and mappings.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <drm.h>
#include "vdxg_drm.h"

#define BIT(n)		(1u << (n))
#define BIT_ULL(n)	(1ull << (n))
#include "vdxg_hw.h"

#include "vdxg.h"
#include "vrender.h"
#include "vtest.h"

#define KIB		1024ull
#define MIB		(1024 * KIB)
#define VA		(256 * MIB)

/* An ioctl's result: 0 or -errno. */
static int xioctl(int fd, unsigned long request, void *arg)
{
	return vtest_ioctl(fd, request, arg) ? -errno : 0;
}

static void vm_require(struct vr *vr)
{
	vtest_require_f(vr_param(vr, DRM_VDXG_PARAM_CAPS) & VDXG_CAP_GPU_MMU,
			"the device has no GPU MMU");
	/* vm_read of an unmapped address: the paging engine faults. */
	vr_ignore_dmesg("engine 1 fault: not present, opcode 0x0d");
}

static uint32_t vm_new(struct vr *vr)
{
	uint32_t id = 0;

	vtest_assert_ok(vdxg_vm_create(vr->dev, 0, &id));
	vtest_assert(id != 0);
	return id;
}

/* Create a VM and find its address space id in debugfs vms. */
static uint32_t vm_new_asid(struct vr *vr, uint32_t *asid)
{
	unsigned long long client, c;
	unsigned int a, i;
	char path[96], line[256];
	uint32_t id = vm_new(vr);
	uint64_t v;
	FILE *f;

	vtest_assert(vr_fdinfo(vdxg_device_fd(vr->dev), "drm-client-id", &v));
	client = v;
	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/vms",
		 vtest_drm_minor(vdxg_device_fd(vr->dev)));
	f = fopen(path, "r");
	vtest_assert_f(f, "%s: %m", path);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "vm asid %u: client %llu id %u", &a, &c,
			   &i) == 3 && c == client && i == id) {
			fclose(f);
			*asid = a;
			return id;
		}
	}
	fclose(f);
	vtest_fail("VM %u of client %llu is not in debugfs vms", id, client);
	return 0;
}

/* SIZE bytes at VA of address space ASID, as the GPU reads them. */
static int vm_read(struct vr *vr, uint32_t asid, uint64_t va, void *buf,
		   uint32_t size)
{
	char path[96], cmd[64];
	int fd, n, ret = 0;

	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/vm_read",
		 vtest_drm_minor(vdxg_device_fd(vr->dev)));
	fd = open(path, O_RDWR);
	vtest_assert_f(fd >= 0, "%s: %m", path);
	n = snprintf(cmd, sizeof(cmd), "%u %" PRIx64 " %u", asid, va, size);
	vtest_assert_eq(write(fd, cmd, n), n);
	if (pread(fd, buf, size, 0) != (ssize_t)size)
		ret = -errno;
	close(fd);
	return ret;
}

static void fill(struct vdxg_bo *bo, uint64_t size, uint32_t seed)
{
	uint32_t *p = vr_map(bo);
	uint64_t i;

	for (i = 0; i < size / 4; i++)
		p[i] = seed * 0x9e3779b9u + (uint32_t)i;
}

static struct vdxg_bo *patterned(struct vr *vr, uint64_t size, uint32_t seg,
				 uint32_t seed)
{
	struct vdxg_bo *bo = vr_bo(vr, size, seg, 0);

	fill(bo, size, seed);
	return bo;
}

static void expect_bytes(struct vr *vr, uint32_t asid, uint64_t va,
			 struct vdxg_bo *bo, uint64_t offset, uint32_t size)
{
	uint8_t *got = malloc(size);
	const uint8_t *want = (const uint8_t *)vr_map(bo) + offset;
	uint32_t i;

	vtest_assert(got);
	vtest_assert_eq(vm_read(vr, asid, va, got, size), 0);
	for (i = 0; i < size; i++)
		vtest_assert_f(got[i] == want[i],
			       "VA 0x%" PRIx64 ": byte %u is 0x%02x, expected 0x%02x",
			       va, i, got[i], want[i]);
	free(got);
}

static void expect_fault(struct vr *vr, uint32_t asid, uint64_t va)
{
	uint8_t buf[4096];

	vtest_assert_eq(vm_read(vr, asid, va, buf, sizeof(buf)), -EFAULT);
}

static void test_create_destroy(void)
{
	struct drm_vdxg_vm_create c = { 0 };
	struct drm_vdxg_vm_destroy d = { 0 };
	uint32_t ids[DRM_VDXG_VM_MAX_PER_FILE], id;
	struct vr vr;
	int i;

	vr_open(&vr);
	vm_require(&vr);
	for (i = 0; i < DRM_VDXG_VM_MAX_PER_FILE; i++)
		ids[i] = vm_new(&vr);
	vtest_assert_eq(vdxg_vm_create(vr.dev, 0, &id), -ENOSPC);
	for (i = 0; i < DRM_VDXG_VM_MAX_PER_FILE; i++)
		vtest_assert_ok(vdxg_vm_destroy(vr.dev, ids[i]));
	vtest_assert_eq(vdxg_vm_destroy(vr.dev, ids[0]), -ENOENT);

	c.flags = 1;
	vtest_assert_eq(xioctl(vdxg_device_fd(vr.dev),
				    DRM_IOCTL_VDXG_VM_CREATE, &c), -EINVAL);
	d.vm_id = vm_new(&vr);
	d.pad = 1;
	vtest_assert_eq(xioctl(vdxg_device_fd(vr.dev),
				    DRM_IOCTL_VDXG_VM_DESTROY, &d), -EINVAL);
	d.pad = 0;
	vtest_assert_ok(xioctl(vdxg_device_fd(vr.dev),
				    DRM_IOCTL_VDXG_VM_DESTROY, &d));
	vr_close(&vr);
}

static void test_map_read(void)
{
	static const uint32_t segs[] = {
		DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_SYSTEM,
		DRM_VDXG_SEGMENT_APERTURE,
	};
	uint32_t asid, vm, i;
	struct vr vr;

	vr_open(&vr);
	vm_require(&vr);
	vm = vm_new_asid(&vr, &asid);
	for (i = 0; i < 3; i++) {
		struct vdxg_bo *bo = patterned(&vr, 64 * KIB, segs[i], i + 1);
		uint64_t va = VA + i * MIB;

		vtest_assert_ok(vdxg_vm_map(vr.dev, vm, bo, 0, va, 64 * KIB,
					    0));
		expect_bytes(&vr, asid, va, bo, 0, 64 * KIB);
		/* An offset into the object, at another address. */
		vtest_assert_ok(vdxg_vm_map(vr.dev, vm, bo, 16 * KIB,
					    va + 512 * KIB, 32 * KIB, 0));
		expect_bytes(&vr, asid, va + 512 * KIB, bo, 16 * KIB,
			     32 * KIB);
		vdxg_bo_free(bo);
	}
	vtest_assert_ok(vdxg_vm_destroy(vr.dev, vm));
	vr_close(&vr);
}

static void test_partial_unmap(void)
{
	struct vdxg_bo *bo;
	uint32_t asid, vm;
	struct vr vr;

	vr_open(&vr);
	vm_require(&vr);
	vm = vm_new_asid(&vr, &asid);
	bo = patterned(&vr, 64 * KIB, DRM_VDXG_SEGMENT_VRAM, 7);
	vtest_assert_ok(vdxg_vm_map(vr.dev, vm, bo, 0, VA, 64 * KIB, 0));
	vtest_assert_ok(vdxg_vm_unmap(vr.dev, vm, VA + 16 * KIB, 16 * KIB));
	expect_bytes(&vr, asid, VA, bo, 0, 16 * KIB);
	expect_fault(&vr, asid, VA + 16 * KIB);
	expect_fault(&vr, asid, VA + 28 * KIB);
	expect_bytes(&vr, asid, VA + 32 * KIB, bo, 32 * KIB, 32 * KIB);
	/* Map the hole again from another part of the object. */
	vtest_assert_ok(vdxg_vm_map(vr.dev, vm, bo, 48 * KIB, VA + 16 * KIB,
				    16 * KIB, 0));
	expect_bytes(&vr, asid, VA + 16 * KIB, bo, 48 * KIB, 16 * KIB);
	vdxg_bo_free(bo);
	vtest_assert_ok(vdxg_vm_destroy(vr.dev, vm));
	vr_close(&vr);
}

static void test_null(void)
{
	struct drm_vdxg_vm_bind_op op = {
		.op = DRM_VDXG_VM_BIND_OP_MAP_NULL,
		.va = VA,
		.range = 2 * MIB,
	};
	uint8_t buf[8192];
	uint32_t asid, vm, i;
	struct vr vr;

	vr_open(&vr);
	vm_require(&vr);
	vm = vm_new_asid(&vr, &asid);
	vtest_assert_ok(vdxg_vm_bind(vr.dev, vm, &op, 1, NULL, 0, NULL, 0));
	memset(buf, 0xa5, sizeof(buf));
	/* The bind's jobs and the read share the paging queue, in order. */
	vtest_assert_eq(vm_read(&vr, asid, VA + MIB, buf, sizeof(buf)), 0);
	for (i = 0; i < sizeof(buf); i++)
		vtest_assert_eq(buf[i], 0);
	vtest_assert_ok(vdxg_vm_unmap(vr.dev, vm, VA, 2 * MIB));
	expect_fault(&vr, asid, VA + MIB);
	vtest_assert_ok(vdxg_vm_destroy(vr.dev, vm));
	vr_close(&vr);
}

/* Bound objects moved between segments stay readable at their address. */
static void test_moves(void)
{
	static const uint32_t segs[] = {
		DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_SYSTEM,
		DRM_VDXG_SEGMENT_APERTURE,
	};
	struct vdxg_bo *bo;
	uint32_t asid, vm, i, j;
	struct vr vr;

	vr_open(&vr);
	vm_require(&vr);
	vm = vm_new_asid(&vr, &asid);
	vtest_assert_ok(vdxg_bo_create(vr.dev, 4 * MIB, segs, 3,
				       DRM_VDXG_GEM_CPU_ACCESS, &bo));
	fill(bo, 4 * MIB, 3);
	vtest_assert_ok(vdxg_vm_map(vr.dev, vm, bo, 0, 2 * VA, 4 * MIB, 0));
	for (i = 0; i < 3; i++)
		for (j = 0; j < 3; j++) {
			vtest_assert_ok(vdxg_bo_make_resident(bo, segs[i]));
			vtest_assert_ok(vdxg_bo_make_resident(bo, segs[j]));
			expect_bytes(&vr, asid, 2 * VA, bo, 0, 64 * KIB);
			expect_bytes(&vr, asid, 2 * VA + 4 * MIB - 64 * KIB, bo,
				     4 * MIB - 64 * KIB, 64 * KIB);
		}
	vdxg_bo_free(bo);
	vtest_assert_ok(vdxg_vm_destroy(vr.dev, vm));
	vr_close(&vr);
}

static void test_isolation(void)
{
	uint32_t asid_a, asid_b, vm_a, vm_b;
	struct vdxg_bo *bo;
	struct vr a, b;

	vr_open(&a);
	vm_require(&a);
	vr_open(&b);
	vm_a = vm_new_asid(&a, &asid_a);
	vm_b = vm_new_asid(&b, &asid_b);
	vtest_assert(asid_a != asid_b);
	bo = patterned(&a, 64 * KIB, DRM_VDXG_SEGMENT_VRAM, 9);
	vtest_assert_ok(vdxg_vm_map(a.dev, vm_a, bo, 0, VA, 64 * KIB, 0));
	expect_bytes(&a, asid_a, VA, bo, 0, 64 * KIB);
	expect_fault(&b, asid_b, VA);
	/* Another file's VM is not there for this one. */
	vtest_assert_eq(vdxg_vm_unmap(b.dev, vm_a == vm_b ? vm_b + 1 : vm_a,
				      VA, 64 * KIB), -ENOENT);
	vdxg_bo_free(bo);
	vr_close(&b);
	vr_close(&a);
}

/*
 * A job held on the render ring by a WAIT until the CPU writes 1 at
 * HOLD + 0, writing WHAT, with OUT signalled when it is done.
 */
static void held_job(struct vr *vr, uint32_t ctx, struct vdxg_bo *hold,
		     struct vdxg_bo *what, uint32_t out)
{
	struct drm_vdxg_sync o = vdxg_sync(out, 0);
	struct vdxg_submit_opts opts = { .out_syncs = &o, .num_out_syncs = 1 };
	struct vdxg_cs *cs = vr_cs();

	vdxg_cs_wait(cs, hold, 0, 0, 1);
	vdxg_cs_fence(cs, what, 0, DRM_VDXG_ALLOC_WRITE, 0x1234);
	vr_submit(vr, ctx, cs, &opts);
	vdxg_cs_free(cs);
}

/*
 * A bind waits for its in-syncobj; its out-syncobj signals once the tables
 * are written, and the mapping reads then.
 */
static void test_bind_in_sync(void)
{
	struct drm_vdxg_vm_bind_op op = { .op = DRM_VDXG_VM_BIND_OP_MAP };
	struct drm_vdxg_sync in, out;
	struct vdxg_bo *hold, *bo, *scratch;
	uint32_t asid, vm, ctx, s_in, s_out;
	uint8_t *map;
	struct vr vr;

	vr_open(&vr);
	vm_require(&vr);
	vm = vm_new_asid(&vr, &asid);
	ctx = vr_ctx(&vr);
	map = vr_hold_bo(&vr, &hold);
	scratch = vr_bo(&vr, 4096, DRM_VDXG_SEGMENT_VRAM, 0);
	bo = patterned(&vr, 64 * KIB, DRM_VDXG_SEGMENT_VRAM, 5);
	s_in = vr_syncobj(&vr, false);
	s_out = vr_syncobj(&vr, false);
	held_job(&vr, ctx, hold, scratch, s_in);

	in = vdxg_sync(s_in, 0);
	out = vdxg_sync(s_out, 0);
	op.handle = bo->handle;
	op.va = VA;
	op.range = 64 * KIB;
	vtest_assert_ok(vdxg_vm_bind(vr.dev, vm, &op, 1, &in, 1, &out, 1));
	vr_sleep_ms(200);
	vtest_assert_eq(vr_syncobj_wait(&vr, s_out, 0, 0), -ETIME);

	map[0] = 1;	/* let the job go: then the bind */
	vtest_assert_eq(vr_syncobj_wait(&vr, s_out, 0, VR_WAIT_NS), 0);
	expect_bytes(&vr, asid, VA, bo, 0, 64 * KIB);
	vdxg_bo_free(bo);
	vdxg_bo_free(scratch);
	vdxg_bo_free(hold);
	vtest_assert_ok(vdxg_vm_destroy(vr.dev, vm));
	vr_close(&vr);
}

/*
 * An unmap of an object that a queued job uses waits for the job: its
 * out-syncobj signals only after the job's.
 */
static void test_unbind_waits(void)
{
	struct drm_vdxg_vm_bind_op op = {
		.op = DRM_VDXG_VM_BIND_OP_UNMAP,
		.va = VA,
		.range = 64 * KIB,
	};
	struct vdxg_bo *hold, *bo;
	uint32_t asid, vm, ctx, s_job, s_out;
	struct drm_vdxg_sync out;
	uint8_t *map;
	struct vr vr;

	vr_open(&vr);
	vm_require(&vr);
	vm = vm_new_asid(&vr, &asid);
	ctx = vr_ctx(&vr);
	map = vr_hold_bo(&vr, &hold);
	bo = patterned(&vr, 64 * KIB, DRM_VDXG_SEGMENT_VRAM, 6);
	vtest_assert_ok(vdxg_vm_map(vr.dev, vm, bo, 0, VA, 64 * KIB, 0));
	s_job = vr_syncobj(&vr, false);
	s_out = vr_syncobj(&vr, false);
	held_job(&vr, ctx, hold, bo, s_job);	/* writes the object */

	out = vdxg_sync(s_out, 0);
	vtest_assert_ok(vdxg_vm_bind(vr.dev, vm, &op, 1, NULL, 0, &out, 1));
	vr_sleep_ms(200);
	vtest_assert_eq(vr_syncobj_wait(&vr, s_out, 0, 0), -ETIME);
	vtest_assert_eq(vr_syncobj_wait(&vr, s_job, 0, 0), -ETIME);

	map[0] = 1;
	vtest_assert_eq(vr_syncobj_wait(&vr, s_out, 0, VR_WAIT_NS), 0);
	vtest_assert_eq(vr_syncobj_wait(&vr, s_job, 0, 0), 0);
	expect_fault(&vr, asid, VA);
	vdxg_bo_free(bo);
	vdxg_bo_free(hold);
	vtest_assert_ok(vdxg_vm_destroy(vr.dev, vm));
	vr_close(&vr);
}

/*
 * Run TTM's shrinker (debugfs ttm/tt_shrink swaps out the objects of one
 * LRU walk a read) until it finds nothing more to swap out.
 */
static void swap_out_everything(void)
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

/* SIZE bytes at VA read through the VM are WANT (64 KiB a read). */
static void expect_mem(struct vr *vr, uint32_t asid, uint64_t va,
		       const uint8_t *want, uint32_t size)
{
	uint8_t got[64 * KIB];
	uint32_t off, n;

	for (off = 0; off < size; off += n) {
		n = size - off < sizeof(got) ? size - off : sizeof(got);
		vtest_assert_eq(vm_read(vr, asid, va + off, got, n), 0);
		vtest_assert_f(!memcmp(got, want + off, n),
			       "VA 0x%" PRIx64 ": not the object's bytes",
			       va + off);
	}
}

/*
 * An object swapped out by TTM's shrinker loses its entries before its
 * pages go (its addresses fault instead of reaching freed pages), and the
 * VM's next bind maps it again, with the same contents, at every address
 * it had. The CPU does not touch the object meanwhile: that would bring
 * its pages back by itself.
 */
static void test_swapped_out(void)
{
	const uint64_t size = 256 * KIB, va2 = VA + 4 * MIB;
	uint32_t asid, vm;
	struct vdxg_bo *bo;
	uint8_t *want;
	struct vr vr;

	vr_open(&vr);
	vm_require(&vr);
	vm = vm_new_asid(&vr, &asid);
	bo = patterned(&vr, size, DRM_VDXG_SEGMENT_SYSTEM, 21);
	want = malloc(size);
	vtest_assert(want);
	memcpy(want, vr_map(bo), size);
	vtest_assert_ok(vdxg_vm_map(vr.dev, vm, bo, 0, VA, size, 0));
	vtest_assert_ok(vdxg_vm_map(vr.dev, vm, bo, 64 * KIB, va2, 64 * KIB,
				    DRM_VDXG_VM_BIND_READ_ONLY));
	expect_mem(&vr, asid, VA, want, size);
	expect_mem(&vr, asid, va2, want + 64 * KIB, 64 * KIB);

	swap_out_everything();
	expect_fault(&vr, asid, VA);
	expect_fault(&vr, asid, VA + size - 4 * KIB);
	expect_fault(&vr, asid, va2);

	/* Any bind of the VM maps it again: here, unmapping nothing. */
	vtest_assert_ok(vdxg_vm_unmap(vr.dev, vm, VA + 64 * MIB, 4 * KIB));
	expect_mem(&vr, asid, VA, want, size);
	expect_mem(&vr, asid, va2, want + 64 * KIB, 64 * KIB);
	/* And the CPU sees the same bytes. */
	vtest_assert(!memcmp(vr_map(bo), want, size));

	free(want);
	vdxg_bo_free(bo);
	vtest_assert_ok(vdxg_vm_destroy(vr.dev, vm));
	vr_close(&vr);
}

/* One process of test_concurrent: bind, check, unbind, again. */
static void concurrent_child(unsigned int k)
{
	uint32_t asid, vm, round;
	struct vr vr;

	vr_open(&vr);
	vm = vm_new_asid(&vr, &asid);
	for (round = 0; round < 6; round++) {
		uint64_t va = VA + (uint64_t)round * 4 * MIB;
		uint32_t seg = round % 2 ? DRM_VDXG_SEGMENT_SYSTEM :
					   DRM_VDXG_SEGMENT_VRAM;
		struct vdxg_bo *bo = patterned(&vr, 256 * KIB, seg,
					       k * 16 + round);

		vtest_assert_ok(vdxg_vm_map(vr.dev, vm, bo, 0, va, 256 * KIB,
					    0));
		expect_bytes(&vr, asid, va, bo, 0, 64 * KIB);
		expect_bytes(&vr, asid, va + 192 * KIB, bo, 192 * KIB,
			     64 * KIB);
		vtest_assert_ok(vdxg_vm_unmap(vr.dev, vm, va, 128 * KIB));
		expect_bytes(&vr, asid, va + 128 * KIB, bo, 128 * KIB,
			     64 * KIB);
		vdxg_bo_free(bo);
	}
	vtest_assert_ok(vdxg_vm_destroy(vr.dev, vm));
	vr_close(&vr);
}

/* Eight processes binding and unbinding at once, contents verified. */
static void test_concurrent(void)
{
	pid_t pid[8];
	unsigned int k;
	int status;
	struct vr vr;

	vr_open(&vr);
	vm_require(&vr);
	vr_close(&vr);
	for (k = 0; k < 8; k++) {
		pid[k] = fork();
		vtest_assert(pid[k] >= 0);
		if (!pid[k]) {
			concurrent_child(k);
			_exit(0);
		}
	}
	for (k = 0; k < 8; k++) {
		vtest_assert_eq(waitpid(pid[k], &status, 0), pid[k]);
		vtest_assert_f(WIFEXITED(status) && !WEXITSTATUS(status),
			       "process %u: status 0x%x", k, status);
	}
}

struct bad_row {
	const char *what;
	struct drm_vdxg_vm_bind_op op;
	int err;
};

static void test_bad_bind(void)
{
	const uint64_t top = 1ull << DRM_VDXG_VM_VA_BITS;
	struct bad_row rows[] = {
		{ "unknown op", { .op = 3, .va = VA, .range = 4096 }, -EINVAL },
		{ "va misaligned", { .op = 1, .va = VA + 1, .range = 4096 },
		  -EINVAL },
		{ "range misaligned", { .op = 1, .va = VA, .range = 4095 },
		  -EINVAL },
		{ "range 0", { .op = 1, .va = VA, .range = 0 }, -EINVAL },
		{ "va at the top", { .op = 1, .va = top, .range = 4096 },
		  -EINVAL },
		{ "range past the top", { .op = 1, .va = top - 4096,
					  .range = 8192 }, -EINVAL },
		{ "range wraps", { .op = 1, .va = VA, .range = -4096ull },
		  -EINVAL },
		{ "unmap with a handle", { .op = 1, .handle = 1, .va = VA,
					   .range = 4096 }, -EINVAL },
		{ "unmap with an offset", { .op = 1, .obj_offset = 4096,
					    .va = VA, .range = 4096 }, -EINVAL },
		{ "unmap with flags", { .op = 1, .flags = 1, .va = VA,
					.range = 4096 }, -EINVAL },
		{ "null with a handle", { .op = 2, .handle = 1, .va = VA,
					  .range = 4096 }, -EINVAL },
		{ "null with flags", { .op = 2, .flags = 1, .va = VA,
				       .range = 4096 }, -EINVAL },
		{ "map without a handle", { .op = 0, .va = VA, .range = 4096 },
		  -EINVAL },
		{ "map unknown handle", { .op = 0, .handle = 0xdead, .va = VA,
					  .range = 4096 }, -ENOENT },
		{ "pad", { .op = 1, .pad = 1, .va = VA, .range = 4096 },
		  -EINVAL },
	};
	struct drm_vdxg_vm_bind_op ok = { .op = 1, .va = VA, .range = 4096 };
	struct drm_vdxg_vm_bind args;
	struct vdxg_bo *bo;
	uint32_t vm, i, n = sizeof(rows) / sizeof(rows[0]);
	int fd;
	struct vr vr;

	vr_open(&vr);
	vm_require(&vr);
	fd = vdxg_device_fd(vr.dev);
	vm = vm_new(&vr);
	bo = vr_bo(&vr, 64 * KIB, DRM_VDXG_SEGMENT_VRAM, 0);

	for (i = 0; i < n; i++) {
		vtest_info("bad op: %s", rows[i].what);
		vtest_assert_eq(vdxg_vm_bind(vr.dev, vm, &rows[i].op, 1, NULL,
					     0, NULL, 0), rows[i].err);
		vtest_assert_ok(vdxg_vm_bind(vr.dev, vm, &ok, 1, NULL, 0, NULL,
					     0));
	}
	/* MAP rows that need the object. */
	{
		struct drm_vdxg_vm_bind_op m[] = {
			{ .op = 0, .handle = bo->handle, .obj_offset = 64 * KIB,
			  .va = VA, .range = 4096 },
			{ .op = 0, .handle = bo->handle, .obj_offset = 60 * KIB,
			  .va = VA, .range = 8192 },
			{ .op = 0, .handle = bo->handle, .obj_offset = 1,
			  .va = VA, .range = 4096 },
			{ .op = 0, .handle = bo->handle, .flags = 2,
			  .va = VA, .range = 4096 },
		};

		for (i = 0; i < 4; i++) {
			vtest_assert_eq(vdxg_vm_bind(vr.dev, vm, &m[i], 1,
						     NULL, 0, NULL, 0),
					-EINVAL);
			vtest_assert_ok(vdxg_vm_bind(vr.dev, vm, &ok, 1, NULL,
						     0, NULL, 0));
		}
	}
	/* The call itself. */
	memset(&args, 0, sizeof(args));
	args.vm_id = vm;
	args.ops = (uintptr_t)&ok;
	vtest_assert_eq(xioctl(fd, DRM_IOCTL_VDXG_VM_BIND, &args),
			-EINVAL);	/* no ops */
	args.num_ops = DRM_VDXG_VM_BIND_MAX_OPS + 1;
	vtest_assert_eq(xioctl(fd, DRM_IOCTL_VDXG_VM_BIND, &args),
			-E2BIG);
	args.num_ops = 1;
	args.flags = 1;
	vtest_assert_eq(xioctl(fd, DRM_IOCTL_VDXG_VM_BIND, &args),
			-EINVAL);
	args.flags = 0;
	args.pad = 1;
	vtest_assert_eq(xioctl(fd, DRM_IOCTL_VDXG_VM_BIND, &args),
			-EINVAL);
	args.pad = 0;
	args.vm_id = vm + 100;
	vtest_assert_eq(xioctl(fd, DRM_IOCTL_VDXG_VM_BIND, &args),
			-ENOENT);
	args.vm_id = vm;
	args.ops = 8;
	vtest_assert_eq(xioctl(fd, DRM_IOCTL_VDXG_VM_BIND, &args),
			-EFAULT);
	args.ops = (uintptr_t)&ok;
	args.num_in_syncs = DRM_VDXG_MAX_SYNCS + 1;
	vtest_assert_eq(xioctl(fd, DRM_IOCTL_VDXG_VM_BIND, &args),
			-E2BIG);
	args.num_in_syncs = 0;
	vtest_assert_ok(xioctl(fd, DRM_IOCTL_VDXG_VM_BIND, &args));

	vdxg_bo_free(bo);
	vtest_assert_ok(vdxg_vm_destroy(vr.dev, vm));
	vr_close(&vr);
}

static const struct vtest_subtest subtests[] = {
	{ "create-destroy", test_create_destroy,
	  "VM_CREATE up to the per-file limit, VM_DESTROY, bad flags and pads" },
	{ "map-read", test_map_read,
	  "objects in VRAM, system memory and the aperture read back through "
	  "their virtual addresses" },
	{ "partial-unmap", test_partial_unmap,
	  "an unmap in the middle splits a mapping; the hole faults; a remap "
	  "fills it" },
	{ "null", test_null, "a null range reads zeros" },
	{ "moves", test_moves,
	  "a bound object moved between every pair of segments keeps its "
	  "contents at its virtual address" },
	{ "isolation", test_isolation,
	  "an address mapped in one process's VM faults in another's" },
	{ "bind-in-sync", test_bind_in_sync,
	  "a bind waits for its in-syncobj; its out-syncobj follows" },
	{ "unbind-waits", test_unbind_waits,
	  "an unmap waits for a queued job using the object" },
	{ "concurrent", test_concurrent,
	  "eight processes binding and unbinding, contents verified" },
	{ "swapped-out", test_swapped_out,
	  "an object swapped out faults in its VM, then is mapped again" },
	{ "bad-bind", test_bad_bind,
	  "malformed VM_BIND calls: the errno of each, then a valid one works" },
};

VTEST_MAIN(subtests)
