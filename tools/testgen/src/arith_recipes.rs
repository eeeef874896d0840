//! Arithmetic recipes: a well-typed instance of every `ArithmeticOp`, plus the
//! aggregate helpers (`aggregate`, `extract`/`insert` paths, GEP steps) other recipes use.

use super::fb::Fb;
use super::recipes::{FLT, INT, NUM, dim, mat, random_composite, sv, vdim};
use xir_ir::edit::InstBuilder;

use xir_ir::op::{ArithSignature as S, ArithmeticOp as A};
use xir_ir::types::{ScalarKind as K, Type, TypeData};
use xir_ir::value::Value;

fn emit_arith(fb: &mut Fb<'_>, op: A, ty: Type, ops: Vec<Value>) -> Value {
    let v = fb.arith(op, ty, &ops);
    fb.keep(v, ty)
}

pub(crate) fn vals(fb: &mut Fb<'_>, ts: &[Type]) -> Vec<Value> {
    ts.iter().map(|t| fb.val(*t)).collect()
}

/// A well-typed instance of arithmetic op `op`: one recipe per `ArithSignature` class of
/// the op table, with as many operands as the op's arity.
pub(crate) fn arith(fb: &mut Fb<'_>, op: A) {
    let bool_t = fb.m.types.bool();
    let n = dim(fb);
    let sig = op.signature();
    let count = op.arity().exact().unwrap_or(1);
    let (ty, ops): (Type, Vec<Value>) = match sig {
        S::NumericUnary => {
            let t = {
                let a_ = fb.rng.pick(&NUM);
                sv(fb, a_, n)
            };
            (t, vals(fb, &[t]))
        }
        S::BitwiseUnary => {
            let k = if fb.rng.chance(20) {
                K::Bool
            } else {
                fb.rng.pick(&INT)
            };
            let t = sv(fb, k, n);
            (t, vals(fb, &[t]))
        }
        S::NumericNary => {
            let t = {
                let a_ = fb.rng.pick(&NUM);
                sv(fb, a_, n)
            };
            (t, vals(fb, &vec![t; count]))
        }
        S::BitwiseBinary => {
            let k = if fb.rng.chance(20) {
                K::Bool
            } else {
                fb.rng.pick(&INT)
            };
            let t = sv(fb, k, n);
            (t, vals(fb, &[t, t]))
        }
        S::Shift => {
            let t = {
                let a_ = fb.rng.pick(&INT);
                sv(fb, a_, n)
            };
            let s = {
                let a_ = fb.rng.pick(&[K::U32, K::I32, K::U8]);
                sv(fb, a_, n)
            };
            (t, vals(fb, &[t, s]))
        }
        S::Ordering => {
            let t = {
                let a_ = fb.rng.pick(&NUM);
                sv(fb, a_, n)
            };
            (sv(fb, K::Bool, n), vals(fb, &[t, t]))
        }
        S::Equality => {
            let k = if fb.rng.chance(20) {
                K::Bool
            } else {
                fb.rng.pick(&NUM)
            };
            let t = sv(fb, k, n);
            (sv(fb, K::Bool, n), vals(fb, &[t, t]))
        }
        S::BoolReduce => {
            let n = vdim(fb);
            let t = sv(fb, K::Bool, n);
            (bool_t, vals(fb, &[t]))
        }
        S::Select => {
            let t = {
                let a_ = fb.rng.pick(&[K::F32, K::I32, K::Bool, K::U64]);
                sv(fb, a_, n)
            };
            let c = if n > 1 && fb.rng.chance(50) {
                sv(fb, K::Bool, n)
            } else {
                bool_t
            };
            (t, vals(fb, &[t, t, c]))
        }
        S::FloatUnary => {
            let t = {
                let a_ = fb.rng.pick(&FLT);
                sv(fb, a_, n)
            };
            (t, vals(fb, &[t]))
        }
        S::Lerp | S::Smoothstep | S::Step => {
            let k = fb.rng.pick(&FLT);
            let t = sv(fb, k, n);
            let e = if fb.rng.chance(40) {
                fb.m.types.scalar(k)
            } else {
                t
            };
            let ts: Vec<Type> = match sig {
                S::Lerp => vec![t, t, e],
                S::Smoothstep => vec![e, e, t],
                _ => vec![e, t],
            };
            (t, vals(fb, &ts))
        }
        S::BitCount => {
            let t = sv(fb, K::U32, n);
            (t, vals(fb, &[t]))
        }
        S::FloatClass => {
            let t = {
                let a_ = fb.rng.pick(&FLT);
                sv(fb, a_, n)
            };
            (sv(fb, K::Bool, n), vals(fb, &[t]))
        }
        S::FloatNary => {
            let t = {
                let a_ = fb.rng.pick(&FLT);
                sv(fb, a_, n)
            };
            (t, vals(fb, &vec![t; count]))
        }
        S::PowInt => {
            let t = {
                let a_ = fb.rng.pick(&FLT);
                sv(fb, a_, n)
            };
            let en = if fb.rng.chance(50) { 1 } else { n };
            let e = {
                let a_ = fb.rng.pick(&[K::I32, K::U32, K::I64]);
                sv(fb, a_, en)
            };
            (t, vals(fb, &[t, e]))
        }
        S::Cross => {
            let t = {
                let a_ = fb.rng.pick(&FLT);
                sv(fb, a_, 3)
            };
            (t, vals(fb, &[t, t]))
        }
        S::Dot | S::Length => {
            let k = fb.rng.pick(&FLT);
            let n = vdim(fb);
            let t = sv(fb, k, n);
            let e = fb.m.types.scalar(k);
            let ts: &[Type] = if sig == S::Dot { &[t, t] } else { &[t] };
            (e, vals(fb, ts))
        }
        S::FloatVectorUnary | S::FloatVectorNary => {
            let n = vdim(fb);
            let t = {
                let a_ = fb.rng.pick(&FLT);
                sv(fb, a_, n)
            };
            (t, vals(fb, &vec![t; count]))
        }
        S::Reduce => {
            let k = fb.rng.pick(&NUM);
            let n = vdim(fb);
            let t = sv(fb, k, n);
            (fb.m.types.scalar(k), vals(fb, &[t]))
        }
        S::OuterProduct => {
            let n = vdim(fb);
            let m = mat(fb, n);
            if fb.rng.chance(70) {
                let v = sv(fb, K::F32, n);
                (m, vals(fb, &[v, v]))
            } else {
                (m, vals(fb, &[m, m]))
            }
        }
        S::MatrixUnary => {
            let n = vdim(fb);
            let m = mat(fb, n);
            (m, vals(fb, &[m]))
        }
        S::MatrixComponentwise => {
            let n = vdim(fb);
            let m = mat(fb, n);
            let f = fb.m.types.f32();
            let ts = match fb.rng.below(3) {
                0 => [m, m],
                1 => [m, f],
                _ => [f, m],
            };
            (m, vals(fb, &ts))
        }
        S::MatrixLinalgMul => {
            let n = vdim(fb);
            let m = mat(fb, n);
            let v = sv(fb, K::F32, n);
            match fb.rng.below(3) {
                0 => (m, vals(fb, &[m, m])),
                1 => (v, vals(fb, &[m, v])),
                _ => (v, vals(fb, &[v, m])),
            }
        }
        S::MatrixDeterminant => {
            let n = vdim(fb);
            let m = mat(fb, n);
            (fb.m.types.f32(), vals(fb, &[m]))
        }
        S::Aggregate => return aggregate(fb),
        S::Shuffle => {
            let k = fb.rng.pick(&[K::F32, K::I32, K::U16, K::Bool]);
            let sn = vdim(fb);
            let src = sv(fb, k, sn);
            let rn = vdim(fb);
            let r = sv(fb, k, rn);
            let mut ops = vec![fb.val(src)];
            for j in 0..rn {
                ops.push(fb.int_const(if j % 2 == 0 { K::U32 } else { K::I32 }, j as u64 % 2));
            }
            (r, ops)
        }
        S::Extract | S::Insert => return extract_insert(fb, sig == S::Insert),
    };
    emit_arith(fb, op, ty, ops);
}

fn aggregate(fb: &mut Fb<'_>) {
    match fb.rng.below(5) {
        0 => {
            let k = fb.rng.pick(&NUM);
            let n = vdim(fb);
            let t = sv(fb, k, n);
            let e = fb.m.types.scalar(k);
            let ops = vals(fb, &vec![e; n as usize]);
            emit_arith(fb, A::Aggregate, t, ops);
        }
        1 => {
            let n = vdim(fb);
            let m = mat(fb, n);
            let c = sv(fb, K::F32, n);
            let ops = vals(fb, &vec![c; n as usize]);
            emit_arith(fb, A::Aggregate, m, ops);
        }
        2 => {
            let e = fb.m.types.u32();
            let len = 1 + fb.rng.below(4);
            let t = fb.m.types.intern(TypeData::Array { elem: e, len });
            let ops = vals(fb, &vec![e; len as usize]);
            emit_arith(fb, A::Aggregate, t, ops);
        }
        3 => {
            let e = fb.m.types.scalar(K::F16);
            let len = 2 + fb.rng.below(7) as u32;
            let t = fb.m.types.intern(TypeData::CoopVector { elem: e, len });
            let ops = vals(fb, &vec![e; len as usize]);
            emit_arith(fb, A::Aggregate, t, ops);
        }
        _ => {
            let t = random_composite(fb);
            let members = match fb.m.types.get(t).clone() {
                TypeData::Struct { members, .. } => members,
                _ => return arith(fb, A::BinaryAdd),
            };
            let ops = vals(fb, &members);
            emit_arith(fb, A::Aggregate, t, ops);
        }
    }
}

/// The element reached by one index into `t`, with a suitable index value.
pub(crate) fn step_into(fb: &mut Fb<'_>, t: Type) -> Option<(Type, Value)> {
    match fb.m.types.get(t).clone() {
        TypeData::Struct { members, .. } if !members.is_empty() => {
            let k = fb.rng.index(members.len());
            let kind = fb.rng.pick(&[K::U32, K::I32, K::U64]);
            Some((members[k], fb.int_const(kind, k as u64)))
        }
        TypeData::Array { elem, .. } | TypeData::Vector { elem, .. } => {
            let k = fb.rng.pick(&[K::U32, K::I32, K::U64]);
            let i = fb.sval(k);
            Some((elem, i))
        }
        TypeData::Matrix { elem, n } => {
            let col = fb.m.types.vector(elem, n);
            let i = fb.sval(K::U32);
            Some((col, i))
        }
        _ => None,
    }
}

fn extract_insert(fb: &mut Fb<'_>, insert: bool) {
    let agg_t = random_composite(fb);
    let agg = fb.val(agg_t);
    let mut cur = agg_t;
    let mut idx = Vec::new();
    for _ in 0..1 + fb.rng.below(2) {
        match step_into(fb, cur) {
            Some((e, i)) => {
                cur = e;
                idx.push(i);
            }
            None => break,
        }
    }
    if idx.is_empty() {
        return arith(fb, A::BinaryAdd);
    }
    if insert {
        let v = fb.val(cur);
        let mut ops = vec![agg, v];
        ops.extend(idx);
        emit_arith(fb, A::Insert, agg_t, ops);
    } else {
        let mut ops = vec![agg];
        ops.extend(idx);
        emit_arith(fb, A::Extract, cur, ops);
    }
}
