/* SPDX-License-Identifier: MIT */
/*
 * vrender: helpers for vdxg's RENDER-engine tests (vdxg_render, vdxg_submit,
 * vdxg_reset), on top of libvdxg and vtest.
 *
 * Every helper asserts (vtest_fail) on an unexpected error, and skips the
 * subtest (vtest_skip) when the device has no RENDER engine.
 *
 * Buffers with an expected image: a struct vr_buf is a mapped buffer object
 * plus a CPU copy of what it must contain. Tests apply each command both to
 * the GPU (through a vdxg_cs) and to the copy (through vdxg_ref), then
 * vr_buf_check() compares the whole object byte for byte, so that a write
 * outside a surface is caught as well as a wrong pixel.
 */
#ifndef VRENDER_H
#define VRENDER_H

#include <stdbool.h>
#include <stdint.h>

/* vdxg_hw.h, with the BIT() it takes from the kernel or QEMU */
#include "vdxg_ref_hw.h"
#include "vdxg.h"
#include "vdxg_ref.h"
#include "vtest.h"

#define VR_SEC		1000000000ll
/* How long a helper waits for a job before it calls the GPU hung. */
#define VR_WAIT_NS	(30 * VR_SEC)

struct vr {
	struct vdxg_device *dev;
	int fd;
	uint64_t vram_size;
	uint64_t aperture_size;
	uint64_t max_command_size;
	uint64_t max_allocations;
	uint64_t max_patches;
};

/*
 * Open the vdxg render node. Skips without a vdxg device or without a
 * RENDER engine (ENGINES bit 0, and CONTEXT_CREATE not ENODEV).
 */
void vr_open(struct vr *vr);
/* vr_open() on a device already open (any node); @vr owns it then. */
void vr_open_dev(struct vr *vr, struct vdxg_device *dev);
void vr_close(struct vr *vr);
uint64_t vr_param(struct vr *vr, uint32_t param);
/*
 * Bytes of objects a test that oversubscribes VRAM may create: @want, or
 * 7/8 of DRM_VDXG_PARAM_COMMIT_LIMIT when that is less (the rest for the
 * objects of the library and the device).
 */
uint64_t vr_commit_room(struct vr *vr, uint64_t want);
/* A context on the RENDER engine at normal priority. */
uint32_t vr_ctx(struct vr *vr);
/* GET_RESET_STATUS of CTX. */
struct drm_vdxg_reset_status vr_reset_status(struct vr *vr, uint32_t ctx);

/*
 * A buffer object of SIZE bytes in the segments SEG0 then SEG1 (0: none),
 * CPU-accessible. DRM_VDXG_SEGMENT_* values.
 */
struct vdxg_bo *vr_bo(struct vr *vr, uint64_t size, uint32_t seg0,
		      uint32_t seg1);
void *vr_map(struct vdxg_bo *bo);
/*
 * A zeroed, mapped 4 KiB VRAM object for a job to WAIT on (vdxg_cs_wait):
 * the job holds its ring until the test writes the value.
 */
uint8_t *vr_hold_bo(struct vr *vr, struct vdxg_bo **bo);
/* GEM_WAIT for VR_WAIT_NS; fails on a timeout. */
void vr_bo_wait(struct vdxg_bo *bo);
/* GEM_WAIT polling: true when the object is idle. */
bool vr_bo_idle(struct vdxg_bo *bo);
/* GEM_INFO: the segment and GPU address now. */
uint32_t vr_bo_segment(struct vdxg_bo *bo);
uint64_t vr_bo_gpu_addr(struct vdxg_bo *bo);

/* vdxg_submit, asserted to succeed; opts may be NULL. */
void vr_submit(struct vr *vr, uint32_t ctx, struct vdxg_cs *cs,
	       struct vdxg_submit_opts *opts);
/* A fresh command-stream builder, asserted. */
struct vdxg_cs *vr_cs(void);
/* Assert the builder recorded no error. */
void vr_cs_ok(struct vdxg_cs *cs);

/* A 64-bit little-endian value in a mapping. */
uint64_t vr_read64(const void *map, uint64_t offset);
void vr_write64(void *map, uint64_t offset, uint64_t value);
/*
 * Poll until the value at MAP + OFFSET is VALUE (a job got that far): a
 * state to wait for, not a time. Fails after VR_WAIT_NS, naming WHAT.
 */
void vr_wait64(const void *map, uint64_t offset, uint64_t value,
	       const char *what);

/*
 * One FENCE of VALUE at BO + OFFSET on CTX, then wait and check that the
 * value landed: proof that CTX (and the engine) work.
 */
void vr_fence_check(struct vr *vr, uint32_t ctx, struct vdxg_bo *bo,
		    uint32_t offset, uint64_t value);

/*
 * Append to CS a DRAW_TRIANGLES whose first vertex has X = 2^24 + 16, out
 * of the engine's range: a PARAM fault the kernel cannot see coming (the
 * vertices are data in an object). *DST and *VB receive the objects it
 * uses, for the caller to free once the job is over.
 */
void vr_cs_fault(struct vr *vr, struct vdxg_cs *cs, struct vdxg_bo **dst,
		 struct vdxg_bo **vb);
/* Poll GET_RESET_STATUS until CTX is banned (fails after 30 s). */
struct drm_vdxg_reset_status vr_wait_banned(struct vr *vr, uint32_t ctx);

/* ------------------------------------------------------------ syncobjs */

uint32_t vr_syncobj(struct vr *vr, bool signaled);
/* Wait for a binary syncobj (point 0) or a timeline point; -ETIME etc. */
int vr_syncobj_wait(struct vr *vr, uint32_t handle, uint64_t point,
		    int64_t rel_timeout_ns);
/*
 * The status of the fence in a syncobj (point 0 for binary): 1 signalled
 * without error, 0 pending, negative the fence's error. Through a
 * sync_file and SYNC_IOC_FILE_INFO.
 */
int vr_syncobj_status(struct vr *vr, uint32_t handle, uint64_t point);

/* --------------------------------------------------------- expectations */

struct vr_buf {
	struct vdxg_bo *bo;
	uint8_t *map;		/* the object, mapped */
	uint8_t *ref;		/* what it must contain */
	uint64_t size;
	uint32_t segment;	/* DRM_VDXG_SEGMENT_* asked for */
};

void vr_buf_init(struct vr *vr, struct vr_buf *b, uint64_t size,
		 uint32_t segment);
void vr_buf_fini(struct vr_buf *b);
/* Random bytes into both the object and its expected copy. */
void vr_buf_randomize(struct vr_buf *b, uint64_t *rng);
/* Copy the object into the expected copy (after an unchecked job). */
void vr_buf_sync_ref(struct vr_buf *b);

/* A surface inside a vr_buf. */
struct vr_surf {
	struct vr_buf *buf;
	uint32_t offset;
	uint32_t format;	/* VDXG_FMT_* */
	uint32_t width, height, pitch;
};

uint32_t vr_cpp(uint32_t format);
const char *vr_format_name(uint32_t format);
/* A surface of W x H in FORMAT at OFFSET, pitch W * cpp rounded up to 64. */
struct vr_surf vr_surf(struct vr_buf *b, uint32_t offset, uint32_t format,
		       uint32_t w, uint32_t h);
/* Bytes the surface spans, as the engine computes it. */
uint64_t vr_surf_extent(const struct vr_surf *s);
/* The reference renderer's view of the expected copy. */
struct vdxg_ref_surface vr_ref(const struct vr_surf *s);
/* SET_SURFACE of S into SLOT. */
void vr_cs_surface(struct vdxg_cs *cs, uint32_t slot, const struct vr_surf *s);

/*
 * Compare the whole object with its expected copy. On a mismatch, print
 * up to 8 differing places, as pixels of the surfaces given (NSURF of
 * them, may be 0) where they fall inside one, and fail.
 */
void vr_buf_check(struct vr_buf *b, const struct vr_surf *surfs, int nsurf,
		  const char *what);

/* ----------------------------------------------------------------- misc */

/* A seeded xorshift64* generator; vr_seed prints the seed (VTEST_SEED). */
uint64_t vr_seed(void);
uint32_t vr_rand(uint64_t *state);
/* Uniform in [lo, hi]. */
int32_t vr_rand_range(uint64_t *state, int32_t lo, int32_t hi);

/* The number after "KEY: " in debugfs dri/<minor>/NAME. */
uint64_t vr_debugfs(struct vr *vr, const char *name, const char *key);
/* /sys/module/vdxg/parameters/NAME as a number. */
uint64_t vr_module_param(const char *name);
/*
 * Reload vdxg with the module parameters PARAMS ("job_timeout_ms=100 ..."),
 * run FN in a child process, then reload vdxg with those parameters as
 * they were, however FN ended: success, failure, skip, a crash, or the
 * subtest's timeout (which kills FN). The subtest then ends as FN did.
 * Skips when vdxg cannot be reloaded with PARAMS.
 */
void vr_with_module_params(const char *params, void (*fn)(void));
/* The value of KEY ("drm-engine-render") in /proc/self/fdinfo/FD. */
bool vr_fdinfo(int fd, const char *key, uint64_t *value);

/*
 * Tell igt_runner that kernel messages matching REGEX are expected in the
 * rest of this subtest (IGT's igt_emit_ignore_dmesg_regex).
 */
void vr_ignore_dmesg(const char *regex);
/* The kernel messages an engine reset, a fault and a ban print. */
#define VR_RESET_DMESG \
	"engine: context [0-9]+ (hung|ran too long), resetting|" \
	"engine [01] fault: |a client hung the GPU [0-9]+ times"

void vr_sleep_ms(unsigned int ms);
double vr_now(void);

/* ------------------------------------------------------------- vertices */

struct vr_vertex {
	int32_t x, y;		/* 1/16 pixel */
	uint32_t z;
	uint32_t color;		/* ARGB8888 */
	int32_t u, v;		/* 16.16 texels */
	uint32_t pad[2];
};

#endif /* VRENDER_H */
