/*
 * QTest testcases for the vdxg virtual GPU: what the units' tests share
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef VDXG_TEST_H
#define VDXG_TEST_H

#include <glib/gstdio.h>
#include "qemu/bitops.h"
#include "qemu/host-utils.h"
#include "qemu/units.h"
#include "qobject/qdict.h"
#include "libqos/vdxg.h"
/*
 * The reference renderer (libvdxg/vdxg_ref.c, linked in), an independent
 * implementation of the RENDER engine's arithmetic: the render tests
 * compare the device's pixels with its pixels.
 */
#include "vdxg_ref.h"
#include "vdxg_ref_plane.h"

/* Each unit's file registers its tests. */
void vdxg_test_add_pci_tests(void);
void vdxg_test_add_core_tests(void);
void vdxg_test_add_migration_tests(void);
void vdxg_test_add_paging_tests(void);
void vdxg_test_add_mem_tests(void);
void vdxg_test_add_ring_tests(void);
void vdxg_test_add_render_tests(void);
void vdxg_test_add_raster_tests(void);
void vdxg_test_add_display_tests(void);
void vdxg_test_add_compose_tests(void);
void vdxg_test_add_color_tests(void);
void vdxg_test_add_wb_tests(void);
void vdxg_test_add_sriov_tests(void);
void vdxg_test_add_mmu_tests(void);
void vdxg_test_add_vmode_tests(void);
void vdxg_test_add_3d_tests(void);
void vdxg_test_add_3d_diff_tests(void);

typedef struct PgFaultCase {
    const char *name;
    /* Queue the faulting work and set p->want_*; NULL: a kick faults. */
    void (*build)(Pg *p);
    uint32_t reason;
} PgFaultCase;

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

/* A surface: where the device has it, and the reference's mirror of it */
typedef struct RdSurf {
    uint64_t gpu;
    struct vdxg_ref_surface ref;
} RdSurf;

/* Vertices, eight dwords each */
typedef struct RdVtx {
    int32_t x, y;
    uint32_t z, color;
    int32_t u, v;
} RdVtx;

static const uint32_t rd_colour_fmts[] = {
    VDXG_FMT_XRGB8888, VDXG_FMT_ARGB8888, VDXG_FMT_RGB565,
};

#define PX(n)               ((n) * 16)      /* pixels to 28.4 */

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
/* The largest frame: 4096x4096 at about 60 Hz */
static const DpMode dp_4096 = {
    4096, 4100, 4104, 4112, 4096, 4097, 4098, 4100, 1011552,
};

/*
 * The longest run of device work in the main loop a test accepts, in
 * CPU time (x-max-slice-cpu-ns): the device yields after about 1 ms,
 * this is generous for a loaded 2-core machine.
 */
#define DP_SLICE_MAX_NS     (5 * 1000 * 1000)

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
    uint32_t dw, dh;            /* DST_SIZE; 0 x 0: unscaled */
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

/* pci-tests.c */
void assert_refuses(const char *props, const char *msg);

/* paging-tests.c */
void pg_expect_fault(Pg *p, uint32_t reason, uint32_t opcode,
                     uint64_t addr, uint32_t context);
void queue_big_work(Pg *p);
void fault_at_entry(Pg *p, uint32_t cmd, uint32_t len, uint64_t addr,
                    uint32_t rsvd);
uint64_t fuzz_value(Pg *p, bool bus);

/* render-tests.c */
uint32_t rd_cpp(uint32_t format);
void rd_xfer(Pg *p, uint64_t gpu, uint64_t len, bool to_dev,
             uint8_t *buf);
uint64_t rd_span(const RdSurf *sf);
void rd_surf(Pg *p, RdSurf *sf, uint64_t gpu, uint32_t format,
             uint32_t width, uint32_t height, uint32_t pitch);
void rd_randomize(Pg *p, RdSurf *sf, GRand *rnd);
void rd_clear(Pg *p, RdSurf *sf, uint32_t raw);
uint32_t rd_dev_pixel(Pg *p, const RdSurf *sf, uint32_t x, uint32_t y);
void rd_check(Pg *p, const RdSurf *sf, const char *what);
Pg *rd_start(void);
void rd_stop(Pg *p);
void rd_draw_both(Pg *p, RdSurf *dst, RdSurf *depth, RdSurf *tex,
                  uint32_t flags, const RdVtx *v, uint32_t n);
void rd_queue_wait(Pg *p, uint64_t sem, uint64_t value,
                   const RdSurf *dst, uint32_t color);
void rd_assert_stuck(Pg *p, uint64_t fence, uint64_t step_ns);
void rd_recover_check(Pg *p);
Pg *rd_migrate(Pg *src, const char *tmpdir);

/* raster-tests.c */
void rd_quad(RdVtx *v, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
             int32_t u0, int32_t v0, int32_t u1, int32_t v1,
             uint32_t z, uint32_t color);
RdVtx rd_random_vertex(GRand *rnd, const RdSurf *dst, bool huge);

/* display-tests.c */
Dp *dp_start(const char *extra);
void dp_stop(Dp *d);
void dp_enable(Dp *d, int c, const DpMode *m, uint32_t ctrl);
uint32_t dp_next_vblank(Dp *d, int c);
void dp_plane(Dp *d, int c, int p, const DpPlane *pl);
void dp_step(Dp *d, int64_t ns);
uint32_t dp_flip(Dp *d, int c);
void dp_put(Dp *d, DpPlane *pl, const uint8_t *data);
DpPlane dp_rand_plane(Dp *d, uint64_t addr, uint32_t fmt, uint32_t w,
                      uint32_t h, int x, int y, uint32_t seed);
DpPlane dp_solid_plane(Dp *d, uint64_t addr, uint32_t fmt,
                       uint32_t argb, uint32_t w, uint32_t h, int x,
                       int y);
void ref_compose(const DpMode *m, uint32_t bg, const DpPlane *planes,
                 int n, uint32_t *out);
uint32_t ref_crc32(uint32_t crc, const uint8_t *buf, size_t len);
uint32_t ref_frame_crc(const uint32_t *frame, size_t pixels);
void dp_wb_run(Dp *d, int c, uint32_t fmt, uint64_t addr,
               uint32_t pitch);
void dp_capture(Dp *d, int c, uint32_t *out);
void dp_check_frame(Dp *d, int c, uint32_t bg, const DpPlane *planes,
                    int n);
void dp_assert_fault(Dp *d, int c, uint32_t unit, uint32_t reason,
                     uint64_t addr);
void dp_assert_no_fault(Dp *d);
uint64_t dp_qom_u64(Dp *d, const char *prop);
bool dp_qom_get_bool(Dp *d, const char *prop);
void dp_check_screendump(Dp *d, const char *device, int head,
                         const uint32_t *want, int w, int h);

/* color-tests.c */
typedef struct DpColor {
    uint32_t ctrl;
    uint16_t lut[2][VDXG_LUT_SIZE][3];  /* degamma, gamma; r, g, b */
    int32_t ctm[9];
} DpColor;

void dp_color(Dp *d, int c, const DpColor *col);
void dp_color_identity(DpColor *col);
void dp_color_random(DpColor *col, GRand *rnd);
void ref_color_frame(const DpColor *col, uint32_t *frame, size_t n);

/* compose-tests.c */
void dp_qom_reset_max_slice(Dp *d);
DpPlane dp_cursor_plane(Dp *d, uint64_t addr, uint32_t size, int x,
                        int y, uint32_t blend, uint32_t seed);

#endif
