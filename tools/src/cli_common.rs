//! Command-line flags shared by `xir-bisect` and `xir-reduce` (the pipeline and the
//! in-process failure predicates), and their common process wrapper.

use crate::predicate::{OnTimeout, OracleLimit, Predicate};
use clap::Args;
use std::path::PathBuf;

/// `--passes`/`--pipeline` and the predicate flags.
#[derive(Clone, Debug, Args)]
pub struct OptPredicateArgs {
    /// Run these passes (xir-opt --passes)
    #[arg(long, value_name = "LIST", help_heading = "Pipeline")]
    pub passes: Option<String>,

    /// Run this pipeline (xir-opt --pipeline)
    #[arg(
        long,
        value_name = "NAME|FILE",
        conflicts_with = "passes",
        help_heading = "Pipeline"
    )]
    pub pipeline: Option<String>,

    /// Bad = xir-filecheck FILE rejects the output (or xir-opt fails)
    #[arg(long, value_name = "FILE", help_heading = "Predicate (choose one)")]
    pub check_file: Option<PathBuf>,

    /// FileCheck prefix for --check-file (repeatable; default CHECK)
    #[arg(
        long,
        value_name = "P",
        requires = "check_file",
        help_heading = "Predicate (choose one)"
    )]
    pub check_prefix: Vec<String>,

    /// Extra FileCheck argument for --check-file (repeatable)
    #[arg(
        long,
        value_name = "ARG",
        requires = "check_file",
        allow_hyphen_values = true,
        help_heading = "Predicate (choose one)"
    )]
    pub filecheck_arg: Vec<String>,

    /// Bad = xir-opt crashes (a pass panics)
    #[arg(long, help_heading = "Predicate (choose one)")]
    pub crash: bool,

    /// Bad = an abort-on-refusal entry refuses
    #[arg(long, help_heading = "Predicate (choose one)")]
    pub refusal: bool,

    /// Bad = the verifier rejects the module after a pass
    #[arg(long, help_heading = "Predicate (choose one)")]
    pub verifier: bool,

    /// Bad = xir-opt exits non-zero for any reason
    #[arg(long, help_heading = "Predicate (choose one)")]
    pub any_failure: bool,

    /// Bad = a pass changes interpreted results (xir-opt --check-semantics=N, N generated
    /// inputs per kernel; default 8)
    #[arg(
        long,
        value_name = "N",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "8",
        value_parser = clap::value_parser!(u32).range(1..=4096),
        help_heading = "Predicate (choose one)"
    )]
    pub semantics: Option<u32>,

    /// Bad = the Vulkan engine's results differ from the interpreter's on the output
    /// module (N generated inputs per kernel; default 4; give --pipeline=spirv-final)
    #[arg(
        long,
        value_name = "N",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "4",
        value_parser = clap::value_parser!(u32).range(1..=4096),
        help_heading = "Predicate (choose one)"
    )]
    pub engines_differ: Option<u32>,

    /// Bad = spirv-val rejects the output (give xir-opt its SPIR-V output flags after --)
    #[arg(long, help_heading = "Predicate (choose one)")]
    pub spirv_val: bool,

    /// The spirv-val program
    #[arg(
        long,
        value_name = "PATH",
        default_value = "spirv-val",
        help_heading = "Predicate (choose one)"
    )]
    pub spirv_val_path: PathBuf,

    /// Extra spirv-val argument (repeatable), e.g. --target-env=vulkan1.2
    #[arg(
        long,
        value_name = "ARG",
        allow_hyphen_values = true,
        help_heading = "Predicate (choose one)"
    )]
    pub spirv_val_arg: Vec<String>,
}

impl OptPredicateArgs {
    /// The predicate selected by these flags (not `--cmd`, `--test` or `--lit`).
    pub fn predicate(&self) -> Option<Predicate> {
        if let Some(f) = &self.check_file {
            let mut args: Vec<String> = self
                .check_prefix
                .iter()
                .map(|p| format!("--check-prefix={p}"))
                .collect();
            args.extend(self.filecheck_arg.iter().cloned());
            return Some(Predicate::Check {
                file: f.clone(),
                args,
            });
        }
        if self.crash {
            return Some(Predicate::Crash);
        }
        if self.refusal {
            return Some(Predicate::Refusal);
        }
        if self.verifier {
            return Some(Predicate::Verifier);
        }
        if self.any_failure {
            return Some(Predicate::Failure);
        }
        if let Some(runs) = self.semantics {
            return Some(Predicate::Semantics { runs });
        }
        if let Some(runs) = self.engines_differ {
            return Some(Predicate::EnginesDiffer { runs });
        }
        self.spirv_val.then(|| Predicate::SpirvVal {
            program: self.spirv_val_path.clone(),
            args: self.spirv_val_arg.clone(),
        })
    }

    /// The `xir-opt` arguments: the pipeline, then `extra`.
    pub fn xir_opt_args(&self, extra: &[String]) -> Vec<String> {
        let mut a = Vec::new();
        if let Some(p) = &self.passes {
            a.push(format!("--passes={p}"));
        }
        if let Some(p) = &self.pipeline {
            a.push(format!("--pipeline={p}"));
        }
        a.extend(extra.iter().cloned());
        a
    }
}

/// `--timeout`/`--on-timeout`: a time limit for each run of the external oracle command
/// (`xir-bisect --cmd`, `xir-reduce --test`).
#[derive(Clone, Debug, Args)]
pub struct OracleTimeoutArgs {
    /// Kill a run of the oracle command (its whole process group) after SECS seconds
    #[arg(long, value_name = "SECS", value_parser = parse_seconds, help_heading = "Oracle command")]
    pub timeout: Option<std::time::Duration>,

    /// What a killed run counts as: skip (cannot tell) or bad
    #[arg(
        long,
        value_enum,
        value_name = "HOW",
        default_value = "skip",
        requires = "timeout",
        help_heading = "Oracle command"
    )]
    pub on_timeout: OnTimeout,
}

impl OracleTimeoutArgs {
    /// The limit these flags give.
    pub fn limit(&self) -> OracleLimit {
        OracleLimit {
            limit: self.timeout,
            on_timeout: self.on_timeout,
        }
    }
}

/// A positive number of seconds (fractions allowed).
pub fn parse_seconds(s: &str) -> Result<std::time::Duration, String> {
    s.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v > 0.0 && *v < 1e9)
        .map(std::time::Duration::from_secs_f64)
        .ok_or_else(|| format!("'{s}' is not a positive number of seconds"))
}

/// A tool's `(args, stdin, stdout, stderr) -> status` entry point.
pub type ToolMain = fn(&[String], &[u8], &mut dyn std::io::Write, &mut dyn std::io::Write) -> i32;

/// The process wrapper of `xir-bisect` and `xir-reduce`: silences the panic hook (xir-opt
/// runs in this process and reports a panicking pass itself, status 2), installs the
/// SIGINT/SIGTERM scratch cleanup, reads standard input when `needs_stdin` says the
/// arguments take it, runs `main` with checked stdout, and exits with its status.
pub fn run_process(name: &str, needs_stdin: fn(&[String]) -> bool, main: ToolMain) -> ! {
    use std::io::Write;
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::panic::set_hook(Box::new(|_| {}));
    let _ = xir_sysio::cleanup::install_signal_cleanup();
    let mut err = std::io::stderr().lock();
    let mut stdin = Vec::new();
    if needs_stdin(&args) {
        match xir_sysio::limit::read_stdin() {
            Ok(b) => stdin = b,
            Err(e) => {
                let _ = writeln!(
                    err,
                    "{name}: error: cannot read standard input: {}",
                    xir_sysio::stdio::cause(&e)
                );
                std::process::exit(1);
            }
        }
    }
    let mut out = xir_sysio::stdio::Checked::new(std::io::stdout().lock());
    let code = main(&args, &stdin, &mut out, &mut err);
    let code = out.finish(name, code, &mut err);
    xir_sysio::cleanup::exit(code);
}
