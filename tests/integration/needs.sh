# shellcheck shell=bash
# tests/integration/needs.sh: which boot runs which case file, from the
# case file's own declaration.  Sourced by run-all.sh and tests/needs.sh.
#
# A case file is every tests/integration/*/*.sh but lib/ (helpers): bench/
# (one per benchmark), feature/ (one per feature), robust/ (peer loss, rogue
# peers, valgrind), prog/ (the programs: perftest, the doctor, rb_mpi,
# Slurm, rb-wire, the regression check, the test bed itself).  The folder
# says the subject only; where a file runs is its header line, among its
# first 10 lines:
#
#   # needs: WORD...
#
# The words (needs_words below; any other word is an error):
#   the guest, exactly one of
#     one-guest    one guest, 2 vCPUs, an rxe device (or an RDMA host)
#     two-guests   two guests, each with rxe0, guest A running
#                  lib/two-servers.sh (tests/rxe-two.sh)
#     two-nodes    one guest with two NUMA nodes, the NIC on node 1
#     4-cpus       one guest with 4 vCPUs
#     8-cpus       one guest with 8 vCPUs
#   what the guest must give it, any of
#     quiet        the guest and its device to itself: no second lane
#                  beside it (it reads device-wide counters, compares
#                  speeds, sets the port down, or times itself closely)
#     lane         keeps to its own port (RB_LANE_PORT) and leaves the
#                  device alone: may run in a second lane beside the others
#     first        runs before any other file of its boot (a smoke test of
#                  the test bed)
#     last         leaves the guest changed (an MTU lowered, a port
#                  dropped): runs after every other file of its boot
#     mpi          Open MPI's mpirun and rb_mpi (configure --with-mpi)
#     slurm        starts Slurm's daemons in the guest
#     valgrind     valgrind memcheck
#     delay-build  build-delay/'s programs (--enable-test-delay
#                  --enable-test-faults; RB_DELAY_BIN)
#     tcpdump      captures the traffic between the guests
#     two-nics     a second RDMA NIC per guest, rail 1 (rb-testbed --nics 2):
#                  rxe1 on eth1, a subnet of its own (198.51.100.0/24),
#                  RB_DEV1 RB_IP1 RB_GID_INDEX1 RB_PEER1 (tests/rxe-two.sh)
#     tick         the test bed's tick (rb-testbed --tick)
#     new-kernel   the newer guest kernel (rb-testbed --kernel 7.3, from
#                  trixie-backports: rxe with on-demand paging, udmabuf),
#                  netdev MTU 9000 (tests/rxe-kernel.sh)
#     idle-hour    a boot that lasts an hour and more: the nightly run's
#                  (tests/rxe-idle.sh, NIGHTLY_TESTS: .ci/run --full)
#
# The boots (needs_boots, in this order) each offer a set of words; a file
# runs in the FIRST boot that offers every word it declares, and in no
# other.  A file with no needs line, an unknown word, not exactly one guest
# word, or one no boot offers belongs to no boot: needs_check says why,
# run-all.sh reports it as a failed case in the first boot (rxe), and the
# host test tests/needs.sh fails.
needs_words="one-guest two-guests two-nodes 4-cpus 8-cpus quiet lane first last mpi slurm valgrind delay-build tcpdump two-nics tick new-kernel idle-hour"
needs_guests="one-guest two-guests two-nodes 4-cpus 8-cpus"
# BOOT:WORDS; BOOT is tests/BOOT.sh
needs_boots=(
	"rxe:one-guest lane valgrind delay-build"
	"rxe-quiet:one-guest quiet first valgrind delay-build"
	"rxe-mpi:one-guest quiet mpi slurm"
	"rxe-two:two-guests two-nics mpi slurm tcpdump last"
	"rxe-numa:two-nodes"
	"rxe-cpus:8-cpus tick"
	"rxe-threads:4-cpus"
	"rxe-kernel:one-guest new-kernel"
	"rxe-idle:one-guest quiet idle-hour"
)

# needs_of FILE: FILE's declared words in NEEDS ("" when it declares none).
needs_of() {
	local line k=0 n
	NEEDS=""
	while IFS= read -r line && ((k++ < 10)); do
		if [[ $line =~ ^#\ needs:(.*)$ ]]; then
			read -ra n <<<"${BASH_REMATCH[1]}"
			NEEDS="${n[*]}"
			return 0
		fi
	done <"$1"
	return 0
}

# needs_has WORDS WORD: WORD is one of WORDS.
needs_has() {
	[[ " $1 " == *" $2 "* ]]
}

# needs_check FILE: FILE's boot in BOOT and its words in NEEDS; when it has
# none, BOOT="" and WHY says why (returns 1).
needs_check() {
	local w g=0 b
	BOOT="" WHY=""
	needs_of "$1"
	if [ -z "$NEEDS" ]; then
		WHY="no '# needs: WORD...' line among its first 10 lines"
		return 1
	fi
	for w in $NEEDS; do
		needs_has "$needs_words" "$w" || { WHY="unknown need '$w' (tests/integration/needs.sh)"; return 1; }
		needs_has "$needs_guests" "$w" && g=$((g + 1))
	done
	if [ "$g" != 1 ]; then
		WHY="$g guest words in '$NEEDS', exactly one needed ($needs_guests)"
		return 1
	fi
	for b in "${needs_boots[@]}"; do
		for w in $NEEDS; do
			needs_has "${b#*:}" "$w" || continue 2
		done
		BOOT=${b%%:*}
		return 0
	done
	WHY="no boot offers all of '$NEEDS' (tests/integration/needs.sh: needs_boots)"
	return 1
}

# needs_files DIR: every case file under DIR (tests/integration), sorted,
# as paths relative to DIR, in FILES.
needs_files() {
	local f
	FILES=()
	for f in "$1"/*/*.sh; do
		[ -f "$f" ] || continue
		f=${f#"$1"/}
		[[ $f == lib/* ]] && continue
		FILES+=("$f")
	done
}
