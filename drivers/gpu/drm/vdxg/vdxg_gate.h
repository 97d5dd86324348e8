/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */
#ifndef _VDXG_GATE_H_
#define _VDXG_GATE_H_

#include <linux/types.h>

struct dma_fence;
struct dma_resv;
struct vdxg_device;
struct vdxg_job;

bool vdxg_fence_gated(struct vdxg_device *vdxg, struct dma_fence *fence);
bool vdxg_resv_gated(struct vdxg_device *vdxg, struct dma_resv *resv);
struct dma_fence *vdxg_resv_gating_fence(struct vdxg_device *vdxg,
					 struct dma_resv *resv);
void vdxg_job_gate(struct vdxg_job *job);
struct dma_fence *vdxg_job_gating_fence(struct vdxg_job *job);
void vdxg_job_gate_pushed(struct vdxg_job *job);

#endif
