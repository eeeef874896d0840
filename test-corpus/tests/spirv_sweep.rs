//! The generated sweep of issue 13: every corpus kernel through `spirv-final`
//! (`optimize=false`), `pre-autodiff`, `spirv-legalize` and `spirv-post-restructure`,
//! with `--verify-each`, all in-process.
//!
//! A *kernel* is a corpus file (or `// -----` chunk) that parses and verifies; parse-error
//! and verifier-error inputs are not kernels. Each pipeline runs without its final
//! `check spirv-dialect` item (spirv-final's is removed from a copy of the shipped
//! pipeline file; the test fails if it is missing), then the dialect check runs on the
//! result, so every run ends in one of:
//!
//! * **in dialect** — the pipeline succeeded and its output is in the backend's dialect;
//! * **dialect diagnostic** — the pipeline succeeded and the check rejected its output
//!   with located diagnostics (the construct is outside the dialect);
//! * **refused by design** — a pass of the pipeline refused the input (or, for
//!   `restructure-cfg{mode=in-place-discardable}`, failed after mutating) for one of the
//!   reasons in [`REFUSALS`], each a documented rejection of that pass with its own corpus
//!   refusal file;
//! * **spill markers** — the input carries `reg2mem_spill` markers that survive SSA
//!   recovery, so `audit-reg2mem-spills` stops the pipeline (the dialect's spill row,
//!   checked by the pipeline itself first).
//!
//! Anything else — a crash, an internal error, a verifier failure after a pass, a refusal
//! for a reason not listed, a kernel that is in dialect under `spirv-final` but fails a
//! sub-pipeline — fails the test. The test prints the counts per pipeline and outcome.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use xir_driver::xir_opt_main;

/// Refusal reasons that are a pass's documented rejection (substring of the message):
/// each has a corpus refusal file under `test-corpus/corpus/passes/<pass>/`.
const REFUSALS: &[(&str, &str)] = &[
    (
        "has an irreducible region",
        "restructure-cfg: irreducible CFG",
    ),
    (
        "unstructured branch from",
        "restructure-cfg: unstructured branch (mode=in-place-discardable)",
    ),
    (
        "ends in a `ray_query_loop` region",
        "restructure-cfg: ray_query_loop region (lower it first)",
    ),
    (
        "has an `outline` region",
        "destructure-cfg: outline region (upstream refuses it)",
    ),
    (
        "the ray-query loop in block",
        "lower-ray-query-to-loop: malformed ray-query loop",
    ),
    (
        "the ray-query-like loop in block",
        "reconstruct-ray-query-loop: ray-query-like loop",
    ),
    (
        "SPIR-V pointer-argument legalization failed",
        "inline-spirv-pointer-args: call cannot be specialized",
    ),
    (
        "autodiff is not implemented yet",
        "autodiff: not implemented, the entry fails the run",
    ),
];

fn corpus_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut out = Vec::new();
    let mut dirs = vec![root];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("corpus directory") {
            let p = e.expect("directory entry").path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "xir") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The chunks of a file (`// -----` separates them, as `--split-input-file` does).
fn chunks(text: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    for line in text.split_inclusive('\n') {
        if line.starts_with("// -----") {
            out.push(String::new());
        } else {
            out.last_mut().expect("one chunk").push_str(line);
        }
    }
    out
}

fn opt(args: &[&str], input: &[u8]) -> (i32, Vec<u8>, String) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = xir_opt_main(&args, input, &mut out, &mut err);
    (code, out, String::from_utf8_lossy(&err).into_owned())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    InDialect,
    DialectDiagnostic,
    Refused(usize),
    SpillMarkers,
}

/// The outcome of one run, and for a dialect diagnostic the reason of the first one (the
/// message after the construct, without the location).
fn classify(pipeline: &str, input: &[u8]) -> Result<(Outcome, String), String> {
    let (code, out, err) = opt(
        &[
            "-",
            pipeline,
            "--pipeline-param",
            "optimize=false",
            "--verify-each",
        ],
        input,
    );
    if code == 0 {
        let (c, _, e) = opt(&["-", "--passes=check spirv-dialect"], &out);
        return match c {
            0 => Ok((Outcome::InDialect, String::new())),
            1 if e.starts_with("<stdin>:") && e.contains(": error: ") => {
                let first = e.lines().next().unwrap_or_default();
                let why = first.rsplit(": ").next().unwrap_or(first);
                Ok((Outcome::DialectDiagnostic, why.to_string()))
            }
            _ => Err(format!("the dialect check ended with status {c}: {e}")),
        };
    }
    if code != 1 {
        return Err(format!("status {code}: {err}"));
    }
    let first = err.lines().next().unwrap_or_default();
    if first.contains("' (invocation ") && first.contains("audit-reg2mem-spills") {
        return Ok((Outcome::SpillMarkers, String::new()));
    }
    let by_design = first.contains(") refused: ")
        || first.contains("failed after mutating")
        || first.contains("autodiff is not implemented yet");
    if by_design && let Some(k) = REFUSALS.iter().position(|(s, _)| first.contains(s)) {
        return Ok((Outcome::Refused(k), String::new()));
    }
    Err(format!("status 1: {err}"))
}

#[test]
fn every_corpus_kernel_ends_in_dialect_or_fails_cleanly() {
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("../passes/pipelines/spirv-final.xpl");
    let text = std::fs::read_to_string(&shipped).expect("spirv-final.xpl");
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| l.trim() != "check spirv-dialect")
        .collect();
    assert_eq!(
        text.lines().count() - kept.len(),
        1,
        "spirv-final.xpl must end in exactly one `check spirv-dialect` item"
    );
    let tmp = std::env::temp_dir().join(format!("xir-spirv-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temporary directory");
    let final_nocheck = tmp.join("spirv-final-without-check.xpl");
    std::fs::write(&final_nocheck, kept.join("\n") + "\n").expect("pipeline copy");
    let pipelines: Vec<(String, String)> = vec![
        (
            "spirv-final".into(),
            format!("--pipeline={}", final_nocheck.display()),
        ),
        ("pre-autodiff".into(), "--pipeline=pre-autodiff".into()),
        ("spirv-legalize".into(), "--pipeline=spirv-legalize".into()),
        (
            "spirv-post-restructure".into(),
            "--pipeline=spirv-post-restructure".into(),
        ),
    ];

    let mut inputs: Vec<(String, String)> = Vec::new();
    for f in corpus_files() {
        let text = std::fs::read_to_string(&f).expect("corpus file");
        let cs = chunks(&text);
        let n = cs.len();
        for (i, c) in cs.into_iter().enumerate() {
            let name = f
                .strip_prefix(env!("CARGO_MANIFEST_DIR"))
                .unwrap_or(&f)
                .display()
                .to_string();
            let name = if n > 1 { format!("{name}#{i}") } else { name };
            inputs.push((name, c));
        }
    }

    let counts: Mutex<BTreeMap<(String, Outcome), usize>> = Mutex::default();
    let reasons: Mutex<BTreeMap<String, usize>> = Mutex::default();
    let failures: Mutex<Vec<String>> = Mutex::default();
    let kernels = Mutex::new(0usize);
    let next = Mutex::new(0usize);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let k = {
                        let mut n = next.lock().unwrap();
                        *n += 1;
                        *n - 1
                    };
                    let Some((name, src)) = inputs.get(k) else {
                        break;
                    };
                    if opt(&["-"], src.as_bytes()).0 != 0 {
                        continue; // a parse-error or verifier-error input, not a kernel
                    }
                    *kernels.lock().unwrap() += 1;
                    let mut final_in_dialect = false;
                    for (label, arg) in &pipelines {
                        match classify(arg, src.as_bytes()) {
                            Ok((o, why)) => {
                                if label == "spirv-final" {
                                    final_in_dialect = o == Outcome::InDialect;
                                    if o == Outcome::DialectDiagnostic {
                                        *reasons.lock().unwrap().entry(why).or_default() += 1;
                                    }
                                } else if final_in_dialect
                                    && !matches!(o, Outcome::InDialect | Outcome::DialectDiagnostic)
                                {
                                    failures.lock().unwrap().push(format!(
                                        "{name}: in dialect under spirv-final but {label} ended {o:?}"
                                    ));
                                }
                                *counts.lock().unwrap().entry((label.clone(), o)).or_default() += 1;
                            }
                            Err(e) => failures.lock().unwrap().push(format!(
                                "{name} under {label}: {}",
                                e.lines().take(3).collect::<Vec<_>>().join(" | ")
                            )),
                        }
                    }
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&tmp);

    let counts = counts.into_inner().unwrap();
    println!("{} corpus kernels", kernels.into_inner().unwrap());
    for (label, _) in &pipelines {
        let get = |o: Outcome| counts.get(&(label.clone(), o)).copied().unwrap_or(0);
        println!(
            "{label}: {} in dialect, {} dialect diagnostic, {} spill markers, refused by design: {}",
            get(Outcome::InDialect),
            get(Outcome::DialectDiagnostic),
            get(Outcome::SpillMarkers),
            REFUSALS
                .iter()
                .enumerate()
                .filter(|(k, _)| get(Outcome::Refused(*k)) > 0)
                .map(|(k, (_, why))| format!("{} ({why})", get(Outcome::Refused(k))))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    // Which dialect rows stop the kernels outside the dialect after spirv-final: rows the
    // input uses, and backend limits that the pipeline's output meets.
    println!("spirv-final dialect diagnostics by reason (first diagnostic of each kernel):");
    for (why, n) in reasons.into_inner().unwrap() {
        println!("  {n:4}  {why}");
    }
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} runs ended in neither the dialect nor a clean failure:\n{}",
        failures.len(),
        failures.join("\n")
    );
    let get = |o: Outcome| {
        counts
            .get(&("spirv-final".to_string(), o))
            .copied()
            .unwrap_or(0)
    };
    assert!(get(Outcome::InDialect) > 0 && get(Outcome::DialectDiagnostic) > 0);
}
