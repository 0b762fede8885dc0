#!/bin/bash
# Automake test (TAP), no device needed: rb-wire on synthetic captures
# (tests/wire/test_rbwire.py builds them packet by packet).  SKIP without
# python3.  Env top_srcdir and top_builddir (absolute).
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
command -v python3 >/dev/null || { echo "1..0 # SKIP no python3"; exit 0; }
rb_wire=$top_builddir/scripts/tools/rb-wire
[ -x "$rb_wire" ] || rb_wire=$top_srcdir/scripts/tools/rb-wire.in
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rb-wire.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
RB_DATADIR=$top_srcdir/scripts python3 "$top_srcdir/tests/wire/test_rbwire.py" "$rb_wire" "$tmp"
