//! `autodiff` — lowers autodiff scopes (not implemented yet: fails the run naming the scope).
//!
//! **What:** upstream's `autodiff` pass turns each `autodiff` scope into explicit
//! derivative code. This toolkit has no autodiff lowering yet, so the registered entry
//! stops the pipeline with one error that names the first scope (its function and block)
//! and counts every scope of the module. It never skips a scope silently: a module that
//! reached this entry with a scope would otherwise leave the backend an instruction it
//! cannot emit. `spirv-final` and `pre-autodiff` only reach it under `if
//! has-autodiff-scope`, so a module without a scope never runs it there.
//!
//! **Algorithm:** one read-only scan of every placed instruction.
//!
//! **Preconditions:** none. A module without an autodiff scope is left untouched and
//! reports zero (there is nothing to lower).
//!
//! **Refusals:** none; a scope is a pass error (exit status 1), never a refusal, so that
//! no pipeline can continue past it.
//!
//! **Upstream followed:** LuisaCompute `src/xir/passes/autodiff.{h,cpp}` for the name and
//! the report keys (reference §6.3: `transformed_scope_count`,
//! `removed_instruction_count`).
//!
//! **Report keys** (upstream order, `_count` dropped): `transformed_scope`,
//! `removed_instruction` (both always 0 here). **Changed:** never.
//!
//! **Example:** `xir-opt --passes=autodiff k.xir` on a kernel with
//! `autodiff entry %e, merge %m` fails with
//! `pass 'autodiff' failed: autodiff is not implemented yet: function #0 ('k') has an
//! autodiff scope in block %1 (1 scope(s) in the module)`.

use crate::declare::Counters;
use crate::form::describe_function;
use crate::pass::{Pass, PassContext, PassError, PassRun};
use xir_ir::inst::InstKind;
use xir_ir::text::print::printed_block_labels;
use xir_ir::{BlockId, FuncId, Module};

/// The `autodiff` pass entry.
#[derive(Copy, Clone, Debug, Default)]
pub struct Autodiff;

crate::declare_pass! {
    Autodiff: module pass "autodiff" {
        summary: "Lowers autodiff scopes (not implemented yet: a scope fails the run, naming it).",
        form: Either,
        counters: AutodiffCounters {
            /// Scopes lowered (always 0: lowering is not implemented).
            transformed_scope: ControlFlow,
            /// Instructions removed by the lowering (always 0).
            removed_instruction: Instructions,
        }
    }
}

/// Every autodiff scope of `m`: `(function, block holding the scope)`.
pub fn autodiff_scopes(m: &Module) -> Vec<(FuncId, BlockId)> {
    let mut out = Vec::new();
    for &f in &m.func_order {
        let func = m.func(f);
        for &b in &func.block_order {
            for &i in &func.blocks[b].insts {
                if matches!(func.inst(i).kind, InstKind::AutodiffScope { .. }) {
                    out.push((f, b));
                }
            }
        }
    }
    out
}

impl Pass for Autodiff {
    fn run(&self, module: &mut Module, _cx: &mut PassContext) -> Result<PassRun, PassError> {
        let scopes = autodiff_scopes(module);
        let Some(&(f, b)) = scopes.first() else {
            let c = AutodiffCounters::default();
            return Ok(PassRun::new(c.changed(), c.report()));
        };
        let label = printed_block_labels(module, f, &[b])
            .pop()
            .flatten()
            .unwrap_or_else(|| "an unlisted block".to_string());
        Err(PassError::new(format!(
            "autodiff is not implemented yet: {} has an autodiff scope in block {label} \
             ({} scope(s) in the module); remove the scope or compile without autodiff",
            describe_function(module, f),
            scopes.len()
        )))
    }
}
