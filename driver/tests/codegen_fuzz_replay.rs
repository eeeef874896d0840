//! Replays the committed corpus of the backend's fuzz target
//! (`ir/fuzz/corpus/codegen_generated`, and crash artifacts under
//! `ir/fuzz/artifacts/codegen_generated`) through the property the target checks: every
//! kernel of a generated module either compiles to SPIR-V the validator accepts, twice
//! identically, or is rejected as a user error with diagnostics.

#[path = "fuzz_checks/codegen_generated.rs"]
mod codegen_generated;

use std::path::{Path, PathBuf};

#[test]
fn codegen_generated_corpus() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ir/fuzz");
    let mut files: Vec<PathBuf> = ["corpus", "artifacts"]
        .iter()
        .filter_map(|d| std::fs::read_dir(fuzz.join(d).join("codegen_generated")).ok())
        .flat_map(|rd| rd.flatten().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(files.len() >= 8, "only {} corpus inputs", files.len());
    let (mut emitted, mut preserved) = (0, 0);
    for p in &files {
        // Shown with the failure: the input that broke the property.
        eprintln!("replaying {}", p.display());
        let c = codegen_generated::check(&std::fs::read(p).unwrap());
        emitted += c.emitted;
        preserved += c.denorm_preserved;
    }
    assert!(emitted > 0, "no corpus input reached emission");
    assert!(preserved > 0, "no corpus input emitted DenormPreserve");
}

/// A deterministic sweep over the target's input space (seeds × every flag byte), printing
/// how far the inputs got: `cargo test -p xir-driver --test codegen_fuzz_replay -- --ignored
/// --nocapture` (`XIR_SWEEP_SEEDS`, default 16).
#[test]
#[ignore]
fn codegen_generated_sweep() {
    let seeds: u64 = std::env::var("XIR_SWEEP_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(16);
    let mut t = codegen_generated::Counts::default();
    let mut inputs = 0;
    for seed in 0..seeds {
        for flags in 0..64u8 {
            let mut data = vec![flags];
            data.extend_from_slice(&seed.to_le_bytes());
            data.push((seed as u8).wrapping_mul(37));
            let c = codegen_generated::check(&data);
            inputs += 1;
            t.pipeline_failed += c.pipeline_failed;
            t.kernels += c.kernels;
            t.dialect_rejected += c.dialect_rejected;
            t.other_rejected += c.other_rejected;
            t.emitted += c.emitted;
            t.denorm_preserved += c.denorm_preserved;
        }
    }
    println!("inputs {inputs}: {t:?}");
}
