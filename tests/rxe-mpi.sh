#!/bin/bash
# Automake test: the integration cases t_6*-t_9* (rb_mpi under Open MPI and
# Slurm) on rxe, in a test-bed boot of their own (tests/rxe.sh with RXE_PART).
RXE_PART='t_[6-9]*.sh' exec bash "${0%/*}/rxe.sh" "$@"
