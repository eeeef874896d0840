//! Reachability over a function's owned blocks, in the flavours passes need:
//!
//! * [`exec_reachable`] — executable reachability that honours constant conditions of
//!   `if`, `cond_br`, `switch` and `indexed_branch` (DCE);
//! * [`structurally_reachable`] — operand edges plus merge, loop body and loop update
//!   fields (simplify-cfg keeps everything a construct still names);
//! * [`structural_targets`] — blocks a construct names outside plain branch edges;
//! * [`loop_prepares`] — the canonical prepare block of every `loop`.
//!
//! All walks are iterative worklists.

use super::constant::{as_bool, as_selector, select_case};
use smallvec::SmallVec;
use xir_ir::inst::InstKind;
use xir_ir::{BlockId, Function, InstId, Module, SecondaryMap, Value};

/// Calls `visit` for every successor of `b` that can execute, given constant conditions.
pub fn exec_successors(module: &Module, f: &Function, b: BlockId, mut visit: impl FnMut(BlockId)) {
    let Some(t) = f.terminator(b) else { return };
    let d = &f.insts[t];
    match &d.kind {
        InstKind::If { .. } | InstKind::ConditionalBranch => {
            match d.operands.first().and_then(|c| as_bool(module, *c)) {
                Some(c) => {
                    let k = if c { 1 } else { 2 };
                    if let Some(Value::Block(x)) = d.operands.get(k) {
                        visit(*x);
                    }
                }
                None => d.successors().for_each(visit),
            }
        }
        InstKind::Switch { labels, .. } | InstKind::IndexedBranch { labels } => {
            let blocks: SmallVec<[BlockId; 8]> = d.successors().collect();
            match d.operands.first().and_then(|c| as_selector(module, *c)) {
                Some(sel) if !blocks.is_empty() => {
                    visit(select_case(sel, labels, blocks[0], &blocks[1..]));
                }
                _ => blocks.into_iter().for_each(visit),
            }
        }
        _ => d.successors().for_each(visit),
    }
}

/// Owned blocks executable from the body, honouring constant branch conditions.
pub fn exec_reachable(module: &Module, f: &Function) -> SecondaryMap<BlockId, bool> {
    let mut seen = SecondaryMap::with_default(false);
    let Some(entry) = f.body else { return seen };
    let mut work = vec![entry];
    seen[entry] = true;
    while let Some(b) = work.pop() {
        exec_successors(module, f, b, |s| {
            if f.has_block(s) && !seen[s] {
                seen[s] = true;
                work.push(s);
            }
        });
    }
    seen
}

/// Successors of `b`'s terminator, then its merge block, then its other side blocks
/// (a `loop`'s body and update): the instruction table's successor slots and side-block
/// fields. (Inline up to four: walks call this once per block.)
pub fn structural_successors(f: &Function, b: BlockId) -> StructuralSuccessors {
    let Some(t) = f.terminator(b) else {
        return StructuralSuccessors::new();
    };
    let d = &f.insts[t];
    let mut out: StructuralSuccessors = d.successors().collect();
    let merge = d.kind.merge();
    out.extend(merge);
    out.extend(
        d.kind
            .side_blocks()
            .into_iter()
            .filter(|s| Some(*s) != merge),
    );
    out
}

/// The blocks [`structural_successors`] returns.
pub type StructuralSuccessors = SmallVec<[BlockId; 4]>;

/// Blocks reachable from the body along [`Function::successors`] (physical edges only).
pub fn reachable(f: &Function) -> SecondaryMap<BlockId, bool> {
    let mut seen = SecondaryMap::with_default(false);
    let Some(entry) = f.body else { return seen };
    seen[entry] = true;
    let mut work = vec![entry];
    while let Some(b) = work.pop() {
        for s in f.successors(b) {
            if !seen[s] {
                seen[s] = true;
                work.push(s);
            }
        }
    }
    seen
}

/// Owned blocks reachable from the body along [`structural_successors`].
pub fn structurally_reachable(f: &Function) -> SecondaryMap<BlockId, bool> {
    let mut seen = SecondaryMap::with_default(false);
    let Some(entry) = f.body else { return seen };
    let mut work = vec![entry];
    seen[entry] = true;
    while let Some(b) = work.pop() {
        for s in structural_successors(f, b) {
            if f.has_block(s) && !seen[s] {
                seen[s] = true;
                work.push(s);
            }
        }
    }
    seen
}

/// Blocks named by a construct in an owned block: merge blocks, a loop's prepare, body
/// and update, a simple loop's body.
pub fn structural_targets(f: &Function) -> SecondaryMap<BlockId, bool> {
    let mut t = SecondaryMap::with_default(false);
    for &b in &f.block_order {
        let Some(term) = f.terminator(b) else {
            continue;
        };
        let d = &f.insts[term];
        if let Some(m) = d.kind.merge() {
            t[m] = true;
        }
        match &d.kind {
            InstKind::Loop { body, update, .. } => {
                for x in d.operand_blocks().chain(*body).chain(*update) {
                    t[x] = true;
                }
            }
            InstKind::SimpleLoop { .. } => {
                for x in d.operand_blocks() {
                    t[x] = true;
                }
            }
            _ => {}
        }
    }
    t
}

/// The `loop` instruction whose prepare block is `b`, for every such block.
pub fn loop_prepares(f: &Function) -> SecondaryMap<BlockId, Option<InstId>> {
    let mut m = SecondaryMap::with_default(None);
    for &b in &f.block_order {
        let Some(term) = f.terminator(b) else {
            continue;
        };
        if let (InstKind::Loop { .. }, Some(p)) =
            (&f.insts[term].kind, f.insts[term].operand_blocks().next())
        {
            m[p] = Some(term);
        }
    }
    m
}

/// Whether the `cond_br` ending `b` is the canonical "false" form of a loop prepare
/// (`cond_br c, body, merge` of the loop whose prepare is `b`), which must never be
/// folded to `br merge`.
pub fn is_loop_prepare_exit(
    f: &Function,
    prepares: &SecondaryMap<BlockId, Option<InstId>>,
    b: BlockId,
    then_block: BlockId,
    else_block: BlockId,
) -> bool {
    let Some(lp) = prepares[b] else { return false };
    match f.insts[lp].kind {
        InstKind::Loop { body, merge, .. } => body == Some(then_block) && merge == Some(else_block),
        _ => false,
    }
}

/// Blocks reachable from the body along operand edges, in depth-first pre-order (the
/// default traversal order of upstream's block walks).
pub fn preorder(f: &Function) -> Vec<BlockId> {
    let mut seen: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
    let mut out = Vec::new();
    let Some(entry) = f.body else { return out };
    let mut stack = vec![entry];
    while let Some(b) = stack.pop() {
        if seen[b] || !f.has_block(b) {
            continue;
        }
        seen[b] = true;
        out.push(b);
        let Some(t) = f.terminator(b) else { continue };
        // Pushed last to first, so the first successor is visited next.
        for s in f.insts[t].successor_operands().iter().rev() {
            if let Value::Block(s) = *s
                && !seen[s]
            {
                stack.push(s);
            }
        }
    }
    out
}
