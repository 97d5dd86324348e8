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
