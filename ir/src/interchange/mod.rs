//! Upstream's canonical interchange formats: the record-oriented text `xir.text 1` and
//! the `LXIRBC` bitcode envelope (reference §1.9).
//!
//! Both formats encode the same *wire records* ([`records`]): module metadata, globals
//! (constants with canonical bytes, undefined values, special registers) and functions
//! (arguments, owned blocks, instructions with operand ids, auxiliary integers and string
//! payloads). The pipeline is
//!
//! ```text
//! Module --lower--> records --text_write----> "xir.text 1"  --text_read----> records --build--> Module
//!                           --bitcode_write-> LXIRBC bytes  --bitcode_read-> records
//! ```
//!
//! Writing refuses what upstream's writer refuses (modules failing verification,
//! coroutine frame exports/extensions, debug-break callbacks, `no_inline` and newer
//! metadata, types whose description does not round-trip such as `i4`/`f4e2m1`), and
//! additionally anything its own reader would reject, so every written file reads back.
//! Reading fails closed: the first error is reported with its location (text: a span,
//! rendered as `line:col`; bitcode: the byte offset), no partial module is returned,
//! every count is checked against the limits and the remaining input before anything is
//! allocated, and nothing recurses deeper than the fixed type-description depth (64).

mod bitcode_read;
mod bitcode_write;
mod build;
pub mod canonical;
mod lex;
mod lower;
pub(crate) mod records;
mod text_read;
mod text_write;
pub mod typedesc;

use crate::diag::{Diagnostic, Severity};
use crate::module::Module;
use crate::source_map::SourceMap;

pub use bitcode_read::read_bitcode;
pub use bitcode_write::{fnv1a64, write_bitcode, write_bitcode_text_envelope};
pub use text_read::read_interchange_text;
pub use text_write::write_interchange_text;

/// Largest text or binary payload accepted or produced (256 MiB).
pub const MAX_PAYLOAD_SIZE: usize = 256 * 1024 * 1024;
/// Largest count of any record list, and the cumulative record budget (2^20).
pub const MAX_RECORD_COUNT: usize = 1 << 20;
/// Longest type description (16 KiB).
pub const MAX_TYPE_DESCRIPTION_SIZE: usize = 16 * 1024;
/// Longest instruction string payload and binary name field (1 MiB).
pub const MAX_STRING_PAYLOAD_SIZE: usize = 1024 * 1024;
/// Deepest type-description nesting upstream accepts (a scalar inside 64 levels).
pub const MAX_TYPE_DEPTH: usize = 64;

/// The comment line the text writer starts with (also used for format detection).
pub const TEXT_HEADER: &str = "; LuisaCompute XIR canonical interchange";
/// The 8-byte bitcode magic.
pub const BITCODE_MAGIC: [u8; 8] = *b"LXIRBC\x00\x01";
/// Bitcode header size in bytes.
pub const BITCODE_HEADER_SIZE: usize = 32;
/// Bitcode envelope version whose payload is interchange text.
pub const BITCODE_VERSION_TEXT: u32 = 1;
/// Bitcode envelope version whose payload is binary records.
pub const BITCODE_VERSION_BINARY: u32 = 2;

/// An interchange error: a message, the byte offset for bitcode input, and the verifier's
/// diagnostics when verification was what failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InterchangeError {
    /// What went wrong.
    pub message: String,
    /// Byte offset into the bitcode input (`None` for writer errors).
    pub offset: Option<usize>,
    /// Verifier diagnostics (spans are byte ranges of the offending records in the input).
    pub diagnostics: Vec<Diagnostic>,
}

impl InterchangeError {
    /// An error without location.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            offset: None,
            diagnostics: Vec::new(),
        }
    }
    /// An error at a byte offset.
    pub fn at(offset: usize, message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            offset: Some(offset),
            diagnostics: Vec::new(),
        }
    }
}

impl std::fmt::Display for InterchangeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.offset {
            Some(o) => write!(f, "byte {o}: {}", self.message)?,
            None => f.write_str(&self.message)?,
        }
        for d in &self.diagnostics {
            match d.span {
                Some(s) => write!(f, "\n  byte {}: {}", s.start, d.message)?,
                None => write!(f, "\n  {}", d.message)?,
            }
        }
        Ok(())
    }
}

impl std::error::Error for InterchangeError {}

/// Which serialized form a byte string holds, judged from its first bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum InputFormat {
    /// `LXIRBC` bitcode.
    Bitcode,
    /// Canonical interchange text.
    InterchangeText,
    /// Anything else (xir text).
    XirText,
}

/// Detects the format: bitcode magic, or interchange text (its header comment, or
/// `xir.text` as the first token after whitespace and `;` comments).
pub fn detect_format(bytes: &[u8]) -> InputFormat {
    if bytes.starts_with(&BITCODE_MAGIC[..6]) {
        return InputFormat::Bitcode;
    }
    let mut i = 0;
    loop {
        while i < bytes.len() && matches!(bytes[i], b' ' | b'\t' | b'\r' | b'\n') {
            i += 1;
        }
        if bytes[i..].starts_with(TEXT_HEADER.as_bytes()) {
            return InputFormat::InterchangeText;
        }
        if i < bytes.len() && bytes[i] == b';' {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        break;
    }
    let rest = &bytes[i..];
    if rest.starts_with(b"xir.text")
        && rest
            .get(8)
            .is_none_or(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\n' | b';'))
    {
        InputFormat::InterchangeText
    } else {
        InputFormat::XirText
    }
}

/// THE single call site of the module verifier for the interchange: decoding ends with
/// it, and the writers refuse modules it rejects. Returns the error diagnostics.
pub(crate) fn verify_for_interchange(m: &Module, sm: Option<&SourceMap>) -> Vec<Diagnostic> {
    crate::verify::verify_module(m, &crate::verify::VerifyOptions::default(), sm)
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .collect()
}
