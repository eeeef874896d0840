//! A file input larger than `input::HUGE_MIN_BYTES` is read into a huge-page mapping and
//! its last verification runs while the module is printed into `-o FILE`: the output
//! must equal the standard-input, standard-output run byte for byte, and an error at
//! the very end of the file must be reported at its line with no output file written.

use xir_driver::{input::HUGE_MIN_BYTES, xir_opt_main};

fn opt(args: &[&str], stdin: &[u8]) -> (i32, Vec<u8>, String) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = xir_opt_main(&args, stdin, &mut out, &mut err);
    (code, out, String::from_utf8(err).unwrap())
}

/// A module of many small callables, just over the huge-page threshold; with `bad`, the
/// last one returns a `u32` from an `f32` callable.
fn large_module(bad: bool) -> String {
    let mut s = String::from("module;\n\n");
    let mut k = 0;
    while (s.len() as u64) < HUGE_MIN_BYTES + 4096 {
        s.push_str(&format!(
            "callable %f{k}: f32 (\n    %a{k}: f32;\n) = define %b{k}: {{\n    %s{k}: f32 = arithmetic binary_add %a{k}, %a{k};\n    %r{k}: void = return %s{k};\n}};\n\n"
        ));
        k += 1;
    }
    if bad {
        s.push_str("callable %g: f32 (\n    %ga: f32;\n) = define %gb: {\n    %gs: u32 = cast bitwise_cast %ga;\n    %gr: void = return %gs;\n};\n");
    }
    s
}

#[test]
fn large_file_to_file_equals_stdin_to_stdout() {
    let dir = std::env::temp_dir().join(format!("xir-large-input-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("in.xir");
    let output = dir.join("out.xir");
    let text = large_module(false);
    std::fs::write(&input, &text).unwrap();
    let (code, stdout, err) = opt(&[], text.as_bytes());
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = opt(
        &[input.to_str().unwrap(), "-o", output.to_str().unwrap()],
        b"",
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.is_empty() && err.is_empty(), "{err}");
    assert!(std::fs::read(&output).unwrap() == stdout);

    // The error is in the last function, printed last: still no file.
    let bad = large_module(true);
    let line = bad.lines().count() - 1;
    std::fs::write(&input, &bad).unwrap();
    std::fs::remove_file(&output).unwrap();
    let (code, _, err) = opt(
        &[input.to_str().unwrap(), "-o", output.to_str().unwrap()],
        b"",
    );
    assert_eq!(code, 1);
    assert!(
        err.contains(&format!(
            "in.xir:{line}:5: error: function %g, block %gb, %gr (return)"
        )),
        "{err}"
    );
    assert!(!output.exists());
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "no temporary left"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
