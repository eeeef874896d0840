#!/usr/bin/env python3
"""Checks that the in-process runner and LLVM's lit gave every corpus test the same
result code.

Inputs: target/corpus-timings.txt (written by `cargo test -p xir-test-corpus`: micros,
result, name per line) and a lit JSON report (`lit -o FILE`).
Usage: compare-runners.py [TIMINGS] [LIT_JSON]
"""
import json
import os
import sys

repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
target = os.environ.get("CARGO_TARGET_DIR", os.path.join(repo, "target"))
timings = sys.argv[1] if len(sys.argv) > 1 else os.path.join(target, "corpus-timings.txt")
lit_json = sys.argv[2] if len(sys.argv) > 2 else os.path.join(target, "lit-results.json")

ours = {}
with open(timings) as f:
    for line in f:
        if line.startswith("#") or not line.strip():
            continue
        _, code, name = line.rstrip("\n").split("\t", 2)
        ours[name] = code

with open(lit_json) as f:
    theirs = {t["name"].split(" :: ", 1)[1]: t["code"] for t in json.load(f)["tests"]}

bad = []
for name in sorted(set(ours) | set(theirs)):
    a, b = ours.get(name, "(not run)"), theirs.get(name, "(not run)")
    if a != b:
        bad.append(f"  {name}: xir runner {a}, lit {b}")
if bad:
    print("runners disagree:\n" + "\n".join(bad))
    sys.exit(1)
print(f"runners agree on all {len(theirs)} corpus tests")
