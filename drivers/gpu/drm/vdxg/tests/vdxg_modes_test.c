// SPDX-License-Identifier: MIT
/*
 * KUnit tests for vdxg's mode check (vdxg_modes.c).
 *
 * Copyright 2026 The vdxg authors
 */

#include <kunit/test.h>

#include "vdxg_hw.h"
#include "vdxg_modes.h"

struct vdxg_mode_case {
	const char *name;
	struct drm_display_mode mode;
	enum drm_mode_status status;
};

/* A mode of pixel clock C (kHz), horizontal and vertical timings, flags */
#define M(c, hd, hss, hse, ht, vd, vss, vse, vt, f) \
	DRM_MODE("", 0, c, hd, hss, hse, ht, 0, vd, vss, vse, vt, 0, f)
/* 1024x768@60 (DMT) with another clock, htotal, vtotal */
#define M1024(c, ht, vt) M(c, 1024, 1048, 1184, ht, 768, 771, 777, vt, 0)

static const struct vdxg_mode_case vdxg_mode_cases[] = {
	{ "1024x768@60", { M1024(65000, 1344, 806) }, MODE_OK },
	{ "interlaced", { M(65000, 1024, 1048, 1184, 1344, 768, 771, 777, 806,
			    DRM_MODE_FLAG_INTERLACE) }, MODE_NO_INTERLACE },
	{ "doublescan", { M(65000, 1024, 1048, 1184, 1344, 768, 771, 777, 806,
			    DRM_MODE_FLAG_DBLSCAN) }, MODE_NO_DBLESCAN },
	{ "vscan 2", { DRM_MODE("", 0, 65000, 1024, 1048, 1184, 1344, 0, 768,
				771, 777, 806, 2, 0) }, MODE_NO_VSCAN },
	{ "vscan 1", { DRM_MODE("", 0, 65000, 1024, 1048, 1184, 1344, 0, 768,
				771, 777, 806, 1, 0) }, MODE_OK },
	{ "hdisplay 0", { M(65000, 0, 1048, 1184, 1344, 768, 771, 777, 806, 0) },
	  MODE_BAD_HVALUE },
	{ "hdisplay 4096", { M(200000, 4096, 4096, 4096, 4096, 768, 771, 777,
			       806, 0) }, MODE_OK },
	{ "hdisplay 4097", { M(200000, 4097, 4097, 4097, 4097, 768, 771, 777,
			       806, 0) }, MODE_BAD_HVALUE },
	{ "vdisplay 0", { M(65000, 1024, 1048, 1184, 1344, 0, 771, 777, 806, 0) },
	  MODE_BAD_VVALUE },
	{ "vdisplay 4097", { M(65000, 1024, 1048, 1184, 1344, 4097, 4097, 4097,
			       4097, 0) }, MODE_BAD_VVALUE },
	{ "hsync_start < hdisplay", { M(65000, 1024, 1023, 1184, 1344, 768, 771,
					777, 806, 0) }, MODE_H_ILLEGAL },
	{ "hsync_end < hsync_start", { M(65000, 1024, 1048, 1047, 1344, 768,
					 771, 777, 806, 0) }, MODE_H_ILLEGAL },
	{ "htotal < hsync_end", { M1024(65000, 1183, 806) }, MODE_H_ILLEGAL },
	{ "htotal 8193", { M1024(65000, 8193, 806) }, MODE_H_ILLEGAL },
	{ "vsync_start < vdisplay", { M(65000, 1024, 1048, 1184, 1344, 768, 767,
					777, 806, 0) }, MODE_V_ILLEGAL },
	{ "vsync_end < vsync_start", { M(65000, 1024, 1048, 1184, 1344, 768,
					 771, 770, 806, 0) }, MODE_V_ILLEGAL },
	{ "vtotal < vsync_end", { M1024(65000, 1344, 776) }, MODE_V_ILLEGAL },
	{ "vtotal 8193", { M1024(65000, 1344, 8193) }, MODE_V_ILLEGAL },
	{ "clock 0", { M1024(0, 1344, 806) }, MODE_CLOCK_LOW },
	{ "clock -1", { M1024(-1, 1344, 806) }, MODE_CLOCK_LOW },
	{ "clock 1.2 GHz", { M1024(VDXG_MODE_MAX_CLOCK_KHZ, 8192, 806) },
	  MODE_OK },
	{ "clock above 1.2 GHz", { M1024(VDXG_MODE_MAX_CLOCK_KHZ + 1, 8192,
					 806) }, MODE_CLOCK_HIGH },
	{ "clock INT_MAX", { M1024(INT_MAX, 1344, 806) }, MODE_CLOCK_HIGH },
	/* 750 x 800 pixels at 600 MHz: a frame of exactly 1 ms */
	{ "1000 Hz", { M(600000, 750, 750, 750, 750, 768, 768, 768, 800, 0) },
	  MODE_OK },
	{ "above 1000 Hz", { M(600000, 749, 749, 749, 749, 768, 768, 768, 800,
			       0) }, MODE_VSYNC },
	/* 1344 x 806 pixels: 999.3 ms at 1084 kHz, 1.0002 s at 1083 kHz */
	{ "1 Hz", { M1024(1084, 1344, 806) }, MODE_OK },
	{ "below 1 Hz", { M1024(1083, 1344, 806) }, MODE_VSYNC },
};

static void vdxg_mode_case_desc(const struct vdxg_mode_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(vdxg_mode, vdxg_mode_cases, vdxg_mode_case_desc);

static void vdxg_mode_status_test(struct kunit *test)
{
	const struct vdxg_mode_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, vdxg_mode_status(&c->mode), c->status);
}

static struct kunit_case vdxg_modes_tests[] = {
	KUNIT_CASE_PARAM(vdxg_mode_status_test, vdxg_mode_gen_params),
	{}
};

static struct kunit_suite vdxg_modes_suite = {
	.name = "vdxg_modes",
	.test_cases = vdxg_modes_tests,
};

kunit_test_suite(vdxg_modes_suite);
