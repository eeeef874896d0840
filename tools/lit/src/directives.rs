//! Reading lit directives out of a test file.
//!
//! The rules are lit's, so both runners read a file the same way: the first keyword
//! anywhere on a line makes it a directive (in xir files they sit in `//` comments) and
//! the rest of the line is its text. `RUN:` (a trailing `\` continues the command on
//! the next `RUN:` line; `%(line)`, `%(line+N)`, `%(line-N)` become line numbers),
//! `REQUIRES:`, `UNSUPPORTED:`, `XFAIL:` (comma-separated feature expressions, see
//! [`super::boolexpr`]) and `END.` (stop reading). lit's `ALLOW_RETRIES:`, `DEFINE:` and
//! `REDEFINE:` are rejected, so a file never means different things to the two runners.

use super::boolexpr::{self, Expr};

/// One RUN command, continuation lines joined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunLine {
    /// 1-based line of its first `RUN:`.
    pub line: usize,
    /// The command text, before substitution.
    pub command: String,
}

/// A problem in the directives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirectiveError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for DirectiveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Everything lit-related in one test file.
#[derive(Clone, Debug, Default)]
pub struct TestDirectives {
    /// RUN commands in order.
    pub run: Vec<RunLine>,
    /// `REQUIRES:` items: all must hold.
    pub requires: Vec<(String, Expr)>,
    /// `UNSUPPORTED:` items: any one skips the test.
    pub unsupported: Vec<(String, Expr)>,
    /// `XFAIL:` items: any one makes failure the expected outcome.
    pub xfail: Vec<(String, Expr)>,
}

const KEYWORDS: [&str; 8] = [
    "RUN:",
    "XFAIL:",
    "REQUIRES:",
    "UNSUPPORTED:",
    "ALLOW_RETRIES:",
    "END.",
    "DEFINE:",
    "REDEFINE:",
];

/// Finds the first directive keyword in a line: (keyword, text after it).
fn find_keyword(line: &str) -> Option<(&'static str, &str)> {
    let mut best: Option<(usize, &'static str)> = None;
    for kw in KEYWORDS {
        if let Some(at) = line.find(kw)
            && best.is_none_or(|(b, _)| at < b)
        {
            best = Some((at, kw));
        }
    }
    best.map(|(at, kw)| (kw, &line[at + kw.len()..]))
}

/// Replaces `%(line)`, `%(line+N)` and `%(line-N)` with line numbers, as lit does.
fn substitute_line_numbers(line: usize, text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(p) = rest.find("%(line") {
        out.push_str(&rest[..p]);
        let after = &rest[p + 6..];
        let close = after.find(')');
        let inner = close.map(|c| after[..c].replace(' ', ""));
        let value = match inner.as_deref() {
            Some("") => Some(line as i64),
            Some(s) if s.len() > 1 && (s.starts_with('+') || s.starts_with('-')) => {
                s[1..].parse::<i64>().ok().map(|n| {
                    if s.starts_with('+') {
                        line as i64 + n
                    } else {
                        line as i64 - n
                    }
                })
            }
            _ => None,
        };
        match (value, close) {
            (Some(v), Some(c)) => {
                out.push_str(&v.to_string());
                rest = &after[c + 1..];
            }
            _ => {
                out.push_str("%(line");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn parse_list(
    text: &str,
    line: usize,
    out: &mut Vec<(String, Expr)>,
    star_allowed: bool,
) -> Result<(), DirectiveError> {
    for item in text.split(',') {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        if star_allowed && item == "*" {
            out.push((item.to_string(), Expr::Ident("true".into())));
            continue;
        }
        let e = boolexpr::parse(item).map_err(|message| DirectiveError { line, message })?;
        out.push((item.to_string(), e));
    }
    Ok(())
}

/// Parses the directives of a test file.
pub fn parse(src: &str) -> Result<TestDirectives, DirectiveError> {
    let mut d = TestDirectives::default();
    // The RUN line being continued: (first line, text so far).
    let mut pending: Option<(usize, String)> = None;
    let mut last_line = 0;
    for (i, line) in src.lines().enumerate() {
        let n = i + 1;
        last_line = n;
        let Some((kw, rest)) = find_keyword(line) else {
            continue;
        };
        match kw {
            "RUN:" => {
                let text = substitute_line_numbers(n, rest.trim_end());
                let text = text.as_str();
                let (first, mut acc) = pending.take().unwrap_or((n, String::new()));
                if let Some(body) = text.strip_suffix('\\') {
                    acc.push_str(body);
                    pending = Some((first, acc));
                } else {
                    acc.push_str(text);
                    d.run.push(RunLine {
                        line: first,
                        command: acc.trim().to_string(),
                    });
                }
            }
            "END." => break,
            "ALLOW_RETRIES:" | "DEFINE:" | "REDEFINE:" => {
                return Err(DirectiveError {
                    line: n,
                    message: format!("lit's {kw} directive is not supported by the xir runner"),
                });
            }
            _ if pending.is_some() => {
                return Err(DirectiveError {
                    line: n,
                    message: format!("{kw} directive inside a continued RUN line"),
                });
            }
            _ if rest.trim_end().ends_with('\\') => {
                return Err(DirectiveError {
                    line: n,
                    message: format!("continued {kw} lines are not supported; use one line"),
                });
            }
            "REQUIRES:" => parse_list(rest, n, &mut d.requires, false)?,
            "UNSUPPORTED:" => parse_list(rest, n, &mut d.unsupported, false)?,
            _ => parse_list(rest, n, &mut d.xfail, true)?,
        }
    }
    if let Some((first, _)) = pending {
        return Err(DirectiveError {
            line: first.max(last_line.min(first)),
            message: "test has an unterminated RUN line (ends with '\\')".into(),
        });
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_lines_with_continuations() {
        let src = "// RUN: a %s \\\n// RUN:   | b\nfoo\n// RUN: c\n";
        let d = parse(src).unwrap();
        assert_eq!(
            d.run,
            vec![
                RunLine {
                    line: 1,
                    command: "a %s    | b".into()
                },
                RunLine {
                    line: 4,
                    command: "c".into()
                }
            ]
        );
    }

    #[test]
    fn keywords_anywhere_like_lit() {
        let d = parse("// CHECK-RUN: x\n// MY_XFAIL: *\n// COM: RUN: y\nz // RUN: echo %(line) %(line+2) %(line - 1)\n")
            .unwrap();
        let cmds: Vec<_> = d.run.iter().map(|r| r.command.as_str()).collect();
        assert_eq!(cmds, vec!["x", "y", "echo 4 6 3"]);
        assert_eq!(d.xfail.len(), 1);
    }

    #[test]
    fn gating_lists() {
        let d = parse(
            "// REQUIRES: vulkan, spirv-tools\n// UNSUPPORTED: !x\n// XFAIL: *\n// END.\n// RUN: z\n",
        )
        .unwrap();
        assert_eq!(d.requires.len(), 2);
        assert_eq!(d.unsupported.len(), 1);
        assert_eq!(d.xfail[0].0, "*");
        assert!(d.run.is_empty(), "END. stops parsing");
    }

    #[test]
    fn errors() {
        assert_eq!(parse("// RUN: a \\\n").unwrap_err().line, 1);
        assert!(parse("// REQUIRES: a &&\n").is_err());
        assert!(parse("// ALLOW_RETRIES: 2\n").is_err());
        assert!(parse("// DEFINE: %{x} = y\n").is_err());
        assert!(parse("// XFAIL: a, \\\n").is_err());
        assert!(parse("// RUN: a \\\n// XFAIL: *\n// RUN: b\n").is_err());
    }
}
