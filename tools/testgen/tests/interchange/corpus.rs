//! The interchange corpus in `test-corpus/corpus/interchange/`: valid upstream-style
//! texts (one per sample module) that must survive text → module → text and
//! text → bitcode → text byte-identically, and malformed texts and bitcode fixtures whose
//! errors must be located exactly as their `; CHECK:` lines (or `bitcode-expected.txt`)
//! say. `XIR_BLESS=1 cargo test -p xir-testgen corpus` regenerates the files.

use super::REFERENCE_EXAMPLE as EX;
use super::units::seal;
use std::path::{Path, PathBuf};
use xir_ir::diag::render;
use xir_ir::interchange::*;
use xir_testgen::samples;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../test-corpus/corpus/interchange")
}

const VALID_RUN: &str = "; RUN: xir-opt %s --emit=interchange -o %t.txt
; RUN: grep -v '^; RUN:' %s > %t.expected
; RUN: diff %t.expected %t.txt
; RUN: xir-opt %s --emit=bitcode -o %t.bc
; RUN: xir-opt %t.bc --emit=interchange | diff %t.expected -
";

/// Malformed texts: (name, replaced, replacement) applied to the reference example.
const MALFORMED_TEXT: &[(&str, &str, &str)] = &[
    ("bad-version", "xir.text 1", "xir.text 2"),
    ("bad-keyword", "globals 1", "global 1"),
    ("bad-hex", "\"01000000\"", "\"0100000g\""),
    ("short-constant", "\"01000000\"", "\"010000\""),
    ("bad-op", "binary_add", "binary_plus"),
    ("bad-tag", "arithmetic \"int\"", "arith \"int\""),
    ("unknown-id", "binary_add 2 2 0", "binary_add 2 2 99"),
    ("bad-null", "binary_add 2 2 0", "binary_add 2 2 -1"),
    ("duplicate-id", "block 3", "block 2"),
    (
        "bad-shape",
        "return \"void\" -1 1 4 0",
        "return \"void\" -1 1 4 1 7",
    ),
    ("bad-result-type", "return \"void\"", "return \"int\""),
    (
        "bad-block-size",
        "callable \"int\" 0 0 0",
        "callable \"int\" 0 1 0",
    ),
    ("bad-arg-kind", "argument 2 value", "argument 2 resource"),
    (
        "bad-type",
        "constant 0 \"int\"",
        "constant 0 \"struct<2,int>\"",
    ),
    (
        "bad-escape",
        "metadata 0\n  globals",
        "metadata 1\n  md comment \"\\q\"\n  globals",
    ),
    (
        "bad-md-name",
        "metadata 0\n  globals",
        "metadata 1\n  md name \"a b\"\n  globals",
    ),
    (
        "bad-curve-basis",
        "metadata 0\n  globals",
        "metadata 1\n  md curve_basis 16\n  globals",
    ),
    ("count-limit", "instructions 2", "instructions 1048577"),
    ("count-budget", "instructions 2", "instructions 3"),
    ("verifier", "callable \"int\"", "callable \"void\""),
    ("trailing", "}\n}\n", "}\n}\n}\n"),
];

/// Malformed bitcode: (name, bytes).
fn malformed_bitcode() -> Vec<(&'static str, Vec<u8>)> {
    let good = write_bitcode(&samples::callable_add()).unwrap_or_default();
    let mut v = Vec::new();
    let mut b = good.clone();
    b[0] = b'M';
    v.push(("bad-magic", b));
    v.push(("short-header", good[..20].to_vec()));
    let mut b = good.clone();
    b[8] = 9;
    v.push(("bad-version", b));
    let mut b = good.clone();
    b[14] = 1;
    v.push(("reserved", b));
    v.push(("truncated", good[..good.len() - 3].to_vec()));
    let mut b = good.clone();
    let n = b.len() - 1;
    b[n] ^= 0x40;
    v.push(("checksum", b));
    let p = &good[BITCODE_HEADER_SIZE..];
    let mut q = vec![p[0] | 0x80, 0];
    q.extend_from_slice(&p[1..]);
    v.push(("non-minimal-leb", seal(&q)));
    v.push(("unsorted-strings", seal(&[2, 1, b'b', 1, b'a'])));
    v.push(("string-index", seal(&[1, 1, b'a', 1, 0, 9])));
    v.push(("count-too-large", seal(&[0, 0, 0xff, 0xff, 0x7f])));
    v.push(("bad-global-kind", seal(&[0, 0, 1, 5, 0])));
    // A well-formed envelope (version 1: interchange text) whose decoded module fails
    // verification: reported with the verifier's own diagnostics.
    let bad = EX.replacen("callable \"int\"", "callable \"void\"", 1);
    let mut b = seal(bad.as_bytes());
    b[8] = 1;
    v.push(("verifier", b));
    v
}

fn strip_run(s: &str) -> String {
    s.lines()
        .filter(|l| !l.starts_with("; RUN:") && !l.starts_with("; CHECK"))
        .map(|l| format!("{l}\n"))
        .collect()
}

fn bless() {
    let d = dir();
    let mal = d.join("malformed");
    std::fs::create_dir_all(&mal).unwrap();
    for (name, m) in samples::all() {
        let text = write_interchange_text(&m).unwrap();
        std::fs::write(d.join(format!("{name}.xirx")), format!("{text}{VALID_RUN}")).unwrap();
    }
    for (name, from, to) in MALFORMED_TEXT {
        let src = EX.replacen(from, to, 1);
        let file = format!("{name}.xirx");
        let d0 = read_interchange_text(&src).expect_err(name);
        let first = render(&file, &src, &d0[..1]);
        let head = first.lines().next().unwrap_or_default();
        let at = head.find(':').map_or(head, |i| &head[i..]);
        let body = format!(
            "{src}; RUN: not xir-opt %s 2>&1 | FileCheck %s\n; CHECK: {{{{.*}}}}{name}.xirx{at}\n"
        );
        std::fs::write(mal.join(file), body).unwrap();
    }
    let mut expected = String::from("# file offset message\n");
    for (name, bytes) in malformed_bitcode() {
        let e = read_bitcode(&bytes).expect_err(name);
        std::fs::write(mal.join(format!("{name}.bin")), &bytes).unwrap();
        expected.push_str(&format!(
            "{name}.bin {} {}\n",
            e.offset.map_or(-1, |o| o as i64),
            e.message
        ));
    }
    std::fs::write(mal.join("bitcode-expected.txt"), expected).unwrap();
    // Fuzz seeds: every corpus text, and the bitcode of every sample plus the fixtures.
    let fz = fuzz_dir();
    let (ft, fb) = (fz.join("interchange_text"), fz.join("interchange_bitcode"));
    std::fs::create_dir_all(&ft).unwrap();
    std::fs::create_dir_all(&fb).unwrap();
    for p in files(&d, "xirx").into_iter().chain(files(&mal, "xirx")) {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        std::fs::copy(&p, ft.join(format!("seed-{name}"))).unwrap();
    }
    for (name, m) in samples::all() {
        let bc = write_bitcode(&m).unwrap();
        std::fs::write(fb.join(format!("seed-{name}.bin")), bc).unwrap();
    }
    for p in files(&mal, "bin") {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        std::fs::copy(&p, fb.join(format!("seed-{name}"))).unwrap();
    }
}

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ir/fuzz/corpus")
}

/// Replays the committed fuzz corpora with the fuzz targets' properties: no panic, and
/// every accepted input round-trips.
#[test]
fn fuzz_corpus_replay() {
    let fz = fuzz_dir();
    let mut n = 0;
    for p in files_all(&fz.join("interchange_text")) {
        let data = std::fs::read(&p).unwrap();
        let src = std::str::from_utf8(&data).unwrap_or_default();
        if let Ok(m) = read_interchange_text(src) {
            let text = write_interchange_text(&m).unwrap();
            let m2 = read_interchange_text(&text).unwrap();
            assert_eq!(
                write_interchange_text(&m2).unwrap(),
                text,
                "{}",
                p.display()
            );
        }
        n += 1;
    }
    for p in files_all(&fz.join("interchange_bitcode")) {
        let data = std::fs::read(&p).unwrap();
        let mut fixed = data.clone();
        if fixed.len() >= BITCODE_HEADER_SIZE {
            let len = (fixed.len() - BITCODE_HEADER_SIZE) as u64;
            fixed[16..24].copy_from_slice(&len.to_le_bytes());
            let sum = fnv1a64(&data[BITCODE_HEADER_SIZE..]);
            fixed[24..32].copy_from_slice(&sum.to_le_bytes());
        }
        for d in [&data, &fixed] {
            if let Ok(m) = read_bitcode(d) {
                let text = write_interchange_text(&m).unwrap();
                let m2 = read_bitcode(&write_bitcode(&m).unwrap()).unwrap();
                assert_eq!(
                    write_interchange_text(&m2).unwrap(),
                    text,
                    "{}",
                    p.display()
                );
            }
        }
        n += 1;
    }
    assert!(n >= 50, "fuzz corpus has only {n} files");
}

fn files_all(d: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(d)
        .map(|r| r.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| p.is_file());
    v.sort();
    v
}

fn files(d: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(d)
        .map(|r| r.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == ext));
    v.sort();
    v
}

#[test]
fn corpus() {
    if std::env::var_os("XIR_BLESS").is_some() {
        bless();
    }
    let d = dir();
    let valid = files(&d, "xirx");
    assert!(valid.len() >= 40, "only {} valid corpus files", valid.len());
    for p in &valid {
        let src = std::fs::read_to_string(p).unwrap();
        let want = strip_run(&src);
        let m = read_interchange_text(&src)
            .unwrap_or_else(|e| panic!("{}: {}", p.display(), render("f", &src, &e)));
        assert_eq!(write_interchange_text(&m).unwrap(), want, "{}", p.display());
        let bc = write_bitcode(&m).unwrap();
        let m2 = read_bitcode(&bc).unwrap();
        assert_eq!(
            write_interchange_text(&m2).unwrap(),
            want,
            "{}",
            p.display()
        );
    }
    let mal = d.join("malformed");
    let bad = files(&mal, "xirx");
    for p in &bad {
        let src = std::fs::read_to_string(p).unwrap();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let e = read_interchange_text(&src).expect_err(&name);
        let out = render(&name, &src, &e[..1]);
        let check = src
            .lines()
            .find_map(|l| l.strip_prefix("; CHECK: {{.*}}"))
            .unwrap_or_else(|| panic!("{name}: no CHECK line"));
        assert_eq!(out.lines().next(), Some(check), "{name}");
    }
    let expected = std::fs::read_to_string(mal.join("bitcode-expected.txt")).unwrap();
    let mut n_bin = 0;
    for line in expected.lines().filter(|l| !l.starts_with('#')) {
        let mut it = line.splitn(3, ' ');
        let (file, off, msg) = (it.next().unwrap(), it.next().unwrap(), it.next().unwrap());
        let bytes = std::fs::read(mal.join(file)).unwrap();
        let e = read_bitcode(&bytes).expect_err(file);
        assert_eq!(e.offset.map_or(-1, |o| o as i64).to_string(), off, "{file}");
        assert_eq!(e.message, msg, "{file}");
        n_bin += 1;
    }
    assert!(
        bad.len() + n_bin >= 15,
        "only {} malformed inputs",
        bad.len() + n_bin
    );
}
