//! The differential property of passes: on generated, UB-free kernels
//! ([`xir_testgen::generate_exec_kernel`]), no implemented pass (run in its pipeline
//! context) and no runnable shipped pipeline changes interpreted results.
//!
//! Each *subject* is a context pipeline (run first, unchecked for attribution) and the
//! pipeline under test. Per kernel, the kernel is interpreted on generated inputs
//! ([`xir_interp::differential::Reference`]); after the context and after the subject,
//! the module is compared with the reference (bitwise, NaNs equal). A subject that did
//! not change the module (structurally equal) is not re-run. The tally counts,
//! per subject, the kernels it changed: a subject that changed none is untested, and the
//! generator must grow until it does.
//!
//! The test `tools/tests/pass_semantics.rs` runs a few hundred kernels; the example
//! `pass_semantics` runs any number (`docs/semantic-checking.md` has the figures).

use xir_driver::pipeline::ModuleVerifier;
use xir_interp::differential::{DEFAULT_MAX_STEPS, Reference};
use xir_ir::Module;
use xir_passes::pipeline::{Loader, Pipeline, RunOptions, Runner};
use xir_passes::registry::Registry;
use xir_testgen::structural_diff;
use xir_testgen::{ExecConfig, generate_exec_kernel};

/// Plain-CFG context: what a pass over plain control flow runs after in the shipped
/// pipelines.
pub const PLAIN_CONTEXT: &str = "lower-break-continue,destructure-cfg,mem2reg";

/// Subjects that never change a module by design: `audit-reg2mem-spills` only reads
/// metadata (its header: "Changed: never"), `O0` only verifies.
pub const READ_ONLY: &[&str] = &["audit-reg2mem-spills", "pipeline O0"];

/// Passes the executable generator cannot give an input they change yet, with why.
/// The property test fails when one of them starts changing kernels (remove it here)
/// and when any other subject changes none: this list only shrinks.
pub const NOT_YET_GENERATED: &[(&str, &str)] = &[
    (
        "autodiff",
        "needs an autodiff scope (the interpreter refuses autodiff; the pass is an error entry)",
    ),
    (
        "early-return-elimination",
        "the generator emits no `return` inside structured control flow",
    ),
    (
        "fix-self-referential",
        "needs a self-referential aggregate insert (only restructure-cfg's output has one)",
    ),
    (
        "inline-call-sites",
        "selects only the callee named by its `callee=K` option (none by default)",
    ),
    (
        "inline-spirv-pointer-args",
        "needs callables with resource or pointer arguments",
    ),
    (
        "lower-ray-query-to-loop",
        "needs ray queries (refused by the interpreter)",
    ),
    (
        "reconstruct-ray-query-loop",
        "needs ray queries (refused by the interpreter)",
    ),
    (
        "promote-ref-arg",
        "needs a callable whose reference arguments are all read-only",
    ),
    (
        "scalarizer",
        "the executable generator emits no vector arithmetic yet",
    ),
];

/// Structured → plain CFG → optimised → structured again.
pub const ROUND_TRIP: &str = "lower-break-continue,destructure-cfg,mem2reg,fixed-point(max=8){const-fold,dce,simplify-cfg,phi-cleanup},restructure-cfg,dce";

/// One pipeline under test.
pub struct Subject {
    /// Report label (`pass` or `pass @plain` or `pipeline NAME`).
    pub label: String,
    context: Option<Pipeline>,
    pipeline: Pipeline,
}

/// Every implemented, non-test pass alone on structured input and after
/// [`PLAIN_CONTEXT`], and every shipped pipeline whose passes are all implemented.
/// Also returns the shipped pipelines skipped (not runnable yet).
pub fn subjects() -> (Vec<Subject>, Vec<String>) {
    let registry = Registry::new(false);
    let loader = Loader::new(&registry);
    let unimplemented = registry.unimplemented();
    let load = |t: &str| {
        loader
            .load_inline(t)
            .unwrap_or_else(|e| panic!("'{t}': {e:?}"))
    };
    let mut out = Vec::new();
    for info in registry.list() {
        if unimplemented.contains(&info.name) {
            continue;
        }
        out.push(Subject {
            label: info.name.to_string(),
            context: None,
            pipeline: load(info.name),
        });
        if !PLAIN_CONTEXT.split(',').any(|p| p == info.name) {
            out.push(Subject {
                label: format!("{} @plain", info.name),
                context: Some(load(PLAIN_CONTEXT)),
                pipeline: load(info.name),
            });
        }
    }
    // The whole plain-CFG round trip a backend pipeline makes: lower, optimise, restructure.
    out.push(Subject {
        label: "pipeline round-trip".into(),
        context: None,
        pipeline: load(ROUND_TRIP),
    });
    let mut skipped = Vec::new();
    for name in xir_passes::pipeline::library::Library::shipped().names() {
        match loader.load(&name) {
            Ok(p) => out.push(Subject {
                label: format!("pipeline {name}"),
                context: None,
                pipeline: p,
            }),
            Err(_) => skipped.push(name),
        }
    }
    (out, skipped)
}

/// Per-subject results.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Subject label.
    pub label: String,
    /// Kernels run through it.
    pub kernels: u64,
    /// Kernels it changed.
    pub changed: u64,
    /// Pipeline failures (refusals aborting, verifier failures, …): `(seed, message)`.
    pub failures: Vec<(u64, String)>,
    /// Changed results: `(seed, message)`.
    pub mismatches: Vec<(u64, String)>,
}

/// The whole run.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Kernels generated.
    pub kernels: u64,
    /// Defined runs / all runs of the reference.
    pub defined: (u64, u64),
    /// Per subject.
    pub tallies: Vec<Tally>,
    /// Shipped pipelines not runnable yet.
    pub skipped_pipelines: Vec<String>,
}

impl Report {
    /// Every mismatch and failure, one line each.
    pub fn problems(&self) -> Vec<String> {
        let mut v = Vec::new();
        for t in &self.tallies {
            for (s, m) in &t.mismatches {
                v.push(format!("{}: seed {s}: {m}", t.label));
            }
            for (s, m) in &t.failures {
                v.push(format!("{}: seed {s}: pipeline failed: {m}", t.label));
            }
        }
        v
    }

    /// Passes and pipelines that changed no kernel in any context (untested), except
    /// the [`READ_ONLY`] ones.
    pub fn untested(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for t in &self.tallies {
            let name = t.label.split(" @").next().unwrap_or_default().to_string();
            if READ_ONLY.contains(&name.as_str()) || out.contains(&name) {
                continue;
            }
            let changed: u64 = self
                .tallies
                .iter()
                .filter(|u| u.label.split(" @").next() == Some(name.as_str()))
                .map(|u| u.changed)
                .sum();
            if changed == 0 {
                out.push(name);
            }
        }
        out
    }

    /// A table: subject, kernels, changed, mismatches.
    pub fn table(&self) -> String {
        let mut s = format!(
            "{} kernels, {} of {} reference runs defined\n| subject | kernels | changed | mismatches | failures |\n|---|---|---|---|---|\n",
            self.kernels, self.defined.0, self.defined.1
        );
        for t in &self.tallies {
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} |\n",
                t.label,
                t.kernels,
                t.changed,
                t.mismatches.len(),
                t.failures.len()
            ));
        }
        if !self.skipped_pipelines.is_empty() {
            s.push_str(&format!(
                "shipped pipelines not runnable yet (unimplemented passes): {}\n",
                self.skipped_pipelines.join(", ")
            ));
        }
        s
    }
}

fn run_pipeline(p: &Pipeline, m: &mut Module) -> Result<(), String> {
    let mut sink = Vec::new();
    let verifier = ModuleVerifier::default();
    let r = Runner::new(RunOptions::default(), &mut sink)
        .with_verifier(&verifier)
        .run(p, m);
    match r.failure {
        None => Ok(()),
        Some(f) => Err(f.message),
    }
}

/// Runs every subject on the kernels of `seeds`, `inputs` generated inputs each.
pub fn run(seeds: std::ops::Range<u64>, inputs: u32, cfg: &ExecConfig) -> Report {
    let (subjects, skipped) = subjects();
    let mut report = Report {
        tallies: subjects
            .iter()
            .map(|s| Tally {
                label: s.label.clone(),
                ..Tally::default()
            })
            .collect(),
        skipped_pipelines: skipped,
        ..Report::default()
    };
    for seed in seeds {
        let m = generate_exec_kernel(seed, cfg).module;
        let reference = Reference::new(&m, inputs, DEFAULT_MAX_STEPS)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        report.kernels += 1;
        report.defined.0 += reference.defined() as u64;
        report.defined.1 += reference.total() as u64;
        let mut contexts: Vec<(String, Module)> = Vec::new();
        for (s, t) in subjects.iter().zip(&mut report.tallies) {
            t.kernels += 1;
            let base = match &s.context {
                None => m.clone(),
                Some(c) => {
                    let key = c.to_text();
                    match contexts.iter().find(|(k, _)| *k == key) {
                        Some((_, b)) => b.clone(),
                        None => {
                            let mut b = m.clone();
                            if let Err(e) = run_pipeline(c, &mut b) {
                                t.failures.push((seed, format!("context: {e}")));
                                continue;
                            }
                            contexts.push((key, b.clone()));
                            b
                        }
                    }
                }
            };
            let mut after = base.clone();
            if let Err(e) = run_pipeline(&s.pipeline, &mut after) {
                t.failures.push((seed, e));
                continue;
            }
            if structural_diff(&base, &after).is_none() {
                continue;
            }
            t.changed += 1;
            if let Some(mm) = reference.check(&m, &after, DEFAULT_MAX_STEPS) {
                t.mismatches
                    .push((seed, format!("input {}: {}", mm.seed, mm.message)));
            }
        }
    }
    report
}
