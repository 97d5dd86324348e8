#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Build Mesa with the vdxg Gallium driver, and libvdxg, for the guest.
#
# The Mesa source is Debian's mesa_$MESA_VERSION.orig.tar.xz from
# bookworm-backports, checked against the SHA256 that apt publishes. It is
# unpacked once into $VDXG_CACHE/mesa-build/src, where mesa/ of this repo is
# overlaid (the driver in src/gallium/drivers/vdxg and its winsys in
# src/gallium/winsys/vdxg/drm), the patches in mesa/patches that register
# the driver with Mesa are applied, and Mesa is configured once. Later runs
# only copy the changed files and run ninja, so a driver change rebuilds
# in seconds.
#
# libvdxg is the driver's dependency (as libdrm_nouveau is nouveau's): it
# is built first and installed into Mesa's prefix, where meson's
# dependency('libvdxg') finds it through pkg-config.
#
# The result for one set of inputs (mesa/, libvdxg/, the headers libvdxg
# installs and this script) is kept in $VDXG_CACHE/mesa-<hash>; when it
# exists nothing is built. $VDXG_OUT/mesa is a symlink to it and holds the
# installed stack, ready to copy into the guest's root:
#   opt/vdxg-mesa/lib/       libEGL, libGLESv2, libgbm, libgallium-*.so
#                            (every Gallium driver), libvdxg.so*,
#                            gbm/dri_gbm.so, pkgconfig/
#   opt/vdxg-mesa/include/   EGL, GLES, GBM and libvdxg's headers
# The guest's dynamic loader looks in opt/vdxg-mesa/lib first
# (scripts/build-image.sh), so its GL clients run on this stack.
#
# --check builds the driver's host tests in that tree (the TGSI encoder
# against libvdxg's reference pipeline: no device) and runs them; the
# result is not looked at, so the tree is brought up to date first.
#
# VDXG_MESA_OVERLAY=DIR takes the overlay (and its patches/) from DIR
# instead of mesa/, e.g. to try the build with a stub driver.
set -euo pipefail

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=scripts/lib-build.sh
. "$VDXG_TOP/scripts/lib-build.sh"

CHECK=0
case ${1:-} in
--check) CHECK=1 ;;
'') ;;
*) die "usage: build-mesa.sh [--check]" ;;
esac

MESA_VERSION=25.0.7
NAME=mesa
SRC_PKG=mesa
SRC_SUITE=bookworm-backports
TARBALL=mesa_$MESA_VERSION.orig.tar.xz
TOPDIR=mesa-$MESA_VERSION
# Where the stack lives in the guest: apart from sid's own Mesa in
# /usr/lib/x86_64-linux-gnu, which stays there for comparison (llvmpipe).
PREFIX=/opt/vdxg-mesa
# vdxg and softpipe (the reference for the driver's tests), GL, GLES 2/3,
# EGL and GBM on DRM, and EGL on Wayland (for Wayland clients such as
# weston-simple-egl; the compositor side, EGL_WL_bind_wayland_display, for
# weston's GL renderer). Nothing that would link more than libdrm, zlib,
# libwayland-client and -server (bookworm's, older than sid's) and the C
# and C++ runtimes, so that a build on this host runs on the guest's newer
# sid: no LLVM, expat, zstd, libunwind or sensors, and the auto features
# that could find a host library are off. EGL_DEFAULT_DISPLAY stays on the
# surfaceless platform, as it was before Wayland (the first platform named
# would be the default): clients name their platform.
# shellcheck disable=SC2054 # the commas are meson's
MESON_OPTS=(
	--prefix="$PREFIX" --libdir=lib --buildtype=release -Db_ndebug=true
	--wrap-mode=nodownload
	-Dgallium-drivers=vdxg,softpipe -Dvulkan-drivers= -Dllvm=disabled
	-Dplatforms=wayland -Degl-native-platform=surfaceless
	-Dglx=disabled -Degl=enabled -Dgbm=enabled
	-Dgles2=enabled -Dgles1=disabled -Dglvnd=disabled -Dopengl=true
	-Dexpat=disabled -Dxmlconfig=disabled -Dvalgrind=disabled
	-Dlibunwind=disabled -Dzstd=disabled -Dlmsensors=disabled
	-Dgallium-va=disabled -Dgallium-vdpau=disabled -Dgallium-xa=disabled
	-Dbuild-tests=false
)
KEEP_RESULTS=16

OVERLAY=${VDXG_MESA_OVERLAY:-$VDXG_TOP/mesa}
PATCHES=$OVERLAY/patches
LIBVDXG=$VDXG_TOP/libvdxg
# What libvdxg installs besides its own directory
HDRS=("$VDXG_TOP/uapi/drm/vdxg_drm.h"
	"$VDXG_TOP/drivers/gpu/drm/vdxg/vdxg_hw.h")
DL=$VDXG_CACHE/dl
TREE=$VDXG_CACHE/mesa-build
SRC=$TREE/src
BUILD=$TREE/build
# libvdxg's build directory, and its installation for Mesa's build to
# compile and link against: $STAGE$PREFIX, whose pkg-config file
# ($TREE/pkgconfig) names that directory.
LIBVDXG_O=$TREE/libvdxg
STAGE=$TREE/stage
PC_DIR=$TREE/pkgconfig
LOG=$VDXG_OUT/logs/mesa-build.log
[ "$CHECK" = 0 ] || LOG=$VDXG_OUT/logs/mesa-check.log

set_result "$MESA_VERSION ${MESON_OPTS[*]}" "$OVERLAY" "$LIBVDXG" \
	"${HDRS[@]}" "$VDXG_TOP/scripts/build-mesa.sh"

have_result() {
	local f
	for f in libEGL.so.1 libGLESv2.so.2 libgbm.so.1 gbm/dri_gbm.so \
		 libvdxg.so pkgconfig/libvdxg.pc; do
		[ -e "$RESULT$PREFIX/lib/$f" ] || return 1
	done
}

[ "$CHECK" = 1 ] || exit_if_built

[ -d "$OVERLAY" ] || die "missing $OVERLAY"
for f in "$LIBVDXG/Makefile" "${HDRS[@]}"; do
	[ -f "$f" ] || die "missing $f"
done
for t in meson ninja pkg-config bison flex; do
	command -v "$t" >/dev/null || die "no $t: run scripts/setup.sh"
done

build_lock Mesa
start=$SECONDS
: >"$LOG"

fetch_tarball

# The source tree: unpacked once per tarball and meson options.
tree_key=$(printf '%s\n' "$sha" "${MESON_OPTS[@]}" | sha256sum | cut -c1-16)
unpack_tree "$tree_key"
overlay

# libvdxg, installed into the stage only where it changed: its headers'
# and library's mtimes are what ninja sees of it.
msg "building libvdxg (log: $LOG)"
nice make -C "$LIBVDXG" O="$LIBVDXG_O" PREFIX="$PREFIX" >>"$LOG" 2>&1 ||
	fail_log "libvdxg build"
rm -rf "$TREE/.libvdxg-inst"
make -C "$LIBVDXG" install O="$LIBVDXG_O" PREFIX="$PREFIX" \
	DESTDIR="$TREE/.libvdxg-inst" >>"$LOG" 2>&1 || fail_log "libvdxg install"
mkdir -p "$STAGE"
rsync -rl --checksum --delete "$TREE/.libvdxg-inst/" "$STAGE/"
rm -rf "$TREE/.libvdxg-inst"
# Its .pc names $PREFIX, which only the guest has: Mesa's build takes a
# copy that names the stage.
mkdir -p "$PC_DIR"
sed "s|^prefix=.*|prefix=$STAGE$PREFIX|" \
	"$STAGE$PREFIX/lib/pkgconfig/libvdxg.pc" | write_if_changed "$PC_DIR/libvdxg.pc"

if ! tree_is "$tree_key"; then
	msg "configuring (log: $LOG)"
	rm -rf "$BUILD"
	# Debian's python3, whose mako and yaml setup.sh installs, whatever
	# python3 comes first in PATH.
	printf '%s\n' '[binaries]' "python3 = '/usr/bin/python3'" \
		>"$TREE/native.ini"
	# pkg_config_path, not PKG_CONFIG_PATH: meson keeps the option for the
	# reconfigurations that ninja runs when a meson.build changes.
	nice meson setup "$BUILD" "$SRC" "${MESON_OPTS[@]}" \
		--native-file="$TREE/native.ini" -Dpkg_config_path="$PC_DIR" \
		>>"$LOG" 2>&1 || fail_log "meson setup"
	mark_tree "$tree_key"
fi

if [ "$CHECK" = 1 ]; then
	test=src/gallium/drivers/vdxg/vdxg_tgsi_test
	msg "building $test (log: $LOG)"
	nice ninja -C "$BUILD" "$test" >>"$LOG" 2>&1 || fail_log "ninja $test"
	exec "$BUILD/$test"
fi

msg "building (log: $LOG)"
nice ninja -C "$BUILD" >>"$LOG" 2>&1 || fail_log "ninja"

# ---------------------------------------------------------------------------
# Result: Mesa and libvdxg installed under $PREFIX.

rm -rf "$RESULT.tmp"
mkdir -p "$RESULT.tmp"
meson install -C "$BUILD" --no-rebuild --destdir "$RESULT.tmp" \
	>>"$LOG" 2>&1 || fail_log "meson install"
cp -a "$STAGE/." "$RESULT.tmp/"
# libvdxg's static library is for the host's tools, not the guest.
rm -f "$RESULT.tmp$PREFIX/lib/libvdxg.a"
save_result

msg "done in $((SECONDS - start)) s: $VDXG_OUT/$NAME -> $RESULT"
