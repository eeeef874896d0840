//! The command table: every program a RUN line may name, run in-process.
//!
//! A command is anything implementing [`Command`]; closures of the right shape do. The
//! [`CommandTable::standard`] table has the xir tools (`xir-opt`, `xir-filecheck` and its
//! alias `FileCheck`) and lit's builtins that corpus files use (`cat`, `diff`, `echo`,
//! `mkdir`, `rm`). Later tools register themselves the same way:
//!
//! ```
//! use xir_lit::commands::{CommandTable, ExitStatus, Io};
//! let mut table = CommandTable::standard();
//! table.register("xir-hello", |io: &mut Io| {
//!     let _ = writeln!(io.stdout, "hello {}", io.args.join(" "));
//!     ExitStatus::code(0)
//! });
//! # use std::io::Write;
//! assert!(table.get("xir-hello").is_some());
//! ```
//!
//! [`ExternalCommand`] runs a real program (for tools with no in-process version, such
//! as `spirv-val`); it spawns the program directly, never through a shell.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How a command ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ExitStatus {
    /// Exit code.
    pub code: i32,
    /// It crashed (a panic, a signal, or an xir tool's internal-error status 2).
    pub crashed: bool,
}

impl ExitStatus {
    /// A normal exit with `code`.
    pub fn code(code: i32) -> ExitStatus {
        ExitStatus {
            code,
            crashed: false,
        }
    }
}

/// What a command gets to work with.
pub struct Io<'a> {
    /// Arguments after the program name.
    pub args: &'a [String],
    /// Standard input.
    pub stdin: &'a [u8],
    /// Standard output.
    pub stdout: &'a mut dyn Write,
    /// Standard error.
    pub stderr: &'a mut dyn Write,
    /// Directory relative paths are resolved against.
    pub cwd: &'a Path,
    /// Root under which `rm` may delete (the test's temporary tree).
    pub tmp_root: &'a Path,
    /// When the test's time is up (`xir-lit --timeout`): a program that runs as a child
    /// process is killed with its process group then.
    pub deadline: Option<std::time::Instant>,
}

impl Io<'_> {
    /// `p` resolved against the working directory (made first if `p` is relative: the
    /// runner creates it lazily).
    pub fn path(&self, p: &str) -> PathBuf {
        resolve(self.cwd, p)
    }
}

/// Makes `dir` if it does not exist yet (best effort: a failure shows up as the error of
/// the file operation that follows).
pub fn ensure_dir(dir: &Path) {
    if !dir.as_os_str().is_empty() && !dir.is_dir() {
        let _ = std::fs::create_dir_all(dir);
    }
}

/// `p` resolved against `cwd`, which is made first if `p` is relative.
pub fn resolve(cwd: &Path, p: &str) -> PathBuf {
    let p = Path::new(p);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        ensure_dir(cwd);
        cwd.join(p)
    }
}

/// A program callable from RUN lines.
pub trait Command: Send + Sync {
    /// Runs the command.
    fn run(&self, io: &mut Io<'_>) -> ExitStatus;
}

impl<F> Command for F
where
    F: Fn(&mut Io<'_>) -> ExitStatus + Send + Sync,
{
    fn run(&self, io: &mut Io<'_>) -> ExitStatus {
        self(io)
    }
}

/// Name → command.
#[derive(Clone, Default)]
pub struct CommandTable {
    map: BTreeMap<String, Arc<dyn Command>>,
}

impl CommandTable {
    /// An empty table.
    pub fn new() -> CommandTable {
        CommandTable::default()
    }

    /// lit's builtins: `cat`, `diff`, `echo`, `mkdir`, `rm`.
    pub fn builtins() -> CommandTable {
        let mut t = CommandTable::new();
        t.register("cat", cat);
        t.register("diff", diff);
        t.register("echo", echo);
        t.register("mkdir", mkdir);
        t.register("rm", rm);
        t
    }

    /// Builtins plus the xir tools.
    pub fn standard() -> CommandTable {
        let mut t = CommandTable::builtins();
        t.register("xir-opt", xir_opt);
        t.register("xir-filecheck", filecheck);
        t.register("FileCheck", filecheck);
        t.register("xir-to-spirv", xir_to_spirv);
        // SPIRV-Tools' own programs (the `spirv-tools` feature gates the files that use
        // them): the independent validator and disassembler the backend is checked by.
        // `sleep` is not a lit builtin: lit runs the system's, and so does this table
        // (as a child process, so `--timeout` can kill it).
        for tool in ["spirv-val", "spirv-dis", "sleep"] {
            if let Some(program) = super::features::which(tool) {
                t.register(tool, ExternalCommand { program });
            }
        }
        t
    }

    /// Adds or replaces a command.
    pub fn register(&mut self, name: &str, cmd: impl Command + 'static) {
        self.map.insert(name.to_string(), Arc::new(cmd));
    }

    /// Looks a command up.
    pub fn get(&self, name: &str) -> Option<Arc<dyn Command>> {
        self.map.get(name).cloned()
    }

    /// Registered names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.map.keys().map(String::as_str)
    }
}

/// `xir-opt`, in-process. Its status 2 (internal error) counts as a crash.
pub fn xir_opt(io: &mut Io<'_>) -> ExitStatus {
    let code = xir_driver::xir_opt_main(io.args, io.stdin, io.stdout, io.stderr);
    ExitStatus {
        code,
        crashed: code == xir_driver::EXIT_INTERNAL_ERROR,
    }
}

/// `xir-to-spirv`, in-process. Its status 2 (internal error) counts as a crash.
pub fn xir_to_spirv(io: &mut Io<'_>) -> ExitStatus {
    let code = xir_driver::spirv::xir_to_spirv_main(io.args, io.stdin, io.stdout, io.stderr, false);
    ExitStatus {
        code,
        crashed: code == xir_driver::EXIT_INTERNAL_ERROR,
    }
}

/// `xir-filecheck` / `FileCheck`, in-process, honouring `FILECHECK_OPTS`.
pub fn filecheck(io: &mut Io<'_>) -> ExitStatus {
    let env = std::env::var("FILECHECK_OPTS").ok();
    let out = xir_filecheck::run_filecheck(io.args, io.stdin, env.as_deref());
    let _ = io.stdout.write_all(&out.stdout);
    let _ = io.stderr.write_all(&out.stderr);
    ExitStatus::code(out.code)
}

fn read_operand(io: &Io<'_>, p: &str) -> std::io::Result<Vec<u8>> {
    if p == "-" {
        Ok(io.stdin.to_vec())
    } else {
        xir_sysio::limit::read_file(&io.path(p))
    }
}

fn io_msg(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "No such file or directory".into(),
        std::io::ErrorKind::IsADirectory => "Is a directory".into(),
        _ => e.to_string(),
    }
}

/// `cat [FILE|-]...`: concatenates files (standard input when none).
pub fn cat(io: &mut Io<'_>) -> ExitStatus {
    let args: Vec<String> = if io.args.is_empty() {
        vec!["-".into()]
    } else {
        io.args.to_vec()
    };
    let mut code = 0;
    for a in &args {
        match read_operand(io, a) {
            Ok(b) => {
                let _ = io.stdout.write_all(&b);
            }
            Err(e) => {
                let _ = writeln!(io.stderr, "cat: {a}: {}", io_msg(&e));
                code = 1;
            }
        }
    }
    ExitStatus::code(code)
}

/// `echo [-n] [-e] WORD...`.
pub fn echo(io: &mut Io<'_>) -> ExitStatus {
    let mut newline = true;
    let mut escapes = false;
    let mut words = io.args;
    while let Some(first) = words.first() {
        match first.as_str() {
            "-n" => newline = false,
            "-e" => escapes = true,
            _ => break,
        }
        words = &words[1..];
    }
    let mut text = words.join(" ");
    if escapes {
        text = text
            .replace("\\n", "\n")
            .replace("\\t", "\t")
            .replace("\\\\", "\\");
    }
    if newline {
        text.push('\n');
    }
    let _ = io.stdout.write_all(text.as_bytes());
    ExitStatus::code(0)
}

/// `diff [-u] [--strip-trailing-cr] A B`: exit 0 if equal, 1 with a unified diff if not,
/// 2 on trouble. `-` reads standard input.
pub fn diff(io: &mut Io<'_>) -> ExitStatus {
    let mut strip_cr = false;
    let mut files = Vec::new();
    for a in io.args {
        match a.as_str() {
            "-u" => {}
            "--strip-trailing-cr" => strip_cr = true,
            s if s.starts_with('-') && s != "-" => {
                let _ = writeln!(io.stderr, "diff: unsupported option '{s}'");
                return ExitStatus::code(2);
            }
            _ => files.push(a.clone()),
        }
    }
    let [a, b] = files.as_slice() else {
        let _ = writeln!(io.stderr, "diff: expected two files");
        return ExitStatus::code(2);
    };
    let read = |p: &str| -> Result<String, String> {
        let bytes = read_operand(io, p).map_err(|e| format!("diff: {p}: {}", io_msg(&e)))?;
        let s = String::from_utf8_lossy(&bytes).into_owned();
        Ok(if strip_cr { s.replace("\r\n", "\n") } else { s })
    };
    let (ta, tb) = match (read(a), read(b)) {
        (Ok(x), Ok(y)) => (x, y),
        (Err(e), _) | (_, Err(e)) => {
            let _ = writeln!(io.stderr, "{e}");
            return ExitStatus::code(2);
        }
    };
    if ta == tb {
        return ExitStatus::code(0);
    }
    let d = similar::TextDiff::from_lines(&ta, &tb);
    let _ = write!(io.stdout, "{}", d.unified_diff().header(a, b));
    ExitStatus::code(1)
}

/// `mkdir [-p] DIR...`.
pub fn mkdir(io: &mut Io<'_>) -> ExitStatus {
    let parents = io.args.iter().any(|a| a == "-p");
    let mut code = 0;
    for a in io.args.iter().filter(|a| *a != "-p") {
        let p = io.path(a);
        let r = if parents {
            std::fs::create_dir_all(&p)
        } else {
            std::fs::create_dir(&p)
        };
        if let Err(e) = r {
            let _ = writeln!(io.stderr, "mkdir: {a}: {}", io_msg(&e));
            code = 1;
        }
    }
    ExitStatus::code(code)
}

/// `rm [-f] [-r|-rf] PATH...`, restricted to the test's temporary tree.
pub fn rm(io: &mut Io<'_>) -> ExitStatus {
    let mut force = false;
    let mut recursive = false;
    let mut paths = Vec::new();
    for a in io.args {
        if a.starts_with('-') && a.len() > 1 && a.chars().skip(1).all(|c| "frR".contains(c)) {
            force |= a.contains('f');
            recursive |= a.contains('r') || a.contains('R');
        } else {
            paths.push(a);
        }
    }
    let mut code = 0;
    for a in paths {
        let p = io.path(a);
        if !p.starts_with(io.tmp_root) || p.components().any(|c| c.as_os_str() == "..") {
            let _ = writeln!(
                io.stderr,
                "rm: refusing to remove '{a}' outside the test's temporary directory"
            );
            code = 1;
            continue;
        }
        let r = match std::fs::symlink_metadata(&p) {
            Ok(m) if m.is_dir() && recursive => std::fs::remove_dir_all(&p),
            Ok(m) if m.is_dir() => Err(std::io::Error::other("is a directory")),
            Ok(_) => std::fs::remove_file(&p),
            Err(e) if force && e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(e),
        };
        if let Err(e) = r {
            let _ = writeln!(io.stderr, "rm: {a}: {}", io_msg(&e));
            code = 1;
        }
    }
    ExitStatus::code(code)
}

/// A real program, spawned directly with the command's arguments and standard input.
pub struct ExternalCommand {
    /// The program to run.
    pub program: PathBuf,
}

impl Command for ExternalCommand {
    fn run(&self, io: &mut Io<'_>) -> ExitStatus {
        ensure_dir(io.cwd);
        let mut cmd = std::process::Command::new(&self.program);
        cmd.args(io.args).current_dir(io.cwd);
        let limit = io
            .deadline
            .map(|d| d.saturating_duration_since(std::time::Instant::now()));
        match xir_sysio::child::run(&mut cmd, io.stdin, limit) {
            Ok(f) => {
                let _ = io.stdout.write_all(&f.stdout);
                let _ = io.stderr.write_all(&f.stderr);
                if f.timed_out {
                    let _ = writeln!(
                        io.stderr,
                        "'{}' ran past the test's time limit; its process group was killed",
                        self.program.display()
                    );
                    return ExitStatus::code(124);
                }
                match f.status.code() {
                    Some(c) => ExitStatus::code(c),
                    None => ExitStatus {
                        code: 128,
                        crashed: true,
                    },
                }
            }
            Err(e) => {
                let _ = writeln!(io.stderr, "cannot run '{}': {e}", self.program.display());
                ExitStatus::code(127)
            }
        }
    }
}
