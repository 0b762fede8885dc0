# needs: one-guest lane
# GPU memory (src/verbs/mem_cuda.c, mem_rocm.c) on rxe through the drivers'
# STAND-IN (tests/standin/fakegpu.c, found by the dlopen through
# LD_LIBRARY_PATH): its "GPU memory" is host memory, which rxe registers
# directly, so the RDMA is real and only the GPU is a stand-in.  What this
# proves: the control flow (the library loaded at run time, the device
# chosen, device memory confirmed, registered as peer memory, --validate
# staged through a host copy with the driver's copies, everything freed),
# the metadata, and the refusals (dma-buf on rxe, named; no driver; managed
# memory; the write ping-pong; --gpu_touch on host memory, and its
# stream, event and pass cleaned up when --odp then fails on this kernel's
# rxe; --gpu_touch's runs on ODP: feature/gpu_touch.sh).  Not proven here: a real GPU's memory under
# RDMA (no GPU is attached to an RDMA device anywhere we run).  Sourced by
# run-all.sh.

# The cases below, skips included (tap_plan: lib.sh).
tap_plan 10

t37_standin=$top_builddir/tests/standin

# t37_env: the environment of a run on the stand-in (the log: this case's).
t37_env() { echo "LD_LIBRARY_PATH=$t37_standin RB_STANDIN_LOG=\$RB_CASE_DIR/standin.log"; }

# t37_ok NAME PROG ARGS CLIENT SERVER CHECKED: both sides complete on
# the stand-in's memory, CHECKED messages validated, none wrong, the
# metadata naming the kind, the stand-in GPU and peer memory; the stand-in's
# log: each process freed all it allocated, copied both ways, no error.
t37_ok() {
	rb_case_dir "gpu $1"
	(export LD_LIBRARY_PATH=$t37_standin RB_STANDIN_LOG=$RB_CASE_DIR/standin.log
	 rb_csv "gpu $1" "$2" "--validate $3" "$4" "$5")
	rb_case_dir "gpu $1"
	[ -s "$(rb_file client.csv)" ] &&
		rb_check "$(rb_file client.csv)" 'status == "complete"' \
			"int(r['validated_msgs']) $6" 'int(r["validate_errors"]) == 0' \
			"'stand-in GPU' in meta['memory_device']" \
			"meta['memory_registration'].startswith('ibv_reg_mr')" \
			"meta['memory_staging'].startswith('--validate')" &&
		rb_check "$(rb_file server.csv)" "int(r['validated_msgs']) $6" 'int(r["validate_errors"]) == 0' \
			"'stand-in GPU' in meta['memory_device']" &&
		t37_log_ok
}

# t37_log_ok: the stand-in's exit lines (one per process: 2) each with
# allocs == frees > 0, copies both ways, no error.
t37_log_ok() {
	local log
	log=$(rb_file standin.log)
	awk '/ exit / { n++; for (i = 1; i < NF; i++) v[$i] = $(i + 1)
		if (v["allocs"] < 1 || v["allocs"] != v["frees"] || v["htod"] < 1 || v["dtoh"] < 1 || v["errors"] != 0) bad++ }
		END { exit !(n == 2 && !bad) }' "$log" && return 0
	tap_diag "the stand-in's log: $(grep ' exit \| error ' "$log" 2>/dev/null | head -n 6)"
	return 1
}

t37_ok write_bw rb_write_bw "-n 200 -s 64 --use_cuda=0" "" "" "== 64" &&
	rb_check "$(rb_file client.csv)" "meta['memory_kind'] == 'cuda'" "meta['memory_bus_id'] == '0000:a0:00.0'"
tap_ok $? "rb_write_bw --use_cuda=0 --validate on the stand-in: 64 slots checked on both sides, memory_kind cuda, bus id 0000:a0:00.0, peer memory, all freed"

# the client on ROCm GPU 1, the server on CUDA GPU 0: each side names its own
t37_ok "send_bw rocm" rb_send_bw "-n 200 -s 1024" "--use_rocm=1" "--use_cuda=0" "== 200" &&
	rb_check "$(rb_file client.csv)" "meta['memory_kind'] == 'rocm'" "meta['memory_bus_id'] == '0000:a1:00.0'" &&
	rb_check "$(rb_file server.csv)" "meta['memory_kind'] == 'cuda'"
tap_ok $? "rb_send_bw --validate, client --use_rocm=1, server --use_cuda=0 (stand-in): every message checked, each side names its GPU"

t37_ok read_bw rb_read_bw "-n 200 -s 1024 --use_cuda=1" "" "" "== 200"
tap_ok $? "rb_read_bw --use_cuda=1 --validate on the stand-in: every read checked, all freed"

# t37_fails NAME CODE ERE ENV ARGS: one rb_write_bw --loopback on the
# stand-in (ENV before it) exits CODE, its stderr matching ERE.
t37_fails() {
	rb_case "gpu $1"
	rb_start client "env $(t37_env) $4 $(rb_cmd rb_write_bw) --loopback -n 20 $5"
	rb_wait client
	rb_failed "$2" "$3" client
}

t37_fails dmabuf 1 "rxe[0-9]* cannot register dma-buf memory" "" "--use_cuda=0 --use_cuda_dmabuf" &&
	grep -q " export " "$(rb_file standin.log)"
tap_ok $? "--use_cuda_dmabuf on rxe: the dma-buf exported, then rxe's refusal named (exit 1)"

t37_fails rocm-dmabuf 1 "rxe[0-9]* cannot register dma-buf memory .* of rocm" "" "--use_rocm=0 --use_rocm_dmabuf" &&
	grep -q " export " "$(rb_file standin.log)"
tap_ok $? "--use_rocm_dmabuf on rxe: exported through the HSA stand-in, then rxe's refusal named (exit 1)"

t37_fails nolib 1 "--use_cuda: cannot load libcuda.so.1 .*LD_LIBRARY_PATH" "LD_LIBRARY_PATH=/nonexistent" "--use_cuda=0"
tap_ok $? "no libcuda.so.1 found: exit 1 naming the library and LD_LIBRARY_PATH"

t37_fails managed 1 "gave managed memory, not device memory" "RB_STANDIN_MEMTYPE=managed" "--use_cuda=0"
tap_ok $? "managed memory (the stand-in says so): exit 1, named, not measured as GPU memory"

rb_case "gpu write_lat"
rb_start client "env $(t37_env) $(rb_cmd rb_write_lat) --loopback -n 20 --use_cuda=0"
rb_wait client
rb_failed 2 "the write ping-pong writes and polls a byte of each message from the CPU, and memory of kind cuda" client
tap_ok $? "rb_write_lat --use_cuda=0: refused (exit 2): no host-visible byte to poll in device memory"

# --gpu_touch (#37): on host memory it means nothing (exit 2); with the
# stand-in's GPU memory the first pass runs in the allocation, then --odp
# fails on this boot's rxe (Linux 6.1: no ODP) and everything is undone.
usage_case "--gpu_touch makes the GPU touch the buffers' pages: in host memory \\(no --use_cuda\\)" rb_write_bw --gpu_touch=once
tap_ok $? "usage: rb_write_bw --gpu_touch=once on host memory exits 2: it means nothing there"

# t37_touch_log N: every process's exit line: N passes (N+: at least N),
# no stream or event left, all freed, no error.
t37_touch_log() {
	awk -v want="$1" '/ exit / { n++; for (i = 1; i < NF; i++) v[$i] = $(i + 1)
		t = v["touches"] + 0; w = want + 0
		if ((want ~ /\+$/ ? t < w : t != w) || v["streams"] != 0 || v["events"] != 0 ||
		    v["allocs"] != v["frees"] || v["errors"] != 0) bad++ }
		END { exit !(n >= 1 && !bad) }' "$(rb_file standin.log)" && return 0
	tap_diag "the stand-in's log: $(grep ' exit \| error ' "$(rb_file standin.log)" 2>/dev/null | head -n 6)"
	return 1
}

t37_fails touch-noodp 1 "--odp: rxe[0-9]* has no on-demand paging" "" "--use_cuda=0 --odp --gpu_touch=once" &&
	t37_touch_log 1
tap_ok $? "--use_cuda=0 --odp --gpu_touch=once on Linux 6.1's rxe: the pass done at allocation, then --odp refused (exit 1), stream, event and memory freed"
