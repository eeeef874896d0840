//! Pipelines: the `.xpl` language ([`ast`], [`parse`]), expansion into runnable entries
//! ([`expand`]), parameters ([`params`]), the shipped pipelines ([`library`]), the
//! executor ([`run`]) and its records ([`stats`]). See `docs/pipelines.md`.

pub mod ast;
pub mod expand;
pub mod fingerprint;
pub mod library;
pub mod params;
pub mod parse;
pub mod run;
pub mod stats;

pub use expand::{Entry, EntryKind, LoadError, Loader, Pipeline};
pub use params::Params;
pub use run::{
    Bisect, ExternalChecks, Failure, FailureKind, Instrumentation, Invocation, RunOptions,
    RunResult, Runner, Step, Verifier,
};
pub use stats::{Record, RecordKind, Stats};

use ast::Markers;

/// One pass entry of an expanded pipeline, flattened (see [`Pipeline::leaves`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leaf {
    /// Static path: the run-time path without `[iter k]`.
    pub path: String,
    /// Registered pass name.
    pub pass: String,
    /// Label or pass name.
    pub display: String,
}

impl Pipeline {
    /// Every pass entry in order, including both branches of module conditions.
    pub fn leaves(&self) -> Vec<Leaf> {
        let mut out = Vec::new();
        leaves_in(&self.entries, &self.name, &mut out);
        out
    }

    /// The pipeline in the inline form `--passes` accepts (`--print-pipeline`):
    /// parameters resolved, `use` spliced, module conditions kept.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        print_list(&self.entries, &mut out);
        out
    }

    /// The part of the pipeline that was still to run at execution position `trail`
    /// (from [`Failure::trail`]), starting with the entry at that position, in the inline
    /// form: the rest of the current iteration of each enclosing group (as a sequence of
    /// the group's name), then a fixed point over the group's remaining iteration budget,
    /// then the later siblings, outwards. Reproducers run this after the IR captured
    /// just before the failing invocation.
    pub fn remaining_text(&self, trail: &[Step]) -> String {
        let mut items = Vec::new();
        remaining(&self.entries, trail, &mut items);
        items.join(",")
    }
}

fn entry_text(e: &Entry) -> String {
    let mut out = String::new();
    print_entry(e, &mut out);
    out
}

fn remaining(es: &[Entry], trail: &[Step], items: &mut Vec<String>) {
    let Some((step, inner)) = trail.split_first() else {
        items.extend(es.iter().map(entry_text));
        return;
    };
    let Some(e) = es.get(step.entry) else {
        return;
    };
    match &e.kind {
        EntryKind::Group(g) if !inner.is_empty() => {
            let mut cur = Vec::new();
            remaining(&g.entries, inner, &mut cur);
            let mut seq = format!("sequence {}", word(&g.name));
            print_markers(e.markers, &mut seq);
            items.push(format!("{seq}{{{}}}", cur.join(",")));
            if g.requires_convergence && g.max > step.iter {
                let mut fp = format!("fixed-point {}(max={}", word(&g.name), g.max - step.iter);
                if g.allow_nonconvergence {
                    fp.push_str(",allow-nonconvergence");
                }
                fp.push(')');
                print_markers(e.markers, &mut fp);
                let mut body = String::new();
                print_list(&g.entries, &mut body);
                items.push(format!("{fp}{{{body}}}"));
            }
        }
        EntryKind::If(i) if !inner.is_empty() => {
            let branch = if step.branch {
                &i.then_entries
            } else {
                &i.else_entries
            };
            remaining(branch, inner, items);
        }
        _ => items.push(entry_text(e)),
    }
    items.extend(es[step.entry + 1..].iter().map(entry_text));
}

fn leaves_in(es: &[Entry], prefix: &str, out: &mut Vec<Leaf>) {
    let join = |seg: &str| {
        if prefix.is_empty() {
            seg.to_string()
        } else {
            format!("{prefix}/{seg}")
        }
    };
    for e in es {
        match &e.kind {
            EntryKind::Pass(p) => out.push(Leaf {
                path: join(&e.segment),
                pass: p.name.clone(),
                display: p.display().to_string(),
            }),
            EntryKind::Group(g) => leaves_in(&g.entries, &join(&e.segment), out),
            EntryKind::If(i) => {
                leaves_in(&i.then_entries, prefix, out);
                leaves_in(&i.else_entries, prefix, out);
            }
            EntryKind::Verify(_) | EntryKind::Check(_) => {}
        }
    }
}

/// Quotes `s` unless it lexes as one word.
fn word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/' | b'+'))
        && !s.contains("//")
        && !parse::KEYWORDS.contains(&s);
    if plain {
        s.to_string()
    } else {
        format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

fn print_markers(m: Markers, out: &mut String) {
    if m.abort_on_refusal {
        out.push_str(" abort-on-refusal");
    }
    if m.required {
        out.push_str(" required");
    }
    if m.verify_deferred {
        out.push_str(" verify=deferred");
    }
}

fn print_list(es: &[Entry], out: &mut String) {
    for (k, e) in es.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        print_entry(e, out);
    }
}

fn print_entry(e: &Entry, out: &mut String) {
    match &e.kind {
        EntryKind::Pass(p) => {
            out.push_str(&word(&p.name));
            if !p.options.values.is_empty() {
                let opts: Vec<String> = p
                    .options
                    .values
                    .iter()
                    .map(|(k, v)| format!("{}={}", word(k), word(v)))
                    .collect();
                out.push_str(&format!("{{{}}}", opts.join(",")));
            }
            if let Some(l) = &p.label {
                out.push_str(&format!(" as {}", word(l)));
            }
            print_markers(e.markers, out);
        }
        EntryKind::Group(g) => {
            if g.requires_convergence {
                out.push_str("fixed-point");
                if g.name != "fixed-point" {
                    out.push_str(&format!(" {}", word(&g.name)));
                }
                out.push_str(&format!("(max={}", g.max));
                if g.allow_nonconvergence {
                    out.push_str(",allow-nonconvergence");
                }
                out.push(')');
            } else {
                out.push_str(&format!("sequence {}", word(&g.name)));
            }
            print_markers(e.markers, out);
            out.push('{');
            print_list(&g.entries, out);
            out.push('}');
        }
        EntryKind::If(i) => {
            let bang = if i.negated { "!" } else { "" };
            out.push_str(&format!("if({bang}{}){{", i.cond.name()));
            print_list(&i.then_entries, out);
            out.push('}');
            if !i.else_entries.is_empty() {
                out.push_str("else{");
                print_list(&i.else_entries, out);
                out.push('}');
            }
        }
        EntryKind::Check(name) => {
            out.push_str(&format!("check {}", word(name)));
        }
        EntryKind::Verify(flags) => {
            out.push_str("verify");
            if !flags.is_empty() {
                out.push_str(&format!("{{{}}}", flags.join(",")));
            }
        }
    }
}
