# needs: two-nodes
# --numa-node 0 on the two-node test bed: buffers and thread on node 0
# (CPU 0), remote from the rxe NIC's node 1, and said so.  Inside: the CSV;
# outside: /proc/PID/numa_maps and Cpus_allowed_list while it runs.
. "$top_srcdir/tests/integration/lib/numa.sh"

# The cases below (tap_plan: lib.sh): per benchmark one per side; one skip
# where this is not the two-node test bed.
numa_list=($(numa_progs rb_write_bw))
numa_ok=1
why=$(numa_ready) || numa_ok=0
tap_plan "numa_ok ? 2 * ${#numa_list[@]} : 1"

if [ "$numa_ok" = 0 ]; then
	tap_skip "--numa-node 0" "$why"
	return 0
fi

for P in $(numa_progs rb_write_bw); do
	numa_run "numa-node 0 $P" $P "-s 65536 -n 300 --numa-node 0"
	st=$?
	for side in server client; do
		[ "$st" = 0 ] &&
			meta_is $side numa_node 0 && meta_is $side buffer_node 0 && meta_is $side cpu 0 &&
			meta_has $side placement '^# placement=--numa-node: .*remote from the device.s node 1' &&
			verbose_node_is $side 0
		tap_ok $? "$P $side --numa-node 0: buffers on node 0 (CSV, get_mempolicy in --verbose), CPU 0, remote"
	done
done
