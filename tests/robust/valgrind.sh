#!/bin/bash
# tests/robust/valgrind.sh [PROG...]: one server/client pair of each
# benchmark (default: all eight) under valgrind memcheck on a real RDMA
# device; TAP, one line per program: both sides exit 0, valgrind reports no
# error and no definite leak.  Not part of `make check`: under the test bed's
# emulation (TCG) valgrind makes a pair take minutes.  Run it by hand:
#
#   scripts/rb-testbed --timeout 3600 -- tests/robust/valgrind.sh
#
# Needs RB_DEV (the test bed sets it; default rxe0), RB_IP (default
# 192.0.2.1), RB_GID_INDEX.  The programs: $RB_BIN (default the top of the
# tree; not a sanitizer build: valgrind and ASan exclude each other).
# Suppressions: tests/robust/valgrind.supp.  Logs: $RB_VG_DIR (default
# .cache/valgrind/, kept).
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${RB_DEV:=rxe0}" "${RB_IP:=192.0.2.1}" "${RB_GID_INDEX:=1}" "${RB_BIN:=$top}"
out=${RB_VG_DIR:-$top/.cache/valgrind}
progs=${*:-rb_send_bw rb_send_lat rb_write_bw rb_write_lat rb_read_bw rb_read_lat rb_atomic_bw rb_atomic_lat}
command -v valgrind >/dev/null || { echo "1..0 # SKIP no valgrind"; exit 0; }
if grep -qa __asan_init "$RB_BIN/rb_send_bw" 2>/dev/null; then
	echo "1..0 # SKIP $RB_BIN holds a sanitizer build: valgrind needs a plain one"
	exit 0
fi
mkdir -p "$out"

vg=(valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite
	--errors-for-leak-kinds=definite --error-exitcode=99 --num-callers=30
	--suppressions="$top/tests/robust/valgrind.supp")

# The smallest run each does: a few messages of a small size.
args_of() {
	case $1 in
	*_lat) echo "-n 50 --warmup 5" ;;
	*) echo "-s 4096 -n 50" ;;
	esac
}

echo "1..$(echo $progs | wc -w)"
n=0 failed=0 port=19700
for prog in $progs; do
	n=$((n + 1)) port=$((port + 1))
	args=$(args_of "$prog")
	t0=$SECONDS
	# shellcheck disable=SC2086
	"${vg[@]}" --log-file="$out/$prog.server.vg" "$RB_BIN/$prog" -d "$RB_DEV" -x "$RB_GID_INDEX" \
		-p "$port" --timeout 120 $args >"$out/$prog.server.out" 2>"$out/$prog.server.err" &
	spid=$!
	for _ in $(seq 1200); do	# valgrind starts slowly: up to 120 s
		ss -Hltn "sport = :$port" | grep -q . && break
		sleep 0.1
	done
	# shellcheck disable=SC2086
	"${vg[@]}" --log-file="$out/$prog.client.vg" "$RB_BIN/$prog" -d "$RB_DEV" -x "$RB_GID_INDEX" \
		-p "$port" --timeout 120 $args "$RB_IP" >"$out/$prog.client.out" 2>"$out/$prog.client.err"
	crc=$?
	wait "$spid"
	src=$?
	st=0 what=""
	for side in server client; do
		f=$out/$prog.$side.vg
		errs=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$f" | tail -n1)
		lost=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$f" | tail -n1)
		what="$what $side: exit $([ $side = server ] && echo $src || echo $crc), ${errs:-?} errors, ${lost:-0} bytes definitely lost;"
		[ "${errs:-1}" = 0 ] && [ "${lost:-0}" = 0 ] || st=1
	done
	[ "$src" = 0 ] && [ "$crc" = 0 ] || st=1
	if [ "$st" = 0 ]; then
		echo "ok $n - $prog under valgrind:$what $((SECONDS - t0)) s"
	else
		failed=$((failed + 1))
		echo "not ok $n - $prog under valgrind:$what $((SECONDS - t0)) s"
		for f in "$out/$prog".*.vg "$out/$prog".*.err; do
			echo "# --- $(basename "$f")"
			grep -E '^==[0-9]+== (    (at|by)|[A-Z][a-z].*(Invalid|uninitialised|Conditional|definitely|Syscall|Mismatched))|error:' "$f" |
				head -n 30 | sed 's/^/#   /'
		done
	fi
done
[ "$failed" = 0 ]
