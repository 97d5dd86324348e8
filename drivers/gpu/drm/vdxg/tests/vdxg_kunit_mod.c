// SPDX-License-Identifier: MIT
/*
 * Module information for vdxg_kunit, the KUnit tests of vdxg's pure logic
 * when they are built without the driver. With the driver, the tests are
 * part of the vdxg module and this file is not used.
 *
 * Copyright 2026 The vdxg authors
 */

#include <linux/module.h>

MODULE_DESCRIPTION("KUnit tests for the vdxg DRM driver's pure logic");
MODULE_AUTHOR("The vdxg authors");
MODULE_LICENSE("Dual MIT/GPL");
