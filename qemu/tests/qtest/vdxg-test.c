/*
 * QTest testcases for the vdxg virtual GPU
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The environment variable VDXG_QEMU_ARGS, when set, is added to every
 * QEMU command line (e.g. "-L <dir>" for the machine's firmware).
 *
 * The tests of each unit of the device are in vdxg/<unit>-tests.c; they
 * drive the device through the libqos driver, libqos/vdxg.c.
 */

#include "qemu/osdep.h"
#include "libqtest.h"
#include "vdxg/vdxg-test.h"

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    vdxg_test_add_pci_tests();
    vdxg_test_add_core_tests();
    vdxg_test_add_migration_tests();
    vdxg_test_add_paging_tests();
    vdxg_test_add_mem_tests();
    vdxg_test_add_ring_tests();
    vdxg_test_add_render_tests();
    vdxg_test_add_raster_tests();
    vdxg_test_add_display_tests();
    vdxg_test_add_compose_tests();
    vdxg_test_add_color_tests();
    vdxg_test_add_wb_tests();
    vdxg_test_add_sriov_tests();
    vdxg_test_add_mmu_tests();
    vdxg_test_add_vmode_tests();
    vdxg_test_add_3d_tests();
    vdxg_test_add_3d_diff_tests();

    return g_test_run();
}
