/*
 * QTest testcases for the vdxg virtual GPU: migration
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "vdxg-test.h"

/* Migration */

/*
 * Start the destination of a migration of a machine started by
 * vdxg_start(@props), waiting on @incoming.
 */
static QTestState *mig_dest(const char *props, const char *incoming)
{
    return qtest_initf("-machine q35 -nodefaults %s "
                       "-device vdxg,addr=%02x.0%s%s -incoming %s",
                       vdxg_qemu_args(), VDXG_SLOT, props ? "," : "",
                       props ?: "", incoming);
}

/* Poll query-migrate on @qts until the status is final; return it. */
static char *mig_wait_status(QTestState *qts)
{
    char *status = NULL;
    int i;

    for (i = 0; i < 2000; i++) {
        QDict *rsp = qtest_qmp(qts, "{ 'execute': 'query-migrate' }");
        QDict *ret = qdict_get_qdict(rsp, "return");
        const char *st = ret ? qdict_get_try_str(ret, "status") : NULL;

        g_free(status);
        status = g_strdup(st ?: "none");
        qobject_unref(rsp);
        if (!strcmp(status, "completed") || !strcmp(status, "failed")) {
            break;
        }
        g_usleep(10000);
    }
    return status;
}

/*
 * Migrate @v's machine (started with @props) over a UNIX socket and go on
 * with the destination: @v then drives it. Configuration space came along,
 * so BAR addresses and the MSI-X layout stay valid.
 */
static void mig_switch(Vdxg *v, const char *props)
{
    g_autofree char *tmpdir = g_dir_make_tmp("vdxg-test-XXXXXX", NULL);
    g_autofree char *sock = g_strdup_printf("%s/migration", tmpdir);
    g_autofree char *uri = g_strdup_printf("unix:%s", sock);
    QTestState *dst = mig_dest(props, uri);
    QPCIDevice *dev;

    qtest_qmp_assert_success(v->qts, "{ 'execute': 'migrate', "
                             "'arguments': { 'uri': %s } }", uri);
    qtest_qmp_eventwait(dst, "RESUME");
    qtest_quit(v->qts);
    qpci_free_pc(v->bus);
    v->qts = dst;
    v->bus = qpci_new_pc(dst, NULL);
    dev = qpci_device_find(v->bus, VDXG_DEVFN);
    g_assert_nonnull(dev);
    /* The host-side MSI-X layout of the device, as on the source */
    dev->msix_enabled = v->dev->msix_enabled;
    dev->msix_table_bar = v->dev->msix_table_bar;
    dev->msix_table_off = v->dev->msix_table_off;
    dev->msix_pba_bar = v->dev->msix_pba_bar;
    dev->msix_pba_off = v->dev->msix_pba_off;
    g_free(v->dev);
    v->dev = dev;
    g_unlink(sock);
    g_rmdir(tmpdir);
}

/*
 * Migration in the middle of ring entries: a RENDER entry stopped in an
 * unmet WAIT, and PAGING copies of 8 MiB that take several slices each.
 * The destination finishes both.
 */
static void test_migration_mid_entry(void)
{
    Pg *p = rd_start();
    RdSurf dst;
    uint64_t fence;
    uint32_t px;
    int i;

    rd_surf(p, &dst, RD_VMEM, VDXG_FMT_ARGB8888, 4, 4, 16);
    rd_clear(p, &dst, 0);
    qtest_writeq(p->v.qts, p->vram.addr + RD_SEM, 0);
    fence = p->seqno;
    rd_queue_wait(p, RD_SEM, 9, &dst, 0x11223344);
    rd_assert_stuck(p, fence, 1000000);
    g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_STATUS)), ==,
                    VDXG_ENG_STATUS_WAITING);

    mig_switch(&p->v, PG_PROPS);

    /* Still in the WAIT: nothing done, nothing faulted */
    rd_assert_stuck(p, fence, 1000000);
    g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_STATUS)), ==,
                    VDXG_ENG_STATUS_WAITING);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==, 0);
    /* The value arrives: the entry goes on where it stopped */
    qtest_writeq(p->v.qts, p->vram.addr + RD_SEM, 9);
    for (i = 0; i < 100 && !(rd(&p->v, EREG(p, VDXG_ENG_STATUS)) &
                              VDXG_ENG_STATUS_IDLE); i++) {
        qtest_clock_step(p->v.qts, 200000);
    }
    pg_finish(p);
    g_assert_cmphex(vram_readq(p, RD_FENCE2), ==, 9);
    px = rd_dev_pixel(p, &dst, 1, 1);
    g_assert_cmphex(px, ==, 0x11223344);
    rd_stop(p);

    /*
     * PAGING: migrate in the middle of long fills and copies, enabled
     * (held 1 MiB into them: the hold is not migrated); the destination
     * finishes.
     */
    p = pg_start(NULL);
    queue_big_work(p);
    pg_hold_after(p, MiB);
    ring_kick(p);
    pg_wait_held(p);
    mig_switch(&p->v, PG_PROPS);
    pg_finish(p);
    g_assert_cmphex(vram_readl(p, 0x800000), ==, 0x08080808);
    g_assert_cmphex(vram_readl(p, 0xfffffc), ==, 0x08080808);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==, 0);
    pg_stop(p);
}

/*
 * The guest resized the VRAM BAR (REBAR) to a size smaller than the
 * default, at an address only that size aligns: the destination loads
 * configuration space with the BAR's writable bits of the incoming size
 * and maps the BAR where it was, at its size.
 */
static void test_migration_rebar(void)
{
    const char *props = "vram-size=256M";
    uint64_t bar = 0x101000000ull;      /* 16 MiB aligned, not 64 MiB */
    uint32_t flags;
    uint16_t c;
    Vdxg v;

    vdxg_start(&v, props);
    ecam_enable(v.bus);
    c = ext_cap_find(v.qts, VDXG_DEVFN, PCI_EXT_CAP_ID_REBAR);
    g_assert_cmphex(c, !=, 0);
    qpci_config_writew(v.dev, PCI_COMMAND, 0);
    ecam_writel(v.qts, VDXG_DEVFN, c + PCI_REBAR_CTRL,
                4 << PCI_REBAR_CTRL_BAR_SHIFT);
    qpci_config_writel(v.dev, PCI_BASE_ADDRESS_2, (uint32_t)bar);
    qpci_config_writel(v.dev, PCI_BASE_ADDRESS_3, bar >> 32);
    qpci_device_enable(v.dev);
    qtest_writel(v.qts, bar, 0x0badcafe);
    qtest_writel(v.qts, bar + 16 * MiB - 4, 0x600dd00d);
    wr(&v, VDXG_REG_SCRATCH, 0x5ca1ab1e);

    mig_switch(&v, props);

    g_assert_cmphex(rd(&v, VDXG_REG_SCRATCH), ==, 0x5ca1ab1e);
    g_assert_cmphex(ecam_readl(v.qts, VDXG_DEVFN, c + PCI_REBAR_CTRL) &
                    PCI_REBAR_CTRL_BAR_SIZE, ==, 4 << PCI_REBAR_CTRL_BAR_SHIFT);
    g_assert_cmphex(qpci_config_readl(v.dev, PCI_BASE_ADDRESS_2) &
                    PCI_BASE_ADDRESS_MEM_MASK, ==, (uint32_t)bar);
    g_assert_cmphex(qtest_readl(v.qts, bar), ==, 0x0badcafe);
    g_assert_cmphex(qtest_readl(v.qts, bar + 16 * MiB - 4), ==, 0x600dd00d);
    qpci_config_writew(v.dev, PCI_COMMAND, 0);
    g_assert_cmphex(bar_size(v.dev, VDXG_BAR_VRAM, &flags), ==, 16 * MiB);
    /* The guest can still resize it */
    ecam_writel(v.qts, VDXG_DEVFN, c + PCI_REBAR_CTRL,
                8 << PCI_REBAR_CTRL_BAR_SHIFT);
    g_assert_cmphex(bar_size(v.dev, VDXG_BAR_VRAM, &flags), ==, 256 * MiB);
    vdxg_stop(&v);
}

/*
 * A mode for the stream test whose registers are easy to find, with the
 * largest pixel clock (1.2 GHz, a 297 Hz refresh): the line count from a
 * t0 far in the past comes nearest to the limits of 64 bits.
 */
static const DpMode mig_mode = {
    1001, 1003, 1005, 4007, 701, 703, 705, 1007, VDXG_MODE_MAX_CLOCK_KHZ,
};

/*
 * Find CRTC 0's t0 in a migration stream in @buf: the latched mode (the
 * second copy of mig_mode's registers; the first is the pending one) is
 * right before it.
 */
static size_t mig_find_t0(const uint8_t *buf, size_t len)
{
    const uint32_t m[] = {
        mig_mode.hd, mig_mode.vd, mig_mode.ht, mig_mode.vt, mig_mode.clock,
        mig_mode.hss, mig_mode.hse, mig_mode.vss, mig_mode.vse,
    };
    uint8_t pat[sizeof(m)];
    size_t i, found = 0, n = 0;

    for (i = 0; i < ARRAY_SIZE(m); i++) {
        stl_be_p(pat + i * 4, m[i]);
    }
    for (i = 0; i + sizeof(pat) + 8 <= len; i++) {
        if (!memcmp(buf + i, pat, sizeof(pat))) {
            found = i + sizeof(pat);
            n++;
        }
    }
    g_assert_cmpuint(n, ==, 2);
    return found;
}

/*
 * Load @file into a new destination whose virtual clock is at @now: the
 * final status, and it answers. The qtest clock is not migrated (an
 * accelerator's is): the destination's is moved to the source's first.
 */
static char *mig_load_file(const char *file, int64_t now)
{
    g_autofree char *uri = g_strdup_printf("file:%s", file);
    QTestState *dst = mig_dest(PG_PROPS, "defer");
    char *status;

    if (now) {
        qtest_clock_step(dst, now);
    }

    qtest_qmp_assert_success(dst, "{ 'execute': 'migrate-incoming', "
                             "'arguments': { 'uri': %s, "
                             "'exit-on-error': false } }", uri);
    status = mig_wait_status(dst);
    /* The main loop is not held: QMP and the device still answer */
    qtest_qmp_assert_success(dst, "{ 'execute': 'query-status' }");
    qtest_quit(dst);
    return status;
}

/*
 * A stream whose CRTC t0 (the virtual time of the enable) is near INT64_MIN
 * or INT64_MAX is refused at once. Such values made post_load count ~10^15
 * scanlines, or armed the vblank timer in the past for ever.
 */
static void test_migration_bad_t0(void)
{
    static const int64_t bad[] = {
        INT64_MIN + 12345, INT64_MAX - 12345, -1,
    };
    g_autofree char *tmpdir = g_dir_make_tmp("vdxg-test-XXXXXX", NULL);
    g_autofree char *file = g_strdup_printf("%s/stream", tmpdir);
    g_autofree char *uri = g_strdup_printf("file:%s", file);
    g_autofree char *good = NULL;
    g_autofree uint8_t *buf = NULL;
    gsize len;
    size_t off;
    Dp *d = dp_start(NULL);
    int i;

    dp_enable(d, 0, &mig_mode, VDXG_CRTC_CTRL_VBLANK_IRQ);
    qtest_qmp_assert_success(d->qts, "{ 'execute': 'migrate', "
                             "'arguments': { 'uri': %s } }", uri);
    g_free(mig_wait_status(d->qts));
    g_assert_true(g_file_get_contents(file, (char **)&buf, &len, NULL));
    off = mig_find_t0(buf, len);
    g_assert_cmpint((int64_t)ldq_be_p(buf + off), ==, d->t0[0]);

    /* The stream as it is loads */
    good = mig_load_file(file, d->now);
    g_assert_cmpstr(good, ==, "completed");

    for (i = 0; i < ARRAY_SIZE(bad); i++) {
        g_autofree char *status = NULL;

        stq_be_p(buf + off, bad[i]);
        g_assert_true(g_file_set_contents(file, (char *)buf, len, NULL));
        status = mig_load_file(file, d->now);
        g_assert_cmpstr(status, ==, "failed");
    }
    dp_stop(d);
    g_unlink(file);
    g_rmdir(tmpdir);
}

/* Offsets from CRTC 0's t0 (mig_find_t0) in vdxg/crtc */
#define MIG_CRTC_EVENT_FRAME    8
#define MIG_CRTC_FLIP_PENDING   16
#define MIG_CRTC_FLIP_FRAME     17

/* A writeback target whose registers are easy to find in the stream */
#define MIG_WB_ADDR             0x0123456789abcdf0ull
#define MIG_WB_PITCH            0x7654320u

/* The offset of vdxg/writeback's arm_frame in @buf */
static size_t mig_find_wb_arm_frame(const uint8_t *buf, size_t len)
{
    uint8_t pat[16];
    size_t i, found = 0, n = 0;

    /* addr, format, pitch; then status, seqno, frame, arm_frame */
    stq_be_p(pat, MIG_WB_ADDR);
    stl_be_p(pat + 8, XR24);
    stl_be_p(pat + 12, MIG_WB_PITCH);
    for (i = 0; i + sizeof(pat) + 20 <= len; i++) {
        if (!memcmp(buf + i, pat, sizeof(pat))) {
            found = i + sizeof(pat) + 12;
            n++;
        }
    }
    g_assert_cmpuint(n, ==, 1);
    return found;
}

/*
 * The frame numbers a CRTC and the writeback wait on are checked on load
 * against the CRTC's FRAME_COUNT: a pending flip, the last vblank whose
 * events ran and an armed capture, as migrated, load; any of them ahead of
 * FRAME_COUNT fails the load. Loaded, a flip_frame near 2^64 left the flip
 * (and the guest's commit) pending for ever, an event_frame ahead of the
 * clock silenced the CRTC's vblanks and an arm_frame ahead its capture.
 */
static void test_migration_bad_frames(void)
{
    static const struct {
        size_t field;           /* 0: the writeback's arm_frame */
        uint64_t ahead;         /* added to FRAME_COUNT */
    } bad[] = {
        { MIG_CRTC_EVENT_FRAME, 1 },
        { MIG_CRTC_EVENT_FRAME, UINT64_MAX / 2 },
        { MIG_CRTC_FLIP_FRAME, 1 },
        { MIG_CRTC_FLIP_FRAME, UINT64_MAX - 100 },
        { 0, 1 },
        { 0, 1ull << 40 },
    };
    g_autofree char *tmpdir = g_dir_make_tmp("vdxg-test-XXXXXX", NULL);
    g_autofree char *file = g_strdup_printf("%s/stream", tmpdir);
    g_autofree char *uri = g_strdup_printf("file:%s", file);
    g_autofree char *good = NULL;
    g_autofree uint8_t *buf = NULL, *orig = NULL;
    gsize len;
    size_t off, wb;
    Dp *d = dp_start(NULL);
    uint32_t k;
    int i;

    /* Some vblanks run, a flip pending, a capture armed, all at frame k */
    dp_enable(d, 0, &mig_mode, VDXG_CRTC_CTRL_VBLANK_IRQ);
    dp_next_vblank(d, 0);
    dp_next_vblank(d, 0);
    k = dp_next_vblank(d, 0);
    wr(d->v, CR(0, VDXG_CRTC_FLIP), 1);
    wr64(d->v, VDXG_REG_WB_ADDR_LO, MIG_WB_ADDR);
    wr(d->v, VDXG_REG_WB_FORMAT, XR24);
    wr(d->v, VDXG_REG_WB_PITCH, MIG_WB_PITCH);
    wr(d->v, VDXG_REG_WB_CTRL, VDXG_WB_CTRL_ENABLE);
    g_assert_cmpuint(rd(d->v, CR(0, VDXG_CRTC_FRAME_COUNT)), ==, k);
    qtest_qmp_assert_success(d->qts, "{ 'execute': 'migrate', "
                             "'arguments': { 'uri': %s } }", uri);
    g_free(mig_wait_status(d->qts));
    g_assert_true(g_file_get_contents(file, (char **)&buf, &len, NULL));
    off = mig_find_t0(buf, len);
    wb = mig_find_wb_arm_frame(buf, len);
    g_assert_cmpuint(ldq_be_p(buf + off + MIG_CRTC_EVENT_FRAME), ==, k);
    g_assert_cmpuint(buf[off + MIG_CRTC_FLIP_PENDING], ==, 1);
    g_assert_cmpuint(ldq_be_p(buf + off + MIG_CRTC_FLIP_FRAME), ==, k);
    g_assert_cmpuint(ldq_be_p(buf + wb), ==, k);
    orig = g_memdup2(buf, len);

    /* The stream as it is loads */
    good = mig_load_file(file, d->now);
    g_assert_cmpstr(good, ==, "completed");

    for (i = 0; i < ARRAY_SIZE(bad); i++) {
        g_autofree char *status = NULL;
        size_t at = bad[i].field ? off + bad[i].field : wb;

        memcpy(buf, orig, len);
        stq_be_p(buf + at, k + bad[i].ahead);
        g_assert_true(g_file_set_contents(file, (char *)buf, len, NULL));
        status = mig_load_file(file, d->now);
        g_test_message("field at %zu, FRAME_COUNT + %" PRIu64 ": %s", at,
                       bad[i].ahead, status);
        g_assert_cmpstr(status, ==, "failed");
    }
    dp_stop(d);
    g_unlink(file);
    g_rmdir(tmpdir);
}

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

/* The offset of the fields of subsection @name in @buf */
static size_t mig_find_subsection(const uint8_t *buf, size_t len,
                                  const char *name)
{
    size_t n = strlen(name), i, found = 0, count = 0;
    /* vdxg/engine/render is at version 2 (the 3D pipeline) */
    uint32_t version = !strcmp(name, "vdxg/engine/render") ? 2 : 1;

    for (i = 1; i + n + 4 < len; i++) {
        if (buf[i - 1] == n && !memcmp(buf + i, name, n) &&
            ldl_be_p(buf + i + n) == version) {
            found = i + n + 4;
            count++;
        }
    }
    g_assert_cmpuint(count, ==, 1);
    return found;
}

/* Offsets in vdxg/engine/entry and vdxg/engine/render */
#define MIG_ENTRY_CMD       1
#define MIG_ENTRY_BUF_LEN   25
#define MIG_ENTRY_BUF_OFF   29
#define MIG_ENTRY_WAITING   41
#define MIG_SURF(slot)      ((slot) * 24)
#define MIG_SURF_WIDTH      12

/* Offsets in vdxg/engine/3d (vdxg/3d's fields) */
#define MIG_3D_REG(r)       ((r) * 4)
#define MIG_3D_PROG_BOUND   (VDXG_3D_NUM_REGS * 4)

/*
 * The state of an entry in progress is checked on load: a RENDER entry in
 * a WAIT with DST bound, migrated to a file, loads as it is; with a bad
 * command, a buffer offset past its end, a bound surface too large for
 * its slot, a 3D register value SET_STATE would refuse or a program bound
 * without its bytes, the load fails.
 */
static void test_migration_bad_entry(void)
{
    g_autofree char *tmpdir = g_dir_make_tmp("vdxg-test-XXXXXX", NULL);
    g_autofree char *file = g_strdup_printf("%s/stream", tmpdir);
    g_autofree char *uri = g_strdup_printf("file:%s", file);
    g_autofree uint8_t *buf = NULL;
    g_autofree uint8_t *orig = NULL;
    g_autofree char *good = NULL;
    size_t entry, render, g3d;
    uint32_t buf_len;
    uint64_t fence;
    Pg *p = rd_start();
    RdSurf dst;
    gsize len;
    int i;

    rd_surf(p, &dst, RD_VMEM, VDXG_FMT_ARGB8888, 4, 4, 16);
    qtest_writeq(p->v.qts, p->vram.addr + RD_SEM, 0);
    fence = p->seqno;
    rd_queue_wait(p, RD_SEM, 9, &dst, 0x11223344);
    rd_assert_stuck(p, fence, 1000000);
    qtest_qmp_assert_success(p->v.qts, "{ 'execute': 'migrate', "
                             "'arguments': { 'uri': %s } }", uri);
    g_free(mig_wait_status(p->v.qts));
    g_assert_true(g_file_get_contents(file, (char **)&orig, &len, NULL));
    entry = mig_find_subsection(orig, len, "vdxg/engine/entry");
    render = mig_find_subsection(orig, len, "vdxg/engine/render");
    g3d = mig_find_subsection(orig, len, "vdxg/engine/3d");
    g_assert_cmpuint(orig[entry], ==, 1);                   /* busy */
    /* A 2D entry: its 3D registers and bindings are all zero */
    for (i = 0; i < MIG_3D_PROG_BOUND + 8; i++) {
        g_assert_cmpuint(orig[g3d + i], ==, 0);
    }
    g_assert_cmpuint(orig[entry + MIG_ENTRY_WAITING], ==, 1);
    buf_len = ldl_be_p(orig + entry + MIG_ENTRY_BUF_LEN);
    g_assert_cmpuint(ldl_be_p(orig + render + MIG_SURF(VDXG_SLOT_DST) +
                              MIG_SURF_WIDTH), ==, 4);

    good = mig_load_file(file, 0);
    g_assert_cmpstr(good, ==, "completed");

    buf = g_memdup2(orig, len);
    for (i = 0; i < 5; i++) {
        g_autofree char *status = NULL;

        memcpy(buf, orig, len);
        switch (i) {
        case 0:
            stl_be_p(buf + entry + MIG_ENTRY_CMD, 0x1234);
            break;
        case 1:
            stl_be_p(buf + entry + MIG_ENTRY_BUF_OFF, buf_len + 4);
            break;
        case 2:
            stl_be_p(buf + render + MIG_SURF(VDXG_SLOT_DST) + MIG_SURF_WIDTH,
                     0x7ffffff0);
            break;
        case 3:
            stl_be_p(buf + g3d + MIG_3D_REG(VDXG_3D_BLEND),
                     VDXG_BLEND_RGB_EQ(5));
            break;
        case 4:
            stl_be_p(buf + g3d + MIG_3D_PROG_BOUND, 1);
            break;
        }
        g_assert_true(g_file_set_contents(file, (char *)buf, len, NULL));
        status = mig_load_file(file, 0);
        g_assert_cmpstr(status, ==, "failed");
    }
    rd_stop(p);
    g_unlink(file);
    g_rmdir(tmpdir);
}

/* GPU virtual memory: AS table, page tables and a page at these offsets */
#define MIG_AS_TABLE        0x200000ull
#define MIG_TBL(l)          (0x210000ull + (3 - (l)) * PG_PAGE)
#define MIG_PAGE            0x300000ull

/*
 * A PG device with address space 2 mapping virtual page 0 to MIG_PAGE,
 * residency counters for spaces 3 and 255, and a VM fault latched (a
 * write to a read-only page of space 2 at 0x1010).
 */
static Pg *mig_mmu_start(void)
{
    Pg *p = pg_start(NULL);
    uint64_t ro = MIG_PAGE | VDXG_PTE_VALID | VDXG_PTE_READ_ONLY |
                  VDXG_PTE_SEGMENT(VDXG_PTE_SEGMENT_VRAM);
    int l;

    wr64(&p->v, VDXG_REG_VM_TABLE_LO, MIG_AS_TABLE);
    wr(&p->v, VDXG_REG_VM_TABLE_ENTRIES, 3);
    wr(&p->v, VDXG_REG_VM_CTRL, VDXG_VM_CTRL_ENABLE);
    pb_reset(p);
    emit_uca(p, 2, MIG_TBL(3) | VDXG_VM_AS_VALID);
    for (l = 3; l > 0; l--) {
        uint64_t dir = MIG_TBL(l - 1) | VDXG_PTE_VALID;

        emit_upt(p, MIG_TBL(l), 0, &dir, 1);
    }
    emit_upt(p, MIG_TBL(0), 0, &ro, 1);
    emit_upt(p, MIG_TBL(0), 1, &ro, 1);
    emit_notify_res(p, 3, 0, 11);
    emit_notify_res(p, 3, VDXG_PG_RES_EVICTED, 4);
    emit_notify_res(p, 255, VDXG_PG_RES_EVICTED, 99);
    pb_run(p);
    vram_writel(p, MIG_PAGE, 0x5ca1ab1e);
    wr(&p->v, VDXG_REG_VM_RES_SELECT, 3);

    pb_reset(p);
    emit_fill_virt(p, 2, 0x1010, 4, 0);
    pb_queue(p);
    ring_kick(p);
    g_assert_cmphex(pg_wait(p) & VDXG_ENG_STATUS_HALTED, !=, 0);
    g_assert_cmpuint(rd(&p->v, VDXG_REG_FAULT_VM), ==, 2);
    g_assert_cmpuint(rd(&p->v, VDXG_REG_FAULT_ACCESS), ==, VDXG_ACCESS_WRITE);
    return p;
}

/* The MMU registers, counters and VM fault record migrate. */
static void test_migration_mmu(void)
{
    Pg *p = mig_mmu_start();

    mig_switch(&p->v, PG_PROPS);
    g_assert_cmphex(rd64(&p->v, VDXG_REG_VM_TABLE_LO), ==, MIG_AS_TABLE);
    g_assert_cmpuint(rd(&p->v, VDXG_REG_VM_TABLE_ENTRIES), ==, 3);
    g_assert_cmpuint(rd(&p->v, VDXG_REG_VM_CTRL), ==, VDXG_VM_CTRL_ENABLE);
    g_assert_cmpuint(rd(&p->v, VDXG_REG_VM_RES_SELECT), ==, 3);
    g_assert_cmpuint(rd(&p->v, VDXG_REG_VM_RES_RESIDENT), ==, 11);
    g_assert_cmpuint(rd(&p->v, VDXG_REG_VM_RES_EVICTED), ==, 4);
    wr(&p->v, VDXG_REG_VM_RES_SELECT, 255);
    g_assert_cmpuint(rd(&p->v, VDXG_REG_VM_RES_EVICTED), ==, 99);
    g_assert_cmpuint(rd(&p->v, VDXG_REG_FAULT_VM), ==, 2);
    g_assert_cmpuint(rd(&p->v, VDXG_REG_FAULT_ACCESS), ==, VDXG_ACCESS_WRITE);
    pg_expect_fault(p, VDXG_FAULT_VM_READ_ONLY,
                    VDXG_PG_HDR(VDXG_PG_FILL_VIRTUAL, VDXG_PG_FILL_V_LEN) &
                    0xffff, 0x1010, PG_CONTEXT);
    /* The address space still translates on the destination */
    pb_reset(p);
    emit_xfer_virt(p, 2, VDXG_PG_XV_DST_PHYS, 4, 0, PG_PEEK);
    pb_run(p);
    g_assert_cmphex(vram_readl(p, PG_PEEK), ==, 0x5ca1ab1e);
    pg_stop(p);
}

/* Offsets in vdxg/mmu */
#define MIG_MMU_TABLE       0
#define MIG_MMU_ENTRIES     8
#define MIG_MMU_CTRL        12
#define MIG_MMU_RES_SELECT  16
#define MIG_MMU_FAULT_VM    (20 + 2 * 4 * VDXG_VM_MAX_AS)
#define MIG_MMU_FAULT_ACC   (MIG_MMU_FAULT_VM + 4)

/*
 * The MMU's registers are checked on load: a stream loads as it is; with
 * a misaligned or too large table, an undefined VM_CTRL bit, a
 * VM_RES_SELECT, FAULT_VM or FAULT_ACCESS out of range, the load fails.
 */
static void test_migration_bad_mmu(void)
{
    static const struct {
        uint32_t off;
        uint32_t size;
        uint64_t val;
    } bad[] = {
        { MIG_MMU_TABLE, 8, MIG_AS_TABLE + 8 },
        { MIG_MMU_TABLE, 8, PG_VRAM_SIZE },
        { MIG_MMU_ENTRIES, 4, VDXG_VM_MAX_AS + 1 },
        { MIG_MMU_CTRL, 4, 2 },
        { MIG_MMU_RES_SELECT, 4, VDXG_VM_MAX_AS },
        { MIG_MMU_FAULT_VM, 4, VDXG_VM_MAX_AS },
        { MIG_MMU_FAULT_ACC, 4, 3 },
    };
    g_autofree char *tmpdir = g_dir_make_tmp("vdxg-test-XXXXXX", NULL);
    g_autofree char *file = g_strdup_printf("%s/stream", tmpdir);
    g_autofree char *uri = g_strdup_printf("file:%s", file);
    g_autofree uint8_t *buf = NULL;
    g_autofree uint8_t *orig = NULL;
    g_autofree char *good = NULL;
    Pg *p = mig_mmu_start();
    size_t mmu;
    gsize len;
    int i;

    qtest_qmp_assert_success(p->v.qts, "{ 'execute': 'migrate', "
                             "'arguments': { 'uri': %s } }", uri);
    g_free(mig_wait_status(p->v.qts));
    g_assert_true(g_file_get_contents(file, (char **)&orig, &len, NULL));
    mmu = mig_find_subsection(orig, len, "vdxg/mmu");
    g_assert_cmphex(ldq_be_p(orig + mmu + MIG_MMU_TABLE), ==, MIG_AS_TABLE);
    g_assert_cmpuint(ldl_be_p(orig + mmu + MIG_MMU_ENTRIES), ==, 3);
    g_assert_cmpuint(ldl_be_p(orig + mmu + MIG_MMU_FAULT_VM), ==, 2);
    g_assert_cmpuint(ldl_be_p(orig + mmu + MIG_MMU_FAULT_ACC), ==, 1);

    good = mig_load_file(file, 0);
    g_assert_cmpstr(good, ==, "completed");

    buf = g_memdup2(orig, len);
    for (i = 0; i < ARRAY_SIZE(bad); i++) {
        g_autofree char *status = NULL;

        memcpy(buf, orig, len);
        if (bad[i].size == 8) {
            stq_be_p(buf + mmu + bad[i].off, bad[i].val);
        } else {
            stl_be_p(buf + mmu + bad[i].off, bad[i].val);
        }
        g_assert_true(g_file_set_contents(file, (char *)buf, len, NULL));
        status = mig_load_file(file, 0);
        g_assert_cmpstr(status, ==, "failed");
    }
    pg_stop(p);
    g_unlink(file);
    g_rmdir(tmpdir);
}

/* Offsets in vdxg/engine/virt */
#define MIG_VIRT_VIRT       0
#define MIG_VIRT_AS         1
#define MIG_VIRT_STATE      5
#define MIG_VM_STATE        0x320000ull

/*
 * A RENDER device with an EXEC_VIRTUAL entry of address space 2 (virtual
 * page 0: its buffer and semaphore, page 1: DST) with a state area,
 * stopped in its WAIT.
 */
static Pg *mig_virt_start(void)
{
    Pg *p = rd_start();
    QTestState *qts = p->v.qts;
    uint64_t vram = p->vram.addr;
    int l;

    qtest_memset(qts, vram + MIG_AS_TABLE, 0, 3 * 16);
    for (l = 3; l >= 0; l--) {
        qtest_memset(qts, vram + MIG_TBL(l), 0, PG_PAGE);
        if (l) {
            qtest_writeq(qts, vram + MIG_TBL(l), MIG_TBL(l - 1) |
                         VDXG_PTE_VALID);
        }
    }
    qtest_writeq(qts, vram + MIG_AS_TABLE + 2 * 16,
                 MIG_TBL(3) | VDXG_VM_AS_VALID);
    for (l = 0; l < 2; l++) {
        qtest_writeq(qts, vram + MIG_TBL(0) + l * 8,
                     (MIG_PAGE + l * PG_PAGE) | VDXG_PTE_VALID |
                     VDXG_PTE_SEGMENT(VDXG_PTE_SEGMENT_VRAM));
    }
    wr64(&p->v, VDXG_REG_VM_TABLE_LO, MIG_AS_TABLE);
    wr(&p->v, VDXG_REG_VM_TABLE_ENTRIES, 3);
    wr(&p->v, VDXG_REG_VM_CTRL, VDXG_VM_CTRL_ENABLE);
    qtest_memset(qts, vram + MIG_VM_STATE, 0, PG_PAGE);
    vram_writel(p, MIG_VM_STATE, VDXG_CTX_STATE_MAGIC);
    vram_writel(p, MIG_VM_STATE + 4, VDXG_CTX_STATE_VERSION);
    qtest_writeq(qts, vram + MIG_PAGE + 0x800, 0);

    pb_reset(p);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_SET_SURFACE, VDXG_RD_SET_SURFACE_LEN));
    pb_dw(p, VDXG_SLOT_DST);
    pb_qw(p, PG_PAGE);
    pb_dw(p, VDXG_FMT_ARGB8888);
    pb_dw(p, 4);
    pb_dw(p, 4);
    pb_dw(p, 16);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_WAIT, VDXG_RD_WAIT_LEN));
    pb_qw(p, 0x800);
    pb_qw(p, 9);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_FILL_RECT, VDXG_RD_FILL_RECT_LEN));
    pb_dw(p, 0);
    pb_dw(p, VDXG_RD_XY(4, 4));
    pb_dw(p, 0x11223344);
    vram_write(p, MIG_PAGE, p->buf, pb_off(p));
    ring_entry(p, VDXG_RING_CMD_VIRTUAL(2), pb_off(p), 0, ++p->seqno,
               PG_CONTEXT, MIG_VM_STATE >> 12);
    ring_kick(p);
    rd_assert_stuck(p, 0, 1000000);
    return p;
}

/*
 * An EXEC_VIRTUAL entry in progress migrates with its mode, address space
 * and state area, checked on load (/vdxg/vmode/migration resumes one): a
 * stream loads as it is; without virtual mode, with another
 * address space, a state area misaligned or outside VRAM, or the entry's
 * command made an EXEC, the load fails.
 */
static void test_migration_bad_virtual(void)
{
    g_autofree char *tmpdir = g_dir_make_tmp("vdxg-test-XXXXXX", NULL);
    g_autofree char *file = g_strdup_printf("%s/stream", tmpdir);
    g_autofree char *uri = g_strdup_printf("file:%s", file);
    g_autofree uint8_t *buf = NULL;
    g_autofree uint8_t *orig = NULL;
    g_autofree char *good = NULL;
    Pg *p = mig_virt_start();
    size_t entry, virt;
    gsize len;
    int i;

    qtest_qmp_assert_success(p->v.qts, "{ 'execute': 'migrate', "
                             "'arguments': { 'uri': %s } }", uri);
    g_free(mig_wait_status(p->v.qts));
    g_assert_true(g_file_get_contents(file, (char **)&orig, &len, NULL));
    entry = mig_find_subsection(orig, len, "vdxg/engine/entry");
    virt = mig_find_subsection(orig, len, "vdxg/engine/virt");
    g_assert_cmphex(ldl_be_p(orig + entry + MIG_ENTRY_CMD), ==,
                    VDXG_RING_CMD_VIRTUAL(2));
    g_assert_cmpuint(orig[virt + MIG_VIRT_VIRT], ==, 1);
    g_assert_cmpuint(ldl_be_p(orig + virt + MIG_VIRT_AS), ==, 2);
    g_assert_cmphex(ldq_be_p(orig + virt + MIG_VIRT_STATE), ==,
                    MIG_VM_STATE);

    good = mig_load_file(file, 0);
    g_assert_cmpstr(good, ==, "completed");

    buf = g_memdup2(orig, len);
    for (i = 0; i < 6; i++) {
        g_autofree char *status = NULL;

        memcpy(buf, orig, len);
        switch (i) {
        case 0:
            buf[virt + MIG_VIRT_VIRT] = 0;
            break;
        case 1:
            stl_be_p(buf + virt + MIG_VIRT_AS, 3);
            break;
        case 2:
            stq_be_p(buf + virt + MIG_VIRT_STATE, MIG_VM_STATE + 8);
            break;
        case 3:
            stq_be_p(buf + virt + MIG_VIRT_STATE, PG_VRAM_SIZE);
            break;
        case 4:
            stl_be_p(buf + entry + MIG_ENTRY_CMD, VDXG_RING_CMD_EXEC);
            break;
        case 5:
            stl_be_p(buf + entry + MIG_ENTRY_CMD,
                     VDXG_RING_CMD_VIRTUAL(2) | 0x10000);
            break;
        }
        g_assert_true(g_file_set_contents(file, (char *)buf, len, NULL));
        status = mig_load_file(file, 0);
        g_assert_cmpstr(status, ==, "failed");
    }
    rd_stop(p);
    g_unlink(file);
    g_rmdir(tmpdir);
}

void vdxg_test_add_migration_tests(void)
{
    qtest_add_func("/vdxg/migration/bad-virtual", test_migration_bad_virtual);
    qtest_add_func("/vdxg/migration", test_migration);
    qtest_add_func("/vdxg/migration/mid-entry", test_migration_mid_entry);
    qtest_add_func("/vdxg/migration/rebar", test_migration_rebar);
    qtest_add_func("/vdxg/migration/bad-t0", test_migration_bad_t0);
    qtest_add_func("/vdxg/migration/bad-frames", test_migration_bad_frames);
    qtest_add_func("/vdxg/migration/bad-entry", test_migration_bad_entry);
    qtest_add_func("/vdxg/migration/mmu", test_migration_mmu);
    qtest_add_func("/vdxg/migration/bad-mmu", test_migration_bad_mmu);
}
