//! Scalar semantics: every elementwise op on one lane, per scalar kind.
//!
//! A lane is a `u64` holding a scalar's bits zero-extended from its width (integers
//! masked to their width, `f16`/`f32` as their IEEE bit patterns, `bool` as 0 or 1).
//! Each op is a plain `fn` over lanes returning the result lane or the name of the
//! undefined behaviour it detected; the lowering picks the function once per
//! instruction, so execution never dispatches on types. The rules are documented,
//! with their sources, in `docs/semantics.md`.

use xir_ir::ScalarKind;
use xir_ir::op::ArithmeticOp as A;

/// A lane result: the value, or the undefined behaviour detected.
pub type R = Result<u64, &'static str>;
/// Unary lane function.
pub type F1 = fn(u64) -> R;
/// Binary lane function.
pub type F2 = fn(u64, u64) -> R;
/// Ternary lane function.
pub type F3 = fn(u64, u64, u64) -> R;

pub(crate) const UB_DIV_ZERO: &str = "integer division or remainder by zero";
pub(crate) const UB_DIV_OVERFLOW: &str =
    "signed integer division or remainder overflow (INT_MIN / -1)";
pub(crate) const UB_SHIFT: &str = "shift or rotate amount not less than the bit width";
pub(crate) const UB_MINMAX_NAN: &str =
    "min/max with a NaN operand (GLSL.std.450 FMin/FMax: undefined)";
pub(crate) const UB_CLAMP_NAN: &str = "clamp with a NaN operand (GLSL.std.450 FClamp: undefined)";
pub(crate) const UB_CLAMP_ORDER: &str = "clamp with lo > hi (GLSL.std.450 *Clamp: undefined)";
pub(crate) const UB_POW: &str =
    "pow with x < 0, or x == 0 and y <= 0 (GLSL.std.450 Pow: undefined)";
pub(crate) const UB_ASIN: &str = "asin/acos of |x| > 1 (GLSL.std.450: undefined)";
pub(crate) const UB_ACOSH: &str = "acosh of x < 1 (GLSL.std.450 Acosh: undefined)";
pub(crate) const UB_ATANH: &str = "atanh of |x| >= 1 (GLSL.std.450 Atanh: undefined)";
pub(crate) const UB_LOG: &str = "log of x < 0 (GLSL.std.450 Log/Log2: undefined)";
pub(crate) const UB_SQRT: &str = "sqrt of x < 0 (GLSL.std.450 Sqrt: undefined)";
pub(crate) const UB_RSQRT: &str = "rsqrt of x <= 0 (GLSL.std.450 InverseSqrt: undefined)";
pub(crate) const UB_ATAN2: &str = "atan2(0, 0) (GLSL.std.450 Atan2: undefined)";
pub(crate) const UB_SMOOTHSTEP: &str =
    "smoothstep with edge0 >= edge1 (GLSL.std.450 SmoothStep: undefined)";
pub(crate) const UB_F2I: &str =
    "float to integer conversion of NaN or a value out of the target's range";

/// Integer ops of one kind.
macro_rules! int_impl {
    ($name:ident, $t:ty, $u:ty) => {
        #[allow(clippy::unnecessary_cast, unused_comparisons)]
        pub(crate) mod $name {
            use super::*;
            type T = $t;
            const BITS: u32 = <$t>::BITS;
            #[inline(always)]
            pub fn ld(v: u64) -> T {
                v as T
            }
            #[inline(always)]
            pub fn st(x: T) -> u64 {
                x as $u as u64
            }
            #[allow(dead_code)]
            pub fn to_i128(v: u64) -> i128 {
                ld(v) as i128
            }
            fn add(a: u64, b: u64) -> R {
                Ok(st(ld(a).wrapping_add(ld(b))))
            }
            fn sub(a: u64, b: u64) -> R {
                Ok(st(ld(a).wrapping_sub(ld(b))))
            }
            fn mul(a: u64, b: u64) -> R {
                Ok(st(ld(a).wrapping_mul(ld(b))))
            }
            fn div(a: u64, b: u64) -> R {
                let (x, y) = (ld(a), ld(b));
                if y == 0 {
                    return Err(UB_DIV_ZERO);
                }
                x.checked_div(y).map(st).ok_or(UB_DIV_OVERFLOW)
            }
            fn rem(a: u64, b: u64) -> R {
                let (x, y) = (ld(a), ld(b));
                if y == 0 {
                    return Err(UB_DIV_ZERO);
                }
                x.checked_rem(y).map(st).ok_or(UB_DIV_OVERFLOW)
            }
            fn and(a: u64, b: u64) -> R {
                Ok(a & b)
            }
            fn or(a: u64, b: u64) -> R {
                Ok(a | b)
            }
            fn xor(a: u64, b: u64) -> R {
                Ok(a ^ b)
            }
            fn min(a: u64, b: u64) -> R {
                Ok(st(ld(a).min(ld(b))))
            }
            fn max(a: u64, b: u64) -> R {
                Ok(st(ld(a).max(ld(b))))
            }
            fn lt(a: u64, b: u64) -> R {
                Ok((ld(a) < ld(b)) as u64)
            }
            fn gt(a: u64, b: u64) -> R {
                Ok((ld(a) > ld(b)) as u64)
            }
            fn le(a: u64, b: u64) -> R {
                Ok((ld(a) <= ld(b)) as u64)
            }
            fn ge(a: u64, b: u64) -> R {
                Ok((ld(a) >= ld(b)) as u64)
            }
            fn eq(a: u64, b: u64) -> R {
                Ok((a == b) as u64)
            }
            fn ne(a: u64, b: u64) -> R {
                Ok((a != b) as u64)
            }
            fn neg(a: u64) -> R {
                Ok(st((0 as T).wrapping_sub(ld(a))))
            }
            fn not(a: u64) -> R {
                Ok(st(!ld(a)))
            }
            fn abs(a: u64) -> R {
                let x = ld(a);
                Ok(st(if x < 0 { (0 as T).wrapping_sub(x) } else { x }))
            }
            fn clamp(x: u64, lo: u64, hi: u64) -> R {
                let (x, lo, hi) = (ld(x), ld(lo), ld(hi));
                if lo > hi {
                    return Err(UB_CLAMP_ORDER);
                }
                Ok(st(x.max(lo).min(hi)))
            }
            /// The shift amount operand, any integer kind. Lanes are zero-extended from
            /// the amount's width, so a negative signed amount reads as at least 128 and
            /// is caught with the too-large ones.
            fn amount(b: u64) -> Result<u32, &'static str> {
                if b >= BITS as u64 {
                    Err(UB_SHIFT)
                } else {
                    Ok(b as u32)
                }
            }
            fn shl(a: u64, b: u64) -> R {
                Ok(st(ld(a) << amount(b)?))
            }
            fn shr(a: u64, b: u64) -> R {
                Ok(st(ld(a) >> amount(b)?))
            }
            fn rotl(a: u64, b: u64) -> R {
                Ok(st((ld(a) as $u).rotate_left(amount(b)?) as T))
            }
            fn rotr(a: u64, b: u64) -> R {
                Ok(st((ld(a) as $u).rotate_right(amount(b)?) as T))
            }
            pub fn unary(op: A) -> Option<F1> {
                Some(match op {
                    A::UnaryMinus => neg,
                    A::UnaryBitNot => not,
                    A::Abs => abs,
                    _ => return None,
                })
            }
            pub fn binary(op: A) -> Option<F2> {
                Some(match op {
                    A::BinaryAdd => add,
                    A::BinarySub => sub,
                    A::BinaryMul => mul,
                    A::BinaryDiv => div,
                    A::BinaryMod => rem,
                    A::BinaryBitAnd => and,
                    A::BinaryBitOr => or,
                    A::BinaryBitXor => xor,
                    A::BinaryShiftLeft => shl,
                    A::BinaryShiftRight => shr,
                    A::BinaryRotateLeft => rotl,
                    A::BinaryRotateRight => rotr,
                    A::BinaryLess => lt,
                    A::BinaryGreater => gt,
                    A::BinaryLessEqual => le,
                    A::BinaryGreaterEqual => ge,
                    A::BinaryEqual => eq,
                    A::BinaryNotEqual => ne,
                    A::Min => min,
                    A::Max => max,
                    _ => return None,
                })
            }
            pub fn ternary(op: A) -> Option<F3> {
                Some(match op {
                    A::Clamp => clamp,
                    _ => return None,
                })
            }
        }
    };
}

int_impl!(i8_, i8, u8);
int_impl!(u8_, u8, u8);
int_impl!(i16_, i16, u16);
int_impl!(u16_, u16, u16);
int_impl!(i32_, i32, u32);
int_impl!(u32_, u32, u32);
int_impl!(i64_, i64, u64);
int_impl!(u64_, u64, u64);

/// Float ops of one kind, computed in `W` (f32 for f16 and f32, f64 for f64) and rounded
/// once to the kind (f32 has enough precision that f16 add/sub/mul/div/sqrt stay
/// correctly rounded).
macro_rules! float_impl {
    ($name:ident, $w:ty, $ld:expr, $st:expr) => {
        pub(crate) mod $name {
            use super::*;
            type W = $w;
            #[inline(always)]
            pub fn ld(v: u64) -> W {
                ($ld)(v)
            }
            #[inline(always)]
            pub fn st(x: W) -> u64 {
                ($st)(x)
            }
            fn add(a: u64, b: u64) -> R {
                Ok(st(ld(a) + ld(b)))
            }
            fn sub(a: u64, b: u64) -> R {
                Ok(st(ld(a) - ld(b)))
            }
            fn mul(a: u64, b: u64) -> R {
                Ok(st(ld(a) * ld(b)))
            }
            fn div(a: u64, b: u64) -> R {
                Ok(st(ld(a) / ld(b)))
            }
            fn rem(a: u64, b: u64) -> R {
                Ok(st(ld(a) % ld(b)))
            }
            fn min(a: u64, b: u64) -> R {
                let (x, y) = (ld(a), ld(b));
                if x.is_nan() || y.is_nan() {
                    return Err(UB_MINMAX_NAN);
                }
                Ok(st(if y < x { y } else { x }))
            }
            fn max(a: u64, b: u64) -> R {
                let (x, y) = (ld(a), ld(b));
                if x.is_nan() || y.is_nan() {
                    return Err(UB_MINMAX_NAN);
                }
                Ok(st(if x < y { y } else { x }))
            }
            fn clamp_w(x: W, lo: W, hi: W) -> Result<W, &'static str> {
                if x.is_nan() || lo.is_nan() || hi.is_nan() {
                    return Err(UB_CLAMP_NAN);
                }
                if lo > hi {
                    return Err(UB_CLAMP_ORDER);
                }
                Ok(if x < lo {
                    lo
                } else if x > hi {
                    hi
                } else {
                    x
                })
            }
            fn clamp(x: u64, lo: u64, hi: u64) -> R {
                clamp_w(ld(x), ld(lo), ld(hi)).map(st)
            }
            fn saturate(x: u64) -> R {
                clamp_w(ld(x), 0.0, 1.0).map(st)
            }
            fn lt(a: u64, b: u64) -> R {
                Ok((ld(a) < ld(b)) as u64)
            }
            fn gt(a: u64, b: u64) -> R {
                Ok((ld(a) > ld(b)) as u64)
            }
            fn le(a: u64, b: u64) -> R {
                Ok((ld(a) <= ld(b)) as u64)
            }
            fn ge(a: u64, b: u64) -> R {
                Ok((ld(a) >= ld(b)) as u64)
            }
            fn eq(a: u64, b: u64) -> R {
                Ok((ld(a) == ld(b)) as u64)
            }
            fn ne(a: u64, b: u64) -> R {
                Ok((ld(a) != ld(b)) as u64)
            }
            fn neg(a: u64) -> R {
                Ok(st(-ld(a)))
            }
            fn abs(a: u64) -> R {
                Ok(st(ld(a).abs()))
            }
            fn isinf(a: u64) -> R {
                Ok(ld(a).is_infinite() as u64)
            }
            fn isnan(a: u64) -> R {
                Ok(ld(a).is_nan() as u64)
            }
            fn acos(a: u64) -> R {
                let x = ld(a);
                if x.abs() > 1.0 {
                    Err(UB_ASIN)
                } else {
                    Ok(st(x.acos()))
                }
            }
            fn asin(a: u64) -> R {
                let x = ld(a);
                if x.abs() > 1.0 {
                    Err(UB_ASIN)
                } else {
                    Ok(st(x.asin()))
                }
            }
            fn acosh(a: u64) -> R {
                let x = ld(a);
                if x < 1.0 {
                    Err(UB_ACOSH)
                } else {
                    Ok(st(x.acosh()))
                }
            }
            fn atanh(a: u64) -> R {
                let x = ld(a);
                if x.abs() >= 1.0 {
                    Err(UB_ATANH)
                } else {
                    Ok(st(x.atanh()))
                }
            }
            fn asinh(a: u64) -> R {
                Ok(st(ld(a).asinh()))
            }
            fn atan(a: u64) -> R {
                Ok(st(ld(a).atan()))
            }
            fn cos(a: u64) -> R {
                Ok(st(ld(a).cos()))
            }
            fn cosh(a: u64) -> R {
                Ok(st(ld(a).cosh()))
            }
            fn sin(a: u64) -> R {
                Ok(st(ld(a).sin()))
            }
            fn sinh(a: u64) -> R {
                Ok(st(ld(a).sinh()))
            }
            fn tan(a: u64) -> R {
                Ok(st(ld(a).tan()))
            }
            fn tanh(a: u64) -> R {
                Ok(st(ld(a).tanh()))
            }
            fn exp(a: u64) -> R {
                Ok(st(ld(a).exp()))
            }
            fn exp2(a: u64) -> R {
                Ok(st(ld(a).exp2()))
            }
            fn exp10(a: u64) -> R {
                Ok(st((10.0 as W).powf(ld(a))))
            }
            fn log(a: u64) -> R {
                let x = ld(a);
                if x < 0.0 { Err(UB_LOG) } else { Ok(st(x.ln())) }
            }
            fn log2(a: u64) -> R {
                let x = ld(a);
                if x < 0.0 {
                    Err(UB_LOG)
                } else {
                    Ok(st(x.log2()))
                }
            }
            fn log10(a: u64) -> R {
                let x = ld(a);
                if x < 0.0 {
                    Err(UB_LOG)
                } else {
                    Ok(st(x.log10()))
                }
            }
            fn sqrt(a: u64) -> R {
                let x = ld(a);
                if x < 0.0 {
                    Err(UB_SQRT)
                } else {
                    Ok(st(x.sqrt()))
                }
            }
            fn rsqrt(a: u64) -> R {
                let x = ld(a);
                if x <= 0.0 {
                    Err(UB_RSQRT)
                } else {
                    Ok(st(1.0 / x.sqrt()))
                }
            }
            fn ceil(a: u64) -> R {
                Ok(st(ld(a).ceil()))
            }
            fn floor(a: u64) -> R {
                Ok(st(ld(a).floor()))
            }
            fn fract(a: u64) -> R {
                let x = ld(a);
                Ok(st(x - x.floor()))
            }
            fn trunc(a: u64) -> R {
                Ok(st(ld(a).trunc()))
            }
            fn round(a: u64) -> R {
                Ok(st(ld(a).round()))
            }
            fn rint(a: u64) -> R {
                Ok(st(ld(a).round_ties_even()))
            }
            fn pow(a: u64, b: u64) -> R {
                let (x, y) = (ld(a), ld(b));
                if x < 0.0 || (x == 0.0 && y <= 0.0) {
                    return Err(UB_POW);
                }
                Ok(st(x.powf(y)))
            }
            fn atan2(a: u64, b: u64) -> R {
                let (y, x) = (ld(a), ld(b));
                if y == 0.0 && x == 0.0 {
                    return Err(UB_ATAN2);
                }
                Ok(st(y.atan2(x)))
            }
            fn copysign(a: u64, b: u64) -> R {
                Ok(st(ld(a).copysign(ld(b))))
            }
            fn step(edge: u64, x: u64) -> R {
                Ok(st(if ld(x) < ld(edge) { 0.0 } else { 1.0 }))
            }
            fn fma(a: u64, b: u64, c: u64) -> R {
                Ok(st(ld(a).mul_add(ld(b), ld(c))))
            }
            fn lerp(a: u64, b: u64, t: u64) -> R {
                let (a, b, t) = (ld(a), ld(b), ld(t));
                Ok(st(a + t * (b - a)))
            }
            fn smoothstep(e0: u64, e1: u64, x: u64) -> R {
                let (e0, e1, x) = (ld(e0), ld(e1), ld(x));
                if e0 >= e1 {
                    return Err(UB_SMOOTHSTEP);
                }
                let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
                Ok(st(t * t * (3.0 - 2.0 * t)))
            }
            pub fn unary(op: A) -> Option<F1> {
                Some(match op {
                    A::UnaryMinus => neg,
                    A::Abs => abs,
                    A::Saturate => saturate,
                    A::Isinf => isinf,
                    A::Isnan => isnan,
                    A::Acos => acos,
                    A::Acosh => acosh,
                    A::Asin => asin,
                    A::Asinh => asinh,
                    A::Atan => atan,
                    A::Atanh => atanh,
                    A::Cos => cos,
                    A::Cosh => cosh,
                    A::Sin => sin,
                    A::Sinh => sinh,
                    A::Tan => tan,
                    A::Tanh => tanh,
                    A::Exp => exp,
                    A::Exp2 => exp2,
                    A::Exp10 => exp10,
                    A::Log => log,
                    A::Log2 => log2,
                    A::Log10 => log10,
                    A::Sqrt => sqrt,
                    A::Rsqrt => rsqrt,
                    A::Ceil => ceil,
                    A::Floor => floor,
                    A::Fract => fract,
                    A::Trunc => trunc,
                    A::Round => round,
                    A::Rint => rint,
                    _ => return None,
                })
            }
            pub fn binary(op: A) -> Option<F2> {
                Some(match op {
                    A::BinaryAdd => add,
                    A::BinarySub => sub,
                    A::BinaryMul => mul,
                    A::BinaryDiv => div,
                    A::BinaryMod => rem,
                    A::BinaryLess => lt,
                    A::BinaryGreater => gt,
                    A::BinaryLessEqual => le,
                    A::BinaryGreaterEqual => ge,
                    A::BinaryEqual => eq,
                    A::BinaryNotEqual => ne,
                    A::Min => min,
                    A::Max => max,
                    A::Pow => pow,
                    A::Atan2 => atan2,
                    A::Copysign => copysign,
                    A::Step => step,
                    _ => return None,
                })
            }
            pub fn ternary(op: A) -> Option<F3> {
                Some(match op {
                    A::Clamp => clamp,
                    A::Fma => fma,
                    A::Lerp => lerp,
                    A::Smoothstep => smoothstep,
                    _ => return None,
                })
            }
        }
    };
}

float_impl!(
    f16_,
    f32,
    |v: u64| half::f16::from_bits(v as u16).to_f32(),
    |x: f32| half::f16::from_f32(x).to_bits() as u64
);
float_impl!(
    f32_,
    f32,
    |v: u64| f32::from_bits(v as u32),
    |x: f32| x.to_bits() as u64
);
float_impl!(f64_, f64, |v: u64| f64::from_bits(v), |x: f64| x.to_bits());

/// Bool ops.
mod bool_ {
    use super::*;
    fn and(a: u64, b: u64) -> R {
        Ok(a & b)
    }
    fn or(a: u64, b: u64) -> R {
        Ok(a | b)
    }
    fn xor(a: u64, b: u64) -> R {
        Ok(a ^ b)
    }
    fn eq(a: u64, b: u64) -> R {
        Ok((a == b) as u64)
    }
    fn ne(a: u64, b: u64) -> R {
        Ok((a != b) as u64)
    }
    fn not(a: u64) -> R {
        Ok(a ^ 1)
    }
    pub fn unary(op: A) -> Option<F1> {
        Some(match op {
            A::UnaryBitNot => not,
            _ => return None,
        })
    }
    pub fn binary(op: A) -> Option<F2> {
        Some(match op {
            A::BinaryBitAnd => and,
            A::BinaryBitOr => or,
            A::BinaryBitXor => xor,
            A::BinaryEqual => eq,
            A::BinaryNotEqual => ne,
            _ => return None,
        })
    }
}

/// Bit counting on `u32` lanes.
mod bits {
    use super::*;
    fn clz(a: u64) -> R {
        Ok((a as u32).leading_zeros() as u64)
    }
    fn ctz(a: u64) -> R {
        Ok((a as u32).trailing_zeros() as u64)
    }
    fn popcount(a: u64) -> R {
        Ok((a as u32).count_ones() as u64)
    }
    fn reverse(a: u64) -> R {
        Ok((a as u32).reverse_bits() as u64)
    }
    pub fn unary(op: A) -> Option<F1> {
        Some(match op {
            A::Clz => clz,
            A::Ctz => ctz,
            A::Popcount => popcount,
            A::Reverse => reverse,
            _ => return None,
        })
    }
}

macro_rules! by_kind {
    ($k:expr, $f:ident, $op:expr) => {
        match $k {
            ScalarKind::I8 => i8_::$f($op),
            ScalarKind::U8 => u8_::$f($op),
            ScalarKind::I16 => i16_::$f($op),
            ScalarKind::U16 => u16_::$f($op),
            ScalarKind::I32 => i32_::$f($op),
            ScalarKind::U32 => u32_::$f($op),
            ScalarKind::I64 => i64_::$f($op),
            ScalarKind::U64 => u64_::$f($op),
            ScalarKind::F16 => f16_::$f($op),
            ScalarKind::F32 => f32_::$f($op),
            ScalarKind::F64 => f64_::$f($op),
            _ => None,
        }
    };
}

/// The lane function of a unary elementwise op on operands of kind `k`.
pub fn unary(op: A, k: ScalarKind) -> Option<F1> {
    if matches!(op, A::Clz | A::Ctz | A::Popcount | A::Reverse) {
        return (k == ScalarKind::U32).then(|| bits::unary(op)).flatten();
    }
    if k == ScalarKind::Bool {
        return bool_::unary(op);
    }
    by_kind!(k, unary, op)
}

/// The lane function of a binary elementwise op on (first) operands of kind `k`.
pub fn binary(op: A, k: ScalarKind) -> Option<F2> {
    if k == ScalarKind::Bool {
        return bool_::binary(op);
    }
    by_kind!(k, binary, op)
}

/// The lane function of a ternary elementwise op on operands of kind `k`.
pub fn ternary(op: A, k: ScalarKind) -> Option<F3> {
    if k == ScalarKind::Bool {
        return None;
    }
    by_kind!(k, ternary, op)
}

/// Whether `k` is executed (the 8-bit floats, FP4 and INT4 are refused).
pub fn kind_supported(k: ScalarKind) -> bool {
    !matches!(
        k,
        ScalarKind::F8E4M3 | ScalarKind::F8E5M2 | ScalarKind::I4 | ScalarKind::F4E2M1
    )
}

/// Bit width of a scalar kind (bool: 1).
pub fn bits_of(k: ScalarKind) -> u32 {
    if k == ScalarKind::Bool {
        1
    } else {
        k.size() as u32 * 8
    }
}

/// A lane of kind `k` read as a signed (signed kinds) or unsigned integer.
pub fn int_value(k: ScalarKind, v: u64) -> i128 {
    match k {
        ScalarKind::I8 => i8_::to_i128(v),
        ScalarKind::I16 => i16_::to_i128(v),
        ScalarKind::I32 => i32_::to_i128(v),
        ScalarKind::I64 => i64_::to_i128(v),
        _ => v as i128,
    }
}

/// Float lane of kind `k` as f64 (exact for f16/f32/f64).
pub fn float_value(k: ScalarKind, v: u64) -> f64 {
    match k {
        ScalarKind::F16 => half::f16::from_bits(v as u16).to_f64(),
        ScalarKind::F32 => f32::from_bits(v as u32) as f64,
        _ => f64::from_bits(v),
    }
}

/// Mask of the low bits of a kind's lane.
pub fn mask(k: ScalarKind) -> u64 {
    match bits_of(k) {
        64 => u64::MAX,
        b => (1u64 << b) - 1,
    }
}

/// `static_cast` of one lane from kind `from` to kind `to`.
pub fn static_cast(from: ScalarKind, to: ScalarKind, v: u64) -> R {
    use ScalarKind as K;
    if from == to {
        return Ok(v);
    }
    if to == K::Bool {
        return Ok(if from.is_float() {
            (float_value(from, v) != 0.0) as u64
        } else {
            (v != 0) as u64
        });
    }
    if from == K::Bool || from.is_int() {
        let x = int_value(from, v);
        if to.is_int() {
            return Ok((x as u64) & mask(to));
        }
        // Integer to float: one correctly rounded conversion from the exact value.
        return Ok(match to {
            K::F16 => half::f16::from_f64(int_to_f64_for_f16(x)).to_bits() as u64,
            K::F32 => (x as f32).to_bits() as u64,
            _ => (x as f64).to_bits(),
        });
    }
    // from float
    let f = float_value(from, v);
    if to.is_float() {
        return Ok(match to {
            K::F16 => half::f16::from_f64(f).to_bits() as u64,
            K::F32 => (f as f32).to_bits() as u64,
            _ => f.to_bits(),
        });
    }
    // float to integer: truncation toward zero; NaN or out of range is undefined.
    if f.is_nan() {
        return Err(UB_F2I);
    }
    let t = f.trunc();
    let (lo, hi) = int_range(to);
    if t < lo as f64 || t > hi as f64 || !(t as i128 >= lo && t as i128 <= hi) {
        return Err(UB_F2I);
    }
    Ok((t as i128 as u64) & mask(to))
}

/// |x| ≤ 2^64 converts exactly to f64 only below 2^53; for f16 the f64 rounding before
/// the f16 rounding cannot change the result (f16's range ends at 65504, and every
/// integer up to 2^53 is exact in f64; larger ones are beyond f16 and round to inf).
fn int_to_f64_for_f16(x: i128) -> f64 {
    x as f64
}

/// Inclusive value range of an integer kind.
pub fn int_range(k: ScalarKind) -> (i128, i128) {
    use ScalarKind as K;
    match k {
        K::I8 => (i8::MIN as i128, i8::MAX as i128),
        K::U8 => (0, u8::MAX as i128),
        K::I16 => (i16::MIN as i128, i16::MAX as i128),
        K::U16 => (0, u16::MAX as i128),
        K::I32 => (i32::MIN as i128, i32::MAX as i128),
        K::U32 => (0, u32::MAX as i128),
        K::I64 => (i64::MIN as i128, i64::MAX as i128),
        K::U64 => (0, u64::MAX as i128),
        K::Bool => (0, 1),
        _ => (0, 0),
    }
}

/// Formats a lane for output (decimal; floats shortest round-trip, non-finite as
/// `nan`/`inf`/`-inf`).
pub fn format_lane(k: ScalarKind, v: u64, bits: bool) -> String {
    use ScalarKind as K;
    match k {
        K::Bool => if v != 0 { "true" } else { "false" }.to_string(),
        K::F16 | K::F32 | K::F64 => {
            if bits {
                let w = (k.size() * 2) as usize;
                return format!("0x{:0w$x}", v, w = w);
            }
            let f = float_value(k, v);
            if f.is_nan() {
                "nan".into()
            } else if f.is_infinite() {
                if f > 0.0 { "inf".into() } else { "-inf".into() }
            } else {
                match k {
                    K::F16 => format!("{:?}", half::f16::from_bits(v as u16).to_f32()),
                    K::F32 => format!("{:?}", f32::from_bits(v as u32)),
                    _ => format!("{:?}", f64::from_bits(v)),
                }
            }
        }
        _ => int_value(k, v).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ScalarKind as K;

    #[test]
    fn integer_rules() {
        let div = binary(A::BinaryDiv, K::I32).unwrap();
        let m1 = (-1i32) as u32 as u64;
        let min = i32::MIN as u32 as u64;
        assert_eq!(div(7, 0), Err(UB_DIV_ZERO));
        assert_eq!(div(min, m1), Err(UB_DIV_OVERFLOW));
        let rem = binary(A::BinaryMod, K::I32).unwrap();
        // C's %: the sign of the dividend.
        assert_eq!(rem((-7i32) as u32 as u64, 3), Ok((-1i32) as u32 as u64));
        let add = binary(A::BinaryAdd, K::U8).unwrap();
        assert_eq!(add(200, 100), Ok(44));
        let shl = binary(A::BinaryShiftLeft, K::U32).unwrap();
        assert_eq!(shl(1, 32), Err(UB_SHIFT));
        assert_eq!(shl(1, 31), Ok(1 << 31));
        let shr = binary(A::BinaryShiftRight, K::I16).unwrap();
        assert_eq!(shr(0x8000, 15), Ok(0xffff));
        let clz = unary(A::Clz, K::U32).unwrap();
        assert_eq!(clz(0), Ok(32));
    }

    #[test]
    fn float_rules() {
        let min = binary(A::Min, K::F32).unwrap();
        let nan = f32::NAN.to_bits() as u64;
        assert_eq!(min(nan, 0), Err(UB_MINMAX_NAN));
        let pow = binary(A::Pow, K::F32).unwrap();
        assert_eq!(pow((-2.0f32).to_bits() as u64, 0), Err(UB_POW));
        let add = binary(A::BinaryAdd, K::F16).unwrap();
        let one = half::f16::ONE.to_bits() as u64;
        assert_eq!(add(one, one), Ok(half::f16::from_f32(2.0).to_bits() as u64));
        assert_eq!(
            static_cast(K::F32, K::I32, (2.9f32).to_bits() as u64),
            Ok(2)
        );
        assert_eq!(
            static_cast(K::F32, K::U8, (256.0f32).to_bits() as u64),
            Err(UB_F2I)
        );
        assert_eq!(static_cast(K::F32, K::I32, nan), Err(UB_F2I));
        assert_eq!(static_cast(K::F32, K::Bool, nan), Ok(1));
        assert_eq!(static_cast(K::I8, K::I32, 0xff), Ok(0xffff_ffff));
    }
}
