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
    // The inputs are independent: replay them on every core (446 inputs are ~27 CPU-s
    // in a debug build).
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunk = files.len().div_ceil(threads).max(1);
    let totals: Vec<(u64, u64)> = std::thread::scope(|s| {
        let handles: Vec<_> = files
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    let (mut emitted, mut preserved) = (0, 0);
                    for p in part {
                        let data = std::fs::read(p).unwrap();
                        let c = std::panic::catch_unwind(|| codegen_generated::check(&data))
                            .unwrap_or_else(|e| {
                                let msg = e
                                    .downcast_ref::<String>()
                                    .cloned()
                                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                                    .unwrap_or_default();
                                panic!("{}: {msg}", p.display())
                            });
                        emitted += c.emitted;
                        preserved += c.denorm_preserved;
                    }
                    (emitted, preserved)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let emitted: u64 = totals.iter().map(|t| t.0).sum();
    let preserved: u64 = totals.iter().map(|t| t.1).sum();
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
