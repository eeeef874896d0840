#!/bin/sh
# Callgrind table for the `pass_scaling` example: instructions executed inside each
# `measured_pass_NAME` function (one run of one pass; parsing and input preparation are
# outside, so not counted) per IR instruction the pass saw, for every pass and size,
# plus the ratio largest/smallest size. One callgrind run per size (`one all SIZE`).
#
#   passes/examples/pass_scaling.sh ["SIZES"] [DIR]   (default "10000 100000 1000000")
#
# Needs `cargo build --release -p xir-passes --example pass_scaling` (or B=binary) and
# the inputs `DIR/gen-large-SIZE.xir` written by `xir-gen-large SIZE` (DIR:
# target/passbench). Keeps the raw profiles and outputs as DIR/cg.SIZE and DIR/out.SIZE.
set -eu
SIZES=${1:-"10000 100000 1000000"}
DIR=${2:-target/passbench}
B=${B:-target/release/examples/pass_scaling}
PASSES="dce const-fold mem2reg reg2mem audit-reg2mem-spills phi-cleanup simplify-cfg"
for n in $SIZES; do
  valgrind --tool=callgrind --callgrind-out-file="$DIR/cg.$n" \
    --toggle-collect='*measured_pass_*' "$B" one all "$n" "$DIR" >"$DIR/out.$n" 2>"$DIR/err.$n"
  callgrind_annotate --inclusive=yes --threshold=100 "$DIR/cg.$n" >"$DIR/ann.$n"
done
printf '| Pass |'
for n in $SIZES; do printf ' Ir/inst %s |' "$n"; done
printf ' ratio |\n|---|'
for n in $SIZES; do printf -- '---|'; done
printf -- '---|\n'
for p in $PASSES; do
  f=measured_pass_$(printf '%s' "$p" | tr - _)
  printf '| `%s` |' "$p"
  first=""; last=""
  for n in $SIZES; do
    ir=$(grep "::$f \[" "$DIR/ann.$n" | head -1 | awk '{ gsub(",", "", $1); print $1 }')
    insts=$(sed -n "s/^$p on .*\]: \([0-9]*\) instructions.*/\1/p" "$DIR/out.$n")
    v=$(awk -v a="$ir" -v b="$insts" 'BEGIN { printf "%.1f", a / b }')
    printf ' %s |' "$v"
    [ -z "$first" ] && first=$v
    last=$v
  done
  awk -v a="$last" -v b="$first" 'BEGIN { printf " %.3f |\n", a / b }'
done
