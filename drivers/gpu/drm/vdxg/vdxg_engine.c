// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include <drm/drm_drv.h>
#include <drm/drm_print.h>

#include "vdxg_drv.h"
#include "vdxg_engine.h"
#include "vdxg_fault.h"

/**
 * DOC: Engines
 *
 * The RENDER and PAGING engines are each fed by a ring in reserved VRAM
 * (docs/hardware.md, "Engines"). A DRM GPU scheduler sits in front of each
 * ring: it resolves a job's dependencies and calls the engine's run_job,
 * which writes one ring entry pointing at the job's buffer and returns a
 * hardware fence for the entry's seqno.
 *
 * The engine writes each completed seqno to a write-back slot and raises
 * its fence interrupt; the handler signals every pending hardware fence up
 * to that seqno. The scheduler's credit limit is the number of ring entries
 * less one, so the ring can never overflow, or lower when the engine's
 * owner has fewer buffers for its jobs (&vdxg_engine_ops.max_jobs).
 *
 * Recovery. At a timeout, the entry at the head of the ring is judged by
 * the engine's STATUS and PROGRESS (see "Hang policy"). A fault is
 * recovered at once from the fault interrupt, on the same ordered
 * workqueue as the scheduler's timeouts, so recoveries never overlap.
 * Recovery stops the scheduler and the engine, signals what completed
 * meanwhile, fails the head entry's fence, lets the engine's
 * owner blame that job, resets the engine and runs the jobs that were
 * behind it again: each entry is written to the ring again with the same
 * hardware fence and seqno, so nothing is allocated, and an entry that
 * completed before the reset is not run twice.
 */

static const char *vdxg_fence_driver_name(struct dma_fence *fence)
{
	return DRIVER_NAME;
}

static struct vdxg_engine *vdxg_fence_engine(struct dma_fence *fence)
{
	return container_of(fence->lock, struct vdxg_engine, lock);
}

static const char *vdxg_fence_timeline_name(struct dma_fence *fence)
{
	return vdxg_fence_engine(fence)->name;
}

static const struct dma_fence_ops vdxg_hw_fence_ops = {
	.get_driver_name = vdxg_fence_driver_name,
	.get_timeline_name = vdxg_fence_timeline_name,
};

static void vdxg_engine_wr(struct vdxg_engine *engine, u32 reg, u32 val)
{
	vdxg_wr(engine->vdxg, VDXG_ENGINE_BASE(engine->id) + reg, val);
}

/**
 * vdxg_engine_program - (re)start an idle engine on an empty ring
 * @engine: the engine
 */
void vdxg_engine_program(struct vdxg_engine *engine)
{
	engine->tail = 0;
	writeq(0, engine->seqno_cpu);
	vdxg_engine_wr(engine, VDXG_ENG_RESET, 1);
	vdxg_engine_wr(engine, VDXG_ENG_RING_BASE_LO,
		       lower_32_bits(engine->ring_gpu));
	vdxg_engine_wr(engine, VDXG_ENG_RING_BASE_HI,
		       upper_32_bits(engine->ring_gpu));
	vdxg_engine_wr(engine, VDXG_ENG_RING_SIZE, engine->ring_size);
	vdxg_engine_wr(engine, VDXG_ENG_RING_TAIL, 0);
	vdxg_engine_wr(engine, VDXG_ENG_FENCE_ADDR_LO,
		       lower_32_bits(engine->seqno_gpu));
	vdxg_engine_wr(engine, VDXG_ENG_FENCE_ADDR_HI,
		       upper_32_bits(engine->seqno_gpu));
	vdxg_engine_wr(engine, VDXG_ENG_CTRL, VDXG_ENG_CTRL_ENABLE);
}

static void vdxg_engine_fault_work(struct work_struct *work);

/**
 * vdxg_engine_init - program an engine's ring and start its scheduler
 * @engine: the engine
 * @vdxg: the device
 * @id: VDXG_ENGINE_*
 * @ring_gpu: GPU address of the ring
 * @ring: CPU mapping of the ring
 * @ring_size: ring bytes, a power of two
 * @seqno_gpu: GPU address of the 8-byte fence write-back slot
 * @seqno_cpu: its CPU mapping
 * @ops: the scheduler backend
 * @engine_ops: the recovery callbacks
 * @timeout: job timeout in jiffies
 *
 * Return: 0 or a negative errno.
 */
int vdxg_engine_init(struct vdxg_engine *engine, struct vdxg_device *vdxg,
		     unsigned int id, u64 ring_gpu, u8 __iomem *ring,
		     u32 ring_size, u64 seqno_gpu, u64 __iomem *seqno_cpu,
		     const struct drm_sched_backend_ops *ops,
		     const struct vdxg_engine_ops *engine_ops, long timeout)
{
	struct drm_sched_init_args args = {
		.ops = ops,
		.num_rqs = DRM_SCHED_PRIORITY_COUNT,
		.credit_limit = ring_size / VDXG_RING_ENTRY_SIZE - 1,
		.timeout = timeout,
		.name = id == VDXG_ENGINE_PAGING ? "vdxg-paging" : "vdxg-render",
		.dev = vdxg->drm.dev,
	};
	int ret;

	if (engine_ops->max_jobs)
		args.credit_limit = min(args.credit_limit, engine_ops->max_jobs);
	engine->wq = alloc_ordered_workqueue("%s-tdr", 0, args.name);
	if (!engine->wq)
		return -ENOMEM;
	engine->submit_wq = alloc_workqueue("%s", WQ_MEM_RECLAIM, 0, args.name);
	if (!engine->submit_wq) {
		destroy_workqueue(engine->wq);
		return -ENOMEM;
	}
	args.timeout_wq = engine->wq;
	args.submit_wq = engine->submit_wq;
	INIT_WORK(&engine->fault_work, vdxg_engine_fault_work);
	engine->ops = engine_ops;
	engine->vdxg = vdxg;
	engine->id = id;
	engine->name = args.name;
	engine->ring = ring;
	engine->ring_gpu = ring_gpu;
	engine->ring_size = ring_size;
	engine->seqno_cpu = seqno_cpu;
	engine->seqno_gpu = seqno_gpu;
	engine->fence_context = dma_fence_context_alloc(1);
	engine->next_seqno = 0;
	spin_lock_init(&engine->lock);
	INIT_LIST_HEAD(&engine->pending);

	vdxg_engine_program(engine);

	ret = drm_sched_init(&engine->sched, &args);
	if (ret) {
		destroy_workqueue(engine->submit_wq);
		destroy_workqueue(engine->wq);
	}
	return ret;
}

/* Fail every pending fence with @error; the hardware will not run them. */
static void vdxg_engine_cancel(struct vdxg_engine *engine, int error)
{
	struct vdxg_hw_fence *f, *next;
	unsigned long flags;

	spin_lock_irqsave(&engine->lock, flags);
	list_for_each_entry_safe(f, next, &engine->pending, link) {
		list_del(&f->link);
		dma_fence_set_error(&f->base, error);
		dma_fence_signal_locked(&f->base);
		dma_fence_put(&f->base);
	}
	spin_unlock_irqrestore(&engine->lock, flags);
}

/**
 * vdxg_engine_fini - stop an engine
 * @engine: the engine
 *
 * The scheduler is torn down first; what is still on the ring then is
 * failed with -ENODEV.
 */
void vdxg_engine_fini(struct vdxg_engine *engine)
{
	cancel_work_sync(&engine->fault_work);
	drm_sched_fini(&engine->sched);
	vdxg_engine_stop(engine);
	destroy_workqueue(engine->submit_wq);
	destroy_workqueue(engine->wq);
}

/**
 * vdxg_engine_release - free an engine's scheduler, without the hardware
 * @engine: the engine, stopped with vdxg_engine_stop() already
 */
void vdxg_engine_release(struct vdxg_engine *engine)
{
	cancel_work_sync(&engine->fault_work);
	drm_sched_fini(&engine->sched);
	destroy_workqueue(engine->submit_wq);
	destroy_workqueue(engine->wq);
}

/**
 * vdxg_engine_stop - stop an engine and fail what is on its ring
 * @engine: the engine
 *
 * The fences of the entries on the ring fail with -ENODEV. The caller
 * makes sure no new entry is emitted.
 */
void vdxg_engine_stop(struct vdxg_engine *engine)
{
	vdxg_engine_wr(engine, VDXG_ENG_CTRL, 0);
	vdxg_engine_cancel(engine, -ENODEV);
}

/* Write @f's entry at the tail and kick the engine. */
static void vdxg_engine_write_entry(struct vdxg_engine *engine,
				    const struct vdxg_hw_fence *f)
{
	u32 __iomem *entry = (u32 __iomem *)(engine->ring + engine->tail);
	u64 seqno = f->base.seqno;

	writel(f->cmd, entry + VDXG_RING_DW_CMD);
	writel(f->len, entry + VDXG_RING_DW_LENGTH);
	writel(lower_32_bits(f->addr), entry + VDXG_RING_DW_ADDR_LO);
	writel(upper_32_bits(f->addr), entry + VDXG_RING_DW_ADDR_HI);
	writel(lower_32_bits(seqno), entry + VDXG_RING_DW_SEQNO_LO);
	writel(upper_32_bits(seqno), entry + VDXG_RING_DW_SEQNO_HI);
	writel(f->context, entry + VDXG_RING_DW_CONTEXT);
	writel(f->state, entry + VDXG_RING_DW_STATE);

	engine->tail = (engine->tail + VDXG_RING_ENTRY_SIZE) &
		       (engine->ring_size - 1);
	/* The entry must be in VRAM before the engine sees the tail. */
	wmb();
	vdxg_engine_wr(engine, VDXG_ENG_RING_TAIL, engine->tail);
	vdxg_engine_wr(engine, VDXG_ENG_DOORBELL, 1);
}

/* Write the entry @f describes and make @f its pending fence. */
static struct dma_fence *vdxg_engine_emit_entry(struct vdxg_engine *engine,
						struct vdxg_hw_fence *f,
						struct drm_sched_job *job,
						u64 addr, u32 len, u32 context)
{
	unsigned long flags;

	f->job = job;
	f->addr = addr;
	f->len = len;
	f->context = context;
	spin_lock_irqsave(&engine->lock, flags);
	f->emit_ns = ktime_get_ns();
	dma_fence_init(&f->base, &vdxg_hw_fence_ops, &engine->lock,
		       engine->fence_context, ++engine->next_seqno);
	list_add_tail(&f->link, &engine->pending);
	dma_fence_get(&f->base);
	spin_unlock_irqrestore(&engine->lock, flags);

	vdxg_engine_write_entry(engine, f);
	return &f->base;
}

/**
 * vdxg_engine_emit - write one ring entry and return its hardware fence
 * @engine: the engine
 * @f: the fence, allocated by the job's creator so that run_job does not
 *	allocate; the engine takes it over
 * @job: the job it runs
 * @addr: GPU address of the buffer to run
 * @len: its length in bytes
 * @context: context id reported in faults
 *
 * Called from the scheduler's run_job only, which serialises it.
 *
 * Return: the fence, with a reference for the caller.
 */
struct dma_fence *vdxg_engine_emit(struct vdxg_engine *engine,
				   struct vdxg_hw_fence *f,
				   struct drm_sched_job *job, u64 addr, u32 len,
				   u32 context)
{
	f->cmd = VDXG_RING_CMD_EXEC;
	f->state = 0;
	return vdxg_engine_emit_entry(engine, f, job, addr, len, context);
}

/**
 * vdxg_engine_emit_virtual - emit an EXEC_VIRTUAL ring entry
 * @engine: the engine (RENDER)
 * @f: the fence, as for vdxg_engine_emit()
 * @job: the job it runs
 * @as: the address space the entry runs in
 * @addr: virtual address of the buffer to run
 * @len: its length in bytes
 * @context: context id reported in faults
 * @state: VRAM offset of the context's state area (4 KiB aligned), or 0
 *
 * Return: the fence, with a reference for the caller.
 */
struct dma_fence *vdxg_engine_emit_virtual(struct vdxg_engine *engine,
					   struct vdxg_hw_fence *f,
					   struct drm_sched_job *job, u32 as,
					   u64 addr, u32 len, u32 context,
					   u64 state)
{
	f->cmd = VDXG_RING_CMD_VIRTUAL(as);
	f->state = state >> PAGE_SHIFT;
	return vdxg_engine_emit_entry(engine, f, job, addr, len, context);
}

/**
 * vdxg_engine_resubmit - run an entry again after a reset
 * @engine: the engine
 * @fence: the hardware fence vdxg_engine_emit() returned for the job
 *
 * Called from run_job when the scheduler resubmits a job after a reset.
 * An entry that completed before the reset is not run again. Nothing is
 * allocated.
 *
 * Return: @fence, with a reference for the caller.
 */
struct dma_fence *vdxg_engine_resubmit(struct vdxg_engine *engine,
				       struct dma_fence *fence)
{
	struct vdxg_hw_fence *f = container_of(fence, struct vdxg_hw_fence,
					       base);

	if (!dma_fence_is_signaled(fence)) {
		f->emit_ns = ktime_get_ns();
		vdxg_engine_write_entry(engine, f);
	}
	return dma_fence_get(fence);
}

/**
 * vdxg_engine_cancel_fence - fail one pending hardware fence
 * @engine: the engine
 * @fence: the fence; nothing happens when it is signalled already
 * @error: its error
 *
 * For a job that the scheduler cancels instead of resubmitting.
 */
void vdxg_engine_cancel_fence(struct vdxg_engine *engine,
			      struct dma_fence *fence, int error)
{
	struct vdxg_hw_fence *f = container_of(fence, struct vdxg_hw_fence,
					       base);
	unsigned long flags;

	spin_lock_irqsave(&engine->lock, flags);
	if (!dma_fence_is_signaled_locked(fence)) {
		list_del(&f->link);
		dma_fence_set_error(fence, error);
		dma_fence_signal_locked(fence);
		dma_fence_put(fence);
	}
	spin_unlock_irqrestore(&engine->lock, flags);
}

/**
 * vdxg_engine_idle - is nothing on the ring
 * @engine: the engine
 *
 * Return: true when every emitted entry has been signalled.
 */
bool vdxg_engine_idle(struct vdxg_engine *engine)
{
	unsigned long flags;
	bool idle;

	vdxg_engine_signal(engine);
	spin_lock_irqsave(&engine->lock, flags);
	idle = list_empty(&engine->pending);
	spin_unlock_irqrestore(&engine->lock, flags);
	return idle;
}

/**
 * vdxg_engine_signal - signal the fences the engine has completed
 * @engine: the engine
 *
 * Called from the fence interrupt.
 */
void vdxg_engine_signal(struct vdxg_engine *engine)
{
	struct vdxg_hw_fence *f, *next;
	unsigned long flags;
	u64 done = readq(engine->seqno_cpu);
	u64 now = ktime_get_ns();

	spin_lock_irqsave(&engine->lock, flags);
	list_for_each_entry_safe(f, next, &engine->pending, link) {
		if (f->base.seqno > done)
			break;
		list_del(&f->link);
		/* The engine runs entries one at a time, in ring order. */
		f->busy_ns = now - max(f->emit_ns, engine->last_done_ns);
		engine->last_done_ns = now;
		dma_fence_signal_locked(&f->base);
		dma_fence_put(&f->base);
	}
	spin_unlock_irqrestore(&engine->lock, flags);
}

static u32 vdxg_engine_rd(struct vdxg_engine *engine, u32 reg)
{
	return vdxg_rd(engine->vdxg, VDXG_ENGINE_BASE(engine->id) + reg);
}

/* The oldest entry not yet completed, or NULL; with the engine's lock. */
static struct vdxg_hw_fence *vdxg_engine_head(struct vdxg_engine *engine)
{
	lockdep_assert_held(&engine->lock);
	return list_first_entry_or_null(&engine->pending, struct vdxg_hw_fence,
					link);
}

/* The verdict on the entry at the head of the ring (see "Hang policy"). */
static enum vdxg_hang_verdict vdxg_engine_hung(struct vdxg_engine *engine)
{
	struct vdxg_hw_fence *head;
	bool contended = true;
	unsigned long flags;
	u64 seqno = 0;

	vdxg_engine_signal(engine);
	spin_lock_irqsave(&engine->lock, flags);
	head = vdxg_engine_head(engine);
	if (head) {
		seqno = head->base.seqno;
		if (engine->ops->contended && head->job)
			contended = engine->ops->contended(engine, head->job);
	}
	spin_unlock_irqrestore(&engine->lock, flags);
	if (!head)
		return VDXG_HANG_RUNNING;
	return vdxg_hang_check(&engine->watch, seqno,
			       vdxg_engine_rd(engine, VDXG_ENG_STATUS),
			       vdxg_engine_rd(engine, VDXG_ENG_PROGRESS),
			       contended);
}

/* Fail the head entry and find its job; the engine is stopped. */
static struct drm_sched_job *vdxg_engine_take_head(struct vdxg_engine *engine,
						   u32 *context)
{
	struct drm_sched_job *job = NULL;
	struct vdxg_hw_fence *head;
	unsigned long flags;

	spin_lock_irqsave(&engine->lock, flags);
	head = vdxg_engine_head(engine);
	if (head) {
		job = head->job;
		*context = head->context;
		list_del(&head->link);
		dma_fence_set_error(&head->base, -EIO);
		dma_fence_signal_locked(&head->base);
		dma_fence_put(&head->base);
	}
	spin_unlock_irqrestore(&engine->lock, flags);
	return job;
}

/*
 * Reset the engine and run again what was behind the guilty entry. @bad is
 * the job the scheduler's timeout handler holds, or NULL after a fault.
 */
static void vdxg_engine_recover(struct vdxg_engine *engine,
				struct drm_sched_job *bad,
				enum vdxg_hang_verdict verdict)
{
	struct drm_sched_job *guilty;
	u32 context = 0;

	drm_sched_stop(&engine->sched, bad);
	/* Paused between slices: nothing completes behind our back. */
	vdxg_engine_wr(engine, VDXG_ENG_CTRL, 0);
	vdxg_engine_signal(engine);
	guilty = vdxg_engine_take_head(engine, &context);
	if (guilty && bad)
		vdxg_fault_log_hang(engine->vdxg, engine->id, context,
				    verdict == VDXG_HANG_TOO_LONG);
	if (guilty)
		engine->ops->blame(engine, guilty);
	atomic_inc(&engine->resets);
	engine->watch.seqno = 0;
	vdxg_engine_program(engine);
	/* run_job writes each entry again with its own fence. */
	drm_sched_resubmit_jobs(&engine->sched);
	drm_sched_start(&engine->sched);
}

/* The job the scheduler took off its list was not to blame: put it back. */
static enum drm_gpu_sched_stat
vdxg_engine_skip(struct drm_sched_job *job, enum drm_gpu_sched_stat stat)
{
	struct drm_gpu_scheduler *sched = job->sched;

	spin_lock(&sched->job_list_lock);
	list_add(&job->list, &sched->pending_list);
	spin_unlock(&sched->job_list_lock);
	return stat;
}

/**
 * vdxg_engine_timedout - the scheduler's timeout handler
 * @engine: the engine
 * @job: the oldest job on the engine, which the scheduler took off its
 *	pending list
 *
 * Return: the scheduler status to return.
 */
enum drm_gpu_sched_stat vdxg_engine_timedout(struct vdxg_engine *engine,
					     struct drm_sched_job *job)
{
	struct vdxg_device *vdxg = engine->vdxg;
	enum vdxg_hang_verdict verdict;
	int idx;

	if (!drm_dev_enter(&vdxg->drm, &idx))
		return vdxg_engine_skip(job, DRM_GPU_SCHED_STAT_ENODEV);
	atomic_inc(&engine->timeouts);
	verdict = vdxg_engine_hung(engine);
	if (verdict == VDXG_HANG_RUNNING) {
		drm_dev_exit(idx);
		return vdxg_engine_skip(job, DRM_GPU_SCHED_STAT_NOMINAL);
	}
	vdxg_engine_recover(engine, job, verdict);
	drm_dev_exit(idx);
	return DRM_GPU_SCHED_STAT_NOMINAL;
}

static void vdxg_engine_fault_work(struct work_struct *work)
{
	struct vdxg_engine *engine = container_of(work, struct vdxg_engine,
						  fault_work);
	int idx;

	if (!drm_dev_enter(&engine->vdxg->drm, &idx))
		return;
	/* A timeout may have recovered the engine already. */
	if (vdxg_engine_rd(engine, VDXG_ENG_STATUS) & VDXG_ENG_STATUS_HALTED)
		vdxg_engine_recover(engine, NULL, VDXG_HANG_HUNG);
	drm_dev_exit(idx);
}

/**
 * vdxg_engine_fault - the engine halted on a fault: recover at once
 * @engine: the engine
 *
 * Called from the fault interrupt.
 */
void vdxg_engine_fault(struct vdxg_engine *engine)
{
	queue_work(engine->wq, &engine->fault_work);
}
