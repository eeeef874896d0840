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
    Bisect, Failure, FailureKind, Instrumentation, Invocation, RunOptions, RunResult, Runner,
    Verifier,
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
            EntryKind::Verify(_) => {}
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
            EntryKind::Verify(flags) => {
                out.push_str("verify");
                if !flags.is_empty() {
                    out.push_str(&format!("{{{}}}", flags.join(",")));
                }
            }
        }
    }
}
