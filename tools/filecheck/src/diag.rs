//! Fuzzy "possible intended match" search (LLVM's heuristic) and the xir extra: a
//! character-level diff between the pattern and the near miss, rendered with
//! `codespan-reporting`.

use crate::pattern::Pattern;
use crate::source::{Loc, SourceMgr};
use codespan_reporting::diagnostic::{Diagnostic, Label};
use codespan_reporting::files::{Error as FilesError, Files};
use codespan_reporting::term::{self, Chars, Config};
use similar::{ChangeTag, TextDiff};
use std::ops::Range;

/// Levenshtein distance with replacements (LLVM's `StringRef::edit_distance`).
pub fn edit_distance(a: &[u8], b: &[u8]) -> usize {
    let n = b.len();
    let mut row: Vec<usize> = (0..=n).collect();
    for (i, &ca) in a.iter().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for j in 1..=n {
            let old = row[j];
            row[j] = if ca == b[j - 1] {
                prev
            } else {
                1 + prev.min(row[j - 1]).min(row[j])
            };
            prev = old;
        }
    }
    row[n]
}

/// LLVM's `printFuzzyMatch` search: the offset (from the search start) of the best
/// candidate, if it is good enough and not at the very start.
pub fn fuzzy_best(region: &[u8], example: &[u8]) -> Option<usize> {
    let mut lines = 0usize;
    let mut best: Option<usize> = None;
    let mut best_q = 0f64;
    for i in 0..region.len().min(4096) {
        let c = region[i];
        if c == b'\n' {
            lines += 1;
        }
        if c == b' ' || c == b'\t' {
            continue;
        }
        let end = (i + example.len()).min(region.len());
        let mut pre = &region[i..end];
        if let Some(nl) = memchr::memchr(b'\n', pre) {
            pre = &pre[..nl];
        }
        let q = edit_distance(pre, example) as f64 + lines as f64 / 100.0;
        if best.is_none() || q < best_q {
            best = Some(i);
            best_q = q;
        }
    }
    match best {
        Some(b) if b != 0 && best_q < 50.0 => Some(b),
        _ => None,
    }
}

/// A one-line view of the input for codespan (keeps real line numbers without copying
/// the whole input).
struct LineFile<'a> {
    name: &'a str,
    text: String,
    line: usize,
}

impl<'a> Files<'a> for LineFile<'a> {
    type FileId = ();
    type Name = &'a str;
    type Source = &'a str;
    fn name(&'a self, _: ()) -> Result<&'a str, FilesError> {
        Ok(self.name)
    }
    fn source(&'a self, _: ()) -> Result<&'a str, FilesError> {
        Ok(&self.text)
    }
    fn line_index(&'a self, _: (), _: usize) -> Result<usize, FilesError> {
        Ok(0)
    }
    fn line_number(&'a self, _: (), _: usize) -> Result<usize, FilesError> {
        Ok(self.line)
    }
    fn line_range(&'a self, _: (), _: usize) -> Result<Range<usize>, FilesError> {
        Ok(0..self.text.len())
    }
}

/// Renders an inline diff: `[-removed-]` is in the pattern only, `{+added+}` in the
/// input only.
pub fn inline_diff(pattern: &str, input: &str) -> String {
    let diff = TextDiff::from_chars(pattern, input);
    let mut out = String::new();
    let mut cur: Option<ChangeTag> = None;
    let close = |out: &mut String, t: Option<ChangeTag>| match t {
        Some(ChangeTag::Delete) => out.push_str("-]"),
        Some(ChangeTag::Insert) => out.push_str("+}"),
        _ => {}
    };
    for ch in diff.iter_all_changes() {
        let tag = ch.tag();
        if Some(tag) != cur {
            close(&mut out, cur);
            match tag {
                ChangeTag::Delete => out.push_str("[-"),
                ChangeTag::Insert => out.push_str("{+"),
                ChangeTag::Equal => {}
            }
            cur = Some(tag);
        }
        out.push_str(ch.value());
    }
    close(&mut out, cur);
    out
}

/// The near-miss explanation printed after `possible intended match here`.
pub fn near_miss(sm: &SourceMgr, at: Loc, pat: &Pattern, example: &[u8]) -> Option<String> {
    let src = &sm.bufs[at.buf];
    let (line, col) = src.line_col(at.off);
    let (ls, le) = src.line_range(line);
    let end = (at.off + example.len()).min(le).max(at.off);
    let cand = String::from_utf8_lossy(&src.text[at.off..end]).into_owned();
    let pat_s = String::from_utf8_lossy(example).into_owned();
    if cand == pat_s {
        return None;
    }
    let kind = if pat.fixed.is_some() || !pat.substs.is_empty() {
        "pattern"
    } else {
        "regex"
    };
    let text = String::from_utf8_lossy(&src.text[ls..le]).into_owned();
    let s = (col - 1).min(text.len());
    let e = (s + cand.len()).min(text.len());
    let file = LineFile {
        name: &src.name,
        text,
        line,
    };
    let dist = edit_distance(cand.as_bytes(), example);
    let d = Diagnostic::note()
        .with_message(format!(
            "near miss differs from the {kind} by {dist} edit(s)"
        ))
        .with_label(Label::primary((), s..e.max(s)).with_message("closest text"))
        .with_notes(vec![
            format!("{kind}: {pat_s}"),
            format!("input:   {cand}"),
            format!("diff:    {}", inline_diff(&pat_s, &cand)),
            "         ([-x-] only in the pattern, {+x+} only in the input)".to_string(),
        ]);
    let config = Config {
        chars: Chars::ascii(),
        ..Config::default()
    };
    term::emit_into_string(&config, &file, &d).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance() {
        assert_eq!(edit_distance(b"kitten", b"sitting"), 3);
        assert_eq!(edit_distance(b"", b"abc"), 3);
        assert_eq!(inline_diff("baz", "bzz"), "b[-a-]z{+z+}");
    }
}
