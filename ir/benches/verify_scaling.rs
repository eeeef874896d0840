//! Verifier scaling on single large functions: time per instruction at 1k, 10k and 100k
//! blocks for shapes that used to be superlinear (long chains with far-back uses, chains
//! of `cond_br` diamonds with phis, one wide `switch` whose merge has a phi over every
//! case, deeply nested loops, and a loop whose body is a long run of switches each with
//! a `continue` — the canonical-target check's worst case).
//!
//! Run with `cargo bench -p xir-ir --bench verify_scaling [-- SIZES [SHAPE [RUNS]]]`
//! (default: sizes `1000,10000,100000` blocks, every shape, 5 samples). Every function
//! is verified with default options and with every option that the shape satisfies; the
//! figure is the median CPU time of the samples (each repeats the verification until
//! about 400k instructions have been verified) divided by the instruction count. A flat
//! ns/inst column across sizes means the verifier is linear (or n log n) in the
//! function's size. With RUNS given, each sample is one verification: use that under
//! `valgrind --tool=callgrind --toggle-collect='xir_ir::verify::verify_module*'` for
//! repeatable instruction counts.

mod common;
use common::cpu_time;
use std::fmt::Write as _;
use std::time::{Duration, Instant};
use xir_ir::verify::{VerifyOptions, verify_module};

const HEADER: &str = "module;\n\nconst %one: u32 = 1u32;\nconst %t: bool = true;\nconst %sel: u32 = 0u32;\n\nkernel %k () = define {\n";

/// `n` blocks in a line; each adds a value defined `i/2` blocks back (a dominance query
/// across half the chain).
fn chain(n: usize) -> String {
    let mut s = String::from(HEADER);
    s.push_str("%b0:\n    %v0: u32 = arithmetic binary_add %one, %one;\n    %j0: void = br %b1;\n");
    for i in 1..n {
        let _ = write!(
            s,
            "%b{i}:\n    %v{i}: u32 = arithmetic binary_add %v{}, %v{};\n    %j{i}: void = br %b{};\n",
            i - 1,
            i / 2,
            i + 1
        );
    }
    let _ = write!(s, "%b{n}:\n    %r: void = return;\n}};\n");
    s
}

/// `n/3` `cond_br` diamonds in a line, each joining with a phi.
fn diamonds(n: usize) -> String {
    let k = (n / 3).max(1);
    let mut s = String::from(HEADER);
    s.push_str("%h0:\n    %p0: u32 = arithmetic binary_add %one, %one;\n    %c0: void = cond_br %t, %x0, %y0;\n");
    for i in 0..k {
        let j = i + 1;
        let _ = write!(
            s,
            "%x{i}:\n    %a{i}: u32 = arithmetic binary_add %p{i}, %one;\n    %bx{i}: void = br %h{j};\n\
             %y{i}:\n    %by{i}: void = br %h{j};\n\
             %h{j}:\n    %p{j}: u32 = phi (%a{i}, %x{i}), (%p{i}, %y{i});\n"
        );
        if j < k {
            let _ = writeln!(s, "    %c{j}: void = cond_br %t, %x{j}, %y{j};");
        } else {
            s.push_str("    %r: void = return;\n");
        }
    }
    s.push_str("};\n");
    s
}

/// One `switch` with `n` cases; the merge has a phi with one incoming per case.
fn wide_switch(n: usize) -> String {
    let mut s = String::from(HEADER);
    s.push_str("%e:\n    %s: void = switch %sel");
    for i in 0..n {
        let _ = write!(s, ", case {i} %c{i}");
    }
    s.push_str(", default %d, merge %m;\n");
    for i in 0..n {
        let _ = write!(
            s,
            "%c{i}:\n    %v{i}: u32 = arithmetic binary_add %one, %one;\n    %q{i}: void = break %m;\n"
        );
    }
    s.push_str("%d:\n    %qd: void = break %m;\n%m:\n    %p: u32 = phi ");
    for i in 0..n {
        let _ = write!(s, "(%v{i}, %c{i}), ");
    }
    s.push_str("(%one, %d);\n    %r: void = return;\n};\n");
    s
}

/// `n/4` loops nested in one another; the innermost body and every merge continue the
/// enclosing loop.
fn nested_loops(n: usize) -> String {
    let d = (n / 4).max(1);
    let mut s = String::from(HEADER);
    s.push_str("%e:\n    %l0: void = loop prepare %p0, body %bd0, update %u0, merge %m0;\n");
    for i in 0..d {
        let _ = write!(
            s,
            "%p{i}:\n    %cp{i}: void = cond_br %t, %bd{i}, %m{i};\n%bd{i}:\n"
        );
        if i + 1 < d {
            let j = i + 1;
            let _ = writeln!(
                s,
                "    %l{j}: void = loop prepare %p{j}, body %bd{j}, update %u{j}, merge %m{j};"
            );
        } else {
            let _ = writeln!(s, "    %kb: void = continue %u{i};");
        }
        let _ = writeln!(s, "%u{i}:\n    %ju{i}: void = br %p{i};\n%m{i}:");
        if i == 0 {
            s.push_str("    %r: void = return;\n");
        } else {
            let _ = writeln!(s, "    %k{i}: void = continue %u{};", i - 1);
        }
    }
    s.push_str("};\n");
    s
}

/// One loop whose body is `n/3` switches in a line; each case continues the loop (the
/// nearest construct with a continue target is the loop, past every earlier switch).
fn switch_run(n: usize) -> String {
    let k = (n / 3).max(1);
    let mut s = String::from(HEADER);
    s.push_str(
        "%e:\n    %l: void = loop prepare %p, body %w0, update %u, merge %m;\n\
         %p:\n    %cp: void = cond_br %t, %w0, %m;\n",
    );
    for j in 0..k {
        let w = j + 1;
        let _ = write!(
            s,
            "%w{j}:\n    %s{j}: void = switch %sel, case 0 %c{j}, default %d{j}, merge %w{w};\n\
             %c{j}:\n    %kc{j}: void = continue %u;\n\
             %d{j}:\n    %bd{j}: void = break %w{w};\n"
        );
    }
    let _ = write!(
        s,
        "%w{k}:\n    %bl: void = break %m;\n%u:\n    %ju: void = br %p;\n%m:\n    %r: void = return;\n}};\n"
    );
    s
}

/// Median CPU time of one verification over `runs` samples; each sample repeats the
/// verification `reps` times so that it lasts well over the 10 ms tick of the CPU clock
/// (wall time is unreliable on a shared machine).
fn time(runs: usize, reps: usize, f: &mut dyn FnMut() -> usize) -> Duration {
    let mut v = Vec::new();
    for _ in 0..runs {
        let (c0, w0) = (cpu_time(), Instant::now());
        for _ in 0..reps {
            std::hint::black_box(f());
        }
        let (c, w) = (cpu_time() - c0, w0.elapsed());
        // Without /proc (CPU time stays zero), fall back to wall time.
        v.push(if c.is_zero() { w } else { c } / reps as u32);
    }
    v.sort();
    v[v.len() / 2]
}

/// A shape: its name, its generator (blocks -> text) and whether it satisfies
/// `require-canonical-break-continue-targets`.
type Shape = (&'static str, fn(usize) -> String, bool);

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let sizes: Vec<usize> = args
        .first()
        .map(|a| a.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 10_000, 100_000]);
    // Optional: one shape only, and a sample count (given: one verification per sample,
    // for instruction-count profiling under callgrind).
    let only = args.get(1).cloned();
    let runs_override: Option<usize> = args.get(2).and_then(|r| r.parse().ok());
    let mut most = VerifyOptions::all();
    most.require_no_phi = false;
    most.require_no_unstructured_control_flow = false;
    let shapes: [Shape; 5] = [
        ("chain", chain, true),
        ("diamonds", diamonds, true),
        ("wide-switch", wide_switch, false),
        ("nested-loops", nested_loops, true),
        ("switch-run", switch_run, true),
    ];
    println!(
        "{:<14} {:>8} {:>9} {:>12} {:>12}",
        "shape", "blocks", "insts", "default", "options"
    );
    for (name, gen_text, canonical) in shapes {
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        for &n in &sizes {
            let text = gen_text(n);
            let (m, sm) = match xir_ir::text::parse_module(&text) {
                Ok(x) => x,
                Err(d) => panic!("{name}({n}) does not parse: {:?}", d.first()),
            };
            let f = &m.functions[m.func_order[0]];
            let (blocks, insts) = (f.block_order.len(), f.inst_count());
            let mut opts = most;
            opts.require_canonical_break_continue_targets = canonical;
            for o in [&VerifyOptions::default(), &opts] {
                let d = verify_module(&m, o, Some(&sm));
                assert!(d.is_empty(), "{name}({n}): {:?}", d.first());
            }
            let runs = runs_override.unwrap_or(5);
            // About 400k instructions verified per sample (at least one run).
            let reps = if runs_override.is_some() {
                1
            } else {
                400_000usize.div_ceil(insts)
            };
            let per = |t: Duration| t.as_nanos() as f64 / insts as f64;
            let td = time(runs, reps, &mut || {
                verify_module(&m, &VerifyOptions::default(), Some(&sm)).len()
            });
            let to = time(runs, reps, &mut || {
                verify_module(&m, &opts, Some(&sm)).len()
            });
            println!(
                "{name:<14} {blocks:>8} {insts:>9} {:>9.1} ns {:>9.1} ns",
                per(td),
                per(to)
            );
        }
    }
}
