//! Creating and reading module constants from passes.

use xir_ir::constant::{ScalarValue, read_scalar, write_scalar};
use xir_ir::{ConstId, Module, ScalarKind, Type, TypeData, Value};

/// The interned `bool` constant `b`.
pub fn bool_const(module: &mut Module, b: bool) -> ConstId {
    let ty = module.types.bool();
    module.constant(ty, &[b as u8])
}

/// The interned scalar constant of type `ty` holding `v` (integers wrap to the width).
/// `None` if `ty` is not a scalar type that can hold `v`.
pub fn scalar_const(module: &mut Module, ty: Type, v: ScalarValue) -> Option<ConstId> {
    let k = module.types.scalar_kind(ty)?;
    let bytes = write_scalar(k, v)?;
    Some(module.constant(ty, &bytes))
}

/// The value of `v` if it is a `bool` constant.
pub fn as_bool(module: &Module, v: Value) -> Option<bool> {
    let c = v.as_const()?;
    let d = &module.constants[c];
    match module.types.get(d.ty) {
        TypeData::Scalar(ScalarKind::Bool) => Some(d.bytes.first().copied()? != 0),
        _ => None,
    }
}

/// A constant switch selector `v` (bool or integer), zero-extended from its width,
/// with the mask of that width. Case labels are compared under the mask, so a label
/// stored sign-extended or zero-extended matches the same selector.
pub fn as_selector(module: &Module, v: Value) -> Option<(u64, u64)> {
    let c = v.as_const()?;
    let d = &module.constants[c];
    let k = module.types.scalar_kind(d.ty)?;
    if !(k == ScalarKind::Bool || k.is_int()) || k == ScalarKind::I4 {
        return None;
    }
    let bits = k.size() * 8;
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let raw = match read_scalar(k, &d.bytes)? {
        ScalarValue::Bool(b) => b as u64,
        ScalarValue::UInt(u) => u,
        ScalarValue::Int(i) => i as u64,
        ScalarValue::Float(_) => return None,
    };
    Some((raw & mask, mask))
}

/// The block a constant multi-way branch takes: the first case whose label equals the
/// selector under `mask`, else the default.
pub fn select_case(
    selector: (u64, u64),
    labels: &[u64],
    default: xir_ir::BlockId,
    cases: &[xir_ir::BlockId],
) -> xir_ir::BlockId {
    let (sel, mask) = selector;
    labels
        .iter()
        .zip(cases)
        .find(|(l, _)| *l & mask == sel)
        .map(|(_, b)| *b)
        .unwrap_or(default)
}

/// Whether `v` is a module-level value that is the same everywhere in the function
/// (constant, argument, undefined value or special register).
pub fn is_invariant(v: Value) -> bool {
    matches!(
        v,
        Value::Const(_) | Value::Arg(_) | Value::Undef(_) | Value::Special(_)
    )
}
