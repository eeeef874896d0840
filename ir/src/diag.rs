//! Diagnostics with byte spans, rendered by codespan-reporting as
//! `file:line:col: error: message` plus a caret snippet, labels and help lines.

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, Config};

/// A byte range in one source text.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// Start byte offset.
    pub start: u32,
    /// End byte offset (exclusive).
    pub end: u32,
}

impl Span {
    /// A span from `start` to `end`.
    pub fn new(start: usize, end: usize) -> Self {
        Self {
            start: start as u32,
            end: end as u32,
        }
    }
    /// Byte range.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// Severity of a diagnostic.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// A note.
    Note,
    /// A warning.
    Warning,
    /// An error.
    Error,
}

/// One problem report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Severity.
    pub severity: Severity,
    /// Headline.
    pub message: String,
    /// Primary location (None when no source location is known).
    pub span: Option<Span>,
    /// Text under the primary caret.
    pub label: String,
    /// Secondary labels.
    pub secondary: Vec<(Span, String)>,
    /// Notes.
    pub notes: Vec<String>,
    /// A `help:` line, where an obvious fix exists.
    pub help: Option<String>,
}

impl Diagnostic {
    /// An error at `span`.
    pub fn error(message: impl Into<String>, span: Option<Span>) -> Self {
        Self {
            severity: Severity::Error,
            message: message.into(),
            span,
            label: String::new(),
            secondary: Vec::new(),
            notes: Vec::new(),
            help: None,
        }
    }
    /// A warning at `span`.
    pub fn warning(message: impl Into<String>, span: Option<Span>) -> Self {
        Self {
            severity: Severity::Warning,
            ..Self::error(message, span)
        }
    }
    /// Sets the primary label.
    pub fn with_label(mut self, l: impl Into<String>) -> Self {
        self.label = l.into();
        self
    }
    /// Adds a help line.
    pub fn with_help(mut self, h: impl Into<String>) -> Self {
        self.help = Some(h.into());
        self
    }
    /// Adds a note.
    pub fn with_note(mut self, n: impl Into<String>) -> Self {
        self.notes.push(n.into());
        self
    }
    /// Adds a secondary label.
    pub fn with_secondary(mut self, s: Span, l: impl Into<String>) -> Self {
        self.secondary.push((s, l.into()));
        self
    }
}

/// Renders diagnostics for one source file in the plain `file:line:col: error: …` style
/// (no colours), each followed by its snippet, labels, notes and help.
pub fn render(file_name: &str, source: &str, diags: &[Diagnostic]) -> String {
    render_at(file_name, source, 0, diags)
}

/// [`render`] for a piece of a file that starts on 0-based line `first_line` of it (a
/// `--split-input-file` chunk): locations and snippet line numbers are the file's.
///
/// Linear in the source and the diagnostics: the line starts are indexed once, and
/// each location is found by binary search.
pub fn render_at(file_name: &str, source: &str, first_line: usize, diags: &[Diagnostic]) -> String {
    // Indexing the lines of a large source costs tens of milliseconds: only with something
    // to show.
    if diags.is_empty() {
        return String::new();
    }
    let file = OffsetFile {
        file: SimpleFile::new(file_name, source),
        first_line,
    };
    let lines = LineIndex::new(source);
    let config = Config {
        display_style: term::DisplayStyle::Rich,
        ..Config::default()
    };
    let mut out = String::new();
    for d in diags {
        let sev = match d.severity {
            Severity::Note => codespan_reporting::diagnostic::Severity::Note,
            Severity::Warning => codespan_reporting::diagnostic::Severity::Warning,
            Severity::Error => codespan_reporting::diagnostic::Severity::Error,
        };
        // Line the headline up with compilers: `file:line:col: error: message`.
        let loc = match d.span {
            Some(s) => {
                let (l, c) = lines.line_col(s.start as usize);
                format!("{file_name}:{}:{c}: ", l + first_line)
            }
            None => format!("{file_name}: "),
        };
        let mut cs = CsDiagnostic::new(sev).with_message(d.message.clone());
        let mut labels = Vec::new();
        if let Some(s) = d.span {
            let end = (s.end.max(s.start) as usize).min(source.len());
            let start = (s.start as usize).min(end);
            labels.push(Label::primary((), start..end).with_message(d.label.clone()));
        }
        for (s, l) in &d.secondary {
            let end = (s.end as usize).min(source.len());
            let start = (s.start as usize).min(end);
            labels.push(Label::secondary((), start..end).with_message(l.clone()));
        }
        cs = cs.with_labels(labels);
        let mut notes = d.notes.clone();
        if let Some(h) = &d.help {
            notes.push(format!("help: {h}"));
        }
        cs = cs.with_notes(notes);
        let sev_word = match d.severity {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        out.push_str(&format!("{loc}{sev_word}: {}\n", d.message));
        let mut buf = codespan_reporting::term::termcolor::NoColor::new(Vec::<u8>::new());
        if term::emit_to_write_style(&mut buf, &config, &file, &cs).is_ok() {
            let text = String::from_utf8_lossy(buf.get_ref()).into_owned();
            // Drop codespan's own headline (we printed ours) and keep the snippet.
            let mut lines = text.lines();
            lines.next();
            for l in lines {
                out.push_str(l);
                out.push('\n');
            }
        }
    }
    out
}

/// A [`SimpleFile`] whose line numbers start after `first_line` lines.
struct OffsetFile<'a> {
    file: SimpleFile<&'a str, &'a str>,
    first_line: usize,
}

impl<'a> codespan_reporting::files::Files<'a> for OffsetFile<'a> {
    type FileId = ();
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: ()) -> Result<&'a str, codespan_reporting::files::Error> {
        codespan_reporting::files::Files::name(&self.file, id)
    }
    fn source(&'a self, id: ()) -> Result<&'a str, codespan_reporting::files::Error> {
        codespan_reporting::files::Files::source(&self.file, id)
    }
    fn line_index(
        &'a self,
        id: (),
        byte_index: usize,
    ) -> Result<usize, codespan_reporting::files::Error> {
        codespan_reporting::files::Files::line_index(&self.file, id, byte_index)
    }
    fn line_number(
        &'a self,
        _: (),
        line_index: usize,
    ) -> Result<usize, codespan_reporting::files::Error> {
        Ok(line_index + 1 + self.first_line)
    }
    fn line_range(
        &'a self,
        id: (),
        line_index: usize,
    ) -> Result<std::ops::Range<usize>, codespan_reporting::files::Error> {
        codespan_reporting::files::Files::line_range(&self.file, id, line_index)
    }
}

/// The start of every line of a text: line and column of an offset in O(log lines + the
/// column), where [`line_col`] scans the text before the offset.
pub struct LineIndex<'a> {
    source: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    /// Indexes `source` (one pass).
    pub fn new(source: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(
            source
                .bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { source, starts }
    }

    /// 1-based line and column (in characters) of byte offset `pos`, as [`line_col`].
    pub fn line_col(&self, pos: usize) -> (usize, usize) {
        let pos = floor_char_boundary(self.source, pos.min(self.source.len()));
        let line = self.starts.partition_point(|&s| s <= pos);
        let start = self.starts[line - 1];
        (line, self.source[start..pos].chars().count() + 1)
    }
}

/// 1-based line and column (in characters) of byte offset `pos`.
pub fn line_col(source: &str, pos: usize) -> (usize, usize) {
    let pos = pos.min(source.len());
    let before = &source[..floor_char_boundary(source, pos)];
    let line = before.bytes().filter(|b| *b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let col = before[line_start..].chars().count() + 1;
    (line, col)
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_location_and_caret() {
        let src = "module;\nconst %0: u32 = zz;\n";
        let d = Diagnostic::error("bad constant", Some(Span::new(24, 26)))
            .with_label("here")
            .with_help("write hex");
        let out = render("t.xir", src, &[d]);
        assert!(
            out.starts_with("t.xir:2:17: error: bad constant\n"),
            "{out}"
        );
        assert!(out.contains("^^ here"), "{out}");
        assert!(out.contains("help: write hex"), "{out}");
    }

    #[test]
    fn line_index_agrees_with_line_col() {
        let src = "ab\n\nçd\r\nx\n";
        let idx = LineIndex::new(src);
        for pos in 0..=src.len() + 2 {
            assert_eq!(idx.line_col(pos), line_col(src, pos), "offset {pos}");
        }
    }

    #[test]
    fn a_chunk_renders_with_the_file_line_numbers() {
        let src = "module;\nconst %0: u32 = zz;\n";
        let d = Diagnostic::error("bad constant", Some(Span::new(24, 26)));
        let out = render_at("t.xir", src, 40, &[d]);
        assert!(
            out.starts_with("t.xir:42:17: error: bad constant\n"),
            "{out}"
        );
        assert!(out.contains("42 │ const"), "{out}");
    }
}
