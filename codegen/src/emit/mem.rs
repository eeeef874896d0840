//! Memory: locals and shared allocas, loads/stores, GEP via the aggregate-index plan
//! (struct indices canonicalised to u32 constants), typed-SSBO buffer reads/writes/size,
//! atomics (Relaxed; Device scope for buffers, Workgroup scope for shared memory), calls.
//! Also the per-instruction dispatch for every non-terminator.

use super::cfg::{FnState, e_value};
use super::words::Addr;
use super::{BufferVar, Emitter, R};
use crate::error::CodegenError;
use crate::plan::BufferRepr;
use rspirv::dr::Operand;
use rspirv::spirv::{Capability, MemoryAccess, Op, StorageClass, Word};
use xir_ir::op::{AtomicOp, ResourceQueryOp, ResourceReadOp, ResourceWriteOp};
use xir_ir::types::TypeData;
use xir_ir::{InstId, InstKind, ScalarKind, Type, Value};

/// Emits one non-terminator, non-phi instruction.
pub(crate) fn emit_inst(e: &mut Emitter, st: &mut FnState, i: InstId) -> R<()> {
    let m = e.m;
    let inst = m.func(st.f).inst(i);
    match &inst.kind {
        InstKind::Alloca(op) => super::cfg::declare_alloca(e, st, i, *op),
        InstKind::Load => {
            let p = e_value(e, st, inst.operands[0])?;
            let t = e.logical(inst.ty.unwrap());
            let id = st.values[&Value::Inst(i)];
            e.op_to(Op::Load, t, id, vec![Operand::IdRef(p)]);
            Ok(())
        }
        InstKind::Store => {
            let p = e_value(e, st, inst.operands[0])?;
            let v = e_value(e, st, inst.operands[1])?;
            e.op_void(Op::Store, vec![Operand::IdRef(p), Operand::IdRef(v)]);
            Ok(())
        }
        InstKind::Gep => {
            let base = inst.operands[0];
            let sc = *st.ptr_class.get(&base).ok_or_else(|| {
                CodegenError::internal(st.loc(i), "getelementptr base is not a planned pointer")
            })?;
            let p = e_value(e, st, base)?;
            let base_ty = m.value_type(st.f, base).expect("typed base");
            let idx = aggregate_indices(e, st, base_ty, &inst.operands[1..])?;
            let t = e.logical(inst.ty.unwrap());
            let pt = e.ptr_ty(sc, t);
            let mut ops = vec![Operand::IdRef(p)];
            ops.extend(idx.into_iter().map(Operand::IdRef));
            let id = st.values[&Value::Inst(i)];
            e.op_to(Op::AccessChain, pt, id, ops);
            st.ptr_class.insert(Value::Inst(i), sc);
            Ok(())
        }
        InstKind::Call => {
            let callee = inst.operands[0].as_func().expect("callee");
            let cf = m.func(callee);
            let mut ops = vec![Operand::IdRef(e.func_ids[&callee])];
            for (k, v) in inst.operands[1..].iter().enumerate() {
                if cf
                    .arg_order
                    .get(k)
                    .is_some_and(|a| cf.args[*a].kind == xir_ir::ArgKind::Resource)
                {
                    continue;
                }
                ops.push(Operand::IdRef(e_value(e, st, *v)?));
            }
            let rt = match inst.ty {
                Some(t) => e.logical(t),
                None => e.void_ty(),
            };
            let id = match st.values.get(&Value::Inst(i)) {
                Some(&id) => id,
                None => e.b.id(),
            };
            e.op_to(Op::FunctionCall, rt, id, ops);
            Ok(())
        }
        InstKind::ResourceRead(op, _) => {
            let volatile = matches!(
                op,
                ResourceReadOp::BufferVolatileRead | ResourceReadOp::ByteBufferVolatileRead
            );
            if let Some((var, a)) = word_addr(e, st, i)? {
                if volatile {
                    device_fence(e);
                }
                let t = inst.ty.expect("a read has a type");
                let v = e.word_load(var, t, a, volatile);
                let id = st.values[&Value::Inst(i)];
                let lt = e.logical(t);
                e.op_to(Op::CopyObject, lt, id, vec![Operand::IdRef(v)]);
                return Ok(());
            }
            let (p, elem) = buffer_ptr(e, st, i)?;
            let laid = e.laid(elem);
            let mut ops = vec![Operand::IdRef(p)];
            if volatile {
                device_fence(e);
                ops.push(Operand::MemoryAccess(MemoryAccess::VOLATILE));
            }
            let id = st.values[&Value::Inst(i)];
            if e.needs_layout(elem) {
                let v = e.op(Op::Load, laid, ops);
                let t = e.logical(elem);
                e.op_to(Op::CopyLogical, t, id, vec![Operand::IdRef(v)]);
            } else {
                e.op_to(Op::Load, laid, id, ops);
            }
            Ok(())
        }
        InstKind::ResourceWrite(op, _) => {
            let volatile = matches!(
                op,
                ResourceWriteOp::BufferVolatileWrite | ResourceWriteOp::ByteBufferVolatileWrite
            );
            if let Some((var, a)) = word_addr(e, st, i)? {
                let t = m.value_type(st.f, inst.operands[2]).expect("typed value");
                let v = e_value(e, st, inst.operands[2])?;
                e.word_store(var, t, a, v, volatile);
                if volatile {
                    device_fence(e);
                }
                return Ok(());
            }
            let (p, elem) = buffer_ptr(e, st, i)?;
            let mut v = e_value(e, st, inst.operands[2])?;
            if e.needs_layout(elem) {
                let laid = e.laid(elem);
                v = e.op(Op::CopyLogical, laid, vec![Operand::IdRef(v)]);
            }
            let mut ops = vec![Operand::IdRef(p), Operand::IdRef(v)];
            if volatile {
                ops.push(Operand::MemoryAccess(MemoryAccess::VOLATILE));
            }
            e.op_void(Op::Store, ops);
            if volatile {
                device_fence(e);
            }
            Ok(())
        }
        InstKind::ResourceQuery(
            ResourceQueryOp::BufferSize | ResourceQueryOp::ByteBufferSize,
            _,
        ) => {
            let a = inst.operands[0].as_arg().ok_or_else(|| {
                CodegenError::internal(st.loc(i), "buffer_size of a non-argument")
            })?;
            let bv = e.buffers.get(&a).cloned().ok_or_else(|| {
                CodegenError::internal(st.loc(i), "buffer argument without a descriptor")
            })?;
            let var = bv.var;
            let u = e.u32_ty();
            let id = st.values[&Value::Inst(i)];
            let rt = inst.ty.unwrap();
            if bv.repr == BufferRepr::Words {
                // Bytes = 4 × words; elements = bytes / stride, exact only when the
                // stride is a whole number of words (the runtime binds whole words).
                let stride = bv.elem.map_or(1, |t| m.types.size_of(t));
                if stride % 4 != 0 && bv.elem.is_some() {
                    return Err(CodegenError::user(vec![crate::error::Located::new(
                        st.loc(i),
                        format!(
                            "buffer_size of a word-storage buffer with a {stride}-byte stride: the element count is not recoverable from the bound word count"
                        ),
                    )]));
                }
                let n = e.op(
                    Op::ArrayLength,
                    u,
                    vec![Operand::IdRef(var), Operand::LiteralBit32(0)],
                );
                let n = if stride == 4 {
                    n
                } else if stride % 4 == 0 {
                    let c = e.const_u32((stride / 4) as u32);
                    e.op(Op::UDiv, u, vec![Operand::IdRef(n), Operand::IdRef(c)])
                } else {
                    let c = e.const_u32(4);
                    e.op(Op::IMul, u, vec![Operand::IdRef(n), Operand::IdRef(c)])
                };
                let t = e.logical(rt);
                let op = if m.types.scalar_kind(rt) == Some(ScalarKind::U32) {
                    Op::CopyObject
                } else {
                    Op::UConvert
                };
                e.op_to(op, t, id, vec![Operand::IdRef(n)]);
                return Ok(());
            }
            if m.types.scalar_kind(rt) == Some(ScalarKind::U32) {
                e.op_to(
                    Op::ArrayLength,
                    u,
                    id,
                    vec![Operand::IdRef(var), Operand::LiteralBit32(0)],
                );
            } else {
                let n = e.op(
                    Op::ArrayLength,
                    u,
                    vec![Operand::IdRef(var), Operand::LiteralBit32(0)],
                );
                let t = e.logical(rt);
                e.op_to(Op::UConvert, t, id, vec![Operand::IdRef(n)]);
            }
            Ok(())
        }
        InstKind::Atomic(op) => emit_atomic(e, st, i, *op),
        InstKind::Arithmetic(op) => super::arith::emit_arith(e, st, i, *op),
        InstKind::Cast(op) => super::arith::emit_cast(e, st, i, *op),
        InstKind::ThreadGroup(op) => super::group::emit_group(e, st, i, *op),
        InstKind::Assume { .. } => Ok(()),
        _ => Err(CodegenError::internal(
            st.loc(i),
            "instruction outside the dialect reached emission",
        )),
    }
}

/// The matching device fence of a volatile access.
fn device_fence(e: &mut Emitter) {
    let scope = e.const_u32(1); // Device
    let sem = e.const_u32(0x8 | 0x40); // AcquireRelease | UniformMemory
    e.op_void(
        Op::MemoryBarrier,
        vec![Operand::IdRef(scope), Operand::IdRef(sem)],
    );
}

/// Index ids of an access walk into `base_ty` (struct indices as u32 constants).
fn aggregate_indices(
    e: &mut Emitter,
    st: &mut FnState,
    mut ty: Type,
    idx: &[Value],
) -> R<Vec<Word>> {
    let m = e.m;
    let mut out = Vec::new();
    for &v in idx {
        match m.types.get(ty).clone() {
            TypeData::Struct { members, .. } => {
                let (k, mt) = struct_member(m, st, &members, v)?;
                out.push(e.const_u32(k as u32));
                ty = mt;
            }
            TypeData::Array { elem, .. } | TypeData::Vector { elem, .. } => {
                out.push(e_value(e, st, v)?);
                ty = elem;
            }
            TypeData::Matrix { elem, n } => {
                out.push(e_value(e, st, v)?);
                ty = matrix_column(m, elem, n);
            }
            _ => return Err(index_into_scalar(st)),
        }
    }
    Ok(out)
}

/// The column vector type of an `n`-column matrix of `elem`.
fn matrix_column(m: &xir_ir::Module, elem: Type, n: u8) -> Type {
    m.types
        .find(&TypeData::Vector { elem, len: n })
        .unwrap_or(elem)
}

fn index_into_scalar(st: &FnState) -> CodegenError {
    CodegenError::internal(xir_ir_loc(st), "index into a scalar")
}

fn xir_ir_loc(st: &FnState) -> crate::error::Loc {
    crate::error::Loc::Func(st.f)
}

/// The descriptor of the buffer operand of `i` (operands `[buffer, …]`).
fn buffer_of(e: &Emitter, st: &FnState, i: InstId) -> R<BufferVar> {
    let inst = e.m.func(st.f).inst(i);
    let a = inst.operands[0].as_arg().ok_or_else(|| {
        CodegenError::internal(st.loc(i), "buffer operand is not a kernel argument")
    })?;
    e.buffers
        .get(&a)
        .cloned()
        .ok_or_else(|| CodegenError::internal(st.loc(i), "buffer argument without a descriptor"))
}

/// For a read or write (operands `[buffer, index or byte offset, …]`) of a word-storage
/// buffer: the word array and the byte address; `None` for a typed buffer.
fn word_addr(e: &mut Emitter, st: &mut FnState, i: InstId) -> R<Option<(Word, Addr)>> {
    let bv = buffer_of(e, st, i)?;
    if bv.repr != BufferRepr::Words {
        return Ok(None);
    }
    let inst = e.m.func(st.f).inst(i);
    let x = inst.operands[1];
    let k =
        e.m.value_type(st.f, x)
            .and_then(|t| e.m.types.scalar_kind(t))
            .ok_or_else(|| CodegenError::internal(st.loc(i), "buffer index is not a scalar"))?;
    let xv = e_value(e, st, x)?;
    let x32 = e.index_as_u32(xv, k);
    Ok(Some((
        bv.var,
        match bv.elem {
            None => Addr { id: x32, align: 1 },
            Some(t) => {
                let stride = e.m.types.size_of(t);
                e.addr_scaled(x32, stride)
            }
        },
    )))
}

/// Pointer to a typed buffer element (operands `[buffer, index, …]`), and the element type.
fn buffer_ptr(e: &mut Emitter, st: &mut FnState, i: InstId) -> R<(Word, Type)> {
    let bv = buffer_of(e, st, i)?;
    let elem = bv
        .elem
        .ok_or_else(|| CodegenError::internal(st.loc(i), "byte buffer without word storage"))?;
    let inst = e.m.func(st.f).inst(i);
    let idx = e_value(e, st, inst.operands[1])?;
    let laid = e.laid(elem);
    let pt = e.ptr_ty(StorageClass::StorageBuffer, laid);
    let zero = e.const_u32(0);
    let mut ops = vec![
        Operand::IdRef(bv.var),
        Operand::IdRef(zero),
        Operand::IdRef(idx),
    ];
    if bv.wrapped {
        ops.push(Operand::IdRef(zero));
    }
    Ok((e.op(Op::AccessChain, pt, ops), elem))
}

/// The byte address of an atomic's access walk `[index, path…]` into a word-storage
/// buffer whose element type is `elem`.
fn word_walk(e: &mut Emitter, st: &mut FnState, elem: Type, idx: &[Value]) -> R<Addr> {
    let m = e.m;
    let index_u32 = |e: &mut Emitter, st: &mut FnState, v: Value| -> R<Word> {
        let k = m
            .value_type(st.f, v)
            .and_then(|t| m.types.scalar_kind(t))
            .ok_or_else(|| CodegenError::internal(xir_ir_loc(st), "index is not a scalar"))?;
        let x = e_value(e, st, v)?;
        Ok(e.index_as_u32(x, k))
    };
    let first = index_u32(e, st, idx[0])?;
    let mut a = e.addr_scaled(first, m.types.size_of(elem));
    let mut ty = elem;
    for &v in &idx[1..] {
        match m.types.get(ty).clone() {
            TypeData::Struct { members, .. } => {
                let (k, mt) = struct_member(m, st, &members, v)?;
                let off = m.types.struct_offsets(ty)[k];
                a = e.addr_plus(a, off);
                ty = mt;
            }
            TypeData::Array { elem, .. } | TypeData::Vector { elem, .. } => {
                let x = index_u32(e, st, v)?;
                a = e.addr_index(a, x, m.types.size_of(elem));
                ty = elem;
            }
            TypeData::Matrix { elem, n } => {
                let x = index_u32(e, st, v)?;
                let (col, _) = xir_ir::types::vector_layout(m.types.size_of(elem), n);
                a = e.addr_index(a, x, col);
                ty = matrix_column(m, elem, n);
            }
            _ => return Err(index_into_scalar(st)),
        }
    }
    Ok(a)
}

/// The member number and type a constant structure index selects.
fn struct_member(m: &xir_ir::Module, st: &FnState, members: &[Type], v: Value) -> R<(usize, Type)> {
    let k = struct_index(m, st, v)?;
    match members.get(k) {
        Some(&mt) => Ok((k, mt)),
        None => Err(CodegenError::internal(
            xir_ir_loc(st),
            "structure index out of range",
        )),
    }
}

/// The member number of a constant structure index.
fn struct_index(m: &xir_ir::Module, st: &FnState, v: Value) -> R<usize> {
    let c = v.as_const().and_then(|c| {
        xir_ir::constant::read_scalar(
            m.types.scalar_kind(m.constants[c].ty)?,
            &m.constants[c].bytes,
        )
    });
    match c {
        Some(xir_ir::constant::ScalarValue::Int(k)) if k >= 0 => Ok(k as usize),
        Some(xir_ir::constant::ScalarValue::UInt(k)) => Ok(k as usize),
        _ => Err(CodegenError::internal(
            xir_ir_loc(st),
            "structure index is not a constant",
        )),
    }
}

fn emit_atomic(e: &mut Emitter, st: &mut FnState, i: InstId, op: AtomicOp) -> R<()> {
    let m = e.m;
    let inst = m.func(st.f).inst(i);
    let nvals = if op == AtomicOp::CompareExchange {
        2
    } else {
        1
    };
    let n = inst.operands.len();
    let idx = &inst.operands[1..n - nvals];
    let rt = inst.ty.unwrap();
    let k = m.types.scalar_kind(rt).expect("scalar atomic");
    let t = e.logical(rt);
    let base = inst.operands[0];
    let (ptr, scope) = match base {
        Value::Arg(a) => {
            let bv = e.buffers.get(&a).cloned().ok_or_else(|| {
                CodegenError::internal(st.loc(i), "atomic on a buffer without a descriptor")
            })?;
            let elem = bv.elem.ok_or_else(|| {
                CodegenError::internal(st.loc(i), "atomic on a byte buffer reached emission")
            })?;
            if bv.repr == BufferRepr::Words {
                let addr = word_walk(e, st, elem, idx)?;
                let mut vals = Vec::new();
                for &v in &inst.operands[n - nvals..] {
                    vals.push(e_value(e, st, v)?);
                }
                let id = st.values[&Value::Inst(i)];
                return super::words::word_atomic(e, st, (i, id), (op, k), (bv.var, addr), &vals);
            }
            let first = e_value(e, st, idx[0])?;
            let zero = e.const_u32(0);
            let mut ops = vec![
                Operand::IdRef(bv.var),
                Operand::IdRef(zero),
                Operand::IdRef(first),
            ];
            if bv.wrapped {
                ops.push(Operand::IdRef(zero));
            }
            let rest = aggregate_indices(e, st, elem, &idx[1..])?;
            ops.extend(rest.into_iter().map(Operand::IdRef));
            let pt = e.ptr_ty(StorageClass::StorageBuffer, t);
            (e.op(Op::AccessChain, pt, ops), 1u32)
        }
        _ => {
            let p = e_value(e, st, base)?;
            let bt = m.value_type(st.f, base).expect("typed base");
            let ix = aggregate_indices(e, st, bt, idx)?;
            let pt = e.ptr_ty(StorageClass::Workgroup, t);
            let mut ops = vec![Operand::IdRef(p)];
            ops.extend(ix.into_iter().map(Operand::IdRef));
            (
                if ops.len() == 1 {
                    p
                } else {
                    e.op(Op::AccessChain, pt, ops)
                },
                2u32,
            )
        }
    };
    if k.size() == 8 && k.is_int() {
        e.cap(Capability::Int64Atomics);
    }
    let scope = e.const_u32(scope);
    let relaxed = e.const_u32(0);
    let v = e_value(e, st, inst.operands[n - nvals])?;
    let id = st.values[&Value::Inst(i)];
    let base_ops = |x: Word| {
        vec![
            Operand::IdRef(ptr),
            Operand::IdRef(scope),
            Operand::IdRef(relaxed),
            Operand::IdRef(x),
        ]
    };
    let float = k.is_float();
    let float_add = |e: &mut Emitter| {
        e.ext("SPV_EXT_shader_atomic_float_add");
        e.cap(if k == ScalarKind::F64 {
            Capability::AtomicFloat64AddEXT
        } else {
            Capability::AtomicFloat32AddEXT
        });
    };
    let float_minmax = |e: &mut Emitter| {
        e.ext("SPV_EXT_shader_atomic_float_min_max");
        e.cap(if k == ScalarKind::F64 {
            Capability::AtomicFloat64MinMaxEXT
        } else {
            Capability::AtomicFloat32MinMaxEXT
        });
    };
    match op {
        AtomicOp::Exchange => e.op_to(Op::AtomicExchange, t, id, base_ops(v)),
        AtomicOp::CompareExchange => {
            let desired = e_value(e, st, inst.operands[n - 1])?;
            e.op_to(
                Op::AtomicCompareExchange,
                t,
                id,
                vec![
                    Operand::IdRef(ptr),
                    Operand::IdRef(scope),
                    Operand::IdRef(relaxed),
                    Operand::IdRef(relaxed),
                    Operand::IdRef(desired),
                    Operand::IdRef(v),
                ],
            );
        }
        AtomicOp::FetchAdd if float => {
            float_add(e);
            e.op_to(Op::AtomicFAddEXT, t, id, base_ops(v));
        }
        AtomicOp::FetchSub if float => {
            float_add(e);
            let neg = e.op(Op::FNegate, t, vec![Operand::IdRef(v)]);
            e.op_to(Op::AtomicFAddEXT, t, id, base_ops(neg));
        }
        AtomicOp::FetchMin if float => {
            float_minmax(e);
            e.op_to(Op::AtomicFMinEXT, t, id, base_ops(v));
        }
        AtomicOp::FetchMax if float => {
            float_minmax(e);
            e.op_to(Op::AtomicFMaxEXT, t, id, base_ops(v));
        }
        AtomicOp::FetchAdd => e.op_to(Op::AtomicIAdd, t, id, base_ops(v)),
        AtomicOp::FetchSub => e.op_to(Op::AtomicISub, t, id, base_ops(v)),
        AtomicOp::FetchAnd => e.op_to(Op::AtomicAnd, t, id, base_ops(v)),
        AtomicOp::FetchOr => e.op_to(Op::AtomicOr, t, id, base_ops(v)),
        AtomicOp::FetchXor => e.op_to(Op::AtomicXor, t, id, base_ops(v)),
        AtomicOp::FetchMin => e.op_to(
            if k.is_signed_int() {
                Op::AtomicSMin
            } else {
                Op::AtomicUMin
            },
            t,
            id,
            base_ops(v),
        ),
        AtomicOp::FetchMax => e.op_to(
            if k.is_signed_int() {
                Op::AtomicSMax
            } else {
                Op::AtomicUMax
            },
            t,
            id,
            base_ops(v),
        ),
    }
    Ok(())
}
