# shellcheck shell=bash
# tests/integration/lib/jobs.sh, sourced by tests/integration/lib.sh (read
# its top first): a job under a deadline (rb_job), rb_mpi ranks signalled
# mid-run, a Slurm cluster started.

rb_job() {
	local t0=$SECONDS rc
	rb_case "$1"
	timeout -k 5 "$RB_PAIR_TIMEOUT" bash -c "$2" \
		>"$RB_CASE_DIR/job.out" 2>"$RB_CASE_DIR/job.err" </dev/null
	rc=$?
	echo "$rc" >"$RB_CASE_DIR/job.rc"
	RB_JOB_TOOK=$((SECONDS - t0))
	[ "$rc" = 0 ] && return 0
	tap_diag "$1: exited $rc after $RB_JOB_TOOK s"
	grep -v '^ *$' "$RB_CASE_DIR/job.err" | head -n 30 | sed 's/^/#   /'
	return 1
}

# rb_hw_counter NAME: a port counter of $RB_DEV (hw_counters/NAME, or
# counters/NAME), empty when the device lacks it.
rb_hw_counter() {
	local p=/sys/class/infiniband/$RB_DEV/ports/1 f
	for f in "$p/hw_counters/$1" "$p/counters/$1"; do
		[ -r "$f" ] && { read -r f <"$f" && echo "$f"; return; }
	done
}

rb_mpi_signal() {
	local pid t0 c0
	rb_case "$1"
	timeout -k 5 120 bash -c "$4" >"$RB_CASE_DIR/job.out" 2>"$RB_CASE_DIR/job.err" </dev/null &
	pid=$!
	RB_VICTIM="" c0=$(rb_hw_counter sent_pkts)
	for _ in $(seq 100); do
		rb_nap 0.2
		RB_VICTIM=$(pgrep -x rb_mpi | sed -n 3p)
		[ -n "$RB_VICTIM" ] && break
	done
	# mid-run: once the links move data (the device's sent_pkts, where it
	# has one: a loaded guest took over 4 s to get from the ranks' start
	# through MPI_Init, and a rank signalled there ends or hangs the job
	# before rb_mpi's own deadlines apply), at most 60 s
	for _ in $(seq 300); do
		[ -n "$c0" ] && [ -n "$RB_VICTIM" ] || break
		(($(rb_hw_counter sent_pkts) > c0 + 1000)) && break
		rb_nap 0.2
	done
	sleep "$3"
	t0=$SECONDS
	if [ -n "$RB_VICTIM" ] && ! kill -"$2" "$RB_VICTIM" 2>/dev/null; then
		tap_diag "$1: rank $RB_VICTIM had ended before SIG$2: the job was over, too short to be signalled mid-run"
	fi
	wait "$pid"
	RB_JOB_RC=$?
	RB_JOB_TOOK=$((SECONDS - t0))
	if [ -n "$RB_VICTIM" ] && kill -KILL "$RB_VICTIM" 2>/dev/null; then
		tap_diag "$1: the signalled rank (pid $RB_VICTIM) outlived the job"
	fi
	return 0
}

# A rank that hangs rather than dies: the launcher sees nothing wrong; the
# ranks waiting on it notice within --timeout (in a link) or --step-timeout
# (between steps), say so and end the job (MPI_Abort).  5 s or 8 s plus the
# abort: 40 s is far beyond, and the `timeout 120` around it cannot have fired.
# The stop comes 3 s after the links move data, so CMD must still be running
# then on a fast guest or device too: -D 4 for 6 rounds (with 4 vCPUs, a -D 1
# job had ended before the signal).
rb_mpi_stopped_case() {
	local err st=1
	rb_mpi_signal "$1" STOP 3 "$2 --timeout 5 --step-timeout 8"
	err=$RB_CASE_DIR/job.err
	tap_diag "rank stopped: pid ${RB_VICTIM:-none}, the job exited $RB_JOB_RC after $RB_JOB_TOOK s; $(grep -m1 -E 'within|stalled|timed out' "$err")"
	[ -n "$RB_VICTIM" ] && [ "$RB_JOB_RC" != 0 ] && [ "$RB_JOB_RC" != 124 ] && [ "$RB_JOB_TOOK" -le 40 ] &&
		grep -Eq 'stalled|step-timeout|--timeout|timed out' "$err" && grep -q 'ending the MPI job' "$err" &&
		st=0
	[ "$st" = 0 ] || tail -n 15 "$err" | sed 's/^/#   /'
	tap_ok "$st" "$3: a rank stopped (SIGSTOP) mid-run ends the job with an error within the timeouts (5 s link, 8 s step)"
}

rb_slurm_up() {
	local t0=$SECONDS up
	rb_case "slurm up"
	if ! up=$("$top_srcdir/scripts/testbed/slurm-up" "$@" 2>"$RB_CASE_DIR/err"); then
		sed 's/^/# /' "$RB_CASE_DIR/err"
		return 1
	fi
	eval "$up"
	tap_diag "slurm up in $((SECONDS - t0)) s: $(cat "$RB_CASE_DIR/err"); $(sinfo -h -o '%N %t' | paste -sd' '); srun --mpi=list: $(srun --mpi=list 2>&1 | sed -n 's/^[[:space:]]*//p' | sed 1d | paste -sd' ')"
}
