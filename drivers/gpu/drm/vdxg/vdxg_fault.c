// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/ktime.h>

#include <drm/drm_print.h>

#include "vdxg_drv.h"
#include "vdxg_fault.h"

/**
 * DOC: Faults
 *
 * When an engine meets a bad address, opcode or length it stops, latches a
 * fault record and raises the FAULT interrupt (docs/hardware.md,
 * "Faults"). The handler records the fault, clears it, and has the engine
 * recovered at once (see "Engines"): the faulting job fails and its
 * context is blamed.
 *
 * Any client can cause faults and hangs, so the kernel log hears of them
 * at most ten times a minute per device. The last %VDXG_FAULT_LOG_SIZE
 * faults and hangs are kept in full in the debugfs file ``faults``.
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
		[VDXG_FAULT_VM_NOT_PRESENT] = "not present",
		[VDXG_FAULT_VM_READ_ONLY] = "read-only",
		[VDXG_FAULT_VM_BAD_TABLE] = "bad page table",
		[VDXG_FAULT_VM_NO_EXEC] = "no-exec",
		[VDXG_FAULT_SHADER] = "shader",
	};

	return reason < ARRAY_SIZE(names) ? names[reason] : "unknown";
}

static const char *vdxg_fault_access(u32 access)
{
	static const char * const names[] = {
		[VDXG_ACCESS_READ] = "read",
		[VDXG_ACCESS_WRITE] = "write",
		[VDXG_ACCESS_FETCH] = "fetch",
	};

	return access < ARRAY_SIZE(names) ? names[access] : "?";
}

static const char *vdxg_engine_name(u32 engine)
{
	switch (engine) {
	case VDXG_ENGINE_RENDER:
		return "render";
	case VDXG_ENGINE_PAGING:
		return "paging";
	case VDXG_FAULT_ENGINE_DISPLAY:
		return "display";
	}
	return "unknown";
}

/**
 * vdxg_fault_init - set up the fault log
 * @vdxg: the device
 */
void vdxg_fault_init(struct vdxg_device *vdxg)
{
	spin_lock_init(&vdxg->fault_log.lock);
	ratelimit_state_init(&vdxg->fault_log.rs, 60 * HZ, 10);
}

static void vdxg_fault_record(struct vdxg_device *vdxg,
			      const struct vdxg_fault_rec *rec)
{
	struct vdxg_fault_log *log = &vdxg->fault_log;
	unsigned long flags;

	spin_lock_irqsave(&log->lock, flags);
	log->rec[log->total++ % VDXG_FAULT_LOG_SIZE] = *rec;
	spin_unlock_irqrestore(&log->lock, flags);
}

/**
 * vdxg_fault_irq - handle the FAULT interrupt
 * @vdxg: the device
 */
void vdxg_fault_irq(struct vdxg_device *vdxg)
{
	u32 status = vdxg_rd(vdxg, VDXG_REG_FAULT_STATUS);
	struct vdxg_fault_rec rec = { .kind = VDXG_FAULT_KIND_FAULT };

	if (!(status & VDXG_FAULT_STATUS_VALID))
		return;

	rec.ns = ktime_get_ns();
	rec.engine = vdxg_rd(vdxg, VDXG_REG_FAULT_ENGINE);
	rec.reason = vdxg_rd(vdxg, VDXG_REG_FAULT_REASON);
	rec.opcode = vdxg_rd(vdxg, VDXG_REG_FAULT_OPCODE);
	rec.addr = vdxg_rd64(vdxg, VDXG_REG_FAULT_ADDR_LO);
	rec.context = vdxg_rd(vdxg, VDXG_REG_FAULT_CONTEXT);
	rec.count = vdxg_rd(vdxg, VDXG_REG_FAULT_COUNT);
	if (rec.reason >= VDXG_FAULT_VM_NOT_PRESENT) {
		rec.as = vdxg_rd(vdxg, VDXG_REG_FAULT_VM);
		rec.access = vdxg_rd(vdxg, VDXG_REG_FAULT_ACCESS);
	}
	vdxg_wr(vdxg, VDXG_REG_FAULT_CLEAR, 1);
	atomic_add(max(rec.count, 1u), &vdxg->faults);
	vdxg_fault_record(vdxg, &rec);

	if (__ratelimit(&vdxg->fault_log.rs))
		drm_err(&vdxg->drm,
			"engine %u fault: %s, opcode 0x%02x, address 0x%llx, context %u (%u since last)\n",
			rec.engine, vdxg_fault_reason(rec.reason), rec.opcode,
			rec.addr, rec.context, rec.count);

	if (rec.engine == VDXG_ENGINE_PAGING && vdxg->paging.engine.vdxg) {
		vdxg_engine_fault(&vdxg->paging.engine);
	} else if (rec.engine == VDXG_ENGINE_RENDER && vdxg->render.engine.vdxg) {
		vdxg_render_note_fault(vdxg, &rec);
		vdxg_engine_fault(&vdxg->render.engine);
	}
}

/**
 * vdxg_fault_log_hang - record a hung job
 * @vdxg: the device
 * @engine: VDXG_ENGINE_*
 * @context: the context id of its ring entry
 * @too_long: it made progress, but past its allowance
 */
void vdxg_fault_log_hang(struct vdxg_device *vdxg, unsigned int engine,
			 u32 context, bool too_long)
{
	struct vdxg_fault_rec rec = {
		.ns = ktime_get_ns(),
		.kind = too_long ? VDXG_FAULT_KIND_LONG : VDXG_FAULT_KIND_HANG,
		.engine = engine,
		.context = context,
	};

	vdxg_fault_record(vdxg, &rec);
	if (__ratelimit(&vdxg->fault_log.rs))
		drm_err(&vdxg->drm, "%s engine: context %u %s, resetting the engine\n",
			vdxg_engine_name(engine), context,
			too_long ? "ran too long" : "hung");
}

/**
 * vdxg_fault_debugfs - print the fault log, oldest first
 * @vdxg: the device
 * @p: where to
 */
void vdxg_fault_debugfs(struct vdxg_device *vdxg, struct drm_printer *p)
{
	static const char * const kinds[] = { "fault", "hang", "too-long" };
	struct vdxg_fault_log *log = &vdxg->fault_log;
	struct vdxg_fault_rec *recs;
	unsigned long flags;
	u64 total, first, i;

	recs = kmalloc_array(VDXG_FAULT_LOG_SIZE, sizeof(*recs), GFP_KERNEL);
	if (!recs)
		return;
	spin_lock_irqsave(&log->lock, flags);
	memcpy(recs, log->rec, sizeof(log->rec));
	total = log->total;
	spin_unlock_irqrestore(&log->lock, flags);

	drm_printf(p, "total: %llu\n", total);
	first = total > VDXG_FAULT_LOG_SIZE ? total - VDXG_FAULT_LOG_SIZE : 0;
	for (i = first; i < total; i++) {
		const struct vdxg_fault_rec *r = &recs[i % VDXG_FAULT_LOG_SIZE];

		drm_printf(p, "%llu: %llu.%06llu %s %s context %u",
			   i, r->ns / NSEC_PER_SEC,
			   (r->ns % NSEC_PER_SEC) / NSEC_PER_USEC,
			   vdxg_engine_name(r->engine), kinds[r->kind],
			   r->context);
		if (r->kind == VDXG_FAULT_KIND_FAULT)
			drm_printf(p, " %s opcode 0x%x address 0x%llx count %u",
				   vdxg_fault_reason(r->reason), r->opcode,
				   r->addr, r->count);
		if (r->kind == VDXG_FAULT_KIND_FAULT &&
		    r->reason >= VDXG_FAULT_VM_NOT_PRESENT)
			drm_printf(p, " as %u %s", r->as,
				   vdxg_fault_access(r->access));
		drm_puts(p, "\n");
	}
	kfree(recs);
}
