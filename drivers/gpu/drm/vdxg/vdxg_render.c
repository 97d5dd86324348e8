// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/moduleparam.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include "vdxg_cmdparse.h"
#include "vdxg_drv.h"
#include "vdxg_render.h"

/**
 * DOC: Render engine
 *
 * User command buffers run on the RENDER engine. Each submission becomes a
 * &struct vdxg_job on its context's scheduler entity; the scheduler orders
 * jobs by their dependencies (syncobjs and the objects' reservations) and
 * run_job writes one ring entry pointing at the job's DMA buffer.
 *
 * DMA buffers are kernel-owned: a sub-allocator (drm_suballoc) hands out
 * pieces of a pool in reserved VRAM, which userspace cannot map. A piece
 * is recycled once its job's finished fence signals.
 *
 * Hangs: when a job runs past the timeout (module parameter
 * ``job_timeout_ms``), or the engine reports a fault, the timeout handler
 * stops the scheduler, marks the job's context guilty, resets the engine
 * and resubmits the other contexts' jobs, which were not running: the ring
 * runs entries in order and the guilty one was at its head. The guilty
 * context's jobs are cancelled and the context is banned: its later
 * submissions fail with -EIO. GET_RESET_STATUS reports both sides.
 */

static unsigned int job_timeout_ms = 2000;
module_param(job_timeout_ms, uint, 0444);
MODULE_PARM_DESC(job_timeout_ms,
		 "Render job timeout before an engine reset, in ms (100-60000, default 2000)");

#define VDXG_RENDER_RING_SIZE	SZ_64K
#define VDXG_RENDER_POOL_SIZE	SZ_1M
#define VDXG_RENDER_POOL_ALIGN	64

static struct vdxg_job *to_vdxg_job(struct drm_sched_job *sched_job)
{
	return container_of(sched_job, struct vdxg_job, base);
}

static struct vdxg_render *to_render(struct drm_gpu_scheduler *sched)
{
	return container_of(sched, struct vdxg_render, engine.sched);
}

static struct dma_fence *vdxg_render_run_job(struct drm_sched_job *sched_job)
{
	struct vdxg_job *job = to_vdxg_job(sched_job);
	struct vdxg_render *render = to_render(sched_job->sched);
	struct dma_fence *fence;
	int idx;

	/* Cancelled: a banned context, or a dependency failed. */
	if (sched_job->s_fence->finished.error)
		return NULL;

	/* Run again after a reset: the first fence is spent. */
	if (!job->hw) {
		job->hw = kzalloc(sizeof(*job->hw), GFP_KERNEL);
		if (!job->hw)
			return ERR_PTR(-ENOMEM);
	}

	if (!drm_dev_enter(&render->engine.vdxg->drm, &idx))
		return ERR_PTR(-ENODEV);

	fence = vdxg_engine_emit(&render->engine, job->hw, job->buf_gpu,
				 job->len, job->ctx->id);
	job->hw = NULL;
	dma_fence_put(job->hw_fence);
	job->hw_fence = dma_fence_get(fence);
	drm_dev_exit(idx);
	return fence;
}

/* Count each context with jobs caught by this reset, once. */
static void vdxg_render_blame(struct vdxg_render *render,
			      struct vdxg_context *guilty)
{
	struct drm_gpu_scheduler *sched = &render->engine.sched;
	struct drm_sched_job *s_job;

	render->reset_gen++;
	atomic_inc(&guilty->guilty_count);
	guilty->reset_gen = render->reset_gen;

	spin_lock(&sched->job_list_lock);
	list_for_each_entry(s_job, &sched->pending_list, list) {
		struct vdxg_context *ctx = to_vdxg_job(s_job)->ctx;

		if (ctx->reset_gen == render->reset_gen)
			continue;
		ctx->reset_gen = render->reset_gen;
		atomic_inc(&ctx->innocent_count);
	}
	spin_unlock(&sched->job_list_lock);
}

/*
 * No reset after all: the scheduler took the job off its pending list to
 * hand it to us; put it back so that it is freed as usual.
 */
static enum drm_gpu_sched_stat
vdxg_render_skip_reset(struct drm_sched_job *sched_job,
		       enum drm_gpu_sched_stat stat)
{
	struct drm_gpu_scheduler *sched = sched_job->sched;

	spin_lock(&sched->job_list_lock);
	list_add(&sched_job->list, &sched->pending_list);
	spin_unlock(&sched->job_list_lock);
	return stat;
}

static enum drm_gpu_sched_stat
vdxg_render_timedout_job(struct drm_sched_job *sched_job)
{
	struct vdxg_job *job = to_vdxg_job(sched_job);
	struct vdxg_render *render = to_render(sched_job->sched);
	struct vdxg_engine *engine = &render->engine;
	struct drm_device *drm = &engine->vdxg->drm;
	int idx;

	if (!drm_dev_enter(drm, &idx))
		return vdxg_render_skip_reset(sched_job,
					      DRM_GPU_SCHED_STAT_ENODEV);

	/* Signal what completed meanwhile, so that it is not run twice. */
	vdxg_engine_signal(engine);
	if (job->hw_fence && dma_fence_is_signaled(job->hw_fence)) {
		drm_dev_exit(idx);
		return vdxg_render_skip_reset(sched_job,
					      DRM_GPU_SCHED_STAT_NOMINAL);
	}

	drm_err_ratelimited(drm, "render job of context %u hung or faulted, resetting the engine\n",
			    job->ctx->id);
	drm_sched_stop(&engine->sched, sched_job);
	/* hang_limit is 0: the job's entity, its context, becomes guilty. */
	drm_sched_increase_karma(sched_job);
	vdxg_render_blame(render, job->ctx);
	vdxg_engine_reset(engine);
	atomic_inc(&render->resets);
	drm_sched_resubmit_jobs(&engine->sched);
	drm_sched_start(&engine->sched);
	drm_dev_exit(idx);
	return DRM_GPU_SCHED_STAT_NOMINAL;
}

static void vdxg_render_free_job(struct drm_sched_job *sched_job)
{
	struct vdxg_job *job = to_vdxg_job(sched_job);
	struct vdxg_context *ctx = job->ctx;

	if (job->hw_fence && dma_fence_is_signaled(job->hw_fence) &&
	    !job->hw_fence->error)
		atomic64_add(container_of(job->hw_fence, struct vdxg_hw_fence,
					  base)->busy_ns,
			     &ctx->file->busy_ns[VDXG_ENGINE_RENDER]);
	drm_sched_job_cleanup(sched_job);
	vdxg_job_free(job);
}

static const struct drm_sched_backend_ops vdxg_render_sched_ops = {
	.run_job = vdxg_render_run_job,
	.timedout_job = vdxg_render_timedout_job,
	.free_job = vdxg_render_free_job,
};

/**
 * vdxg_job_alloc - allocate a job for a context
 * @ctx: the context; the job takes a reference
 *
 * Return: the job, or NULL.
 */
struct vdxg_job *vdxg_job_alloc(struct vdxg_context *ctx)
{
	struct vdxg_job *job = kzalloc(sizeof(*job), GFP_KERNEL);

	if (!job)
		return NULL;
	job->hw = kzalloc(sizeof(*job->hw), GFP_KERNEL);
	if (!job->hw) {
		kfree(job);
		return NULL;
	}
	kref_get(&ctx->refcount);
	job->ctx = ctx;
	return job;
}

/**
 * vdxg_job_free - free a job that is not (or no longer) on the scheduler
 * @job: the job
 */
void vdxg_job_free(struct vdxg_job *job)
{
	if (job->buf)
		drm_suballoc_free(job->buf, NULL);
	dma_fence_put(job->hw_fence);
	kfree(job->hw);
	vdxg_context_put(job->ctx);
	kfree(job);
}

/**
 * vdxg_render_irq - handle the render engine's interrupt sources
 * @vdxg: the device
 * @pending: VDXG_INT_* bits raised
 */
void vdxg_render_irq(struct vdxg_device *vdxg, u32 pending)
{
	if (pending & VDXG_INT_RENDER_FENCE)
		vdxg_engine_signal(&vdxg->render.engine);
}

static void vdxg_render_release(struct drm_device *drm, void *arg)
{
	struct vdxg_render *render = arg;

	drm_sched_fini(&render->engine.sched);
	drm_suballoc_manager_fini(&render->pool);
}

/**
 * vdxg_render_init - start the render engine
 * @vdxg: the device
 *
 * The scheduler lives as long as the DRM device: contexts of files still
 * open after the device is unplugged keep their entities on it.
 *
 * Return: 0 or a negative errno.
 */
int vdxg_render_init(struct vdxg_device *vdxg)
{
	struct vdxg_render *render = &vdxg->render;
	u64 ring_gpu, seqno_gpu;
	void __iomem *ring, *seqno;
	int ret;

	if (!(vdxg->engines & BIT(VDXG_ENGINE_RENDER)))
		return 0;

	if (job_timeout_ms < 100 || job_timeout_ms > 60000) {
		drm_err(&vdxg->drm, "job_timeout_ms=%u is not in 100-60000\n",
			job_timeout_ms);
		return -EINVAL;
	}

	ret = vdxg_kmem_alloc(vdxg, VDXG_RENDER_RING_SIZE, &ring_gpu, &ring);
	if (!ret)
		ret = vdxg_kmem_alloc(vdxg, SZ_4K, &seqno_gpu, &seqno);
	if (!ret)
		ret = vdxg_kmem_alloc(vdxg, VDXG_RENDER_POOL_SIZE,
				      &render->pool_gpu,
				      (void __iomem **)&render->pool_cpu);
	if (ret)
		return ret;

	drm_suballoc_manager_init(&render->pool, VDXG_RENDER_POOL_SIZE,
				  VDXG_RENDER_POOL_ALIGN);
	ret = vdxg_engine_init(&render->engine, vdxg, VDXG_ENGINE_RENDER,
			       ring_gpu, ring, VDXG_RENDER_RING_SIZE, seqno_gpu,
			       seqno, &vdxg_render_sched_ops,
			       msecs_to_jiffies(job_timeout_ms));
	if (ret) {
		drm_suballoc_manager_fini(&render->pool);
		return ret;
	}
	ret = drmm_add_action_or_reset(&vdxg->drm, vdxg_render_release, render);
	if (ret)
		return ret;

	vdxg_irq_enable(vdxg, VDXG_INT_RENDER_FENCE | VDXG_INT_FAULT);
	drm_info(&vdxg->drm, "render engine: %u KiB ring, %u KiB DMA buffer pool\n",
		 VDXG_RENDER_RING_SIZE / SZ_1K, VDXG_RENDER_POOL_SIZE / SZ_1K);
	return 0;
}

/**
 * vdxg_render_unplug - stop the render engine when the device goes away
 * @vdxg: the device
 *
 * Called after drm_dev_unplug(): no run_job is writing the ring any more,
 * and none will. What is on the ring is failed with -ENODEV so that its
 * waiters wake up; the scheduler itself goes with the DRM device.
 */
void vdxg_render_unplug(struct vdxg_device *vdxg)
{
	if (!vdxg->render.engine.vdxg)
		return;
	vdxg_engine_stop(&vdxg->render.engine);
}

/**
 * vdxg_render_debugfs - print the render engine's state
 * @vdxg: the device
 * @p: where to
 */
void vdxg_render_debugfs(struct vdxg_device *vdxg, struct drm_printer *p)
{
	struct vdxg_render *render = &vdxg->render;

	if (!render->engine.vdxg) {
		drm_puts(p, "no render engine\n");
		return;
	}
	drm_printf(p, "submits: %lld\n", atomic64_read(&render->stats.submits));
	drm_printf(p, "rejected: %lld\n",
		   atomic64_read(&render->stats.rejected));
	drm_printf(p, "patched: %lld\n", atomic64_read(&render->stats.patched));
	drm_printf(p, "patch_skipped: %lld\n",
		   atomic64_read(&render->stats.skipped));
	drm_printf(p, "fields_written: %lld\n",
		   atomic64_read(&render->stats.fields));
	drm_printf(p, "resets: %d\n", atomic_read(&render->resets));
	drm_printf(p, "seqno: %llu emitted\n", render->engine.next_seqno);
	drm_puts(p, "dma buffer pool:\n");
	drm_suballoc_dump_debug_info(&render->pool, p, render->pool_gpu);
}
