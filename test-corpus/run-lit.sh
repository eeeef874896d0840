#!/usr/bin/env bash
# Runs the xir corpus under LLVM's real lit with LLVM's FileCheck (see lit.cfg.py).
#   test-corpus/run-lit.sh [lit options] [tests...]
# Without a test path (an existing directory or .xir file) the whole corpus runs; without
# any argument the options are -sv.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
cd "$repo"
command -v lit >/dev/null || { echo "run-lit.sh: lit not found (pip install lit)" >&2; exit 1; }
if [[ -z "${XIR_OPT:-}" ]]; then
  cargo build -q -p xir-driver --bin xir-opt --bin xir-to-spirv -p xir-tools --bin xir-bisect --bin xir-reduce --bin xir-run
fi
[[ $# -eq 0 ]] && set -- -sv
have_path=0
for a in "$@"; do
  if [[ "$a" != -* && ( -d "$a" || ( -f "$a" && "$a" == *.xir ) ) ]]; then have_path=1; fi
done
if [[ $have_path -eq 0 ]]; then
  # lit finds lit.cfg.py by searching upward from the path it is given.
  set -- "$@" "$here"
fi
exec lit "$@"
