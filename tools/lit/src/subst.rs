//! lit's `%` substitutions in RUN lines.
//!
//! | Text | Becomes |
//! |---|---|
//! | `%s` | the test file's absolute path |
//! | `%S`, `%p` | its directory |
//! | `%t` | a per-test temporary path, `<tmp-root>/<dir>/Output/<file>.tmp` |
//! | `%T` | the directory of `%t` |
//! | `%basename_t`, `%{t:stem}` | the file name of `%t` without `.tmp` |
//! | `%{s:basename}`, `%{s:stem}` | the test file's name, with and without extension |
//! | `%{pathsep}`, `%{fs-sep}` | `:` and `/` |
//! | `%%` | a literal `%` |
//!
//! `%/s`, `%/S`, `%/p`, `%/t`, `%/T` are accepted too (the same paths on Unix).
//! Anything else after `%` is left alone, as lit does.

use std::path::{Path, PathBuf};

/// The paths one test's substitutions are made from.
#[derive(Clone, Debug)]
pub struct TestPaths {
    /// Absolute path of the test file.
    pub source: PathBuf,
    /// `%t`: `<tmp dir>/<file name>.tmp`.
    pub tmp: PathBuf,
}

impl TestPaths {
    /// Paths for `source`, with temporaries under `tmp_root` mirroring `rel_dir` (the
    /// test's directory relative to the suite root), in an `Output` folder as lit does.
    pub fn new(source: &Path, tmp_root: &Path, rel_dir: &Path) -> TestPaths {
        let name = source
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = tmp_root
            .join(rel_dir)
            .join("Output")
            .join(format!("{name}.tmp"));
        TestPaths {
            source: source.to_path_buf(),
            tmp,
        }
    }

    /// `%T`: the directory holding `%t`.
    pub fn tmp_dir(&self) -> PathBuf {
        self.tmp.parent().map(Path::to_path_buf).unwrap_or_default()
    }

    /// `%S`: the test's directory.
    pub fn source_dir(&self) -> PathBuf {
        self.source
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    }

    fn table(&self) -> Vec<(&'static str, String)> {
        let s = self.source.display().to_string();
        let dir = self.source_dir().display().to_string();
        let t = self.tmp.display().to_string();
        let tdir = self.tmp_dir().display().to_string();
        let file = self
            .source
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let stem = self
            .source
            .file_stem()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // Longest keys first where one is a prefix of another.
        vec![
            ("%basename_t", file.clone()),
            ("%{s:basename}", file.clone()),
            ("%{s:stem}", stem),
            ("%{t:stem}", file),
            ("%{pathsep}", ":".into()),
            ("%{fs-sep}", "/".into()),
            ("%/s", s.clone()),
            ("%/S", dir.clone()),
            ("%/p", dir.clone()),
            ("%/t", t.clone()),
            ("%/T", tdir.clone()),
            ("%%", "%".into()),
            ("%s", s),
            ("%S", dir.clone()),
            ("%p", dir),
            ("%t", t),
            ("%T", tdir),
        ]
    }

    /// Applies every substitution to one RUN command, left to right.
    pub fn expand(&self, cmd: &str) -> String {
        let table = self.table();
        let mut out = String::with_capacity(cmd.len());
        let mut rest = cmd;
        while let Some(p) = rest.find('%') {
            out.push_str(&rest[..p]);
            let here = &rest[p..];
            match table.iter().find(|(k, _)| here.starts_with(k)) {
                Some((k, v)) => {
                    out.push_str(v);
                    rest = &here[k.len()..];
                }
                None => {
                    out.push('%');
                    rest = &here[1..];
                }
            }
        }
        out.push_str(rest);
        out
    }
}

/// Whether a RUN command names the test's temporary path or directory (`%t`, `%T` and
/// their spellings), so that directory must exist before it runs. `%%t` counts too: a
/// false positive only costs a directory.
pub fn mentions_tmp(cmd: &str) -> bool {
    ["%t", "%T", "%/t", "%/T", "%basename_t", "%{t:stem}"]
        .iter()
        .any(|k| cmd.contains(k))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_like_lit() {
        let p = TestPaths::new(
            Path::new("/src/corpus/driver/a.xir"),
            Path::new("/tmp/root"),
            Path::new("driver"),
        );
        assert_eq!(
            p.expand("x %s %S %t %T %% %%s %basename_t %{s:stem} %q"),
            "x /src/corpus/driver/a.xir /src/corpus/driver /tmp/root/driver/Output/a.xir.tmp \
             /tmp/root/driver/Output % %s a.xir a %q"
        );
        assert_eq!(p.expand("%t.out"), "/tmp/root/driver/Output/a.xir.tmp.out");
    }

    #[test]
    fn temporary_mentions() {
        for c in [
            "x > %t",
            "cat %T/a",
            "x %/t",
            "echo %basename_t",
            "x %{t:stem}",
        ] {
            assert!(mentions_tmp(c), "{c}");
        }
        for c in [
            "xir-opt %s | xir-filecheck %s",
            "x %S/Inputs/a",
            "x %{s:stem}",
        ] {
            assert!(!mentions_tmp(c), "{c}");
        }
    }
}
