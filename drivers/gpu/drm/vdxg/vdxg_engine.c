// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/slab.h>

#include "vdxg_drv.h"
#include "vdxg_engine.h"

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
 * less one, so the ring can never overflow.
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
 * @timeout: job timeout in jiffies
 *
 * Return: 0 or a negative errno.
 */
int vdxg_engine_init(struct vdxg_engine *engine, struct vdxg_device *vdxg,
		     unsigned int id, u64 ring_gpu, u8 __iomem *ring,
		     u32 ring_size, u64 seqno_gpu, u64 __iomem *seqno_cpu,
		     const struct drm_sched_backend_ops *ops, long timeout)
{
	const struct drm_sched_init_args args = {
		.ops = ops,
		.num_rqs = DRM_SCHED_PRIORITY_COUNT,
		.credit_limit = ring_size / VDXG_RING_ENTRY_SIZE - 1,
		.timeout = timeout,
		.name = id == VDXG_ENGINE_PAGING ? "vdxg-paging" : "vdxg-render",
		.dev = vdxg->drm.dev,
	};

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

	return drm_sched_init(&engine->sched, &args);
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
	drm_sched_fini(&engine->sched);
	vdxg_engine_stop(engine);
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

/**
 * vdxg_engine_emit - write one ring entry and return its hardware fence
 * @engine: the engine
 * @f: the fence, allocated by the job's creator so that run_job does not
 *	allocate; the engine takes it over
 * @addr: GPU address of the buffer to run
 * @len: its length in bytes
 * @context: context id reported in faults
 *
 * Called from the scheduler's run_job only, which serialises it.
 *
 * Return: the fence, with a reference for the caller.
 */
struct dma_fence *vdxg_engine_emit(struct vdxg_engine *engine,
				   struct vdxg_hw_fence *f, u64 addr, u32 len,
				   u32 context)
{
	u32 __iomem *entry;
	unsigned long flags;
	u64 seqno;

	spin_lock_irqsave(&engine->lock, flags);
	f->emit_ns = ktime_get_ns();
	seqno = ++engine->next_seqno;
	dma_fence_init(&f->base, &vdxg_hw_fence_ops, &engine->lock,
		       engine->fence_context, seqno);
	list_add_tail(&f->link, &engine->pending);
	dma_fence_get(&f->base);
	spin_unlock_irqrestore(&engine->lock, flags);

	entry = (u32 __iomem *)(engine->ring + engine->tail);
	writel(VDXG_RING_CMD_EXEC, entry + VDXG_RING_DW_CMD);
	writel(len, entry + VDXG_RING_DW_LENGTH);
	writel(lower_32_bits(addr), entry + VDXG_RING_DW_ADDR_LO);
	writel(upper_32_bits(addr), entry + VDXG_RING_DW_ADDR_HI);
	writel(lower_32_bits(seqno), entry + VDXG_RING_DW_SEQNO_LO);
	writel(upper_32_bits(seqno), entry + VDXG_RING_DW_SEQNO_HI);
	writel(context, entry + VDXG_RING_DW_CONTEXT);
	writel(0, entry + VDXG_RING_DW_RSVD);

	engine->tail = (engine->tail + VDXG_RING_ENTRY_SIZE) &
		       (engine->ring_size - 1);
	/* The entry must be in VRAM before the engine sees the tail. */
	wmb();
	vdxg_engine_wr(engine, VDXG_ENG_RING_TAIL, engine->tail);
	vdxg_engine_wr(engine, VDXG_ENG_DOORBELL, 1);

	return &f->base;
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

/**
 * vdxg_engine_reset - reset a hung or faulted engine
 * @engine: the engine
 *
 * The fences of the entries that were on the ring fail with -EIO; the
 * scheduler decides what to resubmit. Called with the scheduler stopped.
 */
void vdxg_engine_reset(struct vdxg_engine *engine)
{
	vdxg_engine_signal(engine);
	vdxg_engine_cancel(engine, -EIO);
	vdxg_engine_program(engine);
}
