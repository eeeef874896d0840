//! The long tail of arithmetic: reductions, geometry, matrices and `pow_int`, as
//! closures over the frame's lanes. Each step rounds to the element kind as the lane
//! functions of `scalar.rs` do (a dot product is a chain of rounded multiplies and
//! adds, in element order); determinant and inverse are computed in binary64 and
//! rounded once.

use crate::code::{PureFn, Range};
use crate::lower::elem_kind;
use crate::scalar::{self, F1, F2, float_value, int_value};
use xir_ir::op::ArithmeticOp as A;
use xir_ir::{Module, ScalarKind, Type, TypeData};

type Res<T> = Result<T, String>;

fn st(k: ScalarKind, x: f64) -> u64 {
    match k {
        ScalarKind::F16 => half::f16::from_f64(x).to_bits() as u64,
        ScalarKind::F32 => (x as f32).to_bits() as u64,
        _ => x.to_bits(),
    }
}

fn f2(op: A, k: ScalarKind) -> Res<F2> {
    scalar::binary(op, k).ok_or_else(|| format!("`{}` on {}", op.name(), k.text_name()))
}

fn f1(op: A, k: ScalarKind) -> Res<F1> {
    scalar::unary(op, k).ok_or_else(|| format!("`{}` on {}", op.name(), k.text_name()))
}

fn dot(r: &[u64], a: usize, b: usize, n: usize, add: F2, mul: F2) -> Result<u64, &'static str> {
    let mut acc = mul(r[a], r[b])?;
    for i in 1..n {
        acc = add(acc, mul(r[a + i], r[b + i])?)?;
    }
    Ok(acc)
}

/// Matrix dimension of a type (0 if not a matrix).
fn mat_n(m: &Module, t: Type) -> usize {
    match m.types.get(t) {
        TypeData::Matrix { n, .. } => *n as usize,
        _ => 0,
    }
}

/// Lowers one long-tail op to a closure.
pub fn lower(
    m: &Module,
    op: A,
    tys: &[Type],
    vals: &[Range],
    rty: Option<Type>,
    out: Range,
) -> Res<PureFn> {
    let t0 = *tys.first().ok_or("operand type")?;
    let k = elem_kind(&m.types, t0).ok_or("operand is not a scalar, vector or matrix")?;
    let (d, dn) = (out.0 as usize, out.1 as usize);
    let a = vals[0].0 as usize;
    let an = vals[0].1 as usize;
    let b = vals.get(1).map(|v| v.0 as usize).unwrap_or(0);
    Ok(match op {
        A::All | A::Any => {
            let all = op == A::All;
            Box::new(move |r: &mut [u64]| {
                let v = if all {
                    (0..an).all(|i| r[a + i] != 0)
                } else {
                    (0..an).any(|i| r[a + i] != 0)
                };
                r[d] = v as u64;
                Ok(())
            })
        }
        A::PowInt => {
            let ek = elem_kind(&m.types, *tys.get(1).ok_or("exponent type")?).ok_or("exponent")?;
            let bn = vals[1].1 as usize;
            if !k.is_float() || !ek.is_int() {
                return Err("pow_int needs a float base and an integer exponent".into());
            }
            Box::new(move |r: &mut [u64]| {
                for i in 0..dn {
                    let x = float_value(k, r[a + if an == 1 { 0 } else { i }]);
                    let e = int_value(ek, r[b + if bn == 1 { 0 } else { i }])
                        .clamp(i32::MIN as i128, i32::MAX as i128)
                        as i32;
                    r[d + i] = match k {
                        ScalarKind::F64 => x.powi(e).to_bits(),
                        _ => st(k, (x as f32).powi(e) as f64),
                    };
                }
                Ok(())
            })
        }
        A::Dot | A::LengthSquared | A::Length => {
            let (add, mul) = (f2(A::BinaryAdd, k)?, f2(A::BinaryMul, k)?);
            let sqrt = if op == A::Length {
                Some(f1(A::Sqrt, k)?)
            } else {
                None
            };
            let b = if op == A::Dot { b } else { a };
            Box::new(move |r: &mut [u64]| {
                let s = dot(r, a, b, an, add, mul)?;
                r[d] = match sqrt {
                    Some(f) => f(s)?,
                    None => s,
                };
                Ok(())
            })
        }
        A::Normalize => {
            let (add, mul, div) = (
                f2(A::BinaryAdd, k)?,
                f2(A::BinaryMul, k)?,
                f2(A::BinaryDiv, k)?,
            );
            let sqrt = f1(A::Sqrt, k)?;
            Box::new(move |r: &mut [u64]| {
                let l = sqrt(dot(r, a, a, an, add, mul)?)?;
                for i in 0..an {
                    r[d + i] = div(r[a + i], l)?;
                }
                Ok(())
            })
        }
        A::Cross => {
            let (sub, mul) = (f2(A::BinarySub, k)?, f2(A::BinaryMul, k)?);
            Box::new(move |r: &mut [u64]| {
                let (x, y) = ([r[a], r[a + 1], r[a + 2]], [r[b], r[b + 1], r[b + 2]]);
                r[d] = sub(mul(x[1], y[2])?, mul(x[2], y[1])?)?;
                r[d + 1] = sub(mul(x[2], y[0])?, mul(x[0], y[2])?)?;
                r[d + 2] = sub(mul(x[0], y[1])?, mul(x[1], y[0])?)?;
                Ok(())
            })
        }
        A::Reflect => {
            // i - 2 * dot(n, i) * n
            let (add, sub, mul) = (
                f2(A::BinaryAdd, k)?,
                f2(A::BinarySub, k)?,
                f2(A::BinaryMul, k)?,
            );
            let two = st(k, 2.0);
            Box::new(move |r: &mut [u64]| {
                let t = mul(two, dot(r, b, a, an, add, mul)?)?;
                for i in 0..an {
                    r[d + i] = sub(r[a + i], mul(t, r[b + i])?)?;
                }
                Ok(())
            })
        }
        A::Faceforward => {
            // dot(nref, i) < 0 ? n : -n
            let c = vals[2].0 as usize;
            let (add, mul, lt, neg) = (
                f2(A::BinaryAdd, k)?,
                f2(A::BinaryMul, k)?,
                f2(A::BinaryLess, k)?,
                f1(A::UnaryMinus, k)?,
            );
            let zero = st(k, 0.0);
            Box::new(move |r: &mut [u64]| {
                let dp = dot(r, c, b, an, add, mul)?;
                let keep = lt(dp, zero)? != 0;
                for i in 0..an {
                    r[d + i] = if keep { r[a + i] } else { neg(r[a + i])? };
                }
                Ok(())
            })
        }
        A::ReduceSum | A::ReduceProduct | A::ReduceMin | A::ReduceMax => {
            let f = f2(
                match op {
                    A::ReduceSum => A::BinaryAdd,
                    A::ReduceProduct => A::BinaryMul,
                    A::ReduceMin => A::Min,
                    _ => A::Max,
                },
                k,
            )?;
            Box::new(move |r: &mut [u64]| {
                let mut acc = r[a];
                for i in 1..an {
                    acc = f(acc, r[a + i])?;
                }
                r[d] = acc;
                Ok(())
            })
        }
        A::OuterProduct => {
            if mat_n(m, t0) != 0 {
                return Err("outer_product of two matrices is not executed (its meaning is not established)".into());
            }
            let mul = f2(A::BinaryMul, k)?;
            let n = an;
            Box::new(move |r: &mut [u64]| {
                for c in 0..n {
                    for row in 0..n {
                        r[d + c * n + row] = mul(r[a + row], r[b + c])?;
                    }
                }
                Ok(())
            })
        }
        A::MatrixLinalgMul => {
            let t1 = *tys.get(1).ok_or("operand type")?;
            let (na, nb) = (mat_n(m, t0), mat_n(m, t1));
            let (add, mul) = (f2(A::BinaryAdd, k)?, f2(A::BinaryMul, k)?);
            // Column-major: element (row, col) of a matrix at lane col * n + row.
            let n = na.max(nb);
            let _ = rty;
            Box::new(move |r: &mut [u64]| {
                let mut outv = [0u64; 16];
                match (na != 0, nb != 0) {
                    (true, true) => {
                        for c in 0..n {
                            for row in 0..n {
                                let mut acc = mul(r[a + row], r[b + c * n])?;
                                for kk in 1..n {
                                    acc = add(acc, mul(r[a + kk * n + row], r[b + c * n + kk])?)?;
                                }
                                outv[c * n + row] = acc;
                            }
                        }
                    }
                    (true, false) => {
                        for row in 0..n {
                            let mut acc = mul(r[a + row], r[b])?;
                            for kk in 1..n {
                                acc = add(acc, mul(r[a + kk * n + row], r[b + kk])?)?;
                            }
                            outv[row] = acc;
                        }
                    }
                    _ => {
                        for c in 0..n {
                            let mut acc = mul(r[a], r[b + c * n])?;
                            for kk in 1..n {
                                acc = add(acc, mul(r[a + kk], r[b + c * n + kk])?)?;
                            }
                            outv[c] = acc;
                        }
                    }
                }
                r[d..d + dn].copy_from_slice(&outv[..dn]);
                Ok(())
            })
        }
        A::MatrixTranspose => {
            let n = mat_n(m, t0);
            Box::new(move |r: &mut [u64]| {
                for c in 0..n {
                    for row in 0..n {
                        r[d + c * n + row] = r[a + row * n + c];
                    }
                }
                Ok(())
            })
        }
        A::MatrixDeterminant | A::MatrixInverse => {
            let n = mat_n(m, t0);
            let inverse = op == A::MatrixInverse;
            Box::new(move |r: &mut [u64]| {
                let mut x = [[0f64; 4]; 4];
                for c in 0..n {
                    for row in 0..n {
                        x[row][c] = float_value(k, r[a + c * n + row]);
                    }
                }
                let det = det_n(&x, n);
                if !inverse {
                    r[d] = st(k, det);
                    return Ok(());
                }
                for c in 0..n {
                    for row in 0..n {
                        // inverse[row][c] = cofactor(c, row) / det
                        let cof = cofactor(&x, n, c, row);
                        r[d + c * n + row] = st(k, cof / det);
                    }
                }
                Ok(())
            })
        }
        other => return Err(format!("`{}` is not executed", other.name())),
    })
}

fn minor(x: &[[f64; 4]; 4], n: usize, row: usize, col: usize) -> [[f64; 4]; 4] {
    let mut m = [[0f64; 4]; 4];
    for (ri, xr) in x
        .iter()
        .take(n)
        .enumerate()
        .filter(|(i, _)| *i != row)
        .map(|(i, r)| (i - (i > row) as usize, r))
    {
        for (ci, v) in xr
            .iter()
            .take(n)
            .enumerate()
            .filter(|(j, _)| *j != col)
            .map(|(j, v)| (j - (j > col) as usize, v))
        {
            m[ri][ci] = *v;
        }
    }
    m
}

fn cofactor(x: &[[f64; 4]; 4], n: usize, row: usize, col: usize) -> f64 {
    let s = if (row + col).is_multiple_of(2) {
        1.0
    } else {
        -1.0
    };
    s * det_n(&minor(x, n, row, col), n - 1)
}

fn det_n(x: &[[f64; 4]; 4], n: usize) -> f64 {
    match n {
        0 => 1.0,
        1 => x[0][0],
        2 => x[0][0] * x[1][1] - x[0][1] * x[1][0],
        _ => (0..n).map(|c| x[0][c] * cofactor(x, n, 0, c)).sum(),
    }
}
