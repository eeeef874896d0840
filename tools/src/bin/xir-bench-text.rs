//! `xir-bench-text FILE [--iters K] [--once]` — text-format throughput.
//!
//! Default: reads FILE once, then runs parse, verify and print K times (default 5) and
//! reports the median time of each as MB/s (of input text; output text for print) and
//! ns per instruction, plus the process's peak RSS. `--once` does a single read + parse,
//! then verify and print (streamed per function as `xir-opt` prints, here into a byte
//! counter) one after the other, then both again at the same time as `xir-opt -o FILE`
//! runs them (the verifier on a second thread), and reports the whole process both ways:
//! ns per instruction and peak RSS in bytes per instruction (run it under
//! `/usr/bin/time -v` to cross-check); then, outside the total, the time of
//! `print_module` into one `String`.

use std::time::Instant;
use xir_ir::text::{PrintOptions, parse_module, print_module, print_module_to};
use xir_ir::verify::{VerifyOptions, verify_module};

fn peak_rss_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Parses `src`, or prints the first diagnostics and exits 1 (the input must be valid).
fn parse_or_exit(path: &str, src: &str) -> (xir_ir::Module, xir_ir::source_map::SourceMap) {
    match parse_module(src) {
        Ok(x) => x,
        Err(d) => {
            eprint!("{}", xir_ir::diag::render(path, src, &d[..d.len().min(5)]));
            std::process::exit(1);
        }
    }
}

/// Counts the bytes written to it.
struct ByteCounter(u64);

impl std::io::Write for ByteCounter {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len() as u64;
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One line to standard output; a closed pipe (`| head`) is not an error worth a panic.
fn say(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let _ = writeln!(std::io::stdout(), "{args}");
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let mut path = None;
    let mut iters = 5usize;
    let mut once = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--iters" => iters = args.next().and_then(|s| s.parse().ok()).unwrap_or(5).max(1),
            "--once" => once = true,
            "-h" | "--help" => {
                println!("usage: xir-bench-text FILE [--iters K] [--once]");
                return;
            }
            _ if a.starts_with('-') => {
                eprintln!("xir-bench-text: unknown option '{a}'");
                std::process::exit(2);
            }
            _ => path = Some(a),
        }
    }
    let Some(path) = path else {
        eprintln!("usage: xir-bench-text FILE [--iters K] [--once]");
        std::process::exit(2);
    };
    let t0 = Instant::now();
    // Read as xir-opt reads (huge pages for a large file), then checked as UTF-8.
    let bytes = match xir_driver::input::read_file(std::path::Path::new(&path)) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("xir-bench-text: cannot read '{path}': {e}");
            std::process::exit(1);
        }
    };
    let src = match std::str::from_utf8(&bytes) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("xir-bench-text: '{path}' is not UTF-8: {e}");
            std::process::exit(1);
        }
    };
    let read_s = t0.elapsed().as_secs_f64();
    let mb = src.len() as f64 / 1e6;
    if once {
        let t = Instant::now();
        let (m, map) = parse_or_exit(&path, src);
        let parse_s = t.elapsed().as_secs_f64();
        let after_parse = peak_rss_bytes().unwrap_or(0);
        let t = Instant::now();
        let errors = verify_module(&m, &VerifyOptions::default(), Some(&map)).len();
        let verify_s = t.elapsed().as_secs_f64();
        // Printed as xir-opt prints: streamed per function (here into a byte counter,
        // so no write system calls are timed).
        let t = Instant::now();
        let mut counter = ByteCounter(0);
        print_module_to(&m, &PrintOptions::default(), &mut counter).expect("counting");
        let print_s = t.elapsed().as_secs_f64();
        // As `xir-opt -o FILE` runs them: the verifier on a second thread while the
        // module is printed.
        let t = Instant::now();
        let (overlap_errors, overlap_bytes) = std::thread::scope(|scope| {
            let verifier =
                scope.spawn(|| verify_module(&m, &VerifyOptions::default(), Some(&map)).len());
            let mut counter = ByteCounter(0);
            print_module_to(&m, &PrintOptions::default(), &mut counter).expect("counting");
            (verifier.join().expect("verifier"), counter.0)
        });
        let overlap_s = t.elapsed().as_secs_f64();
        assert_eq!((overlap_errors, overlap_bytes), (errors, counter.0));
        let n = m.inst_count();
        let rss = peak_rss_bytes().unwrap_or(0);
        say(format_args!(
            "{path}: {n} instructions, {:.1} MB; read {:.3} s, parse {:.3} s, verify {:.3} s ({errors} errors), print (streamed) {:.3} s ({} bytes out); verify || print {:.3} s",
            mb, read_s, parse_s, verify_s, print_s, counter.0, overlap_s
        ));
        say(format_args!(
            "whole process as xir-opt -o runs it (read+parse+(verify || print)): {:.0} ns/instruction ({:.0} MB/s); one phase after the other: {:.0} ns/instruction; peak RSS {} bytes = {:.0} bytes/instruction",
            (read_s + parse_s + overlap_s) * 1e9 / n as f64,
            mb / (read_s + parse_s + overlap_s),
            (read_s + parse_s + verify_s + print_s) * 1e9 / n as f64,
            rss,
            rss as f64 / n as f64
        ));
        say(format_args!(
            "peak RSS after read+parse: {after_parse} bytes = {:.0} bytes/instruction",
            after_parse as f64 / n as f64
        ));
        // For comparison, outside the total: the whole text into one String.
        let t = Instant::now();
        let out = print_module(&m, &PrintOptions::default());
        say(format_args!(
            "print_module into one String (not in the total): {:.3} s ({} bytes)",
            t.elapsed().as_secs_f64(),
            out.len()
        ));
        return;
    }
    let mut parse_t = Vec::new();
    let mut verify_t = Vec::new();
    let mut print_t = Vec::new();
    let mut n = 0;
    let mut out_len = 0;
    for _ in 0..iters {
        let t = Instant::now();
        let (m, map) = parse_or_exit(&path, src);
        parse_t.push(t.elapsed().as_secs_f64());
        n = m.inst_count();
        let t = Instant::now();
        let errors = verify_module(&m, &VerifyOptions::default(), Some(&map));
        verify_t.push(t.elapsed().as_secs_f64());
        if !errors.is_empty() {
            eprintln!(
                "warning: {} verifier errors, first: {}",
                errors.len(),
                errors[0].message
            );
        }
        let t = Instant::now();
        let out = print_module(&m, &PrintOptions::default());
        print_t.push(t.elapsed().as_secs_f64());
        out_len = out.len();
        drop((m, map, out));
    }
    let (p, v, q) = (median(parse_t), median(verify_t), median(print_t));
    say(format_args!(
        "{path}: {n} instructions, {:.1} MB in, {:.1} MB out, {iters} iterations (median)",
        mb,
        out_len as f64 / 1e6
    ));
    say(format_args!(
        "parse: {:>8.3} s {:>8.1} MB/s {:>8.0} ns/instruction",
        p,
        mb / p,
        p * 1e9 / n as f64
    ));
    say(format_args!(
        "verify:{:>8.3} s {:>8.1} MB/s {:>8.0} ns/instruction",
        v,
        mb / v,
        v * 1e9 / n as f64
    ));
    say(format_args!(
        "print: {:>8.3} s {:>8.1} MB/s {:>8.0} ns/instruction",
        q,
        out_len as f64 / 1e6 / q,
        q * 1e9 / n as f64
    ));
    say(format_args!(
        "peak RSS {} bytes",
        peak_rss_bytes().unwrap_or(0)
    ));
}
