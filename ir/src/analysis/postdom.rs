//! Post-dominator tree: Lengauer–Tarjan (the same engine as [`super::dom`]) on the
//! reversed CFG, rooted at a virtual exit whose predecessors are the exit blocks
//! (reachable blocks without successors: `return`, `unreachable`, …).
//!
//! Only blocks reachable from the body that can reach an exit block are in the tree; a
//! block that only leads into an endless loop is post-dominated by nothing
//! ([`PostDomTree::contains`] is false). `a` post-dominates `b` when every path from `b`
//! to the exit passes through `a` (reflexive).
//!
//! ```
//! use xir_ir::analysis::{Cfg, PostDomTree};
//! let (m, _) = xir_ir::text::parse_module(
//!     "module; kernel %k (%c: bool;) = define %e: { %x: void = cond_br %c, %a, %j; }
//!      %a: { %y: void = br %j; } %j: { %r: void = return; };",
//! ).unwrap();
//! let f = m.func(m.func_order[0]);
//! let pd = PostDomTree::compute(f, &Cfg::compute(f));
//! let (e, j) = (f.body.unwrap(), f.block_order[2]);
//! assert!(pd.post_dominates(j, e));
//! assert_eq!(pd.ipdom(e), Some(j));
//! assert_eq!(pd.ipdom(j), None); // an exit block: the virtual exit is its parent
//! ```

use super::cfg::Cfg;
use super::dom::{LengauerTarjan, NONE};
use crate::entity::SecondaryMap;
use crate::function::Function;
use crate::value::BlockId;

/// Immediate post-dominators with DFS intervals for O(1) queries.
#[derive(Clone, Debug, Default)]
pub struct PostDomTree {
    ipdom: SecondaryMap<BlockId, Option<BlockId>>,
    in_tree: SecondaryMap<BlockId, bool>,
    children: SecondaryMap<BlockId, Vec<BlockId>>,
    roots: Vec<BlockId>,
    pre: SecondaryMap<BlockId, u32>,
    post: SecondaryMap<BlockId, u32>,
}

impl PostDomTree {
    /// Computes the post-dominator tree of `f` from its CFG.
    pub fn compute(f: &Function, cfg: &Cfg) -> Self {
        let _ = f;
        let mut t = PostDomTree::default();
        // Vertex 0 is the virtual exit; DFS over reversed edges from it.
        let exits: Vec<BlockId> = cfg
            .rpo
            .iter()
            .copied()
            .filter(|b| cfg.succs(*b).is_empty())
            .collect();
        let mut num: SecondaryMap<BlockId, u32> = SecondaryMap::with_default(NONE);
        let mut vertex: Vec<Option<BlockId>> = vec![None];
        let mut parent: Vec<u32> = vec![NONE];
        // Stack of (vertex number, next reversed-successor index).
        let mut stack: Vec<(u32, usize)> = vec![(0, 0)];
        while let Some(&mut (v, ref mut next)) = stack.last_mut() {
            let rsuccs: &[BlockId] = match vertex[v as usize] {
                None => &exits,
                Some(b) => cfg.preds(b),
            };
            if *next < rsuccs.len() {
                let p = rsuccs[*next];
                *next += 1;
                if cfg.is_reachable(p) && num[p] == NONE {
                    num[p] = vertex.len() as u32;
                    parent.push(v);
                    vertex.push(Some(p));
                    stack.push((num[p], 0));
                }
            } else {
                stack.pop();
            }
        }
        let mut lt = LengauerTarjan::default();
        // Reversed predecessors of a block are its forward successors (and the virtual
        // exit for an exit block).
        lt.compute(&parent, |w| {
            let b = vertex[w as usize].expect("vertex 0 has no predecessors to ask for");
            let s = cfg.succs(b);
            let exit = s.is_empty().then_some(0u32);
            s.iter()
                .map(|x| num[*x])
                .filter(|v| *v != NONE)
                .chain(exit)
                .collect::<Vec<_>>()
                .into_iter()
        });
        for w in 1..vertex.len() {
            let b = vertex[w].expect("real vertex");
            t.in_tree[b] = true;
            match vertex[lt.idom[w] as usize] {
                Some(d) => {
                    t.ipdom[b] = Some(d);
                    t.children[d].push(b);
                }
                None => t.roots.push(b),
            }
        }
        // Children in reverse post-order of the forward CFG, for stable output.
        for b in vertex.iter().skip(1).flatten() {
            t.children[*b].sort_by_key(|c| *cfg.rpo_index.get(*c));
        }
        t.roots.sort_by_key(|c| *cfg.rpo_index.get(*c));
        // DFS numbering of the forest (iterative).
        let mut counter = 0u32;
        for &r in &t.roots.clone() {
            let mut stack: Vec<(BlockId, usize)> = vec![(r, 0)];
            t.pre[r] = counter;
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
        }
        t
    }

    /// Whether `b` is in the tree (reachable, and some exit block is reachable from it).
    pub fn contains(&self, b: BlockId) -> bool {
        *self.in_tree.get(b)
    }

    /// The immediate post-dominator of `b`: `None` for blocks outside the tree and for
    /// blocks whose only post-dominator is the virtual exit (see [`Self::roots`]).
    pub fn ipdom(&self, b: BlockId) -> Option<BlockId> {
        *self.ipdom.get(b)
    }

    /// The blocks immediately post-dominated by the virtual exit (exit blocks, and
    /// blocks that reach several exits), in reverse post-order.
    pub fn roots(&self) -> &[BlockId] {
        &self.roots
    }

    /// Post-dominator-tree children of `b`, in reverse post-order.
    pub fn children(&self, b: BlockId) -> &[BlockId] {
        self.children.get(b)
    }

    /// Whether `a` post-dominates `b` (reflexive). False if either is outside the tree.
    pub fn post_dominates(&self, a: BlockId, b: BlockId) -> bool {
        if !self.contains(a) || !self.contains(b) {
            return false;
        }
        self.pre[a] <= self.pre[b] && self.post[b] <= self.post[a]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::{Cursor, InstBuilder};
    use crate::function::FunctionKind;
    use crate::value::Value;

    /// Agrees with the definition (a post-dominates c iff every path from c to an exit
    /// block passes a) on random graphs with loops, several exits and dead ends.
    #[test]
    fn matches_definition_on_random_graphs() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for round in 0..300 {
            let n = 2 + round % 19;
            let mut f = Function::new(FunctionKind::Callable, None);
            let mut bs = vec![f.ensure_body()];
            bs.extend((1..n).map(|_| f.create_block()));
            for k in 0..n {
                let c = Value::Block(bs[0]);
                match rnd(5) {
                    0 => Cursor::at_end(&mut f, bs[k]).ret(None),
                    1 => Cursor::at_end(&mut f, bs[k]).br(bs[rnd(n)]),
                    _ => Cursor::at_end(&mut f, bs[k]).cond_br(c, bs[rnd(n)], bs[rnd(n)]),
                };
            }
            let cfg = Cfg::compute(&f);
            let pd = PostDomTree::compute(&f, &cfg);
            // Whether some exit block is reachable from `from` avoiding `skip`.
            let exits_from = |from: BlockId, skip: Option<BlockId>| {
                if Some(from) == skip {
                    return false;
                }
                let mut seen: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
                let mut stack = vec![from];
                seen[from] = true;
                while let Some(b) = stack.pop() {
                    if cfg.succs(b).is_empty() {
                        return true;
                    }
                    for &t in cfg.succs(b) {
                        if Some(t) != skip && !seen[t] {
                            seen[t] = true;
                            stack.push(t);
                        }
                    }
                }
                false
            };
            for &c in &bs {
                let in_tree = cfg.is_reachable(c) && exits_from(c, None);
                assert_eq!(pd.contains(c), in_tree, "round {round}: {c:?} in tree");
                for &a in &bs {
                    let in_a = cfg.is_reachable(a) && exits_from(a, None);
                    let expect = in_tree && in_a && (a == c || !exits_from(c, Some(a)));
                    assert_eq!(
                        pd.post_dominates(a, c),
                        expect,
                        "round {round}: {a:?} pdom {c:?}"
                    );
                }
                if let Some(p) = pd.ipdom(c) {
                    assert!(p != c && pd.post_dominates(p, c));
                }
            }
        }
    }
}
