#!/bin/sh
# Reference for `cfg_scaling`: LLVM's `structurizecfg` and `simplifycfg` on the same
# generated CFGs (`cfg_scaling --ll DIR`, one call where XIR prints; `structurizecfg`
# gets them after `lowerswitch`, which it needs, run beforehand). Per shape, size and
# pass: callgrind with the cache simulation, collecting only inside the pass's `run`
# (the analyses it asks for included, parsing excluded): Ir, D1 and LL misses per block,
# for sizes up to CG_MAX blocks (default 10000: `structurizecfg` is quadratic, 72 s of
# CPU at 100k DeepIfs, hours under valgrind); then the pass's CPU time per block from
# `-time-passes` (user + system, the totals of its pass and analysis reports), best of
# REPS runs.
#
#   passes/examples/cfg_scaling_llvm.sh ["SIZES"] ["SHAPES"] [DIR]
#     (default "1000 10000 100000", "DeepIfs WideSwitches ManyLoops", target/cfgcache)
#
# OPT=opt binary (default opt-14, the one Debian 12 installs here); REPS (default 5);
# B and CACHES as in cfg_scaling_cache.sh.
set -eu
SIZES=${1:-"1000 10000 100000"}
SHAPES=${2:-"DeepIfs WideSwitches ManyLoops"}
DIR=${3:-target/cfgcache}
B=${B:-target/release/examples/cfg_scaling}
OPT=${OPT:-opt-14}
REPS=${REPS:-5}
CG_MAX=${CG_MAX:-10000}
CACHES=${CACHES:-"--I1=32768,8,64 --D1=32768,8,64 --LL=33554432,16,64"}
mkdir -p "$DIR"
# shellcheck disable=SC2086
"$B" --ll "$DIR" $SIZES $SHAPES >/dev/null
echo "| shape | blocks | LLVM pass | Ir/block | D1 misses/block | LL misses/block | CPU ns/block (best of $REPS) |"
echo "|---|---|---|---|---|---|---|"
for s in $SHAPES; do
  for n in $SIZES; do
    ll=$DIR/$s-$n.ll
    blocks=$(grep -c '^b[0-9]*:$' "$ll")
    "$OPT" -passes=lowerswitch -S "$ll" -o "$DIR/$s-$n.ls.ll"
    for p in structurizecfg simplifycfg; do
      case $p in
        structurizecfg) in=$DIR/$s-$n.ls.ll; sym='*StructurizeCFGPass::run*' ;;
        *) in=$ll; sym='*SimplifyCFGPass::run*' ;;
      esac
      cg=$DIR/cg.llvm.$p.$s.$n
      rm -f "$cg"
      # shellcheck disable=SC2086
      [ "$n" -gt "$CG_MAX" ] || valgrind --tool=callgrind --cache-sim=yes $CACHES --toggle-collect="$sym" \
        --callgrind-out-file="$cg" "$OPT" -passes="$p" -disable-output "$in" 2>/dev/null
      best=""
      r=0
      while [ "$r" -lt "$REPS" ]; do
        # User+System column of the Total of both reports (passes, analyses).
        t=$("$OPT" -passes="$p" -disable-output -time-passes "$in" 2>&1 |
          awk '/ Total$/ { t += $(NF - 4) } END { print t }')
        best=$(awk -v a="$t" -v b="$best" 'BEGIN { if (b == "" || a + 0 < b + 0) print a; else print b }')
        r=$((r + 1))
      done
      # Event order: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw.
      { [ -f "$cg" ] && sed -n 's/^summary: //p' "$cg" || echo "- - - - - - - - -"; } | awk -v s="$s" -v n="$blocks" -v p="$p" -v t="$best" \
        '$1 == "-" { printf "| %s | %d | `%s` | – | – | – | %.0f |\n", s, n, p, t * 1e9 / n; next }
         { printf "| %s | %d | `%s` | %.1f | %.2f | %.2f | %.0f |\n", s, n, p, $1 / n, ($5 + $6) / n, ($8 + $9) / n, t * 1e9 / n }'
    done
  done
done
