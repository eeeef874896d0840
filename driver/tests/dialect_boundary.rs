//! The dialect boundary as a property (issue 13/14): over generated kernels, every
//! module the backend's dialect check (`xir_codegen::check_dialect`, the structured form
//! of `xir_ir::analysis::form` included) accepts compiles and passes the in-process
//! SPIR-V validator (Vulkan 1.2), for each of: the generated module as it is (structured
//! constructs with early returns, `break`/`continue`), the same after
//! `early-return-elimination` (whose output must stay in structured form), and after
//! `spirv-final` (`optimize=false`). A module the check rejects is not compiled. Seeds
//! 0..N with N from `XIR_BOUNDARY_KERNELS` (default 40); the long run (≥ 2,000 kernels)
//! is documented in docs/codegen.md.

use xir_codegen::OptLevel;
use xir_passes::pass::PassContext;
use xir_passes::registry::{PassOptions, Registry};
use xir_testgen::{ExecConfig, GenConfig, generate_exec_kernel, generate_module};

#[derive(Default, Debug)]
struct Counts {
    accepted: u64,
    /// First diagnostic of each rejected module, by message.
    reasons: std::collections::BTreeMap<String, u64>,
    rejected: u64,
    /// Modules a pass changed before the check.
    changed: u64,
    kernels_validated: u64,
    pipeline_failed: u64,
}

fn boundary(label: &str, seed: u64, m: &xir_ir::Module, n: &mut Counts) {
    if let Err(e) = xir_codegen::check_dialect(m) {
        n.rejected += 1;
        let why = e.first().map_or(String::new(), |d| d.message.clone());
        *n.reasons.entry(why).or_default() += 1;
        return;
    }
    n.accepted += 1;
    for (k, name) in xir_codegen::kernels(m) {
        match xir_codegen::compile_kernel(m, k, &OptLevel::None.into()) {
            Ok(c) => {
                if let Err(e) = xir_codegen::validate(&c.words) {
                    panic!(
                        "{label} seed {seed}, kernel {name}: accepted by the dialect check but invalid SPIR-V: {e}"
                    );
                }
                n.kernels_validated += 1;
            }
            Err(e) => {
                let text: Vec<String> = e
                    .to_diagnostics(m, None)
                    .into_iter()
                    .map(|d| d.message)
                    .collect();
                panic!(
                    "{label} seed {seed}, kernel {name}: accepted by the dialect check but not compiled ({:?}): {}",
                    e.kind,
                    text.join(" | ")
                );
            }
        }
    }
}

#[test]
fn every_module_the_dialect_check_accepts_compiles_and_validates() {
    let count: u64 = std::env::var("XIR_BOUNDARY_KERNELS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(40);
    let registry = Registry::new(false);
    let ere = registry
        .get("early-return-elimination")
        .expect("registered");
    let mut raw = Counts::default();
    let mut after_ere = Counts::default();
    let mut after_final = Counts::default();
    let mut general = Counts::default();
    for seed in 0..count {
        let m = generate_exec_kernel(seed, &ExecConfig::default()).module;
        boundary("generated", seed, &m, &mut raw);
        let mut e = m.clone();
        let pass = Registry::instantiate(ere, &PassOptions::default()).expect("no options");
        let run = pass
            .run(&mut e, &mut PassContext::default())
            .expect("early-return-elimination runs");
        assert!(run.refusal.is_none() || !run.changed.any());
        if run.changed.any() {
            after_ere.changed += 1;
        }
        boundary("early-return-elimination", seed, &e, &mut after_ere);
        let mut f = m.clone();
        match xir_driver::pipeline::run_spirv_final(&mut f, false) {
            Ok(()) => boundary("spirv-final", seed, &f, &mut after_final),
            Err(_) => after_final.pipeline_failed += 1,
        }
        if seed % 4 == 0 {
            let g = generate_module(seed, &GenConfig::default());
            boundary("general module", seed, &g, &mut general);
        }
    }
    println!("generated: {raw:?}");
    println!("after early-return-elimination: {after_ere:?}");
    println!("after spirv-final: {after_final:?}");
    println!("general modules: {general:?}");
    // The property is only meaningful if the boundary is crossed both ways.
    assert!(raw.accepted > 0 && after_ere.accepted > 0 && after_final.accepted > 0);
    assert!(raw.rejected + general.rejected > 0);
}
