//! Running one test file: gating, substitution, execution, and lit's result codes.

use super::commands::CommandTable;
use super::directives::{self, TestDirectives};
use super::exec::{Env, run_script};
use super::shell;
use super::subst::{self, TestPaths};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// lit's result codes (those this runner can produce).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Every RUN line succeeded.
    Pass,
    /// A RUN line failed.
    Fail,
    /// Failed, as `XFAIL:` said it would.
    XFail,
    /// Passed although `XFAIL:` said it would fail: a failure.
    XPass,
    /// `REQUIRES:` not met or `UNSUPPORTED:` met; not run.
    Unsupported,
    /// The file could not be run at all (no RUN line, bad directive, bad RUN syntax).
    Unresolved,
    /// It ran past the suite's time limit ([`Suite::timeout`]); a child process still
    /// running was killed with its process group.
    Timeout,
}

impl Status {
    /// Whether this result fails the suite (FAIL, XPASS, UNRESOLVED, TIMEOUT).
    pub fn is_failure(self) -> bool {
        matches!(
            self,
            Status::Fail | Status::XPass | Status::Unresolved | Status::Timeout
        )
    }
    /// lit's spelling.
    pub fn name(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::XFail => "XFAIL",
            Status::XPass => "XPASS",
            Status::Unsupported => "UNSUPPORTED",
            Status::Unresolved => "UNRESOLVED",
            Status::Timeout => "TIMEOUT",
        }
    }
}

/// The result of one test file.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Result code.
    pub status: Status,
    /// Transcript: each RUN line, each command, its output and status.
    pub log: String,
    /// Wall time.
    pub elapsed: Duration,
}

/// A test suite: where tests live, where temporaries go, the commands and features.
pub struct Suite {
    /// Programs RUN lines may use.
    pub table: CommandTable,
    /// Available features.
    pub features: BTreeSet<String>,
    /// Root of the test files (test names are relative to it).
    pub source_root: PathBuf,
    /// Root of per-test temporaries (`%t`).
    pub tmp_root: PathBuf,
    /// Time limit for each test (lit's `--timeout`, `lit_config.maxIndividualTestTime`).
    /// No command starts after it; a program run as a child process is killed with its
    /// process group when it passes. The in-process tools (`xir-opt`, FileCheck) cannot
    /// be interrupted: one still running then finishes its command first.
    pub timeout: Option<Duration>,
}

/// Why RUN lines did not all succeed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// A RUN line could not be parsed, or the scratch directory made (UNRESOLVED).
    Unresolved,
    /// A RUN line failed (FAIL).
    Failed,
    /// The time limit passed (TIMEOUT).
    TimedOut,
}

impl Suite {
    /// The standard suite: [`CommandTable::standard`] and detected features.
    pub fn standard(source_root: impl Into<PathBuf>, tmp_root: impl Into<PathBuf>) -> Suite {
        Suite {
            table: CommandTable::standard(),
            features: super::features::detect(),
            source_root: source_root.into(),
            tmp_root: tmp_root.into(),
            timeout: None,
        }
    }

    /// The test's path relative to the suite root (its name).
    pub fn name_of(&self, path: &Path) -> String {
        path.strip_prefix(&self.source_root)
            .unwrap_or(path)
            .display()
            .to_string()
    }

    /// Substitution paths for a test file.
    pub fn paths_for(&self, path: &Path) -> TestPaths {
        let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let root = std::path::absolute(&self.source_root).unwrap_or(self.source_root.clone());
        // A test outside the suite root keeps a scratch directory of its own: its
        // absolute directory mirrored under the temporary root (two `x.xir` from
        // different directories never share a `%t`).
        let rel_dir = match abs.strip_prefix(&root) {
            Ok(rel) => rel.parent().map(Path::to_path_buf).unwrap_or_default(),
            Err(_) => {
                let dir = abs.parent().unwrap_or(Path::new(""));
                Path::new("abs").join(dir.strip_prefix("/").unwrap_or(dir))
            }
        };
        TestPaths::new(&abs, &self.tmp_root, &rel_dir)
    }

    /// Which gating lines stop the test from running, if any.
    pub fn gate(&self, d: &TestDirectives) -> Option<String> {
        let missing: Vec<&str> = d
            .requires
            .iter()
            .filter(|(_, e)| !e.eval(&self.features))
            .map(|(s, _)| s.as_str())
            .collect();
        if !missing.is_empty() {
            return Some(format!(
                "Test requires the following unavailable features: {}",
                missing.join(", ")
            ));
        }
        let hit: Vec<&str> = d
            .unsupported
            .iter()
            .filter(|(_, e)| e.eval(&self.features))
            .map(|(s, _)| s.as_str())
            .collect();
        (!hit.is_empty()).then(|| {
            format!(
                "Test does not support the following features and/or targets: {}",
                hit.join(", ")
            )
        })
    }

    /// Runs the RUN lines of a parsed file; `Ok` if all succeeded.
    pub fn run_lines(
        &self,
        path: &Path,
        d: &TestDirectives,
        log: &mut String,
    ) -> Result<(), RunError> {
        let deadline = self.timeout.map(|t| Instant::now() + t);
        let paths = self.paths_for(path);
        let cwd = paths
            .tmp_dir()
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| self.tmp_root.clone());
        // The temporary directory is made up front only for tests that name it; for the
        // others, a command that resolves a relative path makes the working directory
        // when it needs it ([`super::commands::ensure_dir`]). Most tests never touch the
        // disk, and `xir-reduce --lit` runs a test for every candidate.
        if d.run.iter().any(|r| subst::mentions_tmp(&r.command))
            && let Err(e) = std::fs::create_dir_all(paths.tmp_dir())
        {
            let _ = writeln!(
                log,
                "error: cannot create '{}': {e}",
                paths.tmp_dir().display()
            );
            return Err(RunError::Unresolved);
        }
        let env = Env {
            table: &self.table,
            cwd: &cwd,
            tmp_root: &self.tmp_root,
            deadline,
        };
        for r in &d.run {
            let expanded = paths.expand(&r.command);
            let _ = writeln!(log, "RUN: at line {}: {}", r.line, r.command);
            let script = match shell::parse(&expanded) {
                Ok(s) => s,
                Err(e) => {
                    let _ = writeln!(log, "error: cannot parse RUN line {}: {e}", r.line);
                    return Err(RunError::Unresolved);
                }
            };
            let status = run_script(&env, &script, log);
            if env.timed_out() {
                let _ = writeln!(
                    log,
                    "error: Reached timeout of {} seconds (RUN line {})",
                    self.timeout.map_or(0.0, |t| t.as_secs_f64()),
                    r.line
                );
                return Err(RunError::TimedOut);
            }
            if status != 0 {
                let _ = writeln!(log, "error: RUN line {} failed", r.line);
                return Err(RunError::Failed);
            }
        }
        Ok(())
    }

    /// Runs one test file.
    pub fn run_file(&self, path: &Path) -> Outcome {
        let start = Instant::now();
        let mut log = String::new();
        let status = self.run_file_inner(path, &mut log);
        Outcome {
            status,
            log,
            elapsed: start.elapsed(),
        }
    }

    fn run_file_inner(&self, path: &Path, log: &mut String) -> Status {
        let src = match xir_sysio::limit::read_file(path) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(e) => {
                let _ = writeln!(log, "error: cannot read '{}': {e}", path.display());
                return Status::Unresolved;
            }
        };
        let d = match directives::parse(&src) {
            Ok(d) => d,
            Err(e) => {
                let _ = writeln!(log, "error: {}:{e}", path.display());
                return Status::Unresolved;
            }
        };
        if d.run.is_empty() {
            let _ = writeln!(log, "error: Test has no 'RUN:' line");
            return Status::Unresolved;
        }
        if let Some(why) = self.gate(&d) {
            let _ = writeln!(log, "{why}");
            let required = super::features::required();
            let absent: Vec<&String> = required
                .iter()
                .filter(|f| !self.features.contains(*f))
                .collect();
            if d.requires
                .iter()
                .any(|(s, _)| absent.iter().any(|f| s.contains(f.as_str())))
            {
                let _ = writeln!(
                    log,
                    "error: XIR_REQUIRE_FEATURES makes these missing features an error: {}",
                    absent
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                return Status::Fail;
            }
            return Status::Unsupported;
        }
        let xfail: Vec<&str> = d
            .xfail
            .iter()
            .filter(|(_, e)| e.eval(&self.features))
            .map(|(s, _)| s.as_str())
            .collect();
        match (self.run_lines(path, &d, log), xfail.is_empty()) {
            (Err(RunError::Unresolved), _) => Status::Unresolved,
            (Err(RunError::TimedOut), _) => Status::Timeout,
            (Ok(()), true) => Status::Pass,
            (Err(_), true) => Status::Fail,
            (Err(_), false) => Status::XFail,
            (Ok(()), false) => {
                let _ = writeln!(
                    log,
                    "error: test passed unexpectedly (XFAIL: {})",
                    xfail.join(", ")
                );
                Status::XPass
            }
        }
    }
}
