//! The differential check of the two text readers, shared by `parse_differential.rs` and
//! the `parse_differential` fuzz target (which includes this file): whatever the fast
//! reader accepts, the lalrpop reader accepts with the identical module and source map.
//! Depends only on `xir_ir`.

#![allow(dead_code)]

use xir_ir::Module;
use xir_ir::diag::Diagnostic;
use xir_ir::source_map::SourceMap;
use xir_ir::text::{Reader, parse_module, parse_module_with};
use xir_testgen::structural_diff;

/// What one reader returned (`None`: the fast reader gave up).
pub type Answer = Option<Result<(Module, SourceMap), Vec<Diagnostic>>>;

/// How the two readers treated one input.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Both accepted it, with identical results.
    BothOk,
    /// The fast reader gave up and lalrpop accepted it (a coverage gap).
    FastGaveUpOnValid,
    /// The fast reader gave up and lalrpop rejected it.
    BothRejected,
}

/// Compares the readers on `src`; `Err` describes a divergence.
pub fn differ(src: &str) -> Result<Outcome, String> {
    let slow = parse_module_with(src, Reader::Lalrpop).expect("lalrpop always answers");
    let fast = parse_module_with(src, Reader::Fast);
    if fast.is_none() {
        // The public entry point must then give exactly lalrpop's answer.
        let public = parse_module(src);
        if format!("{public:?}") != format!("{slow:?}") {
            return Err("parse_module differs from the lalrpop reader after a give-up".into());
        }
    }
    compare(fast, slow)
}

/// Compares a fast-reader answer with the lalrpop reader's.
pub fn compare(
    fast: Answer,
    slow: Result<(Module, SourceMap), Vec<Diagnostic>>,
) -> Result<Outcome, String> {
    let Some(fast) = fast else {
        return Ok(if slow.is_ok() {
            Outcome::FastGaveUpOnValid
        } else {
            Outcome::BothRejected
        });
    };
    let (fm, fmap) = fast.map_err(|_| "the fast reader returned diagnostics".to_string())?;
    let (sm, smap) = match slow {
        Ok(x) => x,
        Err(d) => {
            return Err(format!(
                "fast reader accepted what lalrpop rejects: {:?}",
                &d[..d.len().min(3)]
            ));
        }
    };
    if let Some(diff) = structural_diff(&fm, &sm) {
        return Err(format!("modules differ structurally: {diff}"));
    }
    if format!("{fm:?}") != format!("{sm:?}") {
        return Err("modules differ (arena order or numbering)".into());
    }
    if format!("{fmap:?}") != format!("{smap:?}") {
        return Err("source maps differ".into());
    }
    Ok(Outcome::BothOk)
}
