/* SPDX-License-Identifier: MIT */
/*
 * vdxg_gl_egl.h: what the GL test clients (vdxg-gl-reset, vdxg-gl-bufs)
 * share. They need no EGL, GBM or GL headers or libraries at build time:
 * they dlopen() the guest's libEGL, libgbm and libGLESv2 and declare what
 * they use (the values are the Khronos registry's). Each sets gl_client
 * to its name first.
 */
#ifndef VDXG_GL_EGL_H
#define VDXG_GL_EGL_H

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
#define GL_ARRAY_BUFFER			0x8892
#define GL_STATIC_DRAW			0x88E4
#define GL_COLOR_BUFFER_BIT		0x4000
#define GL_NO_ERROR			0
#define GL_GUILTY_CONTEXT_RESET		0x8253
#define GL_INNOCENT_CONTEXT_RESET	0x8254
#define GL_UNKNOWN_CONTEXT_RESET	0x8255

/* The client's name, for its messages. */
static const char *gl_client;
static void *egl, *gles, *gbm;

static void *sym(void *lib, const char *name)
{
	void *p = dlsym(lib, name);

	if (!p) {
		fprintf(stderr, "%s: no %s\n", gl_client, name);
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
FN(void, glGenBuffers, (GLsizei, GLuint *));
FN(void, glBindBuffer, (GLenum, GLuint));
FN(void, glBufferData, (GLenum, intptr_t, const void *, GLenum));
FN(void, glUniform4f, (GLint, float, float, float, float));
FN(void, glClearColor, (float, float, float, float));
FN(void, glClear, (GLenum));
FN(void, glReadPixels, (GLint, GLint, GLsizei, GLsizei, GLenum, GLenum,
			void *));
FN(GLenum, glGetError, (void));


static GLuint gl_shader(GLenum type, const char *src)
{
	GLuint s = GL(glCreateShader)(type);
	GLint ok = 0;

	GL(glShaderSource)(s, 1, &src, NULL);
	GL(glCompileShader)(s);
	GL(glGetShaderiv)(s, GL_COMPILE_STATUS, &ok);
	if (!ok) {
		fprintf(stderr, "%s: a shader did not compile\n", gl_client);
		exit(2);
	}
	return s;
}

/* The program of VS and FS, attribute 0 "pos", in use. */
static GLuint gl_program(const char *vs, const char *fs)
{
	GLuint prog = GL(glCreateProgram)();
	GLint ok = 0;

	GL(glAttachShader)(prog, gl_shader(GL_VERTEX_SHADER, vs));
	GL(glAttachShader)(prog, gl_shader(GL_FRAGMENT_SHADER, fs));
	GL(glBindAttribLocation)(prog, 0, "pos");
	GL(glLinkProgram)(prog);
	GL(glGetProgramiv)(prog, GL_LINK_STATUS, &ok);
	if (!ok) {
		fprintf(stderr, "%s: the program did not link\n", gl_client);
		exit(2);
	}
	GL(glUseProgram)(prog);
	return prog;
}

/*
 * A GLES 2.0 context (CTX_ATTRS) current with no surface, on a GBM device
 * of render node NODE; the node's file descriptor. Exits 2 on failure.
 */
static int gl_open(const char *node, const EGLint *ctx_attrs)
{
	const EGLint cfg_attrs[] = {
		EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT, EGL_NONE,
	};
	EGLDisplay dpy;
	EGLConfig cfg;
	EGLContext ctx;
	EGLint n = 0;
	void *gbm_dev;
	int fd;

	egl = dlopen("libEGL.so.1", RTLD_NOW);
	gles = dlopen("libGLESv2.so.2", RTLD_NOW);
	gbm = dlopen("libgbm.so.1", RTLD_NOW);
	if (!egl || !gles || !gbm) {
		fprintf(stderr, "%s: %s\n", gl_client, dlerror());
		exit(2);
	}
	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror(node);
		exit(2);
	}
	gbm_dev = ((gbm_create_device_fn)sym(gbm, "gbm_create_device"))(fd);
	if (!gbm_dev) {
		fprintf(stderr, "%s: no GBM device on %s\n", gl_client, node);
		exit(2);
	}
	dpy = EGL(eglGetPlatformDisplay)(EGL_PLATFORM_GBM_KHR, gbm_dev, NULL);
	if (!dpy || !EGL(eglInitialize)(dpy, NULL, NULL) ||
	    !EGL(eglBindAPI)(EGL_OPENGL_ES_API) ||
	    !EGL(eglChooseConfig)(dpy, cfg_attrs, &cfg, 1, &n) || n < 1) {
		fprintf(stderr, "%s: no EGL display or config\n", gl_client);
		exit(2);
	}
	ctx = EGL(eglCreateContext)(dpy, cfg, NULL, ctx_attrs);
	if (!ctx || !EGL(eglMakeCurrent)(dpy, NULL, NULL, ctx)) {
		fprintf(stderr, "%s: no context\n", gl_client);
		exit(2);
	}
	return fd;
}

/* A SIZE x SIZE RGBA texture bound as the framebuffer, and the viewport. */
static void gl_fbo(GLsizei size)
{
	GLuint tex, fb;

	GL(glGenTextures)(1, &tex);
	GL(glBindTexture)(GL_TEXTURE_2D, tex);
	GL(glTexImage2D)(GL_TEXTURE_2D, 0, GL_RGBA, size, size, 0, GL_RGBA,
			 GL_UNSIGNED_BYTE, NULL);
	GL(glGenFramebuffers)(1, &fb);
	GL(glBindFramebuffer)(GL_FRAMEBUFFER, fb);
	GL(glFramebufferTexture2D)(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
				   GL_TEXTURE_2D, tex, 0);
	if (GL(glCheckFramebufferStatus)(GL_FRAMEBUFFER) !=
	    GL_FRAMEBUFFER_COMPLETE) {
		fprintf(stderr, "%s: framebuffer incomplete\n", gl_client);
		exit(2);
	}
	GL(glViewport)(0, 0, size, size);
}

#endif /* VDXG_GL_EGL_H */
