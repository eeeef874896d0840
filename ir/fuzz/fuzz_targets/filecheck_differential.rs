//! Differential fuzzing of the FileCheck engine (`tools/filecheck`): a check file × an
//! input, run through `xir-filecheck` in-process and, when it is installed, through
//! LLVM's FileCheck (`LLVM_FILECHECK`, `FileCheck-19` on PATH or
//! `/usr/lib/llvm-19/bin/FileCheck`). A panic in the engine, or a different result —
//! exit status, and the check-file line of the first error — is a crash.
//!
//! Input layout: byte 0 chooses options (bit 0 `--strict-whitespace`, 1
//! `--match-full-lines`, 2 `--ignore-case`, 3 `--implicit-check-not=baz`, 4
//! `--enable-var-scope`, 5 `--allow-empty`); the rest is `CHECK-FILE \0 INPUT` (no NUL:
//! all of it is the check file, the input is empty). Both tools read the two from files.
//!
//! `cd ir/fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run filecheck_differential`; without
//! LLVM only crashes of the engine are found.
#![no_main]

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

fn llvm() -> Option<&'static PathBuf> {
    static FC: OnceLock<Option<PathBuf>> = OnceLock::new();
    FC.get_or_init(|| {
        if let Ok(p) = std::env::var("LLVM_FILECHECK") {
            return Some(PathBuf::from(p));
        }
        let path = std::env::var_os("PATH").unwrap_or_default();
        std::env::split_paths(&path)
            .map(|d| d.join("FileCheck-19"))
            .chain([PathBuf::from("/usr/lib/llvm-19/bin/FileCheck")])
            .find(|p| p.is_file())
    })
    .as_ref()
}

fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("xir-fuzz-filecheck-{}-{name}", std::process::id()))
}

/// (exit status, first error line in the check file or 0).
fn summarize(code: i32, stderr: &[u8], file: &str) -> (i32, usize) {
    if code == 0 {
        return (0, 0);
    }
    let s = String::from_utf8_lossy(stderr);
    (code, xir_filecheck::first_error_line(&s, file).unwrap_or(0))
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let (check, input) = match rest.iter().position(|&b| b == 0) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    // Both tools read the input from a file (`--input-file`): LLVM's FileCheck may exit
    // before reading a pipe (a bad check file), and the write would die of SIGPIPE.
    let path = scratch("check.txt");
    let input_path = scratch("input.txt");
    std::fs::write(&path, check).expect("write the check file");
    std::fs::write(&input_path, input).expect("write the input file");
    let mut args = vec![
        path.display().to_string(),
        format!("--input-file={}", input_path.display()),
    ];
    for (bit, opt) in [
        "--strict-whitespace",
        "--match-full-lines",
        "--ignore-case",
        "--implicit-check-not=baz",
        "--enable-var-scope",
        "--allow-empty",
    ]
    .iter()
    .enumerate()
    {
        if flags & (1 << bit) != 0 {
            args.push(opt.to_string());
        }
    }
    let ours = xir_filecheck::run_filecheck(&args, b"", None);
    let file = path.display().to_string();
    let ours = summarize(ours.code, &ours.stderr, &file);
    let Some(fc) = llvm() else { return };
    let out = Command::new(fc)
        .args(&args)
        .env_remove("FILECHECK_OPTS")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("run LLVM FileCheck");
    let Some(code) = out.status.code() else {
        // LLVM's FileCheck itself crashed (it has its own bugs): not ours to judge.
        return;
    };
    let theirs = summarize(code, &out.stderr, &file);
    if ours != theirs {
        panic!(
            "xir-filecheck and LLVM FileCheck disagree: xir {ours:?}, LLVM {theirs:?}\nargs: {args:?}\nLLVM stderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
});
