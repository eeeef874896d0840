//! `xir-lit --timeout N` and `lit_config.maxIndividualTestTime` (issue 15, item 8): a
//! test that runs too long is TIMEOUT, its child processes are killed, and the run
//! goes on with the next test. Also where scratch paths go (item 14): per suite, as lit.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod common;
use common::xir_lit;

fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("xir-lit-timeout-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Whether a process whose command line contains `needle` is alive.
fn running(needle: &str) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().any(|e| {
        std::fs::read(e.path().join("cmdline"))
            .map(|c| {
                String::from_utf8_lossy(&c)
                    .replace('\0', " ")
                    .contains(needle)
            })
            .unwrap_or(false)
    })
}

/// A unique `sleep` duration, so the process can be recognised in /proc.
fn unique_sleep(base: u32) -> String {
    format!("{base}.{:05}", std::process::id() % 100_000)
}

fn write(p: &Path, text: &str) {
    std::fs::write(p, text).unwrap();
}

#[test]
fn timeout_flag_reports_timeout_and_kills_the_child() {
    let d = dir("flag");
    let secs = unique_sleep(29);
    write(&d.join("slow.xir"), &format!("// RUN: sleep {secs}\n"));
    write(&d.join("quick.xir"), "// RUN: echo ok\n");
    let start = Instant::now();
    let (code, out, err) = xir_lit(&["--timeout", "1", d.to_str().unwrap()]);
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("TIMEOUT: slow.xir"), "{out}");
    assert!(out.contains("Reached timeout of 1 seconds"), "{out}");
    assert!(out.contains("1 passed, 1 failed"), "{out}");
    assert!(!running(&format!("sleep {secs}")), "the sleep survived");
    // Without a limit the quick test alone passes; a bad value is a usage error.
    let (code, _, err) = xir_lit(&["--timeout", "soon", d.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("'--timeout' needs a whole number of seconds"),
        "{err}"
    );
}

#[test]
fn lit_config_max_individual_test_time_applies_and_the_flag_overrides_it() {
    let d = dir("config");
    write(
        &d.join("lit.cfg.py"),
        "import lit.formats\nconfig.name = 't'\nlit_config.maxIndividualTestTime = 1\n",
    );
    std::fs::create_dir_all(d.join("sub")).unwrap();
    let secs = unique_sleep(27);
    // Reached through its directory, the test still belongs to the suite above it.
    write(&d.join("sub/slow.xir"), &format!("// RUN: sleep {secs}\n"));
    let start = Instant::now();
    let (code, out, _) = xir_lit(&[d.join("sub").to_str().unwrap()]);
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("TIMEOUT: sub/slow.xir"), "{out}");
    assert!(!running(&format!("sleep {secs}")));
    // --timeout overrides the configuration (here: a short sleep passes under 3 s).
    write(&d.join("sub/slow.xir"), "// RUN: sleep 1.5\n");
    let (code, out, _) = xir_lit(&["--timeout", "3", d.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn scratch_paths_are_per_test_and_per_suite_as_in_lit() {
    // Two tests named x.xir in different directories (no lit.cfg.py): each gets its own
    // %t; before, both used <tmp>/Output/x.xir.tmp when given as files.
    let d = dir("scratch");
    for sub in ["a", "b"] {
        std::fs::create_dir_all(d.join(sub)).unwrap();
        write(
            &d.join(sub).join("x.xir"),
            &format!(
                "// RUN: echo {sub} > %t\n// RUN: sleep 0.3\n// RUN: cat %t | FileCheck %s\n// CHECK: {{{{^{sub}$}}}}\n"
            ),
        );
    }
    let (a, b) = (d.join("a/x.xir"), d.join("b/x.xir"));
    let (code, out, _) = xir_lit(&["-j", "2", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    // With a lit.cfg.py, %t is the same whichever path reaches the test, and relative
    // paths resolve in %T's parent (lit's execution directory for the test).
    write(&d.join("lit.cfg.py"), "config.name = 't'\n");
    write(
        &d.join("a/rel.xir"),
        "// RUN: echo %t > %T/where\n// RUN: echo rel > relative.txt\n// RUN: cat %T/../relative.txt | FileCheck %s\n// CHECK: rel\n",
    );
    let (code, out, _) = xir_lit(&[d.join("a/rel.xir").to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    let (code, out, _) = xir_lit(&["-a", d.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("PASS: a/rel.xir"), "{out}");
    let tmp: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("$ echo ") && l.contains("rel.xir.tmp"))
        .collect();
    assert_eq!(tmp.len(), 1, "{out}");
    assert!(
        tmp[0].contains(&"/a/Output/rel.xir.tmp".to_string()),
        "{}",
        tmp[0]
    );
}
