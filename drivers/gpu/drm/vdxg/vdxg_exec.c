// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/slab.h>

#include <drm/drm_exec.h>
#include <drm/drm_file.h>
#include <drm/vdxg_drm.h>

#include "vdxg_drv.h"
#include "vdxg_gate.h"
#include "vdxg_render.h"
#include "vdxg_sync.h"
#include "vdxg_vm.h"

/**
 * DOC: Submission by GPU virtual address
 *
 * DRM_IOCTL_VDXG_EXEC is WDDM 2.0's submission: a virtual-mode context
 * (CONTEXT_CREATE with a VM) queues a command buffer by its GPU virtual
 * address (DmaBufferGpuVirtualAddress). There is no allocation list, no
 * patch-location list, no kernel copy and no parsing: the ring entry
 * (EXEC_VIRTUAL) names the VM's address space, and the device's MMU
 * translates every address the commands use, so a job reaches only what
 * its VM maps. A job that touches anything else faults; the context is
 * banned as for a hang, and GET_RESET_STATUS reports the address.
 *
 * The kernel checks the arguments and that the buffer's range is mapped
 * to objects. It locks the VM and every object bound in it (drm_gpuvm's
 * drm_exec helpers), brings back objects swapped out (drm_gpuvm's evicted
 * list: they are mapped again by a paging batch the job waits for), makes
 * the job wait for the VM's binds (the VM's reservation), the objects'
 * moves (their KERNEL fences) and, for objects shared with other files or
 * devices, their other users (implicit sync), and publishes its fence
 * there (BOOKKEEP; a write for shared objects).
 *
 * The context's state area keeps its surface slots from one job to the
 * next. Patch-model and virtual-mode contexts share the engine.
 */

/* What an EXEC job costs the file's queue (see vdxg_file_queue_bytes()). */
#define VDXG_EXEC_QUEUE_COST	256

static int vdxg_exec_check_args(const struct drm_vdxg_exec *args)
{
	if (args->flags || args->pad || !args->length || args->length % 4 ||
	    args->address % 4)
		return -EINVAL;
	if (args->length > DRM_VDXG_EXEC_MAX_LENGTH)
		return -EINVAL;
	if (args->num_in_syncs > DRM_VDXG_MAX_SYNCS ||
	    args->num_out_syncs > DRM_VDXG_MAX_SYNCS)
		return -E2BIG;
	return 0;
}

static struct vdxg_job *vdxg_exec_job(struct vdxg_context *ctx,
				      struct drm_file *file,
				      const struct drm_vdxg_exec *args)
{
	struct vdxg_job *job = vdxg_job_alloc(ctx);
	int ret;

	if (!job)
		return ERR_PTR(-ENOMEM);
	job->buf_gpu = args->address;
	job->len = args->length;
	/* The owner may become the gated mark (vdxg_job_gate()). */
	ret = drm_sched_job_init(&job->base, &ctx->entity, 1, ctx,
				 file->client_id);
	if (ret) {
		vdxg_job_free(job);
		return ERR_PTR(ret);
	}
	return job;
}

static void vdxg_exec_job_fini(struct vdxg_job *job)
{
	drm_sched_job_cleanup(&job->base);
	vdxg_job_free(job);
}

/* Past the point of no return: queue the job and publish its fence. */
static void vdxg_exec_push(struct vdxg_context *ctx, struct vdxg_job *job,
			   struct drm_exec *exec, struct vdxg_sync_args *sync)
{
	struct dma_fence *fence;

	vdxg_job_gate(job);
	drm_sched_job_arm(&job->base);
	vdxg_job_gate_pushed(job);
	fence = dma_fence_get(&job->base.s_fence->finished);
	vdxg_vm_exec_fence(ctx->vm, exec, fence);
	vdxg_job_push(job);
	vdxg_sync_signal(sync, fence);
	dma_fence_put(fence);
	atomic64_inc(&ctx->file->vdxg->render.stats.execs);
}

static int vdxg_exec_run(struct vdxg_context *ctx, struct drm_file *file,
			 const struct drm_vdxg_exec *args,
			 struct vdxg_sync_args *sync)
{
	struct vdxg_vm *vm = ctx->vm;
	struct vdxg_job *job;
	struct drm_exec exec;
	int ret;

	job = vdxg_exec_job(ctx, file, args);
	if (IS_ERR(job))
		return PTR_ERR(job);
	ret = vdxg_sync_add_deps(sync, &job->base);
	if (!ret)
		ret = vdxg_file_queue_bytes(ctx->file, VDXG_EXEC_QUEUE_COST);
	if (ret) {
		vdxg_exec_job_fini(job);
		return ret;
	}
	job->queued = VDXG_EXEC_QUEUE_COST;

	mutex_lock(&vm->lock);
	ret = vdxg_vm_check_range(vm, args->address, args->length);
	drm_exec_init(&exec, DRM_EXEC_INTERRUPTIBLE_WAIT |
		      DRM_EXEC_IGNORE_DUPLICATES, 0);
	if (!ret)
		ret = vdxg_vm_exec_lock(vm, &exec, &job->base);
	if (!ret) {
		mutex_lock(&ctx->lock);
		if (ctx->closed)
			ret = -ENOENT;
		else if (atomic_read(&ctx->guilty))
			ret = -EIO;
		else
			vdxg_exec_push(ctx, job, &exec, sync);
		mutex_unlock(&ctx->lock);
	}
	drm_exec_fini(&exec);
	mutex_unlock(&vm->lock);
	if (ret)
		vdxg_exec_job_fini(job);
	return ret;
}

/**
 * vdxg_exec_ioctl - DRM_IOCTL_VDXG_EXEC
 * @drm: the device
 * @data: struct drm_vdxg_exec
 * @file: the file
 *
 * Return: 0 once the job is queued, or the errors listed with
 * &struct drm_vdxg_exec.
 */
int vdxg_exec_ioctl(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_vdxg_exec *args = data;
	struct vdxg_sync_args sync;
	struct vdxg_context *ctx;
	int ret;

	ret = vdxg_exec_check_args(args);
	if (ret)
		return ret;
	ctx = vdxg_context_get(file, args->ctx_id);
	if (!ctx)
		return -ENOENT;
	ret = -EINVAL;
	if (!ctx->vm)
		goto out;
	ret = -EIO;
	if (atomic_read(&ctx->guilty))
		goto out;

	ret = vdxg_sync_args_init(&sync, file, args->in_syncs,
				  args->num_in_syncs, args->out_syncs,
				  args->num_out_syncs);
	if (!ret)
		ret = vdxg_exec_run(ctx, file, args, &sync);
	vdxg_sync_args_fini(&sync);
out:
	vdxg_context_put(ctx);
	return ret;
}
