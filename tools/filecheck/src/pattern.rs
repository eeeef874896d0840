//! Check patterns: fixed strings, `{{regex}}`, `[[VAR:regex]]`, `[[VAR]]` and numeric
//! blocks, parsed exactly like LLVM's `Pattern::parsePattern`.

use crate::ere::{self, escape, llvm_escape};
use crate::exprparse::{ExprParser, PErr, S};
use crate::numeric::{Ast, Format, Vars};
use crate::source::Loc;

/// Directive kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `CHECK:` (and `CHECK-COUNT-n:`)
    Plain,
    /// `CHECK-NEXT:`
    Next,
    /// `CHECK-SAME:`
    Same,
    /// `CHECK-NOT:`
    Not,
    /// `CHECK-DAG:`
    Dag,
    /// `CHECK-LABEL:`
    Label,
    /// `CHECK-EMPTY:`
    Empty,
    /// The implicit end-of-file pattern.
    Eof,
}

/// A directive type: kind, repeat count and `{LITERAL}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckType {
    /// Kind.
    pub kind: Kind,
    /// `COUNT-n` (1 otherwise).
    pub count: usize,
    /// `{LITERAL}` modifier.
    pub literal: bool,
}

impl CheckType {
    /// A plain type.
    pub fn new(kind: Kind) -> CheckType {
        CheckType {
            kind,
            count: 1,
            literal: false,
        }
    }

    /// LLVM's `getDescription`: `CHECK-NEXT`, `CHECK-COUNT{LITERAL}`...
    pub fn describe(&self, prefix: &str) -> String {
        let m = if self.literal { "{LITERAL}" } else { "" };
        let suffix = match self.kind {
            Kind::Plain if self.count > 1 => "-COUNT",
            Kind::Plain => "",
            Kind::Next => "-NEXT",
            Kind::Same => "-SAME",
            Kind::Not => "-NOT",
            Kind::Dag => "-DAG",
            Kind::Label => "-LABEL",
            Kind::Empty => "-EMPTY",
            Kind::Eof => return "implicit EOF".into(),
        };
        format!("{prefix}{suffix}{m}")
    }

    /// Abbreviation used in input-dump labels.
    pub fn abbrev(&self) -> &'static str {
        match self.kind {
            Kind::Plain if self.count > 1 => "count",
            Kind::Plain => "check",
            Kind::Next => "next",
            Kind::Same => "same",
            Kind::Not => "not",
            Kind::Dag => "dag",
            Kind::Label => "label",
            Kind::Empty => "empty",
            Kind::Eof => "eof",
        }
    }
}

/// What a substitution inserts.
#[derive(Clone, Debug)]
pub enum SubstKind {
    /// Value of a string variable.
    Str(String),
    /// Value of a numeric expression in a format.
    Num(Ast, Format),
}

/// A substitution, evaluated at match time.
#[derive(Clone, Debug)]
pub struct Subst {
    /// What to insert.
    pub kind: SubstKind,
    /// Location of the substituted text in the check file.
    pub loc: Loc,
    /// The substituted text (`VAR`, `N+1`).
    pub text: String,
}

/// A variable definition inside a pattern.
#[derive(Clone, Debug)]
pub struct Def {
    /// Variable name.
    pub name: String,
    /// Numeric variable id, or `None` for a string variable.
    pub num: Option<usize>,
    /// Rust regex of the definition's body (for same-line back-references).
    pub body: String,
}

/// One piece of a regex pattern.
#[derive(Clone, Debug)]
pub enum Piece {
    /// Rust regex text.
    Re(String),
    /// Substitution index.
    Subst(usize),
    /// Opens capture group for definition index.
    DefOpen(usize),
    /// Closes the innermost definition group.
    DefClose,
    /// Use of a string variable defined earlier in the same pattern.
    Backref(usize),
}

/// A parsed pattern.
#[derive(Clone, Debug)]
pub struct Pattern {
    /// Directive type.
    pub ty: CheckType,
    /// Check-file line (`None` for implicit patterns).
    pub line: Option<usize>,
    /// Location of the pattern text.
    pub loc: Loc,
    /// Fixed string to search for, if the pattern is a plain string.
    pub fixed: Option<Vec<u8>>,
    /// LLVM's regex string (used only by the fuzzy matcher).
    pub llvm_re: Vec<u8>,
    /// Regex pieces (when not fixed).
    pub pieces: Vec<Piece>,
    /// Substitutions.
    pub substs: Vec<Subst>,
    /// Definitions (capture groups `d0`, `d1`...).
    pub defs: Vec<Def>,
    /// Does the regex contain same-line back-references?
    pub has_backref: bool,
    /// Case-insensitive matching.
    pub ignore_case: bool,
}

/// Options that influence pattern parsing.
#[derive(Clone, Copy, Debug, Default)]
pub struct PatOpts {
    /// `--strict-whitespace`
    pub strict: bool,
    /// `--match-full-lines`
    pub full_lines: bool,
    /// `--ignore-case`
    pub ignore_case: bool,
}

/// A pattern-parse error; `exit1` marks LLVM's hard `exit(1)` cases.
#[derive(Debug, Clone)]
pub struct PatErr {
    /// Location and message.
    pub err: PErr,
    /// LLVM exits with status 1 instead of 2 for this error.
    pub exit1: bool,
    /// Reported through LLVM's `logAllUnhandledErrors` (adds a blank line).
    pub logged: bool,
}

impl From<PErr> for PatErr {
    fn from(err: PErr) -> PatErr {
        PatErr {
            err,
            exit1: false,
            logged: true,
        }
    }
}

fn perr(buf: usize, off: usize, msg: impl Into<String>) -> PatErr {
    PatErr {
        err: PErr {
            loc: Loc { buf, off },
            msg: msg.into(),
        },
        exit1: false,
        logged: false,
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(hay, needle)
}

/// LLVM's `FindRegexVarEnd`: offset of the `]]` closing a substitution block.
fn find_var_end(t: &[u8], start: usize, end: usize, buf: usize) -> Result<Option<usize>, PatErr> {
    let mut i = start;
    let mut depth = 0usize;
    while i < end {
        if t[i..end].starts_with(b"]]") && depth == 0 {
            return Ok(Some(i));
        }
        if t[i] == b'\\' {
            i += 2;
            continue;
        }
        match t[i] {
            b'[' => depth += 1,
            b']' => {
                if depth == 0 {
                    let mut e = perr(buf, i, "missing closing \"]\" for regex variable");
                    e.exit1 = true;
                    return Err(e);
                }
                depth -= 1;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(None)
}

impl Pattern {
    /// Does the pattern define or use variables (forbidden on `CHECK-LABEL`)?
    pub fn has_variable(&self) -> bool {
        !self.substs.is_empty() || self.defs.iter().any(|d| d.num.is_none())
    }

    /// An empty pattern of the given type (used for the implicit EOF check).
    pub fn eof(loc: Loc, line: usize) -> Pattern {
        Pattern {
            ty: CheckType::new(Kind::Eof),
            line: Some(line),
            loc,
            fixed: None,
            llvm_re: Vec::new(),
            pieces: Vec::new(),
            substs: Vec::new(),
            defs: Vec::new(),
            has_backref: false,
            ignore_case: false,
        }
    }

    /// Parses the pattern text `t[ps..pe]` (LLVM's `parsePattern`).
    #[allow(clippy::too_many_arguments)]
    pub fn parse(
        t: &[u8],
        buf: usize,
        ps: usize,
        mut pe: usize,
        ty: CheckType,
        prefix: &str,
        line: Option<usize>,
        o: PatOpts,
        vars: &mut Vars,
    ) -> Result<Pattern, PatErr> {
        let full_here = o.full_lines && ty.kind != Kind::Not;
        let mut p = Pattern {
            ty,
            line,
            loc: Loc { buf, off: ps },
            fixed: None,
            llvm_re: Vec::new(),
            pieces: Vec::new(),
            substs: Vec::new(),
            defs: Vec::new(),
            has_backref: false,
            ignore_case: o.ignore_case,
        };
        if !(o.strict && o.full_lines) {
            while pe > ps && (t[pe - 1] == b' ' || t[pe - 1] == b'\t') {
                pe -= 1;
            }
        }
        if pe == ps && ty.kind != Kind::Empty {
            return Err(perr(
                buf,
                ps,
                format!("found empty check string with prefix '{prefix}:'"),
            ));
        }
        if pe != ps && ty.kind == Kind::Empty {
            return Err(perr(
                buf,
                ps,
                format!("found non-empty check string for empty check with prefix '{prefix}:'"),
            ));
        }
        if ty.kind == Kind::Empty {
            p.llvm_re = b"(\n$)".to_vec();
            p.pieces.push(Piece::Re("(?:\\n$)".into()));
            return Ok(p);
        }
        let pat = &t[ps..pe];
        if ty.literal {
            p.fixed = Some(pat.to_vec());
            return Ok(p);
        }
        if !full_here
            && (pat.len() < 2 || (find(pat, b"{{").is_none() && find(pat, b"[[").is_none()))
        {
            p.fixed = Some(pat.to_vec());
            return Ok(p);
        }
        let mut re = String::new();
        if full_here {
            p.llvm_re.push(b'^');
            re.push('^');
            if !o.strict {
                p.llvm_re.extend_from_slice(b" *");
                re.push_str(" *");
            }
        }
        let mut cur_paren = 1usize;
        // Same-line string definitions: name -> (def index, llvm paren number).
        let mut str_defs: Vec<(String, usize, usize)> = Vec::new();
        let mut i = ps;
        let flush = |p: &mut Pattern, re: &mut String| {
            if !re.is_empty() {
                p.pieces.push(Piece::Re(std::mem::take(re)));
            }
        };
        while i < pe {
            if t[i..pe].starts_with(b"{{") {
                let Some(rel) = find(&t[i..pe], b"}}") else {
                    return Err(perr(buf, i, "found start of regex string with no end '}}'"));
                };
                let body = &t[i + 2..i + rel];
                let has_alt = t[i..pe].contains(&b'|');
                if has_alt {
                    p.llvm_re.push(b'(');
                    re.push_str("(?:");
                    cur_paren += 1;
                }
                let tr = ere::translate(body)
                    .map_err(|m| perr(buf, i + 2, format!("invalid regex: {m}")))?;
                p.llvm_re.extend_from_slice(body);
                re.push_str(&tr.rust);
                cur_paren += tr.groups;
                if has_alt {
                    p.llvm_re.push(b')');
                    re.push(')');
                }
                i += rel + 2;
                continue;
            }
            if t[i..pe].starts_with(b"[[") && !t[i..pe].starts_with(b"[[[") {
                let un = i + 2;
                let end = find_var_end(t, un, pe, buf)?;
                let Some(end) = end else {
                    return Err(perr(buf, i, "Invalid substitution block, no ]] found"));
                };
                let mut ms = S { p: un, e: end };
                let is_num = t[un] == b'#' && un < end;
                if is_num {
                    ms.p += 1;
                }
                i = end + 2;
                let mut is_def = false;
                let mut subst_needed = false;
                let mut legacy = false;
                let mut def_name = String::new();
                let mut subst_name = String::new();
                let mut subst_at = S { p: 0, e: 0 };
                let mut match_re: Option<(Vec<u8>, String, usize)> = None; // llvm, rust, groups
                let mut num_var = None;
                let mut num_ast = None;
                let mut num_fmt = None;
                let mut is_num = is_num;
                if !is_num {
                    let colon = memchr::memchr(b':', &t[ms.p..ms.e]).map(|x| ms.p + x);
                    let name_end = colon.unwrap_or(ms.e);
                    if let Some(sp) = t[ms.p..name_end]
                        .iter()
                        .position(|&c| c == b' ' || c == b'\t')
                    {
                        return Err(perr(buf, ms.p + sp, "unexpected whitespace"));
                    }
                    let orig = ms;
                    let ep = ExprParser {
                        t,
                        buf,
                        vars: &mut *vars,
                        line,
                    };
                    let (name, pseudo) = ep.parse_variable(&mut ms)?;
                    let n = String::from_utf8_lossy(&t[name.p..name.e]).into_owned();
                    is_def = colon.is_some();
                    subst_needed = !is_def;
                    if is_def {
                        if pseudo || t.get(ms.p) != Some(&b':') || ms.p >= ms.e {
                            return Err(perr(
                                buf,
                                name.p,
                                "invalid name in string variable definition",
                            ));
                        }
                        ms.p += 1;
                        if vars.num_table.contains_key(&n) {
                            return Err(perr(
                                buf,
                                name.p,
                                format!("numeric variable with name '{n}' already exists"),
                            ));
                        }
                        def_name = n;
                        let body = &t[ms.p..ms.e];
                        if !body.is_empty() {
                            let tr = ere::translate(body)
                                .map_err(|m| perr(buf, ms.p, format!("invalid regex: {m}")))?;
                            match_re = Some((body.to_vec(), tr.rust, tr.groups));
                        }
                    } else if pseudo {
                        ms = orig;
                        legacy = true;
                        is_num = true;
                    } else {
                        if !ms.is_empty() {
                            return Err(perr(buf, name.p, "invalid name in string variable use"));
                        }
                        subst_name = n;
                        subst_at = name;
                    }
                }
                if is_num {
                    let mut ep = ExprParser {
                        t,
                        buf,
                        vars: &mut *vars,
                        line,
                    };
                    let blk = ep.parse_block(ms, legacy)?;
                    subst_needed = blk.ast.is_some();
                    if let Some(d) = blk.def {
                        is_def = true;
                        def_name = vars.num[d].name.clone();
                        num_var = Some(d);
                    }
                    if subst_needed {
                        num_ast = blk.ast;
                        num_fmt = Some(blk.fmt);
                    } else {
                        let (l, r) = blk.fmt.wildcard();
                        match_re = Some((l.into_bytes(), r, 0));
                    }
                }
                if is_def {
                    flush(&mut p, &mut re);
                    p.llvm_re.push(b'(');
                    let idx = p.defs.len();
                    p.defs.push(Def {
                        name: def_name.clone(),
                        num: num_var,
                        body: match_re.as_ref().map(|m| m.1.clone()).unwrap_or_default(),
                    });
                    p.pieces.push(Piece::DefOpen(idx));
                    if let Some(id) = num_var {
                        vars.num_table.insert(def_name.clone(), id);
                    } else {
                        str_defs.retain(|d| d.0 != def_name);
                        str_defs.push((def_name.clone(), idx, cur_paren));
                        vars.str_defined.insert(def_name.clone());
                    }
                    cur_paren += 1;
                }
                if let Some((l, r, g)) = &match_re {
                    p.llvm_re.extend_from_slice(l);
                    re.push_str(r);
                    cur_paren += g;
                }
                if subst_needed {
                    let at = if is_num { ms } else { subst_at };
                    let sub_loc = Loc { buf, off: at.p };
                    let sub_text = String::from_utf8_lossy(&t[at.p..at.e]).into_owned();
                    if !is_num && let Some(d) = str_defs.iter().find(|d| d.0 == subst_name) {
                        if d.2 < 1 || d.2 > 9 {
                            return Err(perr(
                                buf,
                                ms.p,
                                "Can't back-reference more than 9 variables",
                            ));
                        }
                        flush(&mut p, &mut re);
                        p.llvm_re.extend_from_slice(format!("\\{}", d.2).as_bytes());
                        p.pieces.push(Piece::Backref(d.1));
                        p.has_backref = true;
                    } else {
                        flush(&mut p, &mut re);
                        let kind = if is_num {
                            SubstKind::Num(num_ast.take().unwrap(), num_fmt.unwrap())
                        } else {
                            SubstKind::Str(subst_name.clone())
                        };
                        p.substs.push(Subst {
                            kind,
                            loc: sub_loc,
                            text: sub_text,
                        });
                        p.pieces.push(Piece::Subst(p.substs.len() - 1));
                    }
                }
                if is_def {
                    flush(&mut p, &mut re);
                    p.llvm_re.push(b')');
                    p.pieces.push(Piece::DefClose);
                }
                continue;
            }
            // Fixed text up to the next "{{" or "[[" (searching from offset 1).
            let rest = &t[i..pe];
            let a = find(&rest[1..], b"{{").map(|x| x + 1).unwrap_or(rest.len());
            let b = find(&rest[1..], b"[[").map(|x| x + 1).unwrap_or(rest.len());
            let n = a.min(b);
            p.llvm_re.extend_from_slice(&llvm_escape(&rest[..n]));
            re.push_str(&escape(&rest[..n]));
            i += n;
        }
        if full_here {
            if !o.strict {
                p.llvm_re.extend_from_slice(b" *");
                re.push_str(" *");
            }
            p.llvm_re.push(b'$');
            re.push('$');
        }
        flush(&mut p, &mut re);
        Ok(p)
    }
}
