#!/bin/bash
# in the guest: $1 boot number, then cases; each case main then lpost (interleaved)
b=$1; shift
R=/work/wt-lpost/results/icount/2026-12-03-lpost
for c in "$@"; do
  for v in main after; do
    bin=/work/wt-lpost/build; [ $v = main ] && bin=/tmp/lpost-main/build
    python3 /work/wt-lpost/scripts/dev/rb-icount --inside --boot $b --bin $bin --out $R/$v --cases $c \
      --tools rdmabench --bw-iters 1600,33600 --lat-iters 1000,6000 2>&1 | grep -v "^$" | tail -3
  done
done
