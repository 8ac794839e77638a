#!/usr/bin/env bash
# The launch-overhead benchmark: builds ptx2llvm and ptxrt in release mode, builds
# launch.cu with ptx2llvm-cc and runs it. Arguments go to the program ([launches] [budget_us]).
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
PTX2LLVM="$tgt/release/ptx2llvm" PTXRT_LIB="$tgt/release/libptxrt.a" \
    "$root/scripts/ptx2llvm-cc" -O3 "$root/bench/launch/launch.cu" -o "$out/launch"
"$out/launch" "$@"
