//! The xir text format (upstream's xir2text syntax plus small lossless extensions, see
//! `docs/text-format.md`): printer, parser and the shared inference rules.

mod blocks;
mod ctx;
pub mod infer;
mod insts;
mod items;
pub mod lexer;
mod literal;
mod meta;
mod parse;
mod resolve;
mod syntax;
mod tyres;

pub use parse::parse_module;
