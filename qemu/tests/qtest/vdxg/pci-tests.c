/*
 * QTest testcases for the vdxg virtual GPU: the PCI function: identification, BARs, resizable BAR, bad guest input
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "vdxg-test.h"

/* Identification */

static void test_identity(void)
{
    Vdxg v;
    uint8_t cap;
    uint16_t flags;

    vdxg_start(&v, NULL);

    g_assert_cmphex(qpci_config_readw(v.dev, PCI_VENDOR_ID), ==,
                    VDXG_PCI_VENDOR_ID);
    g_assert_cmphex(qpci_config_readw(v.dev, PCI_DEVICE_ID), ==,
                    VDXG_PCI_DEVICE_ID);
    g_assert_cmphex(qpci_config_readb(v.dev, PCI_REVISION_ID), ==,
                    VDXG_PCI_REVISION);
    g_assert_cmphex(qpci_config_readw(v.dev, PCI_CLASS_DEVICE), ==, 0x0380);
    g_assert_cmphex(qpci_config_readb(v.dev, PCI_CLASS_PROG), ==, 0);
    g_assert_cmphex(qpci_config_readb(v.dev, PCI_HEADER_TYPE) & 0x7f, ==,
                    PCI_HEADER_TYPE_NORMAL);
    g_assert_cmphex(qpci_config_readb(v.dev, PCI_INTERRUPT_PIN), ==, 1);

    /* A PCI Express integrated endpoint on q35's root bus */
    cap = qpci_find_capability(v.dev, PCI_CAP_ID_EXP, 0);
    g_assert_cmphex(cap, !=, 0);
    flags = qpci_config_readw(v.dev, cap + PCI_EXP_FLAGS);
    g_assert_cmphex((flags & PCI_EXP_FLAGS_TYPE) >> 4, ==,
                    PCI_EXP_TYPE_RC_END);

    /* MSI: one vector, 64-bit addresses */
    cap = qpci_find_capability(v.dev, PCI_CAP_ID_MSI, 0);
    g_assert_cmphex(cap, !=, 0);
    flags = qpci_config_readw(v.dev, cap + PCI_MSI_FLAGS);
    g_assert_cmphex(flags & PCI_MSI_FLAGS_QMASK, ==, 0);
    g_assert_cmphex(flags & PCI_MSI_FLAGS_64BIT, ==, PCI_MSI_FLAGS_64BIT);

    /* MSI-X: table and PBA in BAR 4 */
    cap = qpci_find_capability(v.dev, PCI_CAP_ID_MSIX, 0);
    g_assert_cmphex(cap, !=, 0);
    g_assert_cmpuint(qpci_msix_table_size(v.dev), ==, VDXG_MSIX_VECTORS);
    g_assert_cmpuint(qpci_config_readl(v.dev, cap + PCI_MSIX_TABLE) &
                     PCI_MSIX_FLAGS_BIRMASK, ==, VDXG_BAR_MSIX);
    g_assert_cmpuint(qpci_config_readl(v.dev, cap + PCI_MSIX_PBA) &
                     PCI_MSIX_FLAGS_BIRMASK, ==, VDXG_BAR_MSIX);

    g_assert_cmphex(rd(&v, VDXG_REG_ID), ==, VDXG_ID_MAGIC);
    g_assert_cmphex(rd(&v, VDXG_REG_VERSION), ==, VDXG_VERSION);
    g_assert_cmphex(rd(&v, VDXG_REG_VERSION), ==, 1 << 16);
    g_assert_cmphex(rd(&v, VDXG_REG_CAPS), ==,
                    VDXG_CAP_MSIX | BASE_CAPS);
    g_assert_cmphex(rd(&v, VDXG_REG_STATUS), ==, VDXG_STATUS_READY);
    g_assert_cmphex(rd64(&v, VDXG_REG_VRAM_SIZE_LO), ==,
                    VDXG_VRAM_SIZE_DEFAULT);
    g_assert_cmphex(rd64(&v, VDXG_REG_APERTURE_BASE_LO), ==,
                    VDXG_APERTURE_BASE);
    g_assert_cmphex(rd64(&v, VDXG_REG_APERTURE_SIZE_LO), ==,
                    VDXG_APERTURE_SIZE_DEFAULT);
    g_assert_cmphex(rd(&v, VDXG_REG_ENGINES), ==, ALL_ENGINES);
    g_assert_cmphex(rd(&v, VDXG_REG_ENGINES), ==, 0x3);
    g_assert_cmphex(rd(&v, VDXG_REG_NUM_CRTCS), ==, 1);
    g_assert_cmphex(rd(&v, VDXG_REG_SCRATCH), ==, 0);
    g_assert_cmphex(rd(&v, VDXG_REG_RESET_COUNT), ==, 0);
    g_assert_cmphex(rd(&v, VDXG_REG_INT_STATUS), ==, 0);
    g_assert_cmphex(rd(&v, VDXG_REG_INT_MASK), ==, 0);
    g_assert_false(intx_asserted(&v));

    vdxg_stop(&v);
}

/* msix=off and msi=off remove the capabilities and the CAPS bit. */
static void test_identity_no_msi(void)
{
    Vdxg v;
    uint32_t flags;

    vdxg_start(&v, "msix=off,msi=off");
    g_assert_cmphex(rd(&v, VDXG_REG_CAPS), ==, BASE_CAPS);
    g_assert_cmphex(qpci_find_capability(v.dev, PCI_CAP_ID_MSIX, 0), ==, 0);
    g_assert_cmphex(qpci_find_capability(v.dev, PCI_CAP_ID_MSI, 0), ==, 0);
    g_assert_cmphex(qpci_find_capability(v.dev, PCI_CAP_ID_EXP, 0), !=, 0);
    g_assert_cmphex(qpci_config_readb(v.dev, PCI_INTERRUPT_PIN), ==, 1);
    qpci_config_writew(v.dev, PCI_COMMAND, 0);
    g_assert_cmpuint(bar_size(v.dev, VDXG_BAR_MSIX, &flags), ==, 0);
    vdxg_stop(&v);

    vdxg_start(&v, "msi=off");
    g_assert_cmphex(rd(&v, VDXG_REG_CAPS), ==,
                    VDXG_CAP_MSIX | BASE_CAPS);
    g_assert_cmphex(qpci_find_capability(v.dev, PCI_CAP_ID_MSIX, 0), !=, 0);
    g_assert_cmphex(qpci_find_capability(v.dev, PCI_CAP_ID_MSI, 0), ==, 0);
    vdxg_stop(&v);
}

/* Behind a PCI Express root port the device is a regular endpoint. */
static void test_root_port(void)
{
    QTestState *qts;
    QPCIBus *bus;
    QPCIDevice *dev;
    uint8_t cap;

    qts = vdxg_qtest_start("-device pcie-root-port,id=rp0,bus=pcie.0,"
                           "addr=05.0,chassis=1 "
                           "-device vdxg,bus=rp0");
    bus = qpci_new_pc(qts, NULL);
    g_assert_cmpint(qpci_secondary_buses_init(bus), ==, 1);
    dev = qpci_device_find(bus, QPCI_DEVFN(1 << 5, 0));
    g_assert_nonnull(dev);
    g_assert_cmphex(qpci_config_readw(dev, PCI_VENDOR_ID), ==,
                    VDXG_PCI_VENDOR_ID);
    g_assert_cmphex(qpci_config_readw(dev, PCI_DEVICE_ID), ==,
                    VDXG_PCI_DEVICE_ID);
    cap = qpci_find_capability(dev, PCI_CAP_ID_EXP, 0);
    g_assert_cmphex(cap, !=, 0);
    g_assert_cmphex((qpci_config_readw(dev, cap + PCI_EXP_FLAGS) &
                     PCI_EXP_FLAGS_TYPE) >> 4, ==, PCI_EXP_TYPE_ENDPOINT);
    g_free(dev);
    qpci_free_pc(bus);
    qtest_quit(qts);
}

static void test_aperture_size(void)
{
    Vdxg v;

    vdxg_start(&v, "aperture-size=2G");
    g_assert_cmphex(rd64(&v, VDXG_REG_APERTURE_SIZE_LO), ==, 2ull << 30);
    g_assert_cmphex(rd64(&v, VDXG_REG_APERTURE_BASE_LO), ==,
                    VDXG_APERTURE_BASE);
    vdxg_stop(&v);
}

/* BARs */

static void test_bar_sizes(const void *data)
{
    uint64_t vram_size = *(const uint64_t *)data;
    g_autofree char *props = g_strdup_printf("vram-size=%" PRIu64,
                                             vram_size);
    uint64_t size, check, off;
    uint32_t flags;
    QPCIBar vram;
    Vdxg v;

    vdxg_start(&v, props);
    g_assert_cmphex(rd64(&v, VDXG_REG_VRAM_SIZE_LO), ==, vram_size);

    /* Size the BARs with memory decoding off, as firmware does. */
    qpci_config_writew(v.dev, PCI_COMMAND, 0);

    size = bar_size(v.dev, VDXG_BAR_MMIO, &flags);
    g_assert_cmphex(size, ==, VDXG_MMIO_SIZE);
    g_assert_cmphex(flags, ==, PCI_BASE_ADDRESS_SPACE_MEMORY |
                    PCI_BASE_ADDRESS_MEM_TYPE_32);

    /* On PCI Express the BAR is a resizable window onto VRAM's start */
    size = bar_size(v.dev, VDXG_BAR_VRAM, &flags);
    g_assert_cmphex(size, ==, MIN(vram_size, VDXG_VRAM_BAR_SIZE_DEFAULT));
    g_assert_cmphex(flags, ==, PCI_BASE_ADDRESS_SPACE_MEMORY |
                    PCI_BASE_ADDRESS_MEM_TYPE_64 |
                    PCI_BASE_ADDRESS_MEM_PREFETCH);

    size = bar_size(v.dev, VDXG_BAR_MSIX, &flags);
    g_assert_cmphex(size, ==, 4096);
    g_assert_cmphex(flags & PCI_BASE_ADDRESS_SPACE, ==,
                    PCI_BASE_ADDRESS_SPACE_MEMORY);

    /* VRAM is memory: what is written reads back (libqos maps below 4G) */
    qpci_device_enable(v.dev);
    if (vram_size <= 256 * MiB) {
        vram = qpci_iomap(v.dev, VDXG_BAR_VRAM, &size);
        g_assert_cmphex(size, ==, MIN(vram_size, VDXG_VRAM_BAR_SIZE_DEFAULT));
        check = MIN(vram_size, 64 * MiB);
        for (off = 0; off < check; off += check / 4) {
            qpci_io_writel(v.dev, vram, off, 0xa5a50000 | (off >> 20));
        }
        qpci_io_writeq(v.dev, vram, check - 8, 0x0123456789abcdefull);
        for (off = 0; off < check; off += check / 4) {
            g_assert_cmphex(qpci_io_readl(v.dev, vram, off), ==,
                            0xa5a50000 | (off >> 20));
        }
        g_assert_cmphex(qpci_io_readq(v.dev, vram, check - 8), ==,
                        0x0123456789abcdefull);
    }
    vdxg_stop(&v);
}

/*
 * Run QEMU with @props for the device and check that it refuses to start,
 * printing an error that contains @msg.
 */
void assert_refuses(const char *props, const char *msg)
{
    const char *qemu = g_getenv("QTEST_QEMU_BINARY");
    g_autofree char *cmd = NULL;
    g_auto(GStrv) argv = NULL;
    g_autoptr(GError) err = NULL;
    g_autoptr(GString) out = g_string_new("");
    GPid pid;
    int err_fd, status = 0, i;
    char buf[512];
    ssize_t n;
    pid_t ret = 0;

    g_assert_nonnull(qemu);
    cmd = g_strdup_printf("%s %s -machine q35 -nodefaults -display none "
                          "-accel qtest -device vdxg,%s",
                          qemu, vdxg_qemu_args(), props);
    g_test_message("expecting failure: %s", cmd);
    g_assert_true(g_shell_parse_argv(cmd, NULL, &argv, &err));
    g_assert_true(g_spawn_async_with_pipes(NULL, argv, NULL,
                                           G_SPAWN_DO_NOT_REAP_CHILD |
                                           G_SPAWN_STDOUT_TO_DEV_NULL,
                                           NULL, NULL, &pid, NULL, NULL,
                                           &err_fd, &err));

    /* A QEMU that accepted the value would run until killed. */
    for (i = 0; i < REFUSE_TIMEOUT_S * 100; i++) {
        ret = waitpid(pid, &status, WNOHANG);
        if (ret != 0) {
            break;
        }
        g_usleep(10 * 1000);
    }
    if (ret == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    while ((n = read(err_fd, buf, sizeof(buf))) > 0) {
        g_string_append_len(out, buf, n);
    }
    close(err_fd);
    g_spawn_close_pid(pid);

    g_test_message("stderr: %s", out->str);
    g_assert_cmpint(ret, ==, pid);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), !=, 0);
    g_assert_nonnull(strstr(out->str, msg));
}

/* PCI Express only: a conventional bus (behind a PCIe-to-PCI bridge) refuses */
static void test_conventional_bus(void)
{
    QTestState *qts = vdxg_qtest_start(
        "-device pcie-pci-bridge,id=br0,bus=pcie.0,addr=06.0");
    QDict *resp;
    const char *desc;

    resp = qtest_qmp(qts, "{ 'execute': 'device_add', 'arguments': "
                     "{ 'driver': 'vdxg', 'id': 'gpu', 'bus': 'br0', "
                     "'addr': '01.0' } }");
    g_assert_true(qdict_haskey(resp, "error"));
    desc = qdict_get_str(qdict_get_qdict(resp, "error"), "desc");
    g_test_message("device_add: %s", desc);
    g_assert_nonnull(strstr(desc, "PCI Express device"));
    qobject_unref(resp);
    qtest_quit(qts);
}

static void test_bad_sizes(void)
{
    static const char *const bad_vram[] = {
        "3M", "100M", "0", "8M", "8G", "4095M", "268435457",
    };
    static const char *const bad_aperture[] = {
        "3M", "768M", "0", "512K", "8G",
    };
    int i;

    for (i = 0; i < ARRAY_SIZE(bad_vram); i++) {
        g_autofree char *props = g_strdup_printf("vram-size=%s",
                                                 bad_vram[i]);
        assert_refuses(props, "vram-size must be a power of two");
    }
    for (i = 0; i < ARRAY_SIZE(bad_aperture); i++) {
        g_autofree char *props = g_strdup_printf("aperture-size=%s",
                                                 bad_aperture[i]);
        assert_refuses(props, "aperture-size must be a power of two");
    }
}

/* Bad guest input */

static const uint32_t ro_regs[] = {
    VDXG_REG_ID, VDXG_REG_VERSION, VDXG_REG_CAPS,
    VDXG_REG_VRAM_SIZE_LO, VDXG_REG_VRAM_SIZE_HI,
    VDXG_REG_APERTURE_BASE_LO, VDXG_REG_APERTURE_BASE_HI,
    VDXG_REG_APERTURE_SIZE_LO, VDXG_REG_APERTURE_SIZE_HI,
    VDXG_REG_ENGINES, VDXG_REG_NUM_CRTCS, VDXG_REG_STATUS,
    VDXG_REG_RESET_COUNT, VDXG_REG_INT_STATUS,
    VDXG_REG_GART_ENTRIES, VDXG_REG_FAULT_STATUS, VDXG_REG_FAULT_REASON,
    VDXG_REG_FAULT_ADDR_LO, VDXG_REG_FAULT_COUNT,
    VDXG_ENGINE_BASE(VDXG_ENGINE_PAGING) + VDXG_ENG_RING_HEAD,
    VDXG_ENGINE_BASE(VDXG_ENGINE_PAGING) + VDXG_ENG_STATUS,
    VDXG_ENGINE_BASE(VDXG_ENGINE_PAGING) + VDXG_ENG_FENCE_VALUE_LO,
    VDXG_ENGINE_BASE(VDXG_ENGINE_RENDER) + VDXG_ENG_RING_HEAD,
    VDXG_ENGINE_BASE(VDXG_ENGINE_RENDER) + VDXG_ENG_STATUS,
    VDXG_ENGINE_BASE(VDXG_ENGINE_RENDER) + VDXG_ENG_FENCE_VALUE_HI,
};

/* Registers whose value a test snapshot compares. */
static const uint32_t state_regs[] = {
    VDXG_REG_ID, VDXG_REG_VERSION, VDXG_REG_CAPS,
    VDXG_REG_VRAM_SIZE_LO, VDXG_REG_VRAM_SIZE_HI,
    VDXG_REG_APERTURE_BASE_LO, VDXG_REG_APERTURE_BASE_HI,
    VDXG_REG_APERTURE_SIZE_LO, VDXG_REG_APERTURE_SIZE_HI,
    VDXG_REG_ENGINES, VDXG_REG_NUM_CRTCS, VDXG_REG_STATUS,
    VDXG_REG_SCRATCH, VDXG_REG_RESET_COUNT,
    VDXG_REG_INT_STATUS, VDXG_REG_INT_MASK,
    VDXG_REG_GART_ENTRIES, VDXG_REG_FAULT_STATUS, VDXG_REG_FAULT_REASON,
    VDXG_REG_FAULT_ADDR_LO, VDXG_REG_FAULT_COUNT,
    VDXG_ENGINE_BASE(VDXG_ENGINE_PAGING) + VDXG_ENG_RING_HEAD,
    VDXG_ENGINE_BASE(VDXG_ENGINE_PAGING) + VDXG_ENG_STATUS,
    VDXG_ENGINE_BASE(VDXG_ENGINE_PAGING) + VDXG_ENG_FENCE_VALUE_LO,
    VDXG_ENGINE_BASE(VDXG_ENGINE_RENDER) + VDXG_ENG_RING_HEAD,
    VDXG_ENGINE_BASE(VDXG_ENGINE_RENDER) + VDXG_ENG_STATUS,
    VDXG_ENGINE_BASE(VDXG_ENGINE_RENDER) + VDXG_ENG_FENCE_VALUE_HI,
};

/*
 * Offsets that decode to no register, or to one not implemented yet; with
 * the default single output, CRTC blocks 1 to 3 decode to nothing.
 */
static const uint32_t unassigned_regs[] = {
    0x000c, 0x0040, 0x0044, 0x00fc, 0x0110, 0x0200, 0x0800, 0x0ffc,
    0x3000, 0x5000, 0x7000, 0x8000, 0xfffc,
    VDXG_ENGINE_BASE(VDXG_ENGINE_RENDER) + 0x34,
    VDXG_ENGINE_BASE(VDXG_ENGINE_RENDER) + 0xfc,
    VDXG_ENGINE_BASE(VDXG_ENGINE_PAGING) + 0x34,
    VDXG_ENGINE_BASE(VDXG_ENGINE_PAGING) + 0xfc,
    VDXG_REG_TLB_FLUSH + 4, VDXG_REG_FAULT_CLEAR + 4,
    VDXG_CRTC_BASE(0) + 0x114, VDXG_CRTC_BASE(0) + 0x17c,
    VDXG_PLANE_BASE(0, VDXG_PLANE_IDX_CURSOR) + 0x30,
    VDXG_CRTC_BASE(1) + VDXG_CRTC_CTRL, VDXG_CRTC_BASE(3) + VDXG_CRTC_EDID,
    VDXG_REG_WB_FRAME + 4, VDXG_REG_SRIOV_NUM_VFS + 4,
};

static void snapshot(Vdxg *v, uint32_t *vals)
{
    int i;

    for (i = 0; i < ARRAY_SIZE(state_regs); i++) {
        vals[i] = rd(v, state_regs[i]);
    }
}

static void assert_snapshot(Vdxg *v, const uint32_t *vals)
{
    int i;

    for (i = 0; i < ARRAY_SIZE(state_regs); i++) {
        g_assert_cmphex(rd(v, state_regs[i]), ==, vals[i]);
    }
}

static void test_bad_writes(void)
{
    static const uint32_t patterns[] = { 0, 0xffffffff, 0x5a5a5a5a };
    uint32_t before[ARRAY_SIZE(state_regs)];
    int i, p;
    Vdxg v;

    vdxg_start(&v, NULL);
    msix_setup(&v);

    /* INT_MASK keeps only defined sources. */
    wr(&v, VDXG_REG_INT_MASK, 0xffffffff);
    g_assert_cmphex(rd(&v, VDXG_REG_INT_MASK), ==, VDXG_INT_VALID_MASK);
    wr(&v, VDXG_REG_SCRATCH, 0x12345678);
    wr(&v, VDXG_REG_RESET, VDXG_RESET_MAGIC);
    wr(&v, VDXG_REG_INT_MASK, VDXG_INT_VALID_MASK);
    wr(&v, VDXG_REG_SCRATCH, 0x12345678);
    snapshot(&v, before);
    g_assert_cmphex(before[0], ==, VDXG_ID_MAGIC);

    /* Read-only registers */
    for (i = 0; i < ARRAY_SIZE(ro_regs); i++) {
        for (p = 0; p < ARRAY_SIZE(patterns); p++) {
            wr(&v, ro_regs[i], patterns[p]);
        }
        assert_snapshot(&v, before);
    }

    /* Undefined and unimplemented offsets read as zero. */
    for (i = 0; i < ARRAY_SIZE(unassigned_regs); i++) {
        for (p = 0; p < ARRAY_SIZE(patterns); p++) {
            wr(&v, unassigned_regs[i], patterns[p]);
            g_assert_cmphex(rd(&v, unassigned_regs[i]), ==, 0);
        }
        assert_snapshot(&v, before);
    }

    /* Write-only registers read as zero. */
    g_assert_cmphex(rd(&v, VDXG_REG_RESET), ==, 0);
    g_assert_cmphex(rd(&v, VDXG_REG_INT_ACK), ==, 0);
    g_assert_cmphex(rd(&v, VDXG_REG_INT_TRIGGER), ==, 0);

    /* INT_TRIGGER honours only the self-test source. */
    wr(&v, VDXG_REG_INT_TRIGGER, ~(uint32_t)VDXG_INT_SELFTEST);
    wr(&v, VDXG_REG_INT_TRIGGER, VDXG_INT_FAULT | VDXG_INT_RENDER_FENCE |
       VDXG_INT_PAGING_FENCE | VDXG_INT_VBLANK(0) | VDXG_INT_WRITEBACK);
    g_assert_cmphex(rd(&v, VDXG_REG_INT_STATUS), ==, 0);
    assert_msix_messages(&v, -1);
    for (i = 0; i < VDXG_MSIX_VECTORS; i++) {
        g_assert_false(qpci_msix_pending(v.dev, i));
    }
    g_assert_false(intx_asserted(&v));

    /* Acking sources that are not pending changes nothing. */
    wr(&v, VDXG_REG_INT_ACK, 0xffffffff);
    assert_snapshot(&v, before);
    assert_msix_messages(&v, -1);

    /* Accesses other than aligned 32-bit ones are rejected. */
    qpci_io_writeb(v.dev, v.mmio, VDXG_REG_SCRATCH, 0xff);
    qpci_io_writew(v.dev, v.mmio, VDXG_REG_SCRATCH + 2, 0xffff);
    qpci_io_writel(v.dev, v.mmio, VDXG_REG_SCRATCH + 1, 0xffffffff);
    qpci_io_writeb(v.dev, v.mmio, VDXG_REG_RESET, 0x54);
    qpci_io_writew(v.dev, v.mmio, VDXG_REG_INT_TRIGGER, VDXG_INT_SELFTEST);
    qpci_io_readb(v.dev, v.mmio, VDXG_REG_ID);
    qpci_io_readw(v.dev, v.mmio, VDXG_REG_ID + 2);
    qpci_io_readl(v.dev, v.mmio, VDXG_REG_ID + 1);
    assert_snapshot(&v, before);
    assert_msix_messages(&v, -1);

    /* Other bits written together with SELFTEST are ignored too. */
    wr(&v, VDXG_REG_INT_TRIGGER, VDXG_INT_SELFTEST | VDXG_INT_FAULT |
       VDXG_INT_RENDER_FENCE | VDXG_INT_PAGING_FENCE | VDXG_INT_VBLANK(1));
    g_assert_cmphex(rd(&v, VDXG_REG_INT_STATUS), ==, VDXG_INT_SELFTEST);
    assert_msix_messages(&v, VDXG_MSIX_VEC_MISC);

    vdxg_stop(&v);
}

/* Resizable BAR */

static void test_rebar(void)
{
    uint16_t c;
    uint32_t flags;
    uint64_t bar = 0x100000000ull;
    Vdxg v;

    vdxg_start(&v, "vram-size=256M");
    ecam_enable(v.bus);
    c = ext_cap_find(v.qts, VDXG_DEVFN, PCI_EXT_CAP_ID_REBAR);
    g_assert_cmphex(c, !=, 0);
    /* 16, 32, 64, 128 and 256 MiB: bits 4 to 8 of the size mask */
    g_assert_cmphex(ecam_readl(v.qts, VDXG_DEVFN, c + PCI_REBAR_CAP), ==,
                    0x1f0u << 4);
    g_assert_cmphex(ecam_readl(v.qts, VDXG_DEVFN, c + PCI_REBAR_CTRL), ==,
                    VDXG_BAR_VRAM | 1 << PCI_REBAR_CTRL_NBAR_SHIFT |
                    6 << PCI_REBAR_CTRL_BAR_SHIFT);
    g_assert_cmphex(rd(&v, VDXG_REG_CAPS) & VDXG_CAP_RESIZABLE_BAR, !=, 0);
    qpci_config_writew(v.dev, PCI_COMMAND, 0);
    g_assert_cmphex(bar_size(v.dev, VDXG_BAR_VRAM, &flags), ==, 64 * MiB);

    /* Map the 64 MiB BAR and write the start of VRAM */
    qpci_config_writel(v.dev, PCI_BASE_ADDRESS_2, (uint32_t)bar);
    qpci_config_writel(v.dev, PCI_BASE_ADDRESS_3, bar >> 32);
    qpci_device_enable(v.dev);
    qtest_writel(v.qts, bar, 0x0badcafe);
    g_assert_cmphex(qtest_readl(v.qts, bar), ==, 0x0badcafe);

    /* Resize as Linux does: decoding off, size, address, decoding on */
    qpci_config_writew(v.dev, PCI_COMMAND, 0);
    ecam_writel(v.qts, VDXG_DEVFN, c + PCI_REBAR_CTRL,
                8 << PCI_REBAR_CTRL_BAR_SHIFT);
    g_assert_cmphex(ecam_readl(v.qts, VDXG_DEVFN, c + PCI_REBAR_CTRL), ==,
                    VDXG_BAR_VRAM | 1 << PCI_REBAR_CTRL_NBAR_SHIFT |
                    8 << PCI_REBAR_CTRL_BAR_SHIFT);
    g_assert_cmphex(bar_size(v.dev, VDXG_BAR_VRAM, &flags), ==, 256 * MiB);
    qpci_config_writel(v.dev, PCI_BASE_ADDRESS_2, (uint32_t)bar);
    qpci_config_writel(v.dev, PCI_BASE_ADDRESS_3, bar >> 32);
    qpci_device_enable(v.dev);
    g_assert_cmphex(qtest_readl(v.qts, bar), ==, 0x0badcafe);
    qtest_writel(v.qts, bar + 256 * MiB - 4, 0x600dd00d);
    qtest_writel(v.qts, bar + 128 * MiB, 0x12121212);
    g_assert_cmphex(qtest_readl(v.qts, bar + 256 * MiB - 4), ==, 0x600dd00d);
    g_assert_cmphex(qtest_readl(v.qts, bar + 128 * MiB), ==, 0x12121212);

    /* A size not offered is ignored */
    ecam_writel(v.qts, VDXG_DEVFN, c + PCI_REBAR_CTRL,
                9 << PCI_REBAR_CTRL_BAR_SHIFT);
    g_assert_cmphex(ecam_readl(v.qts, VDXG_DEVFN, c + PCI_REBAR_CTRL) &
                    PCI_REBAR_CTRL_BAR_SIZE, ==, 8 << PCI_REBAR_CTRL_BAR_SHIFT);
    g_assert_cmphex(qtest_readl(v.qts, bar + 256 * MiB - 4), ==, 0x600dd00d);

    /* Back to 16 MiB while mapped: the BAR follows */
    ecam_writel(v.qts, VDXG_DEVFN, c + PCI_REBAR_CTRL,
                4 << PCI_REBAR_CTRL_BAR_SHIFT);
    g_assert_cmphex(qtest_readl(v.qts, bar), ==, 0x0badcafe);
    qpci_config_writew(v.dev, PCI_COMMAND, 0);
    g_assert_cmphex(bar_size(v.dev, VDXG_BAR_VRAM, &flags), ==, 16 * MiB);

    /* A device reset brings the default size back */
    qtest_system_reset(v.qts);
    g_assert_cmphex(bar_size(v.dev, VDXG_BAR_VRAM, &flags), ==, 64 * MiB);
    vdxg_stop(&v);

    /* rebar=off: no capability, the default window for good */
    vdxg_start(&v, "vram-size=256M,rebar=off");
    ecam_enable(v.bus);
    g_assert_cmphex(ext_cap_find(v.qts, VDXG_DEVFN, PCI_EXT_CAP_ID_REBAR), ==,
                    0);
    g_assert_cmphex(rd(&v, VDXG_REG_CAPS) & VDXG_CAP_RESIZABLE_BAR, ==, 0);
    qpci_config_writew(v.dev, PCI_COMMAND, 0);
    g_assert_cmphex(bar_size(v.dev, VDXG_BAR_VRAM, &flags), ==, 64 * MiB);
    qtest_system_reset(v.qts);
    g_assert_cmphex(bar_size(v.dev, VDXG_BAR_VRAM, &flags), ==, 64 * MiB);
    vdxg_stop(&v);

    /* VRAM smaller than the default: the BAR is the whole VRAM */
    vdxg_start(&v, "vram-size=32M");
    ecam_enable(v.bus);
    c = ext_cap_find(v.qts, VDXG_DEVFN, PCI_EXT_CAP_ID_REBAR);
    g_assert_cmphex(ecam_readl(v.qts, VDXG_DEVFN, c + PCI_REBAR_CAP), ==,
                    0x3u << 8);
    qpci_config_writew(v.dev, PCI_COMMAND, 0);
    g_assert_cmphex(bar_size(v.dev, VDXG_BAR_VRAM, &flags), ==, 32 * MiB);
    vdxg_stop(&v);
}

void vdxg_test_add_pci_tests(void)
{
    static const uint64_t vram_sizes[] = {
        VDXG_VRAM_SIZE_MIN, 64 * MiB, VDXG_VRAM_SIZE_DEFAULT,
        VDXG_VRAM_SIZE_MAX,
    };
    int i;

    qtest_add_func("/vdxg/identity", test_identity);
    qtest_add_func("/vdxg/identity-no-msi", test_identity_no_msi);
    qtest_add_func("/vdxg/root-port", test_root_port);
    qtest_add_func("/vdxg/conventional-bus", test_conventional_bus);
    qtest_add_func("/vdxg/aperture-size", test_aperture_size);
    for (i = 0; i < ARRAY_SIZE(vram_sizes); i++) {
        g_autofree char *path = g_strdup_printf("/vdxg/bar-sizes/%" PRIu64 "M",
                                                vram_sizes[i] / MiB);
        qtest_add_data_func(path, &vram_sizes[i], test_bar_sizes);
    }
    qtest_add_func("/vdxg/bad-sizes", test_bad_sizes);
    qtest_add_func("/vdxg/bad-writes", test_bad_writes);
    qtest_add_func("/vdxg/rebar", test_rebar);
}
