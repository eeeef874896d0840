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

/// Decodes interchange text or bitcode (chosen from the first bytes, see
/// [`xir_ir::interchange::detect_format`]); `None` when `bytes` are xir text. Text errors
/// are located diagnostics; bitcode errors name the byte offset.
pub fn decode_interchange(bytes: &[u8]) -> Option<Result<Module, Vec<Diagnostic>>> {
    use xir_ir::interchange::{InputFormat, detect_format, read_bitcode, read_interchange_text};
    match detect_format(bytes) {
        InputFormat::XirText => None,
        InputFormat::InterchangeText => Some(match std::str::from_utf8(bytes) {
            Ok(s) => read_interchange_text(s),
            Err(e) => Err(vec![Diagnostic::error(
                format!("input is not valid UTF-8 (byte offset {})", e.valid_up_to()),
                None,
            )]),
        }),
        InputFormat::Bitcode => Some(read_bitcode(bytes).map_err(|e| {
            if e.diagnostics.is_empty() {
                return vec![Diagnostic::error(e.to_string(), None)];
            }
            // The decoded module failed verification: one error per verifier diagnostic,
            // each at the byte offset of the offending record (as upstream reports them).
            e.diagnostics
                .into_iter()
                .map(|mut x| {
                    let at = x.span.take().map(|s| format!("byte {}: ", s.start));
                    x.message = format!("{}{}: {}", at.unwrap_or_default(), e.message, x.message);
                    x
                })
                .collect()
        })),
    }
}

/// Serializes a module as interchange text or bitcode.
pub fn encode_interchange(module: &Module, bitcode: bool) -> Result<Vec<u8>, Vec<Diagnostic>> {
    let r = if bitcode {
        xir_ir::interchange::write_bitcode(module)
    } else {
        xir_ir::interchange::write_interchange_text(module).map(String::into_bytes)
    };
    r.map_err(|e| {
        vec![Diagnostic::error(
            format!("cannot write interchange: {e}"),
            None,
        )]
    })
}

fn print_options(choice: PrintChoice) -> PrintOptions {
    PrintOptions {
        flat: choice.flat,
        debug_info: choice.debug_info,
        ..PrintOptions::default()
    }
}

/// Prints a module in canonical form.
pub fn print_module(module: &Module, choice: PrintChoice) -> String {
    xir_ir::text::print::print_module(module, &print_options(choice))
}

/// Prints a module in canonical form to `w`, without holding the whole text (the bytes
/// are exactly [`print_module`]'s). Fails only if `w` does.
pub fn print_module_to(
    module: &Module,
    choice: PrintChoice,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    xir_ir::text::print_module_to(module, &print_options(choice), &mut { w })
}

/// Parses a comma-separated `--verify-options` list.
pub fn parse_verify_options(list: &str) -> Result<VerifyChoice, String> {
    VerifyOptions::parse_list(list)
}

/// Verifies a module; returns every diagnostic (errors and warnings). With the source
/// map and text of a parsed module, messages name entities by the text's labels.
pub fn verify_module(
    module: &Module,
    choice: &VerifyChoice,
    source: Option<(&SourceMap, &str)>,
) -> Vec<Diagnostic> {
    match source {
        Some((map, text)) => xir_ir::verify::verify_module_with_source(module, choice, map, text),
        None => xir_ir::verify::verify_module(module, choice, None),
    }
}
