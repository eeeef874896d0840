//! Arithmetic (SPIR-V core and GLSL.std.450), aggregates and casts.
//!
//! Ordinary XIR arithmetic becomes ordinary SPIR-V instructions: no folding, no
//! specialisation constants. Casts follow the seed's bool rules: bool → number is a
//! select of one/zero, integer → bool compares with zero, float → bool is an unordered
//! not-equal with zero (NaN stays truthy); every other same-shape pair has its own
//! conversion instruction and nothing falls through to OpBitcast.

use super::cfg::{FnState, e_value};
use super::{Emitter, R, ids};
use crate::error::CodegenError;
use rspirv::dr::Operand;
use rspirv::spirv::{GlslStd450Op, Op, Word};
use xir_ir::op::{ArithmeticOp, CastOp};
use xir_ir::types::TypeData;
use xir_ir::{InstId, ScalarKind, Type, Value};

impl Emitter<'_> {
    /// Scalar kind and lane count of a scalar or vector type.
    pub(crate) fn shape(&self, t: Type) -> Option<(ScalarKind, u8)> {
        Some((
            self.m.types.scalar_or_vector_elem(t)?,
            self.m.types.dimension(t)?,
        ))
    }

    /// `x` (of `from_n` lanes) widened to `n` lanes by smearing a scalar.
    fn splat(&mut self, x: Word, k: ScalarKind, from_n: u8, n: u8) -> Word {
        if from_n == n || n == 1 {
            return x;
        }
        let t = self.vec_ty(k, n);
        self.op(
            Op::CompositeConstruct,
            t,
            vec![Operand::IdRef(x); n as usize],
        )
    }
}

/// Emits an arithmetic instruction.
pub(crate) fn emit_arith(e: &mut Emitter, st: &mut FnState, i: InstId, op: ArithmeticOp) -> R<()> {
    let m = e.m;
    let f = st.f;
    let inst = m.func(f).inst(i);
    let rtx = inst.ty.expect("arithmetic has a result");
    let rt = e.logical(rtx);
    let id = st.values[&Value::Inst(i)];
    let mut a = Vec::with_capacity(inst.operands.len());
    for v in &inst.operands {
        a.push(e_value(e, st, *v)?);
    }
    let oty: Vec<Type> = inst
        .operands
        .iter()
        .map(|v| m.value_type(f, *v).expect("typed operand"))
        .collect();
    let rshape = e.shape(rtx);
    let oshape = oty.first().and_then(|t| e.shape(*t));
    let internal = |msg: &str| CodegenError::internal(st.loc(i), msg.to_string());
    use ArithmeticOp as A;
    // Operand scalar kind (for comparisons the result is bool).
    let (k, n) = match oshape.or(rshape) {
        Some(s) => s,
        None => (ScalarKind::F32, 1),
    };
    let put = |e: &mut Emitter, o: Op, args: &[Word]| e.op_to(o, rt, id, ids(args));
    let glsl_to = |e: &mut Emitter, g: GlslStd450Op, args: &[Word]| {
        let set = e.glsl();
        let mut ops = vec![
            Operand::IdRef(set),
            Operand::LiteralExtInstInteger(g as u32),
        ];
        ops.extend(ids(args));
        e.op_to(Op::ExtInst, rt, id, ops);
    };
    let is_mat = |t: Type| matches!(m.types.get(t), TypeData::Matrix { .. });
    match op {
        A::UnaryMinus => put(
            e,
            if k.is_float() {
                Op::FNegate
            } else {
                Op::SNegate
            },
            &a,
        ),
        A::UnaryBitNot => put(
            e,
            if k == ScalarKind::Bool {
                Op::LogicalNot
            } else {
                Op::Not
            },
            &a,
        ),
        A::BinaryAdd | A::BinarySub | A::BinaryMul | A::BinaryDiv | A::BinaryMod => {
            if is_mat(rtx) {
                return matrix_componentwise(e, st, i, op);
            }
            let o = match (op, k.is_float(), k.is_signed_int()) {
                (A::BinaryAdd, true, _) => Op::FAdd,
                (A::BinaryAdd, false, _) => Op::IAdd,
                (A::BinarySub, true, _) => Op::FSub,
                (A::BinarySub, false, _) => Op::ISub,
                (A::BinaryMul, true, _) => Op::FMul,
                (A::BinaryMul, false, _) => Op::IMul,
                (A::BinaryDiv, true, _) => Op::FDiv,
                (A::BinaryDiv, false, true) => Op::SDiv,
                (A::BinaryDiv, false, false) => Op::UDiv,
                (A::BinaryMod, true, _) => Op::FRem,
                (A::BinaryMod, false, true) => {
                    // a - (a / b) * b with truncating OpSDiv: Vulkan leaves OpSRem
                    // undefined when an operand is negative (an NVIDIA driver returns
                    // other values), XIR's remainder has the dividend's sign.
                    let q = e.op(Op::SDiv, rt, ids(&a));
                    let qb = e.op(Op::IMul, rt, ids(&[q, a[1]]));
                    put(e, Op::ISub, &[a[0], qb]);
                    return Ok(());
                }
                _ => Op::UMod,
            };
            put(e, o, &a)
        }
        A::BinaryBitAnd | A::BinaryBitOr | A::BinaryBitXor => {
            let o = match (op, k == ScalarKind::Bool) {
                (A::BinaryBitAnd, true) => Op::LogicalAnd,
                (A::BinaryBitOr, true) => Op::LogicalOr,
                (A::BinaryBitXor, true) => Op::LogicalNotEqual,
                (A::BinaryBitAnd, false) => Op::BitwiseAnd,
                (A::BinaryBitOr, false) => Op::BitwiseOr,
                _ => Op::BitwiseXor,
            };
            put(e, o, &a)
        }
        A::BinaryShiftLeft => put(e, Op::ShiftLeftLogical, &a),
        A::BinaryShiftRight => put(
            e,
            if k.is_signed_int() {
                Op::ShiftRightArithmetic
            } else {
                Op::ShiftRightLogical
            },
            &a,
        ),
        A::BinaryRotateLeft | A::BinaryRotateRight => {
            // rotl(x, s) = (x << (s & (w-1))) | (x >>> ((w - s) & (w-1))), in the
            // shift-amount type.
            let (sk, sn) = e
                .shape(oty[1])
                .ok_or_else(|| internal("rotate amount shape"))?;
            let st_ty = e.logical(oty[1]);
            let w = k.size() * 8;
            let mask = e.const_bits(sk, sn, w - 1);
            let wc = e.const_bits(sk, sn, w);
            let s1 = e.op(Op::BitwiseAnd, st_ty, ids(&[a[1], mask]));
            let inv = e.op(Op::ISub, st_ty, ids(&[wc, a[1]]));
            let s2 = e.op(Op::BitwiseAnd, st_ty, ids(&[inv, mask]));
            let (l, r) = if op == A::BinaryRotateLeft {
                (s1, s2)
            } else {
                (s2, s1)
            };
            let hi = e.op(Op::ShiftLeftLogical, rt, ids(&[a[0], l]));
            let lo = e.op(Op::ShiftRightLogical, rt, ids(&[a[0], r]));
            put(e, Op::BitwiseOr, &[hi, lo])
        }
        A::BinaryLess
        | A::BinaryGreater
        | A::BinaryLessEqual
        | A::BinaryGreaterEqual
        | A::BinaryEqual
        | A::BinaryNotEqual => {
            let o = match (op, k.is_float(), k.is_signed_int(), k == ScalarKind::Bool) {
                (A::BinaryEqual, _, _, true) => Op::LogicalEqual,
                (A::BinaryNotEqual, _, _, true) => Op::LogicalNotEqual,
                (A::BinaryEqual, true, ..) => Op::FOrdEqual,
                (A::BinaryNotEqual, true, ..) => Op::FUnordNotEqual,
                (A::BinaryEqual, ..) => Op::IEqual,
                (A::BinaryNotEqual, ..) => Op::INotEqual,
                (A::BinaryLess, true, ..) => Op::FOrdLessThan,
                (A::BinaryGreater, true, ..) => Op::FOrdGreaterThan,
                (A::BinaryLessEqual, true, ..) => Op::FOrdLessThanEqual,
                (A::BinaryGreaterEqual, true, ..) => Op::FOrdGreaterThanEqual,
                (A::BinaryLess, _, true, _) => Op::SLessThan,
                (A::BinaryGreater, _, true, _) => Op::SGreaterThan,
                (A::BinaryLessEqual, _, true, _) => Op::SLessThanEqual,
                (A::BinaryGreaterEqual, _, true, _) => Op::SGreaterThanEqual,
                (A::BinaryLess, ..) => Op::ULessThan,
                (A::BinaryGreater, ..) => Op::UGreaterThan,
                (A::BinaryLessEqual, ..) => Op::ULessThanEqual,
                _ => Op::UGreaterThanEqual,
            };
            put(e, o, &a)
        }
        A::All => put(e, Op::All, &a),
        A::Any => put(e, Op::Any, &a),
        A::Select => put(e, Op::Select, &[a[2], a[1], a[0]]),
        A::Clamp => {
            let (rk, rn) = rshape.ok_or_else(|| internal("clamp shape"))?;
            let lo = e.splat(a[1], rk, e.shape(oty[1]).map_or(rn, |s| s.1), rn);
            let hi = e.splat(a[2], rk, e.shape(oty[2]).map_or(rn, |s| s.1), rn);
            let g = if rk.is_float() {
                GlslStd450Op::FClamp
            } else if rk.is_signed_int() {
                GlslStd450Op::SClamp
            } else {
                GlslStd450Op::UClamp
            };
            glsl_to(e, g, &[a[0], lo, hi])
        }
        A::Saturate => {
            let (rk, rn) = rshape.unwrap();
            let z = e.const_num(rk, rn, 0.0);
            let o = e.const_num(rk, rn, 1.0);
            glsl_to(e, GlslStd450Op::FClamp, &[a[0], z, o])
        }
        A::Lerp => {
            let (rk, rn) = rshape.unwrap();
            // t * (b - a) + a, each step rounded (docs/semantics.md), not FMix, whose
            // precision Vulkan leaves to the implementation.
            let t = e.splat(a[2], rk, e.shape(oty[2]).map_or(rn, |s| s.1), rn);
            let d = e.op(Op::FSub, rt, ids(&[a[1], a[0]]));
            let p = e.op(Op::FMul, rt, ids(&[t, d]));
            put(e, Op::FAdd, &[p, a[0]])
        }
        A::Smoothstep => {
            let (rk, rn) = rshape.unwrap();
            let e0 = e.splat(a[0], rk, e.shape(oty[0]).map_or(rn, |s| s.1), rn);
            let e1 = e.splat(a[1], rk, e.shape(oty[1]).map_or(rn, |s| s.1), rn);
            glsl_to(e, GlslStd450Op::SmoothStep, &[e0, e1, a[2]])
        }
        A::Step => {
            let (rk, rn) = rshape.unwrap();
            let edge = e.splat(a[0], rk, e.shape(oty[0]).map_or(rn, |s| s.1), rn);
            glsl_to(e, GlslStd450Op::Step, &[edge, a[1]])
        }
        A::Abs => {
            if k.is_float() {
                glsl_to(e, GlslStd450Op::FAbs, &a)
            } else if k.is_signed_int() {
                glsl_to(e, GlslStd450Op::SAbs, &a)
            } else {
                put(e, Op::CopyObject, &a)
            }
        }
        A::Min | A::Max => {
            let g = match (op, k.is_float(), k.is_signed_int()) {
                (A::Min, true, _) => GlslStd450Op::FMin,
                (A::Min, _, true) => GlslStd450Op::SMin,
                (A::Min, ..) => GlslStd450Op::UMin,
                (_, true, _) => GlslStd450Op::FMax,
                (_, _, true) => GlslStd450Op::SMax,
                _ => GlslStd450Op::UMax,
            };
            glsl_to(e, g, &a)
        }
        A::Clz => {
            // 31 - findUMsb(x); findUMsb(0) = -1 gives 32.
            let msb = e.glsl_op(rt, GlslStd450Op::FindUMsb, &a);
            let c = e.const_bits(k, n, 31);
            put(e, Op::ISub, &[c, msb])
        }
        A::Ctz => {
            // min(findLSB(x), 32): findLSB(0) = 0xffffffff.
            let lsb = e.glsl_op(rt, GlslStd450Op::FindILsb, &a);
            let c = e.const_bits(k, n, 32);
            glsl_to(e, GlslStd450Op::UMin, &[lsb, c])
        }
        A::Popcount => put(e, Op::BitCount, &a),
        A::Reverse => put(e, Op::BitReverse, &a),
        A::Isinf => put(e, Op::IsInf, &a),
        A::Isnan => put(e, Op::IsNan, &a),
        A::Acos => glsl_to(e, GlslStd450Op::Acos, &a),
        A::Acosh => glsl_to(e, GlslStd450Op::Acosh, &a),
        A::Asin => glsl_to(e, GlslStd450Op::Asin, &a),
        A::Asinh => glsl_to(e, GlslStd450Op::Asinh, &a),
        A::Atan => glsl_to(e, GlslStd450Op::Atan, &a),
        A::Atan2 => glsl_to(e, GlslStd450Op::Atan2, &a),
        A::Atanh => glsl_to(e, GlslStd450Op::Atanh, &a),
        A::Cos => glsl_to(e, GlslStd450Op::Cos, &a),
        A::Cosh => glsl_to(e, GlslStd450Op::Cosh, &a),
        A::Sin => glsl_to(e, GlslStd450Op::Sin, &a),
        A::Sinh => glsl_to(e, GlslStd450Op::Sinh, &a),
        A::Tan => glsl_to(e, GlslStd450Op::Tan, &a),
        A::Tanh => glsl_to(e, GlslStd450Op::Tanh, &a),
        A::Exp => glsl_to(e, GlslStd450Op::Exp, &a),
        A::Exp2 => glsl_to(e, GlslStd450Op::Exp2, &a),
        A::Exp10 => {
            let ten = e.const_num(k, n, 10.0);
            glsl_to(e, GlslStd450Op::Pow, &[ten, a[0]])
        }
        A::Log => glsl_to(e, GlslStd450Op::Log, &a),
        A::Log2 => glsl_to(e, GlslStd450Op::Log2, &a),
        A::Log10 => {
            let l = e.glsl_op(rt, GlslStd450Op::Log2, &a);
            let c = e.const_num(k, n, std::f64::consts::LOG10_2);
            put(e, Op::FMul, &[l, c])
        }
        A::Pow => glsl_to(e, GlslStd450Op::Pow, &a),
        A::Sqrt => glsl_to(e, GlslStd450Op::Sqrt, &a),
        A::Rsqrt => glsl_to(e, GlslStd450Op::InverseSqrt, &a),
        A::Ceil => glsl_to(e, GlslStd450Op::Ceil, &a),
        A::Floor => glsl_to(e, GlslStd450Op::Floor, &a),
        A::Fract => glsl_to(e, GlslStd450Op::Fract, &a),
        A::Trunc => glsl_to(e, GlslStd450Op::Trunc, &a),
        A::Round => {
            // Half away from zero: t = trunc(x); |x - t| >= 0.5 ? t + sign(x) : t.
            let t = e.glsl_op(rt, GlslStd450Op::Trunc, &a);
            let d = e.op(Op::FSub, rt, ids(&[a[0], t]));
            let ad = e.glsl_op(rt, GlslStd450Op::FAbs, &[d]);
            let half = e.const_num(k, n, 0.5);
            let bt = e.vec_ty(ScalarKind::Bool, n);
            let ge = e.op(Op::FOrdGreaterThanEqual, bt, ids(&[ad, half]));
            let sg = e.glsl_op(rt, GlslStd450Op::FSign, &a);
            // Select between t and t + sign(x) (not t + select(.., 0)): -0.0 + 0.0 would
            // lose the sign of a zero result such as round(-0.25) = -0.0.
            let up = e.op(Op::FAdd, rt, ids(&[t, sg]));
            put(e, Op::Select, &[ge, up, t])
        }
        A::Rint => glsl_to(e, GlslStd450Op::RoundEven, &a),
        A::Fma => glsl_to(e, GlslStd450Op::Fma, &a),
        A::Copysign => {
            let ik = match k.size() {
                2 => ScalarKind::U16,
                8 => ScalarKind::U64,
                _ => ScalarKind::U32,
            };
            let it = e.vec_ty(ik, n);
            let sign = 1u64 << (k.size() * 8 - 1);
            let xa = e.op(Op::Bitcast, it, ids(&[a[0]]));
            let xb = e.op(Op::Bitcast, it, ids(&[a[1]]));
            let mm = e.const_bits(ik, n, sign - 1);
            let ms = e.const_bits(ik, n, sign);
            let ma = e.op(Op::BitwiseAnd, it, ids(&[xa, mm]));
            let mb = e.op(Op::BitwiseAnd, it, ids(&[xb, ms]));
            let r = e.op(Op::BitwiseOr, it, ids(&[ma, mb]));
            put(e, Op::Bitcast, &[r])
        }
        // The geometric ops are chains of separately rounded multiplies and adds in
        // element order (docs/semantics.md), not OpDot / GLSL.std.450 Cross, Length,
        // Reflect, …, whose precision Vulkan leaves to the driver (which may fuse).
        A::Cross => {
            let sh = |e: &mut Emitter, v: Word, p: [u32; 3]| {
                let mut ops = vec![Operand::IdRef(v), Operand::IdRef(v)];
                ops.extend(p.map(Operand::LiteralBit32));
                e.op(Op::VectorShuffle, rt, ops)
            };
            let (a1, b1) = (sh(e, a[0], [1, 2, 0]), sh(e, a[1], [2, 0, 1]));
            let (a2, b2) = (sh(e, a[0], [2, 0, 1]), sh(e, a[1], [1, 2, 0]));
            let p1 = e.op(Op::FMul, rt, ids(&[a1, b1]));
            let p2 = e.op(Op::FMul, rt, ids(&[a2, b2]));
            put(e, Op::FSub, &[p1, p2])
        }
        A::Dot if k.is_float() => {
            let d = fdot(e, oty[0], a[0], a[1], k, n);
            e.op_to(Op::CopyObject, rt, id, ids(&[d]))
        }
        A::Dot => {
            let vt = e.logical(oty[0]);
            let p = e.op(Op::IMul, vt, ids(&a));
            reduce(e, rt, id, p, k, n, Op::IAdd)
        }
        A::Length => {
            let d = fdot(e, oty[0], a[0], a[0], k, n);
            glsl_to(e, GlslStd450Op::Sqrt, &[d])
        }
        A::LengthSquared => {
            let d = fdot(e, oty[0], a[0], a[0], k, n);
            e.op_to(Op::CopyObject, rt, id, ids(&[d]))
        }
        A::Normalize => {
            // x / length(x)
            let st = e.scalar_ty(k);
            let d = fdot(e, oty[0], a[0], a[0], k, n);
            let l = e.glsl_op(st, GlslStd450Op::Sqrt, &[d]);
            let lv = e.splat(l, k, 1, n);
            put(e, Op::FDiv, &[a[0], lv])
        }
        A::Faceforward => {
            // dot(r, i) < 0 ? n : -n
            let d = fdot(e, oty[0], a[2], a[1], k, n);
            let z = e.const_num(k, 1, 0.0);
            let bt = e.scalar_ty(ScalarKind::Bool);
            let lt = e.op(Op::FOrdLessThan, bt, ids(&[d, z]));
            let neg = e.op(Op::FNegate, rt, ids(&[a[0]]));
            put(e, Op::Select, &[lt, a[0], neg])
        }
        A::Reflect => {
            // i - 2 * dot(n, i) * n
            let st = e.scalar_ty(k);
            let d = fdot(e, oty[0], a[1], a[0], k, n);
            let two = e.const_num(k, 1, 2.0);
            let t = e.op(Op::FMul, st, ids(&[two, d]));
            let tv = e.splat(t, k, 1, n);
            let u = e.op(Op::FMul, rt, ids(&[tv, a[1]]));
            put(e, Op::FSub, &[a[0], u])
        }
        A::ReduceSum | A::ReduceProduct | A::ReduceMin | A::ReduceMax => {
            let o = match (op, k.is_float()) {
                (A::ReduceSum, true) => Op::FAdd,
                (A::ReduceSum, false) => Op::IAdd,
                (A::ReduceProduct, true) => Op::FMul,
                (A::ReduceProduct, false) => Op::IMul,
                _ => Op::Nop,
            };
            if o == Op::Nop {
                let g = match (op, k.is_float(), k.is_signed_int()) {
                    (A::ReduceMin, true, _) => GlslStd450Op::FMin,
                    (A::ReduceMin, _, true) => GlslStd450Op::SMin,
                    (A::ReduceMin, ..) => GlslStd450Op::UMin,
                    (_, true, _) => GlslStd450Op::FMax,
                    (_, _, true) => GlslStd450Op::SMax,
                    _ => GlslStd450Op::UMax,
                };
                let et = e.scalar_ty(k);
                let mut acc = e.op(
                    Op::CompositeExtract,
                    et,
                    vec![Operand::IdRef(a[0]), Operand::LiteralBit32(0)],
                );
                for j in 1..n as u32 {
                    let x = e.op(
                        Op::CompositeExtract,
                        et,
                        vec![Operand::IdRef(a[0]), Operand::LiteralBit32(j)],
                    );
                    acc = if j + 1 == n as u32 {
                        let set = e.glsl();
                        e.op_to(
                            Op::ExtInst,
                            rt,
                            id,
                            vec![
                                Operand::IdRef(set),
                                Operand::LiteralExtInstInteger(g as u32),
                                Operand::IdRef(acc),
                                Operand::IdRef(x),
                            ],
                        );
                        id
                    } else {
                        e.glsl_op(et, g, &[acc, x])
                    };
                }
                if n == 1 {
                    put(e, Op::CopyObject, &[acc]);
                }
            } else {
                reduce(e, rt, id, a[0], k, n, o)
            }
        }
        A::OuterProduct => {
            if is_mat(oty[0]) {
                return Err(internal("matrix outer_product is outside the dialect"));
            }
            put(e, Op::OuterProduct, &[a[0], a[1]])
        }
        A::MatrixCompNeg
        | A::MatrixCompAdd
        | A::MatrixCompSub
        | A::MatrixCompMul
        | A::MatrixCompDiv => return matrix_componentwise(e, st, i, op),
        A::MatrixLinalgMul => {
            let o = match (is_mat(oty[0]), is_mat(oty[1])) {
                (true, true) => Op::MatrixTimesMatrix,
                (true, false) => Op::MatrixTimesVector,
                _ => Op::VectorTimesMatrix,
            };
            put(e, o, &a)
        }
        A::MatrixDeterminant => glsl_to(e, GlslStd450Op::Determinant, &a),
        A::MatrixTranspose => put(e, Op::Transpose, &a),
        A::MatrixInverse => glsl_to(e, GlslStd450Op::MatrixInverse, &a),
        A::Aggregate => put(e, Op::CompositeConstruct, &a),
        A::Shuffle => match const_indices(m, &inst.operands[1..]) {
            Some(c) => composite_literal_op(e, Op::VectorShuffle, (rt, id), &[a[0], a[0]], c),
            None => {
                let (rk, _) = rshape.unwrap();
                let et = e.scalar_ty(rk);
                let lanes: Vec<Word> = a[1..]
                    .iter()
                    .map(|&ix| e.op(Op::VectorExtractDynamic, et, ids(&[a[0], ix])))
                    .collect();
                put(e, Op::CompositeConstruct, &lanes)
            }
        },
        A::Extract => {
            match const_indices(m, &inst.operands[1..]) {
                Some(c) => composite_literal_op(e, Op::CompositeExtract, (rt, id), &[a[0]], c),
                None if inst.operands.len() == 2 && e.shape(oty[0]).is_some() => {
                    put(e, Op::VectorExtractDynamic, &a)
                }
                None => {
                    // Dynamic index into an array or matrix: through a function variable.
                    let p = spill(e, st, oty[0], a[0]);
                    let q = chain(e, st, oty[0], rtx, p, &inst.operands[1..], &a[1..])?;
                    e.op_to(Op::Load, rt, id, vec![Operand::IdRef(q)])
                }
            }
        }
        A::Insert => match const_indices(m, &inst.operands[2..]) {
            Some(c) => composite_literal_op(e, Op::CompositeInsert, (rt, id), &[a[1], a[0]], c),
            None if inst.operands.len() == 3 && e.shape(oty[0]).is_some() => {
                put(e, Op::VectorInsertDynamic, &[a[0], a[1], a[2]])
            }
            None => {
                let p = spill(e, st, oty[0], a[0]);
                let q = chain(e, st, oty[0], oty[1], p, &inst.operands[2..], &a[2..])?;
                e.op_void(Op::Store, ids(&[q, a[1]]));
                e.op_to(Op::Load, rt, id, vec![Operand::IdRef(p)])
            }
        },
        A::PowInt => return Err(internal("pow_int is outside the dialect")),
    }
    Ok(())
}

fn const_index(m: &xir_ir::Module, v: Value) -> Option<u64> {
    let c = v.as_const()?;
    let k = m.types.scalar_kind(m.constants[c].ty)?;
    match xir_ir::constant::read_scalar(k, &m.constants[c].bytes)? {
        xir_ir::constant::ScalarValue::Int(x) if x >= 0 => Some(x as u64),
        xir_ir::constant::ScalarValue::UInt(x) => Some(x),
        _ => None,
    }
}

fn spill(e: &mut Emitter, st: &mut FnState, t: Type, v: Word) -> Word {
    let lt = e.logical(t);
    let pt = e.ptr_ty(rspirv::spirv::StorageClass::Function, lt);
    let id = e.b.id();
    st.vars.push(rspirv::dr::Instruction::new(
        Op::Variable,
        Some(pt),
        Some(id),
        vec![Operand::StorageClass(rspirv::spirv::StorageClass::Function)],
    ));
    e.op_void(Op::Store, ids(&[id, v]));
    id
}

fn chain(
    e: &mut Emitter,
    st: &FnState,
    mut t: Type,
    leaf: Type,
    p: Word,
    idx: &[Value],
    ids_: &[Word],
) -> R<Word> {
    let m = e.m;
    let mut ops = vec![Operand::IdRef(p)];
    for (v, &w) in idx.iter().zip(ids_) {
        match m.types.get(t).clone() {
            TypeData::Struct { members, .. } => {
                let k = const_index(m, *v).ok_or_else(|| {
                    CodegenError::internal(crate::error::Loc::Func(st.f), "dynamic structure index")
                })?;
                ops.push(Operand::IdRef(e.const_u32(k as u32)));
                t = members[k as usize];
            }
            TypeData::Array { elem, .. } | TypeData::Vector { elem, .. } => {
                ops.push(Operand::IdRef(w));
                t = elem;
            }
            TypeData::Matrix { elem, n } => {
                ops.push(Operand::IdRef(w));
                t = m
                    .types
                    .find(&TypeData::Vector { elem, len: n })
                    .unwrap_or(elem);
            }
            _ => {
                return Err(CodegenError::internal(
                    crate::error::Loc::Func(st.f),
                    "index into a scalar",
                ));
            }
        }
    }
    let lt = e.logical(leaf);
    let pt = e.ptr_ty(rspirv::spirv::StorageClass::Function, lt);
    Ok(e.op(Op::AccessChain, pt, ops))
}

/// Folds the lanes of `v` with `o` into `id`.
/// Float dot product of two `n`-lane vectors of type `vt`: products, then a sum in
/// element order, every step rounded (NoContraction comes with the instructions).
fn fdot(e: &mut Emitter, vt: Type, x: Word, y: Word, k: ScalarKind, n: u8) -> Word {
    let vt = e.logical(vt);
    let et = e.scalar_ty(k);
    let p = e.op(Op::FMul, vt, ids(&[x, y]));
    if n == 1 {
        return p;
    }
    let lane = |e: &mut Emitter, j: u32| {
        e.op(
            Op::CompositeExtract,
            et,
            vec![Operand::IdRef(p), Operand::LiteralBit32(j)],
        )
    };
    let mut acc = lane(e, 0);
    for j in 1..n as u32 {
        let x = lane(e, j);
        acc = e.op(Op::FAdd, et, ids(&[acc, x]));
    }
    acc
}

fn reduce(e: &mut Emitter, rt: Word, id: Word, v: Word, k: ScalarKind, n: u8, o: Op) {
    let et = e.scalar_ty(k);
    if n == 1 {
        e.op_to(Op::CopyObject, rt, id, ids(&[v]));
        return;
    }
    let mut acc = e.op(
        Op::CompositeExtract,
        et,
        vec![Operand::IdRef(v), Operand::LiteralBit32(0)],
    );
    for j in 1..n as u32 {
        let x = e.op(
            Op::CompositeExtract,
            et,
            vec![Operand::IdRef(v), Operand::LiteralBit32(j)],
        );
        if j + 1 == n as u32 {
            e.op_to(o, rt, id, ids(&[acc, x]));
        } else {
            acc = e.op(o, et, ids(&[acc, x]));
        }
    }
}

/// Matrix component-wise ops, column by column (a scalar operand is smeared).
fn matrix_componentwise(e: &mut Emitter, st: &mut FnState, i: InstId, op: ArithmeticOp) -> R<()> {
    let m = e.m;
    let inst = m.func(st.f).inst(i);
    let rtx = inst.ty.unwrap();
    let TypeData::Matrix { elem, n } = *m.types.get(rtx) else {
        return Err(CodegenError::internal(
            st.loc(i),
            "matrix op without a matrix result",
        ));
    };
    let k = m.types.scalar_kind(elem).unwrap();
    let rt = e.logical(rtx);
    let ct = e.vec_ty(k, n);
    let id = st.values[&Value::Inst(i)];
    let mut a = Vec::new();
    for v in &inst.operands {
        let t = m.value_type(st.f, *v).unwrap();
        a.push((
            e_value(e, st, *v)?,
            matches!(m.types.get(t), TypeData::Matrix { .. }),
        ));
    }
    use ArithmeticOp as A;
    let o = match op {
        A::MatrixCompNeg => Op::FNegate,
        A::MatrixCompAdd | A::BinaryAdd => Op::FAdd,
        A::MatrixCompSub | A::BinarySub => Op::FSub,
        A::MatrixCompMul | A::BinaryMul => Op::FMul,
        _ => Op::FDiv,
    };
    let mut cols = Vec::new();
    for c in 0..n as u32 {
        let lanes: Vec<Word> = a
            .iter()
            .map(|&(v, is_m)| {
                if is_m {
                    e.op(
                        Op::CompositeExtract,
                        ct,
                        vec![Operand::IdRef(v), Operand::LiteralBit32(c)],
                    )
                } else {
                    e.op(
                        Op::CompositeConstruct,
                        ct,
                        vec![Operand::IdRef(v); n as usize],
                    )
                }
            })
            .collect();
        cols.push(e.op(o, ct, ids(&lanes)));
    }
    e.op_to(Op::CompositeConstruct, rt, id, ids(&cols));
    Ok(())
}

/// Emits a cast.
pub(crate) fn emit_cast(e: &mut Emitter, st: &mut FnState, i: InstId, op: CastOp) -> R<()> {
    let m = e.m;
    let inst = m.func(st.f).inst(i);
    let rtx = inst.ty.unwrap();
    let src = inst.operands[0];
    let stx = m.value_type(st.f, src).unwrap();
    let x = e_value(e, st, src)?;
    let rt = e.logical(rtx);
    let id = st.values[&Value::Inst(i)];
    if op == CastOp::BitwiseCast {
        if e.shape(rtx).is_none() || e.shape(stx).is_none() {
            return Err(CodegenError::internal(
                st.loc(i),
                "aggregate bitwise_cast is outside the dialect",
            ));
        }
        e.op_to(
            if rtx == stx {
                Op::CopyObject
            } else {
                Op::Bitcast
            },
            rt,
            id,
            ids(&[x]),
        );
        return Ok(());
    }
    let ((fk, n), (tk, _)) = match (e.shape(stx), e.shape(rtx)) {
        (Some(a), Some(b)) => (a, b),
        _ => {
            return Err(CodegenError::internal(
                st.loc(i),
                "static_cast of a non-numeric shape",
            ));
        }
    };
    if fk == tk {
        e.op_to(Op::CopyObject, rt, id, ids(&[x]));
        return Ok(());
    }
    let b = ScalarKind::Bool;
    if fk == b {
        let one = e.const_num(tk, n, 1.0);
        let zero = e.const_num(tk, n, 0.0);
        e.op_to(Op::Select, rt, id, ids(&[x, one, zero]));
    } else if tk == b {
        let zero = e.const_num(fk, n, 0.0);
        e.op_to(
            if fk.is_float() {
                Op::FUnordNotEqual
            } else {
                Op::INotEqual
            },
            rt,
            id,
            ids(&[x, zero]),
        );
    } else if fk.is_float() && tk.is_float() {
        e.op_to(Op::FConvert, rt, id, ids(&[x]));
    } else if fk.is_float() {
        e.op_to(
            if tk.is_signed_int() {
                Op::ConvertFToS
            } else {
                Op::ConvertFToU
            },
            rt,
            id,
            ids(&[x]),
        );
    } else if tk.is_float() {
        e.op_to(
            if fk.is_signed_int() {
                Op::ConvertSToF
            } else {
                Op::ConvertUToF
            },
            rt,
            id,
            ids(&[x]),
        );
    } else {
        // Integer to integer: extend or truncate in the source's signedness, then
        // reinterpret.
        let same_sign = fk.is_signed_int() == tk.is_signed_int();
        if fk.size() == tk.size() {
            e.op_to(Op::Bitcast, rt, id, ids(&[x]));
        } else {
            let mid_k = int_kind(tk.size(), fk.is_signed_int());
            let mid = e.vec_ty(mid_k, n);
            let o = if fk.is_signed_int() {
                Op::SConvert
            } else {
                Op::UConvert
            };
            if same_sign {
                e.op_to(o, rt, id, ids(&[x]));
            } else {
                let y = e.op(o, mid, ids(&[x]));
                e.op_to(Op::Bitcast, rt, id, ids(&[y]));
            }
        }
    }
    Ok(())
}

fn int_kind(size: u64, signed: bool) -> ScalarKind {
    match (size, signed) {
        (1, true) => ScalarKind::I8,
        (1, false) => ScalarKind::U8,
        (2, true) => ScalarKind::I16,
        (2, false) => ScalarKind::U16,
        (8, true) => ScalarKind::I64,
        (8, false) => ScalarKind::U64,
        (_, true) => ScalarKind::I32,
        _ => ScalarKind::U32,
    }
}

/// The operands as constant `u32` indices, if every one is a constant.
fn const_indices(m: &xir_ir::Module, vs: &[Value]) -> Option<Vec<u32>> {
    vs.iter()
        .map(|v| const_index(m, *v).map(|x| x as u32))
        .collect()
}

/// A composite instruction with id operands followed by literal indices.
fn composite_literal_op(
    e: &mut Emitter,
    op: Op,
    (rt, id): (Word, Word),
    ids: &[Word],
    lits: Vec<u32>,
) {
    let mut ops = super::ids(ids);
    ops.extend(lits.into_iter().map(Operand::LiteralBit32));
    e.op_to(op, rt, id, ops)
}
