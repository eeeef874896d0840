//! The compact form of a lexed token: [`PackedTok`], 16 bytes, no borrowed text.
//!
//! A [`Tok`] with its span and the `Result` of the logos lexer is 32 bytes (a `&str`
//! payload is a pointer and a length). Every payload the DFA produces is a slice of the
//! source at the token's span (or the span minus the `%`/`@` sigil), so the span alone
//! recovers it; the one exception is the value of `%N`, parsed by the lexer and kept as
//! a `u32`. That halves what the lexer thread writes and the reader reads per token
//! (ten tokens per instruction) and lets both move a token as two registers instead of
//! copying a 32-byte struct through the stack.
//!
//! [`NameLexer`](super::lexer::NameLexer) produces packed tokens; [`PackedTok::tok`]
//! turns one back into the [`Tok`] it stands for (tests below check the round trip for
//! every kind and against the plain logos lexer).

use super::lexer::{Tok, ValRef};
use crate::diag::Span;

/// What a [`PackedTok`] is: the [`Tok`] variants the DFA and the raw-name rule produce
/// (keywords are lexed as words and never packed), `%…` split by [`ValRef`] variant, and
/// [`TokKind::Error`] for a lexical error. Openers and closers are contiguous.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
#[allow(missing_docs)]
pub enum TokKind {
    Semi,
    Colon,
    Comma,
    Eq,
    LBrace,
    LParen,
    LBracket,
    Lt,
    RBrace,
    RParen,
    RBracket,
    Gt,
    Amp,
    Minus,
    /// `%N` (the number is [`PackedTok::num`]).
    ValNum,
    /// `%name`.
    ValName,
    /// `%N.suffix` / `%name.suffix`.
    ValDecorated,
    Num,
    Float,
    Str,
    At,
    Ident,
    RawName,
    /// A lexical error (the logos lexer's `Err(())`).
    Error,
}

impl TokKind {
    /// The kind of `tok`; `None` for keyword tokens, which are never packed.
    // Forced inlining only where optimised: in a debug build it would merge frames and
    // deepen the stack the deep-nesting tests measure (`tests/parse_nesting.rs`).
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub fn of(tok: &Tok<'_>) -> Option<TokKind> {
        Some(match tok {
            Tok::Semi => TokKind::Semi,
            Tok::Colon => TokKind::Colon,
            Tok::Comma => TokKind::Comma,
            Tok::Eq => TokKind::Eq,
            Tok::LBrace => TokKind::LBrace,
            Tok::RBrace => TokKind::RBrace,
            Tok::LParen => TokKind::LParen,
            Tok::RParen => TokKind::RParen,
            Tok::LBracket => TokKind::LBracket,
            Tok::RBracket => TokKind::RBracket,
            Tok::Lt => TokKind::Lt,
            Tok::Gt => TokKind::Gt,
            Tok::Amp => TokKind::Amp,
            Tok::Minus => TokKind::Minus,
            Tok::Val(ValRef::Num(_)) => TokKind::ValNum,
            Tok::Val(ValRef::Name(_)) => TokKind::ValName,
            Tok::Val(ValRef::Decorated(_)) => TokKind::ValDecorated,
            Tok::Num(_) => TokKind::Num,
            Tok::Float(_) => TokKind::Float,
            Tok::Str(_) => TokKind::Str,
            Tok::At(_) => TokKind::At,
            Tok::Ident(_) => TokKind::Ident,
            Tok::RawName(_) => TokKind::RawName,
            Tok::Error => TokKind::Error,
            _ => return None,
        })
    }

    /// The kind numbered `n` (`TokKind::X as u8`); [`TokKind::Error`] past the last.
    #[inline]
    fn from_u8(n: u8) -> TokKind {
        // A match, not a table: the identity on 0..=23 compiles to one comparison, and
        // a `match` on the result merges with this one.
        match n {
            0 => TokKind::Semi,
            1 => TokKind::Colon,
            2 => TokKind::Comma,
            3 => TokKind::Eq,
            4 => TokKind::LBrace,
            5 => TokKind::LParen,
            6 => TokKind::LBracket,
            7 => TokKind::Lt,
            8 => TokKind::RBrace,
            9 => TokKind::RParen,
            10 => TokKind::RBracket,
            11 => TokKind::Gt,
            12 => TokKind::Amp,
            13 => TokKind::Minus,
            14 => TokKind::ValNum,
            15 => TokKind::ValName,
            16 => TokKind::ValDecorated,
            17 => TokKind::Num,
            18 => TokKind::Float,
            19 => TokKind::Str,
            20 => TokKind::At,
            21 => TokKind::Ident,
            22 => TokKind::RawName,
            _ => TokKind::Error,
        }
    }

    /// `{`, `(`, `[` or `<`.
    #[inline]
    pub fn opens(self) -> bool {
        matches!(
            self,
            TokKind::LBrace | TokKind::LParen | TokKind::LBracket | TokKind::Lt
        )
    }

    /// `}`, `)`, `]` or `>`.
    #[inline]
    pub fn closes(self) -> bool {
        matches!(
            self,
            TokKind::RBrace | TokKind::RParen | TokKind::RBracket | TokKind::Gt
        )
    }
}

/// One lexed token in 16 bytes: its kind, its byte range and, for `%N`, the number.
///
/// Two `u64` words rather than four fields: a struct with a `u8` field and padding is
/// copied piecewise (a byte, a word, …) and read back whole, which the processor cannot
/// forward from its store buffer; two words always travel as two registers.
#[derive(Copy, Clone, PartialEq, Eq)]
pub struct PackedTok {
    /// Start offset in the low half, end offset in the high half.
    range: u64,
    /// The `%N` number (or 0) in the low half, the [`TokKind`] in the high half.
    word: u64,
}

const _: () = assert!(std::mem::size_of::<PackedTok>() == 16);

impl std::fmt::Debug for PackedTok {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}@{}..{}", self.kind(), self.start(), self.end())?;
        if self.kind() == TokKind::ValNum {
            write!(f, "={}", self.num())?;
        }
        Ok(())
    }
}

impl PackedTok {
    /// A token of `kind` (not [`TokKind::ValNum`]) over `start..end`.
    #[inline]
    pub fn new(kind: TokKind, start: usize, end: usize) -> Self {
        // `parse_module` rejects inputs of 4 GiB or more, so offsets fit in u32.
        PackedTok {
            range: u64::from(start as u32) | u64::from(end as u32) << 32,
            word: (kind as u64) << 32,
        }
    }

    /// A `%N` token over `start..end`.
    #[inline]
    pub fn val_num(num: u32, start: usize, end: usize) -> Self {
        let mut t = PackedTok::new(TokKind::ValNum, start, end);
        t.word |= u64::from(num);
        t
    }

    /// Start byte offset.
    #[inline]
    pub fn start(self) -> u32 {
        self.range as u32
    }

    /// End byte offset (exclusive).
    #[inline]
    pub fn end(self) -> u32 {
        (self.range >> 32) as u32
    }

    /// The value of a [`TokKind::ValNum`]; 0 otherwise.
    #[inline]
    pub fn num(self) -> u32 {
        self.word as u32
    }

    /// What the token is.
    #[inline]
    pub fn kind(self) -> TokKind {
        TokKind::from_u8((self.word >> 32) as u8)
    }

    /// The same token as another kind (the number is kept).
    #[inline]
    pub fn with_kind(self, kind: TokKind) -> Self {
        PackedTok {
            range: self.range,
            word: (self.word & u64::from(u32::MAX)) | (kind as u64) << 32,
        }
    }

    /// The span.
    #[inline]
    pub fn span(self) -> Span {
        Span {
            start: self.start(),
            end: self.end(),
        }
    }

    /// The token's text in `src` (the source it was lexed from).
    #[inline]
    pub fn text(self, src: &str) -> &str {
        // `get`, not indexing: the span always fits, and a lookup that cannot panic is
        // removed by the optimiser wherever the text goes unused.
        src.get(self.start() as usize..self.end() as usize)
            .unwrap_or_default()
    }

    /// The text after the one-byte sigil (`%`, `@`).
    #[inline]
    fn after_sigil(self, src: &str) -> &str {
        src.get(self.start() as usize + 1..self.end() as usize)
            .unwrap_or_default()
    }

    /// The `%…` reference of a `Val*` token; `None` for other kinds.
    #[inline]
    pub fn val_ref(self, src: &str) -> Option<ValRef<'_>> {
        match self.kind() {
            TokKind::ValNum => Some(ValRef::Num(self.num())),
            TokKind::ValName => Some(ValRef::Name(self.after_sigil(src))),
            TokKind::ValDecorated => Some(ValRef::Decorated(self.after_sigil(src))),
            _ => None,
        }
    }

    /// The token this stands for, payloads sliced from `src` (the source it was lexed
    /// from); a lexical error reads as [`Tok::Error`].
    // Forced inlining only where optimised: in a debug build it would merge frames and
    // deepen the stack the deep-nesting tests measure (`tests/parse_nesting.rs`).
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub fn tok(self, src: &str) -> Tok<'_> {
        match self.kind() {
            TokKind::Semi => Tok::Semi,
            TokKind::Colon => Tok::Colon,
            TokKind::Comma => Tok::Comma,
            TokKind::Eq => Tok::Eq,
            TokKind::LBrace => Tok::LBrace,
            TokKind::RBrace => Tok::RBrace,
            TokKind::LParen => Tok::LParen,
            TokKind::RParen => Tok::RParen,
            TokKind::LBracket => Tok::LBracket,
            TokKind::RBracket => Tok::RBracket,
            TokKind::Lt => Tok::Lt,
            TokKind::Gt => Tok::Gt,
            TokKind::Amp => Tok::Amp,
            TokKind::Minus => Tok::Minus,
            TokKind::ValNum => Tok::Val(ValRef::Num(self.num())),
            TokKind::ValName => Tok::Val(ValRef::Name(self.after_sigil(src))),
            TokKind::ValDecorated => Tok::Val(ValRef::Decorated(self.after_sigil(src))),
            TokKind::Num => Tok::Num(self.text(src)),
            TokKind::Float => Tok::Float(self.text(src)),
            TokKind::Str => Tok::Str(self.text(src)),
            TokKind::At => Tok::At(self.after_sigil(src)),
            TokKind::Ident => Tok::Ident(self.text(src)),
            TokKind::RawName => Tok::RawName(self.text(src)),
            TokKind::Error => Tok::Error,
        }
    }

    /// The token as the logos lexer reports it: `Err(())` for a lexical error.
    #[inline]
    pub fn lexed(self, src: &str) -> (Result<Tok<'_>, ()>, Span) {
        let tok = match self.kind() {
            TokKind::Error => Err(()),
            _ => Ok(self.tok(src)),
        };
        (tok, self.span())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::lexer::NameLexer;
    use logos::Logos;

    /// Every kind, errors included, and no `name =` (so no raw names).
    const ALL_KINDS: &str = "; : , = { } ( ) [ ] < > & - %12 %4294967295 %x_1 %3.undefined \
        %a.dispatch_id 42 -7 0x1f 1.5 -2.5e+3 1e-9 \"s\\\"q\" @grad word T0 f32 $ %99999999999 \
        \"open\n// comment\nmodule";

    #[test]
    fn packed_tokens_are_the_logos_tokens() {
        let logos: Vec<_> = Tok::lexer(ALL_KINDS)
            .spanned()
            .map(|(t, r)| (t, Span::new(r.start, r.end)))
            .collect();
        let packed: Vec<_> = NameLexer::new(ALL_KINDS).collect();
        assert_eq!(logos, packed);
        let kinds: Vec<TokKind> = NameLexer::new(ALL_KINDS)
            .packed()
            .map(|p| p.kind())
            .collect();
        // Raw names are not logos tokens (`kinds_round_trip` covers them).
        for k in (0..=TokKind::Error as u8).filter(|k| *k != TokKind::RawName as u8) {
            assert!(kinds.iter().any(|x| *x as u8 == k), "kind {k} not covered");
        }
        // The payloads: %N's number, sigils stripped, text otherwise.
        let max = ALL_KINDS.find("%4294967295").unwrap();
        let max_span = Span::new(max, max + 11);
        assert!(packed.contains(&(Ok(Tok::Val(ValRef::Num(u32::MAX))), max_span)));
        assert!(packed.iter().any(|t| t.0 == Ok(Tok::At("grad"))));
        assert!(
            packed
                .iter()
                .any(|t| t.0 == Ok(Tok::Val(ValRef::Name("x_1"))))
        );
        assert!(packed.iter().filter(|t| t.0.is_err()).count() >= 3);
    }

    #[test]
    fn kinds_round_trip() {
        let src = "[name = a raw name, n = \"q\"] %7";
        for p in NameLexer::new(src).packed() {
            let tok = p.tok(src);
            assert_eq!(TokKind::of(&tok), Some(p.kind()), "{tok:?}");
            assert_eq!(p.val_ref(src).is_some(), matches!(tok, Tok::Val(_)));
            if let Tok::Val(v) = tok {
                assert_eq!(p.val_ref(src), Some(v));
            }
        }
        assert!(
            NameLexer::new(src)
                .packed()
                .any(|p| p.kind() == TokKind::RawName && p.text(src) == "a raw name")
        );
        assert_eq!(TokKind::of(&Tok::Inst(crate::inst::InstTag::Load)), None);
        for k in 0..=TokKind::Error as u8 {
            assert_eq!(TokKind::from_u8(k) as u8, k);
        }
        let t = PackedTok::val_num(u32::MAX, 3, 7);
        assert_eq!(
            (t.kind(), t.num(), t.start(), t.end()),
            (TokKind::ValNum, u32::MAX, 3, 7)
        );
        assert_eq!(t.with_kind(TokKind::Error).kind(), TokKind::Error);
        assert_eq!(TokKind::of(&Tok::Error), Some(TokKind::Error));
    }
}
