//! `xir-lit`: the in-process lit runner as a command, for directories outside the
//! corpus (benchmarks, ad-hoc suites).
//!
//! ```text
//! xir-lit [-j N] [-v] [-a] PATH...   PATH: a .xir file or a directory searched recursively
//! ```
//!
//! Prints one `RESULT: name` line per test that did not pass (all with `-v`), the logs
//! of failures (of every test with `-a`), and a closing `N passed, N failed` line. Exit status 1 if anything
//! failed (FAIL, XPASS, UNRESOLVED).
//!
//! Tests run slowest first, by the times of the previous run (kept in
//! `<target>/xir-lit-tmp/.xir-lit-times`), so a long test does not start last.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use xir_sysio::stdio::Checked;
use xir_test_corpus::lit::commands::ExternalCommand;
use xir_test_corpus::lit::runner::{Status, Suite};
use xir_test_corpus::lit::schedule::History;

fn collect(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
            .map(|rd| rd.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        entries.sort();
        for e in entries {
            if e.file_name().is_some_and(|n| n != "Output") {
                collect(&e, out);
            }
        }
    } else if p.extension().is_some_and(|e| e == "xir") {
        out.push(p.to_path_buf());
    }
}

fn main() {
    // Tools run in-process report panics through their own status and transcript
    // (`xir-opt: internal error: …`); the default hook would also spray every panic
    // and backtrace over the terminal, unattributed.
    std::panic::set_hook(Box::new(|_| {}));
    let mut jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut verbose = false;
    let mut all_logs = false;
    let mut roots = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "-j" => jobs = args.next().and_then(|n| n.parse().ok()).unwrap_or(jobs),
            "-v" => verbose = true,
            "-a" => {
                verbose = true;
                all_logs = true;
            }
            "-h" | "--help" => {
                let mut out = Checked::new(std::io::stdout().lock());
                let _ = writeln!(out, "usage: xir-lit [-j N] [-v] [-a] PATH...");
                std::process::exit(out.finish("xir-lit", 0, &mut std::io::stderr()));
            }
            _ => roots.push(PathBuf::from(a)),
        }
    }
    if roots.is_empty() {
        eprintln!("usage: xir-lit [-j N] [-v] [-a] PATH...");
        std::process::exit(2);
    }
    let mut files = Vec::new();
    for r in &roots {
        collect(r, &mut files);
    }
    let suite_root = if roots.len() == 1 && roots[0].is_dir() {
        roots[0].clone()
    } else {
        PathBuf::from(".")
    };
    let mut suite = Suite::standard(
        std::path::absolute(&suite_root).unwrap_or(suite_root),
        xir_test_corpus::timings::target_dir().join("xir-lit-tmp"),
    );
    // xir-bisect, xir-reduce and xir-run live in xir-tools, which depends on this crate; run the
    // built binaries next to this one (the corpus test links them in-process instead).
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        for tool in ["xir-bisect", "xir-reduce", "xir-run"] {
            let program = dir.join(tool);
            if program.exists() {
                suite.table.register(tool, ExternalCommand { program });
            }
        }
    }
    // Slowest first (as lit does), from the times of the previous run.
    let mut files: Vec<PathBuf> = files
        .iter()
        .map(|f| std::path::absolute(f).unwrap_or_else(|_| f.clone()))
        .collect();
    let history_file = suite.tmp_root.join(".xir-lit-times");
    let mut history = History::load(&history_file);
    history.order(&mut files);
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(f) = files.get(i) else { break };
                    let o = suite.run_file(f);
                    results
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push((f, o));
                }
            });
        }
    });
    let results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    for (f, o) in &results {
        history.record(f, o.elapsed);
    }
    history.save(&history_file);
    let mut results: Vec<(String, _)> = results
        .into_iter()
        .map(|(f, o)| (suite.name_of(f), o))
        .collect();
    results.sort_by(|a, b| a.0.cmp(&b.0));
    let (mut passed, mut failed) = (0, 0);
    // Write errors (a full disk, /dev/full) are reported, not a panic of `println!`.
    let mut out = Checked::new(std::io::stdout().lock());
    for (name, o) in &results {
        if o.status.is_failure() {
            failed += 1;
            let _ = writeln!(out, "{}: {name}\n{}", o.status.name(), o.log);
        } else {
            if matches!(o.status, Status::Pass | Status::XFail) {
                passed += 1;
            }
            if all_logs {
                let _ = writeln!(out, "{}: {name}\n{}", o.status.name(), o.log);
            } else if verbose {
                let _ = writeln!(out, "{}: {name}", o.status.name());
            }
        }
    }
    let skipped = results.len() - passed - failed;
    let _ = writeln!(out, "{passed} passed, {failed} failed, {skipped} skipped");
    let code = out.finish("xir-lit", i32::from(failed > 0), &mut std::io::stderr());
    std::process::exit(code);
}
