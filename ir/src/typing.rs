//! Operand typing rules that follow from an instruction alone, stated once.
//!
//! [`operand_type`] says which type operand `k` of an instruction must have: the result
//! type (phi incoming values, and the arithmetic operands the op table's
//! [`ArithSignature`](crate::op::ArithSignature) names), another operand's type (a store's
//! value and its lvalue), the enclosing function's return type, `bool` (conditions) or a
//! callee parameter's type (call arguments). Two readers resolve the rule through a
//! [`TypingContext`]: the parser infers the type of an undefined operand from it
//! ([`expected_operand_type`], used by `text/infer.rs`) and the verifier checks it
//! ([`operand_type_ok`], used by `verify/types.rs`). Changing a rule here changes both.
//!
//! Rules that need more than this (value categories, shapes, element types, the
//! remaining conditions of each arithmetic signature) stay with the verifier.
//!
//! The functions are `#[inline(always)]`: in a verifier arm that knows the instruction
//! kind the rule lookup folds away, leaving the same comparison the arm used to spell
//! out (callgrind: `verify_module` +0.06 % instructions on a 100k-instruction module).

use crate::inst::{InstData, InstKind, TypingRule};
use crate::types::Type;
use crate::value::{FuncId, Value};

/// Where the type of an operand comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OperandType {
    /// The instruction's result type.
    Result,
    /// The type of operand `j` of the same instruction.
    SameAs(usize),
    /// The enclosing function's return type.
    FunctionReturn,
    /// `bool`.
    Bool,
    /// The type of parameter `p` (in parameter order) of the callee, operand 0.
    CalleeParam(usize),
}

/// The typing rule for operand `k` of an instruction of kind `kind`, or `None` when its
/// type does not follow from the instruction alone: the kind's
/// [`TypingRule`] column of the instruction table, applied to `k`.
#[inline(always)]
pub fn operand_type(kind: &InstKind, k: usize) -> Option<OperandType> {
    match kind.tag().typing() {
        TypingRule::Free => None,
        // Every incoming value has the phi's type (its incoming blocks are untyped).
        TypingRule::AllResult => (!crate::phi::phi_slot_edge(k).1).then_some(OperandType::Result),
        // `store (lvalue, value)`: the value has the lvalue's pointee type.
        TypingRule::StorePair => match k {
            0 => Some(OperandType::SameAs(1)),
            1 => Some(OperandType::SameAs(0)),
            _ => None,
        },
        TypingRule::ReturnValue => (k == 0).then_some(OperandType::FunctionReturn),
        TypingRule::BoolCondition => (k == 0).then_some(OperandType::Bool),
        TypingRule::CalleeParams => k.checked_sub(1).map(OperandType::CalleeParam),
        TypingRule::ArithSignature => match kind {
            InstKind::Arithmetic(op) if op.operand_has_result_type(k) => Some(OperandType::Result),
            _ => None,
        },
    }
}

/// What resolving a rule needs to know about the instruction's surroundings.
pub trait TypingContext {
    /// The type of `v` (`None`: untyped or unknown).
    fn value_type(&self, v: Value) -> Option<Type>;
    /// The enclosing function's return type (`None`: void).
    fn return_type(&self) -> Option<Type>;
    /// The `bool` type (`None` when the module has none).
    fn bool_type(&self) -> Option<Type>;
    /// Whether `t` is `bool` (by default: whether it is [`bool_type`](Self::bool_type)).
    fn is_bool(&self, t: Type) -> bool {
        self.bool_type() == Some(t)
    }
    /// The type of parameter `p` (in parameter order) of function `g`.
    fn param_type(&self, g: FuncId, p: usize) -> Option<Type>;
}

/// The type a rule asks for, for instruction `inst` (`None` when it cannot be resolved).
#[inline(always)]
pub fn resolve(cx: &impl TypingContext, inst: &InstData, rule: OperandType) -> Option<Type> {
    match rule {
        OperandType::Result => inst.ty,
        OperandType::SameAs(j) => cx.value_type(*inst.operands.get(j)?),
        OperandType::FunctionReturn => cx.return_type(),
        OperandType::Bool => cx.bool_type(),
        OperandType::CalleeParam(p) => cx.param_type(inst.operands.first()?.as_func()?, p),
    }
}

/// The type operand `k` of `inst` must have, when it follows from the instruction alone.
pub fn expected_operand_type(cx: &impl TypingContext, inst: &InstData, k: usize) -> Option<Type> {
    resolve(cx, inst, operand_type(&inst.kind, k)?)
}

/// Whether operand `k` of `inst` has the type its rule asks for (true when there is no
/// rule; false when `k` is out of range).
#[inline(always)]
pub fn operand_type_ok(cx: &impl TypingContext, inst: &InstData, k: usize) -> bool {
    let Some(&v) = inst.operands.get(k) else {
        return false;
    };
    match operand_type(&inst.kind, k) {
        None => true,
        Some(OperandType::Bool) => cx.value_type(v).is_some_and(|t| cx.is_bool(t)),
        Some(rule) => cx.value_type(v) == resolve(cx, inst, rule),
    }
}
