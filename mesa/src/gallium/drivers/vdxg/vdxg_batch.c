/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

/*
 * Command buffers, by either submission model, behind one set of emit
 * functions:
 *
 * - EXEC (WDDM 2.0): commands are written straight into a GPU object that
 *   the screen's VM maps, with virtual addresses, and run with EXEC: no
 *   lists, no copy; the device's MMU confines the job.
 * - patch (WDDM 1.x): commands go into libvdxg's builder, which records an
 *   allocation-list entry and a patch location for every address field;
 *   SUBMIT copies them, makes the allocations resident, patches and runs.
 *   A split point before each new render target lets the kernel run the
 *   buffer in pieces when its allocations do not fit together.
 *
 * A batch starts with no state: the first draw of a batch emits all of
 * it (vdxg_emit_draw_state), so a virtual-mode context's carried state
 * never matters.
 */

#include <errno.h>
#include <unistd.h>

#include "util/libsync.h"
#include "util/log.h"
#include "util/os_file.h"
#include "util/u_memory.h"

#include "vdxg_context.h"
#include "vdxg_fence.h"
#include "vdxg_resource.h"
#include "vdxg_screen.h"

/* An EXEC command buffer object, and how many the context keeps. */
#define VDXG_CMD_BUF_SIZE  (256 * 1024)
#define VDXG_CMD_BUFS_KEPT 8

/*
 * A command buffer whose last submission has completed, by the context's
 * timeline (an object wait would wait for the whole VM, as every object
 * of a VM shares its reservation): the oldest is waited for when the
 * context keeps as many as it may.
 */
static struct vdxg_cmd_buf *
vdxg_cmd_buf_get(struct vdxg_context *ctx)
{
   struct vdxg_cmd_buf *cb, *oldest = NULL;
   unsigned count = 0;

   /* Oldest first: the list is in submission order. */
   list_for_each_entry (struct vdxg_cmd_buf, it, &ctx->cmd_bufs, link) {
      count++;
      if (!oldest)
         oldest = it;
      if (vdxg_timeline_reached(ctx->timeline, it->point, 0)) {
         cb = it;
         goto found;
      }
   }
   if (count >= VDXG_CMD_BUFS_KEPT) {
      /* A lost context's points signal too, with an error. */
      vdxg_timeline_reached(ctx->timeline, oldest->point, INT64_MAX);
      cb = oldest;
      goto found;
   }
   cb = CALLOC_STRUCT(vdxg_cmd_buf);
   if (!cb)
      return NULL;
   cb->buf = vdxg_buf_create(ctx->screen, VDXG_CMD_BUF_SIZE, true, false);
   if (!cb->buf || !vdxg_buf_map(cb->buf)) {
      vdxg_buf_reference(&cb->buf, NULL);
      FREE(cb);
      return NULL;
   }
   list_addtail(&cb->link, &ctx->cmd_bufs);
found:
   /* Most recently used last. */
   list_del(&cb->link);
   list_addtail(&cb->link, &ctx->cmd_bufs);
   return cb;
}

static bool
vdxg_batch_start(struct vdxg_context *ctx)
{
   struct vdxg_batch *batch = &ctx->batch;

   batch->num_draws = 0;
   ctx->dirty = VDXG_DIRTY_ALL;
   if (ctx->screen->model == VDXG_SUBMIT_PATCH) {
      vdxg_cs_reset(batch->cs);
      return true;
   }
   batch->cmd = vdxg_cmd_buf_get(ctx);
   if (!batch->cmd)
      return false;
   vdxg_vcs_init(&batch->vcs, batch->cmd->buf->bo->map, VDXG_CMD_BUF_SIZE,
                 batch->cmd->buf->va);
   return true;
}

bool
vdxg_batch_init(struct vdxg_context *ctx)
{
   struct vdxg_screen *screen = ctx->screen;
   struct vdxg_batch *batch = &ctx->batch;

   batch->bufs = _mesa_pointer_set_create(NULL);
   if (!batch->bufs)
      return false;
   if (screen->model == VDXG_SUBMIT_PATCH) {
      if (vdxg_cs_create(&batch->cs))
         return false;
      batch->capacity = MIN2(screen->max_command_size, 256 * 1024) / 4;
   } else {
      batch->capacity = VDXG_CMD_BUF_SIZE / 4;
   }
   return vdxg_batch_start(ctx);
}

/*
 * Drop the batch's references. POINT: the batch was submitted, and its
 * context's timeline reaches POINT when it completes, which the
 * suballocated buffers it names wait for before they are reused.
 */
static void
vdxg_batch_release(struct vdxg_context *ctx, uint64_t point)
{
   struct vdxg_batch *batch = &ctx->batch;

   set_foreach (batch->bufs, entry) {
      struct vdxg_buf *buf = (struct vdxg_buf *)entry->key;

      if (point && buf->suballocated)
         vdxg_suballoc_used(ctx->screen, buf, ctx->timeline, point);
      vdxg_buf_reference(&buf, NULL);
   }
   _mesa_set_clear(batch->bufs, NULL);
}

void
vdxg_batch_fini(struct vdxg_context *ctx)
{
   struct vdxg_batch *batch = &ctx->batch;

   if (batch->bufs) {
      vdxg_batch_release(ctx, 0);
      _mesa_set_destroy(batch->bufs, NULL);
   }
   vdxg_cs_free(batch->cs);
   list_for_each_entry_safe (struct vdxg_cmd_buf, cb, &ctx->cmd_bufs, link) {
      vdxg_buf_reference(&cb->buf, NULL);
      FREE(cb);
   }
}

static uint32_t
vdxg_batch_length(const struct vdxg_batch *batch, enum vdxg_submit_model m)
{
   return m == VDXG_SUBMIT_PATCH ? vdxg_cs_num_dwords(batch->cs)
                                 : vdxg_vcs_length(&batch->vcs) / 4;
}

bool
vdxg_batch_references(struct vdxg_context *ctx, struct vdxg_buf *buf)
{
   return _mesa_set_search(ctx->batch.bufs, buf) != NULL;
}

void
vdxg_batch_reserve(struct vdxg_context *ctx, uint32_t dwords, unsigned bufs)
{
   struct vdxg_batch *batch = &ctx->batch;
   uint32_t used = vdxg_batch_length(batch, ctx->screen->model);
   bool full = used + dwords > batch->capacity;
   uint32_t allocs;

   /* Objects, not buffers: suballocated ones share an entry. */
   if (ctx->screen->model == VDXG_SUBMIT_PATCH) {
      vdxg_cs_allocations(batch->cs, &allocs);
      full |= allocs + bufs > ctx->screen->max_allocations;
   }
   if (full && used)
      vdxg_flush(ctx, NULL, 0);
}

static void
vdxg_batch_use(struct vdxg_context *ctx, struct vdxg_buf *buf)
{
   bool found;

   _mesa_set_search_or_add(ctx->batch.bufs, buf, &found);
   if (!found)
      p_atomic_inc(&buf->reference.count);
}

/* A lost context: say so once, tell the frontend, then drop all work. */
static void
vdxg_context_lost(struct vdxg_context *ctx, int err)
{
   if (ctx->lost)
      return;
   ctx->lost = true;
   mesa_loge("vdxg: context lost (%s); further rendering is dropped",
             vdxg_strerror(err));
   if (ctx->reset_callback.reset)
      ctx->reset_callback.reset(ctx->reset_callback.data,
                                PIPE_GUILTY_CONTEXT_RESET);
}

/* Submit the batch; *POINT gets the timeline point it signals. */
static int
vdxg_batch_submit(struct vdxg_context *ctx, uint64_t *point)
{
   struct vdxg_screen *screen = ctx->screen;
   struct vdxg_batch *batch = &ctx->batch;
   struct drm_vdxg_sync in = vdxg_sync(ctx->in_syncobj, 0);
   struct drm_vdxg_sync out[] = {
      vdxg_sync(ctx->syncobj, 0),
      vdxg_sync(ctx->timeline->syncobj, ctx->timeline->submitted + 1),
   };
   struct vdxg_submit_opts opts = {
      .out_syncs = out,
      .num_out_syncs = ARRAY_SIZE(out),
   };
   int ret, fd;

   if (ctx->in_fence_fd >= 0) {
      ret = vdxg_syncobj_import_sync_file(screen->dev, ctx->in_syncobj, 0,
                                          ctx->in_fence_fd);
      close(ctx->in_fence_fd);
      ctx->in_fence_fd = -1;
      if (!ret) {
         opts.in_syncs = &in;
         opts.num_in_syncs = 1;
      }
   }

   if (vdxg_debug & VDXG_DEBUG_CMDS)
      mesa_logi("vdxg: %s batch: %u dwords, %u objects, %u draws; "
                "%d slabs",
                screen->model == VDXG_SUBMIT_PATCH ? "SUBMIT" : "EXEC",
                vdxg_batch_length(batch, screen->model),
                batch->bufs->entries, batch->num_draws,
                p_atomic_read(&screen->num_slabs));

   if (screen->model == VDXG_SUBMIT_PATCH)
      ret = vdxg_submit(screen->dev, ctx->ctx_id, batch->cs, &opts);
   else
      ret = vdxg_exec(screen->dev, ctx->ctx_id, &batch->vcs, &opts);
   if (ret)
      return ret;
   *point = ++ctx->timeline->submitted;
   if (screen->model == VDXG_SUBMIT_EXEC)
      batch->cmd->point = *point;

   if (!vdxg_syncobj_export_sync_file(screen->dev, ctx->syncobj, 0, &fd)) {
      if (ctx->last_fence_fd >= 0)
         close(ctx->last_fence_fd);
      ctx->last_fence_fd = fd;
   }
   if ((vdxg_debug & VDXG_DEBUG_SYNC) && ctx->last_fence_fd >= 0)
      sync_wait(ctx->last_fence_fd, -1);
   return 0;
}

void
vdxg_flush(struct vdxg_context *ctx, struct pipe_fence_handle **fence,
           unsigned flags)
{
   struct vdxg_batch *batch = &ctx->batch;
   uint64_t point = 0;
   int ret = 0;

   if (vdxg_batch_length(batch, ctx->screen->model) && !ctx->lost) {
      ret = ctx->screen->model == VDXG_SUBMIT_PATCH ?
            vdxg_cs_error(batch->cs) : vdxg_vcs_error(&batch->vcs);
      if (!ret)
         ret = vdxg_batch_submit(ctx, &point);
      if (ret == -EIO)
         vdxg_context_lost(ctx, ret);
      else if (ret)
         mesa_loge("vdxg: a batch was dropped: %s", vdxg_strerror(ret));
   }
   vdxg_batch_release(ctx, point);
   if (!vdxg_batch_start(ctx))
      vdxg_context_lost(ctx, -ENOMEM);

   if (fence) {
      int fd = ctx->last_fence_fd >= 0 ?
               os_dupfd_cloexec(ctx->last_fence_fd) : -1;

      ctx->base.screen->fence_reference(ctx->base.screen, fence, NULL);
      *fence = vdxg_fence_create(fd);
   }
}

/*
 * The emitters. Each one names its objects in the batch and, by model,
 * writes a virtual address or has the builder record a patch location.
 * A suballocated buffer's va and offset are its entry's: the builder
 * lists its slab's object once, however many entries name it.
 */
#define EXEC(ctx) ((ctx)->screen->model == VDXG_SUBMIT_EXEC)

void
vdxg_emit_set_surface(struct vdxg_context *ctx, uint32_t slot,
                      struct vdxg_buf *buf, uint64_t offset, bool write,
                      uint32_t format, uint32_t width, uint32_t height,
                      uint32_t pitch)
{
   struct vdxg_batch *batch = &ctx->batch;

   vdxg_batch_use(ctx, buf);
   if (EXEC(ctx)) {
      vdxg_vcs_set_surface(&batch->vcs, slot, buf->va + offset, format,
                           width, height, pitch);
   } else {
      if (slot == VDXG_SLOT_DST)
         vdxg_cs_split_point(batch->cs);
      vdxg_cs_set_surface(batch->cs, slot, buf->bo, buf->offset + offset,
                          write ? DRM_VDXG_ALLOC_WRITE : 0, format, width,
                          height, pitch);
   }
}

void
vdxg_emit_state(struct vdxg_context *ctx, uint32_t first,
                const uint32_t *values, uint32_t n)
{
   if (EXEC(ctx))
      vdxg_vcs_set_state(&ctx->batch.vcs, first, values, n);
   else
      vdxg_cs_set_state(ctx->batch.cs, first, values, n);
}

void
vdxg_emit_shader(struct vdxg_context *ctx, uint32_t stage,
                 struct vdxg_buf *buf, uint64_t offset, uint32_t size)
{
   vdxg_batch_use(ctx, buf);
   if (EXEC(ctx))
      vdxg_vcs_set_shader(&ctx->batch.vcs, stage, buf->va + offset, size);
   else
      vdxg_cs_set_shader(ctx->batch.cs, stage, buf->bo, buf->offset + offset,
                         size);
}

void
vdxg_emit_constants(struct vdxg_context *ctx, uint32_t stage,
                    struct vdxg_buf *buf, uint64_t offset, uint32_t count)
{
   if (!count) {
      if (EXEC(ctx))
         vdxg_vcs_set_constants(&ctx->batch.vcs, stage, 0, 0);
      else
         vdxg_cs_set_constants(ctx->batch.cs, stage, NULL, 0, 0);
      return;
   }
   vdxg_batch_use(ctx, buf);
   if (EXEC(ctx))
      vdxg_vcs_set_constants(&ctx->batch.vcs, stage, buf->va + offset,
                             count);
   else
      vdxg_cs_set_constants(ctx->batch.cs, stage, buf->bo,
                            buf->offset + offset, count);
}

void
vdxg_emit_vertex_buffer(struct vdxg_context *ctx, uint32_t index,
                        struct vdxg_buf *buf, uint64_t offset, uint32_t size,
                        uint32_t stride)
{
   if (!buf || !size) {
      if (EXEC(ctx))
         vdxg_vcs_set_vertex_buffer(&ctx->batch.vcs, index, 0, 0, stride);
      else
         vdxg_cs_set_vertex_buffer(ctx->batch.cs, index, NULL, 0, 0,
                                   stride);
      return;
   }
   vdxg_batch_use(ctx, buf);
   if (EXEC(ctx))
      vdxg_vcs_set_vertex_buffer(&ctx->batch.vcs, index, buf->va + offset,
                                 size, stride);
   else
      vdxg_cs_set_vertex_buffer(ctx->batch.cs, index, buf->bo,
                                buf->offset + offset, size, stride);
}

void
vdxg_emit_index_buffer(struct vdxg_context *ctx, struct vdxg_buf *buf,
                       uint64_t offset, uint32_t size, uint32_t index_size)
{
   vdxg_batch_use(ctx, buf);
   if (EXEC(ctx))
      vdxg_vcs_set_index_buffer(&ctx->batch.vcs, buf->va + offset, size,
                                index_size);
   else
      vdxg_cs_set_index_buffer(ctx->batch.cs, buf->bo, buf->offset + offset,
                               size, index_size);
}

void
vdxg_emit_texture(struct vdxg_context *ctx, uint32_t unit,
                  struct vdxg_buf *buf, uint64_t offset, uint32_t size,
                  uint32_t desc, uint32_t width, uint32_t height)
{
   if (!buf) {
      if (EXEC(ctx))
         vdxg_vcs_set_texture(&ctx->batch.vcs, unit, 0, 0, 0, 0, 0);
      else
         vdxg_cs_set_texture(ctx->batch.cs, unit, NULL, 0, 0, 0, 0, 0);
      return;
   }
   vdxg_batch_use(ctx, buf);
   if (EXEC(ctx))
      vdxg_vcs_set_texture(&ctx->batch.vcs, unit, buf->va + offset, size,
                           desc, width, height);
   else
      vdxg_cs_set_texture(ctx->batch.cs, unit, buf->bo, buf->offset + offset,
                          size, desc, width, height);
}

void
vdxg_emit_draw(struct vdxg_context *ctx, uint32_t prim, uint32_t first,
               uint32_t count)
{
   ctx->batch.num_draws++;
   if (EXEC(ctx))
      vdxg_vcs_draw(&ctx->batch.vcs, prim, first, count);
   else
      vdxg_cs_draw(ctx->batch.cs, prim, first, count);
}

void
vdxg_emit_draw_indexed(struct vdxg_context *ctx, uint32_t prim,
                       uint32_t first, uint32_t count, int32_t bias)
{
   ctx->batch.num_draws++;
   if (EXEC(ctx))
      vdxg_vcs_draw_indexed(&ctx->batch.vcs, prim, first, count, bias);
   else
      vdxg_cs_draw_indexed(ctx->batch.cs, prim, first, count, bias);
}

void
vdxg_emit_clear(struct vdxg_context *ctx, uint32_t flags, uint32_t x,
                uint32_t y, uint32_t w, uint32_t h, const float *rgba,
                float depth, uint32_t stencil)
{
   if (EXEC(ctx))
      vdxg_vcs_clear(&ctx->batch.vcs, flags, x, y, w, h, rgba, depth,
                     stencil);
   else
      vdxg_cs_clear(ctx->batch.cs, flags, x, y, w, h, rgba, depth, stencil);
}

void
vdxg_emit_copy_rect(struct vdxg_context *ctx, uint32_t sx, uint32_t sy,
                    uint32_t dx, uint32_t dy, uint32_t w, uint32_t h)
{
   if (EXEC(ctx))
      vdxg_vcs_copy_rect(&ctx->batch.vcs, sx, sy, dx, dy, w, h);
   else
      vdxg_cs_copy_rect(ctx->batch.cs, sx, sy, dx, dy, w, h);
}
