#!/bin/bash
# SPDX-License-Identifier: MIT
#
# vdxg-migrate-guest VARIANT...: the guest half of scripts/migrate-test.sh
# (installed in the image as /opt/vdxg/bin/vdxg-migrate-guest). Needs vdxg
# loaded and a host channel that migrates (scripts/vm.sh --migrate).
#
# Each variant starts a client, asks the host to live-migrate the machine
# (a second QEMU takes over) while the client runs, and checks the client's
# own verdict after it finished on the destination (vdxg loaded, but for
# rebar-small; rebar loads it when it is not). The clients run until told
# to stop (-t 0, SIGTERM), once they have done some seconds of work on the
# destination, however long the migration took:
#
#   demo    vdxg-demo -c (render, page, flip; frames checked against the
#           reference renderer) across the migration; then, on the
#           destination, a still flipped by PRESENT whose screendump the
#           host compares with tools/demo-reference.png
#   paging  vdxg-load paging; the paging engine is held (debugfs
#           paging_hold) in the middle of its transfers, the machine
#           migrated, then released on the destination
#   draw    vdxg-load draw: long DRAW_TRIANGLES jobs back to back, the
#           machine migrated while one runs
#   rebar   like demo, shorter, on a device whose VRAM BAR the driver
#           resized at probe (the default device; the BAR size is printed)
#   rebar-small
#           vdxg not loaded yet: the VRAM BAR resized to 16 MiB, below the
#           device's reset size, through sysfs (resource2_resize), and
#           moved (setpci) to an address that is 16 MiB- but not 64 MiB-
#           aligned (the old window + 16 MiB), as firmware or a guest may
#           place it; the machine migrated, the BAR put back where Linux
#           assigned it, vdxg loaded and vdxg-demo -c run on the destination
#
# Prints "MIGRATE-RESULT VARIANT pass|fail [why]" for each, and the figures
# ("MIGRATE-FIGURE VARIANT key=value ..."); exit status: the failures.
set -u

card=$(ls /dev/dri 2>/dev/null | grep -m1 '^card')
dbg=/sys/kernel/debug/dri/${card#card}
tty=/dev/$(sed -n 's/.*vdxgvm.hostd=\([^ ]*\).*/\1/p' /proc/cmdline)
stty -F "$tty" raw -echo
failures=0 MIGERR=

# host ID REQUEST...: a host channel request; the answer's lines go to
# /tmp/host-ID. True when it was answered (not an error).
host() {
	local id=$1
	shift
	exec 5<>"$tty"
	printf 'VDXG-HOST %s %s\n' "$id" "$*" >&5
	timeout 900 sed -n "/^VDXG-HOST-ERROR $id /{p;q};
		/^VDXG-HOST-BEGIN $id /,/^VDXG-HOST-END $id\$/{p;/^VDXG-HOST-END $id\$/q}" \
		<&5 >"/tmp/host-$id"
	exec 5>&-
	grep -q "^VDXG-HOST-END $id\$" "/tmp/host-$id"
}

# migrate ID: migrate now; the figures into /tmp/migrate-ID.
migrate() {
	local t0=$(date +%s.%N)
	echo "migrate-guest: $1: migrating"
	if host "mig-$1" migrate; then
		sed '1d;$d' "/tmp/host-mig-$1" | base64 -d >"/tmp/migrate-$1"
		echo "migrate-guest: $1: migrated (guest time $(busybox awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $t0 }") s):" \
			$(cat "/tmp/migrate-$1")
		echo "MIGRATE-FIGURE $1" $(grep -E '^(total_time_ms|downtime_ms|setup_time_ms|ram_transferred|wall_s)=' "/tmp/migrate-$1")
		return 0
	fi
	echo "migrate-guest: $1: migration FAILED: $(cat "/tmp/host-mig-$1")"
	# Why, in short: the destination's first complaint, else the error.
	MIGERR=$(grep -o 'destination status [0-9]*: [^|]*' "/tmp/host-mig-$1" | head -n1)
	[ -n "$MIGERR" ] || MIGERR=$(sed -n "s/^VDXG-HOST-ERROR mig-$1 //p" "/tmp/host-mig-$1" | cut -c1-200)
	return 1
}

result() {
	echo "MIGRATE-RESULT $1 $2${3:+ $3}"
	[ "$2" = pass ] || failures=$((failures + 1))
}

# bg_start CMD...: CMD in the background ($BG), its output in /tmp/bg.log
# and streamed; bg_wait: its status.
bg_start() {
	: >/tmp/bg.log
	"$@" >/tmp/bg.log 2>&1 &
	BG=$!
	tail -n +1 -f /tmp/bg.log &
	TAIL=$!
}
bg_wait() {
	local rc=0
	wait "$BG" || rc=$?
	sleep 0.5
	kill "$TAIL" 2>/dev/null
	wait "$TAIL" 2>/dev/null
	return $rc
}
# wait_for REGEX SECONDS: until the background output has a line matching.
wait_for() {
	local i
	for i in $(seq $(($2 * 5))); do
		grep -qE "$1" /tmp/bg.log && return 0
		kill -0 "$BG" 2>/dev/null || return 1
		sleep 0.2
	done
	return 1
}
# run_on REGEX LINES: after the migration, until the background client has
# printed LINES more progress lines matching REGEX (about a second apart,
# each after one more frame, cycle or job on the destination), or has
# ended (its status says why). False when it goes 300 s without one: then
# it is killed (a hang guard).
run_on() {
	local n last=-1 idle=0 want
	want=$(($(grep -cE "$1" /tmp/bg.log) + $2))
	while :; do
		n=$(grep -cE "$1" /tmp/bg.log)
		[ "$n" -ge "$want" ] && return 0
		kill -0 "$BG" 2>/dev/null || return 0
		if [ "$n" != "$last" ]; then
			last=$n idle=0
		elif [ $((idle += 1)) -ge 1500 ]; then
			kill -KILL "$BG"
			return 1
		fi
		sleep 0.2
	done
}
# bg_stop: SIGTERM (the -t 0 clients end by it), the background client's
# status (bg_wait); SIGKILL if it has not ended 300 s later.
bg_stop() {
	local i
	kill -TERM "$BG" 2>/dev/null
	for i in $(seq 1500); do
		kill -0 "$BG" 2>/dev/null || break
		sleep 0.2
	done
	kill -KILL "$BG" 2>/dev/null
	bg_wait
}

# demo_run NAME SECONDS: vdxg-demo -c across a migration, then SECONDS
# (of its progress lines) on the destination.
demo_run() {
	local name=$1 secs=$2 m=0 rc=0 on=0 before after total bad
	bg_start vdxg-demo -t 0 -c 10
	if ! wait_for '^vdxg-demo: frame ' 300; then
		bg_stop
		result "$name" fail "vdxg-demo did not start rendering"
		return
	fi
	sleep 4
	kill -USR1 "$BG"
	sleep 1
	migrate "$name" || m=1
	kill -USR1 "$BG" 2>/dev/null
	run_on '^vdxg-demo: frame ' "$secs" || on=1
	bg_stop || rc=$?
	before=$(sed -n 's/^vdxg-demo: at frame \([0-9]*\),.*/\1/p' /tmp/bg.log | sed -n 1p)
	after=$(sed -n 's/^vdxg-demo: at frame \([0-9]*\),.*/\1/p' /tmp/bg.log | sed -n 2p)
	total=$(sed -n 's/^vdxg-demo: \([0-9]*\) frames in .*/\1/p' /tmp/bg.log)
	bad=$(sed -n 's/^vdxg-demo: checked \([0-9]*\) frames .*: \([0-9]*\) wrong$/\1 checked, \2 wrong/p' /tmp/bg.log)
	echo "MIGRATE-FIGURE $name frames_before=${before:-?} frames_just_after=${after:-?} frames_total=${total:-?} check=\"${bad:-none}\""
	if [ "$m" != 0 ]; then
		result "$name" fail "the migration failed: $MIGERR (the demo ran on on the source: status $rc)"
	elif [ "$on" != 0 ]; then
		result "$name" fail "vdxg-demo stopped making frames after the migration (just after: ${after:-?})"
	elif [ "$rc" != 0 ]; then
		result "$name" fail "vdxg-demo failed after the migration (status $rc)"
	elif [ -z "$after" ] || [ -z "$total" ] || [ "$total" -le "$after" ]; then
		result "$name" fail "no frame after the migration (just after: ${after:-?}, total ${total:-?})"
	elif ! grep -q ': 0 wrong$' /tmp/bg.log; then
		result "$name" fail "frames differ from the reference"
	else
		result "$name" pass "$total frames ($before before the migration), ${bad:-?}"
	fi
}

v_demo() {
	local rc=0
	demo_run demo 25
	# The display after the migration: a still by PRESENT, screendumped
	# by the host (which compares it with the reference image) once it
	# has been flipping for a second, before the still is stopped.
	echo "migrate-guest: demo: a still for the reference image"
	bg_start vdxg-demo -p -s 1.3 -t 0
	if wait_for '^vdxg-demo: frame ' 300; then
		host still screendump 0 none ||
			echo "migrate-guest: the screendump failed: $(cat /tmp/host-still)"
	fi
	bg_stop || rc=$?
	[ "$rc" = 0 ] || result demo-still fail "vdxg-demo -s failed (status $rc)"
}

v_paging() {
	local m=0 rc=0 on=0
	# -w: its wait for the held engine lasts the whole migration, which
	# the host allows 660 s (60 s for the destination to start, 600 s).
	bg_start vdxg-load paging -t 0 -w 900 -m 32 -n 2
	if ! wait_for 'paging: .* cycles' 300; then
		bg_stop
		result paging fail "vdxg-load paging did not start"
		return
	fi
	sleep 2
	grep -E '^(transfer|batches)' "$dbg/paging" | sed 's/^/migrate-guest: paging before: /'
	# Paused in the middle of its transfers (the engine is never idle
	# long), with moves queued behind; released on the destination.
	echo 1 >"$dbg/paging_hold"
	sleep 0.5
	migrate paging || m=1
	echo 0 >"$dbg/paging_hold"
	kill -USR1 "$BG"
	run_on 'paging: .* cycles' 15 || on=1
	bg_stop || rc=$?
	grep -E '^(transfer|batches)' "$dbg/paging" | sed 's/^/migrate-guest: paging after: /'
	if [ "$m" != 0 ]; then
		result paging fail "the migration failed: $MIGERR (vdxg-load status $rc)"
	elif [ "$on" != 0 ]; then
		result paging fail "vdxg-load paging stopped moving after the migration"
	elif [ "$rc" != 0 ]; then
		result paging fail "vdxg-load paging failed after the migration (status $rc)"
	else
		result paging pass "$(tail -n 1 /tmp/bg.log | sed 's/^vdxg-load: paging: //')"
	fi
}

v_draw() {
	local m=0 rc=0 on=0
	bg_start vdxg-load draw -t 0
	if ! wait_for 'draw: .* jobs checked' 300; then
		bg_stop
		result draw fail "vdxg-load draw did not start"
		return
	fi
	sleep 3
	migrate draw || m=1
	kill -USR1 "$BG"
	run_on 'draw: .* jobs checked' 10 || on=1
	bg_stop || rc=$?
	if [ "$m" != 0 ]; then
		result draw fail "the migration failed: $MIGERR (vdxg-load status $rc)"
	elif [ "$on" != 0 ]; then
		result draw fail "vdxg-load draw stopped drawing after the migration"
	elif [ "$rc" != 0 ]; then
		result draw fail "vdxg-load draw failed after the migration (status $rc)"
	else
		result draw pass "$(tail -n 1 /tmp/bg.log | sed 's/^vdxg-load: draw: //')"
	fi
}

v_rebar() {
	local dev
	if [ -z "$card" ]; then
		modprobe vdxg || { result rebar fail "modprobe vdxg failed"; return; }
		card=$(ls /dev/dri | grep -m1 '^card')
		dbg=/sys/kernel/debug/dri/${card#card}
	fi
	dev=$(readlink -f "/sys/class/drm/$card/device")
	echo "migrate-guest: rebar: BAR2 $(sed -n 3p "$dev/resource")"
	lspci -vv -s "${dev##*/}" | grep -iE 'Region 2|BAR 2|Resizable' |
		sed 's/^/migrate-guest: rebar: /'
	demo_run rebar 10
}

v_rebar_small() {
	local p rc=0 m=0
	p=/sys/bus/pci/devices/$(lspci -D -n -d 1234:d3d0 | cut -d' ' -f1 | head -n1)
	echo "migrate-guest: rebar-small: BAR2 before: $(sed -n 3p "$p/resource")"
	local old_base
	old_base=$(($(sed -n '3s/ .*//p' "$p/resource")))
	echo 4 >"$p/resource2_resize" ||
		{ result rebar-small fail "resizing the BAR through sysfs failed"; return; }
	echo "migrate-guest: rebar-small: BAR2 after: $(sed -n 3p "$p/resource")"
	# Save where Linux put it, then move it: the BAR registers only (no
	# driver is bound, nothing maps it).
	local lo hi
	lo=$(setpci -s "${p##*/}" BASE_ADDRESS_2)
	hi=$(setpci -s "${p##*/}" BASE_ADDRESS_3)
	setpci -s "${p##*/}" BASE_ADDRESS_2=$(printf '%08x' $((old_base + (16 << 20) | (0x$lo & 0xf))))
	setpci -s "${p##*/}" BASE_ADDRESS_3=0
	echo "migrate-guest: rebar-small: BAR2 registers now $(setpci -s "${p##*/}" BASE_ADDRESS_3)$(setpci -s "${p##*/}" BASE_ADDRESS_2) (Linux assigned $hi$lo);" \
		"$(lspci -vv -s "${p##*/}" | grep -i 'BAR 2:' | sed 's/^[[:space:]]*//')"
	migrate rebar-small || m=1
	setpci -s "${p##*/}" BASE_ADDRESS_2="$lo" BASE_ADDRESS_3="$hi"
	modprobe vdxg || rc=1
	card=$(ls /dev/dri 2>/dev/null | grep -m1 '^card')
	if [ "$m" != 0 ]; then
		result rebar-small fail "the migration failed: $MIGERR"
	elif [ "$rc" != 0 ] || [ -z "$card" ]; then
		result rebar-small fail "vdxg did not load on the destination"
	elif ! vdxg-demo -t 10 -c 10 >/tmp/bg.log 2>&1; then
		cat /tmp/bg.log
		result rebar-small fail "vdxg-demo failed on the destination"
	else
		cat /tmp/bg.log
		result rebar-small pass "$(grep -E '^vdxg-demo: checked' /tmp/bg.log)"
	fi
}

for v in "$@"; do
	echo "=== migrate-guest: $v"
	case $v in
	demo|paging|draw|rebar) "v_$v" ;;
	rebar-small) v_rebar_small ;;
	*) result "$v" fail "no such variant" ;;
	esac
done
echo "migrate-guest: $failures failed"
exit $failures
