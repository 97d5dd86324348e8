/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */
#ifndef _VDXG_HANG_H_
#define _VDXG_HANG_H_

#include <linux/types.h>

/*
 * Timeouts a job that keeps making progress may run through while other
 * clients' jobs wait for the engine, and while none do.
 */
#define VDXG_HANG_MAX_PERIODS		10
#define VDXG_HANG_MAX_PERIODS_ALONE	300

/**
 * struct vdxg_hang_watch - what the last timeout saw of the head entry
 * @seqno: its seqno
 * @progress: the engine's PROGRESS then
 * @periods: timeouts it has run through while making progress
 */
struct vdxg_hang_watch {
	u64 seqno;
	u32 progress;
	unsigned int periods;
};

/**
 * enum vdxg_hang_verdict - what a timeout makes of the head entry
 * @VDXG_HANG_RUNNING: slow but moving: leave it
 * @VDXG_HANG_HUNG: faulted, stuck in a WAIT, or no work since last time
 * @VDXG_HANG_TOO_LONG: moving, but past %VDXG_HANG_MAX_PERIODS timeouts
 *	while others wait for the engine, or %VDXG_HANG_MAX_PERIODS_ALONE
 */
enum vdxg_hang_verdict {
	VDXG_HANG_RUNNING,
	VDXG_HANG_HUNG,
	VDXG_HANG_TOO_LONG,
};

enum vdxg_hang_verdict vdxg_hang_check(struct vdxg_hang_watch *w, u64 seqno,
				       u32 status, u32 progress, bool contended);
bool vdxg_hang_ban(u64 *hangs, unsigned int n, unsigned int *next, u64 now,
		   u64 window);

#endif
