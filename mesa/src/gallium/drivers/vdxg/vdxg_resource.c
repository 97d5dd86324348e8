/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

#include <errno.h>
#include <unistd.h>
#include <xf86drm.h>

#include "drm-uapi/drm_fourcc.h"
#include "frontend/winsys_handle.h"
#include "util/format/u_format.h"
#include "util/hash_table.h"
#include "util/u_inlines.h"
#include "util/u_memory.h"
#include "util/u_surface.h"
#include "util/u_transfer.h"

#include "vdxg_context.h"
#include "vdxg_format.h"
#include "vdxg_resource.h"
#include "vdxg_screen.h"

/*
 * Objects live in VRAM, falling back to the aperture; those the CPU maps
 * often (buffers) stay in the CPU-visible part of VRAM. In the EXEC model
 * each object is bound in the screen's VM when it is created and unbound
 * when it is freed (the kernel orders the unbind after the work that uses
 * it); one that is never shared is private to the VM, so that EXEC locks
 * it with the VM.
 */
static const uint32_t vdxg_segments[] = {
   DRM_VDXG_SEGMENT_VRAM,
   DRM_VDXG_SEGMENT_APERTURE,
};

static bool
vdxg_buf_bind(struct vdxg_buf *buf)
{
   struct vdxg_screen *screen = buf->screen;
   struct drm_vdxg_vm_bind_op op = {
      .op = DRM_VDXG_VM_BIND_OP_MAP,
      .handle = buf->bo->handle,
      .range = buf->bo->size,
   };

   simple_mtx_lock(&screen->vma_lock);
   buf->va = util_vma_heap_alloc(&screen->vma, buf->bo->size, 4096);
   simple_mtx_unlock(&screen->vma_lock);
   if (!buf->va)
      return false;
   op.va = buf->va;
   if (vdxg_vm_bind(screen->dev, screen->vm_id, &op, 1, NULL, 0, NULL, 0)) {
      simple_mtx_lock(&screen->vma_lock);
      util_vma_heap_free(&screen->vma, buf->va, buf->bo->size);
      simple_mtx_unlock(&screen->vma_lock);
      buf->va = 0;
      return false;
   }
   return true;
}

static struct vdxg_buf *
vdxg_buf_init(struct vdxg_screen *screen, struct vdxg_bo *bo)
{
   struct vdxg_buf *buf = CALLOC_STRUCT(vdxg_buf);

   if (!buf) {
      vdxg_bo_free(bo);
      return NULL;
   }
   pipe_reference_init(&buf->reference, 1);
   buf->screen = screen;
   buf->bo = bo;
   buf->size = bo->size;
   if (screen->model == VDXG_SUBMIT_EXEC && !vdxg_buf_bind(buf)) {
      vdxg_bo_free(bo);
      FREE(buf);
      return NULL;
   }
   simple_mtx_lock(&screen->handles_lock);
   _mesa_hash_table_insert(screen->handles, (void *)(uintptr_t)bo->handle,
                           buf);
   simple_mtx_unlock(&screen->handles_lock);
   return buf;
}

struct vdxg_buf *
vdxg_buf_create(struct vdxg_screen *screen, uint64_t size, bool cpu_access,
                bool shareable)
{
   uint32_t flags = cpu_access ? DRM_VDXG_GEM_CPU_ACCESS : 0;
   struct vdxg_bo *bo;
   int ret;

   if (screen->model == VDXG_SUBMIT_EXEC && !shareable)
      ret = vdxg_bo_create_vm(screen->dev, size, vdxg_segments,
                              ARRAY_SIZE(vdxg_segments), flags,
                              screen->vm_id, &bo);
   else
      ret = vdxg_bo_create(screen->dev, size, vdxg_segments,
                           ARRAY_SIZE(vdxg_segments), flags, &bo);
   if (ret)
      return NULL;
   return vdxg_buf_init(screen, bo);
}

/* The object of a dma-buf: the one this screen has for it, or a new one. */
struct vdxg_buf *
vdxg_buf_import(struct vdxg_screen *screen, int fd)
{
   struct hash_entry *entry;
   struct vdxg_buf *buf = NULL;
   struct vdxg_bo *bo;
   uint32_t handle;
   off_t size;

   simple_mtx_lock(&screen->handles_lock);
   if (drmPrimeFDToHandle(screen->fd, fd, &handle))
      goto out;
   entry = _mesa_hash_table_search(screen->handles,
                                   (void *)(uintptr_t)handle);
   if (entry) {
      buf = entry->data;
      p_atomic_inc(&buf->reference.count);
      goto out;
   }
   size = lseek(fd, 0, SEEK_END);
   if (size <= 0 || vdxg_bo_from_handle(screen->dev, handle, size, &bo)) {
      drmCloseBufferHandle(screen->fd, handle);
      goto out;
   }
   simple_mtx_unlock(&screen->handles_lock);
   buf = vdxg_buf_init(screen, bo);
   if (buf)
      buf->shared = true;
   return buf;
out:
   simple_mtx_unlock(&screen->handles_lock);
   return buf;
}

void
vdxg_buf_destroy(struct vdxg_buf *buf)
{
   struct vdxg_screen *screen = buf->screen;

   /* An entry goes back to its slab, reused once its uses are done. */
   if (buf->suballocated) {
      vdxg_suballoc_free(buf);
      return;
   }

   /* An import may have found it again meanwhile. */
   simple_mtx_lock(&screen->handles_lock);
   if (p_atomic_read(&buf->reference.count)) {
      simple_mtx_unlock(&screen->handles_lock);
      return;
   }
   _mesa_hash_table_remove_key(screen->handles,
                               (void *)(uintptr_t)buf->bo->handle);
   simple_mtx_unlock(&screen->handles_lock);

   if (buf->va) {
      vdxg_vm_unmap(screen->dev, screen->vm_id, buf->va, buf->bo->size);
      simple_mtx_lock(&screen->vma_lock);
      util_vma_heap_free(&screen->vma, buf->va, buf->bo->size);
      simple_mtx_unlock(&screen->vma_lock);
   }
   vdxg_bo_free(buf->bo);
   FREE(buf);
}

void *
vdxg_buf_map(struct vdxg_buf *buf)
{
   void *ptr;

   if (vdxg_bo_map(buf->bo, &ptr))
      return NULL;
   return (uint8_t *)ptr + buf->offset;
}

/*
 * A buffer others may read (scanout, GBM, dma-buf) is exported once, so
 * that from its first job on the kernel syncs its other users with the
 * jobs that write it (EXEC adds implicit-sync fences to shared objects
 * only); the dma-buf lives as long as the handle.
 */
static void
vdxg_buf_mark_shared(struct vdxg_buf *buf)
{
   int fd;

   if (buf->shared || buf->screen->model != VDXG_SUBMIT_EXEC)
      return;
   if (!vdxg_bo_export(buf->bo, &fd)) {
      close(fd);
      buf->shared = true;
   }
}

static bool
vdxg_resource_layout(struct vdxg_resource *rsc)
{
   struct pipe_resource *prsc = &rsc->base;
   uint32_t levels = prsc->last_level + 1;
   const struct vdxg_format *f;
   uint32_t desc;

   if (prsc->target == PIPE_BUFFER) {
      rsc->layout.size = prsc->width0;
      return true;
   }
   if (prsc->depth0 != 1 || prsc->array_size != (prsc->target ==
                                                   PIPE_TEXTURE_CUBE ? 6 : 1))
      return false;
   f = vdxg_format(prsc->format);
   if (!f)
      return false;
   rsc->hw_format = f->hw;
   /* Laid out as a texture, depth too: as the colour format sampling it. */
   desc = VDXG_TEX_DESC(f->tex_hw, levels, prsc->target == PIPE_TEXTURE_CUBE);
   return !vdxg_tex_layout(desc, prsc->width0, prsc->height0, &rsc->layout);
}

static bool
vdxg_resource_shareable(const struct pipe_resource *prsc)
{
   return prsc->bind & (PIPE_BIND_SHARED | PIPE_BIND_SCANOUT |
                        PIPE_BIND_DISPLAY_TARGET);
}

/*
 * A buffer's storage: an entry of a slab (vdxg_suballoc.c) when it is
 * small and no one else will use it, else an object of its own.
 */
static struct vdxg_buf *
vdxg_buffer_storage(struct vdxg_screen *screen,
                    const struct vdxg_resource *rsc)
{
   bool shareable = vdxg_resource_shareable(&rsc->base);
   struct vdxg_buf *buf;

   if (!shareable && rsc->base.usage != PIPE_USAGE_STAGING &&
       rsc->layout.size <= VDXG_SUBALLOC_MAX &&
       !(vdxg_debug & VDXG_DEBUG_NOSUBALLOC)) {
      buf = vdxg_suballoc(screen, rsc->layout.size);
      if (buf)
         return buf;
   }
   return vdxg_buf_create(screen, MAX2(rsc->layout.size, 4), true,
                          shareable);
}

static struct pipe_resource *
vdxg_resource_create(struct pipe_screen *pscreen,
                     const struct pipe_resource *templ)
{
   struct vdxg_screen *screen = vdxg_screen(pscreen);
   struct vdxg_resource *rsc = CALLOC_STRUCT(vdxg_resource);
   bool shareable = vdxg_resource_shareable(templ);

   if (!rsc)
      return NULL;
   rsc->base = *templ;
   rsc->base.screen = pscreen;
   pipe_reference_init(&rsc->base.reference, 1);
   util_range_init(&rsc->valid_buffer_range);

   if (!vdxg_resource_layout(rsc))
      goto fail;
   if (templ->target == PIPE_BUFFER)
      rsc->buf = vdxg_buffer_storage(screen, rsc);
   else
      rsc->buf = vdxg_buf_create(screen, MAX2(rsc->layout.size, 4),
                                 templ->usage == PIPE_USAGE_STAGING,
                                 shareable);
   if (!rsc->buf)
      goto fail;
   if (shareable)
      vdxg_buf_mark_shared(rsc->buf);
   return &rsc->base;

fail:
   util_range_destroy(&rsc->valid_buffer_range);
   FREE(rsc);
   return NULL;
}

static struct pipe_resource *
vdxg_resource_create_with_modifiers(struct pipe_screen *pscreen,
                                    const struct pipe_resource *templ,
                                    const uint64_t *modifiers, int count)
{
   for (int i = 0; i < count; i++) {
      if (modifiers[i] == DRM_FORMAT_MOD_LINEAR ||
          modifiers[i] == DRM_FORMAT_MOD_INVALID)
         return vdxg_resource_create(pscreen, templ);
   }
   return NULL;
}

static void
vdxg_query_dmabuf_modifiers(struct pipe_screen *pscreen,
                            enum pipe_format format, int max,
                            uint64_t *modifiers, unsigned int *external_only,
                            int *count)
{
   *count = 1;
   if (max >= 1) {
      modifiers[0] = DRM_FORMAT_MOD_LINEAR;
      if (external_only)
         external_only[0] = false;
   }
}

static bool
vdxg_is_dmabuf_modifier_supported(struct pipe_screen *pscreen,
                                  uint64_t modifier, enum pipe_format format,
                                  bool *external_only)
{
   if (external_only)
      *external_only = false;
   return modifier == DRM_FORMAT_MOD_LINEAR;
}

static void
vdxg_resource_destroy(struct pipe_screen *pscreen, struct pipe_resource *prsc)
{
   struct vdxg_resource *rsc = vdxg_resource(prsc);

   vdxg_buf_reference(&rsc->buf, NULL);
   util_range_destroy(&rsc->valid_buffer_range);
   FREE(rsc);
}

static struct pipe_resource *
vdxg_resource_from_handle(struct pipe_screen *pscreen,
                          const struct pipe_resource *templ,
                          struct winsys_handle *whandle, unsigned usage)
{
   struct vdxg_screen *screen = vdxg_screen(pscreen);
   struct vdxg_resource *rsc;
   uint32_t cpp = util_format_get_blocksize(templ->format);

   if (templ->target == PIPE_BUFFER || templ->last_level ||
       (whandle->modifier != DRM_FORMAT_MOD_LINEAR &&
        whandle->modifier != DRM_FORMAT_MOD_INVALID))
      return NULL;
   if (whandle->type != WINSYS_HANDLE_TYPE_FD)
      return NULL;
   rsc = CALLOC_STRUCT(vdxg_resource);
   if (!rsc)
      return NULL;
   rsc->base = *templ;
   rsc->base.screen = pscreen;
   pipe_reference_init(&rsc->base.reference, 1);
   util_range_init(&rsc->valid_buffer_range);
   if (!vdxg_resource_layout(rsc) || whandle->stride % 4 ||
       whandle->stride < templ->width0 * cpp || whandle->offset % cpp)
      goto fail;
   /* SET_TEXTURE wants its own pitch; SET_SURFACE takes any. */
   rsc->foreign_pitch = whandle->stride != rsc->layout.level[0].pitch;
   rsc->layout.level[0].pitch = whandle->stride;
   rsc->layout.level[0].image_size =
      (uint64_t)whandle->stride * templ->height0;
   rsc->offset = whandle->offset;
   rsc->buf = vdxg_buf_import(screen, whandle->handle);
   if (!rsc->buf)
      goto fail;
   if (rsc->buf->size < rsc->offset + rsc->layout.level[0].image_size) {
      vdxg_buf_reference(&rsc->buf, NULL);
      goto fail;
   }
   return &rsc->base;

fail:
   util_range_destroy(&rsc->valid_buffer_range);
   FREE(rsc);
   return NULL;
}

static bool
vdxg_resource_get_handle(struct pipe_screen *pscreen,
                         struct pipe_context *pctx, struct pipe_resource *prsc,
                         struct winsys_handle *whandle, unsigned usage)
{
   struct vdxg_resource *rsc = vdxg_resource(prsc);
   int fd;

   /* An entry shares its object with other buffers: no handle. */
   if (rsc->buf->suballocated)
      return false;
   whandle->stride = vdxg_resource_pitch(rsc, 0);
   whandle->offset = rsc->offset;
   whandle->modifier = DRM_FORMAT_MOD_LINEAR;

   switch (whandle->type) {
   case WINSYS_HANDLE_TYPE_KMS:
      whandle->handle = rsc->buf->bo->handle;
      return true;
   case WINSYS_HANDLE_TYPE_FD:
      if (vdxg_bo_export(rsc->buf->bo, &fd))
         return false;
      rsc->buf->shared = true;
      whandle->handle = fd;
      return true;
   default:
      return false;
   }
}

static bool
vdxg_resource_get_param(struct pipe_screen *pscreen, struct pipe_context *pctx,
                        struct pipe_resource *prsc, unsigned plane,
                        unsigned layer, unsigned level,
                        enum pipe_resource_param param, unsigned usage,
                        uint64_t *value)
{
   struct vdxg_resource *rsc = vdxg_resource(prsc);
   struct winsys_handle whandle = {0};

   switch (param) {
   case PIPE_RESOURCE_PARAM_NPLANES:
      *value = 1;
      return true;
   case PIPE_RESOURCE_PARAM_STRIDE:
      *value = vdxg_resource_pitch(rsc, level);
      return true;
   case PIPE_RESOURCE_PARAM_OFFSET:
      *value = vdxg_resource_image_offset(rsc, level, layer);
      return true;
   case PIPE_RESOURCE_PARAM_MODIFIER:
      *value = DRM_FORMAT_MOD_LINEAR;
      return true;
   case PIPE_RESOURCE_PARAM_HANDLE_TYPE_KMS:
      if (rsc->buf->suballocated)
         return false;
      *value = rsc->buf->bo->handle;
      return true;
   case PIPE_RESOURCE_PARAM_HANDLE_TYPE_FD:
      whandle.type = WINSYS_HANDLE_TYPE_FD;
      if (!vdxg_resource_get_handle(pscreen, pctx, prsc, &whandle, usage))
         return false;
      *value = whandle.handle;
      return true;
   default:
      return false;
   }
}

/* May the GPU still use the buffer's storage (or will it, at a flush)? */
static bool
vdxg_buffer_busy(struct vdxg_context *ctx, struct vdxg_resource *rsc)
{
   return vdxg_batch_references(ctx, rsc->buf) || !vdxg_buf_idle(rsc->buf, 0);
}

/*
 * A buffer discarded whole while the GPU may still use it gets new
 * storage (an entry or an object, as at creation); the old one stays
 * with the work that uses it, and an entry is reused only after that.
 * False (the buffer unchanged) if there is none.
 */
static bool
vdxg_buffer_renew(struct vdxg_context *ctx, struct vdxg_resource *rsc)
{
   struct vdxg_buf *buf = vdxg_buffer_storage(ctx->screen, rsc);

   if (!buf)
      return false;
   vdxg_buf_reference(&rsc->buf, NULL);
   rsc->buf = buf;
   util_range_set_empty(&rsc->valid_buffer_range);
   /* Every binding of the old storage must be emitted again. */
   ctx->dirty |= VDXG_DIRTY_ALL;
   return true;
}

/*
 * Transfers map the object itself (a texture in VRAM past the BAR goes
 * through a staging copy instead: see below). A map
 * that must not see the GPU's pending writes (or overwrite what it still
 * reads) first submits the batch that names the object, then waits for
 * it, unless the caller said it need not (UNSYNCHRONIZED), or a buffer is
 * discarded whole (it gets new storage) or the range was never written.
 * A suballocated buffer waits for the batches that named its entry, not
 * for its slab's object (vdxg_buf_idle).
 */
static bool
vdxg_resource_sync(struct vdxg_context *ctx, struct vdxg_resource *rsc,
                   unsigned usage, const struct pipe_box *box)
{
   if (usage & PIPE_MAP_UNSYNCHRONIZED)
      return true;

   if (rsc->base.target == PIPE_BUFFER && !(usage & PIPE_MAP_READ) &&
       !util_ranges_intersect(&rsc->valid_buffer_range, box->x,
                              box->x + box->width))
      return true;

   if ((usage & PIPE_MAP_DISCARD_WHOLE_RESOURCE) &&
       rsc->base.target == PIPE_BUFFER && !rsc->buf->shared &&
       vdxg_buffer_busy(ctx, rsc) && vdxg_buffer_renew(ctx, rsc))
      return true;

   if (vdxg_batch_references(ctx, rsc->buf))
      vdxg_flush(ctx, NULL, 0);
   return vdxg_buf_idle(rsc->buf, INT64_MAX);
}

/*
 * Is the texture where the CPU cannot map it without the kernel moving it
 * (VRAM past the BAR)? Then a transfer goes through a staging copy.
 */
static bool
vdxg_resource_needs_staging(struct vdxg_context *ctx,
                            struct vdxg_resource *rsc, unsigned usage)
{
   const struct vdxg_format *f = vdxg_format(rsc->base.format);
   uint32_t segment;
   uint64_t addr;

   if (rsc->base.target == PIPE_BUFFER || !f || !f->render ||
       rsc->base.usage == PIPE_USAGE_STAGING ||
       (usage & (PIPE_MAP_UNSYNCHRONIZED | PIPE_MAP_DIRECTLY)))
      return false;
   if (vdxg_debug & VDXG_DEBUG_STAGING)
      return true;
   if (vdxg_bo_info(rsc->buf->bo, &segment, &addr))
      return false;
   return segment == DRM_VDXG_SEGMENT_VRAM &&
          addr + rsc->buf->size > ctx->screen->vram_visible_size;
}

/*
 * A staging map: a CPU-visible texture of the box's size, filled from the
 * texture by COPY_RECT for a read, and copied into it at unmap for a
 * write.
 */
static void *
vdxg_transfer_map_staging(struct vdxg_context *ctx, struct vdxg_resource *rsc,
                          unsigned level, unsigned usage,
                          const struct pipe_box *box,
                          struct vdxg_transfer *trans)
{
   struct pipe_resource templ = {
      .target = PIPE_TEXTURE_2D,
      .format = rsc->base.format,
      .width0 = box->width,
      .height0 = box->height,
      .depth0 = 1,
      .array_size = 1,
      .usage = PIPE_USAGE_STAGING,
   };
   struct vdxg_resource *staging;
   uint8_t *ptr;

   if (box->depth != 1)
      return NULL;
   trans->staging = ctx->base.screen->resource_create(ctx->base.screen,
                                                      &templ);
   if (!trans->staging)
      return NULL;
   staging = vdxg_resource(trans->staging);
   if (usage & PIPE_MAP_READ) {
      vdxg_copy_rect(ctx, trans->staging, templ.format, 0, 0, 0, 0,
                     &rsc->base, rsc->base.format, level, box);
      vdxg_flush(ctx, NULL, 0);
   }
   if (!vdxg_buf_idle(staging->buf, INT64_MAX))
      return NULL;
   ptr = vdxg_buf_map(staging->buf);
   if (!ptr)
      return NULL;
   trans->base.stride = vdxg_resource_pitch(staging, 0);
   trans->base.layer_stride = staging->layout.level[0].image_size;
   return ptr;
}

static void *
vdxg_transfer_map(struct pipe_context *pctx, struct pipe_resource *prsc,
                  unsigned level, unsigned usage, const struct pipe_box *box,
                  struct pipe_transfer **out)
{
   struct vdxg_context *ctx = vdxg_context(pctx);
   struct vdxg_resource *rsc = vdxg_resource(prsc);
   struct vdxg_transfer *trans;
   uint8_t *ptr;
   uint32_t cpp = util_format_get_blocksize(prsc->format);

   trans = slab_zalloc(&ctx->transfer_pool);
   if (!trans)
      return NULL;
   pipe_resource_reference(&trans->base.resource, prsc);
   trans->base.level = level;
   trans->base.usage = usage;
   trans->base.box = *box;

   if (vdxg_resource_needs_staging(ctx, rsc, usage)) {
      ptr = vdxg_transfer_map_staging(ctx, rsc, level, usage, box, trans);
      if (!ptr)
         goto fail;
      *out = &trans->base;
      return ptr;
   }

   if (!vdxg_resource_sync(ctx, rsc, usage, box))
      goto fail;
   ptr = vdxg_buf_map(rsc->buf);
   if (!ptr)
      goto fail;

   if (prsc->target == PIPE_BUFFER) {
      if (usage & PIPE_MAP_WRITE)
         util_range_add(prsc, &rsc->valid_buffer_range, box->x,
                        box->x + box->width);
      *out = &trans->base;
      return ptr + box->x;
   }

   trans->base.stride = vdxg_resource_pitch(rsc, level);
   trans->base.layer_stride = rsc->layout.level[level].image_size;
   *out = &trans->base;
   return ptr + vdxg_resource_image_offset(rsc, level, box->z) +
          (uint64_t)box->y * trans->base.stride + (uint64_t)box->x * cpp;

fail:
   pipe_resource_reference(&trans->staging, NULL);
   pipe_resource_reference(&trans->base.resource, NULL);
   slab_free(&ctx->transfer_pool, trans);
   return NULL;
}

static void
vdxg_transfer_unmap(struct pipe_context *pctx, struct pipe_transfer *ptrans)
{
   struct vdxg_context *ctx = vdxg_context(pctx);
   struct vdxg_transfer *trans = (struct vdxg_transfer *)ptrans;
   struct pipe_resource *prsc = ptrans->resource;

   if (trans->staging && (ptrans->usage & PIPE_MAP_WRITE)) {
      struct pipe_box src = {
         .width = ptrans->box.width,
         .height = ptrans->box.height,
         .depth = 1,
      };

      vdxg_copy_rect(ctx, prsc, prsc->format, ptrans->level, ptrans->box.x,
                     ptrans->box.y, ptrans->box.z, trans->staging,
                     prsc->format, 0, &src);
   }
   pipe_resource_reference(&trans->staging, NULL);
   pipe_resource_reference(&trans->base.resource, NULL);
   slab_free(&ctx->transfer_pool, trans);
}

static void
vdxg_transfer_flush_region(struct pipe_context *pctx,
                           struct pipe_transfer *ptrans,
                           const struct pipe_box *box)
{
}

/*
 * A buffer's contents are discarded: new storage if the GPU may still use
 * the old, so that writes after this need not wait for it.
 */
static void
vdxg_invalidate_resource(struct pipe_context *pctx, struct pipe_resource *prsc)
{
   struct vdxg_context *ctx = vdxg_context(pctx);
   struct vdxg_resource *rsc = vdxg_resource(prsc);

   if (prsc->target != PIPE_BUFFER || rsc->buf->shared)
      return;
   if (!vdxg_buffer_busy(ctx, rsc))
      util_range_set_empty(&rsc->valid_buffer_range);
   else
      vdxg_buffer_renew(ctx, rsc);
}

static void
vdxg_flush_resource(struct pipe_context *pctx, struct pipe_resource *prsc)
{
}

static struct pipe_surface *
vdxg_create_surface(struct pipe_context *pctx, struct pipe_resource *prsc,
                    const struct pipe_surface *templ)
{
   struct pipe_surface *psurf = CALLOC_STRUCT(pipe_surface);
   unsigned level = templ->u.tex.level;

   if (!psurf)
      return NULL;
   pipe_reference_init(&psurf->reference, 1);
   pipe_resource_reference(&psurf->texture, prsc);
   psurf->context = pctx;
   psurf->format = templ->format;
   psurf->width = u_minify(prsc->width0, level);
   psurf->height = u_minify(prsc->height0, level);
   psurf->u.tex.level = level;
   psurf->u.tex.first_layer = templ->u.tex.first_layer;
   psurf->u.tex.last_layer = templ->u.tex.last_layer;
   return psurf;
}

static void
vdxg_surface_destroy(struct pipe_context *pctx, struct pipe_surface *psurf)
{
   pipe_resource_reference(&psurf->texture, NULL);
   FREE(psurf);
}

void
vdxg_resource_screen_init(struct pipe_screen *pscreen)
{
   pscreen->resource_create = vdxg_resource_create;
   pscreen->resource_create_with_modifiers =
      vdxg_resource_create_with_modifiers;
   pscreen->query_dmabuf_modifiers = vdxg_query_dmabuf_modifiers;
   pscreen->is_dmabuf_modifier_supported = vdxg_is_dmabuf_modifier_supported;
   pscreen->resource_destroy = vdxg_resource_destroy;
   pscreen->resource_from_handle = vdxg_resource_from_handle;
   pscreen->resource_get_handle = vdxg_resource_get_handle;
   pscreen->resource_get_param = vdxg_resource_get_param;
}

void
vdxg_resource_context_init(struct pipe_context *pctx)
{
   pctx->buffer_map = vdxg_transfer_map;
   pctx->texture_map = vdxg_transfer_map;
   pctx->transfer_flush_region = vdxg_transfer_flush_region;
   pctx->buffer_unmap = vdxg_transfer_unmap;
   pctx->texture_unmap = vdxg_transfer_unmap;
   pctx->buffer_subdata = u_default_buffer_subdata;
   pctx->texture_subdata = u_default_texture_subdata;
   pctx->invalidate_resource = vdxg_invalidate_resource;
   pctx->flush_resource = vdxg_flush_resource;
   pctx->create_surface = vdxg_create_surface;
   pctx->surface_destroy = vdxg_surface_destroy;
}
