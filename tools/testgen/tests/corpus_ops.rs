//! `test-corpus/corpus/ops/*.xir`: one lit test per op family (every instruction kind,
//! op, type kind, metadata kind and special register of the op table, see
//! `tests/coverage.rs`), each a verifier-clean module in upstream xir2text syntax.
//!
//! Each file is generated from a hand-written source `tests/corpus_ops/<name>.in`
//! (symbolic names and literal constants, docs/text-format.md §5): the source is parsed
//! and verified, and the file holds its upstream print (the module text), CHECK lines
//! pinning every printed line, and two RUN lines (print, and print → re-parse → print).
//! The leading `//` lines of a source become the file's description. Regenerate with
//! `XIR_BLESS=1 cargo test -p xir-testgen --test corpus_ops`; `XIR_OPS_ONLY=name`
//! restricts both tests to one source (for writing new ones).

mod rt_common;

use std::path::{Path, PathBuf};
use xir_ir::diag::{Severity, render};
use xir_ir::text::{PrintOptions, parse_module, print_module};
use xir_ir::verify::{VerifyOptions, verify_module};

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus_ops")
}

fn out_dir() -> PathBuf {
    rt_common::corpus_root().join("ops")
}

/// The RUN lines; a source's `// VERIFY-OPTIONS: LIST` header line passes `LIST` to
/// every `xir-opt` (and to the verifier here).
fn run_lines(verify_options: Option<&str>) -> String {
    let opt = match verify_options {
        Some(list) => format!("xir-opt --verify-options={list}"),
        None => "xir-opt".to_string(),
    };
    format!(
        "// RUN: {opt} %s | xir-filecheck %s\n\
         // RUN: {opt} %s | {opt} | xir-filecheck %s\n"
    )
}

/// The list of a source's `// VERIFY-OPTIONS:` header line.
fn verify_options_of(src: &str) -> Option<&str> {
    src.lines()
        .take_while(|l| l.starts_with("//"))
        .find_map(|l| l.strip_prefix("// VERIFY-OPTIONS:"))
        .map(str::trim)
}

/// The sources, sorted by name (`XIR_OPS_ONLY` keeps one).
fn sources() -> Vec<(String, String)> {
    let only = std::env::var("XIR_OPS_ONLY").ok();
    let mut v: Vec<(String, String)> = std::fs::read_dir(src_dir())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "in"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .filter(|(n, _)| only.as_deref().is_none_or(|o| o == n))
        .collect();
    v.sort();
    v
}

/// Parses and verifies `text`; returns the upstream print.
fn parse_verify_print(file: &str, text: &str, options: Option<&str>) -> Result<String, String> {
    let (m, sm) = parse_module(text).map_err(|d| render(file, text, &d))?;
    let opts = VerifyOptions::parse_list(options.unwrap_or(""))?;
    let errors: Vec<_> = verify_module(&m, &opts, Some(&sm))
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    if !errors.is_empty() {
        return Err(render(file, text, &errors));
    }
    Ok(print_module(&m, &PrintOptions::default()))
}

/// The corpus file generated from source `name`.
fn render_file(name: &str, src: &str) -> Result<String, String> {
    let out = parse_verify_print(&format!("{name}.in"), src, verify_options_of(src))?;
    let mut s = run_lines(verify_options_of(src));
    for line in src
        .lines()
        .take_while(|l| l.starts_with("//"))
        .filter(|l| !l.starts_with("// VERIFY-OPTIONS:"))
    {
        s.push_str(line);
        s.push('\n');
    }
    s.push_str(&format!(
        "// Generated from tools/testgen/tests/corpus_ops/{name}.in; regenerate with\n\
         // XIR_BLESS=1 cargo test -p xir-testgen --test corpus_ops\n\n"
    ));
    for (k, line) in out.lines().enumerate() {
        s.push_str(&if k == 0 {
            format!("// CHECK: {line}\n")
        } else if line.is_empty() {
            "// CHECK-EMPTY:\n".to_string()
        } else {
            format!("// CHECK-NEXT: {line}\n")
        });
    }
    s.push('\n');
    s.push_str(&out);
    Ok(s)
}

#[test]
fn ops_corpus_is_generated_from_its_sources() {
    let bless = std::env::var_os("XIR_BLESS").is_some();
    let mut problems = Vec::new();
    let srcs = sources();
    for (name, src) in &srcs {
        let want = match render_file(name, src) {
            Ok(w) => w,
            Err(e) => {
                problems.push(format!("{name}.in:\n{e}"));
                continue;
            }
        };
        let path = out_dir().join(format!("{name}.xir"));
        if bless {
            std::fs::create_dir_all(out_dir()).unwrap();
            std::fs::write(&path, &want).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(&want) {
            problems.push(format!("{name}.xir is stale (XIR_BLESS=1 regenerates it)"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
    if std::env::var_os("XIR_OPS_ONLY").is_none() {
        let mut on_disk: Vec<String> = rt_common::xir_files(&out_dir())
            .iter()
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
            .collect();
        on_disk.sort();
        let listed: Vec<String> = srcs.iter().map(|(n, _)| n.clone()).collect();
        assert_eq!(
            on_disk, listed,
            "ops/ files without a source, or sources without a file"
        );
        assert!(listed.len() >= 40, "only {} ops corpus files", listed.len());
    }
}

/// Checks the files themselves (whatever their source says): they parse, verify, print
/// as their own module text, and their CHECK lines are exactly the printed lines.
#[test]
fn ops_corpus_files_verify_and_pin_their_print() {
    let only = std::env::var("XIR_OPS_ONLY").ok();
    let mut problems = Vec::new();
    for path in rt_common::xir_files(&out_dir()) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if only.as_deref().is_some_and(|o| format!("{o}.xir") != name) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let runs = rt_common::run_lines(&text);
        let options = runs.first().and_then(|r| {
            r.strip_prefix("xir-opt --verify-options=")?
                .split_whitespace()
                .next()
        });
        let want: Vec<String> = run_lines(options)
            .lines()
            .map(|l| l.trim_start_matches("// RUN: ").to_string())
            .collect();
        assert_eq!(runs, want, "{name}");
        let out = match parse_verify_print(&name, &text, options) {
            Ok(o) => o,
            Err(e) => {
                problems.push(e);
                continue;
            }
        };
        // The module text is the whole file after the comment header.
        match text.strip_suffix(out.as_str()) {
            Some(head) if head.lines().all(|l| l.is_empty() || l.starts_with("//")) => {}
            _ => problems.push(format!("{name}: the module text is not its own print")),
        }
        let checks: Vec<String> = text
            .lines()
            .filter_map(|l| {
                let l = l.strip_prefix("// CHECK")?;
                Some(if l == "-EMPTY:" {
                    String::new()
                } else {
                    l.strip_prefix(": ")
                        .or_else(|| l.strip_prefix("-NEXT: "))?
                        .to_string()
                })
            })
            .collect();
        let printed: Vec<&str> = out.lines().collect();
        if checks != printed {
            problems.push(format!("{name}: the CHECK lines are not the printed lines"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
