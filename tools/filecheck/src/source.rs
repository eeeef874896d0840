//! Source buffers and LLVM `SourceMgr`-style message printing.
//!
//! Every location FileCheck reports is a byte offset into one of a few buffers: the
//! (canonicalised) check file, the (canonicalised) input, one buffer per
//! `--implicit-check-not` pattern and one for `-D` definitions. Messages are printed
//! exactly like LLVM's `SMDiagnostic::print`: `FILE:LINE:COL: kind: message`, the source
//! line, and a caret line with optional `~` ranges.

/// A location: buffer index plus byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    /// Buffer index in the [`SourceMgr`].
    pub buf: usize,
    /// Byte offset in that buffer.
    pub off: usize,
}

/// Severity of a printed message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `error:`
    Error,
    /// `note:`
    Note,
    /// `remark:`
    Remark,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::Error => "error",
            Kind::Note => "note",
            Kind::Remark => "remark",
        }
    }
}

/// One named buffer with precomputed line starts.
#[derive(Debug, Clone)]
pub struct Source {
    /// Name printed in diagnostics (`<stdin>`, a path, `command line`).
    pub name: String,
    /// The bytes (already canonicalised where FileCheck canonicalises).
    pub text: Vec<u8>,
    line_starts: Vec<usize>,
}

impl Source {
    /// Creates a buffer and indexes its lines.
    pub fn new(name: impl Into<String>, text: Vec<u8>) -> Source {
        let mut line_starts = vec![0];
        for i in memchr::memchr_iter(b'\n', &text) {
            line_starts.push(i + 1);
        }
        Source {
            name: name.into(),
            text,
            line_starts,
        }
    }

    /// 1-based line and column of a byte offset.
    pub fn line_col(&self, off: usize) -> (usize, usize) {
        let line = match self.line_starts.binary_search(&off) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        (line + 1, off - self.line_starts[line] + 1)
    }

    /// Byte range of a 1-based line, without its terminator.
    pub fn line_range(&self, line: usize) -> (usize, usize) {
        let start = self.line_starts[line - 1];
        let mut end = start;
        while end < self.text.len() && self.text[end] != b'\n' && self.text[end] != b'\r' {
            end += 1;
        }
        (start, end)
    }

    /// Number of lines as LLVM's input dump counts them.
    pub fn line_count(&self) -> usize {
        let n = memchr::memchr_iter(b'\n', &self.text).count();
        if self.text.last() == Some(&b'\n') || self.text.is_empty() {
            n
        } else {
            n + 1
        }
    }
}

/// A set of buffers plus the printer.
#[derive(Debug, Default, Clone)]
pub struct SourceMgr {
    /// All buffers.
    pub bufs: Vec<Source>,
}

impl SourceMgr {
    /// Adds a buffer, returning its index.
    pub fn add(&mut self, name: impl Into<String>, text: Vec<u8>) -> usize {
        self.bufs.push(Source::new(name, text));
        self.bufs.len() - 1
    }

    /// 1-based line/column of a location.
    pub fn line_col(&self, loc: Loc) -> (usize, usize) {
        self.bufs[loc.buf].line_col(loc.off)
    }

    /// Prints a message like `SMDiagnostic::print` does (no colours).
    pub fn print(&self, out: &mut Vec<u8>, loc: Loc, kind: Kind, msg: &str, ranges: &[(Loc, Loc)]) {
        let src = &self.bufs[loc.buf];
        let (line, col) = src.line_col(loc.off);
        out.extend_from_slice(
            format!(
                "{}:{}:{}: {}: {}\n",
                src.name,
                line,
                col,
                kind.as_str(),
                msg
            )
            .as_bytes(),
        );
        let (ls, le) = src.line_range(line);
        let text = &src.text[ls..le];
        // Caret line in byte columns, then expanded for tabs.
        let mut caret = vec![b' '; text.len() + 1];
        for &(a, b) in ranges {
            if a.buf != loc.buf {
                continue;
            }
            let s = a.off.max(ls);
            let e = b.off.min(le);
            if s >= e && !(a.off == b.off && a.off >= ls && a.off <= le) {
                continue;
            }
            for c in s..e.max(s) {
                caret[c - ls] = b'~';
            }
        }
        let ccol = (col - 1).min(text.len());
        caret[ccol] = b'^';
        while caret.last() == Some(&b' ') {
            caret.pop();
        }
        if text.contains(&b'\t') {
            let mut tline = Vec::new();
            let mut tcaret = Vec::new();
            for (i, &c) in text.iter().enumerate() {
                if c == b'\t' {
                    loop {
                        tline.push(b' ');
                        if tline.len() % 8 == 0 {
                            break;
                        }
                    }
                } else {
                    tline.push(c);
                }
                if i < caret.len() {
                    let cc = caret[i];
                    if c == b'\t' {
                        loop {
                            tcaret.push(cc);
                            if tcaret.len() % 8 == 0 {
                                break;
                            }
                        }
                    } else {
                        tcaret.push(cc);
                    }
                }
            }
            if caret.len() > text.len() {
                tcaret.push(caret[text.len()]);
            }
            out.extend_from_slice(&tline);
            out.push(b'\n');
            out.extend_from_slice(&tcaret);
        } else {
            out.extend_from_slice(text);
            out.push(b'\n');
            out.extend_from_slice(&caret);
        }
        out.push(b'\n');
    }
}

/// LLVM's `CanonicalizeFile`: drop the `\r` of `\r\n` and, unless `strict`, collapse runs
/// of spaces and tabs into a single space.
pub fn canonicalize(input: &[u8], strict: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    let n = input.len();
    let mut i = 0;
    while i < n {
        let c = input[i];
        if c == b'\r' && i + 1 < n && input[i + 1] == b'\n' {
            i += 1;
            continue;
        }
        if strict || (c != b' ' && c != b'\t') {
            // Fast path: copy a run of ordinary bytes.
            let start = i;
            i += 1;
            while i < n {
                let d = input[i];
                if d == b'\r' || (!strict && (d == b' ' || d == b'\t')) {
                    break;
                }
                i += 1;
            }
            out.extend_from_slice(&input[start..i]);
            continue;
        }
        out.push(b' ');
        while i + 1 < n && (input[i + 1] == b' ' || input[i + 1] == b'\t') {
            i += 1;
        }
        i += 1;
    }
    out
}
