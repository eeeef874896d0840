//! `restructure-cfg` step 4: one merge per selection, by duplicating the small tails of
//! the extra join points.
//!
//! A `cond_br` / `indexed_branch` in block `X` can have only one merge: the one
//! dominator-tree child of `X` with two or more forward predecessors (loop roles aside).
//! When there are several (typically a `return` or `break` path that `destructure-cfg`
//! joined with the code after the selection), the earliest in reverse post-order stays
//! the merge candidate; every later join `J` whose dominator subtree is small, holds no
//! loop role and no preheader, is copied once per forward predecessor not dominated by
//! the merge candidate (the first predecessor keeps `J` when none is). Each copy is
//! entered only by its predecessor, so the selection's arm owns it; edges leaving the
//! subtree keep their targets, so they are the same exits as before. This is the
//! duplicated-tail shape of upstream's restructurer (its tail duplication of shared
//! exits), bounded by [`JOIN_TAIL_LIMIT`] instructions per copy and by
//! `main-iteration-limit` copies per definition.

use super::loops::{LoopInfo, Shape};
use super::{Failure, Limits};
use std::collections::HashMap;
use xir_ir::analysis::{Cfg, DomTree};
use xir_ir::inst::InstKind;
use xir_ir::{BlockId, Function, InstId, SecondaryMap, Value};

/// Most instructions in one duplicated join subtree.
pub const JOIN_TAIL_LIMIT: usize = 64;

/// Duplicates extra join subtrees until every selection has at most one join (or the
/// rest cannot be copied: the walk then reports them). Returns the copies made and the
/// CFG and dominator tree of the result (the walk reuses them).
pub(super) fn unshare_extra_joins(
    func: &mut Function,
    loops: &[LoopInfo],
    limits: Limits,
) -> Result<(u64, (Cfg, DomTree)), Failure> {
    let mut role: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
    let mut nocopy: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
    let mut prepare: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
    for l in loops {
        role[l.header] = true;
        role[l.merge] = true;
        nocopy[l.header] = true;
        nocopy[l.merge] = true;
        nocopy[l.preheader] = true;
        if let Shape::Loop { update, .. } = l.shape {
            role[update] = true;
            nocopy[update] = true;
            prepare[l.header] = true;
        }
    }
    let mut copies = 0u64;
    'restart: loop {
        let cfg = Cfg::compute(func);
        let dom = DomTree::compute(func, &cfg);
        let fwd = |b: BlockId| cfg.forward_preds(&dom, b);
        for &x in &cfg.rpo {
            if cfg.succs(x).len() < 2 || prepare[x] {
                continue;
            }
            let mut joins: Vec<BlockId> = dom
                .children(x)
                .iter()
                .copied()
                .filter(|&c| !role[c] && fwd(c).len() >= 2)
                .collect();
            if joins.len() < 2 {
                continue;
            }
            joins.sort_by_key(|b| cfg.rpo_index[*b]);
            let m = joins[0];
            let mut changed = false;
            for &j in &joins[1..] {
                let Some(tree) = copyable_subtree(func, &dom, &nocopy, j) else {
                    continue;
                };
                let preds = fwd(j);
                let keep_any = preds.iter().any(|&p| dom.dominates(m, p));
                for (k, &p) in preds.iter().enumerate() {
                    let keep = if keep_any { dom.dominates(m, p) } else { k == 0 };
                    if keep {
                        continue;
                    }
                    copies += 1;
                    if copies > limits.main {
                        return Err(Failure::IterationLimit {
                            which: "main-iteration-limit",
                        });
                    }
                    let c = clone_subtree(func, &tree);
                    super::exits::retarget(func, p, j, c);
                    changed = true;
                }
            }
            if changed {
                continue 'restart;
            }
        }
        return Ok((copies, (cfg, dom)));
    }
}

/// The dominator subtree of `j` in reverse post-order (`j` first), when it holds no loop
/// role or preheader and at most [`JOIN_TAIL_LIMIT`] instructions.
fn copyable_subtree(
    func: &Function,
    dom: &DomTree,
    nocopy: &SecondaryMap<BlockId, bool>,
    j: BlockId,
) -> Option<Vec<BlockId>> {
    let mut out = Vec::new();
    let mut size = 0usize;
    let mut stack = vec![j];
    while let Some(b) = stack.pop() {
        if nocopy[b] {
            return None;
        }
        size += func.blocks[b].insts.len();
        if size > JOIN_TAIL_LIMIT {
            return None;
        }
        out.push(b);
        stack.extend(dom.children(b).iter().copied());
    }
    // Definitions before uses: a dominator comes before what it dominates in preorder.
    Some(out)
}

/// Copies `tree` (dominator preorder, root first); branches inside it and uses of its
/// values are remapped to the copies. Returns the copy of the root.
fn clone_subtree(func: &mut Function, tree: &[BlockId]) -> BlockId {
    let mut bmap: HashMap<BlockId, BlockId> = HashMap::with_capacity(tree.len());
    for &b in tree {
        let c = func.create_block();
        func.blocks[c].metadata = func.blocks[b].metadata.clone();
        bmap.insert(b, c);
    }
    let mut imap: HashMap<InstId, InstId> = HashMap::new();
    for &b in tree {
        let c = bmap[&b];
        for i in func.blocks[b].insts.clone() {
            let mut d = func.inst(i).clone();
            for op in d.operands.iter_mut() {
                match op {
                    Value::Inst(x) => {
                        if let Some(y) = imap.get(x) {
                            *op = Value::Inst(*y);
                        }
                    }
                    Value::Block(x) => {
                        if let Some(y) = bmap.get(x) {
                            *op = Value::Block(*y);
                        }
                    }
                    _ => {}
                }
            }
            debug_assert!(!matches!(d.kind, InstKind::Phi), "phi-free input");
            let ni = func.append_inst(c, d);
            imap.insert(i, ni);
        }
    }
    bmap[&tree[0]]
}
