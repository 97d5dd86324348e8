/*
 * QTest testcases for the vdxg virtual GPU: SR-IOV: the PF's capability and its VFs
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qobject/qlist.h"
#include "vdxg-test.h"

/* SR-IOV */

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
#define SR_MAX_VFS          16

typedef struct SrRange {
    uint64_t off;
    uint64_t len;
} SrRange;

typedef struct Sr {
    Vdxg pf;
    QPCIBar pf_vram;
    uint16_t sriov;                 /* SR-IOV capability of the PF */
    Vdxg vf[SR_MAX_VFS];
    QPCIBar vf_vram[SR_MAX_VFS];
    uint64_t vf_vram_size;          /* each VF's VRAM BAR; 0: SR_VF_VRAM */
} Sr;

/*
 * Start QEMU with the PF (@props) behind a root port, after the devices
 * @pre (or none), and map its BARs.
 */
static void sr_start_after(Sr *sr, const char *pre, const char *props)
{
    QPCIDevice *rp;
    uint64_t size;
    g_autofree char *args = g_strdup_printf(
        "%s -device pcie-root-port,id=rp0,bus=pcie.0,addr=05.0,chassis=1 "
        "-device vdxg,id=gpu,bus=rp0%s%s", pre ?: "", props ? "," : "",
        props ?: "");

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

static void sr_start(Sr *sr, const char *props)
{
    sr_start_after(sr, NULL, props);
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
            .addr = SR_VF_VRAM_BASE +
                    (uint64_t)i * (sr->vf_vram_size ?: SR_VF_VRAM),
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

/*
 * The QOM path of the VF with function number 1 + @index: the VFs are
 * unattached children of the machine, in the order the PF created them.
 */
static char *sr_vf_path(Sr *sr, int index)
{
    QDict *rsp = qtest_qmp(sr->pf.qts, "{ 'execute': 'qom-list', "
                           "'arguments': { 'path': '/machine/unattached' } }");
    char *path = NULL;
    const QListEntry *e;
    int n = 0;

    g_assert_true(qdict_haskey(rsp, "return"));
    QLIST_FOREACH_ENTRY(qdict_get_qlist(rsp, "return"), e) {
        QDict *prop = qobject_to(QDict, qlist_entry_obj(e));

        if (!strcmp(qdict_get_str(prop, "type"), "child<vdxg-vf>") &&
            n++ == index) {
            path = g_strdup_printf("/machine/unattached/%s",
                                   qdict_get_str(prop, "name"));
        }
    }
    qobject_unref(rsp);
    g_assert_nonnull(path);
    return path;
}

/* Whether qom-get of @prop at @path succeeds */
static bool sr_qom_has(Sr *sr, const char *path, const char *prop)
{
    QDict *rsp = qtest_qmp(sr->pf.qts, "{ 'execute': 'qom-get', "
                           "'arguments': { 'path': %s, 'property': %s } }",
                           path, prop);
    bool ok = qdict_haskey(rsp, "return");

    qobject_unref(rsp);
    return ok;
}

/* qom-get of the uint64 @prop at @path */
static uint64_t sr_qom_u64(Sr *sr, const char *path, const char *prop)
{
    QDict *rsp = qtest_qmp(sr->pf.qts, "{ 'execute': 'qom-get', "
                           "'arguments': { 'path': %s, 'property': %s } }",
                           path, prop);
    uint64_t val;

    g_assert_true(qdict_haskey(rsp, "return"));
    val = qdict_get_int(rsp, "return");
    qobject_unref(rsp);
    return val;
}

/* Whether QOM type @name is or implements @type */
static bool sr_type_implements(Sr *sr, const char *name, const char *type)
{
    QDict *rsp = qtest_qmp(sr->pf.qts, "{ 'execute': 'qom-list-types', "
                           "'arguments': { 'implements': %s } }", type);
    const QListEntry *e;
    bool found = false;

    g_assert_true(qdict_haskey(rsp, "return"));
    QLIST_FOREACH_ENTRY(qdict_get_qlist(rsp, "return"), e) {
        QDict *info = qobject_to(QDict, qlist_entry_obj(e));

        found |= !strcmp(qdict_get_str(info, "name"), name);
    }
    qobject_unref(rsp);
    return found;
}

/*
 * A VF is a PCI Express device type of its own, not a vdxg: it has none of
 * the PF's properties (sizes, outputs, SR-IOV), only its own engine
 * statistics.
 */
static void test_sriov_vf_type(void)
{
    static const char *const pf_only[] = {
        "vram-size", "aperture-size", "outputs", "total-vfs", "msi",
        "connected0", "x-disp-composes", "x-max-slice-ns",
    };
    g_autofree char *vf0 = NULL;
    g_autofree char *vf1 = NULL;
    Sr sr;
    int i;

    sr_start(&sr, NULL);
    g_assert_true(sr_type_implements(&sr, "vdxg", "vdxg"));
    g_assert_false(sr_type_implements(&sr, "vdxg-vf", "vdxg"));
    g_assert_true(sr_type_implements(&sr, "vdxg-vf", "pci-express-device"));

    vf0 = sr_vf_path(&sr, 0);
    vf1 = sr_vf_path(&sr, 1);
    for (i = 0; i < ARRAY_SIZE(pf_only); i++) {
        g_assert_true(sr_qom_has(&sr, "/machine/peripheral/gpu", pf_only[i]));
        g_assert_false(sr_qom_has(&sr, vf0, pf_only[i]));
        g_assert_false(sr_qom_has(&sr, vf1, pf_only[i]));
    }

    /* Each VF has its own engines' statistics. */
    g_assert_true(sr_qom_has(&sr, vf0, "x-pg-bh-runs"));
    g_assert_true(sr_qom_has(&sr, vf1, "x-rd-pixels"));
    sr_stop(&sr);
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

    /* total-vfs=0: no SR-IOV behind the root port either */
    sr_start(&sr, "total-vfs=0");
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
                        VDXG_CAP_PAGING | VDXG_CAP_GART | VDXG_CAP_GPU_MMU |
                        VDXG_CAP_3D);
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
    /* A table committed while VFs are disabled shows once they are enabled */
    {
        static const SrRange moved[] = { { 0x2000000, 0x100000 } };

        qtest_writel(sr.pf.qts, sr.pf_vram.addr + 0x2000000, 0x22222222);
        ecam_writew(sr.pf.qts, SR_PF_DEVFN, sr.sriov + PCI_SRIOV_CTRL, 0);
        g_assert_cmphex(sr_table(&sr, 0, moved, 1), ==,
                        1 << VDXG_BACKING_STATUS_RANGES_SHIFT);
        ecam_writew(sr.pf.qts, SR_PF_DEVFN, sr.sriov + PCI_SRIOV_CTRL,
                    PCI_SRIOV_CTRL_VFE | PCI_SRIOV_CTRL_MSE);
        for (i = 0; i < 2; i++) {
            ecam_writew(sr.pf.qts, SR_VF_DEVFN(i), PCI_COMMAND,
                        PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
        }
        g_assert_cmphex(qtest_readl(sr.pf.qts, sr.vf_vram[0].addr), ==,
                        0x22222222);
    }
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

/* A Pg that drives the PAGING engine of @v, whose VRAM BAR is @vram */
static void sr_pg(Vdxg *v, QPCIBar vram, Pg *p)
{
    memset(p, 0, sizeof(*p));
    p->v = *v;
    p->vram = vram;
    p->eng = VDXG_ENGINE_PAGING;
    p->ring = PG_RING;
    p->fence = PG_FENCE;
    pg_engine_setup(p);
}

/* ... of VF @i, through its BARs */
static void sr_vf_pg(Sr *sr, int i, Pg *p)
{
    sr_pg(&sr->vf[i], sr->vf_vram[i], p);
}

/*
 * A PAGING WRITE_PHYSICAL to the root port's Bridge Control register in
 * the ECAM window sets Secondary Bus Reset: the device resets in the
 * middle of the entry, and the entry the reset dropped does not complete
 * (no HEAD move, no fence, no interrupt, no later command).
 */
static void test_sriov_self_reset(void)
{
    uint32_t sbr = (uint32_t)PCI_BRIDGE_CTL_BUS_RESET << 16;
    uint32_t bars[6], cmd;
    QPCIDevice *rp;
    Pg *p = g_new0(Pg, 1);
    Sr sr;
    int i;

    sr_start(&sr, NULL);
    for (i = 0; i < 6; i++) {
        bars[i] = qpci_config_readl(sr.pf.dev, PCI_BASE_ADDRESS_0 + i * 4);
    }
    cmd = qpci_config_readw(sr.pf.dev, PCI_COMMAND);
    sr_pg(&sr.pf, sr.pf_vram, p);
    vram_writel(p, PG_FENCE, 0x5e5e5e5e);
    vram_writel(p, PG_PEEK, 0x5e5e5e5e);

    pb_reset(p);
    emit_write_phys(p, SR_ECAM + (SR_RP_DEVFN << 12) + PCI_INTERRUPT_LINE,
                    &sbr, 1);
    emit_fill(p, PG_PEEK, 4, 0x12345678);
    pb_queue(p);
    ring_kick(p);
    for (i = 0; i < 10; i++) {
        qtest_clock_step(sr.pf.qts, 1000000);
    }

    /* Out of reset, with the BARs where they were */
    rp = qpci_device_find(sr.pf.bus, SR_RP_DEVFN);
    g_assert_nonnull(rp);
    g_assert_cmphex(qpci_config_readw(rp, PCI_BRIDGE_CONTROL) &
                    PCI_BRIDGE_CTL_BUS_RESET, !=, 0);
    qpci_config_writew(rp, PCI_BRIDGE_CONTROL, 0);
    g_free(rp);
    for (i = 0; i < 6; i++) {
        qpci_config_writel(sr.pf.dev, PCI_BASE_ADDRESS_0 + i * 4, bars[i]);
    }
    qpci_config_writew(sr.pf.dev, PCI_COMMAND, cmd);

    assert_engine_reset(p);
    g_assert_cmphex(rd(&sr.pf, VDXG_REG_INT_STATUS), ==, 0);
    g_assert_cmphex(rd(&sr.pf, VDXG_REG_FAULT_STATUS), ==, 0);
    g_assert_cmphex(vram_readl(p, PG_FENCE), ==, 0x5e5e5e5e);
    g_assert_cmphex(vram_readl(p, PG_PEEK), ==, 0x5e5e5e5e);
    g_free(p);
    sr_stop(&sr);
}

/*
 * The same with a writeback: its first row ends on the root port's Bridge
 * Control register and sets Secondary Bus Reset. The reset turns the
 * 4096x2048 CRTC off (its frame back to 640x480); the capture stops there
 * (no status, no interrupt, no fault), without reading the smaller frame
 * with the old size.
 */
static void test_sriov_self_reset_wb(void)
{
    static const DpMode m = {
        4096, 4100, 4110, 4200, 2048, 2049, 2050, 2060, 400000,
    };
    uint32_t bars[6], rp_cfg[16], cmd, n = 64;
    uint64_t addr = APERTURE(n - 4) + 0x40;
    QPCIDevice *rp;
    Pg *p = g_new0(Pg, 1);
    Dp *d = g_new0(Dp, 1);
    Sr sr;
    int i;

    sr_start(&sr, NULL);
    for (i = 0; i < 6; i++) {
        bars[i] = qpci_config_readl(sr.pf.dev, PCI_BASE_ADDRESS_0 + i * 4);
    }
    cmd = qpci_config_readw(sr.pf.dev, PCI_COMMAND);
    rp = qpci_device_find(sr.pf.bus, SR_RP_DEVFN);
    g_assert_nonnull(rp);
    for (i = 0; i < 16; i++) {
        rp_cfg[i] = qpci_config_readl(rp, i * 4);
    }
    p->v = sr.pf;
    p->vram = sr.pf_vram;
    pg_gart_setup(p);
    /* Aperture page n: the root port's configuration space */
    vram_writel(p, PG_GART + n * 8ull,
                (SR_ECAM + (SR_RP_DEVFN << 12)) | VDXG_GART_PTE_VALID);
    vram_writel(p, PG_GART + n * 8ull + 4, 0);
    wr(&sr.pf, VDXG_REG_TLB_FLUSH, 1);
    wr(&sr.pf, VDXG_REG_INT_MASK, VDXG_INT_VALID_MASK);

    d->p = p;
    d->v = &p->v;
    d->qts = sr.pf.qts;
    d->now = qtest_clock_step(d->qts, 12345678);
    /* Every pixel 0xff400000: Bridge Control 0xff40 has SBR */
    wr(d->v, CR(0, VDXG_CRTC_BG_COLOR), 0x400000);
    dp_enable(d, 0, &m, 0);
    wr64(d->v, VDXG_REG_WB_ADDR_LO, addr);
    wr(d->v, VDXG_REG_WB_FORMAT, VDXG_FOURCC_ARGB8888);
    wr(d->v, VDXG_REG_WB_PITCH, 4096 * 4);
    wr(d->v, VDXG_REG_WB_CTRL, VDXG_WB_CTRL_ENABLE);
    /*
     * The frame is composed, then captured, in bottom halves that run for
     * about a millisecond of host time each: the first row's write, which
     * sets SBR, comes after however many qtest commands that takes.
     */
    d->now = qtest_clock_step(d->qts, 50000000);
    for (i = 0; i < PG_WAIT_LOOPS; i++) {
        if (qpci_config_readw(rp, PCI_BRIDGE_CONTROL) &
            PCI_BRIDGE_CTL_BUS_RESET) {
            break;
        }
    }

    /* The root port as it was, out of reset; the BARs where they were */
    for (i = 0; i < 15; i++) {
        qpci_config_writel(rp, i * 4, rp_cfg[i]);
    }
    g_assert_cmphex(qpci_config_readw(rp, PCI_BRIDGE_CONTROL) &
                    PCI_BRIDGE_CTL_BUS_RESET, !=, 0);
    qpci_config_writel(rp, 15 * 4, rp_cfg[15]);
    g_free(rp);
    for (i = 0; i < 6; i++) {
        qpci_config_writel(sr.pf.dev, PCI_BASE_ADDRESS_0 + i * 4, bars[i]);
    }
    qpci_config_writew(sr.pf.dev, PCI_COMMAND, cmd);

    g_assert_cmphex(rd(d->v, CR(0, VDXG_CRTC_CTRL)), ==, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_CTRL), ==, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_STATUS), ==, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_WB_SEQNO), ==, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_INT_STATUS), ==, 0);
    g_assert_cmphex(rd(d->v, VDXG_REG_FAULT_STATUS), ==, 0);
    g_free(d);
    g_free(p);
    sr_stop(&sr);
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
    /*
     * Nor PCI configuration space through MMCFG: the root port's interrupt
     * line and bridge control (Secondary Bus Reset), written or read
     */
    {
        uint64_t cfg = SR_ECAM + ((uint32_t)SR_RP_DEVFN << 12);
        uint32_t data[1] = { 0x0040005a };
        uint32_t before = ecam_readl(qts, SR_RP_DEVFN, PCI_INTERRUPT_LINE);

        wr(&sr.vf[0], VDXG_ENGINE_BASE(VDXG_ENGINE_PAGING) + VDXG_ENG_RESET,
           1);
        wr(&sr.vf[0], VDXG_REG_FAULT_CLEAR, 1);
        sr_vf_pg(&sr, 0, p);
        pb_reset(p);
        emit_write_phys(p, cfg + PCI_INTERRUPT_LINE, data, 1);
        pb_queue(p);
        ring_kick(p);
        g_assert_cmphex(pg_wait(p) & VDXG_ENG_STATUS_HALTED, !=, 0);
        g_assert_cmpuint(rd(&sr.vf[0], VDXG_REG_FAULT_REASON), ==,
                         VDXG_FAULT_ADDRESS);
        g_assert_cmphex(rd64(&sr.vf[0], VDXG_REG_FAULT_ADDR_LO), ==,
                        cfg + PCI_INTERRUPT_LINE);
        g_assert_cmphex(ecam_readl(qts, SR_RP_DEVFN, PCI_INTERRUPT_LINE), ==,
                        before);
        g_assert_cmphex(before & 0xff, !=, 0x5a);

        wr(&sr.vf[0], VDXG_ENGINE_BASE(VDXG_ENGINE_PAGING) + VDXG_ENG_RESET,
           1);
        wr(&sr.vf[0], VDXG_REG_FAULT_CLEAR, 1);
        sr_vf_pg(&sr, 0, p);
        qtest_writel(qts, pf0 + 0x802000, 0);
        pb_reset(p);
        emit_read_phys(p, cfg, 4, 0x2000);
        pb_queue(p);
        ring_kick(p);
        g_assert_cmphex(pg_wait(p) & VDXG_ENG_STATUS_HALTED, !=, 0);
        g_assert_cmpuint(rd(&sr.vf[0], VDXG_REG_FAULT_REASON), ==,
                         VDXG_FAULT_ADDRESS);
        g_assert_cmphex(qtest_readl(qts, pf0 + 0x802000), ==, 0);
    }
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

/*
 * Behind an IOMMU a VF's bus addresses are I/O virtual addresses, and the
 * isolation check applies to where each page lands, its translation. An
 * intel-iommu the guest has not enabled translates every address to
 * itself: a VF's write to the PF's VRAM BAR still faults and leaves it
 * alone, a write to RAM lands.
 */
static void test_sriov_isolation_iommu(void)
{
    /* VF 0's first 2 MiB: PF 8M */
    static const SrRange r = { 0x800000, 0x200000 };
    uint32_t data[2] = { 0x12345678, 0x9abcdef0 };
    Pg *p = g_new0(Pg, 1);
    uint64_t pf0;
    Sr sr;

    sr_start_after(&sr, "-device intel-iommu,intremap=off", NULL);
    pf0 = sr.pf_vram.addr;
    sr_enable_vfs(&sr, 2);
    g_assert_cmphex(sr_table(&sr, 0, &r, 1), ==,
                    1 << VDXG_BACKING_STATUS_RANGES_SHIFT);
    sr_vf_pg(&sr, 0, p);
    qtest_writel(sr.pf.qts, pf0 + 0x10000, 0xa5a5a5a5);

    pb_reset(p);
    emit_write_phys(p, SYS_PAGE(10), data, 2);
    pb_run(p);
    g_assert_cmphex(qtest_readl(sr.pf.qts, SYS_PAGE(10)), ==, 0x12345678);
    g_assert_cmphex(qtest_readl(sr.pf.qts, SYS_PAGE(10) + 4), ==,
                    0x9abcdef0);

    pb_reset(p);
    emit_write_phys(p, pf0 + 0x10000, data, 2);
    pb_queue(p);
    ring_kick(p);
    g_assert_cmphex(pg_wait(p) & VDXG_ENG_STATUS_HALTED, !=, 0);
    g_assert_cmpuint(rd(&sr.vf[0], VDXG_REG_FAULT_REASON), ==,
                     VDXG_FAULT_ADDRESS);
    g_assert_cmphex(qtest_readl(sr.pf.qts, pf0 + 0x10000), ==, 0xa5a5a5a5);
    g_assert_cmphex(rd(&sr.pf, VDXG_REG_FAULT_STATUS), ==, 0);
    g_free(p);
    sr_stop(&sr);
}

/*
 * Behind an intel-iommu that translates: the VF's I/O virtual page
 * SR_IOVA_BAR maps to the PF's VRAM BAR, SR_IOVA_RAM to RAM. A write to
 * SR_IOVA_BAR, an address no BAR has, lands in the PF's BAR if it is let
 * through: it faults ADDRESS and the BAR keeps its value. A write to
 * SR_IOVA_RAM lands at its translation; a write to the BAR's own address
 * is not mapped and faults too.
 */
#define SR_VTD_BASE         0xfed90000ull
#define SR_VTD_GCMD         0x18
#define SR_VTD_GSTS         0x1c
#define SR_VTD_RTADDR       0x20
#define SR_VTD_TE           (1u << 31)
#define SR_VTD_SRTP         (1u << 30)
#define SR_VTD_RW           3ull            /* second-level R and W */
#define SR_VTD_TABLE(n)     SYS_PAGE(100 + (n))
#define SR_IOVA_BAR         0x10000000ull
#define SR_IOVA_RAM         0x10001000ull

static void sr_vtd_map(QTestState *qts, uint64_t iova, uint64_t pa)
{
    /* Tables 2, 3 and 4: levels 3, 2 and 1 of a 39-bit address space */
    qtest_writeq(qts, SR_VTD_TABLE(2) + ((iova >> 30) & 511) * 8,
                 SR_VTD_TABLE(3) | SR_VTD_RW);
    qtest_writeq(qts, SR_VTD_TABLE(3) + ((iova >> 21) & 511) * 8,
                 SR_VTD_TABLE(4) | SR_VTD_RW);
    qtest_writeq(qts, SR_VTD_TABLE(4) + ((iova >> 12) & 511) * 8,
                 pa | SR_VTD_RW);
}

static void sr_vf_write_fault(Sr *sr, Pg *p, uint64_t bus)
{
    uint32_t data[2] = { 0x12345678, 0x9abcdef0 };

    wr(&sr->vf[0], VDXG_ENGINE_BASE(VDXG_ENGINE_PAGING) + VDXG_ENG_RESET, 1);
    wr(&sr->vf[0], VDXG_REG_FAULT_CLEAR, 1);
    sr_vf_pg(sr, 0, p);
    pb_reset(p);
    emit_write_phys(p, bus, data, 2);
    pb_queue(p);
    ring_kick(p);
    g_assert_cmphex(pg_wait(p) & VDXG_ENG_STATUS_HALTED, !=, 0);
    g_assert_cmpuint(rd(&sr->vf[0], VDXG_REG_FAULT_REASON), ==,
                     VDXG_FAULT_ADDRESS);
}

static void test_sriov_isolation_viommu(void)
{
    static const SrRange r = { 0x800000, 0x200000 };
    uint32_t data[2] = { 0x12345678, 0x9abcdef0 };
    Pg *p = g_new0(Pg, 1);
    QTestState *qts;
    uint64_t pf0;
    int i;
    Sr sr;

    sr_start_after(&sr, "-device intel-iommu,intremap=off,aw-bits=39",
                   NULL);
    qts = sr.pf.qts;
    pf0 = sr.pf_vram.addr;
    sr_enable_vfs(&sr, 2);
    g_assert_cmphex(sr_table(&sr, 0, &r, 1), ==,
                    1 << VDXG_BACKING_STATUS_RANGES_SHIFT);
    qtest_writel(qts, pf0 + 0x10000, 0xa5a5a5a5);

    /* Root entry of bus 1, context entry of VF 0 (devfn 1), 3 levels */
    for (i = 0; i < 5; i++) {
        qtest_memset(qts, SR_VTD_TABLE(i), 0, PG_PAGE);
    }
    qtest_writeq(qts, SR_VTD_TABLE(0) + 1 * 16, SR_VTD_TABLE(1) | 1);
    qtest_writeq(qts, SR_VTD_TABLE(1) + 1 * 16, SR_VTD_TABLE(2) | 1);
    qtest_writeq(qts, SR_VTD_TABLE(1) + 1 * 16 + 8, (1 << 8) | 1);
    sr_vtd_map(qts, SR_IOVA_BAR, pf0 + 0x10000);
    sr_vtd_map(qts, SR_IOVA_RAM, SYS_PAGE(10));
    qtest_writeq(qts, SR_VTD_BASE + SR_VTD_RTADDR, SR_VTD_TABLE(0));
    qtest_writel(qts, SR_VTD_BASE + SR_VTD_GCMD, SR_VTD_SRTP);
    qtest_writel(qts, SR_VTD_BASE + SR_VTD_GCMD, SR_VTD_TE);
    g_assert_cmphex(qtest_readl(qts, SR_VTD_BASE + SR_VTD_GSTS) &
                    SR_VTD_TE, ==, SR_VTD_TE);

    sr_vf_pg(&sr, 0, p);
    pb_reset(p);
    emit_write_phys(p, SR_IOVA_RAM + 8, data, 2);
    pb_run(p);
    g_assert_cmphex(qtest_readl(qts, SYS_PAGE(10) + 8), ==, 0x12345678);
    g_assert_cmphex(qtest_readl(qts, SYS_PAGE(10) + 12), ==, 0x9abcdef0);

    sr_vf_write_fault(&sr, p, SR_IOVA_BAR);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x10000), ==, 0xa5a5a5a5);
    sr_vf_write_fault(&sr, p, pf0 + 0x10000);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x10000), ==, 0xa5a5a5a5);
    g_assert_cmphex(rd(&sr.pf, VDXG_REG_FAULT_STATUS), ==, 0);
    g_free(p);
    sr_stop(&sr);
}

/*
 * The slowest way for an engine to reach VRAM: a VF's RENDER engine
 * through 32 backing ranges, 1 MiB each in reverse order. A fill and a
 * copy of 28 MiB: every bottom-half run must stay near a millisecond
 * (one used to hold the main loop up to 23 ms). The bound is on CPU time
 * (x-max-slice-cpu-ns), generous for a loaded 2-core machine.
 */
#define SR_SLICE_MAX_NS     (5 * 1000 * 1000)
#define SR_RD_RING          0x2000
#define SR_RD_FENCE         0x3000
#define SR_RD_SURF          0x100000ull

static void sr_rd_surface(Pg *p, uint32_t slot)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_SET_SURFACE, VDXG_RD_SET_SURFACE_LEN));
    pb_dw(p, slot);
    pb_qw(p, SR_RD_SURF);
    pb_dw(p, VDXG_FMT_XRGB8888);
    pb_dw(p, 4096);
    pb_dw(p, 1792);
    pb_dw(p, 4096 * 4);
}

static void sr_qom_set0(Sr *sr, const char *prop)
{
    qobject_unref(qtest_qmp(sr->pf.qts, "{ 'execute': 'qom-set', "
                            "'arguments': { 'path': '/machine/peripheral/gpu',"
                            " 'property': %s, 'value': 0 } }", prop));
}

static void test_sriov_slice_time(void)
{
    SrRange r[VDXG_MAX_BACKING_RANGES];
    Pg *p = g_new0(Pg, 1);
    int64_t t, rt = 0, total;
    uint32_t status = 0, i;
    Sr sr;

    sr_start(&sr, NULL);
    sr_enable_vfs(&sr, 1);
    for (i = 0; i < VDXG_MAX_BACKING_RANGES; i++) {
        r[i] = (SrRange) { 128 * MiB + (31 - i) * MiB, MiB };
    }
    g_assert_cmphex(sr_table(&sr, 0, r, VDXG_MAX_BACKING_RANGES), ==,
                    VDXG_MAX_BACKING_RANGES <<
                    VDXG_BACKING_STATUS_RANGES_SHIFT);
    p->v = sr.vf[0];
    p->vram = sr.vf_vram[0];
    p->eng = VDXG_ENGINE_RENDER;
    p->ring = SR_RD_RING;
    p->fence = SR_RD_FENCE;
    pg_engine_setup(p);

    pb_reset(p);
    sr_rd_surface(p, VDXG_SLOT_DST);
    sr_rd_surface(p, VDXG_SLOT_SRC);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_FILL_RECT, VDXG_RD_FILL_RECT_LEN));
    pb_dw(p, VDXG_RD_XY(0, 0));
    pb_dw(p, VDXG_RD_XY(4096, 1792));
    pb_dw(p, 0x00c0ffee);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_COPY_RECT, VDXG_RD_COPY_RECT_LEN));
    pb_dw(p, VDXG_RD_XY(0, 0));
    pb_dw(p, VDXG_RD_XY(0, 896));
    pb_dw(p, VDXG_RD_XY(4096, 896));
    /*
     * Once to bring the host's VRAM pages in (the first write to a page
     * costs the host a page fault and zeroing, not the device), then again
     * to measure.
     */
    pb_queue(p);
    ring_kick(p);
    pg_finish(p);
    sr_qom_set0(&sr, "x-max-slice-ns");
    sr_qom_set0(&sr, "x-max-slice-cpu-ns");
    pb_queue(p);
    total = g_get_monotonic_time();
    ring_kick(p);
    for (i = 0; i < PG_WAIT_LOOPS; i++) {
        t = g_get_monotonic_time();
        status = rd(&p->v, EREG(p, VDXG_ENG_STATUS));
        rt = MAX(rt, g_get_monotonic_time() - t);
        if (status & (VDXG_ENG_STATUS_IDLE | VDXG_ENG_STATUS_HALTED)) {
            break;
        }
    }
    total = g_get_monotonic_time() - total;
    g_assert_cmphex(status, ==, VDXG_ENG_STATUS_IDLE);
    g_assert_cmphex(rd(&sr.vf[0], VDXG_REG_FAULT_STATUS), ==, 0);
    g_test_message("VF fill + copy of 28 MiB through 32 ranges: %" PRId64
                   " us, longest round trip %" PRId64 " us, x-max-slice-ns "
                   "%" PRIu64 " x-max-slice-cpu-ns %" PRIu64, total, rt,
                   qom_get_u64(p, "x-max-slice-ns"),
                   qom_get_u64(p, "x-max-slice-cpu-ns"));
    /* The first and last pixels of each half, in the PF's VRAM */
    for (i = 0; i < 2; i++) {
        uint64_t off = SR_RD_SURF + i * 896 * 16384ull;
        uint64_t end = off + 896 * 16384ull - 4;

        g_assert_cmphex(qtest_readl(sr.pf.qts, sr.vf_vram[0].addr + off) &
                        0xffffff, ==, 0xc0ffee);
        g_assert_cmphex(qtest_readl(sr.pf.qts, sr.vf_vram[0].addr + end) &
                        0xffffff, ==, 0xc0ffee);
    }
    g_assert_cmpuint(qom_get_u64(p, "x-max-slice-cpu-ns"), <,
                     SR_SLICE_MAX_NS);
    g_free(p);
    sr_stop(&sr);
}

/*
 * The PF and 16 VFs, all 34 engines busy at once: each PAGING engine
 * fills 16 MiB (16 FILLs of 1 MiB at the top of the function's VRAM),
 * each RENDER engine fills 16 MiB (8 FILL_RECTs of 1024x512 XRGB8888
 * below it); every VF's VRAM is four 1 MiB backing ranges in reverse
 * order. The engines of the PF and its VFs share one scheduler and one
 * deadline: a main-loop pass of engine work ends about 1 ms after it
 * started, however many engines are busy (it used to be one slice per
 * busy engine, back to back: 39 ms with 34 engines).
 *
 * What is asserted: every engine completes its work exactly (fence,
 * HEAD, no fault, the fill values at both ends of each region), in many
 * passes, and the device's own count of the quanta of work it granted
 * after a pass's deadline: none (x-late-quanta; an engine that kept its
 * own deadline, as each bottom half did, would be granted quanta long
 * after the pass's). A pass thus ends at most one quantum after its
 * deadline on any host. Its CPU time is printed with the real-time
 * figures and the longest qtest round trip, and only loosely checked
 * (3 passes in 4 under 1.5 ms: x-passes-over, with x-pass-limit-ns at
 * 1.5 ms), since a thread's CPU time in a VM also counts what the host
 * took from it; each pass of the old per-engine bottom halves was above
 * it (34 slices of about 1 ms).
 */
#define SR_BUSY_VRAM        (4 * MiB)
#define SR_BUSY_FILL        0x300000ull     /* PAGING: the top 1 MiB */
#define SR_BUSY_FILLS       16
#define SR_BUSY_SURF        0x100000ull     /* RENDER: 2 MiB below */
#define SR_BUSY_W           1024
#define SR_BUSY_H           512
#define SR_BUSY_RECTS       8
#define SR_BUSY_RD_BUF      0x60000ull      /* RENDER's DMA buffer */
#define SR_PASS_MAX_NS      1500000
#define SR_BUSY_LOOPS       (120 * 1000)

static uint32_t sr_busy_value(int fn, int eng)
{
    return 0x5a000000u | (fn << 8) | eng;
}

static void test_sriov_busy_pass(void)
{
    enum { NFN = SR_MAX_VFS + 1 };
    g_autofree Pg *pgs = g_new0(Pg, NFN * 2);
    g_autofree char *props = g_strdup_printf(
        "total-vfs=%d,vf-vram-size=%" PRIu64, SR_MAX_VFS,
        (uint64_t)SR_BUSY_VRAM);
    int64_t t, rt = 0, total;
    uint32_t status, busy, loops;
    uint64_t max_cpu, next_cpu, passes, over, late;
    Sr sr;
    int fn, i;

    sr_start(&sr, props);
    sr.vf_vram_size = SR_BUSY_VRAM;
    sr_enable_vfs(&sr, SR_MAX_VFS);
    for (fn = 1; fn < NFN; fn++) {
        SrRange r[4];

        for (i = 0; i < 4; i++) {
            r[i] = (SrRange) {
                64 * MiB + (uint64_t)(fn - 1) * SR_BUSY_VRAM + (3 - i) * MiB,
                MiB,
            };
        }
        g_assert_cmphex(sr_table(&sr, fn - 1, r, 4), ==,
                        4 << VDXG_BACKING_STATUS_RANGES_SHIFT);
    }

    /* Build and queue the work of all 34 engines, then kick them all. */
    for (fn = 0; fn < NFN; fn++) {
        Pg *pg = &pgs[fn * 2], *prd = &pgs[fn * 2 + 1];

        pg->v = fn ? sr.vf[fn - 1] : sr.pf;
        pg->vram = fn ? sr.vf_vram[fn - 1] : sr.pf_vram;
        pg->eng = VDXG_ENGINE_PAGING;
        pg->ring = PG_RING;
        pg->fence = PG_FENCE;
        pg_engine_setup(pg);
        pb_reset(pg);
        for (i = 0; i < SR_BUSY_FILLS; i++) {
            emit_fill(pg, SR_BUSY_FILL, MiB,
                      sr_busy_value(fn, VDXG_ENGINE_PAGING) + (i << 16));
        }
        pb_queue(pg);

        prd->v = pg->v;
        prd->vram = pg->vram;
        prd->eng = VDXG_ENGINE_RENDER;
        prd->ring = SR_RD_RING;
        prd->fence = SR_RD_FENCE;
        pg_engine_setup(prd);
        pb_reset(prd);
        rd_set_surface(prd, VDXG_SLOT_DST, SR_BUSY_SURF, VDXG_FMT_XRGB8888,
                       SR_BUSY_W, SR_BUSY_H, SR_BUSY_W * 4);
        for (i = 0; i < SR_BUSY_RECTS; i++) {
            rd_fill(prd, 0, 0, SR_BUSY_W, SR_BUSY_H,
                    sr_busy_value(fn, VDXG_ENGINE_RENDER) + (i << 16));
        }
        pb_queue_at(prd, SR_BUSY_RD_BUF, PG_CONTEXT);
    }
    sr_qom_set0(&sr, "x-max-pass-ns");
    sr_qom_set0(&sr, "x-max-pass-cpu-ns");
    sr_qom_set0(&sr, "x-next-pass-cpu-ns");
    sr_qom_set0(&sr, "x-passes-over");
    sr_qom_set0(&sr, "x-late-quanta");
    g_assert_cmpuint(sr_qom_u64(&sr, "/machine/peripheral/gpu",
                                "x-pass-limit-ns"), ==, SR_PASS_MAX_NS);
    passes = sr_qom_u64(&sr, "/machine/peripheral/gpu", "x-passes");
    total = g_get_monotonic_time();
    for (i = 0; i < NFN * 2; i++) {
        ring_kick(&pgs[i]);
    }

    /* Poll every engine in turn, every 1 ms, until all are idle */
    for (loops = 0; loops < SR_BUSY_LOOPS; loops++) {
        busy = 0;
        for (i = 0; i < NFN * 2; i++) {
            Pg *p = &pgs[i];

            t = g_get_monotonic_time();
            status = rd(&p->v, EREG(p, VDXG_ENG_STATUS));
            rt = MAX(rt, g_get_monotonic_time() - t);
            g_assert_cmphex(status & VDXG_ENG_STATUS_HALTED, ==, 0);
            busy += !(status & VDXG_ENG_STATUS_IDLE);
        }
        if (!busy) {
            break;
        }
        g_usleep(1000);
    }
    total = g_get_monotonic_time() - total;
    passes = sr_qom_u64(&sr, "/machine/peripheral/gpu", "x-passes") - passes;
    max_cpu = sr_qom_u64(&sr, "/machine/peripheral/gpu", "x-max-pass-cpu-ns");
    next_cpu = sr_qom_u64(&sr, "/machine/peripheral/gpu",
                          "x-next-pass-cpu-ns");
    over = sr_qom_u64(&sr, "/machine/peripheral/gpu", "x-passes-over");
    late = sr_qom_u64(&sr, "/machine/peripheral/gpu", "x-late-quanta");
    g_test_message("PF + %d VFs, 34 engines of 16 MiB each: %" PRId64
                   " us, %" PRIu64 " passes, longest qtest round trip %"
                   PRId64 " us, x-max-pass-ns %" PRIu64 " x-max-pass-cpu-ns %"
                   PRIu64 " x-next-pass-cpu-ns %" PRIu64 " x-passes-over %"
                   PRIu64 " x-late-quanta %" PRIu64, SR_MAX_VFS, total,
                   passes, rt,
                   sr_qom_u64(&sr, "/machine/peripheral/gpu", "x-max-pass-ns"),
                   max_cpu, next_cpu, over, late);
    g_assert_cmpuint(busy, ==, 0);

    /* Every engine did all of its work, and nothing else */
    for (fn = 0; fn < NFN; fn++) {
        Pg *pg = &pgs[fn * 2], *prd = &pgs[fn * 2 + 1];
        uint32_t last_pg = sr_busy_value(fn, VDXG_ENGINE_PAGING) +
                           ((SR_BUSY_FILLS - 1) << 16);
        uint32_t last_rd = sr_busy_value(fn, VDXG_ENGINE_RENDER) +
                           ((SR_BUSY_RECTS - 1) << 16);
        uint64_t rd_end = SR_BUSY_SURF + SR_BUSY_W * 4ull * SR_BUSY_H - 4;

        pg_finish(pg);
        pg_finish(prd);
        g_assert_cmphex(rd(&pg->v, VDXG_REG_FAULT_STATUS), ==, 0);
        g_assert_cmphex(vram_readl(pg, SR_BUSY_FILL), ==, last_pg);
        g_assert_cmphex(vram_readl(pg, SR_BUSY_FILL + MiB - 4), ==, last_pg);
        g_assert_cmphex(vram_readl(prd, SR_BUSY_SURF) & 0xffffff, ==,
                        last_rd & 0xffffff);
        g_assert_cmphex(vram_readl(prd, rd_end) & 0xffffff, ==,
                        last_rd & 0xffffff);
    }

    /*
     * An engine runs at most 4 MiB of budget (VDXG_BH_BUDGET) in a pass:
     * 16 MiB takes at least 4 passes. Then the device's accounting.
     */
    g_assert_cmpuint(passes, >=, 16 / 4);
    g_assert_cmpuint(late, ==, 0);
    g_assert_cmpuint(over * 4, <=, passes);
    sr_stop(&sr);
}

/*
 * A doorbell rung by an engine's DMA: the PF's PAGING engine writes VF 0's
 * PAGING DOORBELL (WRITE_PHYSICAL). The VF's engine runs its entry from
 * the scheduler's pass, not in a slice of its own inside the PF's (which
 * would run past the pass's deadline): x-kick-slices of the VF stays as
 * it was, where a doorbell written by the CPU runs a slice in the write.
 */
static void test_sriov_dma_doorbell(void)
{
    static const SrRange r[] = { { 0x800000, 0x100000 } };
    const uint32_t one = 1;
    g_autofree char *vf0 = NULL;
    Pg *p = g_new0(Pg, 1), *q = g_new0(Pg, 1);
    uint64_t kicks;
    Sr sr;

    sr_start(&sr, NULL);
    sr_enable_vfs(&sr, 1);
    vf0 = sr_vf_path(&sr, 0);
    g_assert_cmphex(sr_table(&sr, 0, r, 1), ==,
                    1 << VDXG_BACKING_STATUS_RANGES_SHIFT);
    sr_pg(&sr.pf, sr.pf_vram, p);
    sr_vf_pg(&sr, 0, q);

    /* ENABLE ran a slice; the VF's entry is queued, its doorbell not. */
    kicks = sr_qom_u64(&sr, vf0, "x-kick-slices");
    pb_reset(q);
    emit_fill(q, 0xc0000, 0x1000, 0x0d0be11);
    pb_queue(q);
    wr(&q->v, EREG(q, VDXG_ENG_RING_TAIL), q->tail);

    pb_reset(p);
    emit_write_phys(p, SR_VF_MMIO_BASE +
                    VDXG_ENGINE_BASE(VDXG_ENGINE_PAGING) + VDXG_ENG_DOORBELL,
                    &one, 1);
    pb_run(p);
    pg_finish(q);
    g_assert_cmphex(vram_readl(q, 0xc0ffc), ==, 0x0d0be11);
    g_assert_cmpuint(sr_qom_u64(&sr, vf0, "x-kick-slices"), ==, kicks);
    g_assert_cmphex(rd(&sr.vf[0], VDXG_REG_FAULT_STATUS), ==, 0);
    g_assert_cmphex(rd(&sr.pf, VDXG_REG_FAULT_STATUS), ==, 0);

    /* The same doorbell written by the CPU */
    pb_reset(q);
    emit_fill(q, 0xc0000, 0x1000, 0x0c0ffee);
    pb_run(q);
    g_assert_cmphex(vram_readl(q, 0xc0ffc), ==, 0x0c0ffee);
    g_assert_cmpuint(sr_qom_u64(&sr, vf0, "x-kick-slices"), ==, kicks + 1);
    g_free(q);
    g_free(p);
    sr_stop(&sr);
}

/*
 * A VF's GPU virtual memory: its MMU registers, AS table, page tables and
 * pages are in its own VRAM, reached through its backing ranges; a page
 * outside its VRAM is a bad table, an unbacked page an ADDRESS fault.
 */
#define SR_MM_PTE(a)        ((uint64_t)(a) | VDXG_PTE_VALID | \
                             VDXG_PTE_SEGMENT(VDXG_PTE_SEGMENT_VRAM))

static void sr_vf_mmu_fault(Sr *sr, Pg *p, uint32_t reason, uint64_t addr,
                            uint32_t as, uint32_t access)
{
    Vdxg *v = &sr->vf[0];

    pb_queue(p);
    ring_kick(p);
    g_assert_cmphex(pg_wait(p) & VDXG_ENG_STATUS_HALTED, !=, 0);
    g_assert_cmpuint(rd(v, VDXG_REG_FAULT_REASON), ==, reason);
    g_assert_cmphex(rd64(v, VDXG_REG_FAULT_ADDR_LO), ==, addr);
    g_assert_cmpuint(rd(v, VDXG_REG_FAULT_VM), ==, as);
    g_assert_cmpuint(rd(v, VDXG_REG_FAULT_ACCESS), ==, access);
    g_assert_cmphex(rd(&sr->pf, VDXG_REG_FAULT_STATUS), ==, 0);
    wr(v, VDXG_ENGINE_BASE(VDXG_ENGINE_PAGING) + VDXG_ENG_RESET, 1);
    wr(v, VDXG_REG_FAULT_CLEAR, 1);
    g_assert_cmpuint(rd(v, VDXG_REG_FAULT_VM), ==, 0);
    sr_vf_pg(sr, 0, p);
    pb_reset(p);
}

static void test_sriov_mmu(void)
{
    /* VF 0's first 2 MiB: PF 8M + 1M, PF 4M + 1M */
    static const SrRange r[] = {
        { 0x800000, 0x100000 }, { 0x400000, 0x100000 },
    };
    const uint64_t l0[] = {
        SR_MM_PTE(0x100000),            /* PF 0x400000 */
        SR_MM_PTE(0x300000),            /* not backed */
        SR_MM_PTE(SR_VF_VRAM),          /* outside the VF's VRAM */
        SR_MM_PTE(0x1000),              /* PF 0x801000 */
    };
    const uint64_t dir[] = {
        0x91000 | VDXG_PTE_VALID, 0x92000 | VDXG_PTE_VALID,
        0x93000 | VDXG_PTE_VALID, 0x300000 | VDXG_PTE_VALID,
    };
    g_autofree char *vf0 = NULL;
    g_autofree char *vf1 = NULL;
    QTestState *qts;
    Vdxg *v;
    uint64_t pf0;
    Pg *p = g_new0(Pg, 1);
    Sr sr;

    sr_start(&sr, NULL);
    qts = sr.pf.qts;
    pf0 = sr.pf_vram.addr;
    sr_enable_vfs(&sr, 2);
    vf0 = sr_vf_path(&sr, 0);
    vf1 = sr_vf_path(&sr, 1);
    v = &sr.vf[0];
    g_assert_cmphex(sr_table(&sr, 0, r, 2), ==,
                    2 << VDXG_BACKING_STATUS_RANGES_SHIFT);
    sr_vf_pg(&sr, 0, p);

    g_assert_cmphex(rd(v, VDXG_REG_CAPS) & VDXG_CAP_GPU_MMU, ==,
                    VDXG_CAP_GPU_MMU);
    wr64(v, VDXG_REG_VM_TABLE_LO, 0x80000);
    wr(v, VDXG_REG_VM_TABLE_ENTRIES, 2);
    wr(v, VDXG_REG_VM_CTRL, VDXG_VM_CTRL_ENABLE);
    /* Its own VRAM's size bounds the table; the PF's registers are apart */
    wr(v, VDXG_REG_VM_TABLE_LO, SR_VF_VRAM);
    g_assert_cmphex(rd64(v, VDXG_REG_VM_TABLE_LO), ==, 0x80000);
    g_assert_cmphex(rd64(&sr.pf, VDXG_REG_VM_TABLE_LO), ==, 0);
    g_assert_cmpuint(rd(&sr.pf, VDXG_REG_VM_CTRL), ==, 0);

    pb_reset(p);
    emit_uca(p, 1, 0x90000 | VDXG_VM_AS_VALID);
    emit_upt(p, 0x90000, 0, &dir[0], 1);
    emit_upt(p, 0x91000, 0, &dir[1], 1);
    emit_upt(p, 0x92000, 0, &dir[2], 2);
    emit_upt(p, 0x93000, 0, l0, ARRAY_SIZE(l0));
    emit_fill_virt(p, 1, 0, PG_PAGE, 0x7e57f00d);
    emit_xfer_virt(p, 1, 0, 16, 0, 0x3010);
    pb_run(p);
    /* Tables and pages are where the backing puts them in PF VRAM */
    g_assert_cmphex(qtest_readq(qts, pf0 + 0x880010), ==,
                    0x90000 | VDXG_VM_AS_VALID);
    g_assert_cmphex(qtest_readq(qts, pf0 + 0x893000), ==, l0[0]);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x400000), ==, 0x7e57f00d);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x400ffc), ==, 0x7e57f00d);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x401000), !=, 0x7e57f00d);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x80100c), !=, 0x7e57f00d);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x801010), ==, 0x7e57f00d);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x80101c), ==, 0x7e57f00d);
    /* The walks went through VF 0's TLBs, not the PF's nor VF 1's */
    g_assert_cmpuint(sr_qom_u64(&sr, vf0, "x-vm-tlb-misses"), >, 0);
    g_assert_cmpuint(sr_qom_u64(&sr, vf1, "x-vm-tlb-misses"), ==, 0);
    g_assert_cmpuint(sr_qom_u64(&sr, "/machine/peripheral/gpu",
                                "x-vm-tlb-misses"), ==, 0);
    g_assert_cmpuint(sr_qom_u64(&sr, "/machine/peripheral/gpu",
                                "x-vm-tlb-hits"), ==, 0);

    /* A page in the VF's VRAM that nothing backs */
    emit_fill_virt(p, 1, 0x1000, 4, 0);
    sr_vf_mmu_fault(&sr, p, VDXG_FAULT_ADDRESS, 0x1000, 0, 0);
    /* A page past the VF's VRAM, a table that nothing backs */
    emit_xfer_virt(p, 1, VDXG_PG_XV_DST_PHYS, 4, 0x2000, 0x4000);
    sr_vf_mmu_fault(&sr, p, VDXG_FAULT_VM_BAD_TABLE, 0x2000, 1,
                    VDXG_ACCESS_READ);
    emit_xfer_virt(p, 1, VDXG_PG_XV_DST_PHYS, 4, 0x200000, 0x4000);
    sr_vf_mmu_fault(&sr, p, VDXG_FAULT_VM_BAD_TABLE, 0x200000, 1,
                    VDXG_ACCESS_READ);
    /* A system page on a vdxg BAR: the VF's DMA checks refuse it */
    {
        uint64_t sys = (pf0 + 0x10000) | VDXG_PTE_VALID |
                       VDXG_PTE_SEGMENT(VDXG_PTE_SEGMENT_SYSTEM);

        qtest_writel(qts, pf0 + 0x10000, 0xa5a5a5a5);
        emit_upt(p, 0x93000, 4, &sys, 1);
        pb_run(p);
        emit_fill_virt(p, 1, 0x4000, 4, 0x12345678);
        sr_vf_mmu_fault(&sr, p, VDXG_FAULT_ADDRESS, 0x4000, 0, 0);
        g_assert_cmphex(qtest_readl(qts, pf0 + 0x10000), ==, 0xa5a5a5a5);
    }
    /* Address space 0 of the VF is not set up */
    emit_fill_virt(p, 0, 0, 4, 0);
    sr_vf_mmu_fault(&sr, p, VDXG_FAULT_VM_NOT_PRESENT, 0, 0,
                    VDXG_ACCESS_WRITE);
    /* The PF's own MMU is off: its address space 1 is not the VF's */
    g_assert_cmphex(rd(&sr.pf, VDXG_REG_FAULT_STATUS), ==, 0);

    g_free(p);
    sr_stop(&sr);
}

/*
 * A VF runs EXEC_VIRTUAL entries: its address space, its pages and its
 * state area are in its own VRAM, through its backing ranges; a surface
 * over two pages adjacent in the VF but not in the PF; an unbacked page
 * or state area is an ADDRESS fault.
 */
static void sr_vf_vm_entry(Pg *p, uint32_t state_page)
{
    vram_write(p, 0x60000, p->buf, pb_off(p));
    ring_entry(p, VDXG_RING_CMD_VIRTUAL(1), pb_off(p), 0x70000, ++p->seqno,
               0x77, state_page);
    /* The buffer's page: VA 0x70000 is VF 0x60000 */
    ring_kick(p);
}

static void sr_vf_vm_fault(Sr *sr, Pg *p, uint32_t reason, uint32_t opcode,
                           uint64_t addr)
{
    Vdxg *v = &sr->vf[0];

    g_assert_cmphex(pg_wait(p) & VDXG_ENG_STATUS_HALTED, !=, 0);
    g_assert_cmpuint(rd(v, VDXG_REG_FAULT_REASON), ==, reason);
    g_assert_cmphex(rd(v, VDXG_REG_FAULT_OPCODE), ==, opcode);
    g_assert_cmphex(rd64(v, VDXG_REG_FAULT_ADDR_LO), ==, addr);
    g_assert_cmpuint(rd(v, VDXG_REG_FAULT_CONTEXT), ==, 0x77);
    g_assert_cmpuint(rd(v, VDXG_REG_FAULT_VM), ==, 0);
    g_assert_cmphex(rd(&sr->pf, VDXG_REG_FAULT_STATUS), ==, 0);
    wr(v, VDXG_ENGINE_BASE(VDXG_ENGINE_RENDER) + VDXG_ENG_RESET, 1);
    wr(v, VDXG_REG_FAULT_CLEAR, 1);
    pg_engine_setup(p);
    p->seqno = 0;
    pb_reset(p);
}

static void test_sriov_exec_virtual(void)
{
    /* VF 0's first 4 MiB: PF 8 MiB + 2 MiB, then PF 4 MiB + 2 MiB */
    static const SrRange r[] = {
        { 0x800000, 0x200000 }, { 0x400000, 0x200000 },
    };
    const uint64_t l0[] = {
        SR_MM_PTE(0x1ff000),            /* VA 0x10000: PF 0x9ff000 */
        SR_MM_PTE(0x200000),            /* VA 0x11000: PF 0x400000 */
        SR_MM_PTE(0x500000),            /* VA 0x12000: not backed */
    };
    const uint64_t state = 0x50000;     /* VF 0x50000: PF 0x850000 */
    QTestState *qts;
    uint64_t pf0;
    Pg *p = g_new0(Pg, 1);
    Sr sr;
    int i;

    sr_start(&sr, NULL);
    qts = sr.pf.qts;
    pf0 = sr.pf_vram.addr;
    sr_enable_vfs(&sr, 1);
    g_assert_cmphex(sr_table(&sr, 0, r, 2), ==,
                    2 << VDXG_BACKING_STATUS_RANGES_SHIFT);
    p->v = sr.vf[0];
    p->vram = sr.vf_vram[0];
    p->eng = VDXG_ENGINE_RENDER;
    p->ring = SR_RD_RING;
    p->fence = SR_RD_FENCE;
    pg_engine_setup(p);

    /* AS 1 of the VF: its table and tables in VF VRAM, by the CPU */
    for (i = 0; i < 4; i++) {
        uint64_t z[512] = { 0 };

        vram_write(p, 0x90000 + i * 0x1000, z, sizeof(z));
    }
    qtest_writeq(qts, p->vram.addr + 0x80010, 0x90000 | VDXG_VM_AS_VALID);
    qtest_writeq(qts, p->vram.addr + 0x80018, 0);
    qtest_writeq(qts, p->vram.addr + 0x90000, 0x91000 | VDXG_PTE_VALID);
    qtest_writeq(qts, p->vram.addr + 0x91000, 0x92000 | VDXG_PTE_VALID);
    qtest_writeq(qts, p->vram.addr + 0x92000, 0x93000 | VDXG_PTE_VALID);
    for (i = 0; i < ARRAY_SIZE(l0); i++) {
        qtest_writeq(qts, p->vram.addr + 0x93000 + (0x10 + i) * 8, l0[i]);
    }
    qtest_writeq(qts, p->vram.addr + 0x93000 + 0x70 * 8,
                 SR_MM_PTE(0x60000));
    wr64(&sr.vf[0], VDXG_REG_VM_TABLE_LO, 0x80000);
    wr(&sr.vf[0], VDXG_REG_VM_TABLE_ENTRIES, 2);
    wr(&sr.vf[0], VDXG_REG_VM_CTRL, VDXG_VM_CTRL_ENABLE);
    vram_write(p, state, (uint32_t[]) {
        cpu_to_le32(VDXG_CTX_STATE_MAGIC), cpu_to_le32(VDXG_CTX_STATE_VERSION),
    }, 8);
    for (i = 2; i < 64; i++) {
        vram_writel(p, state + i * 4, 0);
    }

    /* A row on each page: the first in range 0, the second in range 1 */
    pb_reset(p);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_SET_SURFACE, VDXG_RD_SET_SURFACE_LEN));
    pb_dw(p, VDXG_SLOT_DST);
    pb_qw(p, 0x10000);
    pb_dw(p, VDXG_FMT_XRGB8888);
    pb_dw(p, 1024);
    pb_dw(p, 2);
    pb_dw(p, 4096);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_FILL_RECT, VDXG_RD_FILL_RECT_LEN));
    pb_dw(p, VDXG_RD_XY(0, 0));
    pb_dw(p, VDXG_RD_XY(1024, 2));
    pb_dw(p, 0x00abcdef);
    sr_vf_vm_entry(p, state >> 12);
    pg_finish(p);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x9ff000), ==, 0xffabcdef);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x9ffffc), ==, 0xffabcdef);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x400000), ==, 0xffabcdef);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x400ffc), ==, 0xffabcdef);
    /* The state area, in PF VRAM through the backing */
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x850000 +
                                VDXG_CTX_STATE_SLOT(VDXG_SLOT_DST) * 4), ==,
                    1);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x850000 +
                                (VDXG_CTX_STATE_SLOT(VDXG_SLOT_DST) +
                                 VDXG_CTX_SLOT_DW_ADDR) * 4), ==, 0x10000);

    /* The next entry of the context draws into the same DST. */
    pb_reset(p);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_FILL_RECT, VDXG_RD_FILL_RECT_LEN));
    pb_dw(p, VDXG_RD_XY(1023, 1));
    pb_dw(p, VDXG_RD_XY(1, 1));
    pb_dw(p, 0x00123456);
    sr_vf_vm_entry(p, state >> 12);
    pg_finish(p);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x400ffc), ==, 0xff123456);
    g_assert_cmphex(qtest_readl(qts, pf0 + 0x400ff8), ==, 0xffabcdef);

    /* An unbacked page: ADDRESS at the virtual address */
    pb_reset(p);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_FENCE, VDXG_RD_FENCE_LEN));
    pb_qw(p, 0x12008);
    pb_qw(p, 1);
    sr_vf_vm_entry(p, 0);
    sr_vf_vm_fault(&sr, p, VDXG_FAULT_ADDRESS, VDXG_RD_FENCE, 0x12008);
    /* An unbacked state area: ADDRESS at its offset */
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_NOP, VDXG_RD_NOP_LEN));
    sr_vf_vm_entry(p, 0x500000 >> 12);
    sr_vf_vm_fault(&sr, p, VDXG_FAULT_ADDRESS, VDXG_FAULT_OPCODE_RING |
                   VDXG_RING_CMD_VIRTUAL(1), 0x500000);
    /* The PF's own RENDER engine knows nothing of it. */
    g_assert_cmphex(rd(&sr.pf, VDXG_REG_FAULT_STATUS), ==, 0);
    g_free(p);
    sr_stop(&sr);
}

void vdxg_test_add_sriov_tests(void)
{
    qtest_add_func("/vdxg/sriov/exec-virtual", test_sriov_exec_virtual);
    qtest_add_func("/vdxg/sriov/cap", test_sriov_cap);
    qtest_add_func("/vdxg/sriov/vf-registers", test_sriov_vf_registers);
    qtest_add_func("/vdxg/sriov/vf-type", test_sriov_vf_type);
    qtest_add_func("/vdxg/sriov/backing", test_sriov_backing);
    qtest_add_func("/vdxg/sriov/layout", test_sriov_layout);
    qtest_add_func("/vdxg/sriov/isolation", test_sriov_isolation);
    qtest_add_func("/vdxg/sriov/mmu", test_sriov_mmu);
    qtest_add_func("/vdxg/sriov/isolation-iommu",
                   test_sriov_isolation_iommu);
    qtest_add_func("/vdxg/sriov/isolation-viommu",
                   test_sriov_isolation_viommu);
    qtest_add_func("/vdxg/sriov/slice-time", test_sriov_slice_time);
    qtest_add_func("/vdxg/sriov/busy-pass", test_sriov_busy_pass);
    qtest_add_func("/vdxg/sriov/dma-doorbell", test_sriov_dma_doorbell);
    qtest_add_func("/vdxg/sriov/self-reset/paging", test_sriov_self_reset);
    qtest_add_func("/vdxg/sriov/self-reset/writeback",
                   test_sriov_self_reset_wb);
}
