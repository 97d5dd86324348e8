# SPDX-License-Identifier: MIT
# Shared settings for vdxg's scripts. Source it; it changes nothing.

VDXG_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Expensive builds (QEMU, the guest root) are cached outside the clone,
# keyed by a hash of their inputs.
VDXG_CACHE=${VDXG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vdxg}
VDXG_OUT=${VDXG_OUT:-$VDXG_TOP/out}
QEMU_VERSION=10.0.2

# The guest kernel: the newest Debian 6.12 kernel installed on the host.
vdxg_kver() {
	ls /lib/modules 2>/dev/null | grep -E '^6\.12\.[0-9]+.*-amd64$' |
		sort -V | tail -n1
}

# hash_inputs FILE|DIR...: a short hash of the contents of the inputs.
hash_inputs() {
	find "$@" -type f -print0 | sort -z | xargs -0 sha256sum |
		sed "s|$VDXG_TOP/||" | sha256sum | cut -c1-16
}

die() { echo "${0##*/}: $*" >&2; exit 1; }

# Debian's linux-source-6.12 tarball (KUnit, sw_sync and the debug kernel
# take the kernel's own sources from it), or nothing.
vdxg_linux_tarball() {
	ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | head -n1 || true
}

# vdxg_linux_source_key TARBALL: names a tree unpacked from TARBALL: the
# package version (readable) and the tarball's hash (exact).
vdxg_linux_source_key() {
	local version hash
	version=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null ||
		  echo unknown)
	hash=$(sha256sum "$1" | cut -c1-12)
	echo "linux-source-${version//[^A-Za-z0-9.+-]/_}-$hash"
}

# vdxg_unpack_linux_source TARBALL DIR: the whole tree into DIR, once
# (DIR/.vdxg-unpacked marks it done) and atomically. Callers serialise.
vdxg_unpack_linux_source() {
	local tarball=$1 dir=$2
	[ -f "$dir/.vdxg-unpacked" ] && return 0
	echo "${0##*/}: unpacking $tarball into $dir"
	rm -rf "$dir.tmp" "$dir"
	mkdir -p "$dir.tmp"
	tar -xf "$tarball" -C "$dir.tmp" --strip-components=1 ||
		{ rm -rf "$dir.tmp"; die "unpacking $tarball failed"; }
	touch "$dir.tmp/.vdxg-unpacked"
	mv "$dir.tmp" "$dir"
}

# The DRM helpers the debug kernel builds in (its VDXG_DEBUG_DEPS selects
# them), one a line: the helper code vdxg and its tests run on, and
# whatever vdxg's Kconfig selects.
vdxg_debug_kernel_selects() {
	{ printf '%s\n' DRM_KMS_HELPER DRM_TTM DRM_TTM_HELPER DRM_EXEC \
		DRM_GPUVM DRM_SCHED DRM_BUDDY DRM_SUBALLOC_HELPER \
		DRM_DISPLAY_HELPER DRM_GEM_SHMEM_HELPER DRM_CLIENT_SELECTION
	  awk '/^config /{ on = ($2 == "DRM_VDXG") }
	       on && $1 == "select" { print $2 }' \
		"$VDXG_TOP/drivers/gpu/drm/vdxg/Kconfig"; } | sort -u
}

# The debug guest kernel's cache directory (scripts/build-debug-kernel.sh),
# keyed by that script, its config fragment, the helpers it selects and
# the source tarball; DIR/.done once built.
vdxg_debug_kernel_dir() {
	local tarball key
	tarball=$(vdxg_linux_tarball)
	[ -n "$tarball" ] || return 1
	key=$( { cat "$VDXG_TOP/scripts/build-debug-kernel.sh" \
		     "$VDXG_TOP/scripts/debug-kernel.config"
		 vdxg_debug_kernel_selects
		 vdxg_linux_source_key "$tarball"
		 gcc --version | head -n1; } | sha256sum | cut -c1-16)
	echo "$VDXG_CACHE/debug-kernel/$key"
}
