//! Round trips, both ways (XIR core issue): for every corpus module and every generated
//! module, in every print form (nested/flat × debug info × upstream/stable ids),
//! `parse(print(m))` is structurally equal to `m` and `print(parse(print(m))) == print(m)`
//! byte for byte (stable ids: up to label renaming, then byte for byte; see
//! [`rt_common::check_module`]).
//!
//! `XIR_ROUNDTRIP_SEEDS=N` changes the number of generated modules (default 10,000).

mod rt_common;

use rt_common::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;
use xir_ir::text::{IdStyle, PrintOptions, print_module};
use xir_testgen::{GenConfig, generate_module};

#[test]
fn every_corpus_file_round_trips_in_every_form() {
    let files = xir_files(&corpus_root());
    assert!(
        !files.is_empty(),
        "no corpus files under {:?}",
        corpus_root()
    );
    let mut failures = Vec::new();
    let mut checked = 0;
    let mut also = 0;
    for path in &files {
        let name = path.strip_prefix(corpus_root()).unwrap_or(path).display();
        let text = std::fs::read_to_string(path).unwrap();
        let m = match (skip_reason(&text), parse(&text)) {
            (None, Ok(m)) => m,
            (None, Err(e)) => {
                failures.push(format!("{name}: does not parse:\n{e}"));
                continue;
            }
            // Expected-failure tests whose module parses (verifier errors, bad flags)
            // must round-trip too.
            (Some("a RUN line expects failure"), Ok(m)) => {
                also += 1;
                m
            }
            (Some(_), _) => continue,
        };
        checked += 1;
        // print(parse(text)) is a fixed point of print ∘ parse.
        let canonical = print_module(&m, &PrintOptions::default());
        for o in all_forms() {
            if let Err(e) = check_module(&m, &o) {
                failures.push(format!("{name} [{}]: {e}", form_name(&o)));
            }
        }
        if let Ok(m1) = parse(&canonical)
            && print_module(&m1, &PrintOptions::default()) != canonical
        {
            failures.push(format!("{name}: print(parse(text)) is not a fixed point"));
        }
    }
    eprintln!(
        "{checked} of {} corpus files round-tripped ({also} of them expected-failure tests)",
        files.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(checked >= 20, "only {checked} corpus files were checked");
}

#[test]
fn skip_rules() {
    assert_eq!(
        skip_reason("// RUN: not xir-opt --bogus %s\nmodule;\n"),
        Some("a RUN line expects failure")
    );
    assert_eq!(
        skip_reason("; LuisaCompute XIR canonical interchange\nxir.text 1\n"),
        Some("interchange format")
    );
    assert_eq!(
        skip_reason("// RUN: xir-opt %s\n// only comments\n"),
        Some("no module text")
    );
    assert_eq!(
        skip_reason("// RUN: xir-opt %s | xir-filecheck %s\nmodule;\n"),
        None
    );
    assert_eq!(
        run_lines("// RUN: xir-opt %s \\\n// RUN:   | xir-filecheck %s\n"),
        vec!["xir-opt %s | xir-filecheck %s".to_string()]
    );
}

#[test]
fn label_canonicalization_is_a_renaming_test() {
    let a = "%f1_i3: T5 = load %f1_a0; \"%x T5\" %u0.undefined T5";
    let b = "%f1_i7: T2 = load %f1_a0; \"%x T5\" %u4.undefined T2";
    assert_eq!(canonical_labels(a), canonical_labels(b));
    // Not a bijection: two labels in one text, one in the other.
    assert_ne!(
        canonical_labels("%1 = %2; %2"),
        canonical_labels("%1 = %1; %1")
    );
    // Strings are not renamed, labels quoted in debug-info comments are.
    assert_ne!(canonical_labels("\"%1\""), canonical_labels("\"%2\""));
    assert_eq!(
        canonical_labels("%b3: // CFG = {\"nodes\": [\"%b3\"]}\n\"T1\""),
        canonical_labels("%b9: // CFG = {\"nodes\": [\"%b9\"]}\n\"T1\"")
    );
    assert_ne!(
        canonical_labels("%b3: // [\"%b3\"]"),
        canonical_labels("%b3: // [\"%b4\"]")
    );
}

/// The small generator configuration the 10,000-module property test uses, so that it
/// stays fast in debug builds (about 100 instructions per module).
fn small_config() -> GenConfig {
    GenConfig {
        max_depth: 2,
        max_stmts: 3,
        max_callables: 1,
        recipes_per_module: 8,
    }
}

fn seeds() -> u64 {
    std::env::var("XIR_ROUNDTRIP_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000)
}

/// Checks seeds `0..n` on all available cores; seed `s` is checked in form `s % 8` (and
/// every seed below `all_forms_below` in all eight). Returns the failures.
fn property(n: u64, cfg: &GenConfig, all_forms_below: u64) -> Vec<String> {
    let forms = all_forms();
    let next = AtomicU64::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let seed = next.fetch_add(1, Ordering::Relaxed);
                    if seed >= n {
                        break;
                    }
                    let m = generate_module(seed, cfg);
                    let chosen: Vec<&PrintOptions> = if seed < all_forms_below {
                        forms.iter().collect()
                    } else {
                        vec![&forms[(seed % 8) as usize]]
                    };
                    for o in chosen {
                        if let Err(e) = check_module(&m, o) {
                            let mut f = failures.lock().unwrap();
                            f.push(format!("seed {seed} [{}]: {e}", form_name(o)));
                        }
                    }
                }
            });
        }
    });
    let mut f = failures.into_inner().unwrap();
    f.sort();
    f
}

#[test]
fn ten_thousand_generated_modules_round_trip() {
    let n = seeds();
    let t = Instant::now();
    let failures = property(n, &small_config(), 64);
    eprintln!(
        "{n} generated modules (small config) round-tripped in {:.1?}",
        t.elapsed()
    );
    assert!(
        failures.is_empty(),
        "{} failures; first ones:\n{}",
        failures.len(),
        failures[..failures.len().min(10)].join("\n\n")
    );
}

#[test]
fn default_config_modules_round_trip_in_every_form() {
    let t = Instant::now();
    let failures = property(48, &GenConfig::default(), 48);
    eprintln!(
        "48 default-config modules × 8 forms round-tripped in {:.1?}",
        t.elapsed()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_form_is_exercised_by_the_property_test() {
    let forms = all_forms();
    assert_eq!(forms.len(), 8);
    let names: std::collections::BTreeSet<String> = forms.iter().map(form_name).collect();
    assert_eq!(names.len(), 8);
    assert!(
        forms
            .iter()
            .any(|o| o.flat && o.debug_info && o.ids == IdStyle::Stable)
    );
}
