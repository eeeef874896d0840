//! Shared by the tests that run the `xir-lit` binary.

use std::process::Command;

/// Runs `xir-lit ARGS`: (exit status, standard output, standard error).
pub fn xir_lit(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_xir-lit"))
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}
