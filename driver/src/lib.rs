//! # xir-driver — the `xir-opt` driver
//!
//! [`xir_opt_main`] is the whole tool as a function: it takes the arguments (without the
//! program name), the bytes of standard input and two writers, and returns the exit
//! status. The `xir-opt` binary is a thin wrapper around it, and the corpus harness calls
//! it in-process.
//!
//! One run: parse the command line ([`cli`]), check the pass pipeline ([`pipeline`]),
//! read the input, optionally split it at `// -----` lines ([`split`]), and for each
//! chunk parse, verify, run the pipeline, verify again and print. With
//! `--verify-diagnostics` the diagnostics are matched against `expected-*` comments
//! ([`expect`]) instead of being printed.
//!
//! Exit status: 0 success, 1 user error (bad flag, unreadable input, invalid IR,
//! mismatched expected diagnostics, a failed pipeline: see [`pipeline`]), 2 internal
//! error (a bug: a caught panic, including a pass that panicked), 3 a pass left invalid
//! IR behind (`--verify-each`).
//!
//! Output goes to standard output, or with `-o FILE` to a temporary file renamed over
//! `FILE` on success ([`output`]); on any error no file is written. With `-o FILE` the
//! last verification (the only one without a pipeline, else the one after it) runs on
//! a second thread while the module is printed into the temporary file, which is thrown
//! away if it fails; standard output cannot take bytes back, so there the module is
//! verified before anything is printed. Either way the diagnostics and the exit status
//! are the same. Large input files are read into huge pages ([`input`]). With
//! `--split-input-file` standard output still receives the chunks that succeeded (as
//! `mlir-opt` does), joined by `// -----`.

#![warn(missing_docs)]

pub mod cli;
pub mod expect;
pub mod frontend;
pub mod input;
pub mod instrument;
pub mod output;
pub mod pipeline;
pub mod semantics;
pub mod spirv;
pub mod split;

use cli::{Cli, Emit};
use pipeline::PipelineError;
use std::borrow::Cow;
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use xir_ir::diag::{Diagnostic, Severity, render, render_at};

/// Exit status for success.
pub const EXIT_OK: i32 = 0;
/// Exit status for user errors.
pub const EXIT_USER_ERROR: i32 = 1;
/// Exit status for internal errors (bugs).
pub const EXIT_INTERNAL_ERROR: i32 = 2;

static STDERR_IS_TERMINAL: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Tells the driver whether the process's standard error is a terminal (the `xir-opt`
/// binary calls this; in-process callers never get colours from `--color=auto`).
pub fn set_stderr_is_terminal(yes: bool) {
    STDERR_IS_TERMINAL.store(yes, std::sync::atomic::Ordering::Relaxed);
}

static STDOUT_IS_TERMINAL: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Tells the driver whether standard output is a terminal (bitcode is never written to
/// one).
pub fn set_stdout_is_terminal(yes: bool) {
    STDOUT_IS_TERMINAL.store(yes, std::sync::atomic::Ordering::Relaxed);
}

static EXIT_WITHOUT_FREE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Tells the driver that the process ends right after [`xir_opt_main`] returns, so the
/// module and the input text need not be freed (like clang's `-disable-free`): dropping
/// a million instructions costs tens of milliseconds for memory the exit returns anyway.
/// Only the `xir-opt` binary sets this; in-process callers (the corpus harness) free
/// everything as usual.
pub fn set_exit_without_free(yes: bool) {
    EXIT_WITHOUT_FREE.store(yes, std::sync::atomic::Ordering::Relaxed);
}

/// Drops `x`, or leaks it when the process is about to exit ([`set_exit_without_free`]).
fn release<T>(x: T) {
    if EXIT_WITHOUT_FREE.load(std::sync::atomic::Ordering::Relaxed) {
        std::mem::forget(x);
    } else {
        drop(x);
    }
}

/// What [`set_stderr_is_terminal`] recorded.
pub fn stderr_is_terminal() -> bool {
    STDERR_IS_TERMINAL.load(std::sync::atomic::Ordering::Relaxed)
}

/// Buffered result of one run, written out only at the end.
#[derive(Default)]
struct Outcome {
    out: Rendered,
    err: String,
    code: i32,
}

/// Standard output of a run: bytes, or a module printed straight into the writer at the
/// end (so a large module's text never exists in memory as a whole).
enum Rendered {
    Bytes(Vec<u8>),
    Module(Box<xir_ir::Module>, frontend::PrintChoice),
}

impl Default for Rendered {
    fn default() -> Self {
        Rendered::Bytes(Vec::new())
    }
}

impl Rendered {
    fn write_to(&self, w: &mut dyn Write) -> std::io::Result<()> {
        match self {
            Rendered::Bytes(b) => w.write_all(b),
            Rendered::Module(m, choice) => frontend::print_module_to(m, *choice, w),
        }
    }

    fn into_bytes(self) -> Vec<u8> {
        match self {
            Rendered::Bytes(b) => b,
            Rendered::Module(m, choice) => frontend::print_module(&m, choice).into_bytes(),
        }
    }
}

impl Outcome {
    fn usage_error(msg: impl std::fmt::Display) -> Outcome {
        Outcome {
            err: format!("xir-opt: error: {msg}\n"),
            code: EXIT_USER_ERROR,
            ..Outcome::default()
        }
    }
}

/// Runs `xir-opt` with `args` (no program name) and `stdin`, writing to `stdout` and
/// `stderr`; returns the exit status. Never panics: a panic inside is reported as an
/// internal error with status 2.
pub fn xir_opt_main(
    args: &[String],
    stdin: &[u8],
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> i32 {
    // Printing a module happens while writing standard output, so it runs under the
    // same panic guard as everything else.
    let outcome = match catch_unwind(AssertUnwindSafe(|| {
        let mut o = run(args, stdin);
        // A write error (a full disk, `/dev/full`) is reported with its cause; a
        // closed pipe ends the run quietly. Either way the output is incomplete.
        let written = o.out.write_to(stdout).and_then(|()| stdout.flush());
        release(std::mem::take(&mut o.out));
        if let Err(e) = written {
            if e.kind() != std::io::ErrorKind::BrokenPipe {
                o.err.push_str(&format!(
                    "xir-opt: error: cannot write to standard output: {}\n",
                    io_msg(&e)
                ));
            }
            if o.code == EXIT_OK {
                o.code = EXIT_USER_ERROR;
            }
        }
        o
    })) {
        Ok(o) => o,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Outcome {
                err: format!(
                    "xir-opt: internal error: {msg}\nThis is a bug in xir; please report it with the input and command line.\n"
                ),
                code: EXIT_INTERNAL_ERROR,
                ..Outcome::default()
            }
        }
    };
    let _ = stderr.write_all(outcome.err.as_bytes());
    let _ = stderr.flush();
    outcome.code
}

/// Whether a run with these arguments reads standard input (so the binary only blocks
/// on stdin when it must).
pub fn needs_stdin(args: &[String]) -> bool {
    Cli::try_parse_args(args)
        .map(|c| matches!(c.input.as_deref(), None | Some("-")))
        .unwrap_or(false)
}

/// What one chunk produced.
struct ChunkResult<'s> {
    /// The chunk's text (emptied once nothing needs it any more).
    text: Cow<'s, str>,
    /// The 0-based line of the input on which the chunk starts.
    first_line: usize,
    output: Option<Rendered>,
    diags: Vec<Diagnostic>,
    /// Pipeline log (warnings, dumps, reports) and rendered pipeline errors.
    log: String,
    /// Exit status of a failed pipeline run.
    code: i32,
    /// The last verification, left to run while the output is printed ([`LateCheck`]).
    late_check: Option<LateCheck>,
}

/// The last verification of a module, run on a second thread while the module is
/// printed into the temporary `-o` file, which is thrown away if it finds an error
/// (see [`write_checked`]). Only for `-o FILE` output of a single chunk: standard output
/// cannot take bytes back, so there the module is verified before a byte is printed.
struct LateCheck {
    options: frontend::VerifyChoice,
    /// The source map of the parsed text when no pipeline ran since parsing (messages
    /// then name entities by the text's labels, exactly as the early check would).
    source_map: Option<xir_ir::source_map::SourceMap>,
}

fn has_errors(diags: &[Diagnostic]) -> bool {
    diags.iter().any(|d| d.severity == Severity::Error)
}

/// Keeps the diagnostics up to the `limit`-th error (`--error-limit`; 0 keeps all) and
/// ends a cut list with a note, as clang's `-ferror-limit` does. The parser stops by
/// itself after [`xir_ir::text::MAX_ERRORS`], the default limit.
fn cap_errors(diags: &mut Vec<Diagnostic>, limit: usize) {
    if limit == 0 {
        return;
    }
    let mut errors = 0;
    let cut = diags.iter().position(|d| {
        errors += usize::from(d.severity == Severity::Error);
        errors > limit
    });
    if let Some(i) = cut {
        diags.truncate(i);
        let mut note = Diagnostic::error(
            format!(
                "too many errors; stopping after {limit} (use --error-limit=N to change the limit, 0 for none)"
            ),
            None,
        );
        note.severity = Severity::Note;
        diags.push(note);
    }
}

/// Parses, verifies, runs the pipeline and verifies again. With `late` set (see
/// [`LateCheck`]) the last verification is not run here but handed back in the result.
fn process_chunk<'s>(
    (mut text, first_line): (Cow<'s, str>, usize),
    raw: Option<&[u8]>,
    cli: &Cli,
    verify: &frontend::VerifyChoice,
    late: bool,
) -> ChunkResult<'s> {
    let mut diags = Vec::new();
    let mut log = String::new();
    let mut code = EXIT_OK;
    let mut late_check = None;
    let output = (|| {
        // Interchange text and bitcode are detected from their first bytes.
        let decoded = frontend::decode_interchange(raw.unwrap_or(text.as_bytes()));
        let from_text = decoded.is_none();
        let parsed = match decoded {
            Some(r) => r.map(|m| (m, xir_ir::source_map::SourceMap::default())),
            None => frontend::parse_module(&text),
        };
        let (mut module, source_map) = match parsed {
            Ok(m) => m,
            Err(d) => {
                diags.extend(d);
                return None;
            }
        };
        let runs_pipeline = cli.passes.is_some() || cli.pipeline.is_some();
        // The backend's diagnostics point into the text when no pipeline rewrote it.
        let spirv_map =
            (cli.emit.is_spirv() && !runs_pipeline && from_text).then(|| source_map.clone());
        // The last verification (after the pipeline, or the only one without) may be
        // left to run while the module is printed ([`LateCheck`]).
        let late = late
            && !cli.no_verify
            && !cli.verify_diagnostics
            && cli.emit.is_text()
            && cli.print_analyses.is_empty();
        let parse_check_is_late = late && !runs_pipeline;
        if !cli.no_verify && !parse_check_is_late {
            let source = from_text.then_some((&source_map, &*text));
            diags.extend(frontend::verify_module(&module, verify, source));
            if has_errors(&diags) {
                return None;
            }
        }
        // Only a late check of the parsed text still needs the spans (for the text's
        // labels); otherwise free them before the pipeline and the printer allocate.
        // A pipeline keeps them: a verifier error after a pass is located at the
        // offending entity's place in the input (arenas only grow, so an entity of the
        // input keeps its id through every pass; new ones have no place and stay
        // unlocated).
        let (late_source_map, pipeline_map) = if parse_check_is_late && from_text {
            (Some(source_map), None)
        } else if runs_pipeline && from_text {
            (None, Some(source_map))
        } else {
            (None, None)
        };
        let input_source = pipeline_map.as_ref().map(|m| pipeline::InputSource {
            name: cli.input_name(),
            text: &text,
            map: m,
        });
        match pipeline::run_pipeline(&mut module, cli, &mut log, input_source) {
            Ok(()) => {}
            Err(PipelineError::Diagnostics(d)) => {
                diags.extend(d);
                return None;
            }
            Err(PipelineError::Usage(m)) => {
                diags.push(Diagnostic::error(m, None));
                return None;
            }
            Err(PipelineError::Rendered(m)) => {
                log.push_str(&m);
                code = EXIT_USER_ERROR;
                return None;
            }
            Err(PipelineError::Failed { message, code: c }) => {
                log.push_str(&message);
                code = c;
                return None;
            }
        }
        if late {
            late_check = Some(LateCheck {
                options: *verify,
                source_map: late_source_map,
            });
            return Some(Rendered::Module(Box::new(module), print_choice(cli)));
        }
        if !cli.no_verify && runs_pipeline {
            let source = pipeline_map.as_ref().map(|m| (m, &*text));
            diags.extend(frontend::verify_module(&module, verify, source));
            if has_errors(&diags) {
                return None;
            }
        }
        if !cli.print_analyses.is_empty() {
            return Some(Rendered::Bytes(print_analyses(&module, cli).into_bytes()));
        }
        if cli.emit.is_spirv() {
            let kernel = match spirv::select_kernel(&module, cli.kernel.as_deref()) {
                Ok(k) => k,
                Err(m) => {
                    diags.push(Diagnostic::error(m, None));
                    return None;
                }
            };
            let form = if cli.emit == Emit::Spirv {
                spirv::SpirvEmit::Spirv
            } else {
                spirv::SpirvEmit::SpirvAsm
            };
            return match spirv::compile_to_bytes(
                &module,
                kernel,
                &xir_codegen::CompileOptions::default(),
                form,
                spirv_map.as_ref(),
            ) {
                Ok((b, _)) => Some(Rendered::Bytes(b)),
                Err((c, d)) => {
                    diags.extend(d);
                    code = c;
                    None
                }
            };
        }
        if matches!(cli.emit, Emit::Interchange | Emit::Bitcode) {
            return match frontend::encode_interchange(&module, cli.emit == Emit::Bitcode) {
                Ok(b) => Some(Rendered::Bytes(b)),
                Err(d) => {
                    diags.extend(d);
                    None
                }
            };
        }
        let choice = print_choice(cli);
        // The input text is only needed to render diagnostics and to match
        // `expected-*` comments. With neither pending, free it before printing: the
        // peak is then the IR alone (the module is printed while the output is written,
        // see `Rendered`).
        if diags.is_empty() && !cli.verify_diagnostics {
            text = Cow::Borrowed("");
        }
        Some(Rendered::Module(Box::new(module), choice))
    })();
    if !cli.verify_diagnostics {
        cap_errors(&mut diags, cli.error_limit);
    }
    ChunkResult {
        text,
        first_line,
        output,
        diags,
        log,
        code,
        late_check,
    }
}

/// `--print=ANALYSIS,...`: the analyses of every function, named as the module printer
/// names blocks (the names were checked by [`check_print_analyses`]).
fn print_analyses(module: &xir_ir::Module, cli: &Cli) -> String {
    use xir_ir::analysis::print;
    let list: Vec<_> = cli
        .print_analyses
        .iter()
        .filter_map(|n| print::find(n))
        .collect();
    let opts = xir_ir::text::PrintOptions {
        flat: cli.emit == Emit::XirFlat,
        ..Default::default()
    };
    print::print_analyses(module, &list, &opts)
}

/// Every `--print` name is a printable analysis.
fn check_print_analyses(cli: &Cli) -> Result<(), String> {
    use xir_ir::analysis::print::{PRINTABLE, find};
    for n in &cli.print_analyses {
        if find(n).is_none() {
            let known: Vec<&str> = PRINTABLE.iter().map(|a| a.name).collect();
            return Err(format!(
                "--print: unknown analysis `{n}` (available: {})",
                known.join(", ")
            ));
        }
    }
    if !cli.print_analyses.is_empty() && !cli.emit.is_text() {
        return Err("--print cannot be combined with --emit=interchange or bitcode".into());
    }
    Ok(())
}

fn print_choice(cli: &Cli) -> frontend::PrintChoice {
    frontend::PrintChoice {
        flat: cli.emit == Emit::XirFlat,
        debug_info: cli.debug_info,
    }
}

/// Why [`write_checked`] stopped before the output was complete.
#[derive(Debug)]
struct LateCheckFailed;

impl std::fmt::Display for LateCheckFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the module failed verification")
    }
}

impl std::error::Error for LateCheckFailed {}

/// Writes `text` into `w` while `check` verifies the module on a second thread (both
/// only read it); the verifier's diagnostics land in `diags`. Fails with
/// [`LateCheckFailed`] when they include an error, so the caller's temporary file is
/// removed and nothing reaches the target. `source` is the parsed text (for names).
fn write_checked(
    text: &Rendered,
    check: &LateCheck,
    source: &str,
    w: &mut dyn Write,
    diags: &mut Vec<Diagnostic>,
) -> std::io::Result<()> {
    let Rendered::Module(module, choice) = text else {
        return text.write_to(w);
    };
    let verify = || {
        let src = check.source_map.as_ref().map(|m| (m, source));
        frontend::verify_module(module, &check.options, src)
    };
    let (found, printed) = std::thread::scope(|scope| {
        let verifier = std::thread::Builder::new()
            .name("xir-verify".into())
            .spawn_scoped(scope, verify);
        match verifier {
            Ok(handle) => {
                let printed = frontend::print_module_to(module, *choice, w);
                let found = handle
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p));
                (found, printed)
            }
            // No thread to be had: verify first, then print.
            Err(_) => {
                let found = verify();
                if has_errors(&found) {
                    (found, Ok(()))
                } else {
                    (found, frontend::print_module_to(module, *choice, w))
                }
            }
        }
    });
    let failed = has_errors(&found);
    diags.extend(found);
    if failed {
        return Err(std::io::Error::other(LateCheckFailed));
    }
    printed
}

/// The bytes of the input: standard input as given, or a file ([`input::read_file`]).
enum RawInput<'a> {
    Stdin(&'a [u8]),
    File(input::FileBytes),
}

impl std::ops::Deref for RawInput<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            RawInput::Stdin(b) => b,
            RawInput::File(f) => f,
        }
    }
}

fn read_raw<'a>(cli: &Cli, stdin: &'a [u8]) -> Result<RawInput<'a>, String> {
    Ok(match cli.input.as_deref() {
        None | Some("-") => RawInput::Stdin(stdin),
        Some(p) => RawInput::File(
            input::read_file(std::path::Path::new(p))
                .map_err(|e| format!("cannot read '{p}': {}", io_msg(&e)))?,
        ),
    })
}

fn utf8_input<'a>(cli: &Cli, bytes: &'a [u8]) -> Result<&'a str, String> {
    std::str::from_utf8(bytes).map_err(|e| {
        format!(
            "{} is not valid UTF-8 (byte offset {})",
            cli.input_name(),
            e.valid_up_to()
        )
    })
}

fn io_msg(e: &std::io::Error) -> String {
    xir_sysio::stdio::cause(e)
}

fn run(args: &[String], stdin: &[u8]) -> Outcome {
    let cli = match Cli::try_parse_args(args) {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            let text = e.render().to_string();
            return match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => Outcome {
                    out: Rendered::Bytes(text.into_bytes()),
                    ..Outcome::default()
                },
                // clap's "error: …" has no location: name the tool, as LLVM's do.
                _ => Outcome {
                    err: format!("xir-opt: {text}"),
                    code: EXIT_USER_ERROR,
                    ..Outcome::default()
                },
            };
        }
    };
    let pipeline_error = |e: PipelineError| match e {
        PipelineError::Usage(m) => Outcome::usage_error(m),
        PipelineError::Rendered(m) => Outcome {
            // A rendered error with a location starts with it; one without names the tool.
            err: if m.starts_with("error:") {
                format!("xir-opt: {m}")
            } else {
                m
            },
            code: EXIT_USER_ERROR,
            ..Outcome::default()
        },
        PipelineError::Failed { message, code } => Outcome {
            err: message,
            code,
            ..Outcome::default()
        },
        PipelineError::Diagnostics(d) => Outcome {
            err: render(cli.input_name(), "", &d),
            code: EXIT_USER_ERROR,
            ..Outcome::default()
        },
    };
    if let Some(early) = pipeline::early_output(&cli) {
        return match early {
            Ok(text) => Outcome {
                out: Rendered::Bytes(text.into_bytes()),
                ..Outcome::default()
            },
            Err(e) => pipeline_error(e),
        };
    }
    if let Err(e) = pipeline::check_pipeline(&cli) {
        return pipeline_error(e);
    }
    let verify = match cli.verify_options.as_deref() {
        Some(list) => match frontend::parse_verify_options(list) {
            Ok(v) => v,
            Err(m) => return Outcome::usage_error(format!("--verify-options: {m}")),
        },
        None => frontend::VerifyChoice::default(),
    };
    if cli.emit.is_binary()
        && matches!(cli.output.as_deref(), None | Some("-"))
        && STDOUT_IS_TERMINAL.load(std::sync::atomic::Ordering::Relaxed)
    {
        return Outcome::usage_error(format!(
            "refusing to write {} to a terminal; use -o FILE or a pipe",
            if cli.emit == Emit::Bitcode {
                "bitcode"
            } else {
                "a SPIR-V binary"
            }
        ));
    }
    if let Err(m) = check_print_analyses(&cli) {
        return Outcome::usage_error(m);
    }
    if (cli.emit == Emit::Bitcode || cli.emit.is_spirv()) && cli.split_input_file {
        return Outcome::usage_error(format!(
            "--emit={} cannot be combined with --split-input-file",
            match cli.emit {
                Emit::Bitcode => "bitcode",
                Emit::Spirv => "spirv",
                _ => "spirv-asm",
            }
        ));
    }
    let raw = match read_raw(&cli, stdin) {
        Ok(b) => b,
        Err(m) => return Outcome::usage_error(m),
    };
    let bitcode_input =
        xir_ir::interchange::detect_format(&raw) == xir_ir::interchange::InputFormat::Bitcode;
    // Text input is read in place (no copy); only bitcode is handed on as bytes.
    let (src, bitcode) = if bitcode_input {
        ("", Some(&raw[..]))
    } else {
        match utf8_input(&cli, &raw) {
            Ok(s) => (s, None),
            Err(m) => return Outcome::usage_error(m),
        }
    };
    let chunks: Vec<(Cow<str>, usize)> = if cli.split_input_file && !bitcode_input {
        split::split(src)
            .into_iter()
            .map(|c| (Cow::Borrowed(c.text), c.first_line))
            .collect()
    } else {
        vec![(Cow::Borrowed(src), 0)]
    };
    // The last verification overlaps the printing when one module goes to a file.
    // Not so for a device or a FIFO (`-o /dev/null`), which cannot take bytes back.
    let late = chunks.len() == 1
        && matches!(cli.output.as_deref(), Some(p) if p != "-"
            && output::Target::of(std::path::Path::new(p)).is_ok_and(|t| t.is_withdrawable()));
    let several = chunks.len() > 1;
    let results: Vec<ChunkResult> = chunks
        .into_iter()
        .map(|c| {
            let mut r = process_chunk(c, bitcode, &cli, &verify, late);
            // Several chunks are joined as text: print each now, so its module is freed.
            if several && let Some(o) = r.output.take() {
                r.output = Some(Rendered::Bytes(o.into_bytes()));
            }
            r
        })
        .collect();

    let name = cli.input_name();
    let mut err = String::new();
    let ok = if cli.verify_diagnostics {
        let mut all_matched = true;
        for r in &results {
            let mismatches = match expect::parse_expectations(&r.text) {
                Ok(mut exp) => expect::check(&r.text, &mut exp, &r.diags),
                Err(bad) => bad,
            };
            all_matched &= mismatches.is_empty();
            err.push_str(&render_at(name, &r.text, r.first_line, &mismatches));
        }
        all_matched
    } else {
        for r in &results {
            err.push_str(&r.log);
            err.push_str(&render_at(name, &r.text, r.first_line, &r.diags));
        }
        results.iter().all(|r| r.output.is_some())
    };
    let failed_code = results
        .iter()
        .map(|r| r.code)
        .find(|c| *c != EXIT_OK)
        .unwrap_or(EXIT_USER_ERROR);
    // The check left for the writing, with the text its diagnostics point into.
    let mut late_check = None;
    let mut outputs: Vec<Rendered> = results
        .into_iter()
        .map(|r| {
            if let Some(c) = r.late_check {
                late_check = Some((c, r.text));
            }
            r.output.unwrap_or_default()
        })
        .collect();
    let text = if outputs.len() == 1 {
        outputs.pop().unwrap_or_default()
    } else {
        let strings: Vec<String> = outputs
            .into_iter()
            .map(|o| String::from_utf8_lossy(&o.into_bytes()).into_owned())
            .collect();
        Rendered::Bytes(split::join(&strings).into_bytes())
    };

    let mut outcome = Outcome {
        err,
        code: if ok { EXIT_OK } else { failed_code },
        ..Outcome::default()
    };
    match cli.output.as_deref() {
        None | Some("-") => outcome.out = text,
        Some(path) if ok => {
            let mut late_diags = Vec::new();
            let written =
                output::write_atomically_with(std::path::Path::new(path), |w| match &late_check {
                    Some((check, source)) => {
                        write_checked(&text, check, source, w, &mut late_diags)
                    }
                    None => text.write_to(w),
                });
            if let Some((_, source)) = &late_check {
                cap_errors(&mut late_diags, cli.error_limit);
                outcome.err.push_str(&render(name, source, &late_diags));
            }
            match written {
                Ok(()) => {}
                Err(e) if e.get_ref().is_some_and(|x| x.is::<LateCheckFailed>()) => {
                    outcome.code = EXIT_USER_ERROR;
                }
                Err(e) => {
                    outcome.err.push_str(&format!(
                        "xir-opt: error: cannot write '{path}': {}\n",
                        io_msg(&e)
                    ));
                    outcome.code = EXIT_USER_ERROR;
                }
            }
            release((text, late_check));
        }
        Some(_) => release(text),
    }
    outcome
}
