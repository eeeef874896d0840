#!/bin/sh
# Scaling of the call-graph passes: a module of N one-instruction callables, each called
# once from a kernel in a chain (`%v(i+1) = call %ci, %vi`), timed through xir-opt for
# inline, inline-all, promote-ref-arg, dead-arg-elim and the spirv-final and
# pre-autodiff pipelines (process time, one run each; docs/passes-perf.md).
#
#   passes/examples/calls_scaling.sh ["SIZES"] [XIR_OPT]
#     (default "500 5000", target/release/xir-opt)
set -eu
SIZES=${1:-"500 5000"}
OPT=${2:-target/release/xir-opt}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
for n in $SIZES; do
  f="$DIR/calls$n.xir"
  {
    printf 'module;\n\nconst %%one: u32 = 1u32;\n\n'
    i=0
    while [ "$i" -lt "$n" ]; do
      printf 'callable %%c%d: u32 (\n    %%x: u32;\n) = define %%e%d: {\n    %%y: u32 = arithmetic binary_add %%x, %%one;\n    %%r: void = return %%y;\n};\n\n' "$i" "$i"
      i=$((i + 1))
    done
    printf 'kernel %%k (\n    %%out: buffer<u32>;\n) = define %%b: {\n    %%v0: u32 = arithmetic binary_add %%one, %%one;\n'
    i=0
    while [ "$i" -lt "$n" ]; do
      printf '    %%v%d: u32 = call %%c%d, %%v%d;\n' "$((i + 1))" "$i" "$i"
      i=$((i + 1))
    done
    printf '    %%w: void = resource_write buffer_write %%out, %%one, %%v%d;\n    %%ret: void = return;\n};\n' "$n"
  } >"$f"
  for p in inline inline-all promote-ref-arg dead-arg-elim; do
    /usr/bin/time -f "$n callables, --passes=$p: %e s" "$OPT" "$f" --passes=$p -o /dev/null
  done
  for p in spirv-final pre-autodiff; do
    /usr/bin/time -f "$n callables, --pipeline=$p: %e s" "$OPT" "$f" --pipeline=$p -o /dev/null
  done
done
