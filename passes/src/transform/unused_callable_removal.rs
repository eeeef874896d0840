//! `unused-callable-removal` — remove callables no kernel can reach.
//!
//! **What:** a callable with a body that no kernel reaches through the functions its
//! instructions name is removed from the module, callers before callees.
//!
//! **Algorithm** (as upstream's `unused_callable_removal.cpp`, read at LuisaCompute
//! `0c84a1aa`; facts only): mark every function reachable from a kernel by following the
//! function operands of the instructions of *every owned block* (disconnected blocks
//! included: they are not deleted here, so what they name must stay). The candidates are
//! the unreached callables that have a body and no `signature_constraint` metadata (a
//! bodyless callable may be defined elsewhere; a constrained signature is an external
//! ABI). Then, repeatedly, a candidate that no remaining function names is removed, which
//! may free its callees. A recursive cycle no kernel reaches never loses its last use and
//! is kept, as upstream keeps it; so is a candidate that a non-kernel entry (a raster
//! stage) still names.
//!
//! **Preconditions:** none. **Refusals:** none.
//!
//! **Report keys:** `removed_callable`. **Changed:** `removed_callable > 0`.
//!
//! **Example:**
//! ```text
//! callable %dead: void () = define …;   // named by no kernel, nor by anything a kernel
//!                                       // reaches: removed
//! ```

use crate::declare::Counters;
use crate::pass::{Pass, PassContext, PassError, PassRun};
use xir_ir::function::FunctionKind;
use xir_ir::metadata::Metadata;
use xir_ir::{FuncId, Module, SecondaryMap, Value};

/// The `unused-callable-removal` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct UnusedCallableRemoval;

crate::declare_pass! {
    UnusedCallableRemoval: module pass "unused-callable-removal" {
        summary: "Removes callables no kernel reaches (callers first; unreached recursive cycles stay)",
        form: Either,
        counters: UnusedCallableRemovalCounters {
            /// Callables removed from the module.
            removed_callable: ControlFlow,
        }
    }
}

/// The functions named by the operands of every placed instruction of `f`, with repeats.
fn named_functions(m: &Module, f: FuncId) -> impl Iterator<Item = FuncId> + '_ {
    let func = m.func(f);
    func.placed_insts().flat_map(move |i| {
        func.insts[i].operands.iter().filter_map(|v| match v {
            Value::Func(g) => Some(*g),
            _ => None,
        })
    })
}

impl Pass for UnusedCallableRemoval {
    fn run(&self, module: &mut Module, _cx: &mut PassContext) -> Result<PassRun, PassError> {
        let mut counters = UnusedCallableRemovalCounters::default();
        let mut reached: SecondaryMap<FuncId, bool> = SecondaryMap::with_default(false);
        let mut work: Vec<FuncId> = module
            .func_order
            .iter()
            .copied()
            .filter(|f| matches!(module.func(*f).kind, FunctionKind::Kernel { .. }))
            .collect();
        for &f in &work {
            reached[f] = true;
        }
        while let Some(f) = work.pop() {
            for g in named_functions(module, f) {
                if !reached[g] {
                    reached[g] = true;
                    work.push(g);
                }
            }
        }
        let mut candidate: SecondaryMap<FuncId, bool> = SecondaryMap::with_default(false);
        let mut uses: SecondaryMap<FuncId, u32> = SecondaryMap::with_default(0);
        for &f in &module.func_order {
            let func = module.func(f);
            candidate[f] = !reached[f]
                && matches!(func.kind, FunctionKind::Callable)
                && func.body.is_some()
                && !func
                    .metadata
                    .iter()
                    .any(|m| matches!(m, Metadata::SignatureConstraint));
            for g in named_functions(module, f) {
                uses[g] += 1;
            }
        }
        let mut ready: Vec<FuncId> = module
            .func_order
            .iter()
            .copied()
            .filter(|f| candidate[*f] && uses[*f] == 0)
            .collect();
        let mut removed: Vec<FuncId> = Vec::new();
        while let Some(f) = ready.pop() {
            for g in named_functions(module, f) {
                uses[g] -= 1;
                if uses[g] == 0 && candidate[g] {
                    ready.push(g);
                }
            }
            removed.push(f);
        }
        for f in removed {
            module.remove_function(f);
            counters.removed_callable += 1;
        }
        Ok(PassRun::new(counters.changed(), counters.report()))
    }
}
