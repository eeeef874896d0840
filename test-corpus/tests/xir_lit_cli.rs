//! `xir-lit` as lit users expect it (issue 15, item 14): a missing path or an empty
//! selection is an error (exit 2), not "0 passed"; unknown options are errors;
//! `--filter`, `-x`/`--max-failures` and `-q` work.

use std::path::PathBuf;

mod common;
use common::xir_lit;

/// A directory with two passing tests and two failing ones. Each test gets its own
/// directory: the tests run concurrently, and rewriting a shared file while another
/// test's xir-lit reads it made that test see an empty file (CI, session 5).
fn suite(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("xir-lit-cli-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    for (name, ok) in [
        ("a-pass", true),
        ("b-pass", true),
        ("c-fail", false),
        ("d-fail", false),
    ] {
        let run = if ok { "echo ok" } else { "not echo ok" };
        std::fs::write(d.join(format!("{name}.xir")), format!("// RUN: {run}\n")).unwrap();
    }
    d
}

#[test]
fn missing_path_and_empty_selection_are_errors() {
    let (code, out, err) = xir_lit(&["/no/such/dir"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.starts_with("xir-lit: error: '/no/such/dir': no such file or directory"),
        "{err}"
    );
    assert!(!out.contains("passed"), "{out}");
    let empty = std::env::temp_dir().join(format!("xir-lit-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let (code, _, err) = xir_lit(&[empty.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("did not discover any tests"), "{err}");
    let d = suite("missing");
    let (code, _, err) = xir_lit(&["--filter", "zzz", d.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--filter did not match any tests (of 4 discovered)"),
        "{err}"
    );
}

#[test]
fn unknown_options_are_errors() {
    let d = suite("unknown");
    for bad in ["--bogus", "-k", "--timeout=x"] {
        let (code, out, err) = xir_lit(&[bad, d.to_str().unwrap()]);
        assert_eq!(code, 2, "{bad}: {out}{err}");
        assert!(err.starts_with("xir-lit: error: "), "{err}");
    }
    let (code, _, err) = xir_lit(&["-j", "0", d.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn filter_max_failures_and_quiet() {
    let d = suite("filter");
    let p = d.to_str().unwrap();
    let (code, out, _) = xir_lit(&["--filter=pass", p]);
    assert_eq!((code, out.trim_end()), (0, "2 passed, 0 failed, 0 skipped"));
    let (code, out, _) = xir_lit(&["-j", "1", "-x", p]);
    assert_eq!(code, 1);
    assert_eq!(out.matches("FAIL: ").count(), 1, "{out}");
    assert!(
        out.contains("tests not run: --max-failures 1 reached"),
        "{out}"
    );
    let (code, out, _) = xir_lit(&["-j", "1", "--max-failures", "2", p]);
    assert_eq!(code, 1);
    assert_eq!(out.matches("FAIL: ").count(), 2, "{out}");
    let (code, out, _) = xir_lit(&["-q", "--filter", "pass", p]);
    assert_eq!((code, out.as_str()), (0, ""));
    let (code, out, _) = xir_lit(&["-q", p]);
    assert_eq!(code, 1);
    assert!(out.contains("FAIL: c-fail.xir\n"), "{out}");
    assert!(!out.contains("RUN"), "-q prints no logs: {out}");
}
