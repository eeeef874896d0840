//! Syntax-error diagnostics (lalrpop errors turned into `expected …, found …` messages),
//! statement-level error recovery, "did you mean" suggestions and string unescaping.

use super::ctx::{Ctx, Stmt};
use super::items::Sp;
use super::lexer::{Fatal, Tok};
use crate::diag::{Diagnostic, Span};
use lalrpop_util::{ErrorRecovery, ParseError};

/// A lalrpop error of this grammar.
pub type PError<'s> = ParseError<usize, Tok<'s>, Fatal>;
/// A lalrpop error-recovery record of this grammar.
pub type PRecovery<'s> = ErrorRecovery<usize, Tok<'s>, Fatal>;

/// Edit distance between `a` and `b` (by characters): insertions, deletions,
/// substitutions and transpositions of adjacent characters each cost 1 (optimal string
/// alignment), so `lcim` is one edit from `licm`. Meant for short names (suggestions
/// for op, keyword and pass names); the pass registry uses it too.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let w = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * w];
    for i in 0..=a.len() {
        d[i * w] = i;
    }
    for (j, slot) in d.iter_mut().enumerate().take(w) {
        *slot = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[(i - 1) * w + j] + 1)
                .min(d[i * w + j - 1] + 1)
                .min(d[(i - 1) * w + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[(i - 2) * w + j - 2] + 1);
            }
            d[i * w + j] = v;
        }
    }
    d[a.len() * w + b.len()]
}

/// The closest candidate to `word`, if it is close enough to be an obvious typo.
pub fn suggest<'a>(word: &str, cands: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    if word.len() > 64 {
        return None;
    }
    let cands: Vec<&'a str> = cands.collect();
    let limit = (word.chars().count() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for &c in &cands {
        let d = edit_distance(word, c);
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    if let Some((_, c)) = best {
        return Some(c);
    }
    // Not a typo but maybe one component of the real name (`add` for `binary_add`):
    // offer the shortest name that has the word as an `_`-separated component.
    if word.len() < 2 {
        return None;
    }
    cands
        .into_iter()
        .filter(|c| c.split('_').any(|part| part == word))
        .min_by_key(|c| (c.len(), *c))
}

/// A friendly rendering of a lalrpop terminal name.
fn terminal(name: &str) -> String {
    match name {
        "Val" => "a value".into(),
        "Num" => "a number".into(),
        "Float" => "a float".into(),
        "Str" => "a string".into(),
        "Ident" => "a name".into(),
        "At" => "an '@' intrinsic".into(),
        _ => {
            let inner = name.trim_matches('"').replace("\\\"", "\"");
            format!("'{inner}'")
        }
    }
}

fn expected_list(expected: &[String]) -> String {
    let has = |s: &str| expected.iter().any(|e| e == s);
    let mut items: Vec<String> = Vec::new();
    let words = has("Ident") && has("\"if\"");
    if has("\"arithmetic\"") && has("\"load\"") {
        items.push("an instruction".into());
    } else if has("\"kernel\"") && has("\"const\"") {
        items.push("a top-level item ('type', 'const', 'undef' or a function)".into());
    }
    for e in expected {
        let kw = e.starts_with('"') && e[1..].starts_with(|c: char| c.is_ascii_alphabetic());
        if (words
            || items
                .first()
                .is_some_and(|i| i.starts_with("an instruction") || i.starts_with("a top")))
            && kw
        {
            continue;
        }
        let t = terminal(e);
        if !items.contains(&t) {
            items.push(t);
        }
    }
    match items.len() {
        0 => "something else".into(),
        1 => items.remove(0),
        n if n > 6 => format!("{}, …", items[..6].join(", ")),
        _ => {
            let last = items.pop().unwrap_or_default();
            format!("{} or {last}", items.join(", "))
        }
    }
}

impl<'s> Ctx<'s> {
    /// The end of the token before byte `pos` (skipping whitespace and comments).
    pub fn prev_token_end(&self, pos: usize) -> usize {
        let src = self.src.as_bytes();
        let mut line_end = pos.min(src.len());
        loop {
            let line_start = self.src[..line_end].rfind('\n').map_or(0, |i| i + 1);
            let code_end = comment_start(&self.src[line_start..line_end]) + line_start;
            let trimmed = self.src[line_start..code_end].trim_end();
            if !trimmed.is_empty() {
                return line_start + trimmed.len();
            }
            if line_start == 0 {
                return 0;
            }
            line_end = line_start - 1;
        }
    }

    /// Whether a line break lies between byte offsets `a <= b` (cost O(b - a), so
    /// reporting many errors never rescans the file from its start).
    fn newline_between(&self, a: usize, b: usize) -> bool {
        let end = b.min(self.src.len());
        self.src.as_bytes()[a.min(end)..end].contains(&b'\n')
    }

    fn after_what(&self) -> &'static str {
        match self.stmt {
            Stmt::Inst => " after instruction",
            Stmt::Arg => " after argument",
            Stmt::Const => " after constant",
            Stmt::TypeDecl => " after type declaration",
            Stmt::Function | Stmt::None => "",
        }
    }

    /// The diagnostic for a lalrpop error (`None`: already reported by the lexer).
    pub fn syntax_diag(&self, e: &PError<'s>) -> Option<Diagnostic> {
        match e {
            ParseError::User { error } => Some((*error.0).clone()),
            ParseError::UnrecognizedToken {
                token: (l, tok, r),
                expected,
            } => {
                if *tok == Tok::Error {
                    return None;
                }
                let found = tok.describe(&self.src[*l..*r]);
                let semi = expected.iter().any(|e| e == "\";\"");
                let prev = self.prev_token_end(*l);
                if semi && (self.newline_between(prev, *l) || expected.len() == 1) {
                    let msg = format!("expected ';'{}", self.after_what());
                    return Some(
                        Diagnostic::error(msg, Some(Span::new(prev, prev)))
                            .with_secondary(Span::new(*l, *r), format!("found {found}")),
                    );
                }
                if let Tok::Ident(w) = tok
                    && expected.iter().any(|e| e == "\"arithmetic\"")
                {
                    let mut d = Diagnostic::error(
                        format!("unknown instruction '{w}'"),
                        Some(Span::new(*l, *r)),
                    );
                    if let Some(s) = suggest(w, crate::inst::InstTag::keywords()) {
                        d = d.with_help(format!("did you mean '{s}'?"));
                    }
                    return Some(d);
                }
                let msg = format!("expected {}, found {found}", expected_list(expected));
                Some(Diagnostic::error(msg, Some(Span::new(*l, *r))))
            }
            ParseError::UnrecognizedEof { location, expected } => {
                let semi = expected.iter().any(|e| e == "\";\"");
                let at = Span::new(*location, *location);
                if semi {
                    return Some(Diagnostic::error(
                        format!("expected ';'{}", self.after_what()),
                        Some(at),
                    ));
                }
                Some(Diagnostic::error(
                    format!(
                        "unexpected end of input, expected {}",
                        expected_list(expected)
                    ),
                    Some(at),
                ))
            }
            ParseError::ExtraToken { token: (l, tok, r) } => Some(Diagnostic::error(
                format!("unexpected {}", tok.describe(&self.src[*l..*r])),
                Some(Span::new(*l, *r)),
            )),
            ParseError::InvalidToken { location } => Some(Diagnostic::error(
                "invalid token",
                Some(Span::new(*location, *location)),
            )),
        }
    }

    /// Reports a syntax error unless it falls into the suppression window of the
    /// previous one (errors caused by resuming mid-line).
    pub fn report_syntax(&mut self, e: &PError<'s>) {
        if let ParseError::User { .. } = e {
            if let Some(d) = self.syntax_diag(e) {
                self.push(d);
            }
            return;
        }
        // Every diagnostic of an unrecognized token starts at or before the token, so a
        // token inside the window is suppressed whatever its diagnostic; deciding that
        // first keeps a run of thousands of recoveries on one line linear.
        if let ParseError::UnrecognizedToken {
            token: (l, _, _), ..
        } = e
            && *l < self.suppress_until
        {
            return;
        }
        let Some(d) = self.syntax_diag(e) else { return };
        let at = d.span.map_or(0, |s| s.start as usize);
        if at < self.suppress_until {
            return;
        }
        self.syntax_errors += 1;
        self.push(d);
    }

    /// Statement-level recovery (`BlockInsts !`): reports, poisons the labels in the
    /// skipped text, and suppresses follow-up errors on a line resumed mid-way.
    pub fn recover(&mut self, e: PRecovery<'s>, l: usize, r: usize) {
        self.report_syntax(&e.error);
        let err_at = match &e.error {
            ParseError::UnrecognizedToken {
                token: (a, _, _), ..
            } => *a,
            _ => l,
        };
        self.poison(Span::new(l.min(err_at), r.max(err_at)));
        let resume = self.next_code(r);
        self.stmt = Stmt::None;
        if resume < self.suppress_until {
            // Still inside the window of an earlier recovery, which ends at the end of
            // this same line: nothing to recompute (rescanning the line on every
            // recovery would make one long bad line quadratic).
            return;
        }
        let fresh = self.src[..resume]
            .chars()
            .rev()
            .find(|c| !c.is_whitespace() || *c == '\n')
            .is_none_or(|c| c == '\n');
        self.suppress_until = if fresh {
            resume
        } else {
            self.src[resume..]
                .find('\n')
                .map_or(self.src.len(), |i| resume + i)
        };
    }

    /// The first non-blank, non-comment byte at or after `pos`.
    fn next_code(&self, mut pos: usize) -> usize {
        let b = self.src.as_bytes();
        while pos < b.len() {
            if b[pos].is_ascii_whitespace() {
                pos += 1;
            } else if b[pos..].starts_with(b"//") {
                pos = self.src[pos..].find('\n').map_or(b.len(), |i| pos + i);
            } else {
                break;
            }
        }
        pos.min(b.len())
    }

    /// Decodes a string literal (quotes included) written with {fmt}-debug escapes
    /// (`\" \\ \n \r \t \0 \' \xHH \uHHHH \UHHHHHHHH`, and `\u{…}`).
    pub fn unescape(&mut self, s: Sp<'s>) -> Option<String> {
        let (raw, span) = s;
        let inner = raw
            .strip_prefix('"')
            .and_then(|r| r.strip_suffix('"'))
            .unwrap_or(raw);
        let base = span.start as usize + 1;
        let mut out = String::with_capacity(inner.len());
        let mut it = inner.char_indices().peekable();
        while let Some((i, c)) = it.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            let bad = |ctx: &mut Self, j: usize| {
                ctx.error("invalid escape sequence", Span::new(base + i, base + j));
                None::<String>
            };
            let Some((_, e)) = it.next() else {
                return bad(self, inner.len());
            };
            match e {
                'n' => out.push('\n'),
                'r' => out.push('\r'),
                't' => out.push('\t'),
                '0' => out.push('\0'),
                '\\' | '"' | '\'' => out.push(e),
                'x' | 'u' | 'U' => {
                    // {fmt}: \xHH, \uHHHH, \UHHHHHHHH; also Rust's \u{H…} / \x{H…}.
                    let rest = &inner[i + 2..];
                    let (hex, len) = if let Some(r) = rest.strip_prefix('{') {
                        match r.find('}') {
                            Some(k) => (&r[..k], k + 2),
                            None => return bad(self, inner.len()),
                        }
                    } else {
                        let n = match e {
                            'x' => 2,
                            'u' => 4,
                            _ => 8,
                        };
                        match rest.get(..n) {
                            Some(h) if h.bytes().all(|b| b.is_ascii_hexdigit()) => (h, n),
                            _ => return bad(self, (i + 2 + n).min(inner.len())),
                        }
                    };
                    match u32::from_str_radix(hex, 16).ok().and_then(char::from_u32) {
                        Some(ch) if !hex.is_empty() => out.push(ch),
                        _ => return bad(self, i + 2 + len),
                    }
                    for _ in 0..len {
                        it.next();
                    }
                }
                _ => return bad(self, i + 1 + e.len_utf8()),
            }
        }
        Some(out)
    }
}

/// Byte offset of a `//` comment in one line of code (strings cannot span lines).
fn comment_start(line: &str) -> usize {
    let b = line.as_bytes();
    let mut in_str = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' if in_str => i += 1,
            b'"' => in_str = !in_str,
            b'/' if !in_str && b.get(i + 1) == Some(&b'/') => return i,
            _ => {}
        }
        i += 1;
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        let ops = ["binary_add", "binary_sub", "min"];
        assert_eq!(
            suggest("binary_ad", ops.iter().copied()),
            Some("binary_add")
        );
        assert_eq!(suggest("zzz", ops.iter().copied()), None);
    }

    #[test]
    fn comment_detection() {
        assert_eq!(comment_start("a // b"), 2);
        assert_eq!(comment_start("\"//\" x"), 6);
    }
}
