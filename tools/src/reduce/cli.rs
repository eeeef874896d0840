//! The `xir-reduce` command line: [`xir_reduce_main`] is the whole tool as a function.

use super::strategies::Strategy;
use super::{Codec, DriverCodec, ReduceOptions, Reducer};
use crate::cli_common::{OptPredicateArgs, OracleTimeoutArgs};
use crate::exit;
use crate::lit::LitOracle;
use crate::opt::{OptRunner, parse_bisect_log, run_program_limited};
use crate::oracle::{Oracle, PredicateOracle};
use crate::predicate::{Edit, OnTimeout, Undecided};
use crate::runner_from;
use crate::util::{TempDir, is_directive_line, strip_directives};
use clap::{ArgGroup, Parser};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

/// Exit statuses and the interestingness convention, printed by `--help`.
pub const EXIT_CODES: &str = "\
INTERESTINGNESS:
  --test CMD runs `sh -c 'CMD \"$@\"' xir-reduce FILE` on each candidate (FILE holds the
  candidate module). EXIT STATUS 0 MEANS INTERESTING (keep reducing); anything else means
  not interesting. With --timeout SECS a run that takes longer is killed with its
  process group and counts as not interesting (--on-timeout=skip, the default) or
  as interesting (--on-timeout=bad, to reduce a hang). This is llvm-reduce's convention (mlir-reduce uses the opposite one;
  xir-bisect --cmd follows git bisect run: 0 = good).
  The in-process predicates (--check-file, --crash, --refusal, --verifier,
  --any-failure, --spirv-val) with --passes/--pipeline call a candidate interesting when
  xir-opt on it is bad in the same way as on the input (a CHECK failure stays a CHECK
  failure, a crash a crash). With --bisect-limit N it must also be good with N-1
  invocations, and invocation N must have the same path. --lit TEST: the corpus test,
  with the candidate as its module, still fails the same way.
  Every candidate is verifier-clean and survives a print/parse round trip before it is
  tested.

EXIT STATUS:
  0  reduced (the result is written; it may equal the input if nothing could go)
  1  usage error
  2  internal error in xir-reduce (a bug)
  4  the input is not interesting to begin with
  5  undecided: an in-process predicate could not run
  7  the input does not parse or does not verify
";

/// Parsed `xir-reduce` arguments.
#[derive(Clone, Debug, Parser)]
#[command(
    name = "xir-reduce",
    about = "Shrink an xir module while an interestingness test still holds",
    disable_version_flag = true,
    max_term_width = 100,
    after_help = EXIT_CODES,
    group(ArgGroup::new("predicate").required(true).args(
        ["check_file", "crash", "refusal", "verifier", "any_failure", "semantics", "engines_differ", "spirv_val", "test", "lit"]
    ))
)]
pub struct ReduceCli {
    /// Input module ('-' = standard input; with --lit it defaults to the test's module)
    #[arg(value_name = "INPUT")]
    pub input: Option<String>,

    /// Extra xir-opt arguments (after `--`)
    #[arg(last = true, value_name = "XIR-OPT-ARGS")]
    pub opt_args: Vec<String>,

    /// Write the result here (default: standard output); with --lit, a whole test file
    #[arg(short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Interesting = this shell command exits 0 on the candidate file
    #[arg(long, value_name = "CMD", help_heading = "Predicate (choose one)")]
    pub test: Option<String>,

    /// Interesting = the corpus test still fails with the candidate as its module
    #[arg(long, value_name = "TEST", help_heading = "Predicate (choose one)")]
    pub lit: Option<PathBuf>,

    /// A time limit for each run of --test.
    #[command(flatten)]
    pub oracle: OracleTimeoutArgs,

    /// Pipeline and predicate flags shared with xir-bisect.
    #[command(flatten)]
    pub common: OptPredicateArgs,

    /// Also require: good with N-1 invocations, and invocation N keeps its path
    #[arg(long, value_name = "N", help_heading = "Reduction")]
    pub bisect_limit: Option<u64>,

    /// Strategies to run (the help text lists them, from `Strategy::ALL`)
    #[arg(
        long,
        value_name = "LIST",
        help = strategies_help(),
        help_heading = "Reduction"
    )]
    pub strategies: Option<String>,

    /// Stop after this many rounds
    #[arg(
        long,
        value_name = "N",
        default_value_t = 10,
        help_heading = "Reduction"
    )]
    pub max_rounds: usize,

    /// Extra verifier requirements every candidate must meet
    #[arg(long, value_name = "LIST", help_heading = "Reduction")]
    pub verify_options: Option<String>,

    /// Run this xir-opt executable instead of the built-in driver
    #[arg(long, value_name = "PATH", help_heading = "Reduction")]
    pub xir_opt: Option<PathBuf>,

    /// Log every candidate (what was tried, and why it was kept or not) on stderr
    #[arg(short, long, help_heading = "Reduction")]
    pub verbose: bool,
}

/// Whether a run with these arguments reads standard input.
pub fn needs_stdin(args: &[String]) -> bool {
    ReduceCli::try_parse_from(std::iter::once("xir-reduce".to_string()).chain(args.iter().cloned()))
        .map(|c| matches!(c.input.as_deref(), Some("-")) || (c.input.is_none() && c.lit.is_none()))
        .unwrap_or(false)
}

/// Runs `xir-reduce ARGS`; returns the exit status.
pub fn xir_reduce_main(
    args: &[String],
    stdin: &[u8],
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> i32 {
    let cli = match ReduceCli::try_parse_from(
        std::iter::once("xir-reduce".to_string()).chain(args.iter().cloned()),
    ) {
        Ok(c) => c,
        Err(e) => {
            let text = e.render().to_string();
            if e.use_stderr() {
                let _ = stderr.write_all(text.as_bytes());
                return exit::USAGE;
            }
            let _ = stdout.write_all(text.as_bytes());
            return 0;
        }
    };
    let runner = runner_from(cli.xir_opt.as_deref(), Some(xir_driver::xir_opt_main));
    crate::catch_internal("xir-reduce", stderr, |stderr| {
        run(&cli, stdin, stdout, stderr, runner)
    })
}

/// An interestingness test over candidate texts.
type Test<'a> = Box<dyn FnMut(&str) -> Result<bool, Undecided> + 'a>;

fn usage(stderr: &mut dyn Write, msg: impl std::fmt::Display) -> i32 {
    let _ = writeln!(stderr, "xir-reduce: error: {msg}");
    exit::USAGE
}

fn run(
    cli: &ReduceCli,
    stdin: &[u8],
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    runner: Arc<dyn OptRunner>,
) -> i32 {
    let mut opts = ReduceOptions {
        max_rounds: cli.max_rounds,
        ..ReduceOptions::default()
    };
    if let Some(list) = &cli.strategies {
        let mut v = Vec::new();
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match Strategy::from_name(name) {
                Some(s) => v.push(s),
                None => {
                    return usage(
                        stderr,
                        format!(
                            "unknown strategy '{name}' (valid strategies: {})",
                            strategy_names()
                        ),
                    );
                }
            }
        }
        opts.strategies = v;
    }
    if let Some(v) = &cli.verify_options {
        match xir_ir::verify::VerifyOptions::parse_list(v) {
            Ok(o) => opts.verify = o,
            Err(e) => return usage(stderr, e),
        }
    }
    // The test file's directive lines (with --lit) go around every candidate.
    let lit_text = match &cli.lit {
        Some(p) => match xir_sysio::limit::read_file_to_string(p) {
            Ok(t) => Some(t),
            Err(e) => return usage(stderr, format!("cannot read '{}': {e}", p.display())),
        },
        None => None,
    };
    let input = match (cli.input.as_deref(), &lit_text) {
        (None, Some(t)) => strip_directives(t),
        (None | Some("-"), _) => String::from_utf8_lossy(stdin).into_owned(),
        (Some(p), _) => match xir_sysio::limit::read_file_to_string(std::path::Path::new(p)) {
            Ok(t) => t,
            Err(e) => return usage(stderr, format!("cannot read '{p}': {e}")),
        },
    };
    let codec = DriverCodec;
    let module = match codec.parse(&input) {
        Ok(m) => m,
        Err(e) => {
            let _ = writeln!(stderr, "xir-reduce: the input does not parse:\n{e}");
            return exit::INVALID_INPUT;
        }
    };
    let header = lit_text.as_deref().map(directive_header);
    let test: Test<'_> = match build_test(cli, runner, &input, stderr) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let mut test = test;
    // With --engines-differ a candidate the backend refuses, or on which no generated
    // input is defined for the interpreter, is not interesting (reduction keeps going);
    // only the start must be decided.
    let lenient = cli.common.engines_differ.is_some();
    let mut started = false;
    let mut wrapped = |t: &str| {
        let r = match &header {
            Some(h) => test(&format!("{h}{t}")),
            None => test(t),
        };
        let first = !std::mem::replace(&mut started, true);
        match r {
            Err(_) if lenient && !first => Ok(false),
            r => r,
        }
    };
    let mut verbose_log = Vec::new();
    let mut logger = |l: &str| verbose_log.push(l.to_string());
    let reducer = match Reducer::new(module, &codec, &mut wrapped, opts) {
        Ok(r) if cli.verbose => Ok(r.with_log(&mut logger)),
        other => other,
    };
    let mut reducer = match reducer {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(stderr, "xir-reduce: {e}");
            return exit::INVALID_INPUT;
        }
    };
    let start_lines = reducer.text().lines().count();
    match reducer.check_start() {
        Ok(true) => {}
        Ok(false) => {
            let _ = writeln!(
                stderr,
                "xir-reduce: the input is not interesting (the test must hold for the input as printed by xir)"
            );
            return exit::GOOD_AT_END;
        }
        Err(u) => {
            let _ = writeln!(stderr, "xir-reduce: undecided: {u}");
            return exit::UNDECIDED;
        }
    }
    let red = match reducer.run() {
        Ok(r) => r,
        Err(u) => {
            let _ = writeln!(stderr, "xir-reduce: undecided: {u}");
            return exit::UNDECIDED;
        }
    };
    for l in &verbose_log {
        let _ = writeln!(stderr, "xir-reduce: {l}");
    }
    let out = match &header {
        Some(h) => format!("{h}{}", red.text),
        None => red.text.clone(),
    };
    let accepted: Vec<String> = red
        .accepted
        .iter()
        .map(|(n, k)| format!("{n} {k}"))
        .collect();
    let _ = writeln!(
        stderr,
        "xir-reduce: {start_lines} -> {} lines; {} tests, {} candidates rejected before testing, {} round(s); accepted: {}",
        red.text.lines().count(),
        red.tests,
        red.rejected,
        red.rounds,
        if accepted.is_empty() {
            "none".to_string()
        } else {
            accepted.join(", ")
        }
    );
    match &cli.output {
        Some(p) => {
            if let Err(e) = xir_driver::output::write_atomically(p, out.as_bytes()) {
                return usage(
                    stderr,
                    format!(
                        "cannot write '{}': {}",
                        p.display(),
                        xir_sysio::stdio::cause(&e)
                    ),
                );
            }
        }
        None => {
            let _ = stdout.write_all(out.as_bytes());
        }
    }
    0
}

/// The directive lines of a test file, as the header of every candidate.
fn directive_header(test: &str) -> String {
    let mut h: String = test
        .lines()
        .filter(|l| is_directive_line(l))
        .map(|l| format!("{l}\n"))
        .collect();
    h.push('\n');
    h
}

fn build_test<'a>(
    cli: &'a ReduceCli,
    runner: Arc<dyn OptRunner>,
    input: &str,
    stderr: &mut dyn Write,
) -> Result<Test<'a>, i32> {
    if let Some(cmd) = &cli.test {
        let dir = TempDir::new("reduce").map_err(|e| usage(stderr, e))?;
        let limit = cli.oracle.limit();
        return Ok(Box::new(move |text: &str| {
            let f = dir.join("candidate.xir");
            std::fs::write(&f, text).map_err(|e| Undecided(e.to_string()))?;
            let (out, timed_out) = run_program_limited(
                std::path::Path::new("sh"),
                &[
                    "-c".into(),
                    format!("{cmd} \"$@\""),
                    "xir-reduce".into(),
                    f.display().to_string(),
                ],
                b"",
                &[],
                limit.limit,
            );
            if timed_out {
                return Ok(limit.on_timeout == OnTimeout::Bad);
            }
            Ok(out.code == 0)
        }));
    }
    let oracle: Box<dyn Oracle> = match &cli.lit {
        Some(t) => match LitOracle::new(runner, t) {
            Ok(o) => Box::new(o),
            Err(e) => return Err(usage(stderr, e)),
        },
        None => {
            let Some(predicate) = cli.common.predicate() else {
                return Err(usage(stderr, "no predicate given"));
            };
            Box::new(OwnedPredicateOracle {
                runner,
                predicate,
                args: cli.common.xir_opt_args(&cli.opt_args),
            })
        }
    };
    // The reference run: the input must be bad, and later candidates bad the same way.
    let reference_input = match &cli.lit {
        Some(t) => {
            let text = xir_sysio::limit::read_file_to_string(t).map_err(|e| usage(stderr, e))?;
            format!("{}{input}", directive_header(&text))
        }
        None => input.to_string(),
    };
    let edit = cli
        .bisect_limit
        .map(|n| Edit::limit(n as i64))
        .unwrap_or_default();
    let reference = match oracle.eval(reference_input.as_bytes(), &edit) {
        Ok(v) => v,
        Err(u) => {
            let _ = writeln!(stderr, "xir-reduce: undecided: {u}");
            return Err(exit::UNDECIDED);
        }
    };
    let class = reference.class;
    let path_at = |v: &crate::predicate::Verdict, n: u64| {
        parse_bisect_log(&v.opt.stderr_text())
            .into_iter()
            .find(|l| l.index == n && l.ran)
            .map(|l| l.path)
    };
    let limit = cli.bisect_limit;
    let ref_path = limit.and_then(|n| path_at(&reference, n));
    if limit.is_some() && ref_path.is_none() {
        return Err(usage(
            stderr,
            "--bisect-limit: the input has no such invocation (or xir-opt does not print BISECT lines)",
        ));
    }
    Ok(Box::new(move |text: &str| {
        let v = oracle.eval(text.as_bytes(), &edit)?;
        if !v.bad || v.class != class {
            return Ok(false);
        }
        let Some(n) = limit else { return Ok(true) };
        if path_at(&v, n) != ref_path {
            return Ok(false);
        }
        let good = oracle.eval(text.as_bytes(), &Edit::limit(n as i64 - 1))?;
        Ok(!good.bad)
    }))
}

/// A [`PredicateOracle`] that owns its runner.
struct OwnedPredicateOracle {
    runner: Arc<dyn OptRunner>,
    predicate: crate::predicate::Predicate,
    args: Vec<String>,
}

impl Oracle for OwnedPredicateOracle {
    fn eval(&self, input: &[u8], edit: &Edit) -> Result<crate::predicate::Verdict, Undecided> {
        PredicateOracle {
            runner: self.runner.as_ref(),
            predicate: self.predicate.clone(),
            args: self.args.clone(),
        }
        .eval(input, edit)
    }
    fn describe(&self) -> String {
        self.predicate.describe()
    }
    fn opt_args(&self) -> Vec<String> {
        self.args.clone()
    }
    fn runner(&self) -> &dyn OptRunner {
        self.runner.as_ref()
    }
}

/// Every strategy name, comma-separated, in the order a round runs them.
fn strategy_names() -> String {
    Strategy::ALL.map(Strategy::name).join(",")
}

/// The `--strategies` help, listing the real strategies (from [`Strategy::ALL`]).
fn strategies_help() -> String {
    format!(
        "Strategies to run, comma-separated (default: all, in this order): {}",
        strategy_names()
    )
}
