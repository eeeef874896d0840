//! Use lists computed on demand for one function.

use crate::entity::SecondaryMap;
use crate::function::Function;
use crate::inst::InstId;
use crate::value::{ArgId, BlockId, Value};

/// One use: operand slot `index` of instruction `inst`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Use {
    /// The using instruction.
    pub inst: InstId,
    /// Operand index.
    pub index: u32,
}

/// Users of every function-local value (instructions, blocks as operands, arguments),
/// in program order (owned block order, then instruction order). A phi's incoming
/// blocks are operands ([`crate::phi`]) and so uses; side-block references (merge, loop
/// body/update) are not.
#[derive(Clone, Debug, Default)]
pub struct UseMap {
    /// Uses of instruction results.
    pub insts: SecondaryMap<InstId, Vec<Use>>,
    /// Uses of blocks as operands.
    pub blocks: SecondaryMap<BlockId, Vec<Use>>,
    /// Uses of arguments.
    pub args: SecondaryMap<ArgId, Vec<Use>>,
}

impl UseMap {
    /// Computes the use map of `f`.
    pub fn compute(f: &Function) -> Self {
        let mut m = UseMap::default();
        for i in f.placed_insts() {
            for (k, op) in f.insts[i].operands.iter().enumerate() {
                let u = Use {
                    inst: i,
                    index: k as u32,
                };
                match *op {
                    Value::Inst(d) => m.insts[d].push(u),
                    Value::Block(b) => m.blocks[b].push(u),
                    Value::Arg(a) => m.args[a].push(u),
                    _ => {}
                }
            }
        }
        m
    }
    /// Uses of `v` (empty for module-level values).
    pub fn uses(&self, v: Value) -> &[Use] {
        match v {
            Value::Inst(i) => self.insts.get(i),
            Value::Block(b) => self.blocks.get(b),
            Value::Arg(a) => self.args.get(a),
            _ => &[],
        }
    }
}
