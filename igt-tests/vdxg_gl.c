// SPDX-License-Identifier: MIT
/*
 * vdxg_gl: unmodified GL clients (Debian's kmscube and glmark2-es2-drm)
 * on Mesa's vdxg Gallium driver, their frames checked against Mesa's
 * softpipe drawing the same frames.
 *
 * The test links nothing of GL: it runs the clients with the environment
 * that picks the driver, and reads what they print and the frames that
 * vdxg-gl-capture.so (tools/vdxg_gl_capture.c, LD_PRELOADed) saves:
 *
 *   vdxg, EXEC model	VDXG_SUBMIT=exec (the driver's default)
 *   vdxg, patch model	VDXG_SUBMIT=patch
 *   softpipe		MESA_LOADER_DRIVER_OVERRIDE=kms_swrast
 *			GALLIUM_DRIVER=softpipe (our Mesa's softpipe,
 *			through dumb buffers: a card node)
 *
 * Every run's GL_RENDERER (kmscube's "renderer:" line, glmark2's
 * GL_RENDERER) must be the driver asked for, so that a loader falling back
 * to another driver cannot pass. The clients need the GL image
 * (scripts/build-image.sh --gl, scripts/vm.sh --gl; scripts/igt.sh's gl
 * boot): without kmscube or glmark2 the subtests skip.
 *
 * kmscube's animation depends only on the frame number, so frame N by
 * vdxg and by softpipe must show the same picture. Frames are counted by
 * the capture shim from kmscube's first swap (0), which comes before any
 * drawing: frame N >= 1 is kmscube's draw(N - 1). Two drivers' pictures
 * match when every pixel's largest channel difference is at most
 * TOL_CHANNEL (texture filtering rounds differently: measured < 8), but
 * for at most TOL_OUTLIERS_PER_10K pixels in 10000 that may differ more
 * (the cube's edges: the rasterizers' subpixel precision differs, a
 * pixel is covered by one and not by the other; measured 92 of 786432
 * for the smooth cube, 1 for the textured one). A frame must also show
 * the cube: at least MIN_COVER_PCT % of its pixels differ from its corner
 * pixel (kmscube's clear colour), so that an empty or black frame cannot
 * match another one. The EXEC and patch models run the same driver on the
 * same commands: their frames must be identical, bit for bit.
 *
 * kmscube in legacy KMS mode also leaves its page-flip wait when stdin is
 * readable ("user interrupted!"): every client gets a pipe as stdin whose
 * write end the test holds open, and kmscube -N (do not poll for input).
 *
 * Subtests:
 * - kmscube-smooth-exec, kmscube-rgba-exec: kmscube -c 31 (-M rgba) on
 *   the display by vdxg (EXEC), frames 1 and 30 against softpipe's.
 * - kmscube-smooth-patch, kmscube-rgba-patch: the same by the patch model,
 *   and bit for bit the EXEC model's frames.
 *   kmscube's nv12-1img and nv12-2img modes are left out: they sample
 *   NV12 textures (EGL images of YUV buffers, or a shader's YUV->RGB from
 *   two planes imported as R8/GR88 dma-bufs), and the driver imports no
 *   YUV or two-plane EGL image.
 * - kmscube-screendump: kmscube on the display for long; the host's
 *   screendump of the head (scripts/vm.sh's channel) must show a cube:
 *   the clear colour in the corner, not black, at least MIN_COVER_PCT %
 *   of other pixels, the size of kmscube's frames. Skips without the
 *   channel.
 * - glmark2-exec, glmark2-patch: glmark2-es2-drm over every default
 *   scene (GLMARK2_DEFAULTS, glmark2 2023.01's list, each for a second:
 *   -b :duration=1 sets the option for the default list glmark2 adds);
 *   each must report an FPS, none may print "Error", "Unsupported" or
 *   "failed", and the run must end with a score. Per-scene FPS and the
 *   score are printed. glmark2 animates by time, so its frames are not
 *   compared (and its --validate references fail on softpipe as on vdxg).
 * - two-clients: a second client while kmscube drives the display. One
 *   KMS device has one DRM master, so the second client is kmscube -O
 *   (offscreen: GBM surfaces on the render node, no KMS, no master) by
 *   the patch model beside the KMS one by EXEC. The offscreen client
 *   starts first and runs on until the KMS client is done; the KMS
 *   client's frames and those of the offscreen client's frames that it
 *   finished meanwhile are checked against softpipe. (glmark2-es2-drm
 *   --off-screen still takes the KMS resources: "drmModeGetResources
 *   failed" on a render node.)
 * - gl-beside-present: the offscreen client while vdxg-demo --3d renders
 *   its own 3D scene with the RENDER engine and flips it with PRESENT,
 *   with VRAM oversubscribed (its ballast, so the paging engine moves the
 *   client's buffers too) and every 20th frame checked against the
 *   reference pipeline (-c 20); the client's frames against softpipe,
 *   and the demo must exit 0.
 * - gl-beside-kms-test: the offscreen client while IGT's kms_atomic
 *   (about 6 s of plane and CRTC commits, legacy and atomic) runs; the
 *   client's frames against softpipe, kms_atomic must exit 0.
 * - piglit-gles2-exec, piglit-gles2-patch: piglit's own runner over its
 *   GLES 2.0 tests (igt-tests/piglit-gles2-tests.txt: the API tests of
 *   piglit's GLES 2 binaries, the GLSL ES 1.00 shader_runner_gles2 and
 *   glslparsertest_gles2 tests) on waffle's GBM platform on vdxg's render
 *   node, by each model; results.json and the console summary are left in
 *   /tmp/igt/collect/piglit-gles2-MODEL/ (brought back by scripts/igt.sh);
 *   every test that neither passes nor skips must be listed, with its
 *   reason, in igt-tests/piglit-expected-failures.txt.
 * - weston-exec, weston-patch: weston (DRM backend, GL renderer) on the
 *   card and weston-simple-egl in it, both by the model: weston names
 *   vdxg as its GL renderer, the client has engine time on a vdxg render
 *   node (fdinfo), and screendumps (up to 20, until these are seen) show
 *   the desktop's background and the window's clear colour blended over
 *   it, one at least the triangle's corners, and not all the same (the
 *   triangle turns).
 * - small-buffers-exec, small-buffers-patch: vdxg-gl-bufs draws from 256
 *   vertex buffers of 48 bytes, respecifies them while the GPU may still
 *   read them and draws again, then for 16 rounds respecifies each just
 *   before its draw, without waits (the driver recycles freed storage
 *   while other draws are in flight): every pixel right, and the buffers
 *   share objects (under 512 KiB of objects between them, not 1024).
 * Every subtest also fails on a kernel problem logged meanwhile.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vhostd.h"
#include "vtest.h"

#define CAPTURE_SO	"/opt/vdxg/bin/vdxg-gl-capture.so"
#define KMS_TEST_DIR	"/usr/libexec/igt-gpu-tools"
/* coreutils' stdbuf keeps LD_PRELOAD's libraries, adding its own. */
#define STDBUF		"/usr/bin/stdbuf"

#define TOL_CHANNEL		8
#define TOL_OUTLIERS_PER_10K	5	/* 0.05 % */
#define MIN_COVER_PCT		5

/* The offscreen client's size (any: kmscube -O renders at -v WxH). */
#define OFFSCREEN_MODE	"640x480"
/* Its captured frames: 1, then every 20th up to 300 (the shim takes 16). */
#define BG_FRAMES	"1,20,40,60,80,100,120,140,160,180,200,220,240,260,280,300"
#define BG_MAX_FRAMES	16

/* ------------------------------------------------------------ drivers */

struct driver {
	const char *name;
	const char *env[3];
	const char *renderer;	/* GL_RENDERER */
};

static const struct driver drv_exec = {
	"exec", { "VDXG_SUBMIT=exec" }, "vdxg (exec)",
};
static const struct driver drv_patch = {
	"patch", { "VDXG_SUBMIT=patch" }, "vdxg (patch)",
};
static const struct driver drv_softpipe = {
	"softpipe",
	{ "MESA_LOADER_DRIVER_OVERRIDE=kms_swrast", "GALLIUM_DRIVER=softpipe" },
	"softpipe",
};

/* ------------------------------------------------------------ clients */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The subtest's directory for logs and frames (the guest's /tmp). */
static char workdir[64];

static void make_workdir(void)
{
	snprintf(workdir, sizeof(workdir), "/tmp/vdxg_gl-%d", (int)getpid());
	vtest_assert_f(mkdir(workdir, 0755) == 0 || errno == EEXIST,
		       "mkdir %s: %s", workdir, strerror(errno));
}

struct client {
	pid_t pid;
	int stdin_w;		/* held open: stdin never becomes readable */
	char log[PATH_MAX];
	const char *what;
};

static const char *const clean_env[] = {
	"LD_PRELOAD", "LD_LIBRARY_PATH", "VDXG_SUBMIT", "VDXG_CAPTURE",
	"VDXG_CAPTURE_FRAMES", "VDXG_CAPTURE_EXIT",
	"MESA_LOADER_DRIVER_OVERRIDE", "GALLIUM_DRIVER", "EGL_PLATFORM",
};

/*
 * Start ARGV with the driver's environment (DRV may be NULL), the capture
 * shim saving FRAMES as CAPTURE-N.ppm (when CAPTURE is non-NULL), stdin a
 * pipe that never has data, stdout and stderr into workdir/WHAT.log.
 */
static void client_start(struct client *c, const char *what,
			 const struct driver *drv, const char *capture,
			 const char *frames, char *const argv[])
{
	int p[2], log;

	memset(c, 0, sizeof(*c));
	c->what = what;
	snprintf(c->log, sizeof(c->log), "%s/%s.log", workdir, what);
	/* Created here: it exists once the client is started. */
	log = open(c->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	vtest_assert_f(log >= 0, "%s: %s", c->log, strerror(errno));
	vtest_assert_ok(pipe2(p, O_CLOEXEC));
	fflush(stdout);
	fflush(stderr);
	c->pid = fork();
	vtest_assert_f(c->pid >= 0, "fork: %s", strerror(errno));
	if (c->pid == 0) {
		/* Gone with the subtest, whatever ends it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (dup2(p[0], 0) < 0 || dup2(log, 1) < 0 || dup2(log, 2) < 0)
			_exit(126);
		/* Nothing of igt_runner's: an IGT test run here (kms_atomic)
		 * would report its subtests to it as ours (its socket is
		 * inherited, named by IGT_RUNNER_SOCKET_FD). */
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
		for (char **e = environ; *e;) {
			if (!strncmp(*e, "IGT_", 4)) {
				char name[128];
				size_t n = strcspn(*e, "=");

				snprintf(name, sizeof(name), "%.*s", (int)n, *e);
				unsetenv(name);
			} else {
				e++;
			}
		}
		for (size_t i = 0; i < VTEST_ARRAY_SIZE(clean_env); i++)
			unsetenv(clean_env[i]);
		for (size_t i = 0; drv && i < VTEST_ARRAY_SIZE(drv->env) &&
		     drv->env[i]; i++)
			putenv((char *)drv->env[i]);
		if (capture) {
			setenv("LD_PRELOAD", CAPTURE_SO, 1);
			setenv("VDXG_CAPTURE", capture, 1);
			setenv("VDXG_CAPTURE_FRAMES", frames, 1);
		}
		/* Line-buffered output: a client ended by a signal has
		 * written what it printed (its renderer, checked below). */
		char *args[32];
		int n = 0;

		if (access(STDBUF, X_OK) == 0) {
			args[n++] = STDBUF;
			args[n++] = "-oL";
			args[n++] = "-eL";
		}
		for (int i = 0; argv[i] && n < 31; i++)
			args[n++] = argv[i];
		args[n] = NULL;
		execvp(args[0], args);
		fprintf(stderr, "exec %s: %s\n", args[0], strerror(errno));
		_exit(127);
	}
	close(p[0]);
	close(log);
	c->stdin_w = p[1];
	vtest_info("%s: started %s (pid %d)%s%s", what, argv[0], (int)c->pid,
		   drv ? " on " : "", drv ? drv->name : "");
}

/* Its exit status (128 + signal when killed), or -1 while it runs. */
static int client_poll(struct client *c)
{
	int status;
	pid_t r = waitpid(c->pid, &status, WNOHANG);

	vtest_assert_f(r >= 0, "waitpid: %s", strerror(errno));
	if (r == 0)
		return -1;
	close(c->stdin_w);
	c->pid = 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) :
	       128 + WTERMSIG(status);
}

static void print_log_tail(const struct client *c, int lines);

/* Wait for it to end; killed and failed after TIMEOUT seconds. */
static int client_wait(struct client *c, double timeout)
{
	double end = now() + timeout;
	int rc;

	while ((rc = client_poll(c)) < 0) {
		if (now() > end) {
			kill(c->pid, SIGKILL);
			client_poll(c);
			print_log_tail(c, 20);
			vtest_fail("%s ran longer than %.0f s", c->what, timeout);
		}
		usleep(50 * 1000);
	}
	return rc;
}

/* End it with SIGTERM (SIGKILL GRACE seconds later); its status. */
static int client_stop_grace(struct client *c, double grace)
{
	double end = now() + grace;
	int rc;

	if (!c->pid)
		return 0;
	kill(c->pid, SIGTERM);
	while ((rc = client_poll(c)) < 0) {
		if (now() > end)
			kill(c->pid, SIGKILL);
		usleep(50 * 1000);
	}
	return rc;
}

static int client_stop(struct client *c)
{
	return client_stop_grace(c, 10);
}

/* PATH's contents, NUL-terminated (read to its end: procfs files have no
 * size). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	size_t len = 0, cap = 4096, n;
	char *buf;

	vtest_assert_f(f, "%s: %s", path, strerror(errno));
	buf = malloc(cap);
	vtest_assert(buf);
	while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len - 1 == 0) {
			cap *= 2;
			buf = realloc(buf, cap);
			vtest_assert(buf);
		}
	}
	buf[len] = 0;
	fclose(f);
	return buf;
}

/* The last LINES lines of the client's log, to stdout. */
static void print_log_tail(const struct client *c, int lines)
{
	char *log = slurp(c->log), *p;
	int n = 0;

	for (p = log + strlen(log); p > log; p--)
		if (p[-1] == '\n' && p[0] && ++n > lines)
			break;
	printf("--- %s: the end of %s\n%s", c->what, c->log, p);
	if (*p && p[strlen(p) - 1] != '\n')
		printf("\n");
	printf("---\n");
	free(log);
}

/* The client exited with status 0 and its log names the renderer. */
static void client_check(struct client *c, int rc, const struct driver *drv,
			 const char *renderer_fmt)
{
	char *log, want[128];

	if (rc != 0) {
		print_log_tail(c, 30);
		vtest_fail("%s exited with status %d", c->what, rc);
	}
	if (!drv)
		return;
	log = slurp(c->log);
	snprintf(want, sizeof(want), renderer_fmt, drv->renderer);
	if (!strstr(log, want)) {
		print_log_tail(c, 30);
		vtest_fail("%s: no '%s' in its output: not on %s", c->what,
			   want, drv->name);
	}
	free(log);
}

static bool have_program(const char *name)
{
	return vtest_system("command -v %s >/dev/null 2>&1", name) == 0;
}

static void require_client(const char *name)
{
	vtest_require_f(have_program(name),
			"no %s: the GL clients are in the GL image "
			"(scripts/vm.sh --gl)", name);
	vtest_require_f(vtest_path_exists(CAPTURE_SO),
			"no " CAPTURE_SO " (tools/vdxg_gl_capture.c)");
}

/* ------------------------------------------------------------ devices */

static char card_path[PATH_MAX], render_path[PATH_MAX];

/*
 * vdxg's card and render nodes, closed again at once: the first opener of
 * a card node becomes its DRM master, which the clients need.
 */
static void find_nodes(void)
{
	int fd = vtest_drm_open_driver("vdxg", VTEST_NODE_CARD, card_path);

	vtest_require_f(fd >= 0, "no vdxg card node");
	close(fd);
	fd = vtest_drm_open_driver("vdxg", VTEST_NODE_RENDER, render_path);
	vtest_require_f(fd >= 0, "no vdxg render node");
	close(fd);
}

/* ------------------------------------------------------------ frames */

struct image {
	unsigned int w, h;
	uint8_t *rgb;		/* into buf */
	uint8_t *buf;
};

/* A binary PPM (maxval 255) in BUF of LEN bytes; false if it is none. */
static bool image_parse(struct image *img, uint8_t *buf, size_t len)
{
	unsigned int maxval;
	int off = 0;

	memset(img, 0, sizeof(*img));
	if (len < 3 || memcmp(buf, "P6", 2))
		return false;
	/* The header is text: scan a NUL-terminated copy of its start. */
	char head[64];

	memcpy(head, buf, len < sizeof(head) ? len : sizeof(head));
	head[sizeof(head) - 1] = 0;
	if (sscanf(head, "P6 %u %u %u%n", &img->w, &img->h, &maxval,
		   &off) != 3 || maxval != 255 || !img->w || !img->h)
		return false;
	off++;	/* one whitespace byte before the pixels */
	if (len - off != (size_t)img->w * img->h * 3)
		return false;
	img->buf = buf;
	img->rgb = buf + off;
	return true;
}

/* PATH as an image; false if it is missing or incomplete. */
static bool image_try_load(struct image *img, const char *path)
{
	struct stat st;
	uint8_t *buf;
	FILE *f;

	if (stat(path, &st) || st.st_size < 16)
		return false;
	f = fopen(path, "rb");
	if (!f)
		return false;
	buf = malloc(st.st_size);
	vtest_assert(buf);
	if (fread(buf, 1, st.st_size, f) != (size_t)st.st_size ||
	    !image_parse(img, buf, st.st_size)) {
		fclose(f);
		free(buf);
		return false;
	}
	fclose(f);
	return true;
}

static void frame_path(char *path, size_t len, const char *prefix,
		       unsigned int frame)
{
	snprintf(path, len, "%s-%u.ppm", prefix, frame);
}

static void image_load_frame(struct image *img, const char *prefix,
			     unsigned int frame)
{
	char path[PATH_MAX];

	frame_path(path, sizeof(path), prefix, frame);
	vtest_assert_f(image_try_load(img, path),
		       "frame %u: no complete %s from the capture shim",
		       frame, path);
}

static void image_free(struct image *img)
{
	free(img->buf);
	memset(img, 0, sizeof(*img));
}

/* Percent of pixels unlike the top left one (kmscube's clear colour). */
static double image_cover(const struct image *img)
{
	size_t n = (size_t)img->w * img->h, other = 0;

	for (size_t i = 1; i < n; i++)
		other += memcmp(img->rgb + i * 3, img->rgb, 3) != 0;
	return 100.0 * other / n;
}

static void check_cover(const struct image *img, const char *what)
{
	double cover = image_cover(img);
	const uint8_t *c = img->rgb;

	vtest_assert_f(cover >= MIN_COVER_PCT,
		       "%s: only %.2f%% of the pixels differ from the "
		       "corner's %02x%02x%02x (at least %d%%: the cube)",
		       what, cover, c[0], c[1], c[2], MIN_COVER_PCT);
}

/*
 * Frame FRAME of TEST against REF: within the tolerance, both showing the
 * cube; with EXACT, identical. WHAT names them in the messages.
 */
static void compare_frame(const char *test_prefix, const char *ref_prefix,
			  unsigned int frame, bool exact, const char *what)
{
	struct image t, r;
	size_t n, over = 0, differ = 0, limit;
	unsigned int maxdiff = 0;

	image_load_frame(&t, test_prefix, frame);
	image_load_frame(&r, ref_prefix, frame);
	vtest_assert_f(t.w == r.w && t.h == r.h,
		       "%s frame %u: %ux%u against %ux%u", what, frame, t.w,
		       t.h, r.w, r.h);
	n = (size_t)t.w * t.h;
	for (size_t i = 0; i < n; i++) {
		unsigned int d = 0;

		for (int ch = 0; ch < 3; ch++) {
			int x = t.rgb[i * 3 + ch] - r.rgb[i * 3 + ch];

			if ((unsigned int)abs(x) > d)
				d = abs(x);
		}
		differ += d != 0;
		over += d > TOL_CHANNEL;
		if (d > maxdiff)
			maxdiff = d;
	}
	limit = n * TOL_OUTLIERS_PER_10K / 10000;
	if (exact)
		vtest_info("%s frame %u (%ux%u): %zu pixels differ (none may), "
			   "largest channel difference %u; cube %.1f%% of "
			   "the pixels", what, frame, t.w, t.h, differ,
			   maxdiff, image_cover(&t));
	else
		vtest_info("%s frame %u (%ux%u): %zu pixels differ, %zu by "
			   "more than %d (at most %zu may), largest channel "
			   "difference %u; cube %.1f%% / %.1f%% of the pixels",
			   what, frame, t.w, t.h, differ, over, TOL_CHANNEL,
			   limit, maxdiff, image_cover(&t), image_cover(&r));
	check_cover(&t, what);
	check_cover(&r, what);
	if (exact)
		vtest_assert_f(differ == 0, "%s frame %u: %zu pixels differ "
			       "(must be identical)", what, frame, differ);
	else
		vtest_assert_f(over <= limit, "%s frame %u: %zu pixels differ "
			       "by more than %d (at most %zu may)", what,
			       frame, over, TOL_CHANNEL, limit);
	image_free(&t);
	image_free(&r);
}

/* Frames A and B of PREFIX differ (the animation runs). */
static void check_animates(const char *prefix, unsigned int a, unsigned int b)
{
	struct image x, y;

	image_load_frame(&x, prefix, a);
	image_load_frame(&y, prefix, b);
	vtest_assert_f(x.w != y.w || x.h != y.h ||
		       memcmp(x.rgb, y.rgb, (size_t)x.w * x.h * 3),
		       "%s: frames %u and %u are identical: no animation",
		       prefix, a, b);
	image_free(&x);
	image_free(&y);
}

/* ------------------------------------------------------------ kmscube */

struct kmscube {
	const char *mode;	/* -M, or NULL: smooth */
	bool offscreen;		/* -O on the render node, else KMS */
	unsigned int count;	/* -c */
};

/* Start kmscube by DRV; its frames FRAMES as PREFIX-N.ppm. */
static void kmscube_start_at(struct client *c, const char *what,
			     const struct driver *drv, const struct kmscube *k,
			     const char *frames, const char *prefix)
{
	char count[16];
	char *argv[16];
	int n = 0;

	snprintf(count, sizeof(count), "%u", k->count);
	argv[n++] = "kmscube";
	argv[n++] = "-N";
	argv[n++] = "-c";
	argv[n++] = count;
	if (k->mode) {
		argv[n++] = "-M";
		argv[n++] = (char *)k->mode;
	}
	argv[n++] = "-D";
	if (k->offscreen) {
		/* softpipe (kms_swrast) allocates dumb buffers: a card
		 * node, still without KMS; vdxg renders on the render node. */
		argv[n++] = drv == &drv_softpipe ? card_path : render_path;
		argv[n++] = "-O";
		argv[n++] = "-v";
		argv[n++] = OFFSCREEN_MODE;
	} else {
		argv[n++] = card_path;
	}
	argv[n] = NULL;
	client_start(c, what, drv, prefix, frames, argv);
}

/* Start kmscube by DRV; its frames FRAMES as workdir/WHAT-N.ppm. */
static void kmscube_start(struct client *c, const char *what,
			  const struct driver *drv, const struct kmscube *k,
			  const char *frames)
{
	char prefix[PATH_MAX];

	snprintf(prefix, sizeof(prefix), "%s/%s", workdir, what);
	kmscube_start_at(c, what, drv, k, frames, prefix);
}

/* Run kmscube to its end (FRAMES captured as PREFIX-N.ppm); it must exit
 * 0 on DRV. */
static void kmscube_run_at(const char *what, const struct driver *drv,
			   const struct kmscube *k, const char *frames,
			   const char *prefix)
{
	struct client c;
	double t0 = now();
	int rc;

	kmscube_start_at(&c, what, drv, k, frames, prefix);
	rc = client_wait(&c, 240);
	client_check(&c, rc, drv, "renderer: \"%s\"");
	vtest_info("%s: %u frames in %.1f s", what, k->count, now() - t0);
}

static void kmscube_run(const char *what, const struct driver *drv,
			const struct kmscube *k, const char *frames)
{
	char prefix[PATH_MAX];

	snprintf(prefix, sizeof(prefix), "%s/%s", workdir, what);
	kmscube_run_at(what, drv, k, frames, prefix);
}

/*
 * softpipe's frames of kmscube, kept for the boot in SOFTPIPE_DIR: its
 * picture depends on the frame number alone (and, on the display, on
 * the mode, which no subtest changes), so each subtest that compares
 * the same frames of the same kmscube (mode, on the display or
 * offscreen) takes them from the first one that had softpipe draw them,
 * a minute at 1024x768. Returns the prefix of frames FRAMES there.
 */
#define SOFTPIPE_DIR	"/tmp/vdxg_gl-softpipe"

static const char *softpipe_frames(const struct kmscube *k,
				   const char *frames)
{
	static char prefix[128];
	char list[256], path[PATH_MAX], *tok, *save = NULL;
	struct kmscube ref = *k;
	unsigned int max = 0;
	bool missing = false;

	vtest_assert_f(mkdir(SOFTPIPE_DIR, 0755) == 0 || errno == EEXIST,
		       "mkdir %s: %s", SOFTPIPE_DIR, strerror(errno));
	snprintf(prefix, sizeof(prefix), "%s/%s%s", SOFTPIPE_DIR,
		 k->mode ? k->mode : "smooth", k->offscreen ? "-offscreen" : "");
	snprintf(list, sizeof(list), "%s", frames);
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned int n = strtoul(tok, NULL, 10);

		frame_path(path, sizeof(path), prefix, n);
		missing |= !vtest_path_exists(path);
		if (n > max)
			max = n;
	}
	if (!missing) {
		vtest_info("softpipe's frames %s: drawn by an earlier subtest",
			   frames);
		return prefix;
	}
	ref.count = max + 1;
	kmscube_run_at("softpipe", &drv_softpipe, &ref, frames, prefix);
	return prefix;
}

static const char *prefix_of(const char *what)
{
	static char buf[4][PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", workdir, what);
	return buf[i];
}

/* kmscube -c 31 by MODEL against softpipe; the patch model also against
 * the EXEC model, bit for bit. */
static void kmscube_test(const char *mode, const struct driver *model)
{
	const struct kmscube k = { .mode = mode, .count = 31 };
	uint64_t kmsg = vtest_kmsg_seq();
	static const unsigned int frames[] = { 1, 30 };

	require_client("kmscube");
	find_nodes();
	make_workdir();
	const char *softpipe;

	kmscube_run(model->name, model, &k, "1,30");
	softpipe = softpipe_frames(&k, "1,30");
	if (model != &drv_exec)
		kmscube_run("exec", &drv_exec, &k, "1,30");
	for (size_t i = 0; i < VTEST_ARRAY_SIZE(frames); i++) {
		char what[64];

		snprintf(what, sizeof(what), "%s/softpipe", model->name);
		compare_frame(prefix_of(model->name), softpipe,
			      frames[i], false, what);
		if (model != &drv_exec)
			compare_frame(prefix_of(model->name), prefix_of("exec"),
				      frames[i], true, "patch/exec");
	}
	check_animates(prefix_of(model->name), 1, 30);
	vtest_assert_eq(vtest_kmsg_problems(kmsg), 0);
	vtest_system("rm -rf %s", workdir);
}

static void test_kmscube_smooth_exec(void) { kmscube_test(NULL, &drv_exec); }
static void test_kmscube_smooth_patch(void) { kmscube_test(NULL, &drv_patch); }
static void test_kmscube_rgba_exec(void) { kmscube_test("rgba", &drv_exec); }
static void test_kmscube_rgba_patch(void) { kmscube_test("rgba", &drv_patch); }

/* ------------------------------------------------- screendump */

static void test_kmscube_screendump(void)
{
	const struct kmscube k = { .count = 100000 };
	uint64_t kmsg = vtest_kmsg_seq();
	struct image shot, frame;
	struct vhostd h;
	struct client c;
	uint8_t *ppm;
	size_t len;
	double end;
	int rc;

	require_client("kmscube");
	find_nodes();
	vtest_require_f(vhostd_open(&h), "no host channel (vdxgvm.hostd on "
			"the kernel command line): no screendump");
	make_workdir();
	/* Frame 20 saved: the cube has been on the screen for a while. */
	kmscube_start(&c, "exec", &drv_exec, &k, "20");
	end = now() + 120;
	for (;;) {
		char path[PATH_MAX];

		frame_path(path, sizeof(path), prefix_of("exec"), 20);
		if (image_try_load(&frame, path))
			break;
		if (client_poll(&c) >= 0) {
			print_log_tail(&c, 30);
			vtest_fail("kmscube ended before its frame 20");
		}
		vtest_assert_f(now() < end, "kmscube: no frame 20 in 120 s");
		usleep(100 * 1000);
	}
	ppm = vhostd_screendump(&h, "kmscube", 0, &len);
	vtest_assert_f(client_poll(&c) < 0,
		       "kmscube ended during the screendump");
	rc = client_stop(&c);
	vtest_assert_f(rc == 128 + SIGTERM, "kmscube ended with status %d "
		       "on SIGTERM", rc);
	client_check(&c, 0, &drv_exec, "renderer: \"%s\"");
	vhostd_close(&h);

	vtest_assert_f(image_parse(&shot, ppm, len),
		       "the screendump is not a binary PPM");
	vtest_info("screendump %ux%u: corner %02x%02x%02x, %.1f%% of the "
		   "pixels unlike it; kmscube's frame 20: %ux%u, corner "
		   "%02x%02x%02x, %.1f%%", shot.w, shot.h, shot.rgb[0],
		   shot.rgb[1], shot.rgb[2], image_cover(&shot), frame.w,
		   frame.h, frame.rgb[0], frame.rgb[1], frame.rgb[2],
		   image_cover(&frame));
	vtest_assert_f(shot.w == frame.w && shot.h == frame.h,
		       "the screen is %ux%u, kmscube's frames %ux%u",
		       shot.w, shot.h, frame.w, frame.h);
	vtest_assert_f(!memcmp(shot.rgb, frame.rgb, 3),
		       "the screen's corner is %02x%02x%02x, not kmscube's "
		       "clear colour %02x%02x%02x", shot.rgb[0], shot.rgb[1],
		       shot.rgb[2], frame.rgb[0], frame.rgb[1], frame.rgb[2]);
	vtest_assert_f(shot.rgb[0] | shot.rgb[1] | shot.rgb[2],
		       "the screen's corner is black");
	check_cover(&shot, "screendump");
	image_free(&shot);
	image_free(&frame);
	vtest_assert_eq(vtest_kmsg_problems(kmsg), 0);
	vtest_system("rm -rf %s", workdir);
}

/* ------------------------------------------------------------ weston */

/* weston.ini's background colour, the desktop shell's (0xAARRGGBB). */
#define WESTON_BG	0x1c3a5a
/* Screendumps of it at most, 0.4 s apart. */
#define WESTON_SHOTS	20

/*
 * The most engine time (drm-engine-render in its fdinfo) that a vdxg DRM
 * file among PID's open files reports; -1 when it has none open.
 */
static long long vdxg_render_ns(pid_t pid)
{
	char dir[64], path[PATH_MAX], link[PATH_MAX];
	long long best = -1;
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		unsigned long long ns;
		char *info, *p;
		ssize_t n;

		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		if (strncmp(link, "/dev/dri/", 9))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fdinfo/%s", (int)pid,
			 de->d_name);
		info = slurp(path);
		p = strstr(info, "drm-engine-render:");
		if (strstr(info, "drm-driver:\tvdxg") && p &&
		    sscanf(p, "drm-engine-render: %llu", &ns) == 1 &&
		    (long long)ns > best)
			best = ns;
		free(info);
	}
	closedir(d);
	return best;
}

/* Pixels of IMG within TOL of colour RGB in each channel. */
static size_t count_colour(const struct image *img, uint32_t rgb, int tol)
{
	size_t n = (size_t)img->w * img->h, hits = 0;

	for (size_t i = 0; i < n; i++) {
		const uint8_t *p = img->rgb + i * 3;

		hits += abs(p[0] - (int)(rgb >> 16 & 0xff)) <= tol &&
			abs(p[1] - (int)(rgb >> 8 & 0xff)) <= tol &&
			abs(p[2] - (int)(rgb & 0xff)) <= tol;
	}
	return hits;
}

/* Pixels whose channel CH is over 160 while the two others are under 96:
 * the corners of simple-egl's red, green and blue triangle. */
static size_t count_primary(const struct image *img, int ch)
{
	size_t n = (size_t)img->w * img->h, hits = 0;

	for (size_t i = 0; i < n; i++) {
		const uint8_t *p = img->rgb + i * 3;
		bool ok = p[ch] > 160;

		for (int o = 0; o < 3; o++)
			ok &= o == ch || p[o] < 96;
		hits += ok;
	}
	return hits;
}

/*
 * The screen with weston's desktop and simple-egl's window: most of it
 * weston's background, the window's clear colour (black at alpha 0.5,
 * premultiplied) blended over it, and the triangle's red, green and blue.
 */
static bool check_weston_screen(const struct image *img, const char *what,
				const struct client *w, const struct client *c)
{
	/* Blended: the background's channels halved, give or take one. */
	uint32_t half = (WESTON_BG >> 1) & 0x7f7f7f;
	size_t n = (size_t)img->w * img->h;
	size_t bg = count_colour(img, WESTON_BG, 0);
	size_t win = count_colour(img, half, 2);
	size_t r = count_primary(img, 0), g = count_primary(img, 1);
	size_t b = count_primary(img, 2);
	/* simple-egl's window is 250x250, most of it the clear colour. */
	bool ok = bg > n / 2 && win > 250 * 250 / 2 && win <= 250 * 250;

	vtest_info("%s (%ux%u): background %zu pixels, the window's blended "
		   "clear colour %zu, triangle red %zu, green %zu, blue %zu",
		   what, img->w, img->h, bg, win, r, g, b);
	if (!ok) {
		print_log_tail(w, 20);
		print_log_tail(c, 20);
	}
	vtest_assert_f(bg > n / 2, "%s: weston's background is %zu of %zu "
		       "pixels", what, bg, n);
	vtest_assert_f(win > 250 * 250 / 2 && win <= 250 * 250,
		       "%s: %zu pixels of the window's clear colour blended "
		       "over the background (%06x)", what, win, half);
	/* The triangle turns about the vertical axis: edge on, it is
	 * (nearly) invisible. */
	return r >= 20 && g >= 20 && b >= 20;
}

/* Wait for NEEDLE in C's log; the client must run meanwhile. */
static void wait_for_log(struct client *c, const char *needle,
			 double timeout)
{
	double end = now() + timeout;

	for (;;) {
		char *log = slurp(c->log);
		bool found = strstr(log, needle);

		free(log);
		if (found)
			return;
		if (client_poll(c) >= 0) {
			print_log_tail(c, 40);
			vtest_fail("%s ended before printing '%s'", c->what,
				   needle);
		}
		vtest_assert_f(now() < end, "%s: no '%s' in %.0f s", c->what,
			       needle, timeout);
		usleep(100 * 1000);
	}
}

/*
 * weston-exec, weston-patch: weston's DRM backend and GL renderer on
 * vdxg's card, and weston-simple-egl in it, both by MODEL. weston must
 * name vdxg as its renderer, the client must have spent engine time on a
 * vdxg render node, and screendumps of the display show the desktop
 * with the client's window blended over it, its triangle turning.
 */
static void weston_test(const struct driver *model)
{
	char runtime[128], ini[PATH_MAX], sock[PATH_MAX];
	char *wargv[16], *cargv[] = { "weston-simple-egl", NULL };
	char config[PATH_MAX + 16], device[64];
	uint64_t kmsg = vtest_kmsg_seq();
	struct image shot[2];
	int triangles = 0;
	bool moved = false;
	struct client w, c;
	struct vhostd h;
	long long ns;
	char *log;
	FILE *f;
	int n = 0, rc;

	vtest_require_f(have_program("weston") &&
			have_program("weston-simple-egl"),
			"no weston: it is in the GL image (scripts/vm.sh --gl)");
	find_nodes();
	vtest_require_f(vhostd_open(&h), "no host channel (vdxgvm.hostd on "
			"the kernel command line): no screendump");
	make_workdir();

	/* No seat manager or udev here: devices opened directly, as root. */
	snprintf(runtime, sizeof(runtime), "%s/xdg", workdir);
	vtest_assert_ok(mkdir(runtime, 0700));
	setenv("XDG_RUNTIME_DIR", runtime, 1);
	setenv("LIBSEAT_BACKEND", "noop", 1);
	unsetenv("WAYLAND_DISPLAY");
	snprintf(ini, sizeof(ini), "%s/weston.ini", workdir);
	f = fopen(ini, "w");
	vtest_assert(f);
	fprintf(f, "[core]\nidle-time=0\nrequire-input=false\n\n"
		"[shell]\nbackground-color=0xff%06x\npanel-position=none\n",
		WESTON_BG);
	fclose(f);

	snprintf(device, sizeof(device), "--drm-device=%s",
		 strrchr(card_path, '/') + 1);
	snprintf(config, sizeof(config), "--config=%s", ini);
	wargv[n++] = "weston";
	wargv[n++] = "--backend=drm";
	wargv[n++] = "--renderer=gl";
	wargv[n++] = device;
	wargv[n++] = "--continue-without-input";
	wargv[n++] = "--shell=desktop";
	wargv[n++] = config;
	wargv[n++] = "--socket=wayland-vdxg";
	wargv[n] = NULL;
	client_start(&w, "weston", model, NULL, NULL, wargv);
	/* Up once its socket exists: its output and renderer are set up. */
	snprintf(sock, sizeof(sock), "%s/wayland-vdxg", runtime);
	{
		double end = now() + 120;

		while (!vtest_path_exists(sock)) {
			if (client_poll(&w) >= 0) {
				print_log_tail(&w, 40);
				vtest_fail("weston ended before its socket was "
					   "up");
			}
			vtest_assert_f(now() < end, "weston: no socket in "
				       "120 s");
			usleep(100 * 1000);
		}
	}
	client_check(&w, 0, model, "GL renderer: %s");

	setenv("WAYLAND_DISPLAY", "wayland-vdxg", 1);
	client_start(&c, "simple-egl", model, NULL, NULL, cargv);
	unsetenv("WAYLAND_DISPLAY");
	/* It prints its frame rate every 5 s of frames. */
	wait_for_log(&c, "frames in 5 seconds", 120);
	ns = vdxg_render_ns(c.pid);
	vtest_info("weston-simple-egl: %lld ns on vdxg's render engine", ns);
	vtest_assert_f(ns > 0, "weston-simple-egl has no vdxg DRM file with "
		       "engine time (%lld): not rendering on vdxg", ns);

	/*
	 * Screendumps until one shows the triangle and one differs from the
	 * first: a count, not a time, so that a slow client on a busy host
	 * only takes more of them.
	 */
	for (int i = 0; i < WESTON_SHOTS && !(triangles && moved); i++) {
		struct image *img = &shot[i ? 1 : 0];
		char what[32];
		size_t len;
		uint8_t *ppm;

		if (i)
			usleep(400 * 1000);
		ppm = vhostd_screendump(&h, "weston", 0, &len);
		vtest_assert_f(image_parse(img, ppm, len),
			       "screendump %d is not a binary PPM", i + 1);
		snprintf(what, sizeof(what), "screendump %d", i + 1);
		triangles += check_weston_screen(img, what, &w, &c);
		if (i) {
			moved |= img->w != shot[0].w || img->h != shot[0].h ||
				 memcmp(img->rgb, shot[0].rgb,
					(size_t)shot[0].w * shot[0].h * 3);
			image_free(img);
		}
	}
	vhostd_close(&h);
	vtest_assert_f(triangles > 0, "none of %d screendumps shows the "
		       "triangle's red, green and blue corners", WESTON_SHOTS);
	vtest_assert_f(moved, "%d screendumps are all the same: the "
		       "triangle does not turn", WESTON_SHOTS);
	image_free(&shot[0]);

	vtest_assert_f(client_poll(&c) < 0, "weston-simple-egl ended early");
	rc = client_stop(&c);
	log = slurp(c.log);
	vtest_info("weston-simple-egl: %s", strstr(log, "frames in") ?
		   strstr(log, "frames in") - 4 : "(no frame rate)");
	free(log);
	vtest_assert_f(rc == 128 + SIGTERM, "weston-simple-egl ended with "
		       "status %d on SIGTERM", rc);
	vtest_assert_f(client_poll(&w) < 0, "weston ended early");
	rc = client_stop(&w);
	vtest_assert_f(rc == 0 || rc == 128 + SIGTERM,
		       "weston ended with status %d on SIGTERM", rc);
	unsetenv("XDG_RUNTIME_DIR");
	unsetenv("LIBSEAT_BACKEND");
	vtest_assert_eq(vtest_kmsg_problems(kmsg), 0);
	vtest_system("rm -rf %s", workdir);
}

static void test_weston_exec(void) { weston_test(&drv_exec); }
static void test_weston_patch(void) { weston_test(&drv_patch); }

/* ------------------------------------------------------------ glmark2 */

/* glmark2 2023.01's default benchmarks (DefaultBenchmarks), as it prints
 * them: each must report an FPS. */
static const char *const glmark2_defaults[] = {
	"[build] use-vbo=false",
	"[build] use-vbo=true",
	"[texture] texture-filter=nearest",
	"[texture] texture-filter=linear",
	"[texture] texture-filter=mipmap",
	"[shading] shading=gouraud",
	"[shading] shading=blinn-phong-inf",
	"[shading] shading=phong",
	"[shading] shading=cel",
	"[bump] bump-render=high-poly",
	"[bump] bump-render=normals",
	"[bump] bump-render=height",
	"[effect2d] kernel=0,1,0;1,-4,1;0,1,0;",
	"[effect2d] kernel=1,1,1,1,1;1,1,1,1,1;1,1,1,1,1;",
	"[pulsar] light=false:quads=5:texture=false",
	"[desktop] blur-radius=5:effect=blur:passes=1:separable=true:windows=4",
	"[desktop] effect=shadow:windows=4",
	"[buffer] columns=200:interleave=false:update-dispersion=0.9:"
		"update-fraction=0.5:update-method=map",
	"[buffer] columns=200:interleave=false:update-dispersion=0.9:"
		"update-fraction=0.5:update-method=subdata",
	"[buffer] columns=200:interleave=true:update-dispersion=0.9:"
		"update-fraction=0.5:update-method=map",
	"[ideas] speed=duration",
	"[jellyfish] <default>",
	"[terrain] <default>",
	"[shadow] <default>",
	"[refract] <default>",
	"[conditionals] fragment-steps=0:vertex-steps=0",
	"[conditionals] fragment-steps=5:vertex-steps=0",
	"[conditionals] fragment-steps=0:vertex-steps=5",
	"[function] fragment-complexity=low:fragment-steps=5",
	"[function] fragment-complexity=medium:fragment-steps=5",
	"[loop] fragment-loop=false:fragment-steps=5:vertex-steps=5",
	"[loop] fragment-steps=5:fragment-uniform=false:vertex-steps=5",
	"[loop] fragment-steps=5:fragment-uniform=true:vertex-steps=5",
};

static void glmark2_test(const struct driver *model)
{
	const size_t ndef = VTEST_ARRAY_SIZE(glmark2_defaults);
	uint64_t kmsg = vtest_kmsg_seq();
	char winsys[PATH_MAX + 32], *log, *line, *save;
	char *argv[] = { "glmark2-es2-drm", winsys, "-b", ":duration=1", NULL };
	bool seen[VTEST_ARRAY_SIZE(glmark2_defaults)] = { 0 };
	unsigned int results = 0, bad = 0, missing = 0;
	int score = -1, rc;
	struct client c;
	double t0 = now();

	require_client("glmark2-es2-drm");
	find_nodes();
	make_workdir();
	snprintf(winsys, sizeof(winsys), "--winsys-options=drm-device=%s",
		 card_path);
	client_start(&c, model->name, model, NULL, NULL, argv);
	rc = client_wait(&c, 900);
	vtest_info("glmark2-es2-drm -b :duration=1 on %s: %.0f s, status %d",
		   model->name, now() - t0, rc);
	client_check(&c, 0, model, "GL_RENDERER:    %s");

	log = slurp(c.log);
	for (line = strtok_r(log, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *fps = strstr(line, ": FPS: ");

		results += line[0] == '[';
		if (strstr(line, "Error") || strstr(line, "Unsupported") ||
		    strstr(line, "failed")) {
			vtest_info("BAD: %s", line);
			bad++;
			continue;
		}
		if (sscanf(line, " glmark2 Score: %d", &score) == 1)
			continue;
		if (line[0] != '[')
			continue;
		if (!fps) {
			vtest_info("BAD (no FPS): %s", line);
			bad++;
			continue;
		}
		vtest_info("%s", line);
		for (size_t i = 0; i < ndef; i++)
			if (strlen(glmark2_defaults[i]) == (size_t)(fps - line) &&
			    !strncmp(line, glmark2_defaults[i], fps - line))
				seen[i] = true;
	}
	free(log);
	for (size_t i = 0; i < ndef; i++) {
		if (!seen[i]) {
			vtest_info("MISSING: no FPS for %s", glmark2_defaults[i]);
			missing++;
		}
	}
	vtest_info("glmark2 on %s: %u scenes reported, %u bad, %u of the %zu "
		   "defaults without an FPS; score %d", model->name, results,
		   bad, missing, ndef, score);
	if (rc != 0)
		print_log_tail(&c, 30);
	vtest_assert_f(rc == 0, "glmark2-es2-drm exited with status %d", rc);
	vtest_assert_f(bad == 0 && missing == 0,
		       "%u bad lines, %u default scenes without an FPS",
		       bad, missing);
	vtest_assert_f(score >= 0, "no \"glmark2 Score:\" line");
	vtest_assert_eq(vtest_kmsg_problems(kmsg), 0);
	vtest_system("rm -rf %s", workdir);
}

static void test_glmark2_exec(void) { glmark2_test(&drv_exec); }
static void test_glmark2_patch(void) { glmark2_test(&drv_patch); }

/* ------------------------------------------------ beside other clients */

/*
 * The offscreen kmscube ("bg") by BG_DRV runs (-c 100000, BG_FRAMES
 * saved) while FOREGROUND runs to its end; then its frames complete by
 * the end of the foreground, at least one of them saved after the
 * foreground started, are compared with softpipe's.
 */
static void beside(const struct driver *bg_drv, void (*foreground)(void),
		   const char *fg_name)
{
	static const unsigned int list[BG_MAX_FRAMES] = {
		1, 20, 40, 60, 80, 100, 120, 140, 160, 180, 200, 220, 240,
		260, 280, 300 };
	const struct kmscube bg = { .offscreen = true, .count = 100000 };
	bool before[BG_MAX_FRAMES] = { 0 }, after[BG_MAX_FRAMES] = { 0 };
	unsigned int during = 0, checked = 0;
	char frames[128] = "", path[PATH_MAX];
	const char *softpipe;
	struct image img;
	struct client c;
	double end;
	int rc;

	kmscube_start(&c, "bg", bg_drv, &bg, BG_FRAMES);
	end = now() + 120;
	frame_path(path, sizeof(path), prefix_of("bg"), 1);
	while (!image_try_load(&img, path)) {
		if (client_poll(&c) >= 0) {
			print_log_tail(&c, 30);
			vtest_fail("the offscreen kmscube ended before frame 1");
		}
		vtest_assert_f(now() < end, "offscreen kmscube: no frame 1 "
			       "in 120 s");
		usleep(50 * 1000);
	}
	image_free(&img);
	for (int i = 0; i < BG_MAX_FRAMES; i++) {
		frame_path(path, sizeof(path), prefix_of("bg"), list[i]);
		before[i] = vtest_path_exists(path);
	}

	foreground();

	vtest_assert_f(client_poll(&c) < 0, "the offscreen kmscube ended "
		       "before %s did (see %s)", fg_name, c.log);
	for (int i = 0; i < BG_MAX_FRAMES; i++) {
		frame_path(path, sizeof(path), prefix_of("bg"), list[i]);
		after[i] = image_try_load(&img, path);
		if (after[i])
			image_free(&img);
	}
	rc = client_stop(&c);
	vtest_assert_f(rc == 128 + SIGTERM, "the offscreen kmscube ended "
		       "with status %d on SIGTERM", rc);
	client_check(&c, 0, bg_drv, "renderer: \"%s\"");
	for (int i = 0; i < BG_MAX_FRAMES; i++) {
		if (!after[i])
			continue;
		during += !before[i];
		snprintf(frames + strlen(frames), sizeof(frames) - strlen(frames),
			 "%s%u", *frames ? "," : "", list[i]);
	}
	vtest_info("offscreen kmscube: frames %s saved, %u of them while %s "
		   "ran", frames, during, fg_name);
	vtest_assert_f(during > 0, "the offscreen kmscube saved none of its "
		       "frames %s while %s ran", BG_FRAMES, fg_name);

	/* softpipe's frames, alone: all of BG_FRAMES, for the next ones. */
	softpipe = softpipe_frames(&bg, BG_FRAMES);
	for (int i = 0; i < BG_MAX_FRAMES; i++) {
		if (!after[i])
			continue;
		compare_frame(prefix_of("bg"), softpipe,
			      list[i], false, before[i] ? "offscreen/softpipe" :
			      "offscreen (during)/softpipe");
		checked++;
	}
	vtest_info("offscreen kmscube: %u frames checked", checked);
}

/* two-clients: kmscube on the display by EXEC, frames 1 and 30. */
static void fg_kmscube(void)
{
	const struct kmscube k = { .count = 31 };

	kmscube_run("fg", &drv_exec, &k, "1,30");
}

static void test_two_clients(void)
{
	const struct kmscube k = { .count = 31 };
	uint64_t kmsg = vtest_kmsg_seq();
	const char *softpipe;

	require_client("kmscube");
	find_nodes();
	make_workdir();
	beside(&drv_patch, fg_kmscube, "the KMS kmscube");
	softpipe = softpipe_frames(&k, "1,30");

	compare_frame(prefix_of("fg"), softpipe, 1, false, "KMS/softpipe");
	compare_frame(prefix_of("fg"), softpipe, 30, false, "KMS/softpipe");
	vtest_assert_eq(vtest_kmsg_problems(kmsg), 0);
	vtest_system("rm -rf %s", workdir);
}

/* gl-beside-present: vdxg-demo --3d -p for a while (it runs until
 * SIGTERM: -t 0), its frames checked (-c 10). */
static void fg_demo(void)
{
	char *argv[] = { "vdxg-demo", "--3d", "-p", "-c", "20", "-t", "0",
			 "-d", card_path, NULL };
	struct client c;
	double end;
	int rc;

	client_start(&c, "demo", NULL, NULL, NULL, argv);
	/* It prints a line of frame rates a second: let it run 6 of them. */
	end = now() + 120;
	for (;;) {
		char *log = slurp(c.log);
		int lines = 0;

		for (char *p = log; (p = strstr(p, "vdxg-demo: frame ")); p++)
			lines++;
		free(log);
		if (lines >= 6)
			break;
		if (client_poll(&c) >= 0) {
			print_log_tail(&c, 30);
			vtest_fail("vdxg-demo ended early");
		}
		vtest_assert_f(now() < end, "vdxg-demo: no 6 s of frames in "
			       "120 s");
		usleep(200 * 1000);
	}
	/* On SIGTERM it draws and checks one more frame against the
	 * reference pipeline on the CPU: seconds under TCG. */
	rc = client_stop_grace(&c, 120);
	print_log_tail(&c, 6);
	vtest_assert_f(rc == 0, "vdxg-demo exited with status %d (1: a frame "
		       "unlike the reference pipeline's)", rc);
}

static void test_gl_beside_present(void)
{
	uint64_t kmsg = vtest_kmsg_seq();

	require_client("kmscube");
	vtest_require_f(have_program("vdxg-demo"), "no vdxg-demo");
	find_nodes();
	make_workdir();
	beside(&drv_exec, fg_demo, "vdxg-demo");
	vtest_assert_eq(vtest_kmsg_problems(kmsg), 0);
	vtest_system("rm -rf %s", workdir);
}

/*
 * gl-beside-kms-test: IGT's kms_atomic, every subtest. IGT tests write
 * their subtests' names to /dev/kmsg, where igt_runner would take them for
 * this test's: kms_atomic runs in a mount namespace of its own whose
 * /dev/kmsg is /dev/null.
 */
static void fg_kms_atomic(void)
{
	char *argv[] = { "unshare", "-m", "sh", "-c",
			 "mount --bind /dev/null /dev/kmsg && exec "
			 KMS_TEST_DIR "/kms_atomic", NULL };
	struct client c;
	char *log, *p;
	int rc, ok = 0;

	client_start(&c, "kms_atomic", NULL, NULL, NULL, argv);
	rc = client_wait(&c, 240);
	log = slurp(c.log);
	for (p = log; (p = strstr(p, ": SUCCESS")); p++)
		ok++;
	free(log);
	vtest_info("kms_atomic: status %d, %d subtests passed", rc, ok);
	if (rc != 0)
		print_log_tail(&c, 30);
	vtest_assert_f(rc == 0 && ok > 0, "kms_atomic exited with status %d",
		       rc);
}

static void test_gl_beside_kms_test(void)
{
	uint64_t kmsg = vtest_kmsg_seq();

	require_client("kmscube");
	vtest_require_f(vtest_path_exists(KMS_TEST_DIR "/kms_atomic"),
			"no IGT kms_atomic");
	find_nodes();
	make_workdir();
	beside(&drv_patch, fg_kms_atomic, "kms_atomic");
	vtest_assert_eq(vtest_kmsg_problems(kmsg), 0);
	vtest_system("rm -rf %s", workdir);
}

/* ------------------------------------------------------ robustness */

/*
 * robustness-exec, robustness-patch: vdxg-gl-reset's fragment program
 * loops past the engine's step limit; the kernel bans its context, and
 * GL_EXT_robustness must report a reset (and the client not crash).
 * Then kmscube, another process, still renders by the same model.
 */
static void robustness_test(const struct driver *drv)
{
	uint64_t kmsg = vtest_kmsg_seq();
	char *argv[] = { "vdxg-gl-reset", render_path, NULL };
	char *cube[] = { "kmscube", "-N", "-c", "3", NULL };
	struct client c;
	char *log;
	int rc;

	require_client("kmscube");
	vtest_require_f(vtest_path_exists("/opt/vdxg/bin/vdxg-gl-reset"),
			"no vdxg-gl-reset");
	find_nodes();
	make_workdir();
	/* The fault and the ban the kernel logs (vrender.h's VR_RESET_DMESG) */
	vtest_ignore_dmesg("engine: context [0-9]+ (hung|ran too long), "
			   "resetting|engine [01] fault: |a client hung the "
			   "GPU [0-9]+ times|callbacks suppressed");
	client_start(&c, "reset", drv, NULL, NULL, argv);
	rc = client_wait(&c, 120);
	log = slurp(c.log);
	vtest_info("vdxg-gl-reset: status %d: %s", rc, log);
	vtest_assert_f(rc == 0 && strstr(log, "reset: guilty"),
		       "no guilty reset reported (status %d)", rc);
	free(log);
	/* The kernel names the device's reason (SHADER: the step limit). */
	vtest_assert_f(vtest_kmsg_grep(kmsg, "fault: shader") > 0,
		       "no \"fault: shader\" in the kernel log");

	client_start(&c, "after", drv, NULL, NULL, cube);
	rc = client_wait(&c, 120);
	log = slurp(c.log);
	vtest_assert_f(rc == 0 && strstr(log, drv->renderer),
		       "kmscube after the reset: status %d", rc);
	free(log);
	/* The fault is logged as an error; vm.sh fails the run on a WARN. */
	vtest_system("rm -rf %s", workdir);
}

static void test_robustness_exec(void) { robustness_test(&drv_exec); }
static void test_robustness_patch(void) { robustness_test(&drv_patch); }

/* ------------------------------------------------------ small buffers */

/*
 * small-buffers-exec, small-buffers-patch: vdxg-gl-bufs draws from 256
 * vertex buffers of 48 bytes, then respecifies them all while the GPU may
 * still read them, then churns (16 rounds of a respecification before
 * each draw, no waits): every pixel must be right, and the buffers must
 * share objects (suballocation): less than half of the 1024 KiB that an
 * object each (a page at least) would take.
 */
static void small_buffers_test(const struct driver *drv)
{
	uint64_t kmsg = vtest_kmsg_seq();
	char *argv[] = { "vdxg-gl-bufs", render_path, NULL };
	struct client c;
	long long kib = -1;
	char *log, *p;
	int rc;

	vtest_require_f(vtest_path_exists("/opt/vdxg/bin/vdxg-gl-bufs"),
			"no vdxg-gl-bufs");
	find_nodes();
	make_workdir();
	client_start(&c, "bufs", drv, NULL, NULL, argv);
	rc = client_wait(&c, 120);
	log = slurp(c.log);
	vtest_info("vdxg-gl-bufs by %s: status %d: %s", drv->name, rc, log);
	p = strstr(log, "buffer objects: ");
	if (p)
		sscanf(p, "buffer objects: %lld", &kib);
	free(log);
	vtest_assert_f(rc == 0, "vdxg-gl-bufs: status %d (1: wrong pixels)",
		       rc);
	vtest_assert_f(kib >= 0 && kib < 512, "256 buffers of 48 bytes took "
		       "%lld KiB of objects: not suballocated", kib);
	vtest_assert_eq(vtest_kmsg_problems(kmsg), 0);
	vtest_system("rm -rf %s", workdir);
}

static void test_small_buffers_exec(void) { small_buffers_test(&drv_exec); }
static void test_small_buffers_patch(void) { small_buffers_test(&drv_patch); }

/* ------------------------------------------------------------ piglit */

#define PIGLIT		"/usr/bin/piglit"
#define PIGLIT_LIST	"/opt/vdxg/lists/piglit-gles2-tests.txt"
#define PIGLIT_EXPECTED	"/opt/vdxg/lists/piglit-expected-failures.txt"
/* The listed tests' profile (scripts/piglit-profile.py) */
#define PIGLIT_PROFILE	"/opt/vdxg/lists/piglit-gles2.xml.gz"
/* vdxg-igt-run's directory that the harness brings back to the host. */
#define PIGLIT_COLLECT	"/tmp/igt/collect"
#define PIGLIT_TIMEOUT	"120"	/* seconds, each test */
#define PIGLIT_SUBTEST_TIMEOUT	1500	/* seconds, the whole run */

/* Expected failures: "test-name  # reason" a line; names may have spaces. */
struct piglit_expected {
	char **names;
	bool *seen;
	size_t n;
};

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' ||
			 e[-1] == '\r'))
		*--e = 0;
	return s;
}

static void piglit_expected_load(struct piglit_expected *x, const char *path)
{
	char *text = slurp(path), *line, *save;

	memset(x, 0, sizeof(*x));
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *hash = strchr(line, '#'), *name;

		if (hash)
			*hash = 0;
		name = trim(line);
		if (!*name)
			continue;
		x->names = realloc(x->names, (x->n + 1) * sizeof(*x->names));
		vtest_assert(x->names);
		x->names[x->n++] = strdup(name);
	}
	x->seen = calloc(x->n + 1, sizeof(*x->seen));
	vtest_assert(x->seen);
	free(text);
}

static bool piglit_expected_has(struct piglit_expected *x, const char *name)
{
	for (size_t i = 0; i < x->n; i++) {
		if (!strcmp(x->names[i], name)) {
			x->seen[i] = true;
			return true;
		}
	}
	return false;
}

/*
 * The tests to run by MODEL, as a list file in LIST: all of them by EXEC;
 * by the patch model those that submit work (the compiler, preprocessor
 * and linker tests only compile: the model cannot change them).
 */
static void piglit_list(const struct driver *model, char *list, size_t len)
{
	char *text, *line, *save;
	FILE *f;

	if (model != &drv_patch) {
		snprintf(list, len, "%s", PIGLIT_LIST);
		return;
	}
	snprintf(list, len, "%s/piglit-%s.txt", workdir, model->name);
	text = slurp(PIGLIT_LIST);
	f = fopen(list, "w");
	vtest_assert_f(f, "%s: %s", list, strerror(errno));
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strstr(line, "@compiler") && !strstr(line, "@preprocessor") &&
		    !strstr(line, "@linker"))
			fprintf(f, "%s\n", line);
	}
	vtest_assert(fclose(f) == 0);
	free(text);
}

/*
 * piglit-gles2-MODEL: piglit's runner over igt-tests/piglit-gles2-tests.txt
 * (piglit run PIGLIT_PROFILE --test-list, PIGLIT_PLATFORM gbm: GBM
 * surfaces on vdxg's render node) by MODEL; its results (results.json, summary.txt) in
 * PIGLIT_COLLECT/piglit-gles2-MODEL/. Every test that ends other than
 * pass or skip (fail, crash, timeout, warn, incomplete, dmesg-*) must be
 * in igt-tests/piglit-expected-failures.txt; one listed that passes is
 * reported, not failed. wflinfo first checks that the GLES 2 context of
 * that platform is vdxg's, by MODEL.
 */
static void piglit_test(const struct driver *model)
{
	static const char *const bad[] = { "fail", "crash", "timeout", "warn",
		"incomplete", "dmesg-warn", "dmesg-fail" };
	uint64_t kmsg = vtest_kmsg_seq();
	char dir[PATH_MAX], summary[PATH_MAX + 16], what[64];
	char gbm_dev[PATH_MAX + 32];
	char *wflinfo[] = { "env", gbm_dev, "wflinfo", "-p", "gbm", "-a",
			    "gles2", NULL };
	char list[PATH_MAX];
	char *run[] = { "env", gbm_dev, "PIGLIT_COMPRESSION=none", PIGLIT,
			"run", PIGLIT_PROFILE,
			"--test-list", list, "-p", "gbm", "--timeout",
			PIGLIT_TIMEOUT, "-l", "dummy", dir, NULL };
	char *sum[] = { PIGLIT, "summary", "console", dir, NULL };
	unsigned int pass = 0, skip = 0, failed = 0, expected = 0,
		     unexpected = 0, other = 0;
	struct piglit_expected x;
	char *log, *line, *save;
	struct client c;
	double t0;
	int rc;

	vtest_require_f(vtest_path_exists(PIGLIT), "no piglit: it is in the "
			"GL image (scripts/vm.sh --gl)");
	/*
	 * Some hundred tests, two at a time where piglit lets them run
	 * concurrently; the bound is for a hang, not for a slow machine.
	 */
	vtest_set_timeout(PIGLIT_SUBTEST_TIMEOUT);
	vtest_require_f(have_program("wflinfo"), "no wflinfo (waffle-utils)");
	vtest_assert_f(vtest_path_exists(PIGLIT_LIST), "no %s", PIGLIT_LIST);
	find_nodes();
	make_workdir();
	piglit_expected_load(&x, PIGLIT_EXPECTED);
	piglit_list(model, list, sizeof(list));
	/* waffle's GBM platform: vdxg's render node, named. */
	snprintf(gbm_dev, sizeof(gbm_dev), "WAFFLE_GBM_DEVICE=%s", render_path);

	snprintf(what, sizeof(what), "wflinfo-%s", model->name);
	client_start(&c, what, model, NULL, NULL, wflinfo);
	client_check(&c, client_wait(&c, 120), model,
		     "OpenGL renderer string: %s");

	if (vtest_path_exists(PIGLIT_COLLECT))
		snprintf(dir, sizeof(dir), PIGLIT_COLLECT "/piglit-gles2-%s",
			 model->name);
	else
		snprintf(dir, sizeof(dir), "%s/piglit-gles2-%s", workdir,
			 model->name);
	vtest_system("rm -rf '%s'", dir);
	snprintf(what, sizeof(what), "piglit-%s", model->name);
	t0 = now();
	client_start(&c, what, model, NULL, NULL, run);
	rc = client_wait(&c, 840);
	vtest_info("piglit run on %s: %.0f s, status %d", model->name,
		   now() - t0, rc);
	if (rc != 0)
		print_log_tail(&c, 30);
	vtest_assert_f(rc == 0, "piglit run exited with status %d", rc);

	/* "spec/group/test: status" lines (piglit's '@' shown as '/'), then
	 * "summary:" and the counts. */
	client_start(&c, "piglit-summary", NULL, NULL, NULL, sum);
	rc = client_wait(&c, 300);
	if (rc != 0)
		print_log_tail(&c, 30);
	vtest_assert_f(rc == 0, "piglit summary exited with status %d", rc);
	snprintf(summary, sizeof(summary), "%s/summary.txt", dir);
	vtest_system("cp '%s' '%s'", c.log, summary);
	log = slurp(c.log);
	for (line = strtok_r(log, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *sep = strrchr(line, ':'), *status;
		bool is_bad = false;

		if (!strncmp(line, "summary:", 8))
			break;
		if (!sep || sep[1] != ' ')
			continue;
		*sep = 0;
		status = trim(sep + 1);
		for (char *p = line; *p; p++)
			if (*p == '/')
				*p = '@';
		if (!strcmp(status, "pass")) {
			pass++;
			continue;
		}
		/* notrun: a subtest of a test that skipped as a whole. */
		if (!strcmp(status, "skip") || !strcmp(status, "notrun")) {
			skip++;
			continue;
		}
		for (size_t i = 0; i < VTEST_ARRAY_SIZE(bad); i++)
			is_bad |= !strcmp(status, bad[i]);
		if (!is_bad) {
			/* notrun and the like: a test the list names that
			 * the profile has not. */
			vtest_info("piglit: %s: %s (neither pass nor skip)",
				   line, status);
			other++;
			continue;
		}
		failed++;
		if (piglit_expected_has(&x, line)) {
			expected++;
			vtest_info("piglit: %s: %s (expected)", line, status);
		} else {
			unexpected++;
			vtest_info("piglit: %s: %s (UNEXPECTED)", line, status);
		}
	}
	free(log);
	for (size_t i = 0; i < x.n; i++)
		if (!x.seen[i])
			vtest_info("piglit: %s: expected to fail, did not",
				   x.names[i]);
	vtest_info("piglit on %s: %u tests: %u pass, %u fail (%u expected, "
		   "%u unexpected), %u skip, %u other; results in %s",
		   model->name, pass + skip + failed + other, pass, failed,
		   expected, unexpected, skip, other, dir);
	vtest_assert_f(pass > 0, "no piglit test passed");
	vtest_assert_f(unexpected == 0 && other == 0, "%u unexpected piglit "
		       "failures, %u tests not run (see %s)", unexpected, other,
		       summary);
	vtest_assert_eq(vtest_kmsg_problems(kmsg), 0);
	vtest_system("rm -rf %s", workdir);
}

static void test_piglit_gles2_exec(void) { piglit_test(&drv_exec); }
static void test_piglit_gles2_patch(void) { piglit_test(&drv_patch); }

static const struct vtest_subtest tests[] = {
	{ "kmscube-smooth-exec", test_kmscube_smooth_exec,
	  "kmscube -c 31 by vdxg (EXEC): frames 1 and 30 against softpipe's" },
	{ "kmscube-smooth-patch", test_kmscube_smooth_patch,
	  "kmscube -c 31 by vdxg (patch): against softpipe, and the EXEC "
	  "model's frames bit for bit" },
	{ "kmscube-rgba-exec", test_kmscube_rgba_exec,
	  "kmscube -M rgba -c 31 by vdxg (EXEC) against softpipe" },
	{ "kmscube-rgba-patch", test_kmscube_rgba_patch,
	  "kmscube -M rgba by vdxg (patch): against softpipe and EXEC" },
	{ "kmscube-screendump", test_kmscube_screendump,
	  "the host's screendump while kmscube runs shows the cube" },
	{ "glmark2-exec", test_glmark2_exec,
	  "glmark2-es2-drm's default scenes, a second each, by EXEC" },
	{ "glmark2-patch", test_glmark2_patch,
	  "glmark2-es2-drm's default scenes, a second each, by patch" },
	{ "weston-exec", test_weston_exec,
	  "weston (DRM backend, GL renderer) and weston-simple-egl by EXEC: "
	  "both on vdxg, the desktop and the client screendumped" },
	{ "weston-patch", test_weston_patch,
	  "the same by the patch model" },
	{ "two-clients", test_two_clients,
	  "kmscube on the display and kmscube -O on the render node at "
	  "once; both against softpipe" },
	{ "gl-beside-present", test_gl_beside_present,
	  "kmscube -O while vdxg-demo --3d flips by PRESENT with VRAM "
	  "oversubscribed" },
	{ "gl-beside-kms-test", test_gl_beside_kms_test,
	  "kmscube -O while IGT's kms_atomic runs" },
	{ "robustness-exec", test_robustness_exec,
	  "a fragment program past the step limit: the context is banned, "
	  "GL_EXT_robustness reports a guilty reset; kmscube renders after" },
	{ "robustness-patch", test_robustness_patch,
	  "the same by the patch model" },
	{ "small-buffers-exec", test_small_buffers_exec,
	  "256 small vertex buffers drawn, respecified while in use, drawn "
	  "again, churned: right pixels, and one object between them, by "
	  "EXEC" },
	{ "small-buffers-patch", test_small_buffers_patch,
	  "the same by the patch model" },
	{ "piglit-gles2-exec", test_piglit_gles2_exec,
	  "piglit's GLES 2.0 tests (piglit-gles2-tests.txt) by EXEC" },
	{ "piglit-gles2-patch", test_piglit_gles2_patch,
	  "piglit's GLES 2.0 tests that submit work, by the patch model" },
};

VTEST_MAIN(tests)
