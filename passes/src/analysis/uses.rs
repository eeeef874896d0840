//! The use map (operand slots referring to each function-local value), served by the cache.

use super::{Analysis, AnalysisCache};
use xir_ir::uses::UseMap;
use xir_ir::{FuncId, Module};

impl Analysis for UseMap {
    fn compute(module: &Module, f: FuncId, _: &mut AnalysisCache) -> Self {
        UseMap::compute(module.func(f))
    }
}
