// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <drm/drm_print.h>

#include "vdxg_drv.h"

/**
 * DOC: Faults
 *
 * When an engine meets a bad address, opcode or length it stops, latches a
 * fault record and raises the FAULT interrupt (docs/hardware.md,
 * "Faults"). The handler logs the record, counts it, clears it, and tells
 * the engine's scheduler, which then runs its timeout handler at once
 * instead of waiting: that resets the engine and fails the faulting job.
 */

static const char *vdxg_fault_reason(u32 reason)
{
	static const char * const names[] = {
		[VDXG_FAULT_NONE] = "none",
		[VDXG_FAULT_ADDRESS] = "address",
		[VDXG_FAULT_BOUNDS] = "bounds",
		[VDXG_FAULT_OPCODE] = "opcode",
		[VDXG_FAULT_LENGTH] = "length",
		[VDXG_FAULT_RING] = "ring",
		[VDXG_FAULT_PARAM] = "parameter",
	};

	return reason < ARRAY_SIZE(names) ? names[reason] : "unknown";
}

/**
 * vdxg_fault_irq - handle the FAULT interrupt
 * @vdxg: the device
 */
void vdxg_fault_irq(struct vdxg_device *vdxg)
{
	u32 status = vdxg_rd(vdxg, VDXG_REG_FAULT_STATUS);
	u32 engine, reason, opcode, count;
	u64 addr;

	if (!(status & VDXG_FAULT_STATUS_VALID))
		return;

	engine = vdxg_rd(vdxg, VDXG_REG_FAULT_ENGINE);
	reason = vdxg_rd(vdxg, VDXG_REG_FAULT_REASON);
	opcode = vdxg_rd(vdxg, VDXG_REG_FAULT_OPCODE);
	addr = vdxg_rd64(vdxg, VDXG_REG_FAULT_ADDR_LO);
	count = vdxg_rd(vdxg, VDXG_REG_FAULT_COUNT);
	vdxg_wr(vdxg, VDXG_REG_FAULT_CLEAR, 1);
	atomic_add(max(count, 1u), &vdxg->faults);

	drm_err_ratelimited(&vdxg->drm,
			    "engine %u fault: %s, opcode 0x%02x, address 0x%llx (%u since last)\n",
			    engine, vdxg_fault_reason(reason), opcode, addr, count);

	if (engine == VDXG_ENGINE_PAGING && vdxg->paging.engine.vdxg)
		drm_sched_fault(&vdxg->paging.engine.sched);
	else if (engine == VDXG_ENGINE_RENDER && vdxg->render.engine.vdxg)
		drm_sched_fault(&vdxg->render.engine.sched);
}
