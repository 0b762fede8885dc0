# shellcheck shell=bash
# The two-guest fabric of prog/mesh_two.sh, the same in both guests: hosts
# a1, a2 in guest A, b1, b2 in guest B (each an agent on its own rdma_cm
# port), each with rxe0 (rail 0, on eth0) and rxe1 (rail 1, on eth1); a
# rail's NICs of one guest share a switch (r0A, r1A, r0B, r1B).
# mesh_two_pinglist A_IP0 A_IP1 B_IP0 B_IP1: the pinglist on stdout.
mesh_two_pinglist() {
	local h port ip0 ip1 g
	for h in a1:18611 a2:18612 b1:18613 b2:18614; do
		port=${h#*:} h=${h%:*}
		case $h in a*) ip0=$1 ip1=$2 g=A ;; *) ip0=$3 ip1=$4 g=B ;; esac
		echo "$h rxe0 0 $ip0:$port r0$g"
		echo "$h rxe1 1 $ip1:$port r1$g"
	done
}
# the agents' common options (tests/integration/mesh/two.py's ARGS too): 2 s
# windows, 20 probes/s to every peer; a p99 over 800 ms is bad and a probe
# unanswered for 1.8 s (under the window) lost (in CI, beside another boot, the guests' RTTs
# reached 272 ms with no fault, 465 ms under CPU load: a 100 ms threshold raised
# 24 false alarms)
MESH_TWO_ARGS=(--window 2 --timeout 1800 --rate-switch 20 --rate-cross 20 --max-p99 800000 --max-loss 0.2)
