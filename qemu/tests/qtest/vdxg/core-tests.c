/*
 * QTest testcases for the vdxg virtual GPU: interrupts (MSI-X, MSI, INTx), soft reset and device reset
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "vdxg-test.h"

/* Reset */

static void test_soft_reset(void)
{
    static const uint32_t bad_values[] = {
        0, 1, 0xffffffff, VDXG_RESET_MAGIC + 1, VDXG_RESET_MAGIC << 1,
        0x54455352,     /* the magic byte-swapped */
    };
    uint32_t table[VDXG_MSIX_VECTORS][4];
    uint16_t cmd;
    uint32_t bar0;
    Vdxg v;
    int i, vec, f;

    vdxg_start(&v, NULL);
    msix_setup(&v);
    /* Give each vector its own state to check it survives a soft reset. */
    msix_entry_set(&v, 2, MSG_ADDR + 32, MSIX_DATA(2), true);
    for (vec = 0; vec < VDXG_MSIX_VECTORS; vec++) {
        for (f = 0; f < 4; f++) {
            table[vec][f] = msix_entry_get(&v, vec, f * 4);
        }
    }
    cmd = qpci_config_readw(v.dev, PCI_COMMAND);
    bar0 = qpci_config_readl(v.dev, PCI_BASE_ADDRESS_0);

    wr(&v, VDXG_REG_SCRATCH, 0xdeadbeef);
    wr(&v, VDXG_REG_INT_MASK, VDXG_INT_VALID_MASK);
    wr(&v, VDXG_REG_INT_TRIGGER, VDXG_INT_SELFTEST);
    g_assert_cmphex(rd(&v, VDXG_REG_INT_STATUS), ==, VDXG_INT_SELFTEST);
    assert_msix_messages(&v, VDXG_MSIX_VEC_MISC);

    /* Anything but the magic is ignored. */
    for (i = 0; i < ARRAY_SIZE(bad_values); i++) {
        wr(&v, VDXG_REG_RESET, bad_values[i]);
        g_assert_cmphex(rd(&v, VDXG_REG_SCRATCH), ==, 0xdeadbeef);
        g_assert_cmphex(rd(&v, VDXG_REG_INT_MASK), ==, VDXG_INT_VALID_MASK);
        g_assert_cmphex(rd(&v, VDXG_REG_INT_STATUS), ==, VDXG_INT_SELFTEST);
        g_assert_cmphex(rd(&v, VDXG_REG_RESET_COUNT), ==, 0);
    }

    for (i = 1; i <= 3; i++) {
        wr(&v, VDXG_REG_RESET, VDXG_RESET_MAGIC);
        g_assert_cmphex(rd(&v, VDXG_REG_RESET_COUNT), ==, i);
        g_assert_cmphex(rd(&v, VDXG_REG_SCRATCH), ==, 0);
        g_assert_cmphex(rd(&v, VDXG_REG_INT_MASK), ==, 0);
        g_assert_cmphex(rd(&v, VDXG_REG_INT_STATUS), ==, 0);
        g_assert_cmphex(rd(&v, VDXG_REG_STATUS), ==, VDXG_STATUS_READY);
        g_assert_cmphex(rd(&v, VDXG_REG_ID), ==, VDXG_ID_MAGIC);
        g_assert_cmphex(rd(&v, VDXG_REG_CAPS), ==,
                        VDXG_CAP_MSIX | BASE_CAPS);
        wr(&v, VDXG_REG_SCRATCH, i);
    }

    /* Configuration space and the MSI-X table are untouched. */
    g_assert_cmphex(qpci_config_readw(v.dev, PCI_COMMAND), ==, cmd);
    g_assert_cmphex(qpci_config_readl(v.dev, PCI_BASE_ADDRESS_0), ==, bar0);
    g_assert_false(qpci_msix_masked(v.dev, 0));
    for (vec = 0; vec < VDXG_MSIX_VECTORS; vec++) {
        for (f = 0; f < 4; f++) {
            g_assert_cmphex(msix_entry_get(&v, vec, f * 4), ==,
                            table[vec][f]);
        }
    }

    /* The device works after the reset. */
    msg_clear(&v);
    wr(&v, VDXG_REG_INT_MASK, VDXG_INT_SELFTEST);
    wr(&v, VDXG_REG_INT_TRIGGER, VDXG_INT_SELFTEST);
    assert_msix_messages(&v, VDXG_MSIX_VEC_MISC);

    vdxg_stop(&v);
}

static void test_device_reset(void)
{
    Vdxg v;

    vdxg_start(&v, "msix=off,msi=off");
    wr(&v, VDXG_REG_RESET, VDXG_RESET_MAGIC);
    wr(&v, VDXG_REG_RESET, VDXG_RESET_MAGIC);
    wr(&v, VDXG_REG_SCRATCH, 0x12345678);
    wr(&v, VDXG_REG_INT_MASK, VDXG_INT_SELFTEST);
    wr(&v, VDXG_REG_INT_TRIGGER, VDXG_INT_SELFTEST);
    g_assert_cmphex(rd(&v, VDXG_REG_RESET_COUNT), ==, 2);
    g_assert_true(intx_asserted(&v));

    qtest_qmp_assert_success(v.qts, "{ 'execute': 'system_reset' }");
    qtest_qmp_eventwait(v.qts, "RESET");

    /* Configuration space is back to power-on: map the BAR again. */
    g_assert_cmphex(qpci_config_readw(v.dev, PCI_COMMAND) &
                    PCI_COMMAND_MEMORY, ==, 0);
    g_assert_false(intx_asserted(&v));
    qpci_device_enable(v.dev);
    v.mmio = qpci_iomap(v.dev, VDXG_BAR_MMIO, NULL);

    g_assert_cmphex(rd(&v, VDXG_REG_ID), ==, VDXG_ID_MAGIC);
    g_assert_cmphex(rd(&v, VDXG_REG_RESET_COUNT), ==, 0);
    g_assert_cmphex(rd(&v, VDXG_REG_SCRATCH), ==, 0);
    g_assert_cmphex(rd(&v, VDXG_REG_INT_MASK), ==, 0);
    g_assert_cmphex(rd(&v, VDXG_REG_INT_STATUS), ==, 0);
    g_assert_cmphex(rd(&v, VDXG_REG_STATUS), ==, VDXG_STATUS_READY);
    g_assert_false(intx_asserted(&v));

    vdxg_stop(&v);
}

/* Interrupts */

static void test_msix(void)
{
    Vdxg v;

    vdxg_start(&v, NULL);

    /* Until MSI-X is enabled, the interrupt goes out on INTx... */
    wr(&v, VDXG_REG_INT_MASK, VDXG_INT_SELFTEST);
    wr(&v, VDXG_REG_INT_TRIGGER, VDXG_INT_SELFTEST);
    g_assert_true(intx_asserted(&v));

    /* ... which enabling MSI-X deasserts. */
    msix_setup(&v);
    g_assert_false(intx_asserted(&v));
    assert_msix_messages(&v, -1);
    wr(&v, VDXG_REG_INT_ACK, VDXG_INT_SELFTEST);
    g_assert_cmphex(rd(&v, VDXG_REG_INT_STATUS), ==, 0);

    /* The self-test interrupt is signalled on the misc vector. */
    wr(&v, VDXG_REG_INT_TRIGGER, VDXG_INT_SELFTEST);
    g_assert_cmphex(rd(&v, VDXG_REG_INT_STATUS), ==, VDXG_INT_SELFTEST);
    assert_msix_messages(&v, VDXG_MSIX_VEC_MISC);
    g_assert_false(intx_asserted(&v));

    /* A bit that is already set does not signal again. */
    msg_clear(&v);
    wr(&v, VDXG_REG_INT_TRIGGER, VDXG_INT_SELFTEST);
    assert_msix_messages(&v, -1);

    /* After an ack, it does. */
    wr(&v, VDXG_REG_INT_ACK, VDXG_INT_SELFTEST);
    g_assert_cmphex(rd(&v, VDXG_REG_INT_STATUS), ==, 0);
    wr(&v, VDXG_REG_INT_TRIGGER, VDXG_INT_SELFTEST);
    assert_msix_messages(&v, VDXG_MSIX_VEC_MISC);

    /* A disabled source sets its status bit but signals nothing... */
    wr(&v, VDXG_REG_INT_ACK, VDXG_INT_SELFTEST);
    wr(&v, VDXG_REG_INT_MASK, 0);
    msg_clear(&v);
    wr(&v, VDXG_REG_INT_TRIGGER, VDXG_INT_SELFTEST);
    g_assert_cmphex(rd(&v, VDXG_REG_INT_STATUS), ==, VDXG_INT_SELFTEST);
    assert_msix_messages(&v, -1);
    /* ... until it is enabled while pending. */
    wr(&v, VDXG_REG_INT_MASK, VDXG_INT_SELFTEST);
    assert_msix_messages(&v, VDXG_MSIX_VEC_MISC);

    /* A masked vector sets its pending bit, delivered on unmask. */
    wr(&v, VDXG_REG_INT_ACK, VDXG_INT_SELFTEST);
    msg_clear(&v);
    msix_entry_set(&v, 0, MSG_ADDR, MSIX_DATA(0), true);
    wr(&v, VDXG_REG_INT_TRIGGER, VDXG_INT_SELFTEST);
    assert_msix_messages(&v, -1);
    g_assert_true(qpci_msix_pending(v.dev, 0));
    msix_entry_set(&v, 0, MSG_ADDR, MSIX_DATA(0), false);
    assert_msix_messages(&v, VDXG_MSIX_VEC_MISC);
    g_assert_false(qpci_msix_pending(v.dev, 0));

    /* Disabling MSI-X with the source pending moves it back to INTx. */
    qpci_msix_disable(v.dev);
    g_assert_true(intx_asserted(&v));
    wr(&v, VDXG_REG_INT_ACK, VDXG_INT_SELFTEST);
    g_assert_false(intx_asserted(&v));

    vdxg_stop(&v);
}

static void test_msi(void)
{
    Vdxg v;
    uint8_t cap;
    uint16_t flags;

    vdxg_start(&v, "msix=off");
    g_assert_cmphex(rd(&v, VDXG_REG_CAPS), ==, BASE_CAPS);

    cap = qpci_find_capability(v.dev, PCI_CAP_ID_MSI, 0);
    g_assert_cmphex(cap, !=, 0);
    qpci_config_writel(v.dev, cap + PCI_MSI_ADDRESS_LO, MSG_ADDR);
    qpci_config_writel(v.dev, cap + PCI_MSI_ADDRESS_HI, 0);
    qpci_config_writew(v.dev, cap + PCI_MSI_DATA_64, MSI_DATA);
    flags = qpci_config_readw(v.dev, cap + PCI_MSI_FLAGS);
    qpci_config_writew(v.dev, cap + PCI_MSI_FLAGS,
                       flags | PCI_MSI_FLAGS_ENABLE);
    qtest_writel(v.qts, MSG_ADDR, 0);

    wr(&v, VDXG_REG_INT_MASK, VDXG_INT_SELFTEST);
    g_assert_cmphex(qtest_readl(v.qts, MSG_ADDR), ==, 0);
    wr(&v, VDXG_REG_INT_TRIGGER, VDXG_INT_SELFTEST);
    g_assert_cmphex(qtest_readl(v.qts, MSG_ADDR), ==, MSI_DATA);
    g_assert_false(intx_asserted(&v));

    /* No new message while the bit stays set; a new one after an ack */
    qtest_writel(v.qts, MSG_ADDR, 0);
    wr(&v, VDXG_REG_INT_TRIGGER, VDXG_INT_SELFTEST);
    g_assert_cmphex(qtest_readl(v.qts, MSG_ADDR), ==, 0);
    wr(&v, VDXG_REG_INT_ACK, VDXG_INT_SELFTEST);
    wr(&v, VDXG_REG_INT_TRIGGER, VDXG_INT_SELFTEST);
    g_assert_cmphex(qtest_readl(v.qts, MSG_ADDR), ==, MSI_DATA);

    /* Disabling MSI with the source pending moves it to INTx. */
    qpci_config_writew(v.dev, cap + PCI_MSI_FLAGS, flags);
    g_assert_true(intx_asserted(&v));
    wr(&v, VDXG_REG_INT_ACK, VDXG_INT_SELFTEST);
    g_assert_false(intx_asserted(&v));

    vdxg_stop(&v);
}

/* The I/O APIC inputs that q35 wires PCI interrupts to, as a bitmap. */
static uint32_t pci_gsis(Vdxg *v)
{
    uint32_t gsis = 0;
    int gsi;

    for (gsi = 16; gsi < 24; gsi++) {
        if (qtest_get_irq(v->qts, gsi)) {
            gsis |= 1u << gsi;
        }
    }
    return gsis;
}

static void test_intx(void)
{
    uint32_t gsi;
    uint16_t cmd;
    Vdxg v;

    vdxg_start(&v, "msix=off,msi=off");
    qtest_irq_intercept_in(v.qts, "ioapic");

    /* A disabled source does not assert INTx. */
    wr(&v, VDXG_REG_INT_TRIGGER, VDXG_INT_SELFTEST);
    g_assert_cmphex(rd(&v, VDXG_REG_INT_STATUS), ==, VDXG_INT_SELFTEST);
    g_assert_false(intx_asserted(&v));
    g_assert_cmphex(pci_gsis(&v), ==, 0);

    /* Enabling it while pending does, on exactly one I/O APIC input. */
    wr(&v, VDXG_REG_INT_MASK, VDXG_INT_SELFTEST);
    g_assert_true(intx_asserted(&v));
    gsi = pci_gsis(&v);
    g_assert_cmphex(gsi, !=, 0);
    g_assert_true(is_power_of_2(gsi));

    /* The level follows STATUS & MASK: ack, mask and soft reset. */
    wr(&v, VDXG_REG_INT_ACK, VDXG_INT_SELFTEST);
    g_assert_false(intx_asserted(&v));
    g_assert_cmphex(pci_gsis(&v), ==, 0);

    wr(&v, VDXG_REG_INT_TRIGGER, VDXG_INT_SELFTEST);
    g_assert_true(intx_asserted(&v));
    g_assert_cmphex(pci_gsis(&v), ==, gsi);

    wr(&v, VDXG_REG_INT_MASK, 0);
    g_assert_false(intx_asserted(&v));
    g_assert_cmphex(pci_gsis(&v), ==, 0);

    wr(&v, VDXG_REG_INT_MASK, VDXG_INT_SELFTEST);
    g_assert_true(intx_asserted(&v));

    /* Acking another source leaves the level alone. */
    wr(&v, VDXG_REG_INT_ACK, VDXG_INT_FAULT);
    g_assert_true(intx_asserted(&v));

    /* The PCI command register's INTx disable gates the pin. */
    cmd = qpci_config_readw(v.dev, PCI_COMMAND);
    qpci_config_writew(v.dev, PCI_COMMAND, cmd | PCI_COMMAND_INTX_DISABLE);
    g_assert_cmphex(pci_gsis(&v), ==, 0);
    qpci_config_writew(v.dev, PCI_COMMAND, cmd);
    g_assert_cmphex(pci_gsis(&v), ==, gsi);

    wr(&v, VDXG_REG_RESET, VDXG_RESET_MAGIC);
    g_assert_false(intx_asserted(&v));
    g_assert_cmphex(pci_gsis(&v), ==, 0);

    vdxg_stop(&v);
}

void vdxg_test_add_core_tests(void)
{
    qtest_add_func("/vdxg/soft-reset", test_soft_reset);
    qtest_add_func("/vdxg/device-reset", test_device_reset);
    qtest_add_func("/vdxg/msix", test_msix);
    qtest_add_func("/vdxg/msi", test_msi);
    qtest_add_func("/vdxg/intx", test_intx);
}
