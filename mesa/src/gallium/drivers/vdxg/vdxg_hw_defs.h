/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

#ifndef VDXG_HW_DEFS_H
#define VDXG_HW_DEFS_H

/*
 * The hardware contract (vdxg_hw.h, shared by the device, the kernel and
 * libvdxg) and libvdxg, which this driver uses as i915g uses libdrm_intel.
 * The contract header wants the kernel's BIT() and BIT_ULL().
 */
#include <stdint.h>

#ifndef BIT
#define BIT(n) (1u << (n))
#endif
#ifndef BIT_ULL
#define BIT_ULL(n) (1ull << (n))
#endif

#include "vdxg.h"
#include "vdxg_hw.h"

#endif
