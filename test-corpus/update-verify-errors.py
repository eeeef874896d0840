#!/usr/bin/env python3
"""Regenerate the CHECK lines of test-corpus/corpus/verify-errors/*.xir.

Each file starts with a description comment, one RUN line (`not xir-opt [FLAGS] %s 2>&1 |
xir-filecheck %s`), one `// CHECK:` line per expected diagnostic headline and a final
`// CHECK-NOT: error:`. This script reruns xir-opt with the RUN line's flags and rewrites
the CHECK lines from the `file:line:col: error: message` headlines it prints, matching
arena ids (`func3`, `block7`, `inst12`, `arg0`) loosely. It iterates until the line
numbers are stable (the header's length moves the code).

    test-corpus/update-verify-errors.py [FILES...]   # default: every file
"""

import glob
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
OPT = os.environ.get("XIR_OPT", os.path.join(REPO, "target", "debug", "xir-opt"))


def split(text):
    lines = text.split("\n")
    k = 0
    while k < len(lines) and lines[k].startswith("//"):
        k += 1
    head, body = lines[:k], "\n".join(lines[k:]).lstrip("\n")
    desc = [l for l in head if not re.match(r"// (RUN|CHECK)", l)]
    run = next(l for l in head if l.startswith("// RUN:"))
    return desc, run, body


def render(name, desc, run, body, checks):
    loose = [re.sub(r"\b(func|block|inst|arg)[0-9]+", lambda m: m.group(1) + "{{[0-9]+}}", c) for c in checks]
    head = desc + [run] + [f"// CHECK: {{{{.*}}}}{name}:{c}" for c in loose] + ["// CHECK-NOT: error:", ""]
    return "\n".join(head) + "\n" + body


def update(path):
    name = os.path.basename(path)
    desc, run, body = split(open(path).read())
    flags = re.search(r"xir-opt (.*?)%s", run).group(1).split()
    checks = []
    for _ in range(5):
        open(path, "w").write(render(name, desc, run, body, checks))
        p = subprocess.run([OPT] + flags + [path], capture_output=True, text=True)
        new = [re.sub(r"^.*?\.xir:", "", l) for l in p.stderr.splitlines()
               if re.match(r".*\.xir:\d+:\d+: error: ", l)]
        if new == checks:
            return checks
        checks = new
    raise SystemExit(f"{path}: line numbers did not settle")


def main():
    files = sys.argv[1:] or sorted(glob.glob(os.path.join(HERE, "corpus", "verify-errors", "*.xir")))
    for f in files:
        checks = update(f)
        print(f"{os.path.basename(f)}: {len(checks)} diagnostic(s)")


if __name__ == "__main__":
    main()
