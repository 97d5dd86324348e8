#!/bin/sh
# SPDX-License-Identifier: MIT
#
# vdxg-gl-bench: GL clients by each driver, in the GL guest (scripts/
# bench-gl.sh runs it): kmscube's frame rate on the display (at most its
# 60 Hz) and offscreen at 1024x768, and glmark2-es2-drm's score at
# 640x480, by vdxg through EXEC, by vdxg through SUBMIT (the patch
# model), by sid's llvmpipe and by our softpipe, one after the other in
# the same boot. Prints "RESULT driver client value" lines and each
# glmark2 scene's frame rate (from its frame time) as "SCENE driver scene
# fps"; glmark2-mean-fps is their mean, glmark2's score unrounded.
#
#   vdxg-gl-bench [-f KMSCUBE_FRAMES] [-d GLMARK2_SECONDS] [DRIVER...]
#
# DRIVER: vdxg-exec vdxg-patch llvmpipe softpipe (default: all four).
set -u

frames=150
duration=2
while getopts f:d: opt; do
	case $opt in
	f) frames=$OPTARG ;;
	d) duration=$OPTARG ;;
	*) echo "usage: $0 [-f frames] [-d seconds] [driver...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- vdxg-exec vdxg-patch llvmpipe softpipe

# glmark2's default benchmarks (glmark2 2023.01), each run for $duration s.
SCENES="build:use-vbo=false build:use-vbo=true texture:texture-filter=nearest
texture:texture-filter=linear texture:texture-filter=mipmap shading:shading=gouraud
shading:shading=blinn-phong-inf shading:shading=phong shading:shading=cel
bump:bump-render=high-poly bump:bump-render=normals bump:bump-render=height
effect2d:kernel=0,1,0;1,-4,1;0,1,0; effect2d:kernel=1,1,1,1,1;1,1,1,1,1;1,1,1,1,1;
pulsar:light=false:quads=5:texture=false
desktop:blur-radius=5:effect=blur:passes=1:separable=true:windows=4
desktop:effect=shadow:windows=4
buffer:columns=200:interleave=false:update-dispersion=0.9:update-fraction=0.5:update-method=map
buffer:columns=200:interleave=false:update-dispersion=0.9:update-fraction=0.5:update-method=subdata
buffer:columns=200:interleave=true:update-dispersion=0.9:update-fraction=0.5:update-method=map
ideas:speed=duration jellyfish terrain shadow refract
conditionals:fragment-steps=0:vertex-steps=0 conditionals:fragment-steps=5:vertex-steps=0
conditionals:fragment-steps=0:vertex-steps=5 function:fragment-complexity=low:fragment-steps=5
function:fragment-complexity=medium:fragment-steps=5 loop:fragment-loop=false:fragment-steps=5:vertex-steps=5
loop:fragment-steps=5:fragment-uniform=false:vertex-steps=5
loop:fragment-steps=5:fragment-uniform=true:vertex-steps=5"

# kmscube in legacy mode stops waiting for a flip when stdin is readable.
fifo=/tmp/vdxg-gl-bench.in
[ -p "$fifo" ] || mkfifo "$fifo"
exec 0<>"$fifo"

# sid's Mesa for llvmpipe: its directory first in the loader's path. But
# glmark2 dlopen()s libEGL.so and libGLESv2.so, names only development
# packages install, and which only our prefix has: without these links
# to sid's libraries it would mix our EGL with sid's GBM, and crash.
sid=/tmp/vdxg-gl-bench.sid
mkdir -p "$sid"
ln -sf /usr/lib/x86_64-linux-gnu/libEGL.so.1 "$sid/libEGL.so"
ln -sf /usr/lib/x86_64-linux-gnu/libGLESv2.so.2 "$sid/libGLESv2.so"
sid=$sid:/usr/lib/x86_64-linux-gnu

run() {
	case $1 in
	vdxg-exec) shift; env VDXG_SUBMIT=exec "$@" ;;
	vdxg-patch) shift; env VDXG_SUBMIT=patch "$@" ;;
	llvmpipe) shift; env LD_LIBRARY_PATH="$sid" "$@" ;;
	softpipe) shift; env MESA_LOADER_DRIVER_OVERRIDE=kms_swrast \
		GALLIUM_DRIVER=softpipe "$@" ;;
	esac
}

for d in "$@"; do
	out=/tmp/vdxg-gl-bench.$d
	run "$d" kmscube -c "$frames" >"$out.kmscube" 2>&1
	fps=$(sed -n 's/.*Rendered .* (\([0-9.]*\) fps).*/\1/p' \
		"$out.kmscube" | tail -n1)
	grep -q "renderer" "$out.kmscube" &&
		echo "RENDERER $d $(sed -n 's/.*renderer: "\(.*\)"/\1/p' "$out.kmscube" | head -n1 | tr ' ' _)"
	echo "RESULT $d kmscube-fps ${fps:-0}"
	# Offscreen (-O, no page flips: not held to the display's 60 Hz), at
	# the display's size; the CPU renderers need the card node for their
	# dumb buffers, vdxg renders on its render node.
	node=/dev/dri/card0
	case $d in vdxg-*)
		for node in /dev/dri/renderD*; do break; done ;;
	esac
	run "$d" kmscube -D "$node" -O -v 1024x768 -c "$frames" \
		>"$out.kmscube-o" 2>&1
	fps=$(sed -n 's/.*Rendered .* (\([0-9.]*\) fps).*/\1/p' \
		"$out.kmscube-o" | tail -n1)
	echo "RESULT $d kmscube-offscreen-fps ${fps:-0}"
	args=
	for s in $SCENES; do
		args="$args -b $s:duration=$duration"
	done
	# shellcheck disable=SC2086 # one -b per scene
	run "$d" glmark2-es2-drm --winsys-options=drm-device=/dev/dri/card0 \
		-s 640x480 $args >"$out.glmark2" 2>&1
	# Each scene's frame rate from its frame time: glmark2's FPS is a
	# whole number, too coarse for the CPU renderers' 1 or 2.
	sed -n 's/^\[\([^]]*\)\] \(.*\): FPS: [0-9]* FrameTime: \([0-9.]*\) ms.*/\1:\2 \3/p' \
		"$out.glmark2" |
		awk -v d="$d" '$2 > 0 { printf "SCENE %s %s %.3f\n", d, $1, 1000 / $2 }'
	# The mean of the scenes' frame rates: glmark2's score, unrounded
	# (glmark2 prints no score when a scene fails).
	sed -n 's/^\[[^]]*\] .*: FPS: [0-9]* FrameTime: \([0-9.]*\) ms.*/\1/p' \
		"$out.glmark2" |
		awk -v d="$d" '$1 > 0 { s += 1000 / $1; n++ }
			END { if (n) printf "RESULT %s glmark2-mean-fps %.3f\n", d, s / n }'
	echo "RESULT $d glmark2-scenes $(grep -c 'FPS:' "$out.glmark2")"
	grep -E "Error|Unsupported|failed" "$out.glmark2" | sed "s/^/PROBLEM $d /"
	score=$(sed -n 's/.*glmark2 Score: *\([0-9]*\).*/\1/p' "$out.glmark2")
	echo "RESULT $d glmark2-score ${score:-0}"
done
