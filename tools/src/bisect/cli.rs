//! The `xir-bisect` command line: [`xir_bisect_main`] is the whole tool as a function
//! (the binary and the corpus harness both call it).

use super::{Bisection, ReportOptions, minimize, regress, render_report};
use crate::cli_common::{OptPredicateArgs, OracleTimeoutArgs};
use crate::exit;
use crate::lit::{self, LitOracle};
use crate::opt::{FailureClass, OptRunner};
use crate::oracle::{Oracle, PredicateOracle};
use crate::predicate::{Edit, Predicate};
use crate::runner_from;
use clap::{ArgGroup, Parser};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

/// Exit statuses, also printed by `--help`.
pub const EXIT_CODES: &str = "\
EXIT STATUS:
  0   first bad invocation found; its failure is a wrong output (xir-opt succeeded)
  10  found; the first bad invocation crashes xir-opt
  11  found; it refuses (abort-on-refusal)
  12  found; the verifier rejects the module after it
  13  found; xir-opt fails otherwise (pass error, non-convergence)
  1   usage error (bad flags, unreadable files)
  2   internal error in xir-bisect (a bug)
  3   not bisectable: already bad with --bisect-limit=0 (the input or a required pass)
  4   not bisectable: good even with the whole pipeline
  5   undecided: the predicate could not run or asked to skip (--cmd exit 125 or >= 128)
  6   the regression test written by --write-test does not reproduce (nothing written)
With --minimize-pipeline the statuses 0 and 10-13 mean a minimal failing pipeline was
found and say how it fails; 4 means the original pipeline is not bad.

--cmd CMD runs `sh -c 'CMD \"$@\"' xir-bisect OUTPUT` (OUTPUT: a file holding xir-opt's
standard output) with XIR_OPT_STATUS, XIR_OPT_CLASS and XIR_OPT_STDERR (a file) set.
Its status follows `git bisect run`: 0 good, 1-127 except 125 bad, 125 cannot tell,
128 and above abort. (xir-reduce --test uses the opposite sense: 0 = interesting.)
With --timeout SECS a run of CMD that takes longer is killed with its process group
and counts as 'cannot tell' (status 5), or as bad with --on-timeout=bad.
";

/// Parsed `xir-bisect` arguments.
#[derive(Clone, Debug, Parser)]
#[command(
    name = "xir-bisect",
    about = "Find the first xir-opt pass invocation that makes a run bad (or minimize the pipeline)",
    disable_version_flag = true,
    max_term_width = 100,
    after_help = EXIT_CODES,
    group(ArgGroup::new("predicate").required(true).args(
        ["check_file", "crash", "refusal", "verifier", "any_failure", "semantics", "engines_differ", "spirv_val", "cmd", "lit"]
    ))
)]
pub struct BisectCli {
    /// Input module ('-' = standard input; with --lit: the test file itself)
    #[arg(value_name = "INPUT")]
    pub input: Option<String>,

    /// Extra xir-opt arguments (after `--`)
    #[arg(last = true, value_name = "XIR-OPT-ARGS")]
    pub opt_args: Vec<String>,

    /// Pipeline and predicate flags shared with xir-reduce.
    #[command(flatten)]
    pub common: OptPredicateArgs,

    /// Bad = the shell command says so (see EXIT STATUS for its convention)
    #[arg(long, value_name = "CMD", help_heading = "Predicate (choose one)")]
    pub cmd: Option<String>,

    /// Bad = the corpus test's RUN lines fail (xir-opt inside them gets the limit)
    #[arg(long, value_name = "TEST", help_heading = "Predicate (choose one)")]
    pub lit: Option<PathBuf>,

    /// A time limit for each run of --cmd.
    #[command(flatten)]
    pub oracle: OracleTimeoutArgs,

    /// Shrink the pass list to a minimal pipeline that still fails the same way
    #[arg(long, help_heading = "Actions")]
    pub minimize_pipeline: bool,

    /// Write a regression test (fails with N invocations, passes with N-1) to FILE
    #[arg(long, value_name = "FILE", help_heading = "Actions")]
    pub write_test: Option<PathBuf>,

    /// Print only the diff, not the whole IR before and after
    #[arg(long, help_heading = "Actions")]
    pub diff_only: bool,

    /// Run this xir-opt executable instead of the built-in driver
    #[arg(long, value_name = "PATH", help_heading = "Actions")]
    pub xir_opt: Option<PathBuf>,
}

impl BisectCli {
    fn predicate(&self) -> Option<Predicate> {
        self.common.predicate().or_else(|| {
            self.cmd
                .as_ref()
                .map(|c| Predicate::Command(c.clone(), self.oracle.limit()))
        })
    }

    /// The `xir-opt` arguments: pipeline first, then the extra arguments.
    pub fn xir_opt_args(&self) -> Vec<String> {
        self.common.xir_opt_args(&self.opt_args)
    }
}

/// Whether a run with these arguments reads standard input.
pub fn needs_stdin(args: &[String]) -> bool {
    BisectCli::try_parse_from(std::iter::once("xir-bisect".to_string()).chain(args.iter().cloned()))
        .map(|c| c.lit.is_none() && matches!(c.input.as_deref(), None | Some("-")))
        .unwrap_or(false)
}

/// The exit status for a found failure of class `c`.
pub fn status_for(c: FailureClass) -> i32 {
    match c {
        FailureClass::Success => exit::FOUND_WRONG_OUTPUT,
        FailureClass::Crash => exit::FOUND_CRASH,
        FailureClass::Refusal => exit::FOUND_REFUSAL,
        FailureClass::Verifier => exit::FOUND_VERIFIER,
        // A miscompile is a wrong output that the interpreter, not FileCheck, saw.
        FailureClass::Semantics => exit::FOUND_WRONG_OUTPUT,
        FailureClass::Error => exit::FOUND_OTHER,
    }
}

/// Runs `xir-bisect ARGS`; returns the exit status. `xir-opt` is the linked-in driver
/// unless `--xir-opt PATH` names an executable.
pub fn xir_bisect_main(
    args: &[String],
    stdin: &[u8],
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> i32 {
    let cli = match BisectCli::try_parse_from(
        std::iter::once("xir-bisect".to_string()).chain(args.iter().cloned()),
    ) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { exit::USAGE } else { 0 };
            let text = e.render().to_string();
            if code == 0 {
                let _ = stdout.write_all(text.as_bytes());
            } else {
                let _ = stderr.write_all(text.as_bytes());
            }
            return code;
        }
    };
    let runner = runner_from(cli.xir_opt.as_deref(), Some(xir_driver::xir_opt_main));
    crate::catch_internal("xir-bisect", stderr, |stderr| {
        let code = run(&cli, stdin, stdout, stderr, runner);
        if let Some(m) = status_meaning(code, cli.minimize_pipeline) {
            let _ = writeln!(stdout, "xir-bisect: exit status {code} ({m})");
        }
        code
    })
}

/// What an exit status means, for the last report line (`None` for usage and internal
/// errors, which are reported on standard error).
pub fn status_meaning(code: i32, minimize: bool) -> Option<&'static str> {
    Some(match (code, minimize) {
        (exit::FOUND_WRONG_OUTPUT, false) => "found: wrong output",
        (exit::FOUND_CRASH, false) => "found: crash",
        (exit::FOUND_REFUSAL, false) => "found: refusal",
        (exit::FOUND_VERIFIER, false) => "found: verifier failure",
        (exit::FOUND_OTHER, false) => "found: other xir-opt failure",
        (exit::FOUND_WRONG_OUTPUT, true) => "minimized: wrong output",
        (exit::FOUND_CRASH, true) => "minimized: crash",
        (exit::FOUND_REFUSAL, true) => "minimized: refusal",
        (exit::FOUND_VERIFIER, true) => "minimized: verifier failure",
        (exit::FOUND_OTHER, true) => "minimized: other xir-opt failure",
        (exit::BAD_AT_ZERO, _) => "not bisectable: bad with no invocation",
        (exit::GOOD_AT_END, _) => "not bisectable: good with every invocation",
        (exit::UNDECIDED, _) => "undecided",
        (exit::TEST_MISMATCH, _) => "the regression test does not reproduce",
        _ => return None,
    })
}

fn read_input(cli: &BisectCli, stdin: &[u8]) -> Result<(Vec<u8>, String), String> {
    match cli.input.as_deref() {
        None | Some("-") => Ok((stdin.to_vec(), "<stdin>".into())),
        Some(p) => xir_sysio::limit::read_file(std::path::Path::new(p))
            .map(|b| (b, p.to_string()))
            .map_err(|e| format!("cannot read '{p}': {}", xir_sysio::stdio::cause(&e))),
    }
}

fn run(
    cli: &BisectCli,
    stdin: &[u8],
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    runner: Arc<dyn OptRunner>,
) -> i32 {
    if let Some(test) = &cli.lit {
        return run_lit(cli, test, stdout, stderr, runner);
    }
    let (input, _name) = match read_input(cli, stdin) {
        Ok(x) => x,
        Err(e) => {
            let _ = writeln!(stderr, "xir-bisect: error: {e}");
            return exit::USAGE;
        }
    };
    let Some(predicate) = cli.predicate() else {
        let _ = writeln!(stderr, "xir-bisect: error: no predicate given");
        return exit::USAGE;
    };
    let oracle = PredicateOracle {
        runner: runner.as_ref(),
        predicate: predicate.clone(),
        args: cli.xir_opt_args(),
    };
    if cli.minimize_pipeline {
        return run_minimize(&oracle, &input, stdout, stderr);
    }
    let Some(b) = bisect_and_report(cli, &oracle, &input, stdout, stderr) else {
        return exit::UNDECIDED;
    };
    let text = String::from_utf8_lossy(&input).into_owned();
    let write = |index: u64, path: &str, failure: &str| {
        regress::render(&regress::TestSpec {
            input: &text,
            opt_args: &oracle.opt_args(),
            predicate: &predicate,
            index,
            path,
            failure,
        })
    };
    let verify = |t: &str, index: u64| verify_test(t, &oracle, &predicate, index);
    finish(cli, &b, &write, &verify, stdout, stderr)
}

fn run_lit(
    cli: &BisectCli,
    test: &std::path::Path,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    runner: Arc<dyn OptRunner>,
) -> i32 {
    let oracle = match LitOracle::new(runner, test) {
        Ok(o) => o,
        Err(e) => {
            let _ = writeln!(stderr, "xir-bisect: error: {e}");
            return exit::USAGE;
        }
    };
    let input = oracle.original().to_vec();
    if cli.minimize_pipeline {
        return run_minimize(&oracle, &input, stdout, stderr);
    }
    let Some(b) = bisect_and_report(cli, &oracle, &input, stdout, stderr) else {
        return exit::UNDECIDED;
    };
    let text = String::from_utf8_lossy(&input).into_owned();
    let write = |index: u64, path: &str, failure: &str| {
        Ok(lit::regression_test(&text, index, path, failure))
    };
    let verify = |t: &str, index: u64| lit::verify_regression(&oracle, t, index);
    finish(cli, &b, &write, &verify, stdout, stderr)
}

fn bisect_and_report(
    cli: &BisectCli,
    oracle: &dyn Oracle,
    input: &[u8],
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Option<Bisection> {
    let b = match super::bisect(oracle, input) {
        Ok(b) => b,
        Err(u) => {
            let _ = writeln!(stderr, "xir-bisect: undecided: {u}");
            return None;
        }
    };
    let report = render_report(
        &b,
        oracle,
        ReportOptions {
            full_ir: !cli.diff_only,
        },
    );
    let _ = stdout.write_all(report.as_bytes());
    Some(b)
}

type WriteTest<'a> = dyn Fn(u64, &str, &str) -> Result<String, String> + 'a;
type VerifyTest<'a> = dyn Fn(&str, u64) -> Result<(), String> + 'a;

/// Exit status after a bisection, writing the regression test if asked.
fn finish(
    cli: &BisectCli,
    b: &Bisection,
    write: &WriteTest<'_>,
    verify: &VerifyTest<'_>,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> i32 {
    let Some((index, path)) = b.culprit() else {
        return match b.result {
            super::search::SearchResult::BadAtZero => exit::BAD_AT_ZERO,
            _ => exit::GOOD_AT_END,
        };
    };
    let class = b.at(index).map(|v| v.class).unwrap_or(FailureClass::Error);
    if let Some(out) = &cli.write_test {
        let failure = b
            .at(index)
            .map(super::failure_description)
            .unwrap_or_default();
        let text = match write(index, path, &failure) {
            Ok(t) => t,
            Err(e) => {
                let _ = writeln!(stderr, "xir-bisect: error: {e}");
                return exit::USAGE;
            }
        };
        if let Err(e) = verify(&text, index) {
            let _ = writeln!(
                stderr,
                "xir-bisect: the regression test does not reproduce: {e}"
            );
            return exit::TEST_MISMATCH;
        }
        if let Err(e) = xir_driver::output::write_atomically(out, text.as_bytes()) {
            let _ = writeln!(
                stderr,
                "xir-bisect: error: cannot write '{}': {}",
                out.display(),
                xir_sysio::stdio::cause(&e)
            );
            return exit::USAGE;
        }
        let _ = writeln!(
            stdout,
            "regression test: {} (fails with --bisect-limit={index}, passes with --bisect-limit={})",
            out.display(),
            index - 1
        );
    }
    status_for(class)
}

/// Checks that the rendered test fails with `index` invocations and passes with one
/// fewer, evaluating its own RUN semantics: its IR under the same `xir-opt` arguments
/// and its own CHECK lines.
fn verify_test(text: &str, oracle: &dyn Oracle, p: &Predicate, index: u64) -> Result<(), String> {
    let dir = crate::util::TempDir::new("regress").map_err(|e| e.to_string())?;
    let f = dir.join("regression.xir");
    std::fs::write(&f, text).map_err(|e| e.to_string())?;
    let own = PredicateOracle {
        runner: oracle.runner(),
        predicate: regress::self_predicate(p, &f),
        args: oracle.opt_args(),
    };
    let ir = regress::module_text(text);
    let bad = own
        .eval(ir.as_bytes(), &Edit::limit(index as i64))
        .map_err(|e| e.to_string())?;
    let good = own
        .eval(ir.as_bytes(), &Edit::limit(index as i64 - 1))
        .map_err(|e| e.to_string())?;
    match (bad.bad, good.bad) {
        (true, false) => Ok(()),
        (false, _) => Err(format!("it passes with --bisect-limit={index}")),
        (true, true) => Err(format!("it fails with --bisect-limit={}", index - 1)),
    }
}

/// `--minimize-pipeline`.
pub fn run_minimize(
    oracle: &dyn Oracle,
    input: &[u8],
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> i32 {
    let _ = writeln!(stdout, "xir-bisect: predicate: {}", oracle.describe());
    match minimize::minimize(oracle, input) {
        Ok(m) => {
            let _ = writeln!(stdout, "original pipeline: {}", m.original);
            for l in &m.log {
                let _ = writeln!(stdout, "  {l}");
            }
            let _ = writeln!(stdout, "minimal pipeline: {}", m.minimal);
            let _ = writeln!(
                stdout,
                "  --passes={}",
                crate::util::shell_quote(&m.minimal)
            );
            let _ = writeln!(
                stdout,
                "failure: {} ({} runs)",
                match m.class {
                    FailureClass::Success => "the predicate rejects the output".to_string(),
                    c => format!("xir-opt fails with a {}", c.name()),
                },
                m.tests
            );
            status_for(m.class)
        }
        Err(minimize::MinimizeError::NotFailing) => {
            let _ = writeln!(
                stdout,
                "result: the original pipeline is not bad; nothing to minimize"
            );
            exit::GOOD_AT_END
        }
        Err(minimize::MinimizeError::Pipeline(e)) => {
            let _ = writeln!(stderr, "xir-bisect: error: {e}");
            exit::USAGE
        }
        Err(minimize::MinimizeError::Undecided(u)) => {
            let _ = writeln!(stderr, "xir-bisect: undecided: {u}");
            exit::UNDECIDED
        }
    }
}
