//! `xir-run`: see `xir_tools::run`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let stdin = if args.iter().any(|a| a == "-") {
        let mut v = Vec::new();
        let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut v);
        v
    } else {
        Vec::new()
    };
    let code = xir_tools::run::xir_run_main(
        &args,
        &stdin,
        &mut std::io::stdout(),
        &mut std::io::stderr(),
    );
    std::process::exit(code);
}
