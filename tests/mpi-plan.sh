#!/bin/bash
# Automake test (TAP), no device and no mpirun needed: rb_mpi --plan=N
# prints the schedule of N ranks without starting MPI; its figures match
# tests/unit/test_schedule's (2(N-1) rounds of N/2 links for even N, 2N of
# (N-1)/2 for odd N, N-1 with -b; N(N-1) one at a time) and it takes well
# under a second of CPU for 4096 ranks.  SKIP when rb_mpi was not built
# (./configure --with-mpi).  Env top_srcdir and top_builddir (absolute).
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
rb_mpi=$top_builddir/rb_mpi
# the commit built (the metadata's "commit"): git's description of the tree,
# or in a release tarball the COMMIT file make dist wrote
if [ -e "$top_srcdir/.git" ]; then
	commit=$(git -C "$top_srcdir" describe --always --dirty 2>/dev/null)
else
	commit=$(cat "$top_srcdir/COMMIT" 2>/dev/null)
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rb-plan.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

ok() { # STATUS NAME
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
		sed 's/^/# /' "$tmp/out" "$tmp/err" 2>/dev/null | head -n 30
	fi
}

# meta KEY: the metadata's KEY in the JSON document $tmp/out; rows: its
# rows, "LINKS,ROUNDS " each
meta() {
	python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))["meta"].get(sys.argv[2])
print("" if v is None else v)' "$tmp/out" "$1" 2>/dev/null
}
rows() {
	python3 -c 'import json, sys
print("".join("%d,%d " % (r["links_per_round"], r["rounds"]) for r in json.load(open(sys.argv[1]))["results"]), end="")' \
		"$tmp/out" 2>/dev/null
}

# plan ARGS...: rb_mpi --json ARGS; $st its status; $cpu its CPU ms (user + sys)
plan() {
	local t
	t=$( { TIMEFORMAT='%3U %3S'; time { timeout 60 "$rb_mpi" --json "$@" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/st"; }; } 2>&1 )
	st=$(cat "$tmp/st")
	cpu=$(echo "$t" | awk '{ printf "%d", ($1 + $2) * 1000 }')
}

cases=13
if [ ! -x "$rb_mpi" ]; then
	for ((i = 1; i <= cases; i++)); do
		echo "ok $i - rb_mpi --plan case $i # SKIP rb_mpi not built (./configure --with-mpi)"
	done
	echo "1..$cases"
	exit 0
fi

for N in 128 1024 4096; do
	plan --plan=$N
	[ "$st" = 0 ] && [ "$(meta rounds)" = $((2 * (N - 1))) ] && [ "$(meta links_at_once)" = $((N / 2)) ] &&
		[ "$(rows)" = "$((N / 2)),$((2 * (N - 1))) " ] && [ "$(meta ranks)" = $N ] && [ "$cpu" -lt 1000 ]
	ok $? "--plan=$N: $((2 * (N - 1))) rounds of $((N / 2)) links, in $cpu ms of CPU (under 1000); est. $(meta est_wall_h) h against $(meta sequential_wall_h) h one at a time"
done

plan --plan=1023
[ "$st" = 0 ] && [ "$(meta rounds)" = 2046 ] && [ "$(rows)" = "511,2046 " ] && [ -n "$commit" ] &&
	[ "$(meta commit)" = "$commit" ]
ok $? "--plan=1023 (odd): 2046 rounds of 511 links (one rank sits out each round); meta commit $(meta commit) (the tree's: $commit)"

plan --plan=1024 -b
[ "$st" = 0 ] && [ "$(meta rounds)" = 1023 ] && [ "$(rows)" = "512,1023 " ]
ok $? "--plan=1024 -b: 1023 rounds (each unordered pair once, both ways at once)"

plan --plan=128 --sequential -D 2 --warmup-time 1
[ "$st" = 0 ] && [ "$(meta rounds)" = 16256 ] && [ "$(meta links_at_once)" = 1 ] && [ "$(meta link_time_s)" = 4.0 ]
ok $? "--plan=128 --sequential -D 2: 16256 rounds of one link, 4.0 s a link (2 + 1 warm-up + 1 setup)"

printf 'n0 swA\nn1.dc swB # comment\nn2 swA\nn3 swB\n' >"$tmp/topo"
plan --plan=4 --topology "$tmp/topo"
[ "$st" = 0 ] && [ "$(meta rounds)" = 6 ] && [ "$(rows)" = "2,6 " ] && [ "$(meta topology)" = "$tmp/topo" ]
ok $? "--plan=4 --topology (2 switches of 2): 2 rounds inside the switches, 4 across, 2 links each"

plan --plan=3 --topology "$tmp/topo"
[ "$st" = 2 ] && grep -q -- "--topology: .* lists 4 hosts, not 3" "$tmp/err"
ok $? "--plan=3 with a topology of 4 hosts: exit 2, said"

plan --plan=64 --pattern incast --incast-dst 7
[ "$st" = 0 ] && [ "$(meta rounds)" = 1 ] && [ "$(meta links_at_once)" = 63 ] && [ "$(rows)" = "63,1 " ] &&
	[ "$(meta pattern)" = incast ] && [ "$(meta incast_dst)" = 7 ]
ok $? "--plan=64 --pattern incast --incast-dst 7: one round of 63 links into rank 7"

plan --plan=6 --bench send_lat --background write_bw --background-pattern pairs,ring,incast
[ "$st" = 0 ] && [ "$(meta rounds)" = 4 ] && [ "$(meta links_at_once)" = 5 ] && [ "$(rows)" = "5,2 3,1 1,1 " ] &&
	[ "$(meta pattern)" = load ] && [ "$(meta latency_pair)" = "0->1" ] && [ "$(meta incast_dst)" = 1 ] &&
	[ "$(meta load_patterns)" = pairs,ring,incast ] && [ "$(meta load_bench)" = rb_write_bw ] && [ "$(meta load_size)" = 65536 ]
ok $? "--plan=6 --background write_bw, pairs,ring,incast: the pair idle, then with 2, 4 and 4 background links"

plan --plan=4 --bench write_lat --background send_bw --background-pattern incast --latency-pair 3:2 --incast-dst 0 --background-size 1M
[ "$st" = 0 ] && [ "$(rows)" = "2,1 1,1 " ] && [ "$(meta latency_pair)" = "3->2" ] && [ "$(meta incast_dst)" = 0 ] &&
	[ "$(meta load_size)" = 1048576 ]
ok $? "--plan=4 --latency-pair 3:2, incast into 0: the pair idle, then 1 -> 0 beside it"

bad=0
for a in "--plan=4 --pattern incast --incast-dst 4" "--plan=4 --incast-dst 1" "--plan=4 --pattern incast --incast-dst x" \
	"--plan=4 --bench send_bw --background write_bw" "--plan=4 --bench send_lat --background write_lat" \
	"--plan=4 --bench send_lat --background nope" "--plan=3 --bench send_lat --background write_bw" \
	"--plan=4 --bench send_lat --background write_bw --background-pattern shift" \
	"--plan=4 --bench send_lat --background write_bw --background-pattern ring,ring" \
	"--plan=4 --bench send_lat --background write_bw --latency-pair 0:4" \
	"--plan=4 --bench send_lat --background write_bw --latency-pair 1:1" \
	"--plan=4 --bench send_lat --background write_bw --pattern ring" \
	"--plan=4 --bench send_lat --background write_bw --background-size 0" \
	"--plan=4 --bench send_lat --background-pattern pairs" "--plan=4 --latency-pair 0:1" \
	"--plan=4 --background-size 1M" "--plan=4 --bench send_lat --background write_bw --run_infinitely" "--plan=4 --validate" \
	"--plan=4 --bench send_lat --load=write_bw"; do
	opt=$(echo "$a" | grep -o -- '--[a-z-]*' | sed -n 2p)
	# shellcheck disable=SC2086
	"$rb_mpi" $a >"$tmp/out" 2>"$tmp/err"
	st=$?
	[ "$st" = 2 ] && [ ! -s "$tmp/out" ] && grep -q -- "error: --" "$tmp/err" || { echo "# $a: exit $st: $(head -c 300 "$tmp/err")"; bad=1; }
done
ok $bad "bad --incast-dst, --background, --background-pattern, --background-size, --latency-pair, --load and combinations: exit 2, the option named on stderr, nothing on stdout"

# --topology=slurm through a stand-in scontrol: its leaf switches' hostlists
# expanded by "scontrol show hostnames", Level=1 ignored
mkdir -p "$tmp/bin"
cat >"$tmp/bin/scontrol" <<'EOF'
#!/bin/sh
case "$2" in
topology) [ -n "$RB_FAKE_TOPO" ] && printf '%s\n' "SwitchName=s0 Level=0 LinkSpeed=1 Nodes=n[1-2]" \
	"SwitchName=s1 Level=0 LinkSpeed=1 Nodes=n[3-4]" "SwitchName=top Level=1 LinkSpeed=1 Nodes=n[1-4] Switches=s[0-1]" ;;
hostnames) case "$3" in "n[1-2]") printf 'n1\nn2\n' ;; "n[3-4]") printf 'n3\nn4\n' ;; *) exit 1 ;; esac ;;
esac
exit 0
EOF
chmod +x "$tmp/bin/scontrol"
PATH=$tmp/bin:$PATH RB_FAKE_TOPO=1 plan --plan=4 --topology=slurm
[ "$st" = 0 ] && [ "$(meta rounds)" = 6 ] && [ "$(rows)" = "2,6 " ] && [ "$(meta topology)" = slurm ]
ok $? "--plan=4 --topology=slurm (scontrol: 2 leaf switches of 2): the same plan as the file's"
PATH=$tmp/bin:$PATH RB_FAKE_TOPO= plan --plan=4 --topology=slurm
[ "$st" = 2 ] && grep -q -- "--topology=slurm: .*no leaf switch" "$tmp/err"
ok $? "--topology=slurm, Slurm without a tree topology: exit 2, said"

bad=0
for a in --plan=1 --plan=abc --plan=2.5 "--plan=4 --sequential --pattern ring" "--plan=4 --pattern star" "--plan=4 --link-time 0"; do
	# shellcheck disable=SC2086
	"$rb_mpi" $a >"$tmp/out" 2>"$tmp/err"
	st=$?
	[ "$st" = 2 ] && [ ! -s "$tmp/out" ] && grep -q -- "--" "$tmp/err" || { echo "# $a: exit $st"; bad=1; }
done
ok $bad "bad --plan, --sequential, --pattern, --link-time values: exit 2, a message on stderr, nothing on stdout"

echo "1..$n"
[ "$failed" = 0 ]
