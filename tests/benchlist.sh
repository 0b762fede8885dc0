#!/bin/bash
# Automake test (TAP): bench/list.h is the one list of benchmarks, and what
# reads it agrees with it:
#  - each BENCH(NAME) line has its bench/NAME.c defining rb_bench_NAME named
#    "rb_NAME", and each bench/ table file has its line;
#  - bench/list.am is what bench/gen-list.sh makes of the list now, and
#    Makefile.am names no benchmark of its own;
#  - no file of src/, tests/, scripts/, completion/ or man/gen-options.sh
#    holds a list of all the benchmarks (a line naming every one);
#  - the built programs, rb_mpi's --bench list, the built completion and the
#    man pages show the list, in its order, and man/gen-options.sh remakes
#    the pages as they are.
# The file checker is first run on a planted tree that it must reject.
# Needs the programs built; env top_srcdir and top_builddir (absolute).
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rb-benchlist.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
ok() { # STATUS NAME
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
diag() { sed 's/^/# /'; }

names() { sed -n 's/^BENCH(\([a-z0-9_]*\))$/\1/p' "$1/bench/list.h"; }

# files TREE: each disagreement between TREE/bench/list.h and TREE/bench/*.c
files() {
	local t=$1 b f
	grep '^BENCH' "$t/bench/list.h" | grep -v '^BENCH([a-z0-9_]*)$' | sed 's/^/not BENCH(NAME): /'
	[ "$(names "$t" | sort | uniq -d)" ] && echo "listed twice: $(names "$t" | sort | uniq -d)"
	for b in $(names "$t"); do
		f=$t/bench/$b.c
		[ -f "$f" ] || { echo "$b: no bench/$b.c"; continue; }
		grep -q "^const struct rb_bench rb_bench_$b = {" "$f" || echo "$b: bench/$b.c defines no rb_bench_$b"
		grep -q "^[[:space:]]*\.name = \"rb_$b\"," "$f" || echo "$b: bench/$b.c's table is not named \"rb_$b\""
	done
	for f in "$t"/bench/*.c; do
		b=$(basename "$f" .c)
		[ "$b" = registry ] && continue
		names "$t" | grep -qx "$b" || echo "bench/$b.c: not in bench/list.h"
	done
}

names "$top_srcdir" >"$tmp/names"
nb=$(wc -l <"$tmp/names")

mkdir -p "$tmp/plant/bench"
printf 'BENCH(a_bw)\nBENCH(b_lat)\nBENCH (c)\n' >"$tmp/plant/bench/list.h"
printf 'const struct rb_bench rb_bench_a_bw = {\n\t.name = "rb_a_bw",\n};\n' >"$tmp/plant/bench/a_bw.c"
printf 'const struct rb_bench rb_bench_z_bw = {\n\t.name = "rb_z_bw",\n};\n' >"$tmp/plant/bench/z_bw.c"
out=$(files "$tmp/plant")
echo "$out" | grep -q '^b_lat: no bench/b_lat.c$' && echo "$out" | grep -q '^bench/z_bw.c: not in bench/list.h$' &&
	echo "$out" | grep -q '^not BENCH(NAME): BENCH (c)$' && [ "$(echo "$out" | wc -l)" = 3 ]
ok $? "the checker rejects a planted list (a line without its file, a file without its line, a bad line)"
[ -n "$out" ] && echo "$out" | diag

out=$(files "$top_srcdir")
[ "$nb" -gt 0 ] && [ -z "$out" ]
ok $? "bench/list.h ($nb benchmarks) and bench/*.c agree: rb_bench_NAME named \"rb_NAME\" in bench/NAME.c"
[ -z "$out" ] || echo "$out" | diag

mkdir -p "$tmp/gen/bench"
cp "$top_srcdir/bench/list.h" "$tmp/gen/bench/"
sh "$top_srcdir/bench/gen-list.sh" "$tmp/gen" && cmp -s "$tmp/gen/bench/list.am" "$top_srcdir/bench/list.am"
ok $? "bench/list.am is what bench/gen-list.sh makes of bench/list.h (else: ./bootstrap)"

out=$(for b in $(cat "$tmp/names"); do
	grep -nwE "rb_${b}(_SOURCES|_CPPFLAGS)?|bench/$b\.c|man/rb_$b\.1" "$top_srcdir/Makefile.am"
done)
[ -z "$out" ]
ok $? "Makefile.am names no benchmark itself (bench/list.am does)"
[ -z "$out" ] || echo "$out" | diag

# a line holding every name of the list (as NAME or rb_NAME)
out=$(cd "$top_srcdir" && find src tests scripts completion man/gen-options.sh bench -type f \
	\( -name '*.[ch]' -o -name '*.sh' -o -name '*.in' -o -name '*.bash' -o -name '*.py' -o -name 'rb-*' \) \
	! -path bench/list.h ! -path tests/benchlist.sh ! -path 'tests/data/*' | sort |
	xargs awk -v names="$(paste -sd' ' "$tmp/names")" '
		BEGIN { k = split(names, w, " ") }
		{ for (i = 1; i <= k; i++) if (index($0, w[i]) == 0) next; print FILENAME ":" FNR ": " $0 }')
[ -z "$out" ]
ok $? "no file of src/, tests/, scripts/, completion/, bench/ or man/gen-options.sh lists every benchmark itself"
[ -z "$out" ] || echo "$out" | diag

st=0
for b in $(cat "$tmp/names"); do
	p=$top_builddir/rb_$b
	{ [ -x "$p" ] && "$p" --help 2>/dev/null | head -n 1 | grep -q "rb_$b"; } ||
		{ st=1; echo "rb_$b: not built, or its --help does not name it" | diag; }
done
ok $st "each benchmark is built as rb_NAME, whose --help names it"

if [ -x "$top_builddir/rb_mpi" ]; then
	want=$(paste -sd'|' "$tmp/names")
	got=$("$top_builddir/rb_mpi" --help 2>/dev/null | sed -n 's/^  --bench NAME  *\([^ ]*\) .*/\1/p')
	[ "$got" = "$want" ]
	ok $? "rb_mpi --help: --bench NAME lists the list ($got)"
	# --background: the list's bandwidth benchmarks (their .metric), in its order
	want=$(for b in $(cat "$tmp/names"); do
		grep -q '^[[:space:]]*\.metric = METRIC_BW,' "$top_srcdir/bench/$b.c" && echo "$b"
	done | paste -sd' ')
	got=$("$top_builddir/rb_mpi" --help 2>/dev/null | sed -n 's/^  --background BENCH  *the load: //p' |
		sed 's/,//g; s/ or / /')
	[ -n "$want" ] && [ "$got" = "$want" ]
	ok $? "rb_mpi --help: --background BENCH lists the list's bandwidth benchmarks ($got)"
else
	echo "ok $((n += 1)) - rb_mpi --help lists the benchmarks # SKIP rb_mpi not built (--with-mpi)"
	echo "ok $((n += 1)) - rb_mpi --help lists the bandwidth benchmarks # SKIP rb_mpi not built (--with-mpi)"
fi

comp=$top_builddir/completion/rdmabench.bash
want=$(sed 's/^/rb_/' "$tmp/names" | paste -sd' ')
got=$(sed -n 's/^_rdmabench_programs="\(.*\)"$/\1/p' "$comp" 2>/dev/null)
case "$got" in "$want "*) st=0 ;; *) st=1 ;; esac
ok $st "the built completion's programs begin with the list's ($comp)"

st=0
for b in $(cat "$tmp/names"); do
	[ -f "$top_srcdir/man/rb_$b.1" ] || { st=1; echo "no man/rb_$b.1 (man/gen-options.sh writes one)" | diag; }
	grep -qw "$b" "$top_srcdir/man/rb_mpi.1" || { st=1; echo "man/rb_mpi.1 does not name $b" | diag; }
done
got=$(sed -n '/^\.\\" BEGIN gen-options.sh defaults/,/^\.\\" END/p' "$top_srcdir/man/rdmabench.7" |
	sed -n 's/^rb_\([a-z0-9_]*\)\t.*/\1/p' | paste -sd' ')
[ "$got" = "$(paste -sd' ' "$tmp/names")" ] || { st=1; echo "rdmabench(7) DEFAULTS: $got" | diag; }
ok $st "the man pages: man/rb_NAME.1 each, rb_mpi(1) names each, rdmabench(7)'s DEFAULTS in the list's order"

# The pages are what man/gen-options.sh makes of the list and the programs
# now: run it on a copy of man/, bench/ and src/ and compare.
mkdir -p "$tmp/pages"
cp -R "$top_srcdir/man" "$top_srcdir/bench" "$top_srcdir/src" "$tmp/pages/" &&
	chmod -R u+w "$tmp/pages" &&
	bash "$tmp/pages/man/gen-options.sh" "$top_builddir" 2>"$tmp/gen.err" &&
	diff -r "$top_srcdir/man" "$tmp/pages/man" >"$tmp/gen.diff"
st=$?
ok $st "man/gen-options.sh remakes the pages identically (else: run it, commit the pages)"
[ $st = 0 ] || { cat "$tmp/gen.err"; head -n 40 "$tmp/gen.diff"; } | diag

echo "1..$n"
[ "$failed" = 0 ]
