//! `dead-arg-elim` — remove unused arguments of internal callables.
//!
//! **What:** an argument of a callable that its body never uses and that carries no
//! metadata is removed from the signature and from every call site.
//!
//! **Algorithm** (as upstream's `dead_arg_elim.cpp`, read at LuisaCompute `0c84a1aa`;
//! facts only): per callable with a body, in module order, the whole function is checked
//! before anything changes — it has no `signature_constraint` metadata, and every place
//! that names it is the callee slot of a `call` with as many arguments as it has
//! parameters (a function named any other way, e.g. by a ray-query pipeline or as an
//! argument, has an externally fixed ABI). Then the unused, unannotated arguments go from
//! the argument list and the matching operands from every call (one sweep per call).
//! Argument metadata is an ABI constraint: an annotated argument stays even when unused.
//!
//! **Differs from upstream:** only callables are considered. Upstream skips kernels but
//! not raster stages, whose arguments are just as much an external interface; they are
//! left alone here.
//!
//! **Preconditions:** none. **Refusals:** none (a function that fails the check is left
//! unchanged).
//!
//! **Report keys:** `removed_arg`. **Changed:** `removed_arg > 0`.
//!
//! **Example:**
//! ```text
//! callable %f: i32 (%a: i32; %unused: f32;) = …   →   callable %f: i32 (%a: i32;) = …
//! %r: i32 = call %f, %x, %y;                       →   %r: i32 = call %f, %x;
//! ```

use crate::declare::Counters;
use crate::pass::{Pass, PassContext, PassError, PassRun};
use crate::util::calls::CallGraph;
use xir_ir::function::FunctionKind;
use xir_ir::metadata::Metadata;
use xir_ir::{ArgId, FuncId, Module, SecondaryMap, Value};

/// The `dead-arg-elim` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct DeadArgElim;

crate::declare_pass! {
    DeadArgElim: module pass "dead-arg-elim" {
        summary: "Removes unused, unannotated arguments of callables and the operands at every call",
        form: Either,
        counters: DeadArgElimCounters {
            /// Arguments removed (from the signature and every call site).
            removed_arg: Instructions,
        }
    }
}

impl Pass for DeadArgElim {
    fn run(&self, module: &mut Module, _cx: &mut PassContext) -> Result<PassRun, PassError> {
        let mut counters = DeadArgElimCounters::default();
        let graph = CallGraph::compute(module);
        let order = module.func_order.clone();
        for f in order {
            let Some(dead) = removable_args(module, &graph, f) else {
                continue;
            };
            let positions: Vec<usize> = {
                let func = module.func(f);
                func.arg_order
                    .iter()
                    .enumerate()
                    .filter(|(_, a)| dead.contains(a))
                    .map(|(k, _)| k)
                    .collect()
            };
            for site in graph.sites_of(f) {
                let call = &mut module.func_mut(site.caller).insts[site.inst];
                let mut k = 0usize;
                // Operand 0 is the callee; argument `j` is operand `1 + j`.
                call.operands.retain(|_| {
                    let keep = k == 0 || !positions.contains(&(k - 1));
                    k += 1;
                    keep
                });
            }
            module.func_mut(f).arg_order.retain(|a| !dead.contains(a));
            counters.removed_arg += dead.len() as u64;
        }
        Ok(PassRun::new(counters.changed(), counters.report()))
    }
}

/// The arguments of `f` to remove, or `None` when `f` must keep its signature (see the
/// module docs).
fn removable_args(module: &Module, graph: &CallGraph, f: FuncId) -> Option<Vec<ArgId>> {
    let func = module.func(f);
    if !matches!(func.kind, FunctionKind::Callable)
        || func.body.is_none()
        || graph.is_escaping(f)
        || func
            .metadata
            .iter()
            .any(|m| matches!(m, Metadata::SignatureConstraint))
    {
        return None;
    }
    let params = func.arg_order.len();
    for site in graph.sites_of(f) {
        if module.func(site.caller).insts[site.inst].operands.len() != params + 1 {
            return None;
        }
    }
    let mut used: SecondaryMap<ArgId, bool> = SecondaryMap::with_default(false);
    for i in func.placed_insts() {
        for v in &func.insts[i].operands {
            if let Value::Arg(a) = v {
                used[*a] = true;
            }
        }
    }
    let dead: Vec<ArgId> = func
        .arg_order
        .iter()
        .copied()
        .filter(|a| !used[*a] && func.args[*a].metadata.is_empty())
        .collect();
    (!dead.is_empty()).then_some(dead)
}
