//! AST type descriptions (`int`, `vector<float,3>`, `struct<16,float,uint>`,
//! `buffer<void>`, `texture<2,float>`, `coopvec_ref<16,5>`, custom names …), as the
//! interchange writes and parses them (reference §2.3).
//!
//! [`describe_all`] computes the description of every interned type bottom-up (members
//! are always interned before their aggregates, so no recursion), and reports the types
//! whose description would not parse back to the very same type (`i4`, `f4e2m1`,
//! non-float matrices, struct alignments other than 1/4/8/16, nesting deeper than 64,
//! descriptions over 16 KiB, …). [`parse_type`] is the reader's parser; its recursion is
//! bounded by the 64-level description depth.

use super::{MAX_PAYLOAD_SIZE, MAX_RECORD_COUNT, MAX_TYPE_DEPTH, MAX_TYPE_DESCRIPTION_SIZE};
use crate::types::{ScalarKind, TextureDim, Type, TypeData, TypeStore};

/// The element enum of cooperative vector/matrix references, in upstream order.
pub const COOP_REF_ELEMENTS: [ScalarKind; 8] = [
    ScalarKind::U8,
    ScalarKind::I8,
    ScalarKind::U32,
    ScalarKind::I32,
    ScalarKind::F16,
    ScalarKind::F32,
    ScalarKind::F8E4M3,
    ScalarKind::F8E5M2,
];

/// Identifiers that cannot name a custom type (scalars, type constructors, `void`, and
/// the names upstream's type registry reserves).
const RESERVED: &[&str] = &[
    "void",
    "bool",
    "byte",
    "ubyte",
    "short",
    "ushort",
    "int",
    "uint",
    "long",
    "ulong",
    "half",
    "float",
    "double",
    "float8e4m3",
    "float8e5m2",
    "int4",
    "fp4e2m1",
    "vector",
    "matrix",
    "array",
    "coopvec",
    "coopvec_ref",
    "coopmat_ref",
    "struct",
    "buffer",
    "texture",
    "bindless_array",
    "accel",
];

/// How a description parses: plain data, custom, resource, cooperative reference.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Class {
    Data,
    Custom,
    Resource,
    CoopRef,
}

fn class_of(ts: &TypeStore, t: Type) -> Class {
    match ts.get(t) {
        TypeData::Custom { .. } => Class::Custom,
        TypeData::Buffer { .. }
        | TypeData::Texture { .. }
        | TypeData::BindlessArray
        | TypeData::Accel => Class::Resource,
        TypeData::CoopVectorRef { .. } | TypeData::CoopMatrixRef { .. } => Class::CoopRef,
        _ => Class::Data,
    }
}

fn valid_custom_name(name: &str) -> bool {
    let b = name.as_bytes();
    match b.split_first() {
        None => false,
        Some((h, rest)) => {
            (h.is_ascii_alphabetic() || *h == b'_')
                && rest.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
                && !RESERVED.contains(&name)
        }
    }
}

/// Descriptions of every interned type (index = type index); `Err` explains why a type
/// cannot be written to the interchange.
pub fn describe_all(ts: &TypeStore) -> Vec<Result<String, String>> {
    let mut out: Vec<Result<String, String>> = Vec::with_capacity(ts.len());
    let mut height: Vec<usize> = Vec::with_capacity(ts.len());
    for t in ts.keys() {
        let (r, h) = describe_one(ts, t, &out, &height);
        let r = r.and_then(|s| {
            if h > MAX_TYPE_DEPTH {
                Err(format!("type nests deeper than {MAX_TYPE_DEPTH} levels"))
            } else if s.len() > MAX_TYPE_DESCRIPTION_SIZE {
                Err("type description exceeds 16 KiB".to_string())
            } else {
                Ok(s)
            }
        });
        out.push(r);
        height.push(h);
    }
    out
}

fn describe_one(
    ts: &TypeStore,
    t: Type,
    done: &[Result<String, String>],
    height: &[usize],
) -> (Result<String, String>, usize) {
    use crate::entity::EntityRef;
    let sub = |e: Type| -> Result<&str, String> {
        match done.get(e.index()) {
            Some(Ok(s)) => Ok(s.as_str()),
            Some(Err(e)) => Err(e.clone()),
            None => Err("type refers to a later type".into()),
        }
    };
    let h = |e: Type| height.get(e.index()).copied().unwrap_or(usize::MAX - 1) + 1;
    let num_ok = |n: u64| n <= MAX_RECORD_COUNT as u64;
    let r = match ts.get(t) {
        TypeData::Scalar(k) => {
            return (
                k.ast_name().map(str::to_string).ok_or_else(|| {
                    format!("scalar type `{}` has no AST description", k.text_name())
                }),
                0,
            );
        }
        TypeData::Vector { elem, len } => {
            let r = (|| {
                if !matches!(ts.get(*elem), TypeData::Scalar(_)) || !(2..=4).contains(len) {
                    return Err("malformed vector type".to_string());
                }
                Ok(format!("vector<{},{len}>", sub(*elem)?))
            })();
            return (r, h(*elem));
        }
        TypeData::Matrix { elem, n } => {
            if ts.scalar_kind(*elem) != Some(ScalarKind::F32) || !(2..=4).contains(n) {
                Err("only float matrices of dimension 2..4 have an AST description".to_string())
            } else {
                Ok(format!("matrix<{n}>"))
            }
        }
        TypeData::Array { elem, len } => {
            let r = (|| {
                if class_of(ts, *elem) != Class::Data
                    || matches!(ts.get(*elem), TypeData::CoopVector { .. })
                {
                    return Err("array element must be plain data".to_string());
                }
                let size = ts.size_of(*elem);
                if !num_ok(*len) || (*len != 0 && size > MAX_PAYLOAD_SIZE as u64 / *len) {
                    return Err("array length exceeds the interchange limits".to_string());
                }
                Ok(format!("array<{},{len}>", sub(*elem)?))
            })();
            return (r, h(*elem));
        }
        TypeData::Struct { align, members } => {
            let mut height_max = 0usize;
            let r = (|| {
                if ![1, 4, 8, 16].contains(align) {
                    return Err(format!("struct alignment {align} is not 1, 4, 8 or 16"));
                }
                let mut s = format!("struct<{align}");
                for m in members {
                    height_max = height_max.max(h(*m));
                    if class_of(ts, *m) != Class::Data
                        || matches!(ts.get(*m), TypeData::CoopVector { .. })
                    {
                        return Err("struct members must be plain data".to_string());
                    }
                    if ts.align_of(*m) > u64::from(*align) {
                        return Err("struct member alignment exceeds the struct's".to_string());
                    }
                    s.push(',');
                    s.push_str(sub(*m)?);
                    if s.len() > MAX_TYPE_DESCRIPTION_SIZE {
                        return Err("type description exceeds 16 KiB".to_string());
                    }
                }
                s.push('>');
                Ok(s)
            })();
            return (r, height_max);
        }
        TypeData::Buffer { elem: None } => Ok("buffer<void>".to_string()),
        TypeData::Buffer { elem: Some(e) } => {
            let r = (|| {
                let c = class_of(ts, *e);
                if c == Class::Resource
                    || c == Class::CoopRef
                    || matches!(ts.get(*e), TypeData::CoopVector { .. })
                {
                    return Err("buffer element must be data or custom".to_string());
                }
                let d = sub(*e)?;
                if d.starts_with("void") {
                    return Err("buffer element description starts with `void`".to_string());
                }
                Ok(format!("buffer<{d}>"))
            })();
            return (r, h(*e));
        }
        TypeData::Texture { dim, elem } => {
            let r = match ts.scalar_kind(*elem) {
                Some(ScalarKind::I32 | ScalarKind::U32 | ScalarKind::F32) => {
                    let d = if *dim == TextureDim::D2 { 2 } else { 3 };
                    sub(*elem).map(|e| format!("texture<{d},{e}>"))
                }
                _ => Err("texture element must be int, uint or float".to_string()),
            };
            return (r, h(*elem));
        }
        TypeData::BindlessArray => Ok("bindless_array".to_string()),
        TypeData::Accel => Ok("accel".to_string()),
        TypeData::Custom { name } => {
            if valid_custom_name(name) {
                Ok(name.clone())
            } else {
                Err(format!("custom type name `{name}` does not round-trip"))
            }
        }
        TypeData::CoopVector { elem, len } => {
            let r = (|| {
                if !matches!(ts.get(*elem), TypeData::Scalar(_)) || *len == 0 {
                    return Err("malformed cooperative vector".to_string());
                }
                let size = ts.size_of(*elem);
                if !num_ok(u64::from(*len)) || size > MAX_PAYLOAD_SIZE as u64 / u64::from(*len) {
                    return Err("cooperative vector length exceeds the limits".to_string());
                }
                Ok(format!("coopvec<{},{len}>", sub(*elem)?))
            })();
            return (r, h(*elem));
        }
        TypeData::CoopVectorRef { len, elem } => match coop_ref_index(ts, *elem) {
            Some(e) if *len > 0 && num_ok(u64::from(*len)) => Ok(format!("coopvec_ref<{len},{e}>")),
            _ => Err("cooperative vector reference does not round-trip".to_string()),
        },
        TypeData::CoopMatrixRef { rows, cols, elem } => match coop_ref_index(ts, *elem) {
            Some(e)
                if *rows > 0
                    && *cols > 0
                    && num_ok(u64::from(*rows))
                    && num_ok(u64::from(*cols)) =>
            {
                Ok(format!("coopmat_ref<{rows},{cols},{e}>"))
            }
            _ => Err("cooperative matrix reference does not round-trip".to_string()),
        },
    };
    (r, 0)
}

fn coop_ref_index(ts: &TypeStore, elem: Type) -> Option<usize> {
    let k = ts.scalar_kind(elem)?;
    COOP_REF_ELEMENTS.iter().position(|x| *x == k)
}

/// Parses a type description into `ts`. `"void"` is `Ok(None)`; anything malformed or
/// outside the limits is `Err(())`.
#[allow(clippy::result_unit_err)]
pub fn parse_type(desc: &[u8], ts: &mut TypeStore) -> Result<Option<Type>, ()> {
    if desc == b"void" {
        return Ok(None);
    }
    if desc.is_empty() || desc.len() > MAX_TYPE_DESCRIPTION_SIZE {
        return Err(());
    }
    let mut p = Parser { s: desc, i: 0, ts };
    let (t, _) = p.ty(0).ok_or(())?;
    if p.i != desc.len() {
        return Err(());
    }
    Ok(Some(t))
}

struct Parser<'s, 't> {
    s: &'s [u8],
    i: usize,
    ts: &'t mut TypeStore,
}

impl Parser<'_, '_> {
    fn punct(&mut self, c: u8) -> Option<()> {
        (self.s.get(self.i) == Some(&c)).then(|| self.i += 1)
    }
    fn word(&mut self) -> Option<&str> {
        let b = self.i;
        let first = *self.s.get(b)?;
        if !(first.is_ascii_alphabetic() || first == b'_') {
            return None;
        }
        self.i += 1;
        while self
            .s
            .get(self.i)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            self.i += 1;
        }
        std::str::from_utf8(&self.s[b..self.i]).ok()
    }
    /// A decimal no larger than the record limit.
    fn number(&mut self) -> Option<u64> {
        let b = self.i;
        let mut v: u64 = 0;
        while let Some(c) = self.s.get(self.i).filter(|c| c.is_ascii_digit()) {
            v = v * 10 + u64::from(c - b'0');
            if v > MAX_RECORD_COUNT as u64 {
                return None;
            }
            self.i += 1;
        }
        (self.i != b).then_some(v)
    }
    fn data_elem(&mut self, depth: usize) -> Option<Type> {
        let (t, c) = self.ty(depth + 1)?;
        (c == Class::Data).then_some(t)
    }
    fn is_scalar(&self, t: Type) -> bool {
        matches!(self.ts.get(t), TypeData::Scalar(_))
    }
    fn is_coopvec(&self, t: Type) -> bool {
        matches!(self.ts.get(t), TypeData::CoopVector { .. })
    }
    fn coop_elem(&mut self) -> Option<Type> {
        let e = usize::try_from(self.number()?).ok()?;
        let k = *COOP_REF_ELEMENTS.get(e)?;
        Some(self.ts.scalar(k))
    }
    fn ty(&mut self, depth: usize) -> Option<(Type, Class)> {
        if depth > MAX_TYPE_DEPTH {
            return None;
        }
        let name = self.word()?.to_string();
        if let Some(k) = ScalarKind::from_ast_name(&name) {
            return Some((self.ts.scalar(k), Class::Data));
        }
        let max = MAX_PAYLOAD_SIZE as u64;
        let t = match name.as_str() {
            "bindless_array" => {
                return Some((self.ts.intern(TypeData::BindlessArray), Class::Resource));
            }
            "accel" => return Some((self.ts.intern(TypeData::Accel), Class::Resource)),
            "vector" => {
                self.punct(b'<')?;
                let e = self.data_elem(depth).filter(|e| self.is_scalar(*e))?;
                self.punct(b',')?;
                let n = self.number().filter(|n| (2..=4).contains(n))?;
                self.punct(b'>')?;
                self.ts.intern(TypeData::Vector {
                    elem: e,
                    len: n as u8,
                })
            }
            "matrix" => {
                self.punct(b'<')?;
                let n = self.number().filter(|n| (2..=4).contains(n))?;
                self.punct(b'>')?;
                let f = self.ts.f32();
                self.ts.intern(TypeData::Matrix {
                    elem: f,
                    n: n as u8,
                })
            }
            "array" => {
                self.punct(b'<')?;
                let e = self.data_elem(depth).filter(|e| !self.is_coopvec(*e))?;
                self.punct(b',')?;
                let n = self.number()?;
                self.punct(b'>')?;
                if n != 0 && self.ts.size_of(e) > max / n {
                    return None;
                }
                self.ts.intern(TypeData::Array { elem: e, len: n })
            }
            "coopvec" => {
                self.punct(b'<')?;
                let e = self.data_elem(depth).filter(|e| self.is_scalar(*e))?;
                self.punct(b',')?;
                let n = self.number().filter(|n| *n > 0)?;
                self.punct(b'>')?;
                if self.ts.size_of(e) > max / n {
                    return None;
                }
                self.ts.intern(TypeData::CoopVector {
                    elem: e,
                    len: n as u32,
                })
            }
            "coopvec_ref" => {
                self.punct(b'<')?;
                let n = self.number().filter(|n| *n > 0)?;
                self.punct(b',')?;
                let e = self.coop_elem()?;
                self.punct(b'>')?;
                let t = self.ts.intern(TypeData::CoopVectorRef {
                    len: n as u32,
                    elem: e,
                });
                return Some((t, Class::CoopRef));
            }
            "coopmat_ref" => {
                self.punct(b'<')?;
                let r = self.number().filter(|n| *n > 0)?;
                self.punct(b',')?;
                let c = self.number().filter(|n| *n > 0)?;
                self.punct(b',')?;
                let e = self.coop_elem()?;
                self.punct(b'>')?;
                let t = self.ts.intern(TypeData::CoopMatrixRef {
                    rows: r as u32,
                    cols: c as u32,
                    elem: e,
                });
                return Some((t, Class::CoopRef));
            }
            "struct" => {
                self.punct(b'<')?;
                let a = self.number().filter(|a| [1, 4, 8, 16].contains(a))?;
                if !matches!(self.s.get(self.i), Some(b',' | b'>')) {
                    return None;
                }
                let mut members = Vec::new();
                while self.punct(b',').is_some() {
                    let m = self.data_elem(depth).filter(|m| !self.is_coopvec(*m))?;
                    if self.ts.align_of(m) > a {
                        return None;
                    }
                    members.push(m);
                }
                self.punct(b'>')?;
                self.ts.intern(TypeData::Struct {
                    align: a as u32,
                    members,
                })
            }
            "buffer" => {
                self.punct(b'<')?;
                if self.s[self.i..].starts_with(b"void") {
                    self.i += 4;
                    self.punct(b'>')?;
                    return Some((
                        self.ts.intern(TypeData::Buffer { elem: None }),
                        Class::Resource,
                    ));
                }
                let (e, c) = self.ty(depth + 1)?;
                if c == Class::Resource || c == Class::CoopRef || self.is_coopvec(e) {
                    return None;
                }
                self.punct(b'>')?;
                return Some((
                    self.ts.intern(TypeData::Buffer { elem: Some(e) }),
                    Class::Resource,
                ));
            }
            "texture" => {
                self.punct(b'<')?;
                let d = match self.number()? {
                    2 => TextureDim::D2,
                    3 => TextureDim::D3,
                    _ => return None,
                };
                self.punct(b',')?;
                let e = self.data_elem(depth)?;
                if !matches!(
                    self.ts.scalar_kind(e),
                    Some(ScalarKind::I32 | ScalarKind::U32 | ScalarKind::F32)
                ) {
                    return None;
                }
                self.punct(b'>')?;
                let t = self.ts.intern(TypeData::Texture { dim: d, elem: e });
                return Some((t, Class::Resource));
            }
            _ if valid_custom_name(&name) => {
                return Some((self.ts.intern(TypeData::Custom { name }), Class::Custom));
            }
            _ => return None,
        };
        Some((t, Class::Data))
    }
}
