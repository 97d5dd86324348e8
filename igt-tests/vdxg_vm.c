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
#include <sys/ioctl.h>
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

/* ------------------------------------------------------ blocked-bind */

/*
 * A fence that only the test signals: a point of a sw_sync timeline
 * (debugfs, the sw_sync module), imported into a syncobj of VR.
 */
struct bb_sw_sync_create {
	uint32_t value;
	char name[32];
	int32_t fence;
};
#define BB_SW_SYNC_CREATE	_IOWR('W', 0, struct bb_sw_sync_create)
#define BB_SW_SYNC_INC		_IOW('W', 1, uint32_t)

static int bb_timeline_fd = -1;

/*
 * At exit, a failed assertion's too, the fences signal before the files
 * are released (in the reverse order of their opening): releasing a VM
 * waits for its binds.
 */
static void bb_timeline_release(void)
{
	uint32_t inc = 1u << 30;

	if (bb_timeline_fd >= 0)
		(void)!ioctl(bb_timeline_fd, BB_SW_SYNC_INC, &inc);
}

static int bb_timeline(void)
{
	bb_timeline_fd = open("/sys/kernel/debug/sync/sw_sync", O_RDWR);
	vtest_require_f(bb_timeline_fd >= 0, "no sw_sync timeline: %m");
	atexit(bb_timeline_release);
	return bb_timeline_fd;
}

static uint32_t bb_fence_syncobj(struct vr *vr, int timeline, uint32_t value)
{
	struct bb_sw_sync_create c = { .value = value };
	struct drm_syncobj_handle h = {
		.flags = DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE,
	};

	strcpy(c.name, "blocked-bind");
	vtest_assert_ok(xioctl(timeline, BB_SW_SYNC_CREATE, &c));
	h.handle = vr_syncobj(vr, false);
	h.fd = c.fence;
	vtest_assert_ok(xioctl(vdxg_device_fd(vr->dev),
			       DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &h));
	close(c.fence);
	return h.handle;
}

/* A bind of SIZE bytes of BO at VA waiting for IN (0: none), out OUT. */
static int bb_bind(struct vr *vr, uint32_t vm, struct vdxg_bo *bo,
		   uint64_t va, uint64_t size, uint32_t in, uint32_t out)
{
	struct drm_vdxg_vm_bind_op op = {
		.op = DRM_VDXG_VM_BIND_OP_MAP,
		.handle = bo->handle,
		.va = va,
		.range = size,
	};
	struct drm_vdxg_sync i = vdxg_sync(in, 0), o = vdxg_sync(out, 0);

	return vdxg_vm_bind(vr->dev, vm, &op, 1, in ? &i : NULL, !!in,
			    out ? &o : NULL, !!out);
}

#define BB_DEADLINE	(5 * VR_SEC)

/* An object of another client, made and filled before A's binds wait. */
static struct vdxg_bo *bb_object(struct vr *b, uint32_t seed)
{
	static const uint32_t segs[] = {
		DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_SYSTEM,
	};
	struct vdxg_bo *bo;

	vtest_assert_ok(vdxg_bo_create(b->dev, 256 * KIB, segs, 2,
				       DRM_VDXG_GEM_CPU_ACCESS, &bo));
	fill(bo, 256 * KIB, seed);
	vr_bo_wait(bo);
	return bo;
}

/*
 * What another client does while A's binds wait: bind BO, move it there
 * and back, read it through the VM. Each step must finish within
 * BB_DEADLINE (a fence wait with a deadline).
 */
static void bb_other_client(struct vr *b, uint32_t vm, uint32_t asid,
			    struct vdxg_bo *bo, uint32_t seed)
{
	uint32_t out = vr_syncobj(b, false);
	uint64_t va = 2 * VA + seed * 4 * MIB;

	vtest_assert_ok(bb_bind(b, vm, bo, va, 256 * KIB, 0, out));
	vtest_assert_f(vr_syncobj_wait(b, out, 0, BB_DEADLINE) == 0,
		       "another client's bind did not complete in 5 s");
	/* Again over its own mapping: the object is locked once. */
	vtest_assert_ok(bb_bind(b, vm, bo, va, 256 * KIB, 0, out));
	vtest_assert_f(vr_syncobj_wait(b, out, 0, BB_DEADLINE) == 0,
		       "another client's bind did not complete in 5 s");
	vtest_assert_ok(vdxg_bo_make_resident(bo, DRM_VDXG_SEGMENT_SYSTEM));
	vtest_assert_f(vdxg_bo_wait(bo, BB_DEADLINE) == 0,
		       "another client's move did not complete in 5 s");
	vtest_assert_eq(vr_bo_segment(bo), DRM_VDXG_SEGMENT_SYSTEM);
	vtest_assert_ok(vdxg_bo_make_resident(bo, DRM_VDXG_SEGMENT_VRAM));
	vtest_assert_f(vdxg_bo_wait(bo, BB_DEADLINE) == 0,
		       "another client's move did not complete in 5 s");
	vtest_assert_eq(vr_bo_segment(bo), DRM_VDXG_SEGMENT_VRAM);
	expect_bytes(b, asid, va, bo, 0, 64 * KIB);
	expect_bytes(b, asid, va + 192 * KIB, bo, 192 * KIB, 64 * KIB);
	vdxg_bo_free(bo);
}

/*
 * Binds waiting for an in-fence that is not signalled hold up neither
 * another client's binds nor the moves of its objects, however many of
 * them wait (more than there are paging buffers); a VM's queue of waiting
 * binds is bounded (-EBUSY); once the fence signals, the binds complete
 * and their mappings read right.
 */
static void test_blocked_bind(void)
{
	const uint32_t nblocked = 24;	/* more than VDXG_PG_SLOTS (16) */
	uint32_t asid_a, asid_b, vm_a, vm_a2, vm_b, s_in, s_in2, s_out;
	uint32_t i, queued = 0;
	struct vdxg_bo *bo_a, *bo_b[3];
	int timeline, ret;
	struct vr a, b;

	timeline = bb_timeline();
	vr_open(&a);
	vm_require(&a);
	vr_open(&b);
	vm_a = vm_new_asid(&a, &asid_a);
	vm_a2 = vm_new(&a);
	vm_b = vm_new_asid(&b, &asid_b);
	s_in = bb_fence_syncobj(&a, timeline, 1);
	s_in2 = bb_fence_syncobj(&a, timeline, 2);
	s_out = vr_syncobj(&a, false);
	bo_a = patterned(&a, 64 * KIB, DRM_VDXG_SEGMENT_VRAM, 11);
	vr_bo_wait(bo_a);
	for (i = 0; i < 3; i++)
		bo_b[i] = bb_object(&b, i + 1);

	/* A: one bind waiting for the fence, with the out-syncobj. */
	vtest_assert_ok(bb_bind(&a, vm_a, bo_a, VA, 64 * KIB, s_in, s_out));
	bb_other_client(&b, vm_b, asid_b, bo_b[0], 1);
	vtest_assert_eq(vr_syncobj_wait(&a, s_out, 0, 0), -ETIME);

	/* More waiting binds than there are paging buffers. */
	for (i = 0; i < nblocked; i++)
		vtest_assert_ok(bb_bind(&a, vm_a, bo_a,
					VA + MIB + i * 64 * KIB, 64 * KIB,
					s_in, 0));
	bb_other_client(&b, vm_b, asid_b, bo_b[1], 2);

	/* A second VM of A fills its queue: -EBUSY, the others go on. */
	for (i = 0; i < 1000; i++) {
		ret = bb_bind(&a, vm_a2, bo_a, VA + (i % 64) * 64 * KIB,
			      64 * KIB, s_in2, 0);
		if (ret == -EBUSY)
			break;
		vtest_assert_ok(ret);
		queued++;
	}
	vtest_info("%u binds queued in one VM before -EBUSY", queued);
	vtest_assert_eq(ret, -EBUSY);
	vtest_assert(queued >= 16);
	bb_other_client(&b, vm_b, asid_b, bo_b[2], 3);
	vtest_assert_eq(vr_syncobj_wait(&a, s_out, 0, 0), -ETIME);

	/* The fences signal: everything of A completes and reads right. */
	vtest_assert_ok(xioctl(timeline, BB_SW_SYNC_INC, &(uint32_t){ 2 }));
	vtest_assert_eq(vr_syncobj_wait(&a, s_out, 0, VR_WAIT_NS), 0);
	vtest_assert_eq(vr_syncobj_status(&a, s_out, 0), 1);
	expect_bytes(&a, asid_a, VA, bo_a, 0, 64 * KIB);
	expect_bytes(&a, asid_a, VA + MIB + (nblocked - 1) * 64 * KIB, bo_a,
		     0, 64 * KIB);
	/* The second VM's queue drained: it binds again. */
	vtest_assert_ok(bb_bind(&a, vm_a2, bo_a, VA, 64 * KIB, 0, s_out));
	vtest_assert_eq(vr_syncobj_wait(&a, s_out, 0, VR_WAIT_NS), 0);

	vdxg_bo_free(bo_a);
	vtest_assert_ok(vdxg_vm_destroy(a.dev, vm_a));
	vtest_assert_ok(vdxg_vm_destroy(a.dev, vm_a2));
	vtest_assert_ok(vdxg_vm_destroy(b.dev, vm_b));
	vr_close(&b);
	vr_close(&a);
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
	{ "bad-bind", test_bad_bind,
	  "malformed VM_BIND calls: the errno of each, then a valid one works" },
	{ "blocked-bind", test_blocked_bind,
	  "binds waiting for an unsignalled in-fence hold up neither another "
	  "client's binds nor its moves; a VM's queue is bounded" },
};

VTEST_MAIN(subtests)
