//! Corpus tests as predicates: a test file's RUN lines, run in-process by the harness's
//! lit interpreter (`xir_lit`), with every `xir-opt` command that carries a
//! pipeline edited (a `--bisect-limit`, or a replacement pipeline).
//!
//! The test is bad when its RUN lines fail (lit's FAIL, or XFAIL for a test marked so).
//! A test that cannot run (UNRESOLVED, UNSUPPORTED) is undecided: the tools stop rather
//! than guess. Bisection needs exactly one `xir-opt` command with a pipeline per run, so
//! the invocation numbers mean one thing.

use crate::opt::{FailureClass, OptOutput, OptRunner};
use crate::oracle::Oracle;
use crate::predicate::{Edit, Undecided, Verdict};
use crate::util::TempDir;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use xir_lit::commands::{CommandTable, ExitStatus, Io};
use xir_lit::runner::{Status, Suite};

/// One `xir-opt` run inside a test.
#[derive(Clone, Debug)]
pub struct Captured {
    /// The arguments as the RUN line wrote them.
    pub args: Vec<String>,
    /// Whether they carried a pipeline (and so were edited).
    pub edited: bool,
    /// What it produced.
    pub output: OptOutput,
}

/// Whether `xir-opt ARGS` names a pipeline.
pub fn has_pipeline(args: &[String]) -> bool {
    xir_driver::cli::canonical_args(args).iter().any(|a| {
        a == "--passes"
            || a == "--pipeline"
            || a.starts_with("--passes=")
            || a.starts_with("--pipeline=")
    })
}

/// The command table of a predicate run: the standard one, with `xir-opt` replaced by
/// a wrapper that applies `edit` and records every run into `log`.
pub fn edited_table(
    runner: Arc<dyn OptRunner>,
    edit: Edit,
    log: Arc<Mutex<Vec<Captured>>>,
) -> CommandTable {
    let mut t = CommandTable::standard();
    t.register("xir-opt", move |io: &mut Io<'_>| {
        let edited = has_pipeline(io.args);
        let args = if edited {
            edit.apply(io.args)
        } else {
            io.args.to_vec()
        };
        let out = runner.run(&args, io.stdin);
        let _ = io.stdout.write_all(&out.stdout);
        let _ = io.stderr.write_all(&out.stderr);
        let status = ExitStatus {
            code: out.code,
            crashed: out.class() == FailureClass::Crash,
        };
        if let Ok(mut l) = log.lock() {
            l.push(Captured {
                args: io.args.to_vec(),
                edited,
                output: out,
            });
        }
        status
    });
    t
}

/// A corpus test file as an oracle. The input it is evaluated on is the whole test
/// file text (directives and module).
pub struct LitOracle {
    runner: Arc<dyn OptRunner>,
    test: PathBuf,
    shown: String,
    original: Vec<u8>,
    args: Vec<String>,
    features: std::collections::BTreeSet<String>,
    /// One scratch directory for every candidate run (creating and deleting a fresh
    /// directory per candidate cost 5-7 ms each on a busy disk); the lock keeps two
    /// evaluations from sharing it at once.
    scratch: Mutex<TempDir>,
}

impl LitOracle {
    /// An oracle for `test`; reads it and records the arguments of its `xir-opt`
    /// command with a pipeline.
    pub fn new(runner: Arc<dyn OptRunner>, test: &Path) -> Result<LitOracle, String> {
        let original = xir_sysio::limit::read_file(test).map_err(|e| {
            format!(
                "cannot read '{}': {}",
                test.display(),
                xir_sysio::stdio::cause(&e)
            )
        })?;
        let mut o = LitOracle {
            runner,
            test: std::path::absolute(test).unwrap_or_else(|_| test.to_path_buf()),
            shown: test.display().to_string(),
            original,
            args: Vec::new(),
            features: xir_lit::features::detect(),
            scratch: Mutex::new(TempDir::new("lit").map_err(|e| e.to_string())?),
        };
        let (_, caps, _) = o.run(&o.original.clone(), &Edit::none()).map_err(|u| u.0)?;
        let with: Vec<&Captured> = caps.iter().filter(|c| c.edited).collect();
        match with.as_slice() {
            [] => {
                return Err(format!(
                    "{}: no RUN line runs xir-opt with --passes or --pipeline",
                    test.display()
                ));
            }
            [c] => o.args = input_free(&c.args),
            _ => {
                return Err(format!(
                    "{}: {} xir-opt commands carry a pipeline; bisection needs exactly one",
                    test.display(),
                    with.len()
                ));
            }
        }
        Ok(o)
    }

    /// The test file's path.
    pub fn test(&self) -> &Path {
        &self.test
    }

    /// The test file's text.
    pub fn original(&self) -> &[u8] {
        &self.original
    }

    /// Runs the test with `text` as its content.
    fn run(&self, text: &[u8], edit: &Edit) -> Result<(Status, Vec<Captured>, String), Undecided> {
        let tmp = self
            .scratch
            .lock()
            .map_err(|_| Undecided("the scratch directory lock is poisoned".into()))?;
        // Whatever a previous candidate left under %t must not leak into this run.
        let tmp_root = tmp.join("tmp");
        if tmp_root.exists() {
            std::fs::remove_dir_all(&tmp_root).map_err(|e| Undecided(e.to_string()))?;
        }
        let path = if text == self.original.as_slice() {
            self.test.clone()
        } else {
            let name = self
                .test
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "test.xir".into());
            let p = tmp.join(&name);
            let dir = self.test.parent().unwrap_or(Path::new("."));
            let text = pin_source_dir(&String::from_utf8_lossy(text), dir);
            std::fs::write(&p, text).map_err(|e| Undecided(e.to_string()))?;
            p
        };
        let log = Arc::new(Mutex::new(Vec::new()));
        let root = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let suite = Suite {
            table: edited_table(self.runner.clone(), edit.clone(), log.clone()),
            features: self.features.clone(),
            source_root: root,
            tmp_root,
            timeout: None,
        };
        let outcome = suite.run_file(&path);
        let caps = log.lock().map(|l| l.clone()).unwrap_or_default();
        Ok((outcome.status, caps, outcome.log))
    }
}

/// `text` with `%S`, `%p` (and `%/S`, `%/p`) in its RUN lines replaced by `dir`: a
/// candidate is written to a temporary directory, but its RUN lines must still find
/// the files next to the original test.
pub fn pin_source_dir(text: &str, dir: &Path) -> String {
    let d = dir.display().to_string();
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        if line.contains("RUN:") {
            out.push_str(
                &line
                    .replace("%/S", &d)
                    .replace("%/p", &d)
                    .replace("%S", &d)
                    .replace("%p", &d),
            );
        } else {
            out.push_str(line);
        }
    }
    out
}

/// `args` without the positional input (`%s` or `-`) and `-o FILE`.
fn input_free(args: &[String]) -> Vec<String> {
    let args = &xir_driver::cli::canonical_args(args);
    const VALUE_FLAGS: &[&str] = &[
        "--passes",
        "--pipeline",
        "--emit",
        "--verify-options",
        "--bisect-limit",
    ];
    let mut out = Vec::new();
    let (mut skip, mut keep_next) = (false, false);
    for a in args {
        if skip {
            skip = false;
            continue;
        }
        if a == "-o" {
            skip = true;
            continue;
        }
        if VALUE_FLAGS.contains(&a.as_str()) {
            out.push(a.clone());
            keep_next = true;
            continue;
        }
        if keep_next {
            keep_next = false;
            out.push(a.clone());
            continue;
        }
        if a == "-" || !a.starts_with('-') {
            continue;
        }
        out.push(a.clone());
    }
    out
}

impl Oracle for LitOracle {
    fn eval(&self, input: &[u8], edit: &Edit) -> Result<Verdict, Undecided> {
        let (status, caps, log) = self.run(input, edit)?;
        let bad = match status {
            Status::Pass | Status::XPass => false,
            Status::Fail | Status::XFail => true,
            Status::Unsupported | Status::Unresolved | Status::Timeout => {
                return Err(Undecided(format!(
                    "the test is {}:\n{}",
                    status.name(),
                    log.trim_end()
                )));
            }
        };
        let edited: Vec<&Captured> = caps.iter().filter(|c| c.edited).collect();
        if edit.limit.is_some() && edited.len() > 1 {
            return Err(Undecided(format!(
                "{} xir-opt commands carry a pipeline; bisection needs exactly one",
                edited.len()
            )));
        }
        let opt = edited
            .last()
            .map(|c| c.output.clone())
            .or_else(|| caps.last().map(|c| c.output.clone()))
            .unwrap_or_default();
        Ok(Verdict {
            bad,
            class: opt.class(),
            opt,
            detail: log,
        })
    }
    fn describe(&self) -> String {
        format!("the RUN lines of {} fail", self.shown)
    }
    fn opt_args(&self) -> Vec<String> {
        self.args.clone()
    }
    fn runner(&self) -> &dyn OptRunner {
        self.runner.as_ref()
    }
}

/// The regression test for a corpus-test bisection: the test itself with a header
/// naming the first bad invocation.
pub fn regression_test(original: &str, index: u64, path: &str, failure: &str) -> String {
    format!(
        "// Regression test written by xir-bisect.\n\
         // First bad pass invocation: ({index}) {path}\n\
         // Failure: {failure}.\n\
         // It fails with --bisect-limit={index} and passes with --bisect-limit={}.\n\
         {original}",
        index - 1
    )
}

/// Checks the written corpus-test regression test.
pub fn verify_regression(oracle: &LitOracle, text: &str, index: u64) -> Result<(), String> {
    let bad = oracle
        .eval(text.as_bytes(), &Edit::limit(index as i64))
        .map_err(|e| e.to_string())?;
    let good = oracle
        .eval(text.as_bytes(), &Edit::limit(index as i64 - 1))
        .map_err(|e| e.to_string())?;
    match (bad.bad, good.bad) {
        (true, false) => Ok(()),
        (false, _) => Err(format!("it passes with --bisect-limit={index}")),
        (true, true) => Err(format!("it fails with --bisect-limit={}", index - 1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_dir_is_pinned_in_run_lines_only() {
        let t = "// RUN: xir-opt %s --pipeline=%S/p.xpl | x %/p\n%p: i32 = phi (%S, %b);\n";
        assert_eq!(
            pin_source_dir(t, Path::new("/d")),
            "// RUN: xir-opt %s --pipeline=/d/p.xpl | x /d\n%p: i32 = phi (%S, %b);\n"
        );
    }

    #[test]
    fn pipeline_detection_and_input_removal() {
        let a = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert!(has_pipeline(&a(&["x", "--passes=dce"])));
        assert!(has_pipeline(&a(&["--pipeline", "cleanup"])));
        assert!(!has_pipeline(&a(&["x", "--verify-each"])));
        // The LLVM spellings xir-opt accepts (issue 15, items 13 and 14).
        assert!(has_pipeline(&a(&["x", "-passes=dce"])));
        assert!(has_pipeline(&a(&["x", "--pass-pipeline=dce"])));
        assert!(has_pipeline(&a(&["x", "-pass-pipeline", "dce"])));
        assert!(has_pipeline(&a(&["-pipeline", "cleanup"])));
        assert!(!has_pipeline(&a(&["--", "-passes=dce"])));
        assert_eq!(
            input_free(&a(&[
                "/t/x.xir",
                "--passes=dce",
                "-o",
                "%t",
                "-",
                "--verify-each"
            ])),
            a(&["--passes=dce", "--verify-each"])
        );
        assert_eq!(
            input_free(&a(&[
                "--pipeline",
                "cleanup",
                "x.xir",
                "--emit",
                "xir-flat"
            ])),
            a(&["--pipeline", "cleanup", "--emit", "xir-flat"])
        );
    }
}
