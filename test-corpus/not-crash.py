#!/usr/bin/env python3
"""`not --crash CMD...` for lit, with the in-process runner's meaning of a crash.

lit hands `not --crash` to LLVM's `not`, which only accepts death by a signal. xir's
tools never die that way: `xir-opt` catches panics and exits with status 2 (internal
error), and xir's own runner counts exactly that as a crash. lit.cfg.py substitutes
`not --crash` with this script so both runners agree: success (0) iff CMD was killed by
a signal, or CMD is xir-opt and exited with status 2.
"""
import os
import subprocess
import sys

if len(sys.argv) < 2:
    sys.stderr.write("not-crash.py: missing command\n")
    sys.exit(2)
code = subprocess.call(sys.argv[1:])
crashed = code < 0 or (os.path.basename(sys.argv[1]) == "xir-opt" and code == 2)
sys.exit(0 if crashed else 1)
