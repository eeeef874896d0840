//! What makes two pure instructions compute the same value, for `gvn` and `early-cse`:
//! a [`PureKey`] — the operation with its sub-op and attributes, the result type, and the
//! operands (as value numbers or as values), the two operands of a commutative op in
//! canonical order. Only the instruction kinds upstream value-numbers take part
//! (`arithmetic`, `cast`, `getelementptr`, `resource_query`), and only when the
//! instruction table says the instruction is pure ([`InstKind::is_pure`]); loads, calls,
//! resource reads and ray-query reads never do.

use xir_ir::inst::InstKind;
use xir_ir::op::{ArithmeticOp, BindlessAccess, CastOp, ResourceQueryOp};
use xir_ir::{FuncId, Module, Type, Value};

/// The operation part of a [`PureKey`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum PureOp {
    /// `arithmetic OP`.
    Arithmetic(ArithmeticOp),
    /// `cast OP`.
    Cast(CastOp),
    /// `getelementptr`.
    Gep,
    /// `resource_query OP` with its bindless-access bits.
    ResourceQuery(ResourceQueryOp, BindlessAccess),
}

impl PureOp {
    /// The operation of `kind`, if it is of a value-numbered kind and pure.
    pub fn of(kind: &InstKind) -> Option<PureOp> {
        let op = match *kind {
            InstKind::Arithmetic(op) => PureOp::Arithmetic(op),
            InstKind::Cast(op) => PureOp::Cast(op),
            InstKind::Gep => PureOp::Gep,
            InstKind::ResourceQuery(op, access) => PureOp::ResourceQuery(op, access),
            _ => return None,
        };
        kind.is_pure().then_some(op)
    }
}

/// Two instructions with equal keys compute equal values (given equal operands `O`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PureKey<O> {
    op: PureOp,
    ty: Type,
    operands: Vec<O>,
}

impl<O: Copy + Ord> PureKey<O> {
    /// The key of instruction data with operation `op`, result type `ty` and `operands`;
    /// with `commutative`, the two operands are put in ascending order.
    pub fn new(op: PureOp, ty: Type, mut operands: Vec<O>, commutative: bool) -> Self {
        if commutative && operands.len() == 2 && operands[1] < operands[0] {
            operands.swap(0, 1);
        }
        PureKey { op, ty, operands }
    }
}

/// Whether the two operands of `op` in function `f` may be swapped without changing the
/// result bit for bit ([`ArithmeticOp::is_commutative`], asked with whether the first
/// operand's element type is a float; an operand of unknown or aggregate type counts as
/// float, the cautious answer).
pub fn commutes(module: &Module, f: FuncId, op: PureOp, operands: &[Value]) -> bool {
    let PureOp::Arithmetic(op) = op else {
        return false;
    };
    if operands.len() != 2 {
        return false;
    }
    let float = module
        .value_type(f, operands[0])
        .and_then(|t| module.types.scalar_or_vector_elem(t))
        .is_none_or(|k| k.is_float());
    op.is_commutative(float)
}
