//! Backend diagnostics: what went wrong and where, in XIR terms.
//!
//! Every rejection names the XIR entity it is about ([`Loc`]); [`CodegenError::to_diagnostics`]
//! turns those into located [`Diagnostic`]s with the spans of a parsed module's
//! [`SourceMap`] (file:line:col and a caret in the driver).

use xir_ir::diag::Diagnostic;
use xir_ir::source_map::SourceMap;
use xir_ir::{ArgId, BlockId, FuncId, InstId};

/// The XIR entity a diagnostic is about.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Loc {
    /// The module as a whole.
    Module,
    /// A function header.
    Func(FuncId),
    /// An argument of a function.
    Arg(FuncId, ArgId),
    /// A block label.
    Block(FuncId, BlockId),
    /// An instruction.
    Inst(FuncId, InstId),
}

impl Loc {
    /// The function the location is in, if any.
    pub fn func(self) -> Option<FuncId> {
        match self {
            Loc::Module => None,
            Loc::Func(f) | Loc::Arg(f, _) | Loc::Block(f, _) | Loc::Inst(f, _) => Some(f),
        }
    }
}

/// One located backend diagnostic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    /// Where.
    pub loc: Loc,
    /// What.
    pub message: String,
    /// How to fix it, when there is a known remedy.
    pub help: Option<String>,
}

impl Located {
    /// A diagnostic at `loc`.
    pub fn new(loc: Loc, message: impl Into<String>) -> Self {
        Located {
            loc,
            message: message.into(),
            help: None,
        }
    }
    /// Adds a remedy.
    pub fn help(mut self, h: impl Into<String>) -> Self {
        self.help = Some(h.into());
        self
    }
}

/// Whose fault a failed compile is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The input is outside the backend's contract (exit status 1).
    User,
    /// The backend produced invalid SPIR-V or broke its own invariant (exit status 2).
    Internal,
}

/// A failed compile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodegenError {
    /// User or internal error.
    pub kind: ErrorKind,
    /// The diagnostics, in module order.
    pub diags: Vec<Located>,
}

impl CodegenError {
    /// A user error with these diagnostics.
    pub fn user(diags: Vec<Located>) -> Self {
        CodegenError {
            kind: ErrorKind::User,
            diags,
        }
    }
    /// An internal error at `loc`.
    pub fn internal(loc: Loc, message: impl Into<String>) -> Self {
        CodegenError {
            kind: ErrorKind::Internal,
            diags: vec![Located::new(loc, message)],
        }
    }

    /// Located diagnostics: spans come from `map` (a parsed module's source map) when
    /// one is given; otherwise the message names the function.
    pub fn to_diagnostics(
        &self,
        module: &xir_ir::Module,
        map: Option<&SourceMap>,
    ) -> Vec<Diagnostic> {
        self.diags
            .iter()
            .map(|d| {
                let span = map.and_then(|m| match d.loc {
                    Loc::Module => None,
                    Loc::Func(f) => m.func(f),
                    Loc::Arg(f, a) => m.arg(f, a),
                    Loc::Block(f, b) => m.block(f, b),
                    Loc::Inst(f, i) => m.inst(f, i),
                });
                let span = span.filter(|s| s.end > s.start);
                let mut msg = d.message.clone();
                if span.is_none()
                    && let Some(f) = d.loc.func()
                {
                    msg = format!(
                        "{msg} (in function {})",
                        crate::plan::function_name(module, f)
                    );
                }
                if self.kind == ErrorKind::Internal {
                    msg = format!("internal error: {msg}");
                }
                let mut diag = Diagnostic::error(msg, span);
                if let Some(h) = &d.help {
                    diag = diag.with_help(h.clone());
                }
                diag
            })
            .collect()
    }
}
