//! `test-lie-about-cfg` — add a block but claim an instruction-only change.
//!
//! **What:** appends a new block holding only `unreachable` to the first function with
//! a body. The module stays valid (nothing branches to the block).
//!
//! **Why:** its only counter is declared `Instructions`, which is a lie: a new block
//! changes the control-flow graph, so the cached CFG and dominator tree would be kept
//! although stale. Under `--verify-each` the executor compares control-flow fingerprints
//! around every pass that claims an instruction-only change and fails the run (exit 3).
//!
//! **Preconditions:** none. **Refusals:** a module without a function body.
//!
//! **Report keys:** `added_block` (declared `Instructions`, on purpose).

use crate::declare::Counters;
use crate::pass::{Pass, PassContext, PassError, PassRun};
use xir_ir::{InstData, InstKind, Module};

/// The `test-lie-about-cfg` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct LieAboutCfg;

crate::declare_pass! {
    LieAboutCfg: module pass "test-lie-about-cfg" {
        summary: "Adds an unreachable block but reports an instruction-only change (the CFG honesty check catches it).",
        form: Either,
        counters: LieAboutCfgCounters {
            /// Blocks added (declared instruction-only: the lie).
            added_block: Instructions,
        }
    }
}

impl Pass for LieAboutCfg {
    fn run(&self, m: &mut Module, _cx: &mut PassContext) -> Result<PassRun, PassError> {
        let mut c = LieAboutCfgCounters::default();
        let Some(f) = m.func_order.iter().copied().find(|f| m.func(*f).body.is_some()) else {
            return Ok(PassRun::refused(
                "test-lie-about-cfg: no function has a body",
                c.report(),
            ));
        };
        let func = m.func_mut(f);
        let b = func.create_block();
        let unreachable = InstKind::Unreachable {
            message: String::new(),
        };
        func.append_inst(b, InstData::new(unreachable, None, []));
        c.added_block += 1;
        Ok(PassRun::new(c.changed(), c.report()))
    }
}
