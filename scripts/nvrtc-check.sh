#!/usr/bin/env bash
# nvrtc-check.sh: checks that the CUDA programs we write in ordinary CUDA style
# (tests/cuda/*.cu, examples/cuda/*.cu, bench/launch/*.cu) are valid CUDA for NVIDIA's own
# front end, NVRTC, and records what NVRTC made of them, for the tests (which never run
# NVRTC themselves):
#   tests/cuda/nvrtc/<name>.ptx  NVRTC's device code; `cuda::nvrtc_device_code` builds the
#                                programs with it (ptx2llvm-cc --device-ptx) and runs them;
#   tests/cuda/nvrtc/VERDICTS    each source's SHA-256 and NVRTC's verdict, so that the
#                                test fails when a source changed after it was checked.
# NVRTC compiles device code only: the host code of these files (and their host headers)
# sits in `#ifndef __CUDACC_RTC__`, the macro NVRTC defines for exactly this; template
# kernels are instantiated explicitly, as NVRTC sees no launch.
#
# Needs an NVRTC driver command, `CUDA2PTX -o OUT.ptx FILE.cu -- NVRTC-OPTIONS...`
# ($CUDA2PTX, else `cuda2ptx` on PATH: a small wrapper around libnvrtc's
# nvrtcCompileProgram that writes nvrtcGetPTX's text),
# and for cooperative groups the directory that holds CUDA's <nv/target> (CCCL: a CUDA
# toolkit's include/, or the nvidia-cuda-cccl-cu12 wheel's nvidia/cuda_cccl/include) in
# $NVRTC_INCLUDE or $CUDA_HOME/include.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

cuda2ptx="${CUDA2PTX:-$(command -v cuda2ptx || true)}"
[ -n "$cuda2ptx" ] && [ -x "$cuda2ptx" ] || { echo "nvrtc-check: no NVRTC driver (set CUDA2PTX, or put cuda2ptx on PATH)" >&2; exit 1; }
inc="${NVRTC_INCLUDE:-${CUDA_HOME:+$CUDA_HOME/include}}"
nvrtc_opts=()
[ -n "$inc" ] && nvrtc_opts+=("-I$inc")

out=tests/cuda/nvrtc
mkdir -p "$out"
verdicts="$out/VERDICTS"
tmp="$(mktemp)"
trap 'rm -f "$tmp"' EXIT
release=""
failed=0
for src in tests/cuda/*.cu examples/cuda/*.cu bench/launch/*.cu; do
    name="$(basename "$src" .cu)"
    if "$cuda2ptx" -o "$out/$name.ptx" "$src" -- "${nvrtc_opts[@]}" 2> "$tmp"; then
        verdict=accepted
        release="$(sed -n 's|^// Cuda compilation tools, \(.*\)$|\1|p' "$out/$name.ptx" | head -1)"
    else
        verdict=rejected
        failed=$((failed + 1))
        rm -f "$out/$name.ptx"
        sed "s|^|$src: |" "$tmp" >&2
    fi
    printf '%s %s %s\n' "$(sha256sum "$src" | cut -d' ' -f1)" "$verdict" "$src"
done > "$tmp.verdicts"
{
    echo "# NVRTC's verdict on each CUDA source (scripts/nvrtc-check.sh; NVRTC ${release:-?}, compute_80)"
    echo "# sha256 verdict source"
    cat "$tmp.verdicts"
} > "$verdicts"
rm -f "$tmp.verdicts"
cat "$verdicts"
[ "$failed" = 0 ] || { echo "nvrtc-check: $failed source(s) rejected by NVRTC" >&2; exit 1; }
