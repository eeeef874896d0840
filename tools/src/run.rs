//! `xir-run`: runs a kernel on buffers from `SPEC.json` and prints the buffers after.
//!
//! ```text
//! xir-run KERNEL.xir [--kernel NAME] --engine=interp|vulkan --buffers SPEC.json
//!         [--dispatch X,Y,Z] [--block-size X,Y,Z] [--pipeline NAME|FILE|none]
//!         [--pipeline-param K=V]... [--out RESULTS.json] [--format=json|text]
//!         [--float-format=decimal|bits] [--schedule=forward|reverse]
//!         [--warp-size N] [--max-steps N]
//!         [--device=auto|cpu|gpu|INDEX] [--vulkan-validation] [--show-device]
//!         [--expect FILE [--float-ulps N]]
//! ```
//!
//! Exit statuses: 0 ran; 1 bad input (usage, parse, verifier, SPEC.json, a construct
//! the engine refuses); 2 internal error (for Vulkan also: invalid SPIR-V from the
//! backend, any validation-layer message, a failed Vulkan call); 3 undefined behaviour
//! (or a failed `assert`); 4 inconclusive (`--max-steps` reached); 5 unsupported (no
//! Vulkan loader, driver, device, validation layer, or a device lacking a feature the
//! kernel needs). Results go to standard output (or `--out`, written only after a
//! successful run); `print` lines go to standard error. Reading the specification and
//! printing results is `xir_interp::spec`, shared by every engine.
//!
//! The pipeline runs before either engine; `--engine=vulkan` defaults to `spirv-final`
//! (`--pipeline=none` for a kernel already in the backend's dialect), the interpreter
//! to none. The Vulkan engine ([`crate::run_vulkan`]) compiles with `xir-codegen` (which
//! validates the SPIR-V first), and runs the Khronos validation layer when
//! `--vulkan-validation` is given or `XIR_VULKAN_VALIDATION=1` is set. `--schedule` and
//! `--max-steps` are the interpreter's; `--warp-size` is the subgroup size the results
//! assume, which a device must have (or be able to require) for a kernel with subgroup
//! operations. `--expect` compares the printed results with a file
//! ([`crate::run_compare`]); a difference is exit 1, after the results are written.

use clap::{Parser, ValueEnum};
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use xir_interp::exit;
use xir_interp::spec::{self, FloatFormat};
use xir_interp::{FaultKind, RunConfig, Schedule};
use xir_ir::diag::{Diagnostic, Severity, render};

/// Execution engines.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Engine {
    /// The reference interpreter (`xir-interp`).
    Interp,
    /// Compiled to SPIR-V and dispatched on a Vulkan device.
    Vulkan,
}

/// Output formats.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// `[{"arg": I, "values": [...]}, …]`.
    Json,
    /// One line per element: `arg<I>[<k>] = <value>`.
    Text,
}

/// Float spelling.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum FloatFmt {
    /// Shortest decimal that reads back bit-exactly.
    Decimal,
    /// Hex bit patterns.
    Bits,
}

/// Thread order inside a block.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Sched {
    /// Linear thread order.
    Forward,
    /// Reversed.
    Reverse,
}

/// The command line.
#[derive(Parser, Debug)]
#[command(
    name = "xir-run",
    about = "Run an XIR kernel on buffers and print them after"
)]
pub struct RunCli {
    /// The module (xir text).
    pub input: String,
    /// The kernel to run (name metadata, label, or #k); needed when the module has several.
    #[arg(long)]
    pub kernel: Option<String>,
    /// The execution engine.
    #[arg(long, value_enum)]
    pub engine: Engine,
    /// The buffer specification (`-` reads standard input).
    #[arg(long)]
    pub buffers: String,
    /// Threads per axis (X[,Y[,Z]]); overrides SPEC.json's `dispatch`.
    #[arg(long)]
    pub dispatch: Option<String>,
    /// Block size (X[,Y[,Z]]); overrides SPEC.json's `block_size` and the module's.
    #[arg(long)]
    pub block_size: Option<String>,
    /// A pipeline to run first (a name or a .xpl file).
    #[arg(long)]
    pub pipeline: Option<String>,
    /// Pipeline parameter K=V (repeatable).
    #[arg(long)]
    pub pipeline_param: Vec<String>,
    /// Write the results here instead of standard output.
    #[arg(long)]
    pub out: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    pub format: Format,
    /// Float spelling in the output.
    #[arg(long, value_enum, default_value = "decimal")]
    pub float_format: FloatFmt,
    /// Thread order inside a block.
    #[arg(long, value_enum, default_value = "forward")]
    pub schedule: Sched,
    /// Warp size (1 to 128).
    #[arg(long, default_value_t = 32)]
    pub warp_size: u32,
    /// Most ops executed before the run is inconclusive (exit 4).
    #[arg(long, default_value_t = 100_000_000)]
    pub max_steps: u64,
    /// Vulkan device: auto (discrete, integrated, virtual GPU, then CPU), cpu, gpu, or an
    /// index in enumeration order.
    #[arg(long, default_value = "auto")]
    pub device: xir_vulkan::DeviceChoice,
    /// Enable VK_LAYER_KHRONOS_validation; any warning or error fails the run (exit 2).
    /// `XIR_VULKAN_VALIDATION=1` does the same.
    #[arg(long)]
    pub vulkan_validation: bool,
    /// Print the Vulkan device used to standard error.
    #[arg(long)]
    pub show_device: bool,
    /// Compare the results with this file (needs --format=text --float-format=bits);
    /// a difference fails the run (exit 1) after the results are written.
    #[arg(long)]
    pub expect: Option<String>,
    /// With --expect: floats may differ by this many units in the last place.
    #[arg(long, default_value_t = 0, requires = "expect")]
    pub float_ulps: u64,
}

struct Failure {
    code: i32,
    text: String,
}

fn fail(text: impl Into<String>) -> Failure {
    Failure {
        code: exit::USER,
        text: format!("xir-run: error: {}\n", text.into()),
    }
}

/// Runs `xir-run` with `args` (no program name); returns the exit status.
pub fn xir_run_main(
    args: &[String],
    stdin: &[u8],
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> i32 {
    let r = catch_unwind(AssertUnwindSafe(|| run_and_compare(args, stdin, stderr)));
    match r {
        Ok(Ok((text, out))) => {
            match out {
                Some(path) => {
                    if let Err(e) = std::fs::write(&path, text) {
                        let _ = writeln!(stderr, "xir-run: error: cannot write '{path}': {e}");
                        return exit::USER;
                    }
                }
                None => {
                    let _ = stdout.write_all(text.as_bytes());
                }
            }
            exit::OK
        }
        Ok(Err(f)) => {
            let _ = stderr.write_all(f.text.as_bytes());
            f.code
        }
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            let _ = writeln!(
                stderr,
                "xir-run: internal error: {msg}\nThis is a bug in xir; please report it with the input and command line."
            );
            exit::INTERNAL
        }
    }
}

/// Runs, then checks `--expect`. A difference is reported after the results are written,
/// so the mismatching output can be inspected.
fn run_and_compare(
    args: &[String],
    stdin: &[u8],
    stderr: &mut dyn Write,
) -> Result<(String, Option<String>), Failure> {
    let argv = std::iter::once("xir-run".to_string()).chain(args.iter().cloned());
    let expect = match RunCli::try_parse_from(argv) {
        Ok(cli) => cli.expect.clone().map(|p| (p, cli)),
        Err(_) => None, // run() renders the usage error (or --help)
    };
    if let Some((_, cli)) = &expect
        && (cli.format != Format::Text || cli.float_format != FloatFmt::Bits)
    {
        return Err(fail(
            "--expect compares bit patterns: give --format=text --float-format=bits",
        ));
    }
    let (text, out) = run(args, stdin, stderr)?;
    let Some((path, cli)) = &expect else {
        return Ok((text, out));
    };
    let expected = read(path, stdin)?;
    match crate::run_compare::compare(&expected, &text, cli.float_ulps) {
        Ok(()) => Ok((text, out)),
        Err(why) => {
            if let Some(p) = &out {
                let _ = std::fs::write(p, &text);
            }
            Err(fail(format!("the results differ from '{path}': {why}")))
        }
    }
}

fn read(path: &str, stdin: &[u8]) -> Result<String, Failure> {
    if path == "-" {
        return String::from_utf8(stdin.to_vec()).map_err(|_| fail("standard input is not UTF-8"));
    }
    std::fs::read_to_string(path).map_err(|e| fail(format!("cannot read '{path}': {e}")))
}

fn run(
    args: &[String],
    stdin: &[u8],
    stderr: &mut dyn Write,
) -> Result<(String, Option<String>), Failure> {
    let argv = std::iter::once("xir-run".to_string()).chain(args.iter().cloned());
    let cli = match RunCli::try_parse_from(argv) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { exit::USER } else { exit::OK };
            let text = e.render().to_string();
            if code == exit::OK {
                return Ok((text, None));
            }
            return Err(Failure { code, text });
        }
    };
    if cli.input == "-" && cli.buffers == "-" {
        return Err(fail(
            "the module and --buffers cannot both be standard input",
        ));
    }
    if !(1..=128).contains(&cli.warp_size) {
        return Err(fail("--warp-size must be between 1 and 128"));
    }
    let name = if cli.input == "-" {
        "<stdin>".to_string()
    } else {
        cli.input.clone()
    };
    let src = read(&cli.input, stdin)?;
    let located = |diags: &[Diagnostic]| {
        let mut d = diags.to_vec();
        d.dedup();
        Failure {
            code: exit::USER,
            text: render(&name, &src, &d),
        }
    };
    let (mut module, map) = xir_driver::frontend::parse_module(&src).map_err(|d| located(&d))?;
    let choice = xir_driver::frontend::VerifyChoice::default();
    let diags = xir_driver::frontend::verify_module(&module, &choice, Some((&map, &src)));
    if diags.iter().any(|d| d.severity == Severity::Error) {
        return Err(located(&diags));
    }
    let spec_text = read(&cli.buffers, stdin)?;
    let spec = spec::parse(&spec_text).map_err(fail)?;
    let pipeline = match (&cli.pipeline, cli.engine) {
        (Some(p), _) if p == "none" => None,
        (Some(p), _) => Some(p.clone()),
        (None, Engine::Vulkan) => Some("spirv-final".to_string()),
        (None, Engine::Interp) => None,
    };
    if let Some(p) = &pipeline {
        let mut opt_args = vec!["--pipeline".to_string(), p.clone()];
        for kv in &cli.pipeline_param {
            opt_args.push("--pipeline-param".into());
            opt_args.push(kv.clone());
        }
        let opt =
            xir_driver::cli::Cli::try_parse_args(&opt_args).map_err(|e| fail(e.to_string()))?;
        let mut log = String::new();
        let r = xir_driver::pipeline::run_pipeline(&mut module, &opt, &mut log, None);
        let _ = stderr.write_all(log.as_bytes());
        if let Err(e) = r {
            let text = match e {
                xir_driver::pipeline::PipelineError::Usage(m) => format!("xir-run: error: {m}\n"),
                xir_driver::pipeline::PipelineError::Rendered(m) => m,
                xir_driver::pipeline::PipelineError::Diagnostics(d) => render(&name, &src, &d),
                xir_driver::pipeline::PipelineError::Failed { message, .. } => message,
            };
            return Err(Failure {
                code: exit::USER,
                text,
            });
        }
    }
    let kernel = xir_interp::find_kernel(&module, cli.kernel.as_deref(), Some(&map), Some(&src))
        .map_err(fail)?;
    // The interpreter refuses what it does not execute before the specification is read.
    let program = match cli.engine {
        Engine::Interp => {
            Some(xir_interp::lower(&module, kernel, Some(&map)).map_err(|d| located(&d))?)
        }
        Engine::Vulkan => None,
    };
    let module_block = match module.func(kernel).kind {
        xir_ir::FunctionKind::Kernel { block_size } => block_size,
        _ => return Err(fail("the selected function is not a kernel")),
    };
    let args_v = spec::bind(&spec, &module, kernel).map_err(fail)?;
    let dispatch = match (&cli.dispatch, spec.dispatch) {
        (Some(s), _) => spec::parse_triple(s, "--dispatch").map_err(fail)?,
        (None, Some(d)) => d,
        (None, None) => {
            return Err(fail(
                "no dispatch size: give --dispatch X,Y,Z or `dispatch` in SPEC.json",
            ));
        }
    };
    let block_size = match (&cli.block_size, spec.block_size) {
        (Some(s), _) => spec::parse_triple(s, "--block-size").map_err(fail)?,
        (None, Some(b)) => b,
        (None, None) => module_block,
    };
    let threads: u64 = block_size.iter().map(|&x| x as u64).product();
    if block_size.contains(&0) || threads > 1024 || !threads.is_multiple_of(32) {
        return Err(fail(format!(
            "block size {}x{}x{} is invalid (the thread count must be a multiple of 32 between 32 and 1024, as the verifier requires of kernels)",
            block_size[0], block_size[1], block_size[2]
        )));
    }
    if cli.engine == Engine::Vulkan {
        return run_vulkan(
            &cli,
            &mut module,
            kernel,
            &map,
            args_v,
            dispatch,
            block_size,
        )
        .map_err(|f| match f {
            VkFail::Rendered(code, diags) => Failure {
                code,
                text: render(&name, &src, &diags),
            },
            VkFail::Plain(f) => f,
        })
        .map(|(text, dev)| {
            if cli.show_device {
                let _ = writeln!(stderr, "xir-run: {dev}");
            }
            (text, cli.out.clone())
        });
    }
    let program = program.expect("lowered for the interpreter");
    let cfg = RunConfig {
        dispatch,
        block_size,
        warp_size: cli.warp_size,
        schedule: match cli.schedule {
            Sched::Forward => Schedule::Forward,
            Sched::Reverse => Schedule::Reverse,
        },
        max_steps: cli.max_steps,
    };
    let ff = match cli.float_format {
        FloatFmt::Decimal => FloatFormat::Decimal,
        FloatFmt::Bits => FloatFormat::Bits,
    };
    match xir_interp::run(&program, args_v, &cfg) {
        Ok(done) => {
            for p in &done.prints {
                let _ = writeln!(stderr, "{p}");
            }
            let text = match cli.format {
                Format::Json => spec::results_json(&module, kernel, &done.buffers, ff),
                Format::Text => spec::results_text(&module, kernel, &done.buffers, ff),
            };
            Ok((text, cli.out))
        }
        Err(f) => {
            for p in &f.prints {
                let _ = writeln!(stderr, "{p}");
            }
            let code = match f.kind {
                FaultKind::Inconclusive => exit::INCONCLUSIVE,
                _ => exit::UNDEFINED,
            };
            Err(Failure {
                code,
                text: render(&name, &src, &[f.diagnostic()]),
            })
        }
    }
}

enum VkFail {
    Rendered(i32, Vec<Diagnostic>),
    Plain(Failure),
}

fn run_vulkan(
    cli: &RunCli,
    module: &mut xir_ir::Module,
    kernel: xir_ir::FuncId,
    map: &xir_ir::source_map::SourceMap,
    args: Vec<xir_interp::ArgValue>,
    dispatch: [u32; 3],
    block_size: [u32; 3],
) -> Result<(String, String), VkFail> {
    use crate::run_vulkan::{VulkanFailure, VulkanRun};
    // The block size is compiled in (LocalSize): an override changes the module.
    module.func_mut(kernel).kind = xir_ir::FunctionKind::Kernel { block_size };
    let validation = cli.vulkan_validation
        || std::env::var("XIR_VULKAN_VALIDATION").is_ok_and(|v| !v.is_empty() && v != "0");
    let options = xir_vulkan::Options {
        device: cli.device,
        validation,
        ..Default::default()
    };
    let cfg = VulkanRun {
        dispatch,
        warp_size: cli.warp_size,
        options: &options,
    };
    let (buffers, dev, denorm) = crate::run_vulkan::run(module, kernel, Some(map), args, &cfg)
        .map_err(|f| match f {
            VulkanFailure::Compile(d) => VkFail::Rendered(exit::USER, d),
            VulkanFailure::CompileInternal(d) => VkFail::Rendered(exit::INTERNAL, d),
            VulkanFailure::Internal(m) => VkFail::Plain(Failure {
                code: exit::INTERNAL,
                text: format!("xir-run: internal error: {m}\n"),
            }),
            VulkanFailure::Runtime(e) => {
                let (code, head) = match &e {
                    xir_vulkan::Error::Unsupported(_) => (exit::UNSUPPORTED, "unsupported"),
                    xir_vulkan::Error::Validation(_) => (exit::INTERNAL, "internal error"),
                    xir_vulkan::Error::Failed(_) => (exit::INTERNAL, "error"),
                };
                VkFail::Plain(Failure {
                    code,
                    text: format!("xir-run: {head}: {e}\n"),
                })
            }
        })?;
    let ff = match cli.float_format {
        FloatFmt::Decimal => FloatFormat::Decimal,
        FloatFmt::Bits => FloatFormat::Bits,
    };
    let text = match cli.format {
        Format::Json => spec::results_json(module, kernel, &buffers, ff),
        Format::Text => spec::results_text(module, kernel, &buffers, ff),
    };
    // --show-device: the device, and whether the module declared DenormPreserve.
    let denormals = match denorm {
        xir_codegen::Denorm::Preserve => "preserved (DenormPreserve)",
        xir_codegen::Denorm::Any => "not declared",
    };
    Ok((text, format!("{dev}; float denormals {denormals}")))
}
