/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */
#ifndef _VDXG_DRV_H_
#define _VDXG_DRV_H_

#include <linux/completion.h>
#include <linux/io.h>
#include <linux/pci.h>
#include <linux/sizes.h>

#include <drm/drm_device.h>
#include <drm/ttm/ttm_device.h>

#include "vdxg_display.h"
#include "vdxg_fault.h"
#include "vdxg_hw.h"
#include "vdxg_paging.h"
#include "vdxg_render.h"
#include "vdxg_resource.h"
#include "vdxg_sriov.h"
#include "vdxg_vm.h"
#include "vdxg_vram_mgr.h"

#define DRIVER_NAME		"vdxg"
#define DRIVER_DESC		"vdxg WDDM-model virtual GPU"
#define DRIVER_MAJOR		1
#define DRIVER_MINOR		0

/* Reserved at the start of VRAM for rings, paging buffers and the GART. */
#define VDXG_KMEM_SIZE		SZ_8M

struct ttm_resource;
struct vdxg_device;

/**
 * struct vdxg_gart - the aperture's translation table
 * @entries: GART entries, one per aperture page
 * @table: CPU mapping of the table in reserved VRAM (read by debugfs only)
 * @table_gpu: its GPU address
 * @dummy: the page invalid entries point at
 * @dummy_dma: its bus address
 */
struct vdxg_gart {
	u32 entries;
	u64 __iomem *table;
	u64 table_gpu;
	void *dummy;
	dma_addr_t dummy_dma;
};

/**
 * struct vdxg_irq_vector - one interrupt vector and the sources it serves
 * @vdxg: the device
 * @sources: VDXG_INT_* bits handled on this vector
 * @irq: Linux IRQ number
 */
struct vdxg_irq_vector {
	struct vdxg_device *vdxg;
	u32 sources;
	int irq;
};

/**
 * struct vdxg_device - a vdxg PCI function
 * @drm: the DRM device
 * @pdev: the PCI device
 * @mmio: register BAR mapping
 * @resources: what the driver asked for and what it got
 * @res_irq: index of the interrupt group in @resources
 * @caps: VDXG_REG_CAPS
 * @hw_version: VDXG_REG_VERSION
 * @engines: VDXG_REG_ENGINES
 * @num_crtcs: VDXG_REG_NUM_CRTCS
 * @vram_size: VRAM bytes
 * @vram_bar_start: bus address of the VRAM BAR
 * @vram_bar_size: CPU-visible VRAM bytes
 * @aperture_base: GPU address of the aperture
 * @aperture_size: aperture bytes
 * @irq: interrupt state
 * @irq.mode: DRM_VDXG_IRQ_MODE_*
 * @irq.nvec: vectors in use
 * @irq.mask: sources enabled in VDXG_REG_INT_MASK
 * @irq.vec: per-vector state
 * @irq.selftest: completed by the self-test interrupt
 * @irq.count: interrupts handled, per source bit
 * @kmem: reserved VRAM
 * @kmem.cpu: its CPU mapping
 * @kmem.used: bytes handed out
 * @paging: the paging queue, when the device has a PAGING engine
 * @render: the render engine, when the device has one
 * @display: the display engine, when the device has one
 * @gart: the aperture's GART
 * @ttm: the TTM device holding the memory segments
 * @vram_mgr: TTM's VRAM segment
 * @sriov: SR-IOV state of a PF
 * @vm: GPU virtual memory
 * @faults: fault records reported by the device
 * @fault_log: the last faults and hangs, and their message rate limit
 */
struct vdxg_device {
	struct drm_device drm;
	struct pci_dev *pdev;
	void __iomem *mmio;

	struct vdxg_res_list resources;
	int res_irq;

	u32 caps;
	u32 hw_version;
	u32 engines;
	u32 num_crtcs;
	u64 vram_size;
	resource_size_t vram_bar_start;
	resource_size_t vram_bar_size;
	u64 aperture_base;
	u64 aperture_size;

	struct {
		int mode;
		unsigned int nvec;
		u32 mask;
		struct vdxg_irq_vector vec[VDXG_MSIX_VECTORS];
		struct completion selftest;
		atomic_t count[32];
	} irq;

	struct {
		void __iomem *cpu;
		u32 used;
	} kmem;

	struct vdxg_paging paging;
	struct vdxg_render render;
	struct vdxg_display display;
	struct vdxg_gart gart;
	struct ttm_device ttm;
	struct vdxg_vram_mgr vram_mgr;
	struct vdxg_sriov sriov;
	struct vdxg_vm_mgr vm;
	atomic_t faults;
	struct vdxg_fault_log fault_log;
};

static inline struct vdxg_device *to_vdxg(struct drm_device *drm)
{
	return container_of(drm, struct vdxg_device, drm);
}

static inline u32 vdxg_rd(struct vdxg_device *vdxg, u32 reg)
{
	return readl(vdxg->mmio + reg);
}

static inline void vdxg_wr(struct vdxg_device *vdxg, u32 reg, u32 val)
{
	writel(val, vdxg->mmio + reg);
}

static inline u64 vdxg_rd64(struct vdxg_device *vdxg, u32 lo)
{
	u32 l = vdxg_rd(vdxg, lo);

	return ((u64)vdxg_rd(vdxg, lo + 4) << 32) | l;
}

/* vdxg_pci.c */
int vdxg_pci_init(struct vdxg_device *vdxg);
void vdxg_pci_reset(struct vdxg_device *vdxg);

/* vdxg_kmem.c */
int vdxg_kmem_init(struct vdxg_device *vdxg);
int vdxg_kmem_alloc(struct vdxg_device *vdxg, u32 size, u64 *gpu,
		    void __iomem **cpu);

/* vdxg_gart.c */
int vdxg_gart_init(struct vdxg_device *vdxg);
void vdxg_gart_fini(struct vdxg_device *vdxg);
void vdxg_gart_program(struct vdxg_device *vdxg);

/* vdxg_pm.c */
extern const struct dev_pm_ops vdxg_pm_ops;

/* vdxg_ttm.c */
int vdxg_ttm_init(struct vdxg_device *vdxg);
u64 vdxg_ttm_gpu_addr(struct vdxg_device *vdxg, const struct ttm_resource *res);
void vdxg_ttm_engine_room(struct vdxg_device *vdxg, u64 *vram, u64 *aperture);
bool vdxg_ttm_cpu_visible(struct vdxg_device *vdxg,
			  const struct ttm_resource *res);

/* The VRAM offset (and GPU address) of page @pfn of TTM's VRAM segment. */
static inline u64 vdxg_vram_offset(u64 pfn)
{
	return VDXG_KMEM_SIZE + (pfn << PAGE_SHIFT);
}

/* vdxg_irq.c */
int vdxg_irq_init(struct vdxg_device *vdxg);
void vdxg_irq_fini(struct vdxg_device *vdxg);
void vdxg_irq_enable(struct vdxg_device *vdxg, u32 sources);
void vdxg_irq_restore(struct vdxg_device *vdxg);

/* vdxg_ioctl.c */
int vdxg_ioctl_get_param(struct drm_device *drm, void *data,
			 struct drm_file *file);

/* vdxg_debugfs.c */
void vdxg_debugfs_init(struct vdxg_device *vdxg);

#endif
