//! Successors, predecessors and a reverse post-order of one function, computed
//! iteratively (no recursion, so arbitrarily deep graphs are fine).
//!
//! Edges are stored flat (compressed sparse rows): one list of all successors and one of
//! all predecessors, each block owning a contiguous range. A `Vec` per block put every
//! block's edges in its own heap allocation, and the walks over a 100k-block function
//! (dominators, loops, the passes' CFG queries) spent most of their time in cache misses
//! reaching them (docs/passes-perf.md).

use crate::analysis::DomTree;
use crate::entity::{EntityRef, SecondaryMap};
use crate::function::Function;
use crate::value::BlockId;

/// The control-flow graph of one function.
#[derive(Clone, Debug, Default)]
pub struct Cfg {
    /// `succ_list[range]` are a block's successors in terminator operand order
    /// (duplicates kept, e.g. `cond_br c, %a, %a`).
    succ_range: SecondaryMap<BlockId, (u32, u32)>,
    succ_list: Vec<BlockId>,
    /// `pred_list[range]` are a block's predecessors, one entry per edge, in owned-block
    /// order of the source.
    pred_range: SecondaryMap<BlockId, (u32, u32)>,
    pred_list: Vec<BlockId>,
    /// Blocks reachable from the body, in reverse post-order (body first).
    pub rpo: Vec<BlockId>,
    /// Position of each reachable block in `rpo` (`u32::MAX` = unreachable).
    pub rpo_index: SecondaryMap<BlockId, u32>,
}

impl Cfg {
    /// Computes the CFG of `f` (owned blocks only).
    pub fn compute(f: &Function) -> Self {
        let mut cfg = Cfg {
            rpo_index: SecondaryMap::with_default(u32::MAX),
            ..Default::default()
        };
        // Successors, block by block; predecessor counts on the way.
        let mut pred_count: SecondaryMap<BlockId, u32> = SecondaryMap::with_default(0);
        let mut targets: Vec<BlockId> = Vec::new();
        for &b in &f.block_order {
            let start = cfg.succ_list.len() as u32;
            if let Some(t) = f.terminator(b) {
                for s in f.insts[t].successors() {
                    let c = &mut pred_count[s];
                    if *c == 0 {
                        targets.push(s);
                    }
                    *c += 1;
                    cfg.succ_list.push(s);
                }
            }
            cfg.succ_range[b] = (start, cfg.succ_list.len() as u32);
        }
        // Predecessor ranges (targets in first-seen order), then a fill in source order.
        let mut at = 0u32;
        for &t in &targets {
            let n = *pred_count.get(t);
            cfg.pred_range[t] = (at, at);
            at += n;
        }
        cfg.pred_list = vec![BlockId::new(0); at as usize];
        for &b in &f.block_order {
            let (s, e) = *cfg.succ_range.get(b);
            for i in s..e {
                let t = cfg.succ_list[i as usize];
                let r = &mut cfg.pred_range[t];
                cfg.pred_list[r.1 as usize] = b;
                r.1 += 1;
            }
        }
        let Some(entry) = f.body else { return cfg };
        // Iterative DFS producing post-order.
        let mut visited: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
        let mut post = Vec::new();
        let mut stack: Vec<(BlockId, usize)> = vec![(entry, 0)];
        visited[entry] = true;
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            let succs = cfg.succs(b);
            if *next < succs.len() {
                let t = succs[*next];
                *next += 1;
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
        for (i, &b) in post.iter().enumerate() {
            cfg.rpo_index[b] = i as u32;
        }
        cfg.rpo = post;
        cfg
    }

    /// Whether `b` is reachable from the body.
    pub fn is_reachable(&self, b: BlockId) -> bool {
        *self.rpo_index.get(b) != u32::MAX
    }

    /// Successors of `b`.
    #[inline]
    pub fn succs(&self, b: BlockId) -> &[BlockId] {
        let (s, e) = *self.succ_range.get(b);
        &self.succ_list[s as usize..e as usize]
    }

    /// Predecessors of `b` (one per edge).
    #[inline]
    pub fn preds(&self, b: BlockId) -> &[BlockId] {
        let (s, e) = *self.pred_range.get(b);
        &self.pred_list[s as usize..e as usize]
    }

    /// The reachable predecessors of `b` along forward edges (not back edges: `b` does
    /// not dominate them), each once, in predecessor order. `dom` must be this CFG's.
    pub fn forward_preds(&self, dom: &DomTree, b: BlockId) -> Vec<BlockId> {
        let mut v: Vec<BlockId> = self
            .preds(b)
            .iter()
            .copied()
            .filter(|&p| self.is_reachable(p) && !dom.dominates(b, p))
            .collect();
        // A source's edges are listed together (`cond_br c, %b, %b` gives two).
        v.dedup();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::{Cursor, InstBuilder};
    use crate::function::FunctionKind;
    use crate::value::Value;

    /// Back edges, unreachable sources and a doubled edge are not forward predecessors.
    #[test]
    fn forward_preds_skip_back_edges_unreachable_and_repeats() {
        let mut f = Function::new(FunctionKind::Callable, None);
        let e = f.ensure_body();
        let h = f.create_block();
        let body = f.create_block();
        let exit = f.create_block();
        let dead = f.create_block();
        let c = Value::Block(e); // any value works for the CFG
        Cursor::at_end(&mut f, e).cond_br(c, h, h);
        Cursor::at_end(&mut f, h).cond_br(c, body, exit);
        Cursor::at_end(&mut f, body).br(h);
        Cursor::at_end(&mut f, exit).ret(None);
        Cursor::at_end(&mut f, dead).br(h);
        let cfg = Cfg::compute(&f);
        let dom = DomTree::compute(&f, &cfg);
        assert_eq!(cfg.preds(h).len(), 4);
        assert_eq!(cfg.forward_preds(&dom, h), vec![e]);
        assert_eq!(cfg.forward_preds(&dom, exit), vec![h]);
        assert_eq!(cfg.forward_preds(&dom, e), Vec::<BlockId>::new());
    }
}
