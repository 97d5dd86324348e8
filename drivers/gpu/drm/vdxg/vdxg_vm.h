/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */
#ifndef _VDXG_VM_H_
#define _VDXG_VM_H_

#include <linux/mutex.h>

#include <drm/drm_gpuvm.h>

#include "vdxg_as.h"
#include "vdxg_paging.h"
#include "vdxg_pt.h"

struct dma_fence;
struct drm_device;
struct drm_exec;
struct drm_file;
struct drm_sched_job;
struct ttm_buffer_object;
struct ttm_operation_ctx;
struct ttm_resource;
struct vdxg_device;
struct vdxg_bo;
struct vdxg_file;
struct vdxg_pg_batch;

/**
 * struct vdxg_vm_mgr - the device's GPU virtual memory
 * @enabled: the device has a GPU MMU and the AS table is programmed
 * @table_gpu: VRAM offset of the address-space table
 * @table_cpu: its CPU mapping (zeroed once, before the MMU is enabled)
 * @as: the address spaces, a cache of the VMs
 * @lock: protects @list and the staging buffer
 * @list: every VM of every file
 * @stage_gpu: VRAM offset of a buffer debugfs reads VMs through
 * @stage_cpu: its CPU mapping
 */
struct vdxg_vm_mgr {
	bool enabled;
	u64 table_gpu;
	void __iomem *table_cpu;
	struct vdxg_as_mgr as;
	struct mutex lock; /* protects @list and the staging buffer */
	struct list_head list;
	u64 stage_gpu;
	void __iomem *stage_cpu;
};

#define VDXG_VM_STAGE_SIZE	SZ_64K

/*
 * Paging jobs a VM may have queued and not yet run (binds waiting for
 * their in-fences, for instance); VM_BIND fails with -EBUSY beyond.
 */
#define VDXG_VM_MAX_QUEUED_JOBS	128

/**
 * struct vdxg_vm - a GPU virtual address space (WDDM 2.0's per-process
 * GPU virtual address space), owned by one file
 * @gpuvm: the mappings; its reservation object is the VM's
 * @vdxg: the device
 * @id: the id the file knows it by
 * @client_id: the file's DRM client id (fdinfo drm-client-id)
 * @file: the owning file, while the VM is open: its page tables count
 *	against the file's (binds and destruction make and free them)
 * @as: its key, and the address space it holds for now
 * @lock: serialises binds and the VM's destruction
 * @pt_lock: protects @pt: taken inside the reservations, by binds and by
 *	the moves of bound objects
 * @pt: the page tables
 * @queue: the paging queue of the VM's binds (and of its destruction)
 * @last_update: under @pt_lock: the last paging job that writes the
 *	tables, a bind's (on @queue) or a move's (on the device's queue);
 *	whoever writes them next waits for it
 * @tables: the pinned objects holding the page tables, by VRAM page
 * @reserve: under @pt_lock: VRAM offsets of tables allocated but
 *	unlinked, taken first
 * @nreserve: under @pt_lock: entries in @reserve
 * @reserve_cap: room in @reserve; changed by binds only, under @lock and
 *	@pt_lock
 * @no_alloc: under @pt_lock: take tables from @reserve only, and give
 *	freed ones back to it (a move, or a bind's steps)
 * @slots: under @lock and @pt_lock: 2 MiB regions the mappings cover,
 *	at most: how many tables a move may need to split 2 MiB pages, kept
 *	in @reserve
 * @closed: destroyed; binds fail with -ENOENT
 * @broken: a bind failed half-way, or an object's entries could not be
 *	rewritten: the address space is switched off
 * @validate: during VM_BIND, the batch that maps swapped-out objects again
 *	and binds fail with -EIO
 * @link: in the device's list of VMs
 */
struct vdxg_vm {
	struct drm_gpuvm gpuvm;
	struct vdxg_device *vdxg;
	u32 id;
	u64 client_id;
	struct vdxg_file *file;
	struct vdxg_as_vm as;
	struct mutex lock; /* serialises binds and destruction */
	struct mutex pt_lock; /* protects @pt, @reserve and @last_update */
	struct vdxg_pt_vm pt;
	struct vdxg_pg_queue queue;
	struct dma_fence *last_update;
	struct xarray tables;
	u64 *reserve;
	u32 nreserve;
	u32 reserve_cap;
	bool no_alloc;
	u64 slots;
	bool closed;
	bool broken;
	struct vdxg_pg_batch *validate;
	struct list_head link;
};

int vdxg_vm_init(struct vdxg_device *vdxg);
void vdxg_vm_fini(struct vdxg_device *vdxg);
void vdxg_vm_restore(struct vdxg_device *vdxg);

void vdxg_vm_file_close(struct vdxg_file *vf);
void vdxg_vm_debugfs_init(struct vdxg_device *vdxg);

void vdxg_vm_move_failed(struct ttm_buffer_object *tbo);
int vdxg_vm_move_ops(struct vdxg_pg_batch *b, struct ttm_buffer_object *tbo,
		     struct ttm_resource *new);
void vdxg_vm_swap_notify(struct ttm_buffer_object *tbo);
int vdxg_vm_swap_in(struct ttm_buffer_object *tbo,
		    struct ttm_operation_ctx *ctx);

struct vdxg_vm *vdxg_vm_get(struct vdxg_file *vf, u32 id);
void vdxg_vm_put(struct vdxg_vm *vm);
int vdxg_vm_state_create(struct vdxg_vm *vm, struct vdxg_bo **out, u64 *gpu);
void vdxg_vm_state_destroy(struct vdxg_vm *vm, struct vdxg_bo *bo);
int vdxg_vm_check_range(struct vdxg_vm *vm, u64 addr, u64 range);
int vdxg_vm_exec_lock(struct vdxg_vm *vm, struct drm_exec *exec,
		      struct drm_sched_job *job);
void vdxg_vm_exec_fence(struct vdxg_vm *vm, struct drm_exec *exec,
			struct dma_fence *fence);

int vdxg_vm_create_ioctl(struct drm_device *drm, void *data,
			 struct drm_file *file);
int vdxg_vm_destroy_ioctl(struct drm_device *drm, void *data,
			  struct drm_file *file);
int vdxg_vm_bind_ioctl(struct drm_device *drm, void *data,
		       struct drm_file *file);

#endif
