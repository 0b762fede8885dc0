# needs: two-nodes
# --cpu LIST pins as asked (server --cpu 0, client --cpu 1): the CSV says
# so, and from outside, /proc/PID/status's Cpus_allowed_list while it runs
# (numa_run's snapshot; -D so that the run outlasts it).  An invalid CPU or
# node (--cpu 7, --cpu 1-x, --numa-node 5, --cpu with --no-numa) is a usage
# error: exit 2, and the message names the option.
. "$top_srcdir/tests/integration/lib/numa.sh"

# The cases below (tap_plan: lib.sh): per benchmark two placements, four usage errors; one skip
# where this is not the two-node test bed.
numa_list=($(numa_progs rb_send_lat))
numa_ok=1
why=$(numa_ready) || numa_ok=0
tap_plan "numa_ok ? 6 * ${#numa_list[@]} : 1"

if [ "$numa_ok" = 0 ]; then
	tap_skip "--cpu" "$why"
	return 0
fi

for P in $(numa_progs rb_send_lat); do
	numa_run "cpu $P" $P "-s 4096 -D 3" "--cpu 1" "--cpu 0"
	st=$?
	[ "$st" = 0 ] && cpus_is server 0 && cpus_is client 1
	tap_ok $? "$P: server --cpu 0 and client --cpu 1 run on those CPUs (/proc/PID/status Cpus_allowed_list)"
	[ "$st" = 0 ] &&
		meta_is server cpu 0 && meta_is server numa_node 0 && meta_is server buffer_node 0 &&
		meta_has server placement '^# placement=--cpu: thread on CPUs 0, .*remote' &&
		meta_is client cpu 1 && meta_is client numa_node 1 && meta_is client buffer_node 1 &&
		meta_has client placement '^# placement=--cpu: thread on CPUs 1, .*local to the device'
	tap_ok $? "$P: server --cpu 0 on CPU 0/node 0, client --cpu 1 on CPU 1/node 1"

	for bad in "--cpu 7" "--cpu 1-x" "--numa-node 5" "--no-numa --cpu 1"; do
		rb_case "bad $P $bad"
		RB_PAIR_TIMEOUT=20 rb_start server "$(rb_cmd $P) -n 10 $bad"
		RB_PAIR_TIMEOUT=20 rb_start client "$(rb_cmd $P) -n 10 $bad 192.0.2.250"
		rb_wait server client
		opt=${bad% *}
		opt=${opt##* }
		rb_failed 2 "$opt"
		tap_ok $? "$P $bad: usage error (exit 2) naming $opt, server and client"
	done
done
