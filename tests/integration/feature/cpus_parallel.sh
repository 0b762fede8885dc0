# needs: 8-cpus
# Parallel instances do not stack on one CPU (the CPU claims of
# src/lib/cpuclaim.c, under /run/rdmabench): four rb_write_bw pairs started
# together on four ports, in one guest of --cpus 8 (tests/rxe-cpus.sh): each
# measuring thread on a CPU of its own, read from each side's CSV metadata
# (cpu, placement), once /proc/locks showed the eight holding their claims
# at the same time.  With fewer than 8 CPUs (RB_TESTBED_CPUS=4) eight
# threads must share: then none carries more than its even share, and the
# sharing is said.
# Then: claims end with their process (a later client gets CPU 1's slot 0
# back); --cpu N already claimed: honoured, with a warning; all CPUs claimed
# by others: a pair still runs, apart, says "shared" on stderr and in the
# metadata.
# the lock folder the programs pick (src/lib/cpuclaim.c), as root or not
if [ "$(id -u)" = 0 ]; then
	RB_LOCKS=/run/rdmabench
elif [ -n "${XDG_RUNTIME_DIR:-}" ]; then
	RB_LOCKS=$XDG_RUNTIME_DIR/rdmabench
else
	RB_LOCKS=/tmp/rdmabench-$(id -u)
fi
NCPU=$(nproc)

# ERE FILE...: how many of the CSV files' metadata (sidecars) match ERE
meta_count() {
	local f re=$1 n=0
	shift
	for f; do rb_meta_lines "$f" | grep -Eq -- "$re" && n=$((n + 1)); done
	echo "$n"
}

cpu_of() { # FILE: the "# cpu=" metadata value
	rb_meta_lines "$1" | sed -n 's/^# cpu=//p'
}

# PAIRS PORT0 ARGS: PAIRS pairs, servers first (each listening), then the
# clients; files sN.csv/cN.csv; true when all exited 0.
pairs_run() {
	local n=$1 p0=$2 args=$3 i sides=()
	for ((i = 0; i < n; i++)); do
		rb_start s$i "$(rb_cmd rb_write_bw) -p $((p0 + i)) $args --csv=\$RB_CASE_DIR/s$i.csv"
		wait_listen $((p0 + i)) || echo "nothing listens on $((p0 + i))" >>"$RB_CASE_DIR/s$i.err"
		sides+=("s$i" "c$i")
	done
	for ((i = 0; i < n; i++)); do
		rb_start c$i "$(rb_cmd rb_write_bw) -p $((p0 + i)) $args --csv=\$RB_CASE_DIR/c$i.csv \"\$RB_IP\""
	done
	rb_wait "${sides[@]}" && return 0
	for i in "${sides[@]}"; do
		tap_diag "$i: exit $(cat "$RB_CASE_DIR/$i.rc"): $(tail -n 3 "$RB_CASE_DIR/$i.err")"
	done
	return 1
}

# locks_watch FILE: until FILE.stop exists, the largest set of flock(2)
# locks seen held at once (/proc/locks "FLOCK" lines: the claims, nothing
# else takes one in the guest) into FILE.  One read of /proc/locks a round,
# by the shell (a grep process a round until 2026-12-06): a loaded emulator
# must still see short overlaps.
locks_watch() {
	local now line best=0 n
	while [ ! -e "$1.stop" ]; do
		now="" n=0
		while IFS= read -r line; do
			[[ $line == *" FLOCK "* ]] && now+=${now:+$'\n'}$line && n=$((n + 1))
		done </proc/locks
		[ "$n" -gt "$best" ] && best=$n && echo "$now" >"$1"
		rb_nap 0.1
	done
}

# The "# cpu=" values of FILES, one line; says when one is not a number.
cpus_of() {
	local f v out=""
	for f in "$@"; do
		v=$(cpu_of "$RB_CASE_DIR/$f.csv")
		[[ $v =~ ^[0-9]+$ ]] || tap_diag "$f.csv: cpu='$v', expected one CPU"
		out+="${v:-?} "
	done
	echo "$out"
}

distinct() { # WHAT VALUES...
	local what=$1
	shift
	[ "$(printf '%s\n' "$@" | sort -u | wc -l)" = $# ] && return 0
	tap_diag "$what: CPUs $*: not distinct"
	return 1
}

# The cases below (tap_plan: lib.sh): the four pairs ran, their CPUs (two
# checks with fewer than 8 CPUs, three with 8 or more: check_four), then
# three; one skip with fewer than 4 CPUs.
p10_four=3
[ "$NCPU" -lt 8 ] && p10_four=2
tap_plan "NCPU < 4 ? 1 : 1 + p10_four + 3"

if [ "$NCPU" -lt 4 ]; then
	tap_skip "four parallel pairs" "$NCPU CPUs here, 4 or more needed (rb-testbed --cpus 8)"
	return 0
fi

# The four pairs' CPUs (S: servers', C: clients'), all eight having run at
# once.  With 8 CPUs or more: four servers on four CPUs, four clients on
# four, no server on its own client's, none shared.  With fewer, eight
# threads must share; what the claims guarantee then: no CPU carries more
# than its even share (8/NCPU rounded up), and those past the first NCPU
# say that they share.
check_four() {
	local s c i st=0 most
	if [ "$NCPU" -lt 8 ]; then
		# shellcheck disable=SC2086
		most=$(printf '%s\n' $S $C | sort | uniq -c | sort -rn | awk 'NR == 1 {print $1}')
		[ "${most:-9}" -le $(((8 + NCPU - 1) / NCPU)) ]
		tap_ok $? "$NCPU CPUs for eight threads: at most $(((8 + NCPU - 1) / NCPU)) on one (got ${most:-?})"
		[ "$(meta_count "placement=.*shared: all $NCPU CPUs of" "$RB_CASE_DIR"/[sc]?.csv)" = $((8 - NCPU)) ] &&
			[ "$(grep -l 'is shared with' "$RB_CASE_DIR"/[sc]?.err | wc -l)" = $((8 - NCPU)) ]
		tap_ok $? "$NCPU CPUs for eight threads: $((8 - NCPU)) say they share (metadata, stderr)"
		return
	fi
	# shellcheck disable=SC2086
	distinct servers $S && distinct clients $C
	tap_ok $? "four pairs at once: four servers on four CPUs, four clients on four CPUs (metadata cpu)"
	read -ra s <<<"$S"
	read -ra c <<<"$C"
	for i in 0 1 2 3; do
		[ "${s[$i]}" != "${c[$i]}" ] || { tap_diag "pair $i: server and client both on CPU ${s[$i]}"; st=1; }
	done
	tap_ok "$st" "no server shares a CPU with its own client"
	# shellcheck disable=SC2086
	distinct "all eight" $S $C && [ "$(meta_count 'placement=.*shared:' "$RB_CASE_DIR"/[sc]?.csv)" = 0 ]
	tap_ok $? "eight measuring threads on eight CPUs, none shared (metadata cpu and placement)"
}

# Started together, they must also run together for the claims to matter:
# a watcher keeps the most claims (flock locks) seen held at once, by how
# many processes.  On a host so loaded that the eight never overlapped,
# once more with a longer -D; still not: the CPU checks are skipped, saying
# why.  -e (completion events): eight threads that sleep between
# completions leave the emulated CPUs to the ones still starting, so that
# the eight overlap; the placement is the same as with busy polling.
for D in 6 20; do
	rb_case "four pairs"
	t0=$SECONDS
	locks_watch "$RB_CASE_DIR/locks" &
	w=$!
	pairs_run 4 18600 "-s 4096 -D $D -e" && st=0 || st=1
	touch "$RB_CASE_DIR/locks.stop"
	wait "$w"
	[ "$st" = 0 ] || break
	held=$(awk '{print $5}' "$RB_CASE_DIR/locks" 2>/dev/null | sort -u | grep -c .)
	tap_diag "-D $D: at most ${held:-0} processes held a claim at once ($((SECONDS - t0)) s)"
	[ "${held:-0}" -ge 8 ] && break
done
S=$(cpus_of s0 s1 s2 s3)
C=$(cpus_of c0 c1 c2 c3)
tap_diag "$NCPU CPUs: servers on CPUs $S, clients on CPUs $C"
tap_ok "$st" "four rb_write_bw pairs started together on four ports all ran"
if [ "$st" = 0 ] && [ "${held:-0}" -lt 8 ]; then
	# Claims only keep apart what runs at the same time: with no moment
	# where all eight ran, distinct CPUs would prove nothing (nor their
	# absence disprove anything).
	why="the eight never held their claims at once (at most ${held:-0}, /proc/locks): host too loaded"
	for ((i = 0; i < p10_four; i++)); do
		tap_skip_machine "four pairs at once: their CPUs (check $((i + 1)) of $p10_four)" "$why"
	done
else
	check_four
fi

# hold LIST: hold the slot-0 lock file of each CPU of LIST as another
# instance would (flock(1)), until unhold.
holders=()
hold() {
	local c
	mkdir -p "$RB_LOCKS"
	for c in "$@"; do
		flock -n "$RB_LOCKS/cpu$c.0" sleep 600 &
		holders+=($!)
	done
	rb_nap 0.5
}
unhold() {
	kill "${holders[@]}" 2>/dev/null
	wait "${holders[@]}" 2>/dev/null
	holders=()
}

claim_of() { # FILE: the lock file named in the placement note
	rb_meta_lines "$1" | sed -n 's/^# placement=.*claim \([^ ,)]*\).*/\1/p'
}

# The eight claims ended with their processes: the client claims CPU 1's
# slot 0 again.  And --cpu 2 while CPU 2 is claimed: honoured, with a
# warning, said in the metadata.
rb_case "released and cpu given"
hold 2
rb_pair "released and cpu given" "$(rb_cmd rb_write_bw) -s 4096 -n 200 --cpu 2 --csv=\$RB_CASE_DIR/server.csv" \
	"$(rb_cmd rb_write_bw) -s 4096 -n 200 --csv=\$RB_CASE_DIR/client.csv \"\$RB_IP\""
st=$?
c=$(claim_of "$RB_CASE_DIR/client.csv")
[ "$st" = 0 ] && [ "$(cpu_of "$RB_CASE_DIR/client.csv")" = 1 ] && [ "$c" = "$RB_LOCKS/cpu1.0" ] ||
	{ tap_diag "client: cpu $(cpu_of "$RB_CASE_DIR/client.csv"), claim '$c'"; st=1; }
tap_ok "$st" "the claims end with their processes: the next client claims $RB_LOCKS/cpu1.0 again"
[ "$st" = 0 ] && [ "$(cpu_of "$RB_CASE_DIR/server.csv")" = 2 ] &&
	grep -q -- '--cpu 2: that CPU is also used by 1 other rdmabench instance' "$RB_CASE_DIR/server.err" &&
	rb_meta_lines "$RB_CASE_DIR/server.csv" | grep -q "placement=--cpu: .*claim $RB_LOCKS/cpu2.1, shared"
tap_ok $? "--cpu 2 already claimed: runs on CPU 2, warns, the metadata says shared"

# Every CPU held by someone else: the pair runs, server and client still
# apart, and each says it shares, once on stderr and in the metadata.
rb_case "all taken"
for ((i = 0; i < NCPU; i++)); do [ "$i" = 2 ] || hold "$i"; done
pairs_run 1 18620 "-s 4096 -n 200" && st=0 || st=1
unhold
read -ra sc <<<"$(cpus_of s0 c0)"
[ "$st" = 0 ] && [ "${sc[0]}" != "${sc[1]}" ] &&
	rb_meta_lines "$RB_CASE_DIR/s0.csv" | grep -q "placement=.*shared: all $NCPU CPUs of .*taken by other rdmabench instances" &&
	rb_meta_lines "$RB_CASE_DIR/c0.csv" | grep -q "placement=.*shared: all $NCPU CPUs of" &&
	[ "$(grep -c 'is shared with 1 other rdmabench instance' "$RB_CASE_DIR/s0.err")" = 1 ] &&
	grep -q 'is shared with 1 other rdmabench instance' "$RB_CASE_DIR/c0.err"
tap_ok $? "all $NCPU CPUs claimed by others: runs on CPUs ${sc[*]}, says 'shared' once on stderr and in the metadata"
