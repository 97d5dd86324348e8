/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */
#ifndef _VDXG_RENDER_H_
#define _VDXG_RENDER_H_

#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include <drm/drm_mm.h>
#include <drm/gpu_scheduler.h>
#include <drm/vdxg_drm.h>

#include "vdxg_engine.h"
#include "vdxg_fault.h"

struct drm_file;
struct drm_gem_object;
struct drm_printer;
struct vdxg_device;
struct vdxg_bo;
struct vdxg_vm;

/* A file guilty of this many resets within the window is banned. */
#define VDXG_BAN_HANGS		5
#define VDXG_BAN_WINDOW_S	60
/* Contexts a file may have. */
#define VDXG_MAX_CONTEXTS	256
/* DMA-buffer bytes a file's queued jobs may hold: a quarter of the pool. */
#define VDXG_MAX_QUEUED_BYTES	(VDXG_RENDER_POOL_SIZE / 4)
#define VDXG_RENDER_POOL_SIZE	SZ_1M

/**
 * struct vdxg_render - the RENDER engine and its DMA-buffer pool
 * @engine: the engine and its scheduler
 * @pool: the allocator of DMA buffers in reserved VRAM
 * @pool_lock: protects @pool
 * @pool_wait: woken when a DMA buffer is freed
 * @pool_gen: bumped, under @pool_lock, when a DMA buffer is freed
 * @split_lock: one piece of a split submission made resident at a time
 * @pool_gpu: GPU address of the pool
 * @pool_cpu: CPU mapping of the pool
 * @reset_gen: bumped by each reset, to count a context once per reset
 * @fault_lock: protects @fault, @faulted and the contexts' fault records
 * @fault: the device's last RENDER fault, until a reset blames its job
 * @faulted: @fault is waiting for that
 * @stats: submission counters, shown in debugfs
 * @stats.execs: EXEC jobs queued
 * @stats.submits: jobs queued
 * @stats.patched: jobs whose buffer needed address fields written
 * @stats.skipped: jobs whose presumed addresses were all right
 * @stats.fields: address fields written
 * @stats.rejected: submissions refused by validation
 * @stats.split: submissions run in pieces
 * @stats.pieces: pieces of those queued
 * @stats.null_rendering: jobs queued with DRM_VDXG_SUBMIT_NULL_RENDERING
 * @free_wq: where contexts of a VM are freed (see vdxg_context_put())
 * @jobs: jobs pushed to the scheduler and not yet freed
 * @gated: its address marks gated jobs (see vdxg_gate.c)
 */
struct vdxg_render {
	struct vdxg_engine engine;
	struct drm_mm pool;
	struct mutex pool_lock; /* protects @pool */
	wait_queue_head_t pool_wait;
	u32 pool_gen;
	struct mutex split_lock; /* see above */
	u64 pool_gpu;
	u8 __iomem *pool_cpu;
	u32 reset_gen;
	spinlock_t fault_lock; /* protects @fault, @faulted, contexts' fault */
	struct vdxg_fault_rec fault;
	bool faulted;
	struct {
		atomic64_t execs;
		atomic64_t submits;
		atomic64_t patched;
		atomic64_t skipped;
		atomic64_t fields;
		atomic64_t rejected;
		atomic64_t split;
		atomic64_t pieces;
		atomic64_t null_rendering;
	} stats;
	struct workqueue_struct *free_wq;
	atomic_t jobs;
	u8 gated;
};

/**
 * struct vdxg_file - per-open-file state
 * @vdxg: the device
 * @refcount: held by the file and by each context
 * @contexts: the file's contexts by id
 * @busy_ns: engine time used by the file's jobs, per engine
 * @queued: bytes of DMA buffers the file's jobs hold
 * @jobs: the file's part of &vdxg_render.jobs
 * @queue_wait: woken when a job of the file frees its DMA buffer
 * @ban_lock: protects @hangs and @next_hang
 * @hangs: when the file's last %VDXG_BAN_HANGS guilty resets happened
 * @next_hang: the slot of @hangs the next one goes to
 * @banned: the file keeps hanging the engine: no more contexts or jobs
 * @vms: its GPU virtual address spaces (struct vdxg_vm), by id
 * @pt_tables: page tables its VMs hold (vdxg_vm_pt.c), against a cap
 */
struct vdxg_file {
	struct vdxg_device *vdxg;
	struct kref refcount;
	struct xarray contexts;
	struct xarray vms;
	atomic_t pt_tables;
	atomic64_t busy_ns[VDXG_NUM_ENGINES];
	atomic_t queued;
	atomic_t jobs;
	wait_queue_head_t queue_wait;
	spinlock_t ban_lock; /* protects @hangs, @next_hang */
	u64 hangs[VDXG_BAN_HANGS];
	unsigned int next_hang;
	atomic_t banned;
};

/**
 * struct vdxg_context - a queue of jobs on one engine (a WDDM GPU context)
 * @refcount: held by the file's table and by each job
 * @file: the owning file's state
 * @id: the id userspace knows it by
 * @entity: its scheduler entity
 * @guilty: set by the scheduler when one of its jobs hangs: banned
 * @guilty_count: resets this context caused
 * @innocent_count: resets that caught this context's jobs
 * @reset_gen: the last reset counted in @innocent_count
 * @lock: serialises arming and pushing jobs, and destruction
 * @closed: destroyed; no more jobs
 * @vm: a virtual-mode context's VM (a reference), else NULL
 * @state: a virtual-mode context's state area: a pinned 4 KiB VRAM object
 *	sharing the VM's reservation
 * @state_gpu: its VRAM offset
 * @fault: the last device fault of the context's jobs (under the render
 *	engine's fault lock), if @faulted
 * @faulted: @fault is valid
 * @gated: under @lock: the finished fence of its last gated job (a
 *	reference), or NULL (see vdxg_gate.c)
 * @free_work: frees a context of a VM, out of the fence-signalling path
 */
struct vdxg_context {
	struct kref refcount;
	struct vdxg_file *file;
	u32 id;
	struct drm_sched_entity entity;
	atomic_t guilty;
	atomic_t guilty_count;
	atomic_t innocent_count;
	u32 reset_gen;
	struct mutex lock; /* serialises job arm and push, and destruction */
	bool closed;
	struct vdxg_vm *vm;
	struct vdxg_bo *state;
	u64 state_gpu;
	struct vdxg_fault_rec fault;
	bool faulted;
	struct dma_fence *gated;
	struct work_struct free_work;
};

/**
 * struct vdxg_job - one submission on the RENDER engine
 * @base: the scheduler job
 * @ctx: its context (a reference)
 * @hw: the hardware fence for the next run_job, preallocated
 * @hw_fence: the hardware fence of the last run, for the timeout handler
 * @buf: the job's DMA buffer in the pool
 * @buf_gpu: its GPU address; for EXEC, the command buffer's virtual address
 * @len: its bytes
 * @queued: bytes charged to the file's queue (vdxg_file_queue_bytes())
 * @error: a negative errno to fail the job with instead of running it
 *	(the rest of a split submission that could not be queued), or 0
 * @null_rendering: DRM_VDXG_SUBMIT_NULL_RENDERING: done when it would run
 * @nop: its ring entry is a NOP (@error, @null_rendering, or cancelled
 *	with its context): it completes on the ring, in order with the
 *	context's other jobs, and runs again after a reset
 * @pushed: counted in the file's and the engine's jobs (vdxg_job_push())
 */
struct vdxg_job {
	struct drm_sched_job base;
	struct vdxg_context *ctx;
	struct vdxg_hw_fence *hw;
	struct dma_fence *hw_fence;
	struct drm_mm_node buf;
	u64 buf_gpu;
	u32 len;
	u32 queued;
	int error;
	bool null_rendering;
	bool nop;
	bool pushed;
};

/**
 * struct vdxg_kbuf - a command buffer the kernel built for a file
 * @ctx_id: the file's context it runs on
 * @cmds: the commands
 * @ndw: their dwords
 * @objs: the allocations' objects (the caller keeps its references)
 * @flags: DRM_VDXG_ALLOC_* of each
 * @nobjs: their number
 * @patches: the patch locations
 * @npatches: their number
 * @out_syncobj: a syncobj to receive the job's fence, or 0
 */
struct vdxg_kbuf {
	u32 ctx_id;
	const u32 *cmds;
	u32 ndw;
	struct drm_gem_object *objs[2];
	u32 flags[2];
	u32 nobjs;
	struct drm_vdxg_patch_location patches[2];
	u32 npatches;
	u32 out_syncobj;
};

int vdxg_submit_kernel(struct drm_file *file, const struct vdxg_kbuf *kb);

int vdxg_render_init(struct vdxg_device *vdxg);
void vdxg_render_unplug(struct vdxg_device *vdxg);
void vdxg_render_irq(struct vdxg_device *vdxg, u32 pending);
void vdxg_render_note_fault(struct vdxg_device *vdxg,
			    const struct vdxg_fault_rec *rec);
void vdxg_render_debugfs(struct vdxg_device *vdxg, struct drm_printer *p);

struct vdxg_job *vdxg_job_alloc(struct vdxg_context *ctx);
int vdxg_job_alloc_buf(struct vdxg_job *job, u32 size);
int vdxg_job_alloc_bufs(struct vdxg_job **jobs, const u32 *sizes, u32 n);
void vdxg_job_push(struct vdxg_job *job);
void vdxg_job_free(struct vdxg_job *job);

int vdxg_file_open(struct vdxg_device *vdxg, struct drm_file *file);
void vdxg_file_close(struct drm_file *file);
struct vdxg_context *vdxg_context_get(struct drm_file *file, u32 id);
void vdxg_context_put(struct vdxg_context *ctx);
void vdxg_file_charge_hang(struct vdxg_file *vf);
int vdxg_file_queue_bytes(struct vdxg_file *vf, u32 bytes);
void vdxg_file_unqueue_bytes(struct vdxg_file *vf, u32 bytes);
void vdxg_show_fdinfo(struct drm_printer *p, struct drm_file *file);

int vdxg_context_create_ioctl(struct drm_device *drm, void *data,
			      struct drm_file *file);
int vdxg_context_destroy_ioctl(struct drm_device *drm, void *data,
			       struct drm_file *file);
int vdxg_reset_status_ioctl(struct drm_device *drm, void *data,
			    struct drm_file *file);
int vdxg_exec_ioctl(struct drm_device *drm, void *data,
		    struct drm_file *file);
int vdxg_submit_ioctl(struct drm_device *drm, void *data,
		      struct drm_file *file);

#endif
