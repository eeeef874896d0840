//! `print_module_to` writes exactly the bytes of `print_module`, for every module of the
//! lit corpus that parses, in every printer form (nested/flat, with and without debug
//! info, upstream/stable ids), and streams (writes before the end) when it can.

use std::io;
use std::path::{Path, PathBuf};
use xir_ir::text::{IdStyle, PrintOptions, parse_module, print_module, print_module_to};

/// A writer that keeps the bytes and counts the writes.
#[derive(Default)]
struct Recorder {
    bytes: Vec<u8>,
    writes: usize,
}

impl io::Write for Recorder {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writes += 1;
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A writer that fails on its first write.
struct Broken;

impl io::Write for Broken {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Err(io::Error::other("disk full"))
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn corpus_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            corpus_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "xir") {
            out.push(p);
        }
    }
}

fn all_options() -> Vec<PrintOptions> {
    let mut v = Vec::new();
    for flat in [false, true] {
        for debug_info in [false, true] {
            for ids in [IdStyle::Upstream, IdStyle::Stable] {
                v.push(PrintOptions {
                    flat,
                    debug_info,
                    ids,
                });
            }
        }
    }
    v
}

#[test]
fn streamed_text_is_print_module_text_for_the_corpus() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../test-corpus/corpus");
    let mut files = Vec::new();
    corpus_files(&root, &mut files);
    files.sort();
    let (mut modules, mut early, mut late) = (0, 0, 0);
    for path in &files {
        let src = std::fs::read_to_string(path).unwrap();
        let Ok((m, _)) = parse_module(&src) else {
            continue;
        };
        modules += 1;
        for opts in all_options() {
            let want = print_module(&m, &opts);
            let mut w = Recorder::default();
            print_module_to(&m, &opts, &mut w).unwrap();
            assert!(
                w.bytes == want.as_bytes(),
                "{} with {opts:?}: streamed text differs",
                path.display()
            );
            // Prelude + main in two writes at the end, or more when it streamed.
            if m.func_order.len() > 1 && w.writes > 2 {
                early += 1;
            } else {
                late += 1;
            }
        }
    }
    assert!(modules >= 150, "only {modules} corpus modules parsed");
    assert!(early > 0 && late > 0, "early {early}, late {late}");
}

#[test]
fn a_failing_writer_is_an_error_not_a_panic() {
    let src = "module;\n\ncallable %0: void () = define %1: {\n    %2: void = return;\n};\n";
    let (m, _) = parse_module(src).unwrap();
    assert!(print_module_to(&m, &PrintOptions::default(), &mut Broken).is_err());
}
