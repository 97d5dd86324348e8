#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Build QEMU with the vdxg device, and the device's qtest.
#
# The QEMU source is Debian's qemu_$QEMU_VERSION+ds.orig.tar.xz from
# bookworm-backports, checked against the SHA256 that apt publishes. It is
# unpacked once into $VDXG_CACHE/qemu-build/src, where qemu/ of this repo is
# overlaid (symlinks dereferenced), the upstream fixes in qemu/patches are
# applied, the build files are patched, and QEMU is configured once. Later
# runs only copy the changed files and run ninja, so a device change
# rebuilds in seconds.
#
# The result for one set of inputs (qemu/, the contract header, this
# script and scripts/lib-build.sh, whose functions it shares with
# build-mesa.sh) is kept in $VDXG_CACHE/qemu-<hash>; when it exists
# nothing is built. $VDXG_OUT/qemu is a symlink to it and holds:
#   qemu-system-x86_64   QEMU with the vdxg device
#   vdxg-test            the device's qtest (see scripts/qtest.sh)
#   test-vdxg-mmu        the unit test of the GPU MMU's pure part
#   test-vdxg-3d         the unit test of the 3D pipeline's pure parts
#   firmware-args        the -L options QEMU needs for its firmware
#
# Run QEMU as:
#   out/qemu/qemu-system-x86_64 $(cat out/qemu/firmware-args) -nic none \
#       -machine q35 -accel tcg -device vdxg ...
set -euo pipefail

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=scripts/lib-build.sh
. "$VDXG_TOP/scripts/lib-build.sh"

SRC_PKG=qemu
SRC_SUITE=bookworm-backports
TARBALL=qemu_${QEMU_VERSION}+ds.orig.tar.xz
TOPDIR=qemu-$QEMU_VERSION
# The +ds tarball has no firmware blobs: nothing to install, and the edk2
# images are not unpacked (patch_tree). Without default features, pixman
# and PNG must be asked for (display consoles, screendump to PNG).
CONFIGURE_OPTS=(
	--python=/usr/bin/python3
	--target-list=x86_64-softmmu
	--without-default-features
	--disable-docs
	--disable-install-blobs
	--enable-pixman
	--enable-png
)
# Debian's seabios (bios-256k.bin, VGA BIOSes) and qemu-system-data
# (linuxboot_dma.bin, kvmvapic.bin, ...): the +ds tarball ships no firmware.
FIRMWARE_DIRS=(/usr/share/seabios /usr/share/qemu)
# Result directories kept in the cache (see save_result)
KEEP_RESULTS=16

HDR=$VDXG_TOP/drivers/gpu/drm/vdxg/vdxg_hw.h
# The reference renderer that the qtest compiles in (qemu/tests/qtest links it)
REF=("$VDXG_TOP/libvdxg/vdxg_ref.c" "$VDXG_TOP/libvdxg/vdxg_ref.h"
	"$VDXG_TOP/libvdxg/vdxg_ref3d.c" "$VDXG_TOP/libvdxg/vdxg_ref3d.h"
	"$VDXG_TOP/libvdxg/vdxg_ref_plane.c"
	"$VDXG_TOP/libvdxg/vdxg_ref_plane.h" "$VDXG_TOP/libvdxg/vdxg_ref_hw.h")
OVERLAY=$VDXG_TOP/qemu
# Upstream QEMU fixes that the tarball lacks: qemu/patches/*.patch, -p1
# against the tarball's tree, applied in name order. A file is either
# patched or overlaid, not both.
PATCHES=$OVERLAY/patches
DL=$VDXG_CACHE/dl
TREE=$VDXG_CACHE/qemu-build
SRC=$TREE/src
BUILD=$SRC/build
LOG_DIR=$VDXG_OUT/logs
LOG=$LOG_DIR/qemu-build.log
BINS=(qemu-system-x86_64 tests/qtest/vdxg-test tests/unit/test-vdxg-mmu
	tests/unit/test-vdxg-3d)
# Its result: $VDXG_CACHE/$NAME-<hash>, published as $VDXG_OUT/$NAME,
# with these files of the source tree.
NAME=qemu
EXTRA=()

# The fuzzing flavour (--fuzz, or VDXG_QEMU_FLAVOUR=fuzz): QEMU's libFuzzer
# targets for scripts/qemu-fuzz.sh, built by clang with ASan in a tree and
# a result of their own; $VDXG_OUT/qemu-fuzz holds qemu-fuzz-x86_64 and
# firmware-args. Everything else (source, overlay, patches) is shared.
FLAVOUR=${VDXG_QEMU_FLAVOUR:-}
[ "${1:-}" != --fuzz ] || FLAVOUR=fuzz
case $FLAVOUR in
'') ;;
fuzz)
	NAME=qemu-fuzz
	CONFIGURE_OPTS+=(--cc=clang --cxx=clang++ --enable-fuzzing
		--enable-asan)
	TREE=$VDXG_CACHE/qemu-fuzz-build
	SRC=$TREE/src
	BUILD=$SRC/build
	LOG=$LOG_DIR/qemu-fuzz-build.log
	BINS=(qemu-fuzz-x86_64)
	EXTRA=(scripts/oss-fuzz/reorder_fuzzer_qtest_trace.py)
	;;
*) die "unknown VDXG_QEMU_FLAVOUR=$FLAVOUR (want fuzz or nothing)" ;;
esac

# The inputs of a build. hash_inputs skips symlinks, so the contract
# header that qemu/include links to, and the reference renderer that
# qemu/tests/qtest links to, are named explicitly.
set_result "$QEMU_VERSION $FLAVOUR" "$OVERLAY" "$HDR" "${REF[@]}" \
	"$VDXG_TOP/scripts/build-qemu.sh"

have_result() {
	local b
	for b in "${BINS[@]}"; do
		[ -x "$RESULT/${b##*/}" ] || return 1
	done
	[ -f "$RESULT/firmware-args" ]
}

exit_if_built

if [ ! -d "$OVERLAY" ] || [ ! -f "$HDR" ]; then
	die "missing $OVERLAY or $HDR"
fi
for f in "${REF[@]}"; do
	[ -f "$f" ] || die "missing $f"
done
for d in "${FIRMWARE_DIRS[@]}"; do
	[ -d "$d" ] || die "missing $d: run scripts/setup.sh"
done
[ -f /usr/share/seabios/bios-256k.bin ] ||
	die "missing /usr/share/seabios/bios-256k.bin: run scripts/setup.sh"

build_lock QEMU
start=$SECONDS
: >"$LOG"

fetch_tarball

# The source tree: unpacked once per tarball and configure options.
tree_key=$(printf '%s\n' "$sha" "${CONFIGURE_OPTS[@]}" | sha256sum |
	cut -c1-16)
unpack_tree "$tree_key"

# Hook the device, its trace events and its qtest into QEMU's build.
patch_tree() {
	local f

	# The +ds tarball has no edk2 firmware to unpack.
	f=$SRC/meson.build
	sed 's/^\( *unpack_edk2_blobs = \)bzip2\.found()$/\1false/' "$f" |
		write_if_changed "$f"
	grep -q 'unpack_edk2_blobs = bzip2' "$f" &&
		die "could not turn unpack_edk2_blobs off in $f"

	# The device lives in hw/display/vdxg/ with its own meson.build,
	# Kconfig and trace-events; hw/display's files take them in, between
	# markers. The shared tree may have been patched last for an older
	# overlay that had hw/display/vdxg.c: its lines go. And such an
	# overlay, when it comes back, removes hw/display/vdxg/: so the
	# subdir() is guarded, and the Kconfig entry is copied, not sourced.
	f=$SRC/hw/display/meson.build
	{
		sed -e '/^# vdxg: begin$/,/^# vdxg: end$/d' \
			-e "/^system_ss.add(when: 'CONFIG_VDXG'/d" "$f"
		echo "# vdxg: begin"
		echo "if fs.is_file('vdxg/meson.build')"
		echo "  subdir('vdxg')"
		echo "endif"
		echo "# vdxg: end"
	} | write_if_changed "$f"

	f=$SRC/hw/display/Kconfig
	{
		sed '/^# vdxg: begin$/,/^# vdxg: end$/d' "$f" |
			awk '/^config VDXG$/ { skip = 1; next }
			     skip && /^[ \t]/ { next }
			     { skip = 0; print }'
		echo "# vdxg: begin"
		cat "$SRC/hw/display/vdxg/Kconfig"
		echo "# vdxg: end"
	} | write_if_changed "$f"

	# Trace events go into the directory's trace-events, replaced
	# whenever hw/display/vdxg/trace-events changes. The device's sources
	# include hw/display/trace.h.
	f=$SRC/hw/display/trace-events
	{
		sed '/^# vdxg: begin$/,/^# vdxg: end$/d' "$f"
		echo "# vdxg: begin"
		cat "$SRC/hw/display/vdxg/trace-events"
		echo "# vdxg: end"
	} | write_if_changed "$f"

	f=$SRC/tests/qtest/meson.build
	if ! grep -q "'vdxg-test'" "$f"; then
		grep -q '^qtests_x86_64 = qtests_i386$' "$f" ||
			die "cannot find qtests_x86_64 in $f"
		sed -i "/^qtests_x86_64 = qtests_i386\$/a\\
qtests_x86_64 += (config_all_devices.has_key('CONFIG_VDXG') ? ['vdxg-test'] : [])" \
			"$f"
	fi
	# The qtest's other sources: tests/qtest/vdxg/meson.build lists them.
	# Guarded, so that a tree whose overlay lacks that file still builds;
	# a build.ninja generated without it is regenerated.
	grep -q '^qtest_executables = {}$' "$f" ||
		die "cannot find qtest_executables in $f"
	sed '/^# vdxg: begin$/,/^# vdxg: end$/d' "$f" |
		sed '/^qtest_executables = {}$/i\
# vdxg: begin\
if fs.exists(meson.current_source_dir() / '"'vdxg/meson.build'"')\
  subdir('"'vdxg'"')\
endif\
# vdxg: end' | write_if_changed "$f"

	# The unit tests of the pure parts (tests/unit/test-vdxg-mmu.c with
	# hw/display/vdxg/vdxg_mmu.c; tests/unit/test-vdxg-3d.c with the 3D
	# pipeline's units), guarded the same way.
	f=$SRC/tests/unit/meson.build
	grep -q '^test_env = environment()$' "$f" ||
		die "cannot find test_env in $f"
	sed '/^# vdxg: begin$/,/^# vdxg: end$/d' "$f" |
		sed '/^test_env = environment()$/i\
# vdxg: begin\
if fs.exists(meson.current_source_dir() / '"'test-vdxg-mmu.c'"')\
  tests += {'"'test-vdxg-mmu'"': ['"'../../hw/display/vdxg/vdxg_mmu.c'"']}\
endif\
if fs.exists(meson.current_source_dir() / '"'test-vdxg-3d.c'"')\
  tests += {'"'test-vdxg-3d'"': ['"'../../hw/display/vdxg/vdxg_shader.c'"',\
    '"'../../hw/display/vdxg/vdxg_texture.c'"',\
    '"'../../hw/display/vdxg/vdxg_raster3d.c'"']}\
endif\
# vdxg: end' | write_if_changed "$f"
	for t in test-vdxg-mmu test-vdxg-3d; do
		if [ -f "$OVERLAY/tests/unit/$t.c" ] &&
		   [ -f "$BUILD/build.ninja" ] &&
		   ! grep -q "$t" "$BUILD/build.ninja"; then
			touch "$f"
		fi
	done
	if [ -f "$OVERLAY/tests/qtest/vdxg/meson.build" ] &&
	   [ -f "$BUILD/build.ninja" ] &&
	   ! grep -q 'tests/qtest/vdxg/meson\.build' "$BUILD/build.ninja"; then
		touch "$f"
	fi
}

overlay
patch_tree

if ! tree_is "$tree_key"; then
	msg "configuring (log: $LOG)"
	rm -rf "$BUILD"
	mkdir -p "$BUILD"
	(cd "$BUILD" && ../configure "${CONFIGURE_OPTS[@]}") >>"$LOG" 2>&1 ||
		fail_log "configure"
	mark_tree "$tree_key"
fi

msg "building (log: $LOG)"
ninja -C "$BUILD" "${BINS[@]}" >>"$LOG" 2>&1 || fail_log "ninja"

# ---------------------------------------------------------------------------
# Result

rm -rf "$RESULT.tmp"
mkdir -p "$RESULT.tmp"
for b in "${BINS[@]}"; do
	cp "$BUILD/$b" "$RESULT.tmp/"
done
for f in "${EXTRA[@]}"; do
	cp "$SRC/$f" "$RESULT.tmp/"
done
printf -- '-L %s ' "${FIRMWARE_DIRS[@]}" | sed 's/ $/\n/' \
	>"$RESULT.tmp/firmware-args"
save_result

msg "done in $((SECONDS - start)) s: $VDXG_OUT/$NAME -> $RESULT"
