//! The constant evaluator shared by `const-fold` (and, later, `sccp`).
//!
//! [`eval_arithmetic`] evaluates one `arithmetic` op over constant operands given as
//! `(type, native bytes)` and returns the native bytes of the result, or `None` when the
//! op must not be folded. Folding covers scalars and vectors (element-wise, with scalar
//! operands broadcast) of `bool`, the eight integer kinds, `f32` and `f64`.
//!
//! Contract (reference §6.2, `const_fold`):
//! * integers wrap at their declared width; division and remainder by zero, `MIN / -1`,
//!   `MIN % -1`, and shifts by a negative amount or by at least the width are not folded;
//! * target-dependent float ops (transcendentals, `exp*`, `log*`, `pow`, `sqrt`, `rsqrt`,
//!   `lerp`, `smoothstep`) are never folded, nor are `pow_int`, float `%`, rotates,
//!   `select` and aggregate, reduction and matrix ops;
//! * a float operand or result that is NaN or subnormal blocks folding (except that
//!   `isinf`/`isnan` classify any input); float comparisons with a NaN operand are not
//!   folded;
//! * ambiguous signed-zero cases are not folded: `min`/`max` of `+0` and `-0`, `clamp`
//!   of a zero or with bounds `±0`, `saturate` of a zero;
//! * `clz`/`ctz` of zero are not folded (targets disagree).
//!
//! Rust float arithmetic is IEEE-754 round-to-nearest-even and never reads a host
//! floating-point environment, so no rounding-mode save/restore is needed. `f32` ops are
//! computed in `f32` (no double rounding); `fma` uses the fused `mul_add`.

use xir_ir::op::ArithmeticOp as A;
use xir_ir::{ScalarKind, Type, TypeData, TypeStore};

/// One element of a scalar or vector constant.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Elem {
    Bool(bool),
    /// An integer: its kind and its mathematical value.
    Int(ScalarKind, i128),
    F32(f32),
    F64(f64),
}

/// Shape of a foldable type: element kind and element count (1 for scalars).
fn shape(types: &TypeStore, t: Type) -> Option<(ScalarKind, usize, Option<Type>)> {
    match types.get(t) {
        TypeData::Scalar(k) => Some((*k, 1, None)),
        TypeData::Vector { elem, len } => {
            Some((types.scalar_kind(*elem)?, *len as usize, Some(*elem)))
        }
        _ => None,
    }
}

fn supported(k: ScalarKind) -> bool {
    matches!(k, ScalarKind::Bool | ScalarKind::F32 | ScalarKind::F64)
        || (k.is_int() && k != ScalarKind::I4)
}

fn bits(k: ScalarKind) -> u32 {
    (k.size() * 8) as u32
}

/// Wraps `v` to the range of integer kind `k`.
fn wrap(k: ScalarKind, v: i128) -> i128 {
    let n = bits(k);
    let m = v & ((1i128 << n) - 1);
    if k.is_signed_int() && m >= (1i128 << (n - 1)) {
        m - (1i128 << n)
    } else {
        m
    }
}

fn int_min(k: ScalarKind) -> i128 {
    if k.is_signed_int() {
        -(1i128 << (bits(k) - 1))
    } else {
        0
    }
}

fn decode_elem(k: ScalarKind, b: &[u8]) -> Option<Elem> {
    let n = k.size() as usize;
    let mut raw = [0u8; 8];
    raw[..n].copy_from_slice(b.get(..n)?);
    let u = u64::from_le_bytes(raw);
    Some(match k {
        ScalarKind::Bool => Elem::Bool(u != 0),
        ScalarKind::F32 => Elem::F32(f32::from_bits(u as u32)),
        ScalarKind::F64 => Elem::F64(f64::from_bits(u)),
        k if k.is_int() => Elem::Int(k, wrap(k, u as i128)),
        _ => return None,
    })
}

fn encode_elem(e: Elem, out: &mut [u8]) {
    match e {
        Elem::Bool(b) => out[0] = b as u8,
        Elem::F32(f) => out[..4].copy_from_slice(&f.to_bits().to_le_bytes()),
        Elem::F64(f) => out[..8].copy_from_slice(&f.to_bits().to_le_bytes()),
        Elem::Int(k, v) => {
            let n = k.size() as usize;
            out[..n].copy_from_slice(&(v as u64).to_le_bytes()[..n]);
        }
    }
}

/// Decodes a scalar/vector constant into its elements.
fn decode(types: &TypeStore, t: Type, bytes: &[u8]) -> Option<Vec<Elem>> {
    let (k, n, elem) = shape(types, t)?;
    if !supported(k) {
        return None;
    }
    let stride = elem.map_or(k.size(), |e| types.size_of(e)) as usize;
    (0..n)
        .map(|i| decode_elem(k, bytes.get(i * stride..)?))
        .collect()
}

/// NaN or subnormal: a float whose folded value would depend on the target.
fn nonportable(e: Elem) -> bool {
    match e {
        Elem::F32(f) => f.is_nan() || f.is_subnormal(),
        Elem::F64(f) => f.is_nan() || f.is_subnormal(),
        _ => false,
    }
}

fn is_nan(e: Elem) -> bool {
    matches!(e, Elem::F32(f) if f.is_nan()) || matches!(e, Elem::F64(f) if f.is_nan())
}

fn is_zero(e: Elem) -> bool {
    matches!(e, Elem::F32(f) if f == 0.0) || matches!(e, Elem::F64(f) if f == 0.0)
}

fn sign_bit(e: Elem) -> bool {
    matches!(e, Elem::F32(f) if f.is_sign_negative())
        || matches!(e, Elem::F64(f) if f.is_sign_negative())
}

/// Mixed-sign zeros: `+0` and `-0`.
fn mixed_zeros(a: Elem, b: Elem) -> bool {
    is_zero(a) && is_zero(b) && sign_bit(a) != sign_bit(b)
}

/// Applies a float function in the element's own precision.
fn fmap(e: Elem, f32op: impl Fn(f32) -> f32, f64op: impl Fn(f64) -> f64) -> Option<Elem> {
    match e {
        Elem::F32(x) => Some(Elem::F32(f32op(x))),
        Elem::F64(x) => Some(Elem::F64(f64op(x))),
        _ => None,
    }
}

fn fmap2(
    a: Elem,
    b: Elem,
    f32op: impl Fn(f32, f32) -> f32,
    f64op: impl Fn(f64, f64) -> f64,
) -> Option<Elem> {
    match (a, b) {
        (Elem::F32(x), Elem::F32(y)) => Some(Elem::F32(f32op(x, y))),
        (Elem::F64(x), Elem::F64(y)) => Some(Elem::F64(f64op(x, y))),
        _ => None,
    }
}

fn ord(a: Elem, b: Elem) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (Elem::Int(_, x), Elem::Int(_, y)) => Some(x.cmp(&y)),
        (Elem::F32(x), Elem::F32(y)) => x.partial_cmp(&y),
        (Elem::F64(x), Elem::F64(y)) => x.partial_cmp(&y),
        _ => None,
    }
}

fn unary(op: A, a: Elem) -> Option<Elem> {
    use Elem::*;
    Some(match (op, a) {
        (A::UnaryMinus, Int(k, x)) => Int(k, wrap(k, x.wrapping_neg())),
        (A::UnaryMinus, _) => fmap(a, |x| -x, |x| -x)?,
        (A::UnaryBitNot, Int(k, x)) => Int(k, wrap(k, !x)),
        (A::UnaryBitNot, Bool(b)) => Bool(!b),
        (A::Abs, Int(k, x)) => Int(k, wrap(k, x.wrapping_abs())),
        (A::Abs, _) => fmap(a, f32::abs, f64::abs)?,
        (A::Floor, _) => fmap(a, f32::floor, f64::floor)?,
        (A::Ceil, _) => fmap(a, f32::ceil, f64::ceil)?,
        (A::Trunc, _) => fmap(a, f32::trunc, f64::trunc)?,
        (A::Round, _) => fmap(a, f32::round, f64::round)?,
        (A::Rint, _) => fmap(a, f32::round_ties_even, f64::round_ties_even)?,
        (A::Fract, _) => fmap(a, |x| x - x.floor(), |x| x - x.floor())?,
        (A::Saturate, _) if is_zero(a) => return None,
        (A::Saturate, _) => fmap(a, |x| x.clamp(0.0, 1.0), |x| x.clamp(0.0, 1.0))?,
        (A::Clz, Int(ScalarKind::U32, x)) if x != 0 => {
            Int(ScalarKind::U32, (x as u32).leading_zeros() as i128)
        }
        (A::Ctz, Int(ScalarKind::U32, x)) if x != 0 => {
            Int(ScalarKind::U32, (x as u32).trailing_zeros() as i128)
        }
        (A::Popcount, Int(ScalarKind::U32, x)) => {
            Int(ScalarKind::U32, (x as u32).count_ones() as i128)
        }
        (A::Reverse, Int(ScalarKind::U32, x)) => {
            Int(ScalarKind::U32, (x as u32).reverse_bits() as i128)
        }
        _ => return None,
    })
}

fn binary(op: A, a: Elem, b: Elem) -> Option<Elem> {
    use Elem::*;
    use std::cmp::Ordering as O;
    Some(match (op, a, b) {
        (A::BinaryAdd, Int(k, x), Int(_, y)) => Int(k, wrap(k, x.wrapping_add(y))),
        (A::BinarySub, Int(k, x), Int(_, y)) => Int(k, wrap(k, x.wrapping_sub(y))),
        (A::BinaryMul, Int(k, x), Int(_, y)) => Int(k, wrap(k, x.wrapping_mul(y))),
        (A::BinaryDiv | A::BinaryMod, Int(k, x), Int(_, y)) => {
            if y == 0 || (k.is_signed_int() && x == int_min(k) && y == -1) {
                return None;
            }
            Int(k, if op == A::BinaryDiv { x / y } else { x % y })
        }
        (A::BinaryAdd, ..) => fmap2(a, b, |x, y| x + y, |x, y| x + y)?,
        (A::BinarySub, ..) => fmap2(a, b, |x, y| x - y, |x, y| x - y)?,
        (A::BinaryMul, ..) => fmap2(a, b, |x, y| x * y, |x, y| x * y)?,
        (A::BinaryDiv, ..) => fmap2(a, b, |x, y| x / y, |x, y| x / y)?,
        (A::BinaryBitAnd, Int(k, x), Int(_, y)) => Int(k, x & y),
        (A::BinaryBitOr, Int(k, x), Int(_, y)) => Int(k, x | y),
        (A::BinaryBitXor, Int(k, x), Int(_, y)) => Int(k, x ^ y),
        (A::BinaryBitAnd, Bool(x), Bool(y)) => Bool(x & y),
        (A::BinaryBitOr, Bool(x), Bool(y)) => Bool(x | y),
        (A::BinaryBitXor, Bool(x), Bool(y)) => Bool(x ^ y),
        (A::BinaryShiftLeft | A::BinaryShiftRight, Int(k, x), Int(_, s)) => {
            if s < 0 || s >= bits(k) as i128 {
                return None;
            }
            let r = if op == A::BinaryShiftLeft {
                x.wrapping_shl(s as u32)
            } else {
                x >> s
            };
            Int(k, wrap(k, r))
        }
        (A::BinaryEqual, Bool(x), Bool(y)) => Bool(x == y),
        (A::BinaryNotEqual, Bool(x), Bool(y)) => Bool(x != y),
        (
            A::BinaryLess
            | A::BinaryGreater
            | A::BinaryLessEqual
            | A::BinaryGreaterEqual
            | A::BinaryEqual
            | A::BinaryNotEqual,
            ..,
        ) => {
            let o = ord(a, b)?;
            Bool(match op {
                A::BinaryLess => o == O::Less,
                A::BinaryGreater => o == O::Greater,
                A::BinaryLessEqual => o != O::Greater,
                A::BinaryGreaterEqual => o != O::Less,
                A::BinaryEqual => o == O::Equal,
                _ => o != O::Equal,
            })
        }
        (A::Min | A::Max, Int(k, x), Int(_, y)) => {
            Int(k, if op == A::Min { x.min(y) } else { x.max(y) })
        }
        (A::Min | A::Max, ..) => {
            if mixed_zeros(a, b) {
                return None;
            }
            let take_a = match ord(a, b)? {
                O::Less => op == A::Min,
                O::Greater => op == A::Max,
                O::Equal => true,
            };
            if take_a { a } else { b }
        }
        // step(edge, x) = x >= edge ? 1 : 0
        (A::Step, ..) => {
            let one = ord(b, a)? != O::Less;
            fmap(a, |_| one as u8 as f32, |_| one as u8 as f64)?
        }
        (A::Copysign, ..) => fmap2(a, b, f32::copysign, f64::copysign)?,
        _ => return None,
    })
}

fn ternary(op: A, a: Elem, b: Elem, c: Elem) -> Option<Elem> {
    use Elem::*;
    match (op, a, b, c) {
        (A::Clamp, Int(k, x), Int(_, lo), Int(_, hi)) => {
            (lo <= hi).then(|| Int(k, x.clamp(lo, hi)))
        }
        (A::Clamp, ..) => {
            if is_zero(a) || mixed_zeros(b, c) || ord(b, c)? == std::cmp::Ordering::Greater {
                return None;
            }
            // lo <= hi and no NaN: clamp = min(max(x, lo), hi).
            let lo = if ord(a, b)? == std::cmp::Ordering::Less {
                b
            } else {
                a
            };
            Some(if ord(lo, c)? == std::cmp::Ordering::Greater {
                c
            } else {
                lo
            })
        }
        (A::Fma, F32(x), F32(y), F32(z)) => Some(F32(x.mul_add(y, z))),
        (A::Fma, F64(x), F64(y), F64(z)) => Some(F64(x.mul_add(y, z))),
        _ => None,
    }
}

/// Whether `op` is one the evaluator may ever fold (see the module docs).
pub fn is_foldable_op(op: A) -> bool {
    matches!(
        op,
        A::UnaryMinus
            | A::UnaryBitNot
            | A::BinaryAdd
            | A::BinarySub
            | A::BinaryMul
            | A::BinaryDiv
            | A::BinaryMod
            | A::BinaryBitAnd
            | A::BinaryBitOr
            | A::BinaryBitXor
            | A::BinaryShiftLeft
            | A::BinaryShiftRight
            | A::BinaryLess
            | A::BinaryGreater
            | A::BinaryLessEqual
            | A::BinaryGreaterEqual
            | A::BinaryEqual
            | A::BinaryNotEqual
            | A::Clamp
            | A::Saturate
            | A::Step
            | A::Abs
            | A::Min
            | A::Max
            | A::Clz
            | A::Ctz
            | A::Popcount
            | A::Reverse
            | A::Isinf
            | A::Isnan
            | A::Ceil
            | A::Floor
            | A::Fract
            | A::Trunc
            | A::Round
            | A::Rint
            | A::Fma
            | A::Copysign
    )
}

/// Evaluates `op` with result type `result` over constant `operands` (type and native
/// bytes each). Returns the native bytes of the result constant, or `None` when the
/// instruction must stay (see the module docs).
pub fn eval_arithmetic(
    types: &TypeStore,
    op: A,
    result: Type,
    operands: &[(Type, &[u8])],
) -> Option<Vec<u8>> {
    if !is_foldable_op(op) || operands.is_empty() || operands.len() > 3 {
        return None;
    }
    let (rk, n, relem) = shape(types, result)?;
    if !supported(rk) {
        return None;
    }
    let mut args = Vec::with_capacity(operands.len());
    for &(t, bytes) in operands {
        let elems = decode(types, t, bytes)?;
        if elems.len() != 1 && elems.len() != n {
            return None;
        }
        let classify = matches!(op, A::Isinf | A::Isnan);
        if !classify && elems.iter().any(|e| nonportable(*e)) {
            return None;
        }
        args.push(elems);
    }
    let at = |k: usize, i: usize| {
        let v = &args[k];
        if v.len() == 1 { v[0] } else { v[i] }
    };
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let e = match (op, args.len()) {
            (A::Isinf | A::Isnan, 1) => {
                let x = at(0, i);
                match x {
                    Elem::F32(_) | Elem::F64(_) => {
                        let inf = matches!(x, Elem::F32(f) if f.is_infinite())
                            || matches!(x, Elem::F64(f) if f.is_infinite());
                        Elem::Bool(if op == A::Isinf { inf } else { is_nan(x) })
                    }
                    _ => return None,
                }
            }
            (_, 1) => unary(op, at(0, i))?,
            (_, 2) => binary(op, at(0, i), at(1, i))?,
            (_, 3) => ternary(op, at(0, i), at(1, i), at(2, i))?,
            _ => return None,
        };
        // The result element must have the result's kind (guards ill-typed input).
        let kind_ok = match e {
            Elem::Bool(_) => rk == ScalarKind::Bool,
            Elem::Int(k, _) => k == rk,
            Elem::F32(_) => rk == ScalarKind::F32,
            Elem::F64(_) => rk == ScalarKind::F64,
        };
        if !kind_ok || nonportable(e) {
            return None;
        }
        out.push(e);
    }
    let size = types.size_of(result) as usize;
    let stride = relem.map_or(rk.size(), |e| types.size_of(e)) as usize;
    let mut bytes = vec![0u8; size];
    for (i, e) in out.into_iter().enumerate() {
        encode_elem(e, &mut bytes[i * stride..]);
    }
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(op: A, k: ScalarKind, args: &[&[u8]]) -> Option<Vec<u8>> {
        let mut ts = TypeStore::new();
        let t = ts.scalar(k);
        let ops: Vec<(Type, &[u8])> = args.iter().map(|b| (t, *b)).collect();
        eval_arithmetic(&ts, op, t, &ops)
    }

    #[test]
    fn integer_wraps_at_width() {
        assert_eq!(
            ev(A::BinaryAdd, ScalarKind::U8, &[&[250], &[10]]),
            Some(vec![4])
        );
        assert_eq!(
            ev(A::BinaryAdd, ScalarKind::I8, &[&[127], &[1]]),
            Some(vec![0x80])
        );
        let max = i32::MAX.to_le_bytes();
        let one = 1i32.to_le_bytes();
        assert_eq!(
            ev(A::BinaryAdd, ScalarKind::I32, &[&max, &one]),
            Some(i32::MIN.to_le_bytes().to_vec())
        );
        let m = u64::MAX.to_le_bytes();
        assert_eq!(
            ev(A::BinaryMul, ScalarKind::U64, &[&m, &m]),
            Some(1u64.to_le_bytes().to_vec())
        );
    }

    #[test]
    fn division_exclusions() {
        let min = i32::MIN.to_le_bytes();
        let neg1 = (-1i32).to_le_bytes();
        let zero = 0i32.to_le_bytes();
        assert_eq!(ev(A::BinaryDiv, ScalarKind::I32, &[&min, &neg1]), None);
        assert_eq!(ev(A::BinaryMod, ScalarKind::I32, &[&min, &neg1]), None);
        assert_eq!(ev(A::BinaryDiv, ScalarKind::I32, &[&neg1, &zero]), None);
        let seven = (-7i32).to_le_bytes();
        let two = 2i32.to_le_bytes();
        assert_eq!(
            ev(A::BinaryDiv, ScalarKind::I32, &[&seven, &two]),
            Some((-3i32).to_le_bytes().to_vec())
        );
        assert_eq!(
            ev(A::BinaryMod, ScalarKind::I32, &[&seven, &two]),
            Some((-1i32).to_le_bytes().to_vec())
        );
    }

    #[test]
    fn shifts() {
        let x = 0x8000_0001u32.to_le_bytes();
        assert_eq!(
            ev(
                A::BinaryShiftLeft,
                ScalarKind::U32,
                &[&x, &1u32.to_le_bytes()]
            ),
            Some(2u32.to_le_bytes().to_vec())
        );
        assert_eq!(
            ev(
                A::BinaryShiftLeft,
                ScalarKind::U32,
                &[&x, &32u32.to_le_bytes()]
            ),
            None
        );
        let n = (-8i32).to_le_bytes();
        assert_eq!(
            ev(
                A::BinaryShiftRight,
                ScalarKind::I32,
                &[&n, &1i32.to_le_bytes()]
            ),
            Some((-4i32).to_le_bytes().to_vec())
        );
        assert_eq!(
            ev(
                A::BinaryShiftRight,
                ScalarKind::I32,
                &[&n, &(-1i32).to_le_bytes()]
            ),
            None
        );
    }

    #[test]
    fn float_rules() {
        let f = |x: f32| x.to_le_bytes();
        assert_eq!(
            ev(A::BinaryAdd, ScalarKind::F32, &[&f(1.5), &f(2.0)]),
            Some(f(3.5).to_vec())
        );
        // NaN result, NaN input, subnormal result.
        assert_eq!(
            ev(
                A::BinarySub,
                ScalarKind::F32,
                &[&f(f32::INFINITY), &f(f32::INFINITY)]
            ),
            None
        );
        assert_eq!(
            ev(A::BinaryAdd, ScalarKind::F32, &[&f(f32::NAN), &f(1.0)]),
            None
        );
        assert_eq!(
            ev(A::BinaryMul, ScalarKind::F32, &[&f(1e-30), &f(1e-10)]),
            None
        );
        // Division by zero gives an infinity, which is portable.
        assert_eq!(
            ev(A::BinaryDiv, ScalarKind::F32, &[&f(1.0), &f(0.0)]),
            Some(f(f32::INFINITY).to_vec())
        );
        assert_eq!(ev(A::Min, ScalarKind::F32, &[&f(0.0), &f(-0.0)]), None);
        assert_eq!(ev(A::Sqrt, ScalarKind::F32, &[&f(4.0)]), None);
        assert_eq!(ev(A::BinaryMod, ScalarKind::F32, &[&f(4.0), &f(3.0)]), None);
        assert_eq!(
            ev(A::Rint, ScalarKind::F32, &[&f(2.5)]),
            Some(f(2.0).to_vec())
        );
        assert_eq!(
            ev(A::Round, ScalarKind::F32, &[&f(2.5)]),
            Some(f(3.0).to_vec())
        );
        assert_eq!(
            ev(A::Clamp, ScalarKind::F32, &[&f(5.0), &f(0.0), &f(1.0)]),
            Some(f(1.0).to_vec())
        );
        assert_eq!(
            ev(A::Clamp, ScalarKind::F32, &[&f(0.0), &f(-1.0), &f(1.0)]),
            None
        );
        assert_eq!(
            ev(A::Step, ScalarKind::F32, &[&f(1.0), &f(2.0)]),
            Some(f(1.0).to_vec())
        );
    }

    #[test]
    fn comparisons_and_vectors() {
        let mut ts = TypeStore::new();
        let i = ts.i32();
        let b = ts.bool();
        let v = ts.vector(i, 3);
        let bv = ts.vector(b, 3);
        let mut x = vec![0u8; 16];
        x[..4].copy_from_slice(&1i32.to_le_bytes());
        x[4..8].copy_from_slice(&(-2i32).to_le_bytes());
        x[8..12].copy_from_slice(&3i32.to_le_bytes());
        let two = 2i32.to_le_bytes();
        let r = eval_arithmetic(&ts, A::BinaryLess, bv, &[(v, &x), (i, &two)]).unwrap();
        assert_eq!(r, vec![1, 1, 0, 0]);
        let s = eval_arithmetic(&ts, A::BinaryAdd, v, &[(v, &x), (v, &x)]).unwrap();
        assert_eq!(&s[4..8], &(-4i32).to_le_bytes());
        assert_eq!(s.len(), 16);
    }
}
