//! SSA checks: the control-flow graph (upstream's edges: the block operands of each
//! terminator), reachability from the body, dominance of definitions over uses, and the
//! phi rules.
//!
//! Upstream semantics, reproduced exactly:
//! * a use in an unreachable block is never a dominance error; a definition in an
//!   unreachable block used from a reachable one is;
//! * within one block a definition must come strictly before its (non-phi) use;
//! * a phi's incoming value must dominate the end of its incoming block (or precede that
//!   block's terminator when defined in it);
//! * phi incoming blocks are distinct and are exactly the block's predecessor *set*
//!   (a `cond_br %c, %x, %x` edge pair counts once, as upstream keeps predecessor sets).

use super::{Fx, optional};
use crate::analysis::{Cfg, DomTree};
use crate::entity::SecondaryMap;
use crate::inst::{InstId, InstKind};
use crate::value::{BlockId, Value};
use rustc_hash::FxHashSet;

/// The CFG facts later checks share.
pub(crate) struct Graph {
    /// Successors are distinct; predecessor lists are sorted sets.
    pub cfg: Cfg,
    pub dom: DomTree,
    /// Terminator of each owned, terminated block.
    pub term: SecondaryMap<BlockId, Option<InstId>>,
}

impl Graph {
    /// Upstream's `block_dominates`: uses in unreachable blocks are always dominated.
    pub fn block_dominates(&self, def: BlockId, use_: BlockId) -> bool {
        if !self.cfg.is_reachable(use_) {
            return true;
        }
        if !self.cfg.is_reachable(def) {
            return false;
        }
        self.dom.dominates(def, use_)
    }
}

/// The successor operand indices of a terminator (upstream's `add_successor` positions).
fn successor_slots(k: &InstKind, n: usize) -> std::ops::Range<usize> {
    match k {
        InstKind::If { .. } | InstKind::ConditionalBranch => 1..3.min(n),
        InstKind::Switch { .. } | InstKind::IndexedBranch { .. } => 1.min(n)..n,
        InstKind::RayQueryDispatch => 1.min(n)..4.min(n),
        InstKind::Loop { .. }
        | InstKind::SimpleLoop { .. }
        | InstKind::Branch
        | InstKind::Break
        | InstKind::Continue
        | InstKind::RayQueryLoop { .. }
        | InstKind::AutodiffScope { .. }
        | InstKind::Outline { .. } => 0..1.min(n),
        _ => 0..0,
    }
}

fn build_graph(fx: &Fx<'_, '_>) -> Graph {
    let f = fx.f;
    let mut cfg = Cfg {
        rpo_index: SecondaryMap::with_default(u32::MAX),
        ..Default::default()
    };
    let mut term: SecondaryMap<BlockId, Option<InstId>> = SecondaryMap::with_default(None);
    let mut seen: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
    let mut last_src: SecondaryMap<BlockId, Option<BlockId>> = SecondaryMap::with_default(None);
    for &b in &f.block_order {
        if !fx.is_owned(b) || seen[b] {
            continue;
        }
        seen[b] = true;
        let Some(&last) = f.blocks[b].insts.last() else {
            continue;
        };
        if fx.place(last).map(|p| p.0) != Some(b) {
            continue;
        }
        let Some(d) = fx.inst(last) else { continue };
        if !d.kind.is_terminator() {
            continue;
        }
        term[b] = Some(last);
        if !*fx.shape_ok.get(last) {
            continue;
        }
        // Distinct successors in operand order; `last_src` marks targets already taken
        // from this block (a wide switch must not cost quadratic time).
        let mut succs = Vec::new();
        for k in successor_slots(&d.kind, d.operands.len()) {
            if let Value::Block(t) = d.operands[k]
                && fx.is_owned(t)
                && last_src[t] != Some(b)
            {
                last_src[t] = Some(b);
                succs.push(t);
            }
        }
        for &t in &succs {
            cfg.preds[t].push(b);
        }
        cfg.succs[b] = succs;
    }
    // Each source lists a target once, so sorting makes the predecessor lists sets.
    for &b in &f.block_order {
        if fx.is_owned(b) {
            cfg.preds[b].sort_unstable();
        }
    }
    // Reverse post-order from the body (iterative DFS).
    if let Some(entry) = f.body.filter(|b| fx.is_owned(*b)) {
        let mut visited: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
        let mut post = Vec::new();
        let mut stack: Vec<(BlockId, usize)> = vec![(entry, 0)];
        visited[entry] = true;
        while let Some(top) = stack.last_mut() {
            let (b, next) = *top;
            let succs = cfg.succs.get(b);
            if next < succs.len() {
                top.1 += 1;
                let t = succs[next];
                if !visited[t] {
                    visited[t] = true;
                    stack.push((t, 0));
                }
            } else {
                post.push(b);
                stack.pop();
            }
        }
        post.reverse();
        for (k, &b) in post.iter().enumerate() {
            cfg.rpo_index[b] = k as u32;
        }
        cfg.rpo = post;
    }
    let dom = DomTree::compute(f, &cfg);
    Graph { cfg, dom, term }
}

/// Runs the CFG-dependent checks for the whole function.
pub(super) fn check(fx: &mut Fx<'_, '_>) {
    let g = build_graph(fx);
    let f = fx.f;
    let mut seen: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
    for &b in &f.block_order {
        if !fx.is_owned(b) || seen[b] {
            continue;
        }
        seen[b] = true;
        for &i in &f.blocks[b].insts {
            if fx.place(i).map(|p| p.0) != Some(b) || !*fx.handles_ok.get(i) {
                continue;
            }
            let Some(d) = fx.inst(i) else { continue };
            if let InstKind::Phi { blocks } = &d.kind {
                check_phi(fx, &g, b, i, blocks);
            } else {
                check_dominance(fx, &g, b, i);
            }
        }
    }
    optional::check_graph(fx, &g);
}

fn check_dominance(fx: &mut Fx<'_, '_>, g: &Graph, b: BlockId, i: InstId) {
    let Some(d) = fx.inst(i) else { return };
    let Some((_, order)) = fx.place(i) else {
        return;
    };
    for (k, &v) in d.operands.iter().enumerate() {
        let Value::Inst(x) = v else { continue };
        let Some((db, dorder)) = fx.place(x) else {
            continue;
        };
        if db == b {
            if dorder >= order {
                let what = if x == i {
                    "the instruction itself"
                } else {
                    "a later instruction"
                };
                let xn = fx.iname(x);
                fx.err_inst(
                    b,
                    i,
                    format!(
                        "operand {k} ({xn}) is defined by {what} of the same block; definitions must precede their uses"
                    ),
                );
            }
        } else if !g.block_dominates(db, b) {
            let (xn, dn) = (fx.iname(x), fx.bname(db));
            fx.err_inst(
                b,
                i,
                format!("operand {k} ({xn}, defined in block {dn}) does not dominate this use"),
            );
        }
    }
}

fn check_phi(fx: &mut Fx<'_, '_>, g: &Graph, b: BlockId, i: InstId, blocks: &[BlockId]) {
    let Some(d) = fx.inst(i) else { return };
    let preds = g.cfg.preds(b);
    let mut incoming: FxHashSet<BlockId> = FxHashSet::default();
    for (k, (&v, &ib)) in d.operands.iter().zip(blocks).enumerate() {
        if !fx.is_owned(ib) {
            fx.err_inst(
                b,
                i,
                format!("incoming block {k} is not owned by this function"),
            );
            continue;
        }
        if preds.binary_search(&ib).is_err() {
            let (ibn, bn) = (fx.bname(ib), fx.bname(b));
            fx.err_inst(
                b,
                i,
                format!("incoming block {k} ({ibn}) is not a predecessor of block {bn}"),
            );
            continue;
        }
        if !incoming.insert(ib) {
            let ibn = fx.bname(ib);
            fx.err_inst(
                b,
                i,
                format!("incoming block {k} ({ibn}) appears more than once"),
            );
            continue;
        }
        let Value::Inst(x) = v else { continue };
        let Some((db, dorder)) = fx.place(x) else {
            continue;
        };
        if db == ib {
            if let Some(t) = *g.term.get(ib) {
                let torder = fx.place(t).map_or(u32::MAX, |p| p.1);
                if dorder >= torder {
                    let (xn, ibn) = (fx.iname(x), fx.bname(ib));
                    fx.err_inst(
                        b,
                        i,
                        format!(
                            "incoming value {k} ({xn}) does not precede the terminator of its incoming block {ibn}"
                        ),
                    );
                }
            }
        } else if !g.block_dominates(db, ib) {
            let (xn, dn, ibn) = (fx.iname(x), fx.bname(db), fx.bname(ib));
            fx.err_inst(
                b,
                i,
                format!(
                    "incoming value {k} ({xn}, defined in block {dn}) does not dominate the end of its incoming block {ibn}"
                ),
            );
        }
    }
    if incoming.len() != preds.len() {
        let names: Vec<String> = preds.iter().map(|p| fx.bname(*p)).collect();
        fx.err_inst(
            b,
            i,
            format!(
                "incoming blocks do not match the predecessors of block {} ({})",
                fx.bname(b),
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ),
        );
    }
}
