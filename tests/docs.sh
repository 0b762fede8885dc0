#!/bin/sh
# Automake test (TAP): the documentation agrees with the programs.
#  - every installed program (bin_PROGRAMS, bin scripts in Makefile.am) has a
#    man page, and every man page is installed (dist_man_MANS);
#  - the options in each program's --help and in the OPTIONS section of its
#    man page are the same, short and long letters alike; rdmabench(7) lists
#    every option of every benchmark;
#  - every program's --version prints the version configure was given;
#  - mandoc -Tlint -W warning has nothing to say (SKIP without mandoc);
#  - the bash completion offers what --help lists and knows the values of
#    -c, -A and the file options.
# Needs the programs built; env top_srcdir and top_builddir (absolute).
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
man=$top_srcdir/man
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rb-docs.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

ok() { # STATUS NAME
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
diag() { sed 's/^/# /'; }

# Makefile.am's value of the variables matching the ERE NAMES, words one a
# line (with bench/list.am, the list of benchmarks as Makefile.am includes it).
am_words() {
	awk -v names="$1" '
		{ line = line $0 }
		/\\$/ { sub(/\\$/, "", line); next }
		{ if (line ~ "^(" names ")[ \t]*\\+?=") { sub(/^[^=]*=/, "", line); print line } line = "" }
	' "$top_srcdir/Makefile.am" "$top_srcdir/bench/list.am" | tr -s ' \t' '\n\n' | grep -v '^$' | grep -v '^\$('
}

# Where a program is: built C programs in the build tree, scripts in either.
prog_path() {
	for d in "$top_builddir" "$top_builddir/scripts/tools" "$top_srcdir/scripts/tools" "$top_srcdir/scripts/testbed"; do
		[ -x "$d/$1" ] && { echo "$d/$1"; return 0; }
	done
	return 1
}

# Option keys ("-d --ib-dev", "--bind", "-v") from option headings, one a
# line on stdin ("-d, --ib-dev=DEV", "--mode auto|vm|host", "-o DIR, --output DIR").
heading_keys() {
	tr ',' ' ' | awk '{
		s = ""; l = ""
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^--[A-Za-z0-9]/) { w = substr($i, 3); sub(/[=[].*/, "", w); l = l " --" w }
			else if ($i ~ /^-[A-Za-z0-9]$/ || $i ~ /^-[A-Za-z0-9][=[]/) s = s " " substr($i, 1, 2)
		}
		k = s l; sub(/^ /, "", k); if (k != "") print k
	}' | sort -u
}

# The option keys of PROG --help: its lines that start with spaces and a
# dash, up to the first run of two spaces.
help_keys() {
	"$1" --help 2>/dev/null | sed -n 's/^ \{1,\}\(-.*\)$/\1/p' | sed 's/   */\t/' | cut -f1 | heading_keys
}

# The option keys of a man page: the heading line after each .TP of OPTIONS.
man_keys() {
	awk '/^\.SH / { on = ($0 ~ /^\.SH "?OPTIONS/) ; next }
		on && prev == ".TP" { print } { prev = $0 }' "$1" |
		sed -e 's/^\.[A-Z][A-Z]* //' -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/"//g' | heading_keys
}

# --- every program has a man page, every page is installed ---------------------

programs=$( (am_words 'bin_PROGRAMS|bench_programs'; am_words '(dist_|nodist_)?bin_SCRIPTS') | sed 's,.*/,,')
benches=$(echo "$programs" | grep '^rb_.*_\(bw\|lat\)$')
pages=$(am_words 'dist_man_MANS|man_MANS|man1_MANS|man7_MANS|bench_man_pages')
for p in $programs; do
	[ -f "$man/$p.1" ]
	ok $? "$p has a man page (man/$p.1)"
done
[ -f "$man/rdmabench.7" ]
ok $? "the overview page man/rdmabench.7 exists"
missing=""
for f in "$man"/*.[1-8]; do
	[ -e "$f" ] || continue
	echo "$pages" | grep -qx "man/${f##*/}" || missing="$missing ${f##*/}"
done
[ -z "$missing" ]
ok $? "every man page is installed (dist_man_MANS)${missing:+: missing$missing}"

# --- --help and the man page list the same options ---------------------------------

for p in $programs; do
	path=$(prog_path "$p") || { ok 1 "$p: --help vs man/$p.1 (program not found)"; continue; }
	[ -f "$man/$p.1" ] || { ok 1 "$p: --help vs man/$p.1 (no page)"; continue; }
	help_keys "$path" >"$tmp/help"
	man_keys "$man/$p.1" >"$tmp/man"
	# every program answers --help, listed or not
	grep -qx -- '-h --help' "$tmp/help" || echo '-h --help' >>"$tmp/help"
	sort -u -o "$tmp/help" "$tmp/help"
	st=0
	[ -s "$tmp/help" ] || st=1
	if ! cmp -s "$tmp/help" "$tmp/man"; then
		st=1
		comm -23 "$tmp/help" "$tmp/man" | sed 's/^/in --help, not in the man page: /' | diag
		comm -13 "$tmp/help" "$tmp/man" | sed 's/^/in the man page, not in --help: /' | diag
	fi
	ok $st "$p: every option of --help is in man/$p.1 and the other way round ($(wc -l <"$tmp/help") options)"
done

: >"$tmp/union"
for p in $benches; do
	path=$(prog_path "$p") && help_keys "$path" >>"$tmp/union"
done
sort -u -o "$tmp/union" "$tmp/union"
man_keys "$man/rdmabench.7" >"$tmp/man7"
st=0
[ -s "$tmp/union" ] || st=1
if ! cmp -s "$tmp/union" "$tmp/man7"; then
	st=1
	comm -23 "$tmp/union" "$tmp/man7" | sed 's/^/accepted by a benchmark, not in rdmabench(7): /' | diag
	comm -13 "$tmp/union" "$tmp/man7" | sed 's/^/in rdmabench(7), accepted by no benchmark: /' | diag
fi
ok $st "rdmabench(7) lists every benchmark option and no other ($(wc -l <"$tmp/union") options)"

# --- --version -------------------------------------------------------------------

version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$top_builddir/config.h" 2>/dev/null)
[ -n "$version" ] || version=$(cat "$top_srcdir/VERSION")
# The commit built, found here independently of scripts/dev/commit.sh: git's
# own description of a checkout; in a release tarball (no .git of its own)
# the COMMIT file make dist wrote.
if [ -e "$top_srcdir/.git" ]; then
	commit=$(git -C "$top_srcdir" describe --always --dirty 2>/dev/null)
else
	commit=$(cat "$top_srcdir/COMMIT" 2>/dev/null)
fi
for p in $programs; do
	path=$(prog_path "$p") || { ok 1 "$p --version (program not found)"; continue; }
	out=$("$path" --version 2>&1)
	st=$?
	[ "$st" = 0 ] && [ -n "$commit" ] && [ "$out" = "$p (rdmabench) $version (commit $commit)" ]
	ok $? "$p --version prints '$p (rdmabench) $version (commit $commit)' (got '$out', status $st)"
done

# --- the commit in every metadata document --------------------------------------
# A run that fails before any peer (no such device: nothing is sent) still
# leaves its document; its meta names the commit right after the version.

json_meta_ok() { # FILE: "version" then "commit" equal to the tree's
	grep -q "\"version\":\"$version\",\"commit\":\"$commit\"," "$1"
}
if path=$(prog_path rb_write_bw); then
	"$path" -d rb-no-such-device --json >"$tmp/doc.json" 2>/dev/null
	st=$?
	[ "$st" = 1 ] && [ -n "$commit" ] && json_meta_ok "$tmp/doc.json"
	ok $? "rb_write_bw --json: meta \"commit\" is '$commit', after \"version\" (status $st; got: $(grep -o '"commit":"[^"]*"' "$tmp/doc.json"))"
	"$path" -d rb-no-such-device --csv="$tmp/doc.csv" 2>/dev/null
	st=$?
	[ "$st" = 1 ] && [ -n "$commit" ] && json_meta_ok "$tmp/doc.meta.json"
	ok $? "rb_write_bw --csv: the sidecar doc.meta.json names commit '$commit' (status $st)"
else
	ok 1 "rb_write_bw: the commit in its documents (program not found)"
fi
if path=$(prog_path rb_devices); then
	"$path" --json >"$tmp/dev.json" 2>/dev/null
	[ -n "$commit" ] && json_meta_ok "$tmp/dev.json"
	ok $? "rb_devices --json: \"commit\" is '$commit', after \"version\""
else
	ok 1 "rb_devices --json: the commit (program not found)"
fi

# --- the errors explained: rdmabench(7) holds src/lib/explain.c's table ---------------

sh "$top_srcdir/man/gen-errors.sh" --print >"$tmp/errors"
awk '$0 == ".\\\" BEGIN gen-errors.sh table" { on = 1; next }
	$0 == ".\\\" END gen-errors.sh table" { on = 0 } on' "$man/rdmabench.7" >"$tmp/errors7"
st=0
[ "$(grep -c '^\.B IBV_WC_' "$tmp/errors")" -ge 24 ] || st=1
cmp -s "$tmp/errors" "$tmp/errors7" || { st=1; diff "$tmp/errors" "$tmp/errors7" | head -20 | diag; }
ok $st "rdmabench(7)'s ERRORS EXPLAINED is src/lib/explain.c's table (run man/gen-errors.sh) ($(grep -c '^\.TP' "$tmp/errors") entries)"

# --- every perftest option name: rdmabench(7) holds src/cli/compat.c's table ---------

bash "$top_srcdir/man/gen-options.sh" --print perftest-options "$top_builddir" >"$tmp/perftest" 2>"$tmp/perftest.err"
awk '$0 == ".\\\" BEGIN gen-options.sh perftest-options" { on = 1; next }
	$0 == ".\\\" END gen-options.sh perftest-options" { on = 0 } on' "$man/rdmabench.7" >"$tmp/perftest7"
st=0
names=$(grep -c '^[[:space:]]*{ "[^"]*", ' "$top_srcdir/src/cli/compat.c")
grep -q "perftest 6.29 has $names option names" "$tmp/perftest" || st=1
[ "$names" = 156 ] || { st=1; echo "src/cli/compat.c has $names names, perftest 6.29 156" | diag; }
cmp -s "$tmp/perftest" "$tmp/perftest7" || { st=1; diff "$tmp/perftest" "$tmp/perftest7" | head -20 | diag; diag <"$tmp/perftest.err"; }
ok $st "rdmabench(7)'s 'Every perftest option name' is src/cli/compat.c's table (run man/gen-options.sh) ($names names)"

# --- mandoc -------------------------------------------------------------------------

if command -v mandoc >/dev/null 2>&1; then
	mandoc -Tlint -W warning "$man"/*.[1-8] >"$tmp/lint" 2>&1
	st=$?
	diag <"$tmp/lint"
	[ "$st" = 0 ] && [ ! -s "$tmp/lint" ]
	ok $? "mandoc -Tlint -W warning man/*: clean"
else
	skip "mandoc -Tlint -W warning man/*: clean" "mandoc is not installed"
fi

# --- bash completion ------------------------------------------------------------------

comp=$top_builddir/completion/rdmabench.bash   # made from rdmabench.bash.in
# complete WORD...: COMPREPLY, one a line, for the last WORD (the cursor's),
# from the function `complete -p WORD1` names, as bash does on <TAB>.
complete_words() {
	PATH=$top_builddir:$top_srcdir/scripts/tools:$top_srcdir/scripts/testbed:$PATH bash --norc --noprofile -c '
		. "$1" || exit 1
		shift
		fn=$(complete -p "$1" | sed -n "s/.* -F \([^ ]*\) .*/\1/p")
		[ -n "$fn" ] || exit 1
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		"$fn" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' complete_words "$comp" "$@"
}

if command -v bash >/dev/null 2>&1; then
	complete_words rb_send_bw -- >"$tmp/reply"
	sed 's/=$//' "$tmp/reply" | sort -u >"$tmp/comp"
	help_keys "$top_builddir/rb_send_bw" | tr ' ' '\n' | grep '^--' | sort -u >"$tmp/long"
	echo 'rb_send_bw --<TAB>:' | diag
	paste -sd' ' "$tmp/reply" | fold -s -w 76 | diag
	[ -s "$tmp/long" ] && cmp -s "$tmp/comp" "$tmp/long"
	ok $? "completion: rb_send_bw --<TAB> offers every long option of its --help ($(wc -l <"$tmp/long"))"

	reply=$(complete_words rb_send_lat -c '' | paste -sd' ')
	echo "rb_send_lat -c <TAB>: $reply" | diag
	[ "$reply" = "RC UC UD" ]
	ok $? "completion: -c completes RC UC UD"

	reply=$(complete_words rb_atomic_bw --atomic_type= | paste -sd' ')
	echo "rb_atomic_bw --atomic_type=<TAB>: $reply" | diag
	[ "$reply" = "--atomic_type=FETCH_AND_ADD --atomic_type=CMP_AND_SWAP" ]
	ok $? "completion: --atomic_type= completes FETCH_AND_ADD CMP_AND_SWAP"

	reply=$(complete_words rb_atomic_bw --atomic-type= | paste -sd' ')
	[ "$reply" = "--atomic-type=FETCH_AND_ADD --atomic-type=CMP_AND_SWAP" ]
	ok $? "completion: --atomic-type= completes FETCH_AND_ADD CMP_AND_SWAP (got '$reply')"

	reply=$(complete_words rb_send_bw --post_ | paste -sd' ')
	[ "$reply" = "--post_list=" ]
	ok $? "completion: --post_<TAB> offers perftest's spelling --post_list= (got '$reply')"

	reply=$(complete_words rb_send_bw --report-g | paste -sd' ')
	[ "$reply" = "--report-gbits" ]
	ok $? "completion: --report-g<TAB> offers --report-gbits (got '$reply')"

	mkdir "$tmp/files" && : >"$tmp/files/hist-a.csv" && : >"$tmp/files/hist-b.csv"
	reply=$(cd "$tmp/files" && complete_words rb_send_lat --raw = hist | paste -sd' ')
	echo "rb_send_lat --raw=hist<TAB>: $reply" | diag
	[ "$reply" = "hist-a.csv hist-b.csv" ]
	ok $? "completion: --raw=FILE completes file names"

	reply=$(cd "$tmp/files" && complete_words rb_send_lat -H hist-b | paste -sd' ')
	[ "$reply" = "hist-b.csv" ]
	ok $? "completion: -H FILE completes file names"

	unreg=""
	for p in $programs; do
		PATH=$top_builddir:$PATH bash --norc --noprofile -c '. "$1" && complete -p "$2"' x "$comp" "$p" \
			>/dev/null 2>&1 || unreg="$unreg $p"
	done
	[ -z "$unreg" ]
	ok $? "completion: every installed program is registered${unreg:+ (not:$unreg)}"
else
	skip "completion" "bash is not installed"
fi

# Host-side tests send nothing beyond loopback: every IPv4 address a
# host-side test (tests/*.sh but the test bed's rxe*.sh and testbed-tap.sh,
# and tests/fuzz) names is loopback (127/8), 0.0.0.0 or no address at all
# (an octet past 255).  "Nobody listening" is a closed port of 127.0.0.1;
# real traffic belongs in the test bed.  (tests/unit's C names documentation
# addresses only as data to parse or format, or to bind to and fail.)
outside=$(for f in "$top_srcdir"/tests/*.sh "$top_srcdir"/tests/fuzz/*.sh; do
	case ${f##*/} in rxe*.sh | testbed-tap.sh) continue ;; esac
	[ -f "$f" ] || continue
	grep -noE '(^|[^0-9.])[0-9]{1,3}(\.[0-9]{1,3}){3}([^0-9.]|$)' "$f" | sed "s|^|${f##*/}:|"
done | awk -F: '{
	match($0, /[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+/); a = substr($0, RSTART, RLENGTH); split(a, o, ".")
	if (o[1] == 127 || a == "0.0.0.0" || o[1] > 255 || o[2] > 255 || o[3] > 255 || o[4] > 255) next
	print $1 ":" $2 ": " a }')
[ -z "$outside" ]
ok $? "host-side tests name no address beyond loopback${outside:+: $(echo "$outside" | head -n 5 | tr '\n' ' ')}"

echo "1..$n"
[ "$failed" = 0 ]
