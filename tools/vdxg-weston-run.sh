#!/bin/bash
# SPDX-License-Identifier: MIT
#
# vdxg-weston-run [OPTIONS] [-- CLIENT...]: weston on vdxg in the GL guest
# image (scripts/build-image.sh --gl installs it as
# /opt/vdxg/bin/vdxg-weston-run; boot it with scripts/vm.sh --gl).
#
# Starts weston on its DRM backend with its GL renderer on the vdxg card
# (Mesa from /opt/vdxg-mesa, first in the loader's path), runs a Wayland
# client (default weston-simple-egl) for some seconds, optionally asks the
# host for a screendump of head 0 midway (scripts/vm-hostd.py keeps it as
# out/vm/RUN/screendump-ID.ppm), stops both and prints what weston says
# of its GL renderer and the client's output.
#
# The guest has no seat manager, udev or VT to hand out: weston runs as
# root with libseat's noop backend (LIBSEAT_BACKEND=noop: devices opened
# directly), --continue-without-input (libinput finds no input device
# that udev has not tagged), and XDG_RUNTIME_DIR under /run.
#
# Options:
#   -t SECONDS   how long the client runs (default 10)
#   -S ID        screendump ID midway through the client's run
#   -n N         N screendumps (ID-1 to ID-N) evenly spread over the run
#   -k           kiosk-shell (the client fullscreen) instead of desktop-shell
#   -o DIR       logs: weston.log, client.log (default /tmp/vdxg-weston)
#   -w MODEL     VDXG_SUBMIT for weston (exec or patch; default: unset)
#   -c MODEL     VDXG_SUBMIT for the client (default: unset)
#   -e           EGL_LOG_LEVEL=debug for the client
#   -a 'ARGS'    more weston arguments, e.g. '--logger-scopes=log,drm-backend'
# Exit status: 0 when weston came up with its GL renderer on vdxg and the
# client ran until stopped; 1 otherwise.
set -u

secs=10 shot='' nshots=1 wargs='' shell=desktop out=/tmp/vdxg-weston wsub='' csub='' egldbg=0
while getopts t:S:n:ko:w:c:a:eh o; do
	case $o in
	t) secs=$OPTARG ;;
	S) shot=$OPTARG ;;
	n) nshots=$OPTARG ;;
	k) shell=kiosk ;;
	o) out=$OPTARG ;;
	w) wsub=$OPTARG ;;
	c) csub=$OPTARG ;;
	e) egldbg=1 ;;
	a) wargs=$OPTARG ;;
	*) sed -n '4,31p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- weston-simple-egl
say() { echo "vdxg-weston-run: $*"; }

[ -d /sys/module/vdxg ] || modprobe vdxg || { say "modprobe vdxg failed"; exit 1; }
card=
for c in /sys/class/drm/card[0-9]*; do
	case ${c##*/} in *-*) continue ;; esac
	[ "$(basename "$(readlink -f "$c/device/driver")")" = vdxg ] &&
		{ card=${c##*/}; break; }
done
[ -n "$card" ] || { say "no vdxg card in /sys/class/drm"; exit 1; }

mkdir -p "$out"
export XDG_RUNTIME_DIR=/run/user/0
mkdir -p "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
export LIBSEAT_BACKEND=noop
cat >"$out/weston.ini" <<EOF
[core]
idle-time=0
require-input=false

[shell]
background-color=0xff1c3a5a
panel-position=top
clock-format=none
EOF

read -r -a wextra <<<"$wargs"
say "weston on $card (${wsub:+VDXG_SUBMIT=$wsub, }$shell-shell)"
env ${wsub:+VDXG_SUBMIT=$wsub} weston --backend=drm --renderer=gl \
	--drm-device="$card" --continue-without-input --shell="$shell" \
	--config="$out/weston.ini" --socket=wayland-vdxg \
	--log="$out/weston.log" "${wextra[@]}" >"$out/weston.out" 2>&1 &
weston=$!

# Up once its socket exists: weston has set its output and GL renderer
# up (and logged GL_RENDERER) by then.
ok=0
for _ in $(seq 1 600); do
	kill -0 $weston 2>/dev/null || break
	[ -S "$XDG_RUNTIME_DIR/wayland-vdxg" ] && { ok=1; break; }
	sleep 0.1
done
renderer=$(sed -n 's/.*GL renderer: *//p' "$out/weston.log" | head -n1)
say "weston's GL renderer: ${renderer:-(none logged)}"
if [ "$ok" = 0 ]; then
	say "weston did not come up; its log:"
	cat "$out/weston.log" "$out/weston.out"
	kill $weston 2>/dev/null
	exit 1
fi
sleep 2

export WAYLAND_DISPLAY=wayland-vdxg
say "client: $* for $secs s${csub:+ (VDXG_SUBMIT=$csub)}"
cenv=()
[ -z "$csub" ] || cenv+=("VDXG_SUBMIT=$csub")
[ "$egldbg" = 0 ] || cenv+=(EGL_LOG_LEVEL=debug)
env "${cenv[@]}" "$@" >"$out/client.log" 2>&1 &
client=$!
# screendump ID: the host keeps head 0 as screendump-ID.ppm.
screendump() {
	local tty
	tty=/dev/$(sed -n 's/.*vdxgvm.hostd=\([^ ]*\).*/\1/p' /proc/cmdline)
	if [ "$tty" = /dev/ ]; then
		say "no screendump $1: no host channel"
		return
	fi
	stty -F "$tty" raw -echo
	exec 5<>"$tty"
	printf 'VDXG-HOST %s screendump 0 none\n' "$1" >&5
	timeout 120 sed -n "/^VDXG-HOST-\(END\|ERROR\) $1/{p;q}" <&5
	exec 5>&-
}
if [ -n "$shot" ] && [ "$nshots" -gt 1 ]; then
	for i in $(seq 1 "$nshots"); do
		sleep "$(awk "BEGIN { print $secs / ($nshots + 1) }")"
		screendump "$shot-$i"
	done
	sleep "$(awk "BEGIN { print $secs / ($nshots + 1) }")"
elif [ -n "$shot" ]; then
	sleep $((secs / 2))
	screendump "$shot"
	sleep $((secs - secs / 2))
else
	sleep "$secs"
fi
# SIGINT: weston's clients stop cleanly on it (their stdout flushed).
rc=1
if kill -0 $client 2>/dev/null; then
	kill -INT $client
	for _ in $(seq 1 50); do
		kill -0 $client 2>/dev/null || break
		sleep 0.1
	done
	kill $client 2>/dev/null
	rc=0
fi
wait $client
crc=$?
if [ "$rc" = 0 ]; then
	say "client ran until stopped"
else
	say "client ended early (status $crc)"
fi
kill $weston 2>/dev/null
wait $weston
say "--- client output"
cat "$out/client.log"
say "--- weston log"
cat "$out/weston.log"
[ -s "$out/weston.out" ] && { say "--- weston stderr"; cat "$out/weston.out"; }
case $renderer in vdxg*) ;; *) rc=1 ;; esac
exit $rc
