/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */
#ifndef _VDXG_ENGINE_H_
#define _VDXG_ENGINE_H_

#include <linux/dma-fence.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <drm/gpu_scheduler.h>

#include "vdxg_hang.h"

struct vdxg_device;
struct vdxg_engine;
struct workqueue_struct;

/**
 * struct vdxg_engine_ops - what differs between the engines
 * @blame: the job at the head of the ring hung or faulted; called with the
 *	scheduler stopped, before the other jobs are run again
 * @contended: do other clients' jobs wait for the engine behind @job, the
 *	job at the head of the ring? Called under the engine's lock; NULL
 *	when the engine has one client, which is then always the case
 * @max_jobs: the most jobs (of one credit each) on the ring at once, when
 *	fewer than the ring holds; 0 for the ring's capacity
 */
struct vdxg_engine_ops {
	void (*blame)(struct vdxg_engine *engine, struct drm_sched_job *job);
	bool (*contended)(struct vdxg_engine *engine,
			  struct drm_sched_job *job);
	u32 max_jobs;
};

/**
 * struct vdxg_engine - one ring-fed engine and its scheduler
 * @vdxg: the device
 * @id: VDXG_ENGINE_*
 * @name: for fences and logs
 * @sched: the DRM GPU scheduler feeding the ring
 * @ring: CPU mapping of the ring (in reserved VRAM)
 * @ring_gpu: GPU address of the ring
 * @ring_size: ring bytes
 * @tail: software tail, byte offset
 * @seqno_cpu: CPU mapping of the fence write-back slot
 * @seqno_gpu: GPU address of the fence write-back slot
 * @fence_context: dma_fence context of the hardware fences
 * @next_seqno: seqno of the next job
 * @lock: protects @pending and is the fences' lock
 * @pending: hardware fences not yet signalled, in seqno order
 * @last_done_ns: when the engine last completed an entry
 * @ops: recovery callbacks
 * @wq: ordered queue of the scheduler's timeout work and @fault_work, so
 *	that recoveries never run concurrently
 * @submit_wq: the scheduler's run_job and free_job work, per CPU: a job
 *	pushed from an ioctl runs on that CPU once the ioctl's thread
 *	sleeps or yields, without waking another CPU
 * @fault_work: recovers the engine after a fault
 * @watch: what the last timeout saw of the entry at the head of the ring
 * @resets: recoveries so far
 * @timeouts: job timeouts so far, whatever their verdict
 */
struct vdxg_engine {
	struct vdxg_device *vdxg;
	unsigned int id;
	const char *name;
	struct drm_gpu_scheduler sched;

	u8 __iomem *ring;
	u64 ring_gpu;
	u32 ring_size;
	u32 tail;

	u64 __iomem *seqno_cpu;
	u64 seqno_gpu;

	u64 fence_context;
	u64 next_seqno;
	spinlock_t lock; /* protects @pending; the fences' lock */
	struct list_head pending;
	u64 last_done_ns;

	const struct vdxg_engine_ops *ops;
	struct workqueue_struct *wq;
	struct workqueue_struct *submit_wq;
	struct work_struct fault_work;
	struct vdxg_hang_watch watch;
	atomic_t resets;
	atomic_t timeouts;
};

/**
 * struct vdxg_hw_fence - completion of one ring entry
 * @base: the fence
 * @link: in &vdxg_engine.pending
 * @emit_ns: when the entry was written to the ring
 * @busy_ns: once signalled, the time the engine spent on the entry: from
 *	the later of @emit_ns and the previous entry's completion
 * @job: the scheduler job the entry runs; valid while the fence is pending
 * @addr: the entry's buffer, to write the entry again after a reset
 * @len: its length
 * @context: the entry's context id
 * @cmd: the entry's dword 0: VDXG_RING_CMD_* and its address space
 * @state: EXEC_VIRTUAL: the context state area's VRAM page, or 0
 */
struct vdxg_hw_fence {
	struct dma_fence base;
	struct list_head link;
	u64 emit_ns;
	u64 busy_ns;
	struct drm_sched_job *job;
	u64 addr;
	u32 len;
	u32 context;
	u32 cmd;
	u32 state;
};

int vdxg_engine_init(struct vdxg_engine *engine, struct vdxg_device *vdxg,
		     unsigned int id, u64 ring_gpu, u8 __iomem *ring,
		     u32 ring_size, u64 seqno_gpu, u64 __iomem *seqno_cpu,
		     const struct drm_sched_backend_ops *ops,
		     const struct vdxg_engine_ops *engine_ops, long timeout);
void vdxg_engine_fini(struct vdxg_engine *engine);
void vdxg_engine_release(struct vdxg_engine *engine);
void vdxg_engine_stop(struct vdxg_engine *engine);
struct dma_fence *vdxg_engine_emit(struct vdxg_engine *engine,
				   struct vdxg_hw_fence *f,
				   struct drm_sched_job *job, u64 addr, u32 len,
				   u32 context);
struct dma_fence *vdxg_engine_emit_virtual(struct vdxg_engine *engine,
					   struct vdxg_hw_fence *f,
					   struct drm_sched_job *job, u32 as,
					   u64 addr, u32 len, u32 context,
					   u64 state);
struct dma_fence *vdxg_engine_resubmit(struct vdxg_engine *engine,
				       struct dma_fence *fence);
void vdxg_engine_cancel_fence(struct vdxg_engine *engine,
			      struct dma_fence *fence, int error);
void vdxg_engine_signal(struct vdxg_engine *engine);
void vdxg_engine_program(struct vdxg_engine *engine);
bool vdxg_engine_idle(struct vdxg_engine *engine);
void vdxg_engine_fault(struct vdxg_engine *engine);
enum drm_gpu_sched_stat vdxg_engine_timedout(struct vdxg_engine *engine,
					     struct drm_sched_job *job);

#endif
