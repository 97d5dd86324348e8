# SPDX-License-Identifier: MIT
# shellcheck shell=bash disable=SC2153 # the caller sets NAME and the rest
#
# What the scripts that build a Debian source tarball with a directory of
# this repo overlaid on it share (build-qemu.sh, build-mesa.sh). Source it
# after lib.sh; it changes nothing. The functions read these variables of
# the caller, set before they are called:
#
#   NAME          the result: $VDXG_CACHE/$NAME-<key>, published as
#                 $VDXG_OUT/$NAME
#   RESULT        $VDXG_CACHE/$NAME-<key> for this run's inputs (set_result)
#   KEEP_RESULTS  results of $NAME kept in the cache, newest first
#   SRC_PKG SRC_SUITE TARBALL  the Debian source package, the suite apt
#                 takes it from, and its orig tarball
#   TOPDIR        the tarball's top directory
#   OVERLAY       the repo's directory copied over the tarball's tree
#   PATCHES       *.patch, -p1 against the tarball, applied in name order
#   DL TREE SRC   the download cache, the build tree, its unpacked source
#   LOG           the build log
#
# and the caller defines have_result, true when $RESULT is complete.

# The messages' prefix: the script's name without .sh.
BUILD_TAG=${0##*/}
BUILD_TAG=${BUILD_TAG%.sh}

msg() { echo "$BUILD_TAG: $*"; }

fail_log() {
	echo "$BUILD_TAG: $1 failed; last lines of $LOG:" >&2
	tail -n 40 "$LOG" >&2
	exit 1
}

# set_result WORDS INPUT...: RESULT for the contents of the INPUTs (files
# and directories, given by absolute paths), this file's, and WORDS (the
# versions and options of the build).
set_result() {
	local words=$1
	shift
	RESULT=$VDXG_CACHE/$NAME-$({ hash_inputs "$@" \
		"$VDXG_TOP/scripts/lib-build.sh"; echo "$words"; } |
		sha256sum | cut -c1-16)
}

# publish: $VDXG_OUT/$NAME -> $RESULT.
publish() {
	touch "$RESULT"		# most recently used: pruned last
	mkdir -p "$VDXG_OUT"
	if [ -e "$VDXG_OUT/$NAME" ] && [ ! -L "$VDXG_OUT/$NAME" ]; then
		rm -rf "${VDXG_OUT:?}/${NAME:?}"
	fi
	ln -sfn "$RESULT" "$VDXG_OUT/$NAME"
}

# exit_if_built: when the result of these inputs exists, publish it and
# end the script.
exit_if_built() {
	if have_result; then
		publish
		msg "up to date: $VDXG_OUT/$NAME -> $RESULT"
		exit 0
	fi
}

# build_lock WHAT: one build of $NAME at a time (fd 9, held until the
# script ends); a run that waited for another one may find its result.
build_lock() {
	mkdir -p "$VDXG_CACHE" "$DL" "$(dirname "$LOG")"
	exec 9>"$VDXG_CACHE/.$NAME-build.lock"
	if ! flock -n 9; then
		msg "waiting for another $1 build to finish"
		flock 9
		exit_if_built
	fi
}

# fetch_tarball: $DL/$TARBALL, checked against the SHA256 that apt
# publishes for it, which it leaves in $sha.
fetch_tarball() {
	local tmp got
	sha=$(apt-cache showsrc "$SRC_PKG" 2>/dev/null | awk -v f="$TARBALL" '
		/^Checksums-Sha256:/ { in_sums = 1; next }
		/^[^ ]/ { in_sums = 0 }
		in_sums && $3 == f && !found { print $1; found = 1 }')
	[ -n "$sha" ] || die "apt knows no $TARBALL (is $SRC_SUITE with" \
		"deb-src configured? run scripts/setup.sh)"
	if [ -f "$DL/$TARBALL" ] &&
	   [ "$(sha256sum <"$DL/$TARBALL" | cut -d' ' -f1)" = "$sha" ]; then
		return 0
	fi
	msg "downloading $TARBALL"
	tmp=$(mktemp -d "$DL/.get.XXXXXX")
	# Only the orig tarball of these source packages is published: the
	# .dsc and the Debian tarball answer 404, so apt-get exits non-zero.
	(cd "$tmp" && apt-get source --download-only "$SRC_PKG/$SRC_SUITE") \
		>>"$LOG" 2>&1 || true
	if [ ! -f "$tmp/$TARBALL" ]; then
		rm -rf "$tmp"
		fail_log "download of $TARBALL"
	fi
	got=$(sha256sum <"$tmp/$TARBALL" | cut -d' ' -f1)
	if [ "$got" != "$sha" ]; then
		rm -rf "$tmp"
		die "$TARBALL: SHA256 $got, expected $sha"
	fi
	mv "$tmp/$TARBALL" "$DL/$TARBALL"
	rm -rf "$tmp"
}

# tree_is KEY: the tree was configured for KEY (the tarball and the
# configure options); mark_tree KEY says so once it is.
tree_is() { [ "$(cat "$TREE/.vdxg-tree" 2>/dev/null)" = "$1" ]; }
mark_tree() { echo "$1" >"$TREE/.vdxg-tree"; }

# unpack_tree KEY: a fresh $SRC from the tarball unless the tree is
# already KEY's.
unpack_tree() {
	tree_is "$1" && return 0
	msg "unpacking $TARBALL"
	rm -rf "$TREE"
	mkdir -p "$TREE/.unpack"
	tar -xJf "$DL/$TARBALL" -C "$TREE/.unpack" --no-same-owner
	mv "$TREE/.unpack/$TOPDIR" "$SRC"
	rmdir "$TREE/.unpack"
}

# cp_if_changed SRC DST: copy with dereferencing, leaving DST and its
# mtime alone when the contents are the same (so ninja rebuilds nothing).
cp_if_changed() {
	if ! cmp -s "$1" "$2"; then
		mkdir -p "$(dirname "$2")"
		cp -L "$1" "$2.vdxg-tmp"
		mv -f "$2.vdxg-tmp" "$2"
	fi
}

# write_if_changed FILE: replace FILE by stdin when the contents differ.
write_if_changed() {
	local tmp=$1.vdxg-tmp
	cat >"$tmp"
	if cmp -s "$tmp" "$1"; then
		rm -f "$tmp"
	else
		mv -f "$tmp" "$1"
	fi
}

# tarball_files DIR: the tarball's versions of the files named on stdin
# (relative to its top directory) into DIR/$TOPDIR; false when it lacks
# one of them.
tarball_files() {
	rm -rf "$1"
	mkdir -p "$1"
	sed "s|^|$TOPDIR/|" | tar -xJf "$DL/$TARBALL" -C "$1" \
		--no-same-owner --files-from=- 2>/dev/null
}

# overlay: copy $OVERLAY (but its patches/) over $SRC, and the files that
# $PATCHES patch, patched. Files dropped from the overlay since the last
# run go back to the tarball's version, or away when the tarball has none.
overlay() {
	local f manifest=$TREE/.vdxg-overlay name=${OVERLAY#"$VDXG_TOP"/}
	local new gone files patched p
	files=$(cd "$OVERLAY" && find -L . -type f -not -path './patches/*' |
		sed 's|^\./||' | LC_ALL=C sort)
	patched=$(cat "$PATCHES"/*.patch 2>/dev/null |
		sed -n 's|^+++ [^/]*/\([^	 ]*\).*|\1|p' | LC_ALL=C sort -u)
	f=$(LC_ALL=C comm -12 <(echo "$files") <(echo "$patched"))
	[ -z "$f" ] || die "$name/patches patch files that $name/ also overlays: $f"
	new=$(printf '%s\n' "$files" "$patched" | sed '/^$/d' | LC_ALL=C sort)
	if [ -f "$manifest" ]; then
		gone=$(LC_ALL=C comm -23 "$manifest" <(echo "$new"))
		if [ -n "$gone" ]; then
			msg "restoring files dropped from $name/"
			tarball_files "$TREE/.orig" <<<"$gone" || true
			while read -r f; do
				if [ -f "$TREE/.orig/$TOPDIR/$f" ]; then
					cp "$TREE/.orig/$TOPDIR/$f" "$SRC/$f"
				else
					rm -f "$SRC/$f"
				fi
			done <<<"$gone"
			rm -rf "$TREE/.orig"
		fi
	fi
	while read -r f; do
		[ -z "$f" ] || cp_if_changed "$OVERLAY/$f" "$SRC/$f"
	done <<<"$files"
	# Patch the tarball's versions aside, then copy those that changed.
	if [ -n "$patched" ]; then
		tarball_files "$TREE/.patch" <<<"$patched" ||
			die "$name/patches patch files that $TARBALL lacks"
		for p in "$PATCHES"/*.patch; do
			patch -s -p1 -d "$TREE/.patch/$TOPDIR" <"$p" ||
				die "${p#"$VDXG_TOP"/} does not apply"
		done
		while read -r f; do
			cp_if_changed "$TREE/.patch/$TOPDIR/$f" "$SRC/$f"
		done <<<"$patched"
		rm -rf "$TREE/.patch"
	fi
	echo "$new" >"$manifest"
}

# save_result: $RESULT.tmp, filled by the caller, becomes $RESULT, which
# is published; results of older inputs go, but the newest KEEP_RESULTS:
# enough that builds from several work trees do not prune a result
# another one is using.
save_result() {
	rm -rf "$RESULT"
	mv "$RESULT.tmp" "$RESULT"
	publish
	find "$VDXG_CACHE" -maxdepth 1 -type d -regextype posix-extended \
		-regex ".*/$NAME-[0-9a-f]{16}" \
		-printf '%T@ %p\n' | sort -rn | tail -n +$((KEEP_RESULTS + 1)) |
		cut -d' ' -f2- | while read -r d; do
			[ "$d" = "$RESULT" ] || rm -rf "$d"
		done
}
