# shellcheck shell=bash
# tests/scripts/gpu.sh, sourced by tests/scripts.sh (its helpers: ok, skip,
# run; $tmp): scripts/dev/gpu-proof.sh, the script for a lent GPU machine,
# built and run here against the drivers' stand-in (tests/standin, built by
# make check): every check holds; the stand-in saying "managed memory"
# fails it (exit 1, named); bad usage exits 2.

gpu_proof=$top_srcdir/scripts/dev/gpu-proof.sh
standin=$top_builddir/tests/standin
if [ -e "$standin/libcuda.so.1" ] && command -v cc >/dev/null 2>&1; then
	LD_LIBRARY_PATH=$standin "$gpu_proof" --out "$tmp/gp1" 1 >"$tmp/out" 2>"$tmp/err"
	st=$?
	[ "$st" = 0 ] && ! grep -q '^not ok' "$tmp/gp1/gpu-proof.txt" && grep -q '^1\.\.18$' "$tmp/gp1/gpu-proof.txt" &&
		grep -q "library: .*tests/standin/libcuda.so.1" "$tmp/gp1/gpu-proof.txt" &&
		grep -q "GPU 1: rdmabench stand-in GPU 1 (host memory), bus id 0000:a1:00.0" "$tmp/gp1/gpu-proof.txt"
	ok $? "gpu-proof.sh on the stand-in, GPU 1: 18 checks hold (5 of them --gpu_touch's), the library and the GPU named (exit $st)"
	RB_STANDIN_MEMTYPE=managed LD_LIBRARY_PATH=$standin "$gpu_proof" --out "$tmp/gp2" >"$tmp/out" 2>"$tmp/err"
	st=$?
	[ "$st" = 1 ] && grep -q "gave managed memory, not device memory" "$tmp/gp2/gpu-proof.txt" &&
		grep -q "^not ok 1 - GPU 0" "$tmp/gp2/gpu-proof.txt"
	ok $? "gpu-proof.sh, the stand-in saying managed memory: exit 1 (status $st), named"
else
	skip "gpu-proof.sh on the stand-in" "no tests/standin built or no cc"
	skip "gpu-proof.sh, managed memory" "no tests/standin built or no cc"
fi
run "$gpu_proof" --nosuch
[ "$st" = 2 ] && grep -q "unknown argument '--nosuch'" "$tmp/err"
ok $? "gpu-proof.sh --nosuch: exit 2 (status $st)"
