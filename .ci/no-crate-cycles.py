#!/usr/bin/env python3
"""Fails when the workspace crates depend on each other in a cycle, counting normal,
build and dev dependencies (cargo allows a dev-dependency cycle; this project does not:
issue 11). Reads `cargo metadata` from standard input."""
import json
import sys

meta = json.load(sys.stdin)
members = {p["id"]: p["name"] for p in meta["packages"] if p["id"] in meta["workspace_members"]}
by_name = {name: pid for pid, name in members.items()}
edges = {name: sorted({d["name"] for d in p["dependencies"] if d["name"] in by_name})
         for p in meta["packages"] if p["id"] in members for name in [p["name"]]}

state = {}  # name -> 1 on the stack, 2 done


def visit(n, path):
    state[n] = 1
    for m in edges[n]:
        if state.get(m) == 1:
            cycle = path[path.index(m):] + [n, m] if m in path else path + [n, m]
            sys.exit("crate dependency cycle (dev-dependencies included): " + " -> ".join(cycle))
        if m not in state:
            visit(m, path + [n])
    state[n] = 2


for n in sorted(edges):
    if n not in state:
        visit(n, [])
print(f"no crate dependency cycle among {len(edges)} workspace crates (dev-dependencies included)")
