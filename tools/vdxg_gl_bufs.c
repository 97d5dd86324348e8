// SPDX-License-Identifier: MIT
/*
 * vdxg-gl-bufs: a GLES 2.0 client that draws from many small vertex
 * buffers, for the GL tests of the driver's suballocation.
 *
 *   vdxg-gl-bufs [RENDER_NODE]	(default /dev/dri/renderD128)
 *
 * On a 64x64 framebuffer of 16x16 cells, it creates a vertex buffer of
 * two triangles for each cell (48 bytes), draws each in a colour of its
 * own, and checks every cell's pixels (glReadPixels). Then it respecifies
 * every buffer (glBufferData, while the GPU may still read the old
 * contents) to cover the cell mirrored across the diagonal, draws them in
 * other colours and checks again. It prints the KiB of GEM objects its
 * DRM files gained as the 256 buffers were created, after a first draw
 * from another (the drm-memory-* keys of their fdinfo, read after
 * glFinish; no draw in between, which could add command buffers), as
 * "buffer objects: N KiB": at least 1024 when each has an object (a page
 * at least).
 * Then it churns: in each of ROUNDS rounds it respecifies every buffer
 * again, each just before its draw, to cover another cell (a round's
 * permutation), into a 64x64 viewport of its own of a larger framebuffer,
 * with no wait in between: the driver must not reuse the storage a
 * draw still in flight reads (suballocated entries are recycled as the
 * rounds go on). Every round's cells are checked at the end, and the KiB
 * the objects grew by during the churn printed ("churn: N KiB"; the EXEC
 * model's command buffer objects, up to 2 MiB, count too).
 * Exit status 0 when every pixel is right, 1 when one is not, 2 when the
 * setup fails.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <string.h>

#include "vdxg_gl_egl.h"

#define SIZE	64
#define CELLS	16
#define CELL	(SIZE / CELLS)
#define NBUFS	(CELLS * CELLS)
#define ROUNDS	16		/* churn rounds, in a 4x4 grid of viewports */
#define GRID	4

static const char *vs_src =
	"attribute vec4 pos;\n"
	"void main() { gl_Position = pos; }\n";
static const char *fs_src =
	"precision mediump float;\n"
	"uniform vec4 colour;\n"
	"void main() { gl_FragColor = colour; }\n";

/* Cell I's colour in pass PASS, 8 bits a channel. */
static void colour(unsigned int i, int pass, uint8_t rgba[4])
{
	rgba[0] = i;
	rgba[1] = pass ? 255 - i : i * 7;
	rgba[2] = pass ? 0x80 : 0x20;
	rgba[3] = 255;
}

/* Two triangles over cell (X, Y) in clip coordinates. */
static void cell_quad(unsigned int x, unsigned int y, float v[12])
{
	float x0 = -1 + 2.0f * x / CELLS, x1 = -1 + 2.0f * (x + 1) / CELLS;
	float y0 = -1 + 2.0f * y / CELLS, y1 = -1 + 2.0f * (y + 1) / CELLS;
	const float q[12] = { x0, y0, x1, y0, x0, y1, x1, y0, x1, y1, x0, y1 };

	memcpy(v, q, sizeof(q));
}

/* The KiB of objects of DRM file FD (fdinfo), and its client id. */
static long long file_kib(const char *fd, long long *client)
{
	char path[300], line[256];
	long long kib = 0, v;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%s", fd);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "drm-memory-vram: %lld", &v) == 1 ||
		    sscanf(line, "drm-memory-gtt: %lld", &v) == 1 ||
		    sscanf(line, "drm-memory-cpu: %lld", &v) == 1)
			kib += v;
		sscanf(line, "drm-client-id: %lld", client);
	}
	fclose(f);
	return kib;
}

/*
 * The KiB of objects of this process's DRM files (Mesa may open the node
 * again, or dup() it: each file counted once, by its client id).
 */
static long long object_kib(void)
{
	long long seen[64], kib = 0;
	unsigned int n = 0;
	struct dirent *de;
	DIR *d = opendir("/proc/self/fd");

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char path[300], link[64];
		long long client = -1, k;
		unsigned int i;
		ssize_t len;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = 0;
		if (strncmp(link, "/dev/dri/", 9))
			continue;
		k = file_kib(de->d_name, &client);
		for (i = 0; i < n && seen[i] != client; i++)
			;
		if (i < n || n == 64)
			continue;
		seen[n++] = client;
		kib += k;
	}
	closedir(d);
	return kib;
}

static void draw_cells(GLuint *bufs, GLint loc, int pass, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		uint8_t c[4];

		colour(i, pass, c);
		GL(glBindBuffer)(GL_ARRAY_BUFFER, bufs[i]);
		GL(glVertexAttribPointer)(0, 2, GL_FLOAT, 0, 0, NULL);
		GL(glUniform4f)(loc, c[0] / 255.0f, c[1] / 255.0f,
				c[2] / 255.0f, c[3] / 255.0f);
		GL(glDrawArrays)(GL_TRIANGLES, 0, 6);
	}
}

/* Every pixel of cell I, which is at (X, Y) in pass PASS; wrong ones. */
static unsigned int check_cells(int pass)
{
	static uint8_t px[SIZE * SIZE * 4];
	unsigned int bad = 0;

	GL(glReadPixels)(0, 0, SIZE, SIZE, GL_RGBA, GL_UNSIGNED_BYTE, px);
	for (unsigned int i = 0; i < NBUFS; i++) {
		unsigned int x = i % CELLS, y = i / CELLS;
		uint8_t c[4];

		if (pass) {
			x = i / CELLS;
			y = i % CELLS;
		}
		colour(i, pass, c);
		for (unsigned int p = 0; p < CELL * CELL; p++) {
			const uint8_t *q = px + 4 * ((y * CELL + p / CELL) * SIZE +
						     x * CELL + p % CELL);

			if (memcmp(q, c, 4) && bad++ < 5)
				fprintf(stderr, "pass %d: cell %u (%u,%u): "
					"%02x%02x%02x%02x, want %02x%02x%02x%02x\n",
					pass, i, x, y, q[0], q[1], q[2], q[3],
					c[0], c[1], c[2], c[3]);
		}
	}
	return bad;
}

/* The cell buffer I covers in churn round R (a permutation of cells). */
static unsigned int churn_cell(unsigned int i, unsigned int r)
{
	return (i + 37 * r) % NBUFS;
}

/* Every churn round's cells, in its viewport; wrong pixels. */
static unsigned int check_churn(void)
{
	static uint8_t px[GRID * SIZE * GRID * SIZE * 4];
	const unsigned int w = GRID * SIZE;
	unsigned int bad = 0;

	GL(glReadPixels)(0, 0, w, w, GL_RGBA, GL_UNSIGNED_BYTE, px);
	for (unsigned int r = 0; r < ROUNDS; r++) {
		unsigned int ox = r % GRID * SIZE, oy = r / GRID * SIZE;

		for (unsigned int i = 0; i < NBUFS; i++) {
			unsigned int c = churn_cell(i, r);
			unsigned int x = ox + c % CELLS * CELL;
			unsigned int y = oy + c / CELLS * CELL;
			uint8_t want[4];

			colour(i, r & 1, want);
			for (unsigned int p = 0; p < CELL * CELL; p++) {
				const uint8_t *q = px + 4 * ((y + p / CELL) * w +
							     x + p % CELL);

				if (memcmp(q, want, 4) && bad++ < 5)
					fprintf(stderr, "churn round %u: "
						"buffer %u at cell %u: "
						"%02x%02x%02x%02x, want "
						"%02x%02x%02x%02x\n", r, i, c,
						q[0], q[1], q[2], q[3],
						want[0], want[1], want[2],
						want[3]);
			}
		}
	}
	return bad;
}

int main(int argc, char **argv)
{
	const char *node = argc > 1 ? argv[1] : "/dev/dri/renderD128";
	const EGLint ctx_attrs[] = { EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE };
	GLuint bufs[NBUFS], warm;
	unsigned int bad;
	long long before, after, churn_before, churn_after;
	float v[12];
	GLint loc;

	gl_client = "vdxg-gl-bufs";
	gl_open(node, ctx_attrs);
	gl_fbo(SIZE);
	loc = GL(glGetUniformLocation)(gl_program(vs_src, fs_src), "colour");
	GL(glEnableVertexAttribArray)(0);
	/* A first draw: the driver's upload buffers exist from here on. */
	GL(glGenBuffers)(1, &warm);
	cell_quad(0, 0, v);
	GL(glBindBuffer)(GL_ARRAY_BUFFER, warm);
	GL(glBufferData)(GL_ARRAY_BUFFER, sizeof(v), v, GL_STATIC_DRAW);
	draw_cells(&warm, loc, 0, 1);
	GL(glClearColor)(0, 0, 0, 0);
	GL(glClear)(GL_COLOR_BUFFER_BIT);
	GL(glFinish)();
	before = object_kib();

	GL(glGenBuffers)(NBUFS, bufs);
	for (unsigned int i = 0; i < NBUFS; i++) {
		cell_quad(i % CELLS, i / CELLS, v);
		GL(glBindBuffer)(GL_ARRAY_BUFFER, bufs[i]);
		GL(glBufferData)(GL_ARRAY_BUFFER, sizeof(v), v, GL_STATIC_DRAW);
	}
	GL(glFinish)();
	after = object_kib();
	draw_cells(bufs, loc, 0, NBUFS);
	bad = check_cells(0);

	/* New contents while the draws above may still be on the GPU. */
	draw_cells(bufs, loc, 0, NBUFS);
	for (unsigned int i = 0; i < NBUFS; i++) {
		cell_quad(i / CELLS, i % CELLS, v);
		GL(glBindBuffer)(GL_ARRAY_BUFFER, bufs[i]);
		GL(glBufferData)(GL_ARRAY_BUFFER, sizeof(v), v, GL_STATIC_DRAW);
	}
	draw_cells(bufs, loc, 1, NBUFS);
	bad += check_cells(1);

	/* Churn: each buffer respecified just before its draw, no waits. */
	gl_fbo(GRID * SIZE);
	GL(glClear)(GL_COLOR_BUFFER_BIT);
	GL(glFinish)();
	churn_before = object_kib();
	for (unsigned int r = 0; r < ROUNDS; r++) {
		GL(glViewport)(r % GRID * SIZE, r / GRID * SIZE, SIZE, SIZE);
		for (unsigned int i = 0; i < NBUFS; i++) {
			unsigned int c = churn_cell(i, r);

			uint8_t rgba[4];

			colour(i, r & 1, rgba);
			cell_quad(c % CELLS, c / CELLS, v);
			GL(glBindBuffer)(GL_ARRAY_BUFFER, bufs[i]);
			GL(glBufferData)(GL_ARRAY_BUFFER, sizeof(v), v,
					 GL_STATIC_DRAW);
			GL(glVertexAttribPointer)(0, 2, GL_FLOAT, 0, 0, NULL);
			GL(glUniform4f)(loc, rgba[0] / 255.0f, rgba[1] / 255.0f,
					rgba[2] / 255.0f, rgba[3] / 255.0f);
			GL(glDrawArrays)(GL_TRIANGLES, 0, 6);
		}
	}
	bad += check_churn();
	churn_after = object_kib();
	printf("churn: %lld KiB for %d rounds of %d buffers\n",
	       churn_before >= 0 && churn_after >= 0 ?
	       churn_after - churn_before : -1, ROUNDS, NBUFS);
	if (GL(glGetError)() != GL_NO_ERROR) {
		fprintf(stderr, "vdxg-gl-bufs: a GL error\n");
		bad++;
	}
	printf("buffer objects: %lld KiB for %d buffers of %zu bytes\n",
	       before >= 0 && after >= 0 ? after - before : -1, NBUFS,
	       sizeof(v));
	printf("pixels wrong: %u\n", bad);
	return bad ? 1 : 0;
}
