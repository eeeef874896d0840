//! Per-op constructors shared by every insertion point: [`InstBuilder`] is implemented by
//! the plain [`Cursor`] (building a function, no use index) and by
//! [`RewriteCursor`](super::RewriteCursor) (editing under a [`Rewriter`](super::Rewriter),
//! which keeps its use index valid).

use crate::function::Function;
use crate::inst::{InstData, InstId, InstKind};
use crate::op::{AllocaOp, ArithmeticOp, CastOp};
use crate::types::Type;
use crate::value::{BlockId, FuncId, Value};

/// Where the next instruction goes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum InsertPoint {
    /// At the end of a block.
    End(BlockId),
    /// Just before an instruction.
    Before(InstId),
}

/// Builds instructions at an insertion point. Implementors provide [`Self::insert`];
/// every constructor below goes through it.
pub trait InstBuilder {
    /// Places `data` at the insertion point and returns it.
    fn insert(&mut self, data: InstData) -> InstId;

    /// Inserts an instruction of any kind.
    fn ins(
        &mut self,
        kind: InstKind,
        ty: Option<Type>,
        operands: impl IntoIterator<Item = Value>,
    ) -> InstId
    where
        Self: Sized,
    {
        self.insert(InstData::new(kind, ty, operands))
    }
    /// `br target`.
    fn br(&mut self, target: BlockId) -> InstId {
        self.insert(InstData::new(
            InstKind::Branch,
            None,
            [Value::Block(target)],
        ))
    }
    /// `cond_br cond, t, f`.
    fn cond_br(&mut self, cond: Value, t: BlockId, f: BlockId) -> InstId {
        self.insert(InstData::new(
            InstKind::ConditionalBranch,
            None,
            [cond, Value::Block(t), Value::Block(f)],
        ))
    }
    /// `return` with an optional value.
    fn ret(&mut self, v: Option<Value>) -> InstId {
        self.insert(InstData::new(InstKind::Return, None, v))
    }
    /// `unreachable` (without message).
    fn unreachable(&mut self) -> InstId {
        self.insert(InstData::new(
            InstKind::Unreachable {
                message: String::new(),
            },
            None,
            [],
        ))
    }
    /// `phi (v, block), …` of type `ty`.
    fn phi(&mut self, ty: Type, edges: &[(Value, BlockId)]) -> Value {
        Value::Inst(self.insert(InstData::phi(ty, edges.iter().copied())))
    }
    /// `arithmetic op operands…` with result type `ty`.
    fn arith(&mut self, op: ArithmeticOp, ty: Type, operands: &[Value]) -> Value {
        let data = InstData::new(InstKind::Arithmetic(op), Some(ty), operands.iter().copied());
        Value::Inst(self.insert(data))
    }
    /// `cast op v` to `ty`.
    fn cast(&mut self, op: CastOp, ty: Type, v: Value) -> Value {
        Value::Inst(self.insert(InstData::new(InstKind::Cast(op), Some(ty), [v])))
    }
    /// `alloca space` of `ty`.
    fn alloca(&mut self, space: AllocaOp, ty: Type) -> Value {
        Value::Inst(self.insert(InstData::new(InstKind::Alloca(space), Some(ty), [])))
    }
    /// `load ptr` of `ty`.
    fn load(&mut self, ty: Type, ptr: Value) -> Value {
        Value::Inst(self.insert(InstData::new(InstKind::Load, Some(ty), [ptr])))
    }
    /// `store ptr, v`.
    fn store(&mut self, ptr: Value, v: Value) -> InstId {
        self.insert(InstData::new(InstKind::Store, None, [ptr, v]))
    }
    /// `getelementptr base, indices…` of `ty`.
    fn gep(&mut self, ty: Type, base: Value, indices: &[Value]) -> Value {
        let ops = std::iter::once(base).chain(indices.iter().copied());
        Value::Inst(self.insert(InstData::new(InstKind::Gep, Some(ty), ops)))
    }
    /// `call callee, args…` returning `ret` (`None` = void).
    fn call(&mut self, ret: Option<Type>, callee: FuncId, args: &[Value]) -> InstId {
        let ops = std::iter::once(Value::Func(callee)).chain(args.iter().copied());
        self.insert(InstData::new(InstKind::Call, ret, ops))
    }
}

/// Builds instructions into a function that no [`Rewriter`](super::Rewriter) is
/// editing (constructing a function from scratch, tests, generators).
///
/// ```
/// use xir_ir::edit::{Cursor, InstBuilder};
/// use xir_ir::{Function, FunctionKind};
/// let mut f = Function::new(FunctionKind::Callable, None);
/// let (entry, exit) = (f.ensure_body(), f.create_block());
/// Cursor::at_end(&mut f, entry).br(exit);
/// Cursor::at_end(&mut f, exit).ret(None);
/// assert_eq!(f.successors(entry), vec![exit]);
/// ```
pub struct Cursor<'f> {
    /// The function being built.
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
}

impl InstBuilder for Cursor<'_> {
    fn insert(&mut self, data: InstData) -> InstId {
        match self.at {
            InsertPoint::End(b) => self.func.append_inst(b, data),
            InsertPoint::Before(i) => self.func.insert_inst_before(i, data),
        }
    }
}
