#!/bin/sh
# man/gen-errors.sh: write the ERRORS EXPLAINED table of rdmabench(7) from
# src/lib/explain.c, the one table the benchmarks and rb_doctor print from.
# Run it by hand after changing src/lib/explain.c, then commit the page:
#
#   man/gen-errors.sh           update man/rdmabench.7 in place
#   man/gen-errors.sh --print   print the block (tests/docs.sh compares)
#
# The block lies between the lines
#   .\" BEGIN gen-errors.sh table
#   .\" END gen-errors.sh table
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)

# WC(NAME, "causes", "check"), and QP("STATE", ERRNO, "causes", "check").
errors_block() {
	echo '.SS Completion status'
	sed -En 's/^[[:space:]]*WC\(([A-Z_]+), "([^"]*)", "([^"]*)"\),$/.TP\n.B IBV_WC_\1\nLikely: \2.\n.br\nCheck: \3./p' \
		"$top/src/lib/explain.c"
	echo '.SS Failed QP transitions'
	sed -En 's/^[[:space:]]*QP\("([A-Za-z]+)", ([A-Z]+), "([^"]*)", "([^"]*)"\),$/.TP\n.B "\1 \2"\nLikely: \3.\n.br\nCheck: \4./p' \
		"$top/src/lib/explain.c"
}

if [ "${1:-}" = --print ]; then
	errors_block | sed 's/-/\\-/g'
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
errors_block | sed 's/-/\\-/g' >"$tmp/block"
awk -v body="$tmp/block" '
	$0 == ".\\\" BEGIN gen-errors.sh table" { print; while ((getline l < body) > 0) print l; skip = 1; n++; next }
	$0 == ".\\\" END gen-errors.sh table" { skip = 0 }
	!skip { print }
	END { if (!n) { print "gen-errors.sh: no table block in rdmabench.7" > "/dev/stderr"; exit 1 } }
' "$top/man/rdmabench.7" >"$tmp/page"
cat "$tmp/page" >"$top/man/rdmabench.7"
echo "gen-errors.sh: updated man/rdmabench.7 from src/lib/explain.c" >&2
