//! The small shell language of RUN lines, parsed into a command model (no real shell is
//! ever involved).
//!
//! Supported, with lit's internal-shell meaning: words separated by blanks; `'…'`
//! (literal), `"…"` (where `\"`, `\\` and `\$` are escapes and other backslashes stay)
//! and an unquoted `\` escaping the next character; pipelines `a | b`; lists `a && b`,
//! `a || b`, `a ; b` (equal precedence, left to right); redirections `> F`, `>> F`,
//! `< F`, `2> F`, `2>> F`, `2>&1`, `>&2`, `&> F`. Unquoted `*` and `?` are rejected
//! (lit would glob them; this runner does not). `not` and `not --crash` are ordinary
//! words here and are interpreted by the executor.

/// Where a redirection sends a file descriptor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Redirect {
    /// `N> F` (`append` for `>>`).
    ToFile {
        /// 1 or 2.
        fd: u8,
        /// The file.
        path: String,
        /// `>>` rather than `>`.
        append: bool,
    },
    /// `N>&M`: fd becomes a copy of fd `to`.
    Dup {
        /// 1 or 2.
        fd: u8,
        /// 1 or 2.
        to: u8,
    },
    /// `&> F`: stdout and stderr both to F.
    Both {
        /// The file.
        path: String,
    },
    /// `< F`.
    Stdin {
        /// The file.
        path: String,
    },
}

/// One simple command.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Command {
    /// Program name and arguments.
    pub args: Vec<String>,
    /// Redirections in written order.
    pub redirects: Vec<Redirect>,
}

/// Commands joined by `|`.
pub type Pipeline = Vec<Command>;

/// How a pipeline is joined to the one before it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Join {
    /// `&&`: run if the previous status is 0.
    And,
    /// `||`: run if the previous status is not 0.
    Or,
    /// `;`: always run.
    Seq,
}

/// A whole RUN command: the first pipeline, then joined ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Script {
    /// First pipeline.
    pub first: Pipeline,
    /// Further pipelines with their joins.
    pub rest: Vec<(Join, Pipeline)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Word(String),
    Op(&'static str),
    /// A redirection operator with its file descriptor (`2>` is `(">", 2)`).
    Redir(&'static str, u8),
}

fn lex(s: &str) -> Result<Vec<Tok>, String> {
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    let mut out = Vec::new();
    let op_at = |i: usize| -> Option<&'static str> {
        let rest: String = chars[i..chars.len().min(i + 2)].iter().collect();
        ["&&", "||", "&>", ">&", ">>", "|", ";", ">", "<", "&"]
            .into_iter()
            .find(|o| rest.starts_with(o))
    };
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if let Some(op) = op_at(i) {
            i += op.len();
            out.push(match op {
                ">" | ">>" | ">&" | "<" => Tok::Redir(op, if op == "<" { 0 } else { 1 }),
                "&" => return Err("background jobs ('&') are not supported".into()),
                _ => Tok::Op(op),
            });
            continue;
        }
        // A word, possibly made of several quoted and unquoted parts.
        let mut word = String::new();
        let mut quoted = false;
        while i < chars.len() {
            let c = chars[i];
            if c.is_whitespace() || "|&;<>".contains(c) {
                break;
            }
            match c {
                '\'' => {
                    quoted = true;
                    i += 1;
                    let start = i;
                    while i < chars.len() && chars[i] != '\'' {
                        i += 1;
                    }
                    if i == chars.len() {
                        return Err("missing closing quote (')".into());
                    }
                    word.extend(&chars[start..i]);
                    i += 1;
                }
                '"' => {
                    quoted = true;
                    i += 1;
                    loop {
                        match chars.get(i) {
                            None => return Err("missing closing quote (\")".into()),
                            Some('"') => {
                                i += 1;
                                break;
                            }
                            Some('\\') if matches!(chars.get(i + 1), Some('"' | '\\' | '$')) => {
                                word.push(chars[i + 1]);
                                i += 2;
                            }
                            Some(&c) => {
                                word.push(c);
                                i += 1;
                            }
                        }
                    }
                }
                '\\' => {
                    let Some(&n) = chars.get(i + 1) else {
                        return Err("'\\' at the end of the command".into());
                    };
                    word.push(n);
                    i += 2;
                }
                '*' | '?' => {
                    return Err(format!(
                        "unquoted '{c}' (globbing is not supported; quote it)"
                    ));
                }
                _ => {
                    word.push(c);
                    i += 1;
                }
            }
        }
        // `2>`, `1>>`, `2>&1`: a bare digit word directly followed by a redirection.
        if !quoted
            && (word == "1" || word == "2")
            && let Some(op @ (">" | ">>" | ">&")) = op_at(i)
        {
            i += op.len();
            out.push(Tok::Redir(op, word.as_bytes()[0] - b'0'));
            continue;
        }
        out.push(Tok::Word(word));
    }
    Ok(out)
}

/// Parses one (already substituted) RUN command.
pub fn parse(s: &str) -> Result<Script, String> {
    let toks = lex(s)?;
    let mut pipelines: Vec<(Option<Join>, Pipeline)> = vec![(None, vec![Command::default()])];
    let mut it = toks.into_iter().peekable();
    while let Some(t) = it.next() {
        let (_, pipe) = pipelines.last_mut().expect("never empty");
        let cmd = pipe.last_mut().expect("never empty");
        match t {
            Tok::Word(w) => cmd.args.push(w),
            Tok::Redir(op, fd) => {
                let target = match it.next() {
                    Some(Tok::Word(w)) => w,
                    _ => return Err(format!("missing file name after '{op}'")),
                };
                cmd.redirects.push(match op {
                    ">&" => {
                        let to = match target.as_str() {
                            "1" => 1,
                            "2" => 2,
                            _ => return Err(format!("unsupported redirection '{fd}>&{target}'")),
                        };
                        Redirect::Dup { fd, to }
                    }
                    "&>" => Redirect::Both { path: target },
                    "<" => Redirect::Stdin { path: target },
                    _ => Redirect::ToFile {
                        fd,
                        path: target,
                        append: op == ">>",
                    },
                });
            }
            Tok::Op("&>") => {
                let Some(Tok::Word(path)) = it.next() else {
                    return Err("missing file name after '&>'".into());
                };
                cmd.redirects.push(Redirect::Both { path });
            }
            Tok::Op(op) => {
                if cmd.args.is_empty() {
                    return Err(format!("missing command before '{op}'"));
                }
                match op {
                    "|" => pipe.push(Command::default()),
                    "&&" => pipelines.push((Some(Join::And), vec![Command::default()])),
                    "||" => pipelines.push((Some(Join::Or), vec![Command::default()])),
                    _ => pipelines.push((Some(Join::Seq), vec![Command::default()])),
                }
            }
        }
    }
    for (_, p) in &pipelines {
        if p.iter().any(|c| c.args.is_empty()) {
            return Err("empty command".into());
        }
    }
    let mut iter = pipelines.into_iter();
    let first = iter.next().expect("never empty").1;
    let rest = iter
        .map(|(j, p)| (j.expect("joined pipelines have a join"), p))
        .collect();
    Ok(Script { first, rest })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(c: &Command) -> Vec<&str> {
        c.args.iter().map(String::as_str).collect()
    }

    #[test]
    fn pipelines_lists_and_quotes() {
        let s = parse(r#"not xir-opt 'a b' "c\"d\e" f\ g | FileCheck %s && echo x; cat y || z"#)
            .unwrap();
        assert_eq!(s.first.len(), 2);
        assert_eq!(
            words(&s.first[0]),
            vec!["not", "xir-opt", "a b", "c\"d\\e", "f g"]
        );
        let joins: Vec<_> = s.rest.iter().map(|(j, _)| *j).collect();
        assert_eq!(joins, vec![Join::And, Join::Seq, Join::Or]);
    }

    #[test]
    fn redirections() {
        let s = parse("a 2>&1 > out 2>> err < in >&2 &> both").unwrap();
        assert_eq!(
            s.first[0].redirects,
            vec![
                Redirect::Dup { fd: 2, to: 1 },
                Redirect::ToFile {
                    fd: 1,
                    path: "out".into(),
                    append: false
                },
                Redirect::ToFile {
                    fd: 2,
                    path: "err".into(),
                    append: true
                },
                Redirect::Stdin { path: "in".into() },
                Redirect::Dup { fd: 1, to: 2 },
                Redirect::Both {
                    path: "both".into()
                },
            ]
        );
        // `12>x` is the word 12 and a stdout redirection; a quoted "2" is a word too.
        let s = parse("a 12>x '2'>y").unwrap();
        assert_eq!(words(&s.first[0]), vec!["a", "12", "2"]);
    }

    #[test]
    fn errors() {
        for bad in [
            "a |",
            "| a",
            "a && && b",
            "a >",
            "a 'b",
            "a \"b",
            "a *.xir",
            "a &",
            "a 2>&3",
            "",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        assert!(parse("a '*.xir'").is_ok());
    }
}
