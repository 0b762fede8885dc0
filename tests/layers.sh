#!/bin/bash
# The layering of src/ (STYLE.md, each folder's opening map): every
# #include "DIR/file.h" points to the same folder or one earlier in
#   lib < cli < verbs < session < engine < report < bench < driver < prog
# (bench/ is the top-level plug-in folder), and the headers include no
# circle.  The checker is first run on a copy with a planted upward include
# and a planted circle, which it must reject: a checker that cannot fail is
# not a test.
top=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
build=${top_builddir:-$top}
tn=0
echo 1..9
ok() { # STATUS NAME
	tn=$((tn + 1))
	if [ "$1" = 0 ]; then echo "ok $tn - $2"; else echo "not ok $tn - $2"; fi
}

LAYERS="lib cli verbs session engine report bench driver prog"

# RANK[DIR]: its position in LAYERS (read by the shell: upward() asks for
# each include, and a $(rank) subshell per include cost ~2 s of CPU)
declare -A RANK
i=0
for l in $LAYERS; do RANK[$l]=$i; i=$((i + 1)); done

# layer_in PATH (relative to the tree: src/X/... or bench/...): its
# layer into $LAYER (no subshell), or "" outside src/ and bench/
layer_in() {
	case $1 in
	bench/*) LAYER=bench ;;
	src/*) LAYER=${1#src/}; LAYER=${LAYER%%/*} ;;
	*) LAYER= ;;
	esac
}
# has_rank DIR: true when DIR is a layer
has_rank() { [ -n "$1" ] && [ -n "${RANK[$1]+x}" ]; }

# includes DIR FIND-ARGS...: "FILE INCLUDE" for each #include "..." of the
# files `find FIND-ARGS` lists in DIR (one grep for them all: a grep and a
# sed per file cost a second of CPU)
includes() {
	local dir=$1
	shift
	(cd "$dir" && find "$@" | sed 's|^\./||' | sort | xargs -r grep -H -o '^#include "[^"]*"' |
		sed 's/:#include "/ /; s/"$//')
}

# upward TREE: print "FILE: includes TARGET (upward)" for each violation,
# and files outside any layer
upward() {
	local tree=$1 f l inc il
	(cd "$tree" && find src bench -name '*.[ch]' | sort) | while read -r f; do
		layer_in "$f"
		has_rank "$LAYER" || echo "$f: not in a layer folder"
	done
	includes "$tree" src bench -name '*.[ch]' | while read -r f inc; do
		layer_in "$f"; l=$LAYER
		has_rank "$l" || continue
		case $inc in config.h|rb-commit.h) continue ;; esac
		case $inc in
		*/*) il=${inc%%/*} ;;
		*) echo "$f: includes \"$inc\" without its folder"; continue ;;
		esac
		[ "$il" = .. ] && { echo "$f: includes \"$inc\" by a relative path"; continue; }
		has_rank "$il" || { echo "$f: includes \"$inc\" (not a layer)"; continue; }
		[ "${RANK[$il]}" -le "${RANK[$l]}" ] ||
			echo "$f: includes \"$inc\" ($il is above $l)"
	done
}

# circles TREE: the header include graph's cycles (tsort reports them)
circles() {
	local tree=$1 f inc
	{
		(cd "$tree/src" && find . -name '*.h' | sed 's|^\./||' | sort) | while read -r f; do echo "$f $f"; done
		includes "$tree/src" . -name '*.h' | while read -r f inc; do
			[ -f "$tree/src/$inc" ] && echo "$inc $f"
		done
	} | tsort 2>&1 >/dev/null | grep -v '^tsort: -: input contains a loop:$' | sed 's/^tsort: /circle through /'
}

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/plant/src/lib" "$tmp/plant/src/driver" "$tmp/plant/bench"
printf '#include "driver/run.h"\n' > "$tmp/plant/src/lib/a.h"
printf '#include "lib/a.h"\n' > "$tmp/plant/src/driver/run.h"
printf '#include "lib/b.h"\n' > "$tmp/plant/src/lib/c.h"
printf '#include "lib/c.h"\n' > "$tmp/plant/src/lib/b.h"

out=$(upward "$tmp/plant")
echo "$out" | grep -q 'src/lib/a.h: includes "driver/run.h" (driver is above lib)'
ok $? "the checker rejects a planted upward include (lib -> driver)"
out=$(circles "$tmp/plant")
echo "$out" | grep -q 'lib/b.h' && echo "$out" | grep -q 'lib/c.h'
ok $? "the checker finds a planted circle (lib/b.h <-> lib/c.h)"

out=$(upward "$top")
[ -z "$out" ]
ok $? "every include in src/ and bench/ points to its own layer or one below"
[ -z "$out" ] || echo "$out" | sed 's/^/# /'

out=$(circles "$top")
[ -z "$out" ]
ok $? "no include circle among src/'s headers"
[ -z "$out" ] || echo "$out" | sed 's/^/# /'

n=$(cd "$top" && find src bench -name '*.[ch]' | xargs grep -l '^#include "[^"]*\.c"' | wc -l)
[ "$n" -eq 0 ]
ok $? "no file includes a .c file ($n do)"

# calls: the built objects of each layer use only symbols defined in their
# own layer or below (an include can be avoided by a bare prototype; a call
# cannot).  OBJDIR holds src/LAYER/... and bench/ objects.
# Two nm processes for all the objects (nm -A names each line's file), not
# two per object: 224 nm starts took ~9 s of CPU for 112 objects.
calls() {
	local dir=$1
	(cd "$dir" && find src bench -name '*.o' 2>/dev/null | sort) >"$tmp/objlist"
	[ -s "$tmp/objlist" ] || return 0
	(cd "$dir" && xargs nm -A --defined-only -g <"$tmp/objlist" | awk 'NF == 3 { print "D", $0 }'
	 xargs nm -A -u <"$tmp/objlist" | awk 'NF == 3 { print "U", $0 }') |
	awk -v layers="$LAYERS" '
		BEGIN { n = split(layers, a, " "); for (i = 1; i <= n; i++) r[a[i]] = i }
		# "D FILE:ADDR T SYM" or "U FILE: U SYM": the layer from the file
		# (bench/... or src/LAYER/...), objects outside a layer left out
		{
			o = $2; sub(/:.*/, "", o)
			if (o ~ /^bench\//) l = "bench"
			else if (o ~ /^src\/[^\/]+\//) { l = o; sub(/^src\//, "", l); sub(/\/.*/, "", l) }
			else next
			if (!(l in r)) next
		}
		$1 == "D" { if (!($4 in def) || r[l] < r[def[$4]]) def[$4] = l; next }
		{ use[++u] = $4 " " l " " o }
		END {
			for (i = 1; i <= u; i++) {
				split(use[i], f, " ")
				if ((f[1] in def) && r[def[f[1]]] > r[f[2]])
					print f[3] ": calls " f[1] " (defined in " def[f[1]] ", above " f[2] ")"
			}
		}' | sort -u
}

mkdir -p "$tmp/objs/src/lib" "$tmp/objs/src/driver"
printf 'int driver_fn(void) { return 1; }\n' > "$tmp/driver.c"
printf 'int driver_fn(void); int lib_fn(void) { return driver_fn(); }\n' > "$tmp/lib.c"
cc -c -o "$tmp/objs/src/driver/d.o" "$tmp/driver.c" && cc -c -o "$tmp/objs/src/lib/l.o" "$tmp/lib.c"
out=$(calls "$tmp/objs")
echo "$out" | grep -q 'src/lib/l.o: calls driver_fn (defined in driver, above lib)'
ok $? "the checker rejects a planted upward call (lib -> driver)"

nobj=$(cd "$build" && find src bench -name '*.o' 2>/dev/null | wc -l)
out=$(calls "$build")
[ "$nobj" -gt 0 ] && [ -z "$out" ]
ok $? "no object calls a function of a layer above its own ($nobj objects)"
[ -z "$out" ] || echo "$out" | sed 's/^/# /'


# maps: each layer folder of src/ opens with a README.md naming each of its
# files (a file "x.c" is named as x.c, x.h or x.c/.h)
maps() {
	local tree=$1 d f stem
	for d in $LAYERS; do
		[ -d "$tree/src/$d" ] || continue
		[ -f "$tree/src/$d/README.md" ] || { echo "src/$d: no README.md"; continue; }
		for f in $(cd "$tree/src/$d" && ls | grep '\.[ch]$'); do
			stem=${f%.*}
			grep -q "\b$stem\.[ch]" "$tree/src/$d/README.md" ||
				echo "src/$d/$f: not in src/$d/README.md"
		done
	done
}

mkdir -p "$tmp/plant/src/cli" && printf '# cli\n    a.c  a\n' > "$tmp/plant/src/cli/README.md"
touch "$tmp/plant/src/cli/a.c" "$tmp/plant/src/cli/b.c"
out=$(maps "$tmp/plant")
echo "$out" | grep -q 'src/cli/b.c: not in src/cli/README.md' && ! echo "$out" | grep -q 'a.c'
ok $? "the checker finds a planted file missing from its folder's map"

out=$(maps "$top")
[ -z "$out" ]
ok $? "every file of a layer folder is in its folder's map (README.md)"
[ -z "$out" ] || echo "$out" | sed 's/^/# /'
