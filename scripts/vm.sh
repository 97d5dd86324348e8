#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Boot the vdxg guest (q35, TCG) and run one command in it.
#
#   scripts/vm.sh [options] -- CMD...     run CMD (sh -c "CMD...") in the guest
#   scripts/vm.sh --interactive           a shell on the serial console
#   scripts/vm.sh --check-log FILE...     only look for kernel problems in
#                                         FILES (exit 126 if any, else 0)
#
# Options:
#   --gl                 boot the image with the GL clients (out/guest-gl/,
#                        scripts/build-image.sh --gl) instead of out/guest/
#   --kernel debug       boot the debug kernel's image (out/guest-debug/,
#                        make debug-image) instead of out/guest/; with --gl,
#                        the GL image for it (out/guest-debug-gl/,
#                        scripts/build-image.sh --debug --gl)
#   --mem MIB            the guest's memory (default 2048; 3072 with --gl,
#                        whose root of about 1 GB must fit in the half of
#                        the memory that the initramfs may take)
#   --timeout S          kill QEMU after S seconds (default 600)
#   --device NAME        the display device (default vdxg); "none" for none
#   --device-args ARGS   its properties, e.g. 'vram-size=128M,msix=off'; each
#                        is also passed to the guest as vdxg_test.PROP=VALUE
#                        (sizes with K/M/G/T suffixes converted to bytes)
#   --append ARGS        extra kernel command line
#   --name RUN           the run's directory: out/vm/RUN (default "default")
#   --collect DIR        copy guest directory DIR to out/vm/RUN/collect/
#   --load MOD[,MOD]     modprobe these before the command
#   --qemu-arg ARG       one extra QEMU argument (repeatable), placed before
#                        the display device (e.g. the root port it sits on)
#   --quiet              do not stream the command's output to stdout
#   --smp N              the guest's CPUs (default 2)
#   --migrate            let the guest ask the host channel to live-migrate
#                        it to a second QEMU (see "migrate" below)
#
# out/vm/RUN/ gets serial.log (kernel console), output.log (the command's
# stdout and stderr), dmesg.txt (the guest's dmesg after the command),
# qemu.log, collect/, and hostd.log and screendump-*.ppm from the host
# channel below.
#
# Exit status: the command's, or 124 on timeout, 125 when the guest did not
# report an exit status (crash, panic, QEMU failure), 126 when the kernel
# logged a WARN, BUG, oops, lockdep, KASAN/UBSAN, hung task or similar.
# On a kernel with kmemleak (the debug kernel) the guest scans for leaks
# after the command and logs the report: a leak fails the run too; so do
# DEBUG_OBJECTS ("ODEBUG:") and KFENCE reports (kernel_problems below).
#
# The guest talks on four 16550 ports: ttyS0 the console, ttyS1 the
# command's output, ttyS2 the results (base64 tar.gz of dmesg and the
# collected directory) and the VDXG-EXIT=<status> marker. QEMU writes each
# to a file; no marker means the run failed.
#
# ttyS3 is a request/response channel to the host (the kernel command line
# says so with vdxgvm.hostd=ttyS3): scripts/vm-hostd.py listens on a unix
# socket that QEMU connects the port to, and answers the guest's requests
# through QMP (QEMU serves it on a second unix socket). Today's request is
# a screendump: the guest writes "VDXG-HOST ID screendump HEAD raw|gz", the
# host runs QMP screendump (PPM) of console HEAD (the vdxg CRTC; the device
# gets id=vdxgdisp so that heads other than 0 can be named), keeps the file
# as out/vm/RUN/screendump-ID.ppm and sends it back, optionally gzipped, in
# base64 between "VDXG-HOST-BEGIN ID ENC RAWLEN CRC32 PAYLOADLEN" and
# "VDXG-HOST-END ID" lines (or one "VDXG-HOST-ERROR ID message" line); see
# scripts/vm-hostd.py. Requests are answered one at a time, synchronously.
# QEMU feeds the port only as fast as the guest takes it (the helper just
# blocks), so timing does not matter; the answer's length and CRC let the
# guest detect a damaged one and ask again. The helper logs to
# out/vm/RUN/hostd.log. --interactive has no such channel.
#
# With --migrate the guest may also write "VDXG-HOST ID migrate": the
# helper starts a destination QEMU with this run's command line plus
# -incoming, migrates the running guest to it over a unix socket, quits the
# source and answers from the destination with the migration's figures
# (also in out/vm/RUN/migrate-N.json; the destination's output is
# qemu-destN.log). The serial files are opened for appending, so each log
# goes on where the source left it; this script then watches the
# destination. Repeatable: each request migrates again.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

TIMEOUT=600 DEVICE=vdxg DEVARGS= APPEND= RUN=default COLLECT= LOAD=
INTERACTIVE=0 QUIET=0 QEMU_EXTRA=() GL=0 KERN=default CHECK_LOG=0 MIGRATE=0 SMP=2
MEM=
usage() { sed -n '4,29p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--timeout) TIMEOUT=$2; shift 2 ;;
	--device) DEVICE=$2; shift 2 ;;
	--device-args) DEVARGS=$2; shift 2 ;;
	--append) APPEND=$2; shift 2 ;;
	--name) RUN=$2; shift 2 ;;
	--collect) COLLECT=$2; shift 2 ;;
	--load) LOAD=$2; shift 2 ;;
	--qemu-arg) QEMU_EXTRA+=("$2"); shift 2 ;;
	--interactive) INTERACTIVE=1; shift ;;
	--quiet) QUIET=1; shift ;;
	--smp) SMP=$2; shift 2 ;;
	--migrate) MIGRATE=1; shift ;;
	--gl) GL=1; shift ;;
	--kernel)
		case $2 in
		debug|default) KERN=$2 ;;
		*) die "--kernel: debug or default, not $2" ;;
		esac
		shift 2 ;;
	--mem) MEM=$2; shift 2 ;;
	--check-log) CHECK_LOG=1; shift; break ;;
	--) shift; break ;;
	-h|--help) usage ;;
	*) echo "vm.sh: unknown option $1" >&2; usage ;;
	esac
done

fail() { echo "vm.sh: $RUN: $*" >&2; }

GUEST=guest
[ "$KERN" = default ] || GUEST+=-debug
[ "$GL" = 0 ] || GUEST+=-gl

# Kernel problems: WARN, BUG (KASAN, KFENCE, sleeping in atomic context...),
# oops, lockdep and RCU-lockdep splats, kmemleak and DEBUG_OBJECTS reports,
# hung tasks, stalls. scripts/vm-log-selftest.sh checks this list against
# the sample logs in scripts/testdata/kernel-logs/.
BAD='WARNING:|BUG:|kernel BUG|Oops|KASAN|UBSAN|KFENCE|general protection fault'
BAD+='|possible circular locking|inconsistent lock state|suspicious RCU usage'
BAD+='|possible recursive locking|lock held when returning|Call Trace'
BAD+='|sleeping function called from invalid context'
BAD+='|unreferenced object|ODEBUG:'
BAD+='|blocked for more than|hung_task|soft lockup|hard LOCKUP|detected stall'
BAD+='|Kernel panic|refcount_t:|list_add corruption|list_del corruption'
BAD+='|kernel NULL pointer|unable to handle page fault|segfault at'

# kernel_problems FILE...: report the problems in FILEs (20 lines each at
# most); false when there are none.
kernel_problems() {
	local f hits l found=1
	for f in "$@"; do
		[ -f "$f" ] || continue
		if hits=$(grep -naE "$BAD" "$f" | head -n 20) && [ -n "$hits" ]; then
			found=0
			while IFS= read -r l; do
				fail "kernel problem in ${f##*/} line ${l%%:*}: ${l#*:}"
			done <<<"$hits"
		fi
	done
	return $found
}

if [ "$CHECK_LOG" = 1 ]; then
	[ $# -gt 0 ] || usage
	RUN=check-log
	for f in "$@"; do [ -f "$f" ] || die "--check-log: no file $f"; done
	if kernel_problems "$@"; then exit 126; fi
	exit 0
fi
[ "$INTERACTIVE" = 1 ] || [ $# -gt 0 ] || usage
[[ $TIMEOUT =~ ^[0-9]+$ ]] || die "--timeout wants seconds"
if [ -z "$MEM" ]; then
	MEM=2048
	[ "$GL" = 0 ] || MEM=3072
fi
[[ $MEM =~ ^[0-9]+$ ]] || die "--mem wants MiB"
[[ $RUN =~ ^[A-Za-z0-9._-]+$ ]] || die "--name wants [A-Za-z0-9._-]"
CMD="$*"

# A run that fails from here on leaves no earlier run's results behind.
DIR=$VDXG_OUT/vm/$RUN
[ "$INTERACTIVE" = 1 ] || rm -rf "$DIR"

KERNEL=$VDXG_OUT/$GUEST/vmlinuz INITRD=$VDXG_OUT/$GUEST/initrd.img
if [ ! -f "$KERNEL" ] || [ ! -f "$INITRD" ]; then
	[ "$GUEST" != guest-debug-gl ] ||
		die "no debug GL guest image in $VDXG_OUT/$GUEST: run scripts/build-image.sh --debug --gl"
	[ "$GUEST" != guest-gl ] ||
		die "no GL guest image in $VDXG_OUT/$GUEST: run make gl-image"
	[ "$GUEST" = guest ] ||
		die "no debug guest image in $VDXG_OUT/$GUEST: run make debug-image"
	die "no guest image in $VDXG_OUT/guest: run scripts/build-image.sh"
fi

# QEMU: $VDXG_QEMU, else the project's build, else the host's (which has no
# vdxg device: use it with --device bochs-display for development).
if [ -n "${VDXG_QEMU:-}" ]; then
	QEMU=$VDXG_QEMU
elif [ -x "$VDXG_OUT/qemu/qemu-system-x86_64" ]; then
	QEMU=$VDXG_OUT/qemu/qemu-system-x86_64
else
	QEMU=$(command -v qemu-system-x86_64) ||
		die "no QEMU: run scripts/build-qemu.sh"
	[ "$DEVICE" != vdxg ] ||
		die "$VDXG_OUT/qemu/qemu-system-x86_64 missing and the host's QEMU has no vdxg device (run scripts/build-qemu.sh, or use --device bochs-display)"
fi

# size_bytes VALUE: 128M -> 134217728; anything else unchanged.
size_bytes() {
	local v=$1 n s
	if [[ $v =~ ^([0-9]+)([KkMmGgTt])i?[Bb]?$ ]]; then
		n=${BASH_REMATCH[1]} s=${BASH_REMATCH[2]}
		case $s in
		[Kk]) echo $((n << 10)) ;;
		[Mm]) echo $((n << 20)) ;;
		[Gg]) echo $((n << 30)) ;;
		[Tt]) echo $((n << 40)) ;;
		esac
	else
		echo "$v"
	fi
}

b64() { printf '%s' "$1" | base64 -w0; }

CMDLINE="console=ttyS0,115200 panic=-1 log_buf_len=4M printk.devkmsg=on"
CMDLINE+=" vdxg_test.device=$DEVICE"
if [ -n "$DEVARGS" ]; then
	IFS=, read -r -a props <<<"$DEVARGS"
	for p in "${props[@]}"; do
		[[ $p == *=* ]] || die "--device-args: '$p' is not PROP=VALUE"
		CMDLINE+=" vdxg_test.${p%%=*}=$(size_bytes "${p#*=}")"
	done
fi
if [ "$INTERACTIVE" = 1 ]; then
	CMDLINE+=" vdxgvm.mode=interactive"
else
	# A long command (a retry's list of tests) goes compressed.
	if [ "${#CMD}" -lt 1000 ]; then
		CMDLINE+=" vdxgvm.mode=cmd vdxgvm.cmd=$(b64 "$CMD")"
	else
		CMDLINE+=" vdxgvm.mode=cmd vdxgvm.cmdz=$(printf '%s' "$CMD" |
			gzip -9n | base64 -w0)"
	fi
	CMDLINE+=" vdxgvm.hostd=ttyS3"
	[ -z "$COLLECT" ] || CMDLINE+=" vdxgvm.collect=$(b64 "$COLLECT")"
fi
[ -z "$LOAD" ] || CMDLINE+=" vdxgvm.load=$LOAD"
[ -z "$APPEND" ] || CMDLINE+=" $APPEND"
# x86's COMMAND_LINE_SIZE is 2048.
[ ${#CMDLINE} -lt 2000 ] ||
	die "kernel command line too long (${#CMDLINE} bytes): shorten the command"

# The display device's id, for QMP screendump of a head other than 0.
DEV=() DEVID=
if [ "$DEVICE" != none ]; then
	if [[ ,$DEVARGS, != *,id=* ]]; then
		DEVID=vdxgdisp
		DEV=(-device "$DEVICE,id=$DEVID${DEVARGS:+,$DEVARGS}")
	else
		DEVID=$(sed -n 's/.*\(^\|,\)id=\([^,]*\).*/\2/p' <<<"$DEVARGS")
		DEV=(-device "$DEVICE,$DEVARGS")
	fi
fi

# Firmware: what build-qemu.sh recorded for its QEMU, else Debian's
# seabios and qemu-system-data.
FW=(-L /usr/share/seabios -L /usr/share/qemu)
if [ -f "$(dirname "$QEMU")/firmware-args" ]; then
	read -r -a FW <"$(dirname "$QEMU")/firmware-args"
fi

# -nodefaults: QEMU 10's default CD-ROM on q35's AHCI, with no medium,
# costs ~30 s of SeaBIOS AHCI timeouts before the kernel starts.
QARGS=(-nodefaults -machine q35 -accel tcg -cpu max -smp "$SMP" -m "$MEM" -nic none
       -display none -vga none -no-reboot "${FW[@]}"
       -kernel "$KERNEL" -initrd "$INITRD" -append "$CMDLINE"
       "${QEMU_EXTRA[@]}" "${DEV[@]}")

if [ "$INTERACTIVE" = 1 ]; then
	exec "$QEMU" "${QARGS[@]}" -serial mon:stdio -serial null -serial null
fi

rm -rf "$DIR"
mkdir -p "$DIR"
: >"$DIR/output.log"
printf '%q ' "$QEMU" "${QARGS[@]}" >"$DIR/qemu-cmdline.txt"
echo >>"$DIR/qemu-cmdline.txt"

# The host channel's sockets: short paths (sun_path has 108 bytes).
SOCKS=$(mktemp -d /tmp/vdxg-vm.XXXXXX)
QPID= TPID= HPID=
cleanup() {
	[ -z "$QPID" ] || kill "$QPID" 2>/dev/null || true
	[ ! -s "$SOCKS/qemu.pid" ] || kill "$(cat "$SOCKS/qemu.pid")" 2>/dev/null || true
	[ -z "$TPID" ] || kill "$TPID" 2>/dev/null || true
	[ -z "$HPID" ] || kill "$HPID" 2>/dev/null || true
	rm -rf "$SOCKS"
}
trap cleanup EXIT INT TERM

# The serial chardevs (append=on: with --migrate the destination QEMU
# goes on writing the same files; the directory is new, so it changes
# nothing otherwise).
CHARDEVS=(-monitor none
	-chardev file,id=con,path="$DIR/serial.log",append=on -serial chardev:con
	-chardev file,id=out,path="$DIR/output.log",append=on -serial chardev:out
	-chardev file,id=res,path="$DIR/results.txt",append=on -serial chardev:res
	-chardev socket,id=hostd,path="$SOCKS/hostd" -serial chardev:hostd)
MIGARGS=()
if [ "$MIGRATE" = 1 ]; then
	# Source and destination run one copy of QEMU: the build in the cache
	# may be replaced meanwhile (build-qemu.sh keeps the newest few).
	cp "$QEMU" "$SOCKS/qemu-system-x86_64"
	QEMU=$SOCKS/qemu-system-x86_64
	# The destination's command line: this one, but for its QMP socket.
	printf '%s\0' "$QEMU" "${QARGS[@]}" "${CHARDEVS[@]}" >"$SOCKS/qemu-args"
	MIGARGS=(--migrate-args "$SOCKS/qemu-args" --pidfile "$SOCKS/qemu.pid")
fi

# The helper first: QEMU connects to its socket when it starts.
python3 "$VDXG_TOP/scripts/vm-hostd.py" --serial "$SOCKS/hostd" \
	--qmp "$SOCKS/qmp" --dir "$DIR" ${DEVID:+--device "$DEVID"} \
	"${MIGARGS[@]}" >"$SOCKS/hostd.out" 2>"$DIR/hostd.err" &
HPID=$!
for _ in $(seq 100); do
	grep -qx ready "$SOCKS/hostd.out" 2>/dev/null && break
	kill -0 "$HPID" 2>/dev/null || break
	sleep 0.1
done
grep -qx ready "$SOCKS/hostd.out" 2>/dev/null ||
	die "the host channel's helper did not start (see $DIR/hostd.err)"

start=$(date +%s.%N)
"$QEMU" "${QARGS[@]}" "${CHARDEVS[@]}" \
	-qmp unix:"$SOCKS/qmp",server=on,wait=off \
	</dev/null >"$DIR/qemu.log" 2>&1 &
QPID=$!
if [ "$QUIET" = 0 ]; then
	# With --migrate the QEMU that ends the run is the helper's child:
	# follow the helper, which lives as long as the last QEMU.
	tail -n +1 -s 0.2 -f --pid=$([ "$MIGRATE" = 1 ] && echo "$HPID" ||
		echo "$QPID") "$DIR/output.log" &
	TPID=$!
fi

# cur_qpid: the QEMU running the guest: the source, or after a migration
# (--migrate) the destination the helper names.
cur_qpid() {
	if [ -s "$SOCKS/qemu.pid" ]; then cat "$SOCKS/qemu.pid"; else echo "$QPID"; fi
}
qemu_alive() {
	kill -0 "$QPID" 2>/dev/null || kill -0 "$(cur_qpid)" 2>/dev/null
}

# stop_qemu: TERM, then KILL.
stop_qemu() {
	local p
	p=$(cur_qpid)
	kill "$QPID" "$p" 2>/dev/null || true
	sleep 1
	kill -9 "$QPID" "$p" 2>/dev/null || true
}

# The guest powers off after its exit marker. Now and then (seen after
# long runs) the ACPI S5 write leaves QEMU running with both vCPUs halted
# and the run state "running" (on the instruction-counted clock, most
# runs). The results are complete by then, and the guest writes nothing
# after them but its power-off, so QEMU is stopped EXIT_GRACE seconds
# after the marker instead of at the timeout.
EXIT_GRACE=5
timed_out=0 marker_at=
deadline=$((SECONDS + TIMEOUT))
while qemu_alive; do
	if [ $SECONDS -ge $deadline ]; then
		timed_out=1
		stop_qemu
		break
	fi
	if [ -z "$marker_at" ]; then
		! grep -qa '^VDXG-EXIT=' "$DIR/results.txt" 2>/dev/null ||
			marker_at=$SECONDS
	elif [ $((SECONDS - marker_at)) -ge $EXIT_GRACE ]; then
		echo "vm.sh: $RUN: QEMU still running $EXIT_GRACE s after the guest's exit marker; stopping it" >&2
		stop_qemu
		break
	fi
	sleep 0.2
done
qrc=0
wait "$QPID" 2>/dev/null || qrc=$?
[ -z "$TPID" ] || wait "$TPID" 2>/dev/null || true
TPID=
# QEMU is gone: so is the helper's peer.
[ -z "$HPID" ] || kill "$HPID" 2>/dev/null || true
wait "$HPID" 2>/dev/null || true
HPID=
[ -s "$DIR/hostd.err" ] || rm -f "$DIR/hostd.err"
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
printf '%.1f\n' "$elapsed" >"$DIR/elapsed"

# Results: decode the tar between the markers.
rc=
if [ -f "$DIR/results.txt" ]; then
	tr -d '\r' <"$DIR/results.txt" >"$DIR/results.clean"
	if grep -qx VDXG-RESULTS-END "$DIR/results.clean"; then
		mkdir -p "$DIR/guest"
		sed -n '/^VDXG-RESULTS-BEGIN$/,/^VDXG-RESULTS-END$/p' \
			"$DIR/results.clean" | sed '1d;$d' | base64 -d |
			tar -C "$DIR/guest" -xzf - ||
			fail "could not unpack the guest's results"
		[ -f "$DIR/guest/dmesg.txt" ] && mv "$DIR/guest/dmesg.txt" "$DIR/"
		[ -d "$DIR/guest/collect" ] && mv "$DIR/guest/collect" "$DIR/"
		rmdir "$DIR/guest" 2>/dev/null || true
	fi
	rc=$(sed -n 's/^VDXG-EXIT=\([0-9]\{1,3\}\)$/\1/p' "$DIR/results.clean" | tail -n1)
	rm -f "$DIR/results.clean"
fi

# Kernel problems, in the console log and the guest's dmesg.
kernel_bad=0
! kernel_problems "$DIR/serial.log" "$DIR/dmesg.txt" || kernel_bad=1
[ -f "$DIR/dmesg.txt" ] || fail "no dmesg.txt from the guest (see $DIR/serial.log)"

status=0
if [ "$timed_out" = 1 ]; then
	fail "timeout: killed QEMU after $TIMEOUT s (see $DIR/serial.log, $DIR/output.log)"
	status=124
elif [ -z "$rc" ]; then
	fail "no VDXG-EXIT marker from the guest: it crashed, panicked or never ran the command (QEMU status $qrc; see $DIR/serial.log, $DIR/qemu.log)"
	# Where only this script's output is kept (CI): the console's end
	# (a panic) and QEMU's (an abort).
	echo "vm.sh: $RUN: the end of the guest's console:" >&2
	tail -n 40 "$DIR/serial.log" >&2 || true
	echo "vm.sh: $RUN: the end of QEMU's log:" >&2
	tail -n 5 "$DIR/qemu.log" >&2 || true
	status=125
fi
if [ "$kernel_bad" = 1 ]; then
	fail "kernel warnings or errors logged (guest status ${rc:-none})"
	[ "$status" != 0 ] || status=126
fi
if [ "$status" = 0 ]; then
	status=$rc
	echo "vm.sh: $RUN: guest exit status $rc in ${elapsed%.*} s" >&2
fi
exit "$status"
