// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kstrtox.h>
#include <linux/seq_file.h>

#include <drm/drm_debugfs.h>
#include <drm/drm_print.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_resource.h>

#include "vdxg_bo.h"
#include "vdxg_drv.h"
#include "vdxg_fault.h"

/**
 * DOC: debugfs
 *
 * Under ``dri/N/``:
 *
 * - ``resources``: each resource descriptor in IO_RESOURCE_DESCRIPTOR
 *   terms (type, option, share disposition, flags, length, alignment,
 *   minimum and maximum address or vector range) and what was assigned,
 *   including the options that failed or were not needed.
 * - ``interrupts``: the interrupt mode and a count per source.
 * - ``paging``: the paging buffer size in bytes (``buffer_size``), paging
 *   buffers submitted, device faults, batches (one per move, bind or
 *   clear) with the passes (buffers) the last and the largest needed, and
 *   operations and bytes by operation, every opcode under its name in
 *   lower case (``update_page_table``, ``flush_vm_tlb``...); the bytes
 *   are those of the ``vdxg_paging_op`` trace event (vdxg_trace.h): for
 *   the GPU virtual memory's operations 8 per page-table entry written or
 *   copied, a flush's range (0 for a whole address space), the bytes
 *   copied or filled through an address space, 16 per AS entry, 4096 per
 *   context state area. There is no CPU fallback to count: every move
 *   runs on the paging engine.
 * - ``segments``: size and use of VRAM, aperture and system memory, with
 *   TTM's view of each manager, the bytes charged to the commit limit
 *   (see "Commit limit"), and the room one submission's allocations have
 *   in VRAM and the aperture (``room_vram``, ``room_aperture``: neither
 *   pinned nor carved for VFs; see "Partial submissions").
 * - ``render``: SUBMIT and EXEC counters: jobs queued, refused, patched
 *   or skipped (presumed addresses right), fields written, submissions
 *   run in pieces (``split``) and their pieces (``pieces``),
 *   NULL_RENDERING jobs, resets, job timeouts, and the DMA-buffer pool.
 * - ``gart``: the valid GART entries, as runs of aperture pages.
 * - ``sriov`` (a PF with SR-IOV): the VFs enabled and the ranges of PF
 *   VRAM behind each VF's VRAM BAR.
 * - ``vram_fragment`` (write-only, for tests): writing a byte count
 *   fragments the free VRAM into holes of that size (a page multiple of at
 *   least 64 KiB; see "Carving VF memory"); writing 0 gives it back.
 * - ``faults``: the last faults and hangs in full (see "Faults").
 * - ``paging_inject_fault`` and ``paging_hold`` (write-only, for tests):
 *   queue N paging jobs that fault; pause (1) or resume (0) the paging
 *   engine, so that moves queue up behind such a job.
 * - ``vms`` and ``vm_read`` (a device with a GPU MMU): every VM with its
 *   page-table memory and mappings; reads through a VM's page tables
 *   (see "GPU virtual memory").
 */

static int vdxg_debugfs_resources(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct vdxg_device *vdxg = to_vdxg(entry->dev);
	struct drm_printer p = drm_seq_file_printer(m);

	vdxg_res_print(&vdxg->resources, &p);
	return 0;
}

static int vdxg_debugfs_interrupts(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct vdxg_device *vdxg = to_vdxg(entry->dev);
	unsigned int i;

	seq_printf(m, "mode: %d\nvectors: %u\n", vdxg->irq.mode,
		   vdxg->irq.nvec);
	for (i = 0; i < ARRAY_SIZE(vdxg->irq.count); i++)
		if (BIT(i) & VDXG_INT_VALID_MASK)
			seq_printf(m, "source %2u: %d\n", i,
				   atomic_read(&vdxg->irq.count[i]));
	return 0;
}

static int vdxg_debugfs_paging(struct seq_file *m, void *data)
{
	static const char * const ops[] = {
		[VDXG_PG_NOP] = "nop",
		[VDXG_PG_FENCE] = "fence",
		[VDXG_PG_TRANSFER] = "transfer",
		[VDXG_PG_FILL] = "fill",
		[VDXG_PG_DISCARD] = "discard",
		[VDXG_PG_MAP_APERTURE] = "map_aperture",
		[VDXG_PG_UNMAP_APERTURE] = "unmap_aperture",
		[VDXG_PG_FLUSH_TLB] = "flush_tlb",
		[VDXG_PG_WRITE_PHYSICAL] = "write_physical",
		[VDXG_PG_READ_PHYSICAL] = "read_physical",
		[VDXG_PG_UPDATE_PAGE_TABLE] = "update_page_table",
		[VDXG_PG_COPY_PTES] = "copy_page_table_entries",
		[VDXG_PG_FLUSH_VM_TLB] = "flush_vm_tlb",
		[VDXG_PG_TRANSFER_VIRTUAL] = "transfer_virtual",
		[VDXG_PG_FILL_VIRTUAL] = "fill_virtual",
		[VDXG_PG_UPDATE_CONTEXT_ALLOC] = "update_context_allocation",
		[VDXG_PG_INIT_CONTEXT_RESOURCE] = "init_context_resource",
		[VDXG_PG_NOTIFY_RESIDENCY] = "notify_residency",
	};
	struct drm_debugfs_entry *entry = m->private;
	struct vdxg_paging *paging = &to_vdxg(entry->dev)->paging;
	struct vdxg_pg_stats stats;
	u32 max_passes, last_passes;
	u64 passes, batches;
	unsigned int i;

	spin_lock(&paging->stats_lock);
	stats = paging->stats;
	passes = paging->passes;
	batches = paging->batches;
	max_passes = paging->max_passes;
	last_passes = paging->last_passes;
	spin_unlock(&paging->stats_lock);

	seq_printf(m, "buffer_size: %u\nbuffers: %llu\nfaults: %d\n",
		   paging->buf_size, passes,
		   atomic_read(&to_vdxg(entry->dev)->faults));
	seq_printf(m, "batches: %llu\npasses_last: %u\npasses_max: %u\n",
		   batches, last_passes, max_passes);
	/* Every operation has its name: a new one needs one here. */
	static_assert(ARRAY_SIZE(ops) == VDXG_PG_NUM_OPS);
	for (i = 0; i < ARRAY_SIZE(ops); i++)
		seq_printf(m, "%s: %llu ops, %llu bytes\n",
			   ops[i] ?: "unnamed", stats.ops[i], stats.bytes[i]);
	return 0;
}

static int vdxg_debugfs_segments(struct seq_file *m, void *data)
{
	static const struct {
		const char *name;
		int type;
	} segs[] = {
		{ "vram", TTM_PL_VRAM },
		{ "aperture", TTM_PL_TT },
		{ "system", TTM_PL_SYSTEM },
	};
	struct drm_debugfs_entry *entry = m->private;
	struct vdxg_device *vdxg = to_vdxg(entry->dev);
	struct drm_printer p = drm_seq_file_printer(m);
	u64 vram, aperture;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(segs); i++) {
		struct ttm_resource_manager *man =
			ttm_manager_type(&vdxg->ttm, segs[i].type);

		drm_printf(&p, "%s: size %llu, used %llu\n", segs[i].name,
			   (u64)man->size << PAGE_SHIFT,
			   segs[i].type == TTM_PL_VRAM ?
			   vdxg_vram_mgr_used(vdxg) :
			   ttm_resource_manager_usage(man));
		ttm_resource_manager_debug(man, &p);
	}
	drm_printf(&p, "committed (all devices): %llu of %llu\n",
		   vdxg_bo_committed(), vdxg_bo_commit_limit());
	vdxg_ttm_engine_room(vdxg, &vram, &aperture);
	drm_printf(&p, "room_vram: %llu\nroom_aperture: %llu\n", vram,
		   aperture);
	return 0;
}

static int vdxg_debugfs_gart(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct vdxg_gart *gart = &to_vdxg(entry->dev)->gart;
	u32 i, start = 0, valid = 0;
	bool run = false;

	seq_printf(m, "entries: %u\n", gart->entries);
	for (i = 0; i <= gart->entries; i++) {
		bool v = i < gart->entries &&
			 (readq(gart->table + i) & VDXG_GART_PTE_VALID);

		if (v && !run)
			start = i;
		else if (!v && run)
			seq_printf(m, "pages %u-%u mapped\n", start, i - 1);
		valid += v;
		run = v;
	}
	seq_printf(m, "valid: %u\n", valid);
	return 0;
}

static int vdxg_debugfs_render(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct drm_printer p = drm_seq_file_printer(m);

	vdxg_render_debugfs(to_vdxg(entry->dev), &p);
	return 0;
}

static int vdxg_debugfs_sriov(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct drm_printer p = drm_seq_file_printer(m);

	vdxg_sriov_print(to_vdxg(entry->dev), &p);
	return 0;
}

static ssize_t vdxg_vram_fragment_write(struct file *f, const char __user *buf,
					size_t len, loff_t *pos)
{
	struct vdxg_device *vdxg = file_inode(f)->i_private;
	u64 chunk;
	int ret;

	ret = kstrtou64_from_user(buf, len, 0, &chunk);
	if (ret)
		return ret;
	if (chunk && (chunk < SZ_64K || !PAGE_ALIGNED(chunk)))
		return -EINVAL;
	ret = vdxg_vram_mgr_fragment(vdxg, chunk);
	return ret ?: len;
}

static const struct file_operations vdxg_vram_fragment_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = vdxg_vram_fragment_write,
	.llseek = default_llseek,
};

static ssize_t vdxg_paging_inject_write(struct file *f,
					const char __user *buf, size_t len,
					loff_t *pos)
{
	struct vdxg_device *vdxg = file_inode(f)->i_private;
	unsigned int n;
	int ret;

	ret = kstrtouint_from_user(buf, len, 0, &n);
	if (ret)
		return ret;
	if (n > 16)
		return -EINVAL;
	while (n-- && !ret)
		ret = vdxg_paging_inject_fault(vdxg);
	return ret ?: len;
}

static const struct file_operations vdxg_paging_inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = vdxg_paging_inject_write,
	.llseek = default_llseek,
};

static ssize_t vdxg_paging_hold_write(struct file *f, const char __user *buf,
				      size_t len, loff_t *pos)
{
	struct vdxg_device *vdxg = file_inode(f)->i_private;
	bool hold;
	int ret;

	ret = kstrtobool_from_user(buf, len, &hold);
	if (ret)
		return ret;
	vdxg_paging_hold(vdxg, hold);
	return len;
}

static const struct file_operations vdxg_paging_hold_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = vdxg_paging_hold_write,
	.llseek = default_llseek,
};

static int vdxg_debugfs_faults(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct drm_printer p = drm_seq_file_printer(m);

	vdxg_fault_debugfs(to_vdxg(entry->dev), &p);
	return 0;
}

static const struct drm_debugfs_info vdxg_debugfs_list[] = {
	{ "resources", vdxg_debugfs_resources, 0 },
	{ "interrupts", vdxg_debugfs_interrupts, 0 },
	{ "faults", vdxg_debugfs_faults, 0 },
};

static const struct drm_debugfs_info vdxg_debugfs_mm_list[] = {
	{ "paging", vdxg_debugfs_paging, 0 },
	{ "segments", vdxg_debugfs_segments, 0 },
	{ "gart", vdxg_debugfs_gart, 0 },
	{ "render", vdxg_debugfs_render, 0 },
};

/**
 * vdxg_debugfs_init - register the device's debugfs files
 * @vdxg: the device
 *
 * Called before drm_dev_register(), which creates them.
 */
void vdxg_debugfs_init(struct vdxg_device *vdxg)
{
	drm_debugfs_add_files(&vdxg->drm, vdxg_debugfs_list,
			      ARRAY_SIZE(vdxg_debugfs_list));
	if (!(vdxg->caps & VDXG_CAP_PAGING))
		return;
	drm_debugfs_add_files(&vdxg->drm, vdxg_debugfs_mm_list,
			      ARRAY_SIZE(vdxg_debugfs_mm_list));
	if (!vdxg->pdev->is_virtfn)
		debugfs_create_file("vram_fragment", 0200,
				    vdxg->drm.debugfs_root, vdxg,
				    &vdxg_vram_fragment_fops);
	debugfs_create_file("paging_inject_fault", 0200,
			    vdxg->drm.debugfs_root, vdxg,
			    &vdxg_paging_inject_fops);
	debugfs_create_file("paging_hold", 0200, vdxg->drm.debugfs_root, vdxg,
			    &vdxg_paging_hold_fops);
	if (vdxg->sriov.total_vfs)
		drm_debugfs_add_file(&vdxg->drm, "sriov", vdxg_debugfs_sriov,
				     NULL);
	vdxg_vm_debugfs_init(vdxg);
}
