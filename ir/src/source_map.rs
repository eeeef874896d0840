//! Where each entity of a parsed module came from, so the verifier and passes can point
//! diagnostics at the source text. A default (empty) span means "unknown".

use crate::diag::Span;
use crate::entity::SecondaryMap;
use crate::inst::InstId;
use crate::value::{ArgId, BlockId, ConstId, FuncId, UndefId};

/// Spans of one function's entities.
#[derive(Clone, Debug, Default)]
pub struct FuncSpans {
    /// The function header.
    pub header: Span,
    /// Instructions.
    pub insts: SecondaryMap<InstId, Span>,
    /// Block labels.
    pub blocks: SecondaryMap<BlockId, Span>,
    /// Arguments.
    pub args: SecondaryMap<ArgId, Span>,
}

/// Spans of every entity of a module.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    /// Per function.
    pub funcs: SecondaryMap<FuncId, FuncSpans>,
    /// Constants.
    pub constants: SecondaryMap<ConstId, Span>,
    /// Undefined-value declarations or first uses.
    pub undefs: SecondaryMap<UndefId, Span>,
}

impl SourceMap {
    fn known(s: Span) -> Option<Span> {
        (s != Span::default()).then_some(s)
    }
    /// Span of an instruction.
    pub fn inst(&self, f: FuncId, i: InstId) -> Option<Span> {
        Self::known(*self.funcs.get(f).insts.get(i))
    }
    /// Span of a block label.
    pub fn block(&self, f: FuncId, b: BlockId) -> Option<Span> {
        Self::known(*self.funcs.get(f).blocks.get(b))
    }
    /// Span of an argument.
    pub fn arg(&self, f: FuncId, a: ArgId) -> Option<Span> {
        Self::known(*self.funcs.get(f).args.get(a))
    }
    /// Span of a function header.
    pub fn func(&self, f: FuncId) -> Option<Span> {
        Self::known(self.funcs.get(f).header)
    }
    /// Span of a constant.
    pub fn constant(&self, c: ConstId) -> Option<Span> {
        Self::known(*self.constants.get(c))
    }
}
