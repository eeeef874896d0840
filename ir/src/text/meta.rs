//! Metadata items: `name = x`, `location = ("file", 3)`, `comment = "…"`,
//! `curve_basis = {a, b}`, `signature_constraint`, `reg2mem_spill = phi`, and the xir
//! extensions `no_inline`, `contiguous_copy = (N, W)` and `strided_mma = {…}`.
//!
//! The grammar parses a flat, bounded-depth shape (`key`, `key = atom`,
//! `key = (atoms)`, `key = {fields}`); this module checks it against the kind.

use super::ctx::Ctx;
use super::items::Sp;
use crate::diag::{Diagnostic, Span};
use crate::metadata::{CurveBasis, CurveBasisSet, Metadata, MetadataKind, SpillKind, StridedMma};

/// A metadata value as parsed.
pub enum MdV<'s> {
    /// A word, number or string (strings keep their quotes).
    Atom(Sp<'s>),
    /// `(a, b, …)`.
    Tuple(Vec<Sp<'s>>, Span),
    /// `{a, k = v, …}`.
    Set(Vec<MdField<'s>>, Span),
}

impl MdV<'_> {
    fn span(&self) -> Span {
        match self {
            MdV::Atom((_, s)) | MdV::Tuple(_, s) | MdV::Set(_, s) => *s,
        }
    }
}

/// One field of a `{…}` metadata value.
pub struct MdField<'s> {
    /// `key =`, if present.
    pub key: Option<Sp<'s>>,
    /// The value (an atom or a tuple).
    pub val: MdV<'s>,
}

fn is_str(a: &Sp<'_>) -> bool {
    a.0.starts_with('"')
}

impl<'s> Ctx<'s> {
    fn md_u64(&mut self, a: Sp<'s>) -> Option<u64> {
        let r = a.0.parse::<u64>().ok();
        if r.is_none() {
            self.error("expected an unsigned integer", a.1);
        }
        r
    }

    fn md_tuple(&mut self, key: &str, v: &MdV<'s>, n: usize) -> Option<Vec<Sp<'s>>> {
        match v {
            MdV::Tuple(items, _) if items.len() == n => Some(items.clone()),
            other => {
                self.error(format!("'{key}' takes a tuple of {n} values"), other.span());
                None
            }
        }
    }

    /// One metadata item.
    pub fn md_entry(&mut self, key: Sp<'s>, val: Option<MdV<'s>>, span: Span) -> Option<Metadata> {
        self.tick();
        let (k, kspan) = key;
        let Some(kind) = MetadataKind::ALL.into_iter().find(|m| m.name() == k) else {
            let mut d = Diagnostic::error(format!("unknown metadata '{k}'"), Some(kspan));
            if let Some(s) = super::syntax::suggest(k, MetadataKind::ALL.iter().map(|m| m.name())) {
                d = d.with_help(format!("did you mean '{s}'?"));
            }
            self.push(d);
            return None;
        };
        let flag = matches!(
            kind,
            MetadataKind::SignatureConstraint | MetadataKind::NoInline
        );
        let val = match (flag, val) {
            (true, None) => {
                return Some(if kind == MetadataKind::NoInline {
                    Metadata::NoInline
                } else {
                    Metadata::SignatureConstraint
                });
            }
            (true, Some(v)) => {
                self.error(format!("'{k}' takes no value"), v.span());
                return None;
            }
            (false, None) => {
                self.error(format!("'{k}' needs a value ('{k} = …')"), span);
                return None;
            }
            (false, Some(v)) => v,
        };
        match kind {
            MetadataKind::Name => match val {
                MdV::Atom(a) if is_str(&a) => self.unescape(a).map(Metadata::Name),
                MdV::Atom((w, _)) => Some(Metadata::Name(w.to_string())),
                other => {
                    self.error("'name' takes a word or a string", other.span());
                    None
                }
            },
            MetadataKind::Comment => match val {
                MdV::Atom(a) if is_str(&a) => self.unescape(a).map(Metadata::Comment),
                other => {
                    self.error("'comment' takes a string", other.span());
                    None
                }
            },
            MetadataKind::Location => {
                let t = self.md_tuple(k, &val, 2)?;
                if !is_str(&t[0]) {
                    self.error("expected a file name string", t[0].1);
                    return None;
                }
                let file = self.unescape(t[0])?;
                let Ok(line) = t[1].0.parse::<i32>() else {
                    self.error("expected a line number", t[1].1);
                    return None;
                };
                Some(Metadata::Location { file, line })
            }
            MetadataKind::CurveBasis => {
                let MdV::Set(fields, s) = val else {
                    self.error(
                        "'curve_basis' takes a set like {bezier, catmull_rom}",
                        val.span(),
                    );
                    return None;
                };
                let mut set = CurveBasisSet::default();
                for f in fields {
                    match (&f.key, &f.val) {
                        (None, MdV::Atom((w, ws))) => match CurveBasis::from_name(w) {
                            Some(b) => set.insert(b),
                            None => {
                                self.error(format!("unknown curve basis '{w}'"), *ws);
                                return None;
                            }
                        },
                        _ => {
                            self.error("expected a curve basis name", s);
                            return None;
                        }
                    }
                }
                Some(Metadata::CurveBasis(set))
            }
            MetadataKind::Reg2MemSpill => match val {
                MdV::Atom(("phi", _)) => Some(Metadata::Reg2MemSpill(SpillKind::Phi)),
                MdV::Atom(("cross_block", _)) => {
                    Some(Metadata::Reg2MemSpill(SpillKind::CrossBlock))
                }
                other => {
                    self.error("'reg2mem_spill' is 'phi' or 'cross_block'", other.span());
                    None
                }
            },
            MetadataKind::ContiguousCopy => {
                let t = self.md_tuple(k, &val, 2)?;
                let n = self.md_u64(t[0])?;
                let w = self.md_u64(t[1])?;
                let Ok(w) = u32::try_from(w) else {
                    self.error("vector width must fit in 32 bits", t[1].1);
                    return None;
                };
                Some(Metadata::ContiguousCopy {
                    element_count: n,
                    vector_width: w,
                })
            }
            MetadataKind::StridedMma => self.strided_mma(val),
            MetadataKind::SignatureConstraint | MetadataKind::NoInline => unreachable!(),
        }
    }

    /// `strided_mma = {extents = (M, N, K), strides = (A, B, C), vector_width = W,
    /// reassociation = true|false, vectorization_mode = V}` (omitted fields are 0/false).
    fn strided_mma(&mut self, val: MdV<'s>) -> Option<Metadata> {
        let MdV::Set(fields, s) = val else {
            self.error("'strided_mma' takes a set of fields", val.span());
            return None;
        };
        let mut m = StridedMma::default();
        for f in fields {
            let Some((key, kspan)) = f.key else {
                self.error("expected 'field = value'", f.val.span());
                return None;
            };
            match (key, &f.val) {
                ("extents", MdV::Tuple(t, _)) if t.len() == 3 => {
                    for (i, a) in t.iter().enumerate() {
                        m.extents[i] = u32::try_from(self.md_u64(*a)?).ok()?;
                    }
                }
                ("strides", MdV::Tuple(t, _)) if t.len() == 3 => {
                    for (i, a) in t.iter().enumerate() {
                        m.strides[i] = self.md_u64(*a)?;
                    }
                }
                ("vector_width", MdV::Atom(a)) => {
                    m.vector_width = u32::try_from(self.md_u64(*a)?).ok()?
                }
                ("vectorization_mode", MdV::Atom(a)) => {
                    m.vectorization_mode = u32::try_from(self.md_u64(*a)?).ok()?
                }
                ("reassociation", MdV::Atom(("true", _))) => m.reassociation = true,
                ("reassociation", MdV::Atom(("false", _))) => m.reassociation = false,
                _ => {
                    self.error(format!("invalid strided_mma field '{key}'"), kspan);
                    return None;
                }
            }
        }
        let _ = s;
        Some(Metadata::StridedMma(Box::new(m)))
    }
}
