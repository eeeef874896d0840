//! Type spellings: scalar names, `T<k>` declarations, `vector<…>`, `array<…>`, … and the
//! layout (size, alignment) of every type the parser interns.
//!
//! Layouts are memoised per type when interned, children first, so computing them never
//! recurses however deeply types nest (`TypeStore::size_of` would). Types larger than
//! [`MAX_TYPE_SIZE`] are rejected so no later size computation can overflow.

use super::ctx::{Ctx, Ty};
use super::items::Sp;
use crate::diag::{Diagnostic, Span};
use crate::entity::EntityRef;
use crate::types::{ScalarKind, TextureDim, Type, TypeData};

/// Largest accepted type size in bytes (2^40).
pub const MAX_TYPE_SIZE: u64 = 1 << 40;

/// An argument of a generic type as written.
#[derive(Copy, Clone, Debug)]
pub enum TArg<'s> {
    /// A bare word (resolved in the context of the generic).
    Name(&'s str, Span),
    /// A generic type.
    Ty(Ty, Span),
    /// A number.
    Num(&'s str, Span),
}

impl TArg<'_> {
    fn span(&self) -> Span {
        match self {
            TArg::Name(_, s) | TArg::Ty(_, s) | TArg::Num(_, s) => *s,
        }
    }
}

/// `ScalarKind::from_text_name` as one `match` (the hot path of type names).
#[inline]
fn scalar_kind(s: &str) -> Option<ScalarKind> {
    use ScalarKind as K;
    Some(match s {
        "f32" => K::F32,
        "u32" => K::U32,
        "i32" => K::I32,
        "bool" => K::Bool,
        "f16" => K::F16,
        "f64" => K::F64,
        "u64" => K::U64,
        "i64" => K::I64,
        "u8" => K::U8,
        "i8" => K::I8,
        "u16" => K::U16,
        "i16" => K::I16,
        "f8e4m3" => K::F8E4M3,
        "f8e5m2" => K::F8E5M2,
        "i4" => K::I4,
        "f4e2m1" => K::F4E2M1,
        _ => return None,
    })
}

pub(super) const BUILTINS: &[&str] = &[
    "void",
    "bindless_array",
    "accel",
    "vector",
    "matrix",
    "array",
    "buffer",
    "texture2d",
    "texture3d",
    "coopvec",
    "coopvec_ref",
    "coopmat_ref",
];

impl<'s> Ctx<'s> {
    /// Whether `s` names a built-in type (scalar or generic).
    pub fn builtin_type_name(&self, s: &str) -> bool {
        ScalarKind::from_text_name(s).is_some() || BUILTINS.contains(&s)
    }

    /// Interns `data`, computing its layout; `None` (reported) when it is too large.
    pub fn intern(&mut self, data: TypeData, span: Span) -> Option<Type> {
        let (size, align) = match &data {
            TypeData::Scalar(k) => (k.size(), k.size()),
            TypeData::Vector { elem, len } => {
                crate::types::vector_layout(self.layout(*elem).0, *len)
            }
            TypeData::Matrix { elem, n } => {
                let col = self.layout(*elem).0 * if *n == 2 { 2 } else { 4 };
                (col * *n as u64, col)
            }
            TypeData::Array { elem, len } => {
                let (s, a) = self.layout(*elem);
                (s.saturating_mul(*len), a)
            }
            TypeData::Struct { align, members } => {
                let mut off = 0u64;
                for m in members {
                    let (s, a) = self.layout(*m);
                    let a = a.max(1);
                    off = off.div_ceil(a) * a;
                    off = off.saturating_add(s);
                    if off > MAX_TYPE_SIZE {
                        break;
                    }
                }
                let a = (*align as u64).max(1);
                (off.div_ceil(a) * a, *align as u64)
            }
            TypeData::CoopVector { elem, len } => {
                let (s, a) = self.layout(*elem);
                (s * *len as u64, a)
            }
            TypeData::CoopVectorRef { .. } | TypeData::CoopMatrixRef { .. } => (4, 4),
            _ => (8, 8),
        };
        if size > MAX_TYPE_SIZE {
            self.error("type is too large (more than 2^40 bytes)", span);
            return None;
        }
        let t = self.module.types.intern(data);
        if self.layouts.len() <= t.index() {
            self.layouts.resize(t.index() + 1, (u64::MAX, 0));
        }
        self.layouts[t.index()] = (size, align);
        Some(t)
    }

    /// Size and alignment of `t` (native layout).
    pub fn layout(&self, t: Type) -> (u64, u64) {
        match self.layouts.get(t.index()) {
            Some(&(s, a)) if s != u64::MAX => (s, a),
            // Only shallow types (scalars and the special-register vectors) are interned
            // outside `intern`.
            _ => (self.module.types.size_of(t), self.module.types.align_of(t)),
        }
    }

    /// Whether values of `t` are data (not resources).
    pub fn is_data_type(&self, t: Type) -> bool {
        !self.module.types.is_resource(t)
    }

    fn scalar(&mut self, k: ScalarKind, span: Span) -> Ty {
        self.intern(TypeData::Scalar(k), span)
            .map_or(Ty::Err, Ty::T)
    }

    /// A type written as one word.
    #[inline]
    pub fn named_type(&mut self, n: Sp<'s>) -> Ty {
        // The common case inline: a scalar interned before.
        if let Some(k) = scalar_kind(n.0)
            && let Some(t) = self.scalar_cache[k as usize]
        {
            return Ty::T(t);
        }
        self.named_type_general(n)
    }

    /// [`Self::named_type`] for every case (its inline part handles the common one).
    #[inline(never)]
    fn named_type_general(&mut self, n: Sp<'s>) -> Ty {
        let (name, span) = n;
        if name == "void" {
            return Ty::Void;
        }
        if let Some(k) = scalar_kind(name) {
            if let Some(t) = self.scalar_cache[k as usize] {
                return Ty::T(t);
            }
            let t = self.scalar(k, span);
            if let Ty::T(t) = t {
                self.scalar_cache[k as usize] = Some(t);
            }
            return t;
        }
        match name {
            "bindless_array" => {
                return self
                    .intern(TypeData::BindlessArray, span)
                    .map_or(Ty::Err, Ty::T);
            }
            "accel" => return self.intern(TypeData::Accel, span).map_or(Ty::Err, Ty::T),
            _ => {}
        }
        if let Some((t, _)) = self.tnames.get(name) {
            return Ty::T(*t);
        }
        if BUILTINS.contains(&name) {
            self.error(
                format!("type '{name}' needs arguments, e.g. '{name}<…>'"),
                span,
            );
            return Ty::Err;
        }
        let is_tname = name.len() > 1
            && name.starts_with('T')
            && name[1..].bytes().all(|b| b.is_ascii_digit());
        let mut d = if is_tname {
            Diagnostic::error(format!("use of undeclared type {name}"), Some(span)).with_help(
                format!("declare it before its first use: 'type {name} = struct {{ … }};'"),
            )
        } else {
            Diagnostic::error(format!("unknown type '{name}'"), Some(span))
        };
        if !is_tname {
            let mut cands: Vec<&str> = ScalarKind::ALL.iter().map(|k| k.text_name()).collect();
            cands.extend(BUILTINS.iter().copied());
            cands.extend(self.tnames.keys().copied());
            if let Some(s) = super::syntax::suggest(name, cands.into_iter()) {
                d = d.with_help(format!("did you mean '{s}'?"));
            }
        }
        self.push(d);
        Ty::Err
    }

    /// Resolves a generic argument that must be a type; `ast` also accepts AST scalar
    /// names (`float`, `uint`, … as cooperative-vector descriptions print them).
    fn targ_type(&mut self, a: TArg<'s>, ast: bool) -> Option<Option<Type>> {
        match a {
            TArg::Name(n, span) => {
                if ast && let Some(k) = ScalarKind::from_ast_name(n) {
                    return match self.scalar(k, span) {
                        Ty::T(t) => Some(Some(t)),
                        _ => None,
                    };
                }
                match self.named_type((n, span)) {
                    Ty::T(t) => Some(Some(t)),
                    Ty::Void => Some(None),
                    Ty::Err => None,
                }
            }
            TArg::Ty(Ty::T(t), _) => Some(Some(t)),
            TArg::Ty(Ty::Void, _) => Some(None),
            TArg::Ty(Ty::Err, _) => None,
            TArg::Num(_, span) => {
                self.error("expected a type, found a number", span);
                None
            }
        }
    }

    fn targ_num(&mut self, a: TArg<'s>, min: u64, max: u64) -> Option<u64> {
        match a {
            TArg::Num(n, span) => match n.parse::<u64>() {
                Ok(v) if (min..=max).contains(&v) => Some(v),
                _ => {
                    self.error(format!("expected an integer from {min} to {max}"), span);
                    None
                }
            },
            other => {
                self.error("expected a number", other.span());
                None
            }
        }
    }

    fn need_scalar(
        &mut self,
        t: Option<Type>,
        span: Span,
        pred: fn(ScalarKind) -> bool,
        what: &str,
    ) -> Option<Type> {
        let k = t.and_then(|t| self.module.types.scalar_kind(t));
        if k.is_some_and(pred) {
            return t;
        }
        self.error(what, span);
        None
    }

    fn need_data(&mut self, t: Option<Type>, span: Span, what: &str) -> Option<Type> {
        match t {
            Some(t) if self.is_data_type(t) => Some(t),
            _ => {
                self.error(format!("{what} must be a data type"), span);
                None
            }
        }
    }

    /// `name<args>`.
    pub fn generic_type(&mut self, n: Sp<'s>, count: u32, span: Span) -> Ty {
        let at = self.targs.len().saturating_sub(count as usize);
        let args: super::ctx::TArgList<'s> = self.targs.drain(at..).collect();
        let args = &args[..];
        let (name, nspan) = n;
        let want = |k: usize| -> Option<()> { (args.len() == k).then_some(()) };
        let arity = match name {
            "vector" | "matrix" | "array" | "coopvec" | "coopvec_ref" => 2,
            "buffer" | "texture2d" | "texture3d" => 1,
            "coopmat_ref" => 3,
            _ => {
                let msg = if self.tnames.contains_key(name)
                    || ScalarKind::from_text_name(name).is_some()
                {
                    format!("type '{name}' takes no arguments")
                } else {
                    format!("unknown type '{name}'")
                };
                self.error(msg, nspan);
                return Ty::Err;
            }
        };
        if want(arity).is_none() {
            self.error(
                format!(
                    "'{name}' takes {arity} argument{}",
                    if arity == 1 { "" } else { "s" }
                ),
                span,
            );
            return Ty::Err;
        }
        let any = |_: ScalarKind| true;
        let data = (|| -> Option<TypeData> {
            Some(match name {
                "vector" => {
                    let e = self.targ_type(args[0], false)?;
                    let elem = self.need_scalar(
                        e,
                        args[0].span(),
                        any,
                        "vector elements must be scalars",
                    )?;
                    let len = self.targ_num(args[1], 2, 4)? as u8;
                    TypeData::Vector { elem, len }
                }
                "matrix" => {
                    let e = self.targ_type(args[0], false)?;
                    let elem = self.need_scalar(
                        e,
                        args[0].span(),
                        ScalarKind::is_float,
                        "matrix elements must be floats",
                    )?;
                    let n = self.targ_num(args[1], 2, 4)? as u8;
                    TypeData::Matrix { elem, n }
                }
                "array" => {
                    let e = self.targ_type(args[0], false)?;
                    let elem = self.need_data(e, args[0].span(), "array elements")?;
                    let len = self.targ_num(args[1], 0, u64::MAX)?;
                    TypeData::Array { elem, len }
                }
                "buffer" => {
                    let elem = match self.targ_type(args[0], false)? {
                        None => None,
                        e => Some(self.need_data(e, args[0].span(), "buffer elements")?),
                    };
                    TypeData::Buffer { elem }
                }
                "texture2d" | "texture3d" => {
                    let e = self.targ_type(args[0], false)?;
                    let ok = |k: ScalarKind| {
                        matches!(k, ScalarKind::I32 | ScalarKind::U32 | ScalarKind::F32)
                    };
                    let elem = self.need_scalar(
                        e,
                        args[0].span(),
                        ok,
                        "texture elements must be i32, u32 or f32",
                    )?;
                    let dim = if name == "texture2d" {
                        TextureDim::D2
                    } else {
                        TextureDim::D3
                    };
                    TypeData::Texture { dim, elem }
                }
                "coopvec" => {
                    let e = self.targ_type(args[0], true)?;
                    let elem = self.need_scalar(
                        e,
                        args[0].span(),
                        any,
                        "cooperative vector elements must be scalars",
                    )?;
                    let len = self.targ_num(args[1], 1, u32::MAX as u64)? as u32;
                    TypeData::CoopVector { elem, len }
                }
                "coopvec_ref" => {
                    let len = self.targ_num(args[0], 1, u32::MAX as u64)? as u32;
                    let e = self.targ_type(args[1], true)?;
                    let elem = self.need_scalar(
                        e,
                        args[1].span(),
                        any,
                        "cooperative vector elements must be scalars",
                    )?;
                    TypeData::CoopVectorRef { len, elem }
                }
                _ => {
                    let rows = self.targ_num(args[0], 1, u32::MAX as u64)? as u32;
                    let cols = self.targ_num(args[1], 1, u32::MAX as u64)? as u32;
                    let e = self.targ_type(args[2], true)?;
                    let elem = self.need_scalar(
                        e,
                        args[2].span(),
                        any,
                        "cooperative matrix elements must be scalars",
                    )?;
                    TypeData::CoopMatrixRef { rows, cols, elem }
                }
            })
        })();
        match data.and_then(|d| self.intern(d, span)) {
            Some(t) => Ty::T(t),
            None => Ty::Err,
        }
    }
}
