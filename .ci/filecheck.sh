#!/usr/bin/env bash
# Installs LLVM's real FileCheck (FileCheck-19, Debian package llvm-19-tools) for the
# xir-filecheck differential test (tools/filecheck/tests/differential.rs). Idempotent.
# Works when executed or sourced; when sourced it also exports LLVM_FILECHECK and
# XIR_REQUIRE_LLVM=1 so the differential test fails instead of skipping.
# Run the tests with XIR_REQUIRE_LLVM=1 in CI: `XIR_REQUIRE_LLVM=1 cargo test -p xir-filecheck`.
if ! command -v FileCheck-19 >/dev/null 2>&1 && [ ! -x /usr/lib/llvm-19/bin/FileCheck ]; then
  apt-get update -qq || true
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq llvm-19-tools >/dev/null ||
    { echo "error: could not install llvm-19-tools" >&2; return 1 2>/dev/null || exit 1; }
fi
LLVM_FILECHECK="$(command -v FileCheck-19 || echo /usr/lib/llvm-19/bin/FileCheck)"
export LLVM_FILECHECK XIR_REQUIRE_LLVM=1
echo "LLVM FileCheck: $LLVM_FILECHECK ($("$LLVM_FILECHECK" --version | grep -m1 -i version | xargs))"
