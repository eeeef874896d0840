//! The xir text format (upstream's xir2text syntax plus small lossless extensions, see
//! `docs/text-format.md`): printer, parser and the shared inference rules.

mod debug_info;
pub mod escape;
pub mod infer;
mod numbering;
pub mod print;
mod print_inst;

pub use print::{IdStyle, PrintOptions, print_module};
