// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#define CREATE_TRACE_POINTS
#include "vdxg_trace.h"
