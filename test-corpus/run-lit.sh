#!/usr/bin/env bash
# Runs the xir corpus under LLVM's real lit with LLVM's FileCheck (see lit.cfg.py).
# Usage: test-corpus/run-lit.sh [lit options] [tests...]   (default: the whole corpus, -sv)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
cd "$repo"
command -v lit >/dev/null || { echo "run-lit.sh: lit not found (pip install lit)" >&2; exit 1; }
if [[ -z "${XIR_OPT:-}" ]]; then
  cargo build -q -p xir-driver --bin xir-opt
fi
if [[ $# -eq 0 ]]; then
  set -- -sv "$here"
elif [[ "${*: -1}" == -* ]]; then
  set -- "$@" "$here"
fi
exec lit "$@"
