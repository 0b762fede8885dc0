#!/bin/bash
# tests/robust/valgrind.sh: only the valgrind memcheck cases
# (tests/integration/robust/valgrind.sh), as TAP, on the device at hand;
# inside the test bed:
#
#   scripts/testbed/rb-testbed --timeout 900 -- tests/robust/valgrind.sh
#
# RB_VG_PROGS picks the benchmarks, RB_VG_JOBS how many pairs run at once.
top=$(cd "$(dirname "$0")/../.." && pwd)
RB_TESTS=robust/valgrind.sh exec bash "$top/tests/integration/run-all.sh"
