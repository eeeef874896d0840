//! Running passes directly, without the pipeline framework — the baseline for measuring
//! the framework's overhead (registry lookup, option parsing, form checks, records,
//! timing, stats).
//!
//! [`run_direct`] calls each pass's implementation in sequence through static dispatch
//! with one shared [`PassContext`]. Analyses stay correct because every per-function pass
//! invalidates what it changed in each function (see
//! [`PerFunction`](crate::pass::PerFunction)). Nothing else happens between passes: no
//! verification, no timing, no records. [`DirectPass`] has one variant per registered
//! pass; it is generated from the registry's list (`transform/mod.rs`).
//!
//! ```
//! use xir_passes::direct::{DirectPass, run_direct};
//! let mut m = xir_ir::Module::new();
//! let runs = run_direct(&mut m, &[DirectPass::Mem2Reg, DirectPass::Dce]).unwrap();
//! assert_eq!(runs.len(), 2);
//! ```

use crate::pass::{PassContext, PassError, PassRun};
pub use crate::transform::DirectPass;
use xir_ir::Module;

/// Parses a comma-separated list of pass names (`"mem2reg,dce"`).
pub fn parse_list(list: &str) -> Result<Vec<DirectPass>, String> {
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|n| DirectPass::from_name(n).ok_or_else(|| format!("no direct pass named '{n}'")))
        .collect()
}

/// Runs `passes` in order on `module`, directly (see the module docs). Stops at the first
/// error. Returns each pass's run.
pub fn run_direct(module: &mut Module, passes: &[DirectPass]) -> Result<Vec<PassRun>, PassError> {
    let mut cx = PassContext::default();
    passes.iter().map(|p| p.run(module, &mut cx)).collect()
}
