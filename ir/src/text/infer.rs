//! Type inference for `%N.undefined` operands.
//!
//! Upstream's printer never declares undefined values, so their types are not in the
//! text. xir's printer and parser share this one rule set: the *default* type of an
//! undefined value is what [`infer_operand_type`] says about its first use in print order.
//! The printer emits an explicit `undef %N: T;` prelude declaration only when that default
//! is missing or differs from the real type, so ordinary modules print exactly as
//! upstream and xir's own output stays lossless.

use crate::inst::{InstData, InstKind};
use crate::module::Module;
use crate::types::{Type, TypeData};
use crate::value::{FuncId, Value};

/// The type operand `index` of `inst` (in function `f`) must have, when it follows from
/// the instruction alone (its result type, the pointee type of its pointer operand, the
/// callee signature, or the function's return type). Operand types other than the one
/// at `index` are read from `module`, so every other operand must already be resolved.
pub fn infer_operand_type(
    module: &Module,
    f: FuncId,
    inst: &InstData,
    index: usize,
) -> Option<Type> {
    let func = module.func(f);
    let types = &module.types;
    let other = |k: usize| inst.operands.get(k).and_then(|v| module.value_type(f, *v));
    match &inst.kind {
        InstKind::Phi { .. } => inst.ty,
        InstKind::Store if index == 1 => other(0),
        InstKind::Store if index == 0 => other(1),
        InstKind::Return if index == 0 => func.ret,
        InstKind::If { .. } | InstKind::ConditionalBranch if index == 0 => {
            types.find(&TypeData::Scalar(crate::types::ScalarKind::Bool))
        }
        InstKind::Assert { .. } | InstKind::Assume { .. } if index == 0 => {
            types.find(&TypeData::Scalar(crate::types::ScalarKind::Bool))
        }
        InstKind::Call if index >= 1 => {
            let callee = inst.operands.first()?.as_func()?;
            let cf = module.func(callee);
            let a = *cf.arg_order.get(index - 1)?;
            Some(cf.args[a].ty)
        }
        // The verifier's own table of which operands carry the result type.
        InstKind::Arithmetic(op) if op.operand_has_result_type(index) => inst.ty,
        _ => None,
    }
}

/// Convenience: whether `v` is an undefined value.
pub fn is_undef(v: Value) -> bool {
    matches!(v, Value::Undef(_))
}
