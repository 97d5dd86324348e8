/* SPDX-License-Identifier: MIT */
/*
 * vvm: helpers for tests of GPU virtual memory (VM_CREATE, VM_BIND), on
 * any vdxg function (the PF or a VF): what an address space maps is read
 * back through the GPU itself, with the debugfs files of the device
 * behind a DRM fd:
 *
 *  - vms lists each VM ("vm key A: client C id I, ...") with its
 *    mappings;
 *  - vm_read (root): write "KEY VA SIZE", then read SIZE bytes (at most
 *    64 KiB) at VA of that address space, copied by a TRANSFER_VIRTUAL on
 *    the paging engine; an unmapped address fails with EFAULT (the paging
 *    engine faults, logs "engine 1 fault: not present, opcode 0x0d" and
 *    is reset).
 *
 * Every helper asserts (vtest_fail) on an unexpected error.
 */
#ifndef VVM_H
#define VVM_H

#include <stdbool.h>
#include <stdint.h>

/* The most vm_read copies at once. */
#define VVM_READ_MAX	(64u * 1024)

/* The kernel messages of vm_reads of unmapped addresses. */
#define VVM_FAULT_DMESG	"engine 1 fault: not present, opcode 0x0d|" \
			"callbacks suppressed"

/* The key of VM VM_ID of the file FD, from debugfs vms. */
uint32_t vvm_key(int fd, uint32_t vm_id);
/* Whether debugfs vms lists VM VM_ID of the file FD (not destroyed yet). */
bool vvm_listed(int fd, uint32_t vm_id);
/*
 * SIZE bytes (1 to VVM_READ_MAX) at VA of VM KEY of the device
 * behind FD, as its GPU reads them, into BUF: 0 or -errno (-EFAULT: not
 * mapped).
 */
int vvm_read(int fd, uint32_t key, uint64_t va, void *buf, uint32_t size);
/*
 * The SIZE bytes (any size: read VVM_READ_MAX at a time) at VA are WANT's,
 * byte for byte; WHAT names them in a failure.
 */
void vvm_expect(int fd, uint32_t key, uint64_t va, const void *want,
		uint64_t size, const char *what);
/*
 * Where the object mapped at VA of VM KEY is, as debugfs vms
 * says: "vram", "aperture", "system", "swapped" (in system memory, its
 * pages swapped out: its entries are invalid until it moves) or "null";
 * NULL when no mapping starts at VA. The string is static.
 */
const char *vvm_place(int fd, uint32_t key, uint64_t va);
/*
 * Mappings and page tables of VM KEY, as debugfs vms counts
 * them.
 */
void vvm_counts(int fd, uint32_t key, uint64_t *mappings, uint32_t *tables);

/*
 * Page tables charged to the file for VM KEY: those in its tree and those
 * in its reserve (debugfs vms).
 */
uint32_t vvm_charged(int fd, uint32_t key);
/*
 * The device's NOTIFY_RESIDENCY counts of VM KEY (objects made
 * resident in it again, objects evicted from it), as debugfs vms shows.
 */
void vvm_residency(int fd, uint32_t key, uint32_t *resident,
		   uint32_t *evicted);
/* A page read at VA faults (-EFAULT). */
void vvm_expect_fault(int fd, uint32_t key, uint64_t va);
/*
 * Run TTM's shrinker (debugfs ttm/tt_shrink swaps out the objects of one
 * LRU walk a read) until it finds nothing more to swap out; skips without
 * that file.
 */
void vvm_swap_out_everything(void);
/* Bytes in the VRAM segment of the device behind FD (debugfs segments). */
uint64_t vvm_vram_segment(int fd);
/* Bytes of that segment no object uses now. */
uint64_t vvm_vram_free(int fd);

/*
 * Fences that only the test signals: points of a sw_sync timeline
 * (debugfs, the sw_sync module; the subtest skips without it). At exit, a
 * failed assertion's too, the timeline signals everything before the
 * files are released: releasing a VM waits for its binds.
 */
int vvm_timeline(void);
/* Move the timeline on by N: its points up to the new value signal. */
void vvm_timeline_inc(int timeline, uint32_t n);
/* A sync_file of the timeline's point VALUE, not yet signalled. */
int vvm_fence_fd(int timeline, uint32_t value);
/* A syncobj of VR holding the timeline's point VALUE, not yet signalled. */
uint32_t vvm_fence_syncobj(struct vr *vr, int timeline, uint32_t value);

/* Operations a victim times, VVM_VICTIM_OPS of each. */
#define VVM_VICTIM_OPS	100
/* The most the 99th percentile of each may take, in seconds. */
#define VVM_VICTIM_P99	1.0
/*
 * A victim client beside an attack (named ATTACK in the messages): on a
 * new file of its own, VVM_VICTIM_OPS each of a VRAM allocation (GEM_CREATE
 * of 1 MiB, VRAM only, written and read back by the CPU), a VM_BIND (a map
 * or an unmap, to its out-syncobj), an EXEC and a SUBMIT (each a 32x32
 * FILL_RECT, waited for, every pixel checked), each timed on its own. Fails
 * on wrong bytes or when the 99th percentile of an operation exceeds
 * VVM_VICTIM_P99 (wall-clock: the test is in the retry list); prints the
 * percentiles.
 */
void vvm_victim(const char *attack);

#endif /* VVM_H */
