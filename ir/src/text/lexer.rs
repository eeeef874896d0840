//! Tokens of the xir text format (a logos DFA) and the token stream the lalrpop parser
//! reads.
//!
//! Keywords that steer the grammar are distinct tokens; everything else that looks like
//! a word (op names, scalar type names, `T0`, hex bytes starting with a letter) is an
//! [`Tok::Ident`] resolved by the parser actions through the op/type tables. Comments
//! (`//` to end of line, which covers upstream's debug-info comments `// users:`,
//! `// preds:` and `// CFG = {…}` whatever their content) and whitespace are skipped.
//!
//! [`TokenStream`] wraps the logos lexer for one top-level item: it ends the item after a
//! `;` at bracket depth 0, turns lexical errors into [`Tok::Error`] tokens (so the
//! grammar's statement-level recovery applies) and enforces the nesting limit.

use super::packed_tok::{PackedTok, TokKind};
use crate::diag::{Diagnostic, Span};
use crate::inst::InstTag;
use logos::Logos;
use std::cell::Cell;

/// A `%…` value reference as written.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ValRef<'s> {
    /// `%N`.
    Num(u32),
    /// `%name` (a symbolic, parse-time-only label).
    Name(&'s str),
    /// `%N.suffix` or `%name.suffix` (`undefined` or a special-register name); the
    /// payload is the text after `%`.
    Decorated(&'s str),
}

fn num_ref<'s>(lex: &mut logos::Lexer<'s, Tok<'s>>) -> Option<ValRef<'s>> {
    // The digits after `%` (the regex guarantees at least one); `None` past u32::MAX.
    // Hand-rolled: `str::parse` costs ~4x more, on one token in three of a module.
    let mut n: u32 = 0;
    for &c in &lex.slice().as_bytes()[1..] {
        n = n.checked_mul(10)?.checked_add(u32::from(c - b'0'))?;
    }
    Some(ValRef::Num(n))
}

fn name_ref<'s>(lex: &mut logos::Lexer<'s, Tok<'s>>) -> ValRef<'s> {
    ValRef::Name(&lex.slice()[1..])
}

fn decorated_ref<'s>(lex: &mut logos::Lexer<'s, Tok<'s>>) -> ValRef<'s> {
    ValRef::Decorated(&lex.slice()[1..])
}

/// A token. Keyword spellings are the grammar's terminals; the DFA lexes every word as
/// [`Tok::Ident`] and [`TokenStream`] turns keywords into their own tokens ([`keyword`]).
#[derive(Logos, Copy, Clone, Debug, PartialEq)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip(r"//[^\n]*", allow_greedy = true))]
#[allow(missing_docs)]
pub enum Tok<'s> {
    #[token(";")]
    Semi,
    #[token(":")]
    Colon,
    #[token(",")]
    Comma,
    #[token("=")]
    Eq,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token("&")]
    Amp,
    #[token("-")]
    Minus,

    /// `%N`, `%name`, `%N.undefined`, `%N.dispatch_id`, …
    #[regex(r"%[0-9]+", num_ref)]
    #[regex(r"%[A-Za-z_][A-Za-z0-9_]*", name_ref)]
    #[regex(r"%[A-Za-z0-9_]+\.[A-Za-z_][A-Za-z0-9_]*", decorated_ref)]
    Val(ValRef<'s>),
    /// A word starting with a digit (decimal, hex bytes, suffixed literal), optionally
    /// negative.
    #[regex(r"-?[0-9][0-9A-Za-z_]*", |l| l.slice())]
    Num(&'s str),
    /// A decimal float literal (contains a `.`).
    #[regex(r"-?[0-9]+\.[0-9]*([eE][+-]?[0-9]+)?", |l| l.slice(), priority = 5)]
    #[regex(r"-?[0-9]+[eE][+-][0-9]+", |l| l.slice(), priority = 5)]
    Float(&'s str),
    /// A double-quoted string, quotes included (escapes decoded by the parser).
    #[regex(r#""([^"\\\n]|\\[^\n])*""#, |l| l.slice())]
    Str(&'s str),
    /// `@name` (autodiff intrinsics).
    #[regex(r"@[A-Za-z_][A-Za-z0-9_]*", |l| &l.slice()[1..])]
    At(&'s str),
    /// Any other word.
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*", |l| l.slice())]
    Ident(&'s str),

    // Top level.
    KwModule,
    KwType,
    KwStruct,
    KwOpaque,
    KwAlign,
    KwConst,
    KwUndef,
    KwKernel,
    KwCallable,
    KwExternal,
    KwRasterVertex,
    KwRasterFragment,
    KwBlockSize,
    KwDefine,
    KwNull,
    // Instructions.
    KwThen,
    KwElse,
    KwMerge,
    KwCase,
    KwDefault,
    KwPrepare,
    KwBody,
    KwUpdate,
    KwForward,
    KwEntry,
    KwDispatch,
    KwExit,
    KwOnSurface,
    KwOnProcedural,
    KwExport,
    /// An instruction keyword (the instruction table's [`InstTag::text_keyword`]).
    Inst(InstTag),
    KwExtension,
    KwCallback,

    /// The raw (unquoted) text after `name =` in a metadata list, up to the next `,`,
    /// `]` or end of line (produced by [`TokenStream`], not by the DFA).
    RawName(&'s str),
    KwSpecial,

    /// A lexical error (reported by the stream; the grammar never accepts it).
    Error,
}

impl Tok<'_> {
    /// How the token reads in a diagnostic (`'…'` quoted).
    pub fn describe(&self, src_slice: &str) -> String {
        match self {
            Tok::Str(_) => "string literal".to_string(),
            Tok::Error => "invalid input".to_string(),
            _ => {
                let s: String = src_slice.chars().take(40).collect();
                format!("'{s}'")
            }
        }
    }
}

/// Keywords other than the instruction keywords, grouped by length (a word is looked up
/// only among words of its length).
const KEYWORDS: [&[(&str, Tok<'static>)]; 24] = [
    &[],
    &[],
    &[],
    &[],
    &[
        ("type", Tok::KwType),
        ("null", Tok::KwNull),
        ("then", Tok::KwThen),
        ("else", Tok::KwElse),
        ("case", Tok::KwCase),
        ("body", Tok::KwBody),
        ("exit", Tok::KwExit),
    ],
    &[
        ("align", Tok::KwAlign),
        ("const", Tok::KwConst),
        ("undef", Tok::KwUndef),
        ("merge", Tok::KwMerge),
        ("entry", Tok::KwEntry),
    ],
    &[
        ("module", Tok::KwModule),
        ("struct", Tok::KwStruct),
        ("opaque", Tok::KwOpaque),
        ("kernel", Tok::KwKernel),
        ("define", Tok::KwDefine),
        ("update", Tok::KwUpdate),
        ("export", Tok::KwExport),
    ],
    &[
        ("default", Tok::KwDefault),
        ("prepare", Tok::KwPrepare),
        ("forward", Tok::KwForward),
        ("special", Tok::KwSpecial),
    ],
    &[
        ("callable", Tok::KwCallable),
        ("external", Tok::KwExternal),
        ("dispatch", Tok::KwDispatch),
        ("callback", Tok::KwCallback),
    ],
    &[("extension", Tok::KwExtension)],
    &[("block_size", Tok::KwBlockSize)],
    &[],
    &[],
    &[("raster_vertex", Tok::KwRasterVertex)],
    &[],
    &[("raster_fragment", Tok::KwRasterFragment)],
    &[],
    &[],
    &[],
    &[],
    &[("on_surface_candidate", Tok::KwOnSurface)],
    &[],
    &[],
    &[("on_procedural_candidate", Tok::KwOnProcedural)],
];

/// The keyword token spelled `s`, if any: an instruction keyword of the instruction
/// table ([`Tok::Inst`]) or one of [`KEYWORDS`].
#[inline]
pub fn keyword(s: &str) -> Option<Tok<'static>> {
    if let Some(t) = InstTag::from_keyword(s) {
        return Some(Tok::Inst(t));
    }
    let group = KEYWORDS.get(s.len())?;
    let first = s.as_bytes()[0];
    group
        .iter()
        .find(|(k, _)| k.as_bytes()[0] == first && *k == s)
        .map(|(_, t)| *t)
}

/// One token as the logos lexer produced it (`Err(())` is a lexical error), with its
/// span.
pub type Lexed<'s> = (Result<Tok<'s>, ()>, Span);

/// The logos lexer plus the one context rule of the text format. Upstream prints names
/// raw: after `name =`, everything up to the next `,`, `]` or end of line (trailing
/// blanks trimmed) is one [`Tok::RawName`], unless it starts with `"` (then the string
/// is lexed as usual). Both readers read their tokens from here: the fast reader as
/// [`PackedTok`]s ([`NameLexer::next_packed`]), the lalrpop stream as [`Lexed`] tokens
/// unpacked from those.
#[derive(Clone)]
pub struct NameLexer<'s> {
    lex: logos::Lexer<'s, Tok<'s>>,
    /// 1 after the word `name`, 2 after `name =`.
    name_state: u8,
}

impl<'s> NameLexer<'s> {
    /// A lexer at the start of `src`.
    pub fn new(src: &'s str) -> Self {
        NameLexer {
            lex: Tok::lexer(src),
            name_state: 0,
        }
    }

    /// The text not lexed yet.
    pub fn remainder(&self) -> &'s str {
        self.lex.remainder()
    }

    /// After `name =`: consumes the raw name and returns it; `None` (nothing consumed)
    /// when the value is quoted or empty.
    #[cold]
    fn raw_name(&mut self) -> Option<PackedTok> {
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
        Some(PackedTok::new(TokKind::RawName, start, start + raw.len()))
    }

    /// The next token, packed.
    // Forced inlining only where optimised: in a debug build it would merge frames and
    // deepen the stack the deep-nesting tests measure (`tests/parse_nesting.rs`).
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub fn next_packed(&mut self) -> Option<PackedTok> {
        if self.name_state == 2 {
            self.name_state = 0;
            if let Some(t) = self.raw_name() {
                return Some(t);
            }
        }
        let t = self.lex.next()?;
        let r = self.lex.span();
        // One dispatch on the token decides both its kind and the raw-name state.
        let mut name_state = 0;
        let kind = match t {
            Ok(Tok::Ident(w)) => {
                name_state = u8::from(w == "name");
                TokKind::Ident
            }
            Ok(Tok::Eq) => {
                if self.name_state == 1 {
                    name_state = 2;
                }
                TokKind::Eq
            }
            Ok(Tok::Val(ValRef::Num(n))) => {
                self.name_state = 0;
                return Some(PackedTok::val_num(n, r.start, r.end));
            }
            Ok(t) => TokKind::of(&t).expect("the DFA lexes keywords as words"),
            Err(()) => TokKind::Error,
        };
        self.name_state = name_state;
        Some(PackedTok::new(kind, r.start, r.end))
    }

    /// The remaining tokens, packed (for the tests that compare them with logos's).
    #[cfg(test)]
    pub(crate) fn packed(self) -> impl Iterator<Item = PackedTok> + 's {
        let mut lex = self;
        std::iter::from_fn(move || lex.next_packed())
    }
}

impl<'s> Iterator for NameLexer<'s> {
    type Item = Lexed<'s>;

    #[inline]
    fn next(&mut self) -> Option<Lexed<'s>> {
        let t = self.next_packed()?;
        Some(t.lexed(self.lex.source()))
    }
}

/// Nesting and recovery guards shared between the stream and the parser actions.
#[derive(Debug, Default)]
pub struct Progress {
    /// Bumped by parser actions whenever they build something.
    pub ticks: Cell<u64>,
    /// Nested blocks currently open (each one is a state lalrpop's error recovery
    /// searches, so recovery costs grow with it).
    pub open_blocks: Cell<usize>,
    /// Set once enough errors were reported: the stream ends.
    pub stop: Cell<bool>,
}

impl Progress {
    /// Records that the parser made progress.
    #[inline]
    pub fn tick(&self) {
        self.ticks.set(self.ticks.get().wrapping_add(1));
    }
}

/// Why a token stream stopped the whole parse.
#[derive(Clone, Debug, PartialEq)]
pub struct Fatal(pub Box<Diagnostic>);

/// Deepest bracket nesting accepted: `MAX_NESTING_DEPTH` structured levels plus the
/// brackets around them (the function body, a type or literal inside the innermost one).
const MAX_BRACKET_DEPTH: usize = crate::MAX_NESTING_DEPTH + 8;

/// Tokens skipped without parser progress before recovery is abandoned (only while many
/// blocks or brackets are open, where lalrpop's recovery search costs the depth of its
/// state stack for every skipped token).
const RECOVERY_BUDGET: u32 = 4096;
/// Open blocks or brackets above which the recovery budget applies.
const RECOVERY_DEPTH: usize = 64;
/// Stack states lalrpop may examine while skipping tokens in recovery: the budget shrinks
/// as the nesting grows, so depth × skipped tokens stays bounded (a 10,000-deep literal
/// followed by garbage once took 1.6 s on 10 KB of input; a megabyte would take minutes).
const RECOVERY_WORK: usize = 1 << 20;

/// Tokens that may be skipped without progress at nesting depth `deep`.
fn recovery_budget(deep: usize) -> u32 {
    let by_work = (RECOVERY_WORK / deep.max(1)).min(RECOVERY_BUDGET as usize) as u32;
    by_work.max(64)
}

/// The tokens of one top-level item, with lexical errors reported as diagnostics.
pub struct TokenStream<'s, 'p> {
    lex: NameLexer<'s>,
    src: &'s str,
    depth: usize,
    done: bool,
    /// Set when the whole parse must stop (nesting too deep).
    pub fatal: bool,
    /// Lexical diagnostics produced so far.
    pub diags: Vec<Diagnostic>,
    progress: &'p Progress,
    last_ticks: u64,
    idle: u32,
    /// Tokens produced so far (for the statistics of the benchmark).
    pub count: u64,
}

impl<'s, 'p> TokenStream<'s, 'p> {
    /// A stream over `src`.
    pub fn new(src: &'s str, progress: &'p Progress) -> Self {
        Self {
            lex: NameLexer::new(src),
            src,
            depth: 0,
            done: false,
            fatal: false,
            diags: Vec::new(),
            progress,
            last_ticks: 0,
            idle: 0,
            count: 0,
        }
    }

    /// Starts the next item; false at end of input or after a fatal error.
    pub fn next_item(&mut self) -> bool {
        if self.fatal {
            return false;
        }
        self.done = false;
        self.depth = 0;
        !self.lex.remainder().trim_start().is_empty() && self.has_more_tokens()
    }

    fn has_more_tokens(&self) -> bool {
        // Only comments and whitespace left means no more items.
        let mut probe = self.lex.clone();
        probe.next().is_some()
    }

    fn lex_error(&mut self, span: Span) {
        let (start, end) = (span.start as usize, span.end as usize);
        let text = &self.src[start..end];
        let d = if text.starts_with('"') {
            Diagnostic::error(
                "unterminated string literal",
                Some(Span::new(start, start + 1)),
            )
            .with_label("string starts here")
            .with_help("strings end with '\"' on the same line; write a newline as \\n")
        } else if let Some(rest) = text.strip_prefix('%') {
            let msg = if rest.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                "value id is too large"
            } else {
                "expected a value id or name after '%'"
            };
            Diagnostic::error(msg, Some(span))
        } else {
            let c = text.chars().next().unwrap_or('?');
            Diagnostic::error(
                format!("unexpected character '{}'", c.escape_debug()),
                Some(Span::new(start, start + c.len_utf8())),
            )
        };
        self.diags.push(d);
    }

    fn fatal_error(&mut self, d: Diagnostic) -> Fatal {
        self.fatal = true;
        self.done = true;
        Fatal(Box::new(d))
    }
}

impl<'s> Iterator for TokenStream<'s, '_> {
    type Item = Result<(usize, Tok<'s>, usize), Fatal>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.progress.stop.get() {
            return None;
        }
        let (tok, sp) = self.lex.next()?;
        self.count += 1;
        let span = (sp.start as usize)..(sp.end as usize);
        let tok = match tok {
            // A raw name or the word `name` neither nests nor counts toward recovery.
            Ok(t @ (Tok::RawName(_) | Tok::Ident("name"))) => {
                return Some(Ok((span.start, t, span.end)));
            }
            Ok(Tok::Ident(w)) => keyword(w).unwrap_or(Tok::Ident(w)),
            Ok(t) => t,
            Err(()) => {
                self.lex_error(sp);
                Tok::Error
            }
        };
        match tok {
            Tok::LBrace | Tok::LParen | Tok::LBracket | Tok::Lt => {
                self.depth += 1;
                if self.depth > MAX_BRACKET_DEPTH {
                    let d = Diagnostic::error(
                        format!(
                            "nesting too deep (more than {} levels)",
                            crate::MAX_NESTING_DEPTH
                        ),
                        Some(Span::new(span.start, span.end)),
                    );
                    return Some(Err(self.fatal_error(d)));
                }
            }
            Tok::RBrace | Tok::RParen | Tok::RBracket | Tok::Gt => {
                self.depth = self.depth.saturating_sub(1)
            }
            Tok::Semi if self.depth == 0 => self.done = true,
            _ => {}
        }
        let deep = self.progress.open_blocks.get().max(self.depth);
        if deep > RECOVERY_DEPTH {
            let t = self.progress.ticks.get();
            if t == self.last_ticks {
                self.idle += 1;
                if self.idle > recovery_budget(deep) {
                    let d = Diagnostic::error(
                        "too deeply nested to recover from the previous error",
                        Some(Span::new(span.start, span.end)),
                    );
                    return Some(Err(self.fatal_error(d)));
                }
            } else {
                self.last_ticks = t;
                self.idle = 0;
            }
        }
        Some(Ok((span.start, tok, span.end)))
    }
}
