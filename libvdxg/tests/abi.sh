#!/bin/sh
# SPDX-License-Identifier: MIT
#
# libvdxg's ABI against its headers, in vtest's output format (run by
# tests/run.sh from make -C libvdxg check, with LIBVDXG_O the build):
#
#   exports   the shared library exports exactly the functions vdxg.h and
#             the vdxg_ref*.h headers declare (no internal symbol leaks,
#             none missing)
#   versions  every export carries a VDXG_<major>.<minor> version node no
#             newer than the header's version
#   soname    the soname is libvdxg.so.<VDXG_LIB_VERSION_MAJOR>
#   pkgconfig libvdxg.pc's Version is the header's
set -u
dir=$(cd "$(dirname "$0")/.." && pwd)
so=${LIBVDXG_O:?}/libvdxg.so
tmp=${TMPDIR:-/tmp}/libvdxg-abi.$$
trap 'rm -f "$tmp".*' EXIT
failed=0

ver() { sed -n "s/^#define VDXG_LIB_VERSION_$1[[:space:]]*\([0-9]*\)$/\1/p" "$dir/vdxg.h"; }
major=$(ver MAJOR) minor=$(ver MINOR) micro=$(ver MICRO)

subtest() {
	echo "Starting subtest: $1"
	if [ -s "$tmp.err" ]; then
		sed 's/^/  /' "$tmp.err"
		echo "Subtest $1: FAIL (0.000s)"
		failed=1
	else
		echo "Subtest $1: SUCCESS (0.000s)"
	fi
	: >"$tmp.err"
}
: >"$tmp.err"

# Declared: "name(" at the start of a declaration line, static inlines not.
cat "$dir/vdxg.h" "$dir/vdxg_ref.h" "$dir/vdxg_ref3d.h" "$dir/vdxg_ref_plane.h" |
	grep -v '^static' |
	grep -oE '^([a-z0-9_ ]+[ *]+)?vdxg_[a-z0-9_]+\(' |
	sed -E 's/^(.*[^a-z0-9_])?(vdxg_[a-z0-9_]+)\($/\2/' | sort -u >"$tmp.declared"
# Exported: defined dynamic function symbols, with their version node.
objdump -T "$so" | awk '$4 == ".text" { print $NF, $(NF - 1) }' |
	sort -u >"$tmp.exports"
awk '{ print $1 }' "$tmp.exports" >"$tmp.names"

[ -s "$tmp.declared" ] || echo "no declarations found in the headers" >>"$tmp.err"
comm -23 "$tmp.declared" "$tmp.names" | sed 's/^/declared, not exported: /' >>"$tmp.err"
comm -13 "$tmp.declared" "$tmp.names" | sed 's/^/exported, not declared: /' >>"$tmp.err"
subtest exports

awk -v major="$major" -v minor="$minor" '
	{
		if (!match($2, /^VDXG_[0-9]+\.[0-9]+$/)) {
			print $1 ": version node " $2 " is not VDXG_<major>.<minor>"
			next
		}
		split(substr($2, 6), v, ".")
		if (v[1] != major || v[2] > minor)
			print $1 ": version node " $2 " is not of " major "." minor " or older"
	}' "$tmp.exports" >>"$tmp.err"
subtest versions

soname=$(objdump -p "$so" | awk '$1 == "SONAME" { print $2 }')
[ "$soname" = "libvdxg.so.$major" ] ||
	echo "soname $soname, want libvdxg.so.$major" >>"$tmp.err"
subtest soname

pc=$(sed -n 's/^Version: //p' "$LIBVDXG_O/libvdxg.pc")
[ "$pc" = "$major.$minor.$micro" ] ||
	echo "libvdxg.pc Version $pc, want $major.$minor.$micro" >>"$tmp.err"
subtest pkgconfig

exit "$failed"
