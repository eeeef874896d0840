//! The pass API: what a pass is, what it returns, and the context it runs in.
//!
//! A pass runs on a whole module ([`Pass::run`]); per-function passes implement
//! [`FunctionPass`] and are adapted by [`PerFunction`]. Passes are declared with
//! [`declare_pass!`](crate::declare_pass) (see `docs/adding-a-pass.md`). Every run returns
//! a [`PassRun`]: what the IR change was ([`Changed`], upstream's per-entry "changed"
//! predicate refined so that control-flow analyses survive instruction-only edits), an
//! ordered [`PassReport`] of named counters (upstream's `PassReport`, with the same key
//! set as upstream publishes), and an optional refusal. A refusal means the pass declined to
//! run because its preconditions do not hold: it must leave the module byte-identical,
//! and the pipeline reports it as a warning (or aborts, if the entry is marked so).

use crate::analysis::AnalysisCache;
use crate::declare::{Counters, PassDecl};
use xir_ir::{FuncId, Module};

/// What a pass changed, from least to most: the executor and [`PerFunction`] drop the
/// analyses a change of this size invalidates (see
/// [`Analysis::INVALIDATED_BY`](crate::analysis::Analysis::INVALIDATED_BY)).
///
/// Under `--verify-each` the executor holds a pass to its claim: `Nothing` must leave the
/// module's fingerprint alone, and `Instructions` its control-flow fingerprint (blocks,
/// their order, the body, terminator kinds and successor edges).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Changed {
    /// The module is untouched.
    #[default]
    Nothing,
    /// Instructions, operands, metadata, constants or functions changed, but no block was
    /// added, removed or reordered and no terminator's kind or successor edges changed:
    /// the CFG, dominator tree and dominance frontiers are still valid.
    Instructions,
    /// Blocks or edges changed: every analysis of the function is invalid.
    ControlFlow,
}

impl Changed {
    /// Whether anything changed (upstream's boolean "changed").
    pub fn any(self) -> bool {
        self != Changed::Nothing
    }
}

/// Ordered `(key, value)` counters, as upstream's `PassReport`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassReport {
    entries: Vec<(String, u64)>,
}

impl PassReport {
    /// An empty report.
    pub fn new() -> Self {
        Self::default()
    }
    /// A report publishing every key with value 0 (upstream's fixed key schema).
    pub fn with_keys(keys: &[&str]) -> Self {
        Self {
            entries: keys.iter().map(|k| (k.to_string(), 0)).collect(),
        }
    }
    /// Sets `key` (overwrites or appends).
    pub fn set(&mut self, key: &str, v: u64) {
        match self.entries.iter_mut().find(|(k, _)| k == key) {
            Some(e) => e.1 = v,
            None => self.entries.push((key.to_string(), v)),
        }
    }
    /// Adds `v` to `key` (appending it if absent).
    pub fn add(&mut self, key: &str, v: u64) {
        match self.entries.iter_mut().find(|(k, _)| k == key) {
            Some(e) => e.1 = e.1.saturating_add(v),
            None => self.entries.push((key.to_string(), v)),
        }
    }
    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<u64> {
        self.entries.iter().find(|(k, _)| k == key).map(|e| e.1)
    }
    /// Sums `other` into `self` by key (unknown keys are appended).
    pub fn merge_sum(&mut self, other: &PassReport) {
        for (k, v) in &other.entries {
            self.add(k, *v);
        }
    }
    /// Keeps the maximum per key.
    pub fn merge_max(&mut self, other: &PassReport) {
        for (k, v) in &other.entries {
            match self.entries.iter_mut().find(|(kk, _)| kk == k) {
                Some(e) => e.1 = e.1.max(*v),
                None => self.entries.push((k.clone(), *v)),
            }
        }
    }
    /// All entries in order.
    pub fn entries(&self) -> &[(String, u64)] {
        &self.entries
    }
    /// True when there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// The outcome of one pass invocation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassRun {
    /// What changed (the entry's "changed" predicate is [`Changed::any`]).
    pub changed: Changed,
    /// Counters.
    pub report: PassReport,
    /// `Some(reason)` when the pass declined to run; the module must be unchanged.
    pub refusal: Option<String>,
}

impl PassRun {
    /// A run that changed `changed` with `report`.
    pub fn new(changed: Changed, report: PassReport) -> Self {
        Self {
            changed,
            report,
            refusal: None,
        }
    }
    /// A refusal (module untouched) with its counters.
    pub fn refused(reason: impl Into<String>, report: PassReport) -> Self {
        Self {
            changed: Changed::Nothing,
            report,
            refusal: Some(reason.into()),
        }
    }
}

/// A hard failure (internal error, or invalid input detected mid-way by a pass that
/// cannot refuse cleanly). The pipeline stops and exits 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassError {
    /// What went wrong.
    pub message: String,
}

impl PassError {
    /// A failure with `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

impl std::fmt::Display for PassError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// What a pass may use besides the module.
#[derive(Default)]
pub struct PassContext {
    /// Cached analyses (invalidated by the pipeline after a pass reports a change).
    pub analyses: AnalysisCache,
    /// `fast-math` and other pipeline-level switches passes may read.
    pub fast_math: bool,
}

/// A transformation over a module.
pub trait Pass {
    /// Runs the pass.
    fn run(&self, module: &mut Module, cx: &mut PassContext) -> Result<PassRun, PassError>;
}

/// A transformation over one function at a time, declared with
/// [`declare_pass!`](crate::declare_pass) (which supplies its counters, report keys and
/// registry entry).
pub trait FunctionPass: PassDecl {
    /// Runs on function `f`, counting what it did in `counters` (fresh for every
    /// function). What changed is derived from the counters
    /// ([`Counters::changed`]); there is no separate result to keep in sync.
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        cx: &mut PassContext,
        counters: &mut Self::Counters,
    ) -> Result<(), PassError>;
}

/// Adapts a [`FunctionPass`] to [`Pass`]: runs it on every function with a body, in
/// module order, and drops the analyses of each function that its change invalidates.
pub struct PerFunction<P>(pub P);

impl<P: FunctionPass> Pass for PerFunction<P> {
    fn run(&self, module: &mut Module, cx: &mut PassContext) -> Result<PassRun, PassError> {
        let mut total = P::Counters::default();
        let funcs = module.func_order.clone();
        for f in funcs {
            if module.func(f).body.is_none() {
                continue;
            }
            let mut counters = P::Counters::default();
            self.0.run_on_function(module, f, cx, &mut counters)?;
            cx.analyses.invalidate_function_for(f, counters.changed());
            total.merge(&counters);
        }
        Ok(PassRun::new(total.changed(), total.report()))
    }
}
