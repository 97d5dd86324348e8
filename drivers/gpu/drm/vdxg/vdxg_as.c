// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/debugfs.h>
#include <linux/dma-fence.h>
#include <linux/io.h>
#include <linux/lockdep.h>
#include <linux/seq_file.h>

#include <drm/drm_drv.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include "vdxg_as.h"
#include "vdxg_drv.h"
#include "vdxg_hw.h"
#include "vdxg_pagebuf.h"

/**
 * DOC: Address spaces
 *
 * A VM is a software object, limited by memory only (and a per-file cap);
 * the device's VM_SPACES address spaces (up to 256, fewer with its
 * ``address-spaces`` property) are a cache of them, as amdgpu's VMIDs and
 * panthor's AS slots are. A VM gets one when a job of it is about to run:
 * the render scheduler's prepare_job step (and a paging job's that reads
 * through the VM) calls vdxg_as_grab(), which assigns a free address
 * space, or takes back the least recently granted one whose jobs have all
 * signalled, from whichever VM had it. Its AS entry is then written by
 * the CPU and its translations flushed through VM_TLB_FLUSH: the contract
 * lets the CPU change entries no engine uses, and no engine uses an
 * address space whose jobs are done. (UPDATE_CONTEXT_ALLOCATION would need
 * a paging job, which prepare_job cannot allocate.) When none is idle, the
 * job waits, as for any other dependency, for the oldest one's last job.
 *
 * The jobs that hold an address space are those granted it, and the
 * paging jobs written to the device while their VM had it: an address
 * space changes hands only once the last of each engine's has signalled.
 * Address space 0 is never handed out and its entry is never valid.
 *
 * Paging buffers are built before anyone knows which address space their
 * VM will have when they run, so they name VMs by key (%VDXG_PG_AS_KEY).
 * vdxg_as_patch() replaces each key as the buffer is written to the
 * device: with the VM's address space when it has one, else with 0,
 * where a FLUSH_VM_TLB drops nothing (a VM without an address space has
 * nothing cached: the one it gets next is flushed when assigned), an
 * UPDATE_CONTEXT_ALLOCATION writes an invalid entry, and a
 * NOTIFY_RESIDENCY is counted for the VM by the driver. The device's
 * residency counters are per address space; a VM's are what it counted
 * while it held each, plus what the driver counted for it.
 */

static void vdxg_as_set_busy(struct vdxg_as *as, enum vdxg_as_user user,
			     struct dma_fence *fence)
{
	dma_fence_put(as->busy[user]);
	as->busy[user] = dma_fence_get(fence);
}

/*
 * Whether no job holds @as. Otherwise, with @wait, a reference to a fence
 * to wait for.
 */
static bool vdxg_as_idle(struct vdxg_as *as, struct dma_fence **wait)
{
	int u;

	for (u = 0; u < VDXG_AS_USERS; u++) {
		if (!as->busy[u])
			continue;
		if (!dma_fence_is_signaled(as->busy[u])) {
			if (wait)
				*wait = dma_fence_get(as->busy[u]);
			return false;
		}
		dma_fence_put(as->busy[u]);
		as->busy[u] = NULL;
	}
	return true;
}

static u32 vdxg_as_id(struct vdxg_as_mgr *mgr, struct vdxg_as *as)
{
	return as - mgr->as;
}

/* The device's residency counters of address space @id. */
static void vdxg_as_counts(struct vdxg_device *vdxg, u32 id, u32 *resident,
			   u32 *evicted)
{
	int idx;

	*resident = 0;
	*evicted = 0;
	if (!drm_dev_enter(&vdxg->drm, &idx))
		return;
	vdxg_wr(vdxg, VDXG_REG_VM_RES_SELECT, id);
	*resident = vdxg_rd(vdxg, VDXG_REG_VM_RES_RESIDENT);
	*evicted = vdxg_rd(vdxg, VDXG_REG_VM_RES_EVICTED);
	drm_dev_exit(idx);
}

/* Write the AS entry of @id, then flush its translations. */
static void vdxg_as_write(struct vdxg_device *vdxg, u32 id, u64 entry)
{
	void __iomem *e = vdxg->vm.table_cpu + id * VDXG_VM_AS_ENTRY_SIZE;
	int idx;

	/* Unplugged, the device translates nothing any more. */
	if (!drm_dev_enter(&vdxg->drm, &idx))
		return;
	writeq(entry, e);
	writeq(0, e + 8);
	wmb(); /* the entry is written before the flush */
	vdxg_wr(vdxg, VDXG_REG_VM_TLB_FLUSH, id);
	drm_dev_exit(idx);
}

/* Take @as from its VM, its residency counts going with the VM. */
static void vdxg_as_unassign(struct vdxg_device *vdxg, struct vdxg_as *as)
{
	struct vdxg_as_mgr *mgr = &vdxg->vm.as;
	struct vdxg_as_vm *avm = as->vm;
	u32 resident, evicted;

	vdxg_as_counts(vdxg, vdxg_as_id(mgr, as), &resident, &evicted);
	avm->resident += resident - as->resident;
	avm->evicted += evicted - as->evicted;
	WRITE_ONCE(avm->asid, 0);
	as->vm = NULL;
}

static void vdxg_as_assign(struct vdxg_device *vdxg, struct vdxg_as *as,
			   struct vdxg_as_vm *avm)
{
	struct vdxg_as_mgr *mgr = &vdxg->vm.as;
	u32 id = vdxg_as_id(mgr, as);

	if (as->vm) {
		vdxg_as_unassign(vdxg, as);
		mgr->steals++;
	}
	mgr->grants++;
	as->vm = avm;
	WRITE_ONCE(avm->asid, id);
	vdxg_as_counts(vdxg, id, &as->resident, &as->evicted);
	vdxg_as_write(vdxg, id, avm->root | VDXG_VM_AS_VALID);
}

/*
 * An idle address space, least recently granted first, or NULL and in
 * @wait the last job of the least recently granted one.
 */
static struct vdxg_as *vdxg_as_victim(struct vdxg_as_mgr *mgr,
				      struct dma_fence **wait)
{
	struct vdxg_as *as;

	list_for_each_entry(as, &mgr->lru, lru)
		if (vdxg_as_idle(as, NULL))
			return as;
	as = list_first_entry(&mgr->lru, struct vdxg_as, lru);
	return vdxg_as_idle(as, wait) ? as : NULL;
}

/**
 * vdxg_as_grab - give a VM an address space for a job
 * @vdxg: the device
 * @avm: the job's VM
 * @user: the engine the job runs on
 * @fence: the job's finished fence
 *
 * For a scheduler's prepare_job step: takes no sleeping lock and
 * allocates nothing. Once this returns NULL the VM keeps its address
 * space (vdxg_as_current()) until @fence signals; a VM switched off has
 * none, and its job faults on address space 0.
 *
 * Return: NULL, or a reference to a fence to wait for before asking again.
 */
struct dma_fence *vdxg_as_grab(struct vdxg_device *vdxg,
			       struct vdxg_as_vm *avm, enum vdxg_as_user user,
			       struct dma_fence *fence)
{
	struct vdxg_as_mgr *mgr = &vdxg->vm.as;
	struct dma_fence *wait = NULL;
	struct vdxg_as *as;

	spin_lock(&mgr->lock);
	if (avm->dead)
		goto out;
	if (!avm->asid) {
		as = vdxg_as_victim(mgr, &wait);
		if (!as)
			goto out;
		vdxg_as_assign(vdxg, as, avm);
	}
	as = &mgr->as[avm->asid];
	vdxg_as_set_busy(as, user, fence);
	list_move_tail(&as->lru, &mgr->lru);
out:
	spin_unlock(&mgr->lock);
	return wait;
}

/**
 * vdxg_as_current - the address space a VM holds
 * @vdxg: the device
 * @avm: the VM
 *
 * Return: the id, or 0 when it has none. Stable while a job granted it by
 * vdxg_as_grab() is unsignalled, unless the VM is switched off.
 */
u32 vdxg_as_current(struct vdxg_device *vdxg, struct vdxg_as_vm *avm)
{
	return READ_ONCE(avm->asid);
}

/* What an operation of @avm (NULL: a VM gone) does without an address space. */
static void vdxg_as_absent(struct vdxg_as_vm *avm, u32 *cs)
{
	switch (VDXG_PG_HDR_OP(cs[0])) {
	case VDXG_PG_UPDATE_CONTEXT_ALLOC:
		cs[2] = 0;
		cs[3] = 0;
		break;
	case VDXG_PG_NOTIFY_RESIDENCY:
		if (!avm)
			break;
		if (cs[2] & VDXG_PG_RES_EVICTED)
			avm->evicted += cs[3];
		else
			avm->resident += cs[3];
		break;
	}
}

/**
 * vdxg_as_patch - name address spaces in a paging buffer about to run
 * @vdxg: the device
 * @cmd: the buffer's CPU copy
 * @ndw: its dwords
 * @fence: the job's finished fence: the address spaces it names are held
 *	until it signals
 *
 * Replaces each VM key (%VDXG_PG_AS_KEY) by the VM's address space, or by
 * 0 when it has none (see "Address spaces").
 */
void vdxg_as_patch(struct vdxg_device *vdxg, u32 *cmd, u32 ndw,
		   struct dma_fence *fence)
{
	struct vdxg_as_mgr *mgr = &vdxg->vm.as;
	u32 pos = 0, *op;

	spin_lock(&mgr->lock);
	while ((op = vdxg_pg_next_as(cmd, ndw, &pos))) {
		struct vdxg_as_vm *avm;
		u32 id = 0;

		if (!(*op & VDXG_PG_AS_KEY))
			continue;
		avm = xa_load(&mgr->keys, *op & ~VDXG_PG_AS_KEY);
		if (avm)
			id = avm->asid;
		if (id)
			vdxg_as_set_busy(&mgr->as[id], VDXG_AS_PAGING, fence);
		else
			vdxg_as_absent(avm, op - 1);
		*op = id;
	}
	spin_unlock(&mgr->lock);
}

/**
 * vdxg_as_vm_init - give a VM its key
 * @vdxg: the device
 * @avm: the VM's part, zeroed
 *
 * Return: 0 or a negative errno.
 */
int vdxg_as_vm_init(struct vdxg_device *vdxg, struct vdxg_as_vm *avm)
{
	struct vdxg_as_mgr *mgr = &vdxg->vm.as;
	int ret;

	ret = xa_alloc_cyclic(&mgr->keys, &avm->key, avm,
			      XA_LIMIT(1, VDXG_PG_AS_KEY - 1), &mgr->next_key,
			      GFP_KERNEL_ACCOUNT);
	return ret < 0 ? ret : 0;
}

static void vdxg_as_vm_off_locked(struct vdxg_device *vdxg,
				  struct vdxg_as_vm *avm)
{
	struct vdxg_as_mgr *mgr = &vdxg->vm.as;
	struct vdxg_as *as;
	u32 id = avm->asid;

	lockdep_assert_held(&mgr->lock);
	avm->dead = true;
	if (!id)
		return;
	as = &mgr->as[id];
	vdxg_as_unassign(vdxg, as);
	vdxg_as_write(vdxg, id, 0);
	/* Free: the first taken once its jobs are done. */
	list_move(&as->lru, &mgr->lru);
}

/**
 * vdxg_as_vm_off - switch a VM's address space off for good
 * @vdxg: the device
 * @avm: the VM
 *
 * Its AS entry is invalid and its translations flushed at once: jobs of it
 * still running fault. It never gets an address space again.
 */
void vdxg_as_vm_off(struct vdxg_device *vdxg, struct vdxg_as_vm *avm)
{
	struct vdxg_as_mgr *mgr = &vdxg->vm.as;

	spin_lock(&mgr->lock);
	vdxg_as_vm_off_locked(vdxg, avm);
	spin_unlock(&mgr->lock);
}

/**
 * vdxg_as_vm_fini - forget a VM
 * @vdxg: the device
 * @avm: the VM, initialised or not
 *
 * Switches it off; paging jobs that still name its key name no address
 * space (vdxg_as_patch() looks keys up under the same lock). Takes no
 * sleeping lock: a VM's last reference may go in a job's free_job.
 */
void vdxg_as_vm_fini(struct vdxg_device *vdxg, struct vdxg_as_vm *avm)
{
	struct vdxg_as_mgr *mgr = &vdxg->vm.as;

	if (!avm->key)
		return;
	spin_lock(&mgr->lock);
	vdxg_as_vm_off_locked(vdxg, avm);
	xa_erase(&mgr->keys, avm->key);
	spin_unlock(&mgr->lock);
	avm->key = 0;
}

/**
 * vdxg_as_residency - a VM's NOTIFY_RESIDENCY counts
 * @vdxg: the device
 * @avm: the VM
 * @resident: allocations made resident, mod 2^32
 * @evicted: allocations evicted, mod 2^32
 */
void vdxg_as_residency(struct vdxg_device *vdxg, struct vdxg_as_vm *avm,
		       u32 *resident, u32 *evicted)
{
	struct vdxg_as_mgr *mgr = &vdxg->vm.as;
	u32 r, e;

	spin_lock(&mgr->lock);
	*resident = avm->resident;
	*evicted = avm->evicted;
	if (avm->asid) {
		struct vdxg_as *as = &mgr->as[avm->asid];

		vdxg_as_counts(vdxg, avm->asid, &r, &e);
		*resident += r - as->resident;
		*evicted += e - as->evicted;
	}
	spin_unlock(&mgr->lock);
}

/*
 * ``address_spaces``: the device's count, how many are assigned now, and
 * since probe the grants (a VM given one it did not have) and, of those,
 * the steals (taken back from another VM).
 */
static int vdxg_as_debugfs_show(struct seq_file *m, void *data)
{
	struct vdxg_device *vdxg = m->private;
	struct vdxg_as_mgr *mgr = &vdxg->vm.as;
	u32 i, assigned = 0;
	u64 grants, steals;

	spin_lock(&mgr->lock);
	for (i = 1; i < mgr->count; i++)
		assigned += !!mgr->as[i].vm;
	grants = mgr->grants;
	steals = mgr->steals;
	spin_unlock(&mgr->lock);
	seq_printf(m, "count: %u\nassigned: %u\ngrants: %llu\nsteals: %llu\n",
		   mgr->count, assigned, grants, steals);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vdxg_as_debugfs);

/**
 * vdxg_as_debugfs_init - the address-space cache's debugfs file
 * @vdxg: the device, its GPU MMU enabled
 */
void vdxg_as_debugfs_init(struct vdxg_device *vdxg)
{
	if (vdxg->vm.enabled)
		debugfs_create_file("address_spaces", 0444,
				    vdxg->drm.debugfs_root, vdxg,
				    &vdxg_as_debugfs_fops);
}

/**
 * vdxg_as_restore - after a reset that cleared the residency counters
 * @vdxg: the device
 *
 * The AS table is in VRAM and survives; the counters start again from
 * what the device shows now.
 */
void vdxg_as_restore(struct vdxg_device *vdxg)
{
	struct vdxg_as_mgr *mgr = &vdxg->vm.as;
	u32 i;

	spin_lock(&mgr->lock);
	for (i = 1; i < mgr->count; i++)
		if (mgr->as[i].vm)
			vdxg_as_counts(vdxg, i, &mgr->as[i].resident,
				       &mgr->as[i].evicted);
	spin_unlock(&mgr->lock);
}

static void vdxg_as_release(struct drm_device *drm, void *arg)
{
	struct vdxg_as_mgr *mgr = arg;
	u32 i;
	int u;

	for (i = 0; i < mgr->count; i++)
		for (u = 0; u < VDXG_AS_USERS; u++)
			dma_fence_put(mgr->as[i].busy[u]);
	xa_destroy(&mgr->keys);
}

/**
 * vdxg_as_init - set up the address-space cache
 * @vdxg: the device, its AS table allocated
 *
 * Return: 0 or a negative errno.
 */
int vdxg_as_init(struct vdxg_device *vdxg)
{
	struct vdxg_as_mgr *mgr = &vdxg->vm.as;
	u32 n = vdxg_rd(vdxg, VDXG_REG_VM_SPACES), i;

	if (n < 2 || n > VDXG_VM_MAX_AS) {
		drm_err(&vdxg->drm, "VM_SPACES %u is not from 2 to %u\n", n,
			VDXG_VM_MAX_AS);
		return -EIO;
	}
	mgr->as = drmm_kcalloc(&vdxg->drm, n, sizeof(*mgr->as), GFP_KERNEL);
	if (!mgr->as)
		return -ENOMEM;
	spin_lock_init(&mgr->lock);
	INIT_LIST_HEAD(&mgr->lru);
	xa_init_flags(&mgr->keys, XA_FLAGS_ALLOC1);
	mgr->next_key = 1;
	for (i = 0; i < n; i++) {
		INIT_LIST_HEAD(&mgr->as[i].lru);
		if (i)
			list_add_tail(&mgr->as[i].lru, &mgr->lru);
	}
	mgr->count = n;
	return drmm_add_action_or_reset(&vdxg->drm, vdxg_as_release, mgr);
}
