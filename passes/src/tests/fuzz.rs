//! Randomised robustness tests: seeded random verifier-clean functions (plain CFG with
//! loops, unreachable blocks, constant branches, indexed branches, structured `if`
//! diamonds, phis, allocas, loads and stores, arithmetic on dominating values) are run
//! through every pass and through pass pairs. After every run the module must verify;
//! a run that reports "unchanged" must leave the module structurally identical, one that
//! reports an instruction-only change must leave its control-flow fingerprint alone; a second
//! run of an idempotent pass must report no change. The same properties are checked on
//! `xir_testgen::generate_module` modules (every instruction kind and construct); the
//! plain-CFG functions come from the same crate (`generate_plain_cfg_module`). More seeds:
//! `XIR_FUZZ_SEEDS=4000 XIR_TESTGEN_SEEDS=600 cargo test -p xir-passes --lib fuzz`.

use super::*;
use crate::Changed;
use crate::direct::DirectPass;
use crate::pipeline::fingerprint::cfg_fingerprint;
use xir_testgen::{generate_plain_cfg_module as random_module, structural_diff};

fn run_pass(m: &mut Module, pass: &dyn Pass, what: &str, seed: u64) -> bool {
    let before = m.clone();
    let r = pass
        .run(m, &mut PassContext::default())
        .unwrap_or_else(|e| panic!("seed {seed}: {what} failed: {e}"));
    let diags = xir_ir::verify::verify_module(m, &xir_ir::verify::VerifyOptions::default(), None);
    assert!(
        diags.is_empty(),
        "seed {seed}: {what} broke the module: {diags:#?}"
    );
    if !r.changed.any()
        && let Some(d) = structural_diff(&before, m)
    {
        panic!("seed {seed}: {what} reported no change but changed: {d}");
    }
    assert!(
        r.changed != Changed::Instructions || cfg_fingerprint(&before) == cfg_fingerprint(m),
        "seed {seed}: {what} reported an instruction-only change but changed the CFG"
    );
    r.changed.any()
}

/// The transforming passes, built through the registry (indices are used below).
fn passes() -> Vec<(&'static str, Box<dyn Pass>)> {
    use DirectPass::*;
    let registry = crate::registry::Registry::new(false);
    [
        Dce,
        ConstFold,
        Mem2Reg,
        Reg2Mem,
        PhiCleanup,
        SimplifyCfg,
        AlgebraicSimplify,
        DivRemPairs,
        Reassociate,
        SimplifyLibcalls,
    ]
    .into_iter()
    .map(|p| {
        let info = registry.get(p.name()).expect("registered");
        let pass = (info.create)(&Default::default()).expect("default options");
        (p.name(), pass)
    })
    .collect()
}

#[test]
fn random_modules_stay_valid_and_passes_are_idempotent() {
    let all = passes();
    let seeds: u64 = std::env::var("XIR_FUZZ_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    for seed in 0..seeds {
        let m0 = random_module(seed);
        let diags =
            xir_ir::verify::verify_module(&m0, &xir_ir::verify::VerifyOptions::default(), None);
        assert!(
            diags.is_empty(),
            "seed {seed}: generator produced invalid IR: {diags:#?}"
        );
        for (name, p) in &all {
            let mut m = m0.clone();
            run_pass(&mut m, p.as_ref(), name, seed);
            let again = run_pass(&mut m, p.as_ref(), name, seed);
            assert!(!again, "seed {seed}: {name} is not idempotent");
        }
        // Pairs and a longer pipeline.
        for (a, b) in [(3, 2), (2, 4), (1, 0), (5, 0), (3, 5), (2, 5)] {
            let mut m = m0.clone();
            run_pass(&mut m, all[a].1.as_ref(), all[a].0, seed);
            run_pass(&mut m, all[b].1.as_ref(), all[b].0, seed);
        }
        let mut m = m0.clone();
        for k in [3, 2, 4, 1, 0, 5, 3, 2, 0] {
            run_pass(&mut m, all[k].1.as_ref(), all[k].0, seed);
        }
        // reg2mem then mem2reg consumes every spill marker it can reach.
        let mut m = m0.clone();
        run_pass(&mut m, all[3].1.as_ref(), all[3].0, seed);
        run_pass(&mut m, all[2].1.as_ref(), all[2].0, seed);
        let left = crate::transform::audit_reg2mem_spills::audit(&m);
        assert_eq!(left.invalid, 0, "seed {seed}");
    }
}

#[test]
#[ignore]
fn debug_seed() {
    let seed: u64 = std::env::var("SEED").unwrap().parse().unwrap();
    let pass = std::env::var("PASS").unwrap();
    let all = passes();
    let p = &all.iter().find(|(n, _)| *n == pass).unwrap().1;
    let mut m = random_module(seed);
    let pr = |m: &Module| xir_ir::text::print::print_module(m, &Default::default());
    eprintln!("=== input\n{}", pr(&m));
    let r = p.run(&mut m, &mut PassContext::default()).unwrap();
    eprintln!("=== after 1 {:?}\n{}", r.report, pr(&m));
    let r = p.run(&mut m, &mut PassContext::default()).unwrap();
    eprintln!("=== after 2 {:?}\n{}", r.report, pr(&m));
}

/// The shared generator (`ir::testgen`): every instruction kind, structured construct,
/// metadata kind and coroutine feature, in verifier-clean modules.
#[test]
fn testgen_modules_stay_valid_and_passes_are_idempotent() {
    let all = passes();
    let seeds: u64 = std::env::var("XIR_TESTGEN_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30);
    let cfg = xir_testgen::GenConfig::default();
    for seed in 0..seeds {
        let m0 = xir_testgen::generate_module(seed, &cfg);
        for (name, p) in &all {
            let mut m = m0.clone();
            run_pass(&mut m, p.as_ref(), name, seed);
            let again = run_pass(&mut m, p.as_ref(), name, seed);
            assert!(!again, "testgen seed {seed}: {name} is not idempotent");
        }
        let mut m = m0.clone();
        for k in [3, 2, 4, 1, 0, 5, 3, 2, 0] {
            run_pass(&mut m, all[k].1.as_ref(), all[k].0, seed);
        }
    }
}
