#!/usr/bin/env bash
# Installs the dependencies and runs every test of the workspace: the compiler's and the
# runtime's unit tests, and the end-to-end, lit and CMake tests (tests/main.rs).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh

export LLVM_SYS_191_PREFIX="${LLVM_SYS_191_PREFIX:-/usr/lib/llvm-19}"
if ! command -v cargo > /dev/null 2>&1; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi

# Formatting (rustfmt.toml): checked first, as a failure of its own.
if ! cargo fmt --version > /dev/null 2>&1 && command -v rustup > /dev/null 2>&1; then
    rustup component add rustfmt
fi
if cargo fmt --version > /dev/null 2>&1; then
    cargo fmt --all -- --check
else
    echo "skipped: rustfmt check (no rustfmt, and no rustup to install it)"
fi

# The end-to-end tests drive the ptx2llvm binary and libptxrt.a; build them first so
# that compile errors show up here, in order.
cargo build --workspace
cargo test --workspace
