//! Execution records and their reports: upstream's `Stats`/`Record` (reference §7.1–7.2),
//! the `Stats::log` tree (`--pass-stats`), JSON (`--pass-stats=json`) and the
//! `--time-passes` table.
//!
//! The record tree mirrors the pipeline: it is built before the run, so a record of an
//! entry that never ran has `visits == 0` (the log omits it, which reproduces upstream's
//! output, where such records do not exist).

use super::expand::{Entry, EntryKind, Pipeline};
use crate::pass::PassReport;
use std::collections::BTreeMap;
use std::time::Duration;

/// What a record describes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RecordKind {
    /// A pass.
    Pass,
    /// A fixed point.
    FixedPoint,
    /// A sequence.
    Sequence,
    /// A module condition (transparent: its branches' records are its children).
    Cond,
    /// A verifier check.
    Verify,
    /// An external check (`check NAME`).
    Check,
}

/// Upstream's `Record`, plus refusal, bisect-skip and visit counts.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// Entry name (label, pass or group name).
    pub name: String,
    /// What it describes.
    pub kind: RecordKind,
    /// Runs of a pass; iterations of a group (summed over the enclosing iterations).
    pub invocations: u32,
    /// Time spent, summed.
    pub elapsed: Duration,
    /// Whether any run changed the module.
    pub changed: bool,
    /// Upstream's `converged` (true for passes and sequences; AND-ed across runs).
    pub converged: bool,
    /// Upstream's `iteration_limit_reached` (OR-ed across runs).
    pub iteration_limit_reached: bool,
    /// Whether non-convergence is allowed for this group.
    pub allow_nonconvergence: bool,
    /// Report counters summed across runs.
    pub report: PassReport,
    /// Records of the entries inside a group (or both branches of a condition).
    pub children: Vec<Record>,
    /// Refusals (the pass declined; counted in `invocations` too).
    pub refusals: u32,
    /// Invocations skipped by `--bisect-limit`.
    pub skipped: u32,
    /// Times execution reached this entry.
    pub visits: u32,
}

impl Record {
    fn new(name: &str, kind: RecordKind) -> Self {
        Record {
            name: name.to_string(),
            kind,
            invocations: 0,
            elapsed: Duration::ZERO,
            changed: false,
            converged: !matches!(kind, RecordKind::FixedPoint),
            iteration_limit_reached: false,
            allow_nonconvergence: false,
            report: PassReport::new(),
            children: Vec::new(),
            refusals: 0,
            skipped: 0,
            visits: 0,
        }
    }

    /// The skeleton record of `e`.
    pub fn skeleton(e: &Entry) -> Record {
        match &e.kind {
            EntryKind::Pass(p) => Record::new(p.display(), RecordKind::Pass),
            EntryKind::Group(g) => {
                let kind = if g.requires_convergence {
                    RecordKind::FixedPoint
                } else {
                    RecordKind::Sequence
                };
                let mut r = Record::new(&g.name, kind);
                r.allow_nonconvergence = g.allow_nonconvergence;
                r.children = g.entries.iter().map(Record::skeleton).collect();
                r
            }
            EntryKind::If(i) => {
                let mut r = Record::new(i.cond.name(), RecordKind::Cond);
                r.children = i
                    .then_entries
                    .iter()
                    .chain(&i.else_entries)
                    .map(Record::skeleton)
                    .collect();
                r
            }
            EntryKind::Verify(_) => Record::new("verify", RecordKind::Verify),
            EntryKind::Check(name) => Record::new(&format!("check {name}"), RecordKind::Check),
        }
    }

    /// Upstream's `Record::succeeded`: converged, no limit reached, all children
    /// succeeded.
    pub fn succeeded(&self) -> bool {
        self.converged
            && !self.iteration_limit_reached
            && self.children.iter().all(Record::succeeded)
    }
}

/// Upstream's `Stats`.
#[derive(Clone, Debug, PartialEq)]
pub struct Stats {
    /// Pipeline name.
    pub name: String,
    /// Top-level records.
    pub records: Vec<Record>,
    /// Time for the whole run.
    pub total: Duration,
}

fn ms(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1e3)
}

impl Stats {
    /// The skeleton of `p`'s records.
    pub fn skeleton(p: &Pipeline) -> Stats {
        Stats {
            name: if p.name.is_empty() {
                "--passes".to_string()
            } else {
                p.name.clone()
            },
            records: p.entries.iter().map(Record::skeleton).collect(),
            total: Duration::ZERO,
        }
    }

    /// Upstream's `Stats::succeeded`.
    pub fn succeeded(&self) -> bool {
        self.records.iter().all(Record::succeeded)
    }

    /// Upstream's `Stats::log` text: a header, then one line per record that ran,
    /// indented two spaces per depth, followed by its non-zero report entries.
    pub fn log(&self) -> String {
        let mut out = format!(
            "PassPipeline '{}' ({} ms total):\n",
            self.name,
            ms(self.total)
        );
        for r in &self.records {
            log_record(&mut out, r, 1);
        }
        out
    }

    /// The records as JSON (`--pass-stats=json`).
    pub fn json(&self) -> String {
        let mut out = String::new();
        out.push_str(&format!(
            "{{\"pipeline\":{},\"total_ms\":{},\"succeeded\":{},\"records\":[",
            json_str(&self.name),
            ms(self.total),
            self.succeeded()
        ));
        for (k, r) in self.records.iter().enumerate() {
            if k > 0 {
                out.push(',');
            }
            json_record(&mut out, r);
        }
        out.push_str("]}\n");
        out
    }

    /// `--time-passes`: time per pass name (leaves only, summed over every entry and
    /// iteration), largest first.
    pub fn time_report(&self) -> String {
        let mut per: BTreeMap<&str, (Duration, u32)> = BTreeMap::new();
        fn walk<'a>(r: &'a Record, per: &mut BTreeMap<&'a str, (Duration, u32)>) {
            if r.kind == RecordKind::Pass && r.invocations > 0 {
                let e = per.entry(&r.name).or_default();
                e.0 += r.elapsed;
                e.1 += r.invocations;
            }
            for c in &r.children {
                walk(c, per);
            }
        }
        for r in &self.records {
            walk(r, &mut per);
        }
        let mut rows: Vec<_> = per.into_iter().collect();
        rows.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.0.cmp(b.0)));
        let total = self.total.as_secs_f64().max(f64::MIN_POSITIVE);
        let mut out =
            String::from("===-------------------------------------------------------------===\n");
        out.push_str("                      Pass execution timing report\n");
        out.push_str("===-------------------------------------------------------------===\n");
        out.push_str(&format!(
            "  Total Execution Time: {} ms\n\n",
            ms(self.total)
        ));
        out.push_str("   Wall Time (ms)    %     Runs  Name\n");
        let mut sum = Duration::ZERO;
        for (name, (d, n)) in &rows {
            sum += *d;
            out.push_str(&format!(
                "  {:>14}  {:>5.1}%  {:>5}  {name}\n",
                ms(*d),
                100.0 * d.as_secs_f64() / total,
                n
            ));
        }
        let overhead = self.total.saturating_sub(sum);
        out.push_str(&format!(
            "  {:>14}  {:>5.1}%         (framework, verifier, instrumentation)\n",
            ms(overhead),
            100.0 * overhead.as_secs_f64() / total
        ));
        out
    }
}

fn log_record(out: &mut String, r: &Record, depth: usize) {
    if r.kind == RecordKind::Cond {
        for c in &r.children {
            log_record(out, c, depth);
        }
        return;
    }
    if r.visits == 0 || matches!(r.kind, RecordKind::Verify | RecordKind::Check) {
        return;
    }
    let pad = "  ".repeat(depth);
    match r.kind {
        RecordKind::Pass => {
            out.push_str(&format!("{pad}[{}] {}", ms(r.elapsed), r.name));
            if r.changed {
                out.push_str(" (changed)");
            }
            if r.refusals > 0 {
                out.push_str(&format!(" (refused x{})", r.refusals));
            }
            if r.skipped > 0 {
                out.push_str(&format!(" (bisect-skipped x{})", r.skipped));
            }
        }
        _ => {
            out.push_str(&format!(
                "{pad}[{}] {} (x{}) ({})",
                ms(r.elapsed),
                r.name,
                r.invocations,
                if r.iteration_limit_reached {
                    "iteration limit reached"
                } else {
                    "converged"
                }
            ));
        }
    }
    out.push('\n');
    for (k, v) in r.report.entries() {
        if *v != 0 {
            out.push_str(&format!("{pad}  {k}: {v}\n"));
        }
    }
    for c in &r.children {
        log_record(out, c, depth + 1);
    }
}

/// A JSON string literal.
pub fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn json_record(out: &mut String, r: &Record) {
    let kind = match r.kind {
        RecordKind::Pass => "pass",
        RecordKind::FixedPoint => "fixed-point",
        RecordKind::Sequence => "sequence",
        RecordKind::Cond => "if",
        RecordKind::Verify => "verify",
        RecordKind::Check => "check",
    };
    out.push_str(&format!(
        "{{\"name\":{},\"kind\":\"{kind}\",\"visits\":{},\"invocations\":{},\"elapsed_ms\":{},\
         \"changed\":{},\"converged\":{},\"iteration_limit_reached\":{},\"succeeded\":{},\
         \"refusals\":{},\"skipped\":{},\"report\":{{",
        json_str(&r.name),
        r.visits,
        r.invocations,
        ms(r.elapsed),
        r.changed,
        r.converged,
        r.iteration_limit_reached,
        r.succeeded(),
        r.refusals,
        r.skipped
    ));
    for (k, (key, v)) in r.report.entries().iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        out.push_str(&format!("{}:{v}", json_str(key)));
    }
    out.push_str("},\"children\":[");
    for (k, c) in r.children.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        json_record(out, c);
    }
    out.push_str("]}");
}
