//! The syntax tree of the pipeline language (`.xpl` files and `--passes=` text).
//!
//! Both surface forms parse to the same tree: a file writes one item per line with the
//! `add` keyword, the inline form separates items by commas and may drop `add`. See
//! `docs/pipelines.md` for the grammar.

use std::rc::Rc;
use xir_ir::diag::Span;

/// A pipeline source text (a file, a shipped pipeline, or a `--passes` string).
#[derive(Debug, PartialEq, Eq)]
pub struct Source {
    /// Name used in diagnostics (`passes/pipelines/basic-opt.xpl`, `<--passes>`).
    pub name: String,
    /// The text.
    pub text: String,
}

/// A value with the span it was written at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spanned<T> {
    /// The value.
    pub node: T,
    /// Where it was written.
    pub span: Span,
}

impl<T> Spanned<T> {
    /// Wraps `node` with `span`.
    pub fn new(node: T, span: Span) -> Self {
        Self { node, span }
    }
}

/// Per-entry markers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Markers {
    /// A refusal of this entry fails the run (exit 1 with the pass's reason).
    pub abort_on_refusal: bool,
    /// Always runs, even past a `--bisect-limit`.
    pub required: bool,
    /// `--verify-each` does not verify after this entry; the next entry without the
    /// marker verifies (the IR may be invalid in between, as upstream repairs it later).
    pub verify_deferred: bool,
}

impl Markers {
    /// Either marker set (markers may be written before and after a group's body).
    pub fn or(self, other: Markers) -> Markers {
        Markers {
            abort_on_refusal: self.abort_on_refusal || other.abort_on_refusal,
            required: self.required || other.required,
            verify_deferred: self.verify_deferred || other.verify_deferred,
        }
    }
}

/// A condition: a parameter or a module predicate, possibly negated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cond {
    /// Parameter or predicate name.
    pub name: Spanned<String>,
    /// `!name`.
    pub negated: bool,
}

/// One item of a pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    /// What it is.
    pub kind: ItemKind,
    /// Markers written after it.
    pub markers: Markers,
    /// The whole item.
    pub span: Span,
}

/// The kinds of items.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ItemKind {
    /// `add PASS{opt=val,…} [as LABEL]`.
    Add {
        /// Registered pass name.
        pass: Spanned<String>,
        /// Options as written.
        options: Vec<(Spanned<String>, Spanned<String>)>,
        /// Entry label (the name shown in paths, stats and dumps).
        label: Option<Spanned<String>>,
    },
    /// `fixed-point NAME max=N [allow-nonconvergence] { … }`.
    FixedPoint {
        /// Group name (`fixed-point` when omitted).
        name: Option<Spanned<String>>,
        /// Iteration budget.
        max: Spanned<u32>,
        /// Non-convergence is a warning instead of a failure.
        allow_nonconvergence: bool,
        /// Body.
        body: Vec<Item>,
    },
    /// `sequence NAME { … }`: a named one-shot group.
    Sequence {
        /// Group name.
        name: Spanned<String>,
        /// Body.
        body: Vec<Item>,
    },
    /// `use PIPELINE`: splices another pipeline's items here.
    Use {
        /// Pipeline name (shipped, or a file next to the including one).
        pipeline: Spanned<String>,
    },
    /// `if COND { … } [else { … }]`.
    If {
        /// Condition.
        cond: Cond,
        /// Items when it holds.
        then_body: Vec<Item>,
        /// Items otherwise.
        else_body: Vec<Item>,
    },
    /// `verify{flag,…}`: runs the verifier with upstream's option flags (kebab-case).
    Verify {
        /// Flags as written.
        flags: Vec<Spanned<String>>,
    },
    /// `check NAME`: an external check the driver supplies (e.g. `spirv-dialect`, the
    /// SPIR-V backend's dialect check, which lives in `codegen/`).
    Check {
        /// Check name (one of [`CHECKS`](super::expand::CHECKS)).
        name: Spanned<String>,
    },
    /// `param NAME = true|false`: declares a pipeline parameter and its default.
    Param {
        /// Parameter name.
        name: Spanned<String>,
        /// Default value.
        default: bool,
    },
}

/// A parsed pipeline source.
#[derive(Debug)]
pub struct Document {
    /// Where it came from.
    pub source: Rc<Source>,
    /// Its items.
    pub items: Vec<Item>,
}
