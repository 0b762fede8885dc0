#!/bin/bash
# Guest A (192.0.2.1) of tests/rxe-two.sh (tests/integration/lib/two-servers.sh): rb_doctor
# --server, kept up until guest B's cases (tests/integration/prog/doctor_two.sh) write DIR/done,
# or 600 s pass.
#   doctor-server.sh DIR BUILDDIR
dir=$1 bin=$2
"$bin/rb_doctor" -d rxe0 --server -p 18600 --timeout 10 2>"$dir/server.err" &
pid=$!
# a wait with no process (a sleep process five times a second, in each of
# guest A's servers for the whole boot, cost a 1-vCPU guest ~20 % of its
# time: 2026-12-06)
nap=$(mktemp -u /tmp/nap.XXXXXX) && mkfifo "$nap" && exec {nap_fd}<>"$nap" && rm -f "$nap"
nap() { read -r -t "$1" -u "$nap_fd" _ || :; }
for _ in $(seq 3000); do
	[ -e "$dir/done" ] && break
	nap 0.2
done
kill -TERM "$pid"
wait "$pid"
[ -e "$dir/done" ] || { echo "doctor-server: guest B never said done" >&2; exit 1; }
