#!/bin/sh
# Cache-simulation table for the `cfg_scaling` example: per shape and size, one
# `valgrind --tool=callgrind --cache-sim=yes` run; per measured function
# (`measured_restructure`, `measured_verify` = every verifier run of the row, three of
# them, `measured_destructure`): instructions executed (Ir), D1 misses (D1mr + D1mw) and
# last-level misses (DLmr + DLmw), each per block. Load-independent (simulated caches).
#
#   passes/examples/cfg_scaling_cache.sh ["SIZES"] ["SHAPES"] [DIR]
#     (default "1000 10000 100000", "DeepIfs WideSwitches ManyLoops", target/cfgcache)
#
# B=binary (default target/release/examples/cfg_scaling). The simulated caches are fixed
# (CACHES=…, default: this machine's L1d and L3, 32 KiB 8-way and 32 MiB 16-way, 64 B
# lines), not detected: valgrind 3.19 reads a 256 MiB direct-mapped LL from this VM's
# CPUID. Keeps the raw profiles as DIR/cg.SHAPE.SIZE.
set -eu
SIZES=${1:-"1000 10000 100000"}
SHAPES=${2:-"DeepIfs WideSwitches ManyLoops"}
DIR=${3:-target/cfgcache}
B=${B:-target/release/examples/cfg_scaling}
CACHES=${CACHES:-"--I1=32768,8,64 --D1=32768,8,64 --LL=33554432,16,64"}
mkdir -p "$DIR"
echo "| shape | blocks | function | Ir/block | D1 misses/block | LL misses/block |"
echo "|---|---|---|---|---|---|"
for s in $SHAPES; do
  for n in $SIZES; do
    # shellcheck disable=SC2086
    valgrind --tool=callgrind --cache-sim=yes $CACHES \
      --callgrind-out-file="$DIR/cg.$s.$n" "$B" "$n" "$s" >"$DIR/out.$s.$n" 2>"$DIR/err.$s.$n"
    blocks=$(sed -n "s/^| $s | \([0-9]*\) |.*/\1/p" "$DIR/out.$s.$n")
    callgrind_annotate --inclusive=yes --threshold=100 "$DIR/cg.$s.$n" >"$DIR/ann.$s.$n" 2>/dev/null
    # Event order of the profile: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw.
    for f in measured_restructure measured_verify measured_destructure; do
      grep "::$f \[" "$DIR/ann.$s.$n" | head -1 | sed 's/([^)]*)//g; s/ \. / 0 /g' | tr -d , | awk -v s="$s" -v b="$blocks" -v f="$f" \
        '{ printf "| %s | %d | `%s` | %.1f | %.2f | %.2f |\n", s, b, f, $1 / b, ($5 + $6) / b, ($8 + $9) / b }'
    done
  done
done
