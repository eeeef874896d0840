//! `early-cse` — block-local common subexpression elimination.
//!
//! **What:** inside one block, a pure instruction equal to an earlier one of the same
//! block (same operation and sub-op, same result type, the same operand values) is
//! replaced by the earlier one and removed.
//!
//! **Algorithm** (as upstream's `early_cse.cpp`, read at LuisaCompute `d3790727`, with the
//! annotation rule of the reference §6.2; facts only): for each reachable block, a table
//! from [`PureKey`] (over operand values, read through the replacements made so far) to
//! the first instruction with that key, cleared at each block. Only `arithmetic`, `cast`,
//! `getelementptr` and `resource_query` instructions the instruction table calls pure take
//! part. Operands are compared as written: unlike `gvn`, `a + b` and `b + a` are not
//! recognised as equal (upstream does not canonicalise them here). All uses are rewritten
//! in one sweep at the end.
//!
//! **Metadata:** a duplicate that carries metadata is retained (its annotation has no
//! other owner); an annotated first occurrence still serves as the replacement.
//!
//! **Preconditions:** none (structured or plain CFG). **Refusals:** none.
//!
//! **Report keys:** `eliminated_inst`. **Changed:** `eliminated_inst > 0`.
//!
//! **Example:**
//! ```text
//! %a: f32 = arithmetic binary_mul %x, %y;
//! %b: f32 = arithmetic binary_mul %x, %y;   // same block: uses of %b become %a
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use crate::util::edit::ValueSubst;
use crate::util::value_number::{PureKey, PureOp};
use std::collections::HashMap;
use xir_ir::analysis::Cfg;
use xir_ir::{FuncId, InstId, Module, Value};

/// The `early-cse` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct EarlyCse;

crate::declare_pass! {
    EarlyCse: function pass "early-cse" {
        summary: "Block-local common subexpression elimination of pure instructions",
        form: Either,
        counters: EarlyCseCounters {
            /// Duplicates replaced by an earlier equal instruction of their block and removed.
            eliminated_inst: Instructions,
        }
    }
}

impl FunctionPass for EarlyCse {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        cx: &mut PassContext,
        counters: &mut EarlyCseCounters,
    ) -> Result<(), PassError> {
        let cfg = cx.analyses.get::<Cfg>(module, f);
        let func = module.func(f);
        let mut subst = ValueSubst::new();
        let mut duplicates: Vec<InstId> = Vec::new();
        let mut first: HashMap<PureKey<Value>, InstId> = HashMap::new();
        for &b in &cfg.rpo {
            first.clear();
            for &i in &func.blocks[b].insts {
                let d = &func.insts[i];
                let (Some(ty), Some(op)) = (d.ty, PureOp::of(&d.kind)) else {
                    continue;
                };
                let operands = d.operands.iter().map(|v| subst.resolve(*v)).collect();
                let key = PureKey::new(op, ty, operands, false);
                match first.get(&key) {
                    Some(&earlier) if d.metadata.is_empty() => {
                        subst.replace(i, Value::Inst(earlier));
                        duplicates.push(i);
                    }
                    Some(_) => {}
                    None => {
                        first.insert(key, i);
                    }
                }
            }
        }
        let func = module.func_mut(f);
        subst.apply(func);
        func.remove_insts(&duplicates);
        counters.eliminated_inst += duplicates.len() as u64;
        Ok(())
    }
}
