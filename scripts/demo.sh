#!/usr/bin/env bash
# The demo: a CUDA kernel (examples/vecadd/vecadd.cu, compiled to PTX with NVRTC into
# examples/vecadd/vecadd.ptx) translated by ptx2llvm into a native object, linked with
# the C host examples/vecadd/main.c and the ptxrt runtime, and run on the CPU.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

step() { printf '\n==> %s\n' "$*"; }

step "installing dependencies"
bash scripts/install-deps.sh

export LLVM_SYS_191_PREFIX="${LLVM_SYS_191_PREFIX:-/usr/lib/llvm-19}"
if ! command -v cargo > /dev/null 2>&1; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi

step "cargo build --release"
cargo build --release

out=build/demo
mkdir -p "$out"

step "ptx2llvm examples/vecadd/vecadd.ptx -o $out/vecadd.o"
target/release/ptx2llvm examples/vecadd/vecadd.ptx -o "$out/vecadd.o"

step "linking examples/vecadd/main.c + vecadd.o + libptxrt.a"
${CC:-cc} -std=c11 -O2 -Iptxrt/include examples/vecadd/main.c "$out/vecadd.o" \
    target/release/libptxrt.a -lpthread -ldl -lm -o "$out/vecadd"

step "running $out/vecadd"
"$out/vecadd"
