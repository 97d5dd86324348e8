/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The vdxg authors
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM vdxg

#if !defined(_VDXG_TRACE_H_) || defined(TRACE_HEADER_MULTI_READ)
#define _VDXG_TRACE_H_

#include <linux/tracepoint.h>
#include <linux/types.h>

/*
 * One event per paging operation, emitted when its paging buffer is
 * submitted: @seqno is the buffer's scheduler fence, @op the opcode, @len
 * its length in dwords, @bytes the bytes it covers and @addr its main
 * address (the destination, or the first aperture page).
 */
TRACE_EVENT(vdxg_paging_op,
	    TP_PROTO(u64 seqno, u32 op, u32 len, u64 bytes, u64 addr),
	    TP_ARGS(seqno, op, len, bytes, addr),

	    TP_STRUCT__entry(__field(u64, seqno)
			     __field(u32, op)
			     __field(u32, len)
			     __field(u64, bytes)
			     __field(u64, addr)),

	    TP_fast_assign(__entry->seqno = seqno;
			   __entry->op = op;
			   __entry->len = len;
			   __entry->bytes = bytes;
			   __entry->addr = addr;),

	    TP_printk("buffer=%llu op=%u dwords=%u bytes=%llu addr=0x%llx",
		      __entry->seqno, __entry->op, __entry->len,
		      __entry->bytes, __entry->addr)
);

#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE vdxg_trace
#include <trace/define_trace.h>
