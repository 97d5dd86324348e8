/* SPDX-License-Identifier: MIT */
/*
 * libvdxg: userspace access to vdxg devices, in the manner of libdrm's
 * driver libraries.
 *
 *	struct vdxg_device *dev;
 *	struct vdxg_bo *dst;
 *	struct vdxg_cs *cs;
 *	uint32_t ctx, seg[] = { DRM_VDXG_SEGMENT_VRAM };
 *
 *	vdxg_device_open(NULL, &dev);		// first vdxg render node
 *	vdxg_bo_create(dev, 64 * 64 * 4, seg, 1, 0, &dst);
 *	vdxg_context_create(dev, DRM_VDXG_ENGINE_RENDER,
 *			    DRM_VDXG_PRIORITY_NORMAL, 0, &ctx);
 *	vdxg_cs_create(&cs);
 *	vdxg_cs_set_surface(cs, VDXG_SLOT_DST, dst, 0, DRM_VDXG_ALLOC_WRITE,
 *			    VDXG_FMT_XRGB8888, 64, 64, 256);
 *	vdxg_cs_fill_rect(cs, 0, 0, 64, 64, 0xff0000ff);
 *	vdxg_submit(dev, ctx, cs, NULL);
 *	vdxg_bo_wait(dst, INT64_MAX);
 *
 * Conventions: functions return 0 or a negative errno and never abort;
 * objects are returned through a last pointer argument. Nothing is thread
 * safe: one thread at a time per device, command stream and buffer object.
 *
 * Four layers:
 * - device, buffer objects, contexts, syncobjs: thin wrappers over the
 *   vdxg ioctls (uapi/drm/vdxg_drm.h) and libdrm;
 * - the command-stream builder (vdxg_cs_*): a growable RENDER command
 *   buffer that records the allocation list and the patch locations of
 *   every address field as commands are emitted. It makes no system call
 *   and can be used (and is unit-tested) without a device; its buffer
 *   objects can be plain structures naming a GEM handle;
 * - submission (vdxg_submit): the SUBMIT ioctl over a builder;
 * - the 3D pipeline's shader programs (vdxg_asm, vdxg_disasm,
 *   vdxg_program_check): text to binary and back, no device.
 *
 * Formats, slots and draw flags are the hardware's: include vdxg_hw.h for
 * VDXG_FMT_*, VDXG_SLOT_*, VDXG_DRAW_* (define BIT() and BIT_ULL() first).
 */
#ifndef VDXG_H
#define VDXG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vdxg_drm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- version */

/*
 * The API's version. MAJOR changes when a change breaks existing callers
 * (it is the shared library's soname, libvdxg.so.MAJOR); MINOR when
 * functions are added (their symbols get the version node VDXG_MAJOR.MINOR
 * of libvdxg.map); MICRO for fixes. The Makefile and the pkg-config file
 * take the version from here.
 */
#define VDXG_LIB_VERSION_MAJOR	0
#define VDXG_LIB_VERSION_MINOR	1
#define VDXG_LIB_VERSION_MICRO	0
#define VDXG_LIB_VERSION_ENCODE(major, minor, micro) \
	(((major) << 16) | ((minor) << 8) | (micro))
#define VDXG_LIB_VERSION VDXG_LIB_VERSION_ENCODE(VDXG_LIB_VERSION_MAJOR, \
					 VDXG_LIB_VERSION_MINOR, VDXG_LIB_VERSION_MICRO)

/*
 * The version of the library running, VDXG_LIB_VERSION_ENCODE()d: compare it
 * with VDXG_LIB_VERSION, the one compiled against, to require a newer one.
 */
unsigned int vdxg_lib_version(void);

/* ----------------------------------------------------------------- device */

struct vdxg_device;

/*
 * Open PATH, or with PATH NULL the first render node (/dev/dri/renderD*,
 * in numeric order) whose driver is "vdxg". -ENODEV when PATH's driver is
 * not vdxg or when there is no vdxg render node.
 */
int vdxg_device_open(const char *path, struct vdxg_device **out);
/* Wrap an open DRM fd (checked to be vdxg); the device dup()s it. */
int vdxg_device_open_fd(int fd, struct vdxg_device **out);
/* Close the device. Its buffer objects must have been freed. */
void vdxg_device_close(struct vdxg_device *dev);
int vdxg_device_fd(const struct vdxg_device *dev);
/* DRM_IOCTL_VDXG_GET_PARAM: PARAM is an enum drm_vdxg_param. */
int vdxg_get_param(struct vdxg_device *dev, uint32_t param, uint64_t *value);

/* ------------------------------------------------------- buffer objects */

/*
 * A GEM object. The public fields may be read; a builder-only user (no
 * device) may also set up a zeroed structure with just handle and size.
 */
struct vdxg_bo {
	struct vdxg_device *dev;	/* NULL: a handle only (no ioctls) */
	uint32_t handle;		/* GEM handle */
	uint32_t flags;			/* DRM_VDXG_GEM_* it was created with */
	uint64_t size;			/* bytes, page rounded by the kernel */
	/*
	 * The GPU address the last successful submit using this object
	 * reported for it (0 before): what the builder writes into address
	 * fields and presumes in the allocation list, so that the kernel can
	 * skip patching while the object does not move.
	 */
	uint64_t gpu_addr;
	void *map;			/* the CPU mapping, or NULL */
};

/*
 * DRM_IOCTL_VDXG_GEM_CREATE. SEGMENTS lists DRM_VDXG_SEGMENT_* in order
 * of preference (1 to DRM_VDXG_MAX_SEGMENTS entries, passed as given);
 * FLAGS are DRM_VDXG_GEM_*. bo->size is the size the kernel rounded to.
 */
int vdxg_bo_create(struct vdxg_device *dev, uint64_t size,
		   const uint32_t *segments, uint32_t num_segments,
		   uint32_t flags, struct vdxg_bo **out);
/*
 * An object private to VM_ID (DRM_VDXG_GEM_VM_PRIVATE): it shares the
 * VM's reservation, binds in that VM only and cannot be exported. VM_ID 0
 * is vdxg_bo_create.
 */
int vdxg_bo_create_vm(struct vdxg_device *dev, uint64_t size,
		      const uint32_t *segments, uint32_t num_segments,
		      uint32_t flags, uint32_t vm_id, struct vdxg_bo **out);
/* Wrap an existing GEM handle of DEV (it is closed by vdxg_bo_free). */
int vdxg_bo_from_handle(struct vdxg_device *dev, uint32_t handle,
			uint64_t size, struct vdxg_bo **out);
/*
 * Map the whole object (GEM_MMAP_OFFSET, then mmap shared read-write).
 * The mapping is kept in bo->map and returned again by later calls until
 * vdxg_bo_unmap or vdxg_bo_free.
 */
int vdxg_bo_map(struct vdxg_bo *bo, void **ptr);
int vdxg_bo_unmap(struct vdxg_bo *bo);
/*
 * DRM_IOCTL_VDXG_GEM_WAIT: TIMEOUT_NS relative; 0 polls (-EBUSY when busy),
 * -ETIME when the timeout expires.
 */
int vdxg_bo_wait(struct vdxg_bo *bo, int64_t timeout_ns);
/* DRM_IOCTL_VDXG_GEM_INFO: current segment and GPU address (either NULL). */
int vdxg_bo_info(struct vdxg_bo *bo, uint32_t *segment, uint64_t *gpu_addr);
/* DRM_IOCTL_VDXG_GEM_MAKE_RESIDENT into SEGMENT. */
int vdxg_bo_make_resident(struct vdxg_bo *bo, uint32_t segment);
/* Unmap, GEM_CLOSE and free. NULL is a no-op. */
void vdxg_bo_free(struct vdxg_bo *bo);
/*
 * PRIME: export the object as a dma-buf fd (close-on-exec, read-write),
 * or import a dma-buf (its size from lseek). Importing an object this
 * device exported gives the handle it already has: keep one vdxg_bo per
 * handle (freeing either closes it). A dma-buf another vdxg_device of the
 * same GPU exported is imported as that same object, which stays in its
 * segment; one of another driver becomes an object of the aperture only.
 */
int vdxg_bo_export(struct vdxg_bo *bo, int *fd);
int vdxg_bo_import(struct vdxg_device *dev, int fd, struct vdxg_bo **out);

/* --------------------------------------------------------------- contexts */

/* DRM_IOCTL_VDXG_CONTEXT_CREATE: DRM_VDXG_ENGINE_*, DRM_VDXG_PRIORITY_*. */
int vdxg_context_create(struct vdxg_device *dev, uint32_t engine,
			uint32_t priority, uint32_t flags, uint32_t *ctx_id);
int vdxg_context_destroy(struct vdxg_device *dev, uint32_t ctx_id);
/*
 * A virtual-mode RENDER context running in VM_ID (DRM_VDXG_CONTEXT_VM):
 * it takes EXEC only, and keeps its surface slots from one job to the next.
 */
int vdxg_context_create_vm(struct vdxg_device *dev, uint32_t priority,
			   uint32_t vm_id, uint32_t *ctx_id);
/* DRM_IOCTL_VDXG_GET_RESET_STATUS; status->ctx_id is set from CTX_ID. */
int vdxg_context_reset_status(struct vdxg_device *dev, uint32_t ctx_id,
			      struct drm_vdxg_reset_status *status);

/* ------------------------------------------------ GPU virtual memory */

/* DRM_IOCTL_VDXG_VM_CREATE / VM_DESTROY: a GPU virtual address space. */
int vdxg_vm_create(struct vdxg_device *dev, uint32_t flags, uint32_t *vm_id);
int vdxg_vm_destroy(struct vdxg_device *dev, uint32_t vm_id);
/*
 * DRM_IOCTL_VDXG_VM_BIND: NUM_OPS operations (DRM_VDXG_VM_BIND_OP_*),
 * applied in order once IN (an array of NUM_IN, or NULL) has signalled;
 * OUT (NUM_OUT) receives the fence of the page-table writes.
 */
int vdxg_vm_bind(struct vdxg_device *dev, uint32_t vm_id,
		 const struct drm_vdxg_vm_bind_op *ops, uint32_t num_ops,
		 const struct drm_vdxg_sync *in, uint32_t num_in,
		 const struct drm_vdxg_sync *out, uint32_t num_out);
/* One MAP of BO's [OFFSET, OFFSET + RANGE) at VA, or one UNMAP, waited. */
int vdxg_vm_map(struct vdxg_device *dev, uint32_t vm_id, struct vdxg_bo *bo,
		uint64_t offset, uint64_t va, uint64_t range, uint32_t flags);
int vdxg_vm_unmap(struct vdxg_device *dev, uint32_t vm_id, uint64_t va,
		  uint64_t range);

/* --------------------------------------------------------------- syncobjs */

/* Thin wrappers over libdrm's drmSyncobj*: see xf86drm.h for the flags. */
int vdxg_syncobj_create(struct vdxg_device *dev, uint32_t flags,
			uint32_t *handle);
int vdxg_syncobj_destroy(struct vdxg_device *dev, uint32_t handle);
/*
 * Wait for COUNT syncobjs; POINTS NULL for binary syncobjs, else the
 * timeline points. ABS_TIMEOUT_NS is absolute CLOCK_MONOTONIC (see
 * vdxg_timeout_abs); FLAGS DRM_SYNCOBJ_WAIT_FLAGS_*. FIRST (may be NULL)
 * receives the first signalled index. -ETIME on timeout.
 */
int vdxg_syncobj_wait(struct vdxg_device *dev, const uint32_t *handles,
		      const uint64_t *points, uint32_t count,
		      int64_t abs_timeout_ns, uint32_t flags, uint32_t *first);
/* Signal (POINT 0: a binary syncobj) / reset / query the timeline value. */
int vdxg_syncobj_signal(struct vdxg_device *dev, uint32_t handle,
			uint64_t point);
int vdxg_syncobj_reset(struct vdxg_device *dev, uint32_t handle);
int vdxg_syncobj_query(struct vdxg_device *dev, uint32_t handle,
		       uint64_t *point);
/* Export the fence at POINT (0: binary) as a sync_file fd / import one. */
int vdxg_syncobj_export_sync_file(struct vdxg_device *dev, uint32_t handle,
				  uint64_t point, int *fd);
int vdxg_syncobj_import_sync_file(struct vdxg_device *dev, uint32_t handle,
				  uint64_t point, int fd);
/* CLOCK_MONOTONIC now plus REL_NS (saturating), for the waits above. */
int64_t vdxg_timeout_abs(int64_t rel_ns);

/* ------------------------------------------------- command-stream builder */

struct vdxg_cs;

int vdxg_cs_create(struct vdxg_cs **out);
void vdxg_cs_free(struct vdxg_cs *cs);
/* Empty the buffer and the lists (capacity is kept), clear the error. */
void vdxg_cs_reset(struct vdxg_cs *cs);
/*
 * The first error an emit function returned since the last reset (0 if
 * none). vdxg_submit refuses a builder with an error, so that a sequence
 * of emits can be checked once.
 */
int vdxg_cs_error(const struct vdxg_cs *cs);

/* The command buffer: its dwords and their count. */
const uint32_t *vdxg_cs_dwords(const struct vdxg_cs *cs);
uint32_t vdxg_cs_num_dwords(const struct vdxg_cs *cs);
/*
 * The allocation list and the patch-location list as they will be
 * submitted. The pointers are valid until the next call that changes cs.
 */
const struct drm_vdxg_allocation *
vdxg_cs_allocations(const struct vdxg_cs *cs, uint32_t *count);
const struct drm_vdxg_patch_location *
vdxg_cs_patches(const struct vdxg_cs *cs, uint32_t *count);

/*
 * Commands. Each one that takes a GPU address takes the buffer object, a
 * byte offset into it and the allocation flags its use needs
 * (DRM_VDXG_ALLOC_WRITE when the command writes it, else 0). The builder
 * then
 * - adds the object to the allocation list once per builder (by handle),
 *   ORing in the flags of every use, presuming bo->gpu_addr as it was at
 *   the object's first use in this builder;
 * - writes that presumed address plus OFFSET into the address field;
 * - records a patch location naming the field (patch_offset, in bytes),
 *   the allocation and OFFSET, with slot_id the surface slot for
 *   SET_SURFACE and 0 otherwise.
 * Values are encoded as given (the kernel validates them), except that a
 * rectangle's x, y, w and h must fit 16 bits (-EINVAL).
 */
int vdxg_cs_nop(struct vdxg_cs *cs);
/*
 * The next command starts a piece where the kernel may cut the buffer if
 * its allocations cannot be resident together: the split offset of the
 * next address field the builder records (D3DDDI_PATCHLOCATIONLIST's
 * SplitOffset). Mark it before the commands that set up a new target, so
 * that a piece needs what it draws into and what it reads, not the whole
 * buffer's objects. A split point with no address field after it is
 * dropped; one at the start of the buffer splits nothing.
 */
int vdxg_cs_split_point(struct vdxg_cs *cs);
int vdxg_cs_fence(struct vdxg_cs *cs, struct vdxg_bo *bo, uint32_t offset,
		  uint32_t alloc_flags, uint64_t value);
int vdxg_cs_wait(struct vdxg_cs *cs, struct vdxg_bo *bo, uint32_t offset,
		 uint32_t alloc_flags, uint64_t value);
int vdxg_cs_set_surface(struct vdxg_cs *cs, uint32_t slot, struct vdxg_bo *bo,
			uint32_t offset, uint32_t alloc_flags, uint32_t format,
			uint32_t width, uint32_t height, uint32_t pitch);
int vdxg_cs_fill_rect(struct vdxg_cs *cs, uint32_t x, uint32_t y, uint32_t w,
		      uint32_t h, uint32_t argb);
int vdxg_cs_copy_rect(struct vdxg_cs *cs, uint32_t sx, uint32_t sy,
		      uint32_t dx, uint32_t dy, uint32_t w, uint32_t h);
int vdxg_cs_blend(struct vdxg_cs *cs, uint32_t sx, uint32_t sy, uint32_t dx,
		  uint32_t dy, uint32_t w, uint32_t h, uint32_t alpha);
int vdxg_cs_draw_triangles(struct vdxg_cs *cs, uint32_t flags, uint32_t count,
			   struct vdxg_bo *vb, uint32_t offset,
			   uint32_t alloc_flags);

/*
 * The 3D pipeline's commands (docs/hardware.md, "The 3D pipeline"). Each
 * address is a patch location as above with slot_id 0; the pipeline only
 * reads these ranges, so their allocations get no flags (a target is
 * bound with vdxg_cs_set_surface and DRM_VDXG_ALLOC_WRITE). A command
 * that unbinds (constants of count 0, a vertex buffer of size 0, index
 * size 0, texture format 0) takes BO NULL: its address field is then 0
 * with no patch location, as the patch model wants (given a BO, it gets
 * an address and a patch, which the kernel refuses: for tests). Values
 * are encoded as given for the kernel to validate, except what would not
 * fit its field (-EINVAL): SET_STATE's n (1 to VDXG_3D_NUM_REGS, VALUES
 * not NULL), a texture's width and height and CLEAR's rectangle (16 bits
 * each), and a NULL BO where a binding binds.
 */
int vdxg_cs_set_state(struct vdxg_cs *cs, uint32_t first,
		      const uint32_t *values, uint32_t n);
int vdxg_cs_load_state(struct vdxg_cs *cs, struct vdxg_bo *bo,
		       uint32_t offset, uint32_t first, uint32_t count);
int vdxg_cs_set_shader(struct vdxg_cs *cs, uint32_t stage, struct vdxg_bo *bo,
		       uint32_t offset, uint32_t size);
int vdxg_cs_set_constants(struct vdxg_cs *cs, uint32_t stage,
			  struct vdxg_bo *bo, uint32_t offset, uint32_t count);
int vdxg_cs_set_vertex_buffer(struct vdxg_cs *cs, uint32_t index,
			      struct vdxg_bo *bo, uint32_t offset,
			      uint32_t size, uint32_t stride);
int vdxg_cs_set_index_buffer(struct vdxg_cs *cs, struct vdxg_bo *bo,
			     uint32_t offset, uint32_t size,
			     uint32_t index_size);
/* DESC: VDXG_TEX_DESC(format, levels, cube), 0 to unbind. */
int vdxg_cs_set_texture(struct vdxg_cs *cs, uint32_t unit, struct vdxg_bo *bo,
			uint32_t offset, uint32_t size, uint32_t desc,
			uint32_t width, uint32_t height);
int vdxg_cs_draw(struct vdxg_cs *cs, uint32_t prim, uint32_t first,
		 uint32_t count);
int vdxg_cs_draw_indexed(struct vdxg_cs *cs, uint32_t prim, uint32_t first,
			 uint32_t count, int32_t bias);
/* FLAGS VDXG_CLEAR_*; RGBA NULL clears to (0, 0, 0, 0). */
int vdxg_cs_clear(struct vdxg_cs *cs, uint32_t flags, uint32_t x, uint32_t y,
		  uint32_t w, uint32_t h, const float *rgba, float depth,
		  uint32_t stencil);

/*
 * Escape hatches, for tests that build malformed submissions.
 * - emit_raw appends dwords as they are;
 * - emit_address appends a 64-bit address field for BO + OFFSET exactly
 *   as the commands above do (allocation, presumed address, patch with
 *   SLOT_ID);
 * - add_raw_allocation appends an allocation entry as given (never merged
 *   with others, never matched by later commands) and returns its index
 *   (>= 0) or a negative errno;
 * - add_raw_patch appends a patch location as given.
 * Raw entries are submitted as they are; the builder's own entries are
 * unaffected by them.
 */
int vdxg_cs_emit_raw(struct vdxg_cs *cs, const uint32_t *dwords,
		     uint32_t count);
int vdxg_cs_emit_address(struct vdxg_cs *cs, struct vdxg_bo *bo,
			 uint32_t offset, uint32_t alloc_flags,
			 uint32_t slot_id);
int vdxg_cs_add_raw_allocation(struct vdxg_cs *cs,
			       const struct drm_vdxg_allocation *alloc);
int vdxg_cs_add_raw_patch(struct vdxg_cs *cs,
			  const struct drm_vdxg_patch_location *patch);

/*
 * The two halves of a submit around the ioctl, for callers that issue it
 * themselves (and for tests):
 * - prepare fills ARGS's commands, command_size, allocations,
 *   num_allocations, patches and num_patches. The allocation array it
 *   points to is a copy owned by cs, for the kernel to write back into.
 * - complete, after the ioctl succeeded, takes the addresses the kernel
 *   wrote back: it stores each in its bo->gpu_addr and, where one differs
 *   from what the builder presumed, rewrites that allocation's address
 *   fields in the buffer and its presumed address, so that submitting the
 *   same builder again needs no patching.
 */
int vdxg_cs_prepare_submit(struct vdxg_cs *cs, struct drm_vdxg_submit *args);
void vdxg_cs_complete_submit(struct vdxg_cs *cs);

/* ------------------------------------------------------------- submission */

struct vdxg_submit_opts {
	uint32_t flags;				/* DRM_VDXG_SUBMIT_* */
	const struct drm_vdxg_sync *in_syncs;	/* the job waits for these */
	uint32_t num_in_syncs;
	const struct drm_vdxg_sync *out_syncs;	/* signalled by the job */
	uint32_t num_out_syncs;
	uint32_t out_flags;			/* out: DRM_VDXG_SUBMIT_OUT_* */
};

/*
 * DRM_IOCTL_VDXG_SUBMIT of CS on context CTX_ID. OPTS may be NULL (no
 * syncs, no flags). On success the presumed addresses are written back
 * (vdxg_cs_complete_submit) and opts->out_flags is set; cs is left as it
 * was, to be reset or submitted again.
 */
int vdxg_submit(struct vdxg_device *dev, uint32_t ctx_id, struct vdxg_cs *cs,
		struct vdxg_submit_opts *opts);
/* The SUBMIT ioctl with ARGS exactly as given (ARGS is written back). */
int vdxg_submit_raw(struct vdxg_device *dev, struct drm_vdxg_submit *args);

/* ------------------------------------- submission by virtual address */

/*
 * A virtual-address command stream: RENDER commands written straight into
 * a mapped GPU object (MAP, BYTES long) that the context's VM maps at VA;
 * every address is a virtual address of that VM. No lists: the device's
 * MMU confines the job. The fields are the builder's own.
 *
 *	vdxg_vcs_init(&vcs, vdxg_bo_map(cmd), 4096, CMD_VA);
 *	vdxg_vcs_set_surface(&vcs, VDXG_SLOT_DST, DST_VA, fmt, w, h, pitch);
 *	vdxg_vcs_fill_rect(&vcs, 0, 0, w, h, 0xff0000ff);
 *	vdxg_exec(dev, ctx, &vcs, NULL);
 *
 * Emitters return 0 or the builder's first error (-ENOSPC when the object
 * is full, -EINVAL for a bad operand), which also stops later ones; EXEC
 * of a builder in error fails with it.
 */
struct vdxg_vcs {
	uint32_t *dw;
	uint32_t cap, ndw;
	uint64_t va;
	int err;
};

void vdxg_vcs_init(struct vdxg_vcs *vcs, void *map, uint32_t bytes,
		   uint64_t va);
void vdxg_vcs_reset(struct vdxg_vcs *vcs);
int vdxg_vcs_error(const struct vdxg_vcs *vcs);
uint32_t vdxg_vcs_length(const struct vdxg_vcs *vcs);
int vdxg_vcs_nop(struct vdxg_vcs *vcs);
int vdxg_vcs_fence(struct vdxg_vcs *vcs, uint64_t va, uint64_t value);
int vdxg_vcs_wait(struct vdxg_vcs *vcs, uint64_t va, uint64_t value);
int vdxg_vcs_set_surface(struct vdxg_vcs *vcs, uint32_t slot, uint64_t va,
			 uint32_t format, uint32_t width, uint32_t height,
			 uint32_t pitch);
int vdxg_vcs_fill_rect(struct vdxg_vcs *vcs, uint32_t x, uint32_t y,
		       uint32_t w, uint32_t h, uint32_t argb);
int vdxg_vcs_copy_rect(struct vdxg_vcs *vcs, uint32_t sx, uint32_t sy,
		       uint32_t dx, uint32_t dy, uint32_t w, uint32_t h);
int vdxg_vcs_blend(struct vdxg_vcs *vcs, uint32_t sx, uint32_t sy,
		   uint32_t dx, uint32_t dy, uint32_t w, uint32_t h,
		   uint32_t alpha);
int vdxg_vcs_draw_triangles(struct vdxg_vcs *vcs, uint32_t flags,
			    uint32_t count, uint64_t vb_va);
/* The 3D commands, as vdxg_cs_set_state and the others, by virtual address. */
int vdxg_vcs_set_state(struct vdxg_vcs *vcs, uint32_t first,
		       const uint32_t *values, uint32_t n);
int vdxg_vcs_load_state(struct vdxg_vcs *vcs, uint64_t va, uint32_t first,
			uint32_t count);
int vdxg_vcs_set_shader(struct vdxg_vcs *vcs, uint32_t stage, uint64_t va,
			uint32_t size);
int vdxg_vcs_set_constants(struct vdxg_vcs *vcs, uint32_t stage, uint64_t va,
			   uint32_t count);
int vdxg_vcs_set_vertex_buffer(struct vdxg_vcs *vcs, uint32_t index,
			       uint64_t va, uint32_t size, uint32_t stride);
int vdxg_vcs_set_index_buffer(struct vdxg_vcs *vcs, uint64_t va,
			      uint32_t size, uint32_t index_size);
int vdxg_vcs_set_texture(struct vdxg_vcs *vcs, uint32_t unit, uint64_t va,
			 uint32_t size, uint32_t desc, uint32_t width,
			 uint32_t height);
int vdxg_vcs_draw(struct vdxg_vcs *vcs, uint32_t prim, uint32_t first,
		  uint32_t count);
int vdxg_vcs_draw_indexed(struct vdxg_vcs *vcs, uint32_t prim, uint32_t first,
			  uint32_t count, int32_t bias);
int vdxg_vcs_clear(struct vdxg_vcs *vcs, uint32_t flags, uint32_t x,
		   uint32_t y, uint32_t w, uint32_t h, const float *rgba,
		   float depth, uint32_t stencil);
int vdxg_vcs_emit_raw(struct vdxg_vcs *vcs, const uint32_t *dwords,
		      uint32_t count);

/*
 * DRM_IOCTL_VDXG_EXEC of VCS's commands on virtual-mode context CTX_ID.
 * OPTS may be NULL; its flags must be 0 (no SUBMIT flag applies).
 */
int vdxg_exec(struct vdxg_device *dev, uint32_t ctx_id,
	      const struct vdxg_vcs *vcs, const struct vdxg_submit_opts *opts);
/* The EXEC ioctl with ARGS exactly as given. */
int vdxg_exec_raw(struct vdxg_device *dev, struct drm_vdxg_exec *args);

/* ------------------------------------------------------- 3D helpers */

/* A float's binary32 bits, for SET_STATE's float registers, and back. */
static inline uint32_t vdxg_f32_bits(float f)
{
	union { float f; uint32_t u; } v = { .f = f };

	return v.u;
}

static inline float vdxg_bits_f32(uint32_t u)
{
	union { uint32_t u; float f; } v = { .u = u };

	return v.f;
}

/*
 * A texture's layout (docs/hardware.md, "Texture layout"): level l's size
 * and row pitch, where its face 0 starts, each face's bytes, and what the
 * whole texture spans (SET_TEXTURE's size must be at least SIZE). Image
 * (l, f) starts at level[l].offset + f * level[l].image_size.
 */
struct vdxg_tex_layout {
	uint32_t cpp, faces, levels;
	uint64_t size;
	struct {
		uint32_t width, height, pitch;
		uint64_t offset, image_size;
	} level[14];			/* VDXG_TEX_MAX_LEVELS */
};

/*
 * DESC as SET_TEXTURE's dword 5 (VDXG_TEX_DESC), checked as SET_TEXTURE
 * checks it with WIDTH and HEIGHT (a texture format, 1 to 14 levels, 1 to
 * 8192 texels, square for a cube): 0 or -EINVAL.
 */
int vdxg_tex_layout(uint32_t desc, uint32_t width, uint32_t height,
		    struct vdxg_tex_layout *layout);

/* -------------------------------------------------------- shader programs */

/*
 * The 3D pipeline's programs: the binary of docs/hardware.md ("Programs")
 * and its text form, docs/shader-asm.md. Messages go to MSG (MSG_LEN bytes,
 * NUL-terminated, truncated; MSG may be NULL).
 *
 * vdxg_asm assembles TEXT into a program: 0 with *PROG (malloc()ed, for
 * free()) and its *SIZE in bytes, or -EINVAL with "line:column: what" in
 * MSG (-ENOMEM). The assembler applies every check SET_SHADER makes, so
 * that what it accepts the device accepts.
 *
 * vdxg_program_check checks SIZE bytes at PROG as SET_SHADER does: 0,
 * -EINVAL (a SHADER fault) with *OFFSET (may be NULL) the byte offset of
 * the dword the device faults at and "byte 0x..: what" in MSG, or -ERANGE
 * for a size SET_SHADER refuses (16 to VDXG_3D_PROGRAM_MAX_BYTES). The
 * header's stage may be either: SET_SHADER also wants it to be its own
 * (a SHADER fault at byte 4 otherwise).
 *
 * vdxg_disasm lists a program as text that vdxg_asm turns back into the
 * same bytes. A program that fails the check gives its error and message
 * as vdxg_program_check does; when its header is sound *TEXT still lists
 * it, each instruction wrong on its own as a "# invalid:" comment with
 * its dwords and what is wrong (an error of the block structure is only
 * reported). *TEXT is malloc()ed (NULL on a header error).
 */
int vdxg_asm(const char *text, uint32_t **prog, uint32_t *size, char *msg,
	     size_t msg_len);
int vdxg_program_check(const void *prog, uint32_t size, uint32_t *offset,
		       char *msg, size_t msg_len);
int vdxg_disasm(const void *prog, uint32_t size, char **text, char *msg,
		size_t msg_len);

/* ---------------------------------------------------------------- present */

/* PRESENT surfaces: a GEM object described in full, or a framebuffer. */
struct drm_vdxg_present_surface vdxg_present_bo(const struct vdxg_bo *bo,
						uint32_t format, uint32_t width,
						uint32_t height, uint32_t pitch,
						uint32_t offset);
struct drm_vdxg_present_surface vdxg_present_fb(uint32_t fb_id);
/*
 * DRM_VDXG_PRESENT_BLIT on context CTX_ID: SRC's pixel (0, 0) lands at
 * (DST_X, DST_Y) of DST, inside the NUM_CLIPS CLIPS (0: the whole
 * source). OUT_SYNCOBJ (0: none) receives the blit's fence.
 */
int vdxg_present_blit(struct vdxg_device *dev, uint32_t ctx_id,
		      const struct drm_vdxg_present_surface *src,
		      const struct drm_vdxg_present_surface *dst,
		      int32_t dst_x, int32_t dst_y,
		      const struct drm_vdxg_rect *clips, uint32_t num_clips,
		      uint32_t out_syncobj);
/*
 * DRM_VDXG_PRESENT_FLIP: FB_ID on CRTC_ID's primary plane at the next
 * vblank (DRM master only). FLAGS DRM_VDXG_PRESENT_EVENT asks for a
 * page-flip event carrying USER_DATA; OUT_SYNCOBJ (0: none) signals when
 * the flip is on screen. -EBUSY while a flip is pending.
 */
int vdxg_present_flip(struct vdxg_device *dev, uint32_t crtc_id,
		      uint32_t fb_id, uint32_t flags, uint64_t user_data,
		      uint32_t out_syncobj);

/* ----------------------------------------------------------------- errors */

/*
 * A message for ERR (negative or positive errno) as the vdxg ioctls use
 * it, e.g. -ERANGE "an access outside its allocation or object"; else
 * strerror(). The string is static.
 */
const char *vdxg_strerror(int err);

/* Binary syncobj / timeline point, for vdxg_submit_opts. */
static inline struct drm_vdxg_sync vdxg_sync(uint32_t handle, uint64_t point)
{
	struct drm_vdxg_sync s = { handle, 0, point };

	return s;
}

#ifdef __cplusplus
}
#endif

#endif /* VDXG_H */
