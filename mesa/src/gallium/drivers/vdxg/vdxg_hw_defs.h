/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

#ifndef VDXG_HW_DEFS_H
#define VDXG_HW_DEFS_H

/*
 * The hardware contract (vdxg_hw.h, shared by the device, the kernel and
 * libvdxg) and libvdxg, which this driver uses as i915g uses libdrm_intel.
 * libvdxg's vdxg_ref_hw.h gives it the kernel's BIT() and BIT_ULL().
 */
#include "vdxg_ref_hw.h"
#include "vdxg.h"

#endif
