//! Constant initialisers: upstream's raw hex bytes (exactly two hex digits per byte of the
//! native layout) or xir's typed value literals (`16u32`, `-3i32`, `1.0`, `true`,
//! `[…]` for vectors, matrices (columns) and arrays, `{…}` for structs), encoded into
//! native bytes with padding.
//!
//! The grammar only checks the bracket structure of a literal; this module re-lexes the
//! initialiser's text and walks it with an explicit stack, so arbitrarily nested
//! literals never recurse.

use super::ctx::Ctx;
use super::lexer::Tok;
use crate::constant::{ScalarValue, write_scalar};
use crate::diag::{Diagnostic, Span};
use crate::types::{ScalarKind, Type, TypeData};
use logos::Logos;

/// Largest constant accepted, in bytes.
pub const MAX_CONSTANT_BYTES: u64 = 64 << 20;

/// One aggregate being filled.
struct Frame {
    ty: Type,
    base: u64,
    idx: u64,
    n: u64,
    /// End of the previous struct member (struct frames only).
    cursor: u64,
    close: char,
}

type Lexed<'s> = std::iter::Peekable<std::vec::IntoIter<(Tok<'s>, Span)>>;

impl<'s> Ctx<'s> {
    fn type_name(&self, t: Type) -> String {
        match self.module.types.get(t) {
            TypeData::Scalar(k) => k.text_name().to_string(),
            TypeData::Vector { elem, len } => format!("vector<{}, {len}>", self.type_name(*elem)),
            TypeData::Matrix { elem, n } => format!("matrix<{}, {n}>", self.type_name(*elem)),
            TypeData::Array { len, .. } => format!("array<…, {len}>"),
            TypeData::Struct { .. } => "struct".to_string(),
            _ => "this type".to_string(),
        }
    }

    /// The native bytes of the constant of type `t` written at `init`.
    pub fn constant_bytes(&mut self, t: Type, init: Span) -> Option<Vec<u8>> {
        let text = self.text(init);
        let size = self.layout(t).0;
        let (tname, tspan) = (self.type_name(t), init);
        if text.is_empty() {
            // `const %c: array<u32, 0> = ;`: a zero-size constant has no bytes to print.
            if size == 0 {
                return Some(Vec::new());
            }
            self.error(
                format!(
                    "expected {} hex digits for a constant of type {tname}",
                    2 * size
                ),
                init,
            );
            return None;
        }
        if !text.is_empty() && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            if text.len() as u64 == 2 * size {
                return Some(
                    text.as_bytes()
                        .chunks(2)
                        .map(|p| (hex(p[0]) << 4) | hex(p[1]))
                        .collect(),
                );
            }
            if text.bytes().all(|b| b.is_ascii_digit())
                && !(text.len() > 1 && text.starts_with('0'))
            {
                let d = Diagnostic::error(
                    format!("integer literal '{text}' needs a type suffix"),
                    Some(tspan),
                )
                .with_help(format!(
                    "write '{text}{}' for the value, or exactly {} hex digits for the raw bytes",
                    self.module
                        .types
                        .scalar_kind(t)
                        .map_or("u32", |k| k.text_name()),
                    2 * size
                ));
                self.push(d);
            } else {
                let d = Diagnostic::error(
                    format!(
                        "expected {} hex digits for a constant of type {tname}, found {}",
                        2 * size,
                        text.len()
                    ),
                    Some(tspan),
                )
                .with_help("hex bytes are the native little-endian bytes, two digits per byte");
                self.push(d);
            }
            return None;
        }
        if size > MAX_CONSTANT_BYTES || size > 16 * text.len() as u64 + 64 {
            self.error("constant is too large", init);
            return None;
        }
        let mut out = vec![0u8; size as usize];
        let mut toks: Lexed<'s> = relex(text, init.start as usize).into_iter().peekable();
        match self.walk(t, &mut toks, &mut out) {
            Ok(()) => match toks.next() {
                None => Some(out),
                Some((_, span)) => {
                    self.error("unexpected text after the constant value", span);
                    None
                }
            },
            Err(d) => {
                self.push(*d);
                None
            }
        }
    }

    fn walk(
        &mut self,
        t: Type,
        toks: &mut Lexed<'s>,
        out: &mut [u8],
    ) -> Result<(), Box<Diagnostic>> {
        let end_span = |toks: &mut Lexed<'s>, fallback: Span| toks.peek().map_or(fallback, |x| x.1);
        let mut stack: Vec<Frame> = Vec::new();
        let mut want = Some((t, 0u64));
        let mut last = Span::default();
        loop {
            if let Some((ty, off)) = want.take() {
                let data = self.module.types.get(ty).clone();
                let (n, close) = match data {
                    TypeData::Scalar(k) => {
                        let bytes = self.atom(k, toks, &mut last)?;
                        out[off as usize..off as usize + bytes.len()].copy_from_slice(&bytes);
                        (0, ' ')
                    }
                    TypeData::Vector { len, .. } => (len as u64, ']'),
                    TypeData::Matrix { n, .. } => (n as u64, ']'),
                    TypeData::Array { len, .. } => (len, ']'),
                    TypeData::Struct { ref members, .. } => (members.len() as u64, '}'),
                    _ => {
                        return Err(Diagnostic::error(
                            "constants of this type cannot be written as literals",
                            Some(end_span(toks, last)),
                        )
                        .into());
                    }
                };
                if close != ' ' {
                    let open = if close == ']' { '[' } else { '{' };
                    match toks.next() {
                        Some((Tok::LBracket, s)) if open == '[' => last = s,
                        Some((Tok::LBrace, s)) if open == '{' => last = s,
                        other => {
                            let s = other.map_or(last, |x| x.1);
                            return Err(Diagnostic::error(
                                format!(
                                    "expected '{open}' for a value of type {}",
                                    self.type_name(ty)
                                ),
                                Some(s),
                            )
                            .into());
                        }
                    }
                    stack.push(Frame {
                        ty,
                        base: off,
                        idx: 0,
                        n,
                        cursor: 0,
                        close,
                    });
                }
            }
            let Some(top) = stack.last_mut() else {
                return Ok(());
            };
            let closer =
                |t: &Tok| matches!((t, top.close), (Tok::RBracket, ']') | (Tok::RBrace, '}'));
            if top.idx == top.n {
                if matches!(toks.peek(), Some((Tok::Comma, _))) {
                    toks.next();
                }
                match toks.next() {
                    Some((t, s)) if closer(&t) => last = s,
                    other => {
                        let s = other.map_or(last, |x| x.1);
                        return Err(Diagnostic::error(
                            format!(
                                "too many elements: expected {} for {}",
                                top.n,
                                self.type_name(top.ty)
                            ),
                            Some(s),
                        )
                        .into());
                    }
                }
                stack.pop();
                continue;
            }
            if let Some((t, s)) = toks.peek()
                && closer(t)
            {
                return Err(Diagnostic::error(
                    format!(
                        "too few elements: expected {} for {}, found {}",
                        top.n,
                        self.type_name(top.ty),
                        top.idx
                    ),
                    Some(*s),
                )
                .into());
            }
            if top.idx > 0 {
                match toks.next() {
                    Some((Tok::Comma, s)) => last = s,
                    other => {
                        let s = other.map_or(last, |x| x.1);
                        return Err(
                            Diagnostic::error("expected ',' between elements", Some(s)).into()
                        );
                    }
                }
            }
            let (ty, base, idx) = (top.ty, top.base, top.idx);
            top.idx += 1;
            let child = match self.module.types.get(ty).clone() {
                TypeData::Vector { elem, .. } => (elem, base + idx * self.layout(elem).0),
                TypeData::Array { elem, .. } => (elem, base + idx * self.layout(elem).0),
                TypeData::Matrix { elem, n } => {
                    let col = self
                        .intern(TypeData::Vector { elem, len: n }, last)
                        .ok_or_else(|| {
                            Box::new(Diagnostic::error("invalid matrix column type", Some(last)))
                        })?;
                    (col, base + idx * self.layout(col).0)
                }
                TypeData::Struct { members, .. } => {
                    let m = members[idx as usize];
                    let (s, a) = self.layout(m);
                    let top = stack.last_mut().expect("frame");
                    let off = top.cursor.div_ceil(a.max(1)) * a.max(1);
                    top.cursor = off + s;
                    (m, base + off)
                }
                _ => unreachable!("only aggregates push frames"),
            };
            want = Some(child);
        }
    }

    /// Encodes one scalar literal of kind `k`.
    fn atom(
        &mut self,
        k: ScalarKind,
        toks: &mut Lexed<'s>,
        last: &mut Span,
    ) -> Result<Vec<u8>, Box<Diagnostic>> {
        let Some((tok, span)) = toks.next() else {
            return Err(Diagnostic::error(
                format!("expected a {} value", k.text_name()),
                Some(*last),
            )
            .into());
        };
        *last = span;
        let err = |m: String| Diagnostic::error(m, Some(span));
        let kname = k.text_name();
        let value = match (k, tok) {
            (ScalarKind::Bool, Tok::Ident("true")) => ScalarValue::Bool(true),
            (ScalarKind::Bool, Tok::Ident("false")) => ScalarValue::Bool(false),
            (ScalarKind::Bool, _) => return Err(err("expected 'true' or 'false'".into()).into()),
            (k, Tok::Num(text)) if k.is_int() => {
                let digits_end = text
                    .char_indices()
                    .find(|(i, c)| !(c.is_ascii_digit() || (*i == 0 && *c == '-')))
                    .map_or(text.len(), |(i, _)| i);
                let (digits, suffix) = text.split_at(digits_end);
                if suffix.is_empty() {
                    return Err(err(format!("integer literal '{text}' needs a type suffix"))
                        .with_help(format!("write '{text}{kname}'"))
                        .into());
                }
                if suffix != kname {
                    return Err(err(format!("expected a {kname} literal, found '{text}'")).into());
                }
                let v: i128 = digits
                    .parse()
                    .map_err(|_| Box::new(err(format!("invalid integer literal '{text}'"))))?;
                let bits = if k == ScalarKind::I4 {
                    4
                } else {
                    k.size() as u32 * 8
                };
                let (lo, hi) = if k.is_signed_int() {
                    (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
                } else {
                    (0, (1i128 << bits) - 1)
                };
                if v < lo || v > hi {
                    return Err(err(format!("literal {digits} is out of range for {kname}")).into());
                }
                ScalarValue::Int(v as i64)
            }
            (ScalarKind::F16 | ScalarKind::F32 | ScalarKind::F64, Tok::Float(text)) => {
                let v: f64 = text
                    .parse()
                    .map_err(|_| Box::new(err(format!("invalid float literal '{text}'"))))?;
                ScalarValue::Float(v)
            }
            (k, Tok::Ident(w @ ("inf" | "nan"))) if k.is_float() && k.size() > 1 => {
                ScalarValue::Float(if w == "inf" { f64::INFINITY } else { f64::NAN })
            }
            (k, Tok::Minus) if k.is_float() && k.size() > 1 => match toks.next() {
                Some((Tok::Ident("inf"), s)) => {
                    *last = s;
                    ScalarValue::Float(f64::NEG_INFINITY)
                }
                Some((Tok::Ident("nan"), s)) => {
                    *last = s;
                    ScalarValue::Float(-f64::NAN)
                }
                _ => return Err(err("expected 'inf' or 'nan' after '-'".into()).into()),
            },
            (k, Tok::Num(text)) if k.is_float() => {
                return Err(err(format!("float literal '{text}' needs a '.'"))
                    .with_help(format!("write '{text}.0'"))
                    .into());
            }
            (k, _) if k.is_float() && k.size() == 1 || k == ScalarKind::F4E2M1 => {
                return Err(err(format!(
                    "{kname} values have no literal syntax; write the constant as hex bytes"
                ))
                .into());
            }
            _ => return Err(err(format!("expected a {kname} value")).into()),
        };
        // f32 is parsed directly (no double rounding through f64).
        if let (ScalarKind::F32, Tok::Float(text)) = (k, tok) {
            let f: f32 = text
                .parse()
                .map_err(|_| Box::new(err("invalid float".into())))?;
            return Ok(f.to_bits().to_le_bytes().to_vec());
        }
        write_scalar(k, value).ok_or_else(|| err(format!("cannot encode a {kname} literal")).into())
    }
}

fn hex(b: u8) -> u8 {
    match b {
        b'0'..=b'9' => b - b'0',
        b'a'..=b'f' => b - b'a' + 10,
        _ => b - b'A' + 10,
    }
}

/// The tokens of `text` (which starts at byte `base` of the file).
fn relex(text: &str, base: usize) -> Vec<(Tok<'_>, Span)> {
    let mut lex = Tok::lexer(text);
    let mut out = Vec::new();
    while let Some(t) = lex.next() {
        let r = lex.span();
        out.push((
            t.unwrap_or(Tok::Error),
            Span::new(base + r.start, base + r.end),
        ));
    }
    out
}
