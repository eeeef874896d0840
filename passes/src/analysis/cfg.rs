//! Control-flow analyses served by the cache: the CFG (successors, predecessors, reverse
//! post-order), the dominator and post-dominator trees, natural loops and dominance
//! frontiers, all computed by `xir-ir`.
//! Each is built from the cached analyses it depends on (frontiers from the cached CFG
//! and dominator tree), so one function's CFG is computed once until it is invalidated.

use super::{Analysis, AnalysisCache};
use crate::pass::Changed;
use xir_ir::analysis::{Cfg, DomTree, LoopForest, PostDomTree};
use xir_ir::{BlockId, FuncId, Module, SecondaryMap};

impl Analysis for Cfg {
    const INVALIDATED_BY: Changed = Changed::ControlFlow;
    fn compute(module: &Module, f: FuncId, _: &mut AnalysisCache) -> Self {
        Cfg::compute(module.func(f))
    }
}

impl Analysis for DomTree {
    const INVALIDATED_BY: Changed = Changed::ControlFlow;
    fn compute(module: &Module, f: FuncId, cache: &mut AnalysisCache) -> Self {
        let cfg = cache.get::<Cfg>(module, f);
        DomTree::compute(module.func(f), &cfg)
    }
}

impl Analysis for PostDomTree {
    const INVALIDATED_BY: Changed = Changed::ControlFlow;
    fn compute(module: &Module, f: FuncId, cache: &mut AnalysisCache) -> Self {
        let cfg = cache.get::<Cfg>(module, f);
        PostDomTree::compute(module.func(f), &cfg)
    }
}

impl Analysis for LoopForest {
    const INVALIDATED_BY: Changed = Changed::ControlFlow;
    fn compute(module: &Module, f: FuncId, cache: &mut AnalysisCache) -> Self {
        let cfg = cache.get::<Cfg>(module, f);
        let dom = cache.get::<DomTree>(module, f);
        LoopForest::compute(&cfg, &dom)
    }
}

/// Dominance frontiers of every block reachable from the body (unreachable blocks have
/// empty frontiers).
#[derive(Clone, Debug, Default)]
pub struct DomFrontiers {
    frontiers: SecondaryMap<BlockId, Vec<BlockId>>,
}

impl DomFrontiers {
    /// Computes the frontiers from an already computed CFG and dominator tree.
    pub fn from_parts(cfg: &Cfg, dom: &DomTree) -> Self {
        Self {
            frontiers: dom.frontiers(cfg),
        }
    }
    /// The dominance frontier of `b`.
    pub fn of(&self, b: BlockId) -> &[BlockId] {
        self.frontiers.get(b)
    }
}

impl Analysis for DomFrontiers {
    const INVALIDATED_BY: Changed = Changed::ControlFlow;
    fn compute(module: &Module, f: FuncId, cache: &mut AnalysisCache) -> Self {
        let cfg = cache.get::<Cfg>(module, f);
        let dom = cache.get::<DomTree>(module, f);
        Self::from_parts(&cfg, &dom)
    }
}
