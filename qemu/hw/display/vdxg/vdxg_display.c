/*
 * vdxg: the display engine: CRTC timing, vblank, flips and cursor,
 * display registers, consoles, connectors with EDID and hotplug
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "qemu/cutils.h"
#include "qemu/error-report.h"
#include "qemu/host-utils.h"
#include "qemu/log.h"
#include "qemu/madvise.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "hw/display/edid.h"
#include "migration/vmstate.h"
#include "ui/console.h"
#include "vdxg_int.h"
#include "hw/display/trace.h"

/* Display engine */

VdxgCrtc *vdxg_crtc(VdxgState *s, unsigned int index)
{
    return &s->crtc[index];
}

bool vdxg_crtc_active(const VdxgCrtc *c)
{
    return c->ctrl & VDXG_CRTC_CTRL_ENABLE;
}

/*
 * Why the mode registers @m cannot be scanned out, or NULL when they can.
 * The frame period is floor(HTOTAL * VTOTAL * 10^6 / CLOCK_KHZ) ns.
 */
static const char *vdxg_mode_check(const uint32_t *m)
{
    uint64_t frame_ns;

    if (!m[VDXG_M_HDISPLAY] || m[VDXG_M_HDISPLAY] > VDXG_MODE_MAX_DISPLAY ||
        !m[VDXG_M_VDISPLAY] || m[VDXG_M_VDISPLAY] > VDXG_MODE_MAX_DISPLAY) {
        return "display size";
    }
    if (m[VDXG_M_HSYNC_START] < m[VDXG_M_HDISPLAY] ||
        m[VDXG_M_HSYNC_END] < m[VDXG_M_HSYNC_START] ||
        m[VDXG_M_HTOTAL] < m[VDXG_M_HSYNC_END] ||
        m[VDXG_M_HTOTAL] > VDXG_MODE_MAX_TOTAL) {
        return "horizontal timing";
    }
    if (m[VDXG_M_VSYNC_START] < m[VDXG_M_VDISPLAY] ||
        m[VDXG_M_VSYNC_END] < m[VDXG_M_VSYNC_START] ||
        m[VDXG_M_VTOTAL] < m[VDXG_M_VSYNC_END] ||
        m[VDXG_M_VTOTAL] > VDXG_MODE_MAX_TOTAL) {
        return "vertical timing";
    }
    if (!m[VDXG_M_CLOCK] || m[VDXG_M_CLOCK] > VDXG_MODE_MAX_CLOCK_KHZ) {
        return "pixel clock";
    }
    frame_ns = muldiv64((uint64_t)m[VDXG_M_HTOTAL] * m[VDXG_M_VTOTAL],
                        1000000, m[VDXG_M_CLOCK]);
    if (frame_ns < VDXG_MODE_MIN_FRAME_NS ||
        frame_ns > VDXG_MODE_MAX_FRAME_NS) {
        return "refresh rate";
    }
    return NULL;
}

/* The VRR stretch of mode @m, @vrr_max lines: why not, or NULL */
static const char *vdxg_vrr_check(const uint32_t *m, uint32_t vrr_max)
{
    if (vrr_max > VDXG_MODE_MAX_VRR_TOTAL ||
        muldiv64((uint64_t)m[VDXG_M_HTOTAL] * vrr_max, 1000000,
                 m[VDXG_M_CLOCK]) > VDXG_MODE_MAX_FRAME_NS) {
        return "vrr range";
    }
    return NULL;
}

/*
 * Timing, all derived from the virtual clock and the latched mode: lines
 * are counted from t0, the start of the frame of vblank fbase + 1 (the
 * enable, or the last VRR rebase). A frame is vdxg_vtotal() lines.
 */

/* Is variable refresh on: CTRL.VRR with a stretch to allow? */
static bool vdxg_vrr_on(const VdxgCrtc *c)
{
    return (c->ctrl & VDXG_CRTC_CTRL_VRR) &&
           c->avrr_max > c->amode[VDXG_M_VTOTAL];
}

/* Lines per frame: VRR_VTOTAL_MAX while the vblank may stretch */
static uint64_t vdxg_vtotal(const VdxgCrtc *c)
{
    return vdxg_vrr_on(c) ? c->avrr_max : c->amode[VDXG_M_VTOTAL];
}

/* ns from the enable to the start of line @line (counted over frames) */
static uint64_t vdxg_line_ns(const VdxgCrtc *c, uint64_t line)
{
    return muldiv64(line * c->amode[VDXG_M_HTOTAL], 1000000,
                    c->amode[VDXG_M_CLOCK]);
}

/* The line (counted over frames) being scanned at virtual time @now */
static uint64_t vdxg_line_at(const VdxgCrtc *c, int64_t now)
{
    uint64_t dt, line;

    if (now <= c->t0) {
        return 0;
    }
    dt = now - c->t0;
    line = muldiv64(dt, c->amode[VDXG_M_CLOCK], 1000000) /
           c->amode[VDXG_M_HTOTAL];
    /* The division above may be one line off; line starts are the rule. */
    while (vdxg_line_ns(c, line + 1) <= dt) {
        line++;
    }
    while (line && vdxg_line_ns(c, line) > dt) {
        line--;
    }
    return line;
}

/* Vblanks since the enable up to virtual time @now */
static uint64_t vdxg_frames_at(const VdxgCrtc *c, int64_t now)
{
    uint64_t line = vdxg_line_at(c, now);

    if (line < c->amode[VDXG_M_VDISPLAY]) {
        return c->fbase;
    }
    return c->fbase + (line - c->amode[VDXG_M_VDISPLAY]) / vdxg_vtotal(c) + 1;
}

/* Virtual time of vblank @k (k > fbase) */
static int64_t vdxg_vblank_time(const VdxgCrtc *c, uint64_t k)
{
    return c->t0 + vdxg_line_ns(c, (k - c->fbase - 1) * vdxg_vtotal(c) +
                                   c->amode[VDXG_M_VDISPLAY]);
}

/*
 * VRR: the earliest end of vblank @k (k > fbase), VTOTAL lines after the
 * start of its frame; a FLIP pending then, or written later, ends it.
 */
static int64_t vdxg_vrr_min_time(const VdxgCrtc *c, uint64_t k)
{
    return c->t0 + vdxg_line_ns(c, (k - c->fbase - 1) * vdxg_vtotal(c) +
                                   c->amode[VDXG_M_VDISPLAY] +
                                   c->amode[VDXG_M_VTOTAL]);
}

/* Count lines from a frame whose vblank @k starts at virtual time @when */
static void vdxg_crtc_rebase(VdxgCrtc *c, int64_t when, uint64_t k)
{
    c->t0 = when - vdxg_line_ns(c, c->amode[VDXG_M_VDISPLAY]);
    c->fbase = k - 1;
}

static int64_t vdxg_now(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

/*
 * Migration: can the timing of active @c be computed at virtual time @now
 * and up to its next vblank without overflow? Besides a valid mode this
 * bounds t0: the line count since the enable, its time in ns and the time
 * of the next vblank all fit their types, so that vdxg_line_at() steps at
 * most a line and the vblank timer is never armed in the past.
 */
static bool vdxg_crtc_time_ok(const VdxgCrtc *c, int64_t now)
{
    uint32_t clock = c->amode[VDXG_M_CLOCK];
    uint32_t htotal = c->amode[VDXG_M_HTOTAL];
    uint64_t dt, lo, hi, line, ns;
    int64_t next;

    if (c->t0 < 0) {
        return false;
    }
    dt = now > c->t0 ? now - c->t0 : 0;
    mulu64(&lo, &hi, dt, clock);
    if (hi >= 1000000) {
        return false;
    }
    line = muldiv64(dt, clock, 1000000) / htotal;
    /* Two frames on: the next vblank and the loop's look-ahead */
    if (c->fbase > INT64_MAX ||
        __builtin_add_overflow(line, 2 * vdxg_vtotal(c) + 2, &line) ||
        __builtin_mul_overflow(line, (uint64_t)htotal, &line)) {
        return false;
    }
    mulu64(&lo, &hi, line, 1000000);
    if (hi >= clock) {
        return false;
    }
    ns = muldiv64(line, 1000000, clock);
    return ns <= INT64_MAX && !__builtin_add_overflow(c->t0, (int64_t)ns,
                                                      &next);
}

/* FRAME_COUNT as a 64-bit number */
uint64_t vdxg_crtc_frames(const VdxgCrtc *c)
{
    return vdxg_crtc_active(c) ? vdxg_frames_at(c, vdxg_now()) : c->frame_off;
}

static int64_t vdxg_crtc_vblank_ns(const VdxgCrtc *c)
{
    uint64_t k;

    if (!vdxg_crtc_active(c)) {
        return c->vblank_ns_off;
    }
    k = vdxg_frames_at(c, vdxg_now());
    return k > c->fbase ? vdxg_vblank_time(c, k) : c->t0;
}

static uint32_t vdxg_crtc_scanline(const VdxgCrtc *c)
{
    if (!vdxg_crtc_active(c)) {
        return 0;
    }
    return vdxg_line_at(c, vdxg_now()) % vdxg_vtotal(c);
}

static uint32_t vdxg_crtc_status(const VdxgCrtc *c)
{
    uint32_t status = 0;

    if (vdxg_crtc_active(c)) {
        status |= VDXG_CRTC_STATUS_ACTIVE;
        if (vdxg_crtc_scanline(c) >= c->amode[VDXG_M_VDISPLAY]) {
            status |= VDXG_CRTC_STATUS_VBLANK;
        }
    }
    if (c->mode_invalid) {
        status |= VDXG_CRTC_STATUS_MODE_INVALID;
    }
    if (c->flip_pending) {
        status |= VDXG_CRTC_STATUS_FLIP_PENDING;
    }
    return status;
}

/*
 * The vblank timer runs only while a vblank has work: an interrupt, a
 * flip, a CRC or a writeback capture. Everything else is derived from
 * the clock when it is read.
 */
void vdxg_crtc_arm(VdxgState *s, VdxgCrtc *c)
{
    uint64_t k;
    int64_t next;
    bool needed = vdxg_crtc_active(c) &&
                  ((c->ctrl & (VDXG_CRTC_CTRL_VBLANK_IRQ |
                               VDXG_CRTC_CTRL_CRC)) ||
                   c->flip_pending ||
                   (vdxg_wb_busy(s) && vdxg_wb_crtc(s) == c->index));

    if (needed) {
        k = vdxg_frames_at(c, vdxg_now());
        next = vdxg_vblank_time(c, k + 1);
        if (vdxg_vrr_on(c) && c->flip_pending && k > c->fbase) {
            /* The flip ends the stretch as soon as the frame may end */
            next = MIN(next, vdxg_vrr_min_time(c, k));
        }
        timer_mod_ns(c->timer, next);
    } else {
        timer_del(c->timer);
    }
}

/* Faults */

void vdxg_display_fault(VdxgState *s, VdxgCrtc *c, unsigned int unit,
                        uint32_t reason, uint64_t addr)
{
    trace_vdxg_display_fault(c->index, unit, reason, addr);
    vdxg_fault(&s->core, VDXG_FAULT_ENGINE_DISPLAY, reason,
               VDXG_FAULT_OPCODE_DISPLAY(c->index, unit), addr,
               vdxg_crtc_frames(c));
}

/*
 * The frame of @c, of @w x @h pixels, black. Its pages come in when the
 * first composition writes them, a row at a time in the compose bottom
 * half's slices, so they are small pages: the first write to a 2 MiB
 * transparent huge page allocates and clears all of it in one fault,
 * which takes milliseconds on a loaded or freshly booted host and would
 * hold the main loop past any slice's end.
 */
static void vdxg_frame_alloc(VdxgCrtc *c, uint32_t w, uint32_t h)
{
    size_t size = (size_t)w * h * 4;

    c->frame = qemu_anon_ram_alloc(size, NULL, false, false);
    if (!c->frame) {
        error_report("vdxg: cannot allocate a frame of %zu bytes", size);
        abort();
    }
    qemu_madvise(c->frame, size, QEMU_MADV_NOHUGEPAGE);
    c->fw = w;
    c->fh = h;
}

static void vdxg_frame_free(VdxgCrtc *c)
{
    if (c->frame) {
        qemu_anon_ram_free(c->frame, (size_t)c->fw * c->fh * 4);
        c->frame = NULL;
    }
}

/* Resize the frame of @c (black); the console follows on its update. */
static void vdxg_crtc_set_frame(VdxgCrtc *c, uint32_t w, uint32_t h)
{
    if (!c->frame || c->fw != w || c->fh != h) {
        if (c->con) {
            /* The console shows the frame: not after it is freed */
            dpy_gfx_replace_surface(c->con, NULL);
        }
        vdxg_frame_free(c);
        vdxg_frame_alloc(c, w, h);
    } else {
        memset(c->frame, 0, (size_t)w * h * 4);
    }
    c->stale = true;
    c->crc_valid = false;
    c->con_dirty = true;
    c->rows_invalid = true;
    c->crc_pending = false;
    c->con_y0 = c->con_y1 = 0;          /* all of it */
}

/* Vblank */

/* The events of vblank @frame of active CRTC @c */
static void vdxg_crtc_vblank(VdxgState *s, VdxgCrtc *c, uint64_t frame)
{
    uint32_t irq = 0;

    c->event_frame = frame;
    if (c->flip_pending && frame > c->flip_frame) {
        c->flip_pending = false;
        vdxg_crtc_latch_all(s, c, c->flip_damage);
        irq |= VDXG_INT_FLIP_DONE(c->index);
    }
    if (vdxg_wb_busy(s) && vdxg_wb_crtc(s) == c->index &&
        frame > s->wb.arm_frame) {
        /* The capture's DMA runs in the guarded bottom half, next. */
        qemu_bh_schedule(s->wb_bh);
    }
    if (c->ctrl & VDXG_CRTC_CTRL_CRC) {
        if (vdxg_crtc_refresh_sliced(s, c)) {
            c->crc = vdxg_crtc_crc(s, c);
            c->crc_frame = frame;
            c->crc_first = MIN(c->state_frame, frame);
            c->crc_pending = false;
        } else {
            /* A large frame: CRC and CRC_FRAME follow when it is done */
            c->crc_pending = true;
            c->crc_pending_frame = frame;
        }
    }
    if (c->ctrl & VDXG_CRTC_CTRL_VBLANK_IRQ) {
        irq |= VDXG_INT_VBLANK(c->index);
    }
    trace_vdxg_vblank(c->index, frame, irq, c->crc);
    if (irq) {
        vdxg_irq_raise(&s->core, irq);
    }
}

/*
 * A FLIP written with FLIP_DAMAGE adds the rows of DAMAGE to those the
 * pending flip changes; one without it changes them all.
 */
static void vdxg_flip_damage(VdxgCrtc *c, uint32_t val)
{
    if (!(val & VDXG_CRTC_FLIP_DAMAGE)) {
        c->flip_damage = false;
        return;
    }
    vdxg_rows_add(&c->flip_y0, &c->flip_y1, extract32(c->damage, 0, 16),
                  extract32(c->damage, 16, 16));
}

/*
 * VRR: a FLIP pending when the frame may end, at vdxg_vrr_min_time(),
 * ends the stretch there: the next vblank starts then.
 */
static bool vdxg_vrr_catch_up(VdxgCrtc *c, int64_t now)
{
    uint64_t k;
    int64_t end;

    if (!vdxg_vrr_on(c) || !c->flip_pending) {
        return false;
    }
    k = vdxg_frames_at(c, now);
    if (k <= c->fbase) {
        return false;
    }
    end = vdxg_vrr_min_time(c, k);
    if (now < end) {
        return false;
    }
    vdxg_crtc_rebase(c, end, k + 1);
    return true;
}

/*
 * The vblank timer. Its DMA (writeback, planes in the aperture) runs
 * under the device's reentrancy guard, as in a guarded bottom half: a DMA
 * that reaches the device's own registers is refused, not run reentrantly.
 * The dirty log of VRAM, which a CRC and a writeback capture need, is
 * looked at before, unguarded: that may release the BQL and let the vCPUs
 * access the registers (see vdxg_display_harvest()), the CRTC included.
 */
static void vdxg_crtc_timer(void *opaque)
{
    VdxgCrtc *c = opaque;
    VdxgState *s = c->s;
    MemReentrancyGuard *guard = &DEVICE(s)->mem_reentrancy_guard;
    bool engaged;
    uint64_t frame;

    if (!vdxg_crtc_active(c)) {
        return;
    }
    if ((c->ctrl & VDXG_CRTC_CTRL_CRC) ||
        (vdxg_wb_busy(s) && vdxg_wb_crtc(s) == c->index)) {
        vdxg_display_harvest(s);
        if (!vdxg_crtc_active(c)) {
            return;
        }
    }
    engaged = guard->engaged_in_io;
    guard->engaged_in_io = true;
    vdxg_vrr_catch_up(c, vdxg_now());
    frame = vdxg_frames_at(c, vdxg_now());
    if (frame > c->event_frame) {
        vdxg_crtc_vblank(s, c, frame);
    }
    vdxg_crtc_arm(s, c);
    guard->engaged_in_io = engaged;
}

/* Enable and disable */

static bool vdxg_crtc_enable(VdxgState *s, VdxgCrtc *c)
{
    const char *why = vdxg_mode_check(c->mode) ?:
                      vdxg_vrr_check(c->mode, c->vrr_max);

    if (why) {
        trace_vdxg_crtc_mode_invalid(c->index, why);
        qemu_log_mask(LOG_GUEST_ERROR, "vdxg: CRTC %u: bad mode (%s)\n",
                      c->index, why);
        c->mode_invalid = true;
        vdxg_display_fault(s, c, VDXG_DISP_UNIT_MODE, VDXG_FAULT_PARAM, 0);
        return false;
    }
    memcpy(c->amode, c->mode, sizeof(c->amode));
    c->avrr_max = c->vrr_max;
    c->fbase = 0;
    c->mode_invalid = false;
    if (s->connected[c->index]) {
        /* The link is trained again */
        c->link_bad = false;
    }
    c->t0 = vdxg_now();
    c->event_frame = 0;
    c->flip_pending = false;
    c->crc = 0;
    c->crc_frame = 0;
    c->crc_first = 0;
    c->ctrl |= VDXG_CRTC_CTRL_ENABLE;
    vdxg_crtc_set_frame(c, c->amode[VDXG_M_HDISPLAY],
                        c->amode[VDXG_M_VDISPLAY]);
    vdxg_crtc_latch_all(s, c, false);
    trace_vdxg_crtc_enable(c->index, c->amode[VDXG_M_HDISPLAY],
                           c->amode[VDXG_M_VDISPLAY],
                           c->amode[VDXG_M_HTOTAL], c->amode[VDXG_M_VTOTAL],
                           c->amode[VDXG_M_CLOCK], vdxg_line_ns(c,
                           c->amode[VDXG_M_VTOTAL]));
    return true;
}

/* Turn active CRTC @c off: pending work ends now. Returns interrupts. */
static uint32_t vdxg_crtc_disable(VdxgState *s, VdxgCrtc *c)
{
    uint32_t irq = 0;

    c->frame_off = vdxg_crtc_frames(c);
    c->vblank_ns_off = vdxg_crtc_vblank_ns(c);
    c->ctrl &= ~VDXG_CRTC_CTRL_ENABLE;
    timer_del(c->timer);
    trace_vdxg_crtc_disable(c->index, c->frame_off);
    if (c->flip_pending) {
        c->flip_pending = false;
        vdxg_crtc_latch_all(s, c, false);
        irq |= VDXG_INT_FLIP_DONE(c->index);
    }
    if (vdxg_wb_busy(s) && vdxg_wb_crtc(s) == c->index) {
        vdxg_wb_finish(s, VDXG_WB_STATUS_DONE | VDXG_WB_STATUS_ERROR,
                       c->frame_off);
        irq |= VDXG_INT_WRITEBACK;
    }
    vdxg_crtc_set_frame(c, c->fw, c->fh);
    return irq;
}

/* Connectors */

/*
 * The EDID of connector @index, from QEMU's generator: EDID 1.4, digital,
 * vendor "VDX", name "vdxg-<index>", serial number index + 1; preferred
 * (detailed) mode at 60 Hz of the output's size below, and the
 * generator's other modes up to 2560x1600, one block.
 */
static void vdxg_edid_build(uint8_t *e, unsigned int index)
{
    static const uint32_t pref[VDXG_MAX_CRTCS][2] = {
        { 1024, 768 }, { 800, 600 }, { 1280, 720 }, { 1280, 1024 },
    };
    g_autofree char *name = g_strdup_printf("vdxg-%u", index);
    g_autofree char *serial = g_strdup_printf("%u", index + 1);
    qemu_edid_info info = {
        .vendor = "VDX",
        .name = name,
        .serial = serial,
        .width_mm = 400,
        .height_mm = 300,
        .prefx = pref[index][0],
        .prefy = pref[index][1],
        .maxx = 2560,
        .maxy = 1600,
        .refresh_rate = 60000,
    };

    memset(e, 0, VDXG_EDID_SIZE);
    qemu_edid_generate(e, VDXG_EDID_SIZE, &info);
}

void vdxg_get_connected(Object *obj, Visitor *v, const char *name,
                        void *opaque, Error **errp)
{
    bool *connected = opaque;

    visit_type_bool(v, name, connected, errp);
}

void vdxg_set_connected(Object *obj, Visitor *v, const char *name,
                        void *opaque, Error **errp)
{
    VdxgState *s = VDXG(obj);
    bool *connected = opaque;
    unsigned int index = connected - s->connected;
    bool value;

    if (!visit_type_bool(v, name, &value, errp)) {
        return;
    }
    if (!DEVICE(obj)->realized) {
        *connected = value;
        return;
    }
    if (index >= s->outputs) {
        error_setg(errp, "vdxg has %u output%s: there is no output %u",
                   s->outputs, s->outputs > 1 ? "s" : "", index);
        return;
    }
    if (*connected != value) {
        *connected = value;
        s->crtc[index].conn_changed = true;
        if (!value) {
            s->crtc[index].link_bad = false;
        }
        trace_vdxg_hotplug(index, value);
        vdxg_irq_raise(&s->core, VDXG_INT_HOTPLUG);
    }
}

void vdxg_get_link_bad(Object *obj, Visitor *v, const char *name,
                       void *opaque, Error **errp)
{
    VdxgState *s = VDXG(obj);
    bool *prop = opaque;
    unsigned int index = prop - s->link_bad_prop;

    *prop = index < s->outputs && s->crtc[index].link_bad;
    visit_type_bool(v, name, prop, errp);
}

/* "link-bad<n>" written true: the link to the monitor fails. */
void vdxg_set_link_bad(Object *obj, Visitor *v, const char *name,
                       void *opaque, Error **errp)
{
    VdxgState *s = VDXG(obj);
    bool *prop = opaque;
    unsigned int index = prop - s->link_bad_prop;
    VdxgCrtc *c = &s->crtc[index];
    bool value;

    if (!visit_type_bool(v, name, &value, errp)) {
        return;
    }
    if (!value) {
        return;                 /* only a failure is an event */
    }
    if (!DEVICE(obj)->realized || index >= s->outputs ||
        !s->connected[index]) {
        error_setg(errp, "vdxg: output %u has no monitor whose link can fail",
                   index);
        return;
    }
    if (!c->link_bad) {
        c->link_bad = true;
        c->conn_changed = true;
        trace_vdxg_link_bad(index);
        vdxg_irq_raise(&s->core, VDXG_INT_HOTPLUG);
    }
}

/* Console: the frame of each CRTC is a graphic console (head = CRTC) */

static void vdxg_gfx_invalidate(void *opaque)
{
    VdxgCrtc *c = opaque;

    c->con_dirty = true;
    c->con_y0 = c->con_y1 = 0;          /* all of it */
}

static void vdxg_gfx_update(void *opaque)
{
    VdxgCrtc *c = opaque;
    VdxgState *s = c->s;
    DisplaySurface *surface;
    bool full = false;

    vdxg_display_harvest(s);
    surface = qemu_console_surface(c->con);
    if (!vdxg_crtc_refresh_sliced(s, c)) {
        return;                 /* shown when composed */
    }
    /* The console shows the frame itself: no copy */
    if (!surface || surface_data(surface) != (uint8_t *)c->frame ||
        surface_width(surface) != c->fw ||
        surface_height(surface) != c->fh) {
        surface = qemu_create_displaysurface_from(c->fw, c->fh,
                                                  PIXMAN_x8r8g8b8,
                                                  c->fw * 4,
                                                  (uint8_t *)c->frame);
        dpy_gfx_replace_surface(c->con, surface);
        full = true;
    }
    if (c->con_dirty || full) {
        if (full || c->con_y0 >= c->con_y1) {
            c->con_y0 = 0;
            c->con_y1 = c->fh;
        }
        c->con_y1 = MIN(c->con_y1, c->fh);
        trace_vdxg_gfx_update(c->index, c->fw, c->con_y1 - c->con_y0);
        if (c->con_y0 < c->con_y1) {
            dpy_gfx_update(c->con, 0, c->con_y0, c->fw,
                           c->con_y1 - c->con_y0);
        }
        c->con_dirty = false;
        c->con_y0 = c->con_y1 = 0;
    }
}

static const GraphicHwOps vdxg_gfx_ops = {
    .invalidate = vdxg_gfx_invalidate,
    .gfx_update = vdxg_gfx_update,
};

/* Reset, realize, migration */

/* Every display register to its power-on value; connections stay. */
void vdxg_display_reset(VdxgState *s)
{
    unsigned int i;

    s->core.reset_gen++;
    for (i = 0; i < VDXG_MAX_CRTCS; i++) {
        VdxgCrtc *c = vdxg_crtc(s, i);

        if (c->timer) {
            timer_del(c->timer);
        }
        memset(c, 0, offsetof(VdxgCrtc, timer));
        if (c->frame) {
            vdxg_crtc_set_frame(c, VDXG_OFF_WIDTH, VDXG_OFF_HEIGHT);
        }
    }
    memset(&s->wb, 0, sizeof(s->wb));
}

void vdxg_display_realize(VdxgState *s)
{
    unsigned int i;

    s->wb_bh = qemu_bh_new_guarded(vdxg_wb_bh, s,
                                   &DEVICE(s)->mem_reentrancy_guard);

    memory_region_set_log(&s->vram, true, DIRTY_MEMORY_VGA);
    s->compose_bh = qemu_bh_new_guarded(vdxg_compose_bh, s,
                                        &DEVICE(s)->mem_reentrancy_guard);
    for (i = 0; i < VDXG_MAX_CRTCS; i++) {
        VdxgCrtc *c = vdxg_crtc(s, i);

        c->index = i;
        c->s = s;
        if (i >= s->outputs) {
            continue;
        }
        c->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, vdxg_crtc_timer, c);
        vdxg_edid_build(c->edid, i);
        vdxg_crtc_set_frame(c, VDXG_OFF_WIDTH, VDXG_OFF_HEIGHT);
        c->con = graphic_console_init(DEVICE(s), i, &vdxg_gfx_ops, c);
    }
}

void vdxg_display_exit(VdxgState *s)
{
    unsigned int i;

    for (i = 0; i < s->outputs; i++) {
        VdxgCrtc *c = vdxg_crtc(s, i);

        graphic_console_close(c->con);
        c->con = NULL;
        timer_free(c->timer);
        c->timer = NULL;
        vdxg_frame_free(c);
        g_free(c->row_hash);
        c->row_hash = NULL;
        c->row_hash_len = 0;
        c->composing = false;
    }
    qemu_bh_delete(s->compose_bh);
    s->compose_bh = NULL;
    qemu_bh_delete(s->wb_bh);
    s->wb_bh = NULL;
    memory_region_set_log(&s->vram, false, DIRTY_MEMORY_VGA);
}

/* Check the incoming display state and rebuild what is not migrated. */
bool vdxg_display_post_load(VdxgState *s)
{
    unsigned int i, p;
    uint64_t frames;

    /*
     * A capture under way is not migrated: the arm stays, and the capture
     * starts again at the next vblank.
     */
    s->wb.capturing = false;

    if ((s->wb.ctrl & ~VDXG_WB_CTRL_MASK) ||
        (s->wb.status & ~(VDXG_WB_STATUS_DONE | VDXG_WB_STATUS_ERROR))) {
        return false;
    }
    /* An armed capture has an active source. */
    if (vdxg_wb_busy(s) && (vdxg_wb_crtc(s) >= s->outputs ||
        !vdxg_crtc_active(vdxg_crtc(s, vdxg_wb_crtc(s))))) {
        return false;
    }
    for (i = 0; i < VDXG_MAX_CRTCS; i++) {
        VdxgCrtc *c = vdxg_crtc(s, i);

        if ((c->ctrl & ~VDXG_CRTC_CTRL_MASK) ||
            (c->color.ctrl & ~VDXG_COLOR_CTRL_MASK) ||
            (c->lut_index & ~VDXG_LUT_INDEX_MASK) ||
            !vdxg_color_post_load(c)) {
            return false;
        }
        if (i >= s->outputs) {
            if (c->ctrl || c->flip_pending || c->link_bad) {
                return false;
            }
            continue;
        }
        if (c->link_bad && !s->connected[i]) {
            return false;
        }
        if (vdxg_crtc_active(c)) {
            if (vdxg_mode_check(c->amode) ||
                vdxg_vrr_check(c->amode, c->avrr_max) ||
                !vdxg_crtc_time_ok(c, vdxg_now())) {
                return false;
            }
            /*
             * Frame numbers are counts of vblanks that have been: none is
             * ahead of FRAME_COUNT (such a one never came, and the flip
             * waiting for it neither).
             */
            frames = vdxg_frames_at(c, vdxg_now());
            if (c->event_frame > frames || c->state_frame > frames ||
                c->crc_first > c->crc_frame ||
                (c->flip_pending && c->flip_frame > frames)) {
                return false;
            }
            vdxg_crtc_set_frame(c, c->amode[VDXG_M_HDISPLAY],
                                c->amode[VDXG_M_VDISPLAY]);
        } else if (c->flip_pending) {
            return false;
        } else {
            vdxg_crtc_set_frame(c, c->fw, c->fh);
        }
        /* Shown planes are read without further checks. */
        for (p = 0; p < VDXG_NUM_PLANES; p++) {
            if ((c->pstatus[p] & ~(VDXG_PLANE_STATUS_ACTIVE |
                                   VDXG_PLANE_STATUS_FAULT)) ||
                ((c->pstatus[p] & VDXG_PLANE_STATUS_ACTIVE) &&
                 vdxg_plane_check(s, p, &c->cur[p]) != VDXG_FAULT_NONE)) {
                return false;
            }
        }
    }
    /* The same for the arm of a capture, on an active source (above) */
    if (vdxg_wb_busy(s) &&
        s->wb.arm_frame > vdxg_crtc_frames(vdxg_crtc(s, vdxg_wb_crtc(s)))) {
        return false;
    }
    /* The vblank timers follow from the state and the clock. */
    for (i = 0; i < s->outputs; i++) {
        vdxg_crtc_arm(s, vdxg_crtc(s, i));
    }
    return true;
}

/* Register access */

static bool vdxg_plane_read(VdxgCrtc *c, unsigned int p, hwaddr off,
                            uint32_t *val)
{
    const VdxgPlane *pl = &c->pend[p];

    switch (off) {
    case VDXG_PLANE_CTRL:
        *val = pl->ctrl;
        break;
    case VDXG_PLANE_ADDR_LO:
        *val = extract64(pl->addr, 0, 32);
        break;
    case VDXG_PLANE_ADDR_HI:
        *val = extract64(pl->addr, 32, 32);
        break;
    case VDXG_PLANE_FORMAT:
        *val = pl->format;
        break;
    case VDXG_PLANE_PITCH:
        *val = pl->pitch;
        break;
    case VDXG_PLANE_SRC_SIZE:
        *val = pl->src_size;
        break;
    case VDXG_PLANE_DST_POS:
        *val = pl->dst_pos;
        break;
    case VDXG_PLANE_ALPHA:
        *val = pl->alpha;
        break;
    case VDXG_PLANE_ZPOS:
        *val = pl->zpos;
        break;
    case VDXG_PLANE_DST_SIZE:
        *val = pl->dst_size;
        break;
    case VDXG_PLANE_STATUS:
        *val = c->pstatus[p];
        break;
    case VDXG_PLANE_CUR_ADDR_LO:
        *val = extract64(c->cur[p].addr, 0, 32);
        break;
    case VDXG_PLANE_CUR_ADDR_HI:
        *val = extract64(c->cur[p].addr, 32, 32);
        break;
    default:
        return false;
    }
    return true;
}

static bool vdxg_plane_write(VdxgState *s, VdxgCrtc *c, unsigned int p,
                             hwaddr addr, hwaddr off, uint32_t val)
{
    VdxgPlane *pl = &c->pend[p];
    uint32_t mask;

    switch (off) {
    case VDXG_PLANE_CTRL:
        mask = p == VDXG_PLANE_IDX_CURSOR ? VDXG_PLANE_CTRL_CURSOR_MASK :
                                            VDXG_PLANE_CTRL_MASK;
        if (val & ~mask) {
            vdxg_guest_error("unsupported plane CTRL bits dropped", addr,
                             val);
        }
        pl->ctrl = val & mask;
        break;
    case VDXG_PLANE_ADDR_LO:
        pl->addr = deposit64(pl->addr, 0, 32, val);
        break;
    case VDXG_PLANE_ADDR_HI:
        pl->addr = deposit64(pl->addr, 32, 32, val);
        break;
    case VDXG_PLANE_FORMAT:
        pl->format = val;
        break;
    case VDXG_PLANE_PITCH:
        pl->pitch = val;
        break;
    case VDXG_PLANE_SRC_SIZE:
        pl->src_size = val;
        break;
    case VDXG_PLANE_DST_POS:
        pl->dst_pos = val;
        break;
    case VDXG_PLANE_ALPHA:
        if (val > VDXG_ALPHA_OPAQUE) {
            vdxg_guest_error("plane ALPHA bits 31:16 dropped", addr, val);
        }
        pl->alpha = val & VDXG_ALPHA_OPAQUE;
        break;
    case VDXG_PLANE_ZPOS:
        pl->zpos = val;
        break;
    case VDXG_PLANE_DST_SIZE:
        if (p == VDXG_PLANE_IDX_CURSOR) {
            if (val) {
                vdxg_guest_error("the cursor does not scale: DST_SIZE "
                                 "ignored", addr, val);
            }
            break;
        }
        pl->dst_size = val;
        break;
    case VDXG_PLANE_STATUS:
    case VDXG_PLANE_CUR_ADDR_LO:
    case VDXG_PLANE_CUR_ADDR_HI:
        vdxg_guest_error("write to read-only register", addr, val);
        break;
    default:
        return false;
    }
    return true;
}

/*
 * CTRL.VRR of active @c changes: the frames so far keep their times, the
 * next ones follow the new frame length.
 */
static void vdxg_vrr_switch(VdxgCrtc *c)
{
    uint64_t k = vdxg_frames_at(c, vdxg_now());

    if (k > c->fbase) {
        vdxg_crtc_rebase(c, vdxg_vblank_time(c, k), k);
    }
}

/*
 * VRR: a FLIP written while the vblank stretches, the frame's VTOTAL lines
 * over, ends it now: the next vblank starts at once and latches it.
 */
static bool vdxg_vrr_flip(VdxgCrtc *c)
{
    uint64_t k = c->flip_frame;
    int64_t now = vdxg_now();

    if (!vdxg_vrr_on(c) || k <= c->fbase || now < vdxg_vrr_min_time(c, k)) {
        return false;
    }
    vdxg_crtc_rebase(c, now, k + 1);
    return true;
}

/* The mode register at CRTC offset @off, or -1 */
static int vdxg_mode_reg(hwaddr off)
{
    switch (off) {
    case VDXG_CRTC_HDISPLAY:
        return VDXG_M_HDISPLAY;
    case VDXG_CRTC_VDISPLAY:
        return VDXG_M_VDISPLAY;
    case VDXG_CRTC_HTOTAL:
        return VDXG_M_HTOTAL;
    case VDXG_CRTC_VTOTAL:
        return VDXG_M_VTOTAL;
    case VDXG_CRTC_CLOCK_KHZ:
        return VDXG_M_CLOCK;
    case VDXG_CRTC_HSYNC_START:
        return VDXG_M_HSYNC_START;
    case VDXG_CRTC_HSYNC_END:
        return VDXG_M_HSYNC_END;
    case VDXG_CRTC_VSYNC_START:
        return VDXG_M_VSYNC_START;
    case VDXG_CRTC_VSYNC_END:
        return VDXG_M_VSYNC_END;
    default:
        return -1;
    }
}

/* The CRTC whose block holds @addr, or NULL */
static VdxgCrtc *vdxg_crtc_at(VdxgState *s, hwaddr addr)
{
    if (addr < VDXG_CRTC_BASE(0) || addr >= VDXG_CRTC_BASE(s->outputs)) {
        return NULL;
    }
    return vdxg_crtc(s, (addr - VDXG_CRTC_BASE(0)) / 0x200);
}

/* The display registers; false for an offset that is none. */
bool vdxg_display_read(VdxgState *s, hwaddr addr, uint32_t *val)
{
    VdxgCrtc *c = vdxg_crtc_at(s, addr);
    hwaddr off;
    int m;

    if (!c) {
        return vdxg_wb_read(s, addr, val);
    }
    off = addr & 0x1ff;
    if (off >= VDXG_PLANE_PRIMARY && off < VDXG_CRTC_CONN_STATUS) {
        return vdxg_plane_read(c, (off - VDXG_PLANE_PRIMARY) / 0x40,
                               off & 0x3f, val);
    }
    if (off >= VDXG_CRTC_EDID) {
        *val = s->connected[c->index] ?
               ldl_le_p(c->edid + off - VDXG_CRTC_EDID) : 0;
        return true;
    }
    if (vdxg_color_read(c, off, val)) {
        return true;
    }
    m = vdxg_mode_reg(off);
    if (m >= 0) {
        *val = c->mode[m];
        return true;
    }
    switch (off) {
    case VDXG_CRTC_CTRL:
        *val = c->ctrl;
        break;
    case VDXG_CRTC_FLIP:
    case VDXG_CRTC_CURSOR_UPDATE:
    case VDXG_CRTC_ASYNC_FLIP:
        *val = 0;
        break;
    case VDXG_CRTC_FRAME_COUNT:
        *val = vdxg_crtc_frames(c);
        break;
    case VDXG_CRTC_VBLANK_NS_LO:
        *val = extract64(vdxg_crtc_vblank_ns(c), 0, 32);
        break;
    case VDXG_CRTC_VBLANK_NS_HI:
        *val = extract64(vdxg_crtc_vblank_ns(c), 32, 32);
        break;
    case VDXG_CRTC_SCANLINE:
        *val = vdxg_crtc_scanline(c);
        break;
    case VDXG_CRTC_CRC:
        *val = c->crc;
        break;
    case VDXG_CRTC_CRC_FRAME:
        *val = c->crc_frame;
        break;
    case VDXG_CRTC_BG_COLOR:
        *val = c->bg;
        break;
    case VDXG_CRTC_STATUS:
        *val = vdxg_crtc_status(c);
        break;
    case VDXG_CRTC_VRR_VTOTAL_MAX:
        *val = c->vrr_max;
        break;
    case VDXG_CRTC_CRC_FIRST:
        *val = c->crc_first;
        break;
    case VDXG_CRTC_DAMAGE:
        *val = c->damage;
        break;
    case VDXG_CRTC_CONN_STATUS:
        *val = (s->connected[c->index] ? VDXG_CONN_CONNECTED : 0) |
               (c->conn_changed ? VDXG_CONN_CHANGED : 0) |
               (c->link_bad ? VDXG_CONN_LINK_BAD : 0);
        break;
    default:
        return false;
    }
    return true;
}

bool vdxg_display_write(VdxgState *s, hwaddr addr, uint32_t val)
{
    VdxgCrtc *c = vdxg_crtc_at(s, addr);
    uint32_t irq = 0;
    hwaddr off;
    int m;

    if (!c) {
        return vdxg_wb_write(s, addr, val);
    }
    off = addr & 0x1ff;
    if (off >= VDXG_PLANE_PRIMARY && off < VDXG_CRTC_CONN_STATUS) {
        return vdxg_plane_write(s, c, (off - VDXG_PLANE_PRIMARY) / 0x40,
                                addr, off & 0x3f, val);
    }
    if (off >= VDXG_CRTC_EDID) {
        vdxg_guest_error("write to read-only register", addr, val);
        return true;
    }
    if (vdxg_color_write(c, addr, off, val)) {
        return true;
    }
    m = vdxg_mode_reg(off);
    if (m >= 0) {
        c->mode[m] = val;
        return true;
    }
    switch (off) {
    case VDXG_CRTC_CTRL:
        if (val & ~VDXG_CRTC_CTRL_MASK) {
            vdxg_guest_error("undefined CRTC CTRL bits dropped", addr, val);
        }
        val &= VDXG_CRTC_CTRL_MASK;
        if ((val & VDXG_CRTC_CTRL_ENABLE) && !vdxg_crtc_active(c)) {
            c->ctrl = val & ~VDXG_CRTC_CTRL_ENABLE;
            vdxg_crtc_enable(s, c);
        } else {
            if (!(val & VDXG_CRTC_CTRL_ENABLE) && vdxg_crtc_active(c)) {
                irq = vdxg_crtc_disable(s, c);
            }
            if (vdxg_crtc_active(c) &&
                ((val ^ c->ctrl) & VDXG_CRTC_CTRL_VRR)) {
                vdxg_vrr_switch(c);
            }
            c->ctrl = val;
            c->mode_invalid = false;
        }
        vdxg_crtc_arm(s, c);
        if (irq) {
            vdxg_irq_raise(&s->core, irq);
        }
        break;
    case VDXG_CRTC_FLIP:
        if (vdxg_crtc_active(c)) {
            /* VRR: true when a vblank starts now, for the timer to run */
            bool now = vdxg_vrr_catch_up(c, vdxg_now());

            if (!c->flip_pending) {
                c->flip_pending = true;
                c->flip_frame = vdxg_crtc_frames(c);
                c->flip_damage = true;
                c->flip_y0 = c->flip_y1 = 0;
                now |= vdxg_vrr_flip(c);
            }
            vdxg_flip_damage(c, val);
            trace_vdxg_flip(c->index, c->flip_frame, false);
            vdxg_crtc_arm(s, c);
            if (now) {
                timer_mod_ns(c->timer, vdxg_now());
            }
        } else {
            trace_vdxg_flip(c->index, c->frame_off, true);
            vdxg_crtc_latch_all(s, c, false);
            vdxg_irq_raise(&s->core, VDXG_INT_FLIP_DONE(c->index));
        }
        break;
    case VDXG_CRTC_CURSOR_UPDATE:
        trace_vdxg_cursor_update(c->index,
                                 c->pend[VDXG_PLANE_IDX_CURSOR].dst_pos,
                                 c->pend[VDXG_PLANE_IDX_CURSOR].addr);
        vdxg_plane_latch_alone(s, c, VDXG_PLANE_IDX_CURSOR);
        break;
    case VDXG_CRTC_ASYNC_FLIP:
        if (!vdxg_crtc_active(c)) {
            vdxg_guest_error("ASYNC_FLIP of a CRTC that is off", addr, val);
            break;
        }
        trace_vdxg_async_flip(c->index, c->pend[VDXG_PLANE_IDX_PRIMARY].addr);
        vdxg_plane_latch_alone(s, c, VDXG_PLANE_IDX_PRIMARY);
        vdxg_irq_raise(&s->core, VDXG_INT_ASYNC_DONE(c->index));
        break;
    case VDXG_CRTC_BG_COLOR:
        c->bg = val;
        break;
    case VDXG_CRTC_VRR_VTOTAL_MAX:
        c->vrr_max = val;
        break;
    case VDXG_CRTC_DAMAGE:
        c->damage = val;
        break;
    case VDXG_CRTC_CONN_STATUS:
        if (val & VDXG_CONN_CHANGED) {
            c->conn_changed = false;
        }
        break;
    case VDXG_CRTC_FRAME_COUNT:
    case VDXG_CRTC_VBLANK_NS_LO:
    case VDXG_CRTC_VBLANK_NS_HI:
    case VDXG_CRTC_SCANLINE:
    case VDXG_CRTC_CRC:
    case VDXG_CRTC_CRC_FRAME:
    case VDXG_CRTC_CRC_FIRST:
    case VDXG_CRTC_STATUS:
        vdxg_guest_error("write to read-only register", addr, val);
        break;
    default:
        return false;
    }
    return true;
}

static const VMStateDescription vmstate_vdxg_plane = {
    .name = "vdxg/plane",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(ctrl, VdxgPlane),
        VMSTATE_UINT64(addr, VdxgPlane),
        VMSTATE_UINT32(format, VdxgPlane),
        VMSTATE_UINT32(pitch, VdxgPlane),
        VMSTATE_UINT32(src_size, VdxgPlane),
        VMSTATE_UINT32(dst_pos, VdxgPlane),
        VMSTATE_UINT32(alpha, VdxgPlane),
        VMSTATE_UINT32(zpos, VdxgPlane),
        VMSTATE_END_OF_LIST()
    },
};

/* A plane's DST_SIZE, for planes that scale */
static const VMStateDescription vmstate_vdxg_plane_scale = {
    .name = "vdxg/plane/scale",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(dst_size, VdxgPlane),
        VMSTATE_END_OF_LIST()
    },
};

/* The planes' DST_SIZE, when one is not 0 */
static bool vdxg_crtc_scale_needed(void *opaque)
{
    VdxgCrtc *c = opaque;
    unsigned int p;

    for (p = 0; p < VDXG_NUM_PLANES; p++) {
        if (c->pend[p].dst_size || c->cur[p].dst_size) {
            return true;
        }
    }
    return false;
}

static const VMStateDescription vmstate_vdxg_crtc_scale = {
    .name = "vdxg/crtc/scale",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = vdxg_crtc_scale_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT_ARRAY(pend, VdxgCrtc, VDXG_NUM_PLANES, 1,
                             vmstate_vdxg_plane_scale, VdxgPlane),
        VMSTATE_STRUCT_ARRAY(cur, VdxgCrtc, VDXG_NUM_PLANES, 1,
                             vmstate_vdxg_plane_scale, VdxgPlane),
        VMSTATE_END_OF_LIST()
    },
};

/* The frames a CRC describes, once a latch or a CRC has set them */
static bool vdxg_crtc_crc_first_needed(void *opaque)
{
    VdxgCrtc *c = opaque;

    return c->state_frame || c->crc_first;
}

static const VMStateDescription vmstate_vdxg_crtc_crc_first = {
    .name = "vdxg/crtc/crc-first",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = vdxg_crtc_crc_first_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(state_frame, VdxgCrtc),
        VMSTATE_UINT32(crc_first, VdxgCrtc),
        VMSTATE_END_OF_LIST()
    },
};

/* Damage: DAMAGE set, or a FLIP with FLIP_DAMAGE pending */
static bool vdxg_crtc_damage_needed(void *opaque)
{
    VdxgCrtc *c = opaque;

    return c->damage || c->flip_damage;
}

static const VMStateDescription vmstate_vdxg_crtc_damage = {
    .name = "vdxg/crtc/damage",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = vdxg_crtc_damage_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(damage, VdxgCrtc),
        VMSTATE_BOOL(flip_damage, VdxgCrtc),
        VMSTATE_UINT32(flip_y0, VdxgCrtc),
        VMSTATE_UINT32(flip_y1, VdxgCrtc),
        VMSTATE_END_OF_LIST()
    },
};

/* Variable refresh, when it has been set up */
static bool vdxg_crtc_vrr_needed(void *opaque)
{
    VdxgCrtc *c = opaque;

    return c->fbase || c->vrr_max || c->avrr_max;
}

static const VMStateDescription vmstate_vdxg_crtc_vrr = {
    .name = "vdxg/crtc/vrr",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = vdxg_crtc_vrr_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(fbase, VdxgCrtc),
        VMSTATE_UINT32(vrr_max, VdxgCrtc),
        VMSTATE_UINT32(avrr_max, VdxgCrtc),
        VMSTATE_END_OF_LIST()
    },
};

/* The colour pipeline and the link, when they are not at reset values */
static bool vdxg_crtc_color_needed(void *opaque)
{
    VdxgCrtc *c = opaque;

    return c->link_bad || c->lut_index ||
           !buffer_is_zero(&c->color, sizeof(c->color)) ||
           !buffer_is_zero(&c->acolor, sizeof(c->acolor));
}

static const VMStateDescription vmstate_vdxg_crtc_color = {
    .name = "vdxg/crtc/color",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = vdxg_crtc_color_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(link_bad, VdxgCrtc),
        VMSTATE_UINT32(lut_index, VdxgCrtc),
        VMSTATE_STRUCT(color, VdxgCrtc, 1, vmstate_vdxg_color, VdxgColor),
        VMSTATE_STRUCT(acolor, VdxgCrtc, 1, vmstate_vdxg_color, VdxgColor),
        VMSTATE_END_OF_LIST()
    },
};

/* A CRTC; its frame is composed again on the destination */
const VMStateDescription vmstate_vdxg_crtc = {
    .name = "vdxg/crtc",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(ctrl, VdxgCrtc),
        VMSTATE_UINT32_ARRAY(mode, VdxgCrtc, VDXG_NUM_MODE_REGS),
        VMSTATE_UINT32(bg, VdxgCrtc),
        VMSTATE_STRUCT_ARRAY(pend, VdxgCrtc, VDXG_NUM_PLANES, 1,
                             vmstate_vdxg_plane, VdxgPlane),
        VMSTATE_BOOL(conn_changed, VdxgCrtc),
        VMSTATE_UINT32_ARRAY(amode, VdxgCrtc, VDXG_NUM_MODE_REGS),
        VMSTATE_INT64(t0, VdxgCrtc),
        VMSTATE_UINT64(event_frame, VdxgCrtc),
        VMSTATE_BOOL(flip_pending, VdxgCrtc),
        VMSTATE_UINT64(flip_frame, VdxgCrtc),
        VMSTATE_BOOL(mode_invalid, VdxgCrtc),
        VMSTATE_UINT32(frame_off, VdxgCrtc),
        VMSTATE_INT64(vblank_ns_off, VdxgCrtc),
        VMSTATE_UINT32(crc, VdxgCrtc),
        VMSTATE_UINT32(crc_frame, VdxgCrtc),
        VMSTATE_UINT32(abg, VdxgCrtc),
        VMSTATE_STRUCT_ARRAY(cur, VdxgCrtc, VDXG_NUM_PLANES, 1,
                             vmstate_vdxg_plane, VdxgPlane),
        VMSTATE_UINT32_ARRAY(pstatus, VdxgCrtc, VDXG_NUM_PLANES),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * const []) {
        &vmstate_vdxg_crtc_color,
        &vmstate_vdxg_crtc_scale,
        &vmstate_vdxg_crtc_vrr,
        &vmstate_vdxg_crtc_crc_first,
        &vmstate_vdxg_crtc_damage,
        NULL
    },
};
