// SPDX-License-Identifier: MIT
/*
 * vdxg-asm: assemble and disassemble the 3D pipeline's shader programs
 * (docs/shader-asm.md) with libvdxg.
 *
 * Usage: vdxg-asm [-d] [-o OUT] [IN]
 *   assemble the text IN (default stdin) into a binary program on OUT
 *   (default stdout); with -d, list the binary program IN as text. An
 *   error is printed as IN:line:column (or IN: byte 0x...) and exits 1.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vdxg.h"

static void usage(void)
{
	fprintf(stderr, "usage: vdxg-asm [-d] [-o OUT] [IN]\n");
	exit(2);
}

/* All of F, NUL-terminated; *LEN its length. */
static char *slurp(FILE *f, size_t *len)
{
	size_t cap = 4096, n = 0, k;
	char *buf = malloc(cap + 1);

	while (buf && (k = fread(buf + n, 1, cap - n, f)) > 0) {
		n += k;
		if (n == cap) {
			char *p = realloc(buf, 2 * cap + 1);

			if (!p) {
				free(buf);
				return NULL;
			}
			buf = p;
			cap *= 2;
		}
	}
	if (!buf || ferror(f)) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

int main(int argc, char **argv)
{
	const char *in_name = "-", *out_name = NULL, *name;
	bool disasm = false;
	FILE *in = stdin, *out = stdout;
	char msg[256] = "", *buf, *text = NULL;
	uint32_t *prog = NULL, size = 0;
	size_t len;
	int opt, ret;

	while ((opt = getopt(argc, argv, "do:h")) != -1) {
		switch (opt) {
		case 'd':
			disasm = true;
			break;
		case 'o':
			out_name = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind + 1 < argc)
		usage();
	if (optind < argc)
		in_name = argv[optind];
	name = strcmp(in_name, "-") ? in_name : "<stdin>";
	if (strcmp(in_name, "-")) {
		in = fopen(in_name, "rb");
		if (!in) {
			fprintf(stderr, "vdxg-asm: %s: %s\n", in_name,
				strerror(errno));
			return 1;
		}
	}
	buf = slurp(in, &len);
	if (!buf) {
		fprintf(stderr, "vdxg-asm: %s: cannot read\n", name);
		return 1;
	}
	if (disasm) {
		ret = len > UINT32_MAX ? -ERANGE :
		      vdxg_disasm(buf, (uint32_t)len, &text, msg, sizeof(msg));
		if (ret == -ERANGE && !msg[0])
			snprintf(msg, sizeof(msg), "%zu bytes", len);
	} else {
		if (strlen(buf) != len) {
			fprintf(stderr, "vdxg-asm: %s: a NUL byte in the text (a binary? use -d)\n",
				name);
			return 1;
		}
		ret = vdxg_asm(buf, &prog, &size, msg, sizeof(msg));
	}
	/* An invalid program still lists: print it, then the error. */
	if (out_name && (!ret || text)) {
		out = fopen(out_name, "wb");
		if (!out) {
			fprintf(stderr, "vdxg-asm: %s: %s\n", out_name,
				strerror(errno));
			return 1;
		}
	}
	if (text)
		fputs(text, out);
	else if (prog)
		fwrite(prog, 1, size, out);
	if (fflush(out) || ferror(out)) {
		fprintf(stderr, "vdxg-asm: cannot write the output\n");
		return 1;
	}
	if (ret) {
		fprintf(stderr, "%s:%s%s\n", name,
			isdigit((unsigned char)msg[0]) ? "" : " ",
			msg[0] ? msg : vdxg_strerror(ret));
		return 1;
	}
	free(buf);
	free(text);
	free(prog);
	return 0;
}
