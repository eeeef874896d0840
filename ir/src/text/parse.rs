//! The entry point of the text reader: [`parse_module`].
//!
//! Two readers share the grammar actions of [`Ctx`]: the hand-written fast reader
//! (`fast/`) reads well-formed input; at its first doubt it gives up and the whole input
//! is read again by the lalrpop reader described below, which owns every diagnostic.
//!
//! The lalrpop token stream is cut into top-level items (a `;` at bracket depth 0 ends one) and
//! each item is parsed by the lalrpop `Item` parser, which builds IR through the shared
//! [`Ctx`]. A syntax error therefore never spills into the next item; inside a function
//! the grammar also recovers at statement level. After the last item, module-level
//! references are resolved (see `resolve.rs`). All diagnostics come back sorted by
//! position.

use super::ctx::Ctx;
use super::lexer::{Progress, TokenStream};
use crate::diag::{Diagnostic, Severity, Span};
use crate::module::Module;
use crate::source_map::SourceMap;
use std::rc::Rc;

#[allow(
    clippy::all,
    clippy::pedantic,
    missing_docs,
    unused_parens,
    unused_qualifications,
    unreachable_pub,
    dead_code
)]
#[rustfmt::skip]
mod grammar {
    include!(concat!(env!("OUT_DIR"), "/text/grammar.rs"));
}

use super::ctx::MAX_ERRORS;

/// Parses a module in the xir text format (upstream's xir2text output, nested or flat,
/// plus xir's extensions and hand-written conveniences; see `docs/text-format.md`).
///
/// On failure every error found is returned (recovery is per statement and per
/// top-level item), sorted by position. Never panics, whatever the input.
pub fn parse_module(src: &str) -> Result<(Module, SourceMap), Vec<Diagnostic>> {
    if src.len() >= u32::MAX as usize {
        return Err(too_large());
    }
    match super::fast::parse(src) {
        Some(r) => Ok(r),
        None => parse_lalrpop(src),
    }
}

fn too_large() -> Vec<Diagnostic> {
    vec![Diagnostic::error(
        "input is too large (4 GiB or more)",
        None,
    )]
}

/// Which reader [`parse_module_with`] uses.
#[doc(hidden)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Reader {
    /// The lalrpop grammar alone (owner of diagnostics and recovery).
    Lalrpop,
    /// The hand-written reader alone; `None` when it gives up.
    Fast,
}

/// [`parse_module`] through one chosen reader (for differential tests and benchmarks).
/// Returns `None` only when [`Reader::Fast`] gives up.
#[doc(hidden)]
pub fn parse_module_with(
    src: &str,
    reader: Reader,
) -> Option<Result<(Module, SourceMap), Vec<Diagnostic>>> {
    if src.len() >= u32::MAX as usize {
        return Some(Err(too_large()));
    }
    match reader {
        Reader::Lalrpop => Some(parse_lalrpop(src)),
        Reader::Fast => super::fast::parse(src).map(Ok),
    }
}

/// The lalrpop reader: per-item parsing with statement-level recovery.
fn parse_lalrpop(src: &str) -> Result<(Module, SourceMap), Vec<Diagnostic>> {
    let progress = Rc::new(Progress::default());
    let mut ctx = Ctx::new(src, progress.clone());
    let mut stream = TokenStream::new(src, &progress);
    let parser = grammar::ItemParser::new();
    while stream.next_item() {
        ctx.func = None;
        ctx.cur_block = None;
        ctx.stmt = super::ctx::Stmt::None;
        ctx.suppress_until = 0;
        progress.open_blocks.set(0);
        let r = parser.parse(&mut ctx, &mut stream);
        for d in std::mem::take(&mut stream.diags) {
            ctx.push(d);
        }
        if let Err(e) = r {
            ctx.report_syntax(&e);
        }
        // A function whose item failed is closed here (its `;` action never ran).
        ctx.end_function();
        if ctx.diags.len() >= MAX_ERRORS || progress.stop.get() {
            let at = ctx
                .diags
                .iter()
                .filter_map(|d| d.span)
                .max_by_key(|s| s.start);
            ctx.diags.push(Diagnostic::error(
                "too many errors; stopping",
                at.or(Some(Span::new(0, 0))),
            ));
            break;
        }
    }
    if stream.fatal || progress.stop.get() {
        return Err(sorted(ctx.diags));
    }
    ctx.finish();
    if ctx.diags.iter().any(|d| d.severity == Severity::Error) {
        return Err(sorted(ctx.diags));
    }
    Ok((ctx.module, ctx.map))
}

fn sorted(mut d: Vec<Diagnostic>) -> Vec<Diagnostic> {
    d.sort_by_key(|d| d.span.map_or(0, |s| s.start));
    d
}
