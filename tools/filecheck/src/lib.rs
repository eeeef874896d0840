//! xir-filecheck: an LLVM-compatible FileCheck engine.
//!
//! Two entry points:
//!
//! * [`run_filecheck`] runs the whole tool in-process (arguments, stdin, `FILECHECK_OPTS`)
//!   and returns stdout, stderr and the exit status exactly as the `xir-filecheck` binary
//!   would (0 pass, 1 check failure, 2 usage/check-file error).
//! * The typed API: [`CheckFile::parse`] then [`CheckFile::check`].
//!
//! ```
//! use xir_filecheck::{CheckFile, Options};
//! let cf = CheckFile::parse("CHECK: add [[R:%[0-9]+]]\nCHECK-NEXT: ret [[R]]\n", &Options::default()).unwrap();
//! assert!(cf.check(b"add %1\nret %1\n").is_ok());
//! assert!(cf.check(b"add %1\nret %2\n").is_err());
//! ```

pub mod cli;
pub mod diag;
pub mod dump;
pub mod ere;
pub mod exprparse;
pub mod matcher;
pub mod numeric;
pub mod options;
pub mod parse;
pub mod pattern;
pub mod re;
pub mod source;

pub use options::{DumpFilter, DumpInput, Options};
pub use parse::{CheckFile, Diags};

use matcher::Matcher;

/// Result of an in-process run.
#[derive(Debug, Clone, Default)]
pub struct Output {
    /// Bytes written to stdout.
    pub stdout: Vec<u8>,
    /// Bytes written to stderr.
    pub stderr: Vec<u8>,
    /// Exit status.
    pub code: i32,
}

/// A failed check: everything FileCheck printed, plus the first error line.
#[derive(Debug, Clone)]
pub struct Failure {
    /// Diagnostics (stderr text, including the input dump when enabled).
    pub message: String,
    /// Check-file line of the first error, if the first error is in the check file.
    pub line: Option<usize>,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// Extracts the line number from the first `FILE:L:C: error:` line whose file is `file`.
pub fn first_error_line(stderr: &str, file: &str) -> Option<usize> {
    let line = stderr.lines().find(|l| l.contains(": error: "))?;
    let rest = line.strip_prefix(file)?.strip_prefix(':')?;
    rest.split(':').next()?.parse().ok()
}

impl CheckFile {
    /// Parses check-file text (named `<check>` in diagnostics).
    pub fn parse(src: &str, opts: &Options) -> Result<CheckFile, Diags> {
        CheckFile::parse_named("<check>", src.as_bytes(), opts)
    }

    /// Checks an input (named `<stdin>`); the error carries the printed diagnostics.
    pub fn check(&self, input: &[u8]) -> Result<(), Failure> {
        let (ok, stderr) =
            self.check_named(input, "<stdin>", &self.sm.bufs[self.check_buf].name.clone());
        if ok {
            Ok(())
        } else {
            let message = String::from_utf8_lossy(&stderr).into_owned();
            let line = first_error_line(&message, &self.sm.bufs[self.check_buf].name);
            Err(Failure { message, line })
        }
    }

    /// Checks an input, returning success and everything printed to stderr (including
    /// the input dump according to the options).
    pub fn check_named(&self, input: &[u8], input_name: &str, check_name: &str) -> (bool, Vec<u8>) {
        let mut sm = self.sm.clone();
        let ib = sm.add(
            input_name,
            source::canonicalize(input, self.opts.strict_whitespace),
        );
        let dump = self.opts.dump_input.unwrap_or_default();
        let mut m = Matcher::new(self, &sm, ib, dump != DumpInput::Never);
        let ok = m.check_input();
        let mut err = std::mem::take(&mut m.err);
        let diags = m.diags.take();
        if dump == DumpInput::Always || (!ok && dump == DumpInput::Fail) {
            let filter = self
                .opts
                .dump_input_filter
                .unwrap_or(if dump == DumpInput::Always {
                    DumpFilter::All
                } else {
                    DumpFilter::Error
                });
            err.extend(dump::render(
                self,
                &sm.bufs[ib],
                input_name,
                check_name,
                diags.as_deref().unwrap_or(&[]),
                filter,
                self.opts.dump_input_context.unwrap_or(5),
            ));
        }
        (ok, err)
    }
}

/// Runs FileCheck in-process: `args` without the program name, `stdin` bytes, and the
/// value of `FILECHECK_OPTS`.
pub fn run_filecheck(args: &[String], stdin: &[u8], env_opts: Option<&str>) -> Output {
    let mut out = Output::default();
    let cli = match cli::parse(args, env_opts) {
        Ok(c) => c,
        Err(e) => {
            if e.code == 0 {
                out.stdout = e.msg.into_bytes();
            } else {
                out.stderr = e.msg.into_bytes();
            }
            out.code = e.code;
            return out;
        }
    };
    let opts = &cli.opts;
    if opts.dump_input == Some(DumpInput::Help) {
        out.stdout = dump::help().as_bytes().to_vec();
        return out;
    }
    let Some(check_path) = cli.check_file.clone() else {
        out.stderr = b"<check-file> not specified\n".to_vec();
        out.code = 2;
        return out;
    };
    let read = |p: &str| -> std::io::Result<Vec<u8>> {
        if p == "-" {
            Ok(stdin.to_vec())
        } else {
            xir_sysio::limit::read_file(std::path::Path::new(p))
        }
    };
    // -D validation and prefix validation come before reading the check file.
    let check_src = match read(&check_path) {
        Ok(b) => b,
        Err(e) => {
            if let Err(d) = CheckFile::pre_validate(opts) {
                out.stderr = d.text.into_bytes();
                out.code = d.code;
                return out;
            }
            out.stderr =
                format!("Could not open check file '{check_path}': {}\n", io_msg(&e)).into_bytes();
            out.code = 2;
            return out;
        }
    };
    let cf = match CheckFile::parse_named(&check_path, &check_src, opts) {
        Ok(cf) => cf,
        Err(d) => {
            out.stderr = d.text.into_bytes();
            out.code = d.code;
            return out;
        }
    };
    let input_name = if cli.input_file == "-" {
        "<stdin>".to_string()
    } else {
        cli.input_file.clone()
    };
    let input = match read(&cli.input_file) {
        Ok(b) => b,
        Err(e) => {
            out.stderr =
                format!("Could not open input file '{input_name}': {}\n", io_msg(&e)).into_bytes();
            out.code = 2;
            return out;
        }
    };
    if input.is_empty() && !opts.allow_empty {
        let mut cmd = String::from("xir-filecheck");
        for a in args {
            cmd.push(' ');
            cmd.push_str(a);
        }
        out.stderr =
            format!("FileCheck error: '{input_name}' is empty.\nFileCheck command line:  {cmd}\n")
                .into_bytes();
        out.code = 2;
        return out;
    }
    let (ok, err) = cf.check_named(&input, &input_name, &check_path);
    out.stderr = err;
    out.code = if ok { 0 } else { 1 };
    out
}

fn io_msg(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "No such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "Permission denied".into(),
        _ => e.to_string(),
    }
}
