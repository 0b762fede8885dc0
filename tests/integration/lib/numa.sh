# shellcheck shell=bash
# tests/integration/lib/numa.sh: helpers of the NUMA case files (tests/integration/feature/numa_*.sh),
# on top of tests/integration/lib.sh.  Meant for the two-node test bed
# (scripts/testbed/rb-testbed --numa2): CPU 0 on node 0, CPU 1 on node 1, the rxe
# NIC on node 1.
#
#   numa_progs                the benchmarks these cases cover: two in the
#                             fast run, four in the full one (below)
#   numa_ready                true when this machine looks like that test bed
#                             (2 nodes, the device on node 1); else says why
#   numa_run NAME PROG 'ARGS' ['CLIENT_ARGS' ['SERVER_ARGS']] ['WRAP']
#                             rb_csv of PROG, each side run as
#                             `WRAP PROG ...` (e.g. WRAP='taskset -c 0'), and,
#                             while both run, a snapshot of each side's
#                             /proc/PID/numa_maps and /proc/PID/status as
#                             $RB_CASE_DIR/SIDE.numa_maps and SIDE.status.
#                             Use with -D so that they run long enough.
#   only_on_node NODE FILE    the buffers' mapping in FILE (found by the
#                             address --verbose prints) has all its pages on
#                             NODE (else says what it saw)
#   cpus_allowed SIDE         Cpus_allowed_list of SIDE's snapshot
#   meta_is SIDE KEY VALUE    KEY=VALUE is in SIDE.csv's metadata (its
#                             sidecar; else says what is)

# Placement is the harness's, one path for every benchmark: the fast run
# takes, in each file, the one its file names (numa_progs FAST): a latency
# test whose two sides both loop (rb_send_lat) in numa_cpu, numa_none and
# numa_taskset, a bandwidth test with a passive server (rb_write_bw) in
# numa_default and numa_node; the full run all four in each (they took 147
# s of the boot's 175 in CI run 11 of session 25; both in each file, 77 s
# of 116 in ci16).
numa_progs() {
	if rb_full; then echo rb_send_bw rb_send_lat rb_write_bw rb_read_lat; else echo "$1"; fi
}

numa_ready() {
	local n dn
	n=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
	dn=$(cat "/sys/class/infiniband/$RB_DEV/device/numa_node" 2>/dev/null ||
		cat /sys/class/net/eth0/device/numa_node 2>/dev/null)
	if [ "$n" != 2 ]; then
		echo "$n NUMA nodes here, 2 needed (scripts/testbed/rb-testbed --numa2)"
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

# The buffers' address, from the side's --verbose line
# "buffers: N bytes at ADDR on node K" (numa_maps lines start with it).
buf_addr() { # SIDE
	sed -n 's/.*buffers: [0-9]* bytes at \([0-9a-f]*\) .*/\1/p' "$RB_CASE_DIR/$1.err" 2>/dev/null | head -n 1
}

# Once SIDE has said where its buffers are (they exist by then and stay
# until the run ends), take one snapshot of its /proc/PID/numa_maps and
# status; SIDE.poll says why when there is none.
numa_poll() { # SIDE
	local pid t f=$RB_CASE_DIR/$1
	# builtins alone in the loop and the copies (no grep, no cat): each
	# process costs tenths of a second under emulation, and the snapshot
	# must land while SIDE runs (CI run 15 of session 26: none within
	# -D 3's run); ahead of the two sides' busy polling on the guest's 2 vCPUs
	renice -n -10 -p "$BASHPID" >/dev/null 2>&1
	for ((t = 0; t < 300; t++)); do
		[ -s "$f.pid2" ] && numa_said_buffers "$f.err" && break
		rb_nap 0.1
	done
	read -r pid <"$f.pid2" 2>/dev/null || { echo "no $1.pid2 in 30 s" >"$f.poll"; return 0; }
	numa_copy "/proc/$pid/numa_maps" "$f.numa_maps"
	numa_copy "/proc/$pid/status" "$f.status" ||
		echo "/proc/$pid/status unreadable ($1 gone?) after $t polls" >"$f.poll"
}

# numa_said_buffers FILE: FILE has the --verbose "buffers: N bytes at" line
numa_said_buffers() {
	local l
	while IFS= read -r l; do
		[[ "$l" == *"buffers: "*" bytes at "* ]] && return 0
	done <"$1" 2>/dev/null
	return 1
}

# numa_copy FROM TO: FROM's lines into TO; 1 when FROM could not be read
numa_copy() {
	local l n=0
	{ while IFS= read -r l; do printf '%s\n' "$l"; n=$((n + 1)); done <"$1"; } >"$2" 2>/dev/null
	((n > 0))
}

numa_run() {
	local name=$1 prog=$2 args=$3 cargs=${4:-} sargs=${5:-} wrap=${6:-} p1 p2
	rb_case "$name"
	rb_start server "$(numa_side server "$wrap" "$prog" "$args $sargs --verbose --csv=\$RB_CASE_DIR/server.csv")"
	numa_poll server & p1=$!
	wait_listen "$RB_PAIR_PORT" || echo "numa_run: nothing listens on $RB_PAIR_PORT" >>"$RB_CASE_DIR/client.err"
	rb_start client "$(numa_side client "$wrap" "$prog" "$args $cargs --verbose --csv=\$RB_CASE_DIR/client.csv \"\$RB_IP\"")"
	numa_poll client & p2=$!
	rb_wait server client
	local st=$?
	wait "$p1" "$p2"
	return "$st"
}

# The buffers' line of a numa_maps snapshot: "ADDR bind:1 anon=34 ... N1=34 ...".
# From inside: the --verbose line "buffers: N bytes at ADDR on node K",
# K from get_mempolicy(MPOL_F_NODE|MPOL_F_ADDR) on the buffers.
verbose_node_is() { # SIDE NODE
	grep -Eq "buffers: [0-9]+ bytes at [0-9a-f]+ on node $2\$" "$RB_CASE_DIR/$1.err" && return 0
	tap_diag "$1: --verbose says '$(grep -o 'buffers: .*' "$RB_CASE_DIR/$1.err")', expected node $2"
	return 1
}

only_on_node() { # NODE FILE
	local side addr line
	side=$(basename "$2" .numa_maps)
	addr=$(buf_addr "$side")
	line=$(grep "^${addr:-none} " "$2" 2>/dev/null)
	if [ -n "$addr" ] && [[ " $line " =~ \ N$1=[0-9]+\  ]] &&
		! grep -oE ' N[0-9]+=' <<<"$line" | grep -qv " N$1="; then
		return 0
	fi
	tap_diag "$(basename "$2"): the buffers' mapping (${addr:-no address in --verbose}): '${line:-not found}', expected all pages on node $1"
	return 1
}

cpus_allowed() {
	sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$RB_CASE_DIR/$1.status" 2>/dev/null
}

cpus_is() { # SIDE LIST
	local c
	c=$(cpus_allowed "$1")
	[ "$c" = "$2" ] && return 0
	tap_diag "$1: /proc/PID/status Cpus_allowed_list is '${c:-?}', expected '$2'$([ -s "$RB_CASE_DIR/$1.poll" ] && printf ' (%s)' "$(<"$RB_CASE_DIR/$1.poll")")"
	return 1
}

meta_is() { # SIDE KEY VALUE: the sidecar's metadata
	rb_meta_lines "$RB_CASE_DIR/$1.csv" | grep -qxF "# $2=$3" && return 0
	tap_diag "$1.csv: expected '# $2=$3', has '$(rb_meta_lines "$RB_CASE_DIR/$1.csv" | grep "^# $2=")'"
	return 1
}

meta_has() { # SIDE KEY ERE
	rb_meta_lines "$RB_CASE_DIR/$1.csv" | grep "^# $2=" | grep -Eq -- "$3" && return 0
	tap_diag "$1.csv: '# $2=' does not match /$3/: '$(rb_meta_lines "$RB_CASE_DIR/$1.csv" | grep "^# $2=")'"
	return 1
}
