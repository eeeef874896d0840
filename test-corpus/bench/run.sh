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
#
# Environment:
#   PROFILE=release|debug  cargo profile of every xir binary, on both sides (default
#                          release: xir-lit, and the xir-opt, xir-bisect, xir-reduce
#                          binaries that lit runs, are built the same way).
#   XIR_BIN_DIR=DIR        take every binary (xir-lit, xir-opt, xir-bisect, xir-reduce)
#                          from DIR instead of building them (e.g. an older build, for a
#                          before/after comparison).
#   BENCH_DIRS="a b"       only these corpus directories (default: all of them).
#
# The whole corpus tree is copied (Inputs/ folders and .xirx files included, so every
# test can pass); files that reach outside the corpus (`%S/..`) are left out. Both
# runners must pass every copied test: a failing run is reported and the script exits 1.
#
# xir-bisect and xir-reduce run as separate processes under both runners (xir-lit
# cannot link them: xir-tools depends on this crate). Their tests are reported on a
# line of their own when BENCH_DIRS is left at its default.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cd "$repo"
copies=${1:-20}
repeats=${2:-5}
jobs=${3:-2}
profile=${PROFILE:-release}
target=${CARGO_TARGET_DIR:-$repo/target}
case "$profile" in
  release) flag=--release ;;
  debug) flag= ;;
  *) echo "bench: PROFILE must be release or debug" >&2; exit 2 ;;
esac

command -v lit >/dev/null || { echo "bench: lit not found (pip install lit)" >&2; exit 1; }
command -v FileCheck-19 >/dev/null || [[ -x /usr/lib/llvm-19/bin/FileCheck ]] ||
  { echo "bench: FileCheck-19 not found (apt-get install llvm-19-tools)" >&2; exit 1; }
if [[ -n "${XIR_BIN_DIR:-}" ]]; then
  bin="$(cd "$XIR_BIN_DIR" && pwd)"
else
  cargo build -q $flag -p xir-driver --bin xir-opt -p xir-test-corpus --bin xir-lit \
    -p xir-tools --bin xir-bisect --bin xir-reduce
  bin="$target/$profile"
fi
ours_bin=$bin/xir-lit

bench="$target/bench-corpus"
rm -rf "$bench"
mkdir -p "$bench"
mapfile -t dirs < <(if [[ -n "${BENCH_DIRS:-}" ]]; then printf '%s\n' $BENCH_DIRS;
                    else ls test-corpus/corpus; fi)
for i in $(seq 1 "$copies"); do
  for d in "${dirs[@]}"; do
    mkdir -p "$bench/copy-$i"
    cp -r "test-corpus/corpus/$d" "$bench/copy-$i/$d"
  done
done
# Files that reach outside the corpus (`%S/..`) cannot be moved; leave them out.
grep -rl --include='*.xir' '%S/\.\.' "$bench" | xargs -r rm -f
n=$(find "$bench" -name '*.xir' -not -path '*/Inputs/*' | wc -l)
runs=$(grep -rh 'RUN:' "$bench" --include='*.xir' | wc -l)

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# run_ours DIR..., run_theirs DIR...: one timed run each; fail loudly if a test fails.
run_ours() {
  "$ours_bin" -j "$jobs" "$@" >"$target/bench-ours.log" ||
    { tail -20 "$target/bench-ours.log" >&2; echo "bench: xir-lit failed" >&2; exit 1; }
}
run_theirs() {
  XIR_CORPUS_ROOT="$bench" XIR_OPT="$bin/xir-opt" lit -q -j "$jobs" "$@" \
    >"$target/bench-lit.log" 2>&1 ||
    { tail -20 "$target/bench-lit.log" >&2; echo "bench: lit failed" >&2; exit 1; }
}
# time_both LABEL OUR-ARGS -- LIT-ARGS: alternate REPEATS times, print the medians.
time_both() {
  local label=$1 files=$2
  shift 2
  local ours_args=() lit_args=()
  while [[ $1 != -- ]]; do ours_args+=("$1"); shift; done
  shift
  lit_args=("$@")
  local ours=() theirs=()
  for _ in $(seq 1 "$repeats"); do
    local t0 t1 t2
    t0=$(now); run_ours "${ours_args[@]}"; t1=$(now)
    run_theirs "${lit_args[@]}"; t2=$(now)
    ours+=("$(echo "$t1 - $t0" | bc -l)")
    theirs+=("$(echo "$t2 - $t1" | bc -l)")
  done
  local mo mt
  mo=$(printf '%s\n' "${ours[@]}" | median)
  mt=$(printf '%s\n' "${theirs[@]}" | median)
  printf '%s (%d files):\n' "$label" "$files"
  printf '  %-44s %8.3f s  (%.2f ms per file)   runs: %s\n' "xir-lit (in-process, $profile)" "$mo" \
    "$(echo "$mo * 1000 / $files" | bc -l)" "${ours[*]}"
  printf '  %-44s %8.3f s  (%.2f ms per file)   runs: %s\n' "lit + FileCheck-19 + xir-opt ($profile)" \
    "$mt" "$(echo "$mt * 1000 / $files" | bc -l)" "${theirs[*]}"
  printf '  speed-up: %.1fx\n' "$(echo "$mt / $mo" | bc -l)"
}

printf 'corpus: %d files (%d copies), %d RUN lines; %d workers; median of %d runs\n' \
  "$n" "$copies" "$runs" "$jobs" "$repeats"
time_both "whole corpus" "$n" "$bench" -- "$repo/test-corpus"
if [[ -z "${BENCH_DIRS:-}" ]]; then
  # The same split, separately: tests whose time is xir-bisect / xir-reduce processes,
  # and all the others (lit selects them with --filter / --filter-out on test paths).
  mapfile -t ext < <(find "$bench" -mindepth 2 -maxdepth 2 -type d \( -name bisect -o -name reduce \))
  mapfile -t rest < <(find "$bench" -mindepth 2 -maxdepth 2 -type d -not -name bisect -not -name reduce)
  next=$(find "${ext[@]}" -name '*.xir' -not -path '*/Inputs/*' | wc -l)
  nrest=$(find "${rest[@]}" -name '*.xir' -not -path '*/Inputs/*' | wc -l)
  sel='/(bisect|reduce)/'
  time_both "without bisect/ and reduce/" "$nrest" "${rest[@]}" -- \
    --filter-out "$sel" "$repo/test-corpus"
  time_both "only bisect/ and reduce/ (xir-bisect, xir-reduce processes on both sides)" \
    "$next" "${ext[@]}" -- --filter "$sel" "$repo/test-corpus"
fi
