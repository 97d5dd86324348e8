// SPDX-License-Identifier: MIT
/*
 * KUnit tests for the rows a commit changes (vdxg_damage.c).
 *
 * Copyright 2026 The vdxg authors
 */

#include <kunit/test.h>

#include <drm/drm_blend.h>
#include <drm/drm_crtc.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_plane.h>
#include <drm/drm_rect.h>

#include "vdxg_damage.h"

struct vdxg_damage_ctx {
	struct drm_crtc crtc, other;
	struct drm_framebuffer fb_a, fb_b;
	struct drm_plane_state old, new;
	struct vdxg_damage d;
};

/* A plane state showing @fb's rows from @sy at frame rows from @dy */
static void vdxg_damage_state(struct drm_plane_state *ps,
			      struct drm_crtc *crtc,
			      struct drm_framebuffer *fb, int sy, int dy, int w,
			      int h)
{
	memset(ps, 0, sizeof(*ps));
	ps->crtc = crtc;
	ps->fb = fb;
	ps->visible = true;
	ps->rotation = DRM_MODE_ROTATE_0;
	ps->alpha = DRM_BLEND_ALPHA_OPAQUE;
	ps->pixel_blend_mode = DRM_MODE_BLEND_PREMULTI;
	ps->src_y = sy << 16;
	ps->src_w = w << 16;
	ps->src_h = h << 16;
	ps->crtc_y = dy;
	ps->crtc_w = w;
	ps->crtc_h = h;
	drm_rect_init(&ps->src, 0, sy << 16, w << 16, h << 16);
	drm_rect_init(&ps->dst, 0, dy, w, h);
}

static int vdxg_damage_test_init(struct kunit *test)
{
	struct vdxg_damage_ctx *x = kunit_kzalloc(test, sizeof(*x), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, x);
	x->fb_a.format = drm_format_info(DRM_FORMAT_XRGB8888);
	x->fb_a.pitches[0] = 1024 * 4;
	x->fb_b = x->fb_a;
	/* A 1024 x 300 plane at frame row 100, showing fb rows from 20 */
	vdxg_damage_state(&x->old, &x->crtc, &x->fb_a, 20, 100, 1024, 300);
	vdxg_damage_state(&x->new, &x->crtc, &x->fb_b, 20, 100, 1024, 300);
	vdxg_damage_init(&x->d);
	test->priv = x;
	return 0;
}

static void vdxg_expect_rows(struct kunit *test, const struct vdxg_damage *d,
			     int y1, int y2)
{
	KUNIT_EXPECT_EQ(test, d->y1, y1);
	KUNIT_EXPECT_EQ(test, d->y2, y2);
}

/* Damage in fb rows 30 to 39 is frame rows 110 to 119 */
static void vdxg_damage_clip_test(struct kunit *test)
{
	struct vdxg_damage_ctx *x = test->priv;
	const struct drm_rect clip = DRM_RECT_INIT(10, 30, 40, 10);

	vdxg_damage_plane(&x->d, &x->crtc, &x->old, &x->new, &clip);
	vdxg_expect_rows(test, &x->d, 110, 120);
}

/* Damage reaching out of the plane is cut to the plane's rows */
static void vdxg_damage_clip_cut_test(struct kunit *test)
{
	struct vdxg_damage_ctx *x = test->priv;
	const struct drm_rect clip = DRM_RECT_INIT(0, 0, 1024, 1000);

	vdxg_damage_plane(&x->d, &x->crtc, &x->old, &x->new, &clip);
	vdxg_expect_rows(test, &x->d, 100, 400);
}

/* No damage (clips outside the source, say): nothing changes */
static void vdxg_damage_none_test(struct kunit *test)
{
	struct vdxg_damage_ctx *x = test->priv;

	vdxg_damage_plane(&x->d, &x->crtc, &x->old, &x->new, NULL);
	KUNIT_EXPECT_GE(test, x->d.y1, x->d.y2);
}

/* The whole source (no clips): the whole plane */
static void vdxg_damage_whole_test(struct kunit *test)
{
	struct vdxg_damage_ctx *x = test->priv;
	const struct drm_rect clip = DRM_RECT_INIT(0, 20, 1024, 300);

	vdxg_damage_plane(&x->d, &x->crtc, &x->old, &x->new, &clip);
	vdxg_expect_rows(test, &x->d, 100, 400);
}

/* A plane that moves: the rows it covered and those it covers */
static void vdxg_damage_move_test(struct kunit *test)
{
	struct vdxg_damage_ctx *x = test->priv;
	const struct drm_rect clip = DRM_RECT_INIT(0, 30, 8, 1);

	vdxg_damage_state(&x->new, &x->crtc, &x->fb_b, 20, 500, 1024, 100);
	vdxg_damage_plane(&x->d, &x->crtc, &x->old, &x->new, &clip);
	vdxg_expect_rows(test, &x->d, 100, 600);
}

/* Drawn otherwise (alpha, format): all its rows, damage or not */
static void vdxg_damage_look_test(struct kunit *test)
{
	struct vdxg_damage_ctx *x = test->priv;
	const struct drm_rect clip = DRM_RECT_INIT(0, 30, 8, 1);

	x->new.alpha = 0x8000;
	vdxg_damage_plane(&x->d, &x->crtc, &x->old, &x->new, &clip);
	vdxg_expect_rows(test, &x->d, 100, 400);
	vdxg_damage_init(&x->d);
	x->new.alpha = x->old.alpha;
	x->fb_b.format = drm_format_info(DRM_FORMAT_ARGB8888);
	vdxg_damage_plane(&x->d, &x->crtc, &x->old, &x->new, NULL);
	vdxg_expect_rows(test, &x->d, 100, 400);
}

/* A plane turned off: the rows it covered; one that stays off: none */
static void vdxg_damage_off_test(struct kunit *test)
{
	struct vdxg_damage_ctx *x = test->priv;

	x->new.visible = false;
	vdxg_damage_plane(&x->d, &x->crtc, &x->old, &x->new, NULL);
	vdxg_expect_rows(test, &x->d, 100, 400);
	vdxg_damage_init(&x->d);
	x->old.visible = false;
	vdxg_damage_plane(&x->d, &x->crtc, &x->old, &x->new, NULL);
	KUNIT_EXPECT_GE(test, x->d.y1, x->d.y2);
}

/* A plane of another CRTC; one that moves to this one from another */
static void vdxg_damage_other_crtc_test(struct kunit *test)
{
	struct vdxg_damage_ctx *x = test->priv;
	const struct drm_rect clip = DRM_RECT_INIT(0, 30, 8, 1);

	x->old.crtc = &x->other;
	x->new.crtc = &x->other;
	vdxg_damage_plane(&x->d, &x->crtc, &x->old, &x->new, &clip);
	KUNIT_EXPECT_GE(test, x->d.y1, x->d.y2);
	x->new.crtc = &x->crtc;
	vdxg_damage_plane(&x->d, &x->crtc, &x->old, &x->new, &clip);
	vdxg_expect_rows(test, &x->d, 100, 400);
}

/* Turned by 180 or scaled: damage stands for all the plane's rows */
static void vdxg_damage_not_row_for_row_test(struct kunit *test)
{
	struct vdxg_damage_ctx *x = test->priv;
	const struct drm_rect clip = DRM_RECT_INIT(0, 30, 8, 1);

	x->old.rotation = DRM_MODE_ROTATE_180;
	x->new.rotation = DRM_MODE_ROTATE_180;
	vdxg_damage_plane(&x->d, &x->crtc, &x->old, &x->new, &clip);
	vdxg_expect_rows(test, &x->d, 100, 400);

	/* Reflected in X only: rows are rows */
	vdxg_damage_init(&x->d);
	x->old.rotation = DRM_MODE_ROTATE_0 | DRM_MODE_REFLECT_X;
	x->new.rotation = DRM_MODE_ROTATE_0 | DRM_MODE_REFLECT_X;
	vdxg_damage_plane(&x->d, &x->crtc, &x->old, &x->new, &clip);
	vdxg_expect_rows(test, &x->d, 110, 111);

	/* 300 source rows scaled to 600 */
	vdxg_damage_init(&x->d);
	x->old.dst.y2 = 700;
	x->new.dst.y2 = 700;
	vdxg_damage_plane(&x->d, &x->crtc, &x->old, &x->new, &clip);
	vdxg_expect_rows(test, &x->d, 100, 700);
}

/* Two planes: the rows of both */
static void vdxg_damage_union_test(struct kunit *test)
{
	struct vdxg_damage_ctx *x = test->priv;
	const struct drm_rect clip = DRM_RECT_INIT(0, 30, 8, 1);
	struct drm_plane_state o2, n2;

	vdxg_damage_state(&o2, &x->crtc, &x->fb_a, 0, 600, 64, 64);
	vdxg_damage_state(&n2, &x->crtc, &x->fb_b, 0, 650, 64, 64);
	vdxg_damage_plane(&x->d, &x->crtc, &x->old, &x->new, &clip);
	vdxg_damage_plane(&x->d, &x->crtc, &o2, &n2, NULL);
	vdxg_expect_rows(test, &x->d, 110, 714);
}

static struct kunit_case vdxg_damage_cases[] = {
	KUNIT_CASE(vdxg_damage_clip_test),
	KUNIT_CASE(vdxg_damage_clip_cut_test),
	KUNIT_CASE(vdxg_damage_none_test),
	KUNIT_CASE(vdxg_damage_whole_test),
	KUNIT_CASE(vdxg_damage_move_test),
	KUNIT_CASE(vdxg_damage_look_test),
	KUNIT_CASE(vdxg_damage_off_test),
	KUNIT_CASE(vdxg_damage_other_crtc_test),
	KUNIT_CASE(vdxg_damage_not_row_for_row_test),
	KUNIT_CASE(vdxg_damage_union_test),
	{}
};

static struct kunit_suite vdxg_damage_suite = {
	.name = "vdxg_damage",
	.init = vdxg_damage_test_init,
	.test_cases = vdxg_damage_cases,
};

kunit_test_suite(vdxg_damage_suite);
