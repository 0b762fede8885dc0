# needs: one-guest new-kernel
# --gpu_touch (perftest's; src/verbs/mem_cuda.c) on the newer guest kernel,
# whose rxe has on-demand paging (tests/rxe-kernel.sh), through the
# drivers' stand-in (tests/standin/: its "GPU memory" is host memory, its
# cuMemsetD2D8Async sets the bytes itself): the buffer in the stand-in's
# GPU memory, registered as an explicit ODP MR, the touch's passes counted
# by the stand-in (once: one per process; infinite: passes while the run
# goes on), every stream, event and allocation gone at exit, no call
# refused; the metadata says what ran (gpu_touch, memory_touch).  What
# this proves: the control flow and the RDMA on touched ODP memory (rxe's).
# Not proven: a GPU's own writes racing a NIC's ODP faults (no GPU is
# attached to an RDMA device anywhere we run; scripts/dev/gpu-proof.sh runs
# the touch on a lent GPU).  Sourced by run-all.sh.

tap_plan 3

t37_standin=$top_builddir/tests/standin

# t37_touch_run NAME PROG ARGS: rb_csv's pair on the stand-in.
t37_touch_run() {
	rb_case_dir "touch $1"
	(export LD_LIBRARY_PATH=$t37_standin RB_STANDIN_LOG=$RB_CASE_DIR/standin.log
	 rb_csv "touch $1" "$2" "$3 --use_cuda=0 --odp")
	t37_rc=$?
	rb_case_dir "touch $1"
	return $t37_rc
}

# t37_touch_log N: both processes' exit lines: N passes (N+: at least N),
# no stream or event left, all freed, no error.
t37_touch_log() {
	awk -v want="$1" '/ exit / { n++; for (i = 1; i < NF; i++) v[$i] = $(i + 1)
		t = v["touches"] + 0; w = want + 0
		if ((want ~ /\+$/ ? t < w : t != w) || v["streams"] != 0 || v["events"] != 0 ||
		    v["allocs"] != v["frees"] || v["allocs"] < 1 || v["errors"] != 0) bad++ }
		END { exit !(n == 2 && !bad) }' "$(rb_file standin.log)" && return 0
	tap_diag "the stand-in's log: $(grep ' exit \| error ' "$(rb_file standin.log)" 2>/dev/null | head -n 6)"
	return 1
}

t37_meta="meta['memory_kind'] == 'cuda'"
t37_odp="meta['odp'] == 'explicit ODP MR'"

t37_touch_run once rb_write_bw "-n 200 -s 4096 --gpu_touch=once" &&
	rb_check "$(rb_file client.csv)" 'status == "complete"' "$t37_meta" "$t37_odp" \
		"meta['gpu_touch'] == 'once'" "meta['memory_touch'].startswith('once: cuMemsetD2D8Async')" \
		"'1 pass, before the MR' in meta['memory_touch']" &&
	rb_check "$(rb_file server.csv)" "$t37_odp" "meta['gpu_touch'] == 'once'" &&
	t37_touch_log 1
tap_ok $? "rb_write_bw --use_cuda=0 --odp --gpu_touch=once (stand-in): complete on an ODP MR, one pass per side before the MR, all freed"

t37_touch_run infinite rb_write_bw "-D 2 -s 4096 --gpu_touch=infinite" &&
	rb_check "$(rb_file client.csv)" 'status == "complete"' "$t37_meta" "$t37_odp" \
		"meta['gpu_touch'] == 'infinite'" "meta['memory_touch'].startswith('infinite: cuMemsetD2D8Async')" &&
	t37_touch_log 2+
t37_ok=$?
tap_diag "$(rb_meta_lines "$(rb_file client.csv)" | grep '^# memory_touch=' | sed 's/^# //' | cut -c 1-330); passes: $(grep -o 'pid [0-9]* exit .*touches [0-9]*' "$(rb_file standin.log)" | sed 's/.*touches //' | tr '\n' ' ')"
tap_ok $t37_ok "rb_write_bw -D 2 --use_cuda=0 --odp --gpu_touch=infinite (stand-in): complete while the passes went on (2 or more per side), the thread stopped, all freed"

t37_touch_run "send infinite" rb_send_bw "-n 400 -s 4096 -r 64 -t 32 --gpu_touch=infinite" &&
	rb_check "$(rb_file server.csv)" 'status == "complete"' "$t37_odp" "meta['gpu_touch'] == 'infinite'" &&
	t37_touch_log 1+
tap_ok $? "rb_send_bw --use_cuda=0 --odp --gpu_touch=infinite (stand-in): receives into touched ODP memory, complete, all freed"
