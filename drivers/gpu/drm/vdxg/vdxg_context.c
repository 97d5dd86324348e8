// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/capability.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include <drm/drm_auth.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>
#include <drm/vdxg_drm.h>

#include "vdxg_bo.h"
#include "vdxg_drv.h"
#include "vdxg_hang.h"
#include "vdxg_render.h"
#include "vdxg_vm.h"

/**
 * DOC: Contexts
 *
 * A context is a queue of jobs on one engine, as a WDDM GPU context is: a
 * scheduler entity with a priority. Contexts belong to the file that made
 * them, by ids private to that file. Jobs hold a reference to their
 * context, and contexts to their file's state, so that a job finishing
 * after its file was closed still has somewhere to account its time.
 *
 * A context whose job hung the engine is guilty: the scheduler cancels its
 * queued jobs and further submissions fail with -EIO. Destroying a context
 * lets its queued jobs run.
 *
 * A new context is free, so guilt also goes to the file: one guilty of
 * %VDXG_BAN_HANGS resets within %VDXG_BAN_WINDOW_S seconds is banned.
 * All its contexts become guilty, and it can create no more contexts and
 * submit no more jobs (-EIO). A file has at most %VDXG_MAX_CONTEXTS
 * contexts (-ENOSPC), and its queued jobs hold at most
 * %VDXG_MAX_QUEUED_BYTES of the shared DMA-buffer pool: past that SUBMIT
 * waits for the file's own jobs, so that no client can fill the pool.
 */

static void vdxg_file_release(struct kref *kref)
{
	struct vdxg_file *vf = container_of(kref, struct vdxg_file, refcount);

	xa_destroy(&vf->contexts);
	kfree(vf);
}

/* A virtual-mode context's VM and state area, once no job uses them. */
static void vdxg_context_drop_vm(struct vdxg_context *ctx)
{
	if (ctx->state)
		vdxg_vm_state_destroy(ctx->vm, ctx->state);
	if (ctx->vm)
		vdxg_vm_put(ctx->vm);
}

static void vdxg_context_free(struct vdxg_context *ctx)
{
	vdxg_context_drop_vm(ctx);
	dma_fence_put(ctx->gated);
	kref_put(&ctx->file->refcount, vdxg_file_release);
	mutex_destroy(&ctx->lock);
	kfree(ctx);
}

static void vdxg_context_free_work(struct work_struct *work)
{
	vdxg_context_free(container_of(work, struct vdxg_context, free_work));
}

static void vdxg_context_release(struct kref *kref)
{
	struct vdxg_context *ctx = container_of(kref, struct vdxg_context,
						refcount);

	if (ctx->vm)
		queue_work(ctx->file->vdxg->render.free_wq, &ctx->free_work);
	else
		vdxg_context_free(ctx);
}

/**
 * vdxg_context_put - drop a context reference
 * @ctx: the context
 *
 * The last reference of a job goes in the scheduler's free_job, inside
 * the fence-signalling path: what may wait for a fence must not be done
 * there, and freeing a virtual-mode context takes its VM's reservation
 * (to unpin the state area), which holders keep while they wait for
 * fences: a recovery that waits for free_job would never end. Such a
 * context is freed from the render engine's free_wq instead, which the
 * DRM device's release drains after the scheduler's.
 */
void vdxg_context_put(struct vdxg_context *ctx)
{
	kref_put(&ctx->refcount, vdxg_context_release);
}

/**
 * vdxg_context_get - look up a context of a file
 * @file: the file
 * @id: the context id
 *
 * Return: the context with a reference, or NULL.
 */
struct vdxg_context *vdxg_context_get(struct drm_file *file, u32 id)
{
	struct vdxg_file *vf = file->driver_priv;
	struct vdxg_context *ctx;

	xa_lock(&vf->contexts);
	ctx = xa_load(&vf->contexts, id);
	if (ctx)
		kref_get(&ctx->refcount);
	xa_unlock(&vf->contexts);
	return ctx;
}

/* Let the context's queued jobs go to the engine, then drop it. */
static void vdxg_context_destroy(struct vdxg_context *ctx)
{
	mutex_lock(&ctx->lock);
	ctx->closed = true;
	mutex_unlock(&ctx->lock);
	drm_sched_entity_destroy(&ctx->entity);
	vdxg_context_put(ctx);
}

/**
 * vdxg_file_charge_hang - count a guilty reset against a file
 * @vf: the file
 *
 * The %VDXG_BAN_HANGS-th within %VDXG_BAN_WINDOW_S seconds bans the file:
 * every context it has becomes guilty, so its queued jobs are cancelled.
 */
void vdxg_file_charge_hang(struct vdxg_file *vf)
{
	struct vdxg_context *ctx;
	unsigned long id;
	bool ban;

	spin_lock(&vf->ban_lock);
	ban = vdxg_hang_ban(vf->hangs, VDXG_BAN_HANGS, &vf->next_hang,
			    ktime_get_ns(), VDXG_BAN_WINDOW_S * NSEC_PER_SEC);
	spin_unlock(&vf->ban_lock);
	if (!ban || atomic_xchg(&vf->banned, 1))
		return;

	drm_err_ratelimited(&vf->vdxg->drm,
			    "a client hung the GPU %d times in %d s: banned\n",
			    VDXG_BAN_HANGS, VDXG_BAN_WINDOW_S);
	xa_lock(&vf->contexts);
	xa_for_each(&vf->contexts, id, ctx)
		atomic_set(&ctx->guilty, 1);
	xa_unlock(&vf->contexts);
	wake_up_all(&vf->queue_wait);
}

static bool vdxg_file_try_queue(struct vdxg_file *vf, u32 bytes)
{
	int old = atomic_read(&vf->queued);

	/* A job alone may always go; the pool has room for the largest. */
	do {
		if (old && old + bytes > VDXG_MAX_QUEUED_BYTES)
			return false;
	} while (!atomic_try_cmpxchg(&vf->queued, &old, old + bytes));
	return true;
}

/* The wait condition: banned, or the bytes are taken (*queued). */
static bool vdxg_file_may_queue(struct vdxg_file *vf, u32 bytes, bool *queued)
{
	if (atomic_read(&vf->banned))
		return true;
	*queued = vdxg_file_try_queue(vf, bytes);
	return *queued;
}

/**
 * vdxg_file_queue_bytes - account a job's DMA buffer to its file
 * @vf: the file
 * @bytes: the buffer's size
 *
 * Waits while the file's queued jobs hold %VDXG_MAX_QUEUED_BYTES.
 *
 * Return: 0, -EIO once the file is banned, or -ERESTARTSYS.
 */
int vdxg_file_queue_bytes(struct vdxg_file *vf, u32 bytes)
{
	bool queued = false;
	int ret;

	ret = wait_event_interruptible(vf->queue_wait,
				       vdxg_file_may_queue(vf, bytes, &queued));
	if (ret)
		return ret;
	return queued ? 0 : -EIO;
}

/**
 * vdxg_file_unqueue_bytes - a job's DMA buffer is free again
 * @vf: the file
 * @bytes: the buffer's size
 */
void vdxg_file_unqueue_bytes(struct vdxg_file *vf, u32 bytes)
{
	atomic_sub(bytes, &vf->queued);
	wake_up_all(&vf->queue_wait);
}

/**
 * vdxg_file_open - set up a new file's state
 * @vdxg: the device
 * @file: the file
 *
 * Return: 0 or -ENOMEM.
 */
int vdxg_file_open(struct vdxg_device *vdxg, struct drm_file *file)
{
	struct vdxg_file *vf = kzalloc(sizeof(*vf), GFP_KERNEL);

	if (!vf)
		return -ENOMEM;
	vf->vdxg = vdxg;
	kref_init(&vf->refcount);
	xa_init_flags(&vf->contexts, XA_FLAGS_ALLOC1);
	xa_init_flags(&vf->vms, XA_FLAGS_ALLOC1);
	init_waitqueue_head(&vf->queue_wait);
	spin_lock_init(&vf->ban_lock);
	file->driver_priv = vf;
	return 0;
}

/**
 * vdxg_file_close - destroy a closing file's contexts
 * @file: the file
 */
void vdxg_file_close(struct drm_file *file)
{
	struct vdxg_file *vf = file->driver_priv;
	struct vdxg_context *ctx;
	unsigned long id;

	xa_for_each(&vf->contexts, id, ctx) {
		xa_erase(&vf->contexts, id);
		vdxg_context_destroy(ctx);
	}
	vdxg_vm_file_close(vf);
	kref_put(&vf->refcount, vdxg_file_release);
}

static int vdxg_priority(u32 priority, enum drm_sched_priority *out)
{
	switch (priority) {
	case DRM_VDXG_PRIORITY_LOW:
		*out = DRM_SCHED_PRIORITY_LOW;
		return 0;
	case DRM_VDXG_PRIORITY_NORMAL:
		*out = DRM_SCHED_PRIORITY_NORMAL;
		return 0;
	case DRM_VDXG_PRIORITY_HIGH:
		*out = DRM_SCHED_PRIORITY_HIGH;
		return 0;
	}
	return -EINVAL;
}

/*
 * A virtual-mode context: its VM, and its state area (WDDM's context
 * allocation), where the engine keeps its surface slots between jobs.
 */
static int vdxg_context_init_vm(struct vdxg_context *ctx,
				struct vdxg_file *vf, u32 vm_id)
{
	ctx->vm = vdxg_vm_get(vf, vm_id);
	if (!ctx->vm)
		return -ENOENT;
	return vdxg_vm_state_create(ctx->vm, &ctx->state, &ctx->state_gpu);
}

/**
 * vdxg_context_create_ioctl - DRM_IOCTL_VDXG_CONTEXT_CREATE
 * @drm: the device
 * @data: struct drm_vdxg_context_create
 * @file: the file
 *
 * Return: 0, -EINVAL for a bad engine, priority or flags, -EACCES for a
 * high priority without CAP_SYS_NICE or DRM master, -ENODEV without a
 * render engine, -EIO for a banned file, -ENOSPC when the file has
 * %VDXG_MAX_CONTEXTS contexts, -ENOMEM.
 */
int vdxg_context_create_ioctl(struct drm_device *drm, void *data,
			      struct drm_file *file)
{
	struct vdxg_device *vdxg = to_vdxg(drm);
	struct drm_vdxg_context_create *args = data;
	struct vdxg_file *vf = file->driver_priv;
	struct drm_gpu_scheduler *sched = &vdxg->render.engine.sched;
	enum drm_sched_priority prio;
	struct vdxg_context *ctx;
	u32 id;
	int ret;

	if (args->engine != DRM_VDXG_ENGINE_RENDER ||
	    args->flags & ~DRM_VDXG_CONTEXT_FLAGS || args->pad ||
	    !(args->flags & DRM_VDXG_CONTEXT_VM) != !args->vm_id ||
	    vdxg_priority(args->priority, &prio))
		return -EINVAL;
	if (!vdxg->render.engine.vdxg)
		return -ENODEV;
	if (args->priority == DRM_VDXG_PRIORITY_HIGH &&
	    !capable(CAP_SYS_NICE) && !drm_is_current_master(file))
		return -EACCES;
	if (atomic_read(&vf->banned))
		return -EIO;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	kref_init(&ctx->refcount);
	mutex_init(&ctx->lock);
	INIT_WORK(&ctx->free_work, vdxg_context_free_work);
	if (args->flags & DRM_VDXG_CONTEXT_VM) {
		ret = vdxg_context_init_vm(ctx, vf, args->vm_id);
		if (ret)
			goto err_free;
	}
	ret = drm_sched_entity_init(&ctx->entity, prio, &sched, 1,
				    &ctx->guilty);
	if (ret)
		goto err_free;

	/* Reserve the id; the context becomes visible only when complete. */
	ret = xa_alloc(&vf->contexts, &id, NULL,
		       XA_LIMIT(1, VDXG_MAX_CONTEXTS), GFP_KERNEL);
	if (ret) {
		ret = ret == -EBUSY ? -ENOSPC : ret;
		goto err_entity;
	}
	ctx->id = id;
	ctx->file = vf;
	kref_get(&vf->refcount);
	/*
	 * A ban after the check above bans this one too: either it sees the
	 * context here, or the context sees the ban (both under the lock).
	 * The slot is reserved, so the store allocates nothing.
	 */
	xa_lock(&vf->contexts);
	if (atomic_read(&vf->banned))
		atomic_set(&ctx->guilty, 1);
	__xa_store(&vf->contexts, id, ctx, GFP_NOWAIT);
	xa_unlock(&vf->contexts);
	args->ctx_id = id;
	return 0;

err_entity:
	drm_sched_entity_destroy(&ctx->entity);
err_free:
	vdxg_context_drop_vm(ctx);
	mutex_destroy(&ctx->lock);
	kfree(ctx);
	return ret;
}

/**
 * vdxg_context_destroy_ioctl - DRM_IOCTL_VDXG_CONTEXT_DESTROY
 * @drm: the device
 * @data: struct drm_vdxg_context_destroy
 * @file: the file
 *
 * Return: 0, -EINVAL for a non-zero pad, -ENOENT for an unknown context.
 */
int vdxg_context_destroy_ioctl(struct drm_device *drm, void *data,
			       struct drm_file *file)
{
	struct drm_vdxg_context_destroy *args = data;
	struct vdxg_file *vf = file->driver_priv;
	struct vdxg_context *ctx;

	if (args->pad)
		return -EINVAL;
	/*
	 * Only a complete context: an id that CONTEXT_CREATE has reserved
	 * but not yet stored loads as NULL and stays reserved.
	 */
	xa_lock(&vf->contexts);
	ctx = xa_load(&vf->contexts, args->ctx_id);
	if (ctx)
		__xa_erase(&vf->contexts, args->ctx_id);
	xa_unlock(&vf->contexts);
	if (!ctx)
		return -ENOENT;
	vdxg_context_destroy(ctx);
	return 0;
}

static void vdxg_context_status(struct vdxg_context *ctx,
				struct drm_vdxg_reset_status *args)
{
	struct vdxg_render *render = &ctx->file->vdxg->render;
	struct vdxg_fault_rec rec;
	unsigned long flags;
	bool faulted;

	/* The blame writes the fault and count first and bans last. */
	spin_lock_irqsave(&render->fault_lock, flags);
	args->flags = atomic_read(&ctx->guilty) ? DRM_VDXG_RESET_BANNED : 0;
	args->guilty = atomic_read(&ctx->guilty_count);
	args->innocent = atomic_read(&ctx->innocent_count);
	faulted = ctx->faulted;
	rec = ctx->fault;
	spin_unlock_irqrestore(&render->fault_lock, flags);
	args->fault_address = 0;
	args->fault_flags = 0;
	args->fault_reason = 0;
	if (!faulted)
		return;
	args->flags |= DRM_VDXG_RESET_FAULT;
	args->fault_address = rec.addr;
	args->fault_reason = rec.reason;
	if (rec.reason >= VDXG_FAULT_VM_NOT_PRESENT &&
	    rec.access == VDXG_ACCESS_WRITE)
		args->fault_flags = DRM_VDXG_FAULT_WRITE;
}

/**
 * vdxg_reset_status_ioctl - DRM_IOCTL_VDXG_GET_RESET_STATUS
 * @drm: the device
 * @data: struct drm_vdxg_reset_status
 * @file: the file
 *
 * Return: 0 or -ENOENT for an unknown context.
 */
int vdxg_reset_status_ioctl(struct drm_device *drm, void *data,
			    struct drm_file *file)
{
	struct drm_vdxg_reset_status *args = data;
	struct vdxg_context *ctx = vdxg_context_get(file, args->ctx_id);

	if (!ctx)
		return -ENOENT;
	vdxg_context_status(ctx, args);
	vdxg_context_put(ctx);
	return 0;
}

/*
 * Bytes of the file's objects by where they are now. The resource an
 * object points at may be freed by an eviction at any time, so this reads
 * the segment the object records under its reservation at each move, not
 * the resource.
 */
static void vdxg_fdinfo_memory(struct drm_file *file, u64 *bytes)
{
	struct drm_gem_object *obj;
	int id;

	spin_lock(&file->table_lock);
	idr_for_each_entry(&file->object_idr, obj, id) {
		struct ttm_buffer_object *tbo =
			container_of(obj, struct ttm_buffer_object, base);
		u32 mem_type = READ_ONCE(to_vdxg_bo(tbo)->mem_type);

		if (mem_type < TTM_NUM_MEM_TYPES)
			bytes[mem_type] += obj->size;
	}
	spin_unlock(&file->table_lock);
}

/**
 * vdxg_show_fdinfo - the driver's keys in /proc/PID/fdinfo
 * @p: where to
 * @file: the file
 *
 * drm-engine-render is the time the file's finished jobs spent on the
 * engine; drm-memory-{vram,gtt,cpu} are the bytes of its objects by
 * segment (aperture is "gtt", system memory "cpu").
 */
void vdxg_show_fdinfo(struct drm_printer *p, struct drm_file *file)
{
	struct vdxg_file *vf = file->driver_priv;
	u64 bytes[TTM_NUM_MEM_TYPES] = {};

	drm_printf(p, "drm-engine-render:\t%llu ns\n",
		   atomic64_read(&vf->busy_ns[VDXG_ENGINE_RENDER]));
	vdxg_fdinfo_memory(file, bytes);
	drm_printf(p, "drm-memory-vram:\t%llu KiB\n", bytes[TTM_PL_VRAM] / SZ_1K);
	drm_printf(p, "drm-memory-gtt:\t%llu KiB\n", bytes[TTM_PL_TT] / SZ_1K);
	drm_printf(p, "drm-memory-cpu:\t%llu KiB\n", bytes[TTM_PL_SYSTEM] / SZ_1K);
}
