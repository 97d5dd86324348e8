// SPDX-License-Identifier: MIT
/*
 * vdxg-demo: a rotating, textured, depth-tested cube drawn by the RENDER
 * engine every frame and shown with KMS atomic page flips at vblank,
 * double buffered, while ballast objects oversubscribe VRAM so that the
 * paging engine keeps moving memory.
 *
 *   vdxg-demo [-t SECONDS] [-b BALLAST_PERCENT] [-d /dev/dri/cardN] [-p]
 *             [-s TIME] [-c N] [--va] [--3d]
 *
 * -t  how long to run (default 5 s); 0: until SIGTERM or SIGINT
 * -b  ballast, in percent of VRAM, in 4 MiB objects that live only in
 *     VRAM (default 125); every frame one of them is drawn into, so that
 *     it must be paged in and another paged out
 * -d  the card node (default: the first one vdxg drives)
 * -p  flip with DRM_IOCTL_VDXG_PRESENT (FLIP) instead of atomic commits
 * -s  a still: every frame shows the scene at TIME seconds, on a fixed
 *     background (the picture the reference-image test compares)
 * -c  check every Nth frame (and the first and last): wait for it, read it
 *     back and compare it pixel for pixel with libvdxg's reference renderer
 *     (vdxg_ref) drawing the same vertices, and check the ballast row the
 *     frame filled; a frame whose job was lost or ran wrong does not match.
 *     Any mismatch makes the exit status 1.
 * --va   submit by GPU virtual address: a VM, EXEC, no lists (default:
 *        SUBMIT with allocation and patch lists)
 * --3d   the 3D scene instead (vdxg_scene3d.c): the 3D pipeline's shader
 *        programs draw a lit, textured (mipmapped, trilinear),
 *        depth-tested cube and a translucent cube blended over it, each
 *        frame cleared by CLEAR; -c compares with the reference 3D
 *        pipeline (vdxg_ref3d) drawing the same frame, bit for bit.
 *        vdxg-scene3d-ref draws a still's reference on the host.
 *
 * Each second it prints the frame rate and what the paging engine moved
 * (debugfs dri/N/paging), and at the end a summary. SIGUSR1 prints the
 * current frame number (the migration test marks its switchover with it).
 * SIGTERM or SIGINT ends the run as its time would: one more frame (checked
 * with -c), the summary, the usual exit status; scripts that must do
 * something while the demo runs start it with -t 0 and stop it so.
 * Needs DRM master (no other KMS client) and, for the paging figures,
 * debugfs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>


#define BIT(n)		(1u << (n))
#define BIT_ULL(n)	(1ull << (n))
#include "vdxg.h"
#include "vdxg_hw.h"
#include "vdxg_ref.h"
#include "vdxg_kms.h"
#include "vdxg_scene3d.h"
#include "vdxg_tool.h"

#define TEX_DIM		128
#define BALLAST_SIZE	(4u << 20)
#define CUBE_VERTICES	36
#define BG_VERTICES	6	/* a screen quad: clears colour and depth */
/* A frame or a flip not done in this long is a hang (a hang guard). */
#define WAIT_MS		30000

struct demo {
	struct vdxg_kms kms;
	struct vdxg_device *dev;	/* kms.dev */
	int fd;				/* kms.fd */
	bool present, still;
	double still_t;
	uint32_t w, h, ctx;
	struct vdxg_bo *fb_bo[2], *depth, *tex, *vb;
	uint32_t fb[2];
	struct vdxg_bo **ballast;
	unsigned int num_ballast;
	struct vdxg_cs *cs;
	/* --va: a VM, every object bound in it, EXEC of a command object */
	bool va;
	uint32_t vm;
	struct vdxg_bo *cmd;
	struct vdxg_vcs vcs;
	char paging_path[64];
	/* --3d: the scene, its resources (programs, constants, vertices,
	 * the texture) and a depth buffer in D24S8 */
	bool three_d;
	struct scene3d scene;
	struct vdxg_bo *res;
	/* -c: the reference renderer's target and depth buffers */
	unsigned int check_every, checked, bad_frames;
	uint32_t *ref_dst, *ref_depth;
};

static volatile sig_atomic_t print_frame, stop;

static void on_usr1(int sig)
{
	(void)sig;
	print_frame = 1;
}

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

/* The debugfs directory is named after the card's minor. */
static void find_debugfs(struct demo *d)
{
	struct stat st;

	if (fstat(d->fd, &st) == 0)
		snprintf(d->paging_path, sizeof(d->paging_path),
			 "/sys/kernel/debug/dri/%u/paging", minor(st.st_rdev));
}

static struct vdxg_bo *bo_new(struct demo *d, uint64_t size, uint32_t seg)
{
	struct vdxg_bo *bo;
	int ret = vdxg_bo_create(d->dev, size, &seg, 1, 0, &bo);

	if (ret)
		die("GEM_CREATE", ret);
	return bo;
}

static void *bo_map(struct vdxg_bo *bo)
{
	void *p;
	int ret = vdxg_bo_map(bo, &p);

	if (ret)
		die("mmap", ret);
	return p;
}

/* A checkerboard with a colour ramp, ARGB8888, written by the CPU. */
static void make_texture(struct demo *d)
{
	uint32_t *t, x, y;

	d->tex = bo_new(d, TEX_DIM * TEX_DIM * 4, DRM_VDXG_SEGMENT_VRAM);
	t = bo_map(d->tex);
	for (y = 0; y < TEX_DIM; y++)
		for (x = 0; x < TEX_DIM; x++)
			t[y * TEX_DIM + x] = ((x / 16 + y / 16) & 1) ?
				0xff000000 | (x * 2) << 16 | (y * 2) << 8 | 0xff :
				0xffffffff;
}

static void make_buffers(struct demo *d, unsigned int ballast_pct)
{
	uint64_t vram = 0;
	unsigned int i;
	int ret;

	for (i = 0; i < 2; i++) {
		d->fb_bo[i] = bo_new(d, (uint64_t)d->w * d->h * 4,
				     DRM_VDXG_SEGMENT_VRAM);
		ret = vdxg_kms_addfb(&d->kms, d->fb_bo[i], &d->fb[i]);
		if (ret)
			die("ADDFB2", ret);
	}
	d->depth = bo_new(d, (uint64_t)d->w * d->h * 4, DRM_VDXG_SEGMENT_VRAM);
	if (d->three_d) {
		ret = scene3d_init(&d->scene, d->w, d->h);
		if (ret)
			die("the 3D scene's programs", ret);
		d->res = bo_new(d, d->scene.size, DRM_VDXG_SEGMENT_VRAM);
		scene3d_fill(&d->scene, bo_map(d->res));
	}
	d->vb = bo_new(d, (BG_VERTICES + CUBE_VERTICES) * VDXG_VERTEX_SIZE,
		       DRM_VDXG_SEGMENT_APERTURE);
	bo_map(d->vb);
	make_texture(d);

	ret = vdxg_get_param(d->dev, DRM_VDXG_PARAM_VRAM_SIZE, &vram);
	if (ret)
		die("GET_PARAM VRAM_SIZE", ret);
	d->num_ballast = vram / 100 * ballast_pct / BALLAST_SIZE;
	d->ballast = calloc(d->num_ballast + 1, sizeof(*d->ballast));
	if (!d->ballast)
		die("ballast", -ENOMEM);
	for (i = 0; i < d->num_ballast; i++)
		d->ballast[i] = bo_new(d, BALLAST_SIZE, DRM_VDXG_SEGMENT_VRAM);
	printf("vdxg-demo: %ux%u@%u, %u MiB of VRAM, ballast %u x %u MiB\n",
	       d->w, d->h, d->kms.mode.vrefresh, (unsigned int)(vram >> 20),
	       d->num_ballast, BALLAST_SIZE >> 20);
}

/* ------------------------------------------------------------- the cube */

static const float cube_pos[8][3] = {
	{ -1, -1, -1 }, { 1, -1, -1 }, { 1, 1, -1 }, { -1, 1, -1 },
	{ -1, -1, 1 }, { 1, -1, 1 }, { 1, 1, 1 }, { -1, 1, 1 },
};
/* Faces as corner quads, counter-clockwise seen from outside. */
static const uint8_t cube_face[6][4] = {
	{ 0, 3, 2, 1 }, { 4, 5, 6, 7 }, { 0, 1, 5, 4 },
	{ 3, 7, 6, 2 }, { 0, 4, 7, 3 }, { 1, 2, 6, 5 },
};
static const uint32_t face_color[6] = {
	0xffff8080, 0xff80ff80, 0xff8080ff, 0xffffff80, 0xffff80ff, 0xff80ffff,
};

struct vtx {
	int32_t x, y;
	uint32_t z, color;
	int32_t u, v;
	uint32_t pad[2];
};

/*
 * The background: two triangles over the screen at the far depth, drawn
 * with DEPTH_WRITE and no test, which clears the depth buffer (only the
 * DEPTH slot takes D32, so FILL_RECT cannot) and paints BG.
 */
static void write_background(struct demo *d, uint32_t bg)
{
	static const int corner[6] = { 0, 1, 2, 0, 2, 3 };
	int32_t xs[4] = { 0, (int32_t)d->w * 16, (int32_t)d->w * 16, 0 };
	int32_t ys[4] = { 0, 0, (int32_t)d->h * 16, (int32_t)d->h * 16 };
	struct vtx *v = d->vb->map;
	int k;

	for (k = 0; k < BG_VERTICES; k++, v++) {
		memset(v, 0, sizeof(*v));
		v->x = xs[corner[k]];
		v->y = ys[corner[k]];
		v->z = 0xffffffff;
		v->color = bg;
	}
}

/* Rotate, project and write the 36 vertices for time T (seconds). */
static void write_cube(struct demo *d, double t)
{
	static const int quad_tri[6] = { 0, 1, 2, 0, 2, 3 };
	static const int32_t uv[4][2] = {
		{ 0, 0 }, { TEX_DIM, 0 }, { TEX_DIM, TEX_DIM }, { 0, TEX_DIM },
	};
	double a = t * 0.9, b = t * 0.6, scr[8][3];
	double size = (d->w < d->h ? d->w : d->h) * 0.9;
	struct vtx *v = (struct vtx *)d->vb->map + BG_VERTICES;
	int i, f, k;

	for (i = 0; i < 8; i++) {
		double x = cube_pos[i][0], y = cube_pos[i][1];
		double z = cube_pos[i][2], x1, y1, z1;

		/* Around Y by a, then around X by b, then 5 units away. */
		x1 = x * cos(a) + z * sin(a);
		z1 = -x * sin(a) + z * cos(a);
		y1 = y * cos(b) - z1 * sin(b);
		z1 = y * sin(b) + z1 * cos(b) + 5;
		scr[i][0] = d->w / 2.0 + x1 / z1 * size;
		scr[i][1] = d->h / 2.0 - y1 / z1 * size;
		/* Depth in (0, 1) over z in [3, 7]. */
		scr[i][2] = (z1 - 3) / 4;
	}
	for (f = 0; f < 6; f++) {
		for (k = 0; k < 6; k++, v++) {
			int q = quad_tri[k], c = cube_face[f][q];

			memset(v, 0, sizeof(*v));
			v->x = (int32_t)lround(scr[c][0] * 16);
			v->y = (int32_t)lround(scr[c][1] * 16);
			v->z = (uint32_t)(scr[c][2] * 4294967040.0);
			v->color = face_color[f];
			v->u = uv[q][0] << 16;
			v->v = uv[q][1] << 16;
		}
	}
}

/* --va: where each object is in the VM: a 4 GiB window each. */
#define VA_FB(i)	((1ull + (i)) << 32)
#define VA_DEPTH	(3ull << 32)
#define VA_TEX		(4ull << 32)
#define VA_VB		(5ull << 32)
#define VA_CMD		(6ull << 32)
#define VA_RES		(7ull << 32)
#define VA_BALLAST(i)	((8ull + (i)) << 32)
#define CMD_SIZE	(64u << 10)

static void va_bind(struct demo *d, struct vdxg_bo *bo, uint64_t va)
{
	int ret = vdxg_vm_map(d->dev, d->vm, bo, 0, va, bo->size, 0);

	if (ret)
		die("VM_BIND", ret);
}

/*
 * --va: the VM, its context, and every object bound in it. The command
 * buffer is a system-memory object the CPU writes each frame: the frame
 * before has completed by then (its flip waited for it).
 */
static void va_setup(struct demo *d)
{
	unsigned int i;
	int ret;

	ret = vdxg_vm_create(d->dev, 0, &d->vm);
	if (ret)
		die("VM_CREATE", ret);
	ret = vdxg_context_create_vm(d->dev, DRM_VDXG_PRIORITY_NORMAL, d->vm,
				     &d->ctx);
	if (ret)
		die("CONTEXT_CREATE of a virtual-mode context", ret);
	d->cmd = bo_new(d, CMD_SIZE, DRM_VDXG_SEGMENT_SYSTEM);
	vdxg_vcs_init(&d->vcs, bo_map(d->cmd), CMD_SIZE, VA_CMD);
	va_bind(d, d->cmd, VA_CMD);
	va_bind(d, d->fb_bo[0], VA_FB(0));
	va_bind(d, d->fb_bo[1], VA_FB(1));
	va_bind(d, d->depth, VA_DEPTH);
	va_bind(d, d->tex, VA_TEX);
	va_bind(d, d->vb, VA_VB);
	if (d->res)
		va_bind(d, d->res, VA_RES);
	for (i = 0; i < d->num_ballast; i++)
		va_bind(d, d->ballast[i], VA_BALLAST(i));
}

/* render()'s frame, by virtual addresses: EXEC, no lists. */
static void render_va(struct demo *d, int back, unsigned int frame,
		      uint32_t bg, double t)
{
	struct vdxg_vcs *vcs = &d->vcs;
	int ret;

	write_background(d, bg);
	write_cube(d, d->still ? d->still_t : t);
	vdxg_vcs_reset(vcs);
	vdxg_vcs_set_surface(vcs, VDXG_SLOT_DST, VA_FB(back),
			     VDXG_FMT_XRGB8888, d->w, d->h, d->w * 4);
	vdxg_vcs_set_surface(vcs, VDXG_SLOT_DEPTH, VA_DEPTH, VDXG_FMT_D32,
			     d->w, d->h, d->w * 4);
	vdxg_vcs_set_surface(vcs, VDXG_SLOT_TEXTURE, VA_TEX,
			     VDXG_FMT_ARGB8888, TEX_DIM, TEX_DIM, TEX_DIM * 4);
	vdxg_vcs_draw_triangles(vcs, VDXG_DRAW_DEPTH_WRITE, BG_VERTICES,
				VA_VB);
	vdxg_vcs_draw_triangles(vcs, VDXG_DRAW_TEXTURE | VDXG_DRAW_BILINEAR |
				VDXG_DRAW_DEPTH_TEST | VDXG_DRAW_DEPTH_WRITE,
				CUBE_VERTICES,
				VA_VB + BG_VERTICES * VDXG_VERTEX_SIZE);
	if (d->num_ballast) {
		vdxg_vcs_set_surface(vcs, VDXG_SLOT_DST,
				     VA_BALLAST(frame % d->num_ballast),
				     VDXG_FMT_XRGB8888, 1024,
				     BALLAST_SIZE / 4096, 4096);
		vdxg_vcs_fill_rect(vcs, 0, frame % 64, 64, 1, frame);
	}
	ret = vdxg_exec(d->dev, d->ctx, vcs, NULL);
	if (ret)
		die("EXEC", ret);
}

/*
 * --3d: the scene at time T into fb_bo[back], its constants in slot BACK
 * (the frame before, which read the other slot, may still run), by SUBMIT
 * or EXEC; then the ballast row as the 2D frame does.
 */
static void render_3d(struct demo *d, int back, unsigned int frame, double t)
{
	struct vdxg_bo *bal = d->num_ballast ?
			      d->ballast[frame % d->num_ballast] : NULL;
	int ret;

	scene3d_frame(&d->scene, d->res->map, back,
		      (float)(d->still ? d->still_t : t));
	if (d->va) {
		struct scene3d_vcs v = {
			.vcs = &d->vcs, .res_va = VA_RES,
			.fb_va = VA_FB(back), .depth_va = VA_DEPTH,
			.w = d->w, .h = d->h,
		};

		vdxg_vcs_reset(&d->vcs);
		scene3d_emit(&d->scene, &scene3d_vcs_ops, &v, back);
		if (bal) {
			vdxg_vcs_set_surface(&d->vcs, VDXG_SLOT_DST,
					     VA_BALLAST(frame % d->num_ballast),
					     VDXG_FMT_XRGB8888, 1024,
					     BALLAST_SIZE / 4096, 4096);
			vdxg_vcs_fill_rect(&d->vcs, 0, frame % 64, 64, 1,
					   frame);
		}
		ret = vdxg_exec(d->dev, d->ctx, &d->vcs, NULL);
		if (ret)
			die("EXEC", ret);
	} else {
		struct scene3d_cs c = {
			.cs = d->cs, .res = d->res, .fb = d->fb_bo[back],
			.depth = d->depth, .w = d->w, .h = d->h,
		};

		vdxg_cs_reset(d->cs);
		scene3d_emit(&d->scene, &scene3d_cs_ops, &c, back);
		if (bal) {
			vdxg_cs_set_surface(d->cs, VDXG_SLOT_DST, bal, 0,
					    DRM_VDXG_ALLOC_WRITE,
					    VDXG_FMT_XRGB8888, 1024,
					    BALLAST_SIZE / 4096, 4096);
			vdxg_cs_fill_rect(d->cs, 0, frame % 64, 64, 1, frame);
		}
		ret = vdxg_cs_error(d->cs);
		if (ret)
			die("building the command buffer", ret);
		ret = vdxg_submit(d->dev, d->ctx, d->cs, NULL);
		if (ret)
			die("SUBMIT", ret);
	}
}

/* One frame into fb_bo[back]; one ballast object drawn into too. */
static void render(struct demo *d, int back, unsigned int frame, double t)
{
	struct vdxg_bo *bal = d->num_ballast ?
			      d->ballast[frame % d->num_ballast] : NULL;
	uint32_t bg = d->still ? 0xff101830 :
		      0xff101830 + ((frame & 0x3f) << 1);
	struct vdxg_cs *cs = d->cs;
	int ret;

	if (d->three_d) {
		render_3d(d, back, frame, t);
		return;
	}
	if (d->va) {
		render_va(d, back, frame, bg, t);
		return;
	}
	write_background(d, bg);
	write_cube(d, d->still ? d->still_t : t);
	vdxg_cs_reset(cs);
	vdxg_cs_set_surface(cs, VDXG_SLOT_DST, d->fb_bo[back], 0,
			    DRM_VDXG_ALLOC_WRITE, VDXG_FMT_XRGB8888, d->w,
			    d->h, d->w * 4);
	vdxg_cs_set_surface(cs, VDXG_SLOT_DEPTH, d->depth, 0,
			    DRM_VDXG_ALLOC_WRITE, VDXG_FMT_D32, d->w, d->h,
			    d->w * 4);
	vdxg_cs_set_surface(cs, VDXG_SLOT_TEXTURE, d->tex, 0, 0,
			    VDXG_FMT_ARGB8888, TEX_DIM, TEX_DIM, TEX_DIM * 4);
	vdxg_cs_draw_triangles(cs, VDXG_DRAW_DEPTH_WRITE, BG_VERTICES, d->vb,
			       0, 0);
	vdxg_cs_draw_triangles(cs, VDXG_DRAW_TEXTURE | VDXG_DRAW_BILINEAR |
			       VDXG_DRAW_DEPTH_TEST | VDXG_DRAW_DEPTH_WRITE,
			       CUBE_VERTICES, d->vb,
			       BG_VERTICES * VDXG_VERTEX_SIZE, 0);
	if (bal) {
		vdxg_cs_set_surface(cs, VDXG_SLOT_DST, bal, 0,
				    DRM_VDXG_ALLOC_WRITE, VDXG_FMT_XRGB8888,
				    1024, BALLAST_SIZE / 4096, 4096);
		vdxg_cs_fill_rect(cs, 0, frame % 64, 64, 1, frame);
	}
	ret = vdxg_cs_error(cs);
	if (ret)
		die("building the command buffer", ret);
	ret = vdxg_submit(d->dev, d->ctx, cs, NULL);
	if (ret)
		die("SUBMIT", ret);
}

/*
 * -c: wait for frame FRAME in fb_bo[back] (and its ballast object), read
 * it back and compare it with the reference renderer's picture of the same
 * vertices (still in the vertex buffer: the next frame writes them after
 * this one's flip). Counts and reports a mismatch.
 */
static void check_frame(struct demo *d, int back, unsigned int frame)
{
	struct vdxg_bo *bal = d->num_ballast ?
			      d->ballast[frame % d->num_ballast] : NULL;
	struct vdxg_ref_surface dst = {
		.data = d->ref_dst, .format = VDXG_FMT_XRGB8888,
		.width = d->w, .height = d->h, .pitch = d->w * 4,
	};
	struct vdxg_ref_surface depth = {
		.data = d->ref_depth, .format = VDXG_FMT_D32,
		.width = d->w, .height = d->h, .pitch = d->w * 4,
	};
	struct vdxg_ref_surface tex = {
		.data = d->tex->map, .format = VDXG_FMT_ARGB8888,
		.width = TEX_DIM, .height = TEX_DIM, .pitch = TEX_DIM * 4,
	};
	const uint32_t *vtx = d->vb->map, *fb;
	unsigned long long wrong = 0;
	uint32_t x, y, first_x = 0, first_y = 0, got = 0, want = 0;
	int ret;

	ret = vdxg_bo_wait(d->fb_bo[back], WAIT_MS * 1000000ll);
	if (ret)
		die("waiting for a checked frame (a stuck fence?)", ret);
	if (bal) {
		ret = vdxg_bo_wait(bal, WAIT_MS * 1000000ll);
		if (ret)
			die("waiting for a ballast fill (a stuck fence?)", ret);
	}
	if (d->three_d) {
		/* The reference pipeline, on the resources this frame read */
		ret = scene3d_reference(&d->scene, bo_map(d->res), back,
					d->ref_dst);
		if (ret)
			die("the reference 3D pipeline faults", -EINVAL);
	} else {
		vdxg_ref_draw_triangles(&dst, &depth, NULL,
					VDXG_DRAW_DEPTH_WRITE, vtx,
					BG_VERTICES);
		vdxg_ref_draw_triangles(&dst, &depth, &tex, VDXG_DRAW_TEXTURE |
					VDXG_DRAW_BILINEAR |
					VDXG_DRAW_DEPTH_TEST |
					VDXG_DRAW_DEPTH_WRITE,
					vtx + BG_VERTICES * VDXG_VERTEX_SIZE / 4,
					CUBE_VERTICES);
	}
	fb = bo_map(d->fb_bo[back]);
	for (y = 0; y < d->h; y++)
		for (x = 0; x < d->w; x++) {
			/* XRGB8888: the X byte is not compared */
			uint32_t a = fb[y * d->w + x] & 0xffffff;
			uint32_t b = d->ref_dst[y * d->w + x] & 0xffffff;

			if (a != b && !wrong++) {
				first_x = x;
				first_y = y;
				got = a;
				want = b;
			}
		}
	if (bal) {
		const uint32_t *row = (const uint32_t *)bo_map(bal) +
				      (frame % 64) * 1024;
		uint32_t pix, exp = 0;
		struct vdxg_ref_surface one = {
			.data = &exp, .format = VDXG_FMT_XRGB8888,
			.width = 1, .height = 1, .pitch = 4,
		};

		vdxg_ref_fill_rect(&one, 0, 0, 1, 1, frame);
		for (x = 0; x < 64; x++) {
			pix = row[x];
			if ((pix & 0xffffff) != (exp & 0xffffff)) {
				printf("vdxg-demo: frame %u: ballast %u row %u pixel %u is %08x, not %08x\n",
				       frame, frame % d->num_ballast,
				       frame % 64, x, pix, exp);
				wrong++;
				break;
			}
		}
	}
	d->checked++;
	if (wrong) {
		d->bad_frames++;
		printf("vdxg-demo: frame %u MISMATCH: %llu pixels differ from the reference; first (%u,%u) is %06x, not %06x\n",
		       frame, wrong, first_x, first_y, got, want);
	}
}

/*
 * Flip to fb[back] at the next vblank, by an atomic commit (or PRESENT),
 * and wait for its event.
 */
static void flip(struct demo *d, int back, unsigned int frame)
{
	int ret;

	if (d->present)
		ret = vdxg_present_flip(d->dev, d->kms.crtc_id, d->fb[back],
					DRM_VDXG_PRESENT_EVENT, frame, 0);
	else
		ret = vdxg_kms_flip(&d->kms, d->fb[back], frame);
	if (ret)
		die(d->present ? "PRESENT FLIP" : "atomic page flip", ret);
	ret = vdxg_kms_wait_flip(&d->kms, frame, WAIT_MS, NULL);
	if (ret)
		die("the flip event", ret);
}

/* "transfer: N ops, M bytes" of debugfs paging; 0 without debugfs. */
static void paging_stats(struct demo *d, unsigned long long *ops,
			 unsigned long long *bytes)
{
	FILE *f = d->paging_path[0] ? fopen(d->paging_path, "r") : NULL;
	char line[128];

	*ops = *bytes = 0;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "transfer: %llu ops, %llu bytes", ops,
			   bytes) == 2)
			break;
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	unsigned long long ops0, bytes0, ops, bytes, lops, lbytes;
	unsigned int ballast_pct = 125, frame = 0, last_frame = 0;
	double seconds = 5, t0, last, t;
	bool last_one = false;
	const char *path = NULL;
	struct demo d = { 0 };
	int opt, ret, back = 1;

	static const struct option longopts[] = {
		{ "va", no_argument, NULL, 'V' },
		{ "3d", no_argument, NULL, '3' },
		{ 0 },
	};

	while ((opt = getopt_long(argc, argv, "t:b:d:ps:c:", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'V': d.va = true; break;
		case '3': d.three_d = true; break;
		case 't': seconds = atof(optarg); break;
		case 'b': ballast_pct = atoi(optarg); break;
		case 'd': path = optarg; break;
		case 'p': d.present = true; break;
		case 's': d.still = true; d.still_t = atof(optarg); break;
		case 'c': d.check_every = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: vdxg-demo [-t SECONDS] "
				"[-b BALLAST_PERCENT] [-d CARD] [-p] "
				"[-s TIME] [-c N] [--va] [--3d]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGUSR1, on_usr1);
	signal(SIGTERM, on_stop);
	signal(SIGINT, on_stop);
	ret = vdxg_kms_open(&d.kms, path);
	if (ret)
		die("a vdxg card with a connected output (and DRM master)", ret);
	d.dev = d.kms.dev;
	d.fd = d.kms.fd;
	d.w = d.kms.w;
	d.h = d.kms.h;
	find_debugfs(&d);
	make_buffers(&d, ballast_pct);
	if (d.check_every) {
		d.ref_dst = calloc((size_t)d.w * d.h, 4);
		d.ref_depth = calloc((size_t)d.w * d.h, 4);
		if (!d.ref_dst || !d.ref_depth)
			die("the reference buffers", -ENOMEM);
	}
	if (d.va) {
		va_setup(&d);
	} else {
		ret = vdxg_context_create(d.dev, DRM_VDXG_ENGINE_RENDER,
					  DRM_VDXG_PRIORITY_NORMAL, 0, &d.ctx);
		if (ret)
			die("CONTEXT_CREATE", ret);
	}
	ret = vdxg_cs_create(&d.cs);
	if (ret)
		die("vdxg_cs_create", ret);

	/* The first frame by a modeset, the rest by flips. */
	render(&d, 0, 0, 0);
	ret = vdxg_bo_wait(d.fb_bo[0], WAIT_MS * 1000000ll);
	if (ret)
		die("waiting for the first frame", ret);
	ret = vdxg_kms_modeset(&d.kms, d.fb[0]);
	if (ret)
		die("atomic modeset", ret);
	printf("vdxg-demo: %s; flips by %s%s; %s\n", d.three_d ?
	       "the 3D scene (shader programs)" : "the 2D cube (DRAW_TRIANGLES)",
	       d.present ? "PRESENT" : "atomic commits",
	       d.still ? ", a still" : "",
	       d.va ? "EXEC by GPU virtual address (a VM, no lists)" :
	       "SUBMIT with allocation and patch lists");

	paging_stats(&d, &ops0, &bytes0);
	lops = ops0;
	lbytes = bytes0;
	t0 = last = now();
	for (frame = 1; !last_one; frame++, back ^= 1) {
		t = now();
		if (!stop && seconds > 0 && t - t0 >= seconds)
			break;
		last_one = stop || (seconds > 0 && t - t0 >= seconds - 0.001);
		render(&d, back, frame, t - t0);
		if (d.check_every && (frame == 1 || last_one ||
				      frame % d.check_every == 0))
			check_frame(&d, back, frame);
		flip(&d, back, frame);
		if (print_frame) {
			print_frame = 0;
			printf("vdxg-demo: at frame %u, %.1f s, %u checked, %u wrong\n",
			       frame, now() - t0, d.checked, d.bad_frames);
		}
		if (t - last >= 1) {
			paging_stats(&d, &ops, &bytes);
			printf("vdxg-demo: frame %u: %5.1f fps, paging %llu moves, %.1f MiB/s\n",
			       frame, (frame - last_frame) / (t - last), ops - lops,
			       (bytes - lbytes) / (t - last) / 1048576);
			last = t;
			last_frame = frame;
			lops = ops;
			lbytes = bytes;
		}
	}
	paging_stats(&d, &ops, &bytes);
	t = now() - t0;
	printf("vdxg-demo: %u frames in %.1f s (%.1f fps); the paging engine "
	       "moved %.1f MiB in %llu transfers\n", frame - 1, t,
	       (frame - 1) / t, (bytes - bytes0) / 1048576.0, ops - ops0);
	if (d.check_every) {
		printf("vdxg-demo: checked %u frames against the reference: %u wrong\n",
		       d.checked, d.bad_frames);
		if (d.bad_frames)
			return 1;
	}
	return frame > 1 ? 0 : 1;
}
