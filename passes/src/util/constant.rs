//! Creating and reading module constants from passes.

use smallvec::SmallVec;
use xir_ir::constant::{ScalarValue, read_scalar, write_scalar};
use xir_ir::{
    ConstData, ConstId, Module, PrimaryMap, ScalarKind, Type, TypeData, TypeStore, Value,
};

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

/// The lanes of a scalar or vector constant `v`: the element kind and one decoded value
/// per lane (a scalar has one lane). `None` when `v` is not a constant, its type is not a
/// scalar or a vector, or its kind is one [`read_scalar`] does not decode.
pub fn const_lanes(
    types: &TypeStore,
    constants: &PrimaryMap<ConstId, ConstData>,
    v: Value,
) -> Option<(ScalarKind, SmallVec<[ScalarValue; 4]>)> {
    let d = &constants[v.as_const()?];
    let (k, len, stride) = match types.get(d.ty) {
        TypeData::Scalar(k) => (*k, 1, 0),
        TypeData::Vector { elem, len } => (
            types.scalar_kind(*elem)?,
            *len as usize,
            types.size_of(*elem) as usize,
        ),
        _ => return None,
    };
    let lanes = (0..len)
        .map(|i| read_scalar(k, d.bytes.get(i * stride..)?))
        .collect::<Option<_>>()?;
    Some((k, lanes))
}

/// The native bytes of a scalar or vector constant of type `ty` whose every lane is `v`
/// (integers wrap to the width). `None` when `ty` is neither or `v` does not fit its kind.
pub fn splat_bytes(types: &TypeStore, ty: Type, v: ScalarValue) -> Option<Vec<u8>> {
    let (k, len, stride) = match types.get(ty) {
        TypeData::Scalar(k) => (*k, 1, 0),
        TypeData::Vector { elem, len } => (
            types.scalar_kind(*elem)?,
            *len as usize,
            types.size_of(*elem) as usize,
        ),
        _ => return None,
    };
    let lane = write_scalar(k, v)?;
    let mut bytes = vec![0u8; types.size_of(ty) as usize];
    for i in 0..len {
        bytes[i * stride..i * stride + lane.len()].copy_from_slice(&lane);
    }
    Some(bytes)
}
