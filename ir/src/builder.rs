//! A cursor for building and editing instructions in one function.

use crate::function::Function;
use crate::inst::{InstData, InstId, InstKind};
use crate::types::Type;
use crate::value::{BlockId, Value};

/// Where the next instruction goes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum InsertPoint {
    /// At the end of a block.
    End(BlockId),
    /// Just before an instruction.
    Before(InstId),
}

/// Inserts instructions into a function at a moving position.
pub struct Cursor<'f> {
    /// The function being edited.
    pub func: &'f mut Function,
    /// Current insertion point.
    pub at: InsertPoint,
}

impl<'f> Cursor<'f> {
    /// A cursor at the end of `b`.
    pub fn at_end(func: &'f mut Function, b: BlockId) -> Self {
        Self {
            func,
            at: InsertPoint::End(b),
        }
    }
    /// A cursor just before `i`.
    pub fn before(func: &'f mut Function, i: InstId) -> Self {
        Self {
            func,
            at: InsertPoint::Before(i),
        }
    }
    /// Inserts an instruction at the cursor and returns it.
    pub fn ins(
        &mut self,
        kind: InstKind,
        ty: Option<Type>,
        operands: impl IntoIterator<Item = Value>,
    ) -> InstId {
        let data = InstData::new(kind, ty, operands);
        match self.at {
            InsertPoint::End(b) => self.func.append_inst(b, data),
            InsertPoint::Before(i) => self.func.insert_inst_before(i, data),
        }
    }
    /// Inserts a `br target`.
    pub fn br(&mut self, target: BlockId) -> InstId {
        self.ins(InstKind::Branch, None, [Value::Block(target)])
    }
    /// Inserts a `cond_br cond, t, f`.
    pub fn cond_br(&mut self, cond: Value, t: BlockId, f: BlockId) -> InstId {
        self.ins(
            InstKind::ConditionalBranch,
            None,
            [cond, Value::Block(t), Value::Block(f)],
        )
    }
    /// Inserts a `return` (with an optional value).
    pub fn ret(&mut self, v: Option<Value>) -> InstId {
        self.ins(InstKind::Return, None, v)
    }
}
