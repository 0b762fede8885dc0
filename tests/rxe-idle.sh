#!/bin/bash
# Automake test of the nightly run (.ci/run --full; NIGHTLY_TESTS, not make
# check's TESTS): the case files that need an idle hour ("# needs:
# one-guest quiet idle-hour": prog/mesh_idle.sh, rb_mesh watch left alone
# for RB_MESH_IDLE_S seconds, 3600) in a test-bed boot of their own
# (tests/rxe.sh with RXE_BOOT), whose limit is the idle time and 20 minutes.
export RB_TESTBED_TIMEOUT=${RB_TESTBED_TIMEOUT:-$((${RB_MESH_IDLE_S:-3600} + 1200))}
RXE_BOOT=rxe-idle exec bash "${0%/*}/rxe.sh" "$@"
