#!/usr/bin/env python3
"""The backend and pipeline benchmark (issues 14, 13 and 12): see docs/codegen.md.

    cargo build --release -p xir-driver --bin xir-opt -p xir-codegen --example codegen_scaling
    cargo build -p xir-tools --bin xir-gen-large            # any profile; release is taken first
    codegen/examples/spirv_bench.py [--runs 5] [--sizes 10000,100000,1000000]
                                    [--e2e-sizes 10000,100000] [--only SECTION,...]

Sections (all by default):
  codegen    codegen alone on kernels already in the dialect (the codegen_scaling example):
             emission per XIR instruction at each size and its growth per 10x; validation
             (in-process SPIRV-Tools) apart.
  pipeline   `xir-opt --pipeline=spirv-final --pipeline-param optimize=false` (to XIR,
             verify after every pass) at each size: time per instruction, and from
             --pass-stats=json the structural passes' counters and times.
  e2e        at each e2e size, alternating: `xir-opt ... --emit=spirv` (pipeline + backend +
             validation), Debian's `spirv-opt -O` on the SPIR-V it produced, and
             `glslangValidator -V` on the same kernel written in GLSL; ratios of medians; the
             size of our SPIR-V (--opt=none) against spirv-opt -O's output of it.
  semantics  a pipeline run with and without --check-semantics on a few kernels.

Inputs come from the pinned generator `xir-gen-large --vulkan-kernel N` (XIR and GLSL) and
are written under target/spirvbench/. Wall-clock figures are medians of --runs runs, the
tools alternating within each round; every line gives the load average, so quote them with
it. Ratios are only ever taken between runs of the same round set.
"""
import argparse, json, os, shutil, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "target", "spirvbench")


def binary(name, example=False):
    for prof in ("release", "debug"):
        p = os.path.join(ROOT, "target", prof, "examples" if example else "", name)
        if os.path.exists(p):
            return p, prof
    sys.exit(f"spirv_bench: {name} is not built (see the module docstring)")


def load():
    return "load %.1f" % os.getloadavg()[0]


def run(cmd, check=True, **kw):
    t = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
    dt = time.perf_counter() - t
    if r.returncode != 0 and check:
        sys.exit(f"spirv_bench: {' '.join(cmd)} failed ({r.returncode}):\n{r.stderr.decode()[-2000:]}")
    return dt, r


def med(xs):
    return statistics.median(xs)


def gen(n):
    xir, comp = os.path.join(OUT, f"k{n}.xir"), os.path.join(OUT, f"k{n}.comp")
    if not os.path.exists(xir) or not os.path.exists(comp):
        run([binary("xir-gen-large")[0], "--vulkan-kernel", str(n), xir, comp])
    return xir, comp


def final(n, xir_opt):
    """The kernel after spirv-final (optimize=false), as XIR, and its instruction count."""
    src, _ = gen(n)
    dst = os.path.join(OUT, f"k{n}.final.xir")
    if not os.path.exists(dst):
        run([xir_opt, src, "--pipeline=spirv-final", "--pipeline-param", "optimize=false", "-o", dst])
    return dst


PIPE = ["--pipeline=spirv-final", "--pipeline-param", "optimize=false"]


def walk(records, acc):
    for r in records:
        acc.append(r)
        walk(r.get("children", []), acc)
    return acc


def section_pipeline(a, xir_opt):
    print(f"## spirv-final (optimize=false) scaling  [{load()}]")
    for n in a.sizes:
        src, _ = gen(n)
        times, stats = [], None
        for _ in range(a.runs):
            dt, r = run([xir_opt, src] + PIPE + ["--pass-stats=json", "-o", os.devnull])
            times.append(dt)
            stats = json.loads(r.stderr.decode().strip().splitlines()[-1])
        insts = count_insts(src)
        recs = walk(stats["records"], [])
        by = {}
        for r in recs:
            if r["invocations"] > 0:
                by.setdefault(r["name"], []).append(r)

        def rep(name, key):
            return sum(r["report"].get(key, 0) for r in by.get(name, []))

        def ms(name):
            return sum(r["elapsed_ms"] for r in by.get(name, []))

        t = med(times)
        print(f"{n}: {insts} XIR instructions; xir-opt process {t * 1e3:.0f} ms = {t * 1e9 / insts:.0f} ns/instruction; "
              f"pipeline {stats['total_ms']:.0f} ms; succeeded={stats['succeeded']}; "
              f"destructure-cfg if/loop {rep('destructure-cfg', 'destructured_if')}/{rep('destructure-cfg', 'destructured_loop')} "
              f"({ms('destructure-cfg'):.0f} ms); restructure-cfg if/loop {rep('restructure-cfg', 'restructured_if')}/"
              f"{rep('restructure-cfg', 'restructured_loop')} iteration_limit {rep('restructure-cfg', 'iteration_limit')} "
              f"({ms('restructure-cfg'):.0f} ms)  [{load()}]")
        top = sorted(((ms(k), k) for k in by if by[k][0]["kind"] == "pass" or k == "verify"), reverse=True)[:6]
        print("    slowest: " + ", ".join(f"{k} {v:.0f} ms" for v, k in top))


def count_insts(xir):
    # One instruction per `%N: T = ...` line of the generator's output (nested form).
    with open(xir) as f:
        return sum(1 for line in f if line.lstrip().startswith("%") and " = " in line and not line.startswith("const"))


def section_codegen(a, xir_opt):
    print(f"## codegen alone (emit_unvalidated; validation apart)  [{load()}]")
    ex, prof = binary("codegen_scaling", example=True)
    files = [final(n, xir_opt) for n in a.sizes]
    _, r = run([ex, "--iters", str(a.runs)] + files)
    print(r.stdout.decode().rstrip() + f"  [{load()}] ({prof})")


def section_e2e(a, xir_opt):
    print(f"## end to end: xir-opt spirv-final --emit=spirv vs spirv-opt -O vs glslangValidator -V  [{load()}]")
    spirv_opt, glslang = shutil.which("spirv-opt"), shutil.which("glslangValidator")
    if not spirv_opt or not glslang:
        sys.exit("spirv_bench: needs spirv-opt (spirv-tools) and glslangValidator (glslang-tools)")
    for n in a.e2e_sizes:
        src, comp = gen(n)
        ours, opt, gl = (os.path.join(OUT, f"k{n}.{s}.spv") for s in ("ours", "opt", "glsl"))
        cmds = {
            "xir-opt": [xir_opt, src] + PIPE + ["--emit=spirv", "-o", ours],
            "spirv-opt -O": [spirv_opt, "-O", ours, "-o", opt],
            "glslangValidator -V": [glslang, "-V", comp, "-o", gl],
        }
        run(cmds["xir-opt"])  # spirv-opt needs its input
        times = {k: [] for k in cmds}
        l0 = os.getloadavg()[0]
        for _ in range(a.runs):
            for k, c in cmds.items():
                times[k].append(run(c)[0])
        l1 = os.getloadavg()[0]
        m = {k: med(v) for k, v in times.items()}
        sz = {k: os.path.getsize(p) for k, p in (("ours", ours), ("opt", opt), ("glsl", gl))}
        print(f"{n}: xir-opt {m['xir-opt'] * 1e3:.0f} ms, spirv-opt -O {m['spirv-opt -O'] * 1e3:.0f} ms "
              f"(ratio {m['xir-opt'] / m['spirv-opt -O']:.3f}), glslangValidator -V {m['glslangValidator -V'] * 1e3:.0f} ms "
              f"(ratio {m['xir-opt'] / m['glslangValidator -V']:.2f}); SPIR-V bytes ours {sz['ours']}, after spirv-opt -O "
              f"{sz['opt']} (ours/opt {sz['ours'] / sz['opt']:.3f}), glslang {sz['glsl']}  [load {l0:.1f} -> {l1:.1f}]")


def section_semantics(a, xir_opt):
    print(f"## --check-semantics cost (pipeline spirv-final optimize=false)  [{load()}]")
    kernels = [os.path.join(ROOT, "test-corpus", "corpus", "exec", k) for k in a.semantic_kernels]
    for k in kernels:
        base = [xir_opt, k] + PIPE + ["-o", os.devnull]
        _, r = run(base + ["--check-semantics"], check=False)
        if r.returncode != 0:
            print(f"{os.path.basename(k)}: skipped: {r.stderr.decode().strip().splitlines()[-1]}")
            continue
        t = {"plain": [], "checked": []}
        l0 = os.getloadavg()[0]
        for _ in range(a.runs):
            t["plain"].append(run(base)[0])
            dt, r = run(base + ["--check-semantics"])
            t["checked"].append(dt)
        line = [l for l in r.stderr.decode().splitlines() if "runs defined" in l]
        p, c = med(t["plain"]), med(t["checked"])
        print(f"{os.path.basename(k)}: {p * 1e3:.1f} ms -> {c * 1e3:.1f} ms with --check-semantics "
              f"(ratio {c / p:.1f}; {line[0].strip() if line else '?'})  [load {l0:.1f} -> {os.getloadavg()[0]:.1f}]")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--sizes", default="10000,100000,1000000")
    p.add_argument("--e2e-sizes", default="10000,100000")
    p.add_argument("--only", default="codegen,pipeline,e2e,semantics")
    p.add_argument("--semantic-kernels",
                   default="saxpy.xir,if-else-nested.xir,loop-break-continue.xir,callables-nested.xir,"
                           "shared-reduction-sum.xir,matmul-f32-loop.xir,switch-state-machine.xir")
    a = p.parse_args()
    a.sizes = [int(x) for x in a.sizes.split(",")]
    a.e2e_sizes = [int(x) for x in a.e2e_sizes.split(",")]
    a.semantic_kernels = a.semantic_kernels.split(",")
    os.makedirs(OUT, exist_ok=True)
    xir_opt, prof = binary("xir-opt")
    print(f"# spirv_bench {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} CPUs, "
          f"{prof} build, {a.runs} runs per figure (median)")
    sections = {"codegen": section_codegen, "pipeline": section_pipeline, "e2e": section_e2e,
                "semantics": section_semantics}
    for s in a.only.split(","):
        sections[s](a, xir_opt)


if __name__ == "__main__":
    main()
