//! Type inference for `%N.undefined` operands.
//!
//! Upstream's printer never declares undefined values, so their types are not in the
//! text. xir's printer and parser share this one rule set: the *default* type of an
//! undefined value is what [`infer_operand_type`] says about its first use in print order.
//! The printer emits an explicit `undef %N: T;` prelude declaration only when that default
//! is missing or differs from the real type, so ordinary modules print exactly as
//! upstream and xir's own output stays lossless.

use crate::inst::InstData;
use crate::module::Module;
use crate::types::{ScalarKind, Type, TypeData};
use crate::typing::{TypingContext, expected_operand_type};
use crate::value::{FuncId, Value};

/// The typing rules of [`crate::typing`] resolved against a module under construction.
struct ModuleContext<'a> {
    module: &'a Module,
    f: FuncId,
}

impl TypingContext for ModuleContext<'_> {
    fn value_type(&self, v: Value) -> Option<Type> {
        self.module.value_type(self.f, v)
    }
    fn return_type(&self) -> Option<Type> {
        self.module.func(self.f).ret
    }
    fn bool_type(&self) -> Option<Type> {
        self.module.types.find(&TypeData::Scalar(ScalarKind::Bool))
    }
    fn param_type(&self, g: FuncId, p: usize) -> Option<Type> {
        let callee = self.module.func(g);
        Some(callee.args[*callee.arg_order.get(p)?].ty)
    }
}

/// The type operand `index` of `inst` (in function `f`) must have, when it follows from
/// the instruction alone (its result type, the pointee type of its pointer operand, the
/// callee signature, or the function's return type): the rules of [`crate::typing`], the
/// ones the verifier checks. Operand types other than the one at `index` are read from
/// `module`, so every other operand must already be resolved.
pub fn infer_operand_type(
    module: &Module,
    f: FuncId,
    inst: &InstData,
    index: usize,
) -> Option<Type> {
    expected_operand_type(&ModuleContext { module, f }, inst, index)
}

/// Convenience: whether `v` is an undefined value.
pub fn is_undef(v: Value) -> bool {
    matches!(v, Value::Undef(_))
}
