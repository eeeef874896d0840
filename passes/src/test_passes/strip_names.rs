//! `test-strip-names` — remove `name` metadata from instructions (the worked example of
//! `docs/adding-a-pass.md`).
//!
//! **What:** deletes every `name = …` entry from the metadata of the instructions of
//! each function with a body; other metadata stays, in order.
//!
//! **Algorithm:** one walk over the placed instructions of each function. The blocks,
//! terminators and edges are never touched, so the change is instruction-only and the
//! cached control-flow analyses survive it.
//!
//! **Preconditions:** none. **Refusals:** none.
//!
//! **Report keys:** `stripped_name`. **Changed:** `Instructions` when `stripped_name > 0`.
//!
//! **Example:**
//! ```text
//! [name = x]  %x: i32 = load %p;   →   %x: i32 = load %p;
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use xir_ir::{FuncId, Metadata, Module};

/// The `test-strip-names` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct StripNames;

crate::declare_pass! {
    StripNames: function pass "test-strip-names" {
        summary: "Removes `name` metadata from every instruction (the adding-a-pass example).",
        form: Either,
        counters: StripNamesCounters {
            /// `name` entries removed.
            stripped_name: Instructions,
        }
    }
}

impl FunctionPass for StripNames {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        _cx: &mut PassContext,
        counters: &mut StripNamesCounters,
    ) -> Result<(), PassError> {
        let func = module.func_mut(f);
        let insts: Vec<_> = func.placed_insts().collect();
        for i in insts {
            let md = &mut func.insts[i].metadata;
            let before = md.len();
            md.retain(|m| !matches!(m, Metadata::Name(_)));
            counters.stripped_name += (before - md.len()) as u64;
        }
        Ok(())
    }
}
