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

mod body;
mod items;

use super::ctx::{Ctx, Stmt};
use super::lex_ahead::{LexedTokens, with_tokens};
use super::lexer::{Progress, Tok, ValRef, keyword};
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
/// [`Tok::Error`], which no rule accepts.
pub struct Toks<'s> {
    lex: LexedTokens<'s>,
    /// The next token.
    cur: T<'s>,
    depth: usize,
    /// A `;` at depth 0 was consumed: the lalrpop stream ends the item there.
    item_done: bool,
    /// A lexical error or too deep a nesting was met.
    bad: bool,
}

/// Whether two tokens are of the same kind (payloads ignored).
#[inline]
fn same(a: &Tok<'_>, b: &Tok<'_>) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

impl<'s> Toks<'s> {
    fn new(lex: LexedTokens<'s>) -> Self {
        let mut t = Self {
            lex,
            cur: T {
                tok: Tok::Error,
                l: 0,
                r: 0,
            },
            depth: 0,
            item_done: false,
            bad: false,
        };
        t.load();
        t
    }

    /// Lexes the next token into `cur`.
    #[inline]
    fn load(&mut self) {
        let (tok, span) = match self.lex.next() {
            Some((Ok(t), span)) => (t, span),
            None => (Tok::Error, Span::new(self.cur.r, self.cur.r)),
            Some((Err(()), span)) => {
                self.bad = true;
                (Tok::Error, span)
            }
        };
        self.cur = T {
            tok,
            l: span.start as usize,
            r: span.end as usize,
        };
        match tok {
            Tok::LBrace | Tok::LParen | Tok::LBracket | Tok::Lt => {
                self.depth += 1;
                if self.depth > FAST_MAX_DEPTH {
                    self.bad = true;
                    self.cur.tok = Tok::Error;
                }
            }
            Tok::RBrace | Tok::RParen | Tok::RBracket | Tok::Gt => {
                self.depth = self.depth.saturating_sub(1);
            }
            _ => {}
        }
    }

    /// Consumes and returns the next token.
    #[inline]
    pub fn next(&mut self) -> R<T<'s>> {
        let t = self.cur;
        if self.item_done || matches!(t.tok, Tok::Error) {
            return Err(GiveUp);
        }
        if matches!(t.tok, Tok::Semi) && self.depth == 0 {
            // The lalrpop stream ends the item after this `;`; reading on would diverge.
            self.item_done = true;
        }
        self.load();
        Ok(t)
    }

    /// The next token without consuming it.
    #[inline]
    pub fn peek(&mut self) -> R<Tok<'s>> {
        Ok(self.cur.tok)
    }

    /// Consumes the next token if it is of `tok`'s kind.
    #[inline]
    pub fn eat(&mut self, tok: Tok<'s>) -> R<Option<T<'s>>> {
        if same(&self.cur.tok, &tok) {
            return self.next().map(Some);
        }
        Ok(None)
    }

    /// Consumes a token of `tok`'s kind or gives up.
    #[inline]
    pub fn expect(&mut self, tok: Tok<'s>) -> R<T<'s>> {
        if same(&self.cur.tok, &tok) {
            return self.next();
        }
        Err(GiveUp)
    }

    /// Whether the next token is the keyword `kw`.
    #[inline]
    pub fn at_kw(&mut self, kw: &str) -> R<bool> {
        Ok(matches!(self.cur.tok, Tok::Ident(w) if w == kw))
    }

    /// Consumes the keyword `kw` or gives up.
    #[inline]
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

    /// A word where the grammar wants a non-keyword `Sp<Ident>` but the action looks the
    /// word up in a table without keywords (op names, type names; checked by the test
    /// `no_table_word_is_a_keyword`), so a keyword fails there with a diagnostic and the
    /// keyword lookup can be skipped.
    #[inline]
    pub fn word(&mut self) -> R<(&'s str, Span)> {
        match self.cur.tok {
            Tok::Ident(w) => {
                let t = self.next()?;
                Ok((w, Span::new(t.l, t.r)))
            }
            _ => Err(GiveUp),
        }
    }

    /// A `%…` reference (`Sp<Val>`).
    #[inline]
    pub fn val(&mut self) -> R<(ValRef<'s>, Span)> {
        match self.cur.tok {
            Tok::Val(v) => {
                let t = self.next()?;
                Ok((v, Span::new(t.l, t.r)))
            }
            _ => Err(GiveUp),
        }
    }

    /// A number (`Sp<Num>`).
    #[inline]
    pub fn num(&mut self) -> R<(&'s str, Span)> {
        match self.cur.tok {
            Tok::Num(w) => {
                let t = self.next()?;
                Ok((w, Span::new(t.l, t.r)))
            }
            _ => Err(GiveUp),
        }
    }

    /// A string literal (`Sp<Str>`).
    #[inline]
    pub fn str(&mut self) -> R<(&'s str, Span)> {
        match self.cur.tok {
            Tok::Str(w) => {
                let t = self.next()?;
                Ok((w, Span::new(t.l, t.r)))
            }
            _ => Err(GiveUp),
        }
    }

    /// Start offset of the next token.
    #[inline]
    pub fn peek_l(&mut self) -> R<usize> {
        Ok(self.cur.l)
    }

    /// Starts the next item: `Ok(false)` at the end of the input.
    fn next_item(&mut self) -> R<bool> {
        // The depth is 0 here: the previous item ended at a `;` at depth 0.
        self.item_done = false;
        if self.bad {
            return Err(GiveUp);
        }
        Ok(!matches!(self.cur.tok, Tok::Error))
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
