//! `--split-input-file`: cutting one input into independent chunks at `// -----` lines.
//!
//! Each chunk is handed on *padded*: preceded by as many newlines as there are lines
//! before it in the original file. Every span a parser or verifier reports in the padded
//! text therefore has the original file's line and column, and diagnostics need no
//! remapping.

/// The marker line, as written in files and between output chunks.
pub const SPLIT_MARKER: &str = "// -----";

/// One chunk of the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// 0-based line of the original file on which the chunk starts.
    pub first_line: usize,
    /// The chunk's own text (marker lines excluded).
    pub text: String,
}

impl Chunk {
    /// The chunk preceded by `first_line` newlines, so offsets map to original lines.
    pub fn padded(&self) -> String {
        let mut s = "\n".repeat(self.first_line);
        s.push_str(&self.text);
        s
    }

    /// [`Self::padded`], consuming the chunk: a chunk on the first line is returned as
    /// is, without copying its text.
    pub fn into_padded(self) -> String {
        if self.first_line == 0 {
            self.text
        } else {
            self.padded()
        }
    }
}

/// Whether `line` (without its newline) is a split marker: `//`, optional blanks, then
/// at least five dashes and nothing else but trailing blanks.
pub fn is_marker(line: &str) -> bool {
    let Some(rest) = line.strip_prefix("//") else {
        return false;
    };
    let rest = rest.trim_start_matches([' ', '\t']).trim_end();
    rest.len() >= 5 && rest.bytes().all(|b| b == b'-')
}

/// Splits `src` at marker lines. Without markers the result is one chunk.
pub fn split(src: &str) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let mut cur = Chunk {
        first_line: 0,
        text: String::new(),
    };
    for (i, line) in src.split_inclusive('\n').enumerate() {
        let bare = line.strip_suffix('\n').unwrap_or(line);
        let bare = bare.strip_suffix('\r').unwrap_or(bare);
        if is_marker(bare) {
            let next = Chunk {
                first_line: i + 1,
                text: String::new(),
            };
            chunks.push(std::mem::replace(&mut cur, next));
        } else {
            cur.text.push_str(line);
        }
    }
    chunks.push(cur);
    chunks
}

/// Joins chunk outputs with marker lines, as `mlir-opt -split-input-file` does.
pub fn join(outputs: &[String]) -> String {
    let mut s = String::new();
    for (i, o) in outputs.iter().enumerate() {
        if i > 0 {
            if !s.is_empty() && !s.ends_with('\n') {
                s.push('\n');
            }
            s.push_str(SPLIT_MARKER);
            s.push('\n');
        }
        s.push_str(o);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers() {
        assert!(is_marker("// -----"));
        assert!(is_marker("//-----  "));
        assert!(is_marker("// ----------"));
        assert!(!is_marker("// ---"));
        assert!(!is_marker("  // -----"));
        assert!(!is_marker("// ----- x"));
    }

    #[test]
    fn split_keeps_line_numbers() {
        let src = "a\nb\n// -----\nc\n\n// -----\nd";
        let c = split(src);
        assert_eq!(c.len(), 3);
        assert_eq!(c[0].text, "a\nb\n");
        assert_eq!((c[1].first_line, c[1].text.as_str()), (3, "c\n\n"));
        assert_eq!((c[2].first_line, c[2].text.as_str()), (6, "d"));
        assert_eq!(c[2].padded(), "\n\n\n\n\n\nd");
        assert_eq!(split("x\n").len(), 1);
    }

    #[test]
    fn join_puts_markers_between() {
        let j = join(&["a\n".into(), String::new(), "c".into()]);
        assert_eq!(j, "a\n// -----\n// -----\nc");
    }
}
