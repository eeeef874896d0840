//! Shared round-trip test helpers: the check itself (in `check.rs`, shared with the fuzz
//! target) and the corpus walk.

#![allow(dead_code)]

pub mod check;

#[allow(unused_imports)]
pub use check::*;
use std::path::{Path, PathBuf};

/// The corpus root, `test-corpus/corpus`.
pub fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../test-corpus/corpus")
}

/// Every `*.xir` file under `dir`, recursively, sorted.
pub fn xir_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "xir") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The RUN lines of a lit test (the text after `RUN:`, continuation lines joined).
pub fn run_lines(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cont = false;
    for line in text.lines() {
        let Some(k) = line.find("RUN:") else {
            cont = false;
            continue;
        };
        let mut body = line[k + 4..].trim().to_string();
        let next = body.ends_with('\\');
        if next {
            body.pop();
        }
        match (cont, out.last_mut()) {
            (true, Some(last)) => {
                last.push(' ');
                last.push_str(body.trim());
            }
            _ => out.push(body.trim().to_string()),
        }
        cont = next;
    }
    out
}

/// Why a corpus file is not an xir2text module that must parse, if it is not: an
/// expected-failure test (a RUN line starting with `not`), an XFAIL file, an error test
/// (`// expected-error`), or an interchange-format file.
pub fn skip_reason(text: &str) -> Option<&'static str> {
    let runs = run_lines(text);
    if runs.iter().any(|r| r.starts_with("not ")) {
        return Some("a RUN line expects failure");
    }
    if text
        .lines()
        .any(|l| l.trim_start().starts_with("// XFAIL:"))
    {
        return Some("XFAIL");
    }
    if text.contains("expected-error") {
        return Some("error test");
    }
    let body = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with(';'));
    if body.is_some_and(|l| l.starts_with("xir.text") || l.starts_with("LXIRBC"))
        || text.contains("; LuisaCompute XIR canonical interchange")
    {
        return Some("interchange format");
    }
    if body.is_none() {
        return Some("no module text");
    }
    None
}
