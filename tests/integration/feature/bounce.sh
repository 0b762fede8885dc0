# needs: one-guest lane
# --bounce: the data's buffer staged through a registered host buffer, a
# copy each message (validate.c's hooks: before each send or write, after
# each receive or read; a write's target once after the run).  On the test
# bed the data's buffer is host memory (host to host: the copies are what
# the figures show), or the GPU stand-in's (tests/standin: host memory
# behind libcuda's entry points; the RDMA is real, the GPU a stand-in),
# whose log counts the copies.  --validate proves that the bytes made the
# trip through both buffers.  Sourced by run-all.sh.

# The cases below, skips included (tap_plan: lib.sh).
tap_plan 5

# t37b_ok NAME PROG ARGS CHECKED: both sides complete, CHECKED validated,
# none wrong, the metadata saying bounce.
t37b_ok() {
	rb_csv "bounce $1" "$2" "--bounce --validate $3" &&
		rb_check "$(rb_file client.csv)" 'status == "complete"' \
			"int(r['validated_msgs']) $4" 'int(r["validate_errors"]) == 0' \
			"meta['memory_bounce'].startswith('a copy each message')" \
			"meta['memory_registration'].startswith('ibv_reg_mr of a host bounce buffer')" &&
		rb_check "$(rb_file server.csv)" "int(r['validated_msgs']) $4" 'int(r["validate_errors"]) == 0' \
			"meta['memory_bounce'].startswith('a copy each message')"
	tap_ok $? "$2 --bounce --validate $3: host to host through a bounce buffer, $4 checked, none wrong, both sides say bounce"
}

t37b_ok send_bw rb_send_bw "-n 300 -s 4096 -q 2" "== 600"
t37b_ok write_bw rb_write_bw "-n 200 -s 64" "== 64"
t37b_ok read_bw rb_read_bw "-n 200 -s 1024" "== 200"

# The stand-in GPU behind the bounce: its log counts a copy per message
# (send_bw's client: at least 200 to the host, its server 200 back).
rb_case_dir "bounce cuda"
(export LD_LIBRARY_PATH=$top_builddir/tests/standin RB_STANDIN_LOG=$RB_CASE_DIR/standin.log
 rb_csv "bounce cuda" rb_send_bw "--bounce -n 200 -s 1024 --use_cuda=0")
rb_case_dir "bounce cuda"
rb_check "$(rb_file client.csv)" 'status == "complete"' "meta['memory_kind'] == 'cuda'" \
	"meta['memory_bounce'].startswith('a copy each message')" &&
	awk '/ exit / { n++; for (i = 1; i < NF; i++) v[$i] = $(i + 1)
		if (v["allocs"] != v["frees"] || v["errors"] != 0) bad++
		if (v["dtoh"] >= 200) out++; if (v["htod"] >= 200) in_++ }
		END { exit !(n == 2 && !bad && out >= 1 && in_ >= 1) }' "$(rb_file standin.log)"
st=$?
[ "$st" = 0 ] || tap_diag "$(grep ' exit ' "$(rb_file standin.log)" 2>/dev/null)"
tap_ok "$st" "rb_send_bw --bounce --use_cuda=0 (stand-in): a device-to-host copy per message sent, host-to-device per message received, all freed"

# The cost of the copies, host to host: the same run with and without.
rb_csv "bounce cost off" rb_send_bw "-n 500 -s 65536" &&
	t37b_off=$(csv_col "$(rb_file client.csv)" bw_avg_mibps) &&
	rb_csv "bounce cost on" rb_send_bw "--bounce -n 500 -s 65536" &&
	t37b_on=$(csv_col "$(rb_file client.csv)" bw_avg_mibps)
st=$?
tap_diag "rb_send_bw -s 65536 -n 500: $t37b_off MiB/s registered directly, $t37b_on MiB/s through a bounce buffer"
tap_ok "$st" "rb_send_bw 64 KiB with and without --bounce: both complete (figures above)"
