//! Natural loops: one loop per header (a block that dominates a predecessor: the edge is
//! a back edge, its source a *latch*), with its body, latches, nesting, preheader and
//! exits.
//!
//! * **Body**: the header plus every block that reaches a latch without passing through
//!   the header (backward walk from the latches).
//! * **Preheader**: the header's only predecessor outside the loop, when that block's
//!   only successor is the header (LLVM's definition); `None` otherwise.
//! * **Exits**: blocks outside the loop with a predecessor inside it; **exiting edges**:
//!   those edges, `(inside, outside)`.
//! * **Nesting**: a loop's parent is the smallest other loop containing its header.
//!
//! Cycles without a dominating header (irreducible control flow) are not natural loops
//! and are not reported. Loops are numbered by their header's reverse post-order, so
//! an outer loop comes before the loops nested in it.
//!
//! ```
//! use xir_ir::analysis::{Cfg, DomTree, LoopForest};
//! let (m, _) = xir_ir::text::parse_module(
//!     "module; kernel %k (%c: bool;) = define %e: { %x: void = br %h; }
//!      %h: { %y: void = cond_br %c, %h, %out; } %out: { %r: void = return; };",
//! ).unwrap();
//! let f = m.func(m.func_order[0]);
//! let cfg = Cfg::compute(f);
//! let loops = LoopForest::compute(&cfg, &DomTree::compute(f, &cfg));
//! let l = loops.loop_of(f.block_order[1]).unwrap();
//! assert_eq!(loops[l].preheader, f.body);
//! assert_eq!(loops[l].exits, vec![f.block_order[2]]);
//! ```

use super::cfg::Cfg;
use super::dom::DomTree;
use crate::entity::{EntityRef, PrimaryMap, SecondaryMap};
use crate::value::BlockId;

crate::define_entity! {
    /// A natural loop of one function's [`LoopForest`].
    pub struct LoopId; debug_prefix = "loop";
}

/// One natural loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopData {
    /// The header (dominates every block of the loop).
    pub header: BlockId,
    /// Every block of the loop, header first, then in reverse post-order.
    pub blocks: Vec<BlockId>,
    /// Sources of back edges to the header, in reverse post-order.
    pub latches: Vec<BlockId>,
    /// The enclosing loop.
    pub parent: Option<LoopId>,
    /// Nesting depth: 1 for an outermost loop.
    pub depth: u32,
    /// The unique out-of-loop predecessor of the header whose only successor is the
    /// header.
    pub preheader: Option<BlockId>,
    /// Blocks outside the loop with a predecessor inside it, in reverse post-order.
    pub exits: Vec<BlockId>,
    /// Edges leaving the loop, `(inside, outside)`, in reverse post-order of the source
    /// and then successor order.
    pub exiting_edges: Vec<(BlockId, BlockId)>,
}

/// The natural loops of one function.
#[derive(Clone, Debug, Default)]
pub struct LoopForest {
    loops: PrimaryMap<LoopId, LoopData>,
    innermost: SecondaryMap<BlockId, Option<LoopId>>,
}

impl LoopForest {
    /// Finds the natural loops of the function `cfg` and `dom` were computed from.
    pub fn compute(cfg: &Cfg, dom: &DomTree) -> Self {
        let mut forest = LoopForest::default();
        let mut member: SecondaryMap<BlockId, u32> = SecondaryMap::with_default(u32::MAX);
        for &h in &cfg.rpo {
            let mut latches: Vec<BlockId> = cfg
                .preds(h)
                .iter()
                .copied()
                .filter(|p| cfg.is_reachable(*p) && dom.dominates(h, *p))
                .collect();
            if latches.is_empty() {
                continue;
            }
            latches.sort_by_key(|b| *cfg.rpo_index.get(*b));
            latches.dedup();
            let id = forest.loops.next_key();
            let mark = id.index() as u32;
            // Backward walk from the latches, stopping at the header.
            member[h] = mark;
            let mut blocks = vec![h];
            let mut stack: Vec<BlockId> = Vec::new();
            for &l in &latches {
                if member[l] != mark {
                    member[l] = mark;
                    blocks.push(l);
                    stack.push(l);
                }
            }
            while let Some(b) = stack.pop() {
                for &p in cfg.preds(b) {
                    if cfg.is_reachable(p) && member[p] != mark {
                        member[p] = mark;
                        blocks.push(p);
                        stack.push(p);
                    }
                }
            }
            blocks[1..].sort_by_key(|b| *cfg.rpo_index.get(*b));
            let mut exiting_edges = Vec::new();
            for &b in &blocks {
                for &s in cfg.succs(b) {
                    if member[s] != mark {
                        exiting_edges.push((b, s));
                    }
                }
            }
            exiting_edges.sort_by_key(|(b, _)| *cfg.rpo_index.get(*b));
            let mut exits: Vec<BlockId> = exiting_edges.iter().map(|e| e.1).collect();
            exits.sort_by_key(|b| *cfg.rpo_index.get(*b));
            exits.dedup();
            let outside: Vec<BlockId> = cfg
                .preds(h)
                .iter()
                .copied()
                .filter(|p| member[*p] != mark)
                .collect();
            let preheader = match outside.as_slice() {
                [p] if cfg.succs(*p) == [h] => Some(*p),
                _ => None,
            };
            forest.loops.push(LoopData {
                header: h,
                blocks,
                latches,
                parent: None,
                depth: 1,
                preheader,
                exits,
                exiting_edges,
            });
        }
        // Nesting: visit loops from the largest to the smallest, so a block's innermost
        // loop is the last one that claims it and a loop's parent is the innermost loop
        // of its header just before it claims its blocks.
        let mut by_size: Vec<LoopId> = forest.loops.keys().collect();
        by_size.sort_by_key(|l| std::cmp::Reverse(forest.loops[*l].blocks.len()));
        for l in by_size {
            let h = forest.loops[l].header;
            let parent = *forest.innermost.get(h);
            let depth = parent.map_or(1, |p| forest.loops[p].depth + 1);
            forest.loops[l].parent = parent;
            forest.loops[l].depth = depth;
            for k in 0..forest.loops[l].blocks.len() {
                let b = forest.loops[l].blocks[k];
                forest.innermost[b] = Some(l);
            }
        }
        forest
    }

    /// Every loop, outer loops before the loops nested in them.
    pub fn loops(&self) -> impl Iterator<Item = (LoopId, &LoopData)> {
        self.loops.iter()
    }

    /// Number of loops.
    pub fn len(&self) -> usize {
        self.loops.len()
    }

    /// Whether the function has no natural loop.
    pub fn is_empty(&self) -> bool {
        self.loops.is_empty()
    }

    /// The innermost loop containing `b`.
    pub fn loop_of(&self, b: BlockId) -> Option<LoopId> {
        *self.innermost.get(b)
    }

    /// Whether `b` belongs to loop `l` (or to a loop nested in it).
    pub fn contains(&self, l: LoopId, b: BlockId) -> bool {
        let mut cur = self.loop_of(b);
        while let Some(c) = cur {
            if c == l {
                return true;
            }
            cur = self.loops[c].parent;
        }
        false
    }

    /// Loop depth of `b` (0 outside every loop).
    pub fn depth(&self, b: BlockId) -> u32 {
        self.loop_of(b).map_or(0, |l| self.loops[l].depth)
    }
}

impl std::ops::Index<LoopId> for LoopForest {
    type Output = LoopData;
    fn index(&self, l: LoopId) -> &LoopData {
        &self.loops[l]
    }
}
