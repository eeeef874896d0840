//! Running a parsed RUN command in-process.
//!
//! Pipelines pass each command's standard output to the next one's standard input.
//! Redirections are applied left to right with shell meaning (`> F 2>&1` sends both to
//! F, `2>&1 > F` sends only stdout there). When stdout and stderr share a destination
//! they share one buffer, so their interleaving is exact. A pipeline fails if any of its
//! commands fails (lit's `pipefail`). `not CMD` inverts success; `not --crash CMD`
//! succeeds only if CMD crashed; a crash under plain `not` is still a failure.
//!
//! Every command is logged, lit-style, into the returned transcript.

use super::commands::{CommandTable, ExitStatus, Io};
use super::shell::{Command, Join, Redirect, Script};
use std::cell::RefCell;
use std::fmt::Write as _;
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Where commands run.
pub struct Env<'a> {
    /// Programs by name.
    pub table: &'a CommandTable,
    /// Working directory for relative paths.
    pub cwd: &'a Path,
    /// The test's temporary tree (the only place `rm` may touch).
    pub tmp_root: &'a Path,
    /// When the test's time is up: no command starts after it, and a child process
    /// still running then is killed.
    pub deadline: Option<std::time::Instant>,
}

impl Env<'_> {
    /// Whether the test's time is up.
    pub fn timed_out(&self) -> bool {
        self.deadline
            .is_some_and(|d| std::time::Instant::now() >= d)
    }
}

/// A buffer that several writers can append to.
#[derive(Clone, Default)]
struct Shared(Rc<RefCell<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A file descriptor's destination while redirections are applied.
#[derive(Clone, PartialEq, Eq)]
enum Dest {
    /// The pipe to the next command, or the pipeline's captured output.
    Out,
    /// The captured standard error.
    Err,
    /// A file.
    File(PathBuf, bool),
}

/// Lines of `bytes` prefixed for the transcript, cut after `max` lines.
fn quote(log: &mut String, title: &str, bytes: &[u8]) {
    if bytes.is_empty() {
        return;
    }
    const MAX: usize = 400;
    let text = String::from_utf8_lossy(bytes);
    let _ = writeln!(log, "# {title}:");
    let lines: Vec<&str> = text.lines().collect();
    for l in lines.iter().take(MAX) {
        let _ = writeln!(log, "# | {l}");
    }
    if lines.len() > MAX {
        let _ = writeln!(log, "# | ... ({} more lines)", lines.len() - MAX);
    }
}

fn shell_quote(a: &str) -> String {
    if !a.is_empty()
        && a.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=%:,+@".contains(c))
    {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', "'\\''"))
    }
}

/// Runs one command with `stdin`; returns its status and its stdout destination's bytes
/// (empty when stdout went to a file).
fn run_command(
    env: &Env<'_>,
    cmd: &Command,
    stdin: Vec<u8>,
    log: &mut String,
) -> (ExitStatus, Vec<u8>) {
    let mut shown: Vec<String> = cmd.args.iter().map(|a| shell_quote(a)).collect();
    for r in &cmd.redirects {
        shown.push(match r {
            Redirect::ToFile { fd, path, append } => {
                let op = if *append { ">>" } else { ">" };
                let fd = if *fd == 2 { "2" } else { "" };
                format!("{fd}{op} {}", shell_quote(path))
            }
            Redirect::Dup { fd, to } => format!("{fd}>&{to}"),
            Redirect::Both { path } => format!("&> {}", shell_quote(path)),
            Redirect::Stdin { path } => format!("< {}", shell_quote(path)),
        });
    }
    let _ = writeln!(log, "$ {}", shown.join(" "));
    // Peel `not` / `not --crash` wrappers.
    let mut wrappers = Vec::new();
    let mut args: &[String] = &cmd.args;
    while args.first().map(String::as_str) == Some("not") {
        if args.get(1).map(String::as_str) == Some("--crash") {
            wrappers.push(true);
            args = &args[2..];
        } else {
            wrappers.push(false);
            args = &args[1..];
        }
    }
    let resolve = |p: &str| -> PathBuf { super::commands::resolve(env.cwd, p) };
    let mut stdin = stdin;
    let (mut fd1, mut fd2) = (Dest::Out, Dest::Err);
    for r in &cmd.redirects {
        match r {
            Redirect::ToFile { fd, path, append } => {
                let d = Dest::File(resolve(path), *append);
                if *fd == 2 { fd2 = d } else { fd1 = d }
            }
            Redirect::Dup { fd, to } => {
                let d = if *to == 2 { fd2.clone() } else { fd1.clone() };
                if *fd == 2 { fd2 = d } else { fd1 = d }
            }
            Redirect::Both { path } => {
                fd1 = Dest::File(resolve(path), false);
                fd2 = fd1.clone();
            }
            Redirect::Stdin { path } => match xir_sysio::limit::read_file(&resolve(path)) {
                Ok(b) => stdin = b,
                Err(e) => {
                    let _ = writeln!(log, "# error: cannot read '{path}': {e}");
                    return (ExitStatus::code(1), Vec::new());
                }
            },
        }
    }
    let out_buf = Shared::default();
    let err_buf = if fd1 == fd2 {
        out_buf.clone()
    } else {
        Shared::default()
    };
    let (mut w1, mut w2) = (out_buf.clone(), err_buf.clone());

    let status = match args.first() {
        None => {
            let _ = writeln!(log, "# error: 'not' without a command");
            ExitStatus::code(1)
        }
        Some(name) => match env.table.get(name) {
            None => {
                let _ = writeln!(log, "# error: command '{name}' is not in the command table");
                ExitStatus::code(127)
            }
            Some(c) => {
                let mut io = Io {
                    args: &args[1..],
                    stdin: &stdin,
                    stdout: &mut w1,
                    stderr: &mut w2,
                    cwd: env.cwd,
                    tmp_root: env.tmp_root,
                    deadline: env.deadline,
                };
                match catch_unwind(AssertUnwindSafe(|| c.run(&mut io))) {
                    Ok(s) => s,
                    Err(p) => {
                        let msg = p
                            .downcast_ref::<&str>()
                            .map(|s| s.to_string())
                            .or_else(|| p.downcast_ref::<String>().cloned())
                            .unwrap_or_default();
                        let _ = writeln!(w2, "panic: {msg}");
                        ExitStatus {
                            code: 101,
                            crashed: true,
                        }
                    }
                }
            }
        },
    };
    let mut status = status;
    for crash in wrappers.into_iter().rev() {
        let ok = if crash {
            status.crashed
        } else {
            !status.crashed && status.code != 0
        };
        status = ExitStatus::code(if ok { 0 } else { 1 });
    }
    let out = out_buf.0.borrow().clone();
    let err = if fd1 == fd2 {
        Vec::new()
    } else {
        err_buf.0.borrow().clone()
    };
    let mut piped = Vec::new();
    for (dest, bytes, title) in [(&fd1, out, "command stdout"), (&fd2, err, "command stderr")] {
        match dest {
            Dest::File(p, append) => {
                if fd1 == fd2 && title == "command stderr" {
                    continue;
                }
                let r = if *append {
                    std::fs::OpenOptions::new()
                        .append(true)
                        .create(true)
                        .open(p)
                        .and_then(|mut f| f.write_all(&bytes))
                } else {
                    std::fs::write(p, &bytes)
                };
                if let Err(e) = r {
                    let _ = writeln!(log, "# error: cannot write '{}': {e}", p.display());
                    status = ExitStatus::code(1);
                }
            }
            Dest::Out => {
                quote(log, title, &bytes);
                piped.extend_from_slice(&bytes);
            }
            Dest::Err => quote(log, title, &bytes),
        }
    }
    if status.code != 0 || status.crashed {
        let _ = writeln!(
            log,
            "# error: command failed with exit status: {}{}",
            status.code,
            if status.crashed { " (crashed)" } else { "" }
        );
    }
    (status, piped)
}

/// Runs one pipeline; returns its status (0 = success) and the last command's piped
/// standard output.
pub fn run_pipeline(env: &Env<'_>, p: &[Command], log: &mut String) -> (i32, Vec<u8>) {
    let mut data = Vec::new();
    let mut result = 0;
    for cmd in p {
        if env.timed_out() {
            return (124, Vec::new());
        }
        let (status, out) = run_command(env, cmd, std::mem::take(&mut data), log);
        if status.code != 0 || status.crashed {
            result = if status.code != 0 { status.code } else { 1 };
        }
        data = out;
    }
    (result, data)
}

/// Runs a script; returns the final status (0 = success) and appends to `log`.
pub fn run_script(env: &Env<'_>, s: &Script, log: &mut String) -> i32 {
    let mut status = run_pipeline(env, &s.first, log).0;
    for (join, p) in &s.rest {
        let go = match join {
            Join::And => status == 0,
            Join::Or => status != 0,
            Join::Seq => true,
        };
        if go && !env.timed_out() {
            status = run_pipeline(env, p, log).0;
        }
    }
    status
}
