#!/bin/bash
# tests/robust/build-asan.sh [DIR [CONFIGURE-FLAGS...]]: build a variant of
# the tree in DIR, by default the sanitizer one (ASan+UBSan, configure
# --enable-sanitizers) in build-asan/ at the top of the tree, the folder
# tests/fuzz_args.sh looks in.  (.ci/run's build-delay is the same with
# --enable-test-delay.)
#
# A VPATH build (../configure from DIR) is what automake offers, but it
# refuses to run while the source folder is itself configured (an in-tree
# ./configure, as .ci/run does first): "source directory already
# configured".  Then DIR gets a copy of the sources (the files git tracks or
# would track) and is configured in place.  Either way `make -C DIR check`
# runs the tests with that build.  Exit status: that of the failing step.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-$top/build-asan}
[ $# -gt 0 ] && shift
flags=("${@:---enable-sanitizers}")
jobs=${JOBS:-2}
say() { echo "build-asan: $*" >&2; }

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
cd "$top"
[ -x configure ] || ./bootstrap

if [ ! -f config.status ]; then
	say "VPATH build in $dir"
	cd "$dir"
	[ -f config.status ] || "$top/configure" "${flags[@]}"
	exec make -j"$jobs"
fi

say "the source folder is configured in place: building a copy in $dir"
# Sync the sources (tracked and untracked-but-not-ignored files), keep what
# was built there before so that make only redoes what changed.
git ls-files -z -c -o --exclude-standard | sort -zu |
	while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
	xargs -0 cp -a -u --parents -t "$dir"
cd "$dir"
if [ ! -f config.status ] || [ "$(./config.status --config | tr -d "'")" != "${flags[*]}" ]; then
	./bootstrap
	./configure "${flags[@]}"
fi
exec make -j"$jobs"
