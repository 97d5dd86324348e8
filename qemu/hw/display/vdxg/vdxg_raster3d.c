/*
 * vdxg: the 3D pipeline's clipping and rasterization
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "vdxg_fp.h"
#include <math.h>
#include "qemu/bitops.h"
#include "vdxg_raster3d.h"

/* Work charged per quad tried (the shading is charged by the callback) */
#define VDXG_COST_QUAD          (4 * VDXG_COST_PIXEL)

#define COMPS   (4 + 1 + VDXG_3D_VARY_COMPS)

static inline float *comps(VdxgClipVert *v)
{
    return v->pos;
}

bool vdxg_pos_finite(const VdxgClipVert *v)
{
    return isfinite(v->pos[0]) && isfinite(v->pos[1]) &&
           isfinite(v->pos[2]) && isfinite(v->pos[3]);
}

/* The signed distance to clip plane @k (0 to 5), guard band @g */
static float vdxg_plane_d(const VdxgClipVert *v, unsigned int k, float g)
{
    float w = v->pos[3], gw = g * w;

    switch (k) {
    case 0:
        return gw - v->pos[0];
    case 1:
        return gw + v->pos[0];
    case 2:
        return gw - v->pos[1];
    case 3:
        return gw + v->pos[1];
    case 4:
        return w - v->pos[2];
    default:
        return w + v->pos[2];
    }
}

/* The intersection from inside vertex @i to outside vertex @o */
static void vdxg_isect(const VdxgClipVert *i, float di, const VdxgClipVert *o,
                       float dout, VdxgClipVert *r)
{
    const float *a = i->pos, *b = o->pos;
    float *c = r->pos, t = di - dout;
    unsigned int k;

    t = di / t;
    for (k = 0; k < COMPS; k++) {
        float d = b[k] - a[k];

        d = t * d;
        c[k] = a[k] + d;
    }
}

unsigned int vdxg_clip_tri(const VdxgClipVert *in, VdxgClipVert *out)
{
    VdxgClipVert buf[2][VDXG_3D_CLIP_MAX];
    float d[VDXG_3D_CLIP_MAX];
    unsigned int n = 3, k, i, m, cur = 0;
    bool inside = true;

    for (k = 0; k < 6 && inside; k++) {
        for (i = 0; i < 3; i++) {
            if (!(vdxg_plane_d(&in[i], k, VDXG_3D_GUARD_BAND) >= 0)) {
                inside = false;
            }
        }
    }
    memcpy(buf[0], in, 3 * sizeof(*in));
    if (!inside) {
        for (k = 0; k < 6; k++) {
            const VdxgClipVert *p = buf[cur];
            VdxgClipVert *q = buf[cur ^ 1];

            for (i = 0; i < n; i++) {
                d[i] = vdxg_plane_d(&p[i], k, VDXG_3D_GUARD_BAND);
            }
            m = 0;
            for (i = 0; i < n; i++) {
                unsigned int j = (i + 1) % n;
                bool ci = d[i] >= 0, cj = d[j] >= 0;

                if (ci) {
                    q[m++] = p[i];
                }
                if (ci != cj) {
                    if (ci) {
                        vdxg_isect(&p[i], d[i], &p[j], d[j], &q[m++]);
                    } else {
                        vdxg_isect(&p[j], d[j], &p[i], d[i], &q[m++]);
                    }
                }
            }
            n = m;
            cur ^= 1;
            if (n < 3) {
                return 0;
            }
        }
    }
    memcpy(out, buf[cur], n * sizeof(*out));
    return n;
}

unsigned int vdxg_clip_line(const VdxgClipVert *in, VdxgClipVert *out)
{
    VdxgClipVert t;
    unsigned int k;
    float d0, d1;

    out[0] = in[0];
    out[1] = in[1];
    for (k = 0; k < 6; k++) {
        d0 = vdxg_plane_d(&out[0], k, VDXG_3D_GUARD_BAND);
        d1 = vdxg_plane_d(&out[1], k, VDXG_3D_GUARD_BAND);
        if (d0 >= 0 && d1 >= 0) {
            continue;
        }
        if (!(d0 >= 0) && !(d1 >= 0)) {
            return 0;
        }
        if (d0 >= 0) {
            vdxg_isect(&out[0], d0, &out[1], d1, &t);
            out[1] = t;
        } else {
            vdxg_isect(&out[1], d1, &out[0], d0, &t);
            out[0] = t;
        }
    }
    return 2;
}

bool vdxg_point_visible(const VdxgClipVert *v)
{
    unsigned int k;

    for (k = 0; k < 6; k++) {
        if (!(vdxg_plane_d(v, k, 1.0f) >= 0)) {
            return false;
        }
    }
    return true;
}

static int64_t vdxg_snap(float v)
{
    v = v * 256.0f;
    v = v + 0.5f;
    return vdxg_floor_int(v, -(1 << 24), 1 << 24);
}

bool vdxg_to_window(const VdxgRaster3d *ra, const VdxgClipVert *c,
                    VdxgWinVert *w, bool point)
{
    float iw, xd, yd, zd, t;
    unsigned int k;

    if (!(c->pos[3] > 0) || !isfinite(c->pos[3])) {
        return false;
    }
    iw = 1.0f / c->pos[3];
    xd = c->pos[0] * iw;
    yd = c->pos[1] * iw;
    zd = c->pos[2] * iw;
    t = xd * ra->vp_scale[0];
    w->x8 = vdxg_snap(t + ra->vp_trans[0]);
    t = yd * ra->vp_scale[1];
    w->y8 = vdxg_snap(t + ra->vp_trans[1]);
    t = zd * ra->vp_scale[2];
    w->z = t + ra->vp_trans[2];
    w->iw = iw;
    w->psize = c->psize;
    for (k = 0; k < VDXG_3D_VARY_COMPS; k++) {
        if (ra->vary_mask & BIT_ULL(k)) {
            w->vary[k] = point ? c->vary[k] : c->vary[k] * iw;
        }
    }
    return true;
}

static inline int64_t vdxg_edge(const VdxgWinVert *a, const VdxgWinVert *b,
                                int64_t px, int64_t py)
{
    return (b->x8 - a->x8) * (py - a->y8) - (b->y8 - a->y8) * (px - a->x8);
}

bool vdxg_tri_face(const VdxgRaster3d *ra, const VdxgWinVert *v0,
                   const VdxgWinVert *v1, const VdxgWinVert *v2,
                   bool *front)
{
    int64_t area = vdxg_edge(v0, v1, v2->x8, v2->y8);
    bool ccw = area < 0;

    if (!area) {
        return false;
    }
    *front = (ra->raster & VDXG_RASTER_FRONT_CW) ? !ccw : ccw;
    if ((*front && (ra->raster & VDXG_RASTER_CULL_FRONT)) ||
        (!*front && (ra->raster & VDXG_RASTER_CULL_BACK))) {
        return false;
    }
    return true;
}

/* floor(a / b) for b > 0 */
static inline int64_t vdxg_floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;

    return (a % b && a < 0) ? q - 1 : q;
}

/* ceil(a / b) for b > 0 */
static inline int64_t vdxg_ceildiv(int64_t a, int64_t b)
{
    return -vdxg_floordiv(-a, b);
}

/* The pixels whose centre lies in [lo, hi] (subpixels), in [p0, p1) */
static void vdxg_px_range(int64_t lo, int64_t hi, int64_t p0, int64_t p1,
                          int64_t *a, int64_t *b)
{
    *a = MAX(vdxg_ceildiv(lo - 128, 256), p0);
    *b = MIN(vdxg_floordiv(hi - 128, 256), p1 - 1);
}

/* Fill the fragment inputs common to every primitive of lane @l */
static void vdxg_lane_pos(const VdxgRaster3d *ra, unsigned int l, int64_t px,
                          int64_t py, float z, float pw, bool front)
{
    VdxgShChan *in = ra->in[VDXG_FS_IN_POSITION];

    in[0][l] = (float)px + 0.5f;
    in[1][l] = (float)py + 0.5f;
    in[2][l] = z;
    in[3][l] = pw;
    in = ra->in[VDXG_FS_IN_FACE];
    in[0][l] = front ? 1.0f : -1.0f;
    in[1][l] = 0;
    in[2][l] = 0;
    in[3][l] = 1.0f;
}

static inline bool vdxg_in_rect(const VdxgRaster3d *ra, int64_t px,
                                int64_t py)
{
    return px >= ra->x0 && px < ra->x1 && py >= ra->y0 && py < ra->y1;
}

/*
 * The shading of a quad is charged by the callback, which returns
 * VDXG_RUN_YIELD when its program ran out of budget: the quad is drawn
 * again (its program resumed) when the primitive goes on.
 */
static VdxgRun vdxg_emit(const VdxgRaster3d *ra, const VdxgQuad *q)
{
    return ra->quad(ra->opaque, q);
}

/*
 * The pixels of row @py that can be covered: [*lo, *hi], a superset of
 * those whose centre has every edge function >= 0 (the exact test, with
 * the fill rule, is made pixel by pixel). Each edge bounds the centre's x
 * on one side; a horizontal edge empties the row or leaves it whole.
 * Products are as large as the edge function's own, within 64 bits.
 */
static void vdxg_row_span(const VdxgWinVert *const v[3], int64_t py,
                          int64_t *lo, int64_t *hi)
{
    int64_t cy = py * 256 + 128, xmin = INT64_MIN, xmax = INT64_MAX;
    unsigned int e;

    for (e = 0; e < 3; e++) {
        const VdxgWinVert *a = v[(e + 1) % 3], *b = v[(e + 2) % 3];
        int64_t dx = b->x8 - a->x8, dy = b->y8 - a->y8;
        int64_t n = dx * (cy - a->y8);

        if (dy == 0) {
            if (n < 0) {
                *lo = 1;
                *hi = 0;
                return;
            }
        } else if (dy > 0) {
            /* dy (cx - a.x) <= n */
            xmax = MIN(xmax, a->x8 + vdxg_floordiv(n, dy));
        } else {
            /* -dy (cx - a.x) >= -n */
            xmin = MAX(xmin, a->x8 + vdxg_ceildiv(-n, -dy));
        }
    }
    /* Centres 256 px + 128 in [xmin, xmax] */
    *lo = xmin == INT64_MIN ? INT64_MIN : vdxg_ceildiv(xmin - 128, 256);
    *hi = xmax == INT64_MAX ? INT64_MAX : vdxg_floordiv(xmax - 128, 256);
}

/*
 * The fragment inputs of the four lanes of quad @q of the triangle @v
 * (the lanes' w0, w1, w2 @w, area @a as a float, window Z @pz, polygon
 * offset @o), and their depths: each step is the same binary32 operation
 * on every lane.
 */
static void vdxg_tri_lanes(const VdxgRaster3d *ra, const VdxgWinVert **v,
                           const int64_t (*w)[3], float a, const float *pz,
                           float o, VdxgQuad *q)
{
    VdxgShChan l0, l1, l2, pw, r, z, s, t;
    uint64_t m = ra->vary_mask;
    unsigned int l, k;

    for (l = 0; l < VDXG_SH_LANES; l++) {
        l1[l] = (float)w[l][1];
        l2[l] = (float)w[l][2];
    }
    l1 = l1 / vdxg_sh_splat(a);
    l2 = l2 / vdxg_sh_splat(a);
    l0 = vdxg_sh_splat(1.0f) - l1;
    l0 = l0 - l2;
    pw = l0 * vdxg_sh_splat(v[0]->iw);
    t = l1 * vdxg_sh_splat(v[1]->iw);
    pw = pw + t;
    t = l2 * vdxg_sh_splat(v[2]->iw);
    pw = pw + t;
    r = vdxg_sh_splat(1.0f) / pw;
    for (; m; m &= m - 1) {
        k = ctz64(m);
        s = l0 * vdxg_sh_splat(v[0]->vary[k]);
        t = l1 * vdxg_sh_splat(v[1]->vary[k]);
        s = s + t;
        t = l2 * vdxg_sh_splat(v[2]->vary[k]);
        s = s + t;
        ra->in[k / 4][k % 4] = s * r;
    }
    z = l0 * vdxg_sh_splat(pz[0]);
    t = l1 * vdxg_sh_splat(pz[1]);
    z = z + t;
    t = l2 * vdxg_sh_splat(pz[2]);
    z = z + t;
    for (l = 0; l < VDXG_SH_LANES; l++) {
        vdxg_lane_pos(ra, l, q->qx + (l & 1), q->qy + (l >> 1), z[l], pw[l],
                      q->front);
        q->z[l] = (ra->raster & VDXG_RASTER_POLY_OFFSET) ? z[l] + o : z[l];
    }
}

VdxgRun vdxg_tri_raster(const VdxgRaster3d *ra, const VdxgWinVert *v0,
                        const VdxgWinVert *v1, const VdxgWinVert *v2,
                        uint64_t *progress)
{
    const VdxgWinVert *v[3] = { v0, v1, v2 };
    int64_t area = vdxg_edge(v0, v1, v2->x8, v2->y8), w[4][3], px0, px1, py0;
    int64_t py1, qx0, qy0, nqx, nqy, mnx, mxx, mny, mxy;
    int64_t row, span_lo = 0, span_hi = -1;
    bool owns[3], front;
    float a, o = 0, pz[3];
    uint64_t idx, row_end = 0;
    unsigned int e, l, k;
    VdxgQuad q;

    if (!area) {
        return VDXG_RUN_DONE;
    }
    front = (ra->raster & VDXG_RASTER_FRONT_CW) ? area > 0 : area < 0;
    if (area < 0) {
        v[1] = v2;
        v[2] = v1;
        area = -area;
    }
    for (e = 0; e < 3; e++) {
        const VdxgWinVert *ea = v[(e + 1) % 3], *eb = v[(e + 2) % 3];
        int64_t dy = eb->y8 - ea->y8, dx = eb->x8 - ea->x8;

        owns[e] = dy < 0 || (dy == 0 && dx > 0);
    }
    mnx = MIN(MIN(v[0]->x8, v[1]->x8), v[2]->x8);
    mxx = MAX(MAX(v[0]->x8, v[1]->x8), v[2]->x8);
    mny = MIN(MIN(v[0]->y8, v[1]->y8), v[2]->y8);
    mxy = MAX(MAX(v[0]->y8, v[1]->y8), v[2]->y8);
    vdxg_px_range(mnx, mxx, ra->x0, ra->x1, &px0, &px1);
    vdxg_px_range(mny, mxy, ra->y0, ra->y1, &py0, &py1);
    if (px0 > px1 || py0 > py1) {
        return VDXG_RUN_DONE;
    }
    if (ra->raster & VDXG_RASTER_POLY_OFFSET) {
        float fx[3], fy[3], ex1, ey1, ex2, ey2, ez1, ez2, den, t, u, dzdx;
        float dzdy, dz;

        for (k = 0; k < 3; k++) {
            fx[k] = (float)v[k]->x8 / 256.0f;
            fy[k] = (float)v[k]->y8 / 256.0f;
        }
        ex1 = fx[1] - fx[0];
        ey1 = fy[1] - fy[0];
        ex2 = fx[2] - fx[0];
        ey2 = fy[2] - fy[0];
        ez1 = v[1]->z - v[0]->z;
        ez2 = v[2]->z - v[0]->z;
        t = ex1 * ey2;
        u = ex2 * ey1;
        den = t - u;
        t = ez1 * ey2;
        u = ez2 * ey1;
        dzdx = (t - u) / den;
        t = ex1 * ez2;
        u = ex2 * ez1;
        dzdy = (t - u) / den;
        dzdx = fabsf(dzdx);
        dzdy = fabsf(dzdy);
        dz = dzdx > dzdy ? dzdx : dzdy;
        if (isnan(dz)) {
            dz = 0;
        }
        t = dz * ra->po_factor;
        u = ra->po_rd * ra->po_units;
        o = t + u;
    }
    a = (float)area;
    for (k = 0; k < 3; k++) {
        pz[k] = v[k]->z;
    }
    qx0 = px0 & ~1ll;
    qy0 = py0 & ~1ll;
    nqx = (px1 - qx0) / 2 + 1;
    nqy = (py1 - qy0) / 2 + 1;
    q.front = front;
    /*
     * The quads in the bounding box, row by row, from where the primitive
     * stopped; those of a row outside its span (vdxg_row_span) are
     * skipped uncharged, the span itself costs a quad.
     */
    row = -1;
    for (idx = *progress; idx < (uint64_t)(nqx * nqy); idx++) {
        int64_t qxi;

        if (*ra->budget <= 0) {
            *progress = idx;
            return VDXG_RUN_YIELD;
        }
        if (row < 0 || idx >= row_end) {
            int64_t lo0, hi0, lo1, hi1;

            *ra->budget -= VDXG_COST_QUAD;
            row = idx / nqx;
            row_end = (uint64_t)(row + 1) * nqx;
            q.qy = qy0 + 2 * row;
            vdxg_row_span(v, q.qy, &lo0, &hi0);
            vdxg_row_span(v, q.qy + 1, &lo1, &hi1);
            if (lo0 > hi0) {
                lo0 = lo1;
                hi0 = hi1;
            } else if (lo1 <= hi1) {
                lo0 = MIN(lo0, lo1);
                hi0 = MAX(hi0, hi1);
            }
            if (lo0 > hi0 || hi0 < qx0 || lo0 > qx0 + 2 * (nqx - 1) + 1) {
                span_lo = 1;
                span_hi = 0;
            } else {
                span_lo = MAX(lo0, qx0);
                span_lo = (span_lo - qx0) / 2;
                span_hi = (MIN(hi0, qx0 + 2 * (nqx - 1) + 1) - qx0) / 2;
            }
        }
        qxi = idx - (row_end - nqx);
        if (qxi < span_lo) {
            idx += span_lo - qxi - 1;
            continue;
        }
        if (qxi > span_hi) {
            idx = row_end - 1;
            continue;
        }
        *ra->budget -= VDXG_COST_QUAD;
        q.qx = qx0 + 2 * qxi;
        q.covered = 0;
        for (l = 0; l < 4; l++) {
            int64_t px = q.qx + (l & 1), py = q.qy + (l >> 1);
            int64_t cx = px * 256 + 128, cy = py * 256 + 128;

            for (e = 0; e < 3; e++) {
                w[l][e] = vdxg_edge(v[(e + 1) % 3], v[(e + 2) % 3], cx, cy);
            }
            if (!vdxg_in_rect(ra, px, py)) {
                continue;
            }
            for (e = 0; e < 3; e++) {
                if (w[l][e] < 0 || (w[l][e] == 0 && !owns[e])) {
                    break;
                }
            }
            if (e == 3) {
                q.covered |= BIT(l);
            }
        }
        if (!q.covered) {
            continue;
        }
        vdxg_tri_lanes(ra, v, w, a, pz, o, &q);
        switch (vdxg_emit(ra, &q)) {
        case VDXG_RUN_DONE:
            break;
        case VDXG_RUN_FAULT:
            *progress = idx;
            return VDXG_RUN_FAULT;
        default:
            *progress = idx;
            return VDXG_RUN_YIELD;
        }
    }
    *progress = idx;
    return VDXG_RUN_DONE;
}

/* The lanes of a line's quad */
static void vdxg_line_lanes(const VdxgRaster3d *ra, const VdxgWinVert *a,
                            const VdxgWinVert *b, VdxgQuad *q)
{
    float fdx = (float)(b->x8 - a->x8), fdy = (float)(b->y8 - a->y8);
    float den, t, u;
    unsigned int l, k;

    t = fdx * fdx;
    u = fdy * fdy;
    den = t + u;
    for (l = 0; l < 4; l++) {
        int64_t px = q->qx + (l & 1), py = q->qy + (l >> 1);
        int64_t cx = px * 256 + 128, cy = py * 256 + 128;
        float l0, l1, pw, r, z, s;

        t = (float)(cx - a->x8) * fdx;
        u = (float)(cy - a->y8) * fdy;
        l1 = t + u;
        l1 = l1 / den;
        l0 = 1.0f - l1;
        pw = l0 * a->iw;
        t = l1 * b->iw;
        pw = pw + t;
        r = 1.0f / pw;
        for (k = 0; k < VDXG_3D_VARY_COMPS; k++) {
            if (!(ra->vary_mask & BIT_ULL(k))) {
                continue;
            }
            s = l0 * a->vary[k];
            t = l1 * b->vary[k];
            s = s + t;
            ra->in[k / 4][k % 4][l] = s * r;
        }
        z = l0 * a->z;
        t = l1 * b->z;
        z = z + t;
        vdxg_lane_pos(ra, l, px, py, z, pw, true);
        q->z[l] = z;
    }
}

VdxgRun vdxg_line_raster(const VdxgRaster3d *ra, const VdxgWinVert *a,
                         const VdxgWinVert *b, uint64_t *progress)
{
    int64_t dx = b->x8 - a->x8, dy = b->y8 - a->y8, p0, p1, p, c, m, lo, hi;
    int64_t ax, ay, ad, md, x, y;
    bool xmajor = llabs(dx) >= llabs(dy);
    uint64_t idx, qstart = 0;
    VdxgQuad q;
    VdxgRun r;

    if (!dx && !dy) {
        return VDXG_RUN_DONE;
    }
    /* Along the major axis (x for an x-major line) */
    ax = xmajor ? a->x8 : a->y8;
    ay = xmajor ? a->y8 : a->x8;
    ad = xmajor ? dx : dy;
    md = xmajor ? dy : dx;
    if (ad > 0) {
        lo = ax;
        hi = ax + ad - 1;
    } else {
        lo = ax + ad + 1;
        hi = ax;
    }
    if (xmajor) {
        vdxg_px_range(lo, hi, ra->x0, ra->x1, &p0, &p1);
    } else {
        vdxg_px_range(lo, hi, ra->y0, ra->y1, &p0, &p1);
    }
    q.front = true;
    q.covered = 0;
    q.qx = q.qy = INT64_MIN;
    for (idx = *progress; p0 + (int64_t)idx <= p1; idx++) {
        if (*ra->budget <= 0 && !q.covered) {
            *progress = idx;
            return VDXG_RUN_YIELD;
        }
        *ra->budget -= VDXG_COST_PIXEL;
        p = p0 + idx;
        c = p * 256 + 128;
        m = ay + vdxg_floordiv((c - ax) * md, ad > 0 ? ad : -ad) *
                 (ad > 0 ? 1 : -1);
        /* floordiv((c - ax) * md, ad) with a negative ad */
        if (ad < 0) {
            m = ay + vdxg_floordiv(-(c - ax) * md, -ad);
        }
        x = xmajor ? p : vdxg_floordiv(m, 256);
        y = xmajor ? vdxg_floordiv(m, 256) : p;
        if (q.covered && ((x & ~1ll) != q.qx || (y & ~1ll) != q.qy)) {
            vdxg_line_lanes(ra, a, b, &q);
            r = vdxg_emit(ra, &q);
            q.covered = 0;
            if (r != VDXG_RUN_DONE) {
                /* A quad that yielded goes on from its first pixel. */
                *progress = r == VDXG_RUN_FAULT ? idx : qstart;
                return r;
            }
            if (*ra->budget <= 0) {
                *progress = idx;
                return VDXG_RUN_YIELD;
            }
        }
        if (!vdxg_in_rect(ra, x, y)) {
            continue;
        }
        if (!q.covered) {
            qstart = idx;
        }
        q.qx = x & ~1ll;
        q.qy = y & ~1ll;
        q.covered |= BIT((x & 1) | (y & 1) << 1);
    }
    if (q.covered) {
        vdxg_line_lanes(ra, a, b, &q);
        r = vdxg_emit(ra, &q);
        if (r != VDXG_RUN_DONE) {
            *progress = r == VDXG_RUN_FAULT ? idx : qstart;
            return r;
        }
    }
    *progress = idx;
    return VDXG_RUN_DONE;
}

VdxgRun vdxg_point_raster(const VdxgRaster3d *ra, const VdxgWinVert *v,
                          uint64_t *progress)
{
    float s = v->psize, t, h2;
    int64_t h, px0, px1, py0, py1, qx0, qy0, nqx, nqy;
    uint64_t idx;
    unsigned int l, k;
    VdxgQuad q;

    s = isnan(s) ? 1.0f : s < 1.0f ? 1.0f : s > 64.0f ? 64.0f : s;
    t = s * 128.0f;
    h = vdxg_floor_int(t + 0.5f, 0, 1 << 24);
    h2 = (float)(2 * h);
    vdxg_px_range(v->x8 - h, v->x8 + h - 1, ra->x0, ra->x1, &px0, &px1);
    vdxg_px_range(v->y8 - h, v->y8 + h - 1, ra->y0, ra->y1, &py0, &py1);
    if (px0 > px1 || py0 > py1) {
        return VDXG_RUN_DONE;
    }
    qx0 = px0 & ~1ll;
    qy0 = py0 & ~1ll;
    nqx = (px1 - qx0) / 2 + 1;
    nqy = (py1 - qy0) / 2 + 1;
    q.front = true;
    for (idx = *progress; idx < (uint64_t)(nqx * nqy); idx++) {
        VdxgRun r;

        if (*ra->budget <= 0) {
            *progress = idx;
            return VDXG_RUN_YIELD;
        }
        *ra->budget -= VDXG_COST_QUAD;
        q.qx = qx0 + 2 * (int64_t)(idx % nqx);
        q.qy = qy0 + 2 * (int64_t)(idx / nqx);
        q.covered = 0;
        for (l = 0; l < 4; l++) {
            int64_t px = q.qx + (l & 1), py = q.qy + (l >> 1);

            if (px >= px0 && px <= px1 && py >= py0 && py <= py1) {
                q.covered |= BIT(l);
            }
        }
        for (l = 0; l < 4; l++) {
            int64_t px = q.qx + (l & 1), py = q.qy + (l >> 1);
            VdxgShChan *pc = ra->in[VDXG_FS_IN_POINT_COORD];

            for (k = 0; k < VDXG_3D_VARY_COMPS; k++) {
                if (ra->vary_mask & BIT_ULL(k)) {
                    ra->in[k / 4][k % 4][l] = v->vary[k];
                }
            }
            vdxg_lane_pos(ra, l, px, py, v->z, v->iw, true);
            pc[0][l] = (float)(px * 256 + 128 - (v->x8 - h)) / h2;
            pc[1][l] = (float)(py * 256 + 128 - (v->y8 - h)) / h2;
            if (ra->raster & VDXG_RASTER_SPRITE_LOWER_LEFT) {
                pc[1][l] = 1.0f - pc[1][l];
            }
            pc[2][l] = 0;
            pc[3][l] = 1.0f;
            q.z[l] = v->z;
        }
        r = vdxg_emit(ra, &q);
        if (r != VDXG_RUN_DONE) {
            *progress = idx;
            return r == VDXG_RUN_FAULT ? VDXG_RUN_FAULT : VDXG_RUN_YIELD;
        }
    }
    *progress = idx;
    return VDXG_RUN_DONE;
}
