#!/usr/bin/env bash
# The runtime benchmark: translated CUDA kernels vs native C/OpenMP, same machine, one run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export LLVM_SYS_191_PREFIX="${LLVM_SYS_191_PREFIX:-/usr/lib/llvm-19}"
cd "$root"
cargo build --release --quiet -p ptx2llvm -p ptxrt
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
tgt="${CARGO_TARGET_DIR:-target}"
"$tgt/release/ptx2llvm" "$here/kernels.ptx" -O3 --cpu native -o "$out/kernels.o"
clang-19 -O3 -march=native -fopenmp -I ptxrt/include "$here/main.c" "$here/native.c" "$out/kernels.o" \
    "$tgt/release/libptxrt.a" -lpthread -ldl -lm -o "$out/bench"
threads="$(nproc)"
echo "threads: $threads (OMP_NUM_THREADS, PTXRT_NUM_THREADS); medians of 21 runs"
# The two runtimes take turns on the same cores: OpenMP's threads must sleep between
# parallel regions (as ptxrt's workers do) instead of spinning for libomp's default 200 ms
# block time, which would take a core from ptxrt's workers during every ptx2llvm run.
OMP_WAIT_POLICY=passive OMP_NUM_THREADS="$threads" PTXRT_NUM_THREADS="$threads" "$out/bench" "$@"
