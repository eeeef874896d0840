//! Dominator tree (Lengauer–Tarjan with path compression, O(E log V)) and dominance
//! frontiers. Only blocks reachable from the body are in the tree.

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
        let idom = lengauer_tarjan(entry, cfg);
        t.root = Some(entry);
        // Children in reverse post-order, as passes walking the tree expect.
        for &b in &cfg.rpo {
            if let Some(d) = *idom.get(b) {
                t.idom[b] = Some(d);
                t.children[d].push(b);
            }
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
                    // `b`'s entries are pushed while `b` is processed, so a repeat
                    // can only be the last entry (no quadratic `contains`).
                    if df[runner].last() != Some(&b) {
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

/// Immediate dominators of the blocks reachable from `entry` (Lengauer–Tarjan with path
/// compression, O(E log V); the iterative Cooper–Harvey–Kennedy scheme is quadratic when
/// a block has many predecessors deep in a long dominator chain, e.g. a loop whose
/// `continue` edges come from thousands of blocks in sequence). Everything is iterative.
fn lengauer_tarjan(entry: BlockId, cfg: &Cfg) -> SecondaryMap<BlockId, Option<BlockId>> {
    // DFS preorder numbering with spanning-tree parents.
    let mut num: SecondaryMap<BlockId, u32> = SecondaryMap::with_default(NONE);
    let mut vertex: Vec<BlockId> = Vec::new();
    let mut parent: Vec<u32> = Vec::new();
    let mut stack: Vec<(BlockId, usize)> = vec![(entry, 0)];
    num[entry] = 0;
    vertex.push(entry);
    parent.push(NONE);
    while let Some(&mut (b, ref mut next)) = stack.last_mut() {
        let succs = cfg.succs(b);
        if *next < succs.len() {
            let t = succs[*next];
            *next += 1;
            if num[t] == NONE {
                num[t] = vertex.len() as u32;
                parent.push(num[b]);
                vertex.push(t);
                stack.push((t, 0));
            }
        } else {
            stack.pop();
        }
    }
    let mut lt = LengauerTarjan::default();
    lt.compute(&parent, |w| {
        cfg.preds(vertex[w as usize])
            .iter()
            .map(|p| num[*p])
            .filter(|v| *v != NONE) // unreachable predecessor
    });
    let mut out: SecondaryMap<BlockId, Option<BlockId>> = SecondaryMap::with_default(None);
    for w in 1..vertex.len() {
        out[vertex[w]] = Some(vertex[lt.idom[w] as usize]);
    }
    out
}

/// No vertex.
pub(crate) const NONE: u32 = u32::MAX;

/// Lengauer–Tarjan over dense vertex numbers, with buffers that can be reused from one
/// graph to the next (the verifier runs it for every function). Buckets are linked
/// lists in flat arrays: nothing is allocated per vertex.
#[derive(Default)]
pub(crate) struct LengauerTarjan {
    /// The result: the immediate dominator of each vertex (`NONE` for the root).
    pub idom: Vec<u32>,
    semi: Vec<u32>,
    ancestor: Vec<u32>,
    label: Vec<u32>,
    bucket_head: Vec<u32>,
    bucket_next: Vec<u32>,
    path: Vec<u32>,
}

impl LengauerTarjan {
    /// Computes [`Self::idom`] for vertices `0..parent.len()`, numbered in DFS preorder
    /// from the root 0; `parent[w]` is `w`'s DFS-tree parent and `preds(w)` yields the
    /// vertices with an edge to `w` (every vertex reachable). An immediate dominator is a
    /// DFS-tree ancestor, so `idom[w] < w` for every `w > 0`.
    pub(crate) fn compute<I: Iterator<Item = u32>>(
        &mut self,
        parent: &[u32],
        mut preds: impl FnMut(u32) -> I,
    ) {
        let n = parent.len();
        let reset = |v: &mut Vec<u32>, x: u32| {
            v.clear();
            v.resize(n, x);
        };
        reset(&mut self.idom, NONE);
        reset(&mut self.ancestor, NONE);
        reset(&mut self.bucket_head, NONE);
        reset(&mut self.bucket_next, NONE);
        self.semi.clear();
        self.semi.extend(0..n as u32);
        self.label.clear();
        self.label.extend(0..n as u32);
        let Self {
            idom,
            semi,
            ancestor,
            label,
            bucket_head,
            bucket_next,
            path,
        } = self;
        for w in (1..n).rev() {
            for v in preds(w as u32) {
                let u = eval(v, ancestor, label, semi, path);
                if semi[u as usize] < semi[w] {
                    semi[w] = semi[u as usize];
                }
            }
            let s = semi[w] as usize;
            bucket_next[w] = bucket_head[s];
            bucket_head[s] = w as u32;
            let pw = parent[w];
            ancestor[w] = pw;
            let mut v = std::mem::replace(&mut bucket_head[pw as usize], NONE);
            while v != NONE {
                let u = eval(v, ancestor, label, semi, path);
                idom[v as usize] = if semi[u as usize] < semi[v as usize] {
                    u
                } else {
                    pw
                };
                v = bucket_next[v as usize];
            }
        }
        for w in 1..n {
            if idom[w] != semi[w] {
                idom[w] = idom[idom[w] as usize];
            }
        }
    }
}

/// Lengauer–Tarjan `eval` with iterative path compression: the vertex of minimal
/// semidominator on the forest path from `v` to its root (exclusive).
fn eval(v: u32, ancestor: &mut [u32], label: &mut [u32], semi: &[u32], path: &mut Vec<u32>) -> u32 {
    if ancestor[v as usize] == NONE {
        return v;
    }
    // Collect the path up to the node whose ancestor is a root, then compress top-down.
    path.clear();
    let mut x = v;
    while ancestor[ancestor[x as usize] as usize] != NONE {
        path.push(x);
        x = ancestor[x as usize];
    }
    for &y in path.iter().rev() {
        let a = ancestor[y as usize] as usize;
        if semi[label[a] as usize] < semi[label[y as usize] as usize] {
            label[y as usize] = label[a];
        }
        ancestor[y as usize] = ancestor[a];
    }
    label[v as usize]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::{Cursor, InstBuilder};
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

    /// Lengauer–Tarjan agrees with the definition (b dominates c iff removing b
    /// disconnects c from the entry) on random graphs with loops and unreachable blocks.
    #[test]
    fn matches_definition_on_random_graphs() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for round in 0..200 {
            let n = 2 + round % 23;
            let mut f = Function::new(FunctionKind::Callable, None);
            let mut bs = vec![f.ensure_body()];
            bs.extend((1..n).map(|_| f.create_block()));
            for k in 0..n {
                let c = Value::Block(bs[0]);
                match rnd(4) {
                    0 => Cursor::at_end(&mut f, bs[k]).ret(None),
                    1 => Cursor::at_end(&mut f, bs[k]).br(bs[rnd(n)]),
                    _ => Cursor::at_end(&mut f, bs[k]).cond_br(c, bs[rnd(n)], bs[rnd(n)]),
                };
            }
            let cfg = Cfg::compute(&f);
            let dt = DomTree::compute(&f, &cfg);
            // Reachability from the entry avoiding `skip`.
            let reach = |skip: Option<BlockId>| {
                let mut seen: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
                let mut stack = vec![bs[0]];
                if skip != Some(bs[0]) {
                    seen[bs[0]] = true;
                } else {
                    stack.clear();
                }
                while let Some(b) = stack.pop() {
                    for &t in cfg.succs(b) {
                        if Some(t) != skip && !seen[t] {
                            seen[t] = true;
                            stack.push(t);
                        }
                    }
                }
                seen
            };
            let all = reach(None);
            for &a in &bs {
                let without = reach(Some(a));
                for &c in &bs {
                    let expect = all[a] && all[c] && (a == c || !without[c]);
                    assert_eq!(dt.dominates(a, c), expect, "round {round}: {a:?} dom {c:?}");
                }
            }
        }
    }
}
