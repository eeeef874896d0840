//! The driver's one doorway to the xir text parser, printer and verifier.
//!
//! Everything the driver needs from `xir-ir` goes through these four functions. The
//! parser, printer and verifier are `xir_ir::text::parse_module`, `xir_ir::text::print`
//! and `xir_ir::verify`.

use xir_ir::Module;
use xir_ir::diag::Diagnostic;
use xir_ir::source_map::SourceMap;
use xir_ir::text::print::PrintOptions;
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
pub type VerifyChoice = VerifyOptions;

/// Parses xir text into a module and its source map.
pub fn parse_module(src: &str) -> Result<(Module, SourceMap), Vec<Diagnostic>> {
    xir_ir::text::parse_module(src)
}

/// Prints a module in canonical form.
pub fn print_module(module: &Module, choice: PrintChoice) -> Result<String, Vec<Diagnostic>> {
    let opts = PrintOptions {
        flat: choice.flat,
        debug_info: choice.debug_info,
        ..PrintOptions::default()
    };
    Ok(xir_ir::text::print::print_module(module, &opts))
}

/// Parses a comma-separated `--verify-options` list.
pub fn parse_verify_options(list: &str) -> Result<VerifyChoice, String> {
    VerifyOptions::parse_list(list)
}

/// Verifies a module; returns every diagnostic (errors and warnings).
pub fn verify_module(
    module: &Module,
    choice: &VerifyChoice,
    source_map: Option<&SourceMap>,
) -> Vec<Diagnostic> {
    xir_ir::verify::verify_module(module, choice, source_map)
}
