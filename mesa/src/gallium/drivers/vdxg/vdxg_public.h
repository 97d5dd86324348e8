/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

#ifndef VDXG_PUBLIC_H
#define VDXG_PUBLIC_H

struct pipe_screen;
struct pipe_screen_config;
struct renderonly;

struct pipe_screen *vdxg_screen_create(int fd,
                                       const struct pipe_screen_config *config,
                                       struct renderonly *ro);

#endif
