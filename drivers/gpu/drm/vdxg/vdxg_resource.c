// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The vdxg authors
 */

#include <linux/errno.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/overflow.h>

#include <drm/drm_print.h>

#include "vdxg_resource.h"

/**
 * DOC: Resource descriptors
 *
 * vdxg states what it needs from the platform the way a WDDM miniport does
 * with an IO_RESOURCE_LIST: one descriptor per resource, each with a type
 * (memory, interrupt), a share disposition, type-specific flags and the
 * range it accepts (length, alignment, minimum and maximum address, or a
 * vector range).
 *
 * Each descriptor is *required*, *preferred* or *alternative*. A preferred
 * descriptor starts a group; the alternative descriptors that follow it are
 * tried, in order, only when everything before them failed. The interrupt
 * group is MSI-X (preferred), then MSI, then INTx.
 *
 * This file is pure logic with no PCI or MMIO access, so KUnit tests it
 * under UML. The device-specific code supplies a callback that tries one
 * option on the real hardware; this file walks the options and records the
 * outcome, which debugfs shows as ``resources``.
 */

static bool vdxg_res_is_mem(const struct vdxg_res_desc *d)
{
	return d->type == VDXG_RES_TYPE_MEMORY ||
	       d->type == VDXG_RES_TYPE_MEMORY_LARGE;
}

static int vdxg_res_check(const struct vdxg_res_desc *d)
{
	u64 span;

	switch (d->type) {
	case VDXG_RES_TYPE_MEMORY:
	case VDXG_RES_TYPE_MEMORY_LARGE:
		if (!d->u.mem.length || !is_power_of_2(d->u.mem.alignment))
			return -EINVAL;
		if (d->u.mem.min_addr > d->u.mem.max_addr)
			return -EINVAL;
		span = d->u.mem.max_addr - d->u.mem.min_addr;
		if (d->u.mem.length - 1 > span)
			return -EINVAL;
		return 0;
	case VDXG_RES_TYPE_INTERRUPT:
		if (d->u.irq.min_vector > d->u.irq.max_vector)
			return -EINVAL;
		return 0;
	default:
		return -EINVAL;
	}
}

/**
 * vdxg_res_add - append a descriptor to a resource list
 * @list: the list
 * @desc: the descriptor; its outcome fields are reset
 *
 * An alternative descriptor must follow a preferred or alternative one of
 * the same type.
 *
 * Return: the descriptor's index, or -EINVAL for a malformed descriptor,
 * -ENOSPC when the list is full.
 */
int vdxg_res_add(struct vdxg_res_list *list, const struct vdxg_res_desc *desc)
{
	const struct vdxg_res_desc *prev;
	struct vdxg_res_desc *d;
	int ret;

	if (list->count >= ARRAY_SIZE(list->desc))
		return -ENOSPC;

	ret = vdxg_res_check(desc);
	if (ret)
		return ret;

	switch (desc->option) {
	case VDXG_IO_RESOURCE_REQUIRED:
	case VDXG_IO_RESOURCE_PREFERRED:
		break;
	case VDXG_IO_RESOURCE_ALTERNATIVE:
		if (!list->count)
			return -EINVAL;
		prev = &list->desc[list->count - 1];
		if (prev->option == VDXG_IO_RESOURCE_REQUIRED ||
		    prev->type != desc->type)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}

	d = &list->desc[list->count];
	*d = *desc;
	d->state = VDXG_RES_UNTRIED;
	d->error = 0;
	d->start = 0;
	d->len = 0;

	return list->count++;
}

/* Index one past the last option of the group that starts at @first. */
static unsigned int vdxg_res_group_end(const struct vdxg_res_list *list,
				       unsigned int first)
{
	unsigned int i = first + 1;

	if (list->desc[first].option == VDXG_IO_RESOURCE_REQUIRED)
		return i;
	while (i < list->count &&
	       list->desc[i].option == VDXG_IO_RESOURCE_ALTERNATIVE)
		i++;
	return i;
}

/**
 * vdxg_res_choose - take the first option of a group that works
 * @list: the list
 * @first: index of a required or preferred descriptor
 * @try: called for each option in order; returns 0 when it took the option
 *	and filled in @start and @len, or a negative errno
 * @ctx: passed to @try
 *
 * Return: the index of the option taken, or the error of the last option
 * tried. -EINVAL when @first does not start a group.
 */
int vdxg_res_choose(struct vdxg_res_list *list, unsigned int first,
		    vdxg_res_try_fn try, void *ctx)
{
	unsigned int i, end;
	int ret = -ENODEV;

	if (first >= list->count ||
	    list->desc[first].option == VDXG_IO_RESOURCE_ALTERNATIVE)
		return -EINVAL;

	/* Choosing again starts from a clean group. */
	vdxg_res_release(list, first);
	end = vdxg_res_group_end(list, first);
	for (i = first; i < end; i++) {
		struct vdxg_res_desc *d = &list->desc[i];

		ret = try(ctx, d);
		if (!ret) {
			d->state = VDXG_RES_ASSIGNED;
			d->error = 0;
			return i;
		}
		d->state = VDXG_RES_FAILED;
		d->error = ret;
	}

	return ret;
}

/**
 * vdxg_res_release - forget the outcome of a group
 * @list: the list
 * @first: index of the group's first descriptor
 *
 * Used when the resource is given back, e.g. on driver unbind.
 */
void vdxg_res_release(struct vdxg_res_list *list, unsigned int first)
{
	unsigned int i, end;

	if (first >= list->count)
		return;

	end = vdxg_res_group_end(list, first);
	for (i = first; i < end; i++) {
		list->desc[i].state = VDXG_RES_UNTRIED;
		list->desc[i].error = 0;
		list->desc[i].start = 0;
		list->desc[i].len = 0;
	}
}

/**
 * vdxg_res_mem_fits - does an assigned range satisfy a memory descriptor
 * @desc: a memory descriptor
 * @start: assigned bus address
 * @len: assigned length
 *
 * Return: true when @len is at least the descriptor's length, @start has
 * its alignment, and the range lies within its minimum and maximum address.
 */
bool vdxg_res_mem_fits(const struct vdxg_res_desc *desc, u64 start, u64 len)
{
	u64 last;

	if (!vdxg_res_is_mem(desc) || !len || len < desc->u.mem.length)
		return false;
	if (start & (desc->u.mem.alignment - 1))
		return false;
	if (check_add_overflow(start, len - 1, &last))
		return false;

	return start >= desc->u.mem.min_addr && last <= desc->u.mem.max_addr;
}

static const char *vdxg_res_option_name(u8 option)
{
	switch (option) {
	case VDXG_IO_RESOURCE_REQUIRED:
		return "required";
	case VDXG_IO_RESOURCE_PREFERRED:
		return "preferred";
	case VDXG_IO_RESOURCE_ALTERNATIVE:
		return "alternative";
	default:
		return "default";
	}
}

static const char *vdxg_res_type_name(u8 type)
{
	switch (type) {
	case VDXG_RES_TYPE_PORT:
		return "Port";
	case VDXG_RES_TYPE_INTERRUPT:
		return "Interrupt";
	case VDXG_RES_TYPE_MEMORY:
		return "Memory";
	case VDXG_RES_TYPE_MEMORY_LARGE:
		return "MemoryLarge";
	default:
		return "Unknown";
	}
}

static const char *vdxg_res_share_name(u8 share)
{
	static const char * const names[] = {
		[VDXG_RES_SHARE_UNDETERMINED] = "Undetermined",
		[VDXG_RES_SHARE_DEVICE_EXCLUSIVE] = "DeviceExclusive",
		[VDXG_RES_SHARE_DRIVER_EXCLUSIVE] = "DriverExclusive",
		[VDXG_RES_SHARE_SHARED] = "Shared",
	};

	return share < ARRAY_SIZE(names) ? names[share] : "Unknown";
}

static void vdxg_res_print_flags(const struct vdxg_res_desc *d, char *buf,
				 size_t size)
{
	if (d->type == VDXG_RES_TYPE_INTERRUPT) {
		snprintf(buf, size, "%s%s",
			 d->flags & VDXG_RES_IRQ_LATCHED ?
			 "LATCHED" : "LEVEL_SENSITIVE",
			 d->flags & VDXG_RES_IRQ_MESSAGE ? "|MESSAGE" : "");
		return;
	}
	snprintf(buf, size, "%s%s%s%s",
		 d->flags & VDXG_RES_MEM_READ_ONLY ? "READ_ONLY" : "READ_WRITE",
		 d->flags & VDXG_RES_MEM_PREFETCHABLE ? "|PREFETCHABLE" : "",
		 d->flags & VDXG_RES_MEM_COMBINEDWRITE ? "|COMBINEDWRITE" : "",
		 d->flags & VDXG_RES_MEM_LARGE_64 ? "|LARGE_64" : "");
}

static void vdxg_res_print_one(const struct vdxg_res_desc *d, unsigned int i,
			       struct drm_printer *p)
{
	char flags[64];

	vdxg_res_print_flags(d, flags, sizeof(flags));
	drm_printf(p, "[%u] %s\n", i, d->name);
	drm_printf(p, "\ttype: %s\n\toption: %s\n\tshare: %s\n\tflags: 0x%04x %s\n",
		   vdxg_res_type_name(d->type), vdxg_res_option_name(d->option),
		   vdxg_res_share_name(d->share), d->flags, flags);

	if (d->type == VDXG_RES_TYPE_INTERRUPT)
		drm_printf(p, "\tvectors: %u-%u\n",
			   d->u.irq.min_vector, d->u.irq.max_vector);
	else
		drm_printf(p, "\tlength: 0x%llx\n\talignment: 0x%llx\n"
			   "\tmin_address: 0x%llx\n\tmax_address: 0x%llx\n",
			   d->u.mem.length, d->u.mem.alignment,
			   d->u.mem.min_addr, d->u.mem.max_addr);

	switch (d->state) {
	case VDXG_RES_ASSIGNED:
		if (d->type == VDXG_RES_TYPE_INTERRUPT)
			drm_printf(p, "\tassigned: irq %llu, %llu vector(s)\n",
				   d->start, d->len);
		else
			drm_printf(p, "\tassigned: 0x%llx-0x%llx (0x%llx)\n",
				   d->start, d->start + d->len - 1, d->len);
		break;
	case VDXG_RES_FAILED:
		drm_printf(p, "\tassigned: no (failed: %d)\n", d->error);
		break;
	default:
		drm_printf(p, "\tassigned: no (not tried)\n");
		break;
	}
}

/**
 * vdxg_res_print - print a resource list and its outcome
 * @list: the list
 * @p: where to print
 */
void vdxg_res_print(const struct vdxg_res_list *list, struct drm_printer *p)
{
	unsigned int i;

	for (i = 0; i < list->count; i++)
		vdxg_res_print_one(&list->desc[i], i, p);
}
