//! The xir text format (upstream's xir2text syntax plus small lossless extensions, see
//! `docs/text-format.md`): printer, parser and the shared inference rules.

mod blocks;
mod ctx;
mod debug_info;
pub mod escape;
mod fast;
pub mod infer;
mod insts;
mod items;
pub mod lex_ahead;
pub mod lexer;
mod literal;
mod meta;
pub(crate) mod numbering;
pub mod packed_tok;
mod parse;
pub mod print;
mod print_inst;
mod print_stream;
mod print_types;
mod resolve;
mod syntax;
mod tyres;

pub use ctx::MAX_ERRORS;
pub use parse::{Reader, parse_module, parse_module_with};
pub use print::{IdStyle, PrintOptions, print_module};
pub use print_stream::print_module_to;
pub use syntax::edit_distance;
