#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Install every host package vdxg needs to build QEMU, the module, the
# userspace, the guest image, and to run the tests. Idempotent: when all
# packages are already there it does nothing.
set -euo pipefail

# Packages from the host's own suite. Mesa (scripts/build-mesa.sh) needs
# bison, flex, libdrm-dev, zlib1g-dev and mako and yaml for Debian's python3,
# and for its Wayland platform libwayland-dev (wayland-scanner comes with it
# in libwayland-bin) and libwayland-egl-backend-dev: bookworm's 1.21 is
# enough (Mesa wants >= 1.18), and the oldest libwayland links against the
# fewest symbols of the guest's.
PKGS=(
	build-essential bc bison flex cpio kmod xz-utils gzip zstd
	libelf-dev libssl-dev pkg-config python3 python3-venv
	ninja-build libglib2.0-dev libpixman-1-dev libfdt-dev libpng-dev
	linux-image-6.12-amd64 linux-headers-6.12-amd64 linux-source-6.12
	seabios qemu-system-data
	mmdebstrap busybox-static sparse perl libdrm-dev rsync patch
	clang libclang-rt-14-dev
	python3-mako python3-yaml zlib1g-dev libwayland-dev
	libwayland-egl-backend-dev
)
# Packages that must come from bookworm-backports: Mesa 25.0.7 needs meson
# >= 1.1 and wayland-protocols >= 1.38 (bookworm has 1.0.1 and 1.31).
BPO_PKGS=(meson python3-pycotap wayland-protocols)

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo

missing() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || echo "$p"
	done
}

# Add bookworm-backports (deb and deb-src) from the mirror the host already
# uses, so no mirror is named here.
add_backports() {
	local list=/etc/apt/sources.list.d/vdxg-backports.sources uri
	[ -f "$list" ] && return 0
	local f files=()
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
		 /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] && files+=("$f")
	done
	uri=$(cat "${files[@]}" | grep -v '^ *#' |
		grep -oE 'https?://[^ ]+/debian/?( |$)' | grep -v security |
		head -n1 | tr -d ' ') || true
	[ -n "$uri" ] || { echo "setup: no Debian mirror in apt config" >&2; exit 1; }
	$SUDO tee "$list" >/dev/null <<EOT
Types: deb deb-src
URIs: $uri
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOT
	$SUDO apt-get update -q
}

need=$(missing "${PKGS[@]}" "${BPO_PKGS[@]}")
if [ -z "$need" ] && [ -f /etc/apt/sources.list.d/vdxg-backports.sources ]; then
	exit 0
fi

export DEBIAN_FRONTEND=noninteractive
add_backports
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${PKGS[@]}"
$SUDO apt-get install -y -q --no-install-recommends -t bookworm-backports \
	"${BPO_PKGS[@]}"
echo "setup: host packages installed"
