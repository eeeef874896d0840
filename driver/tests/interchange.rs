//! `xir-opt` with interchange input and output: `--emit=interchange|bitcode`, format
//! detection from the first bytes, and bitcode never going to a terminal.

use xir_driver::xir_opt_main;

/// Serializes the tests: one of them flips the process-wide "stdout is a terminal" flag.
static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn opt(args: &[&str], stdin: &[u8]) -> (i32, Vec<u8>, String) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = xir_opt_main(&args, stdin, &mut out, &mut err);
    (code, out, String::from_utf8(err).unwrap())
}

fn saxpy() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/saxpy.xir"
    ))
    .unwrap()
}

#[test]
fn xir_to_interchange_to_bitcode_and_back() {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let (c, xir, e) = opt(&[], &saxpy());
    assert_eq!(c, 0, "{e}");
    let (c, text, e) = opt(&["--emit=interchange"], &saxpy());
    assert_eq!(c, 0, "{e}");
    assert!(text.starts_with(b"; LuisaCompute XIR canonical interchange\nxir.text 1\n"));
    let (c, again, e) = opt(&["--emit=interchange"], &text);
    assert_eq!(c, 0, "{e}");
    assert_eq!(again, text, "interchange text is stable");
    let (c, bc, e) = opt(&["--emit=bitcode"], &text);
    assert_eq!(c, 0, "{e}");
    assert_eq!(&bc[..6], b"LXIRBC");
    let (c, back, e) = opt(&[], &bc);
    assert_eq!(c, 0, "{e}");
    assert_eq!(back, xir, "bitcode → xir text gives the original print");
    let (c, t2, e) = opt(&["--emit=interchange"], &bc);
    assert_eq!(c, 0, "{e}");
    assert_eq!(t2, text);
}

#[test]
fn interchange_errors_are_located() {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let (_, text, _) = opt(&["--emit=interchange"], &saxpy());
    let bad = String::from_utf8(text)
        .unwrap()
        .replacen("globals", "global", 1);
    let (c, out, e) = opt(&[], bad.as_bytes());
    assert_eq!(c, 1);
    assert!(out.is_empty());
    assert!(e.contains("<stdin>:5:3: error: expected `globals`"), "{e}");
    let (_, mut bc, _) = opt(&["--emit=bitcode"], &saxpy());
    let n = bc.len() - 1;
    bc[n] ^= 1;
    let (c, _, e) = opt(&[], &bc);
    assert_eq!(c, 1);
    assert!(
        e.contains("byte 24: XIR bitcode payload checksum mismatch"),
        "{e}"
    );
}

#[test]
fn bitcode_needs_a_file_or_pipe() {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    xir_driver::set_stdout_is_terminal(true);
    let (c, out, e) = opt(&["--emit=bitcode"], &saxpy());
    xir_driver::set_stdout_is_terminal(false);
    assert_eq!(c, 1);
    assert!(out.is_empty());
    assert!(e.contains("refusing to write bitcode to a terminal"), "{e}");
}
