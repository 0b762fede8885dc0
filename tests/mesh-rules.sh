#!/bin/bash
# Automake test (TAP), no device needed: rb_mesh's Prometheus rules
# (scripts/prometheus/rb-mesh-rules.yml) checked by promtool, and its unit
# tests (tests/prometheus/rb-mesh-rules.test.yml: a fault of each kind on a
# fabric of three hosts, each rule alone) run by `promtool test rules`.
# The test must catch a broken rule: a copy whose peer rule wants 3 agents
# instead of 2 must fail it.  Without promtool (Debian's prometheus): SKIP,
# except under CI=true, where .ci/run installs it.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
echo 1..3
rules=$top_srcdir/scripts/prometheus/rb-mesh-rules.yml
if ! command -v promtool >/dev/null; then
	[ "${CI:-}" = true ] && st="not ok" || st=ok
	for i in 1 2 3; do echo "$st $i # SKIP promtool not installed (apt-get install prometheus)"; done
	[ "$st" = ok ]
	exit
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rb-rules.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
res() { [ "$1" = 0 ] && echo "ok $2" || { echo "not ok $2"; sed 's/^/# /' "$tmp/out"; }; }

promtool check rules "$rules" >"$tmp/out" 2>&1
res $? "1 - promtool check rules: $(grep -o '[0-9]* rules found' "$tmp/out")"
# the test file names its rules relative to itself: copy both, same shape
mkdir -p "$tmp/tests/prometheus" "$tmp/scripts/prometheus"
cp "$top_srcdir/tests/prometheus/rb-mesh-rules.test.yml" "$tmp/tests/prometheus/"
cp "$rules" "$tmp/scripts/prometheus/"
promtool test rules "$tmp/tests/prometheus/rb-mesh-rules.test.yml" >"$tmp/out" 2>&1
res $? "2 - promtool test rules: host, peer, self and link each found alone, nothing when all is good"
sed -i 's/rb_mesh:peer_bad_links >= 2/rb_mesh:peer_bad_links >= 3/' "$tmp/scripts/prometheus/rb-mesh-rules.yml"
if promtool test rules "$tmp/tests/prometheus/rb-mesh-rules.test.yml" >"$tmp/out" 2>&1; then
	echo "not ok 3 - the rules' test passed a planted broken rule (peer wants 3 agents)"
else
	echo "ok 3 - the rules' test fails a planted broken rule (peer wants 3 agents)"
fi
