//! Standard output whose write errors are seen.
//!
//! `println!` panics when standard output is full or closed, and `let _ = write!(..)`
//! loses the error. A tool writes through [`Checked`] instead, which keeps the first
//! error, and ends with [`Checked::finish`]: a full disk or `/dev/full` gives
//! `TOOL: error: cannot write to standard output: No space left on device` and exit
//! status 1; a closed pipe (`xir-opt big.xir | head`) ends quietly with status 1, as
//! LLVM's tools end quietly when killed by SIGPIPE.

use std::io::Write;

/// The cause of an I/O error as a sentence fragment, without Rust's `(os error N)`.
pub fn cause(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error ") {
        Some(p) => s[..p].to_string(),
        None => s,
    }
}

/// A writer that remembers its first error (and fails every later write with it).
pub struct Checked<W: Write> {
    inner: W,
    error: Option<std::io::Error>,
}

impl<W: Write> Checked<W> {
    /// Wraps `inner`.
    pub fn new(inner: W) -> Self {
        Checked { inner, error: None }
    }

    /// The first error seen so far.
    pub fn error(&self) -> Option<&std::io::Error> {
        self.error.as_ref()
    }

    fn keep<T>(&mut self, r: std::io::Result<T>) -> std::io::Result<T> {
        r.map_err(|e| {
            let again = std::io::Error::new(e.kind(), e.to_string());
            self.error.get_or_insert(e);
            again
        })
    }

    /// Flushes, then reports the first error (if any) on `stderr` as coming from
    /// `tool`, and returns the exit status to use: `code`, or 1 after an error when
    /// `code` was 0.
    pub fn finish(mut self, tool: &str, code: i32, stderr: &mut dyn Write) -> i32 {
        let flushed = self.inner.flush();
        let _ = self.keep(flushed);
        match self.error {
            None => code,
            Some(e) => {
                if e.kind() != std::io::ErrorKind::BrokenPipe {
                    let _ = writeln!(
                        stderr,
                        "{tool}: error: cannot write to standard output: {}",
                        cause(&e)
                    );
                }
                if code == 0 { 1 } else { code }
            }
        }
    }
}

impl<W: Write> Write for Checked<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Some(e) = &self.error {
            return Err(std::io::Error::new(e.kind(), e.to_string()));
        }
        let r = self.inner.write(buf);
        self.keep(r)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if let Some(e) = &self.error {
            return Err(std::io::Error::new(e.kind(), e.to_string()));
        }
        let r = self.inner.flush();
        self.keep(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Failing(std::io::ErrorKind);
    impl Write for Failing {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::from(self.0))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_full_device_is_reported_with_status_1() {
        let mut w = Checked::new(Failing(std::io::ErrorKind::StorageFull));
        let _ = writeln!(w, "hello");
        let _ = writeln!(w, "again");
        let mut err = Vec::new();
        assert_eq!(w.finish("xir-lit", 0, &mut err), 1);
        let err = String::from_utf8(err).unwrap();
        assert!(
            err.starts_with("xir-lit: error: cannot write to standard output: "),
            "{err}"
        );
        assert_eq!(err.lines().count(), 1);
    }

    #[test]
    fn a_closed_pipe_is_quiet_and_keeps_a_failing_status() {
        let mut w = Checked::new(Failing(std::io::ErrorKind::BrokenPipe));
        let _ = w.write_all(b"x");
        let mut err = Vec::new();
        assert_eq!(w.finish("xir-lit", 3, &mut err), 3);
        assert!(err.is_empty());
    }

    #[test]
    fn no_error_keeps_the_status() {
        let mut out = Vec::new();
        let mut w = Checked::new(&mut out);
        w.write_all(b"ok").unwrap();
        assert_eq!(w.finish("t", 0, &mut Vec::new()), 0);
        assert_eq!(out, b"ok");
    }

    #[test]
    fn the_cause_drops_the_os_error_number() {
        let e = std::io::Error::from_raw_os_error(28);
        assert_eq!(cause(&e), "No space left on device");
    }
}
