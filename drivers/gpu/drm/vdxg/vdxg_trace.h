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
 * its length in dwords, @as the address space it names (-1 for none; a
 * VM's key for the operations built for a VM, whose address space is
 * chosen when the buffer is written to the device, see "Address spaces"),
 * @bytes the bytes it covers and @addr its main address. The same bytes
 * as debugfs ``paging`` counts, by operation:
 *
 * - TRANSFER, FILL, DISCARD: the size; the destination (a GPU address, or
 *   the offset into the destination's first page for a page list).
 * - MAP_APERTURE, UNMAP_APERTURE: 4 KiB per page; the first aperture page.
 * - FENCE: 0; the address written.
 * - UPDATE_PAGE_TABLE: 8 per entry written (count, in the list or
 *   GENERATE form); the VRAM address of the first entry written,
 *   table + 8 * first.
 * - COPY_PAGE_TABLE_ENTRIES: 8 per entry; the first destination entry's
 *   VRAM address.
 * - FLUSH_VM_TLB: @as; the range's size and start, 0 and 0 for the whole
 *   address space.
 * - TRANSFER_VIRTUAL: @as; the size; the destination (a virtual address
 *   of @as, or a GPU address with DST_PHYS).
 * - FILL_VIRTUAL: @as; the size; the virtual address.
 * - UPDATE_CONTEXT_ALLOCATION: @as; 16 (the AS entry); the entry's qword
 *   0: the root table's VRAM offset | VALID, or 0.
 * - INIT_CONTEXT_RESOURCE: 4096; the state area's VRAM offset.
 * - NOTIFY_RESIDENCY: @as; 0; the flags in bits 63:32 (bit 32 EVICTED)
 *   and the allocation count in bits 31:0.
 * - NOP, FLUSH_TLB, WRITE_PHYSICAL, READ_PHYSICAL and any operation
 *   shorter than its operands (which the kernel never builds): 0 and 0.
 */
TRACE_EVENT(vdxg_paging_op,
	    TP_PROTO(u64 seqno, u32 op, u32 len, int as, u64 bytes, u64 addr),
	    TP_ARGS(seqno, op, len, as, bytes, addr),

	    TP_STRUCT__entry(__field(u64, seqno)
			     __field(u32, op)
			     __field(u32, len)
			     __field(int, as)
			     __field(u64, bytes)
			     __field(u64, addr)),

	    TP_fast_assign(__entry->seqno = seqno;
			   __entry->op = op;
			   __entry->len = len;
			   __entry->as = as;
			   __entry->bytes = bytes;
			   __entry->addr = addr;),

	    TP_printk("buffer=%llu op=%u dwords=%u as=%d bytes=%llu addr=0x%llx",
		      __entry->seqno, __entry->op, __entry->len, __entry->as,
		      __entry->bytes, __entry->addr)
);

#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE vdxg_trace
#include <trace/define_trace.h>
