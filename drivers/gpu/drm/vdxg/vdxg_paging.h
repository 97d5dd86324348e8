/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */
#ifndef _VDXG_PAGING_H_
#define _VDXG_PAGING_H_

#include <linux/atomic.h>
#include <linux/dma-resv.h>
#include <linux/list.h>
#include <linux/xarray.h>

#include <drm/gpu_scheduler.h>

#include "vdxg_engine.h"
#include "vdxg_pagebuf.h"

struct dma_resv;
struct ttm_operation_ctx;
struct vdxg_as_vm;
struct vdxg_device;

#define VDXG_PG_SLOTS		16
#define VDXG_PG_STAGING		4

/**
 * struct vdxg_pg_queue - a queue of paging jobs of its own (a VM's binds)
 * @entity: the scheduler entity, normal priority: its jobs run in order,
 *	independently of the other queues' jobs
 * @jobs: jobs queued and not yet run
 */
struct vdxg_pg_queue {
	struct drm_sched_entity entity;
	atomic_t jobs;
};

/**
 * struct vdxg_paging - the paging queue: engine, entity and buffer pool
 * @engine: the PAGING engine
 * @entity: kernel-priority scheduler entity of the memory manager's jobs
 *	(moves, clears) and of everything not on a &struct vdxg_pg_queue
 * @buf_gpu: GPU address of the pool of paging buffers
 * @buf_cpu: CPU mapping of the pool
 * @buf_size: bytes per paging buffer (module parameter)
 * @slot_busy: bitmap of buffers owned by jobs on the ring
 * @stats: operations and bytes emitted, by opcode
 * @passes: paging buffers submitted
 * @batches: batches (moves, binds, clears) that submitted a buffer
 * @max_passes: the most buffers one batch needed
 * @last_passes: buffers the last batch needed
 * @stats_lock: protects @stats and the counters
 * @push_lock: orders arming and pushing of jobs to @entity, which threads
 *	share (a VM's queue is flushed under the VM's reservation)
 * @staging: CPU buffers batches are built in, kept for reuse
 * @staging_busy: bitmap of @staging buffers in use by a batch
 */
struct vdxg_paging {
	struct vdxg_engine engine;
	struct drm_sched_entity entity;
	u64 buf_gpu;
	u8 __iomem *buf_cpu;
	u32 buf_size;
	unsigned long slot_busy;
	struct vdxg_pg_stats stats;
	u64 passes;
	u64 batches;
	u32 max_passes;
	u32 last_passes;
	spinlock_t stats_lock; /* protects @stats and the counters */
	struct mutex push_lock; /* arm and push of a job on @entity, as one */
	u32 *staging[VDXG_PG_STAGING];
	unsigned long staging_busy;
};

/**
 * struct vdxg_pg_batch - paging operations being built into buffers
 * @vdxg: the device
 * @pb: the buffer being filled (in @staging)
 * @staging: CPU copy of the buffer; each job keeps a copy of what it used
 * @entity: the scheduler entity the jobs go to
 * @queue: the &struct vdxg_pg_queue of @entity, or NULL
 * @resv: reservation object the first buffer waits on, or NULL
 * @fence: finished fence of the last buffer submitted, or NULL
 * @stats: what this batch emitted
 * @passes: buffers this batch submitted
 * @staging_slot: the device's @staging buffer taken, or -1 (allocated)
 * @deps: fences the next buffer submitted waits for (the first one also
 *	waits for @resv's)
 * @deferred_tables: page tables the batch unlinked (vdxg_pt_free_deferred()
 *	them once the batch's fence has signalled)
 * @as_vm: a VM whose address space the jobs run through (TRANSFER_VIRTUAL,
 *	FILL_VIRTUAL): they wait to be granted one; the VM must stay until
 *	they are done. Other operations naming a VM need none.
 */
struct vdxg_pg_batch {
	struct vdxg_device *vdxg;
	struct vdxg_pagebuf pb;
	u32 *staging;
	struct drm_sched_entity *entity;
	struct vdxg_pg_queue *queue;
	struct dma_resv *resv;
	struct dma_fence *fence;
	struct vdxg_pg_stats stats;
	u32 passes;
	int staging_slot;
	struct xarray deps;
	struct list_head deferred_tables;
	struct vdxg_as_vm *as_vm;
};

/**
 * vdxg_pg_emit - emit one operation, flushing full buffers (multipass)
 * @b: the batch
 * @op: a vdxg_pg_*() call on &b->pb; it is called again with its saved
 *	progress after each flush until it stops returning -ENOSPC
 *
 * Return: 0 or a negative errno.
 */
#define vdxg_pg_emit(b, op) ({						\
	int __ret;							\
	while ((__ret = (op)) == -ENOSPC) {				\
		__ret = vdxg_pg_batch_flush(b);				\
		if (__ret)						\
			break;						\
	}								\
	__ret;								\
})

int vdxg_paging_init(struct vdxg_device *vdxg);
void vdxg_paging_irq(struct vdxg_device *vdxg, u32 pending);
void vdxg_paging_unplug(struct vdxg_device *vdxg);

int vdxg_pg_queue_init(struct vdxg_device *vdxg, struct vdxg_pg_queue *q);
void vdxg_pg_queue_fini(struct vdxg_pg_queue *q);

int vdxg_pg_batch_begin(struct vdxg_pg_batch *b, struct vdxg_device *vdxg,
			struct dma_resv *resv);
int vdxg_pg_batch_begin_queue(struct vdxg_pg_batch *b,
			      struct vdxg_device *vdxg,
			      struct vdxg_pg_queue *q);
int vdxg_pg_batch_flush(struct vdxg_pg_batch *b);
int vdxg_pg_batch_add_resv(struct vdxg_pg_batch *b, struct dma_resv *resv,
			   enum dma_resv_usage usage);
int vdxg_pg_batch_add_dep(struct vdxg_pg_batch *b, struct dma_fence *fence);
bool vdxg_pg_may_wait(struct vdxg_device *vdxg, struct dma_fence *fence);
bool vdxg_pg_bind_pending(struct vdxg_paging *paging, struct dma_fence *fence);
int vdxg_pg_wait_queued(struct vdxg_device *vdxg, struct dma_fence *fence,
			struct ttm_operation_ctx *ctx);
int vdxg_pg_wait_queued_resv(struct vdxg_device *vdxg, struct dma_resv *resv,
			     struct ttm_operation_ctx *ctx);
struct dma_fence *vdxg_pg_batch_end(struct vdxg_pg_batch *b);
int vdxg_pg_batch_end_wait(struct vdxg_pg_batch *b, int ret);

int vdxg_paging_inject_fault(struct vdxg_device *vdxg);
void vdxg_paging_hold(struct vdxg_device *vdxg, bool hold);

#endif
