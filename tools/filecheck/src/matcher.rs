//! The matching algorithm (LLVM's `FileCheck::checkInput`, `FileCheckString::Check`,
//! `CheckDag`, `CheckNot`, `CheckNext`, `CheckSame`) and the diagnostics it prints.

use crate::diag;
use crate::ere::{escape, llvm_escape};
use crate::numeric::{EvalError, Vars};
use crate::parse::{CheckFile, CheckString, DagNot};
use crate::pattern::{Kind, Pattern, Piece, SubstKind};
use crate::re::Re;
use crate::source::{self, Loc, SourceMgr};
use std::collections::HashMap;
use std::rc::Rc;

/// What a recorded diagnostic says about a match (LLVM's `FileCheckDiag::MatchType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatchTy {
    /// Good match.
    FoundAndExpected,
    /// `CHECK-NOT` matched.
    FoundButExcluded,
    /// `CHECK-NEXT`/`SAME`/`EMPTY` matched on the wrong line.
    FoundButWrongLine,
    /// DAG match discarded for overlap.
    FoundButDiscarded,
    /// Error after a match.
    FoundErrorNote,
    /// `CHECK-NOT` did not match (good).
    NoneAndExcluded,
    /// Expected pattern not found.
    NoneButExpected,
    /// Pattern could not be matched (undefined variable...).
    NoneForInvalidPattern,
    /// Fuzzy "possible intended match".
    Fuzzy,
}

/// A recorded diagnostic for the input dump.
#[derive(Clone, Debug)]
pub struct Diag {
    /// Directive type.
    pub ty: crate::pattern::CheckType,
    /// Pattern location (identifies the directive).
    pub check_loc: Loc,
    /// Kind of result.
    pub match_ty: MatchTy,
    /// Input byte range.
    pub range: (usize, usize),
    /// Custom note.
    pub note: String,
}

enum MatchErr {
    NotFound,
    Invalid(Vec<(Loc, String)>),
}

type MatchRes = Result<(usize, usize), MatchErr>;

/// Matching state for one input.
pub struct Matcher<'a> {
    cf: &'a CheckFile,
    /// Buffers (check file, ..., input).
    pub sm: &'a SourceMgr,
    input: usize,
    hay: &'a [u8],
    vars: Vars,
    cache: HashMap<(String, bool), Rc<Re>>,
    /// Printed diagnostics (stderr).
    pub err: Vec<u8>,
    /// Recorded diagnostics for the dump, if a dump may be printed.
    pub diags: Option<Vec<Diag>>,
    near_miss: bool,
}

fn count_newlines(t: &[u8]) -> (usize, Option<usize>) {
    let mut n = 0;
    let mut first = None;
    let mut i = 0;
    while i < t.len() {
        let c = t[i];
        if c != b'\n' && c != b'\r' {
            i += 1;
            continue;
        }
        n += 1;
        if i + 1 < t.len() && (t[i + 1] == b'\n' || t[i + 1] == b'\r') && t[i + 1] != c {
            i += 1;
        }
        i += 1;
        if n == 1 {
            first = Some(i);
        }
    }
    (n, first)
}

/// LLVM's `raw_ostream::write_escaped`.
pub fn write_escaped(s: &[u8]) -> String {
    let mut o = String::new();
    for &c in s {
        match c {
            b'\\' => o.push_str("\\\\"),
            b'\t' => o.push_str("\\t"),
            b'\n' => o.push_str("\\n"),
            b'"' => o.push_str("\\\""),
            c if (0x20..0x7f).contains(&c) => o.push(c as char),
            c => o.push_str(&format!("\\{:03o}", c)),
        }
    }
    o
}

impl<'a> Matcher<'a> {
    /// Creates a matcher over the input buffer `input` of `sm`.
    pub fn new(cf: &'a CheckFile, sm: &'a SourceMgr, input: usize, record: bool) -> Matcher<'a> {
        Matcher {
            cf,
            sm,
            input,
            hay: &sm.bufs[input].text,
            vars: cf.vars.clone(),
            cache: HashMap::new(),
            err: Vec::new(),
            diags: if record { Some(Vec::new()) } else { None },
            near_miss: !cf.opts.no_near_miss_diff,
        }
    }

    fn at(&self, off: usize) -> Loc {
        Loc {
            buf: self.input,
            off,
        }
    }

    fn print(&mut self, loc: Loc, kind: source::Kind, msg: &str, ranges: &[(Loc, Loc)]) {
        self.sm.print(&mut self.err, loc, kind, msg, ranges);
    }

    fn diag(&mut self, pat: &Pattern, mt: MatchTy, range: (usize, usize), note: String) {
        if let Some(d) = &mut self.diags {
            d.push(Diag {
                ty: pat.ty,
                check_loc: pat.loc,
                match_ty: mt,
                range,
                note,
            });
        }
    }

    /// The compiled regex for `src`, cached. A regex the engine refuses (one over its
    /// size limit, such as nested counted repetitions) is an error of the pattern at
    /// `pat`, reported like any other invalid pattern: never a panic.
    fn regex(&mut self, pat: &Pattern, src: String, icase: bool) -> Result<Rc<Re>, MatchErr> {
        let key = (src, icase);
        if let Some(r) = self.cache.get(&key) {
            return Ok(r.clone());
        }
        let re = Rc::new(
            Re::new(&key.0, icase)
                .map_err(|e| MatchErr::Invalid(vec![(pat.loc, format!("invalid regex: {e}"))]))?,
        );
        self.cache.insert(key, re.clone());
        Ok(re)
    }

    fn subst_value(&self, pat: &Pattern, i: usize) -> Result<Vec<u8>, Vec<(Loc, String)>> {
        let s = &pat.substs[i];
        match &s.kind {
            SubstKind::Str(name) => match self.vars.strs.get(name) {
                Some(v) => Ok(v.clone()),
                None => Err(vec![(s.loc, format!("undefined variable: {name}"))]),
            },
            SubstKind::Num(ast, fmt) => match ast.eval(&self.vars) {
                Ok(v) => fmt.render(v).map(String::into_bytes).ok_or_else(|| {
                    vec![(
                        s.loc,
                        "unable to substitute variable or numeric expression: overflow error"
                            .to_string(),
                    )]
                }),
                Err(EvalError::Undef(us)) => Err(us
                    .into_iter()
                    .map(|(n, l)| (l, format!("undefined variable: {n}")))
                    .collect()),
                Err(EvalError::Overflow) => Err(vec![(
                    s.loc,
                    "unable to substitute variable or numeric expression: overflow error"
                        .to_string(),
                )]),
            },
        }
    }

    fn set_line(&mut self, pat: &Pattern) {
        if let Some(l) = pat.line {
            self.vars.num[self.cf.line_var].value = Some(l as i128);
        }
    }

    /// Builds the Rust regex for a pattern; `fixed_defs` pins back-referenced definitions.
    fn build(
        &self,
        pat: &Pattern,
        fixed_defs: &HashMap<usize, Vec<u8>>,
    ) -> Result<String, Vec<(Loc, String)>> {
        let mut out = String::new();
        let mut errs = Vec::new();
        let mut skip_depth: Option<usize> = None;
        let mut depth = 0usize;
        for piece in &pat.pieces {
            match piece {
                Piece::DefOpen(i) => {
                    depth += 1;
                    if skip_depth.is_some() {
                        continue;
                    }
                    out.push_str(&format!("(?P<d{i}>"));
                    if let Some(v) = fixed_defs.get(i) {
                        out.push_str(&escape(v));
                        skip_depth = Some(depth);
                    }
                }
                Piece::DefClose => {
                    if skip_depth == Some(depth) {
                        skip_depth = None;
                        out.push(')');
                    } else if skip_depth.is_none() {
                        out.push(')');
                    }
                    depth -= 1;
                }
                _ if skip_depth.is_some() => {}
                Piece::Re(r) => out.push_str(r),
                Piece::Subst(i) => match self.subst_value(pat, *i) {
                    Ok(v) => out.push_str(&escape(&v)),
                    Err(e) => errs.extend(e),
                },
                Piece::Backref(i) => match fixed_defs.get(i) {
                    Some(v) => out.push_str(&escape(v)),
                    None => {
                        out.push_str("(?:");
                        out.push_str(&pat.defs[*i].body);
                        out.push(')');
                    }
                },
            }
        }
        if errs.is_empty() { Ok(out) } else { Err(errs) }
    }

    /// LLVM's `Pattern::match` on the region `[s, e)`; returns absolute positions.
    fn pat_match(&mut self, pat: &Pattern, s: usize, e: usize) -> MatchRes {
        if pat.ty.kind == Kind::Eof {
            return Ok((e, e));
        }
        let hay = &self.hay[s..e];
        if let Some(f) = &pat.fixed {
            if !pat.ignore_case {
                return memchr::memmem::find(hay, f)
                    .map(|p| (s + p, s + p + f.len()))
                    .ok_or(MatchErr::NotFound);
            }
            let re = self.regex(pat, escape(f), true)?;
            return re
                .find(hay, 0)
                .map(|(a, b)| (s + a, s + b))
                .ok_or(MatchErr::NotFound);
        }
        self.set_line(pat);
        let src = self
            .build(pat, &HashMap::new())
            .map_err(MatchErr::Invalid)?;
        let re = self.regex(pat, src, pat.ignore_case)?;
        let names: Vec<String> = (0..pat.defs.len()).map(|i| format!("d{i}")).collect();
        let (ms, me, caps) = if !pat.has_backref {
            let Some((ms, me)) = re.find(hay, 0) else {
                return Err(MatchErr::NotFound);
            };
            let caps = if names.is_empty() {
                Vec::new()
            } else {
                re.captures(hay, ms, me, &names)
            };
            (ms, me, caps)
        } else {
            let mut from = 0;
            loop {
                let Some((ms, me)) = re.find(hay, from) else {
                    return Err(MatchErr::NotFound);
                };
                let caps = re.captures(hay, ms, me, &names);
                let mut fixed = HashMap::new();
                for (i, c) in caps.iter().enumerate() {
                    if let Some((a, b)) = c
                        && pat.defs[i].num.is_none()
                    {
                        fixed.insert(i, hay[*a..*b].to_vec());
                    }
                }
                let vsrc = self.build(pat, &fixed).map_err(MatchErr::Invalid)?;
                let vre = self.regex(pat, vsrc, pat.ignore_case)?;
                if let Some((vs, ve)) = vre.find_anchored(hay, ms) {
                    let vcaps = vre.captures(hay, vs, ve, &names);
                    break (vs, ve, vcaps);
                }
                let _ = me;
                if ms + 1 > hay.len() {
                    return Err(MatchErr::NotFound);
                }
                from = ms + 1;
            }
        };
        for (i, c) in caps.iter().enumerate() {
            let Some((a, b)) = *c else { continue };
            let d = &pat.defs[i];
            match d.num {
                None => {
                    self.vars.strs.insert(d.name.clone(), hay[a..b].to_vec());
                }
                Some(id) => {
                    let v = self.vars.num[id].fmt.parse_value(&hay[a..b]);
                    self.vars.num[id].value = v;
                    self.vars.num[id].captured = Some((s + a, s + b));
                }
            }
        }
        let skip = usize::from(pat.ty.kind == Kind::Empty);
        Ok((s + ms + skip, s + me))
    }

    fn subst_notes(&self, pat: &Pattern) -> Vec<String> {
        let mut v = Vec::new();
        for i in 0..pat.substs.len() {
            if let Ok(val) = self.subst_value(pat, i) {
                let val = match pat.substs[i].kind {
                    SubstKind::Str(_) => llvm_escape(&val),
                    SubstKind::Num(..) => val,
                };
                v.push(format!(
                    "with \"{}\" equal to \"{}\"",
                    write_escaped(pat.substs[i].text.as_bytes()),
                    write_escaped(&val)
                ));
            }
        }
        v
    }

    fn var_captures(&self, pat: &Pattern, m: (usize, usize)) -> Vec<(String, (usize, usize))> {
        let _ = m;
        let mut v: Vec<(String, (usize, usize))> = Vec::new();
        for d in &pat.defs {
            match d.num {
                None => {
                    if let Some(val) = self.vars.strs.get(&d.name) {
                        // Locate the captured value inside the match for the note.
                        let r = memchr::memmem::find(&self.hay[m.0..m.1], val)
                            .map(|p| (m.0 + p, m.0 + p + val.len()))
                            .unwrap_or((m.0, m.0));
                        v.push((d.name.clone(), r));
                    }
                }
                Some(id) => {
                    if let Some(r) = self.vars.num[id].captured {
                        v.push((d.name.clone(), r));
                    }
                }
            }
        }
        v.sort_by_key(|x| x.1.0);
        v
    }

    #[allow(clippy::too_many_arguments)]
    fn print_match(
        &mut self,
        expected: bool,
        prefix: &str,
        pat: &Pattern,
        count: usize,
        m: (usize, usize),
    ) -> bool {
        let has_error = !expected;
        let opts = &self.cf.opts;
        let mut print_diag = true;
        if !has_error {
            if !opts.verbose && !opts.verbose_verbose {
                return false;
            }
            if !opts.verbose_verbose && pat.ty.kind == Kind::Eof {
                return false;
            }
            print_diag = self.diags.is_none();
        }
        let mt = if expected {
            MatchTy::FoundAndExpected
        } else {
            MatchTy::FoundButExcluded
        };
        let notes = self.subst_notes(pat);
        let caps = self.var_captures(pat, m);
        if self.diags.is_some() {
            self.diag(pat, mt, m, String::new());
            for n in &notes {
                self.diag(pat, mt, (m.0, m.0), n.clone());
            }
            for (name, r) in &caps {
                self.diag(pat, mt, *r, format!("captured var \"{name}\""));
            }
        }
        if !print_diag {
            return has_error;
        }
        let mut msg = format!(
            "{}: {} string found in input",
            pat.ty.describe(prefix),
            if expected { "expected" } else { "excluded" }
        );
        if pat.ty.count > 1 {
            msg.push_str(&format!(" ({} out of {})", count, pat.ty.count));
        }
        self.print(
            pat.loc,
            if expected {
                source::Kind::Remark
            } else {
                source::Kind::Error
            },
            &msg,
            &[],
        );
        self.print(
            self.at(m.0),
            source::Kind::Note,
            "found here",
            &[(self.at(m.0), self.at(m.1))],
        );
        for n in notes {
            self.print(self.at(m.0), source::Kind::Note, &n, &[]);
        }
        for (name, r) in caps {
            self.print(
                self.at(r.0),
                source::Kind::Note,
                &format!("captured var \"{name}\""),
                &[(self.at(r.0), self.at(r.1))],
            );
        }
        has_error
    }

    #[allow(clippy::too_many_arguments)]
    fn print_no_match(
        &mut self,
        expected: bool,
        prefix: &str,
        pat: &Pattern,
        count: usize,
        buf: (usize, usize),
        errs: Vec<(Loc, String)>,
    ) -> bool {
        let mut has_error = expected;
        let mut has_pattern_error = false;
        let mut mt = if expected {
            MatchTy::NoneButExpected
        } else {
            MatchTy::NoneAndExcluded
        };
        let mut msgs = Vec::new();
        for (loc, m) in errs {
            has_error = true;
            has_pattern_error = true;
            mt = MatchTy::NoneForInvalidPattern;
            self.print(loc, source::Kind::Error, &m, &[]);
            msgs.push(m);
        }
        let mut print_diag = true;
        if !has_error {
            if !self.cf.opts.verbose_verbose {
                return false;
            }
            print_diag = self.diags.is_none();
        }
        let notes = self.subst_notes(pat);
        if self.diags.is_some() {
            self.diag(pat, mt, buf, String::new());
            for m in msgs {
                self.diag(pat, mt, (buf.0, buf.0), m);
            }
            for n in &notes {
                self.diag(pat, mt, (buf.0, buf.0), n.clone());
            }
        }
        if !print_diag {
            return has_error;
        }
        if !has_pattern_error {
            let mut msg = format!(
                "{}: {} string not found in input",
                pat.ty.describe(prefix),
                if expected { "expected" } else { "excluded" }
            );
            if pat.ty.count > 1 {
                msg.push_str(&format!(" ({} out of {})", count, pat.ty.count));
            }
            self.print(
                pat.loc,
                if expected {
                    source::Kind::Error
                } else {
                    source::Kind::Remark
                },
                &msg,
                &[],
            );
            self.print(
                self.at(buf.0),
                source::Kind::Note,
                "scanning from here",
                &[],
            );
        }
        for n in notes {
            self.print(self.at(buf.0), source::Kind::Note, &n, &[]);
        }
        if expected {
            self.fuzzy(pat, buf);
        }
        has_error
    }

    fn fuzzy(&mut self, pat: &Pattern, buf: (usize, usize)) {
        let example: Vec<u8> = match &pat.fixed {
            Some(f) if !f.is_empty() => f.clone(),
            _ => pat.llvm_re.clone(),
        };
        let region = &self.hay[buf.0..buf.1];
        if let Some(best) = diag::fuzzy_best(region, &example) {
            let at = buf.0 + best;
            self.diag(pat, MatchTy::Fuzzy, (at, at), String::new());
            self.print(
                self.at(at),
                source::Kind::Note,
                "possible intended match here",
                &[],
            );
            // The note shows a pattern with substitutions (`[[@LINE+1]]`, `[[VAR]]`) as
            // written: LLVM's regex text, used for the search above, leaves them out.
            let shown = if pat.substs.is_empty() {
                example
            } else {
                self.written(pat)
            };
            if self.near_miss
                && let Some(text) = diag::near_miss(self.sm, self.at(at), pat, &shown)
            {
                self.err.extend_from_slice(text.as_bytes());
            }
        }
    }

    /// The pattern's text as written in the check file (to the end of its line, without
    /// trailing blanks).
    fn written(&self, pat: &Pattern) -> Vec<u8> {
        let src = &self.sm.bufs[pat.loc.buf];
        let (line, _) = src.line_col(pat.loc.off);
        let (_, le) = src.line_range(line);
        let text = &src.text[pat.loc.off..le.max(pat.loc.off)];
        let end = text
            .iter()
            .rposition(|c| !c.is_ascii_whitespace())
            .map_or(0, |i| i + 1);
        text[..end].to_vec()
    }

    fn report(
        &mut self,
        expected: bool,
        prefix: &str,
        pat: &Pattern,
        count: usize,
        buf: (usize, usize),
        r: &MatchRes,
    ) -> bool {
        match r {
            Ok(m) => self.print_match(expected, prefix, pat, count, *m),
            Err(MatchErr::NotFound) => {
                self.print_no_match(expected, prefix, pat, count, buf, Vec::new())
            }
            Err(MatchErr::Invalid(e)) => {
                self.print_no_match(expected, prefix, pat, count, buf, e.clone())
            }
        }
    }

    fn check_next(&mut self, cs: &CheckString, sk: (usize, usize)) -> bool {
        let k = cs.pat.ty.kind;
        if k != Kind::Next && k != Kind::Empty {
            return false;
        }
        let name = format!(
            "{}{}",
            cs.prefix,
            if k == Kind::Empty { "-EMPTY" } else { "-NEXT" }
        );
        let (n, first) = count_newlines(&self.hay[sk.0..sk.1]);
        if n == 0 {
            self.print(
                cs.loc,
                source::Kind::Error,
                &format!("{name}: is on the same line as previous match"),
                &[],
            );
        } else if n != 1 {
            self.print(
                cs.loc,
                source::Kind::Error,
                &format!("{name}: is not on the line after the previous match"),
                &[],
            );
        } else {
            return false;
        }
        self.print(
            self.at(sk.1),
            source::Kind::Note,
            "'next' match was here",
            &[],
        );
        self.print(
            self.at(sk.0),
            source::Kind::Note,
            "previous match ended here",
            &[],
        );
        if n != 0 {
            let f = sk.0 + first.unwrap_or(0);
            self.print(
                self.at(f),
                source::Kind::Note,
                "non-matching line after previous match is here",
                &[],
            );
        }
        true
    }

    fn check_same(&mut self, cs: &CheckString, sk: (usize, usize)) -> bool {
        if cs.pat.ty.kind != Kind::Same {
            return false;
        }
        let (n, _) = count_newlines(&self.hay[sk.0..sk.1]);
        if n != 0 {
            self.print(
                cs.loc,
                source::Kind::Error,
                &format!(
                    "{}-SAME: is not on the same line as the previous match",
                    cs.prefix
                ),
                &[],
            );
            self.print(
                self.at(sk.1),
                source::Kind::Note,
                "'next' match was here",
                &[],
            );
            self.print(
                self.at(sk.0),
                source::Kind::Note,
                "previous match ended here",
                &[],
            );
            return true;
        }
        false
    }

    fn check_not(&mut self, region: (usize, usize), nots: &[&DagNot]) -> bool {
        let mut fail = false;
        for dn in nots {
            let r = self.pat_match(&dn.pat, region.0, region.1);
            if self.report(false, &dn.prefix, &dn.pat, 1, region, &r) {
                fail = true;
            }
        }
        fail
    }

    fn check_dag<'c>(
        &mut self,
        cs: &'c CheckString,
        s: usize,
        e: usize,
        nots: &mut Vec<&'c DagNot>,
    ) -> Option<usize> {
        if cs.dag_not.is_empty() {
            return Some(s);
        }
        let vv = self.cf.opts.verbose_verbose;
        let mut start = s;
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        for (idx, dn) in cs.dag_not.iter().enumerate() {
            if dn.pat.ty.kind == Kind::Not {
                nots.push(dn);
                continue;
            }
            let mut pos = start;
            let mut mi = 0usize;
            let m = loop {
                let r = self.pat_match(&dn.pat, pos, e);
                if (r.is_err() || vv) && self.report(true, &dn.prefix, &dn.pat, 1, (pos, e), &r) {
                    return None;
                }
                let Ok(m) = r else { return None };
                if self.cf.opts.allow_deprecated_dag_overlap {
                    if ranges.is_empty() {
                        ranges.push(m);
                    } else {
                        ranges[0].0 = ranges[0].0.min(m.0);
                        ranges[0].1 = ranges[0].1.max(m.1);
                    }
                    break m;
                }
                let mut overlap = false;
                while mi < ranges.len() {
                    if m.0 < ranges[mi].1 {
                        overlap = ranges[mi].0 < m.1;
                        break;
                    }
                    mi += 1;
                }
                if !overlap {
                    ranges.insert(mi, m);
                    break m;
                }
                if vv {
                    if let Some(d) = &mut self.diags {
                        let cl = d.last().map(|x| x.check_loc);
                        for x in d.iter_mut().rev() {
                            if Some(x.check_loc) != cl {
                                break;
                            }
                            x.match_ty = MatchTy::FoundButDiscarded;
                        }
                    } else {
                        let (a, b) = ranges[mi];
                        self.print(
                            self.at(a),
                            source::Kind::Note,
                            "match discarded, overlaps earlier DAG match here",
                            &[(self.at(a), self.at(b))],
                        );
                    }
                }
                pos = ranges[mi].1;
            };
            if !vv {
                self.print_match(true, &dn.prefix, &dn.pat, 1, m);
            }
            let last = idx + 1 == cs.dag_not.len() || cs.dag_not[idx + 1].pat.ty.kind == Kind::Not;
            if last {
                if !nots.is_empty() {
                    let region = (start, ranges[0].0);
                    if self.check_not(region, nots) {
                        return None;
                    }
                    nots.clear();
                }
                start = ranges.last().unwrap().1;
                ranges.clear();
            }
        }
        Some(start)
    }

    fn check_string(
        &mut self,
        cs: &CheckString,
        s: usize,
        e: usize,
        label_scan: bool,
    ) -> Option<(usize, usize)> {
        let mut last_pos = s;
        let mut nots: Vec<&DagNot> = Vec::new();
        if !label_scan {
            last_pos = self.check_dag(cs, s, e, &mut nots)?;
        }
        let mut last_end = last_pos;
        let mut first = last_pos;
        for i in 1..=cs.pat.ty.count {
            let r = self.pat_match(&cs.pat, last_end, e);
            if self.report(true, &cs.prefix, &cs.pat, i, (last_end, e), &r) {
                return None;
            }
            let Ok(m) = r else { return None };
            if i == 1 {
                first = m.0;
            }
            last_end = m.1;
        }
        let len = last_end - first;
        if !label_scan {
            let sk = (last_pos, first);
            if self.check_next(cs, sk) || self.check_same(cs, sk) {
                if self.cf.opts.verbose {
                    if let Some(d) = &mut self.diags {
                        let cl = d.last().map(|x| x.check_loc);
                        for x in d.iter_mut().rev() {
                            if Some(x.check_loc) != cl {
                                break;
                            }
                            x.match_ty = MatchTy::FoundButWrongLine;
                        }
                    }
                } else {
                    self.diag(
                        &cs.pat,
                        MatchTy::FoundButWrongLine,
                        (first, first + len),
                        String::new(),
                    );
                }
                return None;
            }
            if self.check_not(sk, &nots) {
                return None;
            }
        }
        Some((first, len))
    }

    /// LLVM's `checkInput`; returns true when all checks pass.
    pub fn check_input(&mut self) -> bool {
        let strings = &self.cf.strings;
        let n = strings.len();
        let (mut i, mut j) = (0usize, 0usize);
        let mut buf = (0usize, self.hay.len());
        let mut failed = false;
        loop {
            let mut region = buf;
            if j != n {
                if strings[j].pat.ty.kind != Kind::Label {
                    j += 1;
                    continue;
                }
                let Some((p, l)) = self.check_string(&strings[j], buf.0, buf.1, true) else {
                    return false;
                };
                region = (buf.0, p + l);
                buf.0 = p + l;
                j += 1;
            }
            if i != 0 && self.cf.opts.enable_var_scope {
                self.vars.clear_locals();
            }
            while i != j {
                match self.check_string(&strings[i], region.0, region.1, false) {
                    None => {
                        failed = true;
                        i = j;
                        break;
                    }
                    Some((p, l)) => region.0 = p + l,
                }
                i += 1;
            }
            if j == n {
                break;
            }
        }
        !failed
    }
}
