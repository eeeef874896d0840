//! `parse_print FILE [--flat]` — parses FILE and prints it canonically, or prints the
//! diagnostics like `xir-opt` would (exit 1). Used to write the parser corpus.
fn main() {
    let path = std::env::args().nth(1).expect("file");
    let flat = std::env::args().any(|a| a == "--flat");
    let src = std::fs::read_to_string(&path).expect("read");
    match xir_ir::text::parse_module(&src) {
        Ok((m, _)) => {
            let opts = xir_ir::text::PrintOptions {
                flat,
                ..Default::default()
            };
            print!("{}", xir_ir::text::print_module(&m, &opts));
        }
        Err(d) => {
            eprint!("{}", xir_ir::diag::render(&path, &src, &d));
            std::process::exit(1);
        }
    }
}
