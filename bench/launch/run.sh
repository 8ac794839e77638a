#!/usr/bin/env bash
# The launch-overhead benchmark: builds ptx2llvm and ptxrt in release mode, builds
# launch.cu with ptx2llvm-cc and runs it. Arguments go to the program ([launches] [budget_us]).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
export LLVM_SYS_191_PREFIX="${LLVM_SYS_191_PREFIX:-/usr/lib/llvm-19}"
(cd "$root" && cargo build --release --quiet -p ptx2llvm -p ptxrt)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
PTX2LLVM="$root/target/release/ptx2llvm" PTXRT_LIB="$root/target/release/libptxrt.a" \
    "$root/scripts/ptx2llvm-cc" -O3 "$root/bench/launch/launch.cu" -o "$tmp/launch"
"$tmp/launch" "$@"
