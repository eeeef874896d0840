//! Prints the slowest corpus tests after `cargo test` has run the `corpus` target
//! (cargo runs test targets in name order) and writes `target/corpus-timings.txt`.

use std::io::Write;
use std::path::Path;

#[test]
fn slowest_corpus_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let report = xir_test_corpus::timings::summary(&root, 10);
    // Straight to stderr, past libtest's capture, so the summary is always shown.
    let _ = std::io::stderr().lock().write_all(report.as_bytes());
}
