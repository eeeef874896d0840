#!/usr/bin/env python3
"""Runs the Vulkan execution corpus (test-corpus/corpus/exec-vulkan/) one file at a time
with a given xir-run binary and extra flags, without lit: for machines that have a
Vulkan driver but no Rust toolchain or lit (docs/codegen.md, "Real GPU").

    python3 test-corpus/run-vulkan-corpus.py --xir-run PATH [--corpus DIR] [-- FLAGS...]

FLAGS are added to every `xir-run` RUN line (e.g. `--device=gpu --show-device`).
RUN lines that pipe into FileCheck use `--filecheck PATH` (xir-filecheck works).
Files without `REQUIRES: vulkan` (the backend's refusals) are skipped. Prints one line
per file (PASS, FAIL, or UNSUPPORTED for xir-run's exit status 5: the device cannot run
the kernel, e.g. another subgroup size) and a closing 'N passed, N failed, N skipped'
line; exit 1 on any failure.
"""

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--xir-run", required=True)
    ap.add_argument("--corpus", default=os.path.join(HERE, "corpus"))
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--filecheck", default="FileCheck",
                    help="FileCheck for RUN lines that pipe into it (xir-filecheck or LLVM's)")
    ap.add_argument("flags", nargs="*")
    args = ap.parse_args()
    vdir = os.path.join(args.corpus, "exec-vulkan")
    passed = failed = skipped = 0
    tmp = tempfile.mkdtemp(prefix="xir-vk-")
    for name in sorted(os.listdir(vdir)):
        text = open(os.path.join(vdir, name)).read()
        if "REQUIRES: vulkan" not in text:
            continue
        t = os.path.join(tmp, name + ".out")
        ok, unsupported, log = True, False, []
        for line in re.findall(r"^// RUN: (.*)$", text, re.M):
            line = line.replace("%S", vdir).replace("%t", t)
            line = line.replace("%s", os.path.join(vdir, name))
            words = shlex.split(line)
            if words[0] == "xir-run":
                words = [args.xir_run] + words[1:] + args.flags
            if "|" in words:
                # A pipeline (`cat %t | FileCheck %s`): through the shell, with FileCheck
                # replaced by the one given.
                words = [args.filecheck if w == "FileCheck" else w for w in words]
                words = ["bash", "-o", "pipefail", "-c", " ".join(
                    w if w == "|" else shlex.quote(w) for w in words)]
            try:
                p = subprocess.run(words, capture_output=True, text=True, timeout=args.timeout)
            except subprocess.TimeoutExpired:
                ok = False
                log.append("timed out")
                break
            log.append(p.stderr.strip())
            if p.returncode == 5:
                unsupported = True
                log.append(p.stdout.strip())
                break
            if p.returncode != 0:
                ok = False
                log.append(f"exit {p.returncode}: {' '.join(words)}\n{p.stdout[-2000:]}")
                break
        if unsupported:
            skipped += 1
            status = "UNSUPPORTED"
        elif ok:
            passed += 1
            status = "PASS"
        else:
            failed += 1
            status = "FAIL"
        detail = " | ".join(x for x in log if x)
        print(f"{status} {name} {detail}", flush=True)
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
