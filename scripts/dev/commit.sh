#!/bin/sh
# Prints the commit the source tree at $1 (default: this script's parent)
# was built from: `git describe --always --dirty` where the tree is a git
# checkout of its own (a .git at its top: not a tarball unpacked inside
# some other repository), else the COMMIT file that `make dist` writes into
# the tarball, else the VERSION file.  Used by Makefile.am (rb-commit.h),
# scripts/dev/rb-icount and the tests.
top=${1:-$(dirname "$0")/../..}
if [ -e "$top/.git" ] && c=$(git -C "$top" describe --always --dirty 2>/dev/null) && [ -n "$c" ]; then
	echo "$c"
elif [ -s "$top/COMMIT" ]; then
	head -n 1 "$top/COMMIT"
else
	head -n 1 "$top/VERSION"
fi
