//! Panic-free type queries for the verifier, with upstream's exact predicate meanings.
//!
//! Upstream's AST `Type` predicates differ slightly from [`ScalarKind`]'s helpers: `is_float`
//! covers f16/f32/f64 and both 8-bit floats but not `f4e2m1`; `is_int` covers the signed
//! integers including `i4`; `is_scalar` covers every scalar tag. Every lookup here goes
//! through [`Tys::data`], which returns `None` for out-of-range handles, and layouts are
//! computed once, iteratively, with cycle detection, so malformed or deeply nested type
//! stores never panic or overflow the stack.

use crate::entity::EntityRef;
use crate::types::{ScalarKind, TextureDim, Type, TypeData, TypeStore};

/// A structural type pattern (for the fixed ray-tracing struct shapes).
#[derive(Clone, Debug)]
pub(crate) enum Shape {
    /// A scalar.
    S(ScalarKind),
    /// `vector<k, n>`.
    V(ScalarKind, u8),
    /// `array<shape, n>`.
    A(&'static Shape, u64),
    /// `struct<align, members…>`.
    St(u32, &'static [Shape]),
}

const F32: Shape = Shape::S(ScalarKind::F32);
const U32: Shape = Shape::S(ScalarKind::U32);
const F32X3: Shape = Shape::A(&F32, 3);

/// Upstream's `Ray` struct.
pub(crate) const RAY: Shape = Shape::St(16, &[F32X3, F32, F32X3, F32]);
/// Upstream's triangle/surface hit struct.
pub(crate) const SURFACE_HIT: Shape = Shape::St(8, &[U32, U32, Shape::V(ScalarKind::F32, 2), F32]);
/// Upstream's procedural hit struct.
pub(crate) const PROCEDURAL_HIT: Shape = Shape::St(8, &[U32, U32]);
/// Upstream's committed hit struct.
pub(crate) const COMMITTED_HIT: Shape =
    Shape::St(8, &[U32, U32, Shape::V(ScalarKind::F32, 2), U32, F32]);
/// Upstream's motion SRT struct.
pub(crate) const MOTION_SRT: Shape =
    Shape::St(16, &[F32X3, Shape::A(&F32, 4), F32X3, F32X3, F32X3]);

/// [`Tys::class`] bit: a buffer, texture, bindless array or accel.
const RESOURCE: u8 = 1;
/// [`Tys::class`] bit: an opaque custom type.
const CUSTOM: u8 = 2;
/// [`Tys::class`] bit: a scalar.
const SCALAR: u8 = 4;
/// [`Tys::class`] bit: a vector.
const VECTOR: u8 = 8;
/// [`Tys::class`] bit: a signed-integer scalar (upstream `is_int`) or a vector of one.
const INT: u8 = 16;
/// [`Tys::class`] bit: an unsigned-integer scalar or a vector of one.
const UINT: u8 = 32;
/// [`Tys::class`] bit: a float scalar (upstream `is_float`) or a vector of one.
const FLOAT: u8 = 64;
/// [`Tys::class`] bit: `bool` or a bool vector.
const BOOL: u8 = 128;

/// The element-kind bits of a scalar kind ([`INT`], [`UINT`], [`FLOAT`], [`BOOL`]).
fn kind_bits(k: ScalarKind) -> u8 {
    let float = matches!(
        k,
        ScalarKind::F16
            | ScalarKind::F32
            | ScalarKind::F64
            | ScalarKind::F8E4M3
            | ScalarKind::F8E5M2
    );
    (if k.is_signed_int() { INT } else { 0 })
        | (if k.is_unsigned_int() { UINT } else { 0 })
        | (if float { FLOAT } else { 0 })
        | (if k == ScalarKind::Bool { BOOL } else { 0 })
}

/// Type queries over one module's store.
pub(crate) struct Tys<'a> {
    store: &'a TypeStore,
    size: Vec<Option<u64>>,
    align: Vec<Option<u64>>,
    /// Per type, the class bits the operand checks ask about for nearly every operand
    /// ([`RESOURCE`], [`CUSTOM`], [`SCALAR`], [`VECTOR`] and the element kinds of scalars
    /// and vectors): one byte load instead of a look at the type's (and element's) data.
    class: Vec<u8>,
}

impl<'a> Tys<'a> {
    /// Wraps `store` and precomputes every layout.
    pub fn new(store: &'a TypeStore) -> Self {
        let mut t = Tys {
            store,
            size: vec![None; store.len()],
            align: vec![None; store.len()],
            class: store
                .iter()
                .map(|(_, d)| match d {
                    TypeData::Buffer { .. }
                    | TypeData::Texture { .. }
                    | TypeData::BindlessArray
                    | TypeData::Accel => RESOURCE,
                    TypeData::Custom { .. } => CUSTOM,
                    TypeData::Scalar(k) => SCALAR | kind_bits(*k),
                    TypeData::Vector { elem, .. } => {
                        let e = (elem.index() < store.len()).then(|| store.get(*elem));
                        VECTOR
                            | match e {
                                Some(TypeData::Scalar(k)) => kind_bits(*k),
                                _ => 0,
                            }
                    }
                    _ => 0,
                })
                .collect(),
        };
        t.compute_layouts();
        t
    }

    /// The structure of `t`, or `None` for a handle outside the store.
    pub fn data(&self, t: Type) -> Option<&'a TypeData> {
        (t.index() < self.store.len()).then(|| self.store.get(t))
    }

    /// Whether `t` is a handle of this store.
    pub fn valid(&self, t: Type) -> bool {
        t.index() < self.store.len()
    }

    /// The handle of an already-interned type.
    pub fn find(&self, d: &TypeData) -> Option<Type> {
        self.store.find(d)
    }

    fn children(d: &TypeData) -> Vec<Type> {
        match d {
            TypeData::Vector { elem, .. }
            | TypeData::Matrix { elem, .. }
            | TypeData::Array { elem, .. }
            | TypeData::Texture { elem, .. }
            | TypeData::CoopVector { elem, .. }
            | TypeData::CoopVectorRef { elem, .. }
            | TypeData::CoopMatrixRef { elem, .. } => vec![*elem],
            TypeData::Buffer { elem } => elem.iter().copied().collect(),
            TypeData::Struct { members, .. } => members.clone(),
            _ => Vec::new(),
        }
    }

    /// Iterative post-order layout computation; cycles and bad handles give `None`.
    fn compute_layouts(&mut self) {
        let n = self.store.len();
        // 0 = unvisited, 1 = on stack, 2 = done.
        let mut state = vec![0u8; n];
        for root in 0..n {
            if state[root] != 0 {
                continue;
            }
            let mut stack: Vec<(usize, bool)> = vec![(root, false)];
            while let Some((i, expanded)) = stack.pop() {
                if expanded {
                    self.layout_one(i);
                    state[i] = 2;
                    continue;
                }
                if state[i] != 0 {
                    continue;
                }
                state[i] = 1;
                stack.push((i, true));
                for c in Self::children(self.store.get(Type::new(i))) {
                    if c.index() < n && state[c.index()] == 0 {
                        stack.push((c.index(), false));
                    }
                }
            }
        }
    }

    fn layout_one(&mut self, i: usize) {
        let get = |v: &Vec<Option<u64>>, t: Type| v.get(t.index()).copied().flatten();
        let (size, align) = match self.store.get(Type::new(i)) {
            TypeData::Scalar(k) => (Some(k.size()), Some(k.size())),
            TypeData::Vector { elem, len } => {
                let l = get(&self.size, *elem).map(|e| crate::types::vector_layout(e, *len));
                (l.map(|l| l.0), l.map(|l| l.1))
            }
            TypeData::Matrix { elem, n } => {
                let col = get(&self.size, *elem).map(|e| e * if *n == 2 { 2 } else { 4 });
                (col.and_then(|c| c.checked_mul(*n as u64)), col)
            }
            TypeData::Array { elem, len } => (
                get(&self.size, *elem).and_then(|s| s.checked_mul(*len)),
                get(&self.align, *elem),
            ),
            TypeData::Struct { align, members } => {
                let mut off = Some(0u64);
                for m in members {
                    off = match (off, get(&self.size, *m), get(&self.align, *m)) {
                        (Some(o), Some(s), Some(a)) => {
                            let a = a.max(1);
                            o.div_ceil(a).checked_mul(a).and_then(|x| x.checked_add(s))
                        }
                        _ => None,
                    };
                }
                let a = (*align as u64).max(1);
                (
                    off.and_then(|o| o.div_ceil(a).checked_mul(a)),
                    Some(*align as u64),
                )
            }
            TypeData::CoopVector { elem, len } => (
                get(&self.size, *elem).and_then(|s| s.checked_mul(*len as u64)),
                get(&self.align, *elem),
            ),
            TypeData::CoopVectorRef { .. } | TypeData::CoopMatrixRef { .. } => (Some(4), Some(4)),
            _ => (Some(8), Some(8)),
        };
        self.size[i] = size;
        self.align[i] = align;
    }

    /// Native size in bytes (`None` for malformed types).
    pub fn size(&self, t: Type) -> Option<u64> {
        self.size.get(t.index()).copied().flatten()
    }

    /// Native alignment in bytes (`None` for malformed types).
    pub fn align(&self, t: Type) -> Option<u64> {
        self.align.get(t.index()).copied().flatten()
    }

    /// Scalar kind of a scalar type.
    pub fn scalar(&self, t: Type) -> Option<ScalarKind> {
        match self.data(t)? {
            TypeData::Scalar(k) => Some(*k),
            _ => None,
        }
    }
    /// Upstream `is_scalar`.
    pub fn is_scalar(&self, t: Type) -> bool {
        self.class_is(t, SCALAR, 0)
    }
    fn scalar_is(&self, t: Type, f: impl Fn(ScalarKind) -> bool) -> bool {
        self.scalar(t).is_some_and(f)
    }
    /// `bool`.
    pub fn is_bool(&self, t: Type) -> bool {
        self.scalar(t) == Some(ScalarKind::Bool)
    }
    /// Upstream `is_int` (signed, including `i4`).
    pub fn is_int(&self, t: Type) -> bool {
        self.scalar_is(t, |k| k.is_signed_int())
    }
    /// Upstream `is_uint`.
    pub fn is_uint(&self, t: Type) -> bool {
        self.scalar_is(t, |k| k.is_unsigned_int())
    }
    /// Upstream `is_float` (f16, f32, f64, f8e4m3, f8e5m2).
    pub fn is_float(&self, t: Type) -> bool {
        self.scalar_is(t, |k| kind_bits(k) & FLOAT != 0)
    }
    /// Exactly scalar kind `k`.
    pub fn is_kind(&self, t: Type, k: ScalarKind) -> bool {
        self.scalar(t) == Some(k)
    }
    /// `int` or `uint` scalar.
    pub fn integer_scalar(&self, t: Type) -> bool {
        self.is_int(t) || self.is_uint(t)
    }
    /// `i32` or `u32`.
    pub fn index32(&self, t: Type) -> bool {
        self.is_kind(t, ScalarKind::I32) || self.is_kind(t, ScalarKind::U32)
    }

    /// Element of a vector, matrix, array, coopvec or typed buffer/texture.
    pub fn element(&self, t: Type) -> Option<Type> {
        match self.data(t)? {
            TypeData::Vector { elem, .. }
            | TypeData::Matrix { elem, .. }
            | TypeData::Array { elem, .. }
            | TypeData::Texture { elem, .. }
            | TypeData::CoopVector { elem, .. } => Some(*elem),
            TypeData::Buffer { elem } => *elem,
            _ => None,
        }
    }
    /// Upstream `dimension()`: 1 for scalars, the length of vectors/arrays/coopvecs, the
    /// order of matrices, 2/3 for textures.
    pub fn dim(&self, t: Type) -> Option<u64> {
        Some(match self.data(t)? {
            TypeData::Scalar(_) => 1,
            TypeData::Vector { len, .. } => *len as u64,
            TypeData::Matrix { n, .. } => *n as u64,
            TypeData::Array { len, .. } => *len,
            TypeData::CoopVector { len, .. } => *len as u64,
            TypeData::Texture { dim, .. } => match dim {
                TextureDim::D2 => 2,
                TextureDim::D3 => 3,
            },
            _ => return None,
        })
    }
    /// `vector<…>`.
    pub fn is_vector(&self, t: Type) -> bool {
        self.class_is(t, VECTOR, 0)
    }
    /// `matrix<…>`.
    pub fn is_matrix(&self, t: Type) -> bool {
        matches!(self.data(t), Some(TypeData::Matrix { .. }))
    }
    /// `array<…>`.
    pub fn is_array(&self, t: Type) -> bool {
        matches!(self.data(t), Some(TypeData::Array { .. }))
    }
    /// A structure.
    pub fn is_struct(&self, t: Type) -> bool {
        matches!(self.data(t), Some(TypeData::Struct { .. }))
    }
    /// Whether `t` has every class bit of `all` and one of `any` (`any` = 0: none needed).
    #[inline]
    fn class_is(&self, t: Type, all: u8, any: u8) -> bool {
        self.class
            .get(t.index())
            .is_some_and(|c| c & all == all && (any == 0 || c & any != 0))
    }
    /// Buffer, texture, bindless array or accel.
    #[inline]
    pub fn is_resource(&self, t: Type) -> bool {
        self.class.get(t.index()).is_some_and(|c| c & RESOURCE != 0)
    }
    /// An opaque custom type.
    #[inline]
    pub fn is_custom(&self, t: Type) -> bool {
        self.class.get(t.index()).is_some_and(|c| c & CUSTOM != 0)
    }
    /// A custom type with this name.
    pub fn is_custom_named(&self, t: Type, name: &str) -> bool {
        matches!(self.data(t), Some(TypeData::Custom { name: n }) if n == name)
    }
    /// `LC_RayQueryAll` or `LC_RayQueryAny`.
    pub fn is_ray_query(&self, t: Type) -> bool {
        self.is_custom_named(t, "LC_RayQueryAll") || self.is_custom_named(t, "LC_RayQueryAny")
    }
    /// Scalar, vector or matrix.
    pub fn is_basic(&self, t: Type) -> bool {
        self.is_scalar(t) || self.is_vector(t) || self.is_matrix(t)
    }
    /// Scalar or vector.
    pub fn is_sv(&self, t: Type) -> bool {
        self.class_is(t, 0, SCALAR | VECTOR)
    }
    fn sv_elem_is(&self, t: Type, f: impl Fn(&Self, Type) -> bool) -> bool {
        if self.is_scalar(t) {
            return f(self, t);
        }
        self.is_vector(t) && self.element(t).is_some_and(|e| f(self, e))
    }
    /// `bool` or a bool vector.
    pub fn bool_sv(&self, t: Type) -> bool {
        self.class_is(t, BOOL, 0)
    }
    /// A bool vector.
    pub fn bool_vec(&self, t: Type) -> bool {
        self.class_is(t, VECTOR | BOOL, 0)
    }
    /// An int/uint scalar or vector.
    pub fn integer_sv(&self, t: Type) -> bool {
        self.class_is(t, 0, INT | UINT)
    }
    /// An int scalar or vector (signed).
    pub fn int_sv(&self, t: Type) -> bool {
        self.class_is(t, INT, 0)
    }
    /// A uint scalar or vector.
    pub fn uint_sv(&self, t: Type) -> bool {
        self.class_is(t, UINT, 0)
    }
    /// `u32` or a `u32` vector.
    pub fn u32_sv(&self, t: Type) -> bool {
        self.sv_elem_is(t, |s, e| s.is_kind(e, ScalarKind::U32))
    }
    /// A float scalar or vector.
    pub fn float_sv(&self, t: Type) -> bool {
        self.class_is(t, FLOAT, 0)
    }
    /// A float vector.
    pub fn float_vec(&self, t: Type) -> bool {
        self.class_is(t, VECTOR | FLOAT, 0)
    }
    /// Integer or float scalar/vector.
    pub fn numeric_sv(&self, t: Type) -> bool {
        self.class_is(t, 0, INT | UINT | FLOAT)
    }
    /// Integer or bool scalar/vector.
    pub fn bitwise_sv(&self, t: Type) -> bool {
        self.class_is(t, 0, INT | UINT | BOOL)
    }
    /// Both scalar/vector with equal dimension.
    pub fn same_shape(&self, a: Type, b: Type) -> bool {
        self.is_sv(a) && self.is_sv(b) && self.dim(a) == self.dim(b)
    }
    /// `b` is the boolean result shape for operands of type `v`.
    pub fn bool_shape_for(&self, b: Type, v: Type) -> bool {
        if self.is_scalar(v) {
            return self.is_bool(b);
        }
        self.is_vector(v) && self.is_vec_of(b, ScalarKind::Bool, self.dim(v))
    }
    /// `t` is `vector<k, n>`.
    pub fn is_vec_of(&self, t: Type, k: ScalarKind, n: Option<u64>) -> bool {
        match self.data(t) {
            Some(TypeData::Vector { elem, len }) => {
                self.is_kind(*elem, k) && Some(*len as u64) == n
            }
            _ => false,
        }
    }
    /// `t` is `vector<elem, n>` for the given element handle.
    pub fn is_vec_with(&self, t: Type, elem: Option<Type>, n: u64) -> bool {
        matches!(self.data(t), Some(TypeData::Vector { elem: e, len }) if Some(*e) == elem && *len as u64 == n)
    }
    /// `t` is upstream's `matrix<n>` (f32 elements).
    pub fn is_mat_f32(&self, t: Type, n: Option<u64>) -> bool {
        match self.data(t) {
            Some(TypeData::Matrix { elem, n: m }) => {
                self.is_kind(*elem, ScalarKind::F32) && Some(*m as u64) == n
            }
            _ => false,
        }
    }
    /// Structural match against a fixed shape.
    pub fn matches(&self, t: Type, s: &Shape) -> bool {
        match (self.data(t), s) {
            (Some(TypeData::Scalar(k)), Shape::S(x)) => k == x,
            (Some(TypeData::Vector { .. }), Shape::V(k, n)) => {
                self.is_vec_of(t, *k, Some(*n as u64))
            }
            (Some(TypeData::Array { elem, len }), Shape::A(e, n)) => {
                len == n && self.matches(*elem, e)
            }
            (Some(TypeData::Struct { align, members }), Shape::St(a, ms)) => {
                align == a
                    && members.len() == ms.len()
                    && members
                        .iter()
                        .zip(ms.iter())
                        .all(|(m, s)| self.matches(*m, s))
            }
            _ => false,
        }
    }

    /// A short human-readable spelling (xir2text style; deep nesting is elided).
    pub fn name(&self, t: Option<Type>) -> String {
        let mut out = String::new();
        match t {
            None => out.push_str("void"),
            Some(t) => self.write_name(t, 0, &mut out),
        }
        out
    }

    fn write_name(&self, t: Type, depth: usize, out: &mut String) {
        use std::fmt::Write;
        if depth > 6 {
            out.push('…');
            return;
        }
        let Some(d) = self.data(t) else {
            let _ = write!(out, "<invalid type {}>", t.index());
            return;
        };
        let sub = |t: Type, out: &mut String| self.write_name(t, depth + 1, out);
        match d {
            TypeData::Scalar(k) => out.push_str(k.text_name()),
            TypeData::Vector { elem, len } => {
                out.push_str("vector<");
                sub(*elem, out);
                let _ = write!(out, ", {len}>");
            }
            TypeData::Matrix { elem, n } => {
                out.push_str("matrix<");
                sub(*elem, out);
                let _ = write!(out, ", {n}>");
            }
            TypeData::Array { elem, len } => {
                out.push_str("array<");
                sub(*elem, out);
                let _ = write!(out, ", {len}>");
            }
            TypeData::Struct { members, .. } => {
                out.push_str("struct { ");
                for (i, m) in members.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    sub(*m, out);
                }
                out.push_str(" }");
            }
            TypeData::Buffer { elem } => {
                out.push_str("buffer<");
                match elem {
                    Some(e) => sub(*e, out),
                    None => out.push_str("void"),
                }
                out.push('>');
            }
            TypeData::Texture { dim, elem } => {
                out.push_str(match dim {
                    TextureDim::D2 => "texture2d<",
                    TextureDim::D3 => "texture3d<",
                });
                sub(*elem, out);
                out.push('>');
            }
            TypeData::BindlessArray => out.push_str("bindless_array"),
            TypeData::Accel => out.push_str("accel"),
            TypeData::Custom { name } => {
                let _ = write!(out, "opaque {name:?}");
            }
            TypeData::CoopVector { elem, len } => {
                out.push_str("coopvec<");
                sub(*elem, out);
                let _ = write!(out, ", {len}>");
            }
            TypeData::CoopVectorRef { len, elem } => {
                let _ = write!(out, "coopvec_ref<{len}, ");
                sub(*elem, out);
                out.push('>');
            }
            TypeData::CoopMatrixRef { rows, cols, elem } => {
                let _ = write!(out, "coopmat_ref<{rows}, {cols}, ");
                sub(*elem, out);
                out.push('>');
            }
        }
    }
}
