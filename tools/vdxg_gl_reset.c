// SPDX-License-Identifier: MIT
/*
 * vdxg-gl-reset: a GLES 2.0 client that makes the GPU ban its context and
 * checks that GL_EXT_robustness reports it, for the GL tests.
 *
 *   vdxg-gl-reset [RENDER_NODE]	(default /dev/dri/renderD128)
 *
 * It creates a robust context (EGL_EXT_create_context_robustness, reset
 * notification "lose context on reset") on a GBM device of the render
 * node, with no surface (EGL_KHR_surfaceless_context),
 * draws with a fragment program whose loop runs past the engine's step
 * limit (a SHADER fault: the kernel bans the context), and then polls
 * glGetGraphicsResetStatusEXT. Exit status 0 when it reports a reset
 * (printed as "reset: guilty", "innocent" or "unknown"), 1 when it never
 * does, 2 when the setup fails. It must not crash either way.
 *
 * No EGL, GBM or GL headers or libraries at build time: it dlopen()s the
 * guest's libEGL, libgbm and libGLESv2 and declares what it uses (the
 * values are the Khronos registry's).
 */
#define _GNU_SOURCE
#include "vdxg_gl_egl.h"

static const char *vs_src =
	"attribute vec4 pos;\n"
	"void main() { gl_Position = pos; }\n";
/* Far more loop iterations than the engine lets an invocation visit. */
static const char *fs_src =
	"precision highp float;\n"
	"uniform float n;\n"
	"void main() {\n"
	"  float x = 0.0;\n"
	"  for (int i = 0; i < 1000000; i++) {\n"
	"    x += 0.25;\n"
	"    if (x > n) break;\n"
	"  }\n"
	"  gl_FragColor = vec4(x);\n"
	"}\n";

int main(int argc, char **argv)
{
	const char *node = argc > 1 ? argv[1] : "/dev/dri/renderD128";
	static const float tri[] = { -1, -1, 0, 1, 3, -1, 0, 1, -1, 3, 0, 1 };
	const EGLint ctx_attrs[] = {
		EGL_CONTEXT_CLIENT_VERSION, 2,
		EGL_RESET_STRATEGY_EXT, EGL_LOSE_CONTEXT_ON_RESET_EXT,
		EGL_NONE,
	};
	GLenum (*reset_status)(void);
	GLenum st = GL_NO_ERROR;
	GLuint prog;

	gl_client = "vdxg-gl-reset";
	gl_open(node, ctx_attrs);
	reset_status = (GLenum (*)(void))EGL(eglGetProcAddress)(
		"glGetGraphicsResetStatusEXT");
	if (!reset_status) {
		fprintf(stderr, "vdxg-gl-reset: no GL_EXT_robustness\n");
		return 2;
	}

	gl_fbo(64);
	prog = gl_program(vs_src, fs_src);
	GL(glUniform1f)(GL(glGetUniformLocation)(prog, "n"), 1e30f);
	GL(glVertexAttribPointer)(0, 4, GL_FLOAT, 0, 0, tri);
	GL(glEnableVertexAttribArray)(0);

	/* The faulting draw, then more work: the banned context drops it. */
	for (int i = 0; i < 50 && st == GL_NO_ERROR; i++) {
		GL(glDrawArrays)(GL_TRIANGLES, 0, 3);
		GL(glFinish)();
		st = reset_status();
		if (st == GL_NO_ERROR)
			usleep(100000);
	}
	switch (st) {
	case GL_GUILTY_CONTEXT_RESET:
		printf("reset: guilty\n");
		return 0;
	case GL_INNOCENT_CONTEXT_RESET:
		printf("reset: innocent\n");
		return 0;
	case GL_UNKNOWN_CONTEXT_RESET:
		printf("reset: unknown\n");
		return 0;
	default:
		printf("reset: none reported\n");
		return 1;
	}
}
