//! The executor: runs a [`Pipeline`] on a module with upstream's semantics (reference
//! §7.2) and the debugging machinery around each pass invocation.
//!
//! Every pass invocation gets an index (1, 2, … in execution order, stable for a given
//! input) and a path (`spirv-final/post-inline-cleanup/dce`, with `[iter k]` on fixed
//! points). Around each invocation the runner applies, in order: `--bisect-limit`
//! skipping, the form precondition (a violation is a refusal), instrumentation hooks,
//! the pass itself (panics are caught and reported), refusal handling, and under
//! `--verify-each` the honesty checks (module fingerprint vs a reported change, and the
//! control-flow fingerprint vs a reported instruction-only change) and the verifier.
//! After a change, the analyses it invalidates are dropped in every function.

use super::ast::{Markers, Source};
use super::expand::{Entry, EntryKind, GroupEntry, PassEntry, Pipeline};
use super::fingerprint::{cfg_fingerprint, fingerprint};
use super::stats::{Record, Stats};
use crate::form::FormSummary;
use crate::pass::{Changed, PassContext, PassReport, PassRun};
use crate::registry::FormRequirement;
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;
use std::time::Instant;
use xir_ir::Module;
use xir_ir::diag::Span;

/// Runs the verifier for the pipeline (the driver supplies the real one).
pub trait Verifier {
    /// `Err(rendered diagnostics)` when `m` fails with upstream's kebab-case `flags`
    /// (empty = default options).
    fn verify(&self, m: &Module, flags: &[String]) -> Result<(), String>;
}

/// Runs the external checks a pipeline names with `check NAME` (the driver supplies
/// them; see [`CHECKS`](super::expand::CHECKS)).
pub trait ExternalChecks {
    /// `None` when this implementation does not provide `name`; otherwise `Err(message)`
    /// when `m` fails it (the implementation keeps any located diagnostics itself).
    fn check(&self, name: &str, m: &Module) -> Option<Result<(), String>>;
}

/// `--bisect-limit`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Bisect {
    /// No bisection.
    #[default]
    Off,
    /// Run everything but log every index (`--bisect-limit=-1`).
    Print,
    /// Run only invocations `1..=N` (and required ones).
    Limit(u64),
}

/// Execution switches.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Verify (and check honesty) after every pass.
    pub verify_each: bool,
    /// Bisection.
    pub bisect: Bisect,
    /// Upstream's `LUISA_XIR_TRACE_PASSES` log lines.
    pub trace: bool,
    /// Stop (with [`FailureKind::Stopped`]) just before this invocation runs, leaving the
    /// module as the previous invocations made it (reproducers use this).
    pub stop_before: Option<u64>,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            verify_each: true,
            bisect: Bisect::Off,
            trace: false,
            stop_before: None,
        }
    }
}

/// One pass invocation, as hooks see it.
#[derive(Clone, Debug)]
pub struct Invocation<'a> {
    /// Stable index (1-based, execution order).
    pub index: u64,
    /// Path (`pipeline/group[iter k]/entry`).
    pub path: &'a str,
    /// Registered pass name.
    pub pass: &'a str,
    /// Label, or the pass name.
    pub display: &'a str,
}

/// Hooks around pass invocations (mlir-opt's instrumentation surface).
pub trait Instrumentation {
    /// Before the pass runs.
    fn before_pass(&mut self, _inv: &Invocation<'_>, _m: &Module) {}
    /// After it ran (not called for refusals or failures).
    fn after_pass(&mut self, _inv: &Invocation<'_>, _m: &Module, _changed: bool) {}
    /// After it declined.
    fn refused(&mut self, _inv: &Invocation<'_>, _m: &Module, _reason: &str) {}
    /// When `--bisect-limit` skipped it.
    fn skipped(&mut self, _inv: &Invocation<'_>) {}
    /// When the invocation failed (the module is as the pass left it, unless it
    /// panicked).
    fn failed(&mut self, _inv: &Invocation<'_>, _m: &Module, _f: &Failure) {}
}

/// Why a run failed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// A pass panicked.
    Panic,
    /// A pass returned an error.
    PassError,
    /// An `abort-on-refusal` entry declined.
    Refusal,
    /// A pass declined after changing the module.
    RefusalMutated,
    /// A pass reported no change but changed the module, or an instruction-only change
    /// but changed the control-flow graph.
    Dishonest,
    /// The verifier rejected the module after a pass.
    Verifier,
    /// A `verify{…}` entry failed.
    VerifyEntry,
    /// A fixed point without `allow-nonconvergence` ran out of iterations.
    NonConvergence,
    /// A `verify` entry ran without a verifier.
    NoVerifier,
    /// A `check` entry failed.
    Check,
    /// A `check` entry ran without an implementation of its check.
    NoCheck,
    /// [`RunOptions::stop_before`] was reached (not an error of the pipeline).
    Stopped,
}

/// One level of the execution position: the entry index within its list, the current
/// iteration when that entry is a group, and the branch taken when it is a condition.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Step {
    /// Index of the entry in its list.
    pub entry: usize,
    /// Current iteration (1-based) of a group entry.
    pub iter: u32,
    /// Branch taken by a condition entry (true = then).
    pub branch: bool,
}

/// A failed run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// What went wrong.
    pub kind: FailureKind,
    /// Index of the failing invocation (for failures of a pass).
    pub index: Option<u64>,
    /// Path of the failing entry.
    pub path: String,
    /// Explanation (multi-line for verifier output).
    pub message: String,
    /// Where execution was (outermost first), for [`Pipeline::remaining_text`].
    pub trail: Vec<Step>,
    /// Where in the pipeline's text the failure is located, when it is (a fixed point
    /// that ran out of iterations: its `max=N`).
    pub at: Option<(Rc<Source>, Span)>,
}

/// The result of [`Runner::run`].
#[derive(Debug)]
pub struct RunResult {
    /// Records (complete up to the failure, if any).
    pub stats: Stats,
    /// `None` on success.
    pub failure: Option<Failure>,
    /// Number of pass invocations (indices handed out, including skipped ones).
    pub invocations: u64,
    /// Refusals that did not abort the run: `(index, path, reason)`.
    pub refusals: Vec<(u64, String, String)>,
}

/// Executes pipelines.
pub struct Runner<'a> {
    /// Switches.
    pub options: RunOptions,
    verifier: Option<&'a dyn Verifier>,
    checks: Option<&'a dyn ExternalChecks>,
    hooks: Vec<&'a mut dyn Instrumentation>,
    log: &'a mut dyn Write,
    cx: PassContext,
    next_index: u64,
    form: Option<FormSummary>,
    verified: Option<u64>,
    pending_verify: bool,
    changed_names: Vec<String>,
    refusals: Vec<(u64, String, String)>,
    trail: Vec<Step>,
    current_fp: Option<u64>,
    /// The control-flow fingerprint of the module, while known to be current (a pass
    /// that reports no change or an instruction-only change is held to keeping it).
    current_cfg_fp: Option<u64>,
}

type Flow = Result<bool, Failure>;

impl<'a> Runner<'a> {
    /// A runner writing warnings, bisect and trace lines to `log`.
    pub fn new(options: RunOptions, log: &'a mut dyn Write) -> Self {
        Self {
            options,
            verifier: None,
            checks: None,
            hooks: Vec::new(),
            log,
            cx: PassContext::default(),
            next_index: 0,
            form: None,
            verified: None,
            pending_verify: false,
            changed_names: Vec::new(),
            refusals: Vec::new(),
            trail: Vec::new(),
            current_fp: None,
            current_cfg_fp: None,
        }
    }

    /// Uses `v` for `verify` entries and `--verify-each`.
    pub fn with_verifier(mut self, v: &'a dyn Verifier) -> Self {
        self.verifier = Some(v);
        self
    }

    /// Uses `c` for `check` entries.
    pub fn with_checks(mut self, c: &'a dyn ExternalChecks) -> Self {
        self.checks = Some(c);
        self
    }

    /// Adds an instrumentation (hooks run in the order added).
    pub fn instrument(mut self, i: &'a mut dyn Instrumentation) -> Self {
        self.hooks.push(i);
        self
    }

    /// Runs `p` on `m`.
    pub fn run(mut self, p: &Pipeline, m: &mut Module) -> RunResult {
        let mut stats = Stats::skeleton(p);
        let start = Instant::now();
        let mut failure = self
            .list(
                &p.entries,
                &mut stats.records,
                m,
                &p.name,
                Markers::default(),
            )
            .err();
        if failure.is_none() && self.pending_verify && self.options.verify_each {
            failure = self.verify_after(m, "end of pipeline", None).err();
        }
        stats.total = start.elapsed();
        RunResult {
            stats,
            failure,
            invocations: self.next_index,
            refusals: self.refusals,
        }
    }

    /// The module's fingerprint, computed at most once between two pass runs.
    fn fingerprint(&mut self, m: &Module) -> u64 {
        *self.current_fp.get_or_insert_with(|| fingerprint(m))
    }

    fn line(&mut self, s: &str) {
        let _ = writeln!(self.log, "{s}");
    }

    fn list(
        &mut self,
        es: &[Entry],
        rs: &mut [Record],
        m: &mut Module,
        prefix: &str,
        outer: Markers,
    ) -> Flow {
        let mut changed = false;
        self.trail.push(Step::default());
        for (k, (e, r)) in es.iter().zip(rs.iter_mut()).enumerate() {
            if let Some(top) = self.trail.last_mut() {
                *top = Step {
                    entry: k,
                    ..Step::default()
                };
            }
            let markers = e.markers.or(outer);
            let path = if prefix.is_empty() {
                e.segment.clone()
            } else {
                format!("{prefix}/{}", e.segment)
            };
            r.visits += 1;
            let step: Flow = match &e.kind {
                EntryKind::Pass(pe) => self.pass(pe, r, m, &path, markers),
                EntryKind::Group(g) => self.group(g, r, m, &path, markers),
                EntryKind::If(i) => {
                    let holds = i.cond.eval(m) != i.negated;
                    if let Some(top) = self.trail.last_mut() {
                        top.branch = holds;
                    }
                    let n = i.then_entries.len();
                    let (ts, fs) = r.children.split_at_mut(n);
                    if holds {
                        self.list(&i.then_entries, ts, m, prefix, markers)
                    } else {
                        self.list(&i.else_entries, fs, m, prefix, markers)
                    }
                }
                EntryKind::Verify(flags) => {
                    let t = Instant::now();
                    let res = self.verify_entry(m, flags, &path);
                    r.invocations += 1;
                    r.elapsed += t.elapsed();
                    res.map(|()| false)
                }
                EntryKind::Check(name) => {
                    let t = Instant::now();
                    let res = self.check_entry(m, name, &path);
                    r.invocations += 1;
                    r.elapsed += t.elapsed();
                    res.map(|()| false)
                }
            };
            match step {
                Ok(c) => changed |= c,
                Err(mut f) => {
                    if f.trail.is_empty() {
                        f.trail = self.trail.clone();
                    }
                    return Err(f);
                }
            }
        }
        self.trail.pop();
        Ok(changed)
    }

    fn verify_entry(&mut self, m: &Module, flags: &[String], path: &str) -> Result<(), Failure> {
        let Some(v) = self.verifier else {
            return Err(Failure {
                kind: FailureKind::NoVerifier,
                index: None,
                path: path.to_string(),
                message: format!("'{path}' needs the verifier, but none is available"),
                trail: Vec::new(),
                at: None,
            });
        };
        v.verify(m, flags).map_err(|msg| {
            let what = if flags.is_empty() {
                "verify".to_string()
            } else {
                format!("verify{{{}}}", flags.join(", "))
            };
            Failure {
                kind: FailureKind::VerifyEntry,
                index: None,
                path: path.to_string(),
                message: format!("{what} failed at '{path}':\n{msg}"),
                trail: Vec::new(),
                at: None,
            }
        })
    }

    fn check_entry(&mut self, m: &Module, name: &str, path: &str) -> Result<(), Failure> {
        let fail = |kind, message| Failure {
            kind,
            index: None,
            path: path.to_string(),
            message,
            trail: Vec::new(),
            at: None,
        };
        match self.checks.and_then(|c| c.check(name, m)) {
            None => Err(fail(
                FailureKind::NoCheck,
                format!("'{path}' needs the '{name}' check, but this tool does not provide it"),
            )),
            Some(Ok(())) => Ok(()),
            Some(Err(msg)) => Err(fail(
                FailureKind::Check,
                format!("check {name} failed at '{path}':\n{msg}"),
            )),
        }
    }

    /// Verifies after a pass unless the module is the one last verified.
    fn verify_after(&mut self, m: &Module, path: &str, index: Option<u64>) -> Result<(), Failure> {
        let fp = self.fingerprint(m);
        if self.verified == Some(fp) {
            self.pending_verify = false;
            return Ok(());
        }
        let Some(v) = self.verifier else {
            return Ok(());
        };
        match v.verify(m, &[]) {
            Ok(()) => {
                self.verified = Some(fp);
                self.pending_verify = false;
                Ok(())
            }
            Err(msg) => {
                let at = match index {
                    Some(i) => format!("after pass '{path}' (invocation {i})"),
                    None => format!("at the {path}"),
                };
                Err(Failure {
                    kind: FailureKind::Verifier,
                    index,
                    path: path.to_string(),
                    message: format!("the module is invalid {at}:\n{msg}"),
                    trail: Vec::new(),
                    at: None,
                })
            }
        }
    }

    fn group(
        &mut self,
        g: &GroupEntry,
        r: &mut Record,
        m: &mut Module,
        path: &str,
        markers: Markers,
    ) -> Flow {
        let start = Instant::now();
        if self.options.trace {
            self.line(&format!("Starting XIR pass '{path}'"));
        }
        let outer_changed = std::mem::take(&mut self.changed_names);
        let mut all_changed = Vec::new();
        let mut last_changed: Vec<String> = Vec::new();
        let track = self.options.verify_each && g.requires_convergence;
        let mut states = if track {
            vec![self.fingerprint(m)]
        } else {
            Vec::new()
        };
        let mut cycle: Option<(u32, usize)> = None;
        let (mut iterations, mut changed, mut converged) = (0u32, false, false);
        let mut result = Ok(());
        for it in 1..=g.max {
            iterations += 1;
            if let Some(top) = self.trail.last_mut() {
                top.iter = it;
            }
            let ipath = if g.requires_convergence {
                format!("{path}[iter {it}]")
            } else {
                path.to_string()
            };
            let step = self.list(&g.entries, &mut r.children, m, &ipath, markers);
            last_changed = std::mem::take(&mut self.changed_names);
            all_changed.extend(last_changed.iter().cloned());
            let step_changed = match step {
                Ok(c) => c,
                Err(f) => {
                    result = Err(f);
                    break;
                }
            };
            changed |= step_changed;
            if !g.requires_convergence || !step_changed {
                converged = true;
                break;
            }
            if track {
                let fp = self.fingerprint(m);
                if cycle.is_none()
                    && let Some(k) = states.iter().position(|s| *s == fp)
                {
                    cycle = Some((it, states.len() - k));
                }
                states.push(fp);
            }
        }
        self.changed_names = outer_changed;
        self.changed_names.extend(all_changed);
        let limit = g.requires_convergence && !converged && result.is_ok();
        r.invocations += iterations;
        r.elapsed += start.elapsed();
        r.changed |= changed;
        r.converged = if r.visits == 1 {
            converged
        } else {
            r.converged && converged
        };
        r.iteration_limit_reached |= limit;
        if self.options.trace {
            let mut s = format!(
                "Finished XIR pass '{path}' in {:.3} ms after {iterations} iteration(s)",
                start.elapsed().as_secs_f64() * 1e3
            );
            if changed {
                s.push_str(" (changed)");
            }
            if limit {
                s.push_str(" (iteration limit reached)");
            }
            self.line(&s);
        }
        result?;
        if limit {
            let msg = nonconvergence_message(g, path, &last_changed, cycle);
            if g.allow_nonconvergence {
                self.line(&format!("warning: {msg} (allowed by allow-nonconvergence)"));
            } else {
                return Err(Failure {
                    kind: FailureKind::NonConvergence,
                    index: None,
                    path: path.to_string(),
                    message: msg,
                    trail: Vec::new(),
                    at: g.budget_at.clone(),
                });
            }
        }
        Ok(changed)
    }

    fn pass(
        &mut self,
        pe: &PassEntry,
        r: &mut Record,
        m: &mut Module,
        path: &str,
        markers: Markers,
    ) -> Flow {
        self.next_index += 1;
        let index = self.next_index;
        let inv = Invocation {
            index,
            path,
            pass: &pe.name,
            display: pe.display(),
        };
        if self.options.stop_before == Some(index) {
            return Err(fail(
                FailureKind::Stopped,
                &inv,
                format!("stopped before invocation {index} ('{path}')"),
            ));
        }
        match self.options.bisect {
            Bisect::Limit(n) if index > n && !markers.required => {
                self.line(&format!("BISECT: NOT running pass ({index}) {path}"));
                r.skipped += 1;
                for h in &mut self.hooks {
                    h.skipped(&inv);
                }
                return Ok(false);
            }
            Bisect::Limit(n) if index > n => {
                self.line(&format!("BISECT: running pass ({index}) {path} (required)"));
            }
            Bisect::Off => {}
            _ => self.line(&format!("BISECT: running pass ({index}) {path}")),
        }
        if self.options.trace {
            self.line(&format!("Starting XIR pass '{path}'"));
        }
        let (Some(info), Some(pass)) = (pe.info, pe.pass.as_deref()) else {
            return Err(fail(
                FailureKind::PassError,
                &inv,
                "entry has no instantiated pass".into(),
            ));
        };
        for h in &mut self.hooks {
            h.before_pass(&inv, m);
        }
        let before = self.options.verify_each.then(|| self.fingerprint(m));
        let cfg_before = self.options.verify_each.then(|| {
            *self
                .current_cfg_fp
                .get_or_insert_with(|| cfg_fingerprint(m))
        });
        let start = Instant::now();
        // The form precondition: a violation is a refusal (with the pass's zero counters).
        let form_refusal = if info.form == FormRequirement::Either {
            None
        } else {
            let summary = self.form.get_or_insert_with(|| FormSummary::of(m));
            summary.check(m, info.form).err()
        };
        let cx = &mut self.cx;
        let run = match form_refusal {
            Some(why) => Ok(Ok(PassRun::refused(
                format!("{}: {why}", pe.name),
                PassReport::with_keys(info.report_keys),
            ))),
            None => catch_unwind(AssertUnwindSafe(|| pass.run(m, cx))),
        };
        let elapsed = start.elapsed();
        r.invocations += 1;
        r.elapsed += elapsed;
        let run = match run {
            Err(payload) => {
                let msg = panic_message(&payload);
                let f = fail(
                    FailureKind::Panic,
                    &inv,
                    format!("pass '{path}' (invocation {index}) panicked: {msg}"),
                );
                return Err(self.failed(&inv, m, f));
            }
            Ok(Err(e)) => {
                let f = fail(
                    FailureKind::PassError,
                    &inv,
                    format!("pass '{path}' (invocation {index}) failed: {e}"),
                );
                return Err(self.failed(&inv, m, f));
            }
            Ok(Ok(run)) => run,
        };
        r.report.merge_sum(&run.report);
        // Only passes change the module: the fingerprint stays valid until the next one.
        self.current_fp = None;
        let after = before.map(|_| self.fingerprint(m));
        if let Some(reason) = &run.refusal {
            r.refusals += 1;
            if before != after {
                let f = fail(
                    FailureKind::RefusalMutated,
                    &inv,
                    format!(
                        "pass '{path}' (invocation {index}) refused but changed the module; a refusal must leave it untouched"
                    ),
                );
                return Err(self.failed(&inv, m, f));
            }
            for h in &mut self.hooks {
                h.refused(&inv, m, reason);
            }
            if markers.abort_on_refusal {
                let f = fail(
                    FailureKind::Refusal,
                    &inv,
                    format!("pass '{path}' (invocation {index}) refused: {reason}"),
                );
                return Err(self.failed(&inv, m, f));
            }
            self.line(&format!(
                "warning: pass '{path}' (invocation {index}) refused: {reason}"
            ));
            self.refusals
                .push((index, path.to_string(), reason.clone()));
            self.finish_trace(path, elapsed, false, true);
            return Ok(false);
        }
        if run.changed == Changed::Instructions
            && cfg_before.is_some_and(|fp| fp != cfg_fingerprint(m))
        {
            let f = fail(
                FailureKind::Dishonest,
                &inv,
                format!(
                    "pass '{path}' (invocation {index}) reported an instruction-only change but changed the control-flow graph (blocks, terminators or edges)"
                ),
            );
            return Err(self.failed(&inv, m, f));
        }
        if run.changed == Changed::ControlFlow || !self.options.verify_each {
            self.current_cfg_fp = None;
        }
        let changed = run.changed.any();
        if changed {
            r.changed = true;
            self.form = None;
            self.cx.analyses.invalidate_all_for(run.changed);
            self.changed_names.push(pe.display().to_string());
        } else if before != after {
            let f = fail(
                FailureKind::Dishonest,
                &inv,
                format!(
                    "pass '{path}' (invocation {index}) reported no change but changed the module"
                ),
            );
            return Err(self.failed(&inv, m, f));
        }
        if self.options.verify_each {
            if markers.verify_deferred {
                self.pending_verify = true;
            } else if let Err(f) = self.verify_after(m, path, Some(index)) {
                return Err(self.failed(&inv, m, f));
            }
        }
        for h in &mut self.hooks {
            h.after_pass(&inv, m, changed);
        }
        self.finish_trace(path, elapsed, changed, false);
        Ok(changed)
    }

    fn failed(&mut self, inv: &Invocation<'_>, m: &Module, f: Failure) -> Failure {
        for h in &mut self.hooks {
            h.failed(inv, m, &f);
        }
        f
    }

    fn finish_trace(
        &mut self,
        path: &str,
        elapsed: std::time::Duration,
        changed: bool,
        refused: bool,
    ) {
        if self.options.trace {
            let mut s = format!(
                "Finished XIR pass '{path}' in {:.3} ms",
                elapsed.as_secs_f64() * 1e3
            );
            if changed {
                s.push_str(" (changed)");
            }
            if refused {
                s.push_str(" (refused)");
            }
            self.line(&s);
        }
    }
}

fn fail(kind: FailureKind, inv: &Invocation<'_>, message: String) -> Failure {
    Failure {
        kind,
        index: Some(inv.index),
        path: inv.path.to_string(),
        message,
        trail: Vec::new(),
        at: None,
    }
}

fn panic_message(payload: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string panic payload)".to_string()
    }
}

fn nonconvergence_message(
    g: &GroupEntry,
    path: &str,
    last: &[String],
    cycle: Option<(u32, usize)>,
) -> String {
    if g.max == 0 {
        return format!(
            "fixed point '{path}' has a budget of 0 iterations and ran nothing (not converged)"
        );
    }
    let mut names: Vec<&str> = Vec::new();
    for n in last {
        if !names.contains(&n.as_str()) {
            names.push(n);
        }
    }
    let mut msg = format!(
        "fixed point '{path}' did not converge within {} iteration{}; still changing in the last iteration: {}",
        g.max,
        if g.max == 1 { "" } else { "s" },
        names.join(", ")
    );
    if let Some((it, period)) = cycle {
        let who = match names.as_slice() {
            [one] => format!("{one} keeps undoing itself"),
            [init @ .., last] => format!("{} and {last} keep undoing each other", init.join(", ")),
            [] => "the passes keep undoing each other".to_string(),
        };
        msg.push_str(&format!(
            "; after iteration {it} the module was back in the state of {period} iteration{} earlier: {who}",
            if period == 1 { "" } else { "s" }
        ));
    }
    msg
}
