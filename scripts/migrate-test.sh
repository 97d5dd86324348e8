#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# make migrate-test: live migration of a running vdxg guest with clients
# attached. Each boot runs tools/vdxg-migrate-guest.sh in the guest, which
# asks the host channel (scripts/vm.sh --migrate, scripts/vm-hostd.py) to
# migrate the machine, over a unix socket, to a second QEMU on this host
# with the same command line; the destination takes over and the source
# quits. One QEMU pair at a time.
#
#   boot "migrate" (rebar=off: the VRAM BAR is never resized), three
#   migrations in a row:
#     demo        vdxg-demo -c rendering, paging and flipping across the
#                 migration, every 10th frame compared with the reference
#                 renderer; no fence may time out and frames must go on
#     demo-still  then, on the destination, a still flipped by PRESENT:
#                 its screendump against tools/demo-reference.png
#     paging      the paging engine held in the middle of long transfers
#                 (vdxg-load paging, paging_hold), migrated, released
#     draw        migrated while long DRAW_TRIANGLES jobs run (vdxg-load
#                 draw), each job checked
#   boot "migrate-rebar" (the default device):
#     rebar-small before vdxg is loaded, the VRAM BAR resized to 16 MiB
#                 (sysfs resource2_resize) and placed at an address that
#                 the reset-size (64 MiB) BAR could not have (setpci),
#                 migrated; then vdxg loaded and vdxg-demo -c run there
#     rebar       vdxg loaded: the driver resizes the BAR to all of VRAM
#                 at probe; vdxg-demo -c across a migration
#   and per boot:
#     BOOT-kernel no WARN, BUG, oops... in the guest's kernel log, and the
#                 guest finished (scripts/vm.sh's checks)
#
#   scripts/migrate-test.sh [--boots migrate,migrate-rebar] [--no-build]
#
# Prints each result, the migration figures (downtime, total time, frames
# before/after) and "migrate-test: N passed, N failed". Runs in out/vm/
# migrate*/ (migrate-N.json: QEMU's figures; qemu-destN.log: each
# destination's output).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

BOOTS=migrate,migrate-rebar BUILD=1
while [ $# -gt 0 ]; do
	case $1 in
	--boots) BOOTS=$2; shift 2 ;;
	--no-build) BUILD=0; shift ;;
	-h|--help) sed -n '4,35p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $1" ;;
	esac
done
if [ "$BUILD" = 1 ]; then
	make -s -C "$VDXG_TOP" image >/dev/null || die "the image build failed"
fi
# QEMU: the cache keeps only the newest few builds of every engineer's
# sources, and a migration starts a second QEMU minutes after the first:
# run a copy (build-qemu.sh builds again when the cached one is gone).
if [ -z "${VDXG_QEMU:-}" ]; then
	"$VDXG_TOP/scripts/build-qemu.sh" >/dev/null || die "the QEMU build failed"
	mkdir -p "$VDXG_OUT/migrate-qemu"
	cp "$VDXG_OUT/qemu/qemu-system-x86_64" "$VDXG_OUT/qemu/firmware-args" \
		"$VDXG_OUT/migrate-qemu/" || die "no QEMU to copy"
	export VDXG_QEMU=$VDXG_OUT/migrate-qemu/qemu-system-x86_64
fi

passed=0 failed=0
declare -a lines
res() {
	lines+=("$(printf '%-14s %s' "$1" "$2${3:+  ($3)}")")
	if [ "$2" = pass ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}

# boot NAME DEVARGS LOAD VARIANT...
boot() {
	local name=$1 devargs=$2 load=$3 rc dir l v verdict why
	shift 3
	dir=$VDXG_OUT/vm/$name
	echo "=== migrate-test: boot $name (${devargs:-default device}): $*"
	rm -rf "$dir"
	rc=0
	"$VDXG_TOP/scripts/vm.sh" --migrate --name "$name" --timeout 900 \
		${load:+--load "$load"} ${devargs:+--device-args "$devargs"} -- \
		vdxg-migrate-guest "$@" || rc=$?
	for v in "$@"; do
		l=$(tr -d '\r' <"$dir/output.log" 2>/dev/null |
		    grep -a "^MIGRATE-RESULT $v " | tail -n1)
		if [ -z "$l" ]; then
			res "$v" fail "no result from the guest (vm.sh status $rc)"
			continue
		fi
		l=${l#MIGRATE-RESULT $v }
		verdict=${l%% *} why=
		[ "$l" = "$verdict" ] || why=${l#* }
		res "$v" "$verdict" "$why"
		if [ "$v" = demo ]; then
			l=$(grep -sa '^MIGRATE-RESULT demo-still ' "$dir/output.log" | tail -n1)
			if [ -n "$l" ]; then
				res demo-still fail "${l#MIGRATE-RESULT demo-still fail }"
			elif [ ! -f "$dir/screendump-still.ppm" ]; then
				res demo-still fail "no screendump"
			elif python3 "$VDXG_TOP/scripts/imgcmp.py" \
				--out "$VDXG_OUT/migrate-still.png" \
				"$dir/screendump-still.ppm" \
				"$VDXG_TOP/tools/demo-reference.png"; then
				res demo-still pass "matches tools/demo-reference.png"
			else
				res demo-still fail "differs from tools/demo-reference.png (out/migrate-still.png)"
			fi
		fi
	done
	# vm.sh's status is the guest's (its failures) unless it is one of
	# its own: 124 timeout, 125 no exit status, 126 kernel problems.
	if [ ! -f "$dir/dmesg.txt" ]; then
		res "$name-kernel" fail "the guest did not finish (vm.sh status $rc)"
	elif [ "$rc" = 124 ] || [ "$rc" = 125 ]; then
		res "$name-kernel" fail "vm.sh status $rc"
	elif ! "$VDXG_TOP/scripts/vm.sh" --check-log "$dir/serial.log" \
		"$dir/dmesg.txt"; then
		res "$name-kernel" fail "kernel warnings or errors logged (see above)"
	else
		res "$name-kernel" pass "guest finished, kernel log clean"
	fi
	# The figures: the guest's and QEMU's.
	grep -sa '^MIGRATE-FIGURE ' "$dir/output.log" | tr -d '\r' |
		sed "s/^MIGRATE-FIGURE /  $name: /" >>"$FIG"
	for l in "$dir"/migrate-*.json; do
		[ -f "$l" ] || continue
		python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print("  %s: migration %s: downtime %s ms, total %s ms, setup %s ms, %.0f MiB sent, wall %s s" % (
    sys.argv[2], d["migration"], d["downtime_ms"], d["total_time_ms"],
    d["setup_time_ms"], (d["ram_transferred"] or 0) / 1048576, d["wall_s"]))' \
			"$l" "$name" >>"$FIG"
	done
	for l in "$dir"/qemu-dest*.log; do
		[ -s "$l" ] || continue
		sed "s|^|  $name ${l##*/}: |" "$l" | head -n 5 >>"$FIG"
	done
}

FIG=$(mktemp)
trap 'rm -f "$FIG"' EXIT
IFS=, read -r -a boots <<<"$BOOTS"
for b in "${boots[@]}"; do
	case $b in
	migrate) boot migrate rebar=off vdxg demo paging draw ;;
	migrate-rebar) boot migrate-rebar "" "" rebar-small rebar ;;
	*) die "--boots: migrate or migrate-rebar, not $b" ;;
	esac
done

echo
echo "=== migrate-test: figures"
cat "$FIG"
echo "=== migrate-test: results"
printf '%s\n' "${lines[@]}"
echo "migrate-test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
