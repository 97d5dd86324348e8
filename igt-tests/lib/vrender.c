// SPDX-License-Identifier: MIT
/*
 * vrender: helpers for vdxg's RENDER-engine tests. See vrender.h.
 */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/sync_file.h>
#include <xf86drm.h>

#include "vrender.h"

_Static_assert(sizeof(struct vr_vertex) == VDXG_VERTEX_SIZE,
	       "struct vr_vertex is the engine's vertex");

double vr_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void vr_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* -------------------------------------------------------------- device */

uint64_t vr_param(struct vr *vr, uint32_t param)
{
	uint64_t v = 0;
	int ret = vdxg_get_param(vr->dev, param, &v);

	vtest_assert_f(ret == 0, "GET_PARAM %u: %s", param, strerror(-ret));
	return v;
}

uint64_t vr_commit_room(struct vr *vr, uint64_t want)
{
	uint64_t room = vr_param(vr, DRM_VDXG_PARAM_COMMIT_LIMIT) / 8 * 7;

	return want < room ? want : room;
}

void vr_open_dev(struct vr *vr, struct vdxg_device *dev)
{
	uint32_t ctx;
	int ret;

	memset(vr, 0, sizeof(*vr));
	vr->dev = dev;
	vr->fd = vdxg_device_fd(dev);
	vtest_require_f(vr_param(vr, DRM_VDXG_PARAM_ENGINES) &
			BIT(VDXG_ENGINE_RENDER),
			"device has no RENDER engine (ENGINES bit 0 clear)");
	/* Probe: the driver may still have no render path. */
	ret = vdxg_context_create(dev, DRM_VDXG_ENGINE_RENDER,
				  DRM_VDXG_PRIORITY_NORMAL, 0, &ctx);
	vtest_require_f(ret != -ENODEV, "CONTEXT_CREATE: no render engine");
	vtest_assert_f(ret == 0, "CONTEXT_CREATE: %s", strerror(-ret));
	vdxg_context_destroy(dev, ctx);

	vr->vram_size = vr_param(vr, DRM_VDXG_PARAM_VRAM_SIZE);
	vr->aperture_size = vr_param(vr, DRM_VDXG_PARAM_APERTURE_SIZE);
	vr->max_command_size = vr_param(vr, DRM_VDXG_PARAM_MAX_COMMAND_SIZE);
	vr->max_allocations = vr_param(vr, DRM_VDXG_PARAM_MAX_ALLOCATIONS);
	vr->max_patches = vr_param(vr, DRM_VDXG_PARAM_MAX_PATCHES);
}

void vr_open(struct vr *vr)
{
	struct vdxg_device *dev = NULL;
	int ret;

	memset(vr, 0, sizeof(*vr));
	ret = vdxg_device_open(NULL, &dev);
	if (ret == -ENODEV || ret == -ENOENT)
		vtest_skip("no vdxg render node");
	vtest_assert_f(ret == 0, "vdxg_device_open: %s", strerror(-ret));
	vr_open_dev(vr, dev);
}

uint8_t *vr_hold_bo(struct vr *vr, struct vdxg_bo **bo)
{
	uint8_t *map;

	*bo = vr_bo(vr, 4096, DRM_VDXG_SEGMENT_VRAM, 0);
	map = vr_map(*bo);
	memset(map, 0, 4096);
	return map;
}

void vr_close(struct vr *vr)
{
	if (vr->dev)
		vdxg_device_close(vr->dev);
	vr->dev = NULL;
}

uint32_t vr_ctx(struct vr *vr)
{
	uint32_t ctx = 0;
	int ret = vdxg_context_create(vr->dev, DRM_VDXG_ENGINE_RENDER,
				      DRM_VDXG_PRIORITY_NORMAL, 0, &ctx);

	vtest_assert_f(ret == 0, "CONTEXT_CREATE: %s", strerror(-ret));
	vtest_assert(ctx != 0);
	return ctx;
}

struct drm_vdxg_reset_status vr_reset_status(struct vr *vr, uint32_t ctx)
{
	struct drm_vdxg_reset_status st;
	int ret;

	memset(&st, 0, sizeof(st));
	ret = vdxg_context_reset_status(vr->dev, ctx, &st);
	vtest_assert_f(ret == 0, "GET_RESET_STATUS of context %u: %s", ctx,
		       strerror(-ret));
	return st;
}

/* ----------------------------------------------------------------- BOs */

struct vdxg_bo *vr_bo(struct vr *vr, uint64_t size, uint32_t seg0,
		      uint32_t seg1)
{
	uint32_t segs[2] = { seg0, seg1 };
	struct vdxg_bo *bo = NULL;
	int ret;

	ret = vdxg_bo_create(vr->dev, size, segs, seg1 ? 2 : 1,
			     DRM_VDXG_GEM_CPU_ACCESS, &bo);
	vtest_assert_f(ret == 0, "GEM_CREATE of %" PRIu64 " bytes: %s", size,
		       strerror(-ret));
	return bo;
}

void *vr_map(struct vdxg_bo *bo)
{
	void *p = NULL;
	int ret = vdxg_bo_map(bo, &p);

	vtest_assert_f(ret == 0 && p, "mapping object %u: %s", bo->handle,
		       strerror(-ret));
	return p;
}

void vr_bo_wait(struct vdxg_bo *bo)
{
	int ret = vdxg_bo_wait(bo, VR_WAIT_NS);

	vtest_assert_f(ret == 0, "GEM_WAIT of object %u: %s", bo->handle,
		       strerror(-ret));
}

bool vr_bo_idle(struct vdxg_bo *bo)
{
	int ret = vdxg_bo_wait(bo, 0);

	vtest_assert_f(ret == 0 || ret == -EBUSY || ret == -ETIME,
		       "GEM_WAIT poll of object %u: %s", bo->handle,
		       strerror(-ret));
	return ret == 0;
}

uint32_t vr_bo_segment(struct vdxg_bo *bo)
{
	uint32_t seg = 0;
	int ret = vdxg_bo_info(bo, &seg, NULL);

	vtest_assert_f(ret == 0, "GEM_INFO: %s", strerror(-ret));
	return seg;
}

uint64_t vr_bo_gpu_addr(struct vdxg_bo *bo)
{
	uint64_t addr = 0;
	int ret = vdxg_bo_info(bo, NULL, &addr);

	vtest_assert_f(ret == 0, "GEM_INFO: %s", strerror(-ret));
	return addr;
}

uint64_t vr_read64(const void *map, uint64_t offset)
{
	const volatile uint32_t *p =
		(const volatile uint32_t *)((const uint8_t *)map + offset);

	return p[0] | (uint64_t)p[1] << 32;
}

void vr_write64(void *map, uint64_t offset, uint64_t value)
{
	volatile uint32_t *p = (volatile uint32_t *)((uint8_t *)map + offset);

	/* High half first: a WAIT polling the value never sees a torn one
	 * that is larger than both the old and the new value. */
	p[1] = value >> 32;
	p[0] = (uint32_t)value;
	__sync_synchronize();
}

void vr_wait64(const void *map, uint64_t offset, uint64_t value,
	       const char *what)
{
	double end = vr_now() + (double)VR_WAIT_NS / VR_SEC;
	uint64_t v;

	while ((v = vr_read64(map, offset)) != value && vr_now() < end)
		vr_sleep_ms(1);
	vtest_assert_f(v == value, "%s: 0x%" PRIx64 " at offset %" PRIu64
		       " after %lld s, expected 0x%" PRIx64, what, v, offset,
		       VR_WAIT_NS / VR_SEC, value);
}

/* -------------------------------------------------------------- submit */

struct vdxg_cs *vr_cs(void)
{
	struct vdxg_cs *cs = NULL;

	vtest_assert(vdxg_cs_create(&cs) == 0 && cs);
	return cs;
}

void vr_cs_ok(struct vdxg_cs *cs)
{
	int err = vdxg_cs_error(cs);

	vtest_assert_f(err == 0, "command-stream builder error %s",
		       strerror(-err));
}

void vr_submit(struct vr *vr, uint32_t ctx, struct vdxg_cs *cs,
	       struct vdxg_submit_opts *opts)
{
	int ret;

	vr_cs_ok(cs);
	ret = vdxg_submit(vr->dev, ctx, cs, opts);
	vtest_assert_f(ret == 0, "SUBMIT of %u dwords on context %u: %d (%s)",
		       vdxg_cs_num_dwords(cs), ctx, ret, strerror(-ret));
}

void vr_fence_check(struct vr *vr, uint32_t ctx, struct vdxg_bo *bo,
		    uint32_t offset, uint64_t value)
{
	struct vdxg_cs *cs = vr_cs();
	uint8_t *map = vr_map(bo);

	vr_write64(map, offset, 0);
	vdxg_cs_fence(cs, bo, offset, DRM_VDXG_ALLOC_WRITE, value);
	vr_submit(vr, ctx, cs, NULL);
	vr_bo_wait(bo);
	vtest_assert_eq_u64(vr_read64(map, offset), value);
	vdxg_cs_free(cs);
}

void vr_cs_fault(struct vr *vr, struct vdxg_cs *cs, struct vdxg_bo **dst,
		 struct vdxg_bo **vb)
{
	struct vr_vertex v[3] = {
		{ VDXG_VTX_COORD_MAX + 16, 8, 0, 0xffffffff, 0, 0, { 0, 0 } },
		{ 16 * 8, 8, 0, 0xffffffff, 0, 0, { 0, 0 } },
		{ 8, 16 * 8, 0, 0xffffffff, 0, 0, { 0, 0 } },
	};

	*dst = vr_bo(vr, 4096, DRM_VDXG_SEGMENT_VRAM, 0);
	*vb = vr_bo(vr, 4096, DRM_VDXG_SEGMENT_VRAM, 0);
	memcpy(vr_map(*vb), v, sizeof(v));
	vdxg_cs_set_surface(cs, VDXG_SLOT_DST, *dst, 0, DRM_VDXG_ALLOC_WRITE,
			    VDXG_FMT_XRGB8888, 16, 16, 64);
	vdxg_cs_draw_triangles(cs, 0, 3, *vb, 0, 0);
}

struct drm_vdxg_reset_status vr_wait_banned(struct vr *vr, uint32_t ctx)
{
	double end = vr_now() + 30;
	struct drm_vdxg_reset_status st;

	do {
		st = vr_reset_status(vr, ctx);
		if (st.flags & DRM_VDXG_RESET_BANNED)
			return st;
		vr_sleep_ms(20);
	} while (vr_now() < end);
	vtest_fail("context %u not banned 30 s after its fault or hang "
		   "(flags 0x%x, guilty %u, innocent %u)", ctx, st.flags,
		   st.guilty, st.innocent);
}

/* ------------------------------------------------------------ syncobjs */

uint32_t vr_syncobj(struct vr *vr, bool signaled)
{
	uint32_t h = 0;
	int ret = vdxg_syncobj_create(vr->dev,
				      signaled ? DRM_SYNCOBJ_CREATE_SIGNALED : 0,
				      &h);

	vtest_assert_f(ret == 0, "SYNCOBJ_CREATE: %s", strerror(-ret));
	return h;
}

int vr_syncobj_wait(struct vr *vr, uint32_t handle, uint64_t point,
		    int64_t rel_timeout_ns)
{
	return vdxg_syncobj_wait(vr->dev, &handle, point ? &point : NULL, 1,
				 vdxg_timeout_abs(rel_timeout_ns), 0, NULL);
}

int vr_syncobj_status(struct vr *vr, uint32_t handle, uint64_t point)
{
	struct sync_file_info info;
	uint32_t binary = handle;
	int fd = -1, ret;

	/* A timeline point: through a binary syncobj holding its fence. */
	if (point) {
		vtest_assert_ok(drmSyncobjCreate(vr->fd, 0, &binary));
		ret = drmSyncobjTransfer(vr->fd, binary, 0, handle, point, 0);
		vtest_assert_f(ret == 0, "transferring point %" PRIu64
			       " of syncobj %u: %s", point, handle,
			       strerror(errno));
	}
	ret = drmSyncobjExportSyncFile(vr->fd, binary, &fd);
	vtest_assert_f(ret == 0, "exporting syncobj %u as a sync_file: %s",
		       binary, strerror(errno));
	if (point)
		drmSyncobjDestroy(vr->fd, binary);
	memset(&info, 0, sizeof(info));
	ret = ioctl(fd, SYNC_IOC_FILE_INFO, &info);
	vtest_assert_f(ret == 0, "SYNC_IOC_FILE_INFO: %s", strerror(errno));
	close(fd);
	return info.status;
}

/* --------------------------------------------------------- expectations */

uint32_t vr_cpp(uint32_t format)
{
	return format == VDXG_FMT_RGB565 ? 2 : 4;
}

const char *vr_format_name(uint32_t format)
{
	switch (format) {
	case VDXG_FMT_XRGB8888: return "xrgb8888";
	case VDXG_FMT_ARGB8888: return "argb8888";
	case VDXG_FMT_RGB565: return "rgb565";
	case VDXG_FMT_D32: return "d32";
	}
	return "?";
}

void vr_buf_init(struct vr *vr, struct vr_buf *b, uint64_t size,
		 uint32_t segment)
{
	memset(b, 0, sizeof(*b));
	b->bo = vr_bo(vr, size, segment, 0);
	b->size = b->bo->size;
	b->segment = segment;
	b->map = vr_map(b->bo);
	b->ref = malloc(b->size);
	vtest_assert(b->ref);
	/* New objects are cleared; start from what is there. */
	memcpy(b->ref, b->map, b->size);
}

void vr_buf_fini(struct vr_buf *b)
{
	vdxg_bo_free(b->bo);
	free(b->ref);
	memset(b, 0, sizeof(*b));
}

void vr_buf_randomize(struct vr_buf *b, uint64_t *rng)
{
	uint64_t i;

	for (i = 0; i + 4 <= b->size; i += 4) {
		uint32_t v = vr_rand(rng);

		memcpy(b->ref + i, &v, 4);
	}
	memcpy(b->map, b->ref, b->size);
}

void vr_buf_sync_ref(struct vr_buf *b)
{
	memcpy(b->ref, b->map, b->size);
}

struct vr_surf vr_surf(struct vr_buf *b, uint32_t offset, uint32_t format,
		       uint32_t w, uint32_t h)
{
	struct vr_surf s = {
		.buf = b, .offset = offset, .format = format,
		.width = w, .height = h,
		.pitch = (w * vr_cpp(format) + 63) & ~63u,
	};

	vtest_assert_f(offset + vr_surf_extent(&s) <= b->size,
		       "surface %ux%u at %u does not fit %" PRIu64 " bytes",
		       w, h, offset, b->size);
	return s;
}

uint64_t vr_surf_extent(const struct vr_surf *s)
{
	return (uint64_t)s->pitch * (s->height - 1) +
	       (uint64_t)s->width * vr_cpp(s->format);
}

struct vdxg_ref_surface vr_ref(const struct vr_surf *s)
{
	struct vdxg_ref_surface r = {
		.data = s->buf->ref + s->offset,
		.format = s->format,
		.width = s->width,
		.height = s->height,
		.pitch = s->pitch,
	};

	return r;
}

void vr_cs_surface(struct vdxg_cs *cs, uint32_t slot, const struct vr_surf *s)
{
	uint32_t flags = slot == VDXG_SLOT_DST || slot == VDXG_SLOT_DEPTH ?
			 DRM_VDXG_ALLOC_WRITE : 0;

	vdxg_cs_set_surface(cs, slot, s->buf->bo, s->offset, flags, s->format,
			    s->width, s->height, s->pitch);
}

static uint32_t load_px(const uint8_t *p, uint32_t cpp)
{
	return cpp == 2 ? (uint32_t)(p[0] | p[1] << 8) :
	       (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* Describe byte OFF of the object in terms of the surfaces, into BUF. */
static void where(const struct vr_buf *b, const uint8_t *got, uint64_t off,
		  const struct vr_surf *surfs, int nsurf, char *buf,
		  size_t len)
{
	int i;

	for (i = 0; i < nsurf; i++) {
		const struct vr_surf *s = &surfs[i];
		uint32_t cpp = vr_cpp(s->format);
		uint64_t rel, x, y, px;

		if (s->buf != b || off < s->offset ||
		    off >= s->offset + vr_surf_extent(s))
			continue;
		rel = off - s->offset;
		y = rel / s->pitch;
		x = (rel % s->pitch) / cpp;
		if (x >= s->width)
			continue;	/* padding between rows */
		px = s->offset + y * s->pitch + x * cpp;
		snprintf(buf, len, "surface %d (%s %ux%u) pixel (%" PRIu64
			 ", %" PRIu64 "): got 0x%0*x, expected 0x%0*x", i,
			 vr_format_name(s->format), s->width, s->height, x, y,
			 cpp * 2, load_px(got + px, cpp), cpp * 2,
			 load_px(b->ref + px, cpp));
		return;
	}
	snprintf(buf, len, "byte 0x%" PRIx64 " (outside the surfaces): got "
		 "0x%02x, expected 0x%02x", off, got[off], b->ref[off]);
}

void vr_buf_check(struct vr_buf *b, const struct vr_surf *surfs, int nsurf,
		  const char *what)
{
	uint8_t *got = malloc(b->size);
	uint64_t i, bad = 0, last = UINT64_MAX;
	char msg[256];

	vtest_assert(got);
	memcpy(got, b->map, b->size);
	if (!memcmp(got, b->ref, b->size)) {
		free(got);
		return;
	}
	for (i = 0; i < b->size; i++) {
		if (got[i] == b->ref[i])
			continue;
		/* Count a pixel once: skip bytes of the same dword. */
		if (last != UINT64_MAX && i / 4 == last / 4)
			continue;
		last = i;
		if (bad++ < 8) {
			where(b, got, i, surfs, nsurf, msg, sizeof(msg));
			printf("%s: mismatch at %s\n", what, msg);
		}
	}
	free(got);
	vtest_fail("%s: %" PRIu64 " dwords of the %" PRIu64
		   "-byte object differ from the reference (first ones above)",
		   what, bad, b->size);
}

/* ----------------------------------------------------------------- misc */

uint64_t vr_seed(void)
{
	const char *env = getenv("VTEST_SEED");
	uint64_t seed;

	if (env)
		seed = strtoull(env, NULL, 0);
	else
		seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	if (!seed)
		seed = 1;
	vtest_info("random seed %" PRIu64 " (VTEST_SEED=%" PRIu64
		   " reproduces it)", seed, seed);
	return seed;
}

uint32_t vr_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return (uint32_t)((x * 0x2545F4914F6CDD1Dull) >> 32);
}

int32_t vr_rand_range(uint64_t *s, int32_t lo, int32_t hi)
{
	uint64_t span = (uint64_t)((int64_t)hi - lo) + 1;

	return (int32_t)(lo + (int64_t)(vr_rand(s) % span));
}

uint64_t vr_debugfs(struct vr *vr, const char *name, const char *key)
{
	static char buf[1 << 16];
	char path[96], k[64], *line;

	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/%s",
		 vtest_drm_minor(vr->fd), name);
	vtest_assert_f(vtest_read_file(path, buf, sizeof(buf)) > 0,
		       "cannot read %s", path);
	snprintf(k, sizeof(k), "%s: ", key);
	/* At the start of a line. */
	for (line = buf; line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (!strncmp(line, k, strlen(k)))
			return strtoull(line + strlen(k), NULL, 10);
	}
	vtest_fail("no \"%s\" in %s", k, path);
}

uint64_t vr_module_param(const char *name)
{
	char path[128], buf[64];

	snprintf(path, sizeof(path), "/sys/module/vdxg/parameters/%s", name);
	vtest_assert_f(vtest_read_file(path, buf, sizeof(buf)) > 0,
		       "cannot read %s", path);
	return strtoull(buf, NULL, 0);
}

static volatile sig_atomic_t vr_alarmed;

static void vr_alarm(int sig)
{
	(void)sig;
	vr_alarmed = 1;
}

void vr_with_module_params(const char *params, void (*fn)(void))
{
	char restore[512] = "", name[64], *p, *tok, *save = NULL;
	char list[256];
	struct sigaction sa = { .sa_handler = vr_alarm }, old;
	int status, ret;
	pid_t pid, w;

	/* The parameters' values now: what the reload puts back */
	snprintf(list, sizeof(list), "%s", params);
	for (tok = strtok_r(list, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		snprintf(name, sizeof(name), "%s", tok);
		p = strchr(name, '=');
		vtest_assert_f(p, "module parameter without a value: %s", tok);
		*p = '\0';
		snprintf(restore + strlen(restore),
			 sizeof(restore) - strlen(restore), " %s=%" PRIu64,
			 name, vr_module_param(name));
	}
	vtest_info("vdxg reloaded with%s%s; restored with%s afterwards",
		   *params ? " " : "", params, restore);
	if (vtest_system("modprobe -r vdxg && modprobe vdxg %s", params)) {
		vtest_system("modprobe vdxg%s", restore);
		vtest_skip("vdxg cannot be reloaded with %s", params);
	}

	/*
	 * The subtest's alarm (its timeout) kills FN, not the restore: the
	 * handler is in place before FN runs, so that FN may end here as a
	 * timeout would (module-params signals this process itself).
	 */
	vr_alarmed = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old);
	/* FN in a child: whatever becomes of it, this process restores. */
	fflush(NULL);
	pid = fork();
	vtest_assert(pid >= 0);
	if (!pid) {
		sigaction(SIGALRM, &old, NULL);
		fn();
		fflush(NULL);
		_exit(VTEST_EXIT_SUCCESS);
	}
	/* Polled: an alarm just before a blocking waitpid() would be lost. */
	while ((w = waitpid(pid, &status, WNOHANG)) == 0 ||
	       (w < 0 && errno == EINTR)) {
		if (vr_alarmed)
			kill(pid, SIGKILL);
		vr_sleep_ms(10);
	}
	vtest_assert_eq(w, pid);

	ret = vtest_system("modprobe -r vdxg && modprobe vdxg%s", restore);
	vtest_assert_f(ret == 0, "reloading vdxg with%s exited %d", restore,
		       ret);
	if (vr_alarmed) {
		/* The subtest timed out: so it ends, as it would have. */
		sigaction(SIGALRM, &old, NULL);
		raise(SIGALRM);
	}
	sigaction(SIGALRM, &old, NULL);
	fflush(NULL);
	if (WIFSIGNALED(status)) {
		signal(WTERMSIG(status), SIG_DFL);
		raise(WTERMSIG(status));
	}
	if (WEXITSTATUS(status) != VTEST_EXIT_SUCCESS)
		exit(WEXITSTATUS(status));
}

bool vr_fdinfo(int fd, const char *key, uint64_t *value)
{
	char path[64], buf[4096], k[80], *line;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	vtest_assert_f(vtest_read_file(path, buf, sizeof(buf)) > 0,
		       "cannot read %s", path);
	snprintf(k, sizeof(k), "%s:", key);
	for (line = buf; line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (!strncmp(line, k, strlen(k))) {
			*value = strtoull(line + strlen(k), NULL, 10);
			return true;
		}
	}
	return false;
}

void vr_ignore_dmesg(const char *regex)
{
	vtest_ignore_dmesg(regex);
}
