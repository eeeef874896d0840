//! `lower-ray-query-loop-to-loop` — the older lowering of `ray_query_loop` to a
//! structured `loop` that tests both candidate kinds.
//!
//! **What:** every `ray_query_loop dispatch D, merge M` whose dispatch block holds only
//! `ray_query_dispatch q, exit M, on_surface_candidate S, on_procedural_candidate P`
//! becomes, in the same block and with the loop's metadata,
//! `loop prepare Pr, body B, update U, merge M`:
//!
//! * `Pr`: `ray_query_object_write ray_query_object_proceed q`, `t = …is_terminated q`,
//!   `a = unary_bit_not t`, `cond_br a, B, M`;
//! * `B`: `c = …is_triangle_candidate q`, `k = …is_procedural_candidate q`,
//!   `if c, then S, else E, merge T` (carrying the dispatch's metadata);
//! * `E`: `if k, then P, else K, merge Q`; `K`: `br Q`; `Q`: `br T`; `T`: `br U`;
//! * `U`: `br Pr`.
//!
//! Every `br D` of the surface handler goes to `T`, of the procedural handler to `Q`; a
//! phi in `M` takes its incoming from `Pr` instead of `D`; `D` is removed. Unlike
//! `lower-ray-query-to-loop`, an empty handler keeps its block and a candidate that is
//! neither triangle nor procedural runs no handler (the inner `else`).
//!
//! **Algorithm:** preflight every ray-query loop of every definition (the preflight of
//! `lower-ray-query-to-loop`, which checks the same shapes), then lower them all;
//! nothing is mutated when any loop is rejected.
//!
//! **Preconditions:** none (a module without `ray_query_loop` is left untouched).
//!
//! **Refusals** (module byte-identical, counted in `error`): the dispatch block does not
//! end in `ray_query_dispatch` or holds other instructions; the query is not an lvalue
//! of `LC_RayQueryAll`/`LC_RayQueryAny`; the dispatch exit is not the loop merge;
//! parent, dispatch, merge and handler blocks are not distinct; a phi in the dispatch
//! block or a handler entry; a handler region that reaches the merge, leaves a function,
//! has an unterminated block, reaches `D` other than by `br`, never returns to `D`, or
//! owns a construct merging outside it; overlapping handler regions; a predecessor of
//! `D`, of a handler region or of `M` outside the ray-query loop.
//!
//! **Upstream followed:** LuisaCompute `src/xir/passes/lower_ray_query_loop_to_loop.cpp`
//! and its header (output shape, every rejection, whole-module preflight, report keys).
//! **Deviation:** upstream leaves the emptied dispatch block in the function ending in
//! `unreachable`; here it is removed, as `lower-ray-query-to-loop` does (nothing names
//! it any more).
//!
//! **Report keys:** `lowered_ray_query_loop` (loops lowered), `error` (loops rejected).
//!
//! **Example:**
//! ```text
//! %l: ray_query_loop dispatch %d, merge %m
//! %d: ray_query_dispatch %q, exit %m, on_surface_candidate %s, on_procedural_candidate %p
//! →  %l: loop prepare %pr, body %b, update %u, merge %m
//!    %b: %c = is_triangle_candidate %q; %k = is_procedural_candidate %q;
//!        if %c, then %s, else %e, merge %t
//!    %e: if %k, then %p, else %skip, merge %pm      %s: …; br %t     %p: …; br %pm
//! ```

use crate::declare::Counters;
use crate::pass::{Pass, PassContext, PassError, PassRun};
use crate::transform::lower_ray_query_to_loop::{Site, preflight_module, proceed_loop};
use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::inst::InstKind;
use xir_ir::op::RayQueryObjectReadOp;
use xir_ir::{FuncId, Module, Value};

/// The `lower-ray-query-loop-to-loop` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct LowerRayQueryLoopToLoop;

crate::declare_pass! {
    LowerRayQueryLoopToLoop: module pass "lower-ray-query-loop-to-loop" {
        summary: "Lowers ray-query loops to loops testing both candidate kinds (older lowering).",
        form: Either,
        counters: LowerRayQueryLoopToLoopCounters {
            /// `ray_query_loop`s lowered to `loop`.
            lowered_ray_query_loop: ControlFlow,
            /// Ray-query loops rejected (refusal).
            error: Nothing,
        }
    }
}

fn lower(m: &mut Module, f: FuncId, site: &Site) {
    let bool_ty = m.types.bool();
    let func = m.func_mut(f);
    let dispatch_md = {
        let dt = func.terminator(site.dispatch).expect("preflighted");
        func.inst(dt).metadata.clone()
    };
    let [prepare, body, update, tri_merge, tri_else, proc_merge, skip] =
        std::array::from_fn(|_| func.create_block());
    let q = site.query;
    proceed_loop(func, site, bool_ty, [prepare, body, update]);
    let mut at = Cursor::at_end(func, body);
    let c = at.ray_query_object_read(RayQueryObjectReadOp::IsTriangleCandidate, bool_ty, q);
    let k = at.ray_query_object_read(RayQueryObjectReadOp::IsProceduralCandidate, bool_ty, q);
    let tri_if = at.if_(c, site.surface.0, tri_else, tri_merge);
    func.inst_mut(tri_if).metadata = dispatch_md;
    Cursor::at_end(func, tri_merge).br(update);
    Cursor::at_end(func, tri_else).if_(k, site.procedural.0, skip, proc_merge);
    Cursor::at_end(func, proc_merge).br(tri_merge);
    Cursor::at_end(func, skip).br(proc_merge);
    for ((_, r), target) in [(&site.surface, tri_merge), (&site.procedural, proc_merge)] {
        for &b in &r.blocks {
            let t = func.terminator(b).expect("preflighted");
            let d = func.inst_mut(t);
            if matches!(d.kind, InstKind::Branch) && d.operands[0] == Value::Block(site.dispatch) {
                d.operands[0] = Value::Block(target);
            }
        }
    }
    for k in 0..func.blocks[site.merge].insts.len() {
        let i = func.blocks[site.merge].insts[k];
        if func.inst(i).is_phi() {
            func.inst_mut(i).phi_rename_block(site.dispatch, prepare);
        }
    }
    func.remove_block(site.dispatch);
}

impl Pass for LowerRayQueryLoopToLoop {
    fn run(&self, module: &mut Module, _cx: &mut PassContext) -> Result<PassRun, PassError> {
        let mut c = LowerRayQueryLoopToLoopCounters::default();
        let sites = match preflight_module(module) {
            Ok(sites) => sites,
            Err((errors, reason)) => {
                c.error = errors;
                return Ok(PassRun::refused(reason, c.report()));
            }
        };
        for (f, site) in &sites {
            lower(module, *f, site);
            c.lowered_ray_query_loop += 1;
        }
        Ok(PassRun::new(c.changed(), c.report()))
    }
}
