# Default placement on the two-node test bed: the rxe NIC is on node 1, so
# each side's MR buffers go to node 1 and its measuring thread to CPU 1.
# Checked from inside (the CSV: numa_node, buffer_node from get_mempolicy,
# cpu, placement) and from outside while it runs (/proc/PID/numa_maps: the
# biggest anonymous mapping, the buffers; /proc/PID/status:
# Cpus_allowed_list).  Sourced by tests/rxe-numa.sh through run-all.sh.
. "$top_srcdir/tests/numa/numa_lib.sh"

if ! why=$(numa_ready); then
	tap_skip "default placement" "$why"
	return 0
fi

for P in $(numa_progs); do
	numa_run "default $P" $P "-s 65536 -D 3"
	st=$?
	for side in server client; do
		[ "$st" = 0 ] &&
			meta_is $side numa_node 1 && meta_is $side buffer_node 1 && meta_is $side cpu 1 &&
			meta_has $side placement '^# placement=device-local: .*local to the device.s node 1'
		tap_ok $? "$P $side, default: CSV numa_node=1 buffer_node=1 cpu=1, device-local"
		[ "$st" = 0 ] && only_on_node 1 "$RB_CASE_DIR/$side.numa_maps" && cpus_is $side 1
		tap_ok $? "$P $side, default: numa_maps has the buffers on N1, Cpus_allowed_list 1"
	done
done

P=rb_write_bw
rb_case "default json"
rb_bench "default json" $P "-s 4096 -n 200" "--json=\$RB_CASE_DIR/client.json" \
	"--json=\$RB_CASE_DIR/server.json" &&
	rb_check "$(rb_file client.json)" 'meta["numa_node"] == 1' 'meta["buffer_node"] == 1' \
		'meta["cpu"] == 1' '"device-local" in meta["placement"]' &&
	rb_check "$(rb_file server.json)" 'meta["numa_node"] == 1' 'meta["cpu"] == 1'
tap_ok $? "$P --json: meta numa_node 1, buffer_node 1, cpu 1 on both sides"
