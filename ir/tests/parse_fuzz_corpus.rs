//! Replays the committed fuzz corpus of the `parse_bytes` target (and any crash
//! artifacts kept next to it) through the parser and printer: no input may panic.

use std::path::Path;
use xir_ir::text::{PrintOptions, parse_module, print_module};

fn replay(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut n = 0;
    for e in entries.flatten() {
        let data = std::fs::read(e.path()).expect("read corpus file");
        let src = String::from_utf8_lossy(&data);
        if let Ok((m, _)) = parse_module(&src) {
            let _ = print_module(&m, &PrintOptions::default());
        }
        n += 1;
    }
    n
}

#[test]
fn parse_bytes_corpus_never_panics() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let n = replay(&root.join("corpus/parse_bytes"));
    assert!(n >= 50, "expected the seed corpus, found {n} files");
    replay(&root.join("artifacts/parse_bytes"));
}
