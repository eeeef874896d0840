//! `XIR_BLESS=1 xir-lit` (issue 15, item 14): blesses with the built runner (no
//! `cargo test` rebuild), inserts the markers of a new test itself, and a diagnostics
//! test whose block sits above the module is right after one run.

use std::path::{Path, PathBuf};
use std::process::Command;

fn xir_lit(bless: bool, path: &Path) -> (i32, String, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_xir-lit"));
    c.arg("-v").arg(path);
    if bless {
        c.env("XIR_BLESS", "1");
    } else {
        c.env_remove("XIR_BLESS");
    }
    let o = c.output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("xir-bless-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

const MODULE: &str = "module;\n\nkernel %k () = define %b: {\n    %r: void = return;\n};\n";

#[test]
fn a_new_test_gets_its_markers_and_checks() {
    let d = dir("new");
    let f = d.join("new.xir");
    let src = format!("// RUN: xir-opt %s | FileCheck %s\n\n{MODULE}");
    std::fs::write(&f, &src).unwrap();
    // Before blessing it fails: FileCheck finds no CHECK line.
    assert_eq!(xir_lit(false, &f).0, 1);
    let (code, out, err) = xir_lit(true, &f);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("blessed new.xir"), "{err}");
    let text = std::fs::read_to_string(&f).unwrap();
    assert!(
        text.starts_with(&src),
        "lines above the block moved:\n{text}"
    );
    let block = &text[src.len()..];
    assert!(
        block.starts_with("\n// AUTOGEN-CHECKS: begin (XIR_BLESS=1 regenerates this block"),
        "{block}"
    );
    assert!(
        block.contains(
            "// CHECK: module;\n// CHECK-EMPTY:\n// CHECK-NEXT: kernel [[V0:%[0-9]+]] () = define"
        ),
        "{block}"
    );
    assert!(block.ends_with("// AUTOGEN-CHECKS: end\n"), "{block}");
    assert_eq!(xir_lit(false, &f).0, 0);
    // Blessing again changes nothing.
    let (code, _, err) = xir_lit(true, &f);
    assert_eq!(code, 0);
    assert!(!err.contains("blessed"), "{err}");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), text);
}

#[test]
fn a_diagnostics_test_blesses_in_one_run() {
    let d = dir("diag");
    let f = d.join("diag.xir");
    // The block is above the module; the error's line number depends on its size.
    let src = "// RUN: not xir-opt %s 2>&1 | FileCheck %s\n\
               // AUTOGEN-CHECKS: begin (XIR_BLESS=1 regenerates this block; edits inside are lost)\n\
               // AUTOGEN-CHECKS: end\n\n\
               module;\n\nkernel %k () = define %b: {\n    %r: void = return %nope;\n};\n";
    std::fs::write(&f, src).unwrap();
    let (code, out, err) = xir_lit(true, &f);
    assert_eq!(code, 0, "one bless run must leave it passing:\n{out}{err}");
    let text = std::fs::read_to_string(&f).unwrap();
    let line = text
        .lines()
        .position(|l| l.starts_with("    %r: void = return %nope"))
        .unwrap()
        + 1;
    assert!(
        text.contains(&format!("{{{{.*}}}}diag.xir:{line}:")),
        "the block names line {line}:\n{text}"
    );
    assert_eq!(xir_lit(false, &f).0, 0);
}

#[test]
fn hand_written_checks_are_left_alone() {
    let d = dir("hand");
    let f = d.join("hand.xir");
    let src = format!("// RUN: xir-opt %s | FileCheck %s\n// CHECK: kernel\n\n{MODULE}");
    std::fs::write(&f, &src).unwrap();
    let (code, _, err) = xir_lit(true, &f);
    assert_eq!(code, 0);
    assert!(!err.contains("blessed"), "{err}");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), src);
}
