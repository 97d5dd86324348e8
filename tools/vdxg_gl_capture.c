// SPDX-License-Identifier: MIT
/*
 * vdxg-gl-capture.so: saves the frames an EGL client draws, for tests
 * that compare a GL client's rendering by two drivers (vdxg and softpipe)
 * without changing the client. LD_PRELOAD it:
 *
 *   VDXG_CAPTURE=/tmp/cube VDXG_CAPTURE_FRAMES=0,59 LD_PRELOAD=... kmscube
 *
 * Frames are counted by the swaps of the client's surfaces, from 0. Just
 * before frame N is swapped, its back buffer is read (glReadPixels,
 * RGBA8) and written as PREFIX-N.ppm (binary PPM, top row first). With
 * VDXG_CAPTURE_EXIT=1 the client exits (status 0) once the last listed
 * frame is swapped. Every swap entry point is wrapped, also when the
 * client finds it through eglGetProcAddress.
 *
 * It needs no EGL or GL headers: the few types and enums it uses are
 * those of the Khronos registry.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned int EGLBoolean;
typedef int32_t EGLint;
typedef void *EGLDisplay;
typedef void *EGLSurface;
typedef void (*proc_t)(void);

#define EGL_HEIGHT		0x3056
#define EGL_WIDTH		0x3057
#define GL_RGBA			0x1908
#define GL_UNSIGNED_BYTE	0x1401
#define GL_PACK_ALIGNMENT	0x0D05

#define MAX_FRAMES 16

static unsigned long frames[MAX_FRAMES];
static int num_frames = -1;
static unsigned long frame;

static void parse_frames(void)
{
	const char *s = getenv("VDXG_CAPTURE_FRAMES");
	char *end;

	num_frames = 0;
	while (s && *s && num_frames < MAX_FRAMES) {
		frames[num_frames++] = strtoul(s, &end, 10);
		if (end == s)
			break;
		s = *end == ',' ? end + 1 : end;
	}
}

static void *real(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p) {
		fprintf(stderr, "vdxg-gl-capture: no %s\n", name);
		exit(125);
	}
	return p;
}

static void save(EGLDisplay dpy, EGLSurface surf, unsigned long n)
{
	EGLBoolean (*query)(EGLDisplay, EGLSurface, EGLint, EGLint *) =
		real("eglQuerySurface");
	void (*read_pixels)(int, int, int, int, unsigned, unsigned, void *) =
		dlsym(RTLD_DEFAULT, "glReadPixels");
	void (*pixel_store)(unsigned, int) = dlsym(RTLD_DEFAULT, "glPixelStorei");
	const char *prefix = getenv("VDXG_CAPTURE");
	EGLint w = 0, h = 0;
	uint8_t *rgba;
	char path[4096];
	FILE *f;

	if (!read_pixels || !pixel_store || !query(dpy, surf, EGL_WIDTH, &w) ||
	    !query(dpy, surf, EGL_HEIGHT, &h) || w <= 0 || h <= 0 ||
	    w > 16384 || h > 16384) {
		fprintf(stderr, "vdxg-gl-capture: frame %lu not read\n", n);
		return;
	}
	rgba = malloc((size_t)w * h * 4);
	if (!rgba)
		return;
	pixel_store(GL_PACK_ALIGNMENT, 4);
	read_pixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
	snprintf(path, sizeof(path), "%s-%lu.ppm", prefix, n);
	f = fopen(path, "wb");
	if (f) {
		fprintf(f, "P6\n%d %d\n255\n", w, h);
		for (EGLint y = h - 1; y >= 0; y--)
			for (EGLint x = 0; x < w; x++)
				fwrite(rgba + ((size_t)y * w + x) * 4, 3, 1, f);
		fclose(f);
	} else {
		perror(path);
	}
	free(rgba);
}

/* Before a swap: save the frame if it is listed. */
static void before_swap(EGLDisplay dpy, EGLSurface surf)
{
	if (num_frames < 0)
		parse_frames();
	for (int i = 0; i < num_frames; i++)
		if (frames[i] == frame && getenv("VDXG_CAPTURE"))
			save(dpy, surf, frame);
}

/* After it: count it, and exit after the last listed one if asked. */
static void after_swap(void)
{
	unsigned long last = 0;
	const char *e = getenv("VDXG_CAPTURE_EXIT");

	for (int i = 0; i < num_frames; i++)
		if (frames[i] > last)
			last = frames[i];
	if (num_frames > 0 && frame == last && e && *e == '1')
		exit(0);
	frame++;
}

EGLBoolean eglSwapBuffers(EGLDisplay dpy, EGLSurface surf)
{
	static EGLBoolean (*fn)(EGLDisplay, EGLSurface);
	EGLBoolean ret;

	if (!fn)
		fn = real("eglSwapBuffers");
	before_swap(dpy, surf);
	ret = fn(dpy, surf);
	after_swap();
	return ret;
}

static EGLBoolean swap_damage(const char *name, EGLDisplay dpy,
			      EGLSurface surf, const EGLint *rects, EGLint n)
{
	EGLBoolean (*fn)(EGLDisplay, EGLSurface, const EGLint *, EGLint);
	proc_t (*gpa)(const char *) = real("eglGetProcAddress");
	EGLBoolean ret;

	fn = (EGLBoolean (*)(EGLDisplay, EGLSurface, const EGLint *, EGLint))
		gpa(name);
	if (!fn)
		return 0;
	before_swap(dpy, surf);
	ret = fn(dpy, surf, rects, n);
	after_swap();
	return ret;
}

EGLBoolean eglSwapBuffersWithDamageEXT(EGLDisplay dpy, EGLSurface surf,
				       const EGLint *rects, EGLint n)
{
	return swap_damage("eglSwapBuffersWithDamageEXT", dpy, surf, rects, n);
}

EGLBoolean eglSwapBuffersWithDamageKHR(EGLDisplay dpy, EGLSurface surf,
				       const EGLint *rects, EGLint n)
{
	return swap_damage("eglSwapBuffersWithDamageKHR", dpy, surf, rects, n);
}

proc_t eglGetProcAddress(const char *name)
{
	static proc_t (*fn)(const char *);

	if (!fn)
		fn = real("eglGetProcAddress");
	if (!strcmp(name, "eglSwapBuffers"))
		return (proc_t)eglSwapBuffers;
	if (!strcmp(name, "eglSwapBuffersWithDamageEXT"))
		return (proc_t)eglSwapBuffersWithDamageEXT;
	if (!strcmp(name, "eglSwapBuffersWithDamageKHR"))
		return (proc_t)eglSwapBuffersWithDamageKHR;
	return fn(name);
}
