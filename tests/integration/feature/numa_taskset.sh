# needs: two-nodes
# Under `taskset -c 0` (the user restricted the affinity to node 0's CPU)
# the tool keeps it: cpu stays 0, the buffers follow (node 0), and it says
# that they are remote from the device's node 1 (CSV and --verbose).
. "$top_srcdir/tests/integration/lib/numa.sh"

# The cases below (tap_plan: lib.sh): per benchmark one per side; one skip
# where this is not the two-node test bed.
numa_list=($(numa_progs rb_send_lat))
numa_ok=1
why=$(numa_ready) || numa_ok=0
tap_plan "numa_ok ? 2 * ${#numa_list[@]} : 1"

if [ "$numa_ok" = 0 ]; then
	tap_skip "taskset -c 0" "$why"
	return 0
fi

for P in $(numa_progs rb_send_lat); do
	rb_case "taskset $P"
	rb_pair "taskset $P" \
		"taskset -c 0 $(rb_cmd $P) -s 4096 -n 200 --verbose --csv=\$RB_CASE_DIR/server.csv" \
		"taskset -c 0 $(rb_cmd $P) -s 4096 -n 200 --verbose --csv=\$RB_CASE_DIR/client.csv \"\$RB_IP\""
	st=$?
	for side in server client; do
		[ "$st" = 0 ] &&
			meta_is $side cpu 0 && meta_is $side buffer_node 0 &&
			meta_has $side placement '^# placement=user affinity kept: CPUs 0; .*remote from the device.s node 1' &&
			grep -Eq 'remote from the device.s node 1' "$RB_CASE_DIR/$side.err"
		tap_ok $? "$P $side under taskset -c 0: cpu stays 0, buffers on node 0, says remote"
	done
done
