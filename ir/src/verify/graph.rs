//! The control-flow facts the SSA and option checks share, for one function at a time:
//! upstream's edges (the block operands of each terminator), reachability from the body,
//! predecessor sets and dominance.
//!
//! Everything lives in flat vectors indexed by block handle or by DFS number, kept in one
//! [`Graph`] that [`Graph::build`] refills for each function of a module: verifying a
//! function allocates nothing per block or edge. Dominance queries are O(1): the
//! immediate dominators come from Lengauer–Tarjan
//! ([`LengauerTarjan`](crate::analysis::dom::LengauerTarjan)), and each block gets a
//! preorder number and subtree size in the dominator tree.

use super::Fx;
use crate::analysis::dom::{LengauerTarjan, NONE};
use crate::entity::EntityRef;
use crate::inst::InstId;
use crate::value::{BlockId, Value};

/// One function's CFG and dominator tree, with buffers reused across functions.
#[derive(Default)]
pub(crate) struct Graph {
    /// Per block: its successors, a range of `succ_list` (distinct, operand order).
    succ_range: Vec<(u32, u32)>,
    succ_list: Vec<BlockId>,
    /// Per block: its predecessors, `pred_list[pred_start[b]..pred_start[b + 1]]`
    /// (a set: distinct and sorted).
    pred_start: Vec<u32>,
    pred_list: Vec<BlockId>,
    /// Per block: the terminator of an owned, terminated block.
    term: Vec<Option<InstId>>,
    /// Per block: its DFS preorder number from the body (`NONE` = unreachable).
    num: Vec<u32>,
    /// Per DFS number: the block, and its DFS-tree parent.
    vertex: Vec<BlockId>,
    parent: Vec<u32>,
    /// Immediate dominators by DFS number.
    lt: LengauerTarjan,
    /// Per DFS number: preorder number and subtree size in the dominator tree.
    dom_pre: Vec<u32>,
    dom_size: Vec<u32>,
    /// DFS stack: a block and the next successor to visit.
    stack: Vec<(BlockId, u32)>,
    /// Per block: the next free slot of its predecessor list while filling it.
    cursor: Vec<u32>,
    /// Per block: the phi that last listed it as an incoming block (duplicate check).
    pub phi_listed: Vec<Option<InstId>>,
}

fn reset<T: Clone>(v: &mut Vec<T>, n: usize, x: T) {
    v.clear();
    v.resize(n, x);
}

impl Graph {
    /// Recomputes everything for the function of `fx` (after instruction placement;
    /// a terminator with the wrong operand count has no edges).
    pub fn build(&mut self, fx: &Fx<'_, '_>) {
        let f = fx.f;
        let nb = f.blocks.len();
        reset(&mut self.succ_range, nb, (0, 0));
        reset(&mut self.term, nb, None);
        reset(&mut self.phi_listed, nb, None);
        self.succ_list.clear();
        // `pred_start` counts predecessors first (shifted by one), then holds offsets.
        reset(&mut self.pred_start, nb + 1, 0);
        // `num` doubles as "last source that listed this target" while collecting
        // successors, so a wide switch stays linear.
        reset(&mut self.num, nb, NONE);
        for &b in &fx.order {
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
            self.term[b.index()] = Some(last);
            if super::types::expected_count(d).is_err() {
                continue;
            }
            let start = self.succ_list.len() as u32;
            for v in d.successor_operands() {
                if let Value::Block(t) = *v
                    && fx.is_owned(t)
                    && self.num[t.index()] != b.index() as u32
                {
                    self.num[t.index()] = b.index() as u32;
                    self.succ_list.push(t);
                    self.pred_start[t.index() + 1] += 1;
                }
            }
            self.succ_range[b.index()] = (start, self.succ_list.len() as u32);
        }
        // Predecessor sets: sources in handle order, so each list comes out sorted.
        for k in 0..nb {
            self.pred_start[k + 1] += self.pred_start[k];
        }
        reset(&mut self.pred_list, self.succ_list.len(), BlockId::new(0));
        self.cursor.clear();
        self.cursor.extend_from_slice(&self.pred_start[..nb]);
        for s in 0..nb {
            let (lo, hi) = self.succ_range[s];
            for &t in &self.succ_list[lo as usize..hi as usize] {
                let slot = &mut self.cursor[t.index()];
                self.pred_list[*slot as usize] = BlockId::new(s);
                *slot += 1;
            }
        }
        self.number_blocks(fx);
        self.dominators();
    }

    /// DFS preorder numbers and spanning-tree parents from the body.
    fn number_blocks(&mut self, fx: &Fx<'_, '_>) {
        self.num.fill(NONE);
        self.vertex.clear();
        self.parent.clear();
        self.stack.clear();
        let Some(entry) = fx.f.body.filter(|b| fx.is_owned(*b)) else {
            return;
        };
        self.num[entry.index()] = 0;
        self.vertex.push(entry);
        self.parent.push(NONE);
        self.stack.push((entry, 0));
        while let Some(top) = self.stack.last_mut() {
            let (b, next) = *top;
            let (lo, hi) = self.succ_range[b.index()];
            if lo + next < hi {
                top.1 += 1;
                let t = self.succ_list[(lo + next) as usize];
                if self.num[t.index()] == NONE {
                    self.num[t.index()] = self.vertex.len() as u32;
                    self.parent.push(self.num[b.index()]);
                    self.vertex.push(t);
                    self.stack.push((t, 0));
                }
            } else {
                self.stack.pop();
            }
        }
    }

    /// Immediate dominators, then dominator-tree preorder numbers and subtree sizes
    /// (an immediate dominator has a smaller DFS number than the blocks it dominates, so
    /// two linear sweeps do it without building the tree).
    fn dominators(&mut self) {
        let Self {
            pred_start,
            pred_list,
            num,
            vertex,
            parent,
            lt,
            ..
        } = self;
        lt.compute(parent, |w| {
            let b = vertex[w as usize].index();
            pred_list[pred_start[b] as usize..pred_start[b + 1] as usize]
                .iter()
                .map(|p| num[p.index()])
                .filter(|v| *v != NONE)
        });
        let n = self.vertex.len();
        let idom = &self.lt.idom;
        reset(&mut self.dom_size, n, 1);
        for w in (1..n).rev() {
            self.dom_size[idom[w] as usize] += self.dom_size[w];
        }
        // `dom_pre[w]` first; the next free number below `w` is kept in `parent[w]`,
        // which is not needed any more.
        reset(&mut self.dom_pre, n, 0);
        let next = &mut self.parent;
        if n > 0 {
            next[0] = 1;
        }
        for w in 1..n {
            let p = idom[w] as usize;
            self.dom_pre[w] = next[p];
            next[p] += self.dom_size[w];
            next[w] = self.dom_pre[w] + 1;
        }
    }

    /// Whether `b` is reachable from the body.
    #[inline]
    pub fn is_reachable(&self, b: BlockId) -> bool {
        self.num.get(b.index()).is_some_and(|n| *n != NONE)
    }

    /// The predecessor set of `b`, sorted.
    pub fn preds(&self, b: BlockId) -> &[BlockId] {
        match (
            self.pred_start.get(b.index()),
            self.pred_start.get(b.index() + 1),
        ) {
            (Some(&lo), Some(&hi)) => &self.pred_list[lo as usize..hi as usize],
            _ => &[],
        }
    }

    /// The terminator of an owned, terminated block.
    pub fn term(&self, b: BlockId) -> Option<InstId> {
        self.term.get(b.index()).copied().flatten()
    }

    /// The reachable blocks, each after its dominators (DFS preorder from the body).
    pub fn dominators_first(&self) -> &[BlockId] {
        &self.vertex
    }

    /// The immediate dominator of a reachable block (`None` for the body and
    /// unreachable blocks).
    pub fn idom(&self, b: BlockId) -> Option<BlockId> {
        let w = *self.num.get(b.index())?;
        let d = *self.lt.idom.get(w as usize)?;
        (d != NONE).then(|| self.vertex[d as usize])
    }

    /// Upstream's `block_dominates`: uses in unreachable blocks are always dominated,
    /// definitions in unreachable blocks never dominate a reachable use.
    #[inline]
    pub fn block_dominates(&self, def: BlockId, use_: BlockId) -> bool {
        if !self.is_reachable(use_) {
            return true;
        }
        if !self.is_reachable(def) {
            return false;
        }
        let (a, b) = (
            self.num[def.index()] as usize,
            self.num[use_.index()] as usize,
        );
        let (pa, pb) = (self.dom_pre[a], self.dom_pre[b]);
        pa <= pb && pb < pa + self.dom_size[a]
    }
}
