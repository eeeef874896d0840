//! `xir-to-spirv`: XIR in the SPIR-V backend's dialect → validated SPIR-V 1.5 (binary or
//! `spirv-dis` assembly) plus reflection JSON, through `xir-codegen`. Also the backend
//! step of `xir-opt --emit=spirv|spirv-asm`.
//!
//! Conventions are xir-opt's: input from a file or standard input (xir text, interchange
//! text or bitcode), output to standard output or atomically to `-o FILE`, nothing
//! written on any error, exit status 0 / 1 (user error) / 2 (internal error: the backend
//! produced SPIR-V that failed validation, or panicked). A binary is never written to a
//! terminal.

use crate::{EXIT_INTERNAL_ERROR, EXIT_OK, EXIT_USER_ERROR, frontend, io_msg, output};
use clap::{ArgAction, Parser, ValueEnum};
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use xir_codegen::{CompileOptions, Compiled, Denorm, ErrorKind, OptLevel};
use xir_ir::diag::{Diagnostic, render};
use xir_ir::source_map::SourceMap;
use xir_ir::{FuncId, Module};

/// Output form.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum SpirvEmit {
    /// SPIR-V binary.
    #[default]
    Spirv,
    /// SPIR-V assembly (as `spirv-dis` prints it).
    SpirvAsm,
}

/// Optimisation preset.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum OptChoice {
    /// None.
    #[default]
    None,
    /// `spirv-opt -O`.
    Performance,
    /// `spirv-opt -Os`.
    Size,
}

impl From<OptChoice> for OptLevel {
    fn from(o: OptChoice) -> Self {
        match o {
            OptChoice::None => OptLevel::None,
            OptChoice::Performance => OptLevel::Performance,
            OptChoice::Size => OptLevel::Size,
        }
    }
}

/// Subnormal float handling (`--denorm`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum DenormChoice {
    /// No denormal execution mode (the device may flush subnormals).
    #[default]
    Any,
    /// `DenormPreserve` for every float width the kernel uses.
    Preserve,
}

impl From<DenormChoice> for Denorm {
    fn from(d: DenormChoice) -> Self {
        match d {
            DenormChoice::Any => Denorm::Any,
            DenormChoice::Preserve => Denorm::Preserve,
        }
    }
}

/// Parsed `xir-to-spirv` arguments.
#[derive(Clone, Debug, Parser)]
#[command(
    name = "xir-to-spirv",
    about = "XIR to SPIR-V 1.5 (Vulkan 1.2) compiler for compute kernels",
    version,
    disable_help_flag = true,
    disable_version_flag = true,
    max_term_width = 120,
    help_template = "OVERVIEW: {about}\n\nUSAGE: {usage}\n\n{all-args}\n"
)]
pub struct SpirvCli {
    /// Input file ('-' or absent: standard input)
    #[arg(value_name = "INPUT")]
    pub input: Option<String>,
    /// Write output to FILE (atomically), or to directory DIR with --all-kernels
    #[arg(short = 'o', value_name = "FILE|DIR", help_heading = "Output options")]
    pub output: Option<String>,
    /// Output form: spirv (binary, default) or spirv-asm
    #[arg(long, value_enum, default_value_t = SpirvEmit::Spirv, hide_default_value = true, value_name = "FORM", hide_possible_values = true, help_heading = "Output options")]
    pub emit: SpirvEmit,
    /// SPIRV-Tools optimisation: none (default), performance or size
    #[arg(long, value_enum, default_value_t = OptChoice::None, hide_default_value = true, value_name = "LEVEL", hide_possible_values = true, help_heading = "Output options")]
    pub opt: OptChoice,
    /// Subnormal floats: any (default; the device may flush them) or preserve (declares DenormPreserve; the device must report shaderDenormPreserveFloatN)
    #[arg(long, value_enum, default_value_t = DenormChoice::Any, hide_default_value = true, value_name = "MODE", hide_possible_values = true, help_heading = "Output options")]
    pub denorm: DenormChoice,
    /// Compile the kernel with this name (needed when the module has several)
    #[arg(
        long,
        value_name = "NAME",
        conflicts_with = "all_kernels",
        help_heading = "Kernel options"
    )]
    pub kernel: Option<String>,
    /// Compile every kernel into DIR (given with -o) as NAME.spv / NAME.spvasm
    #[arg(long, help_heading = "Kernel options")]
    pub all_kernels: bool,
    /// Write the reflection JSON to FILE (with --all-kernels: NAME.json beside each output)
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "", help_heading = "Output options")]
    pub reflect: Option<String>,
    /// Display available options
    #[arg(short = 'h', long, action = ArgAction::Help, help_heading = "Generic options")]
    help: Option<bool>,
    /// Display the version of this program
    #[arg(long, action = ArgAction::Version, help_heading = "Generic options")]
    version: Option<bool>,
}

/// Whether a run with these arguments reads standard input.
pub fn needs_stdin(args: &[String]) -> bool {
    let argv = std::iter::once("xir-to-spirv".to_string()).chain(args.iter().cloned());
    SpirvCli::try_parse_from(argv)
        .map(|c| matches!(c.input.as_deref(), None | Some("-")))
        .unwrap_or(false)
}

/// Picks the kernel to compile: `name` if given, else the only kernel.
pub fn select_kernel(module: &Module, name: Option<&str>) -> Result<FuncId, String> {
    let ks = xir_codegen::kernels(module);
    let list = || {
        ks.iter()
            .map(|(_, n)| n.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match name {
        Some(n) => ks
            .iter()
            .find(|(_, k)| k == n)
            .map(|(f, _)| *f)
            .ok_or_else(|| {
                if ks.is_empty() {
                    format!("no kernel named '{n}': the module has no kernels")
                } else {
                    format!("no kernel named '{n}'; kernels: {}", list())
                }
            }),
        None => match ks.len() {
            0 => Err("the module has no kernel to compile".into()),
            1 => Ok(ks[0].0),
            _ => Err(format!(
                "the module has {} kernels; choose one with --kernel NAME or use --all-kernels -o DIR; kernels: {}",
                ks.len(),
                list()
            )),
        },
    }
}

/// Compiles `kernel` and renders it: the output bytes and the compile result, or the exit
/// status and diagnostics.
pub fn compile_to_bytes(
    module: &Module,
    kernel: FuncId,
    options: &CompileOptions,
    emit: SpirvEmit,
    map: Option<&SourceMap>,
) -> Result<(Vec<u8>, Compiled), (i32, Vec<Diagnostic>)> {
    let compiled = xir_codegen::compile_kernel(module, kernel, options).map_err(|e| {
        let code = if e.kind == ErrorKind::Internal {
            EXIT_INTERNAL_ERROR
        } else {
            EXIT_USER_ERROR
        };
        (code, e.to_diagnostics(module, map))
    })?;
    let bytes = match emit {
        SpirvEmit::Spirv => compiled.bytes(),
        SpirvEmit::SpirvAsm => match xir_codegen::disassemble(&compiled.words) {
            Ok(s) => s.into_bytes(),
            Err(m) => {
                return Err((
                    EXIT_INTERNAL_ERROR,
                    vec![Diagnostic::error(
                        format!("internal error: cannot disassemble the SPIR-V: {m}"),
                        None,
                    )],
                ));
            }
        },
    };
    Ok((bytes, compiled))
}

/// Runs `xir-to-spirv` with `args` (no program name); returns the exit status.
pub fn xir_to_spirv_main(
    args: &[String],
    stdin: &[u8],
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    stdout_is_terminal: bool,
) -> i32 {
    let (out, err, code) = match catch_unwind(AssertUnwindSafe(|| {
        run(args, stdin, stdout_is_terminal)
    })) {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            (
                Vec::new(),
                format!(
                    "xir-to-spirv: internal error: {msg}\nThis is a bug in xir; please report it with the input and command line.\n"
                ),
                EXIT_INTERNAL_ERROR,
            )
        }
    };
    let _ = stdout.write_all(&out);
    let _ = stdout.flush();
    let _ = stderr.write_all(err.as_bytes());
    let _ = stderr.flush();
    code
}

fn usage(msg: impl std::fmt::Display) -> (Vec<u8>, String, i32) {
    (Vec::new(), format!("error: {msg}\n"), EXIT_USER_ERROR)
}

fn run(args: &[String], stdin: &[u8], stdout_is_terminal: bool) -> (Vec<u8>, String, i32) {
    let argv = std::iter::once("xir-to-spirv".to_string()).chain(args.iter().cloned());
    let cli = match SpirvCli::try_parse_from(argv) {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind as K;
            let text = e.render().to_string();
            return match e.kind() {
                K::DisplayHelp | K::DisplayVersion => (text.into_bytes(), String::new(), EXIT_OK),
                _ => (Vec::new(), text, EXIT_USER_ERROR),
            };
        }
    };
    let name = match cli.input.as_deref() {
        None | Some("-") => "<stdin>".to_string(),
        Some(p) => p.to_string(),
    };
    if cli.all_kernels && matches!(cli.output.as_deref(), None | Some("-")) {
        return usage("--all-kernels needs -o DIR");
    }
    let to_stdout = matches!(cli.output.as_deref(), None | Some("-"));
    if cli.emit == SpirvEmit::Spirv && to_stdout && stdout_is_terminal {
        return usage(
            "refusing to write a SPIR-V binary to a terminal; use -o FILE, a pipe or --emit=spirv-asm",
        );
    }
    if cli.reflect.as_deref() == Some("") && !cli.all_kernels {
        return usage(
            "--reflect needs a FILE (only --all-kernels writes NAME.json beside each output)",
        );
    }
    let raw: Vec<u8> = match cli.input.as_deref() {
        None | Some("-") => stdin.to_vec(),
        Some(p) => match std::fs::read(p) {
            Ok(b) => b,
            Err(e) => return usage(format!("cannot read '{p}': {}", io_msg(&e))),
        },
    };
    let (module, map, src) = match frontend::decode_interchange(&raw) {
        Some(Ok(m)) => (m, None, String::new()),
        Some(Err(d)) => return (Vec::new(), render(&name, "", &d), EXIT_USER_ERROR),
        None => {
            let src = match std::str::from_utf8(&raw) {
                Ok(s) => s.to_string(),
                Err(e) => {
                    return usage(format!(
                        "{name} is not valid UTF-8 (byte offset {})",
                        e.valid_up_to()
                    ));
                }
            };
            match frontend::parse_module(&src) {
                Ok((m, map)) => (m, Some(map), src),
                Err(d) => return (Vec::new(), render(&name, &src, &d), EXIT_USER_ERROR),
            }
        }
    };
    let diags = frontend::verify_module(
        &module,
        &frontend::VerifyChoice::default(),
        map.as_ref().map(|m| (m, src.as_str())),
    );
    if diags
        .iter()
        .any(|d| d.severity == xir_ir::diag::Severity::Error)
    {
        return (Vec::new(), render(&name, &src, &diags), EXIT_USER_ERROR);
    }
    let options = CompileOptions {
        opt: cli.opt.into(),
        denorm: cli.denorm.into(),
    };
    let kernels: Vec<(FuncId, String)> = if cli.all_kernels {
        let ks = xir_codegen::kernels(&module);
        if ks.is_empty() {
            return usage("the module has no kernel to compile");
        }
        ks
    } else {
        match select_kernel(&module, cli.kernel.as_deref()) {
            Ok(k) => vec![(k, String::new())],
            Err(m) => return usage(m),
        }
    };
    // Compile everything before writing anything.
    let mut results = Vec::new();
    for (k, kname) in &kernels {
        match compile_to_bytes(&module, *k, &options, cli.emit, map.as_ref()) {
            Ok((bytes, c)) => results.push((kname.clone(), bytes, c)),
            Err((code, d)) => return (Vec::new(), render(&name, &src, &d), code),
        }
    }
    let write = |path: &std::path::Path, data: &[u8]| -> Result<(), String> {
        output::write_atomically(path, data)
            .map_err(|e| format!("error: cannot write '{}': {}\n", path.display(), io_msg(&e)))
    };
    if cli.all_kernels {
        let dir = std::path::PathBuf::from(cli.output.as_deref().unwrap_or("."));
        if let Err(e) = std::fs::create_dir_all(&dir) {
            return usage(format!("cannot create '{}': {}", dir.display(), io_msg(&e)));
        }
        let ext = if cli.emit == SpirvEmit::Spirv {
            "spv"
        } else {
            "spvasm"
        };
        for (kname, bytes, c) in &results {
            if let Err(m) = write(&dir.join(format!("{kname}.{ext}")), bytes) {
                return (Vec::new(), m, EXIT_USER_ERROR);
            }
            if cli.reflect.is_some()
                && let Err(m) = write(
                    &dir.join(format!("{kname}.json")),
                    c.reflection.to_json_string().as_bytes(),
                )
            {
                return (Vec::new(), m, EXIT_USER_ERROR);
            }
        }
        return (Vec::new(), String::new(), EXIT_OK);
    }
    let (_, bytes, c) = results.pop().expect("one kernel compiled");
    if let Some(r) = cli.reflect.as_deref()
        && let Err(m) = write(
            std::path::Path::new(r),
            c.reflection.to_json_string().as_bytes(),
        )
    {
        return (Vec::new(), m, EXIT_USER_ERROR);
    }
    if to_stdout {
        return (bytes, String::new(), EXIT_OK);
    }
    match write(std::path::Path::new(cli.output.as_deref().unwrap()), &bytes) {
        Ok(()) => (Vec::new(), String::new(), EXIT_OK),
        Err(m) => (Vec::new(), m, EXIT_USER_ERROR),
    }
}
