#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# KUnit tests of the driver's pure logic, under UML, with kunit.py from the
# Debian linux-source-6.12 tree:
#
#   scripts/kunit.sh [kunit.py run options, e.g. --filter_glob='vdxg_res*']
#
# The tree is unpacked once into $VDXG_CACHE/kunit/<key>/src, keyed by the
# tarball's package version and hash; the driver and its uapi header are
# synced into it and hooked into drivers/gpu/drm. The UML build directory
# sits next to it, so warm runs only rebuild what changed. The build is W=1
# and any warning in vdxg's files fails the run.
#
# The last line is "N passed, N failed"; the exit status is non-zero when a
# test failed or crashed, nothing ran, or the build failed or warned.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

DRV=$VDXG_TOP/drivers/gpu/drm/vdxg
UAPI=$VDXG_TOP/uapi/drm/vdxg_drm.h
JOBS=${VDXG_JOBS:-$(nproc)}

summary() {
	echo "$1 passed, $2 failed"
}

tarball=$(vdxg_linux_tarball)
[ -n "$tarball" ] || die "linux-source-6.12 is not installed (scripts/setup.sh)"
for tool in rsync flock bc flex bison; do
	command -v "$tool" >/dev/null || die "$tool is missing (scripts/setup.sh)"
done

# The key: the package version (readable) and the tarball's hash (exact).
key=$(vdxg_linux_source_key "$tarball")
top=$VDXG_CACHE/kunit
src=$top/$key/src
build=$top/$key/build-um

mkdir -p "$top"
# One run at a time per cache: the tree and the build directory are shared.
exec 9>"$top/lock"
flock 9

# Unpack once, atomically; drop trees of older tarballs.
if [ ! -f "$src/.vdxg-unpacked" ]; then
	for old in "$top"/linux-source-*; do
		[ "$old" = "$top/$key" ] || [ ! -d "$old" ] || rm -rf "$old"
	done
	vdxg_unpack_linux_source "$tarball" "$src"
fi

# The driver's sources only (no out-of-tree build products). rsync keeps
# the mtimes, so make rebuilds only what changed.
rsync -rt --delete --delete-excluded \
	--exclude='*.mod.c' --include='*/' --include='*.[ch]' \
	--include=Kbuild --include=Kconfig --include=Makefile \
	--include=.kunitconfig --exclude='*' \
	"$DRV/" "$src/drivers/gpu/drm/vdxg/"
rsync -t "$UAPI" "$src/include/uapi/drm/vdxg_drm.h"

# Hook vdxg into drivers/gpu/drm, once.
kconfig=$src/drivers/gpu/drm/Kconfig
if ! grep -q '^source "drivers/gpu/drm/vdxg/Kconfig"' "$kconfig"; then
	# Inside "if DRM", after the last driver's Kconfig.
	awk -v n="$(grep -n '^source "drivers/gpu/drm/.*/Kconfig"' "$kconfig" |
		    tail -n1 | cut -d: -f1)" '
		{ print }
		NR == n { print "source \"drivers/gpu/drm/vdxg/Kconfig\"" }
	' "$kconfig" >"$kconfig.tmp"
	grep -q '^source "drivers/gpu/drm/vdxg/Kconfig"' "$kconfig.tmp" ||
		echo 'source "drivers/gpu/drm/vdxg/Kconfig"' >>"$kconfig.tmp"
	mv "$kconfig.tmp" "$kconfig"
fi
makefile=$src/drivers/gpu/drm/Makefile
if ! grep -q 'vdxg/' "$makefile"; then
	cat >>"$makefile" <<'EOF'
obj-$(CONFIG_DRM_VDXG) += vdxg/
obj-$(CONFIG_DRM_VDXG_KUNIT_TEST) += vdxg/
EOF
fi

mkdir -p "$build" "$VDXG_OUT/logs"
# W=1 adds -Wmissing-include-dirs and then tests -Wunused-const-variable
# with -Werror and the include path. In a new build directory the generated
# include directories do not exist yet, so the test fails, the flag is left
# out, and the next build recompiles everything with it. Create them first.
mkdir -p "$build"/arch/{um,x86}/include/generated/uapi \
	"$build"/include/generated/uapi
log=$VDXG_OUT/logs/kunit.log
echo "kunit: $src"
echo "kunit: build directory $build"
cd "$src"
set +e
python3 ./tools/testing/kunit/kunit.py run \
	--kunitconfig=drivers/gpu/drm/vdxg \
	--build_dir="$build" --jobs="$JOBS" --make_options W=1 \
	"$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e

# kunit.py prints the build's warnings. vdxg's must not have any; forget
# its objects so that the next run compiles them again and shows them.
warnings=$(grep -E 'drivers/gpu/drm/vdxg/.*(warning|error):|(warning|error):.*drivers/gpu/drm/vdxg/|vdxg.*is added to multiple modules' \
	   "$log" || true)
if [ -n "$warnings" ]; then
	find "$build/drivers/gpu/drm/vdxg" -name '*.o' -delete 2>/dev/null || true
	echo
	echo "kunit: warnings in vdxg:"
	echo "$warnings"
fi

# "Testing complete. Ran 47 tests: passed: 45, failed: 1, crashed: 1"
line=$(grep -oE 'Testing complete\. Ran [0-9]+ tests:.*' "$log" | tail -n1 ||
       true)
count() {
	sed -nE "s/.*[:,] $1: ([0-9]+).*/\\1/p" <<<"$line" | head -n1 |
		grep . || echo 0
}
ran=$(sed -nE 's/.*Ran ([0-9]+) tests.*/\1/p' <<<"$line")
passed=$(count passed)
failed=$(( $(count failed) + $(count crashed) ))
errors=$(count errors)

echo
if [ -z "$line" ] || [ "${ran:-0}" -eq 0 ]; then
	echo "kunit: no test ran (kunit.py exit status $rc); log: $log" >&2
	summary 0 0
	exit 1
fi
[ "$errors" -eq 0 ] || echo "kunit: $errors error(s) parsing the test output" >&2
summary "$passed" "$failed"
[ "$rc" -eq 0 ] && [ "$failed" -eq 0 ] && [ "$errors" -eq 0 ] &&
	[ -z "$warnings" ]
