/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */
#ifndef _VDXG_RESOURCE_H_
#define _VDXG_RESOURCE_H_

#include <linux/types.h>

struct drm_printer;

/* IO_RESOURCE_DESCRIPTOR.Option */
#define VDXG_IO_RESOURCE_REQUIRED	0x0
#define VDXG_IO_RESOURCE_PREFERRED	0x1
#define VDXG_IO_RESOURCE_DEFAULT	0x2
#define VDXG_IO_RESOURCE_ALTERNATIVE	0x8

/* IO_RESOURCE_DESCRIPTOR.Type (CmResourceType*) */
#define VDXG_RES_TYPE_PORT		1
#define VDXG_RES_TYPE_INTERRUPT		2
#define VDXG_RES_TYPE_MEMORY		3
#define VDXG_RES_TYPE_MEMORY_LARGE	7

/* IO_RESOURCE_DESCRIPTOR.ShareDisposition (CmResourceShare*) */
#define VDXG_RES_SHARE_UNDETERMINED	0
#define VDXG_RES_SHARE_DEVICE_EXCLUSIVE	1
#define VDXG_RES_SHARE_DRIVER_EXCLUSIVE	2
#define VDXG_RES_SHARE_SHARED		3

/* Flags for memory (CM_RESOURCE_MEMORY_*) */
#define VDXG_RES_MEM_READ_WRITE		0x0000
#define VDXG_RES_MEM_READ_ONLY		0x0001
#define VDXG_RES_MEM_PREFETCHABLE	0x0004
#define VDXG_RES_MEM_COMBINEDWRITE	0x0008
#define VDXG_RES_MEM_LARGE_64		0x0800
/* Flags for interrupts (CM_RESOURCE_INTERRUPT_*) */
#define VDXG_RES_IRQ_LEVEL_SENSITIVE	0x0000
#define VDXG_RES_IRQ_LATCHED		0x0001
#define VDXG_RES_IRQ_MESSAGE		0x0002

#define VDXG_RES_MAX			16

/**
 * enum vdxg_res_state - what became of one descriptor
 * @VDXG_RES_UNTRIED: not tried (yet), e.g. a better option was taken
 * @VDXG_RES_ASSIGNED: this option was taken
 * @VDXG_RES_FAILED: this option was tried and failed with @error
 */
enum vdxg_res_state {
	VDXG_RES_UNTRIED,
	VDXG_RES_ASSIGNED,
	VDXG_RES_FAILED,
};

/**
 * struct vdxg_res_desc - one IO_RESOURCE_DESCRIPTOR and its outcome
 * @name: what the resource is for
 * @option: VDXG_IO_RESOURCE_*
 * @type: VDXG_RES_TYPE_*
 * @share: VDXG_RES_SHARE_*
 * @flags: VDXG_RES_MEM_* or VDXG_RES_IRQ_*
 * @u: the requirement (u.Memory or u.Interrupt)
 * @state: outcome
 * @error: negative errno when @state is VDXG_RES_FAILED
 * @start: assigned bus address, or first Linux IRQ number
 * @len: assigned bytes, or number of vectors
 */
struct vdxg_res_desc {
	const char *name;
	u8 option;
	u8 type;
	u8 share;
	u16 flags;
	union {
		struct {
			u64 length;
			u64 alignment;
			u64 min_addr;
			u64 max_addr;
		} mem;
		struct {
			u32 min_vector;
			u32 max_vector;
		} irq;
	} u;
	enum vdxg_res_state state;
	int error;
	u64 start;
	u64 len;
};

/**
 * struct vdxg_res_list - an IO_RESOURCE_LIST
 * @desc: descriptors, in the order the driver states them
 * @count: descriptors used
 */
struct vdxg_res_list {
	struct vdxg_res_desc desc[VDXG_RES_MAX];
	unsigned int count;
};

typedef int (*vdxg_res_try_fn)(void *ctx, struct vdxg_res_desc *desc);

int vdxg_res_add(struct vdxg_res_list *list, const struct vdxg_res_desc *desc);
int vdxg_res_choose(struct vdxg_res_list *list, unsigned int first,
		    vdxg_res_try_fn try, void *ctx);
void vdxg_res_release(struct vdxg_res_list *list, unsigned int first);
bool vdxg_res_mem_fits(const struct vdxg_res_desc *desc, u64 start, u64 len);
void vdxg_res_print(const struct vdxg_res_list *list, struct drm_printer *p);

#endif
