//! `dce` — dead code and unreachable block elimination.
//!
//! **What:** removes instructions whose results are unused and whose execution has no
//! effect, allocas that are only ever written, and code that cannot execute.
//!
//! **Algorithm** (per function with a body):
//! 1. *CFG cleanup, to a fixed point:* a plain `cond_br` on a `bool` constant becomes
//!    `br` to the taken block (keeping the terminator's metadata) — except the canonical
//!    false form `cond_br false, body, merge` of a loop prepare block, which the loop
//!    contract needs. Blocks are then walked from the body with a constant-aware notion of
//!    executable successors (`if`, `cond_br`, `switch`, `indexed_branch`). Phi incomings
//!    from blocks that cannot execute are dropped; every such block's payload is replaced
//!    by a lone `unreachable`; such blocks that nothing names any more are deleted, except
//!    *structural shells* (merge, loop body and loop update blocks of executable
//!    constructs), which keep the lexical frame of structured control flow. Phi incomings
//!    that no longer match a predecessor are dropped and redundant phis (unused, or all
//!    incomings one invariant value ignoring `undefined`) are eliminated.
//! 2. *Dead values:* a worklist seeded by one scan of the reachable instructions removes
//!    every instruction that is removable when unused (no memory writes, not volatile,
//!    plus `autodiff_gradient`) and has no live users, following operands whose last use
//!    disappears; this is the least fixed point, computed in linear time.
//! 3. *Write-only allocas:* an alloca whose uses are only stores to it and GEPs that are
//!    themselves write-only is removed with all those users; the worklist then continues
//!    from operands that lost their last use. This repeats while it finds allocas (a
//!    removed store may have held the last load of another alloca), so one run reaches
//!    the fixed point upstream may need several runs for.
//!
//! Structured `if`/`switch` terminators are never rewritten (only their unexecutable arms
//! are emptied). Everything is iterative. Metadata: a phi that carries metadata and still
//! has users is never replaced by a shared value (§5.2).
//!
//! **Preconditions:** none beyond a verifier-clean module; works on structured and plain
//! control flow. **Refusals:** none. Unterminated blocks are invalid IR and are not
//! repaired, so `inserted_terminator` (kept for upstream's report schema) stays 0.
//!
//! **Report keys** (upstream order): `removed_inst`, `removed_block`,
//! `inserted_terminator`, `dead_code_instruction_scan` (instructions scanned to seed the
//! worklist), `dead_code_worklist_pop` (instructions removed through the worklist).
//! **Changed:** upstream's `changed()` — any of the first three counters is non-zero.
//!
//! **Example:**
//! ```text
//! %5: i32 = arithmetic binary_add %3, %3;   // unused: removed
//! %6: void = cond_br %true, %7, %8;          // becomes `br %7`; %8 is deleted
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use crate::util::constant::as_bool;
use crate::util::edit::{UseCounts, remove_blocks, replace_terminator_with_branch};
use crate::util::effects::is_removable_if_unused;
use crate::util::phi::{eliminate_phis, redundant_phi, remove_incomings};
use crate::util::reach::{exec_reachable, is_loop_prepare_exit, loop_prepares};
use xir_ir::analysis::Cfg;
use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::inst::InstKind;
use xir_ir::uses::UseMap;
use xir_ir::{BlockId, FuncId, Function, InstId, Module, SecondaryMap, Value};

/// The `dce` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct Dce;

crate::declare_pass! {
    Dce: function pass "dce" {
        summary: "Remove unused side-effect-free instructions and write-only allocas; fold a constant cond_br (not structured if/switch) and drop unreachable code",
        form: Either,
        counters: DceCounters {
            /// Instructions removed (including folded branches and emptied payloads).
            removed_inst: Instructions,
            /// Blocks deleted.
            removed_block: ControlFlow,
            /// Terminators inserted (always 0: unterminated blocks are not repaired).
            inserted_terminator: ControlFlow,
            /// Instructions scanned to seed the dead-value worklist.
            dead_code_instruction_scan: Nothing,
            /// Instructions removed through the worklist.
            dead_code_worklist_pop: Nothing,
        }
        internal {
            /// Blocks whose terminator was folded to `br` or whose payload became
            /// `unreachable`: edges changed even when no block was deleted.
            rewired_block: ControlFlow,
        }
    }
}

impl FunctionPass for Dce {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        _cx: &mut PassContext,
        info: &mut DceCounters,
    ) -> Result<(), PassError> {
        cleanup_cfg(module, f, info);
        eliminate_dead_values(module.func_mut(f), info);
        Ok(())
    }
}

/// Step 1: constant branches, unreachable blocks and phis, to a fixed point.
fn cleanup_cfg(module: &mut Module, f: FuncId, info: &mut DceCounters) {
    loop {
        let before = info.removed_inst + info.removed_block;
        fold_constant_branches(module, f, info);
        let reach = exec_reachable(module, module.func(f));
        clear_unreachable_blocks(module.func_mut(f), &reach, info);
        let phis = fix_phis(module.func_mut(f));
        let n = eliminate_phis(module, f, phis, |func, p, subst, uses| {
            redundant_phi(func, p, subst, uses, true)
        });
        info.removed_inst += n as u64;
        if info.removed_inst + info.removed_block == before {
            break;
        }
    }
}

/// `cond_br` on a constant → `br` (never the loop-prepare false form).
fn fold_constant_branches(module: &mut Module, fid: FuncId, info: &mut DceCounters) {
    let f = module.func(fid);
    let prepares = loop_prepares(f);
    let mut rewrites: Vec<(BlockId, BlockId)> = Vec::new();
    for &b in &f.block_order {
        let Some(t) = f.terminator(b) else { continue };
        let d = &f.insts[t];
        if !matches!(d.kind, InstKind::ConditionalBranch) {
            continue;
        }
        let (Some(c), Some(Value::Block(tb)), Some(Value::Block(fb))) = (
            d.operands.first().and_then(|c| as_bool(module, *c)),
            d.operands.get(1),
            d.operands.get(2),
        ) else {
            continue;
        };
        if !c && is_loop_prepare_exit(f, &prepares, b, *tb, *fb) {
            continue;
        }
        rewrites.push((b, if c { *tb } else { *fb }));
    }
    let f = module.func_mut(fid);
    for (b, target) in rewrites {
        replace_terminator_with_branch(f, b, target);
        info.removed_inst += 1;
        info.rewired_block += 1;
    }
}

/// Empties unexecutable blocks, drops phi incomings from them and deletes the ones that
/// are neither named by an operand nor structural shells.
fn clear_unreachable_blocks(
    f: &mut Function,
    reach: &SecondaryMap<BlockId, bool>,
    info: &mut DceCounters,
) {
    let unreachable: Vec<BlockId> = f
        .block_order
        .iter()
        .copied()
        .filter(|b| !reach[*b])
        .collect();
    if unreachable.is_empty() {
        return;
    }
    // Shells: merge / loop body / loop update blocks of executable constructs.
    let mut shell: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
    for &b in &f.block_order {
        if !reach[b] {
            continue;
        }
        let Some(t) = f.terminator(b) else { continue };
        match &f.insts[t].kind {
            InstKind::Loop {
                body,
                update,
                merge,
            } => {
                for x in [body, update, merge].into_iter().flatten() {
                    shell[*x] = true;
                }
            }
            k => {
                if let Some(m) = k.merge() {
                    shell[m] = true;
                }
            }
        }
    }
    // Phi incomings from unexecutable blocks.
    for &b in &f.block_order.to_vec() {
        if !reach[b] {
            continue;
        }
        let phis: Vec<InstId> = phis_of(f, b);
        for p in phis {
            remove_incomings(f, p, |ib| !reach[ib], None);
        }
    }
    // Replace payloads by a lone `unreachable`.
    for &b in &unreachable {
        let insts = &f.blocks[b].insts;
        let lone =
            insts.len() == 1 && matches!(f.insts[insts[0]].kind, InstKind::Unreachable { .. });
        if lone {
            continue;
        }
        let old = std::mem::take(&mut f.blocks[b].insts);
        for i in &old {
            f.insts[*i].block = None;
        }
        info.removed_inst += old.len() as u64;
        info.rewired_block += 1;
        Cursor::at_end(f, b).unreachable("");
    }
    // Delete unexecutable, unnamed, non-shell blocks.
    let uses = UseMap::compute(f);
    let dead: Vec<BlockId> = unreachable
        .into_iter()
        .filter(|b| Some(*b) != f.body && !shell[*b] && uses.blocks.get(*b).is_empty())
        .collect();
    info.removed_block += dead.len() as u64;
    remove_blocks(f, &dead);
}

fn phis_of(f: &Function, b: BlockId) -> Vec<InstId> {
    f.blocks[b]
        .insts
        .iter()
        .copied()
        .filter(|i| matches!(f.insts[*i].kind, InstKind::Phi))
        .collect()
}

/// Drops phi incomings whose block is no longer a predecessor; returns every phi.
fn fix_phis(f: &mut Function) -> Vec<InstId> {
    let cfg = Cfg::compute(f);
    let mut all = Vec::new();
    let order = f.block_order.to_vec();
    for b in order {
        let phis = phis_of(f, b);
        if phis.is_empty() {
            continue;
        }
        let preds: rustc_hash::FxHashSet<BlockId> = cfg.preds(b).iter().copied().collect();
        for p in phis {
            remove_incomings(f, p, |ib| !preds.contains(&ib), None);
            all.push(p);
        }
    }
    all
}

/// Steps 2 and 3: the dead-value worklist and write-only allocas.
fn eliminate_dead_values(f: &mut Function, info: &mut DceCounters) {
    let mut counts = UseCounts::compute(f);
    let mut dead: SecondaryMap<InstId, bool> = SecondaryMap::with_default(false);
    let mut removed: Vec<InstId> = Vec::new();
    let mut work: Vec<InstId> = Vec::new();
    let cfg = Cfg::compute(f);
    for &b in &cfg.rpo {
        for &i in &f.blocks[b].insts {
            info.dead_code_instruction_scan += 1;
            if counts.get(i) == 0 && is_removable_if_unused(&f.insts[i].kind) {
                work.push(i);
            }
        }
    }
    let mut state = Worklist {
        counts: &mut counts,
        dead: &mut dead,
        removed: &mut removed,
        work: &mut work,
    };
    state.drain(f, info);
    // Write-only allocas, computed on the IR without the dead values. Removing one can
    // make the last read of another alloca dead (`store %a, (load %b)`), so sweep again
    // until no alloca qualifies (at most once per alloca).
    loop {
        f.remove_insts(&state.removed[..]);
        let uses = UseMap::compute(f);
        let mut known: SecondaryMap<InstId, bool> = SecondaryMap::with_default(false);
        let mut explicit: Vec<InstId> = Vec::new();
        let mut seen: SecondaryMap<InstId, bool> = SecondaryMap::with_default(false);
        for &b in &cfg.rpo {
            for &i in &f.blocks[b].insts {
                if matches!(f.insts[i].kind, InstKind::Alloca(_))
                    && write_only(&uses, f, i, &mut known)
                {
                    collect_users(&uses, i, &mut seen, &mut explicit);
                }
            }
        }
        if explicit.is_empty() {
            break;
        }
        for i in explicit {
            state.detach(f, i, info);
        }
        state.drain(f, info);
    }
}

struct Worklist<'a> {
    counts: &'a mut UseCounts,
    dead: &'a mut SecondaryMap<InstId, bool>,
    removed: &'a mut Vec<InstId>,
    work: &'a mut Vec<InstId>,
}

impl Worklist<'_> {
    fn drain(&mut self, f: &Function, info: &mut DceCounters) {
        while let Some(i) = self.work.pop() {
            if self.dead[i] || f.insts[i].block.is_none() {
                continue;
            }
            info.dead_code_worklist_pop += 1;
            self.detach(f, i, info);
        }
    }
    fn detach(&mut self, f: &Function, i: InstId, info: &mut DceCounters) {
        if self.dead[i] || f.insts[i].block.is_none() {
            return;
        }
        self.dead[i] = true;
        self.removed.push(i);
        info.removed_inst += 1;
        let ops = &f.insts[i].operands;
        for op in ops {
            self.counts.drop_use(*op);
        }
        for (k, op) in ops.iter().enumerate() {
            let Value::Inst(d) = *op else { continue };
            if ops[..k].contains(op) {
                continue;
            }
            if !self.dead[d] && self.counts.get(d) == 0 && is_removable_if_unused(&f.insts[d].kind)
            {
                self.work.push(d);
            }
        }
    }
}

/// Whether pointer `p` is only stored to (directly or through write-only GEPs).
fn write_only(
    uses: &UseMap,
    f: &Function,
    p: InstId,
    known: &mut SecondaryMap<InstId, bool>,
) -> bool {
    let mut stack = vec![p];
    let mut visited: Vec<InstId> = Vec::new();
    while let Some(q) = stack.pop() {
        if known[q] || visited.contains(&q) {
            continue;
        }
        // GEP trees are small; `visited` stays short.
        visited.push(q);
        for u in uses.uses(Value::Inst(q)) {
            match f.insts[u.inst].kind {
                InstKind::Store if u.index == 0 => {}
                InstKind::Gep if u.index == 0 => stack.push(u.inst),
                _ => return false,
            }
        }
    }
    for q in visited {
        known[q] = true;
    }
    true
}

/// `p` and every transitive user of it (each once).
fn collect_users(
    uses: &UseMap,
    p: InstId,
    seen: &mut SecondaryMap<InstId, bool>,
    out: &mut Vec<InstId>,
) {
    let mut stack = vec![p];
    while let Some(q) = stack.pop() {
        if seen[q] {
            continue;
        }
        seen[q] = true;
        out.push(q);
        stack.extend(uses.uses(Value::Inst(q)).iter().map(|u| u.inst));
    }
}
