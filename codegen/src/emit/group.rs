//! Special registers (Vulkan builtins where they exist; `dispatch_size` and `kernel_id`
//! from the argument block; `block_size` from the kernel's LocalSize), the block barrier
//! and subgroup (warp) operations.

use super::cfg::{FnState, e_value};
use super::{Emitter, R};
use rspirv::dr::Operand;
use rspirv::spirv::{BuiltIn, Capability, GroupOperation, Op, StorageClass, Word};
use xir_ir::op::ThreadGroupOp;
use xir_ir::{InstId, ScalarKind, SpecialRegister, Value};

/// Loads member `member` (of SPIR-V type `ty`) of the argument block.
pub(crate) fn load_arg_block_member(e: &mut Emitter, member: u32, ty: Word) -> Word {
    let pt = e.ptr_ty(StorageClass::StorageBuffer, ty);
    let c = e.const_u32(member);
    let p = e.op(
        Op::AccessChain,
        pt,
        vec![Operand::IdRef(e.arg_block), Operand::IdRef(c)],
    );
    e.op(Op::Load, ty, vec![Operand::IdRef(p)])
}

/// The value of a special register at this point.
pub(crate) fn special(e: &mut Emitter, st: &mut FnState, r: SpecialRegister) -> R<Word> {
    let u3 = e.vec_ty(ScalarKind::U32, 3);
    let u1 = e.u32_ty();
    let builtin = |e: &mut Emitter, bi: BuiltIn, ty: Word| {
        let v = e.builtin_var(bi, ty);
        e.op(Op::Load, ty, vec![Operand::IdRef(v)])
    };
    Ok(match r {
        SpecialRegister::ThreadId => builtin(e, BuiltIn::LocalInvocationId, u3),
        SpecialRegister::BlockId => builtin(e, BuiltIn::WorkgroupId, u3),
        SpecialRegister::DispatchId => builtin(e, BuiltIn::GlobalInvocationId, u3),
        SpecialRegister::WarpLaneId => {
            e.cap(Capability::GroupNonUniform);
            builtin(e, BuiltIn::SubgroupLocalInvocationId, u1)
        }
        SpecialRegister::WarpSize => {
            e.cap(Capability::GroupNonUniform);
            builtin(e, BuiltIn::SubgroupSize, u1)
        }
        SpecialRegister::BlockSize => {
            let [x, y, z] = e.block_size;
            let parts = vec![e.const_u32(x), e.const_u32(y), e.const_u32(z)];
            e.composite_const(u3, parts)
        }
        SpecialRegister::DispatchSize => load_arg_block_member(e, e.dispatch_size_member, u3),
        SpecialRegister::KernelId => load_arg_block_member(e, e.kernel_id_member, u1),
        _ => {
            return Err(crate::error::CodegenError::internal(
                crate::error::Loc::Func(st.f),
                format!(
                    "special register {} has no compute-kernel lowering",
                    r.name()
                ),
            ));
        }
    })
}

/// Emits a thread-group op.
pub(crate) fn emit_group(e: &mut Emitter, st: &mut FnState, i: InstId, op: ThreadGroupOp) -> R<()> {
    let m = e.m;
    let inst = m.func(st.f).inst(i);
    let sub = e.const_u32(3); // Subgroup scope
    let id = st.values.get(&Value::Inst(i)).copied();
    let rt = inst.ty.map(|t| e.logical(t));
    let k = inst.ty.and_then(|t| m.types.scalar_or_vector_elem(t));
    let arg_k = inst
        .operands
        .first()
        .and_then(|v| m.value_type(st.f, *v))
        .and_then(|t| m.types.scalar_or_vector_elem(t));
    let mut args = Vec::new();
    for v in &inst.operands {
        args.push(e_value(e, st, *v)?);
    }
    use ThreadGroupOp as T;
    let g = |e: &mut Emitter, c: Capability| {
        e.cap(Capability::GroupNonUniform);
        e.cap(c);
    };
    let reduce = |e: &mut Emitter, opi: Op, go: GroupOperation, x: Word| {
        e.op_to(
            opi,
            rt.unwrap(),
            id.unwrap(),
            vec![
                Operand::IdRef(sub),
                Operand::GroupOperation(go),
                Operand::IdRef(x),
            ],
        );
    };
    let arith_op = |k: ScalarKind, f: Op, s: Op, u: Op| {
        if k.is_float() {
            f
        } else if k.is_signed_int() {
            s
        } else {
            u
        }
    };
    match op {
        T::SynchronizeBlock => {
            let wg = e.const_u32(2);
            let sem = e.const_u32(0x8 | 0x100); // AcquireRelease | WorkgroupMemory
            e.op_void(
                Op::ControlBarrier,
                vec![Operand::IdRef(wg), Operand::IdRef(wg), Operand::IdRef(sem)],
            );
        }
        T::ShaderExecutionReorder => {}
        T::WarpIsFirstActiveLane => {
            g(e, Capability::GroupNonUniform);
            e.op_to(
                Op::GroupNonUniformElect,
                rt.unwrap(),
                id.unwrap(),
                vec![Operand::IdRef(sub)],
            );
        }
        T::WarpFirstActiveLane
        | T::WarpActiveBitMask
        | T::WarpActiveCountBits
        | T::WarpPrefixCountBits => {
            g(e, Capability::GroupNonUniformBallot);
            let u4 = e.vec_ty(ScalarKind::U32, 4);
            let pred = match op {
                T::WarpFirstActiveLane => e.const_bool(true),
                _ => args[0],
            };
            let ballot = e.op(
                Op::GroupNonUniformBallot,
                u4,
                vec![Operand::IdRef(sub), Operand::IdRef(pred)],
            );
            match op {
                T::WarpActiveBitMask => e.op_to(
                    Op::CopyObject,
                    u4,
                    id.unwrap(),
                    vec![Operand::IdRef(ballot)],
                ),
                T::WarpFirstActiveLane => e.op_to(
                    Op::GroupNonUniformBallotFindLSB,
                    rt.unwrap(),
                    id.unwrap(),
                    vec![Operand::IdRef(sub), Operand::IdRef(ballot)],
                ),
                T::WarpActiveCountBits => reduce(
                    e,
                    Op::GroupNonUniformBallotBitCount,
                    GroupOperation::Reduce,
                    ballot,
                ),
                _ => reduce(
                    e,
                    Op::GroupNonUniformBallotBitCount,
                    GroupOperation::ExclusiveScan,
                    ballot,
                ),
            }
        }
        T::WarpActiveAll | T::WarpActiveAny => {
            g(e, Capability::GroupNonUniformVote);
            let o = if op == T::WarpActiveAll {
                Op::GroupNonUniformAll
            } else {
                Op::GroupNonUniformAny
            };
            e.op_to(
                o,
                rt.unwrap(),
                id.unwrap(),
                vec![Operand::IdRef(sub), Operand::IdRef(args[0])],
            );
        }
        T::WarpActiveAllEqual => {
            g(e, Capability::GroupNonUniformVote);
            let t = m.value_type(st.f, inst.operands[0]).unwrap();
            let n = m.types.dimension(t).unwrap_or(1);
            if n == 1 {
                e.op_to(
                    Op::GroupNonUniformAllEqual,
                    rt.unwrap(),
                    id.unwrap(),
                    vec![Operand::IdRef(sub), Operand::IdRef(args[0])],
                );
            } else {
                let ek = arg_k.unwrap();
                let et = e.scalar_ty(ek);
                let bt = e.bool_ty();
                let mut lanes = Vec::new();
                for j in 0..n as u32 {
                    let x = e.op(
                        Op::CompositeExtract,
                        et,
                        vec![Operand::IdRef(args[0]), Operand::LiteralBit32(j)],
                    );
                    lanes.push(Operand::IdRef(e.op(
                        Op::GroupNonUniformAllEqual,
                        bt,
                        vec![Operand::IdRef(sub), Operand::IdRef(x)],
                    )));
                }
                e.op_to(Op::CompositeConstruct, rt.unwrap(), id.unwrap(), lanes);
            }
        }
        T::WarpActiveBitAnd | T::WarpActiveBitOr | T::WarpActiveBitXor => {
            g(e, Capability::GroupNonUniformArithmetic);
            let o = match op {
                T::WarpActiveBitAnd => Op::GroupNonUniformBitwiseAnd,
                T::WarpActiveBitOr => Op::GroupNonUniformBitwiseOr,
                _ => Op::GroupNonUniformBitwiseXor,
            };
            reduce(e, o, GroupOperation::Reduce, args[0]);
        }
        T::WarpActiveMax
        | T::WarpActiveMin
        | T::WarpActiveProduct
        | T::WarpActiveSum
        | T::WarpPrefixSum
        | T::WarpPrefixProduct => {
            g(e, Capability::GroupNonUniformArithmetic);
            let k = k.unwrap();
            let (o, go) = match op {
                T::WarpActiveMax => (
                    arith_op(
                        k,
                        Op::GroupNonUniformFMax,
                        Op::GroupNonUniformSMax,
                        Op::GroupNonUniformUMax,
                    ),
                    GroupOperation::Reduce,
                ),
                T::WarpActiveMin => (
                    arith_op(
                        k,
                        Op::GroupNonUniformFMin,
                        Op::GroupNonUniformSMin,
                        Op::GroupNonUniformUMin,
                    ),
                    GroupOperation::Reduce,
                ),
                T::WarpActiveProduct => (
                    arith_op(
                        k,
                        Op::GroupNonUniformFMul,
                        Op::GroupNonUniformIMul,
                        Op::GroupNonUniformIMul,
                    ),
                    GroupOperation::Reduce,
                ),
                T::WarpActiveSum => (
                    arith_op(
                        k,
                        Op::GroupNonUniformFAdd,
                        Op::GroupNonUniformIAdd,
                        Op::GroupNonUniformIAdd,
                    ),
                    GroupOperation::Reduce,
                ),
                T::WarpPrefixSum => (
                    arith_op(
                        k,
                        Op::GroupNonUniformFAdd,
                        Op::GroupNonUniformIAdd,
                        Op::GroupNonUniformIAdd,
                    ),
                    GroupOperation::ExclusiveScan,
                ),
                _ => (
                    arith_op(
                        k,
                        Op::GroupNonUniformFMul,
                        Op::GroupNonUniformIMul,
                        Op::GroupNonUniformIMul,
                    ),
                    GroupOperation::ExclusiveScan,
                ),
            };
            reduce(e, o, go, args[0]);
        }
        T::WarpReadLane => {
            g(e, Capability::GroupNonUniformShuffle);
            e.op_to(
                Op::GroupNonUniformShuffle,
                rt.unwrap(),
                id.unwrap(),
                vec![
                    Operand::IdRef(sub),
                    Operand::IdRef(args[0]),
                    Operand::IdRef(args[1]),
                ],
            );
        }
        T::WarpReadFirstActiveLane => {
            g(e, Capability::GroupNonUniformBallot);
            e.op_to(
                Op::GroupNonUniformBroadcastFirst,
                rt.unwrap(),
                id.unwrap(),
                vec![Operand::IdRef(sub), Operand::IdRef(args[0])],
            );
        }
        _ => {
            return Err(crate::error::CodegenError::internal(
                st.loc(i),
                "raster thread-group op reached emission",
            ));
        }
    }
    Ok(())
}
