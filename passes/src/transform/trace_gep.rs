//! `trace-gep` — fold `getelementptr` chains and remove no-op `getelementptr`s.
//!
//! **What:** a `getelementptr` whose base is another (unannotated) `getelementptr` is
//! rewritten in place to start from the chain's origin with all the indices
//! concatenated, outermost first: `%b = gep %a, i; %c = gep %b, j` makes `%c = gep %a,
//! i, j`. The inner GEPs stay (now possibly unused: `dce` removes them). A
//! `getelementptr` left with no index is the pointer itself: its uses take its base and
//! it is removed.
//!
//! **Algorithm:** one walk over the placed instructions. Each GEP's chain is followed
//! through unannotated GEP bases (iteratively, at most as many steps as the function has
//! instructions) and its operands are replaced. No-op GEPs are then replaced by their
//! base in one sweep of the function (chains of them resolve to the first non-GEP base)
//! and removed. Nothing else changes: result types are unchanged (the element a chain
//! reaches is the element the outer GEP names).
//!
//! **Metadata:** an annotated GEP is a tracing boundary (it keeps its own identity:
//! chains stop at it, and its metadata would have no owner if it became dead), and an
//! annotated no-op GEP is retained. An annotated outer GEP is still rewritten in place
//! (it keeps its metadata).
//!
//! **Preconditions:** none (structured or plain CFG). **Refusals:** none.
//!
//! **Upstream followed:** LuisaCompute `src/xir/passes/trace_gep.cpp` at `fdc3e7d3` (the
//! in-place rewrite, the annotated-base boundary, the no-op removal) and the report keys
//! its pipeline entries publish (`traced_gep`, `removed_noop_gep`). Differences: the
//! chain walk is iterative and bounded (upstream recurses).
//!
//! **Report keys:** `traced_gep` (GEPs rewritten to start from their origin),
//! `removed_noop_gep` (index-less GEPs removed). **Changed:** either is non-zero
//! (instructions only).
//!
//! **Example:**
//! ```text
//! %b: array<f32, 4> = getelementptr %m, %i;
//! %c: f32 = getelementptr %b, %j;      →   %c: f32 = getelementptr %m, %i, %j;
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use crate::util::edit::ValueSubst;
use smallvec::SmallVec;
use xir_ir::inst::InstKind;
use xir_ir::{FuncId, Function, InstId, Module, Value};

/// The `trace-gep` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct TraceGep;

crate::declare_pass! {
    TraceGep: function pass "trace-gep" {
        summary: "Folds GEP-of-GEP chains and removes no-op GEPs",
        form: Either,
        counters: TraceGepCounters {
            /// GEPs rewritten to start from the origin of their chain.
            traced_gep: Instructions,
            /// GEPs without indices replaced by their base and removed.
            removed_noop_gep: Instructions,
        }
    }
}

impl FunctionPass for TraceGep {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        _cx: &mut PassContext,
        counters: &mut TraceGepCounters,
    ) -> Result<(), PassError> {
        let func = module.func_mut(f);
        let geps: Vec<InstId> = func
            .placed_insts()
            .filter(|i| func.insts[*i].kind == InstKind::Gep && !func.insts[*i].operands.is_empty())
            .collect();
        for &g in &geps {
            if let Some(ops) = traced_operands(func, g) {
                func.insts[g].operands = ops;
                counters.traced_gep += 1;
            }
        }
        let mut subst = ValueSubst::new();
        let mut noop = Vec::new();
        for &g in &geps {
            let d = &func.insts[g];
            if d.operands.len() == 1 && d.metadata.is_empty() {
                subst.replace(g, d.operands[0]);
                noop.push(g);
            }
        }
        subst.apply(func);
        func.remove_insts(&noop);
        counters.removed_noop_gep += noop.len() as u64;
        Ok(())
    }
}

/// Whether `v` is an unannotated GEP (one a chain may be traced through).
fn traceable(func: &Function, v: Value) -> Option<InstId> {
    let Value::Inst(i) = v else { return None };
    let d = &func.insts[i];
    (d.kind == InstKind::Gep && d.metadata.is_empty() && !d.operands.is_empty()).then_some(i)
}

/// The operands of GEP `g` traced to its chain's origin, or `None` when its base is not
/// a traceable GEP.
fn traced_operands(func: &Function, g: InstId) -> Option<SmallVec<[Value; 3]>> {
    let mut inner = traceable(func, func.insts[g].operands[0])?;
    // Index groups from the outside in; reversed at the end.
    let mut groups: Vec<&[Value]> = vec![&func.insts[g].operands[1..]];
    let mut origin;
    let mut steps = 0usize;
    loop {
        let d = &func.insts[inner];
        groups.push(&d.operands[1..]);
        origin = d.operands[0];
        steps += 1;
        match traceable(func, origin) {
            Some(next) if next != g && steps <= func.insts.len() => inner = next,
            _ => break,
        }
    }
    let mut ops: SmallVec<[Value; 3]> = SmallVec::new();
    ops.push(origin);
    for grp in groups.iter().rev() {
        ops.extend(grp.iter().copied());
    }
    Some(ops)
}
