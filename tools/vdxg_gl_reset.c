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
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef void *EGLDisplay, *EGLConfig, *EGLContext, *EGLSurface;
typedef int32_t EGLint;
typedef unsigned int EGLBoolean, GLenum, GLuint;
typedef int GLint, GLsizei;

#define EGL_NONE			0x3038
#define EGL_RENDERABLE_TYPE		0x3040
#define EGL_OPENGL_ES2_BIT		0x0004
#define EGL_OPENGL_ES_API		0x30A0
#define EGL_CONTEXT_CLIENT_VERSION	0x3098
#define EGL_PLATFORM_GBM_KHR		0x31D7
#define EGL_RESET_STRATEGY_EXT		0x3138
#define EGL_LOSE_CONTEXT_ON_RESET_EXT	0x31BF

#define GL_FRAGMENT_SHADER		0x8B30
#define GL_VERTEX_SHADER		0x8B31
#define GL_COMPILE_STATUS		0x8B81
#define GL_LINK_STATUS			0x8B82
#define GL_FRAMEBUFFER			0x8D40
#define GL_COLOR_ATTACHMENT0		0x8CE0
#define GL_FRAMEBUFFER_COMPLETE		0x8CD5
#define GL_TEXTURE_2D			0x0DE1
#define GL_RGBA				0x1908
#define GL_UNSIGNED_BYTE		0x1401
#define GL_FLOAT			0x1406
#define GL_TRIANGLES			0x0004
#define GL_NO_ERROR			0
#define GL_GUILTY_CONTEXT_RESET		0x8253
#define GL_INNOCENT_CONTEXT_RESET	0x8254
#define GL_UNKNOWN_CONTEXT_RESET	0x8255

static void *egl, *gles, *gbm;

static void *sym(void *lib, const char *name)
{
	void *p = dlsym(lib, name);

	if (!p) {
		fprintf(stderr, "vdxg-gl-reset: no %s\n", name);
		exit(2);
	}
	return p;
}

/* The entry points used, as pointer types: FN(ret, name, args). */
#define FN(ret, name, args) typedef ret(*name##_fn) args
#define EGL(name) ((name##_fn)sym(egl, #name))
#define GL(name) ((name##_fn)sym(gles, #name))

FN(void *, gbm_create_device, (int));
FN(EGLDisplay, eglGetPlatformDisplay, (unsigned int, void *, const intptr_t *));
FN(EGLBoolean, eglInitialize, (EGLDisplay, EGLint *, EGLint *));
FN(EGLBoolean, eglBindAPI, (unsigned int));
FN(EGLBoolean, eglChooseConfig, (EGLDisplay, const EGLint *, EGLConfig *,
				 EGLint, EGLint *));
FN(EGLContext, eglCreateContext, (EGLDisplay, EGLConfig, EGLContext,
				  const EGLint *));
FN(EGLBoolean, eglMakeCurrent, (EGLDisplay, EGLSurface, EGLSurface,
				EGLContext));
FN(void *, eglGetProcAddress, (const char *));
FN(GLuint, glCreateShader, (GLenum));
FN(void, glShaderSource, (GLuint, GLsizei, const char *const *,
			  const GLint *));
FN(void, glCompileShader, (GLuint));
FN(void, glGetShaderiv, (GLuint, GLenum, GLint *));
FN(GLuint, glCreateProgram, (void));
FN(void, glAttachShader, (GLuint, GLuint));
FN(void, glBindAttribLocation, (GLuint, GLuint, const char *));
FN(void, glLinkProgram, (GLuint));
FN(void, glGetProgramiv, (GLuint, GLenum, GLint *));
FN(void, glUseProgram, (GLuint));
FN(GLint, glGetUniformLocation, (GLuint, const char *));
FN(void, glUniform1f, (GLint, float));
FN(void, glGenTextures, (GLsizei, GLuint *));
FN(void, glBindTexture, (GLenum, GLuint));
FN(void, glTexImage2D, (GLenum, GLint, GLint, GLsizei, GLsizei, GLint, GLenum,
			GLenum, const void *));
FN(void, glGenFramebuffers, (GLsizei, GLuint *));
FN(void, glBindFramebuffer, (GLenum, GLuint));
FN(void, glFramebufferTexture2D, (GLenum, GLenum, GLenum, GLuint, GLint));
FN(GLenum, glCheckFramebufferStatus, (GLenum));
FN(void, glViewport, (GLint, GLint, GLsizei, GLsizei));
FN(void, glVertexAttribPointer, (GLuint, GLint, GLenum, unsigned char,
				 GLsizei, const void *));
FN(void, glEnableVertexAttribArray, (GLuint));
FN(void, glDrawArrays, (GLenum, GLint, GLsizei));
FN(void, glFinish, (void));

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

static GLuint shader(GLenum type, const char *src)
{
	GLuint s = GL(glCreateShader)(type);
	GLint ok = 0;

	GL(glShaderSource)(s, 1, &src, NULL);
	GL(glCompileShader)(s);
	GL(glGetShaderiv)(s, GL_COMPILE_STATUS, &ok);
	if (!ok) {
		fprintf(stderr, "vdxg-gl-reset: a shader did not compile\n");
		exit(2);
	}
	return s;
}

int main(int argc, char **argv)
{
	const char *node = argc > 1 ? argv[1] : "/dev/dri/renderD128";
	static const float tri[] = { -1, -1, 0, 1, 3, -1, 0, 1, -1, 3, 0, 1 };
	const EGLint cfg_attrs[] = {
		EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT, EGL_NONE,
	};
	const EGLint ctx_attrs[] = {
		EGL_CONTEXT_CLIENT_VERSION, 2,
		EGL_RESET_STRATEGY_EXT, EGL_LOSE_CONTEXT_ON_RESET_EXT,
		EGL_NONE,
	};
	GLenum (*reset_status)(void);
	EGLDisplay dpy;
	EGLConfig cfg;
	EGLContext ctx;
	GLuint prog, tex, fb;
	GLint ok = 0;
	EGLint n = 0;
	GLenum st = GL_NO_ERROR;
	void *gbm_dev;
	int fd;

	egl = dlopen("libEGL.so.1", RTLD_NOW);
	gles = dlopen("libGLESv2.so.2", RTLD_NOW);
	gbm = dlopen("libgbm.so.1", RTLD_NOW);
	if (!egl || !gles || !gbm) {
		fprintf(stderr, "vdxg-gl-reset: %s\n", dlerror());
		return 2;
	}
	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror(node);
		return 2;
	}
	gbm_dev = ((gbm_create_device_fn)sym(gbm, "gbm_create_device"))(fd);
	if (!gbm_dev) {
		fprintf(stderr, "vdxg-gl-reset: no GBM device on %s\n", node);
		return 2;
	}
	dpy = EGL(eglGetPlatformDisplay)(EGL_PLATFORM_GBM_KHR, gbm_dev, NULL);
	if (!dpy || !EGL(eglInitialize)(dpy, NULL, NULL) ||
	    !EGL(eglBindAPI)(EGL_OPENGL_ES_API) ||
	    !EGL(eglChooseConfig)(dpy, cfg_attrs, &cfg, 1, &n) || n < 1) {
		fprintf(stderr, "vdxg-gl-reset: no EGL display or config\n");
		return 2;
	}
	ctx = EGL(eglCreateContext)(dpy, cfg, NULL, ctx_attrs);
	if (!ctx || !EGL(eglMakeCurrent)(dpy, NULL, NULL, ctx)) {
		fprintf(stderr, "vdxg-gl-reset: no robust context\n");
		return 2;
	}
	reset_status = (GLenum (*)(void))EGL(eglGetProcAddress)(
		"glGetGraphicsResetStatusEXT");
	if (!reset_status) {
		fprintf(stderr, "vdxg-gl-reset: no GL_EXT_robustness\n");
		return 2;
	}

	GL(glGenTextures)(1, &tex);
	GL(glBindTexture)(GL_TEXTURE_2D, tex);
	GL(glTexImage2D)(GL_TEXTURE_2D, 0, GL_RGBA, 64, 64, 0, GL_RGBA,
			 GL_UNSIGNED_BYTE, NULL);
	GL(glGenFramebuffers)(1, &fb);
	GL(glBindFramebuffer)(GL_FRAMEBUFFER, fb);
	GL(glFramebufferTexture2D)(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
				   GL_TEXTURE_2D, tex, 0);
	if (GL(glCheckFramebufferStatus)(GL_FRAMEBUFFER) !=
	    GL_FRAMEBUFFER_COMPLETE) {
		fprintf(stderr, "vdxg-gl-reset: framebuffer incomplete\n");
		return 2;
	}
	prog = GL(glCreateProgram)();
	GL(glAttachShader)(prog, shader(GL_VERTEX_SHADER, vs_src));
	GL(glAttachShader)(prog, shader(GL_FRAGMENT_SHADER, fs_src));
	GL(glBindAttribLocation)(prog, 0, "pos");
	GL(glLinkProgram)(prog);
	GL(glGetProgramiv)(prog, GL_LINK_STATUS, &ok);
	if (!ok) {
		fprintf(stderr, "vdxg-gl-reset: the program did not link\n");
		return 2;
	}
	GL(glUseProgram)(prog);
	GL(glUniform1f)(GL(glGetUniformLocation)(prog, "n"), 1e30f);
	GL(glViewport)(0, 0, 64, 64);
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
