//! The XIR type system: interned [`TypeData`] behind cheap [`Type`] handles.
//!
//! Types are hash-consed per module: two equal `TypeData` always have the same handle,
//! so type equality is handle equality. `void` is represented as `Option<Type>::None`
//! wherever a type may be absent (instruction results, function returns).

use crate::entity::{EntityRef, PrimaryMap};
use rustc_hash::FxHashMap;

crate::define_entity! {
    /// An interned type. Owned by [`TypeStore`].
    pub struct Type; debug_prefix = "ty";
}

/// Scalar kinds (upstream AST `Type::Tag` scalars).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(missing_docs)]
pub enum ScalarKind {
    Bool,
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    F16,
    F32,
    F64,
    F8E4M3,
    F8E5M2,
    /// 4-bit signed integer (printer-only upstream; not in the interchange).
    I4,
    /// 4-bit float e2m1 (printer-only upstream; not in the interchange).
    F4E2M1,
}

impl ScalarKind {
    /// Every scalar kind.
    pub const ALL: &'static [ScalarKind] = &[
        Self::Bool,
        Self::I8,
        Self::U8,
        Self::I16,
        Self::U16,
        Self::I32,
        Self::U32,
        Self::I64,
        Self::U64,
        Self::F16,
        Self::F32,
        Self::F64,
        Self::F8E4M3,
        Self::F8E5M2,
        Self::I4,
        Self::F4E2M1,
    ];
    /// The xir2text spelling (`u32`, `f8e4m3`, …).
    pub const fn text_name(self) -> &'static str {
        match self {
            Self::Bool => "bool",
            Self::I8 => "i8",
            Self::U8 => "u8",
            Self::I16 => "i16",
            Self::U16 => "u16",
            Self::I32 => "i32",
            Self::U32 => "u32",
            Self::I64 => "i64",
            Self::U64 => "u64",
            Self::F16 => "f16",
            Self::F32 => "f32",
            Self::F64 => "f64",
            Self::F8E4M3 => "f8e4m3",
            Self::F8E5M2 => "f8e5m2",
            Self::I4 => "i4",
            Self::F4E2M1 => "f4e2m1",
        }
    }
    /// The AST description spelling used by the interchange (`uint`, `float8e4m3`, …);
    /// `None` for kinds the interchange cannot describe.
    pub const fn ast_name(self) -> Option<&'static str> {
        Some(match self {
            Self::Bool => "bool",
            Self::I8 => "byte",
            Self::U8 => "ubyte",
            Self::I16 => "short",
            Self::U16 => "ushort",
            Self::I32 => "int",
            Self::U32 => "uint",
            Self::I64 => "long",
            Self::U64 => "ulong",
            Self::F16 => "half",
            Self::F32 => "float",
            Self::F64 => "double",
            Self::F8E4M3 => "float8e4m3",
            Self::F8E5M2 => "float8e5m2",
            Self::I4 | Self::F4E2M1 => return None,
        })
    }
    /// Looks a kind up by its xir2text spelling.
    pub fn from_text_name(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|k| k.text_name() == s)
    }
    /// Looks a kind up by its AST description spelling.
    pub fn from_ast_name(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|k| k.ast_name() == Some(s))
    }
    /// Size in bytes (the 4-bit kinds occupy one byte).
    pub const fn size(self) -> u64 {
        match self {
            Self::Bool
            | Self::I8
            | Self::U8
            | Self::F8E4M3
            | Self::F8E5M2
            | Self::I4
            | Self::F4E2M1 => 1,
            Self::I16 | Self::U16 | Self::F16 => 2,
            Self::I32 | Self::U32 | Self::F32 => 4,
            Self::I64 | Self::U64 | Self::F64 => 8,
        }
    }
    /// Signed integer kinds.
    pub const fn is_signed_int(self) -> bool {
        matches!(
            self,
            Self::I8 | Self::I16 | Self::I32 | Self::I64 | Self::I4
        )
    }
    /// Unsigned integer kinds.
    pub const fn is_unsigned_int(self) -> bool {
        matches!(self, Self::U8 | Self::U16 | Self::U32 | Self::U64)
    }
    /// Any integer kind (not bool).
    pub const fn is_int(self) -> bool {
        self.is_signed_int() || self.is_unsigned_int()
    }
    /// Any floating-point kind.
    pub const fn is_float(self) -> bool {
        matches!(
            self,
            Self::F16 | Self::F32 | Self::F64 | Self::F8E4M3 | Self::F8E5M2 | Self::F4E2M1
        )
    }
}

/// Texture dimensionality.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TextureDim {
    /// `texture2d<T>`.
    D2,
    /// `texture3d<T>`.
    D3,
}

/// The structure of a type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeData {
    /// A scalar.
    Scalar(ScalarKind),
    /// `vector<elem, len>`, len 2..=4, elem scalar.
    Vector {
        /// Scalar element type.
        elem: Type,
        /// 2, 3 or 4.
        len: u8,
    },
    /// `matrix<elem, n>`: n column vectors of n floats.
    Matrix {
        /// Scalar element type (float).
        elem: Type,
        /// 2, 3 or 4.
        n: u8,
    },
    /// `array<elem, len>`.
    Array {
        /// Element type.
        elem: Type,
        /// Element count.
        len: u64,
    },
    /// A structure with explicit alignment (1, 4, 8 or 16).
    Struct {
        /// Alignment in bytes.
        align: u32,
        /// Member types in order.
        members: Vec<Type>,
    },
    /// `buffer<elem>`; `None` is the byte buffer `buffer<void>`.
    Buffer {
        /// Element type.
        elem: Option<Type>,
    },
    /// `texture2d<elem>` / `texture3d<elem>` (elem int, uint or float scalar).
    Texture {
        /// Dimensionality.
        dim: TextureDim,
        /// Element scalar type.
        elem: Type,
    },
    /// `bindless_array`.
    BindlessArray,
    /// `accel`.
    Accel,
    /// An opaque named type (`LC_RayQueryAll`, …).
    Custom {
        /// The AST description (name).
        name: String,
    },
    /// `coopvec<elem, len>`.
    CoopVector {
        /// Element type.
        elem: Type,
        /// Length.
        len: u32,
    },
    /// `coopvec_ref<len, elem>`.
    CoopVectorRef {
        /// Length.
        len: u32,
        /// Element type.
        elem: Type,
    },
    /// `coopmat_ref<rows, cols, elem>`.
    CoopMatrixRef {
        /// Rows.
        rows: u32,
        /// Columns.
        cols: u32,
        /// Element type.
        elem: Type,
    },
}

/// Interner for types; one per module.
#[derive(Clone, Debug, Default)]
pub struct TypeStore {
    types: PrimaryMap<Type, TypeData>,
    lookup: FxHashMap<TypeData, Type>,
}

/// Upstream's vector layout from the element size: `(size, alignment)`. A 3-vector is as
/// large as a 4-vector (size = 4 × element for 3 and 4, 2 × element for 2) and the
/// alignment is the size capped at 16 bytes (so `vector<f64, 4>` is 32 bytes aligned
/// to 16). The one rule every layout computation (type store, verifier, interchange)
/// uses.
pub const fn vector_layout(elem_size: u64, len: u8) -> (u64, u64) {
    let size = elem_size * if len == 2 { 2 } else { 4 };
    (size, if size < 16 { size } else { 16 })
}

impl TypeStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
    /// Interns `data`, returning the unique handle for it.
    pub fn intern(&mut self, data: TypeData) -> Type {
        if let Some(&t) = self.lookup.get(&data) {
            return t;
        }
        let t = self.types.push(data.clone());
        self.lookup.insert(data, t);
        t
    }
    /// The handle for `data` if it was interned.
    pub fn find(&self, data: &TypeData) -> Option<Type> {
        self.lookup.get(data).copied()
    }
    /// The structure of `t`.
    #[inline]
    pub fn get(&self, t: Type) -> &TypeData {
        &self.types[t]
    }
    /// Number of interned types.
    pub fn len(&self) -> usize {
        self.types.len()
    }
    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.types.is_empty()
    }
    /// All interned types.
    pub fn iter(&self) -> impl Iterator<Item = (Type, &TypeData)> {
        self.types.iter()
    }
    /// Interns a scalar type.
    pub fn scalar(&mut self, k: ScalarKind) -> Type {
        self.intern(TypeData::Scalar(k))
    }
    /// `bool`.
    pub fn bool(&mut self) -> Type {
        self.scalar(ScalarKind::Bool)
    }
    /// `u32`.
    pub fn u32(&mut self) -> Type {
        self.scalar(ScalarKind::U32)
    }
    /// `i32`.
    pub fn i32(&mut self) -> Type {
        self.scalar(ScalarKind::I32)
    }
    /// `f32`.
    pub fn f32(&mut self) -> Type {
        self.scalar(ScalarKind::F32)
    }
    /// `u64`.
    pub fn u64(&mut self) -> Type {
        self.scalar(ScalarKind::U64)
    }
    /// `vector<elem, len>`.
    pub fn vector(&mut self, elem: Type, len: u8) -> Type {
        self.intern(TypeData::Vector { elem, len })
    }
    /// The scalar kind of `t`, if scalar.
    pub fn scalar_kind(&self, t: Type) -> Option<ScalarKind> {
        match self.get(t) {
            TypeData::Scalar(k) => Some(*k),
            _ => None,
        }
    }
    /// The scalar kind of `t` or of its vector element.
    pub fn scalar_or_vector_elem(&self, t: Type) -> Option<ScalarKind> {
        match self.get(t) {
            TypeData::Scalar(k) => Some(*k),
            TypeData::Vector { elem, .. } => self.scalar_kind(*elem),
            _ => None,
        }
    }
    /// Vector length, or 1 for scalars; `None` otherwise.
    pub fn dimension(&self, t: Type) -> Option<u8> {
        match self.get(t) {
            TypeData::Scalar(_) => Some(1),
            TypeData::Vector { len, .. } => Some(*len),
            _ => None,
        }
    }
    /// Whether `t` is a resource type (buffer, texture, bindless array, accel).
    pub fn is_resource(&self, t: Type) -> bool {
        matches!(
            self.get(t),
            TypeData::Buffer { .. }
                | TypeData::Texture { .. }
                | TypeData::BindlessArray
                | TypeData::Accel
        )
    }
    /// Whether `t` is a custom (opaque) type.
    pub fn is_custom(&self, t: Type) -> bool {
        matches!(self.get(t), TypeData::Custom { .. })
    }
    /// Alignment in bytes (LuisaCompute layout rules).
    pub fn align_of(&self, t: Type) -> u64 {
        match self.get(t) {
            TypeData::Scalar(k) => k.size(),
            TypeData::Vector { elem, len } => vector_layout(self.size_of(*elem), *len).1,
            TypeData::Matrix { elem, n } => {
                let e = self.size_of(*elem);
                if *n == 2 { e * 2 } else { e * 4 }
            }
            TypeData::Array { elem, .. } => self.align_of(*elem),
            TypeData::Struct { align, .. } => *align as u64,
            TypeData::CoopVector { elem, .. } => self.align_of(*elem),
            TypeData::CoopVectorRef { .. } | TypeData::CoopMatrixRef { .. } => 4,
            _ => 8,
        }
    }
    /// Size in bytes of the native in-memory layout (with padding).
    pub fn size_of(&self, t: Type) -> u64 {
        match self.get(t) {
            TypeData::Scalar(k) => k.size(),
            TypeData::Vector { elem, len } => vector_layout(self.size_of(*elem), *len).0,
            TypeData::Matrix { elem, n } => {
                let column = self.size_of(*elem) * if *n == 2 { 2 } else { 4 };
                column * *n as u64
            }
            TypeData::Array { elem, len } => self.size_of(*elem).saturating_mul(*len),
            TypeData::Struct { align, members } => {
                let mut off = 0u64;
                for m in members {
                    let a = self.align_of(*m).max(1);
                    off = off.div_ceil(a) * a + self.size_of(*m);
                }
                let a = (*align as u64).max(1);
                off.div_ceil(a) * a
            }
            TypeData::CoopVector { elem, len } => self.size_of(*elem) * *len as u64,
            TypeData::CoopVectorRef { .. } | TypeData::CoopMatrixRef { .. } => 4,
            _ => 8,
        }
    }
    /// Byte offsets of the members of a struct type (native layout).
    pub fn struct_offsets(&self, t: Type) -> Vec<u64> {
        let TypeData::Struct { members, .. } = self.get(t) else {
            return Vec::new();
        };
        let mut off = 0u64;
        let mut out = Vec::with_capacity(members.len());
        for m in members {
            let a = self.align_of(*m).max(1);
            off = off.div_ceil(a) * a;
            out.push(off);
            off += self.size_of(*m);
        }
        out
    }
    /// The natural alignment of a struct with these members (max member alignment, ≥ 1).
    pub fn natural_struct_align(&self, members: &[Type]) -> u32 {
        members
            .iter()
            .map(|m| self.align_of(*m) as u32)
            .max()
            .unwrap_or(1)
            .max(1)
    }
    /// Handles of all types, in interning order.
    pub fn keys(&self) -> impl Iterator<Item = Type> + use<> {
        (0..self.types.len()).map(Type::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_and_layout() {
        let mut ts = TypeStore::new();
        let f = ts.f32();
        let f2 = ts.scalar(ScalarKind::F32);
        assert_eq!(f, f2);
        let v3 = ts.vector(f, 3);
        assert_eq!(ts.size_of(v3), 16);
        assert_eq!(ts.align_of(v3), 16);
        let u = ts.u32();
        let s = ts.intern(TypeData::Struct {
            align: 4,
            members: vec![u, f],
        });
        assert_eq!(ts.size_of(s), 8);
        let b = ts.bool();
        let s2 = ts.intern(TypeData::Struct {
            align: 4,
            members: vec![b, u],
        });
        assert_eq!(ts.size_of(s2), 8);
        assert_eq!(ts.struct_offsets(s2), vec![0, 4]);
    }

    /// Upstream's vector rule: 3-vectors are as large as 4-vectors, alignment is the size
    /// capped at 16 — so 64-bit 3/4-vectors are 32 bytes aligned to 16.
    #[test]
    fn vector_alignment_caps_at_16() {
        let mut ts = TypeStore::new();
        let d = ts.scalar(ScalarKind::F64);
        let h = ts.scalar(ScalarKind::F16);
        for (t, len, size, align) in [(d, 2, 16, 16), (d, 3, 32, 16), (d, 4, 32, 16), (h, 3, 8, 8)]
        {
            let v = ts.vector(t, len);
            assert_eq!((ts.size_of(v), ts.align_of(v)), (size, align), "{len}");
        }
        let f = ts.f32();
        let d4 = ts.vector(d, 4);
        let members = vec![f, d4];
        assert_eq!(ts.natural_struct_align(&members), 16);
        let s = ts.intern(TypeData::Struct { align: 16, members });
        assert_eq!(ts.struct_offsets(s), vec![0, 16]);
        assert_eq!(ts.size_of(s), 48);
    }
}
