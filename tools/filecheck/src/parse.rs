//! Reading a check file into check strings (LLVM's `FileCheck::readCheckFile`).
//!
//! Finds directives by prefix (longest prefix first at the lowest position, rejecting
//! prefixes that continue a word), classifies the suffix (`-NEXT`, `-COUNT-n`,
//! `{LITERAL}`...), parses each pattern and groups `CHECK-DAG`/`CHECK-NOT` patterns with
//! the positive directive that follows them.

use crate::exprparse::{ExprParser, S};
use crate::numeric::{FmtKind, Format, Vars};
use crate::options::Options;
use crate::pattern::{CheckType, Kind, PatErr, PatOpts, Pattern};
use crate::source::{self, Loc, SourceMgr};
use std::collections::BTreeSet;

/// A `CHECK-DAG` or `CHECK-NOT` pattern.
#[derive(Clone, Debug)]
pub struct DagNot {
    /// The pattern.
    pub pat: Pattern,
    /// Prefix used (`IMPLICIT-CHECK` for `--implicit-check-not`).
    pub prefix: String,
}

/// A positive directive with the DAG/NOT patterns that precede it.
#[derive(Clone, Debug)]
pub struct CheckString {
    /// The pattern.
    pub pat: Pattern,
    /// Prefix used.
    pub prefix: String,
    /// Location of the pattern.
    pub loc: Loc,
    /// Preceding DAG/NOT patterns.
    pub dag_not: Vec<DagNot>,
}

/// A parsed check file, ready to check inputs.
#[derive(Clone, Debug)]
pub struct CheckFile {
    /// Buffers: check file, implicit patterns, global defines.
    pub sm: SourceMgr,
    /// Index of the check file buffer.
    pub check_buf: usize,
    /// Buffers of implicit-check-not patterns.
    pub imp_bufs: Vec<usize>,
    /// The check strings.
    pub strings: Vec<CheckString>,
    /// Variables (after command-line definitions).
    pub vars: Vars,
    /// Id of `@LINE`.
    pub line_var: usize,
    /// Options.
    pub opts: Options,
}

/// Diagnostics of a failed parse: the printed text and the exit status.
#[derive(Clone, Debug)]
pub struct Diags {
    /// Text for stderr.
    pub text: String,
    /// Exit status (2, or 1 where LLVM exits with 1).
    pub code: i32,
}

fn is_part_of_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b'_'
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Found {
    None,
    Comment,
    Check(CheckType),
    Misspelled(CheckType),
    BadNot,
    BadCount,
}

/// LLVM's `FindCheckType`: classify the text after a prefix. Returns the type and the
/// offset just past the suffix (`None` for an empty rest).
fn find_check_type(t: &[u8], at: usize, prefix: &str, is_comment: bool) -> (Found, Option<usize>) {
    if t.len() - at <= prefix.len() {
        return (Found::None, None);
    }
    let mut r = at + prefix.len();
    let eat = |r: &mut usize, s: &[u8]| {
        if t[*r..].starts_with(s) {
            *r += s.len();
            true
        } else {
            false
        }
    };
    if is_comment {
        if eat(&mut r, b":") {
            return (Found::Comment, Some(r));
        }
        return (Found::None, None);
    }
    let modifiers = |mut r: usize, mut ty: CheckType| -> (Found, Option<usize>) {
        if t[r..].starts_with(b":") {
            return (Found::Check(ty), Some(r + 1));
        }
        if !t[r..].starts_with(b"{") {
            return (Found::None, None);
        }
        r += 1;
        loop {
            while r < t.len() && t[r].is_ascii_whitespace() {
                r += 1;
            }
            if t[r..].starts_with(b"LITERAL") {
                r += 7;
                ty.literal = true;
            } else {
                return (Found::None, Some(r));
            }
            while r < t.len() && t[r].is_ascii_whitespace() {
                r += 1;
            }
            if t[r..].starts_with(b",") {
                r += 1;
                continue;
            }
            break;
        }
        if !t[r..].starts_with(b"}:") {
            return (Found::None, Some(r));
        }
        (Found::Check(ty), Some(r + 2))
    };
    if eat(&mut r, b":") {
        return (Found::Check(CheckType::new(Kind::Plain)), Some(r));
    }
    if t[r] == b'{' {
        return modifiers(r, CheckType::new(Kind::Plain));
    }
    let misspelled = if eat(&mut r, b"_") {
        true
    } else if eat(&mut r, b"-") {
        false
    } else {
        return (Found::None, None);
    };
    let wrap = |res: (Found, Option<usize>)| match res {
        (Found::Check(ty), x) if misspelled => (Found::Misspelled(ty), x),
        other => other,
    };
    if eat(&mut r, b"COUNT-") {
        let st = r;
        let mut v: i64 = 0;
        while r < t.len() && t[r].is_ascii_digit() && v <= i32::MAX as i64 {
            v = v * 10 + (t[r] - b'0') as i64;
            r += 1;
        }
        if r == st || v <= 0 || v > i32::MAX as i64 {
            return wrap((Found::BadCount, Some(r)));
        }
        if r >= t.len() || (t[r] != b':' && t[r] != b'{') {
            return wrap((Found::BadCount, Some(r)));
        }
        let mut ty = CheckType::new(Kind::Plain);
        ty.count = v as usize;
        return wrap(modifiers(r, ty));
    }
    for combo in [
        &b"DAG-NOT:"[..],
        b"NOT-DAG:",
        b"NEXT-NOT:",
        b"NOT-NEXT:",
        b"SAME-NOT:",
        b"NOT-SAME:",
        b"EMPTY-NOT:",
        b"NOT-EMPTY:",
    ] {
        if t[r..].starts_with(combo) {
            return wrap((Found::BadNot, Some(r)));
        }
    }
    for (word, kind) in [
        (&b"NEXT"[..], Kind::Next),
        (b"SAME", Kind::Same),
        (b"NOT", Kind::Not),
        (b"DAG", Kind::Dag),
        (b"LABEL", Kind::Label),
        (b"EMPTY", Kind::Empty),
    ] {
        if eat(&mut r, word) {
            return wrap(modifiers(r, CheckType::new(kind)));
        }
    }
    (Found::None, Some(r))
}

struct PrefixMatcher {
    prefixes: Vec<(String, Option<usize>, bool)>,
}

impl PrefixMatcher {
    fn new(checks: &[String], comments: &[String], t: &[u8]) -> PrefixMatcher {
        let mut prefixes: Vec<(String, Option<usize>, bool)> = checks
            .iter()
            .map(|p| (p.clone(), memchr::memmem::find(t, p.as_bytes()), false))
            .chain(
                comments
                    .iter()
                    .map(|p| (p.clone(), memchr::memmem::find(t, p.as_bytes()), true)),
            )
            .collect();
        prefixes.sort_by_key(|p| std::cmp::Reverse(p.0.len()));
        PrefixMatcher { prefixes }
    }

    fn find(&mut self, t: &[u8], from: usize) -> Option<(usize, String, bool)> {
        let mut best: Option<(usize, usize)> = None;
        for (i, (p, pos, _)) in self.prefixes.iter_mut().enumerate() {
            if let Some(x) = *pos
                && x < from
            {
                *pos = memchr::memmem::find(&t[from..], p.as_bytes()).map(|y| y + from);
            }
            if let Some(x) = *pos
                && best.is_none_or(|(b, _)| b > x)
            {
                best = Some((x, i));
            }
        }
        best.map(|(x, i)| (x, self.prefixes[i].0.clone(), self.prefixes[i].2))
    }
}

fn validate(kind: &str, seen: &mut BTreeSet<String>, list: &[String]) -> Result<(), String> {
    for p in list {
        if p.is_empty() {
            return Err(format!(
                "error: supplied {kind} prefix must not be the empty string\n"
            ));
        }
        if !p
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
        {
            return Err(format!(
                "error: supplied {kind} prefix must start with a letter and contain only alphanumeric characters, hyphens, and underscores: '{p}'\n"
            ));
        }
        if !seen.insert(p.clone()) {
            return Err(format!(
                "error: supplied {kind} prefix must be unique among check and comment prefixes: '{p}'\n"
            ));
        }
    }
    Ok(())
}

/// LLVM's `ValidateCheckPrefixes`.
pub fn validate_prefixes(o: &Options) -> Result<(), String> {
    let mut seen = BTreeSet::new();
    if o.check_prefixes.is_empty() {
        seen.insert("CHECK".to_string());
    }
    if o.comment_prefixes.is_empty() {
        seen.insert("COM".to_string());
        seen.insert("RUN".to_string());
    }
    validate("check", &mut seen, &o.check_prefixes)?;
    validate("comment", &mut seen, &o.comment_prefixes)
}

fn define_cmdline(sm: &mut SourceMgr, vars: &mut Vars, defs: &[String]) -> Result<(), String> {
    if defs.is_empty() {
        return Ok(());
    }
    let mut text = String::new();
    let mut idx = Vec::new();
    for (n, d) in defs.iter().enumerate() {
        let pre = format!("Global define #{}: ", n + 1);
        let Some(eq) = d.find('=') else {
            idx.push((text.len(), 0usize, false));
            continue;
        };
        if d.starts_with('#') {
            text.push_str(&format!("{pre}{d} (parsed as: [["));
            let mut sub = d.clone();
            sub.replace_range(eq..eq + 1, ":");
            idx.push((text.len(), sub.len(), true));
            text.push_str(&sub);
            text.push_str("]])\n");
        } else {
            text.push_str(&pre);
            idx.push((text.len(), d.len(), false));
            text.push_str(d);
            text.push('\n');
        }
    }
    let buf = sm.add("Global defines", text.into_bytes());
    let t = sm.bufs[buf].text.clone();
    let mut out = Vec::new();
    for (start, len, _) in idx {
        let loc = Loc { buf, off: start };
        if len == 0 {
            sm.print(
                &mut out,
                loc,
                source::Kind::Error,
                "missing equal sign in global definition",
                &[],
            );
            continue;
        }
        let def = &t[start..start + len];
        if def[0] == b'#' {
            let mut ep = ExprParser {
                t: &t,
                buf,
                vars: &mut *vars,
                line: None,
            };
            let blk = match ep.parse_block(
                S {
                    p: start + 1,
                    e: start + len,
                },
                false,
            ) {
                Ok(b) => b,
                Err(e) => {
                    sm.print(&mut out, e.loc, source::Kind::Error, &e.msg, &[]);
                    continue;
                }
            };
            let val = match blk.ast.as_ref().map(|a| a.eval(vars)) {
                Some(Ok(v)) => v,
                Some(Err(crate::numeric::EvalError::Undef(us))) => {
                    for (name, l) in us {
                        sm.print(
                            &mut out,
                            l,
                            source::Kind::Error,
                            &format!("undefined variable: {name}"),
                            &[],
                        );
                    }
                    continue;
                }
                _ => {
                    sm.print(
                        &mut out,
                        loc,
                        source::Kind::Error,
                        "unable to represent numeric value",
                        &[],
                    );
                    continue;
                }
            };
            if let Some(id) = blk.def {
                vars.num[id].value = Some(val);
                let name = vars.num[id].name.clone();
                vars.num_table.insert(name, id);
            }
        } else {
            let eq = def.iter().position(|&c| c == b'=').unwrap();
            let mut s = S {
                p: start,
                e: start + eq,
            };
            let ep = ExprParser {
                t: &t,
                buf,
                vars: &mut *vars,
                line: None,
            };
            let (name, pseudo) = match ep.parse_variable(&mut s) {
                Ok(x) => x,
                Err(e) => {
                    sm.print(&mut out, e.loc, source::Kind::Error, &e.msg, &[]);
                    continue;
                }
            };
            let orig = String::from_utf8_lossy(&t[start..start + eq]).into_owned();
            if pseudo || !s.is_empty() {
                sm.print(
                    &mut out,
                    loc,
                    source::Kind::Error,
                    &format!("invalid name in string variable definition '{orig}'"),
                    &[],
                );
                continue;
            }
            let n = String::from_utf8_lossy(&t[name.p..name.e]).into_owned();
            if vars.num_table.contains_key(&n) {
                sm.print(
                    &mut out,
                    loc,
                    source::Kind::Error,
                    &format!("numeric variable with name '{n}' already exists"),
                    &[],
                );
                continue;
            }
            vars.strs.insert(n.clone(), def[eq + 1..].to_vec());
            vars.str_defined.insert(n);
        }
    }
    if out.is_empty() {
        Ok(())
    } else {
        // Every definition error goes through logAllUnhandledErrors: one blank line each.
        let text = String::from_utf8_lossy(&out).into_owned();
        let mut res = String::new();
        for (i, l) in text.split_inclusive('\n').enumerate() {
            res.push_str(l);
            if i % 3 == 2 {
                res.push('\n');
            }
        }
        Err(res)
    }
}

impl CheckFile {
    /// Checks done before the check file is read: `-D` syntax and prefixes.
    pub fn pre_validate(opts: &Options) -> Result<(), Diags> {
        let fail = |text: String| Diags { text, code: 2 };
        for d in &opts.defines {
            match d.find('=') {
                None => {
                    return Err(fail(format!(
                        "Missing equal sign in command-line definition '-D{d}'\n"
                    )));
                }
                Some(0) => {
                    return Err(fail(format!(
                        "Missing variable name in command-line definition '-D{d}'\n"
                    )));
                }
                _ => {}
            }
        }
        validate_prefixes(opts).map_err(fail)
    }

    /// Parses a check file (raw bytes; canonicalised here) named `name`.
    pub fn parse_named(name: &str, src: &[u8], opts: &Options) -> Result<CheckFile, Diags> {
        let fail = |text: String| Diags { text, code: 2 };
        CheckFile::pre_validate(opts)?;
        let mut sm = SourceMgr::default();
        let check_buf = sm.add(name, source::canonicalize(src, opts.strict_whitespace));
        let mut vars = Vars::default();
        define_cmdline(&mut sm, &mut vars, &opts.defines).map_err(fail)?;
        let line_var = vars.make_num("@LINE", Format::of(FmtKind::Unsigned), None);
        vars.num_table.insert("@LINE".into(), line_var);
        let po = PatOpts {
            strict: opts.strict_whitespace,
            full_lines: opts.match_full_lines,
            ignore_case: opts.ignore_case,
        };
        let mut errs = Vec::new();
        let perr = |sm: &SourceMgr, errs: &mut Vec<u8>, e: PatErr| -> Diags {
            sm.print(errs, e.err.loc, source::Kind::Error, &e.err.msg, &[]);
            if e.logged {
                errs.push(b'\n');
            }
            Diags {
                text: String::from_utf8_lossy(errs).into_owned(),
                code: if e.exit1 { 1 } else { 2 },
            }
        };
        let mut imp_bufs = Vec::new();
        let mut implicit = Vec::new();
        for p in &opts.implicit_check_not {
            let text = format!("-implicit-check-not='{p}'");
            let b = sm.add("command line", text.into_bytes());
            imp_bufs.push(b);
            let t = sm.bufs[b].text.clone();
            let ps = "-implicit-check-not='".len();
            match Pattern::parse(
                &t,
                b,
                ps,
                ps + p.len(),
                CheckType::new(Kind::Not),
                "IMPLICIT-CHECK",
                None,
                po,
                &mut vars,
            ) {
                Ok(pat) => implicit.push(DagNot {
                    pat,
                    prefix: "IMPLICIT-CHECK".into(),
                }),
                Err(e) => return Err(perr(&sm, &mut errs, e)),
            }
        }
        let prefixes = opts.prefixes();
        let comments = opts.comments();
        let t = sm.bufs[check_buf].text.clone();
        let mut matcher = PrefixMatcher::new(&prefixes, &comments, &t);
        let mut not_found: BTreeSet<String> = prefixes.iter().cloned().collect();
        let distinct = not_found.len();
        let mut strings: Vec<CheckString> = Vec::new();
        let mut dag_not = implicit.clone();
        let mut pos = 0usize;
        let mut line = 1usize;
        loop {
            // FindFirstMatchingPrefix.
            let mut hit = None;
            while pos < t.len() {
                let Some((ppos, prefix, is_comment)) = matcher.find(&t, pos) else {
                    break;
                };
                line += memchr::memchr_iter(b'\n', &t[pos..ppos]).count();
                let skipped_ok = ppos == pos || !is_part_of_word(t[ppos - 1]);
                pos = ppos;
                if skipped_ok {
                    let (ty, after) = find_check_type(&t, pos, &prefix, is_comment);
                    if ty != Found::None {
                        hit = Some((prefix, ty, after));
                        break;
                    }
                }
                let mut q = pos + prefix.len();
                while q < t.len() && is_part_of_word(t[q]) {
                    q += 1;
                }
                pos = q;
            }
            let Some((prefix, ty, after)) = hit else {
                break;
            };
            if ty != Found::Comment {
                not_found.remove(&prefix);
            }
            let prefix_start = pos;
            let after_pos = match after {
                Some(a) if a < t.len() => a,
                _ => pos + prefix.len(),
            };
            pos = after_pos;
            let at = |off| Loc {
                buf: check_buf,
                off,
            };
            let ty = match ty {
                Found::Misspelled(_) => {
                    let d = String::from_utf8_lossy(&t[prefix_start..after.unwrap_or(t.len())])
                        .into_owned();
                    sm.print(
                        &mut errs,
                        at(prefix_start),
                        source::Kind::Error,
                        &format!("misspelled directive '{d}'"),
                        &[],
                    );
                    return Err(Diags {
                        text: String::from_utf8_lossy(&errs).into_owned(),
                        code: 2,
                    });
                }
                Found::BadNot => {
                    sm.print(
                        &mut errs,
                        at(pos),
                        source::Kind::Error,
                        &format!("unsupported -NOT combo on prefix '{prefix}'"),
                        &[],
                    );
                    return Err(Diags {
                        text: String::from_utf8_lossy(&errs).into_owned(),
                        code: 2,
                    });
                }
                Found::BadCount => {
                    sm.print(
                        &mut errs,
                        at(pos),
                        source::Kind::Error,
                        &format!("invalid count in -COUNT specification on prefix '{prefix}'"),
                        &[],
                    );
                    return Err(Diags {
                        text: String::from_utf8_lossy(&errs).into_owned(),
                        code: 2,
                    });
                }
                Found::Comment => None,
                Found::Check(ty) => Some(ty),
                Found::None => unreachable!(),
            };
            if !(opts.strict_whitespace && opts.match_full_lines) {
                while pos < t.len() && (t[pos] == b' ' || t[pos] == b'\t') {
                    pos += 1;
                }
            }
            let eol = t[pos..]
                .iter()
                .position(|&c| c == b'\n' || c == b'\r')
                .map(|x| x + pos)
                .unwrap_or(t.len());
            let (ps, pe) = (pos, eol);
            pos = eol;
            let Some(ty) = ty else {
                continue;
            };
            let pat = match Pattern::parse(
                &t,
                check_buf,
                ps,
                pe,
                ty,
                &prefix,
                Some(line),
                po,
                &mut vars,
            ) {
                Ok(p) => p,
                Err(e) => return Err(perr(&sm, &mut errs, e)),
            };
            if ty.kind == Kind::Label && pat.has_variable() {
                sm.print(
                    &mut errs,
                    at(prefix_start),
                    source::Kind::Error,
                    &format!("found '{prefix}-LABEL:' with variable definition or use"),
                    &[],
                );
                return Err(Diags {
                    text: String::from_utf8_lossy(&errs).into_owned(),
                    code: 2,
                });
            }
            if matches!(ty.kind, Kind::Next | Kind::Same | Kind::Empty) && strings.is_empty() {
                let tn = match ty.kind {
                    Kind::Next => "NEXT",
                    Kind::Empty => "EMPTY",
                    _ => "SAME",
                };
                sm.print(
                    &mut errs,
                    at(prefix_start),
                    source::Kind::Error,
                    &format!("found '{prefix}-{tn}' without previous '{prefix}: line"),
                    &[],
                );
                return Err(Diags {
                    text: String::from_utf8_lossy(&errs).into_owned(),
                    code: 2,
                });
            }
            if matches!(ty.kind, Kind::Dag | Kind::Not) {
                dag_not.push(DagNot { pat, prefix });
                continue;
            }
            strings.push(CheckString {
                pat,
                prefix,
                loc: at(ps),
                dag_not: std::mem::replace(&mut dag_not, implicit.clone()),
            });
        }
        let none_found = not_found.len() == distinct;
        let unexpectedly_unused = !opts.allow_unused_prefixes && !not_found.is_empty();
        if (none_found || unexpectedly_unused)
            && (implicit.is_empty() || !opts.check_prefixes.is_empty())
        {
            let list: Vec<String> = not_found.iter().map(|p| format!("'{p}:'")).collect();
            return Err(fail(format!(
                "error: no check strings found with prefix{} {}\n",
                if not_found.len() > 1 { "es" } else { "" },
                list.join(", ")
            )));
        }
        if !dag_not.is_empty() {
            let loc = Loc {
                buf: check_buf,
                off: pos.min(t.len()),
            };
            strings.push(CheckString {
                pat: Pattern::eof(loc, line + 1),
                prefix: prefixes[0].clone(),
                loc,
                dag_not,
            });
        }
        Ok(CheckFile {
            sm,
            check_buf,
            imp_bufs,
            strings,
            vars,
            line_var,
            opts: opts.clone(),
        })
    }
}
