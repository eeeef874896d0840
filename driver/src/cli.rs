//! The `xir-opt` command line, parsed with clap.
//!
//! The help text is laid out the way `mlir-opt --help` is: an overview line, a usage line,
//! then options grouped under headings, one line each.

use clap::{ArgAction, CommandFactory, FromArgMatches, Parser, ValueEnum};
use std::cell::RefCell;

/// What `xir-opt` prints.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Emit {
    /// Nested xir2text (structured children printed inline).
    #[default]
    Xir,
    /// Flat xir2text (every block a top-level label).
    XirFlat,
    /// Canonical interchange text (`xir.text 1`).
    Interchange,
    /// `LXIRBC` bitcode (to `-o FILE` or a pipe, never a terminal).
    Bitcode,
    /// A SPIR-V binary of the module's kernel, through the SPIR-V backend.
    Spirv,
    /// SPIR-V assembly of the module's kernel (as `spirv-dis` prints it).
    SpirvAsm,
}

impl Emit {
    /// Whether the output is xir text (nested or flat).
    pub fn is_text(self) -> bool {
        matches!(self, Emit::Xir | Emit::XirFlat)
    }

    /// Whether the output goes through the SPIR-V backend.
    pub fn is_spirv(self) -> bool {
        matches!(self, Emit::Spirv | Emit::SpirvAsm)
    }

    /// Whether the output is binary (never written to a terminal).
    pub fn is_binary(self) -> bool {
        matches!(self, Emit::Bitcode | Emit::Spirv)
    }
}

/// `--list-passes` formats.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    /// One line per pass.
    Text,
    /// The content of `docs/passes.md`.
    Markdown,
}

/// `--pass-stats` formats.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum StatsFormat {
    /// Upstream's `Stats::log` tree.
    Text,
    /// JSON.
    Json,
}

/// When to colour diagnostics and diffs.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Only when standard error is a terminal.
    #[default]
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Parsed `xir-opt` arguments.
#[derive(Clone, Debug, Parser)]
#[command(
    name = "xir-opt",
    about = "xir modular optimizer driver",
    version,
    disable_help_flag = true,
    disable_version_flag = true,
    max_term_width = 120,
    help_template = "OVERVIEW: {about}\n\nUSAGE: {usage}\n\n{all-args}\n"
)]
pub struct Cli {
    /// Input file ('-' or absent: standard input)
    #[arg(value_name = "INPUT")]
    pub input: Option<String>,

    /// Write output to FILE (atomically; nothing is written on error)
    #[arg(short = 'o', value_name = "FILE", help_heading = "Output options")]
    pub output: Option<String>,

    /// Output form: xir (nested, default), xir-flat, interchange, bitcode, spirv or spirv-asm
    #[arg(
        long,
        value_enum,
        default_value_t = Emit::Xir,
        hide_default_value = true,
        value_name = "FORM",
        hide_possible_values = true,
        help_heading = "Output options"
    )]
    pub emit: Emit,

    /// With --emit=spirv|spirv-asm: the kernel to compile (needed when there are several)
    #[arg(long, value_name = "NAME", help_heading = "Output options")]
    pub kernel: Option<String>,

    /// Print debug comments (users, preds, CFG) in the output
    #[arg(long, help_heading = "Output options")]
    pub debug_info: bool,

    /// Print analyses of every function instead of the module (cfg, dom, postdom, loops, form, structural-closure)
    #[arg(
        long = "print",
        value_name = "ANALYSIS",
        value_delimiter = ',',
        help_heading = "Output options"
    )]
    pub print_analyses: Vec<String>,

    /// Run these passes in order (comma-separated; alias --pass-pipeline)
    #[arg(
        long,
        alias = "pass-pipeline",
        value_name = "LIST",
        allow_hyphen_values = false,
        help_heading = "Pass pipeline options"
    )]
    pub passes: Option<String>,

    /// Run a named pipeline, or the pipeline file at this path
    #[arg(
        long,
        value_name = "NAME|FILE",
        conflicts_with = "passes",
        help_heading = "Pass pipeline options"
    )]
    pub pipeline: Option<String>,

    /// Set a pipeline parameter (optimize, scalarizer, fast-math, …); repeatable
    #[arg(
        long = "pipeline-param",
        value_name = "NAME=BOOL",
        action = ArgAction::Append,
        help_heading = "Pass pipeline options"
    )]
    pub pipeline_params: Vec<String>,

    /// Print the expanded pipeline in --passes form and exit
    #[arg(long, help_heading = "Pass pipeline options")]
    pub print_pipeline: bool,

    /// List the available passes (text or markdown) and exit
    #[arg(
        long,
        value_enum,
        value_name = "FORMAT",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "text",
        hide_possible_values = true,
        help_heading = "Pass pipeline options"
    )]
    pub list_passes: Option<ListFormat>,

    /// Make the test-only passes (test-*) available
    #[arg(long, help_heading = "Pass pipeline options")]
    pub enable_test_passes: bool,

    /// Verify (and check reported changes) after every pass; on by default
    #[arg(
        long,
        value_name = "BOOL",
        num_args = 0..=1,
        require_equals = true,
        default_value_t = true,
        default_missing_value = "true",
        action = ArgAction::Set,
        hide_default_value = true,
        hide_possible_values = true,
        help_heading = "Verification options"
    )]
    pub verify_each: bool,

    /// Do not verify the input or the output
    #[arg(
        long,
        conflicts_with_all = ["verify_each", "verify_options"],
        help_heading = "Verification options"
    )]
    pub no_verify: bool,

    /// Extra verifier requirements, e.g. require-no-phi,require-unique-merge-blocks
    #[arg(long, value_name = "LIST", help_heading = "Verification options")]
    pub verify_options: Option<String>,

    /// Report at most N errors per input or chunk, then a "too many errors" note (0: no limit)
    #[arg(
        long,
        value_name = "N",
        default_value_t = xir_ir::text::MAX_ERRORS,
        help_heading = "Verification options"
    )]
    pub error_limit: usize,

    /// Print the IR before every pass
    #[arg(long, help_heading = "Debugging options")]
    pub print_before_all: bool,

    /// Print the IR after every pass
    #[arg(long, help_heading = "Debugging options")]
    pub print_after_all: bool,

    /// Print the IR before these passes (names, labels or paths, comma-separated)
    #[arg(
        long,
        value_name = "PASSES",
        value_delimiter = ',',
        help_heading = "Debugging options"
    )]
    pub print_before: Vec<String>,

    /// Print the IR after these passes (names, labels or paths, comma-separated)
    #[arg(
        long,
        value_name = "PASSES",
        value_delimiter = ',',
        help_heading = "Debugging options"
    )]
    pub print_after: Vec<String>,

    /// Print a unified diff after every pass that changed the IR
    #[arg(long, help_heading = "Debugging options")]
    pub print_changed: bool,

    /// Print whole modules instead of just their functions
    #[arg(long, help_heading = "Debugging options")]
    pub print_module_scope: bool,

    /// Limit IR printing to these functions (name metadata or %id, comma-separated)
    #[arg(
        long,
        value_name = "FUNCS",
        value_delimiter = ',',
        help_heading = "Debugging options"
    )]
    pub filter_print_funcs: Vec<String>,

    /// Write the module after every pass invocation to DIR/NNN-path.xir
    #[arg(long, value_name = "DIR", help_heading = "Debugging options")]
    pub dump_dir: Option<String>,

    /// Print pass statistics (text: upstream's Stats::log tree, or json)
    #[arg(
        long,
        value_enum,
        value_name = "FORMAT",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "text",
        hide_possible_values = true,
        help_heading = "Debugging options"
    )]
    pub pass_stats: Option<StatsFormat>,

    /// Print a per-pass timing report
    #[arg(long, help_heading = "Debugging options")]
    pub time_passes: bool,

    /// Log every pass start and finish (also LUISA_XIR_TRACE_PASSES=1)
    #[arg(long, help_heading = "Debugging options")]
    pub trace_passes: bool,

    /// Run only the first N pass invocations (-1: run all, log every index)
    #[arg(
        long,
        value_name = "N",
        allow_negative_numbers = true,
        help_heading = "Debugging options"
    )]
    pub bisect_limit: Option<i64>,

    /// Interpret every kernel on N generated inputs (default 8) before the pipeline and
    /// after every pass invocation; fail at the first invocation that changes a result
    #[arg(
        long,
        value_name = "N",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "8",
        value_parser = clap::value_parser!(u32).range(1..=4096),
        help_heading = "Debugging options"
    )]
    pub check_semantics: Option<u32>,

    /// On a pass crash or broken IR, write a reproducer (IR before the failing pass + RUN line)
    #[arg(long, value_name = "FILE", help_heading = "Debugging options")]
    pub crash_reproducer: Option<String>,

    /// Colour diffs: auto (when standard error is a terminal), always or never
    #[arg(
        long,
        value_enum,
        value_name = "WHEN",
        default_value_t = ColorChoice::Auto,
        hide_default_value = true,
        hide_possible_values = true,
        help_heading = "Debugging options"
    )]
    pub color: ColorChoice,

    /// Split the input at '// -----' lines and process each chunk separately
    #[arg(long, help_heading = "Testing options")]
    pub split_input_file: bool,

    /// Check diagnostics against expected-error/warning/note comments in the input
    #[arg(long, help_heading = "Testing options")]
    pub verify_diagnostics: bool,

    /// Display available options
    #[arg(short = 'h', long, action = ArgAction::Help, help_heading = "Generic options")]
    help: Option<bool>,

    /// Display the version of this program
    #[arg(long, action = ArgAction::Version, help_heading = "Generic options")]
    version: Option<bool>,
}

impl Cli {
    /// Parses arguments (without the program name).
    ///
    /// The clap command is built once per thread and reused: building it (and, in debug
    /// builds, clap's consistency checks) costs far more than parsing, and in-process
    /// callers such as the corpus runner parse hundreds of command lines.
    pub fn try_parse_args(args: &[String]) -> Result<Cli, clap::Error> {
        thread_local! {
            static COMMAND: RefCell<Option<clap::Command>> = const { RefCell::new(None) };
        }
        COMMAND.with(|slot| match slot.try_borrow_mut() {
            Ok(mut slot) => {
                let cmd = slot.get_or_insert_with(|| {
                    let mut c = Cli::command();
                    c.build();
                    c
                });
                Cli::parse_with(cmd, args)
            }
            // Only a re-entrant call gets here; it builds its own command.
            Err(_) => Cli::parse_with(&mut Cli::command(), args),
        })
    }

    fn parse_with(cmd: &mut clap::Command, args: &[String]) -> Result<Cli, clap::Error> {
        let args = llvm_style_long_options(cmd, args);
        let argv = std::iter::once("xir-opt").chain(args.iter().map(String::as_str));
        let mut matches = cmd.try_get_matches_from_mut(argv)?;
        // As `Parser::try_parse_from` does: conversion errors are formatted for `cmd`.
        Cli::from_arg_matches_mut(&mut matches).map_err(|e| e.format(cmd))
    }

    /// The file name used in diagnostics.
    pub fn input_name(&self) -> &str {
        match self.input.as_deref() {
            None | Some("-") => "<stdin>",
            Some(p) => p,
        }
    }
}

/// `args` in the one spelling tools that edit an `xir-opt` command line match on
/// (`xir-bisect`, `xir-reduce`, their `--lit` oracles): a single-dash long option
/// becomes `--NAME` (as for parsing, [`llvm_style_long_options`]) and the alias
/// `--pass-pipeline` becomes `--passes`. `xir-opt` reads the result exactly as `args`.
pub fn canonical_args(args: &[String]) -> Vec<String> {
    let mut cmd = Cli::command();
    cmd.build();
    let mut positional = false;
    llvm_style_long_options(&cmd, args)
        .into_iter()
        .map(|a| {
            positional |= a == "--";
            if positional {
                return a;
            }
            match a.strip_prefix("--pass-pipeline") {
                Some("") => "--passes".to_string(),
                Some(v) if v.starts_with('=') => format!("--passes{v}"),
                _ => a,
            }
        })
        .collect()
}

/// LLVM's tools spell long options with one dash (`-passes=dce`, `-help`, `-version`);
/// clap knows only `--name`. Before parsing, an argument `-NAME` or `-NAME=VALUE` whose
/// `NAME` is a long option (or alias) of `cmd` is rewritten to `--NAME…`. One-letter
/// options (`-o`, `-h`), `-` (standard input), negative numbers and everything after
/// `--` are left alone, so nothing that parsed before changes meaning. (clap has no
/// setting for single-dash long options; this mapping is the documented alternative of
/// pre-processing the argument list.)
fn llvm_style_long_options(cmd: &clap::Command, args: &[String]) -> Vec<String> {
    let is_long = |name: &str| {
        cmd.get_arguments().any(|a| {
            a.get_long() == Some(name) || a.get_all_aliases().is_some_and(|al| al.contains(&name))
        })
    };
    let mut out = Vec::with_capacity(args.len());
    let mut rest_positional = false;
    for a in args {
        if a == "--" {
            rest_positional = true;
        }
        let single_dash_long = !rest_positional
            && a.len() > 2
            && a.starts_with('-')
            && !a.starts_with("--")
            && is_long(a[1..].split('=').next().unwrap_or(""));
        out.push(if single_dash_long {
            format!("-{a}")
        } else {
            a.clone()
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(a: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_args(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn defaults() {
        let c = parse(&[]).unwrap();
        assert_eq!(c.input, None);
        assert_eq!(c.emit, Emit::Xir);
        assert!(!c.debug_info && !c.no_verify && !c.split_input_file);
        assert_eq!(c.input_name(), "<stdin>");
    }

    #[test]
    fn all_flags() {
        let c = parse(&[
            "in.xir",
            "-o",
            "out.xir",
            "--emit=xir-flat",
            "--debug-info",
            "--passes=a,b",
            "--verify-each",
            "--verify-options=require-no-phi",
            "--split-input-file",
            "--verify-diagnostics",
        ])
        .unwrap();
        assert_eq!(c.input.as_deref(), Some("in.xir"));
        assert_eq!(c.output.as_deref(), Some("out.xir"));
        assert_eq!(c.emit, Emit::XirFlat);
        assert_eq!(c.passes.as_deref(), Some("a,b"));
        assert_eq!(c.verify_options.as_deref(), Some("require-no-phi"));
        assert!(c.debug_info && c.verify_each && c.split_input_file && c.verify_diagnostics);
    }

    #[test]
    fn llvm_style_single_dash_long_options() {
        let c = parse(&["-passes=dce", "-o", "out.xir", "-emit=xir-flat", "in.xir"]).unwrap();
        assert_eq!(c.passes.as_deref(), Some("dce"));
        assert_eq!(c.output.as_deref(), Some("out.xir"));
        assert_eq!(c.emit, Emit::XirFlat);
        assert_eq!(c.input.as_deref(), Some("in.xir"));
        let c = parse(&["-print-after", "dce", "-bisect-limit", "-1"]).unwrap();
        assert_eq!(c.print_after, vec!["dce".to_string()]);
        assert_eq!(c.bisect_limit, Some(-1));
        use clap::error::ErrorKind;
        assert_eq!(
            parse(&["-help"]).unwrap_err().kind(),
            ErrorKind::DisplayHelp
        );
        assert_eq!(
            parse(&["-version"]).unwrap_err().kind(),
            ErrorKind::DisplayVersion
        );
        // After `--`, a single-dash word is a file name.
        let c = parse(&["--", "-passes"]).unwrap();
        assert_eq!(c.input.as_deref(), Some("-passes"));
        assert!(c.passes.is_none());
        // A single-dash word that is no long option stays an error.
        assert!(parse(&["-nosuchoption"]).is_err());
    }

    #[test]
    fn pass_pipeline_is_an_alias_of_passes() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            canonical_args(&s(&[
                "-passes=dce",
                "-pass-pipeline",
                "cse",
                "-o",
                "x",
                "--",
                "-passes=y"
            ])),
            s(&[
                "--passes=dce",
                "--passes",
                "cse",
                "-o",
                "x",
                "--",
                "-passes=y"
            ])
        );
        assert_eq!(
            canonical_args(&s(&[
                "--pass-pipeline=dce",
                "-pipeline=cleanup",
                "-bisect-limit=2"
            ])),
            s(&["--passes=dce", "--pipeline=cleanup", "--bisect-limit=2"])
        );
        let c = parse(&["--pass-pipeline=dce,cse"]).unwrap();
        assert_eq!(c.passes.as_deref(), Some("dce,cse"));
        let c = parse(&["-pass-pipeline=dce"]).unwrap();
        assert_eq!(c.passes.as_deref(), Some("dce"));
    }

    #[test]
    fn spirv_forms_parse() {
        assert_eq!(parse(&["--emit=spirv"]).unwrap().emit, Emit::Spirv);
        let c = parse(&["--emit=spirv-asm", "--kernel", "k"]).unwrap();
        assert_eq!(c.emit, Emit::SpirvAsm);
        assert_eq!(c.kernel.as_deref(), Some("k"));
        assert!(
            Emit::Spirv.is_binary() && !Emit::SpirvAsm.is_binary() && Emit::SpirvAsm.is_spirv()
        );
    }

    #[test]
    fn conflicts_are_rejected() {
        assert!(parse(&["--no-verify", "--verify-each"]).is_err());
        assert!(parse(&["--passes=a", "--pipeline=b"]).is_err());
        assert!(parse(&["--emit=spirv-bin"]).is_err());
        assert!(parse(&["--bogus"]).is_err());
    }
}
