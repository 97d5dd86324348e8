/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */
#ifndef _VDXG_AS_H_
#define _VDXG_AS_H_

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include "vdxg_pagebuf.h"

struct dma_fence;
struct vdxg_device;

/* The engines that run jobs through an address space. */
enum vdxg_as_user {
	VDXG_AS_RENDER,
	VDXG_AS_PAGING,
	VDXG_AS_USERS,
};

/**
 * struct vdxg_as_vm - what a VM has of the address-space cache
 * @key: the VM's key, the operand its paging operations name it by
 *	(%VDXG_PG_AS_KEY | @key); 0 before vdxg_as_vm_init()
 * @root: VRAM offset of its root table, written to its AS entry; set
 *	before the VM's first job
 * @asid: under the manager's lock: its address space, 0 for none
 * @dead: under the manager's lock: it never gets one again
 * @resident: under the manager's lock: NOTIFY_RESIDENCY counts
 *	(allocations made resident) while it held no address space, or
 *	counted by those it gave back
 * @evicted: the same for evictions
 */
struct vdxg_as_vm {
	u32 key;
	u64 root;
	u32 asid;
	bool dead;
	u32 resident;
	u32 evicted;
};

/**
 * struct vdxg_as - one of the device's address spaces
 * @vm: the VM it is assigned to, or NULL
 * @busy: the last job of each engine that used it: it changes hands
 *	only once they have all signalled
 * @lru: in the manager's list, least recently granted first
 * @resident: the device's VM_RES_RESIDENT of it when it was assigned
 * @evicted: VM_RES_EVICTED likewise
 */
struct vdxg_as {
	struct vdxg_as_vm *vm;
	struct dma_fence *busy[VDXG_AS_USERS];
	struct list_head lru;
	u32 resident;
	u32 evicted;
};

/**
 * struct vdxg_as_mgr - the device's address spaces, a cache of VMs
 * @lock: protects everything below, the &struct vdxg_as_vm fields so
 *	marked, VM_RES_SELECT, and the AS table's entries; a spinlock, as
 *	the schedulers take it on their fence-signalling paths
 * @count: address spaces the device has (VM_SPACES); 0 is never handed
 *	out, so that operations of a VM without one do nothing
 * @as: the address spaces, @count of them
 * @lru: the address spaces but 0, least recently granted first
 * @keys: every VM by key, for the paging jobs that name one
 * @next_key: the next key to try (keys are handed out cyclically)
 * @grants: address spaces given to a VM that had none
 * @steals: of those, the ones taken back from another VM
 */
struct vdxg_as_mgr {
	spinlock_t lock; /* protects the cache and VM_RES_SELECT */
	u32 count;
	struct vdxg_as *as;
	struct list_head lru;
	struct xarray keys;
	u32 next_key;
	u64 grants;
	u64 steals;
};

int vdxg_as_init(struct vdxg_device *vdxg);
void vdxg_as_restore(struct vdxg_device *vdxg);

/* The operand that names @avm in a paging buffer. */
static inline u32 vdxg_as_key(const struct vdxg_as_vm *avm)
{
	return VDXG_PG_AS_KEY | avm->key;
}

int vdxg_as_vm_init(struct vdxg_device *vdxg, struct vdxg_as_vm *avm);
void vdxg_as_vm_off(struct vdxg_device *vdxg, struct vdxg_as_vm *avm);
void vdxg_as_vm_fini(struct vdxg_device *vdxg, struct vdxg_as_vm *avm);

struct dma_fence *vdxg_as_grab(struct vdxg_device *vdxg,
			       struct vdxg_as_vm *avm, enum vdxg_as_user user,
			       struct dma_fence *fence);
u32 vdxg_as_current(struct vdxg_device *vdxg, struct vdxg_as_vm *avm);
void vdxg_as_patch(struct vdxg_device *vdxg, u32 *cmd, u32 ndw,
		   struct dma_fence *fence);
void vdxg_as_residency(struct vdxg_device *vdxg, struct vdxg_as_vm *avm,
		       u32 *resident, u32 *evicted);
void vdxg_as_debugfs_init(struct vdxg_device *vdxg);

#endif
