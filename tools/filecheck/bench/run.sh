#!/usr/bin/env bash
# Benchmark: xir-filecheck (release) vs LLVM FileCheck-19 on the shared 20 MB input with
# 1,000 CHECK directives (regex + variable definitions). Median of 3 runs each, same run.
# Usage: tools/filecheck/bench/run.sh [OUTDIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
out="${1:-$(mktemp -d)}"
gen="${XIR_SHARED:-$root/../shared}/bench/filecheck-big.py"
[ -f "$gen" ] || gen=/work/shared/bench/filecheck-big.py
mkdir -p "$out"
python3 "$gen" "$out"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
cargo build -q --release -p xir-filecheck
xir="$CARGO_TARGET_DIR/release/xir-filecheck"
llvm="${LLVM_FILECHECK:-$(command -v FileCheck-19 || echo /usr/lib/llvm-19/bin/FileCheck)}"
chk="$out/fc-big-check.txt"; inp="$out/fc-big-input.txt"
"$xir" "$chk" --input-file "$inp"   # must pass
"$llvm" "$chk" --input-file "$inp"
if command -v hyperfine >/dev/null; then
  hyperfine -N --runs 3 --warmup 1 --export-json "$out/bench.json" \
    -n xir-filecheck "$xir $chk --input-file $inp" \
    -n FileCheck-19 "$llvm $chk --input-file $inp"
  python3 - "$out/bench.json" <<'PY'
import json, sys
r = {x["command"]: x["median"] for x in json.load(open(sys.argv[1]))["results"]}
x, l = r["xir-filecheck"], r["FileCheck-19"]
print(f"median of 3: xir-filecheck {x:.3f} s, FileCheck-19 {l:.3f} s, ratio {x / l:.2f}x")
PY
else
  for name in xir "$llvm"; do
    bin="$name"; [ "$name" = xir ] && bin="$xir"
    ts=()
    for _ in 1 2 3; do
      s=$(date +%s.%N); "$bin" "$chk" --input-file "$inp"; e=$(date +%s.%N)
      ts+=("$(echo "$e - $s" | bc)")
    done
    printf '%s median: %s s\n' "$(basename "$bin")" "$(printf '%s\n' "${ts[@]}" | sort -n | sed -n 2p)"
  done
fi
