// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

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
 * DMA buffers are kernel-owned: pieces of a pool in reserved VRAM, which
 * userspace cannot map, handed out by a drm_mm range allocator and freed
 * when their job is. Not drm_suballoc: it recycles the pool in order, so
 * one hung job would stall every client's SUBMIT once the allocator comes
 * round to it; drm_mm allocates around it.
 *
 * Hangs: when the job at the head of the ring makes no progress for the
 * timeout (module parameter ``job_timeout_ms``), or the engine reports a
 * fault, the engine is recovered (see "Engines"): the job's context is
 * guilty, and the other contexts' jobs, which were behind it on the ring,
 * run again. The guilty context's jobs are cancelled and the context is
 * banned: its later submissions fail with -EIO. GET_RESET_STATUS reports
 * both sides. A file whose contexts are guilty of %VDXG_BAN_HANGS resets
 * within %VDXG_BAN_WINDOW_S seconds is banned as a whole (see "Contexts").
 */

static unsigned int job_timeout_ms = 2000;
module_param(job_timeout_ms, uint, 0444);
MODULE_PARM_DESC(job_timeout_ms,
		 "Render job timeout before an engine reset, in ms (100-60000, default 2000)");

#define VDXG_RENDER_RING_SIZE	SZ_64K
#define VDXG_RENDER_POOL_ALIGN	64

static struct vdxg_job *to_vdxg_job(struct drm_sched_job *sched_job)
{
	return container_of(sched_job, struct vdxg_job, base);
}

static struct vdxg_render *to_render(struct drm_gpu_scheduler *sched)
{
	return container_of(sched, struct vdxg_render, engine.sched);
}

static struct dma_fence *vdxg_render_emit(struct drm_sched_job *sched_job)
{
	struct vdxg_job *job = to_vdxg_job(sched_job);
	struct vdxg_render *render = to_render(sched_job->sched);
	struct vdxg_engine *engine = &render->engine;
	struct dma_fence *fence;
	int idx;

	/*
	 * Run before a reset: cancelled with its context, or written again.
	 * A NOP is written again whatever its fate: it ends in ring order.
	 */
	if (job->hw_fence) {
		if (sched_job->s_fence->finished.error && !job->nop) {
			vdxg_engine_cancel_fence(engine, job->hw_fence,
						 -ECANCELED);
			return NULL;
		}
		return vdxg_engine_resubmit(engine, job->hw_fence);
	}

	if (!drm_dev_enter(&engine->vdxg->drm, &idx))
		return ERR_PTR(-ENODEV);
	/*
	 * A job that runs nothing still completes on the ring, after the
	 * context's earlier jobs, which may still run (an innocent context's
	 * when its file is banned): its fence replaces theirs in reservations
	 * (same context), and the scheduler drops a dependency on an earlier
	 * job of the same entity. A job cancelled with its context; a
	 * NULL_RENDERING job, done when it would have run; the rest of a
	 * split submission that could not be queued, failed as a piece did.
	 */
	if (sched_job->s_fence->finished.error || job->error ||
	    job->null_rendering) {
		if (job->error && !sched_job->s_fence->finished.error)
			dma_fence_set_error(&sched_job->s_fence->finished,
					    job->error);
		job->nop = true;
		fence = vdxg_engine_emit(engine, job->hw, sched_job,
					 render->pool_gpu, VDXG_RD_NOP_LEN * 4,
					 job->ctx->id);
	} else if (job->ctx->vm)
		fence = vdxg_engine_emit_virtual(engine, job->hw, sched_job,
						 vdxg_as_current(engine->vdxg,
								 &job->ctx->vm->as),
						 job->buf_gpu, job->len,
						 job->ctx->id,
						 job->ctx->state_gpu);
	else
		fence = vdxg_engine_emit(engine, job->hw, sched_job,
					 job->buf_gpu, job->len, job->ctx->id);
	job->hw = NULL;
	job->hw_fence = dma_fence_get(fence);
	drm_dev_exit(idx);
	return fence;
}

/*
 * A job of a VM context runs once its VM has an address space: the last
 * step before run_job, once every other dependency has signalled.
 */
static struct dma_fence *
vdxg_render_prepare_job(struct drm_sched_job *sched_job,
			struct drm_sched_entity *entity)
{
	struct vdxg_job *job = to_vdxg_job(sched_job);
	struct vdxg_render *render = to_render(sched_job->sched);

	if (!job->ctx->vm)
		return NULL;
	return vdxg_as_grab(render->engine.vdxg, &job->ctx->vm->as,
			    VDXG_AS_RENDER, &sched_job->s_fence->finished);
}

/* In the fence-signalling path: lockdep reports a wait for a fence there. */
static struct dma_fence *vdxg_render_run_job(struct drm_sched_job *sched_job)
{
	bool cookie = dma_fence_begin_signalling();
	struct dma_fence *fence = vdxg_render_emit(sched_job);

	dma_fence_end_signalling(cookie);
	return fence;
}

/**
 * vdxg_render_note_fault - keep the RENDER engine's fault for its job
 * @vdxg: the device
 * @rec: the fault, from the fault interrupt
 *
 * The reset that follows blames the faulting job; its context then
 * reports the fault in GET_RESET_STATUS.
 */
void vdxg_render_note_fault(struct vdxg_device *vdxg,
			    const struct vdxg_fault_rec *rec)
{
	struct vdxg_render *render = &vdxg->render;
	unsigned long flags;

	spin_lock_irqsave(&render->fault_lock, flags);
	render->fault = *rec;
	render->faulted = true;
	spin_unlock_irqrestore(&render->fault_lock, flags);
}

/*
 * The context counts one more guilty reset, and the fault, if it was this
 * context's entry, becomes the context's: under fault_lock, which
 * GET_RESET_STATUS reads them with.
 */
static void vdxg_render_blame_fault(struct vdxg_render *render,
				    struct vdxg_context *ctx)
{
	unsigned long flags;

	spin_lock_irqsave(&render->fault_lock, flags);
	atomic_inc(&ctx->guilty_count);
	if (render->faulted && render->fault.context == ctx->id) {
		ctx->fault = render->fault;
		ctx->faulted = true;
	}
	render->faulted = false;
	spin_unlock_irqrestore(&render->fault_lock, flags);
}

/*
 * The job's context is guilty: the scheduler cancels its queued jobs. Each
 * other context with jobs caught by this reset is counted innocent, once.
 * A file whose contexts keep hanging the engine is banned as a whole.
 */
static void vdxg_render_blame(struct vdxg_engine *engine,
			      struct drm_sched_job *sched_job)
{
	struct vdxg_render *render = container_of(engine, struct vdxg_render,
						  engine);
	struct vdxg_context *guilty = to_vdxg_job(sched_job)->ctx;
	struct drm_gpu_scheduler *sched = &engine->sched;
	struct drm_sched_job *s_job;

	vdxg_render_blame_fault(render, guilty);
	render->reset_gen++;
	guilty->reset_gen = render->reset_gen;
	/*
	 * hang_limit is 0: the job's entity, its context, becomes guilty.
	 * The ban comes last: GET_RESET_STATUS, reading it under fault_lock,
	 * then sees the fault and the count that go with it.
	 */
	drm_sched_increase_karma(sched_job);

	spin_lock(&sched->job_list_lock);
	list_for_each_entry(s_job, &sched->pending_list, list) {
		struct vdxg_context *ctx = to_vdxg_job(s_job)->ctx;

		if (ctx->reset_gen == render->reset_gen)
			continue;
		ctx->reset_gen = render->reset_gen;
		atomic_inc(&ctx->innocent_count);
	}
	spin_unlock(&sched->job_list_lock);
	/* Last: a file banned for it has its contexts counted first. */
	vdxg_file_charge_hang(guilty->file);
}

/* Jobs of another file are queued: the head job keeps them waiting. */
static bool vdxg_render_contended(struct vdxg_engine *engine,
				  struct drm_sched_job *sched_job)
{
	struct vdxg_render *render = container_of(engine, struct vdxg_render,
						  engine);
	struct vdxg_file *vf = to_vdxg_job(sched_job)->ctx->file;

	return atomic_read(&render->jobs) > atomic_read(&vf->jobs);
}

static enum drm_gpu_sched_stat
vdxg_render_timedout_job(struct drm_sched_job *sched_job)
{
	return vdxg_engine_timedout(&to_render(sched_job->sched)->engine,
				    sched_job);
}

/*
 * A recovery waits for free_job (drm_sched_stop()), so free_job is in the
 * fence-signalling path too: annotated, lockdep reports any lock taken
 * here that a holder may keep while waiting for a fence. (The recovery
 * itself is not annotated: drm_sched_stop() flushes run_job's work, whose
 * annotation lockdep would then see nested in the same map.)
 */
static void vdxg_render_free_job(struct drm_sched_job *sched_job)
{
	struct vdxg_job *job = to_vdxg_job(sched_job);
	struct vdxg_context *ctx = job->ctx;
	bool cookie = dma_fence_begin_signalling();

	/* Its hardware fence signals first, or was failed by a recovery. */
	WARN_ON_ONCE(job->hw_fence && !dma_fence_is_signaled(job->hw_fence));
	if (job->hw_fence && dma_fence_is_signaled(job->hw_fence) &&
	    !job->hw_fence->error)
		atomic64_add(container_of(job->hw_fence, struct vdxg_hw_fence,
					  base)->busy_ns,
			     &ctx->file->busy_ns[VDXG_ENGINE_RENDER]);
	drm_sched_job_cleanup(sched_job);
	vdxg_job_free(job);
	dma_fence_end_signalling(cookie);
}

static const struct drm_sched_backend_ops vdxg_render_sched_ops = {
	.prepare_job = vdxg_render_prepare_job,
	.run_job = vdxg_render_run_job,
	.timedout_job = vdxg_render_timedout_job,
	.free_job = vdxg_render_free_job,
};

static const struct vdxg_engine_ops vdxg_render_engine_ops = {
	.blame = vdxg_render_blame,
	.contended = vdxg_render_contended,
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

/*
 * Wait until a buffer of the pool is freed after @gen was read: the
 * allocation itself takes a mutex, which a wait condition may not.
 */
static int vdxg_job_wait_pool(struct vdxg_render *render, u32 gen)
{
	return wait_event_interruptible(render->pool_wait,
					READ_ONCE(render->pool_gen) != gen);
}

static bool vdxg_job_try_bufs(struct vdxg_render *render,
			      struct vdxg_job **jobs, const u32 *sizes, u32 n)
{
	u32 i;
	int ret = 0;

	mutex_lock(&render->pool_lock);
	for (i = 0; i < n; i++) {
		ret = drm_mm_insert_node_generic(&render->pool, &jobs[i]->buf,
						 sizes[i],
						 VDXG_RENDER_POOL_ALIGN, 0,
						 DRM_MM_INSERT_BEST);
		if (ret)
			break;
	}
	if (ret)
		while (i--)
			drm_mm_remove_node(&jobs[i]->buf);
	mutex_unlock(&render->pool_lock);
	return !ret;
}

/**
 * vdxg_job_alloc_bufs - give jobs their DMA buffers, all or none
 * @jobs: the jobs, of one context
 * @sizes: their buffers' bytes, together at most the pool's size
 * @n: their number
 *
 * The pieces of a split submission: holding some buffers while waiting
 * for more, a few such submissions could hold the whole pool and wait
 * for each other.
 *
 * Return: 0, or -ERESTARTSYS if interrupted while waiting for room.
 */
int vdxg_job_alloc_bufs(struct vdxg_job **jobs, const u32 *sizes, u32 n)
{
	struct vdxg_render *render = &jobs[0]->ctx->file->vdxg->render;
	u32 i;
	int ret;

	for (;;) {
		u32 gen = READ_ONCE(render->pool_gen);

		if (vdxg_job_try_bufs(render, jobs, sizes, n))
			break;
		ret = vdxg_job_wait_pool(render, gen);
		if (ret)
			return ret;
	}
	for (i = 0; i < n; i++) {
		jobs[i]->buf_gpu = render->pool_gpu + jobs[i]->buf.start;
		jobs[i]->len = sizes[i];
		jobs[i]->queued = sizes[i];
	}
	return 0;
}

/**
 * vdxg_job_alloc_buf - give a job its DMA buffer
 * @job: the job
 * @size: bytes, at most the pool's size
 *
 * The caller has accounted @size to the job's file. Waits while the pool
 * has no room.
 *
 * Return: 0 or -ERESTARTSYS.
 */
int vdxg_job_alloc_buf(struct vdxg_job *job, u32 size)
{
	return vdxg_job_alloc_bufs(&job, &size, 1);
}

/**
 * vdxg_job_push - hand an armed job to the scheduler
 * @job: the job
 *
 * Counts it, until it is freed, in its file's jobs and the engine's: a
 * job that runs long is judged by whether other files' jobs wait.
 */
void vdxg_job_push(struct vdxg_job *job)
{
	job->pushed = true;
	atomic_inc(&job->ctx->file->jobs);
	atomic_inc(&job->ctx->file->vdxg->render.jobs);
	drm_sched_entity_push_job(&job->base);
}

/**
 * vdxg_job_free - free a job that is not (or no longer) on the scheduler
 * @job: the job
 */
void vdxg_job_free(struct vdxg_job *job)
{
	struct vdxg_render *render = &job->ctx->file->vdxg->render;

	if (drm_mm_node_allocated(&job->buf)) {
		mutex_lock(&render->pool_lock);
		drm_mm_remove_node(&job->buf);
		WRITE_ONCE(render->pool_gen, render->pool_gen + 1);
		mutex_unlock(&render->pool_lock);
		wake_up_all(&render->pool_wait);
	}
	if (job->queued)
		vdxg_file_unqueue_bytes(job->ctx->file, job->queued);
	if (job->pushed) {
		atomic_dec(&job->ctx->file->jobs);
		atomic_dec(&render->jobs);
	}
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

static void vdxg_render_free_wq_release(struct drm_device *drm, void *arg)
{
	struct vdxg_render *render = arg;

	destroy_workqueue(render->free_wq);
}

static void vdxg_render_release(struct drm_device *drm, void *arg)
{
	struct vdxg_render *render = arg;

	vdxg_engine_release(&render->engine);
	drm_mm_takedown(&render->pool);
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

	/*
	 * Before the engine's release action, so released after it: the
	 * scheduler's last free_job may queue a context here.
	 */
	render->free_wq = alloc_workqueue("vdxg-ctx-free", WQ_UNBOUND, 0);
	if (!render->free_wq)
		return -ENOMEM;
	ret = drmm_add_action_or_reset(&vdxg->drm, vdxg_render_free_wq_release,
				       render);
	if (ret)
		return ret;

	ret = vdxg_kmem_alloc(vdxg, VDXG_RENDER_RING_SIZE, &ring_gpu, &ring);
	if (!ret)
		ret = vdxg_kmem_alloc(vdxg, SZ_4K, &seqno_gpu, &seqno);
	if (!ret)
		ret = vdxg_kmem_alloc(vdxg, VDXG_RENDER_POOL_SIZE,
				      &render->pool_gpu,
				      (void __iomem **)&render->pool_cpu);
	if (ret)
		return ret;

	/*
	 * The pool's first bytes hold a NOP: the ring entry of a job that
	 * runs nothing, so that it completes in ring order all the same.
	 */
	writel(VDXG_PG_HDR(VDXG_RD_NOP, VDXG_RD_NOP_LEN), render->pool_cpu);
	drm_mm_init(&render->pool, VDXG_RENDER_POOL_ALIGN,
		    VDXG_RENDER_POOL_SIZE - VDXG_RENDER_POOL_ALIGN);
	init_waitqueue_head(&render->pool_wait);
	spin_lock_init(&render->fault_lock);
	ret = drmm_mutex_init(&vdxg->drm, &render->pool_lock);
	if (!ret)
		ret = drmm_mutex_init(&vdxg->drm, &render->split_lock);
	if (ret) {
		drm_mm_takedown(&render->pool);
		return ret;
	}
	ret = vdxg_engine_init(&render->engine, vdxg, VDXG_ENGINE_RENDER,
			       ring_gpu, ring, VDXG_RENDER_RING_SIZE, seqno_gpu,
			       seqno, &vdxg_render_sched_ops,
			       &vdxg_render_engine_ops,
			       msecs_to_jiffies(job_timeout_ms));
	if (ret) {
		drm_mm_takedown(&render->pool);
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
	drm_printf(p, "split: %lld\n", atomic64_read(&render->stats.split));
	drm_printf(p, "pieces: %lld\n", atomic64_read(&render->stats.pieces));
	drm_printf(p, "null_rendering: %lld\n",
		   atomic64_read(&render->stats.null_rendering));
	drm_printf(p, "resets: %d\n", atomic_read(&render->engine.resets));
	drm_printf(p, "timeouts: %d\n", atomic_read(&render->engine.timeouts));
	drm_printf(p, "seqno: %llu emitted\n", render->engine.next_seqno);
	drm_puts(p, "dma buffer pool:\n");
	mutex_lock(&render->pool_lock);
	drm_mm_print(&render->pool, p);
	mutex_unlock(&render->pool_lock);
}
