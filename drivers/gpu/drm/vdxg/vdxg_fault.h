/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */
#ifndef _VDXG_FAULT_H_
#define _VDXG_FAULT_H_

#include <linux/ratelimit.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct drm_printer;
struct vdxg_device;

#define VDXG_FAULT_LOG_SIZE	32

/**
 * enum vdxg_fault_kind - what a fault record is about
 * @VDXG_FAULT_KIND_FAULT: the device reported a fault
 * @VDXG_FAULT_KIND_HANG: a job made no progress for a whole timeout
 * @VDXG_FAULT_KIND_LONG: a job ran past its progress allowance
 */
enum vdxg_fault_kind {
	VDXG_FAULT_KIND_FAULT,
	VDXG_FAULT_KIND_HANG,
	VDXG_FAULT_KIND_LONG,
};

/**
 * struct vdxg_fault_rec - one fault or hang
 * @ns: when, in CLOCK_MONOTONIC nanoseconds
 * @kind: &enum vdxg_fault_kind
 * @engine: VDXG_ENGINE_*, or VDXG_FAULT_ENGINE_DISPLAY
 * @reason: VDXG_FAULT_* of a device fault
 * @opcode: the device's FAULT_OPCODE
 * @addr: the address that faulted
 * @context: the ring entry's context id
 * @count: faults the device counted since the previous record
 * @as: a VM_* fault's address space
 * @access: a VM_* fault's access (VDXG_ACCESS_*)
 */
struct vdxg_fault_rec {
	u64 ns;
	u8 kind;
	u8 engine;
	u8 reason;
	u32 opcode;
	u64 addr;
	u32 context;
	u32 count;
	u32 as;
	u32 access;
};

/**
 * struct vdxg_fault_log - the last faults and hangs, for debugfs
 * @lock: protects the records
 * @rec: a ring of records
 * @total: records ever written; the newest is rec[(total - 1) % size]
 * @rs: the rate limit of the kernel messages about them
 */
struct vdxg_fault_log {
	spinlock_t lock; /* protects @rec and @total */
	struct vdxg_fault_rec rec[VDXG_FAULT_LOG_SIZE];
	u64 total;
	struct ratelimit_state rs;
};

void vdxg_fault_init(struct vdxg_device *vdxg);
void vdxg_fault_irq(struct vdxg_device *vdxg);
void vdxg_fault_log_hang(struct vdxg_device *vdxg, unsigned int engine,
			 u32 context, bool too_long);
void vdxg_fault_debugfs(struct vdxg_device *vdxg, struct drm_printer *p);

#endif
