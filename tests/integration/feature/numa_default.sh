# needs: two-nodes
# Default placement on the two-node test bed: the rxe NIC is on node 1, so
# each side's MR buffers go to node 1 and its measuring thread to CPU 1.
# Checked from inside (the CSV: numa_node, buffer_node from get_mempolicy,
# cpu, placement) and the --verbose line with get_mempolicy's node for the
# buffers.  (A /proc/PID/numa_maps snapshot from outside is racy on a
# loaded emulator: numa_run still takes one, for diagnosis.)
. "$top_srcdir/tests/integration/lib/numa.sh"

# The cases below (tap_plan: lib.sh): per benchmark two per side (CSV,
# get_mempolicy), then --json; one skip where this is not the two-node
# test bed.
numa_list=($(numa_progs rb_write_bw))
numa_ok=1
why=$(numa_ready) || numa_ok=0
tap_plan "numa_ok ? 4 * ${#numa_list[@]} + 1 : 1"

if [ "$numa_ok" = 0 ]; then
	tap_skip "default placement" "$why"
	return 0
fi

for P in $(numa_progs rb_write_bw); do
	numa_run "default $P" $P "-s 65536 -n 300"
	st=$?
	for side in server client; do
		[ "$st" = 0 ] &&
			meta_is $side numa_node 1 && meta_is $side buffer_node 1 && meta_is $side cpu 1 &&
			meta_has $side placement '^# placement=device-local: .*local to the device.s node 1'
		tap_ok $? "$P $side, default: CSV numa_node=1 buffer_node=1 cpu=1, device-local"
		[ "$st" = 0 ] && verbose_node_is $side 1
		tap_ok $? "$P $side, default: get_mempolicy on the buffers says node 1 (--verbose)"
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
