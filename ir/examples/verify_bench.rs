//! Verifier throughput on one text file (measuring aid):
//! `cargo run --release -p xir-ir --example verify_bench -- FILE [ITERS [default|all]]`.
//!
//! Parses FILE once, then verifies it ITERS times (default 5) with default options and
//! ITERS times with every option on, alternating (or only the named kind), and prints the
//! median wall time of each in ns per instruction. With ITERS = 1 it is a single
//! verification of each kind: use that under `valgrind --tool=callgrind --toggle-collect='xir_ir::verify::verify_module*'`
//! for repeatable instruction counts.

use std::time::Instant;
use xir_ir::verify::{VerifyOptions, verify_module};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: verify_bench FILE [ITERS]");
    let iters: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(5).max(1);
    let only = args.next();
    let src = std::fs::read_to_string(&path).expect("read input");
    let (m, sm) = match xir_ir::text::parse_module(&src) {
        Ok(x) => x,
        Err(d) => panic!("{path} does not parse: {:?}", d.first()),
    };
    let n = m.inst_count() as f64;
    let kinds = [
        ("default", VerifyOptions::default()),
        ("all", VerifyOptions::all()),
    ];
    let wanted = |k: usize| only.as_deref().is_none_or(|o| o == kinds[k].0);
    let mut times = [Vec::new(), Vec::new()];
    let mut errors = [0, 0];
    for _ in 0..iters {
        for (k, (_, opts)) in kinds.iter().enumerate() {
            if !wanted(k) {
                continue;
            }
            let t = Instant::now();
            errors[k] = verify_module(&m, opts, Some(&sm)).len();
            times[k].push(t.elapsed().as_secs_f64());
        }
    }
    for (k, (name, _)) in kinds.iter().enumerate() {
        if !wanted(k) {
            continue;
        }
        println!(
            "{path}: {n} instructions, verify ({name} options): {:.1} ns/instruction, {} diagnostics",
            median(times[k].clone()) * 1e9 / n,
            errors[k]
        );
    }
}
