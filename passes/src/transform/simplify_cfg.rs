//! `simplify-cfg` — fold constant branches, thread empty blocks, merge straight-line
//! chains and drop unreachable blocks.
//!
//! **What / algorithm** (per function; a fixed point that restarts from the first rule
//! after every rule that changed something):
//! 1. *Fold `cond_br`:* in reachable blocks, `cond_br` with identical targets, or with a
//!    `bool` constant condition, becomes `br` (keeping the terminator's metadata); phi
//!    incomings from this block in the dropped target are removed. The canonical false
//!    form `cond_br false, body, merge` of a loop prepare block is kept.
//! 2. *Fold `indexed_branch`:* a constant selector picks its case (or the default); phi
//!    incomings in every dropped target are removed. Structured `switch` is left alone.
//! 3. *Thread empty blocks:* a reachable block other than the body that only holds
//!    `br t` — with `t` not itself, not a loop header, without phis, and the block not a
//!    structural target (merge, loop prepare/body/update, simple-loop body) — has its
//!    predecessors' `br`/`cond_br`/`if`/`switch`/`indexed_branch` edges redirected to `t`
//!    (to the end of a chain of such blocks at once).
//! 4. *Merge straight-line chains:* a block ending in `br s`, where `s` is not the body,
//!    has that block as its only predecessor, has no phis, no successor with phis (or
//!    looping back), and neither is a structural target, absorbs `s`'s instructions; `s`
//!    is deleted. Chains are contracted from each block in pre-order.
//! 5. *Remove unreachable blocks:* blocks not reachable from the body along operand edges,
//!    merge blocks and loop body/update fields are deleted, and phi incomings from them
//!    are dropped.
//!
//! Structured `if`/`switch` stay constructs. Every walk is iterative and the fixed point
//! has a hard bound proportional to the function size.
//!
//! **Preconditions:** none (structured or plain CFG). **Refusals:** none.
//!
//! **Report keys** (upstream order): `folded_constant_cond_br`, `folded_switch`,
//! `threaded_empty_block`, `merged_straight_line`, `removed_unreachable_block`, and the
//! work counters `straight_line_scan` (rule-4 passes) and `straight_line_block_visit`
//! (blocks examined by rule 4). **Changed:** any of the first five is non-zero.
//!
//! **Example:**
//! ```text
//! %a: ... br %b      %b: (only pred %a) ... return   →   %a: ... ... return
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use crate::util::constant::{as_bool, as_selector, select_case};
use crate::util::edit::{remove_blocks, replace_terminator_with_branch};
use crate::util::phi::remove_incomings;
use crate::util::reach::{
    StructuralSuccessors, is_loop_prepare_exit, loop_prepares, preorder, structural_successors,
    structural_targets, structurally_reachable,
};
use xir_ir::analysis::Cfg;
use xir_ir::inst::InstKind;
use xir_ir::{BlockId, FuncId, Function, InstId, Module, SecondaryMap, Value};

/// The `simplify-cfg` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct SimplifyCfg;

crate::declare_pass! {
    SimplifyCfg: function pass "simplify-cfg" {
        summary: "Fold constant cond_br/indexed_branch (not structured if/switch), thread empty blocks, merge straight-line chains, drop unreachable blocks",
        form: Either,
        counters: SimplifyCfgCounters {
            /// `cond_br` on a constant (or with equal targets) folded to `br` (rule 1).
            folded_constant_cond_br: ControlFlow,
            /// `indexed_branch` on a constant folded to `br` (rule 2).
            folded_switch: ControlFlow,
            /// Empty blocks whose predecessors were redirected past them (rule 3).
            threaded_empty_block: ControlFlow,
            /// Blocks merged into their only predecessor (rule 4).
            merged_straight_line: ControlFlow,
            /// Unreachable blocks deleted (rule 5).
            removed_unreachable_block: ControlFlow,
            /// Rule-4 passes.
            straight_line_scan: Nothing,
            /// Blocks examined by rule 4.
            straight_line_block_visit: Nothing,
        }
    }
}

impl FunctionPass for SimplifyCfg {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        _cx: &mut PassContext,
        i: &mut SimplifyCfgCounters,
    ) -> Result<(), PassError> {
        // Every productive round removes a branch, an edge into an empty block, a block
        // or an instruction, so the bound is never the reason to stop on valid input.
        let bound = 4 * (module.func(f).inst_count() + module.func(f).block_order.len()) + 16;
        for _ in 0..bound {
            let progress = fold_cond_br(module, f, i)
                || fold_indexed_branch(module, f, i)
                || thread_empty_blocks(module.func_mut(f), i)
                || merge_straight_lines(module.func_mut(f), i)
                || remove_unreachable(module.func_mut(f), i);
            if !progress {
                break;
            }
        }
        Ok(())
    }
}

fn has_phi(f: &Function, b: BlockId) -> bool {
    f.blocks[b]
        .insts
        .iter()
        .any(|i| matches!(f.insts[*i].kind, InstKind::Phi))
}


/// Rule 1.
fn fold_cond_br(module: &mut Module, fid: FuncId, info: &mut SimplifyCfgCounters) -> bool {
    let f = module.func(fid);
    let prepares = loop_prepares(f);
    let mut folds: Vec<(BlockId, BlockId, Option<BlockId>)> = Vec::new();
    for b in preorder(f) {
        let Some(t) = f.terminator(b) else { continue };
        let d = &f.insts[t];
        let (InstKind::ConditionalBranch, Some(Value::Block(tb)), Some(Value::Block(fb))) =
            (&d.kind, d.operands.get(1), d.operands.get(2))
        else {
            continue;
        };
        if tb == fb {
            folds.push((b, *tb, None));
        } else if let Some(c) = as_bool(module, d.operands[0]) {
            if !c && is_loop_prepare_exit(f, &prepares, b, *tb, *fb) {
                continue;
            }
            let (taken, dropped) = if c { (*tb, *fb) } else { (*fb, *tb) };
            folds.push((b, taken, Some(dropped)));
        }
    }
    let f = module.func_mut(fid);
    for &(b, taken, dropped) in &folds {
        if let Some(x) = dropped {
            crate::util::phi::drop_incomings_from(f, x, b);
        }
        replace_terminator_with_branch(f, b, taken);
    }
    info.folded_constant_cond_br += folds.len() as u64;
    !folds.is_empty()
}

/// Rule 2.
fn fold_indexed_branch(module: &mut Module, fid: FuncId, info: &mut SimplifyCfgCounters) -> bool {
    let f = module.func(fid);
    let mut folds: Vec<(BlockId, BlockId, Vec<BlockId>)> = Vec::new();
    for b in preorder(f) {
        let Some(t) = f.terminator(b) else { continue };
        let d = &f.insts[t];
        let InstKind::IndexedBranch { labels } = &d.kind else {
            continue;
        };
        let Some(sel) = d.operands.first().and_then(|v| as_selector(module, *v)) else {
            continue;
        };
        let targets: Vec<BlockId> = d.operand_blocks().collect();
        let Some((&default, cases)) = targets.split_first() else {
            continue;
        };
        let taken = select_case(sel, labels, default, cases);
        let mut dropped: Vec<BlockId> = targets.iter().copied().filter(|x| *x != taken).collect();
        dropped.sort();
        dropped.dedup();
        folds.push((b, taken, dropped));
    }
    let f = module.func_mut(fid);
    for (b, taken, dropped) in &folds {
        for x in dropped {
            crate::util::phi::drop_incomings_from(f, *x, *b);
        }
        replace_terminator_with_branch(f, *b, *taken);
    }
    info.folded_switch += folds.len() as u64;
    !folds.is_empty()
}

/// Blocks entered by a back edge of a depth-first walk along structural successors.
fn loop_headers(f: &Function) -> SecondaryMap<BlockId, bool> {
    let mut headers = SecondaryMap::with_default(false);
    // 0 = unvisited, 1 = on the stack, 2 = done.
    let mut state: SecondaryMap<BlockId, u8> = SecondaryMap::with_default(0);
    let Some(entry) = f.body else { return headers };
    let mut stack: Vec<(BlockId, StructuralSuccessors, usize)> =
        vec![(entry, structural_successors(f, entry), 0)];
    state[entry] = 1;
    while let Some((b, succs, next)) = stack.last_mut() {
        if *next < succs.len() {
            let s = succs[*next];
            *next += 1;
            if !f.has_block(s) {
                continue;
            }
            match state[s] {
                0 => {
                    state[s] = 1;
                    let ss = structural_successors(f, s);
                    stack.push((s, ss, 0));
                }
                1 => headers[s] = true,
                _ => {}
            }
        } else {
            state[*b] = 2;
            stack.pop();
        }
    }
    headers
}

/// Rule 3. Every qualifying empty block is mapped to its target, chains of empty blocks
/// are resolved to their final target, and then every retargetable terminator is
/// rewritten in one sweep over the function (linear, however many edges a block has).
fn thread_empty_blocks(f: &mut Function, info: &mut SimplifyCfgCounters) -> bool {
    let Some(entry) = f.body else { return false };
    let headers = loop_headers(f);
    let targets = structural_targets(f);
    let mut next: SecondaryMap<BlockId, Option<BlockId>> = SecondaryMap::with_default(None);
    let mut candidates = Vec::new();
    for b in preorder(f) {
        if b == entry || targets[b] || f.blocks[b].insts.len() != 1 {
            continue;
        }
        let t = f.blocks[b].insts[0];
        let (InstKind::Branch, Some(Value::Block(target))) =
            (&f.insts[t].kind, f.insts[t].operands.first())
        else {
            continue;
        };
        let target = *target;
        if target == b || headers[target] || has_phi(f, target) {
            continue;
        }
        next[b] = Some(target);
        candidates.push(b);
    }
    if candidates.is_empty() {
        return false;
    }
    // Final targets (no cycles: a cycle of empty blocks always contains a loop header,
    // which is never a threading target; the step bound is a safety net only).
    let mut last: SecondaryMap<BlockId, Option<BlockId>> = SecondaryMap::with_default(None);
    let bound = candidates.len() + 1;
    for &b in &candidates {
        let mut path = vec![b];
        let mut cur = next[b].expect("candidate");
        while let (Some(n), None, true) = (next[cur], last[cur], path.len() <= bound) {
            path.push(cur);
            cur = n;
        }
        let fin = last[cur].unwrap_or(cur);
        for x in path {
            last[x] = Some(fin);
        }
    }
    let mut redirected: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
    for &p in &f.block_order {
        let Some(t) = f.terminator(p) else { continue };
        let d = &mut f.insts[t];
        let first = match d.kind {
            InstKind::Branch => 0,
            InstKind::ConditionalBranch
            | InstKind::If { .. }
            | InstKind::Switch { .. }
            | InstKind::IndexedBranch { .. } => 1,
            _ => continue,
        };
        for op in d.operands.iter_mut().skip(first) {
            if let Value::Block(b) = *op
                && let Some(fin) = last[b]
                && b != p
                && fin != b
            {
                *op = Value::Block(fin);
                redirected[b] = true;
            }
        }
    }
    let n = candidates.iter().filter(|b| redirected[**b]).count() as u64;
    info.threaded_empty_block += n;
    n > 0
}

/// Rule 4.
fn merge_straight_lines(f: &mut Function, info: &mut SimplifyCfgCounters) -> bool {
    let Some(entry) = f.body else { return false };
    let targets = structural_targets(f);
    info.straight_line_scan += 1;
    let cfg = Cfg::compute(f);
    let mut preds: SecondaryMap<BlockId, Vec<BlockId>> = SecondaryMap::default();
    for &b in &f.block_order {
        preds[b] = cfg.preds(b).to_vec();
    }
    let mut removed: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
    let mut gone: Vec<BlockId> = Vec::new();
    let mut any = false;
    for block in preorder(f) {
        if removed[block] {
            continue;
        }
        loop {
            info.straight_line_block_visit += 1;
            let Some(t) = f.terminator(block) else { break };
            let (InstKind::Branch, Some(Value::Block(succ))) =
                (&f.insts[t].kind, f.insts[t].operands.first())
            else {
                break;
            };
            let succ = *succ;
            if succ == block
                || succ == entry
                || removed[succ]
                || targets[block]
                || targets[succ]
                || has_phi(f, succ)
            {
                break;
            }
            let succ_succs: Vec<BlockId> = f.successors(succ).collect();
            if succ_succs
                .iter()
                .any(|x| *x == block || *x == succ || has_phi(f, *x))
            {
                break;
            }
            if preds[succ].as_slice() != [block] {
                break;
            }
            // `t` is the last instruction of `block`: pop it (no scan of a growing block).
            f.blocks[block].insts.pop();
            f.insts[t].block = None;
            let moved = std::mem::take(&mut f.blocks[succ].insts);
            for i in &moved {
                f.insts[*i].block = Some(block);
            }
            f.blocks[block].insts.extend(moved);
            removed[succ] = true;
            gone.push(succ);
            for x in succ_succs {
                for p in preds[x].iter_mut() {
                    if *p == succ {
                        *p = block;
                    }
                }
            }
            info.merged_straight_line += 1;
            any = true;
        }
    }
    remove_blocks(f, &gone);
    any
}

/// Rule 5.
fn remove_unreachable(f: &mut Function, info: &mut SimplifyCfgCounters) -> bool {
    let reach = structurally_reachable(f);
    let dead: Vec<BlockId> = f
        .block_order
        .iter()
        .copied()
        .filter(|b| Some(*b) != f.body && !reach[*b])
        .collect();
    if dead.is_empty() {
        return false;
    }
    let mut is_dead: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
    for &b in &dead {
        is_dead[b] = true;
    }
    let order = f.block_order.to_vec();
    for b in order {
        if is_dead[b] {
            continue;
        }
        let phis: Vec<InstId> = f.blocks[b]
            .insts
            .iter()
            .copied()
            .filter(|i| matches!(f.insts[*i].kind, InstKind::Phi))
            .collect();
        for p in phis {
            remove_incomings(f, p, |x| is_dead[x], None);
        }
    }
    remove_blocks(f, &dead);
    info.removed_unreachable_block += dead.len() as u64;
    true
}
