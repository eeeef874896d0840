//! The annotated input dump (`--dump-input`), in LLVM 19's format:
//!
//! ```text
//! <<<<<<
//!            1: foo
//! check:1'0     X~~ error: no match found
//! check:1'1     ?   possible intended match
//! >>>>>>
//! ```

use crate::matcher::{Diag, MatchTy};
use crate::options::DumpFilter;
use crate::parse::CheckFile;
use crate::source::Source;
use std::collections::HashMap;

struct Marker {
    lead: u8,
    note: String,
    error: bool,
}

fn marker(mt: MatchTy) -> Marker {
    let (lead, note, error) = match mt {
        MatchTy::FoundAndExpected => (b'^', "", false),
        MatchTy::FoundButExcluded => (b'!', "error: no match expected", true),
        MatchTy::FoundButWrongLine => (b'!', "error: match on wrong line", true),
        MatchTy::FoundButDiscarded => (b'!', "discard: overlaps earlier match", false),
        MatchTy::FoundErrorNote => (b'!', "error: unknown error after match", true),
        MatchTy::NoneAndExcluded => (b'X', "", false),
        MatchTy::NoneButExpected => (b'X', "error: no match found", true),
        MatchTy::NoneForInvalidPattern => (b'X', "error: match failed for invalid pattern", true),
        MatchTy::Fuzzy => (b'?', "possible intended match", false),
    };
    Marker {
        lead,
        note: note.to_string(),
        error,
    }
}

struct Ann {
    index: usize,
    label: String,
    first: bool,
    line: usize,
    start_col: usize,
    end_col: usize,
    lead: u8,
    note: String,
    error: bool,
}

fn build(cf: &CheckFile, input: &Source, diags: &[Diag]) -> (Vec<Ann>, usize) {
    let mut count: HashMap<_, usize> = HashMap::new();
    for d in diags {
        *count.entry(d.check_loc).or_default() += 1;
    }
    let mut seen: HashMap<_, usize> = HashMap::new();
    let mut anns = Vec::new();
    let mut width = 0;
    for (index, d) in diags.iter().enumerate() {
        let mut label = format!("{}:", d.ty.abbrev());
        if d.check_loc.buf == cf.check_buf {
            label.push_str(&cf.sm.line_col(d.check_loc).0.to_string());
        } else if let Some(k) = cf.imp_bufs.iter().position(|&b| b == d.check_loc.buf) {
            label.push_str(&format!("imp{}", k + 1));
        }
        if count[&d.check_loc] > 1 {
            let n = seen.entry(d.check_loc).or_default();
            label.push_str(&format!("'{n}"));
            *n += 1;
        }
        width = width.max(label.len());
        let mut m = marker(d.match_ty);
        let (sl, sc) = input.line_col(d.range.0);
        let (el, ec) = input.line_col(d.range.1);
        if !d.note.is_empty() {
            m.note = d.note.clone();
            if sl == el && sc == ec {
                m.lead = b' ';
            }
        }
        if d.match_ty == MatchTy::FoundErrorNote {
            m.note = format!("error: {}", m.note);
        }
        if sl == el {
            anns.push(Ann {
                index,
                label,
                first: true,
                line: sl,
                start_col: sc,
                end_col: ec.max(sc + 1),
                lead: m.lead,
                note: m.note,
                error: m.error,
            });
        } else {
            anns.push(Ann {
                index,
                label: label.clone(),
                first: true,
                line: sl,
                start_col: sc,
                end_col: usize::MAX,
                lead: m.lead,
                note: m.note,
                error: m.error,
            });
            for l in sl + 1..=el {
                if ec == 1 && l == el {
                    break;
                }
                anns.push(Ann {
                    index,
                    label: label.clone(),
                    first: false,
                    line: l,
                    start_col: 1,
                    end_col: if l != el { usize::MAX } else { ec },
                    lead: b'~',
                    note: String::new(),
                    error: m.error,
                });
            }
        }
    }
    anns.sort_by_key(|a| (a.line, a.index));
    (anns, width)
}

fn in_filter(filter: DumpFilter, cur: usize, anns: &[Ann]) -> usize {
    if filter == DumpFilter::All {
        return cur;
    }
    for a in anns {
        match filter {
            DumpFilter::AnnotationFull => return a.line,
            DumpFilter::Annotation if a.first => return a.line,
            DumpFilter::Error if a.first && a.error => return a.line,
            _ => {}
        }
    }
    usize::MAX
}

/// Renders the whole dump section (header included) for stderr.
#[allow(clippy::too_many_arguments)]
pub fn render(
    cf: &CheckFile,
    input: &Source,
    input_name: &str,
    check_name: &str,
    diags: &[Diag],
    filter: DumpFilter,
    context: usize,
) -> Vec<u8> {
    let mut o: Vec<u8> = Vec::new();
    o.extend_from_slice(
        format!(
            "\nInput file: {input_name}\nCheck file: {check_name}\n\n-dump-input=help explains the following input dump.\n\nInput was:\n<<<<<<\n"
        )
        .as_bytes(),
    );
    let (anns, lw) = build(cf, input, diags);
    let text = &input.text;
    let lines = input.line_count().max(1);
    let digits = lines.to_string().len();
    let width = lw.max(digits) + 3;
    let mut prev_in = 0usize;
    let mut next_in = 0usize;
    let mut elided: Vec<u8> = Vec::new();
    let mut pos = 0usize;
    let mut ai = 0usize;
    let flush = |o: &mut Vec<u8>, elided: &mut Vec<u8>| {
        if elided.is_empty() {
            return;
        }
        if memchr::memchr_iter(b'\n', elided).count() > 3 {
            for _ in 0..3 {
                o.extend_from_slice(format!("{:>width$}\n", ".").as_bytes());
            }
        } else {
            o.extend_from_slice(elided);
        }
        elided.clear();
    };
    let mut line = 1usize;
    while pos < text.len() || ai < anns.len() {
        if next_in < line {
            next_in = in_filter(filter, line, &anns[ai..]);
        }
        if next_in == line {
            prev_in = line;
        }
        let elide = (prev_in == 0 || prev_in + context < line)
            && (next_in == usize::MAX || line + context < next_in);
        let mut buf = Vec::new();
        buf.extend_from_slice(format!("{line:>width$}: ").as_bytes());
        let start = pos;
        while pos < text.len() {
            let c = text[pos];
            pos += 1;
            if c == b'\n' {
                buf.push(b' ');
                break;
            }
            buf.push(c);
        }
        buf.push(b'\n');
        let lwidth = pos - start;
        while ai < anns.len() && anns[ai].line == line {
            let a = &anns[ai];
            buf.extend_from_slice(format!("{:<width$}  ", a.label).as_bytes());
            let mut col = 1;
            while col < a.start_col {
                buf.push(b' ');
                col += 1;
            }
            buf.push(a.lead);
            col += 1;
            while col < a.end_col && col <= lwidth {
                buf.push(b'~');
                col += 1;
            }
            if !a.note.is_empty() {
                while col <= lwidth {
                    buf.push(b' ');
                    col += 1;
                }
                buf.push(b' ');
                buf.extend_from_slice(a.note.as_bytes());
            }
            buf.push(b'\n');
            ai += 1;
        }
        if elide {
            elided.extend_from_slice(&buf);
        } else {
            flush(&mut o, &mut elided);
            o.extend_from_slice(&buf);
        }
        line += 1;
    }
    flush(&mut o, &mut elided);
    o.extend_from_slice(b">>>>>>\n");
    o
}

/// The `--dump-input=help` text.
pub fn help() -> &'static str {
    "The following description was requested by -dump-input=help to
explain the input dump printed by FileCheck.

Related command-line options:

  - -dump-input=<value> enables or disables the input dump
  - -dump-input-filter=<value> filters the input lines
  - -dump-input-context=<N> adjusts the context of filtered lines
  - -v and -vv add more annotations
  - -color forces colors to be enabled both in the dump and below
  - -help documents the above options in more detail

These options can also be set via FILECHECK_OPTS.  For example, for
maximum debugging output on failures:

  $ FILECHECK_OPTS='-dump-input-filter=all -vv -color' ninja check

Input dump annotation format:

  - L:     labels line number L of the input file
           An extra space is added after each input line to represent the
           newline character
  - T:L    labels the only match result for either (1) a pattern of type T from
           line L of the check file if L is an integer or (2) the I-th implicit
           pattern if L is \"imp\" followed by an integer I (index origin one)
  - T:L'N  labels the Nth match result for such a pattern
  - ^~~    marks good match (reported if -v)
  - !~~    marks bad match, such as:
           - CHECK-NEXT on same line as previous match (error)
           - CHECK-NOT found (error)
           - CHECK-DAG overlapping match (discarded, reported if -vv)
  - X~~    marks search range when no match is found, such as:
           - CHECK-NEXT not found (error)
           - CHECK-NOT not found (success, reported if -vv)
           - CHECK-DAG not found after discarded matches (error)
  - ?      marks fuzzy match when no match is found
  - colors success, error, fuzzy match, discarded match, unmatched input

If you are not seeing color above or in input dumps, try: -color
"
}
