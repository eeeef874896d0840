//! `reconstruct-ray-query-loop` — re-forms explicit ray-query loops (candidate
//! detection only; the rewrite is not implemented yet and fails closed).
//!
//! **What:** upstream turns explicit ray-query loops back into `ray_query_loop` +
//! `ray_query_dispatch`: a `loop` whose prepare, body or update performs
//! `ray_query_object_proceed` (the canonical shape `lower-ray-query-to-loop` produces),
//! and a `simple_loop` whose body performs it (the frontend's inline
//! `while (query.proceed())` shape). Every other `loop`/`simple_loop` is *ignored*.
//! This implementation classifies every loop exactly as upstream does; a module with
//! no candidate (no loop performing `proceed`) is left untouched, which is what
//! upstream does with it too. **A module with a candidate fails the run** with
//! "not implemented yet for modules containing ray-query loops", naming the function
//! and block: the shape matching and rewrite are not written yet, and running on
//! without them would hand the backend a loop upstream would have rebuilt.
//!
//! **Algorithm:** one scan of every definition's loop terminators.
//!
//! **Preconditions:** none.
//!
//! **Refusals:** none; a candidate is a hard error (above).
//!
//! **Upstream followed:** LuisaCompute `src/xir/passes/reconstruct_ray_query_loop.cpp`
//! (candidate rule: `proceed` in a `loop`'s prepare/body/update or a `simple_loop`'s
//! body; report keys).
//!
//! **Report keys:** `reconstructed_ray_query_loop` (always 0 here), `ignored_loop`,
//! `error`. **Changed:** never.
//!
//! **Example:**
//! ```text
//! %l: loop prepare %p, …   (no proceed anywhere)   →  unchanged, ignored_loop: 1
//! %l: loop prepare %p, …   (%p: proceed %q; …)     →  error: not implemented yet
//! ```

use crate::declare::Counters;
use crate::form::describe_function;
use crate::pass::{Pass, PassContext, PassError, PassRun};
use xir_ir::inst::InstKind;
use xir_ir::op::RayQueryObjectWriteOp;
use xir_ir::text::print::printed_block_labels;
use xir_ir::{BlockId, Function, Module};

/// The `reconstruct-ray-query-loop` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct ReconstructRayQueryLoop;

crate::declare_pass! {
    ReconstructRayQueryLoop: module pass "reconstruct-ray-query-loop" {
        summary: "Re-forms explicit ray-query loops (fails on a candidate: not implemented yet).",
        form: Either,
        counters: ReconstructRayQueryLoopCounters {
            /// Loops re-formed into `ray_query_loop` (not implemented: always 0).
            reconstructed_ray_query_loop: ControlFlow,
            /// `loop`/`simple_loop`s that perform no `proceed`.
            ignored_loop: Nothing,
            /// Rejected candidates.
            error: Nothing,
        }
    }
}

fn proceeds(func: &Function, b: Option<BlockId>) -> bool {
    b.is_some_and(|b| {
        func.blocks[b].insts.iter().any(|i| {
            matches!(
                func.inst(*i).kind,
                InstKind::RayQueryObjectWrite(RayQueryObjectWriteOp::Proceed)
            )
        })
    })
}

impl Pass for ReconstructRayQueryLoop {
    fn run(&self, module: &mut Module, _cx: &mut PassContext) -> Result<PassRun, PassError> {
        let mut c = ReconstructRayQueryLoopCounters::default();
        for &f in &module.func_order {
            let func = module.func(f);
            if func.body.is_none() {
                continue;
            }
            for &b in &func.block_order {
                let Some(t) = func.terminator(b) else {
                    continue;
                };
                let d = func.inst(t);
                let first = d.operands.first().and_then(|v| v.as_block());
                let candidate = match &d.kind {
                    InstKind::Loop { body, update, .. } => {
                        proceeds(func, first) || proceeds(func, *body) || proceeds(func, *update)
                    }
                    InstKind::SimpleLoop { .. } => proceeds(func, first),
                    _ => continue,
                };
                if candidate {
                    let label = printed_block_labels(module, f, &[b])
                        .pop()
                        .flatten()
                        .unwrap_or_else(|| "an unlisted block".into());
                    return Err(PassError::new(format!(
                        "reconstruct-ray-query-loop is not implemented yet for modules \
                         containing ray-query loops: {} has a loop in block {label} that \
                         performs ray_query_object_proceed",
                        describe_function(module, f)
                    )));
                }
                c.ignored_loop += 1;
            }
        }
        Ok(PassRun::new(c.changed(), c.report()))
    }
}
