#!/bin/bash
# Automake test (TAP), no device needed: rb-plot and rb-compare on the
# canned result files of tests/data (real files from the rxe test bed, and
# some that are not ours), rb-campaign and rb-regress on bad usage.
# Checks the files written and the exit statuses.  The plot cases SKIP
# without gnuplot.  Env top_srcdir and top_builddir (absolute).  The cases
# are in tests/scripts/, a file per subject, sourced below.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
data=$top_srcdir/tests/data
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rb-scripts.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

ok() { # STATUS NAME
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
		[ -s "$tmp/err" ] && sed 's/^/# stderr: /' "$tmp/err"
		[ -s "$tmp/out" ] && sed 's/^/# stdout: /' "$tmp/out"
	fi
	return 0
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

# The built script (rb-plot, rb-compare come from a .in), else the source one.
script() {
	for f in "$top_builddir/scripts/tools/$1" "$top_srcdir/scripts/tools/$1" "$top_srcdir/scripts/tools/$1.in"; do
		[ -x "$f" ] && { echo "$f"; return; }
	done
	echo "$top_srcdir/scripts/tools/$1"
}
rb_plot=$(script rb-plot) rb_compare=$(script rb-compare)

# run CMD...: stdout in $tmp/out, stderr in $tmp/err, the status in $st.
run() { "$@" >"$tmp/out" 2>"$tmp/err"; st=$?; }

is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
is_svg() { grep -q '<svg' "$1" 2>/dev/null; }

# The cases, by subject, in tests/scripts/ (sourced in this order).
for part in plot compare icount tools check gpu; do
	# shellcheck source=/dev/null
	. "$top_srcdir/tests/scripts/$part.sh"
done

echo "1..$n"
[ "$failed" = 0 ]
