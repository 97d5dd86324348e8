/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */
#ifndef _VDXG_ENGINE_H_
#define _VDXG_ENGINE_H_

#include <linux/dma-fence.h>
#include <linux/spinlock.h>

#include <drm/gpu_scheduler.h>

struct vdxg_device;

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
};

/**
 * struct vdxg_hw_fence - completion of one ring entry
 * @base: the fence
 * @link: in &vdxg_engine.pending
 * @emit_ns: when the entry was written to the ring
 * @busy_ns: once signalled, the time the engine spent on the entry: from
 *	the later of @emit_ns and the previous entry's completion
 */
struct vdxg_hw_fence {
	struct dma_fence base;
	struct list_head link;
	u64 emit_ns;
	u64 busy_ns;
};

int vdxg_engine_init(struct vdxg_engine *engine, struct vdxg_device *vdxg,
		     unsigned int id, u64 ring_gpu, u8 __iomem *ring,
		     u32 ring_size, u64 seqno_gpu, u64 __iomem *seqno_cpu,
		     const struct drm_sched_backend_ops *ops, long timeout);
void vdxg_engine_fini(struct vdxg_engine *engine);
void vdxg_engine_stop(struct vdxg_engine *engine);
struct dma_fence *vdxg_engine_emit(struct vdxg_engine *engine,
				   struct vdxg_hw_fence *f, u64 addr, u32 len,
				   u32 context);
void vdxg_engine_signal(struct vdxg_engine *engine);
void vdxg_engine_program(struct vdxg_engine *engine);
bool vdxg_engine_idle(struct vdxg_engine *engine);
void vdxg_engine_reset(struct vdxg_engine *engine);

#endif
