/* SPDX-License-Identifier: MIT */
/*
 * voutput: the display output a KMS test uses, for tests that speak the
 * vtest protocol.
 */
#ifndef VOUTPUT_H
#define VOUTPUT_H

#include <stdint.h>

#include <xf86drmMode.h>

struct voutput {
	uint32_t crtc_id;
	uint32_t conn_id;
	int head;			/* the CRTC's index */
	drmModeModeInfo mode;		/* preferred, else the first */
	uint32_t w, h;			/* the mode's size */
};

/*
 * Become DRM master on FD and find the first connected connector with
 * modes (writeback connectors excluded), a CRTC its first encoder drives,
 * and its mode. Skips the test when there is none.
 */
void voutput_find(int fd, struct voutput *o);

#endif /* VOUTPUT_H */
