#!/bin/bash
# Automake test: the case files that need rb_mpi under Open MPI or Slurm in
# one guest ("# needs: one-guest ... mpi": tests/integration/needs.sh) on
# rxe, in a test-bed boot of their own (tests/rxe.sh with RXE_BOOT).
RXE_BOOT=rxe-mpi exec bash "${0%/*}/rxe.sh" "$@"
