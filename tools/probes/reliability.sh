#!/bin/bash
# Re-runs the fault probes of docs/reliability.md against built binaries.
#   tools/probes/reliability.sh [BINDIR]      (default: target/debug)
# Prints one line per probe: PASS/FAIL, the probe, and what was observed. Exit status 1
# if any probe failed. Needs python3; the full-filesystem probe needs root (a tmpfs).
set -u
BIN=$(cd "${1:-target/debug}" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
W=$(mktemp -d)
trap 'umount "$W/small" 2>/dev/null; rm -rf "$W"' EXIT
cp "$ROOT/examples/saxpy.xir" "$W/in.xir"
fails=0
report() { # STATUS PROBE DETAIL
  printf '%s\t%s\t%s\n' "$1" "$2" "$3"
  [ "$1" = PASS ] || [ "$1" = SKIP ] || fails=$((fails + 1))
}
# A run is clean when it exits 0 or 1 and prints no panic or internal error.
clean() { local rc=$1 err=$2; [ "$rc" -le 1 ] && ! grep -qE 'panicked|internal error' "$err"; }

# 1. Every prefix of the examples (byte by byte).
n=0; bad=0
for ex in "$ROOT"/examples/*.xir; do
  size=$(stat -c %s "$ex")
  for ((k = 0; k <= size; k++)); do
    head -c "$k" "$ex" > "$W/p.xir"
    "$BIN/xir-opt" "$W/p.xir" > /dev/null 2> "$W/err"; rc=$?
    n=$((n + 1)); clean $rc "$W/err" || bad=$((bad + 1))
  done
done
[ $bad -eq 0 ] && report PASS "every prefix of examples/*.xir" "$n runs, all exit 0/1" || report FAIL "every prefix" "$bad of $n runs crashed"

# 2. Random mutations (seeded): byte flips, deletions, duplications of saxpy.xir.
python3 - "$W" <<'PY'
import random, sys, os
w = sys.argv[1]; src = open(os.path.join(w, "in.xir"), "rb").read()
r = random.Random(15)
for i in range(300):
    b = bytearray(src)
    for _ in range(r.randint(1, 8)):
        p = r.randrange(len(b)); op = r.randrange(3)
        if op == 0: b[p] = r.randrange(256)
        elif op == 1: del b[p:p + r.randint(1, 20)]
        else: b[p:p] = b[p:p + r.randint(1, 40)]
    open(os.path.join(w, f"m{i}.xir"), "wb").write(bytes(b))
PY
bad=0
for ((i = 0; i < 300; i++)); do
  "$BIN/xir-opt" "$W/m$i.xir" --passes=dce > /dev/null 2> "$W/err"; rc=$?
  clean $rc "$W/err" || bad=$((bad + 1))
done
[ $bad -eq 0 ] && report PASS "300 random mutations (seed 15), --passes=dce" "all exit 0/1" || report FAIL "random mutations" "$bad crashed"

# 3. 100,000-deep nesting (simple_loop), parsed, verified and printed.
python3 - "$W/deep.xir" 100000 <<'PY'
import sys
n = int(sys.argv[2]); o = open(sys.argv[1], "w")
o.write("module;\n\nkernel %0 (\n    %c: u32;\n) = define %e: {\n")
for d in range(1, n + 1): o.write(f"%l{d}: void = simple_loop body %b{d}: {{\n")
o.write(f"%t: void = break %m{n};\n")
for d in range(n, 0, -1):
    o.write(f"}}, merge %m{d}: {{\n")
    o.write("%r: void = return;\n" if d == 1 else f"%t{d}: void = break %m{d-1};\n")
    o.write("};\n")
o.write("};\n")
PY
"$BIN/xir-opt" "$W/deep.xir" > "$W/deep.out" 2> "$W/err"; rc=$?
if clean $rc "$W/err"; then report PASS "100,000-deep simple_loop" "exit $rc, $(stat -c %s "$W/deep.out") bytes printed; $(head -1 "$W/err")"; else report FAIL "100,000-deep nesting" "exit $rc"; fi

# 4. Pipeline cycles: a.xpl uses b.xpl uses a.xpl.
printf 'use b\n' > "$W/a.xpl"; printf 'use a\n' > "$W/b.xpl"
"$BIN/xir-opt" "$W/in.xir" --pipeline="$W/a.xpl" > /dev/null 2> "$W/err"; rc=$?
if [ $rc -eq 1 ] && grep -qi cycl "$W/err"; then report PASS "pipeline cycle (a.xpl uses b.xpl uses a.xpl)" "exit 1: $(grep -i -m1 cycl "$W/err")"; else report FAIL "pipeline cycle" "exit $rc"; fi

# 5. Two writers to one -o: the result is one whole output, no temporary file left.
"$BIN/xir-opt" "$W/in.xir" -o "$W/two.xir" & "$BIN/xir-opt" "$W/in.xir" --emit=xir-flat -o "$W/two.xir" & wait
a=$("$BIN/xir-opt" "$W/in.xir"); b=$("$BIN/xir-opt" "$W/in.xir" --emit=xir-flat); got=$(cat "$W/two.xir")
left=$(ls -a "$W" | grep -c '\.tmp$')
if { [ "$got" = "$a" ] || [ "$got" = "$b" ]; } && [ "$left" -eq 0 ]; then report PASS "two writers to one -o" "one whole output, no .tmp left"; else report FAIL "two writers" "mixed output or $left .tmp files"; fi

# 6. Full filesystem: a 64 KiB tmpfs, output larger than that.
mkdir -p "$W/small"
if mount -t tmpfs -o size=64k tmpfs "$W/small" 2>/dev/null; then
  python3 -c "
import sys
for k in range(3000): sys.stdout.write(f'kernel %f{k} () = define %b{k}: {{\n    %r{k}: void = return;\n}};\n\n')
" | sed '1i module;' > "$W/big.xir"
  "$BIN/xir-opt" "$W/big.xir" -o "$W/small/out.xir" 2> "$W/err"; rc=$?
  left=$(ls -A "$W/small" | wc -l)
  if [ $rc -eq 1 ] && grep -q "No space left on device" "$W/err" && [ "$left" -eq 0 ]; then report PASS "full filesystem (-o on a 64 KiB tmpfs)" "exit 1: $(head -1 "$W/err"); nothing left"; else report FAIL "full filesystem" "exit $rc, $left files left"; fi
  "$BIN/xir-opt" "$W/big.xir" > "$W/small/out2.xir" 2> "$W/err"; rc=$?
  if [ $rc -eq 1 ] && grep -q "cannot write to standard output: No space left" "$W/err"; then report PASS "full filesystem (stdout redirected onto it)" "exit 1: $(head -1 "$W/err")"; else report FAIL "full filesystem stdout" "exit $rc"; fi
  umount "$W/small"
else
  report SKIP "full filesystem" "cannot mount a tmpfs (not root?)"
fi

# 7. /dev/full as standard output, for every tool.
for t in "xir-opt $W/in.xir" "xir-opt $W/in.xir --emit=bitcode" "xir-opt $W/in.xir --emit=interchange" "xir-opt $W/in.xir --split-input-file" "xir-lit $ROOT/test-corpus/corpus/print/simple-loop.xir" "xir-bisect --help" "xir-reduce --help" "xir-filecheck --help"; do
  set -- $t; tool=$1; shift
  "$BIN/$tool" "$@" > /dev/full 2> "$W/err"; rc=$?
  if [ $rc -eq 1 ] && grep -q "^$tool: error: cannot write to standard output: No space left on device" "$W/err"; then report PASS "$tool ${*##*/} > /dev/full" "exit 1, cause named"; else report FAIL "$tool $* > /dev/full" "exit $rc: $(head -c 200 "$W/err")"; fi
done

# 8. Endless input: /dev/zero as a file and as standard input (limit lowered for speed).
XIR_MAX_INPUT_BYTES=1000000 "$BIN/xir-opt" /dev/zero 2> "$W/err"; rc=$?
[ $rc -eq 1 ] && grep -q "too large" "$W/err" && report PASS "xir-opt /dev/zero (XIR_MAX_INPUT_BYTES=1000000)" "exit 1: $(head -1 "$W/err")" || report FAIL "xir-opt /dev/zero" "exit $rc"
XIR_MAX_INPUT_BYTES=1000000 "$BIN/xir-opt" < /dev/zero 2> "$W/err"; rc=$?
[ $rc -eq 1 ] && grep -q "too large" "$W/err" && report PASS "xir-opt < /dev/zero" "exit 1: $(head -1 "$W/err")" || report FAIL "xir-opt < /dev/zero" "exit $rc"
XIR_MAX_INPUT_BYTES=1000000 "$BIN/xir-filecheck" "$W/in.xir" < /dev/zero 2> "$W/err"; rc=$?
[ $rc -ne 0 ] && grep -q "too large" "$W/err" && report PASS "xir-filecheck < /dev/zero" "exit $rc: $(head -1 "$W/err")" || report FAIL "xir-filecheck < /dev/zero" "exit $rc: $(head -c 200 "$W/err")"

# 9. -o naming a symlink, a FIFO, a hard link and a 0600 file.
printf old > "$W/real.xir"; chmod 600 "$W/real.xir"; ln -s real.xir "$W/link.xir"; ln "$W/real.xir" "$W/hard.xir"
"$BIN/xir-opt" "$W/in.xir" -o "$W/link.xir"
[ -L "$W/link.xir" ] && [ "$(stat -c %a "$W/real.xir")" = 600 ] && [ "$(stat -c %h "$W/real.xir")" = 2 ] && grep -q kernel "$W/hard.xir" \
  && report PASS "-o through a symlink to a 0600 file with a second hard link" "link kept, mode 600, both links see the output" || report FAIL "-o symlink/hardlink/mode" "$(ls -l "$W" | grep -E 'link|real|hard' | tr '\n' ' ')"
mkfifo "$W/fifo"; (cat "$W/fifo" > "$W/fifo.out" &) ; "$BIN/xir-opt" "$W/in.xir" -o "$W/fifo"; sleep 0.2
[ -p "$W/fifo" ] && grep -q kernel "$W/fifo.out" && report PASS "-o a FIFO" "written through, still a FIFO" || report FAIL "-o FIFO" "replaced or empty"

exit $((fails > 0))
