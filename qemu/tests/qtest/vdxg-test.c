/*
 * QTest testcases for the vdxg virtual GPU
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The environment variable VDXG_QEMU_ARGS, when set, is added to every
 * QEMU command line (e.g. "-L <dir>" for the machine's firmware).
 */

#include "qemu/osdep.h"
#include <glib/gstdio.h>
#include "qemu/bitops.h"
#include "qemu/host-utils.h"
#include "qemu/units.h"
#include "libqtest.h"
#include "libqos/pci.h"
#include "libqos/pci-pc.h"
#include "hw/pci/pci_regs.h"
#include "hw/display/vdxg_hw.h"

/* Where the device sits on pcie.0. */
#define VDXG_SLOT           4
#define VDXG_DEVFN          QPCI_DEVFN(VDXG_SLOT, 0)

/* Guest RAM that MSI and MSI-X messages are written to. */
#define MSG_ADDR            0x100000ull
#define MSIX_DATA(vec)      (0x5d780000u | (vec))
#define MSI_DATA            0x4d53u

/* How long a QEMU that must refuse to start may take to exit. */
#define REFUSE_TIMEOUT_S    30

typedef struct Vdxg {
    QTestState *qts;
    QPCIBus *bus;
    QPCIDevice *dev;
    QPCIBar mmio;
} Vdxg;

static const char *vdxg_qemu_args(void)
{
    return g_getenv("VDXG_QEMU_ARGS") ?: "";
}

static QTestState *vdxg_qtest_start(const char *device_args)
{
    return qtest_initf("-machine q35 -nodefaults %s %s", vdxg_qemu_args(),
                       device_args);
}

/* Start QEMU with one vdxg device with @props and map its register BAR. */
static void vdxg_start(Vdxg *v, const char *props)
{
    uint64_t size;

    v->qts = qtest_initf("-machine q35 -nodefaults %s "
                         "-device vdxg,addr=%02x.0%s%s",
                         vdxg_qemu_args(), VDXG_SLOT,
                         props ? "," : "", props ?: "");
    v->bus = qpci_new_pc(v->qts, NULL);
    v->dev = qpci_device_find(v->bus, VDXG_DEVFN);
    g_assert_nonnull(v->dev);
    qpci_device_enable(v->dev);
    v->mmio = qpci_iomap(v->dev, VDXG_BAR_MMIO, &size);
    g_assert_cmpuint(size, ==, VDXG_MMIO_SIZE);
}

static void vdxg_stop(Vdxg *v)
{
    if (v->dev && v->dev->msix_enabled) {
        qpci_msix_disable(v->dev);
    }
    g_free(v->dev);
    qpci_free_pc(v->bus);
    qtest_quit(v->qts);
}

static uint32_t rd(Vdxg *v, uint32_t reg)
{
    return qpci_io_readl(v->dev, v->mmio, reg);
}

static void wr(Vdxg *v, uint32_t reg, uint32_t val)
{
    qpci_io_writel(v->dev, v->mmio, reg, val);
}

static uint64_t rd64(Vdxg *v, uint32_t reg_lo)
{
    return rd(v, reg_lo) | (uint64_t)rd(v, reg_lo + 4) << 32;
}

/* The INTx state the device reports in its PCI status register. */
static bool intx_asserted(Vdxg *v)
{
    return qpci_config_readw(v->dev, PCI_STATUS) & PCI_STATUS_INTERRUPT;
}

/*
 * Size a memory BAR the way firmware does. Memory decoding must be off.
 * Returns the size, and the BAR's low flag bits in @flags.
 */
static uint64_t bar_size(QPCIDevice *dev, int bar, uint32_t *flags)
{
    uint8_t reg = PCI_BASE_ADDRESS_0 + bar * 4;
    uint32_t lo_orig = qpci_config_readl(dev, reg);
    uint32_t lo, hi_orig;
    uint64_t mask;

    qpci_config_writel(dev, reg, 0xffffffff);
    lo = qpci_config_readl(dev, reg);
    qpci_config_writel(dev, reg, lo_orig);
    *flags = lo & ~PCI_BASE_ADDRESS_MEM_MASK;
    mask = lo & PCI_BASE_ADDRESS_MEM_MASK;

    if ((lo & PCI_BASE_ADDRESS_MEM_TYPE_MASK) ==
        PCI_BASE_ADDRESS_MEM_TYPE_64) {
        hi_orig = qpci_config_readl(dev, reg + 4);
        qpci_config_writel(dev, reg + 4, 0xffffffff);
        mask |= (uint64_t)qpci_config_readl(dev, reg + 4) << 32;
        qpci_config_writel(dev, reg + 4, hi_orig);
    } else if (mask) {
        mask |= 0xffffffff00000000ull;
    }
    return mask ? ~mask + 1 : 0;
}

/* MSI-X table access through libqos's mapping of the table BAR. */
static void msix_entry_set(Vdxg *v, int vec, uint64_t addr, uint32_t data,
                           bool masked)
{
    uint64_t off = v->dev->msix_table_off + vec * PCI_MSIX_ENTRY_SIZE;

    g_assert_true(v->dev->msix_enabled);
    qpci_io_writel(v->dev, v->dev->msix_table_bar,
                   off + PCI_MSIX_ENTRY_LOWER_ADDR, addr);
    qpci_io_writel(v->dev, v->dev->msix_table_bar,
                   off + PCI_MSIX_ENTRY_UPPER_ADDR, addr >> 32);
    qpci_io_writel(v->dev, v->dev->msix_table_bar,
                   off + PCI_MSIX_ENTRY_DATA, data);
    qpci_io_writel(v->dev, v->dev->msix_table_bar,
                   off + PCI_MSIX_ENTRY_VECTOR_CTRL,
                   masked ? PCI_MSIX_ENTRY_CTRL_MASKBIT : 0);
}

static uint32_t msix_entry_get(Vdxg *v, int vec, int field)
{
    uint64_t off = v->dev->msix_table_off + vec * PCI_MSIX_ENTRY_SIZE;

    return qpci_io_readl(v->dev, v->dev->msix_table_bar, off + field);
}

/*
 * Enable MSI-X and point vector i at MSG_ADDR + 16 * i with data
 * MSIX_DATA(i), all unmasked, and clear the message area.
 */
static void msix_setup(Vdxg *v)
{
    int vec;

    qpci_msix_enable(v->dev);
    g_assert_cmpuint(qpci_msix_table_size(v->dev), ==, VDXG_MSIX_VECTORS);
    for (vec = 0; vec < VDXG_MSIX_VECTORS; vec++) {
        msix_entry_set(v, vec, MSG_ADDR + 16 * vec, MSIX_DATA(vec), false);
        qtest_writel(v->qts, MSG_ADDR + 16 * vec, 0);
    }
}

static uint32_t msg_read(Vdxg *v, int vec)
{
    return qtest_readl(v->qts, MSG_ADDR + 16 * vec);
}

static void msg_clear(Vdxg *v)
{
    int vec;

    for (vec = 0; vec < VDXG_MSIX_VECTORS; vec++) {
        qtest_writel(v->qts, MSG_ADDR + 16 * vec, 0);
    }
}

/* Only vector @vec (or none, when -1) has received its message. */
static void assert_msix_messages(Vdxg *v, int vec)
{
    int i;

    for (i = 0; i < VDXG_MSIX_VECTORS; i++) {
        g_assert_cmphex(msg_read(v, i), ==, i == vec ? MSIX_DATA(i) : 0);
    }
}

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
                    VDXG_CAP_MSIX | VDXG_CAP_SELFTEST);
    g_assert_cmphex(rd(&v, VDXG_REG_STATUS), ==, VDXG_STATUS_READY);
    g_assert_cmphex(rd64(&v, VDXG_REG_VRAM_SIZE_LO), ==,
                    VDXG_VRAM_SIZE_DEFAULT);
    g_assert_cmphex(rd64(&v, VDXG_REG_APERTURE_BASE_LO), ==,
                    VDXG_APERTURE_BASE);
    g_assert_cmphex(rd64(&v, VDXG_REG_APERTURE_SIZE_LO), ==,
                    VDXG_APERTURE_SIZE_DEFAULT);
    g_assert_cmphex(rd(&v, VDXG_REG_ENGINES), ==, 0);
    g_assert_cmphex(rd(&v, VDXG_REG_NUM_CRTCS), ==, 0);
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
    g_assert_cmphex(rd(&v, VDXG_REG_CAPS), ==, VDXG_CAP_SELFTEST);
    g_assert_cmphex(qpci_find_capability(v.dev, PCI_CAP_ID_MSIX, 0), ==, 0);
    g_assert_cmphex(qpci_find_capability(v.dev, PCI_CAP_ID_MSI, 0), ==, 0);
    g_assert_cmphex(qpci_find_capability(v.dev, PCI_CAP_ID_EXP, 0), !=, 0);
    g_assert_cmphex(qpci_config_readb(v.dev, PCI_INTERRUPT_PIN), ==, 1);
    qpci_config_writew(v.dev, PCI_COMMAND, 0);
    g_assert_cmpuint(bar_size(v.dev, VDXG_BAR_MSIX, &flags), ==, 0);
    vdxg_stop(&v);

    vdxg_start(&v, "msi=off");
    g_assert_cmphex(rd(&v, VDXG_REG_CAPS), ==,
                    VDXG_CAP_MSIX | VDXG_CAP_SELFTEST);
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

    vdxg_start(&v, "aperture_size=2G");
    g_assert_cmphex(rd64(&v, VDXG_REG_APERTURE_SIZE_LO), ==, 2ull << 30);
    g_assert_cmphex(rd64(&v, VDXG_REG_APERTURE_BASE_LO), ==,
                    VDXG_APERTURE_BASE);
    vdxg_stop(&v);
}

/* BARs */

static void test_bar_sizes(const void *data)
{
    uint64_t vram_size = *(const uint64_t *)data;
    g_autofree char *props = g_strdup_printf("vram_size=%" PRIu64,
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

    size = bar_size(v.dev, VDXG_BAR_VRAM, &flags);
    g_assert_cmphex(size, ==, vram_size);
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
        g_assert_cmphex(size, ==, vram_size);
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
static void assert_refuses(const char *props, const char *msg)
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
        g_autofree char *props = g_strdup_printf("vram_size=%s",
                                                 bad_vram[i]);
        assert_refuses(props, "vram_size must be a power of two");
    }
    for (i = 0; i < ARRAY_SIZE(bad_aperture); i++) {
        g_autofree char *props = g_strdup_printf("aperture_size=%s",
                                                 bad_aperture[i]);
        assert_refuses(props, "aperture_size must be a power of two");
    }
}

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
                        VDXG_CAP_MSIX | VDXG_CAP_SELFTEST);
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
    g_assert_cmphex(rd(&v, VDXG_REG_CAPS), ==, VDXG_CAP_SELFTEST);

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

/* Bad guest input */

static const uint32_t ro_regs[] = {
    VDXG_REG_ID, VDXG_REG_VERSION, VDXG_REG_CAPS,
    VDXG_REG_VRAM_SIZE_LO, VDXG_REG_VRAM_SIZE_HI,
    VDXG_REG_APERTURE_BASE_LO, VDXG_REG_APERTURE_BASE_HI,
    VDXG_REG_APERTURE_SIZE_LO, VDXG_REG_APERTURE_SIZE_HI,
    VDXG_REG_ENGINES, VDXG_REG_NUM_CRTCS, VDXG_REG_STATUS,
    VDXG_REG_RESET_COUNT, VDXG_REG_INT_STATUS,
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
};

/* Offsets that decode to no register, or to one not implemented yet. */
static const uint32_t unassigned_regs[] = {
    0x000c, 0x0040, 0x0044, 0x00fc, 0x0110, 0x0200, 0x0800, 0x0ffc,
    0x3000, 0x5000, 0x7000, 0x8000, 0xfffc,
    VDXG_ENGINE_BASE(VDXG_ENGINE_RENDER) + VDXG_ENG_CTRL,
    VDXG_ENGINE_BASE(VDXG_ENGINE_PAGING) + VDXG_ENG_DOORBELL,
    VDXG_REG_GART_TABLE_LO, VDXG_REG_GART_CTRL, VDXG_REG_TLB_FLUSH,
    VDXG_REG_FAULT_STATUS, VDXG_REG_FAULT_CLEAR,
    VDXG_CRTC_BASE(0) + VDXG_CRTC_CTRL, VDXG_CRTC_BASE(3) + VDXG_CRTC_EDID,
    VDXG_REG_WB_CTRL, VDXG_REG_BACKING_SELECT, VDXG_REG_BACKING_COMMIT,
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

int main(int argc, char **argv)
{
    static const uint64_t vram_sizes[] = {
        VDXG_VRAM_SIZE_MIN, 64 * MiB, VDXG_VRAM_SIZE_DEFAULT,
        VDXG_VRAM_SIZE_MAX,
    };
    int i;

    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/vdxg/identity", test_identity);
    qtest_add_func("/vdxg/identity-no-msi", test_identity_no_msi);
    qtest_add_func("/vdxg/root-port", test_root_port);
    qtest_add_func("/vdxg/aperture-size", test_aperture_size);
    for (i = 0; i < ARRAY_SIZE(vram_sizes); i++) {
        g_autofree char *path = g_strdup_printf("/vdxg/bar-sizes/%" PRIu64 "M",
                                                vram_sizes[i] / MiB);
        qtest_add_data_func(path, &vram_sizes[i], test_bar_sizes);
    }
    qtest_add_func("/vdxg/bad-sizes", test_bad_sizes);
    qtest_add_func("/vdxg/soft-reset", test_soft_reset);
    qtest_add_func("/vdxg/device-reset", test_device_reset);
    qtest_add_func("/vdxg/msix", test_msix);
    qtest_add_func("/vdxg/msi", test_msi);
    qtest_add_func("/vdxg/intx", test_intx);
    qtest_add_func("/vdxg/bad-writes", test_bad_writes);
    qtest_add_func("/vdxg/migration", test_migration);

    return g_test_run();
}
