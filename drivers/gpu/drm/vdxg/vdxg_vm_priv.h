/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */
#ifndef _VDXG_VM_PRIV_H_
#define _VDXG_VM_PRIV_H_

#include <linux/types.h>

#include <drm/drm_gpuvm.h>
#include <drm/vdxg_drm.h>

#include "vdxg_pt.h"
#include "vdxg_vm.h"

struct dma_fence;
struct drm_exec;
struct ttm_buffer_object;
struct vdxg_file;
struct vdxg_pg_batch;

#define VDXG_VM_VA_END		BIT_ULL(DRM_VDXG_VM_VA_BITS)
/* drm_gpuva.flags: the GPU may only read the mapping */
#define VDXG_GPUVA_READ_ONLY	DRM_GPUVA_USERBITS

static inline struct vdxg_vm *to_vdxg_vm(struct drm_gpuvm *gpuvm)
{
	return container_of(gpuvm, struct vdxg_vm, gpuvm);
}

/**
 * struct vdxg_vm_step - what drm_gpuvm's steps of one operation need
 * @vm: the VM
 * @b: the paging batch the entries go to
 * @flags: DRM_GPUVA_* and VDXG_GPUVA_* of the mapping being made
 */
struct vdxg_vm_step {
	struct vdxg_vm *vm;
	struct vdxg_pg_batch *b;
	u32 flags;
};

/* vdxg_vm_pt.c: the page-table objects and their reserve */
extern const struct vdxg_pt_ops vdxg_vm_pt_ops;
int vdxg_vm_reserve_fill(struct vdxg_vm *vm, u64 want);
void vdxg_vm_reserve_trim(struct vdxg_vm *vm, u64 keep);
void vdxg_vm_reserve_free(struct vdxg_vm *vm);
u64 vdxg_vm_tables_max(u64 range, int first);
u64 vdxg_vm_slots(u64 va, u64 range);
u64 vdxg_vm_va_slots(const struct drm_gpuva *va);

/* vdxg_vm_pt.c: mapping an object */
int vdxg_vm_populate(struct ttm_buffer_object *tbo);
u64 vdxg_vm_pte_flags(const struct drm_gpuva *va);
int vdxg_vm_emit_map(struct vdxg_vm *vm, struct vdxg_pg_batch *b,
		     struct drm_gpuva *va, u64 addr, u64 range);
int vdxg_vm_emit_unmap(struct vdxg_vm *vm, struct vdxg_pg_batch *b,
		       u64 addr, u64 range);

/* vdxg_vm_bind.c: drm_gpuvm's steps and the VM's release */
extern const struct drm_gpuvm_ops vdxg_gpuvm_ops;
void vdxg_vm_free(struct drm_gpuvm *gpuvm);

/* vdxg_vm_bind.c: VM_BIND's helpers, and the updates of a VM's tables */
void vdxg_vm_exec_fini(struct drm_exec *exec);
bool vdxg_vm_has_evicted(struct vdxg_vm *vm);
struct vdxg_vm *vdxg_vm_lookup(struct vdxg_file *vf, u32 id);
void vdxg_vm_free_tables(struct vdxg_vm *vm, struct list_head *tables);
int vdxg_vm_bind_deps(struct vdxg_pg_batch *b, struct drm_exec *exec);
void vdxg_vm_break(struct vdxg_vm *vm, const char *why);
int vdxg_vm_update_begin(struct vdxg_vm *vm, struct vdxg_pg_batch *b);
void vdxg_vm_update_done(struct vdxg_vm *vm, struct dma_fence *fence);
struct dma_fence *vdxg_vm_update_end(struct vdxg_vm *vm,
				     struct vdxg_pg_batch *b);

/* vdxg_vm_residency.c: drm_gpuvm_validate()'s step */
int vdxg_vm_bo_validate(struct drm_gpuvm_bo *vm_bo, struct drm_exec *exec);

#endif
