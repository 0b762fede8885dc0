#!/bin/bash
# Guest A (192.0.2.1) of tests/rxe-two.sh (tests/integration/lib/two-servers.sh): rb_doctor
# --server, kept up until guest B's cases (tests/integration/prog/doctor_two.sh) write DIR/done,
# or 600 s pass.
#   doctor-server.sh DIR BUILDDIR
dir=$1 bin=$2
"$bin/rb_doctor" -d rxe0 --server -p 18600 --timeout 10 2>"$dir/server.err" &
pid=$!
. "${0%/*}/nap.sh"
for _ in $(seq 3000); do
	[ -e "$dir/done" ] && break
	nap 0.2
done
kill -TERM "$pid"
wait "$pid"
[ -e "$dir/done" ] || { echo "doctor-server: guest B never said done" >&2; exit 1; }
