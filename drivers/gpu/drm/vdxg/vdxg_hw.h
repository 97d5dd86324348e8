/* SPDX-License-Identifier: MIT */
/*
 * vdxg hardware contract.
 *
 * This header is shared verbatim by the QEMU device model
 * (hw/display/vdxg/) and the Linux driver (drivers/gpu/drm/vdxg). It holds
 * only macros so that it builds in both worlds. docs/hardware.md explains
 * every item; the two must stay one truth.
 *
 * All registers are 32 bits wide, little endian, and must be accessed with
 * naturally aligned 32-bit loads and stores. 64-bit quantities are split in
 * a _LO register at the lower address and a _HI register 4 bytes above.
 */
#ifndef VDXG_HW_H
#define VDXG_HW_H

/* BIT() and BIT_ULL() come from <linux/bits.h> or QEMU's qemu/bitops.h. */
#ifdef __KERNEL__
#include <linux/bits.h>
#endif

/* ------------------------------------------------------------------------
 * PCI identity
 */
#define VDXG_PCI_VENDOR_ID		0x1234
#define VDXG_PCI_DEVICE_ID		0xd3d0	/* physical function */
#define VDXG_PCI_VF_DEVICE_ID		0xd3d1	/* SR-IOV virtual function */
#define VDXG_PCI_REVISION		0x01
/* Class code: PCI_CLASS_DISPLAY_OTHER (0x0380). */

#define VDXG_BAR_MMIO			0	/* registers, 32-bit, 64 KiB */
#define VDXG_BAR_VRAM			2	/* VRAM, 64-bit prefetchable */
#define VDXG_BAR_MSIX			4	/* MSI-X table and PBA */

#define VDXG_MMIO_SIZE			0x10000
#define VDXG_VRAM_SIZE_DEFAULT		(256ull << 20)
#define VDXG_VRAM_SIZE_MIN		(16ull << 20)
#define VDXG_VRAM_SIZE_MAX		(4ull << 30)
/* SR-IOV defaults: the PF's total_vfs, vf_vram_size and vf_aperture_size */
#define VDXG_SRIOV_TOTAL_VFS_DEFAULT	4
#define VDXG_VF_VRAM_SIZE_DEFAULT	(32ull << 20)
#define VDXG_VF_APERTURE_SIZE_DEFAULT	(64ull << 20)

/* MSI-X vectors and the interrupt sources routed to each. */
#define VDXG_MSIX_VECTORS		4
#define VDXG_MSIX_VEC_MISC		0	/* self-test, fault, hotplug */
#define VDXG_MSIX_VEC_RENDER		1
#define VDXG_MSIX_VEC_PAGING		2
#define VDXG_MSIX_VEC_DISPLAY		3	/* vblank, flip, writeback */

/* ------------------------------------------------------------------------
 * Global block (0x0000)
 */
#define VDXG_REG_ID			0x0000	/* RO: VDXG_ID_MAGIC */
#define   VDXG_ID_MAGIC			0x56445847	/* "VDXG" */
#define VDXG_REG_VERSION		0x0004	/* RO: major << 16 | minor */
#define   VDXG_VERSION_MAJOR		1
#define   VDXG_VERSION_MINOR		0
#define   VDXG_VERSION			((VDXG_VERSION_MAJOR << 16) | \
					 VDXG_VERSION_MINOR)
#define VDXG_REG_CAPS			0x0008	/* RO: VDXG_CAP_* of units present */
#define   VDXG_CAP_MSIX			BIT(0)
#define   VDXG_CAP_SELFTEST		BIT(1)
#define   VDXG_CAP_RENDER		BIT(2)
#define   VDXG_CAP_PAGING		BIT(3)
#define   VDXG_CAP_GART			BIT(4)
#define   VDXG_CAP_DISPLAY		BIT(5)
#define   VDXG_CAP_CRC			BIT(6)
#define   VDXG_CAP_WRITEBACK		BIT(7)
#define   VDXG_CAP_SRIOV		BIT(8)
#define   VDXG_CAP_RESIZABLE_BAR	BIT(9)
#define   VDXG_CAP_GPU_MMU		BIT(10)	/* GPU virtual memory (0x2200) */
#define   VDXG_CAP_3D			BIT(11)	/* the 3D pipeline (RENDER) */
#define VDXG_REG_VRAM_SIZE_LO		0x0010	/* RO: VRAM bytes */
#define VDXG_REG_VRAM_SIZE_HI		0x0014
#define VDXG_REG_APERTURE_BASE_LO	0x0018	/* RO: GPU address of aperture */
#define VDXG_REG_APERTURE_BASE_HI	0x001c
#define VDXG_REG_APERTURE_SIZE_LO	0x0020	/* RO: aperture bytes */
#define VDXG_REG_APERTURE_SIZE_HI	0x0024
#define VDXG_REG_ENGINES		0x0028	/* RO: 1 << VDXG_ENGINE_* present */
#define VDXG_REG_NUM_CRTCS		0x002c	/* RO: display pipes (0 on a VF) */
#define VDXG_REG_RESET			0x0030	/* WO: VDXG_RESET_MAGIC resets */
#define   VDXG_RESET_MAGIC		0x52534554	/* "RSET" */
#define VDXG_REG_STATUS			0x0034	/* RO */
#define   VDXG_STATUS_READY		BIT(0)
#define VDXG_REG_SCRATCH		0x0038	/* RW: no side effect */
#define VDXG_REG_RESET_COUNT		0x003c	/* RO: soft resets since power-on */
#define VDXG_REG_FUNCTION		0x0040	/* RO: 0 PF, 1 + index on a VF */

/* ------------------------------------------------------------------------
 * Interrupt block (0x0100)
 *
 * A source sets its bit in INT_STATUS. An interrupt is signalled when a bit
 * becomes set in INT_STATUS & INT_MASK: on the source's MSI-X vector, on
 * the single MSI vector, or by asserting INTx while (INT_STATUS & INT_MASK)
 * is non-zero. Writing 1s to INT_ACK clears those bits.
 */
#define VDXG_REG_INT_STATUS		0x0100	/* RO */
#define VDXG_REG_INT_MASK		0x0104	/* RW: 1 = enabled */
#define VDXG_REG_INT_ACK		0x0108	/* W1C */
#define VDXG_REG_INT_TRIGGER		0x010c	/* WO: only SELFTEST is honoured */
#define   VDXG_INT_SELFTEST		BIT(0)
#define   VDXG_INT_FAULT		BIT(1)
#define   VDXG_INT_HOTPLUG		BIT(2)
#define   VDXG_INT_RENDER_FENCE		BIT(4)
#define   VDXG_INT_PAGING_FENCE		BIT(5)
#define   VDXG_INT_VBLANK(crtc)		BIT(8 + (crtc))	/* crtc 0..3 */
#define   VDXG_INT_FLIP_DONE(crtc)	BIT(12 + (crtc))
#define   VDXG_INT_WRITEBACK		BIT(16)
#define   VDXG_INT_ASYNC_DONE(crtc)	BIT(20 + (crtc))	/* ASYNC_FLIP */
#define   VDXG_INT_MISC_MASK		(VDXG_INT_SELFTEST | VDXG_INT_FAULT | \
					 VDXG_INT_HOTPLUG)
#define   VDXG_INT_DISPLAY_MASK		(0xff00u | VDXG_INT_WRITEBACK | \
					 0xf00000u)
#define   VDXG_INT_VALID_MASK		(VDXG_INT_MISC_MASK | \
					 VDXG_INT_RENDER_FENCE | \
					 VDXG_INT_PAGING_FENCE | \
					 VDXG_INT_DISPLAY_MASK)

/* ------------------------------------------------------------------------
 * Engines (0x1000 + engine * 0x100)
 *
 * Each engine is fed by a ring of VDXG_RING_ENTRY_SIZE-byte entries in GPU
 * memory (VRAM or aperture). HEAD and TAIL are byte offsets into the ring;
 * the ring is empty when HEAD == TAIL. Software writes entries, advances
 * TAIL and writes DOORBELL. The engine executes entries in order, and after
 * each one writes its 64-bit seqno to FENCE_ADDR (when non-zero), updates
 * FENCE_VALUE and HEAD, and raises the engine's fence interrupt.
 *
 * Execution is asynchronous to the register writes. The ring programming
 * (base, size, TAIL, FENCE_ADDR) is checked when ENABLE is written 1, when
 * DOORBELL is written while enabled, and before each entry is fetched; a
 * bad value faults with VDXG_FAULT_RING. Clearing ENABLE pauses the engine
 * (an entry in progress resumes when ENABLE is set again). A fault halts
 * the engine until RESET, which returns the engine's registers to 0.
 *
 * PROGRESS tells a slow entry from a stuck one: it is zeroed when the
 * engine fetches an entry and counts the work done on it since, one for
 * each command completed and one for each slice of a long command (a
 * transfer, fill or draw the engine splits to stay responsive). A WAIT
 * whose value has not arrived adds nothing and sets STATUS_WAITING.
 */
#define VDXG_ENGINE_RENDER		0
#define VDXG_ENGINE_PAGING		1
#define VDXG_NUM_ENGINES		2
#define VDXG_ENGINE_BASE(e)		(0x1000 + (e) * 0x100)
#define VDXG_ENG_RING_BASE_LO		0x00	/* RW: GPU address, 4 KiB aligned */
#define VDXG_ENG_RING_BASE_HI		0x04
#define VDXG_ENG_RING_SIZE		0x08	/* RW: bytes, power of 2 */
#define   VDXG_RING_SIZE_MIN		0x1000
#define   VDXG_RING_SIZE_MAX		0x100000
#define VDXG_ENG_RING_HEAD		0x0c	/* RO: next entry the engine reads */
#define VDXG_ENG_RING_TAIL		0x10	/* RW: end of valid entries */
#define VDXG_ENG_DOORBELL		0x14	/* WO: any value kicks the engine */
#define VDXG_ENG_CTRL			0x18	/* RW */
#define   VDXG_ENG_CTRL_ENABLE		BIT(0)
#define VDXG_ENG_STATUS			0x1c	/* RO */
#define   VDXG_ENG_STATUS_IDLE		BIT(0)	/* HEAD == TAIL, none running */
#define   VDXG_ENG_STATUS_HALTED	BIT(1)	/* stopped on a fault */
#define   VDXG_ENG_STATUS_WAITING	BIT(2)	/* stalled in an unmet WAIT */
#define VDXG_ENG_FENCE_ADDR_LO		0x20	/* RW: GPU address, 8 B aligned */
#define VDXG_ENG_FENCE_ADDR_HI		0x24
#define VDXG_ENG_FENCE_VALUE_LO		0x28	/* RO: last completed seqno */
#define VDXG_ENG_FENCE_VALUE_HI		0x2c
#define VDXG_ENG_RESET			0x30	/* WO: bit 0 resets this engine */
#define VDXG_ENG_PROGRESS		0x34	/* RO: work done on the entry */

/*
 * Ring entry: eight dwords. EXEC_VIRTUAL (RENDER only, with
 * VDXG_CAP_GPU_MMU) runs a DMA buffer by GPU virtual address: the buffer
 * and every address in its commands are virtual addresses of address
 * space VDXG_RING_CMD_AS(dw0). Its dword 7 is the context's state area
 * (VDXG_CTX_STATE_*) as a VRAM page number, 0 for none. NOP and EXEC
 * have bits 31:8 of dword 0 and all of dword 7 zero.
 */
#define VDXG_RING_ENTRY_SIZE		32
#define VDXG_RING_DW_CMD		0	/* VDXG_RING_CMD_* */
#define   VDXG_RING_CMD_NOP		0
#define   VDXG_RING_CMD_EXEC		1	/* run a DMA/paging buffer */
#define   VDXG_RING_CMD_EXEC_VIRTUAL	2	/* RENDER: by virtual address */
#define   VDXG_RING_CMD_OP(dw)		((dw) & 0xff)
#define   VDXG_RING_CMD_AS_SHIFT	8	/* EXEC_VIRTUAL: bits 15:8 */
#define   VDXG_RING_CMD_AS(dw)		(((dw) >> 8) & 0xff)
#define   VDXG_RING_CMD_VIRTUAL(as)	(VDXG_RING_CMD_EXEC_VIRTUAL | \
					 ((as) << VDXG_RING_CMD_AS_SHIFT))
#define VDXG_RING_DW_LENGTH		1	/* buffer bytes, multiple of 4 */
#define   VDXG_RING_LENGTH_MAX		0x100000	/* EXEC buffer bytes */
#define VDXG_RING_DW_ADDR_LO		2	/* buffer GPU (virtual) address */
#define VDXG_RING_DW_ADDR_HI		3
#define VDXG_RING_DW_SEQNO_LO		4	/* written back on completion */
#define VDXG_RING_DW_SEQNO_HI		5
#define VDXG_RING_DW_CONTEXT		6	/* reported in faults */
#define VDXG_RING_DW_RSVD		7	/* must be zero, but: */
#define VDXG_RING_DW_STATE		7	/* EXEC_VIRTUAL: VRAM page, 0 none */

/* ------------------------------------------------------------------------
 * Paging buffers (PAGING engine command set)
 *
 * A paging buffer is a packed sequence of operations. Each starts with a
 * header dword: opcode in bits 7:0, zero in bits 15:8, and the operation's
 * total length in dwords (header included) in bits 31:16. GPU addresses are
 * VRAM or aperture addresses; "pages" are system bus page addresses (the
 * MDL case), 64 bits each, low dword first, 4 KiB aligned. The _LEN macros
 * give each operation's length in dwords; any other length faults.
 */
#define VDXG_PG_HDR(op, len)		((op) | ((len) << 16))
#define VDXG_PG_HDR_OP(hdr)		((hdr) & 0xff)
#define VDXG_PG_HDR_LEN(hdr)		((hdr) >> 16)
#define VDXG_PG_MAX_LEN			0xffff	/* dwords */

#define VDXG_PG_NOP			0x00	/* len 1 */
#define VDXG_PG_FENCE			0x01	/* addr(2), value(2); len 5 */
#define VDXG_PG_TRANSFER		0x02	/* see below */
#define   VDXG_PG_XFER_LEN(ns, nd)	(9 + 2 * ((ns) + (nd)))
#define   VDXG_PG_XFER_SRC_PAGES	BIT(0)	/* source is a page list */
#define   VDXG_PG_XFER_DST_PAGES	BIT(1)	/* destination is a page list */
#define   VDXG_PG_XFER_DW_FLAGS		1
#define   VDXG_PG_XFER_DW_SIZE		2	/* bytes */
#define   VDXG_PG_XFER_DW_SRC		3	/* GPU addr or offset in page 0 */
#define   VDXG_PG_XFER_DW_DST		5
#define   VDXG_PG_XFER_DW_SRC_NPAGES	7
#define   VDXG_PG_XFER_DW_DST_NPAGES	8
#define   VDXG_PG_XFER_DW_PAGES		9	/* src pages, then dst pages */
#define VDXG_PG_FILL			0x03	/* pattern, size, addr(2); len 5 */
#define VDXG_PG_DISCARD			0x04	/* size, addr(2); len 4 */
#define VDXG_PG_MAP_APERTURE		0x05	/* first, count, pages; len 3+2n */
#define VDXG_PG_UNMAP_APERTURE		0x06	/* first, count; len 3 */
#define VDXG_PG_FLUSH_TLB		0x07	/* len 1 */
#define VDXG_PG_WRITE_PHYSICAL		0x08	/* bus addr(2), data; len 3+n */
#define VDXG_PG_READ_PHYSICAL		0x09	/* bus addr(2), size, addr(2); len 6 */
/* GPU virtual memory (VDXG_CAP_GPU_MMU), WDDM 2.0's paging operations */
#define VDXG_PG_UPDATE_PAGE_TABLE	0x0a	/* see below */
#define   VDXG_PG_UPT_GENERATE		BIT(0)	/* base + i * stride */
#define   VDXG_PG_UPT_DW_FLAGS		1
#define   VDXG_PG_UPT_DW_TABLE		2	/* VRAM offset(2), page aligned */
#define   VDXG_PG_UPT_DW_FIRST		4	/* first index, < 512 */
#define   VDXG_PG_UPT_DW_COUNT		5	/* first + count <= 512 */
#define   VDXG_PG_UPT_DW_ENTRIES	6	/* count entries(2), or: */
#define   VDXG_PG_UPT_DW_BASE		6	/* GENERATE: entry 0(2) */
#define   VDXG_PG_UPT_DW_STRIDE		8	/* GENERATE: address step(2) */
#define   VDXG_PG_UPT_LEN(n)		(6 + 2 * (n))
#define   VDXG_PG_UPT_GEN_LEN		10
#define VDXG_PG_COPY_PTES		0x0b	/* src(2), src idx, dst(2), dst idx, count; len 8 */
#define VDXG_PG_FLUSH_VM_TLB		0x0c	/* as, flags, va(2), size(2); len 7 */
#define   VDXG_PG_FLUSH_RANGE		BIT(0)	/* only [va, va + size) */
#define VDXG_PG_TRANSFER_VIRTUAL	0x0d	/* as, flags, size, src(2), dst(2); len 8 */
#define   VDXG_PG_XV_SRC_PHYS		BIT(0)	/* source is a GPU address */
#define   VDXG_PG_XV_DST_PHYS		BIT(1)	/* destination is one */
#define VDXG_PG_FILL_VIRTUAL		0x0e	/* as, pattern, size, va(2); len 6 */
#define VDXG_PG_UPDATE_CONTEXT_ALLOC	0x0f	/* as, AS entry qword 0(2); len 4 */
#define VDXG_PG_INIT_CONTEXT_RESOURCE	0x10	/* state area VRAM offset(2); len 3 */
#define VDXG_PG_NOTIFY_RESIDENCY	0x11	/* as, flags, count; len 4 */
#define   VDXG_PG_RES_EVICTED		BIT(0)	/* else made resident */
#define VDXG_PG_NUM_OPS			0x12
#define   VDXG_PG_COPY_PTES_LEN		8
#define   VDXG_PG_FLUSH_VM_TLB_LEN	7
#define   VDXG_PG_XV_LEN		8
#define   VDXG_PG_FILL_V_LEN		6
#define   VDXG_PG_UCA_LEN		4
#define   VDXG_PG_ICR_LEN		3
#define   VDXG_PG_NOTIFY_RES_LEN	4
#define   VDXG_PG_NOP_LEN		1
#define   VDXG_PG_FENCE_LEN		5
#define   VDXG_PG_FILL_LEN		5
#define   VDXG_PG_DISCARD_LEN		4
#define   VDXG_PG_MAP_LEN(n)		(3 + 2 * (n))
#define   VDXG_PG_UNMAP_LEN		3
#define   VDXG_PG_FLUSH_TLB_LEN		1
#define   VDXG_PG_WRITE_PHYS_LEN(n)	(3 + (n))
#define   VDXG_PG_READ_PHYS_LEN		6

/* ------------------------------------------------------------------------
 * DMA buffers (RENDER engine command set)
 *
 * A DMA buffer is a packed sequence of commands with the paging buffer's
 * header layout: opcode in bits 7:0, zero in bits 15:8, total length in
 * dwords (header included) in bits 31:16; each opcode has exactly one
 * length (the _LEN macros). Every memory operand is a 64-bit GPU address
 * field, low dword first. Operand bits marked reserved must be zero.
 * docs/hardware.md ("Render engine") defines each command, the pixel
 * formats and the rasterizer's arithmetic exactly.
 *
 * The engine holds four surface slots, cleared at the start of each ring
 * entry. A command that uses an unset slot, reads or writes outside a
 * surface or past VRAM/aperture, or carries a bad operand faults; the
 * engine then stops (VDXG_ENG_STATUS_HALTED) with the ring entry's
 * context in the fault record.
 */
#define VDXG_RD_NOP			0x00	/* len 1 */
#define VDXG_RD_FENCE			0x01	/* addr(2), value(2) */
#define VDXG_RD_WAIT			0x02	/* addr(2), value(2) */
#define VDXG_RD_SET_SURFACE		0x03	/* see VDXG_RD_SURF_DW_* */
#define VDXG_RD_FILL_RECT		0x04	/* see VDXG_RD_FILL_DW_* */
#define VDXG_RD_COPY_RECT		0x05	/* see VDXG_RD_COPY_DW_* */
#define VDXG_RD_BLEND			0x06	/* COPY_RECT + alpha dword */
#define VDXG_RD_DRAW_TRIANGLES		0x07	/* see VDXG_RD_DRAW_DW_* */
#define VDXG_RD_NUM_OPS			0x08
#define   VDXG_RD_NOP_LEN		1
#define   VDXG_RD_FENCE_LEN		5
#define   VDXG_RD_WAIT_LEN		5
#define   VDXG_RD_SET_SURFACE_LEN	8
#define   VDXG_RD_FILL_RECT_LEN		4
#define   VDXG_RD_COPY_RECT_LEN		4
#define   VDXG_RD_BLEND_LEN		5
#define   VDXG_RD_DRAW_TRIANGLES_LEN	5
/* Each command's length in dwords, by opcode: an array initializer */
#define VDXG_RD_LENGTHS { \
	[VDXG_RD_NOP] = VDXG_RD_NOP_LEN, \
	[VDXG_RD_FENCE] = VDXG_RD_FENCE_LEN, \
	[VDXG_RD_WAIT] = VDXG_RD_WAIT_LEN, \
	[VDXG_RD_SET_SURFACE] = VDXG_RD_SET_SURFACE_LEN, \
	[VDXG_RD_FILL_RECT] = VDXG_RD_FILL_RECT_LEN, \
	[VDXG_RD_COPY_RECT] = VDXG_RD_COPY_RECT_LEN, \
	[VDXG_RD_BLEND] = VDXG_RD_BLEND_LEN, \
	[VDXG_RD_DRAW_TRIANGLES] = VDXG_RD_DRAW_TRIANGLES_LEN, \
}

/* FENCE writes a 64-bit value; WAIT stalls until the value at addr >= it. */
#define VDXG_RD_MEM_DW_ADDR		1	/* 8-byte aligned */
#define VDXG_RD_MEM_DW_VALUE		3

/* SET_SURFACE binds a surface to a slot. */
#define VDXG_RD_SURF_DW_SLOT		1	/* VDXG_SLOT_*; bits 31:2 rsvd */
#define VDXG_RD_SURF_DW_ADDR		2	/* aligned to the pixel size */
#define VDXG_RD_SURF_DW_FORMAT		4	/* VDXG_FMT_* */
#define VDXG_RD_SURF_DW_WIDTH		5	/* 1..VDXG_SURF_MAX_DIM */
#define VDXG_RD_SURF_DW_HEIGHT		6	/* 1..VDXG_SURF_MAX_DIM */
#define VDXG_RD_SURF_DW_PITCH		7	/* see below */
#define   VDXG_SLOT_DST			0	/* written by FILL/COPY/BLEND/DRAW */
#define   VDXG_SLOT_SRC			1	/* read by COPY_RECT and BLEND */
#define   VDXG_SLOT_DEPTH		2	/* VDXG_FMT_D32 only */
#define   VDXG_SLOT_TEXTURE		3	/* sampled by DRAW_TRIANGLES */
#define   VDXG_NUM_SLOTS		4
#define   VDXG_SURF_MAX_DIM		8192
#define   VDXG_SURF_MAX_PITCH		0x10000	/* bytes */
/*
 * A surface spans pitch * (height - 1) + width * cpp bytes from its address.
 * The pitch is a multiple of 4, at least width * cpp, at most
 * VDXG_SURF_MAX_PITCH.
 */
#define VDXG_FMT_XRGB8888		1	/* cpp 4; reads alpha as 0xff */
#define VDXG_FMT_ARGB8888		2	/* cpp 4 */
#define VDXG_FMT_RGB565			3	/* cpp 2; reads alpha as 0xff */
#define VDXG_FMT_D32			4	/* cpp 4; unsigned depth */
#define VDXG_NUM_FMTS			5

/* Rectangles pack two 16-bit fields: y (or h) in 31:16, x (or w) in 15:0. */
#define VDXG_RD_XY(x, y)		(((y) << 16) | (x))
#define VDXG_RD_X(v)			((v) & 0xffff)
#define VDXG_RD_Y(v)			((v) >> 16)

/* FILL_RECT: fill a DST rectangle with a colour. */
#define VDXG_RD_FILL_DW_XY		1
#define VDXG_RD_FILL_DW_WH		2
#define VDXG_RD_FILL_DW_COLOR		3	/* ARGB8888 */

/* COPY_RECT and BLEND: SRC rectangle to DST position. */
#define VDXG_RD_COPY_DW_SRC_XY		1
#define VDXG_RD_COPY_DW_DST_XY		2
#define VDXG_RD_COPY_DW_WH		3
#define VDXG_RD_BLEND_DW_ALPHA		4	/* 0..255; bits 31:8 rsvd */

/* DRAW_TRIANGLES: a list of independent triangles into DST. */
#define VDXG_RD_DRAW_DW_FLAGS		1	/* VDXG_DRAW_*; others rsvd */
#define VDXG_RD_DRAW_DW_COUNT		2	/* vertices: 3..MAX, a multiple of 3 */
#define VDXG_RD_DRAW_DW_VB		3	/* vertex buffer, 4-byte aligned */
#define   VDXG_DRAW_TEXTURE		BIT(0)	/* modulate by TEXTURE */
#define   VDXG_DRAW_BILINEAR		BIT(1)	/* else nearest */
#define   VDXG_DRAW_DEPTH_TEST		BIT(2)	/* z < DEPTH passes */
#define   VDXG_DRAW_DEPTH_WRITE		BIT(3)	/* passing z is stored */
#define   VDXG_DRAW_FLAGS_MASK		0xf
#define   VDXG_DRAW_MAX_VERTICES	(3 * 65536)
/* A vertex is eight dwords. */
#define VDXG_VERTEX_SIZE		32
#define VDXG_VTX_DW_X			0	/* s32, 1/16 pixel (28.4) */
#define VDXG_VTX_DW_Y			1
#define VDXG_VTX_DW_Z			2	/* u32 depth */
#define VDXG_VTX_DW_COLOR		3	/* ARGB8888 */
#define VDXG_VTX_DW_U			4	/* s32, texels in 16.16 */
#define VDXG_VTX_DW_V			5
/* Dwords 6 and 7 are ignored. |X| and |Y| must not exceed: */
#define VDXG_VTX_COORD_MAX		0x100000	/* 2^20: w * 65536 fits 64 bits */

/* ------------------------------------------------------------------------
 * The 3D pipeline (RENDER engine, VDXG_CAP_3D)
 *
 * Commands 0x08 to 0x11 of a DMA buffer drive a programmable GLES 2.0
 * class pipeline: a 64-register state file, bindings of programs,
 * constants, vertex, index and texture buffers, and draws into the DST
 * and DEPTH slots. docs/hardware.md ("The 3D pipeline") defines the
 * commands, the shader ISA, the rasterizer and every arithmetic step
 * exactly. Without the cap the opcodes fault with VDXG_FAULT_OPCODE.
 */

#define VDXG_RD_SET_STATE		0x08	/* first reg, n values */
#define VDXG_RD_LOAD_STATE		0x09	/* addr(2), first reg, count */
#define VDXG_RD_SET_SHADER		0x0a	/* stage, addr(2), size */
#define VDXG_RD_SET_CONSTANTS		0x0b	/* stage, addr(2), vec4 count */
#define VDXG_RD_SET_VERTEX_BUFFER	0x0c	/* index, addr(2), size, stride */
#define VDXG_RD_SET_INDEX_BUFFER	0x0d	/* addr(2), size, index size */
#define VDXG_RD_SET_TEXTURE		0x0e	/* unit, addr(2), size, fmt, wh */
#define VDXG_RD_DRAW			0x0f	/* prim, first, count */
#define VDXG_RD_DRAW_INDEXED		0x10	/* prim, first, count, bias */
#define VDXG_RD_CLEAR			0x11	/* flags, xy, wh, rgba, z, s */
#define VDXG_RD_NUM_OPS_3D		0x12
#define   VDXG_RD_SET_STATE_LEN(n)	(2 + (n))	/* n = 1..64 */
#define   VDXG_RD_LOAD_STATE_LEN	5
#define   VDXG_RD_SET_SHADER_LEN	5
#define   VDXG_RD_SET_CONSTANTS_LEN	5
#define   VDXG_RD_SET_VERTEX_BUFFER_LEN	6
#define   VDXG_RD_SET_INDEX_BUFFER_LEN	5
#define   VDXG_RD_SET_TEXTURE_LEN	7
#define   VDXG_RD_DRAW_LEN		4
#define   VDXG_RD_DRAW_INDEXED_LEN	5
#define   VDXG_RD_CLEAR_LEN		10

/* SET_STATE: registers [first, first + n) take the values that follow. */
#define VDXG_RD_STATE_DW_FIRST		1
#define VDXG_RD_STATE_DW_VALUES		2
/* LOAD_STATE: count dwords of memory into registers [first, first + count) */
#define VDXG_RD_LOAD_DW_ADDR		1	/* 4-byte aligned */
#define VDXG_RD_LOAD_DW_FIRST		3
#define VDXG_RD_LOAD_DW_COUNT		4	/* 1..VDXG_3D_NUM_REGS */
/* SET_SHADER and SET_CONSTANTS */
#define VDXG_RD_SHADER_DW_STAGE		1	/* VDXG_3D_STAGE_* */
#define VDXG_RD_SHADER_DW_ADDR		2	/* 4-byte aligned */
#define VDXG_RD_SHADER_DW_SIZE		4	/* bytes, 16..PROGRAM_MAX_BYTES */
#define VDXG_RD_CONST_DW_STAGE		1
#define VDXG_RD_CONST_DW_ADDR		2	/* 4-byte aligned */
#define VDXG_RD_CONST_DW_COUNT		4	/* vec4, 0..VDXG_3D_NUM_CONSTS */
#define   VDXG_3D_STAGE_VERTEX		0
#define   VDXG_3D_STAGE_FRAGMENT	1
#define   VDXG_3D_NUM_STAGES		2
/* SET_VERTEX_BUFFER */
#define VDXG_RD_VB_DW_INDEX		1	/* 0..VDXG_3D_NUM_VBS - 1 */
#define VDXG_RD_VB_DW_ADDR		2
#define VDXG_RD_VB_DW_SIZE		4	/* bytes; 0 unbinds */
#define VDXG_RD_VB_DW_STRIDE		5	/* 0..VDXG_3D_MAX_STRIDE */
/* SET_INDEX_BUFFER */
#define VDXG_RD_IB_DW_ADDR		1
#define VDXG_RD_IB_DW_SIZE		3	/* bytes */
#define VDXG_RD_IB_DW_INDEX_SIZE	4	/* 1, 2 or 4; 0 unbinds */
/* SET_TEXTURE */
#define VDXG_RD_TEX_DW_UNIT		1	/* 0..VDXG_3D_NUM_UNITS - 1 */
#define VDXG_RD_TEX_DW_ADDR		2	/* 4-byte aligned */
#define VDXG_RD_TEX_DW_SIZE		4	/* bytes, the layout must fit */
#define VDXG_RD_TEX_DW_FORMAT		5	/* VDXG_TEX_* fields; 0 unbinds */
#define VDXG_RD_TEX_DW_WH		6	/* width | height << 16 */
#define   VDXG_TEX_FORMAT(v)		((v) & 0xff)	/* VDXG_FMT_* */
#define   VDXG_TEX_LEVELS(v)		(((v) >> 8) & 0xf)	/* 1..14 */
#define   VDXG_TEX_CUBE			BIT(12)
#define   VDXG_TEX_DESC(fmt, levels, cube) \
	((fmt) | ((levels) << 8) | ((cube) ? VDXG_TEX_CUBE : 0))
#define   VDXG_TEX_MAX_LEVELS		14
#define   VDXG_TEX_MAX_DIM		8192
#define   VDXG_TEX_FACES_CUBE		6
/* DRAW and DRAW_INDEXED */
#define VDXG_RD_DRAW3D_DW_PRIM		1	/* VDXG_PRIM_*; bits 31:4 rsvd */
#define VDXG_RD_DRAW3D_DW_FIRST		2	/* vertex, or index in the IB */
#define VDXG_RD_DRAW3D_DW_COUNT		3	/* 0..VDXG_3D_MAX_COUNT */
#define VDXG_RD_DRAW3D_DW_BIAS		4	/* DRAW_INDEXED: s32 */
#define   VDXG_PRIM_POINTS		0
#define   VDXG_PRIM_LINES		1
#define   VDXG_PRIM_LINE_LOOP		2
#define   VDXG_PRIM_LINE_STRIP		3
#define   VDXG_PRIM_TRIANGLES		4
#define   VDXG_PRIM_TRIANGLE_STRIP	5
#define   VDXG_PRIM_TRIANGLE_FAN	6
#define   VDXG_NUM_PRIMS		7
#define   VDXG_3D_MAX_COUNT		BIT(24)
/* CLEAR */
#define VDXG_RD_CLEAR_DW_FLAGS		1	/* VDXG_CLEAR_* */
#define VDXG_RD_CLEAR_DW_XY		2	/* VDXG_RD_XY() */
#define VDXG_RD_CLEAR_DW_WH		3
#define VDXG_RD_CLEAR_DW_COLOR		4	/* r, g, b, a: f32 */
#define VDXG_RD_CLEAR_DW_DEPTH		8	/* f32 */
#define VDXG_RD_CLEAR_DW_STENCIL	9	/* bits 7:0 */
#define   VDXG_CLEAR_COLOR		BIT(0)
#define   VDXG_CLEAR_DEPTH		BIT(1)
#define   VDXG_CLEAR_STENCIL		BIT(2)
#define   VDXG_CLEAR_MASK		0x7

/* Limits */
#define VDXG_3D_NUM_REGS		64
#define VDXG_3D_NUM_VBS			16
#define VDXG_3D_NUM_ELEMENTS		16
#define VDXG_3D_NUM_UNITS		8
#define VDXG_3D_NUM_CONSTS		256	/* vec4 a stage */
#define VDXG_3D_MAX_STRIDE		2048
#define VDXG_3D_GUARD_BAND		4.0f	/* clip x, y to +/- G w */
#define VDXG_3D_VIEWPORT_MAX		16384.0f
#define VDXG_3D_POINT_SIZE_MAX		64.0f

/* The state registers (SET_STATE, LOAD_STATE); see docs/hardware.md */
#define VDXG_3D_RASTER			0x00
#define   VDXG_RASTER_CULL_FRONT	BIT(0)
#define   VDXG_RASTER_CULL_BACK		BIT(1)
#define   VDXG_RASTER_FRONT_CW		BIT(2)
#define   VDXG_RASTER_SCISSOR		BIT(3)
#define   VDXG_RASTER_POLY_OFFSET	BIT(4)
#define   VDXG_RASTER_SPRITE_LOWER_LEFT	BIT(5)
#define   VDXG_RASTER_MASK		0x3f
#define VDXG_3D_POINT_SIZE		0x01	/* f32 */
#define VDXG_3D_POLY_OFFSET_FACTOR	0x02	/* f32 */
#define VDXG_3D_POLY_OFFSET_UNITS	0x03	/* f32 */
#define VDXG_3D_VIEWPORT_SCALE(i)	(0x04 + (i))	/* f32 x, y, z */
#define VDXG_3D_VIEWPORT_TRANSLATE(i)	(0x07 + (i))	/* f32 x, y, z */
#define VDXG_3D_SCISSOR_MIN		0x0a	/* VDXG_RD_XY(x, y) */
#define VDXG_3D_SCISSOR_MAX		0x0b	/* exclusive */
#define VDXG_3D_DEPTH			0x0c
#define   VDXG_DEPTH_TEST		BIT(0)
#define   VDXG_DEPTH_WRITE		BIT(1)
#define   VDXG_DEPTH_FUNC(f)		((f) << 2)	/* VDXG_FUNC_* */
#define   VDXG_DEPTH_MASK		0x1f
#define VDXG_3D_STENCIL_FRONT		0x0d
#define VDXG_3D_STENCIL_BACK		0x0e	/* bit 0: TWO_SIDED */
#define   VDXG_STENCIL_TEST		BIT(0)	/* in STENCIL_BACK: TWO_SIDED */
#define   VDXG_STENCIL_FUNC(f)		((f) << 1)
#define   VDXG_STENCIL_FAIL_OP(o)	((o) << 4)	/* VDXG_SOP_* */
#define   VDXG_STENCIL_ZFAIL_OP(o)	((o) << 7)
#define   VDXG_STENCIL_ZPASS_OP(o)	((o) << 10)
#define   VDXG_STENCIL_VALUE_MASK(m)	((m) << 16)
#define   VDXG_STENCIL_WRITE_MASK(m)	((uint32_t)(m) << 24)
#define   VDXG_STENCIL_RSVD		0x0000e000
#define VDXG_3D_STENCIL_REF		0x0f	/* front 7:0, back 15:8 */
#define VDXG_3D_BLEND			0x10
#define   VDXG_BLEND_ENABLE		BIT(0)
#define   VDXG_BLEND_RGB_EQ(e)		((e) << 1)	/* VDXG_BLEQ_* */
#define   VDXG_BLEND_RGB_SRC(f)		((f) << 4)	/* VDXG_BLF_* */
#define   VDXG_BLEND_RGB_DST(f)		((f) << 8)
#define   VDXG_BLEND_A_EQ(e)		((e) << 12)
#define   VDXG_BLEND_A_SRC(f)		((f) << 16)
#define   VDXG_BLEND_A_DST(f)		((f) << 20)
#define   VDXG_BLEND_WRITE_DISABLE(m)	((m) << 24)	/* R 1, G 2, B 4, A 8 */
#define   VDXG_BLEND_RSVD		0xf0008000
#define VDXG_3D_BLEND_COLOR(i)		(0x11 + (i))	/* f32 r, g, b, a */
#define VDXG_3D_ELEMENT(e)		(0x20 + (e))
#define   VDXG_ELEMENT(fmt, vb, offset)	((fmt) | ((vb) << 8) | \
					 ((uint32_t)(offset) << 16))
#define   VDXG_ELEMENT_FORMAT(v)	((v) & 0x3f)
#define   VDXG_ELEMENT_VB(v)		(((v) >> 8) & 0xf)
#define   VDXG_ELEMENT_OFFSET(v)	((v) >> 16)
#define   VDXG_ELEMENT_RSVD		0x0000f0c0
#define   VDXG_VFMT(type, comps)	((type) | (((comps) - 1) << 4))
#define   VDXG_VFMT_TYPE(f)		((f) & 0xf)
#define   VDXG_VFMT_COMPS(f)		(((f) >> 4) + 1)
#define   VDXG_VTYPE_NONE		0
#define   VDXG_VTYPE_FLOAT32		1
#define   VDXG_VTYPE_UNORM8		2
#define   VDXG_VTYPE_SNORM8		3
#define   VDXG_VTYPE_UINT8		4
#define   VDXG_VTYPE_SINT8		5
#define   VDXG_VTYPE_UNORM16		6
#define   VDXG_VTYPE_SNORM16		7
#define   VDXG_VTYPE_UINT16		8
#define   VDXG_VTYPE_SINT16		9
#define   VDXG_NUM_VTYPES		10
#define VDXG_3D_SAMPLER(u)		(0x30 + (u))
#define   VDXG_SAMPLER_MAG_LINEAR	BIT(0)
#define   VDXG_SAMPLER_MIN_LINEAR	BIT(1)
#define   VDXG_SAMPLER_MIP(m)		((m) << 2)	/* VDXG_MIP_* */
#define   VDXG_SAMPLER_WRAP_S(w)	((w) << 4)	/* VDXG_WRAP_* */
#define   VDXG_SAMPLER_WRAP_T(w)	((w) << 7)
#define   VDXG_SAMPLER_MASK		0x3ff
#define   VDXG_MIP_NONE			0
#define   VDXG_MIP_NEAREST		1
#define   VDXG_MIP_LINEAR		2
#define   VDXG_WRAP_REPEAT		0
#define   VDXG_WRAP_CLAMP		1
#define   VDXG_WRAP_MIRROR		2
/* Comparison functions, stencil operations, blend equations and factors */
#define VDXG_FUNC_NEVER			0
#define VDXG_FUNC_LESS			1
#define VDXG_FUNC_EQUAL			2
#define VDXG_FUNC_LEQUAL		3
#define VDXG_FUNC_GREATER		4
#define VDXG_FUNC_NOTEQUAL		5
#define VDXG_FUNC_GEQUAL		6
#define VDXG_FUNC_ALWAYS		7
#define VDXG_SOP_KEEP			0
#define VDXG_SOP_ZERO			1
#define VDXG_SOP_REPLACE		2
#define VDXG_SOP_INCR			3	/* clamps at 255 */
#define VDXG_SOP_DECR			4	/* clamps at 0 */
#define VDXG_SOP_INCR_WRAP		5
#define VDXG_SOP_DECR_WRAP		6
#define VDXG_SOP_INVERT			7
#define VDXG_BLEQ_ADD			0
#define VDXG_BLEQ_SUBTRACT		1
#define VDXG_BLEQ_REVERSE_SUBTRACT	2
#define VDXG_BLEQ_MIN			3
#define VDXG_BLEQ_MAX			4
#define VDXG_NUM_BLEQS			5
#define VDXG_BLF_ZERO			0
#define VDXG_BLF_ONE			1
#define VDXG_BLF_SRC_COLOR		2
#define VDXG_BLF_ONE_MINUS_SRC_COLOR	3
#define VDXG_BLF_DST_COLOR		4
#define VDXG_BLF_ONE_MINUS_DST_COLOR	5
#define VDXG_BLF_SRC_ALPHA		6
#define VDXG_BLF_ONE_MINUS_SRC_ALPHA	7
#define VDXG_BLF_DST_ALPHA		8
#define VDXG_BLF_ONE_MINUS_DST_ALPHA	9
#define VDXG_BLF_CONST_COLOR		10
#define VDXG_BLF_ONE_MINUS_CONST_COLOR	11
#define VDXG_BLF_CONST_ALPHA		12
#define VDXG_BLF_ONE_MINUS_CONST_ALPHA	13
#define VDXG_BLF_SRC_ALPHA_SATURATE	14
#define VDXG_NUM_BLFS			15

/*
 * New surface and texture formats (VDXG_FMT_*, after VDXG_FMT_D32). Colour
 * targets and SET_SURFACE: XRGB8888, ARGB8888, RGB565, ABGR8888, RGBA4444,
 * RGBA5551. Textures only: L8, A8, L8A8, RGB888. DEPTH: D16, D24S8 (and
 * D32 for DRAW_TRIANGLES). VDXG_NUM_FMTS counts the 2D engine's formats
 * until the 3D pipeline's users switch to VDXG_NUM_FMTS_3D.
 */
#define VDXG_FMT_ABGR8888		5	/* cpp 4; R 7:0 ... A 31:24 */
#define VDXG_FMT_RGBA4444		6	/* cpp 2; A 3:0 ... R 15:12 */
#define VDXG_FMT_RGBA5551		7	/* cpp 2; A 0, B 5:1 ... R 15:11 */
#define VDXG_FMT_L8			8	/* cpp 1; texture only */
#define VDXG_FMT_A8			9	/* cpp 1; texture only */
#define VDXG_FMT_L8A8			10	/* cpp 2; texture only */
#define VDXG_FMT_RGB888			11	/* cpp 3; R, G, B bytes */
#define VDXG_FMT_D16			12	/* cpp 2; DEPTH only */
#define VDXG_FMT_D24S8			13	/* cpp 4; depth 23:0, S 31:24 */
#define VDXG_NUM_FMTS_3D		14

/*
 * Programs (SET_SHADER): a header of four dwords, n instructions of four
 * dwords, then m immediates of four binary32 each.
 */
#define VDXG_3D_PROGRAM_MAGIC		0x50485356	/* "VSHP" */
#define VDXG_PROG_DW_MAGIC		0
#define VDXG_PROG_DW_STAGE		1	/* VDXG_3D_STAGE_* */
#define VDXG_PROG_DW_NUM_INSNS		2	/* 1..VDXG_3D_MAX_INSTRUCTIONS */
#define VDXG_PROG_DW_NUM_IMMS		3	/* 0..VDXG_3D_MAX_IMMEDIATES */
#define VDXG_PROG_HEADER_SIZE		16
#define VDXG_3D_INSN_SIZE		16
#define VDXG_3D_MAX_INSTRUCTIONS	4096
#define VDXG_3D_MAX_IMMEDIATES		256
#define VDXG_3D_PROGRAM_MAX_BYTES	(VDXG_PROG_HEADER_SIZE + \
					 VDXG_3D_INSN_SIZE * \
					 (VDXG_3D_MAX_INSTRUCTIONS + \
					  VDXG_3D_MAX_IMMEDIATES))
#define VDXG_3D_MAX_STEPS		16384	/* visits an invocation */
#define VDXG_3D_MAX_NESTING		32
#define VDXG_3D_NUM_TEMPS		128
#define VDXG_3D_VS_INPUTS		16
#define VDXG_3D_VS_OUTPUTS		10
#define VDXG_3D_FS_INPUTS		11
#define VDXG_3D_FS_OUTPUTS		1
#define VDXG_3D_NUM_VARYINGS		8
#define   VDXG_VS_OUT_POSITION		0
#define   VDXG_VS_OUT_POINT_SIZE	1
#define   VDXG_VS_OUT_VARYING(i)	(2 + (i))
#define   VDXG_FS_IN_VARYING(i)		(i)
#define   VDXG_FS_IN_POSITION		8
#define   VDXG_FS_IN_FACE		9
#define   VDXG_FS_IN_POINT_COORD	10
#define   VDXG_FS_OUT_COLOR		0
/* Register files */
#define VDXG_FILE_TEMP			0
#define VDXG_FILE_INPUT			1
#define VDXG_FILE_OUTPUT		2
#define VDXG_FILE_CONST			3
#define VDXG_FILE_IMM			4
#define VDXG_FILE_ADDR			5
/* Instruction dword 0 */
#define VDXG_INSN_OPCODE(v)		((v) & 0xff)
#define VDXG_INSN_DST_FILE(v)		(((v) >> 8) & 0x7)
#define VDXG_INSN_SAT			BIT(11)
#define VDXG_INSN_MASK(v)		(((v) >> 12) & 0xf)	/* x bit 0 */
#define VDXG_INSN_DST_INDEX(v)		(((v) >> 16) & 0xff)
#define VDXG_INSN_UNIT(v)		(((v) >> 24) & 0x7)
#define VDXG_INSN_CUBE			BIT(27)
#define VDXG_INSN_RSVD			0xf0000000u
#define VDXG_INSN(op, file, index, mask) \
	((op) | ((file) << 8) | ((mask) << 12) | ((index) << 16))
#define VDXG_INSN_TEX(unit, cube)	(((unit) << 24) | \
					 ((cube) ? VDXG_INSN_CUBE : 0))
/* Instruction dwords 1-3: sources */
#define VDXG_SRC_FILE(v)		((v) & 0x7)
#define VDXG_SRC_INDEX(v)		(((v) >> 3) & 0xff)
#define VDXG_SRC_SWIZZLE(v)		(((v) >> 11) & 0xff)
#define VDXG_SRC_ABS			BIT(19)
#define VDXG_SRC_NEGATE			BIT(20)
#define VDXG_SRC_RELATIVE		BIT(21)
#define VDXG_SRC_RSVD			0xffc00000u
#define VDXG_SWIZZLE(x, y, z, w)	((x) | ((y) << 2) | ((z) << 4) | \
					 ((w) << 6))
#define VDXG_SWIZZLE_XYZW		VDXG_SWIZZLE(0, 1, 2, 3)
#define VDXG_SRC(file, index, swizzle)	((file) | ((index) << 3) | \
					 ((swizzle) << 11))
/* Opcodes */
#define VDXG_OP_NOP			0x00
#define VDXG_OP_MOV			0x01
#define VDXG_OP_ADD			0x02
#define VDXG_OP_MUL			0x03
#define VDXG_OP_MAD			0x04
#define VDXG_OP_DP2			0x05
#define VDXG_OP_DP3			0x06
#define VDXG_OP_DP4			0x07
#define VDXG_OP_MIN			0x08
#define VDXG_OP_MAX			0x09
#define VDXG_OP_SLT			0x0a
#define VDXG_OP_SGE			0x0b
#define VDXG_OP_SEQ			0x0c
#define VDXG_OP_SNE			0x0d
#define VDXG_OP_CMP			0x0e
#define VDXG_OP_LRP			0x0f
#define VDXG_OP_FRC			0x10
#define VDXG_OP_FLR			0x11
#define VDXG_OP_CEIL			0x12
#define VDXG_OP_TRUNC			0x13
#define VDXG_OP_ROUND			0x14
#define VDXG_OP_SSG			0x15
#define VDXG_OP_RCP			0x16
#define VDXG_OP_RSQ			0x17
#define VDXG_OP_SQRT			0x18
#define VDXG_OP_EX2			0x19
#define VDXG_OP_LG2			0x1a
#define VDXG_OP_POW			0x1b
#define VDXG_OP_SIN			0x1c
#define VDXG_OP_COS			0x1d
#define VDXG_OP_DIV			0x1e
#define VDXG_OP_DDX			0x1f
#define VDXG_OP_DDY			0x20
#define VDXG_OP_ARL			0x21
#define VDXG_OP_KILL			0x22
#define VDXG_OP_KILL_IF			0x23
#define VDXG_OP_TEX			0x24
#define VDXG_OP_TXB			0x25
#define VDXG_OP_TXL			0x26
#define VDXG_OP_TXP			0x27
#define VDXG_OP_TXD			0x28
#define VDXG_OP_LDEXP			0x29
#define VDXG_OP_IF			0x2a
#define VDXG_OP_ELSE			0x2b
#define VDXG_OP_ENDIF			0x2c
#define VDXG_OP_BGNLOOP			0x2d
#define VDXG_OP_ENDLOOP			0x2e
#define VDXG_OP_BRK			0x2f
#define VDXG_OP_CONT			0x30
#define VDXG_OP_END			0x31
#define VDXG_NUM_OPS			0x32

/*
 * The 3D part of the context state area (version 2), in dwords from the
 * area's start; all zero is the state of a new ring entry.
 */
#define VDXG_CTX_STATE_DW_REGS		64	/* VDXG_3D_NUM_REGS registers */
#define VDXG_CTX_STATE_DW_PROGRAM(s)	(128 + 4 * (s))	/* bound, addr, size */
#define VDXG_CTX_STATE_DW_CONSTS(s)	(136 + 4 * (s))	/* count, addr, 0 */
#define VDXG_CTX_STATE_DW_IB		144	/* index size, addr, size */
#define VDXG_CTX_STATE_DW_VB(b)		(160 + 4 * (b))	/* stride, addr, size */
#define VDXG_CTX_STATE_DW_TEX(u)	(224 + 8 * (u))	/* dw5, addr, size, dw6 */
#define VDXG_CTX_STATE_DW_END		288

/* ------------------------------------------------------------------------
 * GPU address space and GART (0x2000)
 *
 * [0, VRAM_SIZE) is VRAM. [APERTURE_BASE, APERTURE_BASE + APERTURE_SIZE)
 * is the aperture: each 4 KiB page is translated by one 64-bit GART entry
 * in a table held in VRAM at GART_TABLE. A valid entry holds a system
 * (bus) page address; an invalid one, or any entry while GART_CTRL is
 * not enabled, sends accesses to DUMMY_PAGE. Engines cache translations
 * (GART entries) in a TLB until a flush: FLUSH_TLB, TLB_FLUSH, writing
 * GART_TABLE or GART_CTRL, or a reset. Other GPU addresses fault.
 */
#define VDXG_GPU_PAGE_SHIFT		12
#define VDXG_GPU_PAGE_SIZE		BIT(VDXG_GPU_PAGE_SHIFT)
#define VDXG_APERTURE_BASE		BIT_ULL(40)
#define VDXG_APERTURE_SIZE_DEFAULT	(512ull << 20)
#define VDXG_REG_GART_TABLE_LO		0x2000	/* RW: VRAM offset, page aligned */
#define VDXG_REG_GART_TABLE_HI		0x2004
#define VDXG_REG_GART_ENTRIES		0x2008	/* RO: APERTURE_SIZE / page */
/* GART_TABLE takes only values that keep all GART_ENTRIES inside VRAM. */
#define VDXG_REG_GART_CTRL		0x200c	/* RW */
#define   VDXG_GART_CTRL_ENABLE		BIT(0)
#define VDXG_REG_DUMMY_PAGE_LO		0x2010	/* RW: system page address */
#define VDXG_REG_DUMMY_PAGE_HI		0x2014
#define VDXG_REG_TLB_FLUSH		0x2018	/* WO: any value flushes */
#define VDXG_GART_PTE_VALID		BIT_ULL(0)
#define VDXG_GART_PTE_ADDR_MASK		(~0xfffull)

/* ------------------------------------------------------------------------
 * Fault reporting (0x2100)
 *
 * The first fault latches a record here, halts the faulting engine
 * (VDXG_ENG_STATUS_HALTED) and raises VDXG_INT_FAULT. Later faults only
 * bump FAULT_COUNT until FAULT_CLEAR is written. Engines touch only VRAM,
 * the aperture's pages (mapped or dummy) and the bus addresses that
 * operations name (page lists, physical reads and writes); a bad address
 * or a bus error is a fault.
 */
#define VDXG_REG_FAULT_STATUS		0x2100	/* RO */
#define   VDXG_FAULT_STATUS_VALID	BIT(0)
#define VDXG_REG_FAULT_ENGINE		0x2104	/* RO: VDXG_ENGINE_*, or DISPLAY */
#define VDXG_REG_FAULT_REASON		0x2108	/* RO: VDXG_FAULT_* */
#define   VDXG_FAULT_NONE		0
#define   VDXG_FAULT_ADDRESS		1	/* outside VRAM and aperture */
#define   VDXG_FAULT_BOUNDS		2	/* access past a surface */
#define   VDXG_FAULT_OPCODE		3	/* unknown command */
#define   VDXG_FAULT_LENGTH		4	/* bad command or buffer length */
#define   VDXG_FAULT_RING		5	/* bad ring programming */
#define   VDXG_FAULT_PARAM		6	/* bad operand value */
#define VDXG_REG_FAULT_OPCODE		0x210c	/* RO: op header bits 15:0, or: */
#define   VDXG_FAULT_OPCODE_RING	BIT(16)	/* ring fault | entry CMD 15:0 */
#define VDXG_REG_FAULT_ADDR_LO		0x2110	/* RO: GPU address that faulted */
#define VDXG_REG_FAULT_ADDR_HI		0x2114
#define VDXG_REG_FAULT_CONTEXT		0x2118	/* RO: ring entry context */
#define VDXG_REG_FAULT_COUNT		0x211c	/* RO: faults since clear */
#define VDXG_REG_FAULT_CLEAR		0x2120	/* WO: any value clears */
/* Virtual-memory faults (reasons VM_*) also latch these two: */
#define VDXG_REG_FAULT_VM		0x2124	/* RO: address space id */
#define VDXG_REG_FAULT_ACCESS		0x2128	/* RO: VDXG_ACCESS_* */
#define   VDXG_ACCESS_READ		0
#define   VDXG_ACCESS_WRITE		1
#define   VDXG_ACCESS_FETCH		2	/* a command buffer's dwords */
#define   VDXG_FAULT_VM_NOT_PRESENT	7	/* no valid entry on the walk */
#define   VDXG_FAULT_VM_READ_ONLY	8	/* write to a read-only page */
#define   VDXG_FAULT_VM_BAD_TABLE	9	/* malformed table or AS entry */
#define   VDXG_FAULT_VM_NO_EXEC		10	/* fetch from a NO_EXEC page */
#define   VDXG_FAULT_SHADER		11	/* bad program, reference, runaway */

/* ------------------------------------------------------------------------
 * GPU virtual memory (0x2200), present with VDXG_CAP_GPU_MMU
 *
 * Each function has up to VDXG_VM_MAX_AS address spaces. Address space n
 * is entry n of the address-space table (AS table) in VRAM at VM_TABLE:
 * 16 bytes, qword 0 the root table's VRAM offset | VDXG_VM_AS_VALID,
 * qword 1 zero. A virtual address has 48 bits, translated by four levels
 * of tables of 512 eight-byte entries (one 4 KiB page each): level 3 (the
 * root) indexes bits 47:39, level 2 bits 38:30, level 1 bits 29:21 and
 * level 0 bits 20:12. Tables live in VRAM. A level-1 entry with LARGE
 * maps a 2 MiB page. Engines cache translations in a TLB per engine,
 * tagged by address space, until FLUSH_VM_TLB, VM_TLB_FLUSH, a write to
 * VM_TABLE, VM_TABLE_ENTRIES or VM_CTRL, UPDATE_CONTEXT_ALLOCATION of
 * that space, or a reset. Page tables change only through paging
 * operations or the CPU.
 */
#define VDXG_VM_VA_BITS			48
#define VDXG_VM_LEVELS			4
#define VDXG_VM_TABLE_ENTRIES		512
#define VDXG_VM_LEVEL_SHIFT(l)		(12 + 9 * (l))	/* 12, 21, 30, 39 */
#define VDXG_VM_INDEX(va, l)		(((va) >> VDXG_VM_LEVEL_SHIFT(l)) & 511)
#define VDXG_VM_LARGE_SHIFT		21		/* 2 MiB */
#define VDXG_VM_MAX_AS			256
#define VDXG_VM_AS_ENTRY_SIZE		16
#define   VDXG_VM_AS_VALID		BIT_ULL(0)
#define   VDXG_VM_AS_ADDR_MASK		0x0000fffffffff000ull

#define VDXG_REG_VM_TABLE_LO		0x2200	/* RW: VRAM offset, page aligned */
#define VDXG_REG_VM_TABLE_HI		0x2204
#define VDXG_REG_VM_TABLE_ENTRIES	0x2208	/* RW: 0 .. VM_SPACES */
#define VDXG_REG_VM_CTRL		0x220c	/* RW */
#define   VDXG_VM_CTRL_ENABLE		BIT(0)
#define VDXG_REG_VM_TLB_FLUSH		0x2210	/* WO: AS id, or ~0: all */
#define   VDXG_VM_FLUSH_ALL		0xffffffffu
#define VDXG_REG_VM_SPACES		0x2214	/* RO: address spaces, 2 .. 256 */
#define VDXG_REG_VM_RES_SELECT		0x2220	/* RW: AS id the next two show */
#define VDXG_REG_VM_RES_RESIDENT	0x2224	/* RO: NOTIFY_RESIDENCY, resident */
#define VDXG_REG_VM_RES_EVICTED		0x2228	/* RO: NOTIFY_RESIDENCY, evicted */

/*
 * A page-table entry (after DXGK_PTE). Bits 47:12 hold a 4 KiB aligned
 * address: of the next table (a VRAM offset) in a directory entry
 * (levels 3 to 1 without LARGE), of the page otherwise: a VRAM offset
 * (SEGMENT VRAM) or a system bus address (SEGMENT SYSTEM). A 2 MiB page
 * must be 2 MiB aligned. Bits 63:48 and the reserved bits are zero.
 */
#define VDXG_PTE_VALID			BIT_ULL(0)
#define VDXG_PTE_ZERO			BIT_ULL(1)	/* null: reads 0, drops writes */
#define VDXG_PTE_COHERENT		BIT_ULL(2)	/* ignored by the device */
#define VDXG_PTE_READ_ONLY		BIT_ULL(3)
#define VDXG_PTE_NO_EXEC		BIT_ULL(4)
#define VDXG_PTE_SEGMENT_SHIFT		5		/* bits 9:5 */
#define VDXG_PTE_SEGMENT_MASK		(0x1full << VDXG_PTE_SEGMENT_SHIFT)
#define   VDXG_PTE_SEGMENT_SYSTEM	0
#define   VDXG_PTE_SEGMENT_VRAM		1
#define VDXG_PTE_SEGMENT(s)		((unsigned long long)(s) << \
					 VDXG_PTE_SEGMENT_SHIFT)
#define VDXG_PTE_LARGE			BIT_ULL(10)	/* level 1 only: 2 MiB */
#define VDXG_PTE_RESERVED_MASK		0xffff000000000800ull
#define VDXG_PTE_ADDR_MASK		0x0000fffffffff000ull

/*
 * The context state area (WDDM's context allocation) of a virtual-mode
 * RENDER context: one 4 KiB page of VRAM, 4 KiB aligned, where the render
 * engine keeps the context's surface-slot bindings between its ring
 * entries. INIT_CONTEXT_RESOURCE writes the initial state: the magic, the
 * version, and every slot unset (all zero).
 */
#define VDXG_CTX_STATE_SIZE		4096
#define VDXG_CTX_STATE_MAGIC		0x58544356	/* "VCTX" */
#define VDXG_CTX_STATE_VERSION		2
#define VDXG_CTX_STATE_DW_MAGIC		0
#define VDXG_CTX_STATE_DW_VERSION	1
#define VDXG_CTX_STATE_DW_SLOTS		4	/* VDXG_NUM_SLOTS slots from here */
#define VDXG_CTX_STATE_SLOT_DWORDS	8
#define VDXG_CTX_STATE_SLOT(n)		(VDXG_CTX_STATE_DW_SLOTS + \
					 (n) * VDXG_CTX_STATE_SLOT_DWORDS)
/* A slot's dwords: all zero while unset */
#define VDXG_CTX_SLOT_DW_BOUND		0	/* 1: bound, 0: unset */
#define VDXG_CTX_SLOT_DW_ADDR		1	/* virtual address, 2 dwords */
#define VDXG_CTX_SLOT_DW_FORMAT		3	/* as SET_SURFACE's operands */
#define VDXG_CTX_SLOT_DW_WIDTH		4
#define VDXG_CTX_SLOT_DW_HEIGHT		5
#define VDXG_CTX_SLOT_DW_PITCH		6
#define VDXG_CTX_SLOT_DW_RSVD		7	/* zero */

/* ------------------------------------------------------------------------
 * Display engine (0x4000 + crtc * 0x200)
 *
 * NUM_CRTCS pipes (the QEMU property "outputs", 1 to 4); the blocks of
 * the others read 0. Each pipe (CRTC) scans out a mode, composes a
 * background colour and three planes (primary, overlay, cursor) into an
 * XRGB8888 frame, and drives one connector with an EDID.
 *
 * Timing: when CTRL.ENABLE goes from 0 to 1 at virtual time t0 the mode
 * registers are checked and latched (a bad mode leaves the CRTC off with
 * STATUS.MODE_INVALID and a display fault). Line L (counted from t0 over
 * all frames) starts at t0 + floor(L * HTOTAL * 10^6 / CLOCK_KHZ) ns;
 * vblank k (k >= 1) starts at line (k - 1) * VTOTAL + VDISPLAY. FRAME_COUNT,
 * VBLANK_NS and SCANLINE are derived from the virtual clock.
 *
 * Double buffering: the plane registers and BG_COLOR are a pending copy.
 * Writing FLIP latches all of them at the next vblank (at once when the
 * CRTC is off) and raises FLIP_DONE. Writing CURSOR_UPDATE latches the
 * cursor plane's registers at once, without interrupt (the legacy cursor
 * path); ASYNC_FLIP latches the primary plane's at once and raises
 * ASYNC_DONE (an async flip, tearing allowed). Enabling the CRTC latches
 * everything at once. Latched planes are checked; a bad one is not shown
 * and raises a display fault.
 *
 * Colour: the composed frame goes through a degamma LUT, a 3x3 matrix
 * (CTM) and a gamma LUT, each enabled in COLOR_CTRL, before scanout, CRC
 * and writeback. They are pending registers, latched with the planes.
 *
 * docs/hardware.md ("Display engine") defines the blending arithmetic, the
 * CRC, the writeback unit, the EDID and the faults exactly.
 */
#define VDXG_MAX_CRTCS			4
#define VDXG_CRTC_BASE(c)		(0x4000 + (c) * 0x200)
#define VDXG_CRTC_CTRL			0x000	/* RW */
#define   VDXG_CRTC_CTRL_ENABLE		BIT(0)	/* 0 -> 1 checks, starts a mode */
#define   VDXG_CRTC_CTRL_VBLANK_IRQ	BIT(1)	/* raise VBLANK(crtc) */
#define   VDXG_CRTC_CTRL_CRC		BIT(2)	/* compute CRC every vblank */
#define   VDXG_CRTC_CTRL_VRR		BIT(3)	/* vblank waits for a FLIP */
#define   VDXG_CRTC_CTRL_MASK		0xf
#define VDXG_CRTC_HDISPLAY		0x004	/* RW: active pixels per line */
#define VDXG_CRTC_VDISPLAY		0x008	/* RW: active lines */
#define VDXG_CRTC_HTOTAL		0x00c	/* RW: pixels per line */
#define VDXG_CRTC_VTOTAL		0x010	/* RW: lines per frame */
#define VDXG_CRTC_CLOCK_KHZ		0x014	/* RW: pixel clock */
#define VDXG_CRTC_FLIP			0x018	/* WO: latch pending at vblank */
#define   VDXG_CRTC_FLIP_DAMAGE		BIT(1)	/* only DAMAGE's rows change */
#define VDXG_CRTC_FRAME_COUNT		0x01c	/* RO: vblanks since enable */
#define VDXG_CRTC_VBLANK_NS_LO		0x020	/* RO: last vblank, virtual ns */
#define VDXG_CRTC_VBLANK_NS_HI		0x024
#define VDXG_CRTC_SCANLINE		0x028	/* RO: current line, 0..VTOTAL-1 */
#define VDXG_CRTC_CRC			0x02c	/* RO: CRC-32 of frame CRC_FRAME */
#define VDXG_CRTC_BG_COLOR		0x030	/* RW (pending): XRGB8888 */
#define VDXG_CRTC_STATUS		0x034	/* RO */
#define   VDXG_CRTC_STATUS_ACTIVE	BIT(0)	/* enabled, scanning out */
#define   VDXG_CRTC_STATUS_MODE_INVALID	BIT(1)	/* last enable refused */
#define   VDXG_CRTC_STATUS_FLIP_PENDING	BIT(2)	/* FLIP waits for a vblank */
#define   VDXG_CRTC_STATUS_VBLANK	BIT(3)	/* SCANLINE >= VDISPLAY */
#define VDXG_CRTC_CRC_FRAME		0x038	/* RO: frame that CRC belongs to */
#define VDXG_CRTC_CURSOR_UPDATE		0x03c	/* WO: latch the cursor now */
#define VDXG_CRTC_HSYNC_START		0x104	/* RW */
#define VDXG_CRTC_HSYNC_END		0x108	/* RW */
#define VDXG_CRTC_VSYNC_START		0x10c	/* RW */
#define VDXG_CRTC_VSYNC_END		0x110	/* RW */
#define VDXG_CRTC_ASYNC_FLIP		0x114	/* WO: latch the primary now */

/*
 * Colour pipeline, per CRTC: pending registers, latched with the planes
 * (FLIP, enable), not by ASYNC_FLIP or CURSOR_UPDATE. The LUTs have
 * VDXG_LUT_SIZE entries of three 16-bit channels, reached through
 * LUT_INDEX: writing LUT_DATA_LO sets the entry's red and green, writing
 * LUT_DATA_HI its blue and then moves LUT_INDEX to the next entry of the
 * same LUT (255 wraps to 0). The CTM coefficients are two's complement
 * fixed point with 16 fractional bits, row-major: out[i] = sum over j of
 * CTM[3 * i + j] * in[j]. The arithmetic is in docs/hardware.md.
 */
#define VDXG_CRTC_COLOR_CTRL		0x118	/* RW, pending */
#define   VDXG_COLOR_DEGAMMA		BIT(0)
#define   VDXG_COLOR_CTM		BIT(1)
#define   VDXG_COLOR_GAMMA		BIT(2)
#define   VDXG_COLOR_CTRL_MASK		0x7
#define VDXG_CRTC_LUT_INDEX		0x11c	/* RW */
#define   VDXG_LUT_INDEX_ENTRY_MASK	0xff
#define   VDXG_LUT_INDEX_GAMMA		BIT(8)	/* 0: the degamma LUT */
#define   VDXG_LUT_INDEX_MASK		0x1ff
#define VDXG_CRTC_LUT_DATA_LO		0x120	/* RW, pending: green << 16 | red */
#define VDXG_CRTC_LUT_DATA_HI		0x124	/* RW, pending: blue; index++ */
#define VDXG_CRTC_CTM(i)		(0x128 + (i) * 4)	/* RW, pending */
#define VDXG_LUT_SIZE			256
#define VDXG_CTM_FRAC_BITS		16

/*
 * Variable refresh: with CTRL.VRR a frame is VTOTAL lines when a FLIP is
 * pending by then, else its vertical blank stretches, up to
 * VRR_VTOTAL_MAX lines, until a FLIP arrives: that vblank ends and the
 * next one starts at once, latching the FLIP. VRR_VTOTAL_MAX is latched
 * with the mode by the enable; 0 (or VTOTAL) is no stretch.
 */
#define VDXG_CRTC_VRR_VTOTAL_MAX	0x14c	/* RW */
/*
 * RO: the first frame that CRC describes: CRC_FRAME, or earlier when
 * nothing was latched since (the CRC of a sliced composition comes late
 * and may name a later vblank than the one it began at).
 */
#define VDXG_CRTC_CRC_FIRST		0x150
/*
 * RW: the frame rows a FLIP written with FLIP_DAMAGE changes, Y0 to Y1 - 1
 * (none when Y0 >= Y1). The guest promises that elsewhere the latched
 * state shows what the frame shows: the device keeps those rows' pixels
 * until their memory changes (docs/hardware.md, "Damage").
 */
#define VDXG_CRTC_DAMAGE		0x154
#define   VDXG_CRTC_DAMAGE_Y1_SHIFT	16	/* Y0 in bits 15:0 */
#define VDXG_MODE_MAX_VRR_TOTAL		65535

/* Mode limits, checked when the CRTC is enabled. */
#define VDXG_MODE_MAX_DISPLAY		4096	/* HDISPLAY, VDISPLAY */
#define VDXG_MODE_MAX_TOTAL		8192	/* HTOTAL, VTOTAL */
#define VDXG_MODE_MIN_FRAME_NS		1000000ull	/* 1000 Hz */
#define VDXG_MODE_MAX_FRAME_NS		1000000000ull	/* 1 Hz */
#define VDXG_MODE_MAX_CLOCK_KHZ		1200000	/* 1.2 GHz pixel clock */

/*
 * Planes: primary 0x040, overlay 0x080, cursor 0x0c0 in the CRTC block.
 * Registers up to ZPOS are the pending copy (read back as written);
 * STATUS and CUR_ADDR show the latched state.
 */
#define VDXG_PLANE_PRIMARY		0x040
#define VDXG_PLANE_OVERLAY		0x080
#define VDXG_PLANE_CURSOR		0x0c0
#define VDXG_NUM_PLANES			3
#define VDXG_PLANE_IDX_PRIMARY		0
#define VDXG_PLANE_IDX_OVERLAY		1
#define VDXG_PLANE_IDX_CURSOR		2
#define VDXG_PLANE_BASE(c, p)		(VDXG_CRTC_BASE(c) + 0x40 + (p) * 0x40)
#define VDXG_PLANE_CTRL			0x00	/* RW */
#define   VDXG_PLANE_CTRL_ENABLE	BIT(0)
#define   VDXG_PLANE_CTRL_ROT_180	BIT(1)	/* primary and overlay only */
#define   VDXG_PLANE_CTRL_REFLECT_X	BIT(2)	/* primary and overlay only */
#define   VDXG_PLANE_CTRL_REFLECT_Y	BIT(3)	/* primary and overlay only */
#define   VDXG_PLANE_CTRL_BLEND_SHIFT	4	/* VDXG_BLEND_* */
#define   VDXG_PLANE_CTRL_BLEND_MASK	(3u << 4)
#define   VDXG_PLANE_CTRL_ROT_90	BIT(6)	/* primary and overlay only */
#define   VDXG_PLANE_CTRL_BILINEAR	BIT(7)	/* primary and overlay only */
#define   VDXG_PLANE_CTRL_MASK		0xff	/* other bits read 0 */
#define   VDXG_PLANE_CTRL_CURSOR_MASK	0x31	/* cursor: ENABLE, BLEND */
#define   VDXG_BLEND_NONE		0	/* DRM "None" */
#define   VDXG_BLEND_PREMULTI		1	/* DRM "Pre-multiplied" */
#define   VDXG_BLEND_COVERAGE		2	/* DRM "Coverage" */
#define VDXG_PLANE_ADDR_LO		0x04	/* RW: GPU address of pixel (0,0) */
#define VDXG_PLANE_ADDR_HI		0x08
#define VDXG_PLANE_FORMAT		0x0c	/* RW: VDXG_FOURCC_* */
#define VDXG_PLANE_PITCH		0x10	/* RW: bytes */
#define VDXG_PLANE_SRC_SIZE		0x14	/* RW: height << 16 | width */
#define VDXG_PLANE_DST_POS		0x18	/* RW: y << 16 | x, each s16 */
#define VDXG_PLANE_ALPHA		0x1c	/* RW: 0..0xffff plane alpha */
#define   VDXG_ALPHA_OPAQUE		0xffff
#define VDXG_PLANE_ZPOS			0x20	/* RW: 0..VDXG_ZPOS_MAX */
#define   VDXG_ZPOS_MAX			2
#define VDXG_PLANE_STATUS		0x24	/* RO: latched state */
#define   VDXG_PLANE_STATUS_ACTIVE	BIT(0)	/* enabled and shown */
#define   VDXG_PLANE_STATUS_FAULT	BIT(1)	/* enabled, hidden by a fault */
#define VDXG_PLANE_CUR_ADDR_LO		0x28	/* RO: latched ADDR */
#define VDXG_PLANE_CUR_ADDR_HI		0x2c
/*
 * RW: height << 16 | width of the plane on the frame, 0 for its source
 * size after ROT_90 (unscaled). Primary and overlay; the cursor's reads 0.
 */
#define VDXG_PLANE_DST_SIZE		0x30
#define VDXG_PLANE_SIZE_WH(w, h)	(((h) << 16) | (w))
#define VDXG_PLANE_POS_XY(x, y)		((((uint32_t)(y) & 0xffff) << 16) | \
					 ((uint32_t)(x) & 0xffff))
/* Plane limits, checked when a plane is latched. */
#define VDXG_PLANE_MAX_DIM		4096	/* primary, overlay */
#define VDXG_CURSOR_MAX_DIM		256	/* cursor: 1..256 each way */
#define VDXG_PLANE_MAX_PITCH		0x40000	/* bytes */
/* Scaling: dst <= 8 * src and 4 * dst >= src, each way (src after ROT_90) */
#define VDXG_PLANE_MAX_UPSCALE		8
#define VDXG_PLANE_MAX_DOWNSCALE	4

/*
 * Scanout and writeback formats are DRM fourccs (drm_fourcc.h values),
 * little endian. The cursor takes ARGB8888 only; writeback takes XRGB8888
 * and ARGB8888.
 */
#define VDXG_FOURCC(a, b, c, d)		((uint32_t)(a) | ((uint32_t)(b) << 8) | \
					 ((uint32_t)(c) << 16) | \
					 ((uint32_t)(d) << 24))
#define VDXG_FOURCC_XRGB8888		VDXG_FOURCC('X', 'R', '2', '4')
#define VDXG_FOURCC_ARGB8888		VDXG_FOURCC('A', 'R', '2', '4')
#define VDXG_FOURCC_XBGR8888		VDXG_FOURCC('X', 'B', '2', '4')
#define VDXG_FOURCC_RGB565		VDXG_FOURCC('R', 'G', '1', '6')

/* Connector of this pipe. */
#define VDXG_CRTC_CONN_STATUS		0x100	/* RO, bit 1 W1C */
#define   VDXG_CONN_CONNECTED		BIT(0)
#define   VDXG_CONN_CHANGED		BIT(1)	/* set by a hotplug; W1C */
#define   VDXG_CONN_LINK_BAD		BIT(2)	/* link lost; cleared by enable */
#define VDXG_CRTC_EDID			0x180	/* RO: 128-byte EDID block */
#define VDXG_EDID_SIZE			128	/* reads 0 while disconnected */

/*
 * Display faults use the fault block with FAULT_ENGINE = DISPLAY and
 * FAULT_OPCODE = crtc << 8 | unit; FAULT_CONTEXT is the CRTC's
 * FRAME_COUNT. They halt nothing: the faulting plane is not shown.
 */
#define VDXG_FAULT_ENGINE_DISPLAY	2
#define VDXG_FAULT_OPCODE_DISPLAY(c, u)	(((c) << 8) | (u))
#define   VDXG_DISP_UNIT_PRIMARY	VDXG_PLANE_IDX_PRIMARY
#define   VDXG_DISP_UNIT_OVERLAY	VDXG_PLANE_IDX_OVERLAY
#define   VDXG_DISP_UNIT_CURSOR		VDXG_PLANE_IDX_CURSOR
#define   VDXG_DISP_UNIT_MODE		3	/* CRTC enable */
#define   VDXG_DISP_UNIT_WRITEBACK	4

/*
 * Writeback unit (0x4800). Writing CTRL with ENABLE arms one capture of
 * CRTC [7:4]: at that CRTC's next vblank, after the latch, its composed
 * frame (HDISPLAY x VDISPLAY) is written to ADDR; then ENABLE clears,
 * STATUS says DONE (or DONE | ERROR), SEQNO counts the captures written
 * and WRITEBACK is raised.
 */
#define VDXG_REG_WB_CTRL		0x4800	/* RW */
#define   VDXG_WB_CTRL_ENABLE		BIT(0)	/* arm; clears when done */
#define   VDXG_WB_CTRL_CRTC_SHIFT	4
#define   VDXG_WB_CTRL_CRTC_MASK	(0xfu << 4)
#define   VDXG_WB_CTRL_MASK		0xf1
#define VDXG_REG_WB_ADDR_LO		0x4804	/* RW: target GPU address */
#define VDXG_REG_WB_ADDR_HI		0x4808
#define VDXG_REG_WB_FORMAT		0x480c	/* RW: XRGB8888 or ARGB8888 */
#define VDXG_REG_WB_PITCH		0x4810	/* RW: bytes */
#define VDXG_REG_WB_STATUS		0x4814	/* RO */
#define   VDXG_WB_STATUS_DONE		BIT(0)	/* the last capture ended */
#define   VDXG_WB_STATUS_ERROR		BIT(1)	/* ... and failed */
#define   VDXG_WB_STATUS_BUSY		BIT(2)	/* armed */
#define VDXG_REG_WB_SEQNO		0x4818	/* RO: captures written */
#define VDXG_REG_WB_FRAME		0x481c	/* RO: FRAME_COUNT of the last */

/* ------------------------------------------------------------------------
 * SR-IOV (PF only, 0x6000)
 *
 * The PF has an SR-IOV extended capability (with ARI) offering TOTAL_VFS
 * virtual functions, device id VDXG_PCI_VF_DEVICE_ID. A VF has the PF's
 * global, interrupt, engine, GART and fault blocks at the same offsets,
 * its own rings, GART and aperture, and no display (NUM_CRTCS 0, CAPS
 * without DISPLAY, CRC, WRITEBACK, SRIOV, RESIZABLE_BAR). Its BARs:
 * VDXG_BAR_MMIO (64 KiB), VDXG_BAR_VRAM (VF_VRAM_SIZE, 32-bit
 * prefetchable) and VDXG_BAR_MSIX (VDXG_MSIX_VECTORS vectors); a VF has
 * no MSI and no INTx.
 *
 * The VF's VRAM BAR is assembled, in order, from up to
 * VDXG_MAX_BACKING_RANGES page-aligned ranges of PF VRAM: the backing
 * table of (VF, BAR). Software selects VF, BAR and index, reads or writes
 * the range (a zero length ends the table), and writes COMMIT with the
 * VF and BAR, which checks the whole table and applies it at once: to
 * the VF's BAR as the CPU sees it and to the VF's engines. A table whose
 * ranges are misaligned, outside PF VRAM or longer in sum than the BAR is
 * refused (BACKING_STATUS.ERROR; the applied table stays as it was). The
 * part of the BAR beyond the applied ranges is unbacked. Tables are kept
 * while VFs are disabled and cleared by a reset of the PF. Only
 * VDXG_BAR_VRAM has a table.
 *
 * A VF's engines reach its VRAM (through the table) and its aperture
 * (through its GART, whose table is in its VRAM); their bus-address
 * accesses go out as the VF and must not land in any vdxg BAR. Anything
 * else is a fault (VDXG_FAULT_ADDRESS) on the VF.
 */
#define VDXG_MAX_BACKING_RANGES		32
#define VDXG_REG_BACKING_SELECT		0x6000	/* RW: vf << 16 | bar << 8 | idx */
#define   VDXG_BACKING_SELECT(vf, bar, idx) \
					(((vf) << 16) | ((bar) << 8) | (idx))
#define VDXG_REG_BACKING_OFFSET_LO	0x6004	/* RW: PF VRAM offset */
#define VDXG_REG_BACKING_OFFSET_HI	0x6008
#define VDXG_REG_BACKING_LENGTH_LO	0x600c	/* RW: bytes, page multiple */
#define VDXG_REG_BACKING_LENGTH_HI	0x6010
#define VDXG_REG_BACKING_COMMIT		0x6014	/* WO: vf << 16 | bar << 8 */
#define VDXG_REG_BACKING_STATUS		0x6018	/* RO: of the last COMMIT */
#define   VDXG_BACKING_STATUS_ERROR	BIT(0)	/* refused */
#define   VDXG_BACKING_STATUS_RANGES_SHIFT 8	/* ranges applied */
#define   VDXG_BACKING_STATUS_RANGES_MASK (0xffu << 8)
#define VDXG_REG_SRIOV_TOTAL_VFS	0x601c	/* RO */
#define VDXG_REG_SRIOV_VF_VRAM_SIZE_LO	0x6020	/* RO: each VF's VRAM BAR */
#define VDXG_REG_SRIOV_VF_VRAM_SIZE_HI	0x6024
#define VDXG_REG_SRIOV_NUM_VFS		0x6028	/* RO: VFs enabled now */

/*
 * Resizable BAR: the PF's VRAM BAR has a Resizable BAR extended capability
 * (PCI_EXT_CAP_ID_REBAR) offering every power of two from 16 MiB up to
 * VRAM's size, and comes up at VDXG_VRAM_BAR_SIZE_DEFAULT (or VRAM's size
 * if smaller). A new size takes effect for the BAR's next assignment.
 */
#define VDXG_VRAM_BAR_SIZE_DEFAULT	(64ull << 20)
#define VDXG_VRAM_BAR_SIZE_MIN		(16ull << 20)

#endif /* VDXG_HW_H */
