#!/usr/bin/env bash
# The runtime benchmark: the CUDA kernels of kernels.cu translated by ptx2llvm and run by
# ptxrt, against their native C/OpenMP twins (native.c), in one process on the same data,
# at several worker counts. Options go to the bench program (main.c), e.g.
#   bench/runtime/run.sh --workers 1,2,4,8,16 --budget 5 sgemm nbody
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# PTX2LLVM_FLAGS: further translator options (e.g. --check: the cost of checking mode).
# shellcheck disable=SC2086
"$tgt/release/ptx2llvm" "$here/kernels.ptx" -O3 --cpu native ${PTX2LLVM_FLAGS:-} -o "$out/kernels.o"
clang-19 -O3 -march=native -fopenmp -fno-math-errno -I ptxrt/include -I "$here" "$here/main.c" "$here/native.c" "$out/kernels.o" \
    "$tgt/release/libptxrt.a" -lpthread -ldl -lm -o "$out/bench"
echo "cores: $(nproc); ptx2llvm -O3 --cpu native ${PTX2LLVM_FLAGS:-}; clang-19 -O3 -march=native -fopenmp -fno-math-errno"
# The two runtimes take turns on the same cores: OpenMP's threads must sleep between
# parallel regions (as ptxrt's workers do) instead of spinning for libomp's default 200 ms
# block time, which would take a core from ptxrt's workers during every ptx2llvm run.
# The worker counts are set inside the program (ptxrtSetNumThreads, omp_set_num_threads).
OMP_WAIT_POLICY=passive "$out/bench" "$@"
