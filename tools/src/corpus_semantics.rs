//! The semantic round trip of issue 13 over the corpus: every corpus module that parses,
//! verifies and has a kernel the interpreter runs defined on some input goes through
//! [`crate::pass_semantics::round_trip_subjects`] (`destructure-cfg,reg2mem,
//! restructure-cfg,mem2reg` and `spirv-final` with `optimize=false`); the results must
//! equal the original's and the output must be structured.
//!
//! Inputs: the `--check-semantics` generator's (two per kernel, two blocks of the
//! kernel's block size), plus, for an `exec/` kernel, its own `Inputs/NAME.json` (the
//! buffers and dispatch its expected output was computed from).

use crate::pass_semantics::{Report, round_trip_subjects};
use std::path::{Path, PathBuf};
use xir_interp::differential::{DEFAULT_MAX_STEPS, Inputs, Reference, kernels, run_kernel};
use xir_ir::verify::{VerifyOptions, verify_module};
use xir_ir::{FunctionKind, Module};

/// What the corpus walk saw.
#[derive(Debug, Default)]
pub struct CorpusRun {
    /// Per-subject results; `Report::kernels` counts the modules checked.
    pub report: Report,
    /// `.xir` files read.
    pub files: usize,
    /// Files skipped: not a module that parses and verifies, or without a kernel.
    pub not_modules: usize,
    /// Modules skipped: no input ran defined (UB files, refused constructs, …).
    pub not_defined: usize,
    /// Modules checked with their own `exec/Inputs` specification too.
    pub with_given_inputs: usize,
    /// The modules checked (relative paths, in report-id order).
    pub checked: Vec<String>,
}

/// Every `.xir` file under `dir`, sorted.
fn xir_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            xir_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "xir") {
            out.push(p);
        }
    }
}

/// The `exec/Inputs/NAME.json` run of a single-kernel module, when there is one.
fn given_inputs(path: &Path, m: &mut Module) -> Option<Inputs> {
    let spec_path = path
        .parent()?
        .join("Inputs")
        .join(format!("{}.json", path.file_stem()?.to_string_lossy()));
    let text = std::fs::read_to_string(spec_path).ok()?;
    let spec = xir_interp::spec::parse(&text).ok()?;
    let ks = kernels(m);
    let &[kernel] = ks.as_slice() else {
        return None;
    };
    let args = xir_interp::spec::bind(&spec, m, kernel).ok()?;
    if let (Some(b), FunctionKind::Kernel { block_size }) =
        (spec.block_size, &mut m.func_mut(kernel).kind)
    {
        *block_size = b;
    }
    Some(Inputs {
        args,
        dispatch: spec.dispatch?,
        seed: u64::MAX,
    })
}

/// Runs the round trip over every module under `corpus` (generated inputs: `inputs` per
/// kernel).
pub fn run(corpus: &Path, inputs: u32) -> CorpusRun {
    let subjects = round_trip_subjects();
    let mut run = CorpusRun {
        report: Report::for_subjects(&subjects),
        ..CorpusRun::default()
    };
    run.report.lenient = true;
    let mut files = Vec::new();
    xir_files(corpus, &mut files);
    for path in files {
        run.files += 1;
        let Ok(src) = std::fs::read_to_string(&path) else {
            run.not_modules += 1;
            continue;
        };
        let Ok((mut m, _)) = xir_ir::text::parse_module(&src) else {
            run.not_modules += 1;
            continue;
        };
        if kernels(&m).is_empty() || !verify_module(&m, &VerifyOptions::default(), None).is_empty()
        {
            run.not_modules += 1;
            continue;
        }
        let given = given_inputs(&path, &mut m);
        let Ok(mut reference) = Reference::new(&m, inputs, DEFAULT_MAX_STEPS) else {
            run.not_defined += 1;
            continue;
        };
        if let Some(g) = given {
            let out = run_kernel(&m, kernels(&m)[0], &g, DEFAULT_MAX_STEPS);
            reference.runs[0].push((g, out));
            run.with_given_inputs += 1;
        }
        if reference.defined() == 0 {
            run.not_defined += 1;
            continue;
        }
        let id = run.checked.len() as u64;
        run.checked.push(
            path.strip_prefix(corpus)
                .unwrap_or(&path)
                .display()
                .to_string(),
        );
        run.report.check(&subjects, id, &m, &reference);
    }
    run
}
