// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/seq_file.h>

#include <drm/drm_debugfs.h>
#include <drm/drm_print.h>

#include "vdxg_drv.h"

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

static const struct drm_debugfs_info vdxg_debugfs_list[] = {
	{ "resources", vdxg_debugfs_resources, 0 },
	{ "interrupts", vdxg_debugfs_interrupts, 0 },
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
}
