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

rank() {   # rank DIR -> its position in LAYERS, or nothing
	local i=0 l
	for l in $LAYERS; do
		[ "$l" = "$1" ] && { echo $i; return; }
		i=$((i + 1))
	done
}

# layer_of PATH (relative to the tree: src/X/... or bench/...)
layer_of() {
	case $1 in
	bench/*) echo bench ;;
	src/*) local r=${1#src/}; echo "${r%%/*}" ;;
	esac
}

# upward TREE: print "FILE: includes TARGET (upward)" for each violation,
# and files outside any layer
upward() {
	local tree=$1 f l inc il
	(cd "$tree" && find src bench -name '*.[ch]' | sort) | while read -r f; do
		l=$(layer_of "$f")
		[ -n "$(rank "$l")" ] || { echo "$f: not in a layer folder"; continue; }
		grep -o '^#include "[^"]*"' "$tree/$f" | sed 's/#include "//; s/"$//' |
		while read -r inc; do
			case $inc in config.h|rb-commit.h) continue ;; esac
			case $inc in
			*/*) il=${inc%%/*} ;;
			*) echo "$f: includes \"$inc\" without its folder"; continue ;;
			esac
			[ "$il" = .. ] && { echo "$f: includes \"$inc\" by a relative path"; continue; }
			[ -n "$(rank "$il")" ] || { echo "$f: includes \"$inc\" (not a layer)"; continue; }
			[ "$(rank "$il")" -le "$(rank "$l")" ] ||
				echo "$f: includes \"$inc\" ($il is above $l)"
		done
	done
}

# circles TREE: the header include graph's cycles (tsort reports them)
circles() {
	local tree=$1 f inc
	(cd "$tree/src" && find . -name '*.h' | sed 's|^\./||' | sort) | while read -r f; do
		echo "$f $f"
		grep -o '^#include "[^"]*"' "$tree/src/$f" | sed 's/#include "//; s/"$//' |
		while read -r inc; do
			[ -f "$tree/src/$inc" ] && echo "$inc $f"
		done
	done | tsort 2>&1 >/dev/null | grep -v '^tsort: -: input contains a loop:$' | sed 's/^tsort: /circle through /'
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
calls() {
	local dir=$1
	(cd "$dir" && find src bench -name '*.o' 2>/dev/null | sort) | while read -r o; do
		l=$(layer_of "$o")
		[ -n "$(rank "$l")" ] || continue
		nm --defined-only -g "$dir/$o" | awk -v l="$l" 'NF == 3 { print "D", $3, l }'
		nm -u "$dir/$o" | awk -v l="$l" -v o="$o" '{ print "U", $2, l, o }'
	done | awk -v layers="$LAYERS" '
		BEGIN { n = split(layers, a, " "); for (i = 1; i <= n; i++) r[a[i]] = i }
		$1 == "D" { if (!($2 in def) || r[$3] < r[def[$2]]) def[$2] = $3; next }
		{ use[++u] = $0 }
		END {
			for (i = 1; i <= u; i++) {
				split(use[i], f, " ")
				if ((f[2] in def) && r[def[f[2]]] > r[f[3]])
					print f[4] ": calls " f[2] " (defined in " def[f[2]] ", above " f[3] ")"
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
