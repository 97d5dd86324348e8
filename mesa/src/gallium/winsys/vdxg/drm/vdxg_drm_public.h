/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

#ifndef VDXG_DRM_PUBLIC_H
#define VDXG_DRM_PUBLIC_H

struct pipe_screen;
struct pipe_screen_config;

struct pipe_screen *vdxg_drm_screen_create(int fd,
                                           const struct pipe_screen_config *config);

#endif
