/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

/*
 * Small buffers share objects. A buffer of up to VDXG_SUBALLOC_MAX bytes
 * is an entry of a slab: one object of VDXG_SLAB_SIZE bytes cut into
 * entries of one power-of-two size (pb_slabs), so that a program's many
 * small vertex, index and constant buffers cost one GEM object, one VM
 * binding and one allocation-list entry between them, not one each.
 *
 * A freed entry waits on pb_slabs' reclaim list until its object is
 * idle: no batch still to be submitted names it, and the kernel has no
 * unfinished work on it (which covers the work that used the entry). An
 * object private to the EXEC model's VM is idle only when the whole VM
 * is, so while the GPU is kept busy freed entries may wait long: past
 * VDXG_SLABS_MAX bytes of slabs, small buffers get objects of their own
 * again rather than more slabs.
 */

#include "pipebuffer/pb_slab.h"
#include "util/u_atomic.h"
#include "util/u_memory.h"

#include "vdxg_resource.h"
#include "vdxg_screen.h"

#define VDXG_SLAB_ORDER_MIN 8                      /* 256 B */
#define VDXG_SLAB_ORDER_MAX 15                     /* 32 KiB */
#define VDXG_SLAB_SIZE      (256 * 1024)
#define VDXG_SLABS_MAX      (16 * 1024 * 1024)

struct vdxg_slab {
   struct pb_slab base;
   struct vdxg_buf *buf;
   struct vdxg_slab_entry *entries;
};

static struct vdxg_slab_entry *
vdxg_slab_entry(struct pb_slab_entry *entry)
{
   return container_of(entry, struct vdxg_slab_entry, base);
}

static struct pb_slab *
vdxg_slab_alloc(void *priv, unsigned heap, unsigned entry_size,
                unsigned group_index)
{
   struct vdxg_screen *screen = priv;
   unsigned n = VDXG_SLAB_SIZE / entry_size;
   struct vdxg_slab *slab = CALLOC_STRUCT(vdxg_slab);

   if (!slab)
      return NULL;
   if (p_atomic_add_return(&screen->slab_bytes, VDXG_SLAB_SIZE) >
       VDXG_SLABS_MAX)
      goto fail;
   slab->entries = CALLOC(n, sizeof(*slab->entries));
   slab->buf = vdxg_buf_create(screen, VDXG_SLAB_SIZE, true, false);
   if (!slab->entries || !slab->buf)
      goto fail;
   slab->base.num_entries = n;
   slab->base.num_free = n;
   slab->base.group_index = group_index;
   slab->base.entry_size = entry_size;
   list_inithead(&slab->base.free);
   for (unsigned i = 0; i < n; i++) {
      struct vdxg_slab_entry *e = &slab->entries[i];

      e->base.slab = &slab->base;
      e->buf = slab->buf;
      e->offset = i * entry_size;
      list_addtail(&e->base.head, &slab->base.free);
   }
   return &slab->base;

fail:
   p_atomic_add(&screen->slab_bytes, -VDXG_SLAB_SIZE);
   vdxg_buf_reference(&slab->buf, NULL);
   FREE(slab->entries);
   FREE(slab);
   return NULL;
}

static void
vdxg_slab_free(void *priv, struct pb_slab *pslab)
{
   struct vdxg_screen *screen = priv;
   struct vdxg_slab *slab = container_of(pslab, struct vdxg_slab, base);

   p_atomic_add(&screen->slab_bytes, -VDXG_SLAB_SIZE);
   vdxg_buf_reference(&slab->buf, NULL);
   FREE(slab->entries);
   FREE(slab);
}

static bool
vdxg_slab_can_reclaim(void *priv, struct pb_slab_entry *entry)
{
   struct vdxg_buf *buf = vdxg_slab_entry(entry)->buf;

   return !p_atomic_read(&buf->batch_refs) && !vdxg_bo_wait(buf->bo, 0);
}

bool
vdxg_suballoc_init(struct vdxg_screen *screen)
{
   return pb_slabs_init(&screen->slabs, VDXG_SLAB_ORDER_MIN,
                        VDXG_SLAB_ORDER_MAX, 1, false, screen,
                        vdxg_slab_can_reclaim, vdxg_slab_alloc,
                        vdxg_slab_free);
}

void
vdxg_suballoc_fini(struct vdxg_screen *screen)
{
   pb_slabs_deinit(&screen->slabs);
}

/* An entry of SIZE bytes for RSC (its buf and offset), or false. */
bool
vdxg_suballoc(struct vdxg_screen *screen, struct vdxg_resource *rsc,
              uint32_t size)
{
   struct pb_slab_entry *entry;
   struct vdxg_slab_entry *e;

   if (size > VDXG_SUBALLOC_MAX)
      return false;
   entry = pb_slab_alloc(&screen->slabs, MAX2(size, 1), 0);
   if (!entry)
      return false;
   e = vdxg_slab_entry(entry);
   rsc->entry = e;
   rsc->offset = e->offset;
   vdxg_buf_reference(&rsc->buf, e->buf);
   return true;
}

/* RSC's entry back to its slab, reused once its object is idle. */
void
vdxg_suballoc_free(struct vdxg_screen *screen, struct vdxg_resource *rsc)
{
   if (!rsc->entry)
      return;
   pb_slab_free(&screen->slabs, &rsc->entry->base);
   rsc->entry = NULL;
   rsc->offset = 0;
}

/* A new entry for RSC, its old one freed; false (RSC unchanged) if none. */
bool
vdxg_suballoc_renew(struct vdxg_screen *screen, struct vdxg_resource *rsc)
{
   struct vdxg_slab_entry *old = rsc->entry;
   struct vdxg_buf *old_buf = NULL;

   /* Kept until the old entry is freed: the new one may be elsewhere. */
   vdxg_buf_reference(&old_buf, rsc->buf);
   if (!vdxg_suballoc(screen, rsc, rsc->layout.size)) {
      vdxg_buf_reference(&old_buf, NULL);
      return false;
   }
   pb_slab_free(&screen->slabs, &old->base);
   vdxg_buf_reference(&old_buf, NULL);
   return true;
}
