# Sourced by the benchmarks' run.sh scripts that build a C program: the workspace root
# ($root, also the working directory), ptx2llvm and ptxrt built in release mode
# ($tgt/release, an absolute path), and a scratch directory ($out, removed on exit).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export LLVM_SYS_191_PREFIX="${LLVM_SYS_191_PREFIX:-/usr/lib/llvm-19}"
cd "$root"
cargo build --release --quiet -p ptx2llvm -p ptxrt
tgt="$(cd "${CARGO_TARGET_DIR:-target}" && pwd)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
