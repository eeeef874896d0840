//! Per-test wall times.
//!
//! Each corpus test writes one small record, `<target>/corpus-timings/<name>.txt`, so
//! records survive parallel runs in one process (libtest threads) or many (nextest).
//! [`summary`] merges them into `<target>/corpus-timings.txt`, slowest first, and
//! returns a short report naming the slowest tests; the `timings` test target prints it
//! after the corpus has run.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// The cargo target directory (`CARGO_TARGET_DIR`, else the workspace's `target/`).
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap_or(Path::new("."))
            .join("target"),
    }
}

fn records_dir() -> PathBuf {
    target_dir().join("corpus-timings")
}

fn record_file(name: &str) -> PathBuf {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    records_dir().join(format!("{safe}.txt"))
}

/// Records one test's time and result (best effort: timing never fails a test).
pub fn record(name: &str, status: &str, elapsed: Duration) {
    let _ = std::fs::create_dir_all(records_dir());
    let _ = std::fs::write(
        record_file(name),
        format!("{}\t{status}\t{name}\n", elapsed.as_micros()),
    );
}

/// One record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// Microseconds.
    pub micros: u128,
    /// lit result code.
    pub status: String,
    /// Test name (path relative to the corpus root).
    pub name: String,
    /// When the record was written (the end of the test's run).
    pub recorded: std::time::SystemTime,
}

/// All records whose test file still exists under `corpus_root`, slowest first.
pub fn load(corpus_root: &Path) -> Vec<Record> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(records_dir()) else {
        return out;
    };
    for e in rd.flatten() {
        let Ok(text) = std::fs::read_to_string(e.path()) else {
            continue;
        };
        let Ok(recorded) = e.metadata().and_then(|m| m.modified()) else {
            continue;
        };
        let mut parts = text.trim_end().splitn(3, '\t');
        let (Some(us), Some(st), Some(name)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let Ok(micros) = us.parse() else { continue };
        if !corpus_root.join(name).is_file() {
            let _ = std::fs::remove_file(e.path());
            continue;
        }
        out.push(Record {
            micros,
            status: st.to_string(),
            name: name.to_string(),
            recorded,
        });
    }
    out.sort_by(|a, b| b.micros.cmp(&a.micros).then(a.name.cmp(&b.name)));
    out
}

/// Writes `<target>/corpus-timings.txt` and returns a report of the `top` slowest tests.
pub fn summary(corpus_root: &Path, top: usize) -> String {
    let recs = load(corpus_root);
    let total: u128 = recs.iter().map(|r| r.micros).sum();
    let mut file = String::from("# microseconds\tresult\ttest (slowest first)\n");
    for r in &recs {
        file.push_str(&format!("{}\t{}\t{}\n", r.micros, r.status, r.name));
    }
    let path = target_dir().join("corpus-timings.txt");
    let _ = std::fs::write(&path, file);
    let mut s = format!(
        "corpus timings: {} tests, {:.1} ms in total (summed over threads); slowest:\n",
        recs.len(),
        total as f64 / 1000.0
    );
    for r in recs.iter().take(top) {
        s.push_str(&format!(
            "  {:>9.1} ms  {:<11} {}\n",
            r.micros as f64 / 1000.0,
            r.status,
            r.name
        ));
    }
    s.push_str(&format!("(all times: {})\n", path.display()));
    s
}
