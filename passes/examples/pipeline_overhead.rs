//! Framework overhead: the shipped `cleanup` pipeline run through the pipeline framework
//! (`--verify-each` off) versus the same passes called directly in the same fixed-point
//! loop ([`xir_passes::direct`]), on a generated module.
//!
//! ```sh
//! cargo build --release -p xir-passes --example pipeline_overhead
//! B=target/release/examples/pipeline_overhead
//! valgrind --tool=callgrind --toggle-collect='*measured_framework*' $B framework 100000
//! valgrind --tool=callgrind --toggle-collect='*measured_direct*'    $B direct    100000
//! ```
//!
//! Usage: `pipeline_overhead framework|direct|verify-each|both INSTRUCTIONS [REPEAT]`
//! (`verify-each` measures the framework with `--verify-each` on). `both` runs
//! each mode `REPEAT` times (default 5, alternating) and prints wall-clock medians; the
//! callgrind counts of the two `measured_*` functions are the precise comparison
//! (instructions, not seconds, so the shared machine's load does not matter). Every run
//! checks that both modes produce the same module.

#[path = "support/plain.rs"]
mod plain;

use plain::generate;
use std::hint::black_box;
use std::time::{Duration, Instant};
use xir_ir::Module;
use xir_passes::direct::DirectPass;
use xir_passes::pipeline::fingerprint::fingerprint;
use xir_passes::pipeline::{Loader, RunOptions, Runner};
use xir_passes::registry::Registry;

/// The `cleanup` pipeline's passes and budget, for the direct loop.
const CLEANUP: [DirectPass; 4] = [
    DirectPass::ConstFold,
    DirectPass::Dce,
    DirectPass::SimplifyCfg,
    DirectPass::PhiCleanup,
];
const CLEANUP_MAX: u32 = 8;

/// The framework: load the shipped pipeline, run it with `--verify-each` off.
#[inline(never)]
fn measured_framework(m: &mut Module) -> bool {
    framework(m, false)
}

/// The framework with `--verify-each` (verifier + fingerprints around every pass), for
/// the cost of checking.
#[inline(never)]
fn measured_verify_each(m: &mut Module) -> bool {
    framework(m, true)
}

struct Verify;

impl xir_passes::pipeline::Verifier for Verify {
    fn verify(&self, m: &Module, flags: &[String]) -> Result<(), String> {
        let opts = xir_ir::verify::VerifyOptions::parse_list(&flags.join(","))
            .map_err(|e| e.to_string())?;
        let d = xir_ir::verify::verify_module(m, &opts, None);
        if d.is_empty() {
            Ok(())
        } else {
            Err(format!("{d:?}"))
        }
    }
}

fn framework(m: &mut Module, verify_each: bool) -> bool {
    let registry = Registry::new(false);
    let p = Loader::new(&registry)
        .load("cleanup")
        .expect("cleanup loads");
    let mut log = Vec::new();
    let opts = RunOptions {
        verify_each,
        ..RunOptions::default()
    };
    let r = Runner::new(opts, &mut log)
        .with_verifier(&Verify)
        .run(&p, m);
    assert!(r.failure.is_none(), "{:?}", r.failure);
    r.stats.records[0].converged
}

/// The same passes, called directly in the same fixed-point loop.
#[inline(never)]
fn measured_direct(m: &mut Module) -> bool {
    let mut cx = xir_passes::PassContext::default();
    for _ in 0..CLEANUP_MAX {
        let mut changed = false;
        for p in CLEANUP {
            changed |= p.run(m, &mut cx).expect("pass runs").changed.any();
        }
        if !changed {
            return true;
        }
    }
    false
}

fn run(mode: &str, insts: usize) -> (Duration, u64) {
    let mut m = generate(insts);
    let start = Instant::now();
    let converged = match mode {
        "framework" => black_box(measured_framework(black_box(&mut m))),
        "direct" => black_box(measured_direct(black_box(&mut m))),
        "verify-each" => black_box(measured_verify_each(black_box(&mut m))),
        other => panic!("unknown mode '{other}' (framework, direct or both)"),
    };
    let t = start.elapsed();
    assert!(converged);
    (t, fingerprint(&m))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = args.first().map_or("both", String::as_str);
    let insts: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let repeat: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    let sample = generate(insts);
    let problems = xir_ir::verify::verify_module(&sample, &Default::default(), None);
    assert!(
        problems.is_empty(),
        "generated module is invalid: {problems:?}"
    );
    let size = sample.inst_count();
    drop(sample);
    if mode != "both" {
        let (t, fp) = run(mode, insts);
        println!(
            "{mode}: {size} instructions, {:.3} ms, result {fp:016x}",
            t.as_secs_f64() * 1e3
        );
        return;
    }
    let (mut fw, mut direct) = (Vec::new(), Vec::new());
    for _ in 0..repeat {
        let (a, fa) = run("framework", insts);
        let (b, fb) = run("direct", insts);
        assert_eq!(fa, fb, "framework and direct runs disagree");
        fw.push(a);
        direct.push(b);
    }
    let (f, d) = (median(fw), median(direct));
    println!(
        "{size} instructions: framework {:.3} ms, direct {:.3} ms, overhead {:+.2}% (medians of {repeat})",
        f.as_secs_f64() * 1e3,
        d.as_secs_f64() * 1e3,
        100.0 * (f.as_secs_f64() / d.as_secs_f64() - 1.0)
    );
}
