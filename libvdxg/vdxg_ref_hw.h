/* SPDX-License-Identifier: MIT */
/*
 * vdxg_ref_hw: the contract's header, vdxg_hw.h, for the reference
 * implementations (vdxg_ref*.c), which build both in userspace and inside
 * QEMU's tree (its qtests link them). Include it first: inside QEMU's tree
 * it brings qemu/osdep.h, which comes before everything there, and BIT()
 * from qemu/bitops.h; in userspace it supplies BIT() itself.
 */
#ifndef VDXG_REF_HW_H
#define VDXG_REF_HW_H

#if defined(__has_include)
#if __has_include("qemu/osdep.h")
#define VDXG_REF_IN_QEMU 1
#endif
#endif

#ifdef VDXG_REF_IN_QEMU
#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "hw/display/vdxg_hw.h"
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#ifndef VDXG_HW_H
#ifndef BIT
#define BIT(n) (1u << (n))
#endif
#ifndef BIT_ULL
#define BIT_ULL(n) (1ull << (n))
#endif
#include "vdxg_hw.h"
#endif
#endif

#endif /* VDXG_REF_HW_H */
