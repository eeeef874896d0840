//! Replays the committed corpus of the structure-aware round-trip fuzz target
//! (`ir/fuzz/corpus/roundtrip_structured/*`, see
//! `ir/fuzz/fuzz_targets/roundtrip_structured.rs`) through the same check, so every input
//! the fuzzer kept stays green in a plain `cargo test`.

mod rt_common;

use rt_common::check::{roundtrip_structured, structured_bytes, structured_case};
use std::path::Path;
use xir_testgen::GenConfig;

fn corpus_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ir/fuzz/corpus/roundtrip_structured")
}

#[test]
fn committed_fuzz_corpus_round_trips() {
    let mut entries: Vec<_> = std::fs::read_dir(corpus_dir())
        .expect("the fuzz corpus directory")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    entries.sort();
    assert!(entries.len() >= 16, "only {} corpus inputs", entries.len());
    let mut failures = Vec::new();
    let mut forms = std::collections::BTreeSet::new();
    for p in &entries {
        let data = std::fs::read(p).unwrap();
        forms.insert(format!("{:?}", structured_case(&data).2));
        if let Err(e) = roundtrip_structured(&data) {
            failures.push(format!("{}: {e}", p.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert_eq!(
        forms.len(),
        8,
        "the corpus must reach every print form: {forms:?}"
    );
}

/// The first crash the fuzzer found: `generate_module` overflowed (`seed * 3`) for seeds
/// above `usize::MAX / 3`.
#[test]
fn huge_seeds_generate_and_round_trip() {
    for form in 0..8 {
        let cfg = GenConfig {
            max_depth: 2,
            max_stmts: 3,
            max_callables: 1,
            recipes_per_module: 8,
        };
        for seed in [u64::MAX, u64::MAX / 3 + 1, 0x3031_676f_6c00_03ee] {
            roundtrip_structured(&structured_bytes(seed, &cfg, form)).unwrap();
        }
    }
}

#[test]
fn decoding_is_total_and_inverts_structured_bytes() {
    // The empty input and short inputs are valid cases.
    let (seed, cfg, opts) = structured_case(&[]);
    assert_eq!(seed, 0);
    assert_eq!(cfg.max_depth, 1);
    assert!(!opts.flat && !opts.debug_info);
    let cfg = GenConfig {
        max_depth: 3,
        max_stmts: 5,
        max_callables: 2,
        recipes_per_module: 12,
    };
    let bytes = structured_bytes(0x0123_4567_89ab_cdef, &cfg, 0b101);
    let (s, c, o) = structured_case(&bytes);
    assert_eq!(s, 0x0123_4567_89ab_cdef);
    assert_eq!(c, cfg);
    assert!(o.flat && !o.debug_info && o.ids == xir_ir::text::IdStyle::Stable);
}

/// Writes the seed corpus (one input per print form and a few configurations) when
/// `XIR_BLESS=1`; otherwise checks that every seed input is present.
#[test]
fn seed_inputs_are_committed() {
    let mut missing = Vec::new();
    for form in 0u8..8 {
        for (k, cfg) in [
            GenConfig::default(),
            GenConfig {
                max_depth: 1,
                max_stmts: 2,
                max_callables: 0,
                recipes_per_module: 4,
            },
        ]
        .iter()
        .enumerate()
        {
            let seed = 1000 + u64::from(form) * 2 + k as u64;
            let bytes = structured_bytes(seed, cfg, form);
            let path = corpus_dir().join(format!("seed-form{form}-cfg{k}"));
            if std::env::var_os("XIR_BLESS").is_some() {
                std::fs::create_dir_all(corpus_dir()).unwrap();
                std::fs::write(&path, &bytes).unwrap();
            } else if std::fs::read(&path).ok() != Some(bytes) {
                missing.push(path.display().to_string());
            }
        }
    }
    assert!(missing.is_empty(), "missing seed inputs: {missing:?}");
}
