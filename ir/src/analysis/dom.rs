//! Dominator tree (Cooper–Harvey–Kennedy iterative algorithm over reverse post-order) and
//! dominance frontiers. Only blocks reachable from the body are in the tree.

use super::cfg::Cfg;
use crate::entity::SecondaryMap;
use crate::function::Function;
use crate::value::BlockId;

/// Immediate dominators, tree children and DFS intervals for O(1) dominance queries.
#[derive(Clone, Debug, Default)]
pub struct DomTree {
    idom: SecondaryMap<BlockId, Option<BlockId>>,
    children: SecondaryMap<BlockId, Vec<BlockId>>,
    pre: SecondaryMap<BlockId, u32>,
    post: SecondaryMap<BlockId, u32>,
    root: Option<BlockId>,
}

impl DomTree {
    /// Computes the dominator tree of `f` from its CFG.
    pub fn compute(f: &Function, cfg: &Cfg) -> Self {
        let mut t = DomTree::default();
        let Some(entry) = f.body else { return t };
        if cfg.rpo.is_empty() {
            return t;
        }
        let n = cfg.rpo.len();
        // idom as rpo indices.
        let mut idom: Vec<u32> = vec![u32::MAX; n];
        idom[0] = 0;
        let mut changed = true;
        while changed {
            changed = false;
            for i in 1..n {
                let b = cfg.rpo[i];
                let mut new_idom = u32::MAX;
                for &p in cfg.preds(b) {
                    let pi = *cfg.rpo_index.get(p);
                    if pi == u32::MAX || idom[pi as usize] == u32::MAX {
                        continue;
                    }
                    new_idom = if new_idom == u32::MAX {
                        pi
                    } else {
                        intersect(&idom, pi, new_idom)
                    };
                }
                if new_idom != u32::MAX && idom[i] != new_idom {
                    idom[i] = new_idom;
                    changed = true;
                }
            }
        }
        t.root = Some(entry);
        for (i, &d_index) in idom.iter().enumerate().skip(1) {
            if d_index == u32::MAX {
                continue;
            }
            let b = cfg.rpo[i];
            let d = cfg.rpo[d_index as usize];
            t.idom[b] = Some(d);
            t.children[d].push(b);
        }
        // DFS numbering (iterative) for O(1) dominance.
        let mut counter = 0u32;
        let mut stack: Vec<(BlockId, usize)> = vec![(entry, 0)];
        t.pre[entry] = counter;
        counter += 1;
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            let kids = t.children.get(b);
            if *next < kids.len() {
                let c = kids[*next];
                *next += 1;
                t.pre[c] = counter;
                counter += 1;
                stack.push((c, 0));
            } else {
                t.post[b] = counter;
                counter += 1;
                stack.pop();
            }
        }
        t
    }

    /// The entry block (tree root).
    pub fn root(&self) -> Option<BlockId> {
        self.root
    }

    /// Whether `b` is in the tree (reachable).
    pub fn contains(&self, b: BlockId) -> bool {
        Some(b) == self.root || self.idom.get(b).is_some()
    }

    /// Immediate dominator of `b` (`None` for the root and unreachable blocks).
    pub fn idom(&self, b: BlockId) -> Option<BlockId> {
        *self.idom.get(b)
    }

    /// Dominator-tree children of `b`.
    pub fn children(&self, b: BlockId) -> &[BlockId] {
        self.children.get(b)
    }

    /// Whether `a` dominates `b` (reflexive). False if either is unreachable.
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        if !self.contains(a) || !self.contains(b) {
            return false;
        }
        self.pre[a] <= self.pre[b] && self.post[b] <= self.post[a]
    }

    /// Dominance frontiers of every reachable block.
    pub fn frontiers(&self, cfg: &Cfg) -> SecondaryMap<BlockId, Vec<BlockId>> {
        let mut df: SecondaryMap<BlockId, Vec<BlockId>> = SecondaryMap::default();
        for &b in &cfg.rpo {
            let preds: Vec<BlockId> = cfg
                .preds(b)
                .iter()
                .copied()
                .filter(|p| cfg.is_reachable(*p))
                .collect();
            if preds.len() < 2 {
                continue;
            }
            let Some(stop) = self.idom(b) else { continue };
            for p in preds {
                let mut runner = p;
                while runner != stop {
                    if !df[runner].contains(&b) {
                        df[runner].push(b);
                    }
                    match self.idom(runner) {
                        Some(r) => runner = r,
                        None => break,
                    }
                }
            }
        }
        df
    }
}

fn intersect(idom: &[u32], mut a: u32, mut b: u32) -> u32 {
    while a != b {
        while a > b {
            a = idom[a as usize];
        }
        while b > a {
            b = idom[b as usize];
        }
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::Cursor;
    use crate::function::{Function, FunctionKind};
    use crate::value::Value;

    #[test]
    fn diamond() {
        let mut f = Function::new(FunctionKind::Callable, None);
        let e = f.ensure_body();
        let a = f.create_block();
        let b = f.create_block();
        let m = f.create_block();
        let unreachable = f.create_block();
        let cond = Value::Block(e); // any value works for the CFG
        Cursor::at_end(&mut f, e).cond_br(cond, a, b);
        Cursor::at_end(&mut f, a).br(m);
        Cursor::at_end(&mut f, b).br(m);
        Cursor::at_end(&mut f, m).ret(None);
        Cursor::at_end(&mut f, unreachable).br(m);
        let cfg = Cfg::compute(&f);
        assert_eq!(cfg.rpo.len(), 4);
        assert!(!cfg.is_reachable(unreachable));
        let dt = DomTree::compute(&f, &cfg);
        assert_eq!(dt.idom(m), Some(e));
        assert!(dt.dominates(e, m));
        assert!(!dt.dominates(a, m));
        let df = dt.frontiers(&cfg);
        assert_eq!(df[a], vec![m]);
        assert_eq!(df[b], vec![m]);
        assert!(df[e].is_empty());
    }
}
