/* SPDX-License-Identifier: MIT */
/*
 * vhostd: the guest's end of scripts/vm.sh's host channel (the serial
 * port named by vdxgvm.hostd= on the kernel command line, answered by
 * scripts/vm-hostd.py), for tests that need only libc: the host's
 * screendump of a display head as a binary PPM, and hotplug.

 */
#ifndef VHOSTD_H
#define VHOSTD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vhostd {
	int fd;
	char rbuf[8192];
	size_t rlen, rpos;
};

/* Open the channel; false (and H->fd -1) when the kernel command line
 * names none (not under scripts/vm.sh, or --interactive). */
bool vhostd_open(struct vhostd *h);
void vhostd_close(struct vhostd *h);

/*
 * The host's screendump of console HEAD (the vdxg CRTC) as a PPM in a
 * malloc()ed buffer of *LEN bytes; TAG (up to 16 characters of
 * [A-Za-z0-9._-]) names it in the request and in the host's copy
 * (out/vm/RUN/screendump-TAG-PID-N.ppm). A lost or damaged answer is
 * asked for again, three times at most; then, or when the host refuses,
 * the subtest fails.
 */
uint8_t *vhostd_screendump(struct vhostd *h, const char *tag, int head,
			   size_t *len);
/*
 * The same screendump's length and CRC-32 alone (the host keeps the
 * image): a few bytes through the 16550 instead of the picture, for a
 * test that knows what the screen must show.
 */
void vhostd_screendump_crc(struct vhostd *h, const char *tag, int head,
			   size_t *len, uint32_t *crc);
/*
 * Set the device's QOM property PROP (connected0..3, link-bad0..3) to
 * VALUE: a hotplug, or a failed link. Fails the subtest when the host
 * refuses.
 */
void vhostd_qom_set(struct vhostd *h, const char *prop, bool value);
/* zlib's CRC-32 of N bytes at DATA, continuing CRC (0 to start). */
uint32_t vhostd_crc32(uint32_t crc, const void *data, size_t n);

#endif /* VHOSTD_H */
