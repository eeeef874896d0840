//! The driver's one doorway to the xir text parser, printer and verifier.
//!
//! Everything the driver needs from `xir-ir` goes through these four functions.

use xir_ir::Module;
use xir_ir::diag::Diagnostic;
use xir_ir::source_map::SourceMap;
use xir_ir::text::{IdStyle, PrintOptions};
use xir_ir::verify::VerifyOptions;

/// Printing choices the driver exposes.
#[derive(Copy, Clone, Debug, Default)]
pub struct PrintChoice {
    /// Flat form (every block a top-level label).
    pub flat: bool,
    /// Debug comments (users, preds, CFG).
    pub debug_info: bool,
}

/// Verifier requirements parsed from `--verify-options`.
#[derive(Clone, Debug, Default)]
pub struct VerifyChoice {
    options: VerifyOptions,
}

/// Parses xir text into a module and its source map.
pub fn parse_module(src: &str) -> Result<(Module, SourceMap), Vec<Diagnostic>> {
    xir_ir::text::parse_module(src)
}

/// Prints a module in canonical form.
pub fn print_module(module: &Module, choice: PrintChoice) -> Result<String, Vec<Diagnostic>> {
    Ok(xir_ir::text::print_module(
        module,
        &PrintOptions {
            flat: choice.flat,
            debug_info: choice.debug_info,
            ids: IdStyle::Upstream,
        },
    ))
}

/// Parses a comma-separated `--verify-options` list.
pub fn parse_verify_options(list: &str) -> Result<VerifyChoice, String> {
    VerifyOptions::parse_list(list)
        .map(|options| VerifyChoice { options })
        .map_err(|e| e.to_string())
}

/// Verifies a module; returns every diagnostic (errors and warnings).
pub fn verify_module(
    module: &Module,
    choice: &VerifyChoice,
    source_map: Option<&SourceMap>,
) -> Vec<Diagnostic> {
    xir_ir::verify::verify_module(module, &choice.options, source_map)
}
