//! `--verify-diagnostics`: checking produced diagnostics against `expected-*` comments.
//!
//! The comment language is MLIR's:
//!
//! ```text
//! // expected-error {{message substring}}          same line
//! // expected-error@+1 {{...}}  / @-2 / @above / @below / @unknown (no location)
//! // expected-warning {{...}}   expected-note {{...}}   expected-remark {{...}}
//! // expected-error-re {{literal text {{regex}} more text}}
//! ```
//!
//! A produced diagnostic matches an expectation on the same line whose text is a
//! substring of (or, for `-re`, whose pattern is found in) the diagnostic's message.
//! One expectation may absorb several identical diagnostics. A diagnostic that matches
//! only an expectation of another kind is reported as a near miss. Every diagnostic
//! nobody expected and every expectation never produced is an error.
//!
//! Secondary labels and notes of a diagnostic are checked as notes (at the label's line,
//! or the primary line for a note without a place), as MLIR checks attached notes.

use regex::Regex;
use std::sync::OnceLock;
use xir_ir::diag::{Diagnostic, LineIndex, Severity, Span};

/// Kind of an expected diagnostic.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `expected-error`
    Error,
    /// `expected-warning`
    Warning,
    /// `expected-note`
    Note,
    /// `expected-remark` (xir has no remarks, so these can only go unmatched)
    Remark,
}

impl Kind {
    fn word(self) -> &'static str {
        match self {
            Kind::Error => "error",
            Kind::Warning => "warning",
            Kind::Note => "note",
            Kind::Remark => "remark",
        }
    }
    fn of(sev: Severity) -> Kind {
        match sev {
            Severity::Error => Kind::Error,
            Severity::Warning => Kind::Warning,
            Severity::Note => Kind::Note,
        }
    }
}

/// One `expected-*` annotation.
#[derive(Clone, Debug)]
pub struct Expected {
    /// Kind.
    pub kind: Kind,
    /// 1-based target line; `None` for `@unknown`.
    pub line: Option<usize>,
    /// The text between the outer `{{` and `}}`.
    pub text: String,
    /// Compiled pattern for `-re` annotations.
    regex: Option<Regex>,
    /// Where the annotation is written.
    pub span: Span,
    /// Whether some diagnostic matched it.
    pub matched: bool,
}

impl Expected {
    fn matches(&self, msg: &str) -> bool {
        match &self.regex {
            Some(re) => re.is_match(msg),
            None => msg.contains(&self.text),
        }
    }
}

fn directive_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"expected-(error|warning|note|remark)\b").expect("valid regex"))
}

fn full_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"^expected-(error|warning|note|remark)(-re)?[ \t]*(@([+-][0-9]+|above|below|unknown))?[ \t]*\{\{(.*)\}\}[ \t\r]*$",
        )
        .expect("valid regex")
    })
}

/// Turns `literal {{re}} literal` into one regex (literal parts escaped).
fn compile_re(text: &str) -> Result<Regex, String> {
    let mut pat = String::new();
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        pat.push_str(&regex::escape(&rest[..open]));
        let after = &rest[open + 2..];
        let close = after
            .find("}}")
            .ok_or_else(|| "unterminated '{{' in expected-*-re pattern".to_string())?;
        pat.push('(');
        pat.push_str(&after[..close]);
        pat.push(')');
        rest = &after[close + 2..];
    }
    pat.push_str(&regex::escape(rest));
    Regex::new(&pat).map_err(|e| format!("invalid regex in expected-*-re pattern: {e}"))
}

/// Collects the `expected-*` annotations of `src` (a chunk: line numbers are the chunk's,
/// as are those of the diagnostics produced from it). Malformed annotations are
/// returned as errors.
pub fn parse_expectations(src: &str) -> Result<Vec<Expected>, Vec<Diagnostic>> {
    let mut out = Vec::new();
    let mut errs = Vec::new();
    let mut offset = 0usize;
    for (idx, raw) in src.split_inclusive('\n').enumerate() {
        let line_no = idx + 1;
        let line = raw.strip_suffix('\n').unwrap_or(raw);
        let start = offset;
        offset += raw.len();
        let Some(m) = directive_re().find(line) else {
            continue;
        };
        let at = start + m.start();
        let span = Span::new(at, start + line.len());
        let Some(c) = full_re().captures(&line[m.start()..]) else {
            errs.push(
                Diagnostic::error(
                    format!("malformed {} annotation", m.as_str()),
                    Some(Span::new(at, start + m.end())),
                )
                .with_label("here")
                .with_help("write `expected-error@+1 {{message}}` (designators: @+N, @-N, @above, @below, @unknown)"),
            );
            continue;
        };
        let kind = match &c[1] {
            "error" => Kind::Error,
            "warning" => Kind::Warning,
            "note" => Kind::Note,
            _ => Kind::Remark,
        };
        let designator = c.get(4).map(|m| m.as_str());
        // Ok(None) is `@unknown`; Err is a designator pointing before line 1.
        let target: Result<Option<usize>, ()> = match designator {
            None => Ok(Some(line_no)),
            Some("unknown") => Ok(None),
            Some("above") => Ok(Some(line_no - 1)),
            Some("below") => Ok(Some(line_no + 1)),
            Some(rel) => match rel[1..].parse::<usize>() {
                Ok(n) if rel.starts_with('+') => line_no.checked_add(n).map(Some).ok_or(()),
                Ok(n) => Ok(Some(line_no.saturating_sub(n))),
                Err(_) => Err(()),
            },
        };
        let target = match target {
            Ok(Some(0)) | Err(()) => {
                errs.push(
                    Diagnostic::error(
                        format!(
                            "line designator '@{}' is out of range",
                            designator.unwrap_or_default()
                        ),
                        Some(span),
                    )
                    .with_label("here"),
                );
                continue;
            }
            Ok(t) => t,
        };
        let text = c[5].to_string();
        let regex = if c.get(2).is_some() {
            match compile_re(&text) {
                Ok(r) => Some(r),
                Err(e) => {
                    errs.push(Diagnostic::error(e, Some(span)).with_label("here"));
                    continue;
                }
            }
        } else {
            None
        };
        out.push(Expected {
            kind,
            line: target,
            text,
            regex,
            span,
            matched: false,
        });
    }
    if errs.is_empty() { Ok(out) } else { Err(errs) }
}

/// One produced diagnostic, flattened: primary message, then labels and notes as notes.
struct Produced {
    kind: Kind,
    span: Option<Span>,
    message: String,
}

fn flatten(diags: &[Diagnostic]) -> Vec<Produced> {
    let mut out = Vec::new();
    for d in diags {
        out.push(Produced {
            kind: Kind::of(d.severity),
            span: d.span,
            message: d.message.clone(),
        });
        for (s, l) in &d.secondary {
            if !l.is_empty() {
                out.push(Produced {
                    kind: Kind::Note,
                    span: Some(*s),
                    message: l.clone(),
                });
            }
        }
        for n in &d.notes {
            out.push(Produced {
                kind: Kind::Note,
                span: d.span,
                message: n.clone(),
            });
        }
    }
    out
}

/// Matches `produced` against `expected` (in `src`, the chunk). Returns the
/// mismatch errors; empty means every diagnostic was expected and produced.
///
/// Linear in the annotations and diagnostics (plus, per diagnostic, the annotations of
/// its own line): lines come from one [`LineIndex`] and annotations are looked up by line.
pub fn check(src: &str, expected: &mut [Expected], produced: &[Diagnostic]) -> Vec<Diagnostic> {
    let mut errs = Vec::new();
    let lines = LineIndex::new(src);
    let mut by_line: std::collections::HashMap<Option<usize>, Vec<usize>> =
        std::collections::HashMap::new();
    for (i, e) in expected.iter().enumerate() {
        by_line.entry(e.line).or_default().push(i);
    }
    for p in flatten(produced) {
        let line = p.span.map(|s| lines.line_col(s.start as usize).0);
        let mut near: Option<usize> = None;
        let mut done = false;
        for &i in by_line.get(&line).map(Vec::as_slice).unwrap_or_default() {
            let e = &mut expected[i];
            if e.matches(&p.message) {
                if e.kind == p.kind {
                    e.matched = true;
                    done = true;
                    break;
                }
                near = Some(i);
            }
        }
        if done {
            continue;
        }
        if let Some(i) = near {
            errs.push(
                Diagnostic::error(
                    format!(
                        "'{}' diagnostic emitted when expecting a '{}'",
                        p.kind.word(),
                        expected[i].kind.word()
                    ),
                    Some(expected[i].span),
                )
                .with_label("expected here"),
            );
        } else {
            let at = if line.is_some() { p.span } else { None };
            errs.push(
                Diagnostic::error(format!("unexpected {}: {}", p.kind.word(), p.message), at)
                    .with_label("produced here"),
            );
        }
    }
    for e in expected.iter().filter(|e| !e.matched) {
        errs.push(
            Diagnostic::error(
                format!("expected {} \"{}\" was not produced", e.kind.word(), e.text),
                Some(e.span),
            )
            .with_label("expected here"),
        );
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exps(src: &str) -> Vec<Expected> {
        parse_expectations(src).unwrap()
    }

    #[test]
    fn designators() {
        let src = "a\n// expected-error@+1 {{x}}\nb // expected-warning {{y}}\n// expected-note@-2 {{z}}\n// expected-remark@above {{w}}\n// expected-error@below {{v}}\n// expected-error@unknown {{u}}\n";
        let e = exps(src);
        let got: Vec<_> = e
            .iter()
            .map(|e| (e.kind, e.line, e.text.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (Kind::Error, Some(3), "x"),
                (Kind::Warning, Some(3), "y"),
                (Kind::Note, Some(2), "z"),
                (Kind::Remark, Some(4), "w"),
                (Kind::Error, Some(7), "v"),
                (Kind::Error, None, "u"),
            ]
        );
    }

    #[test]
    fn malformed_annotations_are_errors() {
        assert!(parse_expectations("// expected-error {{x}\n").is_err());
        assert!(parse_expectations("// expected-error@+x {{x}}\n").is_err());
        assert!(parse_expectations("// expected-error@-5 {{x}}\n").is_err());
        assert!(parse_expectations("// expected-error@-1 {{x}}\n").is_err());
        assert!(parse_expectations("// expected-error@above {{x}}\n").is_err());
        assert!(parse_expectations("// expected-error-re {{a{{[}}}}\n").is_err());
        assert!(parse_expectations("// expected-errors are fine in prose\n").is_ok());
    }

    fn err_at(src: &str, line: usize, msg: &str) -> Diagnostic {
        let off: usize = src.split_inclusive('\n').take(line - 1).map(str::len).sum();
        Diagnostic::error(msg, Some(Span::new(off, off + 1)))
    }

    #[test]
    fn matching_rules() {
        let src = "x\n// expected-error@-1 {{bad thing}}\ny // expected-error-re {{value %{{[0-9]+}} undefined}}\n";
        let mut e = exps(src);
        let d = vec![
            err_at(src, 1, "a bad thing happened"),
            err_at(src, 1, "a bad thing happened"),
            err_at(src, 3, "value %12 undefined"),
        ];
        assert!(check(src, &mut e, &d).is_empty());

        let mut e = exps(src);
        let d = vec![
            err_at(src, 3, "value %x undefined"),
            err_at(src, 2, "other"),
        ];
        let errs = check(src, &mut e, &d);
        let msgs: Vec<_> = errs.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            msgs,
            vec![
                "unexpected error: value %x undefined",
                "unexpected error: other",
                "expected error \"bad thing\" was not produced",
                "expected error \"value %{{[0-9]+}} undefined\" was not produced",
            ]
        );
    }

    #[test]
    fn near_miss_and_notes() {
        let src = "x // expected-warning {{odd}}\n// expected-note@-1 {{defined here}}\n";
        let mut e = exps(src);
        let mut d = err_at(src, 1, "odd value");
        d.secondary.push((Span::new(0, 1), "defined here".into()));
        let errs = check(src, &mut e, &[d]);
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert_eq!(
            errs[0].message,
            "'error' diagnostic emitted when expecting a 'warning'"
        );
        assert_eq!(errs[1].message, "expected warning \"odd\" was not produced");
    }

    #[test]
    fn unknown_location() {
        let src = "// expected-error@unknown {{no place}}\n";
        let mut e = exps(src);
        let errs = check(src, &mut e, &[Diagnostic::error("no place at all", None)]);
        assert!(errs.is_empty(), "{errs:?}");
    }
}
