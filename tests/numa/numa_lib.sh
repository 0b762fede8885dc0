# shellcheck shell=bash
# tests/numa/numa_lib.sh: helpers of the NUMA case files (tests/numa/t_*.sh),
# on top of tests/integration/lib.sh.  Meant for the two-node test bed
# (scripts/rb-testbed --numa2): CPU 0 on node 0, CPU 1 on node 1, the rxe
# NIC on node 1.
#
#   numa_progs                the four benchmarks these cases cover
#   numa_ready                true when this machine looks like that test bed
#                             (2 nodes, the device on node 1); else says why
#   numa_run NAME PROG 'ARGS' ['CLIENT_ARGS' ['SERVER_ARGS']] ['WRAP']
#                             rb_csv of PROG, each side run as
#                             `WRAP PROG ...` (e.g. WRAP='taskset -c 0'), and,
#                             while both run, a snapshot of each side's
#                             /proc/PID/numa_maps and /proc/PID/status as
#                             $RB_CASE_DIR/SIDE.numa_maps and SIDE.status.
#                             Use with -D so that they run long enough.
#   big_anon_nodes FILE       the node counts of the buffers' mapping in a
#                             numa_maps snapshot (the biggest anonymous one
#                             with a bind: policy, else the biggest), "N1=16 ..."
#   only_on_node NODE FILE    the biggest anonymous mapping of FILE has all
#                             its pages on NODE (else says what it saw)
#   cpus_allowed SIDE         Cpus_allowed_list of SIDE's snapshot
#   meta_is SIDE KEY VALUE    "# KEY=VALUE" is in SIDE.csv (else says what is)

numa_progs() { echo rb_send_bw rb_send_lat rb_write_bw rb_read_lat; }

numa_ready() {
	local n dn
	n=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
	dn=$(cat "/sys/class/infiniband/$RB_DEV/device/numa_node" 2>/dev/null ||
		cat /sys/class/net/eth0/device/numa_node 2>/dev/null)
	if [ "$n" != 2 ]; then
		echo "$n NUMA nodes here, 2 needed (scripts/rb-testbed --numa2)"
		return 1
	fi
	if [ "$(cat /sys/devices/system/node/node1/cpulist 2>/dev/null)" != 1 ]; then
		echo "node 1 is not CPU 1 alone"
		return 1
	fi
	return 0
}

# A side's command: its shell writes its PID (kept by exec) to SIDE.pid2.
numa_side() { # SIDE WRAP PROG ARGS
	echo "echo \$\$ >\"\$RB_CASE_DIR/$1.pid2\"; exec $2 $(rb_cmd "$3") $4"
}

# Poll SIDE's /proc/PID/numa_maps while it runs (every 0.2 s); keep, with
# its status, the snapshot whose biggest bound (mbind) anonymous mapping is
# the biggest seen, else the last one: the buffers are in place by then (at
# the end they are unmapped).
numa_poll() { # SIDE
	local pid t best=0 n f=$RB_CASE_DIR/$1
	for ((t = 0; t < 100; t++)); do
		[ -s "$f.pid2" ] && break
		sleep 0.1
	done
	pid=$(cat "$f.pid2" 2>/dev/null) || return 0
	: >"$f.numa_maps"
	while [ -d "/proc/$pid" ]; do
		cat "/proc/$pid/numa_maps" >"$f.numa_maps.new" 2>/dev/null
		cat "/proc/$pid/status" >"$f.status.new" 2>/dev/null
		n=$(awk '$2 ~ /^bind:/ { for (i = 1; i <= NF; i++) if ($i ~ /^anon=/ && substr($i, 6) + 0 > m) m = substr($i, 6) + 0 }
			END { print m + 0 }' "$f.numa_maps.new")
		if [ "$n" -gt "$best" ] || { [ "$best" = 0 ] && [ -s "$f.numa_maps.new" ]; }; then
			best=$n
			mv "$f.numa_maps.new" "$f.numa_maps"
			mv "$f.status.new" "$f.status"
		fi
		sleep 0.2
	done
}

numa_run() {
	local name=$1 prog=$2 args=$3 cargs=${4:-} sargs=${5:-} wrap=${6:-} p1 p2
	rb_case "$name"
	rb_start server "$(numa_side server "$wrap" "$prog" "$args $sargs --csv=\$RB_CASE_DIR/server.csv")"
	numa_poll server & p1=$!
	wait_listen "$RB_PAIR_PORT" || echo "numa_run: nothing listens on $RB_PAIR_PORT" >>"$RB_CASE_DIR/client.err"
	rb_start client "$(numa_side client "$wrap" "$prog" "$args $cargs --csv=\$RB_CASE_DIR/client.csv \"\$RB_IP\"")"
	numa_poll client & p2=$!
	rb_wait server client
	local st=$?
	wait "$p1" "$p2"
	return "$st"
}

# The buffers: the biggest anonymous mapping with a bind: policy (the
# tool's mbind), else the biggest anonymous mapping.
big_anon_nodes() {
	awk '/anon=/ { n = 0; for (i = 1; i <= NF; i++) if ($i ~ /^anon=/) n = substr($i, 6) + 0
		b = $2 ~ /^bind:/
		if (b > bb || (b == bb && n > best)) { bb = b; best = n; line = ""
			for (i = 1; i <= NF; i++) if ($i ~ /^N[0-9]+=/) line = line " " $i
			pol = $2 } }
		END { sub(/^ /, "", line); print line " (" best " pages, policy " pol ")" }' "$1"
}

only_on_node() {
	local nodes
	nodes=$(big_anon_nodes "$2")
	if [[ $nodes =~ ^N$1=[0-9]+\ \( ]]; then
		return 0
	fi
	tap_diag "$(basename "$2"): biggest anonymous mapping: ${nodes:-none}, expected all on node $1"
	return 1
}

cpus_allowed() {
	sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$RB_CASE_DIR/$1.status" 2>/dev/null
}

cpus_is() { # SIDE LIST
	local c
	c=$(cpus_allowed "$1")
	[ "$c" = "$2" ] && return 0
	tap_diag "$1: /proc/PID/status Cpus_allowed_list is '${c:-?}', expected '$2'"
	return 1
}

meta_is() {
	grep -qxF "# $2=$3" "$RB_CASE_DIR/$1.csv" 2>/dev/null && return 0
	tap_diag "$1.csv: expected '# $2=$3', has '$(grep "^# $2=" "$RB_CASE_DIR/$1.csv" 2>/dev/null)'"
	return 1
}

meta_has() { # SIDE KEY ERE
	grep "^# $2=" "$RB_CASE_DIR/$1.csv" 2>/dev/null | grep -Eq -- "$3" && return 0
	tap_diag "$1.csv: '# $2=' does not match /$3/: '$(grep "^# $2=" "$RB_CASE_DIR/$1.csv" 2>/dev/null)'"
	return 1
}
