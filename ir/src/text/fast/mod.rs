//! The fast reader: a hand-written recursive-descent parser for the success path.
//!
//! lalrpop's LR machine alone costs more per instruction than the whole parse budget,
//! so well-formed input is read by this parser instead. It reads the same logos
//! [`Tok`] tokens as the lalrpop grammar (keywords are recognised only where the
//! grammar expects one) and calls the same [`Ctx`] actions in the same order with the
//! same spans, so the module, its numbering and the [`SourceMap`] come out identical.
//!
//! It never reports anything: at the first unexpected token, lexical error, bracket
//! nesting deeper than [`FAST_MAX_DEPTH`] or diagnostic pushed by an action it gives up
//! ([`GiveUp`]) and [`parse_module`](super::parse_module) re-reads the whole input with
//! the lalrpop grammar, the single owner of diagnostics and error recovery. The
//! recursion depth is bounded by the bracket depth, so a small stack suffices.
//!
//! The tokens arrive as [`PackedTok`]s from [`lex_ahead`](super::lex_ahead) and stay
//! packed until a rule takes one ([`Toks`]): the loading of the next token is a small
//! out-of-line function, and each rule's inlined `next`/`expect` builds only the part of
//! a [`Tok`] the rule uses (nothing, for punctuation whose span is all that matters).

mod body;
mod items;

use super::ctx::{Ctx, Stmt};
use super::lex_ahead::{LexedTokens, with_tokens};
use super::lexer::{Progress, Tok, ValRef, keyword};
use super::packed_tok::{PackedTok, TokKind};
use crate::diag::Span;
use crate::module::Module;
use crate::source_map::SourceMap;
use std::rc::Rc;

/// Deepest bracket nesting the fast reader follows; deeper input goes to lalrpop, whose
/// explicit stack handles `MAX_NESTING_DEPTH` levels. Below the depth at which the
/// token stream's recovery guard starts (64), so the two readers cannot disagree on it,
/// and low enough for a 256 KiB thread in a debug build (`parse_differential.rs`).
pub const FAST_MAX_DEPTH: usize = 16;

/// The fast reader gave up; the lalrpop reader decides.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GiveUp;

/// Result of a fast-reader step.
pub type R<T> = Result<T, GiveUp>;

/// A token with its byte range.
#[derive(Copy, Clone, Debug)]
pub struct T<'s> {
    /// The token (words stay [`Tok::Ident`]: keywords are checked where needed).
    pub tok: Tok<'s>,
    /// Start byte offset.
    pub l: usize,
    /// End byte offset.
    pub r: usize,
}

/// The token stream of the fast reader: the tokens of [`LexedTokens`] (logos plus the
/// raw-name rule, lexed on a helper thread for large inputs) and the rules of the
/// lalrpop token stream about brackets (depth, the end of an item at a `;` at depth 0).
/// The next token is always loaded (`cur`); end of input and lexical errors load
/// [`TokKind::Error`], which no rule accepts.
///
/// `cur` stays packed: kind tests read one byte, and a [`Tok`] is built (its payload
/// sliced from the source) only for the token a rule consumes or peeks at. Copying a
/// 40-byte [`T`] in and out of `cur` for every token, as this did before, made the
/// reader stall on store-to-load forwarding.
pub struct Toks<'s> {
    lex: LexedTokens<'s>,
    src: &'s str,
    /// The next token.
    cur: PackedTok,
    depth: usize,
    /// A `;` at depth 0 was consumed: the lalrpop stream ends the item there.
    item_done: bool,
    /// A lexical error or too deep a nesting was met.
    bad: bool,
}

/// Whether the next token `cur` is of `tok`'s kind (payloads ignored).
#[inline]
fn same(cur: TokKind, tok: &Tok<'_>) -> bool {
    TokKind::of(tok) == Some(cur)
}

impl<'s> Toks<'s> {
    fn new(lex: LexedTokens<'s>) -> Self {
        let mut t = Self {
            src: lex.src(),
            lex,
            cur: PackedTok::new(TokKind::Error, 0, 0),
            depth: 0,
            item_done: false,
            bad: false,
        };
        t.load();
        t
    }

    /// Lexes the next token into `cur`. Out of line and without calls on its hot path,
    /// so that each rule's inlined [`Toks::next`] stays small.
    #[inline(never)]
    fn load(&mut self) {
        match self.lex.next_buffered() {
            Some(t) => self.set_cur(t),
            None => self.load_next_batch(),
        }
    }

    #[cold]
    #[inline(never)]
    fn load_next_batch(&mut self) {
        match self.lex.next_tok() {
            Some(t) => self.set_cur(t),
            None => {
                let end = self.cur.end() as usize;
                self.cur = PackedTok::new(TokKind::Error, end, end);
            }
        }
    }

    /// Makes `t` the next token, following the bracket depth.
    #[inline(always)]
    fn set_cur(&mut self, mut t: PackedTok) {
        let kind = t.kind();
        if kind.opens() {
            self.depth += 1;
            if self.depth > FAST_MAX_DEPTH {
                self.bad = true;
                t = t.with_kind(TokKind::Error);
            }
        } else if kind.closes() {
            self.depth = self.depth.saturating_sub(1);
        } else if kind == TokKind::Error {
            self.bad = true;
        }
        self.cur = t;
    }

    /// Consumes the next token, returning it packed.
    #[inline(always)]
    fn bump(&mut self) -> R<PackedTok> {
        let t = self.cur;
        let kind = t.kind();
        if self.item_done || kind == TokKind::Error {
            return Err(GiveUp);
        }
        if kind == TokKind::Semi && self.depth == 0 {
            // The lalrpop stream ends the item after this `;`; reading on would diverge.
            self.item_done = true;
        }
        self.load();
        Ok(t)
    }

    /// Consumes and returns the next token. The [`Tok`] is built from the packed token
    /// after the fact, so where a rule uses only the span it is never built.
    #[inline(always)]
    pub fn next(&mut self) -> R<T<'s>> {
        let t = self.bump()?;
        Ok(T {
            tok: t.tok(self.src),
            l: t.start() as usize,
            r: t.end() as usize,
        })
    }

    /// The next token without consuming it.
    #[inline(always)]
    pub fn peek(&mut self) -> R<Tok<'s>> {
        Ok(self.cur.tok(self.src))
    }

    /// Consumes the next token if it is of `tok`'s kind.
    #[inline(always)]
    pub fn eat(&mut self, tok: Tok<'s>) -> R<Option<T<'s>>> {
        if same(self.cur.kind(), &tok) {
            return self.next().map(Some);
        }
        Ok(None)
    }

    /// Consumes a token of `tok`'s kind or gives up.
    #[inline(always)]
    pub fn expect(&mut self, tok: Tok<'s>) -> R<T<'s>> {
        if same(self.cur.kind(), &tok) {
            return self.next();
        }
        Err(GiveUp)
    }

    /// Whether the next token is the keyword `kw`.
    #[inline(always)]
    pub fn at_kw(&mut self, kw: &str) -> R<bool> {
        Ok(self.cur.kind() == TokKind::Ident && self.cur.text(self.src) == kw)
    }

    /// Consumes the keyword `kw` or gives up.
    #[inline(always)]
    pub fn kw(&mut self, kw: &str) -> R<T<'s>> {
        if self.at_kw(kw)? {
            return self.next();
        }
        Err(GiveUp)
    }

    /// A word that is not a keyword (the grammar's `Sp<Ident>`).
    #[inline]
    pub fn ident(&mut self) -> R<(&'s str, Span)> {
        let t = self.next()?;
        match t.tok {
            Tok::Ident(w) if keyword(w).is_none() => Ok((w, Span::new(t.l, t.r))),
            _ => Err(GiveUp),
        }
    }

    /// The text of the next token if it is of `kind`, consumed (`Sp<…>` of a word,
    /// number or string).
    #[inline(always)]
    fn text_of(&mut self, kind: TokKind) -> R<(&'s str, Span)> {
        if self.cur.kind() != kind {
            return Err(GiveUp);
        }
        let t = self.bump()?;
        Ok((t.text(self.src), t.span()))
    }

    /// A word where the grammar wants a non-keyword `Sp<Ident>` but the action looks the
    /// word up in a table without keywords (op names, type names; checked by the test
    /// `no_table_word_is_a_keyword`), so a keyword fails there with a diagnostic and the
    /// keyword lookup can be skipped.
    #[inline(always)]
    pub fn word(&mut self) -> R<(&'s str, Span)> {
        self.text_of(TokKind::Ident)
    }

    /// A `%…` reference (`Sp<Val>`).
    #[inline(always)]
    pub fn val(&mut self) -> R<(ValRef<'s>, Span)> {
        let v = self.cur.val_ref(self.src).ok_or(GiveUp)?;
        let t = self.bump()?;
        Ok((v, t.span()))
    }

    /// A number (`Sp<Num>`).
    #[inline(always)]
    pub fn num(&mut self) -> R<(&'s str, Span)> {
        self.text_of(TokKind::Num)
    }

    /// A string literal (`Sp<Str>`).
    #[inline(always)]
    pub fn str(&mut self) -> R<(&'s str, Span)> {
        self.text_of(TokKind::Str)
    }

    /// Start offset of the next token.
    #[inline]
    pub fn peek_l(&mut self) -> R<usize> {
        Ok(self.cur.start() as usize)
    }

    /// Starts the next item: `Ok(false)` at the end of the input.
    fn next_item(&mut self) -> R<bool> {
        // The depth is 0 here: the previous item ended at a `;` at depth 0.
        self.item_done = false;
        if self.bad {
            return Err(GiveUp);
        }
        Ok(self.cur.kind() != TokKind::Error)
    }
}

/// The fast reader's state: the shared actions and the tokens.
pub struct Fast<'s> {
    /// The shared grammar actions.
    pub ctx: Ctx<'s>,
    /// The tokens.
    pub t: Toks<'s>,
}

/// Reads `src` with the fast reader; `None` when it gave up (the input may be fine, but
/// only the lalrpop reader may say so or say why not). Large inputs are lexed on a
/// helper thread one step ahead of the reader ([`with_tokens`]).
pub fn parse(src: &str) -> Option<(Module, SourceMap)> {
    with_tokens(src, true, |tokens| parse_tokens(src, tokens))
}

fn parse_tokens<'s>(src: &'s str, tokens: LexedTokens<'s>) -> Option<(Module, SourceMap)> {
    let progress = Rc::new(Progress::default());
    let mut p = Fast {
        ctx: Ctx::new(src, progress.clone()),
        t: Toks::new(tokens),
    };
    while p.t.next_item().ok()? {
        let ctx = &mut p.ctx;
        ctx.func = None;
        ctx.cur_block = None;
        ctx.stmt = Stmt::None;
        ctx.suppress_until = 0;
        progress.open_blocks.set(0);
        p.item().ok()?;
        p.ctx.end_function();
        if !p.ctx.diags.is_empty() {
            return None;
        }
    }
    p.ctx.finish();
    if !p.ctx.diags.is_empty() {
        return None;
    }
    Some((p.ctx.module, p.ctx.map))
}

#[cfg(test)]
mod tests {
    use super::keyword;
    use crate::op::*;
    use crate::types::ScalarKind;

    /// What `Toks::word` relies on: no op name, scalar or builtin type name is a keyword
    /// (declared type names are read with the keyword check).
    #[test]
    fn no_table_word_is_a_keyword() {
        let mut words: Vec<&str> = Vec::new();
        words.extend(AllocaOp::ALL.iter().map(|o| o.name()));
        words.extend(CastOp::ALL.iter().map(|o| o.name()));
        words.extend(AtomicOp::ALL.iter().map(|o| o.name()));
        words.extend(ArithmeticOp::ALL.iter().map(|o| o.name()));
        words.extend(ThreadGroupOp::ALL.iter().map(|o| o.name()));
        words.extend(ResourceQueryOp::ALL.iter().map(|o| o.name()));
        words.extend(ResourceReadOp::ALL.iter().map(|o| o.name()));
        words.extend(ResourceWriteOp::ALL.iter().map(|o| o.name()));
        words.extend(RayQueryObjectReadOp::ALL.iter().map(|o| o.name()));
        words.extend(RayQueryObjectWriteOp::ALL.iter().map(|o| o.name()));
        words.extend(ScalarKind::ALL.iter().map(|k| k.text_name()));
        words.extend(crate::text::tyres::BUILTINS.iter().copied());
        assert!(words.len() > 200, "{}", words.len());
        let clash: Vec<&str> = words.into_iter().filter(|w| keyword(w).is_some()).collect();
        assert!(clash.is_empty(), "keywords among table words: {clash:?}");
        // The check can fail.
        assert!(keyword("load").is_some());
    }
}
