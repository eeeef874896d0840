//! `--split-input-file`: cutting one input into independent chunks at `// -----` lines.
//!
//! Each chunk is a slice of the input with the 0-based line it starts on: spans reported
//! in a chunk are the chunk's, and diagnostics are rendered with that line offset
//! ([`xir_ir::diag::render_at`]), so they carry the original file's line numbers. No
//! chunk is copied or padded, so splitting is linear in the input whatever the number
//! of chunks (padding each chunk with its preceding newlines, as before, was quadratic:
//! 100,000 chunks needed more than 12 GB).

/// The marker line, as written in files and between output chunks.
pub const SPLIT_MARKER: &str = "// -----";

/// One chunk of the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk<'s> {
    /// 0-based line of the original file on which the chunk starts.
    pub first_line: usize,
    /// The chunk's own text (marker lines excluded).
    pub text: &'s str,
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
pub fn split(src: &str) -> Vec<Chunk<'_>> {
    let mut chunks = Vec::new();
    let (mut start, mut first_line, mut pos) = (0, 0, 0);
    for (i, line) in src.split_inclusive('\n').enumerate() {
        let bare = line.strip_suffix('\n').unwrap_or(line);
        let bare = bare.strip_suffix('\r').unwrap_or(bare);
        if is_marker(bare) {
            chunks.push(Chunk {
                first_line,
                text: &src[start..pos],
            });
            start = pos + line.len();
            first_line = i + 1;
        }
        pos += line.len();
    }
    chunks.push(Chunk {
        first_line,
        text: &src[start..],
    });
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
        assert_eq!((c[1].first_line, c[1].text), (3, "c\n\n"));
        assert_eq!((c[2].first_line, c[2].text), (6, "d"));
        assert_eq!(split("x\n").len(), 1);
    }

    #[test]
    fn join_puts_markers_between() {
        let j = join(&["a\n".into(), String::new(), "c".into()]);
        assert_eq!(j, "a\n// -----\n// -----\nc");
    }
}
