// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/dma-fence.h>
#include <linux/dma-fence-unwrap.h>
#include <linux/dma-resv.h>
#include <linux/lockdep.h>
#include <linux/xarray.h>

#include <drm/gpu_scheduler.h>

#include "vdxg_drv.h"
#include "vdxg_gate.h"
#include "vdxg_paging.h"
#include "vdxg_render.h"

/**
 * DOC: work gated by a client
 *
 * A job or a bind may wait for a fence that no engine of the device will
 * signal by itself: a client's (an in-syncobj's, sw_sync's, another
 * device's), for as long as the client likes. Such work is gated, and so
 * is work that waits for gated work. Until it reaches its engine, its
 * fences on objects' reservations must hold up nobody but the client:
 * eviction passes such objects by (vdxg_resv_gated(), TTM's
 * eviction_valuable) rather than wait for them on the CPU, and so it does
 * for objects with a client's fence or another driver's in their
 * reservation.
 *
 * A gated bind is a job of a VM's paging queue that is not on the engine
 * yet: binds wait for their in-fences there (vdxg_pg_bind_pending()). A
 * render job is marked when it is pushed (vdxg_job_gate()): when one of
 * its dependencies is gated, or its context's last gated job has not
 * started (a context's jobs run in order). The mark is its scheduler
 * fence's owner, which the scheduler keeps for debugging only:
 * &vdxg_render.gated. Once a job has started, a timeout bounds it.
 */

/* May work that waits for @fence, not a container, wait for a client? */
static bool vdxg_fence_gated_one(struct vdxg_device *vdxg,
				 struct dma_fence *fence)
{
	struct drm_sched_fence *s_fence;

	if (dma_fence_is_signaled(fence))
		return false;
	s_fence = to_drm_sched_fence(fence);
	if (!s_fence)
		return true;	/* a client's fence, or another driver's */
	if (s_fence->sched == &vdxg->render.engine.sched)
		return s_fence->owner == &vdxg->render.gated &&
		       !dma_fence_is_signaled(&s_fence->scheduled);
	if (s_fence->sched == &vdxg->paging.engine.sched)
		return vdxg_pg_bind_pending(&vdxg->paging, fence);
	return true;	/* another device's scheduler */
}

/**
 * vdxg_fence_gated - may work that waits for a fence wait for a client
 * @vdxg: the device
 * @fence: the fence; a chain's or an array's are looked into
 *
 * Return: false when @fence has signalled or is the device's own work not
 * gated (a job on its engine, one queued behind work that will run, a
 * kernel move); true otherwise, any fence of another driver or device
 * included.
 */
bool vdxg_fence_gated(struct vdxg_device *vdxg, struct dma_fence *fence)
{
	struct dma_fence_unwrap iter;
	struct dma_fence *f;

	dma_fence_unwrap_for_each(f, &iter, fence) {
		if (vdxg_fence_gated_one(vdxg, f)) {
			/* The walk holds the chain's link it is on. */
			dma_fence_put(iter.chain);
			return true;
		}
	}
	return false;
}

/**
 * vdxg_resv_gated - may a move of an object wait for a client
 * @vdxg: the device
 * @resv: the object's reservation, locked
 *
 * A move waits for every fence of the reservation: for gated work of the
 * device not yet on its engine, and for any fence of a client or of
 * another driver (a sync_file imported into a shared buffer), for as long
 * as that takes.
 *
 * Return: true when one of its fences is such a fence (vdxg_fence_gated()).
 */
bool vdxg_resv_gated(struct vdxg_device *vdxg, struct dma_resv *resv)
{
	struct dma_resv_iter cursor;
	struct dma_fence *fence;

	dma_resv_assert_held(resv);
	dma_resv_for_each_fence(&cursor, resv, DMA_RESV_USAGE_BOOKKEEP, fence)
		if (vdxg_fence_gated(vdxg, fence))
			return true;
	return false;
}

/**
 * vdxg_resv_gating_fence - a fence of an object that a client holds up
 * @vdxg: the device
 * @resv: the object's reservation, locked or not
 *
 * vdxg_resv_gated() without the lock, for a caller that waits for the
 * fence with no lock held, and asks again.
 *
 * Return: such a fence (vdxg_fence_gated()), with a reference, or NULL.
 */
struct dma_fence *vdxg_resv_gating_fence(struct vdxg_device *vdxg,
					 struct dma_resv *resv)
{
	struct dma_fence *fence, *found = NULL;
	struct dma_resv_iter cursor;

	dma_resv_iter_begin(&cursor, resv, DMA_RESV_USAGE_BOOKKEEP);
	dma_resv_for_each_fence_unlocked(&cursor, fence) {
		if (vdxg_fence_gated(vdxg, fence)) {
			found = dma_fence_get(fence);
			break;
		}
	}
	dma_resv_iter_end(&cursor);
	return found;
}

/**
 * vdxg_job_gating_fence - what would make a render job gated
 * @job: the job, its dependencies added so far, not armed
 *
 * Under the context's lock. A context's last gated job that has started
 * is dropped on the way. A split submission must not be gated: its later
 * pieces evict what its earlier ones use, and eviction passes gated work
 * by. Its caller waits for this fence with no lock held, and asks again.
 *
 * Return: the context's last gated job's fence or a gated dependency,
 * with a reference, or NULL.
 */
struct dma_fence *vdxg_job_gating_fence(struct vdxg_job *job)
{
	struct vdxg_context *ctx = job->ctx;
	struct vdxg_device *vdxg = ctx->file->vdxg;
	struct dma_fence *fence;
	unsigned long i;

	lockdep_assert_held(&ctx->lock);
	if (ctx->gated) {
		if (vdxg_fence_gated(vdxg, ctx->gated))
			return dma_fence_get(ctx->gated);
		/* The last gated job has started: nothing to keep. */
		dma_fence_put(ctx->gated);
		ctx->gated = NULL;
	}
	xa_for_each(&job->base.dependencies, i, fence)
		if (vdxg_fence_gated(vdxg, fence))
			return dma_fence_get(fence);
	return NULL;
}

/**
 * vdxg_job_gate - mark a render job that may wait for a client
 * @job: the job, its dependencies all added, not yet armed
 *
 * Under the context's lock, with vdxg_job_gate_pushed() once it is armed.
 */
void vdxg_job_gate(struct vdxg_job *job)
{
	struct dma_fence *fence = vdxg_job_gating_fence(job);

	if (!fence)
		return;
	job->base.s_fence->owner = &job->ctx->file->vdxg->render.gated;
	dma_fence_put(fence);
}

/**
 * vdxg_job_gate_pushed - remember a context's last gated job
 * @job: the job, armed
 */
void vdxg_job_gate_pushed(struct vdxg_job *job)
{
	struct vdxg_context *ctx = job->ctx;

	lockdep_assert_held(&ctx->lock);
	if (job->base.s_fence->owner != &ctx->file->vdxg->render.gated)
		return;
	dma_fence_put(ctx->gated);
	ctx->gated = dma_fence_get(&job->base.s_fence->finished);
}
