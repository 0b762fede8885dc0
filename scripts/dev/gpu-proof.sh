#!/bin/bash
# scripts/dev/gpu-proof.sh: rdmabench's GPU memory code (src/verbs/mem_cuda.c,
# mem_gpu.c) against the libcuda.so.1 that the dlopen finds, without an RDMA
# device: for a machine with a GPU (none of them has an RDMA device), where
# it proves allocation, the driver's word that the memory is the GPU's, the
# dma-buf export, copies compared byte for byte, --validate's host copy,
# the copy rates (--bounce's cost per byte), --gpu_touch's passes (once,
# infinite: the bytes set, the rate, the thread's CPU time, stopped at the
# free), the refusals; and here against
# tests/standin's stand-in (LD_LIBRARY_PATH=build/tests/standin) to try it.
#
#   scripts/dev/gpu-proof.sh [--bin FILE] [--out DIR] [GPU]
#
# Builds scripts/dev/gpu-proof.c with cc (only libc: no libibverbs or
# libnuma needed; the headers of rdma-core are, for mem.h), or runs FILE, a
# gpu-proof built elsewhere.  Writes DIR/gpu-proof.txt (default: $OUT, else
# ./gpu-proof-DATE): what ran where (nvidia-smi, the driver, the library
# found), then the program's TAP.  Exit: the program's (0: every check held),
# 2 on bad usage.
set -u -o pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bin="" out="${OUT:-}" gpu=0
while [ $# -gt 0 ]; do
	case $1 in
	--bin) bin=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	-h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	--version) echo "gpu-proof.sh (rdmabench) $(head -n 1 "$top/VERSION") (commit $(sh "$top/scripts/dev/commit.sh" 2>/dev/null || echo unknown))"; exit 0 ;;
	[0-9]*) gpu=$1; shift ;;
	*) echo "gpu-proof.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
out=${out:-./gpu-proof-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out" || exit 2
log=$out/gpu-proof.txt

if [ -z "$bin" ]; then
	bin=$out/gpu-proof
	cc -std=gnu11 -O2 -Wall -D_GNU_SOURCE -I"$top/src" -I"$top" -o "$bin" \
		"$top/scripts/dev/gpu-proof.c" "$top/src/verbs/mem_cuda.c" "$top/src/verbs/mem_gpu.c" \
		"$top/src/lib/log.c" "$top/scripts/dev/gpu-proof-stubs.c" -ldl -lpthread 2>"$out/build.err" ||
		{ echo "gpu-proof.sh: the build failed:" >&2; cat "$out/build.err" >&2; exit 1; }
fi

{
	echo "# gpu-proof.sh, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -srm), commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "# LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
	if command -v nvidia-smi >/dev/null; then
		nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,memory.total --format=csv,noheader 2>&1 | sed 's/^/# nvidia-smi: /'
	else
		echo "# nvidia-smi: none (a stand-in run?)"
	fi
	echo "# RDMA devices: $(ls /sys/class/infiniband 2>/dev/null | tr '\n' ' ' || true)(none expected)"
} >"$log"
"$bin" "$gpu" >>"$log" 2>&1
st=$?
echo "# exit $st" >>"$log"
cat "$log"
exit "$st"
