//! Expansion: from parsed pipeline documents to an executable [`Pipeline`].
//!
//! Expansion splices `use`d pipelines, evaluates parameter conditions (module
//! conditions stay as [`IfEntry`]s decided at run time), resolves every pass in the
//! [`Registry`], validates options, and instantiates the passes. It reports *all*
//! problems at once: every unknown name (located, with suggestions) and one error that
//! lists every pass that is known upstream but not implemented yet.

use super::ast::*;
use super::library::Library;
use super::params::{ModuleCond, Params};
use crate::pass::Pass;
use crate::registry::{LookupError, PassInfo, PassOptions, Registry, closest};
use std::collections::BTreeMap;
use std::rc::Rc;
use xir_ir::diag::{Diagnostic, Span, render};

/// The verifier option flags in kebab case, as `verify{…}` takes them: upstream's
/// (reference §7.7) and the xir-only rules (the verifier's own list).
pub const VERIFY_FLAGS: &[&str] = &xir_ir::verify::options::OPTION_NAMES;

/// The external checks a pipeline may name with `check NAME`: `(name, what it checks)`.
/// Their implementations live outside this crate (passes never depend on the backend);
/// the driver supplies them to the [`Runner`](super::Runner) through
/// [`ExternalChecks`](super::run::ExternalChecks).
pub const CHECKS: &[(&str, &str)] = &[(
    "spirv-dialect",
    "the SPIR-V backend's input dialect (upstream's validate_spirv_xir_codegen_dialect)",
)];

/// An executable pipeline.
pub struct Pipeline {
    /// Its name (the first segment of every invocation path); empty for `--passes`.
    pub name: String,
    /// Top-level entries.
    pub entries: Vec<Entry>,
}

/// One entry of a pipeline.
pub struct Entry {
    /// What it is.
    pub kind: EntryKind,
    /// Markers as written (groups pass theirs down at run time).
    pub markers: Markers,
    /// Its path segment: the label, pass or group name, with `#k` appended for the k-th
    /// (k ≥ 2) sibling of the same name.
    pub segment: String,
}

/// The kinds of entries.
pub enum EntryKind {
    /// A pass.
    Pass(PassEntry),
    /// A fixed point or a sequence.
    Group(GroupEntry),
    /// A module condition, decided when execution reaches it.
    If(IfEntry),
    /// A verifier check with upstream's flags.
    Verify(Vec<String>),
    /// An external check (`check NAME`, one of [`CHECKS`]).
    Check(String),
}

/// A pass entry.
pub struct PassEntry {
    /// The registered pass (`None` only in an outline, see [`Loader::outline`]).
    pub info: Option<&'static PassInfo>,
    /// The pass name as written.
    pub name: String,
    /// Options as written.
    pub options: PassOptions,
    /// Label (`as LABEL`).
    pub label: Option<String>,
    /// The instance (`None` only in an outline).
    pub pass: Option<Box<dyn Pass>>,
}

impl PassEntry {
    /// The name shown in paths and statistics: the label, else the pass name.
    pub fn display(&self) -> &str {
        self.label.as_deref().unwrap_or(&self.name)
    }
}

/// A group entry.
pub struct GroupEntry {
    /// Group name.
    pub name: String,
    /// Iteration budget (1 for a sequence).
    pub max: u32,
    /// Fixed point (true) or sequence (false).
    pub requires_convergence: bool,
    /// Non-convergence is a warning.
    pub allow_nonconvergence: bool,
    /// Where the budget (`max=N`) is written, for a located non-convergence error.
    pub budget_at: Option<(Rc<Source>, Span)>,
    /// Body.
    pub entries: Vec<Entry>,
}

/// A module condition.
pub struct IfEntry {
    /// The predicate.
    pub cond: ModuleCond,
    /// `!cond`.
    pub negated: bool,
    /// Entries when it holds.
    pub then_entries: Vec<Entry>,
    /// Entries otherwise.
    pub else_entries: Vec<Entry>,
}

/// Problems found while loading a pipeline, each located in its source.
#[derive(Debug, Default)]
pub struct LoadError {
    /// Diagnostics with their sources (`None` for errors without a source, such as an
    /// unknown `--pipeline-param`).
    pub diags: Vec<(Option<Rc<Source>>, Diagnostic)>,
}

impl LoadError {
    fn one(src: Option<Rc<Source>>, d: Diagnostic) -> Self {
        Self {
            diags: vec![(src, d)],
        }
    }
    /// Renders every diagnostic as `file:line:col: error: …` with a caret snippet.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for (src, d) in &self.diags {
            match src {
                Some(s) => out.push_str(&render(&s.name, &s.text, std::slice::from_ref(d))),
                None => {
                    out.push_str(&format!("error: {}\n", d.message));
                    for n in &d.notes {
                        out.push_str(&format!("  = note: {n}\n"));
                    }
                    if let Some(h) = &d.help {
                        out.push_str(&format!("  = help: {h}\n"));
                    }
                }
            }
        }
        out
    }
}

/// Loads pipelines: resolves names and files, applies parameters, builds passes.
pub struct Loader<'a> {
    /// Where passes come from.
    pub registry: &'a Registry,
    /// Parameter values (overrides, environment, declared defaults).
    pub params: Params,
    /// Pipelines reachable by name.
    pub library: Library,
}

impl<'a> Loader<'a> {
    /// A loader with the shipped pipelines and default parameters (no environment).
    pub fn new(registry: &'a Registry) -> Self {
        Self {
            registry,
            params: Params::default(),
            library: Library::shipped(),
        }
    }

    /// Loads `--passes=TEXT`.
    pub fn load_inline(&self, text: &str) -> Result<Pipeline, LoadError> {
        let src = Rc::new(Source {
            name: "<--passes>".to_string(),
            text: text.to_string(),
        });
        self.load_source(String::new(), src, true)
    }

    /// [`Loader::load_inline`] without instantiating passes (see [`Loader::outline`]).
    pub fn outline_inline(&self, text: &str) -> Result<Pipeline, LoadError> {
        let src = Rc::new(Source {
            name: "<--passes>".to_string(),
            text: text.to_string(),
        });
        self.load_source(String::new(), src, false)
    }

    /// Loads `--pipeline=NAME|FILE`: a path (contains `/` or ends in `.xpl`) or a name
    /// from the library.
    pub fn load(&self, name_or_path: &str) -> Result<Pipeline, LoadError> {
        let (name, src) = self.resolve_root(name_or_path)?;
        self.load_source(name, src, true)
    }

    /// Expands `name_or_path` without instantiating passes and without requiring them to
    /// be implemented (unknown names are still errors). Used to inspect pipelines that
    /// cannot run yet.
    pub fn outline(&self, name_or_path: &str) -> Result<Pipeline, LoadError> {
        let (name, src) = self.resolve_root(name_or_path)?;
        self.load_source(name, src, false)
    }

    fn resolve_root(&self, name_or_path: &str) -> Result<(String, Rc<Source>), LoadError> {
        if super::library::is_path(name_or_path) {
            // A file that cannot be read (missing, a directory, no permission) or is not
            // UTF-8 is reported as such, not as "no pipeline named …".
            let message = match std::fs::read(name_or_path) {
                Err(e) => Some(format!(
                    "cannot read pipeline file '{name_or_path}': {}",
                    io_message(&e)
                )),
                Ok(bytes) => std::str::from_utf8(&bytes).err().map(|e| {
                    format!(
                        "pipeline file '{name_or_path}' is not valid UTF-8 (byte offset {})",
                        e.valid_up_to()
                    )
                }),
            };
            if let Some(m) = message {
                return Err(LoadError::one(None, Diagnostic::error(m, None)));
            }
        }
        self.library.resolve(name_or_path, None).ok_or_else(|| {
            let mut d = Diagnostic::error(format!("no pipeline named '{name_or_path}'"), None);
            let names = self.library.names();
            let near = closest(name_or_path, names.iter().map(String::as_str), 3);
            if !near.is_empty() {
                d = d.with_help(format!("did you mean {}?", quote_list(&near)));
            }
            d = d.with_note(format!("shipped pipelines: {}", names.join(", ")));
            LoadError::one(None, d)
        })
    }

    fn load_source(
        &self,
        name: String,
        src: Rc<Source>,
        instantiate: bool,
    ) -> Result<Pipeline, LoadError> {
        let doc =
            super::parse::parse(src.clone()).map_err(|d| LoadError::one(Some(src.clone()), d))?;
        let mut x = Expander {
            loader: self,
            instantiate,
            declared: BTreeMap::new(),
            missing: BTreeMap::new(),
            first_missing: None,
            errors: Vec::new(),
            stack: vec![name.clone()],
        };
        let mut entries = x.items(&src, &doc.items, true);
        assign_segments(&mut entries);
        for (p, _) in &self.params.overrides {
            if !x.declared.contains_key(p) && !super::params::is_builtin(p) {
                let known: Vec<&str> = super::params::BUILTIN_PARAMS
                    .iter()
                    .map(|b| b.0)
                    .chain(x.declared.keys().map(String::as_str))
                    .collect();
                let mut d = Diagnostic::error(format!("unknown pipeline parameter '{p}'"), None)
                    .with_note(format!("parameters: {}", known.join(", ")));
                if let Some(s) = closest(p, known.iter().copied(), 1).first() {
                    d = d.with_help(format!("did you mean '{s}'?"));
                }
                x.errors.push((None, d));
            }
        }
        if !x.missing.is_empty() {
            let names: Vec<&str> = x.missing.keys().map(String::as_str).collect();
            let (first_src, first_span) = x.first_missing.clone().expect("non-empty");
            let what = if name.is_empty() {
                "the pipeline".to_string()
            } else {
                format!("pipeline '{name}'")
            };
            let d = Diagnostic::error(
                format!(
                    "{what} names {} pass{} that {} not implemented yet: {}",
                    names.len(),
                    if names.len() == 1 { "" } else { "es" },
                    if names.len() == 1 { "is" } else { "are" },
                    names.join(", ")
                ),
                Some(first_span),
            )
            .with_label("not implemented")
            .with_note("a pipeline never skips a pass; implement them or remove them")
            .with_help("see `xir-opt --list-passes` for the passes available");
            x.errors.push((Some(first_src), d));
        }
        if !x.errors.is_empty() {
            return Err(LoadError { diags: x.errors });
        }
        Ok(Pipeline { name, entries })
    }
}

fn io_message(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "No such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "Permission denied".into(),
        _ => e.to_string(),
    }
}

/// `'a', 'b' or 'c'`.
fn quote_list(v: &[&str]) -> String {
    let q: Vec<String> = v.iter().map(|s| format!("'{s}'")).collect();
    q.join(" or ")
}

struct Expander<'l, 'a> {
    loader: &'l Loader<'a>,
    instantiate: bool,
    declared: BTreeMap<String, bool>,
    missing: BTreeMap<String, (Rc<Source>, Span)>,
    first_missing: Option<(Rc<Source>, Span)>,
    errors: Vec<(Option<Rc<Source>>, Diagnostic)>,
    stack: Vec<String>,
}

impl Expander<'_, '_> {
    fn err(&mut self, src: &Rc<Source>, d: Diagnostic) {
        self.errors.push((Some(src.clone()), d));
    }

    /// Expands `items`; entries of untaken branches are checked but not returned.
    fn items(&mut self, src: &Rc<Source>, items: &[Item], taken: bool) -> Vec<Entry> {
        let mut out = Vec::new();
        for it in items {
            self.item(src, it, taken, &mut out);
        }
        out
    }

    fn item(&mut self, src: &Rc<Source>, it: &Item, taken: bool, out: &mut Vec<Entry>) {
        let markers = it.markers;
        let entry = |kind| Entry {
            kind,
            markers,
            segment: String::new(),
        };
        match &it.kind {
            ItemKind::Add {
                pass,
                options,
                label,
            } => {
                if let Some(p) = self.pass(src, pass, options, label, taken) {
                    out.push(entry(EntryKind::Pass(p)));
                }
            }
            ItemKind::FixedPoint {
                name,
                max,
                allow_nonconvergence,
                body,
            } => {
                let entries = self.items(src, body, taken);
                out.push(entry(EntryKind::Group(GroupEntry {
                    name: name
                        .as_ref()
                        .map_or_else(|| "fixed-point".to_string(), |n| n.node.clone()),
                    max: max.node,
                    requires_convergence: true,
                    allow_nonconvergence: *allow_nonconvergence,
                    budget_at: Some((src.clone(), max.span)),
                    entries,
                })));
            }
            ItemKind::Sequence { name, body } => {
                let entries = self.items(src, body, taken);
                out.push(entry(EntryKind::Group(GroupEntry {
                    name: name.node.clone(),
                    max: 1,
                    requires_convergence: false,
                    allow_nonconvergence: false,
                    budget_at: None,
                    entries,
                })));
            }
            ItemKind::Use { pipeline } => {
                let start = out.len();
                self.use_pipeline(src, pipeline, taken, out);
                for e in &mut out[start..] {
                    e.markers = e.markers.or(markers);
                }
            }
            ItemKind::If {
                cond,
                then_body,
                else_body,
            } => self.if_item(src, cond, then_body, else_body, taken, out),
            ItemKind::Verify { flags } => {
                if markers != Markers::default() {
                    self.err(
                        src,
                        Diagnostic::error("markers have no meaning on 'verify'", Some(it.span))
                            .with_label("remove the marker"),
                    );
                }
                for f in flags {
                    if !VERIFY_FLAGS.contains(&f.node.as_str()) {
                        let mut d = Diagnostic::error(
                            format!("unknown verifier flag '{}'", f.node),
                            Some(f.span),
                        )
                        .with_label("not a verifier option")
                        .with_note(format!("flags: {}", VERIFY_FLAGS.join(", ")));
                        if let Some(s) = closest(&f.node, VERIFY_FLAGS.iter().copied(), 1).first() {
                            d = d.with_help(format!("did you mean '{s}'?"));
                        }
                        self.err(src, d);
                    }
                }
                out.push(entry(EntryKind::Verify(
                    flags.iter().map(|f| f.node.clone()).collect(),
                )));
            }
            ItemKind::Check { name } => {
                if markers != Markers::default() {
                    self.err(
                        src,
                        Diagnostic::error("markers have no meaning on 'check'", Some(it.span))
                            .with_label("remove the marker"),
                    );
                }
                let known: Vec<&str> = CHECKS.iter().map(|c| c.0).collect();
                if !known.contains(&name.node.as_str()) {
                    let mut d = Diagnostic::error(
                        format!("unknown check '{}'", name.node),
                        Some(name.span),
                    )
                    .with_label("not a check")
                    .with_note(format!("checks: {}", known.join(", ")));
                    if let Some(s) = closest(&name.node, known.iter().copied(), 1).first() {
                        d = d.with_help(format!("did you mean '{s}'?"));
                    }
                    self.err(src, d);
                }
                out.push(entry(EntryKind::Check(name.node.clone())));
            }
            ItemKind::Param { name, default } => {
                if super::params::is_builtin(&name.node) {
                    self.err(
                        src,
                        Diagnostic::error(
                            format!("'{}' is a built-in parameter", name.node),
                            Some(name.span),
                        )
                        .with_label("cannot be redeclared"),
                    );
                } else if let Some(old) = self.declared.insert(name.node.clone(), *default)
                    && old != *default
                {
                    {
                        self.err(
                            src,
                            Diagnostic::error(
                                format!(
                                    "parameter '{}' declared twice with different defaults",
                                    name.node
                                ),
                                Some(name.span),
                            )
                            .with_label("second declaration"),
                        );
                    }
                }
            }
        }
    }

    fn pass(
        &mut self,
        src: &Rc<Source>,
        pass: &Spanned<String>,
        options: &[(Spanned<String>, Spanned<String>)],
        label: &Option<Spanned<String>>,
        taken: bool,
    ) -> Option<PassEntry> {
        let opts = PassOptions {
            values: options
                .iter()
                .map(|(k, v)| (k.node.clone(), v.node.clone()))
                .collect(),
        };
        let mut entry = PassEntry {
            info: None,
            name: pass.node.clone(),
            options: opts,
            label: label.as_ref().map(|l| l.node.clone()),
            pass: None,
        };
        match self.loader.registry.lookup(&pass.node) {
            Ok(info) => {
                entry.info = Some(info);
                match crate::registry::Registry::instantiate(info, &entry.options) {
                    Ok(p) => entry.pass = Some(p),
                    Err(e) => {
                        let span = options
                            .iter()
                            .find(|(k, _)| k.node == e.option)
                            .map_or(pass.span, |(k, _)| k.span);
                        self.err(
                            src,
                            Diagnostic::error(e.message, Some(span)).with_label("here"),
                        );
                        return None;
                    }
                }
                if !self.instantiate {
                    entry.pass = None;
                }
            }
            Err(LookupError::Unimplemented) if !self.instantiate => {}
            Err(LookupError::Unimplemented) => {
                if taken {
                    if self.first_missing.is_none() {
                        self.first_missing = Some((src.clone(), pass.span));
                    }
                    self.missing
                        .entry(pass.node.clone())
                        .or_insert_with(|| (src.clone(), pass.span));
                }
                return None;
            }
            Err(e) => {
                let mut d = Diagnostic::error(e.describe(&pass.node), Some(pass.span))
                    .with_label("unknown pass");
                if let LookupError::Unknown { suggestions } = &e
                    && !suggestions.is_empty()
                {
                    d = d.with_help(format!("did you mean {}?", quote_list(suggestions)));
                }
                self.err(src, d);
                return None;
            }
        }
        taken.then_some(entry)
    }

    fn use_pipeline(
        &mut self,
        src: &Rc<Source>,
        name: &Spanned<String>,
        taken: bool,
        out: &mut Vec<Entry>,
    ) {
        let Some((resolved, used)) = self.loader.library.resolve(&name.node, Some(&src.name))
        else {
            let names = self.loader.library.names();
            let mut d = Diagnostic::error(
                format!("no pipeline named '{}'", name.node),
                Some(name.span),
            )
            .with_label("unknown pipeline");
            if let Some(s) = closest(&name.node, names.iter().map(String::as_str), 1).first() {
                d = d.with_help(format!("did you mean '{s}'?"));
            }
            self.err(src, d);
            return;
        };
        if self.stack.contains(&resolved) {
            let chain = format!("{} -> {resolved}", self.stack.join(" -> "));
            self.err(
                src,
                Diagnostic::error(
                    format!("pipeline '{resolved}' uses itself: {chain}"),
                    Some(name.span),
                )
                .with_label("cycle closes here"),
            );
            return;
        }
        let doc = match super::parse::parse(used.clone()) {
            Ok(d) => d,
            Err(d) => {
                self.err(&used, d);
                return;
            }
        };
        self.stack.push(resolved);
        let entries = self.items(&used, &doc.items, taken);
        self.stack.pop();
        out.extend(entries);
    }

    fn if_item(
        &mut self,
        src: &Rc<Source>,
        cond: &Cond,
        then_body: &[Item],
        else_body: &[Item],
        taken: bool,
        out: &mut Vec<Entry>,
    ) {
        if let Some(mc) = ModuleCond::from_name(&cond.name.node) {
            let then_entries = self.items(src, then_body, taken);
            let else_entries = self.items(src, else_body, taken);
            out.push(Entry {
                kind: EntryKind::If(IfEntry {
                    cond: mc,
                    negated: cond.negated,
                    then_entries,
                    else_entries,
                }),
                markers: Markers::default(),
                segment: String::new(),
            });
            return;
        }
        let value = self
            .loader
            .params
            .value(&cond.name.node, self.declared.get(&cond.name.node).copied());
        let Some(v) = value else {
            let known: Vec<&str> = super::params::BUILTIN_PARAMS
                .iter()
                .map(|b| b.0)
                .chain(self.declared.keys().map(String::as_str))
                .chain(ModuleCond::ALL.iter().map(|c| c.name()))
                .collect();
            let mut d = Diagnostic::error(
                format!("unknown condition '{}'", cond.name.node),
                Some(cond.name.span),
            )
            .with_label("not a parameter or module predicate")
            .with_note(format!("conditions: {}", known.join(", ")));
            if let Some(s) = closest(&cond.name.node, known.iter().copied(), 1).first() {
                d = d.with_help(format!("did you mean '{s}'?"));
            }
            self.err(src, d);
            return;
        };
        let holds = v != cond.negated;
        let a = self.items(src, then_body, taken && holds);
        let b = self.items(src, else_body, taken && !holds);
        out.extend(a);
        out.extend(b);
    }
}

/// Gives every entry its path segment; names repeated among siblings (module-condition
/// branches count as siblings) get `#2`, `#3`, ….
pub fn assign_segments(entries: &mut [Entry]) {
    let mut seen: BTreeMap<String, u32> = BTreeMap::new();
    assign_in(entries, &mut seen);
}

fn assign_in(entries: &mut [Entry], seen: &mut BTreeMap<String, u32>) {
    for e in entries {
        let base = match &mut e.kind {
            EntryKind::Pass(p) => p.display().to_string(),
            EntryKind::Group(g) => {
                assign_segments(&mut g.entries);
                g.name.clone()
            }
            EntryKind::Verify(_) => "verify".to_string(),
            EntryKind::Check(name) => format!("check-{name}"),
            EntryKind::If(i) => {
                assign_in(&mut i.then_entries, seen);
                assign_in(&mut i.else_entries, seen);
                continue;
            }
        };
        let n = seen.entry(base.clone()).or_insert(0);
        *n += 1;
        e.segment = if *n == 1 { base } else { format!("{base}#{n}") };
    }
}
