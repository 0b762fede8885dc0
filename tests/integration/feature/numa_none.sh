# needs: two-nodes
# --no-numa: placement left alone (no pinning, no binding), and said so in
# the CSV and, with --verbose, on stderr.
. "$top_srcdir/tests/integration/lib/numa.sh"

# The cases below (tap_plan: lib.sh): per benchmark one per side; one skip
# where this is not the two-node test bed.
numa_list=($(numa_progs rb_send_lat))
numa_ok=1
why=$(numa_ready) || numa_ok=0
tap_plan "numa_ok ? 2 * ${#numa_list[@]} : 1"

if [ "$numa_ok" = 0 ]; then
	tap_skip "--no-numa" "$why"
	return 0
fi

for P in $(numa_progs rb_send_lat); do
	rb_csv "no-numa $P" $P "-s 4096 -n 200 --no-numa --verbose"
	st=$?
	for side in server client; do
		[ "$st" = 0 ] &&
			meta_is $side numa_node none && meta_is $side cpu 0-1 &&
			meta_has $side placement '^# placement=--no-numa: no pinning' &&
			grep -q -- '--no-numa' "$RB_CASE_DIR/$side.err"
		tap_ok $? "$P $side --no-numa: not pinned (cpu=0-1), numa_node=none, says so"
	done
done
