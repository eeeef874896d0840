//! Small helpers: a self-deleting temporary directory, shell quoting for RUN lines, and
//! unified diffs.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A temporary directory removed (with its contents) when dropped.
/// Registered with [`xir_sysio::cleanup`], so SIGINT and SIGTERM remove it too.
#[derive(Debug)]
pub struct TempDir {
    path: PathBuf,
    _registered: xir_sysio::cleanup::Registration,
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

impl TempDir {
    /// Creates `$TMPDIR/xir-tools-<pid>-<n>-<tag>`.
    pub fn new(tag: &str) -> std::io::Result<TempDir> {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("xir-tools-{}-{n}-{tag}", std::process::id()));
        let _registered = xir_sysio::cleanup::register(&path, true);
        if path.exists() {
            std::fs::remove_dir_all(&path)?;
        }
        std::fs::create_dir_all(&path)?;
        Ok(TempDir { path, _registered })
    }
    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// A path inside it.
    pub fn join(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Quotes `s` for a lit RUN line (and POSIX sh): unchanged when it is made only of
/// characters neither treats specially, single-quoted otherwise.
pub fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'-' | b'_' | b'.' | b'/' | b'=' | b'%' | b':' | b'+' | b'@'
                )
        });
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// A unified diff of `before` and `after` with 3 lines of context, headed by the two
/// names; empty when the texts are equal.
pub fn unified_diff(before: &str, after: &str, name_before: &str, name_after: &str) -> String {
    if before == after {
        return String::new();
    }
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(name_before, name_after)
        .to_string()
}

/// Lines of `text` that are lit or FileCheck directives: a `//` comment holding
/// `WORD:` or `WORD-SUFFIX:` where WORD is upper-case (`RUN:`, `CHECK-NEXT:`,
/// `REQUIRES:`, `EXPECT:` …).
pub fn is_directive_line(line: &str) -> bool {
    let t = line.trim_start();
    let Some(rest) = t.strip_prefix("//") else {
        return false;
    };
    directive_word(rest).is_some()
}

/// The directive word (`CHECK-NEXT`) of a comment body, if it has one.
pub fn directive_word(comment: &str) -> Option<&str> {
    let t = comment.trim_start();
    let end = t
        .bytes()
        .position(|b| !(b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_' || b == b'-'))
        .unwrap_or(t.len());
    let word = &t[..end];
    let first_upper = word.bytes().next().is_some_and(|b| b.is_ascii_uppercase());
    (first_upper && t[end..].starts_with(':')).then_some(word)
}

/// `text` without its directive lines (see [`is_directive_line`]), with leading blank
/// lines dropped.
pub fn strip_directives(text: &str) -> String {
    let kept: Vec<&str> = text.lines().filter(|l| !is_directive_line(l)).collect();
    let first = kept
        .iter()
        .position(|l| !l.trim().is_empty())
        .unwrap_or(kept.len());
    let mut out = kept[first..].join("\n");
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("--passes=dce"), "--passes=dce");
        assert_eq!(shell_quote("a,b{x}"), "'a,b{x}'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }

    #[test]
    fn directives() {
        assert!(is_directive_line("// RUN: xir-opt %s"));
        assert!(is_directive_line("  // CHECK-NEXT: foo"));
        assert!(is_directive_line("// EXPECT-COUNT-2: x"));
        assert!(!is_directive_line("// users: %1 %2"));
        assert!(!is_directive_line("%1: u32 = x; // RUN: not at line start"));
        assert!(!is_directive_line("// Note: prose"));
        assert_eq!(
            strip_directives("// RUN: x\n\nmodule;\n// CHECK: y\n// a comment\n"),
            "module;\n// a comment\n"
        );
    }

    #[test]
    fn temp_dir_cleans_up() {
        let p;
        {
            let t = TempDir::new("t").unwrap();
            p = t.path().to_path_buf();
            std::fs::write(t.join("f"), "x").unwrap();
            assert!(p.exists());
        }
        assert!(!p.exists());
    }

    #[test]
    fn diffs() {
        assert_eq!(unified_diff("a\n", "a\n", "x", "y"), "");
        let d = unified_diff("a\nb\n", "a\nc\n", "before", "after");
        assert!(d.contains("--- before\n+++ after\n"));
        assert!(d.contains("-b\n+c\n"));
    }
}
