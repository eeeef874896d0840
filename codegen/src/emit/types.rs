//! Types: logical SSA types (`logical`) and explicitly laid-out storage types (`laid`) with
//! Offset / ArrayStride / ColMajor + MatrixStride taken from the host layout, which the
//! buffer-layout plan has proven equal to Vulkan's standard storage layout. Constants.

use super::Emitter;
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Capability, Decoration, Op, StorageClass, Word};
use xir_ir::constant::{ScalarValue, read_scalar};
use xir_ir::types::{TypeData, vector_layout};
use xir_ir::{ConstId, ScalarKind, Type};

impl Emitter<'_> {
    fn push_global(&mut self, op: Op, ty: Option<Word>, id: Word, ops: Vec<Operand>) {
        self.b
            .module_mut()
            .types_global_values
            .push(Instruction::new(op, ty, Some(id), ops));
    }

    /// `void`.
    pub(crate) fn void_ty(&mut self) -> Word {
        if let Some(v) = self.void {
            return v;
        }
        let id = self.b.id();
        self.push_global(Op::TypeVoid, None, id, vec![]);
        self.void = Some(id);
        id
    }

    /// The SPIR-V type of a scalar kind.
    pub(crate) fn scalar_ty(&mut self, k: ScalarKind) -> Word {
        if let Some(&w) = self.scalars.get(&k) {
            return w;
        }
        let id = self.b.id();
        match k {
            ScalarKind::Bool => self.push_global(Op::TypeBool, None, id, vec![]),
            ScalarKind::F16 | ScalarKind::F32 | ScalarKind::F64 => {
                let bits = k.size() as u32 * 8;
                if bits == 16 {
                    self.cap(Capability::Float16);
                } else if bits == 64 {
                    self.cap(Capability::Float64);
                }
                self.push_global(Op::TypeFloat, None, id, vec![Operand::LiteralBit32(bits)]);
            }
            _ => {
                let bits = k.size() as u32 * 8;
                match bits {
                    8 => self.cap(Capability::Int8),
                    16 => self.cap(Capability::Int16),
                    64 => self.cap(Capability::Int64),
                    _ => {}
                }
                let signed = u32::from(k.is_signed_int());
                self.push_global(
                    Op::TypeInt,
                    None,
                    id,
                    vec![Operand::LiteralBit32(bits), Operand::LiteralBit32(signed)],
                );
            }
        }
        self.scalars.insert(k, id);
        id
    }

    pub(crate) fn u32_ty(&mut self) -> Word {
        self.scalar_ty(ScalarKind::U32)
    }
    pub(crate) fn bool_ty(&mut self) -> Word {
        self.scalar_ty(ScalarKind::Bool)
    }

    /// A vector of `n` `k`s (or the scalar when `n` is 1).
    pub(crate) fn vec_ty(&mut self, k: ScalarKind, n: u8) -> Word {
        let s = self.scalar_ty(k);
        if n == 1 {
            return s;
        }
        if let Some(&w) = self.vectors.get(&(k, n)) {
            return w;
        }
        let id = self.b.id();
        self.push_global(
            Op::TypeVector,
            None,
            id,
            vec![Operand::IdRef(s), Operand::LiteralBit32(n as u32)],
        );
        self.vectors.insert((k, n), id);
        id
    }

    /// The logical (layout-free) SPIR-V type of an XIR type.
    pub(crate) fn logical(&mut self, t: Type) -> Word {
        if let Some(&w) = self.logical_types.get(&t) {
            return w;
        }
        let id = match self.m.types.get(t).clone() {
            TypeData::Scalar(k) => self.scalar_ty(k),
            TypeData::Vector { elem, len } => {
                let k = self.m.types.scalar_kind(elem).expect("vector of scalars");
                self.vec_ty(k, len)
            }
            TypeData::Matrix { elem, n } => {
                let k = self.m.types.scalar_kind(elem).expect("matrix of scalars");
                let col = self.vec_ty(k, n);
                let id = self.b.id();
                self.push_global(
                    Op::TypeMatrix,
                    None,
                    id,
                    vec![Operand::IdRef(col), Operand::LiteralBit32(n as u32)],
                );
                id
            }
            TypeData::Array { elem, len } => {
                let e = self.logical(elem);
                self.array_ty(e, len)
            }
            TypeData::Struct { members, .. } => {
                let ms: Vec<Operand> = members
                    .iter()
                    .map(|&m| Operand::IdRef(self.logical(m)))
                    .collect();
                let id = self.b.id();
                self.push_global(Op::TypeStruct, None, id, ms);
                id
            }
            other => unreachable!("dialect check admits no {other:?} value type"),
        };
        self.logical_types.insert(t, id);
        id
    }

    /// A new `OpTypeArray` of `len` `elem`s (logical and laid-out arrays are distinct
    /// types: only the latter carry ArrayStride).
    fn array_ty(&mut self, elem: Word, len: u64) -> Word {
        let n = self.const_u32(len as u32);
        self.new_type(Op::TypeArray, vec![Operand::IdRef(elem), Operand::IdRef(n)])
    }

    /// A new (never deduplicated) type declaration.
    fn new_type(&mut self, op: Op, ops: Vec<Operand>) -> Word {
        let id = self.b.id();
        self.push_global(op, None, id, ops);
        id
    }

    /// `struct { uint data[]; }` (Block, ArrayStride 4): the word-storage ABI's buffer.
    pub(crate) fn word_block_type(&mut self) -> Word {
        let u = self.u32_ty();
        let st = self.runtime_block(u, 4);
        self.b.name(st, "WordStorage");
        st
    }

    /// A `Block` struct whose one member (Offset 0) is a runtime array of `elem` with
    /// ArrayStride `stride`: the type of a storage-buffer descriptor.
    pub(crate) fn runtime_block(&mut self, elem: Word, stride: u32) -> Word {
        let ra = self.new_type(Op::TypeRuntimeArray, vec![Operand::IdRef(elem)]);
        self.b
            .decorate(ra, Decoration::ArrayStride, [Operand::LiteralBit32(stride)]);
        let st = self.new_type(Op::TypeStruct, vec![Operand::IdRef(ra)]);
        self.b.decorate(st, Decoration::Block, []);
        self.b
            .member_decorate(st, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
        st
    }

    /// `OpLoopMerge merge continue None`.
    pub(crate) fn loop_merge(&mut self, merge: Word, cont: Word) {
        self.op_void(
            Op::LoopMerge,
            vec![
                Operand::IdRef(merge),
                Operand::IdRef(cont),
                Operand::LoopControl(rspirv::spirv::LoopControl::NONE),
            ],
        );
    }

    /// Whether logical and laid-out representations differ (arrays and structures).
    pub(crate) fn needs_layout(&self, t: Type) -> bool {
        matches!(
            self.m.types.get(t),
            TypeData::Array { .. } | TypeData::Struct { .. }
        )
    }

    fn storage_caps(&mut self, t: Type) {
        if let Some(k) = self.m.types.scalar_or_vector_elem(t) {
            match k.size() {
                1 => self.cap(Capability::StorageBuffer8BitAccess),
                2 => self.cap(Capability::StorageBuffer16BitAccess),
                _ => {}
            }
        }
    }

    /// The explicitly laid-out SPIR-V type of an XIR type, for StorageBuffer memory.
    pub(crate) fn laid(&mut self, t: Type) -> Word {
        if !self.needs_layout(t) {
            self.storage_caps(t);
            return self.logical(t);
        }
        if let Some(&w) = self.laid_types.get(&t) {
            return w;
        }
        let id = match self.m.types.get(t).clone() {
            TypeData::Array { elem, len } => {
                let e = self.laid(elem);
                let id = self.array_ty(e, len);
                let stride = self.m.types.size_of(elem) as u32;
                self.b
                    .decorate(id, Decoration::ArrayStride, [Operand::LiteralBit32(stride)]);
                id
            }
            TypeData::Struct { members, .. } => {
                let ms: Vec<Word> = members.iter().map(|&m| self.laid(m)).collect();
                let id = self.b.id();
                self.push_global(
                    Op::TypeStruct,
                    None,
                    id,
                    ms.iter().map(|&w| Operand::IdRef(w)).collect(),
                );
                let offs = self.m.types.struct_offsets(t);
                for (i, (&m, off)) in members.iter().zip(offs).enumerate() {
                    self.b.member_decorate(
                        id,
                        i as u32,
                        Decoration::Offset,
                        [Operand::LiteralBit32(off as u32)],
                    );
                    self.decorate_matrix_member(id, i as u32, m);
                }
                id
            }
            _ => unreachable!(),
        };
        self.laid_types.insert(t, id);
        id
    }

    /// ColMajor + MatrixStride on a member whose type is a matrix or an array of them.
    pub(crate) fn decorate_matrix_member(&mut self, s: Word, i: u32, mut m: Type) {
        while let TypeData::Array { elem, .. } = self.m.types.get(m) {
            m = *elem;
        }
        if let TypeData::Matrix { elem, n } = self.m.types.get(m).clone() {
            let es = self.m.types.size_of(elem);
            let (col, _) = vector_layout(es, n);
            self.b.member_decorate(s, i, Decoration::ColMajor, []);
            self.b.member_decorate(
                s,
                i,
                Decoration::MatrixStride,
                [Operand::LiteralBit32(col as u32)],
            );
        }
    }

    /// Whether `t` is (an array of) a matrix, which needs a wrapping struct to carry
    /// MatrixStride when it is a runtime-array element.
    pub(crate) fn is_matrixish(&self, mut t: Type) -> bool {
        while let TypeData::Array { elem, .. } = self.m.types.get(t) {
            t = *elem;
        }
        matches!(self.m.types.get(t), TypeData::Matrix { .. })
    }

    /// A pointer type.
    pub(crate) fn ptr_ty(&mut self, sc: StorageClass, pointee: Word) -> Word {
        if let Some(&w) = self.pointers.get(&(sc, pointee)) {
            return w;
        }
        let id = self.b.id();
        self.push_global(
            Op::TypePointer,
            None,
            id,
            vec![Operand::StorageClass(sc), Operand::IdRef(pointee)],
        );
        self.pointers.insert((sc, pointee), id);
        id
    }

    fn scalar_const(&mut self, k: ScalarKind, bits: u64) -> Word {
        let ty = self.scalar_ty(k);
        if let Some(&w) = self.scalar_consts.get(&(k, bits)) {
            return w;
        }
        let id = self.b.id();
        match k {
            ScalarKind::Bool => self.push_global(
                if bits != 0 {
                    Op::ConstantTrue
                } else {
                    Op::ConstantFalse
                },
                Some(ty),
                id,
                vec![],
            ),
            _ if k.size() == 8 => self.push_global(
                Op::Constant,
                Some(ty),
                id,
                vec![Operand::LiteralBit64(bits)],
            ),
            _ => {
                // Narrow signed literals are sign-extended to the word, others zero-extended.
                let w = match (k.size(), k.is_signed_int()) {
                    (1, true) => bits as u8 as i8 as i32 as u32,
                    (2, true) => bits as u16 as i16 as i32 as u32,
                    (1, false) => bits as u8 as u32,
                    (2, false) => bits as u16 as u32,
                    _ => bits as u32,
                };
                self.push_global(Op::Constant, Some(ty), id, vec![Operand::LiteralBit32(w)])
            }
        }
        self.scalar_consts.insert((k, bits), id);
        id
    }

    pub(crate) fn const_u32(&mut self, v: u32) -> Word {
        self.scalar_const(ScalarKind::U32, v as u64)
    }
    pub(crate) fn const_bool(&mut self, v: bool) -> Word {
        self.scalar_const(ScalarKind::Bool, v as u64)
    }

    /// A scalar constant of kind `k` holding the number `v` (floats converted, ints
    /// truncated), splatted to `n` lanes.
    pub(crate) fn const_num(&mut self, k: ScalarKind, n: u8, v: f64) -> Word {
        let bits = match k {
            ScalarKind::F16 => half::f16::from_f64(v).to_bits() as u64,
            ScalarKind::F32 => (v as f32).to_bits() as u64,
            ScalarKind::F64 => v.to_bits(),
            ScalarKind::Bool => (v != 0.0) as u64,
            _ if k.is_signed_int() => (v as i64) as u64 & mask(k),
            _ => (v as u64) & mask(k),
        };
        let s = self.scalar_const(k, bits);
        self.splat_const(k, n, s)
    }

    /// An integer constant of kind `k` with raw bits, splatted to `n` lanes.
    pub(crate) fn const_bits(&mut self, k: ScalarKind, n: u8, bits: u64) -> Word {
        let s = self.scalar_const(k, bits & mask(k));
        self.splat_const(k, n, s)
    }

    fn splat_const(&mut self, k: ScalarKind, n: u8, s: Word) -> Word {
        if n == 1 {
            return s;
        }
        let ty = self.vec_ty(k, n);
        self.composite_const(ty, vec![s; n as usize])
    }

    pub(crate) fn composite_const(&mut self, ty: Word, parts: Vec<Word>) -> Word {
        let key = (ty, parts.clone());
        if let Some(&w) = self.composite_consts.get(&key) {
            return w;
        }
        let id = self.b.id();
        self.push_global(
            Op::ConstantComposite,
            Some(ty),
            id,
            parts.into_iter().map(Operand::IdRef).collect(),
        );
        self.composite_consts.insert(key, id);
        id
    }

    /// The SPIR-V constant for an XIR constant (decoded from its native bytes).
    pub(crate) fn xir_const(&mut self, c: ConstId) -> Word {
        if let Some(&w) = self.xir_consts.get(&c) {
            return w;
        }
        let data = &self.m.constants[c];
        let (t, bytes) = (data.ty, data.bytes.clone());
        let w = self.const_from_bytes(t, &bytes);
        self.xir_consts.insert(c, w);
        w
    }

    fn const_from_bytes(&mut self, t: Type, bytes: &[u8]) -> Word {
        let m = self.m;
        let ts = &m.types;
        match ts.get(t).clone() {
            TypeData::Scalar(k) => {
                let n = k.size() as usize;
                let mut raw = [0u8; 8];
                raw[..n].copy_from_slice(&bytes[..n.min(bytes.len())]);
                let mut bits = u64::from_le_bytes(raw);
                if k == ScalarKind::Bool {
                    bits = (bits & 0xff != 0) as u64;
                }
                debug_assert!(
                    read_scalar(k, bytes).is_some()
                        || !matches!(read_scalar(k, bytes), Some(ScalarValue::Bool(_)))
                );
                self.scalar_const(k, bits)
            }
            TypeData::Vector { elem, len } => {
                let es = ts.size_of(elem) as usize;
                let parts = (0..len as usize)
                    .map(|i| self.const_from_bytes(elem, &bytes[i * es..]))
                    .collect();
                let ty = self.logical(t);
                self.composite_const(ty, parts)
            }
            TypeData::Matrix { elem, n } => {
                let es = ts.size_of(elem);
                let (col, _) = vector_layout(es, n);
                let ct = m.types.find(&TypeData::Vector { elem, len: n });
                let k = ts.scalar_kind(elem).expect("float matrix");
                let parts = (0..n as usize)
                    .map(|i| {
                        let off = i * col as usize;
                        match ct {
                            Some(ct) => self.const_from_bytes(ct, &bytes[off..]),
                            None => {
                                let lanes = (0..n as usize).map(|j| {
                                    let o = off + j * es as usize;
                                    let mut raw = [0u8; 8];
                                    raw[..es as usize].copy_from_slice(&bytes[o..o + es as usize]);
                                    self.scalar_const(k, u64::from_le_bytes(raw))
                                });
                                let lanes: Vec<Word> = lanes.collect();
                                let vt = self.vec_ty(k, n);
                                self.composite_const(vt, lanes)
                            }
                        }
                    })
                    .collect();
                let ty = self.logical(t);
                self.composite_const(ty, parts)
            }
            TypeData::Array { elem, len } => {
                let es = ts.size_of(elem) as usize;
                let parts = (0..len as usize)
                    .map(|i| self.const_from_bytes(elem, &bytes[i * es..]))
                    .collect();
                let ty = self.logical(t);
                self.composite_const(ty, parts)
            }
            TypeData::Struct { members, .. } => {
                let offs = ts.struct_offsets(t);
                let parts = members
                    .iter()
                    .zip(offs)
                    .map(|(&m, o)| self.const_from_bytes(m, &bytes[o as usize..]))
                    .collect();
                let ty = self.logical(t);
                self.composite_const(ty, parts)
            }
            other => unreachable!("dialect check admits no {other:?} constant"),
        }
    }

    /// OpUndef of a logical type (module level).
    pub(crate) fn undef_of(&mut self, ty: Word) -> Word {
        if let Some(&w) = self.undefs.get(&ty) {
            return w;
        }
        let id = self.b.id();
        self.push_global(Op::Undef, Some(ty), id, vec![]);
        self.undefs.insert(ty, id);
        id
    }
}

/// The value mask of a scalar kind's width.
pub(crate) fn mask(k: ScalarKind) -> u64 {
    match k.size() {
        8 => u64::MAX,
        n => (1u64 << (n * 8)) - 1,
    }
}
