//! The long run of the pass property (`xir_tools::pass_semantics`):
//!
//! ```text
//! cargo run --release -p xir-tools --example pass_semantics -- [COUNT [START [INPUTS]]]
//! ```
//!
//! generates COUNT kernels (seeds START..START+COUNT, default 20,000 from 0), runs every
//! implemented pass in its pipeline context and every runnable shipped pipeline on each,
//! interprets the results on INPUTS generated inputs (default 2), and prints the
//! per-subject table and every mismatch. Exit status 1 when a result changed or a
//! subject changed no kernel.

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("COUNT START INPUTS are numbers"))
        .collect();
    let count = args.first().copied().unwrap_or(20_000);
    let start = args.get(1).copied().unwrap_or(0);
    let inputs = args.get(2).copied().unwrap_or(2) as u32;
    let t = std::time::Instant::now();
    let cfg = xir_testgen::ExecConfig::default();
    let report = xir_tools::pass_semantics::run(start..start + count, inputs, &cfg);
    print!("{}", report.table());
    let problems = report.problems();
    for p in &problems {
        println!("PROBLEM {p}");
    }
    let untested = report.untested();
    if !untested.is_empty() {
        println!("UNTESTED (changed no kernel): {}", untested.join(", "));
    }
    println!("{:.1} s", t.elapsed().as_secs_f64());
    if !problems.is_empty() || !untested.is_empty() {
        std::process::exit(1);
    }
}
