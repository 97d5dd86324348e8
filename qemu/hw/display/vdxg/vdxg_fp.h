/*
 * vdxg: the 3D pipeline's floating-point arithmetic
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

/*
 * Included first by each file that computes what docs/hardware.md
 * ("Arithmetic") specifies: every operation rounds on its own, so a
 * multiply and an add must never be contracted into a fused
 * multiply-add, whatever instructions the compiler may use. GCC ignores
 * the standard pragma and takes the option instead.
 */
#ifndef HW_DISPLAY_VDXG_FP_H
#define HW_DISPLAY_VDXG_FP_H

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#endif
