//! Unit tests of the passes, with a module holder (`T`, building through the one builder,
//! `xir_ir::edit::InstBuilder`); the checker after every pass is the module verifier.

mod analysis_cache;
mod cfg_round_trip;
mod const_fold;
mod dce;
mod fuzz;
mod mem2reg;
mod phi_cleanup;
mod reg2mem;
mod schema;
mod simplify_cfg;

use crate::pass::{Pass, PassContext, PassRun};
pub use xir_ir::edit::InstBuilder;
use xir_ir::inst::InstKind;
pub use xir_ir::op::{AllocaOp, ArithmeticOp};
use xir_ir::{BlockId, InstId, Metadata, Module, Value};
pub use xir_testgen::T;

/// Running a pass on the test holder ([`T`], from xir-testgen) with the checker
/// before and after.
pub trait RunPass {
    /// Runs `pass` on the module with a fresh context, checking well-formedness before and after.
    fn run(&mut self, pass: &dyn Pass) -> PassRun;
    /// Runs `pass` without checking the input first (for deliberately non-SSA inputs).
    fn run_unchecked(&mut self, pass: &dyn Pass) -> PassRun;
}

impl RunPass for T {
    fn run(&mut self, pass: &dyn Pass) -> PassRun {
        check(&self.m);
        let mut cx = PassContext::default();
        let r = pass.run(&mut self.m, &mut cx).expect("pass failed");
        check(&self.m);
        r
    }
    fn run_unchecked(&mut self, pass: &dyn Pass) -> PassRun {
        let mut cx = PassContext::default();
        let r = pass.run(&mut self.m, &mut cx).expect("pass failed");
        check(&self.m);
        r
    }
}

/// Counter `key` of a run.
pub fn stat(r: &PassRun, key: &str) -> u64 {
    r.report
        .get(key)
        .unwrap_or_else(|| panic!("missing key {key}"))
}

/// The one checker: the module verifier (structure, placement, SSA dominance, phi
/// incomings = predecessors), which every pass test runs after every pass.
pub fn check(m: &Module) {
    let diags = xir_ir::verify::verify_module(m, &xir_ir::verify::VerifyOptions::default(), None);
    assert!(diags.is_empty(), "verifier: {diags:#?}");
}
