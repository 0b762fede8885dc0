#!/bin/bash
# Automake test: the case files that need one guest to themselves ("# needs:
# one-guest quiet": perftest's smoke cases first, the doctor, --interval,
# --load, the correctness checks, peer loss, rogue peers, valgrind, the
# regression check; tests/integration/needs.sh) on rxe, one after the other,
# in a test-bed boot of their own (tests/rxe.sh with RXE_BOOT).
RXE_BOOT=rxe-quiet exec bash "${0%/*}/rxe.sh" "$@"
