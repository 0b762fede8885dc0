#!/bin/bash
# Automake test: the integration cases t_3*-t_5* (peer loss, rogue peers,
# valgrind, the regression check, the device's counters) on rxe, in a test-bed
# boot of their own (tests/rxe.sh with RXE_PART).
RXE_PART='t_[3-5]*.sh' exec bash "${0%/*}/rxe.sh" "$@"
