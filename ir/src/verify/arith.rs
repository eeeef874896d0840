//! Typing of arithmetic, thread-group and autodiff-intrinsic ops (reference §4.2, §4.6,
//! §4.1), following upstream's `arithmetic_types_valid` and the thread-group/autodiff
//! cases of `instruction_semantics_valid` exactly.

use super::Fx;
use super::types::indexed_type;
use crate::inst::InstData;
use crate::op::{
    ArithSignature as S, ArithmeticOp as A, AutodiffIntrinsicOp as D, ThreadGroupOp as G,
};
use crate::types::{ScalarKind, Type, TypeData};
use smallvec::SmallVec;

fn describe(fx: &Fx<'_, '_>, d: &InstData) -> String {
    let ops: Vec<String> = d.operands.iter().map(|v| fx.vty_name(*v)).collect();
    format!(
        "operands are ({}) and the result is {}",
        ops.join(", "),
        fx.tname(d.ty)
    )
}

/// The types of all operands, which must all be data rvalues (inline storage: this runs
/// for most instructions).
fn data_types(fx: &Fx<'_, '_>, d: &InstData) -> Result<SmallVec<[Type; 4]>, String> {
    let mut t = SmallVec::with_capacity(d.operands.len());
    for (k, &v) in d.operands.iter().enumerate() {
        match fx.data_ty(v) {
            Some(ty) => t.push(ty),
            None => {
                return Err(format!(
                    "operand {k} must be a data rvalue (not an lvalue, resource, custom value, block or function), found {}{}",
                    fx.vty_name(v),
                    if fx.is_lvalue(v) { " (an lvalue)" } else { "" }
                ));
            }
        }
    }
    Ok(t)
}

/// Checks an `arithmetic` instruction.
pub(super) fn check_arith(fx: &Fx<'_, '_>, op: A, d: &InstData) -> Result<(), String> {
    let tys = fx.tys;
    let Some(r) = d.ty else {
        return Err("arithmetic produces a value".into());
    };
    if tys.is_resource(r) || tys.is_custom(r) {
        return Err(format!(
            "result type {} is not a data type",
            fx.tname(Some(r))
        ));
    }
    let t = data_types(fx, d)?;
    let n = t.len();
    // The operands the op table says carry the result type do (the rest of each rule
    // below is specific to the op's signature class).
    let sig = op.signature();
    let same = t
        .iter()
        .enumerate()
        .all(|(k, x)| !sig.operand_has_result_type(k) || *x == r);
    let soe = |c: Type, ty: Type| c == ty || (tys.is_vector(ty) && tys.element(ty) == Some(c));
    let numeric = |x: Type| tys.numeric_sv(x);
    let (ok, rule): (bool, &str) = match sig {
        S::NumericUnary => (
            same && numeric(r),
            "expects an operand of the result type, a numeric scalar or vector",
        ),
        S::BitwiseUnary => (
            same && tys.bitwise_sv(r),
            "expects an operand of the result type, an integer or bool scalar or vector",
        ),
        S::NumericNary => (
            same && numeric(r),
            "expects operands of the result type, a numeric scalar or vector",
        ),
        S::BitwiseBinary => (
            same && tys.bitwise_sv(r),
            "expects operands of the result type, an integer or bool scalar or vector",
        ),
        S::Shift => (
            same && tys.integer_sv(r) && tys.integer_sv(t[1]) && tys.same_shape(r, t[1]),
            "expects a left operand of the (integer) result type and an integer right operand of the same shape",
        ),
        S::Ordering => (
            t[0] == t[1] && numeric(t[0]) && tys.bool_shape_for(r, t[0]),
            "expects two numeric operands of one type and a bool result of their shape",
        ),
        S::Equality => (
            t[0] == t[1] && (numeric(t[0]) || tys.bool_sv(t[0])) && tys.bool_shape_for(r, t[0]),
            "expects two numeric or bool operands of one type and a bool result of their shape",
        ),
        S::BoolReduce => (
            tys.is_bool(r) && tys.bool_vec(t[0]),
            "expects a bool vector operand and a `bool` result",
        ),
        S::Select => {
            let c = t[2];
            let cond_ok = tys.is_bool(c)
                || (tys.is_vector(r) && tys.is_vec_of(c, ScalarKind::Bool, tys.dim(r)));
            (
                same && cond_ok,
                "expects (false value, true value, condition) with both values of the result type and a bool condition (or a bool vector of the result's dimension)",
            )
        }
        S::FloatUnary => (
            same && tys.float_sv(r),
            "expects an operand of the result type, a float scalar or vector",
        ),
        S::Lerp => (
            same && tys.float_sv(r) && soe(t[2], r),
            "expects (a, b, t) with a and b of the (float) result type and t of that type or its element",
        ),
        S::Smoothstep => (
            same && tys.float_sv(r) && soe(t[0], r) && soe(t[1], r),
            "expects (edge0, edge1, x) with x of the (float) result type and edges of that type or its element",
        ),
        S::Step => (
            same && tys.float_sv(r) && soe(t[0], r),
            "expects (edge, x) with x of the (float) result type and edge of that type or its element",
        ),
        S::BitCount => (
            same && tys.u32_sv(r),
            "expects an operand of the result type, `u32` or a `u32` vector",
        ),
        S::FloatClass => (
            tys.float_sv(t[0]) && tys.bool_shape_for(r, t[0]),
            "expects a float operand and a bool result of its shape",
        ),
        S::FloatNary => (
            same && tys.float_sv(r),
            "expects operands of the result type, a float scalar or vector",
        ),
        S::PowInt => (
            same && tys.float_sv(r)
                && tys.integer_sv(t[1])
                && (tys.same_shape(r, t[1]) || tys.is_scalar(t[1])),
            "expects a float base of the result type and an integer exponent of the same shape (or scalar)",
        ),
        S::Cross => (
            same && tys.float_vec(r) && tys.dim(r) == Some(3),
            "expects operands of the result type, a 3-element float vector",
        ),
        S::Dot => (
            t[0] == t[1] && tys.float_vec(t[0]) && tys.element(t[0]) == Some(r),
            "expects two float vectors of one type and a result of their element type",
        ),
        S::Length => (
            tys.float_vec(t[0]) && tys.element(t[0]) == Some(r),
            "expects a float vector and a result of its element type",
        ),
        S::FloatVectorUnary => (
            same && tys.float_vec(r),
            "expects an operand of the result type, a float vector",
        ),
        S::FloatVectorNary => (
            same && tys.float_vec(r),
            "expects operands of the result type, a float vector",
        ),
        S::Reduce => (
            numeric(t[0]) && tys.is_vector(t[0]) && tys.element(t[0]) == Some(r),
            "expects a numeric vector and a result of its element type",
        ),
        S::OuterProduct => {
            let ok = if tys.float_vec(t[0]) && t[1] == t[0] {
                tys.is_mat_f32(r, tys.dim(t[0]))
            } else {
                tys.is_matrix(r) && t[0] == r && t[1] == r
            };
            (
                ok,
                "expects two equal float vectors with a `matrix<f32, N>` result, or two matrices of the result type",
            )
        }
        S::MatrixUnary => (
            tys.is_matrix(r) && same,
            "expects a matrix operand of the result type",
        ),
        S::MatrixComponentwise => {
            let ok = tys.is_matrix(r) && {
                let e = tys.element(r);
                let fits = |x: Type| x == r || Some(x) == e;
                fits(t[0]) && fits(t[1]) && (t[0] == r || t[1] == r)
            };
            (
                ok,
                "expects a matrix result and operands of that matrix type or its element, at least one a matrix",
            )
        }
        S::MatrixLinalgMul => {
            let (a, b) = (t[0], t[1]);
            let ok = if tys.is_matrix(a) && tys.is_matrix(b) {
                a == b && r == a
            } else if tys.is_matrix(a) && tys.float_vec(b) && tys.dim(a) == tys.dim(b) {
                r == b
            } else {
                tys.float_vec(a) && tys.is_matrix(b) && tys.dim(a) == tys.dim(b) && r == a
            };
            (
                ok,
                "expects matrix×matrix, matrix×vector or vector×matrix of matching dimension",
            )
        }
        S::MatrixDeterminant => (
            tys.is_matrix(t[0]) && tys.element(t[0]) == Some(r),
            "expects a matrix and a result of its element type",
        ),
        S::Aggregate => (
            aggregate_ok(fx, r, &t),
            "expects one operand per element (column, member) of the result type, each of that element's type",
        ),
        S::Shuffle => {
            let ok = tys.is_vector(r)
                && tys.is_vector(t[0])
                && tys.element(r) == tys.element(t[0])
                && tys.dim(r).is_some_and(|k| k + 1 == n as u64)
                && t[1..].iter().all(|x| tys.integer_scalar(*x));
            (
                ok,
                "expects a vector of the result's element type followed by one integer index per result element",
            )
        }
        S::Extract => {
            let e = indexed_type(fx, Some(t[0]), &d.operands[1..])?;
            if !e.is(fx, Some(r)) {
                return Err(format!(
                    "extracted element type {} differs from the result type {}",
                    e.name(fx),
                    fx.tname(Some(r))
                ));
            }
            (true, "")
        }
        S::Insert => {
            if !same {
                return Err(format!(
                    "the aggregate operand must have the result type {}, found {}",
                    fx.tname(Some(r)),
                    fx.tname(Some(t[0]))
                ));
            }
            let e = indexed_type(fx, Some(r), &d.operands[2..])?;
            if !e.is(fx, Some(t[1])) {
                return Err(format!(
                    "inserted value type {} differs from the indexed element type {}",
                    fx.tname(Some(t[1])),
                    e.name(fx)
                ));
            }
            (true, "")
        }
    };
    if ok {
        Ok(())
    } else {
        Err(format!("{rule}; {}", describe(fx, d)))
    }
}

fn aggregate_ok(fx: &Fx<'_, '_>, r: Type, t: &[Type]) -> bool {
    let tys = fx.tys;
    let n = t.len() as u64;
    match tys.data(r) {
        Some(
            TypeData::Vector { elem, .. }
            | TypeData::Array { elem, .. }
            | TypeData::CoopVector { elem, .. },
        ) => tys.dim(r) == Some(n) && t.iter().all(|x| x == elem),
        Some(TypeData::Matrix { elem, n: k }) => {
            let col = tys.find(&TypeData::Vector {
                elem: *elem,
                len: *k,
            });
            *k as u64 == n && col.is_some_and(|c| t.iter().all(|x| *x == c))
        }
        Some(TypeData::Struct { members, .. }) => members.as_slice() == t,
        _ => false,
    }
}

/// Checks a `thread_group` instruction.
pub(super) fn check_thread_group(fx: &Fx<'_, '_>, op: G, d: &InstData) -> Result<(), String> {
    let tys = fx.tys;
    let t = data_types(fx, d)?;
    let r = d.ty;
    let is = |x: Option<Type>, k: ScalarKind| x.is_some_and(|x| tys.is_kind(x, k));
    let t0 = t.first().copied();
    let (ok, rule): (bool, &str) = match op {
        G::ShaderExecutionReorder => (
            r.is_none() && t.iter().all(|x| tys.is_kind(*x, ScalarKind::U32)),
            "expects no operands or two `u32` operands and no result",
        ),
        G::SynchronizeBlock => (r.is_none(), "has no result"),
        G::RasterQuadDdx | G::RasterQuadDdy => (
            r.is_some() && r == t0 && r.is_some_and(|r| tys.float_sv(r)),
            "expects a float scalar/vector operand of the result type",
        ),
        G::RasterSetZDepth | G::RasterSetZDepthGreaterEqual | G::RasterSetZDepthLessEqual => (
            r.is_none() && is(t0, ScalarKind::F32),
            "expects an `f32` operand and no result",
        ),
        G::WarpIsFirstActiveLane => (is(r, ScalarKind::Bool), "produces `bool`"),
        G::WarpFirstActiveLane => (is(r, ScalarKind::U32), "produces `u32`"),
        G::WarpActiveAllEqual => {
            let ok = match t0 {
                Some(x) if tys.is_scalar(x) => is(r, ScalarKind::Bool),
                Some(x) => {
                    tys.is_vector(x)
                        && r.is_some_and(|r| tys.is_vec_of(r, ScalarKind::Bool, tys.dim(x)))
                }
                None => false,
            };
            (
                ok,
                "expects a scalar or vector and a bool result of its shape",
            )
        }
        G::WarpActiveBitAnd | G::WarpActiveBitOr | G::WarpActiveBitXor => (
            r.is_some() && r == t0 && r.is_some_and(|r| tys.int_sv(r) || tys.uint_sv(r)),
            "expects an integer scalar/vector operand of the result type",
        ),
        G::WarpActiveCountBits | G::WarpPrefixCountBits => (
            is(t0, ScalarKind::Bool) && is(r, ScalarKind::U32),
            "expects a `bool` operand and a `u32` result",
        ),
        G::WarpActiveMax
        | G::WarpActiveMin
        | G::WarpActiveProduct
        | G::WarpActiveSum
        | G::WarpPrefixSum
        | G::WarpPrefixProduct => (
            r.is_some() && r == t0 && r.is_some_and(|r| tys.is_sv(r) && !tys.bool_sv(r)),
            "expects a non-bool scalar/vector operand of the result type",
        ),
        G::WarpActiveAll | G::WarpActiveAny => (
            is(t0, ScalarKind::Bool) && is(r, ScalarKind::Bool),
            "expects a `bool` operand and a `bool` result",
        ),
        G::WarpActiveBitMask => (
            is(t0, ScalarKind::Bool)
                && r.is_some_and(|r| tys.is_vec_of(r, ScalarKind::U32, Some(4))),
            "expects a `bool` operand and a `vector<u32, 4>` result",
        ),
        G::WarpReadLane => (
            r == t0 && is(t.get(1).copied(), ScalarKind::U32),
            "expects a value of the result type and a `u32` lane",
        ),
        G::WarpReadFirstActiveLane => (
            r.is_some() && r == t0,
            "expects an operand of the result type",
        ),
    };
    if ok {
        Ok(())
    } else {
        Err(format!("{rule}; {}", describe(fx, d)))
    }
}

/// Checks an autodiff intrinsic (`@op`).
pub(super) fn check_autodiff(fx: &Fx<'_, '_>, op: D, d: &InstData) -> Result<(), String> {
    let mut t = Vec::with_capacity(d.operands.len());
    for (k, &v) in d.operands.iter().enumerate() {
        match fx.vty(v) {
            Some(ty) if fx.typed(v) => t.push(ty),
            _ => {
                return Err(format!(
                    "operand {k} must be a typed non-resource value, found {}",
                    fx.vty_name(v)
                ));
            }
        }
    }
    let r = d.ty;
    let t0 = t.first().copied();
    let (ok, rule) = match op {
        D::RequiresGradient | D::Backward => (r.is_none(), "has no result"),
        D::Gradient | D::Detach => (
            r.is_some() && r == t0,
            "produces a value of its operand's type",
        ),
        D::GradientMarker | D::AccumulateGradient => (
            r.is_none() && t.get(1).copied() == t0,
            "expects two operands of one type and no result",
        ),
        D::PropagateGradient => (
            r.is_none() && t.iter().all(|x| Some(*x) == t0),
            "expects operands of one type and no result",
        ),
        D::OutputGradient => (
            r.is_some() && r == t0 && t.get(1).is_some_and(|x| fx.tys.index32(*x)),
            "expects a value of the result type and an `i32`/`u32` index",
        ),
    };
    if ok {
        Ok(())
    } else {
        Err(format!("{rule}; {}", describe(fx, d)))
    }
}
