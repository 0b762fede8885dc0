#!/bin/bash
# rb-testbed guest stage 2 (bash, chrooted into the host's / under a tmpfs
# overlay).  Makes rxe0 (and rxe1 with --nics 2), then runs the command with the caller's environment
# and working directory.  Talks to the host only through files in the run
# folder /run/rb-testbed (a 9p share of a host temp dir):
#   config   (in)  sourced: TB_NETDEV TB_IP TB_PEER TB_MTU TB_CWD TB_CMD[] TB_WAIT_FOR TB_KEEP_GOING TB_TICK_US,
#                  with --nics 2 also TB_NETDEV1 TB_IP1 TB_PEER1 (rail 1: rxe1)
#   rxe.sh   (in)  scripts/testbed/rxe.sh
#   tick.py  (in)  scripts/testbed/tick.py
#   env      (in)  the caller's environment, as export lines
#   out, err (out) the command's stdout and stderr
#   timing   (out) boot/ready uptimes, device, GID index
#   status   (out) the command's exit status (absent: it never ran)
#   started  (out) touched just before the command starts
R=/run/rb-testbed
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
. "$R/config"
. "$R/env" 2>/dev/null		# the caller's environment (less RB_* and the shell's own)
export PATH=$PATH:/usr/sbin:/sbin

# Less pyenv's shims: each is a bash script that runs some 20 processes to
# find the interpreter, which under emulation costs 10-25 s per python3
# (Debian's /usr/bin/python3: about 1 s), and the tests run python3 hundreds
# of times.  The guest's / is the host's, so python3 is then Debian's.
drop_shims() {
	local d out="" IFS=:
	for d in $PATH; do
		case $d in */shims) continue ;; esac
		out=${out:+$out:}$d
	done
	echo "$out"
}
PATH=$(drop_shims)

# libibverbs loads the provider of every /etc/libibverbs.d/*.driver (17 in
# Debian 12) in each process that lists devices: the guest has rxe only, so
# it keeps rxe's (the overlay's tmpfs takes the change; the host's files
# stay).  Under emulation that took rb_devices from 84 to 45 ms, the ASan
# build's from 209 to 141 ms, in each of the suite's benchmark processes.
keep_rxe_provider() {
	local f
	[ -e /etc/libibverbs.d/rxe.driver ] || return 0
	for f in /etc/libibverbs.d/*.driver; do
		[ "$f" = /etc/libibverbs.d/rxe.driver ] || rm -f "$f"
	done
}
keep_rxe_provider

# The benchmarks' busy polling pauses between empty polls (--poll-pause's
# default, rdmabench(7)): under TCG a PAUSE moves qemu to the next vCPU at
# once, where two polling processes would otherwise take turns at the guest
# kernel's 4 ms tick (CI's benchmark cases: send_lat 21 -> 9 s, write_lat 30 -> 13 s
# in one boot).  The caller's RB_POLL_PAUSE=0 keeps perftest's bare loop.
export RB_POLL_PAUSE=${RB_POLL_PAUSE-1}

uptime_s() { cut -d' ' -f1 /proc/uptime; }
log() { echo "rb-testbed-guest: $*" >&2; }

boot_s=$(uptime_s)

# --tick: an interrupt every TB_TICK_US of CPU time of each process this
# shell starts from now on (tick.py says why); it starts while the RDMA
# modules load, and says in /run/rb-tick whether it runs (tick_status waits
# for that before the command starts).  Nothing to hand over with one vCPU.
tick=no
[ "${TB_TICK_US:-0}" -gt 0 ] && [ "$(nproc)" -gt 1 ] && tick=yes
start_tick() {
	[ "$tick" = yes ] || return 0
	python3 "$R/tick.py" "$TB_TICK_US" /run/rb-tick $$ 2>>"$R/setup-err" &
}

# tick_status: what start_tick gave (at most 10 s for python3 to start).
tick_status() {
	[ "$tick" = yes ] || { echo "tick=off"; return; }
	for ((t = 0; t < 100; t++)); do
		[ -s /run/rb-tick ] && { cat /run/rb-tick; return; }
		sleep 0.1
	done
	echo "tick failed: no word from tick.py in 10 s"
}
start_tick

. "$R/rxe.sh"
for ((t = 0; t < 300; t++)); do	# init loads the RDMA modules in the background
	[ -e /dev/.rb-modules-loaded ] && break
	sleep 0.1
done
ip link set lo up
dummy=no; [ "$TB_NETDEV" = rxedummy0 ] && dummy=yes
# rail 1 (--nics 2): rxe1 on TB_NETDEV1 (eth1, or the dummy rxedummy1)
rail1_setup() {
	[ -n "${TB_NETDEV1:-}" ] || return 0
	local d=no
	[ "$TB_NETDEV1" = rxedummy1 ] && d=yes
	rxe_setup "$TB_NETDEV1" "$TB_IP1" "$TB_MTU" $d rxe1 || return 1
	rail1="; $(rxe_describe "$TB_NETDEV1" "$TB_IP1" rxe1)"
	export RB_DEV1=rxe1 RB_GID_INDEX1 RB_IP1=$TB_IP1 RB_NETDEV1=$TB_NETDEV1
	[ -z "${TB_PEER1:-}" ] || export RB_PEER1=$TB_PEER1
}
ready=no rail1=""
if rxe_setup "$TB_NETDEV" "$TB_IP" "$TB_MTU" $dummy 2>>"$R/setup-err" && rail1_setup 2>>"$R/setup-err"; then
	ready=yes ready_s=$(uptime_s)
	printf 'boot_s=%s\nready_s=%s\n%s%s %s\n' "$boot_s" "$ready_s" \
		"$(rxe_describe "$TB_NETDEV" "$TB_IP")" "$rail1" "$(tick_status) RB_POLL_PAUSE=$RB_POLL_PAUSE" >"$R/timing.tmp"
	export RB_DEV=rxe0 RB_GID_INDEX RB_IP=$TB_IP RB_NETDEV=$TB_NETDEV
else
	printf 'boot_s=%s\nsetup failed: %s\n' "$boot_s" "$(cat "$R/setup-err")" >"$R/timing.tmp"
fi
mv "$R/timing.tmp" "$R/timing"	# whole at once: bash writes line by line
[ "$ready" = yes ] || [ "$TB_KEEP_GOING" = yes ] || exit 1

export RB_TESTBED=vm
# --cached folders (init bound them read-only), for the command to check
RB_TESTBED_CACHED=$(sed -n 's/^cached //p' "$R/shares" | tr '\n' ' ')
export RB_TESTBED_CACHED=${RB_TESTBED_CACHED% }
# The kernel's default host name "(none)" is refused by Open MPI (rb_mpi):
# rbguest1, or rbguest2 for the second of --two-guests.
if [ "$(hostname 2>/dev/null)" = "(none)" ]; then
	hostname "rbguest${TB_IP##*.}" 2>/dev/null || log "could not set the host name"
fi
[ -n "$TB_PEER" ] && export RB_PEER=$TB_PEER
export HOME=${HOME:-/root}

# Client of a two-guest pair: wait (bounded) for the server's command to start.
if [ -n "$TB_WAIT_FOR" ]; then
	for t in $(seq 600); do [ -e "$TB_WAIT_FOR" ] && break; sleep 0.1; done
	[ -e "$TB_WAIT_FOR" ] || log "server not started after 60 s; going on"
	sleep "${TB_WAIT_EXTRA:-1}"
fi

cd "$TB_CWD" 2>/dev/null || { log "cannot cd to $TB_CWD, using /"; cd /; }
touch "$R/started"
"${TB_CMD[@]}" >"$R/out" 2>"$R/err" </dev/null
echo $? >"$R/status"
sync
