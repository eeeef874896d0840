//! Oracles: a predicate bound to how `xir-opt` is run, evaluated on a candidate input
//! with an [`Edit`] of the command line. Bisection varies the edit, pipeline
//! minimization varies the edit's pipeline, reduction varies the input.

use crate::opt::OptRunner;
use crate::predicate::{Edit, Predicate, Undecided, Verdict};

/// Answers "is this run bad?".
pub trait Oracle {
    /// Evaluates `input` (the module text, or for a corpus test the whole test file)
    /// with every `xir-opt` command line changed by `edit`.
    fn eval(&self, input: &[u8], edit: &Edit) -> Result<Verdict, Undecided>;
    /// One line for reports.
    fn describe(&self) -> String;
    /// The `xir-opt` arguments the pipeline comes from (to expand it for minimization).
    fn opt_args(&self) -> Vec<String>;
    /// The runner, for auxiliary `xir-opt` calls (`--print-pipeline`).
    fn runner(&self) -> &dyn OptRunner;
}

/// A [`Predicate`] over `xir-opt ARGS` with the input on standard input.
pub struct PredicateOracle<'a> {
    /// How `xir-opt` runs.
    pub runner: &'a dyn OptRunner,
    /// What makes a run bad.
    pub predicate: Predicate,
    /// `xir-opt` arguments (no input path, no `-o`).
    pub args: Vec<String>,
}

impl Oracle for PredicateOracle<'_> {
    fn eval(&self, input: &[u8], edit: &Edit) -> Result<Verdict, Undecided> {
        self.predicate
            .eval(self.runner, input, &edit.apply(&self.args))
    }
    fn describe(&self) -> String {
        self.predicate.describe()
    }
    fn opt_args(&self) -> Vec<String> {
        self.args.clone()
    }
    fn runner(&self) -> &dyn OptRunner {
        self.runner
    }
}
