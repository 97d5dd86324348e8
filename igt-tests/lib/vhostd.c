// SPDX-License-Identifier: MIT
/*
 * vhostd: scripts/vm-hostd.py's protocol over a serial port, with libc
 * only: a request line, then an answer of a header line, base64 lines
 * and an end line (or one error line). See vhostd.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "vhostd.h"
#include "vtest.h"

/* zlib's CRC-32 (what the host sends), a byte at a time by a table. */
uint32_t vhostd_crc32(uint32_t crc, const void *data, size_t n)
{
	static uint32_t table[256];
	const uint8_t *p = data;

	if (!table[1]) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;

			for (int k = 0; k < 8; k++)
				c = c >> 1 ^ (0xedb88320 & -(c & 1));
			table[i] = c;
		}
	}
	crc = ~crc;
	while (n--)
		crc = table[(crc ^ *p++) & 0xff] ^ crc >> 8;
	return ~crc;
}

static int b64_value(int ch)
{
	if (ch >= 'A' && ch <= 'Z')
		return ch - 'A';
	if (ch >= 'a' && ch <= 'z')
		return ch - 'a' + 26;
	if (ch >= '0' && ch <= '9')
		return ch - '0' + 52;
	if (ch == '+')
		return 62;
	if (ch == '/')
		return 63;
	return -1;
}

/* Decode base64 (whitespace ignored, '=' ends) into OUT; bytes or -1. */
static long b64_decode(const char *in, size_t n, uint8_t *out, size_t max)
{
	uint32_t acc = 0;
	size_t len = 0, i;
	int bits = 0;

	for (i = 0; i < n && in[i] != '='; i++) {
		int v = b64_value((unsigned char)in[i]);

		if (v < 0) {
			if (in[i] == '\n' || in[i] == '\r' || in[i] == ' ')
				continue;
			return -1;
		}
		acc = acc << 6 | v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (len >= max)
				return -1;
			out[len++] = acc >> bits & 0xff;
		}
	}
	return len;
}

bool vhostd_open(struct vhostd *h)
{
	char tty[32], path[64];
	struct termios tio;

	memset(h, 0, sizeof(*h));
	h->fd = -1;
	if (!vtest_cmdline_get("vdxgvm.hostd", tty, sizeof(tty)) || !*tty)
		return false;
	snprintf(path, sizeof(path), "/dev/%s", tty);
	h->fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	vtest_assert_f(h->fd >= 0, "opening the host channel %s: %s", path,
		       strerror(errno));
	vtest_assert_ok(tcgetattr(h->fd, &tio));
	cfmakeraw(&tio);
	cfsetispeed(&tio, B115200);
	cfsetospeed(&tio, B115200);
	tio.c_cflag |= CLOCAL | CREAD;
	tio.c_cflag &= ~CRTSCTS;
	tio.c_cc[VMIN] = 1;
	tio.c_cc[VTIME] = 0;
	vtest_assert_ok(tcsetattr(h->fd, TCSANOW, &tio));
	tcflush(h->fd, TCIFLUSH);
	return true;
}

void vhostd_close(struct vhostd *h)
{
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
}

/* One line (without its newline) into *LINE, grown as needed; false after
 * TIMEOUT_MS without any byte. */
static bool hostd_line(struct vhostd *h, char **line, size_t *cap,
		       int timeout_ms)
{
	size_t len = 0;

	for (;;) {
		while (h->rpos < h->rlen) {
			char c = h->rbuf[h->rpos++];

			if (len + 1 >= *cap) {
				*cap = *cap ? *cap * 2 : 256;
				*line = realloc(*line, *cap);
				vtest_assert(*line);
			}
			if (c == '\n') {
				(*line)[len] = 0;
				return true;
			}
			(*line)[len++] = c;
		}
		struct pollfd p = { .fd = h->fd, .events = POLLIN };
		ssize_t n;
		int r = poll(&p, 1, timeout_ms);

		if (r < 0 && errno == EINTR)
			continue;
		vtest_assert_f(r >= 0, "poll: %s", strerror(errno));
		if (r == 0)
			return false;
		n = read(h->fd, h->rbuf, sizeof(h->rbuf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		vtest_assert_f(n > 0, "reading the host channel: %s",
			       n ? strerror(errno) : "end of file");
		h->rlen = n;
		h->rpos = 0;
	}
}

static void write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		vtest_assert_f(n > 0, "write: %s", strerror(errno));
		p += n;
		len -= n;
	}
}

static uint8_t *read_whole(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *buf;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	vtest_assert_f(fd >= 0, "%s: %s", path, strerror(errno));
	vtest_assert_ok(fstat(fd, &st));
	buf = malloc(st.st_size + 1);
	vtest_assert(buf);
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, st.st_size - got);

		vtest_assert_f(n > 0, "%s: %s", path, strerror(errno));
		got += n;
	}
	close(fd);
	*len = got;
	return buf;
}

/*
 * One attempt, for the image (ENC gz) or for its length and CRC alone
 * (ENC none: *CRC, and a non-NULL pointer to nothing); NULL with *WHY set
 * when the answer was lost or damaged (worth asking again), a failure
 * when the host refused.
 */
static uint8_t *try_screendump(struct vhostd *h, const char *id, int head,
			       const char *want, const char **why, size_t *len,
			       uint32_t *crc_out)
{
	char req[128], *line = NULL, *b64 = NULL, enc[8];
	size_t cap = 0, b64_len = 0, b64_cap = 0, rawlen = 0, paylen = 0;
	unsigned int crc = 0;
	uint8_t *payload, *raw = NULL;
	bool begun = false;
	long n;

	/* gz: a cube on a plain background compresses well, and the
	 * guest's CPU reads every byte of the answer off the 16550. */
	snprintf(req, sizeof(req), "VDXG-HOST %s screendump %d %s\n", id, head,
		 want);
	tcflush(h->fd, TCIFLUSH);
	h->rlen = h->rpos = 0;
	write_all(h->fd, req, strlen(req));

	for (;;) {
		char tag[32], rid[40];

		/* A minute without a byte: lost (the answer streams steadily). */
		if (!hostd_line(h, &line, &cap, 60 * 1000)) {
			*why = "timeout";
			goto out;
		}
		if (!begun) {
			if (sscanf(line, "%31s %39s", tag, rid) != 2 ||
			    strcmp(rid, id))
				continue;	/* an older answer */
			if (!strcmp(tag, "VDXG-HOST-ERROR"))
				vtest_fail("host screendump %s failed: %s", id,
					   line);
			if (strcmp(tag, "VDXG-HOST-BEGIN"))
				continue;
			vtest_assert_f(sscanf(line, "%*s %*s %7s %zu %x %zu",
					      enc, &rawlen, &crc, &paylen) == 4,
				       "bad answer header '%s'", line);
			begun = true;
			continue;
		}
		if (!strncmp(line, "VDXG-HOST-END ", 14)) {
			if (strcmp(line + 14, id)) {
				*why = "answer ended with another id";
				goto out;
			}
			break;
		}
		n = strlen(line);
		if (b64_len + n + 1 > b64_cap) {
			b64_cap = (b64_len + n + 1) * 2 + paylen * 4 / 3;
			b64 = realloc(b64, b64_cap);
			vtest_assert(b64);
		}
		memcpy(b64 + b64_len, line, n);
		b64_len += n;
	}

	vtest_assert_f(!strcmp(enc, want), "asked for %s, the host sent %s",
		       want, enc);
	if (!strcmp(enc, "none")) {
		*len = rawlen;
		*crc_out = crc;
		raw = malloc(1);
		vtest_assert(raw);
		goto out;
	}
	payload = malloc(paylen + 16);
	vtest_assert(payload);
	n = b64_decode(b64 ? b64 : "", b64_len, payload, paylen + 16);
	if (n != (long)paylen) {
		free(payload);
		*why = "payload length";
		goto out;
	}
	if (!strcmp(enc, "gz")) {
		char gz[64], ppm[64];
		int fd;

		snprintf(gz, sizeof(gz), "/tmp/vhostd-%d.gz", (int)getpid());
		snprintf(ppm, sizeof(ppm), "/tmp/vhostd-%d.ppm", (int)getpid());
		fd = open(gz, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		vtest_assert_f(fd >= 0, "%s: %s", gz, strerror(errno));
		write_all(fd, payload, paylen);
		close(fd);
		free(payload);
		if (vtest_system("gzip -dc %s > %s", gz, ppm)) {
			unlink(gz);
			*why = "gunzip";
			goto out;
		}
		raw = read_whole(ppm, len);
		unlink(gz);
		unlink(ppm);
	} else {
		vtest_assert_f(!strcmp(enc, "raw"), "encoding %s", enc);
		raw = payload;
		*len = paylen;
	}
	if (*len != rawlen || vhostd_crc32(0, raw, *len) != crc) {
		free(raw);
		raw = NULL;
		*why = "length or CRC of the image";
	}
out:
	free(line);
	free(b64);
	return raw;
}

/* The request, asked again when the answer was lost or damaged. */
static uint8_t *screendump(struct vhostd *h, const char *tag, int head,
			   const char *want, size_t *len, uint32_t *crc)
{
	static unsigned int seq;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int attempt = 0; attempt < 3; attempt++) {
		const char *why = NULL;
		char id[40];
		uint8_t *ppm;

		snprintf(id, sizeof(id), "%.16s-%d-%u", tag, (int)getpid(),
			 seq++);
		ppm = try_screendump(h, id, head, want, &why, len, crc);
		if (ppm) {
			clock_gettime(CLOCK_MONOTONIC, &t1);
			vtest_info("screendump %s: %zu bytes%s in %.1f s", id,
				   *len, strcmp(want, "none") ? "" :
				   " (their CRC)",
				   (double)(t1.tv_sec - t0.tv_sec) +
				   (t1.tv_nsec - t0.tv_nsec) / 1e9);
			return ppm;
		}
		vtest_info("screendump %s lost (%s); asking again", id, why);
	}
	vtest_fail("no screendump from the host after 3 attempts");
}

uint8_t *vhostd_screendump(struct vhostd *h, const char *tag, int head,
			   size_t *len)
{
	uint32_t crc;

	return screendump(h, tag, head, "gz", len, &crc);
}

void vhostd_screendump_crc(struct vhostd *h, const char *tag, int head,
			   size_t *len, uint32_t *crc)
{
	free(screendump(h, tag, head, "none", len, crc));
}

void vhostd_qom_set(struct vhostd *h, const char *prop, bool value)
{
	static unsigned int seq;
	char req[128], id[40], *line = NULL;
	size_t cap = 0;

	snprintf(id, sizeof(id), "qom-%d-%u", (int)getpid(), seq++);
	snprintf(req, sizeof(req), "VDXG-HOST %s qom-set %s %s\n", id, prop,
		 value ? "true" : "false");
	tcflush(h->fd, TCIFLUSH);
	h->rlen = h->rpos = 0;
	write_all(h->fd, req, strlen(req));
	for (;;) {
		char tag[32], rid[40];

		vtest_assert_f(hostd_line(h, &line, &cap, 60 * 1000),
			       "no answer to qom-set %s", prop);
		if (sscanf(line, "%31s %39s", tag, rid) != 2 || strcmp(rid, id))
			continue;
		if (!strcmp(tag, "VDXG-HOST-ERROR"))
			vtest_fail("host qom-set %s failed: %s", prop, line);
		if (!strcmp(tag, "VDXG-HOST-END"))
			break;
	}
	free(line);
	vtest_info("host: %s = %s", prop, value ? "true" : "false");
}
