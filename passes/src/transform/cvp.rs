//! `cvp` — correlated value propagation over structured `if` conditions.
//!
//! **What:** inside the arm of a structured `if` where the condition `v == C` (or
//! `v != C`) proves that `v` holds the integer or `bool` constant `C`, the uses of `v` in
//! the blocks that arm dominates read `C` instead.
//!
//! **Algorithm** (as upstream's `cvp.cpp`, read at LuisaCompute `0c84a1aa`; facts only):
//! for every `if` whose condition is an `arithmetic binary_equal` / `binary_not_equal` of
//! an instruction result `v` and a scalar integer or `bool` constant `C` (either operand
//! order; float constants never — `+0 == -0` does not fix the bits), the arm where the
//! fact holds is the `then` block for `==` and the `else` block for `!=`. The fact holds
//! throughout that arm only when the edge from the `if` is the arm's one way in: the arm
//! is neither the `if`'s block nor its merge, the two arms differ, and every other
//! predecessor of the arm is a back edge from a block the arm dominates. Then every use of
//! `v` by an instruction in a reachable block the arm dominates is rewritten to `C`.
//!
//! **Preconditions:** none; plain `cond_br` is not analysed (upstream's pass looks at
//! structured `if` only). **Refusals:** none.
//!
//! **Report keys:** `replaced_inst` (operand uses rewritten). **Changed:** non-zero.
//!
//! **Example:**
//! ```text
//! %c = arithmetic binary_equal %x, %three;  if %c, then %t, …
//! %t: %y = arithmetic binary_add %x, %one   →   %y = arithmetic binary_add %three, %one
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use xir_ir::analysis::{Cfg, DomTree};
use xir_ir::inst::InstKind;
use xir_ir::op::ArithmeticOp;
use xir_ir::uses::UseMap;
use xir_ir::{BlockId, FuncId, InstId, Module, Value};

/// The `cvp` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct Cvp;

crate::declare_pass! {
    Cvp: function pass "cvp" {
        summary: "Uses of v inside the arm of `if v == C` (or the else arm of !=) read the integer constant C",
        form: Either,
        counters: CvpCounters {
            /// Operand uses rewritten to the constant.
            replaced_inst: Instructions,
        }
    }
}

/// `(v, C, the arm where v == C)` for an `if` at the end of `header`, if its condition has
/// the shape the pass handles.
fn equality_fact(module: &Module, f: FuncId, header: BlockId) -> Option<(InstId, Value, BlockId)> {
    let func = module.func(f);
    let t = func.terminator(header)?;
    let d = &func.insts[t];
    let InstKind::If { merge } = d.kind else {
        return None;
    };
    let (Some(Value::Inst(c)), Some(Value::Block(then)), Some(Value::Block(els))) =
        (d.operands.first(), d.operands.get(1), d.operands.get(2))
    else {
        return None;
    };
    let cd = &func.insts[*c];
    let InstKind::Arithmetic(op @ (ArithmeticOp::BinaryEqual | ArithmeticOp::BinaryNotEqual)) =
        cd.kind
    else {
        return None;
    };
    let (var, constant) = match (cd.operands.first(), cd.operands.get(1)) {
        (Some(Value::Inst(v)), Some(k @ Value::Const(_))) => (*v, *k),
        (Some(k @ Value::Const(_)), Some(Value::Inst(v))) => (*v, *k),
        _ => return None,
    };
    let Value::Const(k) = constant else {
        return None;
    };
    let kind = module.types.scalar_kind(module.constants[k].ty)?;
    if kind.is_float() {
        return None;
    }
    let arm = if op == ArithmeticOp::BinaryEqual { *then } else { *els };
    if arm == header || Some(arm) == merge || then == els {
        return None;
    }
    Some((var, constant, arm))
}

impl FunctionPass for Cvp {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        cx: &mut PassContext,
        counters: &mut CvpCounters,
    ) -> Result<(), PassError> {
        let cfg = cx.analyses.get::<Cfg>(module, f);
        let dom = cx.analyses.get::<DomTree>(module, f);
        let facts: Vec<(InstId, Value, BlockId)> = module
            .func(f)
            .block_order
            .iter()
            .filter_map(|&header| {
                let (var, constant, arm) = equality_fact(module, f, header)?;
                let exclusive = dom.contains(arm)
                    && cfg
                        .preds(arm)
                        .iter()
                        .all(|&p| p == header || dom.contains(p) && dom.dominates(arm, p));
                exclusive.then_some((var, constant, arm))
            })
            .collect();
        if facts.is_empty() {
            return Ok(());
        }
        let func = module.func_mut(f);
        let uses = UseMap::compute(func);
        for (var, constant, arm) in facts {
            for u in uses.insts.get(var) {
                let Some(b) = func.insts[u.inst].block else { continue };
                if dom.contains(b) && dom.dominates(arm, b) && func.insts[u.inst].operands[u.index as usize] == Value::Inst(var) {
                    func.insts[u.inst].operands[u.index as usize] = constant;
                    counters.replaced_inst += 1;
                }
            }
        }
        Ok(())
    }
}
