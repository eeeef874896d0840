//! The use map (operand slots referring to each function-local value), served by the cache.
//! Any instruction change invalidates it.

use super::{Analysis, AnalysisCache};
use crate::pass::Changed;
use xir_ir::uses::UseMap;
use xir_ir::{FuncId, Module};

impl Analysis for UseMap {
    const INVALIDATED_BY: Changed = Changed::Instructions;
    fn compute(module: &Module, f: FuncId, _: &mut AnalysisCache) -> Self {
        UseMap::compute(module.func(f))
    }
}
