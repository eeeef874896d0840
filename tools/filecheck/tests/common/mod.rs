//! Shared helpers for the engine tests.
#![allow(dead_code)]

use std::path::PathBuf;
use xir_filecheck::{Output, first_error_line, run_filecheck};

/// Expected outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// Exit 0.
    Pass,
    /// Exit 1 with the first error on this check-file line.
    Fail(usize),
    /// Exit status 2 (check-file or usage error) with the first error on this line.
    Bad(usize),
    /// Exit status with no located error.
    Code(i32),
}

/// Writes `check` to a per-test file and runs the tool in-process.
pub fn run(name: &str, check: &str, input: &str, args: &[&str]) -> (Output, String) {
    let dir = std::env::temp_dir().join(format!("xir-fc-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path: PathBuf = dir.join(format!("{name}.check"));
    std::fs::write(&path, check).unwrap();
    let p = path.to_string_lossy().into_owned();
    let mut argv = vec![p.clone()];
    argv.extend(args.iter().map(|s| s.to_string()));
    (run_filecheck(&argv, input.as_bytes(), None), p)
}

/// Runs and asserts the expected outcome.
pub fn check_case(name: &str, check: &str, input: &str, args: &[&str], expect: Expect) {
    let (out, path) = run(name, check, input, args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let line = first_error_line(&stderr, &path);
    let got = match out.code {
        0 => Expect::Pass,
        1 if line.is_some() => Expect::Fail(line.unwrap()),
        2 if line.is_some() => Expect::Bad(line.unwrap()),
        c => Expect::Code(c),
    };
    assert_eq!(got, expect, "stderr:\n{stderr}");
}

/// Declares one test per row.
#[macro_export]
macro_rules! fc {
    ($name:ident, $check:expr, $input:expr, [$($arg:expr),*], $expect:expr) => {
        #[test]
        fn $name() {
            common::check_case(stringify!($name), $check, $input, &[$($arg),*], $expect);
        }
    };
}
