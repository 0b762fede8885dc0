#!/bin/bash
# Guest A (rail 1: rxe1 on eth1, 198.51.100.1) of tests/rxe-two.sh
# (tests/integration/lib/two-servers.sh): rb_send_bw --persistent on rxe1,
# TCP port 18720, kept up until guest B's cases
# (tests/integration/prog/testbed_nics.sh) write DIR/done, or 600 s pass.
# Exits 1 when B never said done or the server did not end cleanly.
#   two-nics-server.sh DIR BUILDDIR
dir=$1 bin=$2
"$bin/rb_send_bw" -d "${RB_DEV1:?RB_DEV1 unset: rb-testbed --nics 2}" -x "$RB_GID_INDEX1" -p 18720 \
	--persistent --timeout 30 -s 65536 -n 200 >"$dir/server.out" 2>"$dir/server.err" </dev/null &
pid=$!
. "${0%/*}/nap.sh"
for _ in $(seq 3000); do
	[ -e "$dir/done" ] && break
	kill -0 "$pid" 2>/dev/null || break
	nap 0.2
done
kill -TERM "$pid" 2>/dev/null
wait "$pid"
st=$?
[ "$st" = 0 ] || { echo "nics-server: rb_send_bw -d $RB_DEV1 exited with status $st:" >&2; tail -n 5 "$dir/server.err" >&2; }
[ -e "$dir/done" ] || { echo "nics-server: guest B never said done" >&2; exit 1; }
[ "$st" = 0 ]
