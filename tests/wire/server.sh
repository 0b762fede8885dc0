#!/bin/bash
# Guest A (192.0.2.1) of tests/rxe-two.sh (tests/two/servers.sh): one server
# per run of tests/wire/cases.sh, each on its own port, all waiting at once;
# guest B runs the clients one after the other.  Exits 1 when a server failed.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cases.sh"
: "${RB_BIN:=${top_builddir:?}}"
st=0 pids=()
wire_cases >/tmp/wire-cases
while read -r name port prog args; do
	timeout -k 5 1000 "$RB_BIN/$prog" -d "$RB_DEV" -x "$RB_GID_INDEX" -p "$port" $args \
		>/dev/null 2>/tmp/wire-$name.err </dev/null &
	pids+=($!)
done </tmp/wire-cases
for p in "${pids[@]}"; do wait "$p" || st=1; done
. "$here/../integration/lib/nap.sh"
if [ -n "${RB_WIRE_SHARED:-}" ]; then
	for _ in $(seq 2000); do
		[ -e "$RB_WIRE_SHARED/done" ] && break
		nap 0.2
	done
fi
for f in /tmp/wire-*.err; do sed "s|^|server ${f#/tmp/wire-}: |" "$f" >&2; done
exit "$st"
