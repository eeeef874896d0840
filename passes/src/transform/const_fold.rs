//! `const-fold` — evaluate arithmetic on constants.
//!
//! **What:** replaces an `arithmetic` instruction whose operands are all constants by the
//! module-interned constant it computes, and removes the instruction.
//!
//! **Algorithm:** one walk over the reachable blocks in reverse post-order. Operands are
//! read through the replacements made so far, so a chain `a = 1 + 2; b = a * 3` folds
//! completely in one run (definitions dominate their uses, and reverse post-order visits
//! dominators first); phis are never folded (that is `sccp`'s and `phi-cleanup`'s job).
//! Evaluation is [`util::const_eval`](crate::util::const_eval), shared with `sccp`:
//! integers wrap at their declared width; target-dependent float ops, NaN and subnormal
//! inputs or results, ambiguous signed zeros, division by zero, `MIN / -1` and
//! out-of-range shifts are left alone. All uses are rewritten in one sweep at the end.
//!
//! **Metadata:** an instruction carrying metadata is retained (a shared constant cannot
//! own it, §5.2).
//!
//! **Preconditions:** none (structured or plain CFG). **Refusals:** none; instructions the
//! evaluator declines simply stay.
//!
//! **Report keys:** `folded_inst`. **Changed:** `folded_inst > 0`.
//!
//! **Example:**
//! ```text
//! %3: i32 = arithmetic binary_add %1, %2;   // %1 = 2i32, %2 = 3i32
//! %4: void = return %3;                     // becomes `return %5` with const %5 = 5i32
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use crate::util::const_eval::eval_arithmetic;
use crate::util::edit::ValueSubst;
use xir_ir::analysis::Cfg;
use xir_ir::inst::InstKind;
use xir_ir::{FuncId, InstId, Module, Type, Value};

/// The `const-fold` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct ConstFold;

crate::declare_pass! {
    ConstFold: function pass "const-fold" {
        summary: "Replace arithmetic on constants by the constant it computes",
        form: Either,
        counters: ConstFoldCounters {
            /// Arithmetic instructions replaced by the constant they compute.
            folded_inst: Instructions,
        }
    }
}

impl FunctionPass for ConstFold {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        cx: &mut PassContext,
        counters: &mut ConstFoldCounters,
    ) -> Result<(), PassError> {
        let cfg = cx.analyses.get::<Cfg>(module, f);
        let order: Vec<InstId> = {
            let func = module.func(f);
            cfg.rpo
                .iter()
                .flat_map(|b| func.blocks[*b].insts.iter().copied())
                .filter(|i| {
                    let d = &func.insts[*i];
                    matches!(d.kind, InstKind::Arithmetic(_))
                        && d.metadata.is_empty()
                        && d.ty.is_some()
                        && !d.operands.is_empty()
                })
                .collect()
        };
        let mut subst = ValueSubst::new();
        let mut folded = Vec::new();
        for i in order {
            let Some((ty, bytes)) = evaluate(module, f, i, &subst) else {
                continue;
            };
            let c = module.constant(ty, &bytes);
            subst.replace(i, Value::Const(c));
            folded.push(i);
        }
        let func = module.func_mut(f);
        subst.apply(func);
        func.remove_insts(&folded);
        counters.folded_inst += folded.len() as u64;
        Ok(())
    }
}

/// The folded result of arithmetic instruction `i`, if all its operands are constants
/// (after `subst`) and the evaluator accepts it.
fn evaluate(module: &Module, f: FuncId, i: InstId, subst: &ValueSubst) -> Option<(Type, Vec<u8>)> {
    let d = &module.func(f).insts[i];
    let InstKind::Arithmetic(op) = d.kind else {
        return None;
    };
    let ty = d.ty?;
    let mut operands = Vec::with_capacity(d.operands.len());
    for v in &d.operands {
        let c = subst.resolve(*v).as_const()?;
        let cd = &module.constants[c];
        operands.push((cd.ty, &cd.bytes[..]));
    }
    eval_arithmetic(&module.types, op, ty, &operands).map(|b| (ty, b))
}
