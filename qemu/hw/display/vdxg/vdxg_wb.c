/*
 * vdxg: the writeback unit
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "migration/vmstate.h"
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

void vdxg_wb_finish(VdxgState *s, uint32_t status, uint64_t frame)
{
    VdxgWriteback *wb = &s->wb;

    wb->ctrl &= ~VDXG_WB_CTRL_ENABLE;
    wb->status = status;
    wb->frame = frame;
    trace_vdxg_wb_done(vdxg_wb_crtc(s), frame, wb->addr, status, wb->seqno);
}

/*
 * Write the composed frame of @c to the writeback target. Returns false
 * when a DMA of the capture reset the device: the capture is abandoned,
 * without status, fault or interrupt, and nothing of @c may be used.
 */
bool vdxg_wb_capture(VdxgState *s, VdxgCrtc *c, uint64_t frame)
{
    VdxgWriteback *wb = &s->wb;
    uint32_t w = c->fw, h = c->fh, x, y, reason = VDXG_FAULT_NONE;
    uint32_t alpha = 0xff000000u, gen = s->core.reset_gen;
    VdxgErr err;

    if (wb->format != VDXG_FOURCC_XRGB8888 &&
        wb->format != VDXG_FOURCC_ARGB8888) {
        reason = VDXG_FAULT_PARAM;
    } else if (wb->pitch % 4 || wb->pitch < w * 4 ||
               wb->pitch > VDXG_PLANE_MAX_PITCH || wb->addr % 4) {
        reason = VDXG_FAULT_PARAM;
    } else if (!vdxg_gpu_range_ok(&s->core, wb->addr,
                                  (uint64_t)wb->pitch * (h - 1) + w * 4)) {
        reason = VDXG_FAULT_ADDRESS;
    }
    if (reason != VDXG_FAULT_NONE) {
        vdxg_display_fault(s, c, VDXG_DISP_UNIT_WRITEBACK, reason, wb->addr);
        vdxg_wb_finish(s, VDXG_WB_STATUS_DONE | VDXG_WB_STATUS_ERROR, frame);
        return true;
    }
    vdxg_crtc_refresh(s, c);
    /* Each row is indexed with the frame's size as it is now. */
    for (y = 0; y < h && s->core.reset_gen == gen && y < c->fh && w <= c->fw;
         y++) {
        for (x = 0; x < w; x++) {
            stl_le_p(s->disp_row + x * 4, c->frame[y * c->fw + x] | alpha);
        }
        if (!vdxg_gpu_rw(&s->core, wb->addr + (uint64_t)y * wb->pitch,
                         s->disp_row, w * 4, true, &err)) {
            if (s->core.reset_gen != gen) {
                break;
            }
            vdxg_display_fault(s, c, VDXG_DISP_UNIT_WRITEBACK, err.reason,
                               err.addr);
            vdxg_wb_finish(s, VDXG_WB_STATUS_DONE | VDXG_WB_STATUS_ERROR,
                           frame);
            return true;
        }
    }
    if (s->core.reset_gen != gen) {
        trace_vdxg_wb_cancel(vdxg_wb_crtc(s));
        return false;
    }
    wb->seqno++;
    vdxg_wb_finish(s, VDXG_WB_STATUS_DONE, frame);
    return true;
}

/*
 * The writeback bottom half, guarded against reentrancy: capture the
 * vblank that has run since the arm, then signal it.
 */
void vdxg_wb_bh(void *opaque)
{
    VdxgState *s = opaque;
    VdxgCrtc *c;

    if (!vdxg_wb_busy(s) || vdxg_wb_crtc(s) >= s->outputs) {
        return;
    }
    c = vdxg_crtc(s, vdxg_wb_crtc(s));
    if (!vdxg_crtc_active(c) || c->event_frame <= s->wb.arm_frame) {
        return;
    }
    if (!vdxg_wb_capture(s, c, c->event_frame)) {
        /* Its DMA reset the device: nothing more. */
        return;
    }
    vdxg_irq_raise(&s->core, VDXG_INT_WRITEBACK);
    vdxg_crtc_arm(s, c);
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
            /* Disarm: the capture is dropped without interrupt. */
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
