/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

/*
 * Small buffers share objects. A buffer of up to VDXG_SUBALLOC_MAX bytes
 * that no one else uses is an entry of a slab: one object of
 * VDXG_SLAB_SIZE bytes cut into entries of one power-of-two size
 * (pb_slabs), so that a program's many small vertex, index and constant
 * buffers cost one GEM object, one VM binding and one allocation-list
 * entry between them, not one each.
 *
 * An entry is a vdxg_buf of its own (its slab's object at an offset), so
 * that batches name entries, not slabs. When a batch is submitted, each
 * entry it names records the point its context's timeline reaches when
 * the batch completes (the latest of each context: a context's jobs run
 * in order). A freed entry waits on pb_slabs' reclaim list until those
 * points have signalled, which a syncobj query tells without waiting; a
 * map waits for them. The slab object's own idleness is never asked: in
 * the EXEC model an object private to the VM is idle only when the whole
 * VM is.
 *
 * A slab whose entries are all free again is released; its object is
 * kept for the next slab (vdxg_screen.slabs_cached, two at most), so
 * that a program that creates and frees a small buffer at a time does
 * not create and bind an object each time.
 */

#include "pipebuffer/pb_slab.h"
#include "util/u_atomic.h"
#include "util/u_memory.h"

#include "vdxg_fence.h"
#include "vdxg_resource.h"
#include "vdxg_screen.h"

#define VDXG_SLAB_ORDER_MIN 8 /* 256 B */
#define VDXG_SLAB_ORDER_MAX 15 /* 32 KiB: VDXG_SUBALLOC_MAX */
#define VDXG_SLAB_SIZE      (256 * 1024)

static_assert(VDXG_SUBALLOC_MAX == 1 << VDXG_SLAB_ORDER_MAX,
              "the largest entry is the largest suballocated buffer");

struct vdxg_slab_entry {
   struct pb_slab_entry base;
   struct vdxg_buf buf;
};

struct vdxg_slab {
   struct pb_slab base;
   struct vdxg_buf *buf; /* the object */
   struct vdxg_slab_entry *entries;
};

static struct vdxg_slab_entry *
vdxg_slab_entry(struct vdxg_buf *buf)
{
   return container_of(buf, struct vdxg_slab_entry, buf);
}

/* Drop the uses that have completed; true when none is left. */
static bool
vdxg_buf_uses_done_locked(struct vdxg_buf *buf)
{
   unsigned i = 0;

   while (i < util_dynarray_num_elements(&buf->uses, struct vdxg_buf_use)) {
      struct vdxg_buf_use *use =
         util_dynarray_element(&buf->uses, struct vdxg_buf_use, i);

      if (!vdxg_timeline_reached(use->timeline, use->point, 0)) {
         i++;
         continue;
      }
      vdxg_timeline_reference(&use->timeline, NULL);
      *use = util_dynarray_pop(&buf->uses, struct vdxg_buf_use);
   }
   return !util_dynarray_num_elements(&buf->uses, struct vdxg_buf_use);
}

static void
vdxg_buf_uses_clear(struct vdxg_buf *buf)
{
   util_dynarray_foreach (&buf->uses, struct vdxg_buf_use, use)
      vdxg_timeline_reference(&use->timeline, NULL);
   util_dynarray_clear(&buf->uses);
}

/*
 * BUF was named by a submitted batch of TIMELINE's context, which
 * reaches POINT when the batch completes.
 */
void
vdxg_suballoc_used(struct vdxg_screen *screen, struct vdxg_buf *buf,
                   struct vdxg_timeline *timeline, uint64_t point)
{
   struct vdxg_buf_use *use;

   simple_mtx_lock(&screen->suballoc_lock);
   util_dynarray_foreach (&buf->uses, struct vdxg_buf_use, it) {
      if (it->timeline == timeline) {
         it->point = point;
         goto out;
      }
   }
   use = util_dynarray_grow(&buf->uses, struct vdxg_buf_use, 1);
   if (!use) {
      /* No room to remember it: wait for it now. */
      vdxg_timeline_reached(timeline, point, INT64_MAX);
      goto out;
   }
   use->timeline = NULL;
   use->point = point;
   vdxg_timeline_reference(&use->timeline, timeline);
out:
   simple_mtx_unlock(&screen->suballoc_lock);
}

/*
 * Is the GPU done with BUF? TIMEOUT_NS 0 asks without waiting; else it
 * waits (for an entry, for each of its uses in turn, that long at most).
 * An entry asks its uses' timelines; an object the kernel.
 */
bool
vdxg_buf_idle(struct vdxg_buf *buf, int64_t timeout_ns)
{
   struct vdxg_screen *screen = buf->screen;
   struct vdxg_timeline *timeline = NULL;
   struct vdxg_buf_use *use;
   uint64_t point;
   bool done;

   if (!buf->suballocated)
      return !vdxg_bo_wait(buf->bo, timeout_ns);

   simple_mtx_lock(&screen->suballoc_lock);
   while (!vdxg_buf_uses_done_locked(buf)) {
      if (!timeout_ns) {
         simple_mtx_unlock(&screen->suballoc_lock);
         return false;
      }
      /* Wait unlocked: other contexts record their uses meanwhile. */
      use = util_dynarray_element(&buf->uses, struct vdxg_buf_use, 0);
      vdxg_timeline_reference(&timeline, use->timeline);
      point = use->point;
      simple_mtx_unlock(&screen->suballoc_lock);
      done = vdxg_timeline_reached(timeline, point, timeout_ns);
      vdxg_timeline_reference(&timeline, NULL);
      if (!done)
         return false;
      simple_mtx_lock(&screen->suballoc_lock);
   }
   simple_mtx_unlock(&screen->suballoc_lock);
   return true;
}

/* A slab's object: one kept from a released slab, or a new one. */
static struct vdxg_buf *
vdxg_slab_object(struct vdxg_screen *screen)
{
   struct vdxg_buf *buf = NULL;

   simple_mtx_lock(&screen->suballoc_lock);
   if (screen->num_slabs_cached)
      buf = screen->slabs_cached[--screen->num_slabs_cached];
   simple_mtx_unlock(&screen->suballoc_lock);
   if (buf)
      return buf;
   buf = vdxg_buf_create(screen, VDXG_SLAB_SIZE, true, false);
   /* Mapped once, for every entry's maps. */
   if (buf && !vdxg_buf_map(buf))
      vdxg_buf_reference(&buf, NULL);
   return buf;
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
   slab->entries = CALLOC(n, sizeof(*slab->entries));
   if (!slab->entries) {
      FREE(slab);
      return NULL;
   }
   slab->buf = vdxg_slab_object(screen);
   if (!slab->buf) {
      FREE(slab->entries);
      FREE(slab);
      return NULL;
   }
   p_atomic_inc(&screen->num_slabs);
   slab->base.num_entries = n;
   slab->base.num_free = n;
   slab->base.group_index = group_index;
   slab->base.entry_size = entry_size;
   list_inithead(&slab->base.free);
   for (unsigned i = 0; i < n; i++) {
      struct vdxg_slab_entry *e = &slab->entries[i];
      struct vdxg_buf *buf = &e->buf;

      e->base.slab = &slab->base;
      buf->screen = screen;
      buf->bo = slab->buf->bo;
      buf->offset = i * entry_size;
      buf->va = slab->buf->va ? slab->buf->va + buf->offset : 0;
      buf->size = entry_size;
      buf->suballocated = true;
      util_dynarray_init(&buf->uses, NULL);
      list_addtail(&e->base.head, &slab->base.free);
   }
   return &slab->base;
}

/*
 * Every entry is free and its uses done (or the screen is going away):
 * the object is kept for another slab, or freed.
 */
static void
vdxg_slab_free(void *priv, struct pb_slab *pslab)
{
   struct vdxg_screen *screen = priv;
   struct vdxg_slab *slab = container_of(pslab, struct vdxg_slab, base);

   p_atomic_dec(&screen->num_slabs);
   for (unsigned i = 0; i < slab->base.num_entries; i++) {
      vdxg_buf_uses_clear(&slab->entries[i].buf);
      util_dynarray_fini(&slab->entries[i].buf.uses);
   }
   simple_mtx_lock(&screen->suballoc_lock);
   if (screen->num_slabs_cached < ARRAY_SIZE(screen->slabs_cached)) {
      screen->slabs_cached[screen->num_slabs_cached++] = slab->buf;
      slab->buf = NULL;
   }
   simple_mtx_unlock(&screen->suballoc_lock);
   vdxg_buf_reference(&slab->buf, NULL);
   FREE(slab->entries);
   FREE(slab);
}

static bool
vdxg_slab_can_reclaim(void *priv, struct pb_slab_entry *entry)
{
   struct vdxg_screen *screen = priv;
   struct vdxg_slab_entry *e =
      container_of(entry, struct vdxg_slab_entry, base);
   bool done;

   simple_mtx_lock(&screen->suballoc_lock);
   done = vdxg_buf_uses_done_locked(&e->buf);
   simple_mtx_unlock(&screen->suballoc_lock);
   return done;
}

bool
vdxg_suballoc_init(struct vdxg_screen *screen)
{
   simple_mtx_init(&screen->suballoc_lock, mtx_plain);
   return pb_slabs_init(&screen->slabs, VDXG_SLAB_ORDER_MIN,
                        VDXG_SLAB_ORDER_MAX, 1, false, screen,
                        vdxg_slab_can_reclaim, vdxg_slab_alloc,
                        vdxg_slab_free);
}

/* Every buffer is gone; entries still in flight are freed too. */
void
vdxg_suballoc_fini(struct vdxg_screen *screen)
{
   pb_slabs_deinit(&screen->slabs);
   while (screen->num_slabs_cached)
      vdxg_buf_reference(&screen->slabs_cached[--screen->num_slabs_cached],
                         NULL);
   simple_mtx_destroy(&screen->suballoc_lock);
}

/* A new buffer of SIZE bytes in an entry, or NULL. */
struct vdxg_buf *
vdxg_suballoc(struct vdxg_screen *screen, uint32_t size)
{
   struct pb_slab_entry *entry;
   struct vdxg_buf *buf;

   if (size > VDXG_SUBALLOC_MAX)
      return NULL;
   entry = pb_slab_alloc(&screen->slabs, MAX2(size, 1), 0);
   if (!entry)
      return NULL;
   buf = &container_of(entry, struct vdxg_slab_entry, base)->buf;
   pipe_reference_init(&buf->reference, 1);
   return buf;
}

/* BUF's last reference is gone: its entry is reclaimed when idle. */
void
vdxg_suballoc_free(struct vdxg_buf *buf)
{
   pb_slab_free(&buf->screen->slabs, &vdxg_slab_entry(buf)->base);
}
