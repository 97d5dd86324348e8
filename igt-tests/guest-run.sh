#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The guest half of scripts/igt.sh, installed in the guest image as
# /opt/vdxg/bin/vdxg-igt-run by scripts/build-image.sh.
#
#   vdxg-igt-run [--module M[,M]] [--upstream BOOT] [--vdxg]
#                [--except TEST[,TEST]] [--also NAME[,NAME]] [--only TEST[,TEST]]
#                [--out DIR] [--timeout S] [--multiple]
#
# Loads the modules M in order (the first is the driver under test; vgem
# after it gives kms_prime its second device) and sw_sync, builds a test
# root (symlinks to IGT's tests and vdxg's) and a test list (the upstream
# list's tests of boot BOOT, see its "[BOOT]" lines, and/or igt@<each vdxg
# test> but the --except ones, then the --also names (igt@TEST@SUBTEST
# too); or just the --only tests), runs igt_runner and leaves results.json
# in DIR (default /tmp/igt/collect). --multiple runs the subtests of a
# test binary in one execution of it (igt_runner --multiple-mode): its
# fixtures run once, not once a subtest; a subtest that crashes or times
# out ends that execution, and igt_runner goes on after it.
set -u
MODULE= UPSTREAM= VDXG=0 EXCEPT= ALSO= ONLY= OUT=/tmp/igt/collect TIMEOUT=300 MULTIPLE=
while [ $# -gt 0 ]; do
	case $1 in
	--module) MODULE=$2; shift 2 ;;
	--upstream) UPSTREAM=$2; shift 2 ;;
	--vdxg) VDXG=1; shift ;;
	--except) EXCEPT=$2; shift 2 ;;
	--also) ALSO=$2; shift 2 ;;
	--only) ONLY=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--multiple) MULTIPLE=--multiple-mode; shift ;;
	*) echo "vdxg-igt-run: unknown option $1" >&2; exit 2 ;;
	esac
done

IGT=/usr/libexec/igt-gpu-tools
LISTS=/opt/vdxg/lists
ROOT=/tmp/igt/root
mkdir -p "$ROOT" "$OUT"

for m in $(echo "$MODULE" | tr , ' '); do
	echo "vdxg-igt-run: modprobe $m"
	modprobe "$m" || { echo "vdxg-igt-run: modprobe $m failed" >&2; exit 1; }
done
# sw_sync.ko (scripts/build-sw-sync.sh), the kernel's sw_sync test driver
# that the guest kernel is built without: /sys/kernel/debug/sync/sw_sync,
# which syncobj_wait, syncobj_timeline and syncobj_eventfd need.
if modinfo sw_sync >/dev/null 2>&1; then
	echo "vdxg-igt-run: modprobe sw_sync"
	modprobe sw_sync || { echo "vdxg-igt-run: modprobe sw_sync failed" >&2; exit 1; }
else
	echo "vdxg-igt-run: warning: no sw_sync module in the image; the tests that need it skip" >&2
fi
ls -l /dev/dri 2>&1
# IGT's DRIVER_ANY, what most tests open, leaves out some drivers that IGT
# knows (vgem, virtio_gpu): name the driver under test when it is one.
case ${MODULE%%,*} in
virtio_gpu) export IGT_FORCE_DRIVER=virtio_gpu ;;
esac

# One ln for all (a fork per test costs seconds under TCG).
ln -sf "$IGT"/* "$ROOT/"
[ -z "$(ls /opt/vdxg/igt-tests)" ] || ln -sf /opt/vdxg/igt-tests/* "$ROOT/"
rm -f "$ROOT/test-list.txt"

# igt_runner also reads test-list.txt in the test root: make it ours.
LIST=$ROOT/test-list.txt
: >"$LIST"
name() { case $1 in igt@*) echo "$1" ;; *) echo "igt@$1" ;; esac; }
if [ -n "$ONLY" ]; then
	for t in $(echo "$ONLY" | tr , ' '); do name "$t" >>"$LIST"; done
else
	if [ -n "$UPSTREAM" ]; then
		grep -v '^[[:space:]]*\(#\|$\)' "$LISTS/upstream-tests.txt" |
			awk -v boot="$UPSTREAM" '
				BEGIN { cur = "default" }
				/^\[[A-Za-z0-9_-]+\]$/ { cur = substr($1, 2, length($1) - 2); next }
				cur == boot { print $1 }' |
			while read -r t; do name "$t"; done >>"$LIST"
	fi
	if [ "$VDXG" = 1 ]; then
		# vdxg_sriov needs the PF behind a root port: the sriov boot.
		# vdxg_fuzz runs for a minute or more: the debug-kernel boot
		# and `make fuzz` run it (--only). vdxg_hostile's races are
		# for KASAN and its abuse test takes a minute: the debug boot.
		# vdxg_gl runs GL clients that only the GL image has: the gl
		# boot.
		for t in /opt/vdxg/igt-tests/*; do
			case ${t##*/} in vdxg_sriov|vdxg_fuzz|vdxg_hostile|vdxg_gl) continue ;; esac
			case ",$EXCEPT," in *",${t##*/},"*) continue ;; esac
			[ -x "$t" ] && name "${t##*/}" >>"$LIST"
		done
		for t in $(echo "$ALSO" | tr , ' '); do name "$t" >>"$LIST"; done
	fi
fi
echo "vdxg-igt-run: test list:"
sed 's/^/  /' "$LIST"

igt_runner --overwrite --log-level verbose --test-list "$LIST" $MULTIPLE \
	--per-test-timeout "$TIMEOUT" --inactivity-timeout "$TIMEOUT" \
	--name vdxg "$ROOT" /tmp/igt/results
rc=$?
echo "vdxg-igt-run: igt_runner exited $rc"
# In multiple mode igt_runner's results.json may give a subtest another
# one's stderr (and so "warn"): the WARNING lines the tests really printed
# go along, for scripts/igt-results.py to judge a warn by.
if [ -n "$MULTIPLE" ]; then
	grep -h 'WARNING' /tmp/igt/results/*/err.txt >"$OUT/warnings.txt" 2>/dev/null
	echo "$MULTIPLE" >"$OUT/multiple-mode"
fi
if [ -f /tmp/igt/results/results.json ]; then
	cp /tmp/igt/results/results.json "$OUT/"
else
	echo "vdxg-igt-run: no results.json; running igt_results" >&2
	igt_results /tmp/igt/results && cp /tmp/igt/results/results.json "$OUT/"
fi
exit $rc
