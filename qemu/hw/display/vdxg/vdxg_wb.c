/*
 * vdxg: the writeback unit
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"
#include "migration/vmstate.h"
#include "qapi/visitor.h"
#include "vdxg_int.h"
#include "hw/display/trace.h"

bool vdxg_wb_busy(VdxgState *s)
{
    return s->wb.ctrl & VDXG_WB_CTRL_ENABLE;
}

unsigned int vdxg_wb_crtc(VdxgState *s)
{
    return extract32(s->wb.ctrl, VDXG_WB_CTRL_CRTC_SHIFT, 4);
}

/* Writeback */

/* Is the capture under way reading the frame of @c? */
bool vdxg_wb_holds(VdxgState *s, const VdxgCrtc *c)
{
    return s->wb.capturing && vdxg_wb_crtc(s) == c->index;
}

/*
 * The capture under way, if any, ends: its source's frame may be composed
 * again, which the compose bottom half does if it is wanted.
 */
void vdxg_wb_end_capture(VdxgState *s)
{
    if (s->wb.capturing) {
        s->wb.capturing = false;
        qemu_bh_schedule(s->compose_bh);
    }
}

void vdxg_wb_finish(VdxgState *s, uint32_t status, uint64_t frame)
{
    VdxgWriteback *wb = &s->wb;

    vdxg_wb_end_capture(s);
    wb->ctrl &= ~VDXG_WB_CTRL_ENABLE;
    wb->status = status;
    wb->frame = frame;
    trace_vdxg_wb_done(vdxg_wb_crtc(s), frame, wb->addr, status, wb->seqno);
}

/* Why the target cannot take the frame of @c: VDXG_FAULT_* */
static uint32_t vdxg_wb_check(VdxgState *s, const VdxgCrtc *c)
{
    VdxgWriteback *wb = &s->wb;

    if (wb->format != VDXG_FOURCC_XRGB8888 &&
        wb->format != VDXG_FOURCC_ARGB8888) {
        return VDXG_FAULT_PARAM;
    }
    if (wb->pitch % 4 || wb->pitch < c->fw * 4 ||
        wb->pitch > VDXG_PLANE_MAX_PITCH || wb->addr % 4) {
        return VDXG_FAULT_PARAM;
    }
    if (!vdxg_gpu_range_ok(&s->core, wb->addr,
                           (uint64_t)wb->pitch * (c->fh - 1) + c->fw * 4)) {
        return VDXG_FAULT_ADDRESS;
    }
    return VDXG_FAULT_NONE;
}

typedef enum VdxgWbRun {
    VDXG_WB_MORE,               /* lines are left: run again */
    VDXG_WB_HELD,               /* lines are left, held by a test */
    VDXG_WB_DONE,               /* the arm ended: DONE, maybe ERROR */
    VDXG_WB_GONE,               /* a DMA reset the device: nothing more */
} VdxgWbRun;

/*
 * Write lines of the capture of @c's frame, the next first, until all are
 * written or get_clock() passes @deadline (or a test holds the capture,
 * x-wb-hold-after). The capture holds the frame: it is not composed again
 * until the capture ends.
 */
static VdxgWbRun vdxg_wb_capture_step(VdxgState *s, VdxgCrtc *c,
                                      int64_t deadline)
{
    VdxgWriteback *wb = &s->wb;
    uint32_t w = wb->cap_w, gen = s->core.reset_gen, x;
    const uint32_t *row;
    VdxgErr err;

    if (w != c->fw || wb->cap_h != c->fh) {
        /* Not expected: the frame changes size only with the CRTC off */
        vdxg_wb_finish(s, VDXG_WB_STATUS_DONE | VDXG_WB_STATUS_ERROR,
                       wb->cap_frame);
        return VDXG_WB_DONE;
    }
    while (wb->cap_row < wb->cap_h) {
        if (s->wb_hold && !s->wb_hold_left) {
            trace_vdxg_wb_held(c->index, wb->cap_row, wb->cap_h);
            return VDXG_WB_HELD;
        }
        row = c->frame + (size_t)wb->cap_row * w;
        for (x = 0; x < w; x++) {
            stl_le_p(s->disp_row + x * 4, row[x] | 0xff000000u);
        }
        if (!vdxg_gpu_rw(&s->core, wb->cap_addr + (uint64_t)wb->cap_row *
                         wb->cap_pitch, s->disp_row, w * 4, true, &err)) {
            if (s->core.reset_gen != gen) {
                break;
            }
            vdxg_display_fault(s, c, VDXG_DISP_UNIT_WRITEBACK, err.reason,
                               err.addr);
            vdxg_wb_finish(s, VDXG_WB_STATUS_DONE | VDXG_WB_STATUS_ERROR,
                           wb->cap_frame);
            return VDXG_WB_DONE;
        }
        if (s->core.reset_gen != gen) {
            break;
        }
        wb->cap_row++;
        if (s->wb_hold) {
            s->wb_hold_left--;
        }
        if (wb->cap_row < wb->cap_h && get_clock() >= deadline) {
            return VDXG_WB_MORE;
        }
    }
    if (s->core.reset_gen != gen) {
        /* The reset dropped the capture without status or interrupt. */
        trace_vdxg_wb_cancel(c->index);
        return VDXG_WB_GONE;
    }
    wb->seqno++;
    vdxg_wb_finish(s, VDXG_WB_STATUS_DONE, wb->cap_frame);
    return VDXG_WB_DONE;
}

/*
 * The writeback bottom half, guarded against reentrancy. After the first
 * vblank since the arm it checks the target, waits for the frame to be
 * composed (the compose bottom half calls it again), then writes the
 * frame in slices of about VDXG_SLICE_NS, and signals the end.
 */
void vdxg_wb_bh(void *opaque)
{
    VdxgState *s = opaque;
    VdxgWriteback *wb = &s->wb;
    int64_t start = get_clock(), cpu = vdxg_thread_ns();
    VdxgWbRun run;
    uint32_t reason;
    VdxgCrtc *c;

    if (!vdxg_wb_busy(s) || vdxg_wb_crtc(s) >= s->outputs) {
        return;
    }
    c = vdxg_crtc(s, vdxg_wb_crtc(s));
    if (!vdxg_crtc_active(c)) {
        return;
    }
    if (!wb->capturing) {
        if (c->event_frame <= wb->arm_frame) {
            return;
        }
        reason = vdxg_wb_check(s, c);
        if (reason != VDXG_FAULT_NONE) {
            vdxg_display_fault(s, c, VDXG_DISP_UNIT_WRITEBACK, reason,
                               wb->addr);
            vdxg_wb_finish(s, VDXG_WB_STATUS_DONE | VDXG_WB_STATUS_ERROR,
                           c->event_frame);
            vdxg_irq_raise(&s->core, VDXG_INT_WRITEBACK);
            vdxg_crtc_arm(s, c);
            goto out;
        }
        if (!vdxg_crtc_refresh_sliced(s, c)) {
            /* Composed in slices; the compose bottom half calls again. */
            goto out;
        }
        /* The frame of the last vblank, and the target, as they are now */
        wb->capturing = true;
        wb->cap_row = 0;
        wb->cap_w = c->fw;
        wb->cap_h = c->fh;
        wb->cap_addr = wb->addr;
        wb->cap_pitch = wb->pitch;
        wb->cap_frame = c->event_frame;
        trace_vdxg_wb_start(c->index, wb->cap_frame, c->fw, c->fh);
    }
    run = vdxg_wb_capture_step(s, c, start + VDXG_SLICE_NS);
    if (run == VDXG_WB_GONE) {
        return;
    }
    if (run == VDXG_WB_MORE) {
        qemu_bh_schedule(s->wb_bh);
    } else if (run == VDXG_WB_DONE) {
        vdxg_irq_raise(&s->core, VDXG_INT_WRITEBACK);
        vdxg_crtc_arm(s, c);
    }
out:
    trace_vdxg_wb_slice(vdxg_wb_crtc(s), wb->cap_row, wb->cap_h,
                        get_clock() - start, vdxg_thread_ns() - cpu);
    vdxg_note_slice(&s->core, get_clock() - start, vdxg_thread_ns() - cpu);
}

/*
 * x-wb-hold-after, for tests: writing N > 0 lets a capture write N more
 * lines, after which it holds, under way (WB_STATUS BUSY), until the
 * property is written again; writing 0 lets it go on. Reading gives the
 * lines left before it holds: 0 once it holds (or when no hold is set).
 * Resets keep it; it is not migrated, and the guest has no way to it.
 */
static void vdxg_wb_get_hold(Object *obj, Visitor *v, const char *name,
                             void *opaque, Error **errp)
{
    VdxgState *s = opaque;
    uint32_t n = s->wb_hold_left;

    visit_type_uint32(v, name, &n, errp);
}

static void vdxg_wb_set_hold(Object *obj, Visitor *v, const char *name,
                             void *opaque, Error **errp)
{
    VdxgState *s = opaque;
    uint32_t n;

    if (!visit_type_uint32(v, name, &n, errp)) {
        return;
    }
    s->wb_hold = n != 0;
    s->wb_hold_left = n;
    if (s->wb_bh) {
        /* Go on, if a capture is under way */
        qemu_bh_schedule(s->wb_bh);
    }
}

void vdxg_wb_add_props(VdxgState *s, Object *obj)
{
    object_property_add(obj, "x-wb-hold-after", "uint32", vdxg_wb_get_hold,
                        vdxg_wb_set_hold, NULL, s);
    object_property_set_description(obj, "x-wb-hold-after",
        "Test only: hold a writeback capture after this many more lines "
        "(0: no hold)");
}

bool vdxg_wb_read(VdxgState *s, hwaddr addr, uint32_t *val)
{
    VdxgWriteback *wb = &s->wb;

    switch (addr) {
    case VDXG_REG_WB_CTRL:
        *val = wb->ctrl;
        break;
    case VDXG_REG_WB_ADDR_LO:
        *val = extract64(wb->addr, 0, 32);
        break;
    case VDXG_REG_WB_ADDR_HI:
        *val = extract64(wb->addr, 32, 32);
        break;
    case VDXG_REG_WB_FORMAT:
        *val = wb->format;
        break;
    case VDXG_REG_WB_PITCH:
        *val = wb->pitch;
        break;
    case VDXG_REG_WB_STATUS:
        *val = wb->status | (vdxg_wb_busy(s) ? VDXG_WB_STATUS_BUSY : 0);
        break;
    case VDXG_REG_WB_SEQNO:
        *val = wb->seqno;
        break;
    case VDXG_REG_WB_FRAME:
        *val = wb->frame;
        break;
    default:
        return false;
    }
    return true;
}

bool vdxg_wb_write(VdxgState *s, hwaddr addr, uint32_t val)
{
    VdxgWriteback *wb = &s->wb;
    unsigned int old_crtc = vdxg_wb_crtc(s), crtc;
    VdxgCrtc *c;

    switch (addr) {
    case VDXG_REG_WB_CTRL:
        if (val & ~VDXG_WB_CTRL_MASK) {
            vdxg_guest_error("undefined writeback CTRL bits dropped", addr,
                             val);
        }
        val &= VDXG_WB_CTRL_MASK;
        crtc = extract32(val, VDXG_WB_CTRL_CRTC_SHIFT, 4);
        if (vdxg_wb_busy(s)) {
            if (val & VDXG_WB_CTRL_ENABLE) {
                vdxg_guest_error("writeback already armed", addr, val);
                break;
            }
            /*
             * Disarm: the capture is dropped without interrupt (lines
             * already written stay).
             */
            vdxg_wb_end_capture(s);
            wb->ctrl = val;
            wb->status = 0;
            trace_vdxg_wb_cancel(old_crtc);
            vdxg_crtc_arm(s, vdxg_crtc(s, old_crtc));
            break;
        }
        wb->ctrl = val;
        if (!(val & VDXG_WB_CTRL_ENABLE)) {
            break;
        }
        wb->status = 0;
        if (crtc >= s->outputs || !vdxg_crtc_active(vdxg_crtc(s, crtc))) {
            c = vdxg_crtc(s, crtc % VDXG_MAX_CRTCS);
            vdxg_guest_error("writeback armed on a CRTC that is off", addr,
                             val);
            vdxg_fault(&s->core, VDXG_FAULT_ENGINE_DISPLAY, VDXG_FAULT_PARAM,
                       VDXG_FAULT_OPCODE_DISPLAY(crtc,
                                                 VDXG_DISP_UNIT_WRITEBACK),
                       wb->addr, crtc < s->outputs ? c->frame_off : 0);
            vdxg_wb_finish(s, VDXG_WB_STATUS_DONE | VDXG_WB_STATUS_ERROR, 0);
            vdxg_irq_raise(&s->core, VDXG_INT_WRITEBACK);
            break;
        }
        c = vdxg_crtc(s, crtc);
        wb->arm_frame = vdxg_crtc_frames(c);
        trace_vdxg_wb_arm(crtc, wb->arm_frame, wb->addr, wb->format,
                          wb->pitch);
        vdxg_crtc_arm(s, c);
        break;
    case VDXG_REG_WB_ADDR_LO:
        wb->addr = deposit64(wb->addr, 0, 32, val);
        break;
    case VDXG_REG_WB_ADDR_HI:
        wb->addr = deposit64(wb->addr, 32, 32, val);
        break;
    case VDXG_REG_WB_FORMAT:
        wb->format = val;
        break;
    case VDXG_REG_WB_PITCH:
        wb->pitch = val;
        break;
    case VDXG_REG_WB_STATUS:
    case VDXG_REG_WB_SEQNO:
    case VDXG_REG_WB_FRAME:
        vdxg_guest_error("write to read-only register", addr, val);
        break;
    default:
        return false;
    }
    return true;
}

const VMStateDescription vmstate_vdxg_wb = {
    .name = "vdxg/writeback",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(ctrl, VdxgWriteback),
        VMSTATE_UINT64(addr, VdxgWriteback),
        VMSTATE_UINT32(format, VdxgWriteback),
        VMSTATE_UINT32(pitch, VdxgWriteback),
        VMSTATE_UINT32(status, VdxgWriteback),
        VMSTATE_UINT32(seqno, VdxgWriteback),
        VMSTATE_UINT32(frame, VdxgWriteback),
        VMSTATE_UINT64(arm_frame, VdxgWriteback),
        VMSTATE_END_OF_LIST()
    },
};
