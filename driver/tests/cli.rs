//! `xir-opt` behaviour that does not depend on the input IR: flags, help, errors,
//! output files. Both in-process (`xir_opt_main`) and through the real binary.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use xir_driver::xir_opt_main;

struct Run {
    code: i32,
    out: String,
    err: String,
}

fn opt(args: &[&str], stdin: &[u8]) -> Run {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = xir_opt_main(&args, stdin, &mut out, &mut err);
    Run {
        code,
        out: String::from_utf8(out).unwrap(),
        err: String::from_utf8(err).unwrap(),
    }
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("xir-opt-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn help_is_grouped_one_line_per_option() {
    let r = opt(&["--help"], b"");
    assert_eq!(r.code, 0);
    assert!(r.err.is_empty());
    assert!(
        r.out
            .starts_with("OVERVIEW: xir modular optimizer driver\n\nUSAGE: xir-opt")
    );
    for heading in [
        "Output options:",
        "Pass pipeline options:",
        "Verification options:",
        "Testing options:",
        "Generic options:",
    ] {
        assert!(r.out.contains(heading), "{heading} missing:\n{}", r.out);
    }
    for flag in [
        "-o <FILE>",
        "--emit <FORM>",
        "--debug-info",
        "--passes <LIST>",
        "--pipeline <NAME|FILE>",
        "--verify-each",
        "--no-verify",
        "--verify-options <LIST>",
        "--split-input-file",
        "--verify-diagnostics",
    ] {
        let line = r
            .out
            .lines()
            .find(|l| l.contains(flag))
            .unwrap_or_else(|| panic!("{flag}"));
        assert!(
            line.split_whitespace().count() > 2,
            "description on the same line: {line}"
        );
    }
    assert_eq!(opt(&["-h"], b"").out, r.out);
}

#[test]
fn usage_errors_exit_1() {
    let r = opt(&["--bogus"], b"");
    assert_eq!(r.code, 1);
    assert!(r.out.is_empty());
    assert!(r.err.contains("unexpected argument '--bogus'"), "{}", r.err);
    let r = opt(&["--emit=spirv-binary"], b"");
    assert_eq!(r.code, 1);
    assert!(r.err.contains("invalid value 'spirv-binary'"), "{}", r.err);
    assert_eq!(opt(&["--no-verify", "--verify-each"], b"").code, 1);
}

#[test]
fn unknown_pass_and_pipeline_fail_before_reading_input() {
    let r = opt(&["--passes=dce,gvnn", "/no/such/file.xir"], b"");
    assert_eq!(r.code, 1);
    assert!(
        r.err
            .starts_with("<--passes>:1:5: error: unknown pass 'gvnn'; did you mean 'gvn'?\n"),
        "{}",
        r.err
    );
    let r = opt(&["--pipeline=no-such-pipeline", "/no/such/file.xir"], b"");
    assert_eq!(r.code, 1);
    assert!(
        r.err
            .starts_with("xir-opt: error: no pipeline named 'no-such-pipeline'\n"),
        "{}",
        r.err
    );
}

#[test]
fn bad_verify_options() {
    let r = opt(&["--verify-options=require-no-phy"], b"");
    assert_eq!(r.code, 1);
    assert!(
        r.err.starts_with(
            "xir-opt: error: --verify-options: unknown verifier option `require-no-phy`"
        ),
        "{}",
        r.err
    );
}

#[test]
fn unreadable_input() {
    let r = opt(&["/no/such/file.xir"], b"");
    assert_eq!((r.code, r.out.as_str()), (1, ""));
    assert_eq!(
        r.err,
        "xir-opt: error: cannot read '/no/such/file.xir': No such file or directory\n"
    );
    let r = opt(&[], b"module;\n\xff\n");
    assert_eq!(r.code, 1);
    assert_eq!(
        r.err,
        "xir-opt: error: <stdin> is not valid UTF-8 (byte offset 8)\n"
    );
}

#[test]
fn failed_run_writes_no_output_file() {
    let d = scratch("nofile");
    let out = d.join("out.xir");
    let r = opt(&["-o", out.to_str().unwrap()], b"\xff");
    assert_eq!(r.code, 1);
    assert!(!out.exists());
    assert_eq!(
        std::fs::read_dir(&d).unwrap().count(),
        0,
        "no temporary left behind"
    );
    // An existing file is left untouched by a failing run.
    std::fs::write(&out, "keep").unwrap();
    assert_eq!(
        opt(&["-o", out.to_str().unwrap(), "/no/such.xir"], b"").code,
        1
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "keep");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn needs_stdin_only_without_input() {
    let s =
        |a: &[&str]| xir_driver::needs_stdin(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    assert!(s(&[]));
    assert!(s(&["-", "--debug-info"]));
    assert!(!s(&["x.xir"]));
    assert!(!s(&["--help"]));
}

#[test]
fn binary_exit_codes_and_streams() {
    let bin = env!("CARGO_BIN_EXE_xir-opt");
    let out = Command::new(bin)
        .arg("--passes=x")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .starts_with("<--passes>:1:1: error: unknown pass 'x' (see --list-passes)\n")
    );
    let out = Command::new(bin).arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("USAGE: xir-opt"));
}

#[test]
fn output_file_and_stdout_carry_the_same_bytes() {
    // The module is printed while the output is written (no whole text in memory);
    // stdout, `-o FILE` and the library printer must agree byte for byte.
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/saxpy.xir"
    ))
    .unwrap();
    let d = scratch("same-bytes");
    let file = d.join("out.xir");
    let (module, _) = xir_ir::text::parse_module(&src).unwrap();
    for flags in [&[][..], &["--emit=xir-flat"][..], &["--debug-info"][..]] {
        let mut args: Vec<&str> = flags.to_vec();
        let to_stdout = opt(&args, src.as_bytes());
        assert_eq!(to_stdout.code, 0, "{}", to_stdout.err);
        args.extend(["-o", file.to_str().unwrap()]);
        let to_file = opt(&args, src.as_bytes());
        assert_eq!(to_file.code, 0, "{}", to_file.err);
        assert!(to_file.out.is_empty());
        assert_eq!(std::fs::read_to_string(&file).unwrap(), to_stdout.out);
        let opts = xir_ir::text::PrintOptions {
            flat: flags.contains(&"--emit=xir-flat"),
            debug_info: flags.contains(&"--debug-info"),
            ..Default::default()
        };
        assert_eq!(to_stdout.out, xir_ir::text::print_module(&module, &opts));
    }
    assert_eq!(
        std::fs::read_dir(&d).unwrap().count(),
        1,
        "no temporary left"
    );
    let _ = std::fs::remove_dir_all(&d);
}
