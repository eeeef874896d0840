//! `xir-lit`: the in-process lit runner as a command, for directories outside the
//! corpus (benchmarks, ad-hoc suites).
//!
//! ```text
//! xir-lit [-j N] [-v] [-a] [-q] [--filter REGEX] [-x] [--max-failures N] PATH...
//! ```
//!
//! `PATH` is a .xir file or a directory searched recursively. Prints one `RESULT: name`
//! line per test that did not pass (all with `-v`), the logs of failures (of every test
//! with `-a`; none with `-q`, which also drops the closing line when all passed), and a
//! closing `N passed, N failed` line. `--filter` keeps the tests whose name matches the
//! regex; `--max-failures N` (`-x`: 1) starts no test after N failures. Exit status 1 if
//! anything failed (FAIL, XPASS, UNRESOLVED); 2 for a usage error, an unknown option, a
//! missing path or an empty selection (as lit, which never reports "0 passed").
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

/// The command line.
struct Args {
    jobs: usize,
    verbose: bool,
    all_logs: bool,
    quiet: bool,
    filter: Option<regex::Regex>,
    max_failures: Option<usize>,
    roots: Vec<PathBuf>,
}

const USAGE: &str =
    "usage: xir-lit [-j N] [-v] [-a] [-q] [--filter REGEX] [-x] [--max-failures N] PATH...";

/// Parses the arguments as lit does: unknown options are errors (lit's `argparse`
/// refuses them), `--name=value` and `--name value` both work. `Ok(None)`: `--help`.
fn parse_args(argv: &[String]) -> Result<Option<Args>, String> {
    let mut a = Args {
        jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
        verbose: false,
        all_logs: false,
        quiet: false,
        filter: None,
        max_failures: None,
        roots: Vec::new(),
    };
    let mut it = argv.iter();
    let mut positional_only = false;
    while let Some(arg) = it.next() {
        if positional_only || arg == "-" || !arg.starts_with('-') {
            a.roots.push(PathBuf::from(arg));
            continue;
        }
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let mut value = |flag: &str| -> Result<String, String> {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .ok_or_else(|| format!("option '{flag}' needs a value"))
        };
        let number = |flag: &str, v: String| -> Result<usize, String> {
            v.parse::<usize>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("option '{flag}' needs a positive integer, not '{v}'"))
        };
        match name {
            "--" => positional_only = true,
            "-j" | "--threads" | "--workers" => a.jobs = number(name, value(name)?)?,
            "-v" | "--verbose" => a.verbose = true,
            "-a" | "--show-all" => {
                a.verbose = true;
                a.all_logs = true;
            }
            "-q" | "--quiet" => a.quiet = true,
            "--filter" => {
                let v = value(name)?;
                a.filter = Some(
                    regex::Regex::new(&v)
                        .map_err(|e| format!("--filter: invalid regular expression '{v}': {e}"))?,
                );
            }
            "-x" => a.max_failures = Some(1),
            "--max-failures" => a.max_failures = Some(number(name, value(name)?)?),
            "-h" | "--help" => return Ok(None),
            _ => return Err(format!("unknown option '{arg}'")),
        }
    }
    if a.roots.is_empty() {
        return Err("no test paths given".to_string());
    }
    Ok(Some(a))
}

/// A usage or selection error: `xir-lit: error: …`, the usage line, exit status 2.
fn usage_error(msg: &str) -> ! {
    eprintln!("xir-lit: error: {msg}\n{USAGE}");
    std::process::exit(2);
}

fn main() {
    // Tools run in-process report panics through their own status and transcript
    // (`xir-opt: internal error: …`); the default hook would also spray every panic
    // and backtrace over the terminal, unattributed.
    std::panic::set_hook(Box::new(|_| {}));
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let args = match parse_args(&argv) {
        Ok(Some(a)) => a,
        Ok(None) => {
            let mut out = Checked::new(std::io::stdout().lock());
            let _ = writeln!(out, "{USAGE}");
            std::process::exit(out.finish("xir-lit", 0, &mut std::io::stderr()));
        }
        Err(e) => usage_error(&e),
    };
    let Args {
        jobs,
        verbose,
        all_logs,
        quiet,
        filter,
        max_failures,
        roots,
    } = args;
    // A path that does not exist is an error, not "0 passed" (as lit).
    for r in &roots {
        if !r.exists() {
            usage_error(&format!("'{}': no such file or directory", r.display()));
        }
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
    let discovered = files.len();
    if discovered == 0 {
        usage_error("did not discover any tests for the given paths");
    }
    if let Some(re) = &filter {
        files.retain(|f| re.is_match(&suite.name_of(f)));
        if files.is_empty() {
            usage_error(&format!(
                "--filter did not match any tests (of {discovered} discovered)"
            ));
        }
    }
    let history_file = suite.tmp_root.join(".xir-lit-times");
    let mut history = History::load(&history_file);
    history.order(&mut files);
    let next = AtomicUsize::new(0);
    let failures = AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| {
                loop {
                    // `--max-failures N`: start no test once N have failed.
                    if max_failures.is_some_and(|m| failures.load(Ordering::Relaxed) >= m) {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(f) = files.get(i) else { break };
                    let o = suite.run_file(f);
                    if o.status.is_failure() {
                        failures.fetch_add(1, Ordering::Relaxed);
                    }
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
            if quiet {
                let _ = writeln!(out, "{}: {name}", o.status.name());
            } else {
                let _ = writeln!(out, "{}: {name}\n{}", o.status.name(), o.log);
            }
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
    let not_run = files.len() - results.len();
    if not_run > 0 {
        let _ = writeln!(
            out,
            "{not_run} tests not run: --max-failures {} reached",
            max_failures.unwrap_or(0)
        );
    }
    if !quiet || failed > 0 || not_run > 0 {
        let _ = writeln!(out, "{passed} passed, {failed} failed, {skipped} skipped");
    }
    let code = out.finish("xir-lit", i32::from(failed > 0), &mut std::io::stderr());
    std::process::exit(code);
}
