#!/usr/bin/env bash
# Installs what building and testing ptx2llvm needs on Debian 12 (bookworm).
# Idempotent: installs only what is missing. Run as root or as a user with sudo.
#
#   LLVM 19 (the compiler links it; FileCheck/not/llvm-readelf for the lit tests),
#   clang-19, LLD 19 (the tests link with GNU ld, gold and LLD), gcc/g++ and pkg-config
#   (C and C++ hosts, the installed ptxrt.pc), cmake, qemu-user, an AArch64 cross compiler
#   and Rust's AArch64 standard library (cross-target tests),
#   xz-utils (the silicon test decompresses the GPU-recorded vectors with `xz -dc`),
#   gdb (the -g test stops on a kernel's source line),
#   and lit (from PyPI, pinned) for the lit suite.
set -euo pipefail

APT_PACKAGES=(
    llvm-19-dev
    libpolly-19-dev
    libzstd-dev
    llvm-19-tools
    clang-19
    lld-19
    gcc
    g++
    binutils
    pkgconf
    cmake
    qemu-user
    gcc-aarch64-linux-gnu
    libc6-dev-arm64-cross
    libomp-19-dev
    xz-utils
    gdb
)
LIT_VERSION="18.1.8"

log() { printf 'install-deps: %s\n' "$*"; }

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo > /dev/null 2>&1; then
        sudo "$@"
    else
        log "need root (or sudo) to run: $*" >&2
        exit 1
    fi
}

is_installed() {
    dpkg -s "$1" 2> /dev/null | grep -q '^Status: install ok installed'
}

# --- Debian packages --------------------------------------------------------------------
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
    is_installed "$pkg" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
    log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    as_root apt-get update
    as_root apt-get install -y --no-install-recommends "${missing[@]}"
else
    log "Debian packages present"
fi

# --- lit (PyPI) ---------------------------------------------------------------------------
have_lit_version() {
    [ "$(python3 -c 'import lit; print(lit.__version__)' 2> /dev/null)" = "$LIT_VERSION" ]
}
if have_lit_version; then
    log "lit $LIT_VERSION present"
else
    if ! python3 -m pip --version > /dev/null 2>&1; then
        log "installing python3-pip"
        export DEBIAN_FRONTEND=noninteractive
        as_root apt-get update
        as_root apt-get install -y --no-install-recommends python3-pip
    fi
    log "installing lit==$LIT_VERSION"
    # A system Python that is "externally managed" (PEP 668) takes it as a user package.
    python3 -m pip install --quiet --disable-pip-version-check "lit==$LIT_VERSION" ||
        python3 -m pip install --quiet --disable-pip-version-check --user \
            --break-system-packages "lit==$LIT_VERSION"
    have_lit_version || { log "lit $LIT_VERSION did not install" >&2; exit 1; }
fi

# --- Rust ---------------------------------------------------------------------------------
if ! command -v cargo > /dev/null 2>&1 && [ ! -x "$HOME/.cargo/bin/cargo" ]; then
    log "cargo not found: install a Rust toolchain (1.80 or newer) with rustup" >&2
    exit 1
fi
# The runtime is cross-built for AArch64 (tests run it under qemu-user).
RUSTUP="$(command -v rustup || echo "$HOME/.cargo/bin/rustup")"
if [ -x "$RUSTUP" ]; then
    if "$RUSTUP" target list --installed 2> /dev/null | grep -qx aarch64-unknown-linux-gnu; then
        log "Rust target aarch64-unknown-linux-gnu present"
    else
        log "adding Rust target aarch64-unknown-linux-gnu"
        # Not fatal: where it cannot be downloaded, the AArch64 runs are skipped (with a
        # warning in the test output).
        "$RUSTUP" target add aarch64-unknown-linux-gnu ||
            log "could not add the Rust target aarch64-unknown-linux-gnu: AArch64 tests will be skipped" >&2
    fi
else
    log "rustup not found: the AArch64 tests need the Rust target aarch64-unknown-linux-gnu" >&2
fi
log "done"
