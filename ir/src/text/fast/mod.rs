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
use super::lexer::{Progress, Tok, ValRef, keyword};
use crate::diag::Span;
use crate::module::Module;
use crate::source_map::SourceMap;
use logos::Logos;
use std::rc::Rc;

/// Deepest bracket nesting the fast reader follows; deeper input goes to lalrpop, whose
/// explicit stack handles `MAX_NESTING_DEPTH` levels. Below the depth at which the
/// token stream's recovery guard starts (64), so the two readers cannot disagree on it.
pub const FAST_MAX_DEPTH: usize = 48;

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

/// The token stream of the fast reader: the logos lexer plus the few rules of the
/// lalrpop token stream that change tokens (raw names after `name =`, bracket depth,
/// the end of an item at a `;` at depth 0).
pub struct Toks<'s> {
    lex: logos::Lexer<'s, Tok<'s>>,
    peeked: Option<T<'s>>,
    depth: usize,
    name_state: u8,
    item_done: bool,
}

impl<'s> Toks<'s> {
    fn new(src: &'s str) -> Self {
        Self {
            lex: Tok::lexer(src),
            peeked: None,
            depth: 0,
            name_state: 0,
            item_done: false,
        }
    }

    /// See `TokenStream::raw_name`: after `name =`, the rest of the line up to `,` or `]`.
    fn raw_name(&mut self) -> Option<T<'s>> {
        let rem = self.lex.remainder();
        let lead = rem.len() - rem.trim_start_matches([' ', '\t']).len();
        let body = &rem[lead..];
        if body.is_empty() || body.starts_with(['"', ',', ']', '\n', '\r']) {
            return None;
        }
        let end = body.find([',', ']', '\n', '\r']).unwrap_or(body.len());
        let raw = body[..end].trim_end();
        let start = self.lex.span().end + lead;
        self.lex.bump(lead + end);
        Some(T {
            tok: Tok::RawName(raw),
            l: start,
            r: start + raw.len(),
        })
    }

    /// The next token of the input; `Ok(None)` at its end.
    fn lex_next(&mut self) -> R<Option<T<'s>>> {
        if self.item_done {
            // The lalrpop stream ends the item here; reading on would diverge from it.
            return Err(GiveUp);
        }
        if self.name_state == 2 {
            self.name_state = 0;
            if let Some(t) = self.raw_name() {
                return Ok(Some(t));
            }
        }
        let tok = match self.lex.next() {
            None => return Ok(None),
            Some(Ok(t)) => t,
            Some(Err(())) => return Err(GiveUp),
        };
        let span = self.lex.span();
        let t = T {
            tok,
            l: span.start,
            r: span.end,
        };
        match tok {
            Tok::Ident("name") => {
                self.name_state = 1;
                return Ok(Some(t));
            }
            Tok::Eq if self.name_state == 1 => self.name_state = 2,
            Tok::LBrace | Tok::LParen | Tok::LBracket | Tok::Lt => {
                self.depth += 1;
                if self.depth > FAST_MAX_DEPTH {
                    return Err(GiveUp);
                }
            }
            Tok::RBrace | Tok::RParen | Tok::RBracket | Tok::Gt => {
                self.depth = self.depth.saturating_sub(1)
            }
            Tok::Semi if self.depth == 0 => self.item_done = true,
            _ => {}
        }
        if self.name_state == 1 || (self.name_state == 2 && tok != Tok::Eq) {
            self.name_state = 0;
        }
        Ok(Some(t))
    }

    /// The next token; end of input is a [`GiveUp`] (every item ends with `;`).
    #[inline]
    pub fn next(&mut self) -> R<T<'s>> {
        match self.peeked.take() {
            Some(t) => Ok(t),
            None => self.lex_next()?.ok_or(GiveUp),
        }
    }

    /// The next token without consuming it.
    #[inline]
    pub fn peek(&mut self) -> R<Tok<'s>> {
        if self.peeked.is_none() {
            self.peeked = Some(self.lex_next()?.ok_or(GiveUp)?);
        }
        Ok(self.peeked.map_or(Tok::Error, |t| t.tok))
    }

    /// Consumes the next token if it is `tok`.
    #[inline]
    pub fn eat(&mut self, tok: Tok<'s>) -> R<Option<T<'s>>> {
        if self.peek()? == tok {
            return self.next().map(Some);
        }
        Ok(None)
    }

    /// Consumes `tok` or gives up.
    #[inline]
    pub fn expect(&mut self, tok: Tok<'s>) -> R<T<'s>> {
        let t = self.next()?;
        if t.tok == tok { Ok(t) } else { Err(GiveUp) }
    }

    /// Whether the next token is the keyword `kw`.
    #[inline]
    pub fn at_kw(&mut self, kw: &str) -> R<bool> {
        Ok(matches!(self.peek()?, Tok::Ident(w) if w == kw))
    }

    /// Consumes the keyword `kw` or gives up.
    #[inline]
    pub fn kw(&mut self, kw: &str) -> R<T<'s>> {
        let t = self.next()?;
        match t.tok {
            Tok::Ident(w) if w == kw => Ok(t),
            _ => Err(GiveUp),
        }
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

    /// A `%…` reference (`Sp<Val>`).
    #[inline]
    pub fn val(&mut self) -> R<(ValRef<'s>, Span)> {
        let t = self.next()?;
        match t.tok {
            Tok::Val(v) => Ok((v, Span::new(t.l, t.r))),
            _ => Err(GiveUp),
        }
    }

    /// A number (`Sp<Num>`).
    #[inline]
    pub fn num(&mut self) -> R<(&'s str, Span)> {
        let t = self.next()?;
        match t.tok {
            Tok::Num(w) => Ok((w, Span::new(t.l, t.r))),
            _ => Err(GiveUp),
        }
    }

    /// A string literal (`Sp<Str>`).
    #[inline]
    pub fn str(&mut self) -> R<(&'s str, Span)> {
        let t = self.next()?;
        match t.tok {
            Tok::Str(w) => Ok((w, Span::new(t.l, t.r))),
            _ => Err(GiveUp),
        }
    }

    /// Whether only whitespace and comments are left.
    fn at_end(&mut self) -> R<bool> {
        if self.peeked.is_some() {
            return Ok(false);
        }
        match self.lex_next()? {
            None => Ok(true),
            Some(t) => {
                self.peeked = Some(t);
                Ok(false)
            }
        }
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
/// only the lalrpop reader may say so or say why not).
pub fn parse(src: &str) -> Option<(Module, SourceMap)> {
    let progress = Rc::new(Progress::default());
    let mut p = Fast {
        ctx: Ctx::new(src, progress.clone()),
        t: Toks::new(src),
    };
    loop {
        p.t.depth = 0;
        p.t.item_done = false;
        if p.t.at_end().ok()? {
            break;
        }
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
