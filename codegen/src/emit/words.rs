//! The byte-exact uint32 word-storage ABI (the seed's answer to element layouts Vulkan's
//! typed storage cannot reproduce: bool, 64-bit 3/4-component vectors, incompatible
//! strides, byte buffers, and buffers with float compare-exchange).
//!
//! The buffer is `struct { uint data[]; }` (ArrayStride 4) holding the host bytes.
//! Element `i` of a `buffer<T>` starts at byte `i * stride(T)`; a byte-buffer access
//! starts at its byte offset. A value is decomposed by its host layout (vector
//! components, matrix columns, array elements, structure members at their offsets) into
//! scalars, and each scalar into word accesses:
//!
//! * the statically proven alignment of an address is tracked: a typed element starts
//!   `gcd(stride, 4)`-aligned (the Vulkan argument preprocessor proves a typed view is a
//!   whole number of elements), a byte-buffer offset is 1-aligned;
//! * a 4-byte scalar on a 4-aligned address is one word (`OpLoad`/`OpStore` and a
//!   bitcast); an 8-byte one two words through a `uvec2` bitcast (low word first);
//! * a 1- or 2-byte scalar aligned to its size lies inside one word: a load shifts and
//!   masks an `OpAtomicLoad`ed word; a store clears its bytes with `OpAtomicAnd` and sets
//!   them with `OpAtomicOr`, so neighbouring bytes other invocations write in the same
//!   word are never lost (relaxed, Device scope; equivalent to the masked CAS loop and
//!   without one);
//! * anything less aligned is assembled or written byte by byte the same way;
//! * bool is one byte, 0 or 1 (read back as `!= 0`).
//!
//! Atomics on word storage act on the 32-bit word (the planner refuses other widths):
//! integer ops natively on the `uint` word with bitcast operands; float exchange and
//! compare-exchange on the bit pattern (compare-exchange therefore compares bits, as
//! upstream does: `-0.0` does not match `+0.0`, an identical NaN matches); float
//! add/sub/min/max as a compare-exchange loop (`OpLoopMerge`; relaxed success and failure
//! semantics) that splits the current block (see [`super::cfg::FnState::split_block`]).

use super::cfg::FnState;
use super::{Emitter, R, ids};
use crate::error::{CodegenError, Located};
use rspirv::dr::Operand;
use rspirv::spirv::{MemoryAccess, Op, StorageClass, Word};
use xir_ir::op::AtomicOp;
use xir_ir::types::{TypeData, vector_layout};
use xir_ir::{InstId, ScalarKind, Type};

/// A byte address into a word buffer: the `uint` id and its proven power-of-two alignment.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Addr {
    pub id: Word,
    pub align: u64,
}

/// Alignment of `addr + off` given `addr`'s alignment.
fn align_plus(align: u64, off: u64) -> u64 {
    if off == 0 {
        align
    } else {
        align.min(1 << off.trailing_zeros())
    }
}

/// Alignment of `x * stride` for an arbitrary `x`, capped at 4 (all a word access needs).
pub(crate) fn stride_align(stride: u64) -> u64 {
    if stride == 0 {
        4
    } else {
        (1u64 << stride.trailing_zeros()).min(4)
    }
}

impl Emitter<'_> {
    /// `uint` conversion of an integer index or offset id of kind `k`.
    pub(crate) fn index_as_u32(&mut self, v: Word, k: ScalarKind) -> Word {
        let u = self.u32_ty();
        match k {
            ScalarKind::U32 => v,
            ScalarKind::I32 => self.op(Op::Bitcast, u, ids(&[v])),
            _ => self.op(Op::UConvert, u, ids(&[v])),
        }
    }

    fn u32_bin(&mut self, op: Op, a: Word, b: Word) -> Word {
        let u = self.u32_ty();
        self.op(op, u, ids(&[a, b]))
    }

    /// `addr + off`.
    pub(crate) fn addr_plus(&mut self, a: Addr, off: u64) -> Addr {
        if off == 0 {
            return a;
        }
        let c = self.const_u32(off as u32);
        Addr {
            id: self.u32_bin(Op::IAdd, a.id, c),
            align: align_plus(a.align, off),
        }
    }

    /// `x * stride` for a dynamic `uint` `x`: the address of element `x`.
    pub(crate) fn addr_scaled(&mut self, x: Word, stride: u64) -> Addr {
        let id = if stride == 1 {
            x
        } else {
            let s = self.const_u32(stride as u32);
            self.u32_bin(Op::IMul, x, s)
        };
        Addr {
            id,
            align: stride_align(stride),
        }
    }

    /// `addr + x * stride` for a dynamic `uint` `x`.
    pub(crate) fn addr_index(&mut self, a: Addr, x: Word, stride: u64) -> Addr {
        let m = self.addr_scaled(x, stride);
        Addr {
            id: self.u32_bin(Op::IAdd, a.id, m.id),
            align: a.align.min(m.align),
        }
    }

    /// Pointer to word `addr / 4` of the word buffer `var`.
    fn word_ptr(&mut self, var: Word, addr: Word) -> Word {
        let two = self.const_u32(2);
        let wi = self.u32_bin(Op::ShiftRightLogical, addr, two);
        let u = self.u32_ty();
        let pt = self.ptr_ty(StorageClass::StorageBuffer, u);
        let zero = self.const_u32(0);
        self.op(Op::AccessChain, pt, ids(&[var, zero, wi]))
    }

    /// Device scope and relaxed semantics ids.
    fn device_relaxed(&mut self) -> (Word, Word) {
        (self.const_u32(1), self.const_u32(0))
    }

    /// `(addr & 3) * 8`: the bit position of `addr` in its word.
    fn bit_shift(&mut self, addr: Word) -> Word {
        let three = self.const_u32(3);
        let b = self.u32_bin(Op::BitwiseAnd, addr, three);
        self.u32_bin(Op::ShiftLeftLogical, b, three)
    }

    /// The `n` (1, 2 or 4) bytes at `a`, zero-extended into a `uint`.
    fn read_bits(&mut self, var: Word, a: Addr, n: u64, volatile: bool) -> Word {
        let u = self.u32_ty();
        if n == 4 && a.align >= 4 {
            let p = self.word_ptr(var, a.id);
            let mut ops = ids(&[p]);
            if volatile {
                ops.push(Operand::MemoryAccess(MemoryAccess::VOLATILE));
            }
            return self.op(Op::Load, u, ops);
        }
        if a.align >= n {
            let p = self.word_ptr(var, a.id);
            let (scope, relaxed) = self.device_relaxed();
            let w = self.op(Op::AtomicLoad, u, ids(&[p, scope, relaxed]));
            let sh = self.bit_shift(a.id);
            let v = self.u32_bin(Op::ShiftRightLogical, w, sh);
            let mask = self.const_u32(((1u64 << (8 * n)) - 1) as u32);
            return self.u32_bin(Op::BitwiseAnd, v, mask);
        }
        let mut acc = None;
        for k in 0..n {
            let ak = self.addr_plus(a, k);
            let byte = self.read_bits(var, Addr { align: 1, ..ak }, 1, volatile);
            let part = if k == 0 {
                byte
            } else {
                let s = self.const_u32(8 * k as u32);
                self.u32_bin(Op::ShiftLeftLogical, byte, s)
            };
            acc = Some(match acc {
                None => part,
                Some(x) => self.u32_bin(Op::BitwiseOr, x, part),
            });
        }
        acc.expect("n >= 1")
    }

    /// Writes the low `n` (1, 2 or 4) bytes of the `uint` `v` at `a`.
    fn write_bits(&mut self, var: Word, a: Addr, n: u64, v: Word, volatile: bool) {
        if n == 4 && a.align >= 4 {
            let p = self.word_ptr(var, a.id);
            let mut ops = ids(&[p, v]);
            if volatile {
                ops.push(Operand::MemoryAccess(MemoryAccess::VOLATILE));
            }
            self.op_void(Op::Store, ops);
            return;
        }
        if a.align >= n {
            let p = self.word_ptr(var, a.id);
            let (scope, relaxed) = self.device_relaxed();
            let sh = self.bit_shift(a.id);
            let low = self.const_u32(((1u64 << (8 * n)) - 1) as u32);
            let mask = self.u32_bin(Op::ShiftLeftLogical, low, sh);
            let u = self.u32_ty();
            let keep = self.op(Op::Not, u, ids(&[mask]));
            let bits = self.u32_bin(Op::BitwiseAnd, v, low);
            let bits = self.u32_bin(Op::ShiftLeftLogical, bits, sh);
            for (op, x) in [(Op::AtomicAnd, keep), (Op::AtomicOr, bits)] {
                self.op(op, u, ids(&[p, scope, relaxed, x]));
            }
            return;
        }
        for k in 0..n {
            let ak = self.addr_plus(a, k);
            let byte = if k == 0 {
                v
            } else {
                let s = self.const_u32(8 * k as u32);
                self.u32_bin(Op::ShiftRightLogical, v, s)
            };
            self.write_bits(var, Addr { align: 1, ..ak }, 1, byte, volatile);
        }
    }

    /// The parts of a composite value of type `t` in host layout: vector components,
    /// matrix columns, array elements, structure members, each with its byte offset.
    fn layout_parts(&self, t: Type) -> Vec<(Type, u64)> {
        let ts = &self.m.types;
        match ts.get(t).clone() {
            TypeData::Vector { elem, len } => {
                let es = ts.size_of(elem);
                (0..len as u64).map(|j| (elem, j * es)).collect()
            }
            TypeData::Matrix { elem, n } => {
                let (col, _) = vector_layout(ts.size_of(elem), n);
                let ct = ts
                    .find(&TypeData::Vector { elem, len: n })
                    .expect("a matrix's column type exists");
                (0..n as u64).map(|j| (ct, j * col)).collect()
            }
            TypeData::Array { elem, len } => {
                let stride = ts.size_of(elem);
                (0..len).map(|j| (elem, j * stride)).collect()
            }
            TypeData::Struct { members, .. } => {
                members.iter().copied().zip(ts.struct_offsets(t)).collect()
            }
            other => unreachable!("the dialect check admits no {other:?} buffer element"),
        }
    }

    /// Loads a value of XIR type `t` at `a` from the word buffer `var`.
    pub(crate) fn word_load(&mut self, var: Word, t: Type, a: Addr, volatile: bool) -> Word {
        if let Some(k) = self.m.types.scalar_kind(t) {
            return self.word_load_scalar(var, k, a, volatile);
        }
        let parts = self
            .layout_parts(t)
            .into_iter()
            .map(|(pt, off)| {
                let ap = self.addr_plus(a, off);
                self.word_load(var, pt, ap, volatile)
            })
            .collect();
        let lt = self.logical(t);
        self.construct(lt, parts)
    }

    fn construct(&mut self, t: Word, parts: Vec<Word>) -> Word {
        self.op(
            Op::CompositeConstruct,
            t,
            parts.into_iter().map(Operand::IdRef).collect(),
        )
    }

    fn word_load_scalar(&mut self, var: Word, k: ScalarKind, a: Addr, volatile: bool) -> Word {
        let t = self.scalar_ty(k);
        match k.size() {
            8 => {
                let lo = self.read_bits(var, a, 4, volatile);
                let a4 = self.addr_plus(a, 4);
                let hi = self.read_bits(var, a4, 4, volatile);
                let u2 = self.vec_ty(ScalarKind::U32, 2);
                let v = self.construct(u2, vec![lo, hi]);
                self.op(Op::Bitcast, t, ids(&[v]))
            }
            4 => {
                let v = self.read_bits(var, a, 4, volatile);
                if k == ScalarKind::U32 {
                    v
                } else {
                    self.op(Op::Bitcast, t, ids(&[v]))
                }
            }
            n => {
                let v = self.read_bits(var, a, n, volatile);
                if k == ScalarKind::Bool {
                    let zero = self.const_u32(0);
                    return self.op(Op::INotEqual, t, ids(&[v, zero]));
                }
                let uk = if n == 1 {
                    ScalarKind::U8
                } else {
                    ScalarKind::U16
                };
                let ut = self.scalar_ty(uk);
                let narrow = self.op(Op::UConvert, ut, ids(&[v]));
                if k == uk {
                    narrow
                } else {
                    self.op(Op::Bitcast, t, ids(&[narrow]))
                }
            }
        }
    }

    /// Stores the value `v` of XIR type `t` at `a` into the word buffer `var`.
    pub(crate) fn word_store(&mut self, var: Word, t: Type, a: Addr, v: Word, volatile: bool) {
        if let Some(k) = self.m.types.scalar_kind(t) {
            return self.word_store_scalar(var, k, a, v, volatile);
        }
        for (j, (pt, off)) in self.layout_parts(t).into_iter().enumerate() {
            let ty = self.logical(pt);
            let x = self.op(
                Op::CompositeExtract,
                ty,
                vec![Operand::IdRef(v), Operand::LiteralBit32(j as u32)],
            );
            let ap = self.addr_plus(a, off);
            self.word_store(var, pt, ap, x, volatile);
        }
    }

    fn word_store_scalar(&mut self, var: Word, k: ScalarKind, a: Addr, v: Word, volatile: bool) {
        let u = self.u32_ty();
        match k.size() {
            8 => {
                let u2 = self.vec_ty(ScalarKind::U32, 2);
                let w = self.op(Op::Bitcast, u2, ids(&[v]));
                for j in 0..2u32 {
                    let x = self.op(
                        Op::CompositeExtract,
                        u,
                        vec![Operand::IdRef(w), Operand::LiteralBit32(j)],
                    );
                    let aj = self.addr_plus(a, 4 * j as u64);
                    self.write_bits(var, aj, 4, x, volatile);
                }
            }
            4 => {
                let x = if k == ScalarKind::U32 {
                    v
                } else {
                    self.op(Op::Bitcast, u, ids(&[v]))
                };
                self.write_bits(var, a, 4, x, volatile);
            }
            n => {
                let x = if k == ScalarKind::Bool {
                    let one = self.const_u32(1);
                    let zero = self.const_u32(0);
                    self.op(Op::Select, u, ids(&[v, one, zero]))
                } else {
                    let uk = if n == 1 {
                        ScalarKind::U8
                    } else {
                        ScalarKind::U16
                    };
                    let narrow = if k == uk {
                        v
                    } else {
                        let ut = self.scalar_ty(uk);
                        self.op(Op::Bitcast, ut, ids(&[v]))
                    };
                    self.op(Op::UConvert, u, ids(&[narrow]))
                };
                self.write_bits(var, a, n, x, volatile);
            }
        }
    }
}

/// An atomic on the 32-bit word at `a` of the word buffer `var`; `vals` are the value
/// operands (`[value]`, or `[expected, desired]` for compare-exchange) of scalar kind `k`.
/// The result id is `id`.
pub(crate) fn word_atomic(
    e: &mut Emitter,
    st: &mut FnState,
    (i, id): (InstId, Word),
    (op, k): (AtomicOp, ScalarKind),
    (var, a): (Word, Addr),
    vals: &[Word],
) -> R<()> {
    if k.size() != 4 || a.align < 4 {
        return Err(CodegenError::user(vec![Located::new(
            st.loc(i),
            format!(
                "atomic {} on an address not proven 4-byte aligned in word storage",
                op.name()
            ),
        )]));
    }
    let u = e.u32_ty();
    let t = e.scalar_ty(k);
    let p = e.word_ptr(var, a.id);
    let (scope, relaxed) = e.device_relaxed();
    let bits = |e: &mut Emitter, x: Word| {
        if k == ScalarKind::U32 {
            x
        } else {
            e.op(Op::Bitcast, u, ids(&[x]))
        }
    };
    let value = |e: &mut Emitter, w: Word, id: Option<Word>| {
        let id = id.unwrap_or_else(|| e.b.id());
        if k == ScalarKind::U32 {
            e.op_to(Op::CopyObject, u, id, ids(&[w]));
        } else {
            e.op_to(Op::Bitcast, t, id, ids(&[w]));
        }
        id
    };
    let rmw = |e: &mut Emitter, op: Op, x: Word| e.op(op, u, ids(&[p, scope, relaxed, x]));
    let float = k.is_float();
    let native = match op {
        AtomicOp::Exchange => Some(Op::AtomicExchange),
        AtomicOp::FetchAdd if !float => Some(Op::AtomicIAdd),
        AtomicOp::FetchSub if !float => Some(Op::AtomicISub),
        AtomicOp::FetchAnd => Some(Op::AtomicAnd),
        AtomicOp::FetchOr => Some(Op::AtomicOr),
        AtomicOp::FetchXor => Some(Op::AtomicXor),
        AtomicOp::FetchMin if !float => Some(if k.is_signed_int() {
            Op::AtomicSMin
        } else {
            Op::AtomicUMin
        }),
        AtomicOp::FetchMax if !float => Some(if k.is_signed_int() {
            Op::AtomicSMax
        } else {
            Op::AtomicUMax
        }),
        _ => None,
    };
    if let Some(o) = native {
        let x = bits(e, vals[0]);
        let w = rmw(e, o, x);
        value(e, w, Some(id));
        return Ok(());
    }
    if op == AtomicOp::CompareExchange {
        let expected = bits(e, vals[0]);
        let desired = bits(e, vals[1]);
        let w = cas(e, p, (desired, expected), None);
        value(e, w, Some(id));
        return Ok(());
    }
    // Float add/sub/min/max: a compare-exchange loop on the bit pattern.
    let init = e.op(Op::AtomicLoad, u, ids(&[p, scope, relaxed]));
    let (header, body, cont, merge) = (e.b.id(), e.b.id(), e.b.id(), e.b.id());
    let pre = st.split_block(e, i, header)?;
    let old = e.b.id();
    let seen = e.b.id();
    st.lowering_phis.insert(old);
    e.op_to(Op::Phi, u, old, ids(&[init, pre, seen, cont]));
    e.loop_merge(merge, cont);
    st.branch_to(e, i, body)?;
    st.begin(e, i, body)?;
    let f = value(e, old, None);
    let nf = match op {
        AtomicOp::FetchAdd => e.op(Op::FAdd, t, ids(&[f, vals[0]])),
        AtomicOp::FetchSub => e.op(Op::FSub, t, ids(&[f, vals[0]])),
        AtomicOp::FetchMin => e.glsl_op(t, rspirv::spirv::GlslStd450Op::FMin, &[f, vals[0]]),
        AtomicOp::FetchMax => e.glsl_op(t, rspirv::spirv::GlslStd450Op::FMax, &[f, vals[0]]),
        _ => {
            return Err(CodegenError::internal(
                st.loc(i),
                "float atomic without a word-storage lowering",
            ));
        }
    };
    let nb = bits(e, nf);
    cas(e, p, (nb, old), Some(seen));
    let bt = e.bool_ty();
    let done = e.op(Op::IEqual, bt, ids(&[seen, old]));
    st.cond_branch(e, i, done, merge, cont)?;
    st.begin(e, i, cont)?;
    st.branch_to(e, i, header)?;
    st.begin(e, i, merge)?;
    value(e, old, Some(id));
    Ok(())
}

/// `OpAtomicCompareExchange` (relaxed success and failure) on the word at `p`: stores
/// `desired` where the word equals `expected`; the result (`id`, or a new id) is the word
/// seen.
fn cas(e: &mut Emitter, p: Word, (desired, expected): (Word, Word), id: Option<Word>) -> Word {
    let u = e.u32_ty();
    let (scope, relaxed) = e.device_relaxed();
    let id = id.unwrap_or_else(|| e.b.id());
    e.op_to(
        Op::AtomicCompareExchange,
        u,
        id,
        ids(&[p, scope, relaxed, relaxed, desired, expected]),
    );
    id
}
