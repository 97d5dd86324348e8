// SPDX-License-Identifier: MIT
/*
 * vdxg_vm: GPU virtual memory (VM_CREATE, VM_DESTROY, VM_BIND). What a
 * VM's page tables say is read back through the GPU itself: debugfs
 * vm_read copies bytes at a virtual address of an address space with a
 * TRANSFER_VIRTUAL on the paging engine; an unmapped address fails with
 * EFAULT (the paging engine faults and is reset). debugfs vms lists each
 * VM's key, address space and mappings.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/dma-buf.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
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
#include "vvm.h"

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
	vr_ignore_dmesg(VVM_FAULT_DMESG);
}

static uint32_t vm_new(struct vr *vr)
{
	uint32_t id = 0;

	vtest_assert_ok(vdxg_vm_create(vr->dev, 0, &id));
	vtest_assert(id != 0);
	return id;
}

/* Create a VM and find its key in debugfs vms. */
static uint32_t vm_new_key(struct vr *vr, uint32_t *key)
{
	uint32_t id = vm_new(vr);

	*key = vvm_key(vdxg_device_fd(vr->dev), id);
	return id;
}

/* SIZE bytes at VA of VM KEY, as the GPU reads them. */
static int vm_read(struct vr *vr, uint32_t key, uint64_t va, void *buf,
		   uint32_t size)
{
	return vvm_read(vdxg_device_fd(vr->dev), key, va, buf, size);
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

/* A copy of the first SIZE bytes of BO, as the CPU sees them now. */
static uint8_t *bo_copy(struct vdxg_bo *bo, uint64_t size)
{
	uint8_t *copy = malloc(size);

	vtest_assert(copy);
	memcpy(copy, vr_map(bo), size);
	return copy;
}

static void expect_bytes(struct vr *vr, uint32_t key, uint64_t va,
			 struct vdxg_bo *bo, uint64_t offset, uint32_t size)
{
	vvm_expect(vdxg_device_fd(vr->dev), key, va,
		   (const uint8_t *)vr_map(bo) + offset, size, "mapping");
}

static void expect_fault(struct vr *vr, uint32_t key, uint64_t va)
{
	vvm_expect_fault(vdxg_device_fd(vr->dev), key, va);
}

/* Wait for the child PID, which must exit with status 0. */
static void wait_child(pid_t pid, const char *what)
{
	int status;

	vtest_assert_eq(waitpid(pid, &status, 0), pid);
	vtest_assert_f(WIFEXITED(status) && !WEXITSTATUS(status),
		       "%s: status 0x%x", what, status);
}

/*
 * VM_CREATE and VM_DESTROY: the per-file limit, then malformed calls, a
 * row each, every one followed by a valid create and destroy.
 */
struct bad_vm_row {
	const char *what;
	bool destroy;		/* a VM_DESTROY row, else VM_CREATE */
	uint32_t flags;		/* VM_CREATE's flags */
	uint32_t vm_id;		/* VM_DESTROY: an id, or VMID_* below */
	uint32_t pad;
	int err;
};

#define VMID_OTHER_FILE		0x7f000001u
#define VMID_DESTROYED		0x7f000002u

static const struct bad_vm_row bad_vm_rows[] = {
	{ "create: flags 1", false, 1, 0, 0, -EINVAL },
	{ "create: flags ~0", false, ~0u, 0, 0, -EINVAL },
	{ "create: flag 31", false, 1u << 31, 0, 0, -EINVAL },
	{ "destroy: VM 0", true, 0, 0, 0, -ENOENT },
	{ "destroy: unknown VM", true, 0, 1000, 0, -ENOENT },
	{ "destroy: VM ~0", true, 0, ~0u, 0, -ENOENT },
	{ "destroy: a VM of another file", true, 0, VMID_OTHER_FILE, 0,
	  -ENOENT },
	{ "destroy: a destroyed VM", true, 0, VMID_DESTROYED, 0, -ENOENT },
	{ "destroy: pad", true, 0, 0, 1, -EINVAL },
};

static void test_create_destroy(void)
{
	uint32_t ids[DRM_VDXG_VM_MAX_PER_FILE], id, other, gone, i;
	int fd;
	struct vr vr, b;

	vr_open(&vr);
	vm_require(&vr);
	vr_open(&b);
	fd = vdxg_device_fd(vr.dev);
	for (i = 0; i < DRM_VDXG_VM_MAX_PER_FILE; i++)
		ids[i] = vm_new(&vr);
	vtest_assert_eq(vdxg_vm_create(vr.dev, 0, &id), -ENOSPC);
	/* The limit is the file's: another file still creates one. */
	other = vm_new(&b);
	for (i = 0; i < DRM_VDXG_VM_MAX_PER_FILE; i++)
		vtest_assert_ok(vdxg_vm_destroy(vr.dev, ids[i]));
	vtest_assert_eq(vdxg_vm_destroy(vr.dev, ids[0]), -ENOENT);

	gone = vm_new(&vr);
	vtest_assert_ok(vdxg_vm_destroy(vr.dev, gone));
	for (i = 0; i < sizeof(bad_vm_rows) / sizeof(bad_vm_rows[0]); i++) {
		const struct bad_vm_row *row = &bad_vm_rows[i];
		struct drm_vdxg_vm_create c = { .flags = row->flags };
		struct drm_vdxg_vm_destroy d = {
			.vm_id = row->vm_id, .pad = row->pad,
		};

		vtest_info("row %u: %s: %d", i, row->what, row->err);
		if (d.vm_id == VMID_OTHER_FILE)
			d.vm_id = other;
		else if (d.vm_id == VMID_DESTROYED)
			d.vm_id = gone;
		/* A pad row names a VM that exists and survives the call. */
		if (row->pad)
			d.vm_id = vm_new(&vr);
		if (row->destroy)
			vtest_assert_eq(xioctl(fd, DRM_IOCTL_VDXG_VM_DESTROY,
					       &d), row->err);
		else
			vtest_assert_eq(xioctl(fd, DRM_IOCTL_VDXG_VM_CREATE,
					       &c), row->err);
		if (row->pad) {
			d.pad = 0;
			vtest_assert_ok(xioctl(fd, DRM_IOCTL_VDXG_VM_DESTROY,
					       &d));
		}
		id = vm_new(&vr);
		vtest_assert_ok(vdxg_vm_destroy(vr.dev, id));
	}
	/* The other file's VM is still there for it. */
	vtest_assert_ok(vdxg_vm_destroy(b.dev, other));
	vr_close(&b);
	vr_close(&vr);
}

/* SIZE bytes at VA read through the VM are WANT (64 KiB a read). */
static void expect_mem(struct vr *vr, uint32_t key, uint64_t va,
		       const uint8_t *want, uint32_t size)
{
	uint8_t got[64 * KIB];
	uint32_t off, n;

	for (off = 0; off < size; off += n) {
		n = size - off < sizeof(got) ? size - off : sizeof(got);
		vtest_assert_eq(vm_read(vr, key, va + off, got, n), 0);
		vtest_assert_f(!memcmp(got, want + off, n),
			       "VA 0x%" PRIx64 ": not the object's bytes",
			       va + off);
	}
}

/*
 * VM_CREATE and VM_DESTROY of one file at once, from two processes
 * sharing it: one creates and destroys, the other destroys every id it
 * may be given. No VM is freed while it is created (KASAN, in the debug
 * boot), each call returns 0 or its errno, and debugfs vms, which walks
 * every VM, reads.
 */
static void test_create_destroy_race(void)
{
	const uint32_t rounds = 2000;
	struct vr vr;
	uint32_t i, id;
	int ret;
	pid_t pid;

	vr_open(&vr);
	vm_require(&vr);
	pid = fork();
	vtest_assert(pid >= 0);
	if (!pid) {
		for (i = 0; i < rounds; i++) {
			ret = vdxg_vm_destroy(vr.dev,
					      1 + i % DRM_VDXG_VM_MAX_PER_FILE);
			if (ret && ret != -ENOENT)
				_exit(1);
		}
		_exit(0);
	}
	for (i = 0; i < rounds; i++) {
		ret = vdxg_vm_create(vr.dev, 0, &id);
		if (ret == -ENOSPC)
			continue;
		vtest_assert_eq(ret, 0);
		vtest_assert(id >= 1 && id <= DRM_VDXG_VM_MAX_PER_FILE);
		ret = vdxg_vm_destroy(vr.dev, id);
		vtest_assert(ret == 0 || ret == -ENOENT);
	}
	wait_child(pid, "the destroying process");
	/* Every VM still listed is whole: its address space reads. */
	id = vm_new(&vr);
	vtest_assert(vvm_key(vdxg_device_fd(vr.dev), id) > 0);
	vtest_assert_ok(vdxg_vm_destroy(vr.dev, id));
	vr_close(&vr);
}

static void test_map_read(void)
{
	static const uint32_t segs[] = {
		DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_SYSTEM,
		DRM_VDXG_SEGMENT_APERTURE,
	};
	uint32_t key, vm, i;
	struct vr vr;

	vr_open(&vr);
	vm_require(&vr);
	vm = vm_new_key(&vr, &key);
	for (i = 0; i < 3; i++) {
		struct vdxg_bo *bo = patterned(&vr, 64 * KIB, segs[i], i + 1);
		uint64_t va = VA + i * MIB;

		vtest_assert_ok(vdxg_vm_map(vr.dev, vm, bo, 0, va, 64 * KIB,
					    0));
		expect_bytes(&vr, key, va, bo, 0, 64 * KIB);
		/* An offset into the object, at another address. */
		vtest_assert_ok(vdxg_vm_map(vr.dev, vm, bo, 16 * KIB,
					    va + 512 * KIB, 32 * KIB, 0));
		expect_bytes(&vr, key, va + 512 * KIB, bo, 16 * KIB,
			     32 * KIB);
		vdxg_bo_free(bo);
	}
	vtest_assert_ok(vdxg_vm_destroy(vr.dev, vm));
	vr_close(&vr);
}

static void test_partial_unmap(void)
{
	struct vdxg_bo *bo;
	uint32_t key, vm;
	struct vr vr;

	vr_open(&vr);
	vm_require(&vr);
	vm = vm_new_key(&vr, &key);
	bo = patterned(&vr, 64 * KIB, DRM_VDXG_SEGMENT_VRAM, 7);
	vtest_assert_ok(vdxg_vm_map(vr.dev, vm, bo, 0, VA, 64 * KIB, 0));
	vtest_assert_ok(vdxg_vm_unmap(vr.dev, vm, VA + 16 * KIB, 16 * KIB));
	expect_bytes(&vr, key, VA, bo, 0, 16 * KIB);
	expect_fault(&vr, key, VA + 16 * KIB);
	expect_fault(&vr, key, VA + 28 * KIB);
	expect_bytes(&vr, key, VA + 32 * KIB, bo, 32 * KIB, 32 * KIB);
	/* Map the hole again from another part of the object. */
	vtest_assert_ok(vdxg_vm_map(vr.dev, vm, bo, 48 * KIB, VA + 16 * KIB,
				    16 * KIB, 0));
	expect_bytes(&vr, key, VA + 16 * KIB, bo, 48 * KIB, 16 * KIB);
	vdxg_bo_free(bo);
	vtest_assert_ok(vdxg_vm_destroy(vr.dev, vm));
	vr_close(&vr);
}

/* Mappings and tables of ASID now; the mapping count must be N. */
static uint32_t expect_mappings(struct vr *vr, uint32_t key, uint64_t n)
{
	uint64_t mappings;
	uint32_t tables;

	vvm_counts(vdxg_device_fd(vr->dev), key, &mappings, &tables);
	vtest_info("%" PRIu64 " mappings, %u tables", mappings, tables);
	vtest_assert_eq_u64(mappings, n);
	return tables;
}

/*
 * A partial unmap splits a mapping, and the 2 MiB page under it into a
 * table of 4 KiB entries; mapping the hole again from the same object at
 * the same offset joins the pieces: one mapping again, a 2 MiB page again
 * (the table goes), the bytes the object's. The hole mapped from another
 * offset joins nothing.
 */
static void test_join(void)
{
	const uint64_t size = 4 * MIB, hole = VA + MIB + 128 * KIB;
	uint32_t key, vm, tables, t;
	struct vdxg_bo *bo;
	uint8_t *want;
	struct vr vr;

	vr_open(&vr);
	vm_require(&vr);
	vm = vm_new_key(&vr, &key);
	bo = patterned(&vr, size, DRM_VDXG_SEGMENT_VRAM, 17);
	vtest_require_f(vr_bo_gpu_addr(bo) % (2 * MIB) == 0,
			"the object is not 2 MiB aligned in VRAM");
	want = bo_copy(bo, size);
	vtest_assert_ok(vdxg_vm_map(vr.dev, vm, bo, 0, VA, size, 0));
	tables = expect_mappings(&vr, key, 1);

	vtest_assert_ok(vdxg_vm_unmap(vr.dev, vm, hole, 64 * KIB));
	t = expect_mappings(&vr, key, 2);
	vtest_assert_eq(t, tables + 1);	/* the split 2 MiB page */
	expect_fault(&vr, key, hole);
	expect_fault(&vr, key, hole + 60 * KIB);
	expect_mem(&vr, key, hole - 64 * KIB, want + (hole - 64 * KIB - VA),
		   64 * KIB);
	expect_mem(&vr, key, hole + 64 * KIB, want + (hole + 64 * KIB - VA),
		   64 * KIB);

	/* From elsewhere in the object: three mappings, still split. */
	vtest_assert_ok(vdxg_vm_map(vr.dev, vm, bo, 0, hole, 64 * KIB, 0));
	vtest_assert_eq(expect_mappings(&vr, key, 3), tables + 1);
	expect_mem(&vr, key, hole, want, 64 * KIB);

	/* From where it was: joined, and a 2 MiB page again. */
	vtest_assert_ok(vdxg_vm_map(vr.dev, vm, bo, hole - VA, hole, 64 * KIB,
				    0));
	vtest_assert_eq(expect_mappings(&vr, key, 1), tables);
	expect_mem(&vr, key, VA, want, size);

	/* Read-only next to writable joins nothing. */
	vtest_assert_ok(vdxg_vm_map(vr.dev, vm, bo, hole - VA, hole, 64 * KIB,
				    DRM_VDXG_VM_BIND_READ_ONLY));
	expect_mappings(&vr, key, 3);
	vtest_assert_ok(vdxg_vm_map(vr.dev, vm, bo, hole - VA, hole, 64 * KIB,
				    0));
	expect_mappings(&vr, key, 1);
	expect_mem(&vr, key, VA, want, size);

	free(want);
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
	uint32_t key, vm, i;
	struct vr vr;

	vr_open(&vr);
	vm_require(&vr);
	vm = vm_new_key(&vr, &key);
	vtest_assert_ok(vdxg_vm_bind(vr.dev, vm, &op, 1, NULL, 0, NULL, 0));
	memset(buf, 0xa5, sizeof(buf));
	/* The bind's jobs and the read share the paging queue, in order. */
	vtest_assert_eq(vm_read(&vr, key, VA + MIB, buf, sizeof(buf)), 0);
	for (i = 0; i < sizeof(buf); i++)
		vtest_assert_eq(buf[i], 0);
	/* A null range next to another joins it. */
	op.va = VA + 2 * MIB;
	op.range = MIB;
	vtest_assert_ok(vdxg_vm_bind(vr.dev, vm, &op, 1, NULL, 0, NULL, 0));
	expect_mappings(&vr, key, 1);
	memset(buf, 0xa5, sizeof(buf));
	vtest_assert_eq(vm_read(&vr, key, VA + 2 * MIB - 4096, buf,
				sizeof(buf)), 0);
	for (i = 0; i < sizeof(buf); i++)
		vtest_assert_eq(buf[i], 0);
	vtest_assert_ok(vdxg_vm_unmap(vr.dev, vm, VA, 3 * MIB));
	expect_fault(&vr, key, VA + MIB);
	expect_fault(&vr, key, VA + 2 * MIB);
	vtest_assert_ok(vdxg_vm_destroy(vr.dev, vm));
	vr_close(&vr);
}

/* The per-file page-table cap, in tables: an eighth of VRAM, 4 KiB each. */
static uint32_t cap_tables(struct vr *vr)
{
	return vvm_vram_segment(vdxg_device_fd(vr->dev)) / 8 / 4096;
}

#define FILL_OBJ	(64 * MIB)	/* what fill_tables() maps */
#define FILL_OPS	16		/* maps a bind */

/* The object fill_tables() maps: system pages, mapped from offset 4 KiB. */
static struct vdxg_bo *fill_obj(struct vr *vr)
{
	return vr_bo(vr, FILL_OBJ + 4 * KIB, DRM_VDXG_SEGMENT_SYSTEM, 0);
}

/*
 * Binds of FILL_OPS maps of @bo (fill_obj()) 64 MiB apart, from *@va on,
 * until VM @key is charged @want tables or a bind fails. Mapped from
 * offset 4 KiB, no 2 MiB of its pages makes a 2 MiB entry: a map takes 32
 * level-0 tables, and 32 more kept for moves. A bind that fails changes
 * nothing: checked. Returns 0 or the failing bind's error.
 */
static int fill_tables(struct vr *vr, uint32_t vm, uint32_t key,
		       struct vdxg_bo *bo, uint64_t *va, uint32_t want)
{
	struct drm_vdxg_vm_bind_op ops[FILL_OPS] = {};
	int fd = vdxg_device_fd(vr->dev), ret;
	uint64_t mappings, after;
	uint32_t tables, i;

	for (;;) {
		if (vvm_charged(fd, key) >= want)
			return 0;
		vvm_counts(fd, key, &mappings, &tables);
		for (i = 0; i < FILL_OPS; i++) {
			ops[i].op = DRM_VDXG_VM_BIND_OP_MAP;
			ops[i].handle = bo->handle;
			ops[i].obj_offset = 4 * KIB;
			ops[i].va = *va + i * FILL_OBJ;
			ops[i].range = FILL_OBJ;
		}
		ret = vdxg_vm_bind(vr->dev, vm, ops, FILL_OPS, NULL, 0, NULL,
				   0);
		if (ret) {
			vvm_counts(fd, key, &after, &tables);
			vtest_assert_eq_u64(after, mappings);
			return ret;
		}
		*va += FILL_OPS * FILL_OBJ;
	}
}

/*
 * Page tables are bounded: a null range takes the largest null leaves
 * that fit it (up to 512 GiB, docs/hardware.md), so that any null range
 * takes tables at its ends only, and no table for moves (null entries
 * never move); the VMs of a file hold at most an eighth of VRAM in tables,
 * past which a bind fails with -ENOSPC and changes nothing; another file
 * is not held back. (MAP_NULL of the whole space used to ask kvrealloc()
 * for more than INT_MAX bytes, a kernel warning; a 128 GiB null range
 * took about 65,000 tables, 256 MiB of VRAM, and then a table a GiB.)
 */
static void test_null_bounded(void)
{
	const uint64_t tib = 1024ull * 1024 * MIB;
	struct drm_vdxg_vm_bind_op op = {
		.op = DRM_VDXG_VM_BIND_OP_MAP_NULL,
	};
	uint32_t key, key2, key3, vm, vm2, vm3, tables, cap;
	uint64_t mappings, va, va2, va3;
	struct vdxg_bo *bo, *obj, *obj2;
	uint8_t buf[4096];
	struct vr vr, vr2;
	unsigned int i;

	vr_open(&vr);
	vm_require(&vr);
	vr_open(&vr2);
	cap = cap_tables(&vr);
	vm = vm_new_key(&vr, &key);

	/* The whole space: null leaves in the root, no other table. */
	op.va = 0;
	op.range = BIT_ULL(DRM_VDXG_VM_VA_BITS);
	vtest_assert_ok(vdxg_vm_bind(vr.dev, vm, &op, 1, NULL, 0, NULL, 0));
	vvm_counts(vdxg_device_fd(vr.dev), key, &mappings, &tables);
	vtest_assert_eq_u64(mappings, 1);
	vtest_assert_eq(tables, 1);
	for (i = 0; i < 4; i++) {
		uint64_t at = i * (op.range / 4) + (i ? 12345 * 4096ull : 0);

		memset(buf, 0xa5, sizeof(buf));
		vtest_assert_eq(vm_read(&vr, key, at, buf, sizeof(buf)), 0);
		vtest_assert(buf[0] == 0 && !memcmp(buf, buf + 1,
						    sizeof(buf) - 1));
	}
	vtest_assert_ok(vdxg_vm_unmap(vr.dev, vm, 0, op.range));

	/* 128 GiB, not 2 MiB aligned: tables at its two ends only. */
	op.va = VA + 4 * KIB;
	op.range = 128 * 1024 * MIB;
	vtest_assert_ok(vdxg_vm_bind(vr.dev, vm, &op, 1, NULL, 0, NULL, 0));
	vvm_counts(vdxg_device_fd(vr.dev), key, &mappings, &tables);
	vtest_info("128 GiB null: %u tables", tables);
	vtest_assert_lte(tables, 7);
	for (i = 0; i < 3; i++) {
		uint64_t at = op.va + i * (op.range / 2) - (i ? 4 * KIB : 0);

		memset(buf, 0xa5, sizeof(buf));
		vtest_assert_eq(vm_read(&vr, key, at, buf, sizeof(buf)), 0);
		vtest_assert(buf[0] == 0 && !memcmp(buf, buf + 1,
						    sizeof(buf) - 1));
	}

	/*
	 * Over half the file's cap in one VM; the same in another VM of the
	 * file stops short with -ENOSPC, and in a VM of another file not.
	 */
	vm2 = vm_new_key(&vr, &key2);
	vm3 = vm_new_key(&vr2, &key3);
	obj = fill_obj(&vr);
	obj2 = fill_obj(&vr2);
	va = va2 = va3 = 8 * tib;
	vtest_assert_ok(fill_tables(&vr, vm, key, obj, &va, cap * 9 / 16));
	vtest_assert_eq(fill_tables(&vr, vm2, key2, obj, &va2, cap * 9 / 16),
			-ENOSPC);
	tables = vvm_charged(vdxg_device_fd(vr.dev), key2);
	vtest_info("cap %u tables; the second VM of the file got %u", cap,
		   tables);
	vtest_assert_lt(tables, cap * 7 / 16);
	vtest_assert_ok(fill_tables(&vr2, vm3, key3, obj2, &va3,
				    cap * 9 / 16));
	/* And VRAM is there for objects. */
	bo = patterned(&vr2, 32 * MIB, DRM_VDXG_SEGMENT_VRAM, 60);
	vtest_assert_eq(vr_bo_segment(bo), DRM_VDXG_SEGMENT_VRAM);
	vdxg_bo_free(bo);

	vtest_assert_ok(vdxg_vm_destroy(vr2.dev, vm3));
	vtest_assert_ok(vdxg_vm_destroy(vr.dev, vm2));
	vtest_assert_ok(vdxg_vm_destroy(vr.dev, vm));
	vdxg_bo_free(obj2);
	vdxg_bo_free(obj);
	vr_close(&vr2);
	vr_close(&vr);
}

/*
 * The per-file table cap holds against binds of two VMs of the file at
 * once: two processes sharing it each bind until -ENOSPC, and the file's
 * tables never pass the cap. (The cap was checked before the tables were
 * made, so both used to pass the check and both bind.)
 */
static void test_cap_race(void)
{
	uint32_t vm[2], key[2], t[2], cap;
	uint64_t va[2] = { 8ull << 40, 16ull << 40 };
	int go[2], ret, status;
	struct vdxg_bo *obj;
	struct vr vr;
	char c = 0;
	pid_t pid;

	vr_open(&vr);
	vm_require(&vr);
	cap = cap_tables(&vr);
	vm[0] = vm_new_key(&vr, &key[0]);
	vm[1] = vm_new_key(&vr, &key[1]);
	obj = fill_obj(&vr);
	vtest_assert_eq(pipe(go), 0);
	pid = fork();
	vtest_assert(pid >= 0);
	if (!pid) {
		if (read(go[0], &c, 1) != 1)
			_exit(3);
		ret = fill_tables(&vr, vm[1], key[1], obj, &va[1], cap);
		_exit(ret == -ENOSPC ? 0 : 1);
	}
	vtest_assert_eq(write(go[1], &c, 1), 1);
	ret = fill_tables(&vr, vm[0], key[0], obj, &va[0], cap);
	vtest_assert_eq(waitpid(pid, &status, 0), pid);
	vtest_assert_f(WIFEXITED(status) && !WEXITSTATUS(status),
		       "the other process: status 0x%x", status);
	vtest_assert_eq(ret, -ENOSPC);
	t[0] = vvm_charged(vdxg_device_fd(vr.dev), key[0]);
	t[1] = vvm_charged(vdxg_device_fd(vr.dev), key[1]);
	vtest_info("cap %u tables; the two VMs hold %u and %u", cap, t[0],
		   t[1]);
	vtest_assert_f(t[0] + t[1] <= cap, "the file is past its cap");
	vtest_assert(t[0] + t[1] >= cap / 2);
	close(go[0]);
	close(go[1]);
	vtest_assert_ok(vdxg_vm_destroy(vr.dev, vm[1]));
	vtest_assert_ok(vdxg_vm_destroy(vr.dev, vm[0]));
	vdxg_bo_free(obj);
	vr_close(&vr);
}

#define CG_ROOT		"/sys/fs/cgroup"
#define CG_DIR		CG_ROOT "/vdxg-vm-memcg"

/* Write STR to the cgroup file PATH; 0 or -errno. */
static int cg_write(const char *path, const char *str)
{
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, str, strlen(str)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* A number from the cgroup file PATH, or the value of KEY in it. */
static uint64_t cg_read(const char *path, const char *key)
{
	unsigned long long v = 0;
	char line[256], k[64];
	bool found = false;
	FILE *f = fopen(path, "r");

	vtest_assert_f(f, "%s: %s", path, strerror(errno));
	while (!found && fgets(line, sizeof(line), f))
		found = key ? sscanf(line, "%63s %llu", k, &v) == 2 &&
			      !strcmp(k, key) :
			      sscanf(line, "%llu", &v) == 1;
	fclose(f);
	vtest_assert_f(found, "%s: no %s", path, key ?: "value");
	return v;
}

#define MEMCG_OPS	512
#define MEMCG_MIN	(3 * MIB)	/* 512 level-1 tables' shadows, at least */

/*
 * Page-table memory is charged to the client's memory cgroup: a process in
 * a cgroup of its own binds a null page in each of 512 GiB, each taking a
 * level-1 and a level-0 table whose shadows (8 KiB and more each), the
 * mappings and the bind's copies are kernel memory of the cgroup: its
 * memory.current grows by 3 MiB at least, and falls back once the VM is
 * destroyed. (Without __GFP_ACCOUNT none of it would be the cgroup's.)
 */
static void test_memcg(void)
{
	struct drm_vdxg_vm_bind_op ops[MEMCG_OPS] = {};
	uint64_t before, bound, after;
	char pid[32], buf[256];
	uint32_t vm, i;
	int status;
	struct vr vr;
	pid_t child;

	/* The debug kernel has no cgroups: the default kernel's test. */
	vtest_require_f(!access(CG_ROOT, F_OK), "no cgroups in this kernel");
	if (access(CG_ROOT "/cgroup.controllers", R_OK))
		vtest_assert_f(!mount("none", CG_ROOT, "cgroup2", 0, NULL),
			       "mount cgroup2: %s", strerror(errno));
	vtest_assert(vtest_read_file(CG_ROOT "/cgroup.controllers", buf,
				     sizeof(buf)) > 0);
	vtest_require_f(strstr(buf, "memory"), "no memory controller");
	vtest_assert_ok(cg_write(CG_ROOT "/cgroup.subtree_control",
				 "+memory"));
	if (mkdir(CG_DIR, 0755))
		vtest_assert_eq(errno, EEXIST);

	child = fork();
	vtest_assert(child >= 0);
	if (!child) {
		snprintf(pid, sizeof(pid), "%d", getpid());
		vtest_assert_ok(cg_write(CG_DIR "/cgroup.procs", pid));
		vr_open(&vr);
		vm_require(&vr);
		vm = vm_new(&vr);
		for (i = 0; i < MEMCG_OPS; i++) {
			ops[i].op = DRM_VDXG_VM_BIND_OP_MAP_NULL;
			ops[i].va = (1ull << 40) + (uint64_t)i * 1024 * MIB;
			ops[i].range = 4 * KIB;
		}
		before = cg_read(CG_DIR "/memory.current", NULL);
		vtest_assert_ok(vdxg_vm_bind(vr.dev, vm, ops, MEMCG_OPS, NULL,
					     0, NULL, 0));
		bound = cg_read(CG_DIR "/memory.current", NULL);
		vtest_assert_ok(vdxg_vm_destroy(vr.dev, vm));
		vr_close(&vr);
		after = cg_read(CG_DIR "/memory.current", NULL);
		vtest_info("the cgroup's memory: %" PRIu64 " KiB, with "
			   "the VM %" PRIu64 " KiB, after it %" PRIu64 " KiB",
			   (uint64_t)(before / KIB), (uint64_t)(bound / KIB),
			   (uint64_t)(after / KIB));
		vtest_assert_lte_u64(before + MEMCG_MIN, bound);
		vtest_assert_lte_u64(after + MEMCG_MIN, bound);
		_exit(0);
	}
	vtest_assert_eq(waitpid(child, &status, 0), child);
	vtest_assert_f(WIFEXITED(status) && !WEXITSTATUS(status),
		       "the process in the cgroup: status 0x%x", status);
	vtest_assert_ok(rmdir(CG_DIR) ? -errno : 0);
}

/* Bound objects moved between segments stay readable at their address. */
static void test_moves(void)
{
	static const uint32_t segs[] = {
		DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_SYSTEM,
		DRM_VDXG_SEGMENT_APERTURE,
	};
	struct vdxg_bo *bo;
	uint32_t key, vm, i, j;
	struct vr vr;

	vr_open(&vr);
	vm_require(&vr);
	vm = vm_new_key(&vr, &key);
	vtest_assert_ok(vdxg_bo_create(vr.dev, 4 * MIB, segs, 3,
				       DRM_VDXG_GEM_CPU_ACCESS, &bo));
	fill(bo, 4 * MIB, 3);
	vtest_assert_ok(vdxg_vm_map(vr.dev, vm, bo, 0, 2 * VA, 4 * MIB, 0));
	for (i = 0; i < 3; i++)
		for (j = 0; j < 3; j++) {
			vtest_assert_ok(vdxg_bo_make_resident(bo, segs[i]));
			vtest_assert_ok(vdxg_bo_make_resident(bo, segs[j]));
			expect_bytes(&vr, key, 2 * VA, bo, 0, 64 * KIB);
			expect_bytes(&vr, key, 2 * VA + 4 * MIB - 64 * KIB, bo,
				     4 * MIB - 64 * KIB, 64 * KIB);
		}
	vdxg_bo_free(bo);
	vtest_assert_ok(vdxg_vm_destroy(vr.dev, vm));
	vr_close(&vr);
}

/* The bytes patterned() writes with SEED, for a process that has no map. */
static void pattern_bytes(uint8_t *buf, uint64_t size, uint32_t seed)
{
	uint32_t *p = (uint32_t *)buf;
	uint64_t i;

	for (i = 0; i < size / 4; i++)
		p[i] = seed * 0x9e3779b9u + (uint32_t)i;
}

/*
 * The second process of test_isolation: its own VM, where the first
 * process's address faults; then its own object at that same address.
 * It writes its VM's key to TO, and waits on FROM before it goes.
 */
static void isolation_child(int to, int from, uint32_t vm_a)
{
	uint32_t key, vm;
	struct vdxg_bo *bo;
	struct vr b;
	char c;

	vr_open(&b);
	vm = vm_new_key(&b, &key);
	expect_fault(&b, key, VA);
	/* The other process's VM id is nothing here. */
	if (vm_a != vm)
		vtest_assert_eq(vdxg_vm_unmap(b.dev, vm_a, VA, 64 * KIB),
				-ENOENT);
	bo = patterned(&b, 64 * KIB, DRM_VDXG_SEGMENT_VRAM, 10);
	vtest_assert_ok(vdxg_vm_map(b.dev, vm, bo, 0, VA, 64 * KIB, 0));
	expect_bytes(&b, key, VA, bo, 0, 64 * KIB);
	vtest_assert_eq(write(to, &key, sizeof(key)), sizeof(key));
	vtest_assert_eq(read(from, &c, 1), 1);
	vdxg_bo_free(bo);
	vtest_assert_ok(vdxg_vm_destroy(b.dev, vm));
	vr_close(&b);
}

/*
 * Two processes' VMs: an address mapped in one faults in the other; both
 * then map the same address, each to its own object, and each address
 * space reads its own bytes.
 */
static void test_isolation(void)
{
	int to_parent[2], to_child[2], status;
	uint32_t key_a, key_b, vm_a;
	uint8_t want_b[64 * KIB];
	struct vdxg_bo *bo;
	struct vr a;
	pid_t pid;

	vr_open(&a);
	vm_require(&a);
	vm_a = vm_new_key(&a, &key_a);
	bo = patterned(&a, 64 * KIB, DRM_VDXG_SEGMENT_VRAM, 9);
	vtest_assert_ok(vdxg_vm_map(a.dev, vm_a, bo, 0, VA, 64 * KIB, 0));
	expect_bytes(&a, key_a, VA, bo, 0, 64 * KIB);

	vtest_assert_ok(pipe(to_parent));
	vtest_assert_ok(pipe(to_child));
	pid = fork();
	vtest_assert(pid >= 0);
	if (!pid) {
		isolation_child(to_parent[1], to_child[0], vm_a);
		_exit(0);
	}
	vtest_assert_eq(read(to_parent[0], &key_b, sizeof(key_b)),
			sizeof(key_b));
	vtest_assert(key_b != key_a);
	pattern_bytes(want_b, sizeof(want_b), 10);
	expect_bytes(&a, key_a, VA, bo, 0, 64 * KIB);
	vvm_expect(vdxg_device_fd(a.dev), key_b, VA, want_b, sizeof(want_b),
		   "the other process's mapping");
	vtest_assert_eq(write(to_child[1], "x", 1), 1);
	vtest_assert_eq(waitpid(pid, &status, 0), pid);
	vtest_assert_f(WIFEXITED(status) && !WEXITSTATUS(status),
		       "second process: status 0x%x", status);
	/* Its VM gone, this one's mapping is still there. */
	expect_bytes(&a, key_a, VA, bo, 0, 64 * KIB);
	close(to_parent[0]);
	close(to_parent[1]);
	close(to_child[0]);
	close(to_child[1]);
	vdxg_bo_free(bo);
	vtest_assert_ok(vdxg_vm_destroy(a.dev, vm_a));
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
	uint32_t key, vm, ctx, s_in, s_out;
	uint8_t *map;
	struct vr vr;

	vr_open(&vr);
	vm_require(&vr);
	vm = vm_new_key(&vr, &key);
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
	expect_bytes(&vr, key, VA, bo, 0, 64 * KIB);
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
	uint32_t key, vm, ctx, s_job, s_out;
	struct drm_vdxg_sync out;
	uint8_t *map;
	struct vr vr;

	vr_open(&vr);
	vm_require(&vr);
	vm = vm_new_key(&vr, &key);
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
	expect_fault(&vr, key, VA);
	vdxg_bo_free(bo);
	vdxg_bo_free(hold);
	vtest_assert_ok(vdxg_vm_destroy(vr.dev, vm));
	vr_close(&vr);
}

/*
 * A bind whose in-fence signals with an error still applies: an unmap
 * left undone would leave entries to memory its object may free. The
 * in-fence here is a job that faults (-EIO); the map behind it reads
 * back, the unmap behind it faults, and both out-syncobjs signal.
 */
static void test_bind_in_fence_error(void)
{
	struct drm_vdxg_vm_bind_op op = {
		.op = DRM_VDXG_VM_BIND_OP_MAP, .va = VA, .range = 64 * KIB,
	};
	struct vdxg_bo *bo, *dst, *vb;
	struct drm_vdxg_sync in, out, job_out;
	struct vdxg_submit_opts opts = {
		.out_syncs = &job_out, .num_out_syncs = 1,
	};
	uint32_t key, vm, ctx, s_job, s_out, i;
	struct vdxg_cs *cs;
	struct vr vr;

	vr_open(&vr);
	vm_require(&vr);
	vr_ignore_dmesg(VR_RESET_DMESG "|callbacks suppressed");
	vm = vm_new_key(&vr, &key);
	bo = patterned(&vr, 64 * KIB, DRM_VDXG_SEGMENT_VRAM, 80);
	op.handle = bo->handle;
	s_out = vr_syncobj(&vr, false);
	out = vdxg_sync(s_out, 0);
	for (i = 0; i < 2; i++) {
		/* A fresh context each time: a faulting one is banned. */
		ctx = vr_ctx(&vr);
		s_job = vr_syncobj(&vr, false);
		job_out = vdxg_sync(s_job, 0);
		cs = vr_cs();
		vr_cs_fault(&vr, cs, &dst, &vb);
		vr_submit(&vr, ctx, cs, &opts);
		in = vdxg_sync(s_job, 0);
		vtest_assert_ok(vdxg_vm_bind(vr.dev, vm, &op, 1, &in, 1, &out,
					     1));
		vtest_assert_eq(vr_syncobj_wait(&vr, s_out, 0, VR_WAIT_NS), 0);
		vtest_assert_eq(vr_syncobj_wait(&vr, s_job, 0, 0), 0);
		vtest_assert_f(vr_syncobj_status(&vr, s_job, 0) < 0,
			       "the faulting job's fence has no error");
		vtest_assert_eq(vr_syncobj_status(&vr, s_out, 0), 1);
		if (op.op == DRM_VDXG_VM_BIND_OP_MAP)
			expect_bytes(&vr, key, VA, bo, 0, 64 * KIB);
		else
			expect_fault(&vr, key, VA);
		vtest_assert_ok(vdxg_syncobj_reset(vr.dev, s_out));
		op.op = DRM_VDXG_VM_BIND_OP_UNMAP;
		op.handle = 0;
		vdxg_cs_free(cs);
		vdxg_bo_free(dst);
		vdxg_bo_free(vb);
	}
	vdxg_bo_free(bo);
	vtest_assert_ok(vdxg_vm_destroy(vr.dev, vm));
	vr_close(&vr);
}

/* Pause (true) or resume the paging engine (debugfs paging_hold). */
static void paging_hold(struct vr *vr, bool hold)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/paging_hold",
		 vtest_drm_minor(vdxg_device_fd(vr->dev)));
	vtest_assert_eq(vtest_write_file(path, hold ? "1" : "0"), 0);
}

/*
 * An unmap queued while a move of its object is still on the paging
 * engine (held there), to read the object, waits for the move: the move
 * rewrites the object's entries after its transfer, and the unmap's
 * out-syncobj signals only after that. So the range faults once the unmap
 * is done, and later moves do not map it again; the bytes survive.
 */
static void test_unbind_during_move(void)
{
	static const uint32_t segs[] = {
		DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_SYSTEM,
	};
	static const uint32_t to[] = {
		DRM_VDXG_SEGMENT_SYSTEM, DRM_VDXG_SEGMENT_VRAM,
	};
	const uint64_t size = 16 * MIB;
	struct drm_vdxg_vm_bind_op op = {
		.op = DRM_VDXG_VM_BIND_OP_UNMAP, .va = VA, .range = size,
	};
	uint32_t key, vm, s_out, i;
	struct drm_vdxg_sync out;
	struct vdxg_bo *bo;
	uint8_t *want;
	struct vr vr;

	vr_open(&vr);
	vm_require(&vr);
	vm = vm_new_key(&vr, &key);
	s_out = vr_syncobj(&vr, false);
	out = vdxg_sync(s_out, 0);
	vtest_assert_ok(vdxg_bo_create(vr.dev, size, segs, 2, 0, &bo));
	fill(bo, size, 31);
	want = bo_copy(bo, size);
	for (i = 0; i < 2; i++) {
		vtest_assert_ok(vdxg_vm_map(vr.dev, vm, bo, 0, VA, size, 0));
		expect_mem(&vr, key, VA + size - 64 * KIB,
			   want + size - 64 * KIB, 64 * KIB);
		paging_hold(&vr, true);
		vtest_assert_ok(vdxg_bo_make_resident(bo, to[i]));
		vtest_assert_ok(vdxg_vm_bind(vr.dev, vm, &op, 1, NULL, 0, &out,
					     1));
		vr_sleep_ms(50);
		/* The move is held on the engine; the unmap waits for it. */
		vtest_assert(!vr_bo_idle(bo));
		vtest_assert_eq(vr_syncobj_wait(&vr, s_out, 0, 0), -ETIME);
		paging_hold(&vr, false);
		vtest_assert_eq(vr_syncobj_wait(&vr, s_out, 0, VR_WAIT_NS), 0);
		vtest_assert_f(vr_bo_idle(bo),
			       "the unmap completed before the move");
		vtest_assert_eq(vr_bo_segment(bo), to[i]);
		expect_fault(&vr, key, VA);
		expect_fault(&vr, key, VA + size - 4 * KIB);
	}
	/* A move after the unmap maps nothing again. */
	vtest_assert_ok(vdxg_bo_make_resident(bo, DRM_VDXG_SEGMENT_SYSTEM));
	vr_bo_wait(bo);
	expect_fault(&vr, key, VA);
	vtest_assert(!memcmp(vr_map(bo), want, size));
	free(want);
	vdxg_bo_free(bo);
	vtest_assert_ok(vdxg_vm_destroy(vr.dev, vm));
	vr_close(&vr);
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
	uint32_t key, vm, res0, ev0, res, ev;
	struct vdxg_bo *bo;
	uint8_t *want;
	struct vr vr;

	vr_open(&vr);
	vm_require(&vr);
	vm = vm_new_key(&vr, &key);
	bo = patterned(&vr, size, DRM_VDXG_SEGMENT_SYSTEM, 21);
	want = bo_copy(bo, size);
	vtest_assert_ok(vdxg_vm_map(vr.dev, vm, bo, 0, VA, size, 0));
	vtest_assert_ok(vdxg_vm_map(vr.dev, vm, bo, 64 * KIB, va2, 64 * KIB,
				    DRM_VDXG_VM_BIND_READ_ONLY));
	expect_mem(&vr, key, VA, want, size);
	expect_mem(&vr, key, va2, want + 64 * KIB, 64 * KIB);

	vvm_residency(vdxg_device_fd(vr.dev), key, &res0, &ev0);
	vvm_swap_out_everything();
	expect_fault(&vr, key, VA);
	expect_fault(&vr, key, VA + size - 4 * KIB);
	expect_fault(&vr, key, va2);
	/* The device was told, once for the object (NOTIFY_RESIDENCY). */
	vvm_residency(vdxg_device_fd(vr.dev), key, &res, &ev);
	vtest_assert_eq(ev - ev0, 1);
	vtest_assert_eq(res - res0, 0);

	/* Any bind of the VM maps it again: here, unmapping nothing. */
	vtest_assert_ok(vdxg_vm_unmap(vr.dev, vm, VA + 64 * MIB, 4 * KIB));
	expect_mem(&vr, key, VA, want, size);
	expect_mem(&vr, key, va2, want + 64 * KIB, 64 * KIB);
	vvm_residency(vdxg_device_fd(vr.dev), key, &res, &ev);
	vtest_assert_eq(ev - ev0, 1);
	vtest_assert_eq(res - res0, 1);
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
	uint32_t key, vm, round;
	struct vr vr;

	vr_open(&vr);
	vm = vm_new_key(&vr, &key);
	for (round = 0; round < 6; round++) {
		uint64_t va = VA + (uint64_t)round * 4 * MIB;
		uint32_t seg = round % 2 ? DRM_VDXG_SEGMENT_SYSTEM :
					   DRM_VDXG_SEGMENT_VRAM;
		struct vdxg_bo *bo = patterned(&vr, 256 * KIB, seg,
					       k * 16 + round);

		vtest_assert_ok(vdxg_vm_map(vr.dev, vm, bo, 0, va, 256 * KIB,
					    0));
		expect_bytes(&vr, key, va, bo, 0, 64 * KIB);
		expect_bytes(&vr, key, va + 192 * KIB, bo, 192 * KIB,
			     64 * KIB);
		vtest_assert_ok(vdxg_vm_unmap(vr.dev, vm, va, 128 * KIB));
		expect_bytes(&vr, key, va + 128 * KIB, bo, 128 * KIB,
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

/*
 * Malformed VM_BIND calls, a row each: the row's operation in a call whose
 * other arguments are valid, or one argument of the call broken (BAD_*).
 * Handles a row cannot know are named by H_*: the test's object, one
 * private to another VM, a syncobj. After each row, a valid bind maps the
 * object and the GPU reads it back.
 */
enum bad_call {
	BAD_OP,			/* the row's operation, alone */
	BAD_NO_OPS,
	BAD_TOO_MANY_OPS,
	BAD_FLAGS,
	BAD_PAD,
	BAD_VM_0,
	BAD_VM_UNKNOWN,
	BAD_VM_OTHER_FILE,
	BAD_VM_DESTROYED,
	BAD_OPS_PTR,
	BAD_IN_PTR,
	BAD_OUT_PTR,
	BAD_IN_TOO_MANY,
	BAD_OUT_TOO_MANY,
	BAD_IN_SYNC,		/* the row's sync as the in-sync */
	BAD_OUT_SYNC,		/* the row's sync as the out-sync */
	BAD_SECOND_OP,		/* a valid MAP, then the row's operation */
};

#define H_BO		0x7f000001u	/* op handle: the 64 KiB object */
#define H_PRIVATE	0x7f000002u	/* op handle: private to another VM */
#define H_SYNC		0x7f000003u	/* sync handle: a syncobj */
#define H_NONE		0x7f0000ffu	/* a handle nothing has */

struct bad_row {
	const char *what;
	enum bad_call call;
	struct drm_vdxg_vm_bind_op op;
	struct drm_vdxg_sync sync;
	int err;
};

#define OP_UNMAP_OK	{ .op = 1, .va = VA, .range = 4096 }
#define OP_MAP(...)	{ .op = 0, .handle = H_BO, .va = VA, __VA_ARGS__ }

static const struct bad_row bad_bind_rows[] = {
	/* Operations: alignment, ranges, fields that must be zero. */
	{ "unknown op", BAD_OP, { .op = 3, .va = VA, .range = 4096 }, {},
	  -EINVAL },
	{ "op ~0", BAD_OP, { .op = ~0u, .va = VA, .range = 4096 }, {},
	  -EINVAL },
	{ "va misaligned", BAD_OP, { .op = 1, .va = VA + 1, .range = 4096 },
	  {}, -EINVAL },
	{ "range misaligned", BAD_OP, { .op = 1, .va = VA, .range = 4095 },
	  {}, -EINVAL },
	{ "range 0", BAD_OP, { .op = 1, .va = VA, .range = 0 }, {}, -EINVAL },
	{ "va at the top", BAD_OP,
	  { .op = 1, .va = 1ull << 48, .range = 4096 }, {}, -EINVAL },
	{ "va in the upper half", BAD_OP,
	  { .op = 1, .va = 0xffff800000000000ull, .range = 4096 }, {},
	  -EINVAL },
	{ "range past the top", BAD_OP,
	  { .op = 1, .va = (1ull << 48) - 4096, .range = 8192 }, {},
	  -EINVAL },
	{ "range wraps", BAD_OP, { .op = 1, .va = VA, .range = -4096ull }, {},
	  -EINVAL },
	{ "pad", BAD_OP, { .op = 1, .pad = 1, .va = VA, .range = 4096 }, {},
	  -EINVAL },
	{ "unmap with a handle", BAD_OP,
	  { .op = 1, .handle = H_BO, .va = VA, .range = 4096 }, {}, -EINVAL },
	{ "unmap with an offset", BAD_OP,
	  { .op = 1, .obj_offset = 4096, .va = VA, .range = 4096 }, {},
	  -EINVAL },
	{ "unmap with flags", BAD_OP,
	  { .op = 1, .flags = 1, .va = VA, .range = 4096 }, {}, -EINVAL },
	{ "null with a handle", BAD_OP,
	  { .op = 2, .handle = H_BO, .va = VA, .range = 4096 }, {}, -EINVAL },
	{ "null with an offset", BAD_OP,
	  { .op = 2, .obj_offset = 4096, .va = VA, .range = 4096 }, {},
	  -EINVAL },
	{ "null with flags", BAD_OP,
	  { .op = 2, .flags = 1, .va = VA, .range = 4096 }, {}, -EINVAL },
	{ "map without a handle", BAD_OP, { .op = 0, .va = VA, .range = 4096 },
	  {}, -EINVAL },
	{ "map of an unknown handle", BAD_OP,
	  { .op = 0, .handle = H_NONE, .va = VA, .range = 4096 }, {},
	  -ENOENT },
	{ "map, unknown flag", BAD_OP, OP_MAP(.flags = 2, .range = 4096), {},
	  -EINVAL },
	{ "map, offset misaligned", BAD_OP,
	  OP_MAP(.obj_offset = 1, .range = 4096), {}, -EINVAL },
	{ "map, offset at the object's end", BAD_OP,
	  OP_MAP(.obj_offset = 64 * KIB, .range = 4096), {}, -EINVAL },
	{ "map, range past the object's end", BAD_OP,
	  OP_MAP(.obj_offset = 60 * KIB, .range = 8192), {}, -EINVAL },
	{ "map, range larger than the object", BAD_OP,
	  OP_MAP(.range = 128 * KIB), {}, -EINVAL },
	{ "map, offset + range wraps", BAD_OP,
	  OP_MAP(.obj_offset = -4096ull, .range = 8192), {}, -EINVAL },
	{ "map, misaligned va", BAD_OP,
	  { .op = 0, .handle = H_BO, .va = VA + 512, .range = 4096 }, {},
	  -EINVAL },
	{ "map of an object private to another VM", BAD_OP,
	  { .op = 0, .handle = H_PRIVATE, .va = VA, .range = 4096 }, {},
	  -EINVAL },
	/* The call: counts, flags, the VM, pointers, syncobjs. */
	{ "no operations", BAD_NO_OPS, OP_UNMAP_OK, {}, -EINVAL },
	{ "too many operations", BAD_TOO_MANY_OPS, OP_UNMAP_OK, {}, -E2BIG },
	{ "call flags", BAD_FLAGS, OP_UNMAP_OK, {}, -EINVAL },
	{ "call pad", BAD_PAD, OP_UNMAP_OK, {}, -EINVAL },
	{ "VM 0", BAD_VM_0, OP_UNMAP_OK, {}, -ENOENT },
	{ "unknown VM", BAD_VM_UNKNOWN, OP_UNMAP_OK, {}, -ENOENT },
	{ "a VM of another file", BAD_VM_OTHER_FILE, OP_UNMAP_OK, {},
	  -ENOENT },
	{ "a destroyed VM", BAD_VM_DESTROYED, OP_UNMAP_OK, {}, -ENOENT },
	{ "operations at a bad address", BAD_OPS_PTR, OP_UNMAP_OK, {},
	  -EFAULT },
	{ "in-syncs at a bad address", BAD_IN_PTR, OP_UNMAP_OK, {}, -EFAULT },
	{ "out-syncs at a bad address", BAD_OUT_PTR, OP_UNMAP_OK, {},
	  -EFAULT },
	{ "too many in-syncs", BAD_IN_TOO_MANY, OP_UNMAP_OK, {}, -E2BIG },
	{ "too many out-syncs", BAD_OUT_TOO_MANY, OP_UNMAP_OK, {}, -E2BIG },
	{ "unknown in-syncobj", BAD_IN_SYNC, OP_UNMAP_OK, { .handle = H_NONE },
	  -ENOENT },
	{ "in-syncobj 0", BAD_IN_SYNC, OP_UNMAP_OK, { .handle = 0 }, -ENOENT },
	{ "in-sync flags", BAD_IN_SYNC, OP_UNMAP_OK,
	  { .handle = H_SYNC, .flags = 1 }, -EINVAL },
	{ "unknown out-syncobj", BAD_OUT_SYNC, OP_UNMAP_OK,
	  { .handle = H_NONE }, -ENOENT },
	{ "out-syncobj 0", BAD_OUT_SYNC, OP_UNMAP_OK, { .handle = 0 },
	  -ENOENT },
	{ "out-sync flags", BAD_OUT_SYNC, OP_UNMAP_OK,
	  { .handle = H_SYNC, .flags = 1 }, -EINVAL },
	{ "a valid map, then a bad operation: nothing applied",
	  BAD_SECOND_OP, { .op = 1, .va = VA + 1, .range = 4096 }, {},
	  -EINVAL },
	{ "a valid map, then an unknown handle: nothing applied",
	  BAD_SECOND_OP,
	  { .op = 0, .handle = H_NONE, .va = VA, .range = 4096 }, {},
	  -ENOENT },
};

/* What the rows name: the VMs, objects and syncobjs they need. */
struct bad_bind_env {
	struct vr vr, other;
	uint32_t vm, key, vm_other_file, vm_destroyed, sync;
	struct vdxg_bo *bo, *priv;
	uint8_t *want;
};

static uint32_t bad_handle(const struct bad_bind_env *e, uint32_t h)
{
	switch (h) {
	case H_BO:
		return e->bo->handle;
	case H_PRIVATE:
		return e->priv->handle;
	case H_SYNC:
		return e->sync;
	default:
		return h;
	}
}

/* The row's call, as the ioctl gets it: 0 or -errno. */
static int bad_bind_call(const struct bad_bind_env *e,
			 const struct bad_row *row)
{
	static struct drm_vdxg_sync syncs[DRM_VDXG_MAX_SYNCS + 1];
	struct drm_vdxg_vm_bind_op ops[2] = {
		{ .op = 0, .handle = e->bo->handle, .va = VA + 4 * MIB,
		  .range = 64 * KIB },
		row->op,
	};
	struct drm_vdxg_vm_bind_op *op = &ops[1];
	struct drm_vdxg_vm_bind a = {
		.vm_id = e->vm,
		.num_ops = 1,
		.ops = (uintptr_t)op,
	};
	uint32_t i;

	op->handle = bad_handle(e, op->handle);
	syncs[0] = row->sync;
	syncs[0].handle = bad_handle(e, row->sync.handle);
	for (i = 1; i <= DRM_VDXG_MAX_SYNCS; i++)
		syncs[i] = vdxg_sync(e->sync, 0);
	switch (row->call) {
	case BAD_OP:
		break;
	case BAD_NO_OPS:
		a.num_ops = 0;
		break;
	case BAD_TOO_MANY_OPS:
		a.num_ops = DRM_VDXG_VM_BIND_MAX_OPS + 1;
		break;
	case BAD_FLAGS:
		a.flags = 1;
		break;
	case BAD_PAD:
		a.pad = 1;
		break;
	case BAD_VM_0:
		a.vm_id = 0;
		break;
	case BAD_VM_UNKNOWN:
		a.vm_id = e->vm + 1000;
		break;
	case BAD_VM_OTHER_FILE:
		a.vm_id = e->vm_other_file;
		break;
	case BAD_VM_DESTROYED:
		a.vm_id = e->vm_destroyed;
		break;
	case BAD_OPS_PTR:
		a.ops = 8;
		break;
	case BAD_IN_PTR:
		a.in_syncs = 8;
		a.num_in_syncs = 1;
		break;
	case BAD_OUT_PTR:
		a.out_syncs = 8;
		a.num_out_syncs = 1;
		break;
	case BAD_IN_TOO_MANY:
		a.in_syncs = (uintptr_t)syncs;
		a.num_in_syncs = DRM_VDXG_MAX_SYNCS + 1;
		break;
	case BAD_OUT_TOO_MANY:
		a.out_syncs = (uintptr_t)syncs;
		a.num_out_syncs = DRM_VDXG_MAX_SYNCS + 1;
		break;
	case BAD_IN_SYNC:
		a.in_syncs = (uintptr_t)syncs;
		a.num_in_syncs = 1;
		break;
	case BAD_OUT_SYNC:
		a.out_syncs = (uintptr_t)syncs;
		a.num_out_syncs = 1;
		break;
	case BAD_SECOND_OP:
		a.ops = (uintptr_t)ops;
		a.num_ops = 2;
		break;
	}
	return xioctl(vdxg_device_fd(e->vr.dev), DRM_IOCTL_VDXG_VM_BIND, &a);
}

static void bad_bind_env_init(struct bad_bind_env *e)
{
	static const uint32_t vram = DRM_VDXG_SEGMENT_VRAM;
	uint32_t vm_priv;

	vr_open(&e->vr);
	vm_require(&e->vr);
	vr_open(&e->other);
	e->vm = vm_new_key(&e->vr, &e->key);
	vm_priv = vm_new(&e->vr);
	/* Destroyed last: no VM of the file has its id. */
	e->vm_destroyed = vm_new(&e->vr);
	vtest_assert_ok(vdxg_vm_destroy(e->vr.dev, e->vm_destroyed));
	/* Another file's VM, with an id this file has none of. */
	do
		e->vm_other_file = vm_new(&e->other);
	while (e->vm_other_file == e->vm || e->vm_other_file == vm_priv);
	vtest_assert_ok(vdxg_bo_create_vm(e->vr.dev, 64 * KIB, &vram, 1, 0,
					  vm_priv, &e->priv));
	e->bo = patterned(&e->vr, 64 * KIB, DRM_VDXG_SEGMENT_VRAM, 13);
	e->want = bo_copy(e->bo, 64 * KIB);
	e->sync = vr_syncobj(&e->vr, true);
}

static void bad_bind_env_fini(struct bad_bind_env *e)
{
	free(e->want);
	vdxg_bo_free(e->priv);
	vdxg_bo_free(e->bo);
	vtest_assert_ok(vdxg_vm_destroy(e->vr.dev, e->vm));
	vr_close(&e->other);
	vr_close(&e->vr);
}

/*
 * Each row fails with its errno and changes nothing: VA + 4 MiB, where the
 * two-operation rows map the object first, still faults. Then a valid
 * bind with an out-syncobj maps the object at VA, the GPU reads it back,
 * and a valid unmap clears it for the next row.
 */
static void test_bad_bind(void)
{
	uint32_t i, n = sizeof(bad_bind_rows) / sizeof(bad_bind_rows[0]);
	struct drm_vdxg_sync out;
	struct bad_bind_env e;
	int fd;

	bad_bind_env_init(&e);
	fd = vdxg_device_fd(e.vr.dev);
	out = vdxg_sync(vr_syncobj(&e.vr, false), 0);
	vtest_info("%u rows", n);
	for (i = 0; i < n; i++) {
		const struct bad_row *row = &bad_bind_rows[i];
		struct drm_vdxg_vm_bind_op map = {
			.op = 0, .handle = e.bo->handle, .va = VA,
			.range = 64 * KIB,
		};

		vtest_info("row %u: %s: %d", i, row->what, row->err);
		vtest_assert_eq(bad_bind_call(&e, row), row->err);
		if (row->call == BAD_SECOND_OP)
			vvm_expect_fault(fd, e.key, VA + 4 * MIB);
		vtest_assert_ok(vdxg_vm_bind(e.vr.dev, e.vm, &map, 1, NULL, 0,
					     &out, 1));
		vtest_assert_eq(vr_syncobj_wait(&e.vr, out.handle, 0,
						VR_WAIT_NS), 0);
		vvm_expect(fd, e.key, VA + 60 * KIB, e.want + 60 * KIB,
			   4 * KIB, "after a bad row");
		vtest_assert_ok(vdxg_vm_unmap(e.vr.dev, e.vm, VA, 64 * KIB));
	}
	vvm_expect_fault(fd, e.key, VA);
	bad_bind_env_fini(&e);
}

/* ---------------------------------------------- paging statistics, trace */

/* debugfs paging's names of the operations, by opcode (docs/hardware.md). */
static const char *const pg_names[VDXG_PG_NUM_OPS] = {
	[VDXG_PG_NOP] = "nop",
	[VDXG_PG_FENCE] = "fence",
	[VDXG_PG_TRANSFER] = "transfer",
	[VDXG_PG_FILL] = "fill",
	[VDXG_PG_DISCARD] = "discard",
	[VDXG_PG_MAP_APERTURE] = "map_aperture",
	[VDXG_PG_UNMAP_APERTURE] = "unmap_aperture",
	[VDXG_PG_FLUSH_TLB] = "flush_tlb",
	[VDXG_PG_WRITE_PHYSICAL] = "write_physical",
	[VDXG_PG_READ_PHYSICAL] = "read_physical",
	[VDXG_PG_UPDATE_PAGE_TABLE] = "update_page_table",
	[VDXG_PG_COPY_PTES] = "copy_page_table_entries",
	[VDXG_PG_FLUSH_VM_TLB] = "flush_vm_tlb",
	[VDXG_PG_TRANSFER_VIRTUAL] = "transfer_virtual",
	[VDXG_PG_FILL_VIRTUAL] = "fill_virtual",
	[VDXG_PG_UPDATE_CONTEXT_ALLOC] = "update_context_allocation",
	[VDXG_PG_INIT_CONTEXT_RESOURCE] = "init_context_resource",
	[VDXG_PG_NOTIFY_RESIDENCY] = "notify_residency",
};

struct pg_stats {
	uint64_t ops[VDXG_PG_NUM_OPS];
	uint64_t bytes[VDXG_PG_NUM_OPS];
	uint64_t buffer_size, buffers, batches, passes_last;
};

/* All of debugfs paging; every operation must be there by its name. */
static void pg_stats(struct vr *vr, struct pg_stats *st)
{
	static char buf[8192];
	char path[96], key[64], *line;
	unsigned long long ops, bytes;
	unsigned int i;

	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/paging",
		 vtest_drm_minor(vdxg_device_fd(vr->dev)));
	vtest_assert_f(vtest_read_file(path, buf, sizeof(buf)) > 0,
		       "cannot read %s", path);
	memset(st, 0, sizeof(*st));
	for (i = 0; i < VDXG_PG_NUM_OPS; i++) {
		snprintf(key, sizeof(key), "\n%s: ", pg_names[i]);
		line = strstr(buf, key);
		vtest_assert_f(line, "no \"%s\" in %s", pg_names[i], path);
		vtest_assert_f(sscanf(line + strlen(key),
				      "%llu ops, %llu bytes", &ops,
				      &bytes) == 2,
			       "%s: bad line for %s", path, pg_names[i]);
		st->ops[i] = ops;
		st->bytes[i] = bytes;
	}
	st->buffer_size = vr_debugfs(vr, "paging", "buffer_size");
	st->buffers = vr_debugfs(vr, "paging", "buffers");
	st->batches = vr_debugfs(vr, "paging", "batches");
	st->passes_last = vr_debugfs(vr, "paging", "passes_last");
}

/* Operations and bytes of OP since A, as debugfs paging counts them. */
#define pg_delta_ops(a, b, op)		((b)->ops[op] - (a)->ops[op])
#define pg_delta_bytes(a, b, op)	((b)->bytes[op] - (a)->bytes[op])

static void expect_vm_ops(const struct pg_stats *a, const struct pg_stats *b,
			  uint32_t op, uint64_t ops, uint64_t bytes)
{
	vtest_info("%s: %" PRIu64 " ops, %" PRIu64 " bytes (expected %"
		   PRIu64 ", %" PRIu64 ")", pg_names[op],
		   pg_delta_ops(a, b, op), pg_delta_bytes(a, b, op), ops,
		   bytes);
	vtest_assert_eq_u64(pg_delta_ops(a, b, op), ops);
	vtest_assert_eq_u64(pg_delta_bytes(a, b, op), bytes);
}

/* The GPU virtual memory's operations other than those listed in KEEP. */
static void expect_no_vm_ops(const struct pg_stats *a,
			     const struct pg_stats *b, uint32_t keep)
{
	uint32_t op;

	for (op = VDXG_PG_UPDATE_PAGE_TABLE; op < VDXG_PG_NUM_OPS; op++)
		if (!(keep & BIT(op - VDXG_PG_UPDATE_PAGE_TABLE)))
			vtest_assert_f(pg_delta_ops(a, b, op) == 0,
				       "%s: %" PRIu64 " unexpected ops",
				       pg_names[op], pg_delta_ops(a, b, op));
}

#define KEEP(op)	BIT((op) - VDXG_PG_UPDATE_PAGE_TABLE)

/* A tracefs instance of its own with vdxg_paging_op on, if there is one. */
#define TRACE_DIR	"/sys/kernel/tracing/instances/vdxg_vm"

static bool trace_start(void)
{
	if (!vtest_path_exists("/sys/kernel/tracing/events/vdxg/vdxg_paging_op"))
		return false;
	vtest_system("rmdir " TRACE_DIR " 2>/dev/null");
	if (vtest_system("mkdir " TRACE_DIR) != 0)
		return false;
	vtest_assert_ok(vtest_write_file(TRACE_DIR "/buffer_size_kb", "4096"));
	vtest_assert_ok(vtest_write_file(TRACE_DIR
					 "/events/vdxg/vdxg_paging_op/enable",
					 "1"));
	return true;
}

struct trace_op {
	uint32_t op, dwords;
	int as;
	uint64_t bytes, addr;
};

/* Stop tracing; the events of the GPU VM operations, in order. */
static uint32_t trace_stop(struct trace_op *t, uint32_t max,
			   struct pg_stats *sum)
{
	unsigned long long seq, bytes, addr;
	unsigned int op, dwords;
	char line[512], *p;
	uint32_t n = 0;
	FILE *f;
	int as;

	vtest_assert_ok(vtest_write_file(TRACE_DIR
					 "/events/vdxg/vdxg_paging_op/enable",
					 "0"));
	memset(sum, 0, sizeof(*sum));
	f = fopen(TRACE_DIR "/trace", "r");
	vtest_assert_f(f, TRACE_DIR "/trace: %m");
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, "vdxg_paging_op: ");
		if (!p)
			continue;
		vtest_assert_f(sscanf(p, "vdxg_paging_op: buffer=%llu op=%u "
				      "dwords=%u as=%d bytes=%llu addr=0x%llx",
				      &seq, &op, &dwords, &as, &bytes,
				      &addr) == 6, "bad event: %s", p);
		vtest_assert(op < VDXG_PG_NUM_OPS);
		sum->ops[op]++;
		sum->bytes[op] += bytes;
		if (op < VDXG_PG_UPDATE_PAGE_TABLE || n == max)
			continue;
		t[n].op = op;
		t[n].dwords = dwords;
		t[n].as = as;
		t[n].bytes = bytes;
		t[n].addr = addr;
		n++;
	}
	fclose(f);
	vtest_system("rmdir " TRACE_DIR);
	return n;
}

/* The trace's counts and bytes are debugfs paging's, operation by one. */
static void expect_trace_sums(const struct pg_stats *a,
			      const struct pg_stats *b,
			      const struct pg_stats *sum)
{
	uint32_t op;

	for (op = VDXG_PG_UPDATE_PAGE_TABLE; op < VDXG_PG_NUM_OPS; op++) {
		vtest_assert_f(sum->ops[op] == pg_delta_ops(a, b, op),
			       "%s: %" PRIu64 " events, %" PRIu64 " counted",
			       pg_names[op], sum->ops[op],
			       pg_delta_ops(a, b, op));
		vtest_assert_f(sum->bytes[op] == pg_delta_bytes(a, b, op),
			       "%s: %" PRIu64 " bytes traced, %" PRIu64
			       " counted", pg_names[op], sum->bytes[op],
			       pg_delta_bytes(a, b, op));
	}
}

/*
 * Each GPU VM operation under its name in debugfs paging, with the counts
 * the page-table builder's rules give (vdxg_pt.c), and the same in the
 * vdxg_paging_op trace events when the guest has tracefs:
 *
 * - VM_CREATE: the root's 512 entries (one GENERATE), then
 *   UPDATE_CONTEXT_ALLOCATION of its 16-byte AS entry;
 * - a 64 KiB VRAM map at a fresh 4 KiB-aligned address: three tables made
 *   (a GENERATE of 512 entries and a one-entry link each), a GENERATE of
 *   the 16 leaves, one FLUSH_VM_TLB of the 64 KiB: one per bind, no more;
 * - its unmap: the 16 leaves invalidated, the three empty tables unlinked
 *   bottom up (one entry each), one FLUSH_VM_TLB;
 * - a read through the VM: one TRANSFER_VIRTUAL of its size;
 * - VM_DESTROY with nothing mapped: no operation (the address space the
 *   VM may hold is switched off by the CPU).
 */
static void test_paging_stats(void)
{
	const uint64_t tbl = 512 * 8 + 8;	/* a table made and linked */
	struct pg_stats s0, s1, s2, s3, s4, s5, sum;
	struct trace_op t[64];
	struct vdxg_bo *bo;
	uint32_t key, vm, n, i, nupt = 0;
	uint64_t last_upt = 0;
	const uint64_t va = VA + 5 * 4096;	/* level-0 entry 5 on */
	bool traced;
	struct vr vr;

	vr_open(&vr);
	vm_require(&vr);
	bo = patterned(&vr, 64 * KIB, DRM_VDXG_SEGMENT_VRAM, 11);
	vr_bo_wait(bo);

	pg_stats(&vr, &s0);
	vm = vm_new_key(&vr, &key);
	pg_stats(&vr, &s1);
	expect_vm_ops(&s0, &s1, VDXG_PG_UPDATE_PAGE_TABLE, 1, 512 * 8);
	expect_vm_ops(&s0, &s1, VDXG_PG_UPDATE_CONTEXT_ALLOC, 1, 16);
	expect_no_vm_ops(&s0, &s1, KEEP(VDXG_PG_UPDATE_PAGE_TABLE) |
			 KEEP(VDXG_PG_UPDATE_CONTEXT_ALLOC));

	traced = trace_start();
	if (!traced)
		vtest_info("no tracefs or no vdxg_paging_op event: debugfs only");
	vtest_assert_ok(vdxg_vm_map(vr.dev, vm, bo, 0, va, 64 * KIB, 0));
	pg_stats(&vr, &s2);
	expect_vm_ops(&s1, &s2, VDXG_PG_UPDATE_PAGE_TABLE, 3 * 2 + 1,
		      3 * tbl + 16 * 8);
	expect_vm_ops(&s1, &s2, VDXG_PG_FLUSH_VM_TLB, 1, 64 * KIB);
	expect_no_vm_ops(&s1, &s2, KEEP(VDXG_PG_UPDATE_PAGE_TABLE) |
			 KEEP(VDXG_PG_FLUSH_VM_TLB));
	vtest_assert_eq_u64(s2.passes_last, 1);

	if (traced) {
		n = trace_stop(t, 64, &sum);
		vtest_info("trace: %u GPU VM operations in the bind", n);
		expect_trace_sums(&s1, &s2, &sum);
		vtest_assert_eq(n, 8);
		for (i = 0; i < n; i++) {
			if (t[i].op == VDXG_PG_UPDATE_PAGE_TABLE) {
				/* The address of the first entry written. */
				vtest_assert_eq(t[i].as, -1);
				vtest_assert_f(t[i].bytes == 512 * 8 ?
					       !(t[i].addr & 4095) :
					       t[i].bytes == 8 ||
					       t[i].bytes == 16 * 8,
					       "UPDATE_PAGE_TABLE of %" PRIu64
					       " bytes at 0x%" PRIx64,
					       t[i].bytes, t[i].addr);
				nupt++;
				last_upt = t[i].addr;
			}
		}
		vtest_assert_eq(nupt, 7);
		/* The leaves: entry (va >> 12) & 511 of the level-0 table. */
		vtest_assert_eq_u64(last_upt & 4095, ((va >> 12) & 511) * 8);
		/* The flush comes last: this space, the range mapped. */
		vtest_assert_eq(t[n - 1].op, VDXG_PG_FLUSH_VM_TLB);
		vtest_assert_eq(t[n - 1].dwords, VDXG_PG_FLUSH_VM_TLB_LEN);
		vtest_assert_eq(t[n - 1].as, (int)key);
		vtest_assert_eq_u64(t[n - 1].addr, va);
		vtest_assert_eq_u64(t[n - 1].bytes, 64 * KIB);
	}

	expect_bytes(&vr, key, va, bo, 0, 4096);
	pg_stats(&vr, &s3);
	expect_vm_ops(&s2, &s3, VDXG_PG_TRANSFER_VIRTUAL, 1, 4096);
	expect_no_vm_ops(&s2, &s3, KEEP(VDXG_PG_TRANSFER_VIRTUAL));

	vtest_assert_ok(vdxg_vm_unmap(vr.dev, vm, va, 64 * KIB));
	pg_stats(&vr, &s4);
	expect_vm_ops(&s3, &s4, VDXG_PG_UPDATE_PAGE_TABLE, 1 + 3,
		      16 * 8 + 3 * 8);
	expect_vm_ops(&s3, &s4, VDXG_PG_FLUSH_VM_TLB, 1, 64 * KIB);
	expect_no_vm_ops(&s3, &s4, KEEP(VDXG_PG_UPDATE_PAGE_TABLE) |
			 KEEP(VDXG_PG_FLUSH_VM_TLB));

	traced = traced && trace_start();
	vtest_assert_ok(vdxg_vm_destroy(vr.dev, vm));
	pg_stats(&vr, &s5);
	expect_no_vm_ops(&s4, &s5, 0);
	if (traced) {
		n = trace_stop(t, 64, &sum);
		expect_trace_sums(&s4, &s5, &sum);
		vtest_assert_eq(n, 0);
	}
	vdxg_bo_free(bo);
	vr_close(&vr);
}

/* ------------------------------------------------ a 1 GiB bind's buffers */

/*
 * The paging buffers of a bind, re-derived from the documented encoding
 * (docs/hardware.md, "Paging buffers"; the builder's rules in vdxg_pt.c):
 * operations of a fixed length go whole into the buffer, or into a new
 * one when they do not fit; a table is made by a GENERATE of its 512
 * entries (10 dwords) and a one-entry UPDATE_PAGE_TABLE linking it (8)
 * in one buffer; entry lists (6 dwords + 2 an entry) split over buffers;
 * 2 MiB leaves of contiguous VRAM are one GENERATE per level-1 table run;
 * every map ends with a FLUSH_VM_TLB of its range (7).
 */
struct bind_sim {
	uint64_t size;		/* dwords in a buffer */
	uint64_t used;
	uint64_t buffers;
	uint64_t upt_ops;	/* UPDATE_PAGE_TABLEs */
	uint64_t upt_bytes;
	uint64_t flushes;
	uint64_t l3, l2;	/* tables made so far: their address ranges */
};

#define SIM_NONE	(~0ull)

static uint64_t sim_room(const struct bind_sim *s)
{
	uint64_t room = s->size - s->used;

	return room < 0xffff ? room : 0xffff;	/* VDXG_PG_MAX_LEN */
}

static void sim_op(struct bind_sim *s, uint64_t len)
{
	if (sim_room(s) < len) {
		s->buffers++;
		s->used = 0;
	}
	s->used += len;
}

static void sim_table(struct bind_sim *s)
{
	sim_op(s, 10 + 6 + 2);
	s->upt_ops += 2;
	s->upt_bytes += 512 * 8 + 8;
}

static void sim_list(struct bind_sim *s, uint64_t n)
{
	while (n) {
		uint64_t room = sim_room(s), k;

		if (room < 6 + 2) {
			s->buffers++;
			s->used = 0;
			continue;
		}
		k = (room - 6) / 2 < n ? (room - 6) / 2 : n;
		s->used += 6 + 2 * k;
		s->upt_ops++;
		s->upt_bytes += 8 * k;
		n -= k;
	}
}

/*
 * One MAP of [va, va + size) where no level-0 or level-1 table exists yet
 * but those this simulation made: LARGE for 2 MiB leaves, else system
 * pages, one listed entry each.
 */
static void sim_map(struct bind_sim *s, uint64_t va, uint64_t size,
		    bool large)
{
	uint64_t end = va + size, cur, next;

	for (cur = va; cur < end; cur = next) {
		if (cur >> 39 != s->l3) {	/* the root's entry: level 2 */
			s->l3 = cur >> 39;
			sim_table(s);
		}
		if (cur >> 30 != s->l2) {	/* level 1 */
			s->l2 = cur >> 30;
			sim_table(s);
		}
		if (large) {
			next = ((cur >> 30) + 1) << 30;
			next = next < end ? next : end;
			sim_op(s, 10);
			s->upt_ops++;
			s->upt_bytes += (next - cur) / (2 * MIB) * 8;
		} else {
			next = (cur & ~(2 * MIB - 1)) + 2 * MIB;
			next = next < end ? next : end;
			sim_table(s);		/* level 0 */
			sim_list(s, (next - cur) / 4096);
		}
	}
	sim_op(s, 7);
	s->flushes++;
}

/*
 * One VM_BIND mapping 1 GiB at a fresh 1 GiB-aligned address with NOPS
 * MAPs of [OFFSET, OFFSET + 1 GiB / NOPS) of BO at consecutive addresses
 * (the guest's VRAM and memory are too small for a 1 GiB object): the
 * paging buffers it takes, from debugfs paging, against the prediction,
 * then the contents through the VM at both ends and across.
 */
static void bind_1g(struct vr *vr, struct vdxg_bo *bo, uint64_t offset,
		    uint32_t nops, bool large)
{
	const uint64_t va = 4 * 1024 * MIB, part = 1024 * MIB / nops;
	struct drm_vdxg_vm_bind_op *ops = calloc(nops, sizeof(*ops));
	struct bind_sim sim = { .buffers = 1, .l3 = SIM_NONE, .l2 = SIM_NONE };
	struct pg_stats a, b;
	uint32_t key, vm, i;
	uint64_t at;

	vtest_assert(ops);
	vm = vm_new_key(vr, &key);
	for (i = 0; i < nops; i++) {
		ops[i].op = DRM_VDXG_VM_BIND_OP_MAP;
		ops[i].handle = bo->handle;
		ops[i].obj_offset = offset;
		ops[i].va = va + i * part;
		ops[i].range = part;
	}
	pg_stats(vr, &a);
	sim.size = a.buffer_size / 4;
	for (i = 0; i < nops; i++)
		sim_map(&sim, va + i * part, part, large);

	vtest_assert_ok(vdxg_vm_bind(vr->dev, vm, ops, nops, NULL, 0, NULL,
				     0));
	pg_stats(vr, &b);
	vtest_info("1 GiB in %u MAPs, %s: predicted %" PRIu64 " buffers of %"
		   PRIu64 " bytes, %" PRIu64 " UPDATE_PAGE_TABLEs; measured %"
		   PRIu64 " buffers (last batch %" PRIu64 "), %" PRIu64,
		   nops, large ? "2 MiB pages" : "4 KiB pages", sim.buffers,
		   a.buffer_size, sim.upt_ops, b.buffers - a.buffers,
		   b.passes_last, pg_delta_ops(&a, &b,
					       VDXG_PG_UPDATE_PAGE_TABLE));
	vtest_assert_eq_u64(b.batches - a.batches, 1);
	vtest_assert_eq_u64(b.passes_last, sim.buffers);
	vtest_assert_eq_u64(b.buffers - a.buffers, sim.buffers);
	expect_vm_ops(&a, &b, VDXG_PG_UPDATE_PAGE_TABLE, sim.upt_ops,
		      sim.upt_bytes);
	expect_vm_ops(&a, &b, VDXG_PG_FLUSH_VM_TLB, sim.flushes, 1024 * MIB);
	expect_no_vm_ops(&a, &b, KEEP(VDXG_PG_UPDATE_PAGE_TABLE) |
			 KEEP(VDXG_PG_FLUSH_VM_TLB));

	/* Each end, each MAP's first and last page, and inside them. */
	for (i = 0; i < nops; i++) {
		at = (i * 7919 * 4096ull) % (part - 4096);
		expect_bytes(vr, key, va + i * part, bo, offset, 4096);
		expect_bytes(vr, key, va + i * part + at, bo, offset + at,
			     4096);
		expect_bytes(vr, key, va + (i + 1) * part - 4096, bo,
			     offset + part - 4096, 4096);
	}
	expect_fault(vr, key, va - 4096);
	expect_fault(vr, key, va + 1024 * MIB);
	vtest_assert_ok(vdxg_vm_destroy(vr->dev, vm));
	free(ops);
}

/*
 * "A 1 GiB bind takes the predicted number of paging buffers":
 *
 * - VRAM, every MAP's source 2 MiB aligned (an offset into the object
 *   makes it so, wherever the object lies): 2 MiB pages, one GENERATE per
 *   MAP; the VRAM is contiguous, so this is deterministic;
 * - system memory at an object offset of 4 KiB: each 2 MiB of the range
 *   starts at a page whose bus address is not 2 MiB aligned (TTM's pool
 *   hands out naturally aligned blocks from the largest order down), so
 *   none is promoted to a 2 MiB page: 262144 listed entries, about 32
 *   buffers of 64 KiB.
 */
static void test_bind_1g_buffers(void)
{
	const uint32_t nops = 16;
	const uint64_t part = 1024 * MIB / nops;
	struct vdxg_bo *bo;
	uint64_t gpu, off;
	uint32_t seg;
	struct vr vr;

	vr_open(&vr);
	vm_require(&vr);

	bo = patterned(&vr, part + 2 * MIB, DRM_VDXG_SEGMENT_VRAM, 21);
	vr_bo_wait(bo);
	vtest_assert_ok(vdxg_bo_info(bo, &seg, &gpu));
	vtest_assert_eq(seg, DRM_VDXG_SEGMENT_VRAM);
	off = (2 * MIB - (gpu & (2 * MIB - 1))) & (2 * MIB - 1);
	vtest_info("VRAM object at 0x%" PRIx64 ", mapped from offset 0x%"
		   PRIx64, gpu, off);
	bind_1g(&vr, bo, off, nops, true);
	vdxg_bo_free(bo);

	bo = patterned(&vr, part + 4096, DRM_VDXG_SEGMENT_SYSTEM, 22);
	vr_bo_wait(bo);
	bind_1g(&vr, bo, 4096, nops, false);
	vdxg_bo_free(bo);
	vr_close(&vr);
}

/* ------------------------------------------------------ oversubscribed */

#define OV_OBJ		(8 * MIB)
#define OV_VA(i)	(4096 * MIB + (uint64_t)(i) * OV_OBJ)
#define OV_VA2(i)	(8192 * MIB + (uint64_t)(i) * OV_OBJ)

static uint32_t ov_word(uint32_t obj, uint64_t i)
{
	uint32_t x = obj * 0x9e3779b9u ^ (uint32_t)(i * 0x85ebca6bu);

	return x ^ x >> 13 ^ (uint32_t)(i >> 32);
}

struct ov_obj {
	struct vdxg_bo *bo;
	uint32_t vm[2], key[2];	/* the VMs it is bound in (vm 0: none) */
	uint64_t va[2];
};

/*
 * LEN bytes at OFFSET of object I (its pattern ov_word) read back through
 * each of its virtual addresses, every byte compared. WHEN names the
 * moment in a failure. With SWAP_OK, an object whose pages TTM swapped out
 * (debugfs vms says so) may fault instead: its entries are invalid until
 * it moves again. Returns how many reads faulted so.
 */
static unsigned int ov_check(struct vr *vr, const struct ov_obj *o,
			     uint32_t i, uint64_t offset, uint64_t len,
			     bool swap_ok, const char *when)
{
	static uint32_t buf[VVM_READ_MAX / 4];
	int fd = vdxg_device_fd(vr->dev);
	unsigned int swapped = 0;

	for (int k = 0; k < 2 && o->vm[k]; k++)
		for (uint64_t done = 0; done < len; done += VVM_READ_MAX) {
			uint32_t n = len - done < VVM_READ_MAX ? len - done
							       : VVM_READ_MAX;
			uint64_t at = offset + done;
			int ret = vvm_read(fd, o->key[k], o->va[k] + at, buf,
					   n);
			const char *place;

			if (ret == -EFAULT && swap_ok) {
				place = vvm_place(fd, o->key[k], o->va[k]);
				vtest_assert_f(place && !strcmp(place,
								"swapped"),
					       "%s: object %u at offset 0x%"
					       PRIx64 " through VM %u faults; "
					       "it is in %s", when, i, at,
					       o->key[k],
					       place ? place : "no mapping");
				swapped++;
				break;
			}
			vtest_assert_f(ret == 0, "%s: object %u at offset "
				       "0x%" PRIx64 " through VM %u: %s",
				       when, i, at, o->key[k],
				       strerror(-ret));
			for (uint32_t j = 0; j < n / 4; j++) {
				uint32_t want = ov_word(i, at / 4 + j);

				if (buf[j] == want)
					continue;
				for (uint32_t b = 0; b < 4; b++)
					vtest_assert_f(((uint8_t *)&buf[j])[b] ==
						       ((uint8_t *)&want)[b],
						       "%s: object %u byte 0x%" PRIx64
						       " (VA 0x%" PRIx64 ", key "
						       "%u, segment %u) is 0x%02x, "
						       "expected 0x%02x", when, i,
						       at + j * 4 + b,
						       o->va[k] + at + j * 4 + b,
						       o->key[k],
						       vr_bo_segment(o->bo),
						       ((uint8_t *)&buf[j])[b],
						       ((uint8_t *)&want)[b]);
			}
		}
	return swapped;
}

/*
 * VRAM oversubscribed 4x: objects allowed in every segment, four times
 * the VRAM segment in all, each with its own pattern, bound in one of two
 * VMs (every fourth in both, at another address), are paged by
 * MAKE_RESIDENT through every ordered pair of segments (VRAM -> aperture
 * -> system -> VRAM -> system -> aperture -> VRAM) while they evict each
 * other; TTM's evictions move them too. After each object's move its
 * first and last 64 KiB and one more 64 KiB slice, which walks through
 * the objects round by round, are read back through each of its virtual
 * addresses and compared byte for byte; at the end of each round, the
 * first and last 64 KiB of every object (those its neighbours evicted),
 * but for those TTM swapped out (debugfs vms: "swapped"), whose entries
 * are invalid: the first of them in a round must fault; after the last
 * round, every byte of every object through its first address, and the
 * first and last 64 KiB through its second. On the debug kernel, where
 * KASAN makes page work several times slower, twice the segment and no
 * every-byte read: the default boot runs it in full. Fewer objects where
 * the commit limit has no room for them all (3.4x on a 2 GiB guest).
 */
static void test_oversubscribed(void)
{
	static const uint32_t order[] = {
		DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_APERTURE,
		DRM_VDXG_SEGMENT_SYSTEM, DRM_VDXG_SEGMENT_VRAM,
		DRM_VDXG_SEGMENT_SYSTEM, DRM_VDXG_SEGMENT_APERTURE,
		DRM_VDXG_SEGMENT_VRAM,
	};
	static const char *const names[] = { "", "vram", "aperture", "system" };
	static const uint32_t segs[] = {
		DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_APERTURE,
		DRM_VDXG_SEGMENT_SYSTEM,
	};
	const uint64_t edge = VVM_READ_MAX, slices = OV_OBJ / VVM_READ_MAX;
	uint32_t vm[2], key[2], i, n, r;
	uint64_t vram, moved = 0;
	struct ov_obj *o;
	double t0 = vr_now(), t;
	struct vr vr;
	char when[64];

	vr_open(&vr);
	vm_require(&vr);
	/* Reads of swapped-out objects fault. */
	vr_ignore_dmesg(VVM_FAULT_DMESG
			"|vdxg_fault_irq: [0-9]+ callbacks suppressed");
	vram = vvm_vram_segment(vdxg_device_fd(vr.dev));
	/* The debug kernel's KASAN: twice the segment, no full read-back. */
	n = vr_commit_room(&vr, (vtest_debug_kernel() ? 2 : 4) * vram) / OV_OBJ;
	vtest_info("VRAM segment %llu MiB: %u objects of %llu MiB\n",
		   (unsigned long long)(vram / MIB), n, OV_OBJ / MIB);
	o = calloc(n, sizeof(*o));
	vtest_assert(o);
	vm[0] = vm_new_key(&vr, &key[0]);
	vm[1] = vm_new_key(&vr, &key[1]);
	for (i = 0; i < n; i++) {
		uint32_t *p;
		int ret = vdxg_bo_create(vr.dev, OV_OBJ, segs, 3,
					 DRM_VDXG_GEM_CPU_ACCESS, &o[i].bo);

		vtest_assert_f(ret == 0, "GEM_CREATE of object %u: %s", i,
			       strerror(-ret));
		p = vr_map(o[i].bo);
		for (uint64_t j = 0; j < OV_OBJ / 4; j++)
			p[j] = ov_word(i, j);
		vtest_assert_ok(vdxg_bo_unmap(o[i].bo));
		o[i].vm[0] = vm[i % 2];
		o[i].key[0] = key[i % 2];
		o[i].va[0] = OV_VA(i);
		if (i % 4 == 0) {
			o[i].vm[1] = vm[1 - i % 2];
			o[i].key[1] = key[1 - i % 2];
			o[i].va[1] = OV_VA2(i);
		}
		for (int k = 0; k < 2 && o[i].vm[k]; k++)
			vtest_assert_ok(vdxg_vm_map(vr.dev, o[i].vm[k],
						    o[i].bo, 0, o[i].va[k],
						    OV_OBJ, 0));
	}
	t = vr_now();
	vtest_info("created, filled and bound in %.1f s\n", t - t0);
	for (i = 0; i < n; i++)
		ov_check(&vr, &o[i], i, 0, edge, false, "bound");

	for (r = 0; r < VTEST_ARRAY_SIZE(order); r++) {
		uint32_t here = 0, swapped = 0;

		snprintf(when, sizeof(when), "round %u, after its move to %s",
			 r, names[order[r]]);
		for (i = 0; i < n; i++) {
			uint64_t slice = (r * 7 + i) % slices * VVM_READ_MAX;
			uint32_t before = vr_bo_segment(o[i].bo);

			vtest_assert_ok(vdxg_bo_make_resident(o[i].bo,
							      order[r]));
			vr_bo_wait(o[i].bo);
			vtest_assert_f(vr_bo_segment(o[i].bo) == order[r],
				       "object %u is in segment %u, not %u", i,
				       vr_bo_segment(o[i].bo), order[r]);
			moved += before != order[r];
			/* Just moved: its pages are all there. */
			ov_check(&vr, &o[i], i, 0, edge, false, when);
			ov_check(&vr, &o[i], i, OV_OBJ - edge, edge, false,
				 when);
			ov_check(&vr, &o[i], i, slice, VVM_READ_MAX, false,
				 when);
		}
		snprintf(when, sizeof(when), "end of round %u (%s)", r,
			 names[order[r]]);
		for (i = 0; i < n; i++) {
			const char *place = vvm_place(vdxg_device_fd(vr.dev),
						      o[i].key[0], o[i].va[0]);
			struct ov_obj first = o[i];

			here += vr_bo_segment(o[i].bo) == order[r];
			if (place && !strcmp(place, "swapped")) {
				/*
				 * Its entries are invalid: the first such
				 * object of the round shows that they fault
				 * (each fault is logged, and the log is
				 * ratelimited).
				 */
				first.vm[1] = 0;
				if (!swapped++)
					vtest_assert_f(ov_check(&vr, &first, i,
								0, edge, true,
								when),
						       "%s: swapped-out object "
						       "%u reads", when, i);
				continue;
			}
			ov_check(&vr, &o[i], i, 0, edge, false, when);
			ov_check(&vr, &o[i], i, OV_OBJ - edge, edge, false,
				 when);
		}
		vtest_info("round %u (%s): %u of %u objects there at the end, "
			   "%u swapped out, %.1f s\n", r, names[order[r]],
			   here, n, swapped, vr_now() - t);
		t = vr_now();
		/* VRAM holds a quarter of them: the rest were evicted. */
		if (order[r] == DRM_VDXG_SEGMENT_VRAM)
			vtest_assert_lt(here, n);
	}
	/*
	 * A quarter of them in VRAM, the rest has room in system memory:
	 * nothing is swapped out now.
	 */
	for (i = 0; i < n; i++) {
		struct ov_obj first = o[i];

		/* Every byte through its first address; the second's edges. */
		first.vm[1] = 0;
		if (!vtest_debug_kernel())
			ov_check(&vr, &first, i, 0, OV_OBJ, false,
				 "final, every byte");
		ov_check(&vr, &o[i], i, 0, edge, false, "final");
		ov_check(&vr, &o[i], i, OV_OBJ - edge, edge, false, "final");
	}
	vtest_info("final full read back in %.1f s; %.1f s in all, %llu "
		   "objects moved by MAKE_RESIDENT\n", vr_now() - t,
		   vr_now() - t0, (unsigned long long)moved);

	for (i = 0; i < n; i++)
		vdxg_bo_free(o[i].bo);
	free(o);
	vtest_assert_ok(vdxg_vm_destroy(vr.dev, vm[0]));
	vtest_assert_ok(vdxg_vm_destroy(vr.dev, vm[1]));
	vr_close(&vr);
}

/* ------------------------------------------------------ blocked-bind */

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

/*
 * How long another client's step may take while A's binds wait. A step
 * held up by A's binds would wait for ever (A's fence signals only when
 * the test says so): this is a hang guard, as long as any other wait on
 * the GPU (a loaded machine runs the guest several times slower).
 */
#define BB_DEADLINE	VR_WAIT_NS
#define BB_DEADLINE_S	((unsigned int)(BB_DEADLINE / VR_SEC))

/* An object of another client, made and filled before A's binds wait. */
static struct vdxg_bo *bb_object_size(struct vr *b, uint64_t size,
				       uint32_t seed)
{
	static const uint32_t segs[] = {
		DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_SYSTEM,
	};
	struct vdxg_bo *bo;

	vtest_assert_ok(vdxg_bo_create(b->dev, size, segs, 2,
				       DRM_VDXG_GEM_CPU_ACCESS, &bo));
	fill(bo, size, seed);
	vr_bo_wait(bo);
	return bo;
}

static struct vdxg_bo *bb_object(struct vr *b, uint32_t seed)
{
	return bb_object_size(b, 256 * KIB, seed);
}

/*
 * What another client does while A's binds wait: bind BO, move it there
 * and back, read it through the VM. Each step must finish within
 * BB_DEADLINE (a fence wait with a deadline).
 */
static void bb_other_client(struct vr *b, uint32_t vm, uint32_t key,
			    struct vdxg_bo *bo, uint32_t seed)
{
	uint32_t out = vr_syncobj(b, false);
	uint64_t va = 2 * VA + seed * 4 * MIB;

	vtest_assert_ok(bb_bind(b, vm, bo, va, 256 * KIB, 0, out));
	vtest_assert_f(vr_syncobj_wait(b, out, 0, BB_DEADLINE) == 0,
		       "another client's bind did not complete in %u s",
		       BB_DEADLINE_S);
	/* Again over its own mapping: the object is locked once. */
	vtest_assert_ok(bb_bind(b, vm, bo, va, 256 * KIB, 0, out));
	vtest_assert_f(vr_syncobj_wait(b, out, 0, BB_DEADLINE) == 0,
		       "another client's bind did not complete in %u s",
		       BB_DEADLINE_S);
	vtest_assert_ok(vdxg_bo_make_resident(bo, DRM_VDXG_SEGMENT_SYSTEM));
	vtest_assert_f(vdxg_bo_wait(bo, BB_DEADLINE) == 0,
		       "another client's move did not complete in %u s",
		       BB_DEADLINE_S);
	vtest_assert_eq(vr_bo_segment(bo), DRM_VDXG_SEGMENT_SYSTEM);
	vtest_assert_ok(vdxg_bo_make_resident(bo, DRM_VDXG_SEGMENT_VRAM));
	vtest_assert_f(vdxg_bo_wait(bo, BB_DEADLINE) == 0,
		       "another client's move did not complete in %u s",
		       BB_DEADLINE_S);
	vtest_assert_eq(vr_bo_segment(bo), DRM_VDXG_SEGMENT_VRAM);
	expect_bytes(b, key, va, bo, 0, 64 * KIB);
	expect_bytes(b, key, va + 192 * KIB, bo, 192 * KIB, 64 * KIB);
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
	static const uint32_t vram = DRM_VDXG_SEGMENT_VRAM;
	uint32_t key_a, key_b, vm_a, vm_a2, vm_b, s_in, s_in2, s_out;
	uint32_t i, queued = 0;
	struct vdxg_bo *bo_a, *bo_b[3], *priv;
	int timeline, ret;
	double t;
	struct vr a, b;

	timeline = vvm_timeline();
	vr_open(&a);
	vm_require(&a);
	vr_open(&b);
	vm_a = vm_new_key(&a, &key_a);
	vm_a2 = vm_new(&a);
	vm_b = vm_new_key(&b, &key_b);
	s_in = vvm_fence_syncobj(&a, timeline, 1);
	s_in2 = vvm_fence_syncobj(&a, timeline, 2);
	s_out = vr_syncobj(&a, false);
	bo_a = patterned(&a, 64 * KIB, DRM_VDXG_SEGMENT_VRAM, 11);
	vr_bo_wait(bo_a);
	for (i = 0; i < 3; i++)
		bo_b[i] = bb_object(&b, i + 1);

	/* A: one bind waiting for the fence, with the out-syncobj. */
	vtest_assert_ok(bb_bind(&a, vm_a, bo_a, VA, 64 * KIB, s_in, s_out));
	/*
	 * An object private to that VM shares its reservation, where the
	 * bind's fence is: its first placement (a clear) waits for none.
	 */
	vtest_assert_ok(vdxg_bo_create_vm(a.dev, 64 * KIB, &vram, 1, 0, vm_a,
					  &priv));
	bb_other_client(&b, vm_b, key_b, bo_b[0], 1);
	vtest_assert_eq(vr_syncobj_wait(&a, s_out, 0, 0), -ETIME);

	/* More waiting binds than there are paging buffers. */
	for (i = 0; i < nblocked; i++)
		vtest_assert_ok(bb_bind(&a, vm_a, bo_a,
					VA + MIB + i * 64 * KIB, 64 * KIB,
					s_in, 0));
	bb_other_client(&b, vm_b, key_b, bo_b[1], 2);

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
	bb_other_client(&b, vm_b, key_b, bo_b[2], 3);
	vtest_assert_eq(vr_syncobj_wait(&a, s_out, 0, 0), -ETIME);

	/* The fences signal: everything of A completes and reads right. */
	vvm_timeline_inc(timeline, 2);
	vtest_assert_eq(vr_syncobj_wait(&a, s_out, 0, VR_WAIT_NS), 0);
	vtest_assert_eq(vr_syncobj_status(&a, s_out, 0), 1);
	expect_bytes(&a, key_a, VA, bo_a, 0, 64 * KIB);
	expect_bytes(&a, key_a, VA + MIB + (nblocked - 1) * 64 * KIB, bo_a,
		     0, 64 * KIB);
	/* The private object was cleared. */
	for (i = 0; i < 64 * KIB; i++)
		vtest_assert_eq(((uint8_t *)vr_map(priv))[i], 0);
	/*
	 * The second VM's queue drains (its binds run once the fence has
	 * signalled, within BB_DEADLINE): it binds again.
	 */
	t = vr_now();
	while ((ret = bb_bind(&a, vm_a2, bo_a, VA, 64 * KIB, 0, s_out)) ==
	       -EBUSY && vr_now() - t < (double)BB_DEADLINE / VR_SEC)
		vr_sleep_ms(10);
	vtest_assert_ok(ret);
	vtest_assert_eq(vr_syncobj_wait(&a, s_out, 0, VR_WAIT_NS), 0);

	vdxg_bo_free(priv);
	vdxg_bo_free(bo_a);
	vtest_assert_ok(vdxg_vm_destroy(a.dev, vm_a));
	vtest_assert_ok(vdxg_vm_destroy(a.dev, vm_a2));
	vtest_assert_ok(vdxg_vm_destroy(b.dev, vm_b));
	vr_close(&b);
	vr_close(&a);
}

/*
 * A's file and VM, with S_IN a syncobj of a sw_sync point (the returned
 * timeline's 1) that only the test signals, and S_OUT a syncobj.
 */
static int gated_vm(struct vr *a, uint32_t *vm, uint32_t *key,
		    uint32_t *s_in, uint32_t *s_out)
{
	int timeline = vvm_timeline();

	vr_open(a);
	vm_require(a);
	*vm = vm_new_key(a, key);
	*s_in = vvm_fence_syncobj(a, timeline, 1);
	*s_out = vr_syncobj(a, false);
	return timeline;
}

#define QB_OBJ		(64 * MIB)
#define QB_BIG		64	/* maps of QB_OBJ: over 128 paging buffers */
#define QB_SMALL	4	/* maps of QB_OBJ: about 8 */

/* A bind of N maps of BO (QB_OBJ from 4 KiB: 4 KiB entries) from VA. */
static int qb_bind(struct vr *vr, uint32_t vm, struct vdxg_bo *bo,
		   uint64_t va, uint32_t n, uint32_t in, uint32_t out)
{
	struct drm_vdxg_vm_bind_op ops[QB_BIG] = {};
	struct drm_vdxg_sync i = vdxg_sync(in, 0), o = vdxg_sync(out, 0);
	uint32_t k;

	for (k = 0; k < n; k++) {
		ops[k].op = DRM_VDXG_VM_BIND_OP_MAP;
		ops[k].handle = bo->handle;
		ops[k].obj_offset = 4 * KIB;
		ops[k].va = va + k * QB_OBJ;
		ops[k].range = QB_OBJ;
	}
	return vdxg_vm_bind(vr->dev, vm, ops, n, in ? &i : NULL, !!in,
			    out ? &o : NULL, !!out);
}

/*
 * The bound of a VM's queue counts every paging buffer a call may fill:
 * behind a bind waiting for an unsignalled in-fence, a call of 64 maps of
 * 64 MiB of system pages (131 buffers of 64 KiB) gets -EBUSY and changes
 * nothing, one of 4 maps is queued; on the empty queue, once the fence
 * has signalled, the large call is taken and its mappings read right.
 * (The bound was checked once a call, against the jobs already queued:
 * the large call queued its 131 jobs behind the fence.)
 */
static void test_queue_per_call(void)
{
	uint32_t key, vm, s_in, s_out, s_big;
	const uint64_t va = 1ull << 40;
	struct vdxg_bo *bo, *small;
	uint64_t mappings;
	uint32_t tables;
	int timeline;
	struct vr a;

	timeline = gated_vm(&a, &vm, &key, &s_in, &s_out);
	s_big = vr_syncobj(&a, false);
	bo = patterned(&a, QB_OBJ + 4 * KIB, DRM_VDXG_SEGMENT_SYSTEM, 21);
	small = patterned(&a, 64 * KIB, DRM_VDXG_SEGMENT_SYSTEM, 22);

	vtest_assert_ok(bb_bind(&a, vm, small, VA, 64 * KIB, s_in, 0));
	vtest_assert_eq(qb_bind(&a, vm, bo, va, QB_BIG, 0, s_big), -EBUSY);
	vvm_counts(vdxg_device_fd(a.dev), key, &mappings, &tables);
	vtest_assert_eq_u64(mappings, 1);
	vtest_assert_ok(qb_bind(&a, vm, bo, va, QB_SMALL, 0, s_out));
	vtest_assert_eq(vr_syncobj_wait(&a, s_out, 0, 0), -ETIME);

	vvm_timeline_inc(timeline, 1);
	vtest_assert_eq(vr_syncobj_wait(&a, s_out, 0, VR_WAIT_NS), 0);
	vtest_assert_ok(qb_bind(&a, vm, bo, va, QB_BIG, 0, s_big));
	vtest_assert_eq(vr_syncobj_wait(&a, s_big, 0, VR_WAIT_NS), 0);
	vvm_counts(vdxg_device_fd(a.dev), key, &mappings, &tables);
	vtest_info("%" PRIu64 " mappings, %u tables", mappings, tables);
	expect_bytes(&a, key, VA, small, 0, 64 * KIB);
	expect_bytes(&a, key, va, bo, 4 * KIB, 64 * KIB);
	expect_bytes(&a, key, va + (QB_BIG - 1) * QB_OBJ + QB_OBJ - 64 * KIB,
		     bo, QB_OBJ + 4 * KIB - 64 * KIB, 64 * KIB);

	vtest_assert_ok(vdxg_vm_destroy(a.dev, vm));
	vdxg_bo_free(small);
	vdxg_bo_free(bo);
	vr_close(&a);
}

/*
 * Eviction never waits for a client's fence. A's VM has gated work: a bind
 * waiting for an in-fence that is not signalled (its fence on the VM's
 * reservation, which the VM's private objects share, and on the bound
 * object's), an EXEC waiting for one (its fence there too), a SUBMIT
 * waiting for one (its fence on the objects of its allocation list), or
 * objects shared as dma-bufs with such a fence imported as a writer's
 * (DMA_BUF_IOCTL_IMPORT_SYNC_FILE).
 * With those objects and A's other ones filling VRAM, B's VRAM allocations
 * evict the others, within BB_DEADLINE, and B's bytes read back right;
 * the gated objects stay where they are; then the fence signals and A's
 * work completes. (It failed before, for the bind: TTM picked the blocked
 * objects first, the least recently used, and B waited for A's fence for
 * ever; for EXEC and SUBMIT until their jobs were marked gated, for the
 * sync_file until such fences counted.)
 */
enum gate_kind { GATE_BIND, GATE_EXEC, GATE_SUBMIT, GATE_SYNC_FILE };

/* A's object BO shared, with the timeline's point 1 as a writer's fence. */
static void gate_sync_file(struct vdxg_bo *bo, int timeline)
{
	struct dma_buf_import_sync_file imp = { .flags = DMA_BUF_SYNC_WRITE };
	int dmabuf;

	vtest_assert_ok(vdxg_bo_export(bo, &dmabuf));
	imp.fd = vvm_fence_fd(timeline, 1);
	vtest_assert_f(!ioctl(dmabuf, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &imp),
		       "IMPORT_SYNC_FILE: %m");
	close(imp.fd);
	close(dmabuf);
}

#define GATE_CMD_VA	(VA + 16 * MIB)

/* A's gated work on Y (and PRIV[0..NP) for SUBMIT), out-syncobj OUT. */
static void gated_work(struct vr *a, enum gate_kind kind, uint32_t vm,
		       struct vdxg_bo *y, struct vdxg_bo **priv, uint32_t np,
		       int timeline, uint32_t in, uint32_t out)
{
	struct drm_vdxg_sync i = vdxg_sync(in, 0), o = vdxg_sync(out, 0);
	struct vdxg_submit_opts opts = {
		.in_syncs = &i, .num_in_syncs = 1,
		.out_syncs = &o, .num_out_syncs = 1,
	};
	struct vdxg_bo *cmd;
	struct vdxg_vcs vcs;
	struct vdxg_cs *cs;
	uint32_t ctx, k;

	switch (kind) {
	case GATE_BIND:
		vtest_assert_ok(bb_bind(a, vm, y, VA, 64 * KIB, in, out));
		break;
	case GATE_EXEC:
		vtest_assert_ok(bb_bind(a, vm, y, VA, 64 * KIB, 0, 0));
		cmd = vr_bo(a, 4096, DRM_VDXG_SEGMENT_SYSTEM, 0);
		vtest_assert_ok(vdxg_vm_map(a->dev, vm, cmd, 0, GATE_CMD_VA,
					    4096, 0));
		vtest_assert_ok(vdxg_context_create_vm(a->dev,
						       DRM_VDXG_PRIORITY_NORMAL,
						       vm, &ctx));
		vdxg_vcs_init(&vcs, vr_map(cmd), 4096, GATE_CMD_VA);
		vdxg_vcs_fence(&vcs, VA + 4096, 0x600d);
		vtest_assert_ok(vdxg_exec(a->dev, ctx, &vcs, &opts));
		vdxg_bo_free(cmd);
		break;
	case GATE_SUBMIT:
		ctx = vr_ctx(a);
		cs = vr_cs();
		vdxg_cs_fence(cs, y, 4096, DRM_VDXG_ALLOC_WRITE, 0x600d);
		for (k = 0; k < np; k++)
			vdxg_cs_fence(cs, priv[k], 0, DRM_VDXG_ALLOC_WRITE, k);
		vr_submit(a, ctx, cs, &opts);
		vdxg_cs_free(cs);
		break;
	case GATE_SYNC_FILE:
		gate_sync_file(y, timeline);
		for (k = 0; k < np; k++)
			gate_sync_file(priv[k], timeline);
		break;
	}
}

static void evict_gated(enum gate_kind kind)
{
	static const uint32_t vram = DRM_VDXG_SEGMENT_VRAM;
	const uint64_t obj = 8 * MIB;
	struct vdxg_bo *y, *priv[64], *free_bo[64];
	uint32_t key, vm, s_in, s_out, np, nf, i;
	uint64_t seg;
	int timeline, status;
	struct vr a;
	pid_t pid;

	timeline = vvm_timeline();
	vr_open(&a);
	vm_require(&a);
	seg = vvm_vram_segment(vdxg_device_fd(a.dev));
	np = seg / 2 / obj;
	nf = (seg - np * obj) / obj - 1;
	vtest_require_f(np >= 2 && np <= 64 && nf >= 4 && nf <= 64,
			"a VRAM segment of %" PRIu64 " MiB", (uint64_t)(seg / MIB));
	vm = vm_new_key(&a, &key);
	s_in = vvm_fence_syncobj(&a, timeline, 1);
	s_out = vr_syncobj(&a, false);
	y = patterned(&a, 64 * KIB, DRM_VDXG_SEGMENT_VRAM, 31);
	vr_bo_wait(y);
	for (i = 0; i < np; i++) {
		if (kind == GATE_SUBMIT || kind == GATE_SYNC_FILE)
			priv[i] = vr_bo(&a, obj, DRM_VDXG_SEGMENT_VRAM, 0);
		else
			vtest_assert_ok(vdxg_bo_create_vm(a.dev, obj, &vram, 1,
							  0, vm, &priv[i]));
	}
	gated_work(&a, kind, vm, y, priv, np, timeline, s_in, s_out);
	for (i = 0; i < nf; i++)
		free_bo[i] = vr_bo(&a, obj, DRM_VDXG_SEGMENT_VRAM, 0);

	pid = fork();
	vtest_assert(pid >= 0);
	if (!pid) {
		struct vdxg_bo *bo[64];
		uint32_t n = nf / 2, j;
		struct vr b;

		alarm(BB_DEADLINE_S);
		vr_open(&b);
		for (j = 0; j < n; j++) {
			vtest_assert_ok(vdxg_bo_create(b.dev, obj, &vram, 1,
						       DRM_VDXG_GEM_CPU_ACCESS,
						       &bo[j]));
			fill(bo[j], obj, 100 + j);
		}
		for (j = 0; j < n; j++) {
			const uint32_t *p = vr_map(bo[j]);
			uint64_t k;

			vtest_assert_eq(vr_bo_segment(bo[j]), vram);
			for (k = 0; k < obj / 4; k += 1021)
				vtest_assert_eq(p[k], (100 + j) * 0x9e3779b9u +
						      (uint32_t)k);
			vdxg_bo_free(bo[j]);
		}
		vr_close(&b);
		_exit(0);
	}
	vtest_assert_eq(waitpid(pid, &status, 0), pid);
	vtest_assert_f(!WIFSIGNALED(status),
		       "B's allocations did not complete in %u s (signal %d)",
		       BB_DEADLINE_S, WTERMSIG(status));
	vtest_assert_f(WIFEXITED(status) && !WEXITSTATUS(status),
		       "B failed: status 0x%x", status);
	vtest_assert_eq(vr_bo_segment(y), vram);
	for (i = 0; i < np; i++)
		vtest_assert_eq(vr_bo_segment(priv[i]), vram);
	if (kind == GATE_SYNC_FILE) {
		vtest_assert_eq(vdxg_bo_wait(y, 0), -EBUSY);
		vvm_timeline_inc(timeline, 1);
		vtest_assert_ok(vdxg_bo_wait(y, VR_WAIT_NS));
	} else {
		vtest_assert_eq(vr_syncobj_wait(&a, s_out, 0, 0), -ETIME);
		/* The fence signals: A's work completes and reads right. */
		vvm_timeline_inc(timeline, 1);
		vtest_assert_eq(vr_syncobj_wait(&a, s_out, 0, VR_WAIT_NS), 0);
	}
	if (kind == GATE_BIND)
		expect_bytes(&a, key, VA, y, 0, 64 * KIB);
	else if (kind != GATE_SYNC_FILE)
		vtest_assert_eq_u64(((uint64_t *)vr_map(y))[512], 0x600d);
	for (i = 0; i < nf; i++)
		vdxg_bo_free(free_bo[i]);
	for (i = 0; i < np; i++)
		vdxg_bo_free(priv[i]);
	vdxg_bo_free(y);
	vtest_assert_ok(vdxg_vm_destroy(a.dev, vm));
	vr_close(&a);
}

static void test_evict_blocked(void)
{
	evict_gated(GATE_BIND);
}

static void test_evict_gated_exec(void)
{
	evict_gated(GATE_EXEC);
}

static void test_evict_gated_submit(void)
{
	evict_gated(GATE_SUBMIT);
}

static void test_evict_gated_sync_file(void)
{
	evict_gated(GATE_SYNC_FILE);
}

/*
 * Destroying a VM whose bind waits for an in-fence that is not signalled
 * waits for it, but holds no object's lock meanwhile: another client binds
 * an object of that VM (imported) within BB_DEADLINE. (It failed before:
 * VM_DESTROY waited with every object of the VM locked.)
 */
static void test_destroy_blocked(void)
{
	uint32_t vm_a, vm_b, key_b, s_in, s_out;
	struct vdxg_bo *x, *xb;
	int timeline, status, fd;
	pid_t pid_a, pid_b;
	struct vr a, b;
	double t;

	timeline = vvm_timeline();
	vr_open(&a);
	vm_require(&a);
	vr_open(&b);
	vm_a = vm_new(&a);
	vm_b = vm_new_key(&b, &key_b);
	s_in = vvm_fence_syncobj(&a, timeline, 1);
	x = patterned(&a, 64 * KIB, DRM_VDXG_SEGMENT_VRAM, 41);
	vr_bo_wait(x);
	vtest_assert_ok(vdxg_bo_export(x, &fd));
	vtest_assert_ok(vdxg_bo_import(b.dev, fd, &xb));
	close(fd);
	vtest_assert_ok(bb_bind(&a, vm_a, x, VA, 64 * KIB, s_in, 0));

	pid_a = fork();
	vtest_assert(pid_a >= 0);
	if (!pid_a)
		_exit(-vdxg_vm_destroy(a.dev, vm_a));
	/* Gone from the list: the destruction locks the objects next. */
	t = vr_now();
	while (vvm_listed(vdxg_device_fd(a.dev), vm_a) &&
	       vr_now() - t < (double)BB_DEADLINE / VR_SEC)
		vr_sleep_ms(10);
	vtest_assert(!vvm_listed(vdxg_device_fd(a.dev), vm_a));
	vr_sleep_ms(100);

	pid_b = fork();
	vtest_assert(pid_b >= 0);
	if (!pid_b) {
		alarm(BB_DEADLINE_S);
		_exit(-bb_bind(&b, vm_b, xb, VA, 64 * KIB, 0, 0));
	}
	vtest_assert_eq(waitpid(pid_b, &status, 0), pid_b);
	vtest_assert_f(!WIFSIGNALED(status),
		       "B's bind did not return in %u s (signal %d)",
		       BB_DEADLINE_S, WTERMSIG(status));
	vtest_assert_f(WIFEXITED(status) && !WEXITSTATUS(status),
		       "B's bind failed: %d", -WEXITSTATUS(status));
	/* A's VM_DESTROY still waits for its bind. */
	vtest_assert_eq(waitpid(pid_a, &status, WNOHANG), 0);

	vvm_timeline_inc(timeline, 1);
	vtest_assert_eq(waitpid(pid_a, &status, 0), pid_a);
	vtest_assert_f(WIFEXITED(status) && !WEXITSTATUS(status),
		       "VM_DESTROY: status 0x%x", status);
	s_out = vr_syncobj(&b, false);
	vtest_assert_ok(bb_bind(&b, vm_b, xb, VA + MIB, 64 * KIB, 0, s_out));
	vtest_assert_eq(vr_syncobj_wait(&b, s_out, 0, VR_WAIT_NS), 0);
	expect_bytes(&b, key_b, VA, xb, 0, 64 * KIB);
	expect_bytes(&b, key_b, VA + MIB, xb, 0, 64 * KIB);
	vdxg_bo_free(xb);
	vdxg_bo_free(x);
	vtest_assert_ok(vdxg_vm_destroy(b.dev, vm_b));
	vr_close(&b);
	vr_close(&a);
}

/*
 * A move of an object bound in a VM whose binds wait for an in-fence that
 * is not signalled waits for neither them nor the device's queue: the
 * object's entries in that VM go invalid (a read faults, never the old
 * place) until the VM's next VM_BIND maps it again, at its new place.
 */
static void test_blocked_bind_move(void)
{
	const uint64_t va2 = VA + 16 * MIB;	/* 2 MiB aligned */
	uint32_t key, vm, s_in, s_out;
	struct vdxg_bo *x, *x2, *y;
	int timeline, status;
	struct vr a;
	pid_t pid;

	timeline = gated_vm(&a, &vm, &key, &s_in, &s_out);
	x = bb_object(&a, 21);	/* VRAM or system memory */
	x2 = bb_object_size(&a, 2 * MIB, 23);	/* a 2 MiB entry in VRAM */
	y = patterned(&a, 64 * KIB, DRM_VDXG_SEGMENT_VRAM, 22);
	vr_bo_wait(y);
	vtest_assert_ok(bb_bind(&a, vm, x, VA, 256 * KIB, 0, 0));
	vtest_assert_ok(bb_bind(&a, vm, x2, va2, 2 * MIB, 0, s_out));
	vtest_assert_eq(vr_syncobj_wait(&a, s_out, 0, VR_WAIT_NS), 0);
	expect_bytes(&a, key, VA, x, 0, 256 * KIB);
	expect_bytes(&a, key, va2, x2, 0, 2 * MIB);

	/* A bind of another object of the VM waits for the fence. */
	vtest_assert_ok(bb_bind(&a, vm, y, VA + 4 * MIB, 64 * KIB, s_in,
				s_out));

	/*
	 * X to system memory, in a child that SIGALRM ends after
	 * BB_DEADLINE_S s (a move held up by the VM's binds never ends); it
	 * exits with MAKE_RESIDENT's errno, or 255 if the wait failed.
	 */
	pid = fork();
	vtest_assert(pid >= 0);
	if (!pid) {
		int ret;

		alarm(BB_DEADLINE_S);
		ret = vdxg_bo_make_resident(x, DRM_VDXG_SEGMENT_SYSTEM);
		if (!ret)
			ret = vdxg_bo_make_resident(x2,
						    DRM_VDXG_SEGMENT_SYSTEM);
		if (!ret && (vdxg_bo_wait(x, BB_DEADLINE) ||
			     vdxg_bo_wait(x2, BB_DEADLINE)))
			ret = -255;
		_exit(-ret);
	}
	vtest_assert_eq(waitpid(pid, &status, 0), pid);
	vtest_assert_f(!WIFSIGNALED(status),
		       "the move did not complete in %u s (signal %d)",
		       BB_DEADLINE_S, WTERMSIG(status));
	vtest_assert_f(WIFEXITED(status) && !WEXITSTATUS(status),
		       "the move failed: %d", -WEXITSTATUS(status));
	vtest_assert_eq(vr_bo_segment(x), DRM_VDXG_SEGMENT_SYSTEM);
	vtest_assert_eq(vr_bo_segment(x2), DRM_VDXG_SEGMENT_SYSTEM);
	vtest_assert_eq(vr_syncobj_wait(&a, s_out, 0, 0), -ETIME);

	/* The fence signals: Y's bind is done; X faults until a bind. */
	vvm_timeline_inc(timeline, 1);
	vtest_assert_eq(vr_syncobj_wait(&a, s_out, 0, VR_WAIT_NS), 0);
	expect_bytes(&a, key, VA + 4 * MIB, y, 0, 64 * KIB);
	expect_fault(&a, key, VA);
	expect_fault(&a, key, VA + 252 * KIB);
	expect_fault(&a, key, va2);
	expect_fault(&a, key, va2 + 2 * MIB - 4 * KIB);
	/* Mapped again, X2 in system pages (a table of 4 KiB entries). */
	vtest_assert_ok(bb_bind(&a, vm, y, VA + 8 * MIB, 64 * KIB, 0, s_out));
	vtest_assert_eq(vr_syncobj_wait(&a, s_out, 0, VR_WAIT_NS), 0);
	expect_bytes(&a, key, VA, x, 0, 256 * KIB);
	expect_bytes(&a, key, va2, x2, 0, 2 * MIB);
	expect_bytes(&a, key, VA + 8 * MIB, y, 0, 64 * KIB);

	/* And back to VRAM, nothing waiting: rewritten in the move. */
	vtest_assert_ok(vdxg_bo_make_resident(x, DRM_VDXG_SEGMENT_VRAM));
	vtest_assert_ok(vdxg_bo_make_resident(x2, DRM_VDXG_SEGMENT_VRAM));
	vtest_assert_ok(vdxg_bo_wait(x, BB_DEADLINE));
	vtest_assert_ok(vdxg_bo_wait(x2, BB_DEADLINE));
	expect_bytes(&a, key, VA, x, 0, 256 * KIB);
	expect_bytes(&a, key, va2, x2, 0, 2 * MIB);

	vdxg_bo_free(x2);
	vdxg_bo_free(x);
	vdxg_bo_free(y);
	vtest_assert_ok(vdxg_vm_destroy(a.dev, vm));
	vr_close(&a);
}

/*
 * A page table takes VRAM that a pipelined eviction has not emptied yet:
 * VRAM is full of another client's objects, all read by a job held on the
 * render ring, when a bind needs new tables. TTM gives the tables memory
 * of an evicted object whose copy-out waits for that job; the bind's
 * UPDATE_PAGE_TABLE must wait for the copy too (it used to run at once,
 * on the VM's own queue, and wrote entries into the evicted object's
 * bytes before they were copied out). Every byte of the other client's
 * objects survives, and the bind reads back.
 */
static void test_table_after_eviction(void)
{
	struct drm_vdxg_vm_bind_op op = {
		.op = DRM_VDXG_VM_BIND_OP_MAP, .va = VA, .range = 64 * KIB,
	};
	static const uint64_t sizes[] = { 4 * MIB, 64 * KIB, 4 * KIB };
	struct vdxg_bo *victim[1024], *hold, *bo;
	uint64_t vsize[1024], left;
	uint32_t key, vm, ctx, s_job, s_out, n = 0, evicted = 0, i, k;
	struct drm_vdxg_sync out, job_out;
	struct vdxg_submit_opts opts = {
		.out_syncs = &job_out, .num_out_syncs = 1,
	};
	struct vr att, vic;
	struct vdxg_cs *cs;
	uint8_t *map;

	vr_open(&att);
	vm_require(&att);
	vr_open(&vic);
	vm = vm_new_key(&att, &key);
	bo = patterned(&att, 64 * KIB, DRM_VDXG_SEGMENT_SYSTEM, 40);
	ctx = vr_ctx(&vic);
	/* In the aperture: no VRAM eviction moves it under the CPU's write. */
	hold = vr_bo(&vic, 4096, DRM_VDXG_SEGMENT_APERTURE, 0);
	map = vr_map(hold);
	memset(map, 0, 4096);
	s_job = vr_syncobj(&vic, false);
	s_out = vr_syncobj(&att, false);

	/* Fill VRAM with the victim's objects, big ones first. */
	for (k = 0; k < 3; k++) {
		left = vvm_vram_free(vdxg_device_fd(vic.dev));
		while (left >= sizes[k] && n < 1024) {
			vsize[n] = sizes[k];
			victim[n] = patterned(&vic, sizes[k],
					      DRM_VDXG_SEGMENT_VRAM, 100 + n);
			n++;
			left -= sizes[k];
		}
	}
	vtest_info("%u victim objects, %" PRIu64 " bytes of VRAM left", n,
		   vvm_vram_free(vdxg_device_fd(vic.dev)));

	/* One job reads them all, held on the render ring. */
	cs = vr_cs();
	for (i = 0; i < n; i++) {
		struct drm_vdxg_allocation a = { .handle = victim[i]->handle };

		vtest_assert(vdxg_cs_add_raw_allocation(cs, &a) >= 0);
	}
	vdxg_cs_wait(cs, hold, 0, 0, 1);
	job_out = vdxg_sync(s_job, 0);
	vr_submit(&vic, ctx, cs, &opts);
	vdxg_cs_free(cs);

	/* The bind's new tables evict some of them, behind the job. */
	out = vdxg_sync(s_out, 0);
	op.handle = bo->handle;
	vtest_assert_ok(vdxg_vm_bind(att.dev, vm, &op, 1, NULL, 0, &out, 1));
	vr_sleep_ms(200);
	map[0] = 1;
	vtest_assert_eq(vr_syncobj_wait(&vic, s_job, 0, VR_WAIT_NS), 0);
	vtest_assert_eq(vr_syncobj_wait(&att, s_out, 0, VR_WAIT_NS), 0);
	expect_bytes(&att, key, VA, bo, 0, 64 * KIB);

	for (i = 0; i < n; i++) {
		const uint32_t *p;
		uint64_t j;

		vr_bo_wait(victim[i]);
		if (vr_bo_segment(victim[i]) != DRM_VDXG_SEGMENT_VRAM)
			evicted++;
		p = vr_map(victim[i]);
		for (j = 0; j < vsize[i] / 4; j++)
			vtest_assert_f(p[j] == (100 + i) * 0x9e3779b9u +
					       (uint32_t)j,
				       "victim object %u (%" PRIu64 " KiB): "
				       "dword %" PRIu64 " is 0x%08x",
				       i, (uint64_t)(vsize[i] / KIB), j,
				       p[j]);
	}
	vtest_info("%u of them evicted", evicted);
	/* Else the test tested nothing. */
	vtest_assert(evicted > 0);
	for (i = 0; i < n; i++)
		vdxg_bo_free(victim[i]);
	vdxg_bo_free(hold);
	vdxg_bo_free(bo);
	vtest_assert_ok(vdxg_vm_destroy(att.dev, vm));
	vr_close(&vic);
	vr_close(&att);
}

/*
 * A child process that moves BO through SEGS[1..N-1, 0, ...] until END
 * (vr_now()); it exits 1 if a move fails.
 */
static pid_t mover(struct vdxg_bo *bo, const uint32_t *segs, uint32_t n,
		   double end)
{
	pid_t pid = fork();
	uint32_t i = 0;

	vtest_assert(pid >= 0);
	if (pid)
		return pid;
	while (vr_now() < end)
		if (vdxg_bo_make_resident(bo, segs[++i % n]))
			_exit(1);
	_exit(0);
}

/*
 * The table reserve under binds and moves at once: one process of the
 * file binds and unbinds in a new range (the reserve is filled, then
 * trimmed), another moves an object bound with 2 MiB pages between VRAM
 * and system memory (its moves take tables from the reserve to split the
 * pages and give them back). A table handed out twice, or destroyed while
 * a move links it, shows as wrong bytes, a kernel warning or a KASAN
 * report; the mapping reads right throughout.
 */
static void test_reserve_race(void)
{
	const uint64_t size = 4 * MIB;
	static const uint32_t segs[] = {
		DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_SYSTEM,
	};
	uint32_t key, vm, binds = 0;
	struct vdxg_bo *big, *small;
	double end;
	struct vr vr;
	pid_t pid;

	vr_open(&vr);
	vm_require(&vr);
	vm = vm_new_key(&vr, &key);
	vtest_assert_ok(vdxg_bo_create(vr.dev, size, segs, 2, 0, &big));
	fill(big, size, 51);
	small = patterned(&vr, 64 * KIB, DRM_VDXG_SEGMENT_SYSTEM, 52);
	vtest_assert_ok(vdxg_vm_map(vr.dev, vm, big, 0, VA, size, 0));
	end = vr_now() + 3;
	pid = mover(big, segs, 2, end);
	while (vr_now() < end) {
		/*
		 * A new 1 GiB region each time, half of it null: the bind
		 * makes hundreds of tables for its worst case first and
		 * gives most of them back after.
		 */
		uint64_t va = VA + (1 + binds % 64) * 1024 * MIB;
		struct drm_vdxg_vm_bind_op op = {
			.op = DRM_VDXG_VM_BIND_OP_MAP_NULL,
			.va = va + 512 * MIB, .range = 512 * MIB,
		};

		vtest_assert_ok(vdxg_vm_map(vr.dev, vm, small, 0, va, 64 * KIB,
					    0));
		vtest_assert_ok(vdxg_vm_bind(vr.dev, vm, &op, 1, NULL, 0, NULL,
					     0));
		vtest_assert_ok(vdxg_vm_unmap(vr.dev, vm, va, 1024 * MIB));
		binds++;
	}
	wait_child(pid, "the moving process");
	vtest_info("%u binds and unbinds beside the moves", binds);
	vr_bo_wait(big);
	/*
	 * A move that ran while a bind of the VM was not yet on the engine
	 * left the object's entries invalid (see blocked-bind-move): the
	 * next bind maps it again.
	 */
	vtest_assert_ok(vdxg_vm_map(vr.dev, vm, small, 0, VA + size,
				    64 * KIB, 0));
	expect_bytes(&vr, key, VA, big, 0, 64 * KIB);
	expect_bytes(&vr, key, VA + 2 * MIB + 60 * KIB, big,
		     2 * MIB + 60 * KIB, 64 * KIB);
	expect_bytes(&vr, key, VA + size - 64 * KIB, big, size - 64 * KIB,
		     64 * KIB);
	expect_bytes(&vr, key, VA + size, small, 0, 64 * KIB);
	vdxg_bo_free(small);
	vdxg_bo_free(big);
	vtest_assert_ok(vdxg_vm_destroy(vr.dev, vm));
	vr_close(&vr);
}

/*
 * debugfs vms read while a bound object moves between the three segments
 * in another process: each read names a place the object may be in (the
 * place is read under the object's reservation, not from a resource a
 * move may be freeing), and the mapping reads right after.
 */
static void test_debugfs_during_moves(void)
{
	static const uint32_t segs[] = {
		DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_APERTURE,
		DRM_VDXG_SEGMENT_SYSTEM,
	};
	const uint64_t size = 256 * KIB;
	uint32_t key, vm, reads = 0;
	struct vdxg_bo *bo;
	double end;
	struct vr vr;
	pid_t pid;

	vr_open(&vr);
	vm_require(&vr);
	vm = vm_new_key(&vr, &key);
	vtest_assert_ok(vdxg_bo_create(vr.dev, size, segs, 3, 0, &bo));
	fill(bo, size, 70);
	vtest_assert_ok(vdxg_vm_map(vr.dev, vm, bo, 0, VA, size, 0));
	end = vr_now() + 2;
	pid = mover(bo, segs, 3, end);
	while (vr_now() < end) {
		const char *place = vvm_place(vdxg_device_fd(vr.dev), key, VA);

		vtest_assert_f(!strcmp(place, "vram") ||
			       !strcmp(place, "aperture") ||
			       !strcmp(place, "system") ||
			       !strcmp(place, "invalid"),
			       "debugfs vms: the object is in \"%s\"", place);
		reads++;
	}
	wait_child(pid, "the moving process");
	vtest_info("%u reads of debugfs vms beside the moves", reads);
	vr_bo_wait(bo);
	/* Entries a move left invalid are mapped again by a bind. */
	vtest_assert_ok(vdxg_vm_map(vr.dev, vm, bo, 0, VA + size, size, 0));
	expect_bytes(&vr, key, VA, bo, 0, size);
	vdxg_bo_free(bo);
	vtest_assert_ok(vdxg_vm_destroy(vr.dev, vm));
	vr_close(&vr);
}

static const struct vtest_subtest subtests[] = {
	{ "create-destroy", test_create_destroy,
	  "VM_CREATE up to the per-file limit; a table of bad VM_CREATE and "
	  "VM_DESTROY calls, each errno, then a valid call" },
	{ "create-destroy-race", test_create_destroy_race,
	  "VM_CREATE and VM_DESTROY of one file from two processes at once" },
	{ "map-read", test_map_read,
	  "objects in VRAM, system memory and the aperture read back through "
	  "their virtual addresses" },
	{ "partial-unmap", test_partial_unmap,
	  "an unmap in the middle splits a mapping; the hole faults; a remap "
	  "fills it" },
	{ "join", test_join,
	  "a partial unmap splits a mapping and its 2 MiB page; the hole "
	  "mapped again from the same offset joins them back" },
	{ "null", test_null, "a null range reads zeros" },
	{ "null-bounded", test_null_bounded,
	  "null ranges take null leaves up to 512 GiB, tables at their ends "
	  "only; a file's VMs hold at most an eighth of VRAM in tables "
	  "(-ENOSPC past it), not another file's" },
	{ "cap-race", test_cap_race,
	  "two VMs of a file bind at once until -ENOSPC: the file's tables "
	  "never pass its cap" },
	{ "moves", test_moves,
	  "a bound object moved between every pair of segments keeps its "
	  "contents at its virtual address" },
	{ "isolation", test_isolation,
	  "an address mapped in one process's VM faults in another process's; "
	  "the same address in both reads each one's own object" },
	{ "bind-in-sync", test_bind_in_sync,
	  "a bind waits for its in-syncobj; its out-syncobj follows" },
	{ "bind-in-fence-error", test_bind_in_fence_error,
	  "a bind whose in-fence signals with an error still applies: a map "
	  "reads back, an unmap faults" },
	{ "unbind-waits", test_unbind_waits,
	  "an unmap waits for a queued job using the object" },
	{ "unbind-during-move", test_unbind_during_move,
	  "an unmap queued while a move reads the object waits for it; the "
	  "range then faults, also after later moves" },
	{ "concurrent", test_concurrent,
	  "eight processes binding and unbinding, contents verified" },
	{ "swapped-out", test_swapped_out,
	  "an object swapped out faults in its VM, then is mapped again" },
	{ "bad-bind", test_bad_bind,
	  "a table of malformed VM_BIND calls: the errno of each, nothing "
	  "applied, then a valid bind reads back" },
	{ "paging-stats", test_paging_stats,
	  "VM_CREATE, a bind, a read, an unmap and VM_DESTROY count their "
	  "GPU VM paging operations in debugfs paging and the trace event" },
	{ "bind-1g-buffers", test_bind_1g_buffers,
	  "a 1 GiB VM_BIND (2 MiB VRAM pages, 4 KiB system pages) takes the "
	  "predicted paging buffers and reads back across the range" },
	{ "oversubscribed", test_oversubscribed,
	  "objects bound in VMs, 4x VRAM in all, paged through every pair of "
	  "segments: every byte read back through their virtual addresses" },
	{ "blocked-bind", test_blocked_bind,
	  "binds waiting for an unsignalled in-fence hold up neither another "
	  "client's binds nor its moves; a VM's queue is bounded" },
	{ "memcg", test_memcg,
	  "page-table memory is charged to the client's memory cgroup, and "
	  "uncharged when the VM goes" },
	{ "queue-per-call", test_queue_per_call,
	  "a VM's queue bound counts every paging buffer a call may fill: "
	  "-EBUSY behind a blocked bind, taken on an empty queue" },
	{ "evict-blocked", test_evict_blocked,
	  "eviction passes by objects a client's blocked bind holds" },
	{ "evict-gated-exec", test_evict_gated_exec,
	  "an EXEC waiting for an unsignalled in-fence: eviction passes its "
	  "objects by, another client's VRAM allocations complete" },
	{ "evict-gated-submit", test_evict_gated_submit,
	  "a SUBMIT waiting for an unsignalled in-fence: eviction passes its "
	  "objects by, another client's VRAM allocations complete" },
	{ "evict-gated-sync-file", test_evict_gated_sync_file,
	  "shared objects with an unsignalled sync_file imported: eviction "
	  "passes them by, another client's VRAM allocations complete" },
	{ "destroy-blocked", test_destroy_blocked,
	  "VM_DESTROY waiting for a blocked bind holds no object's lock" },
	{ "blocked-bind-move", test_blocked_bind_move,
	  "a move of an object bound in a VM whose binds wait does not wait: "
	  "its entries there fault until the VM's next bind maps it again" },
	{ "table-after-eviction", test_table_after_eviction,
	  "a bind whose new tables take memory a pipelined eviction is still "
	  "copying out waits for the copy: the evicted bytes survive" },
	{ "reserve-race", test_reserve_race,
	  "binds filling and trimming the table reserve while moves of a "
	  "bound object take tables from it and give them back" },
	{ "debugfs-during-moves", test_debugfs_during_moves,
	  "debugfs vms read while a bound object moves between segments" },
};

VTEST_MAIN(subtests)
