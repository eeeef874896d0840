//! Failure predicates: "is this `xir-opt` run bad?".
//!
//! A predicate is evaluated on one input module and one `xir-opt` argument list (the
//! caller has already added `--bisect-limit` or swapped the pipeline with an [`Edit`]).
//! Every evaluation returns a [`Verdict`] that also records how `xir-opt` itself ended,
//! so callers can insist on the *same* failure (a reducer or minimizer that wanders from
//! a CHECK failure to a crash has found a different bug).
//!
//! | predicate | bad when |
//! |---|---|
//! | [`Predicate::Check`] | `xir-opt` fails, or `xir-filecheck FILE` rejects its output |
//! | [`Predicate::Crash`] | `xir-opt` crashes (a pass panicked; status 2 or a signal) |
//! | [`Predicate::Refusal`] | an `abort-on-refusal` entry refused |
//! | [`Predicate::Verifier`] | the verifier rejected the module after a pass |
//! | [`Predicate::Failure`] | `xir-opt` exits non-zero for any reason |
//! | [`Predicate::Semantics`] | `xir-opt --check-semantics=N` finds a pass that changed interpreted results |
//! | [`Predicate::SpirvVal`] | `xir-opt` fails, or `spirv-val` rejects its output |
//! | [`Predicate::Command`] | `sh -c CMD` exits 1–127 except 125 (git-bisect-run style) |
//! | `Lit` (see `crate::lit`) | the corpus test's RUN lines fail |

use crate::opt::{
    FailureClass, OptOutput, OptRunner, run_program, run_program_limited, strip_flag, with_limit,
    with_passes,
};
use crate::util::TempDir;
use std::path::PathBuf;

/// A change to every `xir-opt` command line of an evaluation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Edit {
    /// Add `--bisect-limit=N` (replacing any).
    pub limit: Option<i64>,
    /// Replace the pipeline by `--passes=TEXT`.
    pub passes: Option<String>,
    /// Append these arguments.
    pub extra: Vec<String>,
}

impl Edit {
    /// No change.
    pub fn none() -> Edit {
        Edit::default()
    }
    /// Only a bisect limit.
    pub fn limit(n: i64) -> Edit {
        Edit {
            limit: Some(n),
            ..Edit::default()
        }
    }
    /// Only a new pipeline.
    pub fn passes(text: &str) -> Edit {
        Edit {
            passes: Some(text.to_string()),
            ..Edit::default()
        }
    }
    /// `args` with this edit applied.
    pub fn apply(&self, args: &[String]) -> Vec<String> {
        // Match flags in one spelling: `-passes=`, `--pass-pipeline=` are `--passes=`.
        let mut a = xir_driver::cli::canonical_args(args);
        if let Some(p) = &self.passes {
            a = with_passes(&a, p);
        }
        if let Some(n) = self.limit {
            a = with_limit(&a, n);
        }
        a.extend(self.extra.iter().cloned());
        a
    }
}

/// What makes a run bad.
#[derive(Clone, Debug)]
pub enum Predicate {
    /// `xir-filecheck FILE ARGS` rejects the output (ARGS: `--check-prefix=…` etc.).
    Check {
        /// The check file.
        file: PathBuf,
        /// Extra FileCheck arguments.
        args: Vec<String>,
    },
    /// A crash.
    Crash,
    /// A refusal of an `abort-on-refusal` entry.
    Refusal,
    /// A verifier failure.
    Verifier,
    /// Any non-zero exit.
    Failure,
    /// Interpreted results change: `xir-opt --check-semantics=N` (N generated inputs
    /// per kernel, results compared with the unoptimised module's) names a pass.
    Semantics {
        /// Inputs per kernel.
        runs: u32,
    },
    /// The Vulkan engine's results differ from the interpreter's on the output module
    /// ([`crate::engines`], `runs` generated inputs per kernel).
    EnginesDiffer {
        /// Inputs per kernel.
        runs: u32,
    },
    /// `spirv-val ARGS OUTPUT` rejects the output.
    SpirvVal {
        /// The validator.
        program: PathBuf,
        /// Its arguments (before the file).
        args: Vec<String>,
    },
    /// A shell command; see [`Predicate::Command`]'s module-level convention. Each run
    /// is limited as the [`OracleLimit`] says.
    Command(String, OracleLimit),
}

/// What a run of an external oracle command that ran past its time limit counts as.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum OnTimeout {
    /// Cannot tell: `xir-bisect` stops undecided (as for exit status 125), `xir-reduce`
    /// does not keep the candidate.
    #[default]
    Skip,
    /// Bad: `xir-bisect` counts the run as bad, `xir-reduce` as interesting (for
    /// hunting a hang).
    Bad,
}

/// A time limit for each run of `xir-bisect --cmd` / `xir-reduce --test`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct OracleLimit {
    /// At most this long per run (the command's process group is then killed).
    pub limit: Option<std::time::Duration>,
    /// What a timed-out run counts as.
    pub on_timeout: OnTimeout,
}

impl OracleLimit {
    /// A note for a timed-out run.
    pub fn describe_timeout(&self) -> String {
        format!(
            "the command ran past the --timeout of {} s and was killed (--on-timeout={})",
            self.limit.map_or(0.0, |l| l.as_secs_f64()),
            match self.on_timeout {
                OnTimeout::Skip => "skip",
                OnTimeout::Bad => "bad",
            }
        )
    }
}

/// The outcome of one evaluation.
#[derive(Clone, Debug)]
pub struct Verdict {
    /// The predicate holds: the run is bad.
    pub bad: bool,
    /// How `xir-opt` ended.
    pub class: FailureClass,
    /// The `xir-opt` run (for a corpus test: the one carrying the pipeline).
    pub opt: OptOutput,
    /// Why the predicate said what it said (FileCheck's message, the command's status).
    pub detail: String,
}

/// An evaluation that could not decide (a missing tool, a command asking to skip).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Undecided(pub String);

impl std::fmt::Display for Undecided {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Predicate {
    /// A one-line description for reports.
    pub fn describe(&self) -> String {
        match self {
            Predicate::Check { file, args } => {
                let mut s = format!("xir-filecheck {}", file.display());
                for a in args {
                    s.push(' ');
                    s.push_str(a);
                }
                format!("{s} rejects the output")
            }
            Predicate::Crash => "xir-opt crashes".into(),
            Predicate::Refusal => "a pass refuses (abort-on-refusal)".into(),
            Predicate::Verifier => "the verifier rejects the module".into(),
            Predicate::Failure => "xir-opt fails".into(),
            Predicate::Semantics { runs } => {
                format!("a pass changes interpreted results (--check-semantics={runs})")
            }
            Predicate::SpirvVal { program, .. } => {
                format!("{} rejects the output", program.display())
            }
            Predicate::EnginesDiffer { runs } => {
                format!("vulkan results differ from the interpreter's ({runs} inputs per kernel)")
            }
            Predicate::Command(c, _) => format!("`{c}` says bad"),
        }
    }

    /// Evaluates on `input` with `xir-opt ARGS` (input on standard input).
    pub fn eval(
        &self,
        runner: &dyn OptRunner,
        input: &[u8],
        args: &[String],
    ) -> Result<Verdict, Undecided> {
        let mut args = strip_flag(args, "-o");
        if let Predicate::Semantics { runs } = self {
            args.retain(|a| a != "--check-semantics" && !a.starts_with("--check-semantics="));
            args.push(format!("--check-semantics={runs}"));
        }
        if !args.iter().any(|a| a == "-") {
            args.push("-".into());
        }
        let opt = runner.run(&args, input);
        let class = opt.class();
        let verdict = |bad: bool, detail: String| Verdict {
            bad,
            class,
            opt: opt.clone(),
            detail,
        };
        let failed_detail =
            || format!("xir-opt exited with status {} ({})", opt.code, class.name());
        match self {
            Predicate::Crash => Ok(verdict(class == FailureClass::Crash, failed_detail())),
            Predicate::Refusal => Ok(verdict(class == FailureClass::Refusal, failed_detail())),
            Predicate::Verifier => Ok(verdict(class == FailureClass::Verifier, failed_detail())),
            Predicate::Failure => Ok(verdict(class != FailureClass::Success, failed_detail())),
            Predicate::Semantics { .. } => {
                let bad = class == FailureClass::Semantics;
                let detail = if bad {
                    opt.stderr_text()
                        .lines()
                        .find(|l| l.contains(crate::opt::SEMANTIC_CHANGE))
                        .unwrap_or_default()
                        .to_string()
                } else {
                    failed_detail()
                };
                Ok(verdict(bad, detail))
            }
            Predicate::Check { file, args } => {
                if class != FailureClass::Success {
                    return Ok(verdict(true, failed_detail()));
                }
                let mut fc = vec![file.display().to_string()];
                fc.extend(args.iter().cloned());
                let env = std::env::var("FILECHECK_OPTS").ok();
                let out = xir_filecheck::run_filecheck(&fc, &opt.stdout, env.as_deref());
                match out.code {
                    0 => Ok(verdict(false, "the CHECK lines match".into())),
                    1 => Ok(verdict(
                        true,
                        String::from_utf8_lossy(&out.stderr).into_owned(),
                    )),
                    c => Err(Undecided(format!(
                        "xir-filecheck could not run (status {c}): {}",
                        String::from_utf8_lossy(&out.stderr).trim_end()
                    ))),
                }
            }
            Predicate::EnginesDiffer { runs } => {
                if class != FailureClass::Success {
                    return Err(Undecided(format!(
                        "{}: no module to run on the engines",
                        failed_detail()
                    )));
                }
                let text = String::from_utf8_lossy(&opt.stdout);
                let (m, _) = xir_ir::text::parse_module(&text).map_err(|d| {
                    Undecided(format!(
                        "the output does not parse: {}",
                        d.first().map(|x| x.message.as_str()).unwrap_or_default()
                    ))
                })?;
                let options = xir_vulkan::Options {
                    validation: std::env::var("XIR_VULKAN_VALIDATION").as_deref() == Ok("1"),
                    ..Default::default()
                };
                match crate::engines::compare(&m, *runs, &options).map_err(Undecided)? {
                    crate::engines::EngineVerdict::Differ { text, .. } => Ok(verdict(true, text)),
                    crate::engines::EngineVerdict::Agree {
                        compared: 0,
                        skipped: Some(why),
                        ..
                    } => Err(Undecided(format!(
                        "no generated input was defined for the interpreter ({why})"
                    ))),
                    crate::engines::EngineVerdict::Agree { compared, .. } => Ok(verdict(
                        false,
                        format!("the engines agree on {compared} inputs"),
                    )),
                }
            }
            Predicate::SpirvVal { program, args } => {
                if class != FailureClass::Success {
                    return Ok(verdict(true, failed_detail()));
                }
                let dir = TempDir::new("spirv-val").map_err(|e| Undecided(e.to_string()))?;
                let f = dir.join("out.spv");
                std::fs::write(&f, &opt.stdout).map_err(|e| Undecided(e.to_string()))?;
                let mut a = args.clone();
                a.push(f.display().to_string());
                let out = run_program(program, &a, b"", &[]);
                match out.code {
                    0 => Ok(verdict(false, "spirv-val accepts the output".into())),
                    127 => Err(Undecided(out.stderr_text())),
                    c if c >= 128 => Err(Undecided(format!(
                        "{} crashed (status {c})",
                        program.display()
                    ))),
                    _ => Ok(verdict(true, out.stderr_text())),
                }
            }
            Predicate::Command(cmd, limit) => {
                let dir = TempDir::new("cmd").map_err(|e| Undecided(e.to_string()))?;
                let f = dir.join("output.xir");
                let e = dir.join("stderr.txt");
                std::fs::write(&f, &opt.stdout).map_err(|x| Undecided(x.to_string()))?;
                std::fs::write(&e, &opt.stderr).map_err(|x| Undecided(x.to_string()))?;
                let env = vec![
                    ("XIR_OPT_STATUS".to_string(), opt.code.to_string()),
                    ("XIR_OPT_CLASS".to_string(), class.name().to_string()),
                    ("XIR_OPT_STDERR".to_string(), e.display().to_string()),
                ];
                let (out, timed_out) = run_program_limited(
                    std::path::Path::new("sh"),
                    &[
                        "-c".into(),
                        format!("{cmd} \"$@\""),
                        "xir-bisect".into(),
                        f.display().to_string(),
                    ],
                    b"",
                    &env,
                    limit.limit,
                );
                if timed_out {
                    return match limit.on_timeout {
                        OnTimeout::Skip => Err(Undecided(limit.describe_timeout())),
                        OnTimeout::Bad => Ok(verdict(true, limit.describe_timeout())),
                    };
                }
                match out.code {
                    0 => Ok(verdict(false, "the command exited 0 (good)".into())),
                    125 => Err(Undecided(
                        "the command exited 125 (cannot tell)".to_string(),
                    )),
                    c if (1..128).contains(&c) => Ok(verdict(
                        true,
                        format!("the command exited {c} (bad)\n{}", out.stderr_text()),
                    )),
                    c => Err(Undecided(format!(
                        "the command exited {c}; statuses of 128 and above abort\n{}",
                        out.stderr_text()
                    ))),
                }
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::opt::OptRunner;

    /// A fake `xir-opt`: echoes its input, or fails as told by the first argument.
    pub struct Fake;
    impl OptRunner for Fake {
        fn run(&self, args: &[String], stdin: &[u8]) -> OptOutput {
            let mode = args.first().map(String::as_str).unwrap_or("");
            let (code, err) = match mode {
                "crash" => (2, "xir-opt: internal error: boom"),
                "refuse" => (1, "error: pass 'p/x' (invocation 1) refused: no"),
                "invalid" => (
                    1,
                    "error: the module is invalid after pass 'p/x' (invocation 1):",
                ),
                _ => (0, ""),
            };
            OptOutput {
                code,
                stdout: if code == 0 {
                    stdin.to_vec()
                } else {
                    Vec::new()
                },
                stderr: err.as_bytes().to_vec(),
            }
        }
        fn describe(&self) -> String {
            "fake".into()
        }
    }

    fn a(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn edits() {
        let base = a(&["--passes=a,b", "--verify-each"]);
        assert_eq!(Edit::none().apply(&base), base);
        assert_eq!(
            Edit {
                limit: Some(3),
                passes: Some("c".into()),
                extra: vec![],
            }
            .apply(&base),
            a(&["--verify-each", "--passes=c", "--bisect-limit=3"])
        );
        // LLVM spellings are replaced, not kept next to the new pipeline.
        let edit = Edit {
            limit: Some(1),
            passes: Some("c".into()),
            extra: vec![],
        };
        for old in [
            a(&["-passes=a,b", "-bisect-limit=7"]),
            a(&["--pass-pipeline=a,b", "--bisect-limit", "7"]),
            a(&["-pass-pipeline", "a,b", "-bisect-limit", "7"]),
            a(&["-pipeline=cleanup"]),
        ] {
            assert_eq!(
                edit.apply(&old),
                a(&["--passes=c", "--bisect-limit=1"]),
                "{old:?}"
            );
        }
    }

    #[test]
    fn failure_kinds() {
        let ev = |p: &Predicate, mode: &str| p.eval(&Fake, b"x", &a(&[mode])).unwrap();
        assert!(ev(&Predicate::Crash, "crash").bad);
        assert!(!ev(&Predicate::Crash, "refuse").bad);
        assert!(ev(&Predicate::Refusal, "refuse").bad);
        assert!(ev(&Predicate::Verifier, "invalid").bad);
        assert!(!ev(&Predicate::Verifier, "ok").bad);
        assert!(ev(&Predicate::Failure, "crash").bad);
        assert_eq!(
            ev(&Predicate::Failure, "invalid").class,
            FailureClass::Verifier
        );
    }

    #[test]
    fn check_file() {
        let dir = TempDir::new("pred").unwrap();
        let f = dir.join("c.txt");
        std::fs::write(&f, "// EXPECT: hello\n").unwrap();
        let p = Predicate::Check {
            file: f.clone(),
            args: a(&["--check-prefix=EXPECT"]),
        };
        assert!(!p.eval(&Fake, b"hello world\n", &[]).unwrap().bad);
        let v = p.eval(&Fake, b"bye\n", &[]).unwrap();
        assert!(v.bad && v.detail.contains("expected string not found"));
        assert!(p.eval(&Fake, b"hello\n", &a(&["crash"])).unwrap().bad);
        let missing = Predicate::Check {
            file: dir.join("none"),
            args: vec![],
        };
        assert!(missing.eval(&Fake, b"x", &[]).is_err());
    }

    #[test]
    fn spirv_val_convention() {
        // A stand-in validator: accepts a module containing "valid".
        let p = Predicate::SpirvVal {
            program: "sh".into(),
            args: a(&[
                "-c",
                "grep -q valid \"$0\" || { echo 'error: invalid' >&2; exit 1; }",
            ]),
        };
        assert!(!p.eval(&Fake, b"valid module", &[]).unwrap().bad);
        let v = p.eval(&Fake, b"broken module", &[]).unwrap();
        assert!(v.bad && v.detail.contains("error: invalid"), "{}", v.detail);
        // xir-opt failing is bad without running the validator.
        assert!(p.eval(&Fake, b"valid", &a(&["crash"])).unwrap().bad);
        // A missing validator cannot decide.
        let missing = Predicate::SpirvVal {
            program: "/nonexistent/spirv-val".into(),
            args: vec![],
        };
        assert!(missing.eval(&Fake, b"x", &[]).is_err());
    }

    #[test]
    fn command_convention() {
        let p = |c: &str| Predicate::Command(c.into(), OracleLimit::default());
        assert!(!p("grep -q hello").eval(&Fake, b"hello\n", &[]).unwrap().bad);
        assert!(p("grep -q hello").eval(&Fake, b"bye\n", &[]).unwrap().bad);
        assert!(p("exit 125; true").eval(&Fake, b"", &[]).is_err());
        assert!(p("exit 130; true").eval(&Fake, b"", &[]).is_err());
        let v = p("test \"$XIR_OPT_CLASS\" = crash && exit 1; exit 0; true")
            .eval(&Fake, b"", &a(&["crash"]))
            .unwrap();
        assert!(v.bad);
    }

    #[test]
    fn a_command_past_its_timeout_is_skip_or_bad_by_flag() {
        let limit = |on_timeout| OracleLimit {
            limit: Some(std::time::Duration::from_millis(300)),
            on_timeout,
        };
        let start = std::time::Instant::now();
        let skip = Predicate::Command("sleep 20; true".into(), limit(OnTimeout::Skip)).eval(
            &Fake,
            b"",
            &[],
        );
        let e = skip.expect_err("a timed-out run with --on-timeout=skip is undecided");
        assert!(e.0.contains("--timeout"), "{e}");
        let bad = Predicate::Command("sleep 20; true".into(), limit(OnTimeout::Bad))
            .eval(&Fake, b"", &[])
            .unwrap();
        assert!(bad.bad && bad.detail.contains("killed"), "{}", bad.detail);
        assert!(start.elapsed() < std::time::Duration::from_secs(5));
        // A quick command is unaffected by the limit.
        let quick = Predicate::Command("true".into(), limit(OnTimeout::Bad))
            .eval(&Fake, b"", &[])
            .unwrap();
        assert!(!quick.bad);
    }
}
