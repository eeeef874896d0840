//! # xir-tools — `xir-bisect` and `xir-reduce`
//!
//! Debugging tools built on `xir-opt`'s command-line contract (see [`opt`]):
//!
//! * [`bisect`]: binary-searches `--bisect-limit=N` for the first pass invocation that
//!   makes a run bad under a [`predicate`] (CHECK lines, a crash, a refusal, a verifier
//!   failure, `spirv-val`, any command, or a corpus test through [`lit`]), reports it
//!   with the IR before and after and their diff, writes a regression test, and
//!   minimizes pipelines by delta debugging ([`bisect::minimize`], over
//!   [`pipeline_text`]).
//! * [`reduce`]: shrinks a module while an interestingness test still holds.
//!
//! Both tools are functions of `(args, stdin, stdout, stderr) -> status`
//! ([`bisect::cli::xir_bisect_main`], [`reduce::cli::xir_reduce_main`]) so the corpus
//! harness can run them in-process. Exit statuses are in [`exit`]; `docs/bisect.md` has
//! an end-to-end walkthrough.

#![warn(missing_docs)]

pub mod bisect;
pub mod cli_common;
pub mod corpus_semantics;
pub mod engines;
pub mod lit;
pub mod opt;
pub mod oracle;
pub mod pass_semantics;
pub mod pipeline_text;
pub mod predicate;
pub mod reduce;
pub mod run;
pub mod run_compare;
pub mod run_vulkan;
pub mod util;

use opt::{External, InProcess, OptMainFn, OptRunner};
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::Arc;

/// Exit statuses of `xir-bisect` (and the shared ones of `xir-reduce`).
pub mod exit {
    /// Found; the failure is a wrong output (xir-opt succeeded).
    pub const FOUND_WRONG_OUTPUT: i32 = 0;
    /// Usage error.
    pub const USAGE: i32 = 1;
    /// Internal error (a bug in the tool).
    pub const INTERNAL: i32 = 2;
    /// Already bad with `--bisect-limit=0`.
    pub const BAD_AT_ZERO: i32 = 3;
    /// Good with the whole pipeline (or: the input is not interesting).
    pub const GOOD_AT_END: i32 = 4;
    /// The predicate could not decide.
    pub const UNDECIDED: i32 = 5;
    /// The regression test does not reproduce.
    pub const TEST_MISMATCH: i32 = 6;
    /// xir-reduce: the input does not parse or verify.
    pub const INVALID_INPUT: i32 = 7;
    /// Found; a crash.
    pub const FOUND_CRASH: i32 = 10;
    /// Found; a refusal.
    pub const FOUND_REFUSAL: i32 = 11;
    /// Found; a verifier failure.
    pub const FOUND_VERIFIER: i32 = 12;
    /// Found; another xir-opt failure.
    pub const FOUND_OTHER: i32 = 13;
}

/// The `xir-opt` to use: the executable at `path` when given, else the linked-in
/// driver, else an `xir-opt` next to the current executable or on `PATH`.
pub fn runner_from(path: Option<&Path>, builtin: Option<OptMainFn>) -> Arc<dyn OptRunner> {
    if let Some(p) = path {
        return Arc::new(External {
            program: p.to_path_buf(),
        });
    }
    if let Some(f) = builtin {
        return Arc::new(InProcess(f));
    }
    let sibling = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(|d| d.join("xir-opt")))
        .filter(|p| p.exists());
    Arc::new(External {
        program: sibling.unwrap_or_else(|| "xir-opt".into()),
    })
}

/// Runs `f`, turning a panic into an internal-error report and status 2.
pub fn catch_internal(
    tool: &str,
    stderr: &mut dyn Write,
    f: impl FnOnce(&mut dyn Write) -> i32,
) -> i32 {
    let mut buf: Vec<u8> = Vec::new();
    let r = catch_unwind(AssertUnwindSafe(|| f(&mut buf)));
    let _ = stderr.write_all(&buf);
    match r {
        Ok(code) => code,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            let _ = writeln!(
                stderr,
                "{tool}: internal error: {msg}\nThis is a bug in xir; please report it with the command line."
            );
            exit::INTERNAL
        }
    }
}
