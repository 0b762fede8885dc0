# rb-testbed's modes (sourced by scripts/testbed/rb-testbed): one guest
# (with --numa2: two NUMA nodes), two guests on a UDP socket NIC, or rxe on
# the host kernel; following the guests' output until they end or the time
# is up, and the exit status each left.  Reads rb-testbed's options, cmd,
# run and start_s; sets rc.  --nics 2 (rail 1, rxe1): a second dummy netdev
# (rxedummy1, 198.51.100.1) in one guest; with two guests a second UDP
# socket NIC (eth1, 198.51.100.1 in A, .2 in B): rail1_* for lib/qemu.sh.
# shellcheck shell=bash

RAIL1_NET=198.51.100

default_shares() {
	((${#shares[@]})) && return
	local top
	top=$(git rev-parse --show-toplevel 2>/dev/null) || top=$PWD
	shares=("$(cd "$top" && pwd -P)")
}

run_vm_single() {
	local smp=${cpus:-2} extra=() nd=rxedummy0 p0 p1
	if [ "$numa2" = yes ]; then
		[ -n "$cpus" ] && [ "$cpus" != 2 ] && say "--numa2 uses 2 vCPUs, one per node"
		local half=$((mem / 2))
		smp=2 nd=eth0
		p0=$(free_udp_port) p1=$(free_udp_port)
		local bios=bios-256k.bin
		[ -e /usr/share/seabios/bios-256k.bin ] && bios=/usr/share/seabios/bios-256k.bin
		extra=(-bios "$bios"
			-object "memory-backend-ram,size=${half}M,id=m0"
			-object "memory-backend-ram,size=$((mem - half))M,id=m1"
			-numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1
			-device pxb,id=bridge1,bus_nr=10,numa_node=1,bus=pci.0
			-netdev "socket,id=n1,udp=127.0.0.1:$p1,localaddr=127.0.0.1:$p0"
			-device virtio-net-pci,netdev=n1,bus=bridge1,addr=0x1,romfile=)
	else
		extra=(-bios qboot.rom)
	fi
	rail1_nd="" rail1_ip="" rail1_peer=""
	[ "$nics" = 2 ] && rail1_nd=rxedummy1 rail1_ip=$RAIL1_NET.1
	local try
	for try in 1 2; do
		rm -rf "$run/a"
		prepare_guest "$run/a" "$nd" 192.0.2.1 "" "" "${cmd[@]}"
		qemu_args "$run/a" "$smp" "${extra[@]}"
		pids=()
		start_guest "$run/a"
		follow "$run/a" "$run/a"
		finish_guest "$run/a" ""
		# a guest that died before stage 2 ran nothing: boot once more
		[ "$rc" = 125 ] && [ ! -e "$run/a/timing" ] && [ "$try" = 1 ] || break
		say "the guest died while booting; trying once more"
	done
}

# rail1_nic OWN-PORT PEER-PORT GUEST (1 or 2): with --nics 2, rail 1's
# NIC of one guest (eth1: after eth0 on the PCI bus, so named second) and
# its rail1_*; nothing (and rail1_nd="") otherwise.
rail1_nic() {
	rail1_nd="" rail1_ip="" rail1_peer="" rail1_args=()
	[ "$nics" = 2 ] || return 0
	rail1_nd=eth1 rail1_ip=$RAIL1_NET.$3 rail1_peer=$RAIL1_NET.$((3 - $3))
	rail1_args=(-netdev "socket,id=n1,udp=127.0.0.1:$2,localaddr=127.0.0.1:$1"
		-device "virtio-net-pci,netdev=n1,romfile=,mac=52:54:00:00:03:0$3")
}

run_vm_two() {
	local smp=${cpus:-1} pa pb pa1="" pb1="" common=("${shares[@]}")
	pa=$(free_udp_port) pb=$(free_udp_port)
	[ "$nics" = 2 ] && pa1=$(free_udp_port) pb1=$(free_udp_port)
	rail1_nic "$pa1" "$pb1" 1
	prepare_guest "$run/a" eth0 192.0.2.1 192.0.2.2 "" bash -c "$server_cmd"
	qemu_args "$run/a" "$smp" -bios qboot.rom \
		-netdev "socket,id=n0,udp=127.0.0.1:$pb,localaddr=127.0.0.1:$pa" \
		-device virtio-net-pci,netdev=n0,romfile=,mac=52:54:00:00:02:01 "${rail1_args[@]}"
	start_guest "$run/a"
	# guest B also sees guest A's run folder, to wait for A's command to start
	shares=("${common[@]}" "$run/a")
	rail1_nic "$pb1" "$pa1" 2
	prepare_guest "$run/b" eth0 192.0.2.2 192.0.2.1 "$run/a/started" "${cmd[@]}"
	qemu_args "$run/b" "$smp" -bios qboot.rom \
		-netdev "socket,id=n0,udp=127.0.0.1:$pa,localaddr=127.0.0.1:$pb" \
		-device virtio-net-pci,netdev=n0,romfile=,mac=52:54:00:00:02:02 "${rail1_args[@]}"
	start_guest "$run/b"
	shares=("${common[@]}")
	# the server's output all goes to stderr; the client's to stdout/stderr
	follow "$run/b" "$run/a"
	local sa sb
	finish_guest "$run/a" "server: "; sa=$rc
	finish_guest "$run/b" "client: "; sb=$rc
	rc=$sb
	((rc == 0)) && rc=$sa
}

# follow OUTDIR ERRDIR: stream OUTDIR's out to stdout and the err files (and
# ERRDIR's out) to stderr until the guests end or the time is up.
follow() {
	local od=$1 ed=$2 p
	start_tails "$od" "$ed"
	watch_guests "$od" "$ed"
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	for p in "${tails[@]}"; do wait "$p" 2>/dev/null; done
}

# start_tails OUTDIR ERRDIR: the tail processes of follow, into tails.
start_tails() {
	local od=$1 ed=$2
	tails=()
	tail -n +1 -s 0.2 -f --pid="${pids[-1]}" "$od/out" &
	tails+=($!)
	tail -n +1 -s 0.2 -f --pid="${pids[-1]}" "$od/err" >&2 &
	tails+=($!)
	if [ "$ed" != "$od" ]; then
		tail -q -n +1 -s 0.2 -f --pid="${pids[0]}" "$ed/out" "$ed/err" 2>/dev/null |
			sed -u 's/^/[server] /' >&2 &
		tails+=($!)
	fi
	if [ "$verbose" = yes ]; then
		: >>"$od/console"
		tail -n +1 -s 0.2 -f --pid="${pids[-1]}" "$od/console" >&2 &
		tails+=($!)
	fi
}

# watch_guests OUTDIR ERRDIR: until the guests end, their timings once
# known; a pair's survivor stopped 30 s after the other ended; all stopped
# at the timeout (timed_out=yes).
watch_guests() {
	local od=$1 ed=$2 p shown_a=no shown_b=no
	timed_out=no first_end=""
	local prefix="" nap
	[ "$ed" != "$od" ] && prefix="server: "
	# the loop's pause: a read that times out on a FIFO nobody writes to,
	# not a sleep(1) started 5 times a second for the whole boot
	mkfifo "$run/nap" && exec {nap}<>"$run/nap" || nap=""
	while :; do
		local alive=no
		for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=yes; done
		[ "$shown_a" = no ] && report_timing "$ed" "$prefix" && shown_a=yes
		[ "$ed" != "$od" ] && [ "$shown_b" = no ] && report_timing "$od" "client: " && shown_b=yes
		[ "$alive" = no ] && break
		# one of a pair ended: give the other 30 s more
		if [ "$ed" != "$od" ] && [ -z "$first_end" ]; then
			kill -0 "${pids[0]}" 2>/dev/null || first_end=$SECONDS
			kill -0 "${pids[-1]}" 2>/dev/null || first_end=$SECONDS
		fi
		if [ -n "$first_end" ] && ((SECONDS - first_end > 30)); then
			say "one guest is still running 30 s after the other ended; stopping it"
			kill_guests
		fi
		if ((SECONDS - start_s >= timeout_s)); then
			say "timeout after $timeout_s s; stopping the guest(s)"
			timed_out=yes
			kill_guests
			break
		fi
		if [ -n "$nap" ]; then read -r -t 0.2 -u "$nap" _; else sleep 0.2; fi
	done
	[ -n "$nap" ] && exec {nap}<&- && rm -f "$run/nap"
}

finish_guest() { # DIR NAME: sets rc from the guest's status file
	if [ "$timed_out" = yes ]; then rc=124; return; fi
	if [ -s "$1/status" ]; then
		rc=$(cat "$1/status")
	else
		guest_post_mortem "$1" "$2"
		rc=125
	fi
}

run_host() {
	[ -r "$tb_data/rxe.sh" ] || die "testbed/rxe.sh not found; set RB_TESTBED_DATA"
	# shellcheck source=testbed/rxe.sh
	. "$tb_data/rxe.sh"
	modprobe rdma_rxe 2>/dev/null
	modprobe dummy numdummies=0 2>/dev/null
	[ -e /sys/class/infiniband/rxe0 ] && die "--host: rxe0 exists already"
	trap 'rdma link delete rxe0 2>/dev/null; ip link delete rxedummy0 2>/dev/null' EXIT
	local t0=$EPOCHREALTIME
	rxe_setup rxedummy0 192.0.2.1 "$mtu" yes || die "--host: rxe0 setup failed"
	say "host: rxe0 ready in $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }') s; $(rxe_describe rxedummy0 192.0.2.1)"
	RB_DEV=rxe0 RB_IP=192.0.2.1 RB_TESTBED=host RB_GID_INDEX=$RB_GID_INDEX \
		timeout "$timeout_s" "${cmd[@]}"
	rc=$?
}

host_can_rxe() {
	[ -e /sys/module/rdma_rxe ] && return 0
	modprobe -q rdma_rxe 2>/dev/null
}
