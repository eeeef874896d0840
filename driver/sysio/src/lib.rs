//! # xir-sysio — the operating-system edge shared by every xir tool
//!
//! Four small facts that `xir-opt`, `xir-lit`, `xir-filecheck`, `xir-bisect` and
//! `xir-reduce` must get the same way (see `docs/reliability.md`):
//!
//! - [`limit`]: input is read with a 4 GiB bound enforced *while* reading, so
//!   `xir-opt /dev/zero` stops with an error instead of growing without end.
//! - [`cleanup`]: temporary files and scratch directories are registered while they
//!   exist, and SIGINT/SIGTERM/SIGHUP remove them before the process dies of the signal.
//! - [`stdio`]: standard output with its write errors checked and reported as
//!   `TOOL: error: cannot write to standard output: CAUSE` (exit status 1); a closed
//!   pipe ends the tool quietly.
//! - [`child`]: a child process under a time limit, killed with its whole process
//!   group when the limit passes (`xir-lit --timeout`, the bisect/reduce oracles).

#![warn(missing_docs)]

pub mod child;
pub mod cleanup;
pub mod limit;
pub mod stdio;
