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
    let mut emitted = 0;
    for p in &files {
        // Shown with the failure: the input that broke the property.
        eprintln!("replaying {}", p.display());
        emitted += codegen_generated::check(&std::fs::read(p).unwrap()).emitted;
    }
    assert!(emitted > 0, "no corpus input reached emission");
}
