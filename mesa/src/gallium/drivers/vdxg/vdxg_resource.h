/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

#ifndef VDXG_RESOURCE_H
#define VDXG_RESOURCE_H

#include "pipe/p_state.h"
#include "util/u_dynarray.h"
#include "util/u_inlines.h"
#include "util/u_range.h"
#include "util/u_transfer.h"

#include "vdxg_hw_defs.h"

struct vdxg_context;
struct vdxg_screen;

/*
 * A GEM object as the driver uses it: the libvdxg object and, in the EXEC
 * model, where the screen's VM maps it; or a small buffer's entry in a
 * slab's object (vdxg_suballoc.c): that object at an offset. Batches hold
 * references to the objects and entries their commands name until they
 * are submitted, so that a resource may drop or replace its storage
 * meanwhile.
 */
struct vdxg_buf {
   struct pipe_reference reference;
   struct vdxg_screen *screen;
   struct vdxg_bo *bo;
   uint64_t offset;   /* in bo: an entry's; else 0 */
   uint64_t va;       /* EXEC: its address in the screen's VM; else 0 */
   uint64_t size;
   bool shared;       /* exported or imported: other users sync on it */
   bool suballocated; /* an entry of a slab (vdxg_suballoc.c) */
   /*
    * An entry: the timeline points (struct vdxg_buf_use) that submitted
    * batches naming it signal when they complete, the last of each
    * context's, until they are seen signalled; under the screen's
    * suballoc_lock.
    */
   struct util_dynarray uses;
};

struct vdxg_timeline;

struct vdxg_buf_use {
   struct vdxg_timeline *timeline;
   uint64_t point;
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

/* Buffers up to this size that are not shared are suballocated. */
#define VDXG_SUBALLOC_MAX (32 * 1024)

bool vdxg_suballoc_init(struct vdxg_screen *screen);
void vdxg_suballoc_fini(struct vdxg_screen *screen);
struct vdxg_buf *vdxg_suballoc(struct vdxg_screen *screen, uint32_t size);
void vdxg_suballoc_free(struct vdxg_buf *buf);
void vdxg_suballoc_used(struct vdxg_screen *screen, struct vdxg_buf *buf,
                        struct vdxg_timeline *timeline, uint64_t point);
bool vdxg_buf_idle(struct vdxg_buf *buf, int64_t timeout_ns);

struct vdxg_resource {
   struct pipe_resource base;
   struct vdxg_buf *buf;
   /* Textures: the device's layout of levels and faces. */
   struct vdxg_tex_layout layout;
   uint32_t hw_format; /* VDXG_FMT_*, 0 for buffers */
   uint32_t offset;    /* of level 0 in buf (imports) */
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

void vdxg_resource_screen_init(struct pipe_screen *pscreen);
void vdxg_resource_context_init(struct pipe_context *pctx);

#endif
