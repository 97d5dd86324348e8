// SPDX-License-Identifier: MIT
/*
 * vdxg-scene3d-ref: the reference picture of vdxg-demo --3d's still, drawn
 * on the host by libvdxg's reference pipeline (vdxg_ref3d), and its exact
 * comparison with a screendump of the guest.
 *
 *   vdxg-scene3d-ref [-s TIME] [-o REF.ppm] SCREEN.ppm
 *   vdxg-scene3d-ref [-s TIME] -g WxH -o REF.ppm
 *
 * The scene at TIME seconds (default 1.3; vdxg-demo --3d -s TIME shows
 * the same) at SCREEN's size (or WxH), written to REF.ppm (P6). Given a
 * SCREEN (a P6 screendump of the still), every pixel must be the same:
 * the scene's constants are binary32 arithmetic without FMA or libm, so
 * the host computes the bits the guest does, and the device and the
 * reference are to produce the same bits. Prints the number of pixels
 * that differ and the first; exit status 0 on an exact match, 1
 * otherwise, 2 on an error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vdxg_scene3d.h"

static void fail(const char *what)
{
	fprintf(stderr, "vdxg-scene3d-ref: %s\n", what);
	exit(2);
}

/* A P6 PPM of 8-bit channels: its size and RGB bytes (malloc()ed). */
static uint8_t *read_ppm(const char *path, uint32_t *w, uint32_t *h)
{
	FILE *f = fopen(path, "rb");
	unsigned int maxval;
	uint8_t *px;

	if (!f)
		fail(path);
	if (fscanf(f, "P6 %u %u %u", w, h, &maxval) != 3 || maxval != 255 ||
	    fgetc(f) == EOF)
		fail("not an 8-bit P6 PPM");
	px = malloc((size_t)*w * *h * 3);
	if (!px || fread(px, 3, (size_t)*w * *h, f) != (size_t)*w * *h)
		fail("a short PPM");
	fclose(f);
	return px;
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	uint32_t w = 0, h = 0, x, y, *dst;
	int ret;
	unsigned long long wrong = 0;
	uint8_t *screen = NULL, *ref;
	float t = 1.3f;
	struct scene3d s;
	void *res;
	int opt;

	while ((opt = getopt(argc, argv, "s:o:g:")) != -1) {
		switch (opt) {
		case 's': t = (float)atof(optarg); break;
		case 'o': out = optarg; break;
		case 'g':
			if (sscanf(optarg, "%ux%u", &w, &h) != 2)
				fail("-g WxH");
			break;
		default:
			fprintf(stderr, "usage: vdxg-scene3d-ref [-s TIME] "
				"[-o REF.ppm] (SCREEN.ppm | -g WxH)\n");
			return 2;
		}
	}
	if (optind < argc)
		screen = read_ppm(argv[optind], &w, &h);
	if (!w || !h || w > 8192 || h > 8192)
		fail("no size: give SCREEN.ppm or -g WxH");
	if (scene3d_init(&s, w, h))
		fail("scene3d_init: the programs do not assemble");
	res = calloc(1, s.size);
	dst = calloc((size_t)w * h, 4);
	ref = malloc((size_t)w * h * 3);
	if (!res || !dst || !ref)
		fail("out of memory");
	scene3d_fill(&s, res);
	scene3d_frame(&s, res, 0, t);
	ret = scene3d_reference(&s, res, 0, dst);
	if (ret < 0)
		fail(strerror(-ret));
	if (ret) {
		fprintf(stderr, "vdxg-scene3d-ref: the reference faults, "
			"reason %d\n", ret);
		return 2;
	}
	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++) {
			uint32_t p = dst[y * w + x];
			uint8_t *r = ref + (y * w + x) * 3;

			r[0] = p >> 16;
			r[1] = p >> 8;
			r[2] = p;
			if (screen && memcmp(r, screen + (r - ref), 3) &&
			    !wrong++) {
				const uint8_t *g = screen + (r - ref);

				printf("vdxg-scene3d-ref: first difference at "
				       "(%u,%u): %02x%02x%02x, reference "
				       "%02x%02x%02x\n", x, y, g[0], g[1],
				       g[2], r[0], r[1], r[2]);
			}
		}
	if (out) {
		FILE *f = fopen(out, "wb");

		if (!f || fprintf(f, "P6\n%u %u\n255\n", w, h) < 0 ||
		    fwrite(ref, 3, (size_t)w * h, f) != (size_t)w * h ||
		    fclose(f))
			fail(out);
	}
	if (screen) {
		printf("vdxg-scene3d-ref: %s: %ux%u, %llu pixels differ from "
		       "the reference: %s\n", argv[optind], w, h, wrong,
		       wrong ? "MISMATCH" : "exact match");
		return wrong ? 1 : 0;
	}
	return 0;
}
