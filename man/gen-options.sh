#!/bin/bash
# man/gen-options.sh: regenerate the generated blocks of the man pages from
# one source, so the eight benchmark pages and rdmabench(7) never drift.
# Run it by hand (not at build time) from a built tree, then commit the pages:
#
#   man/gen-options.sh [BUILDDIR]        (BUILDDIR: where rb_* were built)
#   man/gen-options.sh --print KIND [BUILDDIR]    (one block on stdout: tests/docs.sh)
#
# Code only; the texts are data.  What is listed, and in which order, comes
# from each program's --help (the option rows in src/cli/rows.c are the
# source of truth: --help is made from them); the text of each option from
# man/option-texts.roff (else its --help line); the OUTPUT and EXIT STATUS
# texts from man/block-texts.roff; perftest's option names from
# src/cli/compat.c; the per-test defaults from bench/NAME.c.
# A page holds blocks between the lines
#   .\" BEGIN gen-options.sh KIND
#   .\" END gen-options.sh KIND
# (KIND: options, output, exit in man/rb_*.1; common-options, defaults,
# perftest-options in man/rdmabench.7), and only those lines are replaced.
# tests/docs.sh checks that the pages and --help agree.
set -eu -o pipefail
print=""
[ "${1:-}" != --print ] || { print=$2; shift 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top}" && pwd)
benches=$(sed -n 's/^BENCH(\([a-z0-9_]*\))$/\1/p' "$top/bench/list.h")   # the one list
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The text of each option, keyed by its long name: man/option-texts.roff
# (its opening comment says how a text is tagged per page).  An option
# without a text there takes its --help line.

# One option's text for a page: keep the lines whose tags match.
# TAGS is the page's words ("bw send", "lat read", or "all").
option_text() { # LONGNAME TAGS
	awk -v want="$1" -v tags=" $2 " '
		/^@/ { on = (substr($0, 2) == want); if (on) found = 1; next }
		!on { next }
		/^\[/ {
			spec = substr($1, 2, length($1) - 2); neg = 0
			if (substr(spec, 1, 1) == "-") { neg = 1; spec = substr(spec, 2) }
			n = split(spec, w, ","); hit = 0
			for (i = 1; i <= n; i++) if (index(tags, " " w[i] " ")) hit = 1
			if (hit == neg) next
			sub(/^\[[^]]*\] /, "")
		}
		{ print }
		END { exit !found }' "$top/man/option-texts.roff"
}

# Each program's --help, read once (a failure stops everything).
for b in $benches; do
	"$build/rb_$b" --help >"$tmp/help.rb_$b" ||
		{ echo "gen-options.sh: $build/rb_$b --help failed (build first)" >&2; exit 1; }
done

# The option heads of PROG --help, one a line: "-d, --ib-dev=DEV".
help_heads() { # PROG
	sed -En 's/^ +((-[A-Za-z], )?--[^ ]+).*/\1/p' "$tmp/help.$1"
}
for b in $benches; do help_heads "rb_$b" >"$tmp/heads.rb_$b"; done   # for accepted_by

# "-d, --ib-dev=DEV" -> roff: bold names, italic argument, alternatives bold.
head_roff() {
	sed -E -e 's/-/\\-/g' \
		-e 's/^(\\-[A-Za-z]), /\\fB\1\\fR, /' \
		-e 's/(\\-\\-[A-Za-z0-9_\\-]+[A-Za-z0-9_])/\\fB\1\\fR/' \
		-e 's/=([A-Z]+\|[A-Z|]+)$/=\\fB\1\\fR/' \
		-e 's/\|/\\fR|\\fB/g' \
		-e 's/=([A-Z]+)(\]?)$/=\\fI\1\\fR\2/'
}

long_name() { sed -E 's/^(-[A-Za-z], )?--([^=[]+).*/\2/'; }

# "TR_RC | TR_UC | TR_UD" of bench/NAME.c -> "RC, UC and UD"
bench_field() { # NAME FIELD
	sed -En "s/.*\.$2 = ([^,}]*[^ ,}]).*/\1/p" "$top/bench/$1.c" | head -n1
}
transports_text() {
	bench_field "$1" transports | sed -E 's/TR_//g; s/ \| /, /g; s/, ([A-Z]+)$/ and \1/'
}

# The page's words: metric and verb.
page_tags() { # NAME
	local m=bw v
	[ "$(bench_field "$1" metric)" = METRIC_LAT ] && m=lat
	v=$(bench_field "$1" verb | sed 's/VERB_//' | tr '[:upper:]' '[:lower:]')
	echo "$m $v"
}

fill() { # NAME PROG: replace the placeholders
	sed -e "s/@SIZE@/$(bench_field "$1" size)/g" -e "s/@ITERS@/$(bench_field "$1" iters)/g" \
		-e "s/@TX@/$(bench_field "$1" tx_depth)/g" -e "s/@RX@/$(bench_field "$1" rx_depth)/g" \
		-e "s/@TRANSPORTS@/$(transports_text "$1")/g" -e "s/@PROG@/$2/g"
}

# The OPTIONS block of one program.  HEADS: file of --help heads.
# (the names and the roff of all the heads made by one sed each, not two
# processes per option)
options_block() { # HEADS TAGS
	local name roff
	long_name <"$1" >"$tmp/names.block"
	head_roff <"$1" >"$tmp/roff.block"
	while read -r name && read -r roff <&3; do
		echo ".TP"
		echo "$roff"
		option_text "$name" "$2" || help_text "$name"
	done <"$tmp/names.block" 3<"$tmp/roff.block"
}

# An option without a text in man/option-texts.roff: its --help line (any
# program's), the default said there included.
help_text() { # LONGNAME
	awk -v want="$1" '
		on == 1 && /^                    +[^ -]/ { sub(/^ +/, ""); text = text " " $0; next }
		on == 1 { on = 2 }
		!on && $0 ~ "^ +(-[A-Za-z], )?--" want "([=[ ]|$)" { on = 1; sub(/^ +[^ ]+ +/, ""); text = $0 }
		END { if (!on) exit 1; gsub(/-/, "\\\\-", text); print text }' "$tmp"/help.rb_* ||
		{ echo "gen-options.sh: no text for --$1 in --help either" >&2; return 1; }
}

# The fixed texts of the OUTPUT and EXIT STATUS blocks: man/block-texts.roff.
block_text() { # NAME
	awk -v want="$1" '/^@/ { on = (substr($0, 2) == want); next } on' "$top/man/block-texts.roff"
}
output_block() { # TAGS
	case " $1 " in
	*" lat "*) block_text output-lat ;;
	*) block_text output-bw ;;
	esac
	block_text output-common
}
exit_block() { block_text exit; }

# rdmabench(7): every option any benchmark accepts, in the order of the rows
# of src/cli/rows.c (the order of every --help).
union_heads() {
	local b name
	for b in $benches; do help_heads "rb_$b"; done >"$tmp/all-heads"
	sed -En 's/^[[:space:]]*\{ "([^"]+)", .*/\1/p' "$top/src/cli/rows.c" |
		while read -r name; do
			grep -E -m1 -- "(^| )--$name([=[]|$)" "$tmp/all-heads" || true
		done
}

# Which benchmarks accept an option, for rdmabench(7), when not all do.
accepted_by() { # HEAD
	local b list="" n=0
	for b in $benches; do
		if grep -qxF -- "$1" "$tmp/heads.rb_$b"; then
			list="$list${list:+, }rb_$b"
		else
			n=$((n + 1))
		fi
	done
	[ "$n" -gt 0 ] && printf '.br\nOnly %s.\n' "$list" | sed -E 's/, ([^,]*)\.$/ and \1./'
	return 0
}

common_block() {
	local head
	union_heads >"$tmp/heads"
	while read -r head; do
		echo "$head" >"$tmp/one"
		options_block "$tmp/one" all
		accepted_by "$head"
	done <"$tmp/heads"
}

defaults_block() {
	local b lat
	cat <<'EOF'
.TS
l l r r r r l.
Program	Transports	\-s	\-n	\-t	\-r	Latency
EOF
	for b in $benches; do
		lat=-
		[ "$(bench_field "$b" metric)" = METRIC_LAT ] && lat="one-way (RTT/2)"
		[ "$(bench_field "$b" lat_divisor)" = 1 ] && lat="round trip"
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "rb_$b" \
			"$(bench_field "$b" transports | sed -E 's/TR_//g; s/ \| /,/g')" \
			"$(bench_field "$b" size)" "$(bench_field "$b" iters)" \
			"$(bench_field "$b" tx_depth)" "$(bench_field "$b" rx_depth)" "$lat"
	done
	echo ".TE"
}

# rdmabench(7)'s PERFTEST COMPATIBILITY: every perftest option name, as
# src/cli/compat.c sorts them (one C line each: name, letter, takes a value,
# class, ours or what instead, why; #define'd texts resolved).  HEADS: our
# option heads, for the letters that mean something else here.
perftest_block() { # HEADS
	awk -v heads="$1" '
	function esc(s) { gsub(/-/, "\\-", s); return s }
	function c_text(f,   out, m) {    # "a" MACRO "b" -> text; NULL -> ""
		out = ""
		while (f != "") {
			sub(/^ +/, "", f)
			if (match(f, /^"[^"]*"/)) { out = out substr(f, 2, RLENGTH - 2) }
			else if (match(f, /^[A-Z_]+/)) { m = substr(f, 1, RLENGTH); if (m != "NULL") out = out def[m] }
			else break
			f = substr(f, RLENGTH + 1)
		}
		return out
	}
	function fields(line, f,   n, i, q, c, cur) {  # split at commas outside quotes
		n = 0; q = 0; cur = ""
		for (i = 1; i <= length(line); i++) {
			c = substr(line, i, 1)
			if (c == "\"") q = !q
			if (c == "," && !q) { f[++n] = cur; cur = ""; continue }
			cur = cur c
		}
		f[++n] = cur
		return n
	}
	function label(k) { return (let[k] != "" ? "\\fB\\-" let[k] "\\fR, " : "") "\\fB\\-\\-" esc(name[k]) "\\fR" }
	BEGIN {
		while ((getline l < heads) > 0)
			if (match(l, /^-[A-Za-z], --/)) { h = substr(l, 7); sub(/[=[].*/, "", h); ours[substr(l, 2, 1)] = h }
		title["SAME"] = "Same name, same meaning"; title["ALIAS"] = "Another name of one of ours"
		title["NOOP"] = "Accepted, no effect here (a note on stderr)"
		title["OTHER"] = "The name is ours, with our meaning"
		title["BUILT"] = "Built with the drop\\-in issue (#35)"
		title["VERBS"] = "Refused until the verbs\\-features issue (#36)"
		title["MEMORY"] = "Refused until the memory issue (#37)"
		title["REFUSED"] = "Refused (exit 2), with why and what to use instead"
		split("SAME ALIAS NOOP OTHER BUILT VERBS MEMORY REFUSED", order, " ")
	}
	/^#define [A-Z_]+ "/ { d = $2; sub(/^#define [A-Z_]+ /, ""); def[d] = c_text($0) }
	/^[ \t]*\{ "/ {
		line = $0; sub(/^[ \t]*\{ /, "", line); sub(/ \},$/, "", line)
		if (fields(line, f) != 6) next
		k = ++n; name[k] = c_text(f[1]); let[k] = f[2] ~ /'\''/ ? substr(f[2], 3, 1) : ""
		cls[k] = substr(f[4], 5); use[k] = c_text(f[5]); why[k] = c_text(f[6]); count[cls[k]]++
	}
	END {
		print ".SS \"Every perftest option name\""
		print "perftest 6.29 has " n " option names (its long_options table and short"
		print "options in src/perftest_parameters.c); each is taken here as below"
		print "(generated from src/cli/compat.c).  Long names in either spelling"
		print "(\\- or _) and as unique prefixes; a value attached to a letter"
		print "(\\fB\\-q4\\fR) or as the next word; letters bundled (\\fB\\-bF\\fR)."
		print "A refused name exits 2 naming the option, why, and what to use instead."
		for (o = 1; o <= 8; o++) {
			c = order[o]; if (!count[c]) continue
			printf ".TP\n.B \"%s (%d)\"\n", title[c], count[c]
			sep = ""; done_key = ""
			for (k = 1; k <= n; k++) {
				if (cls[k] != c) continue
				if (c == "SAME" || c == "BUILT") { printf "%s%s", sep, label(k); sep = ",\n"; continue }
				if (c == "ALIAS") { printf "%s%s: \\fB\\-\\-%s\\fR", sep, label(k), esc(use[k]); sep = ";\n"; continue }
				key = why[k] SUBSEP use[k]
				if (key in shown) continue
				shown[key] = 1; list = label(k)
				for (j = k + 1; j <= n; j++)
					if (cls[j] == c && why[j] SUBSEP use[j] == key) list = list ", " label(j)
				printf "%s%s: %s", sep, list, esc(why[k])
				if (use[k] != "") printf "; instead: %s", esc(use[k])
				sep = ".\n.br\n"
			}
			print "."
		}
		print ".TP"
		print ".B \"Letters that mean something else here\""
		sep = ""
		for (k = 1; k <= n; k++)
			if (let[k] != "" && (let[k] in ours) && ours[let[k]] != name[k] && cls[k] != "SAME") {
				printf "%s\\fB\\-%s\\fR is \\fB\\-\\-%s\\fR here (perftest: \\fB\\-\\-%s\\fR)", sep, let[k], esc(ours[let[k]]), esc(name[k])
				sep = ";\n"
			}
		print "."
	}' "$top/src/cli/compat.c"
}

# rb_mpi(1)'s --bench: the list's names, four a line, rb_mpi's default said.
mpi_names_block() {
	local def
	def=$(sed -n 's/^#define DEFAULT_BENCH "\(.*\)"$/\1/p' "$top/src/prog/mpi/mpi_main.c")
	echo "$benches" | awk -v def="$def" '
		function q(s) { return s ~ / / ? "\"" s "\"" : s }
		{ n[++k] = $0 }
		END {
			line = ".BR"
			for (i = 1; i <= k; i++) {
				line = line " " n[i]
				if (i == k) { print line; break }
				sep = i == k - 1 ? " or " : ", "
				if (n[i] == def) sep = " (the default)" sep
				if (i % 4) { line = line " " q(sep); continue }
				sub(/ $/, "", sep); print line " " q(sep); line = ".BR"
			}
		}'
}

# rb_mpi(1)'s --background: the list's bandwidth benchmarks, on one line.
mpi_bw_names_block() {
	local b bw=""
	for b in $benches; do
		[ "$(bench_field "$b" metric)" = METRIC_BW ] && bw="$bw $b"
	done
	echo "$bw" | awk '{
		line = ".BR"
		for (i = 1; i <= NF; i++)
			line = line " " $i (i == NF ? " ;" : i == NF - 1 ? " \" or \"" : " \", \"")
		print line
	}'
}

# Replace the block KIND of PAGE with the file BODY.
splice() { # PAGE KIND BODY
	awk -v kind="$2" -v body="$3" '
		$0 == ".\\\" BEGIN gen-options.sh " kind {
			print; while ((getline l < body) > 0) print l; skip = 1; n++; next }
		$0 == ".\\\" END gen-options.sh " kind { skip = 0 }
		!skip { print }
		END { if (!n) { print "gen-options.sh: no " kind " block" > "/dev/stderr"; exit 1 } }
	' "$1" >"$tmp/page" && cat "$tmp/page" >"$1"
}

# A benchmark without a page yet (a new line in bench/list.h): start one
# from its table (title, summary), with the blocks filled below; its
# DESCRIPTION is then written by hand.
new_page() { # NAME PAGE
	local str='s/^"//; s/"$//'
	cat >"$2" <<EOF
.\" rb_$1.1: hand-written, except the blocks that man/gen-options.sh fills
.TH $(echo "RB_$1" | tr '[:lower:]' '[:upper:]') 1 $(date +%Y-%m-%d) rdmabench "rdmabench manual"
.SH NAME
rb_$1 \\- $(bench_field "$1" summary | sed "$str")
.SH SYNOPSIS
.B rb_$1
.RI [ OPTIONS ]
.br
.B rb_$1
.RI [ OPTIONS ] " HOST"
.SH DESCRIPTION
.B rb_$1
measures $(bench_field "$1" title | sed "$str") between two RDMA hosts
(the server without
.IR HOST ,
the client with it).
.SH OPTIONS
.\" BEGIN gen-options.sh options
.\" END gen-options.sh options
.SH OUTPUT
.\" BEGIN gen-options.sh output
.\" END gen-options.sh output
.SH EXIT STATUS
.\" BEGIN gen-options.sh exit
.\" END gen-options.sh exit
.SH SEE ALSO
.BR rb_devices (1),
.BR rdmabench (7)
EOF
	echo "gen-options.sh: wrote man/rb_$1.1: write its DESCRIPTION" >&2
}

case $print in
'') ;;
perftest-options) union_heads >/dev/null; perftest_block "$tmp/all-heads"; exit ;;
*) echo "gen-options.sh: --print perftest-options only" >&2 && exit 2 ;;
esac

for b in $benches; do
	page=$top/man/rb_$b.1
	[ -f "$page" ] || new_page "$b" "$page"
	tags=$(page_tags "$b")
	help_heads "rb_$b" >"$tmp/heads"
	[ -s "$tmp/heads" ] || { echo "gen-options.sh: $build/rb_$b --help lists no option" >&2; exit 1; }
	options_block "$tmp/heads" "$tags" | fill "$b" "rb_$b" >"$tmp/options"
	output_block "$tags" >"$tmp/output"
	exit_block >"$tmp/exit"
	splice "$page" options "$tmp/options"
	splice "$page" output "$tmp/output"
	splice "$page" exit "$tmp/exit"
done
common_block | sed -e 's/@SIZE@/per test/g; s/@ITERS@/per test/g; s/@TX@/per test/g' \
	-e 's/@RX@/per test/g; s/@PROG@/PROG/g' \
	>"$tmp/common"
defaults_block >"$tmp/defaults"
splice "$top/man/rdmabench.7" common-options "$tmp/common"
splice "$top/man/rdmabench.7" defaults "$tmp/defaults"
perftest_block "$tmp/all-heads" >"$tmp/perftest"
splice "$top/man/rdmabench.7" perftest-options "$tmp/perftest"
mpi_names_block >"$tmp/mpi-names"
splice "$top/man/rb_mpi.1" bench-names "$tmp/mpi-names"
mpi_bw_names_block >"$tmp/mpi-bw-names"
splice "$top/man/rb_mpi.1" background-names "$tmp/mpi-bw-names"
echo "gen-options.sh: updated man/rb_*.1, man/rdmabench.7 and rb_mpi(1)'s --bench and --background from $build" >&2
