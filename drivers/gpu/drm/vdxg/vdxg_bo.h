/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */
#ifndef _VDXG_BO_H_
#define _VDXG_BO_H_

#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/vdxg_drm.h>

struct dma_buf_attachment;
struct dma_resv;
struct drm_device;
struct drm_file;
struct drm_gem_object;
struct sg_table;
struct drm_mode_create_dumb;
struct vdxg_device;

/**
 * struct vdxg_bo - a GEM object on a TTM buffer object (a WDDM allocation)
 * @tbo: the TTM object; its GEM object is @tbo.base
 * @flags: DRM_VDXG_GEM_*
 * @places: the preferred segment set as TTM places, most preferred first
 * @placement: @places as a TTM placement
 * @gpu_places: @places without system memory, which the engines do not
 *	reach; empty for an object the GPU cannot use
 * @gpu_placement: @gpu_places as a TTM placement
 * @mem_type: the TTM memory type it was last moved to, for fdinfo
 * @vm_resv: for an object private to a VM, the VM's reservation object
 *	(a reference): the object shares its reservation
 * @scanout: a framebuffer was made of it: its users sync implicitly
 */
struct vdxg_bo {
	struct ttm_buffer_object tbo;
	u32 flags;
	struct ttm_place places[DRM_VDXG_MAX_SEGMENTS];
	struct ttm_placement placement;
	struct ttm_place gpu_places[DRM_VDXG_MAX_SEGMENTS];
	struct ttm_placement gpu_placement;
	u32 mem_type;
	struct drm_gem_object *vm_resv;
	bool scanout;
};

static inline struct vdxg_bo *to_vdxg_bo(struct ttm_buffer_object *tbo)
{
	return container_of(tbo, struct vdxg_bo, tbo);
}

u64 vdxg_bo_commit_limit(void);
u64 vdxg_bo_committed(void);
bool vdxg_is_bo(struct ttm_buffer_object *tbo);
bool vdxg_bo_vm_private(struct drm_gem_object *obj);
void vdxg_bo_set_scanout(struct drm_gem_object *obj);
bool vdxg_bo_shared(struct drm_gem_object *obj);
int vdxg_bo_create(struct vdxg_device *vdxg, u64 size, u32 flags,
		   const u32 *segments, u32 num_segments, struct vdxg_bo **out);
int vdxg_bo_create_sg(struct vdxg_device *vdxg, u64 size, u32 flags,
		      const u32 *segments, u32 num_segments,
		      struct sg_table *sg, struct dma_resv *resv,
		      struct vdxg_bo **out);

/* vdxg_prime.c */
int vdxg_gem_pin(struct drm_gem_object *obj);
void vdxg_gem_unpin(struct drm_gem_object *obj);
struct sg_table *vdxg_gem_get_sg_table(struct drm_gem_object *obj);
struct drm_gem_object *
vdxg_gem_prime_import_sg_table(struct drm_device *drm,
			       struct dma_buf_attachment *attach,
			       struct sg_table *sgt);
int vdxg_ttm_tt_populate(struct ttm_device *bdev, struct ttm_tt *tt,
			 struct ttm_operation_ctx *ctx);
void vdxg_ttm_tt_unpopulate(struct ttm_device *bdev, struct ttm_tt *tt);

int vdxg_gem_create_ioctl(struct drm_device *drm, void *data,
			  struct drm_file *file);
int vdxg_gem_mmap_offset_ioctl(struct drm_device *drm, void *data,
			       struct drm_file *file);
int vdxg_gem_wait_ioctl(struct drm_device *drm, void *data,
			struct drm_file *file);
int vdxg_gem_info_ioctl(struct drm_device *drm, void *data,
			struct drm_file *file);
int vdxg_gem_make_resident_ioctl(struct drm_device *drm, void *data,
				 struct drm_file *file);
int vdxg_dumb_create(struct drm_file *file, struct drm_device *drm,
		     struct drm_mode_create_dumb *args);

#endif
