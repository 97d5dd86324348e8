/*
 * QTest testcases for the vdxg virtual GPU: the RENDER engine: ring, surfaces, FILL, COPY, BLEND, faults
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "vdxg-test.h"

/* RENDER engine */

uint32_t rd_cpp(uint32_t format)
{
    return format == VDXG_FMT_RGB565 ? 2 : 4;
}

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
void rd_xfer(Pg *p, uint64_t gpu, uint64_t len, bool to_dev,
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

uint64_t rd_span(const RdSurf *sf)
{
    return (uint64_t)sf->ref.pitch * (sf->ref.height - 1) +
           (uint64_t)sf->ref.width * rd_cpp(sf->ref.format);
}

/* Describe a surface at @gpu in one of the windows. */
void rd_surf(Pg *p, RdSurf *sf, uint64_t gpu, uint32_t format,
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
void rd_randomize(Pg *p, RdSurf *sf, GRand *rnd)
{
    uint8_t *m = sf->ref.data;
    uint64_t i, span = rd_span(sf);

    for (i = 0; i < span; i++) {
        m[i] = g_rand_int(rnd);
    }
    rd_xfer(p, sf->gpu, span, true, NULL);
}

/* Content for a surface: every stored pixel @raw, padding 0xee */
void rd_clear(Pg *p, RdSurf *sf, uint32_t raw)
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
uint32_t rd_dev_pixel(Pg *p, const RdSurf *sf, uint32_t x, uint32_t y)
{
    uint32_t cpp = rd_cpp(sf->ref.format);
    uint8_t buf[4];

    rd_xfer(p, sf->gpu + (uint64_t)y * sf->ref.pitch + x * cpp, cpp, false,
            buf);
    return cpp == 2 ? lduw_le_p(buf) : ldl_le_p(buf);
}

/* The device's surface is byte for byte the mirror (padding included). */
void rd_check(Pg *p, const RdSurf *sf, const char *what)
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
Pg *rd_start(void)
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

void rd_stop(Pg *p)
{
    g_free(p->vmem);
    g_free(p->amem);
    pg_stop(p);
}

/* DMA buffer building */

static void rd_bind(Pg *p, uint32_t slot, const RdSurf *sf)
{
    rd_set_surface(p, slot, sf->gpu, sf->ref.format, sf->ref.width,
                   sf->ref.height, sf->ref.pitch);
}

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
void rd_draw_both(Pg *p, RdSurf *dst, RdSurf *depth, RdSurf *tex,
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
    g_assert_cmpuint(qom_get_u64(p, "x-rd-nop-ops"), ==, 10);
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
    g_assert_cmpuint(qom_get_u64(p, "x-rd-fence-ops"), ==, 3);

    /* Commands run in order: the later FENCE wins. */
    pb_reset(p);
    rd_fence(p, RD_FENCE2, 1);
    rd_fence(p, RD_FENCE2, 2);
    pb_run(p);
    g_assert_cmphex(vram_readq(p, RD_FENCE2), ==, 2);

    rd_stop(p);
}

/* Queue a buffer that waits for RD_SEM >= @value, then fills and fences. */
void rd_queue_wait(Pg *p, uint64_t sem, uint64_t value,
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
void rd_assert_stuck(Pg *p, uint64_t fence, uint64_t step_ns)
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
    g_assert_cmpuint(qom_get_u64(p, "x-rd-wait-ops"), ==, 2);

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
    g_assert_cmpuint(qom_get_u64(p, "x-rd-set-surface-ops"), ==,
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
void rd_recover_check(Pg *p)
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
    g_assert_cmpuint(qom_get_u64(p, "x-rd-copy-rect-ops"), ==, 4);
    g_assert_cmpuint(qom_get_u64(p, "x-rd-blend-ops"), ==, 3);

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
/*
 * Large overlapping copies between surfaces of different pitch, whose
 * source is larger than the engine's band buffer: copied in bands, away
 * from the direction of the move, with the result of a full snapshot.
 */
static void test_rd_copy_overlap_bands(void)
{
    g_autoptr(GRand) rnd = g_rand_new_with_seed(45);
    Pg *p = rd_start();
    RdSurf a, b;
    int k;

    for (k = 0; k < 2; k++) {
        if (k == 0) {
            /* DST above SRC in memory, with a larger pitch: bottom-up */
            rd_surf(p, &a, RD_VMEM, VDXG_FMT_XRGB8888, 1500, 1500, 6000);
            rd_surf(p, &b, RD_VMEM + 10 * 6000 + 40 + 64, VDXG_FMT_XRGB8888,
                    1400, 1400, 6400);
        } else {
            /* DST below SRC, with a smaller pitch: top-down */
            rd_surf(p, &b, RD_VMEM, VDXG_FMT_XRGB8888, 1400, 1400, 5600);
            rd_surf(p, &a, RD_VMEM + 64, VDXG_FMT_XRGB8888, 1500, 1500,
                    6000);
        }
        rd_randomize(p, &a, rnd);
        pb_reset(p);
        rd_bind(p, VDXG_SLOT_SRC, &a);
        rd_bind(p, VDXG_SLOT_DST, &b);
        rd_copy(p, 10, 10, 0, 0, 1390, 1390);
        vdxg_ref_copy_rect(&b.ref, &a.ref, 10, 10, 0, 0, 1390, 1390);
        pb_run(p);
        rd_check(p, &a, k ? "overlap bands, top-down" :
                           "overlap bands, bottom-up");
        rd_check(p, &b, "overlap bands, DST");
    }
    rd_stop(p);
}

/*
 * A command is read once, when it starts: rewriting it in the buffer
 * while the engine is paused in it (here into a DRAW_TRIANGLES whose
 * triangle counter meets the copy's state, then into a larger copy) does
 * not change what it does. The copy through a snapshot must never read
 * past the snapshot. The copy is about 30 MiB of work: the engine is held
 * after 4 MiB of it, then after 8 MiB more twice, so that it is in the
 * copy at each rewrite whatever the host's speed.
 */
static void test_rd_rewrite_paused(void)
{
    g_autoptr(GRand) rnd = g_rand_new_with_seed(46);
    Pg *p = rd_start();
    RdSurf a, b;
    RdVtx v[12];
    g_autofree uint32_t *dw = g_new(uint32_t, 12 * 8);
    uint32_t off, draw[VDXG_RD_DRAW_TRIANGLES_LEN];
    uint32_t copy[VDXG_RD_COPY_RECT_LEN];
    uint64_t cmd;

    rd_surf(p, &a, RD_VMEM, VDXG_FMT_XRGB8888, 2000, 2000, 8000);
    rd_surf(p, &b, RD_VMEM + 8000 * 3 + 64, VDXG_FMT_RGB565, 1990, 1990,
            4000);
    rd_randomize(p, &a, rnd);
    /* Two empty triangles, then two covering DST */
    memset(v, 0, sizeof(v));
    rd_quad(v + 6, 0, 0, PX(1990), PX(1990), 0, 0, 0, 0, 0, 0xff808080);
    rd_put_vertices(p, RD_VB, v, 12, dw);

    pb_reset(p);
    rd_bind(p, VDXG_SLOT_SRC, &a);
    rd_bind(p, VDXG_SLOT_DST, &b);
    off = pb_off(p);
    rd_copy(p, 10, 20, 0, 0, 1400, 1400);
    rd_nop(p);                  /* room for the longer DRAW_TRIANGLES */
    pb_queue(p);
    cmd = p->buf_gpu + off;
    vdxg_ref_copy_rect(&b.ref, &a.ref, 10, 20, 0, 0, 1400, 1400);

    pg_hold_after(p, 4 * MiB);
    ring_kick(p);
    pg_wait_held(p);
    wr(&p->v, EREG(p, VDXG_ENG_CTRL), 0);

    /* Into a draw of 12 vertices, then into a copy of almost everything */
    draw[0] = VDXG_PG_HDR(VDXG_RD_DRAW_TRIANGLES, VDXG_RD_DRAW_TRIANGLES_LEN);
    draw[1] = 0;
    draw[2] = 12;
    draw[3] = RD_VB;
    draw[4] = RD_VB >> 32;
    copy[0] = VDXG_PG_HDR(VDXG_RD_COPY_RECT, VDXG_RD_COPY_RECT_LEN);
    copy[1] = VDXG_RD_XY(0, 0);
    copy[2] = VDXG_RD_XY(0, 0);
    copy[3] = VDXG_RD_XY(1990, 1990);
    vram_write(p, cmd, draw, sizeof(draw));
    pg_hold_after(p, 8 * MiB);
    wr(&p->v, EREG(p, VDXG_ENG_CTRL), VDXG_ENG_CTRL_ENABLE);
    pg_wait_held(p);
    wr(&p->v, EREG(p, VDXG_ENG_CTRL), 0);
    qtest_clock_step(p->v.qts, 1000000);
    vram_write(p, cmd, copy, sizeof(copy));
    pg_hold_after(p, 8 * MiB);
    wr(&p->v, EREG(p, VDXG_ENG_CTRL), VDXG_ENG_CTRL_ENABLE);
    pg_wait_held(p);
    wr(&p->v, EREG(p, VDXG_ENG_CTRL), 0);
    qtest_clock_step(p->v.qts, 1000000);
    /* The NOP after the copy, which the draw overwrote, is read later. */
    vram_writel(p, cmd + 16, VDXG_PG_HDR(VDXG_RD_NOP, VDXG_RD_NOP_LEN));
    pg_hold_after(p, 0);
    wr(&p->v, EREG(p, VDXG_ENG_CTRL), VDXG_ENG_CTRL_ENABLE);
    pg_finish(p);
    /* What was queued, and nothing else */
    rd_check(p, &b, "rewritten while paused");
    rd_stop(p);
}

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
    runs = qom_get_u64(p, "x-rd-bh-runs");
    pixels = qom_get_u64(p, "x-rd-pixels");
    pb_reset(p);
    rd_bind(p, VDXG_SLOT_DST, &dst);
    rd_fill(p, 0, 0, 2048, 1536, 0x00c0ffee);
    pb_run(p);
    vdxg_ref_fill_rect(&dst.ref, 0, 0, 2048, 1536, 0x00c0ffee);
    g_assert_cmpuint(qom_get_u64(p, "x-rd-bh-runs") - runs, >=, 4);
    g_assert_cmpuint(qom_get_u64(p, "x-rd-pixels") - pixels, ==,
                     2048 * 1536);
    g_assert_cmphex(vram_readl(p, RD_VMEM + 8192 * 1535 + 8188), ==,
                    0xffc0ffee);

    runs = qom_get_u64(p, "x-rd-bh-runs");
    rd_quad(v, -PX(3), PX(1), PX(2050), PX(1536) - 1, 0, 0, 64 << 16,
            64 << 16, 0, 0xfff0e0d0);
    v[1].color = 0x80102030;
    rd_draw_both(p, &dst, NULL, &tex, VDXG_DRAW_TEXTURE | VDXG_DRAW_BILINEAR,
                 v, 6);
    g_assert_cmpuint(qom_get_u64(p, "x-rd-bh-runs") - runs, >=, 10);
    rd_check(p, &dst, "large draw");
    rd_stop(p);
}

/*
 * Queue a buffer with an overlapping copy through a snapshot (about four
 * runs of the bottom half), then a large textured draw (about ten), a WAIT
 * for RD_SEM >= 1 and a FILL_RECT; do the same on the mirror, except the
 * FILL_RECT, left to rd_big_finish.
 */
/*
 * Work into that buffer where its copy has read all of its snapshot (8
 * bytes of budget a pixel, 1000x1000 pixels) and written about half of
 * it: an engine held there (pg_hold_after) is in the middle of the copy.
 */
#define RD_BIG_HOLD         (12 * MiB)

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
    /* Held in the copy, paused there, let go: ENABLE keeps it there. */
    pg_hold_after(p, RD_BIG_HOLD);
    ring_kick(p);
    pg_wait_held(p);
    wr(&p->v, EREG(p, VDXG_ENG_CTRL), 0);
    pg_hold_after(p, 0);
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
    uint32_t last, filled;
    int i, k;

    for (k = 0; k < 3; k++) {
        rd_big_queue(p, &d);
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
        /*
         * Nothing more happens, even when the WAIT could end. (How far
         * the engine got before the reset depends on how fast it is.)
         */
        last = rd_dev_pixel(p, &d, 1023, 1023);
        filled = rd_dev_pixel(p, &d, 150, 210);
        qtest_writeq(p->v.qts, p->vram.addr + RD_SEM, 1);
        for (i = 0; i < 10; i++) {
            qtest_clock_step(p->v.qts, 1000000);
            g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_STATUS)), ==,
                            VDXG_ENG_STATUS_IDLE);
        }
        g_assert_cmphex(rd_dev_pixel(p, &d, 1023, 1023), ==, last);
        g_assert_cmphex(rd_dev_pixel(p, &d, 150, 210), ==, filled);
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
Pg *rd_migrate(Pg *src, const char *tmpdir)
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
    /*
     * Something done before, and the big buffer paused in its copy, its
     * snapshot read and half written (held there; the hold is not
     * migrated)
     */
    pb_reset(p);
    rd_nop(p);
    pb_run(p);
    rd_big_queue(p, &d);
    pg_hold_after(p, RD_BIG_HOLD);
    ring_kick(p);
    pg_wait_held(p);
    wr(&p->v, EREG(p, VDXG_ENG_CTRL), 0);
    pg_hold_after(p, 0);
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
    rd_here(p, VDXG_RD_NUM_OPS_3D);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_NUM_OPS_3D, 1));
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

static void build_rd_format_14(Pg *p)
{
    rd_bad_surface(p, VDXG_SLOT_SRC, RD_VMEM, VDXG_NUM_FMTS_3D, 1, 1, 4);
}

/* A texture-only format is not a surface format. */
static void build_rd_format_l8(Pg *p)
{
    rd_bad_surface(p, VDXG_SLOT_DST, RD_VMEM, VDXG_FMT_L8, 1, 1, 4);
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
    { "format-14", build_rd_format_14, VDXG_FAULT_PARAM },
    { "format-l8", build_rd_format_l8, VDXG_FAULT_PARAM },
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

void vdxg_test_add_render_tests(void)
{
    int i;

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
    qtest_add_func("/vdxg/render/large", test_rd_large);
    qtest_add_func("/vdxg/render/copy/overlap-bands",
                   test_rd_copy_overlap_bands);
    qtest_add_func("/vdxg/render/rewrite-paused", test_rd_rewrite_paused);
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
}
