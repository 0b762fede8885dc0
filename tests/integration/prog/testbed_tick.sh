# needs: 8-cpus tick
# The test bed's tick (rb-testbed --tick, under --tcg single; tests/rxe-cpus.sh
# asks for it): an interrupt every PERIOD us of a running process, so that
# qemu's one TCG thread hands the host core to the next vCPU that often.  A
# shell spinning on CPU 1 for 1 s must take at least a quarter of 1e6/PERIOD
# local timer interrupts there (the kernel's own tick: 250 a second).
# Sourced by run-all.sh (see lib.sh).

# The cases below, skips included (tap_plan: lib.sh).
tap_plan 1

# loc_count CPU: that CPU's local timer interrupts so far (/proc/interrupts).
loc_count() { awk -v c="$1" '$1 == "LOC:" { print $(c + 2) }' /proc/interrupts; }

tick=$(cat /run/rb-tick 2>/dev/null)
if [[ $tick =~ ^tick=([0-9]+)\ us ]]; then
	period=${BASH_REMATCH[1]}
	a=$(loc_count 1)
	taskset -c 1 timeout 1 bash -c 'while :; do :; done'
	b=$(loc_count 1)
	want=$((1000000 / period / 4))
	tap_diag "CPU 1's local timer interrupts while a shell spun there for 1 s: $((b - a)) (at least $want)"
	[ $((b - a)) -ge "$want" ]
	tap_ok $? "the test bed's tick ($tick): a spinning process takes an interrupt every $period us"
else
	# a SKIP under CI=true too: --tick applies only under --tcg single
	# (RB_TESTBED_TCG; the default, multi, and KVM have no such tick)
	tap_skip_machine "the test bed's tick: a spinning process takes its interrupts" "no tick here (${tick:-/run/rb-tick absent}: not the test bed under --tcg single and --tick)"
fi
