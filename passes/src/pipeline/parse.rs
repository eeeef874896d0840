//! Lexer and recursive-descent parser of the pipeline language.
//!
//! One grammar serves files and the inline `--passes=` form: items may be separated by
//! commas, semicolons or just whitespace, and the `add` keyword is optional. Errors are
//! [`Diagnostic`]s with a span into the source, rendered with a caret by
//! [`xir_ir::diag::render`].

// Diagnostics are large, but they only travel on the error path of a small parser.
#![allow(clippy::result_large_err)]

use super::ast::*;
use std::rc::Rc;
use xir_ir::diag::{Diagnostic, Span};

/// Words that cannot be pass names because they start or modify items.
pub const KEYWORDS: &[&str] = &[
    "abort-on-refusal",
    "add",
    "allow-nonconvergence",
    "as",
    "check",
    "else",
    "fixed-point",
    "if",
    "param",
    "required",
    "sequence",
    "use",
    "verify",
];

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Word(String),
    Str(String),
    Punct(char),
    Eof,
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    span: Span,
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/' | b'+')
}

fn lex(text: &str) -> Result<Vec<Token>, Diagnostic> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_whitespace() {
            i += 1;
        } else if b == b'#' || (b == b'/' && bytes.get(i + 1) == Some(&b'/')) {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if b"{}(),=!;".contains(&b) {
            out.push(Token {
                tok: Tok::Punct(b as char),
                span: Span::new(i, i + 1),
            });
            i += 1;
        } else if b == b'"' {
            let start = i;
            i += 1;
            let mut s = String::new();
            loop {
                match bytes.get(i) {
                    None | Some(b'\n') => {
                        return Err(Diagnostic::error(
                            "unterminated string",
                            Some(Span::new(start, i)),
                        )
                        .with_label("string starts here"));
                    }
                    Some(b'"') => break,
                    Some(b'\\') if matches!(bytes.get(i + 1), Some(b'"') | Some(b'\\')) => {
                        s.push(bytes[i + 1] as char);
                        i += 2;
                    }
                    Some(_) => {
                        let ch = text[i..].chars().next().unwrap_or('?');
                        s.push(ch);
                        i += ch.len_utf8();
                    }
                }
            }
            i += 1;
            out.push(Token {
                tok: Tok::Str(s),
                span: Span::new(start, i),
            });
        } else if is_word_byte(b) {
            let start = i;
            while i < bytes.len() && is_word_byte(bytes[i]) && !text[i..].starts_with("//") {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Word(text[start..i].to_string()),
                span: Span::new(start, i),
            });
        } else {
            let ch = text[i..].chars().next().unwrap_or('?');
            return Err(Diagnostic::error(
                format!("unexpected character '{ch}'"),
                Some(Span::new(i, i + ch.len_utf8())),
            )
            .with_label("not part of the pipeline language"));
        }
    }
    out.push(Token {
        tok: Tok::Eof,
        span: Span::new(text.len(), text.len()),
    });
    Ok(out)
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    depth: usize,
}

/// Deepest nesting of groups and conditions accepted.
const MAX_DEPTH: usize = 64;

type PResult<T> = Result<T, Diagnostic>;

/// Parses a pipeline source into its items.
pub fn parse(source: Rc<Source>) -> Result<Document, Diagnostic> {
    let toks = lex(&source.text)?;
    let mut p = Parser {
        toks,
        pos: 0,
        depth: 0,
    };
    let items = p.list(true)?;
    Ok(Document { source, items })
}

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].tok
    }
    fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.pos + k).min(self.toks.len() - 1)].tok
    }
    fn span(&self) -> Span {
        self.toks[self.pos].span
    }
    fn prev_end(&self) -> u32 {
        if self.pos == 0 {
            0
        } else {
            self.toks[self.pos - 1].span.end
        }
    }
    fn bump(&mut self) -> Token {
        let t = self.toks[self.pos].clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }
    fn is_punct(&self, c: char) -> bool {
        *self.peek() == Tok::Punct(c)
    }
    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Word(x) if x == w)
    }
    fn eat_punct(&mut self, c: char) -> bool {
        let yes = self.is_punct(c);
        if yes {
            self.bump();
        }
        yes
    }
    fn describe(&self) -> String {
        match self.peek() {
            Tok::Word(w) => format!("'{w}'"),
            Tok::Str(s) => format!("string \"{s}\""),
            Tok::Punct(c) => format!("'{c}'"),
            Tok::Eof => "end of input".to_string(),
        }
    }
    fn err_here(&self, msg: impl Into<String>, label: impl Into<String>) -> Diagnostic {
        Diagnostic::error(msg, Some(self.span())).with_label(label)
    }
    fn expect_punct(&mut self, c: char, what: &str) -> PResult<Span> {
        if self.is_punct(c) {
            Ok(self.bump().span)
        } else {
            Err(self.err_here(
                format!("expected '{c}' {what}, found {}", self.describe()),
                format!("expected '{c}'"),
            ))
        }
    }
    /// A name: a word that is not a keyword (or a quoted string).
    fn name(&mut self, what: &str) -> PResult<Spanned<String>> {
        match self.peek().clone() {
            Tok::Word(w) if !KEYWORDS.contains(&w.as_str()) => {
                let t = self.bump();
                Ok(Spanned::new(w, t.span))
            }
            Tok::Str(s) => {
                let t = self.bump();
                Ok(Spanned::new(s, t.span))
            }
            Tok::Word(w) => Err(self.err_here(
                format!("expected {what}, found keyword '{w}'"),
                "a keyword cannot be used as a name",
            )),
            _ => Err(self.err_here(
                format!("expected {what}, found {}", self.describe()),
                format!("expected {what}"),
            )),
        }
    }
    /// A value after `=`: any word or string.
    fn value(&mut self) -> PResult<Spanned<String>> {
        match self.peek().clone() {
            Tok::Word(w) | Tok::Str(w) => {
                let t = self.bump();
                Ok(Spanned::new(w, t.span))
            }
            _ => Err(self.err_here(
                format!("expected a value, found {}", self.describe()),
                "expected a value",
            )),
        }
    }

    /// Items until `}` (nested) or end of input (top level).
    fn list(&mut self, top: bool) -> PResult<Vec<Item>> {
        let mut items = Vec::new();
        loop {
            while self.eat_punct(',') || self.eat_punct(';') {}
            match self.peek() {
                Tok::Eof if top => return Ok(items),
                Tok::Eof => {
                    return Err(self.err_here(
                        "unexpected end of input: missing '}'",
                        "expected '}' before this",
                    ));
                }
                Tok::Punct('}') if !top => return Ok(items),
                Tok::Punct('}') => {
                    return Err(self.err_here("unmatched '}'", "no group is open here"));
                }
                _ => items.push(self.item()?),
            }
        }
    }

    fn body(&mut self) -> PResult<Vec<Item>> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err_here(
                format!("groups nested deeper than {MAX_DEPTH} levels"),
                "too deep",
            ));
        }
        self.expect_punct('{', "to open the group")?;
        let items = self.list(false)?;
        self.expect_punct('}', "to close the group")?;
        self.depth -= 1;
        Ok(items)
    }

    fn markers(&mut self) -> PResult<Markers> {
        let mut m = Markers::default();
        loop {
            if self.is_word("abort-on-refusal") {
                self.bump();
                m.abort_on_refusal = true;
            } else if self.is_word("required") {
                self.bump();
                m.required = true;
            } else if self.is_word("verify") && *self.peek_at(1) == Tok::Punct('=') {
                self.bump();
                self.bump();
                let v = self.value()?;
                if v.node != "deferred" {
                    return Err(Diagnostic::error(
                        format!("unknown verify marker '{}'", v.node),
                        Some(v.span),
                    )
                    .with_label("the only marker value is 'deferred'")
                    .with_help("write `verify=deferred`"));
                }
                m.verify_deferred = true;
            } else {
                return Ok(m);
            }
        }
    }

    fn item(&mut self) -> PResult<Item> {
        let start = self.span().start;
        let kind = match self.peek().clone() {
            Tok::Word(w) => match w.as_str() {
                "add" => {
                    self.bump();
                    self.leaf()?
                }
                "fixed-point" => {
                    self.bump();
                    let (kind, pre) = self.fixed_point()?;
                    let post = self.markers()?;
                    return Ok(self.finish(start, kind, pre.or(post)));
                }
                "sequence" => {
                    self.bump();
                    let name = self.name("a sequence name")?;
                    let pre = self.markers()?;
                    let body = self.body()?;
                    let post = self.markers()?;
                    let kind = ItemKind::Sequence { name, body };
                    return Ok(self.finish(start, kind, pre.or(post)));
                }
                "use" => {
                    self.bump();
                    let pipeline = self.name("a pipeline name")?;
                    ItemKind::Use { pipeline }
                }
                "if" => {
                    self.bump();
                    return self.if_item(start);
                }
                "verify" => {
                    self.bump();
                    let mut flags = Vec::new();
                    if self.eat_punct('{') {
                        loop {
                            while self.eat_punct(',') {}
                            if self.eat_punct('}') {
                                break;
                            }
                            flags.push(self.name("a verifier flag")?);
                        }
                    }
                    ItemKind::Verify { flags }
                }
                "check" => {
                    self.bump();
                    let name = self.name("a check name")?;
                    ItemKind::Check { name }
                }
                "param" => {
                    self.bump();
                    let name = self.name("a parameter name")?;
                    self.expect_punct('=', "after the parameter name")?;
                    let v = self.value()?;
                    let default = parse_bool(&v)?;
                    ItemKind::Param { name, default }
                }
                "else" => {
                    return Err(self.err_here("'else' without a preceding 'if'", "unexpected"));
                }
                _ => self.leaf()?,
            },
            Tok::Str(_) => self.leaf()?,
            _ => {
                return Err(self.err_here(
                    format!("expected a pipeline item, found {}", self.describe()),
                    "expected a pass name or a keyword (add, fixed-point, sequence, use, if, verify, param)",
                ));
            }
        };
        let markers = self.markers()?;
        Ok(self.finish(start, kind, markers))
    }

    fn finish(&self, start: u32, kind: ItemKind, markers: Markers) -> Item {
        Item {
            kind,
            markers,
            span: Span::new(start as usize, self.prev_end() as usize),
        }
    }

    fn leaf(&mut self) -> PResult<ItemKind> {
        let pass = self.name("a pass name")?;
        let mut options = Vec::new();
        if self.eat_punct('{') {
            loop {
                while self.eat_punct(',') {}
                if self.eat_punct('}') {
                    break;
                }
                let key = self.name("an option name")?;
                let value = if self.eat_punct('=') {
                    self.value()?
                } else {
                    Spanned::new("true".to_string(), key.span)
                };
                options.push((key, value));
            }
        }
        let label = if self.is_word("as") {
            self.bump();
            Some(self.name("a label after 'as'")?)
        } else {
            None
        };
        Ok(ItemKind::Add {
            pass,
            options,
            label,
        })
    }

    fn fixed_point(&mut self) -> PResult<(ItemKind, Markers)> {
        let head = self.prev_end();
        let mut name = None;
        if matches!(self.peek(), Tok::Word(w) if w != "max" && !KEYWORDS.contains(&w.as_str()))
            || matches!(self.peek(), Tok::Str(_))
        {
            name = Some(self.name("a fixed-point name")?);
        }
        let mut max: Option<Spanned<u32>> = None;
        let mut allow = false;
        let parens = self.eat_punct('(');
        loop {
            if parens {
                while self.eat_punct(',') {}
                if self.eat_punct(')') {
                    break;
                }
            }
            if self.is_word("max") {
                let kw = self.bump().span;
                self.expect_punct('=', "after 'max'")?;
                let v = self.value()?;
                let n: u32 = v.node.parse().map_err(|_| {
                    Diagnostic::error(
                        format!("iteration budget '{}' is not a number", v.node),
                        Some(v.span),
                    )
                    .with_label("expected an unsigned integer")
                })?;
                if max.is_some() {
                    return Err(Diagnostic::error("'max' given twice", Some(kw))
                        .with_label("second budget"));
                }
                max = Some(Spanned::new(
                    n,
                    Span::new(kw.start as usize, v.span.end as usize),
                ));
            } else if self.is_word("allow-nonconvergence") {
                self.bump();
                allow = true;
            } else if parens && self.is_word("name") && *self.peek_at(1) == Tok::Punct('=') {
                self.bump();
                self.bump();
                name = Some(self.name("a fixed-point name")?);
            } else if parens {
                return Err(self.err_here(
                    format!("unexpected {} in fixed-point parameters", self.describe()),
                    "expected max=N, allow-nonconvergence or name=NAME",
                ));
            } else {
                break;
            }
        }
        let Some(max) = max else {
            return Err(Diagnostic::error(
                "fixed-point needs an iteration budget",
                Some(Span::new(head as usize, self.span().end as usize)),
            )
            .with_label("no max=N here")
            .with_help("write `fixed-point NAME max=8 { … }` or `fixed-point(max=8){…}`"));
        };
        let markers = self.markers()?;
        let body = self.body()?;
        let kind = ItemKind::FixedPoint {
            name,
            max,
            allow_nonconvergence: allow,
            body,
        };
        Ok((kind, markers))
    }

    fn if_item(&mut self, start: u32) -> PResult<Item> {
        let parens = self.eat_punct('(');
        let negated = self.eat_punct('!') || {
            let not = self.is_word("not");
            if not {
                self.bump();
            }
            not
        };
        let name = self.name("a condition (a parameter or module predicate)")?;
        if parens {
            self.expect_punct(')', "to close the condition")?;
        }
        let then_body = self.body()?;
        let else_body = if self.is_word("else") {
            self.bump();
            if self.is_word("if") {
                let s = self.span().start;
                self.bump();
                vec![self.if_item(s)?]
            } else {
                self.body()?
            }
        } else {
            Vec::new()
        };
        let cond = Cond { name, negated };
        Ok(self.finish(
            start,
            ItemKind::If {
                cond,
                then_body,
                else_body,
            },
            Markers::default(),
        ))
    }
}

fn parse_bool(v: &Spanned<String>) -> PResult<bool> {
    match v.node.as_str() {
        "true" | "1" | "on" | "yes" => Ok(true),
        "false" | "0" | "off" | "no" => Ok(false),
        other => Err(
            Diagnostic::error(format!("'{other}' is not a boolean"), Some(v.span))
                .with_label("expected true or false"),
        ),
    }
}

/// Parses `true`/`false` (and `1`/`0`, `on`/`off`, `yes`/`no`).
pub fn parse_bool_text(s: &str) -> Option<bool> {
    parse_bool(&Spanned::new(s.to_string(), Span::default())).ok()
}
