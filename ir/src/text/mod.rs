//! The xir text format (upstream's xir2text syntax plus small lossless extensions, see
//! `docs/text-format.md`): printer, parser and the shared inference rules.

pub mod infer;
