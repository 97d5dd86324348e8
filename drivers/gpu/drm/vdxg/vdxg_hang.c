// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include "vdxg_hang.h"
#include "vdxg_hw.h"

/**
 * DOC: Hang policy
 *
 * Two decisions, kept free of the hardware so that KUnit tests them:
 *
 * - At a job timeout, is the entry at the head of the ring hung? Yes if
 *   the engine halted on a fault or is stalled in a WAIT; yes if it did no
 *   work on the entry (PROGRESS) since the last timeout; no the first time
 *   a timeout sees an entry, which may have started just now. A job that
 *   keeps making progress gets %VDXG_HANG_MAX_PERIODS timeouts once other
 *   clients' jobs wait for the engine: it keeps the engine from them, and
 *   is reset at the first timeout that finds it past them. Alone, it gets
 *   %VDXG_HANG_MAX_PERIODS_ALONE: a heavy frame on a slow machine keeps
 *   nobody waiting, and a runaway one still ends.
 * - Is a file that was just guilty of a reset to be banned? Yes when this
 *   was its n-th guilty reset within the window.
 */

/**
 * vdxg_hang_check - judge the head entry at a timeout
 * @w: what the previous timeout saw; updated
 * @seqno: the head entry's seqno
 * @status: the engine's STATUS
 * @progress: the engine's PROGRESS
 * @contended: another client's jobs wait for the engine
 *
 * Return: the verdict.
 */
enum vdxg_hang_verdict vdxg_hang_check(struct vdxg_hang_watch *w, u64 seqno,
				       u32 status, u32 progress, bool contended)
{
	if (status & (VDXG_ENG_STATUS_HALTED | VDXG_ENG_STATUS_WAITING))
		return VDXG_HANG_HUNG;
	if (seqno != w->seqno) {
		w->seqno = seqno;
		w->progress = progress;
		w->periods = 0;
		return VDXG_HANG_RUNNING;
	}
	if (progress == w->progress)
		return VDXG_HANG_HUNG;
	w->progress = progress;
	++w->periods;
	if (w->periods >= VDXG_HANG_MAX_PERIODS_ALONE ||
	    (contended && w->periods >= VDXG_HANG_MAX_PERIODS))
		return VDXG_HANG_TOO_LONG;
	return VDXG_HANG_RUNNING;
}

/**
 * vdxg_hang_ban - record a guilty reset; is it one too many?
 * @hangs: the times of the last @n guilty resets, 0 for none
 * @n: entries in @hangs
 * @next: the entry the next reset goes to; updated
 * @now: the time of this one
 * @window: how close @n resets must be to ban
 *
 * Return: true when this is the @n-th reset within @window.
 */
bool vdxg_hang_ban(u64 *hangs, unsigned int n, unsigned int *next, u64 now,
		   u64 window)
{
	u64 oldest;

	hangs[*next] = now;
	*next = (*next + 1) % n;
	oldest = hangs[*next];
	return oldest && now - oldest <= window;
}
