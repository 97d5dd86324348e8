// SPDX-License-Identifier: MIT
/*
 * libvdxg: device, buffer objects, contexts, syncobjs and submission, over
 * the vdxg ioctls and libdrm. See vdxg.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include "vdxg.h"

struct vdxg_device {
	int fd;
};

/* drmIoctl (restarts on EINTR/EAGAIN) as 0 or -errno. */
static int vioctl(int fd, unsigned long request, void *arg)
{
	return drmIoctl(fd, request, arg) ? -errno : 0;
}

/* libdrm calls return -1 with errno, or -errno: make it -errno. */
static int drm_ret(int ret)
{
	if (!ret)
		return 0;
	if (ret == -1 && errno)
		return -errno;
	return ret < 0 ? ret : -EIO;
}

/* ----------------------------------------------------------------- device */

static bool is_vdxg(int fd)
{
	drmVersionPtr v = drmGetVersion(fd);
	bool ok;

	if (!v)
		return false;
	ok = v->name && !strcmp(v->name, "vdxg");
	drmFreeVersion(v);
	return ok;
}

static int device_new(int fd, struct vdxg_device **out)
{
	struct vdxg_device *dev = calloc(1, sizeof(*dev));

	if (!dev) {
		close(fd);
		return -ENOMEM;
	}
	dev->fd = fd;
	*out = dev;
	return 0;
}

unsigned int vdxg_lib_version(void)
{
	return VDXG_LIB_VERSION;
}

int vdxg_device_open(const char *path, struct vdxg_device **out)
{
	int fd = -1, ret = -ENODEV;
	glob_t g;
	size_t i;

	*out = NULL;
	if (path) {
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (!is_vdxg(fd)) {
			close(fd);
			return -ENODEV;
		}
		return device_new(fd, out);
	}

	/* glob sorts; render minors 128-255 all have three digits. */
	if (glob("/dev/dri/renderD*", 0, NULL, &g))
		return -ENODEV;
	for (i = 0; i < g.gl_pathc; i++) {
		fd = open(g.gl_pathv[i], O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (is_vdxg(fd)) {
			ret = device_new(fd, out);
			break;
		}
		close(fd);
	}
	globfree(&g);
	return ret;
}

int vdxg_device_open_fd(int fd, struct vdxg_device **out)
{
	int nfd;

	*out = NULL;
	if (!is_vdxg(fd))
		return -ENODEV;
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (nfd < 0)
		return -errno;
	return device_new(nfd, out);
}

void vdxg_device_close(struct vdxg_device *dev)
{
	if (!dev)
		return;
	close(dev->fd);
	free(dev);
}

int vdxg_device_fd(const struct vdxg_device *dev)
{
	return dev->fd;
}

int vdxg_get_param(struct vdxg_device *dev, uint32_t param, uint64_t *value)
{
	struct drm_vdxg_get_param gp = { .param = param };
	int ret;

	ret = vioctl(dev->fd, DRM_IOCTL_VDXG_GET_PARAM, &gp);
	if (!ret)
		*value = gp.value;
	return ret;
}

/* ------------------------------------------------------- buffer objects */

static int bo_new(struct vdxg_device *dev, uint32_t handle, uint64_t size,
		  uint32_t flags, struct vdxg_bo **out)
{
	struct vdxg_bo *bo = calloc(1, sizeof(*bo));

	if (!bo)
		return -ENOMEM;
	bo->dev = dev;
	bo->handle = handle;
	bo->size = size;
	bo->flags = flags;
	*out = bo;
	return 0;
}

static int gem_close(struct vdxg_device *dev, uint32_t handle)
{
	struct drm_gem_close gc = { .handle = handle };

	return vioctl(dev->fd, DRM_IOCTL_GEM_CLOSE, &gc);
}

int vdxg_bo_create(struct vdxg_device *dev, uint64_t size,
		   const uint32_t *segments, uint32_t num_segments,
		   uint32_t flags, struct vdxg_bo **out)
{
	return vdxg_bo_create_vm(dev, size, segments, num_segments, flags, 0,
				 out);
}

int vdxg_bo_create_vm(struct vdxg_device *dev, uint64_t size,
		      const uint32_t *segments, uint32_t num_segments,
		      uint32_t flags, uint32_t vm_id, struct vdxg_bo **out)
{
	struct drm_vdxg_gem_create gc = {
		.size = size,
		.flags = flags | (vm_id ? DRM_VDXG_GEM_VM_PRIVATE : 0),
		.num_segments = num_segments,
		.vm_id = vm_id,
	};
	uint32_t i;
	int ret;

	*out = NULL;
	if (num_segments > 4 || (num_segments && !segments))
		return -EINVAL;
	for (i = 0; i < num_segments; i++)
		gc.segments[i] = segments[i];
	ret = vioctl(dev->fd, DRM_IOCTL_VDXG_GEM_CREATE, &gc);
	if (ret)
		return ret;
	ret = bo_new(dev, gc.handle, gc.size, flags, out);
	if (ret)
		gem_close(dev, gc.handle);
	return ret;
}

int vdxg_bo_from_handle(struct vdxg_device *dev, uint32_t handle,
			uint64_t size, struct vdxg_bo **out)
{
	*out = NULL;
	return bo_new(dev, handle, size, 0, out);
}

int vdxg_bo_export(struct vdxg_bo *bo, int *fd)
{
	int ret;

	*fd = -1;
	if (!bo->dev)
		return -ENODEV;
	errno = 0;
	ret = drm_ret(drmPrimeHandleToFD(bo->dev->fd, bo->handle,
					 DRM_CLOEXEC | DRM_RDWR, fd));
	if (ret)
		*fd = -1;
	return ret;
}

int vdxg_bo_import(struct vdxg_device *dev, int fd, struct vdxg_bo **out)
{
	uint32_t handle;
	off_t size;
	int ret;

	*out = NULL;
	errno = 0;
	ret = drm_ret(drmPrimeFDToHandle(dev->fd, fd, &handle));
	if (ret)
		return ret;
	/* A dma-buf's size is where a seek to its end lands. */
	size = lseek(fd, 0, SEEK_END);
	if (size < 0) {
		ret = -errno;
		gem_close(dev, handle);
		return ret;
	}
	/*
	 * Importing an object this device already has gives its handle again
	 * (GEM keeps one handle per object and file): a second vdxg_bo on it
	 * would close it under the first.
	 */
	ret = bo_new(dev, handle, (uint64_t)size, 0, out);
	if (ret)
		gem_close(dev, handle);
	return ret;
}

int vdxg_bo_map(struct vdxg_bo *bo, void **ptr)
{
	struct drm_vdxg_gem_mmap_offset mo = { .handle = bo->handle };
	void *p;
	int ret;

	if (!bo->dev)
		return -ENODEV;
	if (!bo->map) {
		if (!bo->size || bo->size > SIZE_MAX)
			return -EINVAL;
		ret = vioctl(bo->dev->fd, DRM_IOCTL_VDXG_GEM_MMAP_OFFSET, &mo);
		if (ret)
			return ret;
		p = mmap(NULL, (size_t)bo->size, PROT_READ | PROT_WRITE,
			 MAP_SHARED, bo->dev->fd, (off_t)mo.offset);
		if (p == MAP_FAILED)
			return -errno;
		bo->map = p;
	}
	if (ptr)
		*ptr = bo->map;
	return 0;
}

int vdxg_bo_unmap(struct vdxg_bo *bo)
{
	if (bo->map && munmap(bo->map, (size_t)bo->size))
		return -errno;
	bo->map = NULL;
	return 0;
}

int vdxg_bo_wait(struct vdxg_bo *bo, int64_t timeout_ns)
{
	struct drm_vdxg_gem_wait gw = {
		.handle = bo->handle,
		.timeout_ns = timeout_ns,
	};

	if (!bo->dev)
		return -ENODEV;
	return vioctl(bo->dev->fd, DRM_IOCTL_VDXG_GEM_WAIT, &gw);
}

int vdxg_bo_info(struct vdxg_bo *bo, uint32_t *segment, uint64_t *gpu_addr)
{
	struct drm_vdxg_gem_info gi = { .handle = bo->handle };
	int ret;

	if (!bo->dev)
		return -ENODEV;
	ret = vioctl(bo->dev->fd, DRM_IOCTL_VDXG_GEM_INFO, &gi);
	if (ret)
		return ret;
	if (segment)
		*segment = gi.segment;
	if (gpu_addr)
		*gpu_addr = gi.gpu_addr;
	return 0;
}

int vdxg_bo_make_resident(struct vdxg_bo *bo, uint32_t segment)
{
	struct drm_vdxg_gem_make_resident mr = {
		.handle = bo->handle,
		.segment = segment,
	};

	if (!bo->dev)
		return -ENODEV;
	return vioctl(bo->dev->fd, DRM_IOCTL_VDXG_GEM_MAKE_RESIDENT, &mr);
}

void vdxg_bo_free(struct vdxg_bo *bo)
{
	if (!bo)
		return;
	vdxg_bo_unmap(bo);
	if (bo->dev)
		gem_close(bo->dev, bo->handle);
	free(bo);
}

/* --------------------------------------------------------------- contexts */

static int context_create(struct vdxg_device *dev,
			  struct drm_vdxg_context_create *cc, uint32_t *ctx_id)
{
	int ret = vioctl(dev->fd, DRM_IOCTL_VDXG_CONTEXT_CREATE, cc);

	if (!ret)
		*ctx_id = cc->ctx_id;
	return ret;
}

int vdxg_context_create(struct vdxg_device *dev, uint32_t engine,
			uint32_t priority, uint32_t flags, uint32_t *ctx_id)
{
	struct drm_vdxg_context_create cc = {
		.engine = engine,
		.priority = priority,
		.flags = flags,
	};

	return context_create(dev, &cc, ctx_id);
}

int vdxg_context_create_vm(struct vdxg_device *dev, uint32_t priority,
			   uint32_t vm_id, uint32_t *ctx_id)
{
	struct drm_vdxg_context_create cc = {
		.engine = DRM_VDXG_ENGINE_RENDER,
		.priority = priority,
		.flags = DRM_VDXG_CONTEXT_VM,
		.vm_id = vm_id,
	};

	return context_create(dev, &cc, ctx_id);
}

int vdxg_vm_create(struct vdxg_device *dev, uint32_t flags, uint32_t *vm_id)
{
	struct drm_vdxg_vm_create vc = { .flags = flags };
	int ret;

	ret = vioctl(dev->fd, DRM_IOCTL_VDXG_VM_CREATE, &vc);
	if (!ret)
		*vm_id = vc.vm_id;
	return ret;
}

int vdxg_vm_destroy(struct vdxg_device *dev, uint32_t vm_id)
{
	struct drm_vdxg_vm_destroy vd = { .vm_id = vm_id };

	return vioctl(dev->fd, DRM_IOCTL_VDXG_VM_DESTROY, &vd);
}

int vdxg_vm_bind(struct vdxg_device *dev, uint32_t vm_id,
		 const struct drm_vdxg_vm_bind_op *ops, uint32_t num_ops,
		 const struct drm_vdxg_sync *in, uint32_t num_in,
		 const struct drm_vdxg_sync *out, uint32_t num_out)
{
	struct drm_vdxg_vm_bind vb = {
		.vm_id = vm_id,
		.num_ops = num_ops,
		.ops = (uintptr_t)ops,
		.in_syncs = (uintptr_t)in,
		.out_syncs = (uintptr_t)out,
		.num_in_syncs = num_in,
		.num_out_syncs = num_out,
	};

	return vioctl(dev->fd, DRM_IOCTL_VDXG_VM_BIND, &vb);
}

/* One operation, then wait for its page-table writes. */
static int vdxg_vm_bind_one(struct vdxg_device *dev, uint32_t vm_id,
			    const struct drm_vdxg_vm_bind_op *op)
{
	struct drm_vdxg_sync out = { 0 };
	int ret;

	ret = vdxg_syncobj_create(dev, 0, &out.handle);
	if (ret)
		return ret;
	ret = vdxg_vm_bind(dev, vm_id, op, 1, NULL, 0, &out, 1);
	if (!ret)
		ret = vdxg_syncobj_wait(dev, &out.handle, NULL, 1, INT64_MAX,
					0, NULL);
	vdxg_syncobj_destroy(dev, out.handle);
	return ret;
}

int vdxg_vm_map(struct vdxg_device *dev, uint32_t vm_id, struct vdxg_bo *bo,
		uint64_t offset, uint64_t va, uint64_t range, uint32_t flags)
{
	struct drm_vdxg_vm_bind_op op = {
		.op = DRM_VDXG_VM_BIND_OP_MAP,
		.flags = flags,
		.handle = bo->handle,
		.obj_offset = offset,
		.va = va,
		.range = range,
	};

	return vdxg_vm_bind_one(dev, vm_id, &op);
}

int vdxg_vm_unmap(struct vdxg_device *dev, uint32_t vm_id, uint64_t va,
		  uint64_t range)
{
	struct drm_vdxg_vm_bind_op op = {
		.op = DRM_VDXG_VM_BIND_OP_UNMAP,
		.va = va,
		.range = range,
	};

	return vdxg_vm_bind_one(dev, vm_id, &op);
}

int vdxg_context_destroy(struct vdxg_device *dev, uint32_t ctx_id)
{
	struct drm_vdxg_context_destroy cd = { .ctx_id = ctx_id };

	return vioctl(dev->fd, DRM_IOCTL_VDXG_CONTEXT_DESTROY, &cd);
}

int vdxg_context_reset_status(struct vdxg_device *dev, uint32_t ctx_id,
			      struct drm_vdxg_reset_status *status)
{
	memset(status, 0, sizeof(*status));
	status->ctx_id = ctx_id;
	return vioctl(dev->fd, DRM_IOCTL_VDXG_GET_RESET_STATUS, status);
}

/* --------------------------------------------------------------- syncobjs */

int vdxg_syncobj_create(struct vdxg_device *dev, uint32_t flags,
			uint32_t *handle)
{
	errno = 0;
	return drm_ret(drmSyncobjCreate(dev->fd, flags, handle));
}

int vdxg_syncobj_destroy(struct vdxg_device *dev, uint32_t handle)
{
	errno = 0;
	return drm_ret(drmSyncobjDestroy(dev->fd, handle));
}

int vdxg_syncobj_wait(struct vdxg_device *dev, const uint32_t *handles,
		      const uint64_t *points, uint32_t count,
		      int64_t abs_timeout_ns, uint32_t flags, uint32_t *first)
{
	/* libdrm's prototypes lack const; it does not write the arrays. */
	uint32_t *h = (uint32_t *)(uintptr_t)handles;
	uint64_t *p = (uint64_t *)(uintptr_t)points;

	errno = 0;
	if (points)
		return drm_ret(drmSyncobjTimelineWait(dev->fd, h, p, count,
						      abs_timeout_ns, flags,
						      first));
	return drm_ret(drmSyncobjWait(dev->fd, h, count, abs_timeout_ns, flags,
				      first));
}

int vdxg_syncobj_signal(struct vdxg_device *dev, uint32_t handle,
			uint64_t point)
{
	errno = 0;
	if (point)
		return drm_ret(drmSyncobjTimelineSignal(dev->fd, &handle,
							&point, 1));
	return drm_ret(drmSyncobjSignal(dev->fd, &handle, 1));
}

int vdxg_syncobj_reset(struct vdxg_device *dev, uint32_t handle)
{
	errno = 0;
	return drm_ret(drmSyncobjReset(dev->fd, &handle, 1));
}

int vdxg_syncobj_query(struct vdxg_device *dev, uint32_t handle,
		       uint64_t *point)
{
	errno = 0;
	return drm_ret(drmSyncobjQuery(dev->fd, &handle, point, 1));
}

int vdxg_syncobj_export_sync_file(struct vdxg_device *dev, uint32_t handle,
				  uint64_t point, int *fd)
{
	uint32_t tmp;
	int ret;

	errno = 0;
	if (!point)
		return drm_ret(drmSyncobjExportSyncFile(dev->fd, handle, fd));
	/* A timeline point goes through a temporary binary syncobj. */
	ret = vdxg_syncobj_create(dev, 0, &tmp);
	if (ret)
		return ret;
	errno = 0;
	ret = drm_ret(drmSyncobjTransfer(dev->fd, tmp, 0, handle, point, 0));
	if (!ret) {
		errno = 0;
		ret = drm_ret(drmSyncobjExportSyncFile(dev->fd, tmp, fd));
	}
	vdxg_syncobj_destroy(dev, tmp);
	return ret;
}

int vdxg_syncobj_import_sync_file(struct vdxg_device *dev, uint32_t handle,
				  uint64_t point, int fd)
{
	uint32_t tmp;
	int ret;

	errno = 0;
	if (!point)
		return drm_ret(drmSyncobjImportSyncFile(dev->fd, handle, fd));
	ret = vdxg_syncobj_create(dev, 0, &tmp);
	if (ret)
		return ret;
	errno = 0;
	ret = drm_ret(drmSyncobjImportSyncFile(dev->fd, tmp, fd));
	if (!ret) {
		errno = 0;
		ret = drm_ret(drmSyncobjTransfer(dev->fd, handle, point, tmp, 0,
						 0));
	}
	vdxg_syncobj_destroy(dev, tmp);
	return ret;
}

int64_t vdxg_timeout_abs(int64_t rel_ns)
{
	struct timespec ts;
	int64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	if (rel_ns <= 0)
		return now;
	return rel_ns > INT64_MAX - now ? INT64_MAX : now + rel_ns;
}

/* ------------------------------------------------------------- submission */

int vdxg_submit_raw(struct vdxg_device *dev, struct drm_vdxg_submit *args)
{
	return vioctl(dev->fd, DRM_IOCTL_VDXG_SUBMIT, args);
}

int vdxg_submit(struct vdxg_device *dev, uint32_t ctx_id, struct vdxg_cs *cs,
		struct vdxg_submit_opts *opts)
{
	struct drm_vdxg_submit args;
	int ret;

	memset(&args, 0, sizeof(args));
	ret = vdxg_cs_prepare_submit(cs, &args);
	if (ret)
		return ret;
	args.ctx_id = ctx_id;
	if (opts) {
		args.flags = opts->flags;
		args.in_syncs = (uintptr_t)opts->in_syncs;
		args.num_in_syncs = opts->num_in_syncs;
		args.out_syncs = (uintptr_t)opts->out_syncs;
		args.num_out_syncs = opts->num_out_syncs;
	}
	ret = vdxg_submit_raw(dev, &args);
	if (ret)
		return ret;
	vdxg_cs_complete_submit(cs);
	if (opts)
		opts->out_flags = args.out_flags;
	return 0;
}

int vdxg_exec_raw(struct vdxg_device *dev, struct drm_vdxg_exec *args)
{
	return vioctl(dev->fd, DRM_IOCTL_VDXG_EXEC, args);
}

int vdxg_exec(struct vdxg_device *dev, uint32_t ctx_id,
	      const struct vdxg_vcs *vcs, const struct vdxg_submit_opts *opts)
{
	struct drm_vdxg_exec args;

	if (vcs->err)
		return vcs->err;
	memset(&args, 0, sizeof(args));
	args.ctx_id = ctx_id;
	args.address = vcs->va;
	args.length = vdxg_vcs_length(vcs);
	if (opts) {
		if (opts->flags)
			return -EINVAL;
		args.in_syncs = (uintptr_t)opts->in_syncs;
		args.num_in_syncs = opts->num_in_syncs;
		args.out_syncs = (uintptr_t)opts->out_syncs;
		args.num_out_syncs = opts->num_out_syncs;
	}
	return vdxg_exec_raw(dev, &args);
}

/* -------------------------------------------------------------- present */

struct drm_vdxg_present_surface vdxg_present_bo(const struct vdxg_bo *bo,
						uint32_t format, uint32_t width,
						uint32_t height, uint32_t pitch,
						uint32_t offset)
{
	struct drm_vdxg_present_surface s = {
		.handle = bo->handle,
		.format = format,
		.width = width,
		.height = height,
		.pitch = pitch,
		.offset = offset,
	};

	return s;
}

struct drm_vdxg_present_surface vdxg_present_fb(uint32_t fb_id)
{
	struct drm_vdxg_present_surface s = { .fb_id = fb_id };

	return s;
}

int vdxg_present_blit(struct vdxg_device *dev, uint32_t ctx_id,
		      const struct drm_vdxg_present_surface *src,
		      const struct drm_vdxg_present_surface *dst,
		      int32_t dst_x, int32_t dst_y,
		      const struct drm_vdxg_rect *clips, uint32_t num_clips,
		      uint32_t out_syncobj)
{
	struct drm_vdxg_present p = {
		.mode = DRM_VDXG_PRESENT_BLIT,
		.ctx_id = ctx_id,
		.src = *src,
		.dst = *dst,
		.dst_x = dst_x,
		.dst_y = dst_y,
		.num_clips = num_clips,
		.out_syncobj = out_syncobj,
		.clips = (uintptr_t)clips,
	};

	return vioctl(dev->fd, DRM_IOCTL_VDXG_PRESENT, &p);
}

int vdxg_present_flip(struct vdxg_device *dev, uint32_t crtc_id,
		      uint32_t fb_id, uint32_t flags, uint64_t user_data,
		      uint32_t out_syncobj)
{
	struct drm_vdxg_present p = {
		.mode = DRM_VDXG_PRESENT_FLIP,
		.flags = flags,
		.crtc_id = crtc_id,
		.src = vdxg_present_fb(fb_id),
		.out_syncobj = out_syncobj,
		.user_data = user_data,
	};

	return vioctl(dev->fd, DRM_IOCTL_VDXG_PRESENT, &p);
}

/* --------------------------------------------------------------- errors */

/*
 * What the vdxg ioctls mean by an errno, where that says more than
 * strerror(); see uapi/drm/vdxg_drm.h.
 */
static const struct {
	int err;
	const char *msg;
} vdxg_errors[] = {
	{ EINVAL, "invalid argument: a bad command, field, flag, format, "
		  "rectangle or padding" },
	{ ERANGE, "an access outside its allocation or object" },
	{ EACCES, "not allowed: a write through an allocation without "
		  "DRM_VDXG_ALLOC_WRITE, a high-priority context without "
		  "CAP_SYS_NICE or DRM master, or a flip without DRM master" },
	{ ENOENT, "an unknown handle, framebuffer, CRTC, context or syncobj" },
	{ E2BIG, "over a limit: command size, allocations, patches, clips "
		 "(DRM_VDXG_PARAM_MAX_*) or an object larger than the commit "
		 "limit" },
	{ EIO, "the context was banned after a GPU hang or fault" },
	{ EBUSY, "busy: a flip is already pending, or the object is in use" },
	{ ETIME, "timed out" },
	{ ENOMEM, "out of memory: GPU memory in every allowed segment, the "
		  "commit limit, or kernel memory" },
	{ ENODEV, "not a vdxg device, or the device is gone" },
};

const char *vdxg_strerror(int err)
{
	size_t i;

	if (err < 0 && err != INT_MIN)
		err = -err;
	for (i = 0; i < sizeof(vdxg_errors) / sizeof(vdxg_errors[0]); i++)
		if (vdxg_errors[i].err == err)
			return vdxg_errors[i].msg;
	return strerror(err);
}
