//! # xir-lit — a lit-compatible RUN-line interpreter, usable as a library
//!
//! Its own crate so that the corpus harness (`xir-test-corpus`) and the tools that run
//! lit tests in process (`xir-bisect --lit`, in `xir-tools`) both depend on it without
//! a cycle: `xir-test-corpus` dev-depends on `xir-tools`.
//!
//! It reads a test file's directives ([`directives`]), decides whether the test runs
//! ([`features`], [`boolexpr`]), substitutes `%s`-style paths ([`subst`]), parses each
//! RUN command into a command model ([`shell`]) and executes it in-process
//! ([`exec`]) with programs from an extensible [`commands::CommandTable`]. No shell and
//! (for the standard table) no child process is involved. [`runner::Suite`] ties it
//! together and reports lit's result codes; [`schedule`] orders a parallel run slowest
//! first.
//!
//! ```no_run
//! use xir_lit::runner::Suite;
//! let suite = Suite::standard("test-corpus/corpus", "target/corpus-tmp");
//! let outcome = suite.run_file("test-corpus/corpus/driver/stdin.xir".as_ref());
//! println!("{}: {}", outcome.status.name(), outcome.log);
//! ```

#![warn(missing_docs)]

pub mod boolexpr;
pub mod commands;
pub mod directives;
pub mod exec;
pub mod features;
pub mod runner;
pub mod schedule;
pub mod shell;
pub mod subst;
