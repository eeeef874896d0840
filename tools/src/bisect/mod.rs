//! `xir-bisect`: find the first pass invocation that makes a run bad.
//!
//! 1. One run with `--bisect-limit=-1` counts the invocations (`T`) and records each
//!    one's path from the `BISECT:` lines.
//! 2. [`search::search`] binary-searches `--bisect-limit=N` over `0..=T` with the oracle.
//! 3. The report names invocation `N` and shows the output with `N - 1` invocations
//!    (the IR before it), with `N` (the IR after it, or `xir-opt`'s error) and their
//!    diff; [`regress`] writes a regression test that fails with `N` and passes with
//!    `N - 1`; [`minimize`] shrinks the pipeline instead.

pub mod cli;
pub mod minimize;
pub mod regress;
pub mod search;

use crate::opt::{BisectLine, FailureClass, parse_bisect_log};
use crate::oracle::Oracle;
use crate::predicate::{Edit, Undecided, Verdict};
use crate::util::unified_diff;
use search::{SearchResult, Step};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A completed bisection.
#[derive(Debug)]
pub struct Bisection {
    /// Invocations in the full run.
    pub total: u64,
    /// The invocation list of the full run.
    pub invocations: Vec<BisectLine>,
    /// Probes in order, with how `xir-opt` ended in each.
    pub steps: Vec<(Step, FailureClass)>,
    /// The search's answer.
    pub result: SearchResult,
    /// Verdicts by limit.
    pub verdicts: BTreeMap<u64, Verdict>,
    /// The culprit's own change as `xir-opt --print-changed` shows it (stable ids), when
    /// it changed the IR.
    pub pass_diff: Option<String>,
}

impl Bisection {
    /// The first bad invocation's index and path.
    pub fn culprit(&self) -> Option<(u64, &str)> {
        let SearchResult::Found { first_bad } = self.result else {
            return None;
        };
        let path = self
            .invocations
            .iter()
            .find(|l| l.index == first_bad)
            .map(|l| l.path.as_str())
            .unwrap_or("<unknown path>");
        Some((first_bad, path))
    }

    /// The verdict with `n` invocations.
    pub fn at(&self, n: u64) -> Option<&Verdict> {
        self.verdicts.get(&n)
    }
}

/// Runs the bisection of `input` under `oracle`.
pub fn bisect(oracle: &dyn Oracle, input: &[u8]) -> Result<Bisection, Undecided> {
    let full = oracle.eval(input, &Edit::limit(-1))?;
    let invocations = parse_bisect_log(&full.opt.stderr_text());
    if invocations.is_empty() && full.class == FailureClass::Error {
        // No pass ran and xir-opt failed: a bad flag, an unreadable or invalid input,
        // or an xir-opt without --bisect-limit. Nothing here can be bisected.
        return Err(Undecided(format!(
            "xir-opt failed before running any pass (status {}):\n{}",
            full.opt.code,
            full.opt.stderr_text().trim_end()
        )));
    }
    let total = invocations.iter().map(|l| l.index).max().unwrap_or(0);
    let mut verdicts: BTreeMap<u64, Verdict> = BTreeMap::new();
    let mut classes: BTreeMap<u64, FailureClass> = BTreeMap::new();
    verdicts.insert(total, full);
    let (result, steps) = search::search(total, |n| {
        if let Some(v) = verdicts.get(&n) {
            classes.insert(n, v.class);
            return Ok(v.bad);
        }
        let v = oracle.eval(input, &Edit::limit(n as i64))?;
        let bad = v.bad;
        classes.insert(n, v.class);
        verdicts.insert(n, v);
        Ok(bad)
    })?;
    let steps = steps
        .into_iter()
        .map(|s| {
            let c = classes
                .get(&s.limit)
                .copied()
                .unwrap_or(FailureClass::Success);
            (s, c)
        })
        .collect();
    let pass_diff = match result {
        SearchResult::Found { first_bad } => {
            let edit = Edit {
                limit: Some(first_bad as i64),
                passes: None,
                extra: vec!["--print-changed".into(), "--color=never".into()],
            };
            oracle
                .eval(input, &edit)
                .ok()
                .and_then(|v| changed_dump(&v.opt.stderr_text(), first_bad))
        }
        _ => None,
    };
    Ok(Bisection {
        total,
        invocations,
        steps,
        result,
        verdicts,
        pass_diff,
    })
}

/// The diff `--print-changed` printed for invocation `index`: the unified-diff lines
/// after its `// -----// IR Dump Changed By … #INDEX //----- //` banner.
pub fn changed_dump(stderr: &str, index: u64) -> Option<String> {
    let tag = format!(" #{index} //----- //");
    let mut lines = stderr.lines();
    lines.find(|l| l.starts_with("// -----// IR Dump") && l.ends_with(&tag))?;
    let mut out = String::new();
    for l in lines {
        let diff_line = l.is_empty() || l.starts_with([' ', '+', '-', '@', '\\']);
        if !diff_line || l.starts_with("// -----//") {
            break;
        }
        out.push_str(l);
        out.push('\n');
    }
    (!out.trim().is_empty()).then_some(out)
}

/// What the report includes.
#[derive(Copy, Clone, Debug)]
pub struct ReportOptions {
    /// Print the whole IR before and after (otherwise only the diff).
    pub full_ir: bool,
}

fn verdict_word(bad: bool, class: FailureClass) -> String {
    match (bad, class) {
        (false, _) => "good".into(),
        (true, FailureClass::Success) => "bad (output rejected)".into(),
        (true, c) => format!("bad ({})", c.name()),
    }
}

/// What the failure at the culprit is, in words.
pub fn failure_description(v: &Verdict) -> String {
    match v.class {
        FailureClass::Success => {
            "the predicate rejects the output; xir-opt succeeded (the IR is valid)".into()
        }
        c => format!("xir-opt fails with a {} (status {})", c.name(), v.opt.code),
    }
}

/// Renders the report of a bisection.
pub fn render_report(b: &Bisection, oracle: &dyn Oracle, opts: ReportOptions) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "xir-bisect: predicate: {}", oracle.describe());
    let _ = writeln!(
        s,
        "xir-bisect: {} pass invocations in the full run",
        b.total
    );
    for (st, class) in &b.steps {
        let _ = writeln!(
            s,
            "  --bisect-limit={:<4} {}",
            st.limit,
            verdict_word(st.bad, *class)
        );
    }
    match b.result {
        SearchResult::GoodAtEnd => {
            let _ = writeln!(
                s,
                "result: not bisectable: the run is good even with all {} invocations",
                b.total
            );
        }
        SearchResult::BadAtZero => {
            let why = b.at(0).map(failure_description).unwrap_or_default();
            let _ = writeln!(
                s,
                "result: not bisectable: the run is bad with no invocation at all ({why})"
            );
            if let Some(v) = b.at(0) {
                push_detail(&mut s, v);
            }
        }
        SearchResult::Found { first_bad } => {
            let (_, path) = b.culprit().unwrap_or((first_bad, ""));
            let (Some(good), Some(bad)) = (b.at(first_bad - 1), b.at(first_bad)) else {
                return s;
            };
            let _ = writeln!(s, "first bad invocation: ({first_bad}) {path}");
            let _ = writeln!(s, "failure: {}", failure_description(bad));
            push_detail(&mut s, bad);
            let before = good.opt.stdout_text();
            let after = if bad.class == FailureClass::Success {
                bad.opt.stdout_text()
            } else {
                without_bisect_lines(&bad.opt.stderr_text())
            };
            if opts.full_ir {
                let _ = writeln!(
                    s,
                    "=== IR before ({first_bad}) [--bisect-limit={}]",
                    first_bad - 1
                );
                s.push_str(&before);
                let what = if bad.class == FailureClass::Success {
                    "IR after"
                } else {
                    "xir-opt error after"
                };
                let _ = writeln!(s, "=== {what} ({first_bad}) [--bisect-limit={first_bad}]");
                s.push_str(&after);
            }
            if let Some(d) = &b.pass_diff {
                let _ = writeln!(
                    s,
                    "=== diff of ({first_bad}) (xir-opt --print-changed, stable ids)"
                );
                s.push_str(d);
            } else if bad.class == FailureClass::Success {
                let _ = writeln!(s, "=== diff");
                s.push_str(&unified_diff(
                    &before,
                    &after,
                    &format!("before ({first_bad}) {path}"),
                    &format!("after ({first_bad}) {path}"),
                ));
            }
        }
    }
    s
}

fn without_bisect_lines(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with("BISECT:"))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The part of a predicate's explanation worth showing: for a corpus test, the
/// transcript from the last command it ran (the one that failed), else all of it.
fn short_detail(detail: &str) -> String {
    let lines: Vec<&str> = detail.lines().collect();
    let from = lines.iter().rposition(|l| l.starts_with("$ ")).unwrap_or(0);
    lines[from..]
        .iter()
        .filter(|l| !l.contains("BISECT:"))
        .map(|l| format!("{l}\n"))
        .collect()
}

fn push_detail(s: &mut String, v: &Verdict) {
    let detail = if v.class == FailureClass::Success {
        short_detail(&v.detail)
    } else {
        without_bisect_lines(&v.opt.stderr_text())
    };
    let detail = detail.trim_end();
    if detail.is_empty() {
        return;
    }
    // FileCheck's input dump repeats the output shown below; stop before it.
    let lines: Vec<&str> = detail
        .lines()
        .take_while(|l| !l.contains("Input file: ") && !l.contains("-dump-input=help"))
        .collect();
    const MAX: usize = 24;
    for line in lines.iter().take(MAX) {
        let _ = writeln!(s, "  | {}", line.trim_end());
    }
    if lines.len() > MAX {
        let _ = writeln!(s, "  | ... ({} more lines)", lines.len() - MAX);
    }
}

#[cfg(test)]
mod tests;
