#!/usr/bin/env bash
# The compile-time benchmark: every file of the PTX corpus translated by ptx2llvm at -O0 and
# -O2 (all cores, and -j 1 for the -O2 compile), against NVIDIA's ptxas on the same file
# where ../shared/tools/ptxas-check can run it. Wall-clock seconds, best of --reps runs.
#   bench/compile/run.sh [--reps N] [--min-lines N] [--no-ptxas] [--no-j1] [FILE...]
# Files: the corpus (PTX2LLVM_CORPUS, else ../shared/corpus beside the workspace) when none
# are named. Exit status 1 when a compile fails.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export LLVM_SYS_191_PREFIX="${LLVM_SYS_191_PREFIX:-/usr/lib/llvm-19}"
reps=1
min_lines=0
ptxas=1
j1=1
files=()
while [ $# -gt 0 ]; do
    case "$1" in
        --reps) reps="$2"; shift 2 ;;
        --min-lines) min_lines="$2"; shift 2 ;;
        --no-ptxas) ptxas=0; shift ;;
        --no-j1) j1=0; shift ;;
        -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) files+=("$1"); shift ;;
    esac
done
cd "$root"
cargo build --release --quiet -p ptx2llvm
bin="${CARGO_TARGET_DIR:-target}/release/ptx2llvm"
if [ ${#files[@]} -eq 0 ]; then
    corpus="${PTX2LLVM_CORPUS:-$root/../shared/corpus}"
    [ -d "$corpus" ] || { echo "no corpus at $corpus (set PTX2LLVM_CORPUS)" >&2; exit 1; }
    for f in "$corpus"/*.ptx; do files+=("$f"); done
fi
check="$root/../shared/tools/ptxas-check"
[ -x "$check" ] || ptxas=0
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# best N CMD...: the best wall time of N runs in seconds ("fail" when the command fails).
best() {
    local n="$1"; shift
    local b="" t s e
    for _ in $(seq "$n"); do
        s=$(date +%s.%N)
        if ! "$@" >/dev/null 2>"$out/err"; then echo fail; return; fi
        e=$(date +%s.%N)
        # awk (Debian's mawk is always there), not bc, which a fresh machine may lack.
        t=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.6f", e - s }')
        if [ -z "$b" ] || awk -v t="$t" -v b="$b" 'BEGIN { exit !(t < b) }'; then b="$t"; fi
    done
    printf '%.2f' "$b"
}

echo "cores: $(nproc); ptx2llvm -O0 and -O2 with -j $(nproc) (all cores) and -j 1; ptxas: ptxas-check (-O3, the file's sm_ target)"
printf '%-64s %7s %8s %8s %8s %8s\n' file lines O0 O2 O2-j1 ptxas
status=0
for f in "${files[@]}"; do
    lines=$(wc -l < "$f")
    [ "$lines" -ge "$min_lines" ] || continue
    name="$(basename "$f")"
    [ ${#name} -gt 64 ] && name="…${name: -63}"
    o0=$(best "$reps" "$bin" "$f" -O0 -o "$out/x.o")
    o2=$(best "$reps" "$bin" "$f" -O2 -o "$out/x.o")
    o2j1="-"
    [ "$j1" = 1 ] && o2j1=$(best "$reps" "$bin" "$f" -O2 -j 1 -o "$out/x.o")
    px="-"
    [ "$ptxas" = 1 ] && px=$(best "$reps" "$check" "$f")
    # ptxas rejecting a file is its verdict, not a benchmark failure.
    [ "$px" = fail ] && px="rejects"
    for v in "$o0" "$o2" "$o2j1"; do [ "$v" = fail ] && status=1; done
    printf '%-64s %7d %8s %8s %8s %8s\n' "$name" "$lines" "$o0" "$o2" "$o2j1" "$px"
done
exit $status
