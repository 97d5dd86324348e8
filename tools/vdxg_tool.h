/* SPDX-License-Identifier: MIT */
/*
 * What the vdxg tools share: a fatal error and the monotonic clock.
 */
#ifndef VDXG_TOOL_H
#define VDXG_TOOL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "vdxg.h"

/* "PROGRAM: WHAT: ERROR" on stderr (ERR: a negative errno), then exit 1. */
static inline void __attribute__((noreturn)) die(const char *what, int err)
{
	extern char *program_invocation_short_name;

	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what,
		vdxg_strerror(err));
	exit(1);
}

/* CLOCK_MONOTONIC, in seconds */
static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif
