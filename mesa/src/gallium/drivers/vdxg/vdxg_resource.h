/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

#ifndef VDXG_RESOURCE_H
#define VDXG_RESOURCE_H

#include "pipe/p_state.h"
#include "pipebuffer/pb_slab.h"
#include "util/u_inlines.h"
#include "util/u_range.h"
#include "util/u_transfer.h"

#include "vdxg_hw_defs.h"

struct vdxg_context;
struct vdxg_screen;

/*
 * A GEM object as the driver uses it: the libvdxg object and, in the EXEC
 * model, where the screen's VM maps it. Batches hold references to the
 * objects their commands name until they are submitted, so that a
 * resource may drop or replace its object meanwhile.
 */
struct vdxg_buf {
   struct pipe_reference reference;
   struct vdxg_screen *screen;
   struct vdxg_bo *bo;
   uint64_t va;      /* EXEC: its address in the screen's VM; else 0 */
   uint64_t size;
   bool shared;      /* exported or imported: other users sync on it */
   /* Batches that name it and are not submitted yet (suballocation). */
   int32_t batch_refs;
};

struct vdxg_buf *vdxg_buf_create(struct vdxg_screen *screen, uint64_t size,
                                 bool cpu_access, bool shareable);
struct vdxg_buf *vdxg_buf_import(struct vdxg_screen *screen, int fd);
void vdxg_buf_destroy(struct vdxg_buf *buf);
void *vdxg_buf_map(struct vdxg_buf *buf);

static inline void
vdxg_buf_reference(struct vdxg_buf **dst, struct vdxg_buf *src)
{
   struct vdxg_buf *old = *dst;

   if (pipe_reference(old ? &old->reference : NULL,
                      src ? &src->reference : NULL))
      vdxg_buf_destroy(old);
   *dst = src;
}

/* A small buffer's place in a shared object (vdxg_suballoc.c). */
struct vdxg_slab_entry {
   struct pb_slab_entry base;
   struct vdxg_buf *buf;
   uint32_t offset;
};

/* Buffers up to this size are suballocated. */
#define VDXG_SUBALLOC_MAX (32 * 1024)

struct vdxg_resource {
   struct pipe_resource base;
   struct vdxg_buf *buf;
   /* A suballocated buffer's entry (buf is its slab's, at offset). */
   struct vdxg_slab_entry *entry;
   /* Textures: the device's layout of levels and faces. */
   struct vdxg_tex_layout layout;
   uint32_t hw_format; /* VDXG_FMT_*, 0 for buffers */
   uint32_t offset;    /* of level 0 in buf (imports, suballocations) */
   bool foreign_pitch; /* imported with a pitch SET_TEXTURE can't take */
   /* Buffers: bytes written since creation, for unsynchronized maps. */
   struct util_range valid_buffer_range;
};

static inline struct vdxg_resource *
vdxg_resource(struct pipe_resource *prsc)
{
   return (struct vdxg_resource *)prsc;
}

struct vdxg_transfer {
   struct pipe_transfer base;
   struct pipe_resource *staging;
};

/* The byte offset of image (LEVEL, LAYER) in the resource's object. */
static inline uint64_t
vdxg_resource_image_offset(const struct vdxg_resource *rsc, unsigned level,
                           unsigned layer)
{
   return rsc->offset + rsc->layout.level[level].offset +
          layer * rsc->layout.level[level].image_size;
}

static inline uint32_t
vdxg_resource_pitch(const struct vdxg_resource *rsc, unsigned level)
{
   return rsc->layout.level[level].pitch;
}

bool vdxg_suballoc_init(struct vdxg_screen *screen);
void vdxg_suballoc_fini(struct vdxg_screen *screen);
bool vdxg_suballoc(struct vdxg_screen *screen, struct vdxg_resource *rsc,
                   uint32_t size);
void vdxg_suballoc_free(struct vdxg_screen *screen, struct vdxg_resource *rsc);
bool vdxg_suballoc_renew(struct vdxg_screen *screen, struct vdxg_resource *rsc);

void vdxg_resource_screen_init(struct pipe_screen *pscreen);
void vdxg_resource_context_init(struct pipe_context *pctx);

#endif
