//! Backend throughput on kernels already in the backend's dialect (issue 14, "codegen
//! alone"): `cargo run --release -p xir-codegen --example codegen_scaling -- [--iters K]
//! [--no-validate] FILE...`.
//!
//! Each FILE is an XIR module with one kernel that `spirv-final` has already produced
//! (`xir-opt --pipeline=spirv-final --pipeline-param optimize=false`). The module is
//! parsed once; then, K times (default 5) per file, files alternating, the example times
//! [`xir_codegen::emit_unvalidated`] (dialect check, plans, emission: XIR → SPIR-V words)
//! and, separately, [`xir_codegen::validate`] on those words (SPIRV-Tools, in process).
//! It prints the medians, ns per XIR instruction of the kernel's module, the SPIR-V size,
//! and the growth of emission's time per instruction from each file to the next.
//!
//! With `--iters 1 --no-validate` there is one emission per file and nothing else
//! measured: run it under
//! `valgrind --tool=callgrind --toggle-collect='*measured_emit*'` for instruction counts
//! that do not depend on the machine's load.

use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

#[inline(never)]
fn measured_emit(m: &xir_ir::Module, k: xir_ir::FuncId) -> Vec<u32> {
    match xir_codegen::emit_unvalidated(m, k, xir_codegen::Denorm::Any) {
        Ok((words, _)) => words,
        Err(e) => panic!("the backend rejected the kernel: {e:?}"),
    }
}

#[inline(never)]
fn measured_validate(words: &[u32]) {
    if let Err(e) = xir_codegen::validate(words) {
        panic!("the emitted SPIR-V failed validation: {e}");
    }
}

fn main() {
    let mut iters = 5usize;
    let mut validate = true;
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--iters" => iters = args.next().and_then(|s| s.parse().ok()).expect("--iters K"),
            "--no-validate" => validate = false,
            _ => files.push(a),
        }
    }
    assert!(
        !files.is_empty(),
        "usage: codegen_scaling [--iters K] [--no-validate] FILE..."
    );
    let modules: Vec<_> = files
        .iter()
        .map(|path| {
            let src = std::fs::read_to_string(path).expect("read input");
            let (m, _) = xir_ir::text::parse_module(&src)
                .unwrap_or_else(|d| panic!("{path} does not parse: {:?}", d.first()));
            let ks = xir_codegen::kernels(&m);
            assert_eq!(ks.len(), 1, "{path}: expected one kernel");
            let k = ks[0].0;
            (m, k)
        })
        .collect();
    let mut emit_t = vec![Vec::new(); files.len()];
    let mut val_t = vec![Vec::new(); files.len()];
    let mut words = vec![0usize; files.len()];
    for _ in 0..iters.max(1) {
        for (i, (m, k)) in modules.iter().enumerate() {
            let t = Instant::now();
            let w = measured_emit(m, *k);
            emit_t[i].push(t.elapsed().as_secs_f64());
            words[i] = w.len();
            if validate {
                let t = Instant::now();
                measured_validate(&w);
                val_t[i].push(t.elapsed().as_secs_f64());
            }
        }
    }
    let mut prev: Option<(f64, usize)> = None;
    for (i, (m, _)) in modules.iter().enumerate() {
        let n = m.inst_count();
        let e = median(emit_t[i].clone()) * 1e9 / n as f64;
        let growth = match prev {
            Some((pe, pn)) => {
                let per10 = (e / pe).powf(1.0 / ((n as f64 / pn as f64).log10()));
                format!(", x{per10:.2} per 10x")
            }
            None => String::new(),
        };
        prev = Some((e, n));
        let v = if validate {
            let v = median(val_t[i].clone());
            format!(
                "; validate {:.1} ms = {:.0} ns/instruction",
                v * 1e3,
                v * 1e9 / n as f64
            )
        } else {
            String::new()
        };
        println!(
            "{}: {n} instructions -> {} SPIR-V words; emit {:.1} ms = {e:.0} ns/instruction{growth}{v}",
            files[i],
            words[i],
            median(emit_t[i].clone()) * 1e3,
        );
    }
}
