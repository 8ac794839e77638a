#!/usr/bin/env bash
# Exhaustive accuracy check of ptx2llvm's approximate instructions (ex2.approx.f32 and its
# ftz form) against double precision: every STEP-th f32 input (default 1: all 2^32, about
# 90 s on two cores). Prints the worst error in ulp; exit status 1 above the ISA's bound.
#   bench/accuracy/run.sh [STEP]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=../lib.sh
. "$here/../lib.sh"
"$tgt/release/ptx2llvm" "$here/ex2.ptx" -O3 --cpu native -o "$out/ex2.o"
clang-19 -O2 -I ptxrt/include "$here/ex2.c" "$out/ex2.o" "$tgt/release/libptxrt.a" -lpthread -ldl -lm -o "$out/ex2"
"$out/ex2" "${1:-1}"
