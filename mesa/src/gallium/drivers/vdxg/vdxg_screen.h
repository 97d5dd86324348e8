/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

#ifndef VDXG_SCREEN_H
#define VDXG_SCREEN_H

#include "pipe/p_screen.h"
#include "pipebuffer/pb_slab.h"
#include "util/simple_mtx.h"
#include "util/slab.h"
#include "util/vma.h"

#include "vdxg_hw_defs.h"

struct renderonly;

#define VDXG_DEBUG_SHADERS    (1 << 0)
#define VDXG_DEBUG_CMDS       (1 << 1)
#define VDXG_DEBUG_SYNC       (1 << 2)
#define VDXG_DEBUG_NOCOPY     (1 << 3)
#define VDXG_DEBUG_STAGING    (1 << 4)
#define VDXG_DEBUG_NOSUBALLOC (1 << 5)

extern uint32_t vdxg_debug;

/* How command buffers reach the engine (VDXG_SUBMIT). */
enum vdxg_submit_model {
   /* WDDM 2.0: a VM with every object bound, EXEC by virtual address. */
   VDXG_SUBMIT_EXEC,
   /* WDDM 1.x: SUBMIT with an allocation list and patch locations. */
   VDXG_SUBMIT_PATCH,
};

struct vdxg_screen {
   struct pipe_screen base;

   struct vdxg_device *dev;
   int fd;
   enum vdxg_submit_model model;

   /* The VM every object is bound in (EXEC model), and its free space. */
   uint32_t vm_id;
   simple_mtx_t vma_lock;
   struct util_vma_heap vma;

   /* The 3D pipeline's limits (GET_PARAM). */
   uint32_t max_texture_size;
   uint32_t max_texture_levels;
   uint32_t max_constants;
   uint32_t max_command_size;
   uint32_t max_allocations;
   uint64_t vram_size;
   uint64_t vram_visible_size;

   /*
    * Every object by GEM handle: importing an object the file already has
    * gives its handle again, which must find the same vdxg_buf.
    */
   simple_mtx_t handles_lock;
   struct hash_table *handles;

   struct slab_parent_pool transfer_pool;

   /*
    * Small buffers' slabs (vdxg_suballoc.c). suballoc_lock guards the
    * entries' uses and the objects of released slabs kept for new ones.
    */
   struct pb_slabs slabs;
   simple_mtx_t suballoc_lock;
   struct vdxg_buf *slabs_cached[2];
   unsigned num_slabs_cached;
   int32_t num_slabs; /* for VDXG_DEBUG=cmds */
};

static inline struct vdxg_screen *
vdxg_screen(struct pipe_screen *pscreen)
{
   return (struct vdxg_screen *)pscreen;
}

struct pipe_screen *vdxg_screen_create(int fd,
                                       const struct pipe_screen_config *config,
                                       struct renderonly *ro);

#endif
