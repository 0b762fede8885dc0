# needs: one-guest lane
# Post lists (-l) with CQ moderation (-Q), QPs (-q), -D and -R on every
# bandwidth benchmark: each run must end, with every message counted, long
# before its --timeout (5 s: a stall ends a side with exit 1).  Before the
# posting schedule (src/engine/postsched.c), -l 64 and -l 128 with the default
# -t 128 -Q 100 filled the send queue with unsignalled WRs and stalled.  The
# exhaustive proof is tests/unit/test_postsched.c; this is the device's word,
# on a sample (one pair takes seconds under emulation).  The rows are
# checked with awk: a python3 per case would double the file's time.
# Sourced by run-all.sh (see lib.sh).

# The cases below, skips included (tap_plan: lib.sh).
tap_plan 9

# FILE N SIZE Q T: a complete run whose row counts N messages (N "-": any),
# ran with cq_mod Q, and signalled one WR in at most min(Q, T)
# (wrs_per_cqe = posted / signalled, never above -Q nor the queue's depth).
postlist_row() {
	grep -q '"status":"complete"' "${1%.csv}.meta.json" || { tap_diag "$1: not complete"; return 1; }
	awk -F, -v n="$2" -v size="$3" -v q="$4" -v t="$5" '
		/^#/ || !NF { next }
		!hdr { for (i = 1; i <= NF; i++) c[$i] = i; hdr = 1; next }
		{ rows++; it = $c["iterations"]; by = $c["bytes"]; cq = $c["cq_mod"]; w = $c["wrs_per_cqe"] }
		END {
			lim = q < t ? q : t
			if (rows != 1 || (n != "-" && it != n) || it < 1 || by != it * size || cq != q ||
			    w == "" || w < 1 || w > lim) {
				printf "# %s: rows %d, iterations %s (want %s), bytes %s, cq_mod %s (want %s), wrs_per_cqe %s (want 1..%s)\n",
					FILENAME, rows, it, n, by, cq, q, w, lim
				exit 1
			}
		}' "$1"
}

# NAME PROG ARGS N SIZE Q T: a pair with --timeout 5; the client's row
# counts N; the server's row is the client's (rb_send_bw: it received N).
postlist_case() {
	local name=$1 prog=$2 args=$3 n=$4 size=$5 q=$6 t=$7 t0=$SECONDS st
	rb_csv "$name" "$prog" "$args --timeout 5" &&
		postlist_row "$(rb_file client.csv)" "$n" "$size" "$q" "$t" &&
		if [ "$prog" = rb_send_bw ]; then
			[ "$n" = - ] || [ "$(csv_col "$(rb_file server.csv)" iterations)" = "$n" ]
		else
			rb_same_rows "$(rb_file client.csv)" "$(rb_file server.csv)"
		fi
	st=$?
	tap_diag "$name: $((SECONDS - t0)) s"
	return "$st"
}

postlist_case "send -l 64" rb_send_bw "-s 64 -n 1000 -l 64" 1000 64 100 128
tap_ok $? "rb_send_bw -l 64 (-t 128 -Q 100): 1000 sent, 1000 received, no stall"

postlist_case "send -R -l 64" rb_send_bw "-R -s 64 -n 1000 -l 64" 1000 64 100 128
tap_ok $? "rb_send_bw -R -l 64: 1000 sent and received over rdma_cm"

postlist_case "write -l 64" rb_write_bw "-s 64 -n 3000 -l 64" 3000 64 100 128
tap_ok $? "rb_write_bw -s 64 -n 3000 -l 64 (the issue's case): 3000 writes"

postlist_case "write -l 128" rb_write_bw "-s 64 -n 1000 -l 128" 1000 64 100 128
tap_ok $? "rb_write_bw -l 128 = -t: 1000 writes"

postlist_case "write -q 4 -l 32" rb_write_bw "-s 64 -n 300 -q 4 -l 32" 1200 64 100 128
tap_ok $? "rb_write_bw -q 4 -l 32 -n 300: 1200 writes over four QPs"

postlist_case "read -l 50" rb_read_bw "-s 64 -n 1001 -l 50" 1001 64 100 128
tap_ok $? "rb_read_bw -l 50 -n 1001: a last partial list, 1001 reads"

postlist_case "read -l 64 -Q 200" rb_read_bw "-s 64 -n 1000 -l 64 -Q 200 -t 256" 1000 64 200 256
tap_ok $? "rb_read_bw -l 64 -Q 200 -t 256 (-Q above -l, kept as given): 1000 reads"

postlist_case "atomic -l 64 -Q 16" rb_atomic_bw "-n 1000 -l 64 -Q 16 -t 96" 1000 8 16 96
tap_ok $? "rb_atomic_bw -l 64 -Q 16 -t 96 (-Q below -l): 1000 operations"

postlist_case "atomic -D 1 -l 32" rb_atomic_bw "-D 1 -l 32 -Q 50" - 8 50 128
tap_ok $? "rb_atomic_bw -D 1 -l 32 -Q 50: the duration run ends"
