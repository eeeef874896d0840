//! Control-flow analyses served by the cache: the CFG (successors, predecessors, reverse
//! post-order), the dominator tree and dominance frontiers, all computed by `xir-ir`.

use super::Analysis;
use xir_ir::analysis::{Cfg, DomTree};
use xir_ir::{BlockId, FuncId, Module, SecondaryMap};

impl Analysis for Cfg {
    fn compute(module: &Module, f: FuncId) -> Self {
        Cfg::compute(module.func(f))
    }
}

impl Analysis for DomTree {
    fn compute(module: &Module, f: FuncId) -> Self {
        let func = module.func(f);
        DomTree::compute(func, &Cfg::compute(func))
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
    fn compute(module: &Module, f: FuncId) -> Self {
        let func = module.func(f);
        let cfg = Cfg::compute(func);
        let dom = DomTree::compute(func, &cfg);
        Self::from_parts(&cfg, &dom)
    }
}
