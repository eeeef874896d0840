//! Test order for a parallel run: slowest first, as lit does with its
//! `.lit_test_times.txt`.
//!
//! With a few workers, one long test started last decides the wall time of the whole
//! run. [`History`] remembers each test's last wall time in a small text file (one
//! `micros<TAB>path` line per test); [`History::order`] puts tests without a record
//! first (they may be slow), then the rest by decreasing time. A missing or damaged
//! file only costs the ordering, never a test.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Last known wall time per test file.
#[derive(Clone, Debug, Default)]
pub struct History {
    times: HashMap<PathBuf, u128>,
}

impl History {
    /// Reads `file`; an unreadable file or line is skipped.
    pub fn load(file: &Path) -> History {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let times = text
            .lines()
            .filter_map(|l| {
                let (t, p) = l.split_once('\t')?;
                Some((PathBuf::from(p), t.parse().ok()?))
            })
            .collect();
        History { times }
    }

    /// Records one test's time.
    pub fn record(&mut self, test: &Path, elapsed: Duration) {
        self.times.insert(test.to_path_buf(), elapsed.as_micros());
    }

    /// Sorts `tests`: unknown first (in their given order), then slowest first.
    pub fn order(&self, tests: &mut [PathBuf]) {
        tests.sort_by_key(|t| std::cmp::Reverse(self.times.get(t).copied().unwrap_or(u128::MAX)));
    }

    /// Writes the history (best effort: a read-only target only loses the ordering).
    pub fn save(&self, file: &Path) {
        let mut lines: Vec<String> = self
            .times
            .iter()
            .map(|(p, t)| format!("{t}\t{}", p.display()))
            .collect();
        lines.sort();
        if let Some(dir) = file.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = std::fs::write(file, lines.join("\n") + "\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slowest_first_unknown_before_all() {
        let mut h = History::default();
        h.record(Path::new("/a"), Duration::from_millis(1));
        h.record(Path::new("/b"), Duration::from_millis(50));
        h.record(Path::new("/c"), Duration::from_millis(5));
        let mut t: Vec<PathBuf> = ["/a", "/b", "/new", "/c"]
            .iter()
            .map(PathBuf::from)
            .collect();
        h.order(&mut t);
        let names: Vec<&str> = t.iter().map(|p| p.to_str().unwrap()).collect();
        assert_eq!(names, ["/new", "/b", "/c", "/a"]);
    }

    #[test]
    fn round_trips_and_ignores_damage() {
        let dir = std::env::temp_dir().join(format!("xir-schedule-{}", std::process::id()));
        let file = dir.join("times");
        let mut h = History::default();
        h.record(Path::new("/x/y.xir"), Duration::from_micros(1234));
        h.save(&file);
        let text = std::fs::read_to_string(&file).unwrap();
        std::fs::write(&file, format!("{text}garbage\nnot-a-number\t/z\n")).unwrap();
        let back = History::load(&file);
        assert_eq!(back.times.len(), 1);
        assert_eq!(back.times[Path::new("/x/y.xir")], 1234);
        let _ = std::fs::remove_dir_all(&dir);
        assert!(History::load(&file).times.is_empty());
    }
}
