//! Command-line parsing with LLVM `cl` conventions (`-opt`, `--opt`, `=value` or a
//! separate value, comma-separated lists, `-DVAR=VAL`, `FILECHECK_OPTS`).

use crate::options::{DumpFilter, DumpInput, Options};

/// Parsed command line.
#[derive(Debug, Clone, Default)]
pub struct Cli {
    /// Options.
    pub opts: Options,
    /// Check file path.
    pub check_file: Option<String>,
    /// Input path (`-` for stdin).
    pub input_file: String,
}

/// A command-line error: message and exit status.
#[derive(Debug, Clone)]
pub struct CliError {
    /// Text for stderr.
    pub msg: String,
    /// Exit status (LLVM's `cl` exits with 1).
    pub code: i32,
}

const PROG: &str = "xir-filecheck";

/// Splits `FILECHECK_OPTS` like a GNU command line (quotes and backslashes).
pub fn tokenize(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut have = false;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if have {
                    out.push(std::mem::take(&mut cur));
                    have = false;
                }
            }
            '\\' => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
                have = true;
            }
            '\'' | '"' => {
                have = true;
                for d in chars.by_ref() {
                    if d == c {
                        break;
                    }
                    cur.push(d);
                }
            }
            c => {
                cur.push(c);
                have = true;
            }
        }
    }
    if have {
        out.push(cur);
    }
    out
}

fn parse_bool(name: &str, v: Option<&str>) -> Result<bool, CliError> {
    match v {
        None | Some("true") | Some("TRUE") | Some("True") | Some("1") => Ok(true),
        Some("false") | Some("FALSE") | Some("False") | Some("0") => Ok(false),
        Some(x) => Err(CliError {
            msg: format!(
                "{PROG}: for the --{name} option: '{x}' is invalid value for boolean argument! Try 0 or 1\n"
            ),
            code: 1,
        }),
    }
}

fn bad_value(name: &str, v: &str) -> CliError {
    CliError {
        msg: format!("{PROG}: for the --{name} option: Cannot find option named '{v}'!\n"),
        code: 1,
    }
}

/// Parses arguments (without the program name); `env` is `FILECHECK_OPTS`.
pub fn parse(args: &[String], env: Option<&str>) -> Result<Cli, CliError> {
    let mut all: Vec<String> = env.map(tokenize).unwrap_or_default();
    all.extend(args.iter().cloned());
    let mut cli = Cli {
        input_file: "-".into(),
        ..Cli::default()
    };
    let mut dumps = Vec::new();
    let mut filters = Vec::new();
    let mut contexts = Vec::new();
    let mut positional = Vec::new();
    let mut i = 0;
    let mut only_pos = false;
    let o = &mut cli.opts;
    while i < all.len() {
        let a = all[i].clone();
        i += 1;
        if only_pos || a == "-" || !a.starts_with('-') {
            positional.push(a);
            continue;
        }
        if a == "--" {
            only_pos = true;
            continue;
        }
        let body = a.trim_start_matches('-');
        if let Some(rest) = body.strip_prefix('D')
            && !body.starts_with("dump")
        {
            let v = if rest.is_empty() {
                if i < all.len() {
                    i += 1;
                    all[i - 1].clone()
                } else {
                    return Err(CliError {
                        msg: format!("{PROG}: for the -D option: requires a value!\n"),
                        code: 1,
                    });
                }
            } else {
                rest.to_string()
            };
            o.defines.push(v);
            continue;
        }
        let (name, inline) = match body.find('=') {
            Some(p) => (&body[..p], Some(body[p + 1..].to_string())),
            None => (body, None),
        };
        let name = name.to_string();
        let takes_value = matches!(
            name.as_str(),
            "input-file"
                | "check-prefix"
                | "check-prefixes"
                | "comment-prefixes"
                | "implicit-check-not"
                | "dump-input"
                | "dump-input-filter"
                | "dump-input-context"
                | "dump-input-label-width"
        );
        let value = if takes_value {
            match inline {
                Some(v) => Some(v),
                None if i < all.len() => {
                    i += 1;
                    Some(all[i - 1].clone())
                }
                None => {
                    return Err(CliError {
                        msg: format!("{PROG}: for the --{name} option: requires a value!\n"),
                        code: 1,
                    });
                }
            }
        } else {
            inline
        };
        let v = value.as_deref();
        match name.as_str() {
            "input-file" => cli.input_file = v.unwrap().to_string(),
            "check-prefix" | "check-prefixes" => o
                .check_prefixes
                .extend(v.unwrap().split(',').map(String::from)),
            "comment-prefixes" => o
                .comment_prefixes
                .extend(v.unwrap().split(',').map(String::from)),
            "implicit-check-not" => o.implicit_check_not.push(v.unwrap().to_string()),
            "strict-whitespace" => o.strict_whitespace = parse_bool(&name, v)?,
            "match-full-lines" => o.match_full_lines = parse_bool(&name, v)?,
            "ignore-case" => o.ignore_case = parse_bool(&name, v)?,
            "allow-empty" => o.allow_empty = parse_bool(&name, v)?,
            "allow-unused-prefixes" => o.allow_unused_prefixes = parse_bool(&name, v)?,
            "enable-var-scope" => o.enable_var_scope = parse_bool(&name, v)?,
            "allow-deprecated-dag-overlap" => {
                o.allow_deprecated_dag_overlap = parse_bool(&name, v)?
            }
            "v" => o.verbose = parse_bool(&name, v)?,
            "vv" => o.verbose_verbose = parse_bool(&name, v)?,
            "color" => {
                parse_bool(&name, v)?;
            }
            "no-near-miss-diff" => o.no_near_miss_diff = parse_bool(&name, v)?,
            "dump-input" => dumps.push(match v.unwrap() {
                "help" => DumpInput::Help,
                "always" => DumpInput::Always,
                "fail" => DumpInput::Fail,
                "never" => DumpInput::Never,
                x => return Err(bad_value(&name, x)),
            }),
            "dump-input-filter" => filters.push(match v.unwrap() {
                "all" => DumpFilter::All,
                "annotation-full" => DumpFilter::AnnotationFull,
                "annotation" => DumpFilter::Annotation,
                "error" => DumpFilter::Error,
                x => return Err(bad_value(&name, x)),
            }),
            "dump-input-context" | "dump-input-label-width" => {
                let n: usize = v.unwrap().parse().map_err(|_| CliError {
                    msg: format!(
                        "{PROG}: for the --{name} option: '{}' value invalid for uint argument!\n",
                        v.unwrap()
                    ),
                    code: 1,
                })?;
                if name == "dump-input-context" {
                    contexts.push(n);
                }
            }
            "help" | "h" => {
                return Err(CliError {
                    msg: usage(),
                    code: 0,
                });
            }
            "version" => {
                return Err(CliError {
                    msg: format!(
                        "{PROG} {} (LLVM FileCheck 19 compatible)\n",
                        env!("CARGO_PKG_VERSION")
                    ),
                    code: 0,
                });
            }
            _ => {
                return Err(CliError {
                    msg: format!(
                        "{PROG}: Unknown command line argument '{a}'.  Try: '{PROG} --help'\n"
                    ),
                    code: 1,
                });
            }
        }
    }
    o.dump_input = dumps.into_iter().max();
    o.dump_input_filter = filters.into_iter().max();
    o.dump_input_context = contexts.into_iter().max();
    if o.verbose_verbose {
        o.verbose = true;
    }
    if positional.len() > 1 {
        return Err(CliError {
            msg: format!(
                "{PROG}: Too many positional arguments specified!\nCan specify at most 1 positional arguments: See: {PROG} --help\n"
            ),
            code: 1,
        });
    }
    cli.check_file = positional.pop();
    Ok(cli)
}

/// `--help` text.
pub fn usage() -> String {
    format!(
        "OVERVIEW: LLVM FileCheck-compatible checker (xir)

USAGE: {PROG} [options] <check-file>

OPTIONS:
  --input-file=<filename>      File to check (defaults to stdin)
  --check-prefix(es)=<A,B>     Prefixes to use (default CHECK)
  --comment-prefixes=<A,B>     Comment prefixes (default COM,RUN)
  --allow-unused-prefixes      Allow prefixes that do not appear in the check file
  --strict-whitespace          Do not canonicalise horizontal whitespace
  --match-full-lines           Positive matches must cover whole lines
  --ignore-case                Case-insensitive matching
  --implicit-check-not=<pat>   Implicit CHECK-NOT between all positive matches
  --allow-empty                Allow an empty input
  --enable-var-scope           Clear local variables at each CHECK-LABEL block
  --dump-input=<mode>          help, always, fail (default), never
  --dump-input-filter=<f>      all, annotation-full, annotation, error
  --dump-input-context=<N>     Context lines around filtered lines (default 5)
  -D<VAR=VALUE>, -D#<FMT,NUM=EXPR>  Define variables
  -v, -vv                      Verbose diagnostics
  --no-near-miss-diff          Omit the xir near-miss diff (LLVM-identical stderr)

Options are parsed from the environment variable FILECHECK_OPTS and
from the command line.
"
    )
}
