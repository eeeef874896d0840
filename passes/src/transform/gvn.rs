//! `gvn` — dominance-based global value numbering.
//!
//! **What:** an instruction that computes the same value as an instruction in a block
//! that dominates it (same operation and sub-op, same result type, operands with the same
//! value numbers) is replaced by that earlier instruction, the *leader*. Then the
//! instructions left without a use that may be deleted unused are removed, and phis
//! reduced to one dominating source are replaced by it.
//!
//! **Algorithm** (as upstream's `gvn.cpp`, read at LuisaCompute `0c84a1aa`; facts only):
//! 1. Walk the reachable blocks in dominator-tree pre-order (upstream: reverse
//!    post-order; the leaders found are the same, see `number_values`), and each block's
//!    non-phi instructions in order. Only `arithmetic`, `cast`, `getelementptr` and
//!    `resource_query` instructions that the instruction table calls pure are numbered
//!    (never loads, calls, resource reads, ray-query reads: without memory dependence
//!    information two reads may differ). The key ([`PureKey`]) holds the operation, the
//!    result type and the operands' value numbers, the two operands of a commutative op
//!    in canonical order — commutative as [`ArithmeticOp::is_commutative`] says, so
//!    float `add`/`mul`/`min`/`max` are not (NaN payloads, `±0`). Every other value
//!    (argument, constant, phi, load, …) gets a number of its own the first time it is
//!    seen.
//! 2. A key seen before whose leader's block dominates the current block (reflexive: an
//!    earlier instruction of the same block) gives the leader: every use of the
//!    duplicate is rewritten to the leader and the duplicate takes the leader's number.
//!    Otherwise the instruction leads its key with a new number.
//! 3. One sweep removes every instruction with a result and no use that the instruction
//!    table lets be deleted unused (so also dead code that was there before, as
//!    upstream); this is one sweep, not a fixed point — that is `dce`'s job.
//! 4. Phis are simplified to a fixed point with `phi-cleanup`'s rule (one unique incoming
//!    value, ignoring self references and `undefined`, that dominates the phi).
//!
//! **Metadata:** when the duplicate or the leader carries metadata, both stay (a shared
//! instruction cannot own one occurrence's annotation), but the duplicate still takes the
//! leader's number, so later instructions over either are recognised as equal.
//!
//! **Preconditions:** none (structured or plain CFG); the CFG is not changed.
//! **Refusals:** none. Coroutine suspension points are not in this IR yet, so upstream's
//! rule against replacing across one has nothing to act on.
//!
//! **Report keys:** `replaced_inst` (duplicates rewritten to their leader),
//! `removed_inst` (instructions removed by the sweep, plus phis simplified).
//! **Changed:** either is non-zero.
//!
//! **Example:**
//! ```text
//! %a: i32 = arithmetic binary_add %x, %y;      // in %entry
//! ...
//! %b: i32 = arithmetic binary_add %y, %x;      // in a block %entry dominates:
//!                                              // uses of %b become %a, %b is removed
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use crate::util::edit::{UseCounts, ValueSubst};
use crate::util::phi::{eliminate_phis, simplifiable_phi};
use crate::util::value_number::{PureKey, PureOp, commutes};
use std::collections::HashMap;
use xir_ir::analysis::{Cfg, DomTree};
use xir_ir::inst::InstKind;
use xir_ir::{BlockId, FuncId, InstId, Module, Value};

/// The `gvn` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct Gvn;

crate::declare_pass! {
    Gvn: function pass "gvn" {
        summary: "Global value numbering: replace pure instructions by an equal dominating one",
        form: Either,
        counters: GvnCounters {
            /// Duplicates whose uses were rewritten to a dominating equal instruction.
            replaced_inst: Instructions,
            /// Unused removable instructions deleted afterwards, and phis simplified.
            removed_inst: Instructions,
        }
    }
}

/// Value numbers of the values seen so far.
#[derive(Default)]
struct Numbering {
    of: HashMap<Value, u32>,
    next: u32,
}

impl Numbering {
    fn fresh(&mut self) -> u32 {
        self.next += 1;
        self.next
    }
    fn get(&mut self, v: Value) -> u32 {
        if let Some(&n) = self.of.get(&v) {
            return n;
        }
        let n = self.fresh();
        self.of.insert(v, n);
        n
    }
}

impl FunctionPass for Gvn {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        cx: &mut PassContext,
        counters: &mut GvnCounters,
    ) -> Result<(), PassError> {
        let cfg = cx.analyses.get::<Cfg>(module, f);
        let dom = cx.analyses.get::<DomTree>(module, f);
        let subst = number_values(module, f, &cfg, &dom, counters);
        let func = module.func_mut(f);
        subst.apply(func);
        let counts = UseCounts::compute(func);
        let dead: Vec<InstId> = func
            .placed_insts()
            .filter(|&i| {
                let d = &func.insts[i];
                d.ty.is_some() && counts.get(i) == 0 && d.kind.is_removable_if_unused()
            })
            .collect();
        func.remove_insts(&dead);
        counters.removed_inst += dead.len() as u64;
        let phis: Vec<InstId> = cfg
            .rpo
            .iter()
            .flat_map(|b| module.func(f).blocks[*b].insts.iter().copied())
            .filter(|i| matches!(module.func(f).insts[*i].kind, InstKind::Phi))
            .collect();
        if !phis.is_empty() {
            let n = eliminate_phis(module, f, phis, |func, p, subst, uses| {
                simplifiable_phi(func, p, subst, uses, &dom)
            });
            counters.removed_inst += n as u64;
        }
        Ok(())
    }
}

/// Steps 1–2: numbers the pure instructions of the reachable blocks and returns the
/// replacements of duplicates by their leaders.
fn number_values(
    module: &Module,
    f: FuncId,
    cfg: &Cfg,
    dom: &DomTree,
    counters: &mut GvnCounters,
) -> ValueSubst {
    let func = module.func(f);
    let mut numbers = Numbering::default();
    let mut subst = ValueSubst::new();
    // The leaders visible in the current block: those of its dominators. A walk of the
    // dominator tree adds a block's leaders on the way down and takes them away on the way
    // up, so the leader found for a key is the one (there is at most one: of two leaders
    // in dominating blocks one would dominate the other's block) whose block dominates the
    // current one — what a list of every earlier leader checked with `dominates` finds, in
    // O(1) instead of O(leaders of the key): that list made gvn quadratic in repeats of
    // one expression in sibling branches. Dominators come first in this walk as in the
    // reverse post-order, so every operand but a phi's is numbered before its use.
    let mut leaders: HashMap<PureKey<u32>, InstId> = HashMap::new();
    let mut added: Vec<PureKey<u32>> = Vec::new();
    let Some(root) = dom.root().filter(|r| cfg.is_reachable(*r)) else {
        return subst;
    };
    // (block, how many keys were added before it) on the way down; `None` marks the way up.
    let mut stack: Vec<(BlockId, Option<usize>)> = vec![(root, None)];
    while let Some((b, mark)) = stack.pop() {
        if let Some(len) = mark {
            for key in added.drain(len..) {
                leaders.remove(&key);
            }
            continue;
        }
        stack.push((b, Some(added.len())));
        for &c in dom.children(b).iter().rev() {
            stack.push((c, None));
        }
        for &i in &func.blocks[b].insts {
            let d = &func.insts[i];
            let (Some(ty), Some(op)) = (d.ty, PureOp::of(&d.kind)) else {
                continue;
            };
            let vns = d.operands.iter().map(|v| numbers.get(*v)).collect();
            let key = PureKey::new(op, ty, vns, commutes(module, f, op, &d.operands));
            match leaders.get(&key) {
                Some(&l) => {
                    if d.metadata.is_empty() && func.insts[l].metadata.is_empty() {
                        subst.replace(i, Value::Inst(l));
                        counters.replaced_inst += 1;
                    }
                    let n = numbers.get(Value::Inst(l));
                    numbers.of.insert(Value::Inst(i), n);
                }
                None => {
                    added.push(key.clone());
                    leaders.insert(key, i);
                    let n = numbers.fresh();
                    numbers.of.insert(Value::Inst(i), n);
                }
            }
        }
    }
    subst
}
