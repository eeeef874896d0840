//! The fast and the lalrpop text readers agree: on every corpus file, every committed
//! fuzz input and 2,000 generated modules in all eight print forms, whatever the fast
//! reader accepts the lalrpop reader accepts with the identical module (arena order
//! included) and source map. The fast reader must also accept every valid input of the
//! corpus and the generator, or the fall-back would hide its slowness.

mod diff_common;
mod rt_common;

use diff_common::{Outcome, compare, differ};
use rt_common::{all_forms, corpus_root, form_name, structured_case, xir_files};
use std::path::Path;
use xir_ir::text::{Reader, parse_module_with, print_module};
use xir_testgen::{GenConfig, generate_module};

/// Counts of the outcomes over a set of inputs; panics on a divergence.
#[derive(Default, Debug)]
struct Tally {
    both_ok: usize,
    gave_up_on_valid: Vec<String>,
    rejected: usize,
}

impl Tally {
    fn add(&mut self, name: &str, src: &str) {
        match differ(src) {
            Ok(Outcome::BothOk) => self.both_ok += 1,
            Ok(Outcome::FastGaveUpOnValid) => self.gave_up_on_valid.push(name.to_string()),
            Ok(Outcome::BothRejected) => self.rejected += 1,
            Err(e) => panic!("{name}: the readers diverge: {e}"),
        }
    }

    fn assert_full_coverage(&self, what: &str) {
        assert!(
            self.gave_up_on_valid.is_empty(),
            "{what}: the fast reader gave up on {} valid inputs (of {}): {:?}",
            self.gave_up_on_valid.len(),
            self.both_ok + self.gave_up_on_valid.len(),
            &self.gave_up_on_valid[..self.gave_up_on_valid.len().min(10)]
        );
    }
}

#[test]
fn corpus_files_agree_and_the_fast_reader_covers_them() {
    let mut t = Tally::default();
    for p in xir_files(&corpus_root()) {
        let src = std::fs::read_to_string(&p).expect("read corpus file");
        t.add(&p.display().to_string(), &src);
    }
    eprintln!("corpus: {t:?}");
    assert!(t.both_ok >= 100, "expected the corpus, got {t:?}");
    t.assert_full_coverage("corpus");
}

#[test]
fn generated_modules_agree_in_every_form() {
    let forms = all_forms();
    let mut t = Tally::default();
    for seed in 0..2000u64 {
        let cfg = GenConfig {
            max_depth: 1 + (seed % 4) as u32,
            max_stmts: 1 + (seed / 4 % 6) as u32,
            max_callables: (seed / 24 % 4) as u32,
            recipes_per_module: 1 + (seed * 7 % 48) as u32,
        };
        let m = generate_module(seed, &cfg);
        let o = &forms[(seed % 8) as usize];
        let text = print_module(&m, o);
        t.add(&format!("seed {seed} {}", form_name(o)), &text);
    }
    eprintln!("generated: both ok {}", t.both_ok);
    assert_eq!(t.rejected, 0, "generated modules are valid: {t:?}");
    assert_eq!(t.both_ok, 2000);
    t.assert_full_coverage("generator");
}

fn fuzz_dir(target: &str) -> Vec<std::path::PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../ir/fuzz/corpus")
        .join(target);
    let mut v: Vec<_> = std::fs::read_dir(&d)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn committed_parse_bytes_inputs_agree() {
    let mut t = Tally::default();
    for p in fuzz_dir("parse_bytes")
        .into_iter()
        .chain(fuzz_dir("parse_differential"))
    {
        let data = std::fs::read(&p).expect("read fuzz input");
        t.add(&p.display().to_string(), &String::from_utf8_lossy(&data));
    }
    eprintln!(
        "parse_bytes and parse_differential: both ok {}, rejected {}, fast gave up on valid {}",
        t.both_ok,
        t.rejected,
        t.gave_up_on_valid.len()
    );
    assert!(
        t.both_ok + t.rejected >= 50,
        "expected the committed corpus"
    );
}

#[test]
fn committed_roundtrip_structured_inputs_agree() {
    let mut t = Tally::default();
    for p in fuzz_dir("roundtrip_structured") {
        let data = std::fs::read(&p).expect("read fuzz input");
        let (seed, cfg, opts) = structured_case(&data);
        let text = print_module(&generate_module(seed, &cfg), &opts);
        t.add(&p.display().to_string(), &text);
    }
    eprintln!("roundtrip_structured: both ok {}", t.both_ok);
    assert!(t.both_ok >= 50, "expected the committed corpus: {t:?}");
    assert_eq!(t.rejected, 0);
    t.assert_full_coverage("roundtrip_structured corpus");
}

/// The check itself can fail: a fast answer that differs from lalrpop's in the module,
/// in the source map only, or that accepts what lalrpop rejects, is a divergence.
#[test]
fn a_divergence_is_detected() {
    let a = "module;\n\ncallable %f: void () = define %1: {\n    %2: void = return;\n};\n";
    assert_eq!(differ(a), Ok(Outcome::BothOk));
    let bad = "module;\n\ncallable %f: void () = define %1: {\n    %2: void = retrn;\n};\n";
    assert_eq!(differ(bad), Ok(Outcome::BothRejected));
    let lalrpop = |s: &str| parse_module_with(s, Reader::Lalrpop).unwrap();
    // Same module, other spans (an extra space shifts the source map).
    let spaced = a.replace("return", " return");
    assert!(compare(Some(lalrpop(&spaced)), lalrpop(a)).is_err());
    // Another module.
    let other = a.replace("callable %f: void ()", "callable %f: void (%x: u32;)");
    assert!(compare(Some(lalrpop(&other)), lalrpop(a)).is_err());
    // Accepting what lalrpop rejects.
    assert!(compare(Some(lalrpop(a)), lalrpop(bad)).is_err());
}

/// Inputs of a megabyte or more are lexed on a helper thread (`lex_ahead`): the readers
/// must still agree there (many token batches, a raw `name =` metadata value), and a
/// lexical error far past the first batches must still make the fast reader give up.
#[test]
fn large_inputs_lexed_ahead_agree() {
    let mut text = String::from("module;\n");
    let mut i = 0;
    while text.len() < 3 * xir_ir::text::lex_ahead::THREAD_MIN_BYTES {
        text.push_str(&format!(
            "[name = kernel number {i}]\nkernel %k{i} (\n    %a: f32;\n    %n: u32;\n) = define %entry: {{\n    \
             %s: f32 = arithmetic binary_add %a, %a;\n    %t: f32 = arithmetic binary_mul %s, %a;\n    \
             %c: bool = arithmetic binary_less %n, %n;\n    %r: void = return;\n}};\n"
        ));
        i += 1;
    }
    assert_eq!(differ(&text), Ok(Outcome::BothOk));
    let (m, _) = parse_module_with(&text, Reader::Fast)
        .expect("the fast reader reads it")
        .expect("valid");
    assert_eq!(m.inst_count(), 4 * i);
    // A lexical error near the end: the fast reader gives up, lalrpop reports it.
    let at = text.len() - 40;
    let bad = format!("{}$${}", &text[..at], &text[at..]);
    assert!(parse_module_with(&bad, Reader::Fast).is_none());
    assert_eq!(differ(&bad), Ok(Outcome::BothRejected));
}
