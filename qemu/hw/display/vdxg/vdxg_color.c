/*
 * vdxg: the colour pipeline of a CRTC: degamma LUT, colour transform
 * matrix and gamma LUT, applied to the composed frame
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "migration/vmstate.h"
#include "vdxg_int.h"

/* Registers */

bool vdxg_color_read(VdxgCrtc *c, hwaddr off, uint32_t *val)
{
    unsigned int gamma = !!(c->lut_index & VDXG_LUT_INDEX_GAMMA);
    unsigned int entry = c->lut_index & VDXG_LUT_INDEX_ENTRY_MASK;
    const uint16_t *e = &c->color.lut[VDXG_LUT_WORD(gamma, entry, 0)];

    switch (off) {
    case VDXG_CRTC_COLOR_CTRL:
        *val = c->color.ctrl;
        return true;
    case VDXG_CRTC_LUT_INDEX:
        *val = c->lut_index;
        return true;
    case VDXG_CRTC_LUT_DATA_LO:
        *val = e[0] | (uint32_t)e[1] << 16;
        return true;
    case VDXG_CRTC_LUT_DATA_HI:
        *val = e[2];
        return true;
    }
    if (off >= VDXG_CRTC_CTM(0) && off <= VDXG_CRTC_CTM(8)) {
        *val = c->color.ctm[(off - VDXG_CRTC_CTM(0)) / 4];
        return true;
    }
    return false;
}

bool vdxg_color_write(VdxgCrtc *c, hwaddr addr, hwaddr off, uint32_t val)
{
    unsigned int gamma = !!(c->lut_index & VDXG_LUT_INDEX_GAMMA);
    unsigned int entry = c->lut_index & VDXG_LUT_INDEX_ENTRY_MASK;
    uint16_t *e = &c->color.lut[VDXG_LUT_WORD(gamma, entry, 0)];

    switch (off) {
    case VDXG_CRTC_COLOR_CTRL:
        if (val & ~VDXG_COLOR_CTRL_MASK) {
            vdxg_guest_error("undefined COLOR_CTRL bits dropped", addr, val);
        }
        c->color.ctrl = val & VDXG_COLOR_CTRL_MASK;
        return true;
    case VDXG_CRTC_LUT_INDEX:
        if (val & ~VDXG_LUT_INDEX_MASK) {
            vdxg_guest_error("undefined LUT_INDEX bits dropped", addr, val);
        }
        c->lut_index = val & VDXG_LUT_INDEX_MASK;
        return true;
    case VDXG_CRTC_LUT_DATA_LO:
        e[0] = extract32(val, 0, 16);
        e[1] = extract32(val, 16, 16);
        return true;
    case VDXG_CRTC_LUT_DATA_HI:
        if (val >> 16) {
            vdxg_guest_error("LUT_DATA_HI bits 31:16 dropped", addr, val);
        }
        e[2] = extract32(val, 0, 16);
        c->lut_index = (c->lut_index & VDXG_LUT_INDEX_GAMMA) |
                       ((entry + 1) & VDXG_LUT_INDEX_ENTRY_MASK);
        return true;
    }
    if (off >= VDXG_CRTC_CTM(0) && off <= VDXG_CRTC_CTM(8)) {
        c->color.ctm[(off - VDXG_CRTC_CTM(0)) / 4] = val;
        return true;
    }
    return false;
}

/* Arithmetic (docs/hardware.md, "Colour pipeline") */

/* Channel @ch of LUT @gamma at the 16-bit input @v, interpolated */
static uint32_t vdxg_lut(const VdxgColor *col, unsigned int gamma,
                         unsigned int ch, uint32_t v)
{
    uint32_t p = v * 255, i = p / 65535, f = p % 65535;
    uint64_t lo, hi;

    if (i == VDXG_LUT_SIZE - 1) {
        return col->lut[VDXG_LUT_WORD(gamma, i, ch)];
    }
    lo = col->lut[VDXG_LUT_WORD(gamma, i, ch)];
    hi = col->lut[VDXG_LUT_WORD(gamma, i + 1, ch)];
    return (lo * (65535 - f) + hi * f + 32767) / 65535;
}

/* The output channel of the last 16-bit value @v */
static uint32_t vdxg_color_out(const VdxgColor *col, unsigned int ch,
                               uint32_t v)
{
    if (col->ctrl & VDXG_COLOR_GAMMA) {
        v = vdxg_lut(col, 1, ch, v);
    }
    return (v * 255 + 32767) / 65535;
}

bool vdxg_color_on(const VdxgCrtc *c)
{
    return c->acolor.ctrl != 0;
}

/*
 * How much more a pixel costs with the pipeline on, in units of an
 * opaque plane's pixel, for the slicing of compositions.
 */
unsigned int vdxg_color_weight(const VdxgCrtc *c)
{
    if (c->acolor.ctrl & VDXG_COLOR_CTM) {
        return 8;
    }
    return vdxg_color_on(c) ? 1 : 0;
}

/* Latch the pending colour registers and derive the tables. */
void vdxg_color_latch(VdxgCrtc *c)
{
    c->acolor = c->color;
    vdxg_color_post_load(c);
}

/* Derive the tables of the latched pipeline; false if it is not one. */
bool vdxg_color_post_load(VdxgCrtc *c)
{
    const VdxgColor *col = &c->acolor;
    unsigned int ch, i;
    uint32_t v;

    if (col->ctrl & ~VDXG_COLOR_CTRL_MASK) {
        return false;
    }
    for (ch = 0; ch < 3; ch++) {
        for (i = 0; i < 256; i++) {
            v = i * 257;
            if (col->ctrl & VDXG_COLOR_DEGAMMA) {
                v = vdxg_lut(col, 0, ch, v);
            }
            c->color16[ch][i] = v;
            c->color8[ch][i] = vdxg_color_out(col, ch, v);
        }
    }
    return true;
}

/* @acc, S15.16 times 16-bit values, back to 16 bits: rounded, clamped */
static uint32_t vdxg_ctm_out(int64_t acc)
{
    int64_t v = (acc + 32768) >> 16;    /* floor: arithmetic shift */

    return MIN(MAX(v, 0), 65535);
}

/* Put the @n XRGB8888 pixels of @row (X = 0) through the pipeline. */
void vdxg_color_row(const VdxgCrtc *c, uint32_t *row, size_t n)
{
    const VdxgColor *col = &c->acolor;
    const int32_t *m = col->ctm;
    uint32_t in[3], out;
    unsigned int ch;
    size_t k;

    if (!(col->ctrl & VDXG_COLOR_CTM)) {
        for (k = 0; k < n; k++) {
            uint32_t px = row[k];

            row[k] = c->color8[0][extract32(px, 16, 8)] << 16 |
                     c->color8[1][extract32(px, 8, 8)] << 8 |
                     c->color8[2][extract32(px, 0, 8)];
        }
        return;
    }
    for (k = 0; k < n; k++) {
        /* Channel 0 is red, bits 23:16 of the pixel */
        for (ch = 0; ch < 3; ch++) {
            in[ch] = c->color16[ch][extract32(row[k], 16 - ch * 8, 8)];
        }
        out = 0;
        for (ch = 0; ch < 3; ch++) {
            int64_t acc = (int64_t)m[ch * 3] * in[0] +
                          (int64_t)m[ch * 3 + 1] * in[1] +
                          (int64_t)m[ch * 3 + 2] * in[2];

            out |= vdxg_color_out(col, ch, vdxg_ctm_out(acc)) << (16 - ch * 8);
        }
        row[k] = out;
    }
}

const VMStateDescription vmstate_vdxg_color = {
    .name = "vdxg/color",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(ctrl, VdxgColor),
        VMSTATE_UINT16_ARRAY(lut, VdxgColor, VDXG_LUT_WORDS),
        VMSTATE_INT32_ARRAY(ctm, VdxgColor, 9),
        VMSTATE_END_OF_LIST()
    },
};
