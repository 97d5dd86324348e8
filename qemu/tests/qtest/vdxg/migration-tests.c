/*
 * QTest testcases for the vdxg virtual GPU: migration of an idle device
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "vdxg-test.h"

/* Migration */

static void test_migration(void)
{
    g_autofree char *tmpdir = g_dir_make_tmp("vdxg-test-XXXXXX", NULL);
    g_autofree char *sock = NULL;
    g_autofree char *uri = NULL;
    uint32_t bar0;
    Vdxg src, dst;
    int i;

    g_assert_nonnull(tmpdir);
    sock = g_strdup_printf("%s/migration", tmpdir);
    uri = g_strdup_printf("unix:%s", sock);

    vdxg_start(&src, NULL);
    msix_setup(&src);
    msix_entry_set(&src, 3, MSG_ADDR + 48, MSIX_DATA(3), true);
    for (i = 0; i < 3; i++) {
        wr(&src, VDXG_REG_RESET, VDXG_RESET_MAGIC);
    }
    wr(&src, VDXG_REG_SCRATCH, 0xfeedf00d);
    wr(&src, VDXG_REG_INT_MASK, VDXG_INT_SELFTEST | VDXG_INT_RENDER_FENCE);
    wr(&src, VDXG_REG_INT_TRIGGER, VDXG_INT_SELFTEST);
    assert_msix_messages(&src, VDXG_MSIX_VEC_MISC);
    bar0 = qpci_config_readl(src.dev, PCI_BASE_ADDRESS_0);

    dst.qts = qtest_initf("-machine q35 -nodefaults %s "
                          "-device vdxg,addr=%02x.0 -incoming %s",
                          vdxg_qemu_args(), VDXG_SLOT, uri);
    qtest_qmp_assert_success(src.qts, "{ 'execute': 'migrate', "
                             "'arguments': { 'uri': %s } }", uri);
    qtest_qmp_eventwait(dst.qts, "RESUME");

    /* Configuration space came along: use the BAR where it is. */
    dst.bus = qpci_new_pc(dst.qts, NULL);
    dst.dev = qpci_device_find(dst.bus, VDXG_DEVFN);
    g_assert_nonnull(dst.dev);
    g_assert_cmphex(qpci_config_readl(dst.dev, PCI_BASE_ADDRESS_0), ==, bar0);
    g_assert_cmphex(qpci_config_readw(dst.dev, PCI_COMMAND) &
                    PCI_COMMAND_MEMORY, ==, PCI_COMMAND_MEMORY);
    dst.mmio = (QPCIBar) { .addr = bar0 & PCI_BASE_ADDRESS_MEM_MASK };

    g_assert_cmphex(rd(&dst, VDXG_REG_ID), ==, VDXG_ID_MAGIC);
    g_assert_cmphex(rd(&dst, VDXG_REG_SCRATCH), ==, 0xfeedf00d);
    g_assert_cmphex(rd(&dst, VDXG_REG_RESET_COUNT), ==, 3);
    g_assert_cmphex(rd(&dst, VDXG_REG_INT_MASK), ==,
                    VDXG_INT_SELFTEST | VDXG_INT_RENDER_FENCE);
    g_assert_cmphex(rd(&dst, VDXG_REG_INT_STATUS), ==, VDXG_INT_SELFTEST);

    /* MSI-X is still enabled with its table, and still delivers. */
    qpci_msix_enable(dst.dev);
    g_assert_false(qpci_msix_masked(dst.dev, 0));
    g_assert_true(qpci_msix_masked(dst.dev, 3));
    g_assert_cmphex(msix_entry_get(&dst, 0, PCI_MSIX_ENTRY_DATA), ==,
                    MSIX_DATA(0));
    assert_msix_messages(&dst, VDXG_MSIX_VEC_MISC);
    msg_clear(&dst);
    wr(&dst, VDXG_REG_INT_ACK, VDXG_INT_SELFTEST);
    wr(&dst, VDXG_REG_INT_TRIGGER, VDXG_INT_SELFTEST);
    assert_msix_messages(&dst, VDXG_MSIX_VEC_MISC);
    g_assert_false(intx_asserted(&dst));

    vdxg_stop(&dst);
    vdxg_stop(&src);
    g_unlink(sock);
    g_rmdir(tmpdir);
}

void vdxg_test_add_migration_tests(void)
{
    qtest_add_func("/vdxg/migration", test_migration);
}
