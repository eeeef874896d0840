#!/usr/bin/env bash
# Times the corpus under the in-process runner (xir-lit: RUN lines, xir-opt and
# xir-filecheck all in one process) against LLVM's lit + LLVM FileCheck (one process
# per command), in the same run, on the same files.
#
#   test-corpus/bench/run.sh [COPIES] [REPEATS] [JOBS]
#
# The corpus is replicated COPIES times (default 20) under target/bench-corpus so the
# per-file cost dominates start-up; each runner runs REPEATS times (default 5),
# alternating, and the median wall time is reported. Both use JOBS workers (default 2).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cd "$repo"
copies=${1:-20}
repeats=${2:-5}
jobs=${3:-2}
target=${CARGO_TARGET_DIR:-$repo/target}

command -v lit >/dev/null || { echo "bench: lit not found (pip install lit)" >&2; exit 1; }
cargo build -q -p xir-driver --bin xir-opt
cargo build -q -p xir-test-corpus --bin xir-lit

bench="$target/bench-corpus"
rm -rf "$bench"
mkdir -p "$bench"
# Files that reach outside the corpus (`%S/..`) cannot be moved; leave them out.
mapfile -t files < <(cd test-corpus/corpus && grep -rL '%S/\.\.' --include='*.xir' .)
for i in $(seq 1 "$copies"); do
  for f in "${files[@]}"; do
    mkdir -p "$bench/copy-$i/$(dirname "$f")"
    cp "test-corpus/corpus/$f" "$bench/copy-$i/$f"
  done
done
n=$(find "$bench" -name '*.xir' | wc -l)
runs=$(grep -rh 'RUN:' "$bench" --include='*.xir' | wc -l)

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ours=() theirs=()
for r in $(seq 1 "$repeats"); do
  t0=$(now)
  # A failing test costs the same in both runners; the timing still counts.
  "$target/debug/xir-lit" -j "$jobs" "$bench" >/dev/null || true
  t1=$(now)
  XIR_CORPUS_ROOT="$bench" lit -q -j "$jobs" test-corpus >/dev/null || true
  t2=$(now)
  ours+=("$(echo "$t1 - $t0" | bc -l)")
  theirs+=("$(echo "$t2 - $t1" | bc -l)")
done
mo=$(printf '%s\n' "${ours[@]}" | median)
mt=$(printf '%s\n' "${theirs[@]}" | median)
printf 'corpus: %d files (%d copies), %d RUN lines; %d workers; median of %d runs\n' \
  "$n" "$copies" "$runs" "$jobs" "$repeats"
printf '  %-42s %8.3f s  (%.2f ms per file)\n' "xir-lit (in-process, debug build)" "$mo" \
  "$(echo "$mo * 1000 / $n" | bc -l)"
printf '  %-42s %8.3f s  (%.2f ms per file)\n' "lit + FileCheck-19 + xir-opt (processes)" "$mt" \
  "$(echo "$mt * 1000 / $n" | bc -l)"
printf '  speed-up: %.1fx\n' "$(echo "$mt / $mo" | bc -l)"
