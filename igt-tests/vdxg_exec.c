// SPDX-License-Identifier: MIT
/*
 * vdxg_exec: submission by GPU virtual address (EXEC) from virtual-mode
 * contexts. Command buffers are written straight into GPU objects that
 * the context's VM maps, with virtual addresses and no lists (libvdxg's
 * vdxg_vcs); results are compared pixel-exactly with the reference
 * renderer (libvdxg's vdxg_ref) over whole objects. Faults, isolation,
 * state carried between jobs, ordering with binds, swapped-out objects,
 * patch-model contexts on the same engine, and bad arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <drm.h>
#include <drm_mode.h>

#include "vrender.h"
#include "vvm.h"

#define KIB		1024ull
#define MIB		(1024 * KIB)
#define VA_CMD		0x100000000ull
#define VA_DST		0x200000000ull
#define VA_SRC		0x300000000ull
#define VA_VB		0x400000000ull
#define VA_AUX		0x500000000ull
#define CMD_SIZE	(64 * KIB)
#define OBJ		(64 * KIB)
#define SURF_OFF	256
#define W		96
#define H		64

/* A process's VM with a virtual-mode context and a command object. */
struct ex {
	struct vr vr;
	uint32_t vm, ctx, out;
	struct vdxg_bo *cmd;
	struct vdxg_vcs vcs;
	uint64_t rng;
};

static int xioctl(int fd, unsigned long request, void *arg)
{
	return vtest_ioctl(fd, request, arg) ? -errno : 0;
}

static void ex_map(struct ex *e, struct vdxg_bo *bo, uint64_t va,
		   uint32_t flags)
{
	vtest_assert_ok(vdxg_vm_map(e->vr.dev, e->vm, bo, 0, va, bo->size,
				    flags));
}

static void ex_open_cmd(struct ex *e, uint32_t cmd_seg)
{
	vr_open(&e->vr);
	vtest_require_f(vr_param(&e->vr, DRM_VDXG_PARAM_CAPS) &
			VDXG_CAP_GPU_MMU, "the device has no GPU MMU");
	vtest_assert_ok(vdxg_vm_create(e->vr.dev, 0, &e->vm));
	vtest_assert_ok(vdxg_context_create_vm(e->vr.dev,
					       DRM_VDXG_PRIORITY_NORMAL, e->vm,
					       &e->ctx));
	e->cmd = vr_bo(&e->vr, CMD_SIZE, cmd_seg, 0);
	ex_map(e, e->cmd, VA_CMD, 0);
	vdxg_vcs_init(&e->vcs, vr_map(e->cmd), CMD_SIZE, VA_CMD);
	e->out = vr_syncobj(&e->vr, false);
	e->rng = vr_seed();
}

static void ex_open(struct ex *e)
{
	ex_open_cmd(e, DRM_VDXG_SEGMENT_SYSTEM);
}

static void ex_close(struct ex *e)
{
	vdxg_bo_free(e->cmd);
	vr_close(&e->vr);
}

/* EXEC what the builder holds on CTX; the job's out-syncobj is e->out. */
static int ex_exec_on(struct ex *e, uint32_t ctx)
{
	struct drm_vdxg_sync out = vdxg_sync(e->out, 0);
	struct vdxg_submit_opts opts = { .out_syncs = &out,
					 .num_out_syncs = 1 };

	vtest_assert_ok(vdxg_vcs_error(&e->vcs));
	return vdxg_exec(e->vr.dev, ctx, &e->vcs, &opts);
}

/*
 * EXEC, wait up to TIMEOUT_NS, and expect the job to have completed
 * without error.
 */
static void ex_run_wait(struct ex *e, int64_t timeout_ns)
{
	vtest_assert_ok(ex_exec_on(e, e->ctx));
	vtest_assert_ok(vr_syncobj_wait(&e->vr, e->out, 0, timeout_ns));
	vtest_assert_eq(vr_syncobj_status(&e->vr, e->out, 0), 1);
	vdxg_vcs_reset(&e->vcs);
}

static void ex_run(struct ex *e)
{
	ex_run_wait(e, VR_WAIT_NS);
}

/*
 * A 64x64 FILL_RECT of VALUE into a new object in SEG mapped at VA_DST,
 * checked to the last pixel.
 */
static void ex_fill_check(struct ex *e, uint32_t seg, uint32_t value)
{
	struct vdxg_bo *dst = vr_bo(&e->vr, 16 * KIB, seg, 0);
	uint32_t *px;
	int i;

	ex_map(e, dst, VA_DST, 0);
	vdxg_vcs_set_surface(&e->vcs, VDXG_SLOT_DST, VA_DST,
			     VDXG_FMT_ARGB8888, 64, 64, 256);
	vdxg_vcs_fill_rect(&e->vcs, 0, 0, 64, 64, value);
	ex_run(e);
	px = vr_map(dst);
	for (i = 0; i < 64 * 64; i++)
		vtest_assert_eq(px[i], value);
	vdxg_bo_free(dst);
}

static void vcs_surface(struct vdxg_vcs *vcs, uint32_t slot, uint64_t va,
			const struct vr_surf *s)
{
	vdxg_vcs_set_surface(vcs, slot, va + s->offset, s->format, s->width,
			     s->height, s->pitch);
}

/* ------------------------------------------------------------- pixels */

static struct vr_vertex vtx(int32_t x16, int32_t y16, uint32_t color,
			    int32_t u, int32_t v)
{
	struct vr_vertex r = { x16, y16, 0, color, u, v, { 0, 0 } };

	return r;
}

/*
 * Every RENDER command through virtual addresses, DST in DST_SEG and the
 * other objects in OTHER_SEG, against the reference renderer.
 */
static void render(uint32_t dst_seg, uint32_t other_seg)
{
	struct vr_buf dst, src, vb;
	struct vr_surf d, s;
	struct vdxg_ref_surface rd, rs;
	struct vdxg_bo *fence;
	struct vr_vertex v[6];
	struct ex e;

	ex_open(&e);
	vr_buf_init(&e.vr, &dst, OBJ, dst_seg);
	vr_buf_init(&e.vr, &src, OBJ, other_seg);
	vr_buf_init(&e.vr, &vb, 4 * KIB, other_seg);
	vr_buf_randomize(&dst, &e.rng);
	vr_buf_randomize(&src, &e.rng);
	fence = vr_bo(&e.vr, 4 * KIB, other_seg, 0);
	ex_map(&e, dst.bo, VA_DST, 0);
	ex_map(&e, src.bo, VA_SRC, DRM_VDXG_VM_BIND_READ_ONLY);
	ex_map(&e, vb.bo, VA_VB, DRM_VDXG_VM_BIND_READ_ONLY);
	ex_map(&e, fence, VA_AUX, 0);
	d = vr_surf(&dst, SURF_OFF, VDXG_FMT_XRGB8888, W, H);
	s = vr_surf(&src, SURF_OFF, VDXG_FMT_ARGB8888, W, H);
	rd = vr_ref(&d);
	rs = vr_ref(&s);

	vcs_surface(&e.vcs, VDXG_SLOT_DST, VA_DST, &d);
	vcs_surface(&e.vcs, VDXG_SLOT_SRC, VA_SRC, &s);
	vcs_surface(&e.vcs, VDXG_SLOT_TEXTURE, VA_SRC, &s);
	vdxg_vcs_fill_rect(&e.vcs, 3, 2, 40, 30, 0xff336699);
	vdxg_ref_fill_rect(&rd, 3, 2, 40, 30, 0xff336699);
	vdxg_vcs_copy_rect(&e.vcs, 10, 5, 50, 20, 30, 25);
	vdxg_ref_copy_rect(&rd, &rs, 10, 5, 50, 20, 30, 25);
	vdxg_vcs_blend(&e.vcs, 0, 30, 20, 35, 40, 20, 0x80);
	vdxg_ref_blend(&rd, &rs, 0, 30, 20, 35, 40, 20, 0x80);
	v[0] = vtx(16 * 5, 16 * 40, 0xffff0000, 0, 0);
	v[1] = vtx(16 * 60, 16 * 45, 0xff00ff00, 0, 0);
	v[2] = vtx(16 * 30, 16 * 63, 0xff0000ff, 0, 0);
	v[3] = vtx(16 * 60, 16 * 2, 0xffffffff, 0, 0);
	v[4] = vtx(16 * 95, 16 * 10, 0xffffffff, 40 << 16, 0);
	v[5] = vtx(16 * 80, 16 * 60, 0xffffffff, 20 << 16, 50 << 16);
	memcpy(vb.map, v, sizeof(v));
	memcpy(vb.ref, v, sizeof(v));
	vdxg_vcs_draw_triangles(&e.vcs, 0, 3, VA_VB);
	vdxg_ref_draw_triangles(&rd, NULL, NULL, 0, (const uint32_t *)v, 3);
	vdxg_vcs_draw_triangles(&e.vcs, VDXG_DRAW_TEXTURE, 3,
				VA_VB + 3 * sizeof(v[0]));
	vdxg_ref_draw_triangles(&rd, NULL, &rs, VDXG_DRAW_TEXTURE,
				(const uint32_t *)&v[3], 3);
	vdxg_vcs_fence(&e.vcs, VA_AUX + 8, 0x1122334455667788ull);
	ex_run(&e);

	vr_buf_check(&dst, &d, 1, "DST");
	vr_buf_check(&src, &s, 1, "SRC");
	vtest_assert_eq(vr_read64(vr_map(fence), 8), 0x1122334455667788ull);
	vdxg_bo_free(fence);
	vr_buf_fini(&vb);
	vr_buf_fini(&src);
	vr_buf_fini(&dst);
	ex_close(&e);
}

static void test_render_vram(void)
{
	render(DRM_VDXG_SEGMENT_VRAM, DRM_VDXG_SEGMENT_SYSTEM);
}

static void test_render_system(void)
{
	render(DRM_VDXG_SEGMENT_SYSTEM, DRM_VDXG_SEGMENT_VRAM);
}

/* A null range reads zero and drops writes; the job completes. */
static void test_render_null(void)
{
	struct drm_vdxg_vm_bind_op op = {
		.op = DRM_VDXG_VM_BIND_OP_MAP_NULL, .va = VA_SRC, .range = OBJ,
	};
	struct vr_buf dst, zero;
	struct vr_surf d, z;
	struct vdxg_ref_surface rd, rz;
	struct ex e;

	ex_open(&e);
	vr_buf_init(&e.vr, &dst, OBJ, DRM_VDXG_SEGMENT_VRAM);
	vr_buf_init(&e.vr, &zero, OBJ, DRM_VDXG_SEGMENT_SYSTEM);
	vr_buf_randomize(&dst, &e.rng);
	memset(zero.ref, 0, OBJ);
	ex_map(&e, dst.bo, VA_DST, 0);
	vtest_assert_ok(vdxg_vm_bind(e.vr.dev, e.vm, &op, 1, NULL, 0, NULL,
				     0));
	d = vr_surf(&dst, SURF_OFF, VDXG_FMT_XRGB8888, W, H);
	z = vr_surf(&zero, SURF_OFF, VDXG_FMT_ARGB8888, W, H);
	rd = vr_ref(&d);
	rz = vr_ref(&z);

	/* SRC in the null range: zeros are copied. */
	vcs_surface(&e.vcs, VDXG_SLOT_DST, VA_DST, &d);
	vcs_surface(&e.vcs, VDXG_SLOT_SRC, VA_SRC, &z);
	vdxg_vcs_copy_rect(&e.vcs, 0, 0, 8, 8, 50, 40);
	vdxg_ref_copy_rect(&rd, &rz, 0, 0, 8, 8, 50, 40);
	/* DST in the null range: the fill goes nowhere... */
	vcs_surface(&e.vcs, VDXG_SLOT_DST, VA_SRC, &z);
	vdxg_vcs_fill_rect(&e.vcs, 0, 0, W, H, 0xffffffff);
	/* ...so the range still reads zero after it. */
	vcs_surface(&e.vcs, VDXG_SLOT_DST, VA_DST, &d);
	vdxg_vcs_copy_rect(&e.vcs, 60, 20, 4, 4, 30, 40);
	vdxg_ref_copy_rect(&rd, &rz, 60, 20, 4, 4, 30, 40);
	ex_run(&e);
	vr_buf_check(&dst, &d, 1, "DST");
	vr_buf_fini(&zero);
	vr_buf_fini(&dst);
	ex_close(&e);
}

/* The command buffer itself in VRAM, then in system memory. */
static void cmd_in(uint32_t seg)
{
	struct ex e;

	ex_open_cmd(&e, seg);
	ex_fill_check(&e, DRM_VDXG_SEGMENT_SYSTEM, 0x12345678);
	ex_close(&e);
}

static void test_cmd_vram(void)
{
	cmd_in(DRM_VDXG_SEGMENT_VRAM);
}

static void test_cmd_system(void)
{
	cmd_in(DRM_VDXG_SEGMENT_SYSTEM);
}

/* --------------------------------------------------------------- state */

/*
 * A virtual-mode context keeps its surface slots from one job to the
 * next; another context of the same VM does not see them.
 */
static void test_state_carried(void)
{
	struct drm_vdxg_reset_status st;
	struct vdxg_bo *dst;
	uint32_t ctx2, *px;
	struct ex e;
	int i;

	ex_open(&e);
	vr_ignore_dmesg(VR_RESET_DMESG "|callbacks suppressed");
	dst = vr_bo(&e.vr, 16 * KIB, DRM_VDXG_SEGMENT_VRAM, 0);
	ex_map(&e, dst, VA_DST, 0);
	vdxg_vcs_set_surface(&e.vcs, VDXG_SLOT_DST, VA_DST, VDXG_FMT_ARGB8888,
			     64, 64, 256);
	ex_run(&e);
	vdxg_vcs_fill_rect(&e.vcs, 0, 0, 64, 32, 0xa5a5a5a5);
	ex_run(&e);
	px = vr_map(dst);
	for (i = 0; i < 64 * 32; i++)
		vtest_assert_eq(px[i], 0xa5a5a5a5);

	/* A second context: no DST bound, PARAM fault, banned. */
	vtest_assert_ok(vdxg_context_create_vm(e.vr.dev,
					       DRM_VDXG_PRIORITY_NORMAL, e.vm,
					       &ctx2));
	vdxg_vcs_fill_rect(&e.vcs, 0, 32, 64, 32, 0x5a5a5a5a);
	vtest_assert_ok(ex_exec_on(&e, ctx2));
	st = vr_wait_banned(&e.vr, ctx2);
	vtest_assert(st.flags & DRM_VDXG_RESET_FAULT);
	vtest_assert_eq(st.fault_reason, VDXG_FAULT_PARAM);
	vdxg_vcs_reset(&e.vcs);
	for (i = 64 * 32; i < 64 * 64; i++)
		vtest_assert(px[i] != 0x5a5a5a5a);

	/* The first context still runs, with its slots. */
	vdxg_vcs_fill_rect(&e.vcs, 0, 32, 64, 32, 0x3c3c3c3c);
	ex_run(&e);
	for (i = 64 * 32; i < 64 * 64; i++)
		vtest_assert_eq(px[i], 0x3c3c3c3c);
	vdxg_bo_free(dst);
	ex_close(&e);
}

/* -------------------------------------------------------------- faults */

/*
 * A job writing at @bad faults: its context is banned with the address
 * and access reported, the canary object mapped next to it is untouched,
 * and another process's jobs run on.
 */
static void expect_fault(struct ex *e, uint64_t bad, uint32_t reason)
{
	struct drm_vdxg_reset_status st;
	struct ex other;

	vdxg_vcs_set_surface(&e->vcs, VDXG_SLOT_DST, bad, VDXG_FMT_ARGB8888,
			     64, 64, 256);
	vdxg_vcs_fill_rect(&e->vcs, 0, 0, 64, 64, 0xdeadbeef);
	vtest_assert_ok(ex_exec_on(e, e->ctx));
	st = vr_wait_banned(&e->vr, e->ctx);
	vtest_assert(st.flags & DRM_VDXG_RESET_FAULT);
	vtest_assert_eq(st.fault_reason, reason);
	vtest_assert_f(st.fault_address >= bad &&
		       st.fault_address < bad + 64 * 256,
		       "fault at 0x%" PRIx64 ", the surface is at 0x%" PRIx64,
		       (uint64_t)st.fault_address, bad);
	vtest_assert(st.fault_flags & DRM_VDXG_FAULT_WRITE);
	vdxg_vcs_reset(&e->vcs);
	vdxg_vcs_nop(&e->vcs);
	vtest_assert_eq(ex_exec_on(e, e->ctx), -EIO);
	vdxg_vcs_reset(&e->vcs);

	ex_open(&other);
	ex_fill_check(&other, DRM_VDXG_SEGMENT_VRAM, 0x0f0f0f0f);
	ex_close(&other);
}

static struct vdxg_bo *canary(struct ex *e, uint64_t va, uint32_t flags)
{
	struct vdxg_bo *bo = vr_bo(&e->vr, 16 * KIB, DRM_VDXG_SEGMENT_VRAM,
				   0);

	memset(vr_map(bo), 0x77, 16 * KIB);
	ex_map(e, bo, va, flags);
	return bo;
}

static void check_canary(struct vdxg_bo *bo)
{
	const uint8_t *p = vr_map(bo);
	int i;

	for (i = 0; i < (int)(16 * KIB); i++)
		vtest_assert_f(p[i] == 0x77, "canary byte %d is 0x%02x", i,
			       p[i]);
}

static void test_fault_unmapped(void)
{
	struct vdxg_bo *c;
	struct ex e;

	ex_open(&e);
	vr_ignore_dmesg(VR_RESET_DMESG "|callbacks suppressed");
	c = canary(&e, VA_DST, 0);
	/* The surface starts right after the canary, in nothing. */
	expect_fault(&e, VA_DST + 16 * KIB, VDXG_FAULT_VM_NOT_PRESENT);
	check_canary(c);
	vdxg_bo_free(c);
	ex_close(&e);
}

static void test_fault_read_only(void)
{
	struct vdxg_bo *c;
	struct ex e;

	ex_open(&e);
	vr_ignore_dmesg(VR_RESET_DMESG "|callbacks suppressed");
	c = canary(&e, VA_DST, DRM_VDXG_VM_BIND_READ_ONLY);
	expect_fault(&e, VA_DST, VDXG_FAULT_VM_READ_ONLY);
	check_canary(c);
	vdxg_bo_free(c);
	ex_close(&e);
}

/* An address another process's VM maps is nothing in this one. */
static void test_fault_other_vm(void)
{
	struct vdxg_bo *theirs;
	struct ex e, them;

	ex_open(&them);
	ex_open(&e);
	vr_ignore_dmesg(VR_RESET_DMESG "|callbacks suppressed");
	theirs = canary(&them, VA_AUX, 0);
	expect_fault(&e, VA_AUX, VDXG_FAULT_VM_NOT_PRESENT);
	check_canary(theirs);
	vdxg_bo_free(theirs);
	ex_close(&e);
	ex_close(&them);
}

/* ------------------------------------------------------------- ordering */

/*
 * Patch-model and virtual-mode contexts take turns on the engine, each
 * filling its own rows of its own object.
 */
static void test_interleaved(void)
{
	const int rounds = 16;
	struct vdxg_bo *a, *b;
	uint32_t pctx, *pa, *pb;
	struct ex e;
	int r, i;

	ex_open(&e);
	pctx = vr_ctx(&e.vr);
	a = vr_bo(&e.vr, 64 * KIB, DRM_VDXG_SEGMENT_VRAM, 0);
	b = vr_bo(&e.vr, 64 * KIB, DRM_VDXG_SEGMENT_VRAM, 0);
	ex_map(&e, b, VA_DST, 0);
	for (r = 0; r < rounds; r++) {
		struct vdxg_cs *cs = vr_cs();
		struct vdxg_vcs vcs;

		vdxg_cs_set_surface(cs, VDXG_SLOT_DST, a, 0,
				    DRM_VDXG_ALLOC_WRITE, VDXG_FMT_ARGB8888,
				    64, rounds, 256);
		vdxg_cs_fill_rect(cs, 0, r, 64, 1, 0xa0000000 | r);
		vr_submit(&e.vr, pctx, cs, NULL);
		vdxg_cs_free(cs);

		/* Each job its own 1 KiB of the command object. */
		vdxg_vcs_init(&vcs, (uint8_t *)vr_map(e.cmd) + r * KIB, KIB,
			      VA_CMD + r * KIB);
		vdxg_vcs_set_surface(&vcs, VDXG_SLOT_DST, VA_DST,
				     VDXG_FMT_ARGB8888, 64, rounds, 256);
		vdxg_vcs_fill_rect(&vcs, 0, r, 64, 1, 0xb0000000 | r);
		vtest_assert_ok(vdxg_exec(e.vr.dev, e.ctx, &vcs, NULL));
	}
	vr_bo_wait(a);
	vr_bo_wait(b);
	vdxg_vcs_init(&e.vcs, vr_map(e.cmd), CMD_SIZE, VA_CMD);
	vdxg_vcs_nop(&e.vcs);
	ex_run(&e);
	pa = vr_map(a);
	pb = vr_map(b);
	for (r = 0; r < rounds; r++)
		for (i = 0; i < 64; i++) {
			vtest_assert_eq(pa[r * 64 + i], 0xa0000000 | r);
			vtest_assert_eq(pb[r * 64 + i], 0xb0000000 | r);
		}
	vdxg_bo_free(b);
	vdxg_bo_free(a);
	ex_close(&e);
}

/*
 * An unbind of an object a queued job uses waits for the job: the job
 * WAITs on a value the CPU writes later, then fills the object.
 */
static void test_unbind_waits(void)
{
	struct drm_vdxg_vm_bind_op op = {
		.op = DRM_VDXG_VM_BIND_OP_UNMAP, .va = VA_DST, .range = 16 * KIB,
	};
	struct drm_vdxg_sync out;
	struct vdxg_bo *dst, *hold;
	uint32_t unbind, *px;
	struct ex e;
	int i;

	ex_open(&e);
	dst = vr_bo(&e.vr, 16 * KIB, DRM_VDXG_SEGMENT_VRAM, 0);
	hold = vr_bo(&e.vr, 4 * KIB, DRM_VDXG_SEGMENT_SYSTEM, 0);
	memset(vr_map(hold), 0, 4 * KIB);
	ex_map(&e, dst, VA_DST, 0);
	ex_map(&e, hold, VA_AUX, 0);
	vdxg_vcs_wait(&e.vcs, VA_AUX, 1);
	vdxg_vcs_set_surface(&e.vcs, VDXG_SLOT_DST, VA_DST, VDXG_FMT_ARGB8888,
			     64, 64, 256);
	vdxg_vcs_fill_rect(&e.vcs, 0, 0, 64, 64, 0x600d600d);
	vtest_assert_ok(ex_exec_on(&e, e.ctx));

	unbind = vr_syncobj(&e.vr, false);
	out = vdxg_sync(unbind, 0);
	vtest_assert_ok(vdxg_vm_bind(e.vr.dev, e.vm, &op, 1, NULL, 0, &out,
				     1));
	vr_sleep_ms(200);
	vtest_assert_eq(vr_syncobj_status(&e.vr, unbind, 0), 0);
	vtest_assert_eq(vr_syncobj_status(&e.vr, e.out, 0), 0);

	vr_write64(vr_map(hold), 0, 1);
	vtest_assert_ok(vr_syncobj_wait(&e.vr, unbind, 0, VR_WAIT_NS));
	vtest_assert_eq(vr_syncobj_status(&e.vr, e.out, 0), 1);
	px = vr_map(dst);
	for (i = 0; i < 64 * 64; i++)
		vtest_assert_eq(px[i], 0x600d600d);
	vdxg_bo_free(hold);
	vdxg_bo_free(dst);
	ex_close(&e);
}

/*
 * Objects swapped out, the command object included, are brought back
 * before the job runs: EXEC needs no bind first.
 */
static void test_swapped_out(void)
{
	struct vdxg_bo *src, *dst;
	uint32_t *ps, *pd;
	struct ex e;
	int i;

	ex_open(&e);
	src = vr_bo(&e.vr, 16 * KIB, DRM_VDXG_SEGMENT_SYSTEM, 0);
	dst = vr_bo(&e.vr, 16 * KIB, DRM_VDXG_SEGMENT_SYSTEM, 0);
	ps = vr_map(src);
	for (i = 0; i < 64 * 64; i++)
		ps[i] = 0x01000000u * (i & 0xff) + i;
	ex_map(&e, src, VA_SRC, 0);
	ex_map(&e, dst, VA_DST, 0);
	vdxg_vcs_set_surface(&e.vcs, VDXG_SLOT_SRC, VA_SRC, VDXG_FMT_ARGB8888,
			     64, 64, 256);
	vdxg_vcs_set_surface(&e.vcs, VDXG_SLOT_DST, VA_DST, VDXG_FMT_ARGB8888,
			     64, 64, 256);
	vdxg_vcs_copy_rect(&e.vcs, 0, 0, 0, 0, 64, 64);
	/* The commands are in place before the swap; nothing touches it. */
	vvm_swap_out_everything();
	vtest_assert_ok(ex_exec_on(&e, e.ctx));
	vtest_assert_ok(vr_syncobj_wait(&e.vr, e.out, 0, VR_WAIT_NS));
	vtest_assert_eq(vr_syncobj_status(&e.vr, e.out, 0), 1);
	pd = vr_map(dst);
	for (i = 0; i < 64 * 64; i++)
		vtest_assert_eq(pd[i], 0x01000000u * (i & 0xff) + i);
	vdxg_bo_free(dst);
	vdxg_bo_free(src);
	ex_close(&e);
}

/* A context outlives its VM: EXEC then fails, and nothing runs. */
static void test_vm_destroyed(void)
{
	struct ex e;

	ex_open(&e);
	vdxg_vcs_nop(&e.vcs);
	ex_run(&e);
	vdxg_vcs_nop(&e.vcs);
	vtest_assert_ok(vdxg_vm_destroy(e.vr.dev, e.vm));
	vtest_assert_eq(ex_exec_on(&e, e.ctx), -ENOENT);
	ex_close(&e);
}

/*
 * Objects private to the VM share its reservation: many of them, one job
 * writing each. They bind in their VM only and are never exported.
 */
static void test_vm_private(void)
{
	const uint32_t seg = DRM_VDXG_SEGMENT_VRAM, n = 64;
	struct vdxg_bo *bo[64];
	struct ex e, other;
	uint32_t i, j;
	int fd;

	ex_open(&e);
	ex_open(&other);
	for (i = 0; i < n; i++) {
		vtest_assert_ok(vdxg_bo_create_vm(e.vr.dev, 16 * KIB, &seg, 1,
						  0, e.vm, &bo[i]));
		ex_map(&e, bo[i], VA_DST + i * 64 * KIB, 0);
		vdxg_vcs_set_surface(&e.vcs, VDXG_SLOT_DST,
				     VA_DST + i * 64 * KIB, VDXG_FMT_ARGB8888,
				     64, 64, 256);
		vdxg_vcs_fill_rect(&e.vcs, 0, 0, 64, 64, 0x11000000 + i);
	}
	ex_run(&e);
	for (i = 0; i < n; i++) {
		const uint32_t *px = vr_map(bo[i]);

		for (j = 0; j < 64 * 64; j++)
			vtest_assert_eq(px[j], 0x11000000 + i);
	}

	/* Not in another VM of the same file, nor of another file. */
	{
		uint32_t vm2;

		vtest_assert_ok(vdxg_vm_create(e.vr.dev, 0, &vm2));
		vtest_assert_eq(vdxg_vm_map(e.vr.dev, vm2, bo[0], 0, VA_DST,
					    16 * KIB, 0), -EINVAL);
		vtest_assert_eq(vdxg_bo_export(bo[0], &fd), -EINVAL);
		vtest_assert_ok(vdxg_vm_destroy(e.vr.dev, vm2));
	}
	{
		struct vdxg_bo *none;

		struct drm_vdxg_gem_create gc = {
			.size = 4096, .flags = DRM_VDXG_GEM_VM_PRIVATE,
			.num_segments = 1, .segments = { seg },
		};

		vtest_assert_eq(vdxg_bo_create_vm(e.vr.dev, 4096, &seg, 1, 0,
						  other.vm + 100, &none),
				-ENOENT);
		/* The flag without a VM. */
		vtest_assert_eq(xioctl(vdxg_device_fd(e.vr.dev),
				       DRM_IOCTL_VDXG_GEM_CREATE, &gc), -EINVAL);
	}
	/* Objects outlive their VM. */
	vtest_assert_ok(vdxg_vm_destroy(e.vr.dev, e.vm));
	for (i = 0; i < n; i++) {
		const uint32_t *px = vr_map(bo[i]);

		vtest_assert_eq(px[0], 0x11000000 + i);
		vdxg_bo_free(bo[i]);
	}
	ex_close(&other);
	ex_close(&e);
}

/* ------------------------------------------------------ oversubscribed */

#define OV_PROCS	4
#define OV_OBJ		(64 * MIB)
#define OV_W		4096		/* a 64 MiB object: 4096 x 4096 x 4 */
#define OV_ROUNDS	1
/*
 * A job's wait: behind the moves of four processes' 64 MiB objects in
 * and out of VRAM, queued ahead of it on the paging engine. On a loaded
 * host one took over 30 s with nothing stuck; a stall still fails.
 */
#define OV_WAIT_NS	(4 * VR_WAIT_NS)

static uint32_t ov_color(unsigned int proc, unsigned int obj,
			 unsigned int round)
{
	return 0xff000000u | proc << 16 | obj << 8 | round;
}

/* Every 4 KiB page's first and last dword, and the first and last 64 KiB. */
static void ov_check(struct vdxg_bo *bo, uint32_t want, const char *what)
{
	const uint32_t *p = vr_map(bo);
	uint64_t i, n = OV_OBJ / 4;

	for (i = 0; i < n; i += 1024) {
		vtest_assert_f(p[i] == want && p[i + 1023] == want,
			       "%s: page %" PRIu64 " holds 0x%08x/0x%08x, not 0x%08x",
			       what, i / 1024, p[i], p[i + 1023], want);
	}
	for (i = 0; i < 16384; i++)
		vtest_assert_f(p[i] == want && p[n - 1 - i] == want,
			       "%s: dword %" PRIu64 " wrong", what, i);
}

/*
 * One process: its objects (OV_OBJ each, VRAM preferred, system allowed),
 * bound in its VM, filled whole by EXEC jobs round after round while it
 * and the others pull their objects back into VRAM, evicting each other.
 */
static void ov_proc(unsigned int proc, unsigned int nobj)
{
	static const uint32_t segs[] = { DRM_VDXG_SEGMENT_VRAM,
					 DRM_VDXG_SEGMENT_SYSTEM };
	unsigned int i, r, moves = 0;
	struct vdxg_bo *bo[64];
	char what[64];
	struct ex e;
	int ret;

	ex_open(&e);
	for (i = 0; i < nobj; i++) {
		vtest_assert_ok(vdxg_bo_create(e.vr.dev, OV_OBJ, segs, 2, 0,
					       &bo[i]));
		ex_map(&e, bo[i], VA_DST + i * OV_OBJ, 0);
	}
	for (r = 0; r < OV_ROUNDS; r++) {
		for (i = 0; i < nobj; i++) {
			vdxg_vcs_set_surface(&e.vcs, VDXG_SLOT_DST,
					     VA_DST + i * OV_OBJ,
					     VDXG_FMT_ARGB8888, OV_W, OV_W,
					     OV_W * 4);
			vdxg_vcs_fill_rect(&e.vcs, 0, 0, OV_W, OV_W,
					   ov_color(proc, i, r));
			ex_run_wait(&e, OV_WAIT_NS);
			/*
			 * Into VRAM, evicting someone else's; under this
			 * pressure the others may hold all of it (-ENOMEM).
			 */
			ret = vdxg_bo_make_resident(bo[i],
						    DRM_VDXG_SEGMENT_VRAM);
			vtest_assert_f(!ret || ret == -ENOMEM,
				       "MAKE_RESIDENT: %d", ret);
			moves += !ret;
		}
		for (i = 0; i < nobj; i++) {
			snprintf(what, sizeof(what),
				 "process %u object %u round %u", proc, i, r);
			ov_check(bo[i], ov_color(proc, i, r), what);
		}
	}
	vtest_assert_f(moves, "process %u: no object ever went to VRAM", proc);
	for (i = 0; i < nobj; i++)
		vdxg_bo_free(bo[i]);
	ex_close(&e);
}

/*
 * VRAM oversubscribed 4x: four processes, each with a VRAM's worth of
 * 64 MiB objects bound in its VM, run EXEC jobs over them while TTM moves
 * them between VRAM and system memory; every result is checked. Two
 * processes on the debug kernel, whose KASAN slows page work down, and
 * three (3x) where four do not fit in the commit limit (half of a 2 GiB
 * guest's RAM).
 */
static void test_oversubscribed(void)
{
	/* The debug kernel's KASAN: half of them, twice the segment. */
	unsigned int p, nobj, procs = vtest_debug_kernel() ? OV_PROCS / 2 :
						OV_PROCS;
	pid_t pid[OV_PROCS];
	int status;
	struct ex e;

	ex_open(&e);
	/* Rounded up: at least four times the segment in all. */
	nobj = (vvm_vram_segment(vdxg_device_fd(e.vr.dev)) + OV_OBJ - 1) / OV_OBJ;
	vtest_require_f(nobj >= 1 && nobj <= 64, "VRAM of %u objects", nobj);
	/* Fewer processes when the commit limit has no room for them. */
	while (procs > 2 &&
	       vr_commit_room(&e.vr, (uint64_t)procs * nobj * OV_OBJ) <
	       (uint64_t)procs * nobj * OV_OBJ)
		procs--;
	ex_close(&e);
	vtest_info("%u processes of %u objects of 64 MiB\n", procs, nobj);
	for (p = 0; p < procs; p++) {
		pid[p] = fork();
		vtest_assert(pid[p] >= 0);
		if (!pid[p]) {
			ov_proc(p, nobj);
			_exit(0);
		}
	}
	for (p = 0; p < procs; p++) {
		vtest_assert_eq(waitpid(pid[p], &status, 0), pid[p]);
		vtest_assert_f(WIFEXITED(status) && !WEXITSTATUS(status),
			       "process %u: status 0x%x", p, status);
	}
}

/* ------------------------------------------------ one buffer twice */

/* vgem's mapping of its dumb buffer HANDLE. */
static uint32_t *vgem_map(int fd, uint32_t handle, uint64_t size)
{
	struct drm_mode_map_dumb md = { .handle = handle };
	void *p;

	vtest_assert_ok(vtest_ioctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &md));
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 md.offset);
	vtest_assert(p != MAP_FAILED);
	return p;
}

/*
 * Two imports of one vgem buffer, both bound: the first's handle is
 * closed after its bind (the mapping keeps the object), so the second
 * import is another object on the same reservation. Locking a VM's
 * objects met that reservation twice: every EXEC failed with -EALREADY,
 * and the VM's close unlinked mappings of objects it had not locked
 * without clearing their entries. Now a job writes through both
 * mappings, each half of the buffer, and the bytes reach vgem; the VM's
 * close then goes through, and the device runs another client's job.
 */
static void test_import_twice(void)
{
	struct drm_mode_create_dumb c = { .width = 64, .height = 64,
					  .bpp = 32 };
	struct drm_prime_handle ph = { .flags = DRM_CLOEXEC | DRM_RDWR };
	struct vdxg_bo *a, *b;
	int vgem, x, y;
	uint32_t *px;
	struct ex e;

	ex_open(&e);
	vgem = vtest_open_vgem(NULL);
	vtest_assert_ok(vtest_ioctl(vgem, DRM_IOCTL_MODE_CREATE_DUMB, &c));
	px = vgem_map(vgem, c.handle, c.size);
	memset(px, 0, c.size);
	ph.handle = c.handle;
	vtest_assert_ok(vtest_ioctl(vgem, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph));

	vtest_assert_ok(vdxg_bo_import(e.vr.dev, ph.fd, &a));
	ex_map(&e, a, VA_DST, 0);
	vdxg_bo_free(a);
	vtest_assert_ok(vdxg_bo_import(e.vr.dev, ph.fd, &b));
	ex_map(&e, b, VA_AUX, 0);

	vdxg_vcs_set_surface(&e.vcs, VDXG_SLOT_DST, VA_DST, VDXG_FMT_ARGB8888,
			     64, 64, c.pitch);
	vdxg_vcs_fill_rect(&e.vcs, 0, 0, 64, 32, 0x11223344);
	vdxg_vcs_set_surface(&e.vcs, VDXG_SLOT_DST, VA_AUX, VDXG_FMT_ARGB8888,
			     64, 64, c.pitch);
	vdxg_vcs_fill_rect(&e.vcs, 0, 32, 64, 32, 0x55667788);
	ex_run(&e);
	for (y = 0; y < 64; y++)
		for (x = 0; x < 64; x++)
			vtest_assert_eq(px[y * c.pitch / 4 + x],
					y < 32 ? 0x11223344 : 0x55667788);

	vtest_assert_ok(vdxg_vm_destroy(e.vr.dev, e.vm));
	vdxg_bo_free(b);
	close(ph.fd);
	munmap(px, c.size);
	close(vgem);
	ex_close(&e);

	ex_open(&e);
	vdxg_vcs_nop(&e.vcs);
	ex_run(&e);
	ex_close(&e);
}

/* ------------------------------------------------- contexts that die */

#define DIE_PROCS	2
#define DIE_ROUNDS	12
#define DIE_JOBS	9	/* a round's jobs; the middle one faults */

/*
 * One process's rounds: on a fresh file, VM and virtual-mode context,
 * DIE_JOBS jobs of which the middle one writes to an unmapped address;
 * then the context and the VM are destroyed and the file closed at once,
 * with the jobs still queued. Each job after the faulting one is
 * refused once the context is banned (-EIO), else queued and cancelled.
 */
static void die_proc(void)
{
	struct vdxg_vcs vcs;
	int r, k, ret;
	uint8_t *map;
	struct ex e;

	for (r = 0; r < DIE_ROUNDS; r++) {
		ex_open(&e);
		map = vr_map(e.cmd);
		for (k = 0; k < DIE_JOBS; k++) {
			vdxg_vcs_init(&vcs, map + k * 4 * KIB, 4 * KIB,
				      VA_CMD + k * 4 * KIB);
			if (k == DIE_JOBS / 2) {
				vdxg_vcs_set_surface(&vcs, VDXG_SLOT_DST,
						     VA_DST, VDXG_FMT_ARGB8888,
						     64, 64, 256);
				vdxg_vcs_fill_rect(&vcs, 0, 0, 64, 64,
						   0xdeadbeef);
			} else {
				vdxg_vcs_nop(&vcs);
			}
			vtest_assert_ok(vdxg_vcs_error(&vcs));
			ret = vdxg_exec(e.vr.dev, e.ctx, &vcs, NULL);
			if (k <= DIE_JOBS / 2)
				vtest_assert_ok(ret);
			else
				vtest_assert_f(!ret || ret == -EIO,
					       "job %d: %d", k, ret);
		}
		vtest_assert_ok(vdxg_context_destroy(e.vr.dev, e.ctx));
		vtest_assert_ok(vdxg_vm_destroy(e.vr.dev, e.vm));
		ex_close(&e);
	}
}

/*
 * The last reference to a virtual-mode context, with its VM and state
 * area, goes in the scheduler's free_job when the context died with jobs
 * queued; a fault's recovery waits for free_job (drm_sched_stop()), and
 * the VM's close held the VM's reservation while it waited for those
 * jobs. Freeing the context took that reservation in free_job: the
 * render engine deadlocked for every client. Here faults meet dying
 * contexts, two processes at once, DIE_PROCS * DIE_ROUNDS times: each
 * fault must be recovered by exactly one reset, and another client's
 * job must then run and write its pixels. (On the debug kernel, lockdep
 * also reports a reservation taken in free_job, which is annotated as
 * fence signalling, on the first round.)
 */
static void test_fault_context_dies(void)
{
	uint64_t resets;
	pid_t pid[DIE_PROCS];
	int p, status;
	struct ex v;

	ex_open(&v);
	vr_ignore_dmesg(VR_RESET_DMESG "|callbacks suppressed");
	resets = vr_debugfs(&v.vr, "render", "resets");
	for (p = 0; p < DIE_PROCS; p++) {
		pid[p] = fork();
		vtest_assert(pid[p] >= 0);
		if (!pid[p]) {
			die_proc();
			_exit(0);
		}
	}
	for (p = 0; p < DIE_PROCS; p++) {
		vtest_assert_eq(waitpid(pid[p], &status, 0), pid[p]);
		vtest_assert_f(WIFEXITED(status) && !WEXITSTATUS(status),
			       "process %d: status 0x%x", p, status);
	}
	ex_fill_check(&v, DRM_VDXG_SEGMENT_VRAM, 0x0f0f0f0f);
	vtest_assert_eq_u64(vr_debugfs(&v.vr, "render", "resets") - resets,
			    DIE_PROCS * DIE_ROUNDS);
	ex_close(&v);
}

/* ------------------------------------------------------------ many VMs */

#define MANY_FILES	64
#define MANY_VMS	DRM_VDXG_VM_MAX_PER_FILE	/* in each file */
#define MANY_ROUNDS	2
#define MANY_W		32	/* a 32x32 target, 4 KiB */
#define MANY_WAIT_NS	(120 * 1000000000ll)

static uint32_t many_color(unsigned int f, unsigned int v, unsigned int r)
{
	return 0xff000000u | f << 16 | v << 8 | r;
}

/*
 * One file: MANY_VMS VMs, each with a context, a command object and a
 * target (VRAM or system memory, in turn) mapped at the same addresses as
 * in every other VM. Each round submits one FILL_RECT job in each VM, all
 * at once, then checks every target to the last pixel.
 */
static void many_proc(unsigned int f)
{
	struct {
		uint32_t vm, ctx, out;
		struct vdxg_bo *cmd, *dst;
	} m[MANY_VMS];
	unsigned int v, r, i;
	struct vdxg_vcs vcs;
	struct vr vr;

	vr_open(&vr);
	for (v = 0; v < MANY_VMS; v++) {
		vtest_assert_ok(vdxg_vm_create(vr.dev, 0, &m[v].vm));
		vtest_assert_ok(vdxg_context_create_vm(vr.dev,
						       DRM_VDXG_PRIORITY_NORMAL,
						       m[v].vm, &m[v].ctx));
		m[v].cmd = vr_bo(&vr, 4 * KIB, DRM_VDXG_SEGMENT_SYSTEM, 0);
		m[v].dst = vr_bo(&vr, 4 * KIB, v & 1 ? DRM_VDXG_SEGMENT_SYSTEM :
				 DRM_VDXG_SEGMENT_VRAM, 0);
		vtest_assert_ok(vdxg_vm_map(vr.dev, m[v].vm, m[v].cmd, 0,
					    VA_CMD, 4 * KIB, 0));
		vtest_assert_ok(vdxg_vm_map(vr.dev, m[v].vm, m[v].dst, 0,
					    VA_DST, 4 * KIB, 0));
		m[v].out = vr_syncobj(&vr, false);
	}
	for (r = 0; r < MANY_ROUNDS; r++) {
		for (v = 0; v < MANY_VMS; v++) {
			struct drm_vdxg_sync out = vdxg_sync(m[v].out, 0);
			struct vdxg_submit_opts opts = { .out_syncs = &out,
							 .num_out_syncs = 1 };

			vdxg_vcs_init(&vcs, vr_map(m[v].cmd), 4 * KIB, VA_CMD);
			vdxg_vcs_set_surface(&vcs, VDXG_SLOT_DST, VA_DST,
					     VDXG_FMT_ARGB8888, MANY_W, MANY_W,
					     MANY_W * 4);
			vdxg_vcs_fill_rect(&vcs, 0, 0, MANY_W, MANY_W,
					   many_color(f, v, r));
			vtest_assert_ok(vdxg_vcs_error(&vcs));
			vtest_assert_ok(vdxg_exec(vr.dev, m[v].ctx, &vcs,
						  &opts));
		}
		for (v = 0; v < MANY_VMS; v++) {
			const uint32_t *px = vr_map(m[v].dst);

			vtest_assert_ok(vr_syncobj_wait(&vr, m[v].out, 0,
							MANY_WAIT_NS));
			vtest_assert_eq(vr_syncobj_status(&vr, m[v].out, 0), 1);
			for (i = 0; i < MANY_W * MANY_W; i++)
				vtest_assert_f(px[i] == many_color(f, v, r),
					       "file %u VM %u round %u: pixel "
					       "%u is 0x%08x", f, v, r, i,
					       px[i]);
			vtest_assert_ok(vdxg_syncobj_reset(vr.dev, m[v].out));
		}
	}
	for (v = 0; v < MANY_VMS; v++) {
		vdxg_bo_free(m[v].dst);
		vdxg_bo_free(m[v].cmd);
	}
	vr_close(&vr);
}

/*
 * 4096 VMs, MANY_VMS in each of MANY_FILES files, all open at once, each
 * running EXEC jobs that are checked: VMs are not the device's address
 * spaces, which the driver lends to VMs with work. With fewer address
 * spaces than VMs (the device property address-spaces, which the harness
 * passes as vdxg_test.address-spaces), most are taken back from idle VMs.
 * An eighth of the files on the debug kernel (512 VMs, still more than
 * the 255 address spaces of the default device), and on a device with
 * fewer address spaces than a file has VMs (64 times as many VMs as
 * address spaces, or more).
 */
static void test_many_vms(void)
{
	uint64_t spaces = vtest_cmdline_u64("vdxg_test.address-spaces", 256);
	bool fewer = vtest_debug_kernel() || spaces < MANY_VMS;
	unsigned int f, files = fewer ? MANY_FILES / 8 : MANY_FILES;
	uint64_t grants, steals;
	pid_t pid[MANY_FILES];
	int status;
	struct vr vr;

	vr_open(&vr);
	vtest_require_f(vr_param(&vr, DRM_VDXG_PARAM_CAPS) & VDXG_CAP_GPU_MMU,
			"the device has no GPU MMU");
	vtest_assert_eq_u64(vr_debugfs(&vr, "address_spaces", "count"),
			    spaces);
	grants = vr_debugfs(&vr, "address_spaces", "grants");
	steals = vr_debugfs(&vr, "address_spaces", "steals");
	for (f = 0; f < files; f++) {
		pid[f] = fork();
		vtest_assert(pid[f] >= 0);
		if (!pid[f]) {
			many_proc(f);
			_exit(0);
		}
	}
	for (f = 0; f < files; f++) {
		vtest_assert_eq(waitpid(pid[f], &status, 0), pid[f]);
		vtest_assert_f(WIFEXITED(status) && !WEXITSTATUS(status),
			       "file %u: status 0x%x", f, status);
	}
	grants = vr_debugfs(&vr, "address_spaces", "grants") - grants;
	steals = vr_debugfs(&vr, "address_spaces", "steals") - steals;
	vtest_info("%u VMs on %" PRIu64 " address spaces: %" PRIu64
		   " grants, %" PRIu64 " steals", files * MANY_VMS, spaces,
		   grants, steals);
	/*
	 * Every VM had one. Those not taken from another VM were free at
	 * the start or freed by a file's exit: with few address spaces,
	 * most were.
	 */
	vtest_assert(grants >= files * MANY_VMS);
	if (spaces * (files + 1) < files * MANY_VMS)
		vtest_assert(steals >= files * MANY_VMS - spaces * (files + 1));
	vr_close(&vr);
}

/* ---------------------------------------------------------- bad input */

struct bad_row {
	const char *what;
	struct drm_vdxg_exec args;
	int err;
};

static void test_bad_exec(void)
{
	struct drm_vdxg_sync many[DRM_VDXG_MAX_SYNCS + 1];
	struct drm_vdxg_sync unknown = { .handle = 0xdead };
	struct drm_vdxg_vm_bind_op nul = {
		.op = DRM_VDXG_VM_BIND_OP_MAP_NULL, .va = VA_AUX,
		.range = 64 * KIB,
	};
	struct drm_vdxg_context_create cc = {
		.engine = DRM_VDXG_ENGINE_RENDER,
		.priority = DRM_VDXG_PRIORITY_NORMAL,
	};
	uint32_t pctx, other_ctx, other_vm;
	struct drm_vdxg_exec ok;
	struct ex e, other;
	int fd, i, n;

	ex_open(&e);
	ex_open(&other);
	fd = vdxg_device_fd(e.vr.dev);
	pctx = vr_ctx(&e.vr);
	other_ctx = other.ctx;
	other_vm = other.vm;
	vtest_assert_ok(vdxg_vm_bind(e.vr.dev, e.vm, &nul, 1, NULL, 0, NULL,
				     0));
	memset(many, 0, sizeof(many));
	vdxg_vcs_nop(&e.vcs);
	ok = (struct drm_vdxg_exec){ .ctx_id = e.ctx, .address = VA_CMD,
				     .length = 4 };

	struct bad_row rows[] = {
		{ "flags", { .ctx_id = e.ctx, .flags = 1, .address = VA_CMD,
			     .length = 4 }, -EINVAL },
		{ "pad", { .ctx_id = e.ctx, .pad = 1, .address = VA_CMD,
			   .length = 4 }, -EINVAL },
		{ "address misaligned", { .ctx_id = e.ctx,
					  .address = VA_CMD + 2,
					  .length = 4 }, -EINVAL },
		{ "length 0", { .ctx_id = e.ctx, .address = VA_CMD },
		  -EINVAL },
		{ "length not a multiple of 4", { .ctx_id = e.ctx,
						  .address = VA_CMD,
						  .length = 6 }, -EINVAL },
		{ "length past the limit", { .ctx_id = e.ctx,
					     .address = VA_CMD,
					     .length = DRM_VDXG_EXEC_MAX_LENGTH +
						       4 }, -EINVAL },
		{ "buffer not mapped", { .ctx_id = e.ctx, .address = VA_DST,
					 .length = 4 }, -EINVAL },
		{ "buffer runs past its mapping",
		  { .ctx_id = e.ctx, .address = VA_CMD + CMD_SIZE - 4,
		    .length = 8 }, -EINVAL },
		{ "buffer in a null range", { .ctx_id = e.ctx,
					      .address = VA_AUX,
					      .length = 4 }, -EINVAL },
		{ "address past 48 bits", { .ctx_id = e.ctx,
					    .address = 1ull << 48,
					    .length = 4 }, -EINVAL },
		{ "range wraps", { .ctx_id = e.ctx, .address = -4ull,
				   .length = 8 }, -EINVAL },
		{ "unknown context", { .ctx_id = 0xdead, .address = VA_CMD,
				       .length = 4 }, -ENOENT },
		{ "context 0", { .address = VA_CMD, .length = 4 }, -ENOENT },
		{ "another file's context", { .ctx_id = other_ctx + 100,
					      .address = VA_CMD,
					      .length = 4 }, -ENOENT },
		{ "patch-model context", { .ctx_id = pctx, .address = VA_CMD,
					   .length = 4 }, -EINVAL },
		{ "too many in-syncs", { .ctx_id = e.ctx, .address = VA_CMD,
					 .length = 4,
					 .num_in_syncs = DRM_VDXG_MAX_SYNCS + 1,
					 .in_syncs = (uintptr_t)many }, -E2BIG },
		{ "too many out-syncs", { .ctx_id = e.ctx, .address = VA_CMD,
					  .length = 4,
					  .num_out_syncs =
						DRM_VDXG_MAX_SYNCS + 1,
					  .out_syncs = (uintptr_t)many },
		  -E2BIG },
		{ "bad in-sync pointer", { .ctx_id = e.ctx, .address = VA_CMD,
					   .length = 4, .num_in_syncs = 1,
					   .in_syncs = 8 }, -EFAULT },
		{ "bad out-sync pointer", { .ctx_id = e.ctx,
					    .address = VA_CMD, .length = 4,
					    .num_out_syncs = 1,
					    .out_syncs = 8 }, -EFAULT },
		{ "unknown in-syncobj", { .ctx_id = e.ctx, .address = VA_CMD,
					  .length = 4, .num_in_syncs = 1,
					  .in_syncs = (uintptr_t)&unknown },
		  -ENOENT },
		{ "unknown out-syncobj", { .ctx_id = e.ctx, .address = VA_CMD,
					   .length = 4, .num_out_syncs = 1,
					   .out_syncs = (uintptr_t)&unknown },
		  -ENOENT },
	};

	n = sizeof(rows) / sizeof(rows[0]);
	vtest_assert(n >= 20);
	for (i = 0; i < n; i++) {
		struct drm_vdxg_exec a = rows[i].args;

		vtest_assert_f(xioctl(fd, DRM_IOCTL_VDXG_EXEC, &a) ==
			       rows[i].err, "%s: expected %d", rows[i].what,
			       rows[i].err);
		a = ok;
		vtest_assert_f(!xioctl(fd, DRM_IOCTL_VDXG_EXEC, &a),
			       "a valid EXEC after \"%s\" failed", rows[i].what);
	}

	/* CONTEXT_CREATE's new fields. */
	cc.flags = DRM_VDXG_CONTEXT_VM;
	vtest_assert_eq(xioctl(fd, DRM_IOCTL_VDXG_CONTEXT_CREATE, &cc), -EINVAL);
	cc.vm_id = 0xdead;
	vtest_assert_eq(xioctl(fd, DRM_IOCTL_VDXG_CONTEXT_CREATE, &cc), -ENOENT);
	cc.vm_id = other_vm + 100;
	vtest_assert_eq(xioctl(fd, DRM_IOCTL_VDXG_CONTEXT_CREATE, &cc), -ENOENT);
	cc.flags = 0;
	cc.vm_id = e.vm;
	vtest_assert_eq(xioctl(fd, DRM_IOCTL_VDXG_CONTEXT_CREATE, &cc), -EINVAL);
	cc.flags = DRM_VDXG_CONTEXT_VM;
	cc.pad = 1;
	vtest_assert_eq(xioctl(fd, DRM_IOCTL_VDXG_CONTEXT_CREATE, &cc), -EINVAL);
	cc.pad = 0;
	cc.flags = 0x80;
	vtest_assert_eq(xioctl(fd, DRM_IOCTL_VDXG_CONTEXT_CREATE, &cc), -EINVAL);

	/* SUBMIT takes no virtual-mode context. */
	{
		struct vdxg_cs *cs = vr_cs();

		vdxg_cs_nop(cs);
		vtest_assert_eq(vdxg_submit(e.vr.dev, e.ctx, cs, NULL),
				-EINVAL);
		vdxg_cs_free(cs);
	}
	ex_close(&other);
	ex_close(&e);
}

static const struct vtest_subtest subtests[] = {
	{ "render-vram", test_render_vram,
	  "every command in virtual mode, DST in VRAM, against the reference" },
	{ "render-system", test_render_system,
	  "every command in virtual mode, DST in system memory" },
	{ "render-null", test_render_null,
	  "a null range reads zero and drops writes" },
	{ "cmd-vram", test_cmd_vram, "a command buffer in VRAM" },
	{ "cmd-system", test_cmd_system, "a command buffer in system memory" },
	{ "state-carried", test_state_carried,
	  "surface slots carried to the context's next job, not another's" },
	{ "fault-unmapped", test_fault_unmapped,
	  "a write to an unmapped address faults and bans the context" },
	{ "fault-read-only", test_fault_read_only,
	  "a write through a read-only mapping faults" },
	{ "fault-other-vm", test_fault_other_vm,
	  "another process's address faults" },
	{ "interleaved", test_interleaved,
	  "patch-model and virtual-mode jobs take turns on the engine" },
	{ "unbind-waits", test_unbind_waits,
	  "an unbind waits for a queued job using the object" },
	{ "swapped-out", test_swapped_out,
	  "objects swapped out are brought back before the job" },
	{ "vm-destroyed", test_vm_destroyed,
	  "EXEC on a context whose VM is gone fails" },
	{ "import-twice", test_import_twice,
	  "two imports of one foreign buffer bound in one VM" },
	{ "fault-context-dies", test_fault_context_dies,
	  "faults while contexts die with jobs queued: each recovered" },
	{ "vm-private", test_vm_private,
	  "objects private to a VM: shared reservation, bound there only" },
	{ "oversubscribed", test_oversubscribed,
	  "4 processes' EXEC jobs over 64 MiB objects, VRAM oversubscribed 4x "
	  "(3x where the commit limit says so)" },
	{ "many-vms", test_many_vms,
	  "4096 VMs in 64 files, each running checked EXEC jobs" },
	{ "bad-exec", test_bad_exec,
	  "malformed EXEC and CONTEXT_CREATE calls: each errno, then a valid one" },
};

VTEST_MAIN(subtests)
