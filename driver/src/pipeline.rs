//! Pass pipelines in `xir-opt`: loading (`--passes`, `--pipeline`, `--pipeline-param`,
//! `--enable-test-passes`), the actions that need no input (`--list-passes`,
//! `--print-pipeline`), and running a pipeline on each module with the debugging flags
//! (`--verify-each`, printing, `--bisect-limit`, `--pass-stats`, `--time-passes`,
//! `--trace-passes`, `--crash-reproducer`, `--check-semantics`).
//!
//! Exit statuses of a failed run: a refusal of an `abort-on-refusal` entry, a fixed point
//! that did not converge, a failing `verify` entry or a pass error give 1; a pass that
//! panicked gives 2 (a crash); a pass that left invalid IR under `--verify-each` (or that
//! changed the IR while reporting no change) gives 3.

use crate::cli::{Cli, ColorChoice, ListFormat, StatsFormat};
use crate::instrument::{IrPrinter, PrintFlags, SharedLog};
use crate::semantics::SemanticChecker;
use std::sync::OnceLock;
use xir_ir::Module;
use xir_ir::diag::Diagnostic;
use xir_ir::text::{IdStyle, PrintOptions, print_module};
use xir_ir::verify::{VerifyOptions, verify_module};
use xir_passes::pipeline::{
    Bisect, ExternalChecks, FailureKind, Loader, Params, Pipeline, RunOptions, RunResult, Runner,
    Verifier,
};
use xir_passes::registry::Registry;

/// Exit status of a pass that left invalid IR behind.
pub const EXIT_INVALID_IR: i32 = 3;

/// Exit status of a pass that changed interpreted results (`--check-semantics`): the
/// same class as a pass that broke the verifier.
pub const EXIT_SEMANTICS: i32 = 3;

/// Why a pipeline could not be built or run.
#[derive(Debug)]
pub enum PipelineError {
    /// A command-line problem (unknown pass, unreadable pipeline file); printed as
    /// `error: <message>`.
    Usage(String),
    /// Problems located in the module (a pass refusal, a verifier failure after a pass).
    Diagnostics(Vec<Diagnostic>),
    /// Already rendered text (pipeline-file diagnostics with carets), exit status 1.
    Rendered(String),
    /// A failed run: the message and the exit status.
    Failed {
        /// `error: …` text.
        message: String,
        /// Exit status.
        code: i32,
    },
}

/// Whether `LUISA_XIR_TRACE_PASSES` is exactly `1` (read once, as upstream).
pub fn trace_env() -> bool {
    static TRACE: OnceLock<bool> = OnceLock::new();
    *TRACE.get_or_init(|| std::env::var("LUISA_XIR_TRACE_PASSES").as_deref() == Ok("1"))
}

/// Loads the pipeline the command line asks for (`None` without `--passes`/`--pipeline`).
pub fn load(cli: &Cli) -> Result<Option<Pipeline>, PipelineError> {
    load_with_env(cli, |k| std::env::var(k).ok())
}

/// [`load`] reading the environment through `env`.
pub fn load_with_env(
    cli: &Cli,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Option<Pipeline>, PipelineError> {
    let registry = Registry::new(cli.enable_test_passes);
    let mut loader = Loader::new(&registry);
    loader.params = Params::default().with_env(env);
    for p in &cli.pipeline_params {
        loader
            .params
            .push_override(p)
            .map_err(PipelineError::Usage)?;
    }
    let loaded = match (&cli.passes, &cli.pipeline) {
        (Some(text), _) => loader.load_inline(text),
        (None, Some(name)) => loader.load(name),
        (None, None) => {
            if !cli.pipeline_params.is_empty() {
                return Err(PipelineError::Usage(
                    "--pipeline-param needs --passes or --pipeline".into(),
                ));
            }
            return Ok(None);
        }
    };
    loaded
        .map(Some)
        .map_err(|e| PipelineError::Rendered(e.render()))
}

/// Output of the actions that read no input (`--list-passes`, `--print-pipeline`).
pub fn early_output(cli: &Cli) -> Option<Result<String, PipelineError>> {
    if let Some(fmt) = cli.list_passes {
        let reg = Registry::new(cli.enable_test_passes);
        return Some(Ok(match fmt {
            ListFormat::Text => reg.list_text(),
            ListFormat::Markdown => reg.markdown(),
        }));
    }
    if cli.print_pipeline {
        return Some(match load(cli) {
            Ok(Some(p)) => Ok(format!("{}\n", p.to_text())),
            Ok(None) => Err(PipelineError::Usage(
                "--print-pipeline needs --passes or --pipeline".into(),
            )),
            Err(e) => Err(e),
        });
    }
    None
}

/// Checks `--passes` / `--pipeline` before any input is read.
pub fn check_pipeline(cli: &Cli) -> Result<(), PipelineError> {
    if let Some(n) = cli.bisect_limit
        && n < -1
    {
        return Err(PipelineError::Usage(format!(
            "--bisect-limit must be -1 or a non-negative number, got {n}"
        )));
    }
    match load(cli)? {
        Some(p) => check_print_names(cli, &p),
        None => Ok(()),
    }
}

/// The parsed input text, for locating verifier errors after a pass.
#[derive(Copy, Clone)]
pub struct InputSource<'a> {
    /// The file name diagnostics show.
    pub name: &'a str,
    /// The text.
    pub text: &'a str,
    /// Where the input's entities were written.
    pub map: &'a xir_ir::source_map::SourceMap,
}

/// The real verifier, with upstream's kebab-case option flags. Given the input's text,
/// an error at an entity that came from the input is rendered at its place there
/// (`file:line:col: error: …` and a caret); others are `error: …` lines.
#[derive(Default)]
pub struct ModuleVerifier<'a> {
    /// The input, when it was text.
    pub input: Option<InputSource<'a>>,
}

impl Verifier for ModuleVerifier<'_> {
    fn verify(&self, m: &Module, flags: &[String]) -> Result<(), String> {
        let opts = VerifyOptions::parse_list(&flags.join(",")).map_err(|e| e.to_string())?;
        let diags = verify_module(m, &opts, self.input.map(|i| i.map));
        let errors: Vec<&Diagnostic> = diags
            .iter()
            .filter(|d| d.severity == xir_ir::diag::Severity::Error)
            .collect();
        if errors.is_empty() {
            return Ok(());
        }
        let mut out = String::new();
        for d in errors {
            match (self.input, d.span) {
                (Some(i), Some(_)) => out.push_str(&xir_ir::diag::render(
                    i.name,
                    i.text,
                    std::slice::from_ref(d),
                )),
                _ => out.push_str(&format!("  error: {}\n", d.message)),
            }
        }
        Err(out)
    }
}

/// The external checks `check NAME` entries run, wired to the backend: `spirv-dialect`
/// is codegen's dialect table ([`xir_codegen::check_dialect`]). Its located diagnostics
/// are kept here (spans from the input's source map where the construct came from the
/// input) and returned as [`PipelineError::Diagnostics`].
pub struct DriverChecks<'m> {
    /// Spans of the parsed input (entities a pass created have none).
    pub source_map: Option<&'m xir_ir::source_map::SourceMap>,
    /// Diagnostics of the last failed check.
    pub diagnostics: std::cell::RefCell<Vec<Diagnostic>>,
}

impl ExternalChecks for DriverChecks<'_> {
    fn check(&self, name: &str, m: &Module) -> Option<Result<(), String>> {
        match name {
            "spirv-dialect" => Some(xir_codegen::check_dialect(m).map_err(|errs| {
                let n = errs.len();
                let diags =
                    xir_codegen::CodegenError::user(errs).to_diagnostics(m, self.source_map);
                let mut text = String::new();
                for d in &diags {
                    text.push_str(&format!("  error: {}\n", d.message));
                }
                *self.diagnostics.borrow_mut() = diags;
                format!("{n} construct(s) outside the SPIR-V backend's dialect:\n{text}")
            })),
            _ => None,
        }
    }
}

fn run_options(cli: &Cli) -> RunOptions {
    RunOptions {
        verify_each: cli.verify_each && !cli.no_verify,
        bisect: match cli.bisect_limit {
            None => Bisect::Off,
            Some(n) if n < 0 => Bisect::Print,
            Some(n) => Bisect::Limit(n as u64),
        },
        trace: cli.trace_passes || trace_env(),
        stop_before: None,
    }
}

/// Every `--print-before=`/`--print-after=` name must name a pass, label or path of the
/// pipeline (a path may carry `[iter k]`): a misspelt name would otherwise print nothing,
/// silently.
fn check_print_names(cli: &Cli, p: &Pipeline) -> Result<(), PipelineError> {
    let leaves = p.leaves();
    for (flag, names) in [
        ("--print-before", &cli.print_before),
        ("--print-after", &cli.print_after),
    ] {
        for name in names {
            let static_path = strip_iterations(name);
            let known = leaves
                .iter()
                .any(|l| &l.pass == name || &l.display == name || l.path == static_path);
            if !known {
                let names: Vec<&str> = leaves.iter().map(|l| l.display.as_str()).collect();
                return Err(PipelineError::Usage(format!(
                    "{flag}: '{name}' is not a pass, label or path of the pipeline (it runs: {})",
                    names.join(", ")
                )));
            }
        }
    }
    Ok(())
}

/// A run-time path (`a/b[iter 2]/c`) without its `[iter k]` parts.
fn strip_iterations(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut rest = path;
    while let Some(i) = rest.find("[iter ") {
        out.push_str(&rest[..i]);
        match rest[i..].find(']') {
            Some(j) => rest = &rest[i + j + 1..],
            None => {
                rest = &rest[i..];
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

fn print_flags(cli: &Cli) -> PrintFlags {
    PrintFlags {
        before_all: cli.print_before_all,
        after_all: cli.print_after_all,
        before: cli.print_before.clone(),
        after: cli.print_after.clone(),
        changed: cli.print_changed,
        module_scope: cli.print_module_scope,
        filter: cli.filter_print_funcs.clone(),
        dump_dir: cli.dump_dir.as_ref().map(Into::into),
        color: match cli.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => crate::stderr_is_terminal(),
        },
    }
}

fn print_upstream(m: &Module) -> String {
    print_module(
        m,
        &PrintOptions {
            flat: false,
            debug_info: false,
            ids: IdStyle::Upstream,
        },
    )
}

/// Runs the requested pipeline on `module`, appending warnings, dumps and reports to
/// `log` (standard error).
pub fn run_pipeline(
    module: &mut Module,
    cli: &Cli,
    log: &mut String,
    input_source: Option<InputSource<'_>>,
) -> Result<(), PipelineError> {
    let Some(p) = load(cli)? else {
        if cli.check_semantics.is_some() {
            return Err(PipelineError::Usage(
                "--check-semantics needs --passes or --pipeline".into(),
            ));
        }
        return Ok(());
    };
    check_print_names(cli, &p)?;
    let input = cli.crash_reproducer.as_ref().map(|_| module.clone());
    let flags = print_flags(cli);
    if let Some(dir) = &flags.dump_dir {
        std::fs::create_dir_all(dir)
            .and_then(|()| {
                crate::output::write_atomically(
                    &dir.join("000-input.xir"),
                    print_upstream(module).as_bytes(),
                )
            })
            .map_err(|e| {
                PipelineError::Usage(format!(
                    "--dump-dir: cannot write to '{}': {e}",
                    dir.display()
                ))
            })?;
    }
    let shared = SharedLog::default();
    let mut sink = shared.clone();
    let mut printer = IrPrinter::new(flags.clone(), shared.clone());
    let verifier = ModuleVerifier {
        input: input_source,
    };
    let source_map = input_source.map(|s| s.map);
    let mut checker = match cli.check_semantics {
        Some(n) => {
            let (c, note) = SemanticChecker::new(module, n).map_err(|e| PipelineError::Failed {
                message: format!("xir-opt: error: {e}\n"),
                code: crate::EXIT_USER_ERROR,
            })?;
            log.push_str(&note);
            Some(c)
        }
        None => None,
    };
    let checks = DriverChecks {
        source_map,
        diagnostics: Default::default(),
    };
    let mut runner = Runner::new(run_options(cli), &mut sink)
        .with_verifier(&verifier)
        .with_checks(&checks);
    if flags.any() {
        runner = runner.instrument(&mut printer);
    }
    if let Some(c) = checker.as_mut() {
        runner = runner.instrument(c);
    }
    let result = runner.run(&p, module);
    log.push_str(&shared.0.borrow());
    report(cli, &result, log);
    if let Some(e) = printer.dump_error.take() {
        log.push_str(&format!("warning: --dump-dir: {e}\n"));
    }
    if result.failure.is_none()
        && let Some(message) = checker.and_then(|c| c.failure)
    {
        return Err(PipelineError::Failed {
            message: format!("xir-opt: error: {message}\n"),
            code: EXIT_SEMANTICS,
        });
    }
    let Some(f) = result.failure else {
        return Ok(());
    };
    if f.kind == FailureKind::Check {
        let diags = checks.diagnostics.take();
        if !diags.is_empty() {
            return Err(PipelineError::Diagnostics(diags));
        }
    }
    let code = match f.kind {
        FailureKind::Panic => crate::EXIT_INTERNAL_ERROR,
        FailureKind::Verifier | FailureKind::Dishonest | FailureKind::RefusalMutated => {
            EXIT_INVALID_IR
        }
        _ => crate::EXIT_USER_ERROR,
    };
    // A failure with a place in the pipeline's text (a fixed point's exhausted budget)
    // is reported there, file:line:col and caret; others name the tool.
    let mut message = match &f.at {
        Some((src, span)) => xir_ir::diag::render(
            &src.name,
            &src.text,
            &[
                xir_ir::diag::Diagnostic::error(f.message.trim_end(), Some(*span))
                    .with_label("iteration budget"),
            ],
        ),
        None => format!("xir-opt: error: {}\n", f.message.trim_end()),
    };
    if let (Some(path), Some(index), Some(input)) = (&cli.crash_reproducer, f.index, input) {
        match write_reproducer(cli, &p, input, &f, index, path) {
            Ok(()) => message.push_str(&format!("note: reproducer written to '{path}'\n")),
            Err(e) => message.push_str(&format!("note: could not write a reproducer: {e}\n")),
        }
    }
    Err(PipelineError::Failed { message, code })
}

fn report(cli: &Cli, result: &RunResult, log: &mut String) {
    match cli.pass_stats {
        Some(StatsFormat::Text) => log.push_str(&result.stats.log()),
        Some(StatsFormat::Json) => log.push_str(&result.stats.json()),
        None => {}
    }
    if cli.time_passes {
        log.push_str(&result.stats.time_report());
    }
}

/// Writes the IR just before invocation `index` (regenerated by re-running the pipeline
/// on the input and stopping there) and a RUN line with the rest of the pipeline.
fn write_reproducer(
    cli: &Cli,
    p: &Pipeline,
    mut input: Module,
    f: &xir_passes::pipeline::Failure,
    index: u64,
    path: &str,
) -> Result<(), String> {
    let opts = RunOptions {
        verify_each: false,
        bisect: Bisect::Off,
        trace: false,
        stop_before: Some(index),
    };
    let mut sink = Vec::new();
    let verifier = ModuleVerifier::default();
    let checks = DriverChecks {
        source_map: None,
        diagnostics: Default::default(),
    };
    let r = Runner::new(opts, &mut sink)
        .with_verifier(&verifier)
        .with_checks(&checks)
        .run(p, &mut input);
    match r.failure {
        Some(g) if g.kind == FailureKind::Stopped => {}
        other => {
            return Err(format!(
                "re-running up to invocation {index} did not reproduce the same position ({:?})",
                other.map(|g| g.kind)
            ));
        }
    }
    let not = if f.kind == FailureKind::Panic {
        "not --crash"
    } else {
        "not"
    };
    let test = if cli.enable_test_passes {
        " --enable-test-passes"
    } else {
        ""
    };
    let remaining = p.remaining_text(&f.trail);
    let first = f.message.lines().next().unwrap_or_default();
    let text = format!(
        "// Reproducer written by xir-opt: {first}\n\
         // The IR below is the module just before invocation {index} ('{}').\n\
         // RUN: {not} xir-opt %s{test} --passes='{remaining}'\n\n{}",
        f.path,
        print_upstream(&input)
    );
    crate::output::write_atomically(std::path::Path::new(path), text.as_bytes())
        .map_err(|e| format!("cannot write '{path}': {}", xir_sysio::stdio::cause(&e)))
}

/// Runs the shipped `spirv-final` pipeline (`optimize` as given) on `m` in process, with
/// the verifier after every pass and the backend's dialect check: how tests, fuzzers and
/// the engine differential bring generated modules into the SPIR-V backend's dialect.
pub fn run_spirv_final(m: &mut Module, optimize: bool) -> Result<(), String> {
    let registry = Registry::new(false);
    let mut loader = Loader::new(&registry);
    loader.params.overrides.push(("optimize".into(), optimize));
    let p = loader
        .load("spirv-final")
        .map_err(|e| format!("spirv-final: {e:?}"))?;
    let verifier = ModuleVerifier::default();
    let checks = DriverChecks {
        source_map: None,
        diagnostics: Default::default(),
    };
    let mut sink = Vec::new();
    let r = Runner::new(RunOptions::default(), &mut sink)
        .with_verifier(&verifier)
        .with_checks(&checks)
        .run(&p, m);
    match r.failure {
        None => Ok(()),
        Some(f) => Err(f.message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cli(a: &[&str]) -> Cli {
        Cli::try_parse_args(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn empty_list_is_accepted_and_unknown_names_are_located() {
        assert!(check_pipeline(&cli(&["--passes="])).is_ok());
        match check_pipeline(&cli(&["--passes=dcee"])) {
            Err(PipelineError::Rendered(m)) => assert!(
                m.starts_with("<--passes>:1:1: error: unknown pass 'dcee'; did you mean 'dce'?"),
                "{m}"
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn environment_and_flags_set_parameters() {
        let c = cli(&[
            "--passes=if optimize { dce } else { const-fold }",
            "--print-pipeline",
        ]);
        let off = |k: &str| (k == "LUISA_XIR_DISABLE_OPTIMIZATION").then(|| "1".to_string());
        let text = |c: &Cli, env: &dyn Fn(&str) -> Option<String>| {
            load_with_env(c, env).unwrap().unwrap().to_text()
        };
        assert_eq!(text(&c, &|_| None), "dce");
        assert_eq!(text(&c, &off), "const-fold");
        let c = cli(&[
            "--passes=if optimize { dce } else { const-fold }",
            "--pipeline-param",
            "optimize=true",
        ]);
        assert_eq!(text(&c, &off), "dce", "the flag wins over the environment");
    }

    #[test]
    fn list_and_print_pipeline_need_no_input() {
        let out = early_output(&cli(&["--list-passes"])).unwrap().unwrap();
        assert!(out.starts_with("Available passes:\n"));
        let md = early_output(&cli(&["--list-passes=markdown"]))
            .unwrap()
            .unwrap();
        assert!(md.starts_with("# Passes\n"));
        let p = early_output(&cli(&[
            "--passes=fixed-point(max=8){const-fold,dce}",
            "--print-pipeline",
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(p, "fixed-point(max=8){const-fold,dce}\n");
        assert!(early_output(&cli(&[])).is_none());
    }

    #[test]
    fn bad_bisect_limit_is_a_usage_error() {
        assert!(matches!(
            check_pipeline(&cli(&["--bisect-limit=-2"])),
            Err(PipelineError::Usage(_))
        ));
    }
}
