/* SPDX-License-Identifier: MIT */
/*
 * vdxg userspace API.
 *
 * Every ioctl takes a fixed-layout structure with explicit padding. Padding
 * and reserved fields must be zero; the kernel rejects anything else with
 * -EINVAL so that they can gain a meaning later.
 */
#ifndef _UAPI_VDXG_DRM_H_
#define _UAPI_VDXG_DRM_H_

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

#define DRM_VDXG_GET_PARAM		0x00
#define DRM_VDXG_GEM_CREATE		0x01
#define DRM_VDXG_GEM_MMAP_OFFSET	0x02
#define DRM_VDXG_GEM_WAIT		0x03
#define DRM_VDXG_GEM_INFO		0x04
#define DRM_VDXG_GEM_MAKE_RESIDENT	0x05
#define DRM_VDXG_CONTEXT_CREATE		0x06
#define DRM_VDXG_CONTEXT_DESTROY	0x07
#define DRM_VDXG_SUBMIT			0x08
#define DRM_VDXG_GET_RESET_STATUS	0x09
#define DRM_VDXG_PRESENT		0x0a
#define DRM_VDXG_GET_BACKING_RESOURCE	0x0b
#define DRM_VDXG_VM_CREATE		0x0c
#define DRM_VDXG_VM_DESTROY		0x0d
#define DRM_VDXG_VM_BIND		0x0e
#define DRM_VDXG_EXEC			0x0f

#define DRM_IOCTL_VDXG_GET_PARAM \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDXG_GET_PARAM, struct drm_vdxg_get_param)
#define DRM_IOCTL_VDXG_GEM_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDXG_GEM_CREATE, struct drm_vdxg_gem_create)
#define DRM_IOCTL_VDXG_GEM_MMAP_OFFSET \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDXG_GEM_MMAP_OFFSET, \
		 struct drm_vdxg_gem_mmap_offset)
#define DRM_IOCTL_VDXG_GEM_WAIT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VDXG_GEM_WAIT, struct drm_vdxg_gem_wait)
#define DRM_IOCTL_VDXG_GEM_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDXG_GEM_INFO, struct drm_vdxg_gem_info)
#define DRM_IOCTL_VDXG_GEM_MAKE_RESIDENT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VDXG_GEM_MAKE_RESIDENT, \
		struct drm_vdxg_gem_make_resident)
#define DRM_IOCTL_VDXG_CONTEXT_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDXG_CONTEXT_CREATE, \
		 struct drm_vdxg_context_create)
#define DRM_IOCTL_VDXG_CONTEXT_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VDXG_CONTEXT_DESTROY, \
		struct drm_vdxg_context_destroy)
#define DRM_IOCTL_VDXG_SUBMIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDXG_SUBMIT, struct drm_vdxg_submit)
#define DRM_IOCTL_VDXG_GET_RESET_STATUS \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDXG_GET_RESET_STATUS, \
		 struct drm_vdxg_reset_status)
#define DRM_IOCTL_VDXG_PRESENT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VDXG_PRESENT, struct drm_vdxg_present)
#define DRM_IOCTL_VDXG_GET_BACKING_RESOURCE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDXG_GET_BACKING_RESOURCE, \
		 struct drm_vdxg_backing_resource)
#define DRM_IOCTL_VDXG_VM_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDXG_VM_CREATE, struct drm_vdxg_vm_create)
#define DRM_IOCTL_VDXG_VM_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VDXG_VM_DESTROY, struct drm_vdxg_vm_destroy)
#define DRM_IOCTL_VDXG_VM_BIND \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDXG_VM_BIND, struct drm_vdxg_vm_bind)
#define DRM_IOCTL_VDXG_EXEC \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VDXG_EXEC, struct drm_vdxg_exec)

/**
 * enum drm_vdxg_param - parameters readable with DRM_IOCTL_VDXG_GET_PARAM
 *
 * @DRM_VDXG_PARAM_DEVICE_ID: PCI device id.
 * @DRM_VDXG_PARAM_REVISION: PCI revision id.
 * @DRM_VDXG_PARAM_VRAM_SIZE: VRAM bytes.
 * @DRM_VDXG_PARAM_VRAM_VISIBLE_SIZE: CPU-visible VRAM bytes (the VRAM BAR).
 * @DRM_VDXG_PARAM_APERTURE_SIZE: GART aperture bytes.
 * @DRM_VDXG_PARAM_ENGINES: bitmask, 1 << engine for each engine present
 *	(bit 0 render, bit 1 paging).
 * @DRM_VDXG_PARAM_CAPS: the device's capability register (VDXG_CAP_* in
 *	docs/hardware.md).
 * @DRM_VDXG_PARAM_HW_VERSION: hardware version, major << 16 | minor.
 * @DRM_VDXG_PARAM_NUM_CRTCS: display pipes; 0 on a render-only device.
 * @DRM_VDXG_PARAM_IRQ_MODE: interrupt mode in use: 0 INTx, 1 MSI, 2 MSI-X.
 * @DRM_VDXG_PARAM_MAX_COMMAND_SIZE: largest SUBMIT command buffer, bytes.
 * @DRM_VDXG_PARAM_MAX_ALLOCATIONS: largest SUBMIT allocation list.
 * @DRM_VDXG_PARAM_MAX_PATCHES: largest SUBMIT patch-location list.
 * @DRM_VDXG_PARAM_COMMIT_LIMIT: bytes that the objects of all vdxg devices
 *	of the system may hold together (imports aside); GEM_CREATE over it
 *	fails with -ENOMEM.
 * @DRM_VDXG_PARAM_3D: 1 when the RENDER engine runs the 3D pipeline
 *	(VDXG_CAP_3D; commands 0x08 to 0x11 of docs/hardware.md, "The 3D
 *	pipeline"), else 0: SUBMIT and EXEC then refuse those commands. The
 *	DRM_VDXG_PARAM_3D_* limits below read 0 without it.
 * @DRM_VDXG_PARAM_3D_MAX_INSTRUCTIONS: instructions of a program.
 * @DRM_VDXG_PARAM_3D_MAX_IMMEDIATES: vec4 immediates of a program.
 * @DRM_VDXG_PARAM_3D_MAX_TEMPS: TEMP registers (vec4) of an invocation.
 * @DRM_VDXG_PARAM_3D_MAX_CONSTANTS: CONST registers (vec4) of a stage.
 * @DRM_VDXG_PARAM_3D_MAX_NESTING: nested IF and loop blocks of a program.
 * @DRM_VDXG_PARAM_3D_MAX_STEPS: instructions an invocation may visit; one
 *	that reaches it faults (SHADER).
 * @DRM_VDXG_PARAM_3D_TEXTURE_UNITS: texture units (samplers).
 * @DRM_VDXG_PARAM_3D_VERTEX_BUFFERS: vertex buffers.
 * @DRM_VDXG_PARAM_3D_VERTEX_ELEMENTS: vertex elements, the vertex
 *	program's inputs.
 * @DRM_VDXG_PARAM_3D_MAX_VERTEX_STRIDE: largest vertex buffer stride,
 *	bytes.
 * @DRM_VDXG_PARAM_3D_VARYINGS: vec4 varyings from the vertex program to
 *	the fragment program.
 * @DRM_VDXG_PARAM_3D_MAX_TEXTURE_SIZE: largest texture width and height.
 * @DRM_VDXG_PARAM_3D_MAX_TEXTURE_LEVELS: most mipmap levels of a texture.
 */
enum drm_vdxg_param {
	DRM_VDXG_PARAM_DEVICE_ID = 1,
	DRM_VDXG_PARAM_REVISION = 2,
	DRM_VDXG_PARAM_VRAM_SIZE = 3,
	DRM_VDXG_PARAM_VRAM_VISIBLE_SIZE = 4,
	DRM_VDXG_PARAM_APERTURE_SIZE = 5,
	DRM_VDXG_PARAM_ENGINES = 6,
	DRM_VDXG_PARAM_CAPS = 7,
	DRM_VDXG_PARAM_HW_VERSION = 8,
	DRM_VDXG_PARAM_NUM_CRTCS = 9,
	DRM_VDXG_PARAM_IRQ_MODE = 10,
	DRM_VDXG_PARAM_MAX_COMMAND_SIZE = 11,
	DRM_VDXG_PARAM_MAX_ALLOCATIONS = 12,
	DRM_VDXG_PARAM_MAX_PATCHES = 13,
	DRM_VDXG_PARAM_COMMIT_LIMIT = 14,
	DRM_VDXG_PARAM_3D = 15,
	DRM_VDXG_PARAM_3D_MAX_INSTRUCTIONS = 16,
	DRM_VDXG_PARAM_3D_MAX_IMMEDIATES = 17,
	DRM_VDXG_PARAM_3D_MAX_TEMPS = 18,
	DRM_VDXG_PARAM_3D_MAX_CONSTANTS = 19,
	DRM_VDXG_PARAM_3D_MAX_NESTING = 20,
	DRM_VDXG_PARAM_3D_MAX_STEPS = 21,
	DRM_VDXG_PARAM_3D_TEXTURE_UNITS = 22,
	DRM_VDXG_PARAM_3D_VERTEX_BUFFERS = 23,
	DRM_VDXG_PARAM_3D_VERTEX_ELEMENTS = 24,
	DRM_VDXG_PARAM_3D_MAX_VERTEX_STRIDE = 25,
	DRM_VDXG_PARAM_3D_VARYINGS = 26,
	DRM_VDXG_PARAM_3D_MAX_TEXTURE_SIZE = 27,
	DRM_VDXG_PARAM_3D_MAX_TEXTURE_LEVELS = 28,
};

#define DRM_VDXG_IRQ_MODE_INTX		0
#define DRM_VDXG_IRQ_MODE_MSI		1
#define DRM_VDXG_IRQ_MODE_MSIX		2

/**
 * struct drm_vdxg_get_param - argument of DRM_IOCTL_VDXG_GET_PARAM
 * @param: one of &enum drm_vdxg_param; anything else gets -EINVAL.
 * @pad: must be zero.
 * @value: returned value.
 */
struct drm_vdxg_get_param {
	__u32 param;
	__u32 pad;
	__u64 value;
};

/*
 * Memory segments, as in WDDM: VRAM (CPU-visible through the VRAM BAR up
 * to DRM_VDXG_PARAM_VRAM_VISIBLE_SIZE), the GART-translated aperture, and
 * system memory.
 */
#define DRM_VDXG_SEGMENT_VRAM		1
#define DRM_VDXG_SEGMENT_APERTURE	2
#define DRM_VDXG_SEGMENT_SYSTEM		3
#define DRM_VDXG_MAX_SEGMENTS		3

/* The object must stay CPU-accessible: VRAM only in its visible part. */
#define DRM_VDXG_GEM_CPU_ACCESS		0x1
/*
 * Skip clear-on-allocate, for objects the caller fully overwrites. Freed
 * VRAM keeps what its last owner (any client) wrote, so the flag is
 * honoured only for a caller with CAP_SYS_ADMIN; for anyone else it is
 * accepted and the object is cleared all the same. Objects placed first in
 * the aperture or system memory get zeroed pages either way.
 */
#define DRM_VDXG_GEM_NO_CLEAR		0x2
/*
 * GEM_CREATE only: the object is private to the VM @vm_id of this file. It
 * shares the VM's reservation object, so that locking the VM for EXEC
 * locks it too (with any number of such objects); it can be bound in that
 * VM only, and not exported (PRIME).
 */
#define DRM_VDXG_GEM_VM_PRIVATE		0x4
#define DRM_VDXG_GEM_FLAGS		(DRM_VDXG_GEM_CPU_ACCESS | \
					 DRM_VDXG_GEM_NO_CLEAR)

/**
 * struct drm_vdxg_gem_create - argument of DRM_IOCTL_VDXG_GEM_CREATE
 * @size: in: bytes, non-zero; out: rounded up to the page size
 * @flags: DRM_VDXG_GEM_*
 * @num_segments: entries used in @segments, 1 to DRM_VDXG_MAX_SEGMENTS
 * @segments: the preferred segment set, most preferred first, each
 *	DRM_VDXG_SEGMENT_* at most once; unused entries must be zero
 * @handle: out: GEM handle
 * @vm_id: with DRM_VDXG_GEM_VM_PRIVATE in @flags, the VM the object is
 *	private to; else zero (formerly a pad)
 *
 * Errors: -EINVAL bad flags or segments, the flag without a @vm_id or a
 * @vm_id without the flag; -ENOENT an unknown VM; -E2BIG a size over
 * DRM_VDXG_PARAM_COMMIT_LIMIT; -ENOMEM when no segment of the set has
 * room, or when the object would take the objects of all vdxg devices
 * over DRM_VDXG_PARAM_COMMIT_LIMIT.
 */
struct drm_vdxg_gem_create {
	__u64 size;
	__u32 flags;
	__u32 num_segments;
	__u32 segments[4];
	__u32 handle;
	__u32 vm_id;
};

/**
 * struct drm_vdxg_gem_mmap_offset - argument of DRM_IOCTL_VDXG_GEM_MMAP_OFFSET
 * @handle: GEM handle
 * @pad: must be zero
 * @offset: out: fake offset to mmap() the object at
 */
struct drm_vdxg_gem_mmap_offset {
	__u32 handle;
	__u32 pad;
	__u64 offset;
};

/**
 * struct drm_vdxg_gem_wait - argument of DRM_IOCTL_VDXG_GEM_WAIT
 * @handle: GEM handle
 * @flags: must be zero
 * @timeout_ns: relative timeout; 0 polls without sleeping. -ETIME when it
 *	expires, -EBUSY when polling a busy object.
 */
struct drm_vdxg_gem_wait {
	__u32 handle;
	__u32 flags;
	__s64 timeout_ns;
};

/**
 * struct drm_vdxg_gem_info - argument of DRM_IOCTL_VDXG_GEM_INFO
 * @handle: GEM handle
 * @segment: out: DRM_VDXG_SEGMENT_* the object is in now
 * @gpu_addr: out: its GPU address now (0 in system memory, which the GPU
 *	reaches only through page lists or the aperture)
 * @size: out: its size
 * @flags: must be zero (-EINVAL)
 * @pad: must be zero (-EINVAL)
 */
struct drm_vdxg_gem_info {
	__u32 handle;
	__u32 segment;
	__u64 gpu_addr;
	__u64 size;
	__u32 flags;
	__u32 pad;
};

/**
 * struct drm_vdxg_gem_make_resident - argument of
 * DRM_IOCTL_VDXG_GEM_MAKE_RESIDENT
 * @handle: GEM handle
 * @segment: DRM_VDXG_SEGMENT_* to page the object into, evicting others
 *	if needed; it must be in the object's preferred segment set
 *	(-EINVAL otherwise). The move is queued on the paging engine:
 *	GEM_WAIT waits for it.
 * @flags: must be zero (-EINVAL)
 * @pad: must be zero (-EINVAL)
 *
 * WDDM's MakeResident, for one object and an explicit segment.
 */
struct drm_vdxg_gem_make_resident {
	__u32 handle;
	__u32 segment;
	__u32 flags;
	__u32 pad;
};

/* Engines a context can submit to. */
#define DRM_VDXG_ENGINE_RENDER		0

/* Context priorities; HIGH needs CAP_SYS_NICE or DRM master (-EACCES). */
#define DRM_VDXG_PRIORITY_LOW		0
#define DRM_VDXG_PRIORITY_NORMAL	1
#define DRM_VDXG_PRIORITY_HIGH		2

/* CONTEXT_CREATE: a virtual-mode context, running in the VM @vm_id. */
#define DRM_VDXG_CONTEXT_VM		0x1
#define DRM_VDXG_CONTEXT_FLAGS		DRM_VDXG_CONTEXT_VM

/**
 * struct drm_vdxg_context_create - argument of DRM_IOCTL_VDXG_CONTEXT_CREATE
 * @engine: DRM_VDXG_ENGINE_*
 * @priority: DRM_VDXG_PRIORITY_*
 * @flags: DRM_VDXG_CONTEXT_*
 * @ctx_id: out: the context, non-zero, private to this file
 * @vm_id: with DRM_VDXG_CONTEXT_VM, one of this file's VMs; else zero
 * @pad: must be zero
 *
 * A context is a queue of jobs on one engine (a WDDM GPU context). Jobs of
 * one context run in submission order. A patch-model context (no flag)
 * takes SUBMIT; a virtual-mode context runs in a VM, takes EXEC only, and
 * keeps its surface-slot state from one job to the next (WDDM's context
 * allocation). Errors besides SUBMIT's: -ENOENT an unknown VM; -EINVAL
 * the flag without a @vm_id, a @vm_id without the flag, or a non-zero
 * @pad. Programs built against the 16-byte version of this
 * structure pass neither field and get a patch-model context.
 */
struct drm_vdxg_context_create {
	__u32 engine;
	__u32 priority;
	__u32 flags;
	__u32 ctx_id;
	__u32 vm_id;
	__u32 pad;
};

/**
 * struct drm_vdxg_context_destroy - argument of
 * DRM_IOCTL_VDXG_CONTEXT_DESTROY
 * @ctx_id: the context; its queued jobs still run
 * @pad: must be zero
 */
struct drm_vdxg_context_destroy {
	__u32 ctx_id;
	__u32 pad;
};

/* The job writes the allocation (it is read otherwise). */
#define DRM_VDXG_ALLOC_WRITE		0x1
#define DRM_VDXG_ALLOC_FLAGS		DRM_VDXG_ALLOC_WRITE

/**
 * struct drm_vdxg_allocation - one entry of a SUBMIT allocation list
 * @handle: GEM handle; each object may appear once per list
 * @flags: DRM_VDXG_ALLOC_*
 * @presumed_gpu_addr: in: the GPU address userspace assumed when it wrote
 *	the command buffer, or 0; out: the address the job used
 *
 * D3DDDI_ALLOCATIONLIST. The object must have VRAM or the aperture in its
 * segment set: the engines do not reach system memory.
 */
struct drm_vdxg_allocation {
	__u32 handle;
	__u32 flags;
	__u64 presumed_gpu_addr;
};

/**
 * struct drm_vdxg_patch_location - one entry of a SUBMIT patch list
 * @allocation_index: index into the allocation list
 * @slot_id: for the address of a SET_SURFACE, the surface slot it binds
 *	(VDXG_SLOT_* of docs/hardware.md); 0 for any other address
 * @driver_id: opaque to the kernel
 * @allocation_offset: byte offset into the allocation
 * @patch_offset: byte offset, in the command buffer, of a 64-bit address
 *	field; the kernel writes the allocation's GPU address plus
 *	@allocation_offset there
 * @split_offset: 0, or the byte offset of a command boundary inside the
 *	buffer, at or before @patch_offset, where the kernel may cut the
 *	buffer when its allocations cannot be resident together
 *	(D3DDDI_PATCHLOCATIONLIST.SplitOffset; see &struct drm_vdxg_submit)
 *
 * D3DDDI_PATCHLOCATIONLIST. Every address field of the command buffer must
 * be named by exactly one patch location, and every patch location must
 * name an address field.
 */
struct drm_vdxg_patch_location {
	__u32 allocation_index;
	__u32 slot_id;
	__u32 driver_id;
	__u32 allocation_offset;
	__u32 patch_offset;
	__u32 split_offset;
};

/**
 * struct drm_vdxg_sync - a syncobj to wait on or signal
 * @handle: syncobj handle
 * @flags: must be zero
 * @point: timeline point; 0 for a binary syncobj
 */
struct drm_vdxg_sync {
	__u32 handle;
	__u32 flags;
	__u64 point;
};

/* Do not wait for other users of the allocations (no implicit sync in). */
#define DRM_VDXG_SUBMIT_NO_IMPLICIT	0x1
/*
 * Validate, make resident and patch, but do not run the commands: the
 * job's fence signals when it would have started (DXGK_PATCHFLAGS'
 * NullRendering), to measure the CPU's part alone.
 */
#define DRM_VDXG_SUBMIT_NULL_RENDERING	0x2
#define DRM_VDXG_SUBMIT_FLAGS		(DRM_VDXG_SUBMIT_NO_IMPLICIT | \
					 DRM_VDXG_SUBMIT_NULL_RENDERING)

/* out_flags: the kernel wrote addresses (some presumed one was stale). */
#define DRM_VDXG_SUBMIT_OUT_PATCHED	0x1
/* out_flags: the buffer was run in pieces. */
#define DRM_VDXG_SUBMIT_OUT_SPLIT	0x2

/* The most pieces one SUBMIT is cut into. */
#define DRM_VDXG_SUBMIT_MAX_PIECES	16

/**
 * struct drm_vdxg_submit - argument of DRM_IOCTL_VDXG_SUBMIT
 * @ctx_id: the context
 * @flags: DRM_VDXG_SUBMIT_*
 * @commands: user pointer to the command buffer (the RENDER command set)
 * @command_size: its bytes, a non-zero multiple of 4, at most
 *	DRM_VDXG_PARAM_MAX_COMMAND_SIZE
 * @num_allocations: entries in @allocations, at most
 *	DRM_VDXG_PARAM_MAX_ALLOCATIONS
 * @allocations: user pointer to struct drm_vdxg_allocation[]
 * @num_patches: entries in @patches, at most DRM_VDXG_PARAM_MAX_PATCHES
 * @num_in_syncs: entries in @in_syncs
 * @patches: user pointer to struct drm_vdxg_patch_location[]
 * @in_syncs: user pointer to struct drm_vdxg_sync[]: the job waits for
 *	them
 * @out_syncs: user pointer to struct drm_vdxg_sync[]: the job's fence
 *	replaces a binary syncobj's or is added at a timeline point
 * @num_out_syncs: entries in @out_syncs
 * @out_flags: out: DRM_VDXG_SUBMIT_OUT_*
 *
 * The kernel copies the command buffer into a DMA buffer of its own and
 * validates every command against the allocations, makes every allocation
 * resident, patches the current GPU addresses into the address fields and
 * queues the job. When every presumed address is right the patch step is
 * skipped.
 *
 * When the allocations that the buffer's address fields name cannot be
 * resident together in VRAM and the aperture, the kernel cuts the buffer
 * at split points (&drm_vdxg_patch_location.split_offset) into pieces
 * whose allocations fit, at most DRM_VDXG_SUBMIT_MAX_PIECES, and runs
 * them in order, each made resident and patched in its turn; each starts
 * by running again, in their order, the commands that last set what it
 * uses of the state an earlier piece set (surface slots; with the 3D
 * pipeline, for a draw, every register and binding). A LOAD_STATE or
 * SET_SHADER run again reads its memory again, as it is then.
 * @out_flags then has DRM_VDXG_SUBMIT_OUT_SPLIT and the presumed
 * addresses are left alone. The job's fence signals after the last piece,
 * with the error of any piece that failed (-ECANCELED for the pieces of
 * a context banned meanwhile). Before the first piece is queued the ioctl
 * waits (interruptibly) for the fences of other clients its pieces'
 * allocations or its dependencies hold; once it is queued, the later
 * pieces wait without interruption, for the device's work alone, which
 * job timeouts bound (a fatal signal ends only their wait for another
 * split submission's pieces); one that cannot be queued (its
 * allocations cannot be made resident after all, a client's fence
 * appeared on them, the task was killed, the context was banned) fails
 * the job that way, with -ENOMEM, -EBUSY, -EINTR or -EIO on
 * its fence, and the ioctl still returns 0; a context destroyed meanwhile
 * makes it return -ENOENT, the pieces queued before left to run, the
 * out-syncobjs untouched.
 *
 * Errors: -EINVAL a malformed command or list (a split offset that is not
 * a command boundary at or before its field among them), -ERANGE an
 * access outside its allocation, -EACCES a write through an allocation
 * without DRM_VDXG_ALLOC_WRITE, -E2BIG a buffer or list over its limit or
 * more pieces than DRM_VDXG_SUBMIT_MAX_PIECES, -ENOENT an unknown GEM or
 * syncobj handle, -EFAULT a bad pointer, -EIO a banned context or file,
 * -ENOMEM when the allocations do not fit together and there is no split
 * point where one is needed, or a piece alone does not fit, -EBUSY when
 * the first piece stays gated by clients' fences through 8 waits: nothing
 * is queued then. -EINVAL too for an object listed twice.
 *
 * Limits: a file's queued jobs hold at most 256 KiB of command buffers
 * (a quarter of the kernel's DMA-buffer pool); past that SUBMIT waits for
 * the file's own jobs to finish (and returns -EINTR or restarts on a
 * signal). A context whose job hangs or faults the GPU is banned, and
 * that job's fence signals with -ECANCELED; a file
 * whose contexts do so 5 times within 60 s is banned as a whole: every
 * context of it, and CONTEXT_CREATE, then fail with -EIO. A job is allowed
 * as long as it keeps the GPU making progress, up to 10 job timeouts
 * (module parameter ``job_timeout_ms``, 2 s by default).
 */
struct drm_vdxg_submit {
	__u32 ctx_id;
	__u32 flags;
	__u64 commands;
	__u32 command_size;
	__u32 num_allocations;
	__u64 allocations;
	__u32 num_patches;
	__u32 num_in_syncs;
	__u64 patches;
	__u64 in_syncs;
	__u64 out_syncs;
	__u32 num_out_syncs;
	__u32 out_flags;
};

#define DRM_VDXG_MAX_SYNCS		64

/* EXEC: command buffers are at most 1 MiB, 4-byte aligned. */
#define DRM_VDXG_EXEC_MAX_LENGTH	0x100000

/**
 * struct drm_vdxg_exec - argument of DRM_IOCTL_VDXG_EXEC
 * @ctx_id: a virtual-mode context (DRM_VDXG_CONTEXT_VM)
 * @flags: must be zero
 * @address: the command buffer's GPU virtual address in the context's VM,
 *	4-byte aligned
 * @length: its bytes, a multiple of 4, from 4 to DRM_VDXG_EXEC_MAX_LENGTH
 * @num_in_syncs: entries in @in_syncs, at most DRM_VDXG_MAX_SYNCS
 * @in_syncs: user pointer to struct drm_vdxg_sync[]: the job waits for them
 * @out_syncs: user pointer to struct drm_vdxg_sync[]: the job's fence
 * @num_out_syncs: entries in @out_syncs, at most DRM_VDXG_MAX_SYNCS
 * @pad: must be zero
 *
 * WDDM 2.0's submission by GPU virtual address: no allocation list, no
 * patch list, no copy of the commands and no parsing. The device's MMU
 * confines every access of the job to what the VM maps: an access to
 * anything else faults, and the context is banned as for a hang. The
 * kernel checks only the arguments and that [@address, @address +
 * @length) is mapped to an object (not a null range) in the VM.
 *
 * Every object bound in the VM is resident (its pages present) when the
 * job runs; objects swapped out are brought back first. The job waits for
 * the VM's binds and the objects' moves, for its in-syncobjs, and, for
 * objects shared with other files or devices (exported or imported,
 * PRIME), for their other users (implicit sync, as a write). Objects
 * private to the file need no implicit sync: order jobs with syncobjs.
 *
 * Errors: -EINVAL bad flags, pad, alignment or length, a patch-model
 * context, a range not wholly mapped to objects; -ENOENT an unknown
 * context or syncobj, or a context whose VM was destroyed; -EFAULT a bad
 * pointer; -E2BIG too many syncs; -EIO a banned context or file, or a VM
 * switched off; -ENOMEM when the VM's objects cannot be made resident
 * together.
 */
struct drm_vdxg_exec {
	__u32 ctx_id;
	__u32 flags;
	__u64 address;
	__u32 length;
	__u32 num_in_syncs;
	__u64 in_syncs;
	__u64 out_syncs;
	__u32 num_out_syncs;
	__u32 pad;
};

/* The context caused a reset and takes no more jobs (-EIO). */
#define DRM_VDXG_RESET_BANNED		0x1
/* A job of the context faulted: the fault_* fields say where. */
#define DRM_VDXG_RESET_FAULT		0x2
#define DRM_VDXG_FAULT_WRITE		0x1

/**
 * struct drm_vdxg_reset_status - argument of
 * DRM_IOCTL_VDXG_GET_RESET_STATUS
 * @ctx_id: the context
 * @flags: out: DRM_VDXG_RESET_*
 * @guilty: out: engine resets this context's jobs caused
 * @innocent: out: engine resets that caught this context's jobs, which
 *	were run again
 * @fault_address: out: with DRM_VDXG_RESET_FAULT, the address of the last
 *	device fault of this context's jobs (a virtual address for a
 *	virtual-mode context)
 * @fault_flags: out: DRM_VDXG_FAULT_WRITE if that access was a write
 * @fault_reason: out: the device's fault reason (VDXG_FAULT_* of the
 *	hardware contract, e.g. 7 for a virtual address not mapped)
 *
 * Programs built against the 16-byte version get no fault fields.
 */
struct drm_vdxg_reset_status {
	__u32 ctx_id;
	__u32 flags;
	__u32 guilty;
	__u32 innocent;
	__u64 fault_address;
	__u32 fault_flags;
	__u32 fault_reason;
};

/* PRESENT modes (DxgkDdiPresent). */
#define DRM_VDXG_PRESENT_BLIT		0
#define DRM_VDXG_PRESENT_FLIP		1

/* FLIP: send a DRM_EVENT_FLIP_COMPLETE with @user_data when it is shown. */
#define DRM_VDXG_PRESENT_EVENT		0x1
#define DRM_VDXG_PRESENT_FLAGS		DRM_VDXG_PRESENT_EVENT

#define DRM_VDXG_MAX_CLIPS		64

/**
 * struct drm_vdxg_present_surface - a surface PRESENT reads or writes
 * @fb_id: a KMS framebuffer (its object, format, size and pitch), or 0
 *	to describe a GEM object with the fields below
 * @handle: GEM handle (with @fb_id 0)
 * @format: DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888 or DRM_FORMAT_RGB565
 * @width: pixels
 * @height: pixels
 * @pitch: bytes per row
 * @offset: byte offset of pixel (0, 0) in the object
 * @pad: must be zero
 *
 * With @fb_id set, @handle, @format, @width, @height, @pitch and @offset
 * must be zero.
 */
struct drm_vdxg_present_surface {
	__u32 fb_id;
	__u32 handle;
	__u32 format;
	__u32 width;
	__u32 height;
	__u32 pitch;
	__u32 offset;
	__u32 pad;
};

/**
 * struct drm_vdxg_rect - a rectangle, x1 and y1 inclusive, x2 and y2 not
 * @x1: left
 * @y1: top
 * @x2: right
 * @y2: bottom
 */
struct drm_vdxg_rect {
	__s32 x1;
	__s32 y1;
	__s32 x2;
	__s32 y2;
};

/**
 * struct drm_vdxg_present - argument of DRM_IOCTL_VDXG_PRESENT
 * @mode: DRM_VDXG_PRESENT_BLIT or DRM_VDXG_PRESENT_FLIP
 * @flags: DRM_VDXG_PRESENT_*
 * @ctx_id: BLIT: the context the blit runs on
 * @crtc_id: FLIP: the CRTC whose primary plane shows @src
 * @src: BLIT: the source; FLIP: the framebuffer to show (@src.fb_id)
 * @dst: BLIT: the destination, a framebuffer or an object
 * @dst_x: BLIT: where the source's pixel (0, 0) lands in @dst
 * @dst_y: BLIT: likewise
 * @num_clips: BLIT: rectangles in @clips, at most DRM_VDXG_MAX_CLIPS;
 *	0 copies the whole source
 * @out_syncobj: a syncobj that receives the present's fence (signalled
 *	when the blit is done, or when the flip is on screen), or 0
 * @clips: BLIT: user pointer to struct drm_vdxg_rect[], in @dst
 *	coordinates; each is clipped to @dst and to the source's image; 0
 *	when @num_clips is 0 (-EINVAL otherwise)
 * @user_data: FLIP: the event's user data
 *
 * A blit is a command buffer the kernel builds (SET_SURFACE, COPY_RECT per
 * clip) and runs through SUBMIT's validation, residency, patching and
 * scheduling, with implicit sync on both objects. A flip is an atomic
 * page flip of the CRTC's primary plane at the next vblank. Errors:
 * -EINVAL bad mode, flags, format, rectangle or padding; -EOPNOTSUPP a
 * framebuffer or a flip on a render-only device (a VF); -ENOENT an unknown
 * handle, framebuffer, CRTC, context or syncobj; -ERANGE a surface outside
 * its object; -E2BIG too many clips; -EBUSY a flip already pending; the
 * errors of SUBMIT.
 */
struct drm_vdxg_present {
	__u32 mode;
	__u32 flags;
	__u32 ctx_id;
	__u32 crtc_id;
	struct drm_vdxg_present_surface src;
	struct drm_vdxg_present_surface dst;
	__s32 dst_x;
	__s32 dst_y;
	__u32 num_clips;
	__u32 out_syncobj;
	__u64 clips;
	__u64 user_data;
};

/**
 * struct drm_vdxg_backing_resource - argument of
 * DRM_IOCTL_VDXG_GET_BACKING_RESOURCE (WDDM's DXGKARG_GETBACKINGRESOURCE)
 *
 * On the physical function, with CAP_SYS_ADMIN: which range of the PF's
 * memory backs resource @resource_index of virtual function @vf_index. A
 * VF's resources are the ranges its VRAM BAR is assembled from, in BAR
 * order, at most DRM_VDXG_MAX_BACKING_RESOURCES of them.
 *
 * A used index gives the range; an unused index (below the maximum)
 * succeeds with every output zero. Errors: -EINVAL for a @vf_index at or
 * above the device's total VFs, a @resource_index at or above the
 * maximum, or non-zero @flags or @pad; -ENOENT when that VF is not
 * enabled; -EOPNOTSUPP on a VF or a device without SR-IOV; -EPERM without
 * CAP_SYS_ADMIN.
 *
 * @vf_index: the VF, 0 for the first.
 * @resource_index: the range, 0 to DRM_VDXG_MAX_BACKING_RESOURCES - 1.
 * @flags: must be zero.
 * @bar: out: the VF BAR the range is part of (2, the VRAM BAR).
 * @host_base: out: the range's CPU physical address through the PF's VRAM
 *	BAR, or 0 when the range lies beyond the PF's BAR.
 * @length: out: bytes, a multiple of the page size.
 * @vram_offset: out: the range's offset in the PF's VRAM.
 * @bar_offset: out: where the range starts in the VF's BAR.
 * @pad: must be zero.
 */
struct drm_vdxg_backing_resource {
	__u32 vf_index;
	__u32 resource_index;
	__u32 flags;
	__u32 bar;
	__u64 host_base;
	__u64 length;
	__u64 vram_offset;
	__u64 bar_offset;
	__u64 pad;
};

#define DRM_VDXG_MAX_BACKING_RESOURCES	32

/*
 * GPU virtual memory (WDDM 2.0's GpuMmu model): a VM is a GPU virtual
 * address space of DRM_VDXG_VM_VA_BITS bits that belongs to the file that
 * created it. Objects are mapped into it with VM_BIND; the page tables are
 * written by the kernel's paging jobs only.
 */
#define DRM_VDXG_VM_VA_BITS		48
#define DRM_VDXG_VM_MAX_PER_FILE	64
#define DRM_VDXG_VM_BIND_MAX_OPS	512

/**
 * struct drm_vdxg_vm_create - argument of DRM_IOCTL_VDXG_VM_CREATE
 * @flags: must be zero
 * @vm_id: out: the VM's id, never 0
 *
 * Errors: -EINVAL non-zero @flags; -EOPNOTSUPP on a device without a GPU
 * MMU; -ENOSPC when the file has DRM_VDXG_VM_MAX_PER_FILE VMs; -ENOMEM.
 * VMs do not take the device's address spaces: the kernel lends each one
 * to a VM while it has work on an engine, whatever their number.
 */
struct drm_vdxg_vm_create {
	__u32 flags;
	__u32 vm_id;
};

/**
 * struct drm_vdxg_vm_destroy - argument of DRM_IOCTL_VDXG_VM_DESTROY
 * @vm_id: the VM
 * @pad: must be zero
 *
 * Unmaps everything; jobs still using the VM keep it alive until they end.
 * Errors: -ENOENT an unknown @vm_id (or one of another file); -EINVAL
 * non-zero @pad.
 */
struct drm_vdxg_vm_destroy {
	__u32 vm_id;
	__u32 pad;
};

/* VM_BIND operations */
#define DRM_VDXG_VM_BIND_OP_MAP		0	/* an object range at @va */
#define DRM_VDXG_VM_BIND_OP_UNMAP	1	/* any range: mappings cut */
#define DRM_VDXG_VM_BIND_OP_MAP_NULL	2	/* sparse: reads 0, drops writes */

/* MAP: the GPU may only read the mapping. */
#define DRM_VDXG_VM_BIND_READ_ONLY	0x1
#define DRM_VDXG_VM_BIND_OP_FLAGS	DRM_VDXG_VM_BIND_READ_ONLY

/**
 * struct drm_vdxg_vm_bind_op - one operation of VM_BIND
 * @op: DRM_VDXG_VM_BIND_OP_*
 * @flags: DRM_VDXG_VM_BIND_* (MAP only; 0 otherwise)
 * @handle: MAP: the GEM object; 0 otherwise
 * @pad: must be zero
 * @obj_offset: MAP: byte offset into the object, page aligned; 0 otherwise
 * @va: first virtual address, page (4 KiB) aligned
 * @range: bytes, page aligned, non-zero, @va + @range at most
 *	2^DRM_VDXG_VM_VA_BITS; MAP: @obj_offset + @range within the object
 *
 * A MAP or MAP_NULL replaces whatever the range mapped before (the old
 * mappings are split or trimmed where the range cuts them); an UNMAP
 * removes every mapping in the range, splitting those it cuts.
 */
struct drm_vdxg_vm_bind_op {
	__u32 op;
	__u32 flags;
	__u32 handle;
	__u32 pad;
	__u64 obj_offset;
	__u64 va;
	__u64 range;
};

/**
 * struct drm_vdxg_vm_bind - argument of DRM_IOCTL_VDXG_VM_BIND
 * @vm_id: the VM
 * @num_ops: entries in @ops, 1 to DRM_VDXG_VM_BIND_MAX_OPS
 * @ops: user pointer to struct drm_vdxg_vm_bind_op[], applied in order
 * @in_syncs: user pointer to struct drm_vdxg_sync[]: the page-table
 *	writes wait for them; one that signals with an error holds nothing
 *	back: the operations are applied all the same (an unmap left undone
 *	would keep entries to memory the object may free), and @out_syncs
 *	signal without error
 * @out_syncs: user pointer to struct drm_vdxg_sync[]: signalled when the
 *	tables are written and the TLBs flushed
 * @num_in_syncs: entries in @in_syncs, at most DRM_VDXG_MAX_SYNCS
 * @num_out_syncs: entries in @out_syncs, at most DRM_VDXG_MAX_SYNCS
 * @flags: must be zero
 * @pad: must be zero
 *
 * Returns once the work is queued: a paging job on the PAGING engine
 * writes the tables (UPDATE_PAGE_TABLE, FLUSH_VM_TLB), ordered after the
 * VM's earlier binds and after moves of the objects involved, and after
 * the work of the VM and of the objects whose mappings change. Each VM's
 * binds have a queue of their own: one waiting for its in-syncobjs holds
 * up the VM's later binds only. Every
 * operation, object and syncobj is checked before any is applied, and
 * the page tables the call may need are allocated first: an error up to
 * then applies nothing. Errors: -EINVAL bad op, flags, pads, alignment,
 * a range outside the VM or the object, a MAP_NULL or UNMAP with a handle
 * or offset, a MAP of an object private to another VM
 * (DRM_VDXG_GEM_VM_PRIVATE), non-zero flags of a sync; -ENOENT an
 * unknown VM (or one of another file), GEM handle or syncobj; -E2BIG too
 * many ops or syncs; -EFAULT a bad pointer; -ENOMEM no memory for page
 * tables; -ENOSPC the page tables the call may need would take the VMs of
 * the file past an eighth of VRAM (a null range takes the largest
 * entries that fit it, up to 512 GiB: tables at its ends only); -EBUSY
 * the VM has binds queued and not yet done (waiting for their
 * in-syncobjs, for instance) and the paging buffers this call may fill
 * (about one for every 32 MiB that its maps write with 4 KiB entries)
 * would take them past the VM's bound: try again once some have
 * signalled (a VM with nothing queued takes any call); -EINTR. Should
 * the kernel run out of memory half-way (for a paging job), the VM is
 * switched off (nothing in it translates any more) and every later
 * VM_BIND fails with -EIO: destroy it.
 */
struct drm_vdxg_vm_bind {
	__u32 vm_id;
	__u32 num_ops;
	__u64 ops;
	__u64 in_syncs;
	__u64 out_syncs;
	__u32 num_in_syncs;
	__u32 num_out_syncs;
	__u32 flags;
	__u32 pad;
};

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_VDXG_DRM_H_ */
