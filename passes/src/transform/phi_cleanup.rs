//! `phi-cleanup` — remove phis that do not merge anything.
//!
//! **What:** a phi with no users is deleted; a phi whose incomings, ignoring references to
//! itself and `undefined` values, are one value `v` is replaced by `v` when `v` is a
//! constant, argument or special register, or is defined in a block that strictly
//! dominates the phi's block (a loop-carried value defined later in the loop never
//! qualifies); a phi with no such incoming at all becomes `undefined`.
//!
//! **Algorithm:** repeat over the phis of the reachable blocks until a round changes
//! nothing, reading incomings through the replacements made so far; then rewrite all uses
//! in one sweep and delete the eliminated phis. Uses the cached dominator tree (the CFG is
//! never changed).
//!
//! **Metadata:** a phi carrying metadata is only deleted when unused, never replaced
//! (§5.2).
//!
//! **Preconditions:** none (structured or plain CFG). **Refusals:** none.
//!
//! **Report keys:** `removed_phi`. **Changed:** `removed_phi > 0`.
//!
//! **Example:**
//! ```text
//! %h: %i: i32 = phi (%n, %entry), (%i, %h)   →   uses of %i become %n
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use crate::util::phi::{eliminate_phis, simplifiable_phi};
use xir_ir::analysis::{Cfg, DomTree};
use xir_ir::inst::InstKind;
use xir_ir::{FuncId, InstId, Module};

/// The `phi-cleanup` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct PhiCleanup;

crate::declare_pass! {
    PhiCleanup: function pass "phi-cleanup" {
        summary: "Remove unused phis and phis with a single dominating incoming value",
        form: Either,
        counters: PhiCleanupCounters {
            /// Phis deleted or replaced.
            removed_phi: Instructions,
        }
    }
}

impl FunctionPass for PhiCleanup {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        cx: &mut PassContext,
        counters: &mut PhiCleanupCounters,
    ) -> Result<(), PassError> {
        let cfg = cx.analyses.get::<Cfg>(module, f);
        let dom = cx.analyses.get::<DomTree>(module, f);
        let phis: Vec<InstId> = {
            let func = module.func(f);
            cfg.rpo
                .iter()
                .flat_map(|b| func.blocks[*b].insts.iter().copied())
                .filter(|i| matches!(func.insts[*i].kind, InstKind::Phi))
                .collect()
        };
        let n = if phis.is_empty() {
            0
        } else {
            eliminate_phis(module, f, phis, |func, p, subst, uses| {
                simplifiable_phi(func, p, subst, uses, &dom)
            })
        };
        counters.removed_phi += n as u64;
        Ok(())
    }
}
