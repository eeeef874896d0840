//! `text_phases FILE` — one parse, one verify (default options) and one print into a
//! `String` of FILE, for callgrind's instruction-count guard (docs/performance.md):
//! the phases `xir-bench-text --iters 1` times, without building the backend that
//! `xir-tools` links (the file is read with `std::fs::read`, not `xir_driver::input`).
//!
//! ```sh
//! cargo build --release -p xir-ir --example text_phases
//! valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file=cg \
//!     target/release/examples/text_phases m100000.xir
//! callgrind_annotate --inclusive=yes cg-01 | grep -E 'parse::parse_module |verify::verify_module |print::print_module '
//! grep '^summary:' cg-02     # the lexer thread (inputs of 4 MiB and more lex ahead on it)
//! ```

use xir_ir::text::{PrintOptions, parse_module, print_module};
use xir_ir::verify::{VerifyOptions, verify_module};

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: text_phases FILE");
        std::process::exit(2);
    };
    let bytes = std::fs::read(&path).unwrap_or_else(|e| {
        eprintln!("text_phases: cannot read '{path}': {e}");
        std::process::exit(1);
    });
    let Ok(src) = std::str::from_utf8(&bytes) else {
        eprintln!("text_phases: '{path}' is not UTF-8");
        std::process::exit(1);
    };
    let (m, map) = match parse_module(src) {
        Ok(x) => x,
        Err(d) => {
            eprint!("{}", xir_ir::diag::render(&path, src, &d[..d.len().min(5)]));
            std::process::exit(1);
        }
    };
    let errors = verify_module(&m, &VerifyOptions::default(), Some(&map)).len();
    let out = print_module(&m, &PrintOptions::default());
    println!(
        "{path}: {} instructions, {errors} verifier errors, {} bytes printed",
        m.inst_count(),
        out.len()
    );
}
