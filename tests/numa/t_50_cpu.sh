# --cpu LIST pins as asked (server --cpu 0, client --cpu 1); an invalid CPU
# or node (--cpu 7, --numa-node 5) is a usage error: exit 2, and the
# message names the option.
. "$top_srcdir/tests/numa/numa_lib.sh"

if ! why=$(numa_ready); then
	tap_skip "--cpu" "$why"
	return 0
fi

for P in $(numa_progs); do
	rb_csv "cpu $P" $P "-s 4096 -n 200" "--cpu 1" "--cpu 0"
	st=$?
	[ "$st" = 0 ] &&
		meta_is server cpu 0 && meta_is server numa_node 0 && meta_is server buffer_node 0 &&
		meta_has server placement '^# placement=--cpu: thread on CPUs 0, .*remote' &&
		meta_is client cpu 1 && meta_is client numa_node 1 && meta_is client buffer_node 1 &&
		meta_has client placement '^# placement=--cpu: thread on CPUs 1, .*local to the device'
	tap_ok $? "$P: server --cpu 0 on CPU 0/node 0, client --cpu 1 on CPU 1/node 1"

	for bad in "--cpu 7" "--numa-node 5"; do
		rb_case "bad $P $bad"
		RB_PAIR_TIMEOUT=20 rb_start server "$(rb_cmd $P) -n 10 $bad"
		RB_PAIR_TIMEOUT=20 rb_start client "$(rb_cmd $P) -n 10 $bad 192.0.2.250"
		rb_wait server client
		rb_failed 2 "${bad% *}"
		tap_ok $? "$P $bad: usage error (exit 2) naming ${bad% *}, server and client"
	done
done
