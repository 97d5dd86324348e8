#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Build the guest image: out/guest/vmlinuz and out/guest/initrd.img.
#
# The initrd is two concatenated cpio archives (Linux unpacks each in turn,
# later entries overwriting earlier ones):
#
#   base     a Debian sid root (IGT, kmod, busybox, pciutils) plus the
#            closure of the DRM modules of the guest kernel. Expensive (about
#            a minute), so it is cached in $VDXG_CACHE/image/ keyed by a hash
#            of the function that builds it, the package list and KVER.
#   overlay  /init, vdxg.ko and sw_sync.ko (each if built) with regenerated
#            depmod data, vdxg's IGT tests, tools and test lists, and
#            the Mesa stack with the vdxg driver (scripts/build-mesa.sh)
#            in /opt/vdxg-mesa, if built. Rebuilt on every run (seconds).
#
# The guest's dynamic loader looks in /opt/vdxg-mesa/lib before the
# system's directories (/etc/ld.so.conf.d/00-vdxg-mesa.conf), so that GL,
# EGL and GBM clients run on vdxg by default; sid's own Mesa stays
# reachable with LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu (llvmpipe).
#
# Usage: scripts/build-image.sh [--force] [--debug] [--gl]
#   --force   rebuild the base
#   --debug   the image for the debug kernel (scripts/build-debug-kernel.sh)
#             instead, in out/guest-debug/: the same base, the debug
#             kernel's bzImage, and /lib/modules/<its release>/ with
#             out/debug/vdxg.ko and vdxg_kunit.ko (make debug-module),
#             their depmod data and the kernel's modules.builtin, so that
#             modprobe of the built-in vgem and sw_sync succeeds too
#   --gl      the image with sid's GL clients too (GL_PKGS: kmscube,
#             glmark2, weston, and sid's Mesa for comparison), in
#             out/guest-gl/: a base of its own, with GL_PKGS, and the same
#             overlay, plus vdxg-weston-run (tools/vdxg-weston-run.sh:
#             weston on vdxg with a Wayland client); boot it with
#             scripts/vm.sh --gl
#   --debug --gl
#             the --gl image's base for the debug kernel, in
#             out/guest-debug-gl/ (scripts/vm.sh --kernel debug --gl)
# VDXG_MODULE=path/vdxg.ko overrides out/module/vdxg.ko (with --debug,
# out/debug/vdxg.ko), and VDXG_SW_SYNC_MODULE=path/sw_sync.ko
# out/module/sw_sync/sw_sync.ko.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

FORCE=0 DEBUG=0 GL=0
for a in "$@"; do
	case $a in
	--force) FORCE=1 ;;
	--debug) DEBUG=1 ;;
	--gl) GL=1 ;;
	*) die "unknown option $a" ;;
	esac
done

KVER=$(vdxg_kver)
[ -n "$KVER" ] || die "no Debian 6.12 kernel in /lib/modules (run scripts/setup.sh)"
[ -f "/boot/vmlinuz-$KVER" ] || die "/boot/vmlinuz-$KVER missing"

# Guest packages. igt-gpu-tools-tests holds the test binaries.
PKGS=(igt-gpu-tools igt-gpu-tools-tests kmod busybox pciutils procps)
# The GL clients, and sid's Mesa (llvmpipe) to compare with: only in the
# --gl image's base, since they make the base larger and every boot of it
# slower (weston's dependencies, FreeRDP and FFmpeg, are half of it, LLVM
# much of the rest). weston has weston-simple-egl. piglit (pruned to its
# GLES 2.0 tests below) and its waffle-utils (wflinfo: the renderer, and
# piglit's skips of tests whose requirements the context lacks) run
# vdxg_gl's piglit subtests.
GL_PKGS=(kmscube glmark2-es2-drm weston libegl-mesa0 libgles2 libgbm1
	 libgl1-mesa-dri piglit waffle-utils)

# Kernel modules whose modinfo-depends closure goes into the base.
MODS=(drm drm_kms_helper ttm drm_ttm_helper drm_exec drm_buddy gpu-sched
      drm_display_helper drm_gpuvm drm_shmem_helper drm_vram_helper
      drm_suballoc_helper vgem bochs virtio_gpu)

# Trimmed from the root: nothing in the guest reads them (but the --gl
# image's piglit runner reads Python: PRUNE_PYTHON stays in that image).
PRUNE_PYTHON=(usr/lib/python3 usr/lib/python3.* usr/bin/python3*
	      usr/share/python3)
PRUNE=(usr/share/doc usr/share/man usr/share/info usr/share/locale
       usr/share/lintian usr/share/bash-completion "${PRUNE_PYTHON[@]}"
       var/cache/apt var/cache/debconf var/lib/apt/lists)

# Compression of the base: zstd unpacks faster than gzip in a TCG guest
# (measured, see the commit message); Debian's 6.12 has CONFIG_RD_ZSTD.
COMP=(zstd -q -T0 -3)

OUT_GUEST=$VDXG_OUT/guest
BASE_NAME=base
if [ "$GL" = 1 ]; then
	PKGS+=("${GL_PKGS[@]}")
	OUT_GUEST=$VDXG_OUT/guest-gl
	BASE_NAME=base-gl
	p=" ${PRUNE_PYTHON[*]} "
	PRUNE=($(for q in "${PRUNE[@]}"; do
		[[ $p == *" $q "* ]] || echo "$q"; done))
fi
if [ "$DEBUG" = 1 ]; then
	DKDIR=$(vdxg_debug_kernel_dir) ||
		die "linux-source-6.12 is not installed (scripts/setup.sh)"
	[ -f "$DKDIR/.done" ] ||
		die "no debug kernel in $DKDIR (run scripts/build-debug-kernel.sh)"
	OUT_GUEST=$VDXG_OUT/guest-debug
	[ "$GL" = 0 ] || OUT_GUEST=$VDXG_OUT/guest-debug-gl
fi
mkdir -p "$OUT_GUEST" "$VDXG_CACHE/image"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/vdxg-image.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# mkcpio DIR: a newc cpio of DIR on stdout, owned by root, sorted so that
# directories precede their contents and the output is reproducible.
mkcpio() {
	(cd "$1" && find . -mindepth 1 | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --quiet)
}

# stage_modules ROOT: the module closure of MODS into ROOT/lib/modules/KVER,
# decompressed (kmod in the guest then needs no xz), with depmod data.
stage_modules() {
	local root=$1 src=/lib/modules/$KVER dst m f rel dep
	dst=$root/lib/modules/$KVER
	mkdir -p "$dst"
	local -A seen=()
	local todo=("${MODS[@]}")
	while [ ${#todo[@]} -gt 0 ]; do
		m=${todo[0]}; todo=("${todo[@]:1}")
		m=${m//-/_}
		[ -n "${seen[$m]:-}" ] && continue
		seen[$m]=1
		f=$(modinfo -k "$KVER" -F filename "$m" 2>/dev/null) ||
			die "module $m not found for $KVER"
		case $f in (builtin|"(builtin)"|"") continue;; esac
		rel=${f#"$src"/}
		mkdir -p "$dst/$(dirname "$rel")"
		case $rel in
		*.xz)  xz -dc "$f" >"$dst/${rel%.xz}" ;;
		*.zst) zstd -qdc "$f" >"$dst/${rel%.zst}" ;;
		*)     cp "$f" "$dst/$rel" ;;
		esac
		for dep in $(modinfo -k "$KVER" -F depends "$m" | tr , ' ') \
			   $(modinfo -k "$KVER" -F softdep "$m" |
			     tr ' ' '\n' | grep -v ':$' || true); do
			todo+=("$dep")
		done
	done
	cp "$src"/modules.order "$src"/modules.builtin \
	   "$src"/modules.builtin.modinfo "$dst"/
	depmod -b "$root" "$KVER"
}

# build_base FILE: the base cpio, compressed, into FILE.
build_base() {
	local out=$1 root=$TMP/root p
	echo "build-image: mmdebstrap sid (${PKGS[*]})"
	mmdebstrap --variant=essential --quiet \
		--aptopt='Acquire::Check-Valid-Until "false"' \
		--include="$(IFS=,; echo "${PKGS[*]}")" \
		sid "$root"
	for p in "${PRUNE[@]}"; do
		# shellcheck disable=SC2086 # globs are intended
		rm -rf "${root:?}"/$p
	done
	# The sid root has no mount, poweroff...: busybox provides them.
	mkdir -p "$root/usr/local/sbin"
	for p in mount umount poweroff reboot halt mdev ip ifconfig; do
		[ -e "$root/usr/bin/$p" ] || [ -e "$root/usr/sbin/$p" ] ||
			ln -s /usr/bin/busybox "$root/usr/local/sbin/$p"
	done
	echo "build-image: modules for $KVER"
	rm -rf "$root/usr/lib/modules"
	stage_modules "$TMP/mods"
	mkdir -p "$root/usr/lib/modules"
	cp -a "$TMP/mods/lib/modules/$KVER" "$root/usr/lib/modules/"
	# Keep the staged module tree: the overlay reruns depmod over it.
	rm -rf "$out.mods"
	cp -a "$TMP/mods" "$out.mods"
	echo "build-image: cpio ($(du -sh "$root" | cut -f1) root)"
	mkcpio "$root" | "${COMP[@]}" >"$out.tmp"
	mv "$out.tmp" "$out"
	rm -rf "$root"
}

# The --gl image's piglit, about 2 GB installed (nearly all generated
# tests), is cut to its GLES 2.0 part (scripts/piglit-prune.py: the
# runner, the binaries linked against its GLES 2 library and the files
# their tests name; a few MB) right after mmdebstrap: this wrapper runs
# in build_base's place of mmdebstrap, so that build_base, and with it
# the key of the other images' base, stays as it is.
if [ "$GL" = 1 ]; then
	mmdebstrap() {
		command mmdebstrap "$@" || return
		prune_piglit "${!#}"
	}
	# The guest's root is a tmpfs of half its memory: what piglit adds
	# (Python, dpkg's list of piglit's 56000 files) is taken back from
	# parts nothing in the guest reads (dpkg's file lists, Python's own
	# test suite, IDE, Tk and docs), or the overlay no longer fits.
	prune_piglit() {
		python3 "$VDXG_TOP/scripts/piglit-prune.py" \
			"$1/usr/lib/x86_64-linux-gnu/piglit" || return
		rm -f "$1"/var/lib/dpkg/info/*.list "$1"/var/lib/dpkg/info/*.md5sums
		local d
		for d in test idlelib tkinter turtledemo ensurepip pydoc_data \
			 lib2to3; do
			rm -rf "$1"/usr/lib/python3.*/"$d"
		done
	}
fi

# The cache key covers the code that builds the base (not the overlay, so
# that editing /init does not rebuild the root), its inputs and the kernel;
# for the --gl image also the piglit pruning.
KEY=$( { declare -f build_base stage_modules mkcpio
	 printf '%s\n' "${PKGS[@]}" -- "${MODS[@]}" -- "${PRUNE[@]}" -- \
		"${COMP[@]}" "$KVER"
	 if [ "$GL" = 1 ]; then
		declare -f mmdebstrap prune_piglit
		cat "$VDXG_TOP/scripts/piglit-prune.py"
	 fi; } | sha256sum | cut -c1-16)
BASE=$VDXG_CACHE/image/$BASE_NAME-$KEY.cpio
if [ "$FORCE" = 1 ] || [ ! -f "$BASE" ] || [ ! -d "$BASE.mods" ]; then
	start=$SECONDS
	build_base "$BASE"
	echo "build-image: base built in $((SECONDS - start)) s: $BASE"
	# Drop bases of older keys (of this kind: base-<key> or base-gl-<key>).
	find "$VDXG_CACHE/image" -maxdepth 1 -regextype posix-extended \
		-regex ".*/$BASE_NAME-[0-9a-f]{16}\.cpio.*" \
		! -name "$BASE_NAME-$KEY.cpio*" -exec rm -rf {} +
fi

# ---------------------------------------------------------------- overlay
OV=$TMP/overlay
mkdir -p "$OV/opt/vdxg/lists" "$OV/opt/vdxg/bin" "$OV/opt/vdxg/igt-tests"

# The kernel the image boots (GKVER), its kernel image and its module
# tree before the out-of-tree modules: the base's closure of Debian's
# modules, or (--debug) none, everything being built in but vdxg.
if [ "$DEBUG" = 1 ]; then
	GKVER=$(cat "$DKDIR/kver")
	VMLINUZ=$DKDIR/bzImage
	KO=${VDXG_MODULE:-$VDXG_OUT/debug/vdxg.ko}
	# and the KUnit tests of its pure logic (scripts/kunit.sh)
	mods=(vdxg:"$KO" vdxg_kunit:"$VDXG_OUT/debug/vdxg_kunit.ko")
	mkdir -p "$TMP/mods/lib/modules/$GKVER"
	cp "$DKDIR"/build/modules.{builtin,builtin.modinfo,order} \
	   "$TMP/mods/lib/modules/$GKVER/"
	# sw_sync is a bool option: built in, but not listed as a module.
	# IGT and vdxg-igt-run modprobe it (the normal image has it as a
	# module): list it as a built-in module, as a tristate would be.
	grep -q '/sw_sync\.ko$' "$TMP/mods/lib/modules/$GKVER/modules.builtin" ||
		echo kernel/drivers/dma-buf/sw_sync.ko \
			>>"$TMP/mods/lib/modules/$GKVER/modules.builtin"
	grep -qx 'CONFIG_SW_SYNC=y' "$DKDIR/config" ||
		die "the debug kernel has no CONFIG_SW_SYNC=y"
else
	GKVER=$KVER
	VMLINUZ=/boot/vmlinuz-$KVER
	# Out-of-tree modules, into updates/ as NAME.ko: vdxg and sw_sync
	# (the kernel's sw_sync test driver, scripts/build-sw-sync.sh), each
	# if built.
	KO=${VDXG_MODULE:-$VDXG_OUT/module/vdxg.ko}
	SW_SYNC_KO=${VDXG_SW_SYNC_MODULE:-$VDXG_OUT/module/sw_sync/sw_sync.ko}
	mods=(vdxg:"$KO" sw_sync:"$SW_SYNC_KO")
	cp -a "$BASE.mods" "$TMP/mods"
fi
MODDIR=usr/lib/modules/$GKVER
declare -A EXTRA=()
for m in "${mods[@]}"; do
	if [ -f "${m#*:}" ]; then
		EXTRA[${m%%:*}]=${m#*:}
	else
		echo "build-image: no ${m#*:}; image has no ${m%%:*} module"
	fi
done
if [ ${#EXTRA[@]} -gt 0 ] || [ "$DEBUG" = 1 ]; then
	mkdir -p "$TMP/mods/lib/modules/$GKVER/updates" "$OV/$MODDIR/updates"
	for m in "${!EXTRA[@]}"; do
		ko=${EXTRA[$m]}
		vermagic=$(modinfo -F vermagic "$ko" | cut -d' ' -f1)
		[ "$vermagic" = "$GKVER" ] ||
			die "$ko is built for $vermagic, the guest kernel is $GKVER"
		cp "$ko" "$TMP/mods/lib/modules/$GKVER/updates/$m.ko"
	done
	depmod -b "$TMP/mods" "$GKVER"
	for m in "${!EXTRA[@]}"; do
		# Its own dependencies must be in the base closure.
		for dep in $(modinfo -F depends "${EXTRA[$m]}" | tr , ' '); do
			grep -q "/${dep//[-_]/[-_]}\.ko:" "$TMP/mods/lib/modules/$GKVER/modules.dep" ||
				die "$m.ko needs $dep, which is not in the image's MODS"
		done
		cp "$TMP/mods/lib/modules/$GKVER/updates/$m.ko" "$OV/$MODDIR/updates/"
		echo "build-image: ${EXTRA[$m]} included"
	done
	cp "$TMP/mods/lib/modules/$GKVER"/modules.* "$OV/$MODDIR/"
fi

shopt -s nullglob
for f in "$VDXG_OUT"/igt-tests/*; do
	[ -f "$f" ] && [ -x "$f" ] && cp "$f" "$OV/opt/vdxg/igt-tests/"
done
for f in "$VDXG_OUT"/tools/*; do
	[ -f "$f" ] && [ -x "$f" ] && cp "$f" "$OV/opt/vdxg/bin/"
done
for f in "$VDXG_TOP"/igt-tests/*.txt; do
	cp "$f" "$OV/opt/vdxg/lists/"
done
install -m 755 "$VDXG_TOP/igt-tests/guest-run.sh" "$OV/opt/vdxg/bin/vdxg-igt-run"
install -m 755 "$VDXG_TOP/tools/vdxg-migrate-guest.sh" "$OV/opt/vdxg/bin/vdxg-migrate-guest"
# weston and a Wayland client on vdxg: only the --gl image has weston.
if [ "$GL" = 1 ]; then
	install -m 755 "$VDXG_TOP/tools/vdxg-weston-run.sh" \
		"$OV/opt/vdxg/bin/vdxg-weston-run"
	# vdxg_gl's piglit tests as a profile of their own
	# (scripts/piglit-profile.py), from the base's piglit profiles.
	PIGLIT_TESTS=usr/lib/x86_64-linux-gnu/piglit/tests
	mkdir -p "$TMP/piglit"
	zstd -q -dc "$BASE" | (cd "$TMP/piglit" && cpio -i -d --quiet \
		"$PIGLIT_TESTS/opengl.xml.gz" "$PIGLIT_TESTS/shader.xml.gz" \
		"$PIGLIT_TESTS/glslparser.xml.gz") ||
		die "no piglit profiles in $BASE"
	python3 "$VDXG_TOP/scripts/piglit-profile.py" \
		"$VDXG_TOP/igt-tests/piglit-gles2-tests.txt" \
		"$OV/opt/vdxg/lists/piglit-gles2.xml.gz" \
		"$TMP/piglit/$PIGLIT_TESTS"/{opengl,shader,glslparser}.xml.gz ||
		die "making the piglit profile failed"
	install -m 755 "$VDXG_TOP/tools/vdxg-gl-bench.sh" \
		"$OV/opt/vdxg/bin/vdxg-gl-bench"
fi
shopt -u nullglob

# The Mesa stack (scripts/build-mesa.sh), first in the loader's path. /init
# runs ldconfig (under 0.1 s even in the --gl image): the cache must list
# the base's libraries too, which only the guest has all together.
MESA=$VDXG_OUT/mesa/opt/vdxg-mesa
if [ -d "$MESA/lib" ]; then
	mkdir -p "$OV/etc/ld.so.conf.d"
	cp -a "$MESA" "$OV/opt/"
	echo /opt/vdxg-mesa/lib >"$OV/etc/ld.so.conf.d/00-vdxg-mesa.conf"
	echo "build-image: $MESA included"
else
	echo "build-image: no $MESA; image has no vdxg Mesa (scripts/build-mesa.sh)"
fi

cat >"$OV/init" <<'INIT'
#!/bin/sh
# vdxg guest init (generated by scripts/build-image.sh).
#
# Kernel command line (set by scripts/vm.sh):
#   vdxgvm.mode=cmd|interactive
#   vdxgvm.cmd=<base64 of a shell command>     run with sh -c
#   vdxgvm.cmdz=<base64 of it gzipped>         the same, for a long one
#   vdxgvm.collect=<base64 of a guest dir>     copied back to the host
#   vdxgvm.load=<module,...>                   modprobe'd before the command
# Channels: ttyS0 kernel console, ttyS1 the command's output, ttyS2 the
# results: a base64 tar.gz between markers, then VDXG-EXIT=<status>.
export PATH=/opt/vdxg/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=linux LANG=C.UTF-8
bb=/usr/bin/busybox
$bb mount -t proc proc /proc
$bb mount -t sysfs sysfs /sys
$bb mount -t devtmpfs devtmpfs /dev
$bb mkdir -p /dev/pts /dev/shm
$bb mount -t devpts devpts /dev/pts
$bb mount -t tmpfs tmpfs /dev/shm
$bb mount -t tmpfs tmpfs /tmp
$bb mount -t tmpfs tmpfs /run
$bb mount -t debugfs debugfs /sys/kernel/debug
$bb mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
[ -d /sys/kernel/config ] && $bb mount -t configfs configfs /sys/kernel/config
$bb hostname vdxg-guest
ln -sf /proc/self/fd /dev/fd
# The Mesa stack in /opt/vdxg-mesa/lib comes before the system's libraries.
[ -f /etc/ld.so.conf.d/00-vdxg-mesa.conf ] && ldconfig
# The kernel asks for modules through /sbin/modprobe; nothing else loads
# them (no udev), so vdxg stays unloaded unless a command loads it.

mode=cmd cmd= collect= load=
for w in $(cat /proc/cmdline); do
	case $w in
	vdxgvm.mode=*) mode=${w#*=} ;;
	vdxgvm.cmd=*) cmd=$(echo "${w#*=}" | base64 -d) ;;
	vdxgvm.cmdz=*) cmd=$(echo "${w#*=}" | base64 -d | $bb gunzip) ;;
	vdxgvm.collect=*) collect=$(echo "${w#*=}" | base64 -d) ;;
	vdxgvm.load=*) load=$(echo "${w#*=}" | tr , ' ') ;;
	esac
done

off() {
	sync
	echo o >/proc/sysrq-trigger
	$bb poweroff -f
}

for m in $load; do
	modprobe "$m" || echo "vdxg-init: modprobe $m failed" >/dev/console
done

if [ "$mode" = interactive ]; then
	echo "vdxg-init: interactive shell; exit to power off"
	cd /root 2>/dev/null || cd /
	$bb setsid $bb cttyhack /bin/bash -l
	off
fi

# Hold the output and result ports open for the whole run so that their
# raw mode sticks; closing them at the end waits for the transmit to drain.
exec 3>/dev/ttyS1 4>/dev/ttyS2
stty -F /dev/ttyS1 raw -echo 115200
stty -F /dev/ttyS2 raw -echo 115200

mkdir -p /tmp/vdxgvm/out
cd /tmp
sh -c "$cmd" </dev/null >&3 2>&3
rc=$?

# A kernel with kmemleak (the debug kernel): scan now, twice (an object
# is reported once it stayed unreferenced past a scan), and put the report
# in the kernel log, where scripts/vm.sh looks for "unreferenced object".
km=/sys/kernel/debug/kmemleak
if [ -w $km ]; then
	echo "vdxg-init: kmemleak scan" >&3
	echo scan >$km; sleep 5; echo scan >$km
	cat $km >/tmp/kmemleak.txt
	echo "vdxg-init: kmemleak: $(grep -c 'unreferenced object' /tmp/kmemleak.txt) leak report(s)" >/dev/kmsg
	while IFS= read -r l; do
		echo "kmemleak: $l" >/dev/kmsg
	done </tmp/kmemleak.txt
fi

dmesg >/tmp/vdxgvm/out/dmesg.txt 2>&1
if [ -n "$collect" ]; then
	if [ -d "$collect" ]; then
		cp -a "$collect" /tmp/vdxgvm/out/collect
	else
		echo "vdxg-init: $collect is not a directory" >&3
	fi
fi
{
	echo VDXG-RESULTS-BEGIN
	tar -C /tmp/vdxgvm/out -czf - . | base64 -w 76
	echo VDXG-RESULTS-END
	echo "VDXG-EXIT=$rc"
} >&4
exec 3>&- 4>&-
off
INIT
chmod 755 "$OV/init"

mkcpio "$OV" | gzip -1 >"$TMP/overlay.cpio.gz"
cat "$BASE" "$TMP/overlay.cpio.gz" >"$OUT_GUEST/.initrd.img.$$"
mv "$OUT_GUEST/.initrd.img.$$" "$OUT_GUEST/initrd.img"
cp "$VMLINUZ" "$OUT_GUEST/vmlinuz"
echo "$GKVER" >"$OUT_GUEST/kver"
echo "build-image: $OUT_GUEST/initrd.img ($(du -h "$OUT_GUEST/initrd.img" | cut -f1)), kernel $GKVER"
