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
#include "qobject/qdict.h"
#include "hw/pci/pci_regs.h"
#include "hw/display/vdxg_hw.h"

/*
 * The reference renderer (libvdxg/vdxg_ref.c, linked here), an independent
 * implementation of the RENDER engine's arithmetic: the render tests
 * compare the device's pixels with its pixels.
 */
#include "vdxg_ref.c"

/* Where the device sits on pcie.0. */
#define VDXG_SLOT           4
#define VDXG_DEVFN          QPCI_DEVFN(VDXG_SLOT, 0)

/* Guest RAM that MSI and MSI-X messages are written to. */
#define MSG_ADDR            0x100000ull
#define MSIX_DATA(vec)      (0x5d780000u | (vec))
#define MSI_DATA            0x4d53u

/*
 * CAPS without MSI-X: the units the model implements on pcie.0 (PCI
 * Express, so with a resizable VRAM BAR, and no SR-IOV on a root bus)
 */
#define BASE_CAPS           (VDXG_CAP_SELFTEST | VDXG_CAP_RENDER | \
                             VDXG_CAP_PAGING | VDXG_CAP_GART | \
                             VDXG_CAP_DISPLAY | VDXG_CAP_CRC | \
                             VDXG_CAP_WRITEBACK | VDXG_CAP_RESIZABLE_BAR)

/* ENGINES: RENDER and PAGING */
#define ALL_ENGINES         (BIT(VDXG_ENGINE_RENDER) | BIT(VDXG_ENGINE_PAGING))

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

/* PAGING engine, GART and faults */

/* A 32 MiB VRAM and a 16 MiB aperture (4096 GART entries). */
#define PG_PROPS            "id=gpu,vram_size=32M,aperture_size=16M"
#define PG_VRAM_SIZE        (32 * MiB)
#define PG_APERTURE_SIZE    (16 * MiB)
#define PG_PAGE             4096u
#define PG_GART_ENTRIES     (PG_APERTURE_SIZE / PG_PAGE)

/* VRAM layout */
#define PG_RING             0x0
#define PG_RING_SIZE        0x1000
#define PG_FENCE            0x1000      /* fence write-back slot */
#define PG_FENCE2           0x1100      /* FENCE operation target */
#define PG_GART             0x10000     /* 32 KiB GART table */
#define PG_BUF              0x20000     /* PG_SLOTS paging buffers */
#define PG_BUF_SIZE         0x10000
#define PG_SLOTS            8
#define PG_DATA             0x100000    /* scratch data */

/* System RAM used as pages, and the dummy page */
#define SYS_DUMMY           0x3ff000ull
#define SYS_PAGE(n)         (0x400000ull + (uint64_t)(n) * PG_PAGE)

#define ENG(reg)            (VDXG_ENGINE_BASE(VDXG_ENGINE_PAGING) + (reg))
#define APERTURE(page)      (VDXG_APERTURE_BASE + (uint64_t)(page) * PG_PAGE)

/* An address outside VRAM and the aperture, and one no bus decodes */
#define GPU_HOLE            (PG_VRAM_SIZE + 0x1000ull)
#define BUS_HOLE            (1ull << 52)

#define PG_CONTEXT          0x1234
#define PG_WAIT_LOOPS       200000

typedef struct Pg {
    Vdxg v;
    QPCIBar vram;
    /* The engine the ring helpers drive, its ring and fence slot (VRAM) */
    uint32_t eng;
    uint64_t ring;
    uint64_t fence;
    /* RENDER tests: host mirrors of their VRAM and aperture windows */
    uint8_t *vmem;
    uint8_t *amem;
    uint32_t tail;
    uint64_t seqno;
    unsigned int slot;
    uint32_t buf[PG_BUF_SIZE / 4];
    uint32_t used;              /* dwords in buf */
    uint64_t buf_gpu;           /* where the last buffer was put */
    /* What the fault test case expects, set by its build function */
    uint32_t want_opcode;
    uint64_t want_addr;
    uint32_t want_context;
} Pg;

static void vram_write(Pg *p, uint64_t off, const void *buf, size_t len)
{
    if (len) {
        qtest_bufwrite(p->v.qts, p->vram.addr + off, buf, len);
    }
}

static void vram_read(Pg *p, uint64_t off, void *buf, size_t len)
{
    qtest_bufread(p->v.qts, p->vram.addr + off, buf, len);
}

static void vram_writel(Pg *p, uint64_t off, uint32_t val)
{
    qtest_writel(p->v.qts, p->vram.addr + off, val);
}

static uint32_t vram_readl(Pg *p, uint64_t off)
{
    return qtest_readl(p->v.qts, p->vram.addr + off);
}

static uint64_t vram_readq(Pg *p, uint64_t off)
{
    return qtest_readq(p->v.qts, p->vram.addr + off);
}

static void sys_write(Pg *p, uint64_t addr, const void *buf, size_t len)
{
    qtest_bufwrite(p->v.qts, addr, buf, len);
}

static void sys_read(Pg *p, uint64_t addr, void *buf, size_t len)
{
    qtest_bufread(p->v.qts, addr, buf, len);
}

static void wr64(Vdxg *v, uint32_t reg_lo, uint64_t val)
{
    wr(v, reg_lo, val);
    wr(v, reg_lo + 4, val >> 32);
}

/* Deterministic test data: byte i of stream @seed. */
static void fill_bytes(uint8_t *buf, size_t len, uint32_t seed)
{
    size_t i;

    for (i = 0; i < len; i++) {
        buf[i] = (seed * 131 + i * 7 + (i >> 8) * 13) & 0xff;
    }
}

static uint64_t qom_get_u64(Pg *p, const char *prop)
{
    QDict *rsp = qtest_qmp(p->v.qts, "{ 'execute': 'qom-get', 'arguments': "
                           "{ 'path': '/machine/peripheral/gpu', "
                           "'property': %s } }", prop);
    uint64_t val;

    g_assert_true(qdict_haskey(rsp, "return"));
    val = qdict_get_int(rsp, "return");
    qobject_unref(rsp);
    return val;
}

/* A register of the engine that @p drives */
#define EREG(p, reg)        (VDXG_ENGINE_BASE((p)->eng) + (reg))

/* Program the ring (empty, at p->ring) and enable the engine. */
static void pg_engine_setup(Pg *p)
{
    wr64(&p->v, EREG(p, VDXG_ENG_RING_BASE_LO), p->ring);
    wr(&p->v, EREG(p, VDXG_ENG_RING_SIZE), PG_RING_SIZE);
    wr(&p->v, EREG(p, VDXG_ENG_RING_TAIL), 0);
    wr64(&p->v, EREG(p, VDXG_ENG_FENCE_ADDR_LO), p->fence);
    wr(&p->v, EREG(p, VDXG_ENG_CTRL), VDXG_ENG_CTRL_ENABLE);
    p->tail = 0;
}

static void pg_gart_setup(Pg *p)
{
    wr64(&p->v, VDXG_REG_GART_TABLE_LO, PG_GART);
    wr64(&p->v, VDXG_REG_DUMMY_PAGE_LO, SYS_DUMMY);
    wr(&p->v, VDXG_REG_GART_CTRL, VDXG_GART_CTRL_ENABLE);
}

static Pg *pg_start(const char *extra)
{
    g_autofree char *props = g_strdup_printf("%s%s%s", PG_PROPS,
                                             extra ? "," : "", extra ?: "");
    Pg *p = g_new0(Pg, 1);
    uint64_t size;

    p->eng = VDXG_ENGINE_PAGING;
    p->ring = PG_RING;
    p->fence = PG_FENCE;
    vdxg_start(&p->v, props);
    p->vram = qpci_iomap(p->v.dev, VDXG_BAR_VRAM, &size);
    g_assert_cmpuint(size, ==, PG_VRAM_SIZE);
    msix_setup(&p->v);
    wr(&p->v, VDXG_REG_INT_MASK, VDXG_INT_VALID_MASK);
    pg_gart_setup(p);
    pg_engine_setup(p);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==, 0);
    return p;
}

static void pg_stop(Pg *p)
{
    vdxg_stop(&p->v);
    g_free(p);
}

/* Paging buffer building */

static void pb_reset(Pg *p)
{
    p->used = 0;
}

static void pb_dw(Pg *p, uint32_t dw)
{
    g_assert_cmpuint(p->used, <, ARRAY_SIZE(p->buf));
    p->buf[p->used++] = dw;
}

static void pb_qw(Pg *p, uint64_t qw)
{
    pb_dw(p, qw);
    pb_dw(p, qw >> 32);
}

/* Byte offset in the buffer of the next operation. */
static uint32_t pb_off(Pg *p)
{
    return p->used * 4;
}

static void emit_nop(Pg *p)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_NOP, VDXG_PG_NOP_LEN));
}

static void emit_fence(Pg *p, uint64_t addr, uint64_t value)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_FENCE, VDXG_PG_FENCE_LEN));
    pb_qw(p, addr);
    pb_qw(p, value);
}

static void emit_transfer(Pg *p, uint32_t size, uint64_t src,
                          const uint64_t *src_pages, uint32_t ns,
                          uint64_t dst, const uint64_t *dst_pages,
                          uint32_t nd)
{
    uint32_t i;

    pb_dw(p, VDXG_PG_HDR(VDXG_PG_TRANSFER, VDXG_PG_XFER_LEN(ns, nd)));
    pb_dw(p, (src_pages ? VDXG_PG_XFER_SRC_PAGES : 0) |
             (dst_pages ? VDXG_PG_XFER_DST_PAGES : 0));
    pb_dw(p, size);
    pb_qw(p, src);
    pb_qw(p, dst);
    pb_dw(p, ns);
    pb_dw(p, nd);
    for (i = 0; i < ns; i++) {
        pb_qw(p, src_pages[i]);
    }
    for (i = 0; i < nd; i++) {
        pb_qw(p, dst_pages[i]);
    }
}

/* A TRANSFER between two GPU addresses */
static void emit_copy(Pg *p, uint64_t src, uint64_t dst, uint32_t size)
{
    emit_transfer(p, size, src, NULL, 0, dst, NULL, 0);
}

static void emit_fill(Pg *p, uint64_t addr, uint32_t size, uint32_t pattern)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_FILL, VDXG_PG_FILL_LEN));
    pb_dw(p, pattern);
    pb_dw(p, size);
    pb_qw(p, addr);
}

static void emit_discard(Pg *p, uint64_t addr, uint32_t size)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_DISCARD, VDXG_PG_DISCARD_LEN));
    pb_dw(p, size);
    pb_qw(p, addr);
}

static void emit_map(Pg *p, uint32_t first, const uint64_t *pages,
                     uint32_t count)
{
    uint32_t i;

    pb_dw(p, VDXG_PG_HDR(VDXG_PG_MAP_APERTURE, VDXG_PG_MAP_LEN(count)));
    pb_dw(p, first);
    pb_dw(p, count);
    for (i = 0; i < count; i++) {
        pb_qw(p, pages[i]);
    }
}

static void emit_map1(Pg *p, uint32_t page, uint64_t bus)
{
    emit_map(p, page, &bus, 1);
}

static void emit_unmap(Pg *p, uint32_t first, uint32_t count)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_UNMAP_APERTURE, VDXG_PG_UNMAP_LEN));
    pb_dw(p, first);
    pb_dw(p, count);
}

static void emit_flush_tlb(Pg *p)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_FLUSH_TLB, VDXG_PG_FLUSH_TLB_LEN));
}

static void emit_write_phys(Pg *p, uint64_t bus, const uint32_t *data,
                            uint32_t n)
{
    uint32_t i;

    pb_dw(p, VDXG_PG_HDR(VDXG_PG_WRITE_PHYSICAL, VDXG_PG_WRITE_PHYS_LEN(n)));
    pb_qw(p, bus);
    for (i = 0; i < n; i++) {
        pb_dw(p, data[i]);
    }
}

static void emit_read_phys(Pg *p, uint64_t bus, uint32_t size, uint64_t addr)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_READ_PHYSICAL, VDXG_PG_READ_PHYS_LEN));
    pb_qw(p, bus);
    pb_dw(p, size);
    pb_qw(p, addr);
}

/* Ring */

static void ring_entry(Pg *p, uint32_t cmd, uint32_t len, uint64_t addr,
                       uint64_t seqno, uint32_t context, uint32_t rsvd)
{
    uint32_t e[8] = {
        [VDXG_RING_DW_CMD] = cmd,
        [VDXG_RING_DW_LENGTH] = len,
        [VDXG_RING_DW_ADDR_LO] = addr,
        [VDXG_RING_DW_ADDR_HI] = addr >> 32,
        [VDXG_RING_DW_SEQNO_LO] = seqno,
        [VDXG_RING_DW_SEQNO_HI] = seqno >> 32,
        [VDXG_RING_DW_CONTEXT] = context,
        [VDXG_RING_DW_RSVD] = rsvd,
    };

    vram_write(p, p->ring + p->tail, e, sizeof(e));
    p->tail = (p->tail + VDXG_RING_ENTRY_SIZE) % PG_RING_SIZE;
}

static void ring_kick(Pg *p)
{
    wr(&p->v, EREG(p, VDXG_ENG_RING_TAIL), p->tail);
    wr(&p->v, EREG(p, VDXG_ENG_DOORBELL), 1);
}

/* Put the buffer built so far at @gpu (VRAM) and queue an EXEC of it. */
static uint64_t pb_queue_at(Pg *p, uint64_t vram_off, uint32_t context)
{
    vram_write(p, vram_off, p->buf, pb_off(p));
    p->buf_gpu = vram_off;
    ring_entry(p, VDXG_RING_CMD_EXEC, pb_off(p), vram_off, ++p->seqno,
               context, 0);
    return p->seqno;
}

/* Queue the buffer in the next slot. */
static uint64_t pb_queue(Pg *p)
{
    uint64_t off = PG_BUF + (p->slot++ % PG_SLOTS) * PG_BUF_SIZE;

    return pb_queue_at(p, off, PG_CONTEXT);
}

/* Wait until the engine is idle or halted; returns STATUS. */
static uint32_t pg_wait(Pg *p)
{
    uint32_t status = 0;
    int i;

    for (i = 0; i < PG_WAIT_LOOPS; i++) {
        status = rd(&p->v, EREG(p, VDXG_ENG_STATUS));
        if (status & (VDXG_ENG_STATUS_IDLE | VDXG_ENG_STATUS_HALTED)) {
            return status;
        }
    }
    g_assert_not_reached();
}

/* Wait for the queued work and check that it completed. */
static void pg_finish(Pg *p)
{
    g_assert_cmphex(pg_wait(p), ==, VDXG_ENG_STATUS_IDLE);
    g_assert_cmphex(rd64(&p->v, EREG(p, VDXG_ENG_FENCE_VALUE_LO)), ==,
                    p->seqno);
    g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_RING_HEAD)), ==, p->tail);
}

/* Run the buffer built so far and wait for it. */
static void pb_run(Pg *p)
{
    pb_queue(p);
    ring_kick(p);
    pg_finish(p);
    pb_reset(p);
}

/* Read @len bytes at GPU address @gpu, through a TRANSFER to VRAM. */
#define PG_PEEK             0x1f00000   /* VRAM bounce area for peeks */
static void gpu_peek(Pg *p, uint64_t gpu, void *buf, uint32_t len)
{
    pb_reset(p);
    emit_copy(p, gpu, PG_PEEK, len);
    pb_run(p);
    vram_read(p, PG_PEEK, buf, len);
}

static uint32_t gpu_peekl(Pg *p, uint64_t gpu)
{
    uint32_t val;

    gpu_peek(p, gpu, &val, 4);
    return le32_to_cpu(val);
}

static void assert_bytes(const uint8_t *got, const uint8_t *want, size_t len)
{
    size_t i;

    for (i = 0; i < len; i++) {
        if (got[i] != want[i]) {
            g_test_message("byte %zu: 0x%02x, expected 0x%02x", i, got[i],
                           want[i]);
            g_assert_cmphex(got[i], ==, want[i]);
        }
    }
}

/* The engine's registers are those of a just reset engine. */
static void assert_engine_reset(Pg *p)
{
    static const uint32_t regs[] = {
        VDXG_ENG_RING_BASE_LO, VDXG_ENG_RING_BASE_HI, VDXG_ENG_RING_SIZE,
        VDXG_ENG_RING_HEAD, VDXG_ENG_RING_TAIL, VDXG_ENG_DOORBELL,
        VDXG_ENG_CTRL, VDXG_ENG_FENCE_ADDR_LO, VDXG_ENG_FENCE_ADDR_HI,
        VDXG_ENG_FENCE_VALUE_LO, VDXG_ENG_FENCE_VALUE_HI, VDXG_ENG_RESET,
    };
    int i;

    for (i = 0; i < ARRAY_SIZE(regs); i++) {
        g_assert_cmphex(rd(&p->v, EREG(p, regs[i])), ==, 0);
    }
    g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_STATUS)), ==,
                    VDXG_ENG_STATUS_IDLE);
}

static void rd_recover_check(Pg *p);

/*
 * The engine halted on a fault with the expected record; then recover it
 * with an engine reset and check that it runs again.
 */
static void pg_expect_fault(Pg *p, uint32_t reason, uint32_t opcode,
                            uint64_t addr, uint32_t context)
{
    uint32_t head;
    uint64_t fence;

    g_assert_cmphex(pg_wait(p) & VDXG_ENG_STATUS_HALTED, ==,
                    VDXG_ENG_STATUS_HALTED);
    head = rd(&p->v, EREG(p, VDXG_ENG_RING_HEAD));
    fence = rd64(&p->v, EREG(p, VDXG_ENG_FENCE_VALUE_LO));
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==,
                    VDXG_FAULT_STATUS_VALID);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_ENGINE), ==, p->eng);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_REASON), ==, reason);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_OPCODE), ==, opcode);
    g_assert_cmphex(rd64(&p->v, VDXG_REG_FAULT_ADDR_LO), ==, addr);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_CONTEXT), ==, context);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_COUNT), ==, 1);
    g_assert_cmphex(rd(&p->v, VDXG_REG_INT_STATUS) & VDXG_INT_FAULT, ==,
                    VDXG_INT_FAULT);
    g_assert_cmphex(msg_read(&p->v, VDXG_MSIX_VEC_MISC), ==,
                    MSIX_DATA(VDXG_MSIX_VEC_MISC));

    /* Halted: a doorbell or enable does nothing. */
    wr(&p->v, EREG(p, VDXG_ENG_DOORBELL), 1);
    wr(&p->v, EREG(p, VDXG_ENG_CTRL), VDXG_ENG_CTRL_ENABLE);
    g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_RING_HEAD)), ==, head);
    g_assert_cmphex(rd64(&p->v, EREG(p, VDXG_ENG_FENCE_VALUE_LO)), ==,
                    fence);
    g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_STATUS)) &
                    VDXG_ENG_STATUS_HALTED, ==, VDXG_ENG_STATUS_HALTED);

    /* Engine reset and FAULT_CLEAR recover. */
    wr(&p->v, EREG(p, VDXG_ENG_RESET), 1);
    assert_engine_reset(p);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==,
                    VDXG_FAULT_STATUS_VALID);
    wr(&p->v, VDXG_REG_FAULT_CLEAR, 1);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==, 0);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_COUNT), ==, 0);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_REASON), ==, 0);
    g_assert_cmphex(rd64(&p->v, VDXG_REG_FAULT_ADDR_LO), ==, 0);
    wr(&p->v, VDXG_REG_INT_ACK, VDXG_INT_FAULT | VDXG_INT_PAGING_FENCE |
       VDXG_INT_RENDER_FENCE);
    msg_clear(&p->v);

    pg_engine_setup(p);
    p->seqno = 0;
    pb_reset(p);
    if (p->eng == VDXG_ENGINE_RENDER) {
        rd_recover_check(p);
        return;
    }
    emit_fill(p, PG_DATA, 64, 0x600df00d);
    emit_fence(p, PG_FENCE2, 0xcafe);
    pb_run(p);
    g_assert_cmphex(vram_readl(p, PG_DATA + 60), ==, 0x600df00d);
    g_assert_cmphex(vram_readq(p, PG_FENCE2), ==, 0xcafe);
}

/* Registers */

static void test_pg_registers(void)
{
    Vdxg v;

    vdxg_start(&v, PG_PROPS);
    g_assert_cmphex(rd(&v, VDXG_REG_CAPS) & (VDXG_CAP_PAGING | VDXG_CAP_GART),
                    ==, VDXG_CAP_PAGING | VDXG_CAP_GART);
    g_assert_cmphex(rd(&v, VDXG_REG_CAPS) & VDXG_CAP_RENDER, ==,
                    VDXG_CAP_RENDER);
    g_assert_cmphex(rd(&v, VDXG_REG_ENGINES), ==, ALL_ENGINES);
    g_assert_cmphex(rd(&v, VDXG_REG_GART_ENTRIES), ==, PG_GART_ENTRIES);

    /* Power-on values */
    g_assert_cmphex(rd(&v, ENG(VDXG_ENG_STATUS)), ==, VDXG_ENG_STATUS_IDLE);
    g_assert_cmphex(rd(&v, ENG(VDXG_ENG_CTRL)), ==, 0);
    g_assert_cmphex(rd64(&v, ENG(VDXG_ENG_RING_BASE_LO)), ==, 0);
    g_assert_cmphex(rd64(&v, VDXG_REG_GART_TABLE_LO), ==, 0);
    g_assert_cmphex(rd(&v, VDXG_REG_GART_CTRL), ==, 0);
    g_assert_cmphex(rd64(&v, VDXG_REG_DUMMY_PAGE_LO), ==, 0);
    g_assert_cmphex(rd(&v, VDXG_REG_FAULT_STATUS), ==, 0);

    /* Ring programming is stored as written; it is checked on a kick. */
    wr64(&v, ENG(VDXG_ENG_RING_BASE_LO), 0x123456789abcull);
    wr(&v, ENG(VDXG_ENG_RING_SIZE), 0x1801);
    wr(&v, ENG(VDXG_ENG_RING_TAIL), 0x44);
    wr64(&v, ENG(VDXG_ENG_FENCE_ADDR_LO), 0xfedcba9876543ull);
    g_assert_cmphex(rd64(&v, ENG(VDXG_ENG_RING_BASE_LO)), ==,
                    0x123456789abcull);
    g_assert_cmphex(rd(&v, ENG(VDXG_ENG_RING_SIZE)), ==, 0x1801);
    g_assert_cmphex(rd(&v, ENG(VDXG_ENG_RING_TAIL)), ==, 0x44);
    g_assert_cmphex(rd64(&v, ENG(VDXG_ENG_FENCE_ADDR_LO)), ==,
                    0xfedcba9876543ull);
    /* A doorbell while disabled does nothing, even with a bad ring. */
    wr(&v, ENG(VDXG_ENG_DOORBELL), 1);
    g_assert_cmphex(rd(&v, VDXG_REG_FAULT_STATUS), ==, 0);

    /* Read-only registers ignore writes; CTRL keeps only ENABLE. */
    wr(&v, ENG(VDXG_ENG_RING_HEAD), 0x20);
    wr(&v, ENG(VDXG_ENG_STATUS), 0xffffffff);
    wr(&v, ENG(VDXG_ENG_FENCE_VALUE_LO), 7);
    g_assert_cmphex(rd(&v, ENG(VDXG_ENG_RING_HEAD)), ==, 0);
    /* Not idle: HEAD != TAIL */
    g_assert_cmphex(rd(&v, ENG(VDXG_ENG_STATUS)), ==, 0);
    g_assert_cmphex(rd(&v, ENG(VDXG_ENG_FENCE_VALUE_LO)), ==, 0);

    /* Engine RESET: bit 0 returns every engine register to 0. */
    wr(&v, ENG(VDXG_ENG_RESET), 2);
    g_assert_cmphex(rd(&v, ENG(VDXG_ENG_RING_SIZE)), ==, 0x1801);
    wr(&v, ENG(VDXG_ENG_RESET), 1);
    g_assert_cmphex(rd64(&v, ENG(VDXG_ENG_RING_BASE_LO)), ==, 0);
    g_assert_cmphex(rd(&v, ENG(VDXG_ENG_RING_SIZE)), ==, 0);
    g_assert_cmphex(rd(&v, ENG(VDXG_ENG_RING_TAIL)), ==, 0);
    g_assert_cmphex(rd64(&v, ENG(VDXG_ENG_FENCE_ADDR_LO)), ==, 0);

    /* GART_TABLE: page aligned, and the whole table inside VRAM */
    wr64(&v, VDXG_REG_GART_TABLE_LO, 0x5000);
    g_assert_cmphex(rd64(&v, VDXG_REG_GART_TABLE_LO), ==, 0x5000);
    wr(&v, VDXG_REG_GART_TABLE_LO, 0x6800);
    g_assert_cmphex(rd64(&v, VDXG_REG_GART_TABLE_LO), ==, 0x5000);
    wr(&v, VDXG_REG_GART_TABLE_LO, PG_VRAM_SIZE - PG_GART_ENTRIES * 8);
    g_assert_cmphex(rd64(&v, VDXG_REG_GART_TABLE_LO), ==,
                    PG_VRAM_SIZE - PG_GART_ENTRIES * 8);
    wr(&v, VDXG_REG_GART_TABLE_LO, PG_VRAM_SIZE - PG_GART_ENTRIES * 8 +
       PG_PAGE);
    g_assert_cmphex(rd64(&v, VDXG_REG_GART_TABLE_LO), ==,
                    PG_VRAM_SIZE - PG_GART_ENTRIES * 8);
    wr(&v, VDXG_REG_GART_TABLE_HI, 1);
    g_assert_cmphex(rd(&v, VDXG_REG_GART_TABLE_HI), ==, 0);
    wr(&v, VDXG_REG_GART_ENTRIES, 1);
    g_assert_cmphex(rd(&v, VDXG_REG_GART_ENTRIES), ==, PG_GART_ENTRIES);

    wr(&v, VDXG_REG_GART_CTRL, 0xffffffff);
    g_assert_cmphex(rd(&v, VDXG_REG_GART_CTRL), ==, VDXG_GART_CTRL_ENABLE);

    /* DUMMY_PAGE: a page address */
    wr64(&v, VDXG_REG_DUMMY_PAGE_LO, 0x1234567000ull);
    g_assert_cmphex(rd64(&v, VDXG_REG_DUMMY_PAGE_LO), ==, 0x1234567000ull);
    wr(&v, VDXG_REG_DUMMY_PAGE_LO, 0x89ab0800);
    g_assert_cmphex(rd64(&v, VDXG_REG_DUMMY_PAGE_LO), ==, 0x1234567000ull);
    g_assert_cmphex(rd(&v, VDXG_REG_TLB_FLUSH), ==, 0);
    g_assert_cmphex(rd(&v, VDXG_REG_FAULT_CLEAR), ==, 0);

    /* The fault record is read-only. */
    wr(&v, VDXG_REG_FAULT_STATUS, 1);
    wr(&v, VDXG_REG_FAULT_COUNT, 5);
    wr(&v, VDXG_REG_FAULT_REASON, 5);
    g_assert_cmphex(rd(&v, VDXG_REG_FAULT_STATUS), ==, 0);
    g_assert_cmphex(rd(&v, VDXG_REG_FAULT_COUNT), ==, 0);
    g_assert_cmphex(rd(&v, VDXG_REG_FAULT_REASON), ==, 0);

    /* The RENDER engine's registers are its own. */
    wr(&v, VDXG_ENGINE_BASE(VDXG_ENGINE_RENDER) + VDXG_ENG_RING_SIZE,
       0x2000);
    g_assert_cmphex(rd(&v, VDXG_ENGINE_BASE(VDXG_ENGINE_RENDER) +
                       VDXG_ENG_RING_SIZE), ==, 0x2000);
    g_assert_cmphex(rd(&v, ENG(VDXG_ENG_RING_SIZE)), ==, 0);
    g_assert_cmphex(rd(&v, VDXG_ENGINE_BASE(VDXG_ENGINE_RENDER) +
                       VDXG_ENG_STATUS), ==, VDXG_ENG_STATUS_IDLE);

    /* A soft reset clears the GART registers. */
    wr(&v, VDXG_REG_RESET, VDXG_RESET_MAGIC);
    g_assert_cmphex(rd64(&v, VDXG_REG_GART_TABLE_LO), ==, 0);
    g_assert_cmphex(rd(&v, VDXG_REG_GART_CTRL), ==, 0);
    g_assert_cmphex(rd64(&v, VDXG_REG_DUMMY_PAGE_LO), ==, 0);
    g_assert_cmphex(rd(&v, VDXG_ENGINE_BASE(VDXG_ENGINE_RENDER) +
                       VDXG_ENG_RING_SIZE), ==, 0);
    g_assert_cmphex(rd(&v, VDXG_REG_ENGINES), ==, ALL_ENGINES);

    vdxg_stop(&v);
}

/* Ring entries, fences and interrupts */

static void test_pg_fence(void)
{
    Pg *p = pg_start(NULL);
    int i;

    /* NOP entries complete in order, each with a fence write-back. */
    for (i = 0; i < 3; i++) {
        ring_entry(p, VDXG_RING_CMD_NOP, 0, 0, 0x100000000ull + i, 7, 0);
    }
    p->seqno = 0x100000002ull;
    g_assert_cmphex(rd(&p->v, ENG(VDXG_ENG_STATUS)), ==,
                    VDXG_ENG_STATUS_IDLE);
    ring_kick(p);
    pg_finish(p);
    g_assert_cmphex(rd(&p->v, ENG(VDXG_ENG_RING_HEAD)), ==, 3 * 32);
    g_assert_cmphex(vram_readq(p, PG_FENCE), ==, 0x100000002ull);
    g_assert_cmphex(rd(&p->v, VDXG_REG_INT_STATUS), ==,
                    VDXG_INT_PAGING_FENCE);
    assert_msix_messages(&p->v, VDXG_MSIX_VEC_PAGING);

    /* An EXEC buffer with NOP and FENCE operations */
    wr(&p->v, VDXG_REG_INT_ACK, VDXG_INT_PAGING_FENCE);
    msg_clear(&p->v);
    pb_reset(p);
    emit_nop(p);
    emit_fence(p, PG_FENCE2, 0x1122334455667788ull);
    emit_nop(p);
    pb_run(p);
    g_assert_cmphex(vram_readq(p, PG_FENCE2), ==, 0x1122334455667788ull);
    g_assert_cmphex(vram_readq(p, PG_FENCE), ==, p->seqno);
    assert_msix_messages(&p->v, VDXG_MSIX_VEC_PAGING);

    /* A FENCE into the aperture lands in the mapped system page. */
    pb_reset(p);
    emit_map1(p, 3, SYS_PAGE(3));
    emit_fence(p, APERTURE(3) + 0x18, 0xa5a5a5a55a5a5a5aull);
    pb_run(p);
    g_assert_cmphex(qtest_readq(p->v.qts, SYS_PAGE(3) + 0x18), ==,
                    0xa5a5a5a55a5a5a5aull);

    /* FENCE_ADDR 0: no write-back, FENCE_VALUE still moves. */
    wr64(&p->v, ENG(VDXG_ENG_FENCE_ADDR_LO), 0);
    vram_writel(p, PG_FENCE, 0xdeadbeef);
    ring_entry(p, VDXG_RING_CMD_NOP, 0, 0, ++p->seqno, 0, 0);
    ring_kick(p);
    pg_finish(p);
    g_assert_cmphex(vram_readl(p, PG_FENCE), ==, 0xdeadbeef);

    /* The fence write-back slot may be in the aperture too. */
    wr64(&p->v, ENG(VDXG_ENG_FENCE_ADDR_LO), APERTURE(3) + 0x100);
    ring_entry(p, VDXG_RING_CMD_NOP, 0, 0, ++p->seqno, 0, 0);
    ring_kick(p);
    pg_finish(p);
    g_assert_cmphex(qtest_readq(p->v.qts, SYS_PAGE(3) + 0x100), ==,
                    p->seqno);

    /* A masked PAGING_FENCE sets its bit but sends no message. */
    wr(&p->v, VDXG_REG_INT_ACK, VDXG_INT_PAGING_FENCE);
    wr(&p->v, VDXG_REG_INT_MASK, VDXG_INT_VALID_MASK & ~VDXG_INT_PAGING_FENCE);
    msg_clear(&p->v);
    ring_entry(p, VDXG_RING_CMD_NOP, 0, 0, ++p->seqno, 0, 0);
    ring_kick(p);
    pg_finish(p);
    g_assert_cmphex(rd(&p->v, VDXG_REG_INT_STATUS), ==,
                    VDXG_INT_PAGING_FENCE);
    assert_msix_messages(&p->v, -1);

    pg_stop(p);
}

/* With MSI-X off and MSI off, PAGING_FENCE asserts INTx. */
static void test_pg_fence_intx(void)
{
    Vdxg v;
    int i;

    vdxg_start(&v, PG_PROPS ",msix=off,msi=off");
    wr(&v, VDXG_REG_INT_MASK, VDXG_INT_PAGING_FENCE);
    /* An empty ring in VRAM at 0: one NOP entry (all zero) */
    wr64(&v, ENG(VDXG_ENG_RING_BASE_LO), 0);
    wr(&v, ENG(VDXG_ENG_RING_SIZE), PG_RING_SIZE);
    wr(&v, ENG(VDXG_ENG_RING_TAIL), VDXG_RING_ENTRY_SIZE);
    g_assert_false(intx_asserted(&v));
    wr(&v, ENG(VDXG_ENG_CTRL), VDXG_ENG_CTRL_ENABLE);
    for (i = 0; i < PG_WAIT_LOOPS; i++) {
        if (rd(&v, ENG(VDXG_ENG_RING_HEAD)) == VDXG_RING_ENTRY_SIZE) {
            break;
        }
    }
    g_assert_cmphex(rd(&v, ENG(VDXG_ENG_RING_HEAD)), ==,
                    VDXG_RING_ENTRY_SIZE);
    g_assert_cmphex(rd(&v, VDXG_REG_INT_STATUS), ==, VDXG_INT_PAGING_FENCE);
    g_assert_true(intx_asserted(&v));
    wr(&v, VDXG_REG_INT_ACK, VDXG_INT_PAGING_FENCE);
    g_assert_false(intx_asserted(&v));
    vdxg_stop(&v);
}

/* TRANSFER */

static void test_pg_transfer_vram(void)
{
    Pg *p = pg_start(NULL);
    enum { SIZE = 0x1235, SRC = PG_DATA + 3, DST = PG_DATA + 0x10001 };
    g_autofree uint8_t *data = g_malloc(SIZE);
    g_autofree uint8_t *got = g_malloc(SIZE + 2);
    uint8_t guard[2] = { 0xee, 0xee };

    fill_bytes(data, SIZE, 1);
    vram_write(p, SRC, data, SIZE);
    vram_write(p, DST - 1, guard, 1);
    vram_write(p, DST + SIZE, guard, 1);

    pb_reset(p);
    emit_copy(p, SRC, DST, SIZE);
    emit_copy(p, SRC, DST + 0x8000, 0);     /* nothing to move */
    pb_run(p);
    vram_read(p, DST - 1, got, SIZE + 2);
    g_assert_cmphex(got[0], ==, 0xee);
    assert_bytes(got + 1, data, SIZE);
    g_assert_cmphex(got[SIZE + 1], ==, 0xee);
    g_assert_cmpuint(qom_get_u64(p, "pg-transfer-ops"), ==, 2);
    g_assert_cmpuint(qom_get_u64(p, "pg-transfer-bytes"), ==, SIZE);

    /* The last bytes of VRAM are reachable, the first past it are not. */
    pb_reset(p);
    emit_copy(p, SRC, PG_VRAM_SIZE - 16, 16);
    pb_run(p);
    vram_read(p, PG_VRAM_SIZE - 16, got, 16);
    assert_bytes(got, data, 16);

    pg_stop(p);
}

static void test_pg_transfer_pages(void)
{
    static const uint64_t src_pages[] = {
        SYS_PAGE(5), SYS_PAGE(2), SYS_PAGE(9),
    };
    static const uint64_t dst_pages[] = {
        SYS_PAGE(20), SYS_PAGE(17), SYS_PAGE(30),
    };
    enum { SIZE = 0x2000 + 0x234 };
    g_autofree uint8_t *data = g_malloc(3 * PG_PAGE);
    g_autofree uint8_t *got = g_malloc(3 * PG_PAGE);
    g_autofree uint8_t *zero = g_malloc0(3 * PG_PAGE);
    Pg *p = pg_start(NULL);
    int i;

    /* Source: three scattered system pages */
    fill_bytes(data, 3 * PG_PAGE, 2);
    for (i = 0; i < 3; i++) {
        sys_write(p, src_pages[i], data + i * PG_PAGE, PG_PAGE);
    }

    /* Page list -> VRAM, starting 0x100 into the first page */
    pb_reset(p);
    emit_transfer(p, SIZE, 0x100, src_pages, 3, PG_DATA, NULL, 0);
    pb_run(p);
    vram_read(p, PG_DATA, got, SIZE);
    assert_bytes(got, data + 0x100, SIZE);

    /* VRAM -> page list, starting 0x7fc into the first page */
    fill_bytes(data, 3 * PG_PAGE, 3);
    vram_write(p, PG_DATA, data, SIZE);
    for (i = 0; i < 3; i++) {
        sys_write(p, dst_pages[i], zero, PG_PAGE);
    }
    pb_reset(p);
    emit_transfer(p, SIZE, PG_DATA, NULL, 0, 0x7fc, dst_pages, 3);
    pb_run(p);
    for (i = 0; i < 3; i++) {
        sys_read(p, dst_pages[i], got + i * PG_PAGE, PG_PAGE);
    }
    assert_bytes(got, zero, 0x7fc);
    assert_bytes(got + 0x7fc, data, SIZE);
    assert_bytes(got + 0x7fc + SIZE, zero, 3 * PG_PAGE - 0x7fc - SIZE);

    /* Page list -> page list with different offsets */
    fill_bytes(data, 3 * PG_PAGE, 4);
    for (i = 0; i < 3; i++) {
        sys_write(p, src_pages[i], data + i * PG_PAGE, PG_PAGE);
        sys_write(p, dst_pages[i], zero, PG_PAGE);
    }
    pb_reset(p);
    emit_transfer(p, 0x1800, 0xc00, src_pages, 3, 0x10, dst_pages, 2);
    pb_run(p);
    for (i = 0; i < 2; i++) {
        sys_read(p, dst_pages[i], got + i * PG_PAGE, PG_PAGE);
    }
    assert_bytes(got, zero, 0x10);
    assert_bytes(got + 0x10, data + 0xc00, 0x1800);

    /* A longer page list than needed is fine. */
    pb_reset(p);
    emit_transfer(p, 16, 0, src_pages, 3, PG_DATA + 0x8000, NULL, 0);
    pb_run(p);
    vram_read(p, PG_DATA + 0x8000, got, 16);
    assert_bytes(got, data, 16);

    pg_stop(p);
}

/* GART and aperture */

static void test_pg_gart(void)
{
    static const uint64_t pages[] = {
        SYS_PAGE(40), SYS_PAGE(33), SYS_PAGE(47), SYS_PAGE(35),
    };
    g_autofree uint8_t *data = g_malloc(4 * PG_PAGE);
    g_autofree uint8_t *got = g_malloc(4 * PG_PAGE);
    g_autofree uint8_t *dummy = g_malloc(PG_PAGE);
    Pg *p = pg_start(NULL);
    int i;

    fill_bytes(data, 4 * PG_PAGE, 5);
    for (i = 0; i < 4; i++) {
        sys_write(p, pages[i], data + i * PG_PAGE, PG_PAGE);
    }
    fill_bytes(dummy, PG_PAGE, 6);
    sys_write(p, SYS_DUMMY, dummy, PG_PAGE);

    /* MAP_APERTURE writes VALID | page into the GART table in VRAM. */
    pb_reset(p);
    emit_map(p, 0, pages, 4);
    pb_run(p);
    for (i = 0; i < 4; i++) {
        g_assert_cmphex(vram_readq(p, PG_GART + i * 8), ==,
                        pages[i] | VDXG_GART_PTE_VALID);
    }
    g_assert_cmphex(vram_readq(p, PG_GART + 4 * 8), ==, 0);
    g_assert_cmpuint(qom_get_u64(p, "pg-map-aperture-ops"), ==, 1);
    g_assert_cmpuint(qom_get_u64(p, "pg-map-aperture-bytes"), ==,
                     4 * PG_PAGE);

    /* What the CPU wrote to the system pages reads through the aperture */
    gpu_peek(p, APERTURE(0) + 0x800, got, 3 * PG_PAGE);
    assert_bytes(got, data + 0x800, 3 * PG_PAGE);

    /* ... and what the engine writes there lands in them. */
    fill_bytes(data, 2 * PG_PAGE, 7);
    vram_write(p, PG_DATA, data, 2 * PG_PAGE);
    pb_reset(p);
    emit_copy(p, PG_DATA, APERTURE(2), 2 * PG_PAGE);
    pb_run(p);
    sys_read(p, pages[2], got, PG_PAGE);
    sys_read(p, pages[3], got + PG_PAGE, PG_PAGE);
    assert_bytes(got, data, 2 * PG_PAGE);

    /* An unmapped page reads and writes the dummy page. */
    gpu_peek(p, APERTURE(10), got, PG_PAGE);
    assert_bytes(got, dummy, PG_PAGE);
    pb_reset(p);
    emit_fill(p, APERTURE(PG_GART_ENTRIES - 1) + 0x40, 8, 0x0d0d0d0d);
    pb_run(p);
    g_assert_cmphex(qtest_readl(p->v.qts, SYS_DUMMY + 0x44), ==, 0x0d0d0d0d);
    fill_bytes(dummy, PG_PAGE, 6);
    sys_write(p, SYS_DUMMY, dummy, PG_PAGE);

    /* UNMAP_APERTURE invalidates the entries: the dummy page again */
    pb_reset(p);
    emit_unmap(p, 1, 2);
    emit_flush_tlb(p);
    pb_run(p);
    g_assert_cmphex(vram_readq(p, PG_GART + 0 * 8), ==,
                    pages[0] | VDXG_GART_PTE_VALID);
    g_assert_cmphex(vram_readq(p, PG_GART + 1 * 8), ==, 0);
    g_assert_cmphex(vram_readq(p, PG_GART + 2 * 8), ==, 0);
    g_assert_cmphex(vram_readq(p, PG_GART + 3 * 8), ==,
                    pages[3] | VDXG_GART_PTE_VALID);
    gpu_peek(p, APERTURE(1), got, PG_PAGE);
    assert_bytes(got, dummy, PG_PAGE);
    g_assert_cmphex(gpu_peekl(p, APERTURE(0)), ==,
                    qtest_readl(p->v.qts, pages[0]));

    /* GART_CTRL off: every aperture page is the dummy page. */
    wr(&p->v, VDXG_REG_GART_CTRL, 0);
    gpu_peek(p, APERTURE(0), got, PG_PAGE);
    assert_bytes(got, dummy, PG_PAGE);
    wr(&p->v, VDXG_REG_GART_CTRL, VDXG_GART_CTRL_ENABLE);

    /* Entries the CPU writes directly to the table count too. */
    vram_writel(p, PG_GART + 7 * 8, SYS_PAGE(33) | VDXG_GART_PTE_VALID);
    vram_writel(p, PG_GART + 7 * 8 + 4, 0);
    wr(&p->v, VDXG_REG_TLB_FLUSH, 1);
    g_assert_cmphex(gpu_peekl(p, APERTURE(7) + 8), ==,
                    qtest_readl(p->v.qts, SYS_PAGE(33) + 8));

    /* The ring and the paging buffers may live in the aperture. */
    pb_reset(p);
    emit_map1(p, 100, SYS_PAGE(60));
    emit_map1(p, 101, SYS_PAGE(61));
    pb_run(p);
    qtest_memset(p->v.qts, SYS_PAGE(60), 0, PG_PAGE);
    wr(&p->v, ENG(VDXG_ENG_RESET), 1);
    wr64(&p->v, ENG(VDXG_ENG_RING_BASE_LO), APERTURE(100));
    wr(&p->v, ENG(VDXG_ENG_RING_SIZE), PG_RING_SIZE);
    wr64(&p->v, ENG(VDXG_ENG_FENCE_ADDR_LO), PG_FENCE);
    wr(&p->v, ENG(VDXG_ENG_CTRL), VDXG_ENG_CTRL_ENABLE);
    pb_reset(p);
    emit_fill(p, PG_DATA, 32, 0x77665544);
    sys_write(p, SYS_PAGE(61), p->buf, pb_off(p));
    {
        uint32_t e[8] = {
            VDXG_RING_CMD_EXEC, pb_off(p), (uint32_t)APERTURE(101),
            APERTURE(101) >> 32, 42, 0, 0, 0,
        };

        sys_write(p, SYS_PAGE(60), e, sizeof(e));
    }
    wr(&p->v, ENG(VDXG_ENG_RING_TAIL), VDXG_RING_ENTRY_SIZE);
    wr(&p->v, ENG(VDXG_ENG_DOORBELL), 1);
    g_assert_cmphex(pg_wait(p), ==, VDXG_ENG_STATUS_IDLE);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==, 0);
    g_assert_cmphex(rd64(&p->v, ENG(VDXG_ENG_FENCE_VALUE_LO)), ==, 42);
    g_assert_cmphex(vram_readl(p, PG_DATA + 28), ==, 0x77665544);

    pg_stop(p);
}

/* A GART entry changed without a TLB flush may keep its old translation */
static void test_pg_tlb(void)
{
    Pg *p = pg_start(NULL);
    uint64_t misses;

    qtest_writel(p->v.qts, SYS_PAGE(70), 0xaaaa0000);
    qtest_writel(p->v.qts, SYS_PAGE(71), 0xbbbb0000);
    qtest_writel(p->v.qts, SYS_PAGE(72), 0xcccc0000);

    pb_reset(p);
    emit_map1(p, 5, SYS_PAGE(70));
    emit_flush_tlb(p);
    pb_run(p);
    misses = qom_get_u64(p, "pg-tlb-misses");
    g_assert_cmphex(gpu_peekl(p, APERTURE(5)), ==, 0xaaaa0000);
    g_assert_cmpuint(qom_get_u64(p, "pg-tlb-misses"), ==, misses + 1);

    /* Remapped without a flush: the TLB still has the old page. */
    pb_reset(p);
    emit_map1(p, 5, SYS_PAGE(71));
    pb_run(p);
    g_assert_cmphex(vram_readq(p, PG_GART + 5 * 8), ==,
                    SYS_PAGE(71) | VDXG_GART_PTE_VALID);
    g_assert_cmphex(gpu_peekl(p, APERTURE(5)), ==, 0xaaaa0000);
    g_assert_cmpuint(qom_get_u64(p, "pg-tlb-misses"), ==, misses + 1);

    /* Writes go to the old page as well. */
    pb_reset(p);
    emit_fill(p, APERTURE(5) + 4, 4, 0x5555aaaa);
    pb_run(p);
    g_assert_cmphex(qtest_readl(p->v.qts, SYS_PAGE(70) + 4), ==, 0x5555aaaa);
    g_assert_cmphex(qtest_readl(p->v.qts, SYS_PAGE(71) + 4), ==, 0);

    /* FLUSH_TLB */
    pb_reset(p);
    emit_flush_tlb(p);
    pb_run(p);
    g_assert_cmphex(gpu_peekl(p, APERTURE(5)), ==, 0xbbbb0000);

    /* The TLB_FLUSH register */
    pb_reset(p);
    emit_map1(p, 5, SYS_PAGE(72));
    pb_run(p);
    g_assert_cmphex(gpu_peekl(p, APERTURE(5)), ==, 0xbbbb0000);
    wr(&p->v, VDXG_REG_TLB_FLUSH, 0);
    g_assert_cmphex(gpu_peekl(p, APERTURE(5)), ==, 0xcccc0000);

    /* Writing GART_CTRL flushes too. */
    pb_reset(p);
    emit_unmap(p, 5, 1);
    pb_run(p);
    g_assert_cmphex(gpu_peekl(p, APERTURE(5)), ==, 0xcccc0000);
    wr(&p->v, VDXG_REG_GART_CTRL, VDXG_GART_CTRL_ENABLE);
    qtest_writel(p->v.qts, SYS_DUMMY, 0xdddd0000);
    g_assert_cmphex(gpu_peekl(p, APERTURE(5)), ==, 0xdddd0000);

    /* A page sharing its TLB slot (64 slots, by page number) evicts it. */
    pb_reset(p);
    emit_map1(p, 5, SYS_PAGE(70));
    emit_map1(p, 5 + 64, SYS_PAGE(71));
    emit_flush_tlb(p);
    pb_run(p);
    g_assert_cmphex(gpu_peekl(p, APERTURE(5)), ==, 0xaaaa0000);
    pb_reset(p);
    emit_map1(p, 5, SYS_PAGE(72));
    pb_run(p);
    g_assert_cmphex(gpu_peekl(p, APERTURE(5)), ==, 0xaaaa0000);
    g_assert_cmphex(gpu_peekl(p, APERTURE(5 + 64)), ==, 0xbbbb0000);
    g_assert_cmphex(gpu_peekl(p, APERTURE(5)), ==, 0xcccc0000);
    g_assert_cmpuint(qom_get_u64(p, "pg-tlb-hits"), >, 0);

    /* Writing GART_TABLE flushes too. */
    pb_reset(p);
    emit_map1(p, 5, SYS_PAGE(71));
    pb_run(p);
    g_assert_cmphex(gpu_peekl(p, APERTURE(5)), ==, 0xcccc0000);
    wr64(&p->v, VDXG_REG_GART_TABLE_LO, PG_GART);
    g_assert_cmphex(gpu_peekl(p, APERTURE(5)), ==, 0xbbbb0000);

    pg_stop(p);
}

/* FILL, DISCARD, physical reads and writes */

static void test_pg_fill(void)
{
    Pg *p = pg_start(NULL);
    g_autofree uint32_t *got = g_malloc(0x3000);
    int i;

    vram_writel(p, PG_DATA, 0x11111111);
    vram_writel(p, PG_DATA + 4 + 0x2004, 0x22222222);
    pb_reset(p);
    emit_fill(p, PG_DATA + 4, 0x2004, 0xdeadbeef);
    emit_fill(p, PG_DATA + 0x8000, 0, 0x12345678);  /* nothing */
    pb_run(p);
    vram_read(p, PG_DATA, got, 0x200c);
    g_assert_cmphex(got[0], ==, 0x11111111);
    for (i = 1; i <= 0x2004 / 4; i++) {
        g_assert_cmphex(le32_to_cpu(got[i]), ==, 0xdeadbeef);
    }
    g_assert_cmphex(got[i], ==, 0x22222222);
    g_assert_cmphex(vram_readl(p, PG_DATA + 0x8000), ==, 0);

    /* Through the aperture, across a page boundary */
    qtest_memset(p->v.qts, SYS_PAGE(80), 0, 2 * PG_PAGE);
    pb_reset(p);
    emit_map1(p, 8, SYS_PAGE(80));
    emit_map1(p, 9, SYS_PAGE(81));
    emit_fill(p, APERTURE(8) + PG_PAGE - 8, 16, 0x0badcafe);
    pb_run(p);
    g_assert_cmphex(qtest_readl(p->v.qts, SYS_PAGE(80) + PG_PAGE - 12), ==,
                    0);
    g_assert_cmphex(qtest_readl(p->v.qts, SYS_PAGE(80) + PG_PAGE - 8), ==,
                    0x0badcafe);
    g_assert_cmphex(qtest_readl(p->v.qts, SYS_PAGE(81) + 4), ==,
                    0x0badcafe);
    g_assert_cmphex(qtest_readl(p->v.qts, SYS_PAGE(81) + 8), ==, 0);
    g_assert_cmpuint(qom_get_u64(p, "pg-fill-ops"), ==, 3);
    g_assert_cmpuint(qom_get_u64(p, "pg-fill-bytes"), ==, 0x2004 + 16);

    pg_stop(p);
}

static void test_pg_discard(void)
{
    Pg *p = pg_start(NULL);
    g_autofree uint8_t *data = g_malloc(0x3000);
    g_autofree uint8_t *got = g_malloc(0x3000);

    fill_bytes(data, 0x3000, 8);
    vram_write(p, PG_DATA, data, 0x3000);
    sys_write(p, SYS_PAGE(90), data, PG_PAGE);
    pb_reset(p);
    emit_map1(p, 11, SYS_PAGE(90));
    emit_discard(p, PG_DATA, 0x3000);
    emit_discard(p, APERTURE(11), PG_PAGE);
    emit_discard(p, PG_DATA, 0);
    pb_run(p);
    vram_read(p, PG_DATA, got, 0x3000);
    assert_bytes(got, data, 0x3000);
    sys_read(p, SYS_PAGE(90), got, PG_PAGE);
    assert_bytes(got, data, PG_PAGE);
    g_assert_cmpuint(qom_get_u64(p, "pg-discard-ops"), ==, 3);
    g_assert_cmpuint(qom_get_u64(p, "pg-discard-bytes"), ==,
                     0x3000 + PG_PAGE);
    g_assert_cmpuint(qom_get_u64(p, "pg-transfer-ops"), ==, 0);
    g_assert_cmpuint(qom_get_u64(p, "pg-fill-ops"), ==, 0);

    pg_stop(p);
}

static void test_pg_physical(void)
{
    static const uint32_t words[] = {
        0x03020100, 0x07060504, 0x0b0a0908, 0x0f0e0d0c, 0x13121110,
    };
    g_autofree uint8_t *data = g_malloc(0x1800);
    g_autofree uint8_t *got = g_malloc(0x1800);
    Pg *p = pg_start(NULL);
    int i;

    /* WRITE_PHYSICAL, at an unaligned bus address */
    qtest_memset(p->v.qts, SYS_PAGE(100), 0xff, 64);
    pb_reset(p);
    emit_write_phys(p, SYS_PAGE(100) + 2, words, ARRAY_SIZE(words));
    emit_write_phys(p, SYS_PAGE(100) + 40, NULL, 0);
    pb_run(p);
    qtest_memread(p->v.qts, SYS_PAGE(100), got, 64);
    g_assert_cmphex(got[0], ==, 0xff);
    g_assert_cmphex(got[1], ==, 0xff);
    for (i = 0; i < 20; i++) {
        g_assert_cmphex(got[2 + i], ==, i);
    }
    g_assert_cmphex(got[22], ==, 0xff);
    g_assert_cmphex(got[40], ==, 0xff);
    g_assert_cmpuint(qom_get_u64(p, "pg-write-physical-bytes"), ==, 20);

    /* READ_PHYSICAL into VRAM and into the aperture */
    fill_bytes(data, 0x1800, 9);
    sys_write(p, SYS_PAGE(102), data, 0x1800);
    qtest_memset(p->v.qts, SYS_PAGE(110), 0, 2 * PG_PAGE);
    pb_reset(p);
    emit_read_phys(p, SYS_PAGE(102) + 0x10, 0x1700, PG_DATA + 1);
    emit_map1(p, 12, SYS_PAGE(110));
    emit_map1(p, 13, SYS_PAGE(111));
    emit_read_phys(p, SYS_PAGE(102), 0x1800, APERTURE(12) + 0x400);
    pb_run(p);
    vram_read(p, PG_DATA + 1, got, 0x1700);
    assert_bytes(got, data + 0x10, 0x1700);
    sys_read(p, SYS_PAGE(110) + 0x400, got, 0x1800);
    assert_bytes(got, data, 0x1800);
    g_assert_cmpuint(qom_get_u64(p, "pg-read-physical-ops"), ==, 2);

    pg_stop(p);
}

/* Several buffers, a wrapping ring, and moves larger than one BH run */

static void test_pg_multipass(void)
{
    enum { CHUNK = 0x3000, PASSES = 6 };
    g_autofree uint8_t *data = g_malloc(CHUNK * PASSES);
    g_autofree uint8_t *got = g_malloc(CHUNK * PASSES);
    uint64_t runs;
    Pg *p = pg_start(NULL);
    int i, batch;

    /* One copy split in passes, one paging buffer per pass */
    fill_bytes(data, CHUNK * PASSES, 10);
    vram_write(p, PG_DATA, data, CHUNK * PASSES);
    for (i = 0; i < PASSES; i++) {
        pb_reset(p);
        emit_copy(p, PG_DATA + i * CHUNK, PG_DATA + 0x100000 + i * CHUNK,
                  CHUNK);
        pb_queue(p);
    }
    ring_kick(p);
    pg_finish(p);
    g_assert_cmphex(vram_readq(p, PG_FENCE), ==, PASSES);
    vram_read(p, PG_DATA + 0x100000, got, CHUNK * PASSES);
    assert_bytes(got, data, CHUNK * PASSES);

    /* 300 entries through a 128-entry ring: HEAD wraps. */
    for (batch = 0; batch < 3; batch++) {
        for (i = 0; i < 100; i++) {
            if (i % 2) {
                ring_entry(p, VDXG_RING_CMD_NOP, 0, 0, ++p->seqno, 0, 0);
            } else {
                pb_reset(p);
                emit_fence(p, PG_FENCE2, p->seqno + 1);
                pb_queue(p);
            }
        }
        ring_kick(p);
        pg_finish(p);
    }
    g_assert_cmphex(rd64(&p->v, ENG(VDXG_ENG_FENCE_VALUE_LO)), ==,
                    PASSES + 300);
    g_assert_cmphex(rd(&p->v, ENG(VDXG_ENG_RING_HEAD)), ==,
                    (PASSES + 300) * 32 % PG_RING_SIZE);
    g_assert_cmphex(vram_readq(p, PG_FENCE2), ==, PASSES + 299);

    /* 8 MiB fill and 8 MiB copy: several runs of the bottom half */
    runs = qom_get_u64(p, "pg-bh-runs");
    pb_reset(p);
    emit_fill(p, 0x800000, 0x800000, 0x3c3c5a5a);
    emit_copy(p, 0x800000, 0x1000000, 0x800000);
    pb_run(p);
    g_assert_cmpuint(qom_get_u64(p, "pg-bh-runs") - runs, >=, 4);
    for (i = 0; i < 8; i++) {
        g_assert_cmphex(vram_readl(p, 0x1000000 + i * 0x100000 + 0xffffc),
                        ==, 0x3c3c5a5a);
    }
    g_assert_cmphex(vram_readl(p, 0x1800000), ==, 0);

    pg_stop(p);
}

/* Queue a buffer with ~72 MiB of work. */
static void queue_big_work(Pg *p)
{
    int i;

    pb_reset(p);
    for (i = 0; i < 8; i++) {
        emit_fill(p, 0x1000000, 0x800000, 0x01010101 * (i + 1));
    }
    emit_copy(p, 0x1000000, 0x800000, 0x800000);
    pb_queue(p);
}

/* Clearing ENABLE pauses an entry in progress; setting it resumes it. */
static void test_pg_pause(void)
{
    Pg *p = pg_start(NULL);
    uint32_t head;
    int i;

    queue_big_work(p);
    ring_kick(p);
    wr(&p->v, ENG(VDXG_ENG_CTRL), 0);
    head = rd(&p->v, ENG(VDXG_ENG_RING_HEAD));
    g_assert_cmphex(head, ==, 0);
    for (i = 0; i < 20; i++) {
        g_assert_cmphex(rd(&p->v, ENG(VDXG_ENG_STATUS)), ==, 0);
    }
    g_assert_cmphex(rd64(&p->v, ENG(VDXG_ENG_FENCE_VALUE_LO)), ==, 0);
    g_assert_cmphex(vram_readl(p, 0x800000), ==, 0);

    wr(&p->v, ENG(VDXG_ENG_CTRL), VDXG_ENG_CTRL_ENABLE);
    pg_finish(p);
    g_assert_cmphex(vram_readl(p, 0x800000), ==, 0x08080808);
    g_assert_cmphex(vram_readl(p, 0xfffffc), ==, 0x08080808);

    pg_stop(p);
}

/* Engine reset in the middle of work, soft reset and device reset */
static void test_pg_reset(void)
{
    Pg *p = pg_start(NULL);
    int i;

    /* An engine reset drops the entry in progress: nothing more happens */
    queue_big_work(p);
    ring_kick(p);
    wr(&p->v, ENG(VDXG_ENG_RESET), 1);
    assert_engine_reset(p);
    wr(&p->v, VDXG_REG_INT_ACK, VDXG_INT_VALID_MASK);
    vram_writel(p, 0x800000, 0x12345678);
    for (i = 0; i < 20; i++) {
        g_assert_cmphex(rd(&p->v, ENG(VDXG_ENG_STATUS)), ==,
                        VDXG_ENG_STATUS_IDLE);
    }
    g_assert_cmphex(rd(&p->v, VDXG_REG_INT_STATUS), ==, 0);
    g_assert_cmphex(vram_readl(p, 0x800000), ==, 0x12345678);
    pg_engine_setup(p);
    p->seqno = 0;
    pb_reset(p);
    emit_fence(p, PG_FENCE2, 99);
    pb_run(p);

    /* A soft reset clears the halted engine, GART and fault record. */
    pb_reset(p);
    emit_nop(p);
    pb_dw(p, VDXG_PG_HDR(0x55, 1));
    pb_queue(p);
    ring_kick(p);
    g_assert_cmphex(pg_wait(p), ==, VDXG_ENG_STATUS_HALTED);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==,
                    VDXG_FAULT_STATUS_VALID);
    wr(&p->v, VDXG_REG_RESET, VDXG_RESET_MAGIC);
    assert_engine_reset(p);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==, 0);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_COUNT), ==, 0);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_OPCODE), ==, 0);
    g_assert_cmphex(rd64(&p->v, VDXG_REG_GART_TABLE_LO), ==, 0);
    g_assert_cmphex(rd(&p->v, VDXG_REG_GART_CTRL), ==, 0);
    g_assert_cmphex(rd(&p->v, VDXG_REG_INT_STATUS), ==, 0);
    wr(&p->v, VDXG_REG_INT_MASK, VDXG_INT_VALID_MASK);
    pg_gart_setup(p);
    pg_engine_setup(p);
    p->seqno = 0;
    pb_reset(p);
    emit_fence(p, PG_FENCE2, 100);
    pb_run(p);
    g_assert_cmphex(vram_readq(p, PG_FENCE2), ==, 100);

    /* A device reset stops the engine in the middle of work too. */
    queue_big_work(p);
    ring_kick(p);
    qtest_qmp_assert_success(p->v.qts, "{ 'execute': 'system_reset' }");
    qtest_qmp_eventwait(p->v.qts, "RESET");
    qpci_device_enable(p->v.dev);
    p->v.mmio = qpci_iomap(p->v.dev, VDXG_BAR_MMIO, NULL);
    p->v.dev->msix_enabled = false;
    assert_engine_reset(p);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==, 0);
    g_assert_cmphex(rd64(&p->v, VDXG_REG_GART_TABLE_LO), ==, 0);

    pg_stop(p);
}

/* Faults */

typedef struct PgFaultCase {
    const char *name;
    /* Queue the faulting work and set p->want_*; NULL: a kick faults. */
    void (*build)(Pg *p);
    uint32_t reason;
} PgFaultCase;

/* Queue the buffer built so far; the op at @off is expected to fault. */
static void fault_at_op(Pg *p, uint32_t off, uint32_t opcode)
{
    pb_queue(p);
    p->want_opcode = opcode;
    p->want_addr = p->buf_gpu + off;
    p->want_context = PG_CONTEXT;
}

static void fault_at_addr(Pg *p, uint32_t opcode, uint64_t addr)
{
    pb_queue(p);
    p->want_opcode = opcode;
    p->want_addr = addr;
    p->want_context = PG_CONTEXT;
}

static void build_bad_opcode(Pg *p)
{
    uint32_t off;

    emit_nop(p);
    off = pb_off(p);
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_NUM_OPS, 1));
    fault_at_op(p, off, VDXG_PG_NUM_OPS);
}

static void build_bad_opcode_ff(Pg *p)
{
    emit_fill(p, PG_DATA, 4, 1);
    pb_dw(p, VDXG_PG_HDR(0xff, 3));
    pb_dw(p, 0);
    pb_dw(p, 0);
    fault_at_op(p, 20, 0xff);
}

static void build_header_reserved(Pg *p)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_NOP | 0x100, 1));
    fault_at_op(p, 0, 0x100);
}

static void build_zero_length(Pg *p)
{
    emit_nop(p);
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_NOP, 0));
    fault_at_op(p, 4, VDXG_PG_NOP);
}

static void build_nop_length(Pg *p)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_NOP, 2));
    pb_dw(p, 0);
    fault_at_op(p, 0, VDXG_PG_NOP);
}

static void build_fence_length(Pg *p)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_FENCE, 4));
    pb_qw(p, PG_FENCE2);
    pb_dw(p, 1);
    fault_at_op(p, 0, VDXG_PG_FENCE);
}

static void build_transfer_length(Pg *p)
{
    uint64_t page = SYS_PAGE(0);

    emit_transfer(p, 16, 0, &page, 1, PG_DATA, NULL, 0);
    p->buf[0] = VDXG_PG_HDR(VDXG_PG_TRANSFER, VDXG_PG_XFER_LEN(0, 0));
    p->used = VDXG_PG_XFER_LEN(0, 0);
    emit_nop(p);
    emit_nop(p);
    fault_at_op(p, 0, VDXG_PG_TRANSFER);
}

static void build_map_length(Pg *p)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_MAP_APERTURE, VDXG_PG_MAP_LEN(1)));
    pb_dw(p, 0);
    pb_dw(p, 2);
    pb_qw(p, SYS_PAGE(0));
    fault_at_op(p, 0, VDXG_PG_MAP_APERTURE);
}

static void build_unmap_length(Pg *p)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_UNMAP_APERTURE, 4));
    pb_dw(p, 0);
    pb_dw(p, 1);
    pb_dw(p, 0);
    fault_at_op(p, 0, VDXG_PG_UNMAP_APERTURE);
}

static void build_past_end(Pg *p)
{
    emit_nop(p);
    emit_fill(p, PG_DATA, 4, 1);
    p->used -= 2;       /* the buffer ends inside the FILL */
    fault_at_op(p, 4, VDXG_PG_FILL);
}

static void build_write_phys_past_end(Pg *p)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_PG_WRITE_PHYSICAL, 100));
    pb_qw(p, SYS_PAGE(0));
    fault_at_op(p, 0, VDXG_PG_WRITE_PHYSICAL);
}

static void build_fill_unaligned(Pg *p)
{
    emit_fill(p, PG_DATA + 2, 8, 1);
    fault_at_op(p, 0, VDXG_PG_FILL);
}

static void build_fill_size(Pg *p)
{
    emit_fill(p, PG_DATA, 6, 1);
    fault_at_op(p, 0, VDXG_PG_FILL);
}

static void build_fence_unaligned(Pg *p)
{
    emit_fence(p, PG_FENCE2 + 4, 1);
    fault_at_op(p, 0, VDXG_PG_FENCE);
}

static void build_transfer_flags(Pg *p)
{
    emit_copy(p, PG_DATA, PG_DATA + 0x1000, 16);
    p->buf[VDXG_PG_XFER_DW_FLAGS] = 4;
    fault_at_op(p, 0, VDXG_PG_TRANSFER);
}

static void build_transfer_pages_no_flag(Pg *p)
{
    uint64_t page = SYS_PAGE(0);

    emit_transfer(p, 16, 0, &page, 1, PG_DATA, NULL, 0);
    p->buf[VDXG_PG_XFER_DW_FLAGS] = 0;
    fault_at_op(p, 0, VDXG_PG_TRANSFER);
}

static void build_page_offset(Pg *p)
{
    uint64_t pages[2] = { SYS_PAGE(0), SYS_PAGE(1) };

    emit_transfer(p, 16, PG_PAGE, pages, 2, PG_DATA, NULL, 0);
    fault_at_op(p, 0, VDXG_PG_TRANSFER);
}

static void build_page_unaligned(Pg *p)
{
    uint64_t pages[2] = { SYS_PAGE(0), SYS_PAGE(1) + 8 };

    emit_nop(p);
    emit_transfer(p, 0x1000, 0x800, pages, 2, PG_DATA, NULL, 0);
    fault_at_op(p, 4, VDXG_PG_TRANSFER);
}

static void build_map_unaligned(Pg *p)
{
    uint64_t pages[2] = { SYS_PAGE(0), SYS_PAGE(1) | 0x10 };

    emit_map(p, 20, pages, 2);
    fault_at_op(p, 0, VDXG_PG_MAP_APERTURE);
}

static void build_short_page_list(Pg *p)
{
    uint64_t page = SYS_PAGE(0);

    emit_transfer(p, PG_PAGE, 0x800, &page, 1, PG_DATA, NULL, 0);
    fault_at_op(p, 0, VDXG_PG_TRANSFER);
}

static void build_short_dst_page_list(Pg *p)
{
    uint64_t pages[2] = { SYS_PAGE(0), SYS_PAGE(1) };

    emit_transfer(p, 2 * PG_PAGE + 4, PG_DATA, NULL, 0, 0, pages, 2);
    fault_at_op(p, 0, VDXG_PG_TRANSFER);
}

static void build_map_past_end(Pg *p)
{
    uint64_t pages[2] = { SYS_PAGE(0), SYS_PAGE(1) };

    emit_map(p, PG_GART_ENTRIES - 1, pages, 2);
    fault_at_op(p, 0, VDXG_PG_MAP_APERTURE);
}

static void build_unmap_past_end(Pg *p)
{
    emit_unmap(p, PG_GART_ENTRIES, 1);
    fault_at_op(p, 0, VDXG_PG_UNMAP_APERTURE);
}

static void build_unmap_wrap(Pg *p)
{
    emit_unmap(p, 0xffffffff, 2);
    fault_at_op(p, 0, VDXG_PG_UNMAP_APERTURE);
}

static void build_address_hole(Pg *p)
{
    emit_copy(p, PG_DATA, GPU_HOLE, 16);
    fault_at_addr(p, VDXG_PG_TRANSFER, GPU_HOLE);
}

static void build_address_src_hole(Pg *p)
{
    emit_copy(p, VDXG_APERTURE_BASE - 8, PG_DATA, 4);
    fault_at_addr(p, VDXG_PG_TRANSFER, VDXG_APERTURE_BASE - 8);
}

static void build_address_vram_end(Pg *p)
{
    emit_fill(p, PG_VRAM_SIZE - 4, 8, 1);
    fault_at_addr(p, VDXG_PG_FILL, PG_VRAM_SIZE - 4);
}

static void build_address_aperture_end(Pg *p)
{
    emit_copy(p, PG_DATA, APERTURE(PG_GART_ENTRIES) - 4, 8);
    fault_at_addr(p, VDXG_PG_TRANSFER, APERTURE(PG_GART_ENTRIES) - 4);
}

static void build_address_wrap(Pg *p)
{
    emit_copy(p, PG_DATA, UINT64_MAX - 3, 8);
    fault_at_addr(p, VDXG_PG_TRANSFER, UINT64_MAX - 3);
}

static void build_fence_hole(Pg *p)
{
    emit_fence(p, 1ull << 63, 1);
    fault_at_addr(p, VDXG_PG_FENCE, 1ull << 63);
}

static void build_discard_hole(Pg *p)
{
    emit_discard(p, APERTURE(PG_GART_ENTRIES), 4);
    fault_at_addr(p, VDXG_PG_DISCARD, APERTURE(PG_GART_ENTRIES));
}

static void build_read_phys_hole(Pg *p)
{
    emit_read_phys(p, SYS_PAGE(0), 16, GPU_HOLE);
    fault_at_addr(p, VDXG_PG_READ_PHYSICAL, GPU_HOLE);
}

static void build_bus_write_phys(Pg *p)
{
    uint32_t data = 1;

    emit_write_phys(p, BUS_HOLE + 4, &data, 1);
    fault_at_addr(p, VDXG_PG_WRITE_PHYSICAL, BUS_HOLE + 4);
}

static void build_bus_read_phys(Pg *p)
{
    emit_read_phys(p, BUS_HOLE, 16, PG_DATA);
    fault_at_addr(p, VDXG_PG_READ_PHYSICAL, BUS_HOLE);
}

static void build_bus_wrap(Pg *p)
{
    emit_read_phys(p, UINT64_MAX - 7, 16, PG_DATA);
    fault_at_addr(p, VDXG_PG_READ_PHYSICAL, UINT64_MAX - 7);
}

static void build_bus_page(Pg *p)
{
    uint64_t pages[2] = { SYS_PAGE(0), BUS_HOLE };

    emit_transfer(p, 0x1000, PG_DATA, NULL, 0, 0x800, pages, 2);
    fault_at_addr(p, VDXG_PG_TRANSFER, BUS_HOLE);
}

static void build_bus_aperture(Pg *p)
{
    emit_map1(p, 30, BUS_HOLE);
    emit_flush_tlb(p);
    emit_copy(p, APERTURE(30) + 0x10, PG_DATA, 16);
    fault_at_addr(p, VDXG_PG_TRANSFER, APERTURE(30) + 0x10);
}

/* DMA to the device's own registers is refused (re-entrancy guard). */
static void build_own_registers(Pg *p)
{
    uint32_t data = 0x5c5c5c5c;

    emit_write_phys(p, p->v.mmio.addr + VDXG_REG_SCRATCH, &data, 1);
    fault_at_addr(p, VDXG_PG_WRITE_PHYSICAL,
                  p->v.mmio.addr + VDXG_REG_SCRATCH);
}

/* Ring entries */

static void fault_at_entry(Pg *p, uint32_t cmd, uint32_t len, uint64_t addr,
                           uint32_t rsvd)
{
    p->want_opcode = VDXG_FAULT_OPCODE_RING | (cmd & 0xffff);
    p->want_addr = p->ring + p->tail;
    p->want_context = 0x77;
    ring_entry(p, cmd, len, addr, ++p->seqno, 0x77, rsvd);
}

static void build_ring_cmd(Pg *p)
{
    ring_entry(p, VDXG_RING_CMD_NOP, 0, 0, ++p->seqno, 0, 0);
    fault_at_entry(p, 0xabcd0002, 4, PG_BUF, 0);
}

static void build_ring_reserved(Pg *p)
{
    emit_nop(p);
    vram_write(p, PG_BUF, p->buf, 4);
    fault_at_entry(p, VDXG_RING_CMD_EXEC, 4, PG_BUF, 1);
}

static void build_exec_zero(Pg *p)
{
    fault_at_entry(p, VDXG_RING_CMD_EXEC, 0, PG_BUF, 0);
}

static void build_exec_unaligned(Pg *p)
{
    fault_at_entry(p, VDXG_RING_CMD_EXEC, 6, PG_BUF, 0);
}

static void build_exec_too_long(Pg *p)
{
    fault_at_entry(p, VDXG_RING_CMD_EXEC, VDXG_RING_LENGTH_MAX + 4, PG_BUF,
                   0);
}

static void build_exec_outside(Pg *p)
{
    fault_at_entry(p, VDXG_RING_CMD_EXEC, 8, PG_VRAM_SIZE - 4, 0);
    p->want_addr = PG_VRAM_SIZE - 4;
}

/* The fence write-back of an entry fails: the entry does not complete. */
static void build_fence_writeback(Pg *p)
{
    emit_map1(p, 31, BUS_HOLE);
    pb_run(p);
    wr(&p->v, VDXG_REG_TLB_FLUSH, 1);
    wr64(&p->v, ENG(VDXG_ENG_FENCE_ADDR_LO), APERTURE(31) + 8);
    emit_nop(p);
    fault_at_addr(p, VDXG_FAULT_OPCODE_RING | VDXG_RING_CMD_EXEC,
                  APERTURE(31) + 8);
}

static const PgFaultCase pg_fault_cases[] = {
    { "bad-opcode", build_bad_opcode, VDXG_FAULT_OPCODE },
    { "bad-opcode-ff", build_bad_opcode_ff, VDXG_FAULT_OPCODE },
    { "header-reserved", build_header_reserved, VDXG_FAULT_OPCODE },
    { "zero-length", build_zero_length, VDXG_FAULT_LENGTH },
    { "nop-length", build_nop_length, VDXG_FAULT_LENGTH },
    { "fence-length", build_fence_length, VDXG_FAULT_LENGTH },
    { "transfer-length", build_transfer_length, VDXG_FAULT_LENGTH },
    { "map-length", build_map_length, VDXG_FAULT_LENGTH },
    { "unmap-length", build_unmap_length, VDXG_FAULT_LENGTH },
    { "past-end", build_past_end, VDXG_FAULT_LENGTH },
    { "write-physical-past-end", build_write_phys_past_end,
      VDXG_FAULT_LENGTH },
    { "fill-unaligned", build_fill_unaligned, VDXG_FAULT_PARAM },
    { "fill-size", build_fill_size, VDXG_FAULT_PARAM },
    { "fence-unaligned", build_fence_unaligned, VDXG_FAULT_PARAM },
    { "transfer-flags", build_transfer_flags, VDXG_FAULT_PARAM },
    { "transfer-pages-no-flag", build_transfer_pages_no_flag,
      VDXG_FAULT_PARAM },
    { "page-offset", build_page_offset, VDXG_FAULT_PARAM },
    { "page-unaligned", build_page_unaligned, VDXG_FAULT_PARAM },
    { "map-unaligned", build_map_unaligned, VDXG_FAULT_PARAM },
    { "short-page-list", build_short_page_list, VDXG_FAULT_BOUNDS },
    { "short-dst-page-list", build_short_dst_page_list, VDXG_FAULT_BOUNDS },
    { "map-past-end", build_map_past_end, VDXG_FAULT_BOUNDS },
    { "unmap-past-end", build_unmap_past_end, VDXG_FAULT_BOUNDS },
    { "unmap-wrap", build_unmap_wrap, VDXG_FAULT_BOUNDS },
    { "address-hole", build_address_hole, VDXG_FAULT_ADDRESS },
    { "address-src-hole", build_address_src_hole, VDXG_FAULT_ADDRESS },
    { "address-vram-end", build_address_vram_end, VDXG_FAULT_ADDRESS },
    { "address-aperture-end", build_address_aperture_end,
      VDXG_FAULT_ADDRESS },
    { "address-wrap", build_address_wrap, VDXG_FAULT_ADDRESS },
    { "fence-hole", build_fence_hole, VDXG_FAULT_ADDRESS },
    { "discard-hole", build_discard_hole, VDXG_FAULT_ADDRESS },
    { "read-physical-hole", build_read_phys_hole, VDXG_FAULT_ADDRESS },
    { "bus-write-physical", build_bus_write_phys, VDXG_FAULT_ADDRESS },
    { "bus-read-physical", build_bus_read_phys, VDXG_FAULT_ADDRESS },
    { "bus-wrap", build_bus_wrap, VDXG_FAULT_ADDRESS },
    { "bus-page", build_bus_page, VDXG_FAULT_ADDRESS },
    { "bus-aperture", build_bus_aperture, VDXG_FAULT_ADDRESS },
    { "own-registers", build_own_registers, VDXG_FAULT_ADDRESS },
    { "ring-cmd", build_ring_cmd, VDXG_FAULT_OPCODE },
    { "ring-reserved", build_ring_reserved, VDXG_FAULT_RING },
    { "exec-zero-length", build_exec_zero, VDXG_FAULT_LENGTH },
    { "exec-unaligned-length", build_exec_unaligned, VDXG_FAULT_LENGTH },
    { "exec-too-long", build_exec_too_long, VDXG_FAULT_LENGTH },
    { "exec-outside", build_exec_outside, VDXG_FAULT_ADDRESS },
    { "fence-writeback", build_fence_writeback, VDXG_FAULT_ADDRESS },
};

static void test_pg_fault(const void *data)
{
    const PgFaultCase *c = data;
    Pg *p = pg_start(NULL);
    uint32_t scratch = rd(&p->v, VDXG_REG_SCRATCH);

    /* Something completes first, so FENCE_VALUE is not 0. */
    pb_reset(p);
    emit_nop(p);
    pb_run(p);

    c->build(p);
    ring_kick(p);
    pg_expect_fault(p, c->reason, p->want_opcode, p->want_addr,
                    p->want_context);
    g_assert_cmphex(rd(&p->v, VDXG_REG_SCRATCH), ==, scratch);
    g_assert_cmphex(rd(&p->v, VDXG_REG_ID), ==, VDXG_ID_MAGIC);
    pg_stop(p);
}

/* Bad ring programming faults at once, when enabled or kicked. */
static void test_pg_bad_ring(void)
{
    static const struct {
        uint64_t base;
        uint32_t size, tail;
        uint64_t fence;
    } bad[] = {
        { 0x800, PG_RING_SIZE, 0, 0 },                   /* unaligned */
        { 0, 0x1800, 0, 0 },                             /* not 2^n */
        { 0, 0x800, 0, 0 },                              /* too small */
        { 0, 2 * VDXG_RING_SIZE_MAX, 0, 0 },             /* too large */
        { 0, 0, 0, 0 },
        { PG_VRAM_SIZE - 0x1000, 0x2000, 0, 0 },         /* past VRAM */
        { GPU_HOLE, PG_RING_SIZE, 0, 0 },                /* in no window */
        { APERTURE(PG_GART_ENTRIES - 1), 0x2000, 0, 0 }, /* past aperture */
        { 0, PG_RING_SIZE, 0x10, 0 },                    /* unaligned tail */
        { 0, PG_RING_SIZE, PG_RING_SIZE, 0 },            /* tail too big */
        { 0, PG_RING_SIZE, 0, PG_FENCE + 4 },            /* unaligned fence */
        { 0, PG_RING_SIZE, 0, GPU_HOLE },                /* fence outside */
    };
    Pg *p = pg_start(NULL);
    int i, kick;

    for (i = 0; i < ARRAY_SIZE(bad); i++) {
        for (kick = 0; kick < 2; kick++) {
            wr(&p->v, ENG(VDXG_ENG_RESET), 1);
            wr64(&p->v, ENG(VDXG_ENG_RING_BASE_LO), bad[i].base);
            wr(&p->v, ENG(VDXG_ENG_RING_SIZE), bad[i].size);
            wr(&p->v, ENG(VDXG_ENG_RING_TAIL), bad[i].tail);
            wr64(&p->v, ENG(VDXG_ENG_FENCE_ADDR_LO), bad[i].fence);
            if (kick) {
                /* Enabled with a good ring, then broken and kicked */
                wr(&p->v, ENG(VDXG_ENG_RING_SIZE), PG_RING_SIZE);
                wr64(&p->v, ENG(VDXG_ENG_RING_BASE_LO), 0);
                wr(&p->v, ENG(VDXG_ENG_RING_TAIL), 0);
                wr64(&p->v, ENG(VDXG_ENG_FENCE_ADDR_LO), 0);
                wr(&p->v, ENG(VDXG_ENG_CTRL), VDXG_ENG_CTRL_ENABLE);
                g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==, 0);
                wr64(&p->v, ENG(VDXG_ENG_RING_BASE_LO), bad[i].base);
                wr(&p->v, ENG(VDXG_ENG_RING_SIZE), bad[i].size);
                wr(&p->v, ENG(VDXG_ENG_RING_TAIL), bad[i].tail);
                wr64(&p->v, ENG(VDXG_ENG_FENCE_ADDR_LO), bad[i].fence);
                g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==, 0);
                wr(&p->v, ENG(VDXG_ENG_DOORBELL), 1);
            } else {
                wr(&p->v, ENG(VDXG_ENG_CTRL), VDXG_ENG_CTRL_ENABLE);
            }
            /* Synchronous: no need to wait */
            g_test_message("bad ring %d, kick %d", i, kick);
            g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==,
                            VDXG_FAULT_STATUS_VALID);
            g_assert_cmphex(rd(&p->v, ENG(VDXG_ENG_STATUS)) &
                            VDXG_ENG_STATUS_HALTED, ==,
                            VDXG_ENG_STATUS_HALTED);
            pg_expect_fault(p, VDXG_FAULT_RING, VDXG_FAULT_OPCODE_RING,
                            bad[i].base, 0);
        }
    }

    /* A ring at the end of VRAM, and one of 1 MiB, are fine. */
    wr(&p->v, ENG(VDXG_ENG_RESET), 1);
    wr64(&p->v, ENG(VDXG_ENG_RING_BASE_LO), PG_VRAM_SIZE - PG_RING_SIZE);
    wr(&p->v, ENG(VDXG_ENG_RING_SIZE), PG_RING_SIZE);
    wr(&p->v, ENG(VDXG_ENG_CTRL), VDXG_ENG_CTRL_ENABLE);
    wr64(&p->v, ENG(VDXG_ENG_RING_BASE_LO), 0x100000);
    wr(&p->v, ENG(VDXG_ENG_RING_SIZE), VDXG_RING_SIZE_MAX);
    wr(&p->v, ENG(VDXG_ENG_CTRL), VDXG_ENG_CTRL_ENABLE);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==, 0);

    pg_stop(p);
}

/* The first fault is latched; later ones only count. */
static void test_pg_fault_count(void)
{
    Pg *p = pg_start(NULL);

    pb_reset(p);
    emit_fill(p, PG_DATA + 1, 4, 0);
    pb_queue(p);
    ring_kick(p);
    g_assert_cmphex(pg_wait(p), ==, VDXG_ENG_STATUS_HALTED);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_REASON), ==, VDXG_FAULT_PARAM);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_COUNT), ==, 1);
    assert_msix_messages(&p->v, VDXG_MSIX_VEC_MISC);

    /* A second fault after an engine reset, the record not cleared */
    wr(&p->v, ENG(VDXG_ENG_RESET), 1);
    wr(&p->v, VDXG_REG_INT_ACK, VDXG_INT_FAULT);
    msg_clear(&p->v);
    pg_engine_setup(p);
    pb_reset(p);
    pb_dw(p, VDXG_PG_HDR(0x42, 1));
    pb_queue(p);
    ring_kick(p);
    g_assert_cmphex(pg_wait(p), ==, VDXG_ENG_STATUS_HALTED);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_REASON), ==, VDXG_FAULT_PARAM);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_OPCODE), ==, VDXG_PG_FILL);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_COUNT), ==, 2);
    g_assert_cmphex(rd(&p->v, VDXG_REG_INT_STATUS) & VDXG_INT_FAULT, ==,
                    VDXG_INT_FAULT);
    assert_msix_messages(&p->v, VDXG_MSIX_VEC_MISC);

    wr(&p->v, VDXG_REG_FAULT_CLEAR, 0);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==, 0);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_COUNT), ==, 0);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_OPCODE), ==, 0);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_CONTEXT), ==, 0);

    pg_stop(p);
}

/* Migration with an entry half done, a stale TLB entry and a fault record */
static void test_pg_migration(void)
{
    g_autofree char *tmpdir = g_dir_make_tmp("vdxg-test-XXXXXX", NULL);
    g_autofree char *sock = NULL;
    g_autofree char *uri = NULL;
    Pg *src = pg_start(NULL);
    Pg *dst = g_new0(Pg, 1);
    uint32_t bar0;
    uint64_t bar2;

    g_assert_nonnull(tmpdir);
    sock = g_strdup_printf("%s/migration", tmpdir);
    uri = g_strdup_printf("unix:%s", sock);

    /* A fault record, with the engine reset since */
    pb_reset(src);
    emit_fence(src, GPU_HOLE, 0);
    pb_queue(src);
    ring_kick(src);
    g_assert_cmphex(pg_wait(src), ==, VDXG_ENG_STATUS_HALTED);
    wr(&src->v, ENG(VDXG_ENG_RESET), 1);
    pg_engine_setup(src);
    src->seqno = 0;

    /* A stale TLB entry: page 6 cached as page 120, remapped to 121 */
    qtest_writel(src->v.qts, SYS_PAGE(120), 0x12000000);
    qtest_writel(src->v.qts, SYS_PAGE(121), 0x12100000);
    pb_reset(src);
    emit_map1(src, 6, SYS_PAGE(120));
    emit_flush_tlb(src);
    emit_copy(src, APERTURE(6), PG_PEEK, 4);
    emit_map1(src, 6, SYS_PAGE(121));
    pb_run(src);

    /* Paused half-way through a lot of work */
    queue_big_work(src);
    ring_kick(src);
    wr(&src->v, ENG(VDXG_ENG_CTRL), 0);
    g_assert_cmphex(rd(&src->v, ENG(VDXG_ENG_STATUS)), ==, 0);
    bar0 = qpci_config_readl(src->v.dev, PCI_BASE_ADDRESS_0);
    bar2 = (qpci_config_readl(src->v.dev, PCI_BASE_ADDRESS_2) |
            (uint64_t)qpci_config_readl(src->v.dev, PCI_BASE_ADDRESS_3) << 32)
           & ~0xfull;

    dst->v.qts = qtest_initf("-machine q35 -nodefaults %s "
                             "-device vdxg,addr=%02x.0,%s -incoming %s",
                             vdxg_qemu_args(), VDXG_SLOT, PG_PROPS, uri);
    qtest_qmp_assert_success(src->v.qts, "{ 'execute': 'migrate', "
                             "'arguments': { 'uri': %s } }", uri);
    qtest_qmp_eventwait(dst->v.qts, "RESUME");

    dst->v.bus = qpci_new_pc(dst->v.qts, NULL);
    dst->v.dev = qpci_device_find(dst->v.bus, VDXG_DEVFN);
    g_assert_nonnull(dst->v.dev);
    dst->v.mmio = (QPCIBar) { .addr = bar0 & PCI_BASE_ADDRESS_MEM_MASK };
    dst->vram = (QPCIBar) { .addr = bar2 };
    dst->eng = src->eng;
    dst->ring = src->ring;
    dst->fence = src->fence;
    dst->tail = src->tail;
    dst->seqno = src->seqno;
    dst->slot = src->slot;

    g_assert_cmphex(rd(&dst->v, VDXG_REG_FAULT_STATUS), ==,
                    VDXG_FAULT_STATUS_VALID);
    g_assert_cmphex(rd(&dst->v, VDXG_REG_FAULT_REASON), ==,
                    VDXG_FAULT_ADDRESS);
    g_assert_cmphex(rd64(&dst->v, VDXG_REG_FAULT_ADDR_LO), ==, GPU_HOLE);
    g_assert_cmphex(rd(&dst->v, VDXG_REG_FAULT_COUNT), ==, 1);
    g_assert_cmphex(rd64(&dst->v, VDXG_REG_GART_TABLE_LO), ==, PG_GART);
    g_assert_cmphex(rd64(&dst->v, VDXG_REG_DUMMY_PAGE_LO), ==, SYS_DUMMY);
    g_assert_cmphex(rd(&dst->v, VDXG_REG_GART_CTRL), ==,
                    VDXG_GART_CTRL_ENABLE);
    g_assert_cmphex(rd(&dst->v, ENG(VDXG_ENG_STATUS)), ==, 0);
    g_assert_cmphex(rd(&dst->v, ENG(VDXG_ENG_CTRL)), ==, 0);
    g_assert_cmphex(rd(&dst->v, ENG(VDXG_ENG_RING_TAIL)), ==, dst->tail);

    /* The entry resumes and completes on the destination. */
    wr(&dst->v, ENG(VDXG_ENG_CTRL), VDXG_ENG_CTRL_ENABLE);
    pg_finish(dst);
    g_assert_cmphex(vram_readl(dst, 0x800000), ==, 0x08080808);
    g_assert_cmphex(vram_readl(dst, 0xfffffc), ==, 0x08080808);

    /* The TLB came along: page 6 still goes to page 120. */
    g_assert_cmphex(gpu_peekl(dst, APERTURE(6)), ==, 0x12000000);
    wr(&dst->v, VDXG_REG_TLB_FLUSH, 1);
    g_assert_cmphex(gpu_peekl(dst, APERTURE(6)), ==, 0x12100000);

    vdxg_stop(&dst->v);
    g_free(dst);
    pg_stop(src);
    g_unlink(sock);
    g_rmdir(tmpdir);
}

/* Values that make interesting operands */
static uint64_t fuzz_value(Pg *p, bool bus)
{
    static const uint64_t gpu[] = {
        0, 4, PG_DATA, PG_DATA + 3, PG_VRAM_SIZE - 4, PG_VRAM_SIZE,
        GPU_HOLE, VDXG_APERTURE_BASE, APERTURE(3) + 0x7fc,
        APERTURE(PG_GART_ENTRIES) - 4, UINT64_MAX, UINT64_MAX - 3,
        1ull << 63, PG_PAGE, PG_PAGE - 1,
    };
    static const uint64_t sys[] = {
        SYS_PAGE(0), SYS_PAGE(1) + 0x123, SYS_PAGE(200), SYS_DUMMY,
        BUS_HOLE, UINT64_MAX - 8, 0xfffffffffffff000ull, SYS_PAGE(7) + 1,
    };

    if (bus) {
        return sys[g_test_rand_int_range(0, ARRAY_SIZE(sys))];
    }
    switch (g_test_rand_int_range(0, 4)) {
    case 0:
        return g_test_rand_int();
    case 1:
        return g_test_rand_int_range(0, 0x10000);
    default:
        return gpu[g_test_rand_int_range(0, ARRAY_SIZE(gpu))];
    }
}

/* A random operation, well formed or not */
static void fuzz_op(Pg *p)
{
    uint32_t op = g_test_rand_int_range(0, VDXG_PG_NUM_OPS + 2);
    uint32_t i, n = g_test_rand_int_range(0, 6);
    bool sp = g_test_rand_bit(), dp = g_test_rand_bit();
    uint64_t pages[6];

    for (i = 0; i < n; i++) {
        pages[i] = fuzz_value(p, true) & ~0xfffull;
    }
    switch (op) {
    case VDXG_PG_NOP:
        emit_nop(p);
        break;
    case VDXG_PG_FENCE:
        emit_fence(p, fuzz_value(p, false) & ~7ull, g_test_rand_int());
        break;
    case VDXG_PG_TRANSFER:
        emit_transfer(p, g_test_rand_int_range(0, 3 * PG_PAGE),
                      sp ? g_test_rand_int_range(0, PG_PAGE + 1) :
                           fuzz_value(p, false),
                      sp ? pages : NULL, sp ? n / 2 : 0,
                      dp ? g_test_rand_int_range(0, PG_PAGE + 1) :
                           fuzz_value(p, false),
                      dp ? pages + n / 2 : NULL, dp ? n - n / 2 : 0);
        break;
    case VDXG_PG_FILL:
        emit_fill(p, fuzz_value(p, false), fuzz_value(p, false) & 0x3fff,
                  g_test_rand_int());
        break;
    case VDXG_PG_DISCARD:
        emit_discard(p, fuzz_value(p, false), fuzz_value(p, false));
        break;
    case VDXG_PG_MAP_APERTURE:
        emit_map(p, g_test_rand_int_range(0, PG_GART_ENTRIES + 8), pages, n);
        break;
    case VDXG_PG_UNMAP_APERTURE:
        emit_unmap(p, fuzz_value(p, false), fuzz_value(p, false));
        break;
    case VDXG_PG_FLUSH_TLB:
        emit_flush_tlb(p);
        break;
    case VDXG_PG_WRITE_PHYSICAL: {
        uint32_t data[4] = { 1, 2, 3, 4 };

        emit_write_phys(p, fuzz_value(p, true), data, n % 5);
        break;
    }
    case VDXG_PG_READ_PHYSICAL:
        emit_read_phys(p, fuzz_value(p, true),
                       g_test_rand_int_range(0, 2 * PG_PAGE),
                       fuzz_value(p, false));
        break;
    default:
        /* Random dwords */
        for (i = 0; i < n; i++) {
            pb_dw(p, g_test_rand_int());
        }
        break;
    }
    /* Now and then, damage a dword */
    if (g_test_rand_int_range(0, 8) == 0 && p->used) {
        p->buf[p->used - 1] ^= 1u << g_test_rand_int_range(0, 32);
    }
}

/* Random buffers, ring entries and ring programming: QEMU survives. */
static void test_pg_fuzz(void)
{
    Pg *p = pg_start(NULL);
    uint32_t status, faults = 0;
    bool reprogram;
    int round, i;

    for (round = 0; round < 300; round++) {
        /* Operands may hit the GART table: no PTE from a previous round */
        qtest_memset(p->v.qts, p->vram.addr + PG_GART, 0,
                     PG_GART_ENTRIES * 8);
        wr(&p->v, VDXG_REG_TLB_FLUSH, 1);
        pb_reset(p);
        for (i = g_test_rand_int_range(1, 8); i > 0; i--) {
            fuzz_op(p);
        }
        if (g_test_rand_int_range(0, 10) == 0) {
            /* A random ring entry */
            ring_entry(p, g_test_rand_int_range(0, 3),
                       g_test_rand_int_range(0, 2 * PG_BUF_SIZE),
                       fuzz_value(p, false), ++p->seqno, round,
                       g_test_rand_int_range(0, 8) == 0);
        } else {
            pb_queue_at(p, PG_BUF, round);
        }
        reprogram = g_test_rand_int_range(0, 20) == 0;
        if (reprogram) {
            /* Random ring programming */
            wr64(&p->v, ENG(VDXG_ENG_RING_BASE_LO), fuzz_value(p, false));
            wr(&p->v, ENG(VDXG_ENG_RING_SIZE), g_test_rand_int());
        }
        ring_kick(p);
        status = pg_wait(p);
        if (reprogram && !(status & VDXG_ENG_STATUS_HALTED)) {
            wr(&p->v, ENG(VDXG_ENG_RESET), 1);
            pg_engine_setup(p);
        } else if (status & VDXG_ENG_STATUS_HALTED) {
            faults++;
            g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==,
                            VDXG_FAULT_STATUS_VALID);
            g_assert_cmpuint(rd(&p->v, VDXG_REG_FAULT_REASON), >=,
                             VDXG_FAULT_ADDRESS);
            g_assert_cmpuint(rd(&p->v, VDXG_REG_FAULT_REASON), <=,
                             VDXG_FAULT_PARAM);
            wr(&p->v, ENG(VDXG_ENG_RESET), 1);
            wr(&p->v, VDXG_REG_FAULT_CLEAR, 1);
            pg_engine_setup(p);
        } else {
            g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==, 0);
            g_assert_cmphex(rd64(&p->v, ENG(VDXG_ENG_FENCE_VALUE_LO)), ==,
                            p->seqno);
        }
    }
    g_test_message("%u of 300 rounds faulted", faults);
    g_assert_cmpuint(faults, >, 0);
    g_assert_cmpuint(faults, <, 300);

    /* Still alive and working */
    g_assert_cmphex(rd(&p->v, VDXG_REG_ID), ==, VDXG_ID_MAGIC);
    pb_reset(p);
    emit_fence(p, PG_FENCE2, 0x5eed);
    pb_run(p);
    g_assert_cmphex(vram_readq(p, PG_FENCE2), ==, 0x5eed);

    pg_stop(p);
}

/* RENDER engine */

/*
 * The RENDER engine's ring and fence slot sit next to the PAGING engine's;
 * its DMA buffers go in the PG_BUF slots. Surfaces live in a VRAM window
 * (RD_VMEM) and an aperture window (RD_AMEM) that the test mirrors in host
 * memory: the reference renderer draws into the mirror, the device into
 * the real thing, and the two are compared byte for byte. The aperture
 * window's pages are scattered over system RAM.
 */
#define RD_RING             0x2000
#define RD_FENCE            0x3000      /* fence write-back slot */
#define RD_FENCE2           0x3100      /* FENCE command target */
#define RD_SEM              0x3200      /* WAIT target */
#define RD_CONTEXT          0x4321
#define RD_VMEM             0x100000ull
#define RD_VMEM_SIZE        (16 * MiB)
#define RD_VB               0x1200000ull    /* vertex buffers, 6 MiB */
#define RD_AP_PAGE          256         /* first GART page of the window */
#define RD_AP_PAGES         512
#define RD_AMEM             APERTURE(RD_AP_PAGE)
#define RD_AMEM_SIZE        (RD_AP_PAGES * PG_PAGE)
/* System page behind aperture window page i: scattered */
#define RD_AP_SYS(i)        SYS_PAGE(600 + ((i) ^ 0x2b))

/* Surface slots and formats, by name in messages */
static const char *const rd_fmt_names[] = {
    [VDXG_FMT_XRGB8888] = "xrgb8888",
    [VDXG_FMT_ARGB8888] = "argb8888",
    [VDXG_FMT_RGB565]   = "rgb565",
    [VDXG_FMT_D32]      = "d32",
};

static uint32_t rd_cpp(uint32_t format)
{
    return format == VDXG_FMT_RGB565 ? 2 : 4;
}

/* A surface: where the device has it, and the reference's mirror of it */
typedef struct RdSurf {
    uint64_t gpu;
    struct vdxg_ref_surface ref;
} RdSurf;

/* The host mirror of GPU address @gpu (in one of the windows) */
static uint8_t *rd_host(Pg *p, uint64_t gpu)
{
    if (gpu >= RD_VMEM && gpu < RD_VMEM + RD_VMEM_SIZE) {
        return p->vmem + (gpu - RD_VMEM);
    }
    g_assert_cmphex(gpu, >=, RD_AMEM);
    g_assert_cmphex(gpu, <, RD_AMEM + RD_AMEM_SIZE);
    return p->amem + (gpu - RD_AMEM);
}

/* Copy [gpu, gpu + len) of a window between the mirror and the device. */
static void rd_xfer(Pg *p, uint64_t gpu, uint64_t len, bool to_dev,
                    uint8_t *buf)
{
    uint64_t off, n;

    if (gpu < RD_AMEM) {
        if (to_dev) {
            vram_write(p, gpu, rd_host(p, gpu), len);
        } else {
            vram_read(p, gpu, buf, len);
        }
        return;
    }
    for (off = 0; off < len; off += n) {
        uint64_t a = gpu + off - RD_AMEM;
        uint64_t bus = RD_AP_SYS(a / PG_PAGE) + a % PG_PAGE;

        n = MIN(len - off, PG_PAGE - a % PG_PAGE);
        if (to_dev) {
            sys_write(p, bus, rd_host(p, gpu + off), n);
        } else {
            sys_read(p, bus, buf + off, n);
        }
    }
}

static uint64_t rd_span(const RdSurf *sf)
{
    return (uint64_t)sf->ref.pitch * (sf->ref.height - 1) +
           (uint64_t)sf->ref.width * rd_cpp(sf->ref.format);
}

/* Describe a surface at @gpu in one of the windows. */
static void rd_surf(Pg *p, RdSurf *sf, uint64_t gpu, uint32_t format,
                    uint32_t width, uint32_t height, uint32_t pitch)
{
    sf->gpu = gpu;
    sf->ref = (struct vdxg_ref_surface) {
        .data = rd_host(p, gpu), .format = format, .width = width,
        .height = height, .pitch = pitch,
    };
    rd_host(p, gpu + rd_span(sf) - 1);
}

/* Random content for a surface, here and on the device */
static void rd_randomize(Pg *p, RdSurf *sf, GRand *rnd)
{
    uint8_t *m = sf->ref.data;
    uint64_t i, span = rd_span(sf);

    for (i = 0; i < span; i++) {
        m[i] = g_rand_int(rnd);
    }
    rd_xfer(p, sf->gpu, span, true, NULL);
}

/* Content for a surface: every stored pixel @raw, padding 0xee */
static void rd_clear(Pg *p, RdSurf *sf, uint32_t raw)
{
    uint8_t *m = sf->ref.data;
    uint32_t x, y, cpp = rd_cpp(sf->ref.format);

    memset(m, 0xee, rd_span(sf));
    for (y = 0; y < sf->ref.height; y++) {
        for (x = 0; x < sf->ref.width; x++) {
            uint8_t *px = m + (uint64_t)y * sf->ref.pitch + x * cpp;

            if (cpp == 2) {
                stw_le_p(px, raw);
            } else {
                stl_le_p(px, raw);
            }
        }
    }
    rd_xfer(p, sf->gpu, rd_span(sf), true, NULL);
}

/* The stored pixel (x, y) of the device's surface */
static uint32_t rd_dev_pixel(Pg *p, const RdSurf *sf, uint32_t x, uint32_t y)
{
    uint32_t cpp = rd_cpp(sf->ref.format);
    uint8_t buf[4];

    rd_xfer(p, sf->gpu + (uint64_t)y * sf->ref.pitch + x * cpp, cpp, false,
            buf);
    return cpp == 2 ? lduw_le_p(buf) : ldl_le_p(buf);
}

/* The device's surface is byte for byte the mirror (padding included). */
static void rd_check(Pg *p, const RdSurf *sf, const char *what)
{
    uint64_t span = rd_span(sf), i;
    g_autofree uint8_t *got = g_malloc(span);
    const uint8_t *want = sf->ref.data;
    uint32_t cpp = rd_cpp(sf->ref.format), x, y;

    rd_xfer(p, sf->gpu, span, false, got);
    for (i = 0; i < span; i++) {
        if (got[i] == want[i]) {
            continue;
        }
        y = i / sf->ref.pitch;
        x = (i % sf->ref.pitch) / cpp;
        g_test_message("%s: %s %ux%u pitch %u at 0x%" PRIx64 ": pixel "
                       "(%u, %u) byte %u is 0x%02x, the reference has 0x%02x",
                       what, rd_fmt_names[sf->ref.format], sf->ref.width,
                       sf->ref.height, sf->ref.pitch, sf->gpu, x, y,
                       (uint32_t)(i % sf->ref.pitch % cpp), got[i], want[i]);
        g_assert_cmphex(got[i], ==, want[i]);
    }
}

/* Start a device with the RENDER engine's ring set up and the windows. */
static Pg *rd_start(void)
{
    Pg *p = pg_start(NULL);
    uint32_t i;

    p->eng = VDXG_ENGINE_RENDER;
    p->ring = RD_RING;
    p->fence = RD_FENCE;
    pg_engine_setup(p);
    p->vmem = g_malloc0(RD_VMEM_SIZE);
    p->amem = g_malloc0(RD_AMEM_SIZE);
    for (i = 0; i < RD_AP_PAGES; i++) {
        vram_writel(p, PG_GART + (RD_AP_PAGE + i) * 8ull,
                    RD_AP_SYS(i) | VDXG_GART_PTE_VALID);
        vram_writel(p, PG_GART + (RD_AP_PAGE + i) * 8ull + 4,
                    RD_AP_SYS(i) >> 32);
    }
    wr(&p->v, VDXG_REG_TLB_FLUSH, 1);
    return p;
}

static void rd_stop(Pg *p)
{
    g_free(p->vmem);
    g_free(p->amem);
    pg_stop(p);
}

/* DMA buffer building */

static void rd_nop(Pg *p)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_NOP, VDXG_RD_NOP_LEN));
}

static void rd_mem(Pg *p, uint32_t op, uint64_t addr, uint64_t value)
{
    pb_dw(p, VDXG_PG_HDR(op, VDXG_RD_FENCE_LEN));
    pb_qw(p, addr);
    pb_qw(p, value);
}

static void rd_fence(Pg *p, uint64_t addr, uint64_t value)
{
    rd_mem(p, VDXG_RD_FENCE, addr, value);
}

static void rd_wait(Pg *p, uint64_t addr, uint64_t value)
{
    rd_mem(p, VDXG_RD_WAIT, addr, value);
}

static void rd_set_surface(Pg *p, uint32_t slot, uint64_t addr,
                           uint32_t format, uint32_t width, uint32_t height,
                           uint32_t pitch)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_SET_SURFACE, VDXG_RD_SET_SURFACE_LEN));
    pb_dw(p, slot);
    pb_qw(p, addr);
    pb_dw(p, format);
    pb_dw(p, width);
    pb_dw(p, height);
    pb_dw(p, pitch);
}

static void rd_bind(Pg *p, uint32_t slot, const RdSurf *sf)
{
    rd_set_surface(p, slot, sf->gpu, sf->ref.format, sf->ref.width,
                   sf->ref.height, sf->ref.pitch);
}

static void rd_fill(Pg *p, uint32_t x, uint32_t y, uint32_t w, uint32_t h,
                    uint32_t color)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_FILL_RECT, VDXG_RD_FILL_RECT_LEN));
    pb_dw(p, VDXG_RD_XY(x, y));
    pb_dw(p, VDXG_RD_XY(w, h));
    pb_dw(p, color);
}

static void rd_copy(Pg *p, uint32_t sx, uint32_t sy, uint32_t dx, uint32_t dy,
                    uint32_t w, uint32_t h)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_COPY_RECT, VDXG_RD_COPY_RECT_LEN));
    pb_dw(p, VDXG_RD_XY(sx, sy));
    pb_dw(p, VDXG_RD_XY(dx, dy));
    pb_dw(p, VDXG_RD_XY(w, h));
}

static void rd_blend(Pg *p, uint32_t sx, uint32_t sy, uint32_t dx,
                     uint32_t dy, uint32_t w, uint32_t h, uint32_t alpha)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_BLEND, VDXG_RD_BLEND_LEN));
    pb_dw(p, VDXG_RD_XY(sx, sy));
    pb_dw(p, VDXG_RD_XY(dx, dy));
    pb_dw(p, VDXG_RD_XY(w, h));
    pb_dw(p, alpha);
}

static void rd_draw(Pg *p, uint32_t flags, uint32_t count, uint64_t vb)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_DRAW_TRIANGLES,
                         VDXG_RD_DRAW_TRIANGLES_LEN));
    pb_dw(p, flags);
    pb_dw(p, count);
    pb_qw(p, vb);
}

/* Vertices, eight dwords each */
typedef struct RdVtx {
    int32_t x, y;
    uint32_t z, color;
    int32_t u, v;
} RdVtx;

/* Store @n vertices at VRAM @vb in the layout the engine reads. */
static void rd_put_vertices(Pg *p, uint64_t vb, const RdVtx *v, uint32_t n,
                            uint32_t *dw)
{
    uint32_t i;

    for (i = 0; i < n; i++) {
        uint32_t *d = dw + i * 8;

        d[VDXG_VTX_DW_X] = v[i].x;
        d[VDXG_VTX_DW_Y] = v[i].y;
        d[VDXG_VTX_DW_Z] = v[i].z;
        d[VDXG_VTX_DW_COLOR] = v[i].color;
        d[VDXG_VTX_DW_U] = v[i].u;
        d[VDXG_VTX_DW_V] = v[i].v;
        d[6] = 0xdead0000 + i;      /* ignored */
        d[7] = 0xffffffff;
    }
    vram_write(p, vb, dw, n * VDXG_VERTEX_SIZE);
}

/*
 * Draw @n vertices on the device (DST, and DEPTH and TEXTURE when given,
 * bound in the same buffer) and with the reference.
 */
static void rd_draw_both(Pg *p, RdSurf *dst, RdSurf *depth, RdSurf *tex,
                         uint32_t flags, const RdVtx *v, uint32_t n)
{
    g_autofree uint32_t *dw = g_new(uint32_t, n * 8);

    rd_put_vertices(p, RD_VB, v, n, dw);
    pb_reset(p);
    rd_bind(p, VDXG_SLOT_DST, dst);
    if (depth) {
        rd_bind(p, VDXG_SLOT_DEPTH, depth);
    }
    if (tex) {
        rd_bind(p, VDXG_SLOT_TEXTURE, tex);
    }
    rd_draw(p, flags, n, RD_VB);
    pb_run(p);
    vdxg_ref_draw_triangles(&dst->ref, depth ? &depth->ref : NULL,
                            tex ? &tex->ref : NULL, flags, dw, n);
}

/* Ring basics: NOP entries, EXEC of NOPs, fence write-back, interrupts */
static void test_rd_ring(void)
{
    Pg *p = rd_start();
    int i;

    g_assert_cmphex(rd(&p->v, VDXG_REG_ENGINES), ==, ALL_ENGINES);
    g_assert_cmphex(rd(&p->v, VDXG_REG_CAPS) & VDXG_CAP_RENDER, ==,
                    VDXG_CAP_RENDER);
    g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_STATUS)), ==,
                    VDXG_ENG_STATUS_IDLE);
    g_assert_cmphex(rd64(&p->v, EREG(p, VDXG_ENG_RING_BASE_LO)), ==,
                    RD_RING);
    g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_CTRL)), ==,
                    VDXG_ENG_CTRL_ENABLE);

    /* NOP entries complete in order, each with a fence write-back. */
    for (i = 0; i < 3; i++) {
        ring_entry(p, VDXG_RING_CMD_NOP, 0, 0, 0x200000000ull + i, 9, 0);
    }
    p->seqno = 0x200000002ull;
    ring_kick(p);
    pg_finish(p);
    g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_RING_HEAD)), ==, 3 * 32);
    g_assert_cmphex(vram_readq(p, RD_FENCE), ==, 0x200000002ull);
    g_assert_cmphex(rd64(&p->v, EREG(p, VDXG_ENG_FENCE_VALUE_LO)), ==,
                    0x200000002ull);
    g_assert_cmphex(rd(&p->v, VDXG_REG_INT_STATUS), ==,
                    VDXG_INT_RENDER_FENCE);
    assert_msix_messages(&p->v, VDXG_MSIX_VEC_RENDER);
    /* The PAGING engine did nothing. */
    g_assert_cmphex(rd(&p->v, ENG(VDXG_ENG_RING_HEAD)), ==, 0);
    g_assert_cmphex(vram_readq(p, PG_FENCE), ==, 0);

    /* An EXEC buffer of NOP commands */
    wr(&p->v, VDXG_REG_INT_ACK, VDXG_INT_RENDER_FENCE);
    msg_clear(&p->v);
    pb_reset(p);
    for (i = 0; i < 10; i++) {
        rd_nop(p);
    }
    pb_run(p);
    g_assert_cmphex(vram_readq(p, RD_FENCE), ==, p->seqno);
    g_assert_cmpuint(qom_get_u64(p, "rd-nop-ops"), ==, 10);
    assert_msix_messages(&p->v, VDXG_MSIX_VEC_RENDER);

    /* FENCE_ADDR 0: no write-back, FENCE_VALUE still moves. */
    wr64(&p->v, EREG(p, VDXG_ENG_FENCE_ADDR_LO), 0);
    vram_writel(p, RD_FENCE, 0xdeadbeef);
    ring_entry(p, VDXG_RING_CMD_NOP, 0, 0, ++p->seqno, 0, 0);
    ring_kick(p);
    pg_finish(p);
    g_assert_cmphex(vram_readl(p, RD_FENCE), ==, 0xdeadbeef);

    /* A write-back slot in the aperture */
    wr64(&p->v, EREG(p, VDXG_ENG_FENCE_ADDR_LO), RD_AMEM + 0x1008);
    ring_entry(p, VDXG_RING_CMD_NOP, 0, 0, ++p->seqno, 0, 0);
    ring_kick(p);
    pg_finish(p);
    g_assert_cmphex(qtest_readq(p->v.qts, RD_AP_SYS(1) + 8), ==, p->seqno);

    /* A masked RENDER_FENCE sets its bit but sends no message. */
    wr(&p->v, VDXG_REG_INT_ACK, VDXG_INT_RENDER_FENCE);
    wr(&p->v, VDXG_REG_INT_MASK,
       VDXG_INT_VALID_MASK & ~VDXG_INT_RENDER_FENCE);
    msg_clear(&p->v);
    ring_entry(p, VDXG_RING_CMD_NOP, 0, 0, ++p->seqno, 0, 0);
    ring_kick(p);
    pg_finish(p);
    g_assert_cmphex(rd(&p->v, VDXG_REG_INT_STATUS), ==,
                    VDXG_INT_RENDER_FENCE);
    assert_msix_messages(&p->v, -1);
    wr(&p->v, VDXG_REG_INT_MASK, VDXG_INT_VALID_MASK);
    assert_msix_messages(&p->v, VDXG_MSIX_VEC_RENDER);

    /* Both engines at once, each with its own fence and vector */
    wr(&p->v, VDXG_REG_INT_ACK, VDXG_INT_VALID_MASK);
    msg_clear(&p->v);
    ring_entry(p, VDXG_RING_CMD_NOP, 0, 0, ++p->seqno, 0, 0);
    ring_kick(p);
    qtest_memset(p->v.qts, p->vram.addr + PG_RING, 0, 32);
    wr(&p->v, ENG(VDXG_ENG_RING_TAIL), 32);
    wr(&p->v, ENG(VDXG_ENG_DOORBELL), 1);
    pg_finish(p);
    for (i = 0; i < PG_WAIT_LOOPS; i++) {
        if (rd(&p->v, ENG(VDXG_ENG_RING_HEAD)) == 32) {
            break;
        }
    }
    g_assert_cmphex(rd(&p->v, ENG(VDXG_ENG_RING_HEAD)), ==, 32);
    g_assert_cmphex(rd(&p->v, VDXG_REG_INT_STATUS), ==,
                    VDXG_INT_RENDER_FENCE | VDXG_INT_PAGING_FENCE);
    g_assert_cmphex(msg_read(&p->v, VDXG_MSIX_VEC_RENDER), ==,
                    MSIX_DATA(VDXG_MSIX_VEC_RENDER));
    g_assert_cmphex(msg_read(&p->v, VDXG_MSIX_VEC_PAGING), ==,
                    MSIX_DATA(VDXG_MSIX_VEC_PAGING));

    rd_stop(p);
}

/* FENCE commands, into VRAM and into the aperture */
static void test_rd_fence(void)
{
    Pg *p = rd_start();

    pb_reset(p);
    rd_fence(p, RD_FENCE2, 0x1122334455667788ull);
    rd_nop(p);
    rd_fence(p, RD_AMEM + 0x3ff8, 0xa5a5a5a55a5a5a5aull);
    rd_fence(p, PG_VRAM_SIZE - 8, 0x0102030405060708ull);
    pb_run(p);
    g_assert_cmphex(vram_readq(p, RD_FENCE2), ==, 0x1122334455667788ull);
    g_assert_cmphex(qtest_readq(p->v.qts, RD_AP_SYS(3) + 0xff8), ==,
                    0xa5a5a5a55a5a5a5aull);
    g_assert_cmphex(vram_readq(p, PG_VRAM_SIZE - 8), ==,
                    0x0102030405060708ull);
    g_assert_cmphex(vram_readq(p, RD_FENCE), ==, p->seqno);
    g_assert_cmpuint(qom_get_u64(p, "rd-fence-ops"), ==, 3);

    /* Commands run in order: the later FENCE wins. */
    pb_reset(p);
    rd_fence(p, RD_FENCE2, 1);
    rd_fence(p, RD_FENCE2, 2);
    pb_run(p);
    g_assert_cmphex(vram_readq(p, RD_FENCE2), ==, 2);

    rd_stop(p);
}

/* Queue a buffer that waits for RD_SEM >= @value, then fills and fences. */
static void rd_queue_wait(Pg *p, uint64_t sem, uint64_t value,
                          const RdSurf *dst, uint32_t color)
{
    pb_reset(p);
    rd_bind(p, VDXG_SLOT_DST, dst);
    rd_wait(p, sem, value);
    rd_fill(p, 0, 0, 4, 4, color);
    rd_fence(p, RD_FENCE2, value);
    pb_queue(p);
    ring_kick(p);
}

/*
 * Wait until the engine is idle or halted, moving the virtual clock on now
 * and then for WAITs; returns STATUS, neither bit when still waiting.
 */
static uint32_t pg_wait_clock(Pg *p)
{
    uint32_t status = 0;
    int i;

    for (i = 0; i < 2000; i++) {
        status = rd(&p->v, EREG(p, VDXG_ENG_STATUS));
        if (status & (VDXG_ENG_STATUS_IDLE | VDXG_ENG_STATUS_HALTED)) {
            break;
        }
        if (i % 100 == 99) {
            qtest_clock_step(p->v.qts, 200000);
        }
    }
    return status;
}

/* The engine is stuck: not idle, nothing completes. */
static void rd_assert_stuck(Pg *p, uint64_t fence, uint64_t step_ns)
{
    int i;

    for (i = 0; i < 5; i++) {
        qtest_clock_step(p->v.qts, step_ns);
        /* Neither idle nor halted; WAITING when stuck in a WAIT */
        g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_STATUS)) &
                        ~VDXG_ENG_STATUS_WAITING, ==, 0);
        g_assert_cmphex(rd64(&p->v, EREG(p, VDXG_ENG_FENCE_VALUE_LO)), ==,
                        fence);
    }
}

/* WAIT polls until the value is there; RESET ends it. */
static void test_rd_wait(void)
{
    Pg *p = rd_start();
    RdSurf dst;
    uint64_t fence;

    rd_surf(p, &dst, RD_VMEM, VDXG_FMT_ARGB8888, 4, 4, 16);
    rd_clear(p, &dst, 0);
    qtest_writeq(p->v.qts, p->vram.addr + RD_SEM, 0);

    /* Already satisfied (equal): no wait at all, the clock stands still */
    qtest_writeq(p->v.qts, p->vram.addr + RD_SEM, 7);
    rd_queue_wait(p, RD_SEM, 7, &dst, 0x11111111);
    pg_finish(p);
    g_assert_cmphex(rd_dev_pixel(p, &dst, 3, 3), ==, 0x11111111);
    g_assert_cmphex(vram_readq(p, RD_FENCE2), ==, 7);

    /* Blocks while the value is lower, and completes once it is reached */
    fence = p->seqno;
    rd_queue_wait(p, RD_SEM, 0x100000005ull, &dst, 0x22222222);
    rd_assert_stuck(p, fence, 1000000);
    g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_STATUS)), ==,
                    VDXG_ENG_STATUS_WAITING);
    g_assert_cmphex(rd_dev_pixel(p, &dst, 0, 0), ==, 0x11111111);
    qtest_writeq(p->v.qts, p->vram.addr + RD_SEM, 0x100000004ull);
    rd_assert_stuck(p, fence, 200000);
    /* 64-bit comparison: 0x1_0000_0005 > 0xffff_ffff */
    qtest_writeq(p->v.qts, p->vram.addr + RD_SEM, 0x100000005ull);
    /* Seen at the next poll, about 100 us later */
    g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_STATUS)), ==,
                    VDXG_ENG_STATUS_WAITING);
    qtest_clock_step(p->v.qts, 100 * 1000);
    pg_finish(p);
    g_assert_cmphex(rd_dev_pixel(p, &dst, 3, 3), ==, 0x22222222);
    g_assert_cmphex(vram_readq(p, RD_FENCE2), ==, 0x100000005ull);
    g_assert_cmpuint(qom_get_u64(p, "rd-wait-ops"), ==, 2);

    /* A WAIT on an aperture address */
    qtest_writeq(p->v.qts, RD_AP_SYS(5) + 0x40, 1);
    fence = p->seqno;
    rd_queue_wait(p, RD_AMEM + 5 * PG_PAGE + 0x40, 3, &dst, 0x33333333);
    rd_assert_stuck(p, fence, 1000000);
    qtest_writeq(p->v.qts, RD_AP_SYS(5) + 0x40, 0xffffffffffffffffull);
    qtest_clock_step(p->v.qts, 100 * 1000);
    pg_finish(p);
    g_assert_cmphex(rd_dev_pixel(p, &dst, 0, 0), ==, 0x33333333);

    /* Clearing ENABLE pauses a WAIT; it completes once enabled again. */
    fence = p->seqno;
    rd_queue_wait(p, RD_SEM, 0x200000000ull, &dst, 0x44444444);
    rd_assert_stuck(p, fence, 1000000);
    wr(&p->v, EREG(p, VDXG_ENG_CTRL), 0);
    qtest_writeq(p->v.qts, p->vram.addr + RD_SEM, 0x200000000ull);
    rd_assert_stuck(p, fence, 1000000);
    g_assert_cmphex(rd_dev_pixel(p, &dst, 0, 0), ==, 0x33333333);
    wr(&p->v, EREG(p, VDXG_ENG_CTRL), VDXG_ENG_CTRL_ENABLE);
    pg_finish(p);
    g_assert_cmphex(rd_dev_pixel(p, &dst, 0, 0), ==, 0x44444444);

    /* A stuck WAIT ended by an engine RESET: nothing more happens. */
    rd_queue_wait(p, RD_SEM, 0x300000000ull, &dst, 0x55555555);
    rd_assert_stuck(p, p->seqno - 1, 1000000);
    wr(&p->v, EREG(p, VDXG_ENG_RESET), 1);
    assert_engine_reset(p);
    qtest_writeq(p->v.qts, p->vram.addr + RD_SEM, 0x300000000ull);
    qtest_clock_step(p->v.qts, 1000000);
    assert_engine_reset(p);
    g_assert_cmphex(rd_dev_pixel(p, &dst, 0, 0), ==, 0x44444444);
    g_assert_cmpuint(rd(&p->v, VDXG_REG_FAULT_STATUS), ==, 0);

    /* The engine runs again; a soft reset ends a WAIT as well. */
    pg_engine_setup(p);
    p->seqno = 0;
    rd_queue_wait(p, RD_SEM, 0x400000000ull, &dst, 0x66666666);
    rd_assert_stuck(p, 0, 1000000);
    wr(&p->v, VDXG_REG_RESET, VDXG_RESET_MAGIC);
    assert_engine_reset(p);
    qtest_writeq(p->v.qts, p->vram.addr + RD_SEM, 0x400000000ull);
    qtest_clock_step(p->v.qts, 1000000);
    assert_engine_reset(p);
    g_assert_cmphex(rd_dev_pixel(p, &dst, 0, 0), ==, 0x44444444);

    rd_stop(p);
}

/* SET_SURFACE takes the limits of the contract. */
static void test_rd_set_surface(void)
{
    static const struct {
        uint32_t slot;
        uint64_t addr;
        uint32_t format, width, height, pitch;
    } good[] = {
        { VDXG_SLOT_DST, RD_VMEM, VDXG_FMT_XRGB8888, 1, 1, 4 },
        { VDXG_SLOT_SRC, RD_VMEM + 2, VDXG_FMT_RGB565, 1, 1, 4 },
        { VDXG_SLOT_TEXTURE, RD_VMEM, VDXG_FMT_ARGB8888, 8192, 2, 32768 },
        { VDXG_SLOT_DST, RD_VMEM, VDXG_FMT_RGB565, 8192, 8, 16384 },
        { VDXG_SLOT_DEPTH, RD_VMEM, VDXG_FMT_D32, 16, 8192, 64 },
        { VDXG_SLOT_SRC, RD_VMEM, VDXG_FMT_XRGB8888, 2, 3, 65536 },
        /* Ending at the last byte of VRAM, and of the aperture */
        { VDXG_SLOT_DST, PG_VRAM_SIZE - 0x1000 - 64, VDXG_FMT_ARGB8888, 16,
          2, 0x1000 },
        { VDXG_SLOT_DST, APERTURE(PG_GART_ENTRIES) - 12, VDXG_FMT_ARGB8888,
          3, 1, 12 },
        /* A pitch gap of 2 bytes is no problem for RGB565. */
        { VDXG_SLOT_TEXTURE, RD_VMEM, VDXG_FMT_RGB565, 3, 5, 8 },
    };
    Pg *p = rd_start();
    RdSurf dst;
    int i;

    /* Each is bound and then used by a FILL_RECT or a COPY_RECT. */
    for (i = 0; i < ARRAY_SIZE(good); i++) {
        pb_reset(p);
        rd_set_surface(p, good[i].slot, good[i].addr, good[i].format,
                       good[i].width, good[i].height, good[i].pitch);
        pb_run(p);
    }
    g_assert_cmpuint(qom_get_u64(p, "rd-set-surface-ops"), ==,
                     ARRAY_SIZE(good));

    /* A surface at the very end of VRAM is written up to its last byte. */
    pb_reset(p);
    rd_set_surface(p, VDXG_SLOT_DST, PG_VRAM_SIZE - 0x1000 - 64,
                   VDXG_FMT_ARGB8888, 16, 2, 0x1000);
    rd_fill(p, 0, 0, 16, 2, 0xc0ffee00);
    pb_run(p);
    g_assert_cmphex(vram_readl(p, PG_VRAM_SIZE - 4), ==, 0xc0ffee00);
    g_assert_cmphex(vram_readl(p, PG_VRAM_SIZE - 64), ==, 0xc0ffee00);
    g_assert_cmphex(vram_readl(p, PG_VRAM_SIZE - 68), ==, 0);

    /* The slots are unset at the start of each ring entry. */
    rd_surf(p, &dst, RD_VMEM, VDXG_FMT_XRGB8888, 4, 4, 16);
    rd_clear(p, &dst, 0x12345678);
    pb_reset(p);
    rd_bind(p, VDXG_SLOT_DST, &dst);
    pb_run(p);
    pb_reset(p);
    rd_fill(p, 0, 0, 1, 1, 0);
    pb_queue(p);
    p->want_context = PG_CONTEXT;
    ring_kick(p);
    pg_expect_fault(p, VDXG_FAULT_PARAM, VDXG_RD_FILL_RECT, p->buf_gpu,
                    PG_CONTEXT);
    g_assert_cmphex(rd_dev_pixel(p, &dst, 0, 0), ==, 0x12345678);

    rd_stop(p);
}

/* After a fault and an engine reset: the engine draws again. */
static void rd_recover_check(Pg *p)
{
    uint64_t at = RD_VB - 0x1000;

    pb_reset(p);
    rd_set_surface(p, VDXG_SLOT_DST, at, VDXG_FMT_ARGB8888, 4, 2, 16);
    rd_fill(p, 1, 1, 3, 1, 0x600df00d);
    rd_fence(p, RD_FENCE2, 0xcafe);
    vram_writel(p, at + 16, 0);
    pb_run(p);
    g_assert_cmphex(vram_readl(p, at + 16), ==, 0);
    g_assert_cmphex(vram_readl(p, at + 28), ==, 0x600df00d);
    g_assert_cmphex(vram_readq(p, RD_FENCE2), ==, 0xcafe);
}

/* FILL_RECT in one format, to VRAM and to the aperture */
static void test_rd_fill(const void *data)
{
    uint32_t format = GPOINTER_TO_UINT(data), cpp = rd_cpp(format);
    static const uint32_t colors[] = {
        0x00000000, 0xffffffff, 0x80ff0000, 0x1200ff00, 0xfe0000ff,
        0x7f7f7f7f, 0x01fedcba, 0xc0def1a7,
    };
    g_autoptr(GRand) rnd = g_rand_new_with_seed(format);
    Pg *p = rd_start();
    RdSurf sf[2];
    uint32_t i, k, x, y, w, h, c;

    rd_surf(p, &sf[0], RD_VMEM + 0x10000, format, 97, 61,
            QEMU_ALIGN_UP(97 * cpp, 4) + 12);
    rd_surf(p, &sf[1], RD_AMEM + 4 * cpp, format, 45, 70, 300);
    for (k = 0; k < 2; k++) {
        rd_randomize(p, &sf[k], rnd);
        pb_reset(p);
        rd_bind(p, VDXG_SLOT_DST, &sf[k]);
        for (i = 0; i < 24; i++) {
            w = g_rand_int_range(rnd, 0, sf[k].ref.width + 1);
            h = g_rand_int_range(rnd, 0, sf[k].ref.height + 1);
            x = g_rand_int_range(rnd, 0, sf[k].ref.width - w + 1);
            y = g_rand_int_range(rnd, 0, sf[k].ref.height - h + 1);
            if (i % 8 == 7) {
                w = 0;      /* nothing to do */
            }
            c = colors[i % ARRAY_SIZE(colors)] ^ (g_rand_int(rnd) & 0xff);
            rd_fill(p, x, y, w, h, c);
            vdxg_ref_fill_rect(&sf[k].ref, x, y, w, h, c);
        }
        pb_run(p);
        rd_check(p, &sf[k], k ? "aperture fill" : "fill");
    }

    /* The stored values, known without the reference */
    rd_clear(p, &sf[0], 0);
    pb_reset(p);
    rd_bind(p, VDXG_SLOT_DST, &sf[0]);
    rd_fill(p, 0, 0, 97, 61, 0x12345678);
    rd_fill(p, 96, 60, 1, 1, 0x80ff8040);
    pb_run(p);
    switch (format) {
    case VDXG_FMT_XRGB8888:
        g_assert_cmphex(rd_dev_pixel(p, &sf[0], 0, 0), ==, 0xff345678);
        g_assert_cmphex(rd_dev_pixel(p, &sf[0], 96, 60), ==, 0xffff8040);
        break;
    case VDXG_FMT_ARGB8888:
        g_assert_cmphex(rd_dev_pixel(p, &sf[0], 0, 0), ==, 0x12345678);
        g_assert_cmphex(rd_dev_pixel(p, &sf[0], 96, 60), ==, 0x80ff8040);
        break;
    case VDXG_FMT_RGB565:
        /* r 0x34 >> 3, g 0x56 >> 2, b 0x78 >> 3 */
        g_assert_cmphex(rd_dev_pixel(p, &sf[0], 0, 0), ==,
                        (0x06 << 11) | (0x15 << 5) | 0x0f);
        g_assert_cmphex(rd_dev_pixel(p, &sf[0], 96, 60), ==,
                        (0x1f << 11) | (0x20 << 5) | 0x08);
        break;
    }
    /* The pitch gap is never written. */
    g_assert_cmphex(vram_readl(p, sf[0].gpu + QEMU_ALIGN_UP(97 * cpp, 4)), ==,
                    0xeeeeeeee);

    rd_stop(p);
}

static const uint32_t rd_colour_fmts[] = {
    VDXG_FMT_XRGB8888, VDXG_FMT_ARGB8888, VDXG_FMT_RGB565,
};

/* A random rectangle of size w x h inside both surfaces, at random places */
static void rd_random_rect(GRand *rnd, const RdSurf *src, const RdSurf *dst,
                           uint32_t *sx, uint32_t *sy, uint32_t *dx,
                           uint32_t *dy, uint32_t *w, uint32_t *h)
{
    *w = g_rand_int_range(rnd, 0, MIN(src->ref.width, dst->ref.width) + 1);
    *h = g_rand_int_range(rnd, 0, MIN(src->ref.height, dst->ref.height) + 1);
    *sx = g_rand_int_range(rnd, 0, src->ref.width - *w + 1);
    *sy = g_rand_int_range(rnd, 0, src->ref.height - *h + 1);
    *dx = g_rand_int_range(rnd, 0, dst->ref.width - *w + 1);
    *dy = g_rand_int_range(rnd, 0, dst->ref.height - *h + 1);
}

/*
 * COPY_RECT (or BLEND with random alphas) of random rectangles from @src
 * to @dst, on the device and with the reference, then compare DST.
 */
static void rd_copy_random(Pg *p, GRand *rnd, RdSurf *src, RdSurf *dst,
                           bool blend, int n, const char *what)
{
    static const uint32_t alphas[] = { 0, 1, 127, 128, 254, 255 };
    uint32_t sx, sy, dx, dy, w, h, alpha;
    int i;

    pb_reset(p);
    rd_bind(p, VDXG_SLOT_SRC, src);
    rd_bind(p, VDXG_SLOT_DST, dst);
    for (i = 0; i < n; i++) {
        rd_random_rect(rnd, src, dst, &sx, &sy, &dx, &dy, &w, &h);
        if (blend) {
            alpha = i < ARRAY_SIZE(alphas) ? alphas[i] :
                    g_rand_int_range(rnd, 0, 256);
            rd_blend(p, sx, sy, dx, dy, w, h, alpha);
            vdxg_ref_blend(&dst->ref, &src->ref, sx, sy, dx, dy, w, h,
                           alpha);
        } else {
            rd_copy(p, sx, sy, dx, dy, w, h);
            vdxg_ref_copy_rect(&dst->ref, &src->ref, sx, sy, dx, dy, w, h);
        }
    }
    pb_run(p);
    rd_check(p, dst, what);
}

/* COPY_RECT and BLEND between all colour formats, VRAM and aperture */
static void rd_test_formats(bool blend)
{
    g_autoptr(GRand) rnd = g_rand_new_with_seed(blend ? 17 : 16);
    Pg *p = rd_start();
    RdSurf src, dst;
    int i, j, k;

    for (i = 0; i < ARRAY_SIZE(rd_colour_fmts); i++) {
        for (j = 0; j < ARRAY_SIZE(rd_colour_fmts); j++) {
            for (k = 0; k < 2; k++) {
                uint32_t fs = rd_colour_fmts[i], fd = rd_colour_fmts[j];
                g_autofree char *what = g_strdup_printf(
                    "%s %s to %s%s", blend ? "blend" : "copy",
                    rd_fmt_names[fs], rd_fmt_names[fd],
                    k ? " through the aperture" : "");

                /* k = 1: SRC in VRAM, DST in the aperture */
                rd_surf(p, &src, RD_VMEM + 0x200000, fs, 53, 41, 256);
                rd_surf(p, &dst, k ? RD_AMEM + 0x800 : RD_VMEM + 0x400000,
                        fd, 67, 29, 68 * rd_cpp(fd));
                rd_randomize(p, &src, rnd);
                rd_randomize(p, &dst, rnd);
                rd_copy_random(p, rnd, &src, &dst, blend, 12, what);
                /* And back the other way */
                rd_copy_random(p, rnd, &dst, &src, blend, 4, what);
                rd_check(p, &src, what);
            }
        }
    }
    rd_stop(p);
}

static void test_rd_copy_formats(void)
{
    rd_test_formats(false);
}

static void test_rd_blend_formats(void)
{
    rd_test_formats(true);
}

/* Known values: conversions, and BLEND's arithmetic */
static void test_rd_copy_values(void)
{
    Pg *p = rd_start();
    RdSurf x, a, r;

    rd_surf(p, &x, RD_VMEM, VDXG_FMT_XRGB8888, 4, 1, 16);
    rd_surf(p, &a, RD_VMEM + 0x100, VDXG_FMT_ARGB8888, 4, 1, 16);
    rd_surf(p, &r, RD_VMEM + 0x200, VDXG_FMT_RGB565, 4, 1, 8);
    vram_writel(p, RD_VMEM, 0x12345678);
    vram_writel(p, RD_VMEM + 4, 0x80ff0000);
    vram_writel(p, RD_VMEM + 0x100, 0x0000ff00);
    vram_writel(p, RD_VMEM + 0x104, 0xff0000ff);
    vram_writel(p, RD_VMEM + 0x200, 0xfa5f);     /* 11111 010010 11111 */

    pb_reset(p);
    /* XRGB to ARGB: alpha becomes 0xff */
    rd_bind(p, VDXG_SLOT_SRC, &x);
    rd_bind(p, VDXG_SLOT_DST, &a);
    rd_copy(p, 0, 0, 2, 0, 1, 1);
    /* RGB565 to ARGB: 5 and 6 bits widened by repeating their top bits */
    rd_bind(p, VDXG_SLOT_SRC, &r);
    rd_copy(p, 0, 0, 3, 0, 1, 1);
    /* ARGB to RGB565 */
    rd_bind(p, VDXG_SLOT_SRC, &a);
    rd_bind(p, VDXG_SLOT_DST, &r);
    rd_copy(p, 1, 0, 1, 0, 1, 1);
    /* XRGB to XRGB: the stored top byte becomes 0xff */
    rd_bind(p, VDXG_SLOT_SRC, &x);
    rd_bind(p, VDXG_SLOT_DST, &x);
    rd_copy(p, 1, 0, 3, 0, 1, 1);
    pb_run(p);
    g_assert_cmphex(vram_readl(p, RD_VMEM + 0x108), ==, 0xff345678);
    g_assert_cmphex(vram_readl(p, RD_VMEM + 0x10c), ==, 0xffff49ff);
    g_assert_cmphex(qtest_readw(p->v.qts, p->vram.addr + RD_VMEM + 0x202),
                    ==, 0x001f);
    g_assert_cmphex(vram_readl(p, RD_VMEM + 0xc), ==, 0xffff0000);

    /* The same bytes as ARGB: 0x80ff0000 */
    rd_surf(p, &x, RD_VMEM, VDXG_FMT_ARGB8888, 4, 1, 16);
    pb_reset(p);
    rd_bind(p, VDXG_SLOT_SRC, &x);
    rd_bind(p, VDXG_SLOT_DST, &a);
    /* Over 0xff0000ff, alpha 255: a = 128, r = 128, b = 127, A = 255 */
    rd_blend(p, 1, 0, 1, 0, 1, 1, 255);
    /* Over 0x0000ff00, alpha 128: a = div255(128 * 128) = 64 */
    rd_blend(p, 1, 0, 0, 0, 1, 1, 128);
    pb_run(p);
    g_assert_cmphex(vram_readl(p, RD_VMEM + 0x104), ==, 0xff80007f);
    /* r = div255(255 * 64) = 64, g = div255(255 * 191) = 191, A = 64 */
    g_assert_cmphex(vram_readl(p, RD_VMEM + 0x100), ==, 0x4040bf00);

    /* Alpha 0 leaves DST as it was, its alpha included */
    pb_reset(p);
    rd_bind(p, VDXG_SLOT_SRC, &x);
    rd_bind(p, VDXG_SLOT_DST, &a);
    rd_blend(p, 0, 0, 0, 0, 4, 1, 0);
    pb_run(p);
    g_assert_cmphex(vram_readl(p, RD_VMEM + 0x100), ==, 0x4040bf00);
    g_assert_cmphex(vram_readl(p, RD_VMEM + 0x104), ==, 0xff80007f);
    g_assert_cmphex(vram_readl(p, RD_VMEM + 0x108), ==, 0xff345678);
    g_assert_cmpuint(qom_get_u64(p, "rd-copy-rect-ops"), ==, 4);
    g_assert_cmpuint(qom_get_u64(p, "rd-blend-ops"), ==, 3);

    rd_stop(p);
}

/*
 * Overlapping rectangles: on one surface in every direction, and on
 * surfaces that share memory with another pitch or format, in VRAM and in
 * the aperture. The source is read in full before anything is written.
 */
static void rd_test_overlap(bool blend)
{
    static const int dirs[][2] = {
        { 1, 0 }, { -1, 0 }, { 0, 1 }, { 0, -1 }, { 3, 2 }, { -2, 5 },
        { 4, -3 }, { -5, -1 }, { 0, 0 }, { 31, 0 },
    };
    g_autoptr(GRand) rnd = g_rand_new_with_seed(blend ? 41 : 40);
    Pg *p = rd_start();
    RdSurf a, b;
    uint32_t f, i, k, sx, sy, dx, dy, w, h;
    uint64_t base;

    for (k = 0; k < 2; k++) {
        base = k ? RD_AMEM : RD_VMEM;
        for (f = 0; f < ARRAY_SIZE(rd_colour_fmts); f++) {
            uint32_t fmt = rd_colour_fmts[f];

            /* One surface as SRC and DST */
            rd_surf(p, &a, base + 0x40, fmt, 40, 30, 40 * rd_cpp(fmt) + 8);
            rd_randomize(p, &a, rnd);
            pb_reset(p);
            rd_bind(p, VDXG_SLOT_SRC, &a);
            rd_bind(p, VDXG_SLOT_DST, &a);
            for (i = 0; i < ARRAY_SIZE(dirs); i++) {
                w = 20 + i;
                h = 17;
                sx = 8;
                sy = 6;
                dx = MIN(MAX((int)sx + dirs[i][0], 0), 40 - (int)w);
                dy = MIN(MAX((int)sy + dirs[i][1], 0), 30 - (int)h);
                if (blend) {
                    rd_blend(p, sx, sy, dx, dy, w, h, 200);
                    vdxg_ref_blend(&a.ref, &a.ref, sx, sy, dx, dy, w, h,
                                   200);
                } else {
                    rd_copy(p, sx, sy, dx, dy, w, h);
                    vdxg_ref_copy_rect(&a.ref, &a.ref, sx, sy, dx, dy, w,
                                       h);
                }
            }
            pb_run(p);
            rd_check(p, &a, "overlap, one surface");
        }

        /* Two surfaces on the same bytes, other pitch and format */
        for (i = 0; i < 12; i++) {
            uint32_t fa = rd_colour_fmts[i % 3], fb = rd_colour_fmts[i / 4];

            rd_surf(p, &a, base + 0x100, fa, 50, 40, 256);
            rd_surf(p, &b, base + 0x100 + (i % 5) * 0x104, fb, 60, 30,
                    (i & 1) ? 248 : 300);
            rd_randomize(p, &a, rnd);
            rd_xfer(p, b.gpu, rd_span(&b), true, NULL);
            rd_copy_random(p, rnd, &a, &b, blend, 3, "overlap, aliases");
            rd_check(p, &a, "overlap, aliases");
        }
    }

    /* A large overlapping copy through a snapshot, over several runs */
    rd_surf(p, &a, RD_VMEM, VDXG_FMT_XRGB8888, 1024, 1024, 4096);
    rd_surf(p, &b, RD_VMEM + 4096 * 3 + 64, VDXG_FMT_RGB565, 1000, 1000,
            2048);
    rd_randomize(p, &a, rnd);
    pb_reset(p);
    rd_bind(p, VDXG_SLOT_SRC, &a);
    rd_bind(p, VDXG_SLOT_DST, &b);
    if (blend) {
        rd_blend(p, 10, 20, 0, 0, 1000, 1000, 100);
        vdxg_ref_blend(&b.ref, &a.ref, 10, 20, 0, 0, 1000, 1000, 100);
    } else {
        rd_copy(p, 10, 20, 0, 0, 1000, 1000);
        vdxg_ref_copy_rect(&b.ref, &a.ref, 10, 20, 0, 0, 1000, 1000);
    }
    pb_run(p);
    rd_check(p, &a, "large overlap");

    rd_stop(p);
}

static void test_rd_copy_overlap(void)
{
    rd_test_overlap(false);
}

static void test_rd_blend_overlap(void)
{
    rd_test_overlap(true);
}

/* DRAW_TRIANGLES */

#define PX(n)               ((n) * 16)      /* pixels to 28.4 */

/* A flat right triangle, clockwise and counter-clockwise; clipping */
static void test_rd_draw_flat(void)
{
    Pg *p = rd_start();
    RdSurf dst;
    uint32_t x, y, want, f;
    RdVtx v[] = {
        /* (0, 0), (10, 0), (0, 7) in pixels: clockwise on screen */
        { PX(0), PX(0), 0, 0xff204080 },
        { PX(10), PX(0), 0, 0xff204080 },
        { PX(0), PX(7), 0, 0xff204080 },
        /* The same, counter-clockwise, moved by (12, 0) */
        { PX(12), PX(0), 0, 0x80402010 },
        { PX(12), PX(7), 0, 0x80402010 },
        { PX(22), PX(0), 0, 0x80402010 },
        /* No area: nothing */
        { PX(1), PX(8), 0, 0xffffffff },
        { PX(5), PX(8), 0, 0xffffffff },
        { PX(9), PX(8), 0, 0xffffffff },
        /* Mostly outside the surface: clipped */
        { -PX(1000), PX(9), 0, 0xff00ff00 },
        { PX(1000), PX(9), 0, 0xff00ff00 },
        { PX(3), PX(4000), 0, 0xff00ff00 },
    };

    for (f = 0; f < ARRAY_SIZE(rd_colour_fmts); f++) {
        rd_surf(p, &dst, RD_VMEM, rd_colour_fmts[f], 30, 20, 128);
        rd_clear(p, &dst, 0);
        rd_draw_both(p, &dst, NULL, NULL, 0, v, ARRAY_SIZE(v));
        rd_check(p, &dst, "flat");
    }

    /*
     * ARGB8888: every value known. Centre (x + 1/2, y + 1/2) is inside
     * when (2x + 1) * 7 + (2y + 1) * 10 < 140 (never equal: odd vs even).
     */
    rd_surf(p, &dst, RD_VMEM, VDXG_FMT_ARGB8888, 30, 20, 128);
    rd_clear(p, &dst, 0);
    rd_draw_both(p, &dst, NULL, NULL, 0, v, ARRAY_SIZE(v));
    for (y = 0; y < 20; y++) {
        for (x = 0; x < 30; x++) {
            want = 0;
            if (y >= 9) {
                want = 0xff00ff00;
            } else if (x < 10 && y < 7 &&
                       (2 * x + 1) * 7 + (2 * y + 1) * 10 < 140) {
                want = 0xff204080;
            } else if (x >= 12 && x < 22 && y < 7 &&
                       (2 * (x - 12) + 1) * 7 + (2 * y + 1) * 10 < 140) {
                want = 0x80402010;
            }
            if (rd_dev_pixel(p, &dst, x, y) != want) {
                g_test_message("pixel (%u, %u)", x, y);
            }
            g_assert_cmphex(rd_dev_pixel(p, &dst, x, y), ==, want);
        }
    }
    g_assert_cmpuint(qom_get_u64(p, "rd-draw-triangles-ops"), ==, 4);
    rd_stop(p);
}

/* Interpolated colours */
static void test_rd_draw_color(void)
{
    Pg *p = rd_start();
    RdSurf dst;
    uint32_t f;
    /*
     * Vertices on pixel centres. Both edges at v0 (v2 -> v0 and v0 -> v1)
     * go up, so they own v0's pixel: it gets v0's colour exactly.
     */
    RdVtx v[] = {
        { PX(2) + 8, PX(20) + 8, 0, 0xffff0000 },
        { PX(60) + 8, PX(2) + 8, 0, 0x8000ff00 },
        { PX(40) + 8, PX(45) + 8, 0, 0x000000ff },
        { PX(70) + 3, PX(1) + 11, 0, 0x12345678 },
        { PX(40) + 5, PX(47) + 1, 0, 0xfedcba98 },
        { PX(79) + 15, PX(30), 0, 0x7f7f7f7f },
    };

    for (f = 0; f < ARRAY_SIZE(rd_colour_fmts); f++) {
        rd_surf(p, &dst, RD_AMEM + 0x40, rd_colour_fmts[f], 80, 48,
                80 * 4);
        rd_clear(p, &dst, 0);
        rd_draw_both(p, &dst, NULL, NULL, 0, v, ARRAY_SIZE(v));
        rd_check(p, &dst, "colour");
    }
    /* ARGB8888: the first vertex's pixel, and a known mix */
    rd_surf(p, &dst, RD_VMEM, VDXG_FMT_ARGB8888, 80, 48, 80 * 4);
    rd_clear(p, &dst, 0);
    rd_draw_both(p, &dst, NULL, NULL, 0, v, 3);
    rd_check(p, &dst, "colour");
    g_assert_cmphex(rd_dev_pixel(p, &dst, 2, 20), ==, 0xffff0000);
    g_assert_cmphex(rd_dev_pixel(p, &dst, 1, 20), ==, 0);
    rd_stop(p);
}

/* A texture of w x h with texel (x, y) = x * 16 + y, alpha varied */
static void rd_make_texture(Pg *p, RdSurf *tex, uint64_t gpu, uint32_t fmt,
                            uint32_t w, uint32_t h)
{
    uint32_t x, y;

    rd_surf(p, tex, gpu, fmt, w, h, QEMU_ALIGN_UP(w * rd_cpp(fmt), 4) + 4);
    rd_clear(p, tex, 0);
    for (y = 0; y < h; y++) {
        for (x = 0; x < w; x++) {
            vdxg_ref_write(&tex->ref, x, y,
                           (0x40 + x * 20) << 24 | (x * 37 & 0xff) << 16 |
                           (y * 41 & 0xff) << 8 | ((x * y * 13) & 0xff));
        }
    }
    rd_xfer(p, tex->gpu, rd_span(tex), true, NULL);
}

/* A quad from (x0, y0) to (x1, y1) (28.4) with texel corners u0..u1 */
static void rd_quad(RdVtx *v, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
                    int32_t u0, int32_t v0, int32_t u1, int32_t v1,
                    uint32_t z, uint32_t color)
{
    RdVtx q[6] = {
        { x0, y0, z, color, u0, v0 }, { x1, y0, z, color, u1, v0 },
        { x1, y1, z, color, u1, v1 }, { x0, y0, z, color, u0, v0 },
        { x1, y1, z, color, u1, v1 }, { x0, y1, z, color, u0, v1 },
    };

    memcpy(v, q, sizeof(q));
}

/* TEXTURE, nearest and bilinear, all texture formats */
static void test_rd_draw_texture(void)
{
    Pg *p = rd_start();
    RdSurf dst, tex;
    RdVtx v[18];
    uint32_t f, t, x, y, flags;

    for (f = 0; f < ARRAY_SIZE(rd_colour_fmts); f++) {
        for (t = 0; t < 2; t++) {
            flags = VDXG_DRAW_TEXTURE | (t ? VDXG_DRAW_BILINEAR : 0);
            rd_make_texture(p, &tex, RD_AMEM + 0x10000, rd_colour_fmts[f],
                            7, 5);
            rd_surf(p, &dst, RD_VMEM, VDXG_FMT_ARGB8888, 64, 48, 64 * 4);
            rd_clear(p, &dst, 0x01020304);
            /* 1:1, magnified and clamped past the edges, minified */
            rd_quad(v, 0, 0, PX(7), PX(5), 0, 0, 7 << 16, 5 << 16, 0,
                    0xffffffff);
            rd_quad(v + 6, PX(10), PX(2), PX(60), PX(40), -(2 << 16),
                    -(1 << 16), 9 << 16, 6 << 16, 0, 0xc0ff8040);
            rd_quad(v + 12, PX(1) + 5, PX(41), PX(4), PX(47) + 9, 0, 0,
                    7 << 16, 5 << 16, 0, 0x80808080);
            rd_draw_both(p, &dst, NULL, &tex, flags, v, 18);
            rd_check(p, &dst, t ? "bilinear" : "nearest");
            if (t) {
                continue;
            }
            /* Nearest 1:1 with white: the texels themselves, as ARGB */
            for (y = 0; y < 5; y++) {
                for (x = 0; x < 7; x++) {
                    g_assert_cmphex(rd_dev_pixel(p, &dst, x, y), ==,
                                    vdxg_ref_read(&tex.ref, x, y));
                }
            }
        }
    }

    /* Bilinear over a uniform texture is that colour, modulated */
    rd_surf(p, &tex, RD_VMEM + 0x100000, VDXG_FMT_ARGB8888, 4, 4, 16);
    rd_clear(p, &tex, 0x80ff4020);
    rd_surf(p, &dst, RD_VMEM, VDXG_FMT_ARGB8888, 16, 16, 64);
    rd_clear(p, &dst, 0);
    rd_quad(v, 0, 0, PX(16), PX(16), -(5 << 16), 0x12345, 0x345678,
            0x7fffffff, 0, 0xffff8000);
    rd_draw_both(p, &dst, NULL, &tex,
                 VDXG_DRAW_TEXTURE | VDXG_DRAW_BILINEAR, v, 6);
    rd_check(p, &dst, "uniform");
    /* A 0x80 * 0xff, R 0xff * 0xff, G 0x40 * 0x80, B 0x20 * 0 */
    for (y = 0; y < 16; y++) {
        for (x = 0; x < 16; x++) {
            g_assert_cmphex(rd_dev_pixel(p, &dst, x, y), ==, 0x80ff2000);
        }
    }
    rd_stop(p);
}

/* DEPTH_TEST and DEPTH_WRITE */
static void test_rd_draw_depth(void)
{
    static const uint32_t modes[] = {
        VDXG_DRAW_DEPTH_TEST | VDXG_DRAW_DEPTH_WRITE, VDXG_DRAW_DEPTH_TEST,
        VDXG_DRAW_DEPTH_WRITE,
    };
    Pg *p = rd_start();
    RdSurf dst, depth;
    RdVtx v[12];
    uint32_t m;

    for (m = 0; m < ARRAY_SIZE(modes); m++) {
        rd_surf(p, &dst, RD_VMEM, VDXG_FMT_XRGB8888, 40, 30, 40 * 4);
        /* DEPTH may be larger than DST. */
        rd_surf(p, &depth, RD_AMEM, VDXG_FMT_D32, 48, 32, 48 * 4 + 8);
        rd_clear(p, &dst, 0);
        rd_clear(p, &depth, 1000);
        /* Near (100) first, then far (200) over all, then nearer (50) */
        rd_quad(v, PX(5), PX(5), PX(20), PX(15), 0, 0, 0, 0, 100,
                0xffff0000);
        rd_quad(v + 6, 0, 0, PX(40), PX(30), 0, 0, 0, 0, 200, 0xff00ff00);
        rd_draw_both(p, &dst, &depth, NULL, modes[m], v, 12);
        rd_check(p, &dst, "depth: colour");
        rd_check(p, &depth, "depth: depth");
        switch (modes[m]) {
        case VDXG_DRAW_DEPTH_TEST | VDXG_DRAW_DEPTH_WRITE:
            g_assert_cmphex(rd_dev_pixel(p, &dst, 10, 10), ==, 0xffff0000);
            g_assert_cmphex(rd_dev_pixel(p, &depth, 10, 10), ==, 100);
            g_assert_cmphex(rd_dev_pixel(p, &dst, 30, 20), ==, 0xff00ff00);
            g_assert_cmphex(rd_dev_pixel(p, &depth, 30, 20), ==, 200);
            break;
        case VDXG_DRAW_DEPTH_TEST:
            /* Nothing written to DEPTH: the far quad covers all */
            g_assert_cmphex(rd_dev_pixel(p, &dst, 10, 10), ==, 0xff00ff00);
            g_assert_cmphex(rd_dev_pixel(p, &depth, 10, 10), ==, 1000);
            break;
        case VDXG_DRAW_DEPTH_WRITE:
            /* No test: the last one wins, its depth stored */
            g_assert_cmphex(rd_dev_pixel(p, &dst, 10, 10), ==, 0xff00ff00);
            g_assert_cmphex(rd_dev_pixel(p, &depth, 10, 10), ==, 200);
            break;
        }
        /* Outside DST, DEPTH is never touched. */
        g_assert_cmphex(rd_dev_pixel(p, &depth, 45, 31), ==, 1000);
    }

    /* Equal depth fails the test; interpolated z; unsigned comparison */
    rd_surf(p, &dst, RD_VMEM, VDXG_FMT_ARGB8888, 40, 30, 40 * 4);
    rd_surf(p, &depth, RD_VMEM + 0x10000, VDXG_FMT_D32, 40, 30, 40 * 4);
    rd_clear(p, &dst, 0);
    rd_clear(p, &depth, 0x80000000);
    rd_quad(v, 0, 0, PX(40), PX(30), 0, 0, 0, 0, 0x80000000, 0xffffffff);
    v[3].z = v[4].z = 0x7fffffff;
    v[2].z = 0xfffffff0;
    rd_quad(v + 6, PX(10), PX(10), PX(30), PX(20), 0, 0, 0, 0, 0x10,
            0xff123456);
    v[6].z = 0xffffffff;
    rd_draw_both(p, &dst, &depth, NULL,
                 VDXG_DRAW_DEPTH_TEST | VDXG_DRAW_DEPTH_WRITE, v, 12);
    rd_check(p, &dst, "depth: colour");
    rd_check(p, &depth, "depth: depth");
    g_assert_cmphex(rd_dev_pixel(p, &dst, 20, 15), ==, 0xff123456);
    rd_stop(p);
}

/*
 * Coverage masks of triangles drawn one at a time: pixels of the same
 * value (mask bit) in @count for each triangle.
 */
static void rd_coverage(Pg *p, RdSurf *dst, const RdVtx *v, uint32_t ntri,
                        uint8_t *count)
{
    uint32_t t, x, y, w = dst->ref.width, h = dst->ref.height;
    g_autofree uint8_t *img = g_malloc(rd_span(dst));

    memset(count, 0, w * h);
    for (t = 0; t < ntri; t++) {
        rd_clear(p, dst, 0);
        rd_draw_both(p, dst, NULL, NULL, 0, v + 3 * t, 3);
        rd_check(p, dst, "coverage");
        rd_xfer(p, dst->gpu, rd_span(dst), false, img);
        for (y = 0; y < h; y++) {
            for (x = 0; x < w; x++) {
                count[y * w + x] += ldl_le_p(img + y * dst->ref.pitch +
                                             x * 4) != 0;
            }
        }
    }
}

/* Fill rule: triangles that share edges cover each pixel exactly once. */
static void test_rd_draw_fill_rule(void)
{
    enum { W = 24, H = 24 };
    Pg *p = rd_start();
    RdSurf dst;
    uint8_t count[W * H];
    RdVtx v[8 * 3];
    uint32_t i, x, y;
    /* Fan boundary: corners and mid-edges of the square, clockwise */
    static const int32_t ring[8][2] = {
        { 0, 0 }, { PX(12), 0 }, { PX(24), 0 }, { PX(24), PX(12) },
        { PX(24), PX(24) }, { PX(12), PX(24) }, { 0, PX(24) },
        { 0, PX(12) },
    };

    rd_surf(p, &dst, RD_VMEM, VDXG_FMT_ARGB8888, W, H, W * 4);

    /* A square cut along either diagonal, through pixel centres */
    for (i = 0; i < 2; i++) {
        RdVtx q[6] = {
            { 0, 0, 0, 0xffffffff }, { PX(W), 0, 0, 0xffffffff },
            { PX(W), PX(H), 0, 0xffffffff }, { 0, 0, 0, 0xffffffff },
            { PX(W), PX(H), 0, 0xffffffff }, { 0, PX(H), 0, 0xffffffff },
        };
        if (i) {
            /* The other diagonal: (W, 0) to (0, H), opposite windings */
            q[0] = (RdVtx) { PX(W), 0, 0, 0xffffffff };
            q[1] = (RdVtx) { 0, PX(H), 0, 0xffffffff };
            q[2] = (RdVtx) { 0, 0, 0, 0xffffffff };
            q[3] = (RdVtx) { PX(W), PX(H), 0, 0xffffffff };
            q[4] = (RdVtx) { 0, PX(H), 0, 0xffffffff };
            q[5] = (RdVtx) { PX(W), 0, 0, 0xffffffff };
        }
        rd_coverage(p, &dst, q, 2, count);
        for (y = 0; y < H; y++) {
            for (x = 0; x < W; x++) {
                g_assert_cmpuint(count[y * W + x], ==, 1);
            }
        }
    }

    /* A fan of 8 around a pixel centre, edges through many centres */
    for (i = 0; i < 8; i++) {
        v[3 * i] = (RdVtx) { PX(11) + 8, PX(11) + 8, 0, 0xffffffff };
        v[3 * i + 1] = (RdVtx) { ring[i][0], ring[i][1], 0, 0xffffffff };
        v[3 * i + 2] = (RdVtx) { ring[(i + 1) % 8][0],
                                 ring[(i + 1) % 8][1], 0, 0xffffffff };
    }
    rd_coverage(p, &dst, v, 8, count);
    for (y = 0; y < H; y++) {
        for (x = 0; x < W; x++) {
            g_assert_cmpuint(count[y * W + x], ==, 1);
        }
    }

    /* Horizontal and vertical shared edges through pixel centres */
    for (i = 0; i < 4; i++) {
        int32_t c = PX(i * 5 + 2) + 8;

        v[6 * i + 0] = (RdVtx) { 0, c, 0, 0xffffffff };
        v[6 * i + 1] = (RdVtx) { PX(W), c, 0, 0xffffffff };
        v[6 * i + 2] = (RdVtx) { c, i & 1 ? 0 : PX(H), 0, 0xffffffff };
        v[6 * i + 3] = (RdVtx) { PX(W), c, 0, 0xffffffff };
        v[6 * i + 4] = (RdVtx) { 0, c, 0, 0xffffffff };
        v[6 * i + 5] = (RdVtx) { c, i & 1 ? PX(H) : 0, 0, 0xffffffff };
        rd_coverage(p, &dst, v + 6 * i, 2, count);
        for (y = 0; y < H; y++) {
            for (x = 0; x < W; x++) {
                g_assert_cmpuint(count[y * W + x], <=, 1);
            }
            /* The shared row is drawn once */
        }
        for (x = 1; x < W - 1; x++) {
            g_assert_cmpuint(count[(c / 16) * W + x], ==, 1);
        }
    }
    rd_stop(p);
}

/* A random coordinate around a surface of @n pixels, now and then far */
static int32_t rd_random_coord(GRand *rnd, int32_t n, bool huge)
{
    switch (g_rand_int_range(rnd, 0, huge ? 12 : 10)) {
    case 0:
        /* On a pixel centre, or a pixel corner */
        return PX(g_rand_int_range(rnd, -2, n + 2)) +
               (g_rand_boolean(rnd) ? 8 : 0);
    case 10:
        return g_rand_int_range(rnd, -VDXG_VTX_COORD_MAX,
                                VDXG_VTX_COORD_MAX + 1);
    case 11:
        return g_rand_boolean(rnd) ? VDXG_VTX_COORD_MAX :
                                     -VDXG_VTX_COORD_MAX;
    default:
        return g_rand_int_range(rnd, -PX(n) / 4, PX(n) * 5 / 4);
    }
}

static RdVtx rd_random_vertex(GRand *rnd, const RdSurf *dst, bool huge)
{
    static const uint32_t zs[] = { 0, 1, 0x7fffffff, 0xffffffff };

    return (RdVtx) {
        .x = rd_random_coord(rnd, dst->ref.width, huge),
        .y = rd_random_coord(rnd, dst->ref.height, huge),
        .z = g_rand_boolean(rnd) ? g_rand_int(rnd) :
             zs[g_rand_int_range(rnd, 0, 4)],
        .color = g_rand_int(rnd),
        .u = g_rand_int_range(rnd, -(4 << 16), 40 << 16),
        .v = g_rand_boolean(rnd) ? g_rand_int_range(rnd, -(4 << 16), 40 << 16)
                                 : (int32_t)g_rand_int(rnd),
    };
}

/*
 * Random triangles into DST of @format, with random flags, DEPTH and
 * TEXTURE, in VRAM or the aperture: pixel-exact against the reference.
 */
static void test_rd_draw_random(const void *data)
{
    uint32_t format = GPOINTER_TO_UINT(data);
    Pg *p = rd_start();
    RdSurf dst, depth, tex;
    RdVtx v[3 * 40];
    uint32_t seed, n, i, flags, w, h;

    for (seed = 0; seed < 60; seed++) {
        g_autoptr(GRand) rnd = g_rand_new_with_seed(format * 1000 + seed);
        bool huge = seed % 4 == 3;

        w = g_rand_int_range(rnd, 1, 120);
        h = g_rand_int_range(rnd, 1, 90);
        rd_surf(p, &dst, seed % 3 ? RD_VMEM : RD_AMEM + 0x100, format, w,
                h, QEMU_ALIGN_UP(w * rd_cpp(format), 4) +
                4 * g_rand_int_range(rnd, 0, 3));
        rd_surf(p, &depth, seed % 5 ? RD_VMEM + 0x400000 : RD_AMEM + 0x80000,
                VDXG_FMT_D32, w + g_rand_int_range(rnd, 0, 3), h, w * 4 + 12);
        i = g_rand_int_range(rnd, 1, 12);
        rd_surf(p, &tex, seed % 2 ? RD_VMEM + 0x800000 : RD_AMEM + 0x100000,
                rd_colour_fmts[g_rand_int_range(rnd, 0, 3)], i,
                g_rand_int_range(rnd, 1, 12), 64);
        rd_randomize(p, &dst, rnd);
        rd_randomize(p, &depth, rnd);
        rd_randomize(p, &tex, rnd);

        flags = g_rand_int_range(rnd, 0, VDXG_DRAW_FLAGS_MASK + 1);
        if ((flags & VDXG_DRAW_BILINEAR) && !(flags & VDXG_DRAW_TEXTURE)) {
            flags &= ~VDXG_DRAW_BILINEAR;
        }
        n = 3 * g_rand_int_range(rnd, 1, ARRAY_SIZE(v) / 3 + 1);
        for (i = 0; i < n; i++) {
            v[i] = rd_random_vertex(rnd, &dst, huge);
        }
        g_test_message("seed %u: %s %ux%u flags 0x%x, %u vertices", seed,
                       rd_fmt_names[format], w, h, flags, n);
        rd_draw_both(p, &dst,
                     flags & (VDXG_DRAW_DEPTH_TEST | VDXG_DRAW_DEPTH_WRITE) ?
                     &depth : NULL,
                     flags & VDXG_DRAW_TEXTURE ? &tex : NULL, flags, v, n);
        rd_check(p, &dst, "random triangles");
        rd_check(p, &depth, "random triangles: depth");
    }
    rd_stop(p);
}

/* Large draws and fills run in many slices, and are still exact. */
static void test_rd_large(void)
{
    Pg *p = rd_start();
    g_autoptr(GRand) rnd = g_rand_new_with_seed(7);
    RdSurf dst, tex;
    RdVtx v[6];
    uint64_t runs, pixels;

    /* 2048 x 1536, 12 MiB: a fill, then a textured quad over it all */
    rd_surf(p, &dst, RD_VMEM, VDXG_FMT_XRGB8888, 2048, 1536, 8192);
    rd_surf(p, &tex, RD_VMEM + 12 * MiB, VDXG_FMT_ARGB8888, 64, 64, 256);
    rd_randomize(p, &tex, rnd);
    runs = qom_get_u64(p, "rd-bh-runs");
    pixels = qom_get_u64(p, "rd-pixels");
    pb_reset(p);
    rd_bind(p, VDXG_SLOT_DST, &dst);
    rd_fill(p, 0, 0, 2048, 1536, 0x00c0ffee);
    pb_run(p);
    vdxg_ref_fill_rect(&dst.ref, 0, 0, 2048, 1536, 0x00c0ffee);
    g_assert_cmpuint(qom_get_u64(p, "rd-bh-runs") - runs, >=, 4);
    g_assert_cmpuint(qom_get_u64(p, "rd-pixels") - pixels, ==,
                     2048 * 1536);
    g_assert_cmphex(vram_readl(p, RD_VMEM + 8192 * 1535 + 8188), ==,
                    0xffc0ffee);

    runs = qom_get_u64(p, "rd-bh-runs");
    rd_quad(v, -PX(3), PX(1), PX(2050), PX(1536) - 1, 0, 0, 64 << 16,
            64 << 16, 0, 0xfff0e0d0);
    v[1].color = 0x80102030;
    rd_draw_both(p, &dst, NULL, &tex, VDXG_DRAW_TEXTURE | VDXG_DRAW_BILINEAR,
                 v, 6);
    g_assert_cmpuint(qom_get_u64(p, "rd-bh-runs") - runs, >=, 10);
    rd_check(p, &dst, "large draw");
    rd_stop(p);
}

/*
 * Queue a buffer with an overlapping copy through a snapshot (about four
 * runs of the bottom half), then a large textured draw (about ten), a WAIT
 * for RD_SEM >= 1 and a FILL_RECT; do the same on the mirror, except the
 * FILL_RECT, left to rd_big_finish.
 */
static void rd_big_queue(Pg *p, RdSurf *d)
{
    g_autoptr(GRand) rnd = g_rand_new_with_seed(99);
    RdSurf a, b, t;
    RdVtx v[6];
    g_autofree uint32_t *dw = g_new(uint32_t, 6 * 8);

    rd_surf(p, &a, RD_VMEM, VDXG_FMT_XRGB8888, 1024, 1024, 4096);
    rd_surf(p, &b, RD_VMEM + 4096 * 3 + 64, VDXG_FMT_RGB565, 1000, 1000,
            2048);
    rd_surf(p, d, RD_VMEM + 4 * MiB, VDXG_FMT_XRGB8888, 1024, 1024, 4096);
    rd_surf(p, &t, RD_VMEM + 8 * MiB, VDXG_FMT_RGB565, 64, 32, 128);
    rd_randomize(p, &a, rnd);
    rd_randomize(p, d, rnd);
    rd_randomize(p, &t, rnd);
    qtest_writeq(p->v.qts, p->vram.addr + RD_SEM, 0);

    rd_quad(v, PX(1), -PX(2), PX(1024), PX(1024) + 5, -(3 << 16), 0,
            70 << 16, 40 << 16, 0, 0xffffffff);
    v[2].color = 0x40608090;
    rd_put_vertices(p, RD_VB, v, 6, dw);
    pb_reset(p);
    rd_bind(p, VDXG_SLOT_SRC, &a);
    rd_bind(p, VDXG_SLOT_DST, &b);
    rd_copy(p, 10, 20, 0, 0, 1000, 1000);
    rd_bind(p, VDXG_SLOT_DST, d);
    rd_bind(p, VDXG_SLOT_TEXTURE, &t);
    rd_draw(p, VDXG_DRAW_TEXTURE | VDXG_DRAW_BILINEAR, 6, RD_VB);
    rd_wait(p, RD_SEM, 1);
    rd_fill(p, 100, 200, 300, 20, 0xff00ff00);
    pb_queue(p);

    vdxg_ref_copy_rect(&b.ref, &a.ref, 10, 20, 0, 0, 1000, 1000);
    vdxg_ref_draw_triangles(&d->ref, NULL, &t.ref,
                            VDXG_DRAW_TEXTURE | VDXG_DRAW_BILINEAR, dw, 6);
    vdxg_ref_fill_rect(&d->ref, 100, 200, 300, 20, 0xff00ff00);
}

/* Let the queued big buffer finish, and check all it did. */
static void rd_big_finish(Pg *p, RdSurf *d)
{
    RdSurf a;

    rd_assert_stuck(p, p->seqno - 1, 500000);
    qtest_writeq(p->v.qts, p->vram.addr + RD_SEM, 1);
    qtest_clock_step(p->v.qts, 100000);
    pg_finish(p);
    rd_surf(p, &a, RD_VMEM, VDXG_FMT_XRGB8888, 1024, 1024, 4096);
    rd_check(p, &a, "big copy");
    rd_check(p, d, "big draw and fill");
}

/* Clearing ENABLE pauses in the middle of a command; ENABLE resumes. */
static void test_rd_pause(void)
{
    Pg *p = rd_start();
    RdSurf d;
    uint32_t last;
    int i;

    rd_big_queue(p, &d);
    /* The last pixel the draw writes, still as it was */
    last = rd_dev_pixel(p, &d, 1023, 1023);
    g_assert_cmphex(last, !=, ldl_le_p((uint8_t *)d.ref.data + 4096 * 1023 +
                                       4092));
    ring_kick(p);
    wr(&p->v, EREG(p, VDXG_ENG_CTRL), 0);
    for (i = 0; i < 20; i++) {
        qtest_clock_step(p->v.qts, 1000000);
        g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_STATUS)), ==, 0);
        g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_RING_HEAD)), ==, 0);
    }
    g_assert_cmphex(rd64(&p->v, EREG(p, VDXG_ENG_FENCE_VALUE_LO)), ==, 0);
    g_assert_cmphex(rd_dev_pixel(p, &d, 1023, 1023), ==, last);
    wr(&p->v, EREG(p, VDXG_ENG_CTRL), VDXG_ENG_CTRL_ENABLE);
    rd_big_finish(p, &d);
    rd_stop(p);
}

/* Engine reset, soft reset and device reset in the middle of work */
static void test_rd_reset(void)
{
    Pg *p = rd_start();
    RdSurf d;
    uint32_t last;
    int i, k;

    for (k = 0; k < 3; k++) {
        rd_big_queue(p, &d);
        last = rd_dev_pixel(p, &d, 1023, 1023);
        ring_kick(p);
        switch (k) {
        case 0:
            wr(&p->v, EREG(p, VDXG_ENG_RESET), 1);
            break;
        case 1:
            wr(&p->v, VDXG_REG_RESET, VDXG_RESET_MAGIC);
            break;
        case 2:
            qtest_qmp_assert_success(p->v.qts,
                                     "{ 'execute': 'system_reset' }");
            qtest_qmp_eventwait(p->v.qts, "RESET");
            qpci_device_enable(p->v.dev);
            p->v.mmio = qpci_iomap(p->v.dev, VDXG_BAR_MMIO, NULL);
            p->vram = qpci_iomap(p->v.dev, VDXG_BAR_VRAM, NULL);
            p->v.dev->msix_enabled = false;
            break;
        }
        assert_engine_reset(p);
        /* Nothing more happens, even when the WAIT could end. */
        qtest_writeq(p->v.qts, p->vram.addr + RD_SEM, 1);
        for (i = 0; i < 10; i++) {
            qtest_clock_step(p->v.qts, 1000000);
            g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_STATUS)), ==,
                            VDXG_ENG_STATUS_IDLE);
        }
        g_assert_cmphex(rd_dev_pixel(p, &d, 1023, 1023), ==, last);
        g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==, 0);
        if (k) {
            /* Everything else went back to power-on values too. */
            g_assert_cmphex(rd(&p->v, VDXG_REG_INT_STATUS), ==, 0);
            g_assert_cmphex(rd(&p->v, VDXG_REG_GART_CTRL), ==, 0);
            if (k == 2) {
                msix_setup(&p->v);
            }
            wr(&p->v, VDXG_REG_INT_MASK, VDXG_INT_VALID_MASK);
            pg_gart_setup(p);
        }
        pg_engine_setup(p);
        p->seqno = 0;
        rd_recover_check(p);
    }
    rd_stop(p);
}

/* Migrate @src's device to a new QEMU; returns the destination. */
static Pg *rd_migrate(Pg *src, const char *tmpdir)
{
    g_autofree char *sock = g_strdup_printf("%s/migration", tmpdir);
    g_autofree char *uri = g_strdup_printf("unix:%s", sock);
    Pg *dst = g_new0(Pg, 1);
    uint32_t bar0;
    uint64_t bar2;

    bar0 = qpci_config_readl(src->v.dev, PCI_BASE_ADDRESS_0);
    bar2 = (qpci_config_readl(src->v.dev, PCI_BASE_ADDRESS_2) |
            (uint64_t)qpci_config_readl(src->v.dev, PCI_BASE_ADDRESS_3) << 32)
           & ~0xfull;
    dst->v.qts = qtest_initf("-machine q35 -nodefaults %s "
                             "-device vdxg,addr=%02x.0,%s -incoming %s",
                             vdxg_qemu_args(), VDXG_SLOT, PG_PROPS, uri);
    qtest_qmp_assert_success(src->v.qts, "{ 'execute': 'migrate', "
                             "'arguments': { 'uri': %s } }", uri);
    qtest_qmp_eventwait(dst->v.qts, "RESUME");
    g_unlink(sock);

    dst->v.bus = qpci_new_pc(dst->v.qts, NULL);
    dst->v.dev = qpci_device_find(dst->v.bus, VDXG_DEVFN);
    g_assert_nonnull(dst->v.dev);
    dst->v.mmio = (QPCIBar) { .addr = bar0 & PCI_BASE_ADDRESS_MEM_MASK };
    dst->vram = (QPCIBar) { .addr = bar2 };
    dst->eng = src->eng;
    dst->ring = src->ring;
    dst->fence = src->fence;
    dst->tail = src->tail;
    dst->seqno = src->seqno;
    dst->slot = src->slot;
    dst->vmem = src->vmem;
    dst->amem = src->amem;
    src->vmem = src->amem = NULL;
    rd_stop(src);
    return dst;
}

/*
 * Migration in the middle of a buffer: the bound surfaces, the command in
 * progress and its snapshot come along.
 */
static void test_rd_migration(void)
{
    g_autofree char *tmpdir = g_dir_make_tmp("vdxg-test-XXXXXX", NULL);
    Pg *p = rd_start();
    RdSurf d;

    g_assert_nonnull(tmpdir);
    /* Something done before, and the big buffer paused in its copy */
    pb_reset(p);
    rd_nop(p);
    pb_run(p);
    rd_big_queue(p, &d);
    ring_kick(p);
    wr(&p->v, EREG(p, VDXG_ENG_CTRL), 0);
    g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_STATUS)), ==, 0);

    p = rd_migrate(p, tmpdir);
    g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_STATUS)), ==, 0);
    g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_CTRL)), ==, 0);
    g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_RING_HEAD)), ==, 32);
    g_assert_cmphex(rd64(&p->v, EREG(p, VDXG_ENG_FENCE_VALUE_LO)), ==, 1);
    g_assert_cmphex(rd64(&p->v, EREG(p, VDXG_ENG_RING_BASE_LO)), ==,
                    RD_RING);

    /* The buffer resumes, stops at its WAIT, and finishes. */
    wr(&p->v, EREG(p, VDXG_ENG_CTRL), VDXG_ENG_CTRL_ENABLE);
    rd_big_finish(p, &d);

    rd_stop(p);
    g_rmdir(tmpdir);
}

/* Migration while a WAIT polls: it goes on polling on the destination. */
static void test_rd_migration_wait(void)
{
    g_autofree char *tmpdir = g_dir_make_tmp("vdxg-test-XXXXXX", NULL);
    Pg *p = rd_start();
    RdSurf dst;

    g_assert_nonnull(tmpdir);
    rd_surf(p, &dst, RD_AMEM + 0x2000, VDXG_FMT_RGB565, 4, 4, 8);
    rd_clear(p, &dst, 0x1234);
    qtest_writeq(p->v.qts, p->vram.addr + RD_SEM, 0);
    rd_queue_wait(p, RD_SEM, 2, &dst, 0xffffffff);
    rd_assert_stuck(p, 0, 1000000);

    p = rd_migrate(p, tmpdir);
    rd_assert_stuck(p, 0, 1000000);
    g_assert_cmphex(rd_dev_pixel(p, &dst, 3, 3), ==, 0x1234);
    qtest_writeq(p->v.qts, p->vram.addr + RD_SEM, 2);
    qtest_clock_step(p->v.qts, 100000);
    pg_finish(p);
    /* The FILL_RECT used the DST bound before the move. */
    g_assert_cmphex(rd_dev_pixel(p, &dst, 3, 3), ==, 0xffff);
    g_assert_cmphex(rd_dev_pixel(p, &dst, 0, 0), ==, 0xffff);
    g_assert_cmphex(vram_readq(p, RD_FENCE2), ==, 2);

    rd_stop(p);
    g_rmdir(tmpdir);
}

/* Faults */

/* A surface that binds: 16 x 8 ARGB8888 at RD_VMEM */
static void rd_bind_dst(Pg *p)
{
    rd_set_surface(p, VDXG_SLOT_DST, RD_VMEM, VDXG_FMT_ARGB8888, 16, 8, 64);
}

static void rd_bind_src(Pg *p)
{
    rd_set_surface(p, VDXG_SLOT_SRC, RD_VMEM + 0x1000, VDXG_FMT_RGB565, 16,
                   8, 32);
}

/* The command about to be emitted is expected to fault. */
static uint32_t rd_here(Pg *p, uint32_t op)
{
    p->want_opcode = op;
    p->want_addr = pb_off(p);
    p->want_context = PG_CONTEXT;
    return pb_off(p);
}

/* Queue the buffer; the fault is at the command marked by rd_here. */
static void rd_fault_queue(Pg *p)
{
    pb_queue(p);
    p->want_addr += p->buf_gpu;
}

/* ... or at this address (ADDRESS faults) */
static void rd_fault_queue_addr(Pg *p, uint64_t addr)
{
    pb_queue(p);
    p->want_addr = addr;
}

/* One bad SET_SURFACE */
static void rd_bad_surface(Pg *p, uint32_t slot, uint64_t addr,
                           uint32_t format, uint32_t w, uint32_t h,
                           uint32_t pitch)
{
    rd_here(p, VDXG_RD_SET_SURFACE);
    rd_set_surface(p, slot, addr, format, w, h, pitch);
    rd_fault_queue(p);
}

static void rd_bad_surface_addr(Pg *p, uint32_t slot, uint64_t addr,
                                uint32_t format, uint32_t w, uint32_t h,
                                uint32_t pitch)
{
    rd_here(p, VDXG_RD_SET_SURFACE);
    rd_set_surface(p, slot, addr, format, w, h, pitch);
    rd_fault_queue_addr(p, addr);
}

/* A DRAW_TRIANGLES of one good triangle after DST (and more) are bound */
static void rd_bad_draw(Pg *p, uint32_t flags, uint32_t count, uint64_t vb)
{
    RdVtx v[6] = {
        { 0, 0, 1, 0xffffffff }, { PX(16), 0, 1, 0xffffffff },
        { 0, PX(8), 1, 0xffffffff },
        { 0, 0, 1, 0xffffffff }, { PX(16), 0, 1, 0xffffffff },
        { 0, PX(8), 1, 0xffffffff },
    };
    uint32_t dw[6 * 8];

    rd_put_vertices(p, RD_VB, v, 6, dw);
    rd_here(p, VDXG_RD_DRAW_TRIANGLES);
    rd_draw(p, flags, count, vb);
    rd_fault_queue(p);
}

static void build_rd_opcode(Pg *p)
{
    rd_nop(p);
    rd_here(p, VDXG_RD_NUM_OPS);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_NUM_OPS, 1));
    rd_fault_queue(p);
}

static void build_rd_opcode_ff(Pg *p)
{
    rd_here(p, 0xff);
    pb_dw(p, VDXG_PG_HDR(0xff, 5));
    pb_qw(p, RD_FENCE2);
    pb_qw(p, 1);
    rd_fault_queue(p);
}

static void build_rd_header_reserved(Pg *p)
{
    rd_here(p, 0x8000 | VDXG_RD_FENCE);
    rd_fence(p, RD_FENCE2, 7);
    p->buf[p->used - 5] |= 0x8000;
    rd_fault_queue(p);
}

static void build_rd_zero_length(Pg *p)
{
    rd_here(p, VDXG_RD_NOP);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_NOP, 0));
    rd_nop(p);
    rd_fault_queue(p);
}

static void build_rd_nop_length(Pg *p)
{
    rd_here(p, VDXG_RD_NOP);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_NOP, 2));
    pb_dw(p, 0);
    rd_fault_queue(p);
}

static void build_rd_fill_length(Pg *p)
{
    rd_bind_dst(p);
    rd_here(p, VDXG_RD_FILL_RECT);
    rd_fill(p, 0, 0, 1, 1, 0);
    p->buf[p->used - 4] = VDXG_PG_HDR(VDXG_RD_FILL_RECT, 5);
    pb_dw(p, 0);
    rd_fault_queue(p);
}

static void build_rd_blend_length(Pg *p)
{
    rd_here(p, VDXG_RD_BLEND);
    rd_copy(p, 0, 0, 0, 0, 1, 1);
    p->buf[p->used - 4] = VDXG_PG_HDR(VDXG_RD_BLEND, 4);
    rd_fault_queue(p);
}

static void build_rd_surface_length(Pg *p)
{
    rd_here(p, VDXG_RD_SET_SURFACE);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_SET_SURFACE, 7));
    pb_dw(p, 0);
    pb_qw(p, RD_VMEM);
    pb_dw(p, VDXG_FMT_XRGB8888);
    pb_dw(p, 1);
    pb_dw(p, 1);
    rd_fault_queue(p);
}

static void build_rd_past_end(Pg *p)
{
    rd_here(p, VDXG_RD_DRAW_TRIANGLES);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_DRAW_TRIANGLES, 5));
    pb_dw(p, 0);
    pb_dw(p, 3);
    rd_fault_queue(p);
}

static void build_rd_slot(Pg *p)
{
    rd_bad_surface(p, VDXG_NUM_SLOTS, RD_VMEM, VDXG_FMT_XRGB8888, 1, 1, 4);
}

static void build_rd_slot_reserved(Pg *p)
{
    rd_bad_surface(p, VDXG_SLOT_DST | BIT(31), RD_VMEM, VDXG_FMT_XRGB8888,
                   1, 1, 4);
}

static void build_rd_format_0(Pg *p)
{
    rd_bad_surface(p, VDXG_SLOT_DST, RD_VMEM, 0, 1, 1, 4);
}

static void build_rd_format_5(Pg *p)
{
    rd_bad_surface(p, VDXG_SLOT_SRC, RD_VMEM, VDXG_NUM_FMTS, 1, 1, 4);
}

static void build_rd_width_0(Pg *p)
{
    rd_bad_surface(p, VDXG_SLOT_DST, RD_VMEM, VDXG_FMT_XRGB8888, 0, 1, 4);
}

static void build_rd_width_max(Pg *p)
{
    rd_bad_surface(p, VDXG_SLOT_DST, RD_VMEM, VDXG_FMT_RGB565,
                   VDXG_SURF_MAX_DIM + 1, 1, 32768);
}

static void build_rd_height_0(Pg *p)
{
    rd_bad_surface(p, VDXG_SLOT_TEXTURE, RD_VMEM, VDXG_FMT_XRGB8888, 1, 0,
                   4);
}

static void build_rd_height_max(Pg *p)
{
    rd_bad_surface(p, VDXG_SLOT_DST, RD_VMEM, VDXG_FMT_XRGB8888, 1,
                   VDXG_SURF_MAX_DIM + 1, 4);
}

static void build_rd_pitch_unaligned(Pg *p)
{
    rd_bad_surface(p, VDXG_SLOT_DST, RD_VMEM, VDXG_FMT_RGB565, 3, 2, 6);
}

static void build_rd_pitch_small(Pg *p)
{
    rd_bad_surface(p, VDXG_SLOT_DST, RD_VMEM, VDXG_FMT_XRGB8888, 16, 2, 60);
}

static void build_rd_pitch_large(Pg *p)
{
    rd_bad_surface(p, VDXG_SLOT_SRC, RD_VMEM, VDXG_FMT_XRGB8888, 16, 2,
                   VDXG_SURF_MAX_PITCH + 4);
}

static void build_rd_surface_unaligned(Pg *p)
{
    rd_bad_surface(p, VDXG_SLOT_DST, RD_VMEM + 2, VDXG_FMT_ARGB8888, 1, 1,
                   4);
}

static void build_rd_surface_unaligned_565(Pg *p)
{
    rd_bad_surface(p, VDXG_SLOT_SRC, RD_VMEM + 1, VDXG_FMT_RGB565, 1, 1, 4);
}

static void build_rd_depth_colour(Pg *p)
{
    rd_bad_surface(p, VDXG_SLOT_DEPTH, RD_VMEM, VDXG_FMT_XRGB8888, 1, 1, 4);
}

static void build_rd_dst_d32(Pg *p)
{
    rd_bad_surface(p, VDXG_SLOT_DST, RD_VMEM, VDXG_FMT_D32, 1, 1, 4);
}

static void build_rd_texture_d32(Pg *p)
{
    rd_bad_surface(p, VDXG_SLOT_TEXTURE, RD_VMEM, VDXG_FMT_D32, 1, 1, 4);
}

static void build_rd_fill_no_dst(Pg *p)
{
    rd_bind_src(p);
    rd_here(p, VDXG_RD_FILL_RECT);
    rd_fill(p, 0, 0, 0, 0, 0);
    rd_fault_queue(p);
}

static void build_rd_copy_no_src(Pg *p)
{
    rd_bind_dst(p);
    rd_here(p, VDXG_RD_COPY_RECT);
    rd_copy(p, 0, 0, 0, 0, 1, 1);
    rd_fault_queue(p);
}

static void build_rd_copy_no_dst(Pg *p)
{
    rd_bind_src(p);
    rd_here(p, VDXG_RD_COPY_RECT);
    rd_copy(p, 0, 0, 0, 0, 1, 1);
    rd_fault_queue(p);
}

static void build_rd_blend_no_src(Pg *p)
{
    rd_bind_dst(p);
    rd_here(p, VDXG_RD_BLEND);
    rd_blend(p, 0, 0, 0, 0, 1, 1, 255);
    rd_fault_queue(p);
}

static void build_rd_blend_alpha(Pg *p)
{
    rd_bind_dst(p);
    rd_bind_src(p);
    rd_here(p, VDXG_RD_BLEND);
    rd_blend(p, 0, 0, 0, 0, 1, 1, 256);
    rd_fault_queue(p);
}

static void build_rd_draw_no_dst(Pg *p)
{
    rd_bad_draw(p, 0, 3, RD_VB);
}

static void build_rd_draw_no_texture(Pg *p)
{
    rd_bind_dst(p);
    rd_bind_src(p);
    rd_bad_draw(p, VDXG_DRAW_TEXTURE, 3, RD_VB);
}

static void build_rd_draw_no_depth(Pg *p)
{
    rd_bind_dst(p);
    rd_bad_draw(p, VDXG_DRAW_DEPTH_TEST, 3, RD_VB);
}

static void build_rd_draw_no_depth_write(Pg *p)
{
    rd_bind_dst(p);
    rd_bad_draw(p, VDXG_DRAW_DEPTH_WRITE, 3, RD_VB);
}

static void build_rd_draw_flags(Pg *p)
{
    rd_bind_dst(p);
    rd_bad_draw(p, BIT(4), 3, RD_VB);
}

static void build_rd_draw_bilinear(Pg *p)
{
    rd_bind_dst(p);
    rd_set_surface(p, VDXG_SLOT_TEXTURE, RD_VMEM, VDXG_FMT_XRGB8888, 1, 1, 4);
    rd_bad_draw(p, VDXG_DRAW_BILINEAR, 3, RD_VB);
}

static void build_rd_draw_count_0(Pg *p)
{
    rd_bind_dst(p);
    rd_bad_draw(p, 0, 0, RD_VB);
}

static void build_rd_draw_count_4(Pg *p)
{
    rd_bind_dst(p);
    rd_bad_draw(p, 0, 4, RD_VB);
}

static void build_rd_draw_count_max(Pg *p)
{
    rd_bind_dst(p);
    rd_bad_draw(p, 0, VDXG_DRAW_MAX_VERTICES + 3, RD_VB);
}

static void build_rd_draw_vb_unaligned(Pg *p)
{
    rd_bind_dst(p);
    rd_bad_draw(p, 0, 3, RD_VB + 2);
}

/* The first triangle is drawn, the second has a vertex out of range. */
static void rd_bad_vertex(Pg *p, int32_t x, int32_t y)
{
    RdVtx v[6] = {
        { 0, 0, 1, 0xff0000ff }, { PX(16), 0, 1, 0xff0000ff },
        { 0, PX(8), 1, 0xff0000ff },
        { 0, 0, 1, 0xffffffff }, { x, y, 1, 0xffffffff },
        { 0, PX(8), 1, 0xffffffff },
    };
    uint32_t dw[6 * 8];

    rd_bind_dst(p);
    rd_put_vertices(p, RD_VB, v, 6, dw);
    rd_here(p, VDXG_RD_DRAW_TRIANGLES);
    rd_draw(p, 0, 6, RD_VB);
    rd_fault_queue(p);
    vram_writel(p, RD_VMEM, 0);
}

static void build_rd_vertex_x(Pg *p)
{
    rd_bad_vertex(p, VDXG_VTX_COORD_MAX + 1, 0);
}

static void build_rd_vertex_y(Pg *p)
{
    rd_bad_vertex(p, 5, -VDXG_VTX_COORD_MAX - 1);
}

static void build_rd_vertex_min(Pg *p)
{
    rd_bad_vertex(p, INT32_MIN, 0);
}

static void build_rd_fence_unaligned(Pg *p)
{
    rd_here(p, VDXG_RD_FENCE);
    rd_fence(p, RD_FENCE2 + 4, 1);
    rd_fault_queue(p);
}

static void build_rd_wait_unaligned(Pg *p)
{
    rd_here(p, VDXG_RD_WAIT);
    rd_wait(p, RD_SEM + 1, 0);
    rd_fault_queue(p);
}

static void build_rd_fill_outside_x(Pg *p)
{
    rd_bind_dst(p);
    rd_here(p, VDXG_RD_FILL_RECT);
    rd_fill(p, 10, 0, 7, 1, 0);
    rd_fault_queue(p);
}

static void build_rd_fill_outside_y(Pg *p)
{
    rd_bind_dst(p);
    rd_here(p, VDXG_RD_FILL_RECT);
    rd_fill(p, 0, 8, 16, 1, 0);
    rd_fault_queue(p);
}

static void build_rd_fill_empty_outside(Pg *p)
{
    rd_bind_dst(p);
    rd_here(p, VDXG_RD_FILL_RECT);
    rd_fill(p, 0xffff, 0, 0, 0, 0);
    rd_fault_queue(p);
}

static void build_rd_copy_src_outside(Pg *p)
{
    rd_bind_dst(p);
    rd_set_surface(p, VDXG_SLOT_SRC, RD_VMEM + 0x1000, VDXG_FMT_RGB565, 4,
                   4, 8);
    rd_here(p, VDXG_RD_COPY_RECT);
    rd_copy(p, 1, 0, 0, 0, 4, 1);
    rd_fault_queue(p);
}

static void build_rd_copy_dst_outside(Pg *p)
{
    rd_bind_dst(p);
    rd_bind_src(p);
    rd_here(p, VDXG_RD_COPY_RECT);
    rd_copy(p, 0, 0, 0, 1, 16, 8);
    rd_fault_queue(p);
}

static void build_rd_blend_outside(Pg *p)
{
    rd_bind_dst(p);
    rd_bind_src(p);
    rd_here(p, VDXG_RD_BLEND);
    rd_blend(p, 0, 0, 0xfff0, 0, 16, 1, 9);
    rd_fault_queue(p);
}

static void build_rd_depth_small(Pg *p)
{
    rd_bind_dst(p);
    rd_set_surface(p, VDXG_SLOT_DEPTH, RD_VMEM + 0x1000, VDXG_FMT_D32, 16, 7,
                   64);
    rd_bad_draw(p, VDXG_DRAW_DEPTH_TEST, 3, RD_VB);
}

static void build_rd_surface_hole(Pg *p)
{
    rd_bad_surface_addr(p, VDXG_SLOT_DST, GPU_HOLE, VDXG_FMT_XRGB8888, 1, 1,
                        4);
}

static void build_rd_surface_vram_end(Pg *p)
{
    /* One byte too many: pitch * (h - 1) + w * cpp */
    rd_bad_surface_addr(p, VDXG_SLOT_SRC, PG_VRAM_SIZE - 0x1000 - 64 + 4,
                        VDXG_FMT_ARGB8888, 16, 2, 0x1000);
}

static void build_rd_surface_aperture_end(Pg *p)
{
    rd_bad_surface_addr(p, VDXG_SLOT_TEXTURE,
                        APERTURE(PG_GART_ENTRIES) - 10, VDXG_FMT_RGB565, 3,
                        2, 8);
}

static void build_rd_surface_straddle(Pg *p)
{
    /* From the end of VRAM into the hole */
    rd_bad_surface_addr(p, VDXG_SLOT_DEPTH, PG_VRAM_SIZE - 8, VDXG_FMT_D32,
                        1, 2, 8);
}

static void build_rd_surface_wrap(Pg *p)
{
    rd_bad_surface_addr(p, VDXG_SLOT_DST, 0xfffffffffffffff0ull,
                        VDXG_FMT_XRGB8888, 8, 1, 32);
}

static void build_rd_vb_hole(Pg *p)
{
    rd_bind_dst(p);
    rd_bad_draw(p, 0, 3, GPU_HOLE);
    p->want_addr = GPU_HOLE;
}

static void build_rd_vb_vram_end(Pg *p)
{
    rd_bind_dst(p);
    rd_bad_draw(p, 0, 6, PG_VRAM_SIZE - 5 * VDXG_VERTEX_SIZE);
    p->want_addr = PG_VRAM_SIZE - 5 * VDXG_VERTEX_SIZE;
}

static void build_rd_fence_hole(Pg *p)
{
    rd_here(p, VDXG_RD_FENCE);
    rd_fence(p, GPU_HOLE, 1);
    rd_fault_queue_addr(p, GPU_HOLE);
}

static void build_rd_wait_hole(Pg *p)
{
    rd_here(p, VDXG_RD_WAIT);
    rd_wait(p, APERTURE(PG_GART_ENTRIES), 1);
    rd_fault_queue_addr(p, APERTURE(PG_GART_ENTRIES));
}

/* Aperture page 31 sends accesses to an address no bus decodes. */
static void rd_map_bus_hole(Pg *p)
{
    qtest_writeq(p->v.qts, p->vram.addr + PG_GART + 31 * 8,
                 BUS_HOLE | VDXG_GART_PTE_VALID);
    wr(&p->v, VDXG_REG_TLB_FLUSH, 1);
}

/* A FILL_RECT that reaches a page the system rejects, row 2 */
static void build_rd_bus_fill(Pg *p)
{
    uint64_t base = APERTURE(31) - 2 * 256;

    rd_map_bus_hole(p);
    rd_set_surface(p, VDXG_SLOT_DST, base, VDXG_FMT_XRGB8888, 64, 4, 256);
    rd_here(p, VDXG_RD_FILL_RECT);
    rd_fill(p, 3, 1, 5, 3, 0x12345678);
    rd_fault_queue_addr(p, base + 2 * 256 + 3 * 4);
}

/* A texture read the system rejects */
static void build_rd_bus_texture(Pg *p)
{
    rd_map_bus_hole(p);
    rd_bind_dst(p);
    rd_set_surface(p, VDXG_SLOT_TEXTURE, APERTURE(31) + 0x100,
                   VDXG_FMT_XRGB8888, 2, 2, 8);
    rd_bad_draw(p, VDXG_DRAW_TEXTURE, 3, RD_VB);
    p->want_addr = APERTURE(31) + 0x100;
}

/* A WAIT polling a page the system rejects */
static void build_rd_bus_wait(Pg *p)
{
    rd_map_bus_hole(p);
    rd_here(p, VDXG_RD_WAIT);
    rd_wait(p, APERTURE(31) + 0x18, 0);
    rd_fault_queue_addr(p, APERTURE(31) + 0x18);
}

/* Ring entries of the RENDER engine */
static void build_rd_ring_cmd(Pg *p)
{
    fault_at_entry(p, 0x5a5a0007, 4, PG_BUF, 0);
}

static void build_rd_exec_length(Pg *p)
{
    fault_at_entry(p, VDXG_RING_CMD_EXEC, 4 * 3 + 2, PG_BUF, 0);
}

static void build_rd_exec_outside(Pg *p)
{
    fault_at_entry(p, VDXG_RING_CMD_EXEC, 8, GPU_HOLE, 0);
    p->want_addr = GPU_HOLE;
}

static void build_rd_fence_writeback(Pg *p)
{
    rd_map_bus_hole(p);
    wr64(&p->v, EREG(p, VDXG_ENG_FENCE_ADDR_LO), APERTURE(31) + 8);
    rd_nop(p);
    pb_queue(p);
    p->want_opcode = VDXG_FAULT_OPCODE_RING | VDXG_RING_CMD_EXEC;
    p->want_addr = APERTURE(31) + 8;
    p->want_context = PG_CONTEXT;
}

static const PgFaultCase rd_fault_cases[] = {
    { "opcode", build_rd_opcode, VDXG_FAULT_OPCODE },
    { "opcode-ff", build_rd_opcode_ff, VDXG_FAULT_OPCODE },
    { "header-reserved", build_rd_header_reserved, VDXG_FAULT_OPCODE },
    { "zero-length", build_rd_zero_length, VDXG_FAULT_LENGTH },
    { "nop-length", build_rd_nop_length, VDXG_FAULT_LENGTH },
    { "fill-length", build_rd_fill_length, VDXG_FAULT_LENGTH },
    { "blend-length", build_rd_blend_length, VDXG_FAULT_LENGTH },
    { "set-surface-length", build_rd_surface_length, VDXG_FAULT_LENGTH },
    { "past-end", build_rd_past_end, VDXG_FAULT_LENGTH },
    { "slot", build_rd_slot, VDXG_FAULT_PARAM },
    { "slot-reserved", build_rd_slot_reserved, VDXG_FAULT_PARAM },
    { "format-0", build_rd_format_0, VDXG_FAULT_PARAM },
    { "format-5", build_rd_format_5, VDXG_FAULT_PARAM },
    { "width-0", build_rd_width_0, VDXG_FAULT_PARAM },
    { "width-max", build_rd_width_max, VDXG_FAULT_PARAM },
    { "height-0", build_rd_height_0, VDXG_FAULT_PARAM },
    { "height-max", build_rd_height_max, VDXG_FAULT_PARAM },
    { "pitch-unaligned", build_rd_pitch_unaligned, VDXG_FAULT_PARAM },
    { "pitch-small", build_rd_pitch_small, VDXG_FAULT_PARAM },
    { "pitch-large", build_rd_pitch_large, VDXG_FAULT_PARAM },
    { "surface-unaligned", build_rd_surface_unaligned, VDXG_FAULT_PARAM },
    { "surface-unaligned-565", build_rd_surface_unaligned_565,
      VDXG_FAULT_PARAM },
    { "depth-colour", build_rd_depth_colour, VDXG_FAULT_PARAM },
    { "dst-d32", build_rd_dst_d32, VDXG_FAULT_PARAM },
    { "texture-d32", build_rd_texture_d32, VDXG_FAULT_PARAM },
    { "fill-no-dst", build_rd_fill_no_dst, VDXG_FAULT_PARAM },
    { "copy-no-src", build_rd_copy_no_src, VDXG_FAULT_PARAM },
    { "copy-no-dst", build_rd_copy_no_dst, VDXG_FAULT_PARAM },
    { "blend-no-src", build_rd_blend_no_src, VDXG_FAULT_PARAM },
    { "blend-alpha", build_rd_blend_alpha, VDXG_FAULT_PARAM },
    { "draw-no-dst", build_rd_draw_no_dst, VDXG_FAULT_PARAM },
    { "draw-no-texture", build_rd_draw_no_texture, VDXG_FAULT_PARAM },
    { "draw-no-depth", build_rd_draw_no_depth, VDXG_FAULT_PARAM },
    { "draw-no-depth-write", build_rd_draw_no_depth_write,
      VDXG_FAULT_PARAM },
    { "draw-flags", build_rd_draw_flags, VDXG_FAULT_PARAM },
    { "draw-bilinear", build_rd_draw_bilinear, VDXG_FAULT_PARAM },
    { "draw-count-0", build_rd_draw_count_0, VDXG_FAULT_PARAM },
    { "draw-count-4", build_rd_draw_count_4, VDXG_FAULT_PARAM },
    { "draw-count-max", build_rd_draw_count_max, VDXG_FAULT_PARAM },
    { "draw-vb-unaligned", build_rd_draw_vb_unaligned, VDXG_FAULT_PARAM },
    { "vertex-x", build_rd_vertex_x, VDXG_FAULT_PARAM },
    { "vertex-y", build_rd_vertex_y, VDXG_FAULT_PARAM },
    { "vertex-min", build_rd_vertex_min, VDXG_FAULT_PARAM },
    { "fence-unaligned", build_rd_fence_unaligned, VDXG_FAULT_PARAM },
    { "wait-unaligned", build_rd_wait_unaligned, VDXG_FAULT_PARAM },
    { "fill-outside-x", build_rd_fill_outside_x, VDXG_FAULT_BOUNDS },
    { "fill-outside-y", build_rd_fill_outside_y, VDXG_FAULT_BOUNDS },
    { "fill-empty-outside", build_rd_fill_empty_outside, VDXG_FAULT_BOUNDS },
    { "copy-src-outside", build_rd_copy_src_outside, VDXG_FAULT_BOUNDS },
    { "copy-dst-outside", build_rd_copy_dst_outside, VDXG_FAULT_BOUNDS },
    { "blend-outside", build_rd_blend_outside, VDXG_FAULT_BOUNDS },
    { "depth-smaller", build_rd_depth_small, VDXG_FAULT_BOUNDS },
    { "surface-hole", build_rd_surface_hole, VDXG_FAULT_ADDRESS },
    { "surface-vram-end", build_rd_surface_vram_end, VDXG_FAULT_ADDRESS },
    { "surface-aperture-end", build_rd_surface_aperture_end,
      VDXG_FAULT_ADDRESS },
    { "surface-straddle", build_rd_surface_straddle, VDXG_FAULT_ADDRESS },
    { "surface-wrap", build_rd_surface_wrap, VDXG_FAULT_ADDRESS },
    { "vb-hole", build_rd_vb_hole, VDXG_FAULT_ADDRESS },
    { "vb-vram-end", build_rd_vb_vram_end, VDXG_FAULT_ADDRESS },
    { "fence-hole", build_rd_fence_hole, VDXG_FAULT_ADDRESS },
    { "wait-hole", build_rd_wait_hole, VDXG_FAULT_ADDRESS },
    { "bus-fill", build_rd_bus_fill, VDXG_FAULT_ADDRESS },
    { "bus-texture", build_rd_bus_texture, VDXG_FAULT_ADDRESS },
    { "bus-wait", build_rd_bus_wait, VDXG_FAULT_ADDRESS },
    { "ring-cmd", build_rd_ring_cmd, VDXG_FAULT_OPCODE },
    { "exec-length", build_rd_exec_length, VDXG_FAULT_LENGTH },
    { "exec-outside", build_rd_exec_outside, VDXG_FAULT_ADDRESS },
    { "fence-writeback", build_rd_fence_writeback, VDXG_FAULT_ADDRESS },
};

/*
 * One fault of the table: the record (FAULT_ENGINE 0, the reason, opcode,
 * address and context), HALTED, the FAULT interrupt, the work before the
 * faulting command done, recovery by an engine reset.
 */
static void test_rd_fault(const void *data)
{
    const PgFaultCase *c = data;
    Pg *p = rd_start();
    uint32_t scratch = rd(&p->v, VDXG_REG_SCRATCH);
    bool in_buffer;

    /* Something completes first, so FENCE_VALUE is not 0. */
    pb_reset(p);
    rd_nop(p);
    pb_run(p);
    g_assert_cmphex(rd64(&p->v, EREG(p, VDXG_ENG_FENCE_VALUE_LO)), ==, 1);

    /* Each buffer starts with a FENCE that takes effect before the fault */
    pb_reset(p);
    rd_fence(p, RD_FENCE2, 0xf00d);
    vram_writel(p, RD_VMEM, 0xabcdef);
    c->build(p);
    in_buffer = !(p->want_opcode & VDXG_FAULT_OPCODE_RING);
    ring_kick(p);
    g_assert_cmphex(pg_wait(p), ==, VDXG_ENG_STATUS_HALTED);
    g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_RING_HEAD)), ==,
                    (p->tail - 32) % PG_RING_SIZE);
    g_assert_cmphex(rd64(&p->v, EREG(p, VDXG_ENG_FENCE_VALUE_LO)), ==, 1);
    g_assert_cmphex(rd(&p->v, VDXG_REG_INT_STATUS) &
                    VDXG_INT_RENDER_FENCE, ==, VDXG_INT_RENDER_FENCE);
    if (in_buffer || c->build == build_rd_fence_writeback) {
        g_assert_cmphex(vram_readq(p, RD_FENCE2), ==, 0xf00d);
    } else {
        g_assert_cmphex(vram_readq(p, RD_FENCE2), ==, 0);
    }
    if (c->build == build_rd_vertex_x || c->build == build_rd_vertex_y ||
        c->build == build_rd_vertex_min) {
        /* The first triangle was drawn. */
        g_assert_cmphex(vram_readl(p, RD_VMEM), ==, 0xff0000ff);
    }
    pg_expect_fault(p, c->reason, p->want_opcode, p->want_addr,
                    p->want_context);
    g_assert_cmphex(rd(&p->v, VDXG_REG_SCRATCH), ==, scratch);
    g_assert_cmphex(rd(&p->v, VDXG_REG_ID), ==, VDXG_ID_MAGIC);
    /* The PAGING engine is unaffected. */
    g_assert_cmphex(rd(&p->v, ENG(VDXG_ENG_STATUS)), ==,
                    VDXG_ENG_STATUS_IDLE);
    rd_stop(p);
}

/* A fault of each engine: the record says which; they halt separately. */
static void test_rd_fault_engines(void)
{
    Pg *p = rd_start();

    pb_reset(p);
    rd_fence(p, RD_FENCE2 + 4, 0);
    pb_queue(p);
    ring_kick(p);
    g_assert_cmphex(pg_wait(p), ==, VDXG_ENG_STATUS_HALTED);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_ENGINE), ==,
                    VDXG_ENGINE_RENDER);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_REASON), ==, VDXG_FAULT_PARAM);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_CONTEXT), ==, PG_CONTEXT);

    /* The PAGING engine still runs, and its fault only counts. */
    p->eng = VDXG_ENGINE_PAGING;
    p->ring = PG_RING;
    p->fence = PG_FENCE;
    p->tail = 0;
    p->seqno = 0;
    pb_reset(p);
    emit_fence(p, PG_FENCE2, 0x99);
    pb_run(p);
    g_assert_cmphex(vram_readq(p, PG_FENCE2), ==, 0x99);
    pb_reset(p);
    emit_fence(p, PG_FENCE2 + 4, 0x99);
    pb_queue(p);
    ring_kick(p);
    g_assert_cmphex(pg_wait(p), ==, VDXG_ENG_STATUS_HALTED);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_COUNT), ==, 2);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_ENGINE), ==,
                    VDXG_ENGINE_RENDER);
    g_assert_cmphex(rd(&p->v, VDXG_ENGINE_BASE(VDXG_ENGINE_RENDER) +
                       VDXG_ENG_STATUS), ==, VDXG_ENG_STATUS_HALTED);

    /* A bad RENDER ring faults at once, as engine 0 */
    wr(&p->v, VDXG_REG_FAULT_CLEAR, 1);
    wr(&p->v, VDXG_ENGINE_BASE(VDXG_ENGINE_RENDER) + VDXG_ENG_RESET, 1);
    wr(&p->v, VDXG_ENGINE_BASE(VDXG_ENGINE_RENDER) + VDXG_ENG_RING_SIZE,
       0x3000);
    wr(&p->v, VDXG_ENGINE_BASE(VDXG_ENGINE_RENDER) + VDXG_ENG_CTRL,
       VDXG_ENG_CTRL_ENABLE);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==,
                    VDXG_FAULT_STATUS_VALID);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_ENGINE), ==,
                    VDXG_ENGINE_RENDER);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_REASON), ==, VDXG_FAULT_RING);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_OPCODE), ==,
                    VDXG_FAULT_OPCODE_RING);
    g_assert_cmphex(rd(&p->v, VDXG_ENGINE_BASE(VDXG_ENGINE_RENDER) +
                       VDXG_ENG_STATUS) & VDXG_ENG_STATUS_HALTED, ==,
                    VDXG_ENG_STATUS_HALTED);
    rd_stop(p);
}

/* Random DMA buffers, well formed or not: QEMU survives, faults are sane */
static void test_rd_fuzz(void)
{
    g_autoptr(GRand) rnd = g_rand_new_with_seed(1234);
    Pg *p = rd_start();
    uint32_t status, faults = 0, round, i, n, op;
    RdVtx v[30];
    uint32_t dw[30 * 8];

    for (round = 0; round < 200; round++) {
        RdSurf dst;

        rd_surf(p, &dst, RD_VMEM, VDXG_FMT_XRGB8888, 64, 64, 256);
        for (i = 0; i < ARRAY_SIZE(v); i++) {
            v[i] = rd_random_vertex(rnd, &dst, true);
            if (g_rand_int_range(rnd, 0, 40) == 0) {
                v[i].x = g_rand_int(rnd);
            }
        }
        rd_put_vertices(p, RD_VB, v, ARRAY_SIZE(v), dw);
        pb_reset(p);
        for (n = g_rand_int_range(rnd, 1, 10); n > 0; n--) {
            op = g_rand_int_range(rnd, 0, VDXG_RD_NUM_OPS + 1);
            switch (op) {
            case VDXG_RD_SET_SURFACE:
                rd_set_surface(p, g_rand_int_range(rnd, 0, 5),
                               g_rand_boolean(rnd) ? RD_VMEM + 4 *
                               g_rand_int_range(rnd, 0, 64) :
                               fuzz_value(p, false),
                               g_rand_int_range(rnd, 0, 6),
                               g_rand_int_range(rnd, 0, 80),
                               g_rand_int_range(rnd, 0, 80),
                               4 * g_rand_int_range(rnd, 0, 100));
                break;
            case VDXG_RD_FILL_RECT:
                rd_fill(p, g_rand_int_range(rnd, 0, 70),
                        g_rand_int_range(rnd, 0, 70),
                        g_rand_int_range(rnd, 0, 70),
                        g_rand_int_range(rnd, 0, 70), g_rand_int(rnd));
                break;
            case VDXG_RD_COPY_RECT:
            case VDXG_RD_BLEND:
                rd_blend(p, g_rand_int_range(rnd, 0, 70),
                         g_rand_int_range(rnd, 0, 70),
                         g_rand_int_range(rnd, 0, 70),
                         g_rand_int_range(rnd, 0, 70),
                         g_rand_int_range(rnd, 0, 70),
                         g_rand_int_range(rnd, 0, 70),
                         g_rand_int_range(rnd, 0, 300));
                if (op == VDXG_RD_COPY_RECT) {
                    p->buf[p->used - 5] =
                        VDXG_PG_HDR(VDXG_RD_COPY_RECT, VDXG_RD_COPY_RECT_LEN);
                    p->used--;
                }
                break;
            case VDXG_RD_DRAW_TRIANGLES:
                rd_draw(p, g_rand_int_range(rnd, 0, 32),
                        3 * g_rand_int_range(rnd, 0, 11),
                        g_rand_int_range(rnd, 0, 8) ? RD_VB :
                        fuzz_value(p, false));
                break;
            case VDXG_RD_FENCE:
                rd_fence(p, g_rand_boolean(rnd) ? RD_FENCE2 :
                         fuzz_value(p, false), round);
                break;
            case VDXG_RD_WAIT:
                /* Satisfied, or a bad address */
                rd_wait(p, g_rand_boolean(rnd) ? RD_FENCE2 :
                        fuzz_value(p, false) & ~7ull, 0);
                break;
            case VDXG_RD_NOP:
                rd_nop(p);
                break;
            default:
                for (i = g_rand_int_range(rnd, 0, 6); i > 0; i--) {
                    pb_dw(p, g_rand_int(rnd));
                }
                break;
            }
            if (g_rand_int_range(rnd, 0, 10) == 0 && p->used) {
                p->buf[g_rand_int_range(rnd, 0, p->used)] ^=
                    1u << g_rand_int_range(rnd, 0, 32);
            }
        }
        pb_queue_at(p, PG_BUF, round);
        ring_kick(p);
        /* A WAIT may have been damaged into a real wait: end it. */
        status = pg_wait_clock(p);
        if (status & VDXG_ENG_STATUS_HALTED) {
            faults++;
            g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==,
                            VDXG_FAULT_STATUS_VALID);
            g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_ENGINE), ==,
                            VDXG_ENGINE_RENDER);
            g_assert_cmpuint(rd(&p->v, VDXG_REG_FAULT_REASON), >=,
                             VDXG_FAULT_ADDRESS);
            g_assert_cmpuint(rd(&p->v, VDXG_REG_FAULT_REASON), <=,
                             VDXG_FAULT_PARAM);
            g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_CONTEXT), ==, round);
        } else if (!(status & VDXG_ENG_STATUS_IDLE)) {
            /* Still waiting: reset */
        } else {
            g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==, 0);
            g_assert_cmphex(rd64(&p->v, EREG(p, VDXG_ENG_FENCE_VALUE_LO)),
                            ==, p->seqno);
            continue;
        }
        wr(&p->v, EREG(p, VDXG_ENG_RESET), 1);
        wr(&p->v, VDXG_REG_FAULT_CLEAR, 1);
        pg_engine_setup(p);
    }
    g_test_message("%u of 200 rounds faulted", faults);
    g_assert_cmpuint(faults, >, 0);
    g_assert_cmpuint(faults, <, 200);
    g_assert_cmphex(rd(&p->v, VDXG_REG_ID), ==, VDXG_ID_MAGIC);
    rd_recover_check(p);
    rd_stop(p);
}

/* Display engine */

/* VRAM layout of the display tests (the paging layout below 1 MiB) */
#define DP_FB(n)            (0x200000ull + (uint64_t)(n) * 0x100000)
#define DP_BIG              0x1000000ull    /* 4 MiB: a 1024x768 frame */
#define DP_WB               0x1400000ull    /* 4 MiB: writeback target */
#define DP_WB_SIZE          (4 * MiB)
#define DP_SYS_PAGE         2000            /* first system page used */

#define CR(c, reg)          (VDXG_CRTC_BASE(c) + (reg))
#define PL(c, p, reg)       (VDXG_PLANE_BASE(c, p) + (reg))
#define PRIMARY             VDXG_PLANE_IDX_PRIMARY
#define OVERLAY             VDXG_PLANE_IDX_OVERLAY
#define CURSOR              VDXG_PLANE_IDX_CURSOR

#define XR24                VDXG_FOURCC_XRGB8888
#define AR24                VDXG_FOURCC_ARGB8888
#define XB24                VDXG_FOURCC_XBGR8888
#define RG16                VDXG_FOURCC_RGB565

#define BLEND(m)            ((m) << VDXG_PLANE_CTRL_BLEND_SHIFT)
#define PLANE_ON            VDXG_PLANE_CTRL_ENABLE

typedef struct DpMode {
    uint32_t hd, hss, hse, ht;
    uint32_t vd, vss, vse, vt;
    uint32_t clock;             /* kHz */
} DpMode;

/* 1024x768@60 and 640x480@60 (DMT) */
static const DpMode dp_1024 = {
    1024, 1048, 1184, 1344, 768, 771, 777, 806, 65000,
};
static const DpMode dp_640 = {
    640, 656, 752, 800, 480, 490, 492, 525, 25175,
};
/* Small modes at exactly 60 Hz for pixel tests: 192 x 125 and 80 x 50 */
static const DpMode dp_small = {
    160, 168, 176, 192, 120, 122, 124, 125, 1440,
};
static const DpMode dp_tiny = {
    64, 64, 64, 80, 48, 48, 48, 50, 240,
};

/* A plane's registers as a test programs them */
typedef struct DpPlane {
    uint32_t ctrl;
    uint64_t addr;
    uint32_t fmt;
    uint32_t pitch;
    uint32_t w, h;
    int x, y;
    uint32_t alpha;
    uint32_t zpos;
    const uint8_t *data;        /* the test's copy of its memory */
} DpPlane;

typedef struct Dp {
    Pg *p;
    Vdxg *v;
    QTestState *qts;
    int64_t now;                /* the virtual clock: only dp_step moves it */
    int64_t t0[VDXG_MAX_CRTCS];
    DpMode mode[VDXG_MAX_CRTCS];
    char *tmpdir;               /* for screendumps */
} Dp;

static Dp *dp_start(const char *extra)
{
    Dp *d = g_new0(Dp, 1);

    d->p = pg_start(extra);
    d->v = &d->p->v;
    d->qts = d->v->qts;
    /* Start away from 0 so that offsets show up */
    d->now = qtest_clock_step(d->qts, 12345678);
    return d;
}

static void dp_stop(Dp *d)
{
    if (d->tmpdir) {
        g_rmdir(d->tmpdir);
        g_free(d->tmpdir);
    }
    pg_stop(d->p);
    g_free(d);
}

/* The virtual clock, which qtest cannot read without moving it */
static int64_t dp_now(Dp *d)
{
    return d->now;
}

static void dp_step(Dp *d, int64_t ns)
{
    if (ns > 0) {
        d->now = qtest_clock_step(d->qts, ns);
    }
}

static void dp_step_to(Dp *d, int64_t t)
{
    g_assert_cmpint(t, >=, d->now);
    dp_step(d, t - d->now);
    g_assert_cmpint(d->now, ==, t);
}

/* ns from the enable to the start of line @line, the contract's formula */
static uint64_t dp_line_ns(const DpMode *m, uint64_t line)
{
    return (unsigned __int128)line * m->ht * 1000000 / m->clock;
}

static uint64_t dp_frame_ns(const DpMode *m)
{
    return dp_line_ns(m, m->vt);
}

/* Virtual time of vblank k >= 1 of CRTC @c */
static int64_t dp_vblank_time(Dp *d, int c, uint64_t k)
{
    const DpMode *m = &d->mode[c];

    return d->t0[c] + dp_line_ns(m, (k - 1) * m->vt + m->vd);
}

static void dp_set_mode(Dp *d, int c, const DpMode *m)
{
    wr(d->v, CR(c, VDXG_CRTC_HDISPLAY), m->hd);
    wr(d->v, CR(c, VDXG_CRTC_HSYNC_START), m->hss);
    wr(d->v, CR(c, VDXG_CRTC_HSYNC_END), m->hse);
    wr(d->v, CR(c, VDXG_CRTC_HTOTAL), m->ht);
    wr(d->v, CR(c, VDXG_CRTC_VDISPLAY), m->vd);
    wr(d->v, CR(c, VDXG_CRTC_VSYNC_START), m->vss);
    wr(d->v, CR(c, VDXG_CRTC_VSYNC_END), m->vse);
    wr(d->v, CR(c, VDXG_CRTC_VTOTAL), m->vt);
    wr(d->v, CR(c, VDXG_CRTC_CLOCK_KHZ), m->clock);
}

/* Program @m and enable CRTC @c with the other CTRL bits @ctrl. */
static void dp_enable(Dp *d, int c, const DpMode *m, uint32_t ctrl)
{
    dp_set_mode(d, c, m);
    d->mode[c] = *m;
    d->t0[c] = dp_now(d);
    wr(d->v, CR(c, VDXG_CRTC_CTRL), VDXG_CRTC_CTRL_ENABLE | ctrl);
    g_assert_cmphex(rd(d->v, CR(c, VDXG_CRTC_CTRL)), ==,
                    VDXG_CRTC_CTRL_ENABLE | ctrl);
    g_assert_cmphex(rd(d->v, CR(c, VDXG_CRTC_STATUS)) &
                    (VDXG_CRTC_STATUS_ACTIVE |
                     VDXG_CRTC_STATUS_MODE_INVALID), ==,
                    VDXG_CRTC_STATUS_ACTIVE);
    g_assert_cmpuint(rd(d->v, CR(c, VDXG_CRTC_FRAME_COUNT)), ==, 0);
}

/* Step the clock to CRTC @c's next vblank; returns its FRAME_COUNT. */
static uint32_t dp_next_vblank(Dp *d, int c)
{
    uint32_t k = rd(d->v, CR(c, VDXG_CRTC_FRAME_COUNT)) + 1;

    dp_step_to(d, dp_vblank_time(d, c, k));
    g_assert_cmpuint(rd(d->v, CR(c, VDXG_CRTC_FRAME_COUNT)), ==, k);
    return k;
}

static void dp_plane(Dp *d, int c, int p, const DpPlane *pl)
{
    wr(d->v, PL(c, p, VDXG_PLANE_CTRL), pl->ctrl);
    wr64(d->v, PL(c, p, VDXG_PLANE_ADDR_LO), pl->addr);
    wr(d->v, PL(c, p, VDXG_PLANE_FORMAT), pl->fmt);
    wr(d->v, PL(c, p, VDXG_PLANE_PITCH), pl->pitch);
    wr(d->v, PL(c, p, VDXG_PLANE_SRC_SIZE), VDXG_PLANE_SIZE_WH(pl->w, pl->h));
    wr(d->v, PL(c, p, VDXG_PLANE_DST_POS), VDXG_PLANE_POS_XY(pl->x, pl->y));
    wr(d->v, PL(c, p, VDXG_PLANE_ALPHA), pl->alpha);
    wr(d->v, PL(c, p, VDXG_PLANE_ZPOS), pl->zpos);
}

/* Write FLIP and step to the vblank that latches it: FLIP_DONE is raised. */
static uint32_t dp_flip(Dp *d, int c)
{
    uint32_t k;

    wr(d->v, VDXG_REG_INT_ACK, VDXG_INT_FLIP_DONE(c));
    wr(d->v, CR(c, VDXG_CRTC_FLIP), 1);
    g_assert_cmphex(rd(d->v, CR(c, VDXG_CRTC_STATUS)) &
                    VDXG_CRTC_STATUS_FLIP_PENDING, ==,
                    VDXG_CRTC_STATUS_FLIP_PENDING);
    k = dp_next_vblank(d, c);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS) & VDXG_INT_FLIP_DONE(c),
                    ==, VDXG_INT_FLIP_DONE(c));
    g_assert_cmphex(rd(d->v, CR(c, VDXG_CRTC_STATUS)) &
                    VDXG_CRTC_STATUS_FLIP_PENDING, ==, 0);
    wr(d->v, VDXG_REG_INT_ACK, VDXG_INT_FLIP_DONE(c));
    return k;
}

static uint32_t dp_cpp(uint32_t fmt)
{
    return fmt == RG16 ? 2 : 4;
}

/* Deterministic pixels: @len bytes of stream @seed */
static uint8_t *dp_pattern(size_t len, uint32_t seed)
{
    g_autoptr(GRand) rnd = g_rand_new_with_seed(seed);
    uint8_t *buf = g_malloc(len);
    size_t i;

    for (i = 0; i < len; i++) {
        buf[i] = g_rand_int(rnd);
    }
    return buf;
}

/* Fill @pl's memory with @data (pitch * h bytes), in VRAM or the system */
static void dp_put(Dp *d, DpPlane *pl, const uint8_t *data)
{
    pl->data = data;
    vram_write(d->p, pl->addr, data, (size_t)pl->pitch * pl->h);
}

/* A plane of @w x @h at (@x, @y) with random content */
static DpPlane dp_rand_plane(Dp *d, uint64_t addr, uint32_t fmt, uint32_t w,
                             uint32_t h, int x, int y, uint32_t seed)
{
    DpPlane pl = {
        .ctrl = PLANE_ON, .addr = addr, .fmt = fmt,
        .pitch = w * dp_cpp(fmt) + 8 * (seed % 3), .w = w, .h = h,
        .x = x, .y = y, .alpha = 0xffff,
    };

    dp_put(d, &pl, dp_pattern((size_t)pl.pitch * h, seed));
    return pl;
}

/* A solid plane of one XRGB/ARGB value */
static DpPlane dp_solid_plane(Dp *d, uint64_t addr, uint32_t fmt,
                              uint32_t argb, uint32_t w, uint32_t h, int x,
                              int y)
{
    DpPlane pl = {
        .ctrl = PLANE_ON, .addr = addr, .fmt = fmt, .pitch = w * 4,
        .w = w, .h = h, .x = x, .y = y, .alpha = 0xffff,
    };
    uint8_t *buf = g_malloc((size_t)w * h * 4);
    size_t i;

    for (i = 0; i < (size_t)w * h; i++) {
        stl_le_p(buf + i * 4, argb);
    }
    dp_put(d, &pl, buf);
    return pl;
}

/* Reference model: the contract's composition, pixel by pixel */

static uint32_t ref_fetch(const DpPlane *pl, uint32_t sx, uint32_t sy)
{
    const uint8_t *px = pl->data + (size_t)sy * pl->pitch +
                        sx * dp_cpp(pl->fmt);
    uint32_t v, r, g, b;

    switch (pl->fmt) {
    case XR24:
        return ldl_le_p(px) | 0xff000000u;
    case AR24:
        return ldl_le_p(px);
    case XB24:
        v = ldl_le_p(px);
        return 0xff000000u | (v & 0xff) << 16 | ((v >> 8) & 0xff) << 8 |
               ((v >> 16) & 0xff);
    default:
        v = lduw_le_p(px);
        r = v >> 11;
        g = (v >> 5) & 0x3f;
        b = v & 0x1f;
        return 0xff000000u | ((r << 3) | (r >> 2)) << 16 |
               ((g << 2) | (g >> 4)) << 8 | ((b << 3) | (b >> 2));
    }
}

static uint32_t ref_round(uint64_t v)
{
    return (v + 32767) / 65535;
}

/* DRM's blend formulas with the contract's 16-bit rounding */
static uint32_t ref_blend(uint32_t fg, uint32_t bg, uint32_t mode,
                          uint32_t plane_alpha)
{
    uint64_t a16 = (uint64_t)(fg >> 24) * 257;
    uint64_t cov = ref_round(plane_alpha * a16);
    uint32_t out = 0;
    int shift;

    for (shift = 0; shift <= 16; shift += 8) {
        uint64_t f = (fg >> shift) & 0xff, b = (bg >> shift) & 0xff;
        uint64_t v;

        if (mode == VDXG_BLEND_NONE) {
            v = ref_round(f * plane_alpha + b * (65535 - plane_alpha));
        } else if (mode == VDXG_BLEND_PREMULTI) {
            v = ref_round(f * plane_alpha + b * (65535 - cov));
            v = v > 255 ? 255 : v;
        } else {
            v = ref_round(f * cov + b * (65535 - cov));
        }
        out |= v << shift;
    }
    return out;
}

/* Compose @n planes (in index order) over @bg into @out (w x h XRGB, X 0) */
static void ref_compose(const DpMode *m, uint32_t bg, const DpPlane *planes,
                        int n, uint32_t *out)
{
    int order[3], i, j, x, y;

    for (i = 0; i < n; i++) {
        order[i] = i;
    }
    /* Stable: equal ZPOS keeps plane order */
    for (i = 1; i < n; i++) {
        for (j = i; j > 0 &&
             planes[order[j - 1]].zpos > planes[order[j]].zpos; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    }
    for (y = 0; y < m->vd; y++) {
        for (x = 0; x < m->hd; x++) {
            uint32_t px = bg & 0xffffff;

            for (i = 0; i < n; i++) {
                const DpPlane *pl = &planes[order[i]];
                bool rot = pl->ctrl & VDXG_PLANE_CTRL_ROT_180;
                bool fx = rot ^ !!(pl->ctrl & VDXG_PLANE_CTRL_REFLECT_X);
                bool fy = rot ^ !!(pl->ctrl & VDXG_PLANE_CTRL_REFLECT_Y);
                int u = x - pl->x, v = y - pl->y;
                uint32_t fg;

                if (!(pl->ctrl & PLANE_ON) || u < 0 || v < 0 ||
                    u >= (int)pl->w || v >= (int)pl->h) {
                    continue;
                }
                fg = ref_fetch(pl, fx ? pl->w - 1 - u : u,
                               fy ? pl->h - 1 - v : v);
                px = ref_blend(fg, px, (pl->ctrl >> 4) & 3, pl->alpha);
            }
            out[y * m->hd + x] = px;
        }
    }
}

/* CRC-32/ISO-HDLC, bit by bit */
static uint32_t ref_crc32(uint32_t crc, const uint8_t *buf, size_t len)
{
    size_t i;
    int b;

    crc = ~crc;
    for (i = 0; i < len; i++) {
        crc ^= buf[i];
        for (b = 0; b < 8; b++) {
            crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
        }
    }
    return ~crc;
}

/* The contract's CRC of a composed frame: XRGB8888 LE with X = 0 */
static uint32_t ref_frame_crc(const uint32_t *frame, size_t pixels)
{
    g_autofree uint8_t *bytes = g_malloc(pixels * 4);
    size_t i;

    for (i = 0; i < pixels; i++) {
        stl_le_p(bytes + i * 4, frame[i] & 0xffffff);
    }
    return ref_crc32(0, bytes, pixels * 4);
}

/*
 * Arm the writeback unit on CRTC @c (format @fmt, @pitch bytes, at
 * @addr), step to the next vblank and check the capture completed.
 */
static void dp_wb_run(Dp *d, int c, uint32_t fmt, uint64_t addr,
                      uint32_t pitch)
{
    uint32_t seqno = rd(d->v, VDXG_REG_WB_SEQNO), k;

    wr64(d->v, VDXG_REG_WB_ADDR_LO, addr);
    wr(d->v, VDXG_REG_WB_FORMAT, fmt);
    wr(d->v, VDXG_REG_WB_PITCH, pitch);
    wr(d->v, VDXG_REG_INT_ACK, VDXG_INT_WRITEBACK);
    wr(d->v, VDXG_REG_WB_CTRL, VDXG_WB_CTRL_ENABLE |
       c << VDXG_WB_CTRL_CRTC_SHIFT);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_STATUS), ==, VDXG_WB_STATUS_BUSY);
    k = dp_next_vblank(d, c);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_STATUS), ==, VDXG_WB_STATUS_DONE);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_CTRL), ==,
                    c << VDXG_WB_CTRL_CRTC_SHIFT);
    g_assert_cmpuint(rd(d->v, VDXG_REG_WB_SEQNO), ==, seqno + 1);
    g_assert_cmpuint(rd(d->v, VDXG_REG_WB_FRAME), ==, k);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS) & VDXG_INT_WRITEBACK, ==,
                    VDXG_INT_WRITEBACK);
    wr(d->v, VDXG_REG_INT_ACK, VDXG_INT_WRITEBACK);
}

/* Capture CRTC @c's next frame as XRGB8888 into @out (hd x vd) */
static void dp_capture(Dp *d, int c, uint32_t *out)
{
    const DpMode *m = &d->mode[c];
    size_t n = (size_t)m->hd * m->vd, i;
    g_autofree uint8_t *buf = g_malloc(n * 4);

    dp_wb_run(d, c, XR24, DP_WB, m->hd * 4);
    vram_read(d->p, DP_WB, buf, n * 4);
    for (i = 0; i < n; i++) {
        out[i] = ldl_le_p(buf + i * 4);
        /* XRGB8888 writeback: the X byte is 0xff */
        g_assert_cmphex(out[i] >> 24, ==, 0xff);
        out[i] &= 0xffffff;
    }
}

/* The next frame of CRTC @c equals the reference composition */
static void dp_check_frame(Dp *d, int c, uint32_t bg, const DpPlane *planes,
                           int n)
{
    const DpMode *m = &d->mode[c];
    size_t px = (size_t)m->hd * m->vd, i;
    g_autofree uint32_t *want = g_new(uint32_t, px);
    g_autofree uint32_t *got = g_new(uint32_t, px);

    ref_compose(m, bg, planes, n, want);
    dp_capture(d, c, got);
    for (i = 0; i < px; i++) {
        if (got[i] != want[i]) {
            g_test_message("pixel (%zu, %zu): got 0x%06x, want 0x%06x",
                           i % m->hd, i / m->hd, got[i], want[i]);
        }
        g_assert_cmphex(got[i], ==, want[i]);
    }
}

/* The display fault record, then clear it */
static void dp_assert_fault(Dp *d, int c, uint32_t unit, uint32_t reason,
                            uint64_t addr)
{
    g_assert_cmphex(rd(d->v, VDXG_REG_FAULT_STATUS), ==,
                    VDXG_FAULT_STATUS_VALID);
    g_assert_cmphex(rd(d->v, VDXG_REG_FAULT_ENGINE), ==,
                    VDXG_FAULT_ENGINE_DISPLAY);
    g_assert_cmphex(rd(d->v, VDXG_REG_FAULT_REASON), ==, reason);
    g_assert_cmphex(rd(d->v, VDXG_REG_FAULT_OPCODE), ==,
                    VDXG_FAULT_OPCODE_DISPLAY(c, unit));
    g_assert_cmphex(rd64(d->v, VDXG_REG_FAULT_ADDR_LO), ==, addr);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS) & VDXG_INT_FAULT, ==,
                    VDXG_INT_FAULT);
    wr(d->v, VDXG_REG_FAULT_CLEAR, 1);
    wr(d->v, VDXG_REG_INT_ACK, VDXG_INT_FAULT);
}

static void dp_assert_no_fault(Dp *d)
{
    g_assert_cmphex(rd(d->v, VDXG_REG_FAULT_STATUS), ==, 0);
}

static uint64_t dp_qom_u64(Dp *d, const char *prop)
{
    return qom_get_u64(d->p, prop);
}

/* Registers: reset values, read-back, masks, the outputs property */
static void test_dp_registers(void)
{
    Dp *d = dp_start(NULL);
    int p;

    g_assert_cmpuint(rd(d->v, VDXG_REG_NUM_CRTCS), ==, 1);
    g_assert_cmphex(rd(d->v, VDXG_REG_CAPS) & (VDXG_CAP_DISPLAY |
                    VDXG_CAP_CRC | VDXG_CAP_WRITEBACK), ==,
                    VDXG_CAP_DISPLAY | VDXG_CAP_CRC | VDXG_CAP_WRITEBACK);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CTRL)), ==, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_STATUS)), ==, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT)), ==, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_SCANLINE)), ==, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CONN_STATUS)), ==,
                    VDXG_CONN_CONNECTED);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_EDID)), ==, 0xffffff00);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_STATUS), ==, 0);

    /* Mode and pending registers hold what is written. */
    dp_set_mode(d, 0, &dp_1024);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_HTOTAL)), ==, 1344);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_VSYNC_END)), ==, 777);
    wr(d->v, CR(0, VDXG_CRTC_BG_COLOR), 0xff123456);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_BG_COLOR)), ==, 0xff123456);
    for (p = 0; p < VDXG_NUM_PLANES; p++) {
        wr(d->v, PL(0, p, VDXG_PLANE_CTRL), 0xffffffff);
        g_assert_cmphex(rd(d->v, PL(0, p, VDXG_PLANE_CTRL)), ==,
                        p == CURSOR ? VDXG_PLANE_CTRL_CURSOR_MASK :
                                      VDXG_PLANE_CTRL_MASK);
        wr(d->v, PL(0, p, VDXG_PLANE_ALPHA), 0x12345678);
        g_assert_cmphex(rd(d->v, PL(0, p, VDXG_PLANE_ALPHA)), ==, 0x5678);
        wr64(d->v, PL(0, p, VDXG_PLANE_ADDR_LO), 0x123456789abcull + p);
        g_assert_cmphex(rd64(d->v, PL(0, p, VDXG_PLANE_ADDR_LO)), ==,
                        0x123456789abcull + p);
        wr(d->v, PL(0, p, VDXG_PLANE_ZPOS), 7);
        g_assert_cmpuint(rd(d->v, PL(0, p, VDXG_PLANE_ZPOS)), ==, 7);
        /* Nothing is latched until FLIP or an enable. */
        g_assert_cmphex(rd64(d->v, PL(0, p, VDXG_PLANE_CUR_ADDR_LO)), ==, 0);
        g_assert_cmphex(rd(d->v, PL(0, p, VDXG_PLANE_STATUS)), ==, 0);
        /* Read-only */
        wr(d->v, PL(0, p, VDXG_PLANE_STATUS), 3);
        wr(d->v, PL(0, p, VDXG_PLANE_CUR_ADDR_LO), 3);
        g_assert_cmphex(rd(d->v, PL(0, p, VDXG_PLANE_STATUS)), ==, 0);
        g_assert_cmphex(rd(d->v, PL(0, p, VDXG_PLANE_CUR_ADDR_LO)), ==, 0);
    }
    wr(d->v, CR(0, VDXG_CRTC_CTRL), 0xfffffff0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CTRL)), ==, 0);
    wr(d->v, CR(0, VDXG_CRTC_FRAME_COUNT), 5);
    wr(d->v, CR(0, VDXG_CRTC_CRC), 5);
    wr(d->v, CR(0, VDXG_CRTC_STATUS), 5);
    wr(d->v, CR(0, VDXG_CRTC_EDID), 5);
    wr(d->v, CR(0, VDXG_CRTC_CONN_STATUS), 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT)), ==, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CRC)), ==, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_STATUS)), ==, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_EDID)), ==, 0xffffff00);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CONN_STATUS)), ==,
                    VDXG_CONN_CONNECTED);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_FLIP)), ==, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CURSOR_UPDATE)), ==, 0);

    /* Writeback registers */
    wr64(d->v, VDXG_REG_WB_ADDR_LO, 0xabcdef012345ull);
    wr(d->v, VDXG_REG_WB_FORMAT, AR24);
    wr(d->v, VDXG_REG_WB_PITCH, 4096);
    wr(d->v, VDXG_REG_WB_CTRL, 0xffffff00);
    g_assert_cmphex(rd64(d->v, VDXG_REG_WB_ADDR_LO), ==, 0xabcdef012345ull);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_FORMAT), ==, AR24);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_PITCH), ==, 4096);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_CTRL), ==, 0);
    wr(d->v, VDXG_REG_WB_SEQNO, 9);
    wr(d->v, VDXG_REG_WB_STATUS, 9);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_SEQNO), ==, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_STATUS), ==, 0);

    /* The blocks of absent CRTCs decode to nothing. */
    wr(d->v, CR(1, VDXG_CRTC_HDISPLAY), 640);
    g_assert_cmphex(rd(d->v, CR(1, VDXG_CRTC_HDISPLAY)), ==, 0);
    g_assert_cmphex(rd(d->v, CR(1, VDXG_CRTC_CONN_STATUS)), ==, 0);
    g_assert_cmphex(rd(d->v, CR(3, VDXG_CRTC_EDID)), ==, 0);
    dp_assert_no_fault(d);
    dp_stop(d);
}

/* outputs=1..4 give that many pipes; other values refuse to start */
static void test_dp_outputs(void)
{
    static const char *const bad[] = { "0", "5", "100", "-1" };
    int n, c;

    for (n = 1; n <= VDXG_MAX_CRTCS; n++) {
        g_autofree char *props = g_strdup_printf("outputs=%d", n);
        Dp *d = dp_start(props);

        g_assert_cmpuint(rd(d->v, VDXG_REG_NUM_CRTCS), ==, n);
        for (c = 0; c < VDXG_MAX_CRTCS; c++) {
            wr(d->v, CR(c, VDXG_CRTC_HTOTAL), 100 + c);
            g_assert_cmpuint(rd(d->v, CR(c, VDXG_CRTC_HTOTAL)), ==,
                             c < n ? 100 + c : 0);
            g_assert_cmphex(rd(d->v, CR(c, VDXG_CRTC_CONN_STATUS)), ==,
                            c < n ? VDXG_CONN_CONNECTED : 0);
        }
        /* Each pipe runs on its own */
        for (c = 0; c < n; c++) {
            dp_enable(d, c, c & 1 ? &dp_640 : &dp_small, 0);
        }
        dp_step(d, 20 * 1000 * 1000);
        for (c = 0; c < n; c++) {
            g_assert_cmpuint(rd(d->v, CR(c, VDXG_CRTC_FRAME_COUNT)), ==, 1);
        }
        dp_stop(d);
    }
    for (n = 0; n < ARRAY_SIZE(bad); n++) {
        g_autofree char *props = g_strdup_printf("outputs=%s", bad[n]);

        assert_refuses(props, n == 3 ? "outputs" :
                       "outputs must be from 1 to 4");
    }
}

/* A bad mode leaves the CRTC off, says MODE_INVALID and faults. */
static void test_dp_mode_invalid(void)
{
    static const struct {
        const char *what;
        int field;              /* index into DpMode as uint32_t[] */
        uint32_t value;
    } cases[] = {
        { "hdisplay 0", 0, 0 },
        { "hdisplay too wide", 0, VDXG_MODE_MAX_DISPLAY + 1 },
        { "hsync_start < hdisplay", 1, 1023 },
        { "hsync_end < hsync_start", 2, 1047 },
        { "htotal < hsync_end", 3, 1183 },
        { "htotal too large", 3, VDXG_MODE_MAX_TOTAL + 1 },
        { "vdisplay 0", 4, 0 },
        { "vsync_start < vdisplay", 5, 700 },
        { "vsync_end < vsync_start", 6, 770 },
        { "vtotal < vsync_end", 7, 776 },
        { "clock 0", 8, 0 },
        { "refresh above 1000 Hz", 8, 1100000 },
        { "refresh below 1 Hz", 8, 1000 },
    };
    Dp *d = dp_start(NULL);
    int i;

    wr(d->v, VDXG_REG_INT_MASK, VDXG_INT_VALID_MASK);
    for (i = 0; i < ARRAY_SIZE(cases); i++) {
        DpMode m = dp_1024;

        g_test_message("bad mode: %s", cases[i].what);
        ((uint32_t *)&m)[cases[i].field] = cases[i].value;
        dp_set_mode(d, 0, &m);
        wr(d->v, CR(0, VDXG_CRTC_CTRL), VDXG_CRTC_CTRL_ENABLE |
           VDXG_CRTC_CTRL_VBLANK_IRQ);
        g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CTRL)), ==,
                        VDXG_CRTC_CTRL_VBLANK_IRQ);
        g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_STATUS)), ==,
                        VDXG_CRTC_STATUS_MODE_INVALID);
        dp_assert_fault(d, 0, VDXG_DISP_UNIT_MODE, VDXG_FAULT_PARAM, 0);
        /* No vblank ever comes. */
        dp_step(d, 100 * 1000 * 1000);
        g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);
        g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT)), ==, 0);
        /* The next CTRL write clears MODE_INVALID. */
        wr(d->v, CR(0, VDXG_CRTC_CTRL), 0);
        g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_STATUS)), ==, 0);
    }
    /* Edge values that are fine: zero-length sync, 1 x 1 */
    {
        DpMode m = { 1, 1, 1, 1000, 1, 1, 1, 20, 1000 };

        dp_enable(d, 0, &m, 0);
        g_assert_cmpuint(dp_next_vblank(d, 0), ==, 1);
        g_assert_cmpuint(dp_next_vblank(d, 0), ==, 2);
    }
    dp_assert_no_fault(d);
    dp_stop(d);
}

/* Vblanks at the mode's refresh, in virtual time */
static void test_dp_vblank(void)
{
    const DpMode *m = &dp_1024;
    Dp *d = dp_start(NULL);
    int64_t t0, t;
    uint64_t line;
    uint32_t k, irqs = 0;

    dp_enable(d, 0, m, VDXG_CRTC_CTRL_VBLANK_IRQ);
    t0 = d->t0[0];
    g_assert_cmphex(rd64(d->v, CR(0, VDXG_CRTC_VBLANK_NS_LO)), ==, t0);

    /* Scanout position follows the clock, line by line. */
    for (line = 0; line < m->vd; line += 97) {
        dp_step_to(d, t0 + dp_line_ns(m, line) + 3);
        g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_SCANLINE)), ==, line);
        g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_STATUS)), ==,
                        VDXG_CRTC_STATUS_ACTIVE);
    }

    /* Up to 1 ns before the first vblank, nothing */
    t = dp_vblank_time(d, 0, 1);
    g_assert_cmpint(t, ==, t0 + 15879876);
    dp_step_to(d, t - 1);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT)), ==, 0);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_SCANLINE)), ==, 767);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);
    assert_msix_messages(d->v, -1);
    dp_step_to(d, t);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT)), ==, 1);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_SCANLINE)), ==, 768);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_STATUS)), ==,
                    VDXG_CRTC_STATUS_ACTIVE | VDXG_CRTC_STATUS_VBLANK);
    g_assert_cmphex(rd64(d->v, CR(0, VDXG_CRTC_VBLANK_NS_LO)), ==, t);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, VDXG_INT_VBLANK(0));
    assert_msix_messages(d->v, VDXG_MSIX_VEC_DISPLAY);
    /* The vblank lasts to the end of the frame */
    dp_step_to(d, t0 + dp_line_ns(m, m->vt) - 1);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_SCANLINE)), ==, m->vt - 1);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_STATUS)), ==,
                    VDXG_CRTC_STATUS_ACTIVE | VDXG_CRTC_STATUS_VBLANK);
    dp_step_to(d, t0 + dp_line_ns(m, m->vt));
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_SCANLINE)), ==, 0);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT)), ==, 1);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_STATUS)), ==,
                    VDXG_CRTC_STATUS_ACTIVE);

    /* Two seconds, one vblank after another: 120 of them at 60 Hz */
    for (k = 2; dp_vblank_time(d, 0, k) <= t + 2000000000ll; k++) {
        wr(d->v, VDXG_REG_INT_ACK, VDXG_INT_VBLANK(0));
        msg_clear(d->v);
        dp_step_to(d, dp_vblank_time(d, 0, k) - 1);
        g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);
        g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT)), ==, k - 1);
        dp_step_to(d, dp_vblank_time(d, 0, k));
        g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==,
                        VDXG_INT_VBLANK(0));
        assert_msix_messages(d->v, VDXG_MSIX_VEC_DISPLAY);
        g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT)), ==, k);
        g_assert_cmphex(rd64(d->v, CR(0, VDXG_CRTC_VBLANK_NS_LO)), ==,
                        dp_vblank_time(d, 0, k));
        /* The period is the mode's, to the nanosecond */
        g_assert_cmpint(dp_vblank_time(d, 0, k) - dp_vblank_time(d, 0, k - 1),
                        >=, dp_frame_ns(m));
        g_assert_cmpint(dp_vblank_time(d, 0, k) - dp_vblank_time(d, 0, k - 1),
                        <=, dp_frame_ns(m) + 1);
        irqs++;
    }
    g_assert_cmpuint(irqs, ==, 120);
    g_assert_cmpuint(k - 1, ==, 121);

    /* Without VBLANK_IRQ the count goes on, silently; a big step counts */
    wr(d->v, CR(0, VDXG_CRTC_CTRL), VDXG_CRTC_CTRL_ENABLE);
    wr(d->v, VDXG_REG_INT_ACK, ~0u);
    msg_clear(d->v);
    t = dp_now(d);
    dp_step(d, 10ll * 1000 * 1000 * 1000);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);
    assert_msix_messages(d->v, -1);
    k = rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT));
    g_assert_cmpint(dp_vblank_time(d, 0, k), <=, dp_now(d));
    g_assert_cmpint(dp_vblank_time(d, 0, k + 1), >, dp_now(d));
    g_assert_cmpuint(k, >=, 121 + 599);
    g_assert_cmpuint(k, <=, 121 + 601);
    g_assert_cmphex(rd64(d->v, CR(0, VDXG_CRTC_VBLANK_NS_LO)), ==,
                    dp_vblank_time(d, 0, k));

    /* Back on: the next vblank interrupts */
    wr(d->v, CR(0, VDXG_CRTC_CTRL), VDXG_CRTC_CTRL_ENABLE |
       VDXG_CRTC_CTRL_VBLANK_IRQ);
    dp_step_to(d, dp_vblank_time(d, 0, k + 1));
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, VDXG_INT_VBLANK(0));

    /* Disable freezes FRAME_COUNT and VBLANK_NS; enable starts over. */
    wr(d->v, CR(0, VDXG_CRTC_CTRL), 0);
    wr(d->v, VDXG_REG_INT_ACK, ~0u);
    dp_step(d, 100 * 1000 * 1000);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT)), ==, k + 1);
    g_assert_cmphex(rd64(d->v, CR(0, VDXG_CRTC_VBLANK_NS_LO)), ==,
                    dp_vblank_time(d, 0, k + 1));
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_SCANLINE)), ==, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);

    /* Another mode: 640x480@60 at 25.175 MHz */
    dp_enable(d, 0, &dp_640, VDXG_CRTC_CTRL_VBLANK_IRQ);
    g_assert_cmpint(dp_frame_ns(&dp_640), ==, 16683217);
    for (k = 1; k <= 5; k++) {
        g_assert_cmpuint(dp_next_vblank(d, 0), ==, k);
        g_assert_cmphex(rd64(d->v, CR(0, VDXG_CRTC_VBLANK_NS_LO)), ==,
                        d->t0[0] + dp_line_ns(&dp_640,
                                              (k - 1) * 525 + 480));
        g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==,
                        VDXG_INT_VBLANK(0));
        wr(d->v, VDXG_REG_INT_ACK, ~0u);
    }
    dp_assert_no_fault(d);
    dp_stop(d);
}

/* Four outputs with four refresh rates */
static void test_dp_multi_output(void)
{
    static const DpMode modes[4] = {
        { 64, 64, 64, 80, 48, 48, 48, 50, 240 },        /* 60 Hz */
        { 64, 64, 64, 80, 48, 48, 48, 50, 300 },        /* 75 Hz */
        { 64, 64, 64, 80, 48, 48, 48, 50, 200 },        /* 50 Hz */
        { 64, 64, 64, 100, 48, 48, 48, 60, 864 },       /* 144 Hz */
    };
    Dp *d = dp_start("outputs=4");
    uint32_t counts[4] = { 0 }, st;
    int64_t end;
    int c;

    for (c = 0; c < 4; c++) {
        dp_enable(d, c, &modes[c], VDXG_CRTC_CTRL_VBLANK_IRQ);
    }
    end = dp_now(d) + 1000ll * 1000 * 1000;
    while (dp_now(d) < end) {
        dp_step(d, 100 * 1000);
        st = rd(d->v, VDXG_REG_INT_STATUS);
        for (c = 0; c < 4; c++) {
            if (st & VDXG_INT_VBLANK(c)) {
                counts[c]++;
            }
        }
        g_assert_cmphex(st & ~0xf00u, ==, 0);
        wr(d->v, VDXG_REG_INT_ACK, st);
    }
    for (c = 0; c < 4; c++) {
        g_assert_cmpuint(counts[c], ==,
                         rd(d->v, CR(c, VDXG_CRTC_FRAME_COUNT)));
    }
    g_assert_cmpuint(counts[0], ==, 60);
    g_assert_cmpuint(counts[1], ==, 75);
    g_assert_cmpuint(counts[2], ==, 50);
    g_assert_cmpuint(counts[3], ==, 144);
    dp_stop(d);
}

/* FLIP latches pending registers at the next vblank only. */
static void test_dp_flip(void)
{
    Dp *d = dp_start(NULL);
    const DpMode *m = &dp_tiny;
    DpPlane red, blue, green;
    uint32_t k;

    red = dp_solid_plane(d, DP_FB(0), XR24, 0xff0000, 64, 48, 0, 0);
    blue = dp_solid_plane(d, DP_FB(1), XR24, 0x0000ff, 64, 48, 0, 0);
    green = dp_solid_plane(d, DP_FB(2), XR24, 0x00ff00, 16, 16, 8, 8);

    /* FLIP while off latches at once and signals at once. */
    dp_plane(d, 0, PRIMARY, &red);
    wr(d->v, CR(0, VDXG_CRTC_FLIP), 1);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, VDXG_INT_FLIP_DONE(0));
    assert_msix_messages(d->v, VDXG_MSIX_VEC_DISPLAY);
    g_assert_cmphex(rd64(d->v, PL(0, PRIMARY, VDXG_PLANE_CUR_ADDR_LO)), ==,
                    DP_FB(0));
    g_assert_cmphex(rd(d->v, PL(0, PRIMARY, VDXG_PLANE_STATUS)), ==,
                    VDXG_PLANE_STATUS_ACTIVE);
    wr(d->v, VDXG_REG_INT_ACK, ~0u);
    msg_clear(d->v);

    dp_enable(d, 0, m, 0);
    dp_check_frame(d, 0, 0, &red, 1);

    /* Pending writes without FLIP: nothing changes at the vblanks. */
    dp_plane(d, 0, PRIMARY, &blue);
    wr(d->v, CR(0, VDXG_CRTC_BG_COLOR), 0x777777);
    dp_next_vblank(d, 0);
    dp_next_vblank(d, 0);
    g_assert_cmphex(rd64(d->v, PL(0, PRIMARY, VDXG_PLANE_CUR_ADDR_LO)), ==,
                    DP_FB(0));
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);
    dp_check_frame(d, 0, 0, &red, 1);

    /* FLIP: still pending until the vblank, FLIP_DONE then, once */
    msg_clear(d->v);
    wr(d->v, CR(0, VDXG_CRTC_FLIP), 1);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_STATUS)) &
                    VDXG_CRTC_STATUS_FLIP_PENDING, ==,
                    VDXG_CRTC_STATUS_FLIP_PENDING);
    k = rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT));
    dp_step_to(d, dp_vblank_time(d, 0, k + 1) - 1);
    g_assert_cmphex(rd64(d->v, PL(0, PRIMARY, VDXG_PLANE_CUR_ADDR_LO)), ==,
                    DP_FB(0));
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);
    assert_msix_messages(d->v, -1);
    dp_step_to(d, dp_vblank_time(d, 0, k + 1));
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, VDXG_INT_FLIP_DONE(0));
    assert_msix_messages(d->v, VDXG_MSIX_VEC_DISPLAY);
    g_assert_cmphex(rd64(d->v, PL(0, PRIMARY, VDXG_PLANE_CUR_ADDR_LO)), ==,
                    DP_FB(1));
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_STATUS)) &
                    VDXG_CRTC_STATUS_FLIP_PENDING, ==, 0);
    wr(d->v, VDXG_REG_INT_ACK, ~0u);
    dp_next_vblank(d, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);
    dp_check_frame(d, 0, 0x777777, &blue, 1);

    /* Everything goes in one latch: an overlay and the background */
    dp_plane(d, 0, OVERLAY, &green);
    wr(d->v, CR(0, VDXG_CRTC_BG_COLOR), 0x123456);
    dp_plane(d, 0, PRIMARY, &(DpPlane){ 0 });
    dp_flip(d, 0);
    {
        DpPlane planes[2] = { { 0 }, green };

        dp_check_frame(d, 0, 0x123456, planes, 2);
    }

    /* FLIP written twice before the vblank: one latch, one FLIP_DONE */
    dp_plane(d, 0, PRIMARY, &red);
    wr(d->v, CR(0, VDXG_CRTC_FLIP), 1);
    wr(d->v, CR(0, VDXG_CRTC_FLIP), 1);
    dp_next_vblank(d, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, VDXG_INT_FLIP_DONE(0));
    wr(d->v, VDXG_REG_INT_ACK, ~0u);
    dp_next_vblank(d, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);

    /* Disabling with a flip pending latches it and signals it. */
    dp_plane(d, 0, OVERLAY, &(DpPlane){ 0 });
    wr(d->v, CR(0, VDXG_CRTC_FLIP), 1);
    wr(d->v, CR(0, VDXG_CRTC_CTRL), 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, VDXG_INT_FLIP_DONE(0));
    g_assert_cmphex(rd(d->v, PL(0, OVERLAY, VDXG_PLANE_STATUS)), ==, 0);
    wr(d->v, VDXG_REG_INT_ACK, ~0u);

    /* Enabling latches the pending state at once. */
    dp_plane(d, 0, PRIMARY, &blue);
    wr(d->v, CR(0, VDXG_CRTC_BG_COLOR), 0);
    dp_enable(d, 0, m, 0);
    g_assert_cmphex(rd64(d->v, PL(0, PRIMARY, VDXG_PLANE_CUR_ADDR_LO)), ==,
                    DP_FB(1));
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);
    dp_check_frame(d, 0, 0, &blue, 1);
    dp_assert_no_fault(d);
    dp_stop(d);
}

/* CRCs: per frame, stable, sensitive, and what the contract says */
static void test_dp_crc(void)
{
    const DpMode *m = &dp_small;
    Dp *d = dp_start(NULL);
    DpPlane fb = dp_rand_plane(d, DP_FB(0), XR24, 160, 120, 0, 0, 7);
    g_autofree uint32_t *want = g_new(uint32_t, 160 * 120);
    uint8_t *data = (uint8_t *)fb.data;
    uint32_t crc, k, composes;
    int i;

    dp_plane(d, 0, PRIMARY, &fb);
    dp_enable(d, 0, m, 0);
    /* Off: no CRC is computed */
    dp_next_vblank(d, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CRC)), ==, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CRC_FRAME)), ==, 0);

    wr(d->v, CR(0, VDXG_CRTC_CTRL), VDXG_CRTC_CTRL_ENABLE |
       VDXG_CRTC_CTRL_CRC);
    ref_compose(m, 0, &fb, 1, want);
    crc = ref_frame_crc(want, 160 * 120);
    k = dp_next_vblank(d, 0);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_CRC_FRAME)), ==, k);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CRC)), ==, crc);
    /* CRC enable alone raises no interrupt */
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);

    /* Same content, same CRC, frame after frame, without composing */
    composes = dp_qom_u64(d, "disp-composes");
    for (i = 0; i < 30; i++) {
        k = dp_next_vblank(d, 0);
        g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_CRC_FRAME)), ==, k);
        g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CRC)), ==, crc);
    }
    g_assert_cmpuint(dp_qom_u64(d, "disp-composes"), ==, composes);

    /* One pixel, one bit: another CRC, the expected one */
    data[(57 * fb.pitch) + 99 * 4] ^= 0x01;
    vram_write(d->p, DP_FB(0) + 57 * fb.pitch + 99 * 4,
               data + 57 * fb.pitch + 99 * 4, 4);
    ref_compose(m, 0, &fb, 1, want);
    k = dp_next_vblank(d, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CRC)), !=, crc);
    crc = ref_frame_crc(want, 160 * 120);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CRC)), ==, crc);
    g_assert_cmpuint(dp_qom_u64(d, "disp-composes"), ==, composes + 1);

    /* The X byte does not count: changing it changes nothing */
    data[(3 * fb.pitch) + 5 * 4 + 3] ^= 0xff;
    vram_write(d->p, DP_FB(0) + 3 * fb.pitch + 5 * 4 + 3,
               data + 3 * fb.pitch + 5 * 4 + 3, 1);
    dp_next_vblank(d, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CRC)), ==, crc);

    /* A flip to other content: the CRC of the latched frame, that frame */
    {
        DpPlane fb2 = dp_rand_plane(d, DP_FB(1), RG16, 160, 120, 0, 0, 8);

        dp_plane(d, 0, PRIMARY, &fb2);
        ref_compose(m, 0, &fb2, 1, want);
        k = dp_flip(d, 0);
        g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_CRC_FRAME)), ==, k);
        g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CRC)), ==,
                        ref_frame_crc(want, 160 * 120));
        g_free((void *)fb2.data);
    }

    /* A known value: a black 160x120 frame */
    {
        g_autofree uint8_t *zero = g_malloc0(160 * 120 * 4);

        dp_plane(d, 0, PRIMARY, &(DpPlane){ 0 });
        dp_flip(d, 0);
        g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CRC)), ==,
                        ref_crc32(0, zero, 160 * 120 * 4));
    }
    /* CRC off again: CRC and CRC_FRAME keep the last values */
    wr(d->v, CR(0, VDXG_CRTC_CTRL), VDXG_CRTC_CTRL_ENABLE);
    k = rd(d->v, CR(0, VDXG_CRTC_CRC_FRAME));
    dp_next_vblank(d, 0);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_CRC_FRAME)), ==, k);
    dp_assert_no_fault(d);
    g_free(data);
    dp_stop(d);
}

/* 1024x768@60 with CRC: static content is composed once. */
static void test_dp_crc_1024(void)
{
    const DpMode *m = &dp_1024;
    Dp *d = dp_start(NULL);
    DpPlane fb = dp_rand_plane(d, DP_BIG, XR24, 1024, 768, 0, 0, 3);
    g_autofree uint32_t *want = g_new(uint32_t, 1024 * 768);
    uint32_t crc;
    int i;

    g_assert_cmpuint(fb.pitch, ==, 4096);
    dp_plane(d, 0, PRIMARY, &fb);
    dp_enable(d, 0, m, VDXG_CRTC_CTRL_CRC | VDXG_CRTC_CTRL_VBLANK_IRQ);
    ref_compose(m, 0, &fb, 1, want);
    crc = ref_frame_crc(want, 1024 * 768);
    for (i = 0; i < 60; i++) {
        dp_next_vblank(d, 0);
        g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CRC)), ==, crc);
    }
    g_assert_cmpuint(dp_qom_u64(d, "disp-composes"), ==, 1);
    g_assert_cmpuint(dp_qom_u64(d, "disp-crcs"), ==, 1);

    /* The last pixel changes: composed again, another CRC */
    vram_writel(d->p, DP_BIG + 4096 * 768 - 4, 0x00abcdef);
    want[1024 * 768 - 1] = 0xabcdef;
    dp_next_vblank(d, 0);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CRC)), ==,
                    ref_frame_crc(want, 1024 * 768));
    g_assert_cmpuint(dp_qom_u64(d, "disp-composes"), ==, 2);
    g_free((void *)fb.data);
    dp_stop(d);
}

/* Screendump of a console as PPM: returns RGB bytes, sets *w and *h */
static uint8_t *dp_screendump(Dp *d, const char *device, int head, int *w,
                              int *h)
{
    g_autofree char *path = NULL;
    g_autofree char *contents = NULL;
    gsize len;
    int maxval, off = 0;
    uint8_t *rgb;

    if (!d->tmpdir) {
        d->tmpdir = g_dir_make_tmp("vdxg-dump-XXXXXX", NULL);
        g_assert_nonnull(d->tmpdir);
    }
    path = g_strdup_printf("%s/dump.ppm", d->tmpdir);
    if (device) {
        qtest_qmp_assert_success(d->qts, "{ 'execute': 'screendump', "
                                 "'arguments': { 'filename': %s, "
                                 "'device': %s, 'head': %d } }", path,
                                 device, head);
    } else {
        qtest_qmp_assert_success(d->qts, "{ 'execute': 'screendump', "
                                 "'arguments': { 'filename': %s, "
                                 "'format': 'ppm' } }", path);
    }
    g_assert_true(g_file_get_contents(path, &contents, &len, NULL));
    g_unlink(path);
    /* "P6\n<w> <h>\n255\n": one newline, pixels may look like spaces */
    g_assert_cmpint(sscanf(contents, "P6\n%d %d\n%d%n", w, h, &maxval,
                           &off), ==, 3);
    g_assert_cmpint(maxval, ==, 255);
    g_assert_cmpint(contents[off], ==, '\n');
    off++;
    g_assert_cmpuint(len, ==, off + (gsize)*w * *h * 3);
    rgb = g_malloc((gsize)*w * *h * 3);
    memcpy(rgb, contents + off, (gsize)*w * *h * 3);
    return rgb;
}

/* The console of @device/@head shows @want (w x h XRGB) */
static void dp_check_screendump(Dp *d, const char *device, int head,
                                const uint32_t *want, int w, int h)
{
    int gw, gh, i;
    g_autofree uint8_t *rgb = dp_screendump(d, device, head, &gw, &gh);

    g_assert_cmpint(gw, ==, w);
    g_assert_cmpint(gh, ==, h);
    for (i = 0; i < w * h; i++) {
        uint32_t got = rgb[i * 3] << 16 | rgb[i * 3 + 1] << 8 | rgb[i * 3 + 2];

        if (got != (want[i] & 0xffffff)) {
            g_test_message("screendump pixel (%d, %d): got 0x%06x, want "
                           "0x%06x", i % w, i / w, got, want[i] & 0xffffff);
        }
        g_assert_cmphex(got, ==, want[i] & 0xffffff);
    }
}

/* ARGB pixels, premultiplied or not, with every alpha */
static uint8_t *dp_argb_pattern(uint32_t w, uint32_t h, uint32_t seed,
                                bool premultiplied)
{
    g_autoptr(GRand) rnd = g_rand_new_with_seed(seed);
    uint8_t *buf = g_malloc((size_t)w * h * 4);
    size_t i;

    for (i = 0; i < (size_t)w * h; i++) {
        uint32_t a = g_rand_int_range(rnd, 0, 4) == 0 ? 255 :
                     g_rand_int_range(rnd, 0, 4) == 0 ? 0 :
                     g_rand_int_range(rnd, 0, 256);
        uint32_t px = g_rand_int(rnd) & 0xffffff;
        int c;

        if (premultiplied) {
            for (c = 0; c < 24; c += 8) {
                px = (px & ~(0xffu << c)) |
                     ((((px >> c) & 0xff) * a / 255) << c);
            }
        }
        stl_le_p(buf + i * 4, a << 24 | px);
    }
    return buf;
}

static DpPlane dp_cursor_plane(Dp *d, uint64_t addr, uint32_t size, int x,
                               int y, uint32_t blend, uint32_t seed)
{
    DpPlane pl = {
        .ctrl = PLANE_ON | BLEND(blend), .addr = addr, .fmt = AR24,
        .pitch = size * 4, .w = size, .h = size, .x = x, .y = y,
        .alpha = 0xffff, .zpos = 2,
    };

    dp_put(d, &pl, dp_argb_pattern(size, size, seed,
                                   blend == VDXG_BLEND_PREMULTI));
    return pl;
}

/* Cursor: immediate updates, sizes, clipping at every edge, alpha */
static void test_dp_cursor(void)
{
    static const struct {
        int x, y;
        uint32_t size;
    } spots[] = {
        { 50, 30, 64 }, { -20, -10, 64 }, { 130, 100, 64 }, { -64, 0, 64 },
        { 159, 119, 64 }, { -63, -63, 64 }, { 0, 120, 64 }, { 160, 0, 64 },
        { -100, -100, 256 }, { 100, 50, 128 }, { 3, 4, 1 }, { -30, 60, 37 },
    };
    const DpMode *m = &dp_small;
    Dp *d = dp_start(NULL);
    DpPlane pl[3] = { 0 };
    g_autofree uint32_t *want = g_new(uint32_t, 160 * 120);
    int i;

    pl[PRIMARY] = dp_rand_plane(d, DP_FB(0), XR24, 160, 120, 0, 0, 11);
    dp_plane(d, 0, PRIMARY, &pl[PRIMARY]);
    dp_enable(d, 0, m, 0);

    for (i = 0; i < ARRAY_SIZE(spots); i++) {
        uint32_t blend = i % 2 ? VDXG_BLEND_COVERAGE : VDXG_BLEND_PREMULTI;

        g_test_message("cursor %ux%u at (%d, %d)", spots[i].size,
                       spots[i].size, spots[i].x, spots[i].y);
        pl[CURSOR] = dp_cursor_plane(d, DP_FB(2 + i % 2), spots[i].size,
                                     spots[i].x, spots[i].y, blend, 100 + i);
        if (i == 9) {
            pl[CURSOR].alpha = 0x8000;
        }
        dp_plane(d, 0, CURSOR, &pl[CURSOR]);
        /* The fast path: visible at once, no interrupt, no vblank */
        wr(d->v, CR(0, VDXG_CRTC_CURSOR_UPDATE), 1);
        g_assert_cmphex(rd64(d->v, PL(0, CURSOR, VDXG_PLANE_CUR_ADDR_LO)), ==,
                        pl[CURSOR].addr);
        g_assert_cmphex(rd(d->v, PL(0, CURSOR, VDXG_PLANE_STATUS)), ==,
                        VDXG_PLANE_STATUS_ACTIVE);
        g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);
        ref_compose(m, 0, pl, 3, want);
        if (i % 4 == 0) {
            dp_check_screendump(d, NULL, 0, want, 160, 120);
        }
        dp_check_frame(d, 0, 0, pl, 3);
    }

    /* CURSOR_UPDATE latches the cursor only. */
    {
        DpPlane other = dp_rand_plane(d, DP_FB(4), XR24, 160, 120, 0, 0, 12);

        dp_plane(d, 0, PRIMARY, &other);
        pl[CURSOR].x = 10;
        dp_plane(d, 0, CURSOR, &pl[CURSOR]);
        wr(d->v, CR(0, VDXG_CRTC_CURSOR_UPDATE), 1);
        g_assert_cmphex(rd64(d->v, PL(0, PRIMARY, VDXG_PLANE_CUR_ADDR_LO)),
                        ==, DP_FB(0));
        dp_check_frame(d, 0, 0, pl, 3);
        /* ... and a FLIP takes the rest, cursor included */
        dp_flip(d, 0);
        pl[PRIMARY] = other;
        dp_check_frame(d, 0, 0, pl, 3);
    }

    /* Cursor off through the fast path */
    dp_plane(d, 0, CURSOR, &(DpPlane){ 0 });
    wr(d->v, CR(0, VDXG_CRTC_CURSOR_UPDATE), 1);
    g_assert_cmphex(rd(d->v, PL(0, CURSOR, VDXG_PLANE_STATUS)), ==, 0);
    dp_check_frame(d, 0, 0, pl, 1);
    /* The cursor cannot rotate: those bits read 0 */
    wr(d->v, PL(0, CURSOR, VDXG_PLANE_CTRL), VDXG_PLANE_CTRL_ROT_180 |
       VDXG_PLANE_CTRL_REFLECT_X | VDXG_PLANE_CTRL_REFLECT_Y | PLANE_ON);
    g_assert_cmphex(rd(d->v, PL(0, CURSOR, VDXG_PLANE_CTRL)), ==, PLANE_ON);
    dp_assert_no_fault(d);
    dp_stop(d);
}

/* One composed pixel: @fg (overlay) over an opaque @bg (primary) */
static uint32_t dp_blend_one(Dp *d, uint32_t fg, uint32_t bg, uint32_t blend,
                             uint32_t alpha)
{
    DpPlane pl[2];
    uint32_t frame[64 * 48];

    pl[0] = dp_solid_plane(d, DP_FB(0), XR24, bg, 64, 48, 0, 0);
    pl[1] = dp_solid_plane(d, DP_FB(1), AR24, fg, 8, 8, 4, 4);
    pl[1].ctrl |= BLEND(blend);
    pl[1].alpha = alpha;
    dp_plane(d, 0, PRIMARY, &pl[0]);
    dp_plane(d, 0, OVERLAY, &pl[1]);
    dp_flip(d, 0);
    dp_capture(d, 0, frame);
    g_assert_cmphex(frame[0], ==, bg & 0xffffff);
    g_free((void *)pl[0].data);
    g_free((void *)pl[1].data);
    return frame[5 * 64 + 5];
}

/* Overlay plane alpha and pixel blend modes, pixel-exact */
static void test_dp_blend(void)
{
    static const uint32_t alphas[] = { 0xffff, 0x8000, 0x1234, 0, 0xfffe };
    Dp *d = dp_start(NULL);
    DpPlane pl[2];
    int mode, i;

    dp_enable(d, 0, &dp_tiny, 0);
    /* Known values, worked out by hand from the formulas */
    g_assert_cmphex(dp_blend_one(d, 0x80ff0000, 0x0000ff, VDXG_BLEND_COVERAGE,
                                 0xffff), ==, 0x80007f);
    g_assert_cmphex(dp_blend_one(d, 0x80800000, 0x0000ff, VDXG_BLEND_PREMULTI,
                                 0xffff), ==, 0x80007f);
    g_assert_cmphex(dp_blend_one(d, 0x00ff0000, 0x0000ff, VDXG_BLEND_NONE,
                                 0x8000), ==, 0x80007f);
    /* Pre-multiplied adds and saturates */
    g_assert_cmphex(dp_blend_one(d, 0x80ff00ff, 0x0000ff, VDXG_BLEND_PREMULTI,
                                 0xffff), ==, 0xff00ff);
    g_assert_cmphex(dp_blend_one(d, 0x00204060, 0x102030, VDXG_BLEND_PREMULTI,
                                 0xffff), ==, 0x306090);
    /* Opaque pixels replace; transparent ones keep the background */
    g_assert_cmphex(dp_blend_one(d, 0xff123456, 0xabcdef, VDXG_BLEND_COVERAGE,
                                 0xffff), ==, 0x123456);
    g_assert_cmphex(dp_blend_one(d, 0x00123456, 0xabcdef, VDXG_BLEND_COVERAGE,
                                 0xffff), ==, 0xabcdef);
    g_assert_cmphex(dp_blend_one(d, 0x00123456, 0xabcdef, VDXG_BLEND_NONE,
                                 0xffff), ==, 0x123456);
    g_assert_cmphex(dp_blend_one(d, 0xff123456, 0xabcdef, VDXG_BLEND_NONE,
                                 0), ==, 0xabcdef);

    /* Random content, every mode and some plane alphas */
    wr(d->v, CR(0, VDXG_CRTC_CTRL), 0);
    dp_enable(d, 0, &dp_small, 0);
    pl[0] = dp_rand_plane(d, DP_FB(0), XR24, 160, 120, 0, 0, 21);
    for (mode = VDXG_BLEND_NONE; mode <= VDXG_BLEND_COVERAGE; mode++) {
        for (i = 0; i < ARRAY_SIZE(alphas); i++) {
            pl[1] = (DpPlane) {
                .ctrl = PLANE_ON | BLEND(mode), .addr = DP_FB(1),
                .fmt = AR24, .pitch = 104 * 4, .w = 100, .h = 80,
                .x = 30 + i, .y = 20 - 3 * i, .alpha = alphas[i], .zpos = 1,
            };
            dp_put(d, &pl[1], dp_argb_pattern(104, 80, 30 + mode * 10 + i,
                                              mode == VDXG_BLEND_PREMULTI));
            dp_plane(d, 0, PRIMARY, &pl[0]);
            dp_plane(d, 0, OVERLAY, &pl[1]);
            dp_flip(d, 0);
            dp_check_frame(d, 0, 0, pl, 2);
            g_free((void *)pl[1].data);
        }
    }
    /* The primary blends too: an ARGB primary over the background */
    pl[0] = dp_rand_plane(d, DP_FB(0), AR24, 120, 100, 20, 10, 22);
    pl[0].ctrl |= BLEND(VDXG_BLEND_COVERAGE);
    pl[0].alpha = 0xc000;
    dp_plane(d, 0, PRIMARY, &pl[0]);
    dp_plane(d, 0, OVERLAY, &(DpPlane){ 0 });
    wr(d->v, CR(0, VDXG_CRTC_BG_COLOR), 0xff405060);
    dp_flip(d, 0);
    dp_check_frame(d, 0, 0x405060, pl, 1);
    dp_assert_no_fault(d);
    dp_stop(d);
}

/* ZPOS orders the planes; equal values keep primary, overlay, cursor. */
static void test_dp_zpos(void)
{
    static const uint32_t orders[][3] = {
        { 0, 1, 2 }, { 2, 1, 0 }, { 0, 2, 1 }, { 1, 0, 2 }, { 1, 1, 1 },
        { 2, 0, 0 }, { 0, 0, 0 }, { 1, 2, 0 },
    };
    Dp *d = dp_start(NULL);
    DpPlane pl[3];
    int i, p;

    dp_enable(d, 0, &dp_small, 0);
    pl[PRIMARY] = dp_solid_plane(d, DP_FB(0), XR24, 0xff0000, 100, 100, 0, 0);
    pl[OVERLAY] = dp_solid_plane(d, DP_FB(1), AR24, 0x8000ff00, 60, 60, 20,
                                 20);
    pl[OVERLAY].ctrl |= BLEND(VDXG_BLEND_COVERAGE);
    pl[CURSOR] = dp_solid_plane(d, DP_FB(2), AR24, 0xff0000ff, 64, 64, 50,
                                50);
    for (i = 0; i < ARRAY_SIZE(orders); i++) {
        for (p = 0; p < 3; p++) {
            pl[p].zpos = orders[i][p];
            dp_plane(d, 0, p, &pl[p]);
        }
        dp_flip(d, 0);
        dp_check_frame(d, 0, 0, pl, 3);
    }
    /* A hand check: the cursor on top, then under the overlay */
    {
        uint32_t frame[160 * 120];

        pl[PRIMARY].zpos = 0;
        pl[OVERLAY].zpos = 1;
        pl[CURSOR].zpos = 2;
        for (p = 0; p < 3; p++) {
            dp_plane(d, 0, p, &pl[p]);
        }
        dp_flip(d, 0);
        dp_capture(d, 0, frame);
        g_assert_cmphex(frame[60 * 160 + 60], ==, 0x0000ff);
        g_assert_cmphex(frame[30 * 160 + 30], ==, 0x7f8000);
        wr(d->v, PL(0, CURSOR, VDXG_PLANE_ZPOS), 0);
        wr(d->v, PL(0, OVERLAY, VDXG_PLANE_ZPOS), 2);
        dp_flip(d, 0);
        dp_capture(d, 0, frame);
        g_assert_cmphex(frame[60 * 160 + 60], ==, 0x00807f);
        g_assert_cmphex(frame[110 * 160 + 110], ==, 0x0000ff);
    }
    dp_assert_no_fault(d);
    dp_stop(d);
}

/* Rotation 180 and reflections on primary and overlay */
static void test_dp_rotation(void)
{
    static const uint32_t rots[] = {
        0, VDXG_PLANE_CTRL_ROT_180, VDXG_PLANE_CTRL_REFLECT_X,
        VDXG_PLANE_CTRL_REFLECT_Y,
        VDXG_PLANE_CTRL_ROT_180 | VDXG_PLANE_CTRL_REFLECT_X,
        VDXG_PLANE_CTRL_ROT_180 | VDXG_PLANE_CTRL_REFLECT_Y,
        VDXG_PLANE_CTRL_REFLECT_X | VDXG_PLANE_CTRL_REFLECT_Y,
        VDXG_PLANE_CTRL_ROT_180 | VDXG_PLANE_CTRL_REFLECT_X |
        VDXG_PLANE_CTRL_REFLECT_Y,
    };
    Dp *d = dp_start(NULL);
    DpPlane pl[2];
    uint32_t frame[64 * 48];
    uint8_t *src;
    int i;

    /* By hand: a 64x48 primary whose pixel (x, y) is y << 8 | x */
    dp_enable(d, 0, &dp_tiny, 0);
    src = g_malloc(64 * 48 * 4);
    for (i = 0; i < 64 * 48; i++) {
        stl_le_p(src + i * 4, (i / 64) << 8 | (i % 64));
    }
    pl[0] = (DpPlane) {
        .ctrl = PLANE_ON, .addr = DP_FB(0), .fmt = XR24, .pitch = 256,
        .w = 64, .h = 48, .alpha = 0xffff,
    };
    dp_put(d, &pl[0], src);
    for (i = 0; i < 4; i++) {
        pl[0].ctrl = PLANE_ON | rots[i];
        dp_plane(d, 0, PRIMARY, &pl[0]);
        dp_flip(d, 0);
        dp_capture(d, 0, frame);
        /* Output (3, 5) shows source ... */
        g_assert_cmphex(frame[5 * 64 + 3], ==,
                        i == 0 ? 0x0503 : i == 1 ? (42 << 8 | 60) :
                        i == 2 ? (5 << 8 | 60) : (42 << 8 | 3));
    }

    /* Every combination, against the reference, partly off-screen too */
    wr(d->v, CR(0, VDXG_CRTC_CTRL), 0);
    dp_enable(d, 0, &dp_small, 0);
    pl[0] = dp_rand_plane(d, DP_FB(1), RG16, 150, 110, 5, 7, 41);
    for (i = 0; i < ARRAY_SIZE(rots); i++) {
        pl[0].ctrl = PLANE_ON | rots[i];
        pl[1] = (DpPlane) {
            .ctrl = PLANE_ON | rots[(i + 3) % ARRAY_SIZE(rots)] |
                    BLEND(VDXG_BLEND_COVERAGE),
            .addr = DP_FB(2), .fmt = AR24, .pitch = 50 * 4, .w = 50, .h = 30,
            .x = i * 25 - 20, .y = 100 - i * 9, .alpha = 0xe000, .zpos = 1,
        };
        dp_put(d, &pl[1], dp_argb_pattern(50, 30, 50 + i, false));
        dp_plane(d, 0, PRIMARY, &pl[0]);
        dp_plane(d, 0, OVERLAY, &pl[1]);
        dp_flip(d, 0);
        dp_check_frame(d, 0, 0, pl, 2);
        g_free((void *)pl[1].data);
    }
    dp_assert_no_fault(d);
    dp_stop(d);
}

/* Every scanout format, and both writeback formats */
static void test_dp_formats(void)
{
    static const uint32_t fmts[] = { XR24, AR24, XB24, RG16 };
    const DpMode *m = &dp_small;
    Dp *d = dp_start(NULL);
    DpPlane pl;
    g_autofree uint32_t *want = g_new(uint32_t, 160 * 120);
    g_autofree uint8_t *buf = g_malloc(160 * 120 * 4);
    uint32_t frame[64 * 48];
    int i, f;

    /* By hand: one pixel of each format */
    dp_enable(d, 0, &dp_tiny, 0);
    {
        static const struct {
            uint32_t fmt, raw, argb;
        } px[] = {
            { XR24, 0x00123456, 0x123456 }, { XR24, 0xab123456, 0x123456 },
            { AR24, 0xff123456, 0x123456 }, { XB24, 0x00112233, 0x332211 },
            { RG16, 0xf800, 0xff0000 }, { RG16, 0x07e0, 0x00ff00 },
            { RG16, 0x001f, 0x0000ff }, { RG16, 0x8410, 0x848284 },
        };

        for (i = 0; i < ARRAY_SIZE(px); i++) {
            pl = (DpPlane) {
                .ctrl = PLANE_ON, .addr = DP_FB(0) + 4, .fmt = px[i].fmt,
                .pitch = 4, .w = 1, .h = 1, .x = 7, .y = 9, .alpha = 0xffff,
            };
            vram_writel(d->p, DP_FB(0) + 4, px[i].raw);
            dp_plane(d, 0, PRIMARY, &pl);
            dp_flip(d, 0);
            dp_capture(d, 0, frame);
            g_assert_cmphex(frame[9 * 64 + 7], ==, px[i].argb);
            g_assert_cmphex(frame[9 * 64 + 8], ==, 0);
        }
    }

    wr(d->v, CR(0, VDXG_CRTC_CTRL), 0);
    dp_enable(d, 0, m, 0);
    wr(d->v, CR(0, VDXG_CRTC_BG_COLOR), 0x203040);
    for (f = 0; f < ARRAY_SIZE(fmts); f++) {
        pl = dp_rand_plane(d, DP_FB(1 + f), fmts[f], 150 + f, 110, f, 2 * f,
                           60 + f);
        pl.ctrl |= BLEND(VDXG_BLEND_PREMULTI);
        dp_plane(d, 0, PRIMARY, &pl);
        dp_flip(d, 0);
        dp_check_frame(d, 0, 0x203040, &pl, 1);

        /* ARGB8888 writeback: the same, with A = 0xff */
        ref_compose(m, 0x203040, &pl, 1, want);
        dp_wb_run(d, 0, AR24, DP_WB, 160 * 4);
        vram_read(d->p, DP_WB, buf, 160 * 120 * 4);
        for (i = 0; i < 160 * 120; i++) {
            g_assert_cmphex((uint32_t)ldl_le_p(buf + i * 4), ==, 0xff000000u | want[i]);
        }
        g_free((void *)pl.data);
    }
    dp_assert_no_fault(d);
    dp_stop(d);
}

/* Writeback: formats, pitch, one frame per arm, aperture, errors */
static void test_dp_writeback(void)
{
    const DpMode *m = &dp_tiny;
    Dp *d = dp_start("outputs=2");
    DpPlane pl = dp_rand_plane(d, DP_FB(0), XR24, 64, 48, 0, 0, 70);
    DpPlane pl1 = dp_rand_plane(d, DP_FB(1), XB24, 64, 48, 0, 0, 71);
    g_autofree uint32_t *want = g_new(uint32_t, 64 * 48);
    g_autofree uint8_t *buf = g_malloc(DP_WB_SIZE);
    uint32_t pitch = 64 * 4 + 64, seqno, x, y, i;

    dp_plane(d, 0, PRIMARY, &pl);
    dp_plane(d, 1, PRIMARY, &pl1);
    dp_enable(d, 0, m, 0);
    ref_compose(m, 0, &pl, 1, want);

    /* A wider pitch leaves the padding alone. */
    memset(buf, 0xaa, pitch * 48);
    vram_write(d->p, DP_WB, buf, pitch * 48);
    msg_clear(d->v);
    dp_wb_run(d, 0, AR24, DP_WB, pitch);
    assert_msix_messages(d->v, VDXG_MSIX_VEC_DISPLAY);
    vram_read(d->p, DP_WB, buf, pitch * 48);
    for (y = 0; y < 48; y++) {
        for (x = 0; x < 64; x++) {
            g_assert_cmphex((uint32_t)ldl_le_p(buf + y * pitch + x * 4), ==,
                            0xff000000u | want[y * 64 + x]);
        }
        for (x = 64 * 4; x < pitch; x++) {
            g_assert_cmphex(buf[y * pitch + x], ==, 0xaa);
        }
    }
    seqno = rd(d->v, VDXG_REG_WB_SEQNO);
    g_assert_cmpuint(seqno, ==, 1);

    /* One frame per arm: later vblanks write nothing. */
    memset(buf, 0x55, pitch * 48);
    vram_write(d->p, DP_WB, buf, pitch * 48);
    dp_next_vblank(d, 0);
    dp_next_vblank(d, 0);
    vram_read(d->p, DP_WB, buf, pitch * 48);
    for (i = 0; i < pitch * 48; i++) {
        g_assert_cmphex(buf[i], ==, 0x55);
    }
    g_assert_cmpuint(rd(d->v, VDXG_REG_WB_SEQNO), ==, seqno);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_STATUS), ==, VDXG_WB_STATUS_DONE);

    /* Disarmed before the vblank: nothing at all */
    wr(d->v, VDXG_REG_WB_CTRL, VDXG_WB_CTRL_ENABLE);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_STATUS), ==, VDXG_WB_STATUS_BUSY);
    /* Arming again while armed is ignored */
    wr(d->v, VDXG_REG_WB_CTRL, VDXG_WB_CTRL_ENABLE |
       1 << VDXG_WB_CTRL_CRTC_SHIFT);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_CTRL), ==, VDXG_WB_CTRL_ENABLE);
    wr(d->v, VDXG_REG_WB_CTRL, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_STATUS), ==, 0);
    dp_next_vblank(d, 0);
    g_assert_cmpuint(rd(d->v, VDXG_REG_WB_SEQNO), ==, seqno);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);

    /* The source is CRTC [7:4]: CRTC 1, XBGR8888 content */
    dp_enable(d, 1, m, 0);
    ref_compose(m, 0, &pl1, 1, want);
    dp_wb_run(d, 1, XR24, DP_WB, 256);
    vram_read(d->p, DP_WB, buf, 256 * 48);
    for (i = 0; i < 64 * 48; i++) {
        g_assert_cmphex((uint32_t)ldl_le_p(buf + i * 4), ==, 0xff000000u | want[i]);
    }

    /* Into the aperture, through scattered GART pages */
    for (i = 0; i < 12; i++) {
        qtest_writeq(d->qts, d->p->vram.addr + PG_GART + (40 + i) * 8,
                     SYS_PAGE(DP_SYS_PAGE + 11 - i) | VDXG_GART_PTE_VALID);
    }
    wr(d->v, VDXG_REG_TLB_FLUSH, 1);
    dp_wb_run(d, 1, XR24, APERTURE(40) + 256, 256);
    for (i = 0; i < 64 * 48; i++) {
        uint64_t off = 256 + i * 4;

        g_assert_cmphex(qtest_readl(d->qts, SYS_PAGE(DP_SYS_PAGE + 11 -
                                                     off / 4096) + off % 4096),
                        ==, 0xff000000u | want[i]);
    }
    dp_assert_no_fault(d);

    /* Bad programming: DONE | ERROR, a fault, nothing written */
    {
        static const struct {
            uint32_t fmt, pitch;
            uint64_t addr;
            uint32_t reason;
        } bad[] = {
            { RG16, 256, DP_WB, VDXG_FAULT_PARAM },
            { 0, 256, DP_WB, VDXG_FAULT_PARAM },
            { XR24, 252, DP_WB, VDXG_FAULT_PARAM },
            { XR24, 258, DP_WB, VDXG_FAULT_PARAM },
            { XR24, VDXG_PLANE_MAX_PITCH + 4, DP_WB, VDXG_FAULT_PARAM },
            { XR24, 256, DP_WB + 2, VDXG_FAULT_PARAM },
            { XR24, 256, PG_VRAM_SIZE - 256 * 47, VDXG_FAULT_ADDRESS },
            { AR24, 256, GPU_HOLE, VDXG_FAULT_ADDRESS },
            { AR24, 256, APERTURE(PG_GART_ENTRIES) - 4096,
              VDXG_FAULT_ADDRESS },
        };

        for (i = 0; i < ARRAY_SIZE(bad); i++) {
            wr64(d->v, VDXG_REG_WB_ADDR_LO, bad[i].addr);
            wr(d->v, VDXG_REG_WB_FORMAT, bad[i].fmt);
            wr(d->v, VDXG_REG_WB_PITCH, bad[i].pitch);
            wr(d->v, VDXG_REG_WB_CTRL, VDXG_WB_CTRL_ENABLE);
            dp_next_vblank(d, 0);
            g_assert_cmphex(rd(d->v, VDXG_REG_WB_STATUS), ==,
                            VDXG_WB_STATUS_DONE | VDXG_WB_STATUS_ERROR);
            g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS) &
                            VDXG_INT_WRITEBACK, ==, VDXG_INT_WRITEBACK);
            wr(d->v, VDXG_REG_INT_ACK, VDXG_INT_WRITEBACK);
            dp_assert_fault(d, 0, VDXG_DISP_UNIT_WRITEBACK, bad[i].reason,
                            bad[i].addr);
            g_assert_cmpuint(rd(d->v, VDXG_REG_WB_SEQNO), ==, seqno + 2);
        }
    }

    /* Armed on a CRTC that is off or absent: an error at once */
    wr(d->v, CR(1, VDXG_CRTC_CTRL), 0);
    wr64(d->v, VDXG_REG_WB_ADDR_LO, DP_WB);
    wr(d->v, VDXG_REG_WB_FORMAT, XR24);
    wr(d->v, VDXG_REG_WB_PITCH, 256);
    for (i = 1; i <= 3; i += 2) {
        wr(d->v, VDXG_REG_WB_CTRL, VDXG_WB_CTRL_ENABLE |
           i << VDXG_WB_CTRL_CRTC_SHIFT);
        g_assert_cmphex(rd(d->v, VDXG_REG_WB_STATUS), ==,
                        VDXG_WB_STATUS_DONE | VDXG_WB_STATUS_ERROR);
        g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS) & VDXG_INT_WRITEBACK,
                        ==, VDXG_INT_WRITEBACK);
        wr(d->v, VDXG_REG_INT_ACK, VDXG_INT_WRITEBACK);
        dp_assert_fault(d, i, VDXG_DISP_UNIT_WRITEBACK, VDXG_FAULT_PARAM,
                        DP_WB);
    }

    /* The source turned off while armed: DONE | ERROR, no fault */
    wr(d->v, VDXG_REG_WB_CTRL, VDXG_WB_CTRL_ENABLE);
    wr(d->v, CR(0, VDXG_CRTC_CTRL), 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_STATUS), ==,
                    VDXG_WB_STATUS_DONE | VDXG_WB_STATUS_ERROR);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, VDXG_INT_WRITEBACK);
    dp_assert_no_fault(d);
    g_assert_cmpuint(rd(d->v, VDXG_REG_WB_SEQNO), ==, seqno + 2);
    dp_stop(d);
}

/* EDID: checksum, identity, detailed and standard timings, name */
static void test_dp_edid(void)
{
    Dp *d = dp_start("outputs=3");
    uint8_t e[VDXG_EDID_SIZE];
    int c, i, sum, modes;
    bool have_640 = false, have_1920x1200 = false, have_2560 = false;

    for (c = 0; c < 3; c++) {
        g_autofree char *name = g_strdup_printf("vdxg-%d\n", c);

        for (i = 0; i < VDXG_EDID_SIZE; i += 4) {
            stl_le_p(e + i, rd(d->v, CR(c, VDXG_CRTC_EDID + i)));
        }
        for (sum = 0, i = 0; i < VDXG_EDID_SIZE; i++) {
            sum += e[i];
        }
        g_assert_cmpint(sum % 256, ==, 0);
        g_assert_cmpmem(e, 8, "\0\xff\xff\xff\xff\xff\xff\0", 8);
        /* "VDX", product code 0xd3d0 + output */
        g_assert_cmphex(e[8], ==, 0x58);
        g_assert_cmphex(e[9], ==, 0x98);
        g_assert_cmphex(lduw_le_p(e + 10), ==, 0xd3d0 + c);
        g_assert_cmpuint(e[18], ==, 1);
        g_assert_cmpuint(e[19], ==, 4);
        g_assert_cmphex(e[20] & 0x80, ==, 0x80);     /* digital */
        g_assert_cmphex(e[24] & 0x02, ==, 0x02);     /* preferred is DTD 1 */
        g_assert_cmpuint(e[126], ==, 0);
        /* Established: 640x480, 800x600, 1024x768 @60 */
        g_assert_cmphex(e[35], ==, 0x21);
        g_assert_cmphex(e[36], ==, 0x08);
        if (e[35] & 0x20) {
            have_640 = true;
        }
        /* Standard timings (EDID 1.4: 00 is 16:10) */
        for (modes = 0, i = 38; i < 54; i += 2) {
            static const int num[4] = { 10, 3, 4, 9 }, den[4] = { 16, 4, 5, 16 };
            uint32_t hres = (e[i] + 31) * 8;
            uint32_t vres = hres * num[e[i + 1] >> 6] / den[e[i + 1] >> 6];

            if (e[i] == 1 && e[i + 1] == 1) {
                continue;
            }
            g_assert_cmpuint((e[i + 1] & 0x3f) + 60, ==, 60);
            if (hres == 1920 && vres == 1200) {
                have_1920x1200 = true;
            }
            g_assert_cmpuint(hres, >=, 1280);
            modes++;
        }
        g_assert_cmpuint(modes, ==, 8);
        /* Descriptor 1: preferred 1024x768@60, 65 MHz, 1344 x 806 */
        g_assert_cmpuint(lduw_le_p(e + 54), ==, 6500);
        g_assert_cmpuint(e[56] | (e[58] & 0xf0) << 4, ==, 1024);
        g_assert_cmpuint(e[57] | (e[58] & 0x0f) << 8, ==, 1344 - 1024);
        g_assert_cmpuint(e[59] | (e[61] & 0xf0) << 4, ==, 768);
        g_assert_cmpuint(e[60] | (e[61] & 0x0f) << 8, ==, 806 - 768);
        g_assert_cmpuint(e[62], ==, 24);                /* front porch */
        g_assert_cmpuint(e[63], ==, 136);               /* sync */
        g_assert_cmphex(e[64], ==, 0x36);               /* 3, 6 */
        /* Descriptor 2: 2560x1600@60 reduced blanking */
        g_assert_cmpuint(lduw_le_p(e + 72), ==, 26850);
        g_assert_cmpuint(e[74] | (e[76] & 0xf0) << 4, ==, 2560);
        g_assert_cmpuint(e[77] | (e[79] & 0xf0) << 4, ==, 1600);
        g_assert_cmpuint(e[75] | (e[76] & 0x0f) << 8, ==, 160);
        g_assert_cmpuint(e[78] | (e[79] & 0x0f) << 8, ==, 46);
        have_2560 = true;
        /* Descriptor 3: range limits; descriptor 4: the name */
        g_assert_cmpmem(e + 90, 4, "\0\0\0\xfd", 4);
        g_assert_cmpuint(e[90 + 9] * 10, >=, 269);
        g_assert_cmpmem(e + 108, 5, "\0\0\0\xfc\0", 5);
        g_assert_cmpmem(e + 113, strlen(name), name, strlen(name));
    }
    g_assert_true(have_640 && have_1920x1200 && have_2560);

    /* Disconnected: no EDID */
    qtest_qmp_assert_success(d->qts, "{ 'execute': 'qom-set', 'arguments': "
                             "{ 'path': '/machine/peripheral/gpu', "
                             "'property': 'connected1', 'value': false } }");
    for (i = 0; i < VDXG_EDID_SIZE; i += 4) {
        g_assert_cmphex(rd(d->v, CR(1, VDXG_CRTC_EDID + i)), ==, 0);
    }
    g_assert_cmphex(rd(d->v, CR(2, VDXG_CRTC_EDID)), ==, 0xffffff00);
    dp_stop(d);
}

static void dp_qom_set_connected(Dp *d, int output, bool value)
{
    g_autofree char *name = g_strdup_printf("connected%d", output);

    qtest_qmp_assert_success(d->qts, "{ 'execute': 'qom-set', 'arguments': "
                             "{ 'path': '/machine/peripheral/gpu', "
                             "'property': %s, 'value': %i } }", name, value);
}

static bool dp_qom_get_connected(Dp *d, int output)
{
    g_autofree char *name = g_strdup_printf("connected%d", output);
    QDict *rsp = qtest_qmp(d->qts, "{ 'execute': 'qom-get', 'arguments': "
                           "{ 'path': '/machine/peripheral/gpu', "
                           "'property': %s } }", name);
    bool val;

    g_assert_true(qdict_haskey(rsp, "return"));
    val = qdict_get_bool(rsp, "return");
    qobject_unref(rsp);
    return val;
}

/* Hotplug: the connected<n> properties, CHANGED and HOTPLUG */
static void test_dp_hotplug(void)
{
    Dp *d = dp_start("outputs=2,connected1=false");
    QDict *rsp;

    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CONN_STATUS)), ==,
                    VDXG_CONN_CONNECTED);
    g_assert_cmphex(rd(d->v, CR(1, VDXG_CRTC_CONN_STATUS)), ==, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);
    dp_enable(d, 0, &dp_tiny, VDXG_CRTC_CTRL_VBLANK_IRQ);

    /* Unplug output 0: CHANGED, HOTPLUG on the misc vector */
    msg_clear(d->v);
    dp_qom_set_connected(d, 0, false);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CONN_STATUS)), ==,
                    VDXG_CONN_CHANGED);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, VDXG_INT_HOTPLUG);
    assert_msix_messages(d->v, VDXG_MSIX_VEC_MISC);
    /* CHANGED is write-1-to-clear */
    wr(d->v, CR(0, VDXG_CRTC_CONN_STATUS), VDXG_CONN_CONNECTED);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CONN_STATUS)), ==,
                    VDXG_CONN_CHANGED);
    wr(d->v, CR(0, VDXG_CRTC_CONN_STATUS), VDXG_CONN_CHANGED);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CONN_STATUS)), ==, 0);
    wr(d->v, VDXG_REG_INT_ACK, VDXG_INT_HOTPLUG);

    /* The pipe runs on without a monitor. */
    dp_next_vblank(d, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, VDXG_INT_VBLANK(0));
    wr(d->v, VDXG_REG_INT_ACK, ~0u);

    /* The same value again: nothing */
    dp_qom_set_connected(d, 0, false);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);

    /* Plug output 1 */
    msg_clear(d->v);
    dp_qom_set_connected(d, 1, true);
    g_assert_cmphex(rd(d->v, CR(1, VDXG_CRTC_CONN_STATUS)), ==,
                    VDXG_CONN_CONNECTED | VDXG_CONN_CHANGED);
    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CONN_STATUS)), ==, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, VDXG_INT_HOTPLUG);
    assert_msix_messages(d->v, VDXG_MSIX_VEC_MISC);
    g_assert_cmphex(rd(d->v, CR(1, VDXG_CRTC_EDID)), ==, 0xffffff00);
    g_assert_true(dp_qom_get_connected(d, 1));
    g_assert_false(dp_qom_get_connected(d, 0));

    /* An output that does not exist */
    rsp = qtest_qmp(d->qts, "{ 'execute': 'qom-set', 'arguments': "
                    "{ 'path': '/machine/peripheral/gpu', "
                    "'property': 'connected2', 'value': false } }");
    g_assert_true(qdict_haskey(rsp, "error"));
    qobject_unref(rsp);
    dp_stop(d);
}

/* A plane fault case: what to break, and the fault it gives */
typedef struct DpFaultCase {
    const char *name;
    int plane;
    uint32_t reason;
    void (*breakit)(DpPlane *pl);
} DpFaultCase;

static void brk_fmt0(DpPlane *pl) { pl->fmt = 0; }
static void brk_fmt_yuyv(DpPlane *pl) { pl->fmt = VDXG_FOURCC('Y', 'U', 'Y', 'V'); }
static void brk_cursor_fmt(DpPlane *pl) { pl->fmt = XR24; }
static void brk_w0(DpPlane *pl) { pl->w = 0; }
static void brk_h0(DpPlane *pl) { pl->h = 0; }
static void brk_wide(DpPlane *pl) { pl->w = VDXG_PLANE_MAX_DIM + 1; pl->pitch = pl->w * 4; }
static void brk_cursor_big(DpPlane *pl) { pl->w = 257; pl->pitch = 257 * 4; }
static void brk_pitch_small(DpPlane *pl) { pl->pitch = pl->w * 4 - 4; }
static void brk_pitch_odd(DpPlane *pl) { pl->fmt = RG16; pl->pitch = pl->w * 2 + 1; }
static void brk_pitch_big(DpPlane *pl) { pl->pitch = VDXG_PLANE_MAX_PITCH + 4; }
static void brk_addr_align(DpPlane *pl) { pl->addr += 2; }
static void brk_blend(DpPlane *pl) { pl->ctrl |= BLEND(3); }
static void brk_zpos(DpPlane *pl) { pl->zpos = VDXG_ZPOS_MAX + 1; }
static void brk_hole(DpPlane *pl) { pl->addr = GPU_HOLE; }
static void brk_vram_end(DpPlane *pl) { pl->addr = PG_VRAM_SIZE - pl->pitch * (pl->h - 1); }
static void brk_ap_end(DpPlane *pl) { pl->addr = APERTURE(PG_GART_ENTRIES) - pl->pitch; }
static void brk_wrap(DpPlane *pl) { pl->addr = UINT64_MAX - 3; }

static const DpFaultCase dp_fault_cases[] = {
    { "format-0", PRIMARY, VDXG_FAULT_PARAM, brk_fmt0 },
    { "format-yuyv", OVERLAY, VDXG_FAULT_PARAM, brk_fmt_yuyv },
    { "cursor-format", CURSOR, VDXG_FAULT_PARAM, brk_cursor_fmt },
    { "width-0", PRIMARY, VDXG_FAULT_PARAM, brk_w0 },
    { "height-0", CURSOR, VDXG_FAULT_PARAM, brk_h0 },
    { "too-wide", OVERLAY, VDXG_FAULT_PARAM, brk_wide },
    { "cursor-too-big", CURSOR, VDXG_FAULT_PARAM, brk_cursor_big },
    { "pitch-small", PRIMARY, VDXG_FAULT_PARAM, brk_pitch_small },
    { "pitch-odd", OVERLAY, VDXG_FAULT_PARAM, brk_pitch_odd },
    { "pitch-big", PRIMARY, VDXG_FAULT_PARAM, brk_pitch_big },
    { "addr-align", OVERLAY, VDXG_FAULT_PARAM, brk_addr_align },
    { "blend-3", CURSOR, VDXG_FAULT_PARAM, brk_blend },
    { "zpos-3", PRIMARY, VDXG_FAULT_PARAM, brk_zpos },
    { "addr-hole", OVERLAY, VDXG_FAULT_ADDRESS, brk_hole },
    { "addr-vram-end", PRIMARY, VDXG_FAULT_ADDRESS, brk_vram_end },
    { "addr-aperture-end", CURSOR, VDXG_FAULT_ADDRESS, brk_ap_end },
    { "addr-wrap", OVERLAY, VDXG_FAULT_ADDRESS, brk_wrap },
};

/* A bad plane: a fault at latch time, the plane hidden, the rest shown */
static void test_dp_fault(const void *data)
{
    const DpFaultCase *fc = data;
    Dp *d = dp_start(NULL);
    DpPlane pl[3], bad;
    uint32_t k;
    int p;

    dp_enable(d, 0, &dp_small, 0);
    wr(d->v, CR(0, VDXG_CRTC_BG_COLOR), 0x102030);
    pl[PRIMARY] = dp_rand_plane(d, DP_FB(0), XR24, 100, 90, 0, 0, 80);
    pl[OVERLAY] = dp_rand_plane(d, DP_FB(1), XR24, 60, 50, 70, 50, 81);
    pl[OVERLAY].zpos = 1;
    pl[CURSOR] = dp_cursor_plane(d, DP_FB(2), 64, 90, 60,
                                 VDXG_BLEND_PREMULTI, 82);
    for (p = 0; p < 3; p++) {
        dp_plane(d, 0, p, &pl[p]);
    }
    dp_flip(d, 0);
    dp_check_frame(d, 0, 0x102030, pl, 3);

    bad = pl[fc->plane];
    fc->breakit(&bad);
    dp_plane(d, 0, fc->plane, &bad);
    msg_clear(d->v);
    if (fc->plane == CURSOR && fc->reason == VDXG_FAULT_PARAM) {
        /* Through the fast path: faults at once */
        k = rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT));
        wr(d->v, CR(0, VDXG_CRTC_CURSOR_UPDATE), 1);
    } else {
        k = dp_flip(d, 0);
    }
    g_assert_cmphex(rd(d->v, PL(0, fc->plane, VDXG_PLANE_STATUS)), ==,
                    VDXG_PLANE_STATUS_FAULT);
    g_assert_cmphex(rd64(d->v, PL(0, fc->plane, VDXG_PLANE_CUR_ADDR_LO)), ==,
                    bad.addr);
    g_assert_cmpuint(rd(d->v, VDXG_REG_FAULT_CONTEXT), ==, k);
    g_assert_cmpuint(rd(d->v, VDXG_REG_FAULT_COUNT), ==, 1);
    g_assert_true(msg_read(d->v, VDXG_MSIX_VEC_MISC) == MSIX_DATA(0));
    dp_assert_fault(d, 0, fc->plane, fc->reason, bad.addr);
    /* The others are shown, the bad one is not, and it does not fault on */
    pl[fc->plane].ctrl = 0;
    dp_check_frame(d, 0, 0x102030, pl, 3);
    dp_next_vblank(d, 0);
    dp_assert_no_fault(d);
    for (p = 0; p < 3; p++) {
        g_assert_cmphex(rd(d->v, PL(0, p, VDXG_PLANE_STATUS)), ==,
                        p == fc->plane ? VDXG_PLANE_STATUS_FAULT :
                        VDXG_PLANE_STATUS_ACTIVE);
    }
    /* A good latch brings it back. */
    pl[fc->plane].ctrl = bad.ctrl & ~VDXG_PLANE_CTRL_BLEND_MASK;
    if (fc->plane == CURSOR) {
        pl[fc->plane].ctrl |= BLEND(VDXG_BLEND_PREMULTI);
    }
    dp_plane(d, 0, fc->plane, &pl[fc->plane]);
    dp_flip(d, 0);
    dp_check_frame(d, 0, 0x102030, pl, 3);
    dp_assert_no_fault(d);
    g_assert_cmphex(rd(d->v, VDXG_REG_ID), ==, VDXG_ID_MAGIC);
    dp_stop(d);
}

/* Scanout from the aperture; a bus error there faults at composition. */
static void test_dp_aperture(void)
{
    const DpMode *m = &dp_small;
    Dp *d = dp_start(NULL);
    g_autofree uint8_t *dummy = dp_pattern(4096, 90);
    uint8_t *data = dp_pattern(160 * 120 * 4, 91);
    uint8_t *shown;
    DpPlane pl = {
        .ctrl = PLANE_ON, .addr = APERTURE(100), .fmt = XR24, .pitch = 640,
        .w = 160, .h = 120, .alpha = 0xffff,
    };
    uint32_t i, pages = 160 * 120 * 4 / 4096 + 1;

    /* Pages in reverse order; the last one unmapped (the dummy page) */
    for (i = 0; i < pages; i++) {
        qtest_writeq(d->qts, d->p->vram.addr + PG_GART + (100 + i) * 8,
                     i == pages - 1 ? 0 :
                     SYS_PAGE(DP_SYS_PAGE + pages - 1 - i) |
                     VDXG_GART_PTE_VALID);
        qtest_bufwrite(d->qts, SYS_PAGE(DP_SYS_PAGE + pages - 1 - i),
                       data + i * 4096,
                       MIN(4096, 160 * 120 * 4 - i * 4096));
    }
    qtest_bufwrite(d->qts, SYS_DUMMY, dummy, 4096);
    wr(d->v, VDXG_REG_TLB_FLUSH, 1);
    /* What the plane shows: the dummy page in the last page */
    shown = g_memdup2(data, 160 * 120 * 4);
    for (i = (pages - 1) * 4096; i < 160 * 120 * 4; i++) {
        shown[i] = dummy[i % 4096];
    }
    pl.data = shown;
    dp_plane(d, 0, PRIMARY, &pl);
    dp_enable(d, 0, m, VDXG_CRTC_CTRL_CRC);
    dp_check_frame(d, 0, 0, &pl, 1);

    /* Memory in the aperture is read again every frame. */
    data[5 * 640 + 8] ^= 0xff;
    shown[5 * 640 + 8] ^= 0xff;
    qtest_bufwrite(d->qts, SYS_PAGE(DP_SYS_PAGE + pages - 1), data, 4096);
    dp_check_frame(d, 0, 0, &pl, 1);

    /* A page that the bus rejects: ADDRESS fault, the plane hidden */
    qtest_writeq(d->qts, d->p->vram.addr + PG_GART + (100 + 3) * 8,
                 BUS_HOLE | VDXG_GART_PTE_VALID);
    wr(d->v, VDXG_REG_TLB_FLUSH, 1);
    dp_next_vblank(d, 0);
    /* The first access to page 3 */
    dp_assert_fault(d, 0, PRIMARY, VDXG_FAULT_ADDRESS, APERTURE(103));
    g_assert_cmphex(rd(d->v, PL(0, PRIMARY, VDXG_PLANE_STATUS)), ==,
                    VDXG_PLANE_STATUS_FAULT);
    pl.ctrl = 0;
    dp_check_frame(d, 0, 0, &pl, 1);
    dp_assert_no_fault(d);
    g_free(data);
    g_free(shown);
    dp_stop(d);
}

/* QMP screendump shows each CRTC's frame, black while off */
static void test_dp_screendump(void)
{
    Dp *d = dp_start("outputs=2");
    DpPlane pl = dp_rand_plane(d, DP_FB(0), XR24, 160, 120, 0, 0, 95);
    DpPlane pl1 = dp_solid_plane(d, DP_FB(1), XR24, 0x4080c0, 64, 48, 0, 0);
    g_autofree uint32_t *want = g_new(uint32_t, 640 * 480);
    g_autofree uint8_t *png = NULL;
    g_autofree char *path = NULL;
    gsize len;

    /* Off: a black 640x480 surface */
    memset(want, 0, 640 * 480 * 4);
    dp_check_screendump(d, NULL, 0, want, 640, 480);
    dp_check_screendump(d, "gpu", 1, want, 640, 480);

    dp_plane(d, 0, PRIMARY, &pl);
    dp_enable(d, 0, &dp_small, 0);
    ref_compose(&dp_small, 0, &pl, 1, want);
    dp_check_screendump(d, NULL, 0, want, 160, 120);
    dp_check_screendump(d, "gpu", 0, want, 160, 120);

    dp_plane(d, 1, PRIMARY, &pl1);
    dp_enable(d, 1, &dp_tiny, 0);
    ref_compose(&dp_tiny, 0, &pl1, 1, want);
    dp_check_screendump(d, "gpu", 1, want, 64, 48);

    /* Changed memory shows at once, without a vblank. */
    vram_writel(d->p, DP_FB(1) + 10 * 256 + 20 * 4, 0x00ff00ff);
    want[10 * 64 + 20] = 0xff00ff;
    dp_check_screendump(d, "gpu", 1, want, 64, 48);

    /* PNG works as well */
    path = g_strdup_printf("%s/dump.png", d->tmpdir);
    qtest_qmp_assert_success(d->qts, "{ 'execute': 'screendump', "
                             "'arguments': { 'filename': %s, "
                             "'format': 'png' } }", path);
    g_assert_true(g_file_get_contents(path, (char **)&png, &len, NULL));
    g_unlink(path);
    g_assert_cmpuint(len, >, 24);
    g_assert_cmpmem(png, 8, "\x89PNG\r\n\x1a\n", 8);
    g_assert_cmpuint(ldl_be_p(png + 16), ==, 160);
    g_assert_cmpuint(ldl_be_p(png + 20), ==, 120);

    /* Off again: black, in the last size */
    wr(d->v, CR(0, VDXG_CRTC_CTRL), 0);
    memset(want, 0, 160 * 120 * 4);
    dp_check_screendump(d, NULL, 0, want, 160, 120);
    dp_stop(d);
}

/* Soft and device reset turn the display off and clear it. */
static void test_dp_reset(void)
{
    Dp *d = dp_start("outputs=2");
    DpPlane pl = dp_rand_plane(d, DP_FB(0), XR24, 64, 48, 0, 0, 96);
    int round, c, p;

    for (round = 0; round < 2; round++) {
        for (c = 0; c < 2; c++) {
            dp_plane(d, c, PRIMARY, &pl);
            dp_enable(d, c, &dp_tiny, VDXG_CRTC_CTRL_VBLANK_IRQ |
                      VDXG_CRTC_CTRL_CRC);
            wr(d->v, CR(c, VDXG_CRTC_BG_COLOR), 0x123456);
        }
        dp_next_vblank(d, 0);
        wr(d->v, CR(0, VDXG_CRTC_FLIP), 1);
        wr64(d->v, VDXG_REG_WB_ADDR_LO, DP_WB);
        wr(d->v, VDXG_REG_WB_FORMAT, XR24);
        wr(d->v, VDXG_REG_WB_PITCH, 256);
        wr(d->v, VDXG_REG_WB_CTRL, VDXG_WB_CTRL_ENABLE |
           1 << VDXG_WB_CTRL_CRTC_SHIFT);
        dp_qom_set_connected(d, 1, false);
        dp_qom_set_connected(d, 1, true);

        if (round == 0) {
            wr(d->v, VDXG_REG_RESET, VDXG_RESET_MAGIC);
        } else {
            qtest_qmp_assert_success(d->qts,
                                     "{ 'execute': 'system_reset' }");
            qtest_qmp_eventwait(d->qts, "RESET");
            qpci_device_enable(d->v->dev);
            d->v->mmio = qpci_iomap(d->v->dev, VDXG_BAR_MMIO, NULL);
            d->p->vram = qpci_iomap(d->v->dev, VDXG_BAR_VRAM, NULL);
            msix_setup(d->v);
        }
        wr(d->v, VDXG_REG_INT_MASK, VDXG_INT_VALID_MASK);
        for (c = 0; c < 2; c++) {
            g_assert_cmphex(rd(d->v, CR(c, VDXG_CRTC_CTRL)), ==, 0);
            g_assert_cmphex(rd(d->v, CR(c, VDXG_CRTC_STATUS)), ==, 0);
            g_assert_cmphex(rd(d->v, CR(c, VDXG_CRTC_HDISPLAY)), ==, 0);
            g_assert_cmphex(rd(d->v, CR(c, VDXG_CRTC_FRAME_COUNT)), ==, 0);
            g_assert_cmphex(rd(d->v, CR(c, VDXG_CRTC_CRC)), ==, 0);
            g_assert_cmphex(rd(d->v, CR(c, VDXG_CRTC_BG_COLOR)), ==, 0);
            g_assert_cmphex(rd(d->v, CR(c, VDXG_CRTC_CONN_STATUS)), ==,
                            VDXG_CONN_CONNECTED);
            for (p = 0; p < 3; p++) {
                g_assert_cmphex(rd(d->v, PL(c, p, VDXG_PLANE_CTRL)), ==, 0);
                g_assert_cmphex(rd(d->v, PL(c, p, VDXG_PLANE_STATUS)), ==, 0);
                g_assert_cmphex(rd64(d->v, PL(c, p,
                                              VDXG_PLANE_CUR_ADDR_LO)), ==, 0);
            }
        }
        g_assert_cmphex(rd(d->v, VDXG_REG_WB_CTRL), ==, 0);
        g_assert_cmphex(rd(d->v, VDXG_REG_WB_STATUS), ==, 0);
        g_assert_cmphex(rd(d->v, VDXG_REG_WB_SEQNO), ==, 0);
        g_assert_cmphex(rd64(d->v, VDXG_REG_WB_ADDR_LO), ==, 0);
        /* Nothing fires any more. */
        dp_step(d, 200 * 1000 * 1000);
        g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);
        {
            g_autofree uint32_t *black = g_new0(uint32_t, 640 * 480);

            dp_check_screendump(d, NULL, 0, black, 640, 480);
        }
    }
    dp_stop(d);
}

/* Migration with a flip, a CRC and a writeback under way */
static void test_dp_migration(void)
{
    g_autofree char *tmpdir = g_dir_make_tmp("vdxg-test-XXXXXX", NULL);
    g_autofree char *sock = g_strdup_printf("%s/migration", tmpdir);
    g_autofree char *uri = g_strdup_printf("unix:%s", sock);
    const DpMode *m = &dp_small;
    Dp *src = dp_start("outputs=2");
    Dp *dst = g_new0(Dp, 1);
    DpPlane a = dp_rand_plane(src, DP_FB(0), XR24, 160, 120, 0, 0, 97);
    DpPlane b = dp_rand_plane(src, DP_FB(1), AR24, 100, 100, 30, 10, 98);
    g_autofree uint32_t *want = g_new(uint32_t, 160 * 120);
    uint32_t regs[8], k, bar0, i;
    uint64_t bar2;
    int64_t now;

    b.ctrl |= BLEND(VDXG_BLEND_COVERAGE);
    b.zpos = 1;
    dp_plane(src, 0, PRIMARY, &a);
    dp_enable(src, 0, m, VDXG_CRTC_CTRL_VBLANK_IRQ | VDXG_CRTC_CTRL_CRC);
    dp_enable(src, 1, &dp_tiny, 0);
    for (i = 0; i < 4; i++) {
        dp_next_vblank(src, 0);
    }
    dp_step_to(src, dp_vblank_time(src, 0, 4) + 1000);
    wr(src->v, VDXG_REG_INT_ACK, ~0u);
    /* Pending: an overlay flip and a capture at the next vblank */
    dp_plane(src, 0, OVERLAY, &b);
    wr(src->v, CR(0, VDXG_CRTC_FLIP), 1);
    wr64(src->v, VDXG_REG_WB_ADDR_LO, DP_WB);
    wr(src->v, VDXG_REG_WB_FORMAT, XR24);
    wr(src->v, VDXG_REG_WB_PITCH, 640);
    wr(src->v, VDXG_REG_WB_CTRL, VDXG_WB_CTRL_ENABLE);
    dp_qom_set_connected(src, 1, false);
    now = dp_now(src);
    regs[0] = rd(src->v, CR(0, VDXG_CRTC_FRAME_COUNT));
    regs[1] = rd(src->v, CR(0, VDXG_CRTC_CRC));
    regs[2] = rd(src->v, CR(0, VDXG_CRTC_CRC_FRAME));
    regs[3] = rd(src->v, CR(0, VDXG_CRTC_STATUS));
    regs[4] = rd(src->v, CR(1, VDXG_CRTC_FRAME_COUNT));
    regs[5] = rd(src->v, CR(1, VDXG_CRTC_CONN_STATUS));
    regs[6] = rd(src->v, VDXG_REG_WB_STATUS);
    regs[7] = rd(src->v, CR(0, VDXG_CRTC_SCANLINE));
    g_assert_cmphex(regs[3], ==, VDXG_CRTC_STATUS_ACTIVE |
                    VDXG_CRTC_STATUS_FLIP_PENDING | VDXG_CRTC_STATUS_VBLANK);
    g_assert_cmphex(regs[6], ==, VDXG_WB_STATUS_BUSY);
    bar0 = qpci_config_readl(src->v->dev, PCI_BASE_ADDRESS_0);
    bar2 = (qpci_config_readl(src->v->dev, PCI_BASE_ADDRESS_2) |
            (uint64_t)qpci_config_readl(src->v->dev, PCI_BASE_ADDRESS_3) << 32)
           & ~0xfull;

    dst->qts = qtest_initf("-machine q35 -nodefaults %s "
                           "-device vdxg,addr=%02x.0,%s,outputs=2 "
                           "-incoming %s", vdxg_qemu_args(), VDXG_SLOT,
                           PG_PROPS, uri);
    qtest_qmp_assert_success(src->qts, "{ 'execute': 'migrate', "
                             "'arguments': { 'uri': %s } }", uri);
    qtest_qmp_eventwait(dst->qts, "RESUME");
    /* The qtest clock is not migrated: catch up with the source. */
    dst->now = qtest_clock_set(dst->qts, now);
    g_assert_cmpint(dst->now, ==, now);

    dst->p = g_new0(Pg, 1);
    dst->v = &dst->p->v;
    dst->v->qts = dst->qts;
    dst->v->bus = qpci_new_pc(dst->qts, NULL);
    dst->v->dev = qpci_device_find(dst->v->bus, VDXG_DEVFN);
    g_assert_nonnull(dst->v->dev);
    dst->v->mmio = (QPCIBar) { .addr = bar0 & PCI_BASE_ADDRESS_MEM_MASK };
    dst->p->vram = (QPCIBar) { .addr = bar2 };
    memcpy(dst->t0, src->t0, sizeof(dst->t0));
    memcpy(dst->mode, src->mode, sizeof(dst->mode));

    g_assert_cmphex(rd(dst->v, CR(0, VDXG_CRTC_FRAME_COUNT)), ==, regs[0]);
    g_assert_cmphex(rd(dst->v, CR(0, VDXG_CRTC_CRC)), ==, regs[1]);
    g_assert_cmphex(rd(dst->v, CR(0, VDXG_CRTC_CRC_FRAME)), ==, regs[2]);
    g_assert_cmphex(rd(dst->v, CR(0, VDXG_CRTC_STATUS)), ==, regs[3]);
    g_assert_cmphex(rd(dst->v, CR(1, VDXG_CRTC_FRAME_COUNT)), ==, regs[4]);
    g_assert_cmphex(rd(dst->v, CR(1, VDXG_CRTC_CONN_STATUS)), ==, regs[5]);
    g_assert_cmphex(rd(dst->v, VDXG_REG_WB_STATUS), ==, regs[6]);
    g_assert_cmphex(rd(dst->v, CR(0, VDXG_CRTC_SCANLINE)), ==, regs[7]);
    g_assert_cmphex(rd(dst->v, VDXG_REG_INT_STATUS), ==, VDXG_INT_HOTPLUG);

    /* The next vblank on the destination does what was pending. */
    k = dp_next_vblank(dst, 0);
    g_assert_cmphex(rd(dst->v, VDXG_REG_INT_STATUS), ==,
                    VDXG_INT_HOTPLUG | VDXG_INT_VBLANK(0) |
                    VDXG_INT_FLIP_DONE(0) | VDXG_INT_WRITEBACK);
    {
        DpPlane pls[2] = { a, b };

        ref_compose(m, 0, pls, 2, want);
    }
    g_assert_cmpuint(rd(dst->v, CR(0, VDXG_CRTC_CRC_FRAME)), ==, k);
    g_assert_cmphex(rd(dst->v, CR(0, VDXG_CRTC_CRC)), ==,
                    ref_frame_crc(want, 160 * 120));
    g_assert_cmpuint(rd(dst->v, VDXG_REG_WB_FRAME), ==, k);
    {
        g_autofree uint8_t *buf = g_malloc(160 * 120 * 4);

        vram_read(dst->p, DP_WB, buf, 160 * 120 * 4);
        for (i = 0; i < 160 * 120; i++) {
            g_assert_cmphex((uint32_t)ldl_le_p(buf + i * 4), ==, 0xff000000u | want[i]);
        }
    }
    /* And the console shows it */
    dp_check_screendump(dst, NULL, 0, want, 160, 120);

    dp_stop(dst);
    dp_stop(src);
    g_unlink(sock);
    g_rmdir(tmpdir);
}

/* Random display programming: never a crash, faults are sane */
static void test_dp_fuzz(void)
{
    static const DpMode *const modes[] = { &dp_tiny, &dp_small, &dp_640 };
    static const uint32_t fmts[] = { XR24, AR24, XB24, RG16, 0, 0x12345678 };
    g_autoptr(GRand) rnd = g_rand_new_with_seed(4321);
    Dp *d = dp_start("outputs=2");
    g_autofree uint8_t *junk = dp_pattern(1 * MiB, 99);
    uint32_t round, faults = 0, reason;
    int w, h;

    vram_write(d->p, DP_FB(0), junk, 1 * MiB);
    for (round = 0; round < 400; round++) {
        uint32_t c = g_rand_int_range(rnd, 0, 2);
        uint32_t p = g_rand_int_range(rnd, 0, 3);
        uint32_t reg = g_rand_int_range(rnd, 0, 0x200) & ~3u;
        uint32_t val;

        switch (g_rand_int_range(rnd, 0, 12)) {
        case 0:
            if (!(rd(d->v, CR(c, VDXG_CRTC_STATUS)) &
                  VDXG_CRTC_STATUS_ACTIVE)) {
                dp_set_mode(d, c, modes[g_rand_int_range(rnd, 0, 3)]);
            }
            wr(d->v, CR(c, VDXG_CRTC_CTRL), g_rand_int_range(rnd, 0, 16));
            break;
        case 1:
            wr(d->v, CR(c, VDXG_CRTC_FLIP), 1);
            break;
        case 2:
            wr(d->v, CR(c, VDXG_CRTC_CURSOR_UPDATE), 1);
            break;
        case 3:
            wr(d->v, PL(c, p, VDXG_PLANE_FORMAT),
               fmts[g_rand_int_range(rnd, 0, ARRAY_SIZE(fmts))]);
            break;
        case 4:
            wr(d->v, PL(c, p, VDXG_PLANE_SRC_SIZE),
               VDXG_PLANE_SIZE_WH(g_rand_int_range(rnd, 0, 300),
                                  g_rand_int_range(rnd, 0, 300)));
            wr(d->v, PL(c, p, VDXG_PLANE_PITCH),
               g_rand_int_range(rnd, 0, 1300));
            break;
        case 5:
            wr64(d->v, PL(c, p, VDXG_PLANE_ADDR_LO),
                 g_rand_boolean(rnd) ? DP_FB(0) + g_rand_int_range(rnd, 0,
                                                                   4096) :
                 fuzz_value(d->p, false));
            break;
        case 6:
            wr(d->v, PL(c, p, VDXG_PLANE_DST_POS), g_rand_int(rnd));
            wr(d->v, PL(c, p, VDXG_PLANE_CTRL), g_rand_int(rnd));
            break;
        case 7:
            wr64(d->v, VDXG_REG_WB_ADDR_LO, g_rand_boolean(rnd) ? DP_WB :
                 fuzz_value(d->p, false));
            wr(d->v, VDXG_REG_WB_FORMAT, fmts[g_rand_int_range(rnd, 0, 3)]);
            wr(d->v, VDXG_REG_WB_PITCH, g_rand_int_range(rnd, 0, 4000));
            wr(d->v, VDXG_REG_WB_CTRL, g_rand_int_range(rnd, 0, 0x40));
            break;
        case 8:
            dp_step(d, g_rand_int_range(rnd, 0, 40000000));
            break;
        case 9:
            g_free(dp_screendump(d, "gpu", c, &w, &h));
            break;
        default:
            val = g_rand_int_range(rnd, 0, 3) ? g_rand_int_range(rnd, 0, 300)
                                              : g_rand_int(rnd);
            wr(d->v, CR(c, reg), val);
            break;
        }
        if (rd(d->v, VDXG_REG_FAULT_STATUS)) {
            faults++;
            g_assert_cmphex(rd(d->v, VDXG_REG_FAULT_ENGINE), ==,
                            VDXG_FAULT_ENGINE_DISPLAY);
            reason = rd(d->v, VDXG_REG_FAULT_REASON);
            g_assert_true(reason == VDXG_FAULT_PARAM ||
                          reason == VDXG_FAULT_ADDRESS);
            wr(d->v, VDXG_REG_FAULT_CLEAR, 1);
        }
        wr(d->v, VDXG_REG_INT_ACK, ~0u);
    }
    g_test_message("%u faults in 400 rounds", faults);
    g_assert_cmpuint(faults, >, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_ID), ==, VDXG_ID_MAGIC);

    /* After a reset the display works as ever. */
    wr(d->v, VDXG_REG_RESET, VDXG_RESET_MAGIC);
    wr(d->v, VDXG_REG_INT_MASK, VDXG_INT_VALID_MASK);
    {
        DpPlane pl = dp_rand_plane(d, DP_FB(3), XR24, 64, 48, 0, 0, 5);

        dp_plane(d, 0, PRIMARY, &pl);
        dp_enable(d, 0, &dp_tiny, 0);
        dp_check_frame(d, 0, 0, &pl, 1);
    }
    dp_stop(d);
}

/* SR-IOV and resizable BAR */

/*
 * The PF behind a root port at 05.0 of pcie.0: bus 1, device 0; its VFs
 * are functions 1 + index of bus 1 (VF offset 1, stride 1).
 */
#define SR_RP_DEVFN         QPCI_DEVFN(5, 0)
#define SR_PF_DEVFN         QPCI_DEVFN(1 << 5, 0)
#define SR_VF_DEVFN(i)      (SR_PF_DEVFN + 1 + (i))
#define SR_VF_VRAM          (32 * MiB)
#define SR_VF_MMIO_BASE     0xf4000000u
#define SR_VF_MSIX_BASE     0xf4100000u
#define SR_VF_VRAM_BASE     0xf6000000u     /* 4 x 32 MiB */
#define SR_ECAM             0xb0000000u

typedef struct SrRange {
    uint64_t off;
    uint64_t len;
} SrRange;

typedef struct Sr {
    Vdxg pf;
    QPCIBar pf_vram;
    uint16_t sriov;                 /* SR-IOV capability of the PF */
    Vdxg vf[VDXG_SRIOV_TOTAL_VFS_DEFAULT];
    QPCIBar vf_vram[VDXG_SRIOV_TOTAL_VFS_DEFAULT];
} Sr;

/*
 * Extended configuration space through ECAM: firmware does not run under
 * qtest, so the test enables q35's MMCONFIG window itself.
 */
static void ecam_enable(QPCIBus *bus)
{
    QPCIDevice *mch = qpci_device_find(bus, QPCI_DEVFN(0, 0));

    g_assert_nonnull(mch);
    qpci_config_writel(mch, 0x64, 0);
    qpci_config_writel(mch, 0x60, SR_ECAM | 1);
    g_free(mch);
}

static uint32_t ecam_readl(QTestState *qts, int devfn, uint16_t off)
{
    return qtest_readl(qts, SR_ECAM + ((uint32_t)devfn << 12) + off);
}

static uint16_t ecam_readw(QTestState *qts, int devfn, uint16_t off)
{
    return qtest_readw(qts, SR_ECAM + ((uint32_t)devfn << 12) + off);
}

static void ecam_writel(QTestState *qts, int devfn, uint16_t off,
                        uint32_t val)
{
    qtest_writel(qts, SR_ECAM + ((uint32_t)devfn << 12) + off, val);
}

static void ecam_writew(QTestState *qts, int devfn, uint16_t off,
                        uint16_t val)
{
    qtest_writew(qts, SR_ECAM + ((uint32_t)devfn << 12) + off, val);
}

/* The extended capability @id of function @devfn, or 0 */
static uint16_t ext_cap_find(QTestState *qts, int devfn, uint16_t id)
{
    uint16_t off = 0x100;
    uint32_t hdr;

    while (off) {
        hdr = ecam_readl(qts, devfn, off);
        if (hdr == 0 || hdr == 0xffffffff) {
            return 0;
        }
        if (PCI_EXT_CAP_ID(hdr) == id) {
            return off;
        }
        off = PCI_EXT_CAP_NEXT(hdr);
    }
    return 0;
}

/* Start QEMU with the PF (@props) behind a root port and map its BARs. */
static void sr_start(Sr *sr, const char *props)
{
    QPCIDevice *rp;
    uint64_t size;
    g_autofree char *args = g_strdup_printf(
        "-device pcie-root-port,id=rp0,bus=pcie.0,addr=05.0,chassis=1 "
        "-device vdxg,id=gpu,bus=rp0%s%s", props ? "," : "", props ?: "");

    memset(sr, 0, sizeof(*sr));
    sr->pf.qts = vdxg_qtest_start(args);
    sr->pf.bus = qpci_new_pc(sr->pf.qts, NULL);
    g_assert_cmpint(qpci_secondary_buses_init(sr->pf.bus), ==, 1);
    ecam_enable(sr->pf.bus);

    /* The root port forwards 0xe0000000..0xfdffffff */
    rp = qpci_device_find(sr->pf.bus, SR_RP_DEVFN);
    g_assert_nonnull(rp);
    qpci_config_writew(rp, PCI_MEMORY_BASE, 0xe000);
    qpci_config_writew(rp, PCI_MEMORY_LIMIT, 0xfdf0);
    qpci_device_enable(rp);
    g_free(rp);

    sr->pf.dev = qpci_device_find(sr->pf.bus, SR_PF_DEVFN);
    g_assert_nonnull(sr->pf.dev);
    qpci_device_enable(sr->pf.dev);
    sr->pf.mmio = qpci_iomap(sr->pf.dev, VDXG_BAR_MMIO, &size);
    sr->pf_vram = qpci_iomap(sr->pf.dev, VDXG_BAR_VRAM, &size);
    g_assert_cmphex(size, ==, VDXG_VRAM_BAR_SIZE_DEFAULT);
    g_assert_cmphex(sr->pf.bus->mmio_alloc_ptr, <=, SR_VF_MMIO_BASE);
    sr->sriov = ext_cap_find(sr->pf.qts, SR_PF_DEVFN, PCI_EXT_CAP_ID_SRIOV);
}

/* Enable @n VFs with their BARs at the SR_VF_* bases, and map them. */
static void sr_enable_vfs(Sr *sr, int n)
{
    QTestState *qts = sr->pf.qts;
    uint16_t c = sr->sriov;
    int i;

    g_assert_cmphex(c, !=, 0);
    ecam_writew(qts, SR_PF_DEVFN, c + PCI_SRIOV_NUM_VF, n);
    ecam_writel(qts, SR_PF_DEVFN, c + PCI_SRIOV_BAR + VDXG_BAR_MMIO * 4,
                SR_VF_MMIO_BASE);
    ecam_writel(qts, SR_PF_DEVFN, c + PCI_SRIOV_BAR + VDXG_BAR_VRAM * 4,
                SR_VF_VRAM_BASE);
    ecam_writel(qts, SR_PF_DEVFN, c + PCI_SRIOV_BAR + VDXG_BAR_MSIX * 4,
                SR_VF_MSIX_BASE);
    ecam_writew(qts, SR_PF_DEVFN, c + PCI_SRIOV_CTRL,
                PCI_SRIOV_CTRL_VFE | PCI_SRIOV_CTRL_MSE);
    g_assert_cmpuint(rd(&sr->pf, VDXG_REG_SRIOV_NUM_VFS), ==, n);

    for (i = 0; i < n; i++) {
        Vdxg *v = &sr->vf[i];

        v->qts = qts;
        v->bus = sr->pf.bus;
        v->dev = g_new0(QPCIDevice, 1);
        v->dev->bus = sr->pf.bus;
        v->dev->devfn = SR_VF_DEVFN(i);
        ecam_writew(qts, SR_VF_DEVFN(i), PCI_COMMAND,
                    PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
        v->mmio = (QPCIBar) { .addr = SR_VF_MMIO_BASE + i * VDXG_MMIO_SIZE };
        sr->vf_vram[i] = (QPCIBar) {
            .addr = SR_VF_VRAM_BASE + (uint64_t)i * SR_VF_VRAM,
        };
    }
}

static void sr_stop(Sr *sr)
{
    int i;

    for (i = 0; i < ARRAY_SIZE(sr->vf); i++) {
        g_free(sr->vf[i].dev);
    }
    g_free(sr->pf.dev);
    qpci_free_pc(sr->pf.bus);
    qtest_quit(sr->pf.qts);
}

/* Set entry @idx of the pending table of (@vf, VRAM BAR). */
static void sr_range(Sr *sr, uint32_t vf, uint32_t idx, uint64_t off,
                     uint64_t len)
{
    wr(&sr->pf, VDXG_REG_BACKING_SELECT,
       VDXG_BACKING_SELECT(vf, VDXG_BAR_VRAM, idx));
    wr64(&sr->pf, VDXG_REG_BACKING_OFFSET_LO, off);
    wr64(&sr->pf, VDXG_REG_BACKING_LENGTH_LO, len);
}

/* Set the whole pending table of @vf to @n ranges and commit it. */
static uint32_t sr_table(Sr *sr, uint32_t vf, const SrRange *r, int n)
{
    int i;

    for (i = 0; i < n; i++) {
        sr_range(sr, vf, i, r[i].off, r[i].len);
    }
    if (n < VDXG_MAX_BACKING_RANGES) {
        sr_range(sr, vf, n, 0, 0);
    }
    wr(&sr->pf, VDXG_REG_BACKING_COMMIT,
       VDXG_BACKING_SELECT(vf, VDXG_BAR_VRAM, 0));
    return rd(&sr->pf, VDXG_REG_BACKING_STATUS);
}

static void test_sriov_cap(void)
{
    QTestState *qts;
    uint16_t c;
    Sr sr;
    Vdxg v;

    sr_start(&sr, NULL);
    qts = sr.pf.qts;
    c = sr.sriov;
    g_assert_cmphex(c, !=, 0);
    g_assert_cmphex(ext_cap_find(qts, SR_PF_DEVFN, PCI_EXT_CAP_ID_ARI), !=, 0);
    /* The resizable BAR follows SR-IOV in the chain, also after a reset */
    g_assert_cmphex(ext_cap_find(qts, SR_PF_DEVFN, PCI_EXT_CAP_ID_REBAR), >,
                    c);
    g_assert_cmpuint(ecam_readw(qts, SR_PF_DEVFN, c + PCI_SRIOV_TOTAL_VF), ==,
                     VDXG_SRIOV_TOTAL_VFS_DEFAULT);
    g_assert_cmpuint(ecam_readw(qts, SR_PF_DEVFN, c + PCI_SRIOV_INITIAL_VF),
                     ==, VDXG_SRIOV_TOTAL_VFS_DEFAULT);
    g_assert_cmphex(ecam_readw(qts, SR_PF_DEVFN, c + PCI_SRIOV_VF_DID), ==,
                    VDXG_PCI_VF_DEVICE_ID);
    g_assert_cmpuint(ecam_readw(qts, SR_PF_DEVFN, c + PCI_SRIOV_VF_OFFSET), ==,
                     1);
    g_assert_cmpuint(ecam_readw(qts, SR_PF_DEVFN, c + PCI_SRIOV_VF_STRIDE), ==,
                     1);
    /* VF BARs: MMIO 32-bit, VRAM 32-bit prefetchable */
    g_assert_cmphex(ecam_readl(qts, SR_PF_DEVFN,
                               c + PCI_SRIOV_BAR + VDXG_BAR_VRAM * 4), ==,
                    PCI_BASE_ADDRESS_MEM_PREFETCH);
    ecam_writel(qts, SR_PF_DEVFN, c + PCI_SRIOV_BAR + VDXG_BAR_VRAM * 4,
                0xffffffff);
    g_assert_cmphex(ecam_readl(qts, SR_PF_DEVFN,
                               c + PCI_SRIOV_BAR + VDXG_BAR_VRAM * 4), ==,
                    (uint32_t)~(SR_VF_VRAM - 1) |
                    PCI_BASE_ADDRESS_MEM_PREFETCH);
    ecam_writel(qts, SR_PF_DEVFN, c + PCI_SRIOV_BAR + VDXG_BAR_MMIO * 4,
                0xffffffff);
    g_assert_cmphex(ecam_readl(qts, SR_PF_DEVFN,
                               c + PCI_SRIOV_BAR + VDXG_BAR_MMIO * 4), ==,
                    (uint32_t)~(VDXG_MMIO_SIZE - 1));

    g_assert_cmphex(rd(&sr.pf, VDXG_REG_CAPS) & (VDXG_CAP_SRIOV |
                                                VDXG_CAP_RESIZABLE_BAR), ==,
                    VDXG_CAP_SRIOV | VDXG_CAP_RESIZABLE_BAR);
    g_assert_cmpuint(rd(&sr.pf, VDXG_REG_FUNCTION), ==, 0);
    g_assert_cmpuint(rd(&sr.pf, VDXG_REG_SRIOV_TOTAL_VFS), ==,
                     VDXG_SRIOV_TOTAL_VFS_DEFAULT);
    g_assert_cmphex(rd64(&sr.pf, VDXG_REG_SRIOV_VF_VRAM_SIZE_LO), ==,
                    VDXG_VF_VRAM_SIZE_DEFAULT);
    g_assert_cmpuint(rd(&sr.pf, VDXG_REG_SRIOV_NUM_VFS), ==, 0);
    sr_stop(&sr);

    /* total_vfs=0: no SR-IOV behind the root port either */
    sr_start(&sr, "total_vfs=0");
    g_assert_cmphex(sr.sriov, ==, 0);
    g_assert_cmphex(rd(&sr.pf, VDXG_REG_CAPS) & VDXG_CAP_SRIOV, ==, 0);
    g_assert_cmpuint(rd(&sr.pf, VDXG_REG_SRIOV_TOTAL_VFS), ==, 0);
    sr_stop(&sr);

    /* On pcie.0 (a root bus) there is no SR-IOV */
    vdxg_start(&v, NULL);
    ecam_enable(v.bus);
    g_assert_cmphex(ext_cap_find(v.qts, VDXG_DEVFN, PCI_EXT_CAP_ID_SRIOV), ==,
                    0);
    g_assert_cmphex(rd(&v, VDXG_REG_CAPS) & VDXG_CAP_SRIOV, ==, 0);
    g_assert_cmpuint(rd(&v, VDXG_REG_SRIOV_TOTAL_VFS), ==, 0);
    /* ... and COMMIT is refused */
    wr(&v, VDXG_REG_BACKING_COMMIT, VDXG_BACKING_SELECT(0, VDXG_BAR_VRAM, 0));
    g_assert_cmphex(rd(&v, VDXG_REG_BACKING_STATUS), ==,
                    VDXG_BACKING_STATUS_ERROR);
    vdxg_stop(&v);
}

static void test_sriov_vf_registers(void)
{
    uint16_t cap;
    Sr sr;
    int i;

    sr_start(&sr, NULL);
    sr_enable_vfs(&sr, 2);
    for (i = 0; i < 2; i++) {
        Vdxg *v = &sr.vf[i];

        g_assert_cmphex(rd(v, VDXG_REG_ID), ==, VDXG_ID_MAGIC);
        g_assert_cmpuint(rd(v, VDXG_REG_FUNCTION), ==, 1 + i);
        g_assert_cmphex(rd(v, VDXG_REG_CAPS), ==,
                        VDXG_CAP_MSIX | VDXG_CAP_SELFTEST | VDXG_CAP_RENDER |
                        VDXG_CAP_PAGING | VDXG_CAP_GART);
        g_assert_cmpuint(rd(v, VDXG_REG_NUM_CRTCS), ==, 0);
        g_assert_cmphex(rd64(v, VDXG_REG_VRAM_SIZE_LO), ==, SR_VF_VRAM);
        g_assert_cmphex(rd64(v, VDXG_REG_APERTURE_SIZE_LO), ==,
                        VDXG_VF_APERTURE_SIZE_DEFAULT);
        g_assert_cmphex(rd(v, VDXG_REG_ENGINES), ==, ALL_ENGINES);
        /* Its own registers */
        wr(v, VDXG_REG_SCRATCH, 0x1000 + i);
        /* No display, no SR-IOV block */
        wr(v, VDXG_CRTC_BASE(0) + VDXG_CRTC_CTRL, 1);
        g_assert_cmphex(rd(v, VDXG_CRTC_BASE(0) + VDXG_CRTC_CTRL), ==, 0);
        g_assert_cmphex(rd(v, VDXG_REG_SRIOV_TOTAL_VFS), ==, 0);
        wr(v, VDXG_REG_BACKING_SELECT, 5);
        g_assert_cmphex(rd(v, VDXG_REG_BACKING_SELECT), ==, 0);
        /* No MSI, no INTx */
        g_assert_cmphex(ecam_readw(sr.pf.qts, SR_VF_DEVFN(i), PCI_VENDOR_ID),
                        ==, 0xffff);
        g_assert_cmpuint(qpci_find_capability(v->dev, PCI_CAP_ID_MSI, 0), ==,
                         0);
        g_assert_cmpuint(qpci_config_readb(v->dev, PCI_INTERRUPT_PIN), ==, 0);
    }
    g_assert_cmphex(rd(&sr.vf[0], VDXG_REG_SCRATCH), ==, 0x1000);
    g_assert_cmphex(rd(&sr.vf[1], VDXG_REG_SCRATCH), ==, 0x1001);
    g_assert_cmphex(rd(&sr.pf, VDXG_REG_SCRATCH), ==, 0);

    /* MSI-X: VF 1's self-test interrupt is its vector 0 message */
    cap = qpci_find_capability(sr.vf[1].dev, PCI_CAP_ID_MSIX, 0);
    g_assert_cmphex(cap, !=, 0);
    g_assert_cmpuint((qpci_config_readw(sr.vf[1].dev, cap + PCI_MSIX_FLAGS) &
                      PCI_MSIX_FLAGS_QSIZE) + 1, ==, VDXG_MSIX_VECTORS);
    qpci_config_writew(sr.vf[1].dev, cap + PCI_MSIX_FLAGS,
                       PCI_MSIX_FLAGS_ENABLE);
    qtest_writel(sr.pf.qts, SR_VF_MSIX_BASE + 4096 + PCI_MSIX_ENTRY_LOWER_ADDR,
                 MSG_ADDR);
    qtest_writel(sr.pf.qts, SR_VF_MSIX_BASE + 4096 + PCI_MSIX_ENTRY_UPPER_ADDR,
                 0);
    qtest_writel(sr.pf.qts, SR_VF_MSIX_BASE + 4096 + PCI_MSIX_ENTRY_DATA,
                 MSIX_DATA(0));
    qtest_writel(sr.pf.qts, SR_VF_MSIX_BASE + 4096 +
                 PCI_MSIX_ENTRY_VECTOR_CTRL, 0);
    qtest_writel(sr.pf.qts, MSG_ADDR, 0);
    wr(&sr.vf[1], VDXG_REG_INT_MASK, VDXG_INT_SELFTEST);
    wr(&sr.vf[1], VDXG_REG_INT_TRIGGER, VDXG_INT_SELFTEST);
    g_assert_cmphex(qtest_readl(sr.pf.qts, MSG_ADDR), ==, MSIX_DATA(0));
    g_assert_cmphex(rd(&sr.pf, VDXG_REG_INT_STATUS), ==, 0);

    /* Disabling the VFs unmaps them */
    ecam_writew(sr.pf.qts, SR_PF_DEVFN, sr.sriov + PCI_SRIOV_CTRL, 0);
    g_assert_cmpuint(rd(&sr.pf, VDXG_REG_SRIOV_NUM_VFS), ==, 0);
    g_assert_cmphex(rd(&sr.vf[0], VDXG_REG_ID), !=, VDXG_ID_MAGIC);
    sr_stop(&sr);
}

static void test_sriov_backing(void)
{
    static const SrRange good[] = {
        { 0x1000000, 0x10000 }, { 0x3000000, 0x1000 }, { 0x2000000, 0x100000 },
    };
    static const struct {
        const char *what;
        SrRange r[2];
        int n;
    } bad[] = {
        { "misaligned offset", { { 0x1000800, 0x1000 } }, 1 },
        { "misaligned length", { { 0x1000000, 0x1800 } }, 1 },
        { "outside VRAM", { { 256 * MiB - 0x1000, 0x2000 } }, 1 },
        { "offset beyond VRAM", { { 1ull << 40, 0x1000 } }, 1 },
        { "too long", { { 0, 16 * MiB }, { 32 * MiB, 16 * MiB + 0x1000 } },
          2 },
    };
    Sr sr;
    int i;

    sr_start(&sr, NULL);
    sr_enable_vfs(&sr, 2);
    qtest_writel(sr.pf.qts, sr.pf_vram.addr + 0x1000000, 0x11111111);

    g_assert_cmphex(sr_table(&sr, 0, good, 3), ==,
                    3 << VDXG_BACKING_STATUS_RANGES_SHIFT);
    for (i = 0; i < 3; i++) {
        wr(&sr.pf, VDXG_REG_BACKING_SELECT,
           VDXG_BACKING_SELECT(0, VDXG_BAR_VRAM, i));
        g_assert_cmphex(rd64(&sr.pf, VDXG_REG_BACKING_OFFSET_LO), ==,
                        good[i].off);
        g_assert_cmphex(rd64(&sr.pf, VDXG_REG_BACKING_LENGTH_LO), ==,
                        good[i].len);
    }
    g_assert_cmphex(qtest_readl(sr.pf.qts, sr.vf_vram[0].addr), ==,
                    0x11111111);

    /* Refused tables leave the applied one as it was */
    for (i = 0; i < ARRAY_SIZE(bad); i++) {
        g_test_message("refused: %s", bad[i].what);
        g_assert_cmphex(sr_table(&sr, 0, bad[i].r, bad[i].n), ==,
                        VDXG_BACKING_STATUS_ERROR);
        g_assert_cmphex(qtest_readl(sr.pf.qts, sr.vf_vram[0].addr), ==,
                        0x11111111);
    }
    /* A full BAR is fine; a bad BAR or VF is refused */
    sr_range(&sr, 1, 0, 0, SR_VF_VRAM);
    sr_range(&sr, 1, 1, 0, 0);
    wr(&sr.pf, VDXG_REG_BACKING_COMMIT,
       VDXG_BACKING_SELECT(1, VDXG_BAR_MMIO, 0));
    g_assert_cmphex(rd(&sr.pf, VDXG_REG_BACKING_STATUS), ==,
                    VDXG_BACKING_STATUS_ERROR);
    wr(&sr.pf, VDXG_REG_BACKING_COMMIT,
       VDXG_BACKING_SELECT(VDXG_SRIOV_TOTAL_VFS_DEFAULT, VDXG_BAR_VRAM, 0));
    g_assert_cmphex(rd(&sr.pf, VDXG_REG_BACKING_STATUS), ==,
                    VDXG_BACKING_STATUS_ERROR);
    wr(&sr.pf, VDXG_REG_BACKING_COMMIT,
       VDXG_BACKING_SELECT(1, VDXG_BAR_VRAM, 0));
    g_assert_cmphex(rd(&sr.pf, VDXG_REG_BACKING_STATUS), ==,
                    1 << VDXG_BACKING_STATUS_RANGES_SHIFT);
    g_assert_cmphex(qtest_readl(sr.pf.qts, sr.vf_vram[1].addr + 0x1000000),
                    ==, 0x11111111);

    /* Out-of-range selections read 0 and ignore writes */
    wr(&sr.pf, VDXG_REG_BACKING_SELECT,
       VDXG_BACKING_SELECT(0, VDXG_BAR_VRAM, VDXG_MAX_BACKING_RANGES));
    wr(&sr.pf, VDXG_REG_BACKING_LENGTH_LO, 0x1000);
    g_assert_cmphex(rd(&sr.pf, VDXG_REG_BACKING_LENGTH_LO), ==, 0);
    wr(&sr.pf, VDXG_REG_BACKING_SELECT, 0xffffffff);
    g_assert_cmphex(rd(&sr.pf, VDXG_REG_BACKING_OFFSET_LO), ==, 0);
    wr(&sr.pf, VDXG_REG_BACKING_SELECT, VDXG_BACKING_SELECT(0, 0, 0));
    g_assert_cmphex(rd(&sr.pf, VDXG_REG_BACKING_OFFSET_LO), ==, 0);

    /* Tables persist across disable and enable; a PF reset clears them */
    ecam_writew(sr.pf.qts, SR_PF_DEVFN, sr.sriov + PCI_SRIOV_CTRL, 0);
    ecam_writew(sr.pf.qts, SR_PF_DEVFN, sr.sriov + PCI_SRIOV_CTRL,
                PCI_SRIOV_CTRL_VFE | PCI_SRIOV_CTRL_MSE);
    for (i = 0; i < 2; i++) {
        ecam_writew(sr.pf.qts, SR_VF_DEVFN(i), PCI_COMMAND,
                    PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
    }
    g_assert_cmphex(qtest_readl(sr.pf.qts, sr.vf_vram[0].addr), ==,
                    0x11111111);
    wr(&sr.pf, VDXG_REG_RESET, VDXG_RESET_MAGIC);
    g_assert_cmphex(rd(&sr.pf, VDXG_REG_BACKING_STATUS), ==, 0);
    wr(&sr.pf, VDXG_REG_BACKING_SELECT, VDXG_BACKING_SELECT(0, 2, 0));
    g_assert_cmphex(rd64(&sr.pf, VDXG_REG_BACKING_LENGTH_LO), ==, 0);
    g_assert_cmphex(qtest_readl(sr.pf.qts, sr.vf_vram[0].addr), ==, 0);
    sr_stop(&sr);
}

static void test_sriov_layout(void)
{
    /* VF offsets 0, 64K, 68K map to PF 16M, 48M, 32M */
    static const SrRange r[] = {
        { 0x1000000, 0x10000 }, { 0x3000000, 0x1000 }, { 0x2000000, 0x100000 },
    };
    QTestState *qts;
    uint64_t vf0, pf0;
    Sr sr;

    sr_start(&sr, NULL);
    qts = sr.pf.qts;
    sr_enable_vfs(&sr, 1);
    vf0 = sr.vf_vram[0].addr;
    pf0 = sr.pf_vram.addr;
    g_assert_cmphex(sr_table(&sr, 0, r, 3), ==,
                    3 << VDXG_BACKING_STATUS_RANGES_SHIFT);

    /* Through the VF's BAR into PF VRAM, across range boundaries */
    qtest_writeq(qts, vf0 + 0x10000 - 4, 0x2222222211111111ull);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x1000000 + 0x10000 - 4), ==,
                    0x11111111);
    qtest_writel(qts, vf0 + 0x10000, 0x33333333);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x3000000), ==, 0x33333333);
    qtest_writel(qts, vf0 + 0x11000, 0x44444444);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x2000000), ==, 0x44444444);
    qtest_writel(qts, vf0 + 0x110ffc, 0x55555555);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x20ffffc), ==, 0x55555555);
    /* And the other way round */
    qtest_writel(qts, pf0 + 0x1000000, 0x66666666);
    g_assert_cmphex(qtest_readl(qts, vf0), ==, 0x66666666);
    qtest_writel(qts, pf0 + 0x2000010, 0x77777777);
    g_assert_cmphex(qtest_readl(qts, vf0 + 0x11010), ==, 0x77777777);
    /* Beyond the ranges: unbacked, reads 0, writes dropped */
    qtest_writel(qts, vf0 + 0x111000, 0x88888888);
    g_assert_cmphex(qtest_readl(qts, vf0 + 0x111000), ==, 0);
    g_assert_cmphex(qtest_readl(qts, vf0 + SR_VF_VRAM - 4), ==, 0);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x2100000), ==, 0);
    sr_stop(&sr);
}

/* A Pg that drives VF @i's PAGING engine through its BARs */
static void sr_vf_pg(Sr *sr, int i, Pg *p)
{
    memset(p, 0, sizeof(*p));
    p->v = sr->vf[i];
    p->vram = sr->vf_vram[i];
    p->eng = VDXG_ENGINE_PAGING;
    p->ring = PG_RING;
    p->fence = PG_FENCE;
    pg_engine_setup(p);
}

static void test_sriov_isolation(void)
{
    /* VF 0's first 2 MiB: PF 8M + 1M, PF 4M + 1M */
    static const SrRange r[] = {
        { 0x800000, 0x100000 }, { 0x400000, 0x100000 },
    };
    QTestState *qts;
    uint64_t pf0;
    Pg *p = g_new0(Pg, 1);
    Sr sr;

    sr_start(&sr, NULL);
    qts = sr.pf.qts;
    pf0 = sr.pf_vram.addr;
    sr_enable_vfs(&sr, 2);
    g_assert_cmphex(sr_table(&sr, 0, r, 2), ==,
                    2 << VDXG_BACKING_STATUS_RANGES_SHIFT);
    /* Sentinels around VF 0's ranges */
    qtest_writel(qts, pf0 + 0x800000 - 4, 0xa5a5a5a5);
    qtest_writel(qts, pf0 + 0x900000, 0xa5a5a5a5);
    qtest_writel(qts, pf0 + 0x3ffffc, 0xa5a5a5a5);
    qtest_writel(qts, pf0 + 0x500000, 0xa5a5a5a5);

    sr_vf_pg(&sr, 0, p);
    /* A FILL across both ranges: VF 0xf0000..0x110000 */
    pb_reset(p);
    emit_fill(p, 0xf0000, 0x20000, 0xc0ffee00);
    pb_run(p);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x8f0000), ==, 0xc0ffee00);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x8ffffc), ==, 0xc0ffee00);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x400000), ==, 0xc0ffee00);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x40fffc), ==, 0xc0ffee00);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x410000), !=, 0xc0ffee00);
    /* A TRANSFER from the second range to the first */
    pb_reset(p);
    emit_copy(p, 0x100000, 0x3000, 0x100);
    pb_run(p);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x803000), ==, 0xc0ffee00);
    g_assert_cmphex(rd(&sr.vf[0], VDXG_REG_FAULT_STATUS), ==, 0);

    /* Beyond the backed 2 MiB: a fault on the VF, PF VRAM untouched */
    pb_reset(p);
    emit_fill(p, 0x1f0000, 0x20000, 0xdeadbeef);
    pb_queue(p);
    ring_kick(p);
    g_assert_cmphex(pg_wait(p) & VDXG_ENG_STATUS_HALTED, !=, 0);
    g_assert_cmphex(rd(&sr.vf[0], VDXG_REG_FAULT_STATUS), ==,
                    VDXG_FAULT_STATUS_VALID);
    g_assert_cmpuint(rd(&sr.vf[0], VDXG_REG_FAULT_REASON), ==,
                     VDXG_FAULT_ADDRESS);
    g_assert_cmphex(rd64(&sr.vf[0], VDXG_REG_FAULT_ADDR_LO), ==, 0x200000);
    g_assert_cmphex(rd(&sr.vf[0], VDXG_REG_INT_STATUS) & VDXG_INT_FAULT, !=,
                    0);
    g_assert_cmphex(rd(&sr.pf, VDXG_REG_FAULT_STATUS), ==, 0);
    g_assert_cmphex(rd(&sr.pf, VDXG_REG_INT_STATUS), ==, 0);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x800000 - 4), ==, 0xa5a5a5a5);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x900000), ==, 0xa5a5a5a5);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x3ffffc), ==, 0xa5a5a5a5);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x500000), ==, 0xa5a5a5a5);

    /* A VF's bus accesses must not reach a vdxg BAR */
    wr(&sr.vf[0], VDXG_ENGINE_BASE(VDXG_ENGINE_PAGING) + VDXG_ENG_RESET, 1);
    wr(&sr.vf[0], VDXG_REG_FAULT_CLEAR, 1);
    sr_vf_pg(&sr, 0, p);
    {
        uint32_t data[2] = { 0x12345678, 0x9abcdef0 };

        pb_reset(p);
        emit_write_phys(p, pf0 + 0x10000, data, 2);
        pb_queue(p);
        ring_kick(p);
        g_assert_cmphex(pg_wait(p) & VDXG_ENG_STATUS_HALTED, !=, 0);
        g_assert_cmpuint(rd(&sr.vf[0], VDXG_REG_FAULT_REASON), ==,
                         VDXG_FAULT_ADDRESS);
        g_assert_cmphex(qtest_readl(qts, pf0 + 0x10000), !=, 0x12345678);
    }
    wr(&sr.vf[0], VDXG_ENGINE_BASE(VDXG_ENGINE_PAGING) + VDXG_ENG_RESET, 1);
    wr(&sr.vf[0], VDXG_REG_FAULT_CLEAR, 1);
    sr_vf_pg(&sr, 0, p);
    pb_reset(p);
    emit_read_phys(p, sr.vf_vram[1].addr, 4, 0x2000);
    pb_queue(p);
    ring_kick(p);
    g_assert_cmphex(pg_wait(p) & VDXG_ENG_STATUS_HALTED, !=, 0);
    g_assert_cmpuint(rd(&sr.vf[0], VDXG_REG_FAULT_REASON), ==,
                     VDXG_FAULT_ADDRESS);
    /* System RAM is fine */
    wr(&sr.vf[0], VDXG_ENGINE_BASE(VDXG_ENGINE_PAGING) + VDXG_ENG_RESET, 1);
    wr(&sr.vf[0], VDXG_REG_FAULT_CLEAR, 1);
    sr_vf_pg(&sr, 0, p);
    pb_reset(p);
    emit_read_phys(p, MSG_ADDR, 4, 0x2000);
    qtest_writel(qts, MSG_ADDR, 0xfeedf00d);
    pb_run(p);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x802000), ==, 0xfeedf00d);

    /* VF 1 has no backing at all: its ring fetch faults */
    sr_vf_pg(&sr, 1, p);
    pb_reset(p);
    emit_nop(p);
    ring_entry(p, VDXG_RING_CMD_EXEC, 4, 0x20000, 1, 0, 0);
    ring_kick(p);
    g_assert_cmphex(pg_wait(p) & VDXG_ENG_STATUS_HALTED, !=, 0);
    g_assert_cmpuint(rd(&sr.vf[1], VDXG_REG_FAULT_REASON), ==,
                     VDXG_FAULT_ADDRESS);
    g_assert_cmphex(rd(&sr.pf, VDXG_REG_FAULT_STATUS), ==, 0);
    g_free(p);
    sr_stop(&sr);
}

static void test_rebar(void)
{
    uint16_t c;
    uint32_t flags;
    uint64_t bar = 0x100000000ull;
    Vdxg v;

    vdxg_start(&v, "vram_size=256M");
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
    vdxg_start(&v, "vram_size=256M,rebar=off");
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
    vdxg_start(&v, "vram_size=32M");
    ecam_enable(v.bus);
    c = ext_cap_find(v.qts, VDXG_DEVFN, PCI_EXT_CAP_ID_REBAR);
    g_assert_cmphex(ecam_readl(v.qts, VDXG_DEVFN, c + PCI_REBAR_CAP), ==,
                    0x3u << 8);
    qpci_config_writew(v.dev, PCI_COMMAND, 0);
    g_assert_cmphex(bar_size(v.dev, VDXG_BAR_VRAM, &flags), ==, 32 * MiB);
    vdxg_stop(&v);
}

/*
 * PROGRESS counts the slices of a long entry and its completed operations;
 * a WAIT whose value is not there adds nothing and shows STATUS.WAITING.
 * RESET zeroes both.
 */
static void test_engine_progress(void)
{
    Pg *p = pg_start(NULL);
    uint32_t last = 0, now, seen = 0;
    RdSurf dst;
    uint64_t fence;
    int i;

    g_assert_cmphex(rd(&p->v, ENG(VDXG_ENG_PROGRESS)), ==, 0);
    /* 9 operations of 8 MiB each: several slices each */
    queue_big_work(p);
    ring_kick(p);
    for (i = 0; i < 10000 && !(rd(&p->v, ENG(VDXG_ENG_STATUS)) &
                                VDXG_ENG_STATUS_IDLE); i++) {
        now = rd(&p->v, ENG(VDXG_ENG_PROGRESS));
        g_assert_cmpuint(now, >=, last);
        seen += now != last;
        last = now;
        qtest_clock_step(p->v.qts, 1000);
    }
    pg_finish(p);
    now = rd(&p->v, ENG(VDXG_ENG_PROGRESS));
    g_assert_cmpuint(seen, >=, 2);
    g_assert_cmpuint(now, >, 9);
    g_assert_cmphex(rd(&p->v, ENG(VDXG_ENG_STATUS)) &
                    VDXG_ENG_STATUS_WAITING, ==, 0);
    /* The next entry starts from 0: one FENCE is one operation. */
    pb_reset(p);
    emit_fence(p, PG_FENCE2, 5);
    pb_run(p);
    g_assert_cmpuint(rd(&p->v, ENG(VDXG_ENG_PROGRESS)), ==, 1);
    wr(&p->v, ENG(VDXG_ENG_PROGRESS), 77);
    g_assert_cmpuint(rd(&p->v, ENG(VDXG_ENG_PROGRESS)), ==, 1);
    pg_stop(p);

    /* RENDER: work before an unmet WAIT counts; the WAIT does not. */
    p = rd_start();
    rd_surf(p, &dst, RD_VMEM, VDXG_FMT_ARGB8888, 4, 4, 16);
    rd_clear(p, &dst, 0);
    qtest_writeq(p->v.qts, p->vram.addr + RD_SEM, 0);
    fence = p->seqno;
    rd_queue_wait(p, RD_SEM, 9, &dst, 0x11111111);
    rd_assert_stuck(p, fence, 1000000);
    last = rd(&p->v, EREG(p, VDXG_ENG_PROGRESS));
    for (i = 0; i < 5; i++) {
        qtest_clock_step(p->v.qts, 1000000);
        g_assert_cmpuint(rd(&p->v, EREG(p, VDXG_ENG_PROGRESS)), ==, last);
    }
    wr(&p->v, EREG(p, VDXG_ENG_RESET), 1);
    assert_engine_reset(p);
    g_assert_cmpuint(rd(&p->v, EREG(p, VDXG_ENG_PROGRESS)), ==, 0);
    g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_STATUS)), ==,
                    VDXG_ENG_STATUS_IDLE);
    pg_stop(p);
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

    qtest_add_func("/vdxg/paging/registers", test_pg_registers);
    qtest_add_func("/vdxg/paging/fence", test_pg_fence);
    qtest_add_func("/vdxg/paging/fence-intx", test_pg_fence_intx);
    qtest_add_func("/vdxg/paging/transfer-vram", test_pg_transfer_vram);
    qtest_add_func("/vdxg/paging/transfer-pages", test_pg_transfer_pages);
    qtest_add_func("/vdxg/paging/gart", test_pg_gart);
    qtest_add_func("/vdxg/paging/tlb", test_pg_tlb);
    qtest_add_func("/vdxg/paging/fill", test_pg_fill);
    qtest_add_func("/vdxg/paging/discard", test_pg_discard);
    qtest_add_func("/vdxg/paging/physical", test_pg_physical);
    qtest_add_func("/vdxg/paging/multipass", test_pg_multipass);
    qtest_add_func("/vdxg/paging/pause", test_pg_pause);
    qtest_add_func("/vdxg/engine/progress", test_engine_progress);
    qtest_add_func("/vdxg/paging/reset", test_pg_reset);
    qtest_add_func("/vdxg/paging/bad-ring", test_pg_bad_ring);
    qtest_add_func("/vdxg/paging/fault-count", test_pg_fault_count);
    qtest_add_func("/vdxg/paging/migration", test_pg_migration);
    qtest_add_func("/vdxg/paging/fuzz", test_pg_fuzz);
    for (i = 0; i < ARRAY_SIZE(pg_fault_cases); i++) {
        g_autofree char *path = g_strdup_printf("/vdxg/paging/fault/%s",
                                                pg_fault_cases[i].name);
        qtest_add_data_func(path, &pg_fault_cases[i], test_pg_fault);
    }

    qtest_add_func("/vdxg/render/ring", test_rd_ring);
    qtest_add_func("/vdxg/render/fence", test_rd_fence);
    qtest_add_func("/vdxg/render/wait", test_rd_wait);
    qtest_add_func("/vdxg/render/set-surface", test_rd_set_surface);
    for (i = 0; i < ARRAY_SIZE(rd_colour_fmts); i++) {
        uint32_t fmt = rd_colour_fmts[i];
        g_autofree char *path = g_strdup_printf("/vdxg/render/fill/%s",
                                                rd_fmt_names[fmt]);

        qtest_add_data_func(path, GUINT_TO_POINTER(fmt), test_rd_fill);
    }
    qtest_add_func("/vdxg/render/copy/formats", test_rd_copy_formats);
    qtest_add_func("/vdxg/render/copy/values", test_rd_copy_values);
    qtest_add_func("/vdxg/render/copy/overlap", test_rd_copy_overlap);
    qtest_add_func("/vdxg/render/blend/formats", test_rd_blend_formats);
    qtest_add_func("/vdxg/render/blend/overlap", test_rd_blend_overlap);
    qtest_add_func("/vdxg/render/draw/flat", test_rd_draw_flat);
    qtest_add_func("/vdxg/render/draw/color", test_rd_draw_color);
    qtest_add_func("/vdxg/render/draw/texture", test_rd_draw_texture);
    qtest_add_func("/vdxg/render/draw/depth", test_rd_draw_depth);
    qtest_add_func("/vdxg/render/draw/fill-rule", test_rd_draw_fill_rule);
    for (i = 0; i < ARRAY_SIZE(rd_colour_fmts); i++) {
        uint32_t fmt = rd_colour_fmts[i];
        g_autofree char *path = g_strdup_printf("/vdxg/render/draw/random/%s",
                                                rd_fmt_names[fmt]);

        qtest_add_data_func(path, GUINT_TO_POINTER(fmt),
                            test_rd_draw_random);
    }
    qtest_add_func("/vdxg/render/large", test_rd_large);
    qtest_add_func("/vdxg/render/pause", test_rd_pause);
    qtest_add_func("/vdxg/render/reset", test_rd_reset);
    qtest_add_func("/vdxg/render/migration", test_rd_migration);
    qtest_add_func("/vdxg/render/migration-wait", test_rd_migration_wait);
    qtest_add_func("/vdxg/render/fault-engines", test_rd_fault_engines);
    qtest_add_func("/vdxg/render/fuzz", test_rd_fuzz);
    for (i = 0; i < ARRAY_SIZE(rd_fault_cases); i++) {
        g_autofree char *path = g_strdup_printf("/vdxg/render/fault/%s",
                                                rd_fault_cases[i].name);
        qtest_add_data_func(path, &rd_fault_cases[i], test_rd_fault);
    }

    qtest_add_func("/vdxg/display/registers", test_dp_registers);
    qtest_add_func("/vdxg/display/outputs", test_dp_outputs);
    qtest_add_func("/vdxg/display/mode-invalid", test_dp_mode_invalid);
    qtest_add_func("/vdxg/display/vblank", test_dp_vblank);
    qtest_add_func("/vdxg/display/multi-output", test_dp_multi_output);
    qtest_add_func("/vdxg/display/flip", test_dp_flip);
    qtest_add_func("/vdxg/display/crc", test_dp_crc);
    qtest_add_func("/vdxg/display/crc-1024x768", test_dp_crc_1024);
    qtest_add_func("/vdxg/display/cursor", test_dp_cursor);
    qtest_add_func("/vdxg/display/blend", test_dp_blend);
    qtest_add_func("/vdxg/display/zpos", test_dp_zpos);
    qtest_add_func("/vdxg/display/rotation", test_dp_rotation);
    qtest_add_func("/vdxg/display/formats", test_dp_formats);
    qtest_add_func("/vdxg/display/writeback", test_dp_writeback);
    qtest_add_func("/vdxg/display/edid", test_dp_edid);
    qtest_add_func("/vdxg/display/hotplug", test_dp_hotplug);
    qtest_add_func("/vdxg/display/aperture", test_dp_aperture);
    qtest_add_func("/vdxg/display/screendump", test_dp_screendump);
    qtest_add_func("/vdxg/display/reset", test_dp_reset);
    qtest_add_func("/vdxg/display/migration", test_dp_migration);
    qtest_add_func("/vdxg/display/fuzz", test_dp_fuzz);
    qtest_add_func("/vdxg/sriov/cap", test_sriov_cap);
    qtest_add_func("/vdxg/sriov/vf-registers", test_sriov_vf_registers);
    qtest_add_func("/vdxg/sriov/backing", test_sriov_backing);
    qtest_add_func("/vdxg/sriov/layout", test_sriov_layout);
    qtest_add_func("/vdxg/sriov/isolation", test_sriov_isolation);
    qtest_add_func("/vdxg/rebar", test_rebar);
    for (i = 0; i < ARRAY_SIZE(dp_fault_cases); i++) {
        g_autofree char *path = g_strdup_printf("/vdxg/display/fault/%s",
                                                dp_fault_cases[i].name);
        qtest_add_data_func(path, &dp_fault_cases[i], test_dp_fault);
    }

    return g_test_run();
}
