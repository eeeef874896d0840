//! `restructure-cfg` step 2 and the block-editing helpers: equal-arm folding, exit-block copies, trampolines.

use super::TAIL_DUPLICATION_LIMIT;
use xir_ir::analysis::{Cfg, DomTree};
use xir_ir::inst::{InstData, InstKind};
use xir_ir::{BlockId, Function, InstId, Value};

/// `cond_br c, X, X` → `br X`.
pub(super) fn fold_equal_arms(func: &mut Function) -> u64 {
    let mut n = 0;
    for k in 0..func.block_order.len() {
        let b = func.block_order[k];
        let Some(t) = func.terminator(b) else {
            continue;
        };
        let d = func.inst(t);
        if matches!(d.kind, InstKind::ConditionalBranch) && d.operands[1] == d.operands[2] {
            let target = d.operands[1];
            let d = func.inst_mut(t);
            d.kind = InstKind::Branch;
            d.operands.clear();
            d.operands.push(target);
            n += 1;
        }
    }
    n
}

/// Whether `b` ends in `return`/`unreachable`/`raster_discard` and is small enough to copy.
pub(super) fn is_small_exit(func: &Function, b: BlockId) -> bool {
    func.terminator(b).is_some_and(|t| {
        matches!(
            func.inst(t).kind,
            InstKind::Return | InstKind::Unreachable { .. } | InstKind::RasterDiscard
        )
    }) && func.blocks[b].insts.len() <= TAIL_DUPLICATION_LIMIT
}

/// Step 2 (selections): where a branch has several join points, the small exit blocks
/// among them are copied once per extra predecessor, so that one join remains.
pub(super) fn duplicate_exit_joins(func: &mut Function) -> u64 {
    let cfg = Cfg::compute(func);
    let dom = DomTree::compute(func, &cfg);
    let fwd = |b: BlockId| cfg.forward_preds(&dom, b);
    let mut copy: Vec<(BlockId, Vec<BlockId>)> = Vec::new();
    for &x in &cfg.rpo {
        if cfg.succs(x).len() < 2 {
            continue;
        }
        let joins: Vec<BlockId> = dom
            .children(x)
            .iter()
            .copied()
            .filter(|&c| fwd(c).len() >= 2)
            .collect();
        if joins.len() < 2 {
            continue;
        }
        for &j in &joins {
            if is_small_exit(func, j) {
                copy.push((j, fwd(j)));
            }
        }
    }
    let mut n = 0;
    for (e, preds) in copy {
        for &p in preds.iter().skip(1) {
            let c = clone_block(func, e);
            retarget(func, p, e, c);
            n += 1;
        }
    }
    n
}

/// A copy of block `b` (instructions and metadata; uses inside it remapped).
pub(super) fn clone_block(func: &mut Function, b: BlockId) -> BlockId {
    let c = func.create_block();
    func.blocks[c].metadata = func.blocks[b].metadata.clone();
    let insts = func.blocks[b].insts.clone();
    let mut map: Vec<(InstId, InstId)> = Vec::with_capacity(insts.len());
    for i in insts {
        let mut d = func.inst(i).clone();
        for op in d.operands.iter_mut() {
            if let Value::Inst(x) = op
                && let Some((_, y)) = map.iter().find(|(o, _)| o == x)
            {
                *op = Value::Inst(*y);
            }
        }
        let ni = func.append_inst(c, d);
        map.push((i, ni));
    }
    c
}

/// Makes the terminator of `p` branch to `new` wherever it branched to `old`.
pub(super) fn retarget(func: &mut Function, p: BlockId, old: BlockId, new: BlockId) {
    let t = func.terminator(p).expect("terminated");
    for op in func.inst_mut(t).operands.iter_mut() {
        if *op == Value::Block(old) {
            *op = Value::Block(new);
        }
    }
}

/// A new block holding only `kind target`.
pub(super) fn exit_block(func: &mut Function, kind: InstKind, target: BlockId) -> BlockId {
    let b = func.create_block();
    func.append_inst(b, InstData::new(kind, None, [Value::Block(target)]));
    b
}

/// Step 6: a block unreachable from the body (a true orphan) that still ends in a plain
/// `cond_br` / `indexed_branch` gets `unreachable` instead: it never runs, and the
/// structured form has no construct a block outside the body's CFG could head (the
/// seed's structural closure excludes true orphans). Its other instructions stay, for
/// `clear-spirv-inactive-payloads` to empty. Returns the blocks changed.
pub(super) fn seal_orphan_branches(func: &mut Function, reachable: impl Fn(BlockId) -> bool) -> u64 {
    let mut n = 0;
    for k in 0..func.block_order.len() {
        let b = func.block_order[k];
        if reachable(b) {
            continue;
        }
        let Some(t) = func.terminator(b) else {
            continue;
        };
        if matches!(
            func.inst(t).kind,
            InstKind::ConditionalBranch | InstKind::IndexedBranch { .. }
        ) {
            let d = func.inst_mut(t);
            d.kind = InstKind::Unreachable {
                message: String::new(),
            };
            d.operands.clear();
            n += 1;
        }
    }
    n
}
