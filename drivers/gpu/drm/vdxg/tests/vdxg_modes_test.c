// SPDX-License-Identifier: MIT
/*
 * KUnit tests for vdxg's mode check (vdxg_modes.c).
 *
 * Copyright 2026 The vdxg authors
 */

#include <kunit/test.h>

#include <drm/drm_edid.h>

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

/* An EDID 1.4 base block with a range descriptor (third slot) */
static void vrr_edid(u8 *e, u8 flags, u8 min_hz, u8 max_hz)
{
	u8 *d = e + 54 + 2 * 18;

	memset(e, 0, EDID_LENGTH);
	e[18] = 1;
	e[19] = 4;
	d[3] = 0xfd;
	d[4] = flags;
	d[5] = min_hz;
	d[6] = max_hz;
}

static void vdxg_edid_vrr_range_test(struct kunit *test)
{
	u8 e[EDID_LENGTH];
	u32 lo = 0, hi = 0;

	vrr_edid(e, 0, 50, 125);
	KUNIT_ASSERT_TRUE(test, vdxg_edid_vrr_range(e, sizeof(e), &lo, &hi));
	KUNIT_EXPECT_EQ(test, lo, 50u);
	KUNIT_EXPECT_EQ(test, hi, 125u);
	/* Rates above 255 Hz: the offset flags */
	vrr_edid(e, 0x3, 10, 100);
	KUNIT_ASSERT_TRUE(test, vdxg_edid_vrr_range(e, sizeof(e), &lo, &hi));
	KUNIT_EXPECT_EQ(test, lo, 265u);
	KUNIT_EXPECT_EQ(test, hi, 355u);
	vrr_edid(e, 0x2, 48, 5);
	KUNIT_ASSERT_TRUE(test, vdxg_edid_vrr_range(e, sizeof(e), &lo, &hi));
	KUNIT_EXPECT_EQ(test, hi, 260u);

	/* Refused: min 0, min above max, EDID 1.3, short, no descriptor */
	lo = 7;
	hi = 7;
	vrr_edid(e, 0, 0, 60);
	KUNIT_EXPECT_FALSE(test, vdxg_edid_vrr_range(e, sizeof(e), &lo, &hi));
	vrr_edid(e, 0, 61, 60);
	KUNIT_EXPECT_FALSE(test, vdxg_edid_vrr_range(e, sizeof(e), &lo, &hi));
	vrr_edid(e, 0, 50, 125);
	e[19] = 3;
	KUNIT_EXPECT_FALSE(test, vdxg_edid_vrr_range(e, sizeof(e), &lo, &hi));
	vrr_edid(e, 0, 50, 125);
	KUNIT_EXPECT_FALSE(test, vdxg_edid_vrr_range(e, EDID_LENGTH - 1, &lo,
						     &hi));
	/* A detailed timing (pixel clock not 0) is not a descriptor */
	e[54 + 2 * 18] = 1;
	KUNIT_EXPECT_FALSE(test, vdxg_edid_vrr_range(e, sizeof(e), &lo, &hi));
	KUNIT_EXPECT_EQ(test, lo, 7u);
	KUNIT_EXPECT_EQ(test, hi, 7u);
}

static void vdxg_vrr_vtotal_max_test(struct kunit *test)
{
	struct drm_display_mode m = { M1024(65000, 1344, 806) };
	struct drm_display_mode fast = { M1024(VDXG_MODE_MAX_CLOCK_KHZ, 1344,
					       806) };

	drm_mode_set_crtcinfo(&m, 0);
	drm_mode_set_crtcinfo(&fast, 0);
	/* 65 MHz / (1344 * 50 Hz) = 967.3 lines: 968, 20.01 ms */
	KUNIT_EXPECT_EQ(test, vdxg_vrr_vtotal_max(&m, 50), 968u);
	/* 1 Hz: 48363.1 lines, but 48364 would be 1.00002 s: 48363 */
	KUNIT_EXPECT_EQ(test, vdxg_vrr_vtotal_max(&m, 1), 48363u);
	/* Not below the mode's own rate: no stretch */
	KUNIT_EXPECT_EQ(test, vdxg_vrr_vtotal_max(&m, 61), 806u);
	KUNIT_EXPECT_EQ(test, vdxg_vrr_vtotal_max(&m, 0), 806u);
	/* The device's limit of 65535 lines */
	KUNIT_EXPECT_EQ(test, vdxg_vrr_vtotal_max(&fast, 1),
			(u32)VDXG_MODE_MAX_VRR_TOTAL);
}

static struct kunit_case vdxg_modes_tests[] = {
	KUNIT_CASE_PARAM(vdxg_mode_status_test, vdxg_mode_gen_params),
	KUNIT_CASE(vdxg_edid_vrr_range_test),
	KUNIT_CASE(vdxg_vrr_vtotal_max_test),
	{}
};

static struct kunit_suite vdxg_modes_suite = {
	.name = "vdxg_modes",
	.test_cases = vdxg_modes_tests,
};

kunit_test_suite(vdxg_modes_suite);
