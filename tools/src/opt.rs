//! Running `xir-opt` (in-process or as a child process) and reading what it says.
//!
//! The tools depend only on `xir-opt`'s command-line contract:
//!
//! * `--bisect-limit=N` runs the first `N` pass invocations (and those marked
//!   `required`) and skips the rest; `--bisect-limit=-1` runs everything. Either way it
//!   logs one line per invocation on standard error:
//!   `BISECT: running pass (I) PATH`, `BISECT: running pass (I) PATH (required)` or
//!   `BISECT: NOT running pass (I) PATH`.
//! * exit status 0 on success, 2 for an internal error (a crash: a caught panic, also
//!   inside a pass), 3 when a pass left invalid IR behind (the verifier under
//!   `--verify-each`), 1 for everything else; a refusal of an `abort-on-refusal` entry
//!   is told apart from other status-1 failures by its `refused:` message (see
//!   [`FailureClass::from_output`]).

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

/// What one `xir-opt` run produced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OptOutput {
    /// Exit status (128 + signal for a child killed by a signal).
    pub code: i32,
    /// Standard output.
    pub stdout: Vec<u8>,
    /// Standard error.
    pub stderr: Vec<u8>,
}

impl OptOutput {
    /// Standard output as text.
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
    /// Standard error as text.
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
    /// How the run ended.
    pub fn class(&self) -> FailureClass {
        FailureClass::from_output(self)
    }
}

/// The signature of `xir_driver::xir_opt_main`.
pub type OptMainFn = fn(&[String], &[u8], &mut dyn Write, &mut dyn Write) -> i32;

/// Something that can run `xir-opt`.
pub trait OptRunner: Send + Sync {
    /// Runs `xir-opt ARGS` with `stdin`.
    fn run(&self, args: &[String], stdin: &[u8]) -> OptOutput;
    /// A one-line description (for reports).
    fn describe(&self) -> String;
}

/// `xir-opt` linked into this process.
#[derive(Copy, Clone)]
pub struct InProcess(pub OptMainFn);

impl OptRunner for InProcess {
    fn run(&self, args: &[String], stdin: &[u8]) -> OptOutput {
        let mut out = OptOutput::default();
        out.code = (self.0)(args, stdin, &mut out.stdout, &mut out.stderr);
        out
    }
    fn describe(&self) -> String {
        "xir-opt (in-process)".into()
    }
}

/// An `xir-opt` executable run as a child process.
#[derive(Clone, Debug)]
pub struct External {
    /// The program.
    pub program: PathBuf,
}

impl OptRunner for External {
    fn run(&self, args: &[String], stdin: &[u8]) -> OptOutput {
        run_program(&self.program, args, stdin, &[])
    }
    fn describe(&self) -> String {
        self.program.display().to_string()
    }
}

/// Runs `program ARGS` (no shell) feeding `stdin`; a failure to start is reported as
/// status 127 with the reason on standard error, a signal as 128 + signal.
pub fn run_program(
    program: &std::path::Path,
    args: &[String],
    stdin: &[u8],
    env: &[(String, String)],
) -> OptOutput {
    run_program_limited(program, args, stdin, env, None).0
}

/// [`run_program`] for at most `limit`; the flag says the run was cut off (its process
/// group killed, see `xir_sysio::child`).
pub fn run_program_limited(
    program: &std::path::Path,
    args: &[String],
    stdin: &[u8],
    env: &[(String, String)],
    limit: Option<std::time::Duration>,
) -> (OptOutput, bool) {
    let mut cmd = Command::new(program);
    cmd.args(args).envs(env.iter().map(|(k, v)| (k, v)));
    match xir_sysio::child::run(&mut cmd, stdin, limit) {
        Ok(f) => (
            OptOutput {
                code: exit_code(&f.status),
                stdout: f.stdout,
                stderr: f.stderr,
            },
            f.timed_out,
        ),
        Err(e) => (
            OptOutput {
                code: 127,
                stdout: Vec::new(),
                stderr: format!("cannot run '{}': {e}\n", program.display()).into_bytes(),
            },
            false,
        ),
    }
}

/// The exit code of a finished child, 128 + signal when it was killed.
pub fn exit_code(status: &std::process::ExitStatus) -> i32 {
    if let Some(c) = status.code() {
        return c;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(s) = status.signal() {
            return 128 + s;
        }
    }
    255
}

/// How an `xir-opt` run ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FailureClass {
    /// Exit 0.
    Success,
    /// A crash: a pass panicked (internal error, status 2) or the process died of a signal.
    Crash,
    /// An `abort-on-refusal` entry declined to run.
    Refusal,
    /// The verifier rejected the module after a pass (or at a `verify` entry).
    Verifier,
    /// A pass changed interpreted results (`--check-semantics`).
    Semantics,
    /// Any other failure (a pass error, non-convergence, a usage error).
    Error,
}

/// `xir-opt`'s status for an internal error (a caught panic, including a pass that
/// panicked).
pub const OPT_EXIT_CRASH: i32 = 2;
/// `xir-opt`'s status when a pass left invalid IR behind (`--verify-each`).
pub const OPT_EXIT_INVALID_IR: i32 = 3;
/// What `xir-opt --check-semantics` says (with status 3) about a pass that changed
/// interpreted results.
pub const SEMANTIC_CHANGE: &str = "changed the semantics of kernel";

impl FailureClass {
    /// Classifies a run from its status and, for the failures that share status 1, its
    /// standard error.
    pub fn from_output(o: &OptOutput) -> FailureClass {
        let err = o.stderr_text();
        Self::from_parts(o.code, &err)
    }

    /// Classifies exit status `code` with standard error `err`.
    pub fn from_parts(code: i32, err: &str) -> FailureClass {
        if code == 0 {
            return FailureClass::Success;
        }
        if code == OPT_EXIT_CRASH || code >= 128 || err.contains(" panicked") {
            return FailureClass::Crash;
        }
        if code == OPT_EXIT_INVALID_IR && err.contains(SEMANTIC_CHANGE) {
            return FailureClass::Semantics;
        }
        if code == OPT_EXIT_INVALID_IR {
            return FailureClass::Verifier;
        }
        // Only the error lines count: warnings about refusals that did not abort the run
        // are not the reason it failed.
        let errors: Vec<&str> = err
            .lines()
            .filter(|l| !l.trim_start().starts_with("warning:") && !l.starts_with("BISECT:"))
            .collect();
        let has = |needle: &str| errors.iter().any(|l| l.contains(needle));
        if has(" refused") || has("refusal") {
            FailureClass::Refusal
        } else if has("is invalid") || has("verifier") || has("verification") {
            FailureClass::Verifier
        } else {
            FailureClass::Error
        }
    }

    /// Lower-case name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            FailureClass::Success => "success",
            FailureClass::Crash => "crash",
            FailureClass::Refusal => "refusal",
            FailureClass::Verifier => "verifier failure",
            FailureClass::Semantics => "semantic change",
            FailureClass::Error => "error",
        }
    }
}

/// One `BISECT:` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BisectLine {
    /// Invocation index (1-based).
    pub index: u64,
    /// Hierarchical path (`spirv-final/cleanup[iter 2]/dce`).
    pub path: String,
    /// Whether it ran.
    pub ran: bool,
    /// Whether it ran only because it is marked `required`.
    pub required: bool,
}

/// Every `BISECT:` line of a standard-error text, in order.
pub fn parse_bisect_log(stderr: &str) -> Vec<BisectLine> {
    let mut out = Vec::new();
    for line in stderr.lines() {
        let Some(rest) = line.strip_prefix("BISECT: ") else {
            continue;
        };
        let (ran, rest) = if let Some(r) = rest.strip_prefix("running pass (") {
            (true, r)
        } else if let Some(r) = rest.strip_prefix("NOT running pass (") {
            (false, r)
        } else {
            continue;
        };
        let Some(close) = rest.find(") ") else {
            continue;
        };
        let Ok(index) = rest[..close].parse::<u64>() else {
            continue;
        };
        let mut path = rest[close + 2..].to_string();
        let required = path.ends_with(" (required)");
        if required {
            path.truncate(path.len() - " (required)".len());
        }
        out.push(BisectLine {
            index,
            path,
            ran,
            required,
        });
    }
    out
}

/// `args` with every `--bisect-limit` removed and `--bisect-limit=N` appended.
pub fn with_limit(args: &[String], limit: i64) -> Vec<String> {
    let mut out = strip_flag(args, "--bisect-limit");
    out.push(format!("--bisect-limit={limit}"));
    out
}

/// `args` without `flag` (both `--flag=V` and `--flag V`).
pub fn strip_flag(args: &[String], flag: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut skip_next = false;
    let eq = format!("{flag}=");
    for a in args {
        if skip_next {
            skip_next = false;
            continue;
        }
        if a == flag {
            skip_next = true;
            continue;
        }
        if a.starts_with(&eq) {
            continue;
        }
        out.push(a.clone());
    }
    out
}

/// The value of `flag` in `args` (last one wins).
pub fn flag_value(args: &[String], flag: &str) -> Option<String> {
    let eq = format!("{flag}=");
    let mut v = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == flag {
            v = it.next().cloned();
        } else if let Some(x) = a.strip_prefix(&eq) {
            v = Some(x.to_string());
        }
    }
    v
}

/// `args` with the pipeline (`--passes`, `--pipeline`) replaced by `--passes=TEXT`.
pub fn with_passes(args: &[String], text: &str) -> Vec<String> {
    let mut out = strip_flag(&strip_flag(args, "--passes"), "--pipeline");
    out.push(format!("--passes={text}"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_bisect_lines() {
        let log = "warning: x\nBISECT: running pass (1) p/dce\nBISECT: running pass (2) p/f[iter 1]/a b (required)\nBISECT: NOT running pass (3) p/f[iter 1]/c\nBISECT: junk\n";
        let l = parse_bisect_log(log);
        assert_eq!(l.len(), 3);
        assert_eq!(
            l[1],
            BisectLine {
                index: 2,
                path: "p/f[iter 1]/a b".into(),
                ran: true,
                required: true
            }
        );
        assert!(!l[2].ran);
    }

    #[test]
    fn classifies() {
        use FailureClass::*;
        assert_eq!(FailureClass::from_parts(0, "anything"), Success);
        assert_eq!(FailureClass::from_parts(2, ""), Crash);
        assert_eq!(FailureClass::from_parts(134, ""), Crash);
        assert_eq!(
            FailureClass::from_parts(1, "error: pass 'p/x' (invocation 3) panicked: boom"),
            Crash
        );
        assert_eq!(
            FailureClass::from_parts(1, "error: pass 'p/x' (invocation 3) refused: no"),
            Refusal
        );
        assert_eq!(
            FailureClass::from_parts(
                1,
                "warning: pass 'a' (invocation 1) refused: x\nerror: the module is invalid after pass 'b' (invocation 2):"
            ),
            Verifier
        );
        assert_eq!(
            FailureClass::from_parts(1, "error: unknown pass 'x'"),
            Error
        );
    }

    #[test]
    fn edits_flags() {
        let a: Vec<String> = ["x.xir", "--bisect-limit", "3", "--passes=a,b", "-o", "f"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            with_limit(&a, 7),
            ["x.xir", "--passes=a,b", "-o", "f", "--bisect-limit=7"]
        );
        assert_eq!(flag_value(&a, "--passes").as_deref(), Some("a,b"));
        assert_eq!(flag_value(&a, "--bisect-limit").as_deref(), Some("3"));
        assert_eq!(
            with_passes(&a, "c"),
            ["x.xir", "--bisect-limit", "3", "-o", "f", "--passes=c"]
        );
    }

    #[test]
    fn external_program_status() {
        let o = run_program(std::path::Path::new("/nonexistent/xir-opt"), &[], b"", &[]);
        assert_eq!(o.code, 127);
        let o = run_program(
            std::path::Path::new("sh"),
            &["-c".into(), "cat; echo err >&2; exit 3".into()],
            b"hello",
            &[],
        );
        assert_eq!((o.code, o.stdout_text().as_str()), (3, "hello"));
        assert_eq!(o.stderr_text(), "err\n");
    }
}
