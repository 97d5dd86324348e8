/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

#include "util/os_file.h"
#include "util/u_screen.h"

#include "vdxg/vdxg_public.h"

#include "vdxg_drm_public.h"

/*
 * One screen per device file: the screen owns a dup of FD, and the loader
 * gets the same screen again for another fd of the same file.
 */
struct pipe_screen *
vdxg_drm_screen_create(int fd, const struct pipe_screen_config *config)
{
   return u_pipe_screen_lookup_or_create(os_dupfd_cloexec(fd), config, NULL,
                                         vdxg_screen_create);
}
