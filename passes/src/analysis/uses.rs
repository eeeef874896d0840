//! The use map (operand slots referring to each function-local value), served by the cache.

use super::Analysis;
use xir_ir::uses::UseMap;
use xir_ir::{FuncId, Module};

impl Analysis for UseMap {
    fn compute(module: &Module, f: FuncId) -> Self {
        UseMap::compute(module.func(f))
    }
}
