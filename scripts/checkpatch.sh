#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# checkpatch --strict over the driver and the uapi header, with the
# kernel's own script from the Debian linux-source tarball.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

src=$VDXG_CACHE/checkpatch
cp=$src/scripts/checkpatch.pl
if [ ! -x "$cp" ]; then
	tarball=$(vdxg_linux_tarball)
	[ -n "$tarball" ] || die "linux-source-6.12 is not installed (scripts/setup.sh)"
	mkdir -p "$src"
	tar -xf "$tarball" -C "$src" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
fi

cd "$VDXG_TOP"
files=(drivers/gpu/drm/vdxg/*.[ch] drivers/gpu/drm/vdxg/tests/*.[ch]
       uapi/drm/vdxg_drm.h)
existing=()
for f in "${files[@]}"; do
	case "$f" in *.mod.c) continue ;; esac
	[ -f "$f" ] && existing+=("$f")
done
out=$("$cp" --no-tree --strict --quiet --show-types -f "${existing[@]}" || true)
if [ -n "$out" ]; then
	echo "$out"
	die "checkpatch found problems"
fi
echo "checkpatch: ${#existing[@]} files clean"
