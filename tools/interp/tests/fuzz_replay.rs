//! Replays the committed corpora of the interpreter's fuzz targets
//! (`ir/fuzz/corpus/run_spec`, `ir/fuzz/corpus/interp_generated`, and any crash
//! artifacts under `ir/fuzz/artifacts/` for them) through the same properties the
//! targets check, so every input the fuzzer kept stays a regression test in a plain
//! `cargo test`.

#[path = "fuzz_checks/interp_generated.rs"]
mod interp_generated;
#[path = "fuzz_checks/run_spec.rs"]
mod run_spec;

use std::path::{Path, PathBuf};

fn inputs(target: &str) -> Vec<PathBuf> {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ir/fuzz");
    let mut v: Vec<PathBuf> = ["corpus", "artifacts"]
        .iter()
        .filter_map(|d| std::fs::read_dir(fuzz.join(d).join(target)).ok())
        .flat_map(|rd| rd.flatten().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    v.sort();
    v
}

fn replay(target: &str, min: usize, check: fn(&[u8])) {
    let files = inputs(target);
    assert!(
        files.len() >= min,
        "{target}: only {} corpus inputs",
        files.len()
    );
    for p in &files {
        // Shown with the failure: the input that broke the property.
        eprintln!("replaying {}", p.display());
        check(&std::fs::read(p).unwrap());
    }
}

#[test]
fn run_spec_corpus() {
    replay("run_spec", 80, run_spec::check);
}

#[test]
fn interp_generated_corpus() {
    replay("interp_generated", 8, interp_generated::check);
}
