#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Build and run the host benchmark of the 3D pipeline's pure parts
# (qemu/tests/bench/vdxg-3d-bench.c): the rasterizer and the shader
# interpreter of TREE (default this tree's qemu/; another tree must have
# the interface the benchmark is written for) on fragment programs like
# glmark2's and kmscube's, compiled with the flags QEMU's build uses.
# Prints a line a program: CPU time a frame and a hash of the colours
# (with -c of the rasterizer's output too), which must not change from
# one version of the device to the next.
#
#   scripts/bench-3d.sh [--tree DIR] [-c] [FRAMES [PROGRAM]]
#
# Needs the QEMU build tree (scripts/build-qemu.sh) for its headers and
# libqemuutil.a.
set -euo pipefail

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tree=$VDXG_TOP/qemu
if [ "${1:-}" = --tree ]; then
	tree=$(cd "$2" && pwd)
	shift 2
fi
SRC=$VDXG_CACHE/qemu-build/src
BUILD=$SRC/build
[ -f "$BUILD/libqemuutil.a" ] || die "no $BUILD/libqemuutil.a: run make qemu"

out=$VDXG_OUT/bench-3d
mkdir -p "$out"
dev=$tree/hw/display/vdxg
read -ra glib_cflags <<<"$(pkg-config --cflags glib-2.0)"
read -ra glib_libs <<<"$(pkg-config --libs glib-2.0)"
flags=(-std=gnu11 -O2 -g -m64 -mcx16 -msse2 -D_GNU_SOURCE
	-D_FILE_OFFSET_BITS=64 -fno-strict-aliasing -fno-common -fwrapv
	-ftrivial-auto-var-init=zero -fzero-call-used-regs=used-gpr -fPIE
	-Wall -Wno-unknown-pragmas
	-iquote "$tree/include" -iquote "$tree" -iquote "$BUILD"
	-iquote "$SRC/include" -iquote "$SRC/host/include/x86_64"
	-iquote "$SRC/host/include/generic" -iquote "$SRC"
	-iquote "$dev" "${glib_cflags[@]}")
gcc "${flags[@]}" -o "$out/vdxg-3d-bench" \
	"$VDXG_TOP/qemu/tests/bench/vdxg-3d-bench.c" \
	"$dev/vdxg_shader.c" "$dev/vdxg_texture.c" "$dev/vdxg_raster3d.c" \
	-Wl,--start-group "$BUILD/libqemuutil.a" \
	"${glib_libs[@]}" -lm -pthread -Wl,--end-group
"$out/vdxg-3d-bench" "$@"
