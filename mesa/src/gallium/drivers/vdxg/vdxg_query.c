/*
 * Copyright © 2026 The vdxg authors
 * SPDX-License-Identifier: MIT
 */

/*
 * Queries: the device counts no samples and keeps no time, so the only
 * query is GPU_FINISHED, a fence (caps->occlusion_query and the timer
 * caps stay false).
 */

#include "util/u_inlines.h"
#include "util/u_memory.h"

#include "vdxg_context.h"
#include "vdxg_fence.h"

struct vdxg_query {
   unsigned type;
   struct pipe_fence_handle *fence;
};

static struct pipe_query *
vdxg_create_query(struct pipe_context *pctx, unsigned type, unsigned index)
{
   struct vdxg_query *q;

   if (type != PIPE_QUERY_GPU_FINISHED)
      return NULL;
   q = CALLOC_STRUCT(vdxg_query);
   if (q)
      q->type = type;
   return (struct pipe_query *)q;
}

static void
vdxg_destroy_query(struct pipe_context *pctx, struct pipe_query *pq)
{
   struct vdxg_query *q = (struct vdxg_query *)pq;

   pctx->screen->fence_reference(pctx->screen, &q->fence, NULL);
   FREE(q);
}

static bool
vdxg_begin_query(struct pipe_context *pctx, struct pipe_query *pq)
{
   return true;
}

static bool
vdxg_end_query(struct pipe_context *pctx, struct pipe_query *pq)
{
   struct vdxg_query *q = (struct vdxg_query *)pq;

   vdxg_flush(vdxg_context(pctx), &q->fence, 0);
   return true;
}

static bool
vdxg_get_query_result(struct pipe_context *pctx, struct pipe_query *pq,
                      bool wait, union pipe_query_result *result)
{
   struct vdxg_query *q = (struct vdxg_query *)pq;

   result->b = !q->fence ||
               pctx->screen->fence_finish(pctx->screen, NULL, q->fence,
                                          wait ? OS_TIMEOUT_INFINITE : 0);
   return wait || result->b;
}

static void
vdxg_set_active_query_state(struct pipe_context *pctx, bool enable)
{
}

void
vdxg_query_init(struct pipe_context *pctx)
{
   pctx->create_query = vdxg_create_query;
   pctx->destroy_query = vdxg_destroy_query;
   pctx->begin_query = vdxg_begin_query;
   pctx->end_query = vdxg_end_query;
   pctx->get_query_result = vdxg_get_query_result;
   pctx->set_active_query_state = vdxg_set_active_query_state;
}
