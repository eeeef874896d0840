//! Successors, predecessors and a reverse post-order of one function, computed
//! iteratively (no recursion, so arbitrarily deep graphs are fine).

use crate::entity::SecondaryMap;
use crate::function::Function;
use crate::value::BlockId;

/// The control-flow graph of one function.
#[derive(Clone, Debug, Default)]
pub struct Cfg {
    /// Successors in terminator operand order (duplicates kept, e.g. `cond_br c, %a, %a`).
    pub succs: SecondaryMap<BlockId, Vec<BlockId>>,
    /// Predecessors (one entry per edge, in owned-block order of the source).
    pub preds: SecondaryMap<BlockId, Vec<BlockId>>,
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
        for &b in &f.block_order {
            let s = f.successors(b);
            for &t in &s {
                cfg.preds[t].push(b);
            }
            cfg.succs[b] = s;
        }
        let Some(entry) = f.body else { return cfg };
        // Iterative DFS producing post-order.
        let mut visited: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
        let mut post = Vec::new();
        let mut stack: Vec<(BlockId, usize)> = vec![(entry, 0)];
        visited[entry] = true;
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            let succs = cfg.succs.get(b);
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
    pub fn succs(&self, b: BlockId) -> &[BlockId] {
        self.succs.get(b)
    }

    /// Predecessors of `b` (one per edge).
    pub fn preds(&self, b: BlockId) -> &[BlockId] {
        self.preds.get(b)
    }
}
